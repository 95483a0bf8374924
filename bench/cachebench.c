/*
 * bench/cachebench.c - cached-answer throughput of the message cache.
 *
 * Fills a message cache with N entries (default 100000: two A records
 * each, as a resolver would store them), then runs 1 and 2 (or -t list)
 * threads that each answer queries for random entries from the cache for
 * D seconds: the full hit path as the worker runs it, fast query parse
 * (dns_query_parse_fast) + mcache_answer (lookup, copy, patch ID, flags,
 * question case, TTLs, OPT) into a reply buffer, with a QSBR quiescent
 * state every 64 answers (one recvmmsg batch). A second figure runs the
 * same without the parse (pre-parsed queries, 4096 of them).
 *
 * usage: cachebench [-n entries] [-d seconds] [-t threads,threads,...]
 *	[-m 0|1] (only parse+answer, or only answer-only) [-s]
 * -s puts the cache on a shared table (shared-cache: util/storage/shmhash.h
 * in a shared mapping) instead of the per-process one, to compare the two
 * hit paths (the table is filled before the readers start, so nothing is
 * reclaimed under them).
 * Prints one line per thread count: answers per second (wall clock) and
 * CPU nanoseconds per answer (thread CPU time), and for more than one
 * thread the scaling against one thread: measured throughput, and the
 * throughput the per-answer CPU cost implies when every thread has a core
 * (n x cpu_1 / cpu_n). On a shared, busy machine only the second is
 * meaningful; the first needs idle cores.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <stdatomic.h>
#include "services/cache/msgcache.h"
#include "util/storage/qsbr.h"
#include "util/storage/shmarena.h"
#include "util/thread.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"

/** the query packets, fixed stride */
#define QSTRIDE 64
/** pre-parsed queries for the answer-only figure */
#define NPARSED 4096

static struct mcache *cache;
static uint8_t *queries;
static size_t *qlens;
static size_t nentries = 100000;
static struct fast_query *parsed;
static uint8_t (*parsed_pkt)[QSTRIDE];
static atomic_int go, stop;
/** the clock the bench runs at */
static time_t bench_now = 1000000;

/** per-thread result, on its own line */
struct result {
	/** answers */
	long n;
	/** mode: 0 parse+answer, 1 answer only */
	int mode;
	/** thread number */
	int id;
	/** errors */
	long err;
	/** CPU seconds the thread used while answering */
	double cpu;
	/** pad */
	char pad[32];
} __attribute__((aligned(64)));

static double
now_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/** @return CPU seconds used by the calling thread */
static double
cpu_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static size_t
build_query(uint8_t *buf, size_t i)
{
	struct dns_builder b;
	uint8_t nm[DNS_MAX_NAME];
	char s[64];
	size_t len = sizeof(nm);
	snprintf(s, sizeof(s), "Host%zu.Example.COM", i);
	if(dname_from_str(s, nm, &len) != 0)
		abort();
	dns_build_init(&b, buf, QSTRIDE, 0);
	dns_build_header(&b, (uint16_t)i, DNS_FLAG_RD);
	dns_build_question(&b, nm, DNS_TYPE_A, DNS_CLASS_IN);
	dns_build_opt(&b, 1232, 0, 0, NULL, 0);
	return dns_build_finish(&b);
}

static int
fill(void)
{
	size_t i;
	uint8_t reply[512];
	static const uint8_t a1[4] = {192, 0, 2, 1}, a2[4] = {192, 0, 2, 2};
	queries = malloc(nentries * QSTRIDE);
	qlens = malloc(nentries * sizeof(*qlens));
	if(!queries || !qlens)
		return -1;
	for(i = 0; i < nentries; i++) {
		struct dns_builder b;
		struct fast_query fq;
		char s[64];
		uint8_t nm[DNS_MAX_NAME];
		size_t len = sizeof(nm);
		qlens[i] = build_query(queries + i * QSTRIDE, i);
		if(dns_query_parse_fast(queries + i * QSTRIDE, qlens[i],
			&fq) != 0)
			return -1;
		snprintf(s, sizeof(s), "host%zu.example.com", i);
		dname_from_str(s, nm, &len);
		dns_build_init(&b, reply, sizeof(reply), 0);
		dns_build_header(&b, 0, DNS_FLAG_QR | DNS_FLAG_AA);
		dns_build_question(&b, nm, DNS_TYPE_A, DNS_CLASS_IN);
		dns_build_rr(&b, 0, nm, DNS_TYPE_A, DNS_CLASS_IN, 3600, a1, 4);
		dns_build_rr(&b, 0, nm, DNS_TYPE_A, DNS_CLASS_IN, 3600, a2, 4);
		len = dns_build_finish(&b);
		if(mcache_store(cache, &fq.qinfo, 0, 0, reply, len, bench_now,
			MCACHE_SEC_UNCHECKED, -1) != MCACHE_STORED)
			return -1;
	}
	parsed = malloc(NPARSED * sizeof(*parsed));
	parsed_pkt = malloc(NPARSED * sizeof(*parsed_pkt));
	if(!parsed || !parsed_pkt)
		return -1;
	for(i = 0; i < NPARSED; i++) {
		size_t k = (i * 7919) % nentries;
		memcpy(parsed_pkt[i], queries + k * QSTRIDE, QSTRIDE);
		if(dns_query_parse_fast(parsed_pkt[i], qlens[k], &parsed[i]))
			return -1;
	}
	return 0;
}

static void *
worker(void *arg)
{
	struct result *r = arg;
	struct qsbr_reader *q = qsbr_register();
	uint8_t out[1500];
	struct fast_query fq;
	uint32_t x = 2463534242u + (uint32_t)r->id * 7919u;
	long n = 0, err = 0;
	time_t now = bench_now + 10;
	double c0;
	if(!q)
		return NULL;
	while(!atomic_load_explicit(&go, memory_order_acquire))
		;
	c0 = cpu_sec();
	while(!atomic_load_explicit(&stop, memory_order_relaxed)) {
		int k;
		for(k = 0; k < 64; k++) {
			size_t outlen;
			x ^= x << 13; x ^= x >> 17; x ^= x << 5;
			if(r->mode == 0) {
				size_t i = x % nentries;
				if(dns_query_parse_fast(queries + i * QSTRIDE,
					qlens[i], &fq) != 0 ||
					mcache_answer(cache, &fq, queries +
					i * QSTRIDE, 0, now, out, sizeof(out),
					&outlen, NULL) != MCACHE_HIT)
					err++;
			} else {
				size_t i = x % NPARSED;
				if(mcache_answer(cache, &parsed[i],
					parsed_pkt[i], 0, now, out, sizeof(out),
					&outlen, NULL) != MCACHE_HIT)
					err++;
			}
		}
		n += 64;
		qsbr_quiescent(q);
	}
	r->cpu = cpu_sec() - c0;
	r->n = n;
	r->err = err;
	qsbr_unregister(q);
	return NULL;
}

/**
 * Run nthreads answering threads for secs seconds.
 * @param cpu_ns: out: CPU nanoseconds per answer (all threads' CPU time
 *	over all answers): the cost, independent of what else runs.
 * @return answers per second (wall clock).
 */
static double
run(int nthreads, int mode, double secs, double *cpu_ns)
{
	thread_type th[16];
	static struct result res[16];
	double t0, t1;
	long total = 0, err = 0;
	double cpu = 0;
	int i;
	atomic_store(&go, 0);
	atomic_store(&stop, 0);
	for(i = 0; i < nthreads; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		res[i].id = i;
		res[i].mode = mode;
		if(thread_create(&th[i], worker, &res[i]) != 0) {
			fprintf(stderr, "thread_create failed\n");
			exit(1);
		}
	}
	t0 = now_sec();
	atomic_store_explicit(&go, 1, memory_order_release);
	usleep((useconds_t)(secs * 1e6));
	atomic_store(&stop, 1);
	for(i = 0; i < nthreads; i++)
		thread_join(th[i]);
	t1 = now_sec();
	for(i = 0; i < nthreads; i++) {
		total += res[i].n;
		err += res[i].err;
		cpu += res[i].cpu;
	}
	*cpu_ns = total ? cpu * 1e9 / (double)total : 0;
	if(err) {
		fprintf(stderr, "error: %ld answers were not hits\n", err);
		exit(1);
	}
	return (double)total / (t1 - t0);
}

int
main(int argc, char *argv[])
{
	struct mcache_params p;
	double secs = 2.0, base[2] = {0, 0}, base_cpu[2] = {0, 0};
	const char *tlist = "1,2";
	int c, mode, only = -1, shared = 0;
	while((c = getopt(argc, argv, "n:d:t:m:s")) != -1) {
		switch(c) {
		case 's': shared = 1; break;
		case 'm': only = atoi(optarg); break;
		case 'n': nentries = (size_t)atol(optarg); break;
		case 'd': secs = atof(optarg); break;
		case 't': tlist = optarg; break;
		default:
			fprintf(stderr, "usage: cachebench [-n entries] "
				"[-d seconds] [-t 1,2,...] [-m 0|1] [-s]\n");
			return 1;
		}
	}
	if(!thread_have_threads()) {
		fprintf(stderr, "cachebench needs threads\n");
		return 1;
	}
	mcache_params_default(&p);
	p.maxmem = 256u << 20;
	p.slabs = 16;
	if(shared) {
		void *shm = shmarena_map_create(65536 +
			mcache_shared_space(&p));
		uint64_t off = shm ? mcache_shared_init(shm, &p) : 0;
		cache = off ? mcache_create_shared(&p, shm, off) : NULL;
	} else
		cache = mcache_create(&p);
	if(!cache || fill() != 0) {
		fprintf(stderr, "fill failed\n");
		return 1;
	}
	printf("message cache%s: %zu entries, %zu bytes (%.0f B/entry), "
		"%zu slabs\n", shared ? " (shared table)" : "",
		mcache_get_count(cache), mcache_get_mem(cache),
		(double)mcache_get_mem(cache) / (double)mcache_get_count(cache),
		p.slabs);
	for(mode = 0; mode < 2; mode++) {
		const char *t = tlist;
		if(only >= 0 && mode != only)
			continue;
		while(*t) {
			int n = atoi(t);
			double rate, cpu_ns;
			if(n < 1 || n > 16)
				break;
			rate = run(n, mode, secs, &cpu_ns);
			if(n == 1) {
				base[mode] = rate;
				base_cpu[mode] = cpu_ns;
			}
			printf("%-13s threads=%d %10.0f hits/s  %6.1f ns "
				"wall/hit/thread  %6.1f ns CPU/hit",
				mode == 0 ? "parse+answer" : "answer-only", n,
				rate, 1e9 * n / rate, cpu_ns);
			if(n > 1 && base[mode] > 0)
				printf("  scaling %.2fx (CPU-cost scaling "
					"%.2fx)", rate / base[mode],
					n * base_cpu[mode] / cpu_ns);
			printf("\n");
			fflush(stdout);
			while(*t && *t != ',')
				t++;
			if(*t == ',')
				t++;
		}
	}
	mcache_delete(cache);
	free(queries);
	free(qlens);
	free(parsed);
	free(parsed_pkt);
	return 0;
}
