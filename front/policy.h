/*
 * front/policy.h - the answer policies of the front end: views (split
 * horizon) and response policy zones (RPZ, services/rpz.h).
 *
 * A struct policy is built from the config's policy lines (the rpz: and
 * view: clauses and the server: options access-control-view and
 * interface-view, kept as written by the config parser, see struct
 * config_policyline) and checked there: a bad line stops the load with
 * "file:line: what was expected". When none of them is given there is no
 * policy at all (policy_apply_cfg() gives NULL) and the front end pays one
 * pointer test per query for this whole file.
 *
 * The order of work for a query that passed access control
 * (policy_front_answer()):
 *   1. the view: the client address's longest access-control-view
 *      netblock, else the interface-view of the address the query came
 *      to; the view's local zones answer first (view-first: and noview
 *      zones fall through to the global ones, see
 *      local_front_answer_view());
 *   2. the RPZ zones in the order of their rpz: clauses: in each, the
 *      CLIENT-IP triggers, then QNAME (exact, then the closest wildcard).
 *      The first zone with a match decides: PASSTHRU stops RPZ and goes on
 *      to the cache, DROP sends nothing, TCP-ONLY answers TC over UDP,
 *      the others answer here with EDE 15 (Blocked: NXDOMAIN, NODATA) or
 *      17 (Filtered: local data, CNAME) when the query had EDNS.
 *   3. otherwise the cache and recursion, as without a policy.
 *
 * Tags (define-tag, at most 64): a client's tags are those of its
 * access-control entry (access-control-tag; acl_check_ref() gives the
 * entry's number, an index into the policy's tag sets), else those of the
 * address the query came to (interface-tag). They select the tagged global
 * local zones (local-zone-tag; struct local_tags in front/localzone.h
 * says how a tag's -action and -data apply) and the rpz: zones with a
 * tags: line. Without tag lines the front answer is as before (no extra
 * lookup).
 *
 * Answers on their way out: response-ip lines and the RPZ RESPONSE-IP
 * triggers are applied per client to every answer (cache hit or fresh) by
 * policy_respip_answer(); the front end calls it only when
 * policy_has_respip() (one test per cached answer otherwise). The
 * response-ip rules are the respip module's (built, matched and applied
 * by the table modstack_respip() gives, services/module.h struct
 * module_respip_ops); the policy keeps a set per scope (server:, each
 * view) and picks the one for the client's view and tags.
 *
 * RPZ by transfer: an rpz: clause with primary: or url: lines gets a task
 * of the transfer service (services/xfr.h, its own thread, started by
 * policy_start()); its callback feeds rpz_zone_apply() (AXFR, or a zone
 * file fetched over HTTP(S)) or rpz_zone_update() (IXFR) and writes the
 * zonefile:. NOTIFY for such a
 * zone: policy_rpz_notify().
 *
 * NSDNAME and NSIP triggers: the iterator shows each delegation's NS names
 * and each server address to policy_rpz_ns() (module_env.rpz_ns, NULL
 * when no zone can have such triggers); a rule's answer finishes the
 * client's question, marked so that no cache keeps it. For zones with
 * tags: the states of a client with their tags are its own (keyed by
 * policy_ns_tags(), module_qstate.tags) and resolve without cached
 * answers.
 *
 * Threads: the structure is immutable after policy_apply_cfg() except
 * for the RPZ snapshots (atomic pointer swaps, services/rpz.h) and the
 * enabled switches (atomic ints): any number of workers read it without
 * locks. A reload builds a new one while the workers are paused. The
 * front answer allocates nothing and locks nothing; it logs only for an
 * rpz-log: yes zone that acted.
 */
#ifndef FRONT_POLICY_H
#define FRONT_POLICY_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include "front/localzone.h"

struct policy;
struct xfr_service;
struct config_file;
struct acl_list;
struct fast_query;
struct netaddr;
struct rpz;

/**
 * Build the policy of a config: views, access-control-view,
 * interface-view, the rpz: zones (their zone files read now).
 * @param out: set to the policy, or to NULL when the config has none.
 * @param cfg: the config (not kept).
 * @param err: "file:line: reason" on failure; errlen its size.
 * @return 0 or -1.
 */
int policy_apply_cfg(struct policy **out, const struct config_file *cfg,
	char *err, size_t errlen);

/** Free a policy. NULL is allowed. */
void policy_delete(struct policy *p);

/** @return 1 when some interface-view or interface-tag is configured
 * (the front end then passes the address each query came to) */
int policy_has_interface_views(const struct policy *p);

/** counters of the RPZ actions, kept by the caller (per worker) */
struct policy_stats {
	/** answers the RPZ zones made or dropped, per enum rpz_action */
	uint64_t rpz_action[9];
};

/**
 * The front end of a query with a policy: access control, the view's and
 * the global local zones, then RPZ (see the file comment).
 * @param p: the policy (not NULL).
 * @param local: the address the query came to, or NULL when unknown.
 * @param st: counters to increment, or NULL.
 * @param norec_ok: a query without RD for a name an auth-zone
 *	for-downstream holds goes on (the zone answers it) instead of being
 *	REFUSED by the RD rule.
 * Other parameters and the result as local_front_answer().
 */
enum local_front_result policy_front_answer(const struct policy *p,
	const struct acl_list *acl, const struct local_zones *lz,
	const uint8_t *pkt, size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, const struct netaddr *local, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, struct policy_stats *st, int norec_ok);

/** what policy_respip_answer() did */
enum policy_respip_result {
	/** the answer goes out as it is */
	POLICY_RESPIP_PASS = 0,
	/** the answer was replaced (in the caller's buffer) */
	POLICY_RESPIP_REWRITTEN,
	/** send nothing */
	POLICY_RESPIP_DROP
};

/** @return 1 when answers must be shown to policy_respip_answer()
 * (response-ip lines, or an rpz zone with RESPONSE-IP triggers) */
int policy_has_respip(const struct policy *p);

/**
 * Response-ip (respip/respip.h): look at the A and AAAA records of the
 * answer section of an answer about to be sent to a client (a cache hit
 * or a fresh answer alike) and apply, in order: the response-ip lines of
 * the client's view; those of server: when none matched and the view has
 * view-first (or the client has no view), with the client's tags for a
 * netblock with response-ip-tag (the lowest common tag's
 * access-control-tag-action and, for redirect, -data); then the RPZ
 * RESPONSE-IP triggers of the rpz zones in order (for a client with the
 * zone's tags). Actions as Unbound's response-ip: data of the address
 * record's type (or a CNAME: the resolver then chases its target,
 * front/resolver.h) replaces it, the CNAME chain before it kept;
 * with none, always_refuse is REFUSED, always_nxdomain
 * NXDOMAIN, redirect and always_nodata NOERROR without the records,
 * the deny kinds drop, inform and always_transparent pass (inform logs).
 * Only A, AAAA and ANY questions are looked at. No allocation, no locks.
 * @param pkt, fq: the client's query and its parse.
 * @param client, local: the client's address and the one it asked.
 * @param ans: the answer; rewritten in place. anslen in/out its length;
 *	ansmax the buffer size.
 * @param st: counters of the RPZ actions, or NULL.
 */
enum policy_respip_result policy_respip_answer(const struct policy *p,
	const struct acl_list *acl, const uint8_t *pkt,
	const struct fast_query *fq, const struct netaddr *client,
	const struct netaddr *local, int tcp, uint8_t *ans, size_t *anslen,
	size_t ansmax, struct policy_stats *st);

/**
 * RPZ QNAME triggers on the CNAME targets of an answer (as Unbound applies
 * them while it follows the chain): the answer section's CNAME records
 * are walked in order, and the first target that a QNAME rule of an rpz
 * zone (for a client with the zone's tags) matches decides: passthru
 * leaves the answer as it is, drop drops it, tcp-only sets TC over UDP;
 * NXDOMAIN, NODATA, local data and the cname override replace what comes
 * after that CNAME (the chain to it is kept), with AA (the policy zone
 * answers for the target) and EDE 15 or 17. A cache hit and a fresh answer
 * alike; cheap when the answer does not begin with a CNAME. No
 * allocation, no locks.
 * Parameters as policy_respip_answer().
 */
enum policy_respip_result policy_rpz_cname_answer(const struct policy *p,
	const struct acl_list *acl, const uint8_t *pkt,
	const struct fast_query *fq, const struct netaddr *client,
	const struct netaddr *local, int tcp, uint8_t *ans, size_t *anslen,
	size_t ansmax, struct policy_stats *st);

/**
 * Start the zone transfers of the rpz zones with a primary: or url: (one
 * thread, services/xfr.h; with fork, one per worker process). Safe to
 * call from every worker; the first call starts it. @return 0, or -1
 * when the thread cannot start (the zones keep what their zone files
 * gave).
 */
int policy_start(struct policy *p);

/**
 * The transfer service of the rpz zones with a primary: or url:, or NULL
 * when there is none; owned by the policy. For a caller that runs it
 * without its thread (xfr_service_set_transport, xfr_service_run_due:
 * the replay runner, on its fake network and clock) instead of
 * policy_start.
 */
struct xfr_service *policy_xfr(struct policy *p);

/**
 * A NOTIFY for an rpz zone with a primary: from a primary or an
 * allow-notify netblock it wakes the zone's transfer (NOERROR, AA), from
 * anyone else it is REFUSED.
 * @return 1 with the reply in out, 0 when the NOTIFY is not for an rpz
 *	zone with a primary (the caller asks the auth zones).
 */
int policy_rpz_notify(const struct policy *p, const uint8_t *pkt,
	size_t len, const struct netaddr *from, uint8_t *out, size_t outmax,
	size_t *outlen);

struct module_qstate;
struct mesh_answer;

/** @return 1 when the iterator must show delegations to policy_rpz_ns()
 * (an rpz zone with NSDNAME or NSIP triggers, or one that may get them by
 * transfer) */
int policy_has_ns_triggers(const struct policy *p);

/** @return the tags of the rpz zones with tags: that have NSDNAME or
 * NSIP triggers (or a transfer, which may bring them); 0 for none */
uint64_t policy_ns_tag_mask(const struct policy *p);

/**
 * The tags a client's states are keyed by (module_qstate.tags): its tags
 * (as policy_front_answer finds them) in mask (policy_ns_tag_mask()); 0
 * when there are none, so that states are shared as without tags. A
 * client with such tags skips the message cache and its states the
 * iterator's answer from the RRset cache: the delegations of its
 * questions must be shown to its zones (front/resolver.c).
 */
uint64_t policy_ns_tags(const struct policy *p, const struct acl_list *acl,
	const struct netaddr *client, const struct netaddr *local,
	uint64_t mask);

/**
 * The RPZ NSDNAME and NSIP triggers (module_env.rpz_ns, services/module.h):
 * the rpz zones in order (a zone with tags: for a state whose tags
 * (module_qstate.tags, policy_ns_tags) share one of them: the iterator
 * answers every client of the state at once), the first rule that
 * matches decides:
 * NXDOMAIN / NODATA (the zone's SOA, EDE 15), local data or a CNAME (EDE
 * 17), DROP (nothing sent), PASSTHRU (no more checks). The answer is
 * marked so that it is neither cached nor validated.
 * @param arg: the policy.
 */
struct mesh_answer *policy_rpz_ns(void *arg, struct module_qstate *qs,
	const uint8_t *nsname, const struct netaddr *nsaddr, int *pass);

/**
 * Response-ip and the RPZ RESPONSE-IP triggers on the answer of a
 * module's sub-query (module_env.respip, services/module.h: dns64's A
 * lookup), as Unbound's respip module rewrites the answers of the
 * sub-queries that run through it. The sub-query is for no client in
 * particular: the response-ip lines of server: with their own action (no
 * view, no tags) and the rpz zones without tags: apply, in the order and
 * with the answers of policy_respip_answer() (a CNAME is not chased
 * here: the caller may). A and AAAA questions only. The rpz-log lines
 * name no client.
 * @param arg: the policy.
 * @param qs: the state that asked (the rewritten answer goes in its
 *	region).
 * @param qname, qtype: the sub-query's question.
 * @param ans: its answer (the answer section is looked at).
 * @param out: set to the rewritten answer (rcode and answer section; no
 *	authority), or NULL when the rule drops the answer (or out of
 *	memory).
 * @return 1 when a rule acted (*out), 0 when the answer stands.
 */
int policy_respip_sub(void *arg, struct module_qstate *qs,
	const uint8_t *qname, uint16_t qtype, const struct mesh_answer *ans,
	struct mesh_answer **out);

/**
 * The RPZ QNAME triggers on a CNAME target the iterator is about to
 * follow (module_env.rpz_qname, services/module.h): 1 when a QNAME rule
 * of an enabled zone (without tags:, or with one of the state's tags)
 * names name with an action other than PASSTHRU or TCP-ONLY (whose
 * answers need the rest of the chain); 0 otherwise. No allocation.
 * @param arg: the policy.
 */
int policy_rpz_qname(void *arg, struct module_qstate *qs,
	const uint8_t *name);

/**
 * Transfer an rpz zone with a primary now, by AXFR (the control command
 * auth_zone_transfer, as Unbound has it for rpz zones; with fork every
 * worker process gets the command).
 * @param name: the zone, presentation format.
 * @return 1 when name is such a zone (its transfer is woken), else 0.
 */
int policy_rpz_transfer(const struct policy *p, const char *name);

/** @return the number of rpz: zones */
size_t policy_rpz_count(const struct policy *p);

/** @return rpz zone i (file order), or NULL */
struct rpz *policy_rpz(const struct policy *p, size_t i);

/**
 * Find an rpz zone by name (presentation format, with or without the
 * trailing dot). @return it or NULL.
 */
struct rpz *policy_rpz_find(const struct policy *p, const char *name);

/** @return the number of views */
size_t policy_view_count(const struct policy *p);

/** @return the name of view i, or NULL */
const char *policy_view_name(const struct policy *p, size_t i);

/** @return the local zones of view i (finished, read-only), or NULL */
const struct local_zones *policy_view_zones(const struct policy *p, size_t i);

/**
 * The view a query is in.
 * @return its index, or -1 for none.
 */
int policy_select_view(const struct policy *p, const struct netaddr *client,
	const struct netaddr *local);

#endif /* FRONT_POLICY_H */
