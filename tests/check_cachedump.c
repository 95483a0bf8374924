/*
 * tests/check_cachedump.c - dump_cache / load_cache in Unbound's text
 * format (services/cache/cachedump.h).
 *
 * Checks: a dump written by Unbound 1.17 (taken from `unbound-control
 * dump_cache` after resolving A, AAAA, a CNAME chain, NXDOMAIN, NODATA,
 * MX and TXT) parses and loads, and the loaded messages answer with the
 * records of the dump; petrel's own dump has Unbound's framing and grammar
 * and, loaded into empty caches, gives the same dump again; the store
 * path keeps a set's RRSIGs and the validator's status in the RRset
 * cache (a secure set validated, one without RRSIGs not secure); a set
 * or an answer is written secure only with its RRSIGs; a loaded set
 * or message keeps the security status its line gives (a secure set
 * validated; a secure message only on secure sets), and one marked
 * bogus is not loaded; a message whose reference
 * names no set of the dump is skipped; every malformed line is an error
 * that names its line number, and the parse returns nothing (nothing can
 * be loaded half).
 */
#include "config.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "services/cache/cachedump.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/store.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"

/** the clock */
#define T0 100000

/** a dump written by Unbound 1.17.1 (unbound-control dump_cache) */
static const char ub_dump[] =
	"START_RRSET_CACHE\n"
	";rrset 300 1 0 8 0\n"
	"dump.example.\t300\tIN\tMX\t10 mail.dump.example.\n"
	";rrset 3600 1 0 7 0\n"
	".\t3600\tIN\tSOA\ta.root. hostmaster. 1 3600 600 86400 3600\n"
	";rrset 86400 1 0 8 0\n"
	"a.root.\t86400\tIN\tA\t127.0.160.2\n"
	";rrset 86400 1 0 8 0\n"
	".\t86400\tIN\tNS\ta.root.\n"
	";rrset 300 1 0 8 0\n"
	"alias2.dump.example.\t300\tIN\tCNAME\twww.dump.example.\n"
	";rrset 60 1 0 7 0\n"
	"dump.example.\t60\tIN\tSOA\tns.dump.example. "
	"hostmaster.dump.example. 1 3600 600 86400 60\n"
	";rrset 300 1 0 3 0\n"
	"mail.dump.example.\t300\tIN\tA\t192.0.2.3\n"
	";rrset 300 1 0 8 0\n"
	"alias.dump.example.\t300\tIN\tCNAME\talias2.dump.example.\n"
	";rrset 300 1 0 8 0\n"
	"www.dump.example.\t300\tIN\tAAAA\t2001:db8::1\n"
	";rrset 300 1 0 8 0\n"
	"txt.dump.example.\t300\tIN\tTXT\t\"hello world\" \"two\"\n"
	";rrset 300 2 0 8 0\n"
	"www.dump.example.\t300\tIN\tA\t192.0.2.1\n"
	"www.dump.example.\t300\tIN\tA\t192.0.2.2\n"
	"END_RRSET_CACHE\n"
	"START_MSG_CACHE\n"
	"msg dump.example. IN A 32896 1 60 0 0 1 0\n"
	"dump.example. IN SOA 4\n"
	"msg alias.dump.example. IN A 32896 1 300 0 3 0 0\n"
	"alias.dump.example. IN CNAME 0\n"
	"alias2.dump.example. IN CNAME 0\n"
	"www.dump.example. IN A 0\n"
	"msg www.dump.example. IN A 32896 1 300 0 1 0 0\n"
	"www.dump.example. IN A 0\n"
	"msg www.dump.example. IN AAAA 32896 1 300 0 1 0 0\n"
	"www.dump.example. IN AAAA 0\n"
	"msg nodata.dump.example. IN A 32896 1 60 0 0 1 0\n"
	"dump.example. IN SOA 4\n"
	"msg nx.dump.example. IN A 32899 1 60 0 0 1 0\n"
	"dump.example. IN SOA 4\n"
	"msg . IN NS 32898 1 5 2 0 0 0\n"
	"msg . IN NS 32896 1 86400 0 1 0 1\n"
	". IN NS 0\n"
	"a.root. IN A 0\n"
	"msg txt.dump.example. IN TXT 32896 1 300 0 1 0 0\n"
	"txt.dump.example. IN TXT 0\n"
	"msg dump.example. IN MX 32896 1 300 0 1 0 1\n"
	"dump.example. IN MX 0\n"
	"mail.dump.example. IN A 0\n"
	"END_MSG_CACHE\n"
	"EOF\n";

/** a name from presentation format, in static storage per slot */
#define N(slot, s) tu_name_slot(slot, s)

/** fresh caches */
static void
caches(struct mcache **mc, struct rrset_cache **rc)
{
	struct mcache_params p;
	mcache_params_default(&p);
	*mc = mcache_create(&p);
	*rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	ck_assert(*mc && *rc);
}

/** parse and load a dump that must parse; @return the counts */
static struct cachedump_counts
load(const char *text, struct mcache *mc, struct rrset_cache *rc)
{
	char err[256];
	struct cachedump_counts c;
	struct cachedump *d = cachedump_parse(text, strlen(text), err,
		sizeof(err));
	ck_assert_msg(d != NULL, "parse: %s", err);
	ck_assert_int_eq(cachedump_load(d, mc, rc, T0, &c), 0);
	cachedump_free(d);
	return c;
}

/** the message cache's state for a question (no DO, no CD) */
static struct mcache_state
peek(struct mcache *mc, const char *name, uint16_t type)
{
	struct query_info qi;
	struct mcache_state st;
	ck_assert_int_eq(query_info_set(&qi, N(7, name), type, DNS_CLASS_IN),
		0);
	if(mcache_peek(mc, &qi, 0, 0, T0, &st) != 0)
		st.result = MCACHE_MISS;
	return st;
}

/** ask the message cache; @return the answer length (0: miss) */
static size_t
ask(struct mcache *c, const char *name, uint16_t type, uint8_t *out,
	size_t cap)
{
	uint8_t q[512];
	struct dns_builder b;
	struct fast_query fq;
	size_t len = 0, qlen;
	dns_build_init(&b, q, sizeof(q), 0);
	ck_assert_int_eq(dns_build_header(&b, 0x1234, DNS_FLAG_RD), 0);
	ck_assert_int_eq(dns_build_question(&b, N(6, name), type,
		DNS_CLASS_IN), 0);
	ck_assert_int_eq(dns_build_opt(&b, 4096, 0, 0, NULL, 0), 0);
	qlen = dns_build_finish(&b);
	ck_assert_int_eq(dns_query_parse_fast(q, qlen, &fq), 0);
	if(mcache_answer(c, &fq, q, 1, T0, out, cap, &len, NULL) ==
		MCACHE_MISS)
		return 0;
	return len;
}

/** @return 1 when the wire holds these 4 bytes (an A record's RDATA) */
static int
has_bytes(const uint8_t *w, size_t len, const uint8_t *b, size_t n)
{
	size_t i;
	for(i = 0; i + n <= len; i++)
		if(memcmp(w + i, b, n) == 0)
			return 1;
	return 0;
}

/* Unbound's own dump loads; the answers hold its records */
START_TEST(test_unbound_dump)
{
	struct mcache *mc;
	struct rrset_cache *rc;
	struct cachedump_counts c;
	struct mcache_state st;
	struct region *region = region_create(0);
	struct rrset_data rs;
	uint8_t out[DNS_MAX_MSG];
	size_t n;
	static const uint8_t ip1[4] = {192, 0, 2, 1}, ip2[4] = {192, 0, 2, 2};
	caches(&mc, &rc);
	c = load(ub_dump, mc, rc);
	/* 11 sets, 9 messages stored; the SERVFAIL one is not kept */
	ck_assert_uint_eq(c.stored, 11 + 9);
	ck_assert_uint_eq(c.dropped, 1);
	ck_assert_uint_eq(rrset_cache_get_count(rc), 11);
	st = peek(mc, "www.dump.example.", DNS_TYPE_A);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	ck_assert_uint_eq(st.ttl, 300);
	n = ask(mc, "alias.dump.example.", DNS_TYPE_A, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_uint_eq(dns_read_u16(out + 6), 4);	/* 2 CNAME, 2 A */
	ck_assert(has_bytes(out, n, ip1, 4) && has_bytes(out, n, ip2, 4));
	st = peek(mc, "nx.dump.example.", DNS_TYPE_A);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	ck_assert_int_eq(st.rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_uint_eq(st.ttl, 60);
	n = ask(mc, "nodata.dump.example.", DNS_TYPE_A, out, sizeof(out));
	ck_assert_uint_gt(n, 0);
	ck_assert_int_eq(out[3] & 0xf, DNS_RCODE_NOERROR);
	ck_assert_uint_eq(dns_read_u16(out + 6), 0);	/* no answer */
	ck_assert_uint_eq(dns_read_u16(out + 8), 1);	/* the SOA */
	st = peek(mc, "dump.example.", DNS_TYPE_MX);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	st = peek(mc, "txt.dump.example.", DNS_TYPE_TXT);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	/* the sets: trust at most that of a non-authoritative answer */
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "www.dump.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_uint_eq(rs.count, 2);
	ck_assert_int_le(rs.trust, RRSET_TRUST_ANS_NOAA);
	ck_assert_int_eq(rs.sec, RRSET_SEC_UNCHECKED);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/** collects printed text */
struct text {
	/** the text */
	char buf[65536];
	/** its length */
	size_t len;
};

/** cachedump_print_func into a struct text */
static void
print_text(void *arg, const char *s, size_t n)
{
	struct text *t = arg;
	ck_assert_uint_lt(t->len + n, sizeof(t->buf));
	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = 0;
}

/** a whole dump of the caches, framed as the control server does */
static char *
dump(struct mcache *mc, struct rrset_cache *rc)
{
	static struct text r, m;
	char *s;
	r.len = m.len = 0;
	r.buf[0] = m.buf[0] = 0;
	ck_assert_int_eq(cachedump_write(mc, rc, T0, print_text, &r,
		print_text, &m), 0);
	s = malloc(r.len + m.len + 100);
	ck_assert(s != NULL);
	snprintf(s, r.len + m.len + 100, "START_RRSET_CACHE\n%s"
		"END_RRSET_CACHE\nSTART_MSG_CACHE\n%sEND_MSG_CACHE\nEOF\n",
		r.buf, m.buf);
	return s;
}

/** qsort: strings */
static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/** the lines of a text, sorted, joined */
static char *
sorted_lines(const char *text)
{
	char *copy = strdup(text), *p, *lines[4096], *out;
	size_t n = 0, i, len = strlen(text) + 1;
	ck_assert(copy != NULL);
	for(p = strtok(copy, "\n"); p; p = strtok(NULL, "\n")) {
		ck_assert_uint_lt(n, 4096);
		lines[n++] = p;
	}
	qsort(lines, n, sizeof(*lines), str_cmp);
	out = calloc(1, len + 1);
	ck_assert(out != NULL);
	for(i = 0; i < n; i++) {
		strcat(out, lines[i]);
		strcat(out, "\n");
	}
	free(copy);
	return out;
}

/* petrel's dump: Unbound's grammar; loaded again, the same dump */
START_TEST(test_roundtrip)
{
	struct mcache *mc, *mc2;
	struct rrset_cache *rc, *rc2;
	char *d1, *d2, *s1, *s2;
	struct cachedump_counts c;
	caches(&mc, &rc);
	(void)load(ub_dump, mc, rc);
	d1 = dump(mc, rc);
	/* a negative answer's SOA is referenced with flags 0 (Unbound's
	 * reader matches a reference's flags; a ";rrset" line has 0) */
	ck_assert_ptr_nonnull(strstr(d1, "msg nx.dump.example. IN A 32899 1 "
		"60 0 0 1 0\ndump.example. IN SOA 0\n"));
	ck_assert_ptr_nonnull(strstr(d1, "msg www.dump.example. IN A 32896 1 "
		"300 0 1 0 0\nwww.dump.example. IN A 0\n"));
	ck_assert_ptr_nonnull(strstr(d1, ";rrset 300 2 0 5 0\n"
		"www.dump.example.\t300\tIN\tA\t192.0.2.1\n"
		"www.dump.example.\t300\tIN\tA\t192.0.2.2\n"));
	/* each set once, though several messages reference the SOA */
	ck_assert_ptr_eq(strstr(strstr(d1, "\tSOA\tns.dump.example.") + 1,
		"\tSOA\tns.dump.example."), NULL);
	caches(&mc2, &rc2);
	c = load(d1, mc2, rc2);
	ck_assert_uint_eq(c.dropped, 0);
	ck_assert_uint_eq(c.stored, 11 + 9);
	d2 = dump(mc2, rc2);
	s1 = sorted_lines(d1);
	s2 = sorted_lines(d2);
	ck_assert_str_eq(s1, s2);
	free(s1);
	free(s2);
	free(d1);
	free(d2);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	mcache_delete(mc2);
	rrset_cache_delete(rc2);
}
END_TEST

/* a message only in the message cache (its set evicted from the RRset
 * cache, or a DO answer's RRSIGs): its sets are written from it */
START_TEST(test_msg_sets)
{
	struct mcache *mc;
	struct rrset_cache *rc;
	struct query_info qi;
	struct cache_rrset sets[2];
	struct cache_answer a;
	static uint8_t buf[DNS_MAX_MSG];
	static const uint8_t ip[4] = {198, 51, 100, 7};
	uint8_t sig[40];
	const uint8_t *rd[1] = {ip}, *sd[1] = {sig};
	uint16_t rl[1] = {4}, sl[1] = {sizeof(sig)};
	char *d;
	caches(&mc, &rc);
	memset(sig, 0, sizeof(sig));
	dns_write_u16(sig, DNS_TYPE_A);
	sig[2] = 8;	/* algorithm */
	sig[3] = 2;	/* labels */
	dns_write_u32(sig + 4, 600);
	sig[18] = 0;	/* signer: the root, then 21 bytes of signature */
	ck_assert_int_eq(query_info_set(&qi, N(0, "only.example."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	memset(sets, 0, sizeof(sets));
	sets[0].owner = N(1, "only.example.");
	sets[0].owner_len = dname_len(sets[0].owner);
	sets[0].type = DNS_TYPE_A;
	sets[0].rrclass = DNS_CLASS_IN;
	sets[0].ttl = 600;
	sets[0].count = 1;
	sets[0].rdata = rd;
	sets[0].rdlen = rl;
	sets[1] = sets[0];
	sets[1].type = DNS_TYPE_RRSIG;
	sets[1].rdata = sd;
	sets[1].rdlen = sl;
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.do_bit = 1;
	a.sec = MCACHE_SEC_SECURE;
	a.ede = -1;
	a.sets = sets;
	a.nsets = 2;
	ck_assert_int_eq(cache_store_answer(mc, NULL, &a, T0, buf,
		sizeof(buf), NULL), MCACHE_STORED);
	d = dump(mc, rc);
	/* the set with its RRSIG, secure as the message was */
	ck_assert_msg(strstr(d, "START_RRSET_CACHE\n;rrset 600 1 1 11 5\n"
		"only.example.\t600\tIN\tA\t198.51.100.7\nonly.example.\t600"
		"\tIN\tRRSIG\tA 8 2 600 ") != NULL, "%s", d);
	ck_assert_ptr_nonnull(strstr(d, "msg only.example. IN A 32896 1 600 "
		"5 1 0 0\nonly.example. IN A 0\nEND_MSG_CACHE\n"));
	free(d);
	/* the RRset cache has the set with its RRSIG but not validated
	 * (stored by a path without a validator): that one is written,
	 * unchecked, and the answer, one of whose sets the dump does not
	 * claim secure, is not claimed secure either */
	sets[0].trust = RRSET_TRUST_ANS_AA;
	ck_assert_int_eq(cache_store_answer(NULL, rc, &a, T0, buf,
		sizeof(buf), NULL), MCACHE_NOT_CACHEABLE);
	ck_assert_uint_eq(rrset_cache_get_count(rc), 1);
	d = dump(mc, rc);
	ck_assert_msg(strstr(d, "START_RRSET_CACHE\n;rrset 600 1 1 8 0\n"
		"only.example.\t600\tIN\tA\t198.51.100.7\nonly.example.\t600"
		"\tIN\tRRSIG\tA 8 2 600 ") != NULL, "%s", d);
	ck_assert_ptr_nonnull(strstr(d, "msg only.example. IN A 32896 1 600 "
		"0 1 0 0\nonly.example. IN A 0\nEND_MSG_CACHE\n"));
	free(d);
	/* validated (the validator marked the set secure): the RRset
	 * cache's copy is secure, validated, with its RRSIG, and so is
	 * the answer in the dump (issue 31, defect 6) */
	sets[0].sec = RRSET_SEC_SECURE;
	ck_assert_int_eq(cache_store_answer(NULL, rc, &a, T0, buf,
		sizeof(buf), NULL), MCACHE_NOT_CACHEABLE);
	ck_assert_uint_eq(rrset_cache_get_count(rc), 1);
	d = dump(mc, rc);
	ck_assert_msg(strstr(d, "START_RRSET_CACHE\n;rrset 600 1 1 11 5\n"
		"only.example.\t600\tIN\tA\t198.51.100.7\nonly.example.\t600"
		"\tIN\tRRSIG\tA 8 2 600 ") != NULL, "%s", d);
	ck_assert_ptr_nonnull(strstr(d, "msg only.example. IN A 32896 1 600 "
		"5 1 0 0\nonly.example. IN A 0\nEND_MSG_CACHE\n"));
	free(d);
	/* a secure answer for queries without DO (no RRSIGs): neither it
	 * nor its set is written secure */
	mcache_delete(mc);
	rrset_cache_delete(rc);
	caches(&mc, &rc);
	a.do_bit = 0;
	a.nsets = 1;
	ck_assert_int_eq(cache_store_answer(mc, NULL, &a, T0, buf,
		sizeof(buf), NULL), MCACHE_STORED);
	d = dump(mc, rc);
	ck_assert_msg(strstr(d, "START_RRSET_CACHE\n;rrset 600 1 0 5 0\n"
		"only.example.\t600\tIN\tA\t198.51.100.7\nEND_RRSET_CACHE")
		!= NULL, "%s", d);
	ck_assert_ptr_nonnull(strstr(d, "msg only.example. IN A 32896 1 600 "
		"0 1 0 0\n"));
	free(d);
	mcache_delete(mc);
	rrset_cache_delete(rc);
}
END_TEST

/* the store path keeps a set's RRSIGs and the validator's status in the
 * RRset cache: secure with its RRSIGs is validated; the same set without
 * them (the answer to a query without DO) is not secure, never replaces
 * the signed copy and is replaced by it */
START_TEST(test_store_signed)
{
	struct rrset_cache *rc = rrset_cache_create(1 << 20, 4, 0, 86400);
	struct region *region = region_create(0);
	struct query_info qi;
	struct cache_rrset sets[3];
	struct cache_answer a;
	struct rrset_data rs;
	static uint8_t buf[DNS_MAX_MSG];
	static const uint8_t ip[4] = {198, 51, 100, 8};
	uint8_t sig[40], sig2[40];
	const uint8_t *rd[1] = {ip}, *sd[2] = {sig, sig2};
	uint16_t rl[1] = {4}, sl[2] = {sizeof(sig), sizeof(sig2)};
	ck_assert(rc && region);
	memset(sig, 0, sizeof(sig));
	dns_write_u16(sig, DNS_TYPE_A);
	sig[2] = 13;
	sig[3] = 2;
	dns_write_u32(sig + 4, 600);
	/* an RRSIG of the same owner over another type: not the set's */
	memcpy(sig2, sig, sizeof(sig2));
	dns_write_u16(sig2, DNS_TYPE_TXT);
	ck_assert_int_eq(query_info_set(&qi, N(0, "signed.example."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	memset(sets, 0, sizeof(sets));
	sets[0].owner = N(1, "signed.example.");
	sets[0].owner_len = dname_len(sets[0].owner);
	sets[0].type = DNS_TYPE_A;
	sets[0].rrclass = DNS_CLASS_IN;
	sets[0].ttl = 600;
	sets[0].trust = RRSET_TRUST_ANS_AA;
	sets[0].sec = RRSET_SEC_SECURE;
	sets[0].count = 1;
	sets[0].rdata = rd;
	sets[0].rdlen = rl;
	sets[1] = sets[0];
	sets[1].type = DNS_TYPE_RRSIG;
	sets[1].count = 2;
	sets[1].rdata = sd;
	sets[1].rdlen = sl;
	memset(&a, 0, sizeof(a));
	a.qinfo = &qi;
	a.sec = MCACHE_SEC_SECURE;
	a.ede = -1;
	a.sets = sets;
	/* without DO: no RRSIGs, not secure */
	a.nsets = 1;
	(void)cache_store_answer(NULL, rc, &a, T0, buf, sizeof(buf), NULL);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "signed.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_uint_eq(rs.sig_count, 0);
	ck_assert_int_eq(rs.sec, RRSET_SEC_UNCHECKED);
	ck_assert_int_eq(rs.trust, RRSET_TRUST_ANS_AA);
	/* with DO: the RRSIG over A joins the set, secure, validated */
	a.do_bit = 1;
	a.nsets = 2;
	(void)cache_store_answer(NULL, rc, &a, T0, buf, sizeof(buf), NULL);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "signed.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_uint_eq(rs.count, 1);
	ck_assert_uint_eq(rs.sig_count, 1);
	ck_assert_uint_eq(rs.rdlen[1], sizeof(sig));
	ck_assert_int_eq(memcmp(rs.rdata[1], sig, sizeof(sig)), 0);
	ck_assert_int_eq(rs.sec, RRSET_SEC_SECURE);
	ck_assert_int_eq(rs.trust, RRSET_TRUST_VALIDATED);
	/* without DO again: the signed copy stays */
	a.do_bit = 0;
	a.nsets = 1;
	(void)cache_store_answer(NULL, rc, &a, T0 + 1, buf, sizeof(buf),
		NULL);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "signed.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0 + 1, region, &rs), 0);
	ck_assert_uint_eq(rs.sig_count, 1);
	ck_assert_int_eq(rs.sec, RRSET_SEC_SECURE);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/* a loaded entry keeps the security status of the dump, as in
 * Unbound (a secure set is validated, the others never above a
 * non-authoritative answer); a secure message on a set that is not
 * secure is unchecked; bogus ones are not loaded */
START_TEST(test_security)
{
	static const char text[] =
		"START_RRSET_CACHE\n"
		";rrset 300 1 0 11 5\n"
		"sec.example.\t300\tIN\tA\t192.0.2.9\n"
		";rrset 300 1 0 8 1\n"
		"bogus.example.\t300\tIN\tA\t192.0.2.66\n"
		";rrset 300 1 0 8 3\n"
		"ins.example.\t300\tIN\tA\t192.0.2.10\n"
		";rrset 300 1 0 11 0\n"
		"unch.example.\t300\tIN\tA\t192.0.2.11\n"
		"END_RRSET_CACHE\n"
		"START_MSG_CACHE\n"
		"msg sec.example. IN A 33152 1 300 5 1 0 0\n"
		"sec.example. IN A 0\n"
		"msg ins.example. IN A 33152 1 300 3 1 0 0\n"
		"ins.example. IN A 0\n"
		"msg unch.example. IN A 33152 1 300 5 1 0 0\n"
		"unch.example. IN A 0\n"
		"msg bogus.example. IN A 33152 1 300 1 1 0 0\n"
		"bogus.example. IN A 0\n"
		"msg bogus2.example. IN A 33152 1 300 0 1 0 0\n"
		"bogus.example. IN A 0\n"
		"msg gone.example. IN A 33152 1 300 0 1 0 0\n"
		"gone.example. IN A 0\n"
		"END_MSG_CACHE\n"
		"EOF\n";
	struct mcache *mc;
	struct rrset_cache *rc;
	struct cachedump_counts c;
	struct mcache_state st;
	struct region *region = region_create(0);
	struct rrset_data rs;
	struct query_info qi;
	caches(&mc, &rc);
	c = load(text, mc, rc);
	ck_assert_uint_eq(c.stored, 6);
	ck_assert_uint_eq(c.dropped, 4);
	st = peek(mc, "sec.example.", DNS_TYPE_A);
	ck_assert_int_eq(st.result, MCACHE_HIT);
	ck_assert_int_eq(st.sec, MCACHE_SEC_SECURE);
	/* the DO variant too (AD comes from a secure entry) */
	ck_assert_int_eq(query_info_set(&qi, N(0, "sec.example."),
		DNS_TYPE_A, DNS_CLASS_IN), 0);
	ck_assert_int_eq(mcache_peek(mc, &qi, 1, 0, T0, &st), 0);
	ck_assert_int_eq(st.sec, MCACHE_SEC_SECURE);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "sec.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_int_eq(rs.sec, RRSET_SEC_SECURE);
	ck_assert_int_eq(rs.trust, RRSET_TRUST_VALIDATED);
	/* insecure stays insecure */
	ck_assert_int_eq(peek(mc, "ins.example.", DNS_TYPE_A).sec,
		MCACHE_SEC_INSECURE);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "ins.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_int_eq(rs.sec, RRSET_SEC_INSECURE);
	ck_assert_int_eq(rs.trust, RRSET_TRUST_ANS_NOAA);
	/* validated trust without a secure status: capped; a secure
	 * message on it: unchecked */
	ck_assert_int_eq(peek(mc, "unch.example.", DNS_TYPE_A).sec,
		MCACHE_SEC_UNCHECKED);
	ck_assert_int_eq(rrset_cache_lookup(rc, N(0, "unch.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_int_eq(rs.sec, RRSET_SEC_UNCHECKED);
	ck_assert_int_eq(rs.trust, RRSET_TRUST_ANS_NOAA);
	/* bogus set, bogus message, a message on a bogus set: none */
	ck_assert_int_ne(rrset_cache_lookup(rc, N(0, "bogus.example."),
		DNS_TYPE_A, DNS_CLASS_IN, T0, region, &rs), 0);
	ck_assert_int_eq(peek(mc, "bogus.example.", DNS_TYPE_A).result,
		MCACHE_MISS);
	ck_assert_int_eq(peek(mc, "bogus2.example.", DNS_TYPE_A).result,
		MCACHE_MISS);
	/* a reference to no set of the dump: skipped */
	ck_assert_int_eq(peek(mc, "gone.example.", DNS_TYPE_A).result,
		MCACHE_MISS);
	mcache_delete(mc);
	rrset_cache_delete(rc);
	region_destroy(region);
}
END_TEST

/** a malformed dump and the line its error must name */
struct bad_case {
	/** the dump */
	const char *text;
	/** "line N:" */
	const char *line;
};

/* every malformed line: an error with its number, no parsed dump */
START_TEST(test_malformed)
{
#define GOOD_SET ";rrset 300 1 0 8 0\nok.example.\t300\tIN\tA\t192.0.2.1\n"
#define MSGS "END_RRSET_CACHE\nSTART_MSG_CACHE\n"
	static const struct bad_case cases[] = {
		{ "", "line 1:" },
		{ "msg 1 2 3\nEOF\n", "line 1:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1\n", "line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 0 0 8 0\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1 0 13 0\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1 0 8 6\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset -1 1 0 8 0\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1 0 8 0 x\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET "garbage\n", "line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1 0 8 0\n"
			"bad.example. 300 IN A 300.1.1.1\n", "line 5:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 2 0 8 0\n"
			"two.example. 300 IN A 192.0.2.1\n"
			"two.example. 300 IN AAAA ::1\n", "line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 2 0 8 0\n"
			"two.example. 300 IN A 192.0.2.1\n"
			"three.example. 300 IN A 192.0.2.2\n", "line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 1 1 8 0\n"
			"two.example. 300 IN A 192.0.2.1\n"
			"two.example. 300 IN A 192.0.2.2\n", "line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET ";rrset 300 2 0 8 0\n"
			"two.example. 300 IN A 192.0.2.1\n", "line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET "START_MSG_CACHE\n",
			"line 4:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0\n", "line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN NOTATYPE 33152 1 300 0 1 0 0\n",
			"line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. XX A 33152 1 300 0 1 0 0\n",
			"line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok..example. IN A 33152 1 300 0 1 0 0\n",
			"line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 70000 1 300 0 1 0 0\n",
			"line 6:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0 0\n"
			"ok.example. IN A\n", "line 7:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 2 0 0\n"
			"ok.example. IN A 0\n", "line 8:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0 0\n"
			"ok.example. IN A 0\nok.example. IN A 0\n", "line 8:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0 0\n"
			"ok.example. IN A 0\nEND_MSG_CACHE\n", "line 9:" },
		{ "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0 0\n"
			"ok.example. IN A 0\nEND_MSG_CACHE\nEOFX\n",
			"line 9:" },
	};
	size_t i;
	for(i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char err[256];
		struct cachedump *d = cachedump_parse(cases[i].text,
			strlen(cases[i].text), err, sizeof(err));
		ck_assert_msg(d == NULL, "case %zu parsed", i);
		ck_assert_msg(strncmp(err, cases[i].line,
			strlen(cases[i].line)) == 0, "case %zu: '%s', not %s",
			i, err, cases[i].line);
	}
	/* and the good part of the last one is fine on its own */
	{
		static const char good[] = "START_RRSET_CACHE\n" GOOD_SET MSGS
			"msg ok.example. IN A 33152 1 300 0 1 0 0\n"
			"ok.example. IN A 0\nEND_MSG_CACHE\nEOF\n";
		char err[256];
		struct cachedump *d = cachedump_parse(good, strlen(good), err,
			sizeof(err));
		ck_assert_msg(d != NULL, "%s", err);
		ck_assert_uint_eq(cachedump_size(d), 2);
		cachedump_free(d);
	}
#undef GOOD_SET
#undef MSGS
}
END_TEST

/* BADRR and BADREF (Unbound writes them for data it cannot print):
 * that set or message is skipped, the rest loads; a ";rrset nsec_apex"
 * line is read */
START_TEST(test_bad_markers)
{
	static const char text[] =
		"START_RRSET_CACHE\n"
		";rrset 300 2 0 8 0\n"
		"BADRR\n"
		"x.example.\t300\tIN\tA\t192.0.2.1\n"
		";rrset 300 1 0 8 0\n"
		"y.example.\t300\tIN\tA\t192.0.2.2\n"
		";rrset nsec_apex 300 1 0 8 0\n"
		"y.example.\t300\tIN\tNSEC\tz.example. A NS SOA RRSIG NSEC\n"
		"END_RRSET_CACHE\n"
		"START_MSG_CACHE\n"
		"msg x.example. IN A 33152 1 300 0 1 0 0\n"
		"x.example. IN A 0\n"
		"msg y.example. IN A 33152 1 300 0 1 0 0\n"
		"BADREF\n"
		"msg y.example. IN A 33152 1 300 0 1 0 0\n"
		"y.example. IN A 0\n"
		"END_MSG_CACHE\n"
		"EOF\n";
	struct mcache *mc;
	struct rrset_cache *rc;
	struct cachedump_counts c;
	caches(&mc, &rc);
	c = load(text, mc, rc);
	/* y's A and NSEC (the nsec_apex flag is read and not needed), y's
	 * message */
	ck_assert_uint_eq(c.stored, 3);
	ck_assert_uint_eq(c.dropped, 3);
	ck_assert_int_eq(peek(mc, "x.example.", DNS_TYPE_A).result,
		MCACHE_MISS);
	ck_assert_int_eq(peek(mc, "y.example.", DNS_TYPE_A).result,
		MCACHE_HIT);
	mcache_delete(mc);
	rrset_cache_delete(rc);
}
END_TEST

static Suite *
cachedump_suite(void)
{
	Suite *s = suite_create("cachedump");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_unbound_dump);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_msg_sets);
	tcase_add_test(tc, test_store_signed);
	tcase_add_test(tc, test_security);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_bad_markers);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(cachedump_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
