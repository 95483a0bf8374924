/*
 * util/ratelimit.c - the bounded table of per-key query rates.
 *
 * See ratelimit.h for the rate semantics and the locking. An entry is a
 * fixed header and keymax key bytes; a slab is a lock and an array of
 * entries. Names are compared as given (the callers pass lower-cased
 * names).
 */
#include "config.h"
#include "util/ratelimit.h"
#include "util/locks.h"
#include <stdlib.h>
#include <string.h>

/** the seconds a backoff rate looks back over */
#define RATE_WINDOW 2

/** one key's counters (the key bytes follow). Each counter is one 64-bit
 * word, the second in the high half and the count in the low half, so a
 * query is counted with one compare-and-swap and no lock. */
struct rate_entry {
	/** per second parity: (second << 32) | count; 0 is unused */
	uint64_t ctr[2];
	/** hash of the key, never 0 for a used entry; 0 while the entry is
	 * free or being rewritten (stored last, with release order) */
	uint32_t hash;
	/** key length */
	uint16_t keylen;
};

/** one slab: a lock and its entries */
struct rate_slab {
	/** guards taking an entry for a new key (counting needs none) */
	lock_basic_type lock;
	/** the entries, each table->esize bytes */
	uint8_t *mem;
} __attribute__((aligned(64)));

struct rate_table {
	/** the slabs */
	struct rate_slab *slab;
	/** number of slabs (power of 2) */
	size_t nslabs;
	/** entries per slab */
	size_t nent;
	/** bytes of one entry (header and key, rounded to 8) */
	size_t esize;
	/** longest key */
	size_t keymax;
};

/** the entry at index i of a slab */
#define RATE_ENTRY(t, s, i) \
	((struct rate_entry *)((s)->mem + (size_t)(i) * (t)->esize))
/** the home slot of a hash in its slab (the slab takes the low bits:
 * the slot starts from the high half) */
#define RATE_HOME(t, h) \
	((size_t)(((h) >> 16) | ((h) << 16)) & ((t)->nent - 1))
/** the key bytes of an entry */
#define RATE_KEY(e) ((uint8_t *)((e) + 1))
/** the second of a counter word */
#define CTR_SEC(w) ((uint32_t)((w) >> 32))
/** the count of a counter word */
#define CTR_NUM(w) ((uint32_t)(w))

struct rate_table *
rate_table_create(size_t bytes, int slabs, size_t keymax)
{
	struct rate_table *t = calloc(1, sizeof(*t));
	size_t i, n = 1, total;
	if(!t)
		return NULL;
	while(slabs > 1 && n * 2 <= (size_t)slabs)
		n *= 2;
	t->nslabs = n;
	t->keymax = keymax ? keymax : 1;
	t->esize = (sizeof(struct rate_entry) + t->keymax + 7) & ~(size_t)7;
	total = bytes / t->esize;
	/* entries per slab: a power of 2 (masks, not divisions, on the
	 * path of every query), the largest that fits in the size */
	t->nent = RATE_PROBE;
	while(t->nent * 2 * n <= total)
		t->nent *= 2;
	/* each slab on its own cache line, as its type asks: calloc
	 * promises only 16 bytes */
	if(posix_memalign((void **)&t->slab, 64, (size_t)n *
		sizeof(*t->slab)) != 0) {
		free(t);
		return NULL;
	}
	memset(t->slab, 0, (size_t)n * sizeof(*t->slab));
	for(i = 0; i < n; i++) {
		lock_basic_init(&t->slab[i].lock);
		t->slab[i].mem = calloc(t->nent, t->esize);
		if(!t->slab[i].mem) {
			t->nslabs = i + 1;
			rate_table_delete(t);
			return NULL;
		}
	}
	return t;
}

void
rate_table_delete(struct rate_table *t)
{
	size_t i;
	if(!t)
		return;
	for(i = 0; i < t->nslabs; i++) {
		lock_basic_destroy(&t->slab[i].lock);
		free(t->slab[i].mem);
	}
	free(t->slab);
	free(t);
}

/** the steps of counting a query are inlined into rate_table_inc: it
 * runs for every client query when ip-ratelimit is on */
#define RATE_INLINE static inline __attribute__((always_inline))

/** a 64-bit multiply-and-fold step */
RATE_INLINE uint64_t
rate_mix(uint64_t h, uint64_t v)
{
	h ^= v;
	h *= 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/** Hash a key (an IPv4 key is one step, IPv6 two, names eight bytes a
 * step) with a final mix: spreads addresses and names over slabs and
 * slots; never 0 (the mark of a free entry) */
RATE_INLINE uint32_t
rate_hash(const uint8_t *k, size_t len)
{
	uint64_t h = 0x6a09e667f3bcc909ULL ^ len, v;
	uint32_t r, v4;
	if(len == 4) {
		memcpy(&v4, k, 4);
		h = rate_mix(h, v4);
	} else {
		while(len >= 8) {
			memcpy(&v, k, 8);
			h = rate_mix(h, v);
			k += 8;
			len -= 8;
		}
		if(len > 0) {
			v = 0;
			while(len-- > 0)
				v = (v << 8) | k[len];
			h = rate_mix(h, v);
		}
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	r = (uint32_t)h ^ (uint32_t)(h >> 32);
	return r ? r : 1;
}

/** the rate of an entry at second now (read without a lock) */
static int
rate_of(const struct rate_entry *e, uint32_t now, int backoff)
{
	int i;
	uint32_t max = 0;
	for(i = 0; i < 2; i++) {
		uint64_t w = __atomic_load_n(&e->ctr[i], __ATOMIC_RELAXED);
		uint32_t sec = CTR_SEC(w);
		if(w == 0)
			continue;
		if(backoff) {
			if(now >= sec && now - sec <= RATE_WINDOW &&
				CTR_NUM(w) > max)
				max = CTR_NUM(w);
		} else if(sec == now)
			return CTR_NUM(w) > INT32_MAX ? INT32_MAX :
				(int)CTR_NUM(w);
	}
	return max > INT32_MAX ? INT32_MAX : (int)max;
}

/** the latest second an entry was used (0: never) */
static uint32_t
rate_last(const struct rate_entry *e)
{
	uint32_t a = CTR_SEC(__atomic_load_n(&e->ctr[0], __ATOMIC_RELAXED));
	uint32_t b = CTR_SEC(__atomic_load_n(&e->ctr[1], __ATOMIC_RELAXED));
	return a > b ? a : b;
}

/** @return 1 when the entry holds the key (hash already matched);
 * addresses (4 and 16 bytes) are compared in words, without a call */
RATE_INLINE int
rate_keyeq(const struct rate_entry *e, const uint8_t *key, size_t keylen)
{
	const uint8_t *k = RATE_KEY(e);
	if(e->keylen != keylen)
		return 0;
	if(keylen == 4) {
		uint32_t a, b;
		memcpy(&a, k, 4);
		memcpy(&b, key, 4);
		return a == b;
	}
	if(keylen == 16) {
		uint64_t a[2], b[2];
		memcpy(a, k, 16);
		memcpy(b, key, 16);
		return a[0] == b[0] && a[1] == b[1];
	}
	return memcmp(k, key, keylen) == 0;
}

/** Find a key among its probe slots, without a lock. A match is checked
 * again after the compare: an entry rewritten meanwhile has changed (or
 * cleared) its hash. */
RATE_INLINE struct rate_entry *
rate_lookup(struct rate_table *t, struct rate_slab *s, uint32_t h,
	const uint8_t *key, size_t keylen)
{
	size_t home = RATE_HOME(t, h), i;
	for(i = 0; i < RATE_PROBE; i++) {
		struct rate_entry *e = RATE_ENTRY(t, s,
			(home + i) & (t->nent - 1));
		if(__atomic_load_n(&e->hash, __ATOMIC_ACQUIRE) == h &&
			rate_keyeq(e, key, keylen) &&
			__atomic_load_n(&e->hash, __ATOMIC_ACQUIRE) == h)
			return e;
	}
	return NULL;
}

/** Take a slot for a new key (slab locked by the caller): a free one, or
 * the one used longest ago. */
static struct rate_entry *
rate_take(struct rate_table *t, struct rate_slab *s, uint32_t h,
	const uint8_t *key, size_t keylen)
{
	size_t home = RATE_HOME(t, h), i;
	struct rate_entry *victim = NULL;
	uint32_t vlast = 0;
	for(i = 0; i < RATE_PROBE; i++) {
		struct rate_entry *e = RATE_ENTRY(t, s,
			(home + i) & (t->nent - 1));
		uint32_t last = rate_last(e);
		if(e->hash == 0 || last == 0) {
			victim = e;
			break;
		}
		if(!victim || last < vlast) {
			victim = e;
			vlast = last;
		}
	}
	/* unpublish, rewrite, publish: a lock-free reader sees hash 0 or
	 * a changed hash and does not count into the wrong key (a count
	 * racing with the rewrite may be lost: the rates are estimates) */
	__atomic_store_n(&victim->hash, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&victim->ctr[0], 0, __ATOMIC_RELAXED);
	__atomic_store_n(&victim->ctr[1], 0, __ATOMIC_RELAXED);
	victim->keylen = (uint16_t)keylen;
	memcpy(RATE_KEY(victim), key, keylen);
	__atomic_store_n(&victim->hash, h, __ATOMIC_RELEASE);
	return victim;
}

/** count one query in an entry at second now (no lock: one CAS)
 * @return the count of that second after counting */
RATE_INLINE uint32_t
rate_bump(struct rate_entry *e, uint32_t now)
{
	uint64_t *c = &e->ctr[now & 1];
	uint64_t old = __atomic_load_n(c, __ATOMIC_RELAXED), nw;
	do {
		if(CTR_SEC(old) != now)
			nw = ((uint64_t)now << 32) | 1;
		else if(CTR_NUM(old) == 0xffffffffU)
			return CTR_NUM(old);
		else	nw = old + 1;
	} while(!__atomic_compare_exchange_n(c, &old, nw, 1, __ATOMIC_RELAXED,
		__ATOMIC_RELAXED));
	return CTR_NUM(nw);
}

/** the internal second: never 0 (a counter word of 0 is unused) */
RATE_INLINE uint32_t
rate_sec(time_t now)
{
	uint32_t s = (uint32_t)now + 1;
	return s ? s : 1;
}

int
rate_table_inc(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff)
{
	uint32_t h, sec = rate_sec(now), n;
	struct rate_slab *s;
	struct rate_entry *e;
	if(keylen > t->keymax)
		keylen = t->keymax;
	h = rate_hash(key, keylen);
	s = &t->slab[h & (t->nslabs - 1)];
	if((e = rate_lookup(t, s, h, key, keylen)) == NULL) {
		/* a new key: the only locked step */
		lock_basic_lock(&s->lock);
		if((e = rate_lookup(t, s, h, key, keylen)) == NULL)
			e = rate_take(t, s, h, key, keylen);
		lock_basic_unlock(&s->lock);
	}
	n = rate_bump(e, sec);
	if(backoff) {
		/* the other second of the window, when it counted more */
		uint64_t w = __atomic_load_n(&e->ctr[(sec & 1) ^ 1],
			__ATOMIC_RELAXED);
		if(w != 0 && sec > CTR_SEC(w) && sec - CTR_SEC(w) <= RATE_WINDOW
			&& CTR_NUM(w) > n)
			n = CTR_NUM(w);
	}
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

int
rate_table_get(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff)
{
	uint32_t h;
	struct rate_entry *e;
	if(keylen > t->keymax)
		keylen = t->keymax;
	h = rate_hash(key, keylen);
	e = rate_lookup(t, &t->slab[h & (t->nslabs - 1)], h, key, keylen);
	return e ? rate_of(e, rate_sec(now), backoff) : 0;
}

void
rate_table_walk(struct rate_table *t, time_t now, int backoff,
	rate_walk_cb cb, void *arg)
{
	size_t i, j;
	uint32_t sec = rate_sec(now);
	for(i = 0; i < t->nslabs; i++) {
		struct rate_slab *s = &t->slab[i];
		/* the lock keeps entries from being rewritten under us */
		lock_basic_lock(&s->lock);
		for(j = 0; j < t->nent; j++) {
			struct rate_entry *e = RATE_ENTRY(t, s, j);
			int r;
			if(e->hash == 0)
				continue;
			if((r = rate_of(e, sec, backoff)) > 0)
				cb(RATE_KEY(e), e->keylen, r, arg);
		}
		lock_basic_unlock(&s->lock);
	}
}

size_t
rate_table_capacity(const struct rate_table *t)
{
	return t->nslabs * t->nent;
}

size_t
rate_table_mem(const struct rate_table *t)
{
	return sizeof(*t) + t->nslabs * (sizeof(struct rate_slab) +
		t->nent * t->esize);
}
