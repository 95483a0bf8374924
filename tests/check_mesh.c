/*
 * tests/check_mesh.c - unit tests for the mesh and the front end with a
 * minimal fake network: merging of identical questions, keys by DO bit,
 * the state count going back to zero (per-state memory freed), the
 * num-queries-per-thread limit and jostling, deletion with clients
 * waiting, and the front end's handling of malformed packets.
 */
#include "config.h"
#include "util/log.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "front/resolver.h"
#include "services/mesh.h"
#include "services/outbound.h"
#include "iterator/iter_env.h"
#include "front/modstack.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "dns/query.h"
#include "services/cache/msgcache.h"
#include "services/module.h"
#include "dns/dns.h"

/** most queries the fake network keeps */
#define MAXQ 16

/** a query sent to the fake network */
struct tq {
	/** in use */
	int used;
	/** question */
	uint8_t qname[256];
	/** its length */
	size_t qlen;
	/** type */
	uint16_t qtype;
	/** flags */
	int flags;
	/** callback */
	outbound_cb_type cb;
	/** its arg */
	void *arg;
};

/** the test's fake network and client */
static struct tq sent[MAXQ];
static int num_sent, num_cancel, num_replies, num_drops;
static struct timeval now;
static uint8_t last_reply[65535];
static size_t last_len;
/** the handle of the last reply */
static struct resolver_handle last_handle;

static struct outbound_query *
t_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	int i;
	(void)ctx; (void)to; (void)qclass; (void)timeout_ms; (void)opts;
	(void)optlen;
	for(i = 0; i < MAXQ; i++) {
		if(!sent[i].used) {
			sent[i].used = 1;
			memcpy(sent[i].qname, qname, qname_len);
			sent[i].qlen = qname_len;
			sent[i].qtype = qtype;
			sent[i].flags = flags;
			sent[i].cb = cb;
			sent[i].arg = cb_arg;
			num_sent++;
			return (struct outbound_query *)&sent[i];
		}
	}
	return NULL;
}

static void
t_cancel(void *ctx, struct outbound_query *q)
{
	(void)ctx;
	((struct tq *)q)->used = 0;
	num_cancel++;
}

/** timers asked for through t_timer_set */
static int num_timers;

static void *
t_timer_set(void *ctx, int ms, void (*fn)(void *), void *arg)
{
	(void)ctx; (void)ms; (void)fn; (void)arg;
	num_timers++;
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
	(void)arg;
	if(!pkt) {
		num_drops++;
		return;
	}
	num_replies++;
	last_handle = *h;
	memcpy(last_reply, pkt, len);
	last_len = len;
}

static struct outbound out;
static struct iter_env *env;
static struct module_stack stack;
static struct config_file *cfg;
static struct petrel_random *rnd;
static struct resolver *res;

/** a resolver forwarding "." to 192.0.2.1 */
static void
setup(void)
{
	struct iter_zone *z;
	memset(sent, 0, sizeof(sent));
	num_sent = num_cancel = num_replies = num_drops = 0;
	now.tv_sec = 1000;
	now.tv_usec = 0;
	out.ctx = NULL;
	out.send = t_send;
	out.cancel = t_cancel;
	out.timer_set = t_timer_set;
	out.timer_cancel = t_timer_cancel;
	out.now = &now;
	env = iter_env_create_default();
	ck_assert_ptr_nonnull(env);
	z = iter_env_add_zone(env, ".", 1);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	cfg->num_queries_per_thread = 2;
	cfg->jostle_timeout = 200;
	{
		char err[256];
		ck_assert_int_eq(modstack_setup(&stack, "iterator", NULL,
			NULL, err, sizeof(err)), 0);
		/* the iterator's settings: this test's forward zone */
		iter_env_delete(stack.modinfo[0]);
		stack.modinfo[0] = env;
	}
	rnd = random_create_seeded(1);
	res = resolver_create(cfg, &stack, &out, rnd, t_reply, NULL);
	ck_assert_ptr_nonnull(res);
}

static void
teardown(void)
{
	resolver_delete(res);
	modstack_desetup(&stack);
	config_delete(cfg);
	random_delete(rnd);
}

/** send a client query; @return the result */
static enum resolver_result
client(const char *name, int do_bit)
{
	ldns_pkt *p = NULL;
	uint8_t *wire = NULL, buf[4096];
	size_t len = 0, outlen = 0;
	struct netaddr a;
	struct resolver_handle h;
	const char *err;
	enum resolver_result r;
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	if(do_bit) {
		ldns_pkt_set_edns_udp_size(p, 4096);
		ldns_pkt_set_edns_do(p, 1);
	}
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	memset(&h, 0, sizeof(h));
	r = resolver_handle_query(res, wire, len, &a, RESOLVER_UDP, &h, buf,
		sizeof(buf), &outlen);
	free(wire);
	return r;
}

/** answer the fake query i with an A record */
static void
answer(int i, const char *name)
{
	ldns_pkt *p = NULL;
	ldns_rr *rr = NULL;
	uint8_t *wire = NULL;
	size_t len = 0;
	char txt[300];
	struct tq q = sent[i];
	ck_assert_int_eq(q.used, 1);
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_ra(p, 1);
	snprintf(txt, sizeof(txt), "%s 300 IN A 192.0.2.99", name);
	ck_assert_int_eq(ldns_rr_new_frm_str(&rr, txt, 300, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	sent[i].used = 0;
	q.cb(q.arg, OUTBOUND_REPLY, wire, len, 5);
	free(wire);
}

START_TEST(test_merge)
{
	ck_assert_int_eq(client("www.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(num_sent, 1);
	ck_assert_int_eq(sent[0].flags & OUTBOUND_FLAG_RD, OUTBOUND_FLAG_RD);
	ck_assert_int_eq(client("WWW.example.COM.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(num_sent, 1);	/* merged: nothing new sent */
	ck_assert_uint_eq(mesh_num_states(res->mesh), 1);
	ck_assert_uint_eq(resolver_num_pending(res), 2);
	/* requestlist.current.user: one state with clients; .replies: its
	 * two clients */
	ck_assert_uint_eq(res->mesh->num_client_states, 1);
	ck_assert_uint_eq(mesh_num_clients(res->mesh), 2);
	answer(0, "www.example.com.");
	ck_assert_int_eq(num_replies, 2);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 0);
	ck_assert_uint_eq(resolver_num_pending(res), 0);
	ck_assert_uint_eq(res->stats.num_recursive_replies, 2);
}
END_TEST

START_TEST(test_do_apart)
{
	ck_assert_int_eq(client("www.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("www.example.com.", 1), RESOLVER_PENDING);
	ck_assert_int_eq(num_sent, 2);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
}
END_TEST

/* client tags (rpz zones with tags: and NS triggers, module_qstate.tags)
 * are part of the key: the same question for other tags is another
 * state, for the same tags the same one */
START_TEST(test_tags_apart)
{
	static uint8_t blob[4096];
	uint8_t qname[] = "\003www\007example\003com";
	int fl = MESH_FLAG_RD;
	ck_assert_int_eq(mesh_new_client_tags(res->mesh, qname, DNS_TYPE_A,
		DNS_CLASS_IN, fl, NULL, 0, blob, sizeof(blob), NULL, 0), 0);
	ck_assert_int_eq(mesh_new_client_tags(res->mesh, qname, DNS_TYPE_A,
		DNS_CLASS_IN, fl, NULL, 0, blob, sizeof(blob), NULL, 0), 0);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 1);
	ck_assert_int_eq(mesh_new_client_tags(res->mesh, qname, DNS_TYPE_A,
		DNS_CLASS_IN, fl, NULL, 1, blob, sizeof(blob), NULL, 0), 0);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
	ck_assert_int_eq(mesh_new_client_tags(res->mesh, qname, DNS_TYPE_A,
		DNS_CLASS_IN, fl, NULL, 1, blob, sizeof(blob), NULL, 0), 0);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
	ck_assert_uint_eq(mesh_num_clients(res->mesh), 4);
	/* (the mesh holds 2 client states: a third tag set is refused, not
	 * merged into one of them) */
	ck_assert_int_eq(mesh_new_client_tags(res->mesh, qname, DNS_TYPE_A,
		DNS_CLASS_IN, fl, NULL, (uint64_t)1 << 40, blob, sizeof(blob),
		NULL, 0), MESH_FULL);
	ck_assert_uint_eq(mesh_num_clients(res->mesh), 4);
}
END_TEST

START_TEST(test_full_and_jostle)
{
	uint8_t buf[512];
	ck_assert_int_eq(client("a.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("b.example.com.", 0), RESOLVER_PENDING);
	/* full (2), b (the one that may be jostled out: a, the first
	 * half, is kept for good) younger than 200 ms: c is dropped, no
	 * answer, as Unbound drops it */
	ck_assert_int_eq(client("c.example.com.", 0), RESOLVER_DROP);
	ck_assert_uint_eq(res->stats.num_dropped, 1);
	ck_assert_uint_eq(res->stats.num_servfail, 0);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
	ck_assert_uint_eq(res->stats.num_jostled, 0);
	/* a second later b is jostled out for a new one; a stays */
	now.tv_sec += 1;
	ck_assert_int_eq(client("d.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(num_drops, 1);
	ck_assert_uint_eq(res->stats.num_jostled, 1);	/* overwritten */
	ck_assert_int_eq(num_cancel, 1);	/* its upstream query too */
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
	/* a is still there: its question joins it, no new state (the
	 * mesh is full: a new one would be dropped) */
	ck_assert_int_eq(client("a.example.com.", 0), RESOLVER_PENDING);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 2);
	ck_assert_int_eq(num_drops, 1);
	/* and b's state is gone: its question is dropped (d is younger
	 * than 200 ms) */
	ck_assert_int_eq(client("b.example.com.", 0), RESOLVER_DROP);
	(void)buf;
}
END_TEST

/* jostle-timeout counts from the newest client of a state (as Unbound
 * counts from its newest reply): a state that may be jostled out but
 * got a client lately stays */
START_TEST(test_jostle_newest_client)
{
	ck_assert_int_eq(client("a.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("b.example.com.", 0), RESOLVER_PENDING);
	now.tv_sec += 1;
	/* b gets a new client: younger than 200 ms again */
	ck_assert_int_eq(client("b.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("c.example.com.", 0), RESOLVER_DROP);
	ck_assert_uint_eq(res->stats.num_jostled, 0);
	ck_assert_int_eq(num_drops, 0);
	/* half a second later it goes (a, 1.5 s old, is within
	 * discard-timeout, and kept for good anyway) */
	now.tv_usec += 500000;
	ck_assert_int_eq(client("c.example.com.", 0), RESOLVER_PENDING);
	ck_assert_uint_eq(res->stats.num_jostled, 1);
	ck_assert_int_eq(num_drops, 2);	/* b's two clients */
}
END_TEST

/** time out every upstream query until none is left (at most n rounds)
 * @return the number timed out */
static int
time_out_all(int n)
{
	int i, k = 0, again = 1;
	while(again && n-- > 0) {
		again = 0;
		for(i = 0; i < MAXQ; i++) {
			struct tq q = sent[i];
			if(!q.used)
				continue;
			sent[i].used = 0;
			q.cb(q.arg, OUTBOUND_TIMEOUT, NULL, 0, 0);
			k++;
			again = 1;
		}
	}
	return k;
}

/* log-servfail: a SERVFAIL given to a client logs "SERVFAIL <name type
 * class>: reason" as an error; without the option nothing is logged */
START_TEST(test_log_servfail)
{
	char logbuf[2048];
	int on;
	for(on = 0; on < 2; on++) {
		cfg->log_servfail = on;
		logbuf[0] = 0;
		log_capture(logbuf, sizeof(logbuf));
		ck_assert_int_eq(client(on ? "fail.example.com." :
			"quiet.example.com.", 0), RESOLVER_PENDING);
		ck_assert_int_gt(time_out_all(100), 0);
		log_capture(NULL, 0);
		ck_assert_int_eq(num_replies, on + 1);
		ck_assert_uint_eq(last_reply[3] & 0x0f, LDNS_RCODE_SERVFAIL);
		if(on)
			ck_assert_msg(strstr(logbuf, "error: SERVFAIL "
				"<fail.example.com. A IN>: ") != NULL, "log: %s",
				logbuf);
		else	ck_assert_msg(strstr(logbuf, "SERVFAIL") == NULL,
				"log: %s", logbuf);
	}
}
END_TEST

/* harden-large-queries: a query over 512 bytes (here a 600-byte TXT
 * record in its additional section) is dropped; without it, resolved */
START_TEST(test_harden_large)
{
	ldns_pkt *p = NULL;
	ldns_rr *rr = NULL;
	uint8_t *wire = NULL, buf[4096];
	char txt[1024];
	size_t len = 0, outlen = 0;
	struct netaddr a;
	struct resolver_handle h;
	const char *err;
	int on;
	memset(txt, 0, sizeof(txt));
	strcpy(txt, "pad.example.com. 60 IN TXT");
	for(on = 0; on < 3; on++)
		strcat(txt, " \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"");
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, "big.example.com.",
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ck_assert_int_eq(ldns_rr_new_frm_str(&rr, txt, 60, NULL, NULL),
		LDNS_STATUS_OK);
	ldns_pkt_push_rr(p, LDNS_SECTION_ADDITIONAL, rr);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	ck_assert_uint_gt(len, 512);
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	memset(&h, 0, sizeof(h));
	for(on = 1; on >= 0; on--) {
		res->front_opts = on ? RESOLVER_OPT_LARGE : 0;
		ck_assert_int_eq(resolver_handle_query(res, wire, len, &a,
			RESOLVER_UDP, &h, buf, sizeof(buf), &outlen),
			on ? RESOLVER_DROP : RESOLVER_PENDING);
	}
	free(wire);
}
END_TEST

START_TEST(test_delete_pending)
{
	ck_assert_int_eq(client("a.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("b.example.com.", 0), RESOLVER_PENDING);
	resolver_delete(res);
	res = NULL;
	ck_assert_int_eq(num_drops, 2);
	ck_assert_int_eq(num_cancel, 2);
}
END_TEST

START_TEST(test_malformed)
{
	uint8_t buf[512];
	size_t outlen = 0;
	struct netaddr a;
	const char *err;
	struct resolver_handle h;
	/* header, QDCOUNT 1, question name cut short */
	static const uint8_t cut[] = {0x12, 0x34, 0x01, 0x00, 0, 1, 0, 0, 0,
		0, 0, 0, 3, 'w', 'w'};
	static const uint8_t resp[] = {0x12, 0x34, 0x81, 0x00, 0, 0, 0, 0,
		0, 0, 0, 0};
	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	ck_assert_int_eq(resolver_handle_query(res, cut, 5, &a, RESOLVER_UDP,
		&h, buf, sizeof(buf), &outlen), RESOLVER_DROP);
	ck_assert_int_eq(resolver_handle_query(res, resp, sizeof(resp), &a,
		RESOLVER_UDP, &h, buf, sizeof(buf), &outlen), RESOLVER_DROP);
	ck_assert_int_eq(resolver_handle_query(res, cut, sizeof(cut), &a,
		RESOLVER_UDP, &h, buf, sizeof(buf), &outlen),
		RESOLVER_ANSWERED);
	ck_assert_uint_ge(outlen, 12);
	ck_assert_int_eq(buf[0], 0x12);
	ck_assert_int_eq(buf[1], 0x34);
	ck_assert_int_eq(buf[3] & 0x0f, 1);	/* FORMERR */
	ck_assert_int_eq(buf[2] & 0x80, 0x80);	/* QR */
	ck_assert_uint_eq(res->stats.num_malformed, 3);
	ck_assert_int_eq(num_sent, 0);
}
END_TEST

START_TEST(test_cache_inplace)
{
	struct mcache_params mp;
	struct mcache *mc;
	ldns_pkt *p = NULL, *a = NULL;
	uint8_t *wire = NULL, buf[4096];
	size_t len = 0, outlen = 0;
	struct netaddr ad;
	struct resolver_handle h;
	const char *err;
	mcache_params_default(&mp);
	mc = mcache_create(&mp);
	ck_assert_ptr_nonnull(mc);
	resolver_set_env(res, mc, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(client("www.example.com.", 0), RESOLVER_PENDING);
	answer(0, "www.example.com.");
	ck_assert_int_eq(num_replies, 1);
	/* the same question in another letter case, answered from the
	 * cache into the query's own buffer */
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, "WwW.ExAmPlE.CoM.",
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ldns_pkt_set_id(p, 0x4242);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	memcpy(buf, wire, len);
	free(wire);
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &ad, &err), 0);
	memset(&h, 0, sizeof(h));
	{
		/* the batch prefetch parses, counts nothing; the parse is
		 * answered from, in the query's own buffer */
		struct resolver_peek pk;
		uint64_t q0 = res->stats.num_queries;
		resolver_prefetch(res, buf, 11, &pk, 0);
		ck_assert_int_ne(pk.err, 0);
		ck_assert_int_eq(pk.have_hash, 0);
		resolver_prefetch(res, buf, len, &pk, 0);
		ck_assert_int_eq(pk.err, 0);
		ck_assert_int_eq(pk.have_hash, 1);
		resolver_prefetch(res, buf, len, &pk, 1);
		ck_assert_uint_eq(res->stats.num_queries, q0);
		ck_assert_int_eq(resolver_handle_peeked(res, buf, len, &pk,
			&ad, RESOLVER_UDP, &h, buf, sizeof(buf), &outlen),
			RESOLVER_ANSWERED);
		ck_assert_uint_eq(res->stats.num_queries, q0 + 1);
	}
	ck_assert_int_eq(num_sent, 1);	/* no new upstream query */
	ck_assert_uint_eq(res->stats.num_cache_hits, 1);
	ck_assert_int_eq(ldns_wire2pkt(&a, buf, outlen), LDNS_STATUS_OK);
	ck_assert_int_eq(ldns_pkt_id(a), 0x4242);
	ck_assert_int_eq(memcmp(buf + 12, "\003WwW\007ExAmPlE\003CoM", 17), 0);
	ck_assert_uint_eq(ldns_rr_list_rr_count(ldns_pkt_answer(a)), 1);
	ldns_pkt_free(a);
	resolver_delete(res);
	res = NULL;
	mcache_delete(mc);
}
END_TEST

/* the extended statistics count each header flag of a query in its own
 * slot (qflags[0] QR, then AA, TC, RD, RA, Z, AD, CD): each flag alone,
 * then all of them at once (a packet with QR is a response: dropped
 * before it is counted) */
START_TEST(test_flag_counts)
{
	static const uint16_t bit[8] = { 0x8000, 0x0400, 0x0200, 0x0100,
		0x0080, 0x0040, 0x0020, 0x0010 };
	uint8_t q[64], buf[4096];
	static const uint8_t qname[] = "\003www\007example\003com";
	size_t len, outlen;
	struct netaddr a;
	struct resolver_handle h;
	const char *err;
	uint64_t before[8];
	int i, j;
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	memset(&h, 0, sizeof(h));
	for(i = 0; i <= 8; i++) {
		uint16_t fl = 0;
		if(i < 8)
			fl = bit[i];
		else
			for(j = 1; j < 8; j++)
				fl |= bit[j];
		memset(q, 0, sizeof(q));
		q[0] = 0x12;
		q[1] = (uint8_t)i;
		q[2] = (uint8_t)(fl >> 8);
		q[3] = (uint8_t)fl;
		q[5] = 1;	/* qdcount */
		memcpy(q + 12, qname, sizeof(qname));
		len = 12 + sizeof(qname);
		q[len + 1] = 1;	/* A */
		q[len + 3] = 1;	/* IN */
		len += 4;
		memcpy(before, res->stats.qflags, sizeof(before));
		outlen = 0;
		(void)resolver_handle_query(res, q, len, &a, RESOLVER_UDP,
			&h, buf, sizeof(buf), &outlen);
		for(j = 0; j < 8; j++)
			ck_assert_uint_eq(res->stats.qflags[j], before[j] +
				((i == 8 ? (j > 0) : (j == i && i > 0)) ? 1 :
				0));
	}
}
END_TEST

/** resolver_handle fill of test_handle_fill: counts, and writes a mark */
static int num_fills;
static void
t_fill(void *arg, struct resolver_handle *h)
{
	num_fills++;
	ck_assert_ptr_null(h->fill);
	memcpy(h->data, arg, 4);
	h->len = 4;
}

/* a handle with fill: filled once for a query that goes to the mesh (the
 * reply gets what fill wrote), never for a cached answer */
START_TEST(test_handle_fill)
{
	struct mcache_params mp;
	struct mcache *mc;
	uint8_t wire[64], buf[4096];
	static const uint8_t qname[] = "\003www\007example\003com";
	size_t len, outlen = 0;
	struct netaddr a;
	struct resolver_handle h;
	const char *err;
	char mark[4] = "mrk";
	mcache_params_default(&mp);
	mc = mcache_create(&mp);
	ck_assert_ptr_nonnull(mc);
	resolver_set_env(res, mc, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	memset(wire, 0, sizeof(wire));
	wire[2] = 0x01;	/* RD */
	wire[5] = 1;	/* qdcount */
	memcpy(wire + 12, qname, sizeof(qname));
	len = 12 + sizeof(qname);
	wire[len + 1] = 1;	/* A */
	wire[len + 3] = 1;	/* IN */
	len += 4;
	memset(&h, 0, sizeof(h));
	h.fill = t_fill;
	h.fill_arg = mark;
	num_fills = 0;
	ck_assert_int_eq(resolver_handle_query(res, wire, len, &a,
		RESOLVER_UDP, &h, buf, sizeof(buf), &outlen), RESOLVER_PENDING);
	ck_assert_int_eq(num_fills, 1);
	ck_assert_uint_eq(h.len, 0);	/* the caller's own is untouched */
	answer(0, "www.example.com.");
	ck_assert_int_eq(num_replies, 1);
	ck_assert_uint_eq(last_handle.len, 4);
	ck_assert_int_eq(memcmp(last_handle.data, "mrk", 4), 0);
	/* the same question again: a cached answer, no fill */
	ck_assert_int_eq(resolver_handle_query(res, wire, len, &a,
		RESOLVER_UDP, &h, buf, sizeof(buf), &outlen), RESOLVER_ANSWERED);
	ck_assert_int_eq(num_fills, 1);
	ck_assert_int_eq(num_sent, 1);
	resolver_delete(res);
	res = NULL;
	mcache_delete(mc);
}
END_TEST

START_TEST(test_random_packets)
{
	/* garbage of every shape must give DROP or an immediate answer,
	 * never a crash (run under ASan in CI) */
	struct petrel_random *g = random_create_seeded(99);
	uint8_t pkt[600], buf[700];
	struct netaddr a;
	const char *err;
	struct resolver_handle h;
	int i;
	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &err), 0);
	for(i = 0; i < 20000; i++) {
		size_t len = random_uniform(g, sizeof(pkt)), outlen = 0;
		enum resolver_result r;
		random_bytes(g, pkt, len);
		if(len >= 12 && (i & 1)) {
			/* mostly-valid header: QR clear, one question */
			pkt[2] &= 0x07;
			pkt[4] = 0;
			pkt[5] = 1;
			pkt[6] = pkt[7] = pkt[8] = pkt[9] = 0;
		}
		r = resolver_handle_query(res, pkt, len, &a, (i & 2) ?
			RESOLVER_TCP : RESOLVER_UDP, &h, buf, sizeof(buf),
			&outlen);
		if(r == RESOLVER_ANSWERED)
			ck_assert_uint_le(outlen, sizeof(buf));
		else if(r == RESOLVER_DROP)
			ck_assert_uint_eq(outlen, 0);
		{
			/* parsed by the prefetch, answered in place: the
			 * same result and the same bytes */
			struct resolver_peek pk;
			uint8_t inplace[700];
			size_t plen = 0;
			memcpy(inplace, pkt, len);
			resolver_prefetch(res, inplace, len, &pk, 0);
			resolver_prefetch(res, inplace, len, &pk, 1);
			ck_assert_int_eq(resolver_handle_peeked(res, inplace,
				len, &pk, &a, (i & 2) ? RESOLVER_TCP :
				RESOLVER_UDP, &h, inplace, sizeof(inplace),
				&plen), r);
			ck_assert_uint_eq(plen, outlen);
			if(r == RESOLVER_ANSWERED)
				ck_assert_int_eq(memcmp(inplace, buf, plen), 0);
		}
	}
	random_delete(g);
}
END_TEST

/** a module that passes everything down (to test the stack's order
 * rules with a module outside the table) */
static void
pass_operate(struct module_qstate *qs, enum module_ev ev, int id,
	struct module_reply *rep)
{
	(void)rep;
	qs->ext_state[id] = ev == MODULE_EVENT_MODDONE ? MODULE_FINISHED :
		MODULE_WAIT_MODULE;
}

/** the extra module */
static const struct module_func_block pass_block = {
	.name = "passer",
	.operate = pass_operate,
};

/** one default module-config: the option's default (what config_create
 * sets), the stack a NULL module-config builds, and the list the policy
 * check names when the config has none are the same */
START_TEST(test_module_default)
{
	const struct config_option *o = NULL;
	struct config_file *c = config_create();
	struct module_stack a, b;
	char err[256];
	size_t i;
	int j;
	for(i = 0; i < config_option_count; i++)
		if(strcmp(config_option_table[i].name, "module-config") == 0)
			o = &config_option_table[i];
	ck_assert_ptr_nonnull(o);
	ck_assert_ptr_nonnull(o->def);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->module_config, o->def);
	/* Unbound's default */
	ck_assert_str_eq(o->def, "validator iterator");
	ck_assert_int_eq(modstack_setup(&a, NULL, NULL, c, err,
		sizeof(err)), 0);
	ck_assert_int_eq(modstack_setup(&b, o->def, NULL, c, err,
		sizeof(err)), 0);
	ck_assert_int_eq(a.num, b.num);
	for(j = 0; j < a.num; j++)
		ck_assert_ptr_eq(a.mod[j], b.mod[j]);
	modstack_desetup(&a);
	modstack_desetup(&b);
	config_delete(c);
}
END_TEST

/** the module list: each row's name is its functions' name, ranks rise
 * down the rows, the iterator ends them; module_find and
 * module_list_str follow the rows this build has; the stack refuses
 * unknown and misplaced modules, naming the modules this build has (the
 * expected texts are built from the rows, so they hold in a build that
 * leaves an optional module out, as configure --disable-dns64 does) */
START_TEST(test_module_table)
{
	char have[256], want[256], err[256], msg[512];
	const struct module_row *row;
	struct module_stack st;
	size_t n = 0;
	int last_rank = -1;
	want[0] = 0;
	for(row = modstack_rows; row->name; row++) {
		ck_assert_int_ge(row->rank, last_rank);
		last_rank = row->rank;
		ck_assert_ptr_eq(module_find(row->name), row->mod);
		if(!row->mod) {
			ck_assert_str_eq(modstack_left_out(row->name),
				row->name);
			continue;
		}
		ck_assert_str_eq(row->mod->name, row->name);
		ck_assert_ptr_null(modstack_left_out(row->name));
		n += (size_t)snprintf(want + n, sizeof(want) - n, "%s%s",
			n ? " " : "", row->name);
	}
	ck_assert_str_eq(row[-1].name, "iterator");
	ck_assert_int_gt(row[-1].rank, row[-2].rank);
	ck_assert_str_eq(module_list_str(have, sizeof(have)), want);
	ck_assert_ptr_null(module_find("passer"));
	ck_assert_ptr_null(modstack_left_out("\"passer validator iterator\""));
	/* the optional module dns64: in the build unless configure left
	 * it out */
#ifdef USE_DNS64
	ck_assert_ptr_nonnull(module_find("dns64"));
	ck_assert_ptr_null(modstack_left_out("\"respip dns64 iterator\""));
#else
	ck_assert_ptr_null(module_find("dns64"));
	ck_assert_str_eq(modstack_left_out("\"respip dns64 iterator\""),
		"dns64");
	ck_assert_int_eq(modstack_setup(&st, "dns64 iterator", NULL, NULL,
		err, sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "module-config: module 'dns64' is not in "
		"this build of petrel (this petrel has: %s)", want);
	ck_assert_str_eq(err, msg);
#endif

	ck_assert_int_eq(modstack_setup(&st, "iterator", NULL, NULL, err,
		sizeof(err)), 0);
	ck_assert_int_eq(st.num, 1);
	ck_assert_int_eq(modstack_find(&st, "iterator"), 0);
	ck_assert_ptr_nonnull(st.modinfo[0]);
	modstack_desetup(&st);
	ck_assert_int_eq(st.num, 0);

	/* subnetcache first, as in Unbound; never below the iterator */
	ck_assert_int_eq(modstack_setup(&st, "subnetcache iterator", NULL,
		NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(modstack_find(&st, "subnetcache"), 0);
	modstack_desetup(&st);
	ck_assert_int_eq(modstack_setup(&st, "iterator subnetcache", NULL,
		NULL, err, sizeof(err)), -1);

	/* respip and dns64 in either order, as in Unbound; each once (a
	 * rule of dns64's row: it needs the module) */
	if(module_find("dns64")) {
		ck_assert_int_eq(modstack_setup(&st, "dns64 respip iterator",
			NULL, NULL, err, sizeof(err)), 0);
		ck_assert_int_eq(modstack_find(&st, "dns64"), 0);
		ck_assert_int_eq(modstack_find(&st, "respip"), 1);
		modstack_desetup(&st);
		ck_assert_int_eq(modstack_setup(&st, "respip dns64 iterator",
			NULL, NULL, err, sizeof(err)), 0);
		modstack_desetup(&st);
		ck_assert_int_eq(modstack_setup(&st,
			"dns64 respip dns64 iterator", NULL, NULL, err,
			sizeof(err)), -1);
		ck_assert_int_eq(modstack_setup(&st,
			"subnetcache dns64 iterator", NULL, NULL, err,
			sizeof(err)), -1);
	}
	ck_assert_int_eq(modstack_setup(&st, "respip respip iterator", NULL,
		NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(modstack_setup(&st, "validator subnetcache iterator",
		NULL, NULL, err, sizeof(err)), -1);

	ck_assert_int_eq(modstack_setup(&st, "validatr iterator", NULL, NULL,
		err, sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "module-config: unknown module 'validatr' "
		"(this petrel has: %s)", want);
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(modstack_setup(&st, "iterator iterator", NULL, NULL,
		err, sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "module-config: module 'iterator' is "
		"misplaced (the order is: %s)", want);
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(modstack_setup(&st, "  ", NULL, NULL, err,
		sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "module-config: expected a list of "
		"modules (this petrel has: %s)", want);
	ck_assert_str_eq(err, msg);
	/* the extra module only where it is named, once, and never last */
	ck_assert_int_eq(modstack_setup(&st, "passer iterator", NULL, NULL,
		err, sizeof(err)), -1);
	ck_assert_int_eq(modstack_setup(&st, "iterator passer", &pass_block,
		NULL, err, sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "module-config: the last module must be "
		"iterator (the order is: %s)", want);
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(modstack_setup(&st, "passer passer iterator",
		&pass_block, NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(modstack_setup(&st, "passer iterator", &pass_block,
		NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(st.num, 2);
	ck_assert_int_eq(modstack_find(&st, "passer"), 0);
	modstack_desetup(&st);

	/* the config parser asks the same list (registered in main) */
	ck_assert_int_eq(config_check_modules("validatr iterator", err,
		sizeof(err)), -1);
	snprintf(msg, sizeof(msg), "unknown module 'validatr' (this petrel "
		"has: %s)", want);
	ck_assert_str_eq(err, msg);
	ck_assert_int_eq(config_check_modules("validator iterator", err,
		sizeof(err)), 0);
}
END_TEST

/** the capabilities of the rows: the front end and the daemon ask the
 * stack, or the module-config string, for one, never for a name */
START_TEST(test_module_caps)
{
	struct module_stack st;
	char err[256];
	const struct module_row *row;
	unsigned all = 0;
	for(row = modstack_rows; row->name; row++) {
		/* one module offers each */
		ck_assert_int_eq((int)(all & row->caps), 0);
		all |= row->caps;
		if(row->caps)
			ck_assert_str_eq(modstack_cap_name(row->caps),
				row->name);
	}
	ck_assert_str_eq(modstack_cap_name(1u << 30), "?");
	ck_assert_str_eq(modstack_cap_name(MODSTACK_CAP_DNSSEC), "validator");
	ck_assert_str_eq(modstack_cap_name(MODSTACK_CAP_RESPIP), "respip");
	/* the default, validator iterator */
	ck_assert_int_eq(modstack_conf_has_cap(NULL, MODSTACK_CAP_DNSSEC), 1);
	ck_assert_int_eq(modstack_conf_has_cap(NULL, MODSTACK_CAP_RESPIP), 0);
	ck_assert_int_eq(modstack_conf_has_cap("\"respip iterator\"",
		MODSTACK_CAP_RESPIP), 1);
	/* a word, not a part of one */
	ck_assert_int_eq(modstack_conf_has_cap("respipx validatorx iterator",
		MODSTACK_CAP_RESPIP | MODSTACK_CAP_DNSSEC), 0);
	ck_assert_int_eq(modstack_conf_has_cap("iterator",
		MODSTACK_CAP_DNSSEC), 0);

	ck_assert_int_eq(modstack_setup(&st, "passer subnetcache validator "
		"iterator", &pass_block, NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(modstack_find_cap(&st, MODSTACK_CAP_CLIENT_ECS), 1);
	ck_assert_int_eq(modstack_find_cap(&st, MODSTACK_CAP_DNSSEC), 2);
	ck_assert_int_eq(modstack_find_cap(&st, MODSTACK_CAP_RESOLVES), 3);
	ck_assert_int_eq(modstack_find_cap(&st, MODSTACK_CAP_RESPIP), -1);
	ck_assert_int_eq(modstack_find_cap(&st, MODSTACK_CAP_SECOND_CACHE),
		-1);
	modstack_desetup(&st);
}
END_TEST

/** what the control callbacks of test_module_control saw */
struct ctl_seen {
	/** root hints given */
	int hints;
	/** of them with an address */
	int addrs;
	/** the first hint's name */
	const uint8_t *first;
	/** text given */
	char text[1024];
	/** its length */
	size_t len;
};

/** module_ctl_arg.hint of test_module_control */
static void
ctl_hint_cb(void *arg, const uint8_t *name, const struct netaddr *addr)
{
	struct ctl_seen *s = arg;
	if(!s->hints++)
		s->first = name;
	if(addr)
		s->addrs++;
}

/** module_ctl_arg.text of test_module_control */
static void
ctl_text_cb(void *arg, const char *text, size_t len)
{
	struct ctl_seen *s = arg;
	ck_assert_uint_lt(s->len + len, sizeof(s->text));
	memcpy(s->text + s->len, text, len);
	s->len += len;
	s->text[s->len] = 0;
}

/** the remote control's requests (module_func_block.control): the stack
 * says which module answers each, and that module does it; a stack
 * without such a module answers 0 (the daemon then says so) */
START_TEST(test_module_control)
{
	static const uint8_t nta[] = "\001a\007example\000";
	uint8_t many[] = "\003xxx\007example\000";
	struct module_stack st;
	struct module_ctl_arg c;
	struct ctl_seen seen;
	const struct iter_env *ie;
	const struct iter_hint *h;
	char err[256];
	int n, added, rc = 0;
	ck_assert_int_eq(modstack_setup(&st, "passer validator iterator",
		&pass_block, NULL, err, sizeof(err)), 0);
	/* who answers: the validator its key cache and negative trust
	 * anchors, the iterator its rate limits and root hints */
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_KEY_COUNT), 1);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_FLUSH_KEYS), 1);
	ck_assert_int_eq(modstack_control_find(&st,
		MODULE_CTL_FLUSH_BAD_KEYS), 1);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_FLUSH_BOGUS),
		1);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_INSECURE_ADD),
		1);
	ck_assert_int_eq(modstack_control_find(&st,
		MODULE_CTL_INSECURE_REMOVE), 1);
	ck_assert_int_eq(modstack_control_find(&st,
		MODULE_CTL_INSECURE_LIST), 1);
	ck_assert_int_eq(modstack_control_find(&st,
		MODULE_CTL_RATELIMIT_LIST), 2);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_ROOT_HINTS),
		2);

	/* the root hints, in the iterator's order */
	memset(&c, 0, sizeof(c));
	memset(&seen, 0, sizeof(seen));
	c.hint = ctl_hint_cb;
	c.cbarg = &seen;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_ROOT_HINTS,
		&c), 1);
	ie = st.modinfo[2];
	n = 0;
	for(h = ie->hints; h; h = h->next)
		n++;
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(seen.hints, n);
	ck_assert_int_eq(seen.addrs, n);
	ck_assert_ptr_eq(seen.first, ie->hints->name);
	/* no ratelimit configured: no zone */
	memset(&c, 0, sizeof(c));
	c.all = 1;
	c.now = 1000;
	ck_assert_int_eq(modstack_control(&st, NULL,
		MODULE_CTL_RATELIMIT_LIST, &c), 1);

	/* the negative trust anchors added at run time */
	memset(&c, 0, sizeof(c));
	c.name = nta;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_INSECURE_ADD,
		&c), 1);
	memset(&c, 0, sizeof(c));
	memset(&seen, 0, sizeof(seen));
	c.text = ctl_text_cb;
	c.cbarg = &seen;
	ck_assert_int_eq(modstack_control(&st, NULL,
		MODULE_CTL_INSECURE_LIST, &c), 1);
	ck_assert_str_eq(seen.text, "a.example.\n");
	memset(&c, 0, sizeof(c));
	c.name = nta;
	ck_assert_int_eq(modstack_control(&st, NULL,
		MODULE_CTL_INSECURE_REMOVE, &c), 1);
	ck_assert_uint_eq(c.count, 1);
	c.count = 7;
	ck_assert_int_eq(modstack_control(&st, NULL,
		MODULE_CTL_INSECURE_REMOVE, &c), 1);
	ck_assert_uint_eq(c.count, 0);
	/* full: -1, with the most it holds */
	for(added = 0; added < 1000; added++) {
		/* a distinct first label of three letters */
		memset(&c, 0, sizeof(c));
		many[1] = (uint8_t)('a' + added % 26);
		many[2] = (uint8_t)('a' + (added / 26) % 26);
		many[3] = (uint8_t)('a' + added / 676);
		c.name = many;
		if((rc = modstack_control(&st, NULL, MODULE_CTL_INSECURE_ADD,
			&c)) != 1)
			break;
	}
	ck_assert_int_eq(rc, -1);
	ck_assert_int_gt(added, 0);
	ck_assert_int_lt(added, 1000);
	ck_assert_uint_eq(c.count, (size_t)added);
	/* the key cache: empty, nothing flushed */
	memset(&c, 0, sizeof(c));
	c.count = 9;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_KEY_COUNT,
		&c), 1);
	ck_assert_uint_eq(c.count, 0);
	c.count = 9;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_FLUSH_BOGUS,
		&c), 1);
	ck_assert_uint_eq(c.count, 0);
	c.count = 9;
	ck_assert_int_eq(modstack_control(&st, NULL,
		MODULE_CTL_FLUSH_BAD_KEYS, &c), 1);
	ck_assert_uint_eq(c.count, 0);
	c.count = 9;
	c.name = nta;
	c.all = 1;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_FLUSH_KEYS,
		&c), 1);
	ck_assert_uint_eq(c.count, 0);
	modstack_desetup(&st);

	/* no validator: nobody answers its requests */
	ck_assert_int_eq(modstack_setup(&st, "passer iterator", &pass_block,
		NULL, err, sizeof(err)), 0);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_INSECURE_ADD),
		-1);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_KEY_COUNT),
		-1);
	ck_assert_int_eq(modstack_control_find(&st, MODULE_CTL_ROOT_HINTS),
		1);
	memset(&c, 0, sizeof(c));
	c.name = nta;
	c.count = 5;
	ck_assert_int_eq(modstack_control(&st, NULL, MODULE_CTL_INSECURE_ADD,
		&c), 0);
	ck_assert_uint_eq(c.count, 5);
	modstack_desetup(&st);
}
END_TEST

/** num.prefetch counts the front end's refreshes (prefetch and
 * serve-expired) only, as Unbound's: a module's background query (RFC
 * 5011 probes, RFC 8145 key tag signals, the iterator's NS checks) is
 * not one, so with prefetch: no it stays 0 (issue 31) */
START_TEST(test_prefetch_counter)
{
	static const uint8_t bg[] = "\002bg\007example\000";
	static const uint8_t pf[] = "\002pf\007example\000";
	ck_assert_ptr_nonnull(res->menv.add_background);
	ck_assert_int_eq(res->menv.add_background(&res->menv, bg,
		DNS_TYPE_A, DNS_CLASS_IN, MESH_FLAG_RD), 0);
	ck_assert_uint_eq(res->stats.num_prefetch, 0);
	ck_assert_int_eq(mesh_new_prefetch(res->mesh, pf, DNS_TYPE_A,
		DNS_CLASS_IN, MESH_FLAG_RD), 0);
	ck_assert_uint_eq(res->stats.num_prefetch, 1);
}
END_TEST

/** a module in front of the iterator changes nothing a client sees:
 * the answer passes up through it */
START_TEST(test_module_in_front)
{
	char err[256];
	struct iter_zone *z;
	resolver_delete(res);
	modstack_desetup(&stack);
	ck_assert_int_eq(modstack_setup(&stack, "passer iterator",
		&pass_block, NULL, err, sizeof(err)), 0);
	env = iter_env_create_default();
	ck_assert_ptr_nonnull(env);
	z = iter_env_add_zone(env, ".", 1);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	iter_env_delete(stack.modinfo[1]);
	stack.modinfo[1] = env;
	res = resolver_create(cfg, &stack, &out, rnd, t_reply, NULL);
	ck_assert_ptr_nonnull(res);
	ck_assert_int_eq(client("www.example.com.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(num_sent, 1);
	answer(0, "www.example.com.");
	ck_assert_int_eq(num_replies, 1);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 0);
	ck_assert_uint_eq(res->stats.num_outgoing, 1);
}
END_TEST

/** the states of test_quota_shared: the clients' a.test. and b.test.,
 * and the sub-query s.test. both wait on */
static struct module_qstate *q_a, *q_b, *q_sub;

/** a module for test_quota_shared: a client's question waits on the
 * sub-query s.test., which waits for ever */
static void
quota_operate(struct module_qstate *qs, enum module_ev ev, int id,
	struct module_reply *rep)
{
	static const uint8_t sname[] = "\001s\004test";
	(void)rep;
	if(ev == MODULE_EVENT_NEW && qs->depth == 0) {
		ck_assert_ptr_nonnull(qs->env->attach_sub(qs, sname,
			DNS_TYPE_A, DNS_CLASS_IN, MESH_FLAG_RD));
		if(qs->qname[1] == 'a')
			q_a = qs;
		else	q_b = qs;
		qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
	} else if(ev == MODULE_EVENT_NEW) {
		q_sub = qs;
		qs->ext_state[id] = MODULE_WAIT_REPLY;
	} else	qs->ext_state[id] = MODULE_FINISHED;
}

/** the module of test_quota_shared */
static const struct module_func_block quota_block = {
	.name = "quota",
	.operate = quota_operate,
};

/** what starter_start saw: calls, the worker's number */
static int start_calls, start_index;

/** worker_start of the starter module: note it, ask for a timer */
static void
starter_start(struct module_env *e, int id)
{
	(void)id;
	start_calls++;
	start_index = e->worker_index;
	(void)e->timer_set(e, 5000, NULL, NULL);
}

/** a module with per-worker jobs */
static const struct module_func_block starter_block = {
	.name = "starter",
	.operate = pass_operate,
	.worker_start = starter_start,
};

/** resolver_start(): each module's worker_start() runs once with the
 * worker's number, and its timers reach the outbound network's */
START_TEST(test_worker_start)
{
	char err[256];
	resolver_delete(res);
	modstack_desetup(&stack);
	ck_assert_int_eq(modstack_setup(&stack, "starter iterator",
		&starter_block, NULL, err, sizeof(err)), 0);
	res = resolver_create(cfg, &stack, &out, rnd, t_reply, NULL);
	ck_assert_ptr_nonnull(res);
	start_calls = start_index = num_timers = 0;
	resolver_start(res, 3);
	ck_assert_int_eq(start_calls, 1);
	ck_assert_int_eq(start_index, 3);
	ck_assert_int_eq(num_timers, 1);
}
END_TEST

/** max-global-quota: a sub-query's upstream queries count against the
 * client question that made it, a shared one against the first of them;
 * the budget ends at max-global-quota */
START_TEST(test_quota_shared)
{
	char err[256];
	int i;
	resolver_delete(res);
	modstack_desetup(&stack);
	ck_assert_int_eq(modstack_setup(&stack, "quota iterator",
		&quota_block, NULL, err, sizeof(err)), 0);
	res = resolver_create(cfg, &stack, &out, rnd, t_reply, NULL);
	ck_assert_ptr_nonnull(res);
	q_a = q_b = q_sub = NULL;
	ck_assert_int_eq(client("a.test.", 0), RESOLVER_PENDING);
	ck_assert_int_eq(client("b.test.", 0), RESOLVER_PENDING);
	ck_assert_ptr_nonnull(q_a);
	ck_assert_ptr_nonnull(q_b);
	ck_assert_ptr_nonnull(q_sub);
	ck_assert_uint_eq(mesh_num_states(res->mesh), 3);
	cfg->max_global_quota = 3;
	for(i = 0; i < 3; i++)
		ck_assert_int_eq(q_sub->env->global_quota(q_sub, 1), 1);
	ck_assert_int_eq(q_a->global_sends, 3);
	ck_assert_int_eq(q_b->global_sends, 0);
	ck_assert_int_eq(q_sub->global_sends, 0);
	/* spent: asking does not count, b.test. has its own budget */
	ck_assert_int_eq(q_sub->env->global_quota(q_sub, 0), 0);
	ck_assert_int_eq(q_sub->env->global_quota(q_sub, 1), 0);
	ck_assert_int_eq(q_a->env->global_quota(q_a, 0), 0);
	ck_assert_int_eq(q_a->global_sends, 3);
	ck_assert_int_eq(q_b->env->global_quota(q_b, 1), 1);
	ck_assert_int_eq(q_b->global_sends, 1);
	/* 0: no limit */
	cfg->max_global_quota = 0;
	ck_assert_int_eq(q_sub->env->global_quota(q_sub, 1), 1);
	ck_assert_int_eq(q_a->global_sends, 4);
	cfg->max_global_quota = 200;
}
END_TEST

/** the suite */
static Suite *
mesh_suite(void)
{
	Suite *s = suite_create("mesh");
	TCase *tc = tcase_create("mesh");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_merge);
	tcase_add_test(tc, test_worker_start);
	tcase_add_test(tc, test_do_apart);
	tcase_add_test(tc, test_tags_apart);
	tcase_add_test(tc, test_full_and_jostle);
	tcase_add_test(tc, test_jostle_newest_client);
	tcase_add_test(tc, test_log_servfail);
	tcase_add_test(tc, test_harden_large);
	tcase_add_test(tc, test_delete_pending);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_cache_inplace);
	tcase_add_test(tc, test_random_packets);
	tcase_add_test(tc, test_flag_counts);
	tcase_add_test(tc, test_handle_fill);
	tcase_add_test(tc, test_module_table);
	tcase_add_test(tc, test_module_caps);
	tcase_add_test(tc, test_module_control);
	tcase_add_test(tc, test_module_default);
	tcase_add_test(tc, test_prefetch_counter);
	tcase_add_test(tc, test_module_in_front);
	tcase_add_test(tc, test_quota_shared);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(mesh_suite());
	int failed;
	log_init(NULL, 0, NULL);
	dns_hash_set_seed(7);
	modstack_config_register();
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
