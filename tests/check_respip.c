/*
 * tests/check_respip.c - response-ip's rules (respip/respip_rules.c)
 * through the table the module's block offers the front end
 * (modstack_respip()): lines into a set (bad ones refused with file and
 * line), the longest netblock deciding, the actions' answers, data from
 * the store the front end hands in; and the walk over an answer's
 * addresses that the rules and the RPZ RESPONSE-IP triggers share
 * (dns/addrscan.c): the records it offers (A and AAAA of class IN with
 * the right length, after a CNAME), where it stops, and a packet that
 * does not parse.
 */
#include "config.h"
#include <check.h>
#include <string.h>
#include "dns/addrscan.h"
#include "dns/dns.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "dns/name.h"
#include "dns/query.h"
#include "services/module.h"
#include "front/modstack.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include <stdio.h>
#include <stdlib.h>

/** the callback's record: the addresses seen, stop at the n-th */
struct seen {
	/** how many addresses were offered */
	int n;
	/** stop at this one (1-based), 0: never */
	int stop_at;
	/** the lengths offered, in order */
	size_t alen[8];
	/** the first byte of each */
	uint8_t first[8];
};

/** dns_addr_cb that records what it is offered */
static int
seen_cb(void *arg, const uint8_t *addr, size_t alen)
{
	struct seen *s = arg;
	if(s->n < 8) {
		s->alen[s->n] = alen;
		s->first[s->n] = addr[0];
	}
	s->n++;
	return s->n == s->stop_at;
}

static const uint8_t qn[] = "\003www\007example\003com";
static const uint8_t tgt[] = "\001t\007example\003com";

/** an answer: a CNAME, an A of class CH, a short A, an AAAA, an A */
static size_t
mkanswer(uint8_t *buf, size_t cap)
{
	struct dns_builder b;
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a3[3] = { 1, 2, 3 };
	uint8_t a6[16];
	memset(a6, 0, sizeof(a6));
	a6[0] = 0x20;
	dns_build_init(&b, buf, cap, cap);
	ck_assert_int_eq(dns_build_header(&b, 1, DNS_FLAG_QR), 0);
	ck_assert_int_eq(dns_build_question(&b, qn, DNS_TYPE_A,
		DNS_CLASS_IN), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, qn, DNS_TYPE_CNAME,
		DNS_CLASS_IN, 60, tgt, sizeof(tgt)), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		3, 60, a1, 4), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		DNS_CLASS_IN, 60, a3, 3), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_AAAA,
		DNS_CLASS_IN, 60, a6, 16), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		DNS_CLASS_IN, 60, a1, 4), 0);
	return dns_build_finish(&b);
}

START_TEST(test_scan_offers_addresses)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf));
	struct seen s;
	struct dns_addr_hit hit;
	ck_assert_uint_gt(len, 0);
	memset(&s, 0, sizeof(s));
	/* the CNAME, the class CH and the short A are not offered */
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 0);
	ck_assert_int_eq(s.n, 2);
	ck_assert_uint_eq(s.alen[0], 16);
	ck_assert_uint_eq(s.first[0], 0x20);
	ck_assert_uint_eq(s.alen[1], 4);
	ck_assert_uint_eq(s.first[1], 192);
}
END_TEST

START_TEST(test_scan_stops)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf)), op;
	uint8_t owner[DNS_MAX_NAME];
	size_t ol = 0;
	struct seen s;
	struct dns_addr_hit hit;
	memset(&s, 0, sizeof(s));
	s.stop_at = 2;
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 1);
	ck_assert_uint_eq(hit.idx, 4);
	ck_assert_uint_eq(hit.type, DNS_TYPE_A);
	op = hit.owner_off;
	ck_assert_int_eq(dname_pkt_read(buf, len, &op, owner, &ol), 0);
	ck_assert_uint_eq(ol, sizeof(tgt));
	ck_assert_mem_eq(owner, tgt, sizeof(tgt));
	memset(&s, 0, sizeof(s));
	s.stop_at = 1;
	ck_assert_int_eq(dns_addr_scan(buf, len, seen_cb, &s, &hit), 1);
	ck_assert_uint_eq(hit.idx, 3);
	ck_assert_uint_eq(hit.type, DNS_TYPE_AAAA);
}
END_TEST

START_TEST(test_scan_bad_packet)
{
	uint8_t buf[512];
	size_t len = mkanswer(buf, sizeof(buf));
	struct seen s;
	struct dns_addr_hit hit;
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(dns_addr_scan(buf, 5, seen_cb, &s, &hit), -1);
	/* cut inside the last record: the AAAA is offered, then -1 */
	ck_assert_int_eq(dns_addr_scan(buf, len - 2, seen_cb, &s, &hit), -1);
	ck_assert_int_eq(s.n, 1);
}
END_TEST


/* ---- the rules, through the module's table ---- */

/** a data store for the tests: one A record 10.0.0.1 once a line came */
struct tstore {
	/** the lines added */
	int n;
	/** finished */
	int fin;
};

static void *
ts_create(void)
{
	return calloc(1, sizeof(struct tstore));
}

static int
ts_add(void *d, const char *rr, char *err, size_t errlen)
{
	if(strncmp(rr, ". A ", 4) != 0) {
		snprintf(err, errlen, "only A here");
		return -1;
	}
	((struct tstore *)d)->n++;
	return 0;
}

static int
ts_finish(void *d, char *err, size_t errlen)
{
	(void)err; (void)errlen;
	((struct tstore *)d)->fin = 1;
	return 0;
}

static void
ts_del(void *d)
{
	free(d);
}

static int
ts_has(const void *d, uint16_t type)
{
	const struct tstore *t = d;
	ck_assert_int_eq(t->fin, 1);
	return type == DNS_TYPE_A && t->n > 0;
}

static int
ts_put(const void *d, struct dns_builder *b, const uint8_t *owner,
	uint16_t type)
{
	static const uint8_t a[4] = { 10, 0, 0, 1 };
	(void)d;
	return dns_build_rr(b, DNS_SEC_ANSWER, owner, type, DNS_CLASS_IN,
		3600, a, 4) == 0;
}

static const struct module_respip_data tstore_ops = {
	.create = ts_create, .add = ts_add, .finish = ts_finish,
	.del = ts_del, .has = ts_has, .put = ts_put,
};

/** a config line "key v..." of f.conf at line ln */
static struct config_policyline *
mkline(int ln, const char *key, const char *v0, const char *v1)
{
	struct config_policyline *l = calloc(1, sizeof(*l));
	ck_assert_ptr_nonnull(l);
	l->clause = CLAUSE_SERVER;
	l->block = -1;
	l->key = strdup(key);
	l->file = strdup("f.conf");
	l->line = ln;
	l->n = v1 ? 2 : 1;
	l->v = calloc(2, sizeof(char *));
	l->v[0] = strdup(v0);
	if(v1)
		l->v[1] = strdup(v1);
	return l;
}

/** add a line to a set. @return its result */
static int
addline(const struct module_respip_ops *o, struct respip_set *rs, int ln,
	const char *key, const char *v0, const char *v1, char *err,
	size_t errlen)
{
	struct config_policyline *l = mkline(ln, key, v0, v1);
	int r = o->set_line(rs, NULL, l, err, errlen);
	config_policyline_free(l);
	return r;
}

/** the query www.example.com A and its parse */
static size_t
mkquery(uint8_t *q, size_t cap, struct fast_query *fq)
{
	struct dns_builder b;
	size_t n;
	dns_build_init(&b, q, cap, cap);
	ck_assert_int_eq(dns_build_header(&b, 77, DNS_FLAG_RD), 0);
	ck_assert_int_eq(dns_build_question(&b, qn, DNS_TYPE_A,
		DNS_CLASS_IN), 0);
	n = dns_build_finish(&b);
	ck_assert_int_eq(dns_query_parse_fast(q, n, fq), 0);
	return n;
}

/** the answer: www CNAME t, t A addr */
static size_t
mkaddr_answer(uint8_t *buf, size_t cap, const uint8_t *addr)
{
	struct dns_builder b;
	dns_build_init(&b, buf, cap, cap);
	ck_assert_int_eq(dns_build_header(&b, 77, DNS_FLAG_QR | DNS_FLAG_RD |
		DNS_FLAG_RA), 0);
	ck_assert_int_eq(dns_build_question(&b, qn, DNS_TYPE_A,
		DNS_CLASS_IN), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, qn, DNS_TYPE_CNAME,
		DNS_CLASS_IN, 60, tgt, sizeof(tgt)), 0);
	ck_assert_int_eq(dns_build_rr(&b, DNS_SEC_ANSWER, tgt, DNS_TYPE_A,
		DNS_CLASS_IN, 60, addr, 4), 0);
	return dns_build_finish(&b);
}

/** apply a set to the answer holding addr: @return the result, with
 * the rcode and answer count of the answer after */
static enum module_respip_result
apply_to(const struct module_respip_ops *o, const struct respip_set *rs,
	const uint8_t *addr, int *rcode, int *ancount, int *matched,
	uint8_t *ans, size_t *len)
{
	uint8_t q[512], scratch[4096];
	struct fast_query fq;
	enum module_respip_result r;
	(void)mkquery(q, sizeof(q), &fq);
	*len = mkaddr_answer(ans, 1024, addr);
	r = o->apply(rs, NULL, q, &fq, NULL, 1, 1232, 1232, ans, len, 1024,
		scratch, sizeof(scratch), matched);
	*rcode = ans[3] & 0x0f;
	*ancount = (ans[6] << 8) | ans[7];
	return r;
}

START_TEST(test_rules_offered)
{
	/* the front end reaches the rules through the stack, never by
	 * the module's headers */
	const struct module_respip_ops *o = modstack_respip();
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(o->apply);
	ck_assert_int_eq(o->action_of("always_refuse"),
		o->action_of("always_refuse"));
	ck_assert_int_ne(o->action_of("deny"), 0);
	ck_assert_int_ne(o->action_of("deny"), o->action_of("redirect"));
	/* a local-zone type response-ip does not take: one code for all */
	ck_assert_int_eq(o->action_of("static"), o->action_of("refuse"));
}
END_TEST

START_TEST(test_rules_actions)
{
	const struct module_respip_ops *o = modstack_respip();
	struct respip_set *rs = o->set_new(&tstore_ops);
	static const uint8_t in24[4] = { 192, 0, 2, 1 },
		in25[4] = { 192, 0, 2, 200 }, deny[4] = { 203, 0, 113, 9 },
		data[4] = { 198, 51, 100, 7 }, none[4] = { 8, 8, 8, 8 };
	uint8_t ans[1024];
	size_t len;
	int rcode, an, matched;
	char err[256];
	ck_assert_ptr_nonnull(rs);
	ck_assert_int_eq(addline(o, rs, 1, "response-ip", "192.0.2.0/24",
		"always_refuse", err, sizeof(err)), 0);
	ck_assert_int_eq(addline(o, rs, 2, "response-ip", "192.0.2.128/25",
		"always_nxdomain", err, sizeof(err)), 0);
	ck_assert_int_eq(addline(o, rs, 3, "response-ip", "203.0.113.0/24",
		"deny", err, sizeof(err)), 0);
	/* data alone: a redirect */
	ck_assert_int_eq(addline(o, rs, 4, "response-ip-data",
		"198.51.100.0/24 A 10.0.0.1", NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(o->set_finish(rs, err, sizeof(err)), 0);
	ck_assert_uint_eq(o->set_count(rs), 4);
	/* refuse: the chain goes too */
	ck_assert_int_eq(apply_to(o, rs, in24, &rcode, &an, &matched, ans,
		&len), MODULE_RESPIP_REWRITTEN);
	ck_assert_int_eq(rcode, DNS_RCODE_REFUSED);
	ck_assert_int_eq(an, 0);
	ck_assert_int_eq(matched, 1);
	ck_assert_int_eq((ans[0] << 8) | ans[1], 77);
	/* the longer netblock decides: NXDOMAIN, the CNAME kept */
	ck_assert_int_eq(apply_to(o, rs, in25, &rcode, &an, &matched, ans,
		&len), MODULE_RESPIP_REWRITTEN);
	ck_assert_int_eq(rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_int_eq(an, 1);
	ck_assert_int_eq(apply_to(o, rs, deny, &rcode, &an, &matched, ans,
		&len), MODULE_RESPIP_DROP);
	/* the data replaces the address record, under its owner */
	ck_assert_int_eq(apply_to(o, rs, data, &rcode, &an, &matched, ans,
		&len), MODULE_RESPIP_REWRITTEN);
	ck_assert_int_eq(rcode, DNS_RCODE_NOERROR);
	ck_assert_int_eq(an, 2);
	ck_assert_uint_ge(len, 4);
	ck_assert_int_eq(ans[len - 4], 10);
	ck_assert_int_eq(ans[len - 1], 1);
	/* no netblock holds the address: untouched */
	ck_assert_int_eq(apply_to(o, rs, none, &rcode, &an, &matched, ans,
		&len), MODULE_RESPIP_PASS);
	ck_assert_int_eq(matched, 0);
	ck_assert_int_eq(an, 2);
	o->set_delete(rs);
}
END_TEST

START_TEST(test_rules_bad_lines)
{
	const struct module_respip_ops *o = modstack_respip();
	struct respip_set *rs = o->set_new(&tstore_ops);
	char err[256];
	ck_assert_int_eq(addline(o, rs, 7, "response-ip", "192.0.2.0/24",
		"static", err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, "f.conf:7: response-ip: bad action "
		"'static'", 40) == 0, "%s", err);
	ck_assert_int_eq(addline(o, rs, 8, "response-ip", "192.0.2.0/99",
		"deny", err, sizeof(err)), -1);
	ck_assert_msg(strncmp(err, "f.conf:8: response-ip: bad netblock",
		35) == 0, "%s", err);
	ck_assert_int_eq(addline(o, rs, 9, "response-ip", "192.0.2.0/24",
		NULL, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "f.conf:9: response-ip: expected "
		"<netblock> <action>") != NULL, "%s", err);
	ck_assert_int_eq(addline(o, rs, 10, "response-ip-data",
		"192.0.2.0/24 TXT x", NULL, err, sizeof(err)), -1);
	ck_assert_msg(strcmp(err, "f.conf:10: response-ip-data: only A "
		"here") == 0, "%s", err);
	o->set_delete(rs);
	o->set_delete(NULL);
}
END_TEST

static Suite *
respip_suite(void)
{
	Suite *s = suite_create("respip");
	TCase *tc = tcase_create("addrscan");
	tcase_add_test(tc, test_scan_offers_addresses);
	tcase_add_test(tc, test_scan_stops);
	tcase_add_test(tc, test_scan_bad_packet);
	suite_add_tcase(s, tc);
	tc = tcase_create("rules");
	tcase_add_test(tc, test_rules_offered);
	tcase_add_test(tc, test_rules_actions);
	tcase_add_test(tc, test_rules_bad_lines);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	int failed;
	SRunner *sr = srunner_create(respip_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
