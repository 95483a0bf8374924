/*
 * util/storage/slabhash.h - the concurrent slabbed hash table of the caches.
 *
 * The message cache, the RRset cache and the infrastructure cache are built
 * on this table. It is made for many readers and few writers: a cache hit
 * on a shared cache takes no lock and writes no shared cache line.
 *
 * Shape
 *   The table is split into a power-of-two number of slabs; the top bits of
 *   an entry's 32-bit hash pick the slab, the low bits the bucket. Each slab
 *   has its own mutex, its own bucket array, its own byte budget
 *   (maxmem / slabs) and its own CLOCK hand, so writers on different slabs
 *   do not meet. Buckets are singly linked chains through the entries.
 *
 * Entries
 *   The user embeds struct slabhash_entry as the FIRST member of its own
 *   entry struct, fills in hash and mem (the bytes the entry costs: see
 *   slabhash_malloc_size) and hands it to slabhash_insert. From then on the
 *   entry belongs to the table: it is IMMUTABLE once published (readers
 *   may look at it at any time without a lock), except for fields the
 *   user itself declares atomic (e.g. the message cache's prefetch flag)
 *   and for the table's own next and ref fields. To change an entry, build
 *   a new one and insert it: it replaces the old one atomically. The table
 *   frees entries through the del callback, never before every reader that
 *   could still see them has passed a quiescent state (util/storage/qsbr.h).
 *
 * Locking protocol
 *   - Readers (slabhash_lookup): no lock. They load the slab's bucket array
 *     pointer, the bucket head and each next pointer (of the array's
 *     generation) with acquire loads.
 *     An entry pointer returned to a reader stays valid until the reader's
 *     next qsbr_quiescent()/qsbr_offline() (the reader must be a
 *     registered, online QSBR reader when other threads write the table).
 *     The reader must not keep it longer: copy out what is needed.
 *   - Recency is a CLOCK reference bit per entry, written by a reader only
 *     when it is clear (relaxed), so a hot entry's line is not written on
 *     every hit.
 *   - Writers (insert, remove, remove_if, clear, set_maxmem) take the slab
 *     mutex. Under it they link new entries with a release store of the
 *     bucket head (the entry's fields are written before), unlink with a
 *     release store of the predecessor's next, evict by CLOCK until the
 *     slab's live bytes are under its budget, and grow the bucket array.
 *     Unlinked entries and old bucket arrays go on the slab's limbo list,
 *     tagged by qsbr_retire_tag(), and are freed under the slab lock by a
 *     later writer (or slabhash_reclaim) once qsbr_safe_tag() passed the tag.
 *   - Growth doubles the bucket array when the slab holds more entries
 *     than buckets, without disturbing readers: each entry has two next
 *     pointers, and each bucket array a generation bit saying which one
 *     chains it. The new array is built through the other pointer (each
 *     entry pushed onto its new chain), then published with a release
 *     store; the chains of the old array are not touched, so a reader still
 *     walking them sees a consistent (frozen) snapshot: no false miss, no
 *     loop, no waiting. Later writes go to the new chains only; entries
 *     they unlink stay reachable from the snapshot, which is why they wait
 *     out the grace period like any other. The old array goes to the limbo;
 *     the next growth reuses its pointer, so it waits until that array has
 *     been freed (its readers all passed a quiescent state): until then,
 *     growth is skipped and tried again at a later insert.
 *   - Traversals (slabhash_traverse, remove_if) run under each slab's lock
 *     in turn: the callback must not call into the same table.
 *   - Lock order: one slab lock at a time; the del callback is called with
 *     the slab lock held and must not call into the table.
 *   Why not a per-slab rwlock: pthread_rwlock_rdlock writes the lock word,
 *   so every hit would bounce one cache line between the cores. Why not a
 *   seqlock: a reader would have to copy the whole answer out and retry,
 *   and still needs deferred freeing to dereference chain pointers safely.
 *
 * Memory accounting
 *   A slab counts sum(entry->mem) + its bucket array. Eviction keeps that
 *   under maxmem/slabs. Entries in limbo are counted separately
 *   (slabhash_get_limbo_mem): they are freed at the readers' next quiescent
 *   states, so the real footprint is at most the budget plus one event-loop
 *   iteration's worth of replaced entries.
 *
 * Without threads (fork model, --without-pthreads) the slab locks compile
 * away and, with at most one registered reader per process, limbo entries
 * are freed at that reader's next quiescent state (or at once when no
 * reader is registered).
 */
#ifndef UTIL_STORAGE_SLABHASH_H
#define UTIL_STORAGE_SLABHASH_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/**
 * The table's part of an entry: embed as the first member of the user's
 * entry struct. The user sets hash and mem before insert; the table owns
 * the rest.
 */
struct slabhash_entry {
	/** next entry in the bucket chain (table-owned); two, one per
	 *  bucket array generation (see growth in the file comment) */
	_Atomic(struct slabhash_entry *) next[2];
	/** next entry on the limbo list, once unlinked (table-owned) */
	struct slabhash_entry *limbo_next;
	/** QSBR tag given when the entry was unlinked (table-owned) */
	uint64_t retired;
	/** bytes the entry costs, all allocations with malloc overhead
	 *  (user-set, before insert) */
	size_t mem;
	/** hash of the key (user-set, before insert) */
	uint32_t hash;
	/** CLOCK reference bit: set by readers when clear (table-owned) */
	atomic_uchar ref;
};

/** the table (opaque) */
struct slabhash;

/**
 * Does entry e hold this key?
 * @param e: an entry whose hash equals the looked-up hash.
 * @param key: the key given to lookup/insert/remove.
 * @return 1 if it matches, 0 if not.
 */
typedef int (*slabhash_match_func)(const struct slabhash_entry *e,
	const void *key);

/**
 * Free an entry the table is done with. Called with the slab lock held;
 * must not call into the table.
 */
typedef void (*slabhash_del_func)(struct slabhash_entry *e, void *arg);

/**
 * Insert policy: an entry with the same key exists.
 * @param old: the entry in the table (read-only).
 * @param e: the new entry, not yet published: the function may still
 *	modify it (e.g. keep the old expiry time); if it changes e->mem it
 *	must do so here.
 * @param arg: the insert's user argument.
 * @return 1 to replace old with e, 0 to keep old (e is then deleted).
 */
typedef int (*slabhash_decide_func)(const struct slabhash_entry *old,
	struct slabhash_entry *e, void *arg);

/** Traversal callback, run under a slab lock; must not call the table. */
typedef void (*slabhash_traverse_func)(const struct slabhash_entry *e,
	void *arg);

/** Removal predicate, run under a slab lock. @return 1 to remove e. */
typedef int (*slabhash_pred_func)(const struct slabhash_entry *e, void *arg);

/**
 * Create a table.
 * @param num_slabs: number of slabs, rounded down to a power of two
 *	(at least 1).
 * @param maxmem: byte budget for the whole table (split evenly between
 *	the slabs).
 * @param match: key comparison.
 * @param del: frees an entry.
 * @param del_arg: passed to del.
 * @return the table, or NULL when out of memory. Free with slabhash_delete.
 */
struct slabhash *slabhash_create(size_t num_slabs, size_t maxmem,
	slabhash_match_func match, slabhash_del_func del, void *del_arg);

/**
 * Delete the table and every entry in it, limbo included. No thread may
 * use the table any more.
 */
void slabhash_delete(struct slabhash *t);

/**
 * Look up a key. Lock-free; sets the entry's CLOCK bit if it was clear.
 * @param t: table.
 * @param hash: the key's hash.
 * @param key: the key, passed to match.
 * @return the entry or NULL. The pointer is valid until the calling
 *	reader's next quiescent state; the entry must not be modified (except
 *	the user's own atomic fields).
 */
struct slabhash_entry *slabhash_lookup(struct slabhash *t, uint32_t hash,
	const void *key);

/**
 * Warm the CPU cache for a lookup of this hash that is coming soon. A
 * receiver that holds a batch of queries calls it with stage 0 for every
 * query (the bucket), then with stage 1 for every query (the first entry
 * of the bucket's chain, now that the bucket had time to arrive), then
 * does the lookups: the cache misses of the batch overlap instead of
 * following one another. Only prefetch instructions and reads the lookup
 * would make; the same rules as slabhash_lookup (an online QSBR reader).
 * @param t: the table.
 * @param hash: the hash the lookup will use.
 * @param stage: 0 or 1.
 */
void slabhash_prefetch(struct slabhash *t, uint32_t hash, int stage);

/** slabhash_insert result: the new entry went in (no older one) */
#define SLABHASH_INSERTED 1
/** slabhash_insert result: the new entry replaced an older one */
#define SLABHASH_REPLACED 2
/** slabhash_insert result: decide kept the older entry; e was deleted */
#define SLABHASH_KEPT 0

/**
 * Insert an entry; it belongs to the table from now on, whatever the
 * result. Evicts by CLOCK until the slab is under budget again (the new
 * entry itself may be evicted if it alone is larger than the slab budget).
 * @param t: table.
 * @param e: the entry, with hash and mem set.
 * @param key: its key, passed to match to find an older entry.
 * @param decide: insert policy when an older entry with the key exists;
 *	NULL means always replace.
 * @param arg: passed to decide.
 * @return SLABHASH_INSERTED, SLABHASH_REPLACED or SLABHASH_KEPT.
 */
int slabhash_insert(struct slabhash *t, struct slabhash_entry *e,
	const void *key, slabhash_decide_func decide, void *arg);

/**
 * Remove the entry with this key.
 * @return 1 if one was removed, 0 if not found.
 */
int slabhash_remove(struct slabhash *t, uint32_t hash, const void *key);

/**
 * Remove every entry for which pred returns 1 (slab by slab, under each
 * slab lock).
 * @return the number removed.
 */
size_t slabhash_remove_if(struct slabhash *t, slabhash_pred_func pred,
	void *arg);

/** Remove every entry. */
void slabhash_clear(struct slabhash *t);

/**
 * Call fn for every entry, slab by slab under each slab lock. The
 * callback must copy out what it needs and must not call into the table.
 */
void slabhash_traverse(struct slabhash *t, slabhash_traverse_func fn,
	void *arg);

/**
 * Free limbo entries whose grace period has passed. Writers do this as
 * they go; call it to drain the limbo without writing (e.g. at exit or in
 * tests after the readers passed quiescent states).
 */
void slabhash_reclaim(struct slabhash *t);

/** Change the byte budget (config reload); evicts down to it. */
void slabhash_set_maxmem(struct slabhash *t, size_t maxmem);

/** @return bytes in use: live entries plus bucket arrays. */
size_t slabhash_get_mem(struct slabhash *t);

/** @return bytes waiting in limbo for the readers' grace period. */
size_t slabhash_get_limbo_mem(struct slabhash *t);

/** @return the number of live entries. */
size_t slabhash_get_count(struct slabhash *t);

/** @return the number of buckets over all slabs (statistics, tests). */
size_t slabhash_get_num_buckets(struct slabhash *t);

/** @return the byte budget. */
size_t slabhash_get_maxmem(struct slabhash *t);

/** @return the number of slabs. */
size_t slabhash_get_num_slabs(struct slabhash *t);

/** @return the fixed bytes of the table itself (struct and slabs). */
size_t slabhash_overhead(struct slabhash *t);

/**
 * Estimate what malloc(n) really takes (glibc: 8 bytes of header,
 * rounded up to 16, at least 32). Use it to fill in entry->mem.
 */
size_t slabhash_malloc_size(size_t n);

/**
 * A hash function for byte strings (for the caches' keys).
 * @param data: bytes.
 * @param len: length.
 * @param seed: previous hash or start value, to chain fields.
 * @return 32-bit hash.
 */
uint32_t slabhash_hash_bytes(const void *data, size_t len, uint32_t seed);

#endif /* UTIL_STORAGE_SLABHASH_H */
