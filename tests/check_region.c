/*
 * tests/check_region.c - Check suite for util/region.
 */
#include "config.h"
#include "util/region.h"
#include <check.h>
#include <stdint.h>
#include <string.h>

START_TEST(test_alignment)
{
	struct region *r = region_create(0);
	size_t i;
	ck_assert_ptr_nonnull(r);
	for(i = 1; i < 200; i++) {
		void *p = region_alloc(r, i);
		ck_assert_ptr_nonnull(p);
		ck_assert_uint_eq((uintptr_t)p % 8, 0);
		memset(p, 0xab, i);
	}
	region_destroy(r);
}
END_TEST

START_TEST(test_no_overlap)
{
	struct region *r = region_create(256);
	unsigned char *ptrs[100];
	int i, j;
	for(i = 0; i < 100; i++) {
		ptrs[i] = region_alloc(r, 24);
		ck_assert_ptr_nonnull(ptrs[i]);
		memset(ptrs[i], i, 24);
	}
	for(i = 0; i < 100; i++)
		for(j = 0; j < 24; j++)
			ck_assert_int_eq(ptrs[i][j], i);
	/* 100 * 24 bytes in 256-byte chunks needs more than one chunk */
	ck_assert_uint_gt(region_num_chunks(r), 1);
	region_destroy(r);
}
END_TEST

START_TEST(test_large_objects)
{
	struct region *r = region_create(1024);
	char *big = region_alloc(r, 100000);
	ck_assert_ptr_nonnull(big);
	memset(big, 1, 100000);
	ck_assert_uint_eq(region_num_large(r), 1);
	ck_assert_uint_eq(region_num_chunks(r), 1);
	ck_assert_uint_ge(region_get_mem(r), 100000);
	region_free_all(r);
	ck_assert_uint_eq(region_num_large(r), 0);
	ck_assert_uint_lt(region_get_mem(r), 4096);
	region_destroy(r);
}
END_TEST

START_TEST(test_free_all_reuses)
{
	struct region *r = region_create(512);
	void *first, *again;
	int i;
	first = region_alloc(r, 16);
	for(i = 0; i < 1000; i++)
		ck_assert_ptr_nonnull(region_alloc(r, 64));
	ck_assert_uint_gt(region_num_chunks(r), 10);
	region_free_all(r);
	ck_assert_uint_eq(region_num_chunks(r), 1);
	again = region_alloc(r, 16);
	/* after free_all allocation starts over in the first chunk */
	ck_assert_ptr_eq(first, again);
	region_destroy(r);
}
END_TEST

START_TEST(test_helpers)
{
	struct region *r = region_create(0);
	char *s = region_strdup(r, "petrel");
	unsigned char *z = region_alloc_zero(r, 100);
	int i;
	ck_assert_str_eq(s, "petrel");
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(z[i], 0);
	ck_assert_mem_eq(region_memdup(r, "abc", 3), "abc", 3);
	/* a size that would overflow when aligned is refused */
	ck_assert_ptr_null(region_alloc(r, (size_t)-1));
	region_destroy(r);
	region_destroy(NULL);
}
END_TEST

static Suite *
region_suite(void)
{
	Suite *s = suite_create("region");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_alignment);
	tcase_add_test(tc, test_no_overlap);
	tcase_add_test(tc, test_large_objects);
	tcase_add_test(tc, test_free_all_reuses);
	tcase_add_test(tc, test_helpers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(region_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
