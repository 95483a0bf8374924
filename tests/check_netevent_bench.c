/*
 * tests/check_netevent_bench.c - what one loop iteration costs per backend.
 *
 * Built as tests/bench_netevent (not run by make check). For each backend
 * and each count N of idle descriptors (pipe read ends that never become
 * readable) plus one descriptor that is always readable (a pipe holding a
 * byte that the callback leaves there), it times ITER calls of
 * comm_base_loop_once(base, 0): each is one wait (select or epoll_wait),
 * one callback, and the comm_base's clock read. The result is nanoseconds
 * per iteration, the fixed cost of a wake-up that the UDP batching spreads
 * over up to batch-size queries.
 *
 * usage: tests/bench_netevent [iterations]   (default 20000)
 */
#include "config.h"
#include "util/netevent/netevent.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>

/** callbacks seen */
static long hits;

static void
active_cb(int fd, void *arg)
{
	(void)fd; (void)arg;
	hits++;
}

static void
idle_cb(int fd, void *arg)
{
	(void)fd; (void)arg;
	fprintf(stderr, "idle descriptor fired\n");
	exit(1);
}

static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/** @return ns per iteration, or -1 if the backend refused */
static double
run(const char *backend, int nidle, long iter)
{
	struct comm_base *b = comm_base_create(backend);
	struct comm_watch **w;
	int (*p)[2], ap[2], i, ok = 1;
	double t0, t1;
	long k;
	if(!b)
		return -1;
	w = calloc((size_t)nidle + 1, sizeof(*w));
	p = calloc((size_t)nidle + 1, sizeof(*p));
	if(!w || !p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	for(i = 0; i < nidle; i++) {
		if(pipe(p[i]) == -1) {
			perror("pipe");
			exit(1);
		}
		w[i] = comm_watch_create(b, p[i][0], idle_cb, NULL);
		if(!w[i]) {
			ok = 0;
			close(p[i][0]);
			close(p[i][1]);
			nidle = i;
			break;
		}
	}
	if(pipe(ap) == -1 || write(ap[1], "x", 1) != 1) {
		perror("pipe");
		exit(1);
	}
	w[nidle] = comm_watch_create(b, ap[0], active_cb, NULL);
	if(!w[nidle])
		ok = 0;
	hits = 0;
	if(ok) {
		for(k = 0; k < iter / 10; k++) /* warm up */
			comm_base_loop_once(b, 0);
		hits = 0;
		t0 = now_ns();
		for(k = 0; k < iter; k++)
			comm_base_loop_once(b, 0);
		t1 = now_ns();
		if(hits != iter) {
			fprintf(stderr, "%s: %ld callbacks for %ld iterations\n",
				backend, hits, iter);
			exit(1);
		}
	}
	for(i = 0; i <= nidle; i++)
		comm_watch_delete(w[i]);
	for(i = 0; i < nidle; i++) {
		close(p[i][0]);
		close(p[i][1]);
	}
	close(ap[0]);
	close(ap[1]);
	free(w);
	free(p);
	comm_base_delete(b);
	return ok ? (t1 - t0) / (double)iter : -1;
}

int
main(int argc, char **argv)
{
	static const int counts[] = { 0, 10, 100, 500, 1000, 5000 };
	const char *backends[] = { "select", "libevent" };
	long iter = argc > 1 ? atol(argv[1]) : 20000;
	struct rlimit rl;
	size_t c;
	int bi;
	if(getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	printf("# backends compiled: %s; %ld iterations per cell\n",
		netevent_backends_compiled(), iter);
	printf("%-10s %-8s %10s %14s\n", "backend", "method", "idle_fds",
		"ns_per_iter");
	for(bi = 0; bi < 2; bi++) {
		for(c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
			struct comm_base *b = comm_base_create(backends[bi]);
			const char *method;
			double ns;
			if(!b)
				break;
			method = comm_base_method(b);
			printf("%-10s %-8s %10d ", backends[bi], method,
				counts[c]);
			comm_base_delete(b);
			fflush(stdout);
			ns = run(backends[bi], counts[c], iter);
			if(ns < 0)
				printf("%14s\n", "refused");
			else	printf("%14.0f\n", ns);
		}
	}
	return 0;
}
