/*
 * util/storage/cachetab.c - the two kinds of cache table behind one
 * table of operations (see cachetab.h).
 *
 * The shared table (shmhash) already speaks in the entry's bytes, so its
 * operations are the shmhash functions, plus the buffer of a new entry
 * (copied in by the insert, then freed here). The per-process table
 * (slabhash) speaks in its entry headers: its operations put the header
 * in front of the buffer (alloc, insert) and take it off again for the
 * user's callbacks, through the one adapter below.
 */
#include "config.h"
#include "util/storage/cachetab.h"
#include "util/storage/shmhash.h"
#include <stdlib.h>

/* ---- the per-process table ---- */

/** the header in front of a local entry's bytes */
static struct slabhash_entry *
local_hdr(void *data)
{
	return (struct slabhash_entry *)(void *)((char *)data -
		CACHETAB_LOCAL_HDR);
}

/**
 * The ops table cachetab_KIND_ops of a kind (KIND: local or shared),
 * with the operations that only hand the table on to the kind's
 * function of the same name (T: slabhash or shmhash), written once for
 * both kinds: KIND_prefetch, _remove, _clear, _reclaim, _set_maxmem,
 * _destroy (DESTROY) and _figures (the figures both kinds have;
 * KIND_own_figures adds the rest). The kind defines the others first:
 * KIND_lookup, _alloc, _free_new, _insert, _remove_if, _traverse.
 */
#define CACHETAB_KIND(KIND, T, DESTROY)					\
	static void KIND##_prefetch(void *tab, uint32_t hash, int stage) \
	{ T##_prefetch(tab, hash, stage); }				\
	static int KIND##_remove(void *tab, uint32_t hash,		\
		const void *key)					\
	{ return T##_remove(tab, hash, key); }				\
	static void KIND##_clear(void *tab) { T##_clear(tab); }	\
	static void KIND##_reclaim(void *tab) { T##_reclaim(tab); }	\
	static void KIND##_set_maxmem(void *tab, size_t maxmem)	\
	{ T##_set_maxmem(tab, maxmem); }				\
	static void KIND##_figures(void *tab,				\
		struct cachetab_figures *f)				\
	{								\
		f->mem = T##_get_mem(tab);				\
		f->limbo_mem = T##_get_limbo_mem(tab);			\
		f->count = T##_get_count(tab);				\
		f->maxmem = T##_get_maxmem(tab);			\
		KIND##_own_figures(tab, f);				\
	}								\
	static void KIND##_destroy(void *tab) { DESTROY(tab); }	\
	const struct cachetab_ops cachetab_##KIND##_ops = { #KIND,	\
		KIND##_lookup, KIND##_prefetch, KIND##_alloc,		\
		KIND##_free_new, KIND##_insert, KIND##_remove,		\
		KIND##_remove_if, KIND##_traverse, KIND##_clear,	\
		KIND##_reclaim, KIND##_set_maxmem, KIND##_figures,	\
		KIND##_destroy }

/** a user callback of a local-table operation, with its argument */
struct local_adapt {
	/** the predicate (remove_if) */
	cachetab_pred_func pred;
	/** the traversal callback (traverse) */
	cachetab_traverse_func walk;
	/** the insert policy (insert) */
	cachetab_decide_func decide;
	/** the user's argument */
	void *arg;
};

/** slabhash predicate: the user's on the entry's bytes */
static int
local_pred(const struct slabhash_entry *he, void *arg)
{
	const struct local_adapt *a = arg;
	return a->pred(cachetab_local_data(he), a->arg);
}

/** slabhash traversal: the user's on the entry's bytes */
static void
local_walk(const struct slabhash_entry *he, void *arg)
{
	const struct local_adapt *a = arg;
	a->walk(cachetab_local_data(he), a->arg);
}

/** slabhash insert policy: the user's on the entries' bytes */
static int
local_decide(const struct slabhash_entry *old, struct slabhash_entry *e,
	void *arg)
{
	const struct local_adapt *a = arg;
	return a->decide(cachetab_local_data(old),
		(char *)e + CACHETAB_LOCAL_HDR, a->arg);
}

/** free a local entry (slabhash's del) */
static void
local_del(struct slabhash_entry *he, void *arg)
{
	(void)arg;
	free(he);
}

static const void *
local_lookup(void *tab, uint32_t hash, const void *key)
{
	const struct slabhash_entry *he = slabhash_lookup(tab, hash, key);
	return he ? cachetab_local_data(he) : NULL;
}

static void *
local_alloc(size_t len)
{
	char *p = calloc(1, CACHETAB_LOCAL_HDR + len);
	return p ? p + CACHETAB_LOCAL_HDR : NULL;
}

static void
local_free_new(void *data)
{
	free(local_hdr(data));
}

size_t
cachetab_local_entry_mem(size_t len)
{
	return slabhash_malloc_size(CACHETAB_LOCAL_HDR + len);
}

static int
local_insert(void *tab, uint32_t hash, const void *key, void *data,
	size_t len, cachetab_decide_func decide, void *arg)
{
	struct slabhash_entry *he = local_hdr(data);
	struct local_adapt a;
	he->hash = hash;
	he->mem = cachetab_local_entry_mem(len);
	if(!decide)
		return slabhash_insert(tab, he, key, NULL, NULL);
	a.decide = decide;
	a.arg = arg;
	return slabhash_insert(tab, he, key, local_decide, &a);
}

static size_t
local_remove_if(void *tab, cachetab_pred_func pred, void *arg)
{
	struct local_adapt a;
	a.pred = pred;
	a.arg = arg;
	return slabhash_remove_if(tab, local_pred, &a);
}

static void
local_traverse(void *tab, cachetab_traverse_func fn, void *arg)
{
	struct local_adapt a;
	a.walk = fn;
	a.arg = arg;
	slabhash_traverse(tab, local_walk, &a);
}

/** the figures only a shared table has: a local one has no repairs and
 * refuses no insert */
static void
local_own_figures(void *tab, struct cachetab_figures *f)
{
	(void)tab;
	f->repairs = 0;
	f->nomem = 0;
}

CACHETAB_KIND(local, slabhash, slabhash_delete);

int
cachetab_init_local(struct cachetab *t, const struct cachetab_type *type,
	size_t slabs, size_t maxmem)
{
	t->ops = &cachetab_local_ops;
	t->tab = slabhash_create(slabs, maxmem, type->local_match, local_del,
		NULL);
	return t->tab ? 0 : -1;
}

/* ---- the shared table ---- */

/** the operations that hand the table on, with its pointer as void * */
static const void *
shared_lookup(void *tab, uint32_t hash, const void *key)
{
	return shmhash_lookup(tab, hash, key);
}

static size_t
shared_remove_if(void *tab, cachetab_pred_func pred, void *arg)
{
	return shmhash_remove_if(tab, pred, arg);
}

static void
shared_traverse(void *tab, cachetab_traverse_func fn, void *arg)
{
	shmhash_traverse(tab, fn, arg);
}

/** a new entry's bytes, copied into the mapping by the insert */
static void *
shared_alloc(size_t len)
{
	return calloc(1, len ? len : 1);
}

static void
shared_free_new(void *data)
{
	free(data);
}

static int
shared_insert(void *tab, uint32_t hash, const void *key, void *data,
	size_t len, cachetab_decide_func decide, void *arg)
{
	int r = shmhash_insert_decide(tab, hash, key, data, len, decide,
		arg);
	free(data);
	return r;
}

static void
shared_own_figures(void *tab, struct cachetab_figures *f)
{
	f->repairs = shmhash_get_repairs(tab);
	f->nomem = shmhash_get_nomem(tab);
}

CACHETAB_KIND(shared, shmhash, shmhash_detach);

int
cachetab_init_shared(struct cachetab *t, const struct cachetab_type *type,
	void *base, uint64_t off)
{
	t->ops = &cachetab_shared_ops;
	t->tab = shmhash_attach(base, off, type->match);
	return t->tab ? 0 : -1;
}

/* ---- both ---- */

int
cachetab_init(struct cachetab *t, const struct cachetab_type *type,
	size_t slabs, size_t maxmem, void *base, uint64_t off)
{
	if(base)
		return cachetab_init_shared(t, type, base, off);
	return cachetab_init_local(t, type, slabs, maxmem);
}

void
cachetab_destroy(struct cachetab *t)
{
	if(t->ops && t->tab)
		t->ops->destroy(t->tab);
	t->tab = NULL;
}

struct slabhash *
cachetab_local_table(const struct cachetab *t)
{
	return t->ops == &cachetab_local_ops ? t->tab : NULL;
}

struct shmhash *
cachetab_shared_table(const struct cachetab *t)
{
	return t->ops == &cachetab_shared_ops ? t->tab : NULL;
}
