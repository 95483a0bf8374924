/*
 * services/cache/infra.h - the infrastructure cache: what petrel knows
 * about each upstream server.
 *
 * Per server address (address family, address and port): the smoothed
 * round-trip time and its variance, and the retransmission timeout derived
 * from them (RFC 6298: srtt += (R - srtt)/8, rttvar += (|srtt - R| -
 * rttvar)/4, rto = srtt + 4 rttvar, kept within [INFRA_RTO_MIN,
 * INFRA_RTO_MAX]); a server never heard from starts at INFRA_UNKNOWN_RTO
 * (376 ms, as Unbound). A timeout doubles the rto (from the rto the query
 * was sent with) up to INFRA_RTO_MAX and counts the timeouts in a row; an
 * answer resets that count. A timeout of a query sent with less than the
 * current rto (before the last backoff) changes nothing: a burst of
 * queries lost together backs off once. Also kept: whether the server does EDNS
 * (unknown, yes, or no: it answered FORMERR to an EDNS query), and, per
 * server and zone, lameness. Entries expire infra-host-ttl seconds after
 * their last update and are then as if unknown.
 *
 * Server selection (infra_select): among the candidates that are not lame
 * for the zone, take the smallest rto, and pick at random among those
 * within INFRA_RTT_BAND ms of it: fast servers get the traffic, close ones
 * share it, and a server that got better is found again.
 *
 * Shared by forked workers (shared-cache): the same cache on a table in
 * a shared mapping (util/storage/shmhash.h; infra_create_shared); an entry
 * holds no pointer and is copied into the mapping, the update policy runs
 * under the slab lock as with the per-process table.
 *
 * Threads: one shared table (util/storage/slabhash.h). Reads are
 * lock-free copies; an update replaces the entry under the slab lock,
 * computing the new state from the entry then in the table, so concurrent
 * updates of one server are not lost. The caller must be a QSBR reader
 * when other threads write.
 */
#ifndef SERVICES_CACHE_INFRA_H
#define SERVICES_CACHE_INFRA_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct infra_cache;
struct shmhash;
struct netaddr;
struct petrel_random;

/** rto of a server never heard from, ms */
#define INFRA_UNKNOWN_RTO 376
/** smallest rto, ms */
#define INFRA_RTO_MIN 50
/** largest rto (backoff cap), ms; a server at the cap is only probed */
#define INFRA_RTO_MAX 120000
/** servers within this many ms of the best are chosen among at random */
#define INFRA_RTT_BAND 400
/** timeouts in a row after which a server is down: client queries skip
 * it (they fail at once rather than wait on it), and one background
 * probe at a time (infra_probe_claim) asks it until it answers again.
 * Down is per kind of query type (A, AAAA, the others): a server is
 * down for a type only when also that many of its timeouts were of
 * queries of that kind since one of them was last answered, so a server
 * that drops only AAAA queries is still asked for A, as Unbound's
 * timeout_A, timeout_AAAA and timeout_other do */
#define INFRA_DOWN_TIMEOUTS 3

/** the kinds of query type infra_host.type_timeouts counts */
enum infra_timeout_kind {
	/** type A */
	INFRA_TIMEOUT_A = 0,
	/** type AAAA */
	INFRA_TIMEOUT_AAAA,
	/** any other type */
	INFRA_TIMEOUT_OTHER
};

/** EDNS support of a server */
enum infra_edns {
	/** not known yet: try EDNS */
	INFRA_EDNS_UNKNOWN = 0,
	/** answered an EDNS query */
	INFRA_EDNS_YES,
	/** answered FORMERR (or garbage) to EDNS: query it without */
	INFRA_EDNS_NO
};

/** what the cache knows about a server (a copy) */
struct infra_host {
	/** smoothed RTT in ms, -1 when no sample yet */
	int srtt;
	/** RTT variance in ms */
	int rttvar;
	/** the timeout to use for the next query, ms */
	int rto;
	/** timeouts in a row */
	int timeouts;
	/** timeouts of A, AAAA and other queries (by enum
	 * infra_timeout_kind) since that kind was last answered, each
	 * counted up to INFRA_DOWN_TIMEOUTS */
	int type_timeouts[3];
	/** EDNS support */
	enum infra_edns edns;
	/** when this entry expires */
	time_t expire;
	/** a down server: no new probe before this time (infra_probe_claim) */
	time_t probe_at;
};

/**
 * Create an infrastructure cache.
 * @param maxmem: byte budget.
 * @param slabs: slabs, a power of two.
 * @param host_ttl: infra-host-ttl, seconds.
 * @return the cache or NULL when out of memory.
 */
struct infra_cache *infra_create(size_t maxmem, size_t slabs,
	uint32_t host_ttl);

/** Delete the cache; no thread may use it any more. NULL is allowed. */
void infra_delete(struct infra_cache *c);

/** @return the bytes of shared mapping a shared infrastructure cache
 *	needs */
size_t infra_shared_space(size_t maxmem, size_t slabs);

/**
 * Make the shared table of an infrastructure cache in a mapping (set-up,
 * before the fork). @return its offset, or 0 when it does not fit.
 */
uint64_t infra_shared_init(void *base, size_t maxmem, size_t slabs);

/**
 * An infrastructure cache handle of this process on a shared table
 * (infra_delete frees only the handle).
 * @return the handle or NULL.
 */
struct infra_cache *infra_create_shared(void *base, uint64_t off,
	uint32_t host_ttl);

/** @return the shared table, or NULL when the cache is per-process */
struct shmhash *infra_shared_table(struct infra_cache *c);

/**
 * Set the limits of the rto (infra-cache-min-rtt, infra-cache-max-rtt;
 * INFRA_RTO_MIN and INFRA_RTO_MAX by default). Later updates keep every
 * rto within them (reload, no worker running).
 * @param min_ms: the least rto, ms (at least 1).
 * @param max_ms: the largest, ms (raised to min_ms if below).
 */
void infra_set_rtt_limits(struct infra_cache *c, int min_ms, int max_ms);

/** the most servers fast-server-num may name */
#define INFRA_FAST_MAX 64

/**
 * fast-server-permil and fast-server-num: permil times in 1000,
 * infra_select picks at random among the num candidates with the
 * smallest rto instead of within the RTT band (0: never, the default).
 * @param num: 1 to INFRA_FAST_MAX (clamped).
 * @param permil: 0 to 1000 (clamped).
 */
void infra_set_fast(struct infra_cache *c, int num, int permil);

/**
 * Set the rto of a server never heard from (unknown-server-time-limit;
 * INFRA_UNKNOWN_RTO by default): how long its first query waits. Kept
 * within the rto limits when asked with infra_get_rto.
 * @param ms: milliseconds (0 or less for the default).
 */
void infra_set_unknown_rto(struct infra_cache *c, int ms);

/** @return the byte budget that holds n servers (infra-cache-numhosts;
 *	a server's lameness for a zone is an entry too) */
size_t infra_mem_for_hosts(size_t n);

/** Change the budget and host TTL (reload, no worker running). */
void infra_set_params(struct infra_cache *c, size_t maxmem,
	uint32_t host_ttl);

/**
 * Get what is known about a server.
 * @param out: filled in; the defaults for an unknown server (srtt -1, rto
 *	INFRA_UNKNOWN_RTO, EDNS unknown) when there is no live entry.
 * @return 0 when there was a live entry, -1 when unknown.
 */
int infra_host_get(struct infra_cache *c, const struct netaddr *addr,
	time_t now, struct infra_host *out);

/** @return the timeout to use for the next query to addr, ms */
int infra_get_rto(struct infra_cache *c, const struct netaddr *addr,
	time_t now);

/**
 * Record the outcome of a query.
 * @param qtype: the type of the query (its kind's timeouts are counted,
 *	or cleared by an answer).
 * @param rtt_ms: the measured round-trip time, or -1 for a timeout.
 * @param orig_rto: the rto the cache gave for the query (for the backoff;
 *	the caller may have sent it with a shorter timeout).
 */
void infra_rtt_update(struct infra_cache *c, const struct netaddr *addr,
	uint16_t qtype, int rtt_ms, int orig_rto, time_t now);

/** @return 1 when the server is down for queries of type qtype
 * (INFRA_DOWN_TIMEOUTS timeouts in a row, and as many of queries of
 * qtype's kind; entry live), else 0 */
int infra_is_down(struct infra_cache *c, const struct netaddr *addr,
	uint16_t qtype, time_t now);

/**
 * Claim the probe of a down server (INFRA_DOWN_TIMEOUTS timeouts in a
 * row, of any type): one caller at a time (over threads and forked
 * workers: decided under the slab lock) gets to send it.
 * @param secs: seconds before the next claim may succeed (the probe's
 *	timeout, rounded up).
 * @return 1 when this caller should send the probe, 0 when a probe was
 *	claimed less than its secs ago.
 */
int infra_probe_claim(struct infra_cache *c, const struct netaddr *addr,
	time_t now, int secs);

/** Record EDNS support (INFRA_EDNS_YES or INFRA_EDNS_NO). */
void infra_edns_update(struct infra_cache *c, const struct netaddr *addr,
	enum infra_edns edns, time_t now);

/**
 * Mark a server lame for a zone (it answered without authority for it).
 * @param zone: the zone, uncompressed wire format, any case.
 */
void infra_set_lame(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, time_t now);

/** @return 1 when addr is (still) lame for zone, else 0 */
int infra_is_lame(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, time_t now);

/**
 * Pick a server.
 * @param cands: candidate addresses.
 * @param n: how many.
 * @param zone: the zone asked (lame servers for it are skipped); NULL to
 *	skip no one.
 * @param now: the time.
 * @param rnd: the worker's random generator.
 * @param rto_out: if not NULL, the rto to use for the chosen one.
 * @return the index of the chosen candidate, or -1 when there is none
 *	(n is 0 or every candidate is lame).
 */
int infra_select(struct infra_cache *c, const struct netaddr *cands,
	size_t n, const uint8_t *zone, time_t now, struct petrel_random *rnd,
	int *rto_out);

/** Remove everything. */
void infra_flush_all(struct infra_cache *c);

/** Remove what is known about one address (all zones). @return removed */
size_t infra_flush_addr(struct infra_cache *c, const struct netaddr *addr);

/** what infra_traverse gives for each entry */
struct infra_dump_entry {
	/** the server's address as text ("192.0.2.1" or "2001:db8::1") */
	char addr[64];
	/** its port */
	int port;
	/** the zone of a lameness entry (wire format), NULL for a host */
	const uint8_t *zone;
	/** 1 for a lameness entry */
	int lame;
	/** the state */
	struct infra_host host;
};

/**
 * Walk every entry, expired ones included (for dump_infra). Runs under
 * each slab's lock in turn: fn must not call into the cache.
 * @param fn: called with each entry (valid during the call) and arg.
 */
void infra_traverse(struct infra_cache *c,
	void (*fn)(const struct infra_dump_entry *e, void *arg), void *arg);

/** @return number of entries */
size_t infra_get_count(struct infra_cache *c);

/** @return bytes in use */
size_t infra_get_mem(struct infra_cache *c);

#endif /* SERVICES_CACHE_INFRA_H */
