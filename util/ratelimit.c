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

/** one key's counters (the key bytes follow) */
struct rate_entry {
	/** the second of each counter; 0 for a free entry */
	time_t sec[2];
	/** queries counted in that second */
	int32_t qps[2];
	/** hash of the key */
	uint32_t hash;
	/** key length */
	uint16_t keylen;
};

/** one slab: a lock and its entries */
struct rate_slab {
	/** guards the entries */
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
/** the key bytes of an entry */
#define RATE_KEY(e) ((uint8_t *)((e) + 1))

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
	t->nent = total / n;
	if(t->nent < RATE_PROBE)
		t->nent = RATE_PROBE;
	t->slab = calloc(n, sizeof(*t->slab));
	if(!t->slab) {
		free(t);
		return NULL;
	}
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

/** FNV-1a with a final mix: spreads addresses and names over slabs and
 * slots */
static uint32_t
rate_hash(const uint8_t *k, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;
	for(i = 0; i < len; i++) {
		h ^= k[i];
		h *= 0x100000001b3ULL;
	}
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	return (uint32_t)h ^ (uint32_t)(h >> 32);
}

/** the rate of an entry at second now */
static int
rate_of(const struct rate_entry *e, time_t now, int backoff)
{
	int i, max = 0;
	for(i = 0; i < 2; i++) {
		if(e->sec[i] == 0)
			continue;
		if(backoff) {
			if(now - e->sec[i] <= RATE_WINDOW && now >= e->sec[i]
				&& e->qps[i] > max)
				max = e->qps[i];
		} else if(e->sec[i] == now)
			return e->qps[i];
	}
	return max;
}

/** the latest second an entry was used */
static time_t
rate_last(const struct rate_entry *e)
{
	return e->sec[0] > e->sec[1] ? e->sec[0] : e->sec[1];
}

/**
 * Find a key in its slab (locked by the caller); with make, take a slot
 * for it when it is not there.
 */
static struct rate_entry *
rate_find(struct rate_table *t, struct rate_slab *s, uint32_t h,
	const uint8_t *key, size_t keylen, int make)
{
	size_t home = (h / t->nslabs) % t->nent, i;
	struct rate_entry *victim = NULL;
	for(i = 0; i < RATE_PROBE; i++) {
		struct rate_entry *e = RATE_ENTRY(t, s, (home + i) % t->nent);
		if(rate_last(e) == 0) {
			if(!victim || rate_last(victim) != 0)
				victim = e;
			continue;
		}
		if(e->hash == h && e->keylen == keylen &&
			memcmp(RATE_KEY(e), key, keylen) == 0)
			return e;
		if(!victim || (rate_last(victim) != 0 &&
			rate_last(e) < rate_last(victim)))
			victim = e;
	}
	if(!make || !victim)
		return NULL;
	memset(victim, 0, t->esize);
	victim->hash = h;
	victim->keylen = (uint16_t)keylen;
	memcpy(RATE_KEY(victim), key, keylen);
	return victim;
}

int
rate_table_inc(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff)
{
	uint32_t h;
	struct rate_slab *s;
	struct rate_entry *e;
	int slot, r;
	now++; /* a second of 0 marks a free entry */
	slot = (int)(now & 1);
	if(keylen > t->keymax)
		keylen = t->keymax;
	h = rate_hash(key, keylen);
	s = &t->slab[h & (t->nslabs - 1)];
	lock_basic_lock(&s->lock);
	e = rate_find(t, s, h, key, keylen, 1);
	if(e->sec[slot] != now) {
		e->sec[slot] = now;
		e->qps[slot] = 0;
	}
	if(e->qps[slot] < INT32_MAX)
		e->qps[slot]++;
	r = rate_of(e, now, backoff);
	lock_basic_unlock(&s->lock);
	return r;
}

int
rate_table_get(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff)
{
	uint32_t h;
	struct rate_slab *s;
	struct rate_entry *e;
	int r = 0;
	now++; /* as in rate_table_inc */
	if(keylen > t->keymax)
		keylen = t->keymax;
	h = rate_hash(key, keylen);
	s = &t->slab[h & (t->nslabs - 1)];
	lock_basic_lock(&s->lock);
	if((e = rate_find(t, s, h, key, keylen, 0)) != NULL)
		r = rate_of(e, now, backoff);
	lock_basic_unlock(&s->lock);
	return r;
}

void
rate_table_walk(struct rate_table *t, time_t now, int backoff,
	rate_walk_cb cb, void *arg)
{
	size_t i, j;
	now++; /* as in rate_table_inc */
	for(i = 0; i < t->nslabs; i++) {
		struct rate_slab *s = &t->slab[i];
		lock_basic_lock(&s->lock);
		for(j = 0; j < t->nent; j++) {
			struct rate_entry *e = RATE_ENTRY(t, s, j);
			int r;
			if(rate_last(e) == 0)
				continue;
			if((r = rate_of(e, now, backoff)) > 0)
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
