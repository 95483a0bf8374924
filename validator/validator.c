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
 */
#include "config.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include "validator/validator.h"
#include "validator/val_crypto.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "validator/val_anchor.h"
#include "validator/val_kcache.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/region.h"
#include "util/config_file.h"

/** the module's settings and shared stores (env->modinfo[id]) */
struct val_env {
	/** the trust anchors */
	struct val_anchors *anchors;
	/** the key cache (shared by the workers; locked inside) */
	struct val_kcache *kcache;
	/** signature skew */
	uint32_t skew_min, skew_max;
	/** val-bogus-ttl */
	uint32_t bogus_ttl;
	/** NSEC3 iteration limit */
	unsigned max_iter;
	/** options */
	int permissive, log_level, harden_stripped, ignore_cd, clean_add;
};

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

/** per-state data */
struct val_qstate {
	/** 1: not validated (CD, sub-query, no anchors) */
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
	/** the failure: EDE code and reason (for the log) */
	int ede;
	/** reason text */
	const char *reason;
};

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
	}
	ve->kcache = val_kcache_create(cfg ? cfg->key_cache_size :
		VAL_KCACHE_SIZE_DEFAULT, cfg ? (size_t)cfg->key_cache_slabs :
		VAL_KCACHE_SLABS_DEFAULT);
	if(!ve->kcache)
		goto oom;
	env->modinfo[id] = ve;
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
	free(ve);
	env->modinfo[id] = NULL;
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

/** the validity window now */
static void
val_window(const struct module_qstate *qs, const struct val_env *ve,
	struct val_window *w)
{
	w->now = (uint32_t)qs->env->now->tv_sec;
	w->skew_min = ve->skew_min;
	w->skew_max = ve->skew_max;
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

/** start a sub-query for the walk. @return 0, or -1 (walk made bogus) */
static int
walk_sub(struct module_qstate *qs, struct val_qstate *vq, struct val_env *ve,
	enum val_sub what, const uint8_t *name, uint16_t type)
{
	vq->sub = what;
	(void)dname_copy_lower(vq->sub_name, name);
	memset(&vq->sub_an, 0, sizeof(vq->sub_an));
	memset(&vq->sub_ns, 0, sizeof(vq->sub_ns));
	vq->sub_rcode = -1;
	if(!qs->env->attach_sub(qs, vq->sub_name, type, DNS_CLASS_IN,
		MESH_FLAG_DO | MESH_FLAG_CD | MESH_FLAG_RD)) {
		walk_bogus(qs, vq, ve, name, type == DNS_TYPE_DS ?
			DNS_EDE_DNSSEC_BOGUS : DNS_EDE_DNSKEY_MISSING,
			type == DNS_TYPE_DS ? "could not fetch DS" :
			"could not fetch DNSKEY");
		return -1;
	}
	vq->waiting = 1;
	return 0;
}

/** the walk moves on from the keys in vq->kk: probe the next label or
 * finish. @return 1 when waiting on a sub-query, 0 when done */
static int
walk_next(struct module_qstate *qs, struct val_qstate *vq, struct val_env *ve)
{
	int tl = dname_count_labels(vq->target);
	if(vq->probe_labs > tl || dname_equal(vq->kk.name, vq->target)) {
		walk_done(vq, &vq->kk);
		return 0;
	}
	if(walk_sub(qs, vq, ve, VAL_SUB_DS, dname_suffix_labels(vq->target,
		vq->probe_labs), DNS_TYPE_DS) < 0)
		return 0;
	return 1;
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
	if(!vq->anchor || vq->anchor->insecure) {
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
	if(walk_sub(qs, vq, ve, VAL_SUB_ANCHOR_KEY, vq->anchor->name,
		DNS_TYPE_DNSKEY) < 0)
		return 0;
	return 1;
}

/** the smallest TTL of the DNSKEY records and the RRSIGs' validity */
static uint32_t
key_ttl(const struct module_rrlist *l, const uint8_t *owner,
	const struct val_rr *sigs, size_t nsigs, uint32_t now)
{
	const struct module_rr *rr;
	uint32_t ttl = 0xffffffffu;
	size_t i;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_DNSKEY && dname_equal(rr->owner, owner)
			&& rr->ttl < ttl)
			ttl = rr->ttl;
	for(i = 0; i < nsigs; i++) {
		uint32_t rem = val_rrsig_remaining(sigs[i].buf, sigs[i].len,
			now);
		if(rem < ttl)
			ttl = rem;
	}
	return ttl == 0xffffffffu ? 0 : ttl;
}

/** a DNSKEY set came back (for the anchor, or under a DS set): check it,
 * keep it as the walk's keys. @return 1 waiting, 0 done */
static int
walk_got_keys(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve)
{
	struct val_rr *keys, *sigs, anch[32];
	size_t nkeys, nsigs, na;
	struct val_rrset ks, as;
	struct val_window w;
	int r, ede = -1;
	const uint8_t *zone = vq->sub_name;
	uint32_t now = (uint32_t)qs->env->now->tv_sec;
	val_window(qs, ve, &w);
	if(vq->sub_rcode != DNS_RCODE_NOERROR) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_DNSKEY_MISSING,
			"no DNSKEY answer");
		return 0;
	}
	if(val_collect(qs->region, &vq->sub_an, zone, DNS_TYPE_DNSKEY,
		DNS_CLASS_IN, &keys, &nkeys, &sigs, &nsigs) < 0) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_OTHER, "out of memory");
		return 0;
	}
	if(nkeys == 0) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_DNSKEY_MISSING,
			"no DNSKEY records");
		return 0;
	}
	ks.owner = zone;
	ks.type = DNS_TYPE_DNSKEY;
	ks.rrclass = DNS_CLASS_IN;
	ks.rrs = keys;
	ks.count = nkeys;
	if(vq->sub == VAL_SUB_ANCHOR_KEY) {
		as.owner = zone;
		as.rrclass = DNS_CLASS_IN;
		as.rrs = anch;
		na = val_anchor_keys(vq->anchor, DNS_TYPE_DS, anch, 32);
		if(na > 0) {
			as.type = DNS_TYPE_DS;
			as.count = na > 32 ? 32 : na;
			r = val_verify_dnskeys_with_ds(&ks, sigs, nsigs, &as,
				&w, &ede);
		} else {
			na = val_anchor_keys(vq->anchor, DNS_TYPE_DNSKEY, anch,
				32);
			as.type = DNS_TYPE_DNSKEY;
			as.count = na > 32 ? 32 : na;
			r = val_verify_dnskeys_with_anchors(&ks, sigs, nsigs,
				&as, &w, &ede);
		}
	} else {
		as.owner = zone;
		as.type = DNS_TYPE_DS;
		as.rrclass = DNS_CLASS_IN;
		as.rrs = vq->ds;
		as.count = vq->nds;
		r = val_verify_dnskeys_with_ds(&ks, sigs, nsigs, &as, &w, &ede);
	}
	if(r == VAL_CRYPTO_UNSUPPORTED) {
		walk_insecure(qs, vq, ve, zone, key_ttl(&vq->sub_an, zone,
			sigs, nsigs, now));
		return 0;
	}
	if(r != VAL_CRYPTO_OK) {
		walk_bogus(qs, vq, ve, zone, ede >= 0 ? ede :
			DNS_EDE_DNSSEC_BOGUS, val_crypto_result_str(r));
		return 0;
	}
	(void)val_kcache_store_keys(ve->kcache, zone, DNS_CLASS_IN, keys,
		nkeys, key_ttl(&vq->sub_an, zone, sigs, nsigs, now), now);
	if(kinfo_set_keys(&vq->kk, zone, keys, nkeys) < 0) {
		walk_bogus(qs, vq, ve, zone, DNS_EDE_DNSSEC_BOGUS,
			"DNSKEY set too large");
		return 0;
	}
	vq->probe_labs = dname_count_labels(zone) + 1;
	return walk_next(qs, vq, ve);
}

/**
 * Check the NSEC and NSEC3 RRsets of a list with the keys of kk.
 * @return number of NSEC(3) records that verified, put in recs (NSEC)
 *	and recs3 (NSEC3); -1 when one failed to verify.
 */
static int
check_denial(struct module_qstate *qs, struct val_env *ve,
	const struct val_kinfo *kk, struct module_rrlist *l,
	struct val_nrec *recs, size_t *n, struct val_nrec *recs3, size_t *n3,
	size_t max, uint32_t *minttl)
{
	struct module_rr *rr, *o;
	struct val_window w;
	int good = 0;
	val_window(qs, ve, &w);
	*n = *n3 = 0;
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
		r = val_verify_rrset(&set, sigs, ns, &kk->keys, &w, NULL);
		if(r != VAL_CRYPTO_OK)
			return -1;
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

/** most NSEC(3) records looked at in one proof */
#define VAL_MAX_NREC 16

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
	int p;
	if(vq->sub_rcode == DNS_RCODE_NXDOMAIN) {
		/* nothing below: the keys we have are the last ones */
		walk_done(vq, &vq->kk);
		return 0;
	}
	if(vq->sub_rcode != DNS_RCODE_NOERROR) {
		walk_bogus(qs, vq, ve, name, DNS_EDE_DNSSEC_BOGUS,
			"no DS answer");
		return 0;
	}
	if(val_collect(qs->region, &vq->sub_an, name, DNS_TYPE_DS,
		DNS_CLASS_IN, &rrs, &nr, &sigs, &ns) < 0) {
		walk_bogus(qs, vq, ve, name, DNS_EDE_OTHER, "out of memory");
		return 0;
	}
	if(nr > 0) {
		struct val_rrset set;
		struct val_window w;
		int r, ede = -1;
		val_window(qs, ve, &w);
		set.owner = name;
		set.type = DNS_TYPE_DS;
		set.rrclass = DNS_CLASS_IN;
		set.rrs = rrs;
		set.count = nr;
		r = val_verify_rrset(&set, sigs, ns, &vq->kk.keys, &w, &ede);
		if(r == VAL_CRYPTO_UNSUPPORTED) {
			walk_insecure(qs, vq, ve, name, minttl);
			return 0;
		}
		if(r != VAL_CRYPTO_OK) {
			walk_bogus(qs, vq, ve, name, ede >= 0 ? ede :
				DNS_EDE_DNSSEC_BOGUS, "DS not verified");
			return 0;
		}
		if(!val_ds_set_usable(&set)) {
			walk_insecure(qs, vq, ve, name, rrs ? minttl : 0);
			return 0;
		}
		vq->ds = rrs;
		vq->nds = nr;
		if(walk_sub(qs, vq, ve, VAL_SUB_KEY, name, DNS_TYPE_DNSKEY) < 0)
			return 0;
		return 1;
	}
	/* a CNAME there: no zone cut */
	for(rr = vq->sub_an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_CNAME && dname_equal(rr->owner, name)) {
			vq->probe_labs++;
			return walk_next(qs, vq, ve);
		}
	/* no DS: the denial, signed by the zone above */
	if(check_denial(qs, ve, &vq->kk, &vq->sub_ns, recs, &n, recs3, &n3,
		VAL_MAX_NREC, &minttl) < 0) {
		walk_bogus(qs, vq, ve, name, DNS_EDE_DNSSEC_BOGUS,
			"NSEC for no DS not verified");
		return 0;
	}
	if(n > 0)
		p = val_nsec_prove_no_ds(recs, n, name);
	else if(n3 > 0)
		p = val_nsec3_prove_no_ds(recs3, n3, name, ve->max_iter);
	else	p = VAL_PROOF_NONE;
	switch(p) {
	case VAL_PROOF_INSECURE:
		walk_insecure(qs, vq, ve, name, minttl);
		return 0;
	case VAL_PROOF_SECURE:
		/* no zone cut here */
		vq->probe_labs++;
		return walk_next(qs, vq, ve);
	default:
		walk_bogus(qs, vq, ve, name, DNS_EDE_NSEC_MISSING,
			"no proof of no DS");
		return 0;
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
	if(!an || an->insecure) {
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

/**
 * Check every RRset of a section.
 * @param need: set to the zone to walk to when keys are unknown.
 * @param drop_bad: remove RRsets that fail instead of failing the answer
 *	(authority NS sets of positive answers).
 * @param wc: set to the owner and labels of a wildcard expansion.
 * @return the status of the section, or -1 when a walk is needed.
 */
static int
check_section(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, struct module_rrlist *l, const uint8_t **need,
	int drop_bad, const uint8_t **wc_name, int *wc_labs)
{
	struct module_rr *rr, *o, *next;
	int sec = MODULE_SEC_SECURE;
	struct val_window w;
	val_window(qs, ve, &w);
	for(rr = l->first; rr; rr = next) {
		struct val_rr *rrs, *sigs;
		size_t nr, ns;
		struct val_rrset set;
		const struct val_kinfo *ki;
		const uint8_t *signer;
		int seen = 0, s, r, ede = -1;
		next = rr->next;
		if(rr->type == DNS_TYPE_RRSIG || rr->sec != 0)
			continue;
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
			val_fail(vq, ki->ede, ki->reason[0] ? ki->reason :
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
			set.owner = rr->owner;
			set.type = rr->type;
			set.rrclass = rr->rrclass;
			set.rrs = rrs;
			set.count = nr;
			r = val_verify_rrset(&set, sigs, ns, &ki->keys, &w, &ede);
			if(r == VAL_CRYPTO_OK) {
				int labs = dname_count_labels(rr->owner);
				if(is_wildcard(rr->owner))
					labs--;
				s = MODULE_SEC_SECURE;
				if(sig_labels(&sigs[0]) < labs && wc_name) {
					*wc_name = rr->owner;
					*wc_labs = sig_labels(&sigs[0]);
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

/** the name the answer ends at: the question, or the last CNAME target */
static const uint8_t *
final_name(const struct module_qstate *qs, const struct mesh_answer *a)
{
	const uint8_t *name = qs->qname;
	const struct module_rr *rr;
	int changed = 1, loops = 0;
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

/**
 * Check the answer.
 * @param need: set to a zone to walk to.
 * @return the message status, or -1 when a walk is needed.
 */
static int
val_check_answer(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, const uint8_t **need)
{
	struct mesh_answer *a = vq->ans;
	const uint8_t *wc = NULL, *fname;
	int wclabs = 0, s1, s2, neg, p;
	struct val_nrec recs[VAL_MAX_NREC], recs3[VAL_MAX_NREC];
	size_t n, n3;
	const struct module_rr *rr;
	vq->reason = NULL;
	vq->ede = -1;
	clear_marks(a);
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
	s1 = check_section(qs, vq, ve, &a->an, need, 0, &wc, &wclabs);
	if(s1 < 0)
		return -1;
	s2 = check_section(qs, vq, ve, &a->ns, need, !neg, NULL, NULL);
	if(s2 < 0)
		return -1;
	if(!neg) {
		if(s1 == MODULE_SEC_SECURE && wc) {
			gather_nrecs(&a->ns, recs, &n, recs3, &n3);
			if(n > 0)
				p = val_nsec_prove_wildcard(recs, n, wc, wclabs);
			else if(n3 > 0)
				p = val_nsec3_prove_wildcard(recs3, n3, wc,
					wclabs, ve->max_iter);
			else	p = VAL_PROOF_NONE;
			if(p == VAL_PROOF_INSECURE)
				s1 = MODULE_SEC_INSECURE;
			else if(p != VAL_PROOF_SECURE) {
				val_fail(vq, DNS_EDE_NSEC_MISSING,
					"wildcard answer without its proof");
				s1 = MODULE_SEC_BOGUS;
			}
		}
		return s1;
	}
	s1 = sec_min(s1, s2);
	if(s1 != MODULE_SEC_SECURE) {
		if(s1 == MODULE_SEC_INSECURE)
			return s1;
		return s1;
	}
	if(a->ns.count == 0) {
		/* nothing signed to look at: where is the zone? */
		const struct val_kinfo *ki = val_keys(qs, vq, ve, fname);
		if(!ki) {
			*need = fname;
			return -1;
		}
		if(ki->status == VAL_KEY_INSECURE)
			return MODULE_SEC_INSECURE;
		val_fail(vq, ki->status == VAL_KEY_BOGUS ? ki->ede :
			DNS_EDE_NSEC_MISSING, ki->status == VAL_KEY_BOGUS ?
			"key chain is bogus" : "denial without NSEC records");
		return MODULE_SEC_BOGUS;
	}
	gather_nrecs(&a->ns, recs, &n, recs3, &n3);
	if(a->rcode == DNS_RCODE_NXDOMAIN) {
		if(n > 0)
			p = val_nsec_prove_nxdomain(recs, n, fname);
		else if(n3 > 0)
			p = val_nsec3_prove_nxdomain(recs3, n3, fname,
				ve->max_iter);
		else	p = VAL_PROOF_NONE;
	} else {
		if(n > 0)
			p = val_nsec_prove_nodata(recs, n, fname, qs->qtype);
		else if(n3 > 0)
			p = val_nsec3_prove_nodata(recs3, n3, fname, qs->qtype,
				ve->max_iter);
		else	p = VAL_PROOF_NONE;
	}
	if(p == VAL_PROOF_SECURE)
		return MODULE_SEC_SECURE;
	if(p == VAL_PROOF_INSECURE)
		return MODULE_SEC_INSECURE;
	val_fail(vq, DNS_EDE_NSEC_MISSING, a->rcode == DNS_RCODE_NXDOMAIN ?
		"NXDOMAIN without proof" : "NODATA without proof");
	return MODULE_SEC_BOGUS;
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
	char name[256];
	if(ve->log_level < 1)
		return;
	if(dname_to_str(qs->qname, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "?");
	log_info("validation failure <%s type %u class %u>: %s (EDE %d)",
		name, (unsigned)qs->qtype, (unsigned)qs->qclass,
		vq->reason ? vq->reason : "bogus", vq->ede);
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

/** the answer is checked: set its status, finish the state */
static void
val_finish(struct module_qstate *qs, struct val_qstate *vq,
	struct val_env *ve, int sec, int id)
{
	struct mesh_answer *a = vq->ans;
	struct module_counters *c = &qs->env->ctr;
	a->sec = (enum module_sec_status)sec;
	if(sec == MODULE_SEC_SECURE && c->num_answer_secure)
		(*c->num_answer_secure)++;
	if(sec == MODULE_SEC_BOGUS && c->num_answer_bogus)
		(*c->num_answer_bogus)++;
	if(c->num_rrset_bogus)
		*c->num_rrset_bogus += count_bogus(&a->an) +
			count_bogus(&a->ns);
	if(sec == MODULE_SEC_BOGUS) {
		val_log_bogus(qs, vq, ve);
		if(!ve->permissive) {
			qs->ede = vq->ede >= 0 ? vq->ede : DNS_EDE_DNSSEC_BOGUS;
			qs->return_msg = NULL;
			qs->return_rcode = DNS_RCODE_SERVFAIL;
			qs->ext_state[id] = MODULE_ERROR;
			return;
		}
	}
	if(ve->clean_add) {
		memset(&a->ar, 0, sizeof(a->ar));
	}
	if(!(qs->flags & MESH_FLAG_DO)) {
		strip_dnssec(&a->an, qs->qtype);
		strip_dnssec(&a->ns, qs->qtype);
		strip_dnssec(&a->ar, qs->qtype);
	}
	qs->ext_state[id] = MODULE_FINISHED;
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
		if(++vq->steps > VAL_MAX_STEPS) {
			val_fail(vq, DNS_EDE_DNSSEC_BOGUS,
				"too many validation steps");
			val_finish(qs, vq, ve, MODULE_SEC_BOGUS, id);
			return;
		}
		sec = val_check_answer(qs, vq, ve, &need);
		if(sec >= 0) {
			val_finish(qs, vq, ve, sec, id);
			return;
		}
		if(vq->done_valid && dname_equal(vq->target, need)) {
			/* the walk ended but gave nothing usable */
			val_fail(vq, DNS_EDE_DNSKEY_MISSING, "no keys found");
			val_finish(qs, vq, ve, MODULE_SEC_BOGUS, id);
			return;
		}
		if(walk_start(qs, vq, ve, need)) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
	}
}

/** the module data of a state that is not validated (passed through:
 * CD, sub-query, no anchors, not class IN): its address only */
static char val_passthrough_mark;

/** module operate() */
static void
val_operate(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	struct val_env *ve = qs->env->modinfo[id];
	struct val_qstate *vq = qs->minfo[id];
	(void)reply;
	if(event == MODULE_EVENT_NEW || !vq) {
		if(!val_have_anchors(ve) || qs->depth > 0 ||
			qs->qclass != DNS_CLASS_IN ||
			((qs->flags & MESH_FLAG_CD) && !ve->ignore_cd)) {
			/* not validated: no state of its own (the walk's
			 * state is kilobytes: a heap block per query) */
			qs->minfo[id] = &val_passthrough_mark;
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
		vq = region_alloc_zero(qs->region, sizeof(*vq));
		if(!vq) {
			qs->ede = DNS_EDE_OTHER;
			qs->ext_state[id] = MODULE_ERROR;
			return;
		}
		qs->minfo[id] = vq;
		vq->ede = -1;
		qs->flags |= MESH_FLAG_DNSSEC;
		qs->ext_state[id] = MODULE_WAIT_MODULE;
		return;
	}
	if((void *)vq == &val_passthrough_mark) {
		if(event != MODULE_EVENT_MODDONE) {
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
		if(qs->return_msg && !val_have_anchors(ve))
			qs->return_msg->sec = MODULE_SEC_INSECURE;
		qs->ext_state[id] = qs->return_msg ||
			qs->return_rcode != DNS_RCODE_SERVFAIL ?
			MODULE_FINISHED : MODULE_ERROR;
		return;
	}
	if(event == MODULE_EVENT_MODDONE) {
		if(vq->passthrough || !qs->return_msg ||
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
		vq->ans = qs->return_msg;
		vq->ans->rcode = qs->return_rcode;
		val_process(qs, vq, ve, id);
		return;
	}
	if(event == MODULE_EVENT_PASS && vq->waiting) {
		if(qs->num_subs > 0) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		vq->waiting = 0;
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
	if(!vq || (void *)vq == &val_passthrough_mark || !vq->waiting ||
		!dname_equal(sub->qname, vq->sub_name))
		return;
	if(!sub->return_msg) {
		vq->sub_rcode = -1;
		return;
	}
	vq->sub_rcode = sub->return_rcode;
	copy_list(super->region, &vq->sub_an, &sub->return_msg->an);
	copy_list(super->region, &vq->sub_ns, &sub->return_msg->ns);
}

/** module clear(): the data is in the state's region */
static void
val_clear(struct module_qstate *qs, int id)
{
	qs->minfo[id] = NULL;
}

/** module get_mem() */
static size_t
val_get_mem(struct module_env *env, int id)
{
	struct val_env *ve = env->modinfo[id];
	if(!ve)
		return 0;
	return sizeof(*ve) + val_kcache_get_mem(ve->kcache);
}

const struct module_func_block val_module_block = {
	"validator", val_init, val_deinit, val_operate, val_inform_super,
	val_clear, val_get_mem
};
