/*
 * tests/check_dns_parse.c - Check suite for dns/msgparse.
 *
 * - the crafted packets of testdata/packets/ (listed with their expected
 *   results in testdata/packets/EXPECT) give exactly the expected reason
 *   codes from the full and the fast parser, and ldns agrees or disagrees
 *   as recorded; where both accept, every field matches;
 * - a few thousand random messages written by ldns over many RR types are
 *   parsed by petrel and by ldns and compared field by field, and every
 *   proper prefix of each is rejected;
 * - RRset grouping, name helpers, the region path for large messages.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "util/region.h"
#include "tests/check_dns_gen.h"
#include <check.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef PACKET_DIR
#define PACKET_DIR "testdata/packets"
#endif

/** map a symbolic reason as written in EXPECT to its code */
static int
err_code(const char *s)
{
	static const char *const names[] = { "OK", "TRUNCATED", "BAD_LABEL",
		"LABEL_TOO_LONG", "NAME_TOO_LONG", "POINTER_LOOP",
		"BAD_POINTER", "TOO_MANY_POINTERS", "POINTER_NOT_ALLOWED",
		"BAD_OPT", "OPT_NOT_ADDITIONAL", "OPT_TWICE", "NOT_QUERY",
		"QDCOUNT", "BAD_RDATA", "TOO_MANY_RRS", "MSG_TOO_LONG",
		"TRAILING", "SYNTAX", "NOSPACE", "NOMEM" };
	int i;
	ck_assert_int_eq((int)(sizeof(names) / sizeof(names[0])), DNS_ERR_MAX);
	for(i = 0; i < DNS_ERR_MAX; i++)
		if(strcmp(s, names[i]) == 0)
			return i;
	ck_abort_msg("unknown reason %s in EXPECT", s);
	return -1;
}

/** read a file; return its length or -1 */
static long
read_file(const char *path, uint8_t *buf, size_t max)
{
	FILE *f = fopen(path, "rb");
	size_t n;
	if(!f)
		return -1;
	n = fread(buf, 1, max, f);
	fclose(f);
	return (long)n;
}

START_TEST(test_crafted_packets)
{
	char line[256], path[512];
	FILE *f = fopen(PACKET_DIR "/EXPECT", "r");
	int count = 0, compared = 0;
	struct region *region = region_create(0);
	ck_assert_msg(f != NULL, "cannot open %s/EXPECT", PACKET_DIR);
	while(fgets(line, sizeof(line), f)) {
		char nm[128], full[64], fast[64];
		int ldns_ok, r;
		static uint8_t pkt[70000];
		long len;
		struct dns_msg msg;
		struct fast_query fq;
		ldns_pkt *lp = NULL;
		if(line[0] == '#' || line[0] == '\n')
			continue;
		ck_assert_int_eq(sscanf(line, "%127s %63s %63s %d", nm, full,
			fast, &ldns_ok), 4);
		snprintf(path, sizeof(path), "%s/%s.bin", PACKET_DIR, nm);
		len = read_file(path, pkt, sizeof(pkt));
		ck_assert_msg(len >= 0, "cannot read %s", path);
		r = dns_msg_parse(pkt, (size_t)len, &msg, region, 0);
		ck_assert_msg(r == err_code(full), "%s: full parse %s, want %s",
			nm, dns_parse_err_str(r), full);
		r = dns_query_parse_fast(pkt, (size_t)len, &fq);
		ck_assert_msg(r == err_code(fast), "%s: fast parse %s, want %s",
			nm, dns_parse_err_str(r), fast);
		r = ldns_wire2pkt(&lp, pkt, (size_t)len) == LDNS_STATUS_OK;
		ck_assert_msg(r == ldns_ok, "%s: ldns %s, EXPECT says %s", nm,
			r ? "accepts" : "rejects", ldns_ok ? "accepts" :
			"rejects");
		if(r && err_code(full) == 0) {
			char why[200];
			ck_assert_msg(testgen_compare(&msg, lp, why,
				sizeof(why)) == 0, "%s: %s", nm, why);
			compared++;
		}
		if(lp)
			ldns_pkt_free(lp);
		region_free_all(region);
		count++;
	}
	fclose(f);
	region_destroy(region);
	ck_assert_int_ge(count, 40);
	ck_assert_int_ge(compared, 10);
}
END_TEST

START_TEST(test_ldns_generated)
{
	int iter, compared = 0, types_seen = 0;
	static int seen[65536];
	struct region *region = region_create(0);
	srandom(2026);
	memset(seen, 0, sizeof(seen));
	for(iter = 0; iter < 3000; iter++) {
		ldns_pkt *lp = testgen_packet(), *lp2 = NULL;
		uint8_t *wire = NULL;
		size_t wlen = 0, cut;
		struct dns_msg msg;
		char why[200];
		int r;
		size_t i;
		ck_assert_int_eq(ldns_pkt2wire(&wire, lp, &wlen),
			LDNS_STATUS_OK);
		ck_assert_int_eq(ldns_wire2pkt(&lp2, wire, wlen),
			LDNS_STATUS_OK);
		r = dns_msg_parse(wire, wlen, &msg, region,
			DNS_PARSE_STRICT_TRAILING);
		ck_assert_msg(r == 0, "packet %d: %s", iter,
			dns_parse_err_str(r));
		ck_assert_msg(testgen_compare(&msg, lp2, why, sizeof(why)) == 0,
			"packet %d: %s", iter, why);
		for(i = 0; i < msg.rr_count; i++) {
			if(!seen[msg.rrs[i].type])
				types_seen++;
			seen[msg.rrs[i].type] = 1;
		}
		compared++;
		/* every proper prefix is rejected, and nothing reads past it
		 * (run under --enable-sanitizers to have that checked); the
		 * prefix is copied to a buffer of exactly its size */
		for(cut = 0; cut < wlen; cut += (iter % 7) + 1) {
			uint8_t *c = malloc(cut ? cut : 1);
			memcpy(c, wire, cut);
			r = dns_msg_parse(c, cut, &msg, region, 0);
			ck_assert_msg(r != 0, "packet %d prefix %u accepted",
				iter, (unsigned)cut);
			free(c);
		}
		free(wire);
		ldns_pkt_free(lp);
		ldns_pkt_free(lp2);
		region_free_all(region);
	}
	region_destroy(region);
	ck_assert_int_eq(compared, 3000);
	/* the templates cover many types */
	ck_assert_int_ge(types_seen, testgen_num_templates() - 4);
}
END_TEST

/** build a response by hand: answer with interleaved RRsets */
static size_t
grouping_packet(uint8_t *p)
{
	static const uint8_t pkt[] = {
		0xab, 0xcd, 0x81, 0x80, 0, 1, 0, 5, 0, 1, 0, 0,
		/* 12: question example.com A */
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
		0, 1, 0, 1,
		/* 29: example.com A 1.2.3.4 ttl 300 */
		0xc0, 12, 0, 1, 0, 1, 0, 0, 1, 0x2c, 0, 4, 1, 2, 3, 4,
		/* 45: WWW.example.com A 5.6.7.8 */
		3, 'W', 'W', 'W', 0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4,
		5, 6, 7, 8,
		/* 65: EXAMPLE.COM A 9.9.9.9 ttl 100, case differs */
		7, 'E', 'X', 'A', 'M', 'P', 'L', 'E', 3, 'C', 'O', 'M', 0,
		0, 1, 0, 1, 0, 0, 0, 100, 0, 4, 9, 9, 9, 9,
		/* 92: example.com RRSIG covering A (short but valid) */
		0xc0, 12, 0, 46, 0, 1, 0, 0, 1, 0x2c, 0, 19,
		0, 1, 8, 2, 0, 0, 1, 0x2c, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1,
		0,
		/* 123: www.example.com CNAME -> example.com, rdata pointer */
		0xc0, 45, 0, 5, 0, 1, 0, 0, 0, 60, 0, 2, 0xc0, 12,
		/* 137: authority example.com NS www.example.com */
		0xc0, 12, 0, 2, 0, 1, 0, 0, 14, 16, 0, 2, 0xc0, 45
	};
	memcpy(p, pkt, sizeof(pkt));
	return sizeof(pkt);
}

START_TEST(test_grouping)
{
	uint8_t p[200], nm[DNS_MAX_NAME], exp[DNS_MAX_NAME];
	size_t len = grouping_packet(p), n, cnt, el = sizeof(exp);
	struct dns_msg msg;
	struct dns_rrset sets[10];
	struct dns_rr *an;
	int ns;
	ck_assert_int_eq(dns_msg_parse(p, len, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING), 0);
	ck_assert_uint_eq(msg.rr_count, 6);
	an = dns_msg_section(&msg, DNS_SEC_ANSWER, &cnt);
	ck_assert_uint_eq(cnt, 5);
	ck_assert_uint_eq(an[3].covered, DNS_TYPE_A);
	ck_assert_uint_eq(an[0].ttl_off, 35);
	ck_assert_uint_eq(an[0].rdata_off, 41);
	ck_assert_uint_eq(an[0].rdlen, 4);
	ns = dns_msg_group_rrsets(&msg, sets, 10);
	ck_assert_int_eq(ns, 5);
	/* set 0: example.com A, two RRs (29 and 65), min ttl 100 */
	ck_assert_uint_eq(sets[0].type, DNS_TYPE_A);
	ck_assert_uint_eq(sets[0].count, 2);
	ck_assert_uint_eq(sets[0].first, 0);
	ck_assert_uint_eq(msg.rrs[0].next, 2);
	ck_assert_uint_eq(msg.rrs[2].next, DNS_RR_NONE);
	ck_assert_uint_eq(sets[0].min_ttl, 100);
	ck_assert_uint_eq(sets[1].first, 1);
	ck_assert_uint_eq(sets[1].count, 1);
	ck_assert_uint_eq(sets[2].type, DNS_TYPE_RRSIG);
	ck_assert_uint_eq(sets[2].covered, DNS_TYPE_A);
	ck_assert_uint_eq(sets[3].type, DNS_TYPE_CNAME);
	ck_assert_uint_eq(sets[4].section, DNS_SEC_AUTHORITY);
	ck_assert_int_eq(dns_msg_group_rrsets(&msg, sets, 4), -1);
	/* names */
	n = dns_rr_owner(&msg, &msg.rrs[1], nm);
	dname_from_str("WWW.example.com", exp, &el);
	ck_assert_uint_eq(n, el);
	ck_assert_int_eq(memcmp(nm, exp, n), 0);
	n = dns_rr_rdata_name(&msg, &msg.rrs[5], nm);
	ck_assert_uint_eq(n, el);
	ck_assert_int_eq(memcmp(nm, exp, n), 0);
	n = dns_rr_rdata_name(&msg, &msg.rrs[3], nm); /* RRSIG signer: root */
	ck_assert_uint_eq(n, 1);
	ck_assert_uint_eq(dns_rr_rdata_name(&msg, &msg.rrs[0], nm), 0);
	ck_assert_int_eq(dns_rr_rdata_uncompressed(&msg, &msg.rrs[4], nm,
		sizeof(nm)), 13);
	ck_assert_int_eq(memcmp(nm, p + 12, 13), 0);
	ck_assert_int_eq(dns_rr_rdata_uncompressed(&msg, &msg.rrs[4], nm, 12),
		-1);
	/* a buffer too small for opaque RDATA; a bad name offset */
	ck_assert_int_eq(dns_rr_rdata_uncompressed(&msg, &msg.rrs[0], nm, 3),
		-1);
	ck_assert_uint_eq(dns_msg_name_at(&msg, len + 5, nm, NULL), 0);
	{
		size_t end = 0;
		ck_assert_uint_eq(dns_msg_name_at(&msg, 45, nm, &end), 17);
		ck_assert_uint_eq(end, 51);
	}
	/* longer than 65535 */
	{
		uint8_t *big = calloc(1, 70000);
		memcpy(big, p, len);
		ck_assert_int_eq(dns_msg_parse(big, 70000, &msg, NULL, 0),
			DNS_ERR_MSG_TOO_LONG);
		free(big);
	}
	/* trailing bytes */
	p[len] = 0;
	ck_assert_int_eq(dns_msg_parse(p, len + 1, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING), DNS_ERR_TRAILING);
	ck_assert_int_eq(dns_msg_parse(p, len + 1, &msg, NULL, 0), 0);
}
END_TEST

START_TEST(test_many_rrs)
{
	static uint8_t p[8000];
	size_t len = 12 + 17, i;
	struct dns_msg msg;
	struct region *region = region_create(0);
	memset(p, 0, 12);
	p[2] = 0x81;
	p[5] = 1;
	memcpy(p + 12, "\003www\007example\003com\000\000\001\000\001", 21);
	len = 33;
	for(i = 0; i < 200; i++) {
		memcpy(p + len, "\300\014\000\001\000\001\000\000\000\074\000\004",
			12);
		p[len + 12] = 10;
		p[len + 15] = (uint8_t)i;
		len += 16;
	}
	dns_hdr_set_ancount(p, 200);
	ck_assert_int_eq(dns_msg_parse(p, len, &msg, NULL, 0),
		DNS_ERR_TOO_MANY_RRS);
	ck_assert_int_eq(dns_msg_parse(p, len, &msg, region, 0), 0);
	ck_assert_uint_eq(msg.rr_count, 200);
	ck_assert_ptr_ne(msg.rrs, msg.rr_inline);
	ck_assert_uint_eq(msg.rrs[199].rdata_off, len - 4);
	{
		struct dns_rrset sets[4];
		ck_assert_int_eq(dns_msg_group_rrsets(&msg, sets, 4), 1);
		ck_assert_uint_eq(sets[0].count, 200);
	}
	region_destroy(region);
}
END_TEST

static Suite *
parse_suite(void)
{
	Suite *s = suite_create("dns_parse");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_crafted_packets);
	tcase_add_test(tc, test_ldns_generated);
	tcase_add_test(tc, test_grouping);
	tcase_add_test(tc, test_many_rrs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(parse_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
