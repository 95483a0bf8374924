/*
 * util/netevent/backend_libevent.c - the libevent backend (HAVE_LIBEVENT).
 *
 * One event_base per comm_base, so each worker has its own epoll (Linux),
 * event port (Solaris) or kqueue (BSD) descriptor and nothing is shared
 * between threads; libevent's own locking is never enabled. A descriptor
 * has two persistent events, one for reading and one for writing, added
 * and deleted as the interest changes (never reassigned, so changing the
 * interest from inside a callback is safe); a timer is one evtimer. run_once is
 * event_base_loop(EVLOOP_ONCE), bounded by an extra timer when the caller
 * gives a maximum wait.
 */
#include "config.h"
#ifdef HAVE_LIBEVENT
#include "util/netevent/backend.h"
#include "util/log.h"
#include <event2/event.h>
#include <stdlib.h>

/** loop state */
struct lev_state {
	/** the event base */
	struct event_base *base;
	/** timer that bounds run_once's wait */
	struct event *bound;
	/** wake-up hook */
	nev_wake_cb_type wake;
	/** its argument */
	void *warg;
	/** set when wake ran in this iteration */
	int woken;
};

/** a registered descriptor */
struct lev_io {
	/** the loop */
	struct lev_state *s;
	/** the read event, persistent */
	struct event *ev_r;
	/** the write event, persistent */
	struct event *ev_w;
	/** interest */
	int mask;
	/** descriptor */
	int fd;
	/** callback */
	nev_io_cb_type cb;
	/** its argument */
	void *arg;
};

/** a timer */
struct lev_timer {
	/** the loop */
	struct lev_state *s;
	/** the evtimer */
	struct event *ev;
	/** callback */
	nev_timer_cb_type cb;
	/** its argument */
	void *arg;
};

/** run the wake hook once per iteration, before the first callback */
static void
lev_woke(struct lev_state *s)
{
	if(!s->woken) {
		s->woken = 1;
		s->wake(s->warg);
	}
}

static void
lev_bound_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd; (void)what;
	lev_woke(arg);
}

static void *
lev_create(nev_wake_cb_type wake, void *warg)
{
	struct lev_state *s = calloc(1, sizeof(*s));
	struct event_config *cfg;
	if(!s) {
		log_err("libevent backend: out of memory");
		return NULL;
	}
	/* the precise clock: with a coarse one (libevent picks
	 * CLOCK_MONOTONIC_COARSE when its tick is 1 ms) a timer fires up
	 * to a tick before its time */
	cfg = event_config_new();
	if(cfg)
		(void)event_config_set_flag(cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
	s->base = cfg ? event_base_new_with_config(cfg) : NULL;
	if(cfg)
		event_config_free(cfg);
	if(!s->base) {
		log_err("libevent backend: event_base_new failed");
		free(s);
		return NULL;
	}
	s->wake = wake;
	s->warg = warg;
	s->bound = evtimer_new(s->base, lev_bound_cb, s);
	if(!s->bound) {
		log_err("libevent backend: evtimer_new failed");
		event_base_free(s->base);
		free(s);
		return NULL;
	}
	return s;
}

static void
lev_destroy(void *st)
{
	struct lev_state *s = st;
	if(!s)
		return;
	event_free(s->bound);
	event_base_free(s->base);
	free(s);
}

static const char *
lev_method(void *st)
{
	struct lev_state *s = st;
	return event_base_get_method(s->base);
}

static void
lev_io_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lev_io *io = arg;
	int ev = 0;
	if(what & EV_READ)
		ev |= NEV_READ;
	if(what & EV_WRITE)
		ev |= NEV_WRITE;
	ev &= io->mask;
	lev_woke(io->s);
	if(ev)
		io->cb((int)fd, ev, io->arg);
}

static void *
lev_io_new(void *st, int fd, nev_io_cb_type cb, void *arg)
{
	struct lev_state *s = st;
	struct lev_io *io = calloc(1, sizeof(*io));
	if(!io) {
		log_err("libevent backend: out of memory");
		return NULL;
	}
	io->s = s;
	io->fd = fd;
	io->cb = cb;
	io->arg = arg;
	io->ev_r = event_new(s->base, fd, EV_READ | EV_PERSIST, lev_io_cb, io);
	io->ev_w = event_new(s->base, fd, EV_WRITE | EV_PERSIST, lev_io_cb,
		io);
	if(!io->ev_r || !io->ev_w) {
		log_err("libevent backend: event_new failed for fd %d", fd);
		if(io->ev_r)
			event_free(io->ev_r);
		if(io->ev_w)
			event_free(io->ev_w);
		free(io);
		return NULL;
	}
	return io;
}

/** add or delete one of the two events. @return 0 or -1 */
static int
lev_io_one(struct lev_io *io, struct event *ev, int want, int have)
{
	if(want == have)
		return 0;
	if(want ? event_add(ev, NULL) : event_del(ev)) {
		log_err("libevent backend: event_%s failed for fd %d",
			want ? "add" : "del", io->fd);
		return -1;
	}
	return 0;
}

static int
lev_io_set(void *st, void *p, int mask)
{
	struct lev_io *io = p;
	(void)st;
	if(lev_io_one(io, io->ev_r, mask & NEV_READ, io->mask & NEV_READ) ||
		lev_io_one(io, io->ev_w, mask & NEV_WRITE,
		io->mask & NEV_WRITE))
		return -1;
	io->mask = mask;
	return 0;
}

static void
lev_io_free(void *st, void *p)
{
	struct lev_io *io = p;
	(void)st;
	if(!io)
		return;
	event_free(io->ev_r);
	event_free(io->ev_w);
	free(io);
}

static int
lev_io_refd(void *st, void *p, int fd)
{
	struct lev_io *io = p;
	struct lev_state *s = st;
	/* (an event that is not pending may be assigned again) */
	if(io->mask != 0 || event_pending(io->ev_r, EV_READ | EV_WRITE,
		NULL) || event_pending(io->ev_w, EV_READ | EV_WRITE, NULL))
		return -1;
	if(event_assign(io->ev_r, s->base, fd, EV_READ | EV_PERSIST,
		lev_io_cb, io) != 0 || event_assign(io->ev_w, s->base, fd,
		EV_WRITE | EV_PERSIST, lev_io_cb, io) != 0)
		return -1;
	io->fd = fd;
	return 0;
}

static void
lev_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct lev_timer *t = arg;
	(void)fd; (void)what;
	lev_woke(t->s);
	t->cb(t->arg);
}

static void *
lev_timer_new(void *st, nev_timer_cb_type cb, void *arg)
{
	struct lev_state *s = st;
	struct lev_timer *t = calloc(1, sizeof(*t));
	if(!t) {
		log_err("libevent backend: out of memory");
		return NULL;
	}
	t->s = s;
	t->cb = cb;
	t->arg = arg;
	t->ev = evtimer_new(s->base, lev_timer_cb, t);
	if(!t->ev) {
		log_err("libevent backend: evtimer_new failed");
		free(t);
		return NULL;
	}
	return t;
}

static int
lev_timer_set(void *st, void *p, const struct timeval *now,
	const struct timeval *rel)
{
	struct lev_state *s = st;
	struct lev_timer *t = p;
	struct timeval lnow, ahead, adj;
	/* libevent counts rel from its own clock, cached when its loop
	 * woke; the contract counts from now, which the comm_base may have
	 * read since (comm_base_update_time in a callback): add the
	 * difference, or the timer fires that much before its time */
	if(event_base_gettimeofday_cached(s->base, &lnow) == 0 &&
		timercmp(now, &lnow, >)) {
		timersub(now, &lnow, &ahead);
		timeradd(rel, &ahead, &adj);
		rel = &adj;
	}
	if(evtimer_add(t->ev, rel) != 0) {
		log_err("libevent backend: evtimer_add failed");
		return -1;
	}
	return 0;
}

static void
lev_timer_clear(void *st, void *p)
{
	struct lev_timer *t = p;
	(void)st;
	(void)evtimer_del(t->ev);
}

static void
lev_timer_free(void *st, void *p)
{
	struct lev_timer *t = p;
	(void)st;
	if(!t)
		return;
	event_free(t->ev);
	free(t);
}

static int
lev_run_once(void *st, const struct timeval *max_wait)
{
	struct lev_state *s = st;
	int r;
	s->woken = 0;
	if(max_wait)
		(void)evtimer_add(s->bound, max_wait);
	r = event_base_loop(s->base, EVLOOP_ONCE);
	lev_woke(s);
	if(max_wait)
		(void)evtimer_del(s->bound);
	if(r < 0) {
		log_err("libevent backend: event_base_loop failed");
		return -1;
	}
	return 0;
}

/** the libevent backend */
const struct nev_backend nev_backend_libevent = {
	"libevent",
	lev_create,
	lev_destroy,
	lev_method,
	lev_io_new,
	lev_io_set,
	lev_io_free,
	lev_timer_new,
	lev_timer_set,
	lev_timer_clear,
	lev_timer_free,
	lev_run_once,
	NULL,
	lev_io_refd
};
#endif /* HAVE_LIBEVENT */
