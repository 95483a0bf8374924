/*
 * util/storage/shmhash.h - the slabbed hash table of the caches, in a
 * shared memory mapping, for caches shared by forked workers.
 *
 * It has the properties of util/storage/slabhash.h (read that file
 * comment first): lock-free reads, no shared write on a hit (the CLOCK
 * bit is set only when clear), CLOCK eviction under a byte budget per
 * slab, and growth that never blocks readers (two next links per entry,
 * a generation bit per bucket array, the old array kept for the grace
 * period). What differs:
 *
 *   - Everything is in a mapping made by shmarena (util/storage/
 *     shmarena.h) and holds offsets, never pointers. The process-local
 *     struct shmhash only caches the mapping's address in this process.
 *   - Entries are copied in: shmhash_insert takes the user's bytes and
 *     copies them into a block of the slab's own arena, under the slab
 *     lock. Lookups return a pointer to those bytes, valid until the
 *     reader's next shared QSBR quiescent state; the user may change only
 *     its own atomic fields in them.
 *   - Each slab has its own arena (its range of the mapping, sized for
 *     its budget, its grace-period backlog and its bucket arrays), used
 *     only under the slab lock, so the lock covers the allocator too. An
 *     allocation that fails evicts (CLOCK) and reclaims, then gives up:
 *     the insert reports SHMHASH_NOMEM and the table stays as it was.
 *   - Reclamation uses the mapping's QSBR domain (readers are processes).
 *
 * Dead writers
 *   The slab locks are process-shared robust mutexes. A writer marks the
 *   slab dirty (an odd write sequence number) before its first store and
 *   clean (even) after its last. When a lock is taken with EOWNERDEAD
 *   (the holder died) and the slab is dirty, the slab is repaired before
 *   anything else: the chains of the current bucket array are walked and
 *   validated (every link must be a USED entry block of the slab's arena,
 *   in its bucket, seen once), cut at the first bad link; the arena's
 *   free lists, limbo and counters are rebuilt from its block headers
 *   (shmarena_rebuild), and every USED block the chains do not reach
 *   (a half-inserted entry, an unlinked one not yet retired, a bucket
 *   array not yet published or not yet retired) is retired with a fresh
 *   tag, since readers may still hold it; the slab's count and bytes are
 *   recounted. If the arena headers themselves do not tile (cannot happen
 *   with the store order of shmarena, but checked) the slab is reset
 *   empty. shmhash_recover takes and releases every slab lock, so the
 *   supervisor repairs what a dead worker left at once, rather than the
 *   next writer.
 *
 * Consistency checker (shmhash_check): under each slab lock, checks the
 * arena (shmarena_check), then that every chain walks, every entry is in
 * its bucket and a USED entry block, none is reachable twice, the slab's
 * count and bytes equal the sums, and that every USED block is either the
 * bucket array or a reachable entry (no leak).
 */
#ifndef UTIL_STORAGE_SHMHASH_H
#define UTIL_STORAGE_SHMHASH_H

#include <stddef.h>
#include <stdint.h>

/** the process-local handle on a shared table (opaque) */
struct shmhash;

/**
 * Does the user data of an entry hold this key?
 * @param data: the entry's user bytes.
 * @param key: the key given to lookup/insert/remove.
 * @return 1 if it matches.
 */
typedef int (*shmhash_match_func)(const void *data, const void *key);

/** traversal callback, under a slab lock; must not call the table */
typedef void (*shmhash_traverse_func)(const void *data, void *arg);

/** removal predicate, under a slab lock. @return 1 to remove */
typedef int (*shmhash_pred_func)(const void *data, void *arg);

/**
 * The bytes of mapping a table needs.
 * @param num_slabs: slabs (rounded down to a power of two).
 * @param maxmem: the byte budget of the entries and bucket arrays.
 * @return the bytes to reserve in the mapping for it.
 */
size_t shmhash_space(size_t num_slabs, size_t maxmem);

/**
 * Create a table in a mapping (set-up: before other processes use it).
 * @param base: the mapping (shmarena_map_create).
 * @param num_slabs: slabs (rounded down to a power of two, at least 1).
 * @param maxmem: byte budget.
 * @param match: key comparison.
 * @return the offset of the table in the mapping, or 0 when it does not
 *	fit or the platform has no robust process-shared mutexes.
 */
uint64_t shmhash_create(void *base, size_t num_slabs, size_t maxmem);

/**
 * A process-local handle on a table.
 * @param base: the mapping, at its address in this process.
 * @param off: the table's offset (from shmhash_create).
 * @param match: key comparison.
 * @return the handle (free with shmhash_detach) or NULL.
 */
struct shmhash *shmhash_attach(void *base, uint64_t off,
	shmhash_match_func match);

/** @return the table's offset in the mapping */
uint64_t shmhash_table_offset(struct shmhash *t);

/** Free a handle (the table stays in the mapping). NULL is ok. */
void shmhash_detach(struct shmhash *t);

/**
 * Look a key up. Lock-free; sets the entry's CLOCK bit if clear.
 * @return the entry's user bytes, or NULL. Valid until the caller's next
 *	shared quiescent state (it must be an online reader of the mapping's
 *	QSBR domain when other processes write).
 */
const void *shmhash_lookup(struct shmhash *t, uint32_t hash, const void *key);

/** Warm the CPU cache for a coming lookup (as slabhash_prefetch). */
void shmhash_prefetch(struct shmhash *t, uint32_t hash, int stage);

/** insert results */
#define SHMHASH_INSERTED 1
#define SHMHASH_REPLACED 2
#define SHMHASH_KEPT 0
#define SHMHASH_NOMEM (-1)

/**
 * Insert policy when an entry with the same key exists (as slabhash's).
 * @param old: the user bytes of the entry in the table (read-only).
 * @param data: the new entry's user bytes, already in the mapping but
 *	not yet published: the function may still modify them (but not
 *	their length).
 * @param arg: the insert's argument.
 * @return 1 to replace old, 0 to keep it (the new entry is freed).
 */
typedef int (*shmhash_decide_func)(const void *old, void *data, void *arg);

/**
 * Insert an entry (replacing one with the same key).
 * @param t: table.
 * @param hash: the key's hash.
 * @param key: the key (match is called with it on the chain).
 * @param data: the user bytes, copied in (16-aligned in the mapping).
 * @param len: their length.
 * @return SHMHASH_INSERTED, SHMHASH_REPLACED, or SHMHASH_NOMEM (larger
 *	than the slab budget, or no block even after evicting).
 */
int shmhash_insert(struct shmhash *t, uint32_t hash, const void *key,
	const void *data, size_t len);

/**
 * Insert with a policy for an existing entry of the same key.
 * @param decide: the policy (NULL: always replace).
 * @param arg: its argument.
 * @return as shmhash_insert, or SHMHASH_KEPT when decide kept the old
 *	entry.
 */
int shmhash_insert_decide(struct shmhash *t, uint32_t hash, const void *key,
	const void *data, size_t len, shmhash_decide_func decide, void *arg);

/** Remove the entry with this key. @return 1 if removed, 0 if absent */
int shmhash_remove(struct shmhash *t, uint32_t hash, const void *key);

/** Remove every entry pred selects. @return the number removed */
size_t shmhash_remove_if(struct shmhash *t, shmhash_pred_func pred,
	void *arg);

/** Remove every entry. */
void shmhash_clear(struct shmhash *t);

/** Call fn for every entry, slab by slab under each slab lock. */
void shmhash_traverse(struct shmhash *t, shmhash_traverse_func fn, void *arg);

/** Free what the grace period allows, in every slab. */
void shmhash_reclaim(struct shmhash *t);

/** Change the byte budget (evicts down to it; never above the space the
 *  table was created with). */
void shmhash_set_maxmem(struct shmhash *t, size_t maxmem);

/** @return bytes in use (entries and bucket arrays) */
size_t shmhash_get_mem(struct shmhash *t);

/** @return bytes waiting for the grace period */
size_t shmhash_get_limbo_mem(struct shmhash *t);

/** @return live entries */
size_t shmhash_get_count(struct shmhash *t);

/** @return the byte budget */
size_t shmhash_get_maxmem(struct shmhash *t);

/** @return slabs repaired after a writer died, since creation */
size_t shmhash_get_repairs(struct shmhash *t);

/** @return inserts that failed for lack of a block, since creation */
size_t shmhash_get_nomem(struct shmhash *t);

/**
 * Take and release every slab lock, repairing a slab a dead writer left
 * (the supervisor, after a worker died).
 * @return the number of slabs repaired.
 */
size_t shmhash_recover(struct shmhash *t);

/**
 * Check the whole table (see the file comment).
 * @param err: message on failure.
 * @param errlen: its size.
 * @return 0 when consistent, -1 with err filled (or out of memory).
 */
int shmhash_check(struct shmhash *t, char *err, size_t errlen);

#endif /* UTIL_STORAGE_SHMHASH_H */
