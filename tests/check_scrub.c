/*
 * tests/check_scrub.c - the iterator's scrubber and reply classification
 * (iterator/iter_scrub.h) on their own: replies are built with ldns from
 * zone-file text (the test's oracle), turned into wire format, parsed by
 * iter_reply_parse as the iterator parses upstream replies, scrubbed and
 * classified, and what is left (and the class) is compared with what the
 * scrubber must keep.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <check.h>
#include "tests/testutil.h"
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iter_scrub.h"
#include "iterator/iter_env.h"
#include "iterator/iterator.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgparse.h"
#include "util/region.h"

/** the region the replies of a test are parsed into */
static struct region *reg;

/** wire name from a string (lower case) */
static void
wire(const char *s, uint8_t *out)
{
	(void)tu_name(s, out);
	dname_tolower(out);
}

/** push the records of a NULL-terminated list of texts into a section */
static void
push(ldns_pkt *p, ldns_pkt_section sec, const char *const *rrs)
{
	for(; rrs && *rrs; rrs++) {
		ldns_rr *rr = NULL;
		ck_assert_int_eq(ldns_rr_new_frm_str(&rr, *rrs, 3600, NULL,
			NULL), LDNS_STATUS_OK);
		ck_assert(ldns_pkt_push_rr(p, sec, rr));
	}
}

/** a reply with rcode, AA and three sections (question www.example.com
 * A), parsed as the iterator parses one */
static struct iter_reply *
reply(int rcode, int aa, const char *const *an, const char *const *ns,
	const char *const *ar)
{
	ldns_pkt *p = NULL;
	uint8_t *wire = NULL;
	size_t len = 0;
	struct iter_reply *rep = region_alloc(reg, sizeof(*rep));
	ck_assert_ptr_nonnull(rep);
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, "www.example.com.",
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, 0), LDNS_STATUS_OK);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, aa);
	ldns_pkt_set_rcode(p, (uint8_t)rcode);
	push(p, LDNS_SECTION_ANSWER, an);
	push(p, LDNS_SECTION_AUTHORITY, ns);
	push(p, LDNS_SECTION_ADDITIONAL, ar);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	ck_assert_int_eq(iter_reply_parse(reg, wire, len, rep), 0);
	/* the records are copies: the packet may go */
	memset(wire, 0, len);
	free(wire);
	return rep;
}

/** the records of a section */
static struct module_rrlist *
sec(struct iter_reply *p, int section)
{
	return &p->sec[section];
}

/** is there a record with this owner and type in the list */
static int
has(struct module_rrlist *l, const char *owner, uint16_t t)
{
	uint8_t o[256];
	struct module_rr *rr;
	size_t len = sizeof(o);
	ck_assert_int_eq(dname_from_str(owner, o, &len), 0);
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == t && dname_equal(rr->owner, o))
			return 1;
	return 0;
}

/** classification result */
struct cl {
	/** the class */
	enum iter_class c;
	/** chain end */
	char end[DNS_MAX_NAME_STR];
	/** chain and answer record counts */
	size_t nchain, nfinal;
	/** referral zone, or "" */
	char refzone[DNS_MAX_NAME_STR];
};

/** classify p for qname/qtype as asked of zone */
static struct cl
classify(struct iter_reply *p, const char *qname, uint16_t qtype,
	const char *zone, int forward)
{
	struct cl r;
	uint8_t name[256], z[256];
	struct module_rrlist chain, final;
	struct module_rr *ns = NULL;
	int links = 0;
	memset(&r, 0, sizeof(r));
	memset(&chain, 0, sizeof(chain));
	memset(&final, 0, sizeof(final));
	wire(qname, name);
	wire(zone, z);
	r.c = iter_classify(reg, p, name, qtype, z, forward, &chain, &final,
		&links, ITER_MAX_CNAME, 0, &ns);
	(void)dname_to_str(name, r.end, sizeof(r.end));
	r.nchain = chain.count;
	r.nfinal = final.count;
	if(ns)
		(void)dname_to_str(ns->owner, r.refzone, sizeof(r.refzone));
	ck_assert((r.c == ITER_CL_REFERRAL) == (ns != NULL));
	return r;
}

/** a count a classification case checks: N(n) is n; 0 is "not checked" */
#define N(n) ((n) + 1)

/** one classification case: a reply (question www.example.com. A unless
 * qname/qtype say otherwise), the zone it was asked of (example.com.
 * unless zone says otherwise) and what iter_classify must make of it */
struct ccase {
	/** what the case shows: printed when it fails */
	const char *what;
	/** the reply: rcode, AA, RA, the records of two sections, and
	 * whether the scrub dropped authority records (ns_dropped) */
	int rcode, aa, ra, ns_dropped;
	const char *const *an, *const *ns;
	/** the question and the zone asked (NULL, 0: the defaults) */
	const char *qname;
	uint16_t qtype;
	const char *zone;
	/** asked of a forwarder */
	int forward;
	/** the class it must get */
	enum iter_class want;
	/** the chain's end and the referral's zone: NULL is not checked */
	const char *end, *refzone;
	/** the chain and answer record counts, N(n); 0 is not checked */
	size_t nchain, nfinal;
};

/** classify every case of the table and check what it says */
static void
check_cases(const struct ccase *c, size_t n)
{
	for(; n > 0; n--, c++) {
		struct iter_reply *p = reply(c->rcode, c->aa, c->an, c->ns,
			NULL);
		struct cl r;
		if(c->ra)
			p->flags |= DNS_FLAG_RA;
		p->ns_dropped = c->ns_dropped;
		r = classify(p, c->qname ? c->qname : "www.example.com.",
			c->qtype ? c->qtype : DNS_TYPE_A,
			c->zone ? c->zone : "example.com.", c->forward);
		ck_assert_msg(r.c == c->want, "%s: class %d, want %d",
			c->what, (int)r.c, (int)c->want);
		ck_assert_msg(!c->end || strcmp(r.end, c->end) == 0,
			"%s: chain end %s, want %s", c->what, r.end, c->end);
		ck_assert_msg(!c->refzone || strcmp(r.refzone, c->refzone) == 0,
			"%s: referral to %s, want %s", c->what, r.refzone,
			c->refzone);
		ck_assert_msg(!c->nchain || r.nchain == c->nchain - 1,
			"%s: %zu chain records, want %zu", c->what, r.nchain,
			c->nchain - 1);
		ck_assert_msg(!c->nfinal || r.nfinal == c->nfinal - 1,
			"%s: %zu answer records, want %zu", c->what, r.nfinal,
			c->nfinal - 1);
	}
}

/** iter-scrub-promiscuous: the NS set (and its RRSIG) goes from the
 * authority section of answers and errors; a referral, a NODATA and a
 * forwarder's reply keep theirs; with the option off, every reply does */
START_TEST(test_promiscuous)
{
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1", NULL };
	static const char *const ns[] = {
		"example.com. NS ns.evil.example.com.",
		"example.com. RRSIG NS 8 2 3600 20300101000000 20200101000000 "
		"1 example.com. AAAA",
		"example.com. SOA ns.example.com. h.example.com. 1 2 3 4 5",
		NULL };
	static const char *const ar[] = {
		"ns.evil.example.com. A 192.0.2.66", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	struct iter_reply *p;
	ck_assert_int_eq(env->scrub_promiscuous, 1);
	wire("example.com.", zone);
	/* an answer: the NS set and its signature go, the SOA stays */
	p = reply(0, 1, an, ns, ar);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_AUTHORITY), "example.com.",
		DNS_TYPE_SOA));
	/* NXDOMAIN, SERVFAIL: the same */
	p = reply(3, 1, NULL, ns, ar);
	ck_assert_int_eq(iter_scrub_promiscuous(p), 2);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 1);
	p = reply(2, 1, NULL, ns, ar);
	ck_assert_int_eq(iter_scrub_promiscuous(p), 2);
	/* NOERROR without an answer (a referral or NODATA): kept */
	p = reply(0, 0, NULL, ns, ar);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 3);
	/* a forwarder's reply: kept */
	p = reply(0, 0, an, ns, ar);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 3);
	/* iter-scrub-promiscuous: no */
	env->scrub_promiscuous = 0;
	p = reply(0, 1, an, ns, ar);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 3);
	iter_env_delete(env);
}
END_TEST

/** records of another class than the question's are scrubbed from every
 * section: a referral's CH NS set and CH glue are no servers for an IN
 * question (Unbound's iter_class_mixreferral.rpl) */
START_TEST(test_scrub_class)
{
	static const char *const ns[] = {
		"example.com. CH NS ch.example.com.",
		"example.com. IN NS ns.example.com.", NULL };
	static const char *const ar[] = {
		"ch.example.com. CH A 1.2.3.5",
		"ns.example.com. IN A 1.2.3.4", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	struct iter_reply *p = reply(0, 0, NULL, ns, ar);
	wire("com.", zone);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 1);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->first->rrclass,
		DNS_CLASS_IN);
	ck_assert_uint_eq(sec(p, DNS_SEC_ADDITIONAL)->count, 1);
	ck_assert_uint_eq(sec(p, DNS_SEC_ADDITIONAL)->first->rrclass,
		DNS_CLASS_IN);
	/* a forwarder's reply too */
	p = reply(0, 0, NULL, ns, ar);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 1);
	ck_assert_uint_eq(sec(p, DNS_SEC_ADDITIONAL)->count, 1);
	iter_env_delete(env);
}
END_TEST

/** at most 8 RRSIGs of one owner and covered type stay, the first ones
 * (Unbound's fwd_scrub_rrsig.rpl); other sets keep theirs */
START_TEST(test_scrub_sig_count)
{
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . MQ==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . Mg==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . Mw==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . NA==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . NQ==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . Ng==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . Nw==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . OA==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . OQ==",
		"www.example.com. RRSIG A 8 3 300 20330518033320 20010909014640 12345 . MTA=",
		"www.example.com. RRSIG TXT 8 3 300 20330518033320 20010909014640 12345 . MQ==",
		NULL };
	struct iter_env *env = iter_env_create_default();
	struct iter_reply *p = reply(0, 1, an, NULL, NULL);
	struct module_rr *rr;
	int n = 0, txt = 0;
	iter_scrub_reply(p, NULL, env);
	for(rr = sec(p, DNS_SEC_ANSWER)->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_RRSIG && dns_read_u16(rr->rdata) ==
			DNS_TYPE_A) {
			n++;
			/* the first eight: the signatures of the ninth
			 * and tenth are "9" and "10" */
			ck_assert(rr->rdata[rr->rdlen - 1] != '9');
			ck_assert(rr->rdata[rr->rdlen - 1] != '0');
		}
		if(rr->type == DNS_TYPE_RRSIG && dns_read_u16(rr->rdata) ==
			DNS_TYPE_TXT)
			txt++;
	}
	ck_assert_int_eq(n, 8);
	ck_assert_int_eq(txt, 1);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "www.example.com.",
		DNS_TYPE_A));
	iter_env_delete(env);
}
END_TEST

/** iter-scrub-ns: the first max NS records of each owner stay, in both
 * the answer and the authority section; other types are untouched */
/** the type an RRSIG record covers, 0 for other records */
static uint16_t
covered(const struct module_rr *rr)
{
	if(rr->type != DNS_TYPE_RRSIG || rr->rdlen < 2)
		return 0;
	return (uint16_t)((rr->rdata[0] << 8) | rr->rdata[1]);
}

START_TEST(test_sig_sections)
{
	/* the RRSIGs of the answer and of the glue swapped, as a server
	 * may send them (Unbound's parser joins them to their RRsets) */
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1",
		"ns.example.com. RRSIG A 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA",
		NULL };
	static const char *const an3[] = {
		"www.example.com. A 192.0.2.1",
		"www.example.com. RRSIG TXT 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA",
		NULL };
	static const char *const ns[] = {
		"example.com. NS ns.example.com.", NULL };
	static const char *const an2[] = {
		"www.example.com. A 192.0.2.1",
		"www.example.com. RRSIG A 13 3 3600 20300101000000 "
		"20200101000000 2 example.com. DDDD",
		NULL };
	static const char *const ar[] = {
		"ns.example.com. A 192.0.2.53",
		"www.example.com. RRSIG A 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. BBBB",
		"gone.example.com. RRSIG A 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. CCCC",
		NULL };
	struct iter_env *env = iter_env_create_default();
	struct module_rrlist *l;
	uint8_t zone[256], www[256], nsn[256];
	struct iter_reply *p;
	wire("example.com.", zone);
	wire("www.example.com.", www);
	wire("ns.example.com.", nsn);
	p = reply(0, 1, an, ns, ar);
	iter_scrub_reply(p, zone, env);
	/* the answer: www A and its RRSIG, in that order */
	l = sec(p, DNS_SEC_ANSWER);
	ck_assert_uint_eq(l->count, 2);
	ck_assert_int_eq(l->first->type, DNS_TYPE_A);
	ck_assert(dname_equal(l->first->owner, www));
	ck_assert_ptr_eq(l->first->next, l->last);
	ck_assert_int_eq(covered(l->last), DNS_TYPE_A);
	ck_assert(dname_equal(l->last->owner, www));
	ck_assert_ptr_null(l->last->next);
	/* the additional: ns A, its RRSIG after it; an RRSIG of no RRset
	 * in the message stays where it was */
	l = sec(p, DNS_SEC_ADDITIONAL);
	ck_assert_uint_eq(l->count, 3);
	ck_assert_int_eq(l->first->type, DNS_TYPE_A);
	ck_assert_int_eq(covered(l->first->next), DNS_TYPE_A);
	ck_assert(dname_equal(l->first->next->owner, nsn));
	ck_assert(has(l, "gone.example.com.", DNS_TYPE_RRSIG));
	ck_assert_ptr_null(l->last->next);
	/* a second RRSIG from a later section goes after the RRset's own
	 * (packet order, as Unbound keeps it) */
	p = reply(0, 1, an2, ns, ar);
	iter_scrub_reply(p, zone, env);
	l = sec(p, DNS_SEC_ANSWER);
	ck_assert_uint_eq(l->count, 3);
	ck_assert_int_eq(l->first->type, DNS_TYPE_A);
	ck_assert_int_eq(covered(l->first->next), DNS_TYPE_A);
	ck_assert_int_eq(l->first->next->rdata[2], 13); /* its own (alg 13) */
	ck_assert_int_eq(l->last->rdata[2], 8); /* the moved one (alg 8) */
	ck_assert(dname_equal(l->last->owner, www));
	/* an RRSIG whose RRset is nowhere in the message stays */
	p = reply(0, 1, an3, ns, NULL);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 2);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_scrub_ns)
{
	static const char *const ns[] = {
		"example.com. NS a.example.com.",
		"example.com. NS b.example.com.",
		"example.com. SOA ns.example.com. h.example.com. 1 2 3 4 5",
		"sub.example.com. NS a.example.com.",
		"example.com. NS c.example.com.",
		"sub.example.com. NS b.example.com.",
		"sub.example.com. NS c.example.com.", NULL };
	struct iter_reply *p = reply(0, 0, NULL, ns, NULL);
	struct module_rrlist *a = sec(p, DNS_SEC_AUTHORITY);
	ck_assert_int_eq(iter_scrub_ns(a, 5), 0);
	ck_assert_uint_eq(a->count, 7);
	ck_assert_int_eq(iter_scrub_ns(a, 2), 2);
	ck_assert_uint_eq(a->count, 5);
	ck_assert(has(a, "example.com.", DNS_TYPE_SOA));
	ck_assert_int_eq(iter_scrub_ns(a, 1), 2);
	ck_assert_uint_eq(a->count, 3);
	ck_assert_str_eq((const char *)a->first->rdata + 1, "a" "\007example\003com");
	ck_assert(has(a, "sub.example.com.", DNS_TYPE_NS));
	/* the last pointer is kept right: append after */
	ck_assert_ptr_nonnull(a->last);
	ck_assert(a->last->next == NULL);
	ck_assert_int_eq(a->last->type, DNS_TYPE_NS);
}
END_TEST

/** iter-scrub-cname: past max CNAME and DNAME records of an answer
 * section, the rest go, in the order they came; other records stay */
START_TEST(test_scrub_cname)
{
	static const char *const an[] = {
		"a.example.com. CNAME b.example.com.",
		"b.example.com. CNAME c.example.com.",
		"example.com. DNAME example.net.",
		"c.example.com. CNAME d.example.com.",
		"d.example.com. A 192.0.2.1",
		"d.example.com. CNAME e.example.com.", NULL };
	struct iter_reply *p = reply(0, 0, an, NULL, NULL);
	struct module_rrlist *a = sec(p, DNS_SEC_ANSWER);
	ck_assert_int_eq(iter_scrub_cname(a, 5), 0);
	ck_assert_uint_eq(a->count, 6);
	ck_assert_int_eq(iter_scrub_cname(a, 3), 2);
	ck_assert_uint_eq(a->count, 4);
	ck_assert(has(a, "example.com.", DNS_TYPE_DNAME));
	ck_assert(has(a, "d.example.com.", DNS_TYPE_A));
	ck_assert(!has(a, "c.example.com.", DNS_TYPE_CNAME));
	ck_assert(!has(a, "d.example.com.", DNS_TYPE_CNAME));
	ck_assert_ptr_nonnull(a->last);
	ck_assert(a->last->next == NULL);
	ck_assert_int_eq(a->last->type, DNS_TYPE_A);
}
END_TEST

/** RA without AA from a server that is not a forwarder: its answer,
 * NXDOMAIN or NODATA is second hand (recursion lame), and nothing of it
 * is kept; an authoritative upward referral scrubbed to nothing is
 * useless (not lame) */
START_TEST(test_classify_lame_ra)
{
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1", NULL };
	static const char *const cn[] = {
		"www.example.com. CNAME other.example.net.", NULL };
	static const char *const soa[] = {
		"example.com. SOA ns1.example.com. h.example.com. 1 2 3 4 300",
		NULL };
	static const char *const ref[] = {
		"sub.example.com. NS ns.sub.example.com.", NULL };
	static const char *const up[] = {
		". NS a.root-servers.net.", NULL };
	/* the zone's own NS set, no SOA: a reply that would be lame */
	static const char *const apex[] = {
		"example.com. NS ns.example.com.", NULL };
	static const struct ccase cases[] = {
		{ "RA, an answer", .ra = 1, .an = an,
		  .want = ITER_CL_RECLAME, .nchain = N(0) },
		{ "RA, a CNAME", .ra = 1, .an = cn,
		  .want = ITER_CL_RECLAME, .nchain = N(0) },
		{ "RA, NXDOMAIN", .rcode = DNS_RCODE_NXDOMAIN, .ra = 1,
		  .ns = soa, .want = ITER_CL_RECLAME },
		{ "RA, NODATA", .ra = 1, .ns = soa, .want = ITER_CL_RECLAME },
		/* with RA, recursion lame too; without, plain lame */
		{ "RA, the zone's own NS set", .ra = 1, .ns = apex,
		  .want = ITER_CL_RECLAME },
		{ "the zone's own NS set", .ns = apex, .want = ITER_CL_LAME },
		/* with AA too: authoritative, taken */
		{ "RA and AA, an answer", .aa = 1, .ra = 1, .an = an,
		  .want = ITER_CL_ANSWER },
		/* a referral with RA is still a referral; a forwarder's
		 * answer is taken */
		{ "RA, a referral", .ra = 1, .ns = ref,
		  .qname = "www.sub.example.com.", .want = ITER_CL_REFERRAL },
		{ "RA, a forwarder's answer", .ra = 1, .an = an, .zone = ".",
		  .forward = 1, .want = ITER_CL_ANSWER },
	};
	struct iter_env *env = iter_env_create_default();
	struct iter_reply *p;
	struct cl r;
	uint8_t zone[256];
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
	wire("example.com.", zone);
	/* AA, no answer, only an upward NS set (scrubbed away): useless;
	 * an AA reply empty from the start is EMPTY (NODATA only when no
	 * other server says more, RFC 2308 5) */
	p = reply(0, 1, NULL, up, NULL);
	iter_scrub_reply(p, zone, env);
	ck_assert_int_eq(p->ns_dropped, 1);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_USELESS);
	p = reply(0, 1, NULL, NULL, NULL);
	iter_scrub_reply(p, zone, env);
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_EMPTY);
	iter_env_delete(env);
}
END_TEST

/** a region per test */
static void
setup(void)
{
	reg = region_create(0);
	ck_assert_ptr_nonnull(reg);
}

/** free it */
static void
teardown(void)
{
	region_destroy(reg);
}

/** bailiwick: what is not at or below the server's zone goes, in every
 * section; a forwarder's reply keeps it */
START_TEST(test_bailiwick)
{
	static const char *const an[] = {
		"www.example.com. A 192.0.2.1",
		"www.evil.net. A 192.0.2.66", NULL };
	static const char *const ns[] = {
		"example.com. NS ns.example.com.",
		"net. NS ns.evil.net.", NULL };
	static const char *const ar[] = {
		"ns.example.com. A 192.0.2.53",
		"ns.evil.net. A 192.0.2.67", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	struct iter_reply *p = reply(0, 1, an, ns, ar);
	env->scrub_promiscuous = 0; /* (its own test) */
	wire("example.com.", zone);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "www.example.com.", DNS_TYPE_A));
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_AUTHORITY), "example.com.",
		DNS_TYPE_NS));
	ck_assert_uint_eq(sec(p, DNS_SEC_ADDITIONAL)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_ADDITIONAL), "ns.example.com.",
		DNS_TYPE_A));
		/* the zone itself is in bailiwick; a sibling with the same suffix
	 * text is not */
	{
		static const char *const an2[] = {
			"example.com. A 192.0.2.2",
			"badexample.com. A 192.0.2.3", NULL };
		p = reply(0, 1, an2, NULL, NULL);
		(void)iter_scrub_zone(sec(p, DNS_SEC_ANSWER), zone);
		ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
		ck_assert(has(sec(p, DNS_SEC_ANSWER), "example.com.",
			DNS_TYPE_A));
			}
	/* forwarder: no bailiwick (the answer's other name goes by the
	 * chain cut, which applies to a forwarder's reply too) */
	p = reply(0, 0, an, ns, ar);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 2);
	ck_assert_uint_eq(sec(p, DNS_SEC_ADDITIONAL)->count, 2);
		iter_env_delete(env);
}
END_TEST

/** private-address: private A/AAAA answers go, unless under a
 * private-domain; other records and public addresses stay */
START_TEST(test_private)
{
	static const char *const an[] = {
		"www.example.com. A 10.1.2.3",
		"www.example.com. A 192.0.2.1",
		"v6.example.com. AAAA fd00::1",
		"v6.example.com. AAAA 2001:db8::1",
		"host.intra.example.com. A 10.1.2.4",
		"txt.example.com. TXT \"10.1.2.5\"", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	struct iter_reply *p;
	ck_assert_int_eq(iter_env_add_private(env, "10.0.0.0/8"), 0);
	ck_assert_int_eq(iter_env_add_private(env, "fd00::/8"), 0);
	ck_assert_int_eq(iter_env_add_privdom(env, "intra.example.com."), 0);
	wire("example.com.", zone);
	p = reply(0, 1, an, NULL, NULL);
	ck_assert_int_eq(iter_scrub_private(env, sec(p, DNS_SEC_ANSWER)), 2);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 4);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "host.intra.example.com.",
		DNS_TYPE_A));
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "txt.example.com.",
		DNS_TYPE_TXT));
		/* the same through iter_scrub_reply, also for a forwarder
	 * (where the chain cut leaves the name asked: its public A) */
	p = reply(0, 1, an, NULL, NULL);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "www.example.com.", DNS_TYPE_A));
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->first->rdata[0], 192);
		iter_env_delete(env);
	/* without private-address nothing is dropped */
	env = iter_env_create_default();
	p = reply(0, 1, an, NULL, NULL);
	ck_assert_int_eq(iter_scrub_private(env, sec(p, DNS_SEC_ANSWER)), 0);
		iter_env_delete(env);
}
END_TEST

/** an NSEC whose next name is outside the zone asked goes, with its
 * RRSIG; one inside the zone stays; a forwarder's reply is not judged */
START_TEST(test_nsec_overreach)
{
	static const char *const ns[] = {
		"example.com. SOA ns.example.com. h.example.com. 1 2 3 4 5",
		"a.example.com. NSEC c.example.com. A RRSIG NSEC",
		"a.example.com. RRSIG NSEC 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA",
		"example.com. NSEC b.other.org. NS SOA RRSIG NSEC",
		"example.com. RRSIG NSEC 8 2 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA",
		"example.com. RRSIG SOA 8 2 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t zone[256];
	struct iter_reply *p;
	wire("example.com.", zone);
	p = reply(0, 1, NULL, ns, NULL);
	iter_scrub_reply(p, zone, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 4);
	ck_assert(has(sec(p, DNS_SEC_AUTHORITY), "a.example.com.",
		DNS_TYPE_NSEC));
	ck_assert(!has(sec(p, DNS_SEC_AUTHORITY), "example.com.",
		DNS_TYPE_NSEC));
	/* the SOA's RRSIG at the same owner stays */
	ck_assert(has(sec(p, DNS_SEC_AUTHORITY), "example.com.",
		DNS_TYPE_RRSIG));
	p = reply(0, 0, NULL, ns, NULL);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->count, 6);
	iter_env_delete(env);
}
END_TEST

/** the chain cut: of the answer only the records at the name asked and
 * the DNAME that applies to it stay; the rest of a chain is asked for */
START_TEST(test_chain_cut)
{
	static const char *const cn[] = {
		"www.example.com. CNAME host.example.com.",
		"host.example.com. A 192.0.2.2",
		"www.example.com. RRSIG CNAME 8 3 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA", NULL };
	/* the server's CNAME before the DNAME that made it */
	static const char *const rev[] = {
		"www.example.com. CNAME www.example.net.",
		"example.com. DNAME example.net.",
		"example.com. RRSIG DNAME 8 2 3600 20300101000000 "
		"20200101000000 1 example.com. AAAA",
		"www.example.net. A 192.0.2.3", NULL };
	/* a CNAME the DNAME after it did not make: the DNAME goes */
	static const char *const other[] = {
		"www.example.com. CNAME elsewhere.example.org.",
		"example.com. DNAME example.net.", NULL };
	/* two DNAMEs above the name: the first one stays */
	static const char *const two[] = {
		"example.com. DNAME example.net.",
		"www.example.com. CNAME www.example.net.",
		"com. DNAME org.", NULL };
	struct iter_env *env = iter_env_create_default();
	uint8_t root[1] = { 0 };
	struct iter_reply *p;
	struct cl r;

	p = reply(0, 1, cn, NULL, NULL);
	iter_scrub_reply(p, root, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 2);
	ck_assert(!has(sec(p, DNS_SEC_ANSWER), "host.example.com.",
		DNS_TYPE_A));
	r = classify(p, "www.example.com.", DNS_TYPE_A, "example.com.", 0);
	ck_assert_int_eq(r.c, ITER_CL_CNAME);
	ck_assert_str_eq(r.end, "host.example.com.");
	/* also for a forwarder */
	p = reply(0, 0, cn, NULL, NULL);
	iter_scrub_reply(p, NULL, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 2);

	p = reply(0, 1, rev, NULL, NULL);
	iter_scrub_reply(p, root, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 3);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "example.com.", DNS_TYPE_DNAME));
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "example.com.", DNS_TYPE_RRSIG));
	ck_assert(!has(sec(p, DNS_SEC_ANSWER), "www.example.net.",
		DNS_TYPE_A));
	r = classify(p, "www.example.com.", DNS_TYPE_A, ".", 0);
	ck_assert_int_eq(r.c, ITER_CL_CNAME);
	ck_assert_str_eq(r.end, "www.example.net.");

	p = reply(0, 1, other, NULL, NULL);
	iter_scrub_reply(p, root, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 1);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "www.example.com.",
		DNS_TYPE_CNAME));

	p = reply(0, 1, two, NULL, NULL);
	iter_scrub_reply(p, root, env);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 2);
	ck_assert(has(sec(p, DNS_SEC_ANSWER), "example.com.", DNS_TYPE_DNAME));
	ck_assert(!has(sec(p, DNS_SEC_ANSWER), "com.", DNS_TYPE_DNAME));
	iter_env_delete(env);
}
END_TEST

/** answers, CNAME and DNAME chains */
START_TEST(test_classify_answers)
{
	static const char *const a[] = { "www.example.com. A 192.0.2.1",
		"other.example.com. A 192.0.2.9", NULL };
	static const char *const cn_in[] = {
		"www.example.com. CNAME host.example.com.",
		"host.example.com. A 192.0.2.2", NULL };
	static const char *const cn_out[] = {
		"www.example.com. CNAME host.example.net.", NULL };
	static const char *const dn[] = {
		"example.com. DNAME example.net.", NULL };
	static const char *const loop[] = {
		"www.example.com. CNAME b.example.com.",
		"b.example.com. CNAME www.example.com.", NULL };
	static const char *const cn_a[] = {
		"www.example.com. CNAME host.example.net.",
		"www.example.com. A 192.0.2.7", NULL };
	static const char *const a_cn[] = {
		"www.example.com. A 192.0.2.7",
		"www.example.com. CNAME host.example.net.", NULL };
	static const struct ccase cases[] = {
		{ "an answer", .aa = 1, .an = a, .want = ITER_CL_ANSWER,
		  .nchain = N(0), .nfinal = N(1) },
		{ "a CNAME in the zone", .aa = 1, .an = cn_in,
		  .want = ITER_CL_ANSWER, .end = "host.example.com.",
		  .nchain = N(1), .nfinal = N(1) },
		{ "a CNAME out of the zone", .aa = 1, .an = cn_out,
		  .want = ITER_CL_CNAME, .end = "host.example.net.",
		  .nchain = N(1), .nfinal = N(0) },
		/* a DNAME: its CNAME is synthesised, the target resolved
		 * anew */
		{ "a DNAME", .aa = 1, .an = dn, .want = ITER_CL_CNAME,
		  .end = "www.example.net.", .nchain = N(2) },
		{ "a CNAME loop", .aa = 1, .an = loop, .want = ITER_CL_ERROR },
		/* a CNAME and data at one name: the one that comes first */
		{ "a CNAME before an A", .aa = 1, .an = cn_a,
		  .want = ITER_CL_CNAME, .end = "host.example.net.",
		  .nchain = N(1), .nfinal = N(0) },
		{ "an A before a CNAME", .aa = 1, .an = a_cn,
		  .want = ITER_CL_ANSWER, .nchain = N(0), .nfinal = N(1) },
	};
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

/** referrals, negative answers and lame replies */
START_TEST(test_classify_other)
{
	static const char *const ref[] = {
		"example.com. NS ns1.example.com.",
		"example.com. NS ns2.example.net.", NULL };
	static const char *const up[] = { "com. NS a.gtld-servers.net.",
		NULL };
	static const char *const side[] = {
		"example.org. NS ns.example.org.", NULL };
	static const char *const soa[] = {
		"example.com. SOA ns1.example.com. h.example.com. 1 2 3 4 300",
		NULL };
	static const char *const cn_in[] = {
		"www.example.com. CNAME gone.example.com.", NULL };
	static const char *const nsec[] = {
		"www.example.com. NSEC z.example.com. TXT RRSIG NSEC", NULL };
	static const char *const cn_out[] = {
		"www.example.com. CNAME www.example.net.", NULL };
	static const char *const ref_n3[] = {
		"example.com. NS ns1.example.com.",
		"0p9mhaveqvm6t7vbl5lop2u3t2rp3tom.com. NSEC3 1 1 0 - "
		"2t7b4g4vsa5smi47k61mv5bv1a22bojr NS", NULL };
	static const char *const ref_ds[] = {
		"example.com. NS ns1.example.com.",
		"example.com. DS 12345 8 2 0123456789abcdef0123456789abcdef"
		"0123456789abcdef0123456789abcdef", NULL };
	static const struct ccase cases[] = {
		/* from com.: a referral to example.com., with or without
		 * AA */
		{ "a referral", .ns = ref, .zone = "com.",
		  .want = ITER_CL_REFERRAL, .refzone = "example.com." },
		{ "a referral with AA", .aa = 1, .ns = ref, .zone = "com.",
		  .want = ITER_CL_REFERRAL },
		/* from example.com.: NS for example.com. itself, for com.
		 * (upward) or for another zone (sideways) is lame */
		{ "a referral to itself", .ns = ref, .want = ITER_CL_LAME },
		{ "an upward referral", .ns = up, .want = ITER_CL_LAME },
		{ "a sideways referral", .ns = side, .want = ITER_CL_LAME },
		/* an NXDOMAIN after a CNAME to a name outside the zone asked
		 * is not the server's to give: the target is asked (as
		 * Unbound) */
		{ "NXDOMAIN after a CNAME out of the zone",
		  .rcode = DNS_RCODE_NXDOMAIN, .aa = 1, .an = cn_out,
		  .ns = soa, .want = ITER_CL_CNAME, .end = "www.example.net." },
		/* a DS question answered with a referral to that very zone:
		 * the NSEC3 proof it carries is the parent's answer
		 * (NODATA); the DS set it carries is the answer (Unbound's
		 * iter_ds_referral.rpl); for another type it stays a
		 * referral */
		{ "DS: a referral with its NSEC3 proof", .ns = ref_n3,
		  .qname = "example.com.", .qtype = DNS_TYPE_DS,
		  .zone = "com.", .want = ITER_CL_NODATA },
		{ "DS: a referral with the DS set", .ns = ref_ds,
		  .qname = "example.com.", .qtype = DNS_TYPE_DS,
		  .zone = "com.", .want = ITER_CL_ANSWER, .nfinal = N(1) },
		/* asked of the zone itself (its own servers): not the
		 * parent's answer, lame as any referral to itself */
		{ "DS: a referral to itself", .ns = ref_ds,
		  .qname = "example.com.", .qtype = DNS_TYPE_DS,
		  .want = ITER_CL_LAME },
		{ "A: a referral with an NSEC3 proof", .ns = ref_n3,
		  .qname = "example.com.", .zone = "com.",
		  .want = ITER_CL_REFERRAL },
		/* no AA and no SOA, but the NSEC that denies the type:
		 * NODATA, as Unbound takes it (the validator judges the
		 * NSEC); entirely empty too (RFC 2308 2.2, Unbound's
		 * iter_resptype), unless the scrub dropped its authority
		 * records (an upward or sideways referral: lame) */
		{ "the NSEC alone", .ns = nsec, .want = ITER_CL_NODATA },
		{ "empty", .want = ITER_CL_NODATA },
		{ "empty once scrubbed", .ns_dropped = 1,
		  .want = ITER_CL_LAME },
		/* NXDOMAIN, NODATA (AA and SOA), and the same for a CNAME's
		 * target in the server's zone */
		{ "NXDOMAIN", .rcode = DNS_RCODE_NXDOMAIN, .aa = 1, .ns = soa,
		  .want = ITER_CL_NXDOMAIN },
		{ "NODATA", .aa = 1, .ns = soa, .want = ITER_CL_NODATA },
		{ "NODATA after a CNAME", .aa = 1, .an = cn_in, .ns = soa,
		  .want = ITER_CL_NODATA, .end = "gone.example.com.",
		  .nchain = N(1) },
		{ "NXDOMAIN after a CNAME", .rcode = DNS_RCODE_NXDOMAIN,
		  .aa = 1, .an = cn_in, .ns = soa, .want = ITER_CL_NXDOMAIN },
		/* an empty NOERROR without AA or SOA: NODATA (above); with RA
		 * it is recursion lame */
		{ "empty with RA", .ra = 1, .want = ITER_CL_RECLAME },
		/* a forwarder's reply is taken as it is */
		{ "a forwarder's empty reply", .zone = ".", .forward = 1,
		  .want = ITER_CL_NODATA },
		{ "a forwarder's NXDOMAIN", .rcode = DNS_RCODE_NXDOMAIN,
		  .zone = ".", .forward = 1, .want = ITER_CL_NXDOMAIN },
		/* ... but an upward referral from a forwarder (no answer, no
		 * SOA, an NS set above the zone it is asked for) says it did
		 * not recurse: lame, as Unbound; one at or below it stays
		 * NODATA, and so does its NODATA with the SOA */
		{ "a forwarder's upward referral", .ns = ref,
		  .zone = "www.example.com.", .forward = 1,
		  .want = ITER_CL_LAME },
		{ "a forwarder's referral below", .ns = ref, .zone = ".",
		  .forward = 1, .want = ITER_CL_NODATA },
		{ "a forwarder's NODATA", .ns = soa, .zone = ".", .forward = 1,
		  .want = ITER_CL_NODATA },
		/* ... but a CNAME that stops short of the data is followed
		 * (the target asked for, as Unbound does), with NODATA or
		 * NXDOMAIN */
		{ "a forwarder's CNAME and NODATA", .an = cn_in, .ns = soa,
		  .zone = ".", .forward = 1, .want = ITER_CL_CNAME,
		  .end = "gone.example.com." },
		{ "a forwarder's CNAME and NXDOMAIN",
		  .rcode = DNS_RCODE_NXDOMAIN, .an = cn_in, .ns = soa,
		  .zone = ".", .forward = 1, .want = ITER_CL_CNAME },
	};
	check_cases(cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

/** the parse: names uncompressed (owner and RDATA), a truncated packet
 * refused */
START_TEST(test_parse)
{
	static const char *const an[] = {
		"www.example.com. CNAME host.example.com.",
		"host.example.com. A 192.0.2.2", NULL };
	static const char *const ns[] = {
		"example.com. NS ns1.example.com.", NULL };
	struct iter_reply *p = reply(0, 1, an, ns, NULL), bad;
	struct module_rr *rr = sec(p, DNS_SEC_ANSWER)->first;
	uint8_t want[256], pkt[64];
	size_t len = sizeof(want);
	ck_assert_int_eq(p->qdcount, 1);
	ck_assert_int_eq(p->qtype, DNS_TYPE_A);
	ck_assert(p->flags & DNS_FLAG_AA);
	ck_assert_uint_eq(sec(p, DNS_SEC_ANSWER)->count, 2);
	ck_assert_int_eq(dname_from_str("host.example.com.", want, &len), 0);
	ck_assert_uint_eq(rr->rdlen, len);
	ck_assert_int_eq(memcmp(rr->rdata, want, len), 0);
	ck_assert_uint_eq(rr->next->owner_len, len);
	ck_assert(dname_equal(rr->next->owner, want));
	ck_assert_uint_eq(sec(p, DNS_SEC_AUTHORITY)->first->rdlen,
		dname_len(sec(p, DNS_SEC_AUTHORITY)->first->rdata));
	/* a header claiming one answer that is not there */
	memset(pkt, 0, sizeof(pkt));
	pkt[2] = 0x80;
	pkt[7] = 1;
	ck_assert_int_eq(iter_reply_parse(reg, pkt, 12, &bad), -1);
}
END_TEST

/** an A or AAAA record whose RDATA has the wrong length is dropped, the
 * rest of the reply kept (Unbound's iter_scrub_rr_length.rpl); a record
 * cut short by the packet's end still refuses the whole reply */
START_TEST(test_parse_addr_len)
{
	/* www.example.com A: answer 1.2.3.4 and a 3-octet A; additional
	 * a 5-octet AAAA and a good AAAA */
	static const uint8_t pkt[] = {
		0x12, 0x34, 0x84, 0x00, 0, 1, 0, 2, 0, 0, 0, 2,
		3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		3, 'c', 'o', 'm', 0, 0, 1, 0, 1,
		0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 4, 1, 2, 3, 4,
		0xc0, 12, 0, 1, 0, 1, 0, 0, 0x0e, 0x10, 0, 3, 3, 4, 5,
		0xc0, 12, 0, 28, 0, 1, 0, 0, 0x0e, 0x10, 0, 5, 1, 2, 3, 4, 5,
		0xc0, 12, 0, 28, 0, 1, 0, 0, 0x0e, 0x10, 0, 16,
		0x20, 1, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x12, 0x34
	};
	struct iter_reply rep;
	ck_assert_int_eq(iter_reply_parse(reg, pkt, sizeof(pkt), &rep), 0);
	ck_assert_uint_eq(rep.sec[DNS_SEC_ANSWER].count, 1);
	ck_assert_uint_eq(rep.sec[DNS_SEC_ANSWER].first->rdlen, 4);
	ck_assert_uint_eq(rep.sec[DNS_SEC_ADDITIONAL].count, 1);
	ck_assert_uint_eq(rep.sec[DNS_SEC_ADDITIONAL].first->rdlen, 16);
	/* the last record's RDATA runs past the end: refused */
	ck_assert_int_eq(iter_reply_parse(reg, pkt, sizeof(pkt) - 1, &rep),
		-1);
}
END_TEST

/** the suite */
static Suite *
scrub_suite(void)
{
	Suite *s = suite_create("scrub");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_addr_len);
	tcase_add_test(tc, test_bailiwick);
	tcase_add_test(tc, test_promiscuous);
	tcase_add_test(tc, test_scrub_ns);
	tcase_add_test(tc, test_scrub_cname);
	tcase_add_test(tc, test_sig_sections);
	tcase_add_test(tc, test_scrub_class);
	tcase_add_test(tc, test_scrub_sig_count);
	tcase_add_test(tc, test_private);
	tcase_add_test(tc, test_chain_cut);
	tcase_add_test(tc, test_nsec_overreach);
	tcase_add_test(tc, test_classify_answers);
	tcase_add_test(tc, test_classify_other);
	tcase_add_test(tc, test_classify_lame_ra);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(scrub_suite());
	int failed;
	log_init(NULL, 0, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
