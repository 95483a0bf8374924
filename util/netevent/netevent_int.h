/*
 * util/netevent/netevent_int.h - internals shared by the files of
 * util/netevent/ (not for use outside it).
 *
 * struct comm_base holds the backend and its state, the cached clock, the
 * wakeup pipe, the idle hooks and the before-wait hooks. The comm_point files reach the backend
 * only through the nev_io_* helpers here, so that the wake-up bookkeeping
 * (clock, after_wake) lives in one place.
 */
#ifndef UTIL_NETEVENT_NETEVENT_INT_H
#define UTIL_NETEVENT_NETEVENT_INT_H

#include <signal.h>
#include "util/netevent/netevent.h"
#include "util/netevent/backend.h"

/** the event base of one worker */
struct comm_base {
	/** the backend functions */
	const struct nev_backend *be;
	/** the backend's loop state */
	void *st;
	/** cached clock */
	struct timeval now;
	/** cached clock, seconds */
	time_t secs;
	/** exit requested (set from callbacks, threads, signal handlers) */
	volatile sig_atomic_t exit_flag;
	/** wakeup pipe: [0] read end watched by the loop, [1] written */
	int wake_pipe[2];
	/** backend io of wake_pipe[0] */
	void *wake_io;
	/** idle hook before the wait */
	void (*before_wait)(void *);
	/** idle hook after the wait */
	void (*after_wake)(void *);
	/** argument of the idle hooks */
	void *hook_arg;
	/** set once the current iteration has woken */
	int awake;
	/** the before-wait hooks (struct comm_wait_hook), linked */
	struct comm_wait_hook *wait_hooks;
	/** ip-dscp of upstream sockets, 0 for none */
	int out_dscp;
	/** outgoing-tcp-mss of upstream TCP connections, 0 for default */
	int out_tcp_mss;
};

/** a timer */
struct comm_timer {
	/** the base */
	struct comm_base *base;
	/** backend timer */
	void *bt;
	/** armed? */
	int is_set;
	/** callback */
	void (*cb)(void *);
	/** argument */
	void *arg;
};


/** register fd on the base's backend. @return io handle or NULL */
void *nev_io_new(struct comm_base *base, int fd, nev_io_cb_type cb,
	void *arg);
/** set interest. @return 0 or -1 */
int nev_io_set(struct comm_base *base, void *io, int mask);
/** unregister */
void nev_io_free(struct comm_base *base, void *io);
/** move a registration (interest 0) to another descriptor, or detach it
 * with fd -1. @return 0, or -1 when the backend cannot now (the caller
 * then frees it and registers anew) */
int nev_io_refd(struct comm_base *base, void *io, int fd);
/** set fd nonblocking and close-on-exec. @return 0 or -1 */
int nev_fd_nonblock(int fd);

/** one queued DNS message with its 2-byte TCP length in front */
struct nev_wq_item {
	/** next in the queue */
	struct nev_wq_item *next;
	/** bytes in data (2 + message) */
	size_t len;
	/** bytes data has room for (at least len) */
	size_t cap;
	/** bytes already written */
	size_t off;
	/** the length prefix and the message */
	uint8_t data[];
};

/** a queue that keeps a spare item rounds item sizes up to this, so that
 * queries of slightly different lengths fit the same block */
#define NEV_WQ_SPARE_ROUND 512

/**
 * A write queue of framed DNS messages (RFC 7766), shared by the TCP
 * service (answers) and outgoing TCP (queries). Zero-initialise it.
 * With keep_spare set, an item written (or emptied by nev_wq_empty) is
 * kept, the largest one, for the next push that fits it: a connection
 * that carries one query at a time allocates no item once warm.
 */
struct nev_wq {
	/** first item, NULL when empty */
	struct nev_wq_item *head;
	/** last item */
	struct nev_wq_item *tail;
	/** number of items */
	int num;
	/** 1: keep a spare item (see above) */
	int keep_spare;
	/** the spare item, or NULL */
	struct nev_wq_item *spare;
	/** bytes of the queued items (their whole lengths) */
	size_t bytes;
	/** a total the queue adds its items' bytes to and takes them from
	 * (the comm_point's, stream-wait-size), or NULL */
	size_t *total;
};

/**
 * Append a copy of msg with its length prefix.
 * @return 0, or -1 (empty or longer than 65535, or out of memory).
 */
int nev_wq_push(struct nev_wq *q, const uint8_t *msg, size_t len);

/**
 * Append a copy of bytes without a length prefix (HTTP/2 frames).
 * @return 0, or -1 (empty, or out of memory).
 */
int nev_wq_push_raw(struct nev_wq *q, const uint8_t *data, size_t len);

/**
 * Write as much of the queue as fd takes (nonblocking).
 * @param done: incremented for every message written completely.
 * @return 0 (queue empty, or the socket would block), or -1 on a write
 *	error (errno set; the queue is left as it is).
 */
int nev_wq_write(struct nev_wq *q, int fd, uint64_t *done);

/** Free every queued item and the spare; the queue is empty afterwards. */
void nev_wq_clear(struct nev_wq *q);

/** Drop every queued item (the spare kept, with keep_spare); the queue is
 * empty afterwards. */
void nev_wq_empty(struct nev_wq *q);

/**
 * n bytes from the head of the queue were written: advance through its
 * items, the last one perhaps in part. An item written whole leaves the
 * queue (kept as the spare with keep_spare, the largest, or freed). For
 * the writers (nev_wq_write, tls_wq_write, the io_uring sends).
 * @param done: incremented for every message written completely.
 */
void nev_wq_advance(struct nev_wq *q, size_t n, uint64_t *done);

#endif /* UTIL_NETEVENT_NETEVENT_INT_H */
