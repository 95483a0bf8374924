/*
 * util/storage/shmarena.h - a shared memory mapping for caches shared by
 * forked workers: its header, a QSBR domain for the processes that read
 * it, and bounded block allocators that live inside it.
 *
 * The mapping
 *   One MAP_SHARED|MAP_ANONYMOUS mapping, made by the supervisor before it
 *   forks, inherited by every worker process. Nothing inside it is a
 *   pointer: every reference is a byte offset from the start of the
 *   mapping (0 means none), so a process that maps it at another address
 *   sees the same structure. The header at offset 0 holds the magic, the
 *   size, a set-up bump pointer (shmarena_carve: fixed structures made
 *   once, before the fork, never freed), a few named roots and the QSBR
 *   domain.
 *
 * QSBR across processes
 *   The same scheme as util/storage/qsbr.h (an epoch counter G, a reader
 *   slot per reader holding the G it last saw, 0 while offline), with the
 *   counter and the slots in the mapping. Each slot also records the pid
 *   of its owner, so that when a worker dies the supervisor clears the
 *   slots of that pid (shmarena_qsbr_release_pid): a dead reader never
 *   holds back reclamation.
 *
 * Arenas
 *   struct shmarena manages one range of the mapping; the caller
 *   serialises every call on one arena (the shared table gives each slab
 *   its own arena, under the slab lock). Blocks come in size classes,
 *   four per power of two from 64 bytes, each with a 32-byte header
 *   (state, class, kind, a link, a QSBR tag). A class is carved from the
 *   range's bump pointer the first time and kept for ever after: a freed
 *   block goes on its class's free list and is reused by the next
 *   allocation of that class; blocks are never split or merged. So the
 *   headers always tile the range [start, bump), and that linear walk is
 *   the ground truth: a block is FREE, USED or LIMBO (unlinked, waiting
 *   for the readers' grace period). Every state change is ordered so that
 *   a process killed between two stores leaves the headers right and at
 *   worst a list or a counter wrong; shmarena_rebuild remakes the free
 *   lists, the limbo list and the counters from the walk.
 *   Bounded: nothing is ever allocated outside the range; an allocation
 *   that does not fit fails (returns 0).
 *
 * Fault injection: shmarena_crash_set(n) makes the calling process kill
 *   itself (SIGKILL) at the n-th crash point passed in a write path of
 *   this module or of shmhash (tests only; 0, the default, disables it).
 */
#ifndef UTIL_STORAGE_SHMARENA_H
#define UTIL_STORAGE_SHMARENA_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/** number of size classes (the largest is 7 << 23 bytes, 56 MB) */
#define SHMARENA_CLASSES 84
/** bytes of a block header */
#define SHMARENA_HDR 32
/** reader slots of a mapping's QSBR domain (num-threads allows 1024
 *  workers; a dead worker's slot is freed by the supervisor) */
#define SHMARENA_READERS 1024
/** named roots in the mapping header */
#define SHMARENA_ROOTS 8

/** block states */
#define SHMARENA_FREE 0x46524545u
#define SHMARENA_USED 0x55534544u
#define SHMARENA_LIMBO 0x4c494d42u

/** one arena (lives in the mapping; all offsets from the mapping base) */
struct shmarena {
	/** the range: first block header */
	uint64_t start;
	/** one past the range */
	uint64_t end;
	/** first byte never carved */
	uint64_t bump;
	/** free list heads per class (block header offsets) */
	uint64_t free_head[SHMARENA_CLASSES];
	/** limbo list, oldest tag first (block header offsets) */
	uint64_t limbo_head, limbo_tail;
	/** blocks unlinked by the current operation, not yet tagged */
	uint64_t pending;
	/** bytes in USED blocks */
	uint64_t used_bytes;
	/** bytes in FREE blocks */
	uint64_t free_bytes;
	/** bytes in LIMBO blocks (pending included) */
	uint64_t limbo_bytes;
	/** LIMBO blocks of a kind the owner counts (see shmarena_retire) */
	uint64_t limbo_kind_count[4];
};

/**
 * Create the shared mapping (MAP_SHARED|MAP_ANONYMOUS) and its header.
 * @param size: bytes for shmarena_carve (the header is added on top;
 *	the total is rounded up to the page size).
 * @return the base address, or NULL (errno set). Children inherit it
 *	over fork(). Free with shmarena_map_delete.
 */
void *shmarena_map_create(size_t size);

/** Unmap a mapping (each process that stops using it). NULL is ok. */
void shmarena_map_delete(void *base);

/** @return the size of the mapping. */
size_t shmarena_map_size(const void *base);

/**
 * Set-up only (one process, before other processes use the mapping):
 * take n bytes (64-aligned) that are never freed.
 * @return their offset, or 0 when the mapping is full.
 */
uint64_t shmarena_carve(void *base, size_t n);

/** @return root i (0..SHMARENA_ROOTS-1) of the mapping, an offset or 0 */
uint64_t shmarena_root_get(const void *base, int i);

/** Set root i (set-up only). */
void shmarena_root_set(void *base, int i, uint64_t off);

/* ---- the mapping's QSBR domain ---- */

/**
 * Register a reader for process pid; it starts online.
 * @return the slot number, or -1 when all slots are taken.
 */
int shmarena_qsbr_register(void *base, pid_t pid);

/** Release a slot (the reader goes offline). -1 is ignored. */
void shmarena_qsbr_unregister(void *base, int slot);

/** A quiescent state: the reader holds nothing from the mapping. */
void shmarena_qsbr_quiescent(void *base, int slot);

/** Go offline (before blocking). */
void shmarena_qsbr_offline(void *base, int slot);

/** Come back online, before reading the mapping. */
void shmarena_qsbr_online(void *base, int slot);

/** Writer: a tag for objects just unlinked (increments the epoch). */
uint64_t shmarena_qsbr_retire_tag(void *base);

/** Writer: the largest tag whose objects may be freed now. */
uint64_t shmarena_qsbr_safe_tag(void *base);

/**
 * Supervisor: clear every slot that pid held (the process died).
 * @return the number of slots cleared.
 */
int shmarena_qsbr_release_pid(void *base, pid_t pid);

/** @return the number of registered readers. */
int shmarena_qsbr_num_readers(const void *base);

/* ---- arenas ---- */

/**
 * Make an empty arena over [start, start+len) of the mapping.
 * @param base: the mapping.
 * @param a: the arena struct (in the mapping).
 * @param start: offset of the range (16-aligned).
 * @param len: its length.
 */
void shmarena_init(void *base, struct shmarena *a, uint64_t start,
	uint64_t len);

/** @return the bytes a block for n bytes of payload takes (its class) */
size_t shmarena_block_size(size_t n);

/**
 * Allocate a block.
 * @param base: the mapping.
 * @param a: the arena (the caller serialises).
 * @param n: payload bytes.
 * @param kind: a small number (0..3) the owner uses to tell its blocks
 *	apart in walks.
 * @return the payload's offset (16-aligned), or 0 when nothing fits.
 *	When the range is all carved and the class has no free block, a
 *	free block of a larger class may be given: shmarena_size_of says
 *	what the block really costs.
 */
uint64_t shmarena_alloc(void *base, struct shmarena *a, size_t n, int kind);

/** Free a USED block at once (no reader can see it). */
void shmarena_free(void *base, struct shmarena *a, uint64_t off);

/**
 * A USED block was unlinked: readers may still see it. It goes on the
 * pending list; shmarena_retire_commit tags the pending blocks and moves
 * them to the limbo.
 */
void shmarena_retire(void *base, struct shmarena *a, uint64_t off);

/** Tag every pending block with tag and move them to the limbo. */
void shmarena_retire_commit(void *base, struct shmarena *a, uint64_t tag);

/** Free limbo blocks whose tag is <= safe. @return blocks freed */
size_t shmarena_reclaim(void *base, struct shmarena *a, uint64_t safe);

/** @return the size of the block whose payload is at off */
size_t shmarena_size_of(const void *base, uint64_t off);

/** @return the kind of the block whose payload is at off */
int shmarena_kind_of(const void *base, uint64_t off);

/**
 * Is off the payload of a USED block of this arena? (a validity check
 * for offsets read from the mapping after a crash).
 * @param kind: the expected kind, or -1 for any.
 */
int shmarena_is_used_block(const void *base, const struct shmarena *a,
	uint64_t off, int kind);

/**
 * Rebuild the free lists, the limbo list and the counters from the
 * headers (repair after a process died inside an arena operation).
 * Every LIMBO block is re-tagged with tag; every USED block for which
 * referenced() returns 0 is retired with tag as well (readers may still
 * see it).
 * @param referenced: says whether the payload at off is in use by the
 *	owner.
 * @param arg: its argument.
 * @return 0, or -1 when the headers do not tile the range (the caller
 *	must then reinitialise the arena).
 */
int shmarena_rebuild(void *base, struct shmarena *a, uint64_t tag,
	int (*referenced)(uint64_t off, void *arg), void *arg);

/**
 * Check an arena: the headers tile [start, bump), every free list and
 * the limbo list hold exactly the blocks of that state, once each, with
 * the right class, and the counters equal the sums.
 * @param usedmap: if not NULL, one bit per 16 bytes of the range
 *	(shmarena_map_bits bits, zeroed by the caller): the bit of every
 *	USED block's payload is set.
 * @param err: message on failure.
 * @param errlen: its size.
 * @return 0 when consistent, -1 with err filled.
 */
int shmarena_check(const void *base, const struct shmarena *a,
	uint8_t *usedmap, char *err, size_t errlen);

/** @return the bits a usedmap of this arena needs */
size_t shmarena_map_bits(const struct shmarena *a);

/** the usedmap bit of payload offset off */
#define SHMARENA_BIT(a, off) (((off) - (a)->start) / 16)

/** Test hook: SIGKILL this process at the n-th crash point (0: never). */
void shmarena_crash_set(unsigned long n);

/** A crash point (write paths call it between stores). */
void shmarena_crash_point(void);

#endif /* UTIL_STORAGE_SHMARENA_H */
