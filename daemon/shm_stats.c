/*
 * daemon/shm_stats.c - shm-enable: the statistics in System V shared
 * memory for unbound-control stats_shm (see shm_stats.h).
 *
 * The word places below were read off Debian's unbound-control 1.17 with
 * a probe that filled every word of both segments with its own number
 * and noted which number each printed field showed. unbound-control
 * computes num.cachehits (queries - cachemiss), requestlist.avg (word 4 /
 * (cachemiss + prefetch)) and recursion.time.avg (the wait sum of words
 * 655-656 / word 654) itself, so those words are written such that its
 * arithmetic gives petrel's values.
 */
#include "config.h"
#include "daemon/shm_stats.h"
#include "daemon/daemon.h"
#include "daemon/remote.h"
#include "daemon/remote_worker.h"
#include "daemon/stats.h"
#include "util/config_file.h"
#include "util/histogram.h"
#include "util/log.h"
#include "util/netevent/netevent.h"
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/shm.h>

/** the segments and their timer (owned by struct daemon) */
struct shm_stats {
	/** shmget ids (-1: none) */
	int id_main, id_threads;
	/** attached addresses */
	void *main, *threads;
	/** workers the second segment has room for */
	int n;
	/** writes the segments */
	struct comm_timer *timer;
	/** the daemon (its workers, config and base) */
	struct daemon *d;
};

/* words of struct ub_stats_info (Unbound 1.17) */
enum {
	W_QUERIES = 0, W_IP_RATELIMITED = 1, W_CACHEMISS = 2, W_PREFETCH = 3,
	W_REQLIST_SUM = 4, W_REQLIST_MAX = 5, W_EXTENDED = 6, W_QTYPE = 7,
	W_QTYPE_BIG = 263, W_QCLASS = 264, W_QCLASS_BIG = 520,
	W_QOPCODE = 521, W_QTCP = 537, W_QTCPOUT = 538, W_QUDPOUT = 539,
	W_QTLS = 540, W_QHTTPS = 541, W_QIPV6 = 542, W_QFLAGS = 543,
	W_EDNS = 551, W_EDNS_DO = 552, W_RCODE = 553, W_NODATA = 569,
	W_SECURE = 570, W_BOGUS = 571, W_RRSET_BOGUS = 572,
	W_RATELIMITED = 573, W_UNWANTED_REPLIES = 574,
	W_UNWANTED_QUERIES = 575, W_TCPUSAGE = 576, W_EXPIRED = 577,
	W_HIST = 578, W_MSG_COUNT = 618, W_RRSET_COUNT = 619,
	W_INFRA_COUNT = 620, W_KEY_COUNT = 621, W_SUBNET = 634,
	W_SUBNET_CACHE = 635, W_TLS_RESUME = 639, W_REQ_CURRENT = 650,
	W_REQ_USER = 651, W_JOSTLED = 652, W_DROPPED = 653,
	W_REPLIES = 654, W_WAIT_SEC = 655, W_WAIT_USEC = 656,
	W_MEDIAN = 657
};

/* words of struct ub_shm_stat_info: word 0 is the int num_threads */
enum {
	M_NOW = 1, M_UP = 3, M_ELAPSED = 5, M_MEM_MSG = 7, M_MEM_RRSET = 8
};

/** a time in seconds as a struct timeval's two words */
static void
put_tv(uint64_t *w, double t)
{
	uint64_t us = t > 0 ? (uint64_t)(t * 1e6 + 0.5) : 0;
	w[0] = us / 1000000;
	w[1] = us % 1000000;
}

/** a run of n 64-bit counters of struct stats_info (at off) that
 * ub_stats_info holds in n words from word on */
struct shm_run {
	/** the first word */
	int word;
	/** the counters */
	int n;
	/** offsetof in struct stats_info */
	size_t off;
};

/** a run of n counters at member m of struct stats_info, from word w */
#define RUN(w, n, m) { (w), (n), offsetof(struct stats_info, m) }
/** one counter */
#define ONE(w, m) RUN(w, 1, m)

/** the words copied as they are; the per-type and per-class counters
 * end in the one for types past 255 (W_QTYPE_BIG, W_QCLASS_BIG), the
 * rcodes in NODATA (W_NODATA), as petrel's arrays do */
static const struct shm_run shm_runs[] = {
	ONE(W_QUERIES, r.num_queries), ONE(W_CACHEMISS, r.num_cache_miss),
	ONE(W_IP_RATELIMITED, r.num_ip_ratelimited),
	ONE(W_PREFETCH, r.num_prefetch), ONE(W_REQLIST_MAX, r.reqlist_max),
	RUN(W_QTYPE, W_QTYPE_BIG - W_QTYPE + 1, r.qtype),
	RUN(W_QCLASS, W_QCLASS_BIG - W_QCLASS + 1, r.qclass),
	RUN(W_QOPCODE, 16, r.qopcode), ONE(W_QTCP, s.num_tcp),
	ONE(W_QTCPOUT, s.num_tcpout), ONE(W_QUDPOUT, s.num_udpout),
	ONE(W_QTLS, s.num_tls), ONE(W_QHTTPS, s.num_https),
	ONE(W_QIPV6, r.qipv6), RUN(W_QFLAGS, 8, r.qflags),
	ONE(W_EDNS, r.qedns), ONE(W_EDNS_DO, r.qedns_do),
	RUN(W_RCODE, W_NODATA - W_RCODE + 1, r.ans_rcode),
	ONE(W_SECURE, r.num_answer_secure), ONE(W_BOGUS, r.num_answer_bogus),
	ONE(W_RRSET_BOGUS, r.num_rrset_bogus),
	ONE(W_RATELIMITED, r.num_ratelimited),
	ONE(W_UNWANTED_REPLIES, s.num_unwanted_replies),
	ONE(W_UNWANTED_QUERIES, r.num_acl_denied),
	ONE(W_TCPUSAGE, tcp_usage), ONE(W_EXPIRED, r.num_expired),
	RUN(W_HIST, W_MSG_COUNT - W_HIST, r.rec_hist),
	ONE(W_SUBNET, r.num_subnet), ONE(W_SUBNET_CACHE, r.num_subnet_cache),
	ONE(W_TLS_RESUME, s.num_tls_resume),
	ONE(W_REQ_CURRENT, reqlist_current), ONE(W_REQ_USER, reqlist_user),
	ONE(W_JOSTLED, r.num_jostled), ONE(W_DROPPED, r.num_dropped),
	ONE(W_REPLIES, r.num_recursive_replies)
};

/* the runs hold what petrel counts, no more */
_Static_assert(W_QTYPE_BIG - W_QTYPE == RESOLVER_STATS_QTYPES,
	"ub_stats_info's qtype words are petrel's qtype counters");
_Static_assert(W_QCLASS_BIG - W_QCLASS == RESOLVER_STATS_QTYPES,
	"ub_stats_info's qclass words are petrel's qclass counters");
_Static_assert(W_NODATA - W_RCODE + 1 == 17,
	"ub_stats_info's rcode words are petrel's ans_rcode counters");
_Static_assert(W_MSG_COUNT - W_HIST == HIST_BUCKETS,
	"ub_stats_info's histogram has petrel's buckets");

/** one ub_stats_info block from one worker's (or the total) counters */
static void
fill_thread(uint64_t *w, const struct stats_info *s,
	const struct stats_globals *g)
{
	const struct resolver_stats *r = &s->r;
	uint64_t nrec = hist_count(r->rec_hist);
	uint64_t misses = r->num_cache_miss + r->num_prefetch;
	double median;
	size_t i;
	memset(w, 0, SHM_STATS_THREAD_WORDS * sizeof(*w));
	for(i = 0; i < sizeof(shm_runs) / sizeof(shm_runs[0]); i++)
		memcpy(&w[shm_runs[i].word], (const char *)s + shm_runs[i].off,
			(size_t)shm_runs[i].n * sizeof(*w));
	/* unbound-control prints word 4 / (cachemiss + prefetch) */
	if(r->reqlist_samples)
		w[W_REQLIST_SUM] = (uint64_t)((double)r->reqlist_sum *
			(double)misses / (double)r->reqlist_samples + 0.5);
	w[W_EXTENDED] = (uint64_t)(g->extended != 0);
	w[W_MSG_COUNT] = g->msg_count;
	w[W_RRSET_COUNT] = g->rrset_count;
	w[W_INFRA_COUNT] = g->infra_count;
	w[W_KEY_COUNT] = g->key_count;
	/* unbound-control prints the wait sum / word 654: scale petrel's
	 * mean recursion time to that many replies */
	if(nrec)
		put_tv(&w[W_WAIT_SEC], (double)r->rec_time_us / (double)nrec /
			1e6 * (double)r->num_recursive_replies);
	median = hist_quantile(r->rec_hist, 0.5);
	memcpy(&w[W_MEDIAN], &median, sizeof(median));
}

void
shm_stats_fill(void *main, void *threads, const struct stats_info *info,
	int n, int room, const struct stats_globals *g)
{
	uint64_t *m = main, *t = threads;
	struct stats_info tot;
	int i, nthreads = n;
	memset(&tot, 0, sizeof(tot));
	for(i = 0; i < n; i++) {
		stats_add(&tot, &info[i]);
		if(i < room)
			fill_thread(t + (size_t)(i + 1) *
				SHM_STATS_THREAD_WORDS, &info[i], g);
	}
	fill_thread(t, &tot, g);
	memset(m, 0, SHM_STATS_MAIN_WORDS * sizeof(*m));
	memcpy(m, &nthreads, sizeof(nthreads));
	put_tv(&m[M_NOW], g->now);
	put_tv(&m[M_UP], g->up);
	put_tv(&m[M_ELAPSED], g->elapsed);
	m[M_MEM_MSG] = g->mem_msg;
	m[M_MEM_RRSET] = g->mem_rrset;
}

/** gather the counters (as stats_noreset) and write both segments */
static void
shm_stats_write(struct shm_stats *sh)
{
	struct daemon *d = sh->d;
	/* a reload may have changed num-threads: the segment keeps the
	 * room it was made with, the total counts every worker */
	struct stats_info *info = calloc((size_t)d->num_workers + 1,
		sizeof(*info));
	struct stats_globals g;
	if(!info)
		return;
	if(remote_gather_stats(d, STATS_GET_NORESET, info, &g) == 0)
		shm_stats_fill(sh->main, sh->threads, info, d->num_workers,
			sh->n, &g);
	free(info);
}

/** the timer: write, and set it again */
static void
shm_timer_cb(void *arg)
{
	struct shm_stats *sh = arg;
	int sec = sh->d->cfg->statistics_interval;
	shm_stats_write(sh);
	comm_timer_set(sh->timer, (sec > 0 ? sec : 1) * 1000);
}

/** get, create or refuse one segment; @return its id, -1 (logged) */
static int
shm_get(int key, size_t size)
{
	int id = shmget((key_t)key, size, IPC_CREAT | 0644);
	if(id == -1)
		log_err("shm-enable: cannot create the shared memory segment "
			"with key %d (%zu bytes): %s; no statistics in shared "
			"memory", key, size, strerror(errno));
	return id;
}

int
shm_stats_start(struct daemon *d)
{
	struct shm_stats *sh;
	int key = d->cfg->shm_key;
	if(!d->cfg->shm_enable || d->shm)
		return 0;
	if(!(sh = calloc(1, sizeof(*sh)))) {
		log_err("out of memory");
		return -1;
	}
	sh->d = d;
	sh->n = d->num_workers;
	sh->id_threads = -1;
	sh->main = sh->threads = NULL;
	sh->id_main = shm_get(key, SHM_STATS_MAIN_WORDS * sizeof(uint64_t));
	if(sh->id_main == -1)
		goto fail;
	sh->id_threads = shm_get(key + 1, (size_t)(sh->n + 1) *
		SHM_STATS_THREAD_WORDS * sizeof(uint64_t));
	if(sh->id_threads == -1)
		goto fail;
	sh->main = shmat(sh->id_main, NULL, 0);
	if(sh->main == (void *)-1) {
		sh->main = NULL;
		log_err("shm-enable: cannot attach the segment with key %d: "
			"%s; no statistics in shared memory", key,
			strerror(errno));
		goto fail;
	}
	sh->threads = shmat(sh->id_threads, NULL, 0);
	if(sh->threads == (void *)-1) {
		sh->threads = NULL;
		log_err("shm-enable: cannot attach the segment with key %d: "
			"%s; no statistics in shared memory", key + 1,
			strerror(errno));
		goto fail;
	}
	sh->timer = comm_timer_create(d->base, shm_timer_cb, sh);
	if(!sh->timer) {
		log_err("shm-enable: cannot create its timer; no statistics in "
			"shared memory");
		goto fail;
	}
	/* the first write after the workers started */
	comm_timer_set(sh->timer, 0);
	d->shm = sh;
	verbose(VERB_OPS, "statistics in shared memory, keys %d and %d", key,
		key + 1);
	return 0;
fail:
	d->shm = sh;
	shm_stats_stop(d);
	return 0;
}

void
shm_stats_stop(struct daemon *d)
{
	struct shm_stats *sh = d->shm;
	if(!sh)
		return;
	comm_timer_delete(sh->timer);
	if(sh->main)
		shmdt(sh->main);
	if(sh->threads)
		shmdt(sh->threads);
	/* a forked worker leaves the supervisor's segments alone */
	if(sh->id_main != -1 && !d->is_child)
		shmctl(sh->id_main, IPC_RMID, NULL);
	if(sh->id_threads != -1 && !d->is_child)
		shmctl(sh->id_threads, IPC_RMID, NULL);
	free(sh);
	d->shm = NULL;
}
