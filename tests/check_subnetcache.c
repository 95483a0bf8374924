/*
 * tests/check_subnetcache.c - the subnetcache module's cache of scoped
 * answers (insert, lookup by address, the scope rules, expiry, the
 * per-question size bound and its eviction, the memory bound). The ECS
 * option's wire code is tested by tests/check_dns_ecs.c; the module's
 * behaviour in the resolver is shown by testdata/ecs_*.rpl.
 */
#include "config.h"
#include <check.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include "edns-subnet/subnetcache.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/region.h"

/** the question of the cache tests: www.example.com A */
static const uint8_t qn[] = "\003www\007example\003com";

/** an answer with one A record of that address and TTL */
static struct mesh_answer *
mkans(struct region *r, const char *ip, uint32_t ttl)
{
	struct mesh_answer *a = region_alloc_zero(r, sizeof(*a));
	uint8_t d[4];
	struct module_rr *rr;
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(inet_pton(AF_INET, ip, d), 1);
	rr = module_rr_new(r, qn, sizeof(qn), DNS_TYPE_A, DNS_CLASS_IN, ttl,
		d, 4);
	ck_assert_ptr_nonnull(rr);
	module_rrlist_append(&a->an, rr);
	a->rcode = DNS_RCODE_NOERROR;
	a->ede = -1;
	return a;
}

/** a client subnet */
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

/** store an answer for ip/scope */
static int
store(struct ecs_cache *c, struct region *r, const char *net, int scope,
	const char *answer, uint32_t ttl, time_t now)
{
	struct module_ecs e = mkclient(net, scope);
	return ecs_cache_store(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0, e.family,
		e.addr, scope, mkans(r, answer, ttl), now);
}

/** look up for ip/source: "" for a miss, else the answer's address */
static const char *
lookup(struct ecs_cache *c, struct region *r, const char *ip, int source,
	time_t now, int *scope, uint32_t *ttl)
{
	static char buf[64];
	struct module_ecs e = mkclient(ip, source);
	struct mesh_answer *a = ecs_cache_lookup(c, qn, DNS_TYPE_A,
		DNS_CLASS_IN, 0, &e, now, r, scope);
	if(!a)
		return "";
	ck_assert_ptr_nonnull(a->an.first);
	ck_assert_int_eq(a->an.first->rdlen, 4);
	inet_ntop(AF_INET, a->an.first->rdata, buf, sizeof(buf));
	if(ttl)
		*ttl = a->an.first->ttl;
	return buf;
}

START_TEST(test_scope_rules)
{
	struct region *r = region_create(0);
	struct ecs_cache *c = ecs_cache_create(1 << 20, 100, 100);
	int scope = -1;
	uint32_t ttl = 0;
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(lookup(c, r, "10.1.2.3", 32, 100, &scope, NULL), "");
	ck_assert_int_eq(store(c, r, "10.1.2.99", 24, "192.0.2.1", 300, 100),
		0);
	/* the same /24: served, with its scope and aged TTL */
	ck_assert_str_eq(lookup(c, r, "10.1.2.200", 32, 110, &scope, &ttl),
		"192.0.2.1");
	ck_assert_int_eq(scope, 24);
	ck_assert_int_eq(ttl, 290);
	ck_assert_str_eq(lookup(c, r, "10.1.2.0", 24, 110, &scope, NULL),
		"192.0.2.1");
	/* another /24: not served */
	ck_assert_str_eq(lookup(c, r, "10.1.3.1", 32, 110, &scope, NULL), "");
	/* a client subnet shorter than the scope: not served */
	ck_assert_str_eq(lookup(c, r, "10.1.0.0", 16, 110, &scope, NULL), "");
	/* another family: not served */
	ck_assert_str_eq(lookup(c, r, "::", 0, 110, &scope, NULL), "");
	/* the most specific scope that covers the client wins */
	ck_assert_int_eq(store(c, r, "10.1.0.0", 16, "192.0.2.2", 300, 100),
		0);
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 110, &scope, NULL),
		"192.0.2.1");
	ck_assert_int_eq(scope, 24);
	ck_assert_str_eq(lookup(c, r, "10.1.9.9", 32, 110, &scope, NULL),
		"192.0.2.2");
	ck_assert_int_eq(scope, 16);
	ck_assert_str_eq(lookup(c, r, "10.1.0.0", 16, 110, &scope, NULL),
		"192.0.2.2");
	ck_assert_str_eq(lookup(c, r, "10.2.0.1", 32, 110, &scope, NULL), "");
	/* the same net again: replaced, not added */
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 2);
	ck_assert_int_eq(store(c, r, "10.1.2.0", 24, "192.0.2.3", 300, 120),
		0);
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 2);
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 120, &scope, NULL),
		"192.0.2.3");
	/* another question (the DO bit) is another tree */
	{
		struct module_ecs e = mkclient("10.1.2.5", 32);
		ck_assert_ptr_null(ecs_cache_lookup(c, qn, DNS_TYPE_A,
			DNS_CLASS_IN, MESH_FLAG_DO, &e, 120, r, &scope));
		ck_assert_ptr_null(ecs_cache_lookup(c, qn, DNS_TYPE_AAAA,
			DNS_CLASS_IN, 0, &e, 120, r, &scope));
	}
	/* expired: gone, and freed */
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 420, &scope, NULL), "");
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 0);
	/* cache-max-ttl and cache-min-ttl bound the lifetime */
	ecs_cache_set_ttl(c, 0, 100);
	ck_assert_int_eq(store(c, r, "10.1.2.0", 24, "192.0.2.4", 300, 1000),
		0);
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 1099, &scope, NULL),
		"192.0.2.4");
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 1100, &scope, NULL), "");
	ecs_cache_set_ttl(c, 500, 0);
	ck_assert_int_eq(store(c, r, "10.1.2.0", 24, "192.0.2.4", 300, 2000),
		0);
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 2499, &scope, NULL),
		"192.0.2.4");
	ck_assert_str_eq(lookup(c, r, "10.1.2.5", 32, 2500, &scope, NULL), "");
	ecs_cache_delete(c);
	region_destroy(r);
}
END_TEST

START_TEST(test_size_bound)
{
	struct region *r = region_create(0);
	struct ecs_cache *c = ecs_cache_create(1 << 20, 3, 2);
	char net[32];
	int i, scope;
	ck_assert_ptr_nonnull(c);
	/* five /24s, the third expiring first, then the first */
	for(i = 1; i <= 5; i++) {
		snprintf(net, sizeof(net), "10.0.%d.0", i);
		ck_assert_int_eq(store(c, r, net, 24, "192.0.2.1",
			i == 3 ? 50 : (uint32_t)(100 + i), 0), 0);
		ck_assert_uint_le(ecs_cache_count(c, qn, DNS_TYPE_A,
			DNS_CLASS_IN, 0, 1), 3);
	}
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 3);
	/* the 4th insert evicted 10.0.3 (expires first), the 5th 10.0.1 */
	ck_assert_str_eq(lookup(c, r, "10.0.3.1", 32, 1, &scope, NULL), "");
	ck_assert_str_eq(lookup(c, r, "10.0.1.1", 32, 1, &scope, NULL), "");
	ck_assert_str_ne(lookup(c, r, "10.0.2.1", 32, 1, &scope, NULL), "");
	ck_assert_str_ne(lookup(c, r, "10.0.4.1", 32, 1, &scope, NULL), "");
	ck_assert_str_ne(lookup(c, r, "10.0.5.1", 32, 1, &scope, NULL), "");
	/* the IPv6 bound is its own */
	ck_assert_int_eq(store(c, r, "2001:db8:1::", 48, "192.0.2.6", 100, 0),
		0);
	ck_assert_int_eq(store(c, r, "2001:db8:2::", 48, "192.0.2.6", 100, 0),
		0);
	ck_assert_int_eq(store(c, r, "2001:db8:3::", 48, "192.0.2.6", 100, 0),
		0);
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		2), 2);
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 3);
	ecs_cache_delete(c);
	/* a tree size of 0 keeps nothing; nor does a TTL of 0 */
	c = ecs_cache_create(1 << 20, 0, 0);
	ck_assert_int_eq(store(c, r, "10.0.1.0", 24, "192.0.2.1", 100, 0), -1);
	ecs_cache_delete(c);
	c = ecs_cache_create(1 << 20, 10, 10);
	ck_assert_int_eq(store(c, r, "10.0.1.0", 24, "192.0.2.1", 0, 0), -1);
	ck_assert_uint_eq(ecs_cache_count(c, qn, DNS_TYPE_A, DNS_CLASS_IN, 0,
		1), 0);
	ecs_cache_delete(c);
	region_destroy(r);
}
END_TEST

START_TEST(test_memory_bound)
{
	struct region *r = region_create(0);
	size_t max = 32768;
	struct ecs_cache *c = ecs_cache_create(max, 100, 100);
	uint8_t name[DNS_MAX_NAME];
	struct module_ecs e = mkclient("10.0.0.0", 24);
	int i, scope, first_gone;
	ck_assert_ptr_nonnull(c);
	for(i = 0; i < 200; i++) {
		char s[64];
		size_t len = sizeof(name);
		snprintf(s, sizeof(s), "n%d.example.com.", i);
		ck_assert_int_eq(dname_from_str(s, name, &len), 0);
		(void)ecs_cache_store(c, name, DNS_TYPE_A, DNS_CLASS_IN, 0, 1,
			e.addr, 24, mkans(r, "192.0.2.1", 100), 0);
		ck_assert_uint_le(ecs_cache_mem(c), max);
	}
	/* the newest question is there, the oldest went first */
	ck_assert_ptr_nonnull(ecs_cache_lookup(c, name, DNS_TYPE_A,
		DNS_CLASS_IN, 0, &e, 1, r, &scope));
	{
		size_t len = sizeof(name);
		ck_assert_int_eq(dname_from_str("n0.example.com.", name, &len),
			0);
		first_gone = ecs_cache_lookup(c, name, DNS_TYPE_A,
			DNS_CLASS_IN, 0, &e, 1, r, &scope) == NULL;
		ck_assert_int_eq(first_gone, 1);
	}
	ecs_cache_delete(c);
	region_destroy(r);
}
END_TEST

/** the suite */
static Suite *
subnetcache_suite(void)
{
	Suite *s = suite_create("subnetcache");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_scope_rules);
	tcase_add_test(tc, test_size_bound);
	tcase_add_test(tc, test_memory_bound);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int failed;
	SRunner *sr = srunner_create(subnetcache_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
