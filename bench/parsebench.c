/*
 * bench/parsebench.c - micro-benchmark of the dns/ wire code.
 *
 * Reports nanoseconds per message for:
 *  - dns_query_parse_fast() on typical queries (a mix of names, with and
 *    without EDNS, with a cookie), the cached-answer hot path;
 *  - dns_msg_parse() on a typical referral-sized response (question,
 *    CNAME + 2 A, 2 NS, 2 glue A/AAAA, OPT) and dns_msg_group_rrsets();
 *  - dns_build_error_reply() (a SERVFAIL with an EDE).
 * Usage: parsebench [iterations]   (default 5000000)
 * Times are this thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so other
 * load on the machine inflates them less than wall-clock time would.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/** a sink the compiler cannot drop */
static volatile uint32_t sink;

/** @return this thread's CPU time in nanoseconds: the machines are shared
 * and busy, so wall-clock time would count other processes' turns */
static double
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/** build a query; return its length */
static size_t
make_query(uint8_t *buf, size_t cap, const char *name, uint16_t type,
	int edns, int cookie)
{
	struct dns_builder b;
	uint8_t nm[DNS_MAX_NAME];
	size_t n = sizeof(nm);
	struct edns_opt_out o;
	static const uint8_t ck[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	if(dname_from_str(name, nm, &n) != 0)
		abort();
	dns_build_init(&b, buf, cap, 0);
	dns_build_header(&b, 0x4242, DNS_FLAG_RD);
	dns_build_question(&b, nm, type, DNS_CLASS_IN);
	if(edns) {
		o.code = DNS_EDNS_COOKIE;
		o.len = 8;
		o.data = ck;
		dns_build_opt(&b, 1232, 0, 0, &o, cookie ? 1 : 0);
	}
	return dns_build_finish(&b);
}

/** build the response; return its length */
static size_t
make_response(uint8_t *buf, size_t cap)
{
	struct dns_builder b;
	uint8_t q[DNS_MAX_NAME], t[DNS_MAX_NAME], z[DNS_MAX_NAME],
		ns1[DNS_MAX_NAME], ns2[DNS_MAX_NAME];
	size_t n;
	uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 },
		a6[16] = { 0x20, 0x01, 0x0d, 0xb8 };
	n = sizeof(q); dname_from_str("www.example.com", q, &n);
	n = sizeof(t); dname_from_str("web.cdn.example.com", t, &n);
	n = sizeof(z); dname_from_str("example.com", z, &n);
	n = sizeof(ns1); dname_from_str("ns1.example.com", ns1, &n);
	n = sizeof(ns2); dname_from_str("ns2.example.com", ns2, &n);
	dns_build_init(&b, buf, cap, 0);
	dns_build_header(&b, 0x4242, DNS_FLAG_QR | DNS_FLAG_RD | DNS_FLAG_RA);
	dns_build_question(&b, q, DNS_TYPE_A, DNS_CLASS_IN);
	dns_build_rr(&b, 0, q, DNS_TYPE_CNAME, 1, 300, t, dname_len(t));
	dns_build_rr(&b, 0, t, DNS_TYPE_A, 1, 60, a1, 4);
	dns_build_rr(&b, 0, t, DNS_TYPE_A, 1, 60, a2, 4);
	dns_build_rr(&b, 1, z, DNS_TYPE_NS, 1, 86400, ns1, dname_len(ns1));
	dns_build_rr(&b, 1, z, DNS_TYPE_NS, 1, 86400, ns2, dname_len(ns2));
	dns_build_rr(&b, 2, ns1, DNS_TYPE_A, 1, 86400, a1, 4);
	dns_build_rr(&b, 2, ns1, DNS_TYPE_AAAA, 1, 86400, a6, 16);
	dns_build_opt(&b, 1232, 0, 1, NULL, 0);
	return dns_build_finish(&b);
}

int
main(int argc, char **argv)
{
	static const char *const names[] = { "www.example.com",
		"mail.Example.ORG", "a.root-servers.net", "x.y.z.example.co.uk",
		"WWW.google.com", "ns1.a-very-long-domain-name-for-testing.net",
		"example.", "_443._tcp.www.example.com" };
	uint8_t qs[8][512], resp[1024], out[1024];
	size_t ql[8], rl, i;
	long iters = argc > 1 ? atol(argv[1]) : 5000000;
	double t0, t1;
	struct fast_query fq;
	struct dns_msg msg;
	struct dns_rrset sets[16];
	uint32_t acc = 0;
	for(i = 0; i < 8; i++)
		ql[i] = make_query(qs[i], sizeof(qs[i]), names[i],
			i % 3 ? DNS_TYPE_A : DNS_TYPE_AAAA, i % 4 != 0, i % 2);
	rl = make_response(resp, sizeof(resp));

	/* the fast query parse: one typical query, then a mix */
	t0 = now_ns();
	for(i = 0; i < (size_t)iters; i++) {
		if(dns_query_parse_fast(qs[2], ql[2], &fq) != 0)
			abort();
		acc += fq.qinfo.hash;
	}
	t1 = now_ns();
	printf("dns_query_parse_fast   %-38s %6.1f ns/query (%u bytes)\n",
		"(a.root-servers.net A, EDNS)", (t1 - t0) / (double)iters,
		(unsigned)ql[2]);
	t0 = now_ns();
	for(i = 0; i < (size_t)iters; i++) {
		if(dns_query_parse_fast(qs[i & 7], ql[i & 7], &fq) != 0)
			abort();
		acc += fq.qinfo.hash;
	}
	t1 = now_ns();
	printf("dns_query_parse_fast   %-38s %6.1f ns/query\n",
		"(mix of 8 queries)", (t1 - t0) / (double)iters);

	/* the full parse of a response */
	t0 = now_ns();
	for(i = 0; i < (size_t)iters / 4; i++) {
		if(dns_msg_parse(resp, rl, &msg, NULL, 0) != 0)
			abort();
		acc += (uint32_t)msg.rr_count;
	}
	t1 = now_ns();
	printf("dns_msg_parse          %-38s %6.1f ns/msg (%u bytes, 7 RRs"
		" + OPT)\n", "(response)", (t1 - t0) / (double)(iters / 4),
		(unsigned)rl);
	t0 = now_ns();
	for(i = 0; i < (size_t)iters / 4; i++) {
		if(dns_msg_parse(resp, rl, &msg, NULL, 0) != 0)
			abort();
		acc += (uint32_t)dns_msg_group_rrsets(&msg, sets, 16);
	}
	t1 = now_ns();
	printf("dns_msg_parse+group    %-38s %6.1f ns/msg\n",
		"(response, 5 RRsets)", (t1 - t0) / (double)(iters / 4));

	/* an error reply */
	if(dns_query_parse_fast(qs[1], ql[1], &fq) != 0)
		abort();
	t0 = now_ns();
	for(i = 0; i < (size_t)iters / 4; i++)
		acc += (uint32_t)dns_build_error_reply(qs[1], ql[1], &fq,
			DNS_RCODE_SERVFAIL, 1, DNS_EDE_NO_REACHABLE_AUTHORITY,
			NULL, 1232, out, sizeof(out));
	t1 = now_ns();
	printf("dns_build_error_reply  %-38s %6.1f ns/reply\n",
		"(SERVFAIL + EDE)", (t1 - t0) / (double)(iters / 4));
	sink = acc;
	return 0;
}
