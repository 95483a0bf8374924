/*
 * tests/check_histogram.c - Check suite for util/histogram: the bucket
 * bounds (Unbound's), the bucket of a time at and around every edge, the
 * count and the quantile.
 */
#include "config.h"
#include "util/histogram.h"
#include <check.h>
#include <stdint.h>
#include <string.h>

/** the bucket of a time by the definition: the last bucket whose lower
 * bound is at most the time */
static int
ref_bucket(uint64_t us)
{
	int b = 0;
	while(b < HIST_BUCKETS - 1 && hist_lower_us(b + 1) <= us)
		b++;
	return b;
}

START_TEST(test_lower_bounds)
{
	int i;
	ck_assert(hist_lower_us(-1) == 0);
	ck_assert(hist_lower_us(0) == 0);
	ck_assert(hist_lower_us(1) == 1);
	ck_assert(hist_lower_us(2) == 2);
	ck_assert(hist_lower_us(11) == 1024);
	/* Unbound's buckets: past half a second, whole seconds */
	ck_assert(hist_lower_us(20) == 524288);
	ck_assert(hist_lower_us(21) == 1000000);
	ck_assert(hist_lower_us(22) == 2000000);
	ck_assert(hist_lower_us(39) == 262144ULL * 1000000);
	ck_assert(hist_lower_us(HIST_BUCKETS) == 524288ULL * 1000000);
	for(i = 0; i < HIST_BUCKETS; i++)
		ck_assert(hist_lower_us(i) < hist_lower_us(i + 1));
}
END_TEST

START_TEST(test_bucket_edges)
{
	int i;
	ck_assert_int_eq(hist_bucket(0), 0);
	for(i = 1; i <= HIST_BUCKETS; i++) {
		uint64_t lo = hist_lower_us(i);
		int want = i < HIST_BUCKETS ? i : HIST_BUCKETS - 1;
		/* the edge itself is the new bucket's, one less the old's */
		ck_assert_int_eq(hist_bucket(lo), want);
		ck_assert_int_eq(hist_bucket(lo - 1), i - 1);
		if(i == HIST_BUCKETS || lo + 1 < hist_lower_us(i + 1))
			ck_assert_int_eq(hist_bucket(lo + 1), want);
	}
	/* the in-between buckets of the seconds: 1.5 s, 3 s */
	ck_assert_int_eq(hist_bucket(1500000), 21);
	ck_assert_int_eq(hist_bucket(3000000), 22);
	ck_assert_int_eq(hist_bucket(999999), 20);
	/* past the last bound: the last, open, bucket */
	ck_assert_int_eq(hist_bucket(UINT64_MAX), HIST_BUCKETS - 1);
}
END_TEST

START_TEST(test_bucket_matches_definition)
{
	/* every time near a power of two and near a multiple of a power of
	 * two seconds, and a fixed walk over the range */
	uint64_t x = 12345;
	int i, d;
	for(i = 0; i < 64; i++)
		for(d = -2; d <= 2; d++) {
			uint64_t p = (uint64_t)1 << i;
			uint64_t v = p + (uint64_t)(int64_t)d;
			ck_assert_int_eq(hist_bucket(v), ref_bucket(v));
			if(i < 44) {
				v = p * 1000000 + (uint64_t)(int64_t)d;
				ck_assert_int_eq(hist_bucket(v),
					ref_bucket(v));
			}
		}
	for(i = 0; i < 100000; i++) {
		/* a fixed linear congruential walk (no seed from outside) */
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		ck_assert_int_eq(hist_bucket(x >> (i % 64)),
			ref_bucket(x >> (i % 64)));
	}
}
END_TEST

START_TEST(test_count)
{
	uint64_t h[HIST_BUCKETS];
	memset(h, 0, sizeof(h));
	ck_assert(hist_count(h) == 0);
	h[0] = 1;
	h[HIST_BUCKETS - 1] = 2;
	h[20] = 3;
	ck_assert(hist_count(h) == 6);
}
END_TEST

START_TEST(test_quantile)
{
	uint64_t h[HIST_BUCKETS];
	double m;
	memset(h, 0, sizeof(h));
	ck_assert(hist_quantile(h, 0.5) == 0.0);
	h[0] = 1;
	ck_assert(hist_quantile(h, 0.5) < 0.000001 + 1e-12);
	memset(h, 0, sizeof(h));
	h[10] = 1;	/* [512, 1024) us */
	h[20] = 1;	/* [524288, 1000000) us */
	h[21] = 2;	/* [1, 2) s */
	m = hist_quantile(h, 0.5);
	ck_assert(m >= 0.524288 && m <= 1.0);
	m = hist_quantile(h, 0.25);
	ck_assert(m >= 0.000512 && m <= 0.001024);
	/* interpolated: the median of two in [1, 2) s is 1.5 s */
	memset(h, 0, sizeof(h));
	h[21] = 2;
	m = hist_quantile(h, 0.5);
	ck_assert(m > 1.5 - 1e-9 && m < 1.5 + 1e-9);
	/* all in the last bucket: up to its end */
	memset(h, 0, sizeof(h));
	h[HIST_BUCKETS - 1] = 1;
	m = hist_quantile(h, 1.0);
	ck_assert(m > 524288.0 - 1e-6 && m < 524288.0 + 1e-6);
}
END_TEST

static Suite *
histogram_suite(void)
{
	Suite *s = suite_create("histogram");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_lower_bounds);
	tcase_add_test(tc, test_bucket_edges);
	tcase_add_test(tc, test_bucket_matches_definition);
	tcase_add_test(tc, test_count);
	tcase_add_test(tc, test_quantile);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(histogram_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
