/*
 * tests/check_val_kcache.c - validator/val_kcache: secure, insecure and
 * bogus entries, expiry by the caller's clock, val-bogus-ttl, closest
 * enclosing zone, flushes, and the byte bound (key-cache-size).
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "validator/val_kcache.h"
#include "dns/dns.h"
#include "dns/name.h"

#define T0 1700000000u

/** a name from text in one of two static buffers */
static const uint8_t *
N(const char *s)
{
	static uint8_t b[2][256];
	static int i;
	size_t l = 256;
	i = !i;
	ck_assert_int_eq(dname_from_str(s, b[i], &l), 0);
	return b[i];
}

/** two synthetic DNSKEYs */
static uint8_t k1[40], k2[70];
static struct val_rr keys[2];

static void
setup(void)
{
	size_t i;
	for(i = 0; i < sizeof(k1); i++)
		k1[i] = (uint8_t)i;
	for(i = 0; i < sizeof(k2); i++)
		k2[i] = (uint8_t)(200 - i);
	keys[0] = (struct val_rr){ k1, sizeof(k1), 0, sizeof(k1) };
	keys[1] = (struct val_rr){ k2, sizeof(k2), 0, sizeof(k2) };
}

START_TEST(test_secure)
{
	struct val_kcache *kc = val_kcache_create(1 << 20, 4);
	struct val_kinfo *in = malloc(sizeof(*in));
	ck_assert_ptr_nonnull(kc);
	ck_assert_int_eq(val_kcache_store_keys(kc, N("Example.COM."),
		DNS_CLASS_IN, keys, 2, 3600, T0), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("example.com."),
		DNS_CLASS_IN, T0 + 10, in), 1);
	ck_assert_int_eq(in->status, VAL_KEY_SECURE);
	ck_assert_uint_eq(in->expiry, T0 + 3600);
	ck_assert(dname_equal(in->keys.owner, N("example.com.")));
	ck_assert_uint_eq(in->keys.type, DNS_TYPE_DNSKEY);
	ck_assert_uint_eq(in->keys.count, 2);
	ck_assert_uint_eq(in->rrs[0].len, sizeof(k1));
	ck_assert(memcmp(in->rrs[0].buf + in->rrs[0].off, k1,
		sizeof(k1)) == 0);
	ck_assert_uint_eq(in->rrs[1].len, sizeof(k2));
	ck_assert(memcmp(in->rrs[1].buf + in->rrs[1].off, k2,
		sizeof(k2)) == 0);
	/* another class, another name: misses */
	ck_assert_int_eq(val_kcache_lookup(kc, N("example.com."),
		DNS_CLASS_CH, T0, in), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("www.example.com."),
		DNS_CLASS_IN, T0, in), 0);
	/* the closest enclosing zone */
	ck_assert_int_eq(val_kcache_lookup_closest(kc,
		N("a.b.www.example.com."), DNS_CLASS_IN, T0, in), 1);
	ck_assert(dname_equal(in->name, N("example.com.")));
	ck_assert_int_eq(val_kcache_lookup_closest(kc, N("example.org."),
		DNS_CLASS_IN, T0, in), 0);
	/* expiry by the given clock */
	ck_assert_int_eq(val_kcache_lookup(kc, N("example.com."),
		DNS_CLASS_IN, T0 + 3599, in), 1);
	ck_assert_int_eq(val_kcache_lookup(kc, N("example.com."),
		DNS_CLASS_IN, T0 + 3600, in), 0);
	/* a new store replaces the entry */
	ck_assert_int_eq(val_kcache_store_keys(kc, N("example.com."),
		DNS_CLASS_IN, keys + 1, 1, 60, T0 + 4000), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("example.com."),
		DNS_CLASS_IN, T0 + 4000, in), 1);
	ck_assert_uint_eq(in->keys.count, 1);
	ck_assert_uint_eq(val_kcache_count(kc), 1);
	ck_assert_int_eq(val_kcache_remove(kc, N("example.com."),
		DNS_CLASS_IN), 1);
	ck_assert_int_eq(val_kcache_remove(kc, N("example.com."),
		DNS_CLASS_IN), 0);
	/* too many keys for one entry: refused, not truncated */
	{
		struct val_rr many[VAL_KCACHE_MAX_KEYS + 1];
		size_t i;
		for(i = 0; i < VAL_KCACHE_MAX_KEYS + 1; i++)
			many[i] = keys[0];
		ck_assert_int_eq(val_kcache_store_keys(kc, N("x."),
			DNS_CLASS_IN, many, VAL_KCACHE_MAX_KEYS + 1, 60, T0),
			-1);
		ck_assert_int_eq(val_kcache_store_keys(kc, N("x."),
			DNS_CLASS_IN, many, VAL_KCACHE_MAX_KEYS, 60, T0), 0);
	}
	free(in);
	val_kcache_delete(kc);
}
END_TEST

START_TEST(test_bogus_insecure)
{
	struct val_kcache *kc = val_kcache_create(1 << 20, 4);
	struct val_kinfo *in = malloc(sizeof(*in));
	char longr[300];
	ck_assert_int_eq(val_kcache_store_bogus(kc, N("bad.example."),
		DNS_CLASS_IN, DNS_EDE_SIGNATURE_EXPIRED,
		"signature expired for DNSKEY bad.example.", 60, T0), 0);
	ck_assert_int_eq(val_kcache_store_insecure(kc, N("plain.example."),
		DNS_CLASS_IN, 3600, T0), 0);
	ck_assert_int_eq(val_kcache_store_keys(kc, N("example."),
		DNS_CLASS_IN, keys, 1, 3600, T0), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("bad.example."),
		DNS_CLASS_IN, T0 + 59, in), 1);
	ck_assert_int_eq(in->status, VAL_KEY_BOGUS);
	ck_assert_int_eq(in->ede, DNS_EDE_SIGNATURE_EXPIRED);
	ck_assert_str_eq(in->reason,
		"signature expired for DNSKEY bad.example.");
	ck_assert_uint_eq(in->keys.count, 0);
	/* val-bogus-ttl passed: asked again */
	ck_assert_int_eq(val_kcache_lookup(kc, N("bad.example."),
		DNS_CLASS_IN, T0 + 60, in), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("www.plain.example."),
		DNS_CLASS_IN, T0, in), 0);
	ck_assert_int_eq(val_kcache_lookup_closest(kc,
		N("www.plain.example."), DNS_CLASS_IN, T0, in), 1);
	ck_assert_int_eq(in->status, VAL_KEY_INSECURE);
	ck_assert_int_eq(in->ede, -1);
	/* flush_bogus takes only the bogus entries */
	ck_assert_uint_eq(val_kcache_flush_bogus(kc), 1);
	ck_assert_uint_eq(val_kcache_count(kc), 2);
	/* flush_zone: at or below the name */
	ck_assert_uint_eq(val_kcache_flush_zone(kc, N("plain.example.")), 1);
	ck_assert_uint_eq(val_kcache_count(kc), 1);
	ck_assert_uint_eq(val_kcache_flush_zone(kc, N(".")), 1);
	ck_assert_uint_eq(val_kcache_count(kc), 0);
	/* a long reason is cut, not overrun */
	memset(longr, 'r', sizeof(longr) - 1);
	longr[sizeof(longr) - 1] = 0;
	ck_assert_int_eq(val_kcache_store_bogus(kc, N("x."), DNS_CLASS_IN,
		DNS_EDE_DNSSEC_BOGUS, longr, 60, T0), 0);
	ck_assert_int_eq(val_kcache_lookup(kc, N("x."), DNS_CLASS_IN, T0, in),
		1);
	ck_assert_uint_eq(strlen(in->reason), VAL_KCACHE_REASON - 1);
	free(in);
	val_kcache_delete(kc);
}
END_TEST

START_TEST(test_bounded)
{
	/* 2000 zones into 64 KB: the cache stays within its budget and
	 * keeps the newest entries */
	size_t maxmem = 64 * 1024, i, hits = 0;
	struct val_kcache *kc = val_kcache_create(maxmem, 4);
	struct val_kinfo *in = malloc(sizeof(*in));
	char name[64];
	for(i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "zone%zu.example.", i);
		ck_assert_int_eq(val_kcache_store_keys(kc, N(name),
			DNS_CLASS_IN, keys, 2, 3600, T0), 0);
		ck_assert_uint_le(val_kcache_get_mem(kc), maxmem);
	}
	ck_assert_uint_lt(val_kcache_count(kc), 2000);
	ck_assert_uint_gt(val_kcache_count(kc), 50);
	snprintf(name, sizeof(name), "zone%d.example.", 1999);
	ck_assert_int_eq(val_kcache_lookup(kc, N(name), DNS_CLASS_IN, T0,
		in), 1);
	for(i = 0; i < 2000; i++) {
		snprintf(name, sizeof(name), "zone%zu.example.", i);
		hits += (size_t)val_kcache_lookup(kc, N(name), DNS_CLASS_IN,
			T0, in);
	}
	ck_assert_uint_eq(hits, val_kcache_count(kc));
	/* a smaller budget on reload evicts down to it */
	val_kcache_set_maxmem(kc, 16 * 1024);
	ck_assert_uint_le(val_kcache_get_mem(kc), 16 * 1024);
	free(in);
	val_kcache_delete(kc);
}
END_TEST

static Suite *
val_kcache_suite(void)
{
	Suite *s = suite_create("val_kcache");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, NULL);
	tcase_add_test(tc, test_secure);
	tcase_add_test(tc, test_bogus_insecure);
	tcase_add_test(tc, test_bounded);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_kcache_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
