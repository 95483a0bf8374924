/*
 * util/netevent/timer_heap.h - the timer min-heap shared by the backends
 * that keep their own timers (select, io_uring); internal to util/netevent.
 *
 * A binary min-heap ordered by (deadline, arming sequence number), so equal
 * deadlines fire in the order they were armed, and a timer re-armed for
 * 0 ms from its own callback waits for the next iteration instead of
 * looping forever. Each timer knows its heap index, so removal is
 * O(log n). The heap array grows on arming (the only allocation).
 */
#ifndef UTIL_NETEVENT_TIMER_HEAP_H
#define UTIL_NETEVENT_TIMER_HEAP_H

#include <stdint.h>
#include <sys/time.h>
#include "util/netevent/backend.h"

/** a timer in a heap */
struct nev_theap_timer {
	/** deadline */
	struct timeval when;
	/** arming sequence number (tie breaker) */
	uint64_t seq;
	/** index in the heap, -1 when disarmed */
	int idx;
	/** callback */
	nev_timer_cb_type cb;
	/** its argument */
	void *arg;
};

/** the heap; zero-initialise it */
struct nev_theap {
	/** the array */
	struct nev_theap_timer **heap;
	/** timers in it */
	int num;
	/** array capacity */
	int cap;
	/** next arming sequence number */
	uint64_t seq;
};

/**
 * Allocate a disarmed timer. @return it, or NULL (logged, naming who).
 */
struct nev_theap_timer *nev_theap_timer_new(const char *who,
	nev_timer_cb_type cb, void *arg);

/**
 * Arm (or re-arm) t at now + rel. @return 0, or -1 out of memory (logged).
 */
int nev_theap_set(struct nev_theap *h, struct nev_theap_timer *t,
	const struct timeval *now, const struct timeval *rel);

/** Disarm t (nothing if it is not armed). */
void nev_theap_remove(struct nev_theap *h, struct nev_theap_timer *t);

/** Free the heap array (the timers are the callers'). */
void nev_theap_clear(struct nev_theap *h);

/**
 * The wait until the first deadline, bounded by max_wait.
 * @param now: the current time.
 * @param max_wait: upper bound, or NULL.
 * @param out: filled with the wait when there is one.
 * @return out, or NULL when there is no timer and no bound (wait forever).
 */
struct timeval *nev_theap_wait(struct nev_theap *h, const struct timeval *now,
	const struct timeval *max_wait, struct timeval *out);

/**
 * Run the callbacks of the timers due at now that were armed before this
 * call (a timer re-armed from its callback waits for the next iteration).
 * Callbacks may arm, disarm and free timers.
 * @param now: the time read when the wait returned, before the wake hook
 *	read the comm_base's cached clock: so no timer runs while the cached
 *	clock is still before its deadline.
 */
void nev_theap_run(struct nev_theap *h, const struct timeval *now);

#endif /* UTIL_NETEVENT_TIMER_HEAP_H */
