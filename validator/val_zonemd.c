/*
 * validator/val_zonemd.c - the DNSSEC side of an auth-zone's ZONEMD
 * check (RFC 8976 section 4). See val_zonemd.h.
 *
 * The zone comes as an ldns RR list (the auth zone's own form); the
 * RRsets the check needs (apex DNSKEY, ZONEMD, NSEC or the apex NSEC3,
 * and their RRSIGs) are copied out as wire RDATA into one buffer per
 * set, the form val_crypto and the NSEC proofs take. This runs once per
 * zone load or transfer, never per query.
 */
#include "config.h"
#include "validator/val_zonemd.h"
#include "validator/val_anchor.h"
#include "validator/val_crypto.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "services/authzone.h"
#include "util/config_file.h"
#include "util/log.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/** ZONEMD RR type (RFC 8976) */
#define ZMD_TYPE_ZONEMD 63
/** most trust anchor keys of one type looked at */
#define ZMD_MAX_ANCHOR_KEYS 32

/** the check's state */
struct val_zonemd {
	/** the trust anchors (owned) */
	struct val_anchors *anchors;
	/** val-sig-skew-min, -max */
	uint32_t skew_min, skew_max;
	/** the NSEC3 iteration limit */
	unsigned max_iter;
	/** a fixed clock (tests), or 0 */
	uint32_t now;
};

/** an RRset copied out of the ldns list: its RDATA in one buffer */
struct zset {
	/** the RDATA of every record, one after the other */
	uint8_t *buf;
	/** bytes used, allocated */
	size_t len, cap;
	/** the records (pointing into buf once zset_done is called) */
	struct val_rr *rr;
	/** how many, allocated */
	size_t n, cap_rr;
};

/** free a set's memory */
static void
zset_free(struct zset *s)
{
	free(s->buf);
	free(s->rr);
	memset(s, 0, sizeof(*s));
}

/** append one record's RDATA. @return 0 or -1 (out of memory, too
 * long) */
static int
zset_add(struct zset *s, const ldns_rr *rr, ldns_buffer *tmp)
{
	size_t l;
	ldns_buffer_clear(tmp);
	if(ldns_rr_rdata2buffer_wire(tmp, rr) != LDNS_STATUS_OK)
		return -1;
	l = ldns_buffer_position(tmp);
	if(l > 65535)
		return -1;
	if(s->len + l > s->cap) {
		size_t c = (s->cap ? s->cap * 2 : 1024) + l;
		uint8_t *b = realloc(s->buf, c);
		if(!b)
			return -1;
		s->buf = b;
		s->cap = c;
	}
	if(s->n == s->cap_rr) {
		size_t c = s->cap_rr ? s->cap_rr * 2 : 8;
		struct val_rr *r = realloc(s->rr, c * sizeof(*r));
		if(!r)
			return -1;
		s->rr = r;
		s->cap_rr = c;
	}
	memcpy(s->buf + s->len, ldns_buffer_begin(tmp), l);
	s->rr[s->n].off = s->len;
	s->rr[s->n].len = (uint16_t)l;
	s->n++;
	s->len += l;
	return 0;
}

/** point the records at the final buffer */
static void
zset_done(struct zset *s)
{
	size_t i;
	for(i = 0; i < s->n; i++) {
		s->rr[i].buf = s->buf;
		s->rr[i].buflen = s->len;
	}
}

/**
 * Copy out the records of one owner and type, or (covered != 0) the
 * RRSIGs over that type at that owner.
 * @return 0 or -1 (out of memory).
 */
static int
zset_gather(struct zset *s, const ldns_rr_list *rrs, const ldns_rdf *owner,
	uint16_t type, uint16_t covered, ldns_buffer *tmp)
{
	size_t i, n = ldns_rr_list_rr_count(rrs);
	for(i = 0; i < n; i++) {
		const ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		if((uint16_t)ldns_rr_get_type(rr) != type ||
			ldns_rr_get_class(rr) != LDNS_RR_CLASS_IN ||
			ldns_dname_compare(ldns_rr_owner(rr), owner) != 0)
			continue;
		if(covered) {
			const ldns_rdf *c = ldns_rr_rrsig_typecovered(rr);
			if(!c || (uint16_t)ldns_rdf2rr_type(c) != covered)
				continue;
		}
		if(zset_add(s, rr, tmp) != 0)
			return -1;
	}
	zset_done(s);
	return 0;
}

struct val_zonemd *
val_zonemd_create(const struct config_file *cfg, char *err, size_t errlen)
{
	struct val_zonemd *vz = calloc(1, sizeof(*vz));
	const struct config_strlist *s;
	if(!vz || !(vz->anchors = val_anchors_create())) {
		free(vz);
		snprintf(err, errlen, "zonemd: out of memory");
		return NULL;
	}
	vz->skew_min = (uint32_t)cfg->val_sig_skew_min;
	vz->skew_max = (uint32_t)cfg->val_sig_skew_max;
	vz->max_iter = VAL_NSEC3_MAX_ITER_DEFAULT;
	/* the same anchor lines, in the same order, as the validator */
	for(s = cfg->trust_anchors; s; s = s->next)
		if(val_anchors_add_str(vz->anchors, s->str, err, errlen) != 0)
			goto fail;
	for(s = cfg->trust_anchor_files; s; s = s->next)
		if(val_anchors_add_zonefile(vz->anchors, s->str, err,
			errlen) != 0)
			goto fail;
	for(s = cfg->trusted_keys_files; s; s = s->next)
		if(val_anchors_add_bindfile(vz->anchors, s->str, err,
			errlen) != 0)
			goto fail;
	for(s = cfg->auto_trust_anchor_files; s; s = s->next)
		if(val_anchors_add_autofile(vz->anchors, s->str, err,
			errlen) != 0)
			goto fail;
	for(s = cfg->domain_insecure; s; s = s->next)
		if(val_anchors_add_insecure(vz->anchors, s->str, err,
			errlen) != 0)
			goto fail;
	return vz;
fail:
	val_zonemd_delete(vz);
	return NULL;
}

void
val_zonemd_delete(struct val_zonemd *vz)
{
	if(!vz)
		return;
	val_anchors_delete(vz->anchors);
	free(vz);
}

void
val_zonemd_set_now(struct val_zonemd *vz, uint32_t now)
{
	vz->now = now;
}

/**
 * Verify the apex DNSKEY set with the trust anchor.
 * @return AUTH_ZMD_SECURE, AUTH_ZMD_NO_ANCHOR (only unsupported
 *	algorithms) or AUTH_ZMD_BOGUS with err.
 */
static int
zmd_keys(const struct val_anchor *an, const struct val_rrset *keys,
	const struct zset *sigs, const struct val_window *w, char *err,
	size_t errlen)
{
	struct val_rr ta[ZMD_MAX_ANCHOR_KEYS];
	struct val_rrset set;
	size_t n;
	int rd = -1, rk = -1, bad;
	memset(&set, 0, sizeof(set));
	set.owner = keys->owner;
	set.rrclass = LDNS_RR_CLASS_IN;
	set.rrs = ta;
	if((n = val_anchor_keys(an, DNS_TYPE_DS, ta, ZMD_MAX_ANCHOR_KEYS))) {
		set.type = DNS_TYPE_DS;
		set.count = n < ZMD_MAX_ANCHOR_KEYS ? n : ZMD_MAX_ANCHOR_KEYS;
		rd = val_verify_dnskeys_with_ds(keys, sigs->rr, sigs->n, &set,
			w, NULL);
	}
	if(rd != VAL_CRYPTO_OK && (n = val_anchor_keys(an, DNS_TYPE_DNSKEY,
		ta, ZMD_MAX_ANCHOR_KEYS))) {
		set.type = DNS_TYPE_DNSKEY;
		set.count = n < ZMD_MAX_ANCHOR_KEYS ? n : ZMD_MAX_ANCHOR_KEYS;
		rk = val_verify_dnskeys_with_anchors(keys, sigs->rr, sigs->n,
			&set, w, NULL);
	}
	if(rd == VAL_CRYPTO_OK || rk == VAL_CRYPTO_OK)
		return AUTH_ZMD_SECURE;
	if(rd == -1 && rk == -1) {
		snprintf(err, errlen, "the trust anchor has no usable key");
		return AUTH_ZMD_BOGUS;
	}
	if((rd == -1 || rd == VAL_CRYPTO_UNSUPPORTED) &&
		(rk == -1 || rk == VAL_CRYPTO_UNSUPPORTED))
		return AUTH_ZMD_NO_ANCHOR;
	bad = (rd != -1 && rd != VAL_CRYPTO_UNSUPPORTED) ? rd : rk;
	snprintf(err, errlen, "the DNSKEY set does not verify with the trust "
		"anchor: %s", val_crypto_result_str(bad));
	return AUTH_ZMD_BOGUS;
}

/**
 * Verify one denial RRset (the apex NSEC, or the apex's NSEC3) and
 * return it as a val_nrec.
 * @return 0, or -1 with err (not there, more than one, bad signature).
 */
static int
zmd_denial(const ldns_rr_list *rrs, const ldns_rdf *owner, uint16_t type,
	const struct val_rrset *keys, const struct val_window *w,
	struct zset *rec, struct zset *sigs, ldns_buffer *tmp, char *err,
	size_t errlen)
{
	struct val_rrset set;
	int r;
	if(zset_gather(rec, rrs, owner, type, 0, tmp) != 0 ||
		zset_gather(sigs, rrs, owner, DNS_TYPE_RRSIG, type, tmp) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(rec->n != 1)
		return -1;
	memset(&set, 0, sizeof(set));
	set.owner = ldns_rdf_data(owner);
	set.type = type;
	set.rrclass = LDNS_RR_CLASS_IN;
	set.rrs = rec->rr;
	set.count = rec->n;
	r = val_verify_rrset(&set, sigs->rr, sigs->n, keys, w, NULL);
	if(r != VAL_CRYPTO_OK) {
		snprintf(err, errlen, "the %s of the apex does not verify: %s",
			type == DNS_TYPE_NSEC ? "NSEC" : "NSEC3",
			val_crypto_result_str(r));
		return -1;
	}
	return 0;
}

/**
 * Prove that the apex has no ZONEMD with a verified NSEC, or NSEC3 (the
 * apex's hash with the parameters of the NSEC3PARAM).
 * @return AUTH_ZMD_SECURE, AUTH_ZMD_UNVERIFIABLE (NSEC3 iterations over
 *	the limit) or AUTH_ZMD_BOGUS with err.
 */
static int
zmd_absent(struct val_zonemd *vz, const ldns_rr_list *rrs,
	const ldns_rdf *apex, const struct val_rrset *keys,
	const struct val_window *w, ldns_buffer *tmp, char *err,
	size_t errlen)
{
	const uint8_t *aw = ldns_rdf_data(apex);
	struct zset rec, sigs, par;
	struct val_nrec nr;
	int r = AUTH_ZMD_BOGUS, p;
	memset(&rec, 0, sizeof(rec));
	memset(&sigs, 0, sizeof(sigs));
	memset(&par, 0, sizeof(par));
	err[0] = 0;
	if(zmd_denial(rrs, apex, DNS_TYPE_NSEC, keys, w, &rec, &sigs, tmp,
		err, errlen) == 0) {
		nr.owner = aw;
		nr.rdata = rec.buf + rec.rr[0].off;
		nr.len = rec.rr[0].len;
		p = val_nsec_prove_nodata(&nr, 1, aw, ZMD_TYPE_ZONEMD);
		if(p == VAL_PROOF_SECURE)
			r = AUTH_ZMD_SECURE;
		else	snprintf(err, errlen, "the apex NSEC does not prove "
				"the ZONEMD absent (%s)", val_proof_str(p));
		goto done;
	}
	if(err[0])
		goto done;
	zset_free(&rec);
	zset_free(&sigs);
	if(zset_gather(&par, rrs, apex, DNS_TYPE_NSEC3PARAM, 0, tmp) != 0) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if(par.n >= 1 && par.rr[0].len >= 5 &&
		par.rr[0].len >= 5 + par.buf[par.rr[0].off + 4]) {
		const uint8_t *pr = par.buf + par.rr[0].off;
		uint8_t h[VAL_NSEC3_HASH_LEN], owner[256];
		char b32[64];
		size_t bl, al = ldns_rdf_size(apex);
		ldns_rdf *on;
		if(val_nsec3_hash(aw, pr[0], pr + 5, pr[4],
			(unsigned)((pr[2] << 8) | pr[3]), h) != 0 ||
			!(bl = val_base32hex_encode(h, sizeof(h), b32,
			sizeof(b32))) || 1 + bl + al > sizeof(owner)) {
			snprintf(err, errlen, "the NSEC3PARAM cannot be used");
			goto done;
		}
		owner[0] = (uint8_t)bl;
		memcpy(owner + 1, b32, bl);
		memcpy(owner + 1 + bl, aw, al);
		if(!(on = ldns_dname_new_frm_data((uint16_t)(1 + bl + al),
			owner))) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		if(zmd_denial(rrs, on, DNS_TYPE_NSEC3, keys, w, &rec, &sigs,
			tmp, err, errlen) == 0) {
			nr.owner = ldns_rdf_data(on);
			nr.rdata = rec.buf + rec.rr[0].off;
			nr.len = rec.rr[0].len;
			p = val_nsec3_prove_nodata(&nr, 1, aw, ZMD_TYPE_ZONEMD,
				vz->max_iter, NULL);
			if(p == VAL_PROOF_SECURE)
				r = AUTH_ZMD_SECURE;
			else if(p == VAL_PROOF_INSECURE) {
				r = AUTH_ZMD_UNVERIFIABLE;
				snprintf(err, errlen, "the apex NSEC3 cannot "
					"prove the ZONEMD absent (iterations "
					"over the limit)");
			} else	snprintf(err, errlen, "the apex NSEC3 does "
					"not prove the ZONEMD absent (%s)",
					val_proof_str(p));
		}
		ldns_rdf_deep_free(on);
	}
	if(r != AUTH_ZMD_SECURE && !err[0])
		snprintf(err, errlen, "the zone has no ZONEMD and no signed "
			"NSEC or NSEC3 that proves it absent");
done:
	zset_free(&rec);
	zset_free(&sigs);
	zset_free(&par);
	return r;
}

/**
 * With the zone's DNSKEY set trusted: the ZONEMD RRset's RRSIG must
 * verify with it, or, without a ZONEMD, the proof of its absence.
 * @return AUTH_ZMD_SECURE, AUTH_ZMD_BOGUS or AUTH_ZMD_UNVERIFIABLE,
 *	with err.
 */
static int
zmd_signed(struct val_zonemd *vz, const ldns_rr_list *rrs,
	const ldns_rdf *apex, const struct val_rrset *kset,
	const struct val_window *w, ldns_buffer *tmp, char *err,
	size_t errlen)
{
	struct zset zmd, zsigs;
	struct val_rrset zmdset;
	int r;
	memset(&zmd, 0, sizeof(zmd));
	memset(&zsigs, 0, sizeof(zsigs));
	if(zset_gather(&zmd, rrs, apex, ZMD_TYPE_ZONEMD, 0, tmp) != 0 ||
		zset_gather(&zsigs, rrs, apex, DNS_TYPE_RRSIG,
		ZMD_TYPE_ZONEMD, tmp) != 0) {
		snprintf(err, errlen, "out of memory");
		r = AUTH_ZMD_BOGUS;
	} else if(zmd.n == 0) {
		r = zmd_absent(vz, rrs, apex, kset, w, tmp, err, errlen);
	} else {
		memset(&zmdset, 0, sizeof(zmdset));
		zmdset.owner = ldns_rdf_data(apex);
		zmdset.type = ZMD_TYPE_ZONEMD;
		zmdset.rrclass = LDNS_RR_CLASS_IN;
		zmdset.rrs = zmd.rr;
		zmdset.count = zmd.n;
		r = val_verify_rrset(&zmdset, zsigs.rr, zsigs.n, kset, w,
			NULL);
		if(r == VAL_CRYPTO_OK)
			r = AUTH_ZMD_SECURE;
		else {
			snprintf(err, errlen, "the ZONEMD RRSIG does not "
				"verify with the zone's DNSKEY: %s",
				val_crypto_result_str(r));
			r = AUTH_ZMD_BOGUS;
		}
	}
	zset_free(&zmd);
	zset_free(&zsigs);
	return r;
}

int
val_zonemd_check(void *arg, const ldns_rr_list *rrs, const ldns_rdf *apex,
	char *err, size_t errlen)
{
	struct val_zonemd *vz = arg;
	const uint8_t *aw = ldns_rdf_data(apex);
	const struct val_anchor *an;
	struct zset keys, ksigs;
	struct val_rrset kset;
	struct val_window w;
	ldns_buffer *tmp;
	char name[300];
	int r;
	if(!vz || !(an = val_anchors_lookup(vz->anchors, aw,
		LDNS_RR_CLASS_IN)) || an->insecure)
		return AUTH_ZMD_NO_ANCHOR;
	if(!dname_equal(an->name, aw)) {
		if(dname_to_str(an->name, name, sizeof(name)) < 0)
			snprintf(name, sizeof(name), "?");
		snprintf(err, errlen, "the zone is below the trust anchor %s: "
			"its DNSKEY must be chained to it through the "
			"validator", name);
		return AUTH_ZMD_NEED_KEYS;
	}
	memset(&keys, 0, sizeof(keys));
	memset(&ksigs, 0, sizeof(ksigs));
	w.now = vz->now ? vz->now : (uint32_t)time(NULL);
	w.skew_min = vz->skew_min;
	w.skew_max = vz->skew_max;
	w.budget = NULL;
	if(!(tmp = ldns_buffer_new(65536))) {
		snprintf(err, errlen, "out of memory");
		return AUTH_ZMD_BOGUS;
	}
	r = AUTH_ZMD_BOGUS;
	if(zset_gather(&keys, rrs, apex, DNS_TYPE_DNSKEY, 0, tmp) != 0 ||
		zset_gather(&ksigs, rrs, apex, DNS_TYPE_RRSIG, DNS_TYPE_DNSKEY,
		tmp) != 0) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if(keys.n == 0) {
		snprintf(err, errlen, "the zone has a trust anchor but no "
			"DNSKEY at its apex");
		goto done;
	}
	memset(&kset, 0, sizeof(kset));
	kset.owner = aw;
	kset.type = DNS_TYPE_DNSKEY;
	kset.rrclass = LDNS_RR_CLASS_IN;
	kset.rrs = keys.rr;
	kset.count = keys.n;
	if((r = zmd_keys(an, &kset, &ksigs, &w, err, errlen)) !=
		AUTH_ZMD_SECURE)
		goto done;
	r = zmd_signed(vz, rrs, apex, &kset, &w, tmp, err, errlen);
done:
	zset_free(&keys);
	zset_free(&ksigs);
	ldns_buffer_free(tmp);
	return r;
}

/** compare two records' RDATA: 0 when the same bytes */
static int
zmd_rr_cmp(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	int c = memcmp(a, b, al < bl ? al : bl);
	if(c != 0)
		return c;
	return al < bl ? -1 : (al > bl ? 1 : 0);
}

/**
 * Is the zone's DNSKEY set (keys) the same records as the validated
 * one? Duplicates count once, as in an RRset.
 * @return 1 when equal.
 */
static int
zmd_same_keys(const struct zset *keys, const uint8_t *const *key,
	const uint16_t *keylen, size_t n)
{
	size_t i, j;
	/* every zone key is validated, and every validated key is in the
	 * zone (n and keys->n are small: a few keys) */
	for(i = 0; i < keys->n; i++) {
		const uint8_t *a = keys->buf + keys->rr[i].off;
		for(j = 0; j < n; j++)
			if(zmd_rr_cmp(a, keys->rr[i].len, key[j],
				keylen[j]) == 0)
				break;
		if(j == n)
			return 0;
	}
	for(j = 0; j < n; j++) {
		for(i = 0; i < keys->n; i++)
			if(zmd_rr_cmp(keys->buf + keys->rr[i].off,
				keys->rr[i].len, key[j], keylen[j]) == 0)
				break;
		if(i == keys->n)
			return 0;
	}
	return 1;
}

int
val_zonemd_check_keys(void *arg, const ldns_rr_list *rrs,
	const ldns_rdf *apex, const uint8_t *const *key,
	const uint16_t *keylen, size_t n, char *err, size_t errlen)
{
	struct val_zonemd *vz = arg;
	struct zset keys;
	struct val_rrset kset;
	struct val_window w;
	ldns_buffer *tmp;
	int r = AUTH_ZMD_BOGUS;
	if(!vz) {
		snprintf(err, errlen, "no DNSSEC check");
		return AUTH_ZMD_BOGUS;
	}
	memset(&keys, 0, sizeof(keys));
	w.now = vz->now ? vz->now : (uint32_t)time(NULL);
	w.skew_min = vz->skew_min;
	w.skew_max = vz->skew_max;
	w.budget = NULL;
	if(!(tmp = ldns_buffer_new(65536))) {
		snprintf(err, errlen, "out of memory");
		return AUTH_ZMD_BOGUS;
	}
	if(zset_gather(&keys, rrs, apex, DNS_TYPE_DNSKEY, 0, tmp) != 0) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	if(keys.n == 0) {
		snprintf(err, errlen, "the zone has no DNSKEY at its apex, "
			"its validated DNSKEY set has %zu", n);
		goto done;
	}
	if(!zmd_same_keys(&keys, key, keylen, n)) {
		snprintf(err, errlen, "the zone's DNSKEY set is not the one "
			"validated from the trust anchor (%zu and %zu keys)",
			keys.n, n);
		goto done;
	}
	memset(&kset, 0, sizeof(kset));
	kset.owner = ldns_rdf_data(apex);
	kset.type = DNS_TYPE_DNSKEY;
	kset.rrclass = LDNS_RR_CLASS_IN;
	kset.rrs = keys.rr;
	kset.count = keys.n;
	r = zmd_signed(vz, rrs, apex, &kset, &w, tmp, err, errlen);
done:
	zset_free(&keys);
	ldns_buffer_free(tmp);
	return r;
}
