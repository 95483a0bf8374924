/*
 * util/netevent/backend_select.c - the select(2) backend, always built.
 *
 * Descriptors: a table indexed by fd (FD_SETSIZE entries) and two master
 * fd_sets; run_once copies the sets before every select() because select
 * overwrites them. A descriptor >= FD_SETSIZE is refused in io_new with an
 * error: FD_SET on it would write past the set.
 *
 * Timers: the min-heap of timer_heap.c, ordered by (deadline, sequence
 * number), so equal deadlines fire in the order they were armed, and a
 * timer re-armed for 0 ms from its own callback waits for the next
 * iteration instead of looping forever.
 */
#include "config.h"
#include "util/netevent/backend.h"
#include "util/netevent/timer_heap.h"
#include "util/log.h"
#include <sys/select.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

/** a registered descriptor */
struct sel_io {
	/** the descriptor */
	int fd;
	/** interest mask */
	int mask;
	/** callback */
	nev_io_cb_type cb;
	/** its argument */
	void *arg;
};


/** the loop state */
struct sel_state {
	/** io by fd */
	struct sel_io *ios[FD_SETSIZE];
	/** master read set */
	fd_set rset;
	/** master write set */
	fd_set wset;
	/** highest registered fd, -1 if none */
	int maxfd;
	/** the timers */
	struct nev_theap timers;
	/** wake-up hook */
	nev_wake_cb_type wake;
	/** its argument */
	void *warg;
};

static void *
sel_create(nev_wake_cb_type wake, void *warg)
{
	struct sel_state *s = calloc(1, sizeof(*s));
	if(!s) {
		log_err("select backend: out of memory");
		return NULL;
	}
	FD_ZERO(&s->rset);
	FD_ZERO(&s->wset);
	s->maxfd = -1;
	s->wake = wake;
	s->warg = warg;
	return s;
}

static void
sel_destroy(void *st)
{
	struct sel_state *s = st;
	if(!s)
		return;
	nev_theap_clear(&s->timers);
	free(s);
}

static const char *
sel_method(void *st)
{
	(void)st;
	return "select";
}

static void *
sel_io_new(void *st, int fd, nev_io_cb_type cb, void *arg)
{
	struct sel_state *s = st;
	struct sel_io *io;
	if(fd < 0 || fd >= FD_SETSIZE) {
		log_err("select backend: descriptor %d is >= FD_SETSIZE (%d), "
			"refused; use the libevent backend or fewer descriptors",
			fd, (int)FD_SETSIZE);
		return NULL;
	}
	if(s->ios[fd]) {
		log_err("select backend: descriptor %d registered twice", fd);
		return NULL;
	}
	io = calloc(1, sizeof(*io));
	if(!io) {
		log_err("select backend: out of memory");
		return NULL;
	}
	io->fd = fd;
	io->cb = cb;
	io->arg = arg;
	s->ios[fd] = io;
	if(fd > s->maxfd)
		s->maxfd = fd;
	return io;
}

static int
sel_io_set(void *st, void *p, int mask)
{
	struct sel_state *s = st;
	struct sel_io *io = p;
	io->mask = mask;
	if(io->fd < 0) /* detached (io_refd): nothing to watch */
		return mask ? -1 : 0;
	if(mask & NEV_READ)
		FD_SET(io->fd, &s->rset);
	else	FD_CLR(io->fd, &s->rset);
	if(mask & NEV_WRITE)
		FD_SET(io->fd, &s->wset);
	else	FD_CLR(io->fd, &s->wset);
	return 0;
}

static void
sel_io_free(void *st, void *p)
{
	struct sel_state *s = st;
	struct sel_io *io = p;
	if(!io)
		return;
	if(io->fd < 0) {
		free(io); /* detached (io_refd) */
		return;
	}
	FD_CLR(io->fd, &s->rset);
	FD_CLR(io->fd, &s->wset);
	if(s->ios[io->fd] == io)
		s->ios[io->fd] = NULL;
	while(s->maxfd >= 0 && s->ios[s->maxfd] == NULL)
		s->maxfd--;
	free(io);
}

static int
sel_io_refd(void *st, void *p, int fd)
{
	struct sel_state *s = st;
	struct sel_io *io = p;
	if(io->mask != 0 || fd >= FD_SETSIZE || (fd >= 0 && s->ios[fd]))
		return -1;
	if(io->fd >= 0 && s->ios[io->fd] == io)
		s->ios[io->fd] = NULL;
	io->fd = fd;
	if(fd >= 0) {
		s->ios[fd] = io;
		if(fd > s->maxfd)
			s->maxfd = fd;
	}
	while(s->maxfd >= 0 && s->ios[s->maxfd] == NULL)
		s->maxfd--;
	return 0;
}

static void *
sel_timer_new(void *st, nev_timer_cb_type cb, void *arg)
{
	(void)st;
	return nev_theap_timer_new("select", cb, arg);
}

static int
sel_timer_set(void *st, void *p, const struct timeval *now,
	const struct timeval *rel)
{
	struct sel_state *s = st;
	return nev_theap_set(&s->timers, p, now, rel);
}

static void
sel_timer_clear(void *st, void *p)
{
	struct sel_state *s = st;
	nev_theap_remove(&s->timers, p);
}

static void
sel_timer_free(void *st, void *p)
{
	struct sel_state *s = st;
	if(!p)
		return;
	nev_theap_remove(&s->timers, p);
	free(p);
}

static int
sel_run_once(void *st, const struct timeval *max_wait)
{
	struct sel_state *s = st;
	fd_set r, w;
	struct timeval now, wait, *wp = NULL;
	int n, fd, maxfd;

	gettimeofday(&now, NULL);
	wp = nev_theap_wait(&s->timers, &now, max_wait, &wait);
	/* select overwrites the sets: work on copies */
	memcpy(&r, &s->rset, sizeof(r));
	memcpy(&w, &s->wset, sizeof(w));
	maxfd = s->maxfd;
	n = select(maxfd + 1, &r, &w, NULL, wp);
	if(n < 0) {
		if(errno == EINTR)
			return 0;
		log_warn("select backend: select");
		return -1;
	}
	/* the timers due are those due now, read before the wake hook reads
	 * the cached clock: a deadline that passes while the callbacks run
	 * waits for the next iteration, so no timer runs with the cached
	 * clock before its deadline */
	gettimeofday(&now, NULL);
	s->wake(s->warg);
	for(fd = 0; n > 0 && fd <= maxfd; fd++) {
		int ev = 0;
		struct sel_io *io;
		if(FD_ISSET(fd, &r))
			ev |= NEV_READ;
		if(FD_ISSET(fd, &w))
			ev |= NEV_WRITE;
		if(!ev)
			continue;
		n--;
		io = s->ios[fd];
		/* an earlier callback may have removed or changed it */
		if(!io || !(ev &= io->mask))
			continue;
		io->cb(fd, ev, io->arg);
	}
	/* timers: only those armed before this round, so a timer re-armed
	 * from its callback waits for the next iteration */
	nev_theap_run(&s->timers, &now);
	return 0;
}

/** the select backend */
const struct nev_backend nev_backend_select = {
	"select",
	sel_create,
	sel_destroy,
	sel_method,
	sel_io_new,
	sel_io_set,
	sel_io_free,
	sel_timer_new,
	sel_timer_set,
	sel_timer_clear,
	sel_timer_free,
	sel_run_once,
	NULL,
	sel_io_refd
};
