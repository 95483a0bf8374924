/*
 * tests/check_infra.c - the infrastructure cache: RTT smoothing, timeout
 * backoff, EDNS status, lameness, expiry, server selection.
 */
#include "config.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdlib.h>
#include <string.h>
#include "services/cache/infra.h"
#include "util/storage/shmarena.h"
#include "util/netaddr.h"
#include "util/random.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/thread.h"
#include "util/storage/qsbr.h"

#define T0 7000000

static struct netaddr
A(const char *s)
{
	struct netaddr a;
	ck_assert_int_eq(netaddr_parse(s, 53, &a, NULL), 0);
	return a;
}

static const uint8_t *
N(const char *s, uint8_t *buf)
{
	(void)tu_name(s, buf);
	return buf;
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

/** a 1 MB, 4-slab cache with a 900 s host TTL: per-process, or on a
 * shared table (shared-cache; each test runs in its own process, the
 * mapping goes with it) */
static struct infra_cache *
new_infra(void)
{
	void *base;
	uint64_t off;
	struct infra_cache *c;
	if(!g_shared)
		return infra_create(1 << 20, 4, 900);
	base = shmarena_map_create(65536 + infra_shared_space(1 << 20, 4));
	ck_assert_ptr_nonnull(base);
	off = infra_shared_init(base, 1 << 20, 4);
	ck_assert_uint_ne(off, 0);
	c = infra_create_shared(base, off, 900);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_nonnull(infra_shared_table(c));
	return c;
}

START_TEST(test_rtt)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.1");
	struct infra_host h;
	int i;
	ck_assert_int_eq(infra_host_get(c, &a, T0, &h), -1);
	ck_assert_int_eq(h.rto, INFRA_UNKNOWN_RTO);
	ck_assert_int_eq(h.srtt, -1);
	ck_assert_int_eq(infra_get_rto(c, &a, T0), 376);
	/* first sample: srtt = R, rttvar = R/2, rto = srtt + 4 rttvar */
	infra_rtt_update(c, &a, DNS_TYPE_A, 100, 376, T0);
	ck_assert_int_eq(infra_host_get(c, &a, T0, &h), 0);
	ck_assert_int_eq(h.srtt, 100);
	ck_assert_int_eq(h.rttvar, 50);
	ck_assert_int_eq(h.rto, 300);
	/* same sample again: the variance shrinks */
	infra_rtt_update(c, &a, DNS_TYPE_A, 100, 300, T0);
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.srtt, 100);
	ck_assert_int_eq(h.rttvar, 38);
	ck_assert_int_eq(h.rto, 252);
	/* a slower sample moves srtt by 1/8 */
	infra_rtt_update(c, &a, DNS_TYPE_A, 180, 252, T0);
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.srtt, 110);
	ck_assert_int_eq(h.rttvar, 48);
	ck_assert_int_eq(h.rto, 110 + 4 * 48);
	/* very fast: never below the minimum */
	for(i = 0; i < 100; i++)
		infra_rtt_update(c, &a, DNS_TYPE_A, 1, 50, T0);
	ck_assert_int_eq(infra_get_rto(c, &a, T0), INFRA_RTO_MIN);
	infra_delete(c);
}
END_TEST

/* unknown-server-time-limit: a server never heard from waits that long
 * (first query; a timeout then doubles it), within the rto limits */
START_TEST(test_unknown_rto)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.20"), b = A("192.0.2.21");
	struct infra_host h;
	infra_set_unknown_rto(c, 1128);
	ck_assert_int_eq(infra_get_rto(c, &a, T0), 1128);
	ck_assert_int_eq(infra_host_get(c, &a, T0, &h), -1);
	ck_assert_int_eq(h.rto, 1128);
	/* its first timeout doubles it */
	infra_rtt_update(c, &a, DNS_TYPE_A, -1, infra_get_rto(c, &a, T0), T0);
	ck_assert_int_eq(infra_get_rto(c, &a, T0), 2256);
	/* a maximum below it caps it */
	infra_set_rtt_limits(c, 50, 1000);
	ck_assert_int_eq(infra_get_rto(c, &b, T0), 1000);
	/* 0: the default */
	infra_set_rtt_limits(c, 50, 120000);
	infra_set_unknown_rto(c, 0);
	ck_assert_int_eq(infra_get_rto(c, &b, T0), INFRA_UNKNOWN_RTO);
	infra_delete(c);
}
END_TEST

/* infra-cache-min-rtt / infra-cache-max-rtt: every rto stays within the
 * limits set; a server never heard from starts at the minimum when that
 * is above 376 ms; the budget of n servers holds n servers */
START_TEST(test_rtt_limits)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.9"), b = A("192.0.2.10");
	int i;
	infra_set_rtt_limits(c, 1000, 5000);
	ck_assert_int_eq(infra_get_rto(c, &b, T0), 1000);
	for(i = 0; i < 50; i++)
		infra_rtt_update(c, &a, DNS_TYPE_A, 1, 1000, T0);
	ck_assert_int_eq(infra_get_rto(c, &a, T0), 1000);
	for(i = 0; i < 10; i++)
		infra_rtt_update(c, &a, DNS_TYPE_A, -1,
			infra_get_rto(c, &a, T0 + 1), T0 + 1);
	ck_assert_int_eq(infra_get_rto(c, &a, T0 + 1), 5000);
	/* a low maximum caps the first timeout of a new server too */
	infra_set_rtt_limits(c, 10, 200);
	ck_assert_int_eq(infra_get_rto(c, &b, T0), 200);
	infra_delete(c);
	ck_assert_uint_gt(infra_mem_for_hosts(10000), 10000 * 100);
	ck_assert_uint_eq(infra_mem_for_hosts(2000) * 5,
		infra_mem_for_hosts(10000));
}
END_TEST

START_TEST(test_timeouts)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.2");
	struct infra_host h;
	int i;
	infra_rtt_update(c, &a, DNS_TYPE_A, -1, 376, T0);
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.rto, 752);
	ck_assert_int_eq(h.timeouts, 1);
	infra_rtt_update(c, &a, DNS_TYPE_A, -1, 752, T0 + 1);
	infra_host_get(c, &a, T0 + 1, &h);
	ck_assert_int_eq(h.rto, 1504);
	ck_assert_int_eq(h.timeouts, 2);
	for(i = 0; i < 20; i++)
		infra_rtt_update(c, &a, DNS_TYPE_A, -1,
			infra_get_rto(c, &a, T0 + 2), T0 + 2);
	infra_host_get(c, &a, T0 + 2, &h);
	ck_assert_int_eq(h.rto, INFRA_RTO_MAX);
	ck_assert_int_eq(h.timeouts, 22);
	/* an answer resets the count and brings the rto back */
	infra_rtt_update(c, &a, DNS_TYPE_A, 40, INFRA_RTO_MAX, T0 + 3);
	infra_host_get(c, &a, T0 + 3, &h);
	ck_assert_int_eq(h.timeouts, 0);
	ck_assert_int_eq(h.srtt, 40);
	ck_assert_int_eq(h.rto, 120);
	/* entries expire after infra-host-ttl */
	ck_assert_int_eq(infra_host_get(c, &a, T0 + 3 + 899, &h), 0);
	ck_assert_int_eq(infra_host_get(c, &a, T0 + 3 + 900, &h), -1);
	ck_assert_int_eq(h.rto, INFRA_UNKNOWN_RTO);
	/* an update after expiry starts from scratch */
	infra_rtt_update(c, &a, DNS_TYPE_A, -1, 376, T0 + 5000);
	infra_host_get(c, &a, T0 + 5000, &h);
	ck_assert_int_eq(h.timeouts, 1);
	ck_assert_int_eq(h.rto, 752);
	infra_delete(c);
}
END_TEST

START_TEST(test_down_probe)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.7"), b = A("192.0.2.8");
	struct infra_host h;
	int i;
	/* unknown and answering servers are not down; a claim is free */
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0), 0);
	ck_assert_int_eq(infra_probe_claim(c, &a, T0, 3), 1);
	infra_rtt_update(c, &b, DNS_TYPE_A, 20, 376, T0);
	ck_assert_int_eq(infra_is_down(c, &b, DNS_TYPE_A, T0), 0);
	/* INFRA_DOWN_TIMEOUTS timeouts in a row: down */
	for(i = 0; i < INFRA_DOWN_TIMEOUTS; i++) {
		ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0), 0);
		infra_rtt_update(c, &a, DNS_TYPE_A, -1,
			infra_get_rto(c, &a, T0), T0);
	}
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0), 1);
	/* one probe at a time: the first claim wins, the next ones lose
	 * until its secs have passed */
	ck_assert_int_eq(infra_probe_claim(c, &a, T0, 3), 1);
	ck_assert_int_eq(infra_probe_claim(c, &a, T0, 3), 0);
	ck_assert_int_eq(infra_probe_claim(c, &a, T0 + 2, 3), 0);
	ck_assert_int_eq(infra_probe_claim(c, &a, T0 + 3, 3), 1);
	/* a claim does not make the entry live longer */
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.expire, T0 + 900);
	/* an answer: up again */
	infra_rtt_update(c, &a, DNS_TYPE_A, 30, 3008, T0 + 4);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0 + 4), 0);
	/* queries lost together (sent with the same rto) back off once */
	for(i = 0; i < 10; i++)
		infra_rtt_update(c, &b, DNS_TYPE_A, -1, 60, T0 + 10);
	infra_host_get(c, &b, T0 + 10, &h);
	ck_assert_int_eq(h.timeouts, 1);
	ck_assert_int_eq(h.rto, 120);
	ck_assert_int_eq(infra_is_down(c, &b, DNS_TYPE_A, T0 + 10), 0);
	/* a down entry that expired is unknown, not down */
	for(i = 1; i < INFRA_DOWN_TIMEOUTS; i++)
		infra_rtt_update(c, &b, DNS_TYPE_A, -1,
			infra_get_rto(c, &b, T0 + 10), T0 + 10);
	ck_assert_int_eq(infra_is_down(c, &b, DNS_TYPE_A, T0 + 10), 1);
	ck_assert_int_eq(infra_is_down(c, &b, DNS_TYPE_A, T0 + 10 + 900), 0);
	infra_delete(c);
}
END_TEST

/* down is per kind of query type: a server that drops only AAAA
 * queries is down for AAAA and still asked for A and other types
 * (Unbound's iter_timeout_ra_aaaa.rpl) */
START_TEST(test_down_per_type)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("192.0.2.9");
	struct infra_host h;
	int i;
	infra_rtt_update(c, &a, DNS_TYPE_A, 20, 376, T0);
	for(i = 0; i < INFRA_DOWN_TIMEOUTS + 2; i++)
		infra_rtt_update(c, &a, DNS_TYPE_AAAA, -1,
			infra_get_rto(c, &a, T0), T0);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_AAAA, T0), 1);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0), 0);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_MX, T0), 0);
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.type_timeouts[INFRA_TIMEOUT_AAAA],
		INFRA_DOWN_TIMEOUTS);
	/* the probe of a down server is claimed whatever the type */
	ck_assert_int_eq(infra_probe_claim(c, &a, T0, 3), 1);
	ck_assert_int_eq(infra_probe_claim(c, &a, T0, 3), 0);
	/* an A answer: up again; the AAAA count stays, but the timeouts
	 * in a row start over */
	infra_rtt_update(c, &a, DNS_TYPE_A, 30, 376, T0 + 1);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_AAAA, T0 + 1), 0);
	infra_host_get(c, &a, T0 + 1, &h);
	ck_assert_int_eq(h.type_timeouts[INFRA_TIMEOUT_AAAA],
		INFRA_DOWN_TIMEOUTS);
	/* A timeouts count for A only: an MX query is still sent */
	for(i = 0; i < INFRA_DOWN_TIMEOUTS; i++)
		infra_rtt_update(c, &a, DNS_TYPE_A, -1,
			infra_get_rto(c, &a, T0 + 2), T0 + 2);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_A, T0 + 2), 1);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_AAAA, T0 + 2), 1);
	ck_assert_int_eq(infra_is_down(c, &a, DNS_TYPE_TXT, T0 + 2), 0);
	/* an AAAA answer clears the AAAA count */
	infra_rtt_update(c, &a, DNS_TYPE_AAAA, 30, 376, T0 + 3);
	infra_host_get(c, &a, T0 + 3, &h);
	ck_assert_int_eq(h.type_timeouts[INFRA_TIMEOUT_AAAA], 0);
	ck_assert_int_eq(h.type_timeouts[INFRA_TIMEOUT_A],
		INFRA_DOWN_TIMEOUTS);
	infra_delete(c);
}
END_TEST

START_TEST(test_edns_lame)
{
	struct infra_cache *c = new_infra();
	struct netaddr a = A("2001:db8::53"), b = A("192.0.2.3"),
		a2 = A("2001:db8::53@5353");
	struct infra_host h;
	uint8_t z1[DNS_MAX_NAME], z2[DNS_MAX_NAME];
	infra_edns_update(c, &a, INFRA_EDNS_NO, T0);
	infra_rtt_update(c, &a, DNS_TYPE_A, 30, 376, T0);
	infra_host_get(c, &a, T0, &h);
	ck_assert_int_eq(h.edns, INFRA_EDNS_NO);
	ck_assert_int_eq(h.srtt, 30);
	/* the port is part of the key */
	ck_assert_int_eq(infra_host_get(c, &a2, T0, &h), -1);
	ck_assert_int_eq(h.edns, INFRA_EDNS_UNKNOWN);
	infra_set_lame(c, &b, N("example", z1), T0);
	ck_assert_int_eq(infra_is_lame(c, &b, N("EXAMPLE", z2), T0), 1);
	ck_assert_int_eq(infra_is_lame(c, &b, N("example.org", z2), T0), 0);
	ck_assert_int_eq(infra_is_lame(c, &a, N("example", z2), T0), 0);
	ck_assert_int_eq(infra_is_lame(c, &b, N("example", z2), T0 + 900), 0);
	/* lameness does not touch the host's RTT data */
	ck_assert_int_eq(infra_host_get(c, &b, T0, &h), -1);
	ck_assert_uint_eq(infra_get_count(c), 2);
	ck_assert_uint_eq(infra_flush_addr(c, &b), 1);
	ck_assert_int_eq(infra_is_lame(c, &b, N("example", z2), T0), 0);
	infra_flush_all(c);
	ck_assert_uint_eq(infra_get_count(c), 0);
	infra_delete(c);
}
END_TEST

START_TEST(test_select)
{
	struct infra_cache *c = new_infra();
	struct petrel_random *rnd = random_create_seeded(42);
	struct netaddr cands[3];
	uint8_t z[DNS_MAX_NAME];
	int counts[3] = {0, 0, 0}, i, rto;
	cands[0] = A("192.0.2.10");
	cands[1] = A("192.0.2.11");
	cands[2] = A("192.0.2.12");
	/* 0: fast (rto 150); 1: slow (rto ~3000); 2: unknown (376) */
	infra_rtt_update(c, &cands[0], DNS_TYPE_A, 50, 376, T0);
	infra_rtt_update(c, &cands[1], DNS_TYPE_A, 1000, 376, T0);
	for(i = 0; i < 1000; i++) {
		int k = infra_select(c, cands, 3, NULL, T0, rnd, &rto);
		ck_assert_int_ge(k, 0);
		counts[k]++;
		ck_assert_int_eq(rto, k == 0 ? 150 : 376);
	}
	ck_assert_int_gt(counts[0], 300);
	ck_assert_int_gt(counts[2], 300);
	ck_assert_int_eq(counts[1], 0);
	/* the fast one is lame for the zone: only the unknown one is left
	 * in the band */
	infra_set_lame(c, &cands[0], N("example", z), T0);
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(infra_select(c, cands, 3, z, T0, rnd, NULL), 2);
	infra_set_lame(c, &cands[1], z, T0);
	infra_set_lame(c, &cands[2], z, T0);
	ck_assert_int_eq(infra_select(c, cands, 3, z, T0, rnd, NULL), -1);
	ck_assert_int_eq(infra_select(c, cands, 0, NULL, T0, rnd, NULL), -1);
	random_delete(rnd);
	infra_delete(c);
}
END_TEST

/* fast-server-permil, fast-server-num: with 1000 permil every pick is
 * among the num fastest (the unknown server within the band never
 * picked); with 500, about half the picks are */
START_TEST(test_select_fast)
{
	struct infra_cache *c = new_infra();
	struct petrel_random *rnd = random_create_seeded(7);
	struct netaddr cands[4];
	int counts[4] = {0, 0, 0, 0}, i, rto;
	cands[0] = A("192.0.2.30");
	cands[1] = A("192.0.2.31");
	cands[2] = A("192.0.2.32");
	cands[3] = A("192.0.2.33");
	/* rto 150, 300, 240; 3 unknown (376): all four in the band */
	infra_rtt_update(c, &cands[0], DNS_TYPE_A, 50, 376, T0);
	infra_rtt_update(c, &cands[1], DNS_TYPE_A, 100, 376, T0);
	infra_rtt_update(c, &cands[2], DNS_TYPE_A, 80, 376, T0);
	infra_set_fast(c, 2, 1000);
	for(i = 0; i < 400; i++) {
		int k = infra_select(c, cands, 4, NULL, T0, rnd, &rto);
		ck_assert(k == 0 || k == 2);
		ck_assert_int_eq(rto, k == 0 ? 150 : 240);
		counts[k]++;
	}
	ck_assert_int_gt(counts[0], 100);
	ck_assert_int_gt(counts[2], 100);
	/* half the time: the others get picked too */
	infra_set_fast(c, 2, 500);
	memset(counts, 0, sizeof(counts));
	for(i = 0; i < 1000; i++)
		counts[infra_select(c, cands, 4, NULL, T0, rnd, NULL)]++;
	ck_assert_int_gt(counts[1] + counts[3], 100);
	ck_assert_int_gt(counts[0] + counts[2], 600);
	/* off: the band, every server */
	infra_set_fast(c, 3, 0);
	memset(counts, 0, sizeof(counts));
	for(i = 0; i < 1000; i++)
		counts[infra_select(c, cands, 4, NULL, T0, rnd, NULL)]++;
	for(i = 0; i < 4; i++)
		ck_assert_int_gt(counts[i], 150);
	random_delete(rnd);
	infra_delete(c);
}
END_TEST

#ifdef PETREL_HAVE_THREADS
/** the shared cache of the concurrency test */
static struct infra_cache *s_infra;

static void *
s_timeouts(void *arg)
{
	struct qsbr_reader *r = qsbr_register();
	struct netaddr a = *(struct netaddr *)arg;
	int i;
	/* sent with the largest rto, each timeout counts (one sent with
	 * less than the current rto would not: see infra.h) */
	for(i = 0; i < 2000; i++) {
		infra_rtt_update(s_infra, &a, DNS_TYPE_A, -1, INFRA_RTO_MAX, T0);
		if(i % 16 == 0)
			qsbr_quiescent(r);
	}
	qsbr_unregister(r);
	return NULL;
}

START_TEST(test_concurrent_updates)
{
	/* updates of one server from several threads are read-modify-write
	 * under the slab lock: no timeout is lost */
	thread_type th[4];
	struct netaddr a = A("192.0.2.99");
	struct infra_host h;
	int i;
	s_infra = infra_create(1 << 20, 4, 900);
	for(i = 0; i < 4; i++)
		ck_assert_int_eq(thread_create(&th[i], s_timeouts, &a), 0);
	for(i = 0; i < 4; i++)
		ck_assert_int_eq(thread_join(th[i]), 0);
	ck_assert_int_eq(infra_host_get(s_infra, &a, T0, &h), 0);
	ck_assert_int_eq(h.timeouts, 8000);
	ck_assert_int_eq(h.rto, INFRA_RTO_MAX);
	infra_delete(s_infra);
}
END_TEST
#endif

static Suite *
infra_suite(void)
{
	Suite *s = suite_create("infra");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_rtt);
	tcase_add_test(tc, test_timeouts);
	tcase_add_test(tc, test_unknown_rto);
	tcase_add_test(tc, test_select_fast);
	tcase_add_test(tc, test_rtt_limits);
	tcase_add_test(tc, test_down_probe);
	tcase_add_test(tc, test_down_per_type);
	tcase_add_test(tc, test_edns_lame);
	tcase_add_test(tc, test_select);
#ifdef PETREL_HAVE_THREADS
	tcase_add_test(tc, test_concurrent_updates);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("shared");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, shared_on, shared_off);
	tcase_add_test(tc, test_rtt);
	tcase_add_test(tc, test_timeouts);
	tcase_add_test(tc, test_down_probe);
	tcase_add_test(tc, test_down_per_type);
	tcase_add_test(tc, test_edns_lame);
	tcase_add_test(tc, test_select);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(infra_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
