/*
 * tests/check_rrset.c - the RRset cache: lookups, TTLs, trust ranking, no
 * ghost domains, closest delegation with glue, flushing, messages.
 */
#include "config.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "services/cache/rrset.h"
#include "util/storage/shmarena.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"

#define T0 5000000

static struct region *reg;

static void
setup(void)
{
	reg = region_create(0);
}

static void
teardown(void)
{
	region_destroy(reg);
}

/** a name in wire format, in static storage (ring of 16) */
#define N(s) tu_name_ring(s)

/** store a set of names (NS) or addresses */
static int
put(struct rrset_cache *c, const char *owner, uint16_t type, uint32_t ttl,
	enum rrset_trust trust, int n, const uint8_t *const *rd,
	const uint16_t *lens, time_t now)
{
	struct rrset_data d;
	memset(&d, 0, sizeof(d));
	d.name = N(owner);
	d.name_len = dname_len(d.name);
	d.type = type;
	d.rrclass = DNS_CLASS_IN;
	d.ttl = ttl;
	d.trust = trust;
	d.count = (size_t)n;
	d.rdata = rd;
	d.rdlen = lens;
	return rrset_cache_store(c, &d, now);
}

/** store an NS set with the given server names */
static int
put_ns(struct rrset_cache *c, const char *zone, const char *ns1,
	const char *ns2, uint32_t ttl, enum rrset_trust trust, time_t now)
{
	static uint8_t names[2][DNS_MAX_NAME];
	const uint8_t *rd[2];
	uint16_t lens[2];
	size_t l = DNS_MAX_NAME;
	ck_assert_int_eq(dname_from_str(ns1, names[0], &l), 0);
	lens[0] = (uint16_t)l;
	rd[0] = names[0];
	l = DNS_MAX_NAME;
	if(ns2) {
		ck_assert_int_eq(dname_from_str(ns2, names[1], &l), 0);
		lens[1] = (uint16_t)l;
		rd[1] = names[1];
	}
	return put(c, zone, DNS_TYPE_NS, ttl, trust, ns2 ? 2 : 1, rd, lens,
		now);
}

static int
put_a(struct rrset_cache *c, const char *owner, uint8_t last, uint32_t ttl,
	enum rrset_trust trust, time_t now)
{
	static uint8_t addr[4];
	const uint8_t *rd[1];
	uint16_t lens[1] = { 4 };
	addr[0] = 192; addr[1] = 0; addr[2] = 2; addr[3] = last;
	rd[0] = addr;
	return put(c, owner, DNS_TYPE_A, ttl, trust, 1, rd, lens, now);
}

static int
get(struct rrset_cache *c, const char *owner, uint16_t type, time_t now,
	struct rrset_data *d)
{
	return rrset_cache_lookup(c, N(owner), type, DNS_CLASS_IN, now, reg,
		d);
}

/** 1 while the tests run on shared tables (the "shared" test case) */
static int g_shared;

/** checked fixture of the shared test case */
static void
shared_on(void)
{
	g_shared = 1;
}

/** its teardown (for CK_FORK=no runs) */
static void
shared_off(void)
{
	g_shared = 0;
}

/** a cache for a test: per-process, or on a shared table (shared-cache;
 * each test runs in its own process, the mapping goes with it) */
static struct rrset_cache *
new_rrset(size_t maxmem, size_t slabs, uint32_t min_ttl, uint32_t max_ttl)
{
	void *base;
	uint64_t off;
	struct rrset_cache *c;
	if(!g_shared)
		return rrset_cache_create(maxmem, slabs, min_ttl, max_ttl);
	base = shmarena_map_create(65536 + rrset_cache_shared_space(maxmem,
		slabs));
	ck_assert_ptr_nonnull(base);
	off = rrset_cache_shared_init(base, maxmem, slabs);
	ck_assert_uint_ne(off, 0);
	c = rrset_cache_create_shared(base, off, min_ttl, max_ttl);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(rrset_cache_shared_table(c));
	return c;
}

START_TEST(test_store_lookup)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	ck_assert_int_eq(put_a(c, "WWW.example", 7, 300, RRSET_TRUST_ANS_AA,
		T0), RRSET_STORED);
	ck_assert_int_eq(get(c, "www.EXAMPLE", DNS_TYPE_A, T0 + 100, &d), 0);
	ck_assert_uint_eq(d.ttl, 200);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_uint_eq(d.rdlen[0], 4);
	ck_assert_uint_eq(d.rdata[0][3], 7);
	ck_assert_int_eq(memcmp(d.name, N("www.example"), d.name_len), 0);
	ck_assert_int_eq(d.trust, RRSET_TRUST_ANS_AA);
	ck_assert_int_eq(get(c, "www.example", DNS_TYPE_AAAA, T0, &d), -1);
	ck_assert_int_eq(get(c, "www.example", DNS_TYPE_A, T0 + 300, &d), -1);
	/* TTL 0 is not stored; TTL clamps */
	ck_assert_int_eq(put_a(c, "zero.example", 1, 0, RRSET_TRUST_ANS_AA,
		T0), RRSET_NOT_STORED);
	rrset_cache_set_params(c, 1 << 20, 100, 1000);
	ck_assert_int_eq(put_a(c, "lo.example", 1, 5, RRSET_TRUST_ANS_AA, T0),
		RRSET_STORED);
	ck_assert_int_eq(get(c, "lo.example", DNS_TYPE_A, T0, &d), 0);
	ck_assert_uint_eq(d.ttl, 100);
	ck_assert_int_eq(put_a(c, "hi.example", 1, 99999, RRSET_TRUST_ANS_AA,
		T0), RRSET_STORED);
	ck_assert_int_eq(get(c, "hi.example", DNS_TYPE_A, T0, &d), 0);
	ck_assert_uint_eq(d.ttl, 1000);
	ck_assert_uint_eq(rrset_cache_get_count(c), 3);
	rrset_cache_delete(c);
}
END_TEST

START_TEST(test_trust)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	ck_assert_int_eq(put_a(c, "t.example", 1, 300, RRSET_TRUST_ANS_NOAA,
		T0), RRSET_STORED);
	/* lower trust does not replace */
	ck_assert_int_eq(put_a(c, "t.example", 2, 300, RRSET_TRUST_ADD_NOAA,
		T0 + 1), RRSET_KEPT);
	ck_assert_int_eq(get(c, "t.example", DNS_TYPE_A, T0 + 1, &d), 0);
	ck_assert_uint_eq(d.rdata[0][3], 1);
	/* higher trust does */
	ck_assert_int_eq(put_a(c, "t.example", 3, 300, RRSET_TRUST_ANS_AA,
		T0 + 2), RRSET_STORED);
	ck_assert_int_eq(get(c, "t.example", DNS_TYPE_A, T0 + 2, &d), 0);
	ck_assert_uint_eq(d.rdata[0][3], 3);
	ck_assert_int_eq(d.trust, RRSET_TRUST_ANS_AA);
	ck_assert_uint_eq(d.expire, T0 + 302);
	/* equal trust, same data: kept, the TTL is not extended */
	ck_assert_int_eq(put_a(c, "t.example", 3, 300, RRSET_TRUST_ANS_AA,
		T0 + 100), RRSET_KEPT);
	ck_assert_int_eq(get(c, "t.example", DNS_TYPE_A, T0 + 100, &d), 0);
	ck_assert_uint_eq(d.expire, T0 + 302);
	/* equal trust, new data: replaced (not NS or glue: new TTL) */
	ck_assert_int_eq(put_a(c, "t.example", 4, 300, RRSET_TRUST_ANS_AA,
		T0 + 100), RRSET_STORED);
	ck_assert_int_eq(get(c, "t.example", DNS_TYPE_A, T0 + 100, &d), 0);
	ck_assert_uint_eq(d.rdata[0][3], 4);
	ck_assert_uint_eq(d.expire, T0 + 400);
	/* once expired, lower trust goes in */
	ck_assert_int_eq(put_a(c, "t.example", 5, 300, RRSET_TRUST_ADD_NOAA,
		T0 + 400), RRSET_STORED);
	ck_assert_int_eq(get(c, "t.example", DNS_TYPE_A, T0 + 400, &d), 0);
	ck_assert_uint_eq(d.rdata[0][3], 5);
	rrset_cache_delete(c);
}
END_TEST

/* a refresh (prefetch) store with a leeway replaces a set of equal trust
 * and data that expires within it, with the new TTL; one that lives
 * longer than the leeway is kept */
START_TEST(test_leeway)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d, s;
	static uint8_t addr[4] = {192, 0, 2, 9};
	const uint8_t *rd[1] = {addr};
	uint16_t lens[1] = { 4 };
	ck_assert_int_eq(put_a(c, "l.example", 9, 3600, RRSET_TRUST_ANS_AA,
		T0), RRSET_STORED);
	memset(&s, 0, sizeof(s));
	s.name = N("l.example");
	s.name_len = dname_len(s.name);
	s.type = DNS_TYPE_A;
	s.rrclass = DNS_CLASS_IN;
	s.ttl = 3600;
	s.trust = RRSET_TRUST_ANS_AA;
	s.count = 1;
	s.rdata = rd;
	s.rdlen = lens;
	/* 1000 s left, leeway 400: kept */
	ck_assert_int_eq(rrset_cache_store_leeway(c, &s, T0 + 2600, 400),
		RRSET_KEPT);
	ck_assert_int_eq(get(c, "l.example", DNS_TYPE_A, T0 + 2600, &d), 0);
	ck_assert_uint_eq(d.ttl, 1000);
	/* 360 s left: replaced, the full TTL from now */
	ck_assert_int_eq(rrset_cache_store_leeway(c, &s, T0 + 3240, 400),
		RRSET_STORED);
	ck_assert_int_eq(get(c, "l.example", DNS_TYPE_A, T0 + 3240, &d), 0);
	ck_assert_uint_eq(d.ttl, 3600);
	/* without a leeway the same store keeps it */
	ck_assert_int_eq(rrset_cache_store(c, &s, T0 + 6480), RRSET_KEPT);
	ck_assert_int_eq(get(c, "l.example", DNS_TYPE_A, T0 + 6480, &d), 0);
	ck_assert_uint_eq(d.ttl, 360);
	rrset_cache_delete(c);
}
END_TEST

START_TEST(test_ghost_domain)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	/* the parent's referral */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns1.ghost.example",
		NULL, 3600, RRSET_TRUST_AUTH_NOAA, T0), RRSET_STORED);
	/* the same referral again later: no longer life */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns1.ghost.example",
		NULL, 3600, RRSET_TRUST_AUTH_NOAA, T0 + 1000), RRSET_KEPT);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 1000, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 3600);
	/* a changed NS set at referral trust: new data, old expiry */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns2.ghost.example",
		NULL, 86400, RRSET_TRUST_AUTH_NOAA, T0 + 2000), RRSET_STORED);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 2000, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 3600);
	ck_assert_uint_eq(d.ttl, 1600);
	/* glue re-added does not live longer either */
	ck_assert_int_eq(put_a(c, "ns2.ghost.example", 9, 3600,
		RRSET_TRUST_ADD_AA, T0), RRSET_STORED);
	ck_assert_int_eq(put_a(c, "ns2.ghost.example", 10, 3600,
		RRSET_TRUST_ADD_AA, T0 + 3000), RRSET_STORED);
	ck_assert_int_eq(get(c, "ns2.ghost.example", DNS_TYPE_A, T0 + 3000,
		&d), 0);
	ck_assert_uint_eq(d.expire, T0 + 3600);
	/* but the child's own authoritative NS set sets a new expiry */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns3.ghost.example",
		NULL, 3600, RRSET_TRUST_ANS_AA, T0 + 3000), RRSET_STORED);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 3000, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 6600);
	/* the child's changed NS set at the same trust keeps that expiry
	 * (its old servers do not keep a moved domain alive) */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns5.ghost.example",
		NULL, 3600, RRSET_TRUST_ANS_AA, T0 + 4000), RRSET_STORED);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 4000, &d),
		0);
	ck_assert_uint_eq(d.rdata[0][3], '5');
	ck_assert_uint_eq(d.expire, T0 + 6600);
	/* after expiry, the parent's referral is taken again */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns4.ghost.example",
		NULL, 600, RRSET_TRUST_AUTH_NOAA, T0 + 7000), RRSET_STORED);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 7000, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 7600);
	/* an NS answer without AA (the child apex asked for its NS set)
	 * is more trusted than the referral, but does not extend it */
	ck_assert_int_eq(put_ns(c, "ghost.example", "ns6.ghost.example",
		NULL, 7200, RRSET_TRUST_ANS_NOAA, T0 + 7100), RRSET_STORED);
	ck_assert_int_eq(get(c, "ghost.example", DNS_TYPE_NS, T0 + 7100, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 7600);
	rrset_cache_delete(c);
}
END_TEST

/* the child's authoritative address set, the same as the glue it
 * replaces, keeps the glue's expiry (rrset_cache_store_held says so);
 * another address from the child sets its own */
START_TEST(test_ghost_glue_same)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	static uint8_t addr[4] = { 192, 0, 2, 7 };
	const uint8_t *rd[1] = { addr };
	uint16_t lens[1] = { 4 };
	int held = -1;
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(put_a(c, "ns.glue.example", 7, 4,
		RRSET_TRUST_ADD_NOAA, T0), RRSET_STORED);
	d.name = N("ns.glue.example");
	d.name_len = dname_len(d.name);
	d.type = DNS_TYPE_A;
	d.rrclass = DNS_CLASS_IN;
	d.ttl = 7200;
	d.trust = RRSET_TRUST_ANS_AA;
	d.count = 1;
	d.rdata = rd;
	d.rdlen = lens;
	ck_assert_int_eq(rrset_cache_store_held(c, &d, T0 + 1, 0, T0 + 1,
		&held), RRSET_STORED);
	ck_assert_int_eq(held, 1);
	ck_assert_int_eq(get(c, "ns.glue.example", DNS_TYPE_A, T0 + 1, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 4);
	ck_assert_int_eq(d.trust, RRSET_TRUST_ANS_AA);
	/* other glue, then the child's other address: its own TTL */
	ck_assert_int_eq(put_a(c, "ns2.glue.example", 8, 4,
		RRSET_TRUST_ADD_NOAA, T0), RRSET_STORED);
	ck_assert_int_eq(put_a(c, "ns2.glue.example", 9, 7200,
		RRSET_TRUST_ANS_AA, T0 + 1), RRSET_STORED);
	ck_assert_int_eq(get(c, "ns2.glue.example", DNS_TYPE_A, T0 + 1, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 7201);
	rrset_cache_delete(c);
}
END_TEST

/** store an NS set (one name) as a finished answer's, the query having
 * started at qstart (rrset_cache_store_answer) */
static int
put_ns_answer(struct rrset_cache *c, const char *zone, const char *ns1,
	uint32_t ttl, enum rrset_trust trust, time_t now, time_t qstart)
{
	static uint8_t name[DNS_MAX_NAME];
	const uint8_t *rd[1];
	uint16_t lens[1];
	size_t l = DNS_MAX_NAME;
	struct rrset_data d;
	ck_assert_int_eq(dname_from_str(ns1, name, &l), 0);
	rd[0] = name;
	lens[0] = (uint16_t)l;
	memset(&d, 0, sizeof(d));
	d.name = N(zone);
	d.name_len = dname_len(d.name);
	d.type = DNS_TYPE_NS;
	d.rrclass = DNS_CLASS_IN;
	d.ttl = ttl;
	d.trust = trust;
	d.count = 1;
	d.rdata = rd;
	d.rdlen = lens;
	return rrset_cache_store_answer(c, &d, now, 0, qstart);
}

/* an answer to a query that started before the NS set expired and
 * arrived after does not renew it with an equal set (Unbound's
 * iter_ghost_timewindow.rpl); one that started after it expired does */
START_TEST(test_ghost_timewindow)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	ck_assert_int_eq(put_ns_answer(c, "win.example", "ns.win.example",
		3600, RRSET_TRUST_AUTH_AA, T0, T0), RRSET_STORED);
	/* started at T0 + 3595, answered at T0 + 3605: kept, expired */
	ck_assert_int_eq(put_ns_answer(c, "win.example", "ns.win.example",
		3600, RRSET_TRUST_AUTH_AA, T0 + 3605, T0 + 3595), RRSET_KEPT);
	ck_assert_int_eq(get(c, "win.example", DNS_TYPE_NS, T0 + 3605, &d),
		-1);
	/* a changed set of the same trust still replaces it, at the old
	 * expiry (a moved domain is not kept alive) */
	ck_assert_int_eq(put_ns_answer(c, "win.example", "ns2.win.example",
		3600, RRSET_TRUST_AUTH_AA, T0 + 3605, T0 + 3595),
		RRSET_STORED);
	ck_assert_int_eq(get(c, "win.example", DNS_TYPE_NS, T0 + 3605, &d),
		-1);
	/* a query started after the expiry: stored with its own TTL */
	ck_assert_int_eq(put_ns_answer(c, "win.example", "ns.win.example",
		3600, RRSET_TRUST_AUTH_AA, T0 + 3610, T0 + 3601),
		RRSET_STORED);
	ck_assert_int_eq(get(c, "win.example", DNS_TYPE_NS, T0 + 3610, &d),
		0);
	ck_assert_uint_eq(d.expire, T0 + 7210);
	/* other types are compared at the time they arrive */
	ck_assert_int_eq(put_a(c, "ns.win.example", 1, 10,
		RRSET_TRUST_ANS_AA, T0), RRSET_STORED);
	ck_assert_int_eq(put_a(c, "ns.win.example", 1, 10,
		RRSET_TRUST_ANS_AA, T0 + 20), RRSET_STORED);
	rrset_cache_delete(c);
}
END_TEST

/* a parent-side copy of a glue set lives apart from the name's own set:
 * the child's answer for the name does not replace it, plain lookups
 * and dumps do not see it, a flush removes it (iter_pcnamerec.rpl) */
static void
count_set(const struct rrset_data *d, void *arg)
{
	(void)d;
	(*(int *)arg)++;
}

START_TEST(test_parent_side)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	static const uint8_t a44[4] = {1, 2, 3, 44};
	const uint8_t *rd[1] = {a44};
	uint16_t lens[1] = {4};
	int n = 0;
	memset(&d, 0, sizeof(d));
	d.name = N("ns.pside.example");
	d.name_len = dname_len(d.name);
	d.type = DNS_TYPE_A;
	d.rrclass = DNS_CLASS_IN;
	d.ttl = 3600;
	d.trust = RRSET_TRUST_ADD_NOAA;
	d.count = 1;
	d.rdata = rd;
	d.rdlen = lens;
	ck_assert_int_eq(rrset_cache_store_pside(c, &d, T0), RRSET_STORED);
	/* not the name's own set */
	ck_assert_int_eq(get(c, "ns.pside.example", DNS_TYPE_A, T0, &d), -1);
	/* the child's answer: the own set, the copy stays */
	ck_assert_int_eq(put_a(c, "ns.pside.example", 55, 3600,
		RRSET_TRUST_ANS_AA, T0), RRSET_STORED);
	ck_assert_int_eq(get(c, "ns.pside.example", DNS_TYPE_A, T0, &d), 0);
	ck_assert_uint_eq(d.rdata[0][3], 55);
	ck_assert_int_eq(rrset_cache_lookup_pside(c, N("NS.pside.example"),
		DNS_TYPE_A, DNS_CLASS_IN, T0 + 10, reg, &d), 0);
	ck_assert_uint_eq(d.count, 1);
	ck_assert_uint_eq(d.rdata[0][3], 44);
	ck_assert_uint_eq(d.ttl, 3590);
	/* a dump lists the own set only */
	rrset_cache_traverse(c, T0, count_set, &n);
	ck_assert_int_eq(n, 1);
	/* flushing the type removes both */
	ck_assert_uint_eq(rrset_cache_flush_type(c, N("ns.pside.example"),
		DNS_TYPE_A, DNS_CLASS_IN), 2);
	ck_assert_int_eq(rrset_cache_lookup_pside(c, N("ns.pside.example"),
		DNS_TYPE_A, DNS_CLASS_IN, T0, reg, &d), -1);
	rrset_cache_delete(c);
}
END_TEST

START_TEST(test_delegation)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_delegation dp;
	uint8_t aaaa[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	const uint8_t *rd[1] = { aaaa };
	uint16_t lens[1] = { 16 };
	size_t i;
	int have_a = 0, have_aaaa = 0;
	ck_assert_int_eq(rrset_cache_find_delegation(c, N("www.example"),
		DNS_CLASS_IN, T0, reg, &dp), -1);
	put_ns(c, ".", "a.root-servers.net", NULL, 518400,
		RRSET_TRUST_ANS_AA, T0);
	put_ns(c, "example", "ns1.example", "ns2.example", 3600,
		RRSET_TRUST_AUTH_NOAA, T0);
	put_a(c, "ns1.example", 1, 3600, RRSET_TRUST_ADD_NOAA, T0);
	put(c, "ns2.example", DNS_TYPE_AAAA, 3600, RRSET_TRUST_ADD_NOAA, 1,
		rd, lens, T0);
	ck_assert_int_eq(rrset_cache_find_delegation(c,
		N("WWW.Sub.Example"), DNS_CLASS_IN, T0 + 10, reg, &dp), 0);
	ck_assert_int_eq(memcmp(dp.ns.name, N("example"), dp.ns.name_len), 0);
	ck_assert_uint_eq(dp.ns.count, 2);
	ck_assert_uint_eq(dp.glue_count, 2);
	for(i = 0; i < dp.glue_count; i++) {
		if(dp.glue[i].type == DNS_TYPE_A &&
			dname_equal(dp.glue[i].name, N("ns1.example")))
			have_a = 1;
		if(dp.glue[i].type == DNS_TYPE_AAAA &&
			dname_equal(dp.glue[i].name, N("ns2.example")))
			have_aaaa = 1;
	}
	ck_assert(have_a && have_aaaa);
	/* the zone itself */
	ck_assert_int_eq(rrset_cache_find_delegation(c, N("example"),
		DNS_CLASS_IN, T0 + 10, reg, &dp), 0);
	ck_assert_uint_eq(dp.ns.name_len, dname_len(N("example")));
	/* elsewhere: the root */
	ck_assert_int_eq(rrset_cache_find_delegation(c, N("www.other.org"),
		DNS_CLASS_IN, T0 + 10, reg, &dp), 0);
	ck_assert_uint_eq(dp.ns.name_len, 1);
	ck_assert_uint_eq(dp.glue_count, 0);
	/* when example's NS set expired: the root */
	ck_assert_int_eq(rrset_cache_find_delegation(c, N("www.example"),
		DNS_CLASS_IN, T0 + 3600, reg, &dp), 0);
	ck_assert_uint_eq(dp.ns.name_len, 1);
	rrset_cache_delete(c);
}
END_TEST

START_TEST(test_flush)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct rrset_data d;
	put_a(c, "a.z.example", 1, 300, RRSET_TRUST_ANS_AA, T0);
	put_ns(c, "a.z.example", "ns.example", NULL, 300, RRSET_TRUST_ANS_AA,
		T0);
	put_a(c, "b.z.example", 1, 300, RRSET_TRUST_ANS_AA, T0);
	put_a(c, "z.example", 1, 300, RRSET_TRUST_ANS_AA, T0);
	put_a(c, "y.example", 1, 300, RRSET_TRUST_ANS_AA, T0);
	ck_assert_uint_eq(rrset_cache_get_count(c), 5);
	ck_assert_uint_eq(rrset_cache_flush_type(c, N("A.Z.example"),
		DNS_TYPE_NS, DNS_CLASS_IN), 1);
	ck_assert_int_eq(get(c, "a.z.example", DNS_TYPE_A, T0, &d), 0);
	put_ns(c, "a.z.example", "ns.example", NULL, 300, RRSET_TRUST_ANS_AA,
		T0);
	ck_assert_uint_eq(rrset_cache_flush_name(c, N("a.z.example")), 2);
	ck_assert_uint_eq(rrset_cache_flush_zone(c, N("z.example")), 2);
	ck_assert_uint_eq(rrset_cache_get_count(c), 1);
	rrset_cache_flush_all(c);
	ck_assert_uint_eq(rrset_cache_get_count(c), 0);
	rrset_cache_delete(c);
}
END_TEST

static void
count_fn(const struct rrset_data *rs, void *arg)
{
	ck_assert_uint_ge(rs->count, 1);
	(*(int *)arg)++;
}

START_TEST(test_from_msg)
{
	struct rrset_cache *c = new_rrset(1 << 20, 4, 0, 86400);
	struct dns_builder b;
	uint8_t buf[1024], nsname[DNS_MAX_NAME], ns2[DNS_MAX_NAME];
	size_t len, l1 = sizeof(nsname), l2 = sizeof(ns2);
	struct dns_msg msg;
	struct dns_rrset sets[8];
	struct rrset_data d;
	int nsets, i, found = 0, n = 0;
	ck_assert_int_eq(dname_from_str("ns1.example", nsname, &l1), 0);
	ck_assert_int_eq(dname_from_str("ns2.example", ns2, &l2), 0);
	dns_build_init(&b, buf, sizeof(buf), 0);
	dns_build_header(&b, 1, DNS_FLAG_QR);
	dns_build_question(&b, N("www.example"), DNS_TYPE_A, DNS_CLASS_IN);
	/* two NS records; the second name compresses against the first */
	dns_build_rr(&b, DNS_SEC_AUTHORITY, N("example"), DNS_TYPE_NS,
		DNS_CLASS_IN, 900, nsname, l1);
	dns_build_rr(&b, DNS_SEC_AUTHORITY, N("example"), DNS_TYPE_NS,
		DNS_CLASS_IN, 600, ns2, l2);
	len = dns_build_finish(&b);
	ck_assert_int_eq(dns_msg_parse(buf, len, &msg, NULL, 0), 0);
	nsets = dns_msg_group_rrsets(&msg, sets, 8);
	ck_assert_int_eq(nsets, 1);
	for(i = 0; i < nsets; i++) {
		ck_assert_int_eq(rrset_data_from_msg(&msg, &sets[i], NULL,
			RRSET_TRUST_AUTH_NOAA, reg, &d), 0);
		ck_assert_uint_eq(d.count, 2);
		ck_assert_uint_eq(d.ttl, 600);
		ck_assert_int_eq(rrset_cache_store(c, &d, T0), RRSET_STORED);
	}
	ck_assert_int_eq(get(c, "example", DNS_TYPE_NS, T0, &d), 0);
	for(i = 0; i < (int)d.count; i++)
		if(d.rdlen[i] == l2 && memcmp(d.rdata[i], ns2, l2) == 0)
			found = 1;
	ck_assert(found);
	ck_assert_int_eq(rrset_cache_traverse(c, T0, count_fn, &n), 0);
	ck_assert_int_eq(n, 1);
	rrset_cache_delete(c);
}
END_TEST

START_TEST(test_budget)
{
	size_t budget = 128 * 1024;
	struct rrset_cache *c = new_rrset(budget, 4, 0, 86400);
	int i;
	char nm[64];
	for(i = 0; i < 20000; i++) {
		snprintf(nm, sizeof(nm), "h%d.example", i);
		put_a(c, nm, (uint8_t)i, 300, RRSET_TRUST_ANS_AA, T0);
		ck_assert_uint_le(rrset_cache_get_mem(c), budget);
	}
	ck_assert_uint_gt(rrset_cache_get_count(c), 500);
	rrset_cache_delete(c);
}
END_TEST

static Suite *
rrset_suite(void)
{
	Suite *s = suite_create("rrset");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_store_lookup);
	tcase_add_test(tc, test_trust);
	tcase_add_test(tc, test_leeway);
	tcase_add_test(tc, test_ghost_domain);
	tcase_add_test(tc, test_ghost_timewindow);
	tcase_add_test(tc, test_ghost_glue_same);
	tcase_add_test(tc, test_parent_side);
	tcase_add_test(tc, test_delegation);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_from_msg);
	tcase_add_test(tc, test_budget);
	suite_add_tcase(s, tc);
	tc = tcase_create("shared");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_checked_fixture(tc, shared_on, shared_off);
	tcase_add_test(tc, test_store_lookup);
	tcase_add_test(tc, test_trust);
	tcase_add_test(tc, test_leeway);
	tcase_add_test(tc, test_ghost_domain);
	tcase_add_test(tc, test_ghost_timewindow);
	tcase_add_test(tc, test_ghost_glue_same);
	tcase_add_test(tc, test_parent_side);
	tcase_add_test(tc, test_delegation);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_from_msg);
	tcase_add_test(tc, test_budget);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(rrset_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
