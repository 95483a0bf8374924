/*
 * iterator/iter_env.h - what the iterator knows before it asks anyone:
 * root hints, forward and stub zones, and its settings.
 *
 * The environment is built once at config load and read without locks by
 * every worker. Delegation points (struct delegpt) for one resolution are
 * copied from it into the mesh state's region, and grow there (addresses
 * of NS names learnt from glue and sub-queries, servers marked bad).
 */
#ifndef ITERATOR_ITER_ENV_H
#define ITERATOR_ITER_ENV_H

#include <stdint.h>
#include <stddef.h>
#include "util/netaddr.h"

struct region;
struct config_file;
struct iter_ratelimit;

/** a name server name of a delegation */
struct delegpt_ns {
	/** next in list */
	struct delegpt_ns *next;
	/** name, lower case wire format */
	uint8_t *name;
	/** its length */
	size_t len;
	/** 1 when a sub-query for its address was started (or glue seen) */
	int resolved;
	/** 1 when its address lookup is in flight */
	int pending;
	/** the parent zone's glue for it, seen by its address lookup (in
	 * the region; the last resort when its own zone's answer fails) */
	struct netaddr *parent;
	/** number of addresses in parent */
	int parent_n;
	/** 1 when its A record was looked up (next: AAAA) */
	int tried_a;
	/** 1 when its AAAA record was looked up */
	int tried_aaaa;
	/** 1 when an IPv4 address of it is known (glue, cache, lookup) */
	int got4;
	/** 1 when an IPv6 address of it is known */
	int got6;
	/** 1 when its A record was looked up from the parent side (the
	 * last resort, iter_start_pside_targets) */
	int done_pside4;
	/** 1 when its AAAA record was looked up from the parent side */
	int done_pside6;
	/** 1 when one of its address lookups (A or AAAA, not from the
	 * parent side) was not answered from the message cache: it went
	 * upstream, so the name keeps its place in the NXNS bound */
	int asked_upstream;
};

/** a server address of a delegation */
struct delegpt_addr {
	/** next in list */
	struct delegpt_addr *next;
	/** address and port */
	struct netaddr addr;
	/** queries sent to it for this state */
	int attempts;
	/** of those, how many timed out */
	int timeouts;
	/** 1 when it failed (timeout, lame, garbage) for this state */
	int bad;
	/** 1 when it does not do EDNS (FORMERR to EDNS) */
	int noedns;
	/** 1 when it truncated a reply: ask over TCP */
	int tcp;
	/** the NS name it is glue for (the referral's), or NULL */
	const uint8_t *glue_of;
	/** 1 when it answered as a recursive server (RA, no AA): the last
	 * resort, asked again with RD, its answer taken as it is */
	int reclame;
	/** 1 when it was asked so (once) */
	int rd_chased;
	/** 1 when it answered without signatures for a zone whose answers
	 * must be signed (dnssec lame): the other servers first; the last
	 * resort, its reply then taken as it is (the validator judges) */
	int dnsseclame;
	/** 1 when it was asked so (once) */
	int dnssec_chased;
};

/** a delegation point: a zone and its servers */
struct delegpt {
	/** zone name, lower case wire */
	uint8_t *name;
	/** its length */
	size_t len;
	/** NS names */
	struct delegpt_ns *nslist;
	/** addresses */
	struct delegpt_addr *addrs;
	/** 1 for a forward zone (RD set, answers taken as is) */
	int is_forward;
	/** 1 for a stub zone */
	int is_stub;
	/** forward-first / stub-first: fall back to full recursion */
	int first;
	/** forward-tcp-upstream / stub-tcp-upstream: TCP only */
	int tcp;
	/** forward-no-cache / stub-no-cache: nothing learnt from its
	 * servers is cached; so is every delegation below it */
	int no_cache;
	/** number of NS names whose lookup was started */
	int targets_started;
	/** 1 when target-fetch-policy's lookups ahead were considered */
	int fetched_ahead;
	/** 1 when the cache was searched for its servers' addresses as a
	 * last resort (parent-side glue) */
	int parent_glue_done;
	/** 1 when it came from the RRset cache */
	int from_cache;
	/** 1 when its answers must be signed: a trust anchor sits at the
	 * zone, or its referral (or the cache) holds its DS set */
	int dnssec_expected;
	/** when its NS set expires (from the cache, or a referral's TTL),
	 * 0 for a configured one (hints, stub, forward): a delegation
	 * below it learnt from its servers expires no later */
	time_t expire;
};

/** a configured forward or stub zone */
struct iter_zone {
	/** next in list */
	struct iter_zone *next;
	/** zone name, lower case wire */
	uint8_t name[256];
	/** its length */
	size_t len;
	/** 1 forward, 0 stub */
	int is_forward;
	/** forward-first / stub-first */
	int first;
	/** stub-prime */
	int prime;
	/** forward-tcp-upstream / stub-tcp-upstream */
	int tcp;
	/** forward-no-cache / stub-no-cache */
	int no_cache;
	/** server addresses (forward-addr / stub-addr) */
	struct netaddr addrs[32];
	/** number of addresses */
	int num_addrs;
	/** server names (forward-host / stub-host), wire, lower case */
	uint8_t hosts[8][256];
	/** number of host names */
	int num_hosts;
};

/** a private-address block */
struct iter_private {
	/** next */
	struct iter_private *next;
	/** the block */
	struct netblock block;
};

/** a private-domain name */
struct iter_privdom {
	/** next */
	struct iter_privdom *next;
	/** name, wire */
	uint8_t name[256];
};

/** the root hints: names and addresses */
struct iter_hint {
	/** next */
	struct iter_hint *next;
	/** NS name, wire lower case */
	uint8_t name[256];
	/** its address */
	struct netaddr addr;
	/** 1 when addr is set */
	int has_addr;
	/** the class it is a root server of */
	uint16_t rrclass;
	/** 1 when read from a root-hints file (a second file for the same
	 * class is ignored, as Unbound ignores second hints for a zone) */
	int from_file;
};

/** most values of target-fetch-policy (dependency depths) */
#define ITER_TFP_MAX 16

/** the iterator's environment */
struct iter_env {
	/** forward and stub zones */
	struct iter_zone *zones;
	/** root hints of class IN (the built-in ones unless a root-hints
	 * file gives class IN hints) */
	struct iter_hint *hints;
	/** root hints of the other classes (from root-hints files, in
	 * file order): a class-ANY question is resolved in each class
	 * that has hints, the answers merged (iterator.h) */
	struct iter_hint *class_hints;
	/** private-address blocks */
	struct iter_private *priv;
	/** private-domain names */
	struct iter_privdom *privdom;
	/** do-not-query-address: netblocks never queried */
	struct iter_private *dnq;
	/** qname-minimisation */
	int qname_min;
	/** qname-minimisation-strict: no fall back to the full name when a
	 * minimised query gets NXDOMAIN (it is the answer) */
	int qname_min_strict;
	/** do-not-query-localhost */
	int dnqlh;
	/** harden-glue */
	int harden_glue;
	/** harden-unknown-additional (0: records of other types in the
	 * authority and additional sections of an answer are passed on) */
	int harden_unknown_additional;
	/** harden-unverified-glue: glue for NS names outside the referred
	 * zone is only the last resort; the names are looked up */
	int harden_unverified_glue;
	/** disable-dnssec-lame-check: replies of signed zones' servers are
	 * not checked for signatures (iter_dnssec_lame) */
	int no_dnssec_lame;
	/** iter-scrub-promiscuous: drop the NS set of answers (see
	 * iter_scrub_promiscuous) */
	int scrub_promiscuous;
	/** iter-scrub-cname: most CNAME and DNAME records kept of an answer
	 * section */
	int scrub_cname;
	/** iter-scrub-ns: most NS records kept per NS set */
	int scrub_ns;
	/** max-query-restarts: most CNAME/DNAME links per question */
	int max_restarts;
	/** max-sent-count: most queries per delegation */
	int max_sent;
	/** number of zones with forward-no-cache or stub-no-cache (0: the
	 * cache lookup need not check) */
	int no_cache_zones;
	/** do-nat64: IPv4 servers are asked at their address embedded in
	 * nat64 (over IPv6) */
	int do_nat64;
	/** the NAT64 prefix (nat64-prefix, else dns64-prefix) */
	uint8_t nat64[16];
	/** its length in bits (32, 40, 48, 56, 64 or 96) */
	int nat64_len;
	/** outbound-msg-retry: most queries to one server for a question
	 * (SERVFAIL and timeouts are tried again up to it) */
	int msg_retry;
	/** target-fetch-policy: per dependency depth, NS names looked up
	 * ahead (-1 all, 0 only on demand) */
	int tfp[ITER_TFP_MAX];
	/** number of values in tfp: a state of depth tfp_count - 1 or more
	 * starts no lookups (Unbound's max dependency depth) */
	int tfp_count;
	/** tcp-upstream */
	int tcp_upstream;
	/** minimal-responses: positive answers without the zone's NS set
	 * and its addresses */
	int minimal;
	/** do-ip4 */
	int do_ip4;
	/** do-ip6 */
	int do_ip6;
	/** prefer-ip4 (AF_INET) or prefer-ip6 (AF_INET6): the family asked
	 * first; 0 for none */
	int prefer_family;
	/** upstream timeout per try, ms */
	int timeout_ms;
	/* (the TTL clamps, prefetch and serve-expired live with the message
	 * cache; num-queries-per-thread, jostle-timeout and
	 * serve-expired-client-timeout with the front end and the mesh:
	 * one source each) */
	/** total time per query, ms */
	int max_time_ms;
	/** ratelimit: the zone rate limits, or NULL when off (made and
	 * freed by the module's init and deinit) */
	struct iter_ratelimit *rl;
};

/** @return an environment with the defaults and the IANA root hints */
struct iter_env *iter_env_create_default(void);

/**
 * Build an environment from a config. NULL cfg gives the defaults.
 * @return env or NULL on error (logged).
 */
struct iter_env *iter_env_create(struct config_file *cfg);

/**
 * Parse a target-fetch-policy value ("3 2 1 0 0": one number per
 * dependency depth, each -1 or more) into env->tfp and env->tfp_count.
 * @param env: the env, changed only on success.
 * @param v: the value.
 * @param err: what is wrong, on failure; errlen its size.
 * @return 0 or -1.
 */
int iter_env_parse_tfp(struct iter_env *env, const char *v, char *err,
	size_t errlen);

/** Free an environment. */
void iter_env_delete(struct iter_env *env);

/**
 * Read root hints from a zone file (NS and A/AAAA records, parsed with
 * ldns; records without a class are class IN). The hints of each class
 * the file's NS records give replace those the env holds of that class
 * (the built-in ones of class IN), unless an earlier file gave that
 * class: then the file's hints of the class are ignored (a warning), as
 * Unbound ignores second hints for a zone. An A/AAAA record counts for
 * the NS names of its own class.
 * @return 0 or -1 (logged; the env unchanged).
 */
int iter_env_read_hints(struct iter_env *env, const char *file);

/** Remove all root hints (of every class). */
void iter_env_clear_hints(struct iter_env *env);

/**
 * The classes with root hints, in ascending order: class IN whenever it
 * has hints (the built-in ones at least), then those read from files.
 * @param env: the env.
 * @param after: 0 for the first class, else the class returned before.
 * @return the next class with hints, or 0 when there is none.
 */
uint16_t iter_env_next_class(const struct iter_env *env, uint16_t after);

/**
 * Add a root hint.
 * @param env: the env.
 * @param name: NS name (presentation).
 * @param addr: address string or NULL.
 * @return 0 or -1.
 */
int iter_env_add_hint(struct iter_env *env, const char *name,
	const char *addr);

/**
 * Add (or find) a forward or stub zone by name.
 * @return the zone or NULL.
 */
struct iter_zone *iter_env_add_zone(struct iter_env *env, const char *name,
	int is_forward);

/** Add an address ("ip" or "ip@port") to a zone. @return 0 or -1. */
int iter_zone_add_addr(struct iter_zone *z, const char *addr);

/** Add a host name to a zone. @return 0 or -1. */
int iter_zone_add_host(struct iter_zone *z, const char *host);

/** Add a private-address block. @return 0 or -1. */
int iter_env_add_private(struct iter_env *env, const char *block);

/** Add a private-domain. @return 0 or -1. */
int iter_env_add_privdom(struct iter_env *env, const char *name);

/**
 * Longest-match forward or stub zone for a name.
 * @return the zone or NULL.
 */
struct iter_zone *iter_env_find_zone(struct iter_env *env,
	const uint8_t *qname);

/**
 * Build the delegation point for the root from the hints of class IN, in
 * region.
 * @return dp or NULL.
 */
struct delegpt *iter_env_root_dp(struct iter_env *env, struct region *r);

/**
 * Build the delegation point for the root of a class from its hints, in
 * region.
 * @return dp, or NULL when out of memory or the class has no hints.
 */
struct delegpt *iter_env_class_root_dp(struct iter_env *env,
	uint16_t rrclass, struct region *r);

/**
 * Build a delegation point for a configured zone, in region.
 * @return dp or NULL.
 */
struct delegpt *iter_env_zone_dp(struct iter_zone *z, struct region *r);

/** Create an empty delegation point for a zone name. */
struct delegpt *delegpt_create(struct region *r, const uint8_t *name);

/** Add an NS name (no duplicates). @return the entry or NULL. */
struct delegpt_ns *delegpt_add_ns(struct delegpt *dp, struct region *r,
	const uint8_t *name);

/** Add an address (no duplicates). @return 0 when added, 1 when it was
 * there already, -1 on error. */
int delegpt_add_addr(struct delegpt *dp, struct region *r,
	const struct netaddr *a);

/** Find an NS name. @return entry or NULL. */
struct delegpt_ns *delegpt_find_ns(struct delegpt *dp, const uint8_t *name);

/**
 * Make an address (port 53) from A or AAAA RDATA. The sockaddr is built
 * in a local of its own type and copied in (no type-punned stores, which
 * optimising compilers may reorder).
 * @param na: filled in.
 * @param type: DNS_TYPE_A or DNS_TYPE_AAAA.
 * @param d: the RDATA.
 * @param len: its length (4 or 16).
 * @return 0, or -1 when type and length do not fit.
 */
int iter_addr_from_rdata(struct netaddr *na, uint16_t type,
	const uint8_t *d, size_t len);

/** @return 1 when the address is of a family in use (do-ip4, do-ip6): an
 * NS name with addresses of the other family only still needs a lookup */
int iter_addr_family_ok(const struct iter_env *env, const struct netaddr *a);

/**
 * do-nat64: the address an IPv4 server is asked at, its IPv4 address
 * embedded in the NAT64 prefix (RFC 6052 section 2.2), the port kept.
 * @param env: the env (nat64, nat64_len).
 * @param v4: the IPv4 address.
 * @param out: the IPv6 address.
 * @return 0, or -1 when v4 is not IPv4.
 */
int iter_nat64_addr(const struct iter_env *env, const struct netaddr *v4,
	struct netaddr *out);

/** @return 1 when the address may be queried (do-not-query-localhost,
 * do-not-query-address, do-ip4/do-ip6; with do-nat64, an IPv4 address
 * goes over IPv6, and an IPv6 address inside the NAT64 prefix is judged
 * by the IPv4 address it embeds) */
int iter_addr_allowed(struct iter_env *env, const struct netaddr *a);

/** @return 1 when the address is in a private-address block */
int iter_addr_private(struct iter_env *env, const struct netaddr *a);

/** @return 1 when the name is under a private-domain */
int iter_name_privdom(struct iter_env *env, const uint8_t *name);

#endif /* ITERATOR_ITER_ENV_H */
