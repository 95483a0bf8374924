/*
 * services/module.h - the module contract: what every module in the
 * resolution chain implements, the environment it is given, and the
 * per-query state it works on.
 *
 * A query state (struct module_qstate) runs through the modules of
 * module-config in order (say "validator iterator"). Each module is a table
 * of functions (struct module_func_block): set up and tear down with the
 * environment, operate on a query state for an event, inform a waiting
 * (super) state that a sub-query finished, clear its data of a state, and
 * report its memory. The mesh (services/mesh.h) runs the chain and knows no
 * module by name: it calls operate() of the current module and looks at
 * the result the module left in ext_state[id]:
 *   - MODULE_WAIT_MODULE: pass the query down to the next module (event
 *     MODULE_EVENT_NEW the first time that module sees the state,
 *     MODULE_EVENT_PASS after);
 *   - MODULE_WAIT_REPLY: a query went out through env->send_query; the
 *     module gets MODULE_EVENT_REPLY, _NOREPLY (timeout) or _ERROR;
 *   - MODULE_WAIT_SUBQUERY: sub-queries (env->attach_sub) are in flight;
 *     when one finishes, inform_super() of this module is called and the
 *     state is run again with MODULE_EVENT_PASS;
 *   - MODULE_FINISHED: return_rcode/return_msg hold the answer; it goes
 *     up: the module above gets MODULE_EVENT_MODDONE and may look at it
 *     (and set its security status); past the first module the mesh
 *     hands it to the front end's callback and to the states waiting;
 *   - MODULE_ERROR: as finished, with SERVFAIL (and qstate->ede).
 * A module that got MODULE_EVENT_MODDONE may also leave MODULE_WAIT_MODULE:
 * the query goes down again (a restart; the module below gets
 * MODULE_EVENT_PASS in its finished state and resolves anew). The
 * validator does so after a bogus answer (val-max-restart), with the
 * servers that gave it (qstate->origin, recorded by the iterator) added
 * to qstate->exclude, which the iterator never asks. It also fills the
 * exclude list of the DNSKEY and DS sub-queries it asks again after a
 * bogus key set (the sub-query's own origin, copied by inform_super).
 *
 * The environment (struct module_env) holds everything a module may reach:
 * the caches, the outbound network (as function pointers the mesh fills in,
 * so that the replay runner's fake network plugs in underneath), random
 * numbers, the worker's cached clock, the counters it may bump and the
 * config. A module keeps its own settings in env->modinfo[id], built from
 * the config by its init(), once per daemon environment and shared
 * read-only by the workers.
 *
 * Adding a module: a folder with its functions and its Makefile.inc (one
 * include line in Makefile.am), and one row in the module list of
 * front/modstack.c: its name, its functions and its place in the order.
 * The config parser checks module-config against that list through the
 * check front/modstack.c registers (util/config_options.h). What the
 * remote control needs of a module's data (its key cache, its negative
 * trust anchors, its rate limits, its root hints) it asks through the
 * module's control hook (enum module_ctl), never by the module's name.
 */
#ifndef SERVICES_MODULE_H
#define SERVICES_MODULE_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>
#include "dns/ecs.h" /* struct module_ecs: the subnet of a client */

struct region;
struct config_file;
struct mcache;
struct rrset_cache;
struct infra_cache;
struct petrel_random;
struct outbound_query;
struct netaddr;
struct mesh;
struct module_qstate;
struct auth_zones;
struct comm_base;

/** most modules in a stack */
#define MODULE_MAX 8

/** most servers recorded as the origin of one answer (module_qstate.
 * origin) */
#define MODULE_ORIGIN_MAX 4
/** most server addresses one query state may exclude (module_qstate.
 * exclude) */
#define MODULE_EXCLUDE_MAX 16

/** most records kept in module_qstate.cut_proofs */
#define MODULE_CUT_PROOFS_MAX 64

/** state key flag: client asked with the DO bit */
#define MESH_FLAG_DO	0x01
/** state key flag: client asked with the CD bit */
#define MESH_FLAG_CD	0x02
/** state key flag: recursion desired (RD set by the client) */
#define MESH_FLAG_RD	0x04
/** state key flag: the background probe of a down server
 * (services/cache/infra.h, INFRA_DOWN_TIMEOUTS): it may ask servers that
 * other queries skip, once each, with their full backed-off timeout */
#define MESH_FLAG_PROBE	0x20
/** state key flag: do not answer from the for-upstream auth zone whose
 * apex is the question name (the DNSKEY lookup of a held auth zone,
 * services/authzone.h, which must see the servers' keys, not those of
 * the zone's old copy; the copies above it are used) */
#define MESH_FLAG_NOAUTH	0x40
/** state key flag: do not use forward zones (the address lookup of a
 * forward-host, which would otherwise go to the forwarder it names) */
#define MESH_FLAG_NOFWD	0x08
/** state key flag: an RPZ QNAME or CLIENT-IP rule said PASSTHRU for the
 * client: no NSDNAME / NSIP rule applies to its resolution, nor
 * response-ip to its sub-queries' answers (env->respip) (as Unbound's
 * rpz_passthru); set only when such rules exist */
#define MESH_FLAG_RPZPASS	0x80
/** state key flag: a sub-query a module above the validator asks for
 * the client's question (dns64's A lookup, whose answer is synthesised
 * into the client's): validated as a client question is; the other
 * sub-queries (server addresses, keys) are not */
#define MESH_FLAG_VALSUB	0x100
/** state key flag: a lookup of the validator's own that it checks itself
 * or needs unchecked (the RFC 5011 probe, the key tag signal): passed
 * through unvalidated, where a client's CD query is validated */
#define MESH_FLAG_NOVAL	0x200
/** state flag (not a key flag; set on qstate->flags by the validator):
 * ask upstream with DO and keep the DNSSEC records of the replies */
#define MESH_FLAG_DNSSEC	0x10

/** what happened, given to operate() */
enum module_ev {
	/** a new query state: this module sees it for the first time */
	MODULE_EVENT_NEW = 0,
	/** run again: passed down from the module above, or woken after a
	 * sub-query finished */
	MODULE_EVENT_PASS,
	/** a reply from the network (reply->pkt) */
	MODULE_EVENT_REPLY,
	/** no reply: the query sent timed out */
	MODULE_EVENT_NOREPLY,
	/** the module below finished: the answer comes back up */
	MODULE_EVENT_MODDONE,
	/** the query sent could not be sent or its connection failed */
	MODULE_EVENT_ERROR
};

/** number of events (for tables indexed by event) */
#define MODULE_EVENT_COUNT 6

/** what a module wants next, left in qstate->ext_state[id] */
enum module_ext_state {
	/** not run yet */
	MODULE_STATE_INITIAL = 0,
	/** waiting for the reply to a query it sent */
	MODULE_WAIT_REPLY,
	/** pass the query to the next module */
	MODULE_WAIT_MODULE,
	/** waiting for sub-queries */
	MODULE_WAIT_SUBQUERY,
	/** done: the answer is in return_rcode / return_msg */
	MODULE_FINISHED,
	/** failed: SERVFAIL (with qstate->ede) */
	MODULE_ERROR
};

/** DNSSEC security status of an answer (and later of each RRset) */
enum module_sec_status {
	/** not looked at (no validator in the chain) */
	MODULE_SEC_UNCHECKED = 0,
	/** bogus: validation failed */
	MODULE_SEC_BOGUS,
	/** insecure: provably unsigned */
	MODULE_SEC_INSECURE,
	/** secure: validated */
	MODULE_SEC_SECURE
};

/** one record of an answer, in a state's region (uncompressed wire) */
struct module_rr {
	/** next in its list */
	struct module_rr *next;
	/** owner name, uncompressed wire, letter case as received */
	const uint8_t *owner;
	/** its length */
	size_t owner_len;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** TTL */
	uint32_t ttl;
	/** RDATA, names in it uncompressed */
	const uint8_t *rdata;
	/** its length */
	uint16_t rdlen;
	/** security status of the RRset it belongs to (a validator sets
	 * it on every record of the set; unchecked by default) */
	uint8_t sec;
	/** trust rank (enum rrset_trust, services/cache/rrset.h) its
	 * RRset is stored with in the RRset cache when the answer is
	 * finished (services/cache/store.h); 0: not stored there. The
	 * module that took it from an upstream reply sets it. */
	uint8_t trust;
};

/** a list of records (a section), in order */
struct module_rrlist {
	/** first record, or NULL */
	struct module_rr *first;
	/** last record, or NULL */
	struct module_rr *last;
	/** number of records */
	size_t count;
};

/** the answer a state returns up the chain (in the state's region, with
 * its records) */
struct mesh_answer {
	/** DNS rcode */
	int rcode;
	/** answer section */
	struct module_rrlist an;
	/** authority section */
	struct module_rrlist ns;
	/** additional section */
	struct module_rrlist ar;
	/** 1 when the answer came from a forwarder (taken as is) */
	int forwarded;
	/** 1 when the answer is also what a client with the other DO bit
	 * gets: built from upstream replies only (asked with DO) that held
	 * no DNSSEC record; the iterator sets it, a module that makes a
	 * new answer leaves it 0 */
	int do_same;
	/** Extended DNS Error to add, or -1 */
	int ede;
	/** security status of the whole message (a validator sets it) */
	enum module_sec_status sec;
	/** a policy answer (RPZ NSDNAME / NSIP, made by env->rpz_ns): 1 to
	 * send it (with AA) but store it in no cache and leave it
	 * unvalidated, 3 the same without RA (rpz-signal-nxdomain-ra), 2
	 * to send nothing at all (drop), 4 a resolved answer that a
	 * TCP-ONLY rule (NSDNAME / NSIP) gives to TCP clients only (UDP
	 * clients get an empty TC answer; it is stored in no cache); 0 for
	 * every other answer */
	int policy;
	/** 1 when a module made the answer for clients without CD (dns64's
	 * synthesis, RFC 6147 5.5): the message cache gives it to no CD
	 * client (for those the data is left as it is) */
	int no_cd_share;
};

/** a reply (or its absence) to a query a module sent */
struct module_reply {
	/** the packet, valid during operate() only; NULL without a reply */
	const uint8_t *pkt;
	/** its length */
	size_t len;
	/** measured round trip time, ms */
	int rtt_ms;
};

/** the counters a module may bump (the worker's own; pointers into the
 * front end's statistics) */
struct module_counters {
	/** upstream queries sent */
	uint64_t *num_outgoing;
	/** background queries started (prefetch, priming) */
	uint64_t *num_prefetch;
	/** answers the validator found secure */
	uint64_t *num_answer_secure;
	/** answers the validator found bogus */
	uint64_t *num_answer_bogus;
	/** RRsets the validator found bogus */
	uint64_t *num_rrset_bogus;
	/** upstream queries refused by ratelimit (iterator) */
	uint64_t *num_ratelimited;
	/** queries (or sub-queries) ended by max-global-quota (iterator) */
	uint64_t *num_quota_exceeded;
	/** answers whose upstream reply held an ECS option (subnetcache) */
	uint64_t *num_subnet;
	/** answers from the subnetcache's cache */
	uint64_t *num_subnet_cache;
};

/** everything a module may reach (one per worker) */
struct module_env {
	/** the config (shared, read-only) */
	struct config_file *cfg;
	/** the message cache (shared; NULL: none) */
	struct mcache *mcache;
	/** the RRset cache (shared; NULL: none) */
	struct rrset_cache *rrset;
	/** the infrastructure cache (shared; NULL: none) */
	struct infra_cache *infra;
	/** random numbers (the worker's) */
	struct petrel_random *rnd;
	/** the worker's cached clock */
	const struct timeval *now;
	/** counters */
	struct module_counters ctr;
	/** per module: its global data (settings), from its init() */
	void *modinfo[MODULE_MAX];
	/** the mesh that runs the states (for the functions below) */
	struct mesh *mesh;
	/** the auth zones (services/authzone.h; shared, safe for
	 * concurrent readers; NULL: none): the iterator asks the
	 * for-upstream ones before sending */
	struct auth_zones *authz;
	/** the worker's event loop, for a module with connections of its
	 * own (cachedb's Redis); NULL where there is none (the replay
	 * runner, unit tests): such a module then does without */
	struct comm_base *base;
	/** per module: its per-worker data (connections), made lazily by
	 * the module and freed by its worker_deinit() */
	void *worker_data[MODULE_MAX];
	/** the worker's number (0: the first); a job done once per daemon
	 * (the validator's RFC 5011 probes) runs in worker 0 only */
	int worker_index;
	/**
	 * Run fn(arg) after ms milliseconds on the worker's event loop (the
	 * replay runner's fake clock in tests): a module's own timer. The
	 * handle is freed when fn runs; do not cancel it after that.
	 * @return a handle for timer_cancel, or NULL (fn never runs).
	 */
	void *(*timer_set)(struct module_env *env, int ms, void (*fn)(void *),
		void *arg);
	/** Cancel a timer from timer_set whose fn has not run. */
	void (*timer_cancel)(struct module_env *env, void *timer);

	/**
	 * Send a query upstream for a state; the reply (or timeout, or
	 * error) comes back as an event to the state's current module.
	 * @param qs: the state.
	 * @param to: server address and port.
	 * @param qname: name (wire), qname_len its length.
	 * @param qtype: type; qclass: class.
	 * @param flags: OUTBOUND_FLAG_* (services/outbound.h).
	 * @param timeout_ms: how long to wait.
	 * @return a handle (for cancel_query), or NULL when it could not be
	 *	sent (no event follows).
	 */
	struct outbound_query *(*send_query)(struct module_qstate *qs,
		const struct netaddr *to, const uint8_t *qname,
		size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
		int timeout_ms);
	/** Cancel a query from send_query (no event follows). */
	void (*cancel_query)(struct module_qstate *qs,
		struct outbound_query *q);
	/**
	 * Find or start a sub-query that super waits on (the mesh refuses
	 * dependency cycles). When it finishes, inform_super() of super's
	 * current module is called.
	 * @return the sub-state, or NULL.
	 */
	struct module_qstate *(*attach_sub)(struct module_qstate *super,
		const uint8_t *qname, uint16_t qtype, uint16_t qclass,
		int flags);
	/**
	 * Start a background query nobody waits on (priming), unless one
	 * is in flight. @return 0 or -1.
	 */
	int (*add_background)(struct module_env *env, const uint8_t *qname,
		uint16_t qtype, uint16_t qclass, int flags);
	/**
	 * Run a state that waits (MODULE_WAIT_REPLY) on something of the
	 * module's own (a Redis reply, its timer): its current module is
	 * called with ev and a NULL reply, then the mesh runs. Call it from
	 * an event loop callback, never from inside operate() or clear().
	 */
	void (*resume)(struct module_qstate *qs, enum module_ev ev);
	/**
	 * max-global-quota: the upstream queries of one client question
	 * and all its sub-queries share one budget, kept in the state at
	 * the top of qs's chain of supers (for a sub-query several states
	 * wait on, the first of them that asked for it; a state nobody
	 * waits on is its own top).
	 * @param take: 1 to count one upstream query about to be sent,
	 *	0 only to ask.
	 * @return 1 when a query may be sent (and, with take, it is
	 *	counted), 0 when the budget is spent.
	 */
	int (*global_quota)(struct module_qstate *qs, int take);
	/**
	 * serve-expired: answer now, from their expired cache entry, the
	 * clients of a state that may get one (a module that looked for a
	 * fresh answer of its own and found none: cachedb with
	 * cachedb-check-when-serve-expired); the state goes on resolving
	 * to refresh the cache. Safe to call from operate(); a state without
	 * such clients is left alone.
	 */
	void (*serve_stale)(struct module_qstate *qs);
	/**
	 * The RPZ NSDNAME and NSIP triggers (the front end's policy, see
	 * front/policy.h), or NULL when no rpz zone can have them (the
	 * iterator then pays one pointer test). Called by the iterator
	 * for a client's question (depth 0) with each NS name of a
	 * delegation it is about to use and each server address it is
	 * about to ask; exactly one of nsname, nsaddr is given.
	 * @param arg: rpz_ns_arg.
	 * @param pass: set to 1 for a PASSTHRU rule (no more checks for
	 *	this state), 2 for a TCP-ONLY rule (no more checks; the answer
	 *	is for TCP clients only, mesh_answer.policy 4).
	 * @return the answer to finish the state with (in qs->region, its
	 *	policy field set), or NULL to go on.
	 */
	struct mesh_answer *(*rpz_ns)(void *arg, struct module_qstate *qs,
		const uint8_t *nsname, const struct netaddr *nsaddr,
		int *pass);
	/** the argument of rpz_ns */
	void *rpz_ns_arg;
	/**
	 * The RPZ QNAME triggers on a CNAME target (the front end's policy,
	 * front/policy.h), or NULL when there are no rpz zones. Called by
	 * the iterator for a client's question (depth 0) before it follows
	 * a CNAME to name: when a rule (of a zone without tags:, or with
	 * one of the state's tags) acts on name, the iterator finishes the
	 * state with the chain so far, kept out of the caches, and the
	 * front end writes the rule's answer after it (as Unbound stops at
	 * such a target and answers from the policy).
	 * @param arg: rpz_ns_arg.
	 * @param name: the target, lower-case wire.
	 * @return 1 when a rule acts on name, else 0.
	 */
	int (*rpz_qname)(void *arg, struct module_qstate *qs,
		const uint8_t *name);
	/**
	 * Response-ip and the RPZ RESPONSE-IP triggers on the answer of a
	 * sub-query a module asked for its own state (dns64's A lookup),
	 * as Unbound's respip module rewrites the answers of the
	 * sub-queries that run through it: the front end's policy
	 * (front/policy.h, policy_respip_sub), set only when the respip
	 * module is in the stack and there are such rules; else NULL. The
	 * clients' own rules (views, tags) are the front end's, on the
	 * answer they get.
	 * @param arg: rpz_ns_arg.
	 * @param qs: the state that asked (the answer made goes in its
	 *	region).
	 * @param qname, qtype: the sub-query's question.
	 * @param ans: its answer.
	 * @param out: set to the rewritten answer, or NULL when a rule
	 *	drops it.
	 * @return 1 when a rule acted, 0 when ans stands.
	 */
	int (*respip)(void *arg, struct module_qstate *qs,
		const uint8_t *qname, uint16_t qtype,
		const struct mesh_answer *ans, struct mesh_answer **out);
	/**
	 * Whether a zone's answers must be signed (dnssec-lame detection
	 * in the iterator): set by the validator when it has trust anchors
	 * (its worker_start), else NULL.
	 * @param arg: dnssec_zone_arg.
	 * @param zone: the zone, lower-case wire.
	 * @return 1 when a trust anchor sits at the zone, else 0.
	 */
	int (*dnssec_zone)(void *arg, const uint8_t *zone);
	/** the argument of dnssec_zone */
	void *dnssec_zone_arg;
	/**
	 * Aggressive use of validated NSEC (RFC 8198) for a name the
	 * iterator reaches by following a CNAME or DNAME (the client's
	 * question itself is answered so by the validator before it goes
	 * down): set by the validator (its worker_start) when it keeps
	 * such a store, else NULL. The iterator calls it for a state that
	 * asks for DNSSEC records (MESH_FLAG_DNSSEC) without CD, before it
	 * asks upstream for the target, as Unbound's iterator reads its
	 * negative cache for the name it chases.
	 * @param arg: neg_answer_arg.
	 * @param qs: the state; the records are made in qs->region.
	 * @param name: the target, lower-case wire; qtype: its type.
	 * @param rcode: set to NXDOMAIN, or NOERROR for NODATA.
	 * @param auth: records appended: the NSEC records, the zone's SOA,
	 *	each with its RRSIG (trust 0: not stored again; the
	 *	validator checks them with the rest of the answer).
	 * @return 1 when the store proves the target or its type does not
	 *	exist, else 0 (auth untouched).
	 */
	int (*neg_answer)(void *arg, struct module_qstate *qs,
		const uint8_t *name, uint16_t qtype, int *rcode,
		struct module_rrlist *auth);
	/** the argument of neg_answer */
	void *neg_answer_arg;
};

/** EDNS options on the upstream queries of a state: a module (the
 * subnetcache) sets qstate->edns_hook on its state; the mesh's
 * send_query asks out() for the options of each query and gives every
 * reply to in(). Modules below (the iterator) know nothing of it. */
struct module_edns_hook {
	/**
	 * The EDNS options for one upstream query.
	 * @param qs: the state; arg: qstate->edns_hook_arg.
	 * @param to: the server; qname: the name asked (wire).
	 * @param buf: where to write the options (code, length, data).
	 * @param max: room in buf.
	 * @return bytes written, 0 for none.
	 */
	size_t (*out)(struct module_qstate *qs, void *arg,
		const struct netaddr *to, const uint8_t *qname, uint8_t *buf,
		size_t max);
	/** A reply to one of the state's queries (the packet, unscrubbed,
	 * valid during the call only). */
	void (*in)(struct module_qstate *qs, void *arg, const uint8_t *pkt,
		size_t len);
};

/** one query state as the modules see it (part of a mesh state) */
struct module_qstate {
	/** the question: lower-cased name (points into the mesh state) */
	const uint8_t *qname;
	/** its length */
	size_t qname_len;
	/** type */
	uint16_t qtype;
	/** class */
	uint16_t qclass;
	/** MESH_FLAG_*: the DO and CD bits of the question, RD, NOFWD */
	int flags;
	/** 1 for a background query (prefetch, priming) nobody waits on */
	int prefetch;
	/** sub-query depth: 0 for client and background states */
	int depth;
	/** when the state started (the worker's clock) */
	struct timeval start;
	/** per-state memory, freed with the state */
	struct region *region;
	/** the environment */
	struct module_env *env;
	/** the module running now (index in the stack) */
	int curmod;
	/** per module: what it wants next */
	enum module_ext_state ext_state[MODULE_MAX];
	/** per module: its data for this state (in region) */
	void *minfo[MODULE_MAX];
	/** number of sub-states this one waits on */
	int num_subs;
	/** the answer: rcode (valid when finished) */
	int return_rcode;
	/** the answer's records, or NULL (SERVFAIL, or no data kept) */
	struct mesh_answer *return_msg;
	/** Extended DNS Error for a SERVFAIL, or -1 */
	int ede;
	/** a client question without CD that the validator made SERVFAIL
	 * as bogus: its bogus answer (TTLs at most val-bogus-ttl, in the
	 * state's region), which the front end keeps for CD clients (their
	 * message cache key), as Unbound serves its bogus message to them;
	 * else NULL */
	struct mesh_answer *bogus_msg;
	/** the servers whose replies the answer in return_msg was made of
	 * (the final reply, and those of the CNAMEs before it), recorded
	 * by the iterator, at most MODULE_ORIGIN_MAX: pointers into its
	 * data in the region, valid while the state lives */
	const struct netaddr *origin[MODULE_ORIGIN_MAX];
	/** how many */
	int origin_count;
	/** servers the iterator must not ask for this state: a module
	 * above that passes a finished query down again (the validator,
	 * after a bogus answer: val-max-restart) puts the origins of the
	 * rejected answer here; so does the validator of a super-state, on
	 * a DNSKEY or DS sub-query it attaches after a bogus key set (the
	 * servers that gave it). In the region, NULL until first used, at
	 * most MODULE_EXCLUDE_MAX */
	struct netaddr *exclude;
	/** how many */
	int exclude_count;
	/** what the referrals the iterator followed for this state said of
	 * the DS sets of their zone cuts: their DS, NSEC and NSEC3 records
	 * and the RRSIGs over them, unchecked, in the region (at most
	 * MODULE_CUT_PROOFS_MAX), kept only when the state asks for DNSSEC
	 * records (MESH_FLAG_DNSSEC) without CD. A module above (the validator) may
	 * prove a cut's DS set from them instead of asking the parent again
	 * for what the referral said (as Unbound's negative cache keeps a
	 * referral's NSEC3 records for its DS lookups) */
	struct module_rrlist cut_proofs;
	/** the client's subnet (in the state's region), or NULL: the
	 * state is not the client's own (no subnetcache, a sub-query, a
	 * prefetch) */
	struct module_ecs *ecs;
	/** the client tags the state resolves for (a bit per define-tag),
	 * part of the mesh key: set only when rpz zones with tags: may have
	 * NSDNAME / NSIP triggers (policy_ns_tags), so that those zones
	 * apply to their clients alone; 0 otherwise, and for sub-queries
	 * and prefetches */
	uint64_t tags;
	/** EDNS option hook for the upstream queries, or NULL */
	const struct module_edns_hook *edns_hook;
	/** its argument */
	void *edns_hook_arg;
	/** 1 when the answer must not go to the shared caches (the
	 * subnetcache keeps it for its scope only) */
	int no_cache_store;
	/** upstream queries counted against this state's max-global-quota
	 * (by itself and the sub-queries below it, see
	 * module_env.global_quota) */
	int global_sends;
	/** the mesh state this is part of (for the mesh) */
	void *mesh_info;
};

/**
 * A request of the remote control (daemon/remote*.c) to the modules, made
 * through module_func_block.control: the daemon asks the stack which
 * module answers a request (modstack_control_find, front/modstack.h) and
 * never names the module nor looks into its data. The inputs and outputs
 * of each request are fields of struct module_ctl_arg, as listed here.
 */
enum module_ctl {
	/** key.cache.count: count set to the entries of the module's key
	 * cache */
	MODULE_CTL_KEY_COUNT = 0,
	/** flush_zone, flush_type NAME DNSKEY: forget the key cache
	 * entries of name (all: 1 name and every name below it, 0 name
	 * only); count set to how many went */
	MODULE_CTL_FLUSH_KEYS,
	/** flush_negative: forget the key cache's bad entries (failed DS
	 * or DNSKEY lookups); count set to how many went */
	MODULE_CTL_FLUSH_BAD_KEYS,
	/** flush_bogus: forget the bogus answers the module remembers and
	 * the bogus key cache entries; count set to how many went */
	MODULE_CTL_FLUSH_BOGUS,
	/** insecure_add: a negative trust anchor at name, added at run
	 * time; the request fails (-1) when the module holds as many as it
	 * can, with count set to that most */
	MODULE_CTL_INSECURE_ADD,
	/** insecure_remove: remove the one at name; count set to 1 when
	 * one went, 0 when there was none */
	MODULE_CTL_INSECURE_REMOVE,
	/** list_insecure: the names not validated (config and run time),
	 * one per line ("name\n"), given to text() */
	MODULE_CTL_INSECURE_LIST,
	/** ratelimit_list: rate() for each zone with a rate at second now
	 * (all: 1 every one, 0 those over their limit) */
	MODULE_CTL_RATELIMIT_LIST,
	/** list_stubs: hint() for each root hint, in the module's order
	 * (addr NULL for a name without an address) */
	MODULE_CTL_ROOT_HINTS
};

/** the inputs and outputs of a control request (enum module_ctl says
 * which fields each uses); the caller zeroes what it does not set */
struct module_ctl_arg {
	/** in: a name, wire format */
	const uint8_t *name;
	/** in: a flag of the request (below, all) */
	int all;
	/** in: the current second */
	time_t now;
	/** out: a count */
	size_t count;
	/** in: the argument of the callbacks below */
	void *cbarg;
	/** in: takes a piece of text (len bytes, not NUL-terminated) */
	void (*text)(void *cbarg, const char *text, size_t len);
	/** in: takes a zone (presentation format), its rate, its limit */
	void (*rate)(void *cbarg, const char *zone, int rate, int limit);
	/** in: takes a root hint: its NS name (wire) and address or NULL */
	void (*hint)(void *cbarg, const uint8_t *name,
		const struct netaddr *addr);
};

struct respip_set;
struct config_policyline;
struct dns_builder;
struct fast_query;

/**
 * The front end's local data, as response-ip's rules use it (the
 * response-ip-data records of a netblock, the access-control-tag-data of
 * a tag): a record store with the records at its apex, built from RR
 * lines. The front end hands it to the rules when it makes a set
 * (module_respip_ops.set_new), so that the module (below the front end)
 * reaches the store without naming it. The data pointers are the store's.
 */
struct module_respip_data {
	/** @return an empty store, or NULL when out of memory */
	void *(*create)(void);
	/** add a record ("ttl class type rdata" after an owner of "."):
	 * @return 0, or -1 with err filled */
	int (*add)(void *d, const char *rr, char *err, size_t errlen);
	/** finish a store after its last add: @return 0, or -1 with err */
	int (*finish)(void *d, char *err, size_t errlen);
	/** free a store (NULL allowed) */
	void (*del)(void *d);
	/** @return 1 when a finished store (or NULL: 0) holds an RRset of
	 * the type, or a CNAME, at its apex */
	int (*has)(const void *d, uint16_t type);
	/** put that RRset (or the CNAME) in the answer section being
	 * built, with the owner given. @return 1 put (or truncated), 0 none */
	int (*put)(const void *d, struct dns_builder *b, const uint8_t *owner,
		uint16_t type);
};

/**
 * A client, as response-ip's rules see it: its tags, and per tag what
 * access-control-tag-action and -data say (module_respip_ops.action_of
 * of the action's word, data of the store above). Owned by the front
 * end, read-only.
 */
struct module_respip_client {
	/** the tag bits */
	uint64_t tags;
	/** per tag a response-ip action (module_respip_ops.action_of), 0
	 * for none; CONFIG_MAX_TAGS entries */
	const uint8_t *action;
	/** per tag its data store, or NULL; CONFIG_MAX_TAGS entries */
	const void *const *data;
};

/** what module_respip_ops.apply() did with an answer */
enum module_respip_result {
	/** no rule acted: the answer goes on as it is */
	MODULE_RESPIP_PASS = 0,
	/** the answer was rewritten (in the caller's buffer) */
	MODULE_RESPIP_REWRITTEN,
	/** send nothing */
	MODULE_RESPIP_DROP
};

/**
 * response-ip's rules (response-ip, response-ip-data, response-ip-tag),
 * which the module with the front end's respip capability offers
 * (module_func_block.respip): the front end builds a set per scope
 * (server:, each view:) from the config lines and applies the set that
 * fits the client to each answer it sends, without naming the module
 * (front/modstack.h, modstack_respip()).
 */
struct module_respip_ops {
	/** @return an empty set whose data lives in the store of dat
	 * (kept), or NULL when out of memory */
	struct respip_set *(*set_new)(const struct module_respip_data *dat);
	/** add a response-ip, response-ip-data or response-ip-tag line
	 * (cfg for the tag names): @return 0, or -1 with "file:line:
	 * reason" in err */
	int (*set_line)(struct respip_set *rs, const struct config_file *cfg,
		const struct config_policyline *l, char *err, size_t errlen);
	/** finish a set after its last line: @return 0, or -1 with err */
	int (*set_finish)(struct respip_set *rs, char *err, size_t errlen);
	/** @return the number of netblocks of a set */
	size_t (*set_count)(const struct respip_set *rs);
	/** free a set (NULL allowed) */
	void (*set_delete)(struct respip_set *rs);
	/** @return the action code of a local-zone type word for
	 * module_respip_client.action (never 0 for a word) */
	uint8_t (*action_of)(const char *word);
	/**
	 * Apply a set to an answer about to go to a client: the longest
	 * netblock holding an address of the answer section decides.
	 * @param rs: the set.
	 * @param c: the client's tags (a netblock's response-ip-tag), or
	 *	NULL when tags do not apply.
	 * @param pkt, fq: the client's query and its parse; client its
	 *	address (NULL: no client, for the inform line); tcp its
	 *	transport.
	 * @param edns_size, max_udp: our EDNS size and UDP answer limit.
	 * @param ans: the answer, rewritten in place; anslen in/out,
	 *	ansmax its buffer's size.
	 * @param scratch: room for the rewrite; scratchmax its size.
	 * @param matched: set to 1 when a netblock held an address (even
	 *	when its action lets the answer pass), else 0.
	 * @return what it did. No allocation, no locks.
	 */
	enum module_respip_result (*apply)(const struct respip_set *rs,
		const struct module_respip_client *c, const uint8_t *pkt,
		const struct fast_query *fq, const struct netaddr *client,
		int tcp, uint16_t edns_size, uint16_t max_udp, uint8_t *ans,
		size_t *anslen, size_t ansmax, uint8_t *scratch,
		size_t scratchmax, int *matched);
};

/** one module: a table of functions. A module fills it with designated
 * initialisers (.name = "x", .operate = x_operate, ...): a hook it does
 * not name is NULL, so a new hook touches only the modules that use it */
struct module_func_block {
	/** name as in module-config */
	const char *name;
	/** name in the statistics (mem.mod.NAME), where Unbound prints
	 * another than the module-config one; NULL: the name above */
	const char *stats_name;
	/**
	 * Set up: build env->modinfo[id] (settings) from env->cfg. Called
	 * once per daemon environment (at start and at each reload).
	 * @return 0, or -1 with a message in err.
	 */
	int (*init)(struct module_env *env, int id, char *err,
		size_t errlen);
	/** Tear down what init() made in env->modinfo[id]. */
	void (*deinit)(struct module_env *env, int id);
	/**
	 * Work on a state for an event; leave the result in
	 * qstate->ext_state[id].
	 * @param reply: for MODULE_EVENT_REPLY the reply, else NULL.
	 */
	void (*operate)(struct module_qstate *qstate, enum module_ev event,
		int id, struct module_reply *reply);
	/**
	 * A sub-state that super waits on has finished (sub->return_rcode,
	 * sub->return_msg). Called for super's current module.
	 */
	void (*inform_super)(struct module_qstate *sub, int id,
		struct module_qstate *super);
	/** Free what the module holds for a state (cancels its queries). */
	void (*clear)(struct module_qstate *qstate, int id);
	/** @return bytes used by the module's global data */
	size_t (*get_mem)(struct module_env *env, int id);
	/** Free env->worker_data[id] (the mesh of the worker is being
	 * deleted, its states are gone); NULL when the module keeps none. */
	void (*worker_deinit)(struct module_env *env, int id);
	/**
	 * The trust anchors the module validates with, for the front end's
	 * answer to trustanchor.unbound CH TXT (hide-trustanchor): one line
	 * per anchor that has keys, "name tag tag ..." (the key tags of its
	 * DS and DNSKEY records, ascending), each ended by a newline, in
	 * buf (len bytes, NUL-terminated; what does not fit is left out).
	 * NULL in modules without trust anchors.
	 * @return the number of lines written.
	 */
	int (*anchor_list)(struct module_env *env, int id, char *buf,
		size_t len);
	/**
	 * A failure the module remembers for a question (the validator's
	 * bogus answers, val-bogus-ttl), for the front end's answer to a
	 * query without RD, which starts no resolution: Unbound keeps such
	 * a failure in its message cache and answers it from there.
	 * NULL in modules that remember none.
	 * @param qname: the question name (any case); qtype: its type.
	 * @return the Extended DNS Error of the failure, or -1 for none.
	 */
	int (*failure_lookup)(struct module_env *env, int id,
		const uint8_t *qname, uint16_t qtype);
	/** The worker's mesh is ready (env->worker_index, timer_set and
	 * the mesh functions are set): start the module's per-worker jobs
	 * (timers). Called once per mesh, before any query; NULL for none.
	 * worker_deinit() undoes it. */
	void (*worker_start)(struct module_env *env, int id);
	/**
	 * A request of the remote control (enum module_ctl), so that the
	 * daemon reaches the module's data without naming the module.
	 * NULL in modules that answer none.
	 * @param env: a module env whose modinfo[id] is the module's (a
	 *	worker's, or one made from the stack's modinfo).
	 * @param what: the request.
	 * @param arg: its inputs and outputs; NULL only to ask whether the
	 *	module answers what (nothing is done).
	 * @return 1 done (or, with arg NULL, the module answers what), 0
	 *	the module does not answer what, -1 it answers but the request
	 *	failed (as enum module_ctl says).
	 */
	int (*control)(struct module_env *env, int id, enum module_ctl what,
		struct module_ctl_arg *arg);
	/** response-ip's rules, which the front end applies per client
	 * (struct module_respip_ops); NULL in the other modules */
	const struct module_respip_ops *respip;
};

/** the modules of module-config, in order, with their global data */
struct module_stack {
	/** number of modules */
	int num;
	/** the modules */
	const struct module_func_block *mod[MODULE_MAX];
	/** their global data (from init), copied into each worker's env */
	void *modinfo[MODULE_MAX];
};

/**
 * A record copied into a region (owner and RDATA too).
 * @return the record (next NULL) or NULL when out of memory.
 */
struct module_rr *module_rr_new(struct region *r, const uint8_t *owner,
	size_t owner_len, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen);

/** Append a record to a list (the record itself: it must not be in
 * another list). */
void module_rrlist_append(struct module_rrlist *l, struct module_rr *rr);

/**
 * Append a copy of a record's struct (sharing its owner and RDATA, which
 * must live as long as the region) to a list.
 * @return 0 or -1 when out of memory.
 */
int module_rrlist_push(struct region *r, struct module_rrlist *l,
	const struct module_rr *rr);

/** @return the name of an event ("new", "pass", ...) */
const char *module_event_str(enum module_ev ev);

#endif /* SERVICES_MODULE_H */
