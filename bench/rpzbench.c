/*
 * bench/rpzbench.c - what a big QNAME response policy zone costs.
 *
 * 1. Writes an RPZ zone file of N rules (default 1 000 000: 90% "name CNAME
 *    .", 5% wildcards "*.name CNAME *.", 5% local data "name A addr"),
 *    then loads it the way the daemon does (config text with an rpz:
 *    clause -> policy_apply_cfg) and prints the load time and the resident
 *    memory it added (from /proc/self/statm).
 * 2. The cached-answer path of the front end, whole, as the worker runs it
 *    for a UDP batch of 64: resolver_prefetch (parse; message cache and
 *    RPZ prefetch) then resolver_handle_peeked (access control, local
 *    zones, policy, message cache hit, answer written) for queries that
 *    no rule matches (the common case),
 *    with no policy and with the big RPZ, in alternating rounds on the same
 *    resolver and the same cache; prints CPU nanoseconds per answer of the
 *    best round of each and their ratio. With -i 1 it does a fixed number
 *    of answers per mode (no clock), for a callgrind instruction count:
 *      valgrind --tool=callgrind --toggle-collect=bench_mode_off
 *      (see bench/rpz, which runs both).
 *
 * The syscalls of a real server (recvmmsg/sendmmsg, about a microsecond
 * per answer here) are not in this figure, so the ratio is an upper bound
 * of what the policy adds to a cached answer's server CPU.
 *
 * usage: rpzbench [-n rules] [-q cached names] [-r rounds] [-a answers per
 *	round] [-i 0|1] [-k] (keep the zone file) [-d dir]
 */
#include "config.h"
#include "front/resolver.h"
#include "services/outbound.h"
#include "front/modstack.h"
#include "front/localzone.h"
#include "front/policy.h"
#include "services/cache/msgcache.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/storage/qsbr.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/** the query packets, fixed stride */
#define QSTRIDE 64

/** @return CPU seconds of the process */
static double
cpu_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/** @return wall seconds */
static double
wall_sec(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/** @return resident bytes of this process */
static long
rss_bytes(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");
	if(!f)
		return 0;
	if(fscanf(f, "%ld %ld", &pages, &res) != 2)
		res = 0;
	fclose(f);
	return res * sysconf(_SC_PAGESIZE);
}

/** write the zone file */
static int
write_zone(const char *file, long n)
{
	FILE *f = fopen(file, "w");
	long i;
	if(!f)
		return -1;
	fprintf(f, "$TTL 300\n@ SOA localhost. root.localhost. 1 3600 600 "
		"86400 60\n@ NS localhost.\n");
	for(i = 0; i < n; i++) {
		if(i % 20 == 7)
			fprintf(f, "*.ads%ld.tracker%ld.net CNAME *.\n", i,
				i % 997);
		else if(i % 20 == 13)
			fprintf(f, "host%ld.block%ld.org A 192.0.2.%ld\n", i,
				i % 991, i % 250 + 1);
		else
			fprintf(f, "bad%ld.domain%ld.com CNAME .\n", i,
				i % 1009);
	}
	return fclose(f);
}

/** no network in this bench: the cache answers everything */
static struct outbound_query *
no_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	(void)ctx; (void)to; (void)qname; (void)qname_len; (void)qtype;
	(void)qclass; (void)flags; (void)timeout_ms; (void)cb; (void)cb_arg;
	(void)opts; (void)optlen;
	return NULL;
}
static void no_cancel(void *ctx, struct outbound_query *q)
{ (void)ctx; (void)q; }
static void *no_timer(void *ctx, int ms, void (*fn)(void *), void *arg)
{ (void)ctx; (void)ms; (void)fn; (void)arg; return NULL; }
static void no_timer_cancel(void *ctx, void *t) { (void)ctx; (void)t; }
static void no_reply(void *arg, const struct resolver_handle *h,
	const uint8_t *pkt, size_t len)
{ (void)arg; (void)h; (void)pkt; (void)len; }

/** a query and the cache entry that answers it */
static size_t
make_query(struct mcache *mc, uint8_t *buf, size_t i, time_t now)
{
	struct dns_builder b;
	struct fast_query fq;
	uint8_t nm[DNS_MAX_NAME], reply[512];
	static const uint8_t a[4] = { 198, 51, 100, 1 };
	char s[64];
	size_t len = sizeof(nm), ql;
	snprintf(s, sizeof(s), "www%zu.site%zu.example.com", i, i % 101);
	if(dname_from_str(s, nm, &len) != 0)
		abort();
	dns_build_init(&b, buf, QSTRIDE, 0);
	dns_build_header(&b, (uint16_t)i, DNS_FLAG_RD);
	dns_build_question(&b, nm, DNS_TYPE_A, DNS_CLASS_IN);
	dns_build_opt(&b, 1232, 0, 0, NULL, 0);
	ql = dns_build_finish(&b);
	if(dns_query_parse_fast(buf, ql, &fq) != 0)
		abort();
	dns_build_init(&b, reply, sizeof(reply), 0);
	dns_build_header(&b, 0, DNS_FLAG_QR | DNS_FLAG_AA);
	dns_build_question(&b, nm, DNS_TYPE_A, DNS_CLASS_IN);
	dns_build_rr(&b, 0, nm, DNS_TYPE_A, DNS_CLASS_IN, 3600, a, 4);
	len = dns_build_finish(&b);
	if(mcache_store(mc, &fq.qinfo, 0, 0, reply, len, now,
		MCACHE_SEC_UNCHECKED, -1) != MCACHE_STORED)
		abort();
	return ql;
}

/** answers per receive batch, as the worker's UDP path */
#define BATCH 64

/** one round of answers, in batches of BATCH as the worker answers a
 * recvmmsg batch (resolver_prefetch stages 0 and 1 for the batch, then
 * resolver_handle_peeked for each); @return CPU ns per answer */
static double
round_of(struct resolver *res, const uint8_t *queries, const size_t *qlens,
	size_t nq, long answers, long *errors)
{
	static struct resolver_peek pk[BATCH];
	struct netaddr client;
	uint8_t out[1500];
	size_t idx[BATCH];
	uint32_t x = 2463534242u;
	double c0 = cpu_sec();
	long k;
	int j, st;
	(void)netaddr_parse("127.0.0.1", 53, &client, NULL);
	for(k = 0; k < answers; k += BATCH) {
		for(j = 0; j < BATCH; j++) {
			x ^= x << 13; x ^= x >> 17; x ^= x << 5;
			idx[j] = x % nq;
		}
		for(st = 0; st < 2; st++)
			for(j = 0; j < BATCH; j++)
				resolver_prefetch(res, queries + idx[j] *
					QSTRIDE, qlens[idx[j]], &pk[j], st);
		for(j = 0; j < BATCH; j++) {
			size_t outlen = 0;
			if(resolver_handle_peeked(res, queries + idx[j] *
				QSTRIDE, qlens[idx[j]], &pk[j], &client,
				RESOLVER_UDP, NULL, out, sizeof(out), &outlen)
				!= RESOLVER_ANSWERED)
				(*errors)++;
		}
	}
	return (cpu_sec() - c0) * 1e9 / (double)answers;
}

/** a function to toggle callgrind's collection on (the policy mode) */
__attribute__((noinline)) static double
bench_mode_on(struct resolver *res, const uint8_t *q, const size_t *ql,
	size_t nq, long answers, long *errors)
{
	return round_of(res, q, ql, nq, answers, errors);
}

/** the same for the mode without policy */
__attribute__((noinline)) static double
bench_mode_off(struct resolver *res, const uint8_t *q, const size_t *ql,
	size_t nq, long answers, long *errors)
{
	return round_of(res, q, ql, nq, answers, errors);
}

int
main(int argc, char *argv[])
{
	long nrules = 1000000, answers = 2000000, errors = 0, rss0, rss1;
	size_t nq = 100000, i;
	int rounds = 5, instr = 0, keep = 0, c, r;
	const char *dir = "/tmp";
	char zfile[512], conf[1024], err[512];
	struct config_file *cfg;
	struct policy *pol = NULL;
	struct module_stack mods;
	struct mcache_params mp;
	struct mcache *mc;
	struct local_zones *lz;
	struct outbound out;
	struct timeval now;
	struct petrel_random *rnd;
	struct resolver *res;
	uint8_t *queries;
	size_t *qlens;
	double t0, best_off = 1e18, best_on = 1e18;

	while((c = getopt(argc, argv, "n:q:r:a:i:kd:")) != -1) {
		switch(c) {
		case 'n': nrules = atol(optarg); break;
		case 'q': nq = (size_t)atol(optarg); break;
		case 'r': rounds = atoi(optarg); break;
		case 'a': answers = atol(optarg); break;
		case 'i': instr = atoi(optarg); break;
		case 'k': keep = 1; break;
		case 'd': dir = optarg; break;
		default:
			fprintf(stderr, "usage: rpzbench [-n rules] [-q names] "
				"[-r rounds] [-a answers] [-i 0|1] [-k] "
				"[-d dir]\n");
			return 1;
		}
	}
	snprintf(zfile, sizeof(zfile), "%s/rpzbench-%ld.zone", dir, nrules);
	if(access(zfile, R_OK) != 0 && write_zone(zfile, nrules) != 0) {
		fprintf(stderr, "cannot write %s\n", zfile);
		return 1;
	}
	/* 1. load time and memory */
	cfg = config_create();
	snprintf(conf, sizeof(conf), "rpz:\n\tname: rpz.bench.\n\tzonefile: "
		"\"%s\"\n", zfile);
	if(!cfg || config_read_mem(cfg, "rpzbench.conf", conf, strlen(conf),
		err, sizeof(err)) != 0) {
		fprintf(stderr, "config: %s\n", err);
		return 1;
	}
	rss0 = rss_bytes();
	t0 = wall_sec();
	if(policy_apply_cfg(&pol, cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "load: %s\n", err);
		return 1;
	}
	t0 = wall_sec() - t0;
	rss1 = rss_bytes();
	printf("rules %ld: load %.2f s, memory %.1f MB (resident added)\n",
		nrules, t0, (double)(rss1 - rss0) / 1048576.0);
	if(!keep)
		unlink(zfile);

	/* 2. the cached-answer path with and without the policy */
	memset(&mods, 0, sizeof(mods));
	if(modstack_setup(&mods, "iterator", NULL, cfg, err, sizeof(err))
		!= 0) {
		fprintf(stderr, "modules: %s\n", err);
		return 1;
	}
	mcache_params_default(&mp);
	mc = mcache_create(&mp);
	lz = local_zones_create();
	if(!mc || !lz || local_zones_apply_cfg(lz, cfg, err, sizeof(err))
		!= 0) {
		fprintf(stderr, "setup: %s\n", err);
		return 1;
	}
	now.tv_sec = 1000000;
	now.tv_usec = 0;
	memset(&out, 0, sizeof(out));
	out.send = no_send;
	out.cancel = no_cancel;
	out.timer_set = no_timer;
	out.timer_cancel = no_timer_cancel;
	out.now = &now;
	rnd = random_create_seeded(1);
	res = resolver_create(cfg, &mods, &out, rnd, no_reply, NULL);
	queries = malloc(nq * QSTRIDE);
	qlens = malloc(nq * sizeof(*qlens));
	if(!rnd || !res || !queries || !qlens) {
		fprintf(stderr, "out of memory\n");
		return 1;
	}
	resolver_set_env(res, mc, NULL, NULL, lz, NULL);
	for(i = 0; i < nq; i++)
		qlens[i] = make_query(mc, queries + i * QSTRIDE, i, now.tv_sec);
	now.tv_sec += 5;
	if(instr) {
		/* fixed work, for instruction counts: answers per mode */
		resolver_set_policy(res, NULL);
		(void)bench_mode_off(res, queries, qlens, nq, answers,
			&errors);
		resolver_set_policy(res, pol);
		(void)bench_mode_on(res, queries, qlens, nq, answers, &errors);
		printf("instruction mode: %ld answers per mode, %ld not "
			"answered from the cache\n", answers, errors);
	} else {
		for(r = 0; r < rounds; r++) {
			double a, b;
			resolver_set_policy(res, NULL);
			a = bench_mode_off(res, queries, qlens, nq, answers,
				&errors);
			resolver_set_policy(res, pol);
			b = bench_mode_on(res, queries, qlens, nq, answers,
				&errors);
			if(a < best_off)
				best_off = a;
			if(b < best_on)
				best_on = b;
		}
		printf("cached answer, front end CPU (best of %d rounds of %ld "
			"answers, %zu names): no policy %.1f ns, with the %ld-"
			"rule RPZ %.1f ns, ratio %.3f (+%.1f%%)%s\n", rounds,
			answers, nq, best_off, nrules, best_on,
			best_on / best_off, (best_on / best_off - 1) * 100,
			errors ? " (ERRORS: some not from the cache)" : "");
	}
	resolver_set_policy(res, NULL);
	resolver_delete(res);
	policy_delete(pol);
	local_zones_delete(lz);
	mcache_delete(mc);
	modstack_desetup(&mods);
	random_delete(rnd);
	config_delete(cfg);
	free(queries);
	free(qlens);
	return errors ? 1 : 0;
}
