/*
 * util/storage/qsbr.h - quiescent-state-based reclamation for the caches.
 *
 * The shared caches are read without locks (util/storage/slabhash.h). A
 * writer that unlinks an entry cannot free it at once, because a reader
 * on another thread may still be looking at it. QSBR decides when it is
 * safe:
 *
 *   - There is one process-wide epoch counter G, starting at 1, and a
 *     table of reader slots, each alone on its cache line.
 *   - Every worker thread registers once (qsbr_register) and gets a slot.
 *     Its slot holds the value of G it last saw, or 0 while the thread is
 *     offline.
 *   - Once per event-loop iteration, between two batches of work, the
 *     worker announces a quiescent state (qsbr_quiescent): it holds no
 *     pointer into any cache at that moment, and copies G into its slot
 *     (release). When nothing was retired since, G did not move and the
 *     slot is not written at all.
 *   - Before blocking in the event loop the worker goes offline
 *     (qsbr_offline: slot = 0), and online again when it wakes
 *     (qsbr_online: slot = G, with a full barrier before it reads any
 *     cache). An offline reader never holds back reclamation.
 *   - A writer that unlinks an object tags it with qsbr_retire_tag(),
 *     which increments G and returns the new value T. The object may be
 *     freed once qsbr_safe_tag() >= T: every online reader has since
 *     loaded a G >= T, so it passed a quiescent state after the unlink.
 *
 * Hot-path cost for a reader: nothing per lookup; per loop iteration one
 * load of G and, when G moved, one store to its own cache line.
 *
 * Pointers obtained from a cache by a registered, online thread stay valid
 * until that thread's next qsbr_quiescent() or qsbr_offline(). A thread
 * that never registered is treated as not reading: objects are freed as
 * soon as no registered reader can see them, so an unregistered thread
 * must only use the caches when no other thread writes them (tests, the
 * single-threaded start-up) or under the slab lock (traversals).
 *
 * All of this works the same with and without a thread library (C11
 * atomics need no library); without threads it simply never has to wait.
 */
#ifndef UTIL_STORAGE_QSBR_H
#define UTIL_STORAGE_QSBR_H

#include <stdint.h>

/** maximum number of registered readers (worker threads plus helpers) */
#define QSBR_MAX_READERS 256

/** a registered reader's slot (opaque) */
struct qsbr_reader;

/**
 * Register the calling thread as a reader; it starts online.
 * @return the reader slot, or NULL when all QSBR_MAX_READERS slots are
 *	taken. Free with qsbr_unregister from the same thread.
 */
struct qsbr_reader *qsbr_register(void);

/** Unregister a reader (goes offline and releases the slot). NULL is ok. */
void qsbr_unregister(struct qsbr_reader *r);

/**
 * Announce a quiescent state: the thread holds no pointer obtained from a
 * cache. Call once per event-loop iteration. Cheap: no write when nothing
 * was retired since the last call.
 */
void qsbr_quiescent(struct qsbr_reader *r);

/** Go offline (before blocking in the event loop): holds back nothing. */
void qsbr_offline(struct qsbr_reader *r);

/** Come back online (after waking up), before reading any cache. */
void qsbr_online(struct qsbr_reader *r);

/**
 * Idle hook for the event layer (comm_base_set_idle_hooks before_wait):
 * qsbr_offline(reader). Going offline is also a quiescent state, so a
 * worker whose loop passes through this hook on every iteration needs no
 * separate qsbr_quiescent() call.
 * @param reader: the worker's struct qsbr_reader.
 */
void qsbr_hook_before_wait(void *reader);

/**
 * Idle hook for the event layer (after_wake): qsbr_online(reader).
 * @param reader: the worker's struct qsbr_reader.
 */
void qsbr_hook_after_wake(void *reader);

/** @return 1 if the reader is online. */
int qsbr_is_online(struct qsbr_reader *r);

/**
 * Writer side: start a grace period for objects just unlinked.
 * @return the tag to store with them; they may be freed once
 *	qsbr_safe_tag() >= tag.
 */
uint64_t qsbr_retire_tag(void);

/**
 * Writer side: @return the largest tag whose objects may be freed now
 *	(the minimum over online readers of the epoch each last saw; the
 *	current epoch when no reader is online). Scans the reader slots.
 */
uint64_t qsbr_safe_tag(void);

/**
 * In a child right after fork(): forget every reader slot. The threads
 * that held them do not exist in the child, and an online slot of a
 * vanished thread would hold back reclamation for ever. Readers of the
 * child register again.
 */
void qsbr_reset_after_fork(void);

/** @return the number of registered readers (for tests and stats). */
int qsbr_num_readers(void);

#endif /* UTIL_STORAGE_QSBR_H */
