/*
 * tests/check_missalloc.c - heap allocations per cache miss, counted.
 *
 * The resolver core (front end, mesh, the default module stack: validator
 * and iterator, message, RRset and infrastructure caches) resolves a run
 * of unique names through a forwarder on a fake network; every client
 * query is a miss. malloc, calloc and realloc are counted while the core works (the queries and
 * the upstream replies are built before counting starts, so the test's
 * own ldns use is not counted, and its checks run after counting stops).
 * The claim checked: in steady state a miss allocates nothing beyond the
 * cache entries it creates: one block per message cache entry and per
 * RRset cache entry (as the caches' get_count report them), and the
 * infrastructure cache's entry for the server, which an RTT update
 * replaces with a new block (copy on write, for its lock-free readers);
 * plus the cache tables' own growth, a handful of arrays for the whole
 * run. No allocation per state, per upstream reply or per client answer.
 * The count is deterministic: same code, same numbers. The outside
 * network under it (sockets, timers, watches, pends) is counted on its
 * own: check_outside_network's test_steady_state_allocs, zero per query.
 *
 * The counting wraps glibc's allocator (__libc_malloc and friends); under
 * the sanitizers, whose allocator must not be bypassed, the test is
 * skipped.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "services/resolver.h"
#include "services/mesh.h"
#include "services/modstack.h"
#include "services/outbound.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "iterator/iter_env.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "dns/query.h"

#if defined(__SANITIZE_ADDRESS__)
#define MISSALLOC_SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define MISSALLOC_SKIP 1
#endif
#endif

/** 1 while allocations are counted */
static int counting;
/** allocations counted */
static unsigned long num_allocs;

#ifndef MISSALLOC_SKIP
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);

/** the counting malloc */
void *
malloc(size_t n)
{
	if(counting)
		num_allocs++;
	return __libc_malloc(n);
}

/** the counting calloc */
void *
calloc(size_t n, size_t m)
{
	if(counting)
		num_allocs++;
	return __libc_calloc(n, m);
}

/** the counting realloc */
void *
realloc(void *p, size_t n)
{
	if(counting)
		num_allocs++;
	return __libc_realloc(p, n);
}
#endif

/** unique names resolved */
#define NUM_MISS 400
/** of which the first ones warm up (state regions, table sizes) */
#define NUM_WARM 200

/** the upstream query in flight (one at a time) */
static struct {
	int used;
	outbound_cb_type cb;
	void *arg;
} pending;
/** replies to clients */
static int num_replies;
/** the fake clock */
static struct timeval now;

static struct outbound_query *
t_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	(void)ctx; (void)to; (void)qname; (void)qname_len; (void)qtype;
	(void)qclass; (void)flags; (void)timeout_ms; (void)opts; (void)optlen;
	if(pending.used)
		return NULL;
	pending.used = 1;
	pending.cb = cb;
	pending.arg = cb_arg;
	return (struct outbound_query *)&pending;
}

static void
t_cancel(void *ctx, struct outbound_query *q)
{
	(void)ctx; (void)q;
	pending.used = 0;
}

static void *
t_timer_set(void *ctx, int ms, void (*fn)(void *), void *arg)
{
	(void)ctx; (void)ms; (void)fn; (void)arg;
	return NULL;
}

static void
t_timer_cancel(void *ctx, void *t)
{
	(void)ctx; (void)t;
}

static void
t_reply(void *arg, const struct resolver_handle *h, const uint8_t *pkt,
	size_t len)
{
	(void)arg; (void)h; (void)len;
	if(pkt)
		num_replies++;
}

/** wire of a query or a reply for name i */
static uint8_t *
make_wire(int i, int reply, size_t *len)
{
	ldns_pkt *p = NULL;
	uint8_t *wire = NULL;
	char name[64], txt[128];
	snprintf(name, sizeof(name), "host%d.example.com.", i);
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ldns_pkt_set_id(p, (uint16_t)i);
	if(reply) {
		ldns_rr *rr = NULL;
		ldns_pkt_set_qr(p, 1);
		ldns_pkt_set_ra(p, 1);
		snprintf(txt, sizeof(txt), "%s 300 IN A 192.0.2.%d", name,
			i % 250 + 1);
		ck_assert_int_eq(ldns_rr_new_frm_str(&rr, txt, 300, NULL,
			NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	}
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	return wire;
}

START_TEST(test_miss_allocs)
{
	struct config_file *cfg;
	struct module_stack stack;
	struct iter_env *env;
	struct iter_zone *z;
	struct outbound out;
	struct petrel_random *rnd;
	struct resolver *res;
	struct mcache_params mp;
	struct mcache *mc;
	struct rrset_cache *rc;
	struct infra_cache *ic;
	static uint8_t *q[NUM_MISS], *a[NUM_MISS];
	static size_t qlen[NUM_MISS], alen[NUM_MISS];
	uint8_t buf[4096];
	char err[256];
	size_t outlen, ent0 = 0;
	struct netaddr addr;
	const char *e;
	struct resolver_handle h;
	int i, bad_result = 0, bad_send = 0;
	unsigned long allocs = 0, entries;
#ifdef MISSALLOC_SKIP
	return;
#endif
	cfg = config_create();
	rnd = random_create_seeded(3);
	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(rnd);
	memset(&out, 0, sizeof(out));
	out.send = t_send;
	out.cancel = t_cancel;
	out.timer_set = t_timer_set;
	out.timer_cancel = t_timer_cancel;
	now.tv_sec = 1000;
	out.now = &now;
	/* the default stack: the validator (no trust anchor: it passes
	 * every query through) above the iterator */
	ck_assert_int_eq(modstack_setup(&stack, "validator iterator", NULL,
		cfg, err, sizeof(err)), 0);
	env = stack.modinfo[1];
	z = iter_env_add_zone(env, ".", 1);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	mcache_params_default(&mp);
	mc = mcache_create(&mp);
	rc = rrset_cache_create(4 * 1024 * 1024, 4, 0, 86400);
	ic = infra_create(1024 * 1024, 4, 900);
	ck_assert(mc && rc && ic);
	res = resolver_create(cfg, &stack, &out, rnd, t_reply, NULL);
	ck_assert_ptr_nonnull(res);
	resolver_set_env(res, mc, rc, ic, NULL, NULL);
	for(i = 0; i < NUM_MISS; i++) {
		q[i] = make_wire(i, 0, &qlen[i]);
		a[i] = make_wire(i, 1, &alen[i]);
	}
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &addr, &e), 0);
	memset(&h, 0, sizeof(h));
	for(i = 0; i < NUM_MISS; i++) {
		if(i == NUM_WARM) {
			ent0 = mcache_get_count(mc) + rrset_cache_get_count(rc);
			num_allocs = 0;
			counting = 1;
		}
		if(resolver_handle_query(res, q[i], qlen[i], &addr,
			RESOLVER_UDP, &h, buf, sizeof(buf), &outlen) !=
			RESOLVER_PENDING)
			bad_result++;
		if(!pending.used) {
			bad_send++;
			continue;
		}
		pending.used = 0;
		pending.cb(pending.arg, OUTBOUND_REPLY, a[i], alen[i], 1);
		now.tv_usec += 10;
	}
	counting = 0;
	allocs = num_allocs;
	ck_assert_int_eq(bad_result, 0);
	ck_assert_int_eq(bad_send, 0);
	ck_assert_int_eq(num_replies, NUM_MISS);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 0);
	ck_assert_uint_eq(infra_get_count(ic), 1);
	/* each miss stored one message and one RRset */
	entries = mcache_get_count(mc) + rrset_cache_get_count(rc) - ent0;
	ck_assert_uint_eq(entries, 2 * (NUM_MISS - NUM_WARM));
	fprintf(stderr, "check_missalloc: %lu heap allocations for %d misses "
		"(%.2f per miss): %lu message and RRset cache entries, %d "
		"infrastructure cache entry replacements, %lu others (table "
		"growth)\n", allocs, NUM_MISS - NUM_WARM,
		(double)allocs / (NUM_MISS - NUM_WARM), entries,
		NUM_MISS - NUM_WARM, allocs - entries - (NUM_MISS - NUM_WARM));
	ck_assert_uint_ge(allocs, entries + (NUM_MISS - NUM_WARM));
	/* the tables' arrays grow by doubling: a few for the whole run */
	ck_assert_uint_le(allocs, entries + (NUM_MISS - NUM_WARM) + 16);
	resolver_delete(res);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	infra_delete(ic);
	modstack_desetup(&stack);
	config_delete(cfg);
	random_delete(rnd);
	for(i = 0; i < NUM_MISS; i++) {
		free(q[i]);
		free(a[i]);
	}
}
END_TEST

/** the suite */
static Suite *
missalloc_suite(void)
{
	Suite *s = suite_create("missalloc");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_miss_allocs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(missalloc_suite());
	int failed;
	log_init(NULL, 0, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
