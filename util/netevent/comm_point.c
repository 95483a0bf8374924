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
 * UDP settings (comm_point_create_udp_opts). Each costs one test per
 * batch when off. With sock-queue-timeout the socket has SO_TIMESTAMP and
 * the slots receive the kernel's arrival stamp; a datagram older than the
 * timeout at the base's cached clock is dropped before the peek and the
 * callback. On a proxy-protocol-port every datagram must start with a
 * PROXY v2 header (proxy_protocol.h): it is taken off (buf, len and cap
 * then start after it), its source becomes rep->client and the socket
 * peer goes to rep->peer, where the answer is sent (also by
 * comm_reply_send later); a datagram without a valid one is dropped. A
 * dropped datagram's slot gets cap 0 and is skipped.
 *
 * UDP on an io_uring base (udp_ring_*, HAVE_LIBURING): no readiness and no
 * recvmmsg. One multishot IORING_OP_RECVMSG stays armed on the socket and
 * the kernel writes each datagram, with its address and packet info, into
 * a buffer taken from a ring of provided buffers; each completion names
 * its buffer. Datagrams are gathered into the batch slots (the same
 * struct comm_reply array, so peek and callback see what they see on the
 * other backends) and answered when batch slots are full or after the
 * iteration's completions; each answer, written in place in its buffer,
 * leaves as an IORING_OP_SENDMSG request, and the buffer goes back to the
 * ring when that send completes. The requests of an iteration reach the
 * kernel in the same io_uring_enter(2) that waits for the next
 * completions: no system call per batch. Busy mode does not apply: it
 * exists to take a loaded socket out of epoll and poll it without
 * sleeping, and the ring already delivers a loaded socket's datagrams
 * without any call per batch (the wait returns at once while completions
 * are there). Without buffer rings (Linux < 6.0) the socket is served by
 * readiness through the backend's poll requests, as on the others.
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
#include "util/netevent/netevent_int.h"
#include "util/netevent/backend_uring.h"
#include "util/netevent/tls.h"
#include "util/netevent/http2.h"
#include "util/netevent/proxy_protocol.h"
#include "dns/padding.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sys/uio.h>
#include <sys/ioctl.h>

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
	/** when the armed timer is due (valid while it is set): progress
	 * that only moves the deadline later leaves the timer alone, and
	 * tcp_conn_timeout sets it again for the rest (no timer call per
	 * query) */
	struct timeval due;
	/** the accept round (comm_point accept_round) it was accepted in */
	uint64_t round;
	/** DNS over TLS (comm_point_set_tls): the connection's TLS state,
	 * else NULL. Reads and writes go through util/netevent/tls.c; until
	 * the handshake is done only the handshake runs */
	struct ssl_st *ssl;
	/** the TLS handshake is complete */
	int hs_done;
	/** what the handshake waits for: NEV_READ or NEV_WRITE */
	int hs_mask;
	/** the TLS handshake resumed a session */
	int resumed;
	/** the client asked for edns-tcp-keepalive: its idle timeout is
	 * the one advertised (comm_point_set_keepalive) */
	int ka;
	/** DNS over HTTPS (comm_point_set_http): the HTTP/2 session, else
	 * NULL; the bytes read go to it instead of the DNS framing */
	struct h2_session *h2;
	/** proxy-protocol-port: the PROXY v2 header is still being read;
	 * nothing else is read (and no TLS handshake runs) until it is */
	int pp_wait;
	/** the header gathered so far, while pp_wait */
	struct pp2_stream pp;
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
	/** receive control data (packet info or timestamps) */
	int ctl_on;
	/** proxy-protocol-port: UDP datagrams and TCP connections start
	 * with a PROXY v2 header */
	int proxy;
	/** UDP sock-queue-timeout, ms; 0 off (no timestamps asked for) */
	int qt_ms;
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
#ifdef HAVE_LIBURING
	/** on an io_uring base: the completion-based receive and send
	 * state (udp_ring_*), NULL when the socket is served by readiness */
	struct udp_ring *ring;
#endif

	/* TCP */
	/** DNS over TLS: the server context (not owned), or NULL */
	struct ssl_ctx_st *tls_ctx;
	/** DNS over TLS: answer padding block size, 0 for none */
	int pad_block;
	/** scratch for a padded answer (65535 bytes) when pad_block */
	uint8_t *padbuf;
	/** edns-tcp-keepalive: the timeout advertised, ms; 0 when off */
	int ka_ms;
	/** DNS over HTTPS: settings and byte budgets, else NULL */
	struct h2_service *http;
	/** DNS over HTTPS: the endpoint (copied) */
	char *http_endpoint;
	/** DNS over HTTPS: TCP_NODELAY on connections */
	int http_nodelay;
	/** DNS over HTTPS: the query and answer of the callback (65535) */
	uint8_t *http_buf;
	/** DNS over HTTPS: HTTP/2 output gathered before it is queued, so
	 * that the frames of a step leave in one write (one TLS record) */
	uint8_t *http_out;
	/** bytes in http_out */
	size_t http_outlen;
	/** slots */
	struct comm_tcp_conn *conns;
	/** connections open at most (incoming-num-tcp) */
	int max_conn;
	/** number of slots: max_conn, or 2 * max_conn on an io_uring base,
	 * where a closed connection's slot waits for its requests to
	 * complete while a spare one serves the next connection */
	int nslots;
	/** connections open */
	int nconn;
	/** idle timeout */
	int idle_ms;
#ifdef HAVE_LIBURING
	/** on an io_uring base: the completion-based accept, receive and
	 * send state (tcp_ring_*), NULL when served by readiness */
	struct tcp_ring *tring;
#endif
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

/** space for the largest packet info control message, and a receive
 * timestamp after it when stamps is set */
static size_t
ctl_space(int stamps)
{
	size_t a = CMSG_SPACE(sizeof(struct in_pktinfo));
	size_t b = CMSG_SPACE(sizeof(struct in6_pktinfo));
	return (a > b ? a : b) + (stamps ? CMSG_SPACE(sizeof(struct timeval))
		: 0);
}

/** microseconds from stamp to now (negative when stamp is later) */
static inline long long
queue_wait_us(const struct timeval *stamp, const struct timeval *now)
{
	return (long long)(now->tv_sec - stamp->tv_sec) * 1000000 +
		(now->tv_usec - stamp->tv_usec);
}

/** has a wait of w microseconds passed sock-queue-timeout ms (0: off) */
static inline int
queue_late(long long w, int ms)
{
	return ms > 0 && w > (long long)ms * 1000;
}

int
comm_queue_expired(const struct timeval *stamp, const struct timeval *now,
	int ms)
{
	return queue_late(queue_wait_us(stamp, now), ms);
}

/**
 * sock-queue-timeout: did the datagram received with m wait too long in
 * the socket? A datagram without a timestamp is kept.
 * @return 1 if it is stale (counted).
 */
static int
udp_stale(struct comm_point *c, struct msghdr *m)
{
#ifdef SO_TIMESTAMP
	struct cmsghdr *cm;
	if(m->msg_controllen == 0)
		return 0;
	for(cm = CMSG_FIRSTHDR(m); cm; cm = CMSG_NXTHDR(m, cm)) {
		if(cm->cmsg_level == SOL_SOCKET &&
			cm->cmsg_type == SCM_TIMESTAMP) {
			struct timeval tv;
			const struct timeval *now = comm_base_now(c->base);
			long long w;
			memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
			/* the longest wait (query.queue_time_us.max); a
			 * datagram that came after the clock was read
			 * waited 0 */
			w = queue_wait_us(&tv, now);
			if(w > 0 && (uint64_t)w > c->stats.queue_wait_max_us)
				c->stats.queue_wait_max_us = (uint64_t)w;
			if(!queue_late(w, c->qt_ms))
				return 0;
			c->stats.queue_timeouts++;
			return 1;
		}
	}
#else
	(void)c; (void)m;
#endif
	return 0;
}

/**
 * proxy-protocol-port: take the PROXY v2 header off a datagram. The
 * header's source becomes rep->client, the socket peer goes to rep->peer
 * (the answer goes there), and buf, len and cap start after the header.
 * @return 0, or -1 when the datagram is to be dropped (counted).
 */
static int
udp_proxy_strip(struct comm_point *c, struct comm_reply *rep)
{
	struct pp2_info info;
	int hl = pp2_parse(rep->buf, rep->len, &info);
	if(hl < 0 || rep->client.len > sizeof(rep->peer.a) ||
		(size_t)hl >= rep->cap) {
		c->stats.proxy_errors++;
		return -1;
	}
	memcpy(&rep->peer.a, &rep->client.addr, rep->client.len);
	rep->peer.len = rep->client.len;
	if(!info.local)
		rep->client = info.src;
	rep->buf += hl;
	rep->len -= (size_t)hl;
	rep->cap -= (size_t)hl;
	return 0;
}

/**
 * The per-datagram checks of the settings (sock-queue-timeout, then the
 * PROXY header) over a received batch: a datagram to drop gets cap 0.
 * Runs only on a comm_point with one of them set.
 */
static void
udp_filter_batch(struct comm_point *c, int n)
{
	int i;
	for(i = 0; i < n; i++) {
		struct comm_reply *rep = &c->reps[i];
		if((c->qt_ms && udp_stale(c, &c->rmsg[i].msg_hdr)) ||
			(c->proxy && udp_proxy_strip(c, rep) == -1))
			rep->cap = 0;
	}
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
	if(c->ctl_on) {
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

/** force inlining, so that each call of udp_answer_batch with constant
 * settings is compiled on its own, without the tests of the others */
#if defined(__GNUC__) || defined(__clang__)
#define UDP_INLINE static inline __attribute__((always_inline))
#else
#define UDP_INLINE static inline
#endif

/**
 * Answer a received batch: the peek passes, then the callback per
 * datagram, the answers gathered for one sendmmsg.
 * @param filt: the settings' checks ran (udp_filter_batch): skip the
 *	datagrams they dropped (cap 0).
 * @param proxy: proxy-protocol-port: answers go to rep->peer.
 * Called with constants, so that a comm_point without settings runs
 * the loop with neither test in it.
 * @return the answers queued in smsg.
 */
UDP_INLINE int
udp_answer_batch(struct comm_point *c, int n, const int filt,
	const int proxy)
{
	int i, q = 0;
	if(c->peek && n > 1) {
		/* (one datagram has nothing to overlap with) */
		int stage;
		for(stage = 0; stage < c->peek_stages; stage++)
			for(i = 0; i < n; i++)
				if(!filt || c->reps[i].cap)
					c->peek(&c->reps[i], stage, c->arg);
	}
	for(i = 0; i < n; i++) {
		struct comm_reply *rep = &c->reps[i];
		struct msghdr *sm;
		if(filt && rep->cap == 0)
			continue; /* dropped by udp_filter_batch */
		if(c->pktinfo)
			udp_parse_ctl(&c->rmsg[i].msg_hdr, &rep->local);
		else	rep->local.family = 0;
		if(c->cb(rep, c->arg) <= 0 || rep->len == 0 ||
			rep->len > rep->cap)
			continue;
		sm = &c->smsg[q].msg_hdr;
		memset(sm, 0, sizeof(*sm));
		if(proxy) {
			/* the answer goes back through the proxy */
			sm->msg_name = &rep->peer.a;
			sm->msg_namelen = rep->peer.len;
		} else {
			sm->msg_name = &rep->client.addr;
			sm->msg_namelen = rep->client.len;
		}
		c->siov[q].iov_base = rep->buf;
		c->siov[q].iov_len = rep->len;
		sm->msg_iov = &c->siov[q];
		sm->msg_iovlen = 1;
		udp_set_ctl(sm, &rep->local, c->sctl + (size_t)q * c->ctlsize);
		q++;
	}
	return q;
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
		int i, q;
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
		/* the settings: off, one test per batch */
		if(!c->qt_ms && !c->proxy)
			q = udp_answer_batch(c, n, 0, 0);
		else {
			udp_filter_batch(c, n);
			q = c->proxy ? udp_answer_batch(c, n, 1, 1) :
				udp_answer_batch(c, n, 1, 0);
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


#ifdef HAVE_LIBURING
/** one answer in flight; the send slot of a buffer has the buffer's id */
struct udp_ring_send {
	/** completion handler: first member */
	struct nev_uring_op op;
	/** the ring state */
	struct udp_ring *ur;
	/** the message */
	struct msghdr m;
	/** its one iovec: the answer, in place in the buffer */
	struct iovec iov;
	/** the client's address (the batch slot is reused before the send
	 * completes) */
	struct sockaddr_storage name;
	/** packet info control data */
	union {
		/** alignment */
		struct cmsghdr align;
		/** space for the largest */
		uint8_t buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
			CMSG_SPACE(sizeof(struct in_pktinfo))];
	} ctl;
};

/** the completion-based state of a UDP comm_point on an io_uring base;
 * it outlives the comm_point until its last request has completed */
struct udp_ring {
	/** completion handler of the multishot receive: first member */
	struct nev_uring_op recv_op;
	/** answers the gathered datagrams after the iteration's completions */
	struct nev_uring_flush flush;
	/** the comm_point, NULL once it was deleted */
	struct comm_point *c;
	/** the backend state */
	void *st;
	/** the socket (owned: closed when this is freed) */
	int fd;
	/** the registered buffer ring */
	struct io_uring_buf_ring *br;
	/** its buffer group id */
	int bgid;
	/** buffers (a power of two) */
	unsigned nbufs;
	/** buffers in the ring, available to the kernel */
	unsigned nfree;
	/** size of one buffer: header, name, control data, payload */
	size_t bufsz;
	/** nbufs * bufsz bytes */
	uint8_t *mem;
	/** what the multishot receive asks for (name and control sizes) */
	struct msghdr tmpl;
	/** the receive is armed (its last completion has not come) */
	int armed;
	/** a cancel of the receive was queued */
	int cancelling;
	/** answers in flight */
	int inflight;
	/** the receive could not be armed again: stop (logged) */
	int failed;
	/** one send slot per buffer */
	struct udp_ring_send *sends;
	/** buffer ids of the gathered datagrams (batch entries) */
	int *pend_bid;
	/** datagrams gathered in c->reps, not answered yet */
	int npend;
};

/** @return the memory of buffer bid */
static uint8_t *
udp_ring_buf(struct udp_ring *ur, int bid)
{
	return ur->mem + (size_t)bid * ur->bufsz;
}

/** free the ring state (nothing in flight any more) */
static void
udp_ring_free(struct udp_ring *ur)
{
	nev_uring_buf_ring_free(ur->st, ur->br, ur->nbufs, ur->bgid);
	if(ur->fd != -1)
		close(ur->fd);
	free(ur->mem);
	free(ur->sends);
	free(ur->pend_bid);
	free(ur);
}

/** a deleted comm_point's state goes when its last request completed */
static void
udp_ring_reap(struct udp_ring *ur)
{
	if(ur->c || ur->armed || ur->inflight || ur->flush.queued)
		return;
	nev_uring_linger(ur->st, -1);
	udp_ring_free(ur);
}

/** arm the multishot receive */
static void
udp_ring_arm(struct udp_ring *ur)
{
	struct io_uring_sqe *sqe;
	if(ur->armed || ur->failed || ur->nfree == 0)
		return;
	sqe = nev_uring_get_sqe(ur->st);
	if(!sqe)
		return;
	io_uring_prep_recvmsg_multishot(sqe, ur->fd, &ur->tmpl, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = (uint16_t)ur->bgid;
	io_uring_sqe_set_data(sqe, &ur->recv_op);
	ur->armed = 1;
	ur->cancelling = 0;
	if(ur->c)
		ur->c->stats.recv_calls++;
}

/** cancel the multishot receive */
static void
udp_ring_cancel(struct udp_ring *ur)
{
	struct io_uring_sqe *sqe;
	if(!ur->armed || ur->cancelling)
		return;
	sqe = nev_uring_get_sqe(ur->st);
	if(!sqe)
		return;
	io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)&ur->recv_op, 0);
	io_uring_sqe_set_data64(sqe, 0);
	ur->cancelling = 1;
}

/** give buffer bid back to the kernel; re-arm a receive that ran out */
static void
udp_ring_give(struct udp_ring *ur, int bid)
{
	io_uring_buf_ring_add(ur->br, udp_ring_buf(ur, bid),
		(unsigned)ur->bufsz, (unsigned short)bid,
		io_uring_buf_ring_mask(ur->nbufs), 0);
	io_uring_buf_ring_advance(ur->br, 1);
	ur->nfree++;
	if(!ur->armed && ur->c && ur->c->listening)
		udp_ring_arm(ur);
}

/** a send completed */
static void
udp_ring_sent(struct nev_uring_op *op, int res, unsigned flags)
{
	struct udp_ring_send *sd = (struct udp_ring_send *)op;
	struct udp_ring *ur = sd->ur;
	(void)flags;
	ur->inflight--;
	if(ur->c) {
		if(res < 0)
			ur->c->stats.send_errors++;
		else	ur->c->stats.pkts_out++;
	}
	udp_ring_give(ur, (int)(sd - ur->sends));
	udp_ring_reap(ur);
}

/** answer the gathered datagrams: peek, callbacks, send requests */
static void
udp_ring_answer(struct udp_ring *ur)
{
	struct comm_point *c = ur->c;
	int i, n = ur->npend;
	if(n == 0)
		return;
	ur->npend = 0;
	c->stats.batches++;
	c->stats.pkts_in += (uint64_t)n;
	if(c->peek && n > 1) {
		int stage;
		for(stage = 0; stage < c->peek_stages; stage++)
			for(i = 0; i < n; i++)
				c->peek(&c->reps[i], stage, c->arg);
	}
	for(i = 0; i < n; i++) {
		struct comm_reply *rep = &c->reps[i];
		int bid = ur->pend_bid[i];
		struct udp_ring_send *sd = &ur->sends[bid];
		struct io_uring_sqe *sqe;
		if(!c->cb(rep, c->arg) || rep->len == 0 ||
			rep->len > rep->cap || !(sqe = nev_uring_get_sqe(ur->st))) {
			udp_ring_give(ur, bid);
			continue;
		}
		memset(&sd->m, 0, sizeof(sd->m));
		if(c->proxy) {
			/* the answer goes back through the proxy */
			memcpy(&sd->name, &rep->peer.a, rep->peer.len);
			sd->m.msg_namelen = rep->peer.len;
		} else {
			memcpy(&sd->name, &rep->client.addr, rep->client.len);
			sd->m.msg_namelen = rep->client.len;
		}
		sd->m.msg_name = &sd->name;
		sd->iov.iov_base = rep->buf;
		sd->iov.iov_len = rep->len;
		sd->m.msg_iov = &sd->iov;
		sd->m.msg_iovlen = 1;
		udp_set_ctl(&sd->m, &rep->local, sd->ctl.buf);
		io_uring_prep_sendmsg(sqe, ur->fd, &sd->m, 0);
		io_uring_sqe_set_data(sqe, &sd->op);
		ur->inflight++;
	}
}

/** a datagram (or the end) of the multishot receive */
static void
udp_ring_recv(struct nev_uring_op *op, int res, unsigned flags)
{
	struct udp_ring *ur = (struct udp_ring *)op;
	struct comm_point *c = ur->c;
	if(!(flags & IORING_CQE_F_MORE)) {
		ur->armed = 0;
		ur->cancelling = 0;
	}
	if(res >= 0 && (flags & IORING_CQE_F_BUFFER)) {
		int bid = (int)(flags >> IORING_CQE_BUFFER_SHIFT);
		uint8_t *buf = udp_ring_buf(ur, bid);
		struct io_uring_recvmsg_out *o;
		ur->nfree--;
		o = io_uring_recvmsg_validate(buf, res, &ur->tmpl);
		if(!c || !o || o->namelen > sizeof(c->reps[0].client.addr)) {
			udp_ring_give(ur, bid);
		} else {
			struct comm_reply *rep = &c->reps[ur->npend];
			rep->buf = io_uring_recvmsg_payload(o, &ur->tmpl);
			rep->len = io_uring_recvmsg_payload_length(o, res,
				&ur->tmpl);
			rep->cap = c->bufsize;
			memcpy(&rep->client.addr, io_uring_recvmsg_name(o),
				o->namelen);
			rep->client.len = o->namelen;
			rep->hint = 0;
			rep->local.family = 0;
			if(c->ctl_on) {
				struct msghdr m;
				memset(&m, 0, sizeof(m));
				m.msg_control = (uint8_t *)io_uring_recvmsg_name(
					o) + ur->tmpl.msg_namelen;
				m.msg_controllen = o->controllen;
				if(c->pktinfo)
					udp_parse_ctl(&m, &rep->local);
				if(c->qt_ms && udp_stale(c, &m))
					rep->cap = 0;
			}
			if(rep->cap == 0 || (c->proxy &&
				udp_proxy_strip(c, rep) == -1)) {
				/* dropped: stale, or no valid PROXY header
				 * (received all the same, as on readiness) */
				c->stats.pkts_in++;
				udp_ring_give(ur, bid);
			} else {
				ur->pend_bid[ur->npend++] = bid;
				if(ur->npend == c->batch)
					udp_ring_answer(ur);
				else	nev_uring_flush_later(ur->st,
						&ur->flush);
			}
		}
	} else if(res < 0 && res != -ENOBUFS && res != -ECANCELED &&
		!(flags & IORING_CQE_F_MORE) && c && c->stats.pkts_in == 0 &&
		ur->npend == 0) {
		/* the very first arming failed: this kernel cannot */
		log_err("udp: io_uring multishot receive on fd %d: %s",
			ur->fd, strerror(-res));
		ur->failed = 1;
	} else if(res < 0 && res != -ENOBUFS && res != -ECANCELED)
		verbose(VERB_ALGO, "udp recv: %s", strerror(-res));
	if(!ur->armed && c && c->listening)
		udp_ring_arm(ur);
	udp_ring_reap(ur);
}

/** after the iteration's completions: answer what was gathered */
static void
udp_ring_flush(struct nev_uring_flush *f)
{
	struct udp_ring *ur = (struct udp_ring *)((char *)f -
		offsetof(struct udp_ring, flush));
	if(ur->c)
		udp_ring_answer(ur);
	udp_ring_reap(ur);
}

/**
 * Serve c through the ring if the base is io_uring and the kernel has
 * buffer rings and multishot receive.
 * @return 1 if so (c->ring set, not armed yet), 0 to use readiness,
 *	-1 out of memory.
 */
static int
udp_ring_setup(struct comm_point *c)
{
	struct udp_ring *ur;
	unsigned i;
	size_t hdr;
	if(c->base->be != &nev_backend_uring)
		return 0;
	ur = calloc(1, sizeof(*ur));
	if(!ur)
		return -1;
	ur->recv_op.done = udp_ring_recv;
	ur->flush.fn = udp_ring_flush;
	ur->c = c;
	ur->st = c->base->st;
	ur->fd = -1;
	/* a buffer per batch slot, one per answer in flight, and as many
	 * again for the kernel to fill meanwhile: at least 4 batches */
	for(ur->nbufs = 16; ur->nbufs < 4 * (unsigned)c->batch; ur->nbufs *= 2)
		;
	ur->tmpl.msg_namelen = sizeof(struct sockaddr_storage);
	ur->tmpl.msg_controllen = c->ctl_on ? c->ctlsize : 0;
	hdr = sizeof(struct io_uring_recvmsg_out) + ur->tmpl.msg_namelen +
		ur->tmpl.msg_controllen;
	/* payloads stay 8-byte aligned */
	hdr = (hdr + 7) & ~(size_t)7;
	ur->tmpl.msg_namelen += hdr - (sizeof(struct io_uring_recvmsg_out) +
		ur->tmpl.msg_namelen + ur->tmpl.msg_controllen);
	/* every buffer starts 8-byte aligned (the header is read in place) */
	ur->bufsz = (hdr + c->bufsize + 7) & ~(size_t)7;
	ur->mem = malloc((size_t)ur->nbufs * ur->bufsz);
	ur->sends = calloc(ur->nbufs, sizeof(*ur->sends));
	ur->pend_bid = calloc((size_t)c->batch, sizeof(*ur->pend_bid));
	if(!ur->mem || !ur->sends || !ur->pend_bid) {
		udp_ring_free(ur);
		return -1;
	}
	ur->br = nev_uring_buf_ring_new(ur->st, ur->nbufs, &ur->bgid);
	if(!ur->br) {
		udp_ring_free(ur);
		return 0;
	}
	for(i = 0; i < ur->nbufs; i++) {
		ur->sends[i].op.done = udp_ring_sent;
		ur->sends[i].ur = ur;
		io_uring_buf_ring_add(ur->br, udp_ring_buf(ur, (int)i),
			(unsigned)ur->bufsz, (unsigned short)i,
			io_uring_buf_ring_mask(ur->nbufs), (int)i);
	}
	io_uring_buf_ring_advance(ur->br, (int)ur->nbufs);
	ur->nfree = ur->nbufs;
	ur->fd = c->fd;
	c->ring = ur;
	return 1;
}

/** start or stop the ring receive with the listening state */
static void
udp_ring_listen(struct comm_point *c)
{
	if(c->listening)
		udp_ring_arm(c->ring);
	else	udp_ring_cancel(c->ring);
}

/** the comm_point goes: its ring state lingers until nothing is in flight
 * (it owns the socket until then) */
static void
udp_ring_delete(struct comm_point *c)
{
	struct udp_ring *ur = c->ring;
	c->ring = NULL;
	ur->c = NULL;
	ur->npend = 0;
	c->fd = -1;
	udp_ring_cancel(ur);
	nev_uring_linger(ur->st, 1);
	udp_ring_reap(ur);
}
#endif /* HAVE_LIBURING */

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
	return comm_point_create_udp_opts(base, fd, bufsize, batch, cb, arg,
		NULL);
}

struct comm_point *
comm_point_create_udp_opts(struct comm_base *base, int fd, size_t bufsize,
	int batch, comm_point_cb_type cb, void *arg,
	const struct comm_udp_opts *opts)
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
	if(opts) {
		c->proxy = opts->proxy;
		c->qt_ms = opts->queue_timeout_ms > 0 ?
			opts->queue_timeout_ms : 0;
	}
	if(c->qt_ms) {
#ifdef SO_TIMESTAMP
		/* the kernel stamps each datagram as it arrives */
		int on = 1;
		if(setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on,
			sizeof(on)) == -1) {
			log_warn("udp: setsockopt SO_TIMESTAMP: %s; "
				"sock-queue-timeout is off", strerror(errno));
			c->qt_ms = 0;
		}
#else
		log_warn("udp: no SO_TIMESTAMP here; sock-queue-timeout is "
			"off");
		c->qt_ms = 0;
#endif
	}
	c->ctlsize = ctl_space(c->qt_ms != 0);
	local.len = sizeof(local.addr);
	if(getsockname(fd, (struct sockaddr *)&local.addr, &local.len) == 0
		&& comm_sock_is_wildcard(&local))
		c->pktinfo = local.addr.ss_family;
	c->ctl_on = c->pktinfo || c->qt_ms;
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
#ifdef HAVE_LIBURING
	switch(udp_ring_setup(c)) {
	case 1:
		if(comm_point_start_listening(c) == -1)
			goto fail;
		return c;
	case -1:
		log_err("comm_point_create_udp: out of memory");
		goto fail;
	default:
		break;
	}
#endif
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
#ifdef HAVE_LIBURING
static void tcp_ring_conn_closing(struct comm_tcp_conn *conn);
static int tcp_ring_flush(struct comm_tcp_conn *conn);
static void tcp_ring_accept_mode(struct comm_point *c);
#endif
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

/** (re)arm a connection's timer: its timeout counted from its last
 * progress */
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

static void
tcp_conn_arm(struct comm_tcp_conn *conn)
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
#ifdef HAVE_LIBURING
	if(conn->c->tring)
		tcp_ring_conn_closing(conn);
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
	for(i = 0; i < c->nslots; i++) {
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
		return tcp_ring_flush(conn);
#endif
	uint64_t chunks = 0, *done = conn->h2 ? &chunks :
		&conn->c->stats.pkts_out;
	if(conn->ssl && !conn->hs_done)
		return 0;
	if((conn->ssl ? tls_wq_write_sys(conn->ssl, &conn->wq, done) :
		nev_wq_write(&conn->wq, conn->fd, done)) == -1) {
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
tcp_conn_queue(struct comm_tcp_conn *conn, const uint8_t *pkt, size_t len,
	int pad)
{
	struct comm_point *c = conn->c;
	/* pad bit 1: EDNS Padding (TLS); bit 2: edns-tcp-keepalive, added
	 * first (padding sizes the whole) */
	if((((pad & 1) && conn->ssl) || (pad & 2)) && c->padbuf &&
		len <= 65535) {
		memcpy(c->padbuf, pkt, len);
		if(pad & 2) {
			uint32_t t = (uint32_t)c->ka_ms / 100;
			uint8_t v[2];
			v[0] = (uint8_t)((t > 65535 ? 65535 : t) >> 8);
			v[1] = (uint8_t)(t > 65535 ? 65535 : t);
			len = dns_add_edns_option(c->padbuf, len, 65535,
				DNS_EDNS_KEEPALIVE, v, 2);
		}
		if((pad & 1) && conn->ssl && c->pad_block)
			len = dns_pad(c->padbuf, len, 65535,
				(size_t)c->pad_block);
		pkt = c->padbuf;
	}
	if(nev_wq_push(&conn->wq, pkt, len) != 0)
		return -1;
	tcp_conn_progress(conn);
	return tcp_conn_flush(conn) == -1 ? -1 : 0;
}

static int tcp_conn_read_h2(struct comm_tcp_conn *conn);

/*
 * The steps the TCP read paths share: tcp_conn_read (framed DNS by
 * readiness, plain or TLS), tcp_conn_read_h2 (DNS over HTTPS),
 * tcp_ring_feed (framed DNS from io_uring completions) and tcp_h2_query
 * (a query out of an HTTP/2 stream). Static and small: the compiler
 * inlines them where they are hot.
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
	tcp_conn_close(conn);
	return -1;
}

/**
 * The client closed its sending side: the connection stays until what
 * it is owed is written (tcp_conn_flush).
 * @return tcp_conn_flush's value: 0, or non-zero if it was closed.
 */
static int
tcp_conn_eof(struct comm_tcp_conn *conn)
{
	conn->read_closed = 1;
	if(conn->lgot != 0)
		verbose(VERB_ALGO, "tcp: EOF inside a message");
	return tcp_conn_flush(conn);
}

/**
 * The 2-byte length of the next message is in (lenbuf): take it.
 * @return 0, or -1 when it is 0 or longer than the buffer (malformed:
 *	this connection only is closed, counted).
 */
static int
tcp_conn_take_len(struct comm_tcp_conn *conn)
{
	struct comm_point *c = conn->c;
	conn->need = ((size_t)conn->lenbuf[0] << 8) | conn->lenbuf[1];
	conn->got = 0;
	if(conn->need == 0 || conn->need > c->bufsize) {
		verbose(VERB_ALGO, "tcp: bad length %d, closing",
			(int)conn->need);
		c->stats.tcp_errors++;
		tcp_conn_close(conn);
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
	rep->peer.len = 0;
	rep->local.family = 0;
	rep->conn = conn;
	rep->gen = conn->gen;
	rep->is_tcp = 1;
	rep->hint = 0;
	rep->slot = 0;
	rep->stream = stream;
	rep->pad = 0;
}

/**
 * A whole framed query is in rbuf (need bytes): hand it to the callback
 * and queue its answer, or count it as pending (answered later).
 * @return 0, or -1 if the connection was closed or reused meanwhile.
 */
static int
tcp_conn_query(struct comm_tcp_conn *conn)
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
	if(c->ka_ms > 0 && dns_has_edns_option(rep.buf, rep.len,
		DNS_EDNS_KEEPALIVE)) {
		rep.pad |= 2;
		conn->ka = 1;
	}
	cr = c->cb(&rep, c->arg);
	if(cr > 0 && rep.len > 0 && rep.len <= rep.cap) {
		if(conn->fd == -1 || conn->gen != rep.gen)
			return -1;
		if(tcp_conn_queue(conn, rep.buf, rep.len, rep.pad) == -1)
			return -1;
	} else if(cr == 0 && conn->fd != -1 && conn->gen == rep.gen) {
		conn->pending++;
		tcp_conn_progress(conn);
	}
	if(conn->fd == -1 || conn->gen != rep.gen)
		return -1;
	return 0;
}

/** the PROXY v2 header of a connection is complete: its source is the
 * client from now on */
static void
tcp_conn_proxy_done(struct comm_tcp_conn *conn, const struct pp2_info *info)
{
	conn->pp_wait = 0;
	if(!info->local)
		conn->client = info->src;
}

/** the PROXY v2 header of a connection is bad: close it (counted) */
static void
tcp_conn_proxy_fail(struct comm_tcp_conn *conn, const char *why)
{
	if(verbosity >= VERB_ALGO) {
		char a[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tcp: %s from %s, closing", why,
			netaddr_str(&conn->client, -1, a, sizeof(a)));
	}
	conn->c->stats.proxy_errors++;
	tcp_conn_close(conn);
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
			tcp_conn_proxy_fail(conn, "EOF inside the PROXY header");
			return -1;
		}
		if(r == -1) {
			if(tcp_conn_read_error(conn, "tcp read") == -1)
				return -1;
			if(tcp_conn_mask(conn, NEV_READ) == -1) {
				tcp_conn_close(conn);
				return -1;
			}
			return 1;
		}
		st = pp2_stream_feed(&conn->pp, conn->rbuf, (size_t)r, &used,
			&info);
		if(st < 0) {
			tcp_conn_proxy_fail(conn, "bad PROXY v2 header");
			return -1;
		}
		if(st == 1) {
			tcp_conn_proxy_done(conn, &info);
			return 0;
		}
	}
}

/**
 * On a port without proxy-protocol-port, does the connection's first
 * message start like a PROXY v2 header (its length bytes are the first
 * two of the signature)? Looked at once, when ten bytes of it are in.
 * @param before: message bytes read before this read.
 */
static int
tcp_conn_stray_proxy(const struct comm_tcp_conn *conn, size_t before)
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
			return tcp_conn_eof(conn) ? -1 : 0;
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
			if(tcp_conn_take_len(conn) == -1)
				return -1;
			continue;
		}
		conn->got += (size_t)r;
		if(conn->got < conn->need) {
			if(tcp_conn_stray_proxy(conn, conn->got - (size_t)r)) {
				tcp_conn_proxy_fail(conn, "PROXY header on a "
					"port without proxy-protocol-port");
				return -1;
			}
			continue;
		}
		/* a whole query */
		msgs++;
		if(tcp_conn_query(conn) == -1)
			return -1;
	}
	if(tcp_conn_mask(conn, tcp_conn_want(conn)) == -1) {
		tcp_conn_close(conn);
		return -1;
	}
	return 0;
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

/**
 * Queue what HTTP/2 has to send and write it.
 * @return 0, or -1 if the connection was closed (an error, or both sides
 *	are done with the session and everything is written).
 */
static int
tcp_conn_h2_out(struct comm_tcp_conn *conn)
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
		tcp_conn_close(conn);
		return -1;
	}
	if(tcp_conn_flush(conn) != 0)
		return -1;
	if(!h2_session_alive(conn->h2) && !conn->wq.head) {
		tcp_conn_close(conn);
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
		tcp_conn_progress(conn);
	} else if(cr == 0) {
		conn->pending++;
		tcp_conn_progress(conn);
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
			if(tcp_conn_h2_out(conn) == 0)
				tcp_conn_close(conn);
			return -1;
		}
		if(tcp_conn_h2_out(conn) != 0)
			return -1;
	}
	if(tcp_conn_h2_out(conn) != 0)
		return -1;
	if(conn->read_closed) {
		/* the client is done: close once the answers it waits for
		 * are written */
		if(conn->pending == 0 && !conn->wq.head) {
			tcp_conn_close(conn);
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
		conn->resumed = tls_session_resumed(conn->ssl);
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
		return; /* no timeout in this state (tcp_conn_arm disarms) */
	/* progress since the timer was set moved the deadline: the rest */
	if(tcp_conn_left_ms(conn, t) > 0) {
		tcp_conn_arm(conn);
		return;
	}
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
#ifdef HAVE_LIBURING
	if(c->tring) {
		tcp_ring_accept_mode(c);
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
			for(i = 0; i < c->nslots; i++)
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
		conn->hs_done = 0;
		conn->resumed = 0;
		conn->ka = 0;
		conn->hs_mask = NEV_READ;
		conn->pp_wait = c->proxy;
		pp2_stream_init(&conn->pp);
		c->nconn++;
		c->stats.tcp_accepted++;
		if(c->tls_ctx && !(conn->ssl = tls_server_new(c->tls_ctx, fd))) {
			tcp_conn_close(conn);
			continue;
		}
		if(c->http && tcp_conn_h2_open(conn) == -1) {
			tcp_conn_close(conn);
			continue;
		}
		if(tcp_conn_mask(conn, NEV_READ) == -1) {
			tcp_conn_close(conn);
			continue;
		}
		tcp_conn_progress(conn);
		tcp_pressure_check(c);
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

#ifdef HAVE_LIBURING
/*
 * TCP on an io_uring base (tcp_ring_*). Each connection has one multishot
 * IORING_OP_RECV into a ring of provided buffers shared by the
 * comm_point's connections (the bytes are copied into the connection's
 * framing state, tcp_ring_feed, and the buffer goes back at once), and at
 * most one IORING_OP_SEND in flight, for the head of its write queue. The
 * slots, their generation numbers, the idle timers, the limits and the
 * callbacks are those of the readiness path above; only the system calls
 * are replaced by requests. A slot is reused only when the requests of
 * its previous connection have completed, and a write queue whose send is
 * in flight when the connection closes is kept (orphan) until that send
 * completes, so the kernel never reads freed memory.
 *
 * Accepting keeps the idle-connection defences of tcp_acceptable (issue
 * 17) with the same observable behaviour. The comm_point has 2 * max_conn
 * slots and at most max_conn connections (nconn): a closed connection's
 * slot lingers until its requests complete while a spare one serves the
 * next connection, so a connection closed for a new one hands over its
 * place at once. The accept is single-shot, armed again on its
 * completion only while there is room (tcp_ring_accept_mode): a
 * multishot accept would take every connection of the backlog, where
 * the readiness path leaves them there while the table is full. With a
 * full table no accept is armed, new connections wait in the kernel's
 * backlog, and a readiness watch on the listening socket (c->io, a poll
 * request of the backend, off while the accept is armed) tells when one
 * is waiting. Its event only marks the backlog; the decision runs in a
 * flush hook after the iteration's completions (tcp_ring_sched), so
 * what the idle connections sent in the meantime counts (the ring's
 * stand-in for tcp_evict reading the victim first; a victim with bytes
 * still in its socket counts as fresh for the round, tcp_ring_victim).
 * The decision is tcp_acceptable's, with accept(2) on the listening
 * socket: while only connections accepted since the previous such event
 * (fresh, accept_round) are idle, the new one waits (the watch is level
 * triggered: it fires again next iteration); else the idle victim is
 * closed and the new connection takes a spare slot in the same step;
 * when every connection is owed an answer it is accepted and closed
 * (tcp_refused). A close makes room: the hook arms the accept again once
 * a slot is free. Out of descriptors, accepting pauses for
 * TCP_ACCEPT_PAUSE_MS, as on the readiness path. Accepting one connection
 * per iteration with room costs little next to the receives and sends,
 * which keep their fast paths.
 */

/** buffers in a TCP comm_point's receive ring (a power of two) */
#define TCP_RING_BUFS 1024
/** size of one of them */
#define TCP_RING_BUFSZ 2048
/** answers one send request may carry (the queued ones, gathered) */
#define TCP_RING_IOV 16

/** the ring side of one connection slot */
struct tcp_ring_conn {
	/** completion handler of the receive: first member */
	struct nev_uring_op recv_op;
	/** completion handler of the send */
	struct nev_uring_op send_op;
	/** the ring state */
	struct tcp_ring *tr;
	/** slot index */
	int idx;
	/** the receive is armed */
	int recv_armed;
	/** a cancel of it was queued */
	int recv_cancelling;
	/** a send is in flight */
	int send_inflight;
	/** receive paused: the write queue is full */
	int paused;
	/** waiting for a buffer to come back before arming */
	int need_buf;
	/** the write queue of a closed connection whose send is in flight */
	struct nev_wq orphan;
	/** the send in flight when it carries several answers: its
	 * message and their pieces (they stay valid until it completes) */
	struct msghdr smsg;
	/** the pieces: the queued answers from the head, in order */
	struct iovec siov[TCP_RING_IOV];
};

/** the completion-based state of a TCP comm_point on an io_uring base */
struct tcp_ring {
	/** completion handler of the multishot accept: first member */
	struct nev_uring_op accept_op;
	/** the comm_point, NULL once it was deleted */
	struct comm_point *c;
	/** the backend state */
	void *st;
	/** the listening socket (owned: closed when this is freed) */
	int fd;
	/** the accept (single-shot) is armed */
	int accept_armed;
	/** a cancel of it was queued */
	int accept_cancelling;
	/** receive buffer ring */
	struct io_uring_buf_ring *br;
	/** its group id */
	int bgid;
	/** buffers in the ring, available to the kernel */
	unsigned nfree;
	/** connections waiting for a buffer */
	int starved;
	/** TCP_RING_BUFS * TCP_RING_BUFSZ bytes */
	uint8_t *mem;
	/** per slot */
	struct tcp_ring_conn *rc;
	/** slots */
	int nrc;
	/** runs tcp_ring_sched after the iteration's completions */
	struct nev_uring_flush flush;
	/** the readiness watch saw a connection waiting in the backlog */
	int backlog;
};

/** free the state (nothing in flight) */
static void
tcp_ring_free(struct tcp_ring *tr)
{
	int i;
	nev_uring_buf_ring_free(tr->st, tr->br, TCP_RING_BUFS, tr->bgid);
	if(tr->rc)
		for(i = 0; i < tr->nrc; i++)
			nev_wq_clear(&tr->rc[i].orphan);
	if(tr->fd != -1)
		close(tr->fd);
	free(tr->mem);
	free(tr->rc);
	free(tr);
}

/** a deleted comm_point's state goes when nothing is in flight */
static void
tcp_ring_reap(struct tcp_ring *tr)
{
	int i;
	if(tr->c || tr->accept_armed || tr->flush.queued)
		return;
	for(i = 0; i < tr->nrc; i++)
		if(tr->rc[i].recv_armed || tr->rc[i].send_inflight)
			return;
	nev_uring_linger(tr->st, -1);
	tcp_ring_free(tr);
}

/** queue tcp_ring_sched to run after this iteration's completions */
static void
tcp_ring_later(struct tcp_ring *tr)
{
	nev_uring_flush_later(tr->st, &tr->flush);
}

/** arm the single-shot accept */
static void
tcp_ring_arm_accept(struct tcp_ring *tr)
{
	struct io_uring_sqe *sqe;
	if(tr->accept_armed)
		return;
	sqe = nev_uring_get_sqe(tr->st);
	if(!sqe)
		return;
	io_uring_prep_accept(sqe, tr->fd, NULL, NULL,
		SOCK_NONBLOCK | SOCK_CLOEXEC);
	io_uring_sqe_set_data(sqe, &tr->accept_op);
	tr->accept_armed = 1;
	tr->accept_cancelling = 0;
}

/** queue a cancel of the request whose handler is op */
static int
tcp_ring_cancel(struct tcp_ring *tr, struct nev_uring_op *op)
{
	struct io_uring_sqe *sqe = nev_uring_get_sqe(tr->st);
	if(!sqe)
		return -1;
	io_uring_prep_cancel64(sqe, (uint64_t)(uintptr_t)op, 0);
	io_uring_sqe_set_data64(sqe, 0);
	return 0;
}

/** arm the multishot receive of slot rc (its connection is open) */
static void
tcp_ring_arm_recv(struct tcp_ring_conn *rc)
{
	struct tcp_ring *tr = rc->tr;
	struct comm_tcp_conn *conn = &tr->c->conns[rc->idx];
	struct io_uring_sqe *sqe;
	if(rc->recv_armed || rc->paused || conn->read_closed)
		return;
	if(tr->nfree == 0) {
		if(!rc->need_buf) {
			rc->need_buf = 1;
			tr->starved++;
		}
		return;
	}
	sqe = nev_uring_get_sqe(tr->st);
	if(!sqe)
		return;
	io_uring_prep_recv_multishot(sqe, conn->fd, NULL, 0, 0);
	sqe->flags |= IOSQE_BUFFER_SELECT;
	sqe->buf_group = (uint16_t)tr->bgid;
	io_uring_sqe_set_data(sqe, &rc->recv_op);
	rc->recv_armed = 1;
	rc->recv_cancelling = 0;
}

/** give a receive buffer back; arm the receives that waited for one */
static void
tcp_ring_give(struct tcp_ring *tr, int bid)
{
	int i;
	io_uring_buf_ring_add(tr->br, tr->mem + (size_t)bid * TCP_RING_BUFSZ,
		TCP_RING_BUFSZ, (unsigned short)bid,
		io_uring_buf_ring_mask(TCP_RING_BUFS), 0);
	io_uring_buf_ring_advance(tr->br, 1);
	tr->nfree++;
	if(!tr->starved || !tr->c)
		return;
	for(i = 0; i < tr->nrc && tr->nfree > 0 && tr->starved; i++) {
		struct tcp_ring_conn *rc = &tr->rc[i];
		if(!rc->need_buf)
			continue;
		rc->need_buf = 0;
		tr->starved--;
		if(tr->c->conns[i].fd != -1)
			tcp_ring_arm_recv(rc);
	}
}

/** the connection closes: cancel its receive, keep a queue in flight */
static void
tcp_ring_conn_closing(struct comm_tcp_conn *conn)
{
	struct tcp_ring *tr = conn->c->tring;
	struct tcp_ring_conn *rc = &tr->rc[conn - conn->c->conns];
	if(rc->recv_armed && !rc->recv_cancelling &&
		tcp_ring_cancel(tr, &rc->recv_op) == 0)
		rc->recv_cancelling = 1;
	if(rc->send_inflight) {
		rc->orphan = conn->wq;
		memset(&conn->wq, 0, sizeof(conn->wq));
	}
	if(rc->need_buf) {
		rc->need_buf = 0;
		tr->starved--;
	}
	rc->paused = 0;
	/* room for the next connection: arm the accept (tcp_ring_sched),
	 * after what this iteration is doing (it may take the room itself) */
	tcp_ring_later(tr);
}

/**
 * Send the head of the write queue if no send is in flight; close a
 * finished connection. Same contract as tcp_conn_flush.
 */
static int
tcp_ring_flush(struct comm_tcp_conn *conn)
{
	struct tcp_ring *tr = conn->c->tring;
	struct tcp_ring_conn *rc = &tr->rc[conn - conn->c->conns];
	struct nev_wq_item *w = conn->wq.head;
	struct io_uring_sqe *sqe;
	int n;
	if(rc->send_inflight)
		return 0;
	if(!w) {
		if(conn->read_closed && conn->pending == 0) {
			tcp_conn_close(conn);
			return 1;
		}
		return 0;
	}
	sqe = nev_uring_get_sqe(tr->st);
	if(!sqe) {
		conn->c->stats.tcp_errors++;
		tcp_conn_close(conn);
		return -1;
	}
	/* every answer queued goes in the one request (as the readiness
	 * path writes them one after the other in the same pass): fewer
	 * requests, and fewer segments and acknowledgements */
	for(n = 0; w && n < TCP_RING_IOV; w = w->next, n++) {
		rc->siov[n].iov_base = w->data + w->off;
		rc->siov[n].iov_len = w->len - w->off;
	}
	if(n == 1)
		io_uring_prep_send(sqe, conn->fd, rc->siov[0].iov_base,
			rc->siov[0].iov_len, MSG_NOSIGNAL);
	else {
		memset(&rc->smsg, 0, sizeof(rc->smsg));
		rc->smsg.msg_iov = rc->siov;
		rc->smsg.msg_iovlen = (size_t)n;
		io_uring_prep_sendmsg(sqe, conn->fd, &rc->smsg, MSG_NOSIGNAL);
	}
	io_uring_sqe_set_data(sqe, &rc->send_op);
	rc->send_inflight = 1;
	return 0;
}

/** a send completed */
static void
tcp_ring_sent(struct nev_uring_op *op, int res, unsigned flags)
{
	struct tcp_ring_conn *rc = (struct tcp_ring_conn *)((char *)op -
		offsetof(struct tcp_ring_conn, send_op));
	struct tcp_ring *tr = rc->tr;
	struct comm_tcp_conn *conn;
	(void)flags;
	rc->send_inflight = 0;
	if(!tr->c || tr->c->conns[rc->idx].fd == -1) {
		/* the connection closed meanwhile; its slot may be free now */
		nev_wq_clear(&rc->orphan);
		if(tr->c && !rc->recv_armed)
			tcp_ring_later(tr);
		tcp_ring_reap(tr);
		return;
	}
	conn = &tr->c->conns[rc->idx];
	if(res < 0) {
		verbose(VERB_ALGO, "tcp write: %s", strerror(-res));
		tr->c->stats.tcp_errors++;
		tcp_conn_close(conn);
		return;
	}
	/* the bytes sent, answer by answer from the head (the last one
	 * may be sent in part) */
	nev_wq_advance(&conn->wq, (size_t)res, &tr->c->stats.pkts_out);
	if(rc->paused && conn->wq.num < TCP_MAX_QUEUED) {
		rc->paused = 0;
		tcp_ring_arm_recv(rc);
	}
	(void)tcp_ring_flush(conn);
}

/**
 * Bytes received on a connection: run them through the framing (as
 * tcp_conn_read does with what read(2) returns) and hand each whole query
 * to the callback. @return 0, or -1 if the connection was closed.
 */
static int
tcp_ring_feed(struct comm_tcp_conn *conn, const uint8_t *data, size_t len)
{
	if(conn->pp_wait) {
		/* the PROXY v2 header comes first, in as many pieces */
		struct pp2_info info;
		size_t used = 0;
		int st = pp2_stream_feed(&conn->pp, data, len, &used, &info);
		if(st < 0) {
			tcp_conn_proxy_fail(conn, "bad PROXY v2 header");
			return -1;
		}
		if(st == 0)
			return 0;
		tcp_conn_proxy_done(conn, &info);
		data += used;
		len -= used;
	}
	/* bytes alone are no progress (tcp_conn_timeout_ms): a client that
	 * trickles a query keeps only its first-query time */
	while(len > 0) {
		size_t take;
		if(conn->lgot < 2) {
			take = 2 - conn->lgot < len ? 2 - conn->lgot : len;
			memcpy(conn->lenbuf + conn->lgot, data, take);
			conn->lgot += take;
			data += take;
			len -= take;
			if(conn->lgot < 2)
				break;
			if(tcp_conn_take_len(conn) == -1)
				return -1;
			continue;
		}
		take = conn->need - conn->got < len ? conn->need - conn->got :
			len;
		memcpy(conn->rbuf + conn->got, data, take);
		conn->got += take;
		data += take;
		len -= take;
		if(conn->got < conn->need) {
			if(tcp_conn_stray_proxy(conn, conn->got - take)) {
				tcp_conn_proxy_fail(conn, "PROXY header on a "
					"port without proxy-protocol-port");
				return -1;
			}
			break;
		}
		if(tcp_conn_query(conn) == -1)
			return -1;
	}
	return 0;
}

/** a receive completion: data, EOF, or the end of the multishot */
static void
tcp_ring_recv(struct nev_uring_op *op, int res, unsigned flags)
{
	struct tcp_ring_conn *rc = (struct tcp_ring_conn *)op;
	struct tcp_ring *tr = rc->tr;
	struct comm_tcp_conn *conn = NULL;
	if(!(flags & IORING_CQE_F_MORE)) {
		rc->recv_armed = 0;
		rc->recv_cancelling = 0;
	}
	if(tr->c && tr->c->conns[rc->idx].fd != -1)
		conn = &tr->c->conns[rc->idx];
	if(res > 0 && (flags & IORING_CQE_F_BUFFER)) {
		int bid = (int)(flags >> IORING_CQE_BUFFER_SHIFT);
		tr->nfree--;
		if(conn && tcp_ring_feed(conn, tr->mem + (size_t)bid *
			TCP_RING_BUFSZ, (size_t)res) == -1)
			conn = NULL;
		tcp_ring_give(tr, bid);
		if(conn && conn->wq.num >= TCP_MAX_QUEUED && !rc->paused) {
			/* stop reading until the client takes its answers */
			rc->paused = 1;
			if(rc->recv_armed && tcp_ring_cancel(tr,
				&rc->recv_op) == 0)
				rc->recv_cancelling = 1;
		}
	} else if(res == 0 && conn) {
		/* the client is done sending; answer what is queued */
		if(tcp_conn_eof(conn) != 0)
			conn = NULL;
	} else if(res < 0 && res != -ENOBUFS && res != -ECANCELED && conn) {
		verbose(VERB_ALGO, "tcp read: %s", strerror(-res));
		tr->c->stats.tcp_errors++;
		tcp_conn_close(conn);
		conn = NULL;
	}
	if(conn && conn->fd != -1 && !rc->recv_armed)
		tcp_ring_arm_recv(rc);
	else if(tr->c && tr->c->conns[rc->idx].fd == -1 && !rc->recv_armed &&
		!rc->send_inflight)
		tcp_ring_later(tr); /* its slot is free now */
	tcp_ring_reap(tr);
}

/** @return a slot whose previous connection's requests have all
 * completed, or NULL */
static struct comm_tcp_conn *
tcp_ring_free_slot(struct comm_point *c)
{
	int i;
	for(i = 0; i < c->nslots; i++) {
		struct tcp_ring_conn *rc = &c->tring->rc[i];
		if(c->conns[i].fd == -1 && !rc->recv_armed &&
			!rc->send_inflight)
			return &c->conns[i];
	}
	return NULL;
}

/**
 * Open the accepted connection fd in the free slot conn and arm its
 * receive.
 * @param client: its address, or NULL to ask the kernel.
 */
static void
tcp_ring_open(struct comm_point *c, struct comm_tcp_conn *conn, int fd,
	const struct netaddr *client)
{
	if(!conn->rbuf && !(conn->rbuf = malloc(c->bufsize))) {
		log_err("tcp accept: out of memory");
		close(fd);
		return;
	}
	if(client)
		conn->client = *client;
	else {
		conn->client.len = sizeof(conn->client.addr);
		if(getpeername(fd, (struct sockaddr *)&conn->client.addr,
			&conn->client.len) == -1)
			conn->client.len = 0;
	}
	conn->fd = fd;
	conn->io = NULL;
	conn->gen++;
	conn->lgot = conn->got = conn->need = 0;
	conn->read_closed = 0;
	conn->pending = 0;
	conn->nq = 0;
	conn->ka = 0;
	conn->pp_wait = c->proxy;
	pp2_stream_init(&conn->pp);
	conn->round = c->accept_round;
	conn->mask = 0;
	c->nconn++;
	c->stats.tcp_accepted++;
	tcp_ring_arm_recv(&c->tring->rc[conn - c->conns]);
	tcp_conn_progress(conn);
	tcp_pressure_check(c);
}

/**
 * tcp_victim for the ring, which cannot read the victim first as
 * tcp_evict does (its bytes belong to its armed receive): a victim with
 * bytes waiting in its socket gets them delivered by the next completions
 * before it can be closed, so it counts as fresh for this round.
 */
static struct comm_tcp_conn *
tcp_ring_victim(struct comm_point *c, int *fresh)
{
	int k;
	for(k = 0; k < TCP_EVICT_TRIES; k++) {
		struct comm_tcp_conn *v = tcp_victim(c, fresh);
		int n = 0;
		if(!v)
			return NULL;
		if(!c->tring->rc[v - c->conns].recv_armed ||
			ioctl(v->fd, FIONREAD, &n) == -1 || n <= 0)
			return v;
		v->round = c->accept_round;
		*fresh = 1;
	}
	return NULL;
}

/** accept failed for want of descriptors or memory: stop accepting for
 * TCP_ACCEPT_PAUSE_MS (tcp_accept_resume) */
static void
tcp_ring_pause(struct comm_point *c)
{
	if(c->accept_paused || !c->accept_timer)
		return;
	c->accept_paused = 1;
	c->stats.tcp_accept_pauses++;
	(void)comm_timer_set(c->accept_timer, TCP_ACCEPT_PAUSE_MS);
	tcp_ring_accept_mode(c);
}

/**
 * The table is full and a connection waits in the backlog: the decision
 * of tcp_acceptable, with accept(2) since the ring accept is not armed.
 */
static void
tcp_ring_backlog(struct comm_point *c)
{
	int k;
	for(k = 0; k < TCP_ACCEPTS_PER_WAKE && c->nconn >= c->max_conn &&
		!c->accept_paused; k++) {
		struct netaddr client;
		struct comm_tcp_conn *v, *conn = NULL;
		int fd, fresh = 0;
		v = tcp_ring_victim(c, &fresh);
		/* only connections accepted since the last round are idle:
		 * the new one waits in the backlog for the next round */
		if(!v && fresh)
			break;
		client.len = sizeof(client.addr);
		fd = accept4(c->tring->fd, (struct sockaddr *)&client.addr,
			&client.len, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if(fd == -1) {
			if(errno == EMFILE || errno == ENFILE ||
				errno == ENOBUFS || errno == ENOMEM) {
				verbose(VERB_OPS, "tcp accept: %s",
					strerror(errno));
				tcp_ring_pause(c);
			} else if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR && errno != ECONNABORTED)
				verbose(VERB_OPS, "tcp accept: %s",
					strerror(errno));
			break;
		}
		if(v) {
			c->stats.tcp_evicted++;
			if(verbosity >= VERB_ALGO) {
				char a[NETADDR_STRLEN];
				verbose(VERB_ALGO, "tcp: table full, closing "
					"the idle connection from %s (%d "
					"queries)", netaddr_str(&v->client, -1,
					a, sizeof(a)), (int)v->nq);
			}
			tcp_conn_close(v);
			conn = tcp_ring_free_slot(c);
		}
		if(!conn) {
			/* every connection is owed an answer (or no spare
			 * slot is done with its requests): refuse cleanly */
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
		tcp_ring_open(c, conn, fd, &client);
	}
	c->accept_round++;
}

/**
 * Accept through the ring or watch the backlog, as the table allows: the
 * ring accept is armed while listening with room (fewer than max_conn
 * connections and a free slot); the readiness watch is on while
 * listening with a full table; neither while paused or stopped, or while
 * the room waits for a closed connection's slot to be free.
 */
static void
tcp_ring_accept_mode(struct comm_point *c)
{
	struct tcp_ring *tr = c->tring;
	int on = c->listening && !c->accept_paused;
	int room = on && c->nconn < c->max_conn && tcp_ring_free_slot(c);
	if(room)
		tcp_ring_arm_accept(tr);
	else if(tr->accept_armed && !tr->accept_cancelling &&
		tcp_ring_cancel(tr, &tr->accept_op) == 0)
		tr->accept_cancelling = 1;
	if(c->io && nev_io_set(c->base, c->io, on && !room &&
		c->nconn >= c->max_conn ? NEV_READ : 0) == -1)
		log_err("tcp: cannot watch fd %d", tr->fd);
}

/** after an iteration's completions: serve a waiting connection of a full
 * table, then accept or watch as the table allows */
static void
tcp_ring_sched(struct nev_uring_flush *f)
{
	struct tcp_ring *tr = (struct tcp_ring *)((char *)f -
		offsetof(struct tcp_ring, flush));
	struct comm_point *c = tr->c;
	if(!c) {
		tcp_ring_reap(tr);
		return;
	}
	if(tr->backlog) {
		tr->backlog = 0;
		if(c->listening && !c->accept_paused && !tr->accept_armed &&
			c->nconn >= c->max_conn)
			tcp_ring_backlog(c);
	}
	tcp_ring_accept_mode(c);
}

/** the readiness watch: a connection waits while the table is full; it
 * is served after this iteration's completions (tcp_ring_sched), so the
 * idle connections' last bytes count */
static void
tcp_ring_backlog_event(int fd, int events, void *arg)
{
	struct comm_point *c = arg;
	(void)fd;
	(void)events;
	if(!c->tring)
		return;
	c->tring->backlog = 1;
	tcp_ring_later(c->tring);
}

/** an accept completion: a new connection or an error */
static void
tcp_ring_accept(struct nev_uring_op *op, int res, unsigned flags)
{
	struct tcp_ring *tr = (struct tcp_ring *)op;
	struct comm_point *c = tr->c;
	struct comm_tcp_conn *conn;
	if(!(flags & IORING_CQE_F_MORE)) {
		tr->accept_armed = 0;
		tr->accept_cancelling = 0;
	}
	if(res >= 0) {
		if(!c) {
			close(res);
		} else if(c->nconn >= c->max_conn ||
			!(conn = tcp_ring_free_slot(c))) {
			/* (not expected: armed only with room) */
			c->stats.tcp_refused++;
			close(res);
		} else
			tcp_ring_open(c, conn, res, NULL);
	} else if(c && (res == -EMFILE || res == -ENFILE ||
		res == -ENOBUFS || res == -ENOMEM)) {
		verbose(VERB_OPS, "tcp accept: %s", strerror(-res));
		tcp_ring_pause(c);
	} else if(res != -ECANCELED && res != -EAGAIN && res != -EINTR &&
		res != -ECONNABORTED)
		verbose(VERB_OPS, "tcp accept: %s", strerror(-res));
	if(c && !tr->accept_armed)
		tcp_ring_accept_mode(c);
	tcp_ring_reap(tr);
}

/**
 * Serve the TCP comm_point c through the ring if its base is io_uring
 * and the kernel has buffer rings.
 * @return 1 if so (c->tring set, accept not armed yet), 0 to use
 *	readiness, -1 out of memory.
 */
static int
tcp_ring_setup(struct comm_point *c)
{
	struct tcp_ring *tr;
	int i;
	if(c->base->be != &nev_backend_uring)
		return 0;
	tr = calloc(1, sizeof(*tr));
	if(!tr)
		return -1;
	tr->accept_op.done = tcp_ring_accept;
	tr->c = c;
	tr->st = c->base->st;
	tr->fd = -1;
	tr->flush.fn = tcp_ring_sched;
	tr->nrc = c->nslots;
	tr->mem = malloc((size_t)TCP_RING_BUFS * TCP_RING_BUFSZ);
	tr->rc = calloc((size_t)tr->nrc, sizeof(*tr->rc));
	if(!tr->mem || !tr->rc) {
		tcp_ring_free(tr);
		return -1;
	}
	tr->br = nev_uring_buf_ring_new(tr->st, TCP_RING_BUFS, &tr->bgid);
	if(!tr->br) {
		tcp_ring_free(tr);
		return 0;
	}
	for(i = 0; i < tr->nrc; i++) {
		tr->rc[i].recv_op.done = tcp_ring_recv;
		tr->rc[i].send_op.done = tcp_ring_sent;
		tr->rc[i].tr = tr;
		tr->rc[i].idx = i;
	}
	for(i = 0; i < TCP_RING_BUFS; i++)
		io_uring_buf_ring_add(tr->br, tr->mem + (size_t)i *
			TCP_RING_BUFSZ, TCP_RING_BUFSZ, (unsigned short)i,
			io_uring_buf_ring_mask(TCP_RING_BUFS), i);
	io_uring_buf_ring_advance(tr->br, TCP_RING_BUFS);
	tr->nfree = TCP_RING_BUFS;
	/* the readiness watch of a full table (off until then) */
	c->io = nev_io_new(c->base, c->fd, tcp_ring_backlog_event, c);
	if(!c->io) {
		tcp_ring_free(tr);
		return -1;
	}
	tr->fd = c->fd;
	c->tring = tr;
	return 1;
}

/** start or stop accepting with the listening state */
static void
tcp_ring_listen(struct comm_point *c)
{
	tcp_ring_accept_mode(c);
}

/** the comm_point goes (its connections closed): the state lingers until
 * nothing is in flight, owning the listening socket until then */
static void
tcp_ring_delete(struct comm_point *c)
{
	struct tcp_ring *tr = c->tring;
	c->listening = 0;
	tcp_ring_listen(c);
	if(c->io)
		nev_io_free(c->base, c->io);
	c->io = NULL;
	c->tring = NULL;
	tr->c = NULL;
	c->fd = -1;
	nev_uring_linger(tr->st, 1);
	tcp_ring_reap(tr);
}
#endif /* HAVE_LIBURING */

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
#ifdef HAVE_LIBURING
	switch(tcp_ring_setup(c)) {
	case 1:
		if(comm_point_start_listening(c) == -1)
			goto fail;
		return c;
	case -1:
		log_err("comm_point_create_tcp: out of memory");
		goto fail;
	default:
		break;
	}
#endif
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
		for(i = 0; i < c->nslots; i++)
			tcp_conn_close(&c->conns[i]);
	}
#ifdef HAVE_LIBURING
	if(c->tring)
		tcp_ring_delete(c);
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
	udp_busy_leave(c);
#ifdef HAVE_LIBURING
	if(c->ring)
		udp_ring_delete(c);
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

#ifdef HAVE_LIBURING
/**
 * Serve a TCP comm_point that was set up on the ring by readiness instead:
 * the ring reads raw bytes into provided buffers, where a TLS connection
 * needs SSL_read. The ring state lingers until its requests are done and
 * then closes the socket it holds; the comm_point goes on with a
 * duplicate of it (the same listening socket).
 * @return 0 or -1.
 */
static int
tcp_ring_to_readiness(struct comm_point *c)
{
	int listening = c->listening;
	int fd = dup(c->fd);
	if(fd == -1) {
		log_err("tcp: dup of the listening socket: %s",
			strerror(errno));
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	tcp_ring_delete(c);
	c->fd = fd;
	c->io = nev_io_new(c->base, fd, tcp_acceptable, c);
	if(!c->io) {
		log_err("tcp: cannot watch the listening socket");
		return -1;
	}
	return listening ? comm_point_start_listening(c) : 0;
}
#endif /* HAVE_LIBURING */

int
comm_point_set_tls(struct comm_point *c, struct ssl_ctx_st *ctx)
{
	c->tls_ctx = ctx;
#ifdef HAVE_LIBURING
	if(ctx && c->tring)
		return tcp_ring_to_readiness(c);
#endif
	return 0;
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
		return tcp_ring_to_readiness(c);
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
}

int
comm_point_set_keepalive(struct comm_point *c, int ms)
{
	c->ka_ms = ms > 0 ? ms : 0;
	if(c->ka_ms && !c->padbuf && !(c->padbuf = malloc(65535)))
		return -1;
	return 0;
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
			tcp_conn_arm(&c->conns[i]);
}

int
comm_point_stop_listening(struct comm_point *c)
{
	c->listening = 0;
	udp_busy_leave(c);
#ifdef HAVE_LIBURING
	if(c->ring) {
		udp_ring_listen(c);
		return 0;
	}
	if(c->tring) {
		tcp_ring_listen(c);
		return 0;
	}
#endif
	return nev_io_set(c->base, c->io, 0);
}

int
comm_point_start_listening(struct comm_point *c)
{
	c->listening = 1;
	if(c->busy)
		return 0;
#ifdef HAVE_LIBURING
	if(c->ring) {
		udp_ring_listen(c);
		return 0;
	}
	if(c->tring) {
		tcp_ring_listen(c);
		return 0;
	}
#endif
	return nev_io_set(c->base, c->io, NEV_READ);
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
			tcp_conn_progress(conn);
			return tcp_conn_h2_out(conn) == -1 ? -1 : 0;
		}
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
