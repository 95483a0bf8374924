/*
 * util/netevent/comm_tcp.c - the TCP comm_point: the connection slots,
 * eviction, the idle timers, PROXY v2 and the DNS over HTTPS glue.
 *
 * TCP. A listening comm_point serves at most max_conn connections, in
 * slots allocated at creation (the read buffer of a slot on its first use,
 * then kept): max_conn of them, twice that on the ring (below). Each
 * connection reads 2-byte-length-framed
 * queries (partial reads resumed), hands each to the callback, and queues
 * answers (copied, with their length) on a per-connection write queue
 * drained as the socket allows, so several queries are in flight and
 * answered in any order. A length of 0, a read error or the idle timer
 * close that connection only. When the client closes its sending side,
 * the connection stays until the queued answers are written and the
 * queries answered later have been answered (or the idle timer fires).
 * A slot's generation number changes when the connection opens and
 * closes, so a saved comm_reply_addr for a closed connection is detected
 * and its answer dropped.
 *
 * Holding slots (issue 17). Slots are few (incoming-num-tcp), so a client
 * that opens connections and sends nothing must not keep them. Each
 * connection's timer counts from its last progress (accepted, a whole
 * query read, an answer queued), never from a stray byte, and runs for:
 *   - tcp-idle-timeout while petrel owes it an answer (queries pending or
 *     answers queued): the client is waiting for us;
 *   - otherwise at most first_ms (TCP_FIRST_QUERY_MS) until the first
 *     whole query: a resolver client sends its query right away;
 *   - otherwise, when more than half the slots are in use, at most
 *     pressure_ms (TCP_PRESSURE_IDLE_MS), as Unbound shortens its timeout
 *     when busy; the timers of the idle connections are shortened when the
 *     table goes over half full (and lengthened when it goes back).
 * When every slot is taken, a new connection takes the slot of an idle
 * one (owed nothing), chosen in this order: one that never sent a whole
 * query before one that did, then the one idle longest. Before it is
 * closed, what it has sent is read, in case its query just arrived (then
 * it is kept and the next is chosen). Only when every connection is owed
 * an answer is the new one refused: accepted and closed at once, so the
 * backlog keeps moving and the client learns at once. A new connection's
 * first query is read right after accept when it is already there. When
 * accept fails for want of descriptors, an idle connection is closed to
 * make room, or, with none, the listening socket is left alone for
 * TCP_ACCEPT_PAUSE_MS instead of waking the loop again at once. Where
 * the system has TCP_DEFER_ACCEPT (Linux), the listening socket sets it:
 * a connection reaches accept only with its first bytes (or after the
 * kernel's wait), so a silent one takes no slot at all, and a client's
 * query is read right away and makes its connection owed an answer.
 *
 * PROXY v2 on TCP (comm_point_set_proxy). A new connection first reads
 * its header (pp_wait), no further than the header's end, in as many
 * reads as it takes, before the TLS handshake or the DNS framing; its
 * source becomes the connection's client. A bad header, or EOF inside
 * it, closes the connection (proxy_errors). On a port without it, a first
 * message whose bytes are the PROXY signature closes the connection as
 * soon as the signature is in, instead of waiting for 3338 bytes.
 */
#include "config.h"
#include "util/netevent/comm_point_int.h"
#include "util/netevent/tls.h"
#include "util/netevent/http2.h"
#include "dns/padding.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

static void tcp_conn_event(int fd, int events, void *arg);
static int tcp_conn_read(struct comm_tcp_conn *conn);

/** @return 1 when petrel owes the connection an answer */
static int
tcp_conn_owed(const struct comm_tcp_conn *conn)
{
	return conn->pending > 0 || conn->wq.head != NULL;
}

/** @return the timeout of a connection in its state now, ms; -1 none */
static int
tcp_conn_timeout_ms(const struct comm_tcp_conn *conn)
{
	const struct comm_point *c = conn->c;
	int t = c->idle_ms > 0 ? c->idle_ms : -1;
	if(conn->ka && c->ka_ms > 0)
		t = c->ka_ms; /* the timeout the client was told */
	if(tcp_conn_owed(conn))
		return t;
	if(conn->nq == 0 && c->first_ms > 0 && (t < 0 || c->first_ms < t))
		t = c->first_ms;
	if(c->pressured && c->pressure_ms > 0 && (t < 0 || c->pressure_ms < t))
		t = c->pressure_ms;
	return t;
}

/** @return the milliseconds from the cached clock until a timeout of t
 * ms counted from the connection's last progress ends (below 1 when it
 * has) */
static long long
tcp_conn_left_ms(const struct comm_tcp_conn *conn, int t)
{
	const struct timeval *now = comm_base_now(conn->c->base);
	return (long long)(conn->since.tv_sec - now->tv_sec) * 1000 +
		(conn->since.tv_usec - now->tv_usec) / 1000 + t;
}

void
comm__tcp_conn_arm(struct comm_tcp_conn *conn)
{
	int t = tcp_conn_timeout_ms(conn);
	struct timeval rel, due;
	long long left;
	if(t < 0) {
		comm_timer_disable(conn->timer);
		return;
	}
	rel.tv_sec = t / 1000;
	rel.tv_usec = (t % 1000) * 1000;
	timeradd(&conn->since, &rel, &due);
	/* a timer due no later than this fires early and sets itself
	 * again for the rest: nothing to do now */
	if(comm_timer_is_set(conn->timer) && !timercmp(&due, &conn->due, <))
		return;
	left = tcp_conn_left_ms(conn, t);
	if(left < 0)
		left = 0;
	if(left > t)
		left = t;
	conn->due = due;
	(void)comm_timer_set(conn->timer, (int)left);
}

void
comm__tcp_conn_progress(struct comm_tcp_conn *conn)
{
	conn->since = *comm_base_now(conn->c->base);
	comm__tcp_conn_arm(conn);
}

/** set a connection's interest if it changed */
static int
tcp_conn_mask(struct comm_tcp_conn *conn, int mask)
{
	if(conn->mask == mask)
		return 0;
	conn->mask = mask;
	return nev_io_set(conn->c->base, conn->io, mask);
}

void
comm__tcp_conn_close(struct comm_tcp_conn *conn)
{
	if(conn->fd == -1)
		return;
#ifdef HAVE_LIBURING
	if(conn->c->tring)
		comm__tcp_ring_conn_closing(conn);
#endif
	if(conn->io)
		nev_io_free(conn->c->base, conn->io);
	conn->io = NULL;
	comm_timer_disable(conn->timer);
	if(conn->ssl) {
		tls_free(conn->ssl);
		conn->ssl = NULL;
	}
	if(conn->h2) {
		h2_session_free(conn->h2);
		conn->h2 = NULL;
	}
	close(conn->fd);
	conn->fd = -1;
	if(conn->limit_slot >= 0 && conn->c->limit.release)
		conn->c->limit.release(conn->c->limit.arg, conn->limit_slot);
	conn->limit_slot = -1;
	conn->gen++;
	conn->mask = 0;
	nev_wq_clear(&conn->wq);
	conn->c->nconn--;
	comm__tcp_pressure_check(conn->c);
}

void
comm__tcp_pressure_check(struct comm_point *c)
{
	int i, p = c->nconn > c->max_conn / 2;
	if(p == c->pressured)
		return;
	c->pressured = p;
	if(c->pressure_ms <= 0 || !c->conns)
		return;
	for(i = 0; i < c->nslots; i++) {
		struct comm_tcp_conn *conn = &c->conns[i];
		if(conn->fd != -1 && !tcp_conn_owed(conn))
			comm__tcp_conn_arm(conn);
	}
}

/** the interest a connection wants now */
static int
tcp_conn_want(struct comm_tcp_conn *conn)
{
	int mask = 0;
	if(conn->pp_wait)
		return NEV_READ;
	if(conn->ssl && !conn->hs_done)
		return conn->hs_mask;
	if(!conn->read_closed && conn->wq.num < TCP_MAX_QUEUED &&
		conn->c->listening)
		mask |= NEV_READ;
	if(conn->wq.head)
		mask |= NEV_WRITE;
	return mask;
}

/** set the connection's interest to what it wants now
 * @return 0, or -1 when that failed (the connection is closed) */
static int
tcp_conn_rearm(struct comm_tcp_conn *conn)
{
	if(tcp_conn_mask(conn, tcp_conn_want(conn)) == -1) {
		comm__tcp_conn_close(conn);
		return -1;
	}
	return 0;
}

/**
 * Write what the socket takes.
 * @return 0; 1 if the connection was closed because it is finished (all
 *	written, client done); -1 if it was closed on an error.
 */
static int
tcp_conn_flush(struct comm_tcp_conn *conn)
{
#ifdef HAVE_LIBURING
	if(conn->c->tring)
		return comm__tcp_ring_flush(conn);
#endif
	uint64_t chunks = 0, *done = conn->h2 ? &chunks :
		&conn->c->stats.pkts_out;
	if(conn->ssl && !conn->hs_done)
		return 0;
	if((conn->ssl ? tls_wq_write_sys(conn->ssl, &conn->wq, done) :
		nev_wq_write(&conn->wq, conn->fd, done)) == -1) {
		verbose(VERB_ALGO, "tcp write: %s", strerror(errno));
		conn->c->stats.tcp_errors++;
		comm__tcp_conn_close(conn);
		return -1;
	}
	if(!conn->wq.head && conn->read_closed && conn->pending == 0) {
		comm__tcp_conn_close(conn);
		return 1;
	}
	if(tcp_conn_rearm(conn) == -1)
		return -1;
	if(!tcp_conn_owed(conn))
		/* owed nothing now: its shorter timeout */
		comm__tcp_conn_arm(conn);
	return 0;
}

int
comm_tcp_keepalive_query(int ka_ms, int *seen, const uint8_t *q, size_t qlen)
{
	if(ka_ms <= 0)
		return 0;
	if(!*seen && dns_has_edns_option(q, qlen, DNS_EDNS_KEEPALIVE))
		*seen = 1;
	return *seen;
}

size_t
comm_tcp_keepalive_add(int ka_ms, uint8_t *msg, size_t len, size_t cap)
{
	uint32_t t = (uint32_t)(ka_ms > 0 ? ka_ms : 0) / 100;
	uint8_t v[2];
	v[0] = (uint8_t)((t > 65535 ? 65535 : t) >> 8);
	v[1] = (uint8_t)(t > 65535 ? 65535 : t);
	return dns_add_edns_option(msg, len, cap, DNS_EDNS_KEEPALIVE, v, 2);
}

int
comm__tcp_conn_queue(struct comm_tcp_conn *conn, const uint8_t *pkt, size_t len,
	int pad)
{
	struct comm_point *c = conn->c;
	/* pad bit 1: EDNS Padding (TLS); bit 2: edns-tcp-keepalive, added
	 * first (padding sizes the whole) */
	if((((pad & 1) && conn->ssl) || (pad & 2)) && c->padbuf &&
		len <= 65535) {
		memcpy(c->padbuf, pkt, len);
		if(pad & 2)
			len = comm_tcp_keepalive_add(c->ka_ms, c->padbuf, len,
				65535);
		if((pad & 1) && conn->ssl && c->pad_block)
			len = dns_pad(c->padbuf, len, 65535,
				(size_t)c->pad_block);
		pkt = c->padbuf;
	}
	if(c->wq_max && c->wq_bytes + 2 + len > c->wq_max) {
		/* stream-wait-size: the answer is dropped (the client asks
		 * again, or times out), as Unbound */
		c->stats.stream_wait_drops++;
		return 0;
	}
	if(nev_wq_push(&conn->wq, pkt, len) != 0)
		return -1;
	comm__tcp_conn_progress(conn);
	return tcp_conn_flush(conn) == -1 ? -1 : 0;
}

static int tcp_conn_read_h2(struct comm_tcp_conn *conn);

/*
 * The steps the TCP read paths share: tcp_conn_read (framed DNS by
 * readiness, plain or TLS), tcp_conn_read_h2 (DNS over HTTPS),
 * tcp_ring_feed (framed DNS from io_uring completions, comm_uring.c) and
 * tcp_h2_query (a query out of an HTTP/2 stream). Small: the compiler
 * inlines them here where they are hot; the ring path calls the ones it
 * shares through their comm__ names.
 */

/**
 * A read on a connection returned -1: wait for the next readable event,
 * or close the connection on a real error (counted, logged at
 * VERB_ALGO as "what: error").
 * @return 0 to wait, -1 if it was closed.
 */
static int
tcp_conn_read_error(struct comm_tcp_conn *conn, const char *what)
{
	if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
		return 0;
	verbose(VERB_ALGO, "%s: %s", what, strerror(errno));
	conn->c->stats.tcp_errors++;
	comm__tcp_conn_close(conn);
	return -1;
}

int
comm__tcp_conn_eof(struct comm_tcp_conn *conn)
{
	conn->read_closed = 1;
	if(conn->lgot != 0)
		verbose(VERB_ALGO, "tcp: EOF inside a message");
	return tcp_conn_flush(conn);
}

int
comm__tcp_conn_take_len(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	conn->need = ((size_t)conn->lenbuf[0] << 8) | conn->lenbuf[1];
	conn->got = 0;
	if(conn->need == 0 || conn->need > c->bufsize) {
		verbose(VERB_ALGO, "tcp: bad length %d, closing",
			(int)conn->need);
		c->stats.tcp_errors++;
		comm__tcp_conn_close(conn);
		return -1;
	}
	return 0;
}

/** count a whole query read on a connection */
static void
tcp_conn_count_query(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	conn->nq++;
	c->stats.pkts_in++;
	if(conn->ssl) {
		c->stats.tls_queries++;
		c->stats.tls_resume_queries += (uint64_t)conn->resumed;
	}
}

/** fill the comm_reply of a query read on a connection (pad 0) */
static void
tcp_rep_init(struct comm_tcp_conn *conn, struct comm_reply *rep,
	uint8_t *buf, size_t len, size_t cap, int32_t stream)
{
	rep->c = conn->c;
	rep->buf = buf;
	rep->len = len;
	rep->cap = cap;
	rep->client = conn->client;
	if(conn->proxy.len && conn->proxy.len <= sizeof(rep->peer.a)) {
		/* through a proxy: its own address, for access control
		 * (the answer goes back on the connection all the same) */
		memcpy(&rep->peer.a, &conn->proxy.addr, conn->proxy.len);
		rep->peer.len = conn->proxy.len;
	} else	rep->peer.len = 0;
	rep->local.family = 0;
	rep->conn = conn;
	rep->gen = conn->gen;
	rep->is_tcp = 1;
	rep->hint = 0;
	rep->slot = 0;
	rep->stream = stream;
	rep->pad = 0;
}

int
comm__tcp_conn_query(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	struct comm_reply rep;
	int cr;
	conn->lgot = 0;
	tcp_conn_count_query(conn);
	tcp_rep_init(conn, &rep, conn->rbuf, conn->need, c->bufsize, 0);
	/* (no TLS on the ring: conn->ssl is NULL there) */
	rep.pad = conn->ssl && c->pad_block &&
		dns_has_padding(rep.buf, rep.len);
	if(c->ka_ms > 0) {
		int seen = conn->ka;
		if(comm_tcp_keepalive_query(c->ka_ms, &seen, rep.buf,
			rep.len))
			rep.pad |= 2;
		conn->ka = seen;
	}
	cr = c->cb(&rep, c->arg);
	if(cr > 0 && rep.len > 0 && rep.len <= rep.cap) {
		if(conn->fd == -1 || conn->gen != rep.gen)
			return -1;
		if(comm__tcp_conn_queue(conn, rep.buf, rep.len, rep.pad) == -1)
			return -1;
	} else if(cr == 0 && conn->fd != -1 && conn->gen == rep.gen) {
		conn->pending++;
		comm__tcp_conn_progress(conn);
	}
	if(conn->fd == -1 || conn->gen != rep.gen)
		return -1;
	return 0;
}

void
comm__tcp_conn_proxy_done(struct comm_tcp_conn *conn,
	const struct pp2_info *info)
{
	conn->pp_wait = 0;
	conn->proxy = conn->client;
	if(!info->local)
		conn->client = info->src;
}

void
comm__tcp_conn_proxy_fail(struct comm_tcp_conn *conn, const char *why)
{
	if(verbosity >= VERB_ALGO) {
		char a[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tcp: %s from %s, closing", why,
			netaddr_str(&conn->client, -1, a, sizeof(a)));
	}
	conn->c->stats.proxy_errors++;
	comm__tcp_conn_close(conn);
}

/**
 * Read the PROXY v2 header of a connection on a proxy-protocol-port, no
 * further than its end (the DNS or TLS bytes after it stay in the
 * socket). It may come in pieces.
 * @return 0 when it is complete, 1 while more is awaited, -1 if the
 *	connection was closed (a bad header, EOF, an error).
 */
static int
tcp_conn_proxy_read(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	for(;;) {
		size_t want = pp2_stream_want(&conn->pp), used = 0;
		struct pp2_info info;
		ssize_t r;
		int st;
		if(want > c->bufsize)
			want = c->bufsize;
		r = read(conn->fd, conn->rbuf, want);
		if(r == 0) {
			comm__tcp_conn_proxy_fail(conn,
				"EOF inside the PROXY header");
			return -1;
		}
		if(r == -1) {
			if(tcp_conn_read_error(conn, "tcp read") == -1)
				return -1;
			if(tcp_conn_mask(conn, NEV_READ) == -1) {
				comm__tcp_conn_close(conn);
				return -1;
			}
			return 1;
		}
		st = pp2_stream_feed(&conn->pp, conn->rbuf, (size_t)r, &used,
			&info);
		if(st < 0) {
			comm__tcp_conn_proxy_fail(conn, "bad PROXY v2 header");
			return -1;
		}
		if(st == 1) {
			comm__tcp_conn_proxy_done(conn, &info);
			return 0;
		}
	}
}

int
comm__tcp_conn_stray_proxy(const struct comm_tcp_conn *conn, size_t before)
{
	uint8_t b[PP2_SIG_LEN];
	if(conn->nq != 0 || conn->need != 0x0d0a || before >= PP2_SIG_LEN - 2
		|| conn->got < PP2_SIG_LEN - 2 || conn->c->proxy)
		return 0;
	memcpy(b, conn->lenbuf, 2);
	memcpy(b + 2, conn->rbuf, PP2_SIG_LEN - 2);
	return pp2_has_signature(b, sizeof(b));
}

/** the connection is readable. @return 0, or -1 if it was closed */
static int
tcp_conn_read(struct comm_tcp_conn *conn)
{
	int msgs = 0;
	if(conn->pp_wait) {
		int r = tcp_conn_proxy_read(conn);
		if(r != 0)
			return r < 0 ? -1 : 0;
		if(conn->ssl && !conn->hs_done)
			return 0; /* the handshake runs on the next event */
	}
	if(conn->h2)
		return tcp_conn_read_h2(conn);
	/* TLS: bytes already decrypted inside the TLS layer make no readable
	 * event, so they are read now, past the fairness limit (at most one
	 * TLS record) */
	while((msgs < TCP_READS_PER_WAKE || (conn->ssl &&
		tls_pending(conn->ssl))) && conn->wq.num < TCP_MAX_QUEUED) {
		ssize_t r;
		if(conn->ssl)
			r = (ssize_t)tls_read_sys(conn->ssl, conn->lgot < 2 ?
				conn->lenbuf + conn->lgot : conn->rbuf +
				conn->got, conn->lgot < 2 ? 2 - conn->lgot :
				conn->need - conn->got);
		else if(conn->lgot < 2)
			r = read(conn->fd, conn->lenbuf + conn->lgot,
				2 - conn->lgot);
		else	r = read(conn->fd, conn->rbuf + conn->got,
				conn->need - conn->got);
		if(r == 0) {
			/* the client is done sending; answer what is queued */
			return comm__tcp_conn_eof(conn) ? -1 : 0;
		}
		if(r == -1) {
			if(tcp_conn_read_error(conn, "tcp read") == -1)
				return -1;
			break;
		}
		if(conn->lgot < 2) {
			conn->lgot += (size_t)r;
			if(conn->lgot < 2)
				continue;
			if(comm__tcp_conn_take_len(conn) == -1)
				return -1;
			continue;
		}
		conn->got += (size_t)r;
		if(conn->got < conn->need) {
			if(comm__tcp_conn_stray_proxy(conn, conn->got -
				(size_t)r)) {
				comm__tcp_conn_proxy_fail(conn,
					"PROXY header on a port without "
					"proxy-protocol-port");
				return -1;
			}
			continue;
		}
		/* a whole query */
		msgs++;
		if(comm__tcp_conn_query(conn) == -1)
			return -1;
	}
	return tcp_conn_rearm(conn);
}

/* DNS over HTTPS: the HTTP/2 session in place of the DNS framing */

/** gather HTTP/2 output into http_out; queue it when full */
static int
tcp_h2_push(void *arg, const uint8_t *d, size_t len)
{
	struct comm_tcp_conn *conn = arg;
	struct comm_point *c = conn->c;
	if(c->http_outlen + len > 65535 && c->http_outlen > 0) {
		if(nev_wq_push_raw(&conn->wq, c->http_out, c->http_outlen) != 0)
			return -1;
		c->http_outlen = 0;
	}
	if(len > 65535)
		return nev_wq_push_raw(&conn->wq, d, len);
	memcpy(c->http_out + c->http_outlen, d, len);
	c->http_outlen += len;
	return 0;
}

int
comm__tcp_conn_h2_out(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	int r;
	c->http_outlen = 0;
	r = h2_session_output(conn->h2, tcp_h2_push, conn);
	if(r == 0 && c->http_outlen > 0 &&
		nev_wq_push_raw(&conn->wq, c->http_out, c->http_outlen) != 0)
		r = -1;
	c->http_outlen = 0;
	if(r != 0) {
		c->stats.tcp_errors++;
		comm__tcp_conn_close(conn);
		return -1;
	}
	if(tcp_conn_flush(conn) != 0)
		return -1;
	if(!h2_session_alive(conn->h2) && !conn->wq.head) {
		comm__tcp_conn_close(conn);
		return -1;
	}
	return 0;
}

/** HTTP/2 handed a whole DNS query: answer it like a TCP query, on its
 * stream */
static void
tcp_h2_query(void *arg, int32_t stream, const uint8_t *q, size_t len)
{
	struct comm_tcp_conn *conn = arg;
	struct comm_point *c = conn->c;
	struct comm_reply rep;
	int cr;
	memcpy(c->http_buf, q, len);
	tcp_conn_count_query(conn);
	tcp_rep_init(conn, &rep, c->http_buf, len, 65535, stream);
	rep.pad = c->pad_block && dns_has_padding(rep.buf, rep.len);
	cr = c->cb(&rep, c->arg);
	if(conn->fd == -1 || conn->gen != rep.gen || !conn->h2)
		return;
	if(cr > 0 && rep.len > 0 && rep.len <= rep.cap) {
		size_t n = rep.len;
		const uint8_t *pkt = rep.buf;
		if(rep.pad && c->padbuf) {
			memcpy(c->padbuf, pkt, n);
			n = dns_pad(c->padbuf, n, 65535, (size_t)c->pad_block);
			pkt = c->padbuf;
		}
		if(h2_session_answer(conn->h2, stream, pkt, n) == 0)
			c->stats.pkts_out++;
		comm__tcp_conn_progress(conn);
	} else if(cr == 0) {
		conn->pending++;
		comm__tcp_conn_progress(conn);
	} else {
		/* dropped (malformed, or access control): no DNS answer;
		 * HTTP still owes the stream a status */
		(void)h2_session_error(conn->h2, stream, 400);
	}
}

/** open a connection's HTTP/2 session. @return 0 or -1 */
static int
tcp_conn_h2_open(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	if(c->http_nodelay) {
		int on = 1;
		if(setsockopt(conn->fd, IPPROTO_TCP, TCP_NODELAY, &on,
			sizeof(on)) == -1)
			verbose(VERB_ALGO, "https: setsockopt TCP_NODELAY: %s",
				strerror(errno));
	}
	conn->h2 = h2_session_create(c->http, tcp_h2_query, conn);
	if(!conn->h2) {
		log_err("https: out of memory for an HTTP/2 session");
		return -1;
	}
	return 0;
}

/** the HTTP/2 connection is readable. @return 0, or -1 if it was closed */
static int
tcp_conn_read_h2(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	uint32_t gen = conn->gen;
	int k;
	for(k = 0; (k < TCP_READS_PER_WAKE || (conn->ssl &&
		tls_pending(conn->ssl))) && conn->wq.num < TCP_MAX_QUEUED &&
		!conn->read_closed; k++) {
		ssize_t r;
		int rc;
		if(conn->ssl)
			r = (ssize_t)tls_read_sys(conn->ssl, conn->rbuf,
				c->bufsize);
		else	r = read(conn->fd, conn->rbuf, c->bufsize);
		if(r == 0) {
			conn->read_closed = 1;
			break;
		}
		if(r == -1) {
			if(tcp_conn_read_error(conn, "https read") == -1)
				return -1;
			break;
		}
		rc = h2_session_recv(conn->h2, conn->rbuf, (size_t)r);
		if(conn->fd == -1 || conn->gen != gen)
			return -1;
		if(rc != 0) {
			/* an HTTP/2 protocol error: send the GOAWAY nghttp2
			 * queued, as far as the socket takes it, and close */
			verbose(VERB_ALGO, "https: HTTP/2 protocol error, "
				"closing");
			c->stats.tcp_errors++;
			if(comm__tcp_conn_h2_out(conn) == 0)
				comm__tcp_conn_close(conn);
			return -1;
		}
		if(comm__tcp_conn_h2_out(conn) != 0)
			return -1;
	}
	if(comm__tcp_conn_h2_out(conn) != 0)
		return -1;
	if(conn->read_closed) {
		/* the client is done: close once the answers it waits for
		 * are written */
		if(conn->pending == 0 && !conn->wq.head) {
			comm__tcp_conn_close(conn);
			return -1;
		}
	}
	return tcp_conn_rearm(conn);
}

/**
 * Advance a DNS over TLS handshake (the idle timer bounds it).
 * @return 0 when complete, 1 while it waits (interest set), -1 if the
 *	connection was closed.
 */
static int
tcp_conn_handshake(struct comm_tcp_conn *conn)
{
	enum tls_io st = tls_handshake(conn->ssl);
	if(st == TLS_IO_DONE) {
		conn->hs_done = 1;
		conn->resumed = tls_session_resumed(conn->ssl);
		conn->c->stats.tls_handshakes++;
		return 0;
	}
	if(st == TLS_IO_WANT_READ || st == TLS_IO_WANT_WRITE) {
		conn->hs_mask = st == TLS_IO_WANT_READ ? NEV_READ : NEV_WRITE;
		if(tcp_conn_mask(conn, conn->hs_mask) == -1) {
			comm__tcp_conn_close(conn);
			return -1;
		}
		return 1;
	}
	if(verbosity >= VERB_ALGO) {
		char b[200], a[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tls: handshake with %s failed: %s",
			netaddr_str(&conn->client, -1, a, sizeof(a)),
			tls_fail_reason(conn->ssl, b, sizeof(b)));
	}
	conn->c->stats.tls_handshake_fails++;
	comm__tcp_conn_close(conn);
	return -1;
}

static void
tcp_conn_event(int fd, int events, void *arg)
{
	struct comm_tcp_conn *conn = arg;
	uint32_t gen = conn->gen;
	(void)fd;
	if(conn->pp_wait) {
		if(tcp_conn_proxy_read(conn) != 0)
			return;
		/* what follows the header may be there already */
		events = NEV_READ;
	}
	if(conn->ssl && !conn->hs_done) {
		if(tcp_conn_handshake(conn) != 0)
			return;
		/* the client's first query may have come with the end of
		 * the handshake */
		events = NEV_READ;
	}
	if(events & NEV_WRITE) {
		if(tcp_conn_flush(conn) != 0)
			return;
		/* answers drained: queries may wait decrypted */
		if(conn->ssl && conn->fd != -1 && conn->gen == gen &&
			tls_pending(conn->ssl))
			events |= NEV_READ;
	}
	if((events & NEV_READ) && conn->fd != -1 && conn->gen == gen)
		(void)tcp_conn_read(conn);
}

static void
tcp_conn_timeout(void *arg)
{
	struct comm_tcp_conn *conn = arg;
	int t = tcp_conn_timeout_ms(conn);
	if(t < 0)
		return; /* no timeout in this state (see comm__tcp_conn_arm) */
	/* progress since the timer was set moved the deadline: the rest */
	if(tcp_conn_left_ms(conn, t) > 0) {
		comm__tcp_conn_arm(conn);
		return;
	}
	conn->c->stats.tcp_timeouts++;
	if(verbosity >= VERB_ALGO) {
		char a[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tcp: %s, closing the connection from %s",
			conn->nq == 0 ? "no query in time" : "idle timeout",
			netaddr_str(&conn->client, -1, a, sizeof(a)));
	}
	comm__tcp_conn_close(conn);
}

struct comm_tcp_conn *
comm__tcp_victim(struct comm_point *c, int *fresh)
{
	struct comm_tcp_conn *best = NULL;
	int i;
	for(i = 0; i < c->nslots; i++) {
		struct comm_tcp_conn *conn = &c->conns[i];
		if(conn->fd == -1 || tcp_conn_owed(conn))
			continue;
		if(conn->round == c->accept_round) {
			/* its first bytes may be on the way: it gets a
			 * wait of the loop before it can be closed */
			*fresh = 1;
			continue;
		}
		if(!best || (conn->nq == 0 && best->nq != 0) ||
			((conn->nq == 0) == (best->nq == 0) &&
			timercmp(&conn->since, &best->since, <)))
			best = conn;
	}
	return best;
}

/**
 * Free a slot by closing an idle connection (see the file comment).
 * @param fresh: set to 1 when idle connections accepted in this round
 *	were passed over (try again in the next round).
 * @return the free slot, or NULL (every connection is owed an answer, or
 *	kept its slot by sending a whole query just now, or is fresh).
 */
static struct comm_tcp_conn *
tcp_evict(struct comm_point *c, int *fresh)
{
	int k;
	for(k = 0; k < TCP_EVICT_TRIES; k++) {
		struct comm_tcp_conn *v = comm__tcp_victim(c, fresh);
		uint64_t nq;
		if(!v)
			return NULL;
		nq = v->nq;
		/* its query may be waiting in the socket */
		if(!v->read_closed)
			(void)tcp_conn_read(v);
		if(v->fd == -1)
			return v;
		if(v->nq != nq)
			continue;
		c->stats.tcp_evicted++;
		if(verbosity >= VERB_ALGO) {
			char a[NETADDR_STRLEN];
			verbose(VERB_ALGO, "tcp: table full, closing the idle "
				"connection from %s (%d queries)", netaddr_str(
				&v->client, -1, a, sizeof(a)), (int)v->nq);
		}
		comm__tcp_conn_close(v);
		return v;
	}
	return NULL;
}

/** accept was paused (out of descriptors): listen again */
static void
tcp_accept_resume(void *arg)
{
	struct comm_point *c = arg;
	c->accept_paused = 0;
#ifdef HAVE_LIBURING
	if(c->tring) {
		comm__tcp_ring_accept_mode(c);
		return;
	}
#endif
	if(c->listening && nev_io_set(c->base, c->io, NEV_READ) == -1)
		log_err("tcp: cannot wait for fd %d again", c->fd);
}

/** accept failed for want of descriptors or memory: close an idle
 * connection to make room, else stop accepting for a while (the socket
 * stays readable, and would wake the loop at once again) */
static void
tcp_accept_starved(struct comm_point *c)
{
	int fresh = 0;
	if(tcp_evict(c, &fresh))
		return;
	if(c->accept_paused || !c->accept_timer)
		return;
	if(nev_io_set(c->base, c->io, 0) == -1)
		return;
	c->accept_paused = 1;
	c->stats.tcp_accept_pauses++;
	(void)comm_timer_set(c->accept_timer, TCP_ACCEPT_PAUSE_MS);
}

void
comm__tcp_acceptable(int lfd, int events, void *arg)
{
	struct comm_point *c = arg;
	int k;
	(void)events;
	c->accept_round++;
	for(k = 0; k < TCP_ACCEPTS_PER_WAKE && !c->accept_paused; k++) {
		struct netaddr client;
		struct comm_tcp_conn *conn = NULL;
		int fd, i, fresh = 0, slot;
		/* a free slot, else an idle connection's (closed once a
		 * new connection is there) */
		if(c->nconn < c->max_conn) {
			for(i = 0; i < c->nslots; i++)
				if(c->conns[i].fd == -1) {
					conn = &c->conns[i];
					break;
				}
		}
		/* when only connections accepted this round are idle, leave
		 * the rest in the backlog for the next round, when those
		 * have had their chance to speak */
		if(!conn && !comm__tcp_victim(c, &fresh) && fresh)
			return;
		client.len = sizeof(client.addr);
#ifdef HAVE_ACCEPT4
		fd = accept4(lfd, (struct sockaddr *)&client.addr, &client.len,
			SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
		fd = accept(lfd, (struct sockaddr *)&client.addr, &client.len);
#endif
		if(fd == -1) {
			if(errno == EMFILE || errno == ENFILE ||
				errno == ENOBUFS || errno == ENOMEM) {
				verbose(VERB_OPS, "tcp accept: %s",
					strerror(errno));
				tcp_accept_starved(c);
				continue;
			}
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR && errno != ECONNABORTED)
				verbose(VERB_OPS, "tcp accept: %s",
					strerror(errno));
			return;
		}
#ifndef HAVE_ACCEPT4
		if(nev_fd_nonblock(fd) == -1) {
			close(fd);
			continue;
		}
#endif
		slot = -1;
		if(c->limit.admit && !c->limit.admit(c->limit.arg, &client,
			&slot)) {
			/* tcp-connection-limit: accepted, closed at once */
			c->stats.tcp_refused++;
			close(fd);
			continue;
		}
		if(!conn)
			conn = tcp_evict(c, &fresh);
		if(!conn) {
			/* every connection is owed an answer: refuse this
			 * one cleanly */
			c->stats.tcp_refused++;
			if(verbosity >= VERB_ALGO) {
				char a[NETADDR_STRLEN];
				verbose(VERB_ALGO, "tcp: every connection is "
					"owed an answer, refusing %s",
					netaddr_str(&client, -1, a, sizeof(a)));
			}
			if(slot >= 0 && c->limit.release)
				c->limit.release(c->limit.arg, slot);
			close(fd);
			continue;
		}
		if(!conn->rbuf && !(conn->rbuf = malloc(c->bufsize))) {
			log_err("tcp accept: out of memory");
			if(slot >= 0 && c->limit.release)
				c->limit.release(c->limit.arg, slot);
			close(fd);
			continue;
		}
		conn->io = nev_io_new(c->base, fd, tcp_conn_event, conn);
		if(!conn->io) {
			c->stats.tcp_refused++;
			if(slot >= 0 && c->limit.release)
				c->limit.release(c->limit.arg, slot);
			close(fd);
			continue;
		}
		conn->fd = fd;
		conn->limit_slot = slot;
		conn->gen++;
		conn->client = client;
		conn->lgot = conn->got = conn->need = 0;
		conn->read_closed = 0;
		conn->pending = 0;
		conn->nq = 0;
		conn->round = c->accept_round;
		conn->mask = 0;
		conn->hs_done = 0;
		conn->resumed = 0;
		conn->ka = 0;
		conn->hs_mask = NEV_READ;
		conn->pp_wait = c->proxy;
		conn->proxy.len = 0;
		pp2_stream_init(&conn->pp);
		c->nconn++;
		c->stats.tcp_accepted++;
		if(c->tls_ctx && !(conn->ssl = tls_server_new(c->tls_ctx, fd))) {
			comm__tcp_conn_close(conn);
			continue;
		}
		if(c->http && tcp_conn_h2_open(conn) == -1) {
			comm__tcp_conn_close(conn);
			continue;
		}
		if(tcp_conn_mask(conn, NEV_READ) == -1) {
			comm__tcp_conn_close(conn);
			continue;
		}
		comm__tcp_conn_progress(conn);
		comm__tcp_pressure_check(c);
		/* the query (or the ClientHello, with TCP_DEFER_ACCEPT) often
		 * came with the connection: the PROXY header is read first,
		 * TLS runs its handshake next, and reads only once that is
		 * done */
		if(conn->pp_wait && tcp_conn_proxy_read(conn) != 0)
			continue;
		if(!conn->ssl || tcp_conn_handshake(conn) == 0)
			(void)tcp_conn_read(conn);
	}
}

struct comm_point *
comm_point_create_tcp(struct comm_base *base, int fd, int max_conn,
	int idle_timeout_ms, size_t bufsize, comm_point_cb_type cb, void *arg)
{
	struct comm_point *c;
	int i;
	if(!(c = comm__cp_new(base, fd, COMM_TCP, bufsize, cb, arg)))
		return NULL;
	if(c->bufsize > 65535)
		c->bufsize = 65535;
#ifdef TCP_DEFER_ACCEPT
	{
		/* a DNS client speaks first: the kernel keeps a connection
		 * until its first bytes arrive, so one that never sends
		 * takes no slot, and a query is there when it is accepted */
		int secs = TCP_FIRST_QUERY_MS / 1000;
		if(setsockopt(fd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &secs,
			sizeof(secs)) == -1)
			verbose(VERB_ALGO, "tcp: setsockopt TCP_DEFER_ACCEPT: %s",
				strerror(errno));
	}
#endif
	c->max_conn = max_conn > 0 ? max_conn : 1;
	c->idle_ms = idle_timeout_ms;
	c->first_ms = TCP_FIRST_QUERY_MS;
	c->pressure_ms = TCP_PRESSURE_IDLE_MS;
	c->nslots = c->max_conn;
#ifdef HAVE_LIBURING
	if(base->be == &nev_backend_uring)
		c->nslots = 2 * c->max_conn;
#endif
	c->conns = calloc((size_t)c->nslots, sizeof(*c->conns));
	if(!c->conns) {
		log_err("comm_point_create_tcp: out of memory");
		goto fail;
	}
	for(i = 0; i < c->nslots; i++) {
		c->conns[i].c = c;
		c->conns[i].fd = -1;
		c->conns[i].wq.total = &c->wq_bytes;
	}
	for(i = 0; i < c->nslots; i++) {
		c->conns[i].timer = comm_timer_create(base, tcp_conn_timeout,
			&c->conns[i]);
		if(!c->conns[i].timer)
			goto fail;
	}
	c->accept_timer = comm_timer_create(base, tcp_accept_resume, c);
	if(!c->accept_timer)
		goto fail;
	if(comm__cp_listen(c, comm__tcp_acceptable) == -1)
		goto fail;
	return c;
fail:
	comm_point_delete(c);
	return NULL;
}
