/*
 * util/netevent/backend.h - the backend contract (internal to util/netevent).
 *
 * A backend is a table of functions over an opaque state, as in Redis' ae:
 *
 *   create / destroy     one loop (the state) per comm_base; create takes
 *                        a "woke up" hook run before the first callback
 *                        of each iteration
 *   io_new / io_set /    register a descriptor with a callback, set its
 *   io_free              interest (NEV_READ | NEV_WRITE, 0 = none), remove
 *   timer_new / _set /   a one-shot timer relative to "now"; armed by set,
 *   _clear / _free       disarmed by clear
 *   run_once             block (at most max_wait, or until the next timer)
 *                        and run the callbacks that became ready
 *   method               the kernel mechanism used ("select", "epoll", ...)
 *   usable               NULL, or a run-time probe: can this kernel (and
 *                        this process: seccomp, sysctl) run the backend?
 *
 * Callbacks run from run_once only. An io or timer may be freed or changed
 * from any callback, including its own; the backend must not touch a freed
 * object afterwards in the same iteration. Signals and loop exit are not in
 * the contract: comm_base builds them from a self-pipe and a wakeup pipe.
 */
#ifndef UTIL_NETEVENT_BACKEND_H
#define UTIL_NETEVENT_BACKEND_H

#include <sys/time.h>

/** interest in readability */
#define NEV_READ	0x01
/** interest in writability */
#define NEV_WRITE	0x02

/** io callback: fd and the ready events (NEV_READ|NEV_WRITE) */
typedef void (*nev_io_cb_type)(int fd, int events, void *arg);
/** wake-up notification, see create */
typedef void (*nev_wake_cb_type)(void *arg);
/** timer callback */
typedef void (*nev_timer_cb_type)(void *arg);

/** a backend: functions over an opaque state */
struct nev_backend {
	/** name used to pick it: "select", "libevent" */
	const char *name;
	/**
	 * @param wake: called by run_once after the wait, before the first
	 *	callback of the iteration (at most once per run_once; the
	 *	comm_base updates its clock and runs after_wake there).
	 * @param warg: its argument.
	 * @return new loop state, or NULL (logged)
	 */
	void *(*create)(nev_wake_cb_type wake, void *warg);
	/** free the loop state (all io and timers freed before) */
	void (*destroy)(void *st);
	/** @return kernel method name */
	const char *(*method)(void *st);
	/**
	 * Register fd with a callback, interest 0.
	 * @return io handle, or NULL (logged; e.g. fd >= FD_SETSIZE).
	 */
	void *(*io_new)(void *st, int fd, nev_io_cb_type cb, void *arg);
	/** set the interest mask. @return 0 or -1 */
	int (*io_set)(void *st, void *io, int mask);
	/** unregister and free an io handle */
	void (*io_free)(void *st, void *io);
	/** @return new disarmed timer, or NULL */
	void *(*timer_new)(void *st, nev_timer_cb_type cb, void *arg);
	/**
	 * Arm a timer to fire at now + rel, where now is the time it is
	 * armed (read by comm_timer_set, at or after the comm_base's cached
	 * clock, and passed in so all backends agree on it).
	 * @return 0 or -1
	 */
	int (*timer_set)(void *st, void *t, const struct timeval *now,
		const struct timeval *rel);
	/** disarm */
	void (*timer_clear)(void *st, void *t);
	/** disarm and free */
	void (*timer_free)(void *st, void *t);
	/**
	 * Wait and dispatch once.
	 * @param max_wait: upper bound on the wait, NULL for none.
	 * @return 0, or -1 on error (logged).
	 */
	int (*run_once)(void *st, const struct timeval *max_wait);
	/**
	 * Run-time probe, NULL when the backend always works. Called before
	 * create; the result may be cached for the process.
	 * @param why: set to a static sentence saying what is missing.
	 * @return 1 if usable, 0 if not.
	 */
	int (*usable)(const char **why);
	/**
	 * Optional (NULL: not supported): move an io whose interest is 0
	 * to another descriptor, or with fd -1 detach it from its own (it
	 * is about to close; another io may be registered on that number),
	 * so that a caller that opens a socket per use keeps its io
	 * instead of freeing it and making a new one.
	 * @return 0, or -1 when this io cannot move now (the caller frees
	 *	it and makes a new one; nothing changed).
	 */
	int (*io_refd)(void *st, void *io, int fd);
};

/** the select(2) backend, always built */
extern const struct nev_backend nev_backend_select;
#ifdef HAVE_LIBEVENT
/** the libevent backend */
extern const struct nev_backend nev_backend_libevent;
#endif
#ifdef HAVE_LIBURING
/** the io_uring backend (backend_uring.c) */
extern const struct nev_backend nev_backend_uring;
#endif

#endif /* UTIL_NETEVENT_BACKEND_H */
