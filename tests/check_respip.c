/*
 * tests/check_respip.c - the walk over an answer's addresses that
 * response-ip and the RPZ RESPONSE-IP triggers share (dns/addrscan.c):
 * the records it offers (A and AAAA of class IN with the right length,
 * after a CNAME), where it stops, and a packet that does not parse.
 */
#include "config.h"
#include <check.h>
#include <string.h>
#include "dns/addrscan.h"
#include "dns/dns.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "dns/name.h"

/** the callback's record: the addresses seen, stop at the n-th */
struct seen {
	/** how many addresses were offered */
	int n;
	/** stop at this one (1-based), 0: never */
	int stop_at;
	/** the lengths offered, in order */
	size_t alen[8];
	/** the first byte of each */
	uint8_t first[8];
};

/** dns_addr_cb that records what it is offered */
static int
seen_cb(void *arg, const uint8_t *addr, size_t alen)
{
	struct seen *s = arg;
	if(s->n < 8) {
		s->alen[s->n] = alen;
		s->first[s->n] = addr[0];
	}
	s->n++;
	return s->n == s->stop_at;
}

static const uint8_t qn[] = "\003www\007example\003com";
static const uint8_t tgt[] = "\001t\007example\003com";

/** an answer: a CNAME, an A of class CH, a short A, an AAAA, an A */
static size_t
mkanswer(uint8_t *buf, size_t cap)
{
	struct dns_builder b;
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a3[3] = { 1, 2, 3 };
	uint8_t a6[16];
	memset(a6, 0, sizeof(a6));
	a6[0] = 0x20;
	dns_build_init(&b, buf, cap, cap);
	ck_assert_int_eq(dns_build_header(&b, 1, DNS_FLAG_QR), 0);
	ck_assert_int_eq(dns_build_question(&b, qn, DNS_TYPE_A,
		DNS_CLASS_IN), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, qn, DNS_TYPE_CNAME,
		DNS_CLASS_IN, 60, tgt, sizeof(tgt)), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		3, 60, a1, 4), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		DNS_CLASS_IN, 60, a3, 3), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_AAAA,
		DNS_CLASS_IN, 60, a6, 16), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		DNS_CLASS_IN, 60, a1, 4), 0);
	return dns_build_finish(&b);
}

START_TEST(test_scan_offers_addresses)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf));
	struct seen s;
	struct dns_addr_hit hit;
	ck_assert_uint_gt(len, 0);
	memset(&s, 0, sizeof(s));
	/* the CNAME, the class CH and the short A are not offered */
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.alen[0], 16);
	ck_assert_uint_eq(s.first[0], 0x20);
	ck_assert_uint_eq(s.alen[1], 4);
	ck_assert_uint_eq(s.first[1], 192);
}
END_TEST

START_TEST(test_scan_stops)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf)), op;
	uint8_t owner[DNS_MAX_NAME];
	size_t ol = 0;
	struct seen s;
	struct dns_addr_hit hit;
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 1);
	ck_assert_uint_eq(hit.idx, 4);
	ck_assert_uint_eq(hit.type, DNS_TYPE_A);
	op = hit.owner_off;
	ck_assert_int_eq(dname_pkt_read(buf, len, &op, owner, &ol), 0);
	ck_assert_uint_eq(ol, sizeof(tgt));
	ck_assert_mem_eq(owner, tgt, sizeof(tgt));
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 1);
	ck_assert_uint_eq(hit.idx, 3);
	ck_assert_uint_eq(hit.type, DNS_TYPE_AAAA);
}
END_TEST

START_TEST(test_scan_bad_packet)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf));
	struct seen s;
	struct dns_addr_hit hit;
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(dns_addr_scan(buf, 5, seen_cb, &s, &hit), -1);
	/* cut inside the last record: the AAAA is offered, then -1 */
	ck_assert_int_eq(dns_addr_scan(buf, len - 2, seen_cb, &s, &hit), -1);
	ck_assert_int_eq(s.n, 1);
}
END_TEST

static Suite *
respip_suite(void)
{
	Suite *s = suite_create("respip");
	TCase *tc = tcase_create("addrscan");
	tcase_add_test(tc, test_scan_offers_addresses);
	tcase_add_test(tc, test_scan_stops);
	tcase_add_test(tc, test_scan_bad_packet);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int failed;
	SRunner *sr = srunner_create(respip_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
