/*
 * tests/check_cachedb.c - the cachedb module's key, value format and
 * expiry arithmetic (cachedb/cachedb_record.h), with a fake clock: times
 * are plain numbers handed in, so hours pass in a microsecond. And the
 * module itself without an event loop (it passes every query on), and
 * cachedb-check-when-serve-expired: with serve-expired and no client
 * timeout, the module releases the expired answers of the local cache
 * (env->serve_stale) once Redis has nothing fresh, and only then.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include "cachedb/cachedb_record.h"
#include "cachedb/cachedb.h"
#include "services/module.h"
#include "util/region.h"
#include "util/config_file.h"
#include "dns/dns.h"
#include "dns/name.h"

/** www.example.com. */
static const uint8_t qname[] = "\003www\007example\003com";
/** WWW.Example.COM. */
static const uint8_t qname_uc[] = "\003WWW\007Example\003COM";
/** the fake clock's start */
#define T0 ((time_t)1700000000)

static struct region *reg;

static void setup(void) { reg = region_create(0); ck_assert_ptr_nonnull(reg); }
static void teardown(void) { region_destroy(reg); }

/** add a record to a list */
static void
add_rr(struct module_rrlist *l, const uint8_t *owner, uint16_t type,
	uint32_t ttl, const uint8_t *rd, size_t rdlen)
{
	struct module_rr *rr = module_rr_new(reg, owner, dname_len(owner),
		type, DNS_CLASS_IN, ttl, rd, rdlen);
	ck_assert_ptr_nonnull(rr);
	module_rrlist_append(l, rr);
}

/** an answer: two A records (TTL 300 and 600), an NS in authority (3600) */
static struct mesh_answer *
make_answer(void)
{
	static const uint8_t a1[] = { 192, 0, 2, 1 }, a2[] = { 192, 0, 2, 2 };
	static const uint8_t ns[] = "\003ns1\007example\003com";
	static const uint8_t zone[] = "\007example\003com";
	struct mesh_answer *ans = region_alloc_zero(reg, sizeof(*ans));
	ans->rcode = DNS_RCODE_NOERROR;
	ans->ede = -1;
	add_rr(&ans->an, qname, DNS_TYPE_A, 300, a1, 4);
	add_rr(&ans->an, qname, DNS_TYPE_A, 600, a2, 4);
	add_rr(&ans->ns, zone, DNS_TYPE_NS, 3600, ns, sizeof(ns));
	return ans;
}

START_TEST(test_key)
{
	char k1[CACHEDB_KEY_LEN + 1], k2[CACHEDB_KEY_LEN + 1];
	/* SHA-256 of the wire name, type, class and the seed, upper hex
	 * (computed apart, with Python's hashlib) */
	ck_assert_int_eq(cachedb_key(qname, DNS_TYPE_A, DNS_CLASS_IN,
		"default", k1), 0);
	ck_assert_str_eq(k1, "2A96E6DD0FB58A26BCB57FF4DDFE4D16"
		"5779A9830BADDBAC20C79FFC2C3DC02B");
	ck_assert_int_eq(cachedb_key(qname, DNS_TYPE_A, DNS_CLASS_IN, "",
		k2), 0);
	ck_assert_str_eq(k2, "D30D83C96F763AA2078F9579E17AA299"
		"E37B9F93A340CB461F669CFDB71DEEDA");
	/* letter case does not matter */
	ck_assert_int_eq(cachedb_key(qname_uc, DNS_TYPE_A, DNS_CLASS_IN,
		"default", k2), 0);
	ck_assert_str_eq(k1, k2);
	/* type and seed do */
	ck_assert_int_eq(cachedb_key(qname, DNS_TYPE_AAAA, DNS_CLASS_IN,
		"default", k2), 0);
	ck_assert_str_ne(k1, k2);
	ck_assert_int_eq(cachedb_key(qname, DNS_TYPE_A, DNS_CLASS_IN,
		"other", k2), 0);
	ck_assert_str_ne(k1, k2);
}
END_TEST

/** encode at T0 and decode at T0 + dt; @return the result */
static enum cachedb_decode_result
roundtrip(time_t dt, struct mesh_answer **out, time_t *expiry)
{
	static uint8_t buf[65535 + CACHEDB_TRAILER_LEN];
	size_t len = 0;
	time_t exp = 0;
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN,
		make_answer(), T0, buf, sizeof(buf), &len, &exp), 0);
	ck_assert_int_eq((long long)exp, (long long)(T0 + 300));
	return cachedb_decode(buf, len, qname, DNS_TYPE_A, DNS_CLASS_IN,
		T0 + dt, reg, out, expiry);
}

START_TEST(test_roundtrip_fresh)
{
	struct mesh_answer *a = NULL;
	time_t exp = 0;
	ck_assert_int_eq(roundtrip(0, &a, &exp), CACHEDB_FRESH);
	ck_assert_int_eq((long long)exp, (long long)(T0 + 300));
	ck_assert_int_eq(a->rcode, DNS_RCODE_NOERROR);
	ck_assert_int_eq((int)a->an.count, 2);
	ck_assert_int_eq((int)a->ns.count, 1);
	ck_assert_int_eq((int)a->ar.count, 0);
	/* TTLs as stored, but none past the expiry (T0 + 300) */
	ck_assert_uint_eq(a->an.first->ttl, 300);
	ck_assert_uint_eq(a->an.first->next->ttl, 300);
	ck_assert_uint_eq(a->ns.first->ttl, 300);
	ck_assert_int_eq(a->an.first->rdlen, 4);
	ck_assert_int_eq(a->an.first->next->rdata[3], 2);
	ck_assert(dname_equal(a->ns.first->owner,
		(const uint8_t *)"\007example\003com"));
	ck_assert_int_eq(a->sec, MODULE_SEC_UNCHECKED);
	ck_assert_int_eq(a->ede, -1);
}
END_TEST

START_TEST(test_ttl_lowered)
{
	struct mesh_answer *a = NULL;
	ck_assert_int_eq(roundtrip(100, &a, NULL), CACHEDB_FRESH);
	ck_assert_uint_eq(a->an.first->ttl, 200);
	ck_assert_uint_eq(a->an.first->next->ttl, 200);
	ck_assert_uint_eq(a->ns.first->ttl, 200);
	ck_assert_int_eq(roundtrip(299, &a, NULL), CACHEDB_FRESH);
	ck_assert_uint_eq(a->an.first->ttl, 1);
}
END_TEST

START_TEST(test_expired)
{
	struct mesh_answer *a = NULL;
	time_t exp = 0;
	/* at the expiry second it is expired: never served with TTL 0 */
	ck_assert_int_eq(roundtrip(300, &a, &exp), CACHEDB_EXPIRED);
	ck_assert_uint_eq(a->an.first->ttl, 0);
	ck_assert_int_eq(roundtrip(86400, &a, &exp), CACHEDB_EXPIRED);
	ck_assert_int_eq((long long)exp, (long long)(T0 + 300));
}
END_TEST

START_TEST(test_clock_behind)
{
	/* a reader whose clock is behind the writer's: TTLs are capped by
	 * the absolute expiry, never stretched */
	struct mesh_answer *a = NULL;
	ck_assert_int_eq(roundtrip(-50, &a, NULL), CACHEDB_FRESH);
	ck_assert_uint_eq(a->an.first->ttl, 300);
	ck_assert_uint_eq(a->ns.first->ttl, 300);
}
END_TEST

START_TEST(test_trailer_caps_ttl)
{
	/* a value whose records claim more than its expiry allows */
	static uint8_t buf[65535 + CACHEDB_TRAILER_LEN];
	struct mesh_answer *a = NULL;
	size_t len = 0;
	time_t exp = 0;
	int i;
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN,
		make_answer(), T0, buf, sizeof(buf), &len, &exp), 0);
	/* expiry T0 + 10 */
	for(i = 0; i < 8; i++)
		buf[len - 8 + i] = (uint8_t)((uint64_t)(T0 + 10) >>
			(8 * (7 - i)));
	ck_assert_int_eq(cachedb_decode(buf, len, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0 + 4, reg, &a, NULL), CACHEDB_FRESH);
	ck_assert_uint_eq(a->an.first->ttl, 6);
	ck_assert_uint_eq(a->ns.first->ttl, 6);
	ck_assert_int_eq(cachedb_decode(buf, len, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0 + 10, reg, &a, NULL), CACHEDB_EXPIRED);
}
END_TEST

START_TEST(test_invalid)
{
	static uint8_t buf[65535 + CACHEDB_TRAILER_LEN];
	struct mesh_answer *a = NULL;
	size_t len = 0;
	time_t exp = 0;
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN,
		make_answer(), T0, buf, sizeof(buf), &len, &exp), 0);
	/* another question */
	ck_assert_int_eq(cachedb_decode(buf, len, qname, DNS_TYPE_AAAA,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_INVALID);
	ck_assert_int_eq(cachedb_decode(buf, len,
		(const uint8_t *)"\003ftp\007example\003com", DNS_TYPE_A,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_INVALID);
	/* the question in another letter case is the same question */
	ck_assert_int_eq(cachedb_decode(buf, len, qname_uc, DNS_TYPE_A,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_FRESH);
	/* truncated, short, garbage */
	ck_assert_int_eq(cachedb_decode(buf, len - 20, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_INVALID);
	ck_assert_int_eq(cachedb_decode(buf, 10, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_INVALID);
	ck_assert_ptr_null(a);
	/* expiry before the stored time */
	buf[len - 9] ^= 0xff;
	buf[len - 16] = 0x01;
	ck_assert_int_eq(cachedb_decode(buf, len, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0, reg, &a, NULL), CACHEDB_INVALID);
}
END_TEST

START_TEST(test_not_stored)
{
	static uint8_t buf[65535 + CACHEDB_TRAILER_LEN];
	struct mesh_answer *a = make_answer();
	size_t len = 0;
	time_t exp = 0;
	/* SERVFAIL is not kept */
	a->rcode = DNS_RCODE_SERVFAIL;
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN, a,
		T0, buf, sizeof(buf), &len, &exp), -1);
	/* nor a TTL 0 answer */
	a = make_answer();
	a->an.first->ttl = 0;
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN, a,
		T0, buf, sizeof(buf), &len, &exp), -1);
	/* nor one that does not fit */
	a = make_answer();
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN, a,
		T0, buf, 40, &len, &exp), -1);
	/* an NXDOMAIN with its SOA is */
	a = region_alloc_zero(reg, sizeof(*a));
	a->rcode = DNS_RCODE_NXDOMAIN;
	add_rr(&a->ns, (const uint8_t *)"\007example\003com", DNS_TYPE_SOA,
		900, (const uint8_t *)"\0\0" "\0\0\0\1" "\0\0\0\2" "\0\0\0\3"
		"\0\0\0\4" "\0\0\0\5", 22);
	ck_assert_int_eq(cachedb_encode(qname, DNS_TYPE_A, DNS_CLASS_IN, a,
		T0, buf, sizeof(buf), &len, &exp), 0);
	ck_assert_int_eq((long long)exp, (long long)(T0 + 900));
	ck_assert_int_eq(cachedb_decode(buf, len, qname, DNS_TYPE_A,
		DNS_CLASS_IN, T0 + 899, reg, &a, NULL), CACHEDB_FRESH);
	ck_assert_int_eq(a->rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_uint_eq(a->ns.first->ttl, 1);
}
END_TEST

START_TEST(test_stale_rules)
{
	time_t exp = T0 + 300;
	/* serve-expired off: never */
	ck_assert_int_eq(cachedb_stale_ok(exp, exp, 0, 86400), 0);
	/* on: within serve-expired-ttl after the expiry */
	ck_assert_int_eq(cachedb_stale_ok(exp, exp, 1, 86400), 1);
	ck_assert_int_eq(cachedb_stale_ok(exp, exp + 86399, 1, 86400), 1);
	ck_assert_int_eq(cachedb_stale_ok(exp, exp + 86400, 1, 86400), 0);
	/* serve-expired-ttl 0: no limit */
	ck_assert_int_eq(cachedb_stale_ok(exp, exp + 10000000, 1, 0), 1);
}
END_TEST

START_TEST(test_mark_stale)
{
	struct mesh_answer *a = make_answer();
	cachedb_mark_stale(a, 30);
	ck_assert_uint_eq(a->an.first->ttl, 30);
	ck_assert_uint_eq(a->an.first->next->ttl, 30);
	ck_assert_uint_eq(a->ns.first->ttl, 30);
	ck_assert_int_eq(a->ede, DNS_EDE_STALE_ANSWER);
}
END_TEST

START_TEST(test_redis_ttl)
{
	/* EXPIRE follows the record's own expiry */
	ck_assert_int_eq(cachedb_redis_ttl(T0 + 300, T0, 0, 0), 300);
	ck_assert_int_eq(cachedb_redis_ttl(T0 + 300, T0 + 100, 0, 0), 200);
	ck_assert_int_eq(cachedb_redis_ttl(T0 + 300, T0 + 300, 0, 0), 1);
	/* with serve-expired the stale copy is kept serve-expired-ttl more */
	ck_assert_int_eq(cachedb_redis_ttl(T0 + 300, T0, 1, 86400),
		300 + 86400);
	ck_assert_int_eq(cachedb_redis_ttl(T0 + 300, T0, 1, 0), -1);
}
END_TEST

/** the module without an event loop passes queries on, and finishes
 * with what comes back from below */
START_TEST(test_module_no_loop)
{
	struct module_env env;
	struct module_qstate qs;
	struct timeval now;
	char err[256];
	memset(&env, 0, sizeof(env));
	now.tv_sec = T0;
	now.tv_usec = 0;
	env.now = &now;
	memset(&qs, 0, sizeof(qs));
	env.cfg = NULL;
	/* init refuses a missing config (or a build without hiredis) */
	ck_assert_int_eq(cachedb_module_block.init(&env, 0, err,
		sizeof(err)), -1);
	ck_assert_ptr_null(env.modinfo[0]);
	qs.env = &env;
	qs.region = reg;
	qs.qname = qname;
	qs.qname_len = dname_len(qname);
	qs.qtype = DNS_TYPE_A;
	qs.qclass = DNS_CLASS_IN;
	qs.ede = -1;
	cachedb_module_block.operate(&qs, MODULE_EVENT_NEW, 0, NULL);
	ck_assert_int_eq(qs.ext_state[0], MODULE_WAIT_MODULE);
	qs.return_msg = make_answer();
	qs.return_rcode = DNS_RCODE_NOERROR;
	cachedb_module_block.operate(&qs, MODULE_EVENT_MODDONE, 0, NULL);
	ck_assert_int_eq(qs.ext_state[0], MODULE_FINISHED);
	ck_assert_ptr_nonnull(qs.return_msg);
	cachedb_module_block.clear(&qs, 0);
}
END_TEST

#ifdef HAVE_HIREDIS
/** calls of the fake env->serve_stale */
static int stale_calls;

/** the fake env->serve_stale */
static void
fake_serve_stale(struct module_qstate *qs)
{
	(void)qs;
	stale_calls++;
}

/**
 * A query through the module (no event loop: no Redis lookup can start,
 * so Redis has nothing fresh) with a config.
 * @return how often the expired answers were released.
 */
static int
run_expired(const char *text)
{
	struct config_file *cfg = config_create();
	struct module_env env;
	struct module_qstate qs;
	struct timeval now;
	char err[256];
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	memset(&env, 0, sizeof(env));
	now.tv_sec = T0;
	now.tv_usec = 0;
	env.now = &now;
	env.cfg = cfg;
	env.serve_stale = fake_serve_stale;
	ck_assert_msg(cachedb_module_block.init(&env, 0, err, sizeof(err)) ==
		0, "%s", err);
	memset(&qs, 0, sizeof(qs));
	qs.env = &env;
	qs.region = reg;
	qs.qname = qname;
	qs.qname_len = dname_len(qname);
	qs.qtype = DNS_TYPE_A;
	qs.qclass = DNS_CLASS_IN;
	qs.ede = -1;
	stale_calls = 0;
	cachedb_module_block.operate(&qs, MODULE_EVENT_NEW, 0, NULL);
	ck_assert_int_eq(qs.ext_state[0], MODULE_WAIT_MODULE);
	cachedb_module_block.clear(&qs, 0);
	cachedb_module_block.deinit(&env, 0);
	config_delete(cfg);
	return stale_calls;
}

START_TEST(test_check_when_serve_expired)
{
	const char *c = "cachedb:\n backend: redis\n";
	char t[512];
	/* the default (yes), serve-expired, no client timeout: released */
	snprintf(t, sizeof(t), "server:\n serve-expired: yes\n "
		"serve-expired-client-timeout: 0\n%s", c);
	ck_assert_int_eq(run_expired(t), 1);
	/* cachedb-check-when-serve-expired: no: the front end served the
	 * expired answer itself, nothing waits */
	snprintf(t, sizeof(t), "server:\n serve-expired: yes\n "
		"serve-expired-client-timeout: 0\n%s "
		"cachedb-check-when-serve-expired: no\n", c);
	ck_assert_int_eq(run_expired(t), 0);
	/* a client timeout: the expired answer waits for it (Unbound's
	 * rule), the module does not release it */
	snprintf(t, sizeof(t), "server:\n serve-expired: yes\n "
		"serve-expired-client-timeout: 1800\n%s", c);
	ck_assert_int_eq(run_expired(t), 0);
	/* no serve-expired */
	snprintf(t, sizeof(t), "server:\n serve-expired: no\n%s", c);
	ck_assert_int_eq(run_expired(t), 0);
}
END_TEST
#else /* !HAVE_HIREDIS */
START_TEST(test_check_when_serve_expired)
{
	/* a build without hiredis refuses the module with a clear reason
	 * (and links at all: issue 31) */
	const char *t = "cachedb:\n backend: redis\n";
	struct config_file *cfg = config_create();
	struct module_env env;
	char err[256];
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", t, strlen(t),
		err, sizeof(err)), 0);
	memset(&env, 0, sizeof(env));
	env.cfg = cfg;
	ck_assert_int_eq(cachedb_module_block.init(&env, 0, err,
		sizeof(err)), -1);
	ck_assert_msg(strstr(err, "without hiredis") != NULL, "%s", err);
	ck_assert_ptr_null(env.modinfo[0]);
	config_delete(cfg);
}
END_TEST
#endif /* HAVE_HIREDIS */

static Suite *
cachedb_suite(void)
{
	Suite *s = suite_create("cachedb");
	TCase *tc = tcase_create("record");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_key);
	tcase_add_test(tc, test_roundtrip_fresh);
	tcase_add_test(tc, test_ttl_lowered);
	tcase_add_test(tc, test_expired);
	tcase_add_test(tc, test_clock_behind);
	tcase_add_test(tc, test_trailer_caps_ttl);
	tcase_add_test(tc, test_invalid);
	tcase_add_test(tc, test_not_stored);
	tcase_add_test(tc, test_stale_rules);
	tcase_add_test(tc, test_mark_stale);
	tcase_add_test(tc, test_redis_ttl);
	tcase_add_test(tc, test_module_no_loop);
	tcase_add_test(tc, test_check_when_serve_expired);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(cachedb_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
