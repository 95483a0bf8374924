/*
 * tests/check_dns64.c - the address embedding of the dns64 module (the
 * examples of RFC 6052 section 2.4) and the ip6.arpa to in-addr.arpa
 * mapping. The module's answers are shown by testdata/dns64_*.rpl.
 */
#include "config.h"
#include <check.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "dns64/dns64.h"
#include "dns/name.h"

/** RFC 6052 section 2.4: 192.0.2.33 under each prefix length */
static const struct {
	const char *prefix;
	int plen;
	const char *want;
} rfc6052[] = {
	{ "2001:db8::", 32, "2001:db8:c000:221::" },
	{ "2001:db8:100::", 40, "2001:db8:1c0:2:21::" },
	{ "2001:db8:122::", 48, "2001:db8:122:c000:2:2100::" },
	{ "2001:db8:122:300::", 56, "2001:db8:122:3c0:0:221::" },
	{ "2001:db8:122:344::", 64, "2001:db8:122:344:c0:2:2100:0" },
	{ "2001:db8:122:344::", 96, "2001:db8:122:344::c000:221" },
};

START_TEST(test_rfc6052_examples)
{
	uint8_t pfx[16], want[16], got[16], v4[4] = { 192, 0, 2, 33 }, back[4];
	size_t i;
	for(i = 0; i < sizeof(rfc6052) / sizeof(rfc6052[0]); i++) {
		ck_assert_int_eq(inet_pton(AF_INET6, rfc6052[i].prefix, pfx), 1);
		ck_assert_int_eq(inet_pton(AF_INET6, rfc6052[i].want, want), 1);
		dns64_synth_addr(pfx, rfc6052[i].plen, v4, got);
		if(memcmp(got, want, 16) != 0) {
			char b[64];
			inet_ntop(AF_INET6, got, b, sizeof(b));
			ck_abort_msg("/%d: got %s, want %s", rfc6052[i].plen, b,
				rfc6052[i].want);
		}
		ck_assert_int_eq(dns64_extract_addr(pfx, rfc6052[i].plen, got,
			back), 0);
		ck_assert_mem_eq(back, v4, 4);
	}
	/* not under the prefix */
	ck_assert_int_eq(inet_pton(AF_INET6, "64:ff9b::", pfx), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::1", got), 1);
	ck_assert_int_eq(dns64_extract_addr(pfx, 96, got, back), -1);
}
END_TEST

/** the ip6.arpa name of an address, wire */
static size_t
ip6_arpa(const char *addr, uint8_t *out)
{
	uint8_t a[16];
	char buf[128], *p = buf;
	size_t len = 256;
	int i;
	ck_assert_int_eq(inet_pton(AF_INET6, addr, a), 1);
	for(i = 15; i >= 0; i--)
		p += sprintf(p, "%x.%x.", a[i] & 0xf, a[i] >> 4);
	strcpy(p, "ip6.arpa.");
	ck_assert_int_eq(dname_from_str(buf, out, &len), 0);
	return len;
}

START_TEST(test_ptr_name)
{
	uint8_t pfx[16], name[256], out[256];
	char str[300];
	ck_assert_int_eq(inet_pton(AF_INET6, "64:ff9b::", pfx), 1);
	ip6_arpa("64:ff9b::c000:221", name);
	ck_assert_uint_gt(dns64_ptr_name(pfx, 96, name, out), 0);
	ck_assert_int_gt(dname_to_str(out, str, sizeof(str)), 0);
	ck_assert_str_eq(str, "33.2.0.192.in-addr.arpa.");
	/* upper-case nibbles are fine */
	name[1] = 'A'; /* 64:ff9b::c000:22a */
	ck_assert_uint_gt(dns64_ptr_name(pfx, 96, name, out), 0);
	ck_assert_int_gt(dname_to_str(out, str, sizeof(str)), 0);
	ck_assert_str_eq(str, "42.2.0.192.in-addr.arpa.");
	/* outside the prefix, a short name, another tree: none */
	ip6_arpa("2001:db8::1", name);
	ck_assert_uint_eq(dns64_ptr_name(pfx, 96, name, out), 0);
	ck_assert_uint_eq(dns64_ptr_name(pfx, 96, name + 2, out), 0);
	{
		size_t len = sizeof(name);
		ck_assert_int_eq(dname_from_str("1.2.0.192.in-addr.arpa.",
			name, &len), 0);
		ck_assert_uint_eq(dns64_ptr_name(pfx, 96, name, out), 0);
	}
}
END_TEST

static Suite *
dns64_suite(void)
{
	Suite *s = suite_create("dns64");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_rfc6052_examples);
	tcase_add_test(tc, test_ptr_name);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(dns64_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
