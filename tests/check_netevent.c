/*
 * tests/check_netevent.c - the event layer, run once per compiled backend.
 *
 * Clients live in the test itself, on the same thread: they send, then the
 * test turns the loop (comm_base_loop_once) and reads, so everything works
 * without threads. Only the cross-thread exit test needs a thread library.
 */
#include "config.h"
#include "util/netevent/netevent.h"
#include "util/netaddr.h"
#include "util/log.h"
#include "util/thread.h"
#include "util/version.h"
#include <check.h>
#include "tests/testutil.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

/** the backends to run every test on: those compiled in that the kernel
 * can run (io_uring is skipped, with a message, only when its probe says
 * this kernel or process cannot use it) */
static const char *backends[TU_NUM_BACKENDS_BUILT];
/** entries in backends */
static int NUM_BACKENDS;

static struct comm_base *
mkbase(int i)
{
	struct comm_base *b = comm_base_create(backends[i]);
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(comm_base_backend_name(b), backends[i]);
	return b;
}

/** an address on loopback with port 0 */
static struct netaddr
lo_addr(const char *ip)
{
	struct netaddr a;
	ck_assert_int_eq(netaddr_parse(ip, 0, &a, NULL), 0);
	return a;
}

/** the bound address of fd */
static struct netaddr
sock_addr(int fd)
{
	struct netaddr a;
	a.len = sizeof(a.addr);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a.addr, &a.len),
		0);
	return a;
}

/* ------------------------------------------------------------------ */

/** a query "a. A" with an OPT record holding opts (olen bytes) */
static size_t
ka_query(uint8_t *b, const uint8_t *opts, size_t olen)
{
	static const uint8_t q[] = { 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1,
		1, 'a', 0, 0, 1, 0, 1,
		0, 0, 41, 4, 0xd0, 0, 0, 0, 0 };
	size_t n = sizeof(q);
	memcpy(b, q, n);
	b[n++] = (uint8_t)(olen >> 8);
	b[n++] = (uint8_t)olen;
	if(olen)
		memcpy(b + n, opts, olen);
	return n + olen;
}

/* edns-tcp-keepalive on a connection (comm_tcp_keepalive_query): the
 * option marks it, later answers get the option too; off: never */
START_TEST(test_keepalive_conn)
{
	static const uint8_t ka[] = { 0, 11, 0, 0 };
	uint8_t q[128], a[128];
	size_t n, m;
	int seen = 0;
	n = ka_query(q, NULL, 0);
	ck_assert_int_eq(comm_tcp_keepalive_query(30000, &seen, q, n), 0);
	n = ka_query(q, ka, sizeof(ka));
	ck_assert_int_eq(comm_tcp_keepalive_query(0, &seen, q, n), 0);
	ck_assert_int_eq(seen, 0);
	ck_assert_int_eq(comm_tcp_keepalive_query(30000, &seen, q, n), 1);
	ck_assert_int_eq(seen, 1);
	n = ka_query(q, NULL, 0);
	ck_assert_int_eq(comm_tcp_keepalive_query(30000, &seen, q, n), 1);
	/* the answer (here the query itself): TIMEOUT 300 added once */
	m = comm_tcp_keepalive_add(30000, q, n, sizeof(q));
	ck_assert_uint_eq(m, n + 6);
	ck_assert_int_eq(q[m - 2], 1);
	ck_assert_int_eq(q[m - 1], 0x2c);
	ck_assert_uint_eq(comm_tcp_keepalive_add(30000, q, m, sizeof(q)), m);
	/* no OPT record: left as it is */
	memcpy(a, q, 19);
	a[11] = 0;
	ck_assert_uint_eq(comm_tcp_keepalive_add(30000, a, 19, sizeof(a)),
		19);
}
END_TEST

START_TEST(test_backend_names)
{
	const char *l = netevent_backends_compiled();
	ck_assert_ptr_nonnull(strstr(l, "select"));
#ifdef HAVE_LIBEVENT
	ck_assert_ptr_nonnull(strstr(l, "libevent"));
	ck_assert_str_eq(netevent_backend_default(), "libevent");
#else
	ck_assert_ptr_null(strstr(l, "libevent"));
	ck_assert_str_eq(netevent_backend_default(), "select");
#endif
	ck_assert_ptr_null(comm_base_create("nonsense"));
	{
		struct comm_base *b = comm_base_create(NULL);
		ck_assert_ptr_nonnull(b);
		ck_assert_str_eq(comm_base_backend_name(b),
			netevent_backend_default());
		ck_assert_ptr_nonnull(comm_base_method(b));
		comm_base_delete(b);
	}
}
END_TEST

/** the -V report of version_print(progname, events) in buf */
static void
version_text(char *buf, size_t len, const char *progname,
	void (*events)(FILE *))
{
	FILE *f = fmemopen(buf, len, "w");
	ck_assert_ptr_nonnull(f);
	version_print(f, progname, events);
	ck_assert_int_eq(ferror(f), 0);
	ck_assert_int_eq(fclose(f), 0);
	buf[len - 1] = 0;
}

/* the -V report asks the event layer through the callback its caller
 * passes (util/ does not reach up into util/netevent/): the backends
 * compiled in, then the io_uring probe; without the callback
 * (petrel-control) the configured backends and no probe */
START_TEST(test_version_events)
{
	char buf[4096], want[256];
	version_text(buf, sizeof(buf), "petrel", netevent_version_print);
	snprintf(want, sizeof(want), "\nevent backends: %s\n",
		netevent_backends_compiled());
	ck_assert_ptr_nonnull(strstr(buf, want));
	ck_assert_ptr_nonnull(strstr(buf, "\nthread models: "));
#ifdef HAVE_LIBURING
	ck_assert_int_eq(setenv("PETREL_URING_DISABLE", "1", 1), 0);
	version_text(buf, sizeof(buf), "petrel", netevent_version_print);
	ck_assert_int_eq(unsetenv("PETREL_URING_DISABLE"), 0);
	ck_assert_ptr_nonnull(strstr(buf, "\nio_uring: not usable here: "));
	ck_assert_ptr_nonnull(strstr(buf, "PETREL_URING_DISABLE"));
#else
	ck_assert_ptr_null(strstr(buf, "\nio_uring: "));
#endif
	version_text(buf, sizeof(buf), "petrel-control", NULL);
	ck_assert_int_eq(strncmp(buf, "petrel-control ", 15), 0);
#ifdef HAVE_LIBEVENT
	ck_assert_ptr_nonnull(strstr(buf, "\nevent backends: select libevent\n"));
#else
	ck_assert_ptr_nonnull(strstr(buf, "\nevent backends: select\n"));
#endif
	ck_assert_ptr_null(strstr(buf, "\nio_uring: "));
}
END_TEST

#ifdef HAVE_LIBURING
/* io_uring where the probe fails (forced by the test hook): the base is
 * made with the default backend instead, and the reason is given */
START_TEST(test_uring_fallback)
{
	const char *why = NULL;
	struct comm_base *b;
	ck_assert_int_eq(setenv("PETREL_URING_DISABLE", "1", 1), 0);
	ck_assert_int_eq(netevent_backend_usable("io_uring", &why), 0);
	ck_assert_ptr_nonnull(strstr(why, "PETREL_URING_DISABLE"));
	b = comm_base_create("io_uring");
	ck_assert_ptr_nonnull(b);
	ck_assert_str_eq(comm_base_backend_name(b), netevent_backend_default());
	comm_base_delete(b);
	ck_assert_int_eq(unsetenv("PETREL_URING_DISABLE"), 0);
	ck_assert_int_eq(netevent_backend_usable("nonsense", &why), 0);
	ck_assert_str_eq(why, "not compiled in");
}
END_TEST
#endif

/* timers */
/** microseconds from a to b */
static long long
tv_diff_us(const struct timeval *a, const struct timeval *b)
{
	return (long long)(b->tv_sec - a->tv_sec) * 1000000 +
		(b->tv_usec - a->tv_usec);
}

static int fired[16];
static int nfired;
static struct comm_base *tbase;
static struct timeval tstart;

static void
tm_cb(void *arg)
{
	int id = (int)(intptr_t)arg;
	fired[nfired++] = id;
	if(id == 99)
		comm_base_exit(tbase);
}

START_TEST(test_timers_order)
{
	struct comm_base *b = mkbase(_i);
	struct comm_timer *t[6];
	int ms[6] = { 60, 10, 40, 20, 30, 120 };
	int i;
	long elapsed;
	tbase = b;
	nfired = 0;
	for(i = 0; i < 5; i++) {
		t[i] = comm_timer_create(b, tm_cb, (void *)(intptr_t)ms[i]);
		ck_assert_ptr_nonnull(t[i]);
		ck_assert_int_eq(comm_timer_set(t[i], ms[i]), 0);
		ck_assert_int_eq(comm_timer_is_set(t[i]), 1);
	}
	t[5] = comm_timer_create(b, tm_cb, (void *)(intptr_t)99);
	ck_assert_int_eq(comm_timer_set(t[5], ms[5]), 0);
	/* 30 is disabled, 40 is re-armed later: must not fire at 40 */
	comm_timer_disable(t[4]);
	ck_assert_int_eq(comm_timer_is_set(t[4]), 0);
	ck_assert_int_eq(comm_timer_set(t[2], 80), 0);
	tstart = *comm_base_now(b);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(nfired, 5);
	ck_assert_int_eq(fired[0], 10);
	ck_assert_int_eq(fired[1], 20);
	ck_assert_int_eq(fired[2], 60);
	ck_assert_int_eq(fired[3], 40); /* re-armed to 80 ms */
	ck_assert_int_eq(fired[4], 99);
	/* the cached clock moved with the loop, at least to the last
	 * deadline (in microseconds: rounding to milliseconds made 119.9 ms
	 * look like 119). libevent waits on the monotonic clock, the cache
	 * is the wall clock: NTP may slew one against the other by up to
	 * 0.05%, allowed for here as 0.1% of the 120 ms */
	elapsed = (long)tv_diff_us(&tstart, comm_base_now(b));
	ck_assert_int_ge(elapsed, 120000 - 120);
	ck_assert_int_lt(elapsed, 5000000);
	ck_assert_int_eq(*comm_base_secs(b), comm_base_now(b)->tv_sec);
	for(i = 0; i < 6; i++)
		comm_timer_delete(t[i]);
	comm_base_delete(b);
}
END_TEST

/*
 * A timer never fires before its time: in its callback the cached clock
 * (and the real one) is at or past the moment it was armed plus its delay.
 * Many short timers, each armed from the previous one's callback at a
 * different point in the clock's tick, so that a backend that rounds its
 * wait down or reads a coarse clock fires one of them early.
 */
static struct timeval early_armed;
static int early_ms, early_count, early_bad;
static struct comm_timer *early_t;

static void
early_cb(void *arg)
{
	struct comm_base *b = arg;
	struct timeval real;
	gettimeofday(&real, NULL);
	if(tv_diff_us(&early_armed, comm_base_now(b)) <
		(long long)early_ms * 1000 ||
		tv_diff_us(&early_armed, &real) < (long long)early_ms * 1000)
		early_bad++;
	if(++early_count == 150) {
		comm_base_exit(b);
		return;
	}
	/* arm from the clock as it is now, not as it was at the wake-up */
	if(early_count % 2)
		comm_base_update_time(b);
	early_armed = *comm_base_now(b);
	early_ms = 1 + early_count % 3;
	ck_assert_int_eq(comm_timer_set(early_t, early_ms), 0);
}

START_TEST(test_timer_never_early)
{
	struct comm_base *b = mkbase(_i);
	early_count = early_bad = 0;
	early_t = comm_timer_create(b, early_cb, b);
	ck_assert_ptr_nonnull(early_t);
	early_armed = *comm_base_now(b);
	early_ms = 1;
	ck_assert_int_eq(comm_timer_set(early_t, early_ms), 0);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(early_count, 150);
	ck_assert_int_eq(early_bad, 0);
	comm_timer_delete(early_t);
	comm_base_delete(b);
}
END_TEST

/*
 * A timer whose deadline passes while another callback of the same
 * iteration runs: it may fire in that iteration only if the clock the
 * loop cached at the wake-up is past its deadline, else in the next one
 * (after a new clock reading); never with the cached clock before it.
 */
static int slow_timer_fired, slow_timer_early;
static struct timeval slow_armed;

static void
slow_watch_cb(int fd, void *arg)
{
	char buf[8];
	(void)arg;
	if(read(fd, buf, sizeof(buf)) < 0)
		return;
	/* the timer's 5 ms pass inside this callback */
	usleep(20000);
}

static void
slow_timer_cb(void *arg)
{
	struct comm_base *b = arg;
	slow_timer_fired++;
	if(tv_diff_us(&slow_armed, comm_base_now(b)) < 5000)
		slow_timer_early++;
	comm_base_exit(b);
}

START_TEST(test_timer_after_slow_callback)
{
	struct comm_base *b = mkbase(_i);
	struct comm_timer *t;
	struct comm_watch *w;
	int p[2];
	ck_assert_int_eq(pipe(p), 0);
	w = comm_watch_create(b, p[0], slow_watch_cb, b);
	ck_assert_ptr_nonnull(w);
	t = comm_timer_create(b, slow_timer_cb, b);
	ck_assert_ptr_nonnull(t);
	slow_timer_fired = slow_timer_early = 0;
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	comm_base_update_time(b);
	slow_armed = *comm_base_now(b);
	ck_assert_int_eq(comm_timer_set(t, 5), 0);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(slow_timer_fired, 1);
	ck_assert_int_eq(slow_timer_early, 0);
	comm_timer_delete(t);
	comm_watch_delete(w);
	close(p[0]);
	close(p[1]);
	comm_base_delete(b);
}
END_TEST

/*
 * A timer counts from the moment it is armed, also when the cached clock
 * is behind (callbacks took a while since the wake-up): armed 30 ms after
 * the last clock reading, a 50 ms timer does not fire 20 ms later.
 */
static int stale_fired;

static void
stale_cb(void *arg)
{
	stale_fired = 1;
	comm_base_exit(arg);
}

START_TEST(test_timer_counts_from_arming)
{
	struct comm_base *b = mkbase(_i);
	struct comm_timer *t = comm_timer_create(b, stale_cb, b);
	struct timeval armed, fired_at;
	ck_assert_ptr_nonnull(t);
	stale_fired = 0;
	comm_base_update_time(b);
	usleep(30000);
	gettimeofday(&armed, NULL);
	ck_assert_int_eq(comm_timer_set(t, 50), 0);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	gettimeofday(&fired_at, NULL);
	ck_assert_int_eq(stale_fired, 1);
	ck_assert_int_ge(tv_diff_us(&armed, &fired_at), 50000);
	comm_timer_delete(t);
	comm_base_delete(b);
}
END_TEST

/* a timer deleting itself and re-arming another from its callback */
static struct comm_timer *self_t, *other_t;
static int self_count;

static void
self_cb(void *arg)
{
	(void)arg;
	self_count++;
	comm_timer_delete(self_t);
	self_t = NULL;
	comm_timer_set(other_t, 0);
}

static void
other_cb(void *arg)
{
	self_count += 10;
	comm_base_exit(arg);
}

START_TEST(test_timer_from_callback)
{
	struct comm_base *b = mkbase(_i);
	self_count = 0;
	self_t = comm_timer_create(b, self_cb, NULL);
	other_t = comm_timer_create(b, other_cb, b);
	comm_timer_set(self_t, 5);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(self_count, 11);
	comm_timer_delete(other_t);
	comm_base_delete(b);
}
END_TEST

/* idle hooks and the clock */
static int hook_online, hook_before, hook_after, hook_bad;

static void
hk_before(void *arg)
{
	(void)arg;
	hook_online = 0;
	hook_before++;
}

static void
hk_after(void *arg)
{
	(void)arg;
	hook_online = 1;
	hook_after++;
}

static void
hk_timer(void *arg)
{
	if(!hook_online)
		hook_bad++;
	if(++self_count == 3)
		comm_base_exit(arg);
	else	comm_timer_set(other_t, 1);
}

START_TEST(test_idle_hooks)
{
	struct comm_base *b = mkbase(_i);
	hook_online = 1;
	hook_before = hook_after = hook_bad = self_count = 0;
	comm_base_set_idle_hooks(b, hk_before, hk_after, NULL);
	other_t = comm_timer_create(b, hk_timer, b);
	comm_timer_set(other_t, 1);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(self_count, 3);
	ck_assert_int_eq(hook_bad, 0);
	ck_assert_int_ge(hook_before, 3);
	ck_assert_int_eq(hook_before, hook_after);
	ck_assert_int_eq(hook_online, 1);
	comm_timer_delete(other_t);
	comm_base_delete(b);
}
END_TEST

/* before-wait hooks */
static struct comm_wait_hook wh;
static int wh_runs, wh_polls, wh_fired, wh_fired_seen;

static void
wh_timer(void *arg)
{
	(void)arg;
	wh_fired++;
}

/** says "do not sleep" wh_polls more times, then unlinks itself from
 * inside its run */
static int
wh_run(void *arg)
{
	wh_runs++;
	wh_fired_seen = wh_fired;
	if(wh_polls > 0) {
		wh_polls--;
		return 1;
	}
	comm_base_del_wait_hook(arg, &wh);
	return 0;
}

/** stays linked, never polls */
static int
wh_never(void *arg)
{
	(void)arg;
	wh_runs++;
	return 0;
}

/* a before-wait hook runs once per iteration, after the callbacks of the
 * wake-up; while its last answer is 1 (and from its link until it first
 * runs) the loop does not sleep; unlinked (also from inside its run), or
 * linked and answering 0, the loop sleeps again. A loop that sleeps
 * cannot return before a timer 10 s away, one that does not returns at
 * once (loop_once with no bound) */
START_TEST(test_wait_hooks)
{
	struct comm_base *b = mkbase(_i);
	struct comm_timer *t = comm_timer_create(b, wh_timer, NULL);
	int k;
	ck_assert_ptr_nonnull(t);
	memset(&wh, 0, sizeof(wh));
	wh.run = wh_run;
	wh.arg = b;
	wh_runs = wh_fired = 0;
	wh_polls = 2;
	comm_base_add_wait_hook(b, &wh);
	comm_base_add_wait_hook(b, &wh); /* linked already: nothing */
	ck_assert_int_eq(comm_timer_set(t, 10000), 0);
	/* linked, then 1, 1, then 0 and unlinked: three iterations, no
	 * sleep */
	for(k = 0; k < 3; k++)
		ck_assert_int_eq(comm_base_loop_once(b, -1), 0);
	ck_assert_int_eq(wh_runs, 3);
	ck_assert_int_eq(wh_fired, 0);
	ck_assert_int_eq(wh.linked, 0);
	/* unlinked: the loop sleeps until the timer; the hook does not run */
	ck_assert_int_eq(comm_timer_set(t, 1), 0);
	for(k = 0; k < 100 && wh_fired == 0; k++)
		ck_assert_int_eq(comm_base_loop_once(b, -1), 0);
	ck_assert_int_eq(wh_fired, 1);
	ck_assert_int_eq(wh_runs, 3);
	/* the hook runs after the callbacks of its iteration: it sees the
	 * timer that was due when the iteration woke */
	wh_polls = 0;
	comm_base_add_wait_hook(b, &wh);
	ck_assert_int_eq(comm_timer_set(t, 1), 0);
	usleep(5000);
	ck_assert_int_eq(comm_base_loop_once(b, -1), 0);
	ck_assert_int_eq(wh_fired, 2);
	ck_assert_int_eq(wh_fired_seen, 2);
	ck_assert_int_eq(wh_runs, 4);
	ck_assert_int_eq(wh.linked, 0);
	/* linked and answering 0: it runs every iteration, and after its
	 * first answer the loop sleeps */
	memset(&wh, 0, sizeof(wh));
	wh.run = wh_never;
	comm_base_add_wait_hook(b, &wh);
	ck_assert_int_eq(comm_timer_set(t, 10000), 0);
	ck_assert_int_eq(comm_base_loop_once(b, -1), 0);
	ck_assert_int_eq(wh_runs, 5);
	ck_assert_int_eq(wh_fired, 2);
	ck_assert_int_eq(comm_timer_set(t, 1), 0);
	for(k = 0; k < 100 && wh_fired == 2; k++)
		ck_assert_int_eq(comm_base_loop_once(b, -1), 0);
	ck_assert_int_eq(wh_fired, 3);
	ck_assert_int_eq(wh_runs, 5 + k);
	comm_base_del_wait_hook(b, &wh);
	comm_base_del_wait_hook(b, &wh); /* not linked: nothing */
	ck_assert_int_eq(wh.linked, 0);
	comm_timer_delete(t);
	comm_base_delete(b);
}
END_TEST

/* signals */
static int sig_seen;

static void
sig_cb(int sig, void *arg)
{
	sig_seen = sig;
	comm_base_exit(arg);
}

START_TEST(test_signal)
{
	struct comm_base *b = mkbase(_i);
	struct comm_signal *s = comm_signal_create(b, sig_cb, b);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(comm_signal_bind(s, SIGUSR1), 0);
	sig_seen = 0;
	raise(SIGUSR1);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(sig_seen, SIGUSR1);
	comm_signal_delete(s);
	comm_base_delete(b);
}
END_TEST

/* watch */
static int watch_bytes;

static void
watch_cb(int fd, void *arg)
{
	char buf[16];
	ssize_t r = read(fd, buf, sizeof(buf));
	if(r > 0)
		watch_bytes += (int)r;
	comm_base_exit(arg);
}

START_TEST(test_watch)
{
	struct comm_base *b = mkbase(_i);
	int p[2];
	struct comm_watch *w;
	ck_assert_int_eq(pipe(p), 0);
	w = comm_watch_create(b, p[0], watch_cb, b);
	ck_assert_ptr_nonnull(w);
	watch_bytes = 0;
	ck_assert_int_eq(write(p[1], "abc", 3), 3);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(watch_bytes, 3);
	comm_watch_delete(w);
	close(p[0]);
	close(p[1]);
	comm_base_delete(b);
}
END_TEST

#ifdef PETREL_HAVE_THREADS
static void *
exit_thread(void *arg)
{
	usleep(50000);
	comm_base_exit(arg);
	return NULL;
}

START_TEST(test_exit_other_thread)
{
	struct comm_base *b = mkbase(_i);
	thread_type t;
	struct timeval a, z;
	gettimeofday(&a, NULL);
	ck_assert_int_eq(thread_create(&t, exit_thread, b), 0);
	/* nothing else registered: blocks until the other thread wakes it */
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	gettimeofday(&z, NULL);
	ck_assert_int_eq(thread_join(t), 0);
	ck_assert_int_ge((z.tv_sec - a.tv_sec) * 1000000 +
		(z.tv_usec - a.tv_usec), 40000);
	comm_base_delete(b);
}
END_TEST
#endif

/* ------------------------------------------------------------------ */
/* UDP */

/** echo: flip every byte after the 4-byte sequence number, in place */
static int
udp_echo_cb(struct comm_reply *rep, void *arg)
{
	size_t i;
	(void)arg;
	ck_assert_int_eq(rep->is_tcp, 0);
	for(i = 4; i < rep->len; i++)
		rep->buf[i] ^= 0xff;
	return 1;
}

/** open a nonblocking client UDP socket with a large receive buffer */
static int
udp_client(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	int sz = 4 * 1024 * 1024;
	ck_assert_int_ge(fd, 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/** the UDP server of a test: a socket opened at *a (on return its bound
 * address, with the port), with SO_RCVBUF rcvbuf (0: the default), served
 * by a comm_point of 512-byte buffers and batches of batch calling cb */
static struct comm_point *
udp_echo_point(struct comm_base *b, struct netaddr *a, int rcvbuf, int batch,
	comm_point_cb_type cb)
{
	struct comm_sock_opts o;
	struct comm_point *c;
	int sfd;
	memset(&o, 0, sizeof(o));
	o.rcvbuf = rcvbuf;
	sfd = comm_sock_open_udp(a, rcvbuf ? &o : NULL);
	ck_assert_int_ge(sfd, 0);
	*a = sock_addr(sfd);
	c = comm_point_create_udp(b, sfd, 512, batch, cb, NULL);
	ck_assert_ptr_nonnull(c);
	return c;
}

#define BURST 10000
#define CHUNK 64

START_TEST(test_udp_burst)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	const struct comm_point_stats *st;
	static unsigned char seen[BURST];
	int cfd, sent = 0, got = 0, spins = 0;
	memset(seen, 0, sizeof(seen));
	c = udp_echo_point(b, &a, 1024 * 1024, 32, udp_echo_cb);
	cfd = udp_client();
	while(got < BURST && spins < 100000) {
		uint8_t pkt[40];
		ssize_t r;
		int k;
		spins++;
		/* keep at most CHUNK datagrams in flight */
		for(k = 0; sent < BURST && sent - got < CHUNK; k++) {
			memset(pkt, 0x5a, sizeof(pkt));
			memcpy(pkt, &sent, 4);
			if(sendto(cfd, pkt, sizeof(pkt), 0,
				(struct sockaddr *)&a.addr, a.len) != sizeof(pkt))
				break;
			sent++;
		}
		ck_assert_int_eq(comm_base_loop_once(b, 100), 0);
		while((r = recv(cfd, pkt, sizeof(pkt), 0)) > 0) {
			int seq, j;
			ck_assert_int_eq(r, sizeof(pkt));
			memcpy(&seq, pkt, 4);
			ck_assert_int_ge(seq, 0);
			ck_assert_int_lt(seq, BURST);
			ck_assert_int_eq(seen[seq], 0);
			for(j = 4; j < (int)sizeof(pkt); j++)
				ck_assert_int_eq(pkt[j], 0x5a ^ 0xff);
			seen[seq] = 1;
			got++;
		}
	}
	ck_assert_int_eq(got, BURST);
	st = comm_point_get_stats(c);
	ck_assert_uint_eq(st->pkts_in, BURST);
	ck_assert_uint_eq(st->pkts_out, BURST);
	/* batching is visible: far fewer batches than packets */
	ck_assert_uint_le(st->batches, BURST / 8);
	ck_assert_uint_ge(st->batches, BURST / 32);
#ifdef HAVE_SENDMMSG
	ck_assert_uint_le(st->sendmmsg_calls, BURST / 8);
	ck_assert_uint_eq(st->sendmsg_calls, 0);
#endif
#ifdef HAVE_RECVMMSG
	ck_assert_uint_le(st->recv_calls, BURST / 4);
#endif
	fprintf(stderr, "udp burst [%s]: %d packets, %llu batches, %llu recv "
		"calls, %llu sendmmsg calls\n", backends[_i], BURST,
		(unsigned long long)st->batches,
		(unsigned long long)st->recv_calls,
		(unsigned long long)st->sendmmsg_calls);
	close(cfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

#ifdef PETREL_HAVE_THREADS
/** the client thread of the threaded burst */
struct burst_client {
	/** the server */
	struct netaddr to;
	/** the base to stop when done */
	struct comm_base *b;
	/** answers received */
	int got;
};

static void *
burst_thread(void *arg)
{
	struct burst_client *bc = arg;
	int fd = udp_client(), sent = 0, idle = 0;
	uint8_t pkt[40];
	while(bc->got < BURST && idle < 2000) {
		struct pollfd pfd;
		ssize_t r;
		while(sent < BURST && sent - bc->got < 128) {
			memset(pkt, 0x5a, sizeof(pkt));
			memcpy(pkt, &sent, 4);
			if(sendto(fd, pkt, sizeof(pkt), 0,
				(struct sockaddr *)&bc->to.addr, bc->to.len)
				!= sizeof(pkt))
				break;
			sent++;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if(poll(&pfd, 1, 10) <= 0) {
			idle++;
			continue;
		}
		while((r = recv(fd, pkt, sizeof(pkt), 0)) > 0)
			bc->got++;
	}
	close(fd);
	comm_base_exit(bc->b);
	return NULL;
}

START_TEST(test_udp_burst_thread)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	struct burst_client bc;
	const struct comm_point_stats *st;
	thread_type t;
	c = udp_echo_point(b, &a, 1024 * 1024, 32, udp_echo_cb);
	memset(&bc, 0, sizeof(bc));
	bc.to = a;
	bc.b = b;
	ck_assert_int_eq(thread_create(&t, burst_thread, &bc), 0);
	ck_assert_int_eq(comm_base_dispatch(b), 0);
	ck_assert_int_eq(thread_join(t), 0);
	ck_assert_int_eq(bc.got, BURST);
	st = comm_point_get_stats(c);
	ck_assert_uint_eq(st->pkts_in, BURST);
	ck_assert_uint_eq(st->pkts_out, BURST);
	ck_assert_uint_lt(st->batches, BURST);
	fprintf(stderr, "udp burst, client thread [%s]: %llu batches, "
		"%.1f datagrams per batch\n", backends[_i],
		(unsigned long long)st->batches,
		(double)st->pkts_in / (double)(st->batches ? st->batches : 1));
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST
#endif

/* a flood is drained in bounded rounds: timers still run in between */
static int flood_timer_fired;

static void
flood_timer_cb(void *arg)
{
	(void)arg;
	flood_timer_fired++;
}

START_TEST(test_udp_bounded_per_wake)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	struct comm_timer *t;
	uint8_t pkt[40];
	int cfd, i, k;
	uint64_t per_wake = (uint64_t)NETEVENT_UDP_BATCHES_PER_WAKE * 8;
	/* batch of 8: 4 batches = 32 datagrams per wake-up at most */
	c = udp_echo_point(b, &a, 0, 8, udp_echo_cb);
	cfd = udp_client();
	memset(pkt, 0, sizeof(pkt));
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	t = comm_timer_create(b, flood_timer_cb, NULL);
	comm_timer_set(t, 0);
	flood_timer_fired = 0;
	usleep(20000);
	/* one iteration: one bounded round of the flood, and the timer */
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, per_wake);
	ck_assert_uint_eq(comm_point_get_stats(c)->batches,
		NETEVENT_UDP_BATCHES_PER_WAKE);
	ck_assert_int_eq(flood_timer_fired, 1);
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in < 100; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 100);
	ck_assert_int_eq(flood_timer_fired, 1);
	comm_timer_delete(t);
	close(cfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/** udp_echo_cb's answers waiting at the client */
static int
udp_count_answers(int cfd)
{
	uint8_t pkt[64];
	int n = 0;
	while(recv(cfd, pkt, sizeof(pkt), 0) > 0)
		n++;
	return n;
}

/** what the peek test saw, in order: 100*stage + seq for a peek,
 * 1000 + seq for the callback */
static int peek_log[64];
static int peek_nlog;

static void
udp_peek_cb(struct comm_reply *rep, int stage, void *arg)
{
	int seq;
	(void)arg;
	memcpy(&seq, rep->buf, 4);
	if(stage == 0)
		ck_assert_uint_eq(rep->hint, 0);
	else	ck_assert_uint_eq(rep->hint, (uint64_t)seq + 7);
	rep->hint = (uint64_t)seq + 7;
	if(peek_nlog < 64)
		peek_log[peek_nlog++] = 100 * stage + seq;
}

static int
udp_peek_echo_cb(struct comm_reply *rep, void *arg)
{
	int seq;
	memcpy(&seq, rep->buf, 4);
	ck_assert_uint_eq(rep->hint, (uint64_t)seq + 7);
	if(peek_nlog < 64)
		peek_log[peek_nlog++] = 1000 + seq;
	return udp_echo_cb(rep, arg);
}

/* the peek sees the whole batch, stage by stage, before any callback;
 * a batch of one is not peeked at */
START_TEST(test_udp_peek)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	uint8_t pkt[40];
	int cfd, i, k;
	c = udp_echo_point(b, &a, 0, 8, udp_peek_echo_cb);
	comm_point_set_peek(c, udp_peek_cb, 2);
	cfd = udp_client();
	memset(pkt, 0, sizeof(pkt));
	for(i = 0; i < 5; i++) {
		memcpy(pkt, &i, 4);
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	}
	usleep(20000);
	peek_nlog = 0;
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 5);
	ck_assert_int_eq(peek_nlog, 15);
	for(i = 0; i < 5; i++) {
		ck_assert_int_eq(peek_log[i], i);
		ck_assert_int_eq(peek_log[5 + i], 100 + i);
		ck_assert_int_eq(peek_log[10 + i], 1000 + i);
	}
	/* one datagram: the callback only (its hint is 0) */
	i = -7;
	memcpy(pkt, &i, 4);
	ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
		(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	usleep(20000);
	peek_nlog = 0;
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in == 5; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(peek_nlog, 1);
	ck_assert_int_eq(peek_log[0], 1000 - 7);
	/* (io_uring: the answers go to the kernel with the next wait) */
	comm_base_loop_once(b, 0);
	usleep(1000);
	ck_assert_int_eq(udp_count_answers(cfd), 6);
	close(cfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* a socket that comes back full goes busy (out of the backend, drained
 * every iteration, the loop not sleeping), leaves busy mode when a batch
 * comes back short, and is then waited for in the backend again */
START_TEST(test_udp_busy)
{
	struct comm_base *b;
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	struct timeval t0, t1;
	uint8_t pkt[40];
	int cfd, i, k, got = 0;
	if(strcmp(backends[_i], "io_uring") == 0)
		return; /* no busy mode on the ring: test_udp_ring */
	b = mkbase(_i);
	c = udp_echo_point(b, &a, 1024 * 1024, 8, udp_echo_cb);
	cfd = udp_client();
	memset(pkt, 0, sizeof(pkt));
	/* 100 = 3 full wake-ups of 4 x 8 and a short batch of 4 */
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	usleep(20000);
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 32);
	ck_assert_uint_eq(comm_point_get_stats(c)->busy_periods, 1);
	/* busy: the next iterations do not wait for their 1 s */
	gettimeofday(&t0, NULL);
	for(k = 0; k < 3; k++)
		ck_assert_int_eq(comm_base_loop_once(b, 1000), 0);
	gettimeofday(&t1, NULL);
	ck_assert_int_lt((t1.tv_sec - t0.tv_sec) * 1000000 +
		(t1.tv_usec - t0.tv_usec), 500000);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 100);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, 100);
	/* the short batch ended busy mode: the loop sleeps again ... */
	gettimeofday(&t0, NULL);
	ck_assert_int_eq(comm_base_loop_once(b, 200), 0);
	gettimeofday(&t1, NULL);
	ck_assert_int_ge((t1.tv_sec - t0.tv_sec) * 1000000 +
		(t1.tv_usec - t0.tv_usec), 150000);
	/* ... and the backend wakes it for the next datagram */
	ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
		(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	for(k = 0; k < 20 && comm_point_get_stats(c)->pkts_in < 101; k++)
		comm_base_loop_once(b, 100);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 101);
	ck_assert_uint_eq(comm_point_get_stats(c)->busy_periods, 1);
	for(k = 0; k < 20 && got < 101; k++) {
		got += udp_count_answers(cfd);
		if(got < 101)
			usleep(1000);
	}
	ck_assert_int_eq(got, 101);
	/* deleted while busy: unlinked, the loop sleeps again */
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	usleep(20000);
	for(k = 0; k < 50 && comm_point_get_stats(c)->busy_periods < 2; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->busy_periods, 2);
	comm_point_delete(c);
	gettimeofday(&t0, NULL);
	ck_assert_int_eq(comm_base_loop_once(b, 200), 0);
	gettimeofday(&t1, NULL);
	ck_assert_int_ge((t1.tv_sec - t0.tv_sec) * 1000000 +
		(t1.tv_usec - t0.tv_usec), 150000);
	close(cfd);
	comm_base_delete(b);
}
END_TEST

#ifdef HAVE_LIBURING
/** microseconds since t0 */
static long
usec_since(const struct timeval *t0)
{
	struct timeval t1;
	gettimeofday(&t1, NULL);
	return (t1.tv_sec - t0->tv_sec) * 1000000L +
		(t1.tv_usec - t0->tv_usec);
}

/* the io_uring UDP path: one multishot receive serves a flood (re-armed
 * only when its buffers ran out), no busy mode, the loop sleeps when
 * idle and wakes for the next datagram; stop_listening cancels the
 * receive (datagrams wait in the socket) and start_listening arms it
 * again; a comm_point deleted with answers in flight is freed by the
 * base's delete (valgrind: no leak) */
START_TEST(test_udp_ring)
{
	struct comm_base *b;
	struct netaddr a = lo_addr("127.0.0.1");
	struct comm_point *c;
	struct timeval t0;
	uint8_t pkt[40];
	int cfd, i, k, got = 0;
	b = comm_base_create("io_uring");
	ck_assert_ptr_nonnull(b);
	if(strcmp(comm_base_backend_name(b), "io_uring") != 0) {
		/* tu_pick_backends said why; nothing to test here */
		comm_base_delete(b);
		return;
	}
	c = udp_echo_point(b, &a, 1024 * 1024, 8, udp_echo_cb);
	cfd = udp_client();
	memset(pkt, 0, sizeof(pkt));
	for(i = 0; i < 100; i++)
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	usleep(20000);
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_out < 100; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 100);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, 100);
	ck_assert_uint_eq(comm_point_get_stats(c)->busy_periods, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->sendmmsg_calls, 0);
	/* 32 buffers for batches of 8: at most one arming per 32 */
	ck_assert_uint_le(comm_point_get_stats(c)->recv_calls, 5);
	for(k = 0; k < 20 && got < 100; k++) {
		got += udp_count_answers(cfd);
		if(got < 100)
			usleep(1000);
	}
	ck_assert_int_eq(got, 100);
	/* idle: the loop sleeps for its bound */
	gettimeofday(&t0, NULL);
	ck_assert_int_eq(comm_base_loop_once(b, 200), 0);
	ck_assert_int_ge(usec_since(&t0), 150000);
	/* stopped: the receive is cancelled, a datagram waits */
	ck_assert_int_eq(comm_point_stop_listening(c), 0);
	comm_base_loop_once(b, 0);
	ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
		(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	for(k = 0; k < 3; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 100);
	/* started: it is received and answered */
	ck_assert_int_eq(comm_point_start_listening(c), 0);
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_out < 101; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 101);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, 101);
	/* deleted with a flood under way */
	for(i = 0; i < 50; i++)
		ck_assert_int_eq(sendto(cfd, pkt, sizeof(pkt), 0,
			(struct sockaddr *)&a.addr, a.len), sizeof(pkt));
	usleep(20000);
	for(k = 0; k < 50 && comm_point_get_stats(c)->pkts_in == 101; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_gt(comm_point_get_stats(c)->pkts_in, 101);
	comm_point_delete(c);
	comm_base_loop_once(b, 0);
	close(cfd);
	comm_base_delete(b);
}
END_TEST
#endif

/* the callback answers some queries later, through a saved address */
static struct comm_reply_addr saved[8];
static int nsaved;

static int
udp_later_cb(struct comm_reply *rep, void *arg)
{
	(void)arg;
	if(rep->buf[0] == 'L') {
		comm_reply_save(rep, &saved[nsaved++]);
		return 0;
	}
	if(rep->buf[0] == 'D')
		return 0; /* dropped */
	rep->buf[0] = 'A';
	return 1;
}

/** receive one datagram (turning the loop), @return its length */
static ssize_t
udp_recv_wait(struct comm_base *b, int fd, void *buf, size_t len,
	struct netaddr *from)
{
	int i;
	for(i = 0; i < 200; i++) {
		ssize_t r;
		from->len = sizeof(from->addr);
		r = recvfrom(fd, buf, len, 0, (struct sockaddr *)&from->addr,
			&from->len);
		if(r >= 0)
			return r;
		comm_base_loop_once(b, 10);
	}
	return -1;
}

START_TEST(test_udp_wildcard_and_later)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("0.0.0.0"), to, from, want;
	struct comm_point *c;
	uint8_t buf[16];
	int sfd, cfd;
	char s1[NETADDR_STRLEN];
	sfd = comm_sock_open_udp(&a, NULL);
	ck_assert_int_ge(sfd, 0);
	a = sock_addr(sfd);
	c = comm_point_create_udp(b, sfd, 0, 0, udp_later_cb, NULL);
	ck_assert_ptr_nonnull(c);
	cfd = udp_client();
	/* asked at 127.0.0.2: the answer must come from 127.0.0.2 */
	to = lo_addr("127.0.0.2");
	netaddr_set_port(&to, netaddr_port(&a));
	want = to;
	ck_assert_int_eq(sendto(cfd, "Q", 1, 0, (struct sockaddr *)&to.addr,
		to.len), 1);
	ck_assert_int_eq(udp_recv_wait(b, cfd, buf, sizeof(buf), &from), 1);
	ck_assert_int_eq(buf[0], 'A');
	ck_assert_msg(netaddr_cmp(&from, &want) == 0, "answer came from %s",
		netaddr_str(&from, -1, s1, sizeof(s1)));
	/* a dropped query gets nothing, a later one gets its answer */
	nsaved = 0;
	ck_assert_int_eq(sendto(cfd, "D", 1, 0, (struct sockaddr *)&to.addr,
		to.len), 1);
	ck_assert_int_eq(sendto(cfd, "L", 1, 0, (struct sockaddr *)&to.addr,
		to.len), 1);
	while(nsaved == 0)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(recv(cfd, buf, sizeof(buf), 0), -1);
	ck_assert_int_eq(comm_reply_send(&saved[0], (const uint8_t *)"later",
		5), 0);
	ck_assert_int_eq(udp_recv_wait(b, cfd, buf, sizeof(buf), &from), 5);
	ck_assert_int_eq(memcmp(buf, "later", 5), 0);
	ck_assert_msg(netaddr_cmp(&from, &want) == 0, "later answer from %s",
		netaddr_str(&from, -1, s1, sizeof(s1)));
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 3);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, 2);
	close(cfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

START_TEST(test_udp_wildcard_v6)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a = lo_addr("::"), to, from;
	struct comm_point *c;
	uint8_t buf[16];
	int sfd, cfd;
	char cap[512];
	cap[0] = 0;
	log_capture(cap, sizeof(cap));
	sfd = comm_sock_open_udp(&a, NULL);
	log_capture(NULL, 0);
	cfd = socket(AF_INET6, SOCK_DGRAM, 0);
	if(sfd < 0 || cfd < 0) {
		fprintf(stderr, "no IPv6 here, skipped: %s\n", cap);
		if(sfd >= 0)
			close(sfd);
		if(cfd >= 0)
			close(cfd);
		comm_base_delete(b);
		return;
	}
	a = sock_addr(sfd);
	c = comm_point_create_udp(b, sfd, 0, 0, udp_later_cb, NULL);
	ck_assert_ptr_nonnull(c);
	to = lo_addr("::1");
	netaddr_set_port(&to, netaddr_port(&a));
	ck_assert_int_eq(fcntl(cfd, F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(sendto(cfd, "Q", 1, 0, (struct sockaddr *)&to.addr,
		to.len), 1);
	ck_assert_int_eq(udp_recv_wait(b, cfd, buf, sizeof(buf), &from), 1);
	ck_assert_int_eq(buf[0], 'A');
	ck_assert_int_eq(netaddr_cmp(&from, &to), 0);
	close(cfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCP */

/** answers: "E..." echoes with 'e'; "L..." is answered later */
static int
tcp_cb(struct comm_reply *rep, void *arg)
{
	(void)arg;
	ck_assert_int_eq(rep->is_tcp, 1);
	if(rep->buf[0] == 'L') {
		comm_reply_save(rep, &saved[nsaved++]);
		return 0;
	}
	rep->buf[0] = 'e';
	return 1;
}

static int
tcp_connect(const struct netaddr *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a->addr,
		a->len), 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/** read exactly n bytes from fd, turning the loop. @return n, 0 on EOF */
static int
tcp_read_n(struct comm_base *b, int fd, uint8_t *buf, int n)
{
	int got = 0, i;
	for(i = 0; i < 500 && got < n; i++) {
		ssize_t r = recv(fd, buf + got, (size_t)(n - got), 0);
		if(r == 0 || (r == -1 && errno == ECONNRESET))
			return 0;
		if(r > 0) {
			got += (int)r;
			continue;
		}
		comm_base_loop_once(b, 10);
	}
	return got;
}

/** read one framed message. @return its length, 0 on EOF, -1 timeout */
static int
tcp_read_msg(struct comm_base *b, int fd, uint8_t *buf)
{
	uint8_t l[2];
	int n;
	int r = tcp_read_n(b, fd, l, 2);
	if(r == 0)
		return 0;
	if(r != 2)
		return -1;
	n = (l[0] << 8) | l[1];
	if(tcp_read_n(b, fd, buf, n) != n)
		return -1;
	return n;
}

static struct comm_point *
tcp_server(struct comm_base *b, int max, int idle, struct netaddr *a)
{
	struct comm_point *c;
	int fd;
	*a = lo_addr("127.0.0.1");
	fd = comm_sock_open_tcp(a, NULL);
	ck_assert_int_ge(fd, 0);
	*a = sock_addr(fd);
	c = comm_point_create_tcp(b, fd, max, idle, 0, tcp_cb, NULL);
	ck_assert_ptr_nonnull(c);
#ifdef TCP_DEFER_ACCEPT
	{
		/* the tests count connections the moment they are made
		 * (test_tcp_defer_accept checks the deferral) */
		int zero = 0;
		ck_assert_int_eq(setsockopt(comm_point_fd(c), IPPROTO_TCP,
			TCP_DEFER_ACCEPT, &zero, sizeof(zero)), 0);
	}
#endif
	return c;
}

START_TEST(test_tcp_framing)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 4, 5000, &a);
	/* three pipelined queries, the middle one answered later */
	const uint8_t stream[] = { 0, 3, 'E', '1', 'x', 0, 2, 'L', '2',
		0, 4, 'E', '3', 'y', 'z' };
	uint8_t buf[100];
	size_t i;
	int fd = tcp_connect(&a);
	nsaved = 0;
	for(i = 0; i < sizeof(stream); i++) {
		ck_assert_int_eq(send(fd, stream + i, 1, 0), 1);
		comm_base_loop_once(b, 0);
		comm_base_loop_once(b, 0);
	}
	ck_assert_int_eq(tcp_read_msg(b, fd, buf), 3);
	ck_assert_int_eq(memcmp(buf, "e1x", 3), 0);
	ck_assert_int_eq(tcp_read_msg(b, fd, buf), 4);
	ck_assert_int_eq(memcmp(buf, "e3yz", 4), 0);
	ck_assert_int_eq(nsaved, 1);
	ck_assert_int_eq(comm_reply_send(&saved[0], (const uint8_t *)"l2", 2),
		0);
	ck_assert_int_eq(tcp_read_msg(b, fd, buf), 2);
	ck_assert_int_eq(memcmp(buf, "l2", 2), 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 3);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, 3);
	ck_assert_int_eq(comm_point_tcp_count(c), 1);

	/* a malformed length closes that connection only */
	{
		int bad = tcp_connect(&a);
		int good = tcp_connect(&a);
		const uint8_t zero[] = { 0, 0 };
		const uint8_t q[] = { 0, 2, 'E', 'g' };
		ck_assert_int_eq(send(bad, zero, 2, 0), 2);
		ck_assert_int_eq(tcp_read_msg(b, bad, buf), 0);
		ck_assert_int_eq(send(good, q, 4, 0), 4);
		ck_assert_int_eq(tcp_read_msg(b, good, buf), 2);
		ck_assert_int_eq(memcmp(buf, "eg", 2), 0);
		ck_assert_uint_eq(comm_point_get_stats(c)->tcp_errors, 1);
		close(bad);
		close(good);
	}

	/* the client shuts its sending side: a later answer still arrives,
	 * then the server closes */
	{
		int hc = tcp_connect(&a), k;
		const uint8_t q[] = { 0, 2, 'L', 'h' };
		nsaved = 0;
		ck_assert_int_eq(send(hc, q, 4, 0), 4);
		ck_assert_int_eq(shutdown(hc, SHUT_WR), 0);
		for(k = 0; k < 20; k++)
			comm_base_loop_once(b, 5);
		ck_assert_int_eq(nsaved, 1);
		ck_assert_int_eq(comm_reply_send(&saved[0],
			(const uint8_t *)"lh", 2), 0);
		ck_assert_int_eq(tcp_read_msg(b, hc, buf), 2);
		ck_assert_int_eq(memcmp(buf, "lh", 2), 0);
		ck_assert_int_eq(tcp_read_msg(b, hc, buf), 0);
		close(hc);
	}

	/* an answer for a connection the server closed (here for a bad
	 * length after the query) is detected and dropped; a new connection
	 * in the same slot does not get it either */
	{
		const uint8_t q[] = { 0, 1, 'L', 0, 0 };
		int k, f2;
		nsaved = 0;
		ck_assert_int_eq(send(fd, q, 5, 0), 5);
		for(k = 0; k < 100 && nsaved == 0; k++)
			comm_base_loop_once(b, 10);
		ck_assert_int_eq(nsaved, 1);
		ck_assert_int_eq(tcp_read_msg(b, fd, buf), 0);
		close(fd);
		for(k = 0; k < 100 && comm_point_tcp_count(c) > 0; k++)
			comm_base_loop_once(b, 10);
		ck_assert_int_eq(comm_point_tcp_count(c), 0);
		f2 = tcp_connect(&a);
		for(k = 0; k < 100 && comm_point_tcp_count(c) == 0; k++)
			comm_base_loop_once(b, 10);
		ck_assert_int_eq(comm_reply_send(&saved[0],
			(const uint8_t *)"xx", 2), -1);
		ck_assert_uint_eq(comm_point_get_stats(c)->tcp_stale_replies,
			1);
		comm_base_loop_once(b, 20);
		ck_assert_int_eq(recv(f2, buf, sizeof(buf), 0), -1);
		close(f2);
	}
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* many pipelined queries with answers larger than the client reads at
 * once: every answer arrives whole and in order (the io_uring path
 * gathers the queued answers into one send and may have it cut short) */
START_TEST(test_tcp_many_answers)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 4, 5000, &a);
	enum { NQ = 40, QLEN = 1000 };
	static uint8_t q[NQ * (QLEN + 2)];
	uint8_t buf[QLEN + 16];
	size_t off = 0;
	int fd, i, k, rcv = 2048;
	fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	/* a small window: the server's sends fill it and complete in part */
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv,
		sizeof(rcv)), 0);
	ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a.addr, a.len),
		0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	for(i = 0; i < NQ; i++) {
		uint8_t *m = q + (size_t)i * (QLEN + 2);
		m[0] = QLEN >> 8;
		m[1] = QLEN & 0xff;
		memset(m + 2, 'a' + i % 26, QLEN);
		m[2] = 'E';
		m[3] = (uint8_t)i;
	}
	/* all queries sent before any answer is read */
	for(k = 0; k < 2000 && off < sizeof(q); k++) {
		ssize_t r = send(fd, q + off, sizeof(q) - off, MSG_NOSIGNAL);
		if(r > 0)
			off += (size_t)r;
		comm_base_loop_once(b, 1);
	}
	ck_assert_uint_eq(off, sizeof(q));
	for(i = 0; i < NQ; i++) {
		ck_assert_int_eq(tcp_read_msg(b, fd, buf), QLEN);
		ck_assert_int_eq(buf[0], 'e');
		ck_assert_int_eq(buf[1], i);
		ck_assert_int_eq(buf[2], 'a' + i % 26);
		ck_assert_int_eq(buf[QLEN - 1], 'a' + i % 26);
	}
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_out, NQ);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_errors, 0);
	close(fd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/** turn the loop until fd sees the connection closed. @return 1 if it
 * did (EOF or reset), 0 if not within the bound */
static int
tcp_wait_closed(struct comm_base *b, int fd)
{
	int i;
	for(i = 0; i < 500; i++) {
		uint8_t x;
		ssize_t r = recv(fd, &x, 1, 0);
		if(r == 0 || (r == -1 && errno == ECONNRESET))
			return 1;
		comm_base_loop_once(b, 10);
	}
	return 0;
}

/** @return 1 if fd is still open at the server: a query is answered */
static int
tcp_still_served(struct comm_base *b, int fd)
{
	const uint8_t q[] = { 0, 2, 'E', 'k' };
	uint8_t buf[16];
	if(send(fd, q, 4, MSG_NOSIGNAL) != 4)
		return 0;
	return tcp_read_msg(b, fd, buf) == 2 && memcmp(buf, "ek", 2) == 0;
}

/** connect and turn the loop until the server has n connections */
static int
tcp_connect_wait(struct comm_base *b, struct comm_point *c,
	const struct netaddr *a, int n)
{
	int fd = tcp_connect(a), k;
	for(k = 0; k < 200 && comm_point_tcp_count(c) < n; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(comm_point_tcp_count(c), n);
	return fd;
}

/* a full table: a new connection takes an idle one's slot; it is refused
 * only when every connection is owed an answer */
START_TEST(test_tcp_limit)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 2, 5000, &a);
	uint8_t buf[100];
	const uint8_t lq[] = { 0, 2, 'L', 'q' };
	int f1, f2, f3, f4, k;
	comm_point_tcp_set_timeouts(c, 0, 0);
	nsaved = 0;
	f1 = tcp_connect_wait(b, c, &a, 1);
	f2 = tcp_connect_wait(b, c, &a, 2);
	/* f2 waits for an answer: it is owed one */
	ck_assert_int_eq(send(f2, lq, 4, 0), 4);
	for(k = 0; k < 100 && nsaved < 1; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(nsaved, 1);
	/* f3 takes the slot of f1, which sent nothing */
	f3 = tcp_connect(&a);
	ck_assert_int_eq(tcp_wait_closed(b, f1), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 1);
	ck_assert_int_eq(comm_point_tcp_count(c), 2);
	ck_assert_int_eq(send(f3, lq, 4, 0), 4);
	for(k = 0; k < 100 && nsaved < 2; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(nsaved, 2);
	/* both are owed answers: f4 is refused, it sees the close */
	f4 = tcp_connect(&a);
	ck_assert_int_eq(tcp_read_msg(b, f4, buf), 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 1);
	/* the answers reach f2 and f3, which keep working */
	ck_assert_int_eq(comm_reply_send(&saved[0], (const uint8_t *)"l2", 2),
		0);
	ck_assert_int_eq(comm_reply_send(&saved[1], (const uint8_t *)"l3", 2),
		0);
	ck_assert_int_eq(tcp_read_msg(b, f2, buf), 2);
	ck_assert_int_eq(memcmp(buf, "l2", 2), 0);
	ck_assert_int_eq(tcp_read_msg(b, f3, buf), 2);
	ck_assert_int_eq(memcmp(buf, "l3", 2), 0);
	ck_assert_int_eq(tcp_still_served(b, f2), 1);
	ck_assert_int_eq(tcp_still_served(b, f3), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_accepted, 3);
	close(f1);
	close(f2);
	close(f3);
	close(f4);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* which idle connection goes first: one that never sent a whole query
 * (a stray byte does not count), oldest first; one that did, last */
START_TEST(test_tcp_evict_order)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 3, 30000, &a);
	int f1, f2, f3, f4, f5;
	comm_point_tcp_set_timeouts(c, 0, 0);
	f1 = tcp_connect_wait(b, c, &a, 1);
	ck_assert_int_eq(tcp_still_served(b, f1), 1);
	f2 = tcp_connect_wait(b, c, &a, 2);
	f3 = tcp_connect_wait(b, c, &a, 3);
	ck_assert_int_eq(send(f3, "\0", 1, 0), 1);
	comm_base_loop_once(b, 10);
	/* f2 and f3 sent no whole query: f2 (older) goes first, then f3;
	 * f1 stays, though it is the oldest */
	f4 = tcp_connect(&a);
	ck_assert_int_eq(tcp_wait_closed(b, f2), 1);
	ck_assert_int_eq(comm_point_tcp_count(c), 3);
	ck_assert_int_eq(tcp_still_served(b, f4), 1);
	f5 = tcp_connect(&a);
	ck_assert_int_eq(tcp_wait_closed(b, f3), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 2);
	ck_assert_int_eq(tcp_still_served(b, f1), 1);
	ck_assert_int_eq(tcp_still_served(b, f5), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 0);
	close(f1);
	close(f2);
	close(f3);
	close(f4);
	close(f5);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* the only idle connection sent its query just before a new one came: it
 * is read before it would be closed, and kept */
START_TEST(test_tcp_evict_reads_first)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 1, 30000, &a);
	const uint8_t lq[] = { 0, 2, 'L', 'r' };
	uint8_t buf[16];
	int f1, f2;
	comm_point_tcp_set_timeouts(c, 0, 0);
	nsaved = 0;
	f1 = tcp_connect_wait(b, c, &a, 1);
	ck_assert_int_eq(send(f1, lq, 4, 0), 4);
	f2 = tcp_connect(&a);
	ck_assert_int_eq(tcp_read_msg(b, f2, buf), 0);
	ck_assert_int_eq(nsaved, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 0);
	ck_assert_int_eq(comm_reply_send(&saved[0], (const uint8_t *)"lr", 2),
		0);
	ck_assert_int_eq(tcp_read_msg(b, f1, buf), 2);
	close(f1);
	close(f2);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* a full table of idle connections under a stream of new ones: each new
 * connection takes a slot (on io_uring a spare one, while the closed
 * connection's requests complete) and is served at once */
START_TEST(test_tcp_evict_churn)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 2, 30000, &a);
	int f[12], i;
	comm_point_tcp_set_timeouts(c, 0, 0);
	f[0] = tcp_connect_wait(b, c, &a, 1);
	f[1] = tcp_connect_wait(b, c, &a, 2);
	for(i = 2; i < 12; i++) {
		/* f[i-2] is the oldest, or the only one without a query */
		f[i] = tcp_connect(&a);
		ck_assert_int_eq(tcp_wait_closed(b, f[i - 2]), 1);
		ck_assert_int_eq(comm_point_tcp_count(c), 2);
		ck_assert_int_eq(tcp_still_served(b, f[i]), 1);
	}
	ck_assert_int_eq(tcp_still_served(b, f[11]), 1);
	ck_assert_int_eq(tcp_still_served(b, f[10]), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_accepted, 12);
	for(i = 0; i < 12; i++)
		close(f[i]);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* a connection is not closed for a new one in the wake-up it was accepted
 * in: it gets a wait of the loop to send its query; the new one waits in
 * the backlog meanwhile */
START_TEST(test_tcp_fresh_kept)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 1, 30000, &a);
	const uint8_t lq[] = { 0, 2, 'L', 'f' };
	int f1, f2, k;
	comm_point_tcp_set_timeouts(c, 0, 0);
	nsaved = 0;
	/* both wait in the backlog before the loop turns */
	f1 = tcp_connect(&a);
	f2 = tcp_connect(&a);
	for(k = 0; k < 100 && comm_point_tcp_count(c) == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(comm_point_tcp_count(c), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_accepted, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 0);
	/* the first speaks before the next round: it keeps its slot, and
	 * the second is refused then (the first is owed an answer) */
	ck_assert_int_eq(send(f1, lq, 4, 0), 4);
	ck_assert_int_eq(tcp_wait_closed(b, f2), 1);
	ck_assert_int_eq(nsaved, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 1);
	ck_assert_int_eq(comm_reply_send(&saved[0], (const uint8_t *)"lf", 2),
		0);
	{
		uint8_t buf[16];
		ck_assert_int_eq(tcp_read_msg(b, f1, buf), 2);
		ck_assert_int_eq(memcmp(buf, "lf", 2), 0);
	}
	ck_assert_int_eq(tcp_still_served(b, f1), 1);
	close(f1);
	close(f2);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

#ifdef TCP_DEFER_ACCEPT
/* as created, a TCP comm_point defers accept until a client speaks: a
 * silent connection takes no slot, one that sends its query is served
 * even with the only slot "taken" by silent ones */
START_TEST(test_tcp_defer_accept)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c;
	int lfd, f[3], fq, k, v = 0;
	socklen_t vl = sizeof(v);
	a = lo_addr("127.0.0.1");
	lfd = comm_sock_open_tcp(&a, NULL);
	ck_assert_int_ge(lfd, 0);
	a = sock_addr(lfd);
	c = comm_point_create_tcp(b, lfd, 1, 30000, 0, tcp_cb, NULL);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(getsockopt(lfd, IPPROTO_TCP, TCP_DEFER_ACCEPT, &v,
		&vl), 0);
	ck_assert_int_gt(v, 0);
	for(k = 0; k < 3; k++)
		f[k] = tcp_connect(&a);
	fq = tcp_connect(&a);
	/* the query comes after the silent ones, and is served first */
	ck_assert_int_eq(tcp_still_served(b, fq), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_accepted, 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_evicted, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_refused, 0);
	for(k = 0; k < 3; k++)
		close(f[k]);
	close(fq);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST
#endif

/* a test timer that only marks that it fired */
static int sentinel_fired;

static void
sentinel_cb(void *arg)
{
	(void)arg;
	sentinel_fired = 1;
}

/* a connection that sends no whole query is closed after the first-query
 * timeout, long before the idle timeout of one that did */
START_TEST(test_tcp_first_query_timeout)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 4, 30000, &a);
	struct comm_timer *sentinel = comm_timer_create(b, sentinel_cb, NULL);
	int fa, fb;
	comm_point_tcp_set_timeouts(c, 50, 0);
	fb = tcp_connect_wait(b, c, &a, 1);
	ck_assert_int_eq(tcp_still_served(b, fb), 1);
	fa = tcp_connect_wait(b, c, &a, 2);
	/* a stray byte is no progress */
	ck_assert_int_eq(send(fa, "\0", 1, 0), 1);
	sentinel_fired = 0;
	ck_assert_int_eq(comm_timer_set(sentinel, 10000), 0);
	ck_assert_int_eq(tcp_wait_closed(b, fa), 1);
	ck_assert_int_eq(sentinel_fired, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_timeouts, 1);
	ck_assert_int_eq(comm_point_tcp_count(c), 1);
	ck_assert_int_eq(tcp_still_served(b, fb), 1);
	comm_timer_delete(sentinel);
	close(fa);
	close(fb);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* over half the slots used, idle connections get the short timeout (those
 * open already too); at half or less, the idle timeout */
START_TEST(test_tcp_pressure_timeout)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 4, 30000, &a);
	struct comm_timer *sentinel = comm_timer_create(b, sentinel_cb, NULL);
	int f1, f2, f3, k;
	comm_point_tcp_set_timeouts(c, 0, 50);
	f1 = tcp_connect_wait(b, c, &a, 1);
	ck_assert_int_eq(tcp_still_served(b, f1), 1);
	f2 = tcp_connect_wait(b, c, &a, 2);
	ck_assert_int_eq(tcp_still_served(b, f2), 1);
	/* half full: a 200 ms sentinel (4 times the short timeout) fires
	 * with both still open */
	sentinel_fired = 0;
	ck_assert_int_eq(comm_timer_set(sentinel, 200), 0);
	for(k = 0; k < 1000 && !sentinel_fired; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(sentinel_fired, 1);
	ck_assert_int_eq(comm_point_tcp_count(c), 2);
	/* a third: over half, the two idle ones are due at once (idle for
	 * longer than the short timeout already): one is closed, before a
	 * sentinel far shorter than the idle timeout; then the table is at
	 * half again and the other two keep the idle timeout */
	f3 = tcp_connect(&a);
	sentinel_fired = 0;
	ck_assert_int_eq(comm_timer_set(sentinel, 10000), 0);
	for(k = 0; k < 1000 && !sentinel_fired &&
		comm_point_get_stats(c)->tcp_timeouts == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(sentinel_fired, 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_timeouts, 1);
	ck_assert_int_eq(comm_point_tcp_count(c), 2);
	ck_assert_int_eq(tcp_still_served(b, f3), 1);
	/* f1 or f2 (both due at the same moment) is gone, the other is not */
	ck_assert_int_eq(tcp_still_served(b, f1) + tcp_still_served(b, f2), 1);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_timeouts, 1);
	comm_timer_delete(sentinel);
	close(f1);
	close(f2);
	close(f3);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

START_TEST(test_tcp_idle_timeout)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 2, 100, &a);
	uint8_t buf[10];
	struct timeval t0, t1;
	int fd = tcp_connect(&a);
	long ms;
	gettimeofday(&t0, NULL);
	ck_assert_int_eq(tcp_read_msg(b, fd, buf), 0);
	gettimeofday(&t1, NULL);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_usec - t0.tv_usec) / 1000;
	ck_assert_int_ge(ms, 80);
	ck_assert_int_lt(ms, 3000);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_timeouts, 1);
	close(fd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* a query moves the idle deadline: the connection is closed an idle
 * timeout after its last query, not after its first (the timer set for
 * the first fires early and sets itself again for the rest) */
START_TEST(test_tcp_idle_progress)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a;
	struct comm_point *c = tcp_server(b, 2, 1000, &a);
	struct comm_timer *sentinel = comm_timer_create(b, sentinel_cb, NULL);
	struct timeval t1, t2;
	int fd, k;
	long ms;
	comm_point_tcp_set_timeouts(c, 0, 0);
	fd = tcp_connect_wait(b, c, &a, 1);
	ck_assert_int_eq(tcp_still_served(b, fd), 1);
	sentinel_fired = 0;
	ck_assert_int_eq(comm_timer_set(sentinel, 600), 0);
	for(k = 0; k < 1000 && !sentinel_fired; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(sentinel_fired, 1);
	gettimeofday(&t1, NULL);
	ck_assert_int_eq(tcp_still_served(b, fd), 1);
	ck_assert_int_eq(tcp_wait_closed(b, fd), 1);
	gettimeofday(&t2, NULL);
	ms = (t2.tv_sec - t1.tv_sec) * 1000 + (t2.tv_usec - t1.tv_usec) / 1000;
	/* counted from when the server read the query, after t1 (the timer
	 * works in whole milliseconds) */
	ck_assert_int_ge(ms, 998);
	ck_assert_uint_eq(comm_point_get_stats(c)->tcp_timeouts, 1);
	comm_timer_delete(sentinel);
	close(fd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* outgoing TCP */
static int out_replies, out_closed, out_timeout;
static uint8_t out_last[64];

static void
out_cb(struct comm_tcp_out *t, enum comm_tcp_out_status st,
	const uint8_t *pkt, size_t len, void *arg)
{
	(void)t; (void)arg;
	if(st == COMM_TCP_OUT_REPLY) {
		out_replies++;
		ck_assert_uint_le(len, sizeof(out_last));
		memcpy(out_last, pkt, len);
	} else if(st == COMM_TCP_OUT_CLOSED)
		out_closed++;
	else	out_timeout++;
}

START_TEST(test_tcp_out)
{
	struct comm_base *b = mkbase(_i);
	struct netaddr a, dead;
	struct comm_point *c = tcp_server(b, 2, 5000, &a);
	struct comm_tcp_out *t;
	int k, lfd;
	out_replies = out_closed = out_timeout = 0;
	t = comm_tcp_out_create(b, &a, NULL, 2000, out_cb, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(comm_tcp_out_write(t, (const uint8_t *)"E1", 2), 0);
	ck_assert_int_eq(comm_tcp_out_write(t, (const uint8_t *)"E2", 2), 0);
	for(k = 0; k < 200 && out_replies < 2; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(out_replies, 2);
	ck_assert_int_eq(memcmp(out_last, "e2", 2), 0);
	comm_tcp_out_delete(t);

	/* connection refused: a closed port */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	dead = lo_addr("127.0.0.1");
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&dead.addr, dead.len),
		0);
	dead = sock_addr(lfd);
	close(lfd);
	t = comm_tcp_out_create(b, &dead, NULL, 2000, out_cb, NULL);
	if(t) {
		for(k = 0; k < 200 && out_closed == 0; k++)
			comm_base_loop_once(b, 10);
		ck_assert_int_eq(out_closed, 1);
		comm_tcp_out_delete(t);
	}

	/* a server that never answers: the timeout fires */
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	dead = lo_addr("127.0.0.1");
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&dead.addr, dead.len),
		0);
	ck_assert_int_eq(listen(lfd, 5), 0);
	dead = sock_addr(lfd);
	t = comm_tcp_out_create(b, &dead, NULL, 100, out_cb, NULL);
	ck_assert_ptr_nonnull(t);
	ck_assert_int_eq(comm_tcp_out_write(t, (const uint8_t *)"E3", 2), 0);
	for(k = 0; k < 300 && out_timeout == 0; k++)
		comm_base_loop_once(b, 10);
	ck_assert_int_eq(out_timeout, 1);
	ck_assert_int_eq(out_replies, 2);
	comm_tcp_out_delete(t);
	close(lfd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* select refuses descriptors past FD_SETSIZE; libevent takes them */
static void
nop_watch(int fd, void *arg)
{
	(void)fd; (void)arg;
}

START_TEST(test_fd_setsize)
{
	struct comm_base *b = mkbase(_i);
	struct rlimit rl;
	char cap[1024];
	int big = FD_SETSIZE + 5, p[2];
	struct comm_watch *w;
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if(rl.rlim_cur <= (rlim_t)big + 1) {
		if(rl.rlim_max <= (rlim_t)big + 1) {
			fprintf(stderr, "fd_setsize: RLIMIT_NOFILE hard limit "
				"too low, skipped\n");
			comm_base_delete(b);
			return;
		}
		rl.rlim_cur = (rlim_t)big + 2;
		ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
	}
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(dup2(p[0], big), big);
	cap[0] = 0;
	log_capture(cap, sizeof(cap));
	w = comm_watch_create(b, big, nop_watch, NULL);
	log_capture(NULL, 0);
	if(strcmp(backends[_i], "select") == 0) {
		int ufd;
		struct netaddr a = lo_addr("127.0.0.1");
		ck_assert_ptr_null(w);
		ck_assert_ptr_nonnull(strstr(cap, "FD_SETSIZE"));
		/* the same for a comm_point on such a socket */
		ufd = comm_sock_open_udp(&a, NULL);
		ck_assert_int_ge(ufd, 0);
		ck_assert_int_eq(dup2(ufd, big + 1), big + 1);
		close(ufd);
		/* fails and closes the socket it was given */
		ck_assert_ptr_null(comm_point_create_udp(b, big + 1, 0, 0,
			udp_echo_cb, NULL));
		ck_assert_int_eq(fcntl(big + 1, F_GETFD), -1);
		/* the base still works */
		ck_assert_int_eq(comm_base_loop_once(b, 0), 0);
	} else {
		ck_assert_ptr_nonnull(w);
		comm_watch_delete(w);
	}
	close(big);
	close(p[0]);
	close(p[1]);
	comm_base_delete(b);
}
END_TEST

static Suite *
netevent_suite(void)
{
	Suite *s = suite_create("netevent");
	TCase *tc = tcase_create("base");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_backend_names);
	tcase_add_test(tc, test_keepalive_conn);
	tcase_add_test(tc, test_version_events);
#ifdef HAVE_LIBURING
	tcase_add_test(tc, test_uring_fallback);
#endif
	tcase_add_loop_test(tc, test_timers_order, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timer_never_early, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timer_after_slow_callback, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timer_counts_from_arming, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timer_from_callback, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_idle_hooks, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_wait_hooks, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_signal, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_watch, 0, NUM_BACKENDS);
#ifdef PETREL_HAVE_THREADS
	tcase_add_loop_test(tc, test_exit_other_thread, 0, NUM_BACKENDS);
#endif
	tcase_add_loop_test(tc, test_fd_setsize, 0, NUM_BACKENDS);
	suite_add_tcase(s, tc);
	tc = tcase_create("udp");
	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_udp_burst, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_wildcard_and_later, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_wildcard_v6, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_bounded_per_wake, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_busy, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_peek, 0, NUM_BACKENDS);
#ifdef HAVE_LIBURING
	tcase_add_test(tc, test_udp_ring);
#endif
#ifdef PETREL_HAVE_THREADS
	tcase_add_loop_test(tc, test_udp_burst_thread, 0, NUM_BACKENDS);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("tcp");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_tcp_framing, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_limit, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_evict_order, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_evict_reads_first, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_fresh_kept, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_evict_churn, 0, NUM_BACKENDS);
#ifdef TCP_DEFER_ACCEPT
	tcase_add_loop_test(tc, test_tcp_defer_accept, 0, NUM_BACKENDS);
#endif
	tcase_add_loop_test(tc, test_tcp_first_query_timeout, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_pressure_timeout, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_idle_timeout, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_idle_progress, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_many_answers, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_out, 0, NUM_BACKENDS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int failed;
	NUM_BACKENDS = tu_pick_backends(backends, "check_netevent");
	sr = srunner_create(netevent_suite());
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
