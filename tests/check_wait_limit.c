/*
 * tests/check_wait_limit.c - front/wait_limit: counts per client
 * address, the limit, a full table, and deletion that keeps every other
 * address findable (backward shift over colliding probe chains).
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include "front/wait_limit.h"
#include "util/netaddr.h"

static struct netaddr
A(const char *s, int port)
{
	struct netaddr a;
	ck_assert_int_eq(netaddr_parse(s, port, &a, NULL), 0);
	return a;
}

START_TEST(test_limit)
{
	struct wait_limit *w = wait_limit_create(64);
	struct netaddr a = A("192.0.2.1", 1000), a2 = A("192.0.2.1", 2000);
	struct netaddr b = A("2001:db8::1", 53);
	ck_assert_ptr_nonnull(w);
	ck_assert_int_eq(wait_limit_add(w, &a, 2), WAIT_LIMIT_COUNTED);
	/* the port does not matter */
	ck_assert_int_eq(wait_limit_add(w, &a2, 2), WAIT_LIMIT_COUNTED);
	ck_assert_int_eq(wait_limit_add(w, &a, 2), WAIT_LIMIT_OVER);
	ck_assert_int_eq(wait_limit_count(w, &a), 2);
	ck_assert_int_eq(wait_limit_add(w, &b, 2), WAIT_LIMIT_COUNTED);
	wait_limit_remove(w, &a);
	ck_assert_int_eq(wait_limit_count(w, &a), 1);
	ck_assert_int_eq(wait_limit_add(w, &a, 2), WAIT_LIMIT_COUNTED);
	wait_limit_remove(w, &a);
	wait_limit_remove(w, &a);
	ck_assert_int_eq(wait_limit_count(w, &a), 0);
	ck_assert_int_eq(wait_limit_count(w, &b), 1);
	/* no limit: nothing counted */
	ck_assert_int_eq(wait_limit_add(w, &a, 0), WAIT_LIMIT_FULL);
	ck_assert_int_eq(wait_limit_count(w, &a), 0);
	wait_limit_delete(w);
}
END_TEST

START_TEST(test_full_and_delete)
{
	struct wait_limit *w = wait_limit_create(16);
	struct netaddr a[16];
	char buf[64];
	int i, j, counted = 0;
	for(i = 0; i < 16; i++) {
		snprintf(buf, sizeof(buf), "198.51.100.%d", i + 1);
		a[i] = A(buf, 53);
	}
	/* 16 slots keep a quarter free: 12 addresses, then full */
	for(i = 0; i < 16; i++) {
		enum wait_limit_result r = wait_limit_add(w, &a[i], 5);
		if(r == WAIT_LIMIT_COUNTED)
			counted++;
		else	ck_assert_int_eq(r, WAIT_LIMIT_FULL);
	}
	ck_assert_int_eq(counted, 12);
	/* remove them one by one in another order: the others stay
	 * findable whatever the probe chains were */
	for(i = 0; i < 12; i++) {
		int k = (i * 5) % 12;
		wait_limit_remove(w, &a[k]);
		ck_assert_int_eq(wait_limit_count(w, &a[k]), 0);
		for(j = 0; j < 12; j++) {
			int gone = 0, m;
			for(m = 0; m <= i; m++)
				if((m * 5) % 12 == j)
					gone = 1;
			ck_assert_int_eq(wait_limit_count(w, &a[j]),
				gone ? 0 : 1);
		}
	}
	/* room again */
	ck_assert_int_eq(wait_limit_add(w, &a[15], 5), WAIT_LIMIT_COUNTED);
	wait_limit_delete(w);
}
END_TEST

static Suite *
wait_limit_suite(void)
{
	Suite *s = suite_create("wait_limit");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_limit);
	tcase_add_test(tc, test_full_and_delete);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(wait_limit_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
