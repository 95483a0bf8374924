/*
 * validator/validator.h - the validator module: DNSSEC validation of what
 * the iterator returns (module "validator", above "iterator").
 *
 * A client query (depth 0, CD or not) is passed down with
 * MESH_FLAG_DNSSEC, so the iterator asks with DO and keeps RRSIG, NSEC and
 * NSEC3 records. When the answer comes back up (MODULE_EVENT_MODDONE),
 * each RRset of the answer and authority sections is checked with the
 * keys of its signer (the RRSIG signer field; an unsigned RRset: its
 * owner). Keys come from the key cache (validator/val_kcache.h) or from a
 * walk down from the closest trust anchor: DNSKEY of the anchor checked
 * against the anchor's DS or DNSKEY records, then per label towards the
 * signer a DS sub-query (checked with the keys above; no DS proven by
 * NSEC/NSEC3: an insecure delegation, or no zone cut there), and the
 * child's DNSKEY checked against the DS. Every step's result (secure keys,
 * insecure, bogus for val-bogus-ttl) goes into the key cache, so the next
 * question under the same zones validates without sub-queries. DS and
 * DNSKEY are fetched through the mesh with DO and CD set (the sub-state
 * passes through this module unvalidated: this module checks them).
 *
 * NXDOMAIN and NODATA are proven with the validated NSEC or NSEC3 records
 * of the authority section (NSEC3 iterations above
 * val-nsec3-keysize-iterations: insecure); a wildcard expansion (RRSIG
 * labels below the owner's) needs its proof too. The message gets
 * secure, insecure or bogus (mesh_answer.sec, and each record's sec): the
 * message cache keeps it and sets AD for DO or AD clients on secure ones.
 * Bogus is SERVFAIL with an Extended DNS Error (RFC 8914) unless
 * val-permissive-mode, or the client set CD (not ignore-cd-flag): it gets
 * the bogus data, without AD (RFC 4035 3.2.2), TTLs at most val-bogus-ttl. Before an answer is bogus, the query is restarted
 * up to val-max-restart times: passed down again to the iterator with the
 * servers that gave the bogus answer (qstate->origin) excluded
 * (qstate->exclude); only when the restarts are used up, or no server is
 * left to ask, is it final (and remembered for val-bogus-ttl). A failure
 * of the key chain does not restart the query (another server's copy of
 * the answer cannot mend it): the walk asks the bogus DNSKEY or DS set
 * again itself, of other servers (those that gave it excluded in its
 * sub-queries), within the same val-max-restart, before the zone's key
 * entry is bogus for val-bogus-ttl. For clients without DO the DNSSEC
 * records are removed from the answer. With no trust anchor configured,
 * every answer is insecure and nothing is asked with DO.
 */
#ifndef VALIDATOR_VALIDATOR_H
#define VALIDATOR_VALIDATOR_H

#include <stdint.h>
#include <stddef.h>

struct module_func_block;
struct config_file;
struct module_env;
struct mesh_answer;

/** most negative trust anchors added at run time (insecure_add) */
#define VAL_NTA_MAX 64

/** most walk steps (sub-queries and re-checks) for one answer */
#define VAL_MAX_STEPS 64

/** signature verifications one worker makes per event-loop turn, for
 * all its validating states together, before the next state that wants
 * to verify is suspended until the next turn (a worker's turn stays
 * short while key sets are checked, so its cached answers keep flowing;
 * about 2.4 ms with the slowest keys accepted, RSA-4096 with a 64-bit
 * exponent) */
#define VAL_TURN_VERIFY_DEFAULT 16
/** NSEC3 hash work (SHA-1 computations) per worker and turn, likewise */
#define VAL_TURN_HASH_DEFAULT 2048

/** default val-max-restart: times a bogus answer, DNSKEY set or DS set is
 * asked again of other servers (as Unbound 1.22) */
#define VAL_MAX_RESTART_DEFAULT 5

/** the validator module (name "validator") */
extern const struct module_func_block val_module_block;

/**
 * Parse val-nsec3-keysize-iterations: one number, or "keysize iterations"
 * pairs (the largest iterations count is the limit, RFC 9276).
 * @return the limit, or -1 when the text is not of that form.
 */
long val_parse_nsec3_iterations(const char *s);

/**
 * flush_bogus: forget the bogus answers kept for val-bogus-ttl and the
 * bogus entries of the key cache.
 * @param env: the module env; id: the validator's index in the stack.
 * @return how many entries went.
 */
size_t val_flush_bogus(struct module_env *env, int id);

/**
 * flush_zone, flush_type NAME DNSKEY: forget the key cache entries of a
 * zone (as Unbound's flush_zone), so that the next query there fetches
 * and validates the zone's keys again (the recovery after a key change).
 * @param env: the module env; id: the validator's index in the stack.
 * @param name: wire format.
 * @param below: 1: the name and every name below it; 0: the name only.
 * @return how many entries went.
 */
size_t val_flush_keys(struct module_env *env, int id, const uint8_t *name,
	int below);

/**
 * flush_negative: forget the key cache's bad entries (a DS or DNSKEY
 * lookup that failed), as Unbound's flush_negative.
 * @return how many entries went.
 */
size_t val_flush_bad_keys(struct module_env *env, int id);

/**
 * The entries of the key cache (key.cache.count).
 * @param env: the module env; id: the validator's index in the stack.
 * @return how many.
 */
size_t val_key_count(struct module_env *env, int id);

/**
 * insecure_add: a negative trust anchor at run time (as domain-insecure:
 * names at and below it are not validated); the bogus answers remembered
 * under it (val-bogus-ttl) are dropped. Adding one that is there does
 * nothing more.
 * @param name: wire format.
 * @return 0, or -1 when VAL_NTA_MAX are there already.
 */
int val_insecure_add(struct module_env *env, int id, const uint8_t *name);

/**
 * insecure_remove: remove a negative trust anchor added at run time.
 * @return 1 removed, 0 there was none.
 */
int val_insecure_remove(struct module_env *env, int id,
	const uint8_t *name);

/**
 * list_insecure: the domain-insecure names (config) and those added at
 * run time, one per line ("name\n"), into buf.
 * @return the length written (cut at buflen - 1).
 */
size_t val_insecure_list(struct module_env *env, int id, char *buf,
	size_t buflen);

/**
 * Set a worker's validation work per event-loop turn (tests; the
 * defaults are VAL_TURN_VERIFY_DEFAULT and VAL_TURN_HASH_DEFAULT). Its
 * states then suspend without an event loop (env->base NULL) too, on the
 * module timer (env->timer_set), which starts the next turn.
 * @param env: the worker's module env; id: the validator's index.
 * @param verify: signature verifications per turn (at least 1).
 * @param hash: NSEC3 SHA-1 computations per turn (at least 1).
 * @return 0, or -1 when out of memory.
 */
int val_set_turn_budget(struct module_env *env, int id, unsigned verify,
	unsigned hash);

/**
 * The worker's validation work so far (tests): how often its states were
 * suspended for want of the turn's budget, and the signature
 * verifications they made (every state's, charged to the turns).
 * @param env: the worker's module env; id: the validator's index.
 * @param suspends: set to the suspensions since the worker started.
 * @param verified: set to the verifications since then.
 */
void val_turn_stats(struct module_env *env, int id, unsigned long *suspends,
	unsigned long *verified);

/**
 * How many signed RRsets an answer to a qtype ANY question keeps: the
 * validator checks the first 24 and cuts the answer section before the
 * next signed set, as Unbound does (it verifies at most 8 RRSIGs at once
 * and cuts an ANY answer after its second resumption: Unbound's
 * val_any_cap.rpl keeps 24 of 38 sets). RFC 8482 section 4.1 lets an
 * ANY answer be a subset; the bound keeps a client's ANY question from
 * costing a signature check per set of a name with many types.
 */
#define VAL_ANY_MAX_SIGNED 24
/** how many RRsets of an ANY answer val_any_cut() looks at: the sets
 * after the first 64 (by first appearance) are cut whatever they are */
#define VAL_ANY_MAX_SETS 64

/**
 * Cut the answer section of an ANY answer before its (max_signed+1)th
 * signed RRset (a set with an RRSIG; sets in the order they first
 * appear; at most VAL_ANY_MAX_SIGNED), or after its first
 * VAL_ANY_MAX_SETS sets. Unsigned sets before the cut stay.
 * @return the number of records dropped.
 */
size_t val_any_cut(struct mesh_answer *a, size_t max_signed);

#endif /* VALIDATOR_VALIDATOR_H */
