/*
 * tests/check_val_nsec.c - validator/val_nsec and val_nsec3: NXDOMAIN,
 * NODATA, empty non-terminals, wildcard answers and wildcard NODATA,
 * insecure delegations, NSEC3 opt-out and the RFC 9276 iteration limit.
 *
 * The NSEC and NSEC3 chains come from the signed fixtures
 * (testdata/dnssec/alg8.signed: NSEC; alg7.signed: NSEC3, salt aabbccdd,
 * 5 iterations, opt-out on every record), whose names are listed in
 * testdata/dnssec/zone.in. Variants (opt-out cleared, subsets) are made
 * by copying the records; NSEC3 hashes are checked against ldns and the
 * RFC 5155 appendix A example.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/val_testutil.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "validator/val_crypto.h"
#include "validator/val_neg.h"
#include "services/module.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"

/** the denial records of a zone */
struct recset {
	/** records */
	struct val_nrec r[64];
	/** RDATA copies (to tamper with) */
	uint8_t rd[64][512];
	/** how many */
	size_t n;
};

static struct vt_zone *z8, *z7;
static struct recset nsec, nsec3;

/** collect the records of a type from a zone */
static void
collect(struct vt_zone *z, uint16_t type, struct recset *s)
{
	size_t i;
	s->n = 0;
	for(i = 0; i < z->n; i++) {
		if(z->rrs[i].type != type)
			continue;
		ck_assert_uint_lt(s->n, 64);
		memcpy(s->rd[s->n], z->rrs[i].rdata, z->rrs[i].len);
		s->r[s->n].owner = z->rrs[i].owner;
		s->r[s->n].rdata = s->rd[s->n];
		s->r[s->n].len = z->rrs[i].len;
		s->n++;
	}
}

static void
setup(void)
{
	z8 = vt_zone_load("alg8.signed");
	z7 = vt_zone_load("alg7.signed");
	collect(z8, DNS_TYPE_NSEC, &nsec);
	collect(z7, DNS_TYPE_NSEC3, &nsec3);
}

static void
teardown(void)
{
	vt_zone_free(z8);
	vt_zone_free(z7);
}

/** a name in a static buffer (one of four, rotating) */
static const uint8_t *
N(const char *s)
{
	static uint8_t buf[4][256];
	static int i;
	i = (i + 1) % 4;
	return vt_name(s, buf[i]);
}

/** the subset of s whose owners are the given names */
static size_t
subset(const struct recset *s, const char **owners, size_t no,
	struct val_nrec *out)
{
	size_t i, j, n = 0;
	for(i = 0; i < s->n; i++)
		for(j = 0; j < no; j++)
			if(dname_equal(s->r[i].owner, N(owners[j])))
				out[n++] = s->r[i];
	return n;
}

START_TEST(test_bitmap)
{
	/* window 0: A(1) NS(2) MX(15); window 1: CAA(257) */
	static const uint8_t bm[] = { 0, 2, 0x60, 0x01, 1, 1, 0x40 };
	static const uint8_t bad_order[] = { 1, 1, 0x40, 0, 1, 0x60 };
	static const uint8_t bad_len[] = { 0, 33 };
	static const uint8_t zero_len[] = { 0, 0 };
	ck_assert_int_eq(val_bitmap_check(bm, sizeof(bm)), 0);
	ck_assert(val_bitmap_has(bm, sizeof(bm), DNS_TYPE_A));
	ck_assert(val_bitmap_has(bm, sizeof(bm), DNS_TYPE_NS));
	ck_assert(val_bitmap_has(bm, sizeof(bm), DNS_TYPE_MX));
	ck_assert(val_bitmap_has(bm, sizeof(bm), DNS_TYPE_CAA));
	ck_assert(!val_bitmap_has(bm, sizeof(bm), DNS_TYPE_SOA));
	ck_assert(!val_bitmap_has(bm, sizeof(bm), DNS_TYPE_DS));
	ck_assert(!val_bitmap_has(bm, sizeof(bm), 256));
	ck_assert(!val_bitmap_has(bm, sizeof(bm), 0xff01));
	ck_assert_int_eq(val_bitmap_check(bm, 0), 0);
	ck_assert_int_eq(val_bitmap_check(bm, 3), -1);
	ck_assert_int_eq(val_bitmap_check(bad_order, sizeof(bad_order)), -1);
	ck_assert(!val_bitmap_has(bad_order, sizeof(bad_order), DNS_TYPE_A));
	ck_assert_int_eq(val_bitmap_check(bad_len, sizeof(bad_len)), -1);
	ck_assert_int_eq(val_bitmap_check(zero_len, sizeof(zero_len)), -1);
	ck_assert_str_eq(val_proof_str(VAL_PROOF_INSECURE), "insecure");
}
END_TEST

/** the proofs a table row asks for */
enum proof_kind {
	/** the name does not exist */
	PR_NXDOMAIN,
	/** the name has no data of type arg */
	PR_NODATA,
	/** what the records say of the name's DS */
	PR_NO_DS,
	/** the name was made from the wildcard whose parent has arg
	 * labels */
	PR_WILDCARD
};

/** one proof asked of a set of records, and what it must come out as */
struct proof {
	enum proof_kind kind;
	const char *name;
	/** the type (PR_NODATA) or the wildcard's labels (PR_WILDCARD) */
	int arg;
	/** the outcome (enum val_proof) */
	int want;
};

/** ask every proof of the table of the n records r: NSEC records, or
 * (is3) NSEC3 records with the iteration limit it */
static void
check_proofs(const struct val_nrec *r, size_t n, int is3, unsigned it,
	const struct proof *p, size_t np)
{
	static const char *const kinds[] = { "NXDOMAIN", "NODATA", "no DS",
		"wildcard" };
	for(; np > 0; np--, p++) {
		const uint8_t *q = N(p->name);
		int got = -1;
		switch(p->kind) {
		case PR_NXDOMAIN:
			got = is3 ? val_nsec3_prove_nxdomain(r, n, q, it, NULL)
				: val_nsec_prove_nxdomain(r, n, q);
			break;
		case PR_NODATA:
			got = is3 ? val_nsec3_prove_nodata(r, n, q,
				(uint16_t)p->arg, it, NULL) :
				val_nsec_prove_nodata(r, n, q, (uint16_t)p->arg);
			break;
		case PR_NO_DS:
			got = is3 ? val_nsec3_prove_no_ds(r, n, q, it, NULL)
				: val_nsec_prove_no_ds(r, n, q);
			break;
		case PR_WILDCARD:
			got = is3 ? val_nsec3_prove_wildcard(r, n, q, p->arg,
				it, NULL) : val_nsec_prove_wildcard(r, n, q,
				p->arg);
			break;
		}
		ck_assert_msg(got == p->want, "%s %s %s (%d): %s, want %s",
			is3 ? "NSEC3" : "NSEC", kinds[p->kind], p->name,
			p->arg, val_proof_str(got), val_proof_str(p->want));
	}
}

/** check_proofs over a whole array */
#define CHECK_PROOFS(r, n, is3, it, t) check_proofs((r), (n), (is3), \
	(it), (t), sizeof(t) / sizeof((t)[0]))

START_TEST(test_nsec_basics)
{
	struct val_nrec r[2];
	const char *o[] = { "ns1.alg8.example.", "alg8.example." };
	ck_assert_uint_eq(subset(&nsec, o, 2, r), 2);
	/* ns1 -> secsub */
	ck_assert(dname_equal(r[0].owner, N("ns1.alg8.example.")) ||
		dname_equal(r[1].owner, N("ns1.alg8.example.")));
	if(!dname_equal(r[0].owner, N("ns1.alg8.example."))) {
		struct val_nrec t = r[0]; r[0] = r[1]; r[1] = t;
	}
	ck_assert(val_nsec_covers(&r[0], N("nx.alg8.example.")));
	ck_assert(val_nsec_covers(&r[0], N("a.ns1.alg8.example.")));
	ck_assert(!val_nsec_covers(&r[0], N("ns1.alg8.example.")));
	ck_assert(!val_nsec_covers(&r[0], N("secsub.alg8.example.")));
	ck_assert(!val_nsec_covers(&r[0], N("zz.alg8.example.")));
	ck_assert(val_nsec_has_type(&r[0], DNS_TYPE_A));
	ck_assert(!val_nsec_has_type(&r[0], DNS_TYPE_AAAA));
	ck_assert_int_eq(val_nsec_closest_encloser(&r[0],
		N("x.nx.alg8.example.")), 2);
	ck_assert_int_eq(val_nsec_closest_encloser(&r[0],
		N("x.ns1.alg8.example.")), 3);
	/* the apex NSEC (apex -> alias) */
	ck_assert(val_nsec_covers(&r[1], N("*.alg8.example.")));
	ck_assert(val_nsec_covers(&r[1], N("a.alg8.example.")));
	ck_assert(!val_nsec_covers(&r[1], N("alg8.example.")));
	ck_assert(!val_nsec_covers(&r[1], N("example.")));
	/* the last NSEC (www -> apex) wraps around */
	{
		const char *ow[] = { "www.alg8.example." };
		struct val_nrec w;
		ck_assert_uint_eq(subset(&nsec, ow, 1, &w), 1);
		ck_assert(val_nsec_covers(&w, N("wwx.alg8.example.")));
		ck_assert(val_nsec_covers(&w, N("zzz.alg8.example.")));
		ck_assert(val_nsec_covers(&w, N("a.www.alg8.example.")));
		ck_assert(!val_nsec_covers(&w, N("zzz.example.")));
		ck_assert(!val_nsec_covers(&w, N("alias.alg8.example.")));
	}
	/* a malformed NSEC covers nothing */
	{
		struct val_nrec bad = r[0];
		bad.len = 3;
		ck_assert(!val_nsec_covers(&bad, N("nx.alg8.example.")));
		ck_assert(!val_nsec_has_type(&bad, DNS_TYPE_A));
		ck_assert_int_eq(val_nsec_closest_encloser(&bad,
			N("nx.alg8.example.")), -1);
	}
}
END_TEST

START_TEST(test_nsec_nxdomain)
{
	struct val_nrec r[8];
	size_t n;
	const char *both[] = { "ns1.alg8.example.", "alg8.example." };
	const char *one[] = { "ns1.alg8.example." };
	const char *sub[] = { "sub.alg8.example.", "alg8.example." };
	static const struct proof all[] = {
		{ PR_NXDOMAIN, "nx.alg8.example.", 0, VAL_PROOF_SECURE },
		{ PR_NXDOMAIN, "a.b.c.nx.alg8.example.", 0, VAL_PROOF_SECURE },
		/* existing names and empty non-terminals */
		{ PR_NXDOMAIN, "WWW.alg8.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NXDOMAIN, "b.ent.alg8.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NXDOMAIN, "ent.alg8.example.", 0, VAL_PROOF_BOGUS },
		/* below the wildcard's parent, the wildcard exists */
		{ PR_NXDOMAIN, "x.wild.alg8.example.", 0, VAL_PROOF_BOGUS },
	};
	CHECK_PROOFS(nsec.r, nsec.n, 0, 0, all);
	n = subset(&nsec, both, 2, r);
	ck_assert_int_eq(val_nsec_prove_nxdomain(r, n,
		N("nx.alg8.example.")), VAL_PROOF_SECURE);
	/* without the NSEC that denies the wildcard: no proof */
	n = subset(&nsec, one, 1, r);
	ck_assert_int_eq(val_nsec_prove_nxdomain(r, n,
		N("nx.alg8.example.")), VAL_PROOF_NONE);
	/* the NSEC does not cover the name */
	ck_assert_int_eq(val_nsec_prove_nxdomain(r, n,
		N("zz.alg8.example.")), VAL_PROOF_NONE);
	/* below a delegation the parent's NSEC cannot deny */
	n = subset(&nsec, sub, 2, r);
	ck_assert_int_eq(val_nsec_prove_nxdomain(r, n,
		N("x.sub.alg8.example.")), VAL_PROOF_NONE);
	/* nothing at all */
	ck_assert_int_eq(val_nsec_prove_nxdomain(r, 0,
		N("nx.alg8.example.")), VAL_PROOF_NONE);
}
END_TEST

START_TEST(test_nsec_nodata)
{
	static const struct proof t[] = {
		{ PR_NODATA, "www.alg8.example.", DNS_TYPE_TXT,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "www.alg8.example.", DNS_TYPE_A, VAL_PROOF_BOGUS },
		/* a CNAME is there: no NODATA for any type */
		{ PR_NODATA, "alias.alg8.example.", DNS_TYPE_A,
		  VAL_PROOF_BOGUS },
		{ PR_NODATA, "alias.alg8.example.", DNS_TYPE_CNAME,
		  VAL_PROOF_BOGUS },
		/* empty non-terminals */
		{ PR_NODATA, "b.ent.alg8.example.", DNS_TYPE_A,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "ent.alg8.example.", DNS_TYPE_AAAA,
		  VAL_PROOF_SECURE },
		/* the parent side of an insecure delegation (NS, no DS)
		 * shows the name, and all below it, is in an unsigned
		 * child: insecure (RFC 4035 5.2; as Unbound: a CNAME into a
		 * child on the same servers gets the parent's NSEC) ... */
		{ PR_NODATA, "sub.alg8.example.", DNS_TYPE_A,
		  VAL_PROOF_INSECURE },
		{ PR_NODATA, "www.sub.alg8.example.", DNS_TYPE_AAAA,
		  VAL_PROOF_INSECURE },
		/* ... the side of a signed one proves nothing for A ... */
		{ PR_NODATA, "secsub.alg8.example.", DNS_TYPE_A,
		  VAL_PROOF_NONE },
		/* ... but does for DS */
		{ PR_NODATA, "sub.alg8.example.", DNS_TYPE_DS,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "secsub.alg8.example.", DNS_TYPE_DS,
		  VAL_PROOF_BOGUS },
		/* the apex NSEC cannot deny the DS (it is the child's) */
		{ PR_NODATA, "alg8.example.", DNS_TYPE_DS, VAL_PROOF_BOGUS },
		/* wildcard NODATA */
		{ PR_NODATA, "x.wild.alg8.example.", DNS_TYPE_A,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "x.wild.alg8.example.", DNS_TYPE_TXT,
		  VAL_PROOF_BOGUS },
		/* a name that does not exist, and no wildcard: no NODATA
		 * proof */
		{ PR_NODATA, "nx.alg8.example.", DNS_TYPE_A, VAL_PROOF_NONE },
	};
	CHECK_PROOFS(nsec.r, nsec.n, 0, 0, t);
}
END_TEST

/** add a record with an RRSIG by zone "wc.test." (good for a day from
 * now) to a val_neg store */
static void
neg_put_max(struct val_neg *n, struct region *r, const char *owner,
	uint16_t type, const uint8_t *rd, size_t rdlen, uint32_t now,
	uint32_t use_max)
{
	uint8_t o[256], sig[128];
	size_t sl = 0, zl = 256;
	struct module_rr *rr, *s;
	vt_name(owner, o);
	memset(sig, 0, sizeof(sig));
	sig[0] = (uint8_t)(type >> 8);
	sig[1] = (uint8_t)type;
	sig[2] = 13;
	sig[3] = (uint8_t)dname_count_labels(o);
	sig[4] = 0; sig[5] = 0; sig[6] = 0x0e; sig[7] = 0x10;
	sig[8] = (uint8_t)((now + 86400) >> 24);
	sig[9] = (uint8_t)((now + 86400) >> 16);
	sig[10] = (uint8_t)((now + 86400) >> 8);
	sig[11] = (uint8_t)(now + 86400);
	sig[12] = (uint8_t)((now - 86400) >> 24);
	sig[13] = (uint8_t)((now - 86400) >> 16);
	sig[14] = (uint8_t)((now - 86400) >> 8);
	sig[15] = (uint8_t)(now - 86400);
	sig[16] = 0x12; sig[17] = 0x34;
	ck_assert_int_eq(dname_from_str("wc.test.", sig + 18, &zl), 0);
	sl = 18 + zl + 8; /* and a signature of 8 zero bytes */
	rr = module_rr_new(r, o, dname_len(o), type, DNS_CLASS_IN, 3600, rd,
		rdlen);
	s = module_rr_new(r, o, dname_len(o), DNS_TYPE_RRSIG, DNS_CLASS_IN,
		3600, sig, sl);
	ck_assert_ptr_nonnull(rr);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(val_neg_add(n, rr, s, now, use_max), 0);
}

/** neg_put_max without a limit of use */
static void
neg_put(struct val_neg *n, struct region *r, const char *owner,
	uint16_t type, const uint8_t *rd, size_t rdlen, uint32_t now)
{
	neg_put_max(n, r, owner, type, rd, rdlen, now, 0xffffffff);
}

/** NSEC RDATA: next name and a one-window bitmap of the types */
static size_t
nsec_rd(const char *next, const uint16_t *types, size_t nt, uint8_t *out)
{
	size_t l = 256, i, w = 0;
	ck_assert_int_eq(dname_from_str(next, out, &l), 0);
	memset(out + l, 0, 34);
	out[l] = 0;
	for(i = 0; i < nt; i++) {
		out[l + 2 + types[i] / 8] |= (uint8_t)(0x80 >> (types[i] % 8));
		if((size_t)(types[i] / 8 + 1) > w)
			w = (size_t)(types[i] / 8 + 1);
	}
	out[l + 1] = (uint8_t)w;
	return l + 2 + w;
}

/** the negative store of the wc.test. tests: the zone's SOA (MINIMUM 60)
 * and two NSECs, the apex's (to ns.wc.test.) and target.wc.test.'s (to
 * *.w.wc.test.), kept at now with a limit of use of use_max seconds */
static void
wc_store(struct val_neg *n, struct region *r, uint32_t now, uint32_t use_max)
{
	static const uint16_t apex_t[] = { DNS_TYPE_NS, DNS_TYPE_SOA,
		DNS_TYPE_RRSIG, DNS_TYPE_NSEC, DNS_TYPE_DNSKEY };
	static const uint16_t tgt_t[] = { DNS_TYPE_TXT, DNS_TYPE_RRSIG,
		DNS_TYPE_NSEC };
	uint8_t rd[300], soa[300];
	size_t l, m = 256;
	/* the SOA: mname, rname, five numbers */
	ck_assert_int_eq(dname_from_str("ns.wc.test.", soa, &m), 0);
	l = m;
	m = 256;
	ck_assert_int_eq(dname_from_str("h.wc.test.", soa + l, &m), 0);
	l += m;
	memset(soa + l, 0, 20);
	soa[l + 19] = 60;
	neg_put(n, r, "wc.test.", DNS_TYPE_SOA, soa, l + 20, now);
	neg_put_max(n, r, "wc.test.", DNS_TYPE_NSEC, rd, nsec_rd(
		"ns.wc.test.", apex_t, 5, rd), now, use_max);
	neg_put_max(n, r, "target.wc.test.", DNS_TYPE_NSEC, rd, nsec_rd(
		"*.w.wc.test.", tgt_t, 3, rd), now, use_max);
}

/* aggressive-nsec (val_neg): an NXDOMAIN made from the store carries the
 * NSEC for the wildcard, the NSEC for the name, then the SOA, in the
 * order Unbound gives them */
START_TEST(test_neg_order)
{
	struct val_neg *n = val_neg_create();
	struct region *r = region_create(8192);
	struct mesh_answer *a = NULL;
	struct module_rr *rr;
	uint8_t q[256];
	uint32_t now = 1000000000;
	const char *want[3] = { "wc.test.", "target.wc.test.", "wc.test." };
	const uint16_t wtype[3] = { DNS_TYPE_NSEC, DNS_TYPE_NSEC,
		DNS_TYPE_SOA };
	int i = 0;
	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_nonnull(r);
	wc_store(n, r, now, 0xffffffff);
	ck_assert_int_eq(val_neg_answer(n, vt_name("v.wc.test.", q),
		DNS_TYPE_A, now, r, &a), 1);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NXDOMAIN);
	for(rr = a->ns.first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_RRSIG)
			continue;
		ck_assert_int_lt(i, 3);
		ck_assert_int_eq(rr->type, wtype[i]);
		ck_assert(dname_equal(rr->owner, N(want[i])));
		i++;
	}
	ck_assert_int_eq(i, 3);
	region_destroy(r);
	val_neg_delete(n);
}
END_TEST

/* RFC 9077: an NSEC kept with a limit of use (the SOA TTL and MINIMUM of
 * its answer) answers until the limit, with its own TTL, and not after
 * (Unbound's val_negcache_ttl.rpl) */
START_TEST(test_neg_use_max)
{
	struct val_neg *n = val_neg_create();
	struct region *r = region_create(8192);
	struct mesh_answer *a = NULL;
	struct module_rr *rr;
	uint8_t q[256];
	uint32_t now = 1000000000;
	int nsecs = 0;
	ck_assert_ptr_nonnull(n);
	ck_assert_ptr_nonnull(r);
	wc_store(n, r, now, 900);
	/* within the limit: the answer, with the records' own TTL */
	ck_assert_int_eq(val_neg_answer(n, vt_name("v.wc.test.", q),
		DNS_TYPE_A, now + 100, r, &a), 1);
	ck_assert_ptr_nonnull(a);
	for(rr = a->ns.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NSEC) {
			ck_assert_uint_eq(rr->ttl, 3500);
			nsecs++;
		}
	ck_assert_int_eq(nsecs, 2);
	/* past the limit (the TTL of 3600 is not over): no answer */
	a = NULL;
	ck_assert_int_eq(val_neg_answer(n, vt_name("v.wc.test.", q),
		DNS_TYPE_A, now + 901, r, &a), 0);
	region_destroy(r);
	val_neg_delete(n);
}
END_TEST

START_TEST(test_nsec_wildcard_and_ds)
{
	static const struct proof t[] = {
		{ PR_WILDCARD, "a.b.wild.alg8.example.", 3, VAL_PROOF_SECURE },
		{ PR_WILDCARD, "x.wild.alg8.example.", 3, VAL_PROOF_SECURE },
		/* a wrong closest encloser */
		{ PR_WILDCARD, "a.b.wild.alg8.example.", 2, VAL_PROOF_NONE },
		/* an existing name was not synthesised */
		{ PR_WILDCARD, "www.alg8.example.", 2, VAL_PROOF_NONE },
		/* labels not below the name */
		{ PR_WILDCARD, "x.wild.alg8.example.", 4, VAL_PROOF_NONE },
		/* DS at referrals */
		{ PR_NO_DS, "sub.alg8.example.", 0, VAL_PROOF_INSECURE },
		{ PR_NO_DS, "secsub.alg8.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NO_DS, "www.alg8.example.", 0, VAL_PROOF_SECURE },
		{ PR_NO_DS, "alg8.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NO_DS, "ent.alg8.example.", 0, VAL_PROOF_SECURE },
		{ PR_NO_DS, "nx.alg8.example.", 0, VAL_PROOF_NONE },
	};
	CHECK_PROOFS(nsec.r, nsec.n, 0, 0, t);
}
END_TEST

START_TEST(test_base32hex)
{
	/* RFC 4648 section 10 vectors, lower case, no padding */
	static const char *plain[] = { "f", "fo", "foo", "foob", "fooba",
		"foobar" };
	static const char *enc[] = { "co", "cpng", "cpnmu", "cpnmuog",
		"cpnmuoj1", "cpnmuoj1e8" };
	char out[64];
	uint8_t dec[64];
	int i;
	for(i = 0; i < 6; i++) {
		size_t l = val_base32hex_encode((const uint8_t *)plain[i],
			strlen(plain[i]), out, sizeof(out));
		ck_assert_uint_eq(l, strlen(enc[i]));
		ck_assert_str_eq(out, enc[i]);
		ck_assert_uint_eq(val_base32hex_decode((const uint8_t *)enc[i],
			strlen(enc[i]), dec, sizeof(dec)), strlen(plain[i]));
		ck_assert(memcmp(dec, plain[i], strlen(plain[i])) == 0);
	}
	ck_assert_uint_eq(val_base32hex_decode((const uint8_t *)"CPNMUOJ1E8",
		10, dec, sizeof(dec)), 6);
	ck_assert_uint_eq(val_base32hex_decode((const uint8_t *)"cpw", 3, dec,
		sizeof(dec)), 0);
	/* non-zero padding bits */
	ck_assert_uint_eq(val_base32hex_decode((const uint8_t *)"cp", 2, dec,
		sizeof(dec)), 0);
	ck_assert_uint_eq(val_base32hex_decode((const uint8_t *)"cpnmuoj1e8",
		10, dec, 5), 0);
	ck_assert_uint_eq(val_base32hex_encode((const uint8_t *)"foobar", 6,
		out, 10), 0);
}
END_TEST

START_TEST(test_nsec3_hash)
{
	/* RFC 5155 appendix A: H(example) with salt aabbccdd, 12
	 * additional iterations */
	static const uint8_t salt[] = { 0xaa, 0xbb, 0xcc, 0xdd };
	uint8_t h[VAL_NSEC3_HASH_LEN];
	char txt[64];
	size_t i;
	ck_assert_int_eq(val_nsec3_hash(N("EXAMPLE."), 1, salt, 4, 12, h), 0);
	val_base32hex_encode(h, sizeof(h), txt, sizeof(txt));
	ck_assert_str_eq(txt, "0p9mhaveqvm6t7vbl5lop2u3t2rp3tom");
	ck_assert_int_eq(val_nsec3_hash(N("a.example."), 1, salt, 4, 12, h), 0);
	val_base32hex_encode(h, sizeof(h), txt, sizeof(txt));
	ck_assert_str_eq(txt, "35mthgpgcu1qg68fab165klnsnk3dpvl");
	ck_assert_int_eq(val_nsec3_hash(N("example."), 2, salt, 4, 12, h), -1);
	/* against ldns, for every name of the fixture */
	for(i = 0; i < z7->n; i++) {
		ldns_rdf *own = ldns_rr_owner(z7->rrs[i].lrr), *lh;
		ldns_rdf *lab;
		char *s;
		if(z7->rrs[i].type == DNS_TYPE_NSEC3 ||
			z7->rrs[i].type == DNS_TYPE_RRSIG)
			continue;
		lh = ldns_nsec3_hash_name(own, 1, 5, 4, (uint8_t *)salt);
		ck_assert_ptr_nonnull(lh);
		lab = ldns_dname_label(lh, 0);
		s = ldns_rdf2str(lab);
		ck_assert_int_eq(val_nsec3_hash(z7->rrs[i].owner, 1, salt, 4,
			5, h), 0);
		val_base32hex_encode(h, sizeof(h), txt, sizeof(txt));
		/* ldns prints the label with a trailing dot */
		ck_assert_int_eq(strncasecmp(s, txt, 32), 0);
		free(s);
		ldns_rdf_deep_free(lab);
		ldns_rdf_deep_free(lh);
	}
}
END_TEST

START_TEST(test_nsec3_parse)
{
	struct val_nsec3_info in;
	struct val_nrec r = nsec3.r[0];
	uint8_t rd[512], own[256];
	ck_assert_int_eq(val_nsec3_parse(&r, &in), 0);
	ck_assert_uint_eq(in.alg, 1);
	ck_assert_uint_eq(in.flags, VAL_NSEC3_OPTOUT);
	ck_assert_uint_eq(in.iterations, 5);
	ck_assert_uint_eq(in.saltlen, 4);
	ck_assert_uint_eq(in.owner_hashlen, 20);
	ck_assert(dname_equal(in.zone, N("alg7.example.")));
	memcpy(rd, r.rdata, r.len);
	r.rdata = rd;
	rd[0] = 2; /* unknown hash algorithm: ignored */
	ck_assert_int_eq(val_nsec3_parse(&r, &in), 1);
	rd[0] = 1;
	rd[1] = 0x03; /* unknown flag: ignored */
	ck_assert_int_eq(val_nsec3_parse(&r, &in), 1);
	rd[1] = 0;
	r.len = 9; /* runs past the RDATA */
	ck_assert_int_eq(val_nsec3_parse(&r, &in), -1);
	r.len = nsec3.r[0].len;
	memcpy(own, r.owner, dname_len(r.owner));
	own[3] = 'z'; /* not base32hex */
	r.owner = own;
	ck_assert_int_eq(val_nsec3_parse(&r, &in), -1);
}
END_TEST

/** the NSEC3 chain with the opt-out flag cleared */
static struct recset *
no_optout(void)
{
	static struct recset s;
	size_t i;
	s = nsec3;
	for(i = 0; i < s.n; i++) {
		s.r[i].rdata = s.rd[i];
		s.rd[i][1] = 0;
	}
	return &s;
}

START_TEST(test_nsec3_proofs)
{
	/* the chain without opt-out */
	static const struct proof t[] = {
		/* NXDOMAIN */
		{ PR_NXDOMAIN, "nx.alg7.example.", 0, VAL_PROOF_SECURE },
		{ PR_NXDOMAIN, "a.b.nx.alg7.example.", 0, VAL_PROOF_SECURE },
		{ PR_NXDOMAIN, "www.alg7.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NXDOMAIN, "ent.alg7.example.", 0, VAL_PROOF_BOGUS },
		{ PR_NXDOMAIN, "x.wild.alg7.example.", 0, VAL_PROOF_BOGUS },
		/* outside the zone of the records: nothing */
		{ PR_NXDOMAIN, "nx.alg8.example.", 0, VAL_PROOF_NONE },
		/* NODATA */
		{ PR_NODATA, "www.alg7.example.", DNS_TYPE_TXT,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "www.alg7.example.", DNS_TYPE_AAAA,
		  VAL_PROOF_BOGUS },
		{ PR_NODATA, "alias.alg7.example.", DNS_TYPE_A,
		  VAL_PROOF_BOGUS },
		{ PR_NODATA, "b.ent.alg7.example.", DNS_TYPE_A,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "alg7.example.", DNS_TYPE_DS, VAL_PROOF_BOGUS },
		{ PR_NODATA, "secsub.alg7.example.", DNS_TYPE_A,
		  VAL_PROOF_NONE },
		/* wildcard NODATA */
		{ PR_NODATA, "x.wild.alg7.example.", DNS_TYPE_A,
		  VAL_PROOF_SECURE },
		{ PR_NODATA, "x.wild.alg7.example.", DNS_TYPE_TXT,
		  VAL_PROOF_BOGUS },
		{ PR_NODATA, "nx.alg7.example.", DNS_TYPE_A, VAL_PROOF_NONE },
		/* wildcard answers */
		{ PR_WILDCARD, "a.b.wild.alg7.example.", 3, VAL_PROOF_SECURE },
		{ PR_WILDCARD, "a.b.wild.alg7.example.", 2, VAL_PROOF_NONE },
		{ PR_WILDCARD, "www.alg7.example.", 2, VAL_PROOF_NONE },
		{ PR_WILDCARD, "www.alg7.example.", 3, VAL_PROOF_NONE },
	};
	/* the chain as signed, with opt-out */
	static const struct proof optout[] = {
		/* under opt-out an NXDOMAIN is only insecure */
		{ PR_NXDOMAIN, "nx.alg7.example.", 0, VAL_PROOF_INSECURE },
		/* the next closer covered by opt-out (RFC 5155 9.2): a
		 * wildcard answer and a wildcard NODATA are only
		 * insecure */
		{ PR_WILDCARD, "a.b.wild.alg7.example.", 3,
		  VAL_PROOF_INSECURE },
		{ PR_NODATA, "x.wild.alg7.example.", DNS_TYPE_A,
		  VAL_PROOF_INSECURE },
	};
	struct recset *p = no_optout();
	unsigned it = VAL_NSEC3_MAX_ITER_DEFAULT;
	CHECK_PROOFS(p->r, p->n, 1, it, t);
	CHECK_PROOFS(nsec3.r, nsec3.n, 1, it, optout);
}
END_TEST

/* a proof is made of one chain: the records of a zone with other hash
 * parameters than its first usable record are left out (RFC 5155 7.2;
 * as Unbound, val_nx_nsec3_params) */
START_TEST(test_nsec3_one_chain)
{
	static struct recset m;
	struct val_nrec first[65];
	unsigned it = VAL_NSEC3_MAX_ITER_DEFAULT;
	size_t i;
	m = *no_optout();
	for(i = 0; i < m.n; i++)
		m.r[i].rdata = m.rd[i];
	ck_assert_uint_lt(m.n, 64);
	ck_assert_int_eq(val_nsec3_prove_nxdomain(m.r, m.n,
		N("nx.alg7.example."), it, NULL), VAL_PROOF_SECURE);
	/* a copy of the first record with one more iteration (another
	 * chain's, or made up to collide) */
	memcpy(m.rd[m.n], m.rd[0], m.r[0].len);
	m.r[m.n] = m.r[0];
	m.r[m.n].rdata = m.rd[m.n];
	m.rd[m.n][3]++;
	/* after the chain: it alone is left out */
	ck_assert_int_eq(val_nsec3_prove_nxdomain(m.r, m.n + 1,
		N("nx.alg7.example."), it, NULL), VAL_PROOF_SECURE);
	/* before it: it sets the parameters of the zone, the chain is left
	 * out and nothing is proven */
	first[0] = m.r[m.n];
	for(i = 0; i < m.n; i++)
		first[i + 1] = m.r[i];
	ck_assert_int_eq(val_nsec3_prove_nxdomain(first, m.n + 1,
		N("nx.alg7.example."), it, NULL), VAL_PROOF_NONE);
}
END_TEST

/**
 * The chain of s without the NSEC3 of name, as a signer that leaves a
 * name out leaves it: the previous record's next hash skips it.
 * @return how many records are in out.
 */
static size_t
without(const struct recset *s, const char *name, struct val_nrec *out)
{
	static struct recset c;
	struct val_nsec3_info in, gone;
	uint8_t h[VAL_NSEC3_HASH_LEN];
	size_t i, n = 0;
	int found = 0;
	c = *s;
	for(i = 0; i < c.n; i++) {
		c.r[i].rdata = c.rd[i];
		ck_assert_int_eq(val_nsec3_parse(&c.r[i], &in), 0);
		ck_assert_int_eq(val_nsec3_hash(N(name), 1, in.salt,
			in.saltlen, in.iterations, h), 0);
		if(memcmp(h, in.owner_hash, VAL_NSEC3_HASH_LEN) == 0) {
			gone = in;
			found = 1;
		}
	}
	ck_assert(found);
	for(i = 0; i < c.n; i++) {
		ck_assert_int_eq(val_nsec3_parse(&c.r[i], &in), 0);
		if(memcmp(in.owner_hash, gone.owner_hash, 20) == 0)
			continue;
		if(memcmp(in.next, gone.owner_hash, 20) == 0)
			memcpy(c.rd[i] + (in.next - c.r[i].rdata), gone.next,
				20);
		out[n++] = c.r[i];
	}
	return n;
}

START_TEST(test_nsec3_delegations)
{
	struct recset *p = no_optout();
	unsigned it = VAL_NSEC3_MAX_ITER_DEFAULT;
	struct val_nrec r[64];
	size_t i, n = 0;
	/* secsub has a DS: its NSEC3 says so */
	ck_assert_int_eq(val_nsec3_prove_no_ds(nsec3.r, nsec3.n,
		N("secsub.alg7.example."), it, NULL), VAL_PROOF_BOGUS);
	ck_assert_int_eq(val_nsec3_prove_no_ds(nsec3.r, nsec3.n,
		N("www.alg7.example."), it, NULL), VAL_PROOF_SECURE);
	ck_assert_int_eq(val_nsec3_prove_no_ds(nsec3.r, nsec3.n,
		N("alg7.example."), it, NULL), VAL_PROOF_BOGUS);
	/* sub (unsigned) has its own NSEC3 with NS and no DS */
	ck_assert_int_eq(val_nsec3_prove_no_ds(nsec3.r, nsec3.n,
		N("sub.alg7.example."), it, NULL), VAL_PROOF_INSECURE);
	ck_assert_int_eq(val_nsec3_prove_nodata(nsec3.r, nsec3.n,
		N("sub.alg7.example."), DNS_TYPE_DS, it, NULL),
		VAL_PROOF_SECURE);
	/* a signer with opt-out may leave it out of the chain: then the
	 * next closer is covered by an opt-out record (RFC 5155 6) */
	n = without(&nsec3, "sub.alg7.example.", r);
	ck_assert_uint_eq(n, nsec3.n - 1);
	ck_assert_int_eq(val_nsec3_prove_no_ds(r, n,
		N("sub.alg7.example."), it, NULL), VAL_PROOF_INSECURE);
	ck_assert_int_eq(val_nsec3_prove_nodata(r, n,
		N("sub.alg7.example."), DNS_TYPE_DS, it, NULL),
		VAL_PROOF_INSECURE);
	/* without opt-out, that gap proves nothing */
	n = without(p, "sub.alg7.example.", r);
	ck_assert_int_eq(val_nsec3_prove_no_ds(r, n,
		N("sub.alg7.example."), it, NULL), VAL_PROOF_NONE);
	ck_assert_int_eq(val_nsec3_prove_nodata(r, n,
		N("sub.alg7.example."), DNS_TYPE_DS, it, NULL), VAL_PROOF_NONE);
	n = 0;
	/* an NSEC3 at a delegation with NS and no DS: insecure; craft it
	 * by clearing the DS bit of secsub's record */
	for(i = 0; i < p->n; i++) {
		struct val_nsec3_info in;
		uint8_t h[VAL_NSEC3_HASH_LEN];
		r[n] = p->r[i];
		ck_assert_int_eq(val_nsec3_parse(&r[n], &in), 0);
		ck_assert_int_eq(val_nsec3_hash(N("secsub.alg7.example."), 1,
			in.salt, in.saltlen, in.iterations, h), 0);
		if(memcmp(h, in.owner_hash, 20) == 0) {
			/* window 0 byte 5 holds types 40..47: DS is 43 */
			uint8_t *bm = p->rd[i] + (in.bitmap - r[n].rdata);
			ck_assert(val_bitmap_has(in.bitmap, in.bmlen,
				DNS_TYPE_DS));
			bm[2 + 5] &= (uint8_t)~(0x80 >> 3);
			ck_assert(!val_bitmap_has(in.bitmap, in.bmlen,
				DNS_TYPE_DS));
		}
		n++;
	}
	ck_assert_int_eq(val_nsec3_prove_no_ds(r, n,
		N("secsub.alg7.example."), it, NULL), VAL_PROOF_INSECURE);
	/* and a NODATA at or below it is insecure: the name is in the
	 * unsigned child (as Unbound judges it) */
	ck_assert_int_eq(val_nsec3_prove_nodata(r, n,
		N("secsub.alg7.example."), DNS_TYPE_A, it, NULL), VAL_PROOF_INSECURE);
	ck_assert_int_eq(val_nsec3_prove_nodata(r, n,
		N("x.secsub.alg7.example."), DNS_TYPE_A, it, NULL),
		VAL_PROOF_INSECURE);
	/* the delegation's NSEC3 as closest encloser: insecure, not a
	 * proof the name does not exist */
	ck_assert_int_eq(val_nsec3_prove_nxdomain(r, n,
		N("x.secsub.alg7.example."), it, NULL), VAL_PROOF_INSECURE);
	/* with its DS the parent side proves nothing about the child */
	p = no_optout(); /* (the DS bit back) */
	ck_assert_int_eq(val_nsec3_prove_nodata(p->r, p->n,
		N("secsub.alg7.example."), DNS_TYPE_A, it, NULL), VAL_PROOF_NONE);
	ck_assert_int_eq(val_nsec3_prove_nxdomain(p->r, p->n,
		N("x.secsub.alg7.example."), it, NULL), VAL_PROOF_NONE);
	/* opt-out: a NODATA for a name with no NSEC3 of its own nor a
	 * wildcard, whose next closer is in an opt-out span, is insecure
	 * (an unsigned delegation may hold it: RFC 5155 9.2); without
	 * opt-out it is no proof */
	ck_assert_int_eq(val_nsec3_prove_nodata(nsec3.r, nsec3.n,
		N("nx.alg7.example."), DNS_TYPE_A, it, NULL), VAL_PROOF_INSECURE);
	ck_assert_int_eq(val_nsec3_prove_nodata(p->r, p->n,
		N("nx.alg7.example."), DNS_TYPE_A, it, NULL), VAL_PROOF_NONE);
}
END_TEST

START_TEST(test_nsec3_iterations)
{
	/* the fixture has 5 iterations: a limit of 4 makes it insecure,
	 * whatever the records say */
	static const struct proof over[] = {
		{ PR_NXDOMAIN, "nx.alg7.example.", 0, VAL_PROOF_INSECURE },
		{ PR_NXDOMAIN, "www.alg7.example.", 0, VAL_PROOF_INSECURE },
		{ PR_NODATA, "www.alg7.example.", DNS_TYPE_TXT,
		  VAL_PROOF_INSECURE },
		{ PR_WILDCARD, "a.b.wild.alg7.example.", 3,
		  VAL_PROOF_INSECURE },
		{ PR_NO_DS, "secsub.alg7.example.", 0, VAL_PROOF_INSECURE },
		/* records of another zone do not count */
		{ PR_NXDOMAIN, "nx.alg8.example.", 0, VAL_PROOF_NONE },
	};
	/* at the limit: as before */
	static const struct proof at[] = {
		{ PR_NXDOMAIN, "nx.alg7.example.", 0, VAL_PROOF_SECURE },
	};
	struct recset *p = no_optout();
	CHECK_PROOFS(p->r, p->n, 1, 4, over);
	CHECK_PROOFS(p->r, p->n, 1, 5, at);
}
END_TEST


/*
 * The NSEC3 hash budget (CVE-2023-50868): a name hashed with k iterations
 * costs k + 1 of the query's hash_left; a proof that would go past it
 * stops, fails (NONE) and marks the budget spent.
 */
START_TEST(test_nsec3_budget)
{
	struct recset *p = no_optout();
	static struct recset deep;
	struct val_budget b;
	unsigned it = VAL_NSEC3_MAX_ITER_DEFAULT;
	char name[400];
	size_t i, pos = 0;
	/* an ordinary proof: a few hashes of 5 + 1 SHA-1 each */
	val_budget_init(&b, 0, VAL_BUDGET_HASH_DEFAULT);
	ck_assert_int_eq(val_nsec3_prove_nxdomain(p->r, p->n,
		N("a.b.c.nx.alg7.example."), it, &b), VAL_PROOF_SECURE);
	ck_assert_uint_gt(b.hashed, 0);
	ck_assert_uint_eq(b.hashed % 6, 0);
	ck_assert_uint_eq(b.hashed + b.hash_left, VAL_BUDGET_HASH_DEFAULT);
	ck_assert_int_eq(b.spent, 0);
	/* too little left: the same proof stops */
	val_budget_init(&b, 0, 12);
	ck_assert_int_eq(val_nsec3_prove_nxdomain(p->r, p->n,
		N("a.b.c.nx.alg7.example."), it, &b), VAL_PROOF_NONE);
	ck_assert_int_eq(b.spent, 1);
	ck_assert_uint_le(b.hashed, 12);
	/* the case: 150 iterations and a 112-label name (the
	 * records' iterations raised; their hashes no longer match, so the
	 * closest encloser search hashes every label) */
	deep = *p;
	for(i = 0; i < deep.n; i++) {
		deep.r[i].rdata = deep.rd[i];
		dns_write_u16(deep.rd[i] + 2, 150);
	}
	for(i = 0; i < 110; i++)
		pos += (size_t)snprintf(name + pos, sizeof(name) - pos, "a.");
	(void)snprintf(name + pos, sizeof(name) - pos, "alg7.example.");
	ck_assert_int_eq(dname_count_labels(N(name)), 112);
	val_budget_init(&b, 0, VAL_BUDGET_HASH_DEFAULT);
	ck_assert_int_eq(val_nsec3_prove_nxdomain(deep.r, deep.n, N(name), it,
		&b), VAL_PROOF_NONE);
	ck_assert_int_eq(b.spent, 1);
	ck_assert_uint_le(b.hashed, VAL_BUDGET_HASH_DEFAULT);
	/* without the budget the same proof does 112 x 151 */
	ck_assert_uint_gt(112u * 151u, VAL_BUDGET_HASH_DEFAULT);
}
END_TEST

static Suite *
val_nsec_suite(void)
{
	Suite *s = suite_create("val_nsec");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_bitmap);
	tcase_add_test(tc, test_nsec_basics);
	tcase_add_test(tc, test_nsec_nxdomain);
	tcase_add_test(tc, test_nsec_nodata);
	tcase_add_test(tc, test_nsec_wildcard_and_ds);
	tcase_add_test(tc, test_base32hex);
	tcase_add_test(tc, test_nsec3_hash);
	tcase_add_test(tc, test_nsec3_parse);
	tcase_add_test(tc, test_nsec3_proofs);
	tcase_add_test(tc, test_nsec3_one_chain);
	tcase_add_test(tc, test_nsec3_delegations);
	tcase_add_test(tc, test_nsec3_iterations);
	tcase_add_test(tc, test_nsec3_budget);
	tcase_add_test(tc, test_neg_order);
	tcase_add_test(tc, test_neg_use_max);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_nsec_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
