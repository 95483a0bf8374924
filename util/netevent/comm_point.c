/*
 * util/netevent/comm_point.c - the comm_point API the UDP and TCP
 * services share: the common part of creation, the settings (peek, TLS,
 * padding, DNS over HTTPS, keepalive, PROXY v2, TCP timeouts), the
 * counters, the listening state, delete, and answers sent later
 * (comm_reply_save, comm_reply_send). Each call hands the work of one
 * kind of comm_point to its file: comm_udp.c, comm_tcp.c, and comm_uring.c
 * for a comm_point served through io_uring (comm_point_int.h).
 */
#include "config.h"
#include "util/netevent/comm_point_int.h"
#include "util/netevent/http2.h"
#include "dns/padding.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
comm_point_set_peek(struct comm_point *c, comm_point_peek_type peek,
	int stages)
{
	c->peek = peek;
	c->peek_stages = stages > 0 ? stages : 1;
}

/** the name of the create call of a type, for the logs */
static const char *
cp_create_name(enum comm_point_type type)
{
	return type == COMM_UDP ? "comm_point_create_udp" :
		"comm_point_create_tcp";
}

struct comm_point *
comm__cp_new(struct comm_base *base, int fd, enum comm_point_type type,
	size_t bufsize, comm_point_cb_type cb, void *arg)
{
	struct comm_point *c;
	if(nev_fd_nonblock(fd) == -1) {
		log_warn("%s: fcntl", cp_create_name(type));
		close(fd);
		return NULL;
	}
	if(!(c = calloc(1, sizeof(*c)))) {
		log_err("comm_point: out of memory");
		close(fd);
		return NULL;
	}
	c->base = base;
	c->type = type;
	c->fd = fd;
	c->cb = cb;
	c->arg = arg;
	c->bufsize = bufsize ? bufsize : NETEVENT_BUFSIZE_DEFAULT;
	return c;
}

int
comm__cp_listen(struct comm_point *c, nev_io_cb_type cb)
{
#ifdef HAVE_LIBURING
	switch(c->type == COMM_UDP ? comm__udp_ring_setup(c) :
		comm__tcp_ring_setup(c)) {
	case 1:
		return comm_point_start_listening(c);
	case -1:
		log_err("%s: out of memory", cp_create_name(c->type));
		return -1;
	default:
		break;
	}
#endif
	if(!(c->io = nev_io_new(c->base, c->fd, cb, c)))
		return -1;
	return comm_point_start_listening(c);
}

void
comm_point_delete(struct comm_point *c)
{
	int i;
	if(!c)
		return;
	if(c->conns) {
		for(i = 0; i < c->nslots; i++)
			comm__tcp_conn_close(&c->conns[i]);
	}
#ifdef HAVE_LIBURING
	if(c->tring)
		comm__tcp_ring_delete(c);
#endif
	if(c->conns) {
		for(i = 0; i < c->nslots; i++) {
			comm_timer_delete(c->conns[i].timer);
			free(c->conns[i].rbuf);
		}
		free(c->conns);
	}
	comm_timer_delete(c->accept_timer);
	c->listening = 0;
	comm__udp_busy_leave(c);
#ifdef HAVE_LIBURING
	if(c->ring)
		comm__udp_ring_delete(c);
#endif
	if(c->io)
		nev_io_free(c->base, c->io);
	if(c->fd != -1)
		close(c->fd);
	free(c->bufs);
	free(c->reps);
	free(c->rmsg);
	free(c->riov);
	free(c->rctl);
	free(c->smsg);
	free(c->siov);
	free(c->sctl);
	free(c->padbuf);
	free(c->http);
	free(c->http_endpoint);
	free(c->http_buf);
	free(c->http_out);
	free(c);
}

const struct comm_point_stats *
comm_point_get_stats(struct comm_point *c)
{
	return &c->stats;
}

void
comm_point_clear_stats(struct comm_point *c)
{
	memset(&c->stats, 0, sizeof(c->stats));
	if(c->http) {
		c->http->queries = 0;
		c->http->http_errors = 0;
		c->http->refused = 0;
	}
}

int
comm_point_fd(struct comm_point *c)
{
	return c->fd;
}

int
comm_point_set_tls(struct comm_point *c, struct ssl_ctx_st *ctx)
{
	c->tls_ctx = ctx;
#ifdef HAVE_LIBURING
	if(ctx && c->tring)
		return comm__tcp_ring_to_readiness(c);
#endif
	return 0;
}

/** make the buffer an answer is rewritten in before it goes out (EDNS
 * padding, the keepalive option) when need is set and it is not there
 * yet; @return 0, or -1 out of memory */
static int
cp_want_padbuf(struct comm_point *c, int need)
{
	if(need && !c->padbuf && !(c->padbuf = malloc(65535)))
		return -1;
	return 0;
}

int
comm_point_set_tls_padding(struct comm_point *c, int block)
{
	c->pad_block = block > 1 ? block : 0;
	return cp_want_padbuf(c, c->pad_block != 0);
}

int
comm_point_set_http(struct comm_point *c,
	const struct comm_http_settings *set)
{
#ifndef HAVE_NGHTTP2
	(void)set;
	log_err("DNS over HTTPS: petrel is built without libnghttp2");
	return -1;
#else
	if(c->type != COMM_TCP)
		return -1;
	c->http = calloc(1, sizeof(*c->http));
	c->http_endpoint = strdup(set->endpoint ? set->endpoint :
		"/dns-query");
	c->http_buf = malloc(65535);
	c->http_out = malloc(65535);
	if(!c->http || !c->http_endpoint || !c->http_buf || !c->http_out) {
		log_err("comm_point_set_http: out of memory");
		return -1;
	}
	c->http->endpoint = c->http_endpoint;
	c->http->max_streams = set->max_streams;
	c->http->query_max = set->query_buffer;
	c->http->response_max = set->response_buffer;
	c->http_nodelay = set->nodelay;
#ifdef HAVE_LIBURING
	/* HTTP/2 reads through the readiness path (as TLS does) */
	if(c->tring)
		return comm__tcp_ring_to_readiness(c);
#endif
	return 0;
#endif
}

void
comm_point_get_http_stats(struct comm_point *c, struct comm_http_stats *out)
{
	memset(out, 0, sizeof(*out));
	if(!c || !c->http)
		return;
	out->queries = c->http->queries;
	out->http_errors = c->http->http_errors;
	out->refused = c->http->refused;
	out->query_bytes = c->http->query_used;
	out->response_bytes = c->http->response_used;
}

int
comm_point_set_keepalive(struct comm_point *c, int ms)
{
	c->ka_ms = ms > 0 ? ms : 0;
	return cp_want_padbuf(c, c->ka_ms != 0);
}

void
comm_point_set_stream_wait(struct comm_point *c, size_t bytes)
{
	c->wq_max = bytes;
}

size_t
comm_point_tcp_queued(const struct comm_point *c)
{
	return c->wq_bytes;
}

void
comm_point_set_tcp_limit(struct comm_point *c,
	const struct comm_tcp_limit *lim)
{
	if(lim)
		c->limit = *lim;
	else	memset(&c->limit, 0, sizeof(c->limit));
}

void
comm_point_set_proxy(struct comm_point *c)
{
	c->proxy = 1;
}

int
comm_point_tcp_count(struct comm_point *c)
{
	return c->type == COMM_TCP ? c->nconn : 0;
}

void
comm_point_tcp_set_timeouts(struct comm_point *c, int first_query_ms,
	int pressure_idle_ms)
{
	int i;
	if(c->type != COMM_TCP)
		return;
	c->first_ms = first_query_ms;
	c->pressure_ms = pressure_idle_ms;
	for(i = 0; i < c->nslots; i++)
		if(c->conns[i].fd != -1)
			comm__tcp_conn_arm(&c->conns[i]);
}

/** follow c->listening: the ring's receive or accept when c is served
 * through io_uring, else the backend watch set to mask
 * @return 0, or -1 when the backend failed */
static int
cp_listen_apply(struct comm_point *c, int mask)
{
#ifdef HAVE_LIBURING
	if(c->ring) {
		comm__udp_ring_listen(c);
		return 0;
	}
	if(c->tring) {
		comm__tcp_ring_listen(c);
		return 0;
	}
#endif
	return nev_io_set(c->base, c->io, mask);
}

int
comm_point_stop_listening(struct comm_point *c)
{
	c->listening = 0;
	comm__udp_busy_leave(c);
	return cp_listen_apply(c, 0);
}

int
comm_point_start_listening(struct comm_point *c)
{
	c->listening = 1;
	if(c->busy)
		return 0;
	return cp_listen_apply(c, NEV_READ);
}

void
comm_reply_save(const struct comm_reply *rep, struct comm_reply_addr *out)
{
	out->c = rep->c;
	out->client = rep->client;
	out->peer = rep->peer;
	out->local = rep->local;
	out->conn = rep->conn;
	out->gen = rep->gen;
	out->is_tcp = (int16_t)rep->is_tcp;
	out->pad = (int16_t)rep->pad;
	out->stream = rep->stream;
}

int
comm_reply_send(const struct comm_reply_addr *ra, const uint8_t *pkt,
	size_t len)
{
	struct comm_point *c = ra->c;
	if(ra->is_tcp) {
		struct comm_tcp_conn *conn = ra->conn;
		if(!conn || conn->fd == -1 || conn->gen != ra->gen) {
			c->stats.tcp_stale_replies++;
			return -1;
		}
		if(conn->pending > 0)
			conn->pending--;
		if(ra->stream && conn->h2) {
			if(ra->pad && c->padbuf && len <= 65535) {
				memcpy(c->padbuf, pkt, len);
				len = dns_pad(c->padbuf, len, 65535,
					(size_t)c->pad_block);
				pkt = c->padbuf;
			}
			if(h2_session_answer(conn->h2, ra->stream, pkt,
				len) == 0)
				c->stats.pkts_out++;
			comm__tcp_conn_progress(conn);
			return comm__tcp_conn_h2_out(conn) == -1 ? -1 : 0;
		}
		if(comm__tcp_conn_queue(conn, pkt, len, ra->pad) == -1)
			return -1;
		return 0;
	} else {
		struct msghdr m;
		struct iovec iov;
		union {
			struct cmsghdr align;
			uint8_t buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
				CMSG_SPACE(sizeof(struct in_pktinfo))];
		} ctl;
		memset(&m, 0, sizeof(m));
		if(ra->peer.len) {
			/* through the proxy it came from */
			m.msg_name = (void *)&ra->peer.a;
			m.msg_namelen = ra->peer.len;
		} else {
			m.msg_name = (void *)&ra->client.addr;
			m.msg_namelen = ra->client.len;
		}
		iov.iov_base = (void *)pkt;
		iov.iov_len = len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		comm__udp_set_ctl(&m, &ra->local, ctl.buf);
		c->stats.sendmsg_calls++;
		if(sendmsg(c->fd, &m, 0) == -1) {
			c->stats.send_errors++;
			return -1;
		}
		c->stats.pkts_out++;
		return 0;
	}
}
