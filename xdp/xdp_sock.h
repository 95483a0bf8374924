/*
 * xdp/xdp_sock.h - AF_XDP sockets on one interface (xdp-interface): the
 * XDP program, one socket per receive queue, and the loop that answers
 * the frames of a queue through a callback.
 *
 * The set (struct xdp_set) is opened once by the daemon with its
 * listening sockets, before privileges are dropped and before workers
 * start: it loads the XDP program (xdp/xdp_kern.bpf.c, carried in the
 * binary), tells it the addresses and ports petrel listens on, attaches
 * it to the interface (native mode first, then generic; through a BPF
 * link where the kernel has them, so that the program goes away with the
 * last process that holds the link, even one that died), and binds one
 * AF_XDP socket to each receive queue (zero-copy first, then copy mode;
 * need_wakeup), each with its own UMEM of frames. Where any of that
 * cannot be done (no privilege, no driver support, no such interface, a
 * build without libxdp) xdp_set_open logs one line and returns NULL: the
 * daemon answers through its ordinary sockets only.
 *
 * Ownership of the queues: queue q belongs to worker q % num_workers.
 * A worker calls xdp_worker_start on its event loop; from then on only
 * that worker touches the queue's rings. The queue's state (ring
 * positions, free frames, counters) and its frames live in shared
 * memory mapped before the workers start, so with thread-model: fork a
 * child owns its queues' sockets and a child restarted by the supervisor
 * carries on where the last one stopped. The set survives reloads that
 * keep the listening sockets; the workers stop and start again on it.
 *
 * Per frame (xdp_sock.c): the frame is checked (xdp/xdp_frame.h); a
 * frame that is not a valid UDP datagram to a listening point is
 * dropped and counted; otherwise the callback gets the DNS message and
 * room in the frame for the answer. It returns the answer's length (the
 * answer is in the frame: the headers are built and it goes on the TX
 * ring) or 0 (it answered some other way, or not at all: the frame goes
 * back to the fill ring). Nothing is allocated, locked or logged per
 * frame.
 */
#ifndef XDP_XDP_SOCK_H
#define XDP_XDP_SOCK_H

#include <stdint.h>
#include <stddef.h>
#include "util/netaddr.h"

struct comm_base;
struct xdp_set;
struct xdp_worker;
struct xdp_frame_info;

/** settings of xdp_set_open */
struct xdp_set_opts {
	/** the interface (xdp-interface) */
	const char *ifname;
	/** the listening points: their addresses (with ports); a wildcard
	 * address answers every address on its port; an empty one (len 0)
	 * is left to the kernel */
	const struct netaddr *points;
	/** how many */
	int num_points;
	/** the workers the queues are shared out to */
	int num_workers;
	/** frames handled per batch (xdp-batch-size) */
	int batch;
	/** entries of each ring (xdp-ring-size, a power of two) */
	int ring;
};

/** one query given to the callback */
struct xdp_query {
	/** the listening point it was sent to (index into points) */
	int point;
	/** 1 when that point is a wildcard address */
	int wildcard;
	/** the frame's addresses and offsets */
	const struct xdp_frame_info *fi;
	/** the DNS message */
	const uint8_t *dns;
	/** its length */
	size_t len;
	/** where the answer goes (over the query, in the frame) */
	uint8_t *out;
	/** the room there: what fits both the frame and the interface's
	 * MTU */
	size_t room;
};

/**
 * The answer to one query.
 * @param arg: the argument given to xdp_worker_start.
 * @param q: the query.
 * @return the answer's length in q->out (sent over XDP), or 0 when
 *	nothing is to be sent over XDP.
 */
typedef size_t (*xdp_answer_cb_type)(void *arg, const struct xdp_query *q);

/** counters of a worker's queues (num.xdp.*) */
struct xdp_stats {
	/** answers sent over XDP */
	uint64_t answers;
	/** queries answered by the callback some other way (its ordinary
	 * path: recursion, or an answer too big for a frame) or dropped */
	uint64_t passed;
	/** frames dropped: not a valid UDP datagram to a listening point */
	uint64_t invalid;
	/** answers dropped because the TX ring was full */
	uint64_t tx_full;
};

/**
 * Open the set: load and attach the program, bind the sockets.
 * @param o: the settings (copied).
 * @return the set, or NULL (one line logged: the fast path is off).
 */
struct xdp_set *xdp_set_open(const struct xdp_set_opts *o);

/** Detach the program, close the sockets, free. NULL is allowed. No
 * worker may run on it. */
void xdp_set_close(struct xdp_set *s);

/** @return a line on what the set runs: mode, queues, copy or zero-copy
 *	(static storage in the set). */
const char *xdp_set_describe(const struct xdp_set *s);

/**
 * Start answering the queues of worker index on its event loop.
 * @param s: the set (NULL: returns NULL, nothing to do).
 * @param index: the worker's number.
 * @param base: its event loop.
 * @param cb: the answer callback.
 * @param arg: its argument.
 * @return the worker's handle, or NULL (no queue for this worker, or
 *	out of memory: logged).
 */
struct xdp_worker *xdp_worker_start(struct xdp_set *s, int index,
	struct comm_base *base, xdp_answer_cb_type cb, void *arg);

/** Stop answering (the queues keep their state for the next start).
 * NULL is allowed. */
void xdp_worker_stop(struct xdp_worker *xw);

/**
 * Add the counters of the worker's queues to out.
 * @param reset: 1 to clear them after.
 */
void xdp_worker_stats(struct xdp_worker *xw, struct xdp_stats *out,
	int reset);

#endif /* XDP_XDP_SOCK_H */
