/*
 * util/netevent/comm_uring.c - the io_uring paths of the UDP and TCP
 * comm_points (HAVE_LIBURING; the file compiles to nothing without it),
 * behind the calls of backend_uring.h. comm_udp.c and comm_tcp.c set a
 * comm_point up here when its base is io_uring (comm__udp_ring_setup,
 * comm__tcp_ring_setup); everything else about the comm_point is theirs.
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
 */
#include "config.h"
#include "util/netevent/comm_point_int.h"
#ifdef HAVE_LIBURING
#include "util/netevent/backend_uring.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>

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
		comm__udp_set_ctl(&sd->m, &rep->local, sd->ctl.buf);
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
					comm__udp_parse_ctl(&m, &rep->local);
				if(c->qt_ms && comm__udp_stale(c, &m))
					rep->cap = 0;
			}
			if(rep->cap == 0 || (c->proxy &&
				comm__udp_proxy_strip(c, rep) == -1)) {
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

int
comm__udp_ring_setup(struct comm_point *c)
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

void
comm__udp_ring_listen(struct comm_point *c)
{
	if(c->listening)
		udp_ring_arm(c->ring);
	else	udp_ring_cancel(c->ring);
}

void
comm__udp_ring_delete(struct comm_point *c)
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
 * Accepting keeps the idle-connection defences of comm__tcp_acceptable (issue
 * 17) with the same observable behaviour. The comm_point has 2 * max_conn
 * slots and at most max_conn connections (nconn): a closed connection's
 * slot lingers until its requests complete while a spare one serves the
 * next connection, so a connection closed for a new one hands over its
 * place at once. The accept is single-shot, armed again on its
 * completion only while there is room (comm__tcp_ring_accept_mode): a
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
 * The decision is comm__tcp_acceptable's, with accept(2) on the listening
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

void
comm__tcp_ring_conn_closing(struct comm_tcp_conn *conn)
{
	struct tcp_ring *tr = conn->c->tring;
	struct tcp_ring_conn *rc = &tr->rc[conn - conn->c->conns];
	if(rc->recv_armed && !rc->recv_cancelling &&
		tcp_ring_cancel(tr, &rc->recv_op) == 0)
		rc->recv_cancelling = 1;
	if(rc->send_inflight) {
		/* the orphan's bytes leave the point's count (it may go
		 * before the orphan does) */
		if(conn->wq.total)
			*conn->wq.total -= conn->wq.bytes;
		rc->orphan = conn->wq;
		rc->orphan.total = NULL;
		memset(&conn->wq, 0, sizeof(conn->wq));
		conn->wq.total = &conn->c->wq_bytes;
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

int
comm__tcp_ring_flush(struct comm_tcp_conn *conn)
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
			comm__tcp_conn_close(conn);
			return 1;
		}
		return 0;
	}
	sqe = nev_uring_get_sqe(tr->st);
	if(!sqe) {
		conn->c->stats.tcp_errors++;
		comm__tcp_conn_close(conn);
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
		comm__tcp_conn_close(conn);
		return;
	}
	/* the bytes sent, answer by answer from the head (the last one
	 * may be sent in part) */
	nev_wq_advance(&conn->wq, (size_t)res, &tr->c->stats.pkts_out);
	if(rc->paused && conn->wq.num < TCP_MAX_QUEUED) {
		rc->paused = 0;
		tcp_ring_arm_recv(rc);
	}
	(void)comm__tcp_ring_flush(conn);
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
			comm__tcp_conn_proxy_fail(conn, "bad PROXY v2 header");
			return -1;
		}
		if(st == 0)
			return 0;
		comm__tcp_conn_proxy_done(conn, &info);
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
			if(comm__tcp_conn_take_len(conn) == -1)
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
			if(comm__tcp_conn_stray_proxy(conn, conn->got - take)) {
				comm__tcp_conn_proxy_fail(conn,
					"PROXY header on a port without "
					"proxy-protocol-port");
				return -1;
			}
			break;
		}
		if(comm__tcp_conn_query(conn) == -1)
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
		if(comm__tcp_conn_eof(conn) != 0)
			conn = NULL;
	} else if(res < 0 && res != -ENOBUFS && res != -ECANCELED && conn) {
		verbose(VERB_ALGO, "tcp read: %s", strerror(-res));
		tr->c->stats.tcp_errors++;
		comm__tcp_conn_close(conn);
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
	struct netaddr peer;
	int slot = -1;
	if(!client) {
		peer.len = sizeof(peer.addr);
		if(getpeername(fd, (struct sockaddr *)&peer.addr,
			&peer.len) == -1)
			peer.len = 0;
		client = &peer;
	}
	if(c->limit.admit && !c->limit.admit(c->limit.arg, client, &slot)) {
		/* tcp-connection-limit: accepted, closed at once */
		c->stats.tcp_refused++;
		close(fd);
		return;
	}
	if(!conn->rbuf && !(conn->rbuf = malloc(c->bufsize))) {
		log_err("tcp accept: out of memory");
		if(slot >= 0 && c->limit.release)
			c->limit.release(c->limit.arg, slot);
		close(fd);
		return;
	}
	conn->client = *client;
	conn->fd = fd;
	conn->limit_slot = slot;
	conn->io = NULL;
	conn->gen++;
	conn->lgot = conn->got = conn->need = 0;
	conn->read_closed = 0;
	conn->pending = 0;
	conn->nq = 0;
	conn->ka = 0;
	conn->pp_wait = c->proxy;
	conn->proxy.len = 0;
	pp2_stream_init(&conn->pp);
	conn->round = c->accept_round;
	conn->mask = 0;
	c->nconn++;
	c->stats.tcp_accepted++;
	tcp_ring_arm_recv(&c->tring->rc[conn - c->conns]);
	comm__tcp_conn_progress(conn);
	comm__tcp_pressure_check(c);
}

/**
 * comm__tcp_victim for the ring, which cannot read the victim first as
 * tcp_evict does (its bytes belong to its armed receive): a victim with
 * bytes waiting in its socket gets them delivered by the next completions
 * before it can be closed, so it counts as fresh for this round.
 */
static struct comm_tcp_conn *
tcp_ring_victim(struct comm_point *c, int *fresh)
{
	int k;
	for(k = 0; k < TCP_EVICT_TRIES; k++) {
		struct comm_tcp_conn *v = comm__tcp_victim(c, fresh);
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
	comm__tcp_ring_accept_mode(c);
}

/**
 * The table is full and a connection waits in the backlog: the decision
 * of comm__tcp_acceptable, with accept(2) since the ring accept is not armed.
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
			comm__tcp_conn_close(v);
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

void
comm__tcp_ring_accept_mode(struct comm_point *c)
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
	comm__tcp_ring_accept_mode(c);
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
		comm__tcp_ring_accept_mode(c);
	tcp_ring_reap(tr);
}

int
comm__tcp_ring_setup(struct comm_point *c)
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

void
comm__tcp_ring_listen(struct comm_point *c)
{
	comm__tcp_ring_accept_mode(c);
}

void
comm__tcp_ring_delete(struct comm_point *c)
{
	struct tcp_ring *tr = c->tring;
	c->listening = 0;
	comm__tcp_ring_listen(c);
	if(c->io)
		nev_io_free(c->base, c->io);
	c->io = NULL;
	c->tring = NULL;
	tr->c = NULL;
	c->fd = -1;
	nev_uring_linger(tr->st, 1);
	tcp_ring_reap(tr);
}

int
comm__tcp_ring_to_readiness(struct comm_point *c)
{
	int listening = c->listening;
	int fd = dup(c->fd);
	if(fd == -1) {
		log_err("tcp: dup of the listening socket: %s",
			strerror(errno));
		return -1;
	}
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	comm__tcp_ring_delete(c);
	c->fd = fd;
	c->io = nev_io_new(c->base, fd, comm__tcp_acceptable, c);
	if(!c->io) {
		log_err("tcp: cannot watch the listening socket");
		return -1;
	}
	return listening ? comm_point_start_listening(c) : 0;
}
#endif /* HAVE_LIBURING */
