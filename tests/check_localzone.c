/*
 * tests/check_localzone.c - Check suite for front/localzone: every
 * local-zone type, local-data and local-data-ptr, the default zones and
 * nodefault, longest match, CHAOS identity, EDNS echo, truncation, the
 * front end with access control, and odd inputs. Queries are written by
 * ldns and every answer is read back with ldns_wire2pkt.
 */
#include "config.h"
#include "front/localzone.h"
#include "front/acl.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "util/log.h"
#include "util/netaddr.h"
#include <check.h>
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include <unistd.h>

/** the answer buffer */
static uint8_t answer[65535];
/** its length */
static size_t answer_len;
/** the query wire */
static uint8_t query[4096];
/** its length */
static size_t query_len;
/** the parsed query */
static struct fast_query fq;

/** query flags for mkquery */
#define Q_RD	1
#define Q_EDNS	2
#define Q_DO	4
#define Q_CD	8

/** write a query with ldns and parse it with the fast parser */
static void
mkquery(const char *name, ldns_rr_type t, ldns_rr_class c, int flags)
{
	ldns_rdf *dn = NULL;
	ldns_pkt *p;
	uint8_t *wire = NULL;
	size_t len = 0;
	ck_assert_int_eq(ldns_str2rdf_dname(&dn, name), LDNS_STATUS_OK);
	p = ldns_pkt_query_new(dn, t, c, (flags & Q_RD) ? LDNS_RD : 0);
	ck_assert_ptr_nonnull(p);
	ldns_pkt_set_id(p, 0x4242);
	if(flags & Q_CD)
		ldns_pkt_set_cd(p, 1);
	if(flags & (Q_EDNS | Q_DO)) {
		ldns_pkt_set_edns_udp_size(p, 4096);
		if(flags & Q_DO)
			ldns_pkt_set_edns_do(p, 1);
	}
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ck_assert_uint_le(len, sizeof(query));
	memcpy(query, wire, len);
	query_len = len;
	LDNS_FREE(wire);
	ldns_pkt_free(p);
	ck_assert_int_eq(dns_query_parse_fast(query, query_len, &fq), 0);
}

/** a client address */
static struct netaddr *
addr(const char *s)
{
	static struct netaddr a[4];
	static int i;
	struct netaddr *r = &a[i++ % 4];
	ck_assert_int_eq(netaddr_parse(s, 53, r, NULL), 0);
	return r;
}

/** ask local zones over UDP */
static enum local_zone_answer
ask_lz(const struct local_zones *lz, const char *name, ldns_rr_type t,
	ldns_rr_class c, int flags, struct local_alias *alias)
{
	mkquery(name, t, c, flags);
	answer_len = 0;
	return local_zones_answer(lz, query, query_len, &fq,
		addr("192.0.2.99@4444"), 0, answer, sizeof(answer), &answer_len,
		alias);
}

/** read the answer with ldns; check the header basics */
static ldns_pkt *
reply(void)
{
	ldns_pkt *p = NULL;
	ck_assert_uint_gt(answer_len, 0);
	ck_assert_int_eq(ldns_wire2pkt(&p, answer, answer_len),
		LDNS_STATUS_OK);
	ck_assert_int_eq(ldns_pkt_id(p), 0x4242);
	ck_assert(ldns_pkt_qr(p));
	ck_assert_int_eq(ldns_pkt_qdcount(p), 1);
	return p;
}

/** ask and expect ANSWERED; return the parsed reply */
static ldns_pkt *
ask(const struct local_zones *lz, const char *name, ldns_rr_type t,
	int flags)
{
	ck_assert_int_eq(ask_lz(lz, name, t, LDNS_RR_CLASS_IN, flags, NULL),
		LOCAL_ZONE_ANSWERED);
	return reply();
}

/** the rdata of answer RR i as text */
static char *
rdata_str(ldns_pkt *p, ldns_pkt_section sec, size_t i)
{
	static char buf[1024];
	ldns_rr_list *l = ldns_pkt_get_section_clone(p, sec);
	ldns_rr *rr;
	char *s;
	ck_assert_ptr_nonnull(l);
	ck_assert_uint_gt(ldns_rr_list_rr_count(l), i);
	rr = ldns_rr_list_rr(l, i);
	s = ldns_rdf2str(ldns_rr_rdf(rr, 0));
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	ldns_rr_list_deep_free(l);
	return buf;
}

/** owner of RR i in a section as text */
static char *
owner_str(ldns_pkt *p, ldns_pkt_section sec, size_t i)
{
	static char buf[1024];
	ldns_rr_list *l = ldns_pkt_get_section_clone(p, sec);
	char *s;
	ck_assert_uint_gt(ldns_rr_list_rr_count(l), i);
	s = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(l, i)));
	snprintf(buf, sizeof(buf), "%s", s);
	free(s);
	ldns_rr_list_deep_free(l);
	return buf;
}

/** TTL and type of RR i in a section */
static uint32_t
rr_ttl(ldns_pkt *p, ldns_pkt_section sec, size_t i, ldns_rr_type *t)
{
	ldns_rr_list *l = ldns_pkt_get_section_clone(p, sec);
	uint32_t ttl;
	ck_assert_uint_gt(ldns_rr_list_rr_count(l), i);
	ttl = ldns_rr_ttl(ldns_rr_list_rr(l, i));
	if(t)
		*t = ldns_rr_get_type(ldns_rr_list_rr(l, i));
	ldns_rr_list_deep_free(l);
	return ttl;
}

/** the EDE info-code in a reply, or -1 */
static int
ede_code(ldns_pkt *p)
{
	ldns_rdf *d = ldns_pkt_edns_data(p);
	const uint8_t *b;
	size_t n, i = 0;
	if(!d)
		return -1;
	b = ldns_rdf_data(d);
	n = ldns_rdf_size(d);
	while(i + 4 <= n) {
		uint16_t code = (uint16_t)(b[i] << 8 | b[i + 1]);
		uint16_t len = (uint16_t)(b[i + 2] << 8 | b[i + 3]);
		if(code == 15 && len >= 2 && i + 4 + len <= n)
			return b[i + 4] << 8 | b[i + 5];
		i += 4 + (size_t)len;
	}
	return -1;
}

/** build from lines: "zone NAME TYPE", "data RR", "ptr STR" */
static struct local_zones *
build(const char *const *lines)
{
	struct local_zones *lz = local_zones_create();
	char err[512];
	ck_assert_ptr_nonnull(lz);
	for(; lines && *lines; lines++) {
		const char *l = *lines;
		int r;
		if(strncmp(l, "zone ", 5) == 0) {
			char nm[300], tp[64];
			ck_assert_int_eq(sscanf(l + 5, "%299s %63s", nm, tp), 2);
			r = local_zones_add_zone(lz, nm, tp, err, sizeof(err));
		} else if(strncmp(l, "data ", 5) == 0) {
			r = local_zones_add_data(lz, l + 5, err, sizeof(err));
		} else {
			ck_assert(strncmp(l, "ptr ", 4) == 0);
			r = local_zones_add_data_ptr(lz, l + 4, err,
				sizeof(err));
		}
		ck_assert_msg(r == 0, "line '%s': %s", l, err);
	}
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	return lz;
}

/** a count or a TTL a question checks: N(n) is n; 0 is "not checked" */
#define N(n) ((n) + 1)

/** one question to the local zones (over UDP, from 192.0.2.99) and what
 * must come back; a field left 0 (or NULL) is not checked */
struct lzq {
	/** the question: name, type (0: A), class (0: IN) */
	const char *name;
	ldns_rr_type type;
	ldns_rr_class cls;
	/** Q_* flags beside RD, and no_rd to ask without RD */
	int flags, no_rd;
	/** not answered here: resolved (not_local) or dropped (drop);
	 * neither: LOCAL_ZONE_ANSWERED */
	int not_local, drop;
	/** the reply: N(rcode), N(answers), N(authority records), AA and
	 * RD (1 set, -1 clear) */
	int rcode, an, ns, aa, rd;
	/** the first answer: its RDATA as text, type, owner, N(TTL) */
	const char *rdata;
	ldns_rr_type an_type;
	const char *an_owner;
	uint32_t an_ttl;
	/** the first authority record: owner, type, N(TTL) */
	const char *ns_owner;
	ldns_rr_type ns_type;
	uint32_t ns_ttl;
};

/** a text of the reply to question name/t is want */
static void
check_text(const char *name, ldns_rr_type t, const char *what,
	const char *got, const char *want)
{
	ck_assert_msg(strcmp(got, want) == 0, "%s type %d: %s %s, want %s",
		name, (int)t, what, got, want);
}

/** ask every question of the table, and check what comes back */
static void
check_qs(const struct local_zones *lz, const struct lzq *q, size_t n)
{
	for(; n > 0; n--, q++) {
		enum local_zone_answer want = q->not_local ?
			LOCAL_ZONE_NOT_LOCAL : q->drop ? LOCAL_ZONE_DROP :
			LOCAL_ZONE_ANSWERED;
		ldns_rr_type t = q->type ? q->type : LDNS_RR_TYPE_A, at;
		const char *w = q->name;
		ldns_pkt *p;
		ck_assert_msg(ask_lz(lz, w, t, q->cls ? q->cls :
			LDNS_RR_CLASS_IN, q->flags | (q->no_rd ? 0 : Q_RD),
			NULL) == want, "%s type %d: not answered as %d", w,
			(int)t, (int)want);
		if(want != LOCAL_ZONE_ANSWERED)
			continue;
		p = reply();
		ck_assert_msg(!q->rcode || (int)ldns_pkt_get_rcode(p) ==
			q->rcode - 1, "%s type %d: rcode %d, want %d", w, (int)t,
			(int)ldns_pkt_get_rcode(p), q->rcode - 1);
		ck_assert_msg(!q->an || ldns_pkt_ancount(p) == q->an - 1,
			"%s type %d: %d answers, want %d", w, (int)t,
			(int)ldns_pkt_ancount(p), q->an - 1);
		ck_assert_msg(!q->ns || ldns_pkt_nscount(p) == q->ns - 1,
			"%s type %d: %d authority records, want %d", w, (int)t,
			(int)ldns_pkt_nscount(p), q->ns - 1);
		ck_assert_msg(!q->aa || (q->aa > 0) == !!ldns_pkt_aa(p),
			"%s type %d: AA %d", w, (int)t, (int)ldns_pkt_aa(p));
		ck_assert_msg(!q->rd || (q->rd > 0) == !!ldns_pkt_rd(p),
			"%s type %d: RD %d", w, (int)t, (int)ldns_pkt_rd(p));
		if(q->rdata)
			check_text(w, t, "answer",
				rdata_str(p, LDNS_SECTION_ANSWER, 0), q->rdata);
		if(q->an_owner)
			check_text(w, t, "answer owner",
				owner_str(p, LDNS_SECTION_ANSWER, 0), q->an_owner);
		if(q->an_ttl || q->an_type) {
			uint32_t ttl = rr_ttl(p, LDNS_SECTION_ANSWER, 0, &at);
			ck_assert_msg(!q->an_ttl || ttl == q->an_ttl - 1,
				"%s type %d: answer TTL %u, want %u", w, (int)t,
				(unsigned)ttl, (unsigned)(q->an_ttl - 1));
			ck_assert_msg(!q->an_type || at == q->an_type,
				"%s type %d: answer type %d", w, (int)t, (int)at);
		}
		if(q->ns_owner)
			check_text(w, t, "authority owner",
				owner_str(p, LDNS_SECTION_AUTHORITY, 0),
				q->ns_owner);
		if(q->ns_ttl || q->ns_type) {
			uint32_t ttl = rr_ttl(p, LDNS_SECTION_AUTHORITY, 0, &at);
			ck_assert_msg(!q->ns_ttl || ttl == q->ns_ttl - 1,
				"%s type %d: authority TTL %u, want %u", w,
				(int)t, (unsigned)ttl,
				(unsigned)(q->ns_ttl - 1));
			ck_assert_msg(!q->ns_type || at == q->ns_type,
				"%s type %d: authority type %d", w, (int)t,
				(int)at);
		}
		ldns_pkt_free(p);
	}
}

/** check_qs over a whole array */
#define CHECK_QS(lz, qs) check_qs((lz), (qs), sizeof(qs) / sizeof((qs)[0]))

/** a static zone alone (log-local-actions) */
static const char *const log_cfg[] = {
	"zone static.test. static",
	"data www.static.test. A 192.0.2.1",
	NULL
};

/** the configuration most tests use */
static const char *const main_cfg[] = {
	"zone static.test. static",
	"data static.test. SOA ns.static.test. host.static.test. 1 2 3 4 50",
	"data www.static.test. A 192.0.2.1",
	"data cn.static.test. CNAME www.static.test.",
	"data a.b.c.static.test. A 192.0.2.9",
	"data multi.static.test. 100 A 192.0.2.20",
	"data multi.static.test. 200 A 192.0.2.21",
	"data multi.static.test. 200 A 192.0.2.21",
	"zone nosoa.test static",
	"data www.nosoa.test A 192.0.2.2",
	"zone empty.example. static",
	"zone tr.example. transparent",
	"data www.tr.example. A 192.0.2.3",
	"zone tt.example. typetransparent",
	"data www.tt.example. A 192.0.2.5",
	"zone rd.example. redirect",
	"data rd.example. A 192.0.2.4",
	"zone rdc.example. redirect",
	"data rdc.example. 300 CNAME www.static.test.",
	"zone rdw.example. redirect",
	"data rdw.example. CNAME *.static.test.",
	"zone ref.example. refuse",
	"data data.ref.example. A 192.0.2.6",
	"zone den.example. deny",
	"data data.den.example. A 192.0.2.7",
	"zone inf.example. inform",
	"data www.inf.example. A 192.0.2.8",
	"zone infd.example. inform_deny",
	"zone infr.example. inform_redirect",
	"data infr.example. A 192.0.2.10",
	"zone at.example. always_transparent",
	"data x.at.example. A 1.2.3.4",
	"zone ar.example. always_refuse",
	"data x.ar.example. A 1.2.3.4",
	"zone axn.example. always_nxdomain",
	"data x.axn.example. A 1.2.3.4",
	"zone and.example. always_nodata",
	"data and.example. SOA a. b. 1 2 3 4 77",
	"zone adn.example. always_deny",
	"zone an.example. always_null",
	"data x.an.example. A 1.2.3.4",
	"zone ba.example. block_a",
	"data x.ba.example. A 1.2.3.4",
	"zone baaaa.example. block_aaaa",
	"zone nv.example. noview",
	"data www.nv.example. A 192.0.2.11",
	"zone onion. nodefault",
	"zone 10.in-addr.arpa. transparent",
	"zone example. static",
	"data example. 500 SOA ns.example. h.example. 1 2 3 4 600",
	"zone sub.example. transparent",
	"data deep.sub.example. A 192.0.2.30",
	"data orphan.foo.example2. A 192.0.2.40",
	"data orphan2.bar.example2. A 192.0.2.41",
	"data orphan3.example3. A 192.0.2.42",
	"data mydata.server. CH TXT \"hi\"",
	"ptr 192.0.2.77 host77.example2",
	"ptr 2001:db8::4 7200 host4.example2.",
	"ptr 198.18.0.1 bench.example2",
	NULL
};

START_TEST(test_static)
{
	static const struct lzq qs[] = {
		/* NXDOMAIN with the SOA, TTL lowered to the SOA minimum */
		{ "nx.static.test.", .rcode = N(LDNS_RCODE_NXDOMAIN), .aa = 1,
		  .an = N(0), .ns = N(1), .ns_ttl = N(50),
		  .ns_type = LDNS_RR_TYPE_SOA, .ns_owner = "static.test." },
		/* NODATA with the SOA */
		{ "www.static.test.", LDNS_RR_TYPE_AAAA,
		  .rcode = N(LDNS_RCODE_NOERROR), .an = N(0), .ns = N(1) },
		/* empty non-terminal: NODATA */
		{ "b.c.static.test.", .rcode = N(LDNS_RCODE_NOERROR),
		  .ns = N(1) },
		/* below data: NXDOMAIN */
		{ "x.www.static.test.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
		/* the apex SOA itself, full TTL */
		{ "static.test.", LDNS_RR_TYPE_SOA, .an = N(1),
		  .an_ttl = N(3600) },
		/* CNAME answered as is, not chased (Unbound) */
		{ "cn.static.test.", .an = N(1), .an_type = LDNS_RR_TYPE_CNAME,
		  .rdata = "www.static.test." },
		/* ANY: only a literal ANY set would match: NODATA
		 * (Unbound) */
		{ "www.static.test.", LDNS_RR_TYPE_ANY,
		  .rcode = N(LDNS_RCODE_NOERROR), .an = N(0) },
		/* static without SOA: bare NXDOMAIN, apex is an ENT:
		 * NODATA */
		{ "nx.nosoa.test.", .rcode = N(LDNS_RCODE_NXDOMAIN),
		  .ns = N(0) },
		{ "nosoa.test.", .rcode = N(LDNS_RCODE_NOERROR), .an = N(0) },
		/* static zone without any data: even the apex is
		 * NXDOMAIN */
		{ "empty.example.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
	};
	struct local_zones *lz = build(main_cfg);
	ldns_pkt *p;
	ldns_rr_type t;
	/* data, AA, RD echoed, RA */
	p = ask(lz, "www.static.test.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert(ldns_pkt_aa(p));
	ck_assert(ldns_pkt_rd(p));
	ck_assert(ldns_pkt_ra(p));
	ck_assert(!ldns_pkt_tc(p));
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	ck_assert_int_eq(ldns_pkt_nscount(p), 0);
	ck_assert_int_eq(ldns_pkt_arcount(p), 0);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "192.0.2.1");
	ck_assert_uint_eq(rr_ttl(p, LDNS_SECTION_ANSWER, 0, &t), 3600);
	ck_assert_int_eq(t, LDNS_RR_TYPE_A);
	ldns_pkt_free(p);
	/* RD clear stays clear, CD echoed */
	p = ask(lz, "www.static.test.", LDNS_RR_TYPE_A, Q_CD);
	ck_assert(!ldns_pkt_rd(p));
	ck_assert(ldns_pkt_cd(p));
	ldns_pkt_free(p);
	CHECK_QS(lz, qs);
	/* several RRs, per-RR TTL, duplicate dropped */
	p = ask(lz, "multi.static.test.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert_int_eq(ldns_pkt_ancount(p), 2);
	ck_assert_uint_eq(rr_ttl(p, LDNS_SECTION_ANSWER, 0, NULL), 100);
	ck_assert_uint_eq(rr_ttl(p, LDNS_SECTION_ANSWER, 1, NULL), 200);
	ldns_pkt_free(p);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_case_and_class)
{
	struct local_zones *lz = build(main_cfg);
	ldns_pkt *p;
	char *q;
	/* the question keeps the client's letter case */
	p = ask(lz, "WwW.StAtIc.TeSt.", LDNS_RR_TYPE_A, Q_RD);
	q = ldns_rdf2str(ldns_rr_owner(ldns_rr_list_rr(ldns_pkt_question(p),
		0)));
	ck_assert_str_eq(q, "WwW.StAtIc.TeSt.");
	free(q);
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	ck_assert_int_eq(strcasecmp(owner_str(p, LDNS_SECTION_ANSWER, 0),
		"www.static.test."), 0);
	ldns_pkt_free(p);
	/* zones are class IN: another class is not covered */
	ck_assert_int_eq(ask_lz(lz, "www.static.test.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_HS, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(ask_lz(lz, "www.static.test.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_ANY, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	/* CH local data makes a CH zone */
	ck_assert_int_eq(ask_lz(lz, "mydata.server.", LDNS_RR_TYPE_TXT,
		LDNS_RR_CLASS_CH, Q_RD, NULL), LOCAL_ZONE_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	ck_assert(ldns_pkt_aa(p));
	ldns_pkt_free(p);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_transparent)
{
	static const struct lzq qs[] = {
		{ "www.tr.example.", .rdata = "192.0.2.3", .aa = 1 },
		/* name with data, other type: NODATA (no SOA in this
		 * zone) */
		{ "www.tr.example.", LDNS_RR_TYPE_AAAA,
		  .rcode = N(LDNS_RCODE_NOERROR), .an = N(0), .ns = N(0),
		  .aa = 1 },
		/* other names resolve normally */
		{ "nx.tr.example.", .not_local = 1 },
		{ "tr.example.", .not_local = 1 },
		/* typetransparent: data, else resolve even for the same
		 * name */
		{ "www.tt.example.", .rdata = "192.0.2.5" },
		{ "www.tt.example.", LDNS_RR_TYPE_AAAA, .not_local = 1 },
		{ "nx.tt.example.", .not_local = 1 },
		/* always_transparent ignores its data */
		{ "x.at.example.", .not_local = 1 },
	};
	struct local_zones *lz = build(main_cfg);
	CHECK_QS(lz, qs);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_redirect)
{
	struct local_zones *lz = build(main_cfg);
	struct local_alias al;
	ldns_pkt *p;
	ldns_rr_type t;
	const char *names[] = { "rd.example.", "foo.rd.example.",
		"a.b.c.d.rd.example.", NULL };
	int i;
	for(i = 0; names[i]; i++) {
		p = ask(lz, names[i], LDNS_RR_TYPE_A, Q_RD);
		ck_assert_int_eq(ldns_pkt_ancount(p), 1);
		ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0),
			"192.0.2.4");
		ck_assert_str_eq(owner_str(p, LDNS_SECTION_ANSWER, 0),
			names[i]);
		ck_assert(ldns_pkt_aa(p));
		ldns_pkt_free(p);
		/* other types: NODATA */
		p = ask(lz, names[i], LDNS_RR_TYPE_AAAA, Q_RD);
		ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
		ck_assert_int_eq(ldns_pkt_ancount(p), 0);
		ldns_pkt_free(p);
	}
	/* a CNAME at a redirect apex is an alias */
	ck_assert_int_eq(ask_lz(lz, "x.y.rdc.example.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, &al), LOCAL_ZONE_ANSWERED);
	ck_assert_int_eq(al.present, 1);
	ck_assert_uint_eq(al.target_len, 17);
	ck_assert(dname_equal(al.target,
		(const uint8_t *)"\003www\006static\004test"));
	ck_assert_uint_eq(al.ttl, 300);
	p = reply();
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	rr_ttl(p, LDNS_SECTION_ANSWER, 0, &t);
	ck_assert_int_eq(t, LDNS_RR_TYPE_CNAME);
	ck_assert_str_eq(owner_str(p, LDNS_SECTION_ANSWER, 0),
		"x.y.rdc.example.");
	ldns_pkt_free(p);
	/* asking for the CNAME itself is no alias */
	ck_assert_int_eq(ask_lz(lz, "x.rdc.example.", LDNS_RR_TYPE_CNAME,
		LDNS_RR_CLASS_IN, Q_RD, &al), LOCAL_ZONE_ANSWERED);
	ck_assert_int_eq(al.present, 0);
	/* a wildcard CNAME target is synthesised from the question */
	ck_assert_int_eq(ask_lz(lz, "x.Y.rdw.example.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, &al), LOCAL_ZONE_ANSWERED);
	ck_assert_int_eq(al.present, 1);
	ck_assert(dname_equal(al.target, (const uint8_t *)
		"\001x\001y\003rdw\007example\006static\004test"));
	p = reply();
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0),
		"x.y.rdw.example.static.test.");
	ldns_pkt_free(p);
	{
		/* too long after synthesis: YXDOMAIN with an EDE */
		char longname[300];
		size_t k = 0;
		int j;
		for(j = 0; j < 4; j++) {
			memset(longname + k, 'a' + j, j < 3 ? 60 : 47);
			k += j < 3 ? 60 : 47;
			longname[k++] = '.';
		}
		snprintf(longname + k, sizeof(longname) - k, "rdw.example.");
		ck_assert_int_eq(ask_lz(lz, longname, LDNS_RR_TYPE_A,
			LDNS_RR_CLASS_IN, Q_RD | Q_EDNS, &al),
			LOCAL_ZONE_ANSWERED);
		ck_assert_int_eq(al.present, 0);
		p = reply();
		ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_YXDOMAIN);
		ck_assert(ldns_pkt_aa(p));
		ck_assert_int_eq(ldns_pkt_ancount(p), 0);
		ck_assert_int_eq(ede_code(p), 0);
		ldns_pkt_free(p);
	}
	/* inform_redirect: redirect with a log line */
	p = ask(lz, "q.infr.example.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "192.0.2.10");
	ldns_pkt_free(p);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_deny_refuse)
{
	static const struct lzq qs[] = {
		/* refuse: REFUSED with AA, data still answered */
		{ "data.ref.example.", .rdata = "192.0.2.6" },
		/* deny: drop, data still answered */
		{ "x.den.example.", .drop = 1 },
		{ "den.example.", .drop = 1 },
		{ "data.den.example.", .rdata = "192.0.2.7" },
		/* always_refuse ignores data */
		{ "x.ar.example.", .rcode = N(LDNS_RCODE_REFUSED), .an = N(0) },
		/* always_deny */
		{ "x.adn.example.", .drop = 1 },
	};
	struct local_zones *lz = build(main_cfg);
	ldns_pkt *p;
	p = ask(lz, "x.ref.example.", LDNS_RR_TYPE_A, Q_RD | Q_EDNS);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert(ldns_pkt_aa(p));
	ck_assert(ldns_pkt_rd(p));
	ck_assert_int_eq(ldns_pkt_ancount(p), 0);
	ldns_pkt_free(p);
	CHECK_QS(lz, qs);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_always)
{
	static const struct lzq qs[] = {
		/* always_nxdomain ignores data */
		{ "x.axn.example.", .rcode = N(LDNS_RCODE_NXDOMAIN), .an = N(0),
		  .aa = 1 },
		{ "axn.example.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
		/* always_nodata: NODATA with its SOA (negative TTL 4) */
		{ "whatever.and.example.", .rcode = N(LDNS_RCODE_NOERROR),
		  .an = N(0), .ns = N(1), .ns_ttl = N(77) },
		{ "and.example.", LDNS_RR_TYPE_SOA, .an = N(0) },
		/* always_null */
		{ "x.an.example.", .an = N(1), .rdata = "0.0.0.0" },
		{ "y.an.example.", LDNS_RR_TYPE_AAAA, .an = N(1),
		  .rdata = "::" },
		{ "y.an.example.", LDNS_RR_TYPE_MX,
		  .rcode = N(LDNS_RCODE_NOERROR), .an = N(0) },
		/* block_a: NODATA for A (data ignored), the rest
		 * resolves */
		{ "x.ba.example.", .rcode = N(LDNS_RCODE_NOERROR), .an = N(0),
		  .aa = 1 },
		{ "x.ba.example.", LDNS_RR_TYPE_AAAA, .not_local = 1 },
		{ "y.baaaa.example.", LDNS_RR_TYPE_AAAA, .an = N(0) },
		{ "y.baaaa.example.", .not_local = 1 },
		/* noview outside views: transparent */
		{ "www.nv.example.", .an = N(1) },
		{ "www.nv.example.", LDNS_RR_TYPE_TXT, .an = N(0) },
		{ "x.nv.example.", .not_local = 1 },
	};
	struct local_zones *lz = build(main_cfg);
	CHECK_QS(lz, qs);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_inform)
{
	struct local_zones *lz = build(main_cfg);
	char logbuf[2048];
	ldns_pkt *p;
	logbuf[0] = 0;
	log_capture(logbuf, sizeof(logbuf));
	p = ask(lz, "www.inf.example.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "192.0.2.8");
	ldns_pkt_free(p);
	ck_assert_int_eq(ask_lz(lz, "other.inf.example.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(ask_lz(lz, "x.infd.example.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, NULL), LOCAL_ZONE_DROP);
	log_capture(NULL, 0);
	ck_assert_msg(strstr(logbuf, "inf.example. inform 192.0.2.99@4444 "
		"www.inf.example. A IN") != NULL, "log: %s", logbuf);
	ck_assert_msg(strstr(logbuf, "other.inf.example.") != NULL, "log: %s",
		logbuf);
	ck_assert_msg(strstr(logbuf, "infd.example. inform_deny "
		"192.0.2.99@4444 x.infd.example.") != NULL, "log: %s", logbuf);
	/* other zones log nothing */
	logbuf[0] = 0;
	log_capture(logbuf, sizeof(logbuf));
	p = ask(lz, "www.static.test.", LDNS_RR_TYPE_A, Q_RD);
	ldns_pkt_free(p);
	log_capture(NULL, 0);
	ck_assert_str_eq(logbuf, "");
	local_zones_delete(lz);
	/* log-local-actions: every zone logs the same line (names outside
	 * the local zones still do not) */
	lz = build(log_cfg);
	local_zones_set_log_actions(lz, 1);
	logbuf[0] = 0;
	log_capture(logbuf, sizeof(logbuf));
	p = ask(lz, "www.static.test.", LDNS_RR_TYPE_A, Q_RD);
	ldns_pkt_free(p);
	ck_assert_int_eq(ask_lz(lz, "www.example.org.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	log_capture(NULL, 0);
	ck_assert_msg(strstr(logbuf, "static.test. static 192.0.2.99@4444 "
		"www.static.test. A IN") != NULL, "log: %s", logbuf);
	ck_assert_msg(strstr(logbuf, "example.org") == NULL, "log: %s",
		logbuf);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_implicit_and_ptr)
{
	static const struct lzq qs[] = {
		{ "orphan.foo.example2.", .rdata = "192.0.2.40" },
		{ "orphan.foo.example2.", LDNS_RR_TYPE_TXT, .an = N(0),
		  .rcode = N(LDNS_RCODE_NOERROR) },
		{ "www.example.org.", .not_local = 1 },
		/* local-data-ptr v4 and v6 (with a TTL) */
		{ "77.2.0.192.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rdata = "host77.example2.", .an_ttl = N(3600) },
		{ "4.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0."
		  "1.0.0.2.ip6.arpa.", LDNS_RR_TYPE_PTR,
		  .rdata = "host4.example2.", .an_ttl = N(7200) },
		{ "1.0.18.198.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rdata = "bench.example2." },
	};
	struct local_zones *lz = build(main_cfg);
	uint8_t zn[DNS_MAX_NAME];
	/* orphan data: one transparent zone at the common ancestor */
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\006orphan\003foo\010example2", LDNS_RR_TYPE_A, 1, zn),
		LOCAL_ZONE_TRANSPARENT);
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\003zzz", LDNS_RR_TYPE_A, 1, zn), LOCAL_ZONE_TRANSPARENT);
	ck_assert_int_eq(zn[0], 0); /* the root: example2 and example3 */
	CHECK_QS(lz, qs);
	/* the PTRs that fall in default zones went there */
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"7720192in-addrarpa", LDNS_RR_TYPE_PTR,
		1, zn), LOCAL_ZONE_STATIC);
	ck_assert(dname_equal(zn, (const uint8_t *)
		"20192in-addrarpa"));
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_single_implicit)
{
	static const char *const cfg[] = {
		"data a.b.example.com. A 192.0.2.1",
		"data c.b.example.com. A 192.0.2.2",
		NULL
	};
	struct local_zones *lz = build(cfg);
	uint8_t zn[DNS_MAX_NAME];
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\001x\001b\007example\003com", LDNS_RR_TYPE_A, 1, zn),
		LOCAL_ZONE_TRANSPARENT);
	ck_assert(dname_equal(zn, (const uint8_t *)"\001b\007example\003com"));
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\007example\003com", LDNS_RR_TYPE_A, 1, zn), LOCAL_ZONE_UNSET);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_defaults)
{
	/* RFC 6761 / 7686 / 8375 / 9462 / 9665 zones: NXDOMAIN with the
	 * SOA */
#define DEFAULT_NX(name) { name, .rcode = N(LDNS_RCODE_NXDOMAIN), \
	.ns = N(1), .ns_ttl = N(10800) }
	static const struct lzq qs[] = {
		/* localhost is a redirect zone */
		{ "localhost.", .rdata = "127.0.0.1", .an_ttl = N(10800) },
		{ "LocalHost.", LDNS_RR_TYPE_AAAA, .rdata = "::1" },
		{ "foo.localhost.", .rdata = "127.0.0.1" },
		{ "localhost.", LDNS_RR_TYPE_NS, .rdata = "localhost." },
		/* loopback reverse */
		{ "1.0.0.127.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rdata = "localhost." },
		{ "2.0.0.127.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rcode = N(LDNS_RCODE_NXDOMAIN), .ns = N(1) },
		{ "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		  "0.0.0.0.ip6.arpa.", LDNS_RR_TYPE_PTR,
		  .rdata = "localhost." },
		DEFAULT_NX("foo.onion."), DEFAULT_NX("foo.test."),
		DEFAULT_NX("foo.invalid."), DEFAULT_NX("printer.home.arpa."),
		DEFAULT_NX("_dns.resolver.arpa."),
		DEFAULT_NX("foo.service.arpa."),
		/* the private reverse zones */
		{ "5.10.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rcode = N(LDNS_RCODE_NXDOMAIN),
		  .ns_owner = "10.in-addr.arpa." },
		{ "1.2.15.172.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .not_local = 1 },
		{ "1.2.32.172.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .not_local = 1 },
		{ "1.1.168.192.in-addr.arpa.", LDNS_RR_TYPE_PTR,
		  .rcode = N(LDNS_RCODE_NXDOMAIN) },
		{ "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0."
		  "1.0.0.2.ip6.arpa.", LDNS_RR_TYPE_PTR,
		  .rcode = N(LDNS_RCODE_NXDOMAIN) },
		{ "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		  "0.8.e.f.ip6.arpa.", LDNS_RR_TYPE_PTR,
		  .rcode = N(LDNS_RCODE_NXDOMAIN) },
		/* ordinary names are not local */
		{ "www.example.com.", .not_local = 1 },
		{ "8.8.8.8.in-addr.arpa.", LDNS_RR_TYPE_PTR, .not_local = 1 },
		{ "arpa.", LDNS_RR_TYPE_NS, .not_local = 1 },
		{ ".", LDNS_RR_TYPE_NS, .not_local = 1 },
	};
#undef DEFAULT_NX
	static const struct lzq qs2[] = {
		/* nodefault switches onion off; a user zone replaces
		 * 10.in-addr */
		{ "foo.onion.", .not_local = 1 },
		{ "5.10.in-addr.arpa.", LDNS_RR_TYPE_PTR, .not_local = 1 },
		/* a user zone under a default one is the longer match */
		{ "www.static.test.", .rdata = "192.0.2.1" },
		{ "foo.test.", .rcode = N(LDNS_RCODE_NXDOMAIN),
		  .ns_owner = "test." },
	};
	static const char *const none[] = { NULL };
	struct local_zones *lz = build(none);
	struct local_zones *lz2 = build(main_cfg);
	ldns_pkt *p;
	char name[64];
	int i;
	/* the defaults alone */
	CHECK_QS(lz, qs);
	/* the private reverse zones of 172.16.0.0/12 */
	for(i = 16; i <= 31; i++) {
		snprintf(name, sizeof(name), "1.2.%d.172.in-addr.arpa.", i);
		p = ask(lz, name, LDNS_RR_TYPE_PTR, Q_RD);
		ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
		ldns_pkt_free(p);
	}
	ck_assert_uint_gt(local_zones_count(lz), 100);
	/* beside main_cfg */
	CHECK_QS(lz2, qs2);
	ck_assert_int_eq(local_zones_lookup(lz2, (const uint8_t *)
		"\003foo\005onion", LDNS_RR_TYPE_A, 1, NULL),
		LOCAL_ZONE_TRANSPARENT); /* the implicit root zone */
	local_zones_delete(lz);
	local_zones_delete(lz2);
}
END_TEST

START_TEST(test_nodefault_all)
{
	/* every default switched off by name, one replaced by a type */
	static const char *const cfg[] = {
		"zone localhost. nodefault",
		"zone 127.in-addr.arpa. nodefault",
		"zone test. transparent",
		NULL
	};
	static const struct lzq qs[] = {
		{ "localhost.", .not_local = 1 },
		{ "1.0.0.127.in-addr.arpa.", LDNS_RR_TYPE_PTR, .not_local = 1 },
		{ "foo.test.", .not_local = 1 },
		{ "foo.invalid.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
	};
	static const struct lzq qs2[] = {
		{ "5.10.in-addr.arpa.", LDNS_RR_TYPE_PTR, .not_local = 1 },
		{ "localhost.", .rdata = "127.0.0.1" },
	};
	struct local_zones *lz = build(cfg);
	struct local_zones *lz2 = local_zones_create();
	char err[256];
	CHECK_QS(lz, qs);
	local_zones_delete(lz);
	/* unblock-lan-zones leaves the AS112 zones out, not localhost */
	ck_assert_ptr_nonnull(lz2);
	local_zones_set_unblock_lan(lz2, 1);
	ck_assert_int_eq(local_zones_finish(lz2, err, sizeof(err)), 0);
	CHECK_QS(lz2, qs2);
	local_zones_delete(lz2);
}
END_TEST

START_TEST(test_longest_match)
{
	static const struct lzq qs[] = {
		/* example. static, sub.example. transparent */
		{ "deep.sub.example.", .rdata = "192.0.2.30" },
		{ "other.sub.example.", .not_local = 1 },
		{ "other.example.", .rcode = N(LDNS_RCODE_NXDOMAIN),
		  .ns_owner = "example.", .ns_ttl = N(500) },
		/* a name that only shares a suffix string, not labels */
		{ "xsub.example.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
	};
	struct local_zones *lz = build(main_cfg);
	uint8_t zn[DNS_MAX_NAME];
	CHECK_QS(lz, qs);
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\001a\001b\003sub\007example", LDNS_RR_TYPE_A, 1, zn),
		LOCAL_ZONE_TRANSPARENT);
	ck_assert(dname_equal(zn, (const uint8_t *)"\003sub\007example"));
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\001a\007EXAMPLE", LDNS_RR_TYPE_A, 1, zn), LOCAL_ZONE_STATIC);
	ck_assert(dname_equal(zn, (const uint8_t *)"\007example"));
	/* the rd.example names sit beside static.test, no confusion */
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\002rd\007example", LDNS_RR_TYPE_A, 1, zn),
		LOCAL_ZONE_REDIRECT);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_ds)
{
	static const struct lzq qs[] = {
		/* DS at a zone apex is looked up in the parent zone
		 * (test.) */
		{ "static.test.", LDNS_RR_TYPE_DS,
		  .rcode = N(LDNS_RCODE_NXDOMAIN), .ns_owner = "test." },
		/* DS below the apex stays in the zone */
		{ "www.static.test.", LDNS_RR_TYPE_DS,
		  .rcode = N(LDNS_RCODE_NOERROR), .ns_owner = "static.test." },
		/* DS for a top-level redirect zone: no zone above: not
		 * local */
		{ "localhost.", LDNS_RR_TYPE_DS, .not_local = 1 },
	};
	struct local_zones *lz = build(main_cfg);
	CHECK_QS(lz, qs);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_chaos)
{
#define CH_TXT LDNS_RR_TYPE_TXT, LDNS_RR_CLASS_CH
#define ID_ANSWER .rcode = N(LDNS_RCODE_NOERROR), .aa = -1, .rd = 1, \
	.an = N(1), .rdata = "\"test-identity\"", .an_ttl = N(0)
	static const struct lzq qs[] = {
		{ "id.server.", CH_TXT, ID_ANSWER },
		{ "hostname.bind.", CH_TXT, ID_ANSWER },
		{ "ID.Server.", CH_TXT, ID_ANSWER },
		{ "version.server.", CH_TXT, .no_rd = 1,
		  .rdata = "\"test-version\"" },
		{ "version.bind.", CH_TXT, .no_rd = 1,
		  .rdata = "\"test-version\"" },
		/* ANY is answered with the TXT; other types and classes
		 * are not */
		{ "version.bind.", LDNS_RR_TYPE_ANY, LDNS_RR_CLASS_CH,
		  .an = N(1) },
		{ "version.bind.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_CH,
		  .not_local = 1 },
		{ "version.bind.", LDNS_RR_TYPE_TXT, .not_local = 1 },
		{ "other.bind.", CH_TXT, .not_local = 1 },
		{ "x.version.bind.", CH_TXT, .not_local = 1 },
	};
	static const struct lzq hide_id[] = {
		{ "id.server.", CH_TXT, .not_local = 1 },
		{ "hostname.bind.", CH_TXT, .not_local = 1 },
		{ "version.bind.", CH_TXT, .an = N(1) },
	};
	static const struct lzq hide_version[] = {
		{ "version.server.", CH_TXT, .not_local = 1 },
		{ "version.bind.", CH_TXT, .not_local = 1 },
		{ "id.server.", CH_TXT, .an = N(1) },
	};
#undef ID_ANSWER
#undef CH_TXT
	static const char *const none[] = { NULL };
	struct local_zones *lz = local_zones_create();
	struct local_zones *lz2;
	char err[256], host[256], want[300];
	ldns_pkt *p;
	ck_assert_int_eq(local_zones_set_chaos(lz, 0, 0, "test-identity",
		"test-version"), 0);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	CHECK_QS(lz, qs);
	local_zones_delete(lz);

	/* defaults: the host name and "petrel VERSION" */
	lz = build(none);
	ck_assert_int_eq(gethostname(host, sizeof(host)), 0);
	host[sizeof(host) - 1] = 0;
	ck_assert_int_eq(ask_lz(lz, "id.server.", LDNS_RR_TYPE_TXT,
		LDNS_RR_CLASS_CH, Q_RD, NULL), LOCAL_ZONE_ANSWERED);
	p = reply();
	snprintf(want, sizeof(want), "\"%s\"", host);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), want);
	ldns_pkt_free(p);
	ck_assert_int_eq(ask_lz(lz, "version.server.", LDNS_RR_TYPE_TXT,
		LDNS_RR_CLASS_CH, Q_RD, NULL), LOCAL_ZONE_ANSWERED);
	p = reply();
	snprintf(want, sizeof(want), "\"petrel %s\"", PACKAGE_VERSION);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), want);
	ldns_pkt_free(p);
	local_zones_delete(lz);

	/* hide-identity / hide-version: not answered, and REFUSED by the
	 * front end */
	lz2 = local_zones_create();
	ck_assert_int_eq(local_zones_set_chaos(lz2, 1, 0, NULL, NULL), 0);
	ck_assert_int_eq(local_zones_finish(lz2, err, sizeof(err)), 0);
	CHECK_QS(lz2, hide_id);
	mkquery("id.server.", LDNS_RR_TYPE_TXT, LDNS_RR_CLASS_CH, Q_RD);
	ck_assert_int_eq(local_front_answer(NULL, lz2, query, query_len, &fq,
		addr("127.0.0.1"), 0, answer, sizeof(answer), &answer_len,
		NULL), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert_int_eq(ldns_pkt_ancount(p), 0);
	ldns_pkt_free(p);
	local_zones_delete(lz2);
	lz2 = local_zones_create();
	ck_assert_int_eq(local_zones_set_chaos(lz2, 0, 1, NULL, NULL), 0);
	ck_assert_int_eq(local_zones_finish(lz2, err, sizeof(err)), 0);
	CHECK_QS(lz2, hide_version);
	local_zones_delete(lz2);
}
END_TEST

START_TEST(test_edns_and_truncation)
{
	static const char *const base[] = { NULL };
	struct local_zones *lz = local_zones_create();
	char err[256], rr[128];
	ldns_pkt *p;
	int i;
	ck_assert_ptr_nonnull(lz);
	ck_assert_int_eq(local_zones_add_zone(lz, "big.example", "static",
		err, sizeof(err)), 0);
	for(i = 0; i < 60; i++) {
		snprintf(rr, sizeof(rr), "big.example. A 10.0.%d.%d", i / 250,
			i % 250);
		ck_assert_int_eq(local_zones_add_data(lz, rr, err,
			sizeof(err)), 0);
	}
	ck_assert_int_eq(local_zones_add_data(lz, "small.big.example. A "
		"10.9.9.9", err, sizeof(err)), 0);
	local_zones_set_edns(lz, 1400, 1232);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	(void)base;
	/* no EDNS in, no OPT out */
	p = ask(lz, "small.big.example.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert_int_eq(ldns_pkt_arcount(p), 0);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 0);
	ldns_pkt_free(p);
	/* EDNS in: OPT with our size, DO echoed */
	p = ask(lz, "small.big.example.", LDNS_RR_TYPE_A, Q_RD | Q_EDNS);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 1400);
	ck_assert(!ldns_pkt_edns_do(p));
	ldns_pkt_free(p);
	p = ask(lz, "small.big.example.", LDNS_RR_TYPE_A, Q_RD | Q_DO);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 1400);
	ck_assert(ldns_pkt_edns_do(p));
	ldns_pkt_free(p);
	/* NXDOMAIN keeps the OPT too */
	p = ask(lz, "nx.big.example.", LDNS_RR_TYPE_A, Q_RD | Q_EDNS);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 1400);
	ldns_pkt_free(p);
	/* 60 A records (16 bytes each) do not fit in 512: TC, no answers */
	p = ask(lz, "big.example.", LDNS_RR_TYPE_A, Q_RD);
	ck_assert(ldns_pkt_tc(p));
	ck_assert_int_eq(ldns_pkt_ancount(p), 0);
	ck_assert_uint_le(answer_len, 512);
	ldns_pkt_free(p);
	/* with EDNS 4096 (capped at max-udp 1232) they fit */
	p = ask(lz, "big.example.", LDNS_RR_TYPE_A, Q_RD | Q_EDNS);
	ck_assert(!ldns_pkt_tc(p));
	ck_assert_int_eq(ldns_pkt_ancount(p), 60);
	ck_assert_uint_le(answer_len, 1232);
	ldns_pkt_free(p);
	/* over TCP everything fits without EDNS */
	mkquery("big.example.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(local_zones_answer(lz, query, query_len, &fq, NULL, 1,
		answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_ANSWERED);
	p = reply();
	ck_assert(!ldns_pkt_tc(p));
	ck_assert_int_eq(ldns_pkt_ancount(p), 60);
	ldns_pkt_free(p);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_front)
{
	struct local_zones *lz = build(main_cfg);
	struct acl_list *acl = acl_create();
	struct local_front_info info;
	char err[256];
	ldns_pkt *p;
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", "deny", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.1.0.0/16", "refuse", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.2.0.0/16", "allow", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.3.0.0/16", "allow_snoop", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.4.0.0/16", "allow_setrd", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.5.0.0/16", "deny_non_local", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "fd00::/8", "refuse_non_local", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);

#define FRONT(a) local_front_answer(acl, lz, query, query_len, &fq, \
	addr(a), 0, answer, sizeof(answer), &answer_len, &info)
	/* deny drops everything, even local data and CHAOS */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.9.9.9"), LOCAL_FRONT_DROP);
	ck_assert_int_eq(info.action, ACL_DENY);
	/* refuse: REFUSED, no RA, RD echoed, EDE 18 when EDNS */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN,
		Q_RD | Q_EDNS);
	ck_assert_int_eq(FRONT("10.1.2.3"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert(!ldns_pkt_ra(p));
	ck_assert(ldns_pkt_rd(p));
	ck_assert(!ldns_pkt_aa(p));
	ck_assert_int_eq(ede_code(p), 18);
	ldns_pkt_free(p);
	/* ... and a bare header when the query had no OPT (no question,
	 * as Unbound) */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.1.2.3"), LOCAL_FRONT_ANSWERED);
	ck_assert_uint_eq(answer_len, 12);
	ck_assert_int_eq(ldns_wire2pkt(&p, answer, answer_len),
		LDNS_STATUS_OK);
	ck_assert_int_eq(ldns_pkt_id(p), 0x4242);
	ck_assert(ldns_pkt_qr(p));
	ck_assert(ldns_pkt_rd(p));
	ck_assert(!ldns_pkt_ra(p));
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert_int_eq(ldns_pkt_qdcount(p), 0);
	ck_assert_int_eq(ldns_pkt_arcount(p), 0);
	ldns_pkt_free(p);
	/* the default: outsiders refused, localhost allowed */
	ck_assert_int_eq(FRONT("192.0.2.1"), LOCAL_FRONT_ANSWERED);
	ck_assert_int_eq(info.action, ACL_REFUSE);
	ck_assert_int_eq(FRONT("127.0.0.1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert(ldns_pkt_aa(p));
	ldns_pkt_free(p);
	/* allow: RD queries go on, local data answered */
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_CONTINUE);
	ck_assert_int_eq(info.set_rd, 0);
	ck_assert_int_eq(FRONT("::1"), LOCAL_FRONT_CONTINUE);
	/* allow, no RD: local data yes, the rest REFUSED with RA, EDE 20 */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_EDNS);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	ldns_pkt_free(p);
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_EDNS);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert(ldns_pkt_ra(p));
	ck_assert(!ldns_pkt_rd(p));
	ck_assert_int_eq(ede_code(p), 20);
	ldns_pkt_free(p);
	/* allow_snoop: no RD goes on; allow_setrd: goes on as RD */
	ck_assert_int_eq(FRONT("10.3.0.1"), LOCAL_FRONT_CONTINUE);
	ck_assert_int_eq(info.set_rd, 0);
	ck_assert_int_eq(FRONT("10.4.0.1"), LOCAL_FRONT_CONTINUE);
	ck_assert_int_eq(info.set_rd, 1);
	ck_assert_int_eq(info.action, ACL_ALLOW_SETRD);
	/* deny_non_local: local data answered, the rest dropped */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.5.0.1"), LOCAL_FRONT_ANSWERED);
	mkquery("nx.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.5.0.1"), LOCAL_FRONT_ANSWERED);
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.5.0.1"), LOCAL_FRONT_DROP);
	mkquery("nx.tr.example.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.5.0.1"), LOCAL_FRONT_DROP);
	/* refuse_non_local (v6) */
	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("fd12::1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ldns_pkt_free(p);
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN,
		Q_RD | Q_EDNS);
	ck_assert_int_eq(FRONT("fd12::1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert_int_eq(ede_code(p), 18);
	ldns_pkt_free(p);
	/* a zone drop stays a drop for allowed clients */
	mkquery("x.den.example.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_DROP);
	/* classes other than IN and ANY: REFUSED when not local */
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_CH, Q_RD);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_REFUSED);
	ck_assert(ldns_pkt_ra(p));
	ldns_pkt_free(p);
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_ANY, Q_RD);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_CONTINUE);
	/* the alias comes back through the front end */
	mkquery("x.rdc.example.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(FRONT("10.2.0.1"), LOCAL_FRONT_ANSWERED);
	ck_assert_int_eq(info.alias.present, 1);
	/* no acl and no zones: the defaults */
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, Q_RD);
	ck_assert_int_eq(local_front_answer(NULL, NULL, query, query_len, &fq,
		addr("127.0.0.2"), 0, answer, sizeof(answer), &answer_len,
		NULL), LOCAL_FRONT_CONTINUE);
	ck_assert_int_eq(local_front_answer(NULL, NULL, query, query_len, &fq,
		addr("10.0.0.2"), 0, answer, sizeof(answer), &answer_len,
		NULL), LOCAL_FRONT_ANSWERED);
#undef FRONT
	acl_delete(acl);
	local_zones_delete(lz);
}
END_TEST

START_TEST(test_build_errors)
{
	struct local_zones *lz = local_zones_create();
	char err[256];
	ck_assert_ptr_nonnull(lz);
	err[0] = 0;
	ck_assert_int_eq(local_zones_add_zone(lz, "example.com", "bogus", err,
		sizeof(err)), -1);
	ck_assert(strstr(err, "bogus") != NULL);
	ck_assert_int_eq(local_zones_add_zone(lz, "a..b", "static", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_zone(lz, NULL, "static", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_zone(lz, "example.com", NULL, err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data(lz, "www.example.com. A "
		"not-an-address", err, sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data(lz, "", err, sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data(lz, NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data(lz, "x. BOGUSTYPE 1", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data_ptr(lz, "1.2.3 name", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data_ptr(lz, "1.2.3.4", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data_ptr(lz, "1.2.3.4 x1 name", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data_ptr(lz, NULL, err, sizeof(err)),
		-1);
	/* NULL err is fine */
	ck_assert_int_eq(local_zones_add_zone(lz, "x", "bogus", NULL, 0), -1);
	/* a CNAME next to other data in a redirect zone is an error */
	ck_assert_int_eq(local_zones_add_zone(lz, "r.example", "redirect", err,
		sizeof(err)), 0);
	ck_assert_int_eq(local_zones_add_data(lz, "r.example. CNAME x.", err,
		sizeof(err)), 0);
	ck_assert_int_eq(local_zones_add_data(lz, "r.example. A 1.2.3.4", err,
		sizeof(err)), 0);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), -1);
	ck_assert(strstr(err, "CNAME") != NULL);
	local_zones_delete(lz);
	/* after finish nothing can be added */
	lz = local_zones_create();
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	ck_assert_int_eq(local_zones_add_zone(lz, "a.", "static", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_add_data(lz, "a. A 1.2.3.4", err,
		sizeof(err)), -1);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), -1);
	local_zones_delete(lz);
	local_zones_delete(NULL);
	/* a duplicate zone: the later type wins (Unbound) */
	lz = local_zones_create();
	ck_assert_int_eq(local_zones_add_zone(lz, "dup.example", "static", err,
		sizeof(err)), 0);
	ck_assert_int_eq(local_zones_add_zone(lz, "DUP.example.", "refuse", err,
		sizeof(err)), 0);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\001x\003dup\007example", 1, 1, NULL), LOCAL_ZONE_REFUSE);
	local_zones_delete(lz);
	ck_assert_int_eq(local_zone_type_from_str("always_nxdomain"),
		LOCAL_ZONE_ALWAYS_NXDOMAIN);
	ck_assert_int_eq(local_zone_type_from_str("unset"), LOCAL_ZONE_UNSET);
	ck_assert_str_eq(local_zone_type_str(LOCAL_ZONE_TYPETRANSPARENT),
		"typetransparent");
	ck_assert_str_eq(local_zone_type_str((enum local_zone_type)99),
		"unknown");
}
END_TEST

/** write a query by hand (for names ldns will not make) */
static void
rawquery(const uint8_t *name, size_t namelen, uint16_t qtype)
{
	query_len = 0;
	memset(query, 0, 12);
	query[0] = 0x42;
	query[1] = 0x42;
	query[2] = 0x01; /* RD */
	query[5] = 1;
	memcpy(query + 12, name, namelen);
	query_len = 12 + namelen;
	query[query_len++] = (uint8_t)(qtype >> 8);
	query[query_len++] = (uint8_t)qtype;
	query[query_len++] = 0;
	query[query_len++] = 1;
	ck_assert_int_eq(dns_query_parse_fast(query, query_len, &fq), 0);
}

START_TEST(test_odd_inputs)
{
	static const char *const cfg[] = {
		"zone . static",
		"data . SOA a. b. 1 2 3 4 5",
		"zone long.example. redirect",
		"data long.example. A 192.0.2.1",
		"data *.wild.example. A 192.0.2.2",
		NULL
	};
	static const struct lzq qs[] = {
		/* a root zone covers everything else */
		{ ".", LDNS_RR_TYPE_SOA, .an = N(1) },
		{ ".", .rcode = N(LDNS_RCODE_NOERROR), .ns = N(1) },
		{ "www.example.com.", .rcode = N(LDNS_RCODE_NXDOMAIN),
		  .ns_owner = "." },
		/* DS for the root: no zone above, the root zone itself */
		{ ".", LDNS_RR_TYPE_DS, .rcode = N(LDNS_RCODE_NOERROR) },
		/* a wildcard owner is literal: no wildcard expansion */
		{ "x.wild.example.", .rcode = N(LDNS_RCODE_NXDOMAIN) },
		{ "*.wild.example.", .an = N(1) },
	};
	struct local_zones *lz = build(cfg);
	struct local_zones *empty = local_zones_create();
	uint8_t name[DNS_MAX_NAME];
	size_t n = 0;
	ldns_pkt *p;
	int i;
	CHECK_QS(lz, qs);
	/* the longest possible name: 127 one-letter labels under... no:
	 * 63-octet labels ending in long.example. */
	for(i = 0; i < 3; i++) {
		name[n++] = 63;
		memset(name + n, 'a' + i, 63);
		n += 63;
	}
	name[n++] = 48;
	memset(name + n, 'Q', 48);
	n += 48;
	memcpy(name + n, "\004long\007example", 14); /* with the root */
	n += 14;
	ck_assert_uint_eq(n, 255);
	ck_assert_uint_eq(dname_valid(name, n), 255);
	rawquery(name, n, DNS_TYPE_A);
	ck_assert_int_eq(local_zones_answer(lz, query, query_len, &fq, NULL, 0,
		answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_ancount(p), 1);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "192.0.2.1");
	ldns_pkt_free(p);
	/* 127 one-octet labels */
	n = 0;
	for(i = 0; i < 127; i++) {
		name[n++] = 1;
		name[n++] = (uint8_t)('0' + i % 10);
	}
	name[n++] = 0;
	rawquery(name, n, DNS_TYPE_AAAA);
	ck_assert_int_eq(local_zones_answer(lz, query, query_len, &fq, NULL, 0,
		answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_ANSWERED);
	p = reply();
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	ldns_pkt_free(p);
	ck_assert_int_eq(local_zones_answer(empty, query, query_len, &fq, NULL,
		0, answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_NOT_LOCAL); /* not finished */
	/* bad arguments */
	ck_assert_int_eq(local_zones_answer(NULL, query, query_len, &fq, NULL,
		0, answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(local_zones_answer(lz, query, 5, &fq, NULL, 0,
		answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(local_zones_answer(lz, query, query_len, &fq, NULL, 0,
		answer, 100, &answer_len, NULL), LOCAL_ZONE_NOT_LOCAL);
	/* not a QUERY opcode */
	query[2] |= (uint8_t)(DNS_OPCODE_NOTIFY << 3);
	ck_assert_int_eq(dns_query_parse_fast(query, query_len, &fq), 0);
	ck_assert_int_eq(local_zones_answer(lz, query, query_len, &fq, NULL, 0,
		answer, sizeof(answer), &answer_len, NULL),
		LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(local_zones_lookup(lz, NULL, 1, 1, NULL),
		LOCAL_ZONE_UNSET);
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)"\300\014",
		1, 1, NULL), LOCAL_ZONE_UNSET);
	ck_assert_int_eq(local_zones_lookup(NULL, (const uint8_t *)"", 1, 1,
		NULL), LOCAL_ZONE_UNSET);
	ck_assert_uint_eq(local_zones_count(NULL), 0);
	local_zones_delete(empty);
	local_zones_delete(lz);
}
END_TEST

/** a whole config through local_zones_apply_cfg and acl_apply_cfg */
START_TEST(test_apply_cfg)
{
	static const char text[] =
		"server:\n"
		"\tlocal-zone: \"cfg.example.\" static\n"
		"\tlocal-data: \"www.cfg.example. 60 IN A 192.0.2.60\"\n"
		"\tlocal-data: 'txt.cfg.example. TXT \"hello world\"'\n"
		"\tlocal-data-ptr: \"192.0.2.60 www.cfg.example.\"\n"
		"\tlocal-zone: \"localhost.\" nodefault\n"
		"\thide-version: yes\n"
		"\tidentity: \"cfg-id\"\n"
		"\tedns-buffer-size: 1400\n"
		"\taccess-control: 192.0.2.0/24 allow_snoop\n"
		"\taccess-control: 127.0.0.0/8 refuse\n";
	struct config_file *cfg = config_create();
	struct local_zones *lz = local_zones_create();
	struct acl_list *acl = acl_create();
	char err[512];
	ldns_pkt *p;
	int i;
	ck_assert_ptr_nonnull(cfg);
	ck_assert_msg(config_read_mem(cfg, "test.conf", text, strlen(text),
		err, sizeof(err)) >= 0, "config: %s", err);
	ck_assert_msg(local_zones_apply_cfg(lz, cfg, err, sizeof(err)) == 0,
		"%s", err);
	ck_assert_msg(acl_apply_cfg(acl, cfg, err, sizeof(err)) == 0, "%s",
		err);
	p = ask(lz, "www.cfg.example.", LDNS_RR_TYPE_A, Q_RD | Q_EDNS);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "192.0.2.60");
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 1400);
	ldns_pkt_free(p);
	p = ask(lz, "txt.cfg.example.", LDNS_RR_TYPE_TXT, Q_RD);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0),
		"\"hello world\"");
	ldns_pkt_free(p);
	p = ask(lz, "60.2.0.192.in-addr.arpa.", LDNS_RR_TYPE_PTR, Q_RD);
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0),
		"www.cfg.example.");
	ldns_pkt_free(p);
	ck_assert_int_eq(ask_lz(lz, "localhost.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(ask_lz(lz, "version.bind.", LDNS_RR_TYPE_TXT,
		LDNS_RR_CLASS_CH, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	ck_assert_int_eq(ask_lz(lz, "id.server.", LDNS_RR_TYPE_TXT,
		LDNS_RR_CLASS_CH, Q_RD, NULL), LOCAL_ZONE_ANSWERED);
	p = reply();
	ck_assert_str_eq(rdata_str(p, LDNS_SECTION_ANSWER, 0), "\"cfg-id\"");
	ldns_pkt_free(p);
	ck_assert_int_eq(acl_check(acl, addr("192.0.2.9")), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(acl_check(acl, addr("127.0.0.1")), ACL_REFUSE);
	ck_assert_int_eq(acl_check(acl, addr("::1")), ACL_ALLOW);
	/* every local-zone type word the config accepts is known here */
	for(i = 0; config_localzone_types[i]; i++)
		ck_assert_msg(local_zone_type_from_str(config_localzone_types[i])
			!= LOCAL_ZONE_UNSET, "type %s",
			config_localzone_types[i]);
	acl_delete(acl);
	local_zones_delete(lz);
	config_delete(cfg);
}
END_TEST

/** counts for the walk test */
struct walk_count {
	/** zones seen */
	int zones;
	/** static.test seen as static */
	int static_test;
	/** localhost seen as redirect */
	int localhost;
	/** RRs seen */
	int rrs;
	/** the www.static.test A seen, in its zone */
	int www;
	/** the localhost AAAA seen */
	int aaaa;
};

/** zone walk callback */
static void
walk_zone(void *arg, const uint8_t *name, uint16_t rrclass,
	enum local_zone_type type)
{
	struct walk_count *w = arg;
	w->zones++;
	if(dname_equal(name, (const uint8_t *)"\006static\004test") &&
		rrclass == 1 && type == LOCAL_ZONE_STATIC)
		w->static_test++;
	if(dname_equal(name, (const uint8_t *)"\011localhost") &&
		type == LOCAL_ZONE_REDIRECT)
		w->localhost++;
}

/** data walk callback */
static void
walk_rr(void *arg, const uint8_t *zone, const uint8_t *owner, uint16_t type,
	uint16_t rrclass, uint32_t ttl, const uint8_t *rdata, size_t rdlen)
{
	struct walk_count *w = arg;
	w->rrs++;
	if(dname_equal(owner, (const uint8_t *)"\003www\006static\004test") &&
		dname_equal(zone, (const uint8_t *)"\006static\004test") &&
		type == 1 && rrclass == 1 && ttl == 3600 && rdlen == 4 &&
		memcmp(rdata, "\300\000\002\001", 4) == 0)
		w->www++;
	if(dname_equal(owner, (const uint8_t *)"\011localhost") && type == 28 &&
		ttl == 10800 && rdlen == 16 && rdata[15] == 1)
		w->aaaa++;
}

START_TEST(test_walk)
{
	struct local_zones *lz = build(main_cfg);
	struct walk_count w;
	memset(&w, 0, sizeof(w));
	local_zones_walk(lz, walk_zone, &w);
	ck_assert_int_eq(w.zones, (int)local_zones_count(lz));
	ck_assert_int_eq(w.static_test, 1);
	ck_assert_int_eq(w.localhost, 1);
	local_data_walk(lz, walk_rr, &w);
	ck_assert_int_eq(w.www, 1);
	ck_assert_int_eq(w.aaaa, 1);
	{
		/* every data and ptr line (one is a duplicate) and the
		 * defaults: NS and SOA for 102 zones (onion and
		 * 10.in-addr.arpa are replaced; resolver.arpa and
		 * service.arpa are Unbound 1.22's), localhost A and AAAA,
		 * two loopback PTRs */
		int lines = 0, i;
		for(i = 0; main_cfg[i]; i++)
			if(strncmp(main_cfg[i], "data ", 5) == 0 ||
				strncmp(main_cfg[i], "ptr ", 4) == 0)
				lines++;
		ck_assert_int_eq(w.rrs, lines - 1 + 204 + 2 + 2);
	}
	local_zones_walk(NULL, walk_zone, &w);
	local_data_walk(NULL, walk_rr, &w);
	local_zones_delete(lz);
}
END_TEST

/**
 * Random questions, many of them under configured and default zones,
 * through the whole front end: nothing crashes, and every answer is a
 * well-formed reply to its query that ldns reads.
 */
START_TEST(test_random_queries)
{
	static const char *const suffixes[] = {
		"", "static.test", "test", "tr.example", "rd.example",
		"rdw.example", "rdc.example", "ref.example", "den.example",
		"inf.example", "axn.example", "and.example", "an.example",
		"ba.example", "example", "sub.example", "localhost",
		"10.in-addr.arpa", "in-addr.arpa", "ip6.arpa", "onion",
		"server", "bind", "example2", NULL
	};
	static const uint16_t types[] = { 1, 2, 5, 6, 12, 15, 16, 28, 33, 43,
		255, 65, 0, 65535 };
	static const uint16_t classes[] = { 1, 1, 1, 3, 4, 255, 254, 0 };
	struct local_zones *lz = build(main_cfg);
	struct acl_list *acl = acl_create();
	char err[256];
	int i, nsuf = 0, answered = 0;
	srandom(1234);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", "allow", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.1.0.0/16", "refuse_non_local",
		err, sizeof(err)), 0);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	while(suffixes[nsuf])
		nsuf++;
	for(i = 0; i < 30000; i++) {
		uint8_t name[DNS_MAX_NAME + 64], suf[DNS_MAX_NAME];
		size_t n = 0, sl = sizeof(suf), k;
		int labels = (int)(random() % 5), j, flags;
		uint16_t qt = types[random() % (sizeof(types) / sizeof(types[0]))];
		uint16_t qc = classes[random() % (sizeof(classes) /
			sizeof(classes[0]))];
		enum local_front_result r;
		struct local_front_info info;
		ck_assert_int_eq(dname_from_str(suffixes[random() % nsuf], suf,
			&sl), 0);
		if(random() % 50 == 0)
			labels = 40 + (int)(random() % 90);
		for(j = 0; j < labels; j++) {
			size_t ll = 1 + (size_t)(random() % (random() % 8 ? 8 :
				63));
			if(n + ll + 1 + sl > DNS_MAX_NAME)
				break;
			name[n++] = (uint8_t)ll;
			for(k = 0; k < ll; k++)
				name[n++] = (uint8_t)(random() % 4 ?
					"abcXYZ-*0\\."[random() % 12] :
					random());
		}
		memcpy(name + n, suf, sl);
		n += sl;
		/* header, question, maybe an OPT */
		flags = (int)random();
		memset(query, 0, 12);
		query[0] = 0x42;
		query[1] = 0x42;
		query[2] = (uint8_t)((flags & 1) ? 0x01 : 0) |
			(uint8_t)((flags & 2) ? 0x80 : 0); /* RD, QR */
		query[3] = (uint8_t)((flags & 4) ? 0x10 : 0); /* CD */
		query[5] = 1;
		memcpy(query + 12, name, n);
		query_len = 12 + n;
		query[query_len++] = (uint8_t)(qt >> 8);
		query[query_len++] = (uint8_t)qt;
		query[query_len++] = (uint8_t)(qc >> 8);
		query[query_len++] = (uint8_t)qc;
		if(flags & 8) {
			static const uint8_t opt[] = { 0, 0, 41, 0x10, 0, 0, 0,
				0x80, 0, 0, 0 };
			memcpy(query + query_len, opt, sizeof(opt));
			query[query_len + 3] = (uint8_t)(random() % 2 ? 0x02 :
				0x10); /* 512 or 4096 */
			query_len += sizeof(opt);
			query[11] = 1;
		}
		if(dns_query_parse_fast(query, query_len, &fq) != 0)
			continue;
		answer_len = 0;
		r = local_front_answer(acl, lz, query, query_len, &fq,
			addr((flags & 16) ? "10.1.0.1" : "10.2.0.1"),
			(flags & 32) != 0, answer, (flags & 64) ? 512 :
			sizeof(answer), &answer_len, &info);
		if(r == LOCAL_FRONT_ANSWERED) {
			ldns_pkt *p = NULL;
			answered++;
			ck_assert_uint_ge(answer_len, 12);
			ck_assert_msg(ldns_wire2pkt(&p, answer, answer_len) ==
				LDNS_STATUS_OK, "query %d unreadable answer", i);
			ck_assert_int_eq(ldns_pkt_id(p), 0x4242);
			ck_assert(ldns_pkt_qr(p));
			ck_assert_int_eq(ldns_pkt_rd(p), (flags & 1) != 0);
			if(!(flags & 32))
				ck_assert_uint_le(answer_len, (flags & 8) ?
					1232 : 512);
			if(ldns_pkt_qdcount(p) == 0) {
				/* refused by the ACL (refuse_non_local),
				 * no EDNS: a bare header */
				ck_assert((flags & 16) && !(flags & 8));
				ck_assert_int_eq(ldns_pkt_get_rcode(p),
					LDNS_RCODE_REFUSED);
				ck_assert_uint_eq(answer_len, 12);
				ldns_pkt_free(p);
				continue;
			}
			ck_assert_int_eq(ldns_pkt_qdcount(p), 1);
			ck_assert_int_eq(memcmp(answer + 12, query + 12, n + 4),
				0); /* the question, letter case and all */
			ldns_pkt_free(p);
		} else
			ck_assert_uint_eq(answer_len, 0);
	}
	ck_assert_int_gt(answered, 1000);
	acl_delete(acl);
	local_zones_delete(lz);
}
END_TEST

/** many zones and data: every one is found, nothing else is */
START_TEST(test_many)
{
	struct local_zones *lz = local_zones_create();
	char err[256], nm[128], rr[256];
	uint8_t w[DNS_MAX_NAME], zn[DNS_MAX_NAME];
	size_t wl;
	int i;
	ck_assert_ptr_nonnull(lz);
	for(i = 0; i < 5000; i++) {
		snprintf(nm, sizeof(nm), "z%d.block%d.example.", i, i % 7);
		ck_assert_int_eq(local_zones_add_zone(lz, nm, (i % 2) ?
			"always_nxdomain" : "static", err, sizeof(err)), 0);
		snprintf(rr, sizeof(rr), "www.%s A 10.%d.%d.%d", nm,
			(i >> 16) & 255, (i >> 8) & 255, i & 255);
		ck_assert_int_eq(local_zones_add_data(lz, rr, err,
			sizeof(err)), 0);
	}
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	for(i = 0; i < 5000; i++) {
		snprintf(nm, sizeof(nm), "a.b.z%d.block%d.example.", i, i % 7);
		wl = sizeof(w);
		ck_assert_int_eq(dname_from_str(nm, w, &wl), 0);
		ck_assert_int_eq(local_zones_lookup(lz, w, 1, 1, zn), (i % 2) ?
			LOCAL_ZONE_ALWAYS_NXDOMAIN : LOCAL_ZONE_STATIC);
		ck_assert(dname_equal(zn, dname_strip_label(
			dname_strip_label(w))));
		snprintf(nm, sizeof(nm), "www.z%d.block%d.example.", i, i % 7);
		if(i % 2 == 0) {
			ldns_pkt *p = ask(lz, nm, LDNS_RR_TYPE_A, Q_RD);
			ck_assert_int_eq(ldns_pkt_ancount(p), 1);
			ldns_pkt_free(p);
		}
		snprintf(nm, sizeof(nm), "z%d.block%d.example.", i,
			(i % 7) + 1);
		wl = sizeof(w);
		ck_assert_int_eq(dname_from_str(nm, w, &wl), 0);
		ck_assert_int_eq(local_zones_lookup(lz, w, 1, 1, NULL),
			LOCAL_ZONE_UNSET);
	}
	local_zones_delete(lz);
}
END_TEST

/** CPU nanoseconds of this thread */
static double
cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/**
 * The cost of the front end per query (printed; the bound asserted is
 * loose, it only catches a lookup that went linear): the defaults plus
 * 5000 zones, an allowed client asking for a name outside them (what
 * every cache hit pays), a local answer, and an ACL check alone.
 */
START_TEST(test_speed)
{
	struct local_zones *lz = local_zones_create();
	struct acl_list *acl = acl_create();
	struct local_front_info info;
	const struct netaddr *client;
	char err[256], nm[128];
	double t0, ns_miss, ns_local, ns_acl;
	int i, n = 200000;
	ck_assert_ptr_nonnull(lz);
	for(i = 0; i < 5000; i++) {
		snprintf(nm, sizeof(nm), "z%d.block.example.", i);
		ck_assert_int_eq(local_zones_add_zone(lz, nm, "always_nxdomain",
			err, sizeof(err)), 0);
	}
	ck_assert_int_eq(local_zones_add_zone(lz, "static.test", "static",
		err, sizeof(err)), 0);
	ck_assert_int_eq(local_zones_add_data(lz, "www.static.test. A "
		"192.0.2.1", err, sizeof(err)), 0);
	ck_assert_int_eq(local_zones_finish(lz, err, sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", "allow", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.1.0.0/16", "refuse", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "192.0.2.0/24", "allow", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	client = addr("10.2.3.4@5353");

#ifdef HAVE_MALLINFO2
	{
		/* answering allocates nothing: the heap does not move */
		size_t before;
		struct netaddr refused;
		ck_assert_int_eq(netaddr_parse("10.1.0.1", 53, &refused, NULL),
			0);
		mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN,
			Q_RD | Q_EDNS);
		before = mallinfo2().uordblks;
		for(i = 0; i < 1000; i++) {
			(void)local_front_answer(acl, lz, query, query_len, &fq,
				client, 0, answer, sizeof(answer), &answer_len,
				&info);
			(void)local_front_answer(acl, lz, query, query_len, &fq,
				&refused, 0, answer, sizeof(answer),
				&answer_len, &info);
		}
		ck_assert_uint_eq(mallinfo2().uordblks, before);
	}
#endif
	mkquery("www.example.com.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN,
		Q_RD | Q_EDNS);
	t0 = cpu_ns();
	for(i = 0; i < n; i++)
		if(local_front_answer(acl, lz, query, query_len, &fq, client,
			0, answer, sizeof(answer), &answer_len, &info) !=
			LOCAL_FRONT_CONTINUE)
			ck_abort_msg("not CONTINUE");
	ns_miss = (cpu_ns() - t0) / n;

	mkquery("www.static.test.", LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN,
		Q_RD | Q_EDNS);
	t0 = cpu_ns();
	for(i = 0; i < n; i++)
		if(local_front_answer(acl, lz, query, query_len, &fq, client,
			0, answer, sizeof(answer), &answer_len, &info) !=
			LOCAL_FRONT_ANSWERED)
			ck_abort_msg("not ANSWERED");
	ns_local = (cpu_ns() - t0) / n;

	t0 = cpu_ns();
	for(i = 0; i < n; i++)
		if(acl_check(acl, client) != ACL_ALLOW)
			ck_abort_msg("not ALLOW");
	ns_acl = (cpu_ns() - t0) / n;

	printf("localzone speed: front end, name not local: %.0f ns; "
		"local answer: %.0f ns; acl_check: %.0f ns (%d zones)\n",
		ns_miss, ns_local, ns_acl, (int)local_zones_count(lz));
	ck_assert(ns_miss < 20000);
	ck_assert(ns_local < 50000);
	ck_assert(ns_acl < 20000);
	acl_delete(acl);
	local_zones_delete(lz);
}
END_TEST

/** local-zone-tag: a tagged zone is not there for an untagged client;
 * a bad line names its file and line */
START_TEST(test_zone_tags)
{
	static const char text[] =
		"server:\n"
		"\tdefine-tag: \"a b\"\n"
		"\tlocal-zone: \"tagged.example.\" static\n"
		"\tlocal-zone-tag: \"tagged.example.\" \"b\"\n";
	static const char bad[] =
		"server:\n"
		"\tdefine-tag: \"a\"\n"
		"\tlocal-zone-tag: \"none.example.\" \"a\"\n";
	struct config_file *cfg = config_create();
	struct local_zones *lz = local_zones_create();
	char err[512];
	ck_assert_msg(config_read_mem(cfg, "tag.conf", text, strlen(text),
		err, sizeof(err)) >= 0, "config: %s", err);
	ck_assert_msg(local_zones_apply_cfg(lz, cfg, err, sizeof(err)) == 0,
		"%s", err);
	/* no tags: the zone is not there */
	ck_assert_int_eq(ask_lz(lz, "www.tagged.example.", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, Q_RD, NULL), LOCAL_ZONE_NOT_LOCAL);
	/* (the control tools see it) */
	ck_assert_int_eq(local_zones_lookup(lz, (const uint8_t *)
		"\003www\006tagged\007example", LDNS_RR_TYPE_A,
		LDNS_RR_CLASS_IN, NULL), LOCAL_ZONE_STATIC);
	local_zones_delete(lz);
	config_delete(cfg);
	cfg = config_create();
	lz = local_zones_create();
	ck_assert_msg(config_read_mem(cfg, "tag.conf", bad, strlen(bad),
		err, sizeof(err)) >= 0, "config: %s", err);
	ck_assert_int_eq(local_zones_apply_cfg(lz, cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "tag.conf:3: local-zone-tag: no local-zone "
		"'none.example.' to tag");
	local_zones_delete(lz);
	config_delete(cfg);
}
END_TEST

/** local-zone-override lines that cannot apply are load errors naming
 * their file and line: no such zone, a bad netblock, a bad type */
START_TEST(test_zone_override_errors)
{
	static const char *const bad[][2] = {
		{ "server:\n\tlocal-zone-override: \"none.example.\" "
		  "10.0.0.0/8 refuse\n",
		  "ovr.conf:2: local-zone-override: no local-zone "
		  "'none.example.' to override" },
		{ "server:\n\tlocal-zone: \"z.example.\" static\n"
		  "\tlocal-zone-override: \"z.example.\" 10.0.0.0/88 refuse\n",
		  "ovr.conf:3: local-zone-override: bad netblock "
		  "'10.0.0.0/88': " },
		{ "server:\n\tlocal-zone: \"z.example.\" static\n"
		  "\tlocal-zone-override: \"z.example.\" 10.0.0.0/8 stattic\n",
		  "ovr.conf:3: local-zone-override: bad local-zone type "
		  "'stattic'" },
		{ "server:\n\tlocal-zone: \"z.example.\" static\n"
		  "\tlocal-zone-override: \"z.example.\" 10.0.0.0/8\n",
		  "ovr.conf:3: local-zone-override: expected <zone> <netblock> "
		  "<type>" },
	};
	size_t i;
	for(i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct config_file *cfg = config_create();
		struct local_zones *lz = local_zones_create();
		char err[512];
		ck_assert_msg(config_read_mem(cfg, "ovr.conf", bad[i][0],
			strlen(bad[i][0]), err, sizeof(err)) >= 0, "config: %s",
			err);
		ck_assert_int_eq(local_zones_apply_cfg(lz, cfg, err,
			sizeof(err)), -1);
		ck_assert_msg(strncmp(err, bad[i][1], strlen(bad[i][1])) == 0,
			"got '%s', want '%s'", err, bad[i][1]);
		local_zones_delete(lz);
		config_delete(cfg);
	}
}
END_TEST

static Suite *
localzone_suite(void)
{
	Suite *s = suite_create("localzone");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_static);
	tcase_add_test(tc, test_case_and_class);
	tcase_add_test(tc, test_transparent);
	tcase_add_test(tc, test_redirect);
	tcase_add_test(tc, test_deny_refuse);
	tcase_add_test(tc, test_always);
	tcase_add_test(tc, test_inform);
	tcase_add_test(tc, test_implicit_and_ptr);
	tcase_add_test(tc, test_single_implicit);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_nodefault_all);
	tcase_add_test(tc, test_longest_match);
	tcase_add_test(tc, test_ds);
	tcase_add_test(tc, test_chaos);
	tcase_add_test(tc, test_edns_and_truncation);
	tcase_add_test(tc, test_front);
	tcase_add_test(tc, test_build_errors);
	tcase_add_test(tc, test_odd_inputs);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_apply_cfg);
	tcase_add_test(tc, test_speed);
	tcase_add_test(tc, test_random_queries);
	tcase_add_test(tc, test_walk);
	tcase_add_test(tc, test_zone_tags);
	tcase_add_test(tc, test_zone_override_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(localzone_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
