/*
 * util/netevent/netevent.c - comm_base (loop, clock, exit, idle hooks),
 * timers, signals, fd watches and the socket helpers.
 *
 * Each loop iteration is: before_wait hook, backend run_once (wait, then
 * callbacks), with a wake-up step between the wait and the first callback
 * that reads the clock once and runs after_wake, then the before-wait
 * hooks (struct comm_wait_hook, netevent.h), which run before the next
 * wait and may keep it from sleeping (a busy UDP socket is one). comm_base_exit() sets a
 * flag and writes one byte into the base's wakeup pipe, so a base blocked
 * in its backend wakes from any thread (or signal handler).
 *
 * Signals use a self-pipe per comm_signal: the handler only write(2)s the
 * signal number (async-signal-safe); the read end is an ordinary watched
 * descriptor, and the callback runs in the loop like any other.
 */
#include "config.h"
#include "util/netevent/netevent_int.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

/** backends compiled in, default first */
static const struct nev_backend *const nev_backends[] = {
#ifdef HAVE_LIBEVENT
	&nev_backend_libevent,
#endif
	&nev_backend_select,
#ifdef HAVE_LIBURING
	&nev_backend_uring,
#endif
	NULL
};

const char *
netevent_backends_compiled(void)
{
#if defined(HAVE_LIBEVENT) && defined(HAVE_LIBURING)
	return "select libevent io_uring";
#elif defined(HAVE_LIBEVENT)
	return "select libevent";
#elif defined(HAVE_LIBURING)
	return "select io_uring";
#else
	return "select";
#endif
}

/** the backend used when be cannot run here: the default one */
static const struct nev_backend *
nev_backend_fallback(const struct nev_backend *be)
{
	(void)be;
	return nev_backends[0];
}

/** said once per process (a line per worker would repeat it) */
static int nev_fallback_logged;

/**
 * Check that be can run on this kernel; if not, log that once and
 * @return the backend to use instead.
 */
static const struct nev_backend *
nev_backend_probe(const struct nev_backend *be)
{
	const char *why = "";
	const struct nev_backend *fb;
	if(!be->usable || be->usable(&why))
		return be;
	fb = nev_backend_fallback(be);
#if defined(__GNUC__) || defined(__clang__)
	if(__atomic_exchange_n(&nev_fallback_logged, 1, __ATOMIC_RELAXED) == 0)
#else
	if(!nev_fallback_logged++)
#endif
		log_warnx("event-backend %s is not usable: %s; using %s "
			"instead", be->name, why, fb->name);
	return fb;
}

int
netevent_backend_usable(const char *name, const char **why)
{
	int i;
	*why = "not compiled in";
	for(i = 0; nev_backends[i]; i++) {
		if(strcmp(nev_backends[i]->name, name) != 0)
			continue;
		*why = "";
		return !nev_backends[i]->usable ||
			nev_backends[i]->usable(why);
	}
	return 0;
}

void
netevent_version_print(FILE *out)
{
	fprintf(out, "event backends: %s\n", netevent_backends_compiled());
#ifdef HAVE_LIBURING
	{
		const char *why = "";
		if(netevent_backend_usable("io_uring", &why))
			fprintf(out, "io_uring: usable on this kernel\n");
		else	fprintf(out, "io_uring: not usable here: %s\n", why);
	}
#endif
}

const char *
netevent_backend_default(void)
{
	return nev_backends[0]->name;
}

int
nev_fd_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL, 0);
	if(fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	fl = fcntl(fd, F_GETFD, 0);
	if(fl == -1 || fcntl(fd, F_SETFD, fl | FD_CLOEXEC) == -1)
		return -1;
	return 0;
}

/** an item of room for n bytes: the spare when it fits, else a new one
 * (rounded up when the queue keeps spares); NULL when out of memory */
static struct nev_wq_item *
wq_item(struct nev_wq *q, size_t n)
{
	struct nev_wq_item *w = q->spare;
	size_t cap = n;
	if(w && w->cap >= n) {
		q->spare = NULL;
		return w;
	}
	if(q->keep_spare)
		cap = (n + NEV_WQ_SPARE_ROUND - 1) / NEV_WQ_SPARE_ROUND *
			NEV_WQ_SPARE_ROUND;
	w = malloc(sizeof(*w) + cap);
	if(w)
		w->cap = cap;
	return w;
}

/** append w (filled) to q */
static void
wq_append(struct nev_wq *q, struct nev_wq_item *w)
{
	w->next = NULL;
	w->off = 0;
	if(q->tail)
		q->tail->next = w;
	else	q->head = w;
	q->tail = w;
	q->num++;
	q->bytes += w->len;
	if(q->total)
		*q->total += w->len;
}

/** an item's bytes leave the queue's counts */
static void
wq_uncount(struct nev_wq *q, const struct nev_wq_item *w)
{
	q->bytes -= w->len;
	if(q->total)
		*q->total -= w->len;
}

int
nev_wq_push(struct nev_wq *q, const uint8_t *msg, size_t len)
{
	struct nev_wq_item *w;
	if(len == 0 || len > 65535)
		return -1;
	w = wq_item(q, 2 + len);
	if(!w)
		return -1;
	w->len = 2 + len;
	w->data[0] = (uint8_t)(len >> 8);
	w->data[1] = (uint8_t)len;
	memcpy(w->data + 2, msg, len);
	wq_append(q, w);
	return 0;
}

int
nev_wq_push_raw(struct nev_wq *q, const uint8_t *data, size_t len)
{
	struct nev_wq_item *w;
	if(len == 0)
		return -1;
	w = wq_item(q, len);
	if(!w)
		return -1;
	w->len = len;
	memcpy(w->data, data, len);
	wq_append(q, w);
	return 0;
}

/** a written item leaves the queue: kept as the spare (keep_spare, the
 * largest) or freed */
static void
wq_retire(struct nev_wq *q, struct nev_wq_item *w)
{
	if(q->keep_spare && (!q->spare || q->spare->cap < w->cap)) {
		free(q->spare);
		q->spare = w;
		return;
	}
	free(w);
}

void
nev_wq_advance(struct nev_wq *q, size_t n, uint64_t *done)
{
	struct nev_wq_item *w;
	while(n > 0 && (w = q->head) != NULL) {
		size_t take = w->len - w->off < n ? w->len - w->off : n;
		w->off += take;
		n -= take;
		if(w->off < w->len)
			return;
		q->head = w->next;
		if(!q->head)
			q->tail = NULL;
		q->num--;
		(*done)++;
		wq_uncount(q, w);
		wq_retire(q, w);
	}
}

int
nev_wq_write(struct nev_wq *q, int fd, uint64_t *done)
{
	while(q->head) {
		struct nev_wq_item *w = q->head;
		size_t want = w->len - w->off;
		ssize_t r = write(fd, w->data + w->off, want);
		if(r == -1) {
			if(errno == EAGAIN || errno == EWOULDBLOCK ||
				errno == EINTR)
				return 0;
			return -1;
		}
		nev_wq_advance(q, (size_t)r, done);
		if((size_t)r < want)
			return 0;
	}
	return 0;
}

void
nev_wq_empty(struct nev_wq *q)
{
	struct nev_wq_item *w, *n;
	for(w = q->head; w; w = n) {
		n = w->next;
		wq_uncount(q, w);
		wq_retire(q, w);
	}
	q->head = q->tail = NULL;
	q->num = 0;
}

void
nev_wq_clear(struct nev_wq *q)
{
	nev_wq_empty(q);
	free(q->spare);
	q->spare = NULL;
}

/*
 * The exit flag is written by other threads (and signal handlers) and read
 * by the loop: atomic where the compiler offers it, so that
 * ThreadSanitizer and the memory model agree; the wakeup pipe provides the
 * ordering otherwise.
 */
#if defined(__GNUC__) || defined(__clang__)
#define EXIT_STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define EXIT_LOAD(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#else
#define EXIT_STORE(p, v) (*(p) = (v))
#define EXIT_LOAD(p) (*(p))
#endif

/** the backend woke: read the clock once, run after_wake */
static void
base_woke(void *arg)
{
	struct comm_base *base = arg;
	if(base->awake)
		return;
	base->awake = 1;
	comm_base_update_time(base);
	if(base->after_wake)
		base->after_wake(base->hook_arg);
}

/** drain the wakeup pipe */
static void
base_wake_read(int fd, int events, void *arg)
{
	char buf[64];
	(void)events; (void)arg;
	while(read(fd, buf, sizeof(buf)) > 0)
		;
}

struct comm_base *
comm_base_create(const char *backend)
{
	struct comm_base *base;
	const struct nev_backend *be = NULL;
	int i;
	if(!backend || !*backend || strcmp(backend, "default") == 0)
		be = nev_backends[0];
	for(i = 0; !be && nev_backends[i]; i++)
		if(strcmp(nev_backends[i]->name, backend) == 0)
			be = nev_backends[i];
	if(!be) {
		log_err("event backend '%s' is not compiled in (have: %s)",
			backend, netevent_backends_compiled());
		return NULL;
	}
	be = nev_backend_probe(be);
	base = calloc(1, sizeof(*base));
	if(!base) {
		log_err("comm_base_create: out of memory");
		return NULL;
	}
	base->be = be;
	base->wake_pipe[0] = base->wake_pipe[1] = -1;
	base->st = be->create(base_woke, base);
	if(!base->st)
		goto fail;
	if(pipe(base->wake_pipe) == -1) {
		log_warn("comm_base_create: pipe");
		goto fail;
	}
	if(nev_fd_nonblock(base->wake_pipe[0]) == -1 ||
		nev_fd_nonblock(base->wake_pipe[1]) == -1) {
		log_warn("comm_base_create: fcntl");
		goto fail;
	}
	base->wake_io = be->io_new(base->st, base->wake_pipe[0],
		base_wake_read, base);
	if(!base->wake_io || be->io_set(base->st, base->wake_io, NEV_READ))
		goto fail;
	comm_base_update_time(base);
	return base;
fail:
	comm_base_delete(base);
	return NULL;
}

void
comm_base_delete(struct comm_base *base)
{
	if(!base)
		return;
	if(base->wake_io)
		base->be->io_free(base->st, base->wake_io);
	if(base->st)
		base->be->destroy(base->st);
	if(base->wake_pipe[0] != -1)
		close(base->wake_pipe[0]);
	if(base->wake_pipe[1] != -1)
		close(base->wake_pipe[1]);
	free(base);
}

const char *
comm_base_backend_name(struct comm_base *base)
{
	return base->be->name;
}

const char *
comm_base_method(struct comm_base *base)
{
	return base->be->method(base->st);
}

void
comm_base_add_wait_hook(struct comm_base *base, struct comm_wait_hook *h)
{
	if(h->linked)
		return;
	h->poll = 1;
	h->linked = 1;
	h->next = base->wait_hooks;
	base->wait_hooks = h;
}

void
comm_base_del_wait_hook(struct comm_base *base, struct comm_wait_hook *h)
{
	struct comm_wait_hook **pp;
	if(!h->linked)
		return;
	for(pp = &base->wait_hooks; *pp; pp = &(*pp)->next) {
		if(*pp == h) {
			*pp = h->next;
			break;
		}
	}
	h->linked = 0;
	h->next = NULL;
}

/** @return 1 when a before-wait hook said the next wait must not sleep */
static int
base_wait_polls(struct comm_base *base)
{
	struct comm_wait_hook *h;
	for(h = base->wait_hooks; h; h = h->next)
		if(h->poll)
			return 1;
	return 0;
}

/** run the before-wait hooks, each once (a hook may unlink itself) */
static void
base_run_wait_hooks(struct comm_base *base)
{
	struct comm_wait_hook *h, *next;
	for(h = base->wait_hooks; h; h = next) {
		next = h->next;
		h->poll = h->run(h->arg);
	}
}

int
comm_base_loop_once(struct comm_base *base, int max_wait_ms)
{
	struct timeval tv;
	int r;
	if(max_wait_ms >= 0) {
		tv.tv_sec = max_wait_ms / 1000;
		tv.tv_usec = (max_wait_ms % 1000) * 1000;
	}
	if(base->wait_hooks && base_wait_polls(base)) {
		/* a before-wait hook polls: do not sleep */
		tv.tv_sec = 0;
		tv.tv_usec = 0;
		max_wait_ms = 0;
	}
	base->awake = 0;
	if(base->before_wait)
		base->before_wait(base->hook_arg);
	r = base->be->run_once(base->st, max_wait_ms >= 0 ? &tv : NULL);
	base_woke(base);
	if(base->wait_hooks)
		base_run_wait_hooks(base);
	return r;
}

int
comm_base_dispatch(struct comm_base *base)
{
	while(!EXIT_LOAD(&base->exit_flag)) {
		if(comm_base_loop_once(base, -1) != 0)
			return -1;
	}
	EXIT_STORE(&base->exit_flag, 0);
	return 0;
}

void
comm_base_exit(struct comm_base *base)
{
	int saved = errno;
	char c = 0;
	EXIT_STORE(&base->exit_flag, 1);
	/* a full pipe already holds a wake-up; nothing else to do */
	if(write(base->wake_pipe[1], &c, 1) == -1) {
		/* EAGAIN: already pending */
	}
	errno = saved;
}

int
comm_base_exiting(struct comm_base *base)
{
	return EXIT_LOAD(&base->exit_flag) != 0;
}

const struct timeval *
comm_base_now(struct comm_base *base)
{
	return &base->now;
}

const time_t *
comm_base_secs(struct comm_base *base)
{
	return &base->secs;
}

void
comm_base_update_time(struct comm_base *base)
{
	gettimeofday(&base->now, NULL);
	base->secs = base->now.tv_sec;
}

void
comm_base_set_idle_hooks(struct comm_base *base,
	void (*before_wait)(void *), void (*after_wake)(void *), void *arg)
{
	base->before_wait = before_wait;
	base->after_wake = after_wake;
	base->hook_arg = arg;
}

void *
nev_io_new(struct comm_base *base, int fd, nev_io_cb_type cb, void *arg)
{
	return base->be->io_new(base->st, fd, cb, arg);
}

int
nev_io_set(struct comm_base *base, void *io, int mask)
{
	return base->be->io_set(base->st, io, mask);
}

void
nev_io_free(struct comm_base *base, void *io)
{
	if(io)
		base->be->io_free(base->st, io);
}

int
nev_io_refd(struct comm_base *base, void *io, int fd)
{
	if(!base->be->io_refd)
		return -1;
	return base->be->io_refd(base->st, io, fd);
}

/* ------------------------------------------------------------------ */
/* timers */

static void
timer_fire(void *arg)
{
	struct comm_timer *t = arg;
	t->is_set = 0;
	t->cb(t->arg);
}

struct comm_timer *
comm_timer_create(struct comm_base *base, void (*cb)(void *arg), void *arg)
{
	struct comm_timer *t = calloc(1, sizeof(*t));
	if(!t) {
		log_err("comm_timer_create: out of memory");
		return NULL;
	}
	t->base = base;
	t->cb = cb;
	t->arg = arg;
	t->bt = base->be->timer_new(base->st, timer_fire, t);
	if(!t->bt) {
		free(t);
		return NULL;
	}
	return t;
}

int
comm_timer_set(struct comm_timer *t, int ms)
{
	struct timeval rel, now;
	if(ms < 0)
		ms = 0;
	rel.tv_sec = ms / 1000;
	rel.tv_usec = (ms % 1000) * 1000;
	if(t->is_set)
		t->base->be->timer_clear(t->base->st, t->bt);
	t->is_set = 0;
	/* count from now, not from the cached clock: that was read at the
	 * wake-up, and the callbacks since may have taken a while, so a
	 * timer counted from it would fire that much before its time */
	gettimeofday(&now, NULL);
	if(timercmp(&now, &t->base->now, <))
		now = t->base->now;
	if(t->base->be->timer_set(t->base->st, t->bt, &now, &rel))
		return -1;
	t->is_set = 1;
	return 0;
}

void
comm_timer_disable(struct comm_timer *t)
{
	if(!t || !t->is_set)
		return;
	t->base->be->timer_clear(t->base->st, t->bt);
	t->is_set = 0;
}

int
comm_timer_is_set(struct comm_timer *t)
{
	return t->is_set;
}

void
comm_timer_delete(struct comm_timer *t)
{
	if(!t)
		return;
	t->base->be->timer_free(t->base->st, t->bt);
	free(t);
}

/* ------------------------------------------------------------------ */
/* signals */

/** most signals a comm_signal can bind */
#define SIG_MAX_BOUND 16
/** highest signal number handled */
#define SIG_TABLE 65

/** write end of the self-pipe per signal number, plus one; 0 if none */
static volatile sig_atomic_t sig_target[SIG_TABLE];

/** a signal catcher */
struct comm_signal {
	/** the base */
	struct comm_base *base;
	/** self-pipe */
	int fds[2];
	/** watch on fds[0] */
	void *io;
	/** bound signal numbers */
	int sigs[SIG_MAX_BOUND];
	/** how many */
	int num;
	/** callback */
	void (*cb)(int, void *);
	/** argument */
	void *arg;
};

static void
sig_handler(int sig)
{
	int saved = errno;
	if(sig > 0 && sig < SIG_TABLE && sig_target[sig] > 0) {
		unsigned char c = (unsigned char)sig;
		if(write((int)sig_target[sig] - 1, &c, 1) == -1) {
			/* pipe full: signals are coalesced */
		}
	}
	errno = saved;
}

static void
sig_read(int fd, int events, void *arg)
{
	struct comm_signal *s = arg;
	unsigned char buf[64];
	ssize_t n, i;
	(void)events;
	while((n = read(fd, buf, sizeof(buf))) > 0) {
		for(i = 0; i < n; i++)
			s->cb((int)buf[i], s->arg);
	}
}

struct comm_signal *
comm_signal_create(struct comm_base *base, void (*cb)(int sig, void *arg),
	void *arg)
{
	struct comm_signal *s = calloc(1, sizeof(*s));
	if(!s) {
		log_err("comm_signal_create: out of memory");
		return NULL;
	}
	s->base = base;
	s->cb = cb;
	s->arg = arg;
	if(pipe(s->fds) == -1) {
		log_warn("comm_signal_create: pipe");
		free(s);
		return NULL;
	}
	if(nev_fd_nonblock(s->fds[0]) == -1 ||
		nev_fd_nonblock(s->fds[1]) == -1) {
		log_warn("comm_signal_create: fcntl");
		goto fail;
	}
	s->io = nev_io_new(base, s->fds[0], sig_read, s);
	if(!s->io || nev_io_set(base, s->io, NEV_READ))
		goto fail;
	return s;
fail:
	nev_io_free(base, s->io);
	close(s->fds[0]);
	close(s->fds[1]);
	free(s);
	return NULL;
}

int
comm_signal_bind(struct comm_signal *s, int sig)
{
	struct sigaction sa;
	if(sig <= 0 || sig >= SIG_TABLE || s->num >= SIG_MAX_BOUND) {
		log_err("comm_signal_bind: cannot bind signal %d", sig);
		return -1;
	}
	sig_target[sig] = s->fds[1] + 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = sig_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	if(sigaction(sig, &sa, NULL) == -1) {
		log_warn("comm_signal_bind: sigaction(%d)", sig);
		sig_target[sig] = 0;
		return -1;
	}
	s->sigs[s->num++] = sig;
	return 0;
}

void
comm_signal_delete(struct comm_signal *s)
{
	int i;
	if(!s)
		return;
	for(i = 0; i < s->num; i++) {
		if(sig_target[s->sigs[i]] == s->fds[1] + 1) {
			signal(s->sigs[i], SIG_DFL);
			sig_target[s->sigs[i]] = 0;
		}
	}
	nev_io_free(s->base, s->io);
	close(s->fds[0]);
	close(s->fds[1]);
	free(s);
}

/* ------------------------------------------------------------------ */
/* watches */

/** an fd watched for readability */
struct comm_watch {
	/** the base */
	struct comm_base *base;
	/** backend io */
	void *io;
	/** callback */
	void (*cb)(int, void *);
	/** callback with the ready events (comm_watch_create_rw), or NULL */
	void (*cb_rw)(int, int, void *);
	/** argument */
	void *arg;
};

static void
watch_cb(int fd, int events, void *arg)
{
	struct comm_watch *w = arg;
	if(w->cb_rw) {
		w->cb_rw(fd, ((events & NEV_READ) ? COMM_WATCH_READ : 0) |
			((events & NEV_WRITE) ? COMM_WATCH_WRITE : 0), w->arg);
		return;
	}
	w->cb(fd, w->arg);
}

struct comm_watch *
comm_watch_create_rw(struct comm_base *base, int fd,
	void (*cb)(int fd, int events, void *arg), void *arg)
{
	struct comm_watch *w = calloc(1, sizeof(*w));
	if(!w) {
		log_err("comm_watch_create_rw: out of memory");
		return NULL;
	}
	w->base = base;
	w->cb_rw = cb;
	w->arg = arg;
	w->io = nev_io_new(base, fd, watch_cb, w);
	if(!w->io) {
		free(w);
		return NULL;
	}
	return w;
}

int
comm_watch_set_events(struct comm_watch *w, int events)
{
	return nev_io_set(w->base, w->io,
		((events & COMM_WATCH_READ) ? NEV_READ : 0) |
		((events & COMM_WATCH_WRITE) ? NEV_WRITE : 0));
}

struct comm_watch *
comm_watch_create(struct comm_base *base, int fd,
	void (*cb)(int fd, void *arg), void *arg)
{
	struct comm_watch *w = calloc(1, sizeof(*w));
	if(!w) {
		log_err("comm_watch_create: out of memory");
		return NULL;
	}
	w->base = base;
	w->cb = cb;
	w->arg = arg;
	w->io = nev_io_new(base, fd, watch_cb, w);
	if(!w->io || nev_io_set(base, w->io, NEV_READ)) {
		nev_io_free(base, w->io);
		free(w);
		return NULL;
	}
	return w;
}

int
comm_watch_pause(struct comm_watch *w)
{
	const struct nev_backend *be = w->base->be;
	(void)nev_io_set(w->base, w->io, 0);
	if(!be->io_refd || be->io_refd(w->base->st, w->io, -1) != 0)
		return -1;
	return 0;
}

int
comm_watch_refd(struct comm_watch *w, int fd)
{
	const struct nev_backend *be = w->base->be;
	if(!be->io_refd || be->io_refd(w->base->st, w->io, fd) != 0)
		return -1;
	if(nev_io_set(w->base, w->io, NEV_READ) != 0) {
		(void)nev_io_set(w->base, w->io, 0);
		return -1;
	}
	return 0;
}

void
comm_watch_delete(struct comm_watch *w)
{
	if(!w)
		return;
	nev_io_free(w->base, w->io);
	free(w);
}

/* ------------------------------------------------------------------ */
/* sockets */

int
comm_sock_is_wildcard(const struct netaddr *addr)
{
	if(addr->addr.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)&addr->addr;
		return s->sin_addr.s_addr == htonl(INADDR_ANY);
	}
	if(addr->addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)&addr->addr;
		return IN6_IS_ADDR_UNSPECIFIED(&s->sin6_addr);
	}
	return 0;
}

/** set a socket buffer size, log when the kernel gives less */
static void
sock_bufsize(int fd, int opt, int force_opt, int want, const char *what,
	const char *astr)
{
	int got = 0;
	socklen_t glen = sizeof(got);
	if(want <= 0)
		return;
	(void)force_opt;
#if defined(SO_RCVBUFFORCE) && defined(SO_SNDBUFFORCE)
	/* the FORCE variants pass the rmem_max limit with CAP_NET_ADMIN */
	if(setsockopt(fd, SOL_SOCKET, force_opt, &want, sizeof(want)) == 0)
		return;
#endif
	if(setsockopt(fd, SOL_SOCKET, opt, &want, sizeof(want)) == -1) {
		log_warn("%s: setsockopt %s %d", astr, what, want);
		return;
	}
	if(getsockopt(fd, SOL_SOCKET, opt, &got, &glen) == 0) {
#ifdef __linux__
		got /= 2; /* Linux reports twice the value for bookkeeping */
#endif
		if(got < want)
			log_warnx("%s: %s is %d, not the %d asked for; raise "
				"the kernel limit (net.core.%s_max)", astr,
				what, got, want, opt == SO_RCVBUF ? "rmem" :
				"wmem");
	}
}

int
comm_sock_set_dscp(int fd, int family, int dscp)
{
	int tos = (dscp & 0x3f) << 2;
	if(dscp <= 0)
		return 0;
#ifdef IPV6_TCLASS
	if(family == AF_INET6)
		return setsockopt(fd, IPPROTO_IPV6, IPV6_TCLASS, &tos,
			sizeof(tos));
#endif
	if(family == AF_INET6) {
		errno = ENOPROTOOPT;
		return -1;
	}
	return setsockopt(fd, IPPROTO_IP, IP_TOS, &tos, sizeof(tos));
}

void
comm_base_set_out_opts(struct comm_base *base, int dscp, int tcp_mss)
{
	base->out_dscp = dscp;
	base->out_tcp_mss = tcp_mss;
}

int
comm_base_out_dscp(const struct comm_base *base)
{
	return base->out_dscp;
}

/** ip-transparent: let the socket bind a non-local address; a warning
 * (not a failure) when the system refuses, as Unbound */
static void
sock_transparent(int fd, int fam, const char *kind, const char *astr)
{
	int on = 1;
#if defined(IP_TRANSPARENT)
	if(fam == AF_INET6) {
#ifdef IPV6_TRANSPARENT
		if(setsockopt(fd, IPPROTO_IPV6, IPV6_TRANSPARENT, &on,
			sizeof(on)) == -1)
			log_warn("%s %s: setsockopt IPV6_TRANSPARENT "
				"(ip-transparent needs CAP_NET_ADMIN)", kind,
				astr);
#endif
		return;
	}
	if(setsockopt(fd, IPPROTO_IP, IP_TRANSPARENT, &on, sizeof(on)) == -1)
		log_warn("%s %s: setsockopt IP_TRANSPARENT (ip-transparent "
			"needs CAP_NET_ADMIN)", kind, astr);
#elif defined(IP_BINDANY)
	if(setsockopt(fd, fam == AF_INET6 ? IPPROTO_IPV6 : IPPROTO_IP,
		fam == AF_INET6 ? IPV6_BINDANY : IP_BINDANY, &on,
		sizeof(on)) == -1)
		log_warn("%s %s: setsockopt IP_BINDANY (ip-transparent)",
			kind, astr);
#elif defined(SO_BINDANY)
	(void)fam;
	if(setsockopt(fd, SOL_SOCKET, SO_BINDANY, &on, sizeof(on)) == -1)
		log_warn("%s %s: setsockopt SO_BINDANY (ip-transparent)",
			kind, astr);
#else
	(void)fd; (void)fam; (void)on;
	log_warnx("%s %s: ip-transparent is not supported here", kind, astr);
#endif
}

/** common part of the socket helpers. @return fd or -1 */
static int
sock_open(const struct netaddr *addr, const struct comm_sock_opts *opts,
	int type, const char *kind)
{
	char astr[NETADDR_STRLEN];
	int fd, on = 1, fam = addr->addr.ss_family;
	netaddr_str(addr, -1, astr, sizeof(astr));
	fd = socket(fam, type, 0);
	if(fd == -1) {
		log_warn("cannot open %s socket for %s", kind, astr);
		return -1;
	}
	if(nev_fd_nonblock(fd) == -1) {
		log_warn("%s %s: cannot set nonblocking", kind, astr);
		goto fail;
	}
	if(type == SOCK_STREAM && setsockopt(fd, SOL_SOCKET, SO_REUSEADDR,
		&on, sizeof(on)) == -1) {
		log_warn("%s %s: setsockopt SO_REUSEADDR", kind, astr);
		goto fail;
	}
	if(opts && opts->reuseport) {
#ifdef SO_REUSEPORT
		if(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on,
			sizeof(on)) == -1) {
			log_warn("%s %s: setsockopt SO_REUSEPORT", kind, astr);
			goto fail;
		}
#else
		log_warnx("%s %s: SO_REUSEPORT not supported here", kind, astr);
#endif
	}
	if(fam == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
		sizeof(on)) == -1) {
		log_warn("%s %s: setsockopt IPV6_V6ONLY", kind, astr);
		goto fail;
	}
	if(opts && opts->freebind) {
#ifdef IP_FREEBIND
		if(setsockopt(fd, IPPROTO_IP, IP_FREEBIND, &on, sizeof(on))
			== -1)
			log_warn("%s %s: setsockopt IP_FREEBIND", kind, astr);
#else
		log_warnx("%s %s: ip-freebind: IP_FREEBIND is not supported "
			"here", kind, astr);
#endif
	}
	if(opts && opts->transparent)
		sock_transparent(fd, fam, kind, astr);
	if(opts && opts->dscp > 0 && comm_sock_set_dscp(fd, fam, opts->dscp)
		== -1)
		log_warn("%s %s: ip-dscp %d", kind, astr, opts->dscp);
#ifdef TCP_MAXSEG
	if(type == SOCK_STREAM && opts && opts->tcp_mss > 0 &&
		setsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &opts->tcp_mss,
		sizeof(opts->tcp_mss)) == -1)
		log_warn("%s %s: setsockopt TCP_MAXSEG %d (tcp-mss)", kind, astr,
			opts->tcp_mss);
#else
	if(type == SOCK_STREAM && opts && opts->tcp_mss > 0)
		log_warnx("%s %s: tcp-mss: TCP_MAXSEG is not supported here",
			kind, astr);
#endif
	if(opts) {
#if defined(SO_RCVBUFFORCE) && defined(SO_SNDBUFFORCE)
		sock_bufsize(fd, SO_RCVBUF, SO_RCVBUFFORCE, opts->rcvbuf,
			"SO_RCVBUF", astr);
		sock_bufsize(fd, SO_SNDBUF, SO_SNDBUFFORCE, opts->sndbuf,
			"SO_SNDBUF", astr);
#else
		sock_bufsize(fd, SO_RCVBUF, 0, opts->rcvbuf, "SO_RCVBUF", astr);
		sock_bufsize(fd, SO_SNDBUF, 0, opts->sndbuf, "SO_SNDBUF", astr);
#endif
	}
#if defined(IP_MTU_DISCOVER) && defined(IP_PMTUDISC_OMIT)
	if(type == SOCK_DGRAM && fam == AF_INET) {
		/* answers are fragmented at the interface MTU instead of
		 * trusting ICMP "fragmentation needed" (forged PMTU attacks) */
		int omit = IP_PMTUDISC_OMIT;
		if(setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &omit,
			sizeof(omit)) == -1)
			verbose(VERB_ALGO, "%s %s: setsockopt IP_MTU_DISCOVER: "
				"%s", kind, astr, strerror(errno));
	}
#endif
	if(type == SOCK_DGRAM && comm_sock_is_wildcard(addr)) {
		/* learn the address asked, to answer from it */
		if(fam == AF_INET) {
#ifdef IP_PKTINFO
			if(setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on,
				sizeof(on)) == -1) {
				log_warn("%s %s: setsockopt IP_PKTINFO", kind,
					astr);
				goto fail;
			}
#endif
		} else {
#ifdef IPV6_RECVPKTINFO
			if(setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on,
				sizeof(on)) == -1) {
				log_warn("%s %s: setsockopt IPV6_RECVPKTINFO",
					kind, astr);
				goto fail;
			}
#endif
		}
	}
	if(bind(fd, (const struct sockaddr *)&addr->addr, addr->len) == -1) {
		log_err("cannot bind %s socket to %s: %s", kind, astr,
			strerror(errno));
		goto fail;
	}
	return fd;
fail:
	close(fd);
	return -1;
}

int
comm_sock_open_udp(const struct netaddr *addr,
	const struct comm_sock_opts *opts)
{
	return sock_open(addr, opts, SOCK_DGRAM, "UDP");
}

int
comm_sock_open_tcp(const struct netaddr *addr,
	const struct comm_sock_opts *opts)
{
	char astr[NETADDR_STRLEN];
	int backlog = (opts && opts->backlog > 0) ? opts->backlog : 256;
	int fd = sock_open(addr, opts, SOCK_STREAM, "TCP");
	if(fd == -1)
		return -1;
	if(listen(fd, backlog) == -1) {
		log_warn("cannot listen on TCP %s",
			netaddr_str(addr, -1, astr, sizeof(astr)));
		close(fd);
		return -1;
	}
	return fd;
}
