/*
 * daemon/worker.c - one worker. See worker.h.
 *
 * The query path: the comm_point calls worker_query_cb for each datagram
 * (or TCP message); it hands the packet to the resolver front end, which
 * answers at once (cache, local zone, error: the answer is written in
 * place and sent with the rest of the batch) or later through
 * worker_reply_cb, which sends through the saved reply address. Nothing
 * here allocates or logs per query.
 */
#include "config.h"
#include <stdarg.h>
#include <syslog.h>
#include "daemon/worker.h"
#include "daemon/daemon.h"
#include "daemon/env.h"
#include "daemon/remote.h"
#include "daemon/remote_worker.h"
#include "daemon/stats.h"
#include "xdp/xdp_sock.h"
#include "xdp/xdp_frame.h"
#include "services/authzone.h"
#include "front/resolver.h"
#include "front/policy.h"
#include "front/acl.h"
#include "services/outside_network.h"
#include "services/cache/shcache.h"
#include "util/config_file.h"
#include "util/dnstap.h"
#include "util/netevent/dnstap_tls.h"
#include "util/netevent/proxy_protocol.h"
#include "util/log.h"
#include "util/random.h"
#include "util/storage/qsbr.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the reply address must fit in the resolver's opaque handle */
typedef char worker_handle_fits[sizeof(struct comm_reply_addr) <=
	RESOLVER_HANDLE_SIZE ? 1 : -1];

struct worker *
worker_create(struct daemon *d, int index, struct daemon_env *env)
{
	struct worker *w = calloc(1, sizeof(*w));
	if(!w) {
		log_err("out of memory");
		return NULL;
	}
	w->index = index;
	w->daemon = d;
	w->env = env;
	w->stat_pipe[0] = w->stat_pipe[1] = -1;
	w->zmd_pipe[0] = w->zmd_pipe[1] = -1;
	w->reader_id = -1;
	if(pipe(w->cmd_pipe) != 0) {
		log_warn("pipe for worker %d", index);
		free(w);
		return NULL;
	}
	(void)fcntl(w->cmd_pipe[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(w->cmd_pipe[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(w->cmd_pipe[1], F_SETFD, FD_CLOEXEC);
	if(!d->is_child) {
		/* threads: the reply pipe for control commands (a fork
		 * child gets the parent's statistics pipe instead) */
		if(pipe(w->stat_pipe) != 0) {
			log_warn("pipe for worker %d", index);
			w->stat_pipe[0] = w->stat_pipe[1] = -1;
			worker_delete(w);
			return NULL;
		}
		(void)fcntl(w->stat_pipe[0], F_SETFD, FD_CLOEXEC);
		(void)fcntl(w->stat_pipe[1], F_SETFD, FD_CLOEXEC);
		(void)fcntl(w->stat_pipe[1], F_SETFL, O_NONBLOCK);
	}
	w->rnd = random_create();
	if(!w->rnd) {
		worker_delete(w);
		return NULL;
	}
	return w;
}

void
worker_delete(struct worker *w)
{
	if(!w)
		return;
	if(w->cmd_pipe[0] != -1)
		close(w->cmd_pipe[0]);
	if(w->cmd_pipe[1] != -1)
		close(w->cmd_pipe[1]);
	if(w->stat_pipe[1] != -1)
		close(w->stat_pipe[1]);
	if(w->stat_pipe[0] != -1)
		close(w->stat_pipe[0]);
	config_delete(w->next_cfg);
	random_delete(w->rnd);
	free(w);
}

int
worker_send_cmd(struct worker *w, char cmd)
{
	if(w->cmd_pipe[1] == -1 || write(w->cmd_pipe[1], &cmd, 1) != 1)
		return -1;
	return 0;
}

/** count an answer's rcode (extended statistics; NOERROR without answer
 * records is also counted as nodata) */
static void
worker_count_rcode(struct worker *w, const uint8_t *pkt, size_t len)
{
	if(len < 12)
		return;
	w->res->stats.ans_rcode[pkt[3] & 0xf]++;
	if((pkt[3] & 0xf) == 0 && pkt[6] == 0 && pkt[7] == 0)
		w->res->stats.ans_rcode[16]++;
}

/** log one line with the type word given (log-tag-queryreply) */
static void
log_tagged(const char *type, const char *format, ...)
	PETREL_ATTR_FORMAT(2, 3);

/** log one line with the type word given (log-tag-queryreply) */
static void
log_tagged(const char *type, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_INFO, type, format, args);
	va_end(args);
}

/**
 * log-queries / log-replies: one line per query or answer, as Unbound
 * prints them: "127.0.0.1 www.example.com. A IN" for a query; for an
 * answer also the rcode, the seconds it took (microseconds), 1 when it
 * came straight from the cache or a local zone (0 after recursion) and
 * its size. The line is an 'info' line, or with log-tag-queryreply a
 * 'query' or 'reply' line. Only called when the option is on.
 * @param w: the worker (its settings and clock).
 * @param is_reply: 1 for an answer, 0 for a query.
 * @param client: the client's address.
 * @param pkt: the query or the answer.
 * @param len: its length.
 * @param start: when the query came in (answers), or NULL for now.
 * @param dest: log-destaddr's " on udp 127.0.0.1 53" to end the line
 *	with, or "".
 */
static void
log_packet(struct worker *w, int is_reply, const struct netaddr *client,
	const uint8_t *pkt, size_t len, const struct timeval *start,
	const char *dest)
{
	char addr[NETADDR_STRLEN], name[DNS_MAX_NAME_STR], type[16];
	uint8_t qname[DNS_MAX_NAME + 8];
	size_t pos = DNS_HDR_SIZE, qlen = 0;
	uint16_t qtype, qclass;
	const char *tag = !w->log_tag ? "info" : is_reply ? "reply" : "query";
	char *at;
	/* the address alone, as Unbound prints it */
	netaddr_str(client, 0, addr, sizeof(addr));
	if((at = strchr(addr, '@')) != NULL)
		*at = 0;
	/* the question, read the same way for queries and replies */
	if(len < DNS_HDR_SIZE || pkt[4] != 0 || pkt[5] != 1 ||
		dname_pkt_read(pkt, len, &pos, qname, &qlen) != 0 ||
		pos + 4 > len) {
		log_tagged(tag, "%s (no question) %zu%s", addr, len, dest);
		return;
	}
	qtype = (uint16_t)(pkt[pos] << 8 | pkt[pos + 1]);
	qclass = (uint16_t)(pkt[pos + 2] << 8 | pkt[pos + 3]);
	if(dname_to_str(qname, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "(unprintable)");
	if(is_reply) {
		long long sec = 0;
		long usec = 0;
		if(start) {
			const struct timeval *now = comm_base_now(w->base);
			sec = (long long)(now->tv_sec - start->tv_sec);
			usec = (long)(now->tv_usec - start->tv_usec);
			if(usec < 0) {
				usec += 1000000;
				sec--;
			}
			if(sec < 0)
				sec = usec = 0;
		}
		log_tagged(tag, "%s %s %s %s %s %lld.%6.6ld %d %zu%s", addr,
			name, dns_type_str(qtype, type, sizeof(type)),
			dns_class_str(qclass), dns_rcode_str(pkt[3] & 0x0f),
			sec, usec, start ? 0 : 1, len, dest);
	} else
		log_tagged(tag, "%s %s %s %s%s", addr, name,
			dns_type_str(qtype, type, sizeof(type)),
			dns_class_str(qclass), dest);
}

/** the dnstap transport of a client's query: UDP, TCP, or TLS for the
 * TCP points of a tls-port (only looked up with dnstap on) */
static int
worker_dt_proto(struct worker *w, const struct comm_point *c, int is_tcp)
{
	int i;
	if(!is_tcp)
		return DT_UDP;
	for(i = 0; i < w->num_points; i++)
		if(w->tcp[i] == c)
			return w->daemon->ls->ports[i].tls ? DT_DOT : DT_TCP;
	return DT_TCP;
}

/** remember the address listening point i is bound to (interface-view) */
static void
worker_ifaddr(struct worker *w, int i, int fd)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	if(!w->ifaddr || w->ifaddr[i].len)
		return;
	if(getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
		netaddr_from_sockaddr(&w->ifaddr[i], (struct sockaddr *)&ss,
			sl);
}

/** the address a query came to (interface-view), or NULL */
static const struct netaddr *
worker_local_addr(struct worker *w, const struct comm_reply *rep,
	struct netaddr *buf)
{
	int i;
	memset(buf, 0, sizeof(*buf));
	if(rep->local.family == AF_INET) {
		struct sockaddr_in *sa = (struct sockaddr_in *)&buf->addr;
		sa->sin_family = AF_INET;
		sa->sin_addr = rep->local.pi.v4.ipi_addr;
		buf->len = sizeof(*sa);
		return buf;
	}
	if(rep->local.family == AF_INET6) {
		struct sockaddr_in6 *sa = (struct sockaddr_in6 *)&buf->addr;
		sa->sin6_family = AF_INET6;
		sa->sin6_addr = rep->local.pi.v6.ipi6_addr;
		buf->len = sizeof(*sa);
		return buf;
	}
	for(i = 0; i < w->num_points; i++)
		if(w->udp[i] == rep->c || w->tcp[i] == rep->c)
			return w->ifaddr[i].len ? &w->ifaddr[i] : NULL;
	return NULL;
}

/**
 * log-destaddr: " on TRANSPORT ADDRESS PORT" for a query that came in on
 * point c (udp, tcp, dot or doh), the address it was sent to, into buf;
 * "" when log-destaddr is off.
 */
static const char *
worker_dest_str(struct worker *w, const struct comm_point *c,
	const struct comm_local *local, int is_tcp, char *buf, size_t len)
{
	char a[NETADDR_STRLEN], *at;
	const char *tp = is_tcp ? "tcp" : "udp";
	struct netaddr d;
	int i, port = 0;
	buf[0] = 0;
	if(!w->log_destaddr)
		return buf;
	memset(&d, 0, sizeof(d));
	for(i = 0; i < w->num_points; i++)
		if(w->udp[i] == c || w->tcp[i] == c) {
			const struct listen_port *p = &w->daemon->ls->ports[i];
			if(is_tcp && p->tls)
				tp = "dot";
			else if(is_tcp && p->https)
				tp = "doh";
			if(w->ifaddr)
				d = w->ifaddr[i];
			port = netaddr_port(&p->addr);
			break;
		}
	if(local && local->family == AF_INET) {
		struct sockaddr_in *sa = (struct sockaddr_in *)&d.addr;
		memset(&d, 0, sizeof(d));
		sa->sin_family = AF_INET;
		sa->sin_addr = local->pi.v4.ipi_addr;
		d.len = sizeof(*sa);
	} else if(local && local->family == AF_INET6) {
		struct sockaddr_in6 *sa = (struct sockaddr_in6 *)&d.addr;
		memset(&d, 0, sizeof(d));
		sa->sin6_family = AF_INET6;
		sa->sin6_addr = local->pi.v6.ipi6_addr;
		d.len = sizeof(*sa);
	}
	if(!d.len)
		return buf;
	netaddr_str(&d, 0, a, sizeof(a));
	if((at = strchr(a, '@')) != NULL)
		*at = 0;
	snprintf(buf, len, " on %s %s %d", tp, a, port);
	return buf;
}

/** interface-action: the queries that came in on point c are checked
 * with that point's access-control list */
static void
worker_iface_acl(struct worker *w, const struct comm_point *c)
{
	int i;
	for(i = 0; i < w->num_points; i++)
		if(w->udp[i] == c || w->tcp[i] == c) {
			resolver_set_acl(w->res, w->if_acl[i]);
			return;
		}
	resolver_set_acl(w->res, w->env->acl);
}

/** resolver_handle fill: the reply address of a query that goes to the
 * mesh (arg: its comm_reply, valid during worker_query_cb) */
static void
worker_handle_fill(void *arg, struct resolver_handle *h)
{
	comm_reply_save(arg, (struct comm_reply_addr *)h->data);
	h->len = sizeof(struct comm_reply_addr);
}

/** the per-query callback of the UDP and TCP comm_points */
static int
worker_query_cb(struct comm_reply *rep, void *arg)
{
	struct worker *w = arg;
	struct resolver_handle h;
	struct netaddr local, proxy;
	char dest[NETADDR_STRLEN + 32];
	size_t outlen = 0;
	enum resolver_result r;
	/* the reply address is saved only for a query that waits for the
	 * mesh (a cached answer is sent from rep itself) */
	h.len = 0;
	h.fill = worker_handle_fill;
	h.fill_arg = rep;
	if(w->log_queries)
		log_packet(w, 0, &rep->client, rep->buf, rep->len, NULL,
			worker_dest_str(w, rep->c, &rep->local, rep->is_tcp,
			dest, sizeof(dest)));
	if(w->dtio)
		dt_client_query(w->dtio, &rep->client,
			worker_dt_proto(w, rep->c, rep->is_tcp), rep->buf,
			rep->len);
	if(w->local_views)
		resolver_set_local(w->res, worker_local_addr(w, rep, &local));
	if(w->if_acl)
		worker_iface_acl(w, rep->c);
	if(w->proxied) {
		/* through a PROXY v2 header: the proxy must pass access
		 * control too (rep->peer is the socket's own peer) */
		if(rep->peer.len) {
			netaddr_from_sockaddr(&proxy, &rep->peer.a.sa,
				rep->peer.len);
			resolver_set_proxy(w->res, &proxy);
		} else	resolver_set_proxy(w->res, NULL);
	}
	if(rep->hint)
		r = resolver_handle_peeked(w->res, rep->buf, rep->len,
			&w->peeks[rep->slot], &rep->client, RESOLVER_UDP, &h,
			rep->buf, rep->cap, &outlen);
	else	r = resolver_handle_query(w->res, rep->buf, rep->len,
			&rep->client, rep->is_tcp ? RESOLVER_TCP : RESOLVER_UDP,
			&h, rep->buf, rep->cap, &outlen);
	if(r == RESOLVER_ANSWERED) {
		rep->len = outlen;
		worker_count_rcode(w, rep->buf, outlen);
		if(w->log_replies)
			log_packet(w, 1, &rep->client, rep->buf, outlen, NULL,
				worker_dest_str(w, rep->c, &rep->local,
				rep->is_tcp, dest, sizeof(dest)));
		if(w->dtio)
			dt_client_response(w->dtio, &rep->client,
				worker_dt_proto(w, rep->c, rep->is_tcp),
				rep->buf, outlen);
		return 1;
	}
	return r == RESOLVER_DROP ? -1 : 0;
}

/** xdp-interface: a query that came over AF_XDP (xdp/xdp_sock.h). It
 * goes through worker_query_cb as if the UDP socket of its listening
 * point had received it from the client, so it meets the same access
 * control, rate limits, local zones, cache, counters, logs and dnstap,
 * and a query that goes to the mesh is answered later through that
 * socket. An answer given at once goes back in the frame when it fits
 * the frame and the MTU, else through the socket (the kernel fragments
 * it, as for any UDP answer). Where the frame has room for max-udp-size
 * bytes (an MTU of 1500 and the default 1232) the query is answered in
 * the frame itself, with no copy either way. */
static size_t
worker_xdp_cb(void *arg, const struct xdp_query *q)
{
	struct worker *w = arg;
	struct comm_reply rep;
	struct comm_reply_addr ra;
	if(q->point >= w->num_points || !w->udp[q->point] ||
		q->len > w->xdp_cap)
		return 0;
	/* the members worker_query_cb and comm_reply_save read */
	rep.c = w->udp[q->point];
	rep.peer.len = 0;
	rep.local.family = 0;
	rep.conn = NULL;
	rep.gen = 0;
	rep.is_tcp = 0;
	rep.pad = 0;
	rep.hint = 0;
	rep.slot = 0;
	rep.stream = 0;
	if(q->room >= w->xdp_cap) {
		/* the frame holds the largest answer the UDP path may give
		 * (max-udp-size): answered in place, as the socket path
		 * answers in its receive buffer */
		rep.buf = q->out;
	} else {
		memcpy(w->xdp_buf, q->dns, q->len);
		rep.buf = w->xdp_buf;
	}
	rep.len = q->len;
	rep.cap = w->xdp_cap;
	rep.client = q->fi->src;
	if(q->wildcard) {
		/* the address asked, as IP_PKTINFO gives it to a wildcard
		 * socket: the later answer leaves from it */
		if(q->fi->family == 4) {
			const struct sockaddr_in *d = (const struct sockaddr_in *)
				&q->fi->dst.addr;
			rep.local.family = AF_INET;
			rep.local.pi.v4.ipi_addr = d->sin_addr;
			rep.local.pi.v4.ipi_spec_dst = d->sin_addr;
		} else {
			const struct sockaddr_in6 *d = (const struct
				sockaddr_in6 *)&q->fi->dst.addr;
			rep.local.family = AF_INET6;
			rep.local.pi.v6.ipi6_addr = d->sin6_addr;
		}
	}
	if(worker_query_cb(&rep, w) != 1)
		return 0;
	if(rep.len <= q->room) {
		if(rep.buf != q->out)
			memcpy(q->out, rep.buf, rep.len);
		return rep.len;
	}
	comm_reply_save(&rep, &ra);
	(void)comm_reply_send(&ra, rep.buf, rep.len);
	return 0;
}

/** @return 1 when the listening port p is one of proxy-protocol-port */
static int
worker_proxy_port(const struct listen_port *p, const struct config_file *cfg)
{
	const struct config_strlist *s;
	for(s = cfg->proxy_protocol_ports; s; s = s->next)
		if(atoi(s->str) == (int)netaddr_port(&p->addr))
			return 1;
	return 0;
}

/** make a TCP comm_point serve DNS over HTTPS. @return 0 or -1 */
static int
worker_set_https(struct comm_point *c, const struct listen_port *p,
	const struct listen_set *ls, const struct config_file *cfg)
{
	struct comm_http_settings hs;
	if(!cfg->http_notls_downstream) {
		if(!ls->https_server) {
			log_err("%s: DNS over HTTPS without a TLS context",
				p->name);
			return -1;
		}
		if(comm_point_set_tls(c, ls->https_server) == -1)
			return -1;
	}
	if(comm_point_set_tls_padding(c, cfg->pad_responses ?
		cfg->pad_responses_block_size : 0) == -1)
		return -1;
	memset(&hs, 0, sizeof(hs));
	hs.endpoint = cfg->http_endpoint;
	hs.max_streams = cfg->http_max_streams;
	hs.query_buffer = cfg->http_query_buffer_size;
	hs.response_buffer = cfg->http_response_buffer_size;
	hs.nodelay = cfg->http_nodelay;
	return comm_point_set_http(c, &hs);
}

/** the UDP batch peek: parse the batch's queries and warm the message
 * cache for them; rep->hint says the parse is in w->peeks[rep->slot] */
static void
worker_peek_cb(struct comm_reply *rep, int stage, void *arg)
{
	struct worker *w = arg;
	resolver_prefetch(w->res, rep->buf, rep->len, &w->peeks[rep->slot],
		stage);
	rep->hint = 1;
}

/** an answer after recursion: send it through the saved address */
static void
worker_reply_cb(void *arg, const struct resolver_handle *h,
	const uint8_t *pkt, size_t len)
{
	struct comm_reply_addr ra;
	struct worker *w = arg;
	if(!pkt)
		return;
	if(w->res)
		worker_count_rcode(w, pkt, len);
	memcpy(&ra, h->data, sizeof(ra));
	if(w->log_replies) {
		char dest[NETADDR_STRLEN + 32];
		log_packet(w, 1, &ra.client, pkt, len, w->res ?
			&w->res->reply_start : NULL, worker_dest_str(w, ra.c,
			&ra.local, ra.is_tcp, dest, sizeof(dest)));
	}
	if(w->dtio)
		dt_client_response(w->dtio, &ra.client,
			worker_dt_proto(w, ra.c, ra.is_tcp), pkt, len);
	(void)comm_reply_send(&ra, pkt, len);
}

/** add the outside network's counters since the last reset */
static void
add_outnet_stats(struct worker *w, struct worker_stats *s, int reset)
{
	const struct outside_network_stats *o;
	if(!w->outnet)
		return;
	o = outside_network_get_stats(w->outnet);
	s->num_unwanted_replies += o->unwanted - w->outnet_base.unwanted;
	s->num_udpout += o->udp_sent - w->outnet_base.udp_sent;
	s->num_tcpout += o->tcp_sent - w->outnet_base.tcp_sent;
	if(reset)
		w->outnet_base = *o;
}

/** sum comm_point counters */
static void
add_point_stats(struct worker *w, struct worker_stats *s, int reset)
{
	int i;
	for(i = 0; i < w->num_points; i++) {
		if(w->udp && w->udp[i]) {
			const struct comm_point_stats *us =
				comm_point_get_stats(w->udp[i]);
			s->udp_batches += us->batches;
			s->num_queries_timed_out += us->queue_timeouts;
			s->num_proxy_errors += us->proxy_errors;
			if(us->queue_wait_max_us > s->queue_wait_max_us)
				s->queue_wait_max_us = us->queue_wait_max_us;
			if(reset)
				comm_point_clear_stats(w->udp[i]);
		}
		if(w->tcp && w->tcp[i]) {
			const struct comm_point_stats *cs =
				comm_point_get_stats(w->tcp[i]);
			struct comm_http_stats hs;
			comm_point_get_http_stats(w->tcp[i], &hs);
			s->num_tcp += cs->pkts_in;
			s->num_tls += cs->tls_queries;
			s->num_tls_resume += cs->tls_resume_queries;
			s->num_https += hs.queries;
			s->num_proxy_errors += cs->proxy_errors;
			if(reset)
				comm_point_clear_stats(w->tcp[i]);
		}
	}
}

/** add the AF_XDP queues' counters (they count from the last reset) */
static void
add_xdp_stats(struct worker *w, struct worker_stats *s, int reset)
{
	struct xdp_stats xs;
	if(!w->xdp)
		return;
	memset(&xs, 0, sizeof(xs));
	xdp_worker_stats(w->xdp, &xs, reset);
	s->num_xdp_answers += xs.answers;
	s->num_xdp_passed += xs.passed;
	s->num_xdp_invalid += xs.invalid;
	s->num_xdp_tx_full += xs.tx_full;
}

/** microseconds since the counters were last reset (time.elapsed is
 * printed with microseconds, as Unbound's: a reset a moment ago is not 0,
 * which the munin plugin takes for "no data") */
static uint64_t
worker_usec_since(struct worker *w)
{
	const struct timeval *now = comm_base_now(w->base);
	long long us = (long long)(now->tv_sec - w->stats_since.tv_sec) *
		1000000 + (now->tv_usec - w->stats_since.tv_usec);
	return us > 0 ? (uint64_t)us : 0;
}

void
worker_counters_save(const struct worker *w, struct worker_counters *kc)
{
	kc->total = w->total;
	kc->ext_total = w->ext_total;
	kc->carry_s = w->carry_s;
	kc->carry_r = w->carry_r;
	kc->since = w->stats_since;
}

void
worker_counters_restore(struct worker *w, const struct worker_counters *kc)
{
	w->total = kc->total;
	w->ext_total = kc->ext_total;
	w->carry_s = kc->carry_s;
	w->carry_r = kc->carry_r;
	w->stats_since = kc->since;
}

void
worker_get_stats(struct worker *w, struct worker_stats *out,
	struct resolver_stats *rout, int reset)
{
	*out = w->total;
	*rout = w->ext_total;
	if(w->res)
		stats_add_resolver(rout, &w->res->stats);
	add_point_stats(w, out, reset);
	add_outnet_stats(w, out, reset);
	add_xdp_stats(w, out, reset);
	out->elapsed = worker_usec_since(w);
	if(reset) {
		stats_add_worker(&w->carry_s, out);
		stats_add_resolver(&w->carry_r, rout);
		memset(&w->total, 0, sizeof(w->total));
		memset(&w->ext_total, 0, sizeof(w->ext_total));
		if(w->res)
			memset(&w->res->stats, 0, sizeof(w->res->stats));
		w->stats_since = *comm_base_now(w->base);
	}
}

void
worker_log_stats(struct worker *w, const struct worker_stats *s,
	const struct resolver_stats *r)
{
	log_info("server stats for thread %d: %llu queries, %llu answers from "
		"cache, %llu recursions, %llu prefetch, %llu local, %llu tcp, "
		"%llu malformed, %llu denied, %llu dropped, %llu servfail, "
		"%llu outgoing, %llu udp batches", w->index,
		(unsigned long long)r->num_queries,
		(unsigned long long)r->num_cache_hits,
		(unsigned long long)r->num_cache_miss,
		(unsigned long long)r->num_prefetch,
		(unsigned long long)r->num_local,
		(unsigned long long)s->num_tcp,
		(unsigned long long)r->num_malformed,
		(unsigned long long)r->num_acl_denied,
		(unsigned long long)r->num_dropped,
		(unsigned long long)r->num_servfail,
		(unsigned long long)r->num_outgoing,
		(unsigned long long)s->udp_batches);
}

/** statistics-interval timer */
static void
stat_timer_cb(void *arg)
{
	struct worker *w = arg;
	struct worker_stats s;
	struct resolver_stats r;
	int cumulative = w->env->cfg->statistics_cumulative;
	worker_get_stats(w, &s, &r, !cumulative);
	worker_log_stats(w, &s, &r);
	comm_timer_set(w->stat_timer, w->env->cfg->statistics_interval * 1000);
}

/** a command from the supervisor */
static void
cmd_cb(int fd, void *arg)
{
	struct worker *w = arg;
	char c;
	ssize_t n = read(fd, &c, 1);
	if(n == 0) {
		/* the supervisor is gone: stop */
		w->cmd = 'S';
		comm_base_exit(w->base);
		return;
	}
	if(n < 0)
		return;
	switch(c) {
	case 'S':
	case 'R':
		w->cmd = c;
		comm_base_exit(w->base);
		break;
	case 'L':
		if(w->daemon->is_child && log_reopen() != 0)
			log_warn("cannot reopen the log file");
		break;
	case 'T':
		if(w->stat_pipe[1] != -1) {
			struct worker_stats s;
			struct resolver_stats r;
			worker_get_stats(w, &s, &r, 0);
			if(write(w->stat_pipe[1], &s, sizeof(s)) != (ssize_t)sizeof(s))
				verbose(VERB_OPS, "worker %d: cannot write "
					"statistics", w->index);
		}
		break;
	case 'C':
		remote_worker_cmd(w, fd);
		break;
	default:
		verbose(VERB_OPS, "worker %d: unknown command %d", w->index, c);
	}
}

/** the unwanted-reply threshold was passed: defensive action */
static void
unwanted_cb(void *arg)
{
	struct worker *w = arg;
	log_warnx("worker %d: unwanted-reply-threshold of %d passed: possible "
		"poisoning attempt; clearing the caches as a defence", w->index,
		w->env->cfg->unwanted_reply_threshold);
	env_clear_caches(w->env);
}

/** qsbr idle hooks */
static void
idle_before_wait(void *arg)
{
	struct qsbr_reader *r = arg;
	qsbr_offline(r);
}

static void
idle_after_wake(void *arg)
{
	struct qsbr_reader *r = arg;
	qsbr_online(r);
}

/** a forked worker's SIGTERM or SIGINT (sent to the whole process group,
 * as systemd and kill(1) on a group do): stop as for the supervisor's
 * 'S', through teardown, so that what the worker holds (its dnstap
 * queue, its connections) is finished rather than cut off */
static void
child_signal_cb(int sig, void *arg)
{
	struct worker *w = arg;
	(void)sig;
	w->cmd = 'S';
	comm_base_exit(w->base);
}

static void worker_zmd_close(struct worker *w);

/** tear down what worker_setup made */
static void
worker_teardown(struct worker *w)
{
	int i;
	struct worker_stats s;
	struct resolver_stats r;
	if(w->base && w->res) {
		/* keep the counters across reloads (the outside network and
		 * the resolver are made anew, counting from 0) */
		worker_get_stats(w, &s, &r, 0);
		w->total = s;
		/* the queues outlive the worker: they count anew */
		add_xdp_stats(w, &s, 1);
		w->ext_total = r;
		memset(&w->res->stats, 0, sizeof(w->res->stats));
		memset(&w->outnet_base, 0, sizeof(w->outnet_base));
	}
	comm_timer_delete(w->stat_timer);
	w->stat_timer = NULL;
	xdp_worker_stop(w->xdp);
	w->xdp = NULL;
	free(w->xdp_buf);
	w->xdp_buf = NULL;
	worker_zmd_close(w);
	resolver_delete(w->res);
	w->res = NULL;
	outside_network_delete(w->outnet);
	w->outnet = NULL;
	w->out = NULL;
	if(w->dtio) {
		uint64_t sent, dropped;
		dt_io_counts(w->dtio, &sent, &dropped);
		if(dropped)
			log_warn("dnstap: worker %d dropped %llu of %llu "
				"messages (no collector, or it was too slow)",
				w->index, (unsigned long long)dropped,
				(unsigned long long)(sent + dropped));
		dt_io_delete(w->dtio);
		w->dtio = NULL;
	}
	for(i = 0; i < w->num_points; i++) {
		if(w->udp)
			comm_point_delete(w->udp[i]);
		if(w->tcp)
			comm_point_delete(w->tcp[i]);
	}
	free(w->udp);
	free(w->tcp);
	free(w->peeks);
	free(w->ifaddr);
	w->ifaddr = NULL;
	free(w->if_acl);
	w->if_acl = NULL;
	w->peeks = NULL;
	w->udp = w->tcp = NULL;
	w->num_points = 0;
	comm_watch_delete(w->cmd_watch);
	w->cmd_watch = NULL;
	comm_signal_delete(w->child_sig);
	w->child_sig = NULL;
	comm_base_delete(w->base);
	w->base = NULL;
}

/** the auth zones want DNSKEY lookups: start them (on the loop) */
static void
zmd_cb(int fd, void *arg)
{
	struct worker *w = arg;
	char buf[64];
	while(read(fd, buf, sizeof(buf)) > 0)
		;
	if(w->res)
		resolver_zonemd_lookups(w->res);
}

/** the auth zones' wake-up (any thread, under the zones' lock): a byte
 * in the pipe; a full pipe already has one */
static void
zmd_wake(void *arg)
{
	struct worker *w = arg;
	char c = 'Z';
	if(write(w->zmd_pipe[1], &c, 1) < 0) {
		/* full (EAGAIN): a wake-up is pending already */
	}
}

/**
 * Offer this worker to the auth zones as the one that starts the DNSKEY
 * lookups of held zones (the first worker on the environment wins).
 */
static void
worker_zmd_open(struct worker *w)
{
	w->zmd_pipe[0] = w->zmd_pipe[1] = -1;
	w->zmd_watch = NULL;
	if(!w->env->authz)
		return;
	if(pipe(w->zmd_pipe) != 0) {
		w->zmd_pipe[0] = w->zmd_pipe[1] = -1;
		return;
	}
	(void)fcntl(w->zmd_pipe[0], F_SETFL, O_NONBLOCK);
	(void)fcntl(w->zmd_pipe[1], F_SETFL, O_NONBLOCK);
	(void)fcntl(w->zmd_pipe[0], F_SETFD, FD_CLOEXEC);
	(void)fcntl(w->zmd_pipe[1], F_SETFD, FD_CLOEXEC);
	w->zmd_az = w->env->authz;
	if(!(w->zmd_watch = comm_watch_create(w->base, w->zmd_pipe[0], zmd_cb,
		w)) || !auth_zones_set_waker(w->zmd_az, zmd_wake, w))
		worker_zmd_close(w);
}

/** withdraw from the auth zones' wake-up and close its pipe */
static void
worker_zmd_close(struct worker *w)
{
	if(w->zmd_pipe[0] == -1)
		return;
	auth_zones_clear_waker(w->zmd_az, w);
	w->zmd_az = NULL;
	comm_watch_delete(w->zmd_watch);
	w->zmd_watch = NULL;
	close(w->zmd_pipe[0]);
	close(w->zmd_pipe[1]);
	w->zmd_pipe[0] = w->zmd_pipe[1] = -1;
}

/** build the loop, the comm_points, the network and the resolver */
static int
worker_setup(struct worker *w, struct qsbr_reader *reader)
{
	struct daemon_env *env = w->env;
	struct config_file *cfg = env->cfg;
	struct listen_set *ls = w->daemon->ls;
	struct outside_network_params op;
	int i;
	w->base = comm_base_create(config_event_backend_str(cfg->event_backend));
	if(!w->base)
		return -1;
	/* a reload keeps counting (time.elapsed too); only the first
	 * set-up starts the clock */
	if(w->stats_since.tv_sec == 0 && w->stats_since.tv_usec == 0)
		w->stats_since = *comm_base_now(w->base);
	w->log_queries = cfg->log_queries;
	w->log_replies = cfg->log_replies;
	w->log_tag = cfg->log_tag_queryreply;
	w->log_destaddr = cfg->log_destaddr;
	if(reader)
		comm_base_set_idle_hooks(w->base, idle_before_wait,
			idle_after_wake, reader);
	else if(w->daemon->is_child && env->shc)
		comm_base_set_idle_hooks(w->base, shcache_hook_before_wait,
			shcache_hook_after_wake, env->shc);
	w->cmd_watch = comm_watch_create(w->base, w->cmd_pipe[0], cmd_cb, w);
	if(!w->cmd_watch)
		return -1;
	if(w->daemon->is_child) {
		w->child_sig = comm_signal_create(w->base, child_signal_cb, w);
		if(!w->child_sig || comm_signal_bind(w->child_sig, SIGTERM) != 0
			|| comm_signal_bind(w->child_sig, SIGINT) != 0)
			return -1;
	}
	w->num_points = ls->num;
	w->udp = calloc((size_t)ls->num + 1, sizeof(*w->udp));
	w->tcp = calloc((size_t)ls->num + 1, sizeof(*w->tcp));
	w->peeks = calloc(NETEVENT_UDP_BATCH_DEFAULT, sizeof(*w->peeks));
	if(!w->udp || !w->tcp || !w->peeks)
		return -1;
	if(policy_has_interface_views(env->pol) || cfg->log_destaddr) {
		w->ifaddr = calloc((size_t)ls->num + 1, sizeof(*w->ifaddr));
		if(!w->ifaddr)
			return -1;
	}
	for(i = 0; i < ls->num; i++) {
		struct listen_port *p = &ls->ports[i];
		int k = ls->per_worker ? w->index : 0;
		int proxy = worker_proxy_port(p, cfg);
		w->proxied |= proxy;
		if(p->udp[k] != -1) {
			struct comm_udp_opts uo;
			int fd = dup(p->udp[k]);
			if(fd == -1) {
				log_warn("dup");
				return -1;
			}
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
			worker_ifaddr(w, i, fd);
			memset(&uo, 0, sizeof(uo));
			uo.proxy = proxy;
			uo.queue_timeout_ms = cfg->sock_queue_timeout > 0 &&
				cfg->sock_queue_timeout < 2000000 ?
				cfg->sock_queue_timeout * 1000 : 0;
			w->udp[i] = comm_point_create_udp_opts(w->base, fd,
				(size_t)(cfg->max_udp_size > 512 ?
				cfg->max_udp_size : 512) +
				(proxy ? PP2_MAX_LEN : 0),
				NETEVENT_UDP_BATCH_DEFAULT, worker_query_cb, w,
				&uo);
			if(!w->udp[i])
				return -1;
			comm_point_set_peek(w->udp[i], worker_peek_cb, 2);
		}
		if(p->tcp[k] != -1) {
			int fd = dup(p->tcp[k]);
			if(fd == -1) {
				log_warn("dup");
				return -1;
			}
			(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
			worker_ifaddr(w, i, fd);
			w->tcp[i] = comm_point_create_tcp(w->base, fd,
				cfg->incoming_num_tcp, cfg->tcp_idle_timeout,
				(size_t)cfg->msg_buffer_size, worker_query_cb,
				w);
			if(!w->tcp[i])
				return -1;
			comm_point_set_tcp_limit(w->tcp[i],
				listen_set_tcp_limit(ls));
			comm_point_set_stream_wait(w->tcp[i],
				cfg->stream_wait_size);
			if(proxy)
				comm_point_set_proxy(w->tcp[i]);
			if(!p->https && cfg->edns_tcp_keepalive &&
				comm_point_set_keepalive(w->tcp[i],
				cfg->edns_tcp_keepalive_timeout) == -1)
				return -1;
			if(p->tls) {
				if(!ls->tls_server) {
					log_err("%s: DNS over TLS without a "
						"TLS context", p->name);
					return -1;
				}
				if(comm_point_set_tls(w->tcp[i],
					ls->tls_server) == -1)
					return -1;
				if(comm_point_set_tls_padding(w->tcp[i],
					cfg->pad_responses ?
					cfg->pad_responses_block_size : 0) == -1)
					return -1;
			}
			if(p->https && worker_set_https(w->tcp[i], p, ls, cfg)
				== -1)
				return -1;
		}
	}
	if(cfg->dnstap_enable) {
		char err[256];
		w->dtio = dt_io_create(cfg, dt_tls_writer_create,
			ls->dnstap_tls, err, sizeof(err));
		if(!w->dtio) {
			log_err("dnstap: %s", err);
			return -1;
		}
	}
	memset(&op, 0, sizeof(op));
	op.outgoing_range = cfg->outgoing_range;
	op.outgoing_num_tcp = cfg->outgoing_num_tcp;
	op.use_caps_for_id = cfg->use_caps_for_id;
	op.caps_exempt = cfg->caps_exempt;
	op.port_rules = cfg->outgoing_ports;
	op.edns_buffer_size = cfg->edns_buffer_size;
	op.do_ip4 = cfg->do_ip4;
	op.do_ip6 = cfg->do_ip6;
	op.unwanted_reply_threshold = cfg->unwanted_reply_threshold;
	op.unwanted_cb = unwanted_cb;
	op.unwanted_arg = w;
	op.rnd = w->rnd;
	op.outgoing_interfaces = cfg->outgoing_interfaces;
	op.forwards = cfg->forwards;
	op.stubs = cfg->stubs;
	op.tls_ctx = ls->tls_client;
	op.tls_use_sni = cfg->tls_use_sni;
	op.tls_pad_block = cfg->pad_queries ? cfg->pad_queries_block_size : 0;
	op.upstream_cookies = cfg->upstream_cookies;
	op.udp_connect = cfg->udp_connect;
	op.delay_close = cfg->delay_close;
	op.tcp_auth_query_timeout = cfg->tcp_auth_query_timeout;
	comm_base_set_out_opts(w->base, cfg->ip_dscp, cfg->outgoing_tcp_mss);
	op.dtio = w->dtio;
	w->outnet = outside_network_create(w->base, &op);
	if(!w->outnet)
		return -1;
	w->out = outside_network_outbound(w->outnet);
	w->res = resolver_create(cfg, &env->mods, w->out, w->rnd,
		worker_reply_cb, w);
	if(!w->res)
		return -1;
	resolver_set_env(w->res, env->msg, env->rrset, env->infra, env->lz,
		env->acl);
	resolver_set_authz(w->res, env->authz);
	if(auth_zones_start(env->authz) != 0)
		log_warn("worker %d: cannot start the zone transfer thread; "
			"auth zones are served from their zone files only",
			w->index);
	resolver_set_ratelimit(w->res, env->ip_rate);
	resolver_set_cookies(w->res, env->cookies);
	resolver_set_base(w->res, w->base);
	resolver_set_policy(w->res, env->pol);
	worker_zmd_open(w);
	if(policy_start(env->pol) != 0)
		log_warn("worker %d: cannot start the zone transfer thread; "
			"rpz zones keep what their zone files gave", w->index);
	w->local_views = policy_has_interface_views(env->pol);
	if(acl_has_interface_actions(env->acl)) {
		w->if_acl = calloc((size_t)ls->num + 1, sizeof(*w->if_acl));
		if(!w->if_acl)
			return -1;
		for(i = 0; i < ls->num; i++)
			w->if_acl[i] = acl_for_interface(env->acl,
				&ls->ports[i].addr);
	}
	resolver_start(w->res, w->index);
	if(ls->xdp) {
		/* the answer buffer of a UDP comm_point, as big */
		w->xdp_cap = (size_t)(cfg->max_udp_size > 512 ?
			cfg->max_udp_size : 512);
		if(!(w->xdp_buf = malloc(w->xdp_cap)))
			return -1;
		w->xdp = xdp_worker_start(ls->xdp, w->index, w->base,
			worker_xdp_cb, w);
	}
	if(cfg->statistics_interval > 0) {
		w->stat_timer = comm_timer_create(w->base, stat_timer_cb, w);
		if(!w->stat_timer)
			return -1;
		comm_timer_set(w->stat_timer, cfg->statistics_interval * 1000);
	}
	return 0;
}

/** fork child: re-read the config and rebuild the environment */
static int
child_reload(struct worker *w)
{
	struct daemon *d = w->daemon;
	struct config_file *ncfg;
	struct daemon_env *nenv;
	char err[1024];
	if(w->next_cfg) {
		/* a control command changed the config: use that copy */
		ncfg = w->next_cfg;
		w->next_cfg = NULL;
	} else if(!(ncfg = config_create()) ||
		config_read(ncfg, d->cfgfile, err, sizeof(err)) != 0) {
		log_err("worker %d: reload refused: %s", w->index,
			ncfg ? err : "out of memory");
		config_delete(ncfg);
		return -1;
	}
	ncfg->thread_model = d->cfg->thread_model;
	ncfg->num_threads = d->cfg->num_threads;
	if(env_keep_shared_cache(w->env, ncfg))
		log_warnx("worker %d: shared-cache settings changed; they "
			"take effect when the supervisor restarts the workers",
			w->index);
	nenv = env_create(ncfg, 1, w->env, err, sizeof(err));
	if(!nenv) {
		log_err("worker %d: reload refused: %s", w->index, err);
		config_delete(ncfg);
		return -1;
	}
	env_delete(w->env);
	config_delete(d->cfg);
	d->cfg = ncfg;
	d->env = nenv;
	w->env = nenv;
	log_set_verbosity(ncfg->verbosity + d->cmdline_verbose);
	return 0;
}

int
worker_main(struct worker *w)
{
	struct qsbr_reader *reader = NULL;
	int rc = 0;
	log_thread_set(w->index);
	if(!w->daemon->is_child) {
		reader = qsbr_register();
		if(!reader) {
			log_err("worker %d: too many cache readers", w->index);
			return -1;
		}
	} else if(w->env->shc && shcache_reader_start(w->env->shc) != 0) {
		log_err("worker %d: too many readers of the shared cache",
			w->index);
		return -1;
	}
	for(;;) {
		w->cmd = 0;
		if(worker_setup(w, reader) != 0) {
			log_err("worker %d: set-up failed", w->index);
			worker_teardown(w);
			rc = -1;
			break;
		}
		if(w->daemon->ready_pipe[1] != -1 &&
			write(w->daemon->ready_pipe[1], "r", 1) != 1)
			verbose(VERB_OPS, "worker %d: cannot report ready",
				w->index);
		verbose(VERB_ALGO, "worker %d running (%s)", w->index,
			comm_base_method(w->base));
		if(comm_base_dispatch(w->base) != 0)
			rc = -1;
		worker_teardown(w);
		if(reader)
			qsbr_quiescent(reader);
		if(rc != 0 || w->cmd != 'R')
			break;
		if(w->daemon->is_child)
			(void)child_reload(w);
		else if(w->next_env) {
			w->env = w->next_env;
			w->next_env = NULL;
		}
	}
	qsbr_unregister(reader);
	if(w->daemon->is_child && w->env->shc)
		shcache_reader_stop(w->env->shc);
	return rc;
}

void *
worker_thread_main(void *arg)
{
	struct worker *w = arg;
	if(worker_main(w) != 0)
		log_err("worker %d stopped with an error", w->index);
	return NULL;
}
