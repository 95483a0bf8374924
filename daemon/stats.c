/*
 * daemon/stats.c - statistics collection and printing. See stats.h.
 */
#include "config.h"
#include "daemon/stats.h"
#include "dns/dns.h"
#include "util/histogram.h"
#include <stdarg.h>
#include <stddef.h>
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
stats_add_worker(struct worker_stats *a, const struct worker_stats *b)
{
	uint64_t *pa = (uint64_t *)a;
	const uint64_t *pb = (const uint64_t *)b;
	size_t i, n = offsetof(struct worker_stats, elapsed) / sizeof(uint64_t);
	/* every member before elapsed is a uint64_t counter */
	for(i = 0; i < n; i++)
		pa[i] += pb[i];
}

void
stats_add(struct stats_info *a, const struct stats_info *b)
{
	stats_add_worker(&a->s, &b->s);
	if(b->s.elapsed > a->s.elapsed)
		a->s.elapsed = b->s.elapsed;
	if(b->s.queue_wait_max_us > a->s.queue_wait_max_us)
		a->s.queue_wait_max_us = b->s.queue_wait_max_us;
	stats_add_resolver(&a->r, &b->r);
	a->reqlist_current += b->reqlist_current;
	a->reqlist_user += b->reqlist_user;
	a->reqlist_replies += b->reqlist_replies;
	a->tcp_usage += b->tcp_usage;
	a->mem_streamwait += b->mem_streamwait;
	a->mem_http_query += b->mem_http_query;
	a->mem_http_response += b->mem_http_response;
}

void
stats_mods_add(struct stats_mods *a, const struct stats_mods *b)
{
	int i, j;
	for(i = 0; i < b->num && i < MODULE_MAX; i++) {
		for(j = 0; j < a->num; j++)
			if(strcmp(a->name[j], b->name[i]) == 0)
				break;
		if(j == a->num) {
			if(a->num >= MODULE_MAX)
				continue;
			memcpy(a->name[j], b->name[i], sizeof(a->name[j]));
			a->name[j][sizeof(a->name[j]) - 1] = 0;
			a->mem[j] = 0;
			a->num++;
		}
		a->mem[j] += b->mem[i];
	}
}

void
stats_upstream_add(struct stats_upstream *u, int srtt_ms)
{
	int i = 0;
	if(srtt_ms < 0)
		return;
	/* bucket i holds (2^(i-1), 2^i] ms; bucket 0 up to 1 ms */
	while(i < STATS_UPSTREAM_BUCKETS - 1 && srtt_ms > (1 << i))
		i++;
	u->bucket[i]++;
	u->srtt_sum_ms += (uint64_t)srtt_ms;
}

void
stats_upstream_sum(struct stats_upstream *a, const struct stats_upstream *b)
{
	int i;
	for(i = 0; i < STATS_UPSTREAM_BUCKETS; i++)
		a->bucket[i] += b->bucket[i];
	a->srtt_sum_ms += b->srtt_sum_ms;
}

/** how a row of the counter table gets its value */
enum stats_kind {
	/** a uint64_t counter in struct stats_info at off */
	SK_COUNTER,
	/** a uint64_t gauge (a value now, or a maximum) at off */
	SK_GAUGE,
	/** requestlist.avg: the mean of the in-flight samples */
	SK_REQLIST_AVG,
	/** recursion.time.avg, seconds */
	SK_REC_AVG,
	/** recursion.time.median, seconds */
	SK_REC_MEDIAN,
	/** a feature petrel does not have (IP rate limits, cookies, socket
	 * queue timeouts, ...): the line is printed, 0, so that the tools
	 * written for Unbound find every name they read */
	SK_NONE
};

/** one per-thread statistic: its Unbound name (after "threadN." or
 * "total."; NULL when Unbound has none), its Prometheus name (NULL when
 * not exported), the help text, and where its value is */
struct stats_row {
	/** Unbound's name, e.g. "num.cachehits" */
	const char *ub;
	/** Prometheus name, e.g. "petrel_cache_hits_total" */
	const char *prom;
	/** help text (Prometheus # HELP) */
	const char *help;
	/** enum stats_kind */
	int kind;
	/** offsetof in struct stats_info (SK_COUNTER, SK_GAUGE) */
	size_t off;
};

/** offset of a member of struct stats_info */
#define SOFF(m) offsetof(struct stats_info, m)

/** The per-thread statistics, in the order Unbound 1.22 prints them;
 * both printers walk this table. */
static const struct stats_row stats_rows[] = {
{ "num.queries", "petrel_queries_total", "Client queries received.",
  SK_COUNTER, SOFF(r.num_queries) },
{ "num.queries_ip_ratelimited", "petrel_ip_ratelimited_total",
  "Queries dropped by ip-ratelimit.", SK_COUNTER,
  SOFF(r.num_ip_ratelimited) },
{ "num.queries_cookie_valid", NULL, "Queries with a valid DNS cookie.",
  SK_COUNTER, SOFF(r.num_cookie_valid) },
{ "num.queries_cookie_client", NULL, "Queries with a client cookie only.",
  SK_COUNTER, SOFF(r.num_cookie_client) },
{ "num.queries_cookie_invalid", NULL, "Queries with an invalid cookie.",
  SK_COUNTER, SOFF(r.num_cookie_invalid) },
{ "num.queries_discard_timeout", NULL, "Queries dropped by "
  "discard-timeout.", SK_COUNTER, SOFF(r.num_discard_timeout) },
{ "num.queries_wait_limit", NULL, "Queries dropped by wait-limit.",
  SK_COUNTER, SOFF(r.num_wait_limit) },
{ "num.cachehits", "petrel_cache_hits_total",
  "Queries answered from the cache.", SK_COUNTER, SOFF(r.num_cache_hits) },
{ "num.cachemiss", "petrel_cache_misses_total",
  "Queries that needed recursion.", SK_COUNTER, SOFF(r.num_cache_miss) },
{ "num.prefetch", "petrel_prefetches_total", "Prefetches started.",
  SK_COUNTER, SOFF(r.num_prefetch) },
{ "num.queries_timed_out", "petrel_queries_timed_out_total", "Queries "
  "dropped for waiting too long in the socket (sock-queue-timeout).",
  SK_COUNTER, SOFF(s.num_queries_timed_out) },
{ "query.queue_time_us.max", "petrel_query_queue_time_max_microseconds",
  "Longest time a query waited in the socket (with sock-queue-timeout).",
  SK_GAUGE, SOFF(s.queue_wait_max_us) },
{ "num.expired", "petrel_expired_answers_total",
  "Answers served from expired data.", SK_COUNTER, SOFF(r.num_expired) },
{ "num.recursivereplies", "petrel_recursive_replies_total",
  "Answers sent after recursion.", SK_COUNTER,
  SOFF(r.num_recursive_replies) },
{ "requestlist.avg", NULL, "Mean resolutions in flight when one starts.",
  SK_REQLIST_AVG, 0 },
{ "requestlist.max", "petrel_requestlist_max",
  "Most resolutions in flight since the last reset.", SK_GAUGE,
  SOFF(r.reqlist_max) },
{ "requestlist.overwritten", "petrel_requestlist_overwritten_total",
  "Resolutions jostled out for newer ones (jostle-timeout).", SK_COUNTER,
  SOFF(r.num_jostled) },
{ "requestlist.exceeded", "petrel_dropped_queries_total",
  "Queries dropped for lack of room.", SK_COUNTER, SOFF(r.num_dropped) },
{ "requestlist.current.all", "petrel_requestlist_current",
  "Resolutions in flight.", SK_GAUGE, SOFF(reqlist_current) },
{ "requestlist.current.user", "petrel_requestlist_current_user",
  "Resolutions with clients waiting.", SK_GAUGE, SOFF(reqlist_user) },
{ "requestlist.current.replies", "petrel_requestlist_current_replies",
  "Clients waiting for a resolution.", SK_GAUGE, SOFF(reqlist_replies) },
{ "recursion.time.avg", NULL, "Mean recursion time, seconds.",
  SK_REC_AVG, 0 },
{ "recursion.time.median", NULL, "Median recursion time, seconds.",
  SK_REC_MEDIAN, 0 },
{ "tcpusage", "petrel_tcp_connections", "TCP connections open (TCP, "
  "TLS, HTTPS).", SK_GAUGE, SOFF(tcp_usage) },
/* petrel's own, Prometheus only */
{ NULL, "petrel_local_answers_total", "Queries answered from local zones.",
  SK_COUNTER, SOFF(r.num_local) },
{ NULL, "petrel_tcp_queries_total", "Client queries over TCP.",
  SK_COUNTER, SOFF(s.num_tcp) },
{ NULL, "petrel_xdp_answers_total", "Answers sent over AF_XDP "
  "(xdp-interface).", SK_COUNTER, SOFF(s.num_xdp_answers) },
{ NULL, "petrel_xdp_passed_total", "Queries that came over AF_XDP and "
  "were answered through the ordinary path.", SK_COUNTER,
  SOFF(s.num_xdp_passed) },
{ NULL, "petrel_xdp_invalid_total", "Frames over AF_XDP dropped as not "
  "valid (lengths, checksums).", SK_COUNTER, SOFF(s.num_xdp_invalid) },
{ NULL, "petrel_xdp_tx_full_total", "Answers over AF_XDP dropped on a "
  "full TX ring.", SK_COUNTER, SOFF(s.num_xdp_tx_full) },
{ NULL, "petrel_malformed_queries_total", "Malformed client queries.",
  SK_COUNTER, SOFF(r.num_malformed) },
{ NULL, "petrel_denied_queries_total", "Queries refused or dropped by "
  "access control.", SK_COUNTER, SOFF(r.num_acl_denied) },
{ NULL, "petrel_servfail_answers_total", "SERVFAIL answers.",
  SK_COUNTER, SOFF(r.num_servfail) },
{ NULL, "petrel_outgoing_queries_total", "Upstream queries sent.",
  SK_COUNTER, SOFF(r.num_outgoing) },
{ NULL, "petrel_unwanted_replies_total", "Upstream replies that matched "
  "no query.", SK_COUNTER, SOFF(s.num_unwanted_replies) },
{ NULL, "petrel_proxy_errors_total", "Datagrams dropped and connections "
  "closed for a missing, malformed or refused PROXY v2 header "
  "(proxy-protocol-port).", SK_COUNTER, SOFF(s.num_proxy_errors) },
{ NULL, "petrel_global_quota_exceeded_total", "Queries and sub-queries "
  "ended by max-global-quota.", SK_COUNTER, SOFF(r.num_quota_exceeded) },
/* the validator's outcomes (Unbound prints them as num.answer.secure,
 * num.answer.bogus and num.rrset.bogus with extended-statistics only) */
{ NULL, "petrel_secure_answers_total", "Answers validated secure (fresh "
  "or from the cache).", SK_COUNTER, SOFF(r.num_answer_secure) },
{ NULL, "petrel_bogus_answers_total", "Answers the validator found bogus.",
  SK_COUNTER, SOFF(r.num_answer_bogus) },
{ NULL, "petrel_bogus_rrsets_total", "RRsets the validator found bogus.",
  SK_COUNTER, SOFF(r.num_rrset_bogus) },
};

/** the number of rows */
#define STATS_NROWS (sizeof(stats_rows) / sizeof(stats_rows[0]))

/** a uint64_t member of a stats_info */
static uint64_t
row_u64(const struct stats_info *s, size_t off)
{
	uint64_t v;
	memcpy(&v, (const char *)s + off, sizeof(v));
	return v;
}

/** print one row's value in Unbound's format */
static void
row_print(struct stats_buf *out, const struct stats_row *r,
	const struct stats_info *s)
{
	uint64_t nrec = hist_count(s->r.rec_hist);
	switch(r->kind) {
	case SK_COUNTER:
	case SK_GAUGE:
		stats_buf_printf(out, "%llu",
			(unsigned long long)row_u64(s, r->off));
		break;
	case SK_REQLIST_AVG:
		stats_buf_printf(out, "%g", s->r.reqlist_samples ?
			(double)s->r.reqlist_sum /
			(double)s->r.reqlist_samples : 0.0);
		break;
	case SK_REC_AVG:
		stats_buf_printf(out, "%.6f", nrec ? (double)s->r.rec_time_us
			/ (double)nrec / 1e6 : 0.0);
		break;
	case SK_REC_MEDIAN:
		stats_buf_printf(out, "%.6f",
			hist_quantile(s->r.rec_hist, 0.5));
		break;
	default:
		stats_buf_printf(out, "0");
		break;
	}
}

/** the lines for one thread or the total */
static void
print_one(struct stats_buf *out, const char *pfx, const struct stats_info *s)
{
	size_t i;
	for(i = 0; i < STATS_NROWS; i++) {
		if(!stats_rows[i].ub)
			continue;
		stats_buf_printf(out, "%s.%s=", pfx, stats_rows[i].ub);
		row_print(out, &stats_rows[i], s);
		stats_buf_append(out, "\n", 1);
	}
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
	/* the module below first, as Unbound's mem.mod.iterator comes
	 * before mem.mod.validator */
	for(i = g->mods.num - 1; i >= 0; i--)
		stats_buf_printf(out, "mem.mod.%s=%llu\n", g->mods.name[i],
			(unsigned long long)g->mods.mem[i]);
	stats_buf_printf(out, "mem.streamwait=%llu\n",
		(unsigned long long)tot.mem_streamwait);
	stats_buf_printf(out, "mem.http.query_buffer=%llu\n",
		(unsigned long long)tot.mem_http_query);
	stats_buf_printf(out, "mem.http.response_buffer=%llu\n",
		(unsigned long long)tot.mem_http_response);
	if(!g->extended)
		return;
	for(i = 0; i < HIST_BUCKETS; i++) {
		uint64_t lo = hist_lower_us(i);
		uint64_t hi = hist_lower_us(i + 1);
		stats_buf_printf(out, "histogram.%6.6llu.%6.6llu.to."
			"%6.6llu.%6.6llu=%llu\n",
			(unsigned long long)(lo / 1000000),
			(unsigned long long)(lo % 1000000),
			(unsigned long long)(hi / 1000000),
			(unsigned long long)(hi % 1000000),
			(unsigned long long)tot.r.rec_hist[i]);
	}
	for(i = 0; i < RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qtype[i] || g->show_zero)
			stats_buf_printf(out, "num.query.type.%s=%llu\n",
				type_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qtype[i]);
	if(tot.r.qtype[RESOLVER_STATS_QTYPES] || g->show_zero)
		stats_buf_printf(out, "num.query.type.other=%llu\n",
			(unsigned long long)tot.r.qtype[RESOLVER_STATS_QTYPES]);
	for(i = 0; i < RESOLVER_STATS_QTYPES; i++)
		if(tot.r.qclass[i] || g->show_zero)
			stats_buf_printf(out, "num.query.class.%s=%llu\n",
				class_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qclass[i]);
	if(tot.r.qclass[RESOLVER_STATS_QTYPES] || g->show_zero)
		stats_buf_printf(out, "num.query.class.other=%llu\n",
			(unsigned long long)tot.r.qclass[RESOLVER_STATS_QTYPES]);
	for(i = 0; i < 16; i++)
		if(tot.r.qopcode[i] || g->show_zero)
			stats_buf_printf(out, "num.query.opcode.%s=%llu\n",
				opcode_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.qopcode[i]);
	stats_buf_printf(out, "num.query.tcp=%llu\n",
		(unsigned long long)tot.s.num_tcp);
	stats_buf_printf(out, "num.query.tcpout=%llu\n",
		(unsigned long long)tot.s.num_tcpout);
	stats_buf_printf(out, "num.query.udpout=%llu\n",
		(unsigned long long)tot.s.num_udpout);
	stats_buf_printf(out, "num.query.tls=%llu\nnum.query.tls.resume="
		"%llu\nnum.query.https=%llu\n",
		(unsigned long long)tot.s.num_tls,
		(unsigned long long)tot.s.num_tls_resume,
		(unsigned long long)tot.s.num_https);
	/* petrel's own (Unbound logs a bad PROXY header and counts none) */
	stats_buf_printf(out, "num.query.proxy_errors=%llu\n",
		(unsigned long long)tot.s.num_proxy_errors);
	stats_buf_printf(out, "num.xdp.answers=%llu\nnum.xdp.passed=%llu\n"
		"num.xdp.invalid=%llu\nnum.xdp.tx_full=%llu\n",
		(unsigned long long)tot.s.num_xdp_answers,
		(unsigned long long)tot.s.num_xdp_passed,
		(unsigned long long)tot.s.num_xdp_invalid,
		(unsigned long long)tot.s.num_xdp_tx_full);
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
		if(i <= 5 || tot.r.ans_rcode[i] || g->show_zero)
			stats_buf_printf(out, "num.answer.rcode.%s=%llu\n",
				rcode_str(i, nb, sizeof(nb)),
				(unsigned long long)tot.r.ans_rcode[i]);
	stats_buf_printf(out, "num.answer.rcode.nodata=%llu\n",
		(unsigned long long)tot.r.ans_rcode[16]);
	stats_buf_printf(out, "num.query.ratelimited=%llu\n",
		(unsigned long long)tot.r.num_ratelimited);
	stats_buf_printf(out, "num.query.subnet=%llu\n",
		(unsigned long long)tot.r.num_subnet);
	stats_buf_printf(out, "num.query.subnet_cache=%llu\n",
		(unsigned long long)tot.r.num_subnet_cache);
	stats_buf_printf(out, "num.answer.secure=%llu\n",
		(unsigned long long)tot.r.num_answer_secure);
	stats_buf_printf(out, "num.answer.bogus=%llu\n",
		(unsigned long long)tot.r.num_answer_bogus);
	stats_buf_printf(out, "num.rrset.bogus=%llu\n",
		(unsigned long long)tot.r.num_rrset_bogus);
	stats_buf_printf(out, "num.query.aggressive.NOERROR=0\n"
		"num.query.aggressive.NXDOMAIN=0\n");
	stats_buf_printf(out, "unwanted.queries=%llu\n",
		(unsigned long long)tot.r.num_acl_denied);
	stats_buf_printf(out, "unwanted.replies=%llu\n",
		(unsigned long long)tot.s.num_unwanted_replies);
	stats_buf_printf(out, "msg.cache.count=%llu\n",
		(unsigned long long)g->msg_count);
	stats_buf_printf(out, "rrset.cache.count=%llu\n",
		(unsigned long long)g->rrset_count);
	stats_buf_printf(out, "infra.cache.count=%llu\n",
		(unsigned long long)g->infra_count);
	stats_buf_printf(out, "key.cache.count=%llu\n",
		(unsigned long long)g->key_count);
	stats_buf_printf(out, "num.query.authzone.up=0\n"
		"num.query.authzone.down=0\n");
}

/** # HELP and # TYPE lines */
static void
prom_head(struct stats_buf *out, const char *name, const char *type,
	const char *help)
{
	stats_buf_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help,
		name, type);
}

void
stats_print_prometheus(struct stats_buf *out, const struct stats_info *info,
	int n, const struct stats_globals *g)
{
	struct stats_info tot;
	char nb[32];
	uint64_t cum = 0;
	size_t k;
	int i;
	memset(&tot, 0, sizeof(tot));
	for(i = 0; i < n; i++)
		stats_add(&tot, &info[i]);
	for(k = 0; k < STATS_NROWS; k++) {
		const struct stats_row *r = &stats_rows[k];
		if(!r->prom || (r->kind != SK_COUNTER && r->kind != SK_GAUGE))
			continue;
		prom_head(out, r->prom, r->kind == SK_COUNTER ? "counter" :
			"gauge", r->help);
		for(i = 0; i < n; i++)
			stats_buf_printf(out, "%s{thread=\"%d\"} %llu\n",
				r->prom, i,
				(unsigned long long)row_u64(&info[i], r->off));
	}
	prom_head(out, "petrel_uptime_seconds", "gauge",
		"Seconds since petrel started.");
	stats_buf_printf(out, "petrel_uptime_seconds %.6f\n", g->up);
	prom_head(out, "petrel_memory_cache_bytes", "gauge",
		"Bytes used by the caches.");
	stats_buf_printf(out, "petrel_memory_cache_bytes{cache=\"rrset\"} "
		"%llu\n", (unsigned long long)g->mem_rrset);
	stats_buf_printf(out, "petrel_memory_cache_bytes{cache=\"message\"} "
		"%llu\n", (unsigned long long)g->mem_msg);
	prom_head(out, "petrel_cache_entries", "gauge",
		"Entries in the caches.");
	stats_buf_printf(out, "petrel_cache_entries{cache=\"rrset\"} %llu\n"
		"petrel_cache_entries{cache=\"message\"} %llu\n"
		"petrel_cache_entries{cache=\"infra\"} %llu\n",
		(unsigned long long)g->rrset_count,
		(unsigned long long)g->msg_count,
		(unsigned long long)g->infra_count);
	/* the upstream servers now, cumulative by smoothed RTT as a
	 * histogram's buckets are (histogram_quantile reads them), but a
	 * gauge: servers come and go from the infrastructure cache */
	prom_head(out, "petrel_upstream_servers", "gauge",
		"Upstream servers in the infrastructure cache with a smoothed "
		"round-trip time of at most le seconds.");
	for(i = 0; i < STATS_UPSTREAM_BUCKETS; i++) {
		cum += g->upstream.bucket[i];
		if(i < STATS_UPSTREAM_BUCKETS - 1)
			stats_buf_printf(out, "petrel_upstream_servers"
				"{le=\"%.3f\"} %llu\n", (double)(1 << i) / 1e3,
				(unsigned long long)cum);
		else	stats_buf_printf(out, "petrel_upstream_servers"
				"{le=\"+Inf\"} %llu\n", (unsigned long long)cum);
	}
	prom_head(out, "petrel_upstream_rtt_seconds_mean", "gauge",
		"Mean smoothed round-trip time of those servers.");
	stats_buf_printf(out, "petrel_upstream_rtt_seconds_mean %.6f\n", cum ?
		(double)g->upstream.srtt_sum_ms / 1e3 / (double)cum : 0.0);
	cum = 0;
	prom_head(out, "petrel_recursion_time_seconds", "histogram",
		"Time from a client query to its answer after recursion.");
	for(i = 0; i < HIST_BUCKETS - 1; i++) {
		cum += tot.r.rec_hist[i];
		stats_buf_printf(out, "petrel_recursion_time_seconds_bucket"
			"{le=\"%.6f\"} %llu\n",
			(double)hist_lower_us(i + 1) / 1e6,
			(unsigned long long)cum);
	}
	cum += tot.r.rec_hist[HIST_BUCKETS - 1];
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
