/*
 * tests/check_msgcache.c - the message cache: store rules, the hot-path
 * answer and its patches, truncation, refresh signals, flushing, dump and
 * load, the byte budget, and readers against writers on threads. The
 * single-threaded tests run twice: on a per-process table and on a
 * shared one (shared-cache), where a forked process also answers from
 * what its parent stored, and stores what its parent then answers.
 */
#include "config.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#include "services/cache/msgcache.h"
#include "util/storage/cachetab.h"
#include "util/storage/qsbr.h"
#include "util/storage/shmarena.h"
#include "util/storage/shmhash.h"
#include <sys/wait.h>
#include "util/thread.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif

/** the clock at store time in the tests */
#define T0 1000000

/** a test RR to put in a reply */
struct trr {
	/** section */
	int sec;
	/** owner, presentation */
	const char *owner;
	/** type */
	uint16_t type;
	/** ttl */
	uint32_t ttl;
	/** rdata */
	const uint8_t *rdata;
	/** its length */
	size_t rdlen;
};

/** SOA rdata: ns. host. 1 2 3 4 minimum */
static size_t
soa_rdata(uint8_t *buf, uint32_t minimum)
{
	size_t n = 0;
	buf[n++] = 2; buf[n++] = 'n'; buf[n++] = 's'; buf[n++] = 0;
	buf[n++] = 1; buf[n++] = 'h'; buf[n++] = 0;
	dns_write_u32(buf + n, 1); n += 4;
	dns_write_u32(buf + n, 2); n += 4;
	dns_write_u32(buf + n, 3); n += 4;
	dns_write_u32(buf + n, 4); n += 4;
	dns_write_u32(buf + n, minimum); n += 4;
	return n;
}

/** build an upstream reply; @return its length */
static size_t
make_reply(uint8_t *buf, size_t cap, const char *qname, uint16_t qtype,
	int rcode, uint16_t extra_flags, const struct trr *rrs, size_t n,
	int with_opt)
{
	struct dns_builder b;
	uint8_t nm[DNS_MAX_NAME];
	size_t i;
	dns_build_init(&b, buf, cap, 0);
	ck_assert_int_eq(dns_build_header(&b, 0x1234, (uint16_t)(DNS_FLAG_QR |
		DNS_FLAG_AA | DNS_FLAG_RD | extra_flags | rcode)), 0);
	tu_name(qname, nm);
	ck_assert_int_eq(dns_build_question(&b, nm, qtype, DNS_CLASS_IN), 0);
	for(i = 0; i < n; i++) {
		tu_name(rrs[i].owner, nm);
		ck_assert_int_eq(dns_build_rr(&b, rrs[i].sec, nm, rrs[i].type,
			DNS_CLASS_IN, rrs[i].ttl, rrs[i].rdata, rrs[i].rdlen),
			0);
	}
	if(with_opt)
		ck_assert_int_eq(dns_build_opt(&b, 4096, 0, 1, NULL, 0), 0);
	return dns_build_finish(&b);
}

/** build and parse a client query */
static size_t
make_query(uint8_t *buf, struct fast_query *fq, const char *qname,
	uint16_t qtype, uint16_t id, uint16_t flags, int edns, uint16_t udp,
	int do_bit)
{
	struct dns_builder b;
	uint8_t nm[DNS_MAX_NAME];
	size_t len;
	dns_build_init(&b, buf, 512, 0);
	ck_assert_int_eq(dns_build_header(&b, id, flags), 0);
	tu_name(qname, nm);
	ck_assert_int_eq(dns_build_question(&b, nm, qtype, DNS_CLASS_IN), 0);
	if(edns)
		ck_assert_int_eq(dns_build_opt(&b, udp, 0, do_bit, NULL, 0), 0);
	len = dns_build_finish(&b);
	ck_assert_int_eq(dns_query_parse_fast(buf, len, fq), 0);
	return len;
}

static void
qinfo(struct query_info *qi, const char *s, uint16_t qtype)
{
	uint8_t nm[DNS_MAX_NAME];
	tu_name(s, nm);
	ck_assert_int_eq(query_info_set(qi, nm, qtype, DNS_CLASS_IN), 0);
}

static const uint8_t a1[4] = {192, 0, 2, 1};
static const uint8_t a2[4] = {192, 0, 2, 2};

/** 1 while the tests run on shared tables (the "shared" test case) */
static int g_shared;

/** checked fixture of the shared test case */
static void
shared_on(void)
{
	g_shared = 1;
}

/** its teardown (for CK_FORK=no runs) */
static void
shared_off(void)
{
	g_shared = 0;
}

static struct mcache *
new_cache(struct mcache_params *p)
{
	struct mcache_params d;
	struct mcache *c;
	if(!p) {
		mcache_params_default(&d);
		p = &d;
	}
	if(g_shared) {
		/* each test runs in its own process: the mapping goes with
		 * it */
		void *base = shmarena_map_create(65536 +
			mcache_shared_space(p));
		uint64_t off;
		ck_assert_ptr_nonnull(base);
		off = mcache_shared_init(base, p);
		ck_assert_uint_ne(off, 0);
		c = mcache_create_shared(p, base, off);
		ck_assert_ptr_nonnull(c);
		ck_assert_ptr_null(cachetab_local_table(mcache_cachetab(c)));
		return c;
	}
	c = mcache_create(p);
	ck_assert_ptr_nonnull(c);
	return c;
}

/** store the standard positive answer: two A records, TTL 300 and 3600 */
static void
store_a(struct mcache *c, const char *qname, int do_bit, int cd_bit,
	enum mcache_security sec)
{
	uint8_t buf[1024];
	struct trr rrs[2] = {
		{ DNS_SEC_ANSWER, qname, DNS_TYPE_A, 300, a1, 4 },
		{ DNS_SEC_ANSWER, qname, DNS_TYPE_A, 3600, a2, 4 },
	};
	struct query_info qi;
	size_t len = make_reply(buf, sizeof(buf), qname, DNS_TYPE_A, 0, 0,
		rrs, 2, 1);
	qinfo(&qi, qname, DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, do_bit, cd_bit, buf, len, T0,
		sec, -1), MCACHE_STORED);
}

/** answer a query and parse the reply */
static enum mcache_result
ask(struct mcache *c, const char *qname, uint16_t qtype, uint16_t flags,
	int edns, uint16_t udp, int do_bit, time_t now, uint8_t *out,
	size_t *outlen, struct dns_msg *msg, int *refresh)
{
	uint8_t q[512];
	struct fast_query fq;
	enum mcache_result r;
	make_query(q, &fq, qname, qtype, 0xbeef, flags, edns, udp, do_bit);
	r = mcache_answer(c, &fq, q, 0, now, out, 65535, outlen, refresh);
	if(r != MCACHE_MISS && msg) {
		ck_assert_int_eq(dns_msg_parse(out, *outlen, msg, NULL, 0), 0);
		ck_assert_uint_eq(msg->id, 0xbeef);
		/* the question bytes are the client's */
		ck_assert_int_eq(memcmp(out + 12, q + 12, fq.question_end - 12),
			0);
	}
	return r;
}

/* mcache_hash is the key's hash: the same for the same question in any
 * letter case, different with DO, CD or another type; prefetching it (or
 * any other hash) changes no answer */
START_TEST(test_hash_prefetch)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	uint8_t q[512];
	struct fast_query a, b;
	size_t len;
	struct dns_msg msg;
	uint32_t h;
	int stage;
	store_a(c, "www.example", 0, 0, MCACHE_SEC_UNCHECKED);
	make_query(q, &a, "www.example", DNS_TYPE_A, 1, DNS_FLAG_RD, 0, 0, 0);
	h = mcache_hash(&a);
	make_query(q, &b, "WwW.ExAmple", DNS_TYPE_A, 2, 0, 1, 4096, 0);
	ck_assert_uint_eq(mcache_hash(&b), h);
	make_query(q, &b, "www.example", DNS_TYPE_A, 1, 0, 1, 4096, 1);
	ck_assert_uint_ne(mcache_hash(&b), h);
	make_query(q, &b, "www.example", DNS_TYPE_A, 1, DNS_FLAG_CD, 0, 0, 0);
	ck_assert_uint_ne(mcache_hash(&b), h);
	make_query(q, &b, "www.example", DNS_TYPE_AAAA, 1, 0, 0, 0, 0);
	ck_assert_uint_ne(mcache_hash(&b), h);
	for(stage = 0; stage < 2; stage++) {
		mcache_prefetch(c, h, stage);
		mcache_prefetch(c, h ^ 0x5555, stage);
	}
	ck_assert_int_eq(ask(c, "www.example", DNS_TYPE_A, DNS_FLAG_RD, 0, 0,
		0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_int_eq(ask(c, "www.example", DNS_TYPE_AAAA, DNS_FLAG_RD, 0,
		0, 0, T0, out, &len, NULL, NULL), MCACHE_MISS);
	mcache_delete(c);
}
END_TEST

START_TEST(test_hit_patches)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	store_a(c, "www.example.com", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_uint_eq(mcache_get_count(c), 1);
	/* mixed case, RD, no EDNS, 100 s later */
	ck_assert_int_eq(ask(c, "WwW.ExAmPle.COM", DNS_TYPE_A, DNS_FLAG_RD, 0,
		0, 0, T0 + 100, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_QR);
	ck_assert(msg.flags & DNS_FLAG_RA);
	ck_assert(msg.flags & DNS_FLAG_RD);
	ck_assert(!(msg.flags & DNS_FLAG_AA));
	ck_assert(!(msg.flags & DNS_FLAG_AD));
	ck_assert(!(msg.flags & DNS_FLAG_TC));
	ck_assert(!(msg.flags & DNS_FLAG_CD));
	ck_assert_int_eq(msg.rcode, 0);
	ck_assert_uint_eq(msg.ancount, 2);
	ck_assert_uint_eq(msg.arcount, 0);
	ck_assert(!msg.edns.present);
	ck_assert_uint_eq(msg.rrs[0].ttl, 200);
	ck_assert_uint_eq(msg.rrs[1].ttl, 3500);
	/* the question in the client's case */
	ck_assert_int_eq(memcmp(out + 13, "WwW", 3), 0);
	/* a clock that went back: the stored TTLs, not garbage */
	ck_assert_int_eq(ask(c, "www.example.com", DNS_TYPE_A, 0, 0, 0, 0,
		T0 - 5, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_eq(msg.rrs[0].ttl, 300);
	/* no RD: RD clear; TTL counts down */
	ck_assert_int_eq(ask(c, "www.example.com", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 299, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(!(msg.flags & DNS_FLAG_RD));
	ck_assert_uint_eq(msg.rrs[0].ttl, 1);
	ck_assert_uint_eq(msg.rrs[1].ttl, 3301);
	/* expired */
	ck_assert_int_eq(ask(c, "www.example.com", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 300, out, &len, NULL, NULL), MCACHE_MISS);
	/* other type, other name: miss */
	ck_assert_int_eq(ask(c, "www.example.com", DNS_TYPE_AAAA, 0, 0, 0, 0,
		T0, out, &len, NULL, NULL), MCACHE_MISS);
	ck_assert_int_eq(ask(c, "ww.example.com", DNS_TYPE_A, 0, 0, 0, 0,
		T0, out, &len, NULL, NULL), MCACHE_MISS);
	/* another opcode (NOTIFY): not answered from the cache */
	ck_assert_int_eq(ask(c, "www.example.com", DNS_TYPE_A,
		DNS_OPCODE_NOTIFY << DNS_OPCODE_SHIFT, 0, 0, 0, T0, out, &len,
		NULL, NULL), MCACHE_MISS);
	mcache_delete(c);
}
END_TEST

START_TEST(test_edns_do_cd_ad)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	store_a(c, "sec.example", 0, 0, MCACHE_SEC_SECURE);
	/* EDNS without DO: OPT with our size, no DO; no AD */
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, DNS_FLAG_RD, 1,
		4096, 0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.edns.present);
	ck_assert_uint_eq(msg.edns.udp_size, 1232);
	ck_assert(!msg.edns.do_bit);
	ck_assert_uint_eq(msg.arcount, 1);
	ck_assert(!(msg.flags & DNS_FLAG_AD));
	/* AD asked: AD set for a secure entry */
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, DNS_FLAG_AD, 1,
		4096, 0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_AD);
	/* DO is part of the key */
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, 0, 1, 4096, 1, T0,
		out, &len, NULL, NULL), MCACHE_MISS);
	store_a(c, "sec.example", 1, 0, MCACHE_SEC_SECURE);
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, 0, 1, 4096, 1, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.edns.do_bit);
	ck_assert(msg.flags & DNS_FLAG_AD);
	/* CD is part of the key, and copied */
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, DNS_FLAG_CD, 0, 0,
		0, T0, out, &len, NULL, NULL), MCACHE_MISS);
	store_a(c, "sec.example", 0, 1, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "sec.example", DNS_TYPE_A, DNS_FLAG_CD, 0, 0,
		0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_CD);
	ck_assert(!(msg.flags & DNS_FLAG_AD));
	/* an insecure entry never gets AD */
	store_a(c, "ins.example", 1, 0, MCACHE_SEC_INSECURE);
	ck_assert_int_eq(ask(c, "ins.example", DNS_TYPE_A, DNS_FLAG_AD, 1,
		4096, 1, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(!(msg.flags & DNS_FLAG_AD));
	mcache_delete(c);
}
END_TEST

/** store a negative answer: rcode, SOA TTL soa_ttl, minimum min */
static enum mcache_store_result
store_neg(struct mcache *c, const char *qname, int rcode, uint32_t soa_ttl,
	uint32_t minimum, int with_soa)
{
	uint8_t buf[1024], soa[64];
	struct trr rrs[1] = {
		{ DNS_SEC_AUTHORITY, "example", DNS_TYPE_SOA, soa_ttl, soa, 0 }
	};
	struct query_info qi;
	size_t len;
	rrs[0].rdlen = soa_rdata(soa, minimum);
	len = make_reply(buf, sizeof(buf), qname, DNS_TYPE_A, rcode, 0, rrs,
		with_soa ? 1 : 0, 0);
	qinfo(&qi, qname, DNS_TYPE_A);
	return mcache_store(c, &qi, 0, 0, buf, len, T0, MCACHE_SEC_UNCHECKED,
		-1);
}

/** store the standard positive answer with mcache_store_msg_share */
static void
store_a_share_do(struct mcache *c, const char *qname, int do_bit,
	int cd_bit, int share, enum mcache_security sec)
{
	uint8_t buf[1024];
	struct trr rrs[2] = {
		{ DNS_SEC_ANSWER, qname, DNS_TYPE_A, 300, a1, 4 },
		{ DNS_SEC_ANSWER, qname, DNS_TYPE_A, 3600, a2, 4 },
	};
	struct query_info qi;
	struct dns_msg msg;
	size_t len = make_reply(buf, sizeof(buf), qname, DNS_TYPE_A, 0, 0,
		rrs, 2, 1);
	qinfo(&qi, qname, DNS_TYPE_A);
	ck_assert_int_eq(dns_msg_parse(buf, len, &msg, NULL, 0), 0);
	ck_assert_int_eq(mcache_store_msg_share(c, &qi, do_bit, cd_bit, share,
		buf, len, &msg, T0, sec, -1), MCACHE_STORED);
}

/** as store_a_share_do, without DO */
static void
store_a_share(struct mcache *c, const char *qname, int cd_bit, int share,
	enum mcache_security sec)
{
	store_a_share_do(c, qname, 0, cd_bit, share, sec);
}

/* an entry stored as shared answers queries with the other CD bit that
 * have no entry of their own (their CD bit is echoed, the TTLs counted
 * down); an entry not shared, or a bogus one, does not; the own key's
 * entry wins over a shared one; DO stays part of the key */
START_TEST(test_share_cd)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	/* not shared: CD and non-CD kept apart */
	store_a_share(c, "apart.example", 1, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "apart.example", DNS_TYPE_A, DNS_FLAG_RD, 0,
		0, 0, T0, out, &len, NULL, NULL), MCACHE_MISS);
	/* a shared CD answer serves a non-CD client */
	store_a_share(c, "cd.example", 1, 1, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "cd.example", DNS_TYPE_A, DNS_FLAG_RD, 0, 0,
		0, T0 + 100, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(!(msg.flags & DNS_FLAG_CD));
	ck_assert_uint_eq(msg.ancount, 2);
	ck_assert_uint_eq(msg.rrs[0].ttl, 200);
	/* but not one with DO (the DO form may differ) */
	ck_assert_int_eq(ask(c, "cd.example", DNS_TYPE_A, DNS_FLAG_RD, 1,
		4096, 1, T0, out, &len, NULL, NULL), MCACHE_MISS);
	/* a shared non-CD answer serves a CD client, AD as it would */
	store_a_share(c, "plain.example", 0, 1, MCACHE_SEC_SECURE);
	ck_assert_int_eq(ask(c, "plain.example", DNS_TYPE_A, DNS_FLAG_CD |
		DNS_FLAG_AD, 0, 0, 0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_CD);
	ck_assert(msg.flags & DNS_FLAG_AD);
	/* a bogus answer is never shared */
	store_a_share(c, "bogus.example", 1, 1, MCACHE_SEC_BOGUS);
	ck_assert_int_eq(ask(c, "bogus.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, NULL, NULL), MCACHE_MISS);
	/* the own key's entry wins */
	store_a_share(c, "both.example", 1, 1, MCACHE_SEC_UNCHECKED);
	store_neg(c, "both.example", DNS_RCODE_NXDOMAIN, 300, 300, 1);
	ck_assert_int_eq(ask(c, "both.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_int_eq(msg.rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_int_eq(ask(c, "both.example", DNS_TYPE_A, DNS_FLAG_CD, 0, 0,
		0, T0, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_int_eq(msg.rcode, DNS_RCODE_NOERROR);
	/* a DO answer shared with non-DO clients: no DO in their OPT */
	store_a_share_do(c, "do.example", 1, 0, MCACHE_SHARE_DO,
		MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "do.example", DNS_TYPE_A, 0, 1, 4096, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.edns.present);
	ck_assert(!msg.edns.do_bit);
	ck_assert_int_eq(ask(c, "do.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, NULL, NULL), MCACHE_HIT);
	/* shared with CD only: a non-DO client misses */
	store_a_share_do(c, "doonly.example", 1, 0, MCACHE_SHARE_CD,
		MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "doonly.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, NULL, NULL), MCACHE_MISS);
	ck_assert_int_eq(ask(c, "doonly.example", DNS_TYPE_A, DNS_FLAG_CD, 1,
		4096, 1, T0, out, &len, NULL, NULL), MCACHE_HIT);
	mcache_delete(c);
}
END_TEST

START_TEST(test_negative)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	struct mcache_state st;
	struct query_info qi;
	mcache_params_default(&p);
	p.max_negative_ttl = 600;
	c = new_cache(&p);
	/* NXDOMAIN: min(SOA TTL 3600, minimum 300) */
	ck_assert_int_eq(store_neg(c, "nx.example", DNS_RCODE_NXDOMAIN, 3600,
		300, 1), MCACHE_STORED);
	qinfo(&qi, "nx.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 300);
	ck_assert_int_eq(st.rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_int_eq(ask(c, "nx.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 10,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_int_eq(msg.rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_uint_eq(msg.nscount, 1);
	ck_assert_uint_eq(msg.rrs[0].type, DNS_TYPE_SOA);
	ck_assert_uint_eq(msg.rrs[0].ttl, 290);
	ck_assert_int_eq(ask(c, "nx.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 300,
		out, &len, NULL, NULL), MCACHE_MISS);
	/* NODATA with SOA TTL 100 < minimum 900 */
	ck_assert_int_eq(store_neg(c, "nodata.example", 0, 100, 900, 1),
		MCACHE_STORED);
	qinfo(&qi, "nodata.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 100);
	/* bounded by cache-max-negative-ttl */
	ck_assert_int_eq(store_neg(c, "long.example", DNS_RCODE_NXDOMAIN,
		86400, 86400, 1), MCACHE_STORED);
	qinfo(&qi, "long.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 600);
	/* no SOA: kept MCACHE_NOSOA_NEG_TTL seconds (issue 17 item 5) */
	ck_assert_int_eq(store_neg(c, "nosoa.example", DNS_RCODE_NXDOMAIN,
		0, 0, 0), MCACHE_STORED);
	ck_assert_int_eq(store_neg(c, "nosoa2.example", 0, 0, 0, 0),
		MCACHE_STORED);
	qinfo(&qi, "nosoa2.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, MCACHE_NOSOA_NEG_TTL);
	ck_assert_int_eq(ask(c, "nosoa2.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + MCACHE_NOSOA_NEG_TTL, out, &len, NULL, NULL), MCACHE_MISS);
	/* SOA minimum 0: not cached */
	ck_assert_int_eq(store_neg(c, "zero.example", DNS_RCODE_NXDOMAIN,
		300, 0, 1), MCACHE_NOT_CACHEABLE);
	/* flush negative */
	ck_assert_uint_eq(mcache_get_count(c), 5);
	store_a(c, "pos.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_uint_eq(mcache_flush_negative(c), 5);
	ck_assert_uint_eq(mcache_get_count(c), 1);
	mcache_delete(c);
	/* cache-min-negative-ttl raises a short negative TTL, and
	 * cache-max-negative-ttl still caps it */
	mcache_params_default(&p);
	p.min_negative_ttl = 120;
	p.max_negative_ttl = 600;
	c = new_cache(&p);
	ck_assert_int_eq(store_neg(c, "short.example", DNS_RCODE_NXDOMAIN,
		30, 30, 1), MCACHE_STORED);
	qinfo(&qi, "short.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 120);
	ck_assert_int_eq(store_neg(c, "long.example", 0, 86400, 86400, 1),
		MCACHE_STORED);
	qinfo(&qi, "long.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_peek(c, &qi, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 600);
	mcache_delete(c);
}
END_TEST

START_TEST(test_ttl_rules)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	uint8_t buf[1024];
	size_t len;
	struct dns_msg msg;
	struct query_info qi;
	struct trr rrs[2] = {
		{ DNS_SEC_ANSWER, "t.example", DNS_TYPE_A, 10, a1, 4 },
		{ DNS_SEC_ANSWER, "t.example", DNS_TYPE_A, 999999, a2, 4 },
	};
	mcache_params_default(&p);
	p.min_ttl = 60;
	p.max_ttl = 1000;
	c = new_cache(&p);
	len = make_reply(buf, sizeof(buf), "t.example", DNS_TYPE_A, 0, 0, rrs,
		2, 0);
	qinfo(&qi, "t.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
	ck_assert_int_eq(ask(c, "t.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 30,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_eq(msg.rrs[0].ttl, 30);
	ck_assert_uint_eq(msg.rrs[1].ttl, 970);
	ck_assert_int_eq(ask(c, "t.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 60,
		out, &len, NULL, NULL), MCACHE_MISS);
	/* a TTL 0 record: never cached, even with cache-min-ttl */
	rrs[0].ttl = 0;
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A, 0, 0, rrs,
		1, 0);
	rrs[0].owner = "z.example";
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A, 0, 0, rrs,
		1, 0);
	qinfo(&qi, "z.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_NOT_CACHEABLE);
	/* a TTL above 2^31 counts as 0 (RFC 2181) */
	rrs[0].ttl = 0x80000000u;
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A, 0, 0, rrs,
		1, 0);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_NOT_CACHEABLE);
	/* SERVFAIL, TC, and a question mismatch are not cached */
	rrs[0].ttl = 100;
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A,
		DNS_RCODE_SERVFAIL, 0, rrs, 1, 0);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_NOT_CACHEABLE);
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A, 0,
		DNS_FLAG_TC, rrs, 1, 0);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_NOT_CACHEABLE);
	qinfo(&qi, "other.example", DNS_TYPE_A);
	len = make_reply(buf, sizeof(buf), "z.example", DNS_TYPE_A, 0, 0, rrs,
		1, 0);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_NOT_CACHEABLE);
	/* garbage */
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, 7, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_ERROR);
	mcache_delete(c);
}
END_TEST

START_TEST(test_prefetch)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	size_t len;
	int refresh;
	mcache_params_default(&p);
	p.prefetch = 1;
	c = new_cache(&p);
	store_a(c, "pf.example", 0, 0, MCACHE_SEC_UNCHECKED); /* TTL 300 */
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 269,
		out, &len, NULL, &refresh), MCACHE_HIT);
	ck_assert_int_eq(refresh, 0);
	/* last 10%: the first caller is told to refresh, the others not */
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 270,
		out, &len, NULL, &refresh), MCACHE_HIT_PREFETCH);
	ck_assert_int_eq(refresh, 1);
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 270,
		out, &len, NULL, &refresh), MCACHE_HIT_PREFETCH);
	ck_assert_int_eq(refresh, 0);
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 274,
		out, &len, NULL, &refresh), MCACHE_HIT_PREFETCH);
	ck_assert_int_eq(refresh, 0);
	/* the refresh did not land in MCACHE_REFRESH_RETRY s: ask again */
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 270 + MCACHE_REFRESH_RETRY, out, &len, NULL, &refresh),
		MCACHE_HIT_PREFETCH);
	ck_assert_int_eq(refresh, 1);
	/* a refreshed entry starts over */
	store_a(c, "pf.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 280,
		out, &len, NULL, &refresh), MCACHE_HIT_PREFETCH);
	ck_assert_int_eq(refresh, 1);
	mcache_delete(c);
	/* without prefetch: a plain hit */
	mcache_params_default(&p);
	c = new_cache(&p);
	store_a(c, "pf.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "pf.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 290,
		out, &len, NULL, &refresh), MCACHE_HIT);
	ck_assert_int_eq(refresh, 0);
	mcache_delete(c);
}
END_TEST

/** find the EDE info code in a parsed reply's OPT; -1 when none */
static int
find_ede(const uint8_t *pkt, const struct dns_msg *msg)
{
	uint16_t i;
	for(i = 0; i < msg->edns.num_opts && i < EDNS_MAX_OPTS; i++)
		if(msg->edns.opts[i].code == DNS_EDNS_EDE &&
			msg->edns.opts[i].len >= 2)
			return dns_read_u16(pkt + msg->edns.opts[i].off);
	return -1;
}

START_TEST(test_serve_expired)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	size_t len, i;
	struct dns_msg msg;
	int refresh;
	mcache_params_default(&p);
	p.serve_expired = 1;
	p.serve_expired_ttl = 100;
	p.serve_expired_reply_ttl = 30;
	c = new_cache(&p);
	store_a(c, "old.example", 0, 0, MCACHE_SEC_UNCHECKED); /* TTL 300 */
	/* fresh: no EDE */
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 1, 1232, 0,
		T0 + 10, out, &len, &msg, &refresh), MCACHE_HIT);
	ck_assert_int_eq(find_ede(out, &msg), -1);
	/* expired, within serve-expired-ttl */
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 1, 1232, 0,
		T0 + 350, out, &len, &msg, &refresh), MCACHE_HIT_EXPIRED);
	ck_assert_int_eq(refresh, 1);
	/* the expired record says serve-expired-reply-ttl; the one still
	 * live (TTL 3600) what is left of it, as Unbound's live sets do */
	ck_assert_uint_eq(msg.rr_count, 2);
	for(i = 0; i < msg.rr_count; i++)
		ck_assert_uint_eq(msg.rrs[i].ttl, i == 0 ? 30 : 3600 - 350);
	ck_assert_int_eq(find_ede(out, &msg), DNS_EDE_STALE_ANSWER);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 351, out, &len, &msg, &refresh), MCACHE_HIT_EXPIRED);
	ck_assert_int_eq(refresh, 0);
	ck_assert(!msg.edns.present);
	/* past serve-expired-ttl */
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 400, out, &len, NULL, &refresh), MCACHE_MISS);
	/* serve-expired-ttl-reset: a failed refresh at T0 + 400 starts the
	 * window again; on a fresh entry it changes nothing */
	{
		struct query_info qi;
		qinfo(&qi, "old.example", DNS_TYPE_A);
		mcache_stale_reset(c, &qi, 0, 0, T0 + 400);
		ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
			T0 + 450, out, &len, NULL, &refresh),
			MCACHE_HIT_EXPIRED);
		ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
			T0 + 500, out, &len, NULL, &refresh), MCACHE_MISS);
		store_a(c, "new.example", 0, 0, MCACHE_SEC_UNCHECKED);
		qinfo(&qi, "new.example", DNS_TYPE_A);
		mcache_stale_reset(c, &qi, 0, 0, T0 + 10);
		ck_assert_int_eq(ask(c, "new.example", DNS_TYPE_A, 0, 0, 0, 0,
			T0 + 400, out, &len, NULL, &refresh), MCACHE_MISS);
	}
	/* a stale NXDOMAIN carries EDE 19 */
	ck_assert_int_eq(store_neg(c, "gone.example", DNS_RCODE_NXDOMAIN, 60,
		60, 1), MCACHE_STORED);
	ck_assert_int_eq(ask(c, "gone.example", DNS_TYPE_A, 0, 1, 1232, 0,
		T0 + 61, out, &len, &msg, &refresh), MCACHE_HIT_EXPIRED);
	ck_assert_int_eq(msg.rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_int_eq(find_ede(out, &msg), DNS_EDE_STALE_NXDOMAIN);
	mcache_delete(c);
	/* serve-expired off */
	mcache_params_default(&p);
	c = new_cache(&p);
	store_a(c, "old.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 301, out, &len, NULL, &refresh), MCACHE_MISS);
	mcache_delete(c);
}
END_TEST

/* the TTLs of a stale answer: serve-expired-reply-ttl, at most the
 * record's own TTL; with serve-original-ttl the stored TTLs */
START_TEST(test_stale_ttl)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	mcache_params_default(&p);
	p.serve_expired = 1;
	p.serve_expired_reply_ttl = 1000;
	c = new_cache(&p);
	store_a(c, "old.example", 0, 0, MCACHE_SEC_UNCHECKED); /* 300, 3600 */
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 4000, out, &len, &msg, NULL), MCACHE_HIT_EXPIRED);
	ck_assert_uint_eq(msg.rrs[0].ttl, 300);
	ck_assert_uint_eq(msg.rrs[1].ttl, 1000);
	mcache_delete(c);
	p.original_ttl = 1;
	p.min_ttl = 0;
	p.max_ttl = 86400;
	c = new_cache(&p);
	store_a(c, "old.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 4000, out, &len, &msg, NULL), MCACHE_HIT_EXPIRED);
	ck_assert_uint_eq(msg.rrs[0].ttl, 300);
	ck_assert_uint_eq(msg.rrs[1].ttl, 3600);
	mcache_delete(c);
}
END_TEST

/* a SERVFAIL kept MCACHE_SERVFAIL_TTL seconds (RFC 9520 section 3.2):
 * answered with its EDE while it lives, never served stale, not shared
 * with the other DO bit */
START_TEST(test_servfail)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	struct query_info qi;
	int refresh;
	mcache_params_default(&p);
	p.serve_expired = 1;
	c = new_cache(&p);
	qinfo(&qi, "fail.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store_servfail(c, &qi, 0, 0, T0,
		DNS_EDE_NO_REACHABLE_AUTHORITY), MCACHE_STORED);
	ck_assert_int_eq(ask(c, "fail.example", DNS_TYPE_A, DNS_FLAG_RD, 1,
		1232, 0, T0 + 1, out, &len, &msg, &refresh), MCACHE_HIT);
	ck_assert_int_eq(msg.rcode, DNS_RCODE_SERVFAIL);
	ck_assert_uint_eq(msg.ancount + msg.nscount, 0);
	ck_assert_int_eq(find_ede(out, &msg), DNS_EDE_NO_REACHABLE_AUTHORITY);
	ck_assert_int_eq(ask(c, "fail.example", DNS_TYPE_A, DNS_FLAG_RD, 1,
		1232, 1, T0 + 1, out, &len, NULL, NULL), MCACHE_MISS);
	ck_assert_int_eq(ask(c, "fail.example", DNS_TYPE_A, DNS_FLAG_RD, 0,
		0, 0, T0 + MCACHE_SERVFAIL_TTL, out, &len, NULL, &refresh),
		MCACHE_MISS);
	/* flush_negative removes it (as Unbound's) */
	ck_assert_int_eq(mcache_store_servfail(c, &qi, 0, 0, T0, -1),
		MCACHE_STORED);
	ck_assert_uint_eq(mcache_flush_negative(c), 1);
	ck_assert_int_eq(ask(c, "fail.example", DNS_TYPE_A, DNS_FLAG_RD, 0,
		0, 0, T0 + 1, out, &len, NULL, &refresh), MCACHE_MISS);
	/* a failed refresh of an expired answer: served stale at once, no
	 * refresh signalled, for MCACHE_SERVFAIL_TTL seconds; a fresh
	 * entry is left alone */
	store_a(c, "old.example", 0, 0, MCACHE_SEC_UNCHECKED); /* TTL 300 */
	qinfo(&qi, "old.example", DNS_TYPE_A);
	mcache_norec_set(c, &qi, 0, 0, T0 + 10);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 10, out, &len, NULL, &refresh), MCACHE_HIT);
	ck_assert_int_eq(refresh, 0);
	mcache_norec_set(c, &qi, 0, 0, T0 + 400);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 401, out, &len, NULL, &refresh), MCACHE_HIT_EXPIRED);
	ck_assert_int_eq(refresh, MCACHE_ANSWER_NOREC);
	ck_assert_int_eq(ask(c, "old.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 400 + MCACHE_SERVFAIL_TTL, out, &len, NULL, &refresh),
		MCACHE_HIT_EXPIRED);
	ck_assert_int_eq(refresh, MCACHE_ANSWER_REFRESH);
	mcache_delete(c);
}
END_TEST

/* a non-DO answer stored as serving DO clients too replaces the entry of
 * the DO key (an older answer, which would win over it) */
START_TEST(test_share_do_supersedes)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	/* the DO key's own entry: secure, so a DO client gets AD */
	store_a(c, "both.example", 1, 0, MCACHE_SEC_SECURE);
	ck_assert_int_eq(ask(c, "both.example", DNS_TYPE_A, 0, 1, 1232, 1, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_AD);
	/* a newer non-DO answer that serves DO clients too: the DO entry
	 * goes, the DO client gets the new one (not secure: no AD) */
	store_a_share_do(c, "both.example", 0, 0, MCACHE_SHARE_DO,
		MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "both.example", DNS_TYPE_A, 0, 1, 1232, 1, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(!(msg.flags & DNS_FLAG_AD));
	/* not shared: the DO entry stays */
	store_a(c, "kept.example", 1, 0, MCACHE_SEC_SECURE);
	store_a_share_do(c, "kept.example", 0, 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(ask(c, "kept.example", DNS_TYPE_A, 0, 1, 1232, 1, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_AD);
	mcache_delete(c);
}
END_TEST

/* mcache_copy_msg (harden-below-nxdomain reads a parent's entry): the
 * whole message with TTLs counted down, its rcode and security; nothing
 * once expired or when it does not fit */
START_TEST(test_copy_msg)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t buf[65535];
	struct query_info qi;
	struct mcache_state st;
	struct dns_msg msg;
	size_t len = 0;
	store_a(c, "copy.example", 1, 0, MCACHE_SEC_SECURE);
	qinfo(&qi, "copy.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_copy_msg(c, &qi, 1, 0, T0 + 100, buf,
		sizeof(buf), &len, &st), 0);
	ck_assert_int_eq(st.sec, MCACHE_SEC_SECURE);
	ck_assert_int_eq(st.rcode, 0);
	ck_assert_uint_eq(st.ttl, 200);
	ck_assert_int_eq(dns_msg_parse(buf, len, &msg, NULL, 0), 0);
	ck_assert_uint_eq(msg.ancount, 2);
	ck_assert_uint_eq(msg.rrs[0].ttl, 200);
	ck_assert_uint_eq(msg.rrs[1].ttl, 3500);
	/* other key bits, too small a buffer, expired: nothing */
	ck_assert_int_eq(mcache_copy_msg(c, &qi, 0, 0, T0 + 100, buf,
		sizeof(buf), &len, &st), -1);
	ck_assert_int_eq(mcache_copy_msg(c, &qi, 1, 0, T0 + 100, buf, 20,
		&len, &st), -1);
	ck_assert_int_eq(mcache_copy_msg(c, &qi, 1, 0, T0 + 300, buf,
		sizeof(buf), &len, &st), -1);
	mcache_delete(c);
}
END_TEST

START_TEST(test_truncation)
{
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535], buf[65535];
	struct trr rrs[80];
	uint8_t addrs[80][4];
	size_t len, i;
	struct dns_msg msg;
	struct query_info qi;
	uint8_t q[512];
	struct fast_query fq;

	/* 40 A records in the answer: 40*16 + header + question > 512 */
	for(i = 0; i < 40; i++) {
		addrs[i][0] = 10; addrs[i][1] = 0; addrs[i][2] = 0;
		addrs[i][3] = (uint8_t)i;
		rrs[i].sec = DNS_SEC_ANSWER;
		rrs[i].owner = "big.example";
		rrs[i].type = DNS_TYPE_A;
		rrs[i].ttl = 300;
		rrs[i].rdata = addrs[i];
		rrs[i].rdlen = 4;
	}
	len = make_reply(buf, sizeof(buf), "big.example", DNS_TYPE_A, 0, 0,
		rrs, 40, 0);
	qinfo(&qi, "big.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
	/* no EDNS: 512, the one RRset does not fit: TC, empty answer */
	ck_assert_int_eq(ask(c, "big.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_le(len, 512);
	ck_assert(msg.flags & DNS_FLAG_TC);
	ck_assert_uint_eq(msg.ancount, 0);
	/* EDNS 1232: fits */
	ck_assert_int_eq(ask(c, "big.example", DNS_TYPE_A, 0, 1, 1232, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(!(msg.flags & DNS_FLAG_TC));
	ck_assert_uint_eq(msg.ancount, 40);
	/* EDNS 100 is taken as 512 */
	ck_assert_int_eq(ask(c, "big.example", DNS_TYPE_A, 0, 1, 100, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_le(len, 512);
	ck_assert(msg.flags & DNS_FLAG_TC);
	ck_assert(msg.edns.present);
	/* TCP: everything, no TC */
	make_query(q, &fq, "big.example", DNS_TYPE_A, 7, 0, 0, 0, 0);
	ck_assert_int_eq(mcache_answer(c, &fq, q, 1, T0, out, sizeof(out),
		&len, NULL), MCACHE_HIT);
	ck_assert_int_eq(dns_msg_parse(out, len, &msg, NULL, 0), 0);
	ck_assert_uint_eq(msg.ancount, 40);
	ck_assert(!(msg.flags & DNS_FLAG_TC));

	/* one answer, then 40 additional sets (one RR each): the answer
	 * stays, whole additional sets are dropped, no TC */
	rrs[0].owner = "mx.example";
	rrs[0].type = DNS_TYPE_A;
	for(i = 1; i < 41; i++) {
		static char owners[41][16];
		snprintf(owners[i], sizeof(owners[i]), "h%d.example", (int)i);
		rrs[i].sec = DNS_SEC_ADDITIONAL;
		rrs[i].owner = owners[i];
		rrs[i].type = DNS_TYPE_A;
		rrs[i].ttl = 300;
		rrs[i].rdata = addrs[i - 1];
		rrs[i].rdlen = 4;
	}
	len = make_reply(buf, sizeof(buf), "mx.example", DNS_TYPE_A, 0, 0,
		rrs, 41, 1);
	qinfo(&qi, "mx.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
	ck_assert_int_eq(ask(c, "mx.example", DNS_TYPE_A, 0, 1, 512, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_le(len, 512);
	ck_assert(!(msg.flags & DNS_FLAG_TC));
	ck_assert_uint_eq(msg.ancount, 1);
	ck_assert_uint_gt(msg.sec_count[DNS_SEC_ADDITIONAL], 5);
	ck_assert_uint_lt(msg.sec_count[DNS_SEC_ADDITIONAL], 40);
	ck_assert(msg.edns.present);
	/* every kept TTL was patched */
	for(i = 0; i < msg.rr_count; i++)
		ck_assert_uint_eq(msg.rrs[i].ttl, 300);

	/* one answer, then an authority NS set of 40 that does not fit:
	 * the set goes as a whole, and TC is set (authority data lost) */
	rrs[0].owner = "ns.example";
	for(i = 1; i < 41; i++) {
		static uint8_t nsnames[41][32];
		char nm[32];
		size_t l = sizeof(nsnames[i]);
		snprintf(nm, sizeof(nm), "server-number-%d.example", (int)i);
		ck_assert_int_eq(dname_from_str(nm, nsnames[i], &l), 0);
		rrs[i].sec = DNS_SEC_AUTHORITY;
		rrs[i].owner = "example";
		rrs[i].type = DNS_TYPE_NS;
		rrs[i].ttl = 300;
		rrs[i].rdata = nsnames[i];
		rrs[i].rdlen = l;
	}
	len = make_reply(buf, sizeof(buf), "ns.example", DNS_TYPE_A, 0, 0,
		rrs, 41, 0);
	ck_assert_uint_gt(len, 512);
	qinfo(&qi, "ns.example", DNS_TYPE_A);
	ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
		MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
	ck_assert_int_eq(ask(c, "ns.example", DNS_TYPE_A, 0, 0, 0, 0, T0,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_le(len, 512);
	ck_assert(msg.flags & DNS_FLAG_TC);
	ck_assert_uint_eq(msg.ancount, 1);
	ck_assert_uint_eq(msg.nscount, 0);

	/* an authority NS set that fits and its RRSIG that does not: the
	 * set goes with its signature (one unit, as Unbound's encoder
	 * truncates), and TC is set */
	{
		static uint8_t sig[480], nsname[32];
		size_t l = sizeof(nsname);
		memset(sig, 0, sizeof(sig));
		dns_write_u16(sig, DNS_TYPE_NS);
		sig[2] = 8;
		sig[3] = 1;
		ck_assert_int_eq(dname_from_str("ns1.example", nsname, &l), 0);
		rrs[0].owner = "sig.example";
		rrs[1].sec = DNS_SEC_AUTHORITY;
		rrs[1].owner = "example";
		rrs[1].type = DNS_TYPE_NS;
		rrs[1].ttl = 300;
		rrs[1].rdata = nsname;
		rrs[1].rdlen = l;
		rrs[2] = rrs[1];
		rrs[2].type = DNS_TYPE_RRSIG;
		rrs[2].rdata = sig;
		rrs[2].rdlen = sizeof(sig);
		len = make_reply(buf, sizeof(buf), "sig.example", DNS_TYPE_A,
			0, 0, rrs, 3, 0);
		ck_assert_uint_gt(len, 512);
		qinfo(&qi, "sig.example", DNS_TYPE_A);
		ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
			MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
		ck_assert_int_eq(ask(c, "sig.example", DNS_TYPE_A, 0, 0, 0, 0,
			T0, out, &len, &msg, NULL), MCACHE_HIT);
		ck_assert_uint_le(len, 512);
		ck_assert(msg.flags & DNS_FLAG_TC);
		ck_assert_uint_eq(msg.ancount, 1);
		ck_assert_uint_eq(msg.nscount, 0);
		/* with room for both, both */
		ck_assert_int_eq(ask(c, "sig.example", DNS_TYPE_A, 0, 1, 1232,
			0, T0, out, &len, &msg, NULL), MCACHE_HIT);
		ck_assert(!(msg.flags & DNS_FLAG_TC));
		ck_assert_uint_eq(msg.nscount, 2);
	}
	mcache_delete(c);
}
END_TEST

/** answer a query with ID id (no EDNS, UDP) and parse it */
static void
ask_id(struct mcache *c, const char *qname, uint16_t qtype, uint16_t id,
	uint8_t *out, size_t *len, struct dns_msg *msg)
{
	uint8_t q[512];
	struct fast_query fq;
	make_query(q, &fq, qname, qtype, id, DNS_FLAG_RD, 0, 0, 0);
	ck_assert_int_ne(mcache_answer(c, &fq, q, 0, T0 + 10, out, 65535, len,
		NULL), MCACHE_MISS);
	ck_assert_int_eq(dns_msg_parse(out, *len, msg, NULL, 0), 0);
}

/* rrset-roundrobin: an A set of three starts at the record the query ID
 * picks (ID mod 3), its TTLs still patched; a TXT set of unequal records
 * keeps its order; off, nothing moves; a set that an owner elsewhere
 * points into is not rotated */
START_TEST(test_roundrobin)
{
	struct mcache_params p;
	struct mcache *c;
	static uint8_t out[65535], buf[65535];
	static const uint8_t a3[4] = {192, 0, 2, 3};
	static const uint8_t t1[] = {3, 'o', 'n', 'e'};
	static const uint8_t t2[] = {5, 't', 'h', 'r', 'e', 'e'};
	static const uint8_t v6a[16] = {0x20, 1, 0xd, 0xb8, [15] = 1};
	static const uint8_t v6b[16] = {0x20, 1, 0xd, 0xb8, [15] = 2};
	struct trr rrs[7] = {
		{ DNS_SEC_ANSWER, "rr.example", DNS_TYPE_A, 300, a1, 4 },
		{ DNS_SEC_ANSWER, "rr.example", DNS_TYPE_A, 300, a2, 4 },
		{ DNS_SEC_ANSWER, "rr.example", DNS_TYPE_A, 300, a3, 4 },
		{ DNS_SEC_ADDITIONAL, "rr.example", DNS_TYPE_TXT, 300, t1, 4 },
		{ DNS_SEC_ADDITIONAL, "rr.example", DNS_TYPE_TXT, 300, t2, 6 },
		{ DNS_SEC_ADDITIONAL, "rr.example", DNS_TYPE_AAAA, 300, v6a,
		  16 },
		{ DNS_SEC_ADDITIONAL, "rr.example", DNS_TYPE_AAAA, 300, v6b,
		  16 },
	};
	/* x.example A: two A records whose RDATA reads as the names "a."
	 * and "b.", and a TXT record whose owner points at the first */
	static const uint8_t raw[] = {
		0x12, 0x34, 0x81, 0x80, 0, 1, 0, 2, 0, 0, 0, 1,
		1, 'x', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 0, 0, 1, 0, 1,
		0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 1, 0x2c, 0, 4, 1, 'a', 0, 0,
		0xc0, 0x0c, 0, 1, 0, 1, 0, 0, 1, 0x2c, 0, 4, 1, 'b', 0, 0,
		0xc0, 39, 0, 16, 0, 1, 0, 0, 1, 0x2c, 0, 2, 1, 'z' };
	struct trr two[2] = {
		{ DNS_SEC_ANSWER, "two.example", DNS_TYPE_A, 60, a1, 4 },
		{ DNS_SEC_ANSWER, "two.example", DNS_TYPE_A, 60, a2, 4 },
	};
	struct query_info qi;
	struct dns_msg msg;
	size_t len, i;
	uint16_t id;
	int on;
	for(on = 0; on < 2; on++) {
		mcache_params_default(&p);
		ck_assert_int_eq(p.roundrobin, 1);
		p.roundrobin = on;
		c = new_cache(&p);
		len = make_reply(buf, sizeof(buf), "rr.example", DNS_TYPE_A, 0,
			0, rrs, 7, 0);
		qinfo(&qi, "rr.example", DNS_TYPE_A);
		ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
			MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
		for(id = 0; id < 7; id++) {
			size_t k = on ? id % 3 : 0;
			ask_id(c, "rr.example", DNS_TYPE_A, id, out, &len, &msg);
			ck_assert_uint_eq(msg.ancount, 3);
			for(i = 0; i < 3; i++) {
				ck_assert_uint_eq(msg.rrs[i].rdlen, 4);
				ck_assert_uint_eq(out[msg.rrs[i].rdata_off + 3],
					(k + i) % 3 + 1);
				ck_assert_uint_eq(msg.rrs[i].ttl, 290);
			}
			ck_assert_uint_eq(msg.rrs[3].rdlen, 4);
			ck_assert_uint_eq(msg.rrs[4].rdlen, 6);
			/* the AAAA set (a second run) by ID mod 2 */
			ck_assert_uint_eq(out[msg.rrs[5].rdata_off + 15],
				(on ? id % 2 : 0) + 1);
			ck_assert_uint_eq(out[msg.rrs[6].rdata_off + 15],
				(on ? (id + 1) % 2 : 1) + 1);
		}
		/* a pair (the shortest copy) */
		len = make_reply(buf, sizeof(buf), "two.example", DNS_TYPE_A,
			0, 0, two, 2, 0);
		qinfo(&qi, "two.example", DNS_TYPE_A);
		ck_assert_int_eq(mcache_store(c, &qi, 0, 0, buf, len, T0,
			MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
		for(id = 0; id < 4; id++) {
			ask_id(c, "two.example", DNS_TYPE_A, id, out, &len, &msg);
			ck_assert_uint_eq(out[msg.rrs[0].rdata_off + 3],
				(on ? id % 2 : 0) + 1);
			ck_assert_uint_eq(out[msg.rrs[1].rdata_off + 3],
				(on ? (id + 1) % 2 : 1) + 1);
		}
		qinfo(&qi, "x.example", DNS_TYPE_A);
		ck_assert_int_eq(mcache_store(c, &qi, 0, 0, raw, sizeof(raw),
			T0, MCACHE_SEC_UNCHECKED, -1), MCACHE_STORED);
		for(id = 0; id < 4; id++) {
			uint8_t nm[DNS_MAX_NAME];
			size_t pos, nl = sizeof(nm);
			ask_id(c, "x.example", DNS_TYPE_A, id, out, &len, &msg);
			ck_assert_uint_eq(out[msg.rrs[0].rdata_off + 1], 'a');
			ck_assert_uint_eq(out[msg.rrs[1].rdata_off + 1], 'b');
			pos = msg.rrs[2].owner_off;
			ck_assert_int_eq(dname_pkt_read(out, len, &pos, nm, &nl),
				0);
			ck_assert_uint_eq(nm[1], 'a');
		}
		mcache_delete(c);
	}
}
END_TEST

START_TEST(test_flush)
{
	struct mcache *c = new_cache(NULL);
	uint8_t nm[DNS_MAX_NAME];
	store_a(c, "a.zone.example", 0, 0, MCACHE_SEC_UNCHECKED);
	store_a(c, "a.zone.example", 1, 0, MCACHE_SEC_UNCHECKED);
	store_a(c, "b.zone.example", 0, 0, MCACHE_SEC_UNCHECKED);
	store_a(c, "zone.example", 0, 0, MCACHE_SEC_BOGUS);
	store_a(c, "other.example", 0, 0, MCACHE_SEC_UNCHECKED);
	store_a(c, "notzone.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_uint_eq(mcache_get_count(c), 6);
	tu_name("A.Zone.Example", nm);
	ck_assert_uint_eq(mcache_flush_type(c, nm, DNS_TYPE_AAAA,
		DNS_CLASS_IN), 0);
	ck_assert_uint_eq(mcache_flush_type(c, nm, DNS_TYPE_A, DNS_CLASS_IN),
		2);
	ck_assert_uint_eq(mcache_get_count(c), 4);
	tu_name("b.zone.example", nm);
	ck_assert_uint_eq(mcache_flush_name(c, nm), 1);
	store_a(c, "b.zone.example", 0, 0, MCACHE_SEC_UNCHECKED);
	ck_assert_uint_eq(mcache_flush_bogus(c), 1);
	store_a(c, "zone.example", 0, 0, MCACHE_SEC_UNCHECKED);
	tu_name("zone.example", nm);
	ck_assert_uint_eq(mcache_flush_zone(c, nm), 2);
	ck_assert_uint_eq(mcache_get_count(c), 2);
	mcache_flush_all(c);
	ck_assert_uint_eq(mcache_get_count(c), 0);
	mcache_delete(c);
}
END_TEST

/** dump callback: store into another cache */
static void
reload_fn(const struct mcache_dump_entry *d, void *arg)
{
	struct mcache *c2 = arg;
	struct query_info qi;
	ck_assert_int_eq(query_info_set(&qi, d->qname, d->qtype, d->qclass),
		0);
	ck_assert_uint_eq(d->ttl, 250);
	ck_assert_int_eq(mcache_store(c2, &qi, d->do_bit, d->cd_bit, d->msg,
		d->msg_len, T0 + 50, d->sec, -1), MCACHE_STORED);
}

START_TEST(test_dump_load)
{
	struct mcache *c = new_cache(NULL), *c2 = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	store_a(c, "d1.example", 0, 0, MCACHE_SEC_UNCHECKED);
	store_a(c, "d2.example", 1, 0, MCACHE_SEC_SECURE);
	ck_assert_int_eq(mcache_traverse(c, T0 + 50, reload_fn, c2), 0);
	ck_assert_uint_eq(mcache_get_count(c2), 2);
	ck_assert_int_eq(ask(c2, "d1.example", DNS_TYPE_A, 0, 0, 0, 0, T0 + 60,
		out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_eq(msg.rrs[0].ttl, 240);
	ck_assert_uint_eq(msg.rrs[1].ttl, 3540);
	ck_assert_int_eq(ask(c2, "d2.example", DNS_TYPE_A, 0, 1, 1232, 1,
		T0 + 60, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert(msg.flags & DNS_FLAG_AD);
	mcache_delete(c);
	mcache_delete(c2);
}
END_TEST

START_TEST(test_budget)
{
	struct mcache_params p;
	struct mcache *c;
	int i;
	char nm[64];
	mcache_params_default(&p);
	p.maxmem = 256 * 1024;
	p.slabs = 4;
	c = new_cache(&p);
	for(i = 0; i < 20000; i++) {
		snprintf(nm, sizeof(nm), "host%d.example", i);
		store_a(c, nm, 0, 0, MCACHE_SEC_UNCHECKED);
		ck_assert_uint_le(mcache_get_mem(c), p.maxmem);
	}
	ck_assert_uint_gt(mcache_get_count(c), 500);
	ck_assert_uint_lt(mcache_get_count(c), 20000);
	mcache_delete(c);
}
END_TEST

START_TEST(test_shared_fork)
{
	/* what one process stores, another answers, both ways */
	struct mcache *c = new_cache(NULL);
	static uint8_t out[65535];
	size_t len;
	struct dns_msg msg;
	pid_t pid;
	int st;
	char err[256];
	store_a(c, "parent.example", 0, 0, MCACHE_SEC_UNCHECKED);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if(pid == 0) {
		/* the child: hit on the parent's entry, then store one */
		if(ask(c, "PARENT.example", DNS_TYPE_A, DNS_FLAG_RD, 0, 0, 0,
			T0 + 10, out, &len, &msg, NULL) != MCACHE_HIT ||
			msg.rrs[0].ttl != 290)
			_exit(1);
		store_a(c, "child.example", 0, 0, MCACHE_SEC_UNCHECKED);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(ask(c, "child.example", DNS_TYPE_A, 0, 0, 0, 0,
		T0 + 20, out, &len, &msg, NULL), MCACHE_HIT);
	ck_assert_uint_eq(mcache_get_count(c), 2);
	ck_assert_int_eq(shmhash_check(mcache_shared_table(c), err,
		sizeof(err)), 0);
	mcache_flush_all(c);
	ck_assert_uint_eq(mcache_get_count(c), 0);
	mcache_delete(c);
}
END_TEST

/* (ASan's allocator does not report through mallinfo2) */
#if defined(HAVE_MALLINFO2) && !defined(PETREL_SANITIZERS)
START_TEST(test_mallinfo)
{
	/* what the cache counts agrees with malloc within 10% when full */
	struct mcache_params p;
	struct mcache *c;
	struct mallinfo2 m0, m1;
	struct cachetab_figures fig;
	size_t used, counted;
	int i;
	char nm[64];
	mcache_params_default(&p);
	p.maxmem = 4 * 1024 * 1024;
	p.slabs = 8;
	m0 = mallinfo2();
	c = new_cache(&p);
	for(i = 0; i < 60000; i++) {
		snprintf(nm, sizeof(nm), "host%d.example.com", i);
		store_a(c, nm, i & 1, 0, MCACHE_SEC_UNCHECKED);
	}
	m1 = mallinfo2();
	used = m1.uordblks - m0.uordblks;
	cachetab_figures(mcache_cachetab(c), &fig);
	counted = fig.mem + fig.limbo_mem + slabhash_overhead(
		cachetab_local_table(mcache_cachetab(c)));
	ck_assert_uint_le(mcache_get_mem(c), p.maxmem);
	ck_assert_msg(counted * 10 >= used * 9 && counted * 10 <= used * 11,
		"counted %zu, malloc says %zu", counted, used);
	mcache_delete(c);
}
END_TEST
#endif

/* ---------------- readers and writers on threads ---------------- */
#ifdef PETREL_HAVE_THREADS

static struct mcache *s_cache;
static atomic_int s_stop, s_errors;
static _Atomic long s_hits;

static void *
s_reader(void *arg)
{
	struct qsbr_reader *r = qsbr_register();
	static _Thread_local uint8_t out[65535];
	uint8_t q[64][512];
	struct fast_query fq[64];
	int i, n = 0;
	long hits = 0;
	(void)arg;
	if(!r) {
		atomic_fetch_add(&s_errors, 1);
		return NULL;
	}
	for(i = 0; i < 64; i++) {
		char nm[64];
		snprintf(nm, sizeof(nm), "Host%d.Example", i);
		make_query(q[i], &fq[i], nm, DNS_TYPE_A, (uint16_t)i,
			DNS_FLAG_RD, 1, 1232, 0);
	}
	while(!atomic_load(&s_stop)) {
		size_t len;
		struct dns_msg msg;
		i = n++ % 64;
		if(mcache_answer(s_cache, &fq[i], q[i], 0, T0 + 1, out,
			sizeof(out), &len, NULL) != MCACHE_MISS) {
			hits++;
			if(dns_msg_parse(out, len, &msg, NULL, 0) != 0 ||
				msg.id != (uint16_t)i || msg.ancount != 2 ||
				msg.rrs[0].ttl != 299)
				atomic_fetch_add(&s_errors, 1);
		}
		if(n % 32 == 0)
			qsbr_quiescent(r);
	}
	atomic_fetch_add(&s_hits, hits);
	qsbr_unregister(r);
	return NULL;
}

static void *
s_writer(void *arg)
{
	int n = 0;
	(void)arg;
	while(!atomic_load(&s_stop)) {
		char nm[64];
		snprintf(nm, sizeof(nm), "host%d.example", n++ % 96);
		store_a(s_cache, nm, 0, 0, MCACHE_SEC_UNCHECKED);
		if(n % 50 == 0) {
			uint8_t w[DNS_MAX_NAME];
			tu_name(nm, w);
			mcache_flush_name(s_cache, w);
		}
	}
	return NULL;
}

START_TEST(test_concurrent)
{
	struct mcache_params p;
	thread_type th[8];
	int i, total = 4, seconds = 1, nw;
	const char *env = getenv("PETREL_STRESS_SECONDS");
	const char *envt = getenv("PETREL_STRESS_THREADS");
	if(env)
		seconds = atoi(env);
	if(envt)
		total = atoi(envt);
	if(total < 2)
		total = 2;
	if(total > 8)
		total = 8;
	nw = total / 2;
	mcache_params_default(&p);
	p.maxmem = 32 * 1024; /* constant eviction */
	s_cache = new_cache(&p);
	for(i = 0; i < total; i++)
		ck_assert_int_eq(thread_create(&th[i], i < nw ? s_writer :
			s_reader, NULL), 0);
	sleep((unsigned)seconds);
	atomic_store(&s_stop, 1);
	for(i = 0; i < total; i++)
		ck_assert_int_eq(thread_join(th[i]), 0);
	ck_assert_int_eq(atomic_load(&s_errors), 0);
	ck_assert_int_gt(atomic_load(&s_hits), 0);
	printf("msgcache stress: %d threads %ds: %ld hits\n", total, seconds,
		(long)atomic_load(&s_hits));
	mcache_delete(s_cache);
}
END_TEST
#endif /* PETREL_HAVE_THREADS */

static Suite *
msgcache_suite(void)
{
	Suite *s = suite_create("msgcache");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_hash_prefetch);
	tcase_add_test(tc, test_hit_patches);
	tcase_add_test(tc, test_edns_do_cd_ad);
	tcase_add_test(tc, test_share_cd);
	tcase_add_test(tc, test_negative);
	tcase_add_test(tc, test_ttl_rules);
	tcase_add_test(tc, test_prefetch);
	tcase_add_test(tc, test_serve_expired);
	tcase_add_test(tc, test_servfail);
	tcase_add_test(tc, test_stale_ttl);
	tcase_add_test(tc, test_share_do_supersedes);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_roundrobin);
	tcase_add_test(tc, test_copy_msg);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_dump_load);
	tcase_add_test(tc, test_budget);
#if defined(HAVE_MALLINFO2) && !defined(PETREL_SANITIZERS)
	tcase_add_test(tc, test_mallinfo);
#endif
	suite_add_tcase(s, tc);
	tc = tcase_create("shared");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, shared_on, shared_off);
	tcase_add_test(tc, test_hash_prefetch);
	tcase_add_test(tc, test_hit_patches);
	tcase_add_test(tc, test_edns_do_cd_ad);
	tcase_add_test(tc, test_share_cd);
	tcase_add_test(tc, test_negative);
	tcase_add_test(tc, test_ttl_rules);
	tcase_add_test(tc, test_prefetch);
	tcase_add_test(tc, test_serve_expired);
	tcase_add_test(tc, test_servfail);
	tcase_add_test(tc, test_stale_ttl);
	tcase_add_test(tc, test_share_do_supersedes);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_roundrobin);
	tcase_add_test(tc, test_copy_msg);
	tcase_add_test(tc, test_flush);
	tcase_add_test(tc, test_dump_load);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_shared_fork);
	suite_add_tcase(s, tc);
#ifdef PETREL_HAVE_THREADS
	/* without a thread library there is nothing concurrent to test */
	tc = tcase_create("concurrent");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_concurrent);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int
main(int argc, char *argv[])
{
	SRunner *sr = srunner_create(msgcache_suite());
	int failed;
	if(argc > 1)
		srunner_run(sr, NULL, argv[1], CK_NORMAL);
	else	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
