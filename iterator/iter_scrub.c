/*
 * iterator/iter_scrub.c - what the iterator believes of a reply.
 *
 * See iter_scrub.h. Records are ldns_rr in ldns_rr_lists (the reply as
 * ldns parsed it); names are compared as lower-case wire names.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iter_scrub.h"
#include "iterator/iterator.h"
#include "iterator/iter_env.h"
#include "dns/dns.h"
#include "dns/name.h"

/** wire name of an ldns dname rdf (not lower-cased; points into rdf) */
static const uint8_t *
rdf_wire(const ldns_rdf *d)
{
	return ldns_rdf_data(d);
}

/** is the rdf a valid dname */
static int
rdf_is_dname(const ldns_rdf *d)
{
	return d && ldns_rdf_get_type(d) == LDNS_RDF_TYPE_DNAME &&
		ldns_rdf_size(d) >= 1 && ldns_rdf_size(d) <= 255;
}

/** @return 1 when rr's owner equals the wire name */
static int
rr_owner_is(const ldns_rr *rr, const uint8_t *name)
{
	return rdf_is_dname(ldns_rr_owner(rr)) &&
		dname_equal(rdf_wire(ldns_rr_owner(rr)), name);
}

/** drop records not under zone from a list (scrub for bailiwick) */
void
iter_scrub_zone(ldns_rr_list *l, const uint8_t *zone)
{
	size_t i = 0;
	while(i < ldns_rr_list_rr_count(l)) {
		ldns_rr *rr = ldns_rr_list_rr(l, i);
		if(!rdf_is_dname(ldns_rr_owner(rr)) ||
			!dname_is_subdomain(rdf_wire(ldns_rr_owner(rr)), zone) ||
			ldns_rr_get_type(rr) == LDNS_RR_TYPE_OPT) {
			/* remove by swapping in the last one keeps order
			 * poorly; shift instead */
			size_t n = ldns_rr_list_rr_count(l), j;
			for(j = i; j + 1 < n; j++)
				ldns_rr_list_set_rr(l,
					ldns_rr_list_rr(l, j + 1), j);
			ldns_rr_list_set_rr_count(l, n - 1);
			ldns_rr_free(rr);
			continue;
		}
		i++;
	}
}

/** remove A/AAAA in private ranges, unless under a private-domain.
 * @return number removed */
int
iter_scrub_private(struct iter_env *env, ldns_rr_list *l)
{
	size_t i = 0;
	int removed = 0;
	if(!env->priv)
		return 0;
	while(i < ldns_rr_list_rr_count(l)) {
		ldns_rr *rr = ldns_rr_list_rr(l, i);
		ldns_rdf *d = ldns_rr_rdf(rr, 0);
		struct netaddr na;
		int bad = 0;
		if(d && iter_addr_from_rdata(&na, (uint16_t)ldns_rr_get_type(rr),
			ldns_rdf_data(d), ldns_rdf_size(d)) == 0)
			bad = 1;
		if(bad && iter_addr_private(env, &na) &&
			!iter_name_privdom(env, rdf_wire(ldns_rr_owner(rr)))) {
			size_t n = ldns_rr_list_rr_count(l), j;
			for(j = i; j + 1 < n; j++)
				ldns_rr_list_set_rr(l,
					ldns_rr_list_rr(l, j + 1), j);
			ldns_rr_list_set_rr_count(l, n - 1);
			ldns_rr_free(rr);
			removed++;
			continue;
		}
		i++;
	}
	return removed;
}

/** append a clone of rr to list; @return 0 or -1 */
int
iter_list_push_clone(ldns_rr_list *l, const ldns_rr *rr)
{
	ldns_rr *c = ldns_rr_clone(rr);
	if(!c)
		return -1;
	if(!ldns_rr_list_push_rr(l, c)) {
		ldns_rr_free(c);
		return -1;
	}
	return 0;
}

/** synthesise the CNAME for name from a DNAME; @return rr or NULL */
static ldns_rr *
scrub_synth_cname(const ldns_rr *dname, const uint8_t *name)
{
	const uint8_t *owner = rdf_wire(ldns_rr_owner(dname));
	ldns_rdf *target = ldns_rr_rdf(dname, 0);
	int keep = dname_count_labels(name) - dname_count_labels(owner);
	uint8_t out[512];
	size_t prefix = 0, tlen;
	const uint8_t *p = name;
	ldns_rr *rr;
	ldns_rdf *o, *t;
	int i;
	if(!rdf_is_dname(target) || keep <= 0)
		return NULL;
	for(i = 0; i < keep; i++)
		p += 1 + *p;
	prefix = (size_t)(p - name);
	tlen = ldns_rdf_size(target);
	if(prefix + tlen > 255)
		return NULL; /* YXDOMAIN: too long */
	memcpy(out, name, prefix);
	memcpy(out + prefix, ldns_rdf_data(target), tlen);
	rr = ldns_rr_new();
	if(!rr)
		return NULL;
	o = ldns_dname_new_frm_data((uint16_t)dname_len(name), name);
	t = ldns_dname_new_frm_data((uint16_t)(prefix + tlen), out);
	if(!o || !t) {
		ldns_rdf_deep_free(o);
		ldns_rdf_deep_free(t);
		ldns_rr_free(rr);
		return NULL;
	}
	ldns_rr_set_owner(rr, o);
	ldns_rr_set_type(rr, LDNS_RR_TYPE_CNAME);
	ldns_rr_set_class(rr, ldns_rr_get_class(dname));
	ldns_rr_set_ttl(rr, ldns_rr_ttl(dname));
	ldns_rr_push_rdf(rr, t);
	return rr;
}

/** append (clones of) the RRSIGs at owner covering type from list l.
 * @return 0 or -1 */
static int
scrub_push_sigs(ldns_rr_list *l, const uint8_t *owner, uint16_t type,
	ldns_rr_list *to)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(l); i++) {
		ldns_rr *rr = ldns_rr_list_rr(l, i);
		ldns_rdf *tc;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_RRSIG ||
			!rr_owner_is(rr, owner))
			continue;
		tc = ldns_rr_rrsig_typecovered(rr);
		if(!tc || (uint16_t)ldns_rdf2rr_type(tc) != type)
			continue;
		if(iter_list_push_clone(to, rr) < 0)
			return -1;
	}
	return 0;
}

/**
 * Walk the answer section from name along CNAME/DNAME records, appending
 * the links to chain and the final RRset (if any) to final.
 * @param ans: answer section (scrubbed).
 * @param name: start name; on return the end of the chain (buffer 256).
 * @param qtype: the type wanted.
 * @param chain: link records appended (clones).
 * @param final: the answer RRset appended (clones).
 * @param links: incremented per link; the walk stops past the limit.
 * @param dnssec: 1 to keep the RRSIGs of the sets taken (DO clients).
 * @return 0, or -1 on error (out of memory, loop, too long).
 */
int
iter_walk_chain(ldns_rr_list *ans, uint8_t *name, uint16_t qtype,
	ldns_rr_list *chain, ldns_rr_list *final, int *links, int dnssec)
{
	size_t i;
	for(;;) {
		int found = 0;
		for(i = 0; i < ldns_rr_list_rr_count(ans); i++) {
			ldns_rr *rr = ldns_rr_list_rr(ans, i);
			uint16_t t = (uint16_t)ldns_rr_get_type(rr);
			if(!rr_owner_is(rr, name))
				continue;
			if(t == qtype || (qtype == DNS_TYPE_ANY &&
				t != DNS_TYPE_RRSIG)) {
				if(iter_list_push_clone(final, rr) < 0)
					return -1;
				found = 1;
			}
		}
		if(found) {
			if(dnssec && qtype != DNS_TYPE_ANY &&
				scrub_push_sigs(ans, name, qtype, final) < 0)
				return -1;
			return 0;
		}
		/* a CNAME at name? */
		for(i = 0; i < ldns_rr_list_rr_count(ans); i++) {
			ldns_rr *rr = ldns_rr_list_rr(ans, i);
			ldns_rdf *t;
			if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_CNAME ||
				!rr_owner_is(rr, name))
				continue;
			t = ldns_rr_rdf(rr, 0);
			if(!rdf_is_dname(t))
				return -1;
			if(++(*links) > ITER_MAX_CNAME)
				return -1;
			if(iter_list_push_clone(chain, rr) < 0)
				return -1;
			if(dnssec && scrub_push_sigs(ans, name, DNS_TYPE_CNAME,
				chain) < 0)
				return -1;
			memcpy(name, ldns_rdf_data(t), ldns_rdf_size(t));
			dname_tolower(name);
			found = 1;
			break;
		}
		if(found)
			continue;
		/* a DNAME above name? */
		for(i = 0; i < ldns_rr_list_rr_count(ans); i++) {
			ldns_rr *rr = ldns_rr_list_rr(ans, i), *c;
			if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_DNAME ||
				!rdf_is_dname(ldns_rr_owner(rr)) ||
				!dname_is_strict_subdomain(name,
				rdf_wire(ldns_rr_owner(rr))))
				continue;
			if(++(*links) > ITER_MAX_CNAME)
				return -1;
			c = scrub_synth_cname(rr, name);
			if(!c)
				return -1;
			if(iter_list_push_clone(chain, rr) < 0 ||
				(dnssec && scrub_push_sigs(ans,
				rdf_wire(ldns_rr_owner(rr)), DNS_TYPE_DNAME,
				chain) < 0) ||
				!ldns_rr_list_push_rr(chain, c)) {
				ldns_rr_free(c);
				return -1;
			}
			memcpy(name, ldns_rdf_data(ldns_rr_rdf(c, 0)),
				ldns_rdf_size(ldns_rr_rdf(c, 0)));
			dname_tolower(name);
			found = 1;
			break;
		}
		if(!found)
			return 0;
	}
}

/** copy the SOA from authority for a negative answer, when its owner is
 * an ancestor of name; with dnssec also its RRSIG and the NSEC/NSEC3
 * records with their RRSIGs (the denial proofs for DO clients) */
int
iter_copy_soa(ldns_rr_list *auth, const uint8_t *name, ldns_rr_list *to,
	int dnssec)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr *rr = ldns_rr_list_rr(auth, i);
		uint16_t t = (uint16_t)ldns_rr_get_type(rr);
		if(t == DNS_TYPE_SOA) {
			if(!dname_is_subdomain(name,
				rdf_wire(ldns_rr_owner(rr))))
				continue;
			if(iter_list_push_clone(to, rr) < 0)
				return -1;
			if(dnssec && scrub_push_sigs(auth,
				rdf_wire(ldns_rr_owner(rr)), t, to) < 0)
				return -1;
		} else if(dnssec && (t == DNS_TYPE_NSEC ||
			t == DNS_TYPE_NSEC3)) {
			if(iter_list_push_clone(to, rr) < 0 || scrub_push_sigs(auth,
				rdf_wire(ldns_rr_owner(rr)), t, to) < 0)
				return -1;
		}
	}
	return 0;
}

/** does authority have an SOA */
int
iter_has_soa(ldns_rr_list *auth)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(auth); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(auth, i)) ==
			LDNS_RR_TYPE_SOA)
			return 1;
	return 0;
}

/** find the referral NS owner in authority: the deepest NS owner that is
 * an ancestor-or-self of name. @return rr or NULL */
ldns_rr *
iter_find_ns(ldns_rr_list *auth, const uint8_t *name)
{
	size_t i;
	ldns_rr *best = NULL;
	for(i = 0; i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr *rr = ldns_rr_list_rr(auth, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS)
			continue;
		if(!dname_is_subdomain(name, rdf_wire(ldns_rr_owner(rr))))
			continue;
		if(!best || dname_count_labels(rdf_wire(ldns_rr_owner(rr))) >
			dname_count_labels(rdf_wire(ldns_rr_owner(best))))
			best = rr;
	}
	return best;
}


void
iter_scrub_reply(ldns_pkt *p, const uint8_t *zone, struct iter_env *env)
{
	if(zone) {
		iter_scrub_zone(ldns_pkt_answer(p), zone);
		iter_scrub_zone(ldns_pkt_authority(p), zone);
		iter_scrub_zone(ldns_pkt_additional(p), zone);
	}
	(void)iter_scrub_private(env, ldns_pkt_answer(p));
}

enum iter_class
iter_classify(ldns_pkt *p, uint8_t *name, uint16_t qtype,
	const uint8_t *zone, int forward, ldns_rr_list *chain,
	ldns_rr_list *final, int *links, int dnssec, ldns_rr **nsrr)
{
	ldns_rr_list *auth = ldns_pkt_authority(p);
	int rcode = (int)ldns_pkt_get_rcode(p);
	uint8_t start[256];
	ldns_rr *ns;
	*nsrr = NULL;
	memcpy(start, name, dname_len(name));
	if(iter_walk_chain(ldns_pkt_answer(p), name, qtype, chain, final,
		links, dnssec) < 0)
		return ITER_CL_ERROR;
	if(forward) {
		/* a forwarder answers recursively: taken as it is */
		if(ldns_rr_list_rr_count(final) > 0)
			return ITER_CL_ANSWER;
		return rcode == DNS_RCODE_NXDOMAIN ? ITER_CL_NXDOMAIN :
			ITER_CL_NODATA;
	}
	if(ldns_rr_list_rr_count(final) > 0)
		return ITER_CL_ANSWER;
	if(!dname_equal(name, start)) {
		/* the chain moved to a new name: the server may say what
		 * is there when it is authoritative for it */
		if(rcode == DNS_RCODE_NXDOMAIN)
			return ITER_CL_NXDOMAIN;
		if(ldns_pkt_aa(p) && iter_has_soa(auth) &&
			dname_is_subdomain(name, zone))
			return ITER_CL_NODATA;
		return ITER_CL_CNAME;
	}
	if(rcode == DNS_RCODE_NXDOMAIN)
		return ITER_CL_NXDOMAIN;
	ns = iter_find_ns(auth, name);
	if(ns && (!ldns_pkt_aa(p) || !iter_has_soa(auth)) &&
		ldns_rr_list_rr_count(ldns_pkt_answer(p)) == 0 &&
		(!ldns_pkt_aa(p) || dname_is_strict_subdomain(
		rdf_wire(ldns_rr_owner(ns)), zone))) {
		/* a referral (some servers set AA on referrals too); one
		 * that is not below the zone is upward or sideways: lame */
		if(dname_is_strict_subdomain(rdf_wire(ldns_rr_owner(ns)),
			zone)) {
			*nsrr = ns;
			return ITER_CL_REFERRAL;
		}
		return ITER_CL_LAME;
	}
	if(ldns_pkt_aa(p) || iter_has_soa(auth))
		return ITER_CL_NODATA;
	return ITER_CL_LAME;
}

const char *
iter_class_str(enum iter_class c)
{
	switch(c) {
	case ITER_CL_ANSWER: return "answer";
	case ITER_CL_CNAME: return "cname";
	case ITER_CL_REFERRAL: return "referral";
	case ITER_CL_NXDOMAIN: return "nxdomain";
	case ITER_CL_NODATA: return "nodata";
	case ITER_CL_LAME: return "lame";
	case ITER_CL_ERROR: return "error";
	}
	return "?";
}
