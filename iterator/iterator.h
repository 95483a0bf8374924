/*
 * iterator/iterator.h - the iterator module: iterative resolution for one
 * query state.
 *
 * It is the last module of every module-config (services/module.h has the
 * contract): a new or passed-down query is answered from the RRset cache
 * or resolved by asking servers; the result goes back up the chain. Its
 * settings (iter_env: root hints, forward and stub zones, limits) are its
 * global data, built by its init() from the config.
 *
 * harden-below-nxdomain (RFC 8020): before the RRset cache, a state that
 * asks for DNSSEC (a validator above) looks for a secure NXDOMAIN of a
 * parent name in the message cache (its DO entry, which keeps the proof)
 * and, when there is one, answers NXDOMAIN with that proof, which the
 * validator checks again for this name.
 *
 * A class-ANY question is asked, as Unbound asks it, in each class with
 * root hints (class IN, with its forward and stub zones, and the classes
 * root-hints files give): one sub-query per class, validated as a client
 * question is (MESH_FLAG_VALSUB), in the order the classes finish; their
 * sections are joined, the rcode is NOERROR when a part is NOERROR (else
 * the first part's), the security status the lowest of the parts' (so no
 * AD unless every part is secure), and SERVFAIL when a part fails. No
 * class-ANY query goes upstream. A question of another class than IN
 * starts from the root hints of its class (forward and stub zones are of
 * class IN), and primes them in its class.
 *
 * Where to start: a forward zone (longest match) is always used as is.
 * Otherwise the closest delegation in the RRset cache, when it lies below
 * the configured stub zone (if any); else the stub zone; else the root
 * hints. Starting from the hints (or a stub with stub-prime) also starts a
 * background priming query ("zone NS") whose answer and glue go into the
 * RRset cache, so later resolutions use the real server set. A cached
 * delegation whose servers all fail is abandoned for the configured zone
 * or the root (stale NS sets); one with no usable address whose NS names
 * all lie inside it (a referral that lacked its glue) is passed over for
 * the cached delegation above it (iter_dp_useless).
 *
 * Each reply is scrubbed (iterator/iter_scrub.h): records outside the
 * zone the queried server is authoritative for are dropped (bailiwick),
 * A/AAAA answers in private-address ranges are dropped unless under a
 * private-domain, and of the answer section only the records at the name
 * asked and the DNAME that applies to it are kept (the chain cut, as
 * Unbound's scrubber: each further link of a CNAME/DNAME chain is asked
 * for, from the RRset cache first). It is then classified (iter_classify):
 *   - an answer (the question's RRset, possibly behind CNAMEs/DNAME);
 *   - a CNAME (or DNAME, synthesised into a CNAME) whose target must be
 *     resolved: from the top again, at most max-query-restarts links in
 *     all (default ITER_MAX_CNAME);
 *   - a referral to a zone strictly below the current one (also with AA
 *     set but no SOA): glue is kept only for the referred NS names and
 *     only from under the current zone; NS names without glue are looked
 *     up in the RRset cache, then by sub-queries through the mesh (A, then
 *     AAAA when the A gave no address, NXDOMAIN included, as Unbound asks
 *     both families of a name): when the delegation is first used, as
 *     many as target-fetch-policy gives for the state's dependency depth
 *     (-1 all, default "3 2 1 0 0"), and later one at a time, when every
 *     server with a known address was tried; at most ITER_MAX_TARGETS
 *     names per delegation for a client query, half as many per level of
 *     depth (the NXNSAttack limit), and when more than ITER_MAX_TARGET_NX
 *     names came back without an address from upstream the delegation
 *     is given up (a cached one for the one from the top, which may see
 *     twice as many); a lookup whose name the message cache denies
 *     (NXDOMAIN) is answered from it and counts for neither bound, as
 *     Unbound does not count cached answers; dependency cycles are
 *     refused by the mesh;
 *     when every server failed, the parent zone's glue for the NS names
 *     (seen by their lookups, or in the cache at any trust) is the last
 *     resort (iter_parent_glue: the child's answer for its server's
 *     address may be wrong where the parent's glue works); after it,
 *     the AAAA of an NS name whose glue was IPv4 only, all of it
 *     excluded by a module above (a bogus answer's servers), as Unbound
 *     counts such a name as a target still missing its other family
 *     (iter_start_aaaa_targets);
 *   - NXDOMAIN or NODATA (with the SOA, if given);
 *   - recursion lame (an answer or denial with RA and without AA): the
 *     other servers are asked first; when none is left, the server is
 *     asked again with RD and its reply taken as a forwarder's;
 *   - lame (REFUSED, NOTIMPL, upward or sideways referral, nothing
 *     useful): remembered in the infrastructure cache for the zone, and
 *     another server tried; SERVFAIL (and other error rcodes),
 *     timeouts and network errors let the server be asked again, after
 *     the others, up to outbound-msg-retry times in all, as Unbound's
 *     iterator does (the network does not retransmit; timeouts also feed
 *     its RTT, so each retry gets the doubled timeout);
 *     garbage makes it skipped for this resolution;
 *   - dnssec lame (with a validator that has trust anchors): an answer,
 *     denial or CNAME without any RRSIG from a server of a zone whose
 *     answers must be signed (a trust anchor at the zone, or its DS set
 *     in the referral or the cache) to a DNSSEC query: the other servers
 *     are asked first; when none is left, the server is asked again and
 *     its reply taken as it is (Unbound's dnssec-lame detection; the
 *     replies to the first three queries to a delegation are checked).
 * Servers are chosen by the infrastructure cache (RTT band, lame servers
 * skipped) among those tried the fewest times (of the preferred family
 * first with prefer-ip4 or prefer-ip6; never those of
 * do-not-query-address). FORMERR to an EDNS query is
 * retried without EDNS (remembered); TC is retried over TCP. Forwarded
 * queries carry RD and their answers are taken as they are (after the
 * question check). What is learnt goes into the RRset cache (trust ranks:
 * referral NS and glue low, authoritative answers high). A forward or
 * stub zone with forward-tcp-upstream or stub-tcp-upstream has its
 * servers asked over TCP only (as tcp-upstream does for all). A forward
 * zone's host names (forward-host) are looked up through its forwarders
 * when it has a usable address of its own, else from the root hints; a
 * TC reply over TCP, and a forwarder's upward referral, fail the server.
 *
 * Bounded waits (issue 17): a server with INFRA_DOWN_TIMEOUTS timeouts in
 * a row is down; queries skip it (the state that saw it time out goes on
 * asking it up to outbound-msg-retry times), and when a delegation has
 * no other server they fail at once (SERVFAIL, EDE 22) instead of
 * waiting on it,
 * while one background probe (MESH_FLAG_PROBE, claimed in the
 * infrastructure cache so one runs at a time for all workers) asks it
 * with its backed-off timeout; its answer makes the server usable again.
 * No attempt other than a probe waits longer than ITER_CLIENT_RTO_MAX.
 * So a client waits, for a zone whose only server goes silent,
 * 376 + 752 + 1500 + 1500 + 1500 ms = 5.6 s the first time (the five
 * attempts of outbound-msg-retry; the third timeout marks the server
 * down) and no upstream time at all afterwards.
 *
 * Limits: ITER_MAX_REFERRALS referrals, ITER_MAX_SENDS upstream queries
 * per state (and max-sent-count to the servers of one delegation), max-global-quota upstream queries for a client question and
 * all its sub-queries together (the mesh keeps the count, see
 * module_env.global_quota),
 * nested target lookups no deeper than target-fetch-policy has values
 * (less one), and a total time budget per
 * state; past them, or when every server failed, the client gets SERVFAIL
 * with an Extended DNS Error (22 No Reachable Authority, 23 Network Error).
 *
 * With qname-minimisation (RFC 9156, relaxed) the iterator asks for type
 * A of one label more than the zone cut it knows; a referral moves down, a
 * NOERROR answer adds a label, NXDOMAIN or an error falls back to the full
 * name (with qname-minimisation-strict, NXDOMAIN is the answer instead;
 * so is a signed NXDOMAIN, an NSEC or NSEC3 with its RRSIG, for a query
 * the validator checks, as Unbound stops there);
 * an error rcode (REFUSED, SERVFAIL, ...) to a minimised query asks the
 * same server the full name before the server is judged by it.
 *
 * Restarts (val-max-restart, services/module.h): the address of each
 * server whose reply becomes part of the answer (the final reply, CNAME
 * replies) is noted in qstate->origin. A module above that passes the
 * finished state down again wakes the iterator with MODULE_EVENT_PASS in
 * ITER_DONE: it resolves the question anew (iter_restart), never asking
 * an address in qstate->exclude; the sends and the time budget of the
 * state count on across restarts.
 *
 * The RRset cache answers a question (iter_answer_from_cache) with the
 * set asked for, or a chain of CNAMEs and validated DNAMEs to it; for a
 * state that asks for DNSSEC only sets stored with their RRSIGs (and not
 * expanded from a wildcard), which the validator checks again; never
 * after a restart by a module above. A YXDOMAIN reply with the DNAME whose
 * substitution is too long is the answer (RFC 6672 2.2).
 *
 * Records (struct module_rr) and the delegation points live in the
 * state's region. Upstream replies are parsed by dns/msgparse: ldns is not
 * used on this path.
 */
#ifndef ITERATOR_ITERATOR_H
#define ITERATOR_ITERATOR_H

#include <stdint.h>
#include <stddef.h>
#include "util/netaddr.h"
#include "services/module.h"

struct module_func_block;
struct iter_env;
struct delegpt;
struct outbound_query;
struct delegpt_addr;
struct iter_zone;

/** most CNAME/DNAME links followed: the default of max-query-restarts */
#define ITER_MAX_CNAME		11
/** most referrals followed for one name */
#define ITER_MAX_REFERRALS	30
/** most upstream queries for one client question (all sub-queries
 * count separately) */
#define ITER_MAX_SENDS		64
/** most NS names resolved per delegation (NXNSAttack) */
#define ITER_MAX_TARGETS	6
/** most NS names of a state whose address lookups (asked upstream, not
 * answered from the cache) all gave no address, before the state fails
 * (Unbound's MAX_TARGET_NX: the sixth fails it) */
#define ITER_MAX_TARGET_NX	5
/** total time budget for one state, ms */
#define ITER_MAX_TIME_MS	30000
/** largest timeout of one upstream attempt made for a query other than
 * a probe, ms: a server whose backed-off rto is longer still gets this
 * long (a client is not held for the backoff; the probe waits it out) */
#define ITER_CLIENT_RTO_MAX	1500

/** where the iterator is */
enum iter_phase {
	/** start: find the delegation to begin from */
	ITER_INIT = 0,
	/** pick a server and send (or wait for targets) */
	ITER_SEND,
	/** a query is out, waiting for the reply */
	ITER_WAIT_REPLY,
	/** finished */
	ITER_DONE
};

/** per-state iterator data (in the mesh state's region) */
struct iter_qstate {
	/** phase */
	enum iter_phase phase;
	/** current name being resolved (after CNAMEs), lower case */
	uint8_t qname[256];
	/** its length */
	size_t qname_len;
	/** question type */
	uint16_t qtype;
	/** question class */
	uint16_t qclass;
	/** the CNAME/DNAME records collected so far (in the region) */
	struct module_rrlist chain;
	/** the NSEC and NSEC3 records (and their RRSIGs) that came with
	 * the chain's CNAMEs (a wildcard CNAME's proof, the insecure
	 * delegation its target is under): the validator needs them with
	 * the final answer, which goes on without them */
	struct module_rrlist chain_ns;
	/** number of CNAME links followed */
	int cname_count;
	/** current delegation point */
	struct delegpt *dp;
	/** referrals followed */
	int referrals;
	/** 1 when the query in flight went to a dnssec-lame server as the
	 * last resort: its reply is not checked for signatures */
	int dnssec_lame_query;
	/** upstream queries sent */
	int sends;
	/** the upstream query in flight, or NULL */
	struct outbound_query *oq;
	/** server of the query in flight (in a delegpt in the region) */
	struct delegpt_addr *cur;
	/** server to ask again next (FORMERR, TC, qname minimisation) */
	struct delegpt_addr *retry;
	/** 1 after forward-first/stub-first fell back to recursion */
	int skip_zone;
	/** the configured zone the current delegation came from, or NULL */
	struct iter_zone *zone;
	/** the zone skipped after forward-first/stub-first failed */
	struct iter_zone *skipped;
	/** 1 after a delegation from the cache failed: ignore the cache */
	int no_cache;
	/** 1 after a restart by a module above (val-max-restart): the
	 * answer is not taken from the RRset cache again (what was cached
	 * gave the answer that failed), it is asked for */
	int restarted;
	/** flags of the query in flight */
	int cur_flags;
	/** timeout (rto) the query in flight was sent with, ms */
	int cur_rto;
	/** name sent in the query in flight (may be minimised) */
	uint8_t sent_qname[256];
	/** its length */
	size_t sent_qname_len;
	/** type sent in the query in flight */
	uint16_t sent_qtype;
	/** qname minimisation: labels of qname to ask for now (0: full) */
	int qmin_labels;
	/** 1 when minimisation was given up for this name */
	int qmin_off;
	/** last error for the EDE, -1 none */
	int ede;
	/** 1 when a reply of any kind came back */
	int got_reply;
	/** 1 when the answer may hold less than a DO client's answer: a
	 * reply it was built from carried a DNSSEC record (RRSIG, NSEC,
	 * NSEC3), or part of it came from the RRset cache (whose records
	 * are not known to be all there is); see mesh_answer.do_same */
	int dnssec_seen;
	/** 1 when the last reply had A or AAAA records of the wrong length
	 * dropped (iter_reply.len_dropped): its answer carries EDE 0 */
	int len_scrubbed;
	/** the server whose authoritative reply was entirely empty
	 * (ITER_CL_EMPTY), kept as the NODATA answer when no other server
	 * says more; NULL when none */
	struct delegpt_addr *empty_from;
	/** the delegation it was asked as (it counts for it only) */
	struct delegpt *empty_dp;
	/** NS names whose address lookups gave no address, asked
	 * upstream (ITER_MAX_TARGET_NX) */
	int nx_targets;
	/** 1 when this state, an NS address lookup, was answered NXDOMAIN
	 * from the message cache (iter_target_neg_cached) */
	int neg_cached;
	/** servers skipped as down (infra_is_down) for this resolution */
	int down_skipped;
	/** the last of them: the one to probe */
	struct netaddr down_addr;
	/** queries sent to the servers of the current delegation */
	int dp_sends;
	/** 1 when the state is to run again after the current step */
	int again;
	/** RPZ NSDNAME / NSIP (env->rpz_ns): the delegation whose NS names
	 * were checked last, and 1 after a PASSTHRU rule, 2 after a TCP-ONLY
	 * rule (the answer is then for TCP clients only) */
	const struct delegpt *rpz_dp;
	/** see rpz_dp */
	int rpz_pass;
	/** 1 when the state began as a refresh (prefetch, serve-expired:
	 * no client), not one whose clients left nor a probe of a down
	 * server: sets about to expire (CACHE_REFRESH_LEEWAY) are not used
	 * or kept */
	int refresh;
	/** 1 for a class-ANY question: it is asked in each class with
	 * root hints by sub-queries, whose answers are merged
	 * (iter_collect_*); nothing is sent for it */
	int collect;
	/** those sub-queries still out */
	int collect_pending;
	/** 1 when one of them failed: the answer is SERVFAIL */
	int collect_failed;
	/** the Extended DNS Error of the failure, or -1 */
	int collect_ede;
	/** the merged answer so far (in the region), or NULL */
	struct mesh_answer *collect_ans;
};

/** the iterator module (name "iterator") */
extern const struct module_func_block iter_module_block;

#endif /* ITERATOR_ITERATOR_H */
