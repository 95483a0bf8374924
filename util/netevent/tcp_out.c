/*
 * util/netevent/tcp_out.c - outgoing TCP connections for upstream queries.
 *
 * A nonblocking connect is watched for writability; SO_ERROR tells how it
 * went. Queries are queued with their 2-byte length and written as the
 * socket allows (also before the connect completes: they wait). Replies are
 * read with the same framing and handed to the callback one by one. One
 * timer serves as connect timeout and then as idle timeout between reads.
 *
 * TLS (comm_tcp_out_create_tls): once the connect completes, the handshake
 * (util/netevent/tls.c) is driven from the same event callback, the
 * interest following what each step wants; queries queued meanwhile wait
 * in the queue and are only ever written through SSL_write, so nothing
 * leaves in clear. A failed handshake or certificate check ends the
 * connection with COMM_TCP_OUT_TLS_FAILED and the reason kept for
 * comm_tcp_out_error().
 *
 * Deletion from inside the callback: the callback runs with in_cb set;
 * comm_tcp_out_delete() then closes the socket at once but defers the
 * free until the callback returns.
 *
 * Reuse (comm_tcp_out_park, comm_tcp_out_reopen): a parked connection
 * keeps its struct, timer, reply buffer, a spare write queue item and,
 * where the backend can move a watch to another descriptor (io_refd),
 * its watch; reopening it allocates nothing. Parking bumps gen, so a
 * callback that parked (and maybe reopened) t ends the event handling of
 * the old connection at once, as a delete does.
 */
#include "config.h"
#include "util/netevent/netevent_int.h"
#include "util/netevent/tls.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>

/** an outgoing TCP connection */
struct comm_tcp_out {
	/** the base */
	struct comm_base *base;
	/** socket, -1 once closed */
	int fd;
	/** backend io */
	void *io;
	/** connect / idle timer */
	struct comm_timer *timer;
	/** timeout in ms */
	int timeout_ms;
	/** connect completed */
	int connected;
	/** the connection ended (callback told) */
	int closed;
	/** callback running */
	int in_cb;
	/** delete requested from the callback */
	int deleted;
	/** interest set */
	int mask;
	/** callback */
	comm_tcp_out_cb_type cb;
	/** its argument */
	void *arg;
	/** queued queries */
	struct nev_wq wq;
	/** length prefix */
	uint8_t lenbuf[2];
	/** bytes of lenbuf read */
	size_t lgot;
	/** reply length */
	size_t need;
	/** reply bytes read */
	size_t got;
	/** reply buffer, 65535 bytes */
	uint8_t *rbuf;
	/** TLS state, or NULL for plain TCP */
	struct ssl_st *ssl;
	/** the TLS handshake is complete */
	int hs_done;
	/** what the handshake waits for (TLS_IO_WANT_READ or _WRITE) */
	enum tls_io hs_want;
	/** why the connection failed, "" if it did not */
	char why[160];
	/** raw mode (comm_tcp_out_set_h2): no DNS framing; the bytes read
	 * go to the callback as they come */
	int raw;
	/** bumped by every park: the connection a callback ran for is gone
	 * when it changed */
	unsigned gen;
};

/** release the socket and the queue (not the struct); the watch is
 * freed, or with keep_io detached from the descriptor (kept when the
 * backend can move it to another one) */
static void
out_close_io(struct comm_tcp_out *t, int keep_io)
{
	if(t->io && keep_io) {
		(void)nev_io_set(t->base, t->io, 0);
		if(nev_io_refd(t->base, t->io, -1) != 0) {
			nev_io_free(t->base, t->io);
			t->io = NULL;
		}
	} else if(t->io) {
		nev_io_free(t->base, t->io);
		t->io = NULL;
	}
	if(t->ssl) {
		tls_free(t->ssl);
		t->ssl = NULL;
	}
	if(t->fd != -1) {
		close(t->fd);
		t->fd = -1;
	}
	comm_timer_disable(t->timer);
	nev_wq_empty(&t->wq);
	t->mask = 0;
}

/** release the socket, the watch and the queue (not the struct) */
static void
out_close(struct comm_tcp_out *t)
{
	out_close_io(t, 0);
}

static void
out_free(struct comm_tcp_out *t)
{
	out_close(t);
	nev_wq_clear(&t->wq);
	comm_timer_delete(t->timer);
	free(t->rbuf);
	free(t);
}

/** call the callback. @return 0, or -1 if t was deleted in it */
static int
out_call(struct comm_tcp_out *t, enum comm_tcp_out_status st,
	const uint8_t *pkt, size_t len)
{
	unsigned gen = t->gen;
	t->in_cb++;
	t->cb(t, st, pkt, len, t->arg);
	t->in_cb--;
	if(t->deleted) {
		if(!t->in_cb)
			out_free(t);
		return -1;
	}
	if(t->gen != gen)
		return -1; /* parked (and maybe reopened) in the callback */
	return 0;
}

/** end the connection and tell the callback once */
static void
out_fail(struct comm_tcp_out *t, enum comm_tcp_out_status st)
{
	out_close(t);
	if(t->closed)
		return;
	t->closed = 1;
	(void)out_call(t, st, NULL, 0);
}

/** set the interest to what is wanted now. @return 0 or -1 */
static int
out_update_mask(struct comm_tcp_out *t)
{
	int mask = NEV_READ;
	if(!t->connected || t->wq.head)
		mask |= NEV_WRITE;
	if(!t->connected)
		mask = NEV_WRITE;
	else if(t->ssl && !t->hs_done)
		mask = t->hs_want == TLS_IO_WANT_WRITE ? NEV_WRITE : NEV_READ;
	if(mask == t->mask)
		return 0;
	t->mask = mask;
	return nev_io_set(t->base, t->io, mask);
}

/** write queued queries. @return 0 or -1 (failed, callback told) */
static int
out_flush(struct comm_tcp_out *t)
{
	uint64_t written = 0;
	if(t->ssl) {
		enum tls_io st;
		if(!t->hs_done)
			return 0;
		st = tls_wq_write(t->ssl, &t->wq, &written);
		if(st == TLS_IO_CLOSED || st == TLS_IO_FAIL) {
			(void)tls_fail_reason(t->ssl, t->why, sizeof(t->why));
			verbose(VERB_ALGO, "tls out write: %s", t->why);
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
	} else if(nev_wq_write(&t->wq, t->fd, &written) == -1) {
		verbose(VERB_ALGO, "tcp out write: %s", strerror(errno));
		out_fail(t, COMM_TCP_OUT_CLOSED);
		return -1;
	}
	if(out_update_mask(t) == -1) {
		out_fail(t, COMM_TCP_OUT_CLOSED);
		return -1;
	}
	return 0;
}

/** raw mode: hand the bytes read to the callback. @return 0, or -1 if
 * t ended or was deleted */
static int
out_read_raw(struct comm_tcp_out *t)
{
	for(;;) {
		ssize_t r;
		if(t->ssl) {
			size_t n = 0;
			enum tls_io st = tls_read(t->ssl, t->rbuf, 65535, &n);
			if(st == TLS_IO_WANT_READ || st == TLS_IO_WANT_WRITE)
				return 0;
			if(st != TLS_IO_DONE) {
				(void)tls_fail_reason(t->ssl, t->why,
					sizeof(t->why));
				out_fail(t, COMM_TCP_OUT_CLOSED);
				return -1;
			}
			r = (ssize_t)n;
		} else	r = read(t->fd, t->rbuf, 65535);
		if(r == 0) {
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
		if(r == -1) {
			if(errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR)
				return 0;
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
		if(t->timeout_ms > 0)
			(void)comm_timer_set(t->timer, t->timeout_ms);
		if(out_call(t, COMM_TCP_OUT_REPLY, t->rbuf, (size_t)r) == -1)
			return -1;
		if(t->fd == -1)
			return -1;
	}
}

/** read replies. @return 0, or -1 if t ended or was deleted */
static int
out_read(struct comm_tcp_out *t)
{
	if(t->raw)
		return out_read_raw(t);
	for(;;) {
		ssize_t r;
		if(t->ssl) {
			size_t n = 0;
			enum tls_io st;
			if(t->lgot < 2)
				st = tls_read(t->ssl, t->lenbuf + t->lgot,
					2 - t->lgot, &n);
			else	st = tls_read(t->ssl, t->rbuf + t->got,
					t->need - t->got, &n);
			if(st == TLS_IO_WANT_READ || st == TLS_IO_WANT_WRITE)
				return 0;
			if(st != TLS_IO_DONE) {
				(void)tls_fail_reason(t->ssl, t->why,
					sizeof(t->why));
				verbose(VERB_ALGO, "tls out read: %s", t->why);
				out_fail(t, COMM_TCP_OUT_CLOSED);
				return -1;
			}
			r = (ssize_t)n;
		} else if(t->lgot < 2)
			r = read(t->fd, t->lenbuf + t->lgot, 2 - t->lgot);
		else	r = read(t->fd, t->rbuf + t->got, t->need - t->got);
		if(r == 0) {
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
		if(r == -1) {
			if(errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR)
				return 0;
			verbose(VERB_ALGO, "tcp out read: %s", strerror(errno));
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
		if(t->timeout_ms > 0)
			(void)comm_timer_set(t->timer, t->timeout_ms);
		if(t->lgot < 2) {
			t->lgot += (size_t)r;
			if(t->lgot == 2) {
				t->need = ((size_t)t->lenbuf[0] << 8) |
					t->lenbuf[1];
				t->got = 0;
				if(t->need == 0) {
					out_fail(t, COMM_TCP_OUT_CLOSED);
					return -1;
				}
			}
			continue;
		}
		t->got += (size_t)r;
		if(t->got < t->need)
			continue;
		t->lgot = 0;
		if(out_call(t, COMM_TCP_OUT_REPLY, t->rbuf, t->need) == -1)
			return -1;
		if(t->fd == -1)
			return -1;
	}
}

/** advance the TLS handshake. @return 0 (done or waiting; the interest
 * follows), or -1 if t ended */
static int
out_handshake(struct comm_tcp_out *t)
{
	enum tls_io st = tls_handshake(t->ssl);
	if(st == TLS_IO_DONE) {
		t->hs_done = 1;
		return out_flush(t);
	}
	if(st == TLS_IO_WANT_READ || st == TLS_IO_WANT_WRITE) {
		t->hs_want = st;
		if(out_update_mask(t) == -1) {
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return -1;
		}
		return 0;
	}
	if(st == TLS_IO_CLOSED && !tls_fail_was_cert(t->ssl))
		snprintf(t->why, sizeof(t->why), "TLS handshake: connection "
			"closed by the server");
	else	(void)tls_fail_reason(t->ssl, t->why, sizeof(t->why));
	out_fail(t, COMM_TCP_OUT_TLS_FAILED);
	return -1;
}

static void
out_event(int fd, int events, void *arg)
{
	struct comm_tcp_out *t = arg;
	if(!t->connected) {
		int err = 0;
		socklen_t elen = sizeof(err);
		if(getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &elen) == -1)
			err = errno;
		if(err == EINPROGRESS || err == EALREADY)
			return;
		if(err != 0) {
			verbose(VERB_ALGO, "tcp out connect: %s",
				strerror(err));
			out_fail(t, COMM_TCP_OUT_CLOSED);
			return;
		}
		t->connected = 1;
		if(t->timeout_ms > 0)
			(void)comm_timer_set(t->timer, t->timeout_ms);
		if(t->ssl) {
			t->hs_want = TLS_IO_WANT_WRITE;
			(void)out_handshake(t);
			return;
		}
		(void)out_flush(t);
		return;
	}
	if(t->ssl && !t->hs_done) {
		(void)out_handshake(t);
		return;
	}
	if(events & NEV_WRITE) {
		if(out_flush(t) == -1)
			return;
	}
	if(events & NEV_READ)
		(void)out_read(t);
}

static void
out_timeout(void *arg)
{
	struct comm_tcp_out *t = arg;
	if(t->ssl && !t->hs_done)
		snprintf(t->why, sizeof(t->why), "%s timed out",
			t->connected ? "TLS handshake" : "connect");
	out_fail(t, COMM_TCP_OUT_TIMEOUT);
}

/** open the socket of t (fresh or parked: fd -1, io NULL or detached)
 * and start the connect. @return 0, or -1 (t closed again) */
static int
out_open(struct comm_tcp_out *t, const struct netaddr *to,
	const struct netaddr *from)
{
	char astr[NETADDR_STRLEN];
	int on = 1;
#if defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
	t->fd = socket(to->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		SOCK_CLOEXEC, 0);
#else
	t->fd = socket(to->addr.ss_family, SOCK_STREAM, 0);
#endif
	if(t->fd == -1) {
		verbose(VERB_OPS, "tcp out: socket: %s", strerror(errno));
		goto fail;
	}
#if !defined(SOCK_NONBLOCK) || !defined(SOCK_CLOEXEC)
	if(nev_fd_nonblock(t->fd) == -1)
		goto fail;
#endif
	(void)setsockopt(t->fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof(on));
#ifdef TCP_MAXSEG
	if(t->base->out_tcp_mss > 0 && setsockopt(t->fd, IPPROTO_TCP,
		TCP_MAXSEG, &t->base->out_tcp_mss,
		sizeof(t->base->out_tcp_mss)) == -1)
		verbose(VERB_OPS, "tcp out: setsockopt TCP_MAXSEG %d "
			"(outgoing-tcp-mss): %s", t->base->out_tcp_mss,
			strerror(errno));
#endif
	if(t->base->out_dscp > 0 && comm_sock_set_dscp(t->fd,
		to->addr.ss_family, t->base->out_dscp) == -1)
		verbose(VERB_OPS, "tcp out: ip-dscp %d: %s", t->base->out_dscp,
			strerror(errno));
	if(from && bind(t->fd, (const struct sockaddr *)&from->addr,
		from->len) == -1) {
		verbose(VERB_OPS, "tcp out: bind %s: %s",
			netaddr_str(from, -1, astr, sizeof(astr)),
			strerror(errno));
		goto fail;
	}
	if(connect(t->fd, (const struct sockaddr *)&to->addr, to->len) == -1
		&& errno != EINPROGRESS) {
		verbose(VERB_ALGO, "tcp out: connect %s: %s",
			netaddr_str(to, -1, astr, sizeof(astr)),
			strerror(errno));
		goto fail;
	}
	/* a kept watch moves to the new descriptor */
	if(t->io && nev_io_refd(t->base, t->io, t->fd) != 0) {
		nev_io_free(t->base, t->io);
		t->io = NULL;
	}
	if(!t->io)
		t->io = nev_io_new(t->base, t->fd, out_event, t);
	if(!t->io)
		goto fail;
	t->mask = 0;
	if(out_update_mask(t) == -1)
		goto fail;
	if(t->timeout_ms > 0 && comm_timer_set(t->timer, t->timeout_ms) == -1)
		goto fail;
	return 0;
fail:
	out_close(t);
	return -1;
}

struct comm_tcp_out *
comm_tcp_out_create(struct comm_base *base, const struct netaddr *to,
	const struct netaddr *from, int timeout_ms, comm_tcp_out_cb_type cb,
	void *arg)
{
	struct comm_tcp_out *t = calloc(1, sizeof(*t));
	if(!t) {
		log_err("comm_tcp_out_create: out of memory");
		return NULL;
	}
	t->base = base;
	t->cb = cb;
	t->arg = arg;
	t->timeout_ms = timeout_ms;
	t->fd = -1;
	/* a connection that carries one query at a time keeps its item */
	t->wq.keep_spare = 1;
	t->rbuf = malloc(65535);
	t->timer = comm_timer_create(base, out_timeout, t);
	if(!t->rbuf || !t->timer || out_open(t, to, from) != 0) {
		out_free(t);
		return NULL;
	}
	return t;
}

void
comm_tcp_out_park(struct comm_tcp_out *t)
{
	/* the watch is detached from the descriptor before it closes */
	out_close_io(t, 1);
	t->gen++;
	t->closed = 1;
}

int
comm_tcp_out_reopen(struct comm_tcp_out *t, const struct netaddr *to,
	const struct netaddr *from, int timeout_ms, comm_tcp_out_cb_type cb,
	void *arg)
{
	if(t->fd != -1 || t->ssl || t->deleted)
		return -1;
	t->cb = cb;
	t->arg = arg;
	t->timeout_ms = timeout_ms;
	t->connected = 0;
	t->closed = 0;
	t->lgot = t->need = t->got = 0;
	t->hs_done = 0;
	t->why[0] = 0;
	t->raw = 0;
	if(out_open(t, to, from) != 0) {
		/* out_close freed a watch it could not keep: parked again */
		t->closed = 1;
		return -1;
	}
	return 0;
}

int
comm_tcp_out_write(struct comm_tcp_out *t, const uint8_t *pkt, size_t len)
{
	if(t->fd == -1 || t->closed || nev_wq_push(&t->wq, pkt, len) != 0)
		return -1;
	if(t->connected && out_update_mask(t) == -1)
		return -1;
	/* a query on an idle connection: the idle timer starts again */
	if(t->connected && t->timeout_ms > 0)
		(void)comm_timer_set(t->timer, t->timeout_ms);
	return 0;
}

int
comm_tcp_out_set_h2(struct comm_tcp_out *t)
{
	t->raw = 1;
	if(t->ssl && tls_client_alpn_h2(t->ssl) != 0)
		return -1;
	return 0;
}

int
comm_tcp_out_write_raw(struct comm_tcp_out *t, const uint8_t *data,
	size_t len)
{
	if(t->fd == -1 || t->closed || nev_wq_push_raw(&t->wq, data, len) != 0)
		return -1;
	if(t->connected && out_update_mask(t) == -1)
		return -1;
	return 0;
}

struct comm_tcp_out *
comm_tcp_out_create_tls(struct comm_base *base, const struct netaddr *to,
	const struct netaddr *from, int timeout_ms, struct ssl_ctx_st *ctx,
	const char *auth_name, int use_sni, comm_tcp_out_cb_type cb,
	void *arg)
{
	char ip[NETADDR_STRLEN];
	struct comm_tcp_out *t;
	if(!ctx)
		return NULL;
	t = comm_tcp_out_create(base, to, from, timeout_ms, cb, arg);
	if(!t)
		return NULL;
	/* the address alone, without the port, for the iPAddress check */
	(void)netaddr_str(to, netaddr_port(to), ip, sizeof(ip));
	t->ssl = tls_client_new(ctx, t->fd, auth_name, ip, use_sni);
	if(!t->ssl) {
		out_free(t);
		return NULL;
	}
	return t;
}

int
comm_tcp_out_tls_done(const struct comm_tcp_out *t)
{
	return t->hs_done;
}

const char *
comm_tcp_out_error(const struct comm_tcp_out *t)
{
	return t->why;
}

void
comm_tcp_out_delete(struct comm_tcp_out *t)
{
	if(!t)
		return;
	if(t->in_cb) {
		t->deleted = 1;
		t->closed = 1;
		out_close(t);
		return;
	}
	out_free(t);
}
