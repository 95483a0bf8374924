/*
 * tests/check_dns_ecs.c - the EDNS Client Subnet option on the wire
 * (dns/ecs.c): parse (well-formed and each kind of malformed option),
 * write (cut to a shorter source prefix, no room), a client's address as
 * its subnet, and the address helpers the subnetcache module shares.
 */
#include "config.h"
#include <check.h>
#include <arpa/inet.h>
#include <string.h>
#include "dns/ecs.h"
#include "util/netaddr.h"

/** a client subnet: ip with source prefix source */
static struct module_ecs
mkclient(const char *ip, int source)
{
	struct module_ecs e;
	memset(&e, 0, sizeof(e));
	if(strchr(ip, ':')) {
		e.family = 2;
		ck_assert_int_eq(inet_pton(AF_INET6, ip, e.addr), 1);
	} else {
		e.family = 1;
		ck_assert_int_eq(inet_pton(AF_INET, ip, e.addr), 1);
	}
	e.source = (uint8_t)source;
	return e;
}

START_TEST(test_option_parse)
{
	struct module_ecs e;
	/* 192.0.2.0/24, scope 0 */
	static const uint8_t ok[] = { 0, 1, 24, 0, 192, 0, 2 };
	static const uint8_t ok6[] = { 0, 2, 56, 0, 0x20, 0x01, 0x0d, 0xb8,
		0, 1, 2 };
	static const uint8_t zero[] = { 0, 1, 0, 0 };
	static const uint8_t fam[] = { 0, 3, 8, 0, 10 };
	static const uint8_t toolong[] = { 0, 1, 33, 0, 1, 2, 3, 4, 5 };
	static const uint8_t short_addr[] = { 0, 1, 24, 0, 192, 0 };
	static const uint8_t long_addr[] = { 0, 1, 24, 0, 192, 0, 2, 0 };
	static const uint8_t hostbits[] = { 0, 1, 23, 0, 192, 0, 3 };
	static const uint8_t scoped[] = { 0, 1, 24, 16, 192, 0, 2 };
	uint8_t buf[64];
	ck_assert_int_eq(ecs_parse(ok, sizeof(ok), 1, &e), 0);
	ck_assert_int_eq(e.family, 1);
	ck_assert_int_eq(e.source, 24);
	ck_assert_int_eq(e.addr[0], 192);
	ck_assert_int_eq(e.addr[2], 2);
	ck_assert_int_eq(e.addr[3], 0);
	ck_assert_int_eq(ecs_parse(ok6, sizeof(ok6), 1, &e), 0);
	ck_assert_int_eq(e.family, 2);
	ck_assert_int_eq(ecs_parse(zero, sizeof(zero), 1, &e), 0);
	ck_assert_int_eq(e.source, 0);
	ck_assert_int_eq(ecs_parse(ok, 3, 1, &e), -1);
	ck_assert_int_eq(ecs_parse(fam, sizeof(fam), 1, &e), -1);
	ck_assert_int_eq(ecs_parse(toolong, sizeof(toolong), 1, &e), -1);
	ck_assert_int_eq(ecs_parse(short_addr, sizeof(short_addr), 1, &e), -1);
	ck_assert_int_eq(ecs_parse(long_addr, sizeof(long_addr), 1, &e), -1);
	ck_assert_int_eq(ecs_parse(hostbits, sizeof(hostbits), 1, &e), -1);
	/* a scope is wrong in a query, right in a reply */
	ck_assert_int_eq(ecs_parse(scoped, sizeof(scoped), 1, &e), -1);
	ck_assert_int_eq(ecs_parse(scoped, sizeof(scoped), 0, &e), 0);
	ck_assert_int_eq(e.scope, 16);
	/* written back cut to /20 (the host bits past it are zeroed) */
	e = mkclient("192.0.2.77", 32);
	ck_assert_int_eq(ecs_write(8, &e, 20, 0, buf, sizeof(buf)), 11);
	ck_assert_int_eq(buf[1], 8);
	ck_assert_int_eq(buf[3], 7);
	ck_assert_int_eq(buf[6], 20);
	ck_assert_int_eq(buf[7], 0);
	ck_assert_int_eq(buf[8], 192);
	ck_assert_int_eq(buf[9], 0);
	ck_assert_int_eq(buf[10], 0);
	ck_assert_int_eq(ecs_parse(buf + 4, 7, 1, &e), 0);
	ck_assert_int_eq(ecs_write(8, &e, 20, 0, buf, 10), 0);
}
END_TEST

START_TEST(test_from_addr)
{
	struct netaddr a;
	struct module_ecs e;
	ck_assert_int_eq(netaddr_parse("192.0.2.9", 53, &a, NULL), 0);
	ck_assert_int_eq(ecs_from_addr(&a, &e), 0);
	ck_assert_int_eq(e.family, 1);
	ck_assert_int_eq(e.source, 32);
	ck_assert_int_eq(e.addr[3], 9);
	ck_assert_int_eq(netaddr_parse("2001:db8::1", 53, &a, NULL), 0);
	ck_assert_int_eq(ecs_from_addr(&a, &e), 0);
	ck_assert_int_eq(e.family, 2);
	ck_assert_int_eq(e.source, 128);
	ck_assert_int_eq(netaddr_parse("::ffff:192.0.2.9", 53, &a, NULL), 0);
	ck_assert_int_eq(ecs_from_addr(&a, &e), 0);
	ck_assert_int_eq(e.family, 1);
	ck_assert_int_eq(e.addr[0], 192);
	ck_assert_int_eq(e.addr[3], 9);
}
END_TEST

START_TEST(test_addr_helpers)
{
	uint8_t a[16];
	ck_assert_uint_eq(ecs_addr_len(1), 4);
	ck_assert_uint_eq(ecs_addr_len(2), 16);
	memset(a, 0xff, sizeof(a));
	ecs_mask_addr(a, 4, 20);
	ck_assert_int_eq(a[0], 0xff);
	ck_assert_int_eq(a[1], 0xff);
	ck_assert_int_eq(a[2], 0xf0);
	ck_assert_int_eq(a[3], 0);
	/* only n bytes are touched */
	ck_assert_int_eq(a[4], 0xff);
	memset(a, 0xff, sizeof(a));
	ecs_mask_addr(a, 16, 0);
	ck_assert_int_eq(a[0], 0);
	ck_assert_int_eq(a[15], 0);
	memset(a, 0xff, sizeof(a));
	ecs_mask_addr(a, 16, 128);
	ck_assert_int_eq(a[15], 0xff);
	ecs_mask_addr(a, 16, 57);
	ck_assert_int_eq(a[6], 0xff);
	ck_assert_int_eq(a[7], 0x80);
	ck_assert_int_eq(a[8], 0);
}
END_TEST

/** the suite */
static Suite *
dns_ecs_suite(void)
{
	Suite *s = suite_create("dns_ecs");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_option_parse);
	tcase_add_test(tc, test_from_addr);
	tcase_add_test(tc, test_addr_helpers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int failed;
	SRunner *sr = srunner_create(dns_ecs_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
