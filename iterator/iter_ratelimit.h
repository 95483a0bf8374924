/*
 * iterator/iter_ratelimit.h - ratelimit: queries per second the iterator
 * sends to the servers of one zone.
 *
 * The zone is the delegation point a query goes to (its name, lower
 * case), as in Unbound. Its limit is the ratelimit-for-domain of that
 * exact name, else the ratelimit-below-domain of its closest strict
 * ancestor listed, else ratelimit; a limit of 0 is no limit. As in
 * Unbound, the per-domain lines only act while ratelimit is on. The rates
 * are kept in a util/ratelimit table (bounded, slab-locked) shared by the
 * workers of a process; it is made by the iterator's init() and lives
 * with the iterator's settings. Only queries that go upstream touch it:
 * the cached path never does.
 */
#ifndef ITERATOR_ITER_RATELIMIT_H
#define ITERATOR_ITER_RATELIMIT_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct config_file;
struct petrel_random;
struct rate_table;

/** the zone rate limits (opaque) */
struct iter_ratelimit;

/**
 * Build the limits and the table from the config.
 * @param cfg: the config.
 * @param out: the result; NULL when ratelimit is 0 (off).
 * @param err: a message on failure; errlen its size.
 * @return 0, or -1 (bad line or out of memory).
 */
int iter_ratelimit_create(const struct config_file *cfg,
	struct iter_ratelimit **out, char *err, size_t errlen);

/** Free (NULL is fine). */
void iter_ratelimit_delete(struct iter_ratelimit *rl);

/** @return the limit (queries per second, 0 none) of a zone (wire name,
 * lower case) */
int iter_ratelimit_limit(const struct iter_ratelimit *rl,
	const uint8_t *zone);

/**
 * Count a query about to be sent to a zone's servers and decide.
 * @param rl: the limits.
 * @param zone: the zone (wire, lower case).
 * @param now: the current second.
 * @param rnd: random numbers for ratelimit-factor.
 * @return 1 to send it, 0 when it is over the limit (and not the 1 in
 *	ratelimit-factor let through).
 */
int iter_ratelimit_ok(struct iter_ratelimit *rl, const uint8_t *zone,
	time_t now, struct petrel_random *rnd);

/** Called by iter_ratelimit_walk: a zone (presentation format), its
 * rate and its limit. */
typedef void (*iter_ratelimit_cb)(const char *zone, int rate, int limit,
	void *arg);

/**
 * Visit the zones with a rate: all of them (all = 1) or those over their
 * limit (ratelimit_list).
 */
void iter_ratelimit_walk(struct iter_ratelimit *rl, time_t now, int all,
	iter_ratelimit_cb cb, void *arg);

/** @return the bytes held */
size_t iter_ratelimit_mem(const struct iter_ratelimit *rl);

#endif /* ITERATOR_ITER_RATELIMIT_H */
