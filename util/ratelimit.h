/*
 * util/ratelimit.h - a bounded table of per-key query rates (queries per
 * second), for ip-ratelimit (key: the client address) and ratelimit (key:
 * the zone whose servers are asked).
 *
 * Rates follow Unbound's semantics. Each entry keeps two one-second
 * counters, indexed by the parity of the second, with the second each
 * holds. Counting a query bumps the counter of the current second (reset
 * first when it holds an older second). The rate compared with the limit
 * is the current second's count; with backoff, the largest count of the
 * last two seconds, so a client that keeps sending over the limit stays
 * limited (its refused queries are counted too) until its demand falls
 * below the limit for a whole window.
 *
 * Memory and work are bounded: the table is a fixed array of fixed-size
 * entries made at creation (size in bytes, as ratelimit-size), split into
 * slabs (a power of two). A key hashes to a slab and to a home slot; it
 * lives in one of RATE_PROBE slots from there. A new key takes a free
 * slot or, when all are taken, the one with the oldest activity (the
 * table forgets the quietest keys first).
 *
 * Locking: counting a known key takes no lock. Its entry is found by
 * comparing hash and key bytes, and each one-second counter is one 64-bit
 * word (second and count) bumped with a compare-and-swap. Only taking an
 * entry for a new key locks the slab (a mutex per slab), and an entry is
 * rewritten by clearing its hash first and publishing the new hash last,
 * so a lock-free reader never counts into another key's entry except in
 * the instant of a rewrite (a count may be lost then; the rates are
 * estimates). Walks lock one slab at a time. The table is shared by all
 * workers of a process.
 */
#ifndef UTIL_RATELIMIT_H
#define UTIL_RATELIMIT_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct rate_table;

/** slots a key may live in, from its home slot */
#define RATE_PROBE 8

/**
 * Make a table.
 * @param bytes: memory for the entries (at least one slab of RATE_PROBE
 *	entries is made whatever the size).
 * @param slabs: number of slabs, a power of 2 (others are rounded down).
 * @param keymax: the longest key, in bytes (16 for addresses, 255 for
 *	names).
 * @return the table, or NULL when out of memory.
 */
struct rate_table *rate_table_create(size_t bytes, int slabs, size_t keymax);

/** Free a table (NULL is fine). */
void rate_table_delete(struct rate_table *t);

/**
 * Count one query for a key and return its rate after counting.
 * @param t: the table.
 * @param key: the key bytes; keylen its length (longer than the table's
 *	keymax is cut there).
 * @param now: the current second.
 * @param backoff: 1 for the backoff rate (largest of the window).
 * @return the rate (queries per second) including this query.
 */
int rate_table_inc(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff);

/**
 * The rate of a key without counting (0 when it is not in the table).
 */
int rate_table_get(struct rate_table *t, const uint8_t *key, size_t keylen,
	time_t now, int backoff);

/** Called for each key with a rate above 0 by rate_table_walk. */
typedef void (*rate_walk_cb)(const uint8_t *key, size_t keylen, int rate,
	void *arg);

/**
 * Visit every key with a non-zero rate (one slab locked at a time; the
 * callback must not call into the table).
 */
void rate_table_walk(struct rate_table *t, time_t now, int backoff,
	rate_walk_cb cb, void *arg);

/** @return the number of entries (slots) of the table */
size_t rate_table_capacity(const struct rate_table *t);

/** @return the bytes the table holds */
size_t rate_table_mem(const struct rate_table *t);

#endif /* UTIL_RATELIMIT_H */
