/*
 * tests/check_val_neg.c - validator/val_neg: answers made from the store
 * of validated NSEC records (RFC 8198): NXDOMAIN, NODATA, an empty
 * non-terminal, and the order of their authority section; a DS question
 * at a zone cut.
 *
 * The records are put in the store as the validator does after it found
 * them secure (their RRSIGs are not checked here, only kept: a signature
 * of made-up bytes with a validity period around the test's clock).
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "validator/val_neg.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/region.h"

/** the test's clock: 2001-09-09 */
#define NOW 1000000000u

/** a record from presentation format into r */
static struct module_rr *
mkrr(struct region *r, const char *str)
{
	ldns_rr *rr = NULL;
	ldns_buffer *b = ldns_buffer_new(1024);
	struct module_rr *m;
	ck_assert(ldns_rr_new_frm_str(&rr, str, 0, NULL, NULL) ==
		LDNS_STATUS_OK);
	ck_assert(ldns_rr_rdata2buffer_wire(b, rr) == LDNS_STATUS_OK);
	m = module_rr_new(r, ldns_rdf_data(ldns_rr_owner(rr)),
		ldns_rdf_size(ldns_rr_owner(rr)), (uint16_t)ldns_rr_get_type(rr),
		(uint16_t)ldns_rr_get_class(rr), ldns_rr_ttl(rr),
		ldns_buffer_begin(b), ldns_buffer_position(b));
	ck_assert_ptr_nonnull(m);
	ldns_rr_free(rr);
	ldns_buffer_free(b);
	return m;
}

/** keep a record and its RRSIG (over type covered, by signer) */
static void
keep_by(struct val_neg *n, struct region *r, const char *owner,
	const char *rest, const char *covered, const char *signer)
{
	char rs[512], ss[512];
	snprintf(rs, sizeof(rs), "%s 3600 IN %s", owner, rest);
	snprintf(ss, sizeof(ss), "%s 3600 IN RRSIG %s 8 2 3600 "
		"20300101000000 20000101000000 1 %s AAAA", owner,
		covered, signer);
	ck_assert_int_eq(val_neg_add(n, mkrr(r, rs), mkrr(r, ss), NOW,
		0xffffffff), 0);
}

/** keep a record and its RRSIG (over type covered, signer neg.example) */
static void
keep(struct val_neg *n, struct region *r, const char *owner,
	const char *rest, const char *covered)
{
	keep_by(n, r, owner, rest, covered, "neg.example.");
}

/** @return 1 when the record has type t and owner name */
static int
rr_is(const struct module_rr *rr, uint16_t t, const char *name)
{
	uint8_t w[256];
	size_t l = sizeof(w);
	ck_assert_int_eq(dname_from_str(name, w, &l), 0);
	return rr && rr->type == t && dname_equal(rr->owner, w);
}

START_TEST(test_order)
{
	struct val_neg *n = val_neg_create();
	struct region *r = region_create(4096);
	struct mesh_answer *a = NULL;
	const struct module_rr *x;
	uint8_t q[256];
	size_t l;
	ck_assert_ptr_nonnull(n);
	keep(n, r, "neg.example.", "SOA ns.neg.example. h.neg.example. 1 "
		"3600 600 86400 300", "SOA");
	/* the apex NSEC covers *.neg.example; b's covers c */
	keep(n, r, "neg.example.", "NSEC b.neg.example. NS SOA RRSIG NSEC",
		"NSEC");
	keep(n, r, "b.neg.example.", "NSEC d.neg.example. A RRSIG NSEC",
		"NSEC");
	/* d's NSEC shows e is an empty non-terminal (x.e exists) */
	keep(n, r, "d.neg.example.", "NSEC x.e.neg.example. A RRSIG NSEC",
		"NSEC");

	/* NXDOMAIN: the wildcard's NSEC, the name's NSEC, then the SOA
	 * (each followed by its RRSIG), as Unbound's negative cache
	 * writes it */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("c.neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_A, NOW + 10, r, &a),
		1);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_uint_eq(a->ns.count, 6);
	x = a->ns.first;
	ck_assert(rr_is(x, DNS_TYPE_NSEC, "neg.example."));
	x = x->next;
	ck_assert(rr_is(x, DNS_TYPE_RRSIG, "neg.example."));
	x = x->next;
	ck_assert(rr_is(x, DNS_TYPE_NSEC, "b.neg.example."));
	x = x->next;
	ck_assert(rr_is(x, DNS_TYPE_RRSIG, "b.neg.example."));
	x = x->next;
	ck_assert(rr_is(x, DNS_TYPE_SOA, "neg.example."));
	x = x->next;
	ck_assert(rr_is(x, DNS_TYPE_RRSIG, "neg.example."));
	/* the TTLs are the remaining ones */
	ck_assert_uint_eq(a->ns.first->ttl, 3590);

	/* NODATA: the name's NSEC, then the SOA */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("b.neg.example.", q, &l), 0);
	a = NULL;
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_TXT, NOW, r, &a), 1);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NOERROR);
	ck_assert_uint_eq(a->ns.count, 4);
	x = a->ns.first;
	ck_assert(rr_is(x, DNS_TYPE_NSEC, "b.neg.example."));
	x = x->next->next;
	ck_assert(rr_is(x, DNS_TYPE_SOA, "neg.example."));

	/* an empty non-terminal: NODATA from the NSEC covering it (not
	 * NXDOMAIN, not left to the iterator) */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("e.neg.example.", q, &l), 0);
	a = NULL;
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_TXT, NOW, r, &a), 1);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NOERROR);
	ck_assert_uint_eq(a->ns.count, 4);
	ck_assert(rr_is(a->ns.first, DNS_TYPE_NSEC, "d.neg.example."));
	ck_assert(rr_is(a->ns.first->next->next, DNS_TYPE_SOA,
		"neg.example."));

	/* a name the store does not cover, a type the NSEC holds: none */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("z.neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_A, NOW, r, &a), 0);
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("b.neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_A, NOW, r, &a), 0);
	region_destroy(r);
	val_neg_delete(n);
}
END_TEST

/* neg-cache-size: a store with room for the SOA and two NSEC records
 * answers NODATA from them; one with room for two loses the SOA (the
 * record that expires first is replaced) and answers nothing */
START_TEST(test_neg_cache_size)
{
	struct region *r = region_create(4096);
	struct mesh_answer *a = NULL;
	uint8_t q[256];
	size_t l = sizeof(q), room;
	ck_assert_int_eq(dname_from_str("b.neg.example.", q, &l), 0);
	for(room = 3; room >= 2; room--) {
		struct val_neg *n = val_neg_create_size(room *
			val_neg_entry_size());
		ck_assert_ptr_nonnull(n);
		keep(n, r, "neg.example.", "SOA ns.neg.example. "
			"h.neg.example. 1 3600 600 86400 300", "SOA");
		keep(n, r, "neg.example.", "NSEC b.neg.example. NS SOA "
			"RRSIG NSEC", "NSEC");
		keep(n, r, "b.neg.example.", "NSEC d.neg.example. A RRSIG "
			"NSEC", "NSEC");
		a = NULL;
		ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_TXT, NOW, r,
			&a), room == 3 ? 1 : 0);
		val_neg_delete(n);
	}
	/* less than one entry still keeps one */
	{
		struct val_neg *n = val_neg_create_size(0);
		ck_assert_ptr_nonnull(n);
		keep(n, r, "neg.example.", "SOA ns.neg.example. "
			"h.neg.example. 1 3600 600 86400 300", "SOA");
		val_neg_delete(n);
	}
	region_destroy(r);
}
END_TEST

/* a DS question: answered only from the NSEC at the name in the zone
 * strictly above it (the NSEC the key walk proved at a cut), never from
 * the child's own apex NSEC */
START_TEST(test_ds)
{
	struct val_neg *n = val_neg_create();
	struct region *r = region_create(4096);
	struct mesh_answer *a = NULL;
	uint8_t q[256];
	size_t l;
	ck_assert_ptr_nonnull(n);
	keep(n, r, "neg.example.", "SOA ns.neg.example. h.neg.example. 1 "
		"3600 600 86400 300", "SOA");
	keep(n, r, "neg.example.", "NSEC sub.neg.example. NS SOA RRSIG "
		"NSEC DNSKEY", "NSEC");
	/* the cut at sub: NS, no DS */
	keep(n, r, "sub.neg.example.", "NSEC tub.neg.example. NS RRSIG NSEC",
		"NSEC");
	/* a signed child tub, whose own apex NSEC and SOA are kept */
	keep_by(n, r, "tub.neg.example.", "SOA ns.tub.neg.example. "
		"h.tub.neg.example. 1 3600 600 86400 300", "SOA",
		"tub.neg.example.");
	keep_by(n, r, "tub.neg.example.", "NSEC tub.neg.example. NS SOA "
		"RRSIG NSEC DNSKEY", "NSEC", "tub.neg.example.");

	/* the cut's DS: NODATA, its NSEC and the parent's SOA, secure */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("sub.neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_DS, NOW, r, &a), 1);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NOERROR);
	ck_assert_int_eq(a->sec, MODULE_SEC_SECURE);
	ck_assert_uint_eq(a->ns.count, 4);
	ck_assert(rr_is(a->ns.first, DNS_TYPE_NSEC, "sub.neg.example."));
	ck_assert(rr_is(a->ns.first->next->next, DNS_TYPE_SOA,
		"neg.example."));

	/* the child's DS: its apex NSEC (SOA, no DS) says nothing of it */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("tub.neg.example.", q, &l), 0);
	a = NULL;
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_DS, NOW, r, &a), 0);
	/* the zone's own DS: nothing above it is kept */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_DS, NOW, r, &a), 0);
	/* a name the cut's NSEC covers: not answered for DS */
	l = sizeof(q);
	ck_assert_int_eq(dname_from_str("su.neg.example.", q, &l), 0);
	ck_assert_int_eq(val_neg_answer(n, q, DNS_TYPE_DS, NOW, r, &a), 0);
	region_destroy(r);
	val_neg_delete(n);
}
END_TEST

static Suite *
val_neg_suite(void)
{
	Suite *s = suite_create("val_neg");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_neg_cache_size);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_ds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_neg_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
