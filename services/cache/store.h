/*
 * services/cache/store.h - the one store path of a finished answer.
 *
 * When a query is finished (the answer has come back up the module chain
 * to the front end, or a sub-query's answer to the mesh), its answer is
 * stored once, from the records as the modules hold them (already parsed
 * by dns/ from the upstream replies, never parsed again):
 *   - each RRset a module marked for it (a trust rank, set by the
 *     iterator on the answer records it got from an authoritative or
 *     forwarding server) goes into the RRset cache, with the RRSIGs of
 *     the answer that cover it and the security status the validator
 *     gave it: a secure set with its RRSIGs is stored secure with trust
 *     RRSET_TRUST_VALIDATED (as Unbound's validator updates its RRset
 *     cache); one without them (the answer to a query without DO) keeps
 *     its trust and is stored unchecked, so that the signed copy of a DO
 *     answer replaces it (higher trust) and is never replaced by it
 *     (lower trust);
 *   - each RRset of the message that did not go into the RRset cache
 *     now (unmarked, or the cache kept its copy: the trust rules of
 *     rrset.h) and that the cache holds, live, with the same RDATA
 *     takes the cached set's remaining TTL (with its RRSIGs): the
 *     message must not outlive the sets it is made of
 *     (an NS set kept from an earlier answer, expiring sooner), as
 *     Unbound's message cache refers to its RRset cache's sets; not the
 *     SOA, NSEC and NSEC3 sets of negative answers, whose TTL is the
 *     negative one, and not with serve-original-ttl;
 *   - the whole answer goes into the message cache: it is encoded into
 *     the caller's buffer and, as each RR is written, its offsets are
 *     recorded; the message cache takes that record (mcache_store_msg)
 *     instead of parsing the message it would otherwise get.
 * The message entry is then what every waiting client is answered from
 * (mcache_answer, the cache hit's code).
 *
 * It allocates nothing itself beyond what the caches store, unless the
 * answer has more RRs than a message parse holds inline
 * (DNS_MSG_INLINE_RRS): then the record array comes from the region the
 * caller passes (the query state's).
 */
#ifndef SERVICES_CACHE_STORE_H
#define SERVICES_CACHE_STORE_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include "services/cache/msgcache.h"

struct rrset_cache;
struct query_info;
struct region;

/** seconds before their expiry that a refresh (prefetch, serve-expired)
 * replaces cached RRsets (cache_answer.leeway), as Unbound's
 * PREFETCH_LEEWAY: the refreshed answer is not made of sets about to
 * expire */
#define CACHE_REFRESH_LEEWAY 400

/** one RRset of an answer, by reference (nothing is copied) */
struct cache_rrset {
	/** owner name, uncompressed wire, letter case as received */
	const uint8_t *owner;
	/** its length */
	size_t owner_len;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** the TTL written for every RR (the smallest of the set) */
	uint32_t ttl;
	/** section: DNS_SEC_ANSWER, DNS_SEC_AUTHORITY, DNS_SEC_ADDITIONAL;
	 *  never lower than the previous set's */
	uint8_t section;
	/** trust rank (enum rrset_trust) to store it in the RRset cache
	 *  with; RRSET_TRUST_NONE: not for the RRset cache */
	uint8_t trust;
	/** its DNSSEC status (enum rrset_security), kept with it in the
	 *  RRset cache (secure only with its RRSIGs in the answer: then with
	 *  trust RRSET_TRUST_VALIDATED) */
	uint8_t sec;
	/** number of RRs */
	size_t count;
	/** their RDATA, uncompressed */
	const uint8_t *const *rdata;
	/** their lengths */
	const uint16_t *rdlen;
};

/** a finished answer to store */
struct cache_answer {
	/** the question (lower-cased name and its hash) */
	const struct query_info *qinfo;
	/** rcode */
	int rcode;
	/** the DO and CD bits of the queries it answers (message cache
	 *  key) */
	int do_bit, cd_bit;
	/** MCACHE_SHARE_CD | MCACHE_SHARE_DO: the message also serves
	 *  queries with the other CD or DO bit (mcache_store_msg_share) */
	int share;
	/** DNSSEC status of the message */
	enum mcache_security sec;
	/** Extended DNS Error for answers from it, or -1 */
	int ede;
	/** the RRsets, in message order */
	const struct cache_rrset *sets;
	/** how many */
	size_t nsets;
	/** a refresh (prefetch, serve-expired): seconds before their
	 *  expiry cached sets are replaced (rrset_cache_store_leeway);
	 *  0 for an answer a client waits for */
	time_t leeway;
	/** when the query started (rrset_cache_store_answer), 0: not
	 *  known (now) */
	time_t qstart;
};

/**
 * Store a finished answer: its marked RRsets in the RRset cache, the
 * message in the message cache.
 * @param mc: message cache, NULL for none.
 * @param rc: RRset cache, NULL for none.
 * @param a: the answer.
 * @param now: the worker's clock.
 * @param buf: scratch space to encode the message in (its contents are
 *	undefined afterwards).
 * @param bufsize: its size (DNS_MAX_MSG; a larger answer is not stored).
 * @param region: for the RR record array of a large answer (more than
 *	DNS_MSG_INLINE_RRS RRs); may be NULL (then such answers are not
 *	stored in the message cache).
 * @return the message cache's result (MCACHE_STORED when the message is
 *	stored; MCACHE_NOT_CACHEABLE without a message cache), or
 *	MCACHE_STORED_HELD: stored, and a set of it went into the RRset
 *	cache with an older set's shorter expiry (rrset_cache_store_held):
 *	the message has the answer's TTLs for the clients waiting for it;
 *	storing the answer again once they are answered gives it that
 *	set's TTL and expiry for later hits (the set is then the cache's).
 */
enum mcache_store_result cache_store_answer(struct mcache *mc,
	struct rrset_cache *rc, const struct cache_answer *a, time_t now,
	uint8_t *buf, size_t bufsize, struct region *region);

/**
 * Store the answer of the last name a CNAME chain reaches as a message of
 * its own, keyed by that name's question (the same type and class), as
 * Unbound's iterator stores the reply for each name it chases: a later
 * question for the target is then answered from the message cache, and
 * only DS, DNSKEY, CNAME and chased questions are answered from the
 * RRset cache (iterator/iterator.c). The chain is followed in the answer
 * section from the question name through the CNAME sets (DNAMEs come
 * with their CNAME); the target's message holds the answer section's
 * sets owned by the target and every authority and additional set, with
 * the answer's rcode, DO and CD bits, sharing and EDE. Its sets go to no
 * cache themselves (they went with the answer): each takes the RRset
 * cache's TTL where the cache holds it (as cache_store_answer). Its
 * security: that of a secure or unchecked answer; an insecure answer
 * gives an insecure target only when a set of the target's part (answer
 * and authority) is not secure (insecure, or unchecked: not validated,
 * as without trust anchors); when all are secure the target may be
 * secure on its own, and is left for a query of its own; a bogus or
 * indeterminate answer stores nothing. Nothing is stored without a
 * chain, for CNAME and DNAME questions, for rcodes the message cache
 * does not keep, or when the message cache holds a fresh answer for the
 * target's key already (its own, or one that serves it; for a refresh,
 * one with more than its leeway left): Unbound's iterator answers the
 * chased name from that message, so stores none, and the entry keeps
 * its expiry.
 * @param mc: message cache.
 * @param rc: RRset cache, NULL for none.
 * @param a: the answer (as stored for its question).
 * @param now, buf, bufsize, region: as cache_store_answer (region is
 *	also where the target's set array is made).
 * @return as cache_store_answer; MCACHE_NOT_CACHEABLE when nothing was
 *	to be stored.
 */
enum mcache_store_result cache_store_chain_target(struct mcache *mc,
	struct rrset_cache *rc, const struct cache_answer *a, time_t now,
	uint8_t *buf, size_t bufsize, struct region *region);

#endif /* SERVICES_CACHE_STORE_H */
