/*
 * validator/val_neg.c - aggressive use of validated NSEC (RFC 8198).
 *
 * See val_neg.h. Each entry is one record (an NSEC, or a zone's SOA) with
 * one RRSIG, copied into fixed buffers, with the absolute time its TTL
 * ends (the smaller of its TTL and the RRSIG's remaining validity) and the
 * time it may be used until (no later; for an NSEC also no later than the
 * SOA TTL and MINIMUM of its answer, RFC 9077). The lookup
 * finds the deepest zone with a live SOA above the name, the NSEC of that
 * zone at the name (NODATA) or covering it, then the NSEC covering the
 * wildcard at the closest encloser that covering NSEC shows, and gives the
 * records to val_nsec_prove_nxdomain() / val_nsec_prove_nodata(): only a
 * SECURE proof answers. The answer's TTLs are the remaining ones.
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include "validator/val_neg.h"
#include "validator/val_nsec.h"
#include "validator/val_crypto.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/region.h"
#include "util/locks.h"

/** one kept record */
struct neg_entry {
	/** in use */
	int used;
	/** DNS_TYPE_NSEC or DNS_TYPE_SOA */
	uint16_t type;
	/** when it may no longer be used (absolute) */
	uint32_t expire;
	/** when its own TTL ends (absolute): the TTL of the answers */
	uint32_t ttl_end;
	/** owner, lower case */
	uint8_t owner[256];
	/** the zone (the RRSIG signer), lower case */
	uint8_t zone[256];
	/** RDATA */
	uint8_t rdata[VAL_NEG_RDATA_MAX];
	/** its length */
	uint16_t rdlen;
	/** the RRSIG RDATA */
	uint8_t sig[VAL_NEG_RDATA_MAX];
	/** its length */
	uint16_t siglen;
};

struct val_neg {
	/** guards the entries */
	lock_basic_type lock;
	/** how many entries (neg-cache-size) */
	size_t max;
	/** the entries */
	struct neg_entry *e;
};

struct val_neg *
val_neg_create(void)
{
	return val_neg_create_size(VAL_NEG_MAX * sizeof(struct neg_entry));
}

size_t
val_neg_entry_size(void)
{
	return sizeof(struct neg_entry);
}

struct val_neg *
val_neg_create_size(size_t bytes)
{
	struct val_neg *n = calloc(1, sizeof(*n));
	if(!n)
		return NULL;
	n->max = bytes / sizeof(struct neg_entry);
	if(n->max < 1)
		n->max = 1;
	n->e = calloc(n->max, sizeof(struct neg_entry));
	if(!n->e) {
		free(n);
		return NULL;
	}
	lock_basic_init(&n->lock);
	return n;
}

void
val_neg_delete(struct val_neg *n)
{
	if(!n)
		return;
	lock_basic_destroy(&n->lock);
	free(n->e);
	free(n);
}

void
val_neg_clear(struct val_neg *n)
{
	size_t i;
	lock_basic_lock(&n->lock);
	for(i = 0; i < n->max; i++)
		n->e[i].used = 0;
	lock_basic_unlock(&n->lock);
}

size_t
val_neg_count(struct val_neg *n)
{
	size_t i, c = 0;
	lock_basic_lock(&n->lock);
	for(i = 0; i < n->max; i++)
		if(n->e[i].used)
			c++;
	lock_basic_unlock(&n->lock);
	return c;
}

int
val_neg_add(struct val_neg *n, const struct module_rr *rr,
	const struct module_rr *sig, uint32_t now, uint32_t use_max)
{
	uint8_t owner[256], zone[256];
	const uint8_t *signer;
	uint32_t ttl, rem, use;
	size_t i, slot = n->max;
	struct neg_entry *e;
	if((rr->type != DNS_TYPE_NSEC && rr->type != DNS_TYPE_SOA) ||
		rr->rrclass != DNS_CLASS_IN || rr->rdlen > VAL_NEG_RDATA_MAX ||
		sig->rdlen > VAL_NEG_RDATA_MAX || sig->rdlen <= VAL_RRSIG_FIXED ||
		rr->owner_len > 255)
		return -1;
	signer = sig->rdata + VAL_RRSIG_FIXED;
	if(dname_valid(signer, (size_t)sig->rdlen - VAL_RRSIG_FIXED) == 0 ||
		!dname_is_subdomain(rr->owner, signer))
		return -1;
	(void)dname_copy_lower(owner, rr->owner);
	(void)dname_copy_lower(zone, signer);
	if(rr->type == DNS_TYPE_SOA && !dname_equal(owner, zone))
		return -1;
	ttl = rr->ttl;
	rem = val_rrsig_remaining(sig->rdata, sig->rdlen, now);
	if(rem < ttl)
		ttl = rem;
	use = ttl < use_max ? ttl : use_max;
	if(use == 0)
		return -1;
	lock_basic_lock(&n->lock);
	/* the same record again, else a free slot, else the one that
	 * expires first */
	for(i = 0; i < n->max; i++) {
		e = &n->e[i];
		if(e->used && e->type == rr->type &&
			dname_equal(e->owner, owner) &&
			dname_equal(e->zone, zone)) {
			slot = i;
			break;
		}
		if(!e->used || e->expire <= now) {
			if(slot == n->max || n->e[slot].used)
				slot = i;
		} else if(slot == n->max || (n->e[slot].used &&
			e->expire < n->e[slot].expire))
			slot = i;
	}
	e = &n->e[slot];
	e->used = 1;
	e->type = rr->type;
	e->expire = now + use;
	e->ttl_end = now + ttl;
	memcpy(e->owner, owner, sizeof(owner));
	memcpy(e->zone, zone, sizeof(zone));
	memcpy(e->rdata, rr->rdata, rr->rdlen);
	e->rdlen = rr->rdlen;
	memcpy(e->sig, sig->rdata, sig->rdlen);
	e->siglen = sig->rdlen;
	lock_basic_unlock(&n->lock);
	return 0;
}

/** the wildcard name "*." + the last labs labels of name */
static void
make_wildcard(const uint8_t *name, int labs, uint8_t *wc)
{
	const uint8_t *suf = dname_suffix_labels(name, labs);
	size_t l = dname_len(suf);
	wc[0] = 1;
	wc[1] = '*';
	memcpy(wc + 2, suf, l);
}

/** @return 1 when the NSEC entry e shows name is an empty non-terminal */
static int
is_ent(const struct neg_entry *e, const uint8_t *name)
{
	struct val_nrec r;
	r.owner = e->owner;
	r.rdata = e->rdata;
	r.len = e->rdlen;
	return val_nsec_is_ent(&r, name);
}

/** append an entry and its RRSIG to the answer's authority section.
 * @return 0 or -1 */
static int
put_entry(struct region *r, struct mesh_answer *a, const struct neg_entry *e,
	uint32_t now)
{
	struct module_rr *rr, *sig;
	uint32_t ttl = e->ttl_end > now ? e->ttl_end - now : 0;
	rr = module_rr_new(r, e->owner, dname_len(e->owner), e->type,
		DNS_CLASS_IN, ttl, e->rdata, e->rdlen);
	sig = module_rr_new(r, e->owner, dname_len(e->owner), DNS_TYPE_RRSIG,
		DNS_CLASS_IN, ttl, e->sig, e->siglen);
	if(!rr || !sig)
		return -1;
	rr->sec = MODULE_SEC_SECURE;
	sig->sec = MODULE_SEC_SECURE;
	module_rrlist_append(&a->ns, rr);
	module_rrlist_append(&a->ns, sig);
	return 0;
}

int
val_neg_answer(struct val_neg *n, const uint8_t *qname, uint16_t qtype,
	uint32_t now, struct region *r, struct mesh_answer **out)
{
	const struct neg_entry *soa = NULL, *match = NULL, *cover = NULL,
		*wcov = NULL;
	struct val_nrec recs[2];
	size_t i, nr = 0;
	int ce, p, rcode, ret = 0;
	uint8_t wc[DNS_MAX_NAME + 2];
	struct mesh_answer *a;
	*out = NULL;
	if(qtype == DNS_TYPE_ANY || qtype == DNS_TYPE_RRSIG ||
		(qtype == DNS_TYPE_DS && qname[0] == 0))
		return 0; /* ANY, RRSIG: an NSEC at the name cannot deny
			   * them; the root's DS: no zone above */
	lock_basic_lock(&n->lock);
	for(i = 0; i < n->max; i++) {
		const struct neg_entry *e = &n->e[i];
		if(!e->used || e->expire <= now || e->type != DNS_TYPE_SOA ||
			!dname_is_subdomain(qname, e->zone))
			continue;
		/* a DS set is the parent's: its zone is strictly above */
		if(qtype == DNS_TYPE_DS && dname_equal(qname, e->zone))
			continue;
		if(!soa || dname_count_labels(e->zone) >
			dname_count_labels(soa->zone))
			soa = e;
	}
	if(!soa)
		goto done;
	for(i = 0; i < n->max && !match; i++) {
		const struct neg_entry *e = &n->e[i];
		struct val_nrec nr1;
		if(!e->used || e->expire <= now || e->type != DNS_TYPE_NSEC ||
			!dname_equal(e->zone, soa->zone))
			continue;
		nr1.owner = e->owner;
		nr1.rdata = e->rdata;
		nr1.len = e->rdlen;
		if(dname_equal(e->owner, qname))
			match = e;
		else if(!cover && val_nsec_covers(&nr1, qname))
			cover = e;
	}
	if(match) {
		recs[0].owner = match->owner;
		recs[0].rdata = match->rdata;
		recs[0].len = match->rdlen;
		p = val_nsec_prove_nodata(recs, 1, qname, qtype);
		if(p != VAL_PROOF_SECURE)
			goto done;
		rcode = DNS_RCODE_NOERROR;
		nr = 1;
	} else if(qtype == DNS_TYPE_DS) {
		/* only the NSEC at the cut denies its DS set (the one the
		 * key walk proved and kept, val_neg_add) */
		goto done;
	} else if(cover && is_ent(cover, qname)) {
		/* an empty non-terminal: the NSEC covering it has a next
		 * name below it (NODATA, RFC 4035 3.1.3.2) */
		recs[0].owner = cover->owner;
		recs[0].rdata = cover->rdata;
		recs[0].len = cover->rdlen;
		if(val_nsec_prove_nodata(recs, 1, qname, qtype) !=
			VAL_PROOF_SECURE)
			goto done;
		rcode = DNS_RCODE_NOERROR;
		match = cover;
		nr = 1;
	} else if(cover) {
		recs[0].owner = cover->owner;
		recs[0].rdata = cover->rdata;
		recs[0].len = cover->rdlen;
		ce = val_nsec_closest_encloser(&recs[0], qname);
		if(ce < 0 || ce < dname_count_labels(soa->zone))
			goto done;
		make_wildcard(qname, ce, wc);
		for(i = 0; i < n->max; i++) {
			const struct neg_entry *e = &n->e[i];
			struct val_nrec nr1;
			if(!e->used || e->expire <= now ||
				e->type != DNS_TYPE_NSEC ||
				!dname_equal(e->zone, soa->zone))
				continue;
			nr1.owner = e->owner;
			nr1.rdata = e->rdata;
			nr1.len = e->rdlen;
			if(val_nsec_covers(&nr1, wc)) {
				wcov = e;
				break;
			}
		}
		if(!wcov)
			goto done;
		nr = 1;
		if(wcov != cover) {
			recs[1].owner = wcov->owner;
			recs[1].rdata = wcov->rdata;
			recs[1].len = wcov->rdlen;
			nr = 2;
		}
		if(val_nsec_prove_nxdomain(recs, nr, qname) != VAL_PROOF_SECURE)
			goto done;
		rcode = DNS_RCODE_NXDOMAIN;
	} else	goto done;
	/* the order Unbound writes (val_neg_getmsg): the NSEC denying the
	 * wildcard (when another one), the NSEC at or covering the name,
	 * then the SOA */
	a = region_alloc_zero(r, sizeof(*a));
	if(!a || (nr == 2 && put_entry(r, a, wcov, now) != 0) ||
		put_entry(r, a, match ? match : cover, now) != 0 ||
		put_entry(r, a, soa, now) != 0) {
		ret = -1;
		goto done;
	}
	a->rcode = rcode;
	a->ede = -1;
	a->sec = MODULE_SEC_SECURE;
	*out = a;
	ret = 1;
done:
	lock_basic_unlock(&n->lock);
	return ret;
}
