/*
 * util/storage/shmhash.c - the shared slabbed hash table. See shmhash.h.
 *
 * Layout in the mapping: the table header, then the slabs (each 64-byte
 * aligned, the readers' array offset on its own line, then the robust
 * lock, the counters and the slab's arena), then each slab's arena range.
 * An entry block holds struct sh_entry and the user's bytes; a bucket
 * array block holds struct sh_array and its heads.
 */
#include "config.h"
#include "util/storage/shmhash.h"
#include "util/storage/shmarena.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_PTHREAD_MUTEXATTR_SETROBUST
#include <pthread.h>
#endif

#if defined(__GNUC__) || defined(__clang__)
#define SH_PREFETCH(p) __builtin_prefetch(p)
#else
#define SH_PREFETCH(p) ((void)(p))
#endif

/** table magic */
#define SH_MAGIC 0x73686d6861736831ull
/** block kinds */
#define KIND_ENTRY 1
#define KIND_ARRAY 2
/** initial buckets per slab */
#define SH_START_BUCKETS 16
/** arena slack per slab beyond twice its budget */
#define SH_SLACK 65536

/** an entry, at the start of its block's payload */
struct sh_entry {
	/** chain links, one per bucket array generation (offsets) */
	_Atomic uint64_t next[2];
	/** the key's hash */
	uint32_t hash;
	/** CLOCK bit */
	atomic_uchar ref;
	/** pad */
	uint8_t pad[3];
	/** bytes the entry costs (its block) */
	uint64_t mem;
	/** length of the user's bytes */
	uint64_t len;
	/** pad to 48 so the user's bytes are 16-aligned */
	uint64_t pad2;
	/** the user's bytes */
	uint8_t data[];
};

/** a bucket array */
struct sh_array {
	/** buckets - 1 */
	uint64_t mask;
	/** which next link chains it */
	uint32_t gen;
	/** pad */
	uint32_t pad;
	/** the chain heads (entry payload offsets) */
	_Atomic uint64_t b[];
};

/** a slab */
struct sh_slab {
	/** the bucket array's payload offset (readers load it) */
	_Atomic uint64_t arr;
	/** keep writer fields off the readers' line */
	char pad0[64 - sizeof(uint64_t)];
#ifdef HAVE_PTHREAD_MUTEXATTR_SETROBUST
	/** the robust, process-shared slab lock */
	pthread_mutex_t lock;
#endif
	/** write sequence: odd while a write is in progress */
	uint64_t wseq;
	/** live bytes: entries plus the bucket array */
	uint64_t mem;
	/** budget */
	uint64_t maxmem;
	/** the budget the arena was sized for */
	uint64_t maxmem_cap;
	/** live entries */
	uint64_t count;
	/** CLOCK hand */
	uint64_t hand;
	/** repairs after a dead writer */
	uint64_t repairs;
	/** failed allocations */
	uint64_t nomem;
	/** the slab's blocks */
	struct shmarena arena;
} __attribute__((aligned(64)));

/** the table header in the mapping */
struct sh_table {
	/** SH_MAGIC */
	uint64_t magic;
	/** slabs (power of two) */
	uint64_t num_slabs;
	/** budget */
	uint64_t maxmem;
	/** offset of the slab array */
	uint64_t slabs_off;
};

/** the process-local handle */
struct shmhash {
	/** the mapping here */
	uint8_t *base;
	/** the header */
	struct sh_table *h;
	/** the slabs */
	struct sh_slab *slabs;
	/** number of slabs */
	uint64_t num_slabs;
	/** key comparison */
	shmhash_match_func match;
	/** the table's offset */
	uint64_t off;
};

/** pointer to offset off */
#define AT(t, off) ((void *)((t)->base + (off)))
/** the entry at payload offset off */
#define ENT(t, off) ((struct sh_entry *)AT(t, off))
/** the array at payload offset off */
#define ARR(t, off) ((struct sh_array *)AT(t, off))

/** bytes an array of n buckets needs as payload */
static size_t
array_payload(size_t n)
{
	return sizeof(struct sh_array) + n * sizeof(uint64_t);
}

/** round down to a power of two, at least 1, at most 2^16 */
static uint64_t
slabs_pow2(size_t n)
{
	uint64_t p = 1;
	while(p * 2 <= n && p < (1u << 16))
		p *= 2;
	return p;
}

/** the arena length of one slab */
static uint64_t
arena_len(uint64_t slab_budget)
{
	return 2 * slab_budget + SH_SLACK;
}

size_t
shmhash_space(size_t num_slabs, size_t maxmem)
{
	uint64_t n = slabs_pow2(num_slabs);
	return (size_t)(128 + sizeof(struct sh_table) +
		n * sizeof(struct sh_slab) + n * (arena_len(maxmem / n) + 64));
}

/** allocate and publish a bucket array of n buckets; @return its offset */
static uint64_t
array_new(struct shmhash *t, struct sh_slab *s, size_t n, unsigned gen)
{
	uint64_t off = shmarena_alloc(t->base, &s->arena, array_payload(n),
		KIND_ARRAY);
	struct sh_array *a;
	size_t i;
	if(!off)
		return 0;
	a = ARR(t, off);
	a->mask = n - 1;
	a->gen = gen;
	for(i = 0; i < n; i++)
		atomic_init(&a->b[i], 0);
	return off;
}

uint64_t
shmhash_create(void *base, size_t num_slabs, size_t maxmem)
{
#ifdef HAVE_PTHREAD_MUTEXATTR_SETROBUST
	struct shmhash tmp;
	pthread_mutexattr_t attr;
	uint64_t n = slabs_pow2(num_slabs), off, soff, i;
	struct sh_table *h;
	off = shmarena_carve(base, sizeof(*h));
	soff = shmarena_carve(base, n * sizeof(struct sh_slab));
	if(!off || !soff)
		return 0;
	h = (struct sh_table *)((uint8_t *)base + off);
	h->magic = SH_MAGIC;
	h->num_slabs = n;
	h->maxmem = maxmem;
	h->slabs_off = soff;
	memset(&tmp, 0, sizeof(tmp));
	tmp.base = base;
	if(pthread_mutexattr_init(&attr) != 0)
		return 0;
	if(pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED) != 0 ||
		pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST) != 0) {
		pthread_mutexattr_destroy(&attr);
		return 0;
	}
	for(i = 0; i < n; i++) {
		struct sh_slab *s = (struct sh_slab *)((uint8_t *)base + soff) + i;
		uint64_t budget = maxmem / n, len = arena_len(budget), aoff, arr;
		memset(s, 0, sizeof(*s));
		aoff = shmarena_carve(base, len);
		if(!aoff || pthread_mutex_init(&s->lock, &attr) != 0) {
			pthread_mutexattr_destroy(&attr);
			return 0;
		}
		shmarena_init(base, &s->arena, aoff, len);
		s->maxmem = s->maxmem_cap = budget;
		arr = array_new(&tmp, s, SH_START_BUCKETS, 0);
		if(!arr) {
			pthread_mutexattr_destroy(&attr);
			return 0;
		}
		atomic_init(&s->arr, arr);
		s->mem = shmarena_size_of(base, arr);
	}
	pthread_mutexattr_destroy(&attr);
	return off;
#else
	(void)base; (void)num_slabs; (void)maxmem;
	return 0;
#endif
}

struct shmhash *
shmhash_attach(void *base, uint64_t off, shmhash_match_func match)
{
	struct shmhash *t;
	struct sh_table *h = (struct sh_table *)((uint8_t *)base + off);
	if(!off || h->magic != SH_MAGIC)
		return NULL;
	t = calloc(1, sizeof(*t));
	if(!t)
		return NULL;
	t->base = base;
	t->h = h;
	t->slabs = (struct sh_slab *)((uint8_t *)base + h->slabs_off);
	t->num_slabs = h->num_slabs;
	t->match = match;
	t->off = off;
	return t;
}

uint64_t
shmhash_table_offset(struct shmhash *t)
{
	return t->off;
}

void
shmhash_detach(struct shmhash *t)
{
	free(t);
}

/** the slab of a hash: its top bits */
static inline struct sh_slab *
slab_of(struct shmhash *t, uint32_t hash)
{
	return &t->slabs[((uint64_t)hash * t->num_slabs) >> 32];
}

const void *
shmhash_lookup(struct shmhash *t, uint32_t hash, const void *key)
{
	struct sh_slab *s = slab_of(t, hash);
	struct sh_array *a = ARR(t, atomic_load_explicit(&s->arr,
		memory_order_acquire));
	unsigned g = a->gen;
	uint64_t off = atomic_load_explicit(&a->b[hash & a->mask],
		memory_order_acquire);
	while(off) {
		struct sh_entry *e = ENT(t, off);
		if(e->hash == hash && t->match(e->data, key)) {
			if(!atomic_load_explicit(&e->ref, memory_order_relaxed))
				atomic_store_explicit(&e->ref, 1,
					memory_order_relaxed);
			return e->data;
		}
		off = atomic_load_explicit(&e->next[g], memory_order_acquire);
	}
	return NULL;
}

void
shmhash_prefetch(struct shmhash *t, uint32_t hash, int stage)
{
	struct sh_slab *s = slab_of(t, hash);
	struct sh_array *a = ARR(t, atomic_load_explicit(&s->arr,
		memory_order_acquire));
	_Atomic uint64_t *b = &a->b[hash & a->mask];
	uint64_t off;
	if(stage == 0) {
		SH_PREFETCH(b);
		return;
	}
	off = atomic_load_explicit(b, memory_order_acquire);
	if(off) {
		SH_PREFETCH(AT(t, off));
		SH_PREFETCH((uint8_t *)AT(t, off) + 64);
		SH_PREFETCH((uint8_t *)AT(t, off) + 128);
	}
}

/* ---- writers ---- */

static void slab_repair(struct shmhash *t, struct sh_slab *s);

/** take a slab lock; repair the slab if its holder died mid-write */
static void
slab_lock(struct shmhash *t, struct sh_slab *s)
{
#ifdef HAVE_PTHREAD_MUTEXATTR_SETROBUST
	int r = pthread_mutex_lock(&s->lock);
	if(r == EOWNERDEAD) {
		if(s->wseq & 1)
			slab_repair(t, s);
		(void)pthread_mutex_consistent(&s->lock);
	}
#else
	(void)t; (void)s;
#endif
}

/** release a slab lock */
static void
slab_unlock(struct sh_slab *s)
{
#ifdef HAVE_PTHREAD_MUTEXATTR_SETROBUST
	(void)pthread_mutex_unlock(&s->lock);
#else
	(void)s;
#endif
}

/** a write starts: the slab is dirty until write_end */
static inline void
write_begin(struct sh_slab *s)
{
	s->wseq++;
	atomic_signal_fence(memory_order_seq_cst);
}

/** the write is complete */
static inline void
write_end(struct sh_slab *s)
{
	atomic_signal_fence(memory_order_seq_cst);
	s->wseq++;
}

/** an entry was unlinked: count it out and retire its block */
static void
slab_unlinked(struct shmhash *t, struct sh_slab *s, uint64_t off)
{
	s->mem -= ENT(t, off)->mem;
	s->count--;
	shmarena_crash_point();
	shmarena_retire(t->base, &s->arena, off);
}

/** tag what this operation unlinked; free what the grace period allows */
static void
slab_retire_and_reclaim(struct shmhash *t, struct sh_slab *s)
{
	if(s->arena.pending)
		shmarena_retire_commit(t->base, &s->arena,
			shmarena_qsbr_retire_tag(t->base));
	if(s->arena.limbo_head)
		(void)shmarena_reclaim(t->base, &s->arena,
			shmarena_qsbr_safe_tag(t->base));
}

/**
 * Evict by CLOCK until the slab's bytes are at most target (or it is
 * empty). Referenced entries get a second chance; after two full sweeps
 * entries go regardless.
 */
static void
slab_evict(struct shmhash *t, struct sh_slab *s, uint64_t target)
{
	struct sh_array *a = ARR(t, atomic_load_explicit(&s->arr,
		memory_order_relaxed));
	uint64_t nb = a->mask + 1, visited = 0;
	while(s->mem > target && s->count > 0) {
		uint64_t i = s->hand & a->mask;
		_Atomic uint64_t *prev = &a->b[i];
		uint64_t off = atomic_load_explicit(prev, memory_order_relaxed);
		int force = (visited >= 2 * nb);
		while(off && s->mem > target) {
			struct sh_entry *e = ENT(t, off);
			uint64_t nx = atomic_load_explicit(&e->next[a->gen],
				memory_order_relaxed);
			if(!force && atomic_load_explicit(&e->ref,
				memory_order_relaxed)) {
				atomic_store_explicit(&e->ref, 0,
					memory_order_relaxed);
				prev = &e->next[a->gen];
			} else {
				atomic_store_explicit(prev, nx,
					memory_order_release);
				slab_unlinked(t, s, off);
			}
			off = nx;
		}
		if(s->mem > target) {
			s->hand = (i + 1) & a->mask;
			visited++;
		}
	}
}

/**
 * Double the bucket array without disturbing readers (as slabhash: the
 * new chains go through the entries' other link; skipped while an older
 * array, whose readers may walk that link, waits in the limbo).
 */
static void
slab_grow(struct shmhash *t, struct sh_slab *s)
{
	uint64_t ooff = atomic_load_explicit(&s->arr, memory_order_relaxed);
	struct sh_array *old = ARR(t, ooff), *na;
	uint64_t n = (old->mask + 1) * 2, i, noff;
	unsigned og = old->gen, ng = og ^ 1u;
	if(s->arena.limbo_kind_count[KIND_ARRAY] != 0)
		return;
	noff = array_new(t, s, n, ng);
	if(!noff)
		return;
	na = ARR(t, noff);
	for(i = 0; i <= old->mask; i++) {
		uint64_t off = atomic_load_explicit(&old->b[i],
			memory_order_relaxed);
		while(off) {
			struct sh_entry *e = ENT(t, off);
			uint64_t j = e->hash & na->mask;
			atomic_store_explicit(&e->next[ng], atomic_load_explicit(
				&na->b[j], memory_order_relaxed),
				memory_order_relaxed);
			atomic_store_explicit(&na->b[j], off,
				memory_order_relaxed);
			off = atomic_load_explicit(&e->next[og],
				memory_order_relaxed);
		}
		shmarena_crash_point();
	}
	atomic_store_explicit(&s->arr, noff, memory_order_release);
	shmarena_crash_point();
	s->mem += shmarena_size_of(t->base, noff);
	s->mem -= shmarena_size_of(t->base, ooff);
	s->hand = 0;
	shmarena_retire(t->base, &s->arena, ooff);
}

/** find key in the slab's current chains; *prevp gets the link to it */
static uint64_t
slab_find(struct shmhash *t, struct sh_slab *s, uint32_t hash,
	const void *key, _Atomic uint64_t **prevp)
{
	struct sh_array *a = ARR(t, atomic_load_explicit(&s->arr,
		memory_order_relaxed));
	_Atomic uint64_t *prev = &a->b[hash & a->mask];
	uint64_t off = atomic_load_explicit(prev, memory_order_relaxed);
	while(off) {
		struct sh_entry *e = ENT(t, off);
		if(e->hash == hash && t->match(e->data, key))
			break;
		prev = &e->next[a->gen];
		off = atomic_load_explicit(prev, memory_order_relaxed);
	}
	*prevp = prev;
	return off;
}

int
shmhash_insert(struct shmhash *t, uint32_t hash, const void *key,
	const void *data, size_t len)
{
	return shmhash_insert_decide(t, hash, key, data, len, NULL, NULL);
}

int
shmhash_insert_decide(struct shmhash *t, uint32_t hash, const void *key,
	const void *data, size_t len, shmhash_decide_func decide, void *arg)
{
	struct sh_slab *s = slab_of(t, hash);
	struct sh_array *a;
	_Atomic uint64_t *prev;
	uint64_t off, old, need;
	struct sh_entry *e;
	int ret = SHMHASH_INSERTED;

	need = shmarena_block_size(sizeof(struct sh_entry) + len);
	slab_lock(t, s);
	write_begin(s);
	if(need > s->maxmem) {
		s->nomem++;
		write_end(s);
		slab_unlock(s);
		return SHMHASH_NOMEM;
	}
	slab_retire_and_reclaim(t, s);
	while(!(off = shmarena_alloc(t->base, &s->arena,
		sizeof(struct sh_entry) + len, KIND_ENTRY))) {
		/* no block of this class: evict some, free what is safe */
		if(s->count == 0) {
			slab_retire_and_reclaim(t, s);
			off = shmarena_alloc(t->base, &s->arena,
				sizeof(struct sh_entry) + len, KIND_ENTRY);
			break;
		}
		slab_evict(t, s, s->mem > need ? s->mem - need : 0);
		slab_retire_and_reclaim(t, s);
	}
	if(!off) {
		s->nomem++;
		write_end(s);
		slab_unlock(s);
		return SHMHASH_NOMEM;
	}
	e = ENT(t, off);
	need = shmarena_size_of(t->base, off);
	e->hash = hash;
	e->mem = need;
	e->len = len;
	atomic_store_explicit(&e->ref, 1, memory_order_relaxed);
	memcpy(e->data, data, len);
	shmarena_crash_point();
	a = ARR(t, atomic_load_explicit(&s->arr, memory_order_relaxed));
	old = slab_find(t, s, hash, key, &prev);
	if(old && decide && !decide(ENT(t, old)->data, e->data, arg)) {
		/* never published: no reader saw it */
		shmarena_free(t->base, &s->arena, off);
		slab_retire_and_reclaim(t, s);
		write_end(s);
		slab_unlock(s);
		return SHMHASH_KEPT;
	}
	if(old)
		atomic_store_explicit(&e->next[a->gen], atomic_load_explicit(
			&ENT(t, old)->next[a->gen], memory_order_relaxed),
			memory_order_relaxed);
	else	atomic_store_explicit(&e->next[a->gen], atomic_load_explicit(
			prev, memory_order_relaxed), memory_order_relaxed);
	atomic_store_explicit(&e->next[a->gen ^ 1u], 0, memory_order_relaxed);
	/* publish: e's fields are written before this release */
	atomic_store_explicit(prev, off, memory_order_release);
	shmarena_crash_point();
	s->count++;
	s->mem += need;
	if(old) {
		slab_unlinked(t, s, old);
		ret = SHMHASH_REPLACED;
	}
	if(s->count > a->mask + 1)
		slab_grow(t, s);
	slab_evict(t, s, s->maxmem);
	slab_retire_and_reclaim(t, s);
	write_end(s);
	slab_unlock(s);
	return ret;
}

int
shmhash_remove(struct shmhash *t, uint32_t hash, const void *key)
{
	struct sh_slab *s = slab_of(t, hash);
	struct sh_array *a;
	_Atomic uint64_t *prev;
	uint64_t off;
	slab_lock(t, s);
	write_begin(s);
	a = ARR(t, atomic_load_explicit(&s->arr, memory_order_relaxed));
	off = slab_find(t, s, hash, key, &prev);
	if(off) {
		atomic_store_explicit(prev, atomic_load_explicit(
			&ENT(t, off)->next[a->gen], memory_order_relaxed),
			memory_order_release);
		slab_unlinked(t, s, off);
	}
	slab_retire_and_reclaim(t, s);
	write_end(s);
	slab_unlock(s);
	return off != 0;
}

size_t
shmhash_remove_if(struct shmhash *t, shmhash_pred_func pred, void *arg)
{
	size_t n = 0;
	uint64_t i, j;
	for(i = 0; i < t->num_slabs; i++) {
		struct sh_slab *s = &t->slabs[i];
		struct sh_array *a;
		slab_lock(t, s);
		write_begin(s);
		a = ARR(t, atomic_load_explicit(&s->arr, memory_order_relaxed));
		for(j = 0; j <= a->mask; j++) {
			_Atomic uint64_t *prev = &a->b[j];
			uint64_t off = atomic_load_explicit(prev,
				memory_order_relaxed);
			while(off) {
				struct sh_entry *e = ENT(t, off);
				uint64_t nx = atomic_load_explicit(
					&e->next[a->gen], memory_order_relaxed);
				if(!pred || pred(e->data, arg)) {
					atomic_store_explicit(prev, nx,
						memory_order_release);
					slab_unlinked(t, s, off);
					n++;
				} else	prev = &e->next[a->gen];
				off = nx;
			}
		}
		slab_retire_and_reclaim(t, s);
		write_end(s);
		slab_unlock(s);
	}
	return n;
}

void
shmhash_clear(struct shmhash *t)
{
	(void)shmhash_remove_if(t, NULL, NULL);
}

void
shmhash_traverse(struct shmhash *t, shmhash_traverse_func fn, void *arg)
{
	uint64_t i, j;
	for(i = 0; i < t->num_slabs; i++) {
		struct sh_slab *s = &t->slabs[i];
		struct sh_array *a;
		slab_lock(t, s);
		a = ARR(t, atomic_load_explicit(&s->arr, memory_order_relaxed));
		for(j = 0; j <= a->mask; j++) {
			uint64_t off = atomic_load_explicit(&a->b[j],
				memory_order_relaxed);
			while(off) {
				fn(ENT(t, off)->data, arg);
				off = atomic_load_explicit(&ENT(t, off)->next[
					a->gen], memory_order_relaxed);
			}
		}
		slab_unlock(s);
	}
}

void
shmhash_reclaim(struct shmhash *t)
{
	uint64_t i;
	for(i = 0; i < t->num_slabs; i++) {
		struct sh_slab *s = &t->slabs[i];
		slab_lock(t, s);
		write_begin(s);
		slab_retire_and_reclaim(t, s);
		write_end(s);
		slab_unlock(s);
	}
}

void
shmhash_set_maxmem(struct shmhash *t, size_t maxmem)
{
	uint64_t i;
	for(i = 0; i < t->num_slabs; i++) {
		struct sh_slab *s = &t->slabs[i];
		uint64_t b = maxmem / t->num_slabs;
		slab_lock(t, s);
		write_begin(s);
		s->maxmem = b < s->maxmem_cap ? b : s->maxmem_cap;
		slab_evict(t, s, s->maxmem);
		slab_retire_and_reclaim(t, s);
		write_end(s);
		slab_unlock(s);
	}
	t->h->maxmem = maxmem;
}

/** sum a slab field over the slabs (unlocked reads: statistics) */
#define SUM_FIELD(t, expr) do { \
	uint64_t i_; \
	for(i_ = 0; i_ < (t)->num_slabs; i_++) { \
		struct sh_slab *s = &(t)->slabs[i_]; \
		sum += (expr); \
	} } while(0)

size_t
shmhash_get_mem(struct shmhash *t)
{
	size_t sum = 0;
	SUM_FIELD(t, s->mem);
	return sum;
}

size_t
shmhash_get_limbo_mem(struct shmhash *t)
{
	size_t sum = 0;
	SUM_FIELD(t, s->arena.limbo_bytes);
	return sum;
}

size_t
shmhash_get_count(struct shmhash *t)
{
	size_t sum = 0;
	SUM_FIELD(t, s->count);
	return sum;
}

size_t
shmhash_get_maxmem(struct shmhash *t)
{
	return (size_t)t->h->maxmem;
}

size_t
shmhash_get_repairs(struct shmhash *t)
{
	size_t sum = 0;
	SUM_FIELD(t, s->repairs);
	return sum;
}

size_t
shmhash_get_nomem(struct shmhash *t)
{
	size_t sum = 0;
	SUM_FIELD(t, s->nomem);
	return sum;
}

size_t
shmhash_recover(struct shmhash *t)
{
	size_t before = shmhash_get_repairs(t);
	uint64_t i;
	for(i = 0; i < t->num_slabs; i++) {
		slab_lock(t, &t->slabs[i]);
		slab_unlock(&t->slabs[i]);
	}
	return shmhash_get_repairs(t) - before;
}

/* ---- repair and check ---- */

/** a bitmap over a slab arena's 16-byte units */
struct sh_bits {
	/** the bits */
	uint8_t *m;
	/** the arena */
	const struct shmarena *a;
};

/** test a bit */
static int
bit_get(const struct sh_bits *b, uint64_t off)
{
	uint64_t i = SHMARENA_BIT(b->a, off);
	return (b->m[i / 8] >> (i % 8)) & 1;
}

/** set (v=1) or clear (v=0) a bit */
static void
bit_put(struct sh_bits *b, uint64_t off, int v)
{
	uint64_t i = SHMARENA_BIT(b->a, off);
	if(v)
		b->m[i / 8] |= (uint8_t)(1u << (i % 8));
	else	b->m[i / 8] &= (uint8_t)~(1u << (i % 8));
}

/** shmarena_rebuild callback: is the block referenced? */
static int
repair_referenced(uint64_t off, void *arg)
{
	return bit_get((struct sh_bits *)arg, off);
}

/** start the slab over, empty (the arena's headers did not tile) */
static void
slab_reset(struct shmhash *t, struct sh_slab *s)
{
	uint64_t arr;
	shmarena_init(t->base, &s->arena, s->arena.start,
		s->arena.end - s->arena.start);
	arr = array_new(t, s, SH_START_BUCKETS, 0);
	atomic_store_explicit(&s->arr, arr, memory_order_release);
	s->mem = arr ? shmarena_size_of(t->base, arr) : 0;
	s->count = 0;
	s->hand = 0;
}

/**
 * Repair a slab whose writer died mid-write (under its lock, taken with
 * EOWNERDEAD): see the file comment of shmhash.h.
 */
static void
slab_repair(struct shmhash *t, struct sh_slab *s)
{
	struct sh_bits bits;
	uint64_t aoff = atomic_load_explicit(&s->arr, memory_order_relaxed);
	uint64_t i, count = 0, mem = 0;
	struct sh_array *a;
	bits.a = &s->arena;
	bits.m = calloc(shmarena_map_bits(&s->arena) / 8 + 1, 1);
	if(!bits.m || !shmarena_is_used_block(t->base, &s->arena, aoff,
		KIND_ARRAY)) {
		free(bits.m);
		slab_reset(t, s);
		goto done;
	}
	bit_put(&bits, aoff, 1);
	a = ARR(t, aoff);
	mem = shmarena_size_of(t->base, aoff);
	for(i = 0; i <= a->mask; i++) {
		_Atomic uint64_t *prev = &a->b[i];
		uint64_t off = atomic_load_explicit(prev, memory_order_relaxed);
		while(off) {
			struct sh_entry *e = ENT(t, off);
			if(!shmarena_is_used_block(t->base, &s->arena, off,
				KIND_ENTRY) || bit_get(&bits, off) ||
				(e->hash & a->mask) != i ||
				e->mem != shmarena_size_of(t->base, off)) {
				/* cut the chain here; the rest is retired */
				atomic_store_explicit(prev, 0,
					memory_order_release);
				break;
			}
			bit_put(&bits, off, 1);
			count++;
			mem += e->mem;
			prev = &e->next[a->gen];
			off = atomic_load_explicit(prev, memory_order_relaxed);
		}
	}
	if(shmarena_rebuild(t->base, &s->arena, shmarena_qsbr_retire_tag(
		t->base), repair_referenced, &bits) != 0) {
		free(bits.m);
		slab_reset(t, s);
		goto done;
	}
	free(bits.m);
	s->count = count;
	s->mem = mem;
	s->hand = 0;
	/* the dead writer may have linked before evicting */
	slab_evict(t, s, s->maxmem);
	slab_retire_and_reclaim(t, s);
done:
	s->repairs++;
	if(s->wseq & 1)
		s->wseq++;
}

/** fill err, return -1 */
static int
check_err(char *err, size_t errlen, uint64_t slab, const char *what,
	uint64_t off)
{
	snprintf(err, errlen, "slab %llu: %s (offset %llu)",
		(unsigned long long)slab, what, (unsigned long long)off);
	return -1;
}

/** check one slab, under its lock */
static int
check_slab(struct shmhash *t, uint64_t si, struct sh_slab *s,
	struct sh_bits *bits, char *err, size_t errlen)
{
	uint64_t aoff = atomic_load_explicit(&s->arr, memory_order_relaxed);
	uint64_t i, count = 0, mem = 0, u;
	struct sh_array *a;
	char aerr[256];
	if(s->wseq & 1)
		return check_err(err, errlen, si, "write in progress", 0);
	if(shmarena_check(t->base, &s->arena, bits->m, aerr,
		sizeof(aerr)) != 0) {
		snprintf(err, errlen, "slab %llu: %s", (unsigned long long)si,
			aerr);
		return -1;
	}
	if(!shmarena_is_used_block(t->base, &s->arena, aoff, KIND_ARRAY) ||
		!bit_get(bits, aoff))
		return check_err(err, errlen, si, "bucket array not a used "
			"array block", aoff);
	bit_put(bits, aoff, 0);
	a = ARR(t, aoff);
	mem = shmarena_size_of(t->base, aoff);
	for(i = 0; i <= a->mask; i++) {
		uint64_t off = atomic_load_explicit(&a->b[i],
			memory_order_relaxed);
		while(off) {
			struct sh_entry *e;
			if(!shmarena_is_used_block(t->base, &s->arena, off,
				KIND_ENTRY))
				return check_err(err, errlen, si, "chain link "
					"is not a used entry block", off);
			if(!bit_get(bits, off))
				return check_err(err, errlen, si, "entry "
					"reachable twice", off);
			bit_put(bits, off, 0);
			e = ENT(t, off);
			if((e->hash & a->mask) != i)
				return check_err(err, errlen, si, "entry in "
					"the wrong bucket", off);
			if(e->mem != shmarena_size_of(t->base, off))
				return check_err(err, errlen, si, "entry bytes "
					"differ from its block", off);
			count++;
			mem += e->mem;
			off = atomic_load_explicit(&e->next[a->gen],
				memory_order_relaxed);
		}
	}
	if(count != s->count || mem != s->mem) {
		snprintf(err, errlen, "slab %llu: counts %llu entries %llu "
			"bytes, chains hold %llu entries %llu bytes",
			(unsigned long long)si, (unsigned long long)s->count,
			(unsigned long long)s->mem, (unsigned long long)count,
			(unsigned long long)mem);
		return -1;
	}
	if(s->mem > s->maxmem && s->count > 0)
		return check_err(err, errlen, si, "over budget", s->mem);
	/* every used block accounted: none left in the map */
	for(u = 0; u < shmarena_map_bits(&s->arena); u++)
		if((bits->m[u / 8] >> (u % 8)) & 1)
			return check_err(err, errlen, si, "used block "
				"reachable from nothing (leak)",
				s->arena.start + u * 16);
	return 0;
}

int
shmhash_check(struct shmhash *t, char *err, size_t errlen)
{
	uint64_t i;
	for(i = 0; i < t->num_slabs; i++) {
		struct sh_slab *s = &t->slabs[i];
		struct sh_bits bits;
		int r;
		bits.a = &s->arena;
		bits.m = calloc(shmarena_map_bits(&s->arena) / 8 + 1, 1);
		if(!bits.m) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		slab_lock(t, s);
		r = check_slab(t, i, s, &bits, err, errlen);
		slab_unlock(s);
		free(bits.m);
		if(r != 0)
			return -1;
	}
	return 0;
}
