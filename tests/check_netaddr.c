/*
 * tests/check_netaddr.c - Check suite for util/netaddr.
 */
#include "config.h"
#include "util/netaddr.h"
#include <check.h>
#include <string.h>
#include <sys/socket.h>

/** parse and print back */
static const char *
roundtrip(const char *in, int defport)
{
	static char buf[NETADDR_STRLEN];
	struct netaddr a;
	const char *err = NULL;
	if(netaddr_parse(in, defport, &a, &err) != 0)
		return err;
	return netaddr_str(&a, defport, buf, sizeof(buf));
}

START_TEST(test_parse_v4)
{
	struct netaddr a;
	const char *err = NULL;
	ck_assert_int_eq(netaddr_parse("192.0.2.1", 53, &a, &err), 0);
	ck_assert_int_eq(netaddr_family(&a), AF_INET);
	ck_assert_int_eq(netaddr_port(&a), 53);
	ck_assert_int_eq(netaddr_parse("192.0.2.1@5353", 53, &a, &err), 0);
	ck_assert_int_eq(netaddr_port(&a), 5353);
	ck_assert_str_eq(roundtrip("192.0.2.1", 53), "192.0.2.1");
	ck_assert_str_eq(roundtrip("192.0.2.1@853", 53), "192.0.2.1@853");
	ck_assert_str_eq(roundtrip("10.1.2.3@53", 53), "10.1.2.3");
}
END_TEST

START_TEST(test_parse_v6)
{
	struct netaddr a;
	const char *err = NULL;
	ck_assert_int_eq(netaddr_parse("2001:db8::1", 53, &a, &err), 0);
	ck_assert_int_eq(netaddr_family(&a), AF_INET6);
	ck_assert_str_eq(roundtrip("2001:DB8:0:0::1@8053", 53), "2001:db8::1@8053");
	ck_assert_str_eq(roundtrip("::1", 53), "::1");
	ck_assert_str_eq(roundtrip("::ffff:192.0.2.1", 53), "::ffff:192.0.2.1");
	ck_assert_int_eq(netaddr_parse("fe80::1%1", 53, &a, &err), 0);
}
END_TEST

START_TEST(test_parse_invalid)
{
	struct netaddr a;
	const char *err;
	const char *bad[] = { "", "192.0.2", "192.0.2.256", "1.2.3.4.5",
		"192.0.2.1@", "192.0.2.1@65536", "192.0.2.1@-1", "192.0.2.1@5x",
		"2001:db8:::1", "2001:db8::g", "hostname", "192.0.2.0/24",
		"fe80::1%nosuchif0", " 192.0.2.1", NULL };
	int i;
	for(i = 0; bad[i]; i++) {
		err = NULL;
		ck_assert_msg(netaddr_parse(bad[i], 53, &a, &err) == -1,
			"'%s' should not parse", bad[i]);
		ck_assert_ptr_nonnull(err);
	}
	err = NULL;
	netaddr_parse("192.0.2.1@99999", 53, &a, &err);
	ck_assert_str_eq(err, "port after '@' must be a number 0..65535");
}
END_TEST

START_TEST(test_netblock)
{
	struct netblock b;
	struct netaddr a;
	const char *err = NULL;
	char buf[NETADDR_STRLEN];
	ck_assert_int_eq(netblock_parse("192.0.2.0/24", &b, 0, &err), 0);
	ck_assert_int_eq(b.prefix, 24);
	ck_assert_str_eq(netblock_str(&b, buf, sizeof(buf)), "192.0.2.0/24");
	netaddr_parse("192.0.2.77", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 1);
	netaddr_parse("192.0.3.1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 0);
	netaddr_parse("2001:db8::1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 0);

	/* host bits set */
	ck_assert_int_eq(netblock_parse("192.0.2.1/24", &b, 0, &err), -1);
	ck_assert_str_eq(err, "address has bits set past the prefix length");
	ck_assert_int_eq(netblock_parse("192.0.2.1/24", &b, 1, &err), 0);
	ck_assert_str_eq(netblock_str(&b, buf, sizeof(buf)), "192.0.2.0/24");

	/* odd prefixes */
	ck_assert_int_eq(netblock_parse("10.0.0.0/9", &b, 0, &err), 0);
	netaddr_parse("10.127.255.255", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 1);
	netaddr_parse("10.128.0.0", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 0);
	ck_assert_int_eq(netblock_parse("0.0.0.0/0", &b, 0, &err), 0);
	ck_assert_int_eq(netblock_match(&b, &a), 1);

	/* a bare address is a host block */
	ck_assert_int_eq(netblock_parse("2001:db8::5", &b, 0, &err), 0);
	ck_assert_int_eq(b.prefix, 128);

	/* v6 */
	ck_assert_int_eq(netblock_parse("2001:db8::/32", &b, 0, &err), 0);
	netaddr_parse("2001:db8:ffff::1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 1);
	netaddr_parse("2001:db9::1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 0);
	ck_assert_int_eq(netblock_parse("fe80::/10", &b, 0, &err), 0);
	netaddr_parse("febf::1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 1);
	netaddr_parse("fec0::1", 53, &a, NULL);
	ck_assert_int_eq(netblock_match(&b, &a), 0);
}
END_TEST

START_TEST(test_netblock_invalid)
{
	struct netblock b;
	const char *err;
	const char *bad[] = { "192.0.2.0/33", "192.0.2.0/", "192.0.2.0/x",
		"2001:db8::/129", "192.0.2.0/24@53", "/24", "192.0.2.0/-1", NULL };
	int i;
	for(i = 0; bad[i]; i++) {
		err = NULL;
		ck_assert_msg(netblock_parse(bad[i], &b, 0, &err) == -1,
			"'%s' should not parse", bad[i]);
		ck_assert_ptr_nonnull(err);
	}
	netblock_parse("2001:db8::/200", &b, 0, &err);
	ck_assert_str_eq(err, "prefix after '/' must be a number 0..128");
}
END_TEST

START_TEST(test_compare)
{
	struct netaddr a, b;
	netaddr_parse("192.0.2.1@53", 0, &a, NULL);
	netaddr_parse("192.0.2.1@54", 0, &b, NULL);
	ck_assert_int_eq(netaddr_cmp_addr(&a, &b), 0);
	ck_assert_int_lt(netaddr_cmp(&a, &b), 0);
	netaddr_parse("192.0.2.2@53", 0, &b, NULL);
	ck_assert_int_lt(netaddr_cmp(&a, &b), 0);
	ck_assert_int_gt(netaddr_cmp(&b, &a), 0);
	netaddr_parse("::1", 53, &b, NULL);
	ck_assert_int_ne(netaddr_cmp(&a, &b), 0);
	ck_assert_int_eq(netaddr_is_loopback(&b), 1);
	netaddr_parse("127.3.4.5", 53, &b, NULL);
	ck_assert_int_eq(netaddr_is_loopback(&b), 1);
	ck_assert_int_eq(netaddr_is_loopback(&a), 0);
}
END_TEST

static Suite *
netaddr_suite(void)
{
	Suite *s = suite_create("netaddr");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_parse_v4);
	tcase_add_test(tc, test_parse_v6);
	tcase_add_test(tc, test_parse_invalid);
	tcase_add_test(tc, test_netblock);
	tcase_add_test(tc, test_netblock_invalid);
	tcase_add_test(tc, test_compare);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(netaddr_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
