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
 * creation (the read buffer of a slot on its first use, then kept). Each
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
 */
#include "config.h"
#include "util/netevent/netevent_int.h"
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
/** default time for a new connection to send its first whole query, ms */
#define TCP_FIRST_QUERY_MS 2000
/** default idle timeout when more than half the slots are in use, ms */
#define TCP_PRESSURE_IDLE_MS 200
/** pause of accept when out of descriptors and no connection is idle, ms */
#define TCP_ACCEPT_PAUSE_MS 100
/** most idle connections read (and kept) before one is closed for a new
 * connection; past it the new one is refused */
#define TCP_EVICT_TRIES 4

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
	/** whole queries read on this connection */
	uint64_t nq;
	/** last progress (accept, whole query, answer queued): the cached
	 * clock then; the timer counts from it */
	struct timeval since;
	/** the accept round (comm_point accept_round) it was accepted in */
	uint64_t round;
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
	/** slots */
	struct comm_tcp_conn *conns;
	/** number of slots */
	int max_conn;
	/** connections open */
	int nconn;
	/** idle timeout */
	int idle_ms;
	/** time to the first whole query, ms (0: only idle_ms) */
	int first_ms;
	/** idle timeout when over half the slots are used (0: only idle_ms) */
	int pressure_ms;
	/** set while more than half the slots are in use */
	int pressured;
	/** set while accept is paused (out of descriptors) */
	int accept_paused;
	/** resumes a paused accept */
	struct comm_timer *accept_timer;
	/** counts the wake-ups of the listening socket: a connection is
	 * not closed for a new one in the round it was accepted in */
	uint64_t accept_round;
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
			if(c->cb(rep, c->arg) <= 0 || rep->len == 0 ||
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
static void tcp_pressure_check(struct comm_point *c);
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
	if(tcp_conn_owed(conn))
		return t;
	if(conn->nq == 0 && c->first_ms > 0 && (t < 0 || c->first_ms < t))
		t = c->first_ms;
	if(c->pressured && c->pressure_ms > 0 && (t < 0 || c->pressure_ms < t))
		t = c->pressure_ms;
	return t;
}

/** (re)arm a connection's timer: its timeout counted from its last
 * progress */
static void
tcp_conn_arm(struct comm_tcp_conn *conn)
{
	const struct timeval *now = comm_base_now(conn->c->base);
	int t = tcp_conn_timeout_ms(conn);
	long long spent;
	if(t < 0) {
		comm_timer_disable(conn->timer);
		return;
	}
	spent = (long long)(now->tv_sec - conn->since.tv_sec) * 1000 +
		(now->tv_usec - conn->since.tv_usec) / 1000;
	if(spent < 0)
		spent = 0;
	(void)comm_timer_set(conn->timer, spent >= t ? 0 : (int)(t - spent));
}

/** the connection made progress: its timer counts from now */
static void
tcp_conn_progress(struct comm_tcp_conn *conn)
{
	conn->since = *comm_base_now(conn->c->base);
	tcp_conn_arm(conn);
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

/** close a connection and free its slot */
static void
tcp_conn_close(struct comm_tcp_conn *conn)
{
	if(conn->fd == -1)
		return;
	nev_io_free(conn->c->base, conn->io);
	conn->io = NULL;
	comm_timer_disable(conn->timer);
	close(conn->fd);
	conn->fd = -1;
	conn->gen++;
	conn->mask = 0;
	nev_wq_clear(&conn->wq);
	conn->c->nconn--;
	tcp_pressure_check(conn->c);
}

/** over half the slots used or not: on a change, re-arm the timers of the
 * connections owed nothing (their timeout depends on it) */
static void
tcp_pressure_check(struct comm_point *c)
{
	int i, p = c->nconn > c->max_conn / 2;
	if(p == c->pressured)
		return;
	c->pressured = p;
	if(c->pressure_ms <= 0 || !c->conns)
		return;
	for(i = 0; i < c->max_conn; i++) {
		struct comm_tcp_conn *conn = &c->conns[i];
		if(conn->fd != -1 && !tcp_conn_owed(conn))
			tcp_conn_arm(conn);
	}
}

/** the interest a connection wants now */
static int
tcp_conn_want(struct comm_tcp_conn *conn)
{
	int mask = 0;
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
	if(nev_wq_write(&conn->wq, conn->fd, &conn->c->stats.pkts_out) == -1) {
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
	if(!tcp_conn_owed(conn))
		tcp_conn_arm(conn); /* owed nothing now: its shorter timeout */
	return 0;
}

/**
 * Queue an answer (copied) and try to write it.
 * @return 0 if queued or written (the connection may have been closed
 *	after a complete write), -1 if dropped.
 */
static int
tcp_conn_queue(struct comm_tcp_conn *conn, const uint8_t *pkt, size_t len)
{
	if(nev_wq_push(&conn->wq, pkt, len) != 0)
		return -1;
	tcp_conn_progress(conn);
	return tcp_conn_flush(conn) == -1 ? -1 : 0;
}

/** the connection is readable. @return 0, or -1 if it was closed */
static int
tcp_conn_read(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	int msgs = 0;
	while(msgs < TCP_READS_PER_WAKE && conn->wq.num < TCP_MAX_QUEUED) {
		ssize_t r;
		if(conn->lgot < 2)
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
		conn->nq++;
		msgs++;
		c->stats.pkts_in++;
		{
			struct comm_reply rep;
			int cr;
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
			cr = c->cb(&rep, c->arg);
			if(cr > 0 && rep.len > 0 && rep.len <= rep.cap) {
				if(conn->fd == -1 || conn->gen != rep.gen)
					return -1;
				if(tcp_conn_queue(conn, rep.buf, rep.len) == -1)
					return -1;
			} else if(cr == 0 && conn->fd != -1 &&
				conn->gen == rep.gen) {
				conn->pending++;
				tcp_conn_progress(conn);
			}
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

static void
tcp_conn_event(int fd, int events, void *arg)
{
	struct comm_tcp_conn *conn = arg;
	uint32_t gen = conn->gen;
	(void)fd;
	if(events & NEV_WRITE) {
		if(tcp_conn_flush(conn) != 0)
			return;
	}
	if((events & NEV_READ) && conn->fd != -1 && conn->gen == gen)
		(void)tcp_conn_read(conn);
}

static void
tcp_conn_timeout(void *arg)
{
	struct comm_tcp_conn *conn = arg;
	conn->c->stats.tcp_timeouts++;
	if(verbosity >= VERB_ALGO) {
		char a[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tcp: %s, closing the connection from %s",
			conn->nq == 0 ? "no query in time" : "idle timeout",
			netaddr_str(&conn->client, -1, a, sizeof(a)));
	}
	tcp_conn_close(conn);
}

/**
 * @param fresh: set to 1 when an idle connection was passed over because
 *	it was accepted in this round.
 * @return the idle connection to close first for a new one, or NULL
 * when every connection is owed an answer or was accepted this round
 */
static struct comm_tcp_conn *
tcp_victim(struct comm_point *c, int *fresh)
{
	struct comm_tcp_conn *best = NULL;
	int i;
	for(i = 0; i < c->max_conn; i++) {
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
		struct comm_tcp_conn *v = tcp_victim(c, fresh);
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
		tcp_conn_close(v);
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

/** accept new connections */
static void
tcp_acceptable(int lfd, int events, void *arg)
{
	struct comm_point *c = arg;
	int k;
	(void)events;
	c->accept_round++;
	for(k = 0; k < TCP_ACCEPTS_PER_WAKE && !c->accept_paused; k++) {
		struct netaddr client;
		struct comm_tcp_conn *conn = NULL;
		int fd, i, fresh = 0;
		/* a free slot, else an idle connection's (closed once a
		 * new connection is there) */
		if(c->nconn < c->max_conn) {
			for(i = 0; i < c->max_conn; i++)
				if(c->conns[i].fd == -1) {
					conn = &c->conns[i];
					break;
				}
		}
		/* when only connections accepted this round are idle, leave
		 * the rest in the backlog for the next round, when those
		 * have had their chance to speak */
		if(!conn && !tcp_victim(c, &fresh) && fresh)
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
		conn->nq = 0;
		conn->round = c->accept_round;
		conn->mask = 0;
		c->nconn++;
		c->stats.tcp_accepted++;
		if(tcp_conn_mask(conn, NEV_READ) == -1) {
			tcp_conn_close(conn);
			continue;
		}
		tcp_conn_progress(conn);
		tcp_pressure_check(c);
		/* the query often came with the connection */
		(void)tcp_conn_read(conn);
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
	c->accept_timer = comm_timer_create(base, tcp_accept_resume, c);
	if(!c->accept_timer)
		goto fail;
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
	comm_timer_delete(c->accept_timer);
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
	for(i = 0; i < c->max_conn; i++)
		if(c->conns[i].fd != -1)
			tcp_conn_arm(&c->conns[i]);
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
	out->is_tcp = rep->is_tcp;
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
		if(tcp_conn_queue(conn, pkt, len) == -1)
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
