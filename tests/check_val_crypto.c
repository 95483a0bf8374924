/*
 * tests/check_val_crypto.c - validator/val_crypto: canonical form,
 * signatures for every supported algorithm, DS digests, key tags, the
 * validity window.
 *
 * The signed fixtures in testdata/dnssec/ (one zone per algorithm, made by
 * ldns-signzone with fixed inception and expiration, see gen.sh there) are
 * verified at a fixed `now`; every good signature must verify and every
 * tampered input must fail, and ldns (ldns_verify_rrsig_keylist_time) is
 * asked the same question on the same bytes as an oracle.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/val_testutil.h"
#include "validator/val_crypto.h"
#include "dns/dns.h"
#include "dns/name.h"

/** the algorithms of the fixtures */
static const int algs[] = { 5, 7, 8, 10, 13, 14, 15, 16 };
#define NALGS ((int)(sizeof(algs)/sizeof(algs[0])))

/** a time inside every fixture's validity window */
#define NOW_STR "20250115000000"

/** window at t with the default skews */
static struct val_window
win(uint32_t t)
{
	struct val_window w;
	w.now = t;
	w.skew_min = VAL_SKEW_MIN_DEFAULT;
	w.skew_max = VAL_SKEW_MAX_DEFAULT;
	w.budget = NULL;
	return w;
}

/** build an ldns RR from wire parts; NULL on failure */
static ldns_rr *
mk_ldns_rr(const uint8_t *owner, uint16_t type, uint32_t ttl,
	const uint8_t *rdata, size_t len)
{
	uint8_t wire[70000];
	size_t ol = dname_len(owner), pos = 0;
	ldns_rr *rr = NULL;
	memcpy(wire, owner, ol);
	dns_write_u16(wire + ol, type);
	dns_write_u16(wire + ol + 2, DNS_CLASS_IN);
	dns_write_u32(wire + ol + 4, ttl);
	dns_write_u16(wire + ol + 8, (uint16_t)len);
	memcpy(wire + ol + 10, rdata, len);
	if(ldns_wire2rr(&rr, wire, ol + 10 + len, &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		return NULL;
	return rr;
}

/**
 * The oracle: does ldns verify any of the RRSIGs over the RRset with the
 * keys at time t? Built from the same wire bytes validator/ sees.
 */
static int
ldns_says_ok(const struct val_rrset *set, const struct val_rr *sigs,
	size_t nsigs, const struct val_rrset *keys, uint32_t t)
{
	ldns_rr_list *rrs = ldns_rr_list_new(), *kl = ldns_rr_list_new();
	size_t i;
	int ok = 0;
	for(i = 0; i < set->count; i++)
		ldns_rr_list_push_rr(rrs, mk_ldns_rr(set->owner, set->type,
			3600, set->rrs[i].buf + set->rrs[i].off,
			set->rrs[i].len));
	for(i = 0; i < keys->count; i++)
		ldns_rr_list_push_rr(kl, mk_ldns_rr(keys->owner,
			DNS_TYPE_DNSKEY, 3600,
			keys->rrs[i].buf + keys->rrs[i].off, keys->rrs[i].len));
	for(i = 0; i < nsigs && !ok; i++) {
		ldns_rr *sig = mk_ldns_rr(set->owner, DNS_TYPE_RRSIG, 3600,
			sigs[i].buf + sigs[i].off, sigs[i].len);
		ldns_rr_list *good = ldns_rr_list_new();
		if(sig && ldns_verify_rrsig_keylist_time(rrs, sig, kl,
			(time_t)t, good) == LDNS_STATUS_OK)
			ok = 1;
		ldns_rr_list_free(good);
		ldns_rr_free(sig);
	}
	ldns_rr_list_deep_free(rrs);
	ldns_rr_list_deep_free(kl);
	return ok;
}

/** the zone file of an algorithm */
static struct vt_zone *
load_alg(int alg)
{
	char f[64];
	snprintf(f, sizeof(f), "alg%d.signed", alg);
	return vt_zone_load(f);
}

START_TEST(test_all_signatures_verify)
{
	uint32_t now = vt_time(NOW_STR);
	struct val_window w = win(now);
	int a;
	for(a = 0; a < NALGS; a++) {
		struct vt_zone *z = load_alg(algs[a]);
		struct vt_set keys, s;
		size_t i, verified = 0;
		ck_assert_uint_ge(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY,
			&keys), 2);
		for(i = 0; i < z->n; i++) {
			size_t j;
			int first = 1, r, ede = 0;
			if(z->rrs[i].type == DNS_TYPE_RRSIG)
				continue;
			for(j = 0; j < i; j++)
				if(z->rrs[j].type == z->rrs[i].type &&
					dname_equal(z->rrs[j].owner,
					z->rrs[i].owner))
					first = 0;
			if(!first)
				continue;
			vt_set_get(z, z->rrs[i].owner, z->rrs[i].type, &s);
			if(s.nsigs == 0) {
				/* glue and delegation NS are not signed */
				vt_set_clear(&s);
				continue;
			}
			r = val_verify_rrset(&s.set, s.sigs, s.nsigs, &keys.set,
				&w, &ede);
			ck_assert_msg(r == VAL_CRYPTO_OK,
				"alg %d rr %zu type %d: %s", algs[a], i,
				z->rrs[i].type, val_crypto_result_str(r));
			ck_assert_int_eq(ede, -1);
			ck_assert(ldns_says_ok(&s.set, s.sigs, s.nsigs,
				&keys.set, now));
			verified++;
			vt_set_clear(&s);
		}
		/* SOA NS MX DNSKEY, the A, AAAA, TXT, CNAME, SRV, DS sets and
		 * the NSEC or NSEC3 chain */
		ck_assert_uint_ge(verified, 15);
		vt_set_clear(&keys);
		vt_zone_free(z);
	}
}
END_TEST

/** verify s against keys at now; check ldns agrees; @return result */
static int
verify_both(struct vt_set *s, struct vt_set *keys, uint32_t now)
{
	struct val_window w = win(now);
	int r = val_verify_rrset(&s->set, s->sigs, s->nsigs, &keys->set, &w,
		NULL);
	int l = ldns_says_ok(&s->set, s->sigs, s->nsigs, &keys->set, now);
	ck_assert_msg((r == VAL_CRYPTO_OK) == l,
		"petrel says %s, ldns says %s", val_crypto_result_str(r),
		l ? "ok" : "fail");
	return r;
}

START_TEST(test_tampered_fail)
{
	uint32_t now = vt_time(NOW_STR);
	int a = _i;
	struct vt_zone *z = load_alg(algs[a]);
	struct vt_set keys, s;
	uint8_t rd[VT_MAX_SET][512], sig[VT_MAX_SET][1024], keyb[4][1100];
	uint8_t owner[256];
	struct val_rr keyrr[4];
	size_t i;
	uint32_t expi, incep;
	char nm[64];

	ck_assert_uint_ge(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	snprintf(nm, sizeof(nm), "www.alg%d.example.", algs[a]);
	ck_assert_uint_eq(vt_set_get_str(z, nm, DNS_TYPE_A, &s), 2);
	ck_assert_uint_eq(s.nsigs, 1);
	/* private copies to tamper with */
	for(i = 0; i < s.set.count; i++) {
		memcpy(rd[i], s.rrs[i].buf, s.rrs[i].len);
		s.rrs[i].buf = rd[i];
	}
	memcpy(sig[0], s.sigs[0].buf, s.sigs[0].len);
	s.sigs[0].buf = sig[0];
	expi = dns_read_u32(sig[0] + 8);
	incep = dns_read_u32(sig[0] + 12);
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_OK);

	/* the RRs in another order and a duplicate: still the same set */
	{
		struct val_rr tmp = s.rrs[0];
		s.rrs[0] = s.rrs[1];
		s.rrs[1] = tmp;
		s.rrs[2] = s.rrs[0];
		s.set.count = 3;
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1,
			&keys.set, &(struct val_window){now, 3600, 86400, NULL},
			NULL), VAL_CRYPTO_OK);
		s.set.count = 2;
	}

	/* tampered RDATA */
	rd[0][3] ^= 1;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	rd[0][3] ^= 1;
	/* one RR left out */
	s.set.count = 1;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	s.set.count = 2;

	/* tampered owner (same labels count, same zone) */
	memcpy(owner, s.owner, dname_len(s.owner));
	s.owner[1] = 'x';
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	/* the owner in upper case is the same name */
	memcpy(s.owner, owner, dname_len(owner));
	s.owner[1] = 'W';
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_OK);
	memcpy(s.owner, owner, dname_len(owner));

	/* tampered original TTL */
	sig[0][7] ^= 1;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	sig[0][7] ^= 1;

	/* labels: fewer makes it a wildcard expansion, more does not fit */
	sig[0][3]--;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	sig[0][3] += 2;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_MISMATCH);
	sig[0][3]--;

	/* tampered signature bytes */
	sig[0][s.sigs[0].len - 5] ^= 0x10;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	sig[0][s.sigs[0].len - 5] ^= 0x10;

	/* expired and not yet valid, far from the skew */
	ck_assert_int_eq(verify_both(&s, &keys, expi + 30*86400),
		VAL_CRYPTO_EXPIRED);
	ck_assert_int_eq(verify_both(&s, &keys, incep - 30*86400),
		VAL_CRYPTO_NOT_YET_VALID);
	/* a 31-day lifetime gives the full skew of val-sig-skew-max */
	{
		struct val_window w = win(expi + 86400);
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1,
			&keys.set, &w, NULL), VAL_CRYPTO_OK);
		w.now = expi + 86401;
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1,
			&keys.set, &w, NULL), VAL_CRYPTO_EXPIRED);
		w.now = incep - 86401;
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1,
			&keys.set, &w, NULL), VAL_CRYPTO_NOT_YET_VALID);
	}
	/* a tampered inception or expiration date is a bad signature */
	{
		uint8_t sv = sig[0][11];
		sig[0][11] ^= 1;
		ck_assert_int_eq(verify_both(&s, &keys, now),
			VAL_CRYPTO_BAD_SIG);
		sig[0][11] = sv;
	}

	/* wrong key: only the KSK (the A set is signed by the ZSK) */
	{
		struct val_rrset k1 = keys.set;
		size_t nk = 0;
		for(i = 0; i < keys.set.count; i++)
			if(keys.rrs[i].buf[1] & VAL_DNSKEY_SEP)
				keyrr[nk++] = keys.rrs[i];
		k1.rrs = keyrr;
		k1.count = nk;
		ck_assert_uint_eq(nk, 1);
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1, &k1,
			&(struct val_window){now, 3600, 86400, NULL}, NULL),
			VAL_CRYPTO_NO_KEY);
		ck_assert(!ldns_says_ok(&s.set, s.sigs, 1, &k1, now));
	}
	/* wrong key with the right key tag: change the ZSK's key bytes
	 * without changing the checksum (one octet up, the octet two
	 * further down: the same position in a 16-bit word) */
	{
		struct val_rrset k2 = keys.set;
		size_t nk = 0, p;
		for(i = 0; i < keys.set.count; i++) {
			memcpy(keyb[nk], keys.rrs[i].buf, keys.rrs[i].len);
			keyrr[nk] = keys.rrs[i];
			keyrr[nk].buf = keyb[nk];
			if(!(keyb[nk][1] & VAL_DNSKEY_SEP)) {
				uint16_t tag = val_keytag(keyb[nk],
					keyrr[nk].len);
				for(p = 8; p + 2 < keyrr[nk].len; p++)
					if(keyb[nk][p] != 0xff &&
						keyb[nk][p+2] != 0)
						break;
				keyb[nk][p]++;
				keyb[nk][p+2]--;
				ck_assert_uint_eq(tag, val_keytag(keyb[nk],
					keyrr[nk].len));
			}
			nk++;
		}
		k2.rrs = keyrr;
		k2.count = nk;
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1, &k2,
			&(struct val_window){now, 3600, 86400, NULL}, NULL),
			VAL_CRYPTO_BAD_SIG);
		ck_assert(!ldns_says_ok(&s.set, s.sigs, 1, &k2, now));
	}
	/* no RRSIG at all */
	{
		int ede = 0;
		ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 0,
			&keys.set, &(struct val_window){now, 3600, 86400, NULL},
			&ede), VAL_CRYPTO_NO_KEY);
		ck_assert_int_eq(ede, DNS_EDE_RRSIGS_MISSING);
	}
	vt_set_clear(&s);
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

START_TEST(test_wildcard_expansion)
{
	uint32_t now = vt_time(NOW_STR);
	int a = _i;
	struct vt_zone *z = load_alg(algs[a]);
	struct vt_set keys, s;
	char nm[64];
	uint8_t exp[256];
	ck_assert_uint_ge(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	snprintf(nm, sizeof(nm), "*.wild.alg%d.example.", algs[a]);
	ck_assert_uint_eq(vt_set_get_str(z, nm, DNS_TYPE_TXT, &s), 1);
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_OK);
	/* the answer as a server expands it: a.b.wild.algN.example. */
	snprintf(nm, sizeof(nm), "A.b.wild.alg%d.example.", algs[a]);
	vt_name(nm, exp);
	s.set.owner = exp;
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_OK);
	/* expanded under another name: bad */
	snprintf(nm, sizeof(nm), "a.b.wilder.alg%d.example.", algs[a]);
	vt_name(nm, exp);
	ck_assert_int_eq(verify_both(&s, &keys, now), VAL_CRYPTO_BAD_SIG);
	vt_set_clear(&s);
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

/** the DS of the fixture of an algorithm, as RDATA; @return its length */
static size_t
load_ds(int alg, uint8_t *out)
{
	char f[600], line[2048];
	FILE *in;
	ldns_rr *ds = NULL;
	ldns_buffer *b = ldns_buffer_new(256);
	size_t l;
	snprintf(f, sizeof(f), "%s/alg%d.ds", VAL_TESTDATA, alg);
	in = fopen(f, "r");
	ck_assert_ptr_nonnull(in);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), in));
	fclose(in);
	ck_assert_int_eq(ldns_rr_new_frm_str(&ds, line, 0, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_rr_rdata2buffer_wire(b, ds);
	l = ldns_buffer_position(b);
	memcpy(out, ldns_buffer_begin(b), l);
	ldns_buffer_free(b);
	ldns_rr_free(ds);
	return l;
}

START_TEST(test_ds_to_dnskey)
{
	uint32_t now = vt_time(NOW_STR);
	struct val_window w = win(now);
	int a = _i, ede = 0;
	struct vt_zone *z = load_alg(algs[a]);
	struct vt_set keys;
	uint8_t ds[4][128], ksk_owner[256];
	struct val_rr dsr[4];
	struct val_rrset dset;
	size_t l, i, ksk = 0;
	ck_assert_uint_eq(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	memcpy(ksk_owner, z->apex, dname_len(z->apex));
	for(i = 0; i < 2; i++)
		if(keys.rrs[i].buf[1] & VAL_DNSKEY_SEP)
			ksk = i;
	l = load_ds(algs[a], ds[0]);
	dsr[0] = (struct val_rr){ ds[0], l, 0, (uint16_t)l };
	dset = (struct val_rrset){ z->apex, DNS_TYPE_DS, DNS_CLASS_IN, dsr, 1 };
	ck_assert(val_ds_set_usable(&dset));
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, &ede), VAL_CRYPTO_OK);
	ck_assert_int_eq(ede, -1);
	/* from here on, a SHA-256 DS of the KSK (the fixtures of
	 * algorithms 5 and 7 come with a SHA-1 DS) */
	{
		size_t dl = 0;
		ds[0][3] = 2;
		ck_assert_int_eq(val_ds_digest(z->apex, keys.rrs[ksk].buf,
			keys.rrs[ksk].len, 2, ds[0] + 4, &dl), VAL_CRYPTO_OK);
		l = 4 + dl;
		dsr[0] = (struct val_rr){ ds[0], l, 0, (uint16_t)l };
	}
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, &ede), VAL_CRYPTO_OK);
	/* no RRSIG over the keys */
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs, 0,
		&dset, &w, &ede), VAL_CRYPTO_NO_KEY);
	ck_assert_int_eq(ede, DNS_EDE_RRSIGS_MISSING);
	/* a DS that matches no key */
	ds[0][l - 1] ^= 1;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, &ede), VAL_CRYPTO_NO_KEY);
	ck_assert_int_eq(ede, DNS_EDE_DNSKEY_MISSING);
	/* a SHA-1 DS that matches, beside a SHA-256 one that does not: the
	 * SHA-1 one is ignored (RFC 4509 3) */
	ds[1][0] = ds[0][0]; ds[1][1] = ds[0][1]; ds[1][2] = ds[0][2];
	ds[1][3] = 1;
	{
		size_t dl = 0;
		ck_assert_int_eq(val_ds_digest(z->apex, keys.rrs[ksk].buf,
			keys.rrs[ksk].len, 1, ds[1] + 4, &dl), VAL_CRYPTO_OK);
		dsr[1] = (struct val_rr){ ds[1], 4 + dl, 0, (uint16_t)(4 + dl) };
	}
	dset.rrs = dsr;
	dset.count = 2;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, NULL), VAL_CRYPTO_NO_KEY);
	/* alone, the SHA-1 DS does */
	dset.rrs = dsr + 1;
	dset.count = 1;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, NULL), VAL_CRYPTO_OK);
	/* only unsupported digests or algorithms: insecure, not bogus */
	ds[1][3] = 3;
	ck_assert(!val_ds_set_usable(&dset));
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, &ede), VAL_CRYPTO_UNSUPPORTED);
	ck_assert_int_eq(ede, DNS_EDE_UNSUPPORTED_DS_DIGEST);
	ds[1][3] = 1;
	ds[1][2] = 3;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, NULL), VAL_CRYPTO_UNSUPPORTED);
	/* expired: the signature's failure is reported */
	ds[0][l - 1] ^= 1;
	dset.rrs = dsr;
	w.now = now + 90 * 86400;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&keys.set, keys.sigs,
		keys.nsigs, &dset, &w, &ede), VAL_CRYPTO_EXPIRED);
	ck_assert_int_eq(ede, DNS_EDE_SIGNATURE_EXPIRED);
	w.now = now;

	/* DNSKEY anchors: the KSK is one, the ZSK (which did not sign the
	 * set) is not enough, a revoked anchor never counts */
	{
		struct val_rr an[1];
		struct val_rrset aset = { ksk_owner, DNS_TYPE_DNSKEY,
			DNS_CLASS_IN, an, 1 };
		uint8_t rk[1100];
		an[0] = keys.rrs[ksk];
		ck_assert_int_eq(val_verify_dnskeys_with_anchors(&keys.set,
			keys.sigs, keys.nsigs, &aset, &w, &ede), VAL_CRYPTO_OK);
		an[0] = keys.rrs[1 - ksk];
		ck_assert_int_eq(val_verify_dnskeys_with_anchors(&keys.set,
			keys.sigs, keys.nsigs, &aset, &w, &ede),
			VAL_CRYPTO_NO_KEY);
		memcpy(rk, keys.rrs[ksk].buf, keys.rrs[ksk].len);
		rk[1] |= VAL_DNSKEY_REVOKE;
		an[0] = (struct val_rr){ rk, keys.rrs[ksk].len, 0,
			keys.rrs[ksk].len };
		ck_assert_int_eq(val_verify_dnskeys_with_anchors(&keys.set,
			keys.sigs, keys.nsigs, &aset, &w, &ede),
			VAL_CRYPTO_NO_KEY);
		rk[1] &= (uint8_t)~VAL_DNSKEY_REVOKE;
		rk[3] = 253;
		ck_assert_int_eq(val_verify_dnskeys_with_anchors(&keys.set,
			keys.sigs, keys.nsigs, &aset, &w, &ede),
			VAL_CRYPTO_UNSUPPORTED);
	}
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

START_TEST(test_algo_downgrade)
{
	/* the alg13 zone is signed with algorithm 13 only: requiring 13
	 * passes, requiring 13 and 8 (a DS set naming both) fails */
	uint32_t now = vt_time(NOW_STR);
	struct val_window w = win(now);
	struct vt_zone *z = load_alg(13);
	struct vt_set keys, s;
	uint8_t need[256], ds[2][64];
	struct val_rr dsr[2];
	struct val_rrset dset;
	int ede = 0;
	size_t n;
	ck_assert_uint_eq(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	ck_assert_uint_eq(vt_set_get_str(z, "www.alg13.example.", DNS_TYPE_A,
		&s), 2);
	need[0] = 13;
	ck_assert_int_eq(val_verify_rrset_algos(&s.set, s.sigs, s.nsigs,
		&keys.set, need, 1, &w, &ede), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_verify_rrset_algos(&s.set, s.sigs, s.nsigs,
		&keys.set, need, 0, &w, &ede), VAL_CRYPTO_OK);
	need[1] = 8;
	ck_assert_int_eq(val_verify_rrset_algos(&s.set, s.sigs, s.nsigs,
		&keys.set, need, 2, &w, &ede), VAL_CRYPTO_NO_KEY);
	ck_assert_int_eq(ede, DNS_EDE_RRSIGS_MISSING);
	/* the algorithms of a DS set: usable ones, each once */
	memset(ds, 0, sizeof(ds));
	ds[0][2] = 13; ds[0][3] = 2;
	ds[1][2] = 8; ds[1][3] = 2;
	dsr[0] = (struct val_rr){ ds[0], 36, 0, 36 };
	dsr[1] = (struct val_rr){ ds[1], 36, 0, 36 };
	dset = (struct val_rrset){ z->apex, DNS_TYPE_DS, DNS_CLASS_IN, dsr, 2 };
	n = val_ds_algorithms(&dset, need);
	ck_assert_uint_eq(n, 2);
	ck_assert(need[0] == 13 && need[1] == 8);
	ds[1][2] = 13;
	ck_assert_uint_eq(val_ds_algorithms(&dset, need), 1);
	ds[1][2] = 253;
	ck_assert_uint_eq(val_ds_algorithms(&dset, need), 1);
	/* the remaining validity of a signature */
	ck_assert_uint_eq(val_rrsig_remaining(s.sigs[0].buf, s.sigs[0].len,
		now), vt_time("20250201000000") - now);
	ck_assert_uint_eq(val_rrsig_remaining(s.sigs[0].buf, s.sigs[0].len,
		vt_time("20250301000000")), 0);
	ck_assert_uint_eq(val_rrsig_remaining(s.sigs[0].buf, 10, now), 0);
	vt_set_clear(&s);
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

START_TEST(test_keytag_ds)
{
	int a, d;
	static const int dtypes[] = { 1, 2, 4 };
	for(a = 0; a < NALGS; a++) {
		struct vt_zone *z = load_alg(algs[a]);
		struct vt_set keys;
		char f[64], line[2048];
		FILE *in;
		ldns_rr *ds = NULL;
		size_t i, matched = 0;
		ck_assert_uint_ge(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY,
			&keys), 2);
		snprintf(f, sizeof(f), "%s/alg%d.ds", VAL_TESTDATA, algs[a]);
		in = fopen(f, "r");
		ck_assert_ptr_nonnull(in);
		ck_assert_ptr_nonnull(fgets(line, sizeof(line), in));
		fclose(in);
		ck_assert_int_eq(ldns_rr_new_frm_str(&ds, line, 0, NULL, NULL),
			LDNS_STATUS_OK);
		for(i = 0; i < keys.set.count; i++) {
			const uint8_t *k = keys.rrs[i].buf;
			size_t kl = keys.rrs[i].len;
			ldns_rr *lk = ldns_rr_list_rr(keys.lrrs, i);
			uint8_t dsw[64 + 4];
			ldns_buffer *b = ldns_buffer_new(128);
			int r;
			ck_assert_uint_eq(val_keytag(k, kl),
				ldns_calc_keytag(lk));
			ck_assert_int_eq(val_dnskey_check(k, kl),
				VAL_CRYPTO_OK);
			ldns_rr_rdata2buffer_wire(b, ds);
			r = val_ds_match(keys.owner, ldns_buffer_begin(b),
				ldns_buffer_position(b), k, kl);
			if(k[1] & VAL_DNSKEY_SEP) {
				ck_assert_int_eq(r, VAL_CRYPTO_OK);
				matched++;
			} else {
				ck_assert_int_eq(r, VAL_CRYPTO_NO_KEY);
			}
			/* every digest type against ldns */
			for(d = 0; d < 3; d++) {
				ldns_rr *lds = ldns_key_rr2ds(lk,
					(ldns_hash)dtypes[d]);
				uint8_t dig[64];
				size_t dl = 0;
				ck_assert_ptr_nonnull(lds);
				ck_assert_int_eq(val_ds_digest(keys.owner, k,
					kl, dtypes[d], dig, &dl),
					VAL_CRYPTO_OK);
				ck_assert_uint_eq(dl, val_ds_digest_len(
					dtypes[d]));
				ck_assert_uint_eq(dl, ldns_rdf_size(
					ldns_rr_rdf(lds, 3)));
				ck_assert(memcmp(dig, ldns_rdf_data(
					ldns_rr_rdf(lds, 3)), dl) == 0);
				/* and the DS built from it matches */
				dns_write_u16(dsw, val_keytag(k, kl));
				dsw[2] = k[3];
				dsw[3] = (uint8_t)dtypes[d];
				memcpy(dsw + 4, dig, dl);
				ck_assert_int_eq(val_ds_match(keys.owner, dsw,
					4 + dl, k, kl), VAL_CRYPTO_OK);
				dsw[4 + dl - 1] ^= 1;
				ck_assert_int_eq(val_ds_match(keys.owner, dsw,
					4 + dl, k, kl), VAL_CRYPTO_BAD_SIG);
				/* an unknown digest type is unsupported */
				dsw[3] = 3;
				ck_assert_int_eq(val_ds_match(keys.owner, dsw,
					4 + dl, k, kl), VAL_CRYPTO_UNSUPPORTED);
				ldns_rr_free(lds);
			}
			ldns_buffer_free(b);
		}
		ck_assert_uint_eq(matched, 1);
		ldns_rr_free(ds);
		vt_set_clear(&keys);
		vt_zone_free(z);
	}
}
END_TEST

START_TEST(test_keytag_vectors)
{
	/* RFC 4034 section 5.4's example DNSKEY (dskey.example.com.) has
	 * key tag 60485 */
	static const char *key = "dskey.example.com. 86400 IN DNSKEY 256 3 5 "
		"AQOeiiR0GOMYkDshWoSKz9XzfwJr1AYtsmx3TGkJaNXVbfi/"
		"2pHm822aJ5iI9BMzNXxeYCmZDRD99WYwYqUSdjMmmAphXdvx"
		"egXd/M5+X7OrzKBaMbCVdFLUUh6DhweJBjEVv5f2wwjM9Xzc"
		"nOf+EPbtG9DMBmADjFDc2w/rljwvFw==";
	ldns_rr *rr = NULL;
	ldns_buffer *b = ldns_buffer_new(512);
	ck_assert_int_eq(ldns_rr_new_frm_str(&rr, key, 0, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_rr_rdata2buffer_wire(b, rr);
	ck_assert_uint_eq(val_keytag(ldns_buffer_begin(b),
		ldns_buffer_position(b)), 60485);
	/* the revoke bit changes the tag (RFC 5011 section 3) */
	ldns_buffer_begin(b)[1] |= VAL_DNSKEY_REVOKE;
	ck_assert_uint_eq(val_keytag(ldns_buffer_begin(b),
		ldns_buffer_position(b)), 60485 + 0x80);
	/* too short */
	ck_assert_uint_eq(val_keytag(ldns_buffer_begin(b), 3), 0);
	ldns_buffer_free(b);
	ldns_rr_free(rr);
}
END_TEST

/** RRSIG fixed part with the given dates, labels and key tag */
static size_t
mk_rrsig(uint8_t *out, uint16_t covered, uint8_t alg, uint8_t labels,
	uint32_t ttl, uint32_t expi, uint32_t incep, uint16_t tag,
	const char *signer)
{
	uint8_t nm[256];
	size_t nl;
	dns_write_u16(out, covered);
	out[2] = alg;
	out[3] = labels;
	dns_write_u32(out + 4, ttl);
	dns_write_u32(out + 8, expi);
	dns_write_u32(out + 12, incep);
	dns_write_u16(out + 16, tag);
	vt_name(signer, nm);
	nl = dname_len(nm);
	memcpy(out + 18, nm, nl);
	memset(out + 18 + nl, 0xab, 64); /* a signature */
	return 18 + nl + 64;
}

START_TEST(test_window)
{
	uint8_t sig[512];
	struct val_window w;
	size_t l;
	w.skew_min = 3600;
	w.skew_max = 86400;
	w.budget = NULL;
	/* lifetime 10 days: skew = 1 day */
	l = mk_rrsig(sig, 1, 8, 2, 3600, 2000000 + 864000, 2000000, 1, "x.");
	w.now = 2000000;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now = 2000000 - 86400;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now = 2000000 - 86401;
	ck_assert_int_eq(val_check_window(sig, l, &w),
		VAL_CRYPTO_NOT_YET_VALID);
	w.now = 2000000 + 864000 + 86400;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now++;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_EXPIRED);
	/* lifetime 1 hour: a tenth is 360 s, raised to skew-min */
	l = mk_rrsig(sig, 1, 8, 2, 3600, 2003600, 2000000, 1, "x.");
	w.now = 2003600 + 3600;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now++;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_EXPIRED);
	/* skew-min 0 and skew-max 0: the exact dates */
	w.skew_min = 0;
	w.skew_max = 0;
	w.now = 2003600;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now++;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_EXPIRED);
	w.now = 1999999;
	ck_assert_int_eq(val_check_window(sig, l, &w),
		VAL_CRYPTO_NOT_YET_VALID);
	/* serial arithmetic across the 2^32 wrap (RFC 4034 3.1.5) */
	l = mk_rrsig(sig, 1, 8, 2, 3600, 0x00100000, 0xfff00000, 1, "x.");
	w.now = 0x00000100;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now = 0xfff80000;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_OK);
	w.now = 0x00200000;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_EXPIRED);
	/* inception after expiration */
	l = mk_rrsig(sig, 1, 8, 2, 3600, 2000000, 2000001, 1, "x.");
	w.now = 2000000;
	ck_assert_int_eq(val_check_window(sig, l, &w), VAL_CRYPTO_MALFORMED);
	ck_assert_int_eq(val_check_window(sig, 17, &w), VAL_CRYPTO_MALFORMED);
}
END_TEST

/** append a name from presentation format; @return bytes written */
static size_t
put_name(uint8_t *p, const char *s)
{
	uint8_t nm[256];
	size_t l;
	vt_name(s, nm);
	l = dname_len(nm);
	memcpy(p, nm, l);
	return l;
}

START_TEST(test_canon_form)
{
	/* NS set: upper-case names, out of order, a duplicate; the RRSIG
	 * signer in upper case. Expected: lower-cased owner and names,
	 * sorted, the duplicate gone, the original TTL, the signer
	 * lower-cased */
	uint8_t r1[64], r2[64], r3[64], sig[256], owner[256];
	uint8_t out[2048], exp[2048];
	struct val_rr rrs[3];
	struct val_rrset set;
	size_t l1, l2, l3, sl, ol, o = 0, outlen = 0;
	l1 = put_name(r1, "NS2.Example.");
	l2 = put_name(r2, "ns1.EXAMPLE.");
	l3 = put_name(r3, "ns2.example.");
	rrs[0] = (struct val_rr){ r1, l1, 0, (uint16_t)l1 };
	rrs[1] = (struct val_rr){ r2, l2, 0, (uint16_t)l2 };
	rrs[2] = (struct val_rr){ r3, l3, 0, (uint16_t)l3 };
	vt_name("Example.", owner);
	set = (struct val_rrset){ owner, DNS_TYPE_NS, DNS_CLASS_IN, rrs, 3 };
	sl = mk_rrsig(sig, DNS_TYPE_NS, 8, 1, 7200, 2, 1, 77, "EXAMPLE.");
	ck_assert_int_eq(val_canon_signed_data(&set, sig, sl, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	memcpy(exp, sig, 18);
	o = 18 + put_name(exp + 18, "example.");
	{
		const char *names[2] = { "ns1.example.", "ns2.example." };
		int i;
		for(i = 0; i < 2; i++) {
			o += put_name(exp + o, "example.");
			dns_write_u16(exp + o, DNS_TYPE_NS);
			dns_write_u16(exp + o + 2, DNS_CLASS_IN);
			dns_write_u32(exp + o + 4, 7200);
			ol = put_name(exp + o + 10, names[i]);
			dns_write_u16(exp + o + 8, (uint16_t)ol);
			o += 10 + ol;
		}
	}
	ck_assert_uint_eq(outlen, o);
	ck_assert(memcmp(out, exp, o) == 0);
	/* a too small buffer is an error, not an overrun */
	ck_assert_int_eq(val_canon_signed_data(&set, sig, sl, out, o - 1,
		&outlen), VAL_CRYPTO_INTERNAL);
	/* labels larger than the owner's */
	sig[3] = 2;
	ck_assert_int_eq(val_canon_signed_data(&set, sig, sl, out,
		sizeof(out), &outlen), VAL_CRYPTO_MISMATCH);
	/* labels 0 turns any owner into "*." */
	sig[3] = 0;
	ck_assert_int_eq(val_canon_signed_data(&set, sig, sl, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert(memcmp(out + 18 + 9, "\001*\000", 3) == 0);
}
END_TEST

START_TEST(test_canon_rdata_types)
{
	uint8_t in[512], out[1024];
	size_t l, outlen = 0;
	struct val_rr rr;
	/* NSEC: the next name keeps its case (RFC 6840 5.1) */
	l = put_name(in, "B.Example.");
	in[l] = 0; in[l+1] = 1; in[l+2] = 0x40;
	rr = (struct val_rr){ in, l + 3, 0, (uint16_t)(l + 3) };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_NSEC, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert_uint_eq(outlen, l + 3);
	ck_assert(memcmp(out, in, l + 3) == 0);
	/* SOA: both names lower-cased, the counters copied */
	l = put_name(in, "NS.Example.");
	l += put_name(in + l, "Host.Example.");
	memset(in + l, 0x5A, 20);
	rr = (struct val_rr){ in, l + 20, 0, (uint16_t)(l + 20) };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_SOA, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert_uint_eq(outlen, l + 20);
	ck_assert(memcmp(out, "\002ns\007example\000\004host\007example\000",
		l) == 0);
	ck_assert(out[l] == 0x5A && out[l+19] == 0x5A);
	/* SRV: name after three 16-bit fields */
	in[0] = 0; in[1] = 1; in[2] = 0; in[3] = 2; in[4] = 0; in[5] = 'S';
	l = 6 + put_name(in + 6, "SRV.X.");
	rr = (struct val_rr){ in, l, 0, (uint16_t)l };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_SRV, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert(out[5] == 'S'); /* a fixed field is not lower-cased */
	ck_assert(memcmp(out + 6, "\003srv\001x\000", 7) == 0);
	/* NAPTR: the strings keep their case, the replacement does not */
	memcpy(in, "\000\001\000\002\001U\002E2\001R", 11);
	l = 11 + put_name(in + 11, "REPL.");
	rr = (struct val_rr){ in, l, 0, (uint16_t)l };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_NAPTR, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert(memcmp(out, "\000\001\000\002\001U\002E2\001R\004repl\000",
		17) == 0);
	/* HINFO and TXT: not in the list, copied as is */
	memcpy(in, "\003ABC\003DEF", 8);
	rr = (struct val_rr){ in, 8, 0, 8 };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_HINFO, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert(memcmp(out, "\003ABC\003DEF", 8) == 0);
	/* a name that runs past the RDATA */
	l = put_name(in, "ns.example.");
	rr = (struct val_rr){ in, l, 0, (uint16_t)(l - 2) };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_NS, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_MALFORMED);
	/* empty RDATA of a type with a name */
	rr = (struct val_rr){ in, l, 0, 0 };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_CNAME, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_MALFORMED);
	/* RDATA past the buffer */
	rr = (struct val_rr){ in, 4, 2, 3 };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_A, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_MALFORMED);
	/* A6 with a prefix: the name after the address suffix */
	in[0] = 64;
	memset(in + 1, 0x11, 8);
	l = 9 + put_name(in + 9, "PFX.");
	rr = (struct val_rr){ in, l, 0, (uint16_t)l };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_A6, &rr, out,
		sizeof(out), &outlen), VAL_CRYPTO_OK);
	ck_assert(memcmp(out + 9, "\003pfx\000", 5) == 0);
}
END_TEST

START_TEST(test_canon_compressed)
{
	/* an MX whose exchange is compressed against the owner earlier in
	 * the packet canonicalises like the uncompressed one */
	uint8_t pkt[128], flat[64], o1[256], o2[256];
	size_t ol, l1 = 0, l2 = 0, fl;
	struct val_rr rc, rf;
	ol = put_name(pkt, "Example.COM.");
	pkt[ol] = 0; pkt[ol+1] = 10;
	memcpy(pkt + ol + 2, "\004MAIL\300\000", 7);
	rc = (struct val_rr){ pkt, ol + 9, ol, 9 };
	flat[0] = 0; flat[1] = 10;
	fl = 2 + put_name(flat + 2, "mail.example.com.");
	rf = (struct val_rr){ flat, fl, 0, (uint16_t)fl };
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_MX, &rc, o1, sizeof(o1),
		&l1), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_MX, &rf, o2, sizeof(o2),
		&l2), VAL_CRYPTO_OK);
	ck_assert_uint_eq(l1, l2);
	ck_assert(memcmp(o1, o2, l1) == 0);
	/* a pointer forward, past the RDATA start, is refused */
	pkt[ol + 8] = (uint8_t)(ol + 20);
	ck_assert_int_eq(val_canon_rdata(DNS_TYPE_MX, &rc, o1, sizeof(o1),
		&l1), VAL_CRYPTO_MALFORMED);
}
END_TEST

START_TEST(test_unsupported_and_revoked)
{
	uint32_t now = vt_time(NOW_STR);
	struct vt_zone *z = load_alg(8);
	struct vt_set keys, s;
	uint8_t sig[600], key[600], owner[256];
	struct val_rr krr, orig;
	struct val_rrset kset;
	struct val_window w = win(now);
	size_t sl, i;
	int ede = 0;
	ck_assert_uint_ge(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	ck_assert_uint_eq(vt_set_get_str(z, "www.alg8.example.", DNS_TYPE_A,
		&s), 2);
	orig = s.sigs[0];
	/* an RRSIG with algorithm 3 (DSA) and a DSA key of that tag */
	memcpy(key, keys.rrs[0].buf, keys.rrs[0].len);
	key[3] = 3;
	krr = (struct val_rr){ key, keys.rrs[0].len, 0, keys.rrs[0].len };
	kset = keys.set;
	kset.rrs = &krr;
	kset.count = 1;
	memcpy(sig, s.sigs[0].buf, s.sigs[0].len);
	sig[2] = 3;
	dns_write_u16(sig + 16, val_keytag(key, krr.len));
	s.sigs[0].buf = sig;
	ck_assert_int_eq(val_verify_rrset(&s.set, s.sigs, 1, &kset, &w, &ede),
		VAL_CRYPTO_UNSUPPORTED);
	ck_assert_int_eq(ede, DNS_EDE_UNSUPPORTED_DNSKEY_ALG);
	ck_assert(!val_algo_supported(1) && !val_algo_supported(3) &&
		!val_algo_supported(6) && !val_algo_supported(12) &&
		!val_algo_supported(253));
	for(i = 0; i < 8; i++)
		ck_assert(val_algo_supported(algs[i]));
	ck_assert(val_ds_digest_supported(1) && val_ds_digest_supported(2) &&
		val_ds_digest_supported(4) && !val_ds_digest_supported(3) &&
		!val_ds_digest_supported(0));
	ck_assert_int_eq(val_dnskey_check(key, krr.len),
		VAL_CRYPTO_UNSUPPORTED);

	/* a revoked key (the tag follows the flag) may sign only its
	 * DNSKEY set */
	memcpy(key, keys.rrs[0].buf, keys.rrs[0].len);
	key[1] |= VAL_DNSKEY_REVOKE;
	sl = orig.len;
	memcpy(sig, orig.buf, sl);
	dns_write_u16(sig + 16, val_keytag(key, krr.len));
	vt_name("alg8.example.", owner);
	ck_assert_int_eq(val_verify_rrsig_key(&s.set, sig, sl, owner, key,
		krr.len, &w), VAL_CRYPTO_REVOKED);
	/* not a zone key */
	key[1] &= (uint8_t)~VAL_DNSKEY_REVOKE;
	key[0] = 0;
	dns_write_u16(sig + 16, val_keytag(key, krr.len));
	ck_assert_int_eq(val_verify_rrsig_key(&s.set, sig, sl, owner, key,
		krr.len, &w), VAL_CRYPTO_NO_KEY);
	/* protocol other than 3 */
	key[0] = 1;
	key[2] = 2;
	dns_write_u16(sig + 16, val_keytag(key, krr.len));
	ck_assert_int_eq(val_verify_rrsig_key(&s.set, sig, sl, owner, key,
		krr.len, &w), VAL_CRYPTO_NO_KEY);
	/* type covered differs */
	dns_write_u16(sig, DNS_TYPE_AAAA);
	ck_assert_int_eq(val_verify_rrsig_key(&s.set, sig, sl, owner, key,
		krr.len, &w), VAL_CRYPTO_MISMATCH);
	/* signer not above the owner */
	ck_assert_int_eq(val_verify_rrsig_key(&s.set, sig, 18, owner, key,
		krr.len, &w), VAL_CRYPTO_MALFORMED);
	vt_set_clear(&s);
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

START_TEST(test_key_shapes)
{
	uint8_t k[200];
	memset(k, 0x11, sizeof(k));
	k[0] = 1; k[1] = 0; k[2] = 3;
	k[3] = 13;
	ck_assert_int_eq(val_dnskey_check(k, 4 + 64), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_dnskey_check(k, 4 + 63), VAL_CRYPTO_MALFORMED);
	k[3] = 14;
	ck_assert_int_eq(val_dnskey_check(k, 4 + 96), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_dnskey_check(k, 4 + 64), VAL_CRYPTO_MALFORMED);
	k[3] = 15;
	ck_assert_int_eq(val_dnskey_check(k, 4 + 32), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_dnskey_check(k, 4 + 33), VAL_CRYPTO_MALFORMED);
	k[3] = 16;
	ck_assert_int_eq(val_dnskey_check(k, 4 + 57), VAL_CRYPTO_OK);
	k[3] = 8;
	k[4] = 3; /* exponent length 3, then a modulus */
	ck_assert_int_eq(val_dnskey_check(k, 4 + 1 + 3 + 64), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_dnskey_check(k, 4 + 1 + 3), VAL_CRYPTO_MALFORMED);
	k[4] = 0; k[5] = 0; k[6] = 3; /* long exponent length form */
	ck_assert_int_eq(val_dnskey_check(k, 4 + 3 + 3 + 64), VAL_CRYPTO_OK);
	ck_assert_int_eq(val_dnskey_check(k, 4 + 2), VAL_CRYPTO_MALFORMED);
	ck_assert_int_eq(val_dnskey_check(k, 3), VAL_CRYPTO_MALFORMED);
	k[6] = 0; /* exponent length 0 */
	ck_assert_int_eq(val_dnskey_check(k, 4 + 3 + 64), VAL_CRYPTO_MALFORMED);
	ck_assert_str_eq(val_crypto_result_str(VAL_CRYPTO_EXPIRED),
		"signature expired");
	ck_assert_int_eq(val_crypto_result_ede(VAL_CRYPTO_NOT_YET_VALID),
		DNS_EDE_SIGNATURE_NOT_YET_VALID);
	ck_assert_int_eq(val_crypto_result_ede(VAL_CRYPTO_BAD_SIG),
		DNS_EDE_DNSSEC_BOGUS);
}
END_TEST


/*
 * KeyTrap (CVE-2023-50387): DNSKEYs that share one key tag and RRSIGs of
 * that tag. The colliding keys are RSA keys with made-up moduli whose last
 * two bytes are chosen so that the key tag is the one wanted; the bogus
 * RRSIGs are the real RRSIG of www.alg8.example. A with its key tag
 * changed (or kept) and pseudo-random signature bytes (fixed seed).
 */

/** a small deterministic generator (xorshift32) for the made-up bytes */
static uint32_t
kt_rand(uint32_t *st)
{
	uint32_t x = *st;
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	*st = x;
	return x;
}

/**
 * An RSA/SHA-256 zone key (flags 256) with an exponent of explen bytes
 * (0x01 ... 0x01) and a 256-byte made-up modulus whose key tag is tag.
 * @return the RDATA length (written to out, at least 600 bytes).
 */
static size_t
kt_fake_key(uint8_t *out, uint16_t tag, uint32_t seed, size_t explen)
{
	size_t len, i, p = 4;
	uint32_t st = seed ? seed : 1, sum, v;
	for(;;) {
		out[0] = 1; out[1] = 0; out[2] = 3; out[3] = 8;
		p = 4;
		if(explen > 255) {
			out[p++] = 0;
			dns_write_u16(out + p, (uint16_t)explen);
			p += 2;
		} else	out[p++] = (uint8_t)explen;
		memset(out + p, 0, explen);
		out[p] = 1;
		out[p + explen - 1] |= 1;
		p += explen;
		for(i = 0; i < 256; i++)
			out[p + i] = (uint8_t)kt_rand(&st);
		out[p] |= 0x80;
		len = p + 256;
		/* the key tag sums 16-bit words (even offsets the high
		 * byte): the last two bytes add one 16-bit value v */
		out[len - 2] = out[len - 1] = 0;
		for(sum = 0, i = 0; i < len; i++)
			sum += (i & 1) ? out[i] : (uint32_t)out[i] << 8;
		for(v = 0; v < 65536; v++) {
			uint32_t ac = sum + v;
			uint8_t last = (len % 2 == 0) ? (uint8_t)v :
				(uint8_t)(v >> 8);
			ac += (ac >> 16) & 0xffff;
			if((ac & 0xffff) == tag && (last & 1))
				break; /* and an odd modulus */
		}
		if(v < 65536) {
			if(len % 2 == 0) {
				out[len - 2] = (uint8_t)(v >> 8);
				out[len - 1] = (uint8_t)v;
			} else {
				out[len - 2] = (uint8_t)v;
				out[len - 1] = (uint8_t)(v >> 8);
			}
			ck_assert_uint_eq(val_keytag(out, len), tag);
			return len;
		}
		st += 7;
	}
}

/** the attack fixture: www.alg8.example. A, its keys, room for more */
struct kt_fix {
	/** the zone */
	struct vt_zone *z;
	/** the real DNSKEY set */
	struct vt_set keys;
	/** the A RRset */
	struct vt_set a;
	/** the key set under test and its RDATA */
	struct val_rr krr[40];
	/** its RDATA */
	uint8_t kb[40][600];
	/** the key set */
	struct val_rrset kset;
	/** RRSIGs under test */
	struct val_rr srr[40];
	/** their RDATA */
	uint8_t sb[40][400];
	/** the real ZSK's index in keys and its tag */
	size_t zsk;
	/** its tag */
	uint16_t ztag;
};

/** load the fixture; the key and RRSIG sets start empty */
static void
kt_load(struct kt_fix *f)
{
	size_t i;
	memset(f, 0, sizeof(*f));
	f->z = load_alg(8);
	ck_assert_uint_eq(vt_set_get(f->z, f->z->apex, DNS_TYPE_DNSKEY,
		&f->keys), 2);
	ck_assert_uint_eq(vt_set_get_str(f->z, "www.alg8.example.",
		DNS_TYPE_A, &f->a), 2);
	ck_assert_uint_eq(f->a.nsigs, 1);
	for(i = 0; i < 2; i++)
		if(!(f->keys.rrs[i].buf[1] & VAL_DNSKEY_SEP))
			f->zsk = i;
	f->ztag = val_keytag(f->keys.rrs[f->zsk].buf,
		f->keys.rrs[f->zsk].len);
	f->kset = (struct val_rrset){ f->z->apex, DNS_TYPE_DNSKEY,
		DNS_CLASS_IN, f->krr, 0 };
}

/** add a key to the set under test */
static void
kt_add_key(struct kt_fix *f, const uint8_t *k, size_t len)
{
	size_t n = f->kset.count;
	ck_assert_uint_lt(n, 40);
	memcpy(f->kb[n], k, len);
	f->krr[n] = (struct val_rr){ f->kb[n], len, 0, (uint16_t)len };
	f->kset.count++;
}

/** RRSIG i: the real one over the A RRset, its key tag set to tag and,
 * when seed is not 0, its signature bytes made up */
static void
kt_sig(struct kt_fix *f, size_t i, uint16_t tag, uint32_t seed)
{
	const struct val_rr *r = &f->a.sigs[0];
	size_t sl = VAL_RRSIG_FIXED + dname_len(r->buf + r->off +
		VAL_RRSIG_FIXED), j;
	uint32_t st = seed;
	memcpy(f->sb[i], r->buf + r->off, r->len);
	dns_write_u16(f->sb[i] + 16, tag);
	if(seed)
		for(j = sl; j < r->len; j++)
			f->sb[i][j] = (uint8_t)kt_rand(&st);
	f->srr[i] = (struct val_rr){ f->sb[i], r->len, 0, r->len };
}

static void
kt_free(struct kt_fix *f)
{
	vt_set_clear(&f->a);
	vt_set_clear(&f->keys);
	vt_zone_free(f->z);
}

START_TEST(test_keytrap_rrset_limit)
{
	static struct kt_fix f;
	uint8_t k[600];
	uint32_t now = vt_time(NOW_STR);
	struct val_budget b;
	struct val_window w = win(now);
	size_t i, kl;
	int ede = 0, r;
	kt_load(&f);
	w.budget = &b;
	/* 30 keys of tag 4711, 10 RRSIGs of that tag: 300 combinations */
	for(i = 0; i < 30; i++) {
		kl = kt_fake_key(k, 4711, 100 + (uint32_t)i, 3);
		ck_assert_int_eq(val_dnskey_check(k, kl), VAL_CRYPTO_OK);
		kt_add_key(&f, k, kl);
	}
	for(i = 0; i < 10; i++)
		kt_sig(&f, i, 4711, 1000 + (uint32_t)i);
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	r = val_verify_rrset(&f.a.set, f.srr, 10, &f.kset, &w, &ede);
	ck_assert_int_eq(r, VAL_CRYPTO_BUDGET);
	ck_assert_int_eq(ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(b.verified, VAL_MAX_RRSET_VERIFY);
	ck_assert_int_eq(b.spent, 0); /* the RRset's limit, not the query's */
	ck_assert_str_eq(val_crypto_result_str(r),
		"too many signature verifications");
	/* the same through the algorithm list (harden-algo-downgrade) */
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	r = val_verify_rrset_algos(&f.a.set, f.srr, 10, &f.kset,
		(const uint8_t *)"\010\010", 2, &w, &ede);
	ck_assert_int_eq(r, VAL_CRYPTO_BUDGET);
	ck_assert_uint_eq(b.verified, VAL_MAX_RRSET_VERIFY);
	/* the query's budget: 3 left, then spent */
	val_budget_init(&b, 3, 0);
	r = val_verify_rrset(&f.a.set, f.srr, 10, &f.kset, &w, &ede);
	ck_assert_int_eq(r, VAL_CRYPTO_BUDGET);
	ck_assert_uint_eq(b.verified, 3);
	ck_assert_int_eq(b.spent, 1);
	/* and nothing more once spent, not even a good signature */
	kt_add_key(&f, f.keys.rrs[f.zsk].buf, f.keys.rrs[f.zsk].len);
	r = val_verify_rrset(&f.a.set, f.a.sigs, 1, &f.kset, &w, &ede);
	ck_assert_int_eq(r, VAL_CRYPTO_BUDGET);
	ck_assert_uint_eq(b.verified, 3);
	kt_free(&f);
}
END_TEST

START_TEST(test_keytrap_tag_limit)
{
	static struct kt_fix f;
	uint8_t k[600];
	uint32_t now = vt_time(NOW_STR);
	struct val_budget b;
	struct val_window w = win(now);
	size_t i, kl;
	int ede = 0;
	kt_load(&f);
	w.budget = &b;
	/* three keys that collide with the real ZSK before it: the real
	 * signature is still found (VAL_MAX_TAG_KEYS keys tried) */
	for(i = 0; i < VAL_MAX_TAG_KEYS - 1; i++) {
		kl = kt_fake_key(k, f.ztag, 200 + (uint32_t)i, 3);
		kt_add_key(&f, k, kl);
	}
	kt_add_key(&f, f.keys.rrs[f.zsk].buf, f.keys.rrs[f.zsk].len);
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_rrset(&f.a.set, f.a.sigs, 1, &f.kset, &w,
		&ede), VAL_CRYPTO_OK);
	ck_assert_uint_eq(b.verified, VAL_MAX_TAG_KEYS);
	/* one more colliding key first: the real key is not reached for
	 * that RRSIG (the deliberate departure from RFC 4035 5.3.1) */
	f.kset.count = 0;
	for(i = 0; i < VAL_MAX_TAG_KEYS; i++) {
		kl = kt_fake_key(k, f.ztag, 300 + (uint32_t)i, 3);
		kt_add_key(&f, k, kl);
	}
	kt_add_key(&f, f.keys.rrs[f.zsk].buf, f.keys.rrs[f.zsk].len);
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_rrset(&f.a.set, f.a.sigs, 1, &f.kset, &w,
		&ede), VAL_CRYPTO_BAD_SIG);
	ck_assert_uint_eq(b.verified, VAL_MAX_TAG_KEYS);
	kt_free(&f);
}
END_TEST

START_TEST(test_keytrap_ds_limit)
{
	static struct kt_fix f;
	static uint8_t ds[40][64];
	struct val_rr dsr[40];
	struct val_rrset dset;
	uint8_t k[600];
	uint32_t now = vt_time(NOW_STR);
	struct val_budget b;
	struct val_window w = win(now);
	size_t i, kl, dl;
	int ede = 0;
	kt_load(&f);
	w.budget = &b;
	/* 30 colliding keys, each with its own DS: the DNSKEY set is signed
	 * by 10 bogus RRSIGs of the tag; every DS-matched key shares the
	 * set's count of verifications */
	for(i = 0; i < 30; i++) {
		kl = kt_fake_key(k, 4711, 400 + (uint32_t)i, 3);
		kt_add_key(&f, k, kl);
		dns_write_u16(ds[i], 4711);
		ds[i][2] = 8;
		ds[i][3] = 2;
		ck_assert_int_eq(val_ds_digest(f.z->apex, k, kl, 2, ds[i] + 4,
			&dl), VAL_CRYPTO_OK);
		dsr[i] = (struct val_rr){ ds[i], 4 + dl, 0,
			(uint16_t)(4 + dl) };
	}
	dset = (struct val_rrset){ f.z->apex, DNS_TYPE_DS, DNS_CLASS_IN, dsr,
		30 };
	for(i = 0; i < 10; i++) {
		kt_sig(&f, i, 4711, 2000 + (uint32_t)i);
		dns_write_u16(f.sb[i], DNS_TYPE_DNSKEY); /* type covered */
	}
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&f.kset, f.srr, 10, &dset,
		&w, &ede), VAL_CRYPTO_BUDGET);
	ck_assert_int_eq(ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(b.verified, VAL_MAX_RRSET_VERIFY);
	/* the same keys as trust anchors */
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_dnskeys_with_anchors(&f.kset, f.srr, 10,
		&f.kset, &w, &ede), VAL_CRYPTO_BUDGET);
	ck_assert_uint_eq(b.verified, VAL_MAX_RRSET_VERIFY);
	kt_free(&f);
}
END_TEST

START_TEST(test_keytrap_rsa_exponent)
{
	static struct kt_fix f;
	uint8_t k[600];
	uint32_t now = vt_time(NOW_STR);
	struct val_budget b;
	struct val_window w = win(now);
	size_t kl, i;
	int ede = 0;
	kt_load(&f);
	w.budget = &b;
	kl = kt_fake_key(k, 4711, 7, VAL_RSA_MAX_EXP);
	ck_assert_int_eq(val_dnskey_check(k, kl), VAL_CRYPTO_OK);
	kl = kt_fake_key(k, 4711, 7, VAL_RSA_MAX_EXP + 1);
	ck_assert_int_eq(val_dnskey_check(k, kl), VAL_CRYPTO_MALFORMED);
	/* the KeyTrap key: a 2040-bit exponent (long length form) */
	kl = kt_fake_key(k, 4711, 7, 255);
	ck_assert_int_eq(val_dnskey_check(k, kl), VAL_CRYPTO_MALFORMED);
	kl = kt_fake_key(k, 4711, 7, 256);
	ck_assert_int_eq(val_dnskey_check(k, kl), VAL_CRYPTO_MALFORMED);
	/* 30 such keys and 10 RRSIGs: refused before any crypto, the
	 * RRset bogus (not insecure) */
	for(i = 0; i < 30; i++) {
		kl = kt_fake_key(k, 4711, 500 + (uint32_t)i, 255);
		kt_add_key(&f, k, kl);
	}
	for(i = 0; i < 10; i++)
		kt_sig(&f, i, 4711, 3000 + (uint32_t)i);
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_rrset(&f.a.set, f.srr, 10, &f.kset, &w,
		&ede), VAL_CRYPTO_MALFORMED);
	ck_assert_int_eq(ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(b.verified, 0);
	kt_free(&f);
}
END_TEST


START_TEST(test_keytrap_sig_and_ds_caps)
{
	static struct kt_fix f;
	static uint8_t ds[40][64];
	struct val_rr dsr[40];
	struct val_rrset dset;
	uint8_t k[600];
	uint32_t now = vt_time(NOW_STR);
	struct val_budget b;
	struct val_window w = win(now);
	size_t i, kl;
	uint32_t st = 77;
	int ede = 0;
	kt_load(&f);
	w.budget = &b;
	/* RRSIGs that name no key (tag 4711, no such key) cost nothing but
	 * are looked at: only the first VAL_MAX_RRSET_SIGS are */
	kt_add_key(&f, f.keys.rrs[f.zsk].buf, f.keys.rrs[f.zsk].len);
	for(i = 0; i < VAL_MAX_RRSET_SIGS - 1; i++)
		kt_sig(&f, i, 4711, 0);
	kt_sig(&f, VAL_MAX_RRSET_SIGS - 1, f.ztag, 0); /* the good one */
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_rrset(&f.a.set, f.srr, VAL_MAX_RRSET_SIGS,
		&f.kset, &w, &ede), VAL_CRYPTO_OK);
	for(i = 0; i < VAL_MAX_RRSET_SIGS; i++)
		kt_sig(&f, i, 4711, 0);
	kt_sig(&f, VAL_MAX_RRSET_SIGS, f.ztag, 0);
	ck_assert_int_eq(val_verify_rrset(&f.a.set, f.srr,
		VAL_MAX_RRSET_SIGS + 1, &f.kset, &w, &ede), VAL_CRYPTO_NO_KEY);
	/* 30 DS records and 30 keys of one tag, the digests made up: each
	 * pair would cost a digest; VAL_MAX_DS_DIGESTS are made */
	f.kset.count = 0;
	for(i = 0; i < 30; i++) {
		size_t j;
		kl = kt_fake_key(k, 4711, 600 + (uint32_t)i, 3);
		kt_add_key(&f, k, kl);
		dns_write_u16(ds[i], 4711);
		ds[i][2] = 8;
		ds[i][3] = 2;
		for(j = 0; j < 32; j++)
			ds[i][4 + j] = (uint8_t)kt_rand(&st);
		dsr[i] = (struct val_rr){ ds[i], 36, 0, 36 };
	}
	dset = (struct val_rrset){ f.z->apex, DNS_TYPE_DS, DNS_CLASS_IN, dsr,
		30 };
	for(i = 0; i < 10; i++) {
		kt_sig(&f, i, 4711, 4000 + (uint32_t)i);
		dns_write_u16(f.sb[i], DNS_TYPE_DNSKEY);
	}
	val_budget_init(&b, VAL_BUDGET_VERIFY_DEFAULT, 0);
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&f.kset, f.srr, 10, &dset,
		&w, &ede), VAL_CRYPTO_BUDGET);
	ck_assert_int_eq(ede, DNS_EDE_DNSSEC_BOGUS);
	ck_assert_uint_eq(b.verified, 0);
	/* 2 DS records x 8 keys: 16 digests, within the bound: the set
	 * simply matches no key */
	dset.count = 2;
	f.kset.count = VAL_MAX_DS_DIGESTS / 2;
	ck_assert_int_eq(val_verify_dnskeys_with_ds(&f.kset, f.srr, 10, &dset,
		&w, &ede), VAL_CRYPTO_NO_KEY);
	kt_free(&f);
}
END_TEST

static Suite *
val_crypto_suite(void)
{
	Suite *s = suite_create("val_crypto");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_all_signatures_verify);
	tcase_add_loop_test(tc, test_tampered_fail, 0, NALGS);
	tcase_add_loop_test(tc, test_wildcard_expansion, 0, NALGS);
	tcase_add_loop_test(tc, test_ds_to_dnskey, 0, NALGS);
	tcase_add_test(tc, test_algo_downgrade);
	tcase_add_test(tc, test_keytag_ds);
	tcase_add_test(tc, test_keytag_vectors);
	tcase_add_test(tc, test_window);
	tcase_add_test(tc, test_canon_form);
	tcase_add_test(tc, test_canon_rdata_types);
	tcase_add_test(tc, test_canon_compressed);
	tcase_add_test(tc, test_unsupported_and_revoked);
	tcase_add_test(tc, test_key_shapes);
	tcase_add_test(tc, test_keytrap_rrset_limit);
	tcase_add_test(tc, test_keytrap_tag_limit);
	tcase_add_test(tc, test_keytrap_ds_limit);
	tcase_add_test(tc, test_keytrap_rsa_exponent);
	tcase_add_test(tc, test_keytrap_sig_and_ds_caps);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_crypto_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
