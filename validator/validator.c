/*
 * validator/validator.c - the validator module on the module stack.
 *
 * See validator.h for what it does. The work for one answer is a loop:
 * val_check_answer() goes over the RRsets and asks val_keys() for the keys
 * of each signer; when the key cache (or the result of the walk this state
 * just did) does not know the zone, the loop starts a walk to it and
 * waits for the walk's sub-queries; after each sub-query the walk goes on,
 * and when it is done the check starts again from the first RRset (the
 * earlier ones are now answered by the key cache). VAL_MAX_STEPS bounds
 * the loop. Records are the module contract's (struct module_rr, RDATA
 * uncompressed), given to the val_* checks as struct val_rr over the
 * RDATA alone.
 *
 * The per-state block (struct val_qstate, some 50 kB with its three key
 * sets) is too large for the state's region, which gives such objects a
 * heap block of their own each time. A validated query therefore takes
 * its block from a free list of the worker (env->worker_data, no lock:
 * one worker's states only) and clear() gives it back; the list keeps at
 * most VAL_FREE_MAX blocks, so a validating miss allocates nothing in
 * steady state. A query that is not validated has no block at all (the
 * pass-through mark).
 *
 * Work per event-loop turn. Besides the query's own budget (struct
 * val_budget), a worker's validating states together make at most
 * VAL_TURN_VERIFY_DEFAULT signature verifications and
 * VAL_TURN_HASH_DEFAULT NSEC3 hashes per turn of its event loop (struct
 * val_worker, turn_*): a state about to verify an RRset, check a key
 * walk's DNSKEY or DS answer, or hash for an NSEC3 proof, finds the
 * turn's budget spent, or other states already waiting for the next
 * turn, and is suspended (val_yield): it goes to the worker's queue,
 * waits as MODULE_WAIT_REPLY on a 0 ms timer of the worker
 * (env->timer_set, which runs in a later turn of the loop, after the
 * turn's other callbacks, among them the cached answers), and goes on
 * from where it was: the RRsets already checked keep their marks (a
 * pass over the answer left open, pass_open, does not clear them), so
 * no verdict is made twice. The timer refills the budget and resumes
 * the queue in order while the budget lasts. A turn is told by the
 * worker's clock (env->now is read once per loop iteration; a state
 * that finds it moved refills the budget) and by that timer. Without an
 * event loop (env->base NULL: the replay runner, whose clock stands
 * still and whose testbound semantics run timers only when time passes)
 * there are no turns and nothing is suspended, unless a test sets the
 * turn's budget (val_set_turn_budget). The work is charged after each
 * operate() (turn_charge, from the query's budget counters), so the
 * last step of a turn may pass its budget (an RRset of the answer by at
 * most VAL_MAX_RRSET_VERIFY; a walk's DNSKEY or DS answer by a few such
 * sets; an NSEC3 proof, which is not split, by its hashes), never a
 * second step. Nothing of this is on the cached-answer
 * path: it runs only for states that validate. clear() takes a
 * suspended state off the queue.
 */
#include "config.h"
#include "util/log.h"
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <strings.h>
#include "validator/validator.h"
#include "validator/val_crypto.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "validator/val_anchor.h"
#include "validator/val_kcache.h"
#include "validator/val_autotrust.h"
#include "validator/val_neg.h"
#include "util/locks.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/as112.h"
#include "util/region.h"
#include "util/config_file.h"
#include "services/cache/rrset.h"
#include "services/cache/msgcache.h"
#include "dns/query.h"

/** bogus answers remembered (val-bogus-ttl) */
#define VAL_BOGUS_MAX 256

/** one remembered bogus answer */
struct val_bogus_ent {
	/** when it expires; 0: free */
	uint32_t expire;
	/** question type */
	uint16_t qtype;
	/** the EDE code of the failure */
	int ede;
	/** question name, lower case */
	uint8_t qname[256];
};

/** the module's settings and shared stores (env->modinfo[id]) */
struct val_env {
	/** the trust anchors */
	struct val_anchors *anchors;
	/** the key cache (shared by the workers; locked inside) */
	struct val_kcache *kcache;
	/** signature skew */
	uint32_t skew_min, skew_max;
	/** val-override-date: 0 the clock, -1 dates unchecked, else the
	 * date signatures are checked against */
	long long date_override;
	/** val-bogus-ttl */
	uint32_t bogus_ttl;
	/** val-max-restart */
	int max_restart;
	/** NSEC3 iteration limit */
	unsigned max_iter;
	/** options */
	int permissive, log_level, harden_stripped, ignore_cd, clean_add;
	/** harden-algo-downgrade */
	int harden_algo;
	/** bogus answers for val-bogus-ttl: a question that just failed
	 * fails again at once (SERVFAIL with its EDE) without asking; a
	 * fixed array (bounded memory, bounded scan), under bogus_lock */
	struct val_bogus_ent bogus[VAL_BOGUS_MAX];
	/** guards bogus[] */
	lock_basic_type bogus_lock;
	/** negative trust anchors added at run time (insecure_add) */
	uint8_t nta[VAL_NTA_MAX][256];
	/** how many */
	int nta_count;
	/** guards nta[] */
	lock_basic_type nta_lock;
	/** aggressive-nsec (RFC 8198): the validated NSEC store, or NULL */
	struct val_neg *neg;
	/** root-key-sentinel (RFC 8509) */
	int sentinel;
	/** trust-anchor-signaling (RFC 8145) */
	int ta_signal;
	/** RFC 5011 settings */
	struct val_autr_cfg autr_cfg;
	/** 1 when an anchor is an auto-trust-anchor-file point */
	int have_autr;
	/** serialises the RFC 5011 points (probe start, update, write) and
	 * the reads of their keys (taken off the cached-answer path only) */
	lock_basic_type autr_lock;
};

/**
 * A client's query with CD (RFC 4035 3.2.2), not ignore-cd-flag: it is
 * validated as any other (AD when secure, as Unbound does), but a bogus
 * answer is given to it with its data (NOERROR or NXDOMAIN, no AD), not
 * SERVFAIL, and no remembered bogus answer stops it.
 * @return 1 for such a query.
 */
static int
val_cd_client(const struct module_qstate *qs, const struct val_env *ve)
{
	return (qs->flags & MESH_FLAG_CD) && !ve->ignore_cd;
}

/** what the sub-query in flight is for */
enum val_sub {
	/** none */
	VAL_SUB_NONE = 0,
	/** the DNSKEY set of the trust anchor */
	VAL_SUB_ANCHOR_KEY,
	/** the DS set of the name being probed */
	VAL_SUB_DS,
	/** the DNSKEY set of a zone under a validated DS set */
	VAL_SUB_KEY
};

/** most per-state blocks a worker keeps for reuse (about 50 kB each) */
#define VAL_FREE_MAX 16

/** per-state data */
struct val_qstate {
	/** next on the worker's free list (only while on it) */
	struct val_qstate *next_free;
	/** 1: not validated (sub-query, no anchors) */
	int passthrough;
	/** 1 while the walk waits on a sub-query */
	int waiting;
	/** the answer being checked */
	struct mesh_answer *ans;
	/** steps taken */
	int steps;
	/** the walk: the zone whose keys are needed */
	uint8_t target[256];
	/** the anchor the walk started from */
	const struct val_anchor *anchor;
	/** the deepest zone with known keys on the walk (kk.name) */
	struct val_kinfo kk;
	/** labels of the name probed next for a DS */
	int probe_labs;
	/** the sub-query in flight */
	enum val_sub sub;
	/** its name */
	uint8_t sub_name[256];
	/** its answer (copied in the region) */
	struct module_rrlist sub_an, sub_ns;
	/** its rcode; -1 when it failed */
	int sub_rcode;
	/** the validated DS set for the VAL_SUB_KEY step */
	struct val_rr *ds;
	/** number of DS records */
	size_t nds;
	/** the walk's result for target (used when the cache cannot keep
	 * it): valid when done_valid */
	int done_valid;
	/** the result */
	struct val_kinfo done;
	/** scratch for key cache lookups */
	struct val_kinfo look;
	/** the servers that gave the last sub-query's answer (copied from
	 * its origin[] by inform_super: the sub-state goes away); not
	 * zeroed, only the first sub_norigin are read */
	struct netaddr sub_origin[MODULE_ORIGIN_MAX];
	/** the failure: EDE code and reason (for the log) */
	int ede;
	/** reason text */
	const char *reason;
	/** 1 when a failure found by the last check lies in the keys of a
	 * signer (a bogus key chain, no keys, too many steps), not in the
	 * answer's own records: asking other servers for the answer would
	 * not help, so the query is not restarted */
	int keys_bad;
	/** restarts done (val-max-restart) */
	int restarts;
	/** 1 when no restart may follow (a restarted resolution came back
	 * without an answer: the last bogus one is final) */
	int restart_done;
	/** the bogus answer the last restart was made for (in the region),
	 * its EDE and reason: the result when the restarted resolution
	 * gets no answer (no server left) */
	struct mesh_answer *bogus_ans;
	/** its EDE */
	int bogus_ede;
	/** its reason */
	const char *bogus_reason;
	/** how many of sub_origin are valid */
	int sub_norigin;
	/** servers whose DNSKEY or DS answer the walk found bogus: its
	 * sub-queries do not ask them (val-max-restart for the key chain).
	 * In the region, NULL until the first such restart, at most
	 * MODULE_EXCLUDE_MAX */
	struct netaddr *key_exclude;
	/** how many */
	int key_nexclude;
	/** 1 when the sub-query in flight asks again a DNSKEY or DS set
	 * found bogus (walk_retry): when it gets no answer, the walk fails
	 * with the bogus verdict below, not with "no answer" */
	int sub_retry;
	/** the EDE and reason of the last bogus DNSKEY or DS answer */
	int key_bogus_ede;
	/** its reason */
	const char *key_bogus_reason;
	/** the query's validation work (signature verifications, NSEC3
	 * hashes), counted across its walk, its answers and its restarts:
	 * once spent, the answer is bogus (EDE 6) and not asked again */
	struct val_budget budget;
	/** 1 when the DS answer in sub_an/sub_ns came from the RRset cache
	 * (a referral's), not from a sub-query: when it does not do,
	 * the question is asked (walk_retry) */
	int sub_cached;
	/** 1 when vq->ds came from the RRset cache (a referral's): when
	 * the zone's DNSKEY set does not match it, the DS set is asked
	 * for before the DNSKEY servers are blamed */
	int ds_cached;
	/** 1 while the DNSKEY answer that matched no key of a cached DS
	 * set is kept (keys_an, keys_origin) to be judged again with the
	 * DS set asked of the parent, instead of being asked again */
	int keys_saved;
	/** that DNSKEY answer (records in the region) */
	struct module_rrlist keys_an;
	/** the servers that gave it */
	struct netaddr keys_origin[MODULE_ORIGIN_MAX];
	/** how many */
	int keys_norigin;
	/** the state this block belongs to (for the resume from the
	 * worker's turn timer) */
	struct module_qstate *qs;
	/** VAL_SUSP_*: what to go on with when resumed; 0: not suspended */
	int suspended;
	/** 1 while on the worker's queue of suspended states */
	int queued;
	/** neighbours on that queue */
	struct val_qstate *susp_prev, *susp_next;
	/** VAL_PASS_*: a pass over the answer left open (suspended, or
	 * waiting for a walk): the next val_check_answer goes on from the
	 * per-record marks */
	int pass_open;
	/** the wildcard expansion the pass found so far (its owner in the
	 * answer's records) and its RRSIG labels */
	const uint8_t *pass_wc;
	/** RRSIG labels of pass_wc */
	int pass_wclabs;
	/** budget.verified and budget.hashed charged to the worker's turn
	 * so far */
	unsigned turn_verified, turn_hashed;
};

/** what a suspended state goes on with (val_qstate.suspended) */
enum val_susp {
	/** not suspended */
	VAL_SUSP_NONE = 0,
	/** the walk's answer in vq->sub (walk_resume), then the check */
	VAL_SUSP_WALK,
	/** the check of the answer (val_process, the pass left open) */
	VAL_SUSP_CHECK
};

/** val_check_answer and check_section: suspended (turn budget spent) */
#define VAL_CHECK_YIELD -2

/** val_qstate.pass_open: why a pass over the answer was left open */
enum val_pass {
	/** not open: the next check is a new pass (marks cleared) */
	VAL_PASS_NONE = 0,
	/** suspended until the next turn (not a new step) */
	VAL_PASS_SUSPENDED,
	/** a walk was needed for an RRset's signer: the pass goes on after
	 * it with the RRsets judged before (a new step) */
	VAL_PASS_WALKED
};

static int val_yield(struct module_qstate *qs, struct val_qstate *vq,
	int how);

long
val_parse_nsec3_iterations(const char *s)
{
	long v[64], best = -1;
	int n = 0, i;
	const char *p = s;
	if(!s)
		return -1;
	while(*p) {
		char *end;
		while(isspace((unsigned char)*p))
			p++;
		if(!*p)
			break;
		if(!isdigit((unsigned char)*p) || n >= 64)
			return -1;
		v[n++] = strtol(p, &end, 10);
		if(v[n-1] < 0 || v[n-1] > 65535 || (*end &&
			!isspace((unsigned char)*end)))
			return -1;
		p = end;
	}
	if(n == 1)
		return v[0];
	if(n == 0 || n % 2 != 0)
		return -1;
	for(i = 1; i < n; i += 2)
		if(v[i] > best)
			best = v[i];
	return best;
}

/** module init(): the settings, the anchors and the key cache */
static int
val_init(struct module_env *env, int id, char *err, size_t errlen)
{
	struct val_env *ve = calloc(1, sizeof(*ve));
	struct config_file *cfg = env->cfg;
	struct config_strlist *s;
	long it;
	if(!ve) {
		snprintf(err, errlen, "validator: out of memory");
		return -1;
	}
	ve->skew_min = VAL_SKEW_MIN_DEFAULT;
	ve->skew_max = VAL_SKEW_MAX_DEFAULT;
	ve->bogus_ttl = VAL_BOGUS_TTL_DEFAULT;
	ve->max_restart = VAL_MAX_RESTART_DEFAULT;
	ve->max_iter = VAL_NSEC3_MAX_ITER_DEFAULT;
	ve->harden_stripped = 1;
	ve->clean_add = 1;
	ve->anchors = val_anchors_create();
	if(!ve->anchors)
		goto oom;
	if(cfg) {
		ve->skew_min = (uint32_t)cfg->val_sig_skew_min;
		ve->skew_max = (uint32_t)cfg->val_sig_skew_max;
		ve->bogus_ttl = (uint32_t)cfg->val_bogus_ttl;
		ve->max_restart = cfg->val_max_restart;
		if(cfg->val_override_date && config_parse_date(
			cfg->val_override_date, &ve->date_override) != 0) {
			snprintf(err, errlen, "val-override-date: bad date "
				"'%s'", cfg->val_override_date);
			goto fail;
		}
		it = val_parse_nsec3_iterations(
			cfg->val_nsec3_keysize_iterations);
		if(it < 0) {
			snprintf(err, errlen, "val-nsec3-keysize-iterations: "
				"expected a number or \"keysize iterations\" "
				"pairs, got '%s'",
				cfg->val_nsec3_keysize_iterations ?
				cfg->val_nsec3_keysize_iterations : "");
			goto fail;
		}
		ve->max_iter = (unsigned)it;
		ve->permissive = cfg->val_permissive_mode;
		ve->log_level = cfg->val_log_level;
		ve->harden_stripped = cfg->harden_dnssec_stripped;
		ve->harden_algo = cfg->harden_algo_downgrade;
		ve->ignore_cd = cfg->ignore_cd_flag;
		ve->clean_add = cfg->val_clean_additional;
		for(s = cfg->trust_anchors; s; s = s->next)
			if(val_anchors_add_str(ve->anchors, s->str, err,
				errlen) != 0)
				goto fail;
		for(s = cfg->trust_anchor_files; s; s = s->next)
			if(val_anchors_add_zonefile(ve->anchors, s->str, err,
				errlen) != 0)
				goto fail;
		for(s = cfg->trusted_keys_files; s; s = s->next)
			if(val_anchors_add_bindfile(ve->anchors, s->str, err,
				errlen) != 0)
				goto fail;
		for(s = cfg->auto_trust_anchor_files; s; s = s->next)
			if(val_anchors_add_autofile(ve->anchors, s->str, err,
				errlen) != 0)
				goto fail;
		for(s = cfg->domain_insecure; s; s = s->next)
			if(val_anchors_add_insecure(ve->anchors, s->str, err,
				errlen) != 0)
				goto fail;
		/* insecure-lan-zones: the private reverse zones are not
		 * in the signed public tree; with unblock-lan-zones their
		 * answers come from local servers, unsigned */
		if(cfg->insecure_lan_zones) {
			const char *const *z;
			for(z = dns_as112_zones; *z; z++)
				if(val_anchors_add_insecure(ve->anchors, *z,
					err, errlen) != 0)
					goto fail;
		}
	}
	val_autr_cfg_init(&ve->autr_cfg);
	ve->sentinel = cfg ? cfg->root_key_sentinel : 1;
	ve->ta_signal = cfg ? cfg->trust_anchor_signaling : 1;
	if(cfg) {
		ve->autr_cfg.add_holddown = (uint32_t)cfg->add_holddown;
		ve->autr_cfg.del_holddown = (uint32_t)cfg->del_holddown;
		ve->autr_cfg.keep_missing = (uint32_t)cfg->keep_missing;
		ve->autr_cfg.permit_small_holddown =
			cfg->permit_small_holddown;
	}
	{
		const struct val_anchor *an;
		for(an = ve->anchors->list; an; an = an->next)
			if(an->autotrust && an->tp && an->file)
				ve->have_autr = 1;
	}
	lock_basic_init(&ve->autr_lock);
	lock_basic_init(&ve->bogus_lock);
	lock_basic_init(&ve->nta_lock);
	if(!cfg || cfg->aggressive_nsec) {
		if(!(ve->neg = cfg ? val_neg_create_size(cfg->neg_cache_size)
			: val_neg_create()))
			goto oom;
	}
	ve->kcache = val_kcache_create(cfg ? cfg->key_cache_size :
		VAL_KCACHE_SIZE_DEFAULT, cfg ? (size_t)cfg->key_cache_slabs :
		VAL_KCACHE_SLABS_DEFAULT);
	if(!ve->kcache)
		goto oom;
	env->modinfo[id] = ve;
	val_crypto_cache_ref();
	return 0;
oom:
	snprintf(err, errlen, "validator: out of memory");
fail:
	if(ve->anchors)
		val_anchors_delete(ve->anchors);
	free(ve);
	return -1;
}

/** module deinit() */
static void
val_deinit(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	if(!ve)
		return;
	val_anchors_delete(ve->anchors);
	val_kcache_delete(ve->kcache);
	val_neg_delete(ve->neg);
	val_crypto_cache_unref();
	lock_basic_destroy(&ve->autr_lock);
	lock_basic_destroy(&ve->bogus_lock);
	lock_basic_destroy(&ve->nta_lock);
	free(ve);
	env->modinfo[id] = NULL;
}

/** @return 1 when name is at or below a negative trust anchor added at
 * run time (insecure_add) */
static int
nta_covers(struct val_env *ve, const uint8_t *name)
{
	int i, r = 0;
	lock_basic_lock(&ve->nta_lock);
	for(i = 0; i < ve->nta_count && !r; i++)
		if(dname_is_subdomain(name, ve->nta[i]))
			r = 1;
	lock_basic_unlock(&ve->nta_lock);
	return r;
}

int
val_insecure_add(struct module_env *env, int id, const uint8_t *name)
{
	struct val_env *ve = env->modinfo[id];
	int i, r = 0;
	if(!ve)
		return -1;
	lock_basic_lock(&ve->nta_lock);
	for(i = 0; i < ve->nta_count; i++)
		if(dname_equal(ve->nta[i], name))
			break;
	if(i == ve->nta_count) {
		if(ve->nta_count >= VAL_NTA_MAX)
			r = -1;
		else	(void)dname_copy_lower(ve->nta[ve->nta_count++],
				name);
	}
	lock_basic_unlock(&ve->nta_lock);
	if(r == 0) {
		/* the failures remembered under it are no more */
		lock_basic_lock(&ve->bogus_lock);
		for(i = 0; i < VAL_BOGUS_MAX; i++)
			if(ve->bogus[i].expire != 0 && dname_is_subdomain(
				ve->bogus[i].qname, name))
				ve->bogus[i].expire = 0;
		lock_basic_unlock(&ve->bogus_lock);
	}
	return r;
}

int
val_insecure_remove(struct module_env *env, int id, const uint8_t *name)
{
	struct val_env *ve = env->modinfo[id];
	int i, r = 0;
	if(!ve)
		return 0;
	lock_basic_lock(&ve->nta_lock);
	for(i = 0; i < ve->nta_count; i++)
		if(dname_equal(ve->nta[i], name)) {
			memmove(ve->nta[i], ve->nta[i + 1], (size_t)(
				ve->nta_count - i - 1) * sizeof(ve->nta[0]));
			ve->nta_count--;
			r = 1;
			break;
		}
	lock_basic_unlock(&ve->nta_lock);
	return r;
}

size_t
val_insecure_list(struct module_env *env, int id, char *buf, size_t buflen)
{
	struct val_env *ve = env->modinfo[id];
	const struct val_anchor *an;
	char nm[256];
	size_t len = 0;
	int i;
	if(buflen == 0)
		return 0;
	buf[0] = 0;
	if(!ve)
		return 0;
	for(an = ve->anchors->list; an; an = an->next) {
		if(!an->insecure || dname_to_str(an->name, nm, sizeof(nm)) < 0)
			continue;
		len += (size_t)snprintf(buf + len, buflen - len, "%s\n", nm);
		if(len >= buflen)
			return buflen - 1;
	}
	lock_basic_lock(&ve->nta_lock);
	for(i = 0; i < ve->nta_count && len < buflen; i++) {
		if(dname_to_str(ve->nta[i], nm, sizeof(nm)) < 0)
			continue;
		len += (size_t)snprintf(buf + len, buflen - len, "%s\n", nm);
	}
	lock_basic_unlock(&ve->nta_lock);
	return len >= buflen ? buflen - 1 : len;
}

/** @return 1 when any anchor holds keys (not only domain-insecure) */
static int
val_have_anchors(const struct val_env *ve)
{
	const struct val_anchor *a;
	for(a = ve->anchors->list; a; a = a->next)
		if(!a->insecure)
			return 1;
	return 0;
}

/** @return the date signatures are checked against: the worker's clock,
 * or val-override-date (with -1, dates are not checked and the clock is
 * returned) */
static uint32_t
val_sig_now(const struct module_qstate *qs, const struct val_env *ve)
{
	if(ve->date_override > 0)
		return (uint32_t)ve->date_override;
	return (uint32_t)qs->env->now->tv_sec;
}

/** the validity window now, drawing on budget (NULL: none) */
static void
val_window(const struct module_qstate *qs, const struct val_env *ve,
	struct val_budget *budget, struct val_window *w)
{
	w->now = val_sig_now(qs, ve);
	w->skew_min = ve->skew_min;
	w->skew_max = ve->skew_max;
	w->budget = budget;
	if(ve->date_override == -1)
		w->skew_min = VAL_SKEW_NO_DATES;
}

/** @return the type an RRSIG covers (0 when too short) */
static uint16_t
sig_covered(const struct module_rr *rr)
{
	if(rr->rdlen < VAL_RRSIG_FIXED)
		return 0;
	return (uint16_t)((rr->rdata[0] << 8) | rr->rdata[1]);
}

/**
 * The records of one RRset and its RRSIGs in a list, as val_rr arrays in
 * the region.
 * @return 0, or -1 when out of memory.
 */
static int
val_collect(struct region *r, const struct module_rrlist *l,
	const uint8_t *owner, uint16_t type, uint16_t rrclass,
	struct val_rr **rrs, size_t *n, struct val_rr **sigs, size_t *nsigs)
{
	const struct module_rr *rr;
	size_t a = 0, b = 0;
	*rrs = region_alloc(r, (l->count + 1) * sizeof(**rrs));
	*sigs = region_alloc(r, (l->count + 1) * sizeof(**sigs));
	if(!*rrs || !*sigs)
		return -1;
	for(rr = l->first; rr; rr = rr->next) {
		struct val_rr *v;
		if(rr->rrclass != rrclass || !dname_equal(rr->owner, owner))
			continue;
		if(rr->type == type)
			v = &(*rrs)[a++];
		else if(rr->type == DNS_TYPE_RRSIG && sig_covered(rr) == type)
			v = &(*sigs)[b++];
		else	continue;
		v->buf = rr->rdata;
		v->buflen = rr->rdlen;
		v->off = 0;
		v->len = rr->rdlen;
	}
	*n = a;
	*nsigs = b;
	return 0;
}

/** set the security status on the records of an RRset (and its sigs) */
static void
val_mark(struct module_rrlist *l, const uint8_t *owner, uint16_t type,
	int sec)
{
	struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(dname_equal(rr->owner, owner) && (rr->type == type ||
			(rr->type == DNS_TYPE_RRSIG && sig_covered(rr) == type)))
			rr->sec = (uint8_t)sec;
}

/** remove the records of an RRset (and its sigs) from a list */
static void
val_remove(struct module_rrlist *l, const uint8_t *owner, uint16_t type)
{
	struct module_rr *rr, *prev = NULL, *next;
	for(rr = l->first; rr; rr = next) {
		next = rr->next;
		if(dname_equal(rr->owner, owner) && (rr->type == type ||
			(rr->type == DNS_TYPE_RRSIG && sig_covered(rr) == type))) {
			if(prev)
				prev->next = next;
			else	l->first = next;
			if(l->last == rr)
				l->last = prev;
			l->count--;
			continue;
		}
		prev = rr;
	}
}

/** fill a key info with a secure DNSKEY set (copies the RDATA)
 * @return 0, or -1 when it does not fit */
static int
kinfo_set_keys(struct val_kinfo *ki, const uint8_t *name,
	const struct val_rr *keys, size_t n)
{
	size_t i, used = 0;
	if(n > VAL_KCACHE_MAX_KEYS)
		return -1;
	memset(ki, 0, offsetof(struct val_kinfo, rrs));
	ki->status = VAL_KEY_SECURE;
	ki->ede = -1;
	(void)dname_copy_lower(ki->name, name);
	for(i = 0; i < n; i++) {
		if(used + keys[i].len > VAL_KCACHE_MAX_BLOB)
			return -1;
		memcpy(ki->blob + used, keys[i].buf + keys[i].off,
			keys[i].len);
		ki->rrs[i].buf = ki->blob + used;
		ki->rrs[i].buflen = keys[i].len;
		ki->rrs[i].off = 0;
		ki->rrs[i].len = keys[i].len;
		used += keys[i].len;
	}
	ki->keys.owner = ki->name;
	ki->keys.type = DNS_TYPE_DNSKEY;
	ki->keys.rrclass = DNS_CLASS_IN;
	ki->keys.rrs = ki->rrs;
	ki->keys.count = n;
	return 0;
}

/** fill a key info with an insecure or bogus status */
static void
kinfo_set_status(struct val_kinfo *ki, const uint8_t *name, int status,
	int ede, const char *reason)
{
	memset(ki, 0, offsetof(struct val_kinfo, rrs));
	ki->status = status;
	ki->ede = ede;
	if(reason)
		snprintf(ki->reason, sizeof(ki->reason), "%s", reason);
	(void)dname_copy_lower(ki->name, name);
}

/** the walk ends with a result for the target */
static void
walk_done(struct val_qstate *vq, const struct val_kinfo *ki)
{
	memcpy(&vq->done, ki, sizeof(*ki));
	if(ki->status == VAL_KEY_SECURE) {
		/* re-point the copy's records into its own blob */
		size_t i;
		for(i = 0; i < ki->keys.count; i++)
			vq->done.rrs[i].buf = vq->done.blob +
				(ki->rrs[i].buf - ki->blob);
		vq->done.keys.owner = vq->done.name;
		vq->done.keys.rrs = vq->done.rrs;
	}
	vq->done_valid = 1;
	vq->sub = VAL_SUB_NONE;
}

/** the walk fails at a zone: store bogus, end the walk */
static void
walk_bogus(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const uint8_t *zone, int ede, const char *why)
{
	struct val_kinfo *ki = &vq->look;
	(void)val_kcache_store_bogus(ve->kcache, zone, DNS_CLASS_IN,
		ede, why, ve->bogus_ttl, (uint32_t)qs->env->now->tv_sec);
	kinfo_set_status(ki, zone, VAL_KEY_BOGUS, ede, why);
	walk_done(vq, ki);
}

/** the walk finds an insecure zone: store it, end the walk */
static void
walk_insecure(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const uint8_t *zone, uint32_t ttl)
{
	struct val_kinfo *ki = &vq->look;
	(void)val_kcache_store_insecure(ve->kcache, zone, DNS_CLASS_IN, ttl,
		(uint32_t)qs->env->now->tv_sec);
	kinfo_set_status(ki, zone, VAL_KEY_INSECURE, -1, NULL);
	walk_done(vq, ki);
}

/** @return 1 when the address is in the list */
static int
addr_listed(const struct netaddr *list, int n, const struct netaddr *a)
{
	int i;
	for(i = 0; i < n; i++)
		if(netaddr_cmp(&list[i], a) == 0)
			return 1;
	return 0;
}

/**
 * Give a sub-query of the walk the servers it must not ask (module.h:
 * qstate->exclude, which its iterator reads), merged with those it has
 * already when it is shared with another walk. In the sub-state's
 * region; nothing is done when that fails (the fetch asks as usual).
 */
static void
sub_exclude(struct module_qstate *sub, const struct netaddr *ex, int n)
{
	int i;
	if(!sub->exclude) {
		sub->exclude = region_alloc(sub->region, MODULE_EXCLUDE_MAX *
			sizeof(*sub->exclude));
		if(!sub->exclude)
			return;
		sub->exclude_count = 0;
	}
	for(i = 0; i < n && sub->exclude_count < MODULE_EXCLUDE_MAX; i++)
		if(!addr_listed(sub->exclude, sub->exclude_count, &ex[i]))
			sub->exclude[sub->exclude_count++] = ex[i];
}

/** start a sub-query for the walk (asking no server in vq->key_exclude).
 * @return 0, or -1 (the walk ended: made bogus, or insecure when an RPZ
 *	rule blocks the lookup) */
static int
walk_sub(struct module_qstate *qs, struct val_qstate *vq, struct val_env *ve,
	enum val_sub what, const uint8_t *name, uint16_t type)
{
	struct module_qstate *sub;
	vq->sub = what;
	(void)dname_copy_lower(vq->sub_name, name);
	if(what != VAL_SUB_ANCHOR_KEY && qs->env->rpz_qname &&
		!(qs->flags & MESH_FLAG_RPZPASS) &&
		qs->env->rpz_qname(qs->env->rpz_ns_arg, qs, vq->sub_name)) {
		/* an RPZ QNAME rule blocks the zone's DS or DNSKEY lookup
		 * (env->rpz_qname): the walk ends insecure, as Unbound ends
		 * it: what is below is let through by the operator's policy
		 * (RFC 4035 4.3), never shown as secure, and the verdict is
		 * not kept in the key cache (it is the policy's, not the
		 * zone's) */
		verbose(VERB_ALGO, "validator: an rpz rule blocks the %s "
			"lookup: insecure", type == DNS_TYPE_DS ? "DS" :
			"DNSKEY");
		kinfo_set_status(&vq->look, vq->sub_name, VAL_KEY_INSECURE,
			-1, NULL);
		walk_done(vq, &vq->look);
		return -1;
	}
	memset(&vq->sub_an, 0, sizeof(vq->sub_an));
	memset(&vq->sub_ns, 0, sizeof(vq->sub_ns));
	vq->sub_rcode = -1;
	vq->sub_norigin = 0;
	vq->sub_retry = 0;
	vq->sub_cached = 0;
	sub = qs->env->attach_sub(qs, vq->sub_name, type, DNS_CLASS_IN,
		MESH_FLAG_DO | MESH_FLAG_CD | MESH_FLAG_RD);
	if(!sub) {
		walk_bogus(qs, vq, ve, name, type == DNS_TYPE_DS ?
			DNS_EDE_DNSSEC_BOGUS : DNS_EDE_DNSKEY_MISSING,
			type == DNS_TYPE_DS ? "could not fetch DS" :
			"could not fetch DNSKEY");
		return -1;
	}
	if(vq->key_nexclude > 0)
		sub_exclude(sub, vq->key_exclude, vq->key_nexclude);
	vq->waiting = 1;
	return 0;
}

/**
 * val-max-restart for the key chain: the DNSKEY or DS answer the walk's
 * sub-query got (vq->sub, vq->sub_name) is bogus or unusable. Unless the
 * restarts of the state are used up (vq->restarts, shared with the
 * restarts for the answer), the validator's step budget is spent, or no
 * new server is known to have given it, the servers that gave it join
 * vq->key_exclude and the same question is asked again without them
 * (as Unbound does before it marks the key entry bad). Otherwise the
 * zone is bogus (walk_bogus, kept for val-bogus-ttl); when this answer
 * is the missing answer of such a second fetch (no server left, or none
 * answered), the verdict is the last bogus answer's. Nothing is
 * allocated before the first restart.
 * @return 1 when asked again (waiting), 0 when the walk is done (bogus).
 */
static int
walk_retry(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, int ede, const char *why)
{
	enum val_sub what = vq->sub;
	uint8_t name[256];
	int i, added = 0;
	(void)dname_copy_lower(name, vq->sub_name);
	if(vq->sub_cached) {
		/* the cached DS answer did not do: ask for it */
		return walk_sub(qs, vq, ve, what, name, DNS_TYPE_DS) == 0;
	}
	if(vq->sub_retry && vq->key_bogus_reason &&
		vq->sub_rcode != DNS_RCODE_NOERROR &&
		vq->sub_rcode != DNS_RCODE_NXDOMAIN) {
		/* the fetch asked again got no answer: the bogus one stays */
		ede = vq->key_bogus_ede;
		why = vq->key_bogus_reason;
	}
	if(vq->sub_norigin == 0 || vq->restarts >= ve->max_restart ||
		vq->steps >= VAL_MAX_STEPS || vq->budget.spent)
		goto bogus;
	if(!vq->key_exclude) {
		vq->key_exclude = region_alloc(qs->region, MODULE_EXCLUDE_MAX *
			sizeof(*vq->key_exclude));
		if(!vq->key_exclude)
			goto bogus;
	}
	for(i = 0; i < vq->sub_norigin; i++) {
		if(vq->key_nexclude >= MODULE_EXCLUDE_MAX ||
			addr_listed(vq->key_exclude, vq->key_nexclude,
			&vq->sub_origin[i]))
			continue;
		vq->key_exclude[vq->key_nexclude++] = vq->sub_origin[i];
		added++;
	}
	if(added == 0)
		goto bogus;
	vq->restarts++;
	vq->steps++;
	vq->key_bogus_ede = ede;
	vq->key_bogus_reason = why;
	if(verbosity >= VERB_ALGO) {
		char n[DNS_MAX_NAME_STR], a[128];
		(void)dname_to_str(name, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s %s bogus (%s) from %s: "
			"restart %d of %d without %d servers", n,
			what == VAL_SUB_DS ? "DS" : "DNSKEY", why,
			netaddr_str(&vq->sub_origin[0], 53, a, sizeof(a)),
			vq->restarts, ve->max_restart, vq->key_nexclude);
	}
	if(walk_sub(qs, vq, ve, what, name, what == VAL_SUB_DS ?
		DNS_TYPE_DS : DNS_TYPE_DNSKEY) < 0)
		return 0;
	vq->sub_retry = 1;
	return 1;
bogus:
	walk_bogus(qs, vq, ve, name, ede, why);
	return 0;
}

static int walk_got_ds(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve);

/** most records (RRs and RRSIGs) of a verified set put back in the RRset
 * cache by ds_cache_secure */
#define VAL_SECURE_STORE_MAX 64

/**
 * Put a DS set that was just verified (with the RRSIGs it came with) in
 * the RRset cache as secure, with trust validated, as Unbound's validator
 * updates the security status of the sets it proved
 * (rrset_update_sec_status): the copy the iterator kept from the
 * referral, unchecked, is replaced, and dump_cache writes it secure.
 */
static void
ds_cache_secure(struct module_qstate *qs, const struct module_rrlist *l,
	const uint8_t *name)
{
	const uint8_t *rd[VAL_SECURE_STORE_MAX];
	uint16_t rdlen[VAL_SECURE_STORE_MAX];
	struct rrset_data rs;
	const struct module_rr *rr;
	size_t k = 0, nsig = 0;
	int pass;
	if(!qs->env->rrset || qs->no_cache_store)
		return;
	memset(&rs, 0, sizeof(rs));
	rs.ttl = 0xffffffffu;
	/* the records first, then the signatures (rrset_data's layout) */
	for(pass = 0; pass < 2; pass++)
		for(rr = l->first; rr; rr = rr->next) {
			if(rr->rrclass != DNS_CLASS_IN ||
				!dname_equal(rr->owner, name) || (pass == 0 ?
				rr->type != DNS_TYPE_DS : (rr->type !=
				DNS_TYPE_RRSIG || sig_covered(rr) !=
				DNS_TYPE_DS)))
				continue;
			if(k >= VAL_SECURE_STORE_MAX)
				return;
			rd[k] = rr->rdata;
			rdlen[k] = rr->rdlen;
			if(rr->ttl < rs.ttl)
				rs.ttl = rr->ttl;
			k++;
			nsig += (size_t)pass;
		}
	if(nsig == 0 || k == nsig)
		return;
	rs.name = name;
	rs.name_len = dname_len(name);
	rs.type = DNS_TYPE_DS;
	rs.rrclass = DNS_CLASS_IN;
	rs.trust = RRSET_TRUST_VALIDATED;
	rs.sec = RRSET_SEC_SECURE;
	rs.count = k - nsig;
	rs.sig_count = nsig;
	rs.rdata = rd;
	rs.rdlen = rdlen;
	(void)rrset_cache_store(qs->env->rrset, &rs, qs->env->now->tv_sec);
}

/** the DS set (type DS, as an answer) or the NSEC at name (type NSEC, as
 * a denial) from the RRset cache, with its RRSIGs, into vq->sub_an or
 * vq->sub_ns (in the region). @return 1 when found */
static int
ds_from_cache(struct module_qstate *qs, struct val_qstate *vq,
	const uint8_t *name, uint16_t type)
{
	struct module_rrlist *to = type == DNS_TYPE_DS ? &vq->sub_an :
		&vq->sub_ns;
	struct rrset_data rs;
	size_t i;
	if(!qs->env->rrset || rrset_cache_lookup(qs->env->rrset, name, type,
		DNS_CLASS_IN, qs->env->now->tv_sec, qs->region, &rs) != 0 ||
		rs.count == 0 || rs.sig_count == 0)
		return 0;
	memset(&vq->sub_an, 0, sizeof(vq->sub_an));
	memset(&vq->sub_ns, 0, sizeof(vq->sub_ns));
	for(i = 0; i < rs.count + rs.sig_count; i++) {
		struct module_rr *c = module_rr_new(qs->region, rs.name,
			rs.name_len, i < rs.count ? type : DNS_TYPE_RRSIG,
			DNS_CLASS_IN, rs.ttl, rs.rdata[i], rs.rdlen[i]);
		if(!c)
			return 0;
		module_rrlist_append(to, c);
	}
	return 1;
}

/** @return 1 when the list has a record equal to rr (owner, type, RDATA) */
static int
rr_listed(const struct module_rrlist *l, const struct module_rr *rr)
{
	const struct module_rr *o;
	for(o = l->first; o; o = o->next)
		if(o->type == rr->type && o->rdlen == rr->rdlen &&
			dname_equal(o->owner, rr->owner) &&
			memcmp(o->rdata, rr->rdata, rr->rdlen) == 0)
			return 1;
	return 0;
}

/**
 * The proof of no DS at name that a list of records holds: the NSEC at
 * name, else the NSEC3 records of the zone above (vq->kk.name), with
 * their RRSIGs, copied into vq->sub_ns (each record once).
 * @return 1 when found, 0 when the list has none (or out of memory).
 */
static int
ds_proof_from_list(struct module_qstate *qs, struct val_qstate *vq,
	const struct module_rrlist *l, const uint8_t *name)
{
	const struct module_rr *rr;
	uint16_t ft = 0;
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_NSEC && dname_equal(rr->owner, name))
			ft = DNS_TYPE_NSEC;
		else if(rr->type == DNS_TYPE_NSEC3 && ft == 0 &&
			rr->owner[0] != 0 && dname_equal(dname_strip_label(
			rr->owner), vq->kk.name))
			ft = DNS_TYPE_NSEC3; /* the parent zone's NSEC3 */
	}
	if(ft == 0)
		return 0;
	memset(&vq->sub_an, 0, sizeof(vq->sub_an));
	memset(&vq->sub_ns, 0, sizeof(vq->sub_ns));
	for(rr = l->first; rr; rr = rr->next)
		if((rr->type == ft || (rr->type == DNS_TYPE_RRSIG &&
			sig_covered(rr) == ft)) && (ft == DNS_TYPE_NSEC ?
			dname_equal(rr->owner, name) : (rr->owner[0] != 0 &&
			dname_equal(dname_strip_label(rr->owner),
			vq->kk.name))) && !rr_listed(&vq->sub_ns, rr) &&
			module_rrlist_push(qs->region, &vq->sub_ns, rr) < 0)
			return 0;
	return 1;
}

/**
 * The walk's DS question answered from what is at hand: the NSEC at the
 * cut in the answer being checked, or what the referrals this state
 * followed said of the cut (module.h: cut_proofs), or the RRset cache,
 * where a referral the iterator followed left the zone's DS set, or the
 * NSEC that proves it has none, with their signatures (Unbound's
 * validator, too, does not ask the parent again for what it was given).
 * Filled in as a sub-query's answer would be (vq->sub_an or vq->sub_ns,
 * in the region); when it does not do, the question is asked
 * (walk_retry).
 * @return 1 when found, 0 when the question must be asked.
 */
static int
walk_ds_cached(struct module_qstate *qs, struct val_qstate *vq,
	const uint8_t *name)
{
	/* in order: the DS set in the cache (a referral's, or an earlier
	 * answer's); the proof the answer itself came with (the NSEC at
	 * the cut, or the parent's NSEC3 records, that a CNAME into an
	 * unsigned child carries); the proof the referral to the cut gave
	 * (the NSEC3 records of the parent that match or cover the cut);
	 * the NSEC at the cut in the cache */
	if(ds_from_cache(qs, vq, name, DNS_TYPE_DS))
		return 1;
	if(vq->ans && ds_proof_from_list(qs, vq, &vq->ans->ns, name))
		return 1;
	if(ds_proof_from_list(qs, vq, &qs->cut_proofs, name))
		return 1;
	return ds_from_cache(qs, vq, name, DNS_TYPE_NSEC);
}

/** the walk moves on from the keys in vq->kk: probe the next label or
 * finish. @return 1 when waiting on a sub-query, 0 when done */
static int
walk_next(struct module_qstate *qs, struct val_qstate *vq, struct val_env *ve)
{
	int tl = dname_count_labels(vq->target);
	const uint8_t *name;
	if(vq->probe_labs > tl || dname_equal(vq->kk.name, vq->target)) {
		walk_done(vq, &vq->kk);
		return 0;
	}
	name = dname_suffix_labels(vq->target, vq->probe_labs);
	if(walk_ds_cached(qs, vq, name)) {
		vq->sub = VAL_SUB_DS;
		(void)dname_copy_lower(vq->sub_name, name);
		vq->sub_rcode = DNS_RCODE_NOERROR;
		vq->sub_norigin = 0;
		vq->sub_retry = 0;
		vq->sub_cached = 1;
		if(val_yield(qs, vq, VAL_SUSP_WALK))
			return 1; /* checked next turn (walk_resume) */
		return walk_got_ds(qs, vq, ve);
	}
	if(walk_sub(qs, vq, ve, VAL_SUB_DS, name, DNS_TYPE_DS) < 0)
		return 0;
	return 1;
}

/** compare two key tags (qsort) */
static int
tag_cmp(const void *a, const void *b)
{
	return (int)*(const uint16_t *)a - (int)*(const uint16_t *)b;
}

/**
 * The key tags of an anchor's trusted keys (DNSKEY in VALID or MISSING
 * state, and DS), ascending, at most max.
 * @return their number.
 */
static size_t
anchor_tags(struct val_env *ve, const struct val_anchor *an,
	uint16_t *tags, size_t max)
{
	struct val_rr k[32];
	size_t n = 0, nk, i;
	if(an->autotrust)
		lock_basic_lock(&ve->autr_lock);
	nk = val_anchor_keys(an, DNS_TYPE_DNSKEY, k, 32);
	for(i = 0; i < nk && i < 32 && n < max; i++)
		tags[n++] = val_keytag(k[i].buf + k[i].off, k[i].len);
	nk = val_anchor_keys(an, DNS_TYPE_DS, k, 32);
	for(i = 0; i < nk && i < 32 && n < max; i++)
		if(k[i].len >= 2)
			tags[n++] = (uint16_t)((k[i].buf[k[i].off] << 8) |
				k[i].buf[k[i].off + 1]);
	if(an->autotrust)
		lock_basic_unlock(&ve->autr_lock);
	qsort(tags, n, sizeof(tags[0]), tag_cmp);
	return n;
}

/** compare two anchors by name in canonical order (qsort) */
static int
anchor_cmp(const void *a, const void *b)
{
	const struct val_anchor *x = *(const struct val_anchor *const *)a;
	const struct val_anchor *y = *(const struct val_anchor *const *)b;
	return dname_canon_cmp(x->name, y->name);
}

/** module anchor_list(): the anchors with keys, in canonical name
 * order, as Unbound lists them for trustanchor.unbound */
static int
val_anchor_list(struct module_env *env, int id, char *buf, size_t len)
{
	struct val_env *ve = env->modinfo[id];
	const struct val_anchor *an, *list[64];
	size_t n = 0, i, j, used = 0;
	int lines = 0;
	if(len == 0)
		return 0;
	buf[0] = 0;
	if(!ve)
		return 0;
	for(an = ve->anchors->list; an && n < 64; an = an->next)
		if(!an->insecure && an->tp && an->dclass == DNS_CLASS_IN)
			list[n++] = an;
	qsort(list, n, sizeof(list[0]), anchor_cmp);
	for(i = 0; i < n; i++) {
		uint16_t tags[32];
		char line[300];
		size_t nt = anchor_tags(ve, list[i], tags, 32), l;
		if(nt == 0)
			continue; /* (no keys left: as Unbound, not listed) */
		if(dname_to_str(list[i]->name, line, sizeof(line)) < 0)
			continue;
		l = strlen(line);
		for(j = 0; j < nt && l + 7 < sizeof(line); j++)
			l += (size_t)snprintf(line + l, sizeof(line) - l, " %u",
				(unsigned)tags[j]);
		if(used + l + 2 > len)
			break;
		memcpy(buf + used, line, l);
		used += l;
		buf[used++] = '\n';
		buf[used] = 0;
		lines++;
	}
	return lines;
}

/**
 * RFC 8145 5.1: tell the anchor's servers which keys this resolver
 * trusts: a background query "_ta-xxxx[-yyyy...].<anchor>" type NULL
 * (the key tags in hex, ascending), sent when the walk fetches the
 * anchor's DNSKEY set. The answer is not used.
 */
static void
ta_signal(struct module_qstate *qs, struct val_env *ve,
	const struct val_anchor *an)
{
	uint16_t tags[32];
	size_t n, i, pos, nl = dname_len(an->name);
	uint8_t name[256];
	if(!qs->env->add_background)
		return;
	if((n = anchor_tags(ve, an, tags, 32)) == 0)
		return;
	/* the label: "_ta" and "-xxxx" per distinct tag, at most 63 */
	pos = 1;
	memcpy(name + pos, "_ta", 3);
	pos += 3;
	for(i = 0; i < n; i++) {
		if(i > 0 && tags[i] == tags[i - 1])
			continue;
		if(pos - 1 + 5 > 63)
			break;
		snprintf((char *)name + pos, 6, "-%04x", (unsigned)tags[i]);
		pos += 5;
	}
	name[0] = (uint8_t)(pos - 1);
	if(pos + nl > 255)
		return;
	memcpy(name + pos, an->name, nl);
	(void)qs->env->add_background(qs->env, name, DNS_TYPE_NULL,
		DNS_CLASS_IN, MESH_FLAG_RD | MESH_FLAG_CD | MESH_FLAG_NOVAL);
}

/**
 * Start a walk to the keys of a zone.
 * @return 1 when waiting on a sub-query, 0 when done (vq->done).
 */
static int
walk_start(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const uint8_t *zone)
{
	struct val_kinfo *ki = &vq->look;
	(void)dname_copy_lower(vq->target, zone);
	vq->done_valid = 0;
	vq->anchor = val_anchors_lookup(ve->anchors, vq->target, DNS_CLASS_IN);
	if(!vq->anchor || vq->anchor->insecure || nta_covers(ve, vq->target)) {
		kinfo_set_status(ki, vq->target, VAL_KEY_INSECURE, -1, NULL);
		walk_done(vq, ki);
		return 0;
	}
	if(val_kcache_lookup_closest(ve->kcache, vq->target, DNS_CLASS_IN,
		(uint32_t)qs->env->now->tv_sec, &vq->kk) == 1 &&
		dname_is_subdomain(vq->kk.name, vq->anchor->name)) {
		if(vq->kk.status != VAL_KEY_SECURE) {
			walk_done(vq, &vq->kk);
			return 0;
		}
		/* re-point the keys at this copy */
		vq->kk.keys.owner = vq->kk.name;
		vq->probe_labs = dname_count_labels(vq->kk.name) + 1;
		return walk_next(qs, vq, ve);
	}
	if(ve->ta_signal)
		ta_signal(qs, ve, vq->anchor);
	if(walk_sub(qs, vq, ve, VAL_SUB_ANCHOR_KEY, vq->anchor->name,
		DNS_TYPE_DNSKEY) < 0)
		return 0;
	return 1;
}

/** the smallest TTL of the DNSKEY records and the RRSIGs' validity
 * (counted from the window's date; not when it checks no dates) */
static uint32_t
key_ttl(const struct module_rrlist *l, const uint8_t *owner,
	const struct val_rr *sigs, size_t nsigs, const struct val_window *w)
{
	const struct module_rr *rr;
	uint32_t ttl = 0xffffffffu;
	size_t i;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_DNSKEY && dname_equal(rr->owner, owner)
			&& rr->ttl < ttl)
			ttl = rr->ttl;
	for(i = 0; i < nsigs && w->skew_min != VAL_SKEW_NO_DATES; i++) {
		uint32_t rem = val_rrsig_remaining(sigs[i].buf, sigs[i].len,
			w->now);
		if(rem < ttl)
			ttl = rem;
	}
	return ttl == 0xffffffffu ? 0 : ttl;
}

/**
 * Verify a DNSKEY set with the trusted keys of an anchor: its DNSKEYs
 * first (an RFC 5011 point that learnt its keys), then its DS records.
 * The caller holds autr_lock for an automatic anchor.
 * @param by_ds: set to 1 when the DS records did it (may be NULL).
 * @return a val_crypto_result.
 */
static int
verify_with_anchor(const struct val_anchor *an, const struct val_rrset *ks,
	const struct val_rr *sigs, size_t nsigs, const struct val_window *w,
	int *ede, int *by_ds)
{
	struct val_rr anch[32];
	struct val_rrset as;
	size_t na;
	int r = VAL_CRYPTO_NO_KEY;
	as.owner = ks->owner;
	as.rrclass = DNS_CLASS_IN;
	as.rrs = anch;
	if(by_ds)
		*by_ds = 0;
	na = val_anchor_keys(an, DNS_TYPE_DNSKEY, anch, 32);
	if(na > 0) {
		as.type = DNS_TYPE_DNSKEY;
		as.count = na > 32 ? 32 : na;
		r = val_verify_dnskeys_with_anchors(ks, sigs, nsigs, &as, w,
			ede);
		if(r == VAL_CRYPTO_OK)
			return r;
	}
	na = val_anchor_keys(an, DNS_TYPE_DS, anch, 32);
	if(na > 0) {
		as.type = DNS_TYPE_DS;
		as.count = na > 32 ? 32 : na;
		r = val_verify_dnskeys_with_ds(ks, sigs, nsigs, &as, w, ede);
		if(r == VAL_CRYPTO_OK && by_ds)
			*by_ds = 1;
	}
	return r;
}

/**
 * The algorithms of a trust anchor (its usable DS records and its
 * DNSKEY records of supported algorithms), each once.
 * @param algs: 256 entries. @return how many.
 */
static size_t
anchor_algorithms(const struct val_anchor *an, uint8_t *algs)
{
	struct val_rr anch[32];
	struct val_rrset as;
	uint8_t seen[256];
	size_t na, i, n;
	memset(&as, 0, sizeof(as));
	as.rrclass = DNS_CLASS_IN;
	as.rrs = anch;
	as.type = DNS_TYPE_DS;
	na = val_anchor_keys(an, DNS_TYPE_DS, anch, 32);
	as.count = na > 32 ? 32 : na;
	n = as.count > 0 ? val_ds_algorithms(&as, algs) : 0;
	memset(seen, 0, sizeof(seen));
	for(i = 0; i < n; i++)
		seen[algs[i]] = 1;
	na = val_anchor_keys(an, DNS_TYPE_DNSKEY, anch, 32);
	if(na > 32)
		na = 32;
	for(i = 0; i < na; i++) {
		const uint8_t *k = anch[i].buf + anch[i].off;
		if(anch[i].len < 4 || !val_algo_supported(k[3]) || seen[k[3]])
			continue;
		seen[k[3]] = 1;
		algs[n++] = k[3];
	}
	return n;
}

static int autr_probe_result(struct module_qstate *qs, struct val_env *ve,
	struct val_anchor *an, int id, const struct module_rrlist *ans,
	int rcode, int keep);

/** @return 1 when a list has a record of the type at owner */
static int
has_type(const struct module_rrlist *l, const uint8_t *owner, uint16_t type)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == type && dname_equal(rr->owner, owner))
			return 1;
	return 0;
}

/** a DNSKEY set came back (for the anchor, or under a DS set): check it,
 * keep it as the walk's keys. @return 1 waiting, 0 done */
static int
walk_got_keys(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve)
{
	struct val_rr *keys, *sigs;
	size_t nkeys, nsigs;
	struct val_rrset ks, as;
	struct val_window w;
	int r, ede = -1;
	uint8_t algs[256];
	size_t nalgs = 0;
	const uint8_t *zone = vq->sub_name;
	uint32_t now = (uint32_t)qs->env->now->tv_sec;
	val_window(qs, ve, &vq->budget, &w);
	if(vq->sub == VAL_SUB_ANCHOR_KEY && vq->anchor->autotrust &&
		vq->anchor->tp && vq->anchor->file) {
		/* the keys of an RFC 5011 point, fetched for a query: they
		 * count as a probe (as Unbound's trust anchor priming) */
		(void)autr_probe_result(qs, ve, (struct val_anchor *)vq->anchor,
			qs->curmod, &vq->sub_an, vq->sub_rcode, 0);
		if(vq->anchor->tp->revoked) {
			/* every key revoked itself: the name has no anchor
			 * any more (later walks find none, so the key cache
			 * entry's TTL hardly matters), the answer is
			 * insecure */
			walk_insecure(qs, vq, ve, zone, 60);
			return 0;
		}
	}
	if(vq->sub == VAL_SUB_ANCHOR_KEY && !ve->harden_stripped &&
		(vq->sub_rcode != DNS_RCODE_NOERROR || !has_type(&vq->sub_an,
		zone, DNS_TYPE_DNSKEY))) {
		/* harden-dnssec-stripped: no: a trust point whose DNSKEY
		 * set cannot be had is taken as insecure, not bogus (as
		 * Unbound does when priming fails) */
		walk_insecure(qs, vq, ve, zone, ve->bogus_ttl);
		return 0;
	}
	if(vq->sub_rcode != DNS_RCODE_NOERROR)
		return walk_retry(qs, vq, ve, DNS_EDE_DNSKEY_MISSING,
			"no DNSKEY answer");
	if(val_collect(qs->region, &vq->sub_an, zone, DNS_TYPE_DNSKEY,
		DNS_CLASS_IN, &keys, &nkeys, &sigs, &nsigs) < 0) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_OTHER, "out of memory");
		return 0;
	}
	if(nkeys == 0)
		return walk_retry(qs, vq, ve, DNS_EDE_DNSKEY_MISSING,
			"no DNSKEY records");
	if(nkeys > VAL_KCACHE_MAX_KEYS)
		/* more than can be kept: not checked (each key would cost
		 * tag, digest and verification work for nothing) */
		return walk_retry(qs, vq, ve, DNS_EDE_DNSSEC_BOGUS,
			"DNSKEY set too large");
	ks.owner = zone;
	ks.type = DNS_TYPE_DNSKEY;
	ks.rrclass = DNS_CLASS_IN;
	ks.rrs = keys;
	ks.count = nkeys;
	if(vq->sub == VAL_SUB_ANCHOR_KEY) {
		if(vq->anchor->autotrust)
			lock_basic_lock(&ve->autr_lock);
		r = verify_with_anchor(vq->anchor, &ks, sigs, nsigs, &w, &ede,
			NULL);
		if(r == VAL_CRYPTO_OK && ve->harden_algo) {
			/* harden-algo-downgrade: every algorithm of the
			 * trust anchor (its DS and DNSKEY records) must sign
			 * the DNSKEY set, as under a DS set below */
			nalgs = anchor_algorithms(vq->anchor, algs);
			r = val_verify_rrset_algos(&ks, sigs, nsigs, &ks, algs,
				nalgs, &w, &ede);
			if(nalgs > VAL_KCACHE_MAX_ALGS)
				nalgs = VAL_KCACHE_MAX_ALGS;
		}
		if(vq->anchor->autotrust)
			lock_basic_unlock(&ve->autr_lock);
		if(r == VAL_CRYPTO_NO_KEY && nsigs > 0)
			/* a signed set, no key of the anchor among its
			 * signers: DNSSEC Bogus, as Unbound reports a
			 * trust anchor priming that fails (its
			 * autotrust_probefailsig.rpl), not DNSKEY Missing */
			ede = DNS_EDE_DNSSEC_BOGUS;
		if(r != VAL_CRYPTO_OK && r != VAL_CRYPTO_UNSUPPORTED &&
			ve->harden_algo && nalgs > 0)
			/* (DNSSEC Bogus, as Unbound: the set is signed, only
			 * not by every algorithm the anchor promises) */
			return walk_retry(qs, vq, ve, DNS_EDE_DNSSEC_BOGUS,
				"algorithm downgrade: an algorithm of the trust "
				"anchor does not sign the DNSKEY set");
	} else {
		as.owner = zone;
		as.type = DNS_TYPE_DS;
		as.rrclass = DNS_CLASS_IN;
		as.rrs = vq->ds;
		as.count = vq->nds;
		r = val_verify_dnskeys_with_ds(&ks, sigs, nsigs, &as, &w, &ede);
		if(r == VAL_CRYPTO_OK && ve->harden_algo) {
			/* every algorithm of the DS set must sign the
			 * DNSKEY set (and, below, every RRset) */
			nalgs = val_ds_algorithms(&as, algs);
			r = val_verify_rrset_algos(&ks, sigs, nsigs, &ks, algs,
				nalgs, &w, &ede);
			if(r != VAL_CRYPTO_OK)
				return walk_retry(qs, vq, ve, ede >= 0 ? ede :
					DNS_EDE_DNSSEC_BOGUS, "algorithm "
					"downgrade: an algorithm of the DS set "
					"does not sign the DNSKEY set");
			if(nalgs > VAL_KCACHE_MAX_ALGS)
				nalgs = VAL_KCACHE_MAX_ALGS;
		}
	}
	if(r == VAL_CRYPTO_UNSUPPORTED) {
		walk_insecure(qs, vq, ve, zone, key_ttl(&vq->sub_an, zone,
			sigs, nsigs, &w));
		return 0;
	}
	if(r == VAL_CRYPTO_NO_KEY && vq->sub == VAL_SUB_KEY && vq->ds_cached &&
		nsigs > 0) {
		/* no key matches the DS set, which was the referral's, from
		 * the cache: the parent is asked for it before the keys are
		 * judged (not when the DNSKEY set has no RRSIG at all: no DS
		 * set makes it verify, and that is EDE 10, RRSIGs Missing,
		 * as Unbound says) */
		uint8_t z[256];
		(void)dname_copy_lower(z, zone);
		vq->ds_cached = 0;
		vq->keys_saved = 1;
		vq->keys_an = vq->sub_an;
		memcpy(vq->keys_origin, vq->sub_origin, sizeof(vq->keys_origin));
		vq->keys_norigin = vq->sub_norigin;
		return walk_sub(qs, vq, ve, VAL_SUB_DS, z, DNS_TYPE_DS) == 0;
	}
	if(r != VAL_CRYPTO_OK)
		return walk_retry(qs, vq, ve, ede >= 0 ? ede :
			DNS_EDE_DNSSEC_BOGUS, val_crypto_result_str(r));
	(void)val_kcache_store_keys_algs(ve->kcache, zone, DNS_CLASS_IN, keys,
		nkeys, key_ttl(&vq->sub_an, zone, sigs, nsigs, &w), now, algs,
		nalgs);
	if(kinfo_set_keys(&vq->kk, zone, keys, nkeys) < 0) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_DNSSEC_BOGUS,
			"DNSKEY set too large");
		return 0;
	}
	memcpy(vq->kk.algs, algs, nalgs);
	vq->kk.nalgs = (uint8_t)nalgs;
	vq->probe_labs = dname_count_labels(zone) + 1;
	return walk_next(qs, vq, ve);
}

/** @return labels of an RRSIG (its labels field) */
static int
sig_labels(const struct val_rr *sig)
{
	return sig->len >= VAL_RRSIG_FIXED ? sig->buf[sig->off + 3] : 0;
}

/** @return 1 when the name starts with the wildcard label */
static int
is_wildcard(const uint8_t *name)
{
	return name[0] == 1 && name[1] == '*';
}

/** most NSEC(3) records looked at in one proof */
#define VAL_MAX_NREC 16

/** @return the number of NSEC and NSEC3 records in a list */
static size_t
nrec_count(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	size_t n = 0;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3)
			n++;
	return n;
}

/** @return 1 when a list holds an SOA record */
static int
list_has_soa(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_SOA)
			return 1;
	return 0;
}

/**
 * Check the NSEC and NSEC3 RRsets of a list with the keys of kk (none
 * when there are more than max: no proof needs that many, and each
 * would cost a verification).
 * @param ede: set to the EDE of a signature that failed (expired, ...),
 *	or -1; may be NULL.
 * @return number of NSEC(3) records that verified, put in recs (NSEC)
 *	and recs3 (NSEC3); -1 when one failed to verify.
 */
static int
check_denial(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const struct val_kinfo *kk,
	struct module_rrlist *l, struct val_nrec *recs, size_t *n,
	struct val_nrec *recs3, size_t *n3, size_t max, uint32_t *minttl,
	int *ede)
{
	struct module_rr *rr, *o;
	struct val_window w;
	int good = 0;
	val_window(qs, ve, &vq->budget, &w);
	if(nrec_count(l) > max)
		return -1; /* more than a proof needs: not examined */
	*n = *n3 = 0;
	if(ede)
		*ede = -1;
	for(rr = l->first; rr; rr = rr->next) {
		struct val_rr *rrs, *sigs;
		size_t nr, ns;
		struct val_rrset set;
		int seen = 0, r;
		if(rr->type != DNS_TYPE_NSEC && rr->type != DNS_TYPE_NSEC3)
			continue;
		for(o = l->first; o != rr; o = o->next)
			if(o->type == rr->type && dname_equal(o->owner,
				rr->owner))
				seen = 1;
		if(seen)
			continue;
		if(val_collect(qs->region, l, rr->owner, rr->type,
			rr->rrclass, &rrs, &nr, &sigs, &ns) < 0)
			return -1;
		set.owner = rr->owner;
		set.type = rr->type;
		set.rrclass = rr->rrclass;
		set.rrs = rrs;
		set.count = nr;
		r = val_verify_rrset_algos(&set, sigs, ns, &kk->keys,
			kk->algs, kk->nalgs, &w, ede);
		if(r != VAL_CRYPTO_OK)
			return -1;
		{
			/* an NSEC made from a wildcard (the RRSIG has fewer
			 * labels than the owner) is not the zone's NSEC at
			 * that name: it denies nothing there (Unbound, too,
			 * refuses it for a DS denial) */
			int labs = dname_count_labels(rr->owner);
			size_t k;
			if(rr->owner[0] == 1 && rr->owner[1] == '*')
				labs--;
			for(k = 0; k < ns; k++)
				if(sigs[k].len >= VAL_RRSIG_FIXED &&
					sigs[k].buf[sigs[k].off + 3] < labs)
					return -1;
		}
		if(rr->ttl < *minttl)
			*minttl = rr->ttl;
		if(rr->type == DNS_TYPE_NSEC && *n < max) {
			recs[*n].owner = rr->owner;
			recs[*n].rdata = rr->rdata;
			recs[*n].len = rr->rdlen;
			(*n)++;
		} else if(rr->type == DNS_TYPE_NSEC3 && *n3 < max) {
			recs3[*n3].owner = rr->owner;
			recs3[*n3].rdata = rr->rdata;
			recs3[*n3].len = rr->rdlen;
			(*n3)++;
		}
		good++;
	}
	return good;
}

/**
 * Verify an RRset of the key walk's DS answer (the DS set, or a CNAME in
 * its place) with the keys of the zone above (vq->kk), drawing on the
 * query's budget.
 * @param set: filled with the RRset (name, type, rrs, nr).
 * @param ede: set to the EDE of a failed signature, or -1.
 * @return a VAL_CRYPTO_ result.
 */
static int
walk_verify_kk(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, struct val_rrset *set, const uint8_t *name,
	uint16_t type, const struct val_rr *rrs, size_t nr,
	const struct val_rr *sigs, size_t ns, int *ede)
{
	struct val_window w;
	*ede = -1;
	val_window(qs, ve, &vq->budget, &w);
	set->owner = name;
	set->type = type;
	set->rrclass = DNS_CLASS_IN;
	set->rrs = rrs;
	set->count = nr;
	return val_verify_rrset_algos(set, sigs, ns, &vq->kk.keys,
		vq->kk.algs, vq->kk.nalgs, &w, ede);
}

/** keep the NSEC at name that the walk just verified and found to deny
 * name's DS set, with its RRSIG, in the validated NSEC store (a client's
 * DS question at the cut is then answered from it, val_neg_answer, as
 * Unbound answers it from its negative cache) */
static void
neg_keep_ds_nsec(struct module_qstate *qs, struct val_env *ve,
	const struct module_rrlist *l, const uint8_t *name)
{
	const struct module_rr *rr, *s;
	if(!ve->neg)
		return;
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->type != DNS_TYPE_NSEC || !dname_equal(rr->owner, name))
			continue;
		for(s = l->first; s; s = s->next)
			if(s->type == DNS_TYPE_RRSIG && sig_covered(s) ==
				DNS_TYPE_NSEC && dname_equal(s->owner, name))
				break;
		if(s)
			(void)val_neg_add(ve->neg, rr, s,
				(uint32_t)qs->env->now->tv_sec, 0xffffffff);
		return;
	}
}

/** a DS answer came back: go down, or end the walk.
 * @return 1 waiting, 0 done */
static int
walk_got_ds(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve)
{
	const uint8_t *name = vq->sub_name;
	struct val_rr *rrs, *sigs;
	size_t nr, ns, n, n3;
	struct val_nrec recs[VAL_MAX_NREC], recs3[VAL_MAX_NREC];
	uint32_t minttl = 3600;
	struct module_rr *rr;
	int p, ede = -1, saved = vq->keys_saved;
	vq->keys_saved = 0; /* (kept for this answer only) */
	if(vq->sub_rcode == DNS_RCODE_NXDOMAIN) {
		/* an NXDOMAIN whose NSEC shows the name is an empty
		 * non-terminal (a server that gives NXDOMAIN for one): no
		 * cut here, go on below (as Unbound is lenient) */
		if(check_denial(qs, vq, ve, &vq->kk, &vq->sub_ns, recs, &n,
			recs3, &n3, VAL_MAX_NREC, &minttl, NULL) > 0 &&
			((n > 0 && val_nsec_prove_nodata(recs, n, name,
			DNS_TYPE_DS) == VAL_PROOF_SECURE) || (n == 0 && n3 > 0 &&
			val_nsec3_prove_nodata(recs3, n3, name, DNS_TYPE_DS,
			ve->max_iter, &vq->budget) == VAL_PROOF_SECURE))) {
			vq->probe_labs++;
			return walk_next(qs, vq, ve);
		}
		/* nothing below: the keys we have are the last ones */
		walk_done(vq, &vq->kk);
		return 0;
	}
	if(vq->sub_rcode != DNS_RCODE_NOERROR)
		/* the DS could not be had (SERVFAIL, REFUSED ...): RFC 8914
		 * Network Error (23), as Unbound says */
		return walk_retry(qs, vq, ve, DNS_EDE_NETWORK_ERROR,
			"no DS answer");
	if(val_collect(qs->region, &vq->sub_an, name, DNS_TYPE_DS,
		DNS_CLASS_IN, &rrs, &nr, &sigs, &ns) < 0) {
		walk_bogus(qs, vq, ve, name, DNS_EDE_OTHER, "out of memory");
		return 0;
	}
	if(nr > 0) {
		struct val_rrset set;
		int r = walk_verify_kk(qs, vq, ve, &set, name, DNS_TYPE_DS,
			rrs, nr, sigs, ns, &ede);
		if(r == VAL_CRYPTO_UNSUPPORTED) {
			walk_insecure(qs, vq, ve, name, minttl);
			return 0;
		}
		if(r != VAL_CRYPTO_OK)
			return walk_retry(qs, vq, ve, ede >= 0 ? ede :
				DNS_EDE_DNSSEC_BOGUS, "DS not verified");
		if(!val_ds_set_usable(&set)) {
			walk_insecure(qs, vq, ve, name, rrs ? minttl : 0);
			return 0;
		}
		vq->ds = rrs;
		vq->nds = nr;
		vq->ds_cached = vq->sub_cached;
		ds_cache_secure(qs, &vq->sub_an, name);
		if(saved) {
			/* the DNSKEY answer is at hand: judged again with
			 * the parent's own DS set */
			uint8_t z[256];
			(void)dname_copy_lower(z, name);
			vq->sub = VAL_SUB_KEY;
			(void)dname_copy_lower(vq->sub_name, z);
			vq->sub_an = vq->keys_an;
			memset(&vq->sub_ns, 0, sizeof(vq->sub_ns));
			vq->sub_rcode = DNS_RCODE_NOERROR;
			memcpy(vq->sub_origin, vq->keys_origin,
				sizeof(vq->sub_origin));
			vq->sub_norigin = vq->keys_norigin;
			vq->sub_retry = 0;
			vq->sub_cached = 0;
			return walk_got_keys(qs, vq, ve);
		}
		if(walk_sub(qs, vq, ve, VAL_SUB_KEY, name, DNS_TYPE_DNSKEY) < 0)
			return 0;
		return 1;
	}
	/* a CNAME there: no zone cut, once it verifies with the keys of
	 * the zone above (RFC 4035 5.2: what ends a cut must be signed; an
	 * unsigned or forged CNAME is no proof, as Unbound) */
	for(rr = vq->sub_an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_CNAME && dname_equal(rr->owner, name))
			break;
	if(rr) {
		struct val_rrset set;
		if(val_collect(qs->region, &vq->sub_an, name, DNS_TYPE_CNAME,
			DNS_CLASS_IN, &rrs, &nr, &sigs, &ns) < 0) {
			walk_bogus(qs, vq, ve, name, DNS_EDE_OTHER,
				"out of memory");
			return 0;
		}
		if(ns == 0)
			return walk_retry(qs, vq, ve, DNS_EDE_RRSIGS_MISSING,
				"DS answered by an unsigned CNAME");
		if(walk_verify_kk(qs, vq, ve, &set, name, DNS_TYPE_CNAME,
			rrs, nr, sigs, ns, &ede) != VAL_CRYPTO_OK)
			return walk_retry(qs, vq, ve, ede >= 0 ? ede :
				DNS_EDE_DNSSEC_BOGUS,
				"CNAME answer to DS not verified");
		if(sig_labels(&sigs[0]) < dname_count_labels(name) -
			(is_wildcard(name) ? 1 : 0))
			/* a CNAME expanded from a wildcard says the name does
			 * not exist, where the walk came to it as a zone cut
			 * (an injected or stale answer): no proof that there
			 * is no cut; the servers that gave it are not asked
			 * again, as Unbound treats it */
			return walk_retry(qs, vq, ve, DNS_EDE_DNSSEC_BOGUS,
				"DS answered by a CNAME from a wildcard");
		vq->probe_labs++;
		return walk_next(qs, vq, ve);
	}
	/* no DS: the denial, signed by the zone above */
	if(check_denial(qs, vq, ve, &vq->kk, &vq->sub_ns, recs, &n, recs3, &n3,
		VAL_MAX_NREC, &minttl, &ede) < 0)
		return walk_retry(qs, vq, ve, ede >= 0 ? ede :
			DNS_EDE_DNSSEC_BOGUS, "NSEC for no DS not verified");
	if(n > 0)
		p = val_nsec_prove_no_ds(recs, n, name);
	else if(n3 > 0)
		p = val_nsec3_prove_no_ds(recs3, n3, name, ve->max_iter,
			&vq->budget);
	else	p = VAL_PROOF_NONE;
	if(n > 0 && (p == VAL_PROOF_INSECURE || p == VAL_PROOF_SECURE))
		neg_keep_ds_nsec(qs, ve, &vq->sub_ns, name);
	switch(p) {
	case VAL_PROOF_INSECURE:
		walk_insecure(qs, vq, ve, name, minttl);
		return 0;
	case VAL_PROOF_SECURE:
		/* no zone cut here */
		vq->probe_labs++;
		return walk_next(qs, vq, ve);
	default:
		if(vq->budget.spent)
			return walk_retry(qs, vq, ve, DNS_EDE_DNSSEC_BOGUS,
				"too much NSEC3 hashing");
		return walk_retry(qs, vq, ve, DNS_EDE_NSEC_MISSING,
			"no proof of no DS");
	}
}

/**
 * The keys for a zone: the walk's result, else the key cache.
 * @return the key info (status), or NULL when unknown (walk needed).
 *	A secure result for a zone above name means no cut was found below
 *	it (only meaningful after a walk to name).
 */
static const struct val_kinfo *
val_keys(struct module_qstate *qs, struct val_qstate *vq, struct val_env *ve,
	const uint8_t *name)
{
	const struct val_anchor *an = val_anchors_lookup(ve->anchors, name,
		DNS_CLASS_IN);
	if(!an || an->insecure || nta_covers(ve, name)) {
		kinfo_set_status(&vq->look, name, VAL_KEY_INSECURE, -1, NULL);
		return &vq->look;
	}
	if(vq->done_valid && dname_equal(vq->target, name))
		return &vq->done;
	if(val_kcache_lookup_closest(ve->kcache, name, DNS_CLASS_IN,
		(uint32_t)qs->env->now->tv_sec, &vq->look) == 1 &&
		dname_is_subdomain(vq->look.name, an->name)) {
		vq->look.keys.owner = vq->look.name;
		if(vq->look.status != VAL_KEY_SECURE ||
			dname_equal(vq->look.name, name))
			return &vq->look;
	}
	return NULL;
}

/** the worse of two statuses (bogus < insecure < secure) */
static int
sec_min(int a, int b)
{
	return a < b ? a : b;
}

/** remember the first failure */
static void
val_fail(struct val_qstate *vq, int ede, const char *why)
{
	if(vq->reason)
		return;
	vq->ede = ede >= 0 ? ede : DNS_EDE_DNSSEC_BOGUS;
	vq->reason = why;
}

/** remember a failure that lies in the keys of a signer (keys_bad) */
static void
val_fail_keys(struct val_qstate *vq, int ede, const char *why)
{
	val_fail(vq, ede, why);
	vq->keys_bad = 1;
}

/** remember a failed denial proof: its EDE (12 when no NSEC or NSEC3
 * came, 6 when they came but prove nothing), or EDE 6 when it failed for
 * want of budget (too many NSEC3 hashes) */
static void
proof_fail(struct val_qstate *vq, int ede, const char *why)
{
	if(vq->budget.spent)
		val_fail(vq, DNS_EDE_DNSSEC_BOGUS, "too much NSEC3 hashing");
	else	val_fail(vq, ede, why);
}

/**
 * The DNAME a CNAME was synthesised from (RFC 6672 2.2): a DNAME in the
 * list whose owner is strictly above the CNAME's owner and whose
 * substitution gives exactly the CNAME's target. Such a CNAME has no
 * RRSIG of its own (the server makes it up); the DNAME's signature
 * covers it (RFC 4035 3.2.4, RFC 6672 5.3.1).
 * @return the DNAME record, or NULL.
 */
static const struct module_rr *
synth_dname(const struct module_rrlist *l, const struct module_rr *cname)
{
	const struct module_rr *d;
	uint8_t synth[256];
	for(d = l->first; d; d = d->next) {
		const uint8_t *p = cname->owner;
		size_t plen = 0, tlen;
		int keep, i;
		if(d->type != DNS_TYPE_DNAME || d->rrclass != cname->rrclass ||
			!dname_is_strict_subdomain(cname->owner, d->owner) ||
			d->rdlen == 0 || dname_valid(d->rdata, d->rdlen) == 0)
			continue;
		keep = dname_count_labels(cname->owner) -
			dname_count_labels(d->owner);
		for(i = 0; i < keep; i++) {
			plen += (size_t)p[0] + 1;
			p += p[0] + 1;
		}
		tlen = dname_len(d->rdata);
		if(plen + tlen > 255)
			continue;
		memcpy(synth, cname->owner, plen);
		memcpy(synth + plen, d->rdata, tlen);
		if(cname->rdlen > 0 && dname_valid(cname->rdata, cname->rdlen)
			&& dname_equal(synth, cname->rdata))
			return d;
	}
	return NULL;
}

/** @return 1 when a CNAME has an RRSIG in the list */
static int
has_sigs(const struct module_rrlist *l, const struct module_rr *rr)
{
	const struct module_rr *o;
	for(o = l->first; o; o = o->next)
		if(o->type == DNS_TYPE_RRSIG && sig_covered(o) == rr->type &&
			dname_equal(o->owner, rr->owner))
			return 1;
	return 0;
}

/** @return 1 when the next names of an NSEC RRset are all in the zone
 * of its signer (at or below it), 0 when one is not or is malformed */
static int
nsec_next_in_zone(const struct val_rr *rrs, size_t n, const uint8_t *signer)
{
	size_t i;
	for(i = 0; i < n; i++) {
		const uint8_t *next = rrs[i].buf + rrs[i].off;
		if(dname_valid(next, rrs[i].len) == 0 ||
			!dname_is_subdomain(next, signer))
			return 0;
	}
	return 1;
}

/**
 * Check every RRset of a section.
 * @param need: set to the zone to walk to when keys are unknown.
 * @param drop_bad: remove RRsets that fail instead of failing the answer
 *	(authority NS sets of positive answers).
 * @param wc: set to the owner and labels of a wildcard expansion.
 * @return the status of the section, -1 when a walk is needed, or
 *	VAL_CHECK_YIELD when the state was suspended (val_yield) before an
 *	RRset: the RRsets judged keep their marks, and the next call goes
 *	on from there.
 */
static int
check_section(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, struct module_rrlist *l, const uint8_t **need,
	int drop_bad, const uint8_t **wc_name, int *wc_labs)
{
	struct module_rr *rr, *o, *next;
	int sec = MODULE_SEC_SECURE;
	struct val_window w;
	val_window(qs, ve, &vq->budget, &w);
	for(rr = l->first; rr; rr = next) {
		struct val_rr *rrs, *sigs;
		size_t nr, ns;
		struct val_rrset set;
		const struct val_kinfo *ki;
		const uint8_t *signer;
		int seen = 0, s, r, ede = -1;
		next = rr->next;
		if(rr->type == DNS_TYPE_RRSIG)
			continue;
		if(rr->sec != 0) {
			/* judged already (in this pass, or before the pass
			 * was suspended) */
			sec = sec_min(sec, rr->sec);
			continue;
		}
		if(rr->type == DNS_TYPE_CNAME && !has_sigs(l, rr) &&
			synth_dname(l, rr))
			continue; /* judged with its DNAME, below */
		for(o = l->first; o != rr; o = o->next)
			if(o->type == rr->type && o->rrclass == rr->rrclass &&
				dname_equal(o->owner, rr->owner))
				seen = 1;
		if(seen)
			continue;
		if(val_collect(qs->region, l, rr->owner, rr->type,
			rr->rrclass, &rrs, &nr, &sigs, &ns) < 0)
			return MODULE_SEC_BOGUS;
		if(ns > 0) {
			signer = sigs[0].buf + sigs[0].off + VAL_RRSIG_FIXED;
			if(dname_valid(signer, sigs[0].len - VAL_RRSIG_FIXED)
				== 0 || !dname_is_subdomain(rr->owner, signer)) {
				val_fail(vq, DNS_EDE_DNSSEC_BOGUS,
					"RRSIG signer is not above the owner");
				s = MODULE_SEC_BOGUS;
				goto mark;
			}
		} else	signer = rr->owner;
		if(rr->type == DNS_TYPE_DS && ns == 0 &&
			dname_count_labels(rr->owner) > 0)
			signer = dname_strip_label(rr->owner);
		ki = val_keys(qs, vq, ve, signer);
		if(!ki) {
			*need = signer;
			return -1;
		}
		if(ki->status == VAL_KEY_INSECURE) {
			s = MODULE_SEC_INSECURE;
		} else if(ki->status == VAL_KEY_BOGUS) {
			val_fail_keys(vq, ki->ede, ki->reason[0] ? ki->reason :
				"key chain is bogus");
			s = MODULE_SEC_BOGUS;
		} else if(ns == 0) {
			/* unsigned data in a secure zone */
			if(ve->harden_stripped) {
				val_fail(vq, DNS_EDE_RRSIGS_MISSING,
					"signatures missing");
				s = MODULE_SEC_BOGUS;
			} else	s = MODULE_SEC_INSECURE;
		} else if(!dname_equal(ki->name, signer)) {
			val_fail(vq, DNS_EDE_DNSKEY_MISSING,
				"no keys for the signer");
			s = MODULE_SEC_BOGUS;
		} else {
			if(val_yield(qs, vq, VAL_SUSP_CHECK))
				return VAL_CHECK_YIELD;
			set.owner = rr->owner;
			set.type = rr->type;
			set.rrclass = rr->rrclass;
			set.rrs = rrs;
			set.count = nr;
			r = val_verify_rrset_algos(&set, sigs, ns,
				&ki->keys, ki->algs, ki->nalgs, &w, &ede);
			if(r == VAL_CRYPTO_OK) {
				int labs = dname_count_labels(rr->owner);
				if(is_wildcard(rr->owner))
					labs--;
				s = MODULE_SEC_SECURE;
				if(sig_labels(&sigs[0]) < labs &&
					rr->type == DNS_TYPE_DNAME) {
					/* a DNAME synthesised from a wildcard
					 * (RFC 4592 4.4: a DNAME at a wildcard
					 * is undefined; Unbound refuses it):
					 * no secure redirection of a subtree */
					val_fail(vq, DNS_EDE_DNSSEC_BOGUS,
						"DNAME expanded from a wildcard");
					s = MODULE_SEC_BOGUS;
				} else if(sig_labels(&sigs[0]) < labs &&
					wc_name) {
					*wc_name = rr->owner;
					*wc_labs = sig_labels(&sigs[0]);
				} else if(sig_labels(&sigs[0]) < labs &&
					(rr->type == DNS_TYPE_NSEC ||
					rr->type == DNS_TYPE_NSEC3)) {
					/* an NSEC made from a wildcard's NSEC
					 * denies nothing at its owner; taken as
					 * proof it would hide real names
					 * (CVE-2017-15105; Unbound refuses it) */
					val_fail(vq, DNS_EDE_DNSSEC_BOGUS,
						"NSEC expanded from a wildcard");
					s = MODULE_SEC_BOGUS;
				} else if(rr->type == DNS_TYPE_NSEC &&
					!nsec_next_in_zone(rrs, nr, signer)) {
					/* an NSEC whose next name is outside
					 * the signer's zone would deny names of
					 * other zones (an overreaching NSEC; as
					 * Unbound) */
					val_fail(vq, DNS_EDE_DNSSEC_BOGUS,
						"NSEC next name outside its zone");
					s = MODULE_SEC_BOGUS;
				}
			} else if(r == VAL_CRYPTO_UNSUPPORTED) {
				s = MODULE_SEC_INSECURE;
			} else {
				val_fail(vq, ede, val_crypto_result_str(r));
				s = MODULE_SEC_BOGUS;
			}
		}
	mark:
		if(s == MODULE_SEC_BOGUS && drop_bad) {
			uint16_t t = rr->type;
			const uint8_t *owner = rr->owner;
			/* (the failure stays noted only for the log) */
			val_remove(l, owner, t);
			next = l->first; /* the list changed: from the top */
			continue;
		}
		val_mark(l, rr->owner, rr->type, s);
		sec = sec_min(sec, s);
	}
	/* the CNAMEs synthesised from a DNAME take the DNAME's status */
	for(rr = l->first; rr; rr = rr->next) {
		const struct module_rr *d;
		int ds;
		if(rr->type != DNS_TYPE_CNAME || rr->sec != 0 ||
			has_sigs(l, rr) || !(d = synth_dname(l, rr)))
			continue;
		ds = d->sec ? d->sec : MODULE_SEC_BOGUS;
		val_mark(l, rr->owner, rr->type, ds);
		sec = sec_min(sec, ds);
	}
	return sec;
}

/** gather the validated NSEC and NSEC3 records of a list */
static void
gather_nrecs(const struct module_rrlist *l, struct val_nrec *recs,
	size_t *n, struct val_nrec *recs3, size_t *n3)
{
	const struct module_rr *rr;
	*n = *n3 = 0;
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->sec != MODULE_SEC_SECURE)
			continue;
		if(rr->type == DNS_TYPE_NSEC && *n < VAL_MAX_NREC) {
			recs[*n].owner = rr->owner;
			recs[*n].rdata = rr->rdata;
			recs[*n].len = rr->rdlen;
			(*n)++;
		} else if(rr->type == DNS_TYPE_NSEC3 && *n3 < VAL_MAX_NREC) {
			recs3[*n3].owner = rr->owner;
			recs3[*n3].rdata = rr->rdata;
			recs3[*n3].len = rr->rdlen;
			(*n3)++;
		}
	}
}

/** the set of a record: its type, or the type an RRSIG covers */
static uint16_t
any_set_type(const struct module_rr *rr)
{
	if(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2)
		return dns_read_u16(rr->rdata);
	return rr->type;
}

/** an RRset of an ANY answer, as val_any_cut() tallies it */
struct any_set {
	/** its owner */
	const uint8_t *owner;
	/** its type */
	uint16_t type;
	/** 1 when an RRSIG covers it */
	int signed_set;
};

/** @return the index of rr's set among the first n of seen, or n */
static size_t
any_set_find(const struct any_set *seen, size_t n, const struct module_rr *rr)
{
	uint16_t t = any_set_type(rr);
	size_t i;
	for(i = 0; i < n; i++)
		if(seen[i].type == t && dname_equal(seen[i].owner, rr->owner))
			break;
	return i;
}

size_t
val_any_cut(struct mesh_answer *a, size_t max_signed)
{
	/* the sets in the order they first appear (at most
	 * VAL_ANY_MAX_SETS of them are looked at: the ones after are past
	 * any cut); an RRSIG marks its set signed wherever it stands */
	struct any_set seen[VAL_ANY_MAX_SETS];
	size_t nseen = 0, nsigned = 0, i, dropped = 0;
	struct module_rr *rr, *prev = NULL, *next;
	if(max_signed > VAL_ANY_MAX_SIGNED)
		max_signed = VAL_ANY_MAX_SIGNED;
	for(rr = a->an.first; rr; rr = rr->next) {
		i = any_set_find(seen, nseen, rr);
		if(i == nseen) {
			if(nseen == VAL_ANY_MAX_SETS) {
				nsigned = max_signed + 1;	/* cut */
				continue;
			}
			seen[nseen].owner = rr->owner;
			seen[nseen].type = any_set_type(rr);
			seen[nseen].signed_set = 0;
			nseen++;
		}
		if(rr->type == DNS_TYPE_RRSIG && !seen[i].signed_set) {
			seen[i].signed_set = 1;
			nsigned++;
		}
	}
	if(nsigned <= max_signed)
		return 0;
	/* keep the sets before the (max_signed + 1)th signed one */
	for(i = 0, nsigned = 0; i < nseen; i++)
		if(seen[i].signed_set && ++nsigned > max_signed)
			break;
	nseen = i;
	for(rr = a->an.first; rr; rr = next) {
		next = rr->next;
		if(any_set_find(seen, nseen, rr) < nseen) {
			prev = rr;
			continue;
		}
		if(prev)
			prev->next = next;
		else	a->an.first = next;
		a->an.count--;
		dropped++;
	}
	a->an.last = prev;
	return dropped;
}

/** clear the per-record marks (a new pass over the answer) */
static void
clear_marks(struct mesh_answer *a)
{
	struct module_rr *rr;
	for(rr = a->an.first; rr; rr = rr->next)
		rr->sec = 0;
	for(rr = a->ns.first; rr; rr = rr->next)
		rr->sec = 0;
}

/** the name the answer ends at: the question, or the last CNAME target
 * (an ANY answer with data at the question ends there: a CNAME is then
 * one of its RRsets, not followed) */
static const uint8_t *
final_name(const struct module_qstate *qs, const struct mesh_answer *a)
{
	const uint8_t *name = qs->qname;
	const struct module_rr *rr;
	int changed = 1, loops = 0;
	if(qs->qtype == DNS_TYPE_ANY)
		for(rr = a->an.first; rr; rr = rr->next)
			if(rr->type != DNS_TYPE_CNAME && rr->type !=
				DNS_TYPE_RRSIG && dname_equal(rr->owner, name))
				return name;
	while(changed && loops++ < 16) {
		changed = 0;
		for(rr = a->an.first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_CNAME &&
				dname_equal(rr->owner, name) && rr->rdlen > 0) {
				name = rr->rdata;
				changed = 1;
				break;
			}
	}
	return name;
}

/** @return 1 when a list holds an NSEC3 record */
static int
has_nsec3(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NSEC3)
			return 1;
	return 0;
}

/**
 * Check the answer: a new pass over it, or the rest of a pass that was
 * suspended or waited for a walk (vq->pass_open: the failure noted, the
 * marks and the wildcard found so far are kept, so no RRset is verified
 * twice).
 * @param need: set to a zone to walk to.
 * @return the message status, -1 when a walk is needed, or
 *	VAL_CHECK_YIELD when the state was suspended until the next turn.
 */
static int
val_check_answer(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const uint8_t **need)
{
	struct mesh_answer *a = vq->ans;
	const uint8_t *fname;
	int s1, s2, neg, p;
	struct val_nrec recs[VAL_MAX_NREC], recs3[VAL_MAX_NREC];
	size_t n, n3;
	const struct module_rr *rr;
	if(!vq->pass_open) {
		vq->reason = NULL;
		vq->ede = -1;
		vq->keys_bad = 0;
		vq->pass_wc = NULL;
		vq->pass_wclabs = 0;
		clear_marks(a);
	}
	vq->pass_open = VAL_PASS_NONE;
	fname = final_name(qs, a);
	neg = (a->rcode == DNS_RCODE_NXDOMAIN);
	if(!neg) {
		neg = 1;
		for(rr = a->an.first; rr; rr = rr->next)
			if(dname_equal(rr->owner, fname) && (rr->type ==
				qs->qtype || qs->qtype == DNS_TYPE_ANY))
				neg = 0;
		if(qs->qtype == DNS_TYPE_CNAME && a->an.count > 0)
			neg = 0;
	}
	if(nrec_count(&a->ns) > VAL_MAX_NREC) {
		/* no proof needs that many: not examined (each would cost a
		 * signature verification, and NSEC3 hashes) */
		val_fail(vq, DNS_EDE_DNSSEC_BOGUS, "too many NSEC/NSEC3 records");
		return MODULE_SEC_BOGUS;
	}
	s1 = check_section(qs, vq, ve, &a->an, need, 0, &vq->pass_wc,
		&vq->pass_wclabs);
	if(s1 == VAL_CHECK_YIELD)
		goto yield;
	if(s1 < 0)
		goto walk;
	s2 = check_section(qs, vq, ve, &a->ns, need, !neg, NULL, NULL);
	if(s2 == VAL_CHECK_YIELD)
		goto yield;
	if(s2 < 0)
		goto walk;
	/* the NSEC3 proofs below hash: not in a turn whose budget is
	 * spent (every RRset is marked now: the next call only proves) */
	if(has_nsec3(&a->ns) && val_yield(qs, vq, VAL_SUSP_CHECK))
		goto yield;
	if(s1 != MODULE_SEC_BOGUS && vq->pass_wc && (!neg || s2 ==
		MODULE_SEC_SECURE)) {
		/* a wildcard expansion (the answer, or a CNAME on the way
		 * to a denial) needs its proof that nothing closer exists;
		 * also when an earlier part of the chain is insecure (a
		 * CNAME from an unsigned zone into a signed one): each part
		 * is judged, the worst wins, as Unbound chases the chain
		 * part by part (serve_expired_wildcard_swap_ad.rpl) */
		gather_nrecs(&a->ns, recs, &n, recs3, &n3);
		if(n > 0)
			p = val_nsec_prove_wildcard(recs, n, vq->pass_wc,
				vq->pass_wclabs);
		else	p = VAL_PROOF_NONE;
		if(p != VAL_PROOF_SECURE && n3 > 0)
			p = val_nsec3_prove_wildcard(recs3, n3, vq->pass_wc,
				vq->pass_wclabs, ve->max_iter, &vq->budget);
		if(p == VAL_PROOF_INSECURE)
			s1 = sec_min(s1, MODULE_SEC_INSECURE);
		else if(p != VAL_PROOF_SECURE) {
			/* (the data is there, its proof is not: bogus, EDE 6,
			 * as Unbound; EDE 12 is for missing data, RFC 8914) */
			proof_fail(vq, DNS_EDE_DNSSEC_BOGUS,
				"wildcard answer without its proof");
			s1 = MODULE_SEC_BOGUS;
		}
	}
	if(!neg)
		return s1;
	s1 = sec_min(s1, s2);
	if(s1 != MODULE_SEC_SECURE) {
		if(s1 == MODULE_SEC_INSECURE)
			return s1;
		return s1;
	}
	if(nrec_count(&a->ns) == 0 && !list_has_soa(&a->ns)) {
		/* nothing signed to look at (at most the zone's NS set,
		 * which proves nothing): where is the zone? */
		const struct val_kinfo *ki = val_keys(qs, vq, ve, fname);
		if(!ki) {
			*need = fname;
			goto walk;
		}
		if(ki->status == VAL_KEY_INSECURE)
			return MODULE_SEC_INSECURE;
		if(ki->status == VAL_KEY_BOGUS)
			vq->keys_bad = 1;
		/* no SOA and no NSEC: not even the shape of a denial (RFC
		 * 2308 wants the SOA), DNSSEC Bogus (6) as Unbound; with a
		 * signed SOA and no NSEC, the NSEC is what is missing (12,
		 * below) */
		val_fail(vq, ki->status == VAL_KEY_BOGUS ? ki->ede :
			DNS_EDE_DNSSEC_BOGUS, ki->status == VAL_KEY_BOGUS ?
			"key chain is bogus" : "denial without SOA or NSEC "
			"records");
		return MODULE_SEC_BOGUS;
	}
	gather_nrecs(&a->ns, recs, &n, recs3, &n3);
	if(a->rcode == DNS_RCODE_NXDOMAIN) {
		if(n > 0)
			p = val_nsec_prove_nxdomain(recs, n, fname);
		else if(n3 > 0)
			p = val_nsec3_prove_nxdomain(recs3, n3, fname,
				ve->max_iter, &vq->budget);
		else	p = VAL_PROOF_NONE;
	} else {
		if(n > 0)
			p = val_nsec_prove_nodata(recs, n, fname, qs->qtype);
		else if(n3 > 0)
			p = val_nsec3_prove_nodata(recs3, n3, fname, qs->qtype,
				ve->max_iter, &vq->budget);
		else	p = VAL_PROOF_NONE;
	}
	if(p != VAL_PROOF_SECURE && p != VAL_PROOF_INSECURE &&
		a->rcode == DNS_RCODE_NXDOMAIN) {
		/* an NXDOMAIN for a name the records show to exist without
		 * the type (an empty non-terminal): a secure NODATA with the
		 * wrong rcode, answered NOERROR (as Unbound is lenient) */
		int q;
		if(n > 0)
			q = val_nsec_prove_nodata(recs, n, fname, qs->qtype);
		else if(n3 > 0)
			q = val_nsec3_prove_nodata(recs3, n3, fname, qs->qtype,
				ve->max_iter, &vq->budget);
		else	q = VAL_PROOF_NONE;
		if(q == VAL_PROOF_SECURE) {
			a->rcode = DNS_RCODE_NOERROR;
			qs->return_rcode = DNS_RCODE_NOERROR;
			return MODULE_SEC_SECURE;
		}
	}
	if(p == VAL_PROOF_SECURE)
		return MODULE_SEC_SECURE;
	if(p == VAL_PROOF_INSECURE)
		return MODULE_SEC_INSECURE;
	/* RFC 8914: NSEC Missing (12) when no NSEC or NSEC3 came; when
	 * some came but prove nothing (or the opposite), DNSSEC Bogus (6),
	 * as Unbound tells them apart */
	proof_fail(vq, n + n3 > 0 ? DNS_EDE_DNSSEC_BOGUS : DNS_EDE_NSEC_MISSING,
		a->rcode == DNS_RCODE_NXDOMAIN ? "NXDOMAIN without proof" :
		"NODATA without proof");
	return MODULE_SEC_BOGUS;
yield:
	vq->pass_open = VAL_PASS_SUSPENDED;
	return VAL_CHECK_YIELD;
walk:
	/* after the walk, the pass goes on from the RRsets judged so far
	 * (their verdicts stand: the walk only adds keys) */
	vq->pass_open = VAL_PASS_WALKED;
	return -1;
}

/** remove DNSSEC records the client did not ask for (no DO) */
static void
strip_dnssec(struct module_rrlist *l, uint16_t qtype)
{
	struct module_rr *rr, *prev = NULL, *next;
	for(rr = l->first; rr; rr = next) {
		next = rr->next;
		if((rr->type == DNS_TYPE_RRSIG || rr->type == DNS_TYPE_NSEC ||
			rr->type == DNS_TYPE_NSEC3) && rr->type != qtype) {
			if(prev)
				prev->next = next;
			else	l->first = next;
			if(l->last == rr)
				l->last = prev;
			l->count--;
			continue;
		}
		prev = rr;
	}
}

/** log a bogus answer (val-log-level) */
static void
val_log_bogus(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve)
{
	char name[256], from[160];
	if(ve->log_level < 1 && verbosity < VERB_ALGO)
		return;
	if(dname_to_str(qs->qname, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "?");
	from[0] = 0;
	if(qs->origin_count > 0) {
		char a[128];
		snprintf(from, sizeof(from), " from %s", netaddr_str(
			qs->origin[0], 53, a, sizeof(a)));
	}
	if(ve->log_level < 1) {
		/* (for the developer: why the answer is bogus) */
		verbose(VERB_ALGO, "validation failure <%s type %u class %u>: "
			"%s (EDE %d)%s after %d restarts", name,
			(unsigned)qs->qtype, (unsigned)qs->qclass, vq->reason ?
			vq->reason : "bogus", vq->ede, from, vq->restarts);
		return;
	}
	log_info("validation failure <%s type %u class %u>: %s (EDE %d)%s"
		" after %d restarts", name, (unsigned)qs->qtype,
		(unsigned)qs->qclass, vq->reason ? vq->reason : "bogus",
		vq->ede, from, vq->restarts);
}

/** @return the number of bogus RRsets in a list */
static uint64_t
count_bogus(const struct module_rrlist *l)
{
	const struct module_rr *rr, *o;
	uint64_t n = 0;
	for(rr = l->first; rr; rr = rr->next) {
		int seen = 0;
		if(rr->sec != MODULE_SEC_BOGUS || rr->type == DNS_TYPE_RRSIG)
			continue;
		for(o = l->first; o != rr; o = o->next)
			if(o->type == rr->type && dname_equal(o->owner,
				rr->owner))
				seen = 1;
		if(!seen)
			n++;
	}
	return n;
}

/** keep the validated NSEC records and SOA of a negative answer for
 * aggressive use (RFC 8198), each with its first RRSIG */
static void
neg_store(struct module_qstate *qs, struct val_env *ve,
	const struct module_rrlist *l)
{
	const struct module_rr *rr, *s;
	uint32_t cap = 0xffffffff;
	/* RFC 9077: an NSEC is used aggressively no longer than the SOA
	 * TTL and the SOA MINIMUM field of its answer (as Unbound) */
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_SOA && rr->sec == MODULE_SEC_SECURE &&
			rr->rdlen >= 22) {
			uint32_t m = dns_read_u32(rr->rdata + rr->rdlen - 4);
			if(rr->ttl < cap)
				cap = rr->ttl;
			if(m < cap)
				cap = m;
		}
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->sec != MODULE_SEC_SECURE || (rr->type != DNS_TYPE_NSEC &&
			rr->type != DNS_TYPE_SOA))
			continue;
		for(s = l->first; s; s = s->next)
			if(s->type == DNS_TYPE_RRSIG && sig_covered(s) ==
				rr->type && dname_equal(s->owner, rr->owner))
				break;
		if(!s)
			continue;
		(void)val_neg_add(ve->neg, rr, s,
			(uint32_t)qs->env->now->tv_sec,
			rr->type == DNS_TYPE_NSEC ? cap : 0xffffffff);
	}
}

/** @return the smallest TTL of the records of a list, at most cap */
static uint32_t
list_min_ttl(const struct module_rrlist *l, uint32_t cap)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->ttl < cap)
			cap = rr->ttl;
	return cap;
}

/** remember a bogus answer for val-bogus-ttl, or less: no longer than
 * the records of the answer a live (a, when given), as Unbound's bogus
 * message goes from its cache with the first of its RRsets that
 * expires, and the question is then resolved again */
static void
bogus_remember(struct module_qstate *qs, struct val_env *ve, int ede,
	const struct mesh_answer *a)
{
	uint32_t now = (uint32_t)qs->env->now->tv_sec;
	uint32_t ttl = ve->bogus_ttl;
	size_t i, slot = 0;
	if(a)
		ttl = list_min_ttl(&a->ns, list_min_ttl(&a->an, ttl));
	if(ttl == 0)
		return;
	lock_basic_lock(&ve->bogus_lock);
	for(i = 0; i < VAL_BOGUS_MAX; i++) {
		struct val_bogus_ent *b = &ve->bogus[i];
		if(b->expire > now && b->qtype == qs->qtype &&
			dname_equal(b->qname, qs->qname)) {
			slot = i;
			break;
		}
		if(b->expire < ve->bogus[slot].expire)
			slot = i; /* the free or oldest one */
	}
	ve->bogus[slot].expire = now + ttl;
	ve->bogus[slot].qtype = qs->qtype;
	ve->bogus[slot].ede = ede;
	(void)dname_copy_lower(ve->bogus[slot].qname, qs->qname);
	lock_basic_unlock(&ve->bogus_lock);
}

/** @return 1 when serve-expired may give an expired answer to this
 * question from the message cache (of either DO bit, not a failure):
 * a bogus answer is then not remembered, so that the expired answer is
 * what the question gets, and the next resolution after the front end's
 * short no-recursion time asks again, as Unbound does not store a bogus
 * message over an expired one it can serve */
static int
bogus_has_stale(struct module_qstate *qs, const struct val_env *ve)
{
	struct query_info qi;
	struct mcache_state st;
	/* (the answers a non-CD client would be given: a CD client's
	 * bogus answer is remembered for them) */
	int d, cd = (qs->flags & MESH_FLAG_CD) && ve->ignore_cd;
	if(!qs->env->cfg || !qs->env->cfg->serve_expired || !qs->env->mcache ||
		query_info_set(&qi, qs->qname, qs->qtype, qs->qclass) < 0)
		return 0;
	for(d = 0; d < 2; d++)
		if(mcache_peek(qs->env->mcache, &qi, d, cd,
			qs->env->now->tv_sec, &st) == 0 &&
			st.result == MCACHE_HIT_EXPIRED &&
			st.rcode != DNS_RCODE_SERVFAIL &&
			st.sec != MCACHE_SEC_BOGUS)
			return 1;
	return 0;
}

/** @return the EDE of a remembered bogus answer to qname, qtype, or -1 */
static int
bogus_lookup_name(struct val_env *ve, uint32_t now, const uint8_t *qname,
	uint16_t qtype)
{
	size_t i;
	int ede = -1;
	lock_basic_lock(&ve->bogus_lock);
	for(i = 0; i < VAL_BOGUS_MAX; i++) {
		const struct val_bogus_ent *b = &ve->bogus[i];
		if(b->expire > now && b->qtype == qtype &&
			dname_equal(b->qname, qname)) {
			ede = b->ede;
			break;
		}
	}
	lock_basic_unlock(&ve->bogus_lock);
	return ede;
}

/** @return the EDE of a remembered bogus answer to this question, or -1 */
static int
bogus_lookup(struct module_qstate *qs, struct val_env *ve)
{
	return bogus_lookup_name(ve, (uint32_t)qs->env->now->tv_sec,
		qs->qname, qs->qtype);
}

/** module failure_lookup(): a remembered bogus answer (not with
 * val-permissive-mode, which gives the answers) */
static int
val_failure_lookup(struct module_env *env, int id, const uint8_t *qname,
	uint16_t qtype)
{
	struct val_env *ve = env->modinfo[id];
	if(!ve || ve->permissive || ve->bogus_ttl == 0)
		return -1;
	return bogus_lookup_name(ve, (uint32_t)env->now->tv_sec, qname,
		qtype);
}

size_t
val_key_count(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	return ve ? val_kcache_count(ve->kcache) : 0;
}

size_t
val_flush_keys(struct module_env *env, int id, const uint8_t *name,
	int below)
{
	struct val_env *ve = env->modinfo[id];
	if(!ve)
		return 0;
	if(below)
		return val_kcache_flush_zone(ve->kcache, name);
	return (size_t)(val_kcache_remove(ve->kcache, name, DNS_CLASS_IN) ?
		1 : 0);
}

size_t
val_flush_bad_keys(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	return ve ? val_kcache_flush_bogus(ve->kcache) : 0;
}

size_t
val_flush_bogus(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	size_t i, n = 0;
	if(!ve)
		return 0;
	lock_basic_lock(&ve->bogus_lock);
	for(i = 0; i < VAL_BOGUS_MAX; i++)
		if(ve->bogus[i].expire != 0) {
			ve->bogus[i].expire = 0;
			n++;
		}
	lock_basic_unlock(&ve->bogus_lock);
	return n + val_kcache_flush_bogus(ve->kcache);
}

/**
 * RFC 8509: the kind of a root-key-sentinel first label.
 * @param tag: set to the key tag in it.
 * @return 1 "root-key-sentinel-is-ta-NNNNN", 2 "...-not-ta-NNNNN", 0 none.
 */
static int
sentinel_label(const uint8_t *qname, unsigned *tag)
{
	static const char is[] = "root-key-sentinel-is-ta-";
	static const char nt[] = "root-key-sentinel-not-ta-";
	const char *p = (const char *)qname + 1;
	size_t len = qname[0], pl, i;
	int kind;
	if(len == sizeof(is) - 1 + 5 && strncasecmp(p, is, sizeof(is) - 1)
		== 0) {
		kind = 1;
		pl = sizeof(is) - 1;
	} else if(len == sizeof(nt) - 1 + 5 && strncasecmp(p, nt,
		sizeof(nt) - 1) == 0) {
		kind = 2;
		pl = sizeof(nt) - 1;
	} else	return 0;
	*tag = 0;
	for(i = pl; i < len; i++) {
		if(!isdigit((unsigned char)p[i]))
			return 0;
		*tag = *tag * 10 + (unsigned)(p[i] - '0');
	}
	return *tag <= 65535 ? kind : 0;
}

/** @return 1 when the root's trust anchor has a key (DNSKEY, or DS) with
 * this key tag */
static int
root_anchor_has(struct val_env *ve, unsigned tag)
{
	const struct val_anchor *an;
	struct val_rr k[32];
	size_t n, i;
	int has = 0;
	for(an = ve->anchors->list; an; an = an->next)
		if(an->name[0] == 0 && !an->insecure && an->dclass ==
			DNS_CLASS_IN)
			break;
	if(!an)
		return 0;
	if(an->autotrust)
		lock_basic_lock(&ve->autr_lock);
	n = val_anchor_keys(an, DNS_TYPE_DNSKEY, k, 32);
	for(i = 0; i < n && i < 32; i++)
		if(val_keytag(k[i].buf + k[i].off, k[i].len) == tag)
			has = 1;
	n = val_anchor_keys(an, DNS_TYPE_DS, k, 32);
	for(i = 0; i < n && i < 32; i++)
		if(k[i].len >= 2 && (unsigned)((k[i].buf[k[i].off] << 8) |
			k[i].buf[k[i].off + 1]) == tag)
			has = 1;
	if(an->autotrust)
		lock_basic_unlock(&ve->autr_lock);
	return has;
}

/**
 * RFC 8509 3.2: a secure answer to an A or AAAA question whose first
 * label is a root-key-sentinel label becomes SERVFAIL when the is-ta
 * key is not trusted or the not-ta key is, with EDE 6 (DNSSEC Bogus) as
 * Unbound says; whether the answer was validated now or made from the
 * validated NSEC store. (A CD client gets the answer, without AD.)
 * @return 1 when the answer fails so.
 */
static int
sentinel_fails(struct module_qstate *qs, struct val_env *ve)
{
	unsigned tag;
	int kind;
	if(!ve->sentinel || (qs->qtype != DNS_TYPE_A &&
		qs->qtype != DNS_TYPE_AAAA))
		return 0;
	kind = sentinel_label(qs->qname, &tag);
	return kind != 0 && (kind == 1) != root_anchor_has(ve, tag);
}

/** sentinel_fails(): then the state is finished SERVFAIL, EDE 6.
 * @return 1 when the state was finished so (MODULE_ERROR). */
static int
sentinel_servfail(struct module_qstate *qs, struct val_env *ve, int id)
{
	if(!sentinel_fails(qs, ve))
		return 0;
	qs->ede = DNS_EDE_DNSSEC_BOGUS;
	qs->return_msg = NULL;
	qs->return_rcode = DNS_RCODE_SERVFAIL;
	qs->ext_state[id] = MODULE_ERROR;
	return 1;
}

/** lower the TTLs of a list's records to at most ttl (the bogus answer
 * given to a CD client) */
static void
bogus_ttl_cap(struct module_rrlist *l, uint32_t ttl)
{
	struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->ttl > ttl)
			rr->ttl = ttl;
}

/** a client question without CD (not ignore-cd-flag) whose answer is
 * bogus, final: hand the answer to the front end for CD clients
 * (qs->bogus_msg), as it would be given to them: TTLs at most
 * val-bogus-ttl, without DNSSEC records for a non-DO key, and marked for
 * no RRset cache (trust none: bogus data serves no other question) */
static void
bogus_for_cd(struct module_qstate *qs, const struct val_env *ve,
	struct mesh_answer *a)
{
	struct module_rrlist *l[3];
	struct module_rr *rr;
	int i;
	if(qs->depth > 0 || ve->ignore_cd || ve->bogus_ttl == 0 ||
		qs->no_cache_store)
		return;
	l[0] = &a->an;
	l[1] = &a->ns;
	l[2] = &a->ar;
	for(i = 0; i < 3; i++) {
		bogus_ttl_cap(l[i], ve->bogus_ttl);
		if(!(qs->flags & MESH_FLAG_DO))
			strip_dnssec(l[i], qs->qtype);
		for(rr = l[i]->first; rr; rr = rr->next)
			rr->trust = RRSET_TRUST_NONE;
	}
	a->sec = MODULE_SEC_BOGUS;
	a->ede = -1;
	qs->bogus_msg = a;
}

/**
 * val-max-restart: the answer is bogus; unless the restarts are used up,
 * the failure is in the keys, or no server is known to have given it,
 * exclude the servers it came from and pass the query down again (the
 * iterator resolves it anew without them; module.h). Nothing is
 * allocated before the first restart.
 * @return 1 when restarted (the state waits on the iterator again).
 */
static int
val_restart(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, int id)
{
	int i, j, added = 0;
	/* a query whose validation budget is spent is not restarted: the
	 * restarted answer could not be checked (KeyTrap) */
	if(vq->restart_done || vq->keys_bad || vq->restarts >=
		ve->max_restart || qs->origin_count == 0 || vq->budget.spent)
		return 0;
	if(!qs->exclude) {
		qs->exclude = region_alloc(qs->region, MODULE_EXCLUDE_MAX *
			sizeof(*qs->exclude));
		if(!qs->exclude)
			return 0;
	}
	for(i = 0; i < qs->origin_count; i++) {
		for(j = 0; j < qs->exclude_count; j++)
			if(netaddr_cmp(&qs->exclude[j], qs->origin[i]) == 0)
				break;
		if(j < qs->exclude_count ||
			qs->exclude_count >= MODULE_EXCLUDE_MAX)
			continue;
		qs->exclude[qs->exclude_count++] = *qs->origin[i];
		added++;
	}
	if(added == 0)
		return 0;
	vq->restarts++;
	if(verbosity >= VERB_ALGO) {
		char n[DNS_MAX_NAME_STR], a[128];
		(void)dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s type %u bogus (%s) from %s: "
			"restart %d of %d without %d servers", n,
			(unsigned)qs->qtype, vq->reason ? vq->reason : "bogus",
			netaddr_str(qs->origin[0], 53, a, sizeof(a)),
			vq->restarts, ve->max_restart, qs->exclude_count);
	}
	vq->bogus_ans = vq->ans;
	vq->bogus_ede = vq->ede;
	vq->bogus_reason = vq->reason;
	vq->ans = NULL;
	vq->reason = NULL;
	vq->ede = -1;
	qs->origin_count = 0;
	qs->return_msg = NULL;
	qs->return_rcode = 0;
	qs->ede = -1;
	qs->ext_state[id] = MODULE_WAIT_MODULE;
	return 1;
}

/**
 * val-clean-additional: the additional section of a secure answer keeps
 * only the RRsets that verify with keys already known (the zone of the
 * answer, typically: the glue of its NS set); the others go, unsigned or
 * not. The additional section of an answer that is not secure stays as
 * it came (nothing in it is claimed secure). As Unbound.
 */
static void
clean_additional(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, struct mesh_answer *a, int sec)
{
	struct module_rr *rr, *next;
	struct val_window w;
	if(sec != MODULE_SEC_SECURE)
		return;
	val_window(qs, ve, &vq->budget, &w);
	for(rr = a->ar.first; rr; rr = next) {
		struct val_rr *rrs, *sigs;
		size_t nr, ns;
		struct val_rrset set;
		const struct val_kinfo *ki = NULL;
		const uint8_t *signer = NULL;
		next = rr->next;
		if(rr->type == DNS_TYPE_RRSIG || rr->sec == MODULE_SEC_SECURE)
			continue;
		if(val_collect(qs->region, &a->ar, rr->owner, rr->type,
			rr->rrclass, &rrs, &nr, &sigs, &ns) == 0 && ns > 0) {
			signer = sigs[0].buf + sigs[0].off + VAL_RRSIG_FIXED;
			if(dname_valid(signer, sigs[0].len - VAL_RRSIG_FIXED)
				== 0 || !dname_is_subdomain(rr->owner, signer))
				signer = NULL;
		}
		if(signer)
			ki = val_keys(qs, vq, ve, signer);
		set.owner = rr->owner;
		set.type = rr->type;
		set.rrclass = rr->rrclass;
		set.rrs = rrs;
		set.count = nr;
		if(ki && ki->status == VAL_KEY_SECURE &&
			dname_equal(ki->name, signer) &&
			val_verify_rrset_algos(&set, sigs, ns, &ki->keys,
			ki->algs, ki->nalgs, &w, NULL) == VAL_CRYPTO_OK) {
			val_mark(&a->ar, rr->owner, rr->type,
				MODULE_SEC_SECURE);
			continue;
		}
		val_remove(&a->ar, rr->owner, rr->type);
		next = a->ar.first; /* the list changed: from the top */
	}
	/* RRSIGs left without their RRset */
	for(rr = a->ar.first; rr; rr = next) {
		next = rr->next;
		if(rr->type == DNS_TYPE_RRSIG && !has_type(&a->ar, rr->owner,
			sig_covered(rr))) {
			val_remove(&a->ar, rr->owner, sig_covered(rr));
			next = a->ar.first;
		}
	}
}

/** the answer is checked: set its status, finish the state (or restart
 * the query when it is bogus: val_restart) */
static void
val_finish(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, int sec, int id)
{
	struct mesh_answer *a = vq->ans;
	struct module_counters *c = &qs->env->ctr;
	int cd = val_cd_client(qs, ve);
	if(sec == MODULE_SEC_BOGUS && val_restart(qs, vq, ve, id))
		return;
	a->sec = (enum module_sec_status)sec;
	if(sec == MODULE_SEC_SECURE && ve->neg &&
		(a->rcode == DNS_RCODE_NXDOMAIN || a->an.count == 0))
		neg_store(qs, ve, &a->ns);
	/* (num.answer.secure counts the replies to clients, as Unbound's:
	 * the front end does, not this validation, which may have none) */
	/* (num.answer.bogus counts the answers made SERVFAIL, as
	 * Unbound's: not those given to CD clients) */
	if(sec == MODULE_SEC_BOGUS && c->num_answer_bogus && !cd)
		(*c->num_answer_bogus)++;
	if(c->num_rrset_bogus)
		*c->num_rrset_bogus += count_bogus(&a->an) +
			count_bogus(&a->ns);
	if(sec == MODULE_SEC_SECURE && cd) {
		if(sentinel_fails(qs, ve))
			a->sec = MODULE_SEC_INSECURE; /* the answer, no AD */
	} else if(sec == MODULE_SEC_SECURE && sentinel_servfail(qs, ve, id))
		return;
	if(sec == MODULE_SEC_BOGUS) {
		val_log_bogus(qs, vq, ve);
		if(!ve->permissive) {
			qs->ede = vq->ede >= 0 ? vq->ede : DNS_EDE_DNSSEC_BOGUS;
			/* the plain DNSSEC Bogus does not hide a reason the
			 * answer came with (EDE 0 for records the iterator
			 * dropped, which is why the signature fails), as
			 * Unbound keeps the more specific one */
			if(qs->ede == DNS_EDE_DNSSEC_BOGUS && a->ede >= 0)
				qs->ede = a->ede;
			if(!bogus_has_stale(qs, ve)) {
				bogus_remember(qs, ve, qs->ede, a);
				if(!cd)
					bogus_for_cd(qs, ve, a);
			}
			if(!cd) {
				qs->return_msg = NULL;
				qs->return_rcode = DNS_RCODE_SERVFAIL;
				qs->ext_state[id] = MODULE_ERROR;
				return;
			}
			/* a CD client gets the data (RFC 4035 3.2.2, RFC
			 * 6840 5.9), remembered for the others all the
			 * same; its TTLs (every record's, so that the
			 * cached message goes when its bogus RRsets would)
			 * at most val-bogus-ttl, as Unbound sets its bogus
			 * RRsets'; no EDE (the answer is not a failure) */
			qs->ede = -1;
			bogus_ttl_cap(&a->an, ve->bogus_ttl);
			bogus_ttl_cap(&a->ns, ve->bogus_ttl);
			bogus_ttl_cap(&a->ar, ve->bogus_ttl);
		}
	}
	if(ve->clean_add)
		clean_additional(qs, vq, ve, a, sec);
	if(!(qs->flags & MESH_FLAG_DO)) {
		strip_dnssec(&a->an, qs->qtype);
		strip_dnssec(&a->ns, qs->qtype);
		strip_dnssec(&a->ar, qs->qtype);
	}
	qs->ext_state[id] = MODULE_FINISHED;
}

/** the worker's own validator data (env->worker_data[id]) */
struct val_worker {
	/** per-state blocks kept for reuse, linked by next_free */
	struct val_qstate *free;
	/** how many */
	int num_free;
	/** 1 in the worker that runs the RFC 5011 probes (worker 0) */
	int prober;
	/** its probe timer (env->timer_set), NULL when not armed */
	void *probe_timer;
	/** the worker's environment and the module's id, for the timers */
	struct module_env *env;
	/** the module's id */
	int id;
	/** signature verifications and NSEC3 hashes made in this turn of
	 * the worker's event loop (charged after each operate()) */
	unsigned turn_verify, turn_hash;
	/** the turn's limits (VAL_TURN_*_DEFAULT) */
	unsigned turn_verify_max, turn_hash_max;
	/** the worker's clock when the turn's counts were last zeroed: a
	 * state that finds the clock moved is in a new turn */
	struct timeval turn_stamp;
	/** the states suspended until the next turn, in order */
	struct val_qstate *susp_first, *susp_last;
	/** the timer that resumes them (env->timer_set, 0 ms), NULL when
	 * not armed */
	void *susp_timer;
	/** 1 while that timer's callback resumes states (they go on while
	 * the budget lasts; outside it, a state waits behind the queue); 2
	 * when the timer could not be armed again and the rest go on
	 * without suspending */
	int in_resume;
	/** states suspended so far (val_turn_stats) */
	unsigned long suspends;
	/** verifications charged so far (val_turn_stats) */
	unsigned long verified;
	/** 1 when a test set the turn's limits (val_set_turn_budget): the
	 * states suspend without an event loop (env->base) too */
	int turn_set;
};

/** the worker's data, made when missing; NULL when out of memory */
static struct val_worker *
val_worker_get(struct module_env *env, int id)
{
	struct val_worker *w = env->worker_data[id];
	if(!w) {
		w = calloc(1, sizeof(*w));
		if(!w)
			return NULL;
		w->env = env;
		w->id = id;
		w->turn_verify_max = VAL_TURN_VERIFY_DEFAULT;
		w->turn_hash_max = VAL_TURN_HASH_DEFAULT;
		env->worker_data[id] = w;
	}
	return w;
}

/** a new turn of the worker's loop: nothing done in it yet */
static void
turn_refill(struct val_worker *w)
{
	w->turn_verify = 0;
	w->turn_hash = 0;
	w->turn_stamp = *w->env->now;
}

/** charge the work a state did since its last charge to the turn (the
 * query budget's counters only grow); a new turn when the worker's clock
 * moved since the last one began */
static void
turn_charge(struct val_worker *w, struct val_qstate *vq)
{
	if(w->turn_stamp.tv_sec != w->env->now->tv_sec ||
		w->turn_stamp.tv_usec != w->env->now->tv_usec)
		turn_refill(w);
	w->turn_verify += vq->budget.verified - vq->turn_verified;
	w->verified += vq->budget.verified - vq->turn_verified;
	w->turn_hash += vq->budget.hashed - vq->turn_hashed;
	vq->turn_verified = vq->budget.verified;
	vq->turn_hashed = vq->budget.hashed;
}

/** @return 1 when the turn's budget is spent */
static int
turn_spent(const struct val_worker *w)
{
	return w->turn_verify >= w->turn_verify_max ||
		w->turn_hash >= w->turn_hash_max;
}

/** take a state off the worker's queue */
static void
turn_unlink(struct val_worker *w, struct val_qstate *vq)
{
	if(!vq->queued)
		return;
	if(vq->susp_prev)
		vq->susp_prev->susp_next = vq->susp_next;
	else	w->susp_first = vq->susp_next;
	if(vq->susp_next)
		vq->susp_next->susp_prev = vq->susp_prev;
	else	w->susp_last = vq->susp_prev;
	vq->susp_prev = vq->susp_next = NULL;
	vq->queued = 0;
}

static void turn_timer_cb(void *arg);

/**
 * Before expensive work (an RRset's signatures, a walk's DNSKEY or DS
 * answer, NSEC3 hashing): when the worker's turn budget is spent, or
 * states wait for the next turn already (they go first), suspend the
 * state: it joins the worker's queue and the resume timer is armed. The
 * caller then unwinds to val_operate(), which leaves the state waiting
 * (MODULE_WAIT_REPLY); the timer resumes it with what to go on with.
 * Without a timer (one cannot be set) the work goes on.
 * @param how: VAL_SUSP_WALK or VAL_SUSP_CHECK.
 * @return 1 when suspended, 0 to go on now.
 */
static int
val_yield(struct module_qstate *qs, struct val_qstate *vq, int how)
{
	struct module_env *env = qs->env;
	struct val_worker *w = env->worker_data[qs->curmod];
	if(!w || !env->timer_set || !env->resume || !env->now ||
		w->in_resume == 2 || (!env->base && !w->turn_set))
		return 0;
	turn_charge(w, vq);
	if(!turn_spent(w) && (!w->susp_first || w->in_resume))
		return 0;
	if(!w->susp_timer && !w->in_resume) {
		w->susp_timer = env->timer_set(env, 0, turn_timer_cb, w);
		if(!w->susp_timer)
			return 0;
	}
	vq->suspended = how;
	vq->queued = 1;
	vq->susp_next = NULL;
	vq->susp_prev = w->susp_last;
	if(w->susp_last)
		w->susp_last->susp_next = vq;
	else	w->susp_first = vq;
	w->susp_last = vq;
	w->suspends++;
	if(verbosity >= VERB_ALGO) {
		char n[DNS_MAX_NAME_STR];
		(void)dname_to_str(qs->qname, n, sizeof(n));
		verbose(VERB_ALGO, "validator: %s type %u suspended until the "
			"next turn (%u verifications, %u hashes this turn)", n,
			(unsigned)qs->qtype, w->turn_verify, w->turn_hash);
	}
	return 1;
}

/** the turn timer: a new turn; resume the suspended states in order
 * while its budget lasts, and arm again for the rest */
static void
turn_timer_cb(void *arg)
{
	struct val_worker *w = arg;
	struct module_env *env = w->env;
	w->susp_timer = NULL; /* freed by the timer's owner */
	turn_refill(w);
	w->in_resume = 1;
	while(w->susp_first && !turn_spent(w)) {
		struct val_qstate *vq = w->susp_first;
		turn_unlink(w, vq);
		/* (val_operate goes on with vq->suspended; the mesh runs
		 * what follows, and may clear other queued states) */
		env->resume(vq->qs, MODULE_EVENT_PASS);
	}
	w->in_resume = 0;
	if(w->susp_first && !w->susp_timer) {
		w->susp_timer = env->timer_set(env, 0, turn_timer_cb, w);
		if(!w->susp_timer) {
			/* cannot wait: the rest goes on now, unsuspended */
			w->in_resume = 2;
			while(w->susp_first) {
				struct val_qstate *vq = w->susp_first;
				turn_unlink(w, vq);
				env->resume(vq->qs, MODULE_EVENT_PASS);
			}
			w->in_resume = 0;
		}
	}
}

int
val_set_turn_budget(struct module_env *env, int id, unsigned verify,
	unsigned hash)
{
	struct val_worker *w = val_worker_get(env, id);
	if(!w)
		return -1;
	w->turn_verify_max = verify > 0 ? verify : 1;
	w->turn_hash_max = hash > 0 ? hash : 1;
	w->turn_set = 1;
	return 0;
}

void
val_turn_stats(struct module_env *env, int id, unsigned long *suspends,
	unsigned long *verified)
{
	struct val_worker *w = env->worker_data[id];
	*suspends = w ? w->suspends : 0;
	*verified = w ? w->verified : 0;
}

/** the wait before a probe, as Unbound: 90 to 100% of wait (at least
 * an hour unless permit-small-holddown), so that resolvers started
 * together do not probe together */
static uint32_t
autr_jitter(struct module_env *env, struct val_env *ve, uint32_t wait)
{
	uint32_t r;
	if(!ve->autr_cfg.permit_small_holddown && wait < 3600)
		wait = 3600;
	if(wait == 0)
		wait = 1;
	r = wait / 10;
	return wait - r + (r > 0 && env->rnd ? random_uniform(env->rnd, r) :
		0);
}

/**
 * RFC 5011 active refresh (2.3): start the DNSKEY probes that are due, as
 * background queries (DO, CD, NOVAL: the answer comes back unvalidated and
 * autr_probe_result() checks it against the point's own trusted keys).
 * Run from the probe timer of worker 0. A probe started moves
 * next_probe_time by the retry time, so a lost probe is tried again; the
 * probe's result sets it to the query interval.
 */
static void
autr_probe_due(struct module_env *env, struct val_env *ve)
{
	struct val_anchor *an;
	uint32_t now = (uint32_t)env->now->tv_sec;
	if(!ve->have_autr || !env->add_background)
		return;
	for(an = ve->anchors->list; an; an = an->next) {
		int due = 0;
		if(!an->autotrust || !an->tp || !an->file)
			continue;
		lock_basic_lock(&ve->autr_lock);
		if(!an->tp->revoked && an->tp->next_probe_time <= now) {
			an->tp->next_probe_time = now + autr_jitter(env, ve,
				an->tp->retry_time);
			an->tp->last_queried = now;
			an->tp->probe_restarts = 0;
			due = 1;
		}
		lock_basic_unlock(&ve->autr_lock);
		if(due && env->add_background(env, an->name,
			DNS_TYPE_DNSKEY, DNS_CLASS_IN, MESH_FLAG_RD |
			MESH_FLAG_DO | MESH_FLAG_CD | MESH_FLAG_NOVAL) != 0)
			log_warn("validator: cannot start the RFC 5011 probe");
	}
}

/** seconds from now to the earliest next probe of the points (0: due),
 * -1 when no point is probed (none, or all revoked) */
static long
autr_next_wait(struct val_env *ve, uint32_t now)
{
	struct val_anchor *an;
	long wait = -1;
	lock_basic_lock(&ve->autr_lock);
	for(an = ve->anchors->list; an; an = an->next) {
		long w;
		if(!an->autotrust || !an->tp || !an->file || an->tp->revoked)
			continue;
		w = an->tp->next_probe_time <= now ? 0 :
			(long)(an->tp->next_probe_time - now);
		if(wait < 0 || w < wait)
			wait = w;
	}
	lock_basic_unlock(&ve->autr_lock);
	return wait;
}

static void autr_timer_cb(void *arg);

/** (re)arm the probe timer of the probing worker for the earliest next
 * probe time; a wait longer than the timer can hold fires early, finds
 * nothing due and arms again */
static void
autr_timer_arm(struct val_worker *w, struct val_env *ve)
{
	struct module_env *env = w->env;
	long wait;
	if(!w->prober)
		return;
	if(w->probe_timer) {
		env->timer_cancel(env, w->probe_timer);
		w->probe_timer = NULL;
	}
	wait = autr_next_wait(ve, (uint32_t)env->now->tv_sec);
	if(wait < 0)
		return;
	if(wait > 86400 * 20)
		wait = 86400 * 20;
	w->probe_timer = env->timer_set(env, (int)wait * 1000,
		autr_timer_cb, w);
	if(!w->probe_timer)
		log_warn("validator: cannot set the RFC 5011 probe timer");
}

/** the probe timer expired: start the probes that are due, arm again */
static void
autr_timer_cb(void *arg)
{
	struct val_worker *w = arg;
	struct val_env *ve = w->env->modinfo[w->id];
	w->probe_timer = NULL; /* freed by the timer's owner */
	autr_probe_due(w->env, ve);
	autr_timer_arm(w, ve);
}

/** a probe's DNSKEY set signed by a key the point trusts, that key in
 * the set or not (as Unbound checks a probe: a trusted key that left the
 * set may still sign it). The caller holds autr_lock. @return 1 or 0 */
static int
autr_signed_by_anchor_key(const struct val_anchor *an,
	const struct val_rrset *ks, const struct val_rr *sigs, size_t nsigs,
	const struct val_window *w)
{
	struct val_rr anch[32];
	size_t na = val_anchor_keys(an, DNS_TYPE_DNSKEY, anch, 32), i, j;
	if(na > 32)
		na = 32;
	for(i = 0; i < na; i++) {
		const uint8_t *k = anch[i].buf + anch[i].off;
		if(anch[i].len < 4 || (dns_read_u16(k) & VAL_DNSKEY_REVOKE))
			continue;
		for(j = 0; j < nsigs; j++)
			if(val_verify_rrsig_key(ks, sigs[j].buf + sigs[j].off,
				sigs[j].len, an->name, k, anch[i].len, w) ==
				VAL_CRYPTO_OK)
				return 1;
	}
	return 0;
}

/** the automatic anchor a probe answer is for, or NULL */
static struct val_anchor *
autr_point_of(struct module_qstate *qs, struct val_env *ve)
{
	struct val_anchor *an;
	if(!ve->have_autr || !qs->prefetch || qs->qtype != DNS_TYPE_DNSKEY ||
		qs->qclass != DNS_CLASS_IN || !(qs->flags & MESH_FLAG_CD))
		return NULL;
	for(an = ve->anchors->list; an; an = an->next)
		if(an->autotrust && an->tp && an->file &&
			dname_equal(an->name, qs->qname))
			return an;
	return NULL;
}

/**
 * After a probe that validated, its DNSKEY set goes to the key cache as
 * the zone's keys, when the point's keys (as the probe left them) verify
 * it, as the walk would store it (every algorithm of the anchor with
 * harden-algo-downgrade): the next query is validated with it, where
 * Unbound's probe, a validated query whose trust anchor priming fills
 * the key cache, leaves the same keys, and no second fetch counts as
 * another probe.
 */
static void
autr_probe_keep_keys(struct module_qstate *qs, struct val_env *ve,
	struct val_anchor *an, const struct module_rrlist *ans,
	const struct val_rrset *ks, const struct val_rr *sigs, size_t nsigs,
	const struct val_window *w)
{
	uint8_t algs[256];
	size_t nalgs = 0;
	int r, ede = -1;
	lock_basic_lock(&ve->autr_lock);
	r = an->tp->revoked ? VAL_CRYPTO_NO_KEY : verify_with_anchor(an, ks,
		sigs, nsigs, w, &ede, NULL);
	if(r == VAL_CRYPTO_OK && ve->harden_algo) {
		nalgs = anchor_algorithms(an, algs);
		r = val_verify_rrset_algos(ks, sigs, nsigs, ks, algs, nalgs, w,
			&ede);
		if(nalgs > VAL_KCACHE_MAX_ALGS)
			nalgs = VAL_KCACHE_MAX_ALGS;
	}
	lock_basic_unlock(&ve->autr_lock);
	if(r == VAL_CRYPTO_OK)
		(void)val_kcache_store_keys_algs(ve->kcache, an->name,
			DNS_CLASS_IN, ks->rrs, ks->count, key_ttl(ans, an->name,
			sigs, nsigs, w), (uint32_t)qs->env->now->tv_sec, algs,
			nalgs);
}

/**
 * A probe came back: run the RFC 5011 state machine on the DNSKEY set
 * (validated with the keys the point trusts; revoked keys that sign the
 * set themselves noted), set the timers, write the file when something
 * changed (temporary file + rename), and drop the zone from the key
 * cache so that the next walk starts from the new trusted keys.
 * @param keep: 1 for the probe's own query (not a walk's fetch, which
 *	stores the keys itself): a set that validated goes to the key cache.
 * @return 1 when a DNSKEY set came and did not validate (the caller may
 *	fetch it again, as Unbound's validator restarts a failed trust
 *	anchor priming, val-max-restart, each attempt counted), else 0.
 */
static int
autr_probe_result(struct module_qstate *qs, struct val_env *ve,
	struct val_anchor *an, int id, const struct module_rrlist *ans,
	int rcode, int keep)
{
	struct val_worker *vw = qs->env->worker_data[id];
	struct val_rr *keys = NULL, *sigs = NULL;
	size_t nkeys = 0, nsigs = 0, i, j;
	struct val_rrset ks;
	struct val_window w;
	int validated = 0, by_ds = 0, ede = -1, changed, held;
	int revoke_signed[VAL_KCACHE_MAX_KEYS];
	uint32_t now = (uint32_t)qs->env->now->tv_sec, ttl = 0, life, wait;
	const struct module_rr *rr;
	char err[512];
	struct val_budget pb;
	val_budget_init(&pb, VAL_BUDGET_VERIFY_DEFAULT, 0);
	val_window(qs, ve, &pb, &w);
	if(ans && rcode == DNS_RCODE_NOERROR &&
		val_collect(qs->region, ans, an->name, DNS_TYPE_DNSKEY,
		DNS_CLASS_IN, &keys, &nkeys, &sigs, &nsigs) < 0)
		return 0;
	if(nkeys > VAL_KCACHE_MAX_KEYS)
		nkeys = 0; /* too many keys: a failed probe */
	ks.owner = an->name;
	ks.type = DNS_TYPE_DNSKEY;
	ks.rrclass = DNS_CLASS_IN;
	ks.rrs = keys;
	ks.count = nkeys;
	memset(revoke_signed, 0, sizeof(revoke_signed));
	for(i = 0; i < nkeys; i++) {
		if(keys[i].len < 2 || !(keys[i].buf[keys[i].off + 1] & 0x80))
			continue; /* no REVOKE bit */
		for(j = 0; j < nsigs; j++)
			if(val_verify_rrsig_key(&ks, sigs[j].buf + sigs[j].off,
				sigs[j].len, an->name, keys[i].buf + keys[i].off,
				keys[i].len, &w) == VAL_CRYPTO_OK)
				revoke_signed[i] = 1;
	}
	if(ans)
		for(rr = ans->first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_DNSKEY && (ttl == 0 ||
				rr->ttl < ttl))
				ttl = rr->ttl;
	life = 0;
	for(j = 0; j < nsigs; j++) {
		uint32_t rem = val_rrsig_remaining(sigs[j].buf + sigs[j].off,
			sigs[j].len, now);
		if(life == 0 || rem < life)
			life = rem;
	}
	lock_basic_lock(&ve->autr_lock);
	if(nkeys == 0) {
		/* no DNSKEY set (SERVFAIL, no answer): as Unbound, nothing is
		 * counted or written; the retry time set when the probe
		 * started stands */
		an->tp->last_queried = now;
		lock_basic_unlock(&ve->autr_lock);
		if(vw && vw->prober && vw->env == qs->env)
			autr_timer_arm(vw, ve);
		return 0;
	}
	held = val_autr_holddown(an->tp, &ve->autr_cfg, now);
	validated = verify_with_anchor(an, &ks, sigs, nsigs, &w, &ede,
		&by_ds) == VAL_CRYPTO_OK ||
		autr_signed_by_anchor_key(an, &ks, sigs, nsigs, &w);
	changed = val_autr_update(an->tp, &ve->autr_cfg, keys, nkeys,
		revoke_signed, validated, by_ds, now);
	if(held && changed == 0)
		changed = 1;
	if(validated && !an->tp->revoked) {
		/* a set that did not validate says nothing about the times:
		 * the retry time set when the probe started stands (and a
		 * revoked point is probed no more) */
		struct val_autr_key *k;
		wait = val_autr_set_times(an->tp, &ve->autr_cfg, ttl, life, 1,
			now);
		an->tp->next_probe_time = now + autr_jitter(qs->env, ve, wait);
		for(k = an->tp->keys; k; k = k->next)
			if(k->ttl == 0)
				k->ttl = ttl; /* a key the probe added */
	}
	/* the timers are in the file too: written after every probe that
	 * validated, and when the state changed */
	if((changed != 0 || validated) &&
		val_autr_write_file(an->tp, an->file, err, sizeof(err)) != 0)
		log_err("auto-trust-anchor-file: %s", err);
	lock_basic_unlock(&ve->autr_lock);
	if(vw && vw->prober && vw->env == qs->env)
		autr_timer_arm(vw, ve);
	if(changed > 0)
		(void)val_kcache_flush_zone(ve->kcache, an->name);
	if(keep && validated)
		autr_probe_keep_keys(qs, ve, an, ans, &ks, sigs, nsigs, &w);
	if(changed > 0) {
		char nm[256];
		if(dname_to_str(an->name, nm, sizeof(nm)) < 0)
			snprintf(nm, sizeof(nm), "?");
		log_info("RFC 5011: the trust point %s changed (probe %s)",
			nm, validated ? "validated" : "failed");
	}
	return !validated && !an->tp->revoked;
}

/** take the walk's sub-query result. @return 1 waiting, 0 walk done */
static int
walk_resume(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve)
{
	switch(vq->sub) {
	case VAL_SUB_ANCHOR_KEY:
	case VAL_SUB_KEY:
		return walk_got_keys(qs, vq, ve);
	case VAL_SUB_DS:
		return walk_got_ds(qs, vq, ve);
	case VAL_SUB_NONE:
	default:
		return 0;
	}
}

/** run the check loop until done or waiting */
static void
val_process(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, int id)
{
	for(;;) {
		const uint8_t *need = NULL;
		int sec;
		/* (the rest of a suspended pass is not a new step) */
		if(vq->pass_open != VAL_PASS_SUSPENDED &&
			++vq->steps > VAL_MAX_STEPS) {
			val_fail_keys(vq, DNS_EDE_DNSSEC_BOGUS,
				"too many validation steps");
			val_finish(qs, vq, ve, MODULE_SEC_BOGUS, id);
			return;
		}
		sec = val_check_answer(qs, vq, ve, &need);
		if(sec == VAL_CHECK_YIELD)
			return; /* suspended: val_operate() sets the state */
		if(sec >= 0) {
			val_finish(qs, vq, ve, sec, id);
			return;
		}
		if(vq->done_valid && dname_equal(vq->target, need)) {
			/* the walk ended but gave nothing usable */
			val_fail_keys(vq, DNS_EDE_DNSKEY_MISSING,
				"no keys found");
			val_finish(qs, vq, ve, MODULE_SEC_BOGUS, id);
			return;
		}
		if(walk_start(qs, vq, ve, need)) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
	}
}

/** answer from the validated NSEC store (RFC 8198).
 * @return 1 when answered (the state is finished) */
static int
neg_answer(struct module_qstate *qs, struct val_env *ve, int id)
{
	struct mesh_answer *a = NULL;
	const struct val_anchor *an = val_anchors_lookup(ve->anchors,
		qs->qname, DNS_CLASS_IN);
	/* not for a name under a domain-insecure or a negative trust
	 * anchor: its data is not proven by the signed zone above (as
	 * Unbound) */
	if(!an || an->insecure || nta_covers(ve, qs->qname))
		return 0;
	if(val_neg_answer(ve->neg, qs->qname, qs->qtype,
		(uint32_t)qs->env->now->tv_sec, qs->region, &a) != 1 || !a)
		return 0;
	if(sentinel_servfail(qs, ve, id))
		return 1;
	if(!(qs->flags & MESH_FLAG_DO))
		strip_dnssec(&a->ns, qs->qtype);
	qs->return_msg = a;
	qs->return_rcode = a->rcode;
	qs->ext_state[id] = MODULE_FINISHED;
	return 1;
}


/** module_env.neg_answer: a CNAME or DNAME target the iterator chases,
 * answered from the validated NSEC store (RFC 8198) under the same rules
 * as the client's question (neg_answer above). The records go back as
 * the proof of the iterator's answer and are checked with it. */
static int
val_neg_target(void *arg, struct module_qstate *qs, const uint8_t *name,
	uint16_t qtype, int *rcode, struct module_rrlist *auth)
{
	struct val_env *ve = arg;
	struct mesh_answer *a = NULL;
	struct module_rr *rr, *next;
	const struct val_anchor *an = val_anchors_lookup(ve->anchors, name,
		DNS_CLASS_IN);
	if(!an || an->insecure || nta_covers(ve, name))
		return 0;
	if(val_neg_answer(ve->neg, name, qtype, (uint32_t)qs->env->now->tv_sec,
		qs->region, &a) != 1 || !a)
		return 0;
	for(rr = a->ns.first; rr; rr = next) {
		next = rr->next;
		rr->next = NULL;
		rr->sec = MODULE_SEC_UNCHECKED;
		module_rrlist_append(auth, rr);
	}
	*rcode = a->rcode;
	return 1;
}

/** a per-state block from the worker's free list or the heap (not
 * zeroed); NULL when out of memory */
static struct val_qstate *
vq_take(struct module_env *env, int id)
{
	struct val_worker *w = val_worker_get(env, id);
	struct val_qstate *vq;
	if(!w)
		return NULL;
	vq = w->free;
	if(!vq)
		return malloc(sizeof(*vq));
	w->free = vq->next_free;
	w->num_free--;
	return vq;
}

/** give a per-state block back: kept while the list has room */
static void
vq_give(struct module_env *env, int id, struct val_qstate *vq)
{
	struct val_worker *w = env->worker_data[id];
	if(!w || w->num_free >= VAL_FREE_MAX) {
		free(vq);
		return;
	}
	vq->next_free = w->free;
	w->free = vq;
	w->num_free++;
}

/** module worker_deinit(): free the worker's kept blocks */
static void
val_worker_deinit(struct module_env *env, int id)
{
	struct val_worker *w = env->worker_data[id];
	if(!w)
		return;
	if(w->probe_timer)
		env->timer_cancel(env, w->probe_timer);
	if(w->susp_timer)
		env->timer_cancel(env, w->susp_timer);
	while(w->free) {
		struct val_qstate *vq = w->free;
		w->free = vq->next_free;
		free(vq);
	}
	free(w);
	env->worker_data[id] = NULL;
}

/** module_env.dnssec_zone: a trust anchor (not an insecure one) sits at
 * the zone */
static int
val_dnssec_zone(void *arg, const uint8_t *zone)
{
	const struct val_env *ve = arg;
	const struct val_anchor *an = val_anchors_find(ve->anchors, zone,
		DNS_CLASS_IN);
	return an && !an->insecure;
}

/** module worker_start(): the iterator's dnssec-lame check is told
 * where trust anchors sit (module_env.dnssec_zone); worker 0 arms the
 * RFC 5011 probe timer for the earliest next probe time of the
 * auto-trust-anchor points (at once for a point never probed), as
 * Unbound's first thread does */
static void
val_worker_start(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	struct val_worker *w;
	if(ve && val_have_anchors(ve)) {
		env->dnssec_zone = val_dnssec_zone;
		env->dnssec_zone_arg = ve;
		if(ve->neg) {
			env->neg_answer = val_neg_target;
			env->neg_answer_arg = ve;
		}
	}
	if(!ve || !ve->have_autr || env->worker_index != 0 ||
		!env->timer_set)
		return;
	if(!(w = val_worker_get(env, id))) {
		log_err("validator: out of memory: no RFC 5011 probes");
		return;
	}
	w->prober = 1;
	w->env = env;
	w->id = id;
	autr_timer_arm(w, ve);
}

/** the module data of a state that is not validated (passed through:
 * NOVAL, sub-query, no anchors, not class IN): its address only */
static char val_passthrough_mark;

/** module operate() */
/** zero a new per-state block except the key records and RDATA bytes of
 * its three val_kinfo (about 50 kB that are only read up to keys.count):
 * zeroing them cost as much per query as the rest of the resolution */
static void
val_qstate_clear(struct val_qstate *vq)
{
	size_t ki = offsetof(struct val_kinfo, rrs);
	char *b = (char *)vq;
	memset(b, 0, offsetof(struct val_qstate, kk) + ki);
	memset(b + offsetof(struct val_qstate, probe_labs), 0,
		offsetof(struct val_qstate, done) + ki -
		offsetof(struct val_qstate, probe_labs));
	memset(&vq->look, 0, ki);
	memset(b + offsetof(struct val_qstate, ede), 0,
		sizeof(*vq) - offsetof(struct val_qstate, ede));
}

static void
val_operate_run(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	struct val_env *ve = qs->env->modinfo[id];
	struct val_qstate *vq = qs->minfo[id];
	(void)reply;
	if(event == MODULE_EVENT_NEW || !vq) {
		if(!val_have_anchors(ve) || (qs->depth > 0 &&
			!(qs->flags & MESH_FLAG_VALSUB)) ||
			/* (class ANY: the iterator asks each class by a
			 * sub-query, validated as the client's question) */
			qs->qclass != DNS_CLASS_IN ||
			(qs->flags & MESH_FLAG_NOVAL)) {
			/* not validated: no state of its own (the walk's
			 * state is kilobytes: a heap block per query) */
			qs->minfo[id] = &val_passthrough_mark;
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
		vq = vq_take(qs->env, id);
		if(vq) {
			val_qstate_clear(vq);
			val_budget_init(&vq->budget, VAL_BUDGET_VERIFY_DEFAULT,
				VAL_BUDGET_HASH_DEFAULT);
		}
		if(!vq) {
			qs->ede = DNS_EDE_OTHER;
			qs->ext_state[id] = MODULE_ERROR;
			return;
		}
		qs->minfo[id] = vq;
		vq->ede = -1;
		vq->qs = qs;
		qs->flags |= MESH_FLAG_DNSSEC;
		if(qs->depth == 0 && !qs->prefetch && !ve->permissive &&
			!val_cd_client(qs, ve)) {
			int ede = bogus_lookup(qs, ve);
			if(ede >= 0) {
				struct module_counters *c = &qs->env->ctr;
				if(c->num_answer_bogus)
					(*c->num_answer_bogus)++;
				qs->ede = ede;
				qs->return_msg = NULL;
				qs->return_rcode = DNS_RCODE_SERVFAIL;
				qs->ext_state[id] = MODULE_ERROR;
				return;
			}
		}
		/* (a CD client, which validates for itself, gets the
		 * servers' answer, not one made from the NSEC store, as
		 * before CD queries were validated; Unbound's
		 * dns64_dnssec.rpl has the servers' answer there too) */
		if(ve->neg && qs->depth == 0 && !qs->prefetch &&
			!val_cd_client(qs, ve) && neg_answer(qs, ve, id))
			return;
		qs->ext_state[id] = MODULE_WAIT_MODULE;
		return;
	}
	if((void *)vq == &val_passthrough_mark) {
		struct val_anchor *pt;
		if(event != MODULE_EVENT_MODDONE) {
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
		/* the RFC 5011 probe (NOVAL: passed through) */
		if((pt = autr_point_of(qs, ve)) != NULL &&
			autr_probe_result(qs, ve, pt, id, qs->return_msg ?
			&qs->return_msg->an : NULL, qs->return_rcode, 1)) {
			/* a set that did not validate is fetched again,
			 * up to val-max-restart times, as Unbound restarts
			 * the failed priming of a trust anchor (each
			 * attempt a failed probe); the same servers may be
			 * asked (Unbound's blacklist only ranks them last) */
			int again;
			lock_basic_lock(&ve->autr_lock);
			again = pt->tp->probe_restarts <
				(unsigned)ve->max_restart;
			if(again)
				pt->tp->probe_restarts++;
			lock_basic_unlock(&ve->autr_lock);
			if(again) {
				qs->ext_state[id] = MODULE_WAIT_MODULE;
				return;
			}
		}
		if(qs->return_msg && !val_have_anchors(ve))
			qs->return_msg->sec = MODULE_SEC_INSECURE;
		qs->ext_state[id] = qs->return_msg ||
			qs->return_rcode != DNS_RCODE_SERVFAIL ?
			MODULE_FINISHED : MODULE_ERROR;
		return;
	}
	if(vq->suspended) {
		/* resumed by the turn timer: go on where it stopped */
		int how = vq->suspended;
		vq->suspended = VAL_SUSP_NONE;
		if(how == VAL_SUSP_WALK && walk_resume(qs, vq, ve)) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		val_process(qs, vq, ve, id);
		return;
	}
	if(event == MODULE_EVENT_MODDONE) {
		struct val_anchor *pt = autr_point_of(qs, ve);
		if(pt)
			(void)autr_probe_result(qs, ve, pt, id,
				qs->return_msg ? &qs->return_msg->an : NULL,
				qs->return_rcode, 1);
		if(vq->bogus_ans && (!qs->return_msg ||
			(qs->return_rcode != DNS_RCODE_NOERROR &&
			qs->return_rcode != DNS_RCODE_NXDOMAIN))) {
			/* a restart found no other answer (every server left
			 * failed or was excluded): the bogus answer is final */
			vq->ans = vq->bogus_ans;
			vq->ede = vq->bogus_ede;
			vq->reason = vq->bogus_reason;
			vq->restart_done = 1;
			qs->return_msg = vq->ans;
			qs->return_rcode = vq->ans->rcode;
			val_finish(qs, vq, ve, MODULE_SEC_BOGUS, id);
			return;
		}
		if(vq->passthrough || !qs->return_msg ||
			qs->return_msg->policy ||
			(qs->return_rcode != DNS_RCODE_NOERROR &&
			qs->return_rcode != DNS_RCODE_NXDOMAIN)) {
			if(qs->return_msg && vq->passthrough &&
				!val_have_anchors(ve))
				qs->return_msg->sec = MODULE_SEC_INSECURE;
			qs->ext_state[id] = qs->return_msg ||
				qs->return_rcode != DNS_RCODE_SERVFAIL ?
				MODULE_FINISHED : MODULE_ERROR;
			return;
		}
		if(qs->qtype == DNS_TYPE_RRSIG && qs->return_rcode ==
			DNS_RCODE_NOERROR && qs->return_msg->an.count > 0) {
			/* RRSIGs are not signed: a positive answer to an
			 * RRSIG question cannot be validated; it goes out
			 * as it came, without AD (as Unbound) */
			qs->ext_state[id] = MODULE_FINISHED;
			return;
		}
		vq->ans = qs->return_msg;
		vq->ans->rcode = qs->return_rcode;
		if(qs->qtype == DNS_TYPE_ANY)
			(void)val_any_cut(vq->ans, VAL_ANY_MAX_SIGNED);
		val_process(qs, vq, ve, id);
		return;
	}
	if(event == MODULE_EVENT_PASS && vq->waiting) {
		if(qs->num_subs > 0) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		vq->waiting = 0;
		if(val_yield(qs, vq, VAL_SUSP_WALK))
			return; /* the answer is checked next turn */
		if(walk_resume(qs, vq, ve)) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		val_process(qs, vq, ve, id);
		return;
	}
	/* passed on again: the iterator's business */
	qs->ext_state[id] = MODULE_WAIT_MODULE;
}

/** module operate(): the work, then its charge to the worker's turn; a
 * state suspended for the next turn waits on the module's own timer */
static void
val_operate(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	struct val_qstate *vq;
	val_operate_run(qs, event, id, reply);
	vq = qs->minfo[id];
	if(vq && (void *)vq != &val_passthrough_mark) {
		struct val_worker *w = qs->env->worker_data[id];
		if(w && qs->env->now)
			turn_charge(w, vq);
		if(vq->suspended)
			qs->ext_state[id] = MODULE_WAIT_REPLY;
	}
}

/** copy a list into a region */
static void
copy_list(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from)
{
	const struct module_rr *rr;
	for(rr = from->first; rr; rr = rr->next) {
		struct module_rr *c = module_rr_new(r, rr->owner, rr->owner_len,
			rr->type, rr->rrclass, rr->ttl, rr->rdata, rr->rdlen);
		if(!c)
			return;
		module_rrlist_append(to, c);
	}
}

/** module inform_super(): a DS or DNSKEY sub-query finished */
static void
val_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	struct val_qstate *vq = super->minfo[id];
	int i;
	if(!vq || (void *)vq == &val_passthrough_mark || !vq->waiting ||
		!dname_equal(sub->qname, vq->sub_name))
		return;
	/* who gave it (for walk_retry); normally one server */
	for(i = 0; i < sub->origin_count && i < MODULE_ORIGIN_MAX; i++)
		vq->sub_origin[i] = *sub->origin[i];
	vq->sub_norigin = i;
	if(!sub->return_msg) {
		vq->sub_rcode = -1;
		return;
	}
	vq->sub_rcode = sub->return_rcode;
	copy_list(super->region, &vq->sub_an, &sub->return_msg->an);
	copy_list(super->region, &vq->sub_ns, &sub->return_msg->ns);
}

/** module clear(): the per-state block goes back to the worker (what
 * it points to is in the state's region) */
static void
val_clear(struct module_qstate *qs, int id)
{
	struct val_qstate *vq = qs->minfo[id];
	if(vq && (void *)vq != &val_passthrough_mark) {
		struct val_worker *w = qs->env->worker_data[id];
		if(w && vq->queued) {
			/* dropped while suspended: off the queue; the timer
			 * goes when nothing is left for it */
			turn_unlink(w, vq);
			if(!w->susp_first && w->susp_timer && !w->in_resume) {
				qs->env->timer_cancel(qs->env, w->susp_timer);
				w->susp_timer = NULL;
			}
		}
		vq_give(qs->env, id, vq);
	}
	qs->minfo[id] = NULL;
}

/** module get_mem() */
static size_t
val_get_mem(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	struct val_worker *w = env->worker_data[id];
	if(!ve)
		return 0;
	return sizeof(*ve) + val_kcache_get_mem(ve->kcache) + (w ?
		sizeof(*w) + (size_t)w->num_free * sizeof(struct val_qstate) :
		0);
}

/** the remote control's requests of the key cache and the negative
 * trust anchors (module_func_block.control) */
static int
val_control(struct module_env *env, int id, enum module_ctl what,
	struct module_ctl_arg *a)
{
	char buf[VAL_NTA_MAX * 260 + 4096];
	switch(what) {
	case MODULE_CTL_KEY_COUNT:
	case MODULE_CTL_FLUSH_KEYS:
	case MODULE_CTL_FLUSH_BAD_KEYS:
	case MODULE_CTL_FLUSH_BOGUS:
	case MODULE_CTL_INSECURE_ADD:
	case MODULE_CTL_INSECURE_REMOVE:
	case MODULE_CTL_INSECURE_LIST:
		break;
	default:
		return 0;
	}
	if(!a)
		return 1;
	switch(what) {
	case MODULE_CTL_KEY_COUNT:
		a->count = val_key_count(env, id);
		break;
	case MODULE_CTL_FLUSH_KEYS:
		a->count = val_flush_keys(env, id, a->name, a->all);
		break;
	case MODULE_CTL_FLUSH_BAD_KEYS:
		a->count = val_flush_bad_keys(env, id);
		break;
	case MODULE_CTL_FLUSH_BOGUS:
		a->count = val_flush_bogus(env, id);
		break;
	case MODULE_CTL_INSECURE_ADD:
		if(val_insecure_add(env, id, a->name) != 0) {
			a->count = VAL_NTA_MAX;
			return -1;
		}
		break;
	case MODULE_CTL_INSECURE_REMOVE:
		a->count = (size_t)val_insecure_remove(env, id, a->name);
		break;
	default:	/* MODULE_CTL_INSECURE_LIST */
		if(a->text)
			a->text(a->cbarg, buf, val_insecure_list(env, id, buf,
				sizeof(buf)));
		break;
	}
	return 1;
}

const struct module_func_block val_module_block = {
	.name = "validator",
	.init = val_init,
	.deinit = val_deinit,
	.operate = val_operate,
	.inform_super = val_inform_super,
	.clear = val_clear,
	.get_mem = val_get_mem,
	.worker_deinit = val_worker_deinit,
	.anchor_list = val_anchor_list,
	.failure_lookup = val_failure_lookup,
	.worker_start = val_worker_start,
	.control = val_control,
};
