/*
 * tests/replay/runner.c - run .rpl scenarios against the resolver core
 * with a fake network and a fake clock.
 *
 * The resolver (services/resolver.h: front end, mesh, iterator, caches)
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
#include "services/resolver.h"
#include "services/authzone.h"
#include <unistd.h>
#include "services/outbound.h"
#include "services/mesh.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/localzone.h"
#include "services/acl.h"
#include "services/policy.h"
#include "services/modstack.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/ratelimit.h"
#include "services/cookie_secrets.h"
#include "dns/query.h"

#ifndef REPLAY_TESTDATA
#define REPLAY_TESTDATA "testdata"
#endif
#ifndef REPLAY_MUSTFAIL
#define REPLAY_MUSTFAIL "tests/replay/mustfail"
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

/** the query times out */
static void
deliver_timeout(struct runner *r, struct fake_query *q)
{
	outbound_cb_type cb = q->cb;
	void *arg = q->arg;
	int ms = q->timeout_ms;
	fake_remove(r, q);
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
	if(rpl_make_reply(e, q->q, &pkt, &len) < 0) {
		fail(r, "cannot build the reply of the entry at line %d",
			e->lineno);
		return;
	}
	if(len < 2 || (uint16_t)(pkt[0] << 8 | pkt[1]) != ldns_pkt_id(q->q)) {
		/* wrong ID: the network ignores it, the query times out */
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

/** find the range entry for a query; @return entry or NULL */
static struct rpl_entry *
find_entry(struct runner *r, struct fake_query *q)
{
	struct rpl_range *rg;
	struct rpl_entry *e;
	for(rg = r->s->ranges; rg; rg = rg->next) {
		int i, addr_ok = (rg->naddrs == 0);
		if(r->step < rg->first || r->step > rg->last)
			continue;
		for(i = 0; i < rg->naddrs; i++)
			if(netaddr_cmp(&rg->addrs[i], &q->to) == 0)
				addr_ok = 1;
		if(!addr_ok)
			continue;
		for(e = rg->entries; e; e = e->next)
			if(rpl_match_query(e, q->q,
				(q->flags & OUTBOUND_FLAG_TCP) != 0))
				return e;
	}
	return NULL;
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
			if(!r->s->manual_out) {
				char buf[512];
				query_str(q, buf, sizeof(buf));
				fail(r, "no entry answers the query %s", buf);
				return;
			}
		}
		if(!progress)
			progress = fire_timers(r);
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
	(void)h;
	if(!pkt)
		return; /* dropped */
	a = calloc(1, sizeof(*a));
	if(!a || !(a->pkt = malloc(len))) {
		free(a);
		fail(r, "out of memory");
		return;
	}
	memcpy(a->pkt, pkt, len);
	a->len = len;
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
	ldns_pkt_set_id(p, (uint16_t)random_u32(r->rnd));
	if(e->edns) {
		ldns_pkt_set_edns_udp_size(p, 4096);
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
	resolver_set_local(r->res, st->has_iface ? &st->iface : NULL);
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
		r->now.tv_sec += st->elapse;
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
	struct mcache_params mp;
	r->cfg = config_create();
	if(!r->cfg) {
		fail(r, "out of memory");
		return -1;
	}
	if(r->s->config_len > 0 && config_read_mem(r->cfg, r->s->file,
		r->s->config, r->s->config_len, err, sizeof(err)) < 0) {
		fail(r, "config: %s", err);
		return -1;
	}
	if(r->cfg->num_warnings > 0) {
		fail(r, "config has options petrel does not implement");
		return -1;
	}
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
	r->now.tv_sec = 1000000000;
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
	if(r->cfg->answer_cookie) {
		if(!(r->cookies = cookie_secrets_create(r->cfg, err,
			sizeof(err)))) {
			fail(r, "cookies: %s", err);
			return -1;
		}
		resolver_set_cookies(r->res, r->cookies);
	}
	return 0;
}

/** free everything */
static void
runner_teardown(struct runner *r)
{
	resolver_delete(r->res);
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
}

/** run one file; a failure is printed as FAIL, or as "XFAIL" (with
 * its reason) when the file must fail. @return 0 pass, -1 fail */
static int
run_file(const char *file, int expect_fail)
{
	const char *f = expect_fail ? "XFAIL" : "FAIL";
	struct runner r;
	struct rpl_step *st;
	char err[1024];
	memset(&r, 0, sizeof(r));
	r.s = rpl_read(file, err, sizeof(err));
	if(!r.s) {
		printf("%s %s: %s\n", f, file, err);
		return -1;
	}
	if(runner_setup(&r) == 0) {
		for(st = r.s->steps; st && !r.failed; st = st->next)
			run_step(&r, st);
		if(!r.failed && r.pending) {
			char buf[512];
			query_str(r.pending, buf, sizeof(buf));
			fail(&r, "at the end, an upstream query is still "
				"pending: %s", buf);
		}
	}
	runner_teardown(&r);
	if(r.failed) {
		printf("%s %s\n", f, r.err);
		rpl_free(r.s);
		return -1;
	}
	printf("PASS %s (%s)\n", file, r.s->title ? r.s->title : "");
	rpl_free(r.s);
	return 0;
}

/** run every scenario matching a pattern.
 * @param pat: glob pattern.
 * @param expect_fail: 1 when every scenario must fail (runner self-test).
 * @param n: incremented per scenario.
 * @return number of scenarios with the wrong outcome */
static int
run_glob(const char *pat, int expect_fail, int *n)
{
	glob_t g;
	size_t k;
	int bad = 0;
	if(glob(pat, 0, NULL, &g) != 0) {
		printf("FAIL: no scenarios match %s\n", pat);
		return 1;
	}
	for(k = 0; k < g.gl_pathc; k++, (*n)++) {
		int r = run_file(g.gl_pathv[k], expect_fail);
		if(expect_fail && r == 0) {
			printf("FAIL %s: this scenario must fail (runner "
				"self-test) but passed\n", g.gl_pathv[k]);
			bad++;
		} else if(!expect_fail && r < 0)
			bad++;
	}
	globfree(&g);
	return bad;
}

int
main(int argc, char *argv[])
{
	int i, failed = 0, n = 0;
	const char *v = getenv("REPLAY_VERBOSE");
	log_init(NULL, 0, NULL);
	log_set_verbosity(v ? atoi(v) : 0);
	dns_hash_set_seed(42);
	if(argc > 2 && strcmp(argv[1], "-v") == 0) {
		log_set_verbosity(atoi(argv[2]));
		argc -= 2;
		argv += 2;
	}
	if(argc > 1) {
		for(i = 1; i < argc; i++, n++)
			if(run_file(argv[i], 0) < 0)
				failed++;
	} else {
		const char *dir = getenv("REPLAY_TESTDATA");
		char pat[1024];
		snprintf(pat, sizeof(pat), "%s/*.rpl", dir ? dir :
			REPLAY_TESTDATA);
		failed += run_glob(pat, 0, &n);
		/* the runner's self-test: scenarios that must fail (a wrong
		 * expected answer, an unanswered query, an unknown keyword) */
		snprintf(pat, sizeof(pat), "%s/*.rpl", REPLAY_MUSTFAIL);
		failed += run_glob(pat, 1, &n);
	}
	printf("%d scenarios, %d as expected, %d not\n", n, n - failed,
		failed);
	return failed ? 1 : 0;
}
