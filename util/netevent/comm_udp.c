/*
 * util/netevent/comm_udp.c - the UDP comm_point.
 *
 * UDP. All memory is allocated at creation: batch slots, each with a
 * buffer of bufsize bytes, a struct comm_reply (whose client address is
 * the recvmmsg name buffer itself, so nothing is copied), and receive and
 * send control buffers for the packet info. A readable socket is drained
 * in at most NETEVENT_UDP_BATCHES_PER_WAKE recvmmsg calls; the callback
 * runs per datagram and the answers of one batch leave with one sendmmsg.
 * When sendmmsg stops short (or is missing) the rest go one sendmsg each;
 * an answer the kernel refuses (full buffer) is dropped and counted.
 * A socket that stays full goes into busy mode (below, at
 * comm__udp_busy_leave).
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
 */
#include "config.h"
#include "util/netevent/comm_point_int.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

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

int
comm__udp_stale(struct comm_point *c, struct msghdr *m)
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

int
comm__udp_proxy_strip(struct comm_point *c, struct comm_reply *rep)
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
		if((c->qt_ms && comm__udp_stale(c, &c->rmsg[i].msg_hdr)) ||
			(c->proxy && comm__udp_proxy_strip(c, rep) == -1))
			rep->cap = 0;
	}
}

void
comm__udp_parse_ctl(struct msghdr *m, struct comm_local *local)
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

void
comm__udp_set_ctl(struct msghdr *m, const struct comm_local *local,
	uint8_t *ctl)
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
			comm__udp_parse_ctl(&c->rmsg[i].msg_hdr, &rep->local);
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
		comm__udp_set_ctl(sm, &rep->local, c->sctl + (size_t)q *
			c->ctlsize);
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
 * A busy socket is drained by its before-wait hook on the base
 * (comm_wait_hook: run once per iteration, after the wake-up's callbacks),
 * which keeps the next wait from sleeping while the socket stays busy.
 */

void
comm__udp_busy_leave(struct comm_point *c)
{
	if(!c->busy)
		return;
	comm_base_del_wait_hook(c->base, &c->busy_hook);
	c->busy = 0;
	if(c->listening && nev_io_set(c->base, c->io, NEV_READ) == -1)
		log_err("udp: cannot wait for fd %d again", c->fd);
}

/**
 * The before-wait hook of a busy socket: drain it once; a batch that comes
 * back short ends busy mode (the socket waits in the backend again).
 * @return 1 while it stays busy: the next wait must not sleep.
 */
static int
udp_busy_poll(void *arg)
{
	struct comm_point *c = arg;
	if(c->busy == 2)
		c->busy = 1;
	else if(!udp_drain(c)) {
		comm__udp_busy_leave(c);
		return 0;
	}
	return 1;
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
	c->busy_hook.run = udp_busy_poll;
	c->busy_hook.arg = c;
	comm_base_add_wait_hook(c->base, &c->busy_hook);
	c->stats.busy_periods++;
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
	if(!(c = comm__cp_new(base, fd, COMM_UDP, bufsize, cb, arg)))
		return NULL;
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
	if(comm__cp_listen(c, udp_readable) == -1)
		goto fail;
	return c;
fail:
	comm_point_delete(c);
	return NULL;
}
