/*
 * services/cache/rrset.h - the RRset cache.
 *
 * One entry per RRset: owner name (lower-cased), type and class as the key;
 * the RDATA of each RR in uncompressed wire format, the RRSIGs that cover
 * the set (kept with it), one TTL for the set (RFC 2181 5.2: the smallest),
 * its absolute expiry, a trust rank and a DNSSEC status. The iterator uses
 * it to find the closest delegation (the NS set of the longest cached
 * ancestor of a name, with the A/AAAA sets of the server names) and cached
 * CNAMEs and answers.
 *
 * Trust (RFC 2181 5.4.1), lowest to highest: additional section of a
 * non-authoritative answer; authority section of a non-authoritative
 * answer (a referral's NS set); additional section of an authoritative
 * answer (glue); answer section of a non-authoritative answer; authority
 * section of an authoritative answer; answer section of an authoritative
 * answer; validated (DNSSEC secure). An update:
 *   - replaces an expired entry whatever its trust;
 *   - never replaces a live entry with lower-trust data;
 *   - with equal trust and identical RDATA, keeps the old entry (a
 *     re-received set does not get a longer life);
 *   - otherwise replaces it, but an NS set, or an A/AAAA set of lower
 *     trust than the answer of an authoritative reply (glue), keeps the
 *     old expiry unless the new data comes authoritatively from the
 *     child (trust RRSET_TRUST_AUTH_AA or above); the child's A/AAAA
 *     set keeps it too when it replaces glue with the same addresses
 *     (the child's TTL does not renew a delegation's glue:
 *     ghost_glue_a.rpl), and an NS set of no
 *     higher trust than the old one keeps it even then (the child's
 *     changed NS set: a domain moved away is not kept alive by its old
 *     servers): no "ghost domains", where a revoked delegation lives on
 *     because its servers keep re-sending it.
 *
 * Shared by forked workers (shared-cache): the same cache on a table in
 * a shared mapping (util/storage/shmhash.h; rrset_cache_create_shared);
 * an entry holds no pointer and is copied into the mapping on store; the
 * insert policy runs under the slab lock as with the per-process table.
 *
 * Threads: the table is the shared slabbed table (util/storage/slabhash.h);
 * lookups are lock-free and copy the set into the caller's region, so the
 * copy stays valid as long as the region (across event-loop iterations);
 * the caller must be a QSBR reader when other threads write. Stores and
 * flushes take the slab lock.
 */
#ifndef SERVICES_CACHE_RRSET_H
#define SERVICES_CACHE_RRSET_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct rrset_cache;
struct shmhash;
struct region;
struct dns_msg;
struct dns_rrset;

/** trust ranks, low to high (RFC 2181 5.4.1) */
enum rrset_trust {
	/** nothing */
	RRSET_TRUST_NONE = 0,
	/** additional section of a non-authoritative answer */
	RRSET_TRUST_ADD_NOAA,
	/** authority section of a non-authoritative answer (referral NS) */
	RRSET_TRUST_AUTH_NOAA,
	/** additional section of an authoritative answer (glue) */
	RRSET_TRUST_ADD_AA,
	/** answer section of a non-authoritative answer */
	RRSET_TRUST_ANS_NOAA,
	/** authority section of an authoritative answer */
	RRSET_TRUST_AUTH_AA,
	/** answer section of an authoritative answer */
	RRSET_TRUST_ANS_AA,
	/** DNSSEC validated secure */
	RRSET_TRUST_VALIDATED
};

/** DNSSEC status of an RRset (same values as enum mcache_security) */
enum rrset_security {
	/** not validated */
	RRSET_SEC_UNCHECKED = 0,
	/** insecure */
	RRSET_SEC_INSECURE,
	/** secure */
	RRSET_SEC_SECURE,
	/** bogus */
	RRSET_SEC_BOGUS
};

/**
 * An RRset by value: what rrset_cache_store takes and what the lookups
 * fill in (then everything points into the caller's region).
 */
struct rrset_data {
	/** owner name, uncompressed wire format (any case on store,
	 *  lower-cased on lookup) */
	const uint8_t *name;
	/** its length */
	size_t name_len;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** store: the TTL as received (the smallest of the set);
	 *  lookup: the remaining seconds */
	uint32_t ttl;
	/** lookup: absolute expiry (ignored on store) */
	time_t expire;
	/** trust rank */
	enum rrset_trust trust;
	/** DNSSEC status */
	enum rrset_security sec;
	/** number of RRs */
	size_t count;
	/** number of RRSIGs covering the set (after the RRs in rdata) */
	size_t sig_count;
	/** count + sig_count RDATA, uncompressed */
	const uint8_t *const *rdata;
	/** their lengths */
	const uint16_t *rdlen;
};

/** a delegation found in the cache */
struct rrset_delegation {
	/** the NS set; its owner is the zone cut */
	struct rrset_data ns;
	/** the A and AAAA sets found for the NS names (in the region) */
	struct rrset_data *glue;
	/** how many */
	size_t glue_count;
};

/** seconds after its store time a DNAME received with TTL 0 is still
 * given out (with TTL 0) by the lookups */
#define RRSET_ZERO_TTL_GRACE 1

/** rrset_cache_store result: stored (new or replacing) */
#define RRSET_STORED 1
/** rrset_cache_store result: the cached set was kept (trust rules) */
#define RRSET_KEPT 0
/** rrset_cache_store result: not cacheable (TTL 0) or bad input */
#define RRSET_NOT_STORED -1

/**
 * Create an RRset cache.
 * @param maxmem: byte budget (rrset-cache-size).
 * @param slabs: slabs (rrset-cache-slabs), a power of two.
 * @param min_ttl: cache-min-ttl.
 * @param max_ttl: cache-max-ttl.
 * @return the cache or NULL when out of memory.
 */
struct rrset_cache *rrset_cache_create(size_t maxmem, size_t slabs,
	uint32_t min_ttl, uint32_t max_ttl);

/** Delete the cache; no thread may use it any more. NULL is allowed. */
void rrset_cache_delete(struct rrset_cache *c);

/** @return the bytes of shared mapping a shared RRset cache needs */
size_t rrset_cache_shared_space(size_t maxmem, size_t slabs);

/**
 * Make the shared table of an RRset cache in a mapping (set-up, before
 * the fork). @return its offset, or 0 when it does not fit.
 */
uint64_t rrset_cache_shared_init(void *base, size_t maxmem, size_t slabs);

/**
 * An RRset cache handle of this process on a shared table
 * (rrset_cache_delete frees only the handle).
 * @return the handle or NULL.
 */
struct rrset_cache *rrset_cache_create_shared(void *base, uint64_t off,
	uint32_t min_ttl, uint32_t max_ttl);

/** @return the shared table, or NULL when the cache is per-process */
struct shmhash *rrset_cache_shared_table(struct rrset_cache *c);

/** Change the budget and TTL bounds (reload, no worker running). */
void rrset_cache_set_params(struct rrset_cache *c, size_t maxmem,
	uint32_t min_ttl, uint32_t max_ttl);

/**
 * Store an RRset under the trust rules above.
 * @param c: cache.
 * @param rs: the set (copied). rs->ttl is the received TTL; it is clamped
 *	to [cache-min-ttl, cache-max-ttl]; TTL 0 is not stored, except for
 *	a DNAME: that one is looked up (with TTL 0) for
 *	RRSET_ZERO_TTL_GRACE seconds after now, as Unbound keeps a TTL-0
 *	DNAME for the synthesis of the names below it.
 * @param now: the time.
 * @return RRSET_STORED, RRSET_KEPT or RRSET_NOT_STORED.
 */
int rrset_cache_store(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now);

/**
 * Store an RRset as rrset_cache_store does, from a refresh (prefetch,
 * serve-expired): a cached set that expires within leeway seconds counts
 * as expired and is replaced whatever its trust, as Unbound's refresh
 * stores (PREFETCH_LEEWAY; Unbound spares NS sets not from the parent
 * side, but the NS sets that reach this path are the zone's own, from
 * the server asked: iter_ghost_sub.rpl, iter_prefetch.rpl).
 */
int rrset_cache_store_leeway(struct rrset_cache *c,
	const struct rrset_data *rs, time_t now, time_t leeway);

/**
 * Store an RRset of a finished answer as rrset_cache_store_leeway does,
 * knowing when the query started: a cached NS set that was still live
 * then is not replaced as expired (the time window of a query that ran
 * across the delegation's expiry), so an answer that arrives after the
 * delegation expired does not renew it with the child's equal set (a
 * ghost domain: iter_ghost_timewindow.rpl), as Unbound compares NS sets
 * at the query's start time.
 * @param qstart: when the query started; 0 (or later than now): now.
 */
int rrset_cache_store_answer(struct rrset_cache *c,
	const struct rrset_data *rs, time_t now, time_t leeway,
	time_t qstart);

/**
 * As rrset_cache_store_answer, and say whether the set went in with an
 * older set's shorter expiry (the ghost rules above: an NS set, or an
 * address set replacing glue of the same data).
 * @param held: set to 1 when so, else 0.
 */
int rrset_cache_store_held(struct rrset_cache *c,
	const struct rrset_data *rs, time_t now, time_t leeway,
	time_t qstart, int *held);

/**
 * Store the parent-side copy of an address set: the glue a referral gave
 * for an NS name, kept apart from the name's own set (which the child's
 * answer for the name replaces), as Unbound keeps parent-side RRsets:
 * when the child's address for a server fails, the parent's may still
 * work (the iterator's last resort, iter_pcnamerec.rpl). The trust rules
 * apply among copies. Lookups other than rrset_cache_lookup_pside and
 * cache dumps do not see them; flushes remove them with the set.
 * @return RRSET_STORED, RRSET_KEPT or RRSET_NOT_STORED.
 */
int rrset_cache_store_pside(struct rrset_cache *c,
	const struct rrset_data *rs, time_t now);

/** Look up a live parent-side copy (rrset_cache_store_pside), as
 * rrset_cache_lookup does. @return 0, or -1 when there is none */
int rrset_cache_lookup_pside(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass, time_t now, struct region *region,
	struct rrset_data *out);

/**
 * Look up a live (unexpired) RRset and copy it into region.
 * @param name: owner, uncompressed, any case.
 * @param out: filled in, pointing into region.
 * @return 0, or -1 when absent, expired or out of memory.
 */
int rrset_cache_lookup(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass, time_t now, struct region *region,
	struct rrset_data *out);

/**
 * Find the closest cached delegation for a name: the live NS set of the
 * name itself or its nearest ancestor, and the live A/AAAA sets of its
 * server names.
 * @param qname: the name (any case).
 * @param qclass: class.
 * @param now: the time.
 * @param region: where the copies go.
 * @param out: filled in.
 * @return 0, or -1 when no ancestor (not even the root) has a live NS set.
 */
int rrset_cache_find_delegation(struct rrset_cache *c, const uint8_t *qname,
	uint16_t qclass, time_t now, struct region *region,
	struct rrset_delegation *out);

/**
 * Build an rrset_data from an RRset of a parsed message (for store):
 * RDATA decompressed into region.
 * @param msg: the parsed message (dns_msg_group_rrsets done).
 * @param set: the RRset.
 * @param sigs: the RRSIG set covering it, or NULL.
 * @param trust: trust to record.
 * @param region: scratch memory for the result.
 * @param out: filled in.
 * @return 0 or -1 (out of memory, malformed).
 */
int rrset_data_from_msg(const struct dns_msg *msg,
	const struct dns_rrset *set, const struct dns_rrset *sigs,
	enum rrset_trust trust, struct region *region, struct rrset_data *out);

/** Remove every set owned by name (any type). @return sets removed */
size_t rrset_cache_flush_name(struct rrset_cache *c, const uint8_t *name);

/** Remove the set name/type/class. @return 1 if removed, else 0 */
size_t rrset_cache_flush_type(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass);

/** Remove every set at or below zone. @return sets removed */
size_t rrset_cache_flush_zone(struct rrset_cache *c, const uint8_t *zone);

/** Remove everything. */
void rrset_cache_flush_all(struct rrset_cache *c);

/**
 * Dump callback: called under a slab lock with a set whose pointers are
 * only valid during the call (ttl = remaining seconds, 0 when expired).
 */
typedef void (*rrset_traverse_func)(const struct rrset_data *rs, void *arg);

/**
 * Call fn for every set (dump_cache).
 * @return 0, or -1 when out of memory.
 */
int rrset_cache_traverse(struct rrset_cache *c, time_t now,
	rrset_traverse_func fn, void *arg);

/** @return bytes in use */
size_t rrset_cache_get_mem(struct rrset_cache *c);

/** @return number of sets */
size_t rrset_cache_get_count(struct rrset_cache *c);

#endif /* SERVICES_CACHE_RRSET_H */
