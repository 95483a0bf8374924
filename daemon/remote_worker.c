/*
 * daemon/remote_worker.c - the control commands a worker runs, in its own
 * thread or process, and the pipe protocol that carries them. See
 * remote_worker.h.
 */
#include "config.h"
#include "daemon/remote_worker.h"
#include "daemon/remote_cfg.h"
#include "daemon/remote.h"
#include "daemon/daemon.h"
#include "daemon/env.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "services/authzone.h"
#include "services/mesh.h"
#include "front/modstack.h"
#include "front/cookie_secrets.h"
#include "front/resolver.h"
#include "front/policy.h"
#include "services/rpz.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/cache/cachedump.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "util/config_file.h"
#include "util/ratelimit.h"
#include "util/netaddr.h"
#include "util/region.h"
#include "front/modstack.h"
#include "front/cookie_secrets.h"
#include "util/log.h"
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
remote_fd_wait(int fd, short ev, int ms)
{
	struct pollfd p;
	int r;
	p.fd = fd;
	p.events = ev;
	p.revents = 0;
	do {
		r = poll(&p, 1, ms);
	} while(r < 0 && errno == EINTR);
	return r;
}

int
remote_fd_write_all(int fd, const void *buf, size_t len, int ms)
{
	const uint8_t *p = buf;
	while(len > 0) {
		ssize_t n = write(fd, p, len);
		if(n < 0) {
			if(errno == EINTR)
				continue;
			if(errno == EAGAIN || errno == EWOULDBLOCK) {
				if(remote_fd_wait(fd, POLLOUT, ms) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
remote_fd_read_all(int fd, void *buf, size_t len, int ms)
{
	uint8_t *p = buf;
	while(len > 0) {
		ssize_t n = read(fd, p, len);
		if(n == 0)
			return -1;
		if(n < 0) {
			if(errno == EINTR)
				continue;
			if(errno == EAGAIN || errno == EWOULDBLOCK) {
				if(remote_fd_wait(fd, POLLIN, ms) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
remote_fd_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);
	if(fl == -1)
		return 0;
	(void)fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
	return fl;
}

/** the worker's clock */
static time_t
worker_now(struct worker *w)
{
	return w->base ? *comm_base_secs(w->base) : time(NULL);
}


/** what the rate list callbacks print to */
struct rate_list_arg {
	/** the answer */
	struct stats_buf *out;
	/** the limit (ip_ratelimit_list) */
	int limit;
	/** list all, not only those over the limit */
	int all;
};

/** ratelimit_list: one zone (module_ctl_arg.rate) */
static void
ratelimit_list_cb(void *arg, const char *zone, int rate, int limit)
{
	struct rate_list_arg *a = (struct rate_list_arg *)arg;
	stats_buf_printf(a->out, "%s %d limit %d\n", zone, rate, limit);
}

/** ip_ratelimit_list: one client address (4 or 16 bytes) */
static void
ip_ratelimit_list_cb(const uint8_t *key, size_t keylen, int rate, void *arg)
{
	struct rate_list_arg *a = (struct rate_list_arg *)arg;
	char buf[64];
	int af = keylen == 4 ? AF_INET : AF_INET6;
	if((keylen != 4 && keylen != 16) || (!a->all && rate <= a->limit))
		return;
	if(!inet_ntop(af, key, buf, sizeof(buf)))
		return;
	stats_buf_printf(a->out, "%s rate %d limit %d\n", buf, rate,
		a->limit);
}

/** ratelimit_list [+a] and ip_ratelimit_list [+a], in the worker: the
 * zones or client addresses over their limit now (+a: every one with a
 * rate). @return 1 when cmd was one of them */
static int
worker_rate_list(struct worker *w, const char *cmd, const char *args,
	struct stats_buf *out)
{
	struct rate_list_arg a;
	const struct config_file *cfg = w->env->cfg;
	/* the wall clock: the worker's cached one may be seconds behind
	 * when the command wakes it (and the counters are newer) */
	time_t now = time(NULL);
	a.out = out;
	a.all = (args && strstr(args, "+a") != NULL);
	if(strcmp(cmd, "ratelimit_list") == 0) {
		struct module_ctl_arg c;
		memset(&c, 0, sizeof(c));
		c.now = now;
		c.all = a.all;
		c.rate = ratelimit_list_cb;
		c.cbarg = &a;
		a.limit = cfg->ratelimit;
		(void)modstack_control(&w->env->mods, NULL,
			MODULE_CTL_RATELIMIT_LIST, &c);
		return 1;
	}
	if(strcmp(cmd, "ip_ratelimit_list") == 0) {
		a.limit = cfg->ip_ratelimit;
		if(w->env->ip_rate)
			rate_table_walk(w->env->ip_rate, now,
				cfg->ip_ratelimit_backoff, ip_ratelimit_list_cb,
				&a);
		return 1;
	}
	return 0;
}

/** the memory of each module of the worker's stack, as its get_mem hook
 * reports it (the stack's global data and this worker's own), under the
 * name the module's block gives it */
static void
stats_collect_mods(struct worker *w, struct stats_mods *out)
{
	const struct module_stack *st = w->res ? w->res->stack : NULL;
	int i;
	out->num = 0;
	for(i = 0; st && i < st->num && i < MODULE_MAX; i++) {
		const struct module_func_block *m = st->mod[i];
		snprintf(out->name[i], sizeof(out->name[i]), "%s",
			m->stats_name ? m->stats_name :
			m->name ? m->name : "?");
		out->mem[i] = m->get_mem ? (uint64_t)m->get_mem(&w->res->menv,
			i) : 0;
		out->num = i + 1;
	}
}

/** collect a worker's counters, in its own thread or process
 * @param mode: a STATS_GET_ mode */
static void
stats_collect(struct worker *w, struct stats_info *out, int mode)
{
	int i;
	memset(out, 0, sizeof(*out));
	if(w->res && w->res->mesh) {
		out->reqlist_current = mesh_num_states(w->res->mesh);
		out->reqlist_user = w->res->mesh->num_client_states;
		out->reqlist_replies = mesh_num_clients(w->res->mesh);
	}
	for(i = 0; w->tcp && i < w->num_points; i++) {
		struct comm_http_stats hs;
		if(!w->tcp[i])
			continue;
		out->tcp_usage += (uint64_t)comm_point_tcp_count(w->tcp[i]);
		out->mem_streamwait += (uint64_t)comm_point_tcp_queued(
			w->tcp[i]);
		comm_point_get_http_stats(w->tcp[i], &hs);
		out->mem_http_query += hs.query_bytes;
		out->mem_http_response += hs.response_bytes;
	}
	stats_collect_mods(w, &out->mods);
	worker_get_stats(w, &out->s, &out->r, mode == STATS_GET_RESET);
	if(mode == STATS_GET_MONOTONIC) {
		stats_add_worker(&out->s, &w->carry_s);
		stats_add_resolver(&out->r, &w->carry_r);
	}
}

/** cache_lookup: what the callbacks print, and the name they look for */
struct lookup_arg {
	/** output */
	struct stats_buf *out;
	/** only this name */
	const uint8_t *only;
};

/** cache_lookup: one message entry of the name */
static void
lookup_msg_cb(const struct mcache_dump_entry *e, void *arg)
{
	struct lookup_arg *a = arg;
	char nm[DNS_MAX_NAME_STR], tb[32];
	if(e->ttl == 0 || !dname_equal(a->only, e->qname))
		return;
	(void)dname_to_str(e->qname, nm, sizeof(nm));
	stats_buf_printf(a->out, "msg %s %s %s ttl %u rcode %s%s%s\n",
		nm, dns_class_str(e->qclass),
		dns_type_str(e->qtype, tb, sizeof(tb)), (unsigned)e->ttl,
		dns_rcode_str(e->rcode), e->do_bit ? " do" : "",
		e->cd_bit ? " cd" : "");
}

/** cache_lookup: one RRset of the name */
static void
lookup_rrset_cb(const struct rrset_data *rs, void *arg)
{
	struct lookup_arg *a = arg;
	char nm[DNS_MAX_NAME_STR], tb[32];
	if(rs->ttl == 0 || !dname_equal(a->only, rs->name))
		return;
	(void)dname_to_str(rs->name, nm, sizeof(nm));
	stats_buf_printf(a->out, "rrset %s %u %s %s (%zu records, %zu "
		"signatures)\n", nm, (unsigned)rs->ttl,
		dns_class_str(rs->rrclass),
		dns_type_str(rs->type, tb, sizeof(tb)), rs->count,
		rs->sig_count);
}

/** cachedump_write's printer: a stats_buf */
static void
dump_print(void *arg, const char *text, size_t len)
{
	stats_buf_append((struct stats_buf *)arg, text, len);
}

/** stats_get: where the upstream servers are counted, and the time */
struct stats_infra_arg {
	/** counted into */
	struct stats_upstream *u;
	/** the time: expired entries are left out */
	time_t now;
};

/** stats_get: one infrastructure cache entry into the upstream picture
 * (servers, not lameness entries, unexpired, with a measured RTT) */
static void
stats_infra_cb(const struct infra_dump_entry *e, void *arg)
{
	struct stats_infra_arg *a = arg;
	if(!e->lame && !e->zone && e->host.expire > a->now)
		stats_upstream_add(a->u, e->host.srtt);
}

/** lookup: one server's line, as Unbound's: the address padded to 16
 * and a tab, then what the infra cache knows ("not in infra cache."
 * when nothing). petrel counts timeouts per server, not per query type:
 * they are shown as tother. */
static void
lookup_server(struct worker *w, const struct netaddr *a, const uint8_t *zone,
	time_t now, struct stats_buf *out)
{
	char ip[NETADDR_STRLEN];
	struct infra_host h;
	long long ttl;
	int srtt;
	(void)netaddr_str(a, 53, ip, sizeof(ip));
	stats_buf_printf(out, "%-16s\t", ip);
	if(!w->env->infra || infra_host_get(w->env->infra, a, now, &h) != 0 ||
		(ttl = (long long)h.expire - (long long)now) <= 0) {
		stats_buf_printf(out, "not in infra cache.\n");
		return;
	}
	srtt = h.srtt < 0 ? 0 : h.srtt;
	stats_buf_printf(out, "%srto %d msec, ttl %lld, ping %d var %d rtt %d, "
		"tA 0, tAAAA 0, tother %d", zone && infra_is_lame(w->env->infra,
		a, zone, now) ? "LAME " : "", h.rto, ttl, srtt, h.rttvar,
		srtt + 4 * h.rttvar, h.timeouts);
	if(h.edns == INFRA_EDNS_NO)
		stats_buf_printf(out, ", noEDNS probed.\n");
	else	stats_buf_printf(out, ", EDNS 0%s.\n", h.edns == INFRA_EDNS_YES ?
			" probed" : " assumed");
}

/** lookup: a list of configured servers (a forward or stub zone): the
 * summary, then a line per server */
static void
lookup_config_servers(struct worker *w, const char *addrs, time_t now,
	struct stats_buf *out)
{
	char buf[4096], *p, *save = NULL;
	struct netaddr a[64];
	int n = 0, i;
	snprintf(buf, sizeof(buf), "%s", addrs ? addrs : "");
	for(p = strtok_r(buf, " \n", &save); p && n < 64;
		p = strtok_r(NULL, " \n", &save)) {
		char *hash = strchr(p, '#');
		if(hash)
			*hash = 0;	/* the TLS name */
		if(netaddr_parse(p, 53, &a[n], NULL) == 0)
			n++;
	}
	stats_buf_printf(out, "Delegation with 0 names, of which 0 can be "
		"examined to query further addresses.\nIt provides %d IP "
		"addresses.\n", n);
	for(i = 0; i < n; i++)
		lookup_server(w, &a[i], NULL, now, out);
}

/** lookup NAME [forward|stub|stub-noprime] with the configured addresses
 * as the payload: what unbound-control lookup prints after its first
 * line: the delegation the cache holds for the name (its NS set and the
 * address sets of the servers, as dump_cache writes them), the count of
 * names and addresses, and a line per server from the infra cache */
static void
worker_lookup(struct worker *w, char *args, const char *payload,
	struct stats_buf *out)
{
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl, i, j, nglued = 0, naddr = 0;
	char *mode = NULL, *sp = strchr(args, ' ');
	time_t now = worker_now(w);
	struct region *region;
	struct rrset_delegation dp;
	if(sp) {
		*sp = 0;
		mode = sp + 1;
	}
	if(remote_parse_name(args, name, &nl) != 0) {
		stats_buf_printf(out, "error bad name '%s'\n", args);
		return;
	}
	if(mode && strcmp(mode, "forward") == 0) {
		lookup_config_servers(w, payload, now, out);
		return;
	}
	if(mode && strncmp(mode, "stub", 4) == 0) {
		stats_buf_printf(out, "%s\n", strcmp(mode, "stub-noprime") == 0 ?
			"The noprime stub servers are used:" :
			"The stub is primed with servers:");
		lookup_config_servers(w, payload, now, out);
		/* Unbound shows the stub's servers alone (the cache's
		 * delegation above the stub is not used for the name) */
		return;
	}
	if(!w->env->rrset || !(region = region_create(8192)))
		return;
	if(rrset_cache_find_delegation(w->env->rrset, name, DNS_CLASS_IN, now,
		region, &dp) != 0) {
		stats_buf_printf(out, "no delegation from cache; goes to "
			"configured roots\n");
		region_destroy(region);
		return;
	}
	cachedump_write_rrset(&dp.ns, dump_print, out);
	for(i = 0; i < dp.glue_count; i++) {
		cachedump_write_rrset(&dp.glue[i], dump_print, out);
		naddr += dp.glue[i].count;
	}
	/* the NS names whose addresses are known, as Unbound counts them:
	 * both an A and an AAAA set in the cache (a name with one of them
	 * can still be examined for the other) */
	for(j = 0; j < dp.ns.count; j++) {
		int got4 = 0, got6 = 0;
		for(i = 0; i < dp.glue_count; i++)
			if(dname_equal(dp.glue[i].name, dp.ns.rdata[j])) {
				if(dp.glue[i].type == DNS_TYPE_AAAA)
					got6 = 1;
				else	got4 = 1;
			}
		if(got4 && got6)
			nglued++;
	}
	stats_buf_printf(out, "Delegation with %zu names, of which %zu can be "
		"examined to query further addresses.\nIt provides %zu IP "
		"addresses.\n", dp.ns.count, dp.ns.count - nglued, naddr);
	for(i = 0; i < dp.glue_count; i++) {
		const struct rrset_data *g = &dp.glue[i];
		for(j = 0; j < g->count; j++) {
			char ip[INET6_ADDRSTRLEN];
			struct netaddr a;
			int af = g->type == DNS_TYPE_AAAA ? AF_INET6 : AF_INET;
			if(g->rdlen[j] != (af == AF_INET ? 4 : 16) ||
				!inet_ntop(af, g->rdata[j], ip, sizeof(ip)) ||
				netaddr_parse(ip, 53, &a, NULL) != 0)
				continue;
			lookup_server(w, &a, dp.ns.name, now, out);
		}
	}
	region_destroy(region);
}

/** dump_infra: a lameness entry, kept until the walk is over (its line
 * takes the server's round-trip data, which the walk may not look up) */
struct infra_dump_lame {
	/** the server, as text, "ip" or "ip@port" */
	char ad[80];
	/** the server */
	struct netaddr addr;
	/** the zone, presentation format */
	char zone[DNS_MAX_NAME_STR];
	/** when the lameness expires */
	time_t expire;
};

/** dump_infra: where the lines go, and the time */
struct infra_dump_arg {
	/** output */
	struct stats_buf *out;
	/** the time */
	time_t now;
	/** the lameness entries seen (malloced), their number and room */
	struct infra_dump_lame *lame;
	size_t nlame, maxlame;
};

/**
 * dump_infra: one line as Unbound prints it ("ip[@port] zone ttl N ping
 * N var N rtt N rto N tA N tAAAA N tother N ednsknown N edns N delay N
 * lame dnssec N rec N A N other N"; "ip zone expired rto N" for an
 * expired entry that was backed off to the cap). Unbound keeps these per
 * server and zone; petrel keeps the round-trip data per server (zone
 * ".") and lameness per server and zone: a lameness entry is a line of
 * its zone with the server's data and "A 1 other 1" (petrel's lameness
 * holds for every query type). The timeouts in a row are "tother".
 */
static void
dump_infra_line(struct infra_dump_arg *a, const char *ad, const char *zone,
	const struct infra_host *h, time_t expire, int lame)
{
	long long ttl = (long long)expire - (long long)a->now;
	int srtt = h->srtt < 0 ? 0 : h->srtt;
	int rtt = srtt + 4 * h->rttvar;
	if(ttl < 0) {
		if(h->rto >= INFRA_RTO_MAX)
			stats_buf_printf(a->out, "%s %s expired rto %d\n", ad,
				zone, h->rto);
		return;
	}
	if(rtt < INFRA_RTO_MIN)
		rtt = INFRA_RTO_MIN;
	if(rtt > INFRA_RTO_MAX)
		rtt = INFRA_RTO_MAX;
	stats_buf_printf(a->out, "%s %s ttl %lld ping %d var %d rtt %d "
		"rto %d tA 0 tAAAA 0 tother %d ednsknown %d edns %d delay %d "
		"lame dnssec 0 rec 0 A %d other %d\n", ad, zone, ttl, srtt,
		h->rttvar, rtt, h->rto, h->timeouts,
		h->edns != INFRA_EDNS_UNKNOWN,
		h->edns == INFRA_EDNS_NO ? -1 : 0,
		h->probe_at > a->now ? (int)(h->probe_at - a->now) : 0,
		lame, lame);
}

/** dump_infra: one entry of the walk; a server's line now, a lameness
 * entry kept for after the walk */
static void
dump_infra_cb(const struct infra_dump_entry *e, void *arg)
{
	struct infra_dump_arg *a = arg;
	const char *err = NULL;
	char ad[80];
	if(e->port != 53)
		snprintf(ad, sizeof(ad), "%s@%d", e->addr, e->port);
	else	snprintf(ad, sizeof(ad), "%s", e->addr);
	if(!e->lame || !e->zone) {
		dump_infra_line(a, ad, ".", &e->host, e->host.expire, 0);
		return;
	}
	if(a->nlame == a->maxlame) {
		size_t m = a->maxlame ? 2 * a->maxlame : 16;
		struct infra_dump_lame *n = realloc(a->lame, m * sizeof(*n));
		if(!n)
			return;
		a->lame = n;
		a->maxlame = m;
	}
	if(netaddr_parse(e->addr, e->port, &a->lame[a->nlame].addr,
		&err) != 0 ||
		dname_to_str(e->zone, a->lame[a->nlame].zone,
		sizeof(a->lame[a->nlame].zone)) < 0)
		return;
	snprintf(a->lame[a->nlame].ad, sizeof(a->lame[a->nlame].ad), "%s",
		ad);
	a->lame[a->nlame].expire = e->host.expire;
	a->nlame++;
}

/** dump_infra in a worker: the servers, then their lameness */
static void
worker_dump_infra(struct worker *w, struct stats_buf *out)
{
	struct infra_dump_arg ia;
	size_t i;
	memset(&ia, 0, sizeof(ia));
	ia.out = out;
	ia.now = worker_now(w);
	if(!w->env->infra)
		return;
	infra_traverse(w->env->infra, dump_infra_cb, &ia);
	for(i = 0; i < ia.nlame; i++) {
		struct infra_host h;
		(void)infra_host_get(w->env->infra, &ia.lame[i].addr, ia.now,
			&h);
		dump_infra_line(&ia, ia.lame[i].ad, ia.lame[i].zone, &h,
			ia.lame[i].expire, 1);
	}
	free(ia.lame);
}

/** load_cache in a worker: the payload is the dump text (Unbound's
 * format), read whole before anything is stored; replies "stored
 * dropped 0", or the error */
static void
worker_load_cache(struct worker *w, const char *data, size_t len,
	struct stats_buf *out)
{
	char err[512];
	struct cachedump_counts c;
	struct cachedump *d = cachedump_parse(data, len, err, sizeof(err));
	if(!d) {
		stats_buf_printf(out, "error %s; nothing loaded\n", err);
		return;
	}
	if(cachedump_load(d, w->env->msg, w->env->rrset, worker_now(w), &c)
		!= 0)
		stats_buf_printf(out, "error out of memory\n");
	else	stats_buf_printf(out, "%zu %zu 0\n", c.stored, c.dropped);
	cachedump_free(d);
}

/** dump_cache in a worker: the RRset part, a line END_RRSET_CACHE, the
 * message part (the control server frames the parts of every worker
 * into one dump) */
static void
worker_dump_cache(struct worker *w, struct stats_buf *out)
{
	struct stats_buf msgs;
	memset(&msgs, 0, sizeof(msgs));
	/* a shared cache is dumped once, by worker 0 */
	if(!w->env->shc || w->index == 0) {
		if(cachedump_write(w->env->msg, w->env->rrset, worker_now(w),
			dump_print, out, dump_print, &msgs) != 0 || msgs.oom) {
			stats_buf_free(&msgs);
			stats_buf_free(out);
			stats_buf_printf(out, "error out of memory\n");
			return;
		}
	}
	stats_buf_printf(out, "END_RRSET_CACHE\n");
	if(msgs.len)
		stats_buf_append(out, msgs.data, msgs.len);
	stats_buf_free(&msgs);
}

/** drop every client resolution in the mesh (flush_requestlist) */
static size_t
worker_flush_requestlist(struct worker *w)
{
	struct mesh *m;
	struct mesh_state *s;
	size_t n = 0, guard;
	if(!w->res || !(m = w->res->mesh))
		return 0;
	guard = m->num_states + 1;
	while(guard-- > 0) {
		for(s = m->first; s; s = s->next)
			if(!s->finished && s->num_clients > 0)
				break;
		if(!s)
			break;
		mesh_state_finish(s, NULL, DNS_EDE_OTHER);
		n++;
	}
	return n;
}

/** the name Unbound's dump_requestlist gives a module's state */
static const char *
ext_state_name(enum module_ext_state st)
{
	switch(st) {
	case MODULE_STATE_INITIAL: return "module_state_initial";
	case MODULE_WAIT_REPLY: return "module_wait_reply";
	case MODULE_WAIT_MODULE: return "module_wait_module";
	case MODULE_WAIT_SUBQUERY: return "module_wait_subquery";
	case MODULE_FINISHED: return "module_finished";
	case MODULE_ERROR: return "module_error";
	}
	return "module_state_unknown";
}

/** dump_requestlist's status column, as Unbound's: "MODULE wants TYPE
 * CLASS NAME ..." (the sub-queries it waits for) or "MODULE is STATE" */
static void
requestlist_status(const struct mesh *m, const struct mesh_state *s,
	char *buf, size_t len)
{
	const struct module_qstate *q = &s->qs;
	const char *mod = "none";
	enum module_ext_state st = MODULE_STATE_INITIAL;
	size_t at;
	const struct mesh_ref *r;
	if(q->curmod >= 0 && m->stack && q->curmod < m->stack->num) {
		mod = m->stack->mod[q->curmod]->name;
		st = q->ext_state[q->curmod];
	}
	if(st != MODULE_WAIT_SUBQUERY || !s->subs) {
		snprintf(buf, len, "%s is %s", mod, ext_state_name(st));
		return;
	}
	at = (size_t)snprintf(buf, len, "%s wants", mod);
	for(r = s->subs; r && at < len; r = r->next) {
		char nm[DNS_MAX_NAME_STR], tb[32];
		(void)dname_to_str(r->s->qname, nm, sizeof(nm));
		at += (size_t)snprintf(buf + at, len - at, " %s %s %s",
			dns_type_str(r->s->qtype, tb, sizeof(tb)),
			dns_class_str(r->s->qclass), nm);
	}
}

/** dump_requestlist in a worker: Unbound's header and rows (number,
 * type, class, name, seconds a client waits or "-" for a query no
 * client waits for, module status) */
static void
worker_dump_requestlist(struct worker *w, struct stats_buf *out)
{
	struct mesh_state *s;
	const struct timeval *now = w->base ? comm_base_now(w->base) : NULL;
	int i = 0;
	stats_buf_printf(out, "thread #%d\n"
		"#   type cl name    seconds    module status\n", w->index);
	if(!w->res || !w->res->mesh)
		return;
	for(s = w->res->mesh->first; s; s = s->next, i++) {
		char nm[DNS_MAX_NAME_STR], tb[32], tm[48], st[1024];
		(void)dname_to_str(s->qname, nm, sizeof(nm));
		if(now && s->num_clients > 0) {
			long long sec = (long long)now->tv_sec -
				(long long)s->start.tv_sec;
			long usec = (long)now->tv_usec - (long)s->start.tv_usec;
			if(usec < 0) {
				usec += 1000000;
				sec--;
			}
			if(sec < 0)
				sec = usec = 0;
			snprintf(tm, sizeof(tm), "%lld.%6.6ld", sec, usec);
		} else	snprintf(tm, sizeof(tm), "-");
		requestlist_status(w->res->mesh, s, st, sizeof(st));
		stats_buf_printf(out, "%3d %4s %2s %s %s %s\n", i,
			dns_type_str(s->qtype, tb, sizeof(tb)),
			dns_class_str(s->qclass), nm, tm, st);
	}
}

/** a request of the module that keeps a key cache (the validator), when
 * the stack has one: flushed where Unbound's commands flush it.
 * @param what: MODULE_CTL_FLUSH_* or MODULE_CTL_KEY_COUNT.
 * @param name: the name of MODULE_CTL_FLUSH_KEYS, or NULL; below its
 *	flag.
 * @return the count of the request, 0 when no module answers */
static size_t
worker_key_ctl(struct worker *w, enum module_ctl what,
	const uint8_t *name, int below)
{
	struct module_ctl_arg c;
	if(!w->res)
		return 0;
	memset(&c, 0, sizeof(c));
	c.name = name;
	c.all = below;
	if(modstack_control(w->res->stack, &w->res->menv, what, &c) != 1)
		return 0;
	return c.count;
}

/** flush commands in a worker; replies "rrsets messages\n" */
static int
worker_flush(struct worker *w, const char *cmd, char *args,
	struct stats_buf *out, char *err, size_t errlen)
{
	struct daemon_env *env = w->env;
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl, nr = 0, nm = 0, nk = 0;
	char *rest, *a1;
	a1 = remote_next_word(args, &rest);
	if(strcmp(cmd, "flush_negative") == 0) {
		if(env->msg)
			nm = mcache_flush_negative(env->msg);
		nk = worker_key_ctl(w, MODULE_CTL_FLUSH_BAD_KEYS, NULL, 0);
	} else if(strcmp(cmd, "flush_bogus") == 0) {
		if(env->msg)
			nm = mcache_flush_bogus(env->msg);
		nk = worker_key_ctl(w, MODULE_CTL_FLUSH_BOGUS, NULL, 0);
	} else if(strcmp(cmd, "flush_all") == 0) {
		if(env->msg) {
			nm = mcache_get_count(env->msg);
			mcache_flush_all(env->msg);
		}
		if(env->rrset) {
			nr = rrset_cache_get_count(env->rrset);
			rrset_cache_flush_all(env->rrset);
		}
	} else if(strcmp(cmd, "flush_infra") == 0) {
		struct netaddr a;
		const char *e = NULL;
		if(!a1[0] || rest[0]) {
			snprintf(err, errlen, "expected: flush_infra all|IP");
			return -1;
		}
		if(strcmp(a1, "all") == 0) {
			if(env->infra) {
				nr = infra_get_count(env->infra);
				infra_flush_all(env->infra);
			}
		} else if(netaddr_parse(a1, 53, &a, &e) != 0) {
			snprintf(err, errlen, "bad address '%s'", a1);
			return -1;
		} else if(env->infra)
			nr = infra_flush_addr(env->infra, &a);
	} else {
		if(remote_parse_name(a1, name, &nl) != 0) {
			snprintf(err, errlen, "bad or missing name '%s'", a1);
			return -1;
		}
		if(strcmp(cmd, "flush") == 0) {
			if(rest[0]) {
				snprintf(err, errlen, "expected: flush name");
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_name(env->msg, name);
			if(env->rrset)
				nr = rrset_cache_flush_name(env->rrset, name);
		} else if(strcmp(cmd, "flush_zone") == 0) {
			if(rest[0]) {
				snprintf(err, errlen, "expected: flush_zone name");
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_zone(env->msg, name);
			if(env->rrset)
				nr = rrset_cache_flush_zone(env->rrset, name);
			nk = worker_key_ctl(w, MODULE_CTL_FLUSH_KEYS, name,
				1);
		} else {	/* flush_type */
			char *t = remote_next_word(rest, &rest);
			int ty = dns_type_from_str(t);
			if(!t[0] || rest[0] || ty < 0) {
				snprintf(err, errlen, "bad or missing type '%s'",
					t);
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_type(env->msg, name,
					(uint16_t)ty, DNS_CLASS_IN);
			if(env->rrset)
				nr = rrset_cache_flush_type(env->rrset, name,
					(uint16_t)ty, DNS_CLASS_IN);
			/* the zone's keys go with its DNSKEY set, so that
			 * they are fetched and validated again */
			if(ty == DNS_TYPE_DNSKEY)
				nk = worker_key_ctl(w, MODULE_CTL_FLUSH_KEYS,
					name, 0);
		}
	}
	stats_buf_printf(out, "%zu %zu %zu\n", nr, nm, nk);
	return 0;
}

/** list_insecure: the text of the list (module_ctl_arg.text) */
static void
insecure_text_cb(void *arg, const char *text, size_t len)
{
	stats_buf_append((struct stats_buf *)arg, text, len);
}

/** insecure_add, insecure_remove, list_insecure in a worker (the
 * validator's negative trust anchors added at run time) */
static void
worker_insecure(struct worker *w, const char *cmd, char *args,
	struct stats_buf *out)
{
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl;
	char *rest, *a1 = remote_next_word(args, &rest);
	struct module_ctl_arg c;
	if(!w->res || modstack_control_find(w->res->stack,
		MODULE_CTL_INSECURE_LIST) < 0) {
		/* the name of the module with the negative trust anchors:
		 * the one that validates */
		stats_buf_printf(out, "error the %s is not in "
			"module-config\n", modstack_cap_name(
			MODSTACK_CAP_DNSSEC));
		return;
	}
	memset(&c, 0, sizeof(c));
	if(strcmp(cmd, "list_insecure") == 0) {
		c.text = insecure_text_cb;
		c.cbarg = out;
		(void)modstack_control(w->res->stack, &w->res->menv,
			MODULE_CTL_INSECURE_LIST, &c);
		return;
	}
	if(remote_parse_name(a1, name, &nl) != 0 || rest[0]) {
		stats_buf_printf(out, "error expected: %s name\n", cmd);
		return;
	}
	c.name = name;
	if(strcmp(cmd, "insecure_add") == 0) {
		if(modstack_control(w->res->stack, &w->res->menv,
			MODULE_CTL_INSECURE_ADD, &c) < 0)
			stats_buf_printf(out, "error too many (at most %zu)\n",
				c.count);
		else	stats_buf_printf(out, "1 0\n");
	} else {
		(void)modstack_control(w->res->stack, &w->res->menv,
			MODULE_CTL_INSECURE_REMOVE, &c);
		stats_buf_printf(out, "%zu 0\n", c.count);
	}
}

/** run one worker command; the reply goes to out */
static void
worker_exec(struct worker *w, char *line, char *payload, size_t plen,
	struct stats_buf *out)
{
	char err[512], *args, *cmd = remote_next_word(line, &args);
	err[0] = 0;
	if(strcmp(cmd, "stats_get") == 0) {
		struct stats_info si;
		stats_collect(w, &si, atoi(args));
		if(w->env->msg) {
			si.mem_msg = mcache_get_mem(w->env->msg);
			si.msg_count = mcache_get_count(w->env->msg);
		}
		if(w->env->rrset) {
			si.mem_rrset = rrset_cache_get_mem(w->env->rrset);
			si.rrset_count = rrset_cache_get_count(w->env->rrset);
		}
		if(w->env->infra) {
			struct stats_infra_arg ia;
			ia.u = &si.upstream;
			ia.now = worker_now(w);
			si.infra_count = infra_get_count(w->env->infra);
			infra_traverse(w->env->infra, stats_infra_cb, &ia);
		}
		si.key_count = worker_key_ctl(w, MODULE_CTL_KEY_COUNT,
			NULL, 0);
		stats_buf_append(out, &si, sizeof(si));
	} else if(strncmp(cmd, "flush", 5) == 0 &&
		strcmp(cmd, "flush_requestlist") != 0) {
		if(worker_flush(w, cmd, args, out, err, sizeof(err)) != 0)
			stats_buf_printf(out, "error %s\n", err);
	} else if(strcmp(cmd, "insecure_add") == 0 ||
		strcmp(cmd, "insecure_remove") == 0 ||
		strcmp(cmd, "list_insecure") == 0) {
		worker_insecure(w, cmd, args, out);
	} else if(strcmp(cmd, "flush_requestlist") == 0) {
		stats_buf_printf(out, "0 %zu\n", worker_flush_requestlist(w));
	} else if(strcmp(cmd, "dump_requestlist") == 0) {
		worker_dump_requestlist(w, out);
	} else if(strcmp(cmd, "dump_cache") == 0) {
		worker_dump_cache(w, out);
	} else if(strcmp(cmd, "lookup") == 0) {
		/* a shared cache is shown once, by worker 0 (remote.c asks
		 * worker 0 only) */
		worker_lookup(w, args, payload, out);
	} else if(strcmp(cmd, "cache_lookup") == 0) {
		struct lookup_arg a;
		uint8_t name[DNS_MAX_NAME + 1];
		size_t nl;
		time_t now = worker_now(w);
		if(remote_parse_name(args, name, &nl) != 0) {
			stats_buf_printf(out, "error bad name '%s'\n", args);
			return;
		}
		a.out = out;
		a.only = name;
		if(w->env->shc && w->index != 0)
			return; /* a shared cache is shown once, by worker 0 */
		if(w->env->msg)
			(void)mcache_traverse(w->env->msg, now, lookup_msg_cb,
				&a);
		if(w->env->rrset)
			(void)rrset_cache_traverse(w->env->rrset, now,
				lookup_rrset_cb, &a);
	} else if(strcmp(cmd, "load_cache") == 0) {
		if(payload)
			worker_load_cache(w, payload, plen, out);
		else	stats_buf_printf(out, "0 0 0\n");
	} else if(strcmp(cmd, "dump_infra") == 0) {
		worker_dump_infra(w, out);
	} else if(strcmp(cmd, "list_auth_zones") == 0) {
		char *buf = malloc(65536);
		if(!buf) {
			stats_buf_printf(out, "error out of memory\n");
			return;
		}
		(void)auth_zones_list(w->env->authz, buf, 65536);
		if(strcmp(args, "+ub") == 0) {
			/* unbound-control's lines: "name<TAB>serial N" (or
			 * "no serial") */
			char *ln = buf, *nl;
			for(; *ln; ln = nl) {
				char *tab = strchr(ln, '\t');
				int64_t sn;
				if(!(nl = strchr(ln, '\n')))
					nl = ln + strlen(ln);
				else	*nl++ = 0;
				if(tab)
					*tab = 0;
				sn = auth_zones_serial(w->env->authz, ln);
				if(sn < 0)
					stats_buf_printf(out, "%s\tno serial\n",
						ln);
				else	stats_buf_printf(out, "%s\tserial %u\n",
						ln, (unsigned)sn);
			}
		} else	stats_buf_printf(out, "%s", buf);
		free(buf);
	} else if(strcmp(cmd, "auth_zone_reload") == 0 ||
		strcmp(cmd, "auth_zone_transfer") == 0) {
		/* (auth_zone_transfer also wakes an rpz zone's transfer) */
		int r = cmd[10] == 'r' ? auth_zones_reload(w->env->authz, args,
			err, sizeof(err)) : policy_rpz_transfer(w->env->pol,
			args) ? 0 : auth_zones_transfer(w->env->authz, args, err,
			sizeof(err));
		if(r != 0)
			stats_buf_printf(out, "error %s\n", err);
		else	stats_buf_printf(out, "ok\n");
	} else if(worker_rate_list(w, cmd, args, out)) {
		/* ratelimit_list, ip_ratelimit_list: printed */
	} else if(strcmp(cmd, "verbosity") == 0) {
		log_set_verbosity(atoi(args));
		stats_buf_printf(out, "ok\n");
	} else if((strcmp(cmd, "add_cookie_secret") == 0 ||
		strcmp(cmd, "activate_cookie_secret") == 0 ||
		strcmp(cmd, "drop_cookie_secret") == 0) && w->env->cookies) {
		/* fork: this child's copy of the secrets (the supervisor
		 * wrote the file and checked the secret) */
		uint8_t sec[COOKIE_SECRET_LEN];
		enum cookie_secrets_op op = cmd[0] == 'a' && cmd[1] == 'd' ?
			COOKIE_OP_ADD : cmd[0] == 'a' ? COOKIE_OP_ACTIVATE :
			COOKIE_OP_DROP;
		if(op == COOKIE_OP_ADD && cookie_secret_parse(args, sec) != 0)
			stats_buf_printf(out, "error bad secret\n");
		else if(cookie_secrets_change(w->env->cookies, op, sec, 0, err,
			sizeof(err)) != 0)
			stats_buf_printf(out, "%s\n", err);
		else	stats_buf_printf(out, "ok\n");
		memset(sec, 0, sizeof(sec));
	} else if(strcmp(cmd, "rpz_enable") == 0 ||
		strcmp(cmd, "rpz_disable") == 0) {
		/* fork: this child's copy of the zones */
		struct rpz *z = policy_rpz_find(w->env->pol, args);
		if(z)
			rpz_set_enabled(z, cmd[4] == 'e');
		stats_buf_printf(out, z ? "ok\n" : "error no such rpz\n");
	} else if(strcmp(cmd, "cfg") == 0 && w->daemon->is_child) {
		/* fork: apply the same config change and reload on it */
		char *sub, *subargs;
		struct config_file *ncfg = config_dup(w->daemon->cfg);
		sub = remote_next_word(args, &subargs);
		if(payload && remote_cfg_bulk_single(sub))
			subargs = payload;
		if(!ncfg || remote_cfg_change(ncfg, sub, subargs, err,
			sizeof(err)) != 0) {
			config_delete(ncfg);
			stats_buf_printf(out, "error %s\n", err[0] ? err :
				"out of memory");
			return;
		}
		config_delete(w->next_cfg);
		w->next_cfg = ncfg;
		w->cmd = 'R';
		comm_base_exit(w->base);
		stats_buf_printf(out, "ok\n");
	} else
		stats_buf_printf(out, "error unknown worker command '%s'\n",
			cmd);
}

void
remote_worker_cmd(struct worker *w, int fd)
{
	uint32_t len, hdr[2];
	char *frame = NULL;
	struct stats_buf out;
	size_t ll;
	int wfd = w->stat_pipe[1];
	memset(&out, 0, sizeof(out));
	if(remote_fd_read_all(fd, &len, sizeof(len), REMOTE_WORKER_TIMEOUT_MS) != 0 ||
		len == 0 || len > REMOTE_FRAME_MAX) {
		verbose(VERB_OPS, "worker %d: bad control frame", w->index);
		return;
	}
	frame = malloc((size_t)len + 1);
	if(!frame || remote_fd_read_all(fd, frame, len, REMOTE_WORKER_TIMEOUT_MS)
		!= 0) {
		free(frame);
		verbose(VERB_OPS, "worker %d: short control frame", w->index);
		return;
	}
	frame[len] = 0;
	ll = strnlen(frame, len);
	worker_exec(w, frame, ll < len ? frame + ll + 1 : NULL,
		ll < len ? len - ll - 1 : 0, &out);
	free(frame);
	if(out.oom) {
		stats_buf_free(&out);
		stats_buf_printf(&out, "error out of memory\n");
	}
	if(wfd == -1) {
		stats_buf_free(&out);
		return;
	}
	hdr[0] = REMOTE_MAGIC;
	hdr[1] = (uint32_t)out.len;
	(void)remote_fd_nonblock(wfd, 1);
	if(remote_fd_write_all(wfd, hdr, sizeof(hdr), REMOTE_WORKER_TIMEOUT_MS) != 0 ||
		remote_fd_write_all(wfd, out.data ? out.data : "", out.len,
		REMOTE_WORKER_TIMEOUT_MS) != 0)
		verbose(VERB_OPS, "worker %d: cannot write the control reply",
			w->index);
	stats_buf_free(&out);
}
