/*
 * daemon/stats.c - statistics collection and printing. See stats.h.
 */
#include "config.h"
#include "daemon/stats.h"
#include "dns/dns.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** make room for need more bytes (and a NUL) */
static int
buf_reserve(struct stats_buf *b, size_t need)
{
	size_t ncap;
	char *n;
	if(b->oom)
		return -1;
	if(b->len + need + 1 <= b->cap)
		return 0;
	ncap = b->cap ? b->cap : 1024;
	while(ncap < b->len + need + 1)
		ncap *= 2;
	n = realloc(b->data, ncap);
	if(!n) {
		b->oom = 1;
		return -1;
	}
	b->data = n;
	b->cap = ncap;
	return 0;
}

void
stats_buf_append(struct stats_buf *b, const void *data, size_t len)
{
	if(buf_reserve(b, len) != 0)
		return;
	memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = 0;
}

void
stats_buf_printf(struct stats_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;
	char small[256];
	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if(n < 0)
		return;
	if((size_t)n < sizeof(small)) {
		stats_buf_append(b, small, (size_t)n);
		return;
	}
	if(buf_reserve(b, (size_t)n) != 0)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void
stats_buf_free(struct stats_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

void
stats_add_resolver(struct resolver_stats *a, const struct resolver_stats *b)
{
	/* every member is a uint64_t counter, except reqlist_max */
	uint64_t *x = (uint64_t *)a;
	const uint64_t *y = (const uint64_t *)b;
	uint64_t max = a->reqlist_max > b->reqlist_max ? a->reqlist_max :
		b->reqlist_max;
	size_t i, n = offsetof(struct resolver_stats, reqlist_max) /
		sizeof(uint64_t);
	for(i = 0; i < n; i++)
		x[i] += y[i];
	a->reqlist_max = max;
}

void
stats_add(struct stats_info *a, const struct stats_info *b)
{
	a->s.num_queries += b->s.num_queries;
	a->s.num_cachehits += b->s.num_cachehits;
	a->s.num_cachemiss += b->s.num_cachemiss;
	a->s.num_local += b->s.num_local;
	a->s.num_prefetch += b->s.num_prefetch;
	a->s.num_expired += b->s.num_expired;
	a->s.num_recursivereplies += b->s.num_recursivereplies;
	a->s.num_tcp += b->s.num_tcp;
	a->s.num_malformed += b->s.num_malformed;
	a->s.num_denied += b->s.num_denied;
	a->s.num_dropped += b->s.num_dropped;
	a->s.num_servfail += b->s.num_servfail;
	a->s.num_outgoing += b->s.num_outgoing;
	a->s.num_answer_secure += b->s.num_answer_secure;
	a->s.num_answer_bogus += b->s.num_answer_bogus;
	a->s.num_rrset_bogus += b->s.num_rrset_bogus;
	a->s.udp_batches += b->s.udp_batches;
	if(b->s.elapsed > a->s.elapsed)
		a->s.elapsed = b->s.elapsed;
	stats_add_resolver(&a->r, &b->r);
	a->reqlist_current += b->reqlist_current;
	a->reqlist_user += b->reqlist_user;
}

uint64_t
stats_hist_lower_us(int i)
{
	if(i <= 0)
		return 0;
	return (uint64_t)1 << (i - 1);
}

double
stats_hist_quantile(const uint64_t *hist, double q)
{
	uint64_t total = 0, passed = 0;
	double want;
	int i;
	for(i = 0; i < RESOLVER_STATS_HIST; i++)
		total += hist[i];
	if(total == 0)
		return 0.0;
	want = q * (double)total;
	for(i = 0; i < RESOLVER_STATS_HIST; i++) {
		if(hist[i] > 0 && (double)(passed + hist[i]) >= want) {
			double lo = (double)stats_hist_lower_us(i);
			double hi = (double)stats_hist_lower_us(i + 1);
			double frac = (want - (double)passed) / (double)hist[i];
			return (lo + frac * (hi - lo)) / 1e6;
		}
		passed += hist[i];
	}
	return (double)stats_hist_lower_us(RESOLVER_STATS_HIST) / 1e6;
}

/** answers counted in the histogram */
static uint64_t
hist_count(const uint64_t *hist)
{
	uint64_t n = 0;
	int i;
	for(i = 0; i < RESOLVER_STATS_HIST; i++)
		n += hist[i];
	return n;
}

/** the lines for one thread or the total */
static void
print_one(struct stats_buf *out, const char *pfx, const struct stats_info *s)
{
	uint64_t nrec = hist_count(s->r.rec_hist);
	stats_buf_printf(out, "%s.num.queries=%llu\n", pfx,
		(unsigned long long)s->s.num_queries);
	stats_buf_printf(out, "%s.num.queries_ip_ratelimited=0\n", pfx);
	stats_buf_printf(out, "%s.num.cachehits=%llu\n", pfx,
		(unsigned long long)s->s.num_cachehits);
	stats_buf_printf(out, "%s.num.cachemiss=%llu\n", pfx,
		(unsigned long long)s->s.num_cachemiss);
	stats_buf_printf(out, "%s.num.prefetch=%llu\n", pfx,
		(unsigned long long)s->s.num_prefetch);
	stats_buf_printf(out, "%s.num.expired=%llu\n", pfx,
		(unsigned long long)s->s.num_expired);
	stats_buf_printf(out, "%s.num.answer.secure=%llu\n", pfx,
		(unsigned long long)s->s.num_answer_secure);
	stats_buf_printf(out, "%s.num.answer.bogus=%llu\n", pfx,
		(unsigned long long)s->s.num_answer_bogus);
	stats_buf_printf(out, "%s.num.rrset.bogus=%llu\n", pfx,
		(unsigned long long)s->s.num_rrset_bogus);
	stats_buf_printf(out, "%s.num.recursivereplies=%llu\n", pfx,
		(unsigned long long)s->s.num_recursivereplies);
	stats_buf_printf(out, "%s.requestlist.avg=%g\n", pfx,
		s->r.reqlist_samples ? (double)s->r.reqlist_sum /
		(double)s->r.reqlist_samples : 0.0);
	stats_buf_printf(out, "%s.requestlist.max=%llu\n", pfx,
		(unsigned long long)s->r.reqlist_max);
	stats_buf_printf(out, "%s.requestlist.overwritten=0\n", pfx);
	stats_buf_printf(out, "%s.requestlist.exceeded=%llu\n", pfx,
		(unsigned long long)s->s.num_dropped);
	stats_buf_printf(out, "%s.requestlist.current.all=%llu\n", pfx,
		(unsigned long long)s->reqlist_current);
	stats_buf_printf(out, "%s.requestlist.current.user=%llu\n", pfx,
		(unsigned long long)s->reqlist_user);
	stats_buf_printf(out, "%s.recursion.time.avg=%.6f\n", pfx,
		nrec ? (double)s->r.rec_time_us / (double)nrec / 1e6 : 0.0);
	stats_buf_printf(out, "%s.recursion.time.median=%.6f\n", pfx,
		stats_hist_quantile(s->r.rec_hist, 0.5));
	stats_buf_printf(out, "%s.tcpusage=0\n", pfx);
}

/** opcode names as Unbound prints them */
static const char *
opcode_str(int op, char *buf, size_t len)
{
	static const char *const names[] = { "QUERY", "IQUERY", "STATUS",
		NULL, "NOTIFY", "UPDATE" };
	if(op >= 0 && op < 6 && names[op])
		return names[op];
	snprintf(buf, len, "OPCODE%d", op);
	return buf;
}

/** the flag names, in the order of resolver_stats.qflags */
static const char *const flag_names[8] = { "QR", "AA", "TC", "RD", "RA",
	"Z", "AD", "CD" };

/** rcode names as Unbound prints them */
static const char *
rcode_str(int rc, char *buf, size_t len)
{
	static const char *const names[] = { "NOERROR", "FORMERR", "SERVFAIL",
		"NXDOMAIN", "NOTIMPL", "REFUSED", "YXDOMAIN", "YXRRSET",
		"NXRRSET", "NOTAUTH", "NOTZONE" };
	if(rc >= 0 && rc < 11)
		return names[rc];
	snprintf(buf, len, "RCODE%d", rc);
	return buf;
}

/** class names as Unbound prints them */
static const char *
class_str(int c, char *buf, size_t len)
{
	switch(c) {
	case 1: return "IN";
	case 3: return "CH";
	case 4: return "HS";
	case 254: return "NONE";
	case 255: return "ANY";
	default: break;
	}
	snprintf(buf, len, "CLASS%d", c);
	return buf;
}

/** type name, with Unbound's TYPE%d for unknown ones */
static const char *
type_str(int t, char *buf, size_t len)
{
	return dns_type_str((uint16_t)t, buf, len);
}

void
stats_print(struct stats_buf *out, const struct stats_info *info, int n,
	const struct stats_globals *g)
{
	struct stats_info tot;
	char pfx[32], nb[32];
	int i;
	memset(&tot, 0, sizeof(tot));
	for(i = 0; i < n; i++) {
		snprintf(pfx, sizeof(pfx), "thread%d", i);
		print_one(out, pfx, &info[i]);
		stats_add(&tot, &info[i]);
	}
	print_one(out, "total", &tot);
	stats_buf_printf(out, "time.now=%.6f\n", g->now);
	stats_buf_printf(out, "time.up=%.6f\n", g->up);
	stats_buf_printf(out, "time.elapsed=%.6f\n", g->elapsed);
	stats_buf_printf(out, "mem.cache.rrset=%llu\n",
		(unsigned long long)g->mem_rrset);
	stats_buf_printf(out, "mem.cache.message=%llu\n",
		(unsigned long long)g->mem_msg);
	if(!g->extended)
		return;
	for(i = 0; i < RESOLVER_STATS_HIST; i++) {
		uint64_t lo = stats_hist_lower_us(i);
		uint64_t hi = stats_hist_lower_us(i + 1);
		stats_buf_printf(out, "histogram.%6.6llu.%6.6llu.to."
			"%6.6llu.%6.6llu=%llu\n",
			(unsigned long long)(lo / 1000000),
			(unsigned long long)(lo % 1000000),
			(unsigned long long)(hi / 1000000),
			(unsigned long long)(hi % 1000000),
			(unsigned long long)tot.r.rec_hist[i]);
	}
	for(i = 0; i < RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qtype[i])
			stats_buf_printf(out, "num.query.type.%s=%llu\n",
				type_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qtype[i]);
	if(tot.r.qtype[RESOLVER_STATS_QTYPES])
		stats_buf_printf(out, "num.query.type.other=%llu\n",
			(unsigned long long)tot.r.qtype[RESOLVER_STATS_QTYPES]);
	for(i = 0; i < RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qclass[i])
			stats_buf_printf(out, "num.query.class.%s=%llu\n",
				class_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qclass[i]);
	if(tot.r.qclass[RESOLVER_STATS_QTYPES])
		stats_buf_printf(out, "num.query.class.other=%llu\n",
			(unsigned long long)tot.r.qclass[RESOLVER_STATS_QTYPES]);
	for(i = 0; i < 16; i++)
		if(tot.r.qopcode[i])
			stats_buf_printf(out, "num.query.opcode.%s=%llu\n",
				opcode_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qopcode[i]);
	stats_buf_printf(out, "num.query.tcp=%llu\n",
		(unsigned long long)tot.s.num_tcp);
	stats_buf_printf(out, "num.query.ipv6=%llu\n",
		(unsigned long long)tot.r.qipv6);
	for(i = 0; i < 8; i++)
		stats_buf_printf(out, "num.query.flags.%s=%llu\n",
			flag_names[i], (unsigned long long)tot.r.qflags[i]);
	stats_buf_printf(out, "num.query.edns.present=%llu\n",
		(unsigned long long)tot.r.qedns);
	stats_buf_printf(out, "num.query.edns.DO=%llu\n",
		(unsigned long long)tot.r.qedns_do);
	for(i = 0; i < 16; i++)
		if(i <= 5 || tot.r.ans_rcode[i])
			stats_buf_printf(out, "num.answer.rcode.%s=%llu\n",
				rcode_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.ans_rcode[i]);
	stats_buf_printf(out, "num.answer.rcode.nodata=%llu\n",
		(unsigned long long)tot.r.ans_rcode[16]);
	stats_buf_printf(out, "unwanted.queries=%llu\n",
		(unsigned long long)tot.s.num_denied);
}

/** # HELP and # TYPE lines */
static void
prom_head(struct stats_buf *out, const char *name, const char *type,
	const char *help)
{
	stats_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help,
		name, type);
}

/** a per-thread counter family */
static void
prom_threads(struct stats_buf *out, const struct stats_info *info, int n,
	const char *name, const char *help, size_t off)
{
	int i;
	prom_head(out, name, "counter", help);
	for(i = 0; i < n; i++)
		stats_buf_printf(out, "%s{thread=\"%d\"} %llu\n", name, i,
			(unsigned long long)*(const uint64_t *)(const void *)
			((const char *)&info[i].s + off));
}

void
stats_print_prometheus(struct stats_buf *out, const struct stats_info *info,
	int n, const struct stats_globals *g)
{
	struct stats_info tot;
	char nb[32];
	uint64_t cum = 0;
	int i;
	memset(&tot, 0, sizeof(tot));
	for(i = 0; i < n; i++)
		stats_add(&tot, &info[i]);
#define PT(nm, help, field) prom_threads(out, info, n, nm, help, \
	offsetof(struct worker_stats, field))
	PT("petrel_queries_total", "Client queries received.", num_queries);
	PT("petrel_cache_hits_total", "Queries answered from the cache.",
		num_cachehits);
	PT("petrel_cache_misses_total", "Queries that needed recursion.",
		num_cachemiss);
	PT("petrel_local_answers_total", "Queries answered from local zones.",
		num_local);
	PT("petrel_prefetches_total", "Prefetches started.", num_prefetch);
	PT("petrel_expired_answers_total", "Answers served from expired data.",
		num_expired);
	PT("petrel_recursive_replies_total", "Answers sent after recursion.",
		num_recursivereplies);
	PT("petrel_tcp_queries_total", "Client queries over TCP.", num_tcp);
	PT("petrel_malformed_queries_total", "Malformed client queries.",
		num_malformed);
	PT("petrel_denied_queries_total", "Queries refused or dropped by "
		"access control.", num_denied);
	PT("petrel_dropped_queries_total", "Queries dropped for lack of room.",
		num_dropped);
	PT("petrel_servfail_answers_total", "SERVFAIL answers.", num_servfail);
	PT("petrel_outgoing_queries_total", "Upstream queries sent.",
		num_outgoing);
#undef PT
	prom_head(out, "petrel_requestlist_current", "gauge",
		"Resolutions in flight.");
	for(i = 0; i < n; i++)
		stats_buf_printf(out, "petrel_requestlist_current{thread=\"%d\"}"
			" %llu\n", i, (unsigned long long)info[i].reqlist_current);
	prom_head(out, "petrel_requestlist_max", "gauge",
		"Most resolutions in flight since the last reset.");
	for(i = 0; i < n; i++)
		stats_buf_printf(out, "petrel_requestlist_max{thread=\"%d\"}"
			" %llu\n", i, (unsigned long long)info[i].r.reqlist_max);
	prom_head(out, "petrel_uptime_seconds", "gauge",
		"Seconds since petrel started.");
	stats_buf_printf(out, "petrel_uptime_seconds %.6f\n", g->up);
	prom_head(out, "petrel_memory_cache_bytes", "gauge",
		"Bytes used by the caches.");
	stats_buf_printf(out, "petrel_memory_cache_bytes{cache=\"rrset\"} "
		"%llu\n", (unsigned long long)g->mem_rrset);
	stats_buf_printf(out, "petrel_memory_cache_bytes{cache=\"message\"} "
		"%llu\n", (unsigned long long)g->mem_msg);
	prom_head(out, "petrel_recursion_time_seconds", "histogram",
		"Time from a client query to its answer after recursion.");
	for(i = 0; i < RESOLVER_STATS_HIST - 1; i++) {
		cum += tot.r.rec_hist[i];
		stats_buf_printf(out, "petrel_recursion_time_seconds_bucket"
			"{le=\"%.6f\"} %llu\n",
			(double)stats_hist_lower_us(i + 1) / 1e6,
			(unsigned long long)cum);
	}
	cum += tot.r.rec_hist[RESOLVER_STATS_HIST - 1];
	stats_buf_printf(out, "petrel_recursion_time_seconds_bucket"
		"{le=\"+Inf\"} %llu\n", (unsigned long long)cum);
	stats_buf_printf(out, "petrel_recursion_time_seconds_sum %.6f\n",
		(double)tot.r.rec_time_us / 1e6);
	stats_buf_printf(out, "petrel_recursion_time_seconds_count %llu\n",
		(unsigned long long)cum);
	if(!g->extended)
		return;
	prom_head(out, "petrel_query_types_total", "counter",
		"Queries by type.");
	for(i = 0; i <= RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qtype[i])
			stats_buf_printf(out, "petrel_query_types_total"
				"{type=\"%s\"} %llu\n", i == RESOLVER_STATS_QTYPES ?
				"other" : type_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qtype[i]);
	prom_head(out, "petrel_query_classes_total", "counter",
		"Queries by class.");
	for(i = 0; i <= RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qclass[i])
			stats_buf_printf(out, "petrel_query_classes_total"
				"{class=\"%s\"} %llu\n", i == RESOLVER_STATS_QTYPES ?
				"other" : class_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qclass[i]);
	prom_head(out, "petrel_query_opcodes_total", "counter",
		"Queries by opcode.");
	for(i = 0; i < 16; i++)
		if(tot.r.qopcode[i])
			stats_buf_printf(out, "petrel_query_opcodes_total"
				"{opcode=\"%s\"} %llu\n", opcode_str(i, nb,
				sizeof(nb)), (unsigned long long)tot.r.qopcode[i]);
	prom_head(out, "petrel_query_flags_total", "counter",
		"Queries with each header flag set.");
	for(i = 0; i < 8; i++)
		stats_buf_printf(out, "petrel_query_flags_total{flag=\"%s\"} "
			"%llu\n", flag_names[i],
			(unsigned long long)tot.r.qflags[i]);
	prom_head(out, "petrel_query_ipv6_total", "counter",
		"Queries from IPv6 clients.");
	stats_buf_printf(out, "petrel_query_ipv6_total %llu\n",
		(unsigned long long)tot.r.qipv6);
	prom_head(out, "petrel_answer_rcodes_total", "counter",
		"Answers by rcode (nodata: NOERROR without answer records).");
	for(i = 0; i < 16; i++)
		if(i <= 5 || tot.r.ans_rcode[i])
			stats_buf_printf(out, "petrel_answer_rcodes_total"
				"{rcode=\"%s\"} %llu\n", rcode_str(i, nb,
				sizeof(nb)), (unsigned long long)tot.r.ans_rcode[i]);
	stats_buf_printf(out, "petrel_answer_rcodes_total{rcode=\"nodata\"} "
		"%llu\n", (unsigned long long)tot.r.ans_rcode[16]);
}
