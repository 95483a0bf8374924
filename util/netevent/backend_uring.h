/*
 * util/netevent/backend_uring.h - what the io_uring backend offers the
 * comm_points beyond the backend contract (internal to util/netevent).
 *
 * The contract (backend.h) is readiness: the io_uring backend serves it
 * with one-shot IORING_OP_POLL_ADD requests re-armed after each callback
 * (so a descriptor stays level triggered, as the other backends promise).
 * A UDP comm_point on an io_uring base can do better than readiness: it
 * asks for a multishot IORING_OP_RECVMSG into a ring of provided buffers
 * and sends its answers as IORING_OP_SENDMSG requests, all of which go to
 * the kernel together with the next wait (comm_uring.c, udp_ring_*). For
 * that it needs the calls below: a submission entry, a completion hook
 * (struct nev_uring_op as the user_data of every request), a hook run
 * once after each iteration's completions (to answer a batch), buffer
 * rings, and a count of objects that wait for their last completions
 * before they may be freed (the backend's destroy waits for those).
 */
#ifndef UTIL_NETEVENT_BACKEND_URING_H
#define UTIL_NETEVENT_BACKEND_URING_H
#ifdef HAVE_LIBURING

#include <liburing.h>

/**
 * A request's completion handler. The user_data of every request the
 * backend or a comm_point submits is the address of one of these (or 0
 * for a request whose completion nobody reads, such as a cancellation).
 */
struct nev_uring_op {
	/** called with the completion's res and flags */
	void (*done)(struct nev_uring_op *op, int res, unsigned flags);
};

/** a hook run once after the completions of the iteration it was queued in */
struct nev_uring_flush {
	/** the hook */
	void (*fn)(struct nev_uring_flush *f);
	/** next queued */
	struct nev_uring_flush *next;
	/** queued now */
	int queued;
};

/**
 * A submission entry to fill (user_data must be set by the caller).
 * Submits what is queued first when the queue is full.
 * @return the entry, or NULL (logged).
 */
struct io_uring_sqe *nev_uring_get_sqe(void *st);

/** Queue f to run after this iteration's completions (once). */
void nev_uring_flush_later(void *st, struct nev_uring_flush *f);

/**
 * Register a ring of provided buffers.
 * @param entries: a power of two.
 * @param bgid: set to the buffer group id to give to the requests.
 * @return the ring (buffers not yet added), or NULL when the kernel lacks
 *	buffer rings (not logged: the caller falls back).
 */
struct io_uring_buf_ring *nev_uring_buf_ring_new(void *st, unsigned entries,
	int *bgid);

/** Unregister and free a buffer ring made by nev_uring_buf_ring_new. */
void nev_uring_buf_ring_free(void *st, struct io_uring_buf_ring *br,
	unsigned entries, int bgid);

/**
 * Count objects (+1 / -1) that are gone for their owner but wait for the
 * last completions of their requests; destroy waits until none is left.
 */
void nev_uring_linger(void *st, int delta);

#endif /* HAVE_LIBURING */
#endif /* UTIL_NETEVENT_BACKEND_URING_H */
