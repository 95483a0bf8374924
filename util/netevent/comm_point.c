/*
 * util/netevent/comm_point.c - UDP and TCP comm_points and later answers.
 *
 * UDP. All memory is allocated at creation: batch slots, each with a
 * buffer of bufsize bytes, a struct comm_reply (whose client address is
 * the recvmmsg name buffer itself, so nothing is copied), and receive and
 * send control buffers for the packet info. A readable socket is drained
 * in at most NETEVENT_UDP_BATCHES_PER_WAKE recvmmsg calls; the callback
 * runs per datagram and the answers of one batch leave with one sendmmsg.
 * When sendmmsg stops short (or is missing) the rest go one sendmsg each;
 * an answer the kernel refuses (full buffer) is dropped and counted.
 * A socket that stays full goes into busy mode (below, at udp_busy_leave).
 *
 * TCP. A listening comm_point has max_conn connection slots, allocated at
 * creation (the read buffer of a slot on its first use, then kept). Past
 * the limit a new connection is accepted and closed at once, so the
 * backlog does not fill and the client learns at once; existing
 * connections are not affected. Each connection reads 2-byte-length-framed
 * queries (partial reads resumed), hands each to the callback, and queues
 * answers (copied, with their length) on a per-connection write queue
 * drained as the socket allows, so several queries are in flight and
 * answered in any order. A length of 0, a read error or the idle timer
 * close that connection only. When the client closes its sending side,
 * the connection stays until the queued answers are written and the
 * queries answered later have been answered (or the idle timer fires). A slot's generation number changes when the
 * connection opens and closes, so a saved comm_reply_addr for a closed
 * connection is detected and its answer dropped.
 */
#include "config.h"
#include "util/netevent/netevent_int.h"
#include "util/netevent/tls.h"
#include "dns/padding.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/uio.h>

#if defined(HAVE_RECVMMSG) || defined(HAVE_SENDMMSG)
#define nev_mmsg mmsghdr
#else
/** the layout of struct mmsghdr, for systems without it */
struct nev_mmsg {
	/** the message */
	struct msghdr msg_hdr;
	/** bytes received */
	unsigned int msg_len;
};
#endif

/** comm_point kinds */
enum comm_point_type {
	/** UDP socket */
	COMM_UDP,
	/** TCP listening socket */
	COMM_TCP
};

/** most answers queued on one connection before reading pauses */
#define TCP_MAX_QUEUED 64
/** most queries read from one connection per wake-up (fairness) */
#define TCP_READS_PER_WAKE 32
/** most connections accepted per wake-up */
#define TCP_ACCEPTS_PER_WAKE 16

/** one TCP connection slot */
struct comm_tcp_conn {
	/** the listening comm_point */
	struct comm_point *c;
	/** socket, -1 when the slot is free */
	int fd;
	/** backend io */
	void *io;
	/** idle timer */
	struct comm_timer *timer;
	/** generation: changes on open and close */
	uint32_t gen;
	/** interest mask currently set */
	int mask;
	/** the client's address */
	struct netaddr client;
	/** read buffer (bufsize), allocated on first use */
	uint8_t *rbuf;
	/** the length prefix being read */
	uint8_t lenbuf[2];
	/** bytes of lenbuf read */
	size_t lgot;
	/** message length (valid when lgot == 2) */
	size_t need;
	/** message bytes read */
	size_t got;
	/** queued answers */
	struct nev_wq wq;
	/** queries handed to the callback and not answered there (they may
	 * be answered later with comm_reply_send) */
	int pending;
	/** the client closed its side: close after the queue drains and the
	 * pending queries are answered (or the idle timer fires) */
	int read_closed;
	/** DNS over TLS (comm_point_set_tls): the connection's TLS state,
	 * else NULL. Reads and writes go through util/netevent/tls.c; until
	 * the handshake is done only the handshake runs */
	struct ssl_st *ssl;
	/** the TLS handshake is complete */
	int hs_done;
	/** what the handshake waits for: NEV_READ or NEV_WRITE */
	int hs_mask;
};

/** a UDP or TCP service point */
struct comm_point {
	/** the base */
	struct comm_base *base;
	/** kind */
	enum comm_point_type type;
	/** socket */
	int fd;
	/** backend io */
	void *io;
	/** reading / accepting */
	int listening;
	/** per-query callback */
	comm_point_cb_type cb;
	/** its argument */
	void *arg;
	/** buffer size per slot */
	size_t bufsize;
	/** counters */
	struct comm_point_stats stats;

	/* UDP */
	/** slots per batch */
	int batch;
	/** receive packet info (wildcard socket): AF_INET, AF_INET6, 0 */
	int pktinfo;
	/** size of one control buffer */
	size_t ctlsize;
	/** batch * bufsize bytes */
	uint8_t *bufs;
	/** per slot reply handles */
	struct comm_reply *reps;
	/** receive headers */
	struct nev_mmsg *rmsg;
	/** receive iovecs */
	struct iovec *riov;
	/** receive control buffers */
	uint8_t *rctl;
	/** send headers */
	struct nev_mmsg *smsg;
	/** send iovecs */
	struct iovec *siov;
	/** send control buffers */
	uint8_t *sctl;
	/** in busy mode: out of the backend, drained every loop iteration */
	int busy;
	/** next in the base's busy list */
	struct comm_point *busy_next;
	/** looks at a batch before it is answered, or NULL */
	comm_point_peek_type peek;
	/** its number of passes */
	int peek_stages;

	/* TCP */
	/** DNS over TLS: the server context (not owned), or NULL */
	struct ssl_ctx_st *tls_ctx;
	/** DNS over TLS: answer padding block size, 0 for none */
	int pad_block;
	/** scratch for a padded answer (65535 bytes) when pad_block */
	uint8_t *padbuf;
	/** slots */
	struct comm_tcp_conn *conns;
	/** number of slots */
	int max_conn;
	/** connections open */
	int nconn;
	/** idle timeout */
	int idle_ms;
};

/* ------------------------------------------------------------------ */
/* UDP */

/** space for the largest packet info control message */
static size_t
ctl_space(void)
{
	size_t a = CMSG_SPACE(sizeof(struct in_pktinfo));
	size_t b = CMSG_SPACE(sizeof(struct in6_pktinfo));
	return a > b ? a : b;
}

/** read the packet info of a received message into local */
static void
udp_parse_ctl(struct msghdr *m, struct comm_local *local)
{
	struct cmsghdr *cm;
	local->family = 0;
	if(m->msg_controllen == 0)
		return;
	for(cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
#ifdef IP_PKTINFO
		if(cm->cmsg_level == IPPROTO_IP &&
			cm->cmsg_type == IP_PKTINFO) {
			memcpy(&local->pi.v4, CMSG_DATA(cm),
				sizeof(local->pi.v4));
			local->family = AF_INET;
			return;
		}
#endif
#ifdef IPV6_PKTINFO
		if(cm->cmsg_level == IPPROTO_IPV6 &&
			cm->cmsg_type == IPV6_PKTINFO) {
			memcpy(&local->pi.v6, CMSG_DATA(cm),
				sizeof(local->pi.v6));
			local->family = AF_INET6;
			return;
		}
#endif
	}
}

/**
 * Fill m's control data so the answer leaves from the asked address.
 * @param ctl: buffer of ctl_space() bytes.
 */
static void
udp_set_ctl(struct msghdr *m, const struct comm_local *local, uint8_t *ctl)
{
	struct cmsghdr *cm;
	m->msg_control = NULL;
	m->msg_controllen = 0;
	if(local->family == AF_INET) {
#ifdef IP_PKTINFO
		struct in_pktinfo pi = local->pi.v4;
		/* the kernel picks the interface from the source address;
		 * forcing the received ifindex breaks some routes */
		pi.ipi_ifindex = 0;
		m->msg_control = ctl;
		m->msg_controllen = CMSG_SPACE(sizeof(pi));
		memset(ctl, 0, m->msg_controllen);
		cm = CMSG_FIRSTHDR(m);
		cm->cmsg_level = IPPROTO_IP;
		cm->cmsg_type = IP_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(pi));
		memcpy(CMSG_DATA(cm), &pi, sizeof(pi));
#endif
	} else if(local->family == AF_INET6) {
#ifdef IPV6_PKTINFO
		m->msg_control = ctl;
		m->msg_controllen = CMSG_SPACE(sizeof(local->pi.v6));
		memset(ctl, 0, m->msg_controllen);
		cm = CMSG_FIRSTHDR(m);
		cm->cmsg_level = IPPROTO_IPV6;
		cm->cmsg_type = IPV6_PKTINFO;
		cm->cmsg_len = CMSG_LEN(sizeof(local->pi.v6));
		memcpy(CMSG_DATA(cm), &local->pi.v6, sizeof(local->pi.v6));
#endif
	}
}

/** send the first q queued answers of a batch */
static void
udp_send_batch(struct comm_point *c, int q)
{
	int i = 0;
	if(q <= 0)
		return;
#ifdef HAVE_SENDMMSG
	{
		int r = sendmmsg(c->fd, c->smsg, (unsigned int)q, 0);
		c->stats.sendmmsg_calls++;
		if(r > 0) {
			c->stats.pkts_out += (uint64_t)r;
			i = r;
		}
	}
#endif
	/* the rest (sendmmsg stopped at a failing packet, or is missing) */
	for(; i < q; i++) {
		c->stats.sendmsg_calls++;
		if(sendmsg(c->fd, &c->smsg[i].msg_hdr, 0) == -1) {
			c->stats.send_errors++;
			continue;
		}
		c->stats.pkts_out++;
	}
}

/** prepare slot i for receiving */
static void
udp_slot_reset(struct comm_point *c, int i)
{
	struct msghdr *m = &c->rmsg[i].msg_hdr;
	m->msg_name = &c->reps[i].client.addr;
	m->msg_namelen = sizeof(c->reps[i].client.addr);
	c->riov[i].iov_base = c->bufs + (size_t)i * c->bufsize;
	c->riov[i].iov_len = c->bufsize;
	m->msg_iov = &c->riov[i];
	m->msg_iovlen = 1;
	if(c->pktinfo) {
		m->msg_control = c->rctl + (size_t)i * c->ctlsize;
		m->msg_controllen = c->ctlsize;
	} else {
		m->msg_control = NULL;
		m->msg_controllen = 0;
	}
	m->msg_flags = 0;
}

/** receive one batch. @return datagrams received, 0 none, -1 error */
static int
udp_recv_batch(struct comm_point *c)
{
	int i, n;
	for(i = 0; i < c->batch; i++)
		udp_slot_reset(c, i);
#ifdef HAVE_RECVMMSG
	c->stats.recv_calls++;
	n = recvmmsg(c->fd, c->rmsg, (unsigned int)c->batch, MSG_DONTWAIT,
		NULL);
	if(n == -1) {
		if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return -1;
	}
	return n;
#else
	for(n = 0; n < c->batch; n++) {
		ssize_t r;
		c->stats.recv_calls++;
		r = recvmsg(c->fd, &c->rmsg[n].msg_hdr, MSG_DONTWAIT);
		if(r == -1) {
			if(errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR || n > 0)
				break;
			return -1;
		}
		c->rmsg[n].msg_len = (unsigned int)r;
	}
	return n;
#endif
}

/**
 * Drain a bounded number of batches from a UDP socket.
 * @return 1 when every batch came full (more is probably waiting), 0 when
 *	the socket ran dry or failed.
 */
static int
udp_drain(struct comm_point *c)
{
	int round;
	for(round = 0; round < NETEVENT_UDP_BATCHES_PER_WAKE; round++) {
		int i, q = 0;
		int n = udp_recv_batch(c);
		if(n < 0) {
			/* ICMP errors of earlier sends (ECONNREFUSED) and the
			 * like: not this socket's fault, try again later */
			verbose(VERB_ALGO, "udp recv: %s", strerror(errno));
			return 0;
		}
		if(n == 0)
			return 0;
		c->stats.batches++;
		c->stats.pkts_in += (uint64_t)n;
		for(i = 0; i < n; i++) {
			struct comm_reply *rep = &c->reps[i];
			rep->buf = c->riov[i].iov_base;
			rep->len = c->rmsg[i].msg_len;
			rep->cap = c->bufsize;
			rep->client.len = c->rmsg[i].msg_hdr.msg_namelen;
			rep->hint = 0;
		}
		if(c->peek && n > 1) {
			/* (one datagram has nothing to overlap with) */
			int stage;
			for(stage = 0; stage < c->peek_stages; stage++)
				for(i = 0; i < n; i++)
					c->peek(&c->reps[i], stage, c->arg);
		}
		for(i = 0; i < n; i++) {
			struct comm_reply *rep = &c->reps[i];
			struct msghdr *sm;
			if(c->pktinfo)
				udp_parse_ctl(&c->rmsg[i].msg_hdr, &rep->local);
			else	rep->local.family = 0;
			if(!c->cb(rep, c->arg) || rep->len == 0 ||
				rep->len > rep->cap)
				continue;
			sm = &c->smsg[q].msg_hdr;
			memset(sm, 0, sizeof(*sm));
			sm->msg_name = &rep->client.addr;
			sm->msg_namelen = rep->client.len;
			c->siov[q].iov_base = rep->buf;
			c->siov[q].iov_len = rep->len;
			sm->msg_iov = &c->siov[q];
			sm->msg_iovlen = 1;
			udp_set_ctl(sm, &rep->local, c->sctl +
				(size_t)q * c->ctlsize);
			q++;
		}
		udp_send_batch(c, q);
		if(n < c->batch)
			return 0;
	}
	return 1;
}

/*
 * Busy mode. While a socket is registered with epoll, the socket's wait
 * queue holds epoll's entry, and the kernel calls it for every datagram
 * sent from that socket as well (the freed send buffer space is a
 * "writable" wake-up, which epoll then filters out): about a tenth of a
 * microsecond of system time per answer. A socket that keeps coming back
 * full is therefore taken out of the backend and drained once per loop
 * iteration instead, with the loop not sleeping, until a batch comes back
 * short; then it waits in the backend again. Under load that is the same
 * number of system calls (epoll_wait with no timeout instead of a blocking
 * one) plus two epoll_ctl per busy period; without load nothing changes.
 */

/** leave busy mode: unlink; wait in the backend again if listening */
static void
udp_busy_leave(struct comm_point *c)
{
	struct comm_point **pp;
	if(!c->busy)
		return;
	for(pp = &c->base->busy; *pp; pp = &(*pp)->busy_next) {
		if(*pp == c) {
			*pp = c->busy_next;
			break;
		}
	}
	c->busy = 0;
	c->busy_next = NULL;
	if(c->listening && nev_io_set(c->base, c->io, NEV_READ) == -1)
		log_err("udp: cannot wait for fd %d again", c->fd);
}

/** the UDP socket is readable: drain it; busy mode if it stays full */
static void
udp_readable(int fd, int events, void *arg)
{
	struct comm_point *c = arg;
	(void)fd; (void)events;
	if(!udp_drain(c) || c->busy || !c->listening)
		return;
	if(nev_io_set(c->base, c->io, 0) == -1)
		return;
	/* 2: entered this iteration, polled from the next one on (the
	 * bound per wake-up holds for this one) */
	c->busy = 2;
	c->busy_next = c->base->busy;
	c->base->busy = c;
	c->stats.busy_periods++;
}

void
nev_udp_poll_busy(struct comm_base *base)
{
	struct comm_point *c, *next;
	for(c = base->busy; c; c = next) {
		next = c->busy_next;
		if(c->busy == 2)
			c->busy = 1;
		else if(!udp_drain(c))
			udp_busy_leave(c);
	}
}


void
comm_point_set_peek(struct comm_point *c, comm_point_peek_type peek,
	int stages)
{
	c->peek = peek;
	c->peek_stages = stages > 0 ? stages : 1;
}

/** allocate a comm_point's common part */
static struct comm_point *
cp_new(struct comm_base *base, int fd, enum comm_point_type type,
	size_t bufsize, comm_point_cb_type cb, void *arg)
{
	struct comm_point *c = calloc(1, sizeof(*c));
	if(!c) {
		log_err("comm_point: out of memory");
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

struct comm_point *
comm_point_create_udp(struct comm_base *base, int fd, size_t bufsize,
	int batch, comm_point_cb_type cb, void *arg)
{
	struct comm_point *c;
	struct netaddr local;
	int i;
	if(nev_fd_nonblock(fd) == -1) {
		log_warn("comm_point_create_udp: fcntl");
		close(fd);
		return NULL;
	}
	c = cp_new(base, fd, COMM_UDP, bufsize, cb, arg);
	if(!c) {
		close(fd);
		return NULL;
	}
	c->batch = batch > 0 ? batch : NETEVENT_UDP_BATCH_DEFAULT;
	c->ctlsize = ctl_space();
	local.len = sizeof(local.addr);
	if(getsockname(fd, (struct sockaddr *)&local.addr, &local.len) == 0
		&& comm_sock_is_wildcard(&local))
		c->pktinfo = local.addr.ss_family;
	c->bufs = malloc((size_t)c->batch * c->bufsize);
	c->reps = calloc((size_t)c->batch, sizeof(*c->reps));
	c->rmsg = calloc((size_t)c->batch, sizeof(*c->rmsg));
	c->riov = calloc((size_t)c->batch, sizeof(*c->riov));
	c->rctl = calloc((size_t)c->batch, c->ctlsize);
	c->smsg = calloc((size_t)c->batch, sizeof(*c->smsg));
	c->siov = calloc((size_t)c->batch, sizeof(*c->siov));
	c->sctl = calloc((size_t)c->batch, c->ctlsize);
	if(!c->bufs || !c->reps || !c->rmsg || !c->riov || !c->rctl ||
		!c->smsg || !c->siov || !c->sctl) {
		log_err("comm_point_create_udp: out of memory");
		goto fail;
	}
	for(i = 0; i < c->batch; i++) {
		c->reps[i].c = c;
		c->reps[i].slot = i;
	}
	c->io = nev_io_new(base, fd, udp_readable, c);
	if(!c->io)
		goto fail;
	if(comm_point_start_listening(c) == -1)
		goto fail;
	return c;
fail:
	comm_point_delete(c);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* TCP */

static void tcp_conn_event(int fd, int events, void *arg);

/** set a connection's interest if it changed */
static int
tcp_conn_mask(struct comm_tcp_conn *conn, int mask)
{
	if(conn->mask == mask)
		return 0;
	conn->mask = mask;
	return nev_io_set(conn->c->base, conn->io, mask);
}

/** close a connection and free its slot */
static void
tcp_conn_close(struct comm_tcp_conn *conn)
{
	if(conn->fd == -1)
		return;
	nev_io_free(conn->c->base, conn->io);
	conn->io = NULL;
	comm_timer_disable(conn->timer);
	if(conn->ssl) {
		tls_free(conn->ssl);
		conn->ssl = NULL;
	}
	close(conn->fd);
	conn->fd = -1;
	conn->gen++;
	conn->mask = 0;
	nev_wq_clear(&conn->wq);
	conn->c->nconn--;
}

/** the interest a connection wants now */
static int
tcp_conn_want(struct comm_tcp_conn *conn)
{
	int mask = 0;
	if(conn->ssl && !conn->hs_done)
		return conn->hs_mask;
	if(!conn->read_closed && conn->wq.num < TCP_MAX_QUEUED &&
		conn->c->listening)
		mask |= NEV_READ;
	if(conn->wq.head)
		mask |= NEV_WRITE;
	return mask;
}

/**
 * Write what the socket takes.
 * @return 0; 1 if the connection was closed because it is finished (all
 *	written, client done); -1 if it was closed on an error.
 */
static int
tcp_conn_flush(struct comm_tcp_conn *conn)
{
	if(conn->ssl && !conn->hs_done)
		return 0;
	if((conn->ssl ? tls_wq_write_sys(conn->ssl, &conn->wq,
		&conn->c->stats.pkts_out) : nev_wq_write(&conn->wq, conn->fd,
		&conn->c->stats.pkts_out)) == -1) {
		verbose(VERB_ALGO, "tcp write: %s", strerror(errno));
		conn->c->stats.tcp_errors++;
		tcp_conn_close(conn);
		return -1;
	}
	if(!conn->wq.head && conn->read_closed && conn->pending == 0) {
		tcp_conn_close(conn);
		return 1;
	}
	if(tcp_conn_mask(conn, tcp_conn_want(conn)) == -1) {
		tcp_conn_close(conn);
		return -1;
	}
	return 0;
}

/**
 * Queue an answer (copied) and try to write it.
 * @return 0 if queued or written (the connection may have been closed
 *	after a complete write), -1 if dropped.
 */
static int
tcp_conn_queue(struct comm_tcp_conn *conn, const uint8_t *pkt, size_t len,
	int pad)
{
	struct comm_point *c = conn->c;
	if(pad && conn->ssl && c->padbuf && len <= 65535) {
		memcpy(c->padbuf, pkt, len);
		len = dns_pad(c->padbuf, len, 65535, (size_t)c->pad_block);
		pkt = c->padbuf;
	}
	if(nev_wq_push(&conn->wq, pkt, len) != 0)
		return -1;
	if(conn->c->idle_ms > 0)
		(void)comm_timer_set(conn->timer, conn->c->idle_ms);
	return tcp_conn_flush(conn) == -1 ? -1 : 0;
}

/** the connection is readable. @return 0, or -1 if it was closed */
static int
tcp_conn_read(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	int msgs = 0;
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
			conn->read_closed = 1;
			if(conn->lgot != 0)
				verbose(VERB_ALGO, "tcp: EOF inside a message");
			return tcp_conn_flush(conn) ? -1 : 0;
		}
		if(r == -1) {
			if(errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR)
				break;
			verbose(VERB_ALGO, "tcp read: %s", strerror(errno));
			c->stats.tcp_errors++;
			tcp_conn_close(conn);
			return -1;
		}
		if(c->idle_ms > 0)
			(void)comm_timer_set(conn->timer, c->idle_ms);
		if(conn->lgot < 2) {
			conn->lgot += (size_t)r;
			if(conn->lgot < 2)
				continue;
			conn->need = ((size_t)conn->lenbuf[0] << 8) |
				conn->lenbuf[1];
			conn->got = 0;
			if(conn->need == 0 || conn->need > c->bufsize) {
				/* malformed: this connection only */
				verbose(VERB_ALGO, "tcp: bad length %d, closing",
					(int)conn->need);
				c->stats.tcp_errors++;
				tcp_conn_close(conn);
				return -1;
			}
			continue;
		}
		conn->got += (size_t)r;
		if(conn->got < conn->need)
			continue;
		/* a whole query */
		conn->lgot = 0;
		msgs++;
		c->stats.pkts_in++;
		{
			struct comm_reply rep;
			rep.c = c;
			rep.buf = conn->rbuf;
			rep.len = conn->need;
			rep.cap = c->bufsize;
			rep.client = conn->client;
			rep.local.family = 0;
			rep.conn = conn;
			rep.gen = conn->gen;
			rep.is_tcp = 1;
			rep.hint = 0;
			rep.slot = 0;
			rep.pad = conn->ssl && c->pad_block &&
				dns_has_padding(rep.buf, rep.len);
			if(c->cb(&rep, c->arg) && rep.len > 0 &&
				rep.len <= rep.cap) {
				if(conn->fd == -1 || conn->gen != rep.gen)
					return -1;
				if(tcp_conn_queue(conn, rep.buf, rep.len,
					rep.pad) == -1)
					return -1;
			} else if(conn->fd != -1 && conn->gen == rep.gen)
				conn->pending++;
			if(conn->fd == -1 || conn->gen != rep.gen)
				return -1;
		}
	}
	if(tcp_conn_mask(conn, tcp_conn_want(conn)) == -1) {
		tcp_conn_close(conn);
		return -1;
	}
	return 0;
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
		conn->c->stats.tls_handshakes++;
		return 0;
	}
	if(st == TLS_IO_WANT_READ || st == TLS_IO_WANT_WRITE) {
		conn->hs_mask = st == TLS_IO_WANT_READ ? NEV_READ : NEV_WRITE;
		if(tcp_conn_mask(conn, conn->hs_mask) == -1) {
			tcp_conn_close(conn);
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
	tcp_conn_close(conn);
	return -1;
}

static void
tcp_conn_event(int fd, int events, void *arg)
{
	struct comm_tcp_conn *conn = arg;
	uint32_t gen = conn->gen;
	(void)fd;
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
	conn->c->stats.tcp_timeouts++;
	verbose(VERB_ALGO, "tcp: idle timeout, closing");
	tcp_conn_close(conn);
}

/** accept new connections */
static void
tcp_acceptable(int lfd, int events, void *arg)
{
	struct comm_point *c = arg;
	int k;
	(void)events;
	for(k = 0; k < TCP_ACCEPTS_PER_WAKE; k++) {
		struct netaddr client;
		struct comm_tcp_conn *conn = NULL;
		int fd, i;
		client.len = sizeof(client.addr);
#ifdef HAVE_ACCEPT4
		fd = accept4(lfd, (struct sockaddr *)&client.addr, &client.len,
			SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
		fd = accept(lfd, (struct sockaddr *)&client.addr, &client.len);
#endif
		if(fd == -1) {
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
		if(c->nconn < c->max_conn) {
			for(i = 0; i < c->max_conn; i++)
				if(c->conns[i].fd == -1) {
					conn = &c->conns[i];
					break;
				}
		}
		if(!conn) {
			/* over incoming-num-tcp: refuse this one cleanly */
			c->stats.tcp_refused++;
			close(fd);
			continue;
		}
		if(!conn->rbuf && !(conn->rbuf = malloc(c->bufsize))) {
			log_err("tcp accept: out of memory");
			close(fd);
			continue;
		}
		conn->io = nev_io_new(c->base, fd, tcp_conn_event, conn);
		if(!conn->io) {
			c->stats.tcp_refused++;
			close(fd);
			continue;
		}
		conn->fd = fd;
		conn->gen++;
		conn->client = client;
		conn->lgot = conn->got = conn->need = 0;
		conn->read_closed = 0;
		conn->pending = 0;
		conn->mask = 0;
		conn->hs_done = 0;
		conn->hs_mask = NEV_READ;
		c->nconn++;
		c->stats.tcp_accepted++;
		if(c->tls_ctx && !(conn->ssl = tls_server_new(c->tls_ctx, fd))) {
			tcp_conn_close(conn);
			continue;
		}
		if(tcp_conn_mask(conn, NEV_READ) == -1) {
			tcp_conn_close(conn);
			continue;
		}
		if(c->idle_ms > 0)
			(void)comm_timer_set(conn->timer, c->idle_ms);
	}
}

struct comm_point *
comm_point_create_tcp(struct comm_base *base, int fd, int max_conn,
	int idle_timeout_ms, size_t bufsize, comm_point_cb_type cb, void *arg)
{
	struct comm_point *c;
	int i;
	if(nev_fd_nonblock(fd) == -1) {
		log_warn("comm_point_create_tcp: fcntl");
		close(fd);
		return NULL;
	}
	c = cp_new(base, fd, COMM_TCP, bufsize, cb, arg);
	if(!c) {
		close(fd);
		return NULL;
	}
	if(c->bufsize > 65535)
		c->bufsize = 65535;
	c->max_conn = max_conn > 0 ? max_conn : 1;
	c->idle_ms = idle_timeout_ms;
	c->conns = calloc((size_t)c->max_conn, sizeof(*c->conns));
	if(!c->conns) {
		log_err("comm_point_create_tcp: out of memory");
		goto fail;
	}
	for(i = 0; i < c->max_conn; i++) {
		c->conns[i].c = c;
		c->conns[i].fd = -1;
	}
	for(i = 0; i < c->max_conn; i++) {
		c->conns[i].timer = comm_timer_create(base, tcp_conn_timeout,
			&c->conns[i]);
		if(!c->conns[i].timer)
			goto fail;
	}
	c->io = nev_io_new(base, fd, tcp_acceptable, c);
	if(!c->io)
		goto fail;
	if(comm_point_start_listening(c) == -1)
		goto fail;
	return c;
fail:
	comm_point_delete(c);
	return NULL;
}

/* ------------------------------------------------------------------ */
/* common */

void
comm_point_delete(struct comm_point *c)
{
	int i;
	if(!c)
		return;
	if(c->conns) {
		for(i = 0; i < c->max_conn; i++) {
			tcp_conn_close(&c->conns[i]);
			comm_timer_delete(c->conns[i].timer);
			free(c->conns[i].rbuf);
		}
		free(c->conns);
	}
	c->listening = 0;
	udp_busy_leave(c);
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
}

int
comm_point_fd(struct comm_point *c)
{
	return c->fd;
}

void
comm_point_set_tls(struct comm_point *c, struct ssl_ctx_st *ctx)
{
	c->tls_ctx = ctx;
}

int
comm_point_set_tls_padding(struct comm_point *c, int block)
{
	c->pad_block = block > 1 ? block : 0;
	if(c->pad_block && !c->padbuf && !(c->padbuf = malloc(65535)))
		return -1;
	return 0;
}

int
comm_point_tcp_count(struct comm_point *c)
{
	return c->type == COMM_TCP ? c->nconn : 0;
}

int
comm_point_stop_listening(struct comm_point *c)
{
	c->listening = 0;
	udp_busy_leave(c);
	return nev_io_set(c->base, c->io, 0);
}

int
comm_point_start_listening(struct comm_point *c)
{
	c->listening = 1;
	if(c->busy)
		return 0;
	return nev_io_set(c->base, c->io, NEV_READ);
}

void
comm_reply_save(const struct comm_reply *rep, struct comm_reply_addr *out)
{
	out->c = rep->c;
	out->client = rep->client;
	out->local = rep->local;
	out->conn = rep->conn;
	out->gen = rep->gen;
	out->is_tcp = (int16_t)rep->is_tcp;
	out->pad = (int16_t)rep->pad;
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
		if(tcp_conn_queue(conn, pkt, len, ra->pad) == -1)
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
		m.msg_name = (void *)&ra->client.addr;
		m.msg_namelen = ra->client.len;
		iov.iov_base = (void *)pkt;
		iov.iov_len = len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		udp_set_ctl(&m, &ra->local, ctl.buf);
		c->stats.sendmsg_calls++;
		if(sendmsg(c->fd, &m, 0) == -1) {
			c->stats.send_errors++;
			return -1;
		}
		c->stats.pkts_out++;
		return 0;
	}
}
