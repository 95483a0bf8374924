/*
 * tests/check_ratelimit.c - the rate table (util/ratelimit.h), the zone
 * limits of the iterator (iterator/iter_ratelimit.h) and the config lines
 * behind them.
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <string.h>
#include "util/ratelimit.h"
#include "util/config_file.h"
#include "util/random.h"
#include "iterator/iter_ratelimit.h"
#include "dns/name.h"

static const uint8_t k1[4] = { 192, 0, 2, 1 };
static const uint8_t k2[4] = { 192, 0, 2, 2 };

START_TEST(test_rate_second)
{
	struct rate_table *t = rate_table_create(4096, 2, 16);
	int i;
	ck_assert_ptr_nonnull(t);
	for(i = 1; i <= 5; i++)
		ck_assert_int_eq(rate_table_inc(t, k1, 4, 100, 0), i);
	/* another key has its own count */
	ck_assert_int_eq(rate_table_inc(t, k2, 4, 100, 0), 1);
	ck_assert_int_eq(rate_table_get(t, k1, 4, 100, 0), 5);
	/* the next second starts from zero */
	ck_assert_int_eq(rate_table_get(t, k1, 4, 101, 0), 0);
	ck_assert_int_eq(rate_table_inc(t, k1, 4, 101, 0), 1);
	/* an unknown key has no rate */
	ck_assert_int_eq(rate_table_get(t, (const uint8_t *)"zz", 2, 101,
		0), 0);
	rate_table_delete(t);
}
END_TEST

START_TEST(test_rate_backoff)
{
	struct rate_table *t = rate_table_create(4096, 1, 16);
	int i;
	for(i = 0; i < 10; i++)
		(void)rate_table_inc(t, k1, 4, 200, 1);
	/* the next second the window still holds the 10 */
	ck_assert_int_eq(rate_table_inc(t, k1, 4, 201, 1), 10);
	ck_assert_int_eq(rate_table_get(t, k1, 4, 202, 1), 10);
	/* without backoff only the current second counts */
	ck_assert_int_eq(rate_table_get(t, k1, 4, 201, 0), 1);
	/* past the window the old second is gone */
	ck_assert_int_eq(rate_table_inc(t, k1, 4, 203, 1), 1);
	rate_table_delete(t);
}
END_TEST

/** count the walk's keys */
static void
count_cb(const uint8_t *key, size_t keylen, int rate, void *arg)
{
	(void)key; (void)keylen; (void)rate;
	(*(int *)arg)++;
}

START_TEST(test_rate_bounded)
{
	/* a small table: many more keys than slots; memory stays as made
	 * and the newest key is always counted */
	struct rate_table *t = rate_table_create(2048, 4, 16);
	size_t cap = rate_table_capacity(t), mem = rate_table_mem(t);
	uint32_t i;
	int n = 0;
	ck_assert_uint_ge(cap, 4 * RATE_PROBE);
	for(i = 0; i < 100000; i++) {
		uint8_t k[4];
		memcpy(k, &i, 4);
		ck_assert_int_eq(rate_table_inc(t, k, 4, 300 + i / 1000, 0),
			1);
	}
	ck_assert_uint_eq(rate_table_mem(t), mem);
	rate_table_walk(t, 399, 0, count_cb, &n);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_le((size_t)n, cap);
	/* a busy key survives a flood of new keys in its probe window:
	 * the quietest (oldest) entry is the one replaced */
	ck_assert_int_eq(rate_table_inc(t, k1, 4, 500, 0), 1);
	for(i = 0; i < 5000; i++) {
		uint8_t k[4];
		memcpy(k, &i, 4);
		(void)rate_table_inc(t, k, 4, 499, 0);
	}
	ck_assert_int_eq(rate_table_inc(t, k1, 4, 500, 0), 2);
	rate_table_delete(t);
}
END_TEST

/** the config of a test, from text */
static struct config_file *
cfg_from(const char *text)
{
	char err[512];
	struct config_file *c = config_create();
	ck_assert_ptr_nonnull(c);
	if(config_read_mem(c, "test.conf", text, strlen(text), err,
		sizeof(err)) < 0)
		ck_abort_msg("config: %s", err);
	return c;
}

/** the zone limit of a presentation name */
static int
limit_of(const struct iter_ratelimit *rl, const char *name)
{
	uint8_t n[256];
	size_t len = sizeof(n);
	ck_assert_int_eq(dname_from_str(name, n, &len), 0);
	return iter_ratelimit_limit(rl, n);
}

START_TEST(test_zone_limits)
{
	char err[256];
	struct iter_ratelimit *rl = NULL;
	struct config_file *c = cfg_from("server:\n ratelimit: 100\n"
		" ratelimit-for-domain: example.com 5\n"
		" ratelimit-below-domain: example.com 7\n"
		" ratelimit-below-domain: com 9\n"
		" ratelimit-for-domain: free.example 0\n");
	ck_assert_int_eq(iter_ratelimit_create(c, &rl, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(rl);
	ck_assert_int_eq(limit_of(rl, "example.com."), 5);
	ck_assert_int_eq(limit_of(rl, "a.example.com."), 7);
	ck_assert_int_eq(limit_of(rl, "a.b.example.com."), 7);
	ck_assert_int_eq(limit_of(rl, "other.com."), 9);
	ck_assert_int_eq(limit_of(rl, "com."), 100);
	ck_assert_int_eq(limit_of(rl, "."), 100);
	ck_assert_int_eq(limit_of(rl, "example.net."), 100);
	ck_assert_int_eq(limit_of(rl, "free.example."), 0);
	iter_ratelimit_delete(rl);
	config_delete(c);
	/* off: no table */
	c = cfg_from("server:\n ratelimit-for-domain: example.com 5\n");
	rl = NULL;
	ck_assert_int_eq(iter_ratelimit_create(c, &rl, err, sizeof(err)), 0);
	ck_assert_ptr_null(rl);
	config_delete(c);
}
END_TEST

START_TEST(test_zone_ok_factor)
{
	char err[256];
	struct iter_ratelimit *rl = NULL;
	struct petrel_random *rnd = random_create_seeded(7);
	uint8_t z[256];
	size_t zl = sizeof(z);
	int i, passed = 0;
	struct config_file *c = cfg_from("server:\n ratelimit: 2\n"
		" ratelimit-factor: 4\n");
	ck_assert_int_eq(iter_ratelimit_create(c, &rl, err, sizeof(err)), 0);
	ck_assert_int_eq(dname_from_str("example.com.", z, &zl), 0);
	ck_assert_int_eq(iter_ratelimit_ok(rl, z, 10, rnd), 1);
	ck_assert_int_eq(iter_ratelimit_ok(rl, z, 10, rnd), 1);
	/* over the limit: about 1 in 4 still goes (seeded: exact) */
	for(i = 0; i < 4000; i++)
		passed += iter_ratelimit_ok(rl, z, 10, rnd);
	ck_assert_int_gt(passed, 800);
	ck_assert_int_lt(passed, 1200);
	iter_ratelimit_delete(rl);
	config_delete(c);
	/* factor 0: nothing over the limit goes */
	c = cfg_from("server:\n ratelimit: 1\n ratelimit-factor: 0\n");
	ck_assert_int_eq(iter_ratelimit_create(c, &rl, err, sizeof(err)), 0);
	ck_assert_int_eq(iter_ratelimit_ok(rl, z, 10, rnd), 1);
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(iter_ratelimit_ok(rl, z, 10, rnd), 0);
	ck_assert_int_eq(iter_ratelimit_ok(rl, z, 11, rnd), 1);
	iter_ratelimit_delete(rl);
	config_delete(c);
	random_delete(rnd);
}
END_TEST

/** @return the error of a config text that must fail */
static void
cfg_must_fail(const char *text, const char *want)
{
	char err[512];
	struct config_file *c = config_create();
	ck_assert_int_lt(config_read_mem(c, "bad.conf", text, strlen(text),
		err, sizeof(err)), 0);
	if(!strstr(err, want))
		ck_abort_msg("error '%s' lacks '%s'", err, want);
	config_delete(c);
}

START_TEST(test_config_errors)
{
	cfg_must_fail("server:\n ratelimit-for-domain: example.com\n",
		"bad.conf:2: ratelimit-for-domain: expected <domain> <number>");
	cfg_must_fail("server:\n ratelimit-below-domain: example.com x\n",
		"bad.conf:2: ratelimit-below-domain: expected");
	cfg_must_fail("server:\n ip-ratelimit: -1\n", "bad.conf:2:");
	cfg_must_fail("server:\n ip-ratelimit-slabs: 3\n", "bad.conf:2:");
	cfg_must_fail("server:\n dns64-prefix: 192.0.2.0/24\n",
		"bad.conf:2: dns64-prefix: expected an IPv6 prefix");
	cfg_must_fail("server:\n dns64-prefix: 64:ff9b::/80\n",
		"bad.conf:2: dns64-prefix: the prefix length must be");
}
END_TEST

/** what the walk test saw */
struct walk_seen {
	char zone[300];
	int rate, limit, n;
};

/** keep the walk's zone */
static void
walk_cb(const char *zone, int rate, int limit, void *arg)
{
	struct walk_seen *w = (struct walk_seen *)arg;
	snprintf(w->zone, sizeof(w->zone), "%s", zone);
	w->rate = rate;
	w->limit = limit;
	w->n++;
}

START_TEST(test_zone_walk)
{
	char err[256];
	struct iter_ratelimit *rl = NULL;
	struct walk_seen w;
	uint8_t z[256], z2[256];
	size_t zl = sizeof(z), zl2 = sizeof(z2);
	int i, passed = 0;
	struct config_file *c = cfg_from("server:\n ratelimit: 1000\n"
		" ratelimit-for-domain: sub.lim.zz 2\n ratelimit-factor: 0\n"
		" ratelimit-backoff: yes\n");
	ck_assert_int_eq(iter_ratelimit_create(c, &rl, err, sizeof(err)), 0);
	ck_assert_int_eq(dname_from_str("sub.lim.zz.", z, &zl), 0);
	ck_assert_int_eq(dname_from_str("lim.zz.", z2, &zl2), 0);
	for(i = 0; i < 8; i++)
		passed += iter_ratelimit_ok(rl, z, 50, NULL);
	ck_assert_int_eq(passed, 2);
	ck_assert_int_eq(iter_ratelimit_ok(rl, z2, 50, NULL), 1);
	/* only the zone over its limit is listed, with every query counted */
	memset(&w, 0, sizeof(w));
	iter_ratelimit_walk(rl, 51, 0, walk_cb, &w);
	ck_assert_int_eq(w.n, 1);
	ck_assert_str_eq(w.zone, "sub.lim.zz.");
	ck_assert_int_eq(w.rate, 8);
	ck_assert_int_eq(w.limit, 2);
	/* +a: both */
	memset(&w, 0, sizeof(w));
	iter_ratelimit_walk(rl, 51, 1, walk_cb, &w);
	ck_assert_int_eq(w.n, 2);
	iter_ratelimit_delete(rl);
	config_delete(c);
}
END_TEST

static Suite *
ratelimit_suite(void)
{
	Suite *s = suite_create("ratelimit");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_rate_second);
	tcase_add_test(tc, test_rate_backoff);
	tcase_add_test(tc, test_rate_bounded);
	tcase_add_test(tc, test_zone_limits);
	tcase_add_test(tc, test_zone_ok_factor);
	tcase_add_test(tc, test_config_errors);
	tcase_add_test(tc, test_zone_walk);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(ratelimit_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
