/*
 * front/resolver.h - the per-query front end shared by the daemon and
 * the replay runner.
 *
 * One struct resolver per worker. It holds pointers to the pieces the
 * worker shares with others (config, caches, local zones, access control)
 * and to the pieces it owns (its mesh, its outbound network, its random
 * generator, its statistics). The daemon calls resolver_handle_query()
 * from its UDP and TCP callbacks; the replay runner calls it from its
 * QUERY steps.
 *
 * The order of work for one client packet is:
 *   1. fast parse (dns/query.h); garbage is dropped, a bad question gets
 *      FORMERR, an unknown opcode NOTIMPL (with harden-large-queries, a
 *      packet over 512 bytes is dropped first);
 *   2. access control (deny drops, refuse answers REFUSED);
 *   3. local zones (may answer);
 *   4. message cache (the hot path: writes the answer into the caller's
 *      buffer, allocates nothing, writes only this worker's counters);
 *      on a miss, with deny-any, an ANY query gets an empty NOERROR;
 *   5. otherwise the mesh: the query is attached to an in-flight
 *      resolution (or starts one) together with a reply handle, an opaque
 *      by-value blob the caller gives (for the daemon: the comm_point and
 *      client address; for the replay runner: its fake client). When the
 *      resolution ends the resolver encodes one reply per waiting client
 *      (their ID, RD, question letter case, EDNS/DO, UDP size and TC) and
 *      calls the reply callback given at creation with the blob.
 *
 * CNAME chase: when step 3 answers with a redirect-zone alias or an RPZ
 * CNAME rule (struct local_alias), the target is looked up in steps 4
 * and 5 instead, for the client's type, and the answer the client gets is
 * the CNAME followed by the target's answer (its rcode, flags and
 * records), as Unbound does. One level: the target is not shown to the
 * local zones or RPZ again. A CNAME question gets the CNAME alone.
 *
 * The mesh runs each resolution through the module stack (module-config,
 * front/modstack.h) and gives the finished answer back through the
 * callbacks the resolver registers with it (struct mesh_frontend); the
 * modules reach the caches, the network, random, the clock and the
 * counters through the resolver's module environment (menv).
 *
 * Ownership: the resolver never frees what it points to except its own
 * mesh. The reply callback's packet is only valid during the call.
 */
#ifndef FRONT_RESOLVER_H
#define FRONT_RESOLVER_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>
#include "util/netaddr.h"
#include "util/histogram.h"
#include "dns/query.h"
#include "services/module.h"
#include "front/policy.h"

struct outbound;
struct mesh;
struct region;
struct wait_limit;
struct petrel_random;
struct config_file;
struct rate_table;
struct acl_list;
struct local_zones;
struct mcache;
struct rrset_cache;
struct infra_cache;
struct comm_base;
struct cookie_secrets;

/** front_opts: deny-any */
#define RESOLVER_OPT_DENY_ANY 0x01
/** front_opts: harden-large-queries */
#define RESOLVER_OPT_LARGE 0x02
/** front_opts: edns-tcp-keepalive */
#define RESOLVER_OPT_KEEPALIVE 0x04
/** front_opts: disable-edns-do */
#define RESOLVER_OPT_NODO 0x08

/** how big the opaque reply handle can be */
#define RESOLVER_HANDLE_SIZE 224

/** transport the client query came in on */
enum resolver_transport {
	/** UDP: the reply is truncated to the client's UDP size */
	RESOLVER_UDP = 0,
	/** TCP (or another stream): no truncation up to 65535 */
	RESOLVER_TCP
};

/** result of resolver_handle_query */
enum resolver_result {
	/** nothing to send (dropped: garbage, deny, or jostled out) */
	RESOLVER_DROP = 0,
	/** an answer was written into the caller's buffer; send it now */
	RESOLVER_ANSWERED,
	/** the query went to the mesh; the reply callback will be called */
	RESOLVER_PENDING
};

/** opaque blob the caller uses to find its client again */
struct resolver_handle {
	/** caller's data, copied by value */
	uint8_t data[RESOLVER_HANDLE_SIZE];
	/** how many bytes of data are in use */
	size_t len;
	/** NULL, or the caller fills data and len in only when the query
	 * goes to the mesh, called once during resolver_handle_query (or
	 * _peeked) with fill_arg and the pending client's own handle (its
	 * fill is NULL): a cached answer never needs the handle, so it
	 * costs nothing there. NULL: data and len are copied as given. */
	void (*fill)(void *fill_arg, struct resolver_handle *h);
	/** the argument of fill */
	void *fill_arg;
};

/**
 * Called when a pending client's answer is ready.
 * @param arg: cb_arg given to resolver_create.
 * @param handle: the blob given with the query.
 * @param pkt: the reply in wire format, or NULL when the query is dropped
 *	(jostled out, or the resolver is being deleted); valid only during
 *	the call.
 * @param len: length of pkt.
 */
typedef void (*resolver_reply_cb_type)(void *arg,
	const struct resolver_handle *handle, const uint8_t *pkt, size_t len);

/** per-type and per-class counters kept for types 0..255 */
#define RESOLVER_STATS_QTYPES 256

/** per-worker counters (each worker its own, on its own cache line) */
struct resolver_stats {
	/** client queries seen */
	uint64_t num_queries;
	/** answered from the message cache */
	uint64_t num_cache_hits;
	/** sent to the mesh */
	uint64_t num_cache_miss;
	/** answered from local zones */
	uint64_t num_local;
	/** dropped or refused by access control */
	uint64_t num_acl_denied;
	/** malformed queries (dropped or FORMERR) */
	uint64_t num_malformed;
	/** answered with SERVFAIL */
	uint64_t num_servfail;
	/** queries dropped because the mesh was full (or jostled out) */
	uint64_t num_dropped;
	/** prefetches started */
	uint64_t num_prefetch;
	/** answers served from expired data */
	uint64_t num_expired;
	/** upstream queries sent */
	uint64_t num_outgoing;
	/** validated answers: secure, bogus; bogus RRsets */
	uint64_t num_answer_secure, num_answer_bogus, num_rrset_bogus;
	/** answers sent to clients after recursion (from the mesh) */
	uint64_t num_recursive_replies;
	/* extended statistics (daemon/stats.h prints them; each is one
	 * array increment on this worker's own counters) */
	/** well-formed queries by type; [RESOLVER_STATS_QTYPES] counts the
	 * types above 255 */
	uint64_t qtype[RESOLVER_STATS_QTYPES + 1];
	/** well-formed queries by class; [RESOLVER_STATS_QTYPES]: above 255 */
	uint64_t qclass[RESOLVER_STATS_QTYPES + 1];
	/** queries by opcode */
	uint64_t qopcode[16];
	/** queries with each header flag: QR AA TC RD RA Z AD CD */
	uint64_t qflags[8];
	/** queries with an OPT record */
	uint64_t qedns;
	/** queries with the DO bit */
	uint64_t qedns_do;
	/** queries from IPv6 clients */
	uint64_t qipv6;
	/** answers by rcode (counted by the caller of resolver_handle_query
	 * on what it sends); [16] counts NOERROR answers without data */
	uint64_t ans_rcode[17];
	/** recursion time histogram: bucket i from hist_lower_us(i) to
	 * hist_lower_us(i + 1) (util/histogram.h, Unbound's buckets); the
	 * last one is open */
	uint64_t rec_hist[HIST_BUCKETS];
	/** sum of the recursion times, microseconds */
	uint64_t rec_time_us;
	/** sum of the in-flight states seen by each new recursion */
	uint64_t reqlist_sum;
	/** how many were summed */
	uint64_t reqlist_samples;
	/** queries dropped by ip-ratelimit */
	uint64_t num_ip_ratelimited;
	/** upstream queries refused by ratelimit (per zone; the iterator
	 * counts them) */
	uint64_t num_ratelimited;
	/** client questions ended by max-global-quota (the iterator
	 * counts them) */
	uint64_t num_quota_exceeded;
	/** answers that held an upstream ECS option (subnetcache) */
	uint64_t num_subnet;
	/** answers from the subnetcache's own cache */
	uint64_t num_subnet_cache;
	/** clients dropped by discard-timeout (also in num_dropped) */
	uint64_t num_discard_timeout;
	/** queries dropped by wait-limit (also in num_dropped) */
	uint64_t num_wait_limit;
	/** states jostled out to make room for a new one
	 * (requestlist.overwritten) */
	uint64_t num_jostled;
	/** answer-cookie: queries with a valid server cookie, with a
	 * client cookie only, with a server cookie that is not valid */
	uint64_t num_cookie_valid, num_cookie_client, num_cookie_invalid;
	/* (reqlist_max stays last: stats_add_resolver sums what comes
	 * before it) */
	/** the most in-flight states seen */
	uint64_t reqlist_max;
} __attribute__((aligned(64)));

/** a wait-limit-netblock line: the limit of the addresses in a block */
struct resolver_wl_block {
	/** the netblock */
	struct netblock nb;
	/** its limit */
	int limit;
};

/** the per-worker front end */
struct resolver {
	/** config (shared, read-only) */
	struct config_file *cfg;
	/** the modules (module-config; shared, read-only) */
	const struct module_stack *stack;
	/** what the modules reach (caches, network, random, clock,
	 * counters, their settings) */
	struct module_env menv;
	/** serve-expired-client-timeout, ms (0: answer stale at once) */
	int expire_client_ms;
	/** front-end options, RESOLVER_OPT_* (one word to test on the hot
	 * path), from the config at creation */
	int front_opts;
	/** wait-limit (0: none) and its counts per client address (owned,
	 * NULL without a limit) */
	int wait_limit;
	struct wait_limit *wl;
	/** the mesh of in-flight queries (owned) */
	struct mesh *mesh;
	/** the network (and clock) */
	struct outbound *out;
	/** random numbers (the worker's) */
	struct petrel_random *rnd;
	/** where pending answers go */
	resolver_reply_cb_type reply_cb;
	/** argument for reply_cb */
	void *reply_arg;
	/** access control (shared, read-only; NULL: the default, which
	 * allows localhost only); set after resolver_create */
	const struct acl_list *acl;
	/** local zones (shared, read-only; NULL: none); set after create */
	const struct local_zones *lz;
	/** views and RPZ (shared, read-only; NULL: none, and the front end
	 * costs one test); set with resolver_set_policy */
	const struct policy *pol;
	/** the address the current query came to, or NULL; set by the
	 * caller before resolver_handle_query when the policy has
	 * interface views (resolver_set_local) */
	const struct netaddr *local;
	/** the proxy the current query came through (a PROXY v2 header named
	 * the client), or NULL; set by the caller on a proxy-protocol-port
	 * (resolver_set_proxy) */
	const struct netaddr *proxy;
	/** 1 when answers go through policy_respip_answer() (response-ip,
	 * RPZ RESPONSE-IP triggers) */
	int respip;
	/** 1 when answers go through policy_rpz_cname_answer() (rpz
	 * zones: their QNAME triggers on the answers' CNAME targets) */
	int rpzc;
	/** 1 when NOTIFY is looked at (auth zones, or rpz zones) */
	int notify;
	/** RPZ counters of this worker */
	struct policy_stats pstats;
	/** the message cache (shared; NULL: no caching); set after create */
	struct mcache *mcache;
	/** the RRset cache (shared; NULL: none); set after create */
	struct rrset_cache *rrset;
	/** the infrastructure cache (shared; NULL: none); set after create */
	struct infra_cache *infra;
	/** the auth zones (shared; NULL: none); resolver_set_authz */
	struct auth_zones *authz;
	/** largest UDP answer to clients (max-udp-size), and our EDNS size */
	uint16_t max_udp;
	/** the ECS option code when the subnetcache module is in the
	 * stack (client states carry the client's subnet), else 0 */
	uint16_t ecs_code;
	/** client-subnet-always-forward (with ecs_code): a client that sent
	 * ECS skips the message cache */
	int ecs_always;
	/** buffer the answers for pending clients are encoded in */
	uint8_t *buf;
	/** copy of the query when the caller's answer buffer is the query's
	 * own buffer */
	uint8_t *qcopy;
	/** where the record of a client going to the mesh is put together
	 * (the mesh copies it) */
	uint8_t *cbuf;
	/** CNAME chase (a redirect-zone alias or an RPZ CNAME, struct
	 * local_alias): the target's query, then the spliced answer, then
	 * RDATA scratch (3 * DNS_MAX_MSG); allocated at the first chase, so
	 * a resolver without one pays nothing */
	uint8_t *chase;
	/** for the parse of a chased answer with many records (with chase) */
	struct region *chase_region;
	/** for the RRsets of a referral answered from the RRset cache to a
	 * query without RD (resolver_norec_answer); made at the first one */
	struct region *norec_region;
	/** policy_ns_tag_mask() of the policy: with it, a client's tags
	 * key its mesh states (0: no rpz zone with tags: has NS triggers) */
	uint64_t ns_tag_mask;
	/** ip-ratelimit: the client rate table (shared; NULL: off); set
	 * after create with resolver_set_ratelimit */
	struct rate_table *ip_rate;
	/** ip-ratelimit, -factor, -backoff */
	int ip_rate_limit, ip_rate_factor, ip_rate_backoff;
	/** ip-ratelimit-cookie: the limit of cookie-validated clients */
	int ip_rate_limit_cookie;
	/** wait-limit-cookie */
	int wait_limit_cookie;
	/** wait-limit-netblock, wait-limit-cookie-netblock (owned), longest
	 * prefix first, and their counts */
	struct resolver_wl_block *wl_blocks, *wl_cookie_blocks;
	size_t wl_nblocks, wl_cookie_nblocks;
	/** answer-cookie: the server secrets (shared; NULL: cookies are not
	 * answered); set with resolver_set_cookies */
	const struct cookie_secrets *cookies;
	/** the COOKIE option of the answer being made (client and server
	 * cookie) */
	uint8_t cookie_out[24];
	/** 1 when an access-control line says allow_cookie */
	int acl_cookie;
	/** when the client being answered by reply_cb sent its query
	 * (valid during the call; for log-replies) */
	struct timeval reply_start;
	/** nsid: the NSID option data (RFC 5001) answered to clients that
	 * ask for it, nsid_len bytes (owned); nsid_len 0: none (one test
	 * per answer) */
	uint16_t nsid_len;
	uint8_t *nsid;
	/** this worker's counters */
	struct resolver_stats stats;
};

/**
 * Create the front end for one worker.
 * @param cfg: config (may be NULL for defaults in tests); not owned.
 * @param stack: the modules (modstack_setup); not owned.
 * @param out: the network and clock; not owned.
 * @param rnd: random generator; not owned.
 * @param cb: reply callback for pending queries.
 * @param cb_arg: its argument.
 * @return the resolver or NULL on failure.
 */
struct resolver *resolver_create(struct config_file *cfg,
	const struct module_stack *stack, struct outbound *out,
	struct petrel_random *rnd, resolver_reply_cb_type cb, void *cb_arg);

/**
 * Give the resolver the shared pieces it reads (any may be NULL): caches,
 * local zones, access control. Call after resolver_create and again after
 * a reload, while no query is being handled.
 */
/**
 * Give the modules the worker's event loop (module_env.base), for the
 * modules with connections of their own (cachedb). Without it they do
 * without (the replay runner and unit tests).
 */
void resolver_set_base(struct resolver *r, struct comm_base *base);

/**
 * Start the modules' per-worker jobs (timers: the validator's RFC 5011
 * probes run in worker 0). Call once, after the resolver_set_* calls
 * and before the first query.
 * @param worker_index: the worker's number, 0 for the first.
 */
void resolver_start(struct resolver *r, int worker_index);

void resolver_set_env(struct resolver *r, struct mcache *msg,
	struct rrset_cache *rrset, struct infra_cache *infra,
	const struct local_zones *lz, const struct acl_list *acl);

/**
 * Give the resolver the auth zones (services/authzone.h; NULL: none): the
 * for-downstream ones answer clients after the local zones, NOTIFY goes
 * to them, and the iterator asks the for-upstream ones. Call as
 * resolver_set_env.
 */
void resolver_set_authz(struct resolver *r, struct auth_zones *az);

/**
 * Start the DNSKEY lookups that held auth zones want (a zone below its
 * trust anchor, services/authzone.h): <apex> DNSKEY with DO and RD, a
 * background query through the mesh that the validator chains from the
 * anchor, asked of the zone's servers (MESH_FLAG_NOAUTH: not of its old
 * copy); its answer goes to the zone when it finishes
 * (services/authzone_lookup.h does both on the resolver's mesh). Call
 * from the worker's event loop when the zones' wake-up fired.
 */
void resolver_zonemd_lookups(struct resolver *r);

/**
 * Start the host name lookups the auth zones want (a primary: or
 * allow-notify: given by name: its A and AAAA, validated, in the
 * background; auth_zones_start_host_lookups). resolver_zonemd_lookups
 * does it too; the replay runner, which has no wake-up, calls it after
 * the resolver starts.
 */
void resolver_auth_host_lookups(struct resolver *r);

/**
 * Give the resolver the client rate table of ip-ratelimit (shared by the
 * workers; NULL turns it off). The limit, factor and backoff come from
 * the resolver's config. Call as resolver_set_env.
 */
void resolver_set_ratelimit(struct resolver *r, struct rate_table *ip_rate);

/**
 * answer-cookie: give the resolver the server secrets (shared, read
 * without locks by this worker, a QSBR reader). Cookies are answered only
 * when the resolver's config has answer-cookie: yes. Call as
 * resolver_set_env.
 * @param cs: the secrets, or NULL (no cookies).
 */
void resolver_set_cookies(struct resolver *r,
	const struct cookie_secrets *cs);

/**
 * Give the resolver the views and RPZ zones (NULL: none). Call after
 * resolver_create and again after a reload, while no query is being
 * handled.
 */
void resolver_set_policy(struct resolver *r, const struct policy *pol);

/**
 * The access-control list of the next queries (interface-action: the
 * list of the listening point they came in on, acl_for_interface() in
 * front/acl.h), in place of the one resolver_set_env() gave. The pointer
 * is kept: the caller keeps it valid.
 */
void resolver_set_acl(struct resolver *r, const struct acl_list *acl);

/**
 * The address the next queries came to (for interface-view), or NULL.
 * The pointer is kept: the caller keeps it valid while it handles them.
 */
void resolver_set_local(struct resolver *r, const struct netaddr *local);

/**
 * The proxy the next queries came through, or NULL (not proxied). With a
 * PROXY v2 header the client's address is the header's, but the proxy's
 * own address must pass access control as well (as Unbound): a proxy
 * that access-control denies is not answered, one it refuses is answered
 * REFUSED, whatever client its header names. The pointer is kept: the
 * caller keeps it valid while it handles them.
 */
void resolver_set_proxy(struct resolver *r, const struct netaddr *proxy);

/**
 * Delete the resolver: pending clients get the callback with pkt NULL,
 * pending upstream queries are cancelled. NULL is allowed.
 */
void resolver_delete(struct resolver *r);

/** a client packet parsed ahead of answering, by resolver_prefetch */
struct resolver_peek {
	/** the parse (offsets into the packet, and a copy of the name) */
	struct fast_query fq;
	/** dns_query_parse_fast's result */
	int err;
	/** 1 when hash is set (a query the message cache may answer) */
	int have_hash;
	/** mcache_hash of the query */
	uint32_t hash;
};

/**
 * Parse a packet that resolver_handle_peeked() will be given soon and warm
 * the CPU cache for it. A receiver holding a batch calls it with stage 0
 * for every packet of the batch (the parse, and the message-cache bucket),
 * then with stage 1 for every packet (the entry), then answers them: the
 * cache misses of the batch overlap (see slabhash_prefetch), and each
 * packet is parsed once. It counts nothing and changes nothing else.
 * @param r: the resolver.
 * @param pkt: the query.
 * @param len: its length.
 * @param pk: the caller's room for this packet, kept between the stages
 *	and given to resolver_handle_peeked with the same pkt and len.
 * @param stage: 0 or 1.
 */
void resolver_prefetch(struct resolver *r, const uint8_t *pkt, size_t len,
	struct resolver_peek *pk, int stage);

/**
 * resolver_handle_query() for a packet resolver_prefetch() parsed (same
 * packet, same length, unchanged since), without parsing it again. (The
 * front end may note in pk->fq what the answer carries, its cookie.)
 */
enum resolver_result resolver_handle_peeked(struct resolver *r,
	const uint8_t *pkt, size_t len, struct resolver_peek *pk,
	const struct netaddr *client, enum resolver_transport tp,
	const struct resolver_handle *handle, uint8_t *out, size_t outmax,
	size_t *outlen);

/**
 * Handle one client packet.
 * @param r: the resolver.
 * @param pkt: the query.
 * @param len: its length.
 * @param client: client address (for access control and logging).
 * @param tp: transport.
 * @param handle: the reply handle (copied when the query goes pending).
 * @param out: buffer for an immediate answer; it may be the query's own
 *	buffer (the query is then copied first; a separate buffer saves
 *	that copy).
 * @param outmax: its size (at least 512; 65535 for TCP is best).
 * @param outlen: length of the immediate answer.
 * @return RESOLVER_ANSWERED (answer in out), RESOLVER_PENDING (callback
 *	later) or RESOLVER_DROP.
 */
enum resolver_result resolver_handle_query(struct resolver *r,
	const uint8_t *pkt, size_t len, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen);

/** @return number of client queries waiting in the mesh */
size_t resolver_num_pending(struct resolver *r);

#endif /* FRONT_RESOLVER_H */
