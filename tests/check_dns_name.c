/*
 * tests/check_dns_name.c - Check suite for dns/name: validation, case,
 * comparison, canonical order, subdomains, label counts, presentation
 * format both ways, and reading compressed names out of packets.
 * Presentation-format results are cross-checked against ldns.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <check.h>
#include "tests/testutil.h"
#include <ldns/ldns.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

START_TEST(test_from_str_basic)
{
	uint8_t d[DNS_MAX_NAME];
	size_t n;
	n = tu_name("www.Example.com.", d);
	ck_assert_uint_eq(n, 17);
	ck_assert_int_eq(memcmp(d, "\003www\007Example\003com\000", 17), 0);
	ck_assert_uint_eq(tu_name("www.Example.com", d), 17); /* no trailing dot */
	ck_assert_uint_eq(tu_name(".", d), 1);
	ck_assert_int_eq(d[0], 0);
	ck_assert_uint_eq(tu_name("", d), 1);
	n = tu_name("a\\.b.c", d);
	ck_assert_int_eq(memcmp(d, "\003a.b\001c\000", n), 0);
	n = tu_name("\\065\\000x\\255.", d);
	ck_assert_uint_eq(n, 6);
	ck_assert_int_eq(memcmp(d, "\004A\000x\377\000", 6), 0);
	n = tu_name("\\\\.\\ ", d);
	ck_assert_int_eq(memcmp(d, "\001\\\001 \000", n), 0);
}
END_TEST

START_TEST(test_from_str_errors)
{
	uint8_t d[DNS_MAX_NAME];
	char buf[600];
	size_t n;
	int i;
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str("a..b", d, &n), DNS_ERR_SYNTAX);
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str(".a", d, &n), DNS_ERR_SYNTAX);
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str("a\\", d, &n), DNS_ERR_SYNTAX);
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str("a\\25", d, &n), DNS_ERR_SYNTAX);
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str("a\\256", d, &n), DNS_ERR_SYNTAX);
	/* label of 63 fine, 64 not */
	memset(buf, 'x', 63);
	buf[63] = 0;
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str(buf, d, &n), 0);
	ck_assert_uint_eq(n, 65);
	buf[63] = 'x';
	buf[64] = 0;
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str(buf, d, &n), DNS_ERR_LABEL_TOO_LONG);
	/* 255 octets fine: 4 labels of 62 (63 each with length) + 1 + root
	 * = 252+2+1 = 255 with a last label "x" */
	buf[0] = 0;
	for(i = 0; i < 4; i++) {
		memset(buf + strlen(buf), 'a', 62);
		buf[(i + 1) * 63 - 1] = '.';
		buf[(i + 1) * 63] = 0;
	}
	strcat(buf, "x");
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str(buf, d, &n), 0);
	ck_assert_uint_eq(n, 255);
	strcat(buf, "y"); /* 256 */
	n = sizeof(d);
	ck_assert_int_eq(dname_from_str(buf, d, &n), DNS_ERR_NAME_TOO_LONG);
	/* small output buffers */
	n = 5;
	ck_assert_int_eq(dname_from_str("abcdef.", d, &n), DNS_ERR_NOSPACE);
	n = 0;
	ck_assert_int_eq(dname_from_str(".", d, &n), DNS_ERR_NOSPACE);
	n = 0;
	ck_assert_int_eq(dname_from_str("a", d, &n), DNS_ERR_NOSPACE);
	n = 2;
	ck_assert_int_eq(dname_from_str("a", d, &n), DNS_ERR_NOSPACE);
	n = 2;
	ck_assert_int_eq(dname_from_str("a.b", d, &n), DNS_ERR_NOSPACE);
	n = 3;
	ck_assert_int_eq(dname_from_str("a", d, &n), 0);
	ck_assert_uint_eq(n, 3);
}
END_TEST

START_TEST(test_to_str)
{
	uint8_t d[DNS_MAX_NAME];
	char s[DNS_MAX_NAME_STR];
	tu_name("www.example.com", d);
	ck_assert_int_eq(dname_to_str(d, s, sizeof(s)), 16);
	ck_assert_str_eq(s, "www.example.com.");
	d[0] = 0;
	ck_assert_int_eq(dname_to_str(d, s, sizeof(s)), 1);
	ck_assert_str_eq(s, ".");
	memcpy(d, "\005a.b\\\200\003c d\000", 11);
	dname_to_str(d, s, sizeof(s));
	ck_assert_str_eq(s, "a\\.b\\\\\\128.c\\ d.");
	/* too small */
	tu_name("www.example.com", d);
	ck_assert_int_eq(dname_to_str(d, s, 16), -1);
	ck_assert_int_eq(dname_to_str(d, s, 17), 16);
	d[0] = 0;
	ck_assert_int_eq(dname_to_str(d, s, 1), -1);
	memcpy(d, "\002.\200\000", 5);
	ck_assert_int_eq(dname_to_str(d, s, 7), -1); /* \. \128 . NUL = 8 */
	ck_assert_int_eq(dname_to_str(d, s, 8), 7);
	ck_assert_str_eq(s, "\\.\\128.");
	ck_assert_int_eq(dname_to_str(d, s, 3), -1);
}
END_TEST

/** random names with every octet value survive to_str/from_str, and
 * ldns reads our string as the same wire name */
START_TEST(test_str_roundtrip_ldns)
{
	int iter;
	srandom(1234);
	for(iter = 0; iter < 2000; iter++) {
		uint8_t d[DNS_MAX_NAME], back[DNS_MAX_NAME];
		char s[DNS_MAX_NAME_STR];
		size_t n = 0, blen = sizeof(back);
		int labels = (int)(random() % 6), i, j;
		ldns_rdf *rdf = NULL;
		for(i = 0; i < labels; i++) {
			int l = 1 + (int)(random() % 20);
			d[n++] = (uint8_t)l;
			for(j = 0; j < l; j++)
				d[n++] = (uint8_t)(random() % 4 == 0 ?
					random() % 256 : 'a' + random() % 26);
		}
		d[n++] = 0;
		ck_assert_int_gt(dname_to_str(d, s, sizeof(s)), 0);
		ck_assert_int_eq(dname_from_str(s, back, &blen), 0);
		ck_assert_uint_eq(blen, n);
		ck_assert_int_eq(memcmp(back, d, n), 0);
		ck_assert_int_eq(ldns_str2rdf_dname(&rdf, s), LDNS_STATUS_OK);
		ck_assert_uint_eq(ldns_rdf_size(rdf), n);
		ck_assert_int_eq(memcmp(ldns_rdf_data(rdf), d, n), 0);
		ldns_rdf_deep_free(rdf);
	}
}
END_TEST

START_TEST(test_valid)
{
	uint8_t d[300];
	size_t i;
	ck_assert_uint_eq(dname_valid((const uint8_t *)"\003com\000", 5), 5);
	ck_assert_uint_eq(dname_valid((const uint8_t *)"\003com\000", 4), 0);
	ck_assert_uint_eq(dname_valid((const uint8_t *)"\300\014", 2), 0);
	ck_assert_uint_eq(dname_valid((const uint8_t *)"\100ab", 3), 0);
	/* label 64 */
	d[0] = 64;
	memset(d + 1, 'a', 64);
	d[65] = 0;
	ck_assert_uint_eq(dname_valid(d, sizeof(d)), 0);
	/* 256 octets */
	for(i = 0; i < 4; i++) {
		d[i * 64] = 63;
		memset(d + i * 64 + 1, 'a', 63);
	}
	d[256] = 0;
	ck_assert_uint_eq(dname_valid(d, sizeof(d)), 0);
	d[192] = 61; /* now 192 + 62 + root = 255 */
	d[254] = 0;
	ck_assert_uint_eq(dname_valid(d, sizeof(d)), 255);
	ck_assert_uint_eq(dname_len(d), 255);
}
END_TEST

START_TEST(test_case_and_equal)
{
	uint8_t a[DNS_MAX_NAME], b[DNS_MAX_NAME], c[DNS_MAX_NAME];
	tu_name("WWW.ExAmple.COM", a);
	tu_name("www.example.com", b);
	ck_assert_int_eq(dname_equal(a, b), 1);
	ck_assert_uint_eq(dname_copy_lower(c, a), 17);
	ck_assert_int_eq(memcmp(c, b, 17), 0);
	dname_tolower(a);
	ck_assert_int_eq(memcmp(a, b, 17), 0);
	tu_name("www.example.co", c);
	ck_assert_int_eq(dname_equal(b, c), 0);
	tu_name("www.example.con", c);
	ck_assert_int_eq(dname_equal(b, c), 0);
	/* [ and { differ from their upper case neighbours: no folding */
	tu_name("a[", a);
	tu_name("a{", b);
	ck_assert_int_eq(dname_equal(a, b), 0);
	/* octets above 127 are not folded */
	memcpy(a, "\001\301\000", 3);
	memcpy(b, "\001\341\000", 3);
	ck_assert_int_eq(dname_equal(a, b), 0);
}
END_TEST

START_TEST(test_canon_order)
{
	/* the example list of RFC 4034 section 6.1, in order */
	static const char *const order[] = {
		"example.", "a.example.", "yljkjljk.a.example.",
		"Z.a.example.", "zABC.a.EXAMPLE.", "z.example.",
		"\\001.z.example.", "*.z.example.", "\\200.z.example."
	};
	size_t i, j, n = sizeof(order) / sizeof(order[0]);
	for(i = 0; i < n; i++) {
		for(j = 0; j < n; j++) {
			uint8_t a[DNS_MAX_NAME], b[DNS_MAX_NAME];
			int r;
			tu_name(order[i], a);
			tu_name(order[j], b);
			r = dname_canon_cmp(a, b);
			if(i < j)
				ck_assert_msg(r < 0, "%s < %s", order[i],
					order[j]);
			else if(i > j)
				ck_assert_msg(r > 0, "%s > %s", order[i],
					order[j]);
			else
				ck_assert_int_eq(r, 0);
		}
	}
}
END_TEST

/** canonical order agrees with ldns_dname_compare on random names */
START_TEST(test_canon_order_ldns)
{
	static const char *const labels[] = { "a", "A", "b", "ab", "aB",
		"z", "\\000", "\\255", "-", "0", "www", "mail" };
	int iter;
	srandom(42);
	for(iter = 0; iter < 3000; iter++) {
		char s1[200], s2[200];
		uint8_t a[DNS_MAX_NAME], b[DNS_MAX_NAME];
		ldns_rdf *ra = NULL, *rb = NULL;
		int i, k, r, lr;
		s1[0] = s2[0] = 0;
		k = (int)(random() % 4);
		for(i = 0; i < k; i++) {
			strcat(s1, labels[random() % 12]);
			strcat(s1, ".");
		}
		k = (int)(random() % 4);
		for(i = 0; i < k; i++) {
			strcat(s2, labels[random() % 12]);
			strcat(s2, ".");
		}
		if(!s1[0]) strcpy(s1, ".");
		if(!s2[0]) strcpy(s2, ".");
		tu_name(s1, a);
		tu_name(s2, b);
		ck_assert_int_eq(ldns_str2rdf_dname(&ra, s1), LDNS_STATUS_OK);
		ck_assert_int_eq(ldns_str2rdf_dname(&rb, s2), LDNS_STATUS_OK);
		r = dname_canon_cmp(a, b);
		lr = ldns_dname_compare(ra, rb);
		ck_assert_msg((r < 0) == (lr < 0) && (r > 0) == (lr > 0),
			"%s vs %s: petrel %d ldns %d", s1, s2, r, lr);
		ldns_rdf_deep_free(ra);
		ldns_rdf_deep_free(rb);
	}
}
END_TEST

START_TEST(test_labels_subdomain)
{
	uint8_t a[DNS_MAX_NAME], b[DNS_MAX_NAME], root[1] = { 0 };
	const uint8_t *p;
	tu_name("a.b.example.com", a);
	tu_name("EXAMPLE.com", b);
	ck_assert_int_eq(dname_count_labels(a), 4);
	ck_assert_int_eq(dname_count_labels(root), 0);
	ck_assert_int_eq(dname_is_subdomain(a, b), 1);
	ck_assert_int_eq(dname_is_strict_subdomain(a, b), 1);
	ck_assert_int_eq(dname_is_subdomain(b, a), 0);
	ck_assert_int_eq(dname_is_subdomain(b, b), 1);
	ck_assert_int_eq(dname_is_strict_subdomain(b, b), 0);
	ck_assert_int_eq(dname_is_subdomain(a, root), 1);
	ck_assert_int_eq(dname_is_subdomain(root, root), 1);
	ck_assert_int_eq(dname_is_subdomain(root, b), 0);
	/* label boundary: aexample.com is not under example.com */
	tu_name("aexample.com", a);
	ck_assert_int_eq(dname_is_subdomain(a, b), 0);
	tu_name("a.b.example.com", a);
	p = dname_strip_label(a);
	ck_assert_int_eq(dname_count_labels(p), 3);
	ck_assert_int_eq(p[0], 1);
	ck_assert_int_eq(p[1], 'b');
	ck_assert_ptr_eq(dname_strip_label(root), root);
	p = dname_suffix_labels(a, 2);
	ck_assert_int_eq(dname_equal(p, b), 1);
	ck_assert_ptr_eq(dname_suffix_labels(a, 9), a);
	tu_name("x.y.Example.COM", b);
	ck_assert_int_eq(dname_common_labels(a, b), 2);
	tu_name("b.example.org", b);
	ck_assert_int_eq(dname_common_labels(a, b), 0);
	ck_assert_int_eq(dname_common_labels(a, a), 4);
	ck_assert_int_eq(dname_common_labels(a, root), 0);
	/* same text, different label split */
	tu_name("ab.c", a);
	tu_name("a.bc", b);
	ck_assert_int_eq(dname_common_labels(a, b), 0);
	ck_assert_int_eq(dname_equal(a, b), 0);
}
END_TEST

START_TEST(test_pkt_read)
{
	/* header, then "www.example.com" at 12, "mail" + ptr to example.com
	 * at 29 */
	uint8_t pkt[64];
	uint8_t out[DNS_MAX_NAME], exp[DNS_MAX_NAME];
	size_t pos, n, len;
	memset(pkt, 0, 12);
	memcpy(pkt + 12, "\003www\007Example\003com\000", 17);
	memcpy(pkt + 29, "\004mail\300\020", 7);
	len = 36;
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, len, &pos, out, &n), 0);
	ck_assert_uint_eq(pos, 36);
	tu_name("mail.Example.com", exp);
	ck_assert_uint_eq(n, 18);
	ck_assert_int_eq(memcmp(out, exp, n), 0);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read_lower(pkt, len, &pos, out, &n), 0);
	tu_name("mail.example.com", exp);
	ck_assert_int_eq(memcmp(out, exp, n), 0);
	/* checking only */
	pos = 12;
	ck_assert_int_eq(dname_pkt_read(pkt, len, &pos, NULL, NULL), 0);
	ck_assert_uint_eq(pos, 29);
	/* equality across compression */
	tu_name("example.com", exp);
	ck_assert_int_eq(dname_pkt_equal(pkt, len, 16, 34), 1);
	ck_assert_int_eq(dname_pkt_equal(pkt, len, 12, 29), 0);
	ck_assert_int_eq(dname_pkt_equal_wire(pkt, len, 34, exp), 1);
	ck_assert_int_eq(dname_pkt_equal_wire(pkt, len, 29, exp), 0);
	/* truncated in the middle of a label and of a pointer */
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 33, &pos, out, &n),
		DNS_ERR_TRUNCATED);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 35, &pos, out, &n),
		DNS_ERR_TRUNCATED);
	/* pointer to itself */
	memcpy(pkt + 29, "\300\035", 2);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 31, &pos, out, &n),
		DNS_ERR_POINTER_LOOP);
	/* forward pointer */
	memcpy(pkt + 29, "\300\040", 2);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 40, &pos, out, &n),
		DNS_ERR_BAD_POINTER);
	/* pointer past the end */
	memcpy(pkt + 29, "\377\377", 2);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 31, &pos, out, &n),
		DNS_ERR_BAD_POINTER);
	/* a loop through two pointers: 12: "\001a" ptr->29; 29: ptr->12 */
	memcpy(pkt + 12, "\001a\300\035", 4);
	memcpy(pkt + 29, "\300\014", 2);
	pos = 29;
	ck_assert_int_eq(dname_pkt_read(pkt, 31, &pos, out, &n),
		DNS_ERR_BAD_POINTER);
	pos = 12;
	ck_assert_int_eq(dname_pkt_read(pkt, 31, &pos, out, &n),
		DNS_ERR_BAD_POINTER);
	/* a back-pointer into the same run: 12: "\001a" ptr->12 */
	memcpy(pkt + 12, "\001a\300\014", 4);
	pos = 12;
	ck_assert_int_eq(dname_pkt_read(pkt, 16, &pos, out, &n),
		DNS_ERR_POINTER_LOOP);
	/* reserved label types */
	pkt[12] = 0x40;
	pos = 12;
	ck_assert_int_eq(dname_pkt_read(pkt, 16, &pos, out, &n),
		DNS_ERR_BAD_LABEL);
	pkt[12] = 0x80;
	pos = 12;
	ck_assert_int_eq(dname_pkt_read(pkt, 16, &pos, out, &n),
		DNS_ERR_BAD_LABEL);
}
END_TEST

/** a long chain of pointers, each one label long, and names over 255
 * built through compression */
START_TEST(test_pkt_read_limits)
{
	uint8_t pkt[2048], out[DNS_MAX_NAME];
	size_t pos, n, p = 12, i;
	memset(pkt, 0, 12);
	/* 12: "\001a\000"; then 120 names "\001a" + pointer to the previous */
	memcpy(pkt + p, "\001a\000", 3);
	p += 3;
	for(i = 0; i < 120; i++) {
		size_t prev = p - (i == 0 ? 3 : 4);
		pkt[p] = 1;
		pkt[p + 1] = 'a';
		pkt[p + 2] = (uint8_t)(0xc0 | (prev >> 8));
		pkt[p + 3] = (uint8_t)prev;
		p += 4;
	}
	/* the 60th link: 61 labels, 61 pointers - fine */
	pos = 12 + 3 + 4 * 59;
	ck_assert_int_eq(dname_pkt_read(pkt, p, &pos, out, &n), 0);
	ck_assert_uint_eq(n, 61 * 2 + 1);
	/* the 100th: more than DNAME_MAX_POINTERS */
	pos = 12 + 3 + 4 * 99;
	ck_assert_int_eq(dname_pkt_read(pkt, p, &pos, out, &n),
		DNS_ERR_TOO_MANY_POINTERS);
	/* long labels through pointers: 4 x 63 + pointers exceed 255 */
	p = 12;
	memset(pkt + p, 0, 1);
	p = 13;
	for(i = 0; i < 5; i++) {
		size_t prev = i == 0 ? 12 : p - 66;
		pkt[p] = 63;
		memset(pkt + p + 1, 'b', 63);
		pkt[p + 64] = (uint8_t)(0xc0 | (prev >> 8));
		pkt[p + 65] = (uint8_t)prev;
		p += 66;
	}
	pos = 13 + 66 * 2; /* three labels: 193 octets, fine */
	ck_assert_int_eq(dname_pkt_read(pkt, p, &pos, out, &n), 0);
	ck_assert_uint_eq(n, 193);
	pos = 13 + 66 * 4; /* five labels: 321 octets */
	ck_assert_int_eq(dname_pkt_read(pkt, p, &pos, out, &n),
		DNS_ERR_NAME_TOO_LONG);
}
END_TEST

START_TEST(test_constant_names)
{
	char buf[16];
	int i, j;
	ck_assert_str_eq(dns_type_str(DNS_TYPE_AAAA, buf, sizeof(buf)), "AAAA");
	ck_assert_str_eq(dns_type_str(65280, buf, sizeof(buf)), "TYPE65280");
	ck_assert_int_eq(dns_type_from_str("nsec3param"), DNS_TYPE_NSEC3PARAM);
	ck_assert_int_eq(dns_type_from_str("TYPE99"), 99);
	ck_assert_int_eq(dns_type_from_str("TYPE65536"), -1);
	ck_assert_int_eq(dns_type_from_str("bogus"), -1);
	ck_assert_str_eq(dns_class_str(DNS_CLASS_CH), "CH");
	ck_assert_ptr_null(dns_class_str(77));
	ck_assert_str_eq(dns_rcode_str(DNS_RCODE_SERVFAIL), "SERVFAIL");
	ck_assert_str_eq(dns_rcode_str(DNS_RCODE_BADVERS), "BADVERS");
	ck_assert_ptr_null(dns_rcode_str(12));
	ck_assert_str_eq(dns_ede_str(DNS_EDE_STALE_ANSWER), "Stale Answer");
	ck_assert_str_eq(dns_ede_str(DNS_EDE_NETWORK_ERROR), "Network Error");
	/* every parse error has its own description */
	for(i = 0; i < DNS_ERR_MAX; i++) {
		ck_assert_str_ne(dns_parse_err_str(i), "unknown error");
		for(j = 0; j < i; j++)
			ck_assert_str_ne(dns_parse_err_str(i),
				dns_parse_err_str(j));
	}
	ck_assert_str_eq(dns_parse_err_str(DNS_ERR_MAX), "unknown error");
}
END_TEST

static Suite *
name_suite(void)
{
	Suite *s = suite_create("dns_name");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_from_str_basic);
	tcase_add_test(tc, test_from_str_errors);
	tcase_add_test(tc, test_to_str);
	tcase_add_test(tc, test_str_roundtrip_ldns);
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_case_and_equal);
	tcase_add_test(tc, test_canon_order);
	tcase_add_test(tc, test_canon_order_ldns);
	tcase_add_test(tc, test_labels_subdomain);
	tcase_add_test(tc, test_pkt_read);
	tcase_add_test(tc, test_pkt_read_limits);
	tcase_add_test(tc, test_constant_names);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(name_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
