/*
 * util/storage/cachetab.h - one interface on the caches' two hash tables.
 *
 * The message, RRset and infrastructure caches (services/cache/) keep
 * their entries in one of two tables: the per-process slabbed table
 * (util/storage/slabhash.h), or its twin in a shared mapping for forked
 * workers (util/storage/shmhash.h, shared-cache: yes). A cache holds one
 * struct cachetab: a pointer to the table's operations (struct
 * cachetab_ops, one table of functions per kind, as Redis's dict type or
 * an event backend) and the table itself, and calls every operation
 * through it, never naming the kind.
 *
 * Entries are the user's bytes, seen the same way by both kinds:
 *   - cachetab_alloc gives a zeroed buffer of len bytes (16-aligned) for a
 *     new entry; the user fills it in and hands it to cachetab_insert,
 *     which takes it whatever the result (or cachetab_free_new drops it
 *     unused). A per-process table keeps the buffer itself, behind its
 *     own header (CACHETAB_LOCAL_HDR bytes); a shared table copies the
 *     bytes into the mapping and frees the buffer. So the bytes must
 *     hold no pointer, and the user never writes them after the insert
 *     (except its own atomic fields).
 *   - Every callback (match, decide, pred, traverse) is given a pointer
 *     to the entry's bytes, whichever the table.
 *   - A lookup returns the entry's bytes, valid until the caller's next
 *     QSBR quiescent state (per-process: util/storage/qsbr.h; shared: the
 *     mapping's domain), the rules of the table underneath.
 *
 * The key's match function is the one callback on the cached-answer path
 * (every entry of the chain is compared). A per-process table calls it
 * with its own entry pointer, so the user describes its key with a
 * struct cachetab_type made by CACHETAB_TYPE(), which also makes the
 * per-process form of the match (the user's function, inlined behind the
 * header offset): no extra call per compared entry.
 *
 * Cost of the dispatch: every operation goes through the ops table, the
 * lookup of the cached-answer path too. That indirect call (and the
 * local kind's step from header to bytes) costs about 6 instructions of
 * some 1240 per cached answer, 0.5 % (bench/hitcost; doc/benchmarks.md,
 * ninth session): within the 1 % budget, so there is no inline
 * special case for one kind. Should it ever matter, the lookup is the
 * one function to make inline (a test of the kind, one branch).
 *
 * Figures that only a shared table has (slabs repaired after a dead
 * writer, inserts refused for lack of room) are answered 0 by a
 * per-process table.
 */
#ifndef UTIL_STORAGE_CACHETAB_H
#define UTIL_STORAGE_CACHETAB_H

#include <stddef.h>
#include <stdint.h>
#include "util/storage/slabhash.h"

/**
 * Does the entry hold this key?
 * @param data: the entry's bytes.
 * @param key: the key given to lookup, insert or remove.
 * @return 1 if it matches.
 */
typedef int (*cachetab_match_func)(const void *data, const void *key);

/**
 * Insert policy when an entry with the same key is in the table.
 * @param old: the entry in the table (read-only).
 * @param data: the new entry, not yet published: it may still be changed
 *	(not its length).
 * @param arg: the insert's argument.
 * @return 1 to replace old, 0 to keep it (the new entry is dropped).
 */
typedef int (*cachetab_decide_func)(const void *old, void *data, void *arg);

/** Removal predicate, run under a slab lock. @return 1 to remove. */
typedef int (*cachetab_pred_func)(const void *data, void *arg);

/** Traversal callback, run under a slab lock; must not call the table. */
typedef void (*cachetab_traverse_func)(const void *data, void *arg);

/**
 * What a cache's keys are: its match, in the form for the user's bytes
 * and in the per-process table's form. Made by CACHETAB_TYPE().
 */
struct cachetab_type {
	/** the match on the entry's bytes */
	cachetab_match_func match;
	/** the same match given the per-process table's entry header */
	slabhash_match_func local_match;
};

/** the bytes of a per-process table's header in front of an entry
 * (the table's part, rounded up to 16 so that the entry is aligned as
 * in a shared table) */
#define CACHETAB_LOCAL_HDR \
	((sizeof(struct slabhash_entry) + 15) & ~(size_t)15)

/** @return the entry's bytes behind a per-process table header */
static inline const void *
cachetab_local_data(const struct slabhash_entry *he)
{
	return (const char *)he + CACHETAB_LOCAL_HDR;
}

/**
 * Define the struct cachetab_type NAME for the match function MATCH
 * (static, in the cache's own file). The per-process form is MATCH behind
 * the header, which the compiler inlines.
 */
#define CACHETAB_TYPE(NAME, MATCH)					\
	static int NAME##_local_match(const struct slabhash_entry *he,	\
		const void *key)					\
	{								\
		return MATCH(cachetab_local_data(he), key);		\
	}								\
	static const struct cachetab_type NAME = { MATCH,		\
		NAME##_local_match }

/** insert results (the same values as slabhash's and shmhash's) */
/** the old entry was kept (decide); the new one was dropped */
#define CACHETAB_KEPT 0
/** the entry went in, no older one with its key */
#define CACHETAB_INSERTED 1
/** the entry replaced an older one */
#define CACHETAB_REPLACED 2
/** no room (a shared table only): the table is unchanged */
#define CACHETAB_NOMEM (-1)

/** a table's figures (cachetab_figures) */
struct cachetab_figures {
	/** bytes in use: live entries and bucket arrays */
	size_t mem;
	/** bytes waiting in limbo for the readers' grace period */
	size_t limbo_mem;
	/** live entries */
	size_t count;
	/** the byte budget */
	size_t maxmem;
	/** slabs repaired after a dead writer (a shared table; else 0) */
	size_t repairs;
	/** inserts refused for lack of room (a shared table; else 0) */
	size_t nomem;
};

/**
 * The operations of one kind of table. tab is the table (struct
 * slabhash or struct shmhash); see struct cachetab and the functions
 * below for what each does. (cachetab.c fills both tables in this
 * order: a member added here is added to its CACHETAB_KIND too.)
 */
struct cachetab_ops {
	/** name of the kind, for logs and tests: "local" or "shared" */
	const char *name;
	/** look a key up */
	const void *(*lookup)(void *tab, uint32_t hash, const void *key);
	/** warm the CPU cache for a lookup */
	void (*prefetch)(void *tab, uint32_t hash, int stage);
	/** a zeroed buffer for a new entry's len bytes, or NULL */
	void *(*alloc)(size_t len);
	/** drop a buffer from alloc that was never inserted */
	void (*free_new)(void *data);
	/** insert (takes data); CACHETAB_* result */
	int (*insert)(void *tab, uint32_t hash, const void *key, void *data,
		size_t len, cachetab_decide_func decide, void *arg);
	/** remove a key; 1 if removed */
	int (*remove)(void *tab, uint32_t hash, const void *key);
	/** remove what pred selects; the number removed */
	size_t (*remove_if)(void *tab, cachetab_pred_func pred, void *arg);
	/** call fn for every entry */
	void (*traverse)(void *tab, cachetab_traverse_func fn, void *arg);
	/** remove every entry */
	void (*clear)(void *tab);
	/** free what the readers' grace period allows */
	void (*reclaim)(void *tab);
	/** change the byte budget */
	void (*set_maxmem)(void *tab, size_t maxmem);
	/** fill in the figures */
	void (*figures)(void *tab, struct cachetab_figures *f);
	/** free the table (local) or this process's handle (shared) */
	void (*destroy)(void *tab);
};

/** the operations of the per-process table (util/storage/slabhash.h) */
extern const struct cachetab_ops cachetab_local_ops;
/** the operations of the shared table (util/storage/shmhash.h) */
extern const struct cachetab_ops cachetab_shared_ops;

/**
 * A cache's table handle: the kind's operations and the table. Held by
 * value in the cache; set up by cachetab_init_local or
 * cachetab_init_shared, torn down by cachetab_destroy.
 */
struct cachetab {
	/** the table's operations */
	const struct cachetab_ops *ops;
	/** the table: struct slabhash * or struct shmhash * */
	void *tab;
};

/**
 * Make a per-process table.
 * @param t: the handle to set up.
 * @param type: the cache's key type (CACHETAB_TYPE); must outlive t.
 * @param slabs: slabs (rounded down to a power of two).
 * @param maxmem: byte budget.
 * @return 0, or -1 when out of memory (t is then unusable).
 */
int cachetab_init_local(struct cachetab *t, const struct cachetab_type *type,
	size_t slabs, size_t maxmem);

/**
 * Set up this process's handle on a shared table.
 * @param t: the handle to set up.
 * @param type: the cache's key type.
 * @param base: the mapping, at its address in this process.
 * @param off: the table's offset (shmhash_create, in the set-up).
 * @return 0, or -1 when out of memory.
 */
int cachetab_init_shared(struct cachetab *t, const struct cachetab_type *type,
	void *base, uint64_t off);

/**
 * Set up a handle of either kind: cachetab_init_local with base NULL,
 * else cachetab_init_shared (slabs and maxmem are then the shared
 * table's own, set when it was made). For a cache's one constructor.
 * @return 0, or -1 when out of memory.
 */
int cachetab_init(struct cachetab *t, const struct cachetab_type *type,
	size_t slabs, size_t maxmem, void *base, uint64_t off);

/** Free the table or the handle (see the ops). A zeroed t is ok. */
void cachetab_destroy(struct cachetab *t);

/**
 * Look a key up: lock-free, sets the entry's CLOCK bit when clear.
 * @return the entry's bytes or NULL, valid until the caller's next
 *	quiescent state.
 */
static inline const void *
cachetab_lookup(const struct cachetab *t, uint32_t hash, const void *key)
{
	return t->ops->lookup(t->tab, hash, key);
}

/** Warm the CPU cache for a coming lookup (slabhash_prefetch). */
static inline void
cachetab_prefetch(const struct cachetab *t, uint32_t hash, int stage)
{
	t->ops->prefetch(t->tab, hash, stage);
}

/** @return a zeroed, 16-aligned buffer for a new entry of len bytes, or
 *	NULL. Give it to cachetab_insert or cachetab_free_new. */
static inline void *
cachetab_alloc(const struct cachetab *t, size_t len)
{
	return t->ops->alloc(len);
}

/** Drop a buffer from cachetab_alloc that was not inserted. NULL is ok. */
static inline void
cachetab_free_new(const struct cachetab *t, void *data)
{
	if(data)
		t->ops->free_new(data);
}

/**
 * Insert an entry, replacing one with the same key (or, with decide,
 * as decide says). Takes data whatever the result. May evict others.
 * @param t: the table.
 * @param hash: the key's hash.
 * @param key: the key (matched against the chain).
 * @param data: from cachetab_alloc, filled in.
 * @param len: its length (as given to cachetab_alloc).
 * @param decide: policy when the key is there; NULL: always replace.
 * @param arg: passed to decide.
 * @return CACHETAB_INSERTED, _REPLACED, _KEPT or _NOMEM.
 */
static inline int
cachetab_insert(const struct cachetab *t, uint32_t hash, const void *key,
	void *data, size_t len, cachetab_decide_func decide, void *arg)
{
	return t->ops->insert(t->tab, hash, key, data, len, decide, arg);
}

/** Remove the entry with this key. @return 1 if removed, 0 if absent. */
static inline int
cachetab_remove(const struct cachetab *t, uint32_t hash, const void *key)
{
	return t->ops->remove(t->tab, hash, key);
}

/** Remove every entry pred selects. @return the number removed. */
static inline size_t
cachetab_remove_if(const struct cachetab *t, cachetab_pred_func pred,
	void *arg)
{
	return t->ops->remove_if(t->tab, pred, arg);
}

/** Call fn for every entry, slab by slab under each slab lock. */
static inline void
cachetab_traverse(const struct cachetab *t, cachetab_traverse_func fn,
	void *arg)
{
	t->ops->traverse(t->tab, fn, arg);
}

/** Remove every entry. */
static inline void
cachetab_clear(const struct cachetab *t)
{
	t->ops->clear(t->tab);
}

/** Free what the grace period allows (tests, exit). */
static inline void
cachetab_reclaim(const struct cachetab *t)
{
	t->ops->reclaim(t->tab);
}

/** Change the byte budget (config reload); evicts down to it. */
static inline void
cachetab_set_maxmem(const struct cachetab *t, size_t maxmem)
{
	t->ops->set_maxmem(t->tab, maxmem);
}

/** Fill in the table's figures (statistics, tests). */
static inline void
cachetab_figures(const struct cachetab *t, struct cachetab_figures *f)
{
	t->ops->figures(t->tab, f);
}

/** @return the per-process table, or NULL for a shared one (tests) */
struct slabhash *cachetab_local_table(const struct cachetab *t);

/** @return the shared table's handle, or NULL for a local one (tests,
 *	the consistency checker) */
struct shmhash *cachetab_shared_table(const struct cachetab *t);

/**
 * The bytes a per-process table counts for an entry of len bytes (its
 * header and malloc's overhead included): for sizing budgets.
 */
size_t cachetab_local_entry_mem(size_t len);

#endif /* UTIL_STORAGE_CACHETAB_H */
