/*
 * tests/replay/runner.c - run .rpl scenarios against the resolver core
 * with a fake network and a fake clock.
 *
 * The resolver (front/resolver.h: front end, mesh, iterator, caches)
 * is linked from libpetrel.a as the daemon links it; only the struct
 * outbound differs. The fake network keeps the queries the resolver sends
 * in a list. After every step the runner answers them from the RANGE
 * entries active at that step whose ADDRESS matches the destination (the
 * first entry whose MATCH rules accept the query). A reply whose ID does
 * not match the query (no ADJUST copy_id) is dropped, as the real network
 * drops spoofed replies, and the query times out; a do_not_answer entry
 * times out. A timeout moves the fake clock by the query's timeout. The
 * question of a reply is not checked here: the iterator checks it
 * itself (this is how the scenarios prove that scrub).
 *
 * A query that no entry answers fails the scenario at once, naming the
 * step, the destination and the question, unless the scenario answers
 * queries by hand (CHECK_OUT_QUERY, REPLY, TIMEOUT steps), in which case
 * it waits for those steps.
 *
 * Usage: replay [-v level] [file.rpl ...]; without files it runs every
 * testdata/<name>.rpl of the source tree. The exit code is 0 only when every
 * scenario passed; each failure is printed as "file: step N: difference".
 * A scenario whose module-config names a module this build leaves out
 * (configure --disable-dns64) is not run: it is printed as "SKIP file:
 * why" and counted on the last line.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <stdarg.h>
#include <glob.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include "tests/replay/replay.h"
#include "tests/replay/recorder.h"
#include "front/resolver.h"
#include "services/authzone.h"
#include "services/xfr.h"
#include "util/netevent/netevent.h"
#include <unistd.h>
#include <signal.h>
#include <sys/wait.h>
#include <time.h>
#include "services/outbound.h"
#include "services/mesh.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "front/localzone.h"
#include "front/acl.h"
#include "front/policy.h"
#include "front/modstack.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/ratelimit.h"
#include "front/cookie_secrets.h"
#include "dns/query.h"
#include "validator/val_crypto.h"

#ifndef REPLAY_TESTDATA
#define REPLAY_TESTDATA "testdata"
#endif
#ifndef REPLAY_MUSTFAIL
#define REPLAY_MUSTFAIL "tests/replay/mustfail"
#endif
#ifndef REPLAY_TESTBOUND
#define REPLAY_TESTBOUND "tests/replay/testbound"
#endif
#ifndef REPLAY_UNBOUND_DIFFERENCES
#define REPLAY_UNBOUND_DIFFERENCES "tests/replay/unbound-differences.txt"
#endif
#ifndef REPLAY_UNBOUND_FLOOR
#define REPLAY_UNBOUND_FLOOR "tests/replay/unbound-floor"
#endif

/** an upstream query in flight */
struct fake_query {
	/** next in the list */
	struct fake_query *next;
	/** destination */
	struct netaddr to;
	/** the query as it would go on the wire */
	ldns_pkt *q;
	/** OUTBOUND_FLAG_* */
	int flags;
	/** timeout */
	int timeout_ms;
	/** callback */
	outbound_cb_type cb;
	/** its argument */
	void *arg;
	/** 1 when a CHECK_OUT_QUERY step saw it */
	int checked;
};

/** a timer */
struct fake_timer {
	/** next */
	struct fake_timer *next;
	/** when it fires */
	struct timeval when;
	/** what to call */
	void (*fn)(void *);
	/** its argument */
	void *arg;
};

/** an answer the fake client received */
struct fake_answer {
	/** next */
	struct fake_answer *next;
	/** the packet */
	uint8_t *pkt;
	/** its length */
	size_t len;
	/** 1 when it went over TCP */
	int tcp;
};

/** a testbound variable (ASSIGN) */
struct tb_var {
	/** next */
	struct tb_var *next;
	/** name */
	char *name;
	/** value */
	char *value;
};

/** the runner */
/** upstream questions remembered for CHECK_SENT */
#define SENT_LOG_MAX 512

struct runner {
	/** the scenario */
	struct rpl_scenario *s;
	/** every upstream question sent ("name TYPE", name lower case),
	 * the first SENT_LOG_MAX */
	char sent_log[SENT_LOG_MAX][280];
	/** the server each went to */
	struct netaddr sent_to[SENT_LOG_MAX];
	/** how many */
	int sent_n;
	/** the current step number */
	int step;
	/** the fake clock */
	struct timeval now;
	/** the fake network */
	struct outbound out;
	/** queries in flight, oldest first */
	struct fake_query *pending;
	/** timers */
	struct fake_timer *timers;
	/** answers received, oldest first */
	struct fake_answer *answers;
	/** 1 when failed */
	int failed;
	/** the failure */
	char err[2048];
	/** config */
	struct config_file *cfg;
	/** the fake client's TCP connection (all TCP queries of a run go
	 * on one, as testbound's do) saw an edns-tcp-keepalive option
	 * (comm_tcp_keepalive_query) */
	int tcp_ka_seen;
	/** iterator env */
	struct module_stack mods;
	/** message cache */
	struct mcache *mc;
	/** RRset cache */
	struct rrset_cache *rrset;
	/** infrastructure cache */
	struct infra_cache *infra;
	/** local zones */
	struct local_zones *lz;
	/** views and RPZ, or NULL */
	struct policy *pol;
	/** access control */
	struct acl_list *acl;
	/** auth zones (NULL: none) */
	struct auth_zones *authz;
	/** random */
	struct petrel_random *rnd;
	/** ip-ratelimit's client rate table, or NULL */
	struct rate_table *ip_rate;
	/** answer-cookie: the server secrets, or NULL */
	struct cookie_secrets *cookies;
	/** the resolver */
	struct resolver *res;
	/** upstream queries sent */
	int num_sent;
	/** testbound's semantics (a file of Unbound's suite) */
	int tb;
	/** testbound: the current moment, the step the run waits on (range
	 * entries answer by its number); NULL at the end */
	struct rpl_step *tb_now;
	/** testbound: the variables */
	struct tb_var *vars;
	/** the auth zones' transfer service on the fake network, or NULL */
	struct xfr_service *xs;
	/** the rpz zones' transfer service (policy_xfr), on the same fake
	 * network and clock, or NULL */
	struct xfr_service *pxs;
};

/** record a failure (the first one wins) */
static void
fail(struct runner *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void
fail(struct runner *r, const char *fmt, ...)
{
	va_list ap;
	int n;
	if(r->failed)
		return;
	r->failed = 1;
	n = snprintf(r->err, sizeof(r->err), "%s: step %d: ", r->s->file,
		r->step);
	if(n < 0 || (size_t)n >= sizeof(r->err))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
}

/** describe a query: "name type to addr" */
static void
query_str(struct fake_query *q, char *buf, size_t len)
{
	char a[128], *n = NULL;
	ldns_rr *rr = ldns_rr_list_rr(ldns_pkt_question(q->q), 0);
	char t[32];
	n = ldns_rdf2str(ldns_rr_owner(rr));
	snprintf(t, sizeof(t), "%d", (int)ldns_rr_get_type(rr));
	{
		char *ts = ldns_rr_type2str(ldns_rr_get_type(rr));
		if(ts) {
			snprintf(t, sizeof(t), "%s", ts);
			free(ts);
		}
	}
	snprintf(buf, len, "%s %s to %s%s%s", n ? n : "?", t,
		netaddr_str(&q->to, 53, a, sizeof(a)),
		(q->flags & OUTBOUND_FLAG_TCP) ? " (TCP)" : "",
		(q->flags & OUTBOUND_FLAG_NOEDNS) ? " (no EDNS)" : "");
	free(n);
}

/* ---- the fake network ---- */

/** outbound send */
static struct outbound_query *
fake_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	struct runner *r = ctx;
	struct fake_query *q = calloc(1, sizeof(*q)), **pp;
	ldns_rdf *name;
	ldns_rr *rr;
	if(!q)
		return NULL;
	name = ldns_dname_new_frm_data((uint16_t)qname_len, qname);
	q->q = ldns_pkt_new();
	rr = ldns_rr_new();
	if(!name || !q->q || !rr) {
		ldns_rdf_deep_free(name);
		ldns_pkt_free(q->q);
		ldns_rr_free(rr);
		free(q);
		return NULL;
	}
	ldns_rr_set_owner(rr, name);
	ldns_rr_set_type(rr, (ldns_rr_type)qtype);
	ldns_rr_set_class(rr, (ldns_rr_class)qclass);
	ldns_rr_set_question(rr, 1);
	ldns_pkt_push_rr(q->q, LDNS_SECTION_QUESTION, rr);
	ldns_pkt_set_id(q->q, (uint16_t)random_u32(r->rnd));
	ldns_pkt_set_opcode(q->q, LDNS_PACKET_QUERY);
	ldns_pkt_set_rd(q->q, (flags & OUTBOUND_FLAG_RD) != 0);
	ldns_pkt_set_cd(q->q, (flags & OUTBOUND_FLAG_CD) != 0);
	if(!(flags & OUTBOUND_FLAG_NOEDNS)) {
		ldns_pkt_set_edns_udp_size(q->q, 1232);
		ldns_pkt_set_edns_do(q->q, (flags & OUTBOUND_FLAG_DO) != 0);
		if(opts && optlen > 0) {
			ldns_rdf *d = ldns_rdf_new_frm_data(
				LDNS_RDF_TYPE_UNKNOWN, optlen, opts);
			if(d)
				ldns_pkt_set_edns_data(q->q, d);
		}
	}
	q->to = *to;
	q->flags = flags;
	q->timeout_ms = timeout_ms;
	q->cb = cb;
	q->arg = cb_arg;
	for(pp = &r->pending; *pp; pp = &(*pp)->next)
		;
	*pp = q;
	r->num_sent++;
	if(r->sent_n < SENT_LOG_MAX) {
		char *ns = ldns_rdf2str(name), *ts = ldns_rr_type2str(
			(ldns_rr_type)qtype), *c;
		snprintf(r->sent_log[r->sent_n], sizeof(r->sent_log[0]),
			"%s %s", ns ? ns : "?", ts ? ts : "?");
		for(c = r->sent_log[r->sent_n]; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		r->sent_to[r->sent_n] = *to;
		r->sent_n++;
		free(ns);
		free(ts);
	}
	if(verbosity >= 3) {
		char buf[512];
		query_str(q, buf, sizeof(buf));
		log_info("replay step %d: out query %s", r->step, buf);
	}
	if(r->tb && r->tb_now && r->tb_now->type == RPL_STEP_CHECK_OUT_QUERY &&
		(!r->tb_now->has_addr || netaddr_cmp(&r->tb_now->addr,
		to) == 0) && rpl_match_tb(r->tb_now->entry, q->q,
		(flags & OUTBOUND_FLAG_TCP) != 0, NULL, 0)) {
		/* testbound: a query that the current CHECK_OUT_QUERY
		 * matches passes that step as it is sent (it stays pending) */
		q->checked = 1;
		r->tb_now = r->tb_now->next;
	}
	return (struct outbound_query *)q;
}

/** unlink and free a query */
static void
fake_remove(struct runner *r, struct fake_query *q)
{
	struct fake_query **pp;
	for(pp = &r->pending; *pp; pp = &(*pp)->next)
		if(*pp == q) {
			*pp = q->next;
			break;
		}
	ldns_pkt_free(q->q);
	free(q);
}

/** outbound cancel */
static void
fake_cancel(void *ctx, struct outbound_query *oq)
{
	fake_remove(ctx, (struct fake_query *)oq);
}

/** timer set */
static void *
fake_timer_set(void *ctx, int ms, void (*fn)(void *), void *arg)
{
	struct runner *r = ctx;
	struct fake_timer *t = calloc(1, sizeof(*t));
	if(!t)
		return NULL;
	t->when = r->now;
	t->when.tv_sec += ms / 1000;
	t->when.tv_usec += (ms % 1000) * 1000;
	if(t->when.tv_usec >= 1000000) {
		t->when.tv_sec++;
		t->when.tv_usec -= 1000000;
	}
	t->fn = fn;
	t->arg = arg;
	t->next = r->timers;
	r->timers = t;
	return t;
}

/** timer cancel */
static void
fake_timer_cancel(void *ctx, void *timer)
{
	struct runner *r = ctx;
	struct fake_timer **pp;
	for(pp = &r->timers; *pp; pp = &(*pp)->next)
		if(*pp == timer) {
			*pp = ((struct fake_timer *)timer)->next;
			free(timer);
			return;
		}
}

/** fire due timers; @return 1 when one fired */
static int
fire_timers(struct runner *r)
{
	struct fake_timer **pp;
	for(pp = &r->timers; *pp; pp = &(*pp)->next) {
		struct fake_timer *t = *pp;
		if(t->when.tv_sec < r->now.tv_sec ||
			(t->when.tv_sec == r->now.tv_sec &&
			t->when.tv_usec <= r->now.tv_usec)) {
			*pp = t->next;
			t->fn(t->arg);
			free(t);
			return 1;
		}
	}
	return 0;
}

/** move the clock */
static void
clock_add_ms(struct runner *r, int ms)
{
	r->now.tv_sec += ms / 1000;
	r->now.tv_usec += (ms % 1000) * 1000;
	if(r->now.tv_usec >= 1000000) {
		r->now.tv_sec++;
		r->now.tv_usec -= 1000000;
	}
}

/** the query times out (the fake clock moves by its timeout, except
 * with testbound's semantics, where no clock moves for the network) */
static void
deliver_timeout(struct runner *r, struct fake_query *q)
{
	outbound_cb_type cb = q->cb;
	void *arg = q->arg;
	int ms = q->timeout_ms;
	fake_remove(r, q);
	if(!r->tb)
		clock_add_ms(r, ms);
	cb(arg, OUTBOUND_TIMEOUT, NULL, 0, ms);
}

/** answer a query with an entry */
static void
deliver_entry(struct runner *r, struct fake_query *q, struct rpl_entry *e)
{
	uint8_t *pkt = NULL;
	size_t len = 0;
	outbound_cb_type cb;
	void *arg;
	if(e->do_not_answer) {
		deliver_timeout(r, q);
		return;
	}
	if(e->extra_packets > 0) {
		fail(r, "EXTRA_PACKET: the entry at line %d answers with %d "
			"packets (a TCP stream), the fake network sends one",
			e->lineno, e->extra_packets + 1);
		return;
	}
	if(rpl_make_reply(e, q->q, r->tb, &pkt, &len) < 0) {
		fail(r, "cannot build the reply of the entry at line %d",
			e->lineno);
		return;
	}
	if(!r->tb && (len < 2 || (uint16_t)(pkt[0] << 8 | pkt[1]) !=
		ldns_pkt_id(q->q))) {
		/* wrong ID: the network ignores it, the query times out
		 * (testbound hands any reply over: its fake network stands
		 * in for the part that matches IDs) */
		free(pkt);
		if(verbosity >= 3)
			log_info("replay: reply with a wrong ID dropped");
		deliver_timeout(r, q);
		return;
	}
	cb = q->cb;
	arg = q->arg;
	fake_remove(r, q);
	cb(arg, OUTBOUND_REPLY, pkt, len, 10);
	free(pkt);
}

/** @return 1 when addr is one of the scenario's root server addresses */
static int
is_root_addr(const struct rpl_scenario *s, const struct netaddr *addr)
{
	char list[sizeof(s->stub_addr)], *t, *save = NULL;
	snprintf(list, sizeof(list), "%s", s->stub_addr);
	for(t = strtok_r(list, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		struct netaddr a;
		if(netaddr_parse(t, 53, &a, NULL) == 0 &&
			netaddr_cmp(&a, addr) == 0)
			return 1;
	}
	return 0;
}

/** petrel's format: the priming query (. NS) to one of the scenario's
 * root servers that no entry answers gets the answer a root server
 * gives, naming that server (replay-root.) with its address as glue, so
 * that a scenario need not spell out priming (petrel primes a stub zone
 * for the root as it primes root hints, as Unbound). REPLAY_NO_AUTO_PRIME
 * in the environment turns it off (tests/gen_val_rpl.py then records the
 * real, signed priming answer). @return 1 when answered */
static int
deliver_priming(struct runner *r, struct fake_query *q)
{
	ldns_pkt *p;
	ldns_rr *rr = NULL, *qrr;
	uint8_t *pkt = NULL;
	size_t len = 0, n = 0;
	char ip[INET6_ADDRSTRLEN], text[512];
	const uint8_t *b;
	outbound_cb_type cb;
	void *arg;
	if(r->tb || getenv("REPLAY_NO_AUTO_PRIME") ||
		!is_root_addr(r->s, &q->to) ||
		ldns_pkt_qdcount(q->q) != 1)
		return 0;
	qrr = ldns_rr_list_rr(ldns_pkt_question(q->q), 0);
	if(ldns_rr_get_type(qrr) != LDNS_RR_TYPE_NS ||
		ldns_dname_label_count(ldns_rr_owner(qrr)) != 0)
		return 0;
	b = netaddr_bytes(&q->to, &n);
	if(!inet_ntop(n == 4 ? AF_INET : AF_INET6, b, ip, sizeof(ip)) ||
		!(p = ldns_pkt_new()))
		return 0;
	ldns_pkt_set_id(p, ldns_pkt_id(q->q));
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, 1);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, ldns_rr_clone(qrr));
	if(ldns_rr_new_frm_str(&rr, ". 3600000 IN NS replay-root.", 0, NULL,
		NULL) == LDNS_STATUS_OK)
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	snprintf(text, sizeof(text), "replay-root. 3600000 IN %s %s",
		n == 4 ? "A" : "AAAA", ip);
	rr = NULL;
	if(ldns_rr_new_frm_str(&rr, text, 0, NULL, NULL) == LDNS_STATUS_OK)
		ldns_pkt_push_rr(p, LDNS_SECTION_ADDITIONAL, rr);
	if(ldns_pkt2wire(&pkt, p, &len) != LDNS_STATUS_OK) {
		ldns_pkt_free(p);
		return 0;
	}
	ldns_pkt_free(p);
	if(verbosity >= 3)
		log_info("replay: the priming query answered by the runner");
	cb = q->cb;
	arg = q->arg;
	fake_remove(r, q);
	cb(arg, OUTBOUND_REPLY, pkt, len, 10);
	free(pkt);
	return 1;
}

/** find the range entry for a query; @return entry or NULL */
static struct rpl_entry *
find_entry(struct runner *r, struct fake_query *q)
{
	struct rpl_range *rg, *all[1024];
	struct rpl_entry *e;
	int n = 0, k, step = r->step;
	for(rg = r->s->ranges; rg && n < 1024; rg = rg->next)
		all[n++] = rg;
	if(r->tb) {
		/* testbound: the step the run waits on; the ranges are
		 * searched last one first */
		if(!r->tb_now)
			return NULL;
		step = r->tb_now->num;
	}
	for(k = 0; k < n; k++) {
		int i, addr_ok;
		rg = all[r->tb ? n - 1 - k : k];
		addr_ok = (rg->naddrs == 0);
		if(step < rg->first || step > rg->last)
			continue;
		for(i = 0; i < rg->naddrs; i++)
			if(netaddr_cmp(&rg->addrs[i], &q->to) == 0)
				addr_ok = 1;
		if(!addr_ok)
			continue;
		for(e = rg->entries; e; e = e->next)
			if(r->tb ? rpl_match_tb(e, q->q, (q->flags &
				OUTBOUND_FLAG_TCP) != 0, NULL, 0) :
				rpl_match_query(e, q->q,
				(q->flags & OUTBOUND_FLAG_TCP) != 0))
				return e;
	}
	return NULL;
}

/* ---- the fake network of the zone transfers ---- */

/** the most packets of one transfer reply */
#define XFR_FAKE_MAX 64

/** one transfer exchange (a TCP stream) on the fake network */
struct xfr_fake_conn {
	/** the runner */
	struct runner *r;
	/** the primary */
	struct netaddr to;
	/** the reply packets queued (malloced) */
	uint8_t *pkt[XFR_FAKE_MAX];
	/** their lengths */
	size_t len[XFR_FAKE_MAX];
	/** how many, and the next to read */
	int n, next;
};

/** open an exchange: nothing goes anywhere */
static void *
xfr_fake_open(void *ctx, const struct netaddr *addr, volatile int *stop,
	char *why, size_t whylen)
{
	struct xfr_fake_conn *c = calloc(1, sizeof(*c));
	(void)stop;
	if(!c) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	c->r = ctx;
	c->to = *addr;
	return c;
}

/** the request: logged as sent, answered from the ranges (the entry's
 * packet and its EXTRA_PACKETs), as an upstream TCP query */
static int
xfr_fake_send(void *conn, const uint8_t *msg, size_t len)
{
	struct xfr_fake_conn *c = conn;
	struct runner *r = c->r;
	struct fake_query q;
	struct rpl_entry *e;
	char buf[512];
	int k;
	memset(&q, 0, sizeof(q));
	q.to = c->to;
	q.flags = OUTBOUND_FLAG_TCP;
	if(ldns_wire2pkt(&q.q, msg, len) != LDNS_STATUS_OK)
		return -1;
	query_str(&q, buf, sizeof(buf));
	if(verbosity >= 3)
		log_info("replay step %d: out transfer query %s", r->step, buf);
	r->num_sent++;
	if(r->tb && r->tb_now && r->tb_now->type == RPL_STEP_CHECK_OUT_QUERY &&
		(!r->tb_now->has_addr || netaddr_cmp(&r->tb_now->addr,
		&c->to) == 0) && rpl_match_tb(r->tb_now->entry, q.q, 1, NULL,
		0))
		r->tb_now = r->tb_now->next;
	e = find_entry(r, &q);
	if(!e || e->do_not_answer) {
		if(verbosity >= 3)
			log_info("replay: no entry answers the transfer query "
				"%s", buf);
		ldns_pkt_free(q.q);
		return 0; /* the stream stays silent: a timeout */
	}
	if(e->extra_packets + 1 > XFR_FAKE_MAX ||
		rpl_make_reply(e, q.q, r->tb, &c->pkt[0], &c->len[0]) < 0) {
		fail(r, "cannot build the transfer reply of the entry at line "
			"%d", e->lineno);
		ldns_pkt_free(q.q);
		return -1;
	}
	c->n = 1;
	for(k = 0; k < e->extra_packets; k++) {
		if(rpl_make_reply_extra(e, q.q, r->tb, k, &c->pkt[c->n],
			&c->len[c->n]) < 0) {
			fail(r, "cannot build packet %d of the transfer reply "
				"of the entry at line %d", k + 2, e->lineno);
			ldns_pkt_free(q.q);
			return -1;
		}
		c->n++;
	}
	ldns_pkt_free(q.q);
	return 0;
}

/** the next packet of the reply, or -1 at its end */
static int
xfr_fake_recv(void *conn, uint8_t *buf, size_t max)
{
	struct xfr_fake_conn *c = conn;
	size_t l;
	if(c->next >= c->n)
		return -1;
	l = c->len[c->next];
	if(l > max)
		return -1;
	memcpy(buf, c->pkt[c->next], l);
	c->next++;
	return (int)l;
}

/** end an exchange */
static void
xfr_fake_close(void *conn)
{
	struct xfr_fake_conn *c = conn;
	int i;
	for(i = 0; i < c->n; i++)
		free(c->pkt[i]);
	free(c);
}

/** the fake clock, seconds */
static time_t
xfr_fake_now(void *ctx)
{
	return (time_t)((struct runner *)ctx)->now.tv_sec;
}

/** run the transfers that are due, of the auth zones and of the rpz
 * zones. @return how many ran */
static int
xfr_run_due(struct runner *r)
{
	int n = 0;
	if(r->xs)
		n += xfr_service_run_due(r->xs);
	if(r->pxs && !r->failed)
		n += xfr_service_run_due(r->pxs);
	return n;
}

/** answer what the ranges can answer, fire due timers */
static void
run_network(struct runner *r)
{
	int progress = 1, rounds = 0;
	while(progress && !r->failed) {
		struct fake_query *q;
		progress = 0;
		if(++rounds > 100000) {
			fail(r, "the resolver keeps sending (loop?)");
			return;
		}
		for(q = r->pending; q; q = q->next) {
			struct rpl_entry *e = find_entry(r, q);
			if(e) {
				deliver_entry(r, q, e);
				progress = 1;
				break;
			}
			if(deliver_priming(r, q)) {
				progress = 1;
				break;
			}
			if(!r->s->manual_out) {
				char buf[512];
				query_str(q, buf, sizeof(buf));
				fail(r, "no entry answers the query %s", buf);
				return;
			}
		}
		if(!progress)
			progress = fire_timers(r);
		if(!progress)
			progress = xfr_run_due(r) > 0;
	}
}

/* ---- the fake client ---- */

/** reply callback of the resolver */
static void
client_reply(void *arg, const struct resolver_handle *h, const uint8_t *pkt,
	size_t len)
{
	struct runner *r = arg;
	struct fake_answer *a, **pp;
	if(!pkt)
		return; /* dropped */
	a = calloc(1, sizeof(*a));
	if(!a || !(a->pkt = malloc(len + 6))) {
		free(a);
		fail(r, "out of memory");
		return;
	}
	memcpy(a->pkt, pkt, len);
	a->len = len;
	a->tcp = h && h->len >= 1 && h->data[0] == 1;
	if(a->tcp && h->len >= 2 && h->data[1] && r->cfg)
		/* edns-tcp-keepalive: what the TCP path adds (comm_tcp.c) */
		a->len = comm_tcp_keepalive_add(
			r->cfg->edns_tcp_keepalive_timeout, a->pkt, len,
			len + 6);
	for(pp = &r->answers; *pp; pp = &(*pp)->next)
		;
	*pp = a;
}

/** send a client query */
static void
step_query(struct runner *r, struct rpl_step *st)
{
	struct rpl_entry *e = st->entry;
	ldns_pkt *p = ldns_pkt_clone(e->pkt);
	uint8_t *wire = NULL, out[65535];
	size_t len = 0, outlen = 0;
	struct netaddr client;
	struct resolver_handle h;
	const char *err = NULL;
	enum resolver_result res;
	if(!p) {
		fail(r, "out of memory");
		return;
	}
	if(e->raw) {
		/* a malformed or hand-made client packet, sent as is */
		ldns_pkt_free(p);
		wire = malloc(e->rawlen ? e->rawlen : 1);
		if(!wire) {
			fail(r, "out of memory");
			return;
		}
		memcpy(wire, e->raw, e->rawlen);
		len = e->rawlen;
		goto send;
	}
	if(!r->tb)
		ldns_pkt_set_id(p, (uint16_t)random_u32(r->rnd));
	if(e->edns) {
		/* testbound's queries offer 1232 */
		ldns_pkt_set_edns_udp_size(p, r->tb ? 1232 : 4096);
		ldns_pkt_set_edns_do(p, (signed char)e->do_bit);
	}
	if(ldns_pkt2wire(&wire, p, &len) != LDNS_STATUS_OK) {
		ldns_pkt_free(p);
		fail(r, "cannot encode the query");
		return;
	}
	ldns_pkt_free(p);
send:
	if(st->has_addr)
		client = st->addr;
	else	(void)netaddr_parse("127.0.0.1", 53, &client, &err);
	memset(&h, 0, sizeof(h));
	h.data[0] = (e->match & RPL_M_TCP) ? 1 : 0;
	/* over TCP, the keepalive decision of the TCP read path */
	h.data[1] = (uint8_t)((e->match & RPL_M_TCP) && r->cfg &&
		r->cfg->edns_tcp_keepalive && comm_tcp_keepalive_query(
		r->cfg->edns_tcp_keepalive_timeout, &r->tcp_ka_seen, wire,
		len));
	h.len = 2;
	resolver_set_local(r->res, st->has_iface ? &st->iface : NULL);
	if(r->tb)
		r->tb_now = st->next; /* testbound moves on first */
	res = resolver_handle_query(r->res, wire, len, &client,
		(e->match & RPL_M_TCP) ? RESOLVER_TCP : RESOLVER_UDP, &h, out,
		sizeof(out), &outlen);
	free(wire);
	if(res == RESOLVER_ANSWERED)
		client_reply(r, &h, out, outlen);
}

/** check the oldest answer */
static void
step_check_answer(struct runner *r, struct rpl_step *st)
{
	struct fake_answer *a = r->answers;
	ldns_pkt *p = NULL;
	char diff[1024];
	if(!a) {
		fail(r, "no answer to check (line %d)", st->lineno);
		return;
	}
	r->answers = a->next;
	if(ldns_wire2pkt(&p, a->pkt, a->len) != LDNS_STATUS_OK) {
		fail(r, "the answer does not parse");
		goto out;
	}
	if(!rpl_match_answer(st->entry, p, a->pkt, a->len, diff,
		sizeof(diff))) {
		char *s = ldns_pkt2str(p);
		fail(r, "answer differs (entry line %d): %s\ngot:\n%s",
			st->entry->lineno, diff, s ? s : "?");
		free(s);
	}
out:
	ldns_pkt_free(p);
	free(a->pkt);
	free(a);
}

/** first pending query matching an entry (or the oldest when the entry
 * has no MATCH), sent to the step's ADDRESS when it names one */
static struct fake_query *
find_pending(struct runner *r, struct rpl_step *st)
{
	struct rpl_entry *e = st->entry;
	struct fake_query *q;
	for(q = r->pending; q; q = q->next) {
		if(st->has_addr && netaddr_cmp(&st->addr, &q->to) != 0)
			continue;
		if(e->match == 0 || rpl_match_query(e, q->q,
			(q->flags & OUTBOUND_FLAG_TCP) != 0))
			return q;
	}
	return NULL;
}

/* ---- testbound's semantics (the files of Unbound's suite) ---- */

/** a variable's value, or NULL */
static const char *
tb_var_get(struct runner *r, const char *name, size_t len)
{
	struct tb_var *v;
	for(v = r->vars; v; v = v->next)
		if(strlen(v->name) == len && strncmp(v->name, name, len) == 0)
			return v->value;
	return NULL;
}

/** set a variable. @return 0 or -1 */
static int
tb_var_set(struct runner *r, const char *name, const char *value)
{
	struct tb_var *v;
	char *nv = strdup(value);
	if(!nv)
		return -1;
	for(v = r->vars; v; v = v->next)
		if(strcmp(v->name, name) == 0) {
			free(v->value);
			v->value = nv;
			return 0;
		}
	if(!(v = calloc(1, sizeof(*v))) || !(v->name = strdup(name))) {
		free(v);
		free(nv);
		return -1;
	}
	v->value = nv;
	v->next = r->vars;
	r->vars = v;
	return 0;
}

/** ${timeout}: whole seconds until the first timer, 0 when none */
static long
tb_timeout(struct runner *r)
{
	struct fake_timer *t, *first = NULL;
	for(t = r->timers; t; t = t->next)
		if(!first || t->when.tv_sec < first->when.tv_sec ||
			(t->when.tv_sec == first->when.tv_sec &&
			t->when.tv_usec < first->when.tv_usec))
			first = t;
	if(first && first->when.tv_sec >= r->now.tv_sec)
		return (long)(first->when.tv_sec - r->now.tv_sec);
	return 0;
}

/** a growing string */
struct tb_str {
	/** text */
	char *s;
	/** length */
	size_t len;
};

/** append n bytes. @return 0 or -1 */
static int
tb_str_add(struct tb_str *b, const char *t, size_t n)
{
	char *ns = realloc(b->s, b->len + n + 1);
	if(!ns)
		return -1;
	b->s = ns;
	memcpy(b->s + b->len, t, n);
	b->len += n;
	b->s[b->len] = 0;
	return 0;
}

static char *tb_expand(struct runner *r, const char *text);

/** does a number start at text[i] (a digit not inside a word)? */
static int
tb_num_at(const char *t, size_t i)
{
	return isdigit((unsigned char)t[i]) && (i == 0 ||
		!(isalnum((unsigned char)t[i - 1]) || t[i - 1] == '.' ||
		t[i - 1] == '_'));
}

/** testbound's arithmetic: "x op y" (op + - * /) is replaced by its
 * value, left to right, no precedence ("2 + 3 * 4" is 20); other text
 * stays ("123 3 + 5" is "123 8"). @return the text (malloced) or NULL */
static char *
tb_arith(char *t)
{
	size_t i = 0;
	while(t[i]) {
		char *end, *p, op, res[64], *nt;
		double x, y, v;
		size_t rest;
		if(!tb_num_at(t, i)) {
			i++;
			continue;
		}
		x = strtod(t + i, &end);
		p = end;
		while(*p == ' ' || *p == '\t')
			p++;
		op = *p;
		if(op != '+' && op != '-' && op != '*' && op != '/') {
			i = (size_t)(end - t);
			continue;
		}
		p++;
		while(*p == ' ' || *p == '\t')
			p++;
		if(!isdigit((unsigned char)*p)) {
			i = (size_t)(end - t);
			continue;
		}
		y = strtod(p, &end);
		v = op == '+' ? x + y : op == '-' ? x - y : op == '*' ? x * y :
			x / y;
		snprintf(res, sizeof(res), "%.12g", v);
		rest = strlen(end);
		nt = malloc(i + strlen(res) + rest + 1);
		if(!nt) {
			free(t);
			return NULL;
		}
		memcpy(nt, t, i);
		memcpy(nt + i, res, strlen(res));
		memcpy(nt + i + strlen(res), end, rest + 1);
		free(t);
		t = nt;
		i = 0; /* the value can start another "x op y" */
	}
	return t;
}

/** the value of the inside of a ${...}: the functions time, timeout,
 * ctime x and range low x high, $variables, arithmetic.
 * @return malloced text, or NULL (the run failed) */
static char *
tb_eval(struct runner *r, const char *in)
{
	char *t, buf[128];
	struct tb_str b = {NULL, 0};
	const char *c;
	int fn = 0;
	while(*in == ' ' || *in == '\t')
		in++;
	if(strcmp(in, "time") == 0) {
		snprintf(buf, sizeof(buf), "%lld", (long long)r->now.tv_sec);
		return strdup(buf);
	}
	if(strcmp(in, "timeout") == 0) {
		snprintf(buf, sizeof(buf), "%ld", tb_timeout(r));
		return strdup(buf);
	}
	if(strncmp(in, "ctime", 5) == 0 && isspace((unsigned char)in[5])) {
		fn = 1;
		in += 6;
	} else if(strncmp(in, "range", 5) == 0 &&
		isspace((unsigned char)in[5])) {
		fn = 2;
		in += 6;
	}
	if(!(t = tb_expand(r, in)))
		return NULL;
	/* $variables */
	for(c = t; *c; ) {
		if(*c == '$') {
			const char *n = ++c, *v;
			while(isalnum((unsigned char)*c) || *c == '_')
				c++;
			if(!(v = tb_var_get(r, n, (size_t)(c - n)))) {
				fail(r, "the variable $%.*s is not defined",
					(int)(c - n), n);
				free(t);
				free(b.s);
				return NULL;
			}
			if(tb_str_add(&b, v, strlen(v)) < 0)
				goto oom;
		} else {
			if(tb_str_add(&b, c, 1) < 0)
				goto oom;
			c++;
		}
	}
	free(t);
	if(!b.s && tb_str_add(&b, "", 0) < 0)
		return NULL;
	if(!(t = tb_arith(b.s)))
		return NULL;
	if(fn == 1) {
		/* ctime(3) in UTC, as testbound runs with TZ=UTC */
		time_t tt = (time_t)atoll(t);
		struct tm tm;
		free(t);
		if(!gmtime_r(&tt, &tm) || !strftime(buf, sizeof(buf),
			"%a %b %e %H:%M:%S %Y", &tm))
			return NULL;
		return strdup(buf);
	}
	if(fn == 2) {
		double lo, x, hi;
		if(sscanf(t, "%lf %lf %lf", &lo, &x, &hi) != 3) {
			fail(r, "${range %s}: three numbers wanted", t);
			free(t);
			return NULL;
		}
		free(t);
		if(!(lo <= x && x <= hi)) {
			fail(r, "${range}: the value %.24g is not in [%.24g, "
				"%.24g]", x, lo, hi);
			return NULL;
		}
		snprintf(buf, sizeof(buf), "%.24g", x);
		return strdup(buf);
	}
	return t;
oom:
	free(t);
	free(b.s);
	return NULL;
}

/** expand every ${...} in a text (testbound's macro_process).
 * @return malloced text, or NULL (the run failed) */
static char *
tb_expand(struct runner *r, const char *text)
{
	struct tb_str b = {NULL, 0};
	const char *at = text, *m;
	if(tb_str_add(&b, "", 0) < 0)
		return NULL;
	while((m = strstr(at, "${")) != NULL) {
		const char *c = m + 2;
		int depth = 0;
		char *inner, *v;
		if(tb_str_add(&b, at, (size_t)(m - at)) < 0)
			goto fail;
		while(*c && !(*c == '}' && depth == 0)) {
			if(*c == '}')
				depth--;
			else if(c[0] == '$' && c[1] == '{')
				depth++;
			c++;
		}
		if(!*c) {
			fail(r, "a ${ without its }: %s", text);
			goto fail;
		}
		if(!(inner = strndup(m + 2, (size_t)(c - m - 2))))
			goto fail;
		v = tb_eval(r, inner);
		free(inner);
		if(!v)
			goto fail;
		if(tb_str_add(&b, v, strlen(v)) < 0) {
			free(v);
			goto fail;
		}
		free(v);
		at = c + 1;
	}
	if(tb_str_add(&b, at, strlen(at)) < 0)
		goto fail;
	return b.s;
fail:
	if(!r->failed)
		fail(r, "cannot expand %s", text);
	free(b.s);
	return NULL;
}

/** the pending queries, newest first (testbound's order). @return count */
static int
tb_pending_list(struct runner *r, struct fake_query **arr, int max)
{
	struct fake_query *q;
	int n = 0, i;
	for(q = r->pending; q && n < max; q = q->next)
		arr[n++] = q;
	for(i = 0; i < n / 2; i++) {
		struct fake_query *t = arr[i];
		arr[i] = arr[n - 1 - i];
		arr[n - 1 - i] = t;
	}
	return n;
}

/** the newest pending query the step's entry (and ADDRESS) matches;
 * with any_one, the newest pending query when none matches */
static struct fake_query *
tb_pending_for(struct runner *r, struct rpl_step *st, int any_one)
{
	struct fake_query *arr[1024];
	int n = tb_pending_list(r, arr, 1024), i;
	for(i = 0; i < n; i++) {
		if(st->has_addr && netaddr_cmp(&st->addr, &arr[i]->to) != 0)
			continue;
		if(!st->entry || rpl_match_tb(st->entry, arr[i]->q,
			(arr[i]->flags & OUTBOUND_FLAG_TCP) != 0, NULL, 0))
			return arr[i];
	}
	return any_one && n > 0 ? arr[0] : NULL;
}

/** answer the newest pending query a range entry matches.
 * @return 1 when one was answered */
static int
tb_answer_from_ranges(struct runner *r)
{
	struct fake_query *arr[1024];
	int n = tb_pending_list(r, arr, 1024), i;
	for(i = 0; i < n; i++) {
		struct rpl_entry *e = find_entry(r, arr[i]);
		if(e) {
			if(verbosity >= 3) {
				char buf[512];
				query_str(arr[i], buf, sizeof(buf));
				log_info("replay: step %d: the entry at line "
					"%d answers %s", r->tb_now->num,
					e->lineno, buf);
			}
			deliver_entry(r, arr[i], e);
			return 1;
		}
	}
	return 0;
}

/** an upstream query no entry answers gets no answer: when the run
 * waits on it, the oldest one times out (the resolver sees a timeout; no
 * clock moves). @return 1 when one timed out */
static int
tb_lazy_timeout(struct runner *r)
{
	struct fake_query *q;
	for(q = r->pending; q && q->checked; q = q->next)
		; /* a checked query waits for its REPLY step */
	if(!q)
		return 0;
	if(verbosity >= 3) {
		char buf[512];
		query_str(q, buf, sizeof(buf));
		log_info("replay: step %d: no entry answers %s: it times out",
			r->tb_now ? r->tb_now->num : r->step, buf);
	}
	deliver_timeout(r, q);
	return 1;
}

/** CHECK_ANSWER: some answer received must match (testbound checks
 * them all, oldest first, and takes the first that matches) */
static void
tb_check_answer(struct runner *r, struct rpl_step *st)
{
	struct fake_answer **pp, *a;
	char diff[1024], first[1024];
	ldns_pkt *firstp = NULL;
	first[0] = 0;
	for(pp = &r->answers; (a = *pp) != NULL; pp = &a->next) {
		ldns_pkt *p = NULL;
		if(ldns_wire2pkt(&p, a->pkt, a->len) != LDNS_STATUS_OK)
			continue;
		if(rpl_match_tb(st->entry, p, a->tcp, diff, sizeof(diff))) {
			*pp = a->next;
			ldns_pkt_free(p);
			ldns_pkt_free(firstp);
			free(a->pkt);
			free(a);
			return;
		}
		if(!firstp) {
			snprintf(first, sizeof(first), "%s", diff);
			firstp = p;
		} else	ldns_pkt_free(p);
	}
	if(firstp) {
		char *s = ldns_pkt2str(firstp);
		fail(r, "answer differs (entry line %d): %s\ngot:\n%s",
			st->entry->lineno, first, s ? s : "?");
		free(s);
		ldns_pkt_free(firstp);
	} else	fail(r, "answer differs (entry line %d): the answer does not "
			"parse", st->entry->lineno);
}

/** does an answer received match the CHECK_ANSWER step? */
static int
tb_answer_matches(struct runner *r, struct rpl_step *st)
{
	struct fake_answer *a;
	for(a = r->answers; a; a = a->next) {
		ldns_pkt *p = NULL;
		int m;
		if(ldns_wire2pkt(&p, a->pkt, a->len) != LDNS_STATUS_OK)
			continue;
		m = rpl_match_tb(st->entry, p, a->tcp, NULL, 0);
		ldns_pkt_free(p);
		if(m)
			return 1;
	}
	return 0;
}

/** the next line of a checked file; with skip_comments (a zone file,
 * and the line wanted is no comment), comment lines are passed over
 * (petrel heads the zone files it writes with one, Unbound writes none;
 * they carry no data).
 * @return line, or NULL at the end */
static char *
tb_file_line(FILE *f, int skip_comments, char *line, size_t len)
{
	while(fgets(line, (int)len, f)) {
		if(!skip_comments || line[0] != ';')
			return line;
	}
	return NULL;
}

/** CHECK_AUTOTRUST, CHECK_TEMPFILE: the file has these lines, exactly
 * (macros expanded, trailing space ignored) */
static void
tb_check_file(struct runner *r, struct rpl_step *st)
{
	char path[512], line[8192], *w, *nl;
	int lineno = 0;
	FILE *f;
	if(rpl_tempfile(r->s, st->type == RPL_STEP_CHECK_AUTOTRUST ?
		"_auto_" : "_temp_", st->fname, path, sizeof(path)) < 0 ||
		!(f = fopen(path, "r"))) {
		fail(r, "%s %s: there is no such file",
			st->type == RPL_STEP_CHECK_AUTOTRUST ? "CHECK_AUTOTRUST"
			: "CHECK_TEMPFILE", st->fname);
		return;
	}
	for(w = st->content; *w; w = nl + 1) {
		char *exp;
		size_t n;
		nl = strchr(w, '\n');
		*nl = 0;
		lineno++;
		exp = tb_expand(r, w);
		*nl = '\n';
		if(!exp)
			break;
		if(!tb_file_line(f, st->type == RPL_STEP_CHECK_TEMPFILE &&
			exp[0] != ';', line, sizeof(line))) {
			fail(r, "%s: line %d is missing; wanted: %s",
				st->fname, lineno, exp);
			free(exp);
			break;
		}
		n = strlen(line);
		while(n > 0 && isspace((unsigned char)line[n - 1]))
			line[--n] = 0;
		if(strcmp(line, exp) != 0) {
			fail(r, "%s: line %d differs:\nhas:    %s\nwanted: %s",
				st->fname, lineno, line, exp);
			free(exp);
			break;
		}
		free(exp);
	}
	if(!r->failed && tb_file_line(f, st->type == RPL_STEP_CHECK_TEMPFILE,
		line, sizeof(line)))
		fail(r, "%s: a line more than wanted: %s", st->fname, line);
	fclose(f);
}

/** TIME_PASSES: the clock moves, the timers due at or before the new
 * time fire, earliest first (testbound's replay_get_oldest_timer, whose
 * timeval_smaller() is true for equal times) */
static void
tb_time_passes(struct runner *r, struct rpl_step *st)
{
	long sec = st->elapse_sec, usec = st->elapse_usec;
	if(st->expr) {
		char *x = tb_expand(r, st->expr);
		double d;
		if(!x)
			return;
		d = atof(x);
		free(x);
		sec = (long)d;
		usec = (long)((d - (double)sec) * 1000000. + 0.5);
	}
	r->now.tv_sec += sec;
	r->now.tv_usec += usec;
	if(r->now.tv_usec >= 1000000) {
		r->now.tv_sec++;
		r->now.tv_usec -= 1000000;
	}
	for(;;) {
		struct fake_timer **pp, **best = NULL;
		for(pp = &r->timers; *pp; pp = &(*pp)->next) {
			struct fake_timer *t = *pp;
			if((t->when.tv_sec < r->now.tv_sec ||
				(t->when.tv_sec == r->now.tv_sec &&
				t->when.tv_usec <= r->now.tv_usec)) && (!best ||
				t->when.tv_sec < (*best)->when.tv_sec ||
				(t->when.tv_sec == (*best)->when.tv_sec &&
				t->when.tv_usec < (*best)->when.tv_usec)))
				best = pp;
		}
		if(!best || r->failed)
			break;
		{
			struct fake_timer *t = *best;
			*best = t->next;
			t->fn(t->arg);
			free(t);
		}
	}
	/* the zone transfers' timers are timers too (Unbound's first
	 * probe of a zone waits on one): what is due runs now, its
	 * queries answered by the ranges */
	if(!r->failed)
		(void)xfr_run_due(r);
}

/** FLUSH_MESSAGE name class type: the message leaves the cache */
static void
tb_flush_message(struct runner *r, struct rpl_step *st)
{
	ldns_rr *rr = NULL;
	if(ldns_rr_new_question_frm_str(&rr, st->expr, NULL, NULL) !=
		LDNS_STATUS_OK) {
		fail(r, "FLUSH_MESSAGE: cannot read %s", st->expr);
		return;
	}
	ldns_dname2canonical(ldns_rr_owner(rr));
	(void)mcache_flush_type(r->mc, ldns_rdf_data(ldns_rr_owner(rr)),
		(uint16_t)ldns_rr_get_type(rr),
		(uint16_t)ldns_rr_get_class(rr));
	ldns_rr_free(rr);
}

/** do the current moment (nothing before it applied) */
static void
tb_do_moment(struct runner *r, struct rpl_step *now)
{
	struct fake_query *q;
	char *v;
	switch(now->type) {
	case RPL_STEP_QUERY:
		step_query(r, now); /* moves to the next moment first */
		return;
	case RPL_STEP_CHECK_ANSWER:
		if(!tb_lazy_timeout(r))
			fail(r, "no answer to check (line %d)", now->lineno);
		return;
	case RPL_STEP_CHECK_OUT_QUERY:
		if(!tb_lazy_timeout(r))
			fail(r, "no upstream query%s matches the CHECK_OUT_QUERY "
				"entry at line %d", now->has_addr ?
				" to the ADDRESS" : "", now->entry->lineno);
		return;
	case RPL_STEP_REPLY:
	case RPL_STEP_TIMEOUT:
	case RPL_STEP_ERROR:
		/* the newest pending query (for REPLY, the newest the entry
		 * matches, if one does) */
		q = tb_pending_for(r, now, 1);
		r->tb_now = now->next;
		if(!q) {
			fail(r, "no pending upstream query for the %s step",
				now->type == RPL_STEP_REPLY ? "REPLY" :
				now->type == RPL_STEP_TIMEOUT ? "TIMEOUT" :
				"ERROR");
			return;
		}
		if(now->type == RPL_STEP_REPLY)
			deliver_entry(r, q, now->entry);
		else if(now->type == RPL_STEP_TIMEOUT)
			deliver_timeout(r, q);
		else {
			outbound_cb_type cb = q->cb;
			void *arg = q->arg;
			fake_remove(r, q);
			cb(arg, OUTBOUND_ERROR, NULL, 0, 0);
		}
		return;
	case RPL_STEP_TIME_PASSES:
		r->tb_now = now->next;
		tb_time_passes(r, now);
		return;
	case RPL_STEP_ASSIGN:
		r->tb_now = now->next;
		if((v = tb_expand(r, now->expr)) != NULL) {
			if(verbosity >= 3)
				log_info("replay: step %d: %s = %s", now->num,
					now->var, v);
			if(tb_var_set(r, now->var, v) < 0)
				fail(r, "out of memory");
			free(v);
		}
		return;
	case RPL_STEP_CHECK_AUTOTRUST:
	case RPL_STEP_CHECK_TEMPFILE:
		r->tb_now = now->next;
		tb_check_file(r, now);
		return;
	case RPL_STEP_INFRA_RTT:
		r->tb_now = now->next;
		infra_rtt_update(r->infra, &now->addr, 0, atoi(now->expr), -1,
			r->now.tv_sec);
		return;
	case RPL_STEP_FLUSH_MESSAGE:
		r->tb_now = now->next;
		tb_flush_message(r, now);
		return;
	case RPL_STEP_NOTHING:
	case RPL_STEP_TRAFFIC:
		/* the traffic flowed before: nothing left to do */
		r->tb_now = now->next;
		return;
	default:
		fail(r, "step type of line %d is petrel's, not testbound's",
			now->lineno);
		return;
	}
}

/** run a scenario as testbound does: each round, a pending query the
 * current CHECK_OUT_QUERY matches passes it (answered by its entry with
 * copy_id); else an answer the current CHECK_ANSWER matches passes it;
 * else a pending query a range entry matches (by the current step's
 * number) is answered; else the current moment is done. */
static void
run_testbound(struct runner *r)
{
	int rounds = 0;
	r->tb_now = r->s->steps;
	while(r->tb_now && !r->failed) {
		struct rpl_step *now = r->tb_now;
		struct fake_query *q;
		r->step = now->num;
		if(++rounds > 100000) {
			fail(r, "the run loops (the resolver keeps sending)");
			return;
		}
		if(now->type == RPL_STEP_CHECK_OUT_QUERY &&
			(q = tb_pending_for(r, now, 0)) != NULL) {
			r->tb_now = now->next;
			q->checked = 1;
			if(now->entry->copy_id)
				deliver_entry(r, q, now->entry);
			continue;
		}
		if(now->type == RPL_STEP_CHECK_ANSWER && r->answers) {
			if(!tb_answer_matches(r, now) &&
				(tb_answer_from_ranges(r) || tb_lazy_timeout(r)))
				continue; /* the answer may come yet */
			r->tb_now = now->next;
			tb_check_answer(r, now);
			continue;
		}
		if(tb_answer_from_ranges(r))
			continue;
		if((r->xs && xfr_service_run_woken(r->xs) > 0) ||
			(r->pxs && xfr_service_run_woken(r->pxs) > 0))
			continue; /* a NOTIFY starts its transfer at once */
		tb_do_moment(r, now);
	}
	if(!r->failed && r->answers) {
		char *s = NULL;
		ldns_pkt *p = NULL;
		if(ldns_wire2pkt(&p, r->answers->pkt, r->answers->len) ==
			LDNS_STATUS_OK)
			s = ldns_pkt2str(p);
		fail(r, "at the end, an answer was not checked:\n%s",
			s ? s : "?");
		free(s);
		ldns_pkt_free(p);
	}
	/* queries still pending get no answer: no failure by themselves
	 * (the resolver cancels them when it is deleted) */
}

/** run one step */
static void
run_step(struct runner *r, struct rpl_step *st)
{
	struct fake_query *q;
	r->step = st->num;
	switch(st->type) {
	case RPL_STEP_QUERY:
		step_query(r, st);
		break;
	case RPL_STEP_CHECK_ANSWER:
		step_check_answer(r, st);
		break;
	case RPL_STEP_CHECK_NO_ANSWER:
		if(r->answers)
			fail(r, "an answer arrived, none expected");
		break;
	case RPL_STEP_CHECK_OUT_QUERY:
		q = find_pending(r, st);
		if(!q)
			fail(r, "no pending upstream query%s matches the entry "
				"at line %d", st->has_addr ? " to the ADDRESS" :
				"", st->entry->lineno);
		else	q->checked = 1;
		break;
	case RPL_STEP_REPLY:
		q = find_pending(r, st);
		if(!q)
			fail(r, "no pending upstream query%s for the REPLY "
				"entry at line %d", st->has_addr ? " to the ADDRESS" :
				"", st->entry->lineno);
		else	deliver_entry(r, q, st->entry);
		break;
	case RPL_STEP_TIMEOUT:
		if(!r->pending)
			fail(r, "TIMEOUT without a pending upstream query");
		else	deliver_timeout(r, r->pending);
		break;
	case RPL_STEP_TIME_PASSES:
		if(st->expr) {
			fail(r, "TIME_PASSES EVAL is testbound's (run with -t)");
			break;
		}
		r->now.tv_sec += st->elapse_sec;
		clock_add_ms(r, (int)(st->elapse_usec / 1000));
		break;
	case RPL_STEP_NOTHING:
	case RPL_STEP_TRAFFIC:
		break;
	case RPL_STEP_ERROR:
	case RPL_STEP_ASSIGN:
	case RPL_STEP_CHECK_AUTOTRUST:
	case RPL_STEP_CHECK_TEMPFILE:
	case RPL_STEP_INFRA_RTT:
	case RPL_STEP_FLUSH_MESSAGE:
		fail(r, "this step is testbound's; the file is not run with "
			"testbound's semantics (-t)");
		break;
	case RPL_STEP_CHECK_SENT: {
		/* an upstream question with this name and type was sent */
		char want[280], *c;
		int i, found = 0;
		snprintf(want, sizeof(want), "%s %s", st->fname, st->fkey);
		for(c = want; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		for(i = 0; i < r->sent_n; i++)
			if(strcmp(r->sent_log[i], want) == 0 &&
				(!st->has_addr || netaddr_cmp(&st->addr,
				&r->sent_to[i]) == 0))
				found++;
		if(st->count < 0 && !found)
			fail(r, "CHECK_SENT: no upstream query %s was sent%s",
				want, st->has_addr ? " to the ADDRESS" : "");
		else if(st->count >= 0 && found != st->count)
			fail(r, "CHECK_SENT: %d upstream queries %s were sent%s, "
				"not %d", found, want, st->has_addr ?
				" to the ADDRESS" : "", st->count);
		break;
	}
	case RPL_STEP_CHECK_FILE: {
		/* a line of the file naming the key tag must hold the text
		 * (the autotrust file: "id = TAG (ksk)... state=2 [ VALID ]") */
		char path[512], line[8192], id[64];
		FILE *f;
		int found = 0;
		snprintf(path, sizeof(path), "%s/%s", r->s->tmpdir,
			st->fname);
		snprintf(id, sizeof(id), "id = %s ", st->fkey);
		if(!r->s->tmpdir[0] || !(f = fopen(path, "r"))) {
			fail(r, "CHECK_FILE: cannot read %s", path);
			break;
		}
		while(fgets(line, sizeof(line), f))
			if(strstr(line, id) && strstr(line, st->ftext))
				found = 1;
		fclose(f);
		if(!found)
			fail(r, "CHECK_FILE: no line of %s with '%s' and '%s'",
				st->fname, id, st->ftext);
		break;
	}
	case RPL_STEP_CHECK_EVENTS:
		if(!r->s->module_config)
			fail(r, "CHECK_EVENTS without the %s module in "
				"module-config", RECORDER_NAME);
		else if(strcmp(recorder_log(), st->events) != 0)
			fail(r, "module events differ:\nwanted:\n%sgot:\n%s",
				st->events, recorder_log());
		recorder_reset();
		break;
	}
	run_network(r);
}

/** set the resolver up from the scenario config */
static int
runner_setup(struct runner *r)
{
	char err[512];
	static char logbuf[8192];
	struct mcache_params mp;
	r->cfg = config_create();
	if(!r->cfg) {
		fail(r, "out of memory");
		return -1;
	}
	log_capture(logbuf, sizeof(logbuf));
	if(r->s->config_len > 0 && config_read_mem(r->cfg, r->s->file,
		r->s->config, r->s->config_len, err, sizeof(err)) < 0) {
		log_capture(NULL, 0);
		fail(r, "config: %s", err);
		return -1;
	}
	log_capture(NULL, 0);
	if(r->cfg->num_warnings > 0) {
		/* name the options: each warning is "file:N: name: why"
		 * ("not implemented by petrel, ignored", or why a value
		 * is not) */
		char names[768], *l, *e;
		size_t k = 0;
		names[0] = 0;
		for(l = logbuf; (e = strstr(l, "warning: ")) != NULL; ) {
			char *nm, *c, *nl;
			e += 9;
			nl = strchr(e, '\n');
			if(nl)
				*nl = 0;
			/* skip "file:N: " */
			nm = e;
			if((c = strstr(nm, ".rpl:")) != NULL &&
				(c = strstr(c, ": ")) != NULL)
				nm = c + 2;
			c = strstr(nm, ": ");
			if(c && k + 8 < sizeof(names)) {
				int why = strncmp(c + 2, "not implemented", 15)
					!= 0;
				k += (size_t)snprintf(names + k, sizeof(names) -
					k, "%s%.*s%s%s%s", k ? ", " : "",
					(int)(c - nm), nm, why ? " (" : "",
					why ? c + 2 : "", why ? ")" : "");
				if(k >= sizeof(names))
					k = sizeof(names) - 1;
			}
			if(!nl)
				break;
			l = nl + 1;
		}
		fail(r, "config: options petrel does not implement: %s",
			names[0] ? names : "?");
		return -1;
	}
	r->tb = r->s->testbound;
	val_crypto_fake_dsa(r->s->fake_dsa);
	recorder_reset();
	if(modstack_setup(&r->mods, r->s->module_config ?
		r->s->module_config : r->cfg->module_config,
		&recorder_module_block, r->cfg, err, sizeof(err)) != 0) {
		fail(r, "modules: %s", err);
		return -1;
	}
	mcache_params_from_cfg(&mp, r->cfg);
	r->mc = mcache_create(&mp);
	r->rrset = rrset_cache_create(r->cfg->rrset_cache_size,
		(size_t)r->cfg->rrset_cache_slabs,
		(uint32_t)r->cfg->cache_min_ttl,
		(uint32_t)r->cfg->cache_max_ttl);
	r->infra = infra_create(1024 * 1024, 4,
		(uint32_t)r->cfg->infra_host_ttl);
	r->lz = local_zones_create();
	r->acl = acl_create();
	if(!r->rrset || !r->infra || !r->lz || !r->acl) {
		fail(r, "out of memory");
		return -1;
	}
	if(local_zones_apply_cfg(r->lz, r->cfg, err, sizeof(err)) != 0) {
		fail(r, "local zones: %s", err);
		return -1;
	}
	if(acl_apply_cfg(r->acl, r->cfg, err, sizeof(err)) != 0) {
		fail(r, "access control: %s", err);
		return -1;
	}
	r->rnd = random_create_seeded(12345);
	/* testbound's clock starts at 0 (its files set the date with
	 * TIME_PASSES or val-override-date) */
	r->now.tv_sec = r->tb ? 0 : 1000000000;
	r->out.ctx = r;
	r->out.send = fake_send;
	r->out.cancel = fake_cancel;
	r->out.timer_set = fake_timer_set;
	r->out.timer_cancel = fake_timer_cancel;
	r->out.now = &r->now;
	if(!r->mc || !r->rnd) {
		fail(r, "out of memory");
		return -1;
	}
	r->res = resolver_create(r->cfg, &r->mods, &r->out, r->rnd,
		client_reply, r);
	if(!r->res) {
		fail(r, "cannot create the resolver");
		return -1;
	}
	resolver_set_env(r->res, r->mc, r->rrset, r->infra, r->lz, r->acl);
	if(r->cfg->auths || r->cfg->policy_lines) {
		/* zonefile: paths are relative to the scenario's folder; no
		 * transfer thread (auth_zones_start is not called); an rpz:
		 * clause with for-downstream: yes is an auth zone too */
		char cwd[4096], dir[4096], *sl;
		int ok = 0, cd;
		snprintf(dir, sizeof(dir), "%s", r->s->file);
		sl = strrchr(dir, '/');
		if(sl)
			*sl = 0;
		cd = sl && getcwd(cwd, sizeof(cwd)) && chdir(dir) == 0;
		r->authz = auth_zones_create(r->cfg, &ok, err, sizeof(err));
		if(cd && chdir(cwd) != 0)
			ok = 0;
		if(!ok) {
			fail(r, "auth zones: %s", err);
			return -1;
		}
		resolver_set_authz(r->res, r->authz);
		if((r->xs = auth_zones_xfr(r->authz)) != NULL) {
			/* the transfers go through the fake network and
			 * clock, run from run_network */
			struct xfr_transport tp = { xfr_fake_open,
				xfr_fake_send, xfr_fake_recv, xfr_fake_close,
				xfr_fake_now, r };
			xfr_service_set_transport(r->xs, &tp);
		}
	}
	if(r->cfg->ip_ratelimit > 0) {
		r->ip_rate = rate_table_create(r->cfg->ip_ratelimit_size,
			r->cfg->ip_ratelimit_slabs, 16);
		if(!r->ip_rate) {
			fail(r, "out of memory");
			return -1;
		}
		resolver_set_ratelimit(r->res, r->ip_rate);
	}
	if(policy_apply_cfg(&r->pol, r->cfg, err, sizeof(err)) != 0) {
		fail(r, "policy: %s", err);
		return -1;
	}
	resolver_set_policy(r->res, r->pol);
	if((r->pxs = policy_xfr(r->pol)) != NULL) {
		/* the rpz zones' transfers: the fake network and clock too */
		struct xfr_transport tp = { xfr_fake_open, xfr_fake_send,
			xfr_fake_recv, xfr_fake_close, xfr_fake_now, r };
		xfr_service_set_transport(r->pxs, &tp);
	}
	if(r->cfg->answer_cookie) {
		if(!(r->cookies = cookie_secrets_create(r->cfg, err,
			sizeof(err)))) {
			fail(r, "cookies: %s", err);
			return -1;
		}
		resolver_set_cookies(r->res, r->cookies);
	}
	/* one worker, number 0: it runs the RFC 5011 probe timer, which
	 * ${timeout} then sees among the fake timers */
	resolver_start(r->res, 0);
	/* the auth zones' host name lookups start now (the daemon's
	 * worker starts them on the zones' wake-up) */
	if(r->authz)
		resolver_auth_host_lookups(r->res);
	return 0;
}

/** free everything */
static void
runner_teardown(struct runner *r)
{
	resolver_delete(r->res);
	r->xs = NULL;
	r->pxs = NULL;
	auth_zones_delete(r->authz);
	r->authz = NULL;
	rate_table_delete(r->ip_rate);
	r->ip_rate = NULL;
	cookie_secrets_delete(r->cookies);
	r->cookies = NULL;
	while(r->pending)
		fake_remove(r, r->pending);
	while(r->timers) {
		struct fake_timer *t = r->timers;
		r->timers = t->next;
		free(t);
	}
	while(r->answers) {
		struct fake_answer *a = r->answers;
		r->answers = a->next;
		free(a->pkt);
		free(a);
	}
	if(r->mc)
		mcache_delete(r->mc);
	rrset_cache_delete(r->rrset);
	infra_delete(r->infra);
	local_zones_delete(r->lz);
	acl_delete(r->acl);
	policy_delete(r->pol);
	modstack_desetup(&r->mods);
	config_delete(r->cfg);
	random_delete(r->rnd);
	val_crypto_fake_dsa(0);
	while(r->vars) {
		struct tb_var *v = r->vars;
		r->vars = v->next;
		free(v->name);
		free(v->value);
		free(v);
	}
}

/** run one file.
 * @param file: the scenario.
 * @param flags: RPL_READ_*.
 * @param reason: the failure ("file: step N: what"), when it failed,
 *	or why it was skipped.
 * @param len: its size.
 * @param title: the scenario's title, when it passed.
 * @param tlen: its size.
 * @return 0 pass, -1 fail, 1 skipped (its module-config names a module
 *	this build leaves out, as configure --disable-dns64 does) */
static int
run_one(const char *file, int flags, char *reason, size_t len, char *title,
	size_t tlen)
{
	struct runner r;
	struct rpl_step *st;
	const char *lack;
	char err[1024];
	memset(&r, 0, sizeof(r));
	r.s = rpl_read(file, flags, err, sizeof(err));
	if(!r.s) {
		snprintf(reason, len, "%s", err);
		return -1;
	}
	if(r.s->modules && (lack = modstack_left_out(r.s->modules)) != NULL) {
		snprintf(reason, len, "%s: module-config names %s, which this "
			"build leaves out", file, lack);
		rpl_free(r.s);
		return 1;
	}
	if(runner_setup(&r) == 0) {
		if(r.tb)
			run_testbound(&r);
		else for(st = r.s->steps; st && !r.failed; st = st->next)
			run_step(&r, st);
		if(!r.failed && r.pending && !r.tb) {
			char buf[512];
			query_str(r.pending, buf, sizeof(buf));
			fail(&r, "at the end, an upstream query is still "
				"pending: %s", buf);
		}
	}
	runner_teardown(&r);
	if(r.failed)
		snprintf(reason, len, "%s", r.err);
	else	snprintf(title, tlen, "%s", r.s->title ? r.s->title : "");
	rpl_free(r.s);
	return r.failed ? -1 : 0;
}

/** run one file; a failure is printed as FAIL, or as "XFAIL" (with
 * its reason) when the file must fail; a skipped one as SKIP and why.
 * @return 0 pass, -1 fail, 1 skipped */
static int
run_file(const char *file, int flags, int expect_fail)
{
	char reason[4096], title[256];
	int r = run_one(file, flags, reason, sizeof(reason), title,
		sizeof(title));
	if(r < 0) {
		printf("%s %s\n", expect_fail ? "XFAIL" : "FAIL", reason);
		return -1;
	}
	if(r > 0) {
		printf("SKIP %s\n", reason);
		return 1;
	}
	printf("PASS %s (%s)\n", file, title);
	return 0;
}

/** run every scenario matching a pattern.
 * @param pat: glob pattern.
 * @param flags: RPL_READ_*.
 * @param expect_fail: 1 when every scenario must fail (runner self-test).
 * @param n: incremented per scenario.
 * @param skipped: incremented per scenario skipped.
 * @return number of scenarios with the wrong outcome */
static int
run_glob(const char *pat, int flags, int expect_fail, int *n, int *skipped)
{
	glob_t g;
	size_t k;
	int bad = 0;
	if(glob(pat, 0, NULL, &g) != 0) {
		printf("FAIL: no scenarios match %s\n", pat);
		return 1;
	}
	for(k = 0; k < g.gl_pathc; k++, (*n)++) {
		int r = run_file(g.gl_pathv[k], flags, expect_fail);
		if(r > 0)
			(*skipped)++;
		else if(expect_fail && r == 0) {
			printf("FAIL %s: this scenario must fail (runner "
				"self-test) but passed\n", g.gl_pathv[k]);
			bad++;
		} else if(!expect_fail && r < 0)
			bad++;
	}
	globfree(&g);
	return bad;
}

/* ---- make check-unbound: Unbound's suite, with testbound's semantics ---- */

/** seconds one file of the suite may take */
#define SUITE_TIME_LIMIT 5

/** the reason of a known difference of a file, from the list ("file RFC
 * reason", one a line, '#' comments), or NULL. @return malloced text */
static char *
suite_difference(const char *list, const char *name)
{
	FILE *f = fopen(list, "r");
	char line[1024];
	size_t n = strlen(name);
	if(!f)
		return NULL;
	while(fgets(line, sizeof(line), f)) {
		size_t l = strlen(line);
		while(l > 0 && isspace((unsigned char)line[l - 1]))
			line[--l] = 0;
		if(line[0] == '#' || strncmp(line, name, n) != 0 ||
			!isspace((unsigned char)line[n]))
			continue;
		fclose(f);
		return strdup(line + n + 1);
	}
	fclose(f);
	return NULL;
}

/** run one file of the suite in a child process (a crash or a loop
 * fails that file only). @return 0 pass, -1 fail, 1 skipped (reason
 * filled) */
static int
suite_run_child(const char *file, int verbose, char *reason, size_t len)
{
	int fd[2], status = 0;
	pid_t pid;
	ssize_t got = 0, k;
	fflush(stdout);
	if(pipe(fd) < 0) {
		snprintf(reason, len, "cannot make a pipe");
		return -1;
	}
	if((pid = fork()) < 0) {
		close(fd[0]);
		close(fd[1]);
		snprintf(reason, len, "cannot fork");
		return -1;
	}
	if(pid == 0) {
		char title[256];
		int r;
		close(fd[0]);
		if(!verbose)
			(void)freopen("/dev/null", "w", stderr);
		alarm(SUITE_TIME_LIMIT);
		r = run_one(file, RPL_READ_TESTBOUND, reason, len, title,
			sizeof(title));
		if(r == 0)
			snprintf(reason, len, "P");
		if(write(fd[1], reason, strlen(reason)) < 0)
			_exit(3);
		_exit(r == 0 ? 0 : r > 0 ? 2 : 1);
	}
	close(fd[1]);
	while((size_t)got < len - 1 && (k = read(fd[0], reason + got,
		len - 1 - (size_t)got)) > 0)
		got += k;
	reason[got] = 0;
	close(fd[0]);
	(void)waitpid(pid, &status, 0);
	if(WIFSIGNALED(status)) {
		if(WTERMSIG(status) == SIGALRM)
			snprintf(reason, len, "%s: over the time limit of %d s "
				"(the run loops?)", file, SUITE_TIME_LIMIT);
		else	snprintf(reason, len, "%s: crashed (signal %d)", file,
				WTERMSIG(status));
		return -1;
	}
	if(WIFEXITED(status) && WEXITSTATUS(status) == 0 &&
		strcmp(reason, "P") == 0)
		return 0;
	if(WIFEXITED(status) && WEXITSTATUS(status) == 2 && reason[0])
		return 1;
	if(!reason[0])
		snprintf(reason, len, "%s: exited with %d", file,
			WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	return -1;
}

/** the pass count recorded in the floor file, or 0 */
static int
suite_floor(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[256];
	int v = 0;
	if(!f)
		return 0;
	while(fgets(line, sizeof(line), f))
		if(isdigit((unsigned char)line[0])) {
			v = atoi(line);
			break;
		}
	fclose(f);
	return v;
}

/** run every *.rpl of dir with testbound's semantics: one line a file,
 * PASS name, FAIL name: first reason, DIFF name: the listed difference;
 * the last line counts them. @return exit code: 1 when fewer passed
 * than the floor */
static int
run_suite(const char *dir, const char *difflist, const char *floorfile,
	int verbose)
{
	glob_t g;
	char pat[1024];
	size_t k;
	int pass = 0, failn = 0, diff = 0, skipn = 0, r;
	int floor = suite_floor(floorfile);
	snprintf(pat, sizeof(pat), "%s/*.rpl", dir);
	if(glob(pat, 0, NULL, &g) != 0) {
		printf("unbound suite: no files in %s (set UNBOUND_TESTDATA)\n",
			dir);
		return 1;
	}
	for(k = 0; k < g.gl_pathc; k++) {
		const char *file = g.gl_pathv[k], *name = strrchr(file, '/');
		char reason[8192], *first, *nl, *d;
		name = name ? name + 1 : file;
		d = suite_difference(difflist, name);
		if((r = suite_run_child(file, verbose, reason,
			sizeof(reason))) == 0) {
			pass++;
			if(d)
				printf("PASS %s (listed in %s: take it out)\n",
					name, difflist);
			else	printf("PASS %s\n", name);
			free(d);
			continue;
		}
		if(r > 0) {
			/* the build lacks a module the file needs */
			skipn++;
			printf("SKIP %s: %s\n", name, strncmp(reason, file,
				strlen(file)) == 0 && reason[strlen(file)] == ':' ?
				reason + strlen(file) + 2 : reason);
			free(d);
			continue;
		}
		if(d) {
			diff++;
			printf("DIFF %s: %s\n", name, d);
			free(d);
			continue;
		}
		failn++;
		/* the reason without the file's path, first line only */
		first = reason;
		if(strncmp(first, file, strlen(file)) == 0 &&
			first[strlen(file)] == ':')
			first += strlen(file) + 1;
		first += strspn(first, " ");
		nl = strchr(first, '\n');
		printf("FAIL %s: %.*s\n", name, nl ? (int)(nl - first) :
			(int)strlen(first), first);
		if(verbose && nl)
			printf("%s\n", nl + 1);
	}
	globfree(&g);
	printf("unbound suite: %d passed, %d failed (%d known differences, "
		"%d skipped, %d files; floor %d)\n", pass, failn, diff, skipn,
		pass + failn + diff + skipn, floor);
	if(pass < floor) {
		printf("unbound suite: %d passed is below the floor of %d in "
			"%s\n", pass, floor, floorfile);
		return 1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	int i, failed = 0, n = 0, flags = 0, verbose = 0, skipped = 0;
	const char *v = getenv("REPLAY_VERBOSE");
	const char *suite = NULL;
	log_init(NULL, 0, NULL);
	log_set_verbosity(v ? atoi(v) : 0);
	modstack_config_register();
	dns_hash_set_seed(42);
	(void)setenv("TZ", "UTC", 1);
	for(;;) {
		if(argc > 2 && strcmp(argv[1], "-v") == 0) {
			log_set_verbosity(atoi(argv[2]));
			verbose = 1;
			argc -= 2;
			argv += 2;
		} else if(argc > 1 && strcmp(argv[1], "-V") == 0) {
			verbose = 1;
			argc--;
			argv++;
		} else if(argc > 1 && strcmp(argv[1], "-t") == 0) {
			flags |= RPL_READ_TESTBOUND;
			argc--;
			argv++;
		} else if(argc > 2 && strcmp(argv[1], "-U") == 0) {
			suite = argv[2];
			argc -= 2;
			argv += 2;
		} else	break;
	}
	if(suite) {
		const char *dl = getenv("UNBOUND_DIFFERENCES");
		const char *fl = getenv("UNBOUND_FLOOR");
		return run_suite(suite, dl ? dl : REPLAY_UNBOUND_DIFFERENCES,
			fl ? fl : REPLAY_UNBOUND_FLOOR, verbose);
	}
	if(argc > 1) {
		for(i = 1; i < argc; i++, n++) {
			int r = run_file(argv[i], flags, 0);
			if(r < 0)
				failed++;
			else if(r > 0)
				skipped++;
		}
	} else {
		const char *dir = getenv("REPLAY_TESTDATA");
		char pat[1024];
		snprintf(pat, sizeof(pat), "%s/*.rpl", dir ? dir :
			REPLAY_TESTDATA);
		failed += run_glob(pat, 0, 0, &n, &skipped);
		/* the runner's self-test: scenarios that must fail (a wrong
		 * expected answer, an unanswered query, an unknown keyword) */
		snprintf(pat, sizeof(pat), "%s/*.rpl", REPLAY_MUSTFAIL);
		failed += run_glob(pat, 0, 1, &n, &skipped);
		/* testbound's semantics: petrel's own scenarios of the
		 * runner's features for Unbound's files, that pass and that
		 * must fail */
		snprintf(pat, sizeof(pat), "%s/*.rpl", REPLAY_TESTBOUND);
		failed += run_glob(pat, RPL_READ_TESTBOUND, 0, &n, &skipped);
		snprintf(pat, sizeof(pat), "%s/mustfail/*.rpl",
			REPLAY_TESTBOUND);
		failed += run_glob(pat, RPL_READ_TESTBOUND, 1, &n, &skipped);
	}
	/* a skipped scenario (the build lacks what it tests) is neither */
	printf("%d scenarios, %d as expected, %d not, %d skipped\n", n,
		n - failed - skipped, failed, skipped);
	return failed ? 1 : 0;
}
