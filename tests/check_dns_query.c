/*
 * tests/check_dns_query.c - Check suite for dns/query (the fast query
 * parser, the question hash) and the error-reply builder. Queries are
 * generated with ldns and the results compared with what ldns reads.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include <check.h>
#include <ldns/ldns.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/** a query for www.example.com A with EDNS 1232, DO, and a cookie */
static const uint8_t q_edns[] = {
	0x12, 0x34, 0x01, 0x20, 0, 1, 0, 0, 0, 0, 0, 1,
	3, 'W', 'w', 'W', 7, 'e', 'x', 'A', 'M', 'p', 'l', 'e', 3, 'c', 'o',
	'm', 0,
	0, 1, 0, 1,
	0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 16,
	0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8,
	0, 3, 0, 0
};

START_TEST(test_parse_typical)
{
	struct fast_query fq;
	uint8_t exp[DNS_MAX_NAME];
	size_t n = sizeof(exp);
	ck_assert_int_eq(dns_query_parse_fast(q_edns, sizeof(q_edns), &fq), 0);
	ck_assert_uint_eq(fq.id, 0x1234);
	ck_assert_uint_eq(fq.flags, 0x0120);
	ck_assert_int_eq(fq.opcode, 0);
	ck_assert_uint_eq(fq.qname_off, 12);
	ck_assert_uint_eq(fq.question_end, 33);
	ck_assert_int_eq(dname_from_str("www.example.com", exp, &n), 0);
	ck_assert_uint_eq(fq.qinfo.qname_len, n);
	ck_assert_int_eq(memcmp(fq.qinfo.qname, exp, n), 0);
	ck_assert_uint_eq(fq.qinfo.qtype, DNS_TYPE_A);
	ck_assert_uint_eq(fq.qinfo.qclass, DNS_CLASS_IN);
	ck_assert_uint_eq(fq.qinfo.hash, dns_qinfo_hash(exp, n, 1, 1));
	ck_assert_int_eq(fq.edns.present, 1);
	ck_assert_uint_eq(fq.edns.udp_size, 1232);
	ck_assert_int_eq(fq.edns.do_bit, 1);
	ck_assert_uint_eq(fq.edns.version, 0);
	ck_assert_uint_eq(fq.edns.opt_off, 33);
	ck_assert_uint_eq(fq.edns.num_opts, 2);
	ck_assert_uint_eq(fq.edns.opts[0].code, DNS_EDNS_COOKIE);
	ck_assert_uint_eq(fq.edns.cookie_off, 48);
	ck_assert_uint_eq(fq.edns.cookie_len, 8);
	ck_assert_int_eq(q_edns[fq.edns.cookie_off], 1);
	ck_assert_int_eq(fq.edns.nsid, 1);
	ck_assert_int_eq(fq.has_tsig, 0);
}
END_TEST

START_TEST(test_opt_find)
{
	struct fast_query fq;
	uint16_t l = 0;
	size_t off;
	ck_assert_int_eq(dns_query_parse_fast(q_edns, sizeof(q_edns), &fq), 0);
	off = edns_opt_find(q_edns, &fq.edns, DNS_EDNS_COOKIE, 0, &l);
	ck_assert_uint_eq(off, 48);
	ck_assert_uint_eq(l, 8);
	ck_assert_uint_eq(edns_opt_find(q_edns, &fq.edns, DNS_EDNS_COOKIE, off,
		&l), 0);
	off = edns_opt_find(q_edns, &fq.edns, DNS_EDNS_NSID, 0, &l);
	ck_assert_uint_eq(off, 60);
	ck_assert_uint_eq(l, 0);
	ck_assert_uint_eq(edns_opt_find(q_edns, &fq.edns, DNS_EDNS_EDE, 0, &l),
		0);
}
END_TEST

START_TEST(test_hash)
{
	struct query_info a, b;
	uint8_t n1[DNS_MAX_NAME], n2[DNS_MAX_NAME];
	size_t l1 = sizeof(n1), l2 = sizeof(n2);
	dname_from_str("Mail.Example.ORG", n1, &l1);
	dname_from_str("mail.example.org", n2, &l2);
	ck_assert_int_eq(query_info_set(&a, n1, DNS_TYPE_MX, 1), 0);
	ck_assert_int_eq(query_info_set(&b, n2, DNS_TYPE_MX, 1), 0);
	ck_assert_uint_eq(a.hash, b.hash);
	ck_assert_int_eq(memcmp(a.qname, b.qname, sizeof(a.qname)), 0);
	ck_assert_int_eq(query_info_set(&b, n2, DNS_TYPE_A, 1), 0);
	ck_assert_uint_ne(a.hash, b.hash);
	ck_assert_int_eq(query_info_set(&b, n2, DNS_TYPE_MX, 3), 0);
	ck_assert_uint_ne(a.hash, b.hash);
	/* the seed changes the hash */
	dns_hash_set_seed(777);
	ck_assert_int_eq(query_info_set(&b, n2, DNS_TYPE_MX, 1), 0);
	ck_assert_uint_ne(a.hash, b.hash);
	dns_hash_set_seed(0x243f6a8885a308d3ULL);
	ck_assert_int_eq(query_info_set(&b, n2, DNS_TYPE_MX, 1), 0);
	ck_assert_uint_eq(a.hash, b.hash);
	n1[0] = 0x40;
	ck_assert_int_eq(query_info_set(&a, n1, 1, 1), -1);
}
END_TEST

/** sort helper */
static int
cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return x < y ? -1 : (x > y);
}

/** different names give different hashes: among 20000 names a 32-bit
 * hash has a 5% chance of one collision, so allow at most 2; also each
 * output bit is set about half the time */
START_TEST(test_hash_spread)
{
	static uint32_t seen[20000];
	int i, j, coll = 0;
	for(i = 0; i < 20000; i++) {
		char s[64];
		uint8_t n[DNS_MAX_NAME];
		size_t l = sizeof(n);
		snprintf(s, sizeof(s), "host%d.example%d.com", i, i % 7);
		ck_assert_int_eq(dname_from_str(s, n, &l), 0);
		seen[i] = dns_qinfo_hash(n, l, 1, 1);
	}
	for(j = 0; j < 32; j++) {
		int ones = 0;
		for(i = 0; i < 20000; i++)
			ones += (seen[i] >> j) & 1;
		ck_assert_int_gt(ones, 9000);
		ck_assert_int_lt(ones, 11000);
	}
	qsort(seen, 20000, sizeof(seen[0]), cmp_u32);
	for(i = 1; i < 20000; i++)
		coll += seen[i] == seen[i - 1];
	ck_assert_int_le(coll, 2);
}
END_TEST

/** copy q_edns and return its length */
static size_t
base(uint8_t *b)
{
	memcpy(b, q_edns, sizeof(q_edns));
	return sizeof(q_edns);
}

START_TEST(test_errors)
{
	struct fast_query fq;
	uint8_t b[600];
	size_t len, i;
	/* every prefix fails with TRUNCATED (the query has nothing extra) */
	for(i = 0; i < sizeof(q_edns); i++)
		ck_assert_int_eq(dns_query_parse_fast(q_edns, i, &fq),
			DNS_ERR_TRUNCATED);
	/* QR set */
	len = base(b);
	b[2] |= 0x80;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_NOT_QUERY);
	ck_assert_uint_eq(fq.id, 0x1234);
	/* QDCOUNT 0 and 2 */
	len = base(b);
	b[5] = 0;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_QDCOUNT);
	b[5] = 2;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_QDCOUNT);
	/* a pointer in the question name */
	len = base(b);
	b[12] = 0xc0;
	b[13] = 0x00;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq),
		DNS_ERR_POINTER_NOT_ALLOWED);
	ck_assert_uint_eq(fq.qname_off, 0);
	b[12] = 0x41;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_BAD_LABEL);
	/* OPT counted in the answer section */
	len = base(b);
	b[7] = 1;
	b[11] = 0;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq),
		DNS_ERR_OPT_NOT_ADDITIONAL);
	/* the question was read: an error reply can echo it */
	ck_assert_uint_eq(fq.qname_off, 12);
	ck_assert_uint_eq(fq.question_end, 33);
	/* two OPTs */
	len = base(b);
	memcpy(b + len, q_edns + 33, sizeof(q_edns) - 33);
	len += sizeof(q_edns) - 33;
	b[11] = 2;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_OPT_TWICE);
	/* an option overrunning the RDATA */
	len = base(b);
	b[47] = 9; /* the cookie length: 8 -> 9 */
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_BAD_OPT);
	/* RDATA of the OPT one byte too short for the options */
	len = base(b);
	b[43] = 15;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_BAD_OPT);
	/* OPT with a non-root owner */
	len = base(b);
	b[33] = 0xc0;
	b[34] = 12;
	memmove(b + 35, q_edns + 34, sizeof(q_edns) - 34);
	len++;
	ck_assert_int_eq(dns_query_parse_fast(b, len, &fq), DNS_ERR_BAD_OPT);
	/* name of 256 octets */
	memcpy(b, q_edns, 12);
	b[11] = 0;
	for(i = 0; i < 4; i++) {
		b[12 + i * 64] = 63;
		memset(b + 13 + i * 64, 'a', 63);
	}
	b[12 + 256] = 0;
	memcpy(b + 12 + 257, "\000\001\000\001", 4);
	ck_assert_int_eq(dns_query_parse_fast(b, 12 + 261, &fq),
		DNS_ERR_NAME_TOO_LONG);
	/* 255 is fine */
	b[12 + 192] = 61;
	b[12 + 254] = 0;
	memcpy(b + 12 + 255, "\000\001\000\001", 4);
	ck_assert_int_eq(dns_query_parse_fast(b, 12 + 259, &fq), 0);
	ck_assert_uint_eq(fq.qinfo.qname_len, 255);
	ck_assert_int_eq(fq.edns.present, 0);
}
END_TEST

/** random queries written by ldns, read by both */
START_TEST(test_ldns_queries)
{
	static const char *const names[] = { "www.example.com.",
		"WWW.EXAMPLE.COM.", ".", "a.b.c.d.e.f.g.", "xn--bcher-kva.de.",
		"\\000\\255\\.x.y.", "MiXeD-CaSe_01.org.", "*.wild.net." };
	int iter;
	srandom(99);
	for(iter = 0; iter < 2000; iter++) {
		ldns_pkt *lp;
		ldns_rdf *dn = NULL;
		uint8_t *wire = NULL, canon[DNS_MAX_NAME];
		size_t wlen = 0;
		struct fast_query fq;
		uint16_t type = (uint16_t)(1 + random() % 300);
		int edns = (int)(random() % 2);
		ck_assert_int_eq(ldns_str2rdf_dname(&dn,
			names[random() % 8]), LDNS_STATUS_OK);
		lp = ldns_pkt_query_new(ldns_rdf_clone(dn), type,
			LDNS_RR_CLASS_IN, LDNS_RD);
		ck_assert_ptr_nonnull(lp);
		ldns_pkt_set_id(lp, (uint16_t)random());
		ldns_pkt_set_cd(lp, random() % 2);
		if(edns) {
			uint8_t od[8] = { 0, 10, 0, 4, 9, 8, 7, 6 };
			ldns_pkt_set_edns_udp_size(lp, (uint16_t)(512 +
				random() % 4000));
			ldns_pkt_set_edns_do(lp, random() % 2);
			if(random() % 2)
				ldns_pkt_set_edns_data(lp, ldns_rdf_new_frm_data(
					LDNS_RDF_TYPE_UNKNOWN, 8, od));
		}
		ck_assert_int_eq(ldns_pkt2wire(&wire, lp, &wlen),
			LDNS_STATUS_OK);
		ck_assert_int_eq(dns_query_parse_fast(wire, wlen, &fq), 0);
		ck_assert_uint_eq(fq.id, ldns_pkt_id(lp));
		ck_assert_int_eq(!!(fq.flags & DNS_FLAG_RD), 1);
		ck_assert_int_eq(!!(fq.flags & DNS_FLAG_CD), ldns_pkt_cd(lp));
		ck_assert_uint_eq(fq.qinfo.qtype, type);
		ck_assert_uint_eq(fq.qinfo.qclass, 1);
		ck_assert_uint_eq(fq.qinfo.qname_len, ldns_rdf_size(dn));
		dname_copy_lower(canon, ldns_rdf_data(dn));
		ldns_dname2canonical(dn);
		ck_assert_int_eq(memcmp(fq.qinfo.qname, ldns_rdf_data(dn),
			ldns_rdf_size(dn)), 0);
		ck_assert_int_eq(memcmp(canon, ldns_rdf_data(dn),
			ldns_rdf_size(dn)), 0);
		ck_assert_uint_eq(fq.qinfo.hash, dns_qinfo_hash(canon,
			ldns_rdf_size(dn), type, 1));
		ck_assert_int_eq(fq.edns.present, edns);
		if(edns) {
			ck_assert_uint_eq(fq.edns.udp_size,
				ldns_pkt_edns_udp_size(lp));
			ck_assert_int_eq(fq.edns.do_bit, ldns_pkt_edns_do(lp));
			ck_assert_uint_eq(fq.edns.num_opts,
				ldns_pkt_edns_data(lp) ? 1 : 0);
		}
		/* the question as sent keeps its case */
		ck_assert_int_eq(memcmp(wire + fq.qname_off, ldns_rdf_data(
			ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(lp),
			0))), fq.qinfo.qname_len), 0);
		free(wire);
		ldns_pkt_free(lp);
		ldns_rdf_deep_free(dn);
	}
}
END_TEST

/** an error reply, read back with ldns */
START_TEST(test_error_reply)
{
	struct fast_query fq;
	uint8_t out[512];
	int n;
	ldns_pkt *lp = NULL;
	ldns_rdf *qn;
	uint8_t *ed;
	ck_assert_int_eq(dns_query_parse_fast(q_edns, sizeof(q_edns), &fq), 0);
	n = dns_build_error_reply(q_edns, sizeof(q_edns), &fq,
		DNS_RCODE_SERVFAIL, 1, DNS_EDE_NO_REACHABLE_AUTHORITY,
		"all servers timed out", 1232, out, sizeof(out));
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(ldns_wire2pkt(&lp, out, (size_t)n), LDNS_STATUS_OK);
	ck_assert_uint_eq(ldns_pkt_id(lp), 0x1234);
	ck_assert_int_eq(ldns_pkt_qr(lp), 1);
	ck_assert_int_eq(ldns_pkt_rd(lp), 1);
	ck_assert_int_eq(ldns_pkt_ra(lp), 1);
	ck_assert_int_eq(ldns_pkt_cd(lp), 0);
	ck_assert_int_eq(ldns_pkt_get_rcode(lp), LDNS_RCODE_SERVFAIL);
	ck_assert_uint_eq(ldns_pkt_qdcount(lp), 1);
	qn = ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(lp), 0));
	ck_assert_int_eq(memcmp(ldns_rdf_data(qn), q_edns + 12, 17), 0);
	ck_assert_int_eq(ldns_pkt_edns(lp), 1);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(lp), 1232);
	ck_assert_int_eq(ldns_pkt_edns_do(lp), 1);
	ck_assert_ptr_nonnull(ldns_pkt_edns_data(lp));
	ed = ldns_rdf_data(ldns_pkt_edns_data(lp));
	/* one option: EDE, 2 + text */
	ck_assert_uint_eq(ldns_rdf_size(ldns_pkt_edns_data(lp)), 4 + 2 + 21);
	ck_assert_uint_eq(dns_read_u16(ed), DNS_EDNS_EDE);
	ck_assert_uint_eq(dns_read_u16(ed + 2), 23);
	ck_assert_uint_eq(dns_read_u16(ed + 4), 22);
	ck_assert_int_eq(memcmp(ed + 6, "all servers timed out", 21), 0);
	ldns_pkt_free(lp);

	/* without EDNS in the query: no OPT in the reply; REFUSED */
	{
		uint8_t q[33];
		memcpy(q, q_edns, 33);
		q[11] = 0;
		ck_assert_int_eq(dns_query_parse_fast(q, 33, &fq), 0);
		n = dns_build_error_reply(q, 33, &fq, DNS_RCODE_REFUSED, 0,
			DNS_EDE_PROHIBITED, NULL, 1232, out, sizeof(out));
		ck_assert_int_eq(n, 33);
		ck_assert_uint_eq(dns_hdr_arcount(out), 0);
		ck_assert_int_eq(dns_hdr_rcode(out), DNS_RCODE_REFUSED);
		ck_assert_int_eq(dns_hdr_flags(out) & DNS_FLAG_RA, 0);
		ck_assert_int_eq(memcmp(out + 12, q + 12, 21), 0);
	}
	/* a broken query: FORMERR with the header only */
	{
		uint8_t q[20];
		memcpy(q, q_edns, 20);
		ck_assert_int_eq(dns_query_parse_fast(q, 20, &fq),
			DNS_ERR_TRUNCATED);
		n = dns_build_error_reply(q, 20, &fq, DNS_RCODE_FORMERR, 1,
			-1, NULL, 1232, out, sizeof(out));
		ck_assert_int_eq(n, 12);
		ck_assert_uint_eq(dns_hdr_id(out), 0x1234);
		ck_assert_uint_eq(dns_hdr_qdcount(out), 0);
		ck_assert_int_eq(dns_hdr_rcode(out), DNS_RCODE_FORMERR);
		ck_assert_int_eq(dns_hdr_flags(out) & DNS_FLAG_QR, DNS_FLAG_QR);
		ck_assert_int_eq(dns_hdr_flags(out) & DNS_FLAG_RD, DNS_FLAG_RD);
	}
	/* EDNS version 1: BADVERS (16: header 0, OPT ext-rcode 1) */
	{
		uint8_t q[sizeof(q_edns)];
		memcpy(q, q_edns, sizeof(q));
		q[39] = 1;
		ck_assert_int_eq(dns_query_parse_fast(q, sizeof(q), &fq), 0);
		ck_assert_int_eq(fq.edns.version, 1);
		n = dns_build_error_reply(q, sizeof(q), &fq,
			DNS_RCODE_SERVFAIL, 1, -1, NULL, 1232, out, sizeof(out));
		ck_assert_int_gt(n, 0);
		ck_assert_int_eq(dns_hdr_rcode(out), 0);
		ck_assert_int_eq(out[n - 11 + 5], 1); /* ext rcode */
		ck_assert_int_eq(ldns_wire2pkt(&lp, out, (size_t)n),
			LDNS_STATUS_OK);
		ck_assert_int_eq(ldns_pkt_edns_extended_rcode(lp), 1);
		ldns_pkt_free(lp);
	}
	/* output too small */
	ck_assert_int_eq(dns_query_parse_fast(q_edns, sizeof(q_edns), &fq), 0);
	ck_assert_int_eq(dns_build_error_reply(q_edns, sizeof(q_edns), &fq,
		DNS_RCODE_SERVFAIL, 1, 3, "stale", 1232, out, 40), -1);
}
END_TEST

static Suite *
query_suite(void)
{
	Suite *s = suite_create("dns_query");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_parse_typical);
	tcase_add_test(tc, test_opt_find);
	tcase_add_test(tc, test_hash);
	tcase_add_test(tc, test_hash_spread);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_ldns_queries);
	tcase_add_test(tc, test_error_reply);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(query_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
