/*
 * tests/check_stats.c - the statistics text (Unbound's names) and the
 * Prometheus exposition format of daemon/stats.c.
 */
#include "config.h"
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/stats.h"

/** the value of "name=" in the text, or -1 when absent */
static double
value_of(const char *text, const char *name)
{
	char pat[256];
	const char *p;
	size_t n;
	snprintf(pat, sizeof(pat), "%s=", name);
	n = strlen(pat);
	for(p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if(strncmp(p, pat, n) == 0)
			return atof(p + n);
	return -1;
}

/** count lines that start with prefix */
static int
count_prefix(const char *text, const char *prefix)
{
	const char *p;
	int c = 0;
	for(p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if(strncmp(p, prefix, strlen(prefix)) == 0)
			c++;
	return c;
}

/** two workers with known counters */
static void
fill(struct stats_info *info, struct stats_globals *g, int extended)
{
	memset(info, 0, 2 * sizeof(*info));
	memset(g, 0, sizeof(*g));
	info[0].r.num_queries = 5;
	info[0].r.num_cache_hits = 3;
	info[0].r.num_cache_miss = 2;
	info[0].r.num_recursive_replies = 2;
	info[0].r.num_prefetch = 1;
	info[0].s.num_tcp = 1;
	info[0].r.reqlist_sum = 3;
	info[0].r.reqlist_samples = 2;
	info[0].r.reqlist_max = 2;
	/* recursion times: 2 answers in [1024, 2048) us */
	info[0].r.rec_hist[11] = 2;
	info[0].r.rec_time_us = 3000;
	info[0].r.qtype[1] = 4;
	info[0].r.qtype[28] = 1;
	info[0].r.qclass[1] = 5;
	info[0].r.ans_rcode[0] = 4;
	info[0].r.ans_rcode[3] = 1;
	info[0].r.ans_rcode[16] = 1;
	info[0].r.qflags[3] = 5;
	info[1].r.num_queries = 7;
	info[1].r.num_cache_hits = 7;
	info[1].r.num_expired = 2;
	info[1].r.reqlist_max = 9;
	info[1].r.qtype[1] = 6;
	info[1].r.qtype[256] = 1;
	info[1].r.qclass[3] = 1;
	info[1].r.qopcode[0] = 7;
	info[1].r.ans_rcode[0] = 7;
	info[1].reqlist_current = 4;
	g->now = 1700000000.5;
	g->up = 42.25;
	g->elapsed = 10;
	g->mem_rrset = 1234;
	g->mem_msg = 5678;
	g->extended = extended;
}

START_TEST(test_print_basic)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	memset(&b, 0, sizeof(b));
	fill(info, &g, 0);
	stats_print(&b, info, 2, &g);
	ck_assert(!b.oom);
	ck_assert_ptr_nonnull(b.data);
	ck_assert(value_of(b.data, "thread0.num.queries") == 5);
	ck_assert(value_of(b.data, "thread1.num.queries") == 7);
	ck_assert(value_of(b.data, "total.num.queries") == 12);
	ck_assert(value_of(b.data, "total.num.cachehits") == 10);
	ck_assert(value_of(b.data, "total.num.cachemiss") == 2);
	ck_assert(value_of(b.data, "total.num.prefetch") == 1);
	ck_assert(value_of(b.data, "total.num.expired") == 2);
	ck_assert(value_of(b.data, "total.num.recursivereplies") == 2);
	ck_assert(fabs(value_of(b.data, "thread0.requestlist.avg") - 1.5) <
		1e-9);
	ck_assert(value_of(b.data, "total.requestlist.max") == 9);
	ck_assert(value_of(b.data, "total.requestlist.current.all") == 4);
	ck_assert(fabs(value_of(b.data, "total.recursion.time.avg") -
		0.0015) < 1e-9);
	/* the median lies in the bucket [1024, 2048) us */
	ck_assert(value_of(b.data, "total.recursion.time.median") >= 0.001024);
	ck_assert(value_of(b.data, "total.recursion.time.median") <= 0.002048);
	ck_assert(fabs(value_of(b.data, "time.up") - 42.25) < 1e-6);
	ck_assert(fabs(value_of(b.data, "time.now") - 1700000000.5) < 1e-3);
	ck_assert(value_of(b.data, "mem.cache.rrset") == 1234);
	ck_assert(value_of(b.data, "mem.cache.message") == 5678);
	/* no extended counters without extended-statistics */
	ck_assert_int_eq(count_prefix(b.data, "num.query."), 0);
	ck_assert_int_eq(count_prefix(b.data, "histogram."), 0);
	/* Unbound's order: threads, then total, then time */
	ck_assert(strstr(b.data, "thread1.num.queries") <
		strstr(b.data, "total.num.queries"));
	ck_assert(strstr(b.data, "total.num.queries") <
		strstr(b.data, "time.now"));
	stats_buf_free(&b);
}
END_TEST

/* statistics-inhibit-zero: yes (the default) leaves out the type, class,
 * opcode and rcode counters that are 0; no prints them all, as Unbound */
START_TEST(test_print_inhibit_zero)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	fill(info, &g, 1);
	memset(&b, 0, sizeof(b));
	stats_print(&b, info, 2, &g);
	ck_assert_int_eq(b.oom, 0);
	ck_assert_ptr_null(strstr(b.data, "num.query.type.MX="));
	ck_assert_ptr_null(strstr(b.data, "num.query.class.HS="));
	ck_assert_ptr_null(strstr(b.data, "num.query.opcode.NOTIFY="));
	ck_assert_ptr_null(strstr(b.data, "num.query.class.other="));
	ck_assert_ptr_null(strstr(b.data, "num.answer.rcode.YXDOMAIN="));
	ck_assert_int_eq(count_prefix(b.data, "num.query.type."), 3);
	stats_buf_free(&b);

	g.show_zero = 1;
	memset(&b, 0, sizeof(b));
	stats_print(&b, info, 2, &g);
	ck_assert_int_eq(b.oom, 0);
	ck_assert(value_of(b.data, "num.query.type.MX") == 0);
	ck_assert(value_of(b.data, "num.query.type.A") == 10);
	ck_assert(value_of(b.data, "num.query.class.CH") == 1);
	ck_assert(value_of(b.data, "num.query.class.HS") == 0);
	ck_assert(value_of(b.data, "num.query.class.other") == 0);
	ck_assert(value_of(b.data, "num.query.opcode.NOTIFY") == 0);
	ck_assert(value_of(b.data, "num.answer.rcode.YXDOMAIN") == 0);
	/* every type 0-255 and other */
	ck_assert_int_eq(count_prefix(b.data, "num.query.type."), 257);
	ck_assert_int_eq(count_prefix(b.data, "num.query.opcode."), 16);
	stats_buf_free(&b);
}
END_TEST

START_TEST(test_print_lines_wellformed)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	char *p, *line;
	int n = 0;
	memset(&b, 0, sizeof(b));
	fill(info, &g, 1);
	stats_print(&b, info, 2, &g);
	ck_assert(b.len > 0 && b.data[b.len - 1] == '\n');
	for(p = b.data; *p; p = strchr(p, '\n') + 1) {
		char *eq, *end;
		size_t len = (size_t)(strchr(p, '\n') - p);
		line = strndup(p, len);
		eq = strchr(line, '=');
		ck_assert_msg(eq != NULL, "no '=' in %s", line);
		ck_assert(eq > line);
		ck_assert_msg(strchr(line, ' ') == NULL, "space in %s", line);
		(void)strtod(eq + 1, &end);
		ck_assert_msg(*end == 0 && end > eq + 1, "bad value in %s", line);
		free(line);
		n++;
	}
	ck_assert(n > 60);
	stats_buf_free(&b);
}
END_TEST

START_TEST(test_print_extended)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	memset(&b, 0, sizeof(b));
	fill(info, &g, 1);
	stats_print(&b, info, 2, &g);
	ck_assert(value_of(b.data, "num.query.type.A") == 10);
	ck_assert(value_of(b.data, "num.query.type.AAAA") == 1);
	ck_assert(value_of(b.data, "num.query.type.other") == 1);
	ck_assert(value_of(b.data, "num.query.type.MX") == -1);
	ck_assert(value_of(b.data, "num.query.class.IN") == 5);
	ck_assert(value_of(b.data, "num.query.class.CH") == 1);
	ck_assert(value_of(b.data, "num.query.opcode.QUERY") == 7);
	ck_assert(value_of(b.data, "num.query.tcp") == 1);
	ck_assert(value_of(b.data, "num.query.flags.RD") == 5);
	ck_assert(value_of(b.data, "num.query.flags.QR") == 0);
	ck_assert(value_of(b.data, "num.answer.rcode.NOERROR") == 11);
	ck_assert(value_of(b.data, "num.answer.rcode.NXDOMAIN") == 1);
	ck_assert(value_of(b.data, "num.answer.rcode.SERVFAIL") == 0);
	ck_assert(value_of(b.data, "num.answer.rcode.nodata") == 1);
	/* Unbound's 40 histogram buckets, named by their bounds */
	ck_assert_int_eq(count_prefix(b.data, "histogram."), 40);
	ck_assert(value_of(b.data,
		"histogram.000000.000000.to.000000.000001") == 0);
	ck_assert(value_of(b.data,
		"histogram.000000.000001.to.000000.000002") == 0);
	ck_assert(value_of(b.data,
		"histogram.000000.001024.to.000000.002048") == 2);
	/* past half a second the bounds are whole seconds, as Unbound's */
	ck_assert(value_of(b.data,
		"histogram.000000.524288.to.000001.000000") == 0);
	ck_assert(value_of(b.data,
		"histogram.000001.000000.to.000002.000000") == 0);
	ck_assert(value_of(b.data,
		"histogram.262144.000000.to.524288.000000") == 0);
	stats_buf_free(&b);
}
END_TEST

/** every statistic Unbound 1.22 prints per thread, in its order, and
 * the extended lines petrel now has values for */
START_TEST(test_print_unbound_names)
{
	static const char *const order[] = { "num.queries",
		"num.queries_ip_ratelimited", "num.queries_cookie_valid",
		"num.queries_cookie_client", "num.queries_cookie_invalid",
		"num.queries_discard_timeout", "num.queries_wait_limit",
		"num.cachehits", "num.cachemiss", "num.prefetch",
		"num.queries_timed_out", "query.queue_time_us.max",
		"num.expired", "num.recursivereplies", "requestlist.avg",
		"requestlist.max", "requestlist.overwritten",
		"requestlist.exceeded", "requestlist.current.all",
		"requestlist.current.user", "requestlist.current.replies",
		"recursion.time.avg", "recursion.time.median", "tcpusage",
		NULL };
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	const char *at;
	char key[128];
	int i;
	memset(&b, 0, sizeof(b));
	fill(info, &g, 1);
	info[0].s.num_unwanted_replies = 3;
	info[1].s.num_udpout = 4;
	info[0].s.num_tcpout = 1;
	g.msg_count = 12;
	g.rrset_count = 34;
	g.infra_count = 5;
	info[0].r.num_subnet = 2;
	info[1].r.num_subnet = 1;
	info[1].r.num_subnet_cache = 6;
	g.key_count = 6;
	/* the gauges and counters of the mesh and the front end */
	info[0].reqlist_user = 2;
	info[0].reqlist_replies = 5;
	info[1].reqlist_replies = 1;
	info[0].tcp_usage = 3;
	info[1].tcp_usage = 4;
	info[1].r.num_jostled = 8;
	info[0].r.num_discard_timeout = 9;
	info[1].r.num_wait_limit = 10;
	/* the validator's outcomes */
	info[0].r.num_answer_secure = 4;
	info[1].r.num_answer_bogus = 2;
	info[1].r.num_rrset_bogus = 3;
	stats_print(&b, info, 2, &g);
	for(at = b.data, i = 0; order[i]; i++) {
		const char *p;
		snprintf(key, sizeof(key), "\nthread1.%s=", order[i]);
		p = strstr(at, key);
		ck_assert_msg(p != NULL, "%s missing or out of order",
			order[i]);
		at = p;
	}
	ck_assert(value_of(b.data, "thread0.num.queries") == 5);
	ck_assert(value_of(b.data, "total.requestlist.current.user") == 2);
	ck_assert(value_of(b.data, "total.requestlist.current.replies") == 6);
	ck_assert(value_of(b.data, "thread0.requestlist.current.replies") ==
		5);
	ck_assert(value_of(b.data, "total.tcpusage") == 7);
	ck_assert(value_of(b.data, "thread1.tcpusage") == 4);
	ck_assert(value_of(b.data, "total.requestlist.overwritten") == 8);
	ck_assert(value_of(b.data, "thread1.requestlist.overwritten") == 8);
	/* counters after the histogram in the struct are summed too */
	ck_assert(value_of(b.data, "total.num.queries_discard_timeout") ==
		9);
	ck_assert(value_of(b.data, "total.num.queries_wait_limit") == 10);
	ck_assert(value_of(b.data, "unwanted.replies") == 3);
	ck_assert(value_of(b.data, "num.query.udpout") == 4);
	ck_assert(value_of(b.data, "num.query.tcpout") == 1);
	ck_assert(value_of(b.data, "msg.cache.count") == 12);
	ck_assert(value_of(b.data, "rrset.cache.count") == 34);
	ck_assert(value_of(b.data, "infra.cache.count") == 5);
	ck_assert(value_of(b.data, "key.cache.count") == 6);
	/* the subnetcache's, summed over the threads */
	ck_assert(value_of(b.data, "num.query.subnet") == 3);
	ck_assert(value_of(b.data, "num.query.subnet_cache") == 6);
	/* Unbound's order: the transport lines after num.query.tcp, the
	 * threat and cache counts after the rcodes */
	ck_assert(strstr(b.data, "num.query.tcp=") <
		strstr(b.data, "num.query.udpout="));
	ck_assert(strstr(b.data, "num.answer.rcode.nodata=") <
		strstr(b.data, "unwanted.queries="));
	ck_assert(strstr(b.data, "unwanted.replies=") <
		strstr(b.data, "msg.cache.count="));
	stats_buf_free(&b);
	/* the same counters in the Prometheus text */
	stats_print_prometheus(&b, info, 2, &g);
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_unwanted_replies_total{thread=\"0\"} 3\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_cache_entries{cache=\"message\"} 12\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_queries_total{thread=\"1\"} 7\n"));
	/* validation outcomes, exported with or without
	 * extended-statistics (the Grafana dashboard graphs them) */
	ck_assert_ptr_nonnull(strstr(b.data,
		"# TYPE petrel_secure_answers_total counter\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_secure_answers_total{thread=\"0\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_bogus_answers_total{thread=\"1\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_bogus_rrsets_total{thread=\"1\"} 3\n"));
	stats_buf_free(&b);
}
END_TEST

/** is s a valid Prometheus metric name? */
static int
prom_name_ok(const char *s, size_t n)
{
	size_t i;
	if(n == 0)
		return 0;
	for(i = 0; i < n; i++) {
		char c = s[i];
		if(!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			c == '_' || c == ':' || (i > 0 && c >= '0' && c <= '9')))
			return 0;
	}
	return 1;
}

START_TEST(test_prometheus_parses)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	char *p, typed[128] = "";
	int samples = 0, buckets = 0;
	double last_le = -1, last_cum = -1, inf = -1, count = -1;
	memset(&b, 0, sizeof(b));
	fill(info, &g, _i);
	stats_print_prometheus(&b, info, 2, &g);
	ck_assert(!b.oom && b.len > 0 && b.data[b.len - 1] == '\n');
	for(p = b.data; *p; p = strchr(p, '\n') + 1) {
		size_t len = (size_t)(strchr(p, '\n') - p), nl;
		char *line = strndup(p, len), *v, *end;
		double val;
		if(line[0] == '#') {
			char kw[8], name[128], rest[256];
			ck_assert_msg(sscanf(line, "# %7s %127s %255[^\n]", kw,
				name, rest) == 3, "bad comment %s", line);
			ck_assert(strcmp(kw, "HELP") == 0 ||
				strcmp(kw, "TYPE") == 0);
			ck_assert(prom_name_ok(name, strlen(name)));
			if(strcmp(kw, "TYPE") == 0) {
				ck_assert(strcmp(rest, "counter") == 0 ||
					strcmp(rest, "gauge") == 0 ||
					strcmp(rest, "histogram") == 0);
				snprintf(typed, sizeof(typed), "%s", name);
			}
			free(line);
			continue;
		}
		nl = strcspn(line, "{ ");
		ck_assert_msg(prom_name_ok(line, nl), "bad name in %s", line);
		/* the sample belongs to the family typed last */
		ck_assert_msg(strncmp(line, typed, strlen(typed)) == 0,
			"%s outside its family %s", line, typed);
		v = line + nl;
		if(*v == '{') {
			/* labels: name="value"[,name="value"] */
			char *q = v + 1;
			for(;;) {
				size_t ln = strcspn(q, "=");
				ck_assert(prom_name_ok(q, ln));
				q += ln;
				ck_assert(q[0] == '=' && q[1] == '"');
				q = strchr(q + 2, '"');
				ck_assert_ptr_nonnull(q);
				q++;
				if(*q == ',') {
					q++;
					continue;
				}
				ck_assert_int_eq(*q, '}');
				break;
			}
			v = q + 1;
		}
		ck_assert_msg(*v == ' ', "no space before value in %s", line);
		if(strcmp(v + 1, "+Inf") == 0)
			val = INFINITY;
		else {
			val = strtod(v + 1, &end);
			ck_assert_msg(*end == 0, "bad value in %s", line);
		}
		if(strncmp(line, "petrel_recursion_time_seconds_bucket", 36)
			== 0) {
			double le;
			char *l = strstr(line, "le=\"") + 4;
			le = strncmp(l, "+Inf", 4) == 0 ? INFINITY : atof(l);
			ck_assert(le > last_le);
			ck_assert(val >= last_cum);
			last_le = le;
			last_cum = val;
			if(isinf(le))
				inf = val;
			buckets++;
		}
		if(strncmp(line, "petrel_recursion_time_seconds_count", 35)
			== 0)
			count = val;
		if(strcmp(line, "petrel_queries_total{thread=\"1\"} 7") == 0)
			samples += 1000;
		samples++;
		free(line);
	}
	ck_assert(samples > 1000);	/* thread 1's query count was there */
	ck_assert_int_eq(buckets, 40);
	ck_assert(inf == 2 && count == 2);
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_recursion_time_seconds_bucket{le=\"0.002048\"} 2\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_recursion_time_seconds_bucket{le=\"0.001024\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_memory_cache_bytes{cache=\"message\"} 5678\n"));
	if(_i) {
		ck_assert_ptr_nonnull(strstr(b.data,
			"petrel_query_types_total{type=\"A\"} 10\n"));
		ck_assert_ptr_nonnull(strstr(b.data,
			"petrel_answer_rcodes_total{rcode=\"nodata\"} 1\n"));
	} else
		ck_assert_ptr_null(strstr(b.data, "petrel_query_types_total"));
	stats_buf_free(&b);
}
END_TEST

START_TEST(test_add)
{
	struct stats_info a, b;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.r.num_queries = 1;
	b.r.num_queries = 2;
	a.r.qtype[1] = 3;
	b.r.qtype[1] = 4;
	b.r.rec_hist[39] = 5;
	a.r.reqlist_max = 10;
	b.r.reqlist_max = 7;
	b.r.reqlist_samples = 2;
	stats_add(&a, &b);
	ck_assert(a.r.num_queries == 3);
	ck_assert(a.r.qtype[1] == 7);
	ck_assert(a.r.rec_hist[39] == 5);
	ck_assert(a.r.reqlist_max == 10);	/* max, not sum */
	ck_assert(a.r.reqlist_samples == 2);
}
END_TEST

/* the upstream servers by smoothed RTT: buckets of powers of two ms,
 * printed cumulative as gauges, with the mean */
START_TEST(test_upstream_rtt)
{
	struct stats_info info[1];
	struct stats_globals g;
	struct stats_upstream u;
	struct stats_buf b;
	memset(info, 0, sizeof(info));
	memset(&g, 0, sizeof(g));
	memset(&u, 0, sizeof(u));
	memset(&b, 0, sizeof(b));
	stats_upstream_add(&u, -1);	/* no sample yet: not counted */
	stats_upstream_add(&u, 0);
	stats_upstream_add(&u, 1);	/* le 1 ms */
	stats_upstream_add(&u, 3);	/* le 4 ms */
	stats_upstream_add(&u, 4);
	stats_upstream_add(&u, 40);	/* le 64 ms */
	stats_upstream_add(&u, 5000);	/* past 2048 ms */
	ck_assert(u.bucket[0] == 2);
	ck_assert(u.bucket[2] == 2);
	ck_assert(u.bucket[6] == 1);
	ck_assert(u.bucket[STATS_UPSTREAM_BUCKETS - 1] == 1);
	ck_assert(u.srtt_sum_ms == 5048);
	stats_upstream_sum(&g.upstream, &u);
	stats_upstream_sum(&g.upstream, &u);
	ck_assert(g.upstream.bucket[2] == 4);
	stats_print_prometheus(&b, info, 1, &g);
	ck_assert_ptr_nonnull(strstr(b.data,
		"# TYPE petrel_upstream_servers gauge\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"0.001\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"0.002\"} 4\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"0.004\"} 8\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"0.064\"} 10\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"2.048\"} 10\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_servers{le=\"+Inf\"} 12\n"));
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_upstream_rtt_seconds_mean 0.841333\n"));
	/* the recursion histogram after it starts from 0 again */
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_recursion_time_seconds_bucket{le=\"+Inf\"} 0\n"));
	stats_buf_free(&b);
}
END_TEST

START_TEST(test_buf)
{
	struct stats_buf b;
	char big[5000];
	int i;
	memset(&b, 0, sizeof(b));
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	stats_buf_printf(&b, "a%d", 1);
	stats_buf_printf(&b, "%s", big);
	for(i = 0; i < 1000; i++)
		stats_buf_printf(&b, "%03d\n", i);
	ck_assert(!b.oom);
	ck_assert_uint_eq(b.len, 2 + 4999 + 4000);
	ck_assert(strncmp(b.data, "a1xxx", 5) == 0);
	ck_assert(strcmp(b.data + b.len - 4, "999\n") == 0);
	ck_assert(strlen(b.data) == b.len);
	stats_buf_free(&b);
	ck_assert_ptr_null(b.data);
}
END_TEST

/* the memory lines: each module of the stack by its own name, the
 * module below first (Unbound: mem.mod.iterator, then
 * mem.mod.validator), after mem.cache.*; then the stream and HTTP
 * buffers summed over the workers; the modules of two stacks (forked
 * workers) added by name */
START_TEST(test_print_mem)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_mods other;
	struct stats_buf b;
	const char *p;
	static const char want[] = "\nmem.mod.iterator=30\n"
		"mem.mod.validator=1500\nmem.streamwait=123\n"
		"mem.http.query_buffer=7\nmem.http.response_buffer=900\n"
		"histogram.";
	memset(&b, 0, sizeof(b));
	fill(info, &g, 1);
	memset(&g.mods, 0, sizeof(g.mods));
	info[0].mods.num = 2;
	strcpy(info[0].mods.name[0], "validator");
	strcpy(info[0].mods.name[1], "iterator");
	info[0].mods.mem[0] = 1000;
	info[0].mods.mem[1] = 20;
	stats_mods_add(&g.mods, &info[0].mods);
	/* another process, the same stack */
	memset(&other, 0, sizeof(other));
	other.num = 2;
	strcpy(other.name[0], "validator");
	strcpy(other.name[1], "iterator");
	other.mem[0] = 500;
	other.mem[1] = 10;
	stats_mods_add(&g.mods, &other);
	ck_assert_int_eq(g.mods.num, 2);
	info[0].mem_streamwait = 100;
	info[1].mem_streamwait = 23;
	info[0].mem_http_query = 7;
	info[1].mem_http_response = 900;
	stats_print(&b, info, 2, &g);
	ck_assert(!b.oom);
	ck_assert(value_of(b.data, "mem.mod.validator") == 1500);
	ck_assert(value_of(b.data, "mem.mod.iterator") == 30);
	ck_assert(value_of(b.data, "mem.streamwait") == 123);
	ck_assert(value_of(b.data, "mem.http.query_buffer") == 7);
	ck_assert(value_of(b.data, "mem.http.response_buffer") == 900);
	ck_assert_int_eq(count_prefix(b.data, "mem.mod."), 2);
	p = strstr(b.data, "\nmem.cache.message=");
	ck_assert_ptr_nonnull(p);
	p = strchr(p + 1, '\n');
	ck_assert(strncmp(p, want, strlen(want)) == 0);
	stats_buf_free(&b);
	/* a module the sum has not seen is added */
	memset(&other, 0, sizeof(other));
	other.num = 1;
	strcpy(other.name[0], "respip");
	other.mem[0] = 3;
	stats_mods_add(&g.mods, &other);
	ck_assert_int_eq(g.mods.num, 3);
	ck_assert_str_eq(g.mods.name[2], "respip");
	ck_assert_uint_eq(g.mods.mem[2], 3);
	ck_assert_uint_eq(g.mods.mem[0], 1500);
}
END_TEST

/* num.query.proxy_errors (petrel's own; Unbound counts none), summed
 * over the workers, with the extended counters; per worker in the
 * Prometheus text */
START_TEST(test_print_proxy_errors)
{
	struct stats_info info[2];
	struct stats_globals g;
	struct stats_buf b;
	memset(&b, 0, sizeof(b));
	fill(info, &g, 1);
	info[0].s.num_proxy_errors = 2;
	info[1].s.num_proxy_errors = 5;
	stats_print(&b, info, 2, &g);
	ck_assert(value_of(b.data, "num.query.proxy_errors") == 7);
	ck_assert(strstr(b.data, "num.query.https=") <
		strstr(b.data, "num.query.proxy_errors="));
	stats_buf_free(&b);
	fill(info, &g, 0);
	info[1].s.num_proxy_errors = 5;
	stats_print(&b, info, 2, &g);
	ck_assert(value_of(b.data, "num.query.proxy_errors") == -1);
	stats_buf_free(&b);
	stats_print_prometheus(&b, info, 2, &g);
	ck_assert_ptr_nonnull(strstr(b.data,
		"petrel_proxy_errors_total{thread=\"1\"} 5\n"));
	stats_buf_free(&b);
}
END_TEST

static Suite *
stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("text");
	tcase_add_test(tc, test_print_basic);
	tcase_add_test(tc, test_print_lines_wellformed);
	tcase_add_test(tc, test_print_extended);
	tcase_add_test(tc, test_print_inhibit_zero);
	tcase_add_test(tc, test_print_unbound_names);
	tcase_add_test(tc, test_print_mem);
	tcase_add_test(tc, test_print_proxy_errors);
	tcase_add_loop_test(tc, test_prometheus_parses, 0, 2);
	tcase_add_test(tc, test_add);
	tcase_add_test(tc, test_upstream_rtt);
	tcase_add_test(tc, test_buf);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(stats_suite());
	int nf;
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
