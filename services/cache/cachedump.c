/*
 * services/cache/cachedump.c - the caches to and from Unbound's
 * dump_cache text format (see cachedump.h).
 *
 * Writing walks the RRset cache (each live set printed at once, its key
 * remembered in a hash set), copies the live messages out of the message
 * cache, keeps one per question, and prints the sets of each message that
 * the RRset cache did not have before printing the messages themselves.
 * Reading parses everything into a region first (sets, then messages with
 * their references resolved to the parsed sets by the same kind of hash
 * set), and only then stores.
 */
#include "config.h"
#include "services/cache/cachedump.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/store.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "util/log.h"
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>

/* Unbound's enum rrset_trust values (the TRUST field) */
/** rrset_trust_none */
#define UB_TRUST_NONE 0
/** rrset_trust_add_noAA */
#define UB_TRUST_ADD_NOAA 1
/** rrset_trust_auth_noAA */
#define UB_TRUST_AUTH_NOAA 2
/** rrset_trust_add_AA */
#define UB_TRUST_ADD_AA 3
/** rrset_trust_nonauth_ans_AA */
#define UB_TRUST_NONAUTH_ANS_AA 4
/** rrset_trust_ans_noAA */
#define UB_TRUST_ANS_NOAA 5
/** rrset_trust_glue */
#define UB_TRUST_GLUE 6
/** rrset_trust_auth_AA */
#define UB_TRUST_AUTH_AA 7
/** rrset_trust_ans_AA */
#define UB_TRUST_ANS_AA 8
/** rrset_trust_validated */
#define UB_TRUST_VALIDATED 11
/** rrset_trust_ultimate, the highest */
#define UB_TRUST_MAX 12

/* Unbound's enum sec_status values (the SECURITY field) */
/** sec_status_unchecked */
#define UB_SEC_UNCHECKED 0
/** sec_status_bogus */
#define UB_SEC_BOGUS 1
/** sec_status_indeterminate */
#define UB_SEC_INDETERMINATE 2
/** sec_status_insecure */
#define UB_SEC_INSECURE 3
/** sec_status_secure, the highest */
#define UB_SEC_SECURE 5

/** the QR and RA bits of a message's flags, as Unbound dumps them */
#define UB_MSG_FLAGS (DNS_FLAG_QR | DNS_FLAG_RA)

/* ------------------------------------------------------------ key set */

/** an RRset key: owner (lower-cased wire), type, class */
struct set_key {
	/** owner, lower-cased, in the owner's region; NULL: free slot */
	const uint8_t *name;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** the reader: the index of the set; the writer: 1 when it wrote
	 * the set secure */
	size_t val;
};

/** an open-addressing hash set of RRset keys */
struct key_set {
	/** slots, a power of two */
	struct set_key *slot;
	/** how many */
	size_t size;
	/** in use */
	size_t used;
};

/** hash of a key */
static size_t
key_hash(const uint8_t *name, uint16_t type, uint16_t rrclass)
{
	size_t h = 5381, i, n = dname_len(name);
	for(i = 0; i < n; i++)
		h = h * 33 + (size_t)tolower(name[i]);
	return (h * 33 + type) * 33 + rrclass;
}

/** find the slot of a key (its own, or the free one it would take) */
static struct set_key *
key_slot(struct key_set *ks, const uint8_t *name, uint16_t type,
	uint16_t rrclass)
{
	size_t i = key_hash(name, type, rrclass) & (ks->size - 1);
	for(;;) {
		struct set_key *k = &ks->slot[i];
		if(!k->name || (k->type == type && k->rrclass == rrclass &&
			dname_equal(k->name, name)))
			return k;
		i = (i + 1) & (ks->size - 1);
	}
}

/** @return the key, or NULL when absent */
static struct set_key *
key_find(struct key_set *ks, const uint8_t *name, uint16_t type,
	uint16_t rrclass)
{
	struct set_key *k;
	if(ks->size == 0)
		return NULL;
	k = key_slot(ks, name, type, rrclass);
	return k->name ? k : NULL;
}

/**
 * Add a key (the name is not copied: it must live as long as the set).
 * @return 1 added, 0 already there, -1 out of memory.
 */
static int
key_add(struct key_set *ks, const uint8_t *name, uint16_t type,
	uint16_t rrclass, size_t val)
{
	struct set_key *k;
	if((ks->used + 1) * 2 > ks->size) {
		struct key_set n;
		size_t i;
		n.size = ks->size ? ks->size * 2 : 64;
		n.used = ks->used;
		n.slot = calloc(n.size, sizeof(*n.slot));
		if(!n.slot)
			return -1;
		for(i = 0; i < ks->size; i++)
			if(ks->slot[i].name)
				*key_slot(&n, ks->slot[i].name,
					ks->slot[i].type, ks->slot[i].rrclass)
					= ks->slot[i];
		free(ks->slot);
		*ks = n;
	}
	k = key_slot(ks, name, type, rrclass);
	if(k->name)
		return 0;
	k->name = name;
	k->type = type;
	k->rrclass = rrclass;
	k->val = val;
	ks->used++;
	return 1;
}

/* ------------------------------------------------------------ writing */

/** a message copied out of the message cache */
struct msg_copy {
	/** question name, lower-cased */
	uint8_t *qname;
	/** type, class */
	uint16_t qtype, qclass;
	/** the DO bit of its key */
	int do_bit;
	/** remaining TTL */
	uint32_t ttl;
	/** rcode */
	int rcode;
	/** security status (enum mcache_security) */
	int sec;
	/** the message (TTLs as they would be sent now) */
	uint8_t *wire;
	/** its length */
	size_t len;
};

/** the state of a dump */
struct wr {
	/** where the sets go */
	cachedump_print_func rp;
	/** its argument */
	void *rarg;
	/** where the messages go */
	cachedump_print_func mp;
	/** its argument */
	void *marg;
	/** the clock */
	time_t now;
	/** the names of the keys */
	struct region *region;
	/** the sets written */
	struct key_set keys;
	/** the messages copied */
	struct msg_copy *msgs;
	/** how many, and room for */
	size_t nmsgs, maxmsgs;
	/** out of memory happened */
	int oom;
};

/** print a NUL-terminated string */
static void
wr_str(cachedump_print_func f, void *arg, const char *s)
{
	f(arg, s, strlen(s));
}

/** print formatted text (a line is far below the buffer) */
static void wr_printf(cachedump_print_func f, void *arg, const char *fmt, ...)
	PETREL_ATTR_FORMAT(3, 4);

static void
wr_printf(cachedump_print_func f, void *arg, const char *fmt, ...)
{
	char buf[1024];
	int n;
	va_list ap;
	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if(n > 0)
		f(arg, buf, (size_t)n < sizeof(buf) ? (size_t)n :
			sizeof(buf) - 1);
}

/** petrel's trust rank as Unbound's */
static int
trust_to_ub(enum rrset_trust t)
{
	switch(t) {
	case RRSET_TRUST_ADD_NOAA: return UB_TRUST_ADD_NOAA;
	case RRSET_TRUST_AUTH_NOAA: return UB_TRUST_AUTH_NOAA;
	case RRSET_TRUST_ADD_AA: return UB_TRUST_ADD_AA;
	case RRSET_TRUST_ANS_NOAA: return UB_TRUST_ANS_NOAA;
	case RRSET_TRUST_AUTH_AA: return UB_TRUST_AUTH_AA;
	case RRSET_TRUST_ANS_AA: return UB_TRUST_ANS_AA;
	case RRSET_TRUST_VALIDATED: return UB_TRUST_VALIDATED;
	case RRSET_TRUST_NONE:
	default: return UB_TRUST_NONE;
	}
}

/** Unbound's trust rank as petrel's, at most that of a
 * non-authoritative answer (a loaded set never shadows what the resolver
 * learns itself) */
static enum rrset_trust
trust_from_ub(unsigned t)
{
	switch(t) {
	case UB_TRUST_NONE:
	case UB_TRUST_ADD_NOAA: return RRSET_TRUST_ADD_NOAA;
	case UB_TRUST_AUTH_NOAA: return RRSET_TRUST_AUTH_NOAA;
	case UB_TRUST_ADD_AA:
	case UB_TRUST_GLUE: return RRSET_TRUST_ADD_AA;
	default: return RRSET_TRUST_ANS_NOAA;
	}
}

/** Unbound's security status of a loaded set as petrel's (what the
 * operator's dump says: see cachedump.h) */
static enum rrset_security
rrset_sec_from_ub(unsigned sec)
{
	switch(sec) {
	case UB_SEC_SECURE: return RRSET_SEC_SECURE;
	case UB_SEC_INSECURE: return RRSET_SEC_INSECURE;
	default: return RRSET_SEC_UNCHECKED;
	}
}

/** a message's security status as Unbound's */
static int
msg_sec_to_ub(int sec)
{
	switch(sec) {
	case MCACHE_SEC_INSECURE: return UB_SEC_INSECURE;
	case MCACHE_SEC_SECURE: return UB_SEC_SECURE;
	case MCACHE_SEC_BOGUS: return UB_SEC_BOGUS;
	case MCACHE_SEC_INDETERMINATE: return UB_SEC_INDETERMINATE;
	default: return UB_SEC_UNCHECKED;
	}
}

/** an RRset's security status as Unbound's */
static int
rrset_sec_to_ub(enum rrset_security sec)
{
	switch(sec) {
	case RRSET_SEC_INSECURE: return UB_SEC_INSECURE;
	case RRSET_SEC_SECURE: return UB_SEC_SECURE;
	case RRSET_SEC_BOGUS: return UB_SEC_BOGUS;
	default: return UB_SEC_UNCHECKED;
	}
}

/** print an ldns RR as a line ("BADRR" when ldns cannot) */
static void
wr_ldns_rr(cachedump_print_func f, void *arg, const ldns_rr *rr)
{
	char *s = rr ? ldns_rr2str(rr) : NULL;
	if(!s) {
		wr_str(f, arg, "BADRR\n");
		return;
	}
	wr_str(f, arg, s);
	free(s);
}

/** print one RR of a cached set */
static void
wr_rr(cachedump_print_func f, void *arg, const uint8_t *owner, uint16_t type,
	uint16_t rrclass, uint32_t ttl, const uint8_t *rdata, uint16_t rdlen)
{
	ldns_rr *rr = ldns_rr_new();
	ldns_rdf *o;
	uint8_t *w = malloc((size_t)rdlen + 2);
	size_t pos = 0;
	if(!rr || !w)
		goto bad;
	ldns_rr_set_type(rr, type);
	ldns_rr_set_class(rr, rrclass);
	ldns_rr_set_ttl(rr, ttl);
	o = ldns_dname_new_frm_data((uint16_t)dname_len(owner), owner);
	if(!o)
		goto bad;
	ldns_rr_set_owner(rr, o);
	w[0] = (uint8_t)(rdlen >> 8);
	w[1] = (uint8_t)rdlen;
	memcpy(w + 2, rdata, rdlen);
	if(ldns_wire2rdf(rr, w, (size_t)rdlen + 2, &pos) != LDNS_STATUS_OK)
		goto bad;
	wr_ldns_rr(f, arg, rr);
	ldns_rr_free(rr);
	free(w);
	return;
bad:
	if(rr)
		ldns_rr_free(rr);
	free(w);
	wr_str(f, arg, "BADRR\n");
}

/** rrset_cache_traverse callback: print a live set, remember its key */
static void
wr_cached_set(const struct rrset_data *rs, void *arg)
{
	struct wr *a = arg;
	uint8_t *name;
	if(rs->ttl == 0 || rs->count + rs->sig_count == 0)
		return;
	name = region_alloc(a->region, rs->name_len);
	if(!name) {
		a->oom = 1;
		return;
	}
	dname_copy_lower(name, rs->name);
	if(key_add(&a->keys, name, rs->type, rs->rrclass,
		rs->sec == RRSET_SEC_SECURE) < 0) {
		a->oom = 1;
		return;
	}
	cachedump_write_rrset(rs, a->rp, a->rarg);
}

void
cachedump_write_rrset(const struct rrset_data *rs, cachedump_print_func f,
	void *arg)
{
	size_t i;
	wr_printf(f, arg, ";rrset %u %zu %zu %d %d\n",
		(unsigned)rs->ttl, rs->count, rs->sig_count,
		trust_to_ub(rs->trust), rrset_sec_to_ub(rs->sec));
	for(i = 0; i < rs->count + rs->sig_count; i++)
		wr_rr(f, arg, rs->name, i < rs->count ? rs->type :
			DNS_TYPE_RRSIG, rs->rrclass, rs->ttl, rs->rdata[i],
			rs->rdlen[i]);
}

/** mcache_traverse callback: copy a live message (not a CD one) */
static void
wr_copy_msg(const struct mcache_dump_entry *e, void *arg)
{
	struct wr *a = arg;
	struct msg_copy *m;
	if(e->ttl == 0 || e->cd_bit || a->oom)
		return;
	if(a->nmsgs == a->maxmsgs) {
		size_t n = a->maxmsgs ? a->maxmsgs * 2 : 64;
		struct msg_copy *p = realloc(a->msgs, n * sizeof(*p));
		if(!p) {
			a->oom = 1;
			return;
		}
		a->msgs = p;
		a->maxmsgs = n;
	}
	m = &a->msgs[a->nmsgs];
	memset(m, 0, sizeof(*m));
	m->qname = malloc(e->qname_len);
	m->wire = malloc(e->msg_len);
	if(!m->qname || !m->wire) {
		free(m->qname);
		free(m->wire);
		a->oom = 1;
		return;
	}
	dname_copy_lower(m->qname, e->qname);
	memcpy(m->wire, e->msg, e->msg_len);
	m->len = e->msg_len;
	m->qtype = e->qtype;
	m->qclass = e->qclass;
	m->do_bit = e->do_bit;
	m->ttl = e->ttl;
	m->rcode = e->rcode;
	m->sec = (int)e->sec;
	a->nmsgs++;
}

/** qsort: by question, the DO one first */
static int
msg_cmp(const void *x, const void *y)
{
	const struct msg_copy *a = x, *b = y;
	int c = dname_canon_cmp(a->qname, b->qname);
	if(c != 0)
		return c;
	if(a->qtype != b->qtype)
		return a->qtype < b->qtype ? -1 : 1;
	if(a->qclass != b->qclass)
		return a->qclass < b->qclass ? -1 : 1;
	return b->do_bit - a->do_bit;
}

/** an RRset of a message, as ldns parsed it */
struct wr_set {
	/** the first RR (owner, type, class) */
	ldns_rr *first;
	/** section 0..2 */
	int section;
	/** its RRs, then its RRSIGs (in the pool of msg_sets) */
	ldns_rr **rr;
	/** how many of each */
	size_t count, sigs;
};

/** the set in sets[from..n) with this owner and type (and class,
 * unless cl is 0); @return its index, or n when there is none */
static size_t
find_set(const struct wr_set *sets, size_t from, size_t n,
	const ldns_rdf *owner, ldns_rr_type type, ldns_rr_class cl)
{
	size_t j;
	for(j = from; j < n; j++)
		if(ldns_rr_get_type(sets[j].first) == type &&
			(cl == 0 || ldns_rr_get_class(sets[j].first) == cl) &&
			ldns_dname_compare(ldns_rr_owner(sets[j].first), owner)
			== 0)
			return j;
	return n;
}

/**
 * The sets of a parsed message, in message order; RRSIGs join the set
 * they cover (same owner, section and type covered), or are dropped.
 * @param pkt: the message.
 * @param out: the sets (malloced; their rr arrays point into *pool).
 * @param pool: the RR pointers (malloced).
 * @return number of sets, or -1 when out of memory.
 */
static long
msg_sets(ldns_pkt *pkt, struct wr_set **out, ldns_rr ***pool)
{
	ldns_rr_list *sec[3];
	size_t total = 0, i, n = 0, at, *of;
	struct wr_set *s;
	int k, pass;
	sec[0] = ldns_pkt_answer(pkt);
	sec[1] = ldns_pkt_authority(pkt);
	sec[2] = ldns_pkt_additional(pkt);
	for(k = 0; k < 3; k++)
		total += sec[k] ? ldns_rr_list_rr_count(sec[k]) : 0;
	s = calloc(total + 1, sizeof(*s));
	*pool = calloc(total + 1, sizeof(ldns_rr *));
	of = calloc(total + 1, sizeof(*of));	/* the set of each RR */
	if(!s || !*pool || !of) {
		free(s);
		free(*pool);
		free(of);
		return -1;
	}
	/* the sets and their sizes; pass 0: the RRs, pass 1: the RRSIGs */
	for(k = 0, at = 0; k < 3; k++) {
		size_t first = n, at0 = at;
		for(pass = 0; pass < 2; pass++) {
			at = at0;
			for(i = 0; sec[k] && i < ldns_rr_list_rr_count(sec[k]);
				i++, at++) {
				ldns_rr *rr = ldns_rr_list_rr(sec[k], i);
				ldns_rr_type t = ldns_rr_get_type(rr);
				ldns_rdf *cov;
				size_t j;
				if(pass == 0 && t != LDNS_RR_TYPE_RRSIG) {
					j = find_set(s, first, n,
						ldns_rr_owner(rr), t,
						ldns_rr_get_class(rr));
					if(j == n) {
						s[n].first = rr;
						s[n].section = k;
						n++;
					}
					s[j].count++;
					of[at] = j;
				} else if(pass == 1 && t == LDNS_RR_TYPE_RRSIG) {
					cov = ldns_rr_rrsig_typecovered(rr);
					j = cov ? find_set(s, first, n,
						ldns_rr_owner(rr),
						ldns_rdf2rr_type(cov), 0) : n;
					if(j < n)
						s[j].sigs++;
					of[at] = j;	/* n: dropped */
				}
			}
		}
	}
	/* each set's slice of the pool, then its RRs and RRSIGs into it */
	for(i = 0, at = 0; i < n; i++) {
		s[i].rr = *pool + at;
		at += s[i].count + s[i].sigs;
		s[i].count = s[i].sigs = 0;
	}
	for(pass = 0; pass < 2; pass++) {
		for(k = 0, at = 0; k < 3; k++) {
			for(i = 0; sec[k] && i < ldns_rr_list_rr_count(sec[k]);
				i++, at++) {
				ldns_rr *rr = ldns_rr_list_rr(sec[k], i);
				int sig = ldns_rr_get_type(rr) ==
					LDNS_RR_TYPE_RRSIG;
				struct wr_set *w;
				if(sig != pass || of[at] >= n)
					continue;
				w = &s[of[at]];
				if(sig)
					w->rr[w->count + w->sigs++] = rr;
				else	w->rr[w->count++] = rr;
			}
		}
	}
	free(of);
	*out = s;
	return (long)n;
}

/** @return "NAME CLASS TYPE" (malloced), or NULL when out of memory */
static char *
name_class_type(const ldns_rdf *name, uint16_t rrclass, uint16_t type)
{
	char *nm = ldns_rdf2str(name);
	char *cl = ldns_rr_class2str(rrclass);
	char *tp = ldns_rr_type2str(type);
	char *r = NULL;
	if(nm && cl && tp) {
		size_t n = strlen(nm) + strlen(cl) + strlen(tp) + 3;
		if((r = malloc(n)) != NULL)
			snprintf(r, n, "%s %s %s", nm, cl, tp);
	}
	free(nm);
	free(cl);
	free(tp);
	return r;
}

/** print a message: first the sets the RRset cache did not have, then
 * the msg line and its references */
static void
wr_msg(struct wr *a, const struct msg_copy *m)
{
	ldns_pkt *pkt = NULL;
	struct wr_set *s = NULL;
	ldns_rr **pool = NULL;
	long n, i;
	size_t k, cnt[3] = {0, 0, 0};
	static const int sec_trust[3] = { UB_TRUST_ANS_NOAA,
		UB_TRUST_AUTH_NOAA, UB_TRUST_ADD_NOAA };
	ldns_rdf *q;
	char *qs;
	struct set_key *key;
	int unsecure_set = 0, sec;
	if(ldns_wire2pkt(&pkt, m->wire, m->len) != LDNS_STATUS_OK)
		return;	/* cannot be printed: skipped, as Unbound does */
	n = msg_sets(pkt, &s, &pool);
	if(n < 0) {
		a->oom = 1;
		ldns_pkt_free(pkt);
		return;
	}
	for(i = 0; i < n; i++) {
		const ldns_rr *f = s[i].first;
		uint8_t nm[DNS_MAX_NAME + 1], *kn;
		uint32_t ttl = 0xffffffffu;
		const ldns_rdf *o = ldns_rr_owner(f);
		cnt[s[i].section]++;
		if(ldns_rdf_size(o) > DNS_MAX_NAME ||
			dname_valid(ldns_rdf_data(o), ldns_rdf_size(o)) !=
			ldns_rdf_size(o))
			goto skip;
		memcpy(nm, ldns_rdf_data(o), ldns_rdf_size(o));
		dname_tolower(nm);
		if((key = key_find(&a->keys, nm, ldns_rr_get_type(f),
			ldns_rr_get_class(f))) != NULL) {
			if(key->val == 0)
				unsecure_set = 1;
			continue;
		}
		/* secure only with its RRSIGs, and then validated (as
		 * Unbound's validator ranks the sets it proved) */
		sec = m->sec == MCACHE_SEC_SECURE && s[i].sigs == 0 ?
			UB_SEC_UNCHECKED : msg_sec_to_ub(m->sec);
		if(sec != UB_SEC_SECURE)
			unsecure_set = 1;
		if(!(kn = region_memdup(a->region, nm, ldns_rdf_size(o))) ||
			key_add(&a->keys, kn, ldns_rr_get_type(f),
			ldns_rr_get_class(f), sec == UB_SEC_SECURE) < 0) {
			a->oom = 1;
			goto skip;
		}
		for(k = 0; k < s[i].count + s[i].sigs; k++)
			if(ldns_rr_ttl(s[i].rr[k]) < ttl)
				ttl = ldns_rr_ttl(s[i].rr[k]);
		wr_printf(a->rp, a->rarg, ";rrset %u %zu %zu %d %d\n",
			(unsigned)ttl, s[i].count, s[i].sigs,
			sec == UB_SEC_SECURE ? UB_TRUST_VALIDATED :
			sec_trust[s[i].section], sec);
		for(k = 0; k < s[i].count + s[i].sigs; k++)
			wr_ldns_rr(a->rp, a->rarg, s[i].rr[k]);
	}
	/* the message and its references */
	q = ldns_dname_new_frm_data((uint16_t)dname_len(m->qname), m->qname);
	qs = q ? name_class_type(q, m->qclass, m->qtype) : NULL;
	if(q)
		ldns_rdf_deep_free(q);
	if(!qs) {
		a->oom = 1;
		goto skip;
	}
	/* a secure answer is written secure only when every set it
	 * references is written secure (with its RRSIGs; a message for
	 * queries without DO has none): Unbound serves a secure message
	 * from its cache only when all its sets are secure too */
	sec = m->sec == MCACHE_SEC_SECURE && unsecure_set ? UB_SEC_UNCHECKED :
		msg_sec_to_ub(m->sec);
	wr_printf(a->mp, a->marg, "msg %s %u 1 %u %d %zu %zu %zu\n", qs,
		(unsigned)(UB_MSG_FLAGS | (m->rcode & 0xf)), (unsigned)m->ttl,
		sec, cnt[0], cnt[1], cnt[2]);
	free(qs);
	for(i = 0; i < n; i++) {
		char *rs = name_class_type(ldns_rr_owner(s[i].first),
			ldns_rr_get_class(s[i].first),
			ldns_rr_get_type(s[i].first));
		/* Unbound's reader skips a message with a BADREF line */
		wr_printf(a->mp, a->marg, "%s 0\n", rs ? rs : "BADREF");
		free(rs);
	}
skip:
	free(s);
	free(pool);
	ldns_pkt_free(pkt);
}

int
cachedump_write(struct mcache *mc, struct rrset_cache *rc, time_t now,
	cachedump_print_func rrsets, void *rarg, cachedump_print_func msgs,
	void *marg)
{
	struct wr a;
	size_t i;
	memset(&a, 0, sizeof(a));
	a.rp = rrsets;
	a.rarg = rarg;
	a.mp = msgs;
	a.marg = marg;
	a.now = now;
	a.region = region_create(0);
	if(!a.region)
		return -1;
	if(rc && rrset_cache_traverse(rc, now, wr_cached_set, &a) != 0)
		a.oom = 1;
	if(mc && !a.oom && mcache_traverse(mc, now, wr_copy_msg, &a) != 0)
		a.oom = 1;
	if(a.nmsgs > 1)
		qsort(a.msgs, a.nmsgs, sizeof(*a.msgs), msg_cmp);
	for(i = 0; i < a.nmsgs && !a.oom; i++) {
		/* one per question: the first (DO) of equal ones */
		if(i > 0 && a.msgs[i].qtype == a.msgs[i-1].qtype &&
			a.msgs[i].qclass == a.msgs[i-1].qclass &&
			dname_equal(a.msgs[i].qname, a.msgs[i-1].qname))
			continue;
		wr_msg(&a, &a.msgs[i]);
	}
	for(i = 0; i < a.nmsgs; i++) {
		free(a.msgs[i].qname);
		free(a.msgs[i].wire);
	}
	free(a.msgs);
	free(a.keys.slot);
	region_destroy(a.region);
	return a.oom ? -1 : 0;
}

/* ------------------------------------------------------------ reading */

/** a parsed set */
struct cd_set {
	/** owner (case as in the dump) */
	uint8_t *name;
	/** its length */
	size_t name_len;
	/** type, class */
	uint16_t type, rrclass;
	/** TTL (remaining at dump time) */
	uint32_t ttl;
	/** Unbound's trust and security values */
	unsigned trust, sec;
	/** RRs, RRSIGs */
	size_t count, sigs;
	/** count + sigs RDATA */
	uint8_t **rd;
	/** their lengths */
	uint16_t *rdlen;
	/** a BADRR line: skipped */
	int bad;
};

/** a parsed message */
struct cd_msg {
	/** question */
	uint8_t *qname;
	/** type, class */
	uint16_t qtype, qclass;
	/** header flags (the rcode in the low bits) */
	uint16_t flags;
	/** TTL */
	uint32_t ttl;
	/** Unbound's security value */
	unsigned sec;
	/** sets per section */
	size_t n[3];
	/** n[0]+n[1]+n[2] indexes into the sets; (size_t)-1: not in the
	 * dump */
	size_t *ref;
	/** a BADREF line: skipped */
	int bad;
};

/** a parsed dump */
struct cachedump {
	/** names and RDATA */
	struct region *region;
	/** the sets */
	struct cd_set *sets;
	/** how many, room for */
	size_t nsets, maxsets;
	/** the messages */
	struct cd_msg *msgs;
	/** how many, room for */
	size_t nmsgs, maxmsgs;
};

/** the reader: lines of a private copy of the text */
struct rd {
	/** the next line */
	char *p;
	/** the end of the text */
	char *end;
	/** number of the line last read (1 is the first) */
	size_t line;
	/** the error */
	char *err;
	/** its size */
	size_t errlen;
};

/** @return the next line (NUL-terminated, trailing white space and CR
 * cut), or NULL at the end of the text (the reader's p may then be past
 * end: it is never read again) */
static char *
rd_line(struct rd *r)
{
	char *s = r->p, *e;
	if(r->p >= r->end) {
		/* the error names the line after the last one */
		if(r->p == r->end) {
			r->line++;
			r->p++;
		}
		return NULL;
	}
	e = memchr(s, '\n', (size_t)(r->end - s));
	if(!e)
		e = r->end;
	r->p = e + 1;
	*e = 0;
	while(e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	r->line++;
	return s;
}

/** set the error for the last line read; @return -1 */
static int rd_err(struct rd *r, const char *fmt, ...) PETREL_ATTR_FORMAT(2, 3);

static int
rd_err(struct rd *r, const char *fmt, ...)
{
	char what[400];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "line %zu: %s", r->line, what);
	return -1;
}

/** the next word of a line (NUL-terminated in place), "" at the end */
static char *
next_word(char **p)
{
	char *s = *p, *w;
	while(*s == ' ' || *s == '\t')
		s++;
	w = s;
	while(*s && *s != ' ' && *s != '\t')
		s++;
	if(*s)
		*s++ = 0;
	*p = s;
	return w;
}

/** a decimal number up to max; @return 0 or -1 */
static int
parse_num(const char *w, unsigned long max, unsigned long *out)
{
	char *e = NULL;
	unsigned long v;
	if(!isdigit((unsigned char)w[0]))
		return -1;
	errno = 0;
	v = strtoul(w, &e, 10);
	if(errno || !e || *e || v > max)
		return -1;
	*out = v;
	return 0;
}

/** "NAME CLASS TYPE" at *p into wire name (in region), class, type;
 * @return 0, or -1 (with the error set) */
static int
parse_question(struct rd *r, struct region *region, char **p,
	uint8_t **name, uint16_t *rrclass, uint16_t *type)
{
	uint8_t nm[DNS_MAX_NAME + 1];
	size_t nl = sizeof(nm);
	char *wn = next_word(p), *wc = next_word(p), *wt = next_word(p);
	if(!wn[0] || dname_from_str(wn, nm, &nl) != 0)
		return rd_err(r, "bad name '%s'", wn);
	if(!(*rrclass = (uint16_t)ldns_get_rr_class_by_name(wc)))
		return rd_err(r, "bad class '%s'", wc);
	if(!(*type = (uint16_t)ldns_get_rr_type_by_name(wt)))
		return rd_err(r, "bad type '%s'", wt);
	if(!(*name = region_memdup(region, nm, nl)))
		return rd_err(r, "out of memory");
	return 0;
}

/** read one RR line into set s (RR number i); @return 0, 1 (BADRR),
 * or -1 */
static int
parse_rr(struct rd *r, struct cachedump *d, struct cd_set *s, size_t i)
{
	char *line = rd_line(r);
	ldns_rr *rr = NULL;
	ldns_buffer *b = NULL;
	ldns_status st;
	const ldns_rdf *o;
	int want_sig = i >= s->count, ret = -1;
	uint16_t t;
	if(!line)
		return rd_err(r, "the dump ends inside an RRset");
	if(strcmp(line, "BADRR") == 0)
		return 1;
	st = ldns_rr_new_frm_str(&rr, line, 0, NULL, NULL);
	if(st != LDNS_STATUS_OK)
		return rd_err(r, "bad record (%s)", ldns_get_errorstr_by_id(st));
	o = ldns_rr_owner(rr);
	t = (uint16_t)ldns_rr_get_type(rr);
	if(want_sig && t != DNS_TYPE_RRSIG) {
		rd_err(r, "expected an RRSIG record");
		goto out;
	}
	if(!want_sig && t == DNS_TYPE_RRSIG) {
		rd_err(r, "an RRSIG record where the set's records belong");
		goto out;
	}
	if(!s->name) {	/* the first record (or the first after BADRR) */
		s->name_len = ldns_rdf_size(o);
		if(s->name_len > DNS_MAX_NAME || dname_valid(ldns_rdf_data(o),
			s->name_len) != s->name_len) {
			rd_err(r, "bad owner name");
			goto out;
		}
		s->name = region_memdup(d->region, ldns_rdf_data(o),
			s->name_len);
		s->type = t;
		s->rrclass = (uint16_t)ldns_rr_get_class(rr);
		if(!s->name) {
			rd_err(r, "out of memory");
			goto out;
		}
	} else if((!want_sig && t != s->type) || ldns_rr_get_class(rr) !=
		s->rrclass || ldns_rdf_size(o) != s->name_len ||
		!dname_equal(ldns_rdf_data(o), s->name)) {
		rd_err(r, "the record's owner, type or class is not its "
			"set's");
		goto out;
	}
	if(!(b = ldns_buffer_new(512)) ||
		ldns_rr_rdata2buffer_wire(b, rr) != LDNS_STATUS_OK) {
		rd_err(r, "cannot convert the record");
		goto out;
	}
	if(ldns_buffer_position(b) > 65535) {
		rd_err(r, "the record is too long");
		goto out;
	}
	s->rdlen[i] = (uint16_t)ldns_buffer_position(b);
	s->rd[i] = region_memdup(d->region, ldns_buffer_begin(b),
		ldns_buffer_position(b) ? ldns_buffer_position(b) : 1);
	if(!s->rd[i]) {
		rd_err(r, "out of memory");
		goto out;
	}
	ret = 0;
out:
	ldns_buffer_free(b);
	ldns_rr_free(rr);
	return ret;
}

/** read a ";rrset" line (already read) and its records; @return 0 or -1 */
static int
parse_set(struct rd *r, struct cachedump *d, char *line)
{
	struct cd_set *s;
	unsigned long v[5];
	char *p = line + 6;
	size_t i, n;
	int k, bad = 0;
	if(strncmp(p, " nsec_apex", 10) == 0)
		p += 10;
	for(k = 0; k < 5; k++) {
		static const unsigned long max[5] = { 0x7fffffffUL, 65535,
			65535, UB_TRUST_MAX, UB_SEC_SECURE };
		if(parse_num(next_word(&p), max[k], &v[k]) != 0)
			break;
	}
	if(k < 5 || *p || v[1] + v[2] == 0 || v[1] + v[2] > 65535)
		return rd_err(r, "expected ';rrset TTL NRR NSIG TRUST "
			"SECURITY' (TRUST 0..12, SECURITY 0..5, at least one "
			"record)");
	if(d->nsets == d->maxsets) {
		size_t m = d->maxsets ? d->maxsets * 2 : 64;
		struct cd_set *ns = realloc(d->sets, m * sizeof(*ns));
		if(!ns)
			return rd_err(r, "out of memory");
		d->sets = ns;
		d->maxsets = m;
	}
	s = &d->sets[d->nsets];
	memset(s, 0, sizeof(*s));
	s->ttl = (uint32_t)v[0];
	s->count = v[1];
	s->sigs = v[2];
	s->trust = (unsigned)v[3];
	s->sec = (unsigned)v[4];
	n = s->count + s->sigs;
	s->rd = region_alloc_zero(d->region, n * sizeof(*s->rd));
	s->rdlen = region_alloc_zero(d->region, n * sizeof(*s->rdlen));
	if(!s->rd || !s->rdlen)
		return rd_err(r, "out of memory");
	for(i = 0; i < n; i++) {
		int x = parse_rr(r, d, s, i);
		if(x < 0)
			return -1;
		if(x == 1) {
			/* BADRR: this set is skipped; its first record may
			 * be missing, so it cannot be referenced either */
			bad = 1;
		}
	}
	s->bad = bad || !s->name;
	d->nsets++;
	return 0;
}

/** read a "msg" line (already read) and its references; @return 0 or -1 */
static int
parse_msg(struct rd *r, struct cachedump *d, struct key_set *ks, char *line)
{
	struct cd_msg *m;
	unsigned long v[7];
	char *p = line + 4;
	size_t i, n;
	int k;
	if(d->nmsgs == d->maxmsgs) {
		size_t mx = d->maxmsgs ? d->maxmsgs * 2 : 64;
		struct cd_msg *nm = realloc(d->msgs, mx * sizeof(*nm));
		if(!nm)
			return rd_err(r, "out of memory");
		d->msgs = nm;
		d->maxmsgs = mx;
	}
	m = &d->msgs[d->nmsgs];
	memset(m, 0, sizeof(*m));
	if(parse_question(r, d->region, &p, &m->qname, &m->qclass, &m->qtype)
		!= 0)
		return -1;
	for(k = 0; k < 7; k++) {
		static const unsigned long max[7] = { 65535, 65535,
			0x7fffffffUL, UB_SEC_SECURE, 65535, 65535, 65535 };
		if(parse_num(next_word(&p), max[k], &v[k]) != 0)
			break;
	}
	if(k < 7 || *p || v[4] + v[5] + v[6] > 65535)
		return rd_err(r, "expected 'msg QNAME CLASS TYPE FLAGS QDCOUNT "
			"TTL SECURITY AN NS AR' (SECURITY 0..5)");
	m->flags = (uint16_t)v[0];
	m->ttl = (uint32_t)v[2];
	m->sec = (unsigned)v[3];
	m->n[0] = v[4];
	m->n[1] = v[5];
	m->n[2] = v[6];
	n = v[4] + v[5] + v[6];
	m->ref = region_alloc(d->region, (n ? n : 1) * sizeof(*m->ref));
	if(!m->ref)
		return rd_err(r, "out of memory");
	for(i = 0; i < n; i++) {
		char *ref = rd_line(r), *q = ref;
		uint8_t *nm;
		uint16_t cl, ty;
		unsigned long fl;
		struct set_key *key;
		if(!ref)
			return rd_err(r, "the dump ends inside a message");
		if(strncmp(ref, "BADREF", 6) == 0) {
			m->bad = 1;
			m->ref[i] = (size_t)-1;
			continue;
		}
		if(parse_question(r, d->region, &q, &nm, &cl, &ty) != 0)
			return -1;
		if(parse_num(next_word(&q), 0xffffffffUL, &fl) != 0 || *q)
			return rd_err(r, "expected a reference 'NAME CLASS "
				"TYPE FLAGS'");
		/* the flags (Unbound's rrset key flags) are not matched:
		 * see cachedump.h */
		key = key_find(ks, nm, ty, cl);
		m->ref[i] = key ? key->val : (size_t)-1;
	}
	d->nmsgs++;
	return 0;
}

/** expect a fixed line; @return 0 or -1 */
static int
rd_fixed(struct rd *r, const char *want)
{
	char *line;
	do {
		line = rd_line(r);
	} while(line && !line[0]);
	if(!line || strcmp(line, want) != 0)
		return rd_err(r, "expected %s", want);
	return 0;
}

struct cachedump *
cachedump_parse(const char *text, size_t len, char *err, size_t errlen)
{
	struct cachedump *d = calloc(1, sizeof(*d));
	struct key_set ks;
	struct rd r;
	char *copy = malloc(len + 1), *line;
	size_t i;
	memset(&ks, 0, sizeof(ks));
	memset(&r, 0, sizeof(r));
	r.err = err;
	r.errlen = errlen;
	if(errlen)
		err[0] = 0;
	if(!d || !copy || !(d->region = region_create(0))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	memcpy(copy, text, len);
	copy[len] = 0;
	r.p = copy;
	r.end = copy + len;
	if(rd_fixed(&r, "START_RRSET_CACHE") != 0)
		goto fail;
	for(;;) {
		line = rd_line(&r);
		if(!line) {
			rd_err(&r, "the dump ends before END_RRSET_CACHE");
			goto fail;
		}
		if(strcmp(line, "END_RRSET_CACHE") == 0)
			break;
		if(!line[0])
			continue;
		if(strncmp(line, ";rrset", 6) != 0 || (line[6] != ' ' &&
			line[6] != 0)) {
			rd_err(&r, "expected ';rrset TTL NRR NSIG TRUST "
				"SECURITY' or END_RRSET_CACHE");
			goto fail;
		}
		if(parse_set(&r, d, line) != 0)
			goto fail;
	}
	/* the keys of the sets, for the references (a later set of the same
	 * key does not replace the first: both are stored, in order) */
	for(i = 0; i < d->nsets; i++) {
		struct cd_set *s = &d->sets[i];
		uint8_t *lc;
		if(s->bad)
			continue;
		if(!(lc = region_memdup(d->region, s->name, s->name_len)) ||
			(dname_tolower(lc), key_add(&ks, lc, s->type,
			s->rrclass, i) < 0)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if(rd_fixed(&r, "START_MSG_CACHE") != 0)
		goto fail;
	for(;;) {
		line = rd_line(&r);
		if(!line) {
			rd_err(&r, "the dump ends before END_MSG_CACHE");
			goto fail;
		}
		if(strcmp(line, "END_MSG_CACHE") == 0)
			break;
		if(!line[0])
			continue;
		if(strncmp(line, "msg ", 4) != 0) {
			rd_err(&r, "expected 'msg QNAME CLASS TYPE FLAGS "
				"QDCOUNT TTL SECURITY AN NS AR' or "
				"END_MSG_CACHE");
			goto fail;
		}
		if(parse_msg(&r, d, &ks, line) != 0)
			goto fail;
	}
	if(rd_fixed(&r, "EOF") != 0)
		goto fail;
	free(ks.slot);
	free(copy);
	return d;
fail:
	free(ks.slot);
	free(copy);
	cachedump_free(d);
	return NULL;
}

/** fill a cache_rrset with a parsed set, or its RRSIGs */
static void
answer_set(struct cache_rrset *cs, const struct cd_set *s, int section,
	uint32_t maxttl, int sigs)
{
	memset(cs, 0, sizeof(*cs));
	cs->owner = s->name;
	cs->owner_len = s->name_len;
	cs->type = sigs ? DNS_TYPE_RRSIG : s->type;
	cs->rrclass = s->rrclass;
	cs->ttl = s->ttl < maxttl ? s->ttl : maxttl;
	cs->section = (uint8_t)section;
	cs->trust = RRSET_TRUST_NONE;	/* the sets are stored on their own */
	cs->count = sigs ? s->sigs : s->count;
	cs->rdata = (const uint8_t *const *)(sigs ? s->rd + s->count : s->rd);
	cs->rdlen = sigs ? s->rdlen + s->count : s->rdlen;
}

/** store one parsed message (without and with DO); @return 1 stored,
 * 0 dropped, -1 out of memory */
static int
load_msg(const struct cachedump *d, const struct cd_msg *m,
	struct mcache *mc, time_t now, uint8_t *buf, struct region *region)
{
	struct cache_rrset *sets;
	struct cache_answer a;
	struct query_info qi;
	size_t n = m->n[0] + m->n[1] + m->n[2], i, k, ns;
	int sec, do_bit, stored = 0;
	enum mcache_security msg_sec = MCACHE_SEC_UNCHECKED;
	if(m->bad || m->sec == UB_SEC_BOGUS || !mc)
		return 0;
	for(i = 0; i < n; i++)
		if(m->ref[i] == (size_t)-1 || d->sets[m->ref[i]].sec ==
			UB_SEC_BOGUS)
			return 0;
	if(query_info_set(&qi, m->qname, m->qtype, m->qclass) != 0)
		return 0;
	/* the dump's status (see cachedump.h); secure only when every set
	 * it references is secure too (Unbound's answer from its cache
	 * checks the same: reply_all_rrsets_secure) */
	if(m->sec == UB_SEC_SECURE) {
		msg_sec = MCACHE_SEC_SECURE;
		for(i = 0; i < n; i++)
			if(d->sets[m->ref[i]].sec != UB_SEC_SECURE)
				msg_sec = MCACHE_SEC_UNCHECKED;
	} else if(m->sec == UB_SEC_INSECURE)
		msg_sec = MCACHE_SEC_INSECURE;
	sets = region_alloc(region, (2 * n + 1) * sizeof(*sets));
	if(!sets)
		return -1;
	for(do_bit = 0; do_bit < 2; do_bit++) {
		ns = 0;
		for(sec = 0, k = 0; sec < 3; sec++) {
			for(i = 0; i < m->n[sec]; i++, k++) {
				const struct cd_set *s = &d->sets[m->ref[k]];
				if(s->count > 0)
					answer_set(&sets[ns++], s, sec, m->ttl,
						0);
				if(do_bit && s->sigs > 0)
					answer_set(&sets[ns++], s, sec, m->ttl,
						1);
			}
		}
		memset(&a, 0, sizeof(a));
		a.qinfo = &qi;
		a.rcode = m->flags & 0xf;
		a.do_bit = do_bit;
		a.cd_bit = 0;
		a.sec = msg_sec;
		a.ede = -1;
		a.sets = sets;
		a.nsets = ns;
		if(cache_store_answer(mc, NULL, &a, now, buf, DNS_MAX_MSG,
			region) == MCACHE_STORED && do_bit == 0)
			stored = 1;
	}
	return stored;
}

int
cachedump_load(const struct cachedump *d, struct mcache *mc,
	struct rrset_cache *rc, time_t now, struct cachedump_counts *counts)
{
	size_t i;
	uint8_t *buf = NULL;
	struct region *region = NULL;
	memset(counts, 0, sizeof(*counts));
	for(i = 0; i < d->nsets; i++) {
		const struct cd_set *s = &d->sets[i];
		struct rrset_data rs;
		if(s->bad || !rc || s->sec == UB_SEC_BOGUS ||
			s->type == DNS_TYPE_RRSIG || s->count == 0) {
			counts->dropped++;
			continue;
		}
		memset(&rs, 0, sizeof(rs));
		rs.name = s->name;
		rs.name_len = s->name_len;
		rs.type = s->type;
		rs.rrclass = s->rrclass;
		rs.ttl = s->ttl;
		/* the dump's status; a secure set is validated, the rest
		 * never above a non-authoritative answer (see cachedump.h) */
		rs.sec = rrset_sec_from_ub(s->sec);
		rs.trust = rs.sec == RRSET_SEC_SECURE ? RRSET_TRUST_VALIDATED :
			trust_from_ub(s->trust);
		rs.count = s->count;
		rs.sig_count = s->sigs;
		rs.rdata = (const uint8_t *const *)s->rd;
		rs.rdlen = s->rdlen;
		if(rrset_cache_store(rc, &rs, now) == RRSET_STORED)
			counts->stored++;
		else	counts->dropped++;
	}
	if(d->nmsgs > 0) {
		buf = malloc(DNS_MAX_MSG);
		region = region_create(0);
		if(!buf || !region) {
			free(buf);
			region_destroy(region);
			return -1;
		}
	}
	for(i = 0; i < d->nmsgs; i++) {
		int r = load_msg(d, &d->msgs[i], mc, now, buf, region);
		region_free_all(region);
		if(r < 0) {
			free(buf);
			region_destroy(region);
			return -1;
		}
		if(r == 1)
			counts->stored++;
		else	counts->dropped++;
	}
	free(buf);
	region_destroy(region);
	return 0;
}

size_t
cachedump_size(const struct cachedump *d)
{
	return d ? d->nsets + d->nmsgs : 0;
}

void
cachedump_free(struct cachedump *d)
{
	if(!d)
		return;
	free(d->sets);
	free(d->msgs);
	region_destroy(d->region);
	free(d);
}
