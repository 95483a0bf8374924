/*
 * util/storage/slabhash.c - the concurrent slabbed hash table.
 *
 * See slabhash.h for the locking protocol. Inside a slab, everything a
 * writer touches is under the slab mutex; the only fields readers load are
 * the slab's bucket array pointer, the bucket heads and the entries' next
 * pointers (acquire loads of atomics) and the entries' reference bits.
 * The read-mostly array pointer sits on its own cache line, apart from the
 * lock word and the counters that writers change.
 */
#include "config.h"
#include "util/storage/slabhash.h"
#include "util/storage/qsbr.h"
#include "util/locks.h"
#include <stdlib.h>
#include <string.h>

/** a read prefetch hint where the compiler has one */
#if defined(__GNUC__) || defined(__clang__)
#define PETREL_PREFETCH(p) __builtin_prefetch(p)
#else
#define PETREL_PREFETCH(p) ((void)(p))
#endif

/** a bucket array; replaced (never resized in place) when the slab grows */
struct bucket_array {
	/** number of buckets - 1 (a power of two minus one) */
	size_t mask;
	/** which of the entries' two next pointers chains this array */
	unsigned gen;
	/** QSBR tag once retired */
	uint64_t retired;
	/** next retired array */
	struct bucket_array *limbo_next;
	/** the chain heads */
	_Atomic(struct slabhash_entry *) b[];
};

/** initial buckets per slab */
#define SLAB_START_BUCKETS 16

/** one slab: a lock, a bucket array, a budget, a CLOCK hand */
struct slab {
	/** the bucket array (readers load it; writers replace it on growth) */
	_Atomic(struct bucket_array *) arr;
	/** keep the writer fields off the readers' line */
	char pad0[64 - sizeof(void *)];
	/** the slab lock, for every change */
	lock_basic_type lock;
	/** live bytes: entries' mem plus the bucket array */
	size_t mem;
	/** byte budget of this slab */
	size_t maxmem;
	/** live entries */
	size_t count;
	/** bytes on the limbo list */
	size_t limbo_mem;
	/** CLOCK hand: the next bucket to sweep */
	size_t hand;
	/** retired entries, oldest first */
	struct slabhash_entry *limbo_head;
	/** the last retired entry, to append */
	struct slabhash_entry *limbo_tail;
	/** retired bucket arrays, oldest first */
	struct bucket_array *arr_limbo;
	/** entries unlinked by the current operation, not yet tagged */
	struct slabhash_entry *pending;
	/** bytes of the pending entries */
	size_t pending_mem;
} __attribute__((aligned(64)));

/** the table */
struct slabhash {
	/** number of slabs (power of two) */
	size_t num_slabs;
	/** key comparison */
	slabhash_match_func match;
	/** frees an entry */
	slabhash_del_func del;
	/** argument of del */
	void *del_arg;
	/** total budget */
	size_t maxmem;
	/** the slabs */
	struct slab *slabs;
};

size_t
slabhash_malloc_size(size_t n)
{
	size_t c = (n + sizeof(size_t) + 15) & ~(size_t)15;
	return c < 32 ? 32 : c;
}

/** bytes a bucket array with n buckets costs */
static size_t
array_mem(size_t n)
{
	return slabhash_malloc_size(sizeof(struct bucket_array) +
		n * sizeof(_Atomic(struct slabhash_entry *)));
}

/** allocate a zeroed bucket array of n buckets (power of two) */
static struct bucket_array *
array_create(size_t n)
{
	struct bucket_array *a = calloc(1, sizeof(*a) +
		n * sizeof(_Atomic(struct slabhash_entry *)));
	size_t i;
	if(!a)
		return NULL;
	a->mask = n - 1;
	for(i = 0; i < n; i++)
		atomic_init(&a->b[i], NULL);
	return a;
}

uint32_t
slabhash_hash_bytes(const void *data, size_t len, uint32_t seed)
{
	const unsigned char *p = data;
	uint32_t h = seed ^ 0x811c9dc5u;
	size_t i;
	for(i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x01000193u;
	}
	/* final avalanche so that both the top (slab) and low (bucket)
	 * bits depend on every byte */
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return h;
}

struct slabhash *
slabhash_create(size_t num_slabs, size_t maxmem, slabhash_match_func match,
	slabhash_del_func del, void *del_arg)
{
	struct slabhash *t;
	size_t i, n = 1;
	while(n * 2 <= num_slabs && n < (1u << 16))
		n *= 2;
	t = calloc(1, sizeof(*t));
	if(!t)
		return NULL;
	t->num_slabs = n;
	t->match = match;
	t->del = del;
	t->del_arg = del_arg;
	t->maxmem = maxmem;
	if(posix_memalign((void **)&t->slabs, 64, n * sizeof(struct slab))
		!= 0) {
		free(t);
		return NULL;
	}
	memset(t->slabs, 0, n * sizeof(struct slab));
	for(i = 0; i < n; i++) {
		struct slab *s = &t->slabs[i];
		struct bucket_array *a = array_create(SLAB_START_BUCKETS);
		if(!a) {
			while(i-- > 0) {
				free(atomic_load(&t->slabs[i].arr));
				lock_basic_destroy(&t->slabs[i].lock);
			}
			free(t->slabs);
			free(t);
			return NULL;
		}
		atomic_init(&s->arr, a);
		lock_basic_init(&s->lock);
		s->maxmem = maxmem / n;
		s->mem = array_mem(SLAB_START_BUCKETS);
	}
	return t;
}

/** free every entry of a slab's array and limbo; no locks (teardown) */
static void
slab_free_all(struct slabhash *t, struct slab *s)
{
	struct bucket_array *a = atomic_load_explicit(&s->arr,
		memory_order_relaxed);
	struct slabhash_entry *e, *n;
	struct bucket_array *ra, *rn;
	size_t i;
	for(i = 0; i <= a->mask; i++) {
		e = atomic_load_explicit(&a->b[i], memory_order_relaxed);
		while(e) {
			n = atomic_load_explicit(&e->next[a->gen],
				memory_order_relaxed);
			t->del(e, t->del_arg);
			e = n;
		}
		atomic_store_explicit(&a->b[i], NULL, memory_order_relaxed);
	}
	for(e = s->limbo_head; e; e = n) {
		n = e->limbo_next;
		t->del(e, t->del_arg);
	}
	s->limbo_head = s->limbo_tail = NULL;
	s->limbo_mem = 0;
	for(ra = s->arr_limbo; ra; ra = rn) {
		rn = ra->limbo_next;
		free(ra);
	}
	s->arr_limbo = NULL;
}

void
slabhash_delete(struct slabhash *t)
{
	size_t i;
	if(!t)
		return;
	for(i = 0; i < t->num_slabs; i++) {
		struct slab *s = &t->slabs[i];
		slab_free_all(t, s);
		free(atomic_load_explicit(&s->arr, memory_order_relaxed));
		lock_basic_destroy(&s->lock);
	}
	free(t->slabs);
	free(t);
}

/** the slab of a hash: its top bits */
static inline struct slab *
slab_of(struct slabhash *t, uint32_t hash)
{
	return &t->slabs[((uint64_t)hash * t->num_slabs) >> 32];
}

struct slabhash_entry *
slabhash_lookup(struct slabhash *t, uint32_t hash, const void *key)
{
	struct slab *s = slab_of(t, hash);
	struct bucket_array *a = atomic_load_explicit(&s->arr,
		memory_order_acquire);
	unsigned g = a->gen;
	struct slabhash_entry *e = atomic_load_explicit(&a->b[hash & a->mask],
		memory_order_acquire);
	while(e) {
		if(e->hash == hash && t->match(e, key)) {
			if(!atomic_load_explicit(&e->ref, memory_order_relaxed))
				atomic_store_explicit(&e->ref, 1,
					memory_order_relaxed);
			return e;
		}
		e = atomic_load_explicit(&e->next[g], memory_order_acquire);
	}
	return NULL;
}

void
slabhash_prefetch(struct slabhash *t, uint32_t hash, int stage)
{
	struct slab *s = slab_of(t, hash);
	struct bucket_array *a = atomic_load_explicit(&s->arr,
		memory_order_acquire);
	_Atomic(struct slabhash_entry *) *b = &a->b[hash & a->mask];
	struct slabhash_entry *e;
	if(stage == 0) {
		PETREL_PREFETCH(b);
		return;
	}
	e = atomic_load_explicit(b, memory_order_acquire);
	if(e) {
		/* the header and the user's key and start of its data */
		PETREL_PREFETCH(e);
		PETREL_PREFETCH((const char *)e + 64);
		PETREL_PREFETCH((const char *)e + 128);
	}
}

/** put an unlinked entry on the slab's pending list (under the lock) */
static void
slab_unlinked(struct slab *s, struct slabhash_entry *e)
{
	e->limbo_next = s->pending;
	s->pending = e;
	s->pending_mem += e->mem;
	s->mem -= e->mem;
	s->count--;
}

/**
 * Free what is safe to free, and move the entries unlinked by this
 * operation to the limbo with one fresh tag (under the lock).
 */
static void
slab_retire_and_reclaim(struct slabhash *t, struct slab *s)
{
	uint64_t safe;
	if(s->pending) {
		uint64_t tag = qsbr_retire_tag();
		struct slabhash_entry *e = s->pending, *n;
		/* pending is newest first; append in reverse so that the
		 * limbo list stays ordered by tag (all have the same tag) */
		for(; e; e = n) {
			n = e->limbo_next;
			e->retired = tag;
			e->limbo_next = NULL;
			if(s->limbo_tail)
				s->limbo_tail->limbo_next = e;
			else	s->limbo_head = e;
			s->limbo_tail = e;
		}
		s->limbo_mem += s->pending_mem;
		s->pending = NULL;
		s->pending_mem = 0;
	}
	if(!s->limbo_head && !s->arr_limbo)
		return;
	safe = qsbr_safe_tag();
	while(s->limbo_head && s->limbo_head->retired <= safe) {
		struct slabhash_entry *e = s->limbo_head;
		s->limbo_head = e->limbo_next;
		if(!s->limbo_head)
			s->limbo_tail = NULL;
		s->limbo_mem -= e->mem;
		t->del(e, t->del_arg);
	}
	while(s->arr_limbo && s->arr_limbo->retired <= safe) {
		struct bucket_array *a = s->arr_limbo;
		s->arr_limbo = a->limbo_next;
		free(a);
	}
}

/**
 * Double the bucket array (under the lock). The new array chains the
 * entries through their other next pointer, so the chains of the current
 * array stay exactly as they are for the readers still walking them. That
 * other pointer was last used by the array before the current one: the
 * growth waits (is skipped, and tried again at a later insert) until that
 * array's grace period has passed and it was freed. On malloc failure the
 * slab stays as it is.
 */
static void
slab_grow(struct slab *s)
{
	struct bucket_array *old = atomic_load_explicit(&s->arr,
		memory_order_relaxed), *na, **tail;
	size_t n = (old->mask + 1) * 2, i;
	unsigned og = old->gen, ng = og ^ 1u;
	if(s->arr_limbo)
		return; /* readers may still walk the chains of next[ng] */
	na = array_create(n);
	if(!na)
		return;
	na->gen = ng;
	for(i = 0; i <= old->mask; i++) {
		struct slabhash_entry *e = atomic_load_explicit(&old->b[i],
			memory_order_relaxed);
		for(; e; e = atomic_load_explicit(&e->next[og],
			memory_order_relaxed)) {
			size_t j = e->hash & na->mask;
			atomic_store_explicit(&e->next[ng], atomic_load_explicit(
				&na->b[j], memory_order_relaxed),
				memory_order_relaxed);
			atomic_store_explicit(&na->b[j], e,
				memory_order_relaxed);
		}
	}
	/* publish: the new chains are complete before this release */
	atomic_store_explicit(&s->arr, na, memory_order_release);
	s->mem += array_mem(n);
	s->mem -= array_mem(old->mask + 1);
	s->hand = 0;
	/* the old array may still be read: retire it with a fresh tag */
	old->retired = qsbr_retire_tag();
	old->limbo_next = NULL;
	tail = &s->arr_limbo;
	while(*tail)
		tail = &(*tail)->limbo_next;
	*tail = old;
}

/**
 * Evict by CLOCK until the slab is under its budget (under the lock).
 * A referenced entry has its bit cleared and is passed over; after two
 * full sweeps entries go regardless, so this ends even while readers
 * keep setting bits.
 */
static void
slab_evict(struct slab *s)
{
	struct bucket_array *a = atomic_load_explicit(&s->arr,
		memory_order_relaxed);
	size_t nb = a->mask + 1, visited = 0;
	while(s->mem > s->maxmem && s->count > 0) {
		size_t i = s->hand & a->mask;
		_Atomic(struct slabhash_entry *) *prev = &a->b[i];
		struct slabhash_entry *e = atomic_load_explicit(prev,
			memory_order_relaxed);
		int force = (visited >= 2 * nb);
		while(e && s->mem > s->maxmem) {
			struct slabhash_entry *nx = atomic_load_explicit(
				&e->next[a->gen], memory_order_relaxed);
			if(!force && atomic_load_explicit(&e->ref,
				memory_order_relaxed)) {
				atomic_store_explicit(&e->ref, 0,
					memory_order_relaxed);
				prev = &e->next[a->gen];
			} else {
				atomic_store_explicit(prev, nx,
					memory_order_release);
				slab_unlinked(s, e);
			}
			e = nx;
		}
		if(s->mem > s->maxmem) {
			s->hand = (i + 1) & a->mask;
			visited++;
		}
	}
}

int
slabhash_insert(struct slabhash *t, struct slabhash_entry *e,
	const void *key, slabhash_decide_func decide, void *arg)
{
	struct slab *s = slab_of(t, e->hash);
	struct bucket_array *a;
	_Atomic(struct slabhash_entry *) *prev;
	struct slabhash_entry *old;
	int ret = SLABHASH_INSERTED;

	lock_basic_lock(&s->lock);
	a = atomic_load_explicit(&s->arr, memory_order_relaxed);
	prev = &a->b[e->hash & a->mask];
	old = atomic_load_explicit(prev, memory_order_relaxed);
	while(old) {
		if(old->hash == e->hash && t->match(old, key))
			break;
		prev = &old->next[a->gen];
		old = atomic_load_explicit(prev, memory_order_relaxed);
	}
	atomic_store_explicit(&e->ref, 1, memory_order_relaxed);
	e->limbo_next = NULL;
	if(old) {
		if(decide && !decide(old, e, arg)) {
			t->del(e, t->del_arg);
			slab_retire_and_reclaim(t, s);
			lock_basic_unlock(&s->lock);
			return SLABHASH_KEPT;
		}
		atomic_store_explicit(&e->next[a->gen], atomic_load_explicit(
			&old->next[a->gen], memory_order_relaxed),
			memory_order_relaxed);
		/* publish: e's fields are written before this release */
		atomic_store_explicit(prev, e, memory_order_release);
		s->count++;
		s->mem += e->mem;
		slab_unlinked(s, old);
		ret = SLABHASH_REPLACED;
	} else {
		prev = &a->b[e->hash & a->mask];
		atomic_store_explicit(&e->next[a->gen], atomic_load_explicit(
			prev, memory_order_relaxed), memory_order_relaxed);
		atomic_store_explicit(prev, e, memory_order_release);
		s->count++;
		s->mem += e->mem;
		if(s->count > a->mask + 1)
			slab_grow(s);
	}
	slab_evict(s);
	slab_retire_and_reclaim(t, s);
	lock_basic_unlock(&s->lock);
	return ret;
}

int
slabhash_remove(struct slabhash *t, uint32_t hash, const void *key)
{
	struct slab *s = slab_of(t, hash);
	struct bucket_array *a;
	_Atomic(struct slabhash_entry *) *prev;
	struct slabhash_entry *e;
	int found = 0;
	lock_basic_lock(&s->lock);
	a = atomic_load_explicit(&s->arr, memory_order_relaxed);
	prev = &a->b[hash & a->mask];
	e = atomic_load_explicit(prev, memory_order_relaxed);
	while(e) {
		if(e->hash == hash && t->match(e, key)) {
			atomic_store_explicit(prev, atomic_load_explicit(
				&e->next[a->gen], memory_order_relaxed),
				memory_order_release);
			slab_unlinked(s, e);
			found = 1;
			break;
		}
		prev = &e->next[a->gen];
		e = atomic_load_explicit(prev, memory_order_relaxed);
	}
	slab_retire_and_reclaim(t, s);
	lock_basic_unlock(&s->lock);
	return found;
}

size_t
slabhash_remove_if(struct slabhash *t, slabhash_pred_func pred, void *arg)
{
	size_t n = 0, si, i;
	for(si = 0; si < t->num_slabs; si++) {
		struct slab *s = &t->slabs[si];
		struct bucket_array *a;
		lock_basic_lock(&s->lock);
		a = atomic_load_explicit(&s->arr, memory_order_relaxed);
		for(i = 0; i <= a->mask; i++) {
			_Atomic(struct slabhash_entry *) *prev = &a->b[i];
			struct slabhash_entry *e = atomic_load_explicit(prev,
				memory_order_relaxed);
			while(e) {
				struct slabhash_entry *nx =
					atomic_load_explicit(&e->next[a->gen],
					memory_order_relaxed);
				if(pred(e, arg)) {
					atomic_store_explicit(prev, nx,
						memory_order_release);
					slab_unlinked(s, e);
					n++;
				} else {
					prev = &e->next[a->gen];
				}
				e = nx;
			}
		}
		slab_retire_and_reclaim(t, s);
		lock_basic_unlock(&s->lock);
	}
	return n;
}

/** predicate that removes everything */
static int
pred_all(const struct slabhash_entry *e, void *arg)
{
	(void)e; (void)arg;
	return 1;
}

void
slabhash_clear(struct slabhash *t)
{
	(void)slabhash_remove_if(t, pred_all, NULL);
}

void
slabhash_traverse(struct slabhash *t, slabhash_traverse_func fn, void *arg)
{
	size_t si, i;
	for(si = 0; si < t->num_slabs; si++) {
		struct slab *s = &t->slabs[si];
		struct bucket_array *a;
		lock_basic_lock(&s->lock);
		a = atomic_load_explicit(&s->arr, memory_order_relaxed);
		for(i = 0; i <= a->mask; i++) {
			struct slabhash_entry *e = atomic_load_explicit(
				&a->b[i], memory_order_relaxed);
			for(; e; e = atomic_load_explicit(&e->next[a->gen],
				memory_order_relaxed))
				fn(e, arg);
		}
		lock_basic_unlock(&s->lock);
	}
}

void
slabhash_reclaim(struct slabhash *t)
{
	size_t si;
	for(si = 0; si < t->num_slabs; si++) {
		struct slab *s = &t->slabs[si];
		lock_basic_lock(&s->lock);
		slab_retire_and_reclaim(t, s);
		lock_basic_unlock(&s->lock);
	}
}

void
slabhash_set_maxmem(struct slabhash *t, size_t maxmem)
{
	size_t si;
	t->maxmem = maxmem;
	for(si = 0; si < t->num_slabs; si++) {
		struct slab *s = &t->slabs[si];
		lock_basic_lock(&s->lock);
		s->maxmem = maxmem / t->num_slabs;
		slab_evict(s);
		slab_retire_and_reclaim(t, s);
		lock_basic_unlock(&s->lock);
	}
}

/** sum a slab field under each slab's lock */
#define SLAB_SUM(t, field, out) do { size_t si_; (out) = 0; \
	for(si_ = 0; si_ < (t)->num_slabs; si_++) { \
		lock_basic_lock(&(t)->slabs[si_].lock); \
		(out) += (t)->slabs[si_].field; \
		lock_basic_unlock(&(t)->slabs[si_].lock); } } while(0)

size_t
slabhash_get_mem(struct slabhash *t)
{
	size_t m;
	SLAB_SUM(t, mem, m);
	return m;
}

size_t
slabhash_get_limbo_mem(struct slabhash *t)
{
	size_t m;
	SLAB_SUM(t, limbo_mem, m);
	return m;
}

size_t
slabhash_get_count(struct slabhash *t)
{
	size_t m;
	SLAB_SUM(t, count, m);
	return m;
}

size_t
slabhash_get_num_buckets(struct slabhash *t)
{
	size_t si, n = 0;
	for(si = 0; si < t->num_slabs; si++) {
		lock_basic_lock(&t->slabs[si].lock);
		n += atomic_load_explicit(&t->slabs[si].arr,
			memory_order_relaxed)->mask + 1;
		lock_basic_unlock(&t->slabs[si].lock);
	}
	return n;
}

size_t
slabhash_get_maxmem(struct slabhash *t)
{
	return t->maxmem;
}

size_t
slabhash_get_num_slabs(struct slabhash *t)
{
	return t->num_slabs;
}

size_t
slabhash_overhead(struct slabhash *t)
{
	return slabhash_malloc_size(sizeof(*t)) +
		slabhash_malloc_size(t->num_slabs * sizeof(struct slab));
}
