/*
 * tests/check_store.c - the one store path of a finished answer
 * (services/cache/store.h).
 *
 * Checks: cache_store_answer puts the marked RRsets (and only those, no
 * RRSIG) in the RRset cache and the message in the message cache in one
 * call; the message entry it makes answers byte for byte what the parsing
 * store (mcache_store of the same message encoded) answers, for a CNAME
 * chain with authority and additional data and for a negative answer;
 * answers with more RRs than a parse holds inline need the region; an
 * unmarked (CD) answer leaves the RRset cache alone; the message takes
 * the remaining TTL of the sets the RRset cache kept; a set replaced
 * with other data shows in the cached messages that carry it (or they
 * go, when they carry its RRSIGs); the answer of a CNAME chain's
 * target is stored as a message of its own (cache_store_chain_target);
 * one store rebuilds at most 64 messages, one at a time in memory; a
 * rebuilt message keeps its capped TTLs, its failed refresh's "no
 * recursion" window and its serve-expired-ttl start.
 */
#include "config.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/cache/store.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"

/** the clock at store time */
#define T0 5000

/** a name from presentation format, in static storage per slot */
#define N(slot, s) tu_name_slot(slot, s)

/** one set for the tests */
static void
set(struct cache_rrset *cs, const uint8_t *owner, uint16_t type,
	uint32_t ttl, int section, int trust, size_t count,
	const uint8_t *const *rd, const uint16_t *rdlen)
{
	memset(cs, 0, sizeof(*cs));
	cs->owner = owner;
	cs->owner_len = dname_len(owner);
	cs->type = type;
	cs->rrclass = DNS_CLASS_IN;
	cs->ttl = ttl;
	cs->section = (uint8_t)section;
	cs->trust = (uint8_t)trust;
	cs->count = count;
	cs->rdata = rd;
	cs->rdlen = rdlen;
}

/** the same answer encoded for the parsing store path */
static size_t
encode(const struct cache_answer *a, uint8_t *buf, size_t cap)
{
	struct dns_builder b;
	size_t i;
	dns_build_init(&b, buf, cap, 0);
	ck_assert_int_eq(dns_build_header(&b, 0, (uint16_t)(DNS_FLAG_QR |
		DNS_FLAG_RA | a->rcode)), 0);
	ck_assert_int_eq(dns_build_question(&b, a->qinfo->qname,
		a->qinfo->qtype, a->qinfo->qclass), 0);
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		ck_assert_int_eq(dns_build_rrset(&b, cs->section, cs->owner,
			cs->type, cs->rrclass, cs->ttl, cs->count, cs->rdata,
			cs->rdlen), 0);
	}
	return dns_build_finish(&b);
}

/** ask a cache, with mcache_answer's refresh flags in *refresh (NULL
 * for none); @return the answer length, 0 on a miss */
static size_t
ask_r(struct mcache *c, const struct query_info *qi, uint8_t *out,
	size_t cap, time_t now, int *refresh)
{
	uint8_t q[512];
	struct dns_builder b;
	struct fast_query fq;
	size_t len = 0, qlen;
	dns_build_init(&b, q, sizeof(q), 0);
	ck_assert_int_eq(dns_build_header(&b, 0x1234, DNS_FLAG_RD), 0);
	ck_assert_int_eq(dns_build_question(&b, qi->qname, qi->qtype,
		qi->qclass), 0);
	ck_assert_int_eq(dns_build_opt(&b, 4096, 0, 0, NULL, 0), 0);
	qlen = dns_build_finish(&b);
	ck_assert_int_eq(dns_query_parse_fast(q, qlen, &fq), 0);
	if(mcache_answer(c, &fq, q, 1, now, out, cap, &len, refresh) ==
		MCACHE_MISS)
		return 0;
	return len;
}

/** ask a cache; @return the answer length, 0 on a miss */
static size_t
ask(struct mcache *c, const struct query_info *qi, uint8_t *out,
	size_t cap, time_t now)
{
	return ask_r(c, qi, out, cap, now, NULL);
}

/** store a through both paths and compare the answers they give */
static void
same_answers(const struct cache_answer *a, struct rrset_cache *rc)
{
	struct mcache_params p;
	struct mcache *m1, *m2;
	struct region *region = region_create(0);
	static uint8_t buf[DNS_MAX_MSG], wire[DNS_MAX_MSG];
	static uint8_t o1[DNS_MAX_MSG], o2[DNS_MAX_MSG];
	size_t wlen, l1, l2;
	mcache_params_default(&p);
	m1 = mcache_create(&p);
	m2 = mcache_create(&p);
	ck_assert(m1 && m2 && region);
	ck_assert_int_eq(cache_store_answer(m1, rc, a, T0, buf, sizeof(buf),
		region), MCACHE_STORED);
	wlen = encode(a, wire, sizeof(wire));
	ck_assert_int_eq(mcache_store(m2, a->qinfo, a->do_bit, a->cd_bit,
		wire, wlen, T0, a->sec, a->ede), MCACHE_STORED);
	l1 = ask(m1, a->qinfo, o1, sizeof(o1), T0 + 7);
	l2 = ask(m2, a->qinfo, o2, sizeof(o2), T0 + 7);
	ck_assert_uint_gt(l1, 0);
	ck_assert_uint_eq(l1, l2);
	ck_assert_int_eq(memcmp(o1, o2, l1), 0);
	/* and it lives as long */
	ck_assert_uint_eq(ask(m1, a->qinfo, o1, sizeof(o1), T0 + 10000) > 0,
		ask(m2, a->qinfo, o2, sizeof(o2), T0 + 10000) > 0);
	mcache_delete(m1);
	mcache_delete(m2);
	region_destroy(region);
}

static const uint8_t a1[4] = {192, 0, 2, 1}, a2[4] = {192, 0, 2, 2};
static const uint8_t a3[4] = {192, 0, 2, 53};
static const uint16_t len4[2] = {4, 4};

/* a CNAME chain: the marked sets go to the RRset cache, the message
 * entry answers as the parsing store's does */
START_TEST(test_chain)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct query_info qi;
	struct cache_rrset sets[5];
	struct cache_answer a;
	struct rrset_data out;
	const uint8_t *cname_rd[1], *a_rd[2] = {a1, a2}, *ns_rd[1];
	const uint8_t *glue_rd[1] = {a3}, *sig_rd[1];
	uint16_t cname_len[1], ns_len[1], sig_len[1];
	uint8_t sig[40];
	ck_assert(rc && region);
	ck_assert_int_eq(query_info_set(&qi, N(0, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	cname_rd[0] = N(1, "Host.example.com.");
	cname_len[0] = (uint16_t)dname_len(cname_rd[0]);
	ns_rd[0] = N(3, "ns.example.com.");
	ns_len[0] = (uint16_t)dname_len(ns_rd[0]);
	memset(sig, 0, sizeof(sig));
	dns_write_u16(sig, DNS_TYPE_A);
	sig_rd[0] = sig;
	sig_len[0] = sizeof(sig);
	set(&sets[0], N(4, "WWW.example.com."), DNS_TYPE_CNAME, 600,
		DNS_SEC_ANSWER, RRSET_TRUST_ANS_AA, 1, cname_rd, cname_len);
	set(&sets[1], cname_rd[0], DNS_TYPE_A, 300, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_NOAA, 2, a_rd, len4);
	set(&sets[2], cname_rd[0], DNS_TYPE_RRSIG, 300, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_NOAA, 1, sig_rd, sig_len);
	set(&sets[3], N(2, "example.com."), DNS_TYPE_NS, 900,
		DNS_SEC_AUTHORITY, RRSET_TRUST_NONE, 1, ns_rd, ns_len);
	set(&sets[4], ns_rd[0], DNS_TYPE_A, 900, DNS_SEC_ADDITIONAL,
		RRSET_TRUST_NONE, 1, glue_rd, len4);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 5;
	same_answers(&a, rc);
	/* the marked sets, and only those, are in the RRset cache */
	ck_assert_int_eq(rrset_cache_lookup(rc, N(5, "www.example.com."),
		DNS_TYPE_CNAME, DNS_CLASS_IN, T0, region, &out), 0);
	ck_assert_uint_eq(out.count, 1);
	ck_assert_int_eq(out.trust, RRSET_TRUST_ANS_AA);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(5, "host.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &out), 0);
	ck_assert_uint_eq(out.count, 2);
	ck_assert_uint_eq(out.ttl, 300);
	ck_assert_int_ne(rrset_cache_lookup(rc, N(5, "example.com."),
		DNS_TYPE_NS, DNS_CLASS_IN, T0, region, &out), 0);
	ck_assert_int_ne(rrset_cache_lookup(rc, N(5, "ns.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &out), 0);
	ck_assert_int_ne(rrset_cache_lookup(rc, N(5, "host.example.com."),
		DNS_TYPE_RRSIG, DNS_CLASS_IN, T0, region, &out), 0);
	/* the CNAME and the A set */
	ck_assert_uint_eq(rrset_cache_get_count(rc), 2);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/* NXDOMAIN: the entry's TTL and answer as the parsing store's; nothing
 * marked, nothing in the RRset cache */
START_TEST(test_negative)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct query_info qi;
	struct cache_rrset sets[1];
	struct cache_answer a;
	uint8_t soa[64];
	const uint8_t *soa_rd[1] = {soa};
	uint16_t soa_len[1];
	size_t n = 0;
	ck_assert_ptr_nonnull(rc);
	ck_assert_int_eq(query_info_set(&qi, N(0, "nx.example.com."),
		DNS_TYPE_AAAA, DNS_CLASS_IN), 0);
	memcpy(soa + n, N(1, "ns.example.com."), dname_len(N(1,
		"ns.example.com."))); n += dname_len(soa);
	memcpy(soa + n, N(1, "h.example.com."), dname_len(N(1,
		"h.example.com."))); n += dname_len(soa + n);
	dns_write_u32(soa + n, 1); n += 4;
	dns_write_u32(soa + n, 2); n += 4;
	dns_write_u32(soa + n, 3); n += 4;
	dns_write_u32(soa + n, 4); n += 4;
	dns_write_u32(soa + n, 120); n += 4;
	soa_len[0] = (uint16_t)n;
	set(&sets[0], N(2, "example.com."), DNS_TYPE_SOA, 3600,
		DNS_SEC_AUTHORITY, RRSET_TRUST_NONE, 1, soa_rd, soa_len);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NXDOMAIN;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 1;
	same_answers(&a, rc);
	ck_assert_uint_eq(rrset_cache_get_count(rc), 0);
	rrset_cache_delete(rc);
}
END_TEST

/* more RRs than a parse holds inline: the record array comes from the
 * region; without one the message is not stored (the RRsets are) */
START_TEST(test_large)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct mcache_params p;
	struct mcache *mc;
	struct query_info qi;
	struct cache_rrset sets[1];
	struct cache_answer a;
	static uint8_t buf[DNS_MAX_MSG], rdata[100][4];
	const uint8_t *rd[100];
	uint16_t rdlen[100];
	size_t i;
	mcache_params_default(&p);
	mc = mcache_create(&p);
	ck_assert(rc && mc);
	for(i = 0; i < 100; i++) {
		rdata[i][0] = 10; rdata[i][1] = 0;
		rdata[i][2] = (uint8_t)(i / 256); rdata[i][3] = (uint8_t)i;
		rd[i] = rdata[i];
		rdlen[i] = 4;
	}
	ck_assert_int_eq(query_info_set(&qi, N(0, "many.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	set(&sets[0], N(1, "many.example.com."), DNS_TYPE_A, 60,
		DNS_SEC_ANSWER, RRSET_TRUST_ANS_AA, 100, rd, rdlen);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 1;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0, buf, sizeof(buf),
		NULL), MCACHE_NOT_CACHEABLE);
	ck_assert_uint_eq(mcache_get_count(mc), 0);
	ck_assert_uint_eq(rrset_cache_get_count(rc), 1);
	mcache_delete(mc);
	same_answers(&a, rc);
	rrset_cache_delete(rc);
}
END_TEST

/* the message takes the remaining TTL of the sets the RRset cache holds
 * with the same data (an NS set kept from an earlier answer: the message
 * expires with it); a set whose cached data differs keeps its own TTL */
START_TEST(test_cached_ttl)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct query_info qi;
	struct cache_rrset sets[3];
	struct cache_answer a;
	struct rrset_data ns;
	const uint8_t *a_rd[1] = {a1}, *ns_rd[1], *glue_rd[1] = {a3};
	const uint8_t *other_rd[1] = {a2};
	uint16_t ns_len[1];
	static uint8_t buf[DNS_MAX_MSG], out[DNS_MAX_MSG];
	struct dns_msg msg;
	size_t len, i;
	mcache_params_default(&p);
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	ck_assert_int_eq(query_info_set(&qi, N(0, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ns_rd[0] = N(1, "ns.example.com.");
	ns_len[0] = (uint16_t)dname_len(ns_rd[0]);
	/* cached earlier: the NS set (10 s left at T0) and another address
	 * for the server */
	memset(&ns, 0, sizeof(ns));
	ns.name = N(2, "example.com.");
	ns.name_len = dname_len(ns.name);
	ns.type = DNS_TYPE_NS;
	ns.rrclass = DNS_CLASS_IN;
	ns.ttl = 210;
	ns.trust = RRSET_TRUST_AUTH_AA;
	ns.count = 1;
	ns.rdata = ns_rd;
	ns.rdlen = ns_len;
	ck_assert_int_eq(rrset_cache_store(rc, &ns, T0 - 200), RRSET_STORED);
	ns.name = ns_rd[0];
	ns.name_len = dname_len(ns.name);
	ns.type = DNS_TYPE_A;
	ns.trust = RRSET_TRUST_ANS_AA;
	ns.rdata = other_rd;
	ns.rdlen = len4;
	ck_assert_int_eq(rrset_cache_store(rc, &ns, T0 - 200), RRSET_STORED);
	set(&sets[0], N(0, "www.example.com."), DNS_TYPE_A, 205,
		DNS_SEC_ANSWER, RRSET_TRUST_ANS_AA, 1, a_rd, len4);
	set(&sets[1], N(2, "example.com."), DNS_TYPE_NS, 210,
		DNS_SEC_AUTHORITY, RRSET_TRUST_AUTH_AA, 1, ns_rd, ns_len);
	set(&sets[2], ns_rd[0], DNS_TYPE_A, 210, DNS_SEC_ADDITIONAL,
		RRSET_TRUST_ADD_AA, 1, glue_rd, len4);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 3;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0, buf, sizeof(buf),
		region), MCACHE_STORED);
	/* the NS set's 10 s; the answer's own 205, the glue's own 210 */
	len = ask(mc, &qi, out, sizeof(out), T0);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(dns_msg_parse(out, len, &msg, region, 0), 0);
	for(i = 0; i < msg.rr_count; i++) {
		const struct dns_rr *r = &msg.rrs[i];
		if(r->type == DNS_TYPE_NS)
			ck_assert_uint_eq(r->ttl, 10);
		else if(r->section == DNS_SEC_ANSWER)
			ck_assert_uint_eq(r->ttl, 205);
		else if(r->type == DNS_TYPE_A)
			ck_assert_uint_eq(r->ttl, 210);
	}
	/* and the message expires with the NS set */
	ck_assert_uint_gt(ask(mc, &qi, out, sizeof(out), T0 + 9), 0);
	ck_assert_uint_eq(ask(mc, &qi, out, sizeof(out), T0 + 10), 0);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/** store one answer: an A record for qi's name, and the NS set of
 * example.com. (ns_rd, n records) in the authority section, with an
 * RRSIG over it when sig is not NULL */
static void
store_with_ns(struct mcache *mc, struct rrset_cache *rc,
	struct region *region, const struct query_info *qi, int do_bit,
	enum mcache_security sec, const uint8_t *const *ns_rd,
	const uint16_t *ns_len, size_t n, const uint8_t *const *sig,
	const uint16_t *sig_len)
{
	static uint8_t buf[DNS_MAX_MSG];
	static const uint8_t *a_rd[1] = {a1};
	struct cache_rrset sets[3];
	struct cache_answer a;
	set(&sets[0], qi->qname, DNS_TYPE_A, 3600, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_AA, 1, a_rd, len4);
	set(&sets[1], N(2, "example.com."), DNS_TYPE_NS, 3600,
		DNS_SEC_AUTHORITY, RRSET_TRUST_AUTH_AA, n, ns_rd, ns_len);
	sets[1].sec = (uint8_t)(sec == MCACHE_SEC_SECURE ? RRSET_SEC_SECURE :
		RRSET_SEC_UNCHECKED);
	if(sig)
		set(&sets[2], N(2, "example.com."), DNS_TYPE_RRSIG, 3600,
			DNS_SEC_AUTHORITY, RRSET_TRUST_NONE, 1, sig, sig_len);
	memset(&a, 0, sizeof(a));
	a.qinfo = qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.do_bit = do_bit;
	a.sec = sec;
	a.ede = -1;
	a.sets = sets;
	a.nsets = sig ? 3 : 2;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0, buf, sizeof(buf),
		region), MCACHE_STORED);
}

/* a set replaced in the RRset cache with other data: the cached messages
 * that carry it are rebuilt with the new one, or removed when they carry
 * its RRSIGs; the message that brought it is as stored */
START_TEST(test_follow)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct mcache_state st;
	struct query_info www, sig, bla;
	static uint8_t out[DNS_MAX_MSG];
	static const uint8_t rrsig[] = {0, 2, 8, 2, 0, 0, 0x0e, 0x10,
		0x70, 0, 0, 0, 0x60, 0, 0, 0, 0x12, 0x34,
		7, 'e', 'x', 'a', 'm', 'p', 'l', 'e', 3, 'c', 'o', 'm', 0,
		1, 2, 3, 4};
	const uint8_t *sig_rd[1] = {rrsig};
	uint16_t sig_len[1] = {sizeof(rrsig)};
	const uint8_t *old_rd[1], *new_rd[2];
	uint16_t old_len[1], new_len[2];
	struct dns_msg msg;
	size_t len, i, nns = 0;
	mcache_params_default(&p);
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	old_rd[0] = new_rd[0] = N(1, "ns1.example.com.");
	new_rd[1] = N(3, "ns2.example.com.");
	old_len[0] = new_len[0] = (uint16_t)dname_len(new_rd[0]);
	new_len[1] = (uint16_t)dname_len(new_rd[1]);
	ck_assert_int_eq(query_info_set(&www, N(4, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ck_assert_int_eq(query_info_set(&sig, N(5, "sig.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ck_assert_int_eq(query_info_set(&bla, N(7, "bla.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	store_with_ns(mc, rc, region, &www, 0, MCACHE_SEC_UNCHECKED, old_rd,
		old_len, 1, NULL, NULL);
	store_with_ns(mc, rc, region, &sig, 1, MCACHE_SEC_UNCHECKED, old_rd,
		old_len, 1, sig_rd, sig_len);
	/* the zone's new NS set comes with another answer */
	store_with_ns(mc, rc, region, &bla, 0, MCACHE_SEC_UNCHECKED, new_rd,
		new_len, 2, NULL, NULL);
	len = ask(mc, &www, out, sizeof(out), T0);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(dns_msg_parse(out, len, &msg, region, 0), 0);
	for(i = 0; i < msg.rr_count; i++)
		if(msg.rrs[i].type == DNS_TYPE_NS)
			nns++;
	ck_assert_uint_eq(nns, 2);
	ck_assert_uint_eq(msg.ancount, 1);
	ck_assert_int_eq(mcache_peek(mc, &sig, 1, 0, T0, &st), -1);
	ck_assert_int_eq(mcache_peek(mc, &bla, 0, 0, T0, &st), 0);
	/* the rebuilt message keeps its expiry */
	ck_assert_int_eq(mcache_peek(mc, &www, 0, 0, T0, &st), 0);
	ck_assert_uint_eq(st.ttl, 3600);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/** store an answer for qi at now: an A record and the NS set of
 * example.com. (ns1), both with TTL ttl */
static void
store_a_ns(struct mcache *mc, struct rrset_cache *rc,
	struct region *region, const struct query_info *qi, uint32_t ttl,
	time_t now)
{
	static uint8_t buf[DNS_MAX_MSG];
	static const uint8_t *a_rd[1] = {a1};
	const uint8_t *ns_rd[1];
	uint16_t ns_len[1];
	struct cache_rrset sets[2];
	struct cache_answer a;
	ns_rd[0] = N(1, "ns1.example.com.");
	ns_len[0] = (uint16_t)dname_len(ns_rd[0]);
	set(&sets[0], qi->qname, DNS_TYPE_A, ttl, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_AA, 1, a_rd, len4);
	set(&sets[1], N(2, "example.com."), DNS_TYPE_NS, ttl,
		DNS_SEC_AUTHORITY, RRSET_TRUST_AUTH_AA, 1, ns_rd, ns_len);
	memset(&a, 0, sizeof(a));
	a.qinfo = qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 2;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, now, buf, sizeof(buf),
		region), MCACHE_STORED);
	region_free_all(region);
}

/** the TTL of the first record of type t in the answer out (len) */
static uint32_t
ttl_of(const uint8_t *out, size_t len, uint16_t t, struct region *region)
{
	struct dns_msg msg;
	size_t i;
	ck_assert_int_eq(dns_msg_parse(out, len, &msg, region, 0), 0);
	for(i = 0; i < msg.rr_count; i++)
		if(msg.rrs[i].type == t)
			return dns_read_u32(out + msg.rrs[i].ttl_off);
	ck_abort_msg("no record of type %u", (unsigned)t);
	return 0;
}

/* an expired message whose refresh failed (mcache_norec_set, and
 * serve-expired-ttl-reset's mcache_stale_reset), rebuilt when another
 * answer renews its NS set: it keeps its "no recursion" window (the
 * next client gets the stale answer without a refresh for 5 s) and its
 * serve-expired-ttl start */
START_TEST(test_rebuild_keeps)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct query_info www, bla;
	static uint8_t out[DNS_MAX_MSG];
	size_t len;
	int refresh = 0;
	mcache_params_default(&p);
	p.serve_expired = 1;
	p.serve_expired_ttl = 300;
	p.serve_expired_reply_ttl = 30;
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	ck_assert_int_eq(query_info_set(&www, N(4, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ck_assert_int_eq(query_info_set(&bla, N(7, "bla.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	store_a_ns(mc, rc, region, &www, 60, T0);
	/* expired; its refresh fails at T0 + 100 */
	mcache_norec_set(mc, &www, 0, 0, T0 + 100);
	mcache_stale_reset(mc, &www, 0, 0, T0 + 100);
	/* another answer renews the NS set: www's message is rebuilt */
	store_a_ns(mc, rc, region, &bla, 60, T0 + 101);
	len = ask_r(mc, &www, out, sizeof(out), T0 + 102, &refresh);
	ck_assert_uint_gt(len, 0);
	/* (rebuilt: its NS record is the live one, 59 s left, not
	 * serve-expired-reply-ttl) */
	ck_assert_uint_eq(ttl_of(out, len, DNS_TYPE_NS, region), 59);
	ck_assert_uint_eq(ttl_of(out, len, DNS_TYPE_A, region), 30);
	region_free_all(region);
	ck_assert_int_eq(refresh & MCACHE_ANSWER_NOREC, MCACHE_ANSWER_NOREC);
	ck_assert_int_eq(refresh & MCACHE_ANSWER_REFRESH, 0);
	/* after the window, a refresh */
	refresh = 0;
	ck_assert_uint_gt(ask_r(mc, &www, out, sizeof(out), T0 + 106,
		&refresh), 0);
	ck_assert_int_eq(refresh & MCACHE_ANSWER_REFRESH,
		MCACHE_ANSWER_REFRESH);
	/* serve-expired-ttl counts from the failed refresh (T0 + 100), not
	 * from the expiry (T0 + 60) */
	ck_assert_uint_gt(ask(mc, &www, out, sizeof(out), T0 + 380), 0);
	ck_assert_uint_eq(ask(mc, &www, out, sizeof(out), T0 + 401), 0);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/* a message rebuilt while fresh keeps its records' capped flags: its
 * NS record, with the RRset cache's shorter TTL, is once expired served
 * with serve-expired-reply-ttl (30), not with what was left of it */
START_TEST(test_rebuild_capped)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct query_info qi, nq;
	struct cache_rrset sets[3];
	struct cache_answer a;
	struct rrset_data ns;
	const uint8_t *a_rd[1] = {a1}, *ns_rd[1], *glue_rd[1] = {a3};
	const uint8_t *other_rd[1] = {a2};
	uint16_t ns_len[1];
	static uint8_t buf[DNS_MAX_MSG], out[DNS_MAX_MSG];
	struct dns_msg msg;
	size_t len, i, glue = 0;
	mcache_params_default(&p);
	p.serve_expired = 1;
	p.serve_expired_ttl = 300;
	p.serve_expired_reply_ttl = 30;
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	ck_assert_int_eq(query_info_set(&qi, N(0, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ns_rd[0] = N(1, "ns.example.com.");
	ns_len[0] = (uint16_t)dname_len(ns_rd[0]);
	ck_assert_int_eq(query_info_set(&nq, ns_rd[0], DNS_TYPE_A,
		DNS_CLASS_IN), 0);
	/* cached earlier: the NS set, 10 s left at T0 (as test_cached_ttl) */
	memset(&ns, 0, sizeof(ns));
	ns.name = N(2, "example.com.");
	ns.name_len = dname_len(ns.name);
	ns.type = DNS_TYPE_NS;
	ns.rrclass = DNS_CLASS_IN;
	ns.ttl = 210;
	ns.trust = RRSET_TRUST_AUTH_AA;
	ns.count = 1;
	ns.rdata = ns_rd;
	ns.rdlen = ns_len;
	ck_assert_int_eq(rrset_cache_store(rc, &ns, T0 - 200), RRSET_STORED);
	set(&sets[0], qi.qname, DNS_TYPE_A, 205, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_AA, 1, a_rd, len4);
	set(&sets[1], ns.name, DNS_TYPE_NS, 210, DNS_SEC_AUTHORITY,
		RRSET_TRUST_AUTH_AA, 1, ns_rd, ns_len);
	set(&sets[2], ns_rd[0], DNS_TYPE_A, 210, DNS_SEC_ADDITIONAL,
		RRSET_TRUST_ADD_AA, 1, glue_rd, len4);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 3;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0, buf, sizeof(buf),
		region), MCACHE_STORED);
	region_free_all(region);
	/* at T0 + 1 the server's address changes: www's message is rebuilt
	 * with it */
	set(&sets[0], ns_rd[0], DNS_TYPE_A, 300, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_AA, 1, other_rd, len4);
	a.qinfo = &nq;
	a.nsets = 1;
	ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0 + 1, buf,
		sizeof(buf), region), MCACHE_STORED);
	region_free_all(region);
	len = ask(mc, &qi, out, sizeof(out), T0 + 1);
	ck_assert_uint_gt(len, 0);
	ck_assert_int_eq(dns_msg_parse(out, len, &msg, region, 0), 0);
	for(i = 0; i < msg.rr_count; i++)
		if(msg.rrs[i].section == DNS_SEC_ADDITIONAL &&
			msg.rrs[i].type == DNS_TYPE_A) {
			ck_assert_int_eq(memcmp(out + msg.rrs[i].rdata_off, a2,
				4), 0);
			glue++;
		}
	ck_assert_uint_eq(glue, 1);
	region_free_all(region);
	/* expired (at T0 + 10, with the NS set): the capped NS record
	 * shows serve-expired-reply-ttl */
	len = ask(mc, &qi, out, sizeof(out), T0 + 12);
	ck_assert_uint_gt(len, 0);
	ck_assert_uint_eq(ttl_of(out, len, DNS_TYPE_NS, region), 30);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/** sets (and referencing messages) of test_rebuild_bound: more than
 * store.c's bound of 64 rebuilds per store */
#define RB_SETS 160
/** answer records of each referencing message: more than a parse holds
 * inline, so that each rebuild's parse takes region memory */
#define RB_ANS 60
/** the most memory the store's region may hold afterwards: the two
 * 64 KB buffers of the rebuilds, the store's own arrays and lookups,
 * and one rebuild; the old code held RB_SETS rebuilds at once (over
 * 1.3 MB; the new one some 140 KB) */
#define RB_MEM (256 * 1024)

/* an answer whose additional section renews RB_SETS sets, each carried
 * by another cached message: the first 64 messages are rebuilt (they
 * show the new address), the others removed; the store's region holds
 * one rebuild's memory at a time */
START_TEST(test_rebuild_bound)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 24, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct mcache_state st;
	static uint8_t qn[RB_SETS][DNS_MAX_NAME], nsn[RB_SETS][DNS_MAX_NAME];
	static uint8_t ans[RB_ANS][4], buf[DNS_MAX_MSG], out[DNS_MAX_MSG];
	static const uint8_t oldad[4] = {10, 9, 9, 9};
	static struct cache_rrset big[RB_SETS + 1];
	static const uint8_t *nrd[RB_SETS];
	static uint8_t newad[RB_SETS][4];
	const uint8_t *ard[RB_ANS], *ord[1] = {oldad};
	uint16_t alen[RB_ANS];
	static uint16_t nlen[RB_SETS];
	struct query_info qi[RB_SETS], bq;
	struct cache_answer a;
	struct dns_msg msg;
	char name[64];
	size_t i, j, len, rebuilt = 0, gone = 0;
	enum mcache_store_result r;
	mcache_params_default(&p);
	p.maxmem = 1 << 26;
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	for(i = 0; i < RB_ANS; i++) {
		ans[i][0] = 10; ans[i][1] = 1; ans[i][2] = 0;
		ans[i][3] = (uint8_t)i;
		ard[i] = ans[i];
		alen[i] = 4;
	}
	for(i = 0; i < RB_SETS; i++) {
		struct cache_rrset sets[2];
		snprintf(name, sizeof(name), "q%zu.example.com.", i);
		(void)tu_name(name, qn[i]);
		snprintf(name, sizeof(name), "ns%zu.example.com.", i);
		(void)tu_name(name, nsn[i]);
		ck_assert_int_eq(query_info_set(&qi[i], qn[i], DNS_TYPE_A,
			DNS_CLASS_IN), 0);
		set(&sets[0], qn[i], DNS_TYPE_A, 3600, DNS_SEC_ANSWER,
			RRSET_TRUST_ANS_AA, RB_ANS, ard, alen);
		set(&sets[1], nsn[i], DNS_TYPE_A, 3600, DNS_SEC_ADDITIONAL,
			RRSET_TRUST_ADD_NOAA, 1, ord, len4);
		memset(&a, 0, sizeof(a));
		a.qinfo = &qi[i];
		a.rcode = DNS_RCODE_NOERROR;
		a.ede = -1;
		a.sets = sets;
		a.nsets = 2;
		ck_assert_int_eq(cache_store_answer(mc, rc, &a, T0, buf,
			sizeof(buf), region), MCACHE_STORED);
		region_free_all(region);
	}
	/* one answer with every name's new address */
	ck_assert_int_eq(query_info_set(&bq, N(0, "big.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	set(&big[0], N(0, "big.example.com."), DNS_TYPE_A, 3600,
		DNS_SEC_ANSWER, RRSET_TRUST_ANS_AA, 1, ord, len4);
	for(i = 0; i < RB_SETS; i++) {
		newad[i][0] = 10; newad[i][1] = 2;
		newad[i][2] = (uint8_t)(i / 256); newad[i][3] = (uint8_t)i;
		nrd[i] = newad[i];
		nlen[i] = 4;
		set(&big[i + 1], nsn[i], DNS_TYPE_A, 3600, DNS_SEC_ADDITIONAL,
			RRSET_TRUST_ADD_NOAA, 1, &nrd[i], &nlen[i]);
	}
	memset(&a, 0, sizeof(a));
	a.qinfo = &bq;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = big;
	a.nsets = RB_SETS + 1;
	r = cache_store_answer(mc, rc, &a, T0 + 10, buf, sizeof(buf),
		region);
	ck_assert(r == MCACHE_STORED || r == MCACHE_STORED_HELD);
	ck_assert_uint_lt(region_get_mem(region), RB_MEM);
	region_free_all(region);
	for(i = 0; i < RB_SETS; i++) {
		if(mcache_peek(mc, &qi[i], 0, 0, T0 + 10, &st) != 0) {
			gone++;
			ck_assert_uint_ge(i, 64);
			continue;
		}
		/* (rebuilt: the new address, the message's own expiry) */
		ck_assert_uint_lt(i, 64);
		ck_assert_uint_eq(st.ttl, 3590);
		len = ask(mc, &qi[i], out, sizeof(out), T0 + 10);
		ck_assert_uint_gt(len, 0);
		ck_assert_int_eq(dns_msg_parse(out, len, &msg, region, 0), 0);
		ck_assert_uint_eq(msg.ancount, RB_ANS);
		for(j = 0; j < msg.rr_count; j++)
			if(msg.rrs[j].section == DNS_SEC_ADDITIONAL &&
				msg.rrs[j].type == DNS_TYPE_A) {
				ck_assert_uint_eq(msg.rrs[j].rdlen, 4);
				ck_assert_int_eq(memcmp(out +
					msg.rrs[j].rdata_off, newad[i], 4), 0);
				rebuilt++;
			}
		region_free_all(region);
	}
	ck_assert_uint_eq(rebuilt, 64);
	ck_assert_uint_eq(gone, RB_SETS - 64);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/* the reference table: a store of the same data (same fingerprint)
 * leaves the references where they are, until the message's copy of it
 * expires; other data takes them, once; a full bucket forgets its
 * oldest */
START_TEST(test_refs)
{
	struct mcache_params p;
	struct mcache *mc;
	struct query_info q[MCACHE_REF_SLOTS + 1];
	struct mcache_ref out[MCACHE_REF_SLOTS];
	char name[64];
	size_t i;
	mcache_params_default(&p);
	mc = mcache_create(&p);
	ck_assert(mc != NULL);
	for(i = 0; i <= MCACHE_REF_SLOTS; i++) {
		snprintf(name, sizeof(name), "q%u.example.", (unsigned)i);
		ck_assert_int_eq(query_info_set(&q[i], N((int)i, name),
			DNS_TYPE_A, DNS_CLASS_IN), 0);
	}
	mcache_ref_add(mc, 77, 1, T0 + 100, &q[0], 0, 0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 1, 0, out, MCACHE_REF_SLOTS),
		0);
	ck_assert_uint_eq(mcache_ref_take(mc, 78, 2, 0, out, MCACHE_REF_SLOTS),
		0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 2, 0, out, MCACHE_REF_SLOTS),
		1);
	ck_assert_uint_eq(out[0].qname_len, q[0].qname_len);
	ck_assert_int_eq(memcmp(out[0].qname, q[0].qname, q[0].qname_len), 0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 2, 0, out, MCACHE_REF_SLOTS),
		0);
	/* the same data is taken once the message's copy of it expires
	 * (renew_before at or past its expiry), with its expiry */
	mcache_ref_add(mc, 77, 1, T0 + 100, &q[0], 0, 0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 1, T0 + 99, out,
		MCACHE_REF_SLOTS), 0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 1, T0 + 100, out,
		MCACHE_REF_SLOTS), 1);
	ck_assert_int_eq(out[0].set_expire, T0 + 100);
	ck_assert_uint_eq(out[0].data_fp, 1);
	/* one more than a bucket holds: the first is forgotten */
	for(i = 0; i <= MCACHE_REF_SLOTS; i++)
		mcache_ref_add(mc, 77, 1, T0 + 100, &q[i], 1, 0);
	ck_assert_uint_eq(mcache_ref_take(mc, 77, 3, 0, out, MCACHE_REF_SLOTS),
		MCACHE_REF_SLOTS);
	for(i = 0; i < MCACHE_REF_SLOTS; i++) {
		ck_assert_int_eq(out[i].do_bit, 1);
		ck_assert(out[i].qname_len != q[0].qname_len ||
			memcmp(out[i].qname, q[0].qname, q[0].qname_len) != 0);
	}
	mcache_delete(mc);
}
END_TEST

/* the answer of a CNAME chain's target, as a message of its own
 * (cache_store_chain_target): the target's sets and the other sections,
 * not the CNAME; its security as the rules say; not again while fresh */
START_TEST(test_chain_target)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct mcache_params p;
	struct mcache *mc;
	struct query_info qi, ti;
	struct cache_rrset sets[4];
	struct cache_answer a;
	struct mcache_state st;
	struct dns_msg m;
	const uint8_t *cname_rd[1], *a_rd[2] = {a1, a2}, *ns_rd[1];
	const uint8_t *glue_rd[1] = {a3};
	uint16_t cname_len[1], ns_len[1];
	static uint8_t buf[DNS_MAX_MSG], out[DNS_MAX_MSG];
	size_t len;
	mcache_params_default(&p);
	mc = mcache_create(&p);
	ck_assert(rc && region && mc);
	ck_assert_int_eq(query_info_set(&qi, N(0, "www.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ck_assert_int_eq(query_info_set(&ti, N(6, "host.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	cname_rd[0] = N(1, "Host.example.com.");
	cname_len[0] = (uint16_t)dname_len(cname_rd[0]);
	ns_rd[0] = N(3, "ns.example.com.");
	ns_len[0] = (uint16_t)dname_len(ns_rd[0]);
	set(&sets[0], N(4, "WWW.example.com."), DNS_TYPE_CNAME, 600,
		DNS_SEC_ANSWER, RRSET_TRUST_ANS_AA, 1, cname_rd, cname_len);
	set(&sets[1], cname_rd[0], DNS_TYPE_A, 300, DNS_SEC_ANSWER,
		RRSET_TRUST_ANS_AA, 2, a_rd, len4);
	set(&sets[2], N(2, "example.com."), DNS_TYPE_NS, 900,
		DNS_SEC_AUTHORITY, RRSET_TRUST_NONE, 1, ns_rd, ns_len);
	set(&sets[3], ns_rd[0], DNS_TYPE_A, 900, DNS_SEC_ADDITIONAL,
		RRSET_TRUST_NONE, 1, glue_rd, len4);
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.rcode = DNS_RCODE_NOERROR;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 4;
	/* no chain: a question for the target itself, a CNAME question */
	a.qinfo = &ti;
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0, buf,
		sizeof(buf), region), MCACHE_NOT_CACHEABLE);
	ck_assert_int_eq(query_info_set(&ti, N(6, "www.example.com."),
		DNS_TYPE_CNAME, DNS_CLASS_IN), 0);
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0, buf,
		sizeof(buf), region), MCACHE_NOT_CACHEABLE);
	ck_assert_uint_eq(mcache_get_count(mc), 0);
	a.qinfo = &qi;
	ck_assert_int_eq(query_info_set(&ti, N(6, "host.example.com."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	/* bogus: nothing; insecure with the target's sets secure: nothing */
	a.sec = MCACHE_SEC_BOGUS;
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0, buf,
		sizeof(buf), region), MCACHE_NOT_CACHEABLE);
	a.sec = MCACHE_SEC_INSECURE;
	sets[1].sec = RRSET_SEC_SECURE;
	sets[2].sec = RRSET_SEC_SECURE;
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0, buf,
		sizeof(buf), region), MCACHE_NOT_CACHEABLE);
	ck_assert_uint_eq(mcache_get_count(mc), 0);
	/* insecure, its NS set not validated: stored insecure */
	sets[2].sec = RRSET_SEC_UNCHECKED;
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0, buf,
		sizeof(buf), region), MCACHE_STORED);
	ck_assert_int_eq(mcache_peek(mc, &ti, 0, 0, T0, &st), 0);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	ck_assert_int_eq(st.sec, MCACHE_SEC_INSECURE);
	ck_assert_int_eq(st.rcode, DNS_RCODE_NOERROR);
	/* its message: the A set, the NS set and the glue, no CNAME */
	ck_assert_int_eq(mcache_copy_msg(mc, &ti, 0, 0, T0, out, sizeof(out),
		&len, &st), 0);
	ck_assert_int_eq(dns_msg_parse(out, len, &m, region, 0), 0);
	ck_assert_uint_eq(m.ancount, 2);
	ck_assert_uint_eq(m.nscount, 1);
	ck_assert_uint_eq(m.arcount, 1);
	ck_assert_int_eq(m.rrs[0].type, DNS_TYPE_A);
	/* the sets went to no cache (the answer's store does that) */
	ck_assert_uint_eq(rrset_cache_get_count(rc), 0);
	/* fresh in the cache: not stored again; expired: stored again */
	a.sec = MCACHE_SEC_UNCHECKED;
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0 + 10, buf,
		sizeof(buf), region), MCACHE_NOT_CACHEABLE);
	ck_assert_int_eq(mcache_peek(mc, &ti, 0, 0, T0 + 10, &st), 0);
	ck_assert_int_eq(st.sec, MCACHE_SEC_INSECURE);
	ck_assert_int_eq(cache_store_chain_target(mc, rc, &a, T0 + 400, buf,
		sizeof(buf), region), MCACHE_STORED);
	ck_assert_int_eq(mcache_peek(mc, &ti, 0, 0, T0 + 400, &st), 0);
	ck_assert_int_eq(st.sec, MCACHE_SEC_UNCHECKED);
	ck_assert_uint_eq(st.ttl, 300);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

static Suite *
store_suite(void)
{
	Suite *s = suite_create("store");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_chain);
	tcase_add_test(tc, test_negative);
	tcase_add_test(tc, test_large);
	tcase_add_test(tc, test_cached_ttl);
	tcase_add_test(tc, test_follow);
	tcase_add_test(tc, test_rebuild_bound);
	tcase_add_test(tc, test_rebuild_keeps);
	tcase_add_test(tc, test_rebuild_capped);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_chain_target);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(store_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
