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
 * The count is deterministic: same code, same numbers.
 *
 * The second case validates every miss: example.com is signed (an ECDSA
 * key made by ldns before counting) and has a trust anchor; the key is
 * fetched and cached during the warm-up, and every answer must come back
 * secure (AD). The claim is the same: the validator's per-state block
 * (reused from the worker's free list) and its signature checks (signed
 * data built on the stack) add no allocation. OpenSSL's own allocations
 * inside the verify (EVP_PKEY_verify, some tens per signature, out of
 * petrel's hands) go through CRYPTO_set_mem_functions and are counted
 * apart, and printed. The outside
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
#define TU_COUNTING_ALLOC 1
#include "tests/testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include <openssl/crypto.h>
#include "front/resolver.h"
#include "services/mesh.h"
#include "front/modstack.h"
#include "services/outbound.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "iterator/iter_env.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "dns/query.h"



/** allocations OpenSSL made while counting (its own, through
 * CRYPTO_set_mem_functions: a signature verify allocates inside libcrypto,
 * which petrel cannot change; they are reported apart from petrel's) */
static unsigned long num_ossl_allocs;

/** OpenSSL's malloc, counted apart */
static void *
ossl_malloc(size_t n, const char *file, int line)
{
	(void)file; (void)line;
	if(tu_counting)
		num_ossl_allocs++;
#ifndef TU_ALLOC_SKIP
	return __libc_malloc(n);
#else
	return malloc(n);
#endif
}

/** OpenSSL's realloc, counted apart */
static void *
ossl_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file; (void)line;
	if(tu_counting)
		num_ossl_allocs++;
#ifndef TU_ALLOC_SKIP
	return __libc_realloc(p, n);
#else
	return realloc(p, n);
#endif
}

/** OpenSSL's free */
static void
ossl_free(void *p, const char *file, int line)
{
	(void)file; (void)line;
	free(p);
}

/** unique names resolved */
#define NUM_MISS 400
/** of which the first ones warm up (state regions, table sizes) */
#define NUM_WARM 200

/** the upstream query in flight (one at a time) */
static struct {
	int used;
	uint16_t qtype;
	outbound_cb_type cb;
	void *arg;
} pending;
/** replies to clients */
static int num_replies;
/** replies to clients with the AD bit (validated secure) */
static int num_secure;
/** the fake clock */
static struct timeval now;

static struct outbound_query *
t_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	(void)ctx; (void)to; (void)qname; (void)qname_len;
	(void)qclass; (void)flags; (void)timeout_ms; (void)opts; (void)optlen;
	if(pending.used)
		return NULL;
	pending.used = 1;
	pending.qtype = qtype;
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
	(void)arg; (void)h;
	if(pkt) {
		num_replies++;
		if(len > 3 && (pkt[3] & 0x20))
			num_secure++;
	}
}

/** the zone's signing key (validating run), NULL otherwise */
static ldns_key_list *zone_keys;

/** add rr to p's answer section, and its RRSIG when the zone is signed */
static void
push_signed(ldns_pkt *p, ldns_rr *rr)
{
	ldns_rr_list *set, *sigs;
	size_t i;
	if(!zone_keys) {
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
		return;
	}
	set = ldns_rr_list_new();
	ck_assert_ptr_nonnull(set);
	ldns_rr_list_push_rr(set, rr);
	sigs = ldns_sign_public(set, zone_keys);
	ck_assert_ptr_nonnull(sigs);
	ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	for(i = 0; i < ldns_rr_list_rr_count(sigs); i++)
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER,
			ldns_rr_clone(ldns_rr_list_rr(sigs, i)));
	ldns_rr_list_deep_free(sigs);
	ldns_rr_list_free(set);
}

/** wire of a packet: a query (with AD when asked) or its reply */
static uint8_t *
pkt_wire(ldns_pkt *p, size_t *len)
{
	uint8_t *wire = NULL;
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	return wire;
}

/** wire of a query or a reply for name i (signed in a validating run) */
static uint8_t *
make_wire(int i, int reply, size_t *len)
{
	ldns_pkt *p = NULL;
	char name[64], txt[128];
	snprintf(name, sizeof(name), "host%d.example.com.", i);
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ldns_pkt_set_id(p, (uint16_t)i);
	/* AD in the query: the reply says whether it validated */
	if(!reply && zone_keys)
		ldns_pkt_set_ad(p, 1);
	if(reply) {
		ldns_rr *rr = NULL;
		ldns_pkt_set_qr(p, 1);
		ldns_pkt_set_ra(p, 1);
		snprintf(txt, sizeof(txt), "%s 300 IN A 192.0.2.%d", name,
			i % 250 + 1);
		ck_assert_int_eq(ldns_rr_new_frm_str(&rr, txt, 300, NULL,
			NULL), LDNS_STATUS_OK);
		push_signed(p, rr);
	}
	return pkt_wire(p, len);
}

/**
 * Make the signing key of example.com (ECDSA P-256, a KSK that signs
 * everything), valid from before the fake clock to far after it.
 * @param anchor: its DNSKEY in presentation format, for trust-anchor:.
 * @param dnskey_reply: the reply to the DNSKEY query, DNSKEY and RRSIG.
 */
static void
make_zone_key(char *anchor, size_t anchorlen, uint8_t **dnskey_reply,
	size_t *dnskey_len)
{
	ldns_key *k = ldns_key_new_frm_algorithm(LDNS_SIGN_ECDSAP256SHA256,
		256);
	ldns_rdf *owner = NULL;
	ldns_rr *dk;
	ldns_pkt *p = NULL;
	char *str;
	size_t n;
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(ldns_str2rdf_dname(&owner, "example.com."),
		LDNS_STATUS_OK);
	ldns_key_set_pubkey_owner(k, owner);
	ldns_key_set_flags(k, 257);
	ldns_key_set_origttl(k, 3600);
	ldns_key_set_inception(k, 1);
	ldns_key_set_expiration(k, 2000000000u);
	zone_keys = ldns_key_list_new();
	ck_assert_ptr_nonnull(zone_keys);
	ldns_key_list_push_key(zone_keys, k);
	dk = ldns_key2rr(k);
	ck_assert_ptr_nonnull(dk);
	ldns_rr_set_ttl(dk, 3600);
	str = ldns_rr2str(dk);
	ck_assert_ptr_nonnull(str);
	/* quoted, as in a config file */
	snprintf(anchor, anchorlen, "\"%s", str);
	free(str);
	n = strlen(anchor);
	while(n > 0 && (anchor[n-1] == '\n' || anchor[n-1] == ' '))
		anchor[--n] = 0;
	ck_assert_uint_lt(n + 1, anchorlen);
	anchor[n] = '"';
	anchor[n + 1] = 0;
	ldns_key_set_keytag(k, ldns_calc_keytag(dk));
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, "example.com.",
		LDNS_RR_TYPE_DNSKEY, LDNS_RR_CLASS_IN, LDNS_RD),
		LDNS_STATUS_OK);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_ra(p, 1);
	push_signed(p, dk);
	*dnskey_reply = pkt_wire(p, dnskey_len);
}

/**
 * Resolve NUM_MISS unique names with the default stack, counting the
 * heap allocations of the last NUM_MISS - NUM_WARM.
 * @param validate: 0: no trust anchor (the validator passes every query
 *	through); 1: example.com is signed and has a trust anchor, every
 *	answer is validated (the key is learnt during the warm-up).
 */
static void
run_misses(int validate)
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
	uint8_t buf[4096], *dnskey = NULL;
	char err[256], anchor[1024];
	size_t outlen, ent0 = 0, dnskey_len = 0;
	struct netaddr addr;
	const char *e;
	struct resolver_handle h;
	int i, bad_result = 0, bad_send = 0, sent, dnskey_sent = 0;
	unsigned long allocs = 0, ossl = 0, entries;
	cfg = config_create();
	rnd = random_create_seeded(3);
	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(rnd);
	num_replies = num_secure = 0;
	memset(&pending, 0, sizeof(pending));
	if(validate) {
		make_zone_key(anchor, sizeof(anchor), &dnskey, &dnskey_len);
		ck_assert_msg(config_set_option(cfg, "trust-anchor", anchor,
			err, sizeof(err)) == 0, "trust-anchor: %s", err);
		/* no RFC 8145 key tag query beside the DNSKEY fetch: the
		 * fake upstream holds one query at a time */
		ck_assert_int_eq(config_set_option(cfg,
			"trust-anchor-signaling", "no", err, sizeof(err)), 0);
	}
	memset(&out, 0, sizeof(out));
	out.send = t_send;
	out.cancel = t_cancel;
	out.timer_set = t_timer_set;
	out.timer_cancel = t_timer_cancel;
	now.tv_sec = 1000000000;
	now.tv_usec = 0;
	out.now = &now;
	/* the default stack: the validator above the iterator */
	ck_assert_msg(modstack_setup(&stack, "validator iterator", NULL,
		cfg, err, sizeof(err)) == 0, "modstack: %s", err);
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
			tu_num_allocs = 0;
			num_ossl_allocs = 0;
			tu_counting = 1;
		}
		if(resolver_handle_query(res, q[i], qlen[i], &addr,
			RESOLVER_UDP, &h, buf, sizeof(buf), &outlen) !=
			RESOLVER_PENDING)
			bad_result++;
		/* answer what is asked: the A query, and the key once */
		sent = 0;
		while(pending.used && sent < 3) {
			pending.used = 0;
			sent++;
			if(pending.qtype == LDNS_RR_TYPE_DNSKEY && dnskey) {
				dnskey_sent++;
				pending.cb(pending.arg, OUTBOUND_REPLY, dnskey,
					dnskey_len, 1);
			} else	pending.cb(pending.arg, OUTBOUND_REPLY, a[i],
					alen[i], 1);
		}
		if(!sent)
			bad_send++;
		now.tv_usec += 10;
	}
	tu_counting = 0;
	allocs = tu_num_allocs;
	ossl = num_ossl_allocs;
	ck_assert_int_eq(bad_result, 0);
	ck_assert_int_eq(bad_send, 0);
	ck_assert_int_eq(num_replies, NUM_MISS);
	/* validated: every answer secure, the key fetched once */
	ck_assert_int_eq(num_secure, validate ? NUM_MISS : 0);
	ck_assert_int_eq(dnskey_sent, validate ? 1 : 0);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 0);
	ck_assert_uint_eq(infra_get_count(ic), 1);
	/* each miss stored one message and one RRset */
	entries = mcache_get_count(mc) + rrset_cache_get_count(rc) - ent0;
	ck_assert_uint_eq(entries, 2 * (NUM_MISS - NUM_WARM));
	fprintf(stderr, "check_missalloc%s: %lu heap allocations for %d "
		"misses (%.2f per miss): %lu message and RRset cache entries, "
		"%d infrastructure cache entry replacements, %lu others (table "
		"growth); OpenSSL inside the verify: %lu (%.2f per miss)\n",
		validate ? " (validated)" : "", allocs, NUM_MISS - NUM_WARM,
		(double)allocs / (NUM_MISS - NUM_WARM), entries,
		NUM_MISS - NUM_WARM, allocs - entries - (NUM_MISS - NUM_WARM),
		ossl, (double)ossl / (NUM_MISS - NUM_WARM));
	ck_assert_uint_ge(allocs, entries + (NUM_MISS - NUM_WARM));
	/* the tables' arrays grow by doubling: a few for the whole run */
	ck_assert_uint_le(allocs, entries + (NUM_MISS - NUM_WARM) + 16);
	if(!validate)
		ck_assert_uint_eq(ossl, 0);
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
	free(dnskey);
	if(zone_keys) {
		ldns_key_list_free(zone_keys);
		zone_keys = NULL;
	}
}

START_TEST(test_miss_allocs)
{
#ifdef TU_ALLOC_SKIP
	return;
#endif
	run_misses(0);
}
END_TEST

/* a validating miss: the validator's state and its verify work allocate
 * nothing of petrel's beyond the cache entries (OpenSSL's own allocations
 * inside EVP_PKEY_verify are counted apart and reported) */
START_TEST(test_validated_miss_allocs)
{
#ifdef TU_ALLOC_SKIP
	return;
#endif
	run_misses(1);
}
END_TEST

/** the suite */
static Suite *
missalloc_suite(void)
{
	Suite *s = suite_create("missalloc");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_miss_allocs);
	tcase_add_test(tc, test_validated_miss_allocs);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(missalloc_suite());
	int failed;
	/* before OpenSSL allocates anything: its heap use is counted apart */
	(void)CRYPTO_set_mem_functions(ossl_malloc, ossl_realloc, ossl_free);
	log_init(NULL, 0, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
