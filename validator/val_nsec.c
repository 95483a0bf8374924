/*
 * validator/val_nsec.c - denial of existence with NSEC.
 *
 * See val_nsec.h. The proofs follow RFC 4035 5.4 and the checks Unbound's
 * val_nsec.c makes for the same questions (an NSEC from the parent side of
 * a delegation cannot deny data below it; an NSEC with DNAME cannot deny
 * names below its owner), written from the RFCs.
 */
#include "config.h"
#include "validator/val_nsec.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <string.h>

const char *
val_proof_str(int p)
{
	switch(p) {
	case VAL_PROOF_NONE: return "no proof";
	case VAL_PROOF_SECURE: return "secure";
	case VAL_PROOF_INSECURE: return "insecure";
	case VAL_PROOF_BOGUS: return "bogus";
	default: return "unknown";
	}
}

int
val_bitmap_check(const uint8_t *bm, size_t len)
{
	size_t p = 0;
	int last = -1;
	while(p < len) {
		uint8_t win, wl;
		if(len - p < 2)
			return -1;
		win = bm[p];
		wl = bm[p+1];
		if((int)win <= last || wl < 1 || wl > 32 || len - p - 2 < wl)
			return -1;
		last = win;
		p += 2 + (size_t)wl;
	}
	return 0;
}

int
val_bitmap_has(const uint8_t *bm, size_t len, uint16_t type)
{
	size_t p = 0;
	uint8_t want = (uint8_t)(type >> 8), bit = (uint8_t)(type & 0xff);
	if(val_bitmap_check(bm, len) != 0)
		return 0;
	while(p < len) {
		uint8_t win = bm[p], wl = bm[p+1];
		if(win == want) {
			if((size_t)(bit / 8) >= wl)
				return 0;
			return (bm[p + 2 + bit/8] & (0x80 >> (bit % 8))) != 0;
		}
		p += 2 + (size_t)wl;
	}
	return 0;
}

int
val_nsec_parse(const uint8_t *rdata, size_t len, const uint8_t **next,
	const uint8_t **bm, size_t *bmlen)
{
	size_t nl = dname_valid(rdata, len);
	if(nl == 0)
		return -1;
	if(val_bitmap_check(rdata + nl, len - nl) != 0)
		return -1;
	*next = rdata;
	*bm = rdata + nl;
	*bmlen = len - nl;
	return 0;
}

int
val_nsec_has_type(const struct val_nrec *r, uint16_t type)
{
	const uint8_t *next, *bm;
	size_t bl;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0)
		return 0;
	return val_bitmap_has(bm, bl, type);
}

int
val_nsec_covers(const struct val_nrec *r, const uint8_t *name)
{
	const uint8_t *next, *bm;
	size_t bl;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0)
		return 0;
	if(dname_canon_cmp(name, r->owner) <= 0)
		return 0;
	if(dname_canon_cmp(r->owner, next) < 0)
		return dname_canon_cmp(name, next) < 0;
	/* the last NSEC: next is the apex, everything after the owner
	 * below the apex is covered */
	return dname_is_subdomain(name, next);
}

int
val_nsec_is_ent(const struct val_nrec *r, const uint8_t *name)
{
	const uint8_t *next, *bm;
	size_t bl;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0)
		return 0;
	if(dname_canon_cmp(name, r->owner) <= 0)
		return 0;
	return dname_is_strict_subdomain(next, name) &&
		dname_canon_cmp(r->owner, next) < 0;
}

int
val_nsec_closest_encloser(const struct val_nrec *r, const uint8_t *name)
{
	const uint8_t *next, *bm;
	size_t bl;
	int a, b;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0)
		return -1;
	a = dname_common_labels(name, r->owner);
	b = dname_common_labels(name, next);
	return a > b ? a : b;
}

/**
 * May this NSEC deny names below its owner? Not when it is the parent
 * side of a delegation (NS without SOA) or has a DNAME: the names below
 * are then not in this zone's data.
 */
static int
nsec_may_deny_below(const struct val_nrec *r, const uint8_t *name)
{
	if(!dname_is_strict_subdomain(name, r->owner))
		return 1;
	if(val_nsec_has_type(r, DNS_TYPE_NS) &&
		!val_nsec_has_type(r, DNS_TYPE_SOA))
		return 0;
	if(val_nsec_has_type(r, DNS_TYPE_DNAME))
		return 0;
	return 1;
}

/**
 * Find an NSEC that covers name and denies it exists.
 * @return its index, or -1.
 */
static int
find_denial(const struct val_nrec *recs, size_t n, const uint8_t *name)
{
	size_t i;
	for(i = 0; i < n; i++) {
		if(val_nsec_covers(&recs[i], name) &&
			!val_nsec_is_ent(&recs[i], name) &&
			nsec_may_deny_below(&recs[i], name))
			return (int)i;
	}
	return -1;
}

/** @return 1 when an NSEC has qname as owner */
static int
name_has_nsec(const struct val_nrec *recs, size_t n, const uint8_t *qname)
{
	size_t i;
	for(i = 0; i < n; i++)
		if(dname_equal(recs[i].owner, qname))
			return 1;
	return 0;
}

/**
 * Write "*." + the suffix of name with ce labels into out.
 * @return 0, or -1 when the result would be too long.
 */
static int
make_wildcard(const uint8_t *name, int ce, uint8_t *out)
{
	const uint8_t *suf = dname_suffix_labels(name, ce);
	size_t sl = dname_len(suf);
	if(sl + 2 > DNS_MAX_NAME)
		return -1;
	out[0] = 1;
	out[1] = '*';
	memcpy(out + 2, suf, sl);
	return 0;
}

int
val_nsec_prove_nxdomain(const struct val_nrec *recs, size_t n,
	const uint8_t *qname)
{
	uint8_t wc[DNS_MAX_NAME + 2];
	size_t i;
	int d, ce;
	if(name_has_nsec(recs, n, qname))
		return VAL_PROOF_BOGUS;
	for(i = 0; i < n; i++)
		if(val_nsec_is_ent(&recs[i], qname))
			return VAL_PROOF_BOGUS; /* it exists, empty */
	if((d = find_denial(recs, n, qname)) < 0)
		return VAL_PROOF_NONE;
	ce = val_nsec_closest_encloser(&recs[d], qname);
	if(ce < 0 || ce >= dname_count_labels(qname))
		return VAL_PROOF_NONE;
	if(make_wildcard(qname, ce, wc) != 0)
		return VAL_PROOF_NONE;
	if(name_has_nsec(recs, n, wc))
		return VAL_PROOF_BOGUS; /* the wildcard exists */
	if(find_denial(recs, n, wc) < 0)
		return VAL_PROOF_NONE;
	return VAL_PROOF_SECURE;
}

/**
 * Does a matching NSEC prove type is absent at its owner?
 * @return SECURE, BOGUS or NONE.
 */
static int
nodata_at(const struct val_nrec *r, uint16_t qtype, int is_root)
{
	const uint8_t *next, *bm;
	size_t bl;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0)
		return VAL_PROOF_NONE;
	if(val_bitmap_has(bm, bl, qtype))
		return VAL_PROOF_BOGUS;
	if(qtype != DNS_TYPE_CNAME && val_bitmap_has(bm, bl, DNS_TYPE_CNAME))
		return VAL_PROOF_BOGUS;
	if(qtype == DNS_TYPE_DS) {
		/* the child apex's NSEC cannot speak for the parent's DS */
		if(val_bitmap_has(bm, bl, DNS_TYPE_SOA) && !is_root)
			return VAL_PROOF_BOGUS;
	} else if(val_bitmap_has(bm, bl, DNS_TYPE_NS) &&
		!val_bitmap_has(bm, bl, DNS_TYPE_SOA)) {
		/* the parent side of a delegation: the data is below */
		return VAL_PROOF_NONE;
	}
	return VAL_PROOF_SECURE;
}

/**
 * Does an NSEC show that qname is in an unsigned child zone: it is an
 * insecure delegation (NS without DS and SOA) at qname or above it (for
 * a DS question strictly above: the DS of the delegation itself is the
 * parent's, proven absent by nodata_at)?
 */
static int
nsec_insecure_delegation(const struct val_nrec *r, const uint8_t *qname,
	uint16_t qtype)
{
	const uint8_t *next, *bm;
	size_t bl;
	if(val_nsec_parse(r->rdata, r->len, &next, &bm, &bl) != 0 ||
		!val_bitmap_has(bm, bl, DNS_TYPE_NS) ||
		val_bitmap_has(bm, bl, DNS_TYPE_DS) ||
		val_bitmap_has(bm, bl, DNS_TYPE_SOA))
		return 0;
	if(qtype == DNS_TYPE_DS)
		return dname_is_strict_subdomain(qname, r->owner);
	return dname_is_subdomain(qname, r->owner);
}

int
val_nsec_prove_nodata(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, uint16_t qtype)
{
	uint8_t wc[DNS_MAX_NAME + 2];
	size_t i;
	int d, ce, is_root = qname[0] == 0;
	for(i = 0; i < n; i++)
		if(nsec_insecure_delegation(&recs[i], qname, qtype))
			return VAL_PROOF_INSECURE;
	for(i = 0; i < n; i++)
		if(dname_equal(recs[i].owner, qname))
			return nodata_at(&recs[i], qtype, is_root);
	for(i = 0; i < n; i++)
		if(val_nsec_is_ent(&recs[i], qname) &&
			nsec_may_deny_below(&recs[i], qname))
			return VAL_PROOF_SECURE;
	/* wildcard NODATA: qname does not exist, the wildcard that would
	 * answer has no such type */
	if((d = find_denial(recs, n, qname)) < 0)
		return VAL_PROOF_NONE;
	ce = val_nsec_closest_encloser(&recs[d], qname);
	if(ce < 0 || ce >= dname_count_labels(qname) ||
		make_wildcard(qname, ce, wc) != 0)
		return VAL_PROOF_NONE;
	for(i = 0; i < n; i++)
		if(dname_equal(recs[i].owner, wc))
			return nodata_at(&recs[i], qtype, 0);
	return VAL_PROOF_NONE;
}

int
val_nsec_prove_wildcard(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, int wc_labels)
{
	size_t i;
	if(wc_labels >= dname_count_labels(qname))
		return VAL_PROOF_NONE; /* not an expansion */
	for(i = 0; i < n; i++) {
		if(val_nsec_covers(&recs[i], qname) &&
			!val_nsec_is_ent(&recs[i], qname) &&
			nsec_may_deny_below(&recs[i], qname) &&
			val_nsec_closest_encloser(&recs[i], qname) == wc_labels)
			return VAL_PROOF_SECURE;
	}
	return VAL_PROOF_NONE;
}

int
val_nsec_prove_no_ds(const struct val_nrec *recs, size_t n,
	const uint8_t *qname)
{
	size_t i;
	for(i = 0; i < n; i++) {
		const uint8_t *next, *bm;
		size_t bl;
		if(!dname_equal(recs[i].owner, qname))
			continue;
		if(val_nsec_parse(recs[i].rdata, recs[i].len, &next, &bm,
			&bl) != 0)
			return VAL_PROOF_NONE;
		if(val_bitmap_has(bm, bl, DNS_TYPE_DS))
			return VAL_PROOF_BOGUS;
		if(val_bitmap_has(bm, bl, DNS_TYPE_SOA) && qname[0] != 0)
			return VAL_PROOF_BOGUS;
		if(val_bitmap_has(bm, bl, DNS_TYPE_NS))
			return VAL_PROOF_INSECURE;
		return VAL_PROOF_SECURE;
	}
	for(i = 0; i < n; i++)
		if(val_nsec_is_ent(&recs[i], qname) &&
			nsec_may_deny_below(&recs[i], qname))
			return VAL_PROOF_SECURE;
	return VAL_PROOF_NONE;
}
