/*
 * tests/check_scrub.c - the iterator's scrubber and reply classification
 * (iterator/iter_scrub.h) on their own: replies are built with ldns from
 * zone-file text, scrubbed and classified, and what is left (and the
 * class) is compared with what the scrubber must keep.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iter_scrub.h"
#include "iterator/iter_env.h"
#include "iterator/iterator.h"
#include "dns/dns.h"
#include "dns/name.h"

/** wire name from a string (lower case) */
static void
wire(const char *s, uint8_t *out)
{
	size_t len = 256;
	ck_assert_int_eq(dname_from_str(s, out, &len), 0);
	dname_tolower(out);
}

/** push the records of a NULL-terminated list of texts into a section */
static void
push(ldns_pkt *p, ldns_pkt_section sec, const char *const *rrs)
{
	for(; rrs && *rrs; rrs++) {
		ldns_rr *rr = NULL;
		ck_assert_int_eq(ldns_rr_new_frm_str(&rr, *rrs, 3600, NULL,
			NULL), LDNS_STATUS_OK);
		ck_assert(ldns_pkt_push_rr(p, sec, rr));
	}
}

/** a reply with rcode, AA and three sections */
static ldns_pkt *
reply(int rcode, int aa, const char *const *an, const char *const *ns,
	const char *const *ar)
{
	ldns_pkt *p = ldns_pkt_new();
	ck_assert_ptr_nonnull(p);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, aa);
	ldns_pkt_set_rcode(p, (uint8_t)rcode);
	push(p, LDNS_SECTION_ANSWER, an);
	push(p, LDNS_SECTION_AUTHORITY, ns);
	push(p, LDNS_SECTION_ADDITIONAL, ar);
	return p;
}

/** is there a record with this owner and type in the list */
static int
has(ldns_rr_list *l, const char *owner, ldns_rr_type t)
{
	ldns_rdf *o = NULL;
	size_t i;
	int found = 0;
	ck_assert_int_eq(ldns_str2rdf_dname(&o, owner), LDNS_STATUS_OK);
	for(i = 0; i < ldns_rr_list_rr_count(l); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(l, i)) == t &&
			ldns_dname_compare(ldns_rr_owner(ldns_rr_list_rr(l,
			i)), o) == 0)
			found = 1;
	ldns_rdf_deep_free(o);
	return found;
}

/** classification result */
struct cl {
	/** the class */
	enum iter_class c;
	/** chain end */
	char end[DNS_MAX_NAME_STR];
	/** chain and answer record counts */
	size_t nchain, nfinal;
	/** referral zone, or "" */
	char refzone[DNS_MAX_NAME_STR];
};

/** classify p for qname/qtype as asked of zone */
static struct cl
classify(ldns_pkt *p, const char *qname, uint16_t qtype, const char *zone,
	int forward)
{
	struct cl r;
	uint8_t name[256], z[256];
	ldns_rr_list *chain = ldns_rr_list_new(), *final = ldns_rr_list_new();
	ldns_rr *ns = NULL;
	int links = 0;
	memset(&r, 0, sizeof(r));
	wire(qname, name);
	wire(zone, z);
	r.c = iter_classify(p, name, qtype, z, forward, chain, final, &links,
		0, &ns);
	(void)dname_to_str(name, r.end, sizeof(r.end));
	r.nchain = ldns_rr_list_rr_count(chain);
	r.nfinal = ldns_rr_list_rr_count(final);
	if(ns)
		(void)dname_to_str(ldns_rdf_data(ldns_rr_owner(ns)), r.refzone,
			sizeof(r.refzone));
	ck_assert((r.c == ITER_CL_REFERRAL) == (ns != NULL));
	ldns_rr_list_deep_free(chain);
	ldns_rr_list_deep_free(final);
	return r;
}

/** bailiwick: what is not at or below the server's zone goes, in every
 * section; a forwarder's reply keeps it */
START_TEST(test_bailiwick)
{
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1",
		"www.evil.net. A 192.0.2.66", NULL };
	static const char *const ns[] = {
		"example.com. NS ns.example.com.",
		"net. NS ns.evil.net.", NULL };
	static const char *const ar[] = {
		"ns.example.com. A 192.0.2.53",
		"ns.evil.net. A 192.0.2.67", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	ldns_pkt *p = reply(0, 1, an, ns, ar);
	wire("example.com.", zone);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 1);
	ck_assert(has(ldns_pkt_answer(p), "www.example.com.", LDNS_RR_TYPE_A));
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_authority(p)), 1);
	ck_assert(has(ldns_pkt_authority(p), "example.com.",
		LDNS_RR_TYPE_NS));
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_additional(p)), 1);
	ck_assert(has(ldns_pkt_additional(p), "ns.example.com.",
		LDNS_RR_TYPE_A));
	ldns_pkt_free(p);
	/* the zone itself is in bailiwick; a sibling with the same suffix
	 * text is not */
	{
		static const char *const an2[] = {
			"example.com. A 192.0.2.2",
			"badexample.com. A 192.0.2.3", NULL };
		p = reply(0, 1, an2, NULL, NULL);
		iter_scrub_reply(p, zone, env);
		ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 1);
		ck_assert(has(ldns_pkt_answer(p), "example.com.",
			LDNS_RR_TYPE_A));
		ldns_pkt_free(p);
	}
	/* forwarder: no bailiwick */
	p = reply(0, 0, an, ns, ar);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 2);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_authority(p)), 2);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_additional(p)), 2);
	ldns_pkt_free(p);
	iter_env_delete(env);
}
END_TEST

/** private-address: private A/AAAA answers go, unless under a
 * private-domain; other records and public addresses stay */
START_TEST(test_private)
{
	static const char *const an[] = {
		"www.example.com. A 10.1.2.3",
		"www.example.com. A 192.0.2.1",
		"v6.example.com. AAAA fd00::1",
		"v6.example.com. AAAA 2001:db8::1",
		"host.intra.example.com. A 10.1.2.4",
		"txt.example.com. TXT \"10.1.2.5\"", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	ldns_pkt *p;
	ck_assert_int_eq(iter_env_add_private(env, "10.0.0.0/8"), 0);
	ck_assert_int_eq(iter_env_add_private(env, "fd00::/8"), 0);
	ck_assert_int_eq(iter_env_add_privdom(env, "intra.example.com."), 0);
	wire("example.com.", zone);
	p = reply(0, 1, an, NULL, NULL);
	ck_assert_int_eq(iter_scrub_private(env, ldns_pkt_answer(p)), 2);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 4);
	ck_assert(has(ldns_pkt_answer(p), "host.intra.example.com.",
		LDNS_RR_TYPE_A));
	ck_assert(has(ldns_pkt_answer(p), "txt.example.com.",
		LDNS_RR_TYPE_TXT));
	ldns_pkt_free(p);
	/* the same through iter_scrub_reply, also for a forwarder */
	p = reply(0, 1, an, NULL, NULL);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(p)), 4);
	ldns_pkt_free(p);
	iter_env_delete(env);
	/* without private-address nothing is dropped */
	env = iter_env_create_default();
	p = reply(0, 1, an, NULL, NULL);
	ck_assert_int_eq(iter_scrub_private(env, ldns_pkt_answer(p)), 0);
	ldns_pkt_free(p);
	iter_env_delete(env);
}
END_TEST

/** answers, CNAME and DNAME chains */
START_TEST(test_classify_answers)
{
	static const char *const a[] = { "www.example.com. A 192.0.2.1",
		"other.example.com. A 192.0.2.9", NULL };
	static const char *const cn_in[] = {
		"www.example.com. CNAME host.example.com.",
		"host.example.com. A 192.0.2.2", NULL };
	static const char *const cn_out[] = {
		"www.example.com. CNAME host.example.net.", NULL };
	static const char *const dn[] = {
		"example.com. DNAME example.net.", NULL };
	static const char *const loop[] = {
		"www.example.com. CNAME b.example.com.",
		"b.example.com. CNAME www.example.com.", NULL };
	ldns_pkt *p;
	struct cl r;

	p = reply(0, 1, a, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_ANSWER);
	ck_assert_uint_eq(r.nfinal, 1);
	ck_assert_uint_eq(r.nchain, 0);
	ldns_pkt_free(p);

	p = reply(0, 1, cn_in, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_ANSWER);
	ck_assert_uint_eq(r.nchain, 1);
	ck_assert_uint_eq(r.nfinal, 1);
	ck_assert_str_eq(r.end, "host.example.com.");
	ldns_pkt_free(p);

	p = reply(0, 1, cn_out, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_CNAME);
	ck_assert_uint_eq(r.nchain, 1);
	ck_assert_uint_eq(r.nfinal, 0);
	ck_assert_str_eq(r.end, "host.example.net.");
	ldns_pkt_free(p);

	/* a DNAME: its CNAME is synthesised, the target resolved anew */
	p = reply(0, 1, dn, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_CNAME);
	ck_assert_uint_eq(r.nchain, 2);
	ck_assert_str_eq(r.end, "www.example.net.");
	ldns_pkt_free(p);

	p = reply(0, 1, loop, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_ERROR);
	ldns_pkt_free(p);
}
END_TEST

/** referrals, negative answers and lame replies */
START_TEST(test_classify_other)
{
	static const char *const ref[] = {
		"example.com. NS ns1.example.com.",
		"example.com. NS ns2.example.net.", NULL };
	static const char *const up[] = { "com. NS a.gtld-servers.net.",
		NULL };
	static const char *const side[] = {
		"example.org. NS ns.example.org.", NULL };
	static const char *const soa[] = {
		"example.com. SOA ns1.example.com. h.example.com. 1 2 3 4 300",
		NULL };
	static const char *const cn_in[] = {
		"www.example.com. CNAME gone.example.com.", NULL };
	ldns_pkt *p;
	struct cl r;

	/* from com.: a referral to example.com., with or without AA */
	p = reply(0, 0, NULL, ref, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_REFERRAL);
	ck_assert_str_eq(r.refzone, "example.com.");
	ldns_pkt_free(p);
	p = reply(0, 1, NULL, ref, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_REFERRAL);
	ldns_pkt_free(p);

	/* from example.com.: NS for example.com. itself, for com. (upward)
	 * or for another zone (sideways) is lame */
	p = reply(0, 0, NULL, ref, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_LAME);
	ldns_pkt_free(p);
	p = reply(0, 0, NULL, up, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_LAME);
	ldns_pkt_free(p);
	p = reply(0, 0, NULL, side, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_LAME);
	ldns_pkt_free(p);

	/* NXDOMAIN, NODATA (AA and SOA), and the same for a CNAME's target
	 * in the server's zone */
	p = reply(DNS_RCODE_NXDOMAIN, 1, NULL, soa, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_NXDOMAIN);
	ldns_pkt_free(p);
	p = reply(0, 1, NULL, soa, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_NODATA);
	ldns_pkt_free(p);
	p = reply(0, 1, cn_in, soa, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_NODATA);
	ck_assert_str_eq(r.end, "gone.example.com.");
	ck_assert_uint_eq(r.nchain, 1);
	ldns_pkt_free(p);
	p = reply(DNS_RCODE_NXDOMAIN, 1, cn_in, soa, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_NXDOMAIN);
	ldns_pkt_free(p);

	/* an empty NOERROR without AA or SOA says nothing: lame */
	p = reply(0, 0, NULL, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_LAME);
	ldns_pkt_free(p);

	/* a forwarder's reply is taken as it is */
	p = reply(0, 0, NULL, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, ".", 1);
	ck_assert_int_eq(r.c, ITER_CL_NODATA);
	ldns_pkt_free(p);
	p = reply(DNS_RCODE_NXDOMAIN, 0, NULL, NULL, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, ".", 1);
	ck_assert_int_eq(r.c, ITER_CL_NXDOMAIN);
	ldns_pkt_free(p);
	p = reply(0, 0, NULL, ref, NULL);
	r = classify(p, "www.example.com.", DNS_TYPE_A, ".", 1);
	ck_assert_int_eq(r.c, ITER_CL_NODATA);
	ldns_pkt_free(p);
}
END_TEST

/** the suite */
static Suite *
scrub_suite(void)
{
	Suite *s = suite_create("scrub");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_bailiwick);
	tcase_add_test(tc, test_private);
	tcase_add_test(tc, test_classify_answers);
	tcase_add_test(tc, test_classify_other);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(scrub_suite());
	int failed;
	log_init(NULL, 0, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
