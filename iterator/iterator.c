/*
 * iterator/iterator.c - the iterator module: iterative resolution for one
 * query state.
 *
 * See iterator.h for the design. Upstream replies are parsed by dns/
 * msgparse (iter_reply_parse) into records in the state's region; names
 * kept by the iterator are lower-case uncompressed wire format; the
 * records it collects (struct module_rr) live in the state's region too,
 * so nothing is freed record by record.
 */
#include "config.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "iterator/iterator.h"
#include "iterator/iter_env.h"
#include "iterator/iter_ratelimit.h"
#include "iterator/iter_scrub.h"
#include "services/module.h"
#include "services/outbound.h"
#include "services/authzone.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgparse.h"
#include "util/region.h"
#include "util/random.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/store.h"
#include "dns/query.h"
#include "util/config_file.h"

static void iter_send(struct module_qstate *s);
static void iter_note_origin(struct module_qstate *s);
static void iter_handle_reply(struct module_qstate *s, const uint8_t *pkt,
	size_t len);
static void iter_finish(struct module_qstate *s, int rcode,
	const struct module_rrlist *final, const struct module_rrlist *auth,
	const struct module_rrlist *add, int forwarded);
static int iter_rpz_cname(struct module_qstate *s, const uint8_t *target);

/** the iterator's data of a state (it is the current module whenever
 * the iterator's functions run, except clear) */
#define IQ(s) ((struct iter_qstate *)(s)->minfo[(s)->curmod])

/** run the state again (after the current step) */
static void
iter_again(struct module_qstate *s)
{
	IQ(s)->again = 1;
}

/** env of a state */
static struct iter_env *
st_env(struct module_qstate *s)
{
	return (struct iter_env *)s->env->modinfo[s->curmod];
}

/** milliseconds since the state started */
static long
st_elapsed_ms(struct module_qstate *s)
{
	const struct timeval *now = s->env->now;
	return (long)(now->tv_sec - s->start.tv_sec) * 1000 +
		(long)(now->tv_usec - s->start.tv_usec) / 1000;
}

/** the name in a record's RDATA (NS, CNAME target), or NULL */
static const uint8_t *
rr_target(const struct module_rr *rr)
{
	if(rr->rdlen == 0 || dname_valid(rr->rdata, rr->rdlen) == 0)
		return NULL;
	return rr->rdata;
}

/** the worker's time in seconds */
static time_t
st_now(struct module_qstate *s)
{
	return s->env->now->tv_sec;
}

/** fill a netaddr (port 53) from A or AAAA rdata; @return 0 or -1 */
static int
addr_from_rdata(struct netaddr *na, uint16_t type, const uint8_t *d,
	size_t len)
{
	return iter_addr_from_rdata(na, type, d, len);
}

/** most RRs of one set stored in the RRset cache */
#define ITER_MAX_SET 64

/**
 * Store the RRsets of a list (or those with one owner, or one type) in the
 * RRset cache. Records of a set are grouped by owner, type and class.
 * @param s: the state.
 * @param l: the records.
 * @param trust: trust rank; RRSET_TRUST_NONE for the rank each set's
 *	first record is marked with (iter_mark_trust; unmarked sets are not
 *	stored).
 * @param only_type: 0 for all types, else only this type.
 */
static void
iter_store_list(struct module_qstate *s, const struct module_rrlist *l,
	enum rrset_trust trust, uint16_t only_type)
{
	struct rrset_cache *c = s->env->rrset;
	struct module_rr *first, *rr;
	size_t i, j, n;
	uint8_t *done;
	/* a refresh replaces the sets of an answer that are about to expire
	 * (services/cache/store.h), not those of a referral (the
	 * non-authoritative authority and additional ranks), as Unbound
	 * stores a referral without its leeway (iter_prefetch_fail.rpl) */
	time_t leeway = (IQ(s)->refresh && trust != RRSET_TRUST_AUTH_NOAA &&
		trust != RRSET_TRUST_ADD_NOAA) ? CACHE_REFRESH_LEEWAY : 0;
	if(!c || !l || (n = l->count) == 0 || s->no_cache_store)
		return; /* (forward-no-cache, stub-no-cache: nothing cached) */
	done = region_alloc_zero(s->region, n);
	if(!done)
		return;
	for(i = 0, first = l->first; first; i++, first = first->next) {
		const uint8_t *rd[ITER_MAX_SET];
		uint16_t rdlen[ITER_MAX_SET];
		struct rrset_data rs;
		size_t k = 0;
		if(done[i])
			continue;
		if(only_type && first->type != only_type)
			continue;
		if(first->type == DNS_TYPE_RRSIG || (trust ==
			RRSET_TRUST_NONE && first->trust == RRSET_TRUST_NONE))
			continue;
		memset(&rs, 0, sizeof(rs));
		rs.ttl = first->ttl;
		for(j = i, rr = first; rr; j++, rr = rr->next) {
			if(done[j] || rr->type != first->type ||
				rr->rrclass != first->rrclass ||
				!dname_equal(rr->owner, first->owner))
				continue;
			done[j] = 1;
			if(k >= ITER_MAX_SET)
				continue;
			rd[k] = rr->rdata;
			rdlen[k] = rr->rdlen;
			if(rr->ttl < rs.ttl)
				rs.ttl = rr->ttl;
			k++;
		}
		rs.name = first->owner;
		rs.name_len = first->owner_len;
		rs.type = first->type;
		rs.rrclass = first->rrclass;
		rs.trust = trust != RRSET_TRUST_NONE ? trust :
			(enum rrset_trust)first->trust;
		rs.sec = RRSET_SEC_UNCHECKED;
		rs.count = k;
		rs.rdata = rd;
		rs.rdlen = rdlen;
		/* an NS set not from a referral is compared at the time
		 * the query started (rrset_cache_store_answer) */
		(void)rrset_cache_store_answer(c, &rs, st_now(s), leeway,
			rs.trust == RRSET_TRUST_AUTH_NOAA ? st_now(s) :
			s->start.tv_sec);
	}
}

/**
 * Keep what a referral says of its cut's DS set (its DS, NSEC and NSEC3
 * records and their RRSIGs) for a module above (module.h: cut_proofs),
 * which may prove the DS set from them rather than ask the parent again.
 */
static void
iter_note_cut_proof(struct module_qstate *s, const struct module_rrlist *l)
{
	const struct module_rr *rr;
	if(!(s->flags & MESH_FLAG_DNSSEC) || (s->flags & MESH_FLAG_CD))
		return;
	for(rr = l->first; rr; rr = rr->next) {
		uint16_t t = rr->type;
		if(t == DNS_TYPE_RRSIG && rr->rdlen >= 2)
			t = (uint16_t)((rr->rdata[0] << 8) | rr->rdata[1]);
		if((t != DNS_TYPE_DS && t != DNS_TYPE_NSEC &&
			t != DNS_TYPE_NSEC3) || s->cut_proofs.count >=
			MODULE_CUT_PROOFS_MAX)
			continue;
		if(module_rrlist_push(s->region, &s->cut_proofs, rr) < 0)
			return;
	}
}

/**
 * Store one RRset of a list with the RRSIGs that cover it (the DS set or
 * the NSEC of a referral): the validator reads them from the RRset cache
 * instead of asking the parent again for the DS it was just given, as
 * Unbound does. Nothing is stored without a signature.
 */
static void
iter_store_signed(struct module_qstate *s, const struct module_rrlist *l,
	const uint8_t *owner, uint16_t type, enum rrset_trust trust)
{
	struct rrset_cache *c = s->env->rrset;
	const uint8_t *rd[ITER_MAX_SET];
	uint16_t rdlen[ITER_MAX_SET];
	struct rrset_data rs;
	struct module_rr *rr;
	size_t k = 0, nsig = 0;
	int pass;
	if(!c)
		return;
	memset(&rs, 0, sizeof(rs));
	rs.ttl = 0xffffffffu;
	/* the records first, then the signatures (rrset_data's layout) */
	for(pass = 0; pass < 2; pass++)
		for(rr = l->first; rr && k < ITER_MAX_SET; rr = rr->next) {
			if(!dname_equal(rr->owner, owner) || rr->rrclass !=
				DNS_CLASS_IN)
				continue;
			if(pass == 0 ? rr->type != type : (rr->type !=
				DNS_TYPE_RRSIG || rr->rdlen < 2 ||
				dns_read_u16(rr->rdata) != type))
				continue;
			rd[k] = rr->rdata;
			rdlen[k] = rr->rdlen;
			if(rr->ttl < rs.ttl)
				rs.ttl = rr->ttl;
			k++;
			if(pass == 1)
				nsig++;
		}
	if(nsig == 0 || k == nsig)
		return;
	rs.name = owner;
	rs.name_len = dname_len(owner);
	rs.type = type;
	rs.rrclass = DNS_CLASS_IN;
	rs.trust = trust;
	rs.sec = RRSET_SEC_UNCHECKED;
	rs.count = k - nsig;
	rs.sig_count = nsig;
	rs.rdata = rd;
	rs.rdlen = rdlen;
	(void)rrset_cache_store(c, &rs, st_now(s));
}

/** mark the records of a list not yet marked for the RRset cache with a
 * trust rank (they are stored when the answer is finished) */
static void
iter_mark_trust(struct module_rrlist *l, enum rrset_trust trust)
{
	struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->trust == RRSET_TRUST_NONE)
			rr->trust = (uint8_t)trust;
}

/** most parent-side glue addresses kept per NS name */
#define ITER_PARENT_GLUE_MAX 4

/** keep an address as parent-side glue of an NS name (the last resort,
 * iter_parent_glue), without duplicates; at most ITER_PARENT_GLUE_MAX */
static void
ns_add_parent(struct region *r, struct delegpt_ns *ns,
	const struct netaddr *na)
{
	int i;
	for(i = 0; i < ns->parent_n; i++)
		if(netaddr_cmp(&ns->parent[i], na) == 0)
			return;
	if(ns->parent_n >= ITER_PARENT_GLUE_MAX)
		return;
	if(!ns->parent) {
		ns->parent = region_alloc(r, sizeof(*ns->parent) *
			ITER_PARENT_GLUE_MAX);
		if(!ns->parent)
			return;
	}
	ns->parent[ns->parent_n++] = *na;
}

/** note that an address of a delegation is glue for an NS name */
static void
dp_note_glue(struct delegpt *dp, const struct netaddr *na,
	const uint8_t *name)
{
	struct delegpt_addr *a;
	for(a = dp->addrs; a; a = a->next)
		if(!a->glue_of && netaddr_cmp(&a->addr, na) == 0) {
			a->glue_of = name;
			return;
		}
}

/**
 * Note that an NS name has an address of na's family (from glue, the
 * cache or its lookup). Per family, as Unbound's got4/got6: while IPv4
 * is in use, the name needs no lookup (resolved) only once it has an
 * IPv4 address; IPv6 glue alone leaves its A missing
 * (iter_failreply.rpl: an NS name whose only glue is an unusable ::1 is
 * looked up for its A). Without IPv4 an IPv6 address does. (The AAAA
 * half of the rule, IPv4 glue alone leaving the AAAA missing, is only
 * the last resort here, iter_start_aaaa_targets: as a rule it would
 * have target-fetch-policy look up the AAAA of every NS name with IPv4
 * glue alone.)
 */
static void
ns_note_family(const struct iter_env *env, struct delegpt_ns *ns,
	const struct netaddr *na)
{
	if(!iter_addr_family_ok(env, na))
		return;
	if(netaddr_family(na) == AF_INET)
		ns->got4 = 1;
	else if(netaddr_family(na) == AF_INET6)
		ns->got6 = 1;
	if(ns->got4 || (!(env->do_ip4 || env->do_nat64) && ns->got6))
		ns->resolved = 1;
}

/** build a delegation point from a cached delegation */
static struct delegpt *
dp_from_cache(struct module_qstate *s, struct rrset_delegation *d)
{
	struct delegpt *dp = delegpt_create(s->region, d->ns.name);
	size_t i, j;
	if(!dp)
		return NULL;
	dp->expire = d->ns.expire;
	for(i = 0; i < d->ns.count; i++) {
		if(dname_valid(d->ns.rdata[i], d->ns.rdlen[i]) == 0)
			continue;
		if(!delegpt_add_ns(dp, s->region, d->ns.rdata[i]))
			return NULL;
	}
	for(i = 0; i < d->glue_count; i++) {
		struct rrset_data *g = &d->glue[i];
		struct delegpt_ns *ns = delegpt_find_ns(dp, g->name);
		for(j = 0; j < g->count; j++) {
			struct netaddr na;
			if(addr_from_rdata(&na, g->type, g->rdata[j],
				g->rdlen[j]) < 0)
				continue;
			if(delegpt_add_addr(dp, s->region, &na) < 0)
				return NULL;
			if(ns) {
				ns_note_family(st_env(s), ns, &na);
				dp_note_glue(dp, &na, ns->name);
			}
		}
	}
	return dp;
}

/**
 * Add the addresses the RRset cache holds for an NS name (A and AAAA) to
 * the delegation.
 * @param name: the NS name.
 * @param usable_only: add only addresses of a family in use (do-ip4,
 *	do-ip6); else every one.
 * @param note: the name's entry, told of the families found
 *	(ns_note_family), or NULL.
 * @param pside: 1 for the parent-side copies of the sets.
 * @return number of addresses added.
 */
static int
iter_ns_cached_addrs_side(struct module_qstate *s, const uint8_t *name,
	int usable_only, struct delegpt_ns *note, int pside)
{
	struct iter_qstate *iq = IQ(s);
	struct rrset_cache *c = s->env->rrset;
	static const uint16_t types[2] = {DNS_TYPE_A, DNS_TYPE_AAAA};
	int added = 0, t;
	if(!c)
		return 0;
	for(t = 0; t < 2; t++) {
		struct rrset_data rs;
		size_t j;
		if((pside ? rrset_cache_lookup_pside(c, name, types[t],
			DNS_CLASS_IN, st_now(s), s->region, &rs) :
			rrset_cache_lookup(c, name, types[t], DNS_CLASS_IN,
			st_now(s), s->region, &rs)) < 0)
			continue;
		for(j = 0; j < rs.count; j++) {
			struct netaddr na;
			int ok;
			if(addr_from_rdata(&na, rs.type, rs.rdata[j],
				rs.rdlen[j]) < 0)
				continue;
			ok = iter_addr_family_ok(st_env(s), &na);
			if(usable_only && !ok)
				continue;
			if(delegpt_add_addr(iq->dp, s->region, &na) == 0)
				added++;
			if(note)
				ns_note_family(st_env(s), note, &na);
		}
	}
	return added;
}

/** iter_ns_cached_addrs_side for the name's own sets */
static int
iter_ns_cached_addrs(struct module_qstate *s, const uint8_t *name,
	int usable_only, struct delegpt_ns *note)
{
	return iter_ns_cached_addrs_side(s, name, usable_only, note, 0);
}

/** look the addresses of NS names up in the RRset cache.
 * @return number of addresses added */
static int
iter_targets_from_cache(struct module_qstate *s)
{
	struct delegpt_ns *ns;
	int added = 0;
	for(ns = IQ(s)->dp->nslist; ns; ns = ns->next) {
		if(ns->resolved)
			continue;
		added += iter_ns_cached_addrs(s, ns->name, 0, ns);
	}
	return added;
}

/**
 * Last resort before a delegation is given up, once per delegation: the
 * parent zone's glue for its NS names that their address lookups saw
 * (delegpt_ns.parent, see iter_inform_super), and the addresses the
 * RRset cache holds for them, whatever their trust. When the child's own
 * answer for a server's address is wrong or fails (its zone's servers
 * lame for the name, or silent at the address they give), the parent's
 * glue may still lead to a working server (Unbound's parent-side
 * fallback).
 * @return number of new addresses.
 */
static int
iter_parent_glue(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct delegpt_ns *ns;
	int added = 0;
	if(iq->dp->is_forward || iq->dp->parent_glue_done)
		return 0;
	iq->dp->parent_glue_done = 1;
	for(ns = iq->dp->nslist; ns; ns = ns->next) {
		int t;
		if(ns->pending)
			continue;
		for(t = 0; t < ns->parent_n; t++)
			if(iter_addr_family_ok(st_env(s), &ns->parent[t]) &&
				delegpt_add_addr(iq->dp, s->region,
				&ns->parent[t]) == 0)
				added++;
		added += iter_ns_cached_addrs(s, ns->name, 1, NULL);
		/* and the glue the parent gave for it, kept apart from
		 * the child's answer for the name */
		added += iter_ns_cached_addrs_side(s, ns->name, 1, NULL, 1);
	}
	if(added > 0)
		verbose(VERB_ALGO, "iterator: %d server addresses from the "
			"cache (parent-side glue) as a last resort", added);
	return added;
}

/** the class resolved for a state's question (class ANY is not resolved
 * itself: its sub-queries are, one per class, see iter_collect_start) */
static uint16_t
iter_qclass(const struct module_qstate *s)
{
	return s->qclass == DNS_CLASS_ANY ? DNS_CLASS_IN : s->qclass;
}

/** set up the iterator's data of a new state; @return 0 or -1 */
static int
iter_new_state(struct module_qstate *s, int id)
{
	struct iter_qstate *iq = region_alloc_zero(s->region, sizeof(*iq));
	if(!iq)
		return -1;
	memcpy(iq->qname, s->qname, s->qname_len);
	iq->qname_len = s->qname_len;
	iq->qtype = s->qtype;
	iq->qclass = iter_qclass(s);
	iq->ede = -1;
	iq->phase = ITER_INIT;
	iq->refresh = s->prefetch && !(s->flags & MESH_FLAG_PROBE);
	s->minfo[id] = iq;
	return 0;
}

/** module clear(): cancel the query in flight (the records are in the
 * region) */
static void
iter_clear(struct module_qstate *s, int id)
{
	struct iter_qstate *iq = s->minfo[id];
	if(!iq)
		return;
	if(iq->oq) {
		s->env->cancel_query(s, iq->oq);
		iq->oq = NULL;
	}
	s->minfo[id] = NULL;
}

/** finish with SERVFAIL */
static void
iter_fail(struct module_qstate *s, int ede)
{
	if(verbosity >= VERB_ALGO) {
		char n[DNS_MAX_NAME_STR], t[16];
		(void)dname_to_str(s->qname, n, sizeof(n));
		verbose(VERB_ALGO, "iterator: %s %s fails (EDE %d, %d sent)",
			n, dns_type_str(s->qtype, t, sizeof(t)), ede,
			IQ(s)->sends);
	}
	IQ(s)->phase = ITER_DONE;
	s->return_msg = NULL;
	s->return_rcode = DNS_RCODE_SERVFAIL;
	s->ede = ede;
	s->ext_state[s->curmod] = MODULE_ERROR;
}

/** number of labels to send with qname minimisation, 0 for full */
static void
iter_qmin_reset(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	if(!st_env(s)->qname_min || iq->qmin_off || !iq->dp ||
		iq->dp->is_forward) {
		iq->qmin_labels = 0;
		return;
	}
	iq->qmin_labels = dname_count_labels(iq->dp->name) + 1;
	if(iq->qmin_labels >= dname_count_labels(iq->qname))
		iq->qmin_labels = 0;
}

/**
 * Start a background priming query ("zone NS" to the servers the zone is
 * configured with: the root hints, or a stub with stub-prime) whose answer
 * fills the RRset cache with the zone's real NS set and addresses.
 * @param s: the state that needs the zone.
 * @param zone: the zone name.
 * @param qclass: its class.
 */
static void
iter_prime(struct module_qstate *s, const uint8_t *zone, uint16_t qclass)
{
	if(!s->env->rrset)
		return;
	if(s->qtype == DNS_TYPE_NS && dname_equal(s->qname, zone))
		return; /* this is the priming query */
	/* the priming query asks the configured servers, never a
	 * forwarder */
	(void)s->env->add_background(s->env, zone, DNS_TYPE_NS, qclass,
		MESH_FLAG_RD | MESH_FLAG_NOFWD);
}

/**
 * A delegation from the cache is useless when it has no usable server
 * address and every NS name lies inside the zone (their addresses could
 * only come from the zone's own servers: a referral that lacked its
 * glue, or an empty NS set); resolution then starts from the delegation
 * above it, whose servers give the glue (Unbound's iter_dp_is_useless).
 * @return 1 when useless.
 */
static int
iter_dp_useless(struct module_qstate *s, const struct delegpt *dp)
{
	const struct delegpt_addr *a;
	const struct delegpt_ns *ns;
	for(a = dp->addrs; a; a = a->next)
		if(iter_addr_allowed(st_env(s), &a->addr))
			return 0;
	for(ns = dp->nslist; ns; ns = ns->next)
		if(!dname_is_subdomain(ns->name, dp->name))
			return 0;
	return 1;
}

/**
 * Whether the answers of a delegation's zone must be signed (for the
 * dnssec-lame check, iter_dnssec_lame): only when the validator has trust
 * anchors (module_env.dnssec_zone); a trust anchor at the zone, or a DS
 * set for it in the referral (auth), or without one in the RRset cache,
 * as Unbound's iter_indicates_dnssec.
 * @param auth: the referral's authority section, or NULL.
 */
static void
iter_dp_dnssec(struct module_qstate *s, struct delegpt *dp,
	const struct module_rrlist *auth)
{
	struct module_env *env = s->env;
	const struct module_rr *rr;
	struct rrset_data rs;
	dp->dnssec_expected = 0;
	/* (trust anchors are of class IN: another class's zones are not
	 * expected to be signed, as Unbound looks anchors up by class) */
	if(!env->dnssec_zone || dp->is_forward ||
		IQ(s)->qclass != DNS_CLASS_IN)
		return;
	if(env->dnssec_zone(env->dnssec_zone_arg, dp->name)) {
		dp->dnssec_expected = 1;
		return;
	}
	if(auth) {
		for(rr = auth->first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_DS &&
				dname_equal(rr->owner, dp->name))
				dp->dnssec_expected = 1;
		return;
	}
	if(env->rrset && rrset_cache_lookup(env->rrset, dp->name, DNS_TYPE_DS,
		DNS_CLASS_IN, st_now(s), s->region, &rs) == 0 && rs.count > 0)
		dp->dnssec_expected = 1;
}

/** @return 1 for a stub zone of the root: it stands in for the root
 * hints, and is primed (. NS asked of its servers) as they are, whatever
 * stub-prime says (as Unbound) */
static int
z_primes_root(const struct iter_zone *z)
{
	return !z->is_forward && z->len == 1;
}

/** find the starting delegation for the current name */
static int
iter_init_dp(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	/* a DS set is the parent's: its servers (and the stub or forward
	 * zone that holds the parent) are asked, not the child's, as
	 * Unbound does (a forward-zone for the child must not get it) */
	const uint8_t *zname = (iq->qtype == DNS_TYPE_DS && iq->qname_len > 1)
		? dname_strip_label(iq->qname) : iq->qname;
	/* (forward and stub zones are of class IN) */
	struct iter_zone *z = iq->qclass == DNS_CLASS_IN ?
		iter_env_find_zone(st_env(s), zname) : NULL;
	while(z && z->is_forward && (s->flags & MESH_FLAG_NOFWD))
		z = (z->len > 1) ? iter_env_find_zone(st_env(s),
			dname_strip_label(z->name)) : NULL;
	if(z && iq->skip_zone && z == iq->skipped) {
		/* forward-first/stub-first failed: the next zone up */
		z = (z->len > 1) ? iter_env_find_zone(st_env(s),
			dname_strip_label(z->name)) : NULL;
	}
	iq->dp = NULL;
	if((!z || !z->is_forward) && s->env->rrset && !iq->no_cache) {
		/* the closest delegation in the cache, when it is below the
		 * configured stub zone (if any) */
		struct rrset_delegation d;
		const uint8_t *name = iq->qname;
		/* a parent-side lookup starts from the zone above the
		 * closest delegation (Unbound's refetch_glue) */
		int up = (s->flags & MESH_FLAG_PSIDE) != 0;
		/* a refresh (prefetch, serve-expired) does not start from
		 * a delegation about to expire: its answer would be made
		 * from servers the parent may have moved the zone away from
		 * (iter_prefetch_change2.rpl), as Unbound looks it up */
		time_t at = st_now(s) + (iq->refresh ? CACHE_REFRESH_LEEWAY :
			0);
		if(iq->qtype == DNS_TYPE_DS && iq->qname_len > 1)
			name = dname_strip_label(iq->qname);
		while(rrset_cache_find_delegation(s->env->rrset, name,
			iq->qclass, at, s->region, &d) == 0 &&
			(!z || dname_is_strict_subdomain(d.ns.name, z->name) ||
			((z->prime || z_primes_root(z)) &&
			dname_equal(d.ns.name, z->name)))) {
			iq->dp = dp_from_cache(s, &d);
			if(iq->dp && d.ns.name_len <= 1 &&
				iter_dp_useless(s, iq->dp)) {
				/* the root's NS set without an address for any
				 * of its servers: the safety belt, the hints
				 * (or the root's stub zone), as Unbound */
				verbose(VERB_ALGO, "iterator: cached root NS "
					"set has no address: the hints");
				iq->dp = NULL;
				break;
			}
			if(up && iq->dp && d.ns.name_len > 1) {
				up = 0;
				iq->dp = NULL;
				name = dname_strip_label(d.ns.name);
				continue;
			}
			if(!iq->dp || d.ns.name_len <= 1 ||
				!iter_dp_useless(s, iq->dp))
				break;
			/* its servers can only be found through itself:
			 * the delegation above it (as Unbound) */
			if(verbosity >= VERB_ALGO) {
				char n[DNS_MAX_NAME_STR];
				(void)dname_to_str(d.ns.name, n, sizeof(n));
				verbose(VERB_ALGO, "iterator: cached delegation "
					"%s is useless (no address, its NS names "
					"inside it): the one above", n);
			}
			iq->dp = NULL;
			name = dname_strip_label(d.ns.name);
		}
		if(iq->dp) {
			iq->dp->from_cache = 1;
			z = NULL;
		}
	}
	if(!iq->dp && z) {
		iq->dp = iter_env_zone_dp(z, s->region);
		if(!z->is_forward && (z->prime || z_primes_root(z)))
			iter_prime(s, z->name, DNS_CLASS_IN);
	} else if(!iq->dp) {
		static const uint8_t root[1] = {0};
		iq->dp = iter_env_class_root_dp(st_env(s), iq->qclass,
			s->region);
		if(iq->dp && iq->dp->nslist)
			iter_prime(s, root, iq->qclass);
	}
	if(!iq->dp)
		return -1;
	iter_dp_dnssec(s, iq->dp, NULL);
	iq->dp_sends = 0;
	iq->zone = z;
	iter_qmin_reset(s);
	return 0;
}

/** a record for a cached RRset's RR i (its data, copied into the
 * region by the lookup, is shared); @return rr or NULL */
static struct module_rr *
rr_from_cache(struct module_qstate *s, const struct rrset_data *rs, size_t i)
{
	struct module_rr *rr = region_alloc_zero(s->region, sizeof(*rr));
	if(!rr)
		return NULL;
	rr->owner = rs->name;
	rr->owner_len = rs->name_len;
	rr->type = rs->type;
	rr->rrclass = rs->rrclass;
	rr->ttl = rs->ttl;
	rr->rdata = rs->rdata[i];
	rr->rdlen = rs->rdlen[i];
	return rr;
}

/**
 * May a cached RRset be given to this state? Any (learnt from answers,
 * as the lookups check) when it does not ask for DNSSEC; with DNSSEC only
 * one stored with its RRSIGs (the validator checks them again, with the
 * keys of its key cache), and none expanded from a wildcard (its RRSIG
 * has fewer labels than its owner: the proof that went with it, the
 * NSEC or NSEC3 of the authority section, is not in the RRset cache).
 * @return 1 when usable.
 */
static int
iter_cache_set_usable(const struct rrset_data *rs, int dnssec)
{
	size_t i;
	int labels;
	if(rs->trust < RRSET_TRUST_ANS_NOAA || rs->count == 0)
		return 0;
	if(!dnssec)
		return 1;
	if(rs->sig_count == 0)
		return 0;
	labels = dname_count_labels(rs->name) - 1;
	if(rs->name[0] == 1 && rs->name[1] == '*')
		labels--;
	for(i = rs->count; i < rs->count + rs->sig_count; i++)
		if(rs->rdlen[i] < 4 || rs->rdata[i][3] < labels)
			return 0;
	return 1;
}

/** append a cached set's records (and with dnssec its RRSIGs) to l;
 * @return 0 or -1 */
static int
iter_push_cached(struct module_qstate *s, const struct rrset_data *rs,
	int dnssec, struct module_rrlist *l)
{
	size_t i, n = rs->count + (dnssec ? rs->sig_count : 0);
	for(i = 0; i < n; i++) {
		struct module_rr *rr = rr_from_cache(s, rs, i);
		if(!rr)
			return -1;
		if(i >= rs->count)
			rr->type = DNS_TYPE_RRSIG;
		module_rrlist_append(l, rr);
	}
	return 0;
}

/**
 * A DNAME in the RRset cache above the name resolved now (the closest
 * one), when it was validated secure (as Unbound uses cached DNAMEs): its
 * CNAME for the name is made, and both join the chain; the name becomes
 * the CNAME's target. For a CNAME question that CNAME is the answer.
 * @return 1 when one was followed, 2 when the state was finished (a CNAME
 * question), 0 when there is none to follow.
 */
static int
iter_dname_from_cache(struct module_qstate *s, int dnssec)
{
	struct iter_qstate *iq = IQ(s);
	const uint8_t *anc = iq->qname;
	struct rrset_data rs;
	struct module_rr *cn;
	uint8_t target[512];
	size_t prefix, tlen;
	while(anc[0] != 0) {
		anc = dname_strip_label(anc);
		if(rrset_cache_lookup(s->env->rrset, anc, DNS_TYPE_DNAME,
			iq->qclass, st_now(s), s->region, &rs) == 0)
			break;
	}
	if(anc[0] == 0 && rrset_cache_lookup(s->env->rrset, anc,
		DNS_TYPE_DNAME, iq->qclass, st_now(s), s->region, &rs) != 0)
		return 0;
	if(rs.count != 1 || rs.sec != RRSET_SEC_SECURE ||
		!iter_cache_set_usable(&rs, dnssec) ||
		iq->cname_count >= st_env(s)->max_restarts ||
		(tlen = dname_valid(rs.rdata[0], rs.rdlen[0])) == 0)
		return 0;
	prefix = (size_t)(anc - iq->qname);
	if(prefix + tlen > 255)
		return 0;
	memcpy(target, iq->qname, prefix);
	memcpy(target + prefix, rs.rdata[0], tlen);
	cn = module_rr_new(s->region, iq->qname, iq->qname_len,
		DNS_TYPE_CNAME, iq->qclass, rs.ttl, target, prefix + tlen);
	if(!cn || iter_push_cached(s, &rs, dnssec, &iq->chain) < 0)
		return 0;
	if(iq->qtype == DNS_TYPE_CNAME) {
		/* the CNAME the DNAME makes is the answer */
		struct module_rrlist final;
		memset(&final, 0, sizeof(final));
		module_rrlist_append(&final, cn);
		iter_finish(s, DNS_RCODE_NOERROR, &final, NULL, NULL, 0);
		return 2;
	}
	module_rrlist_append(&iq->chain, cn);
	iq->dnssec_seen = 1; /* (a chain part from the cache: do_same) */
	iq->cname_count++;
	iq->qname_len = dname_copy_lower(iq->qname, target);
	return 1;
}

/**
 * The DS question at the end of a CNAME chain of a validated state
 * answered from the signed DS set in the RRset cache: the parent's, left
 * there by the referral to the zone (iter_store_signed) with its RRSIGs,
 * which the validator checks, as Unbound answers a DS question from its
 * cache. Not for the validator's own DS fetches (CD): when the cached set
 * did not do, they must ask the parent; nor for a DS question asked
 * directly, which still goes to the parent (a cached answer has no
 * servers to exclude, so a bad set would not be asked again).
 * @return 1 when the state was finished.
 */
static int
iter_ds_from_cache(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rrlist final;
	struct rrset_data rs;
	size_t i;
	if(!s->env->rrset || iq->qtype != DNS_TYPE_DS || s->prefetch ||
		s->tags || iq->chain.count == 0 ||
		!(s->flags & MESH_FLAG_DNSSEC) || (s->flags & MESH_FLAG_CD))
		return 0;
	if(rrset_cache_lookup(s->env->rrset, iq->qname, DNS_TYPE_DS,
		iq->qclass, st_now(s), s->region, &rs) != 0 || rs.count == 0 ||
		rs.sig_count == 0 || rs.trust < RRSET_TRUST_AUTH_NOAA)
		return 0;
	memset(&final, 0, sizeof(final));
	for(i = 0; i < rs.count + rs.sig_count; i++) {
		struct module_rr *rr = rr_from_cache(s, &rs, i);
		if(!rr)
			return 0;
		if(i >= rs.count)
			rr->type = DNS_TYPE_RRSIG;
		module_rrlist_append(&final, rr);
	}
	iter_finish(s, DNS_RCODE_NOERROR, &final, NULL, NULL, 0);
	return 1;
}

/**
 * Is the state's RRset (of the name it resolves now) answered from the
 * RRset cache? As Unbound's dns_cache_lookup makes answers from its RRset
 * cache: a DS or DNSKEY set, a CNAME question; and the names a CNAME or
 * DNAME chain reaches (Unbound reads its message cache for them, which
 * petrel's iterator does not). Any other question is answered from the
 * message cache only, by the front end: a message evicted from it is
 * asked again (Unbound's fwd_lrudrop.rpl), and a CNAME chain's target
 * finds its answer there (services/cache/store.h,
 * cache_store_chain_target; iter_rrset_answer.rpl).
 * @return 1 when it is.
 */
static int
iter_rrset_answers(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	return iq->qtype == DNS_TYPE_DS || iq->qtype == DNS_TYPE_DNSKEY ||
		iq->qtype == DNS_TYPE_CNAME || iq->chain.count > 0;
}

/**
 * Answer from the RRset cache: the question's RRset, or a CNAME chain
 * (followed in the cache, and through validated DNAMEs) ending at it,
 * learnt from answer sections (glue and referral data are never given as
 * answers). A state that asks for DNSSEC takes only sets stored with
 * their RRSIGs (iter_cache_set_usable), which the validator checks again.
 * When the chain leaves the cache, resolution goes on from its end.
 * @return 1 when the state was finished.
 */
static int
iter_answer_from_cache(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct rrset_cache *c = s->env->rrset;
	struct module_rrlist final;
	int dnssec = (s->flags & (MESH_FLAG_DO | MESH_FLAG_DNSSEC)) != 0;
	if(iter_ds_from_cache(s))
		return 1;
	if(!c || iq->qtype == DNS_TYPE_ANY || iq->qtype == DNS_TYPE_RRSIG ||
		s->prefetch || s->tags || (s->flags & MESH_FLAG_CD) ||
		iq->restarted)
		return 0; /* a refresh must ask; CD answers are kept apart;
			   * a client with NS-trigger tags must see the
			   * delegations (module_qstate.tags); a restarted
			   * state asks the servers */
	for(;;) {
		struct rrset_data rs;
		const struct iter_zone *z = st_env(s)->no_cache_zones ?
			iter_env_find_zone(st_env(s), iq->qname) : NULL;
		if(z && z->no_cache)
			return 0; /* forward-no-cache, stub-no-cache */
		/* (the others are answered from the message cache, which
		 * holds each chased target's answer as a message of its
		 * own: cache_store_chain_target) */
		if(iter_rrset_answers(s) && rrset_cache_lookup(c, iq->qname,
			iq->qtype, iq->qclass, st_now(s), s->region, &rs) == 0 &&
			iter_cache_set_usable(&rs, dnssec)) {
			memset(&final, 0, sizeof(final));
			if(iter_push_cached(s, &rs, dnssec, &final) < 0)
				return 0;
			iter_finish(s, DNS_RCODE_NOERROR, &final, NULL, NULL,
				0);
			return 1;
		}
		if(iq->qtype != DNS_TYPE_CNAME && rrset_cache_lookup(c,
			iq->qname, DNS_TYPE_CNAME, iq->qclass, st_now(s),
			s->region, &rs) == 0 && rs.count == 1 &&
			iter_cache_set_usable(&rs, dnssec) &&
			iq->cname_count < st_env(s)->max_restarts &&
			dname_valid(rs.rdata[0], rs.rdlen[0]) > 0) {
			if(iter_push_cached(s, &rs, dnssec, &iq->chain) < 0)
				return 0;
			/* (mesh_answer.do_same: a chain part from the
			 * cache, not known to be all a DO client gets) */
			iq->dnssec_seen = 1;
			iq->cname_count++;
			iq->qname_len = dname_copy_lower(iq->qname,
				rs.rdata[0]);
			if(iter_rpz_cname(s, iq->qname))
				return 1;
			continue;
		}
		switch(iter_dname_from_cache(s, dnssec)) {
		case 2:
			return 1; /* a CNAME question: answered */
		case 1:
			if(iter_rpz_cname(s, iq->qname))
				return 1;
			continue;
		default:
			break;
		}
		return 0;
	}
}

/** largest cached NXDOMAIN harden-below-nxdomain copies out (a denial
 * with its NSEC or NSEC3 proofs and their signatures; a larger one is
 * left alone and the name is resolved) */
#define ITER_BELOW_NX_MAX 8192

/**
 * harden-below-nxdomain (RFC 8020): a name below a name the cache holds
 * a DNSSEC-secure NXDOMAIN for does not exist either. The parents of
 * the question are looked up in the message cache (the same type, and
 * type A, as Unbound does, since minimised queries ask for A); the first
 * fresh, secure NXDOMAIN that is not a CNAME chain gives this state an
 * NXDOMAIN with that entry's authority section (the SOA and the NSEC or
 * NSEC3 proof, which also cover every name below). As in Unbound it
 * is handed up unchecked, so the validator checks the proof for this
 * name again. Only the DO entries are read: the others were stored
 * without their proofs (a client without DO gets none), and with no
 * validator in the chain nothing is secure, so this only runs for
 * states that ask for DNSSEC (MESH_FLAG_DNSSEC) without CD.
 * @return 1 when the state was finished.
 */
static int
iter_below_nxdomain(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct mcache *mc = s->env->mcache;
	const uint8_t *name = iq->qname;
	uint8_t buf[ITER_BELOW_NX_MAX];
	struct iter_reply rep;
	struct module_rr *rr;
	if(!mc || !s->env->cfg || !s->env->cfg->harden_below_nxdomain ||
		!(s->flags & MESH_FLAG_DNSSEC) || (s->flags & MESH_FLAG_CD) ||
		iq->chain.count > 0)
		return 0;
	while(name[0] != 0) {
		uint16_t types[2];
		int t, nt = 0;
		name = dname_strip_label(name);
		if(name[0] == 0)
			break; /* the root always exists */
		types[nt++] = iq->qtype;
		if(iq->qtype != DNS_TYPE_A)
			types[nt++] = DNS_TYPE_A;
		for(t = 0; t < nt; t++) {
			struct query_info qi;
			struct mcache_state st;
			size_t len = 0;
			if(query_info_set(&qi, name, types[t], iq->qclass) < 0 ||
				mcache_copy_msg(mc, &qi, 1, 0, st_now(s), buf,
				sizeof(buf), &len, &st) < 0)
				continue;
			if(st.rcode != DNS_RCODE_NXDOMAIN ||
				st.sec != MCACHE_SEC_SECURE ||
				iter_reply_parse(s->region, buf, len, &rep) != 0 ||
				rep.sec[DNS_SEC_ANSWER].count != 0)
				continue;
			/* the proof is not stored again (trust 0) */
			for(rr = rep.sec[DNS_SEC_AUTHORITY].first; rr;
				rr = rr->next) {
				rr->trust = 0;
				rr->sec = 0;
			}
			verbose(VERB_ALGO, "harden-below-nxdomain: a parent "
				"name is NXDOMAIN");
			iter_finish(s, DNS_RCODE_NXDOMAIN, NULL,
				&rep.sec[DNS_SEC_AUTHORITY], NULL, 0);
			return 1;
		}
	}
	return 0;
}

/**
 * A CNAME or DNAME target the chain reached (from a reply or from the
 * cache), answered from the validator's validated NSEC store (module_env.
 * neg_answer, RFC 8198) before it is asked upstream, as Unbound's
 * iterator reads its negative cache for the name it chases. Only for
 * states that ask for DNSSEC records without CD: the validator checks
 * the proof with the chain.
 * @return 1 when the state was finished.
 */
static int
iter_neg_target(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rrlist auth;
	int rcode = 0;
	if(!s->env->neg_answer || iq->chain.count == 0 ||
		!(s->flags & MESH_FLAG_DNSSEC) || (s->flags & MESH_FLAG_CD) ||
		iq->qclass != DNS_CLASS_IN || s->prefetch)
		return 0; /* (a refresh asks, as Unbound's prefetch skips
			   * the caches for the whole chain) */
	memset(&auth, 0, sizeof(auth));
	if(s->env->neg_answer(s->env->neg_answer_arg, s, iq->qname,
		iq->qtype, &rcode, &auth) != 1)
		return 0;
	verbose(VERB_ALGO, "iterator: the chased name is denied by a "
		"validated NSEC (aggressive NSEC)");
	iter_finish(s, rcode, NULL, &auth, NULL, 0);
	return 1;
}

/**
 * An NS name's address lookup (a sub-query for A or AAAA) whose name the
 * message cache holds as NXDOMAIN, fresh: finished with it at once, not
 * asked again, and not stored again (its entry keeps its own TTL). The
 * state is marked (iter_qstate.neg_cached): the state waiting on it does
 * not count the name against its NXNS bounds when every lookup of the
 * name was answered so (delegpt_ns.asked_upstream), as Unbound does not
 * count cached answers (iter_nxns_cached.rpl).
 * @return 1 when the state was finished.
 */
static int
iter_target_neg_cached(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct query_info qi;
	struct mcache_state st;
	if(!s->env->mcache || s->depth <= 0 ||
		(iq->qtype != DNS_TYPE_A && iq->qtype != DNS_TYPE_AAAA) ||
		(s->flags & (MESH_FLAG_VALSUB | MESH_FLAG_PROBE |
		MESH_FLAG_DO)) || ((s->flags & MESH_FLAG_DNSSEC) &&
		!(s->flags & MESH_FLAG_CD)) || s->prefetch)
		return 0;
	if(query_info_set(&qi, iq->qname, iq->qtype, iq->qclass) < 0 ||
		mcache_peek(s->env->mcache, &qi, (s->flags & MESH_FLAG_DO) != 0,
		(s->flags & MESH_FLAG_CD) != 0, st_now(s), &st) < 0 ||
		st.result != MCACHE_HIT || st.rcode != DNS_RCODE_NXDOMAIN)
		return 0;
	verbose(VERB_ALGO, "iterator: the NS name is NXDOMAIN in the "
		"message cache");
	iq->neg_cached = 1;
	s->no_cache_store = 1;
	iter_finish(s, DNS_RCODE_NXDOMAIN, NULL, NULL, NULL, 0);
	return 1;
}

/** run a state: send, wait, or finish, by its phase */
static void
iter_run(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	if(!iq)
		return;
	switch(iq->phase) {
	case ITER_INIT:
		/* (a parent-side lookup asks the servers: the caches hold
		 * the child's view, which failed) */
		if(!(s->flags & MESH_FLAG_PSIDE) && (iter_below_nxdomain(s) ||
			iter_answer_from_cache(s) || iter_neg_target(s) ||
			iter_target_neg_cached(s)))
			return;
		if(iter_init_dp(s) < 0) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		iq->phase = ITER_SEND;
		iter_send(s);
		return;
	case ITER_SEND:
		iter_send(s);
		return;
	case ITER_WAIT_REPLY:
	case ITER_DONE:
		return;
	}
}

/** @return 1 when a module above excluded this server for the state
 * (the servers of an answer found bogus, see module.h) */
static int
iter_excluded(const struct module_qstate *s, const struct netaddr *a)
{
	int i;
	for(i = 0; i < s->exclude_count; i++)
		if(netaddr_cmp(&s->exclude[i], a) == 0)
			return 1;
	return 0;
}

/** the origin noted for an answer an auth-zone copy gave (no server
 * has it: the unspecified address, port 0): a validator that finds such
 * an answer bogus excludes it when it restarts the query, and the
 * iterator then asks the zone's servers, when the zone has
 * fallback-enabled (as Unbound avoids the auth zone on a restart) */
static const struct netaddr *
iter_auth_origin(void)
{
	static const struct netaddr a = { .addr = { .ss_family = AF_INET6 },
		.len = (socklen_t)sizeof(struct sockaddr_in6) };
	return &a;
}

/** outbound-msg-retry: how often one server may be asked for a state
 * (at least once) */
static int
iter_max_attempts(struct module_qstate *s)
{
	int n = st_env(s)->msg_retry;
	return n < 1 ? 1 : n;
}

/** most candidates handed to the infrastructure cache at once */
#define ITER_MAX_CANDS 64

/**
 * Pick a server address. Candidates are the usable addresses tried the
 * fewest times (so every server is tried once before one is tried again;
 * with fresh_only, only those never tried);
 * among them the infrastructure cache picks by RTT band, skipping servers
 * lame for the zone; without it, one at random.
 * @param rto: set to the timeout to use.
 * @return addr or NULL.
 */
static struct delegpt_addr *
iter_pick_addr(struct module_qstate *s, int *rto, int fresh_only)
{
	struct iter_qstate *iq = IQ(s);
	struct infra_cache *infra = s->env->infra;
	struct delegpt_addr *a, *cand[ITER_MAX_CANDS];
	struct netaddr addrs[ITER_MAX_CANDS];
	int minatt = -1, i;
	size_t n = 0;
	*rto = st_env(s)->timeout_ms;
	if(iq->retry && !iq->retry->bad && !(s->exclude_count > 0 &&
		iter_excluded(s, &iq->retry->addr))) {
		if(infra)
			*rto = infra_get_rto(infra, &iq->retry->addr,
				st_now(s));
		return iq->retry;
	}
	for(a = iq->dp->addrs; a; a = a->next) {
		if(a->bad || !iter_addr_allowed(st_env(s), &a->addr) ||
			(fresh_only && a->attempts > 0) ||
			a->attempts >= iter_max_attempts(s))
			continue;
		if(s->exclude_count > 0 && iter_excluded(s, &a->addr)) {
			/* gave an answer the validator rejected */
			a->bad = 1;
			continue;
		}
		if(infra && !(s->flags & MESH_FLAG_PROBE) &&
			a->timeouts == 0 &&
			infra_is_down(infra, &a->addr, iq->qtype,
			st_now(s))) {
			/* known down: not waited on (see iterator.h) */
			a->bad = 1;
			iq->down_skipped++;
			iq->down_addr = a->addr;
			continue;
		}
		if(minatt < 0 || a->attempts < minatt) {
			minatt = a->attempts;
			n = 0;
		}
		if(a->attempts == minatt && n < ITER_MAX_CANDS) {
			cand[n] = a;
			addrs[n] = a->addr;
			n++;
		}
	}
	if(n == 0)
		return NULL;
	if(st_env(s)->prefer_family) {
		/* prefer-ip4 / prefer-ip6: the other family only when no
		 * candidate of this one is left */
		size_t k, m = 0;
		for(k = 0; k < n; k++)
			if(netaddr_family(&addrs[k]) ==
				st_env(s)->prefer_family) {
				cand[m] = cand[k];
				addrs[m] = addrs[k];
				m++;
			}
		if(m > 0)
			n = m;
	}
	if(!infra)
		return cand[random_uniform(s->env->rnd, (uint32_t)n)];
	i = infra_select(infra, addrs, n, iq->dp->is_forward ? NULL :
		iq->dp->name, st_now(s), s->env->rnd, rto);
	if(i < 0) {
		/* every candidate is lame for this zone */
		size_t k;
		for(k = 0; k < n; k++)
			cand[k]->bad = 1;
		return iter_pick_addr(s, rto, fresh_only);
	}
	return cand[i];
}

/**
 * The last resorts among the servers themselves, each such server once:
 * with dnssec 0, one that answered as a recursive server (RA without AA,
 * ITER_CL_RECLAME) is asked again, with RD set, and its reply taken as it
 * is, as a forwarder's (Unbound's "chase to recursion lame server"; not
 * for a forward zone); with dnssec 1, after those, one that answered
 * without signatures for a zone whose answers must be signed (dnssec
 * lame) is asked again and its reply taken unchecked (Unbound's "chase
 * to dnssec lame server"); the validator judges it.
 * @param dnssec: 0 for the recursion lame servers, 1 for the dnssec lame.
 * @param rto: set to the timeout to use.
 * @return the server, or NULL.
 */
static struct delegpt_addr *
iter_pick_lame(struct module_qstate *s, int dnssec, int *rto)
{
	struct iter_qstate *iq = IQ(s);
	struct delegpt_addr *a;
	if(!dnssec && iq->dp->is_forward)
		return NULL;
	for(a = iq->dp->addrs; a; a = a->next) {
		if((dnssec ? !a->dnsseclame || a->dnssec_chased :
			!a->reclame || a->rd_chased) ||
			!iter_addr_allowed(st_env(s), &a->addr) ||
			(s->exclude_count > 0 && iter_excluded(s, &a->addr)))
			continue;
		if(dnssec)
			a->dnssec_chased = 1;
		else	a->rd_chased = 1;
		*rto = s->env->infra ? infra_get_rto(s->env->infra, &a->addr,
			st_now(s)) : st_env(s)->timeout_ms;
		verbose(VERB_ALGO, "%s", dnssec ? "iterator: only dnssec lame "
			"servers left: taking one's reply unchecked" :
			"iterator: only recursion lame servers left: asking one "
			"with RD");
		return a;
	}
	return NULL;
}

/** NS names whose addresses one delegation may look up in all (the
 * NXNSAttack bound): ITER_MAX_TARGETS for a client query, half as many for
 * a lookup made for it, and so on down to 1, so that the work one client
 * query can cause stays bounded; none at or past the deepest dependency
 * target-fetch-policy allows (its number of values less one, as
 * Unbound's max dependency depth) */
static int
iter_max_targets(struct module_qstate *s)
{
	int depth = s->depth < 0 ? 0 : s->depth, n = ITER_MAX_TARGETS;
	if(depth >= st_env(s)->tfp_count - 1)
		return 0;
	n >>= (depth < 8 ? depth : 8);
	return n < 1 ? 1 : n;
}

/**
 * Whether the address lookups of a delegation's NS names bypass the
 * forward zones. A forward zone's host names (forward-host) are looked up
 * through its forwarders when it has a usable address of its own
 * (forward-addr), as Unbound does (an operator with only forwarders does
 * not want queries to the root); with none, through the root hints (the
 * forwarders cannot be asked yet). A state that bypasses them already
 * keeps doing so.
 * @return 1 for MESH_FLAG_NOFWD.
 */
static int
iter_target_nofwd(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	const struct delegpt_addr *a;
	if(s->flags & MESH_FLAG_NOFWD)
		return 1;
	if(!iq->dp->is_forward)
		return 0;
	for(a = iq->dp->addrs; a; a = a->next)
		if(!a->bad && iter_addr_allowed(st_env(s), &a->addr))
			return 0;
	return 1;
}

/**
 * Start address lookups for NS names without addresses.
 * @param s: the state.
 * @param want: how many new lookups to start at most (-1: as many as
 *	the delegation may: iter_max_targets).
 * @return number of lookups now in flight (new and pending)
 */
static int
iter_start_targets(struct module_qstate *s, int want)
{
	struct iter_qstate *iq = IQ(s);
	struct delegpt_ns *ns;
	int inflight = 0, started = 0;
	for(ns = iq->dp->nslist; ns; ns = ns->next) {
		struct module_qstate *sub;
		uint16_t qtype;
		if(ns->pending) {
			inflight++;
			continue;
		}
		if(ns->resolved || (want >= 0 && started >= want))
			continue;
		/* A first; AAAA when A gave nothing (or without IPv4); a
		 * family the name has an address of is not asked for
		 * (ns_note_family) */
		if(st_env(s)->do_ip4 && !ns->tried_a && !ns->got4)
			qtype = DNS_TYPE_A;
		else if(st_env(s)->do_ip6 && !ns->tried_aaaa && !ns->got6)
			qtype = DNS_TYPE_AAAA;
		else {
			ns->resolved = 1;
			continue;
		}
		/* (the AAAA asked after the A is not another name) */
		if(!ns->tried_a && !ns->tried_aaaa) {
			if(iq->dp->targets_started >= iter_max_targets(s))
				continue;
			iq->dp->targets_started++;
		}
		ns->resolved = 1;
		sub = s->env->attach_sub(s, ns->name, qtype, DNS_CLASS_IN,
			MESH_FLAG_RD | (iter_target_nofwd(s) ? MESH_FLAG_NOFWD :
			0));
		if(sub && sub->qtype == DNS_TYPE_A)
			ns->tried_a = 1;
		else if(sub)
			ns->tried_aaaa = 1;
		if(!sub)
			continue;
		ns->pending = 1;
		started++;
		inflight++;
	}
	return inflight;
}

/**
 * Last resort before a delegation is given up: the IPv6 addresses of NS
 * names whose glue gave only IPv4 ones (marked resolved by it, so never
 * looked up), all of them excluded (the servers of a bogus answer,
 * module_qstate.exclude), as Unbound counts a name with A glue alone as
 * a target still missing its AAAA (ds_wildcard_cname.rpl: the parent
 * that gave a bogus DS is asked again at its IPv6 address). Names whose
 * IPv4 servers merely failed are left as they are.
 * @return number of lookups now in flight.
 */
static int
iter_start_aaaa_targets(struct module_qstate *s)
{
	struct delegpt_ns *ns;
	const struct delegpt_addr *a;
	int n = 0;
	if(!st_env(s)->do_ip6 || !st_env(s)->do_ip4)
		return 0;
	for(ns = IQ(s)->dp->nslist; ns; ns = ns->next) {
		int has4 = 0, has6 = 0, usable4 = 0;
		if(!ns->resolved || ns->pending || ns->tried_a ||
			ns->tried_aaaa)
			continue;
		for(a = IQ(s)->dp->addrs; a; a = a->next)
			if(a->glue_of && dname_equal(a->glue_of, ns->name)) {
				if(a->addr.addr.ss_family == AF_INET6)
					has6 = 1;
				else	has4 = 1;
				if(a->addr.addr.ss_family != AF_INET6 &&
					!iter_excluded(s, &a->addr))
					usable4 = 1;
			}
		if(!has4 || has6 || usable4)
			continue; /* not glue, both families known, or an
				   * IPv4 address not excluded (which failed
				   * on its own: its AAAA is not sought) */
		/* (tried_a: the lookup is for AAAA) */
		ns->resolved = 0;
		ns->tried_a = 1;
		n++;
	}
	if(n == 0)
		return 0;
	return iter_start_targets(s, -1);
}

/**
 * The last resort once every server of a delegation learnt from a
 * referral failed, and the cache and the parent glue gave no other:
 * look the NS names' addresses up from the parent side (AAAA and A,
 * each once per name, one name at a time), as Unbound's
 * processLastResort does: lookups flagged MESH_FLAG_PSIDE, which skip
 * the caches and start from the zone above the name's closest cached
 * delegation, so that the parent's glue is asked afresh and the
 * servers it names are tried again for the name (iter_failreply.rpl).
 * Their addresses join the delegation (iter_inform_super). Only names
 * the NXNS bound let be looked up (or with glue), and each counts in
 * it (delegpt.targets_started), as in Unbound. Not for a
 * configured zone (stub, forward: nothing above is asked), the root, a
 * cached delegation (it is first abandoned for the one from the top),
 * a parent-side lookup itself, a state too deep for lookups, a state
 * with servers excluded by the validator (Unbound still picks those as
 * a last choice, so it never comes to this: serve_expired_val_bogus.rpl),
 * a delegation whose servers said NODATA without SOA (that answer is
 * taken: iter_nodata_nosoa.rpl), or a refresh (prefetch, serve-expired:
 * the cached answer is still served; and a lookup's answer, of higher
 * trust than the glue the next answer brings, would keep its earlier
 * expiry where Unbound renews equal data: iter_prefetch_fail.rpl step
 * 200, iter_prefetch_fail_no_pside.rpl).
 * @return number of lookups started.
 */
static int
iter_start_pside_targets(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct iter_env *env = st_env(s);
	struct delegpt_ns *ns;
	int n = 0, flags = MESH_FLAG_RD | MESH_FLAG_PSIDE |
		(iter_target_nofwd(s) ? MESH_FLAG_NOFWD : 0);
	if(iq->dp->is_forward || iq->dp->is_stub || iq->dp->len <= 1 ||
		(iq->dp->from_cache && !iq->no_cache) ||
		(s->flags & MESH_FLAG_PSIDE) || s->exclude_count > 0 ||
		(iq->empty_dp && iq->empty_dp == iq->dp) || iq->refresh ||
		iter_max_targets(s) == 0)
		return 0;
	for(ns = iq->dp->nslist; ns && n == 0; ns = ns->next) {
		const struct iter_zone *z = iter_env_find_zone(env, ns->name);
		/* (not resolved, not pending: the NXNS bound kept the name
		 * from being looked up, and it is not looked up from this
		 * side either; Unbound fails the query at that point, when
		 * query_for_targets is past MAX_DP_TARGET_COUNT, before any
		 * parent-side lookup: iter_pside_bound.rpl) */
		if(ns->pending || !ns->resolved)
			continue;
		if(z && z->len == ns->len) {
			/* the name is a configured zone: not above it */
			ns->done_pside4 = ns->done_pside6 = 1;
			continue;
		}
		if(env->do_ip6 && !ns->done_pside6) {
			ns->done_pside6 = 1;
			if(s->env->attach_sub(s, ns->name, DNS_TYPE_AAAA,
				DNS_CLASS_IN, flags))
				n++;
		}
		if(env->do_ip4 && !ns->done_pside4) {
			ns->done_pside4 = 1;
			if(s->env->attach_sub(s, ns->name, DNS_TYPE_A,
				DNS_CLASS_IN, flags))
				n++;
		}
		/* a name looked up counts in the bound, as Unbound's
		 * processLastResort counts its parent-side lookups
		 * (target_count_increase: once per name); it is not held
		 * back by it, as Unbound's are not (the names it looks up
		 * are those the bound let through) */
		if(n > 0)
			iq->dp->targets_started++;
		if(n > 0 && verbosity >= VERB_ALGO) {
			char nm[DNS_MAX_NAME_STR];
			(void)dname_to_str(ns->name, nm, sizeof(nm));
			verbose(VERB_ALGO, "iterator: last resort: %s looked "
				"up from the parent side", nm);
		}
	}
	return n;
}

/**
 * target-fetch-policy: the first time a delegation is used, look up the
 * addresses of as many of its NS names without glue as the policy says
 * for the state's depth (-1: all), while the query goes to a server whose
 * address is known (if any); those lookups make later choices better.
 */
static void
iter_fetch_ahead(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct iter_env *env = st_env(s);
	int depth = s->depth < 0 ? 0 : s->depth, want;
	if(iq->dp->fetched_ahead)
		return;
	iq->dp->fetched_ahead = 1;
	if(depth >= env->tfp_count - 1 || (want = env->tfp[depth]) == 0)
		return;
	(void)iter_targets_from_cache(s);
	verbose(VERB_ALGO, "iterator: target-fetch-policy: looking up %d "
		"more NS addresses", want);
	(void)iter_start_targets(s, want);
}

/**
 * auth-zone for-upstream (RFC 8806): when a zone copy holds the servers'
 * answer for the delegation point, or is a zone below it that holds the
 * name, take it as their reply, without sending. @return 1 when handled
 * (answered or failed), 0 to send.
 */
static int
iter_auth_zone(struct module_qstate *s)
{
	/* the reply is only read during iter_handle_reply; one buffer per
	 * thread (a worker runs one state at a time) */
	static __thread uint8_t buf[65535];
	struct iter_qstate *iq = IQ(s);
	const uint8_t *name = iq->qname;
	uint16_t qtype = iq->qtype;
	size_t len = 0;
	enum auth_answer r = AUTH_NOT;
	int dplabs = dname_count_labels(iq->dp->name), n, qlabs;
	if(iq->qmin_labels > 0) {
		name = dname_suffix_labels(iq->qname, iq->qmin_labels);
		qtype = DNS_TYPE_A;
	}
	if(s->exclude_count > 0 && iter_excluded(s, iter_auth_origin()) &&
		auth_zones_fallback(s->env->authz, name))
		return 0; /* its answer was bogus: the servers are asked */
	qlabs = dname_count_labels(name);
	if(qtype == DNS_TYPE_DS)
		qlabs--; /* the parent's answer: not from a zone at the name */
	/* a for-upstream zone below the delegation (a stub or a forward
	 * zone above it) is closer: it answers as the servers of its apex
	 * would, the highest first (auth-zone before stub-zone before
	 * forward-zone, as Unbound); then the delegation itself */
	if(dname_is_strict_subdomain(name, iq->dp->name))
		for(n = dplabs + 1; n <= qlabs && r == AUTH_NOT; n++) {
			const uint8_t *z = dname_suffix_labels(name, n);
			if((s->flags & MESH_FLAG_NOAUTH) &&
				dname_equal(z, iq->qname))
				break;
			r = auth_zones_answer_upstream(s->env->authz, z,
				name, qtype, iq->qclass, (s->flags &
				(MESH_FLAG_DO | MESH_FLAG_DNSSEC)) != 0, buf,
				sizeof(buf), &len);
		}
	if(r == AUTH_NOT && !iq->dp->is_forward && (!(s->flags &
		MESH_FLAG_NOAUTH) || !dname_equal(iq->dp->name, iq->qname)))
		r = auth_zones_answer_upstream(s->env->authz, iq->dp->name,
			name, qtype, iq->qclass, (s->flags & (MESH_FLAG_DO |
			MESH_FLAG_DNSSEC)) != 0, buf, sizeof(buf), &len);
	switch(r) {
	case AUTH_ANSWERED:
		break;
	case AUTH_FAIL:
		iter_fail(s, DNS_EDE_NOT_READY);
		return 1;
	case AUTH_NOT:
	default:
		return 0;
	}
	iq->sent_qname_len = dname_len(name);
	memcpy(iq->sent_qname, name, iq->sent_qname_len);
	iq->sent_qtype = qtype;
	iq->cur = NULL;
	iq->cur_flags = OUTBOUND_FLAG_TCP; /* never truncated */
	iq->sends++;
	verbose(VERB_ALGO, "iterator: answered from auth-zone");
	iter_handle_reply(s, buf, len);
	return 1;
}

/**
 * The servers of the delegation were skipped as down: start the one
 * background probe of the last of them, unless one is already out (the
 * infrastructure cache decides, for every worker). The probe is a state
 * of its own for the same question (MESH_FLAG_PROBE), with no client: its
 * answer, if any, goes to the caches, and the server's recovery to the
 * infrastructure cache.
 */
static void
iter_probe_down(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct infra_cache *infra = s->env->infra;
	int rto;
	if(!infra || (s->flags & MESH_FLAG_PROBE))
		return;
	rto = infra_get_rto(infra, &iq->down_addr, st_now(s));
	if(!infra_probe_claim(infra, &iq->down_addr, st_now(s),
		(rto + 999) / 1000))
		return;
	if(verbosity >= VERB_ALGO) {
		char a[128];
		verbose(VERB_ALGO, "iterator: probing down server %s "
			"(timeout %d ms)", netaddr_str(&iq->down_addr, 53, a,
			sizeof(a)), rto);
	}
	(void)s->env->add_background(s->env, s->qname, s->qtype, s->qclass,
		(s->flags & (MESH_FLAG_DO | MESH_FLAG_CD | MESH_FLAG_RD |
		MESH_FLAG_NOFWD)) | MESH_FLAG_PROBE);
}

/**
 * RPZ NSDNAME / NSIP (env->rpz_ns, NULL when no such trigger can be
 * loaded): a client's question (depth 0) whose delegation has a listed
 * NS name, or whose next server has a listed address, is finished with
 * the policy's answer. @return 1 when the state was finished
 */
static int
iter_rpz_ns(struct module_qstate *s, const struct delegpt_addr *a)
{
	struct iter_qstate *iq = IQ(s);
	struct mesh_answer *ans = NULL;
	if(s->depth != 0 || iq->rpz_pass || (s->flags & MESH_FLAG_RPZPASS) ||
		iq->dp->is_forward)
		return 0;
	if(!a && iq->rpz_dp != iq->dp) {
		const struct delegpt_ns *ns;
		iq->rpz_dp = iq->dp;
		for(ns = iq->dp->nslist; ns && !ans && !iq->rpz_pass;
			ns = ns->next)
			ans = s->env->rpz_ns(s->env->rpz_ns_arg, s, ns->name,
				NULL, &iq->rpz_pass);
	} else if(a)
		ans = s->env->rpz_ns(s->env->rpz_ns_arg, s, NULL, &a->addr,
			&iq->rpz_pass);
	if(!ans)
		return 0;
	verbose(VERB_ALGO, "iterator: rpz %s trigger applied",
		a ? "NSIP" : "NSDNAME");
	if(iq->chain.count > 0 && !dname_equal(iq->qname, s->qname)) {
		/* the policy wrote its data for the question; after a
		 * CNAME it is the data of the name resolved now */
		struct module_rr *rr;
		uint8_t *o = region_alloc(s->region, iq->qname_len);
		if(!o) {
			iter_fail(s, DNS_EDE_OTHER);
			return 1;
		}
		memcpy(o, iq->qname, iq->qname_len);
		for(rr = ans->an.first; rr; rr = rr->next)
			if(dname_equal(rr->owner, s->qname)) {
				rr->owner = o;
				rr->owner_len = iq->qname_len;
			}
	}
	if(ans->policy == 1 && ans->rcode == DNS_RCODE_NOERROR &&
		iq->qtype != DNS_TYPE_CNAME && iq->qtype != DNS_TYPE_ANY &&
		ans->an.last && ans->an.last->type == DNS_TYPE_CNAME &&
		rr_target(ans->an.last) &&
		iq->cname_count < st_env(s)->max_restarts) {
		/* a CNAME (local data, or the cname override): its target
		 * is resolved, as Unbound goes on from it; the answer (with
		 * the policy's record) is kept out of the caches */
		struct module_rr *rr;
		for(rr = ans->an.first; rr; rr = rr->next)
			if(module_rrlist_push(s->region, &iq->chain, rr) < 0)
				break;
		if(rr) {
			iter_fail(s, DNS_EDE_OTHER);
			return 1;
		}
		iq->cname_count++;
		iq->qname_len = dname_copy_lower(iq->qname,
			rr_target(ans->an.last));
		s->no_cache_store = 1;
		if(iter_rpz_cname(s, iq->qname))
			return 1;
		iq->rpz_dp = NULL;
		iq->qmin_off = 0;
		iq->referrals = 0;
		iq->retry = NULL;
		iq->skip_zone = 0;
		iq->phase = ITER_INIT;
		iter_again(s);
		return 1;
	}
	iq->phase = ITER_DONE;
	s->return_msg = ans;
	s->return_rcode = ans->rcode;
	s->ede = ans->ede;
	s->ext_state[s->curmod] = MODULE_FINISHED;
	return 1;
}

/**
 * RPZ QNAME rules on a CNAME target (env->rpz_qname): a client's question
 * (depth 0) whose chain reaches a name a rule acts on is finished with
 * the chain so far (kept out of the caches); the front end writes the
 * rule's answer after it. @return 1 when the state was finished
 */
static int
iter_rpz_cname(struct module_qstate *s, const uint8_t *target)
{
	if(!s->env->rpz_qname || s->depth != 0 ||
		!s->env->rpz_qname(s->env->rpz_ns_arg, s, target))
		return 0;
	verbose(VERB_ALGO, "iterator: rpz QNAME rule on the CNAME target");
	/* the chain learnt from the servers goes to the RRset cache (the
	 * next question finds its CNAMEs there and meets the rule again
	 * without asking); the answer with the rule's data does not */
	iter_store_list(s, &IQ(s)->chain, RRSET_TRUST_NONE, 0);
	s->no_cache_store = 1;
	iter_finish(s, DNS_RCODE_NOERROR, NULL, NULL, NULL, 0);
	return 1;
}

/** max-global-quota is spent: SERVFAIL, EDE 0 (Other), as Unbound */
static void
iter_quota_fail(struct module_qstate *s)
{
	verbose(VERB_QUERY, "iterator: max-global-quota (%d upstream "
		"queries) exceeded", s->env->cfg ? s->env->cfg->max_global_quota
		: 0);
	if(s->env->ctr.num_quota_exceeded)
		(*s->env->ctr.num_quota_exceeded)++;
	iter_fail(s, DNS_EDE_OTHER);
}

/** the address to send to for a server: with do-nat64 an IPv4 server's
 * address inside the NAT64 prefix (in nat), else its own. Its replies,
 * RTT and lameness are counted on its own address. */
static const struct netaddr *
iter_send_addr(const struct iter_env *env, const struct delegpt_addr *a,
	struct netaddr *nat)
{
	if(env->do_nat64 && netaddr_family(&a->addr) == AF_INET &&
		iter_nat64_addr(env, &a->addr, nat) == 0)
		return nat;
	return &a->addr;
}

/** pick a server and send the next query, or wait, or give up */
static void
iter_send(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	struct iter_env *env = st_env(s);
	struct delegpt_addr *a;
	const uint8_t *name;
	uint16_t qtype;
	int flags = 0, rto = env->timeout_ms, send_rto, rd = 0;
	struct netaddr nat;

	if(iq->sends >= ITER_MAX_SENDS || iq->dp_sends >= env->max_sent ||
		iq->nx_targets > 2 * ITER_MAX_TARGET_NX ||
		st_elapsed_ms(s) > env->max_time_ms) {
		/* (what the servers did, if known: the last resort's
		 * lookups may use up the budget after all timed out) */
		iter_fail(s, iq->ede >= 0 ? iq->ede :
			DNS_EDE_NO_REACHABLE_AUTHORITY);
		return;
	}
	if(s->env->global_quota && !s->env->global_quota(s, 0)) {
		iter_quota_fail(s);
		return;
	}
	/* MESH_FLAG_NOAUTH: the zone's own copy is not asked (the zones
	 * above it are: a TLD's referral from a root copy) */
	if(s->env->authz && iter_auth_zone(s))
		return;
	if(s->env->rpz_ns && iter_rpz_ns(s, NULL))
		return;
	if(iq->nx_targets > ITER_MAX_TARGET_NX && !iq->no_cache) {
		/* too many of its NS names do not exist: the delegation is
		 * given up as one whose servers all failed (a cached one
		 * for the configured zone or the root, where the count may
		 * go on to twice the bound, as Unbound's NXNS fallback) */
		verbose(VERB_ALGO, "iterator: %d NS names without an address",
			iq->nx_targets);
		goto dp_failed;
	}
	iter_fetch_ahead(s);
	for(;;) {
		a = iter_pick_addr(s, &rto, 1);
		if(!a) {
			/* every known server was tried once: look for more
			 * servers (NS names), one at a time, before asking
			 * one again */
			if(iter_targets_from_cache(s) > 0)
				continue;
			if(iter_start_targets(s, 1) > 0 || s->num_subs > 0) {
				iq->phase = ITER_SEND;
				return;
			}
			a = iter_pick_addr(s, &rto, 0);
			if(!a && (a = iter_pick_lame(s, 0, &rto)) != NULL)
				rd = 1;
			if(!a)
				a = iter_pick_lame(s, 1, &rto);
			if(!a && iter_parent_glue(s) > 0)
				continue;
			if(!a && iter_start_aaaa_targets(s) > 0) {
				iq->phase = ITER_SEND;
				return;
			}
			if(!a && iter_start_pside_targets(s) > 0) {
				iq->phase = ITER_SEND;
				return;
			}
			if(!a)
				break;
		}
		if(s->env->rpz_ns && iter_rpz_ns(s, a))
			return;
		iq->retry = NULL;
		send_rto = rto;
		if(send_rto > ITER_CLIENT_RTO_MAX &&
			!(s->flags & MESH_FLAG_PROBE))
			send_rto = ITER_CLIENT_RTO_MAX;
		name = iq->qname;
		qtype = iq->qtype;
		if(iq->qmin_labels > 0) {
			name = dname_suffix_labels(iq->qname, iq->qmin_labels);
			qtype = DNS_TYPE_A;
		}
		flags = 0;
		if(iq->dp->is_forward || rd)
			flags |= OUTBOUND_FLAG_RD;
		if(!a->noedns && s->env->infra) {
			struct infra_host h;
			if(infra_host_get(s->env->infra, &a->addr,
				st_now(s), &h) == 0 && h.edns == INFRA_EDNS_NO)
				a->noedns = 1;
		}
		if(a->noedns)
			flags |= OUTBOUND_FLAG_NOEDNS;
		if(env->tcp_upstream || a->tcp || iq->dp->tcp)
			flags |= OUTBOUND_FLAG_TCP;
		if(s->flags & MESH_FLAG_CD)
			flags |= OUTBOUND_FLAG_CD;
		/* DO on every query with EDNS, as Unbound asks: a signed
		 * zone sends its signatures, so that an answer without
		 * any serves DO and non-DO clients alike
		 * (mesh_answer.do_same); none with disable-edns-do */
		if(!a->noedns && !(s->env->cfg && s->env->cfg->disable_edns_do))
			flags |= OUTBOUND_FLAG_DO;
		if(env->rl && !s->prefetch && !iter_ratelimit_ok(env->rl,
			iq->dp->name, st_now(s), s->env->rnd)) {
			/* ratelimit: this zone's servers get no more this
			 * second (prefetches are let through, as in
			 * Unbound) */
			if(s->env->ctr.num_ratelimited)
				(*s->env->ctr.num_ratelimited)++;
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		if(s->env->global_quota && !s->env->global_quota(s, 1)) {
			iter_quota_fail(s);
			return;
		}
		iq->sent_qname_len = dname_len(name);
		memcpy(iq->sent_qname, name, iq->sent_qname_len);
		iq->sent_qtype = qtype;
		iq->cur = a;
		iq->cur_flags = flags;
		iq->cur_rto = rto;
		iq->dnssec_lame_query = a->dnsseclame;
		a->attempts++;
		iq->sends++;
		iq->dp_sends++;
		if(verbosity >= VERB_ALGO) {
			char n[DNS_MAX_NAME_STR], z[DNS_MAX_NAME_STR], t[16];
			char ad[128];
			(void)dname_to_str(name, n, sizeof(n));
			(void)dname_to_str(iq->dp->name, z, sizeof(z));
			verbose(VERB_ALGO, "iterator: asking %s for %s %s "
				"(zone %s%s, try %d, timeout %d ms)",
				netaddr_str(&a->addr, 53, ad, sizeof(ad)), n,
				dns_type_str(qtype, t, sizeof(t)), z,
				iq->dp->is_forward ? ", forward" : "",
				a->attempts, send_rto);
		}
		iq->oq = s->env->send_query(s, iter_send_addr(env, a, &nat),
			name, iq->sent_qname_len, qtype, iq->qclass, flags,
			send_rto);
		if(iq->oq) {
			iq->phase = ITER_WAIT_REPLY;
			return;
		}
		a->bad = 1;
		iq->ede = DNS_EDE_NETWORK_ERROR;
	}
dp_failed:
	/* every server failed */
	if(iq->empty_dp == iq->dp && iq->empty_dp) {
		/* the only thing the zone's servers said: an empty
		 * authoritative reply, NODATA without SOA (RFC 2308 5) */
		verbose(VERB_ALGO, "iterator: only an empty authoritative "
			"reply: NODATA");
		iq->cur = iq->empty_from;
		iter_note_origin(s);
		iter_finish(s, DNS_RCODE_NOERROR, NULL, NULL, NULL, 0);
		return;
	}
	if(iq->dp->from_cache && !iq->no_cache &&
		!(iq->down_skipped > 0 && iq->dp_sends == 0)) {
		/* (not when its servers are all known down and none was
		 * asked: the probe finds out, from the top if it must; each
		 * client query does not walk down from the root again;
		 * servers excluded after a bogus answer do go from the top:
		 * the parent's delegation may name others) */
		/* the cached delegation is dead (stale NS set, servers
		 * moved): start again from the configured zone or the
		 * root, ignoring the cache */
		verbose(VERB_ALGO, "iterator: cached delegation failed, "
			"trying from the top");
		iq->no_cache = 1;
		iq->phase = ITER_INIT;
		iter_again(s);
		return;
	}
	if(iq->dp->first && (iq->dp->is_forward || iq->dp->is_stub) &&
		!iq->skip_zone) {
		/* forward-first / stub-first: full recursion instead */
		iq->skip_zone = 1;
		iq->skipped = iq->zone;
		iq->phase = ITER_INIT;
		iter_again(s);
		return;
	}
	if(iq->down_skipped > 0) {
		iter_probe_down(s);
		iq->ede = DNS_EDE_NO_REACHABLE_AUTHORITY;
	}
	iter_fail(s, iq->ede >= 0 ? iq->ede : DNS_EDE_NO_REACHABLE_AUTHORITY);
}

/** @return 1 when list l (may be NULL) holds a record of owner and type */
static int
iter_list_has(const struct module_rrlist *l, const uint8_t *owner,
	uint16_t type)
{
	const struct module_rr *rr;
	for(rr = l ? l->first : NULL; rr; rr = rr->next)
		if(rr->type == type && dname_equal(rr->owner, owner))
			return 1;
	return 0;
}

/** @return the name a record of type NS, MX, KX or SRV points at, whose
 * addresses a reply's additional section may carry (RFC 1035 section
 * 3.3.9 for MX, RFC 2230 KX, RFC 2782 SRV), or NULL */
static const uint8_t *
rr_add_target(const struct module_rr *rr)
{
	size_t skip;
	switch(rr->type) {
	case DNS_TYPE_NS:
		skip = 0;
		break;
	case DNS_TYPE_MX:
	case DNS_TYPE_KX:
		skip = 2;
		break;
	case DNS_TYPE_SRV:
		skip = 6;
		break;
	default:
		return NULL;
	}
	if(rr->rdlen <= skip || dname_valid(rr->rdata + skip,
		rr->rdlen - skip) == 0)
		return NULL;
	return rr->rdata + skip;
}

/** @return 1 when name is what a record of list l (may be NULL) points
 * at (rr_add_target) */
static int
iter_list_targets(const struct module_rrlist *l, const uint8_t *name)
{
	const struct module_rr *rr;
	const uint8_t *t;
	for(rr = l ? l->first : NULL; rr; rr = rr->next)
		if((t = rr_add_target(rr)) != NULL && dname_equal(t, name))
			return 1;
	return 0;
}

/** push the addresses (A, AAAA and, with dnssec, their RRSIGs) from the
 * additional section ad of the names the records of t1 or t2 (may be
 * NULL) point at (rr_add_target); not an RRset the answer (final, may be
 * NULL) already holds (as Unbound keeps an RRset in one section of a
 * message). The addresses come in the reply's order, then their RRSIGs
 * (the order in which Unbound writes an additional section).
 * @return 0 or -1 */
static int
iter_push_addrs(struct module_qstate *s, const struct module_rrlist *ad,
	const struct module_rrlist *t1, const struct module_rrlist *t2,
	const struct module_rrlist *final, struct module_rrlist *add,
	int dnssec)
{
	struct module_rr *g;
	int sigs;
	for(sigs = 0; sigs <= dnssec; sigs++) {
		for(g = ad->first; g; g = g->next) {
			uint16_t t = g->type == DNS_TYPE_RRSIG &&
				g->rdlen >= 2 ? dns_read_u16(g->rdata) :
				g->type;
			if((t != DNS_TYPE_A && t != DNS_TYPE_AAAA) ||
				(g->type == DNS_TYPE_RRSIG) != sigs ||
				iter_list_has(final, g->owner, t))
				continue;
			/* (with harden-glue: no, out-of-zone addresses are
			 * in the reply for referrals: not given to
			 * clients) */
			if(!IQ(s)->dp->is_forward &&
				!dname_is_subdomain(g->owner, IQ(s)->dp->name))
				continue;
			if(!iter_list_targets(t1, g->owner) &&
				!iter_list_targets(t2, g->owner))
				continue;
			if(module_rrlist_push(s->region, add, g) < 0)
				return -1;
		}
	}
	return 0;
}

/** @return 1 when list l (may be NULL) holds an NSEC or NSEC3 record */
static int
iter_list_has_nsec(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	for(rr = l ? l->first : NULL; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3)
			return 1;
	return 0;
}

/** @return 1 when an authority section has an NS record before any
 * NSEC or NSEC3 record (or no NSEC/NSEC3 at all) */
static int
iter_ns_before_proof(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_NS)
			return 1;
		if(rr->type == DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3)
			return 0;
	}
	return 1;
}

/**
 * @return 1 when the answer is one minimal-responses trims: it holds
 * records of the question's type (final), the question is not for NS
 * (whose servers' addresses are the answer's use), and no NSEC or NSEC3
 * record came with it (auth, the reply's authority section, or the
 * chain's proofs: a wildcard answer's proof, which must not be cut from
 * the rest of the authority section). Every other answer (NODATA,
 * NXDOMAIN, a CNAME to nothing, a referral's leftovers) keeps its
 * authority and additional records, as Unbound's minimal-responses does.
 */
static int
iter_positive_answer(struct module_qstate *s,
	const struct module_rrlist *final, const struct module_rrlist *auth)
{
	struct iter_qstate *iq = IQ(s);
	const struct module_rr *rr;
	int has = 0;
	if(iq->qtype == DNS_TYPE_NS)
		return 0;
	for(rr = final ? final->first : NULL; rr && !has; rr = rr->next)
		if(rr->type == iq->qtype)
			has = 1;
	return has && !iter_list_has_nsec(auth) &&
		!iter_list_has_nsec(&iq->chain_ns);
}

/**
 * Without minimal-responses, an answer carries the NS set of the zone
 * that gave it (from the reply's authority section) and, from its
 * additional section, the addresses of the names the NS set and the
 * answer's MX, KX and SRV records point at (the answer to an NS
 * question: its servers' addresses), as Unbound and NSD do. With
 * minimal-responses only a positive answer (iter_positive_answer) goes
 * without them. The records are appended to auth and add.
 */
static void
iter_extra_sections(struct module_qstate *s, struct iter_reply *p,
	const uint8_t *name, const struct module_rrlist *final,
	struct module_rrlist *auth, struct module_rrlist *add)
{
	struct module_rrlist *a = &p->sec[DNS_SEC_AUTHORITY];
	struct module_rrlist *ad = &p->sec[DNS_SEC_ADDITIONAL];
	struct module_rr *ns = iter_find_ns(a, name), *rr, *last;
	int dnssec = (s->flags & (MESH_FLAG_DO | MESH_FLAG_DNSSEC)) != 0;
	int aa = (p->flags & DNS_FLAG_AA) != 0;
	struct module_rrlist m_auth, m_add;
	int minimal = 0;
	/* (a wildcard's proof in the authority built so far keeps it
	 * whole too, as Unbound's encoder does) */
	if(st_env(s)->minimal && iter_positive_answer(s, final, a) &&
		!iter_list_has_nsec(auth)) {
		/* left out of the answer, not out of the RRset cache (as
		 * Unbound stores every set of a reply): they are gathered
		 * in lists of their own and stored at the end; a referral
		 * from the cache to a query without RD shows them
		 * (fwd_minimal.rpl) */
		memset(&m_auth, 0, sizeof(m_auth));
		memset(&m_add, 0, sizeof(m_add));
		auth = &m_auth;
		add = &m_add;
		dnssec = 0;
		minimal = 1;
	}
	for(rr = ns ? a->first : NULL; rr; rr = rr->next) {
		/* with DNSSEC the RRSIGs go along (the validator checks
		 * the NS set and drops it when it comes unsigned) */
		if(!dname_equal(rr->owner, ns->owner))
			continue;
		if(rr->type == DNS_TYPE_NS || (dnssec &&
			rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2 &&
			dns_read_u16(rr->rdata) == DNS_TYPE_NS))
			if(module_rrlist_push(s->region, auth, rr) < 0)
				return;
	}
	last = add->last;
	if(iter_push_addrs(s, ad, auth, final, final, add, dnssec) < 0)
		return;
	/* the NS set and the addresses that go with the answer go to the
	 * RRset cache with it (services/cache/store.h), with the trust of
	 * their section of the reply; not from CD queries, and only the NS
	 * set of the zone asked (or any from a forwarder): an NS set for a
	 * zone below it in an answer is no delegation the parent made, and
	 * kept it would outlive the parent's (a ghost domain,
	 * iter_ghost_sub.rpl) */
	/* (the answer to an NS question carries its servers' addresses:
	 * they go to the RRset cache with it, as Unbound stores them, and
	 * a referral from the cache to a query without RD gives them) */
	if((s->flags & MESH_FLAG_CD) || (!ns && !(IQ(s)->qtype ==
		DNS_TYPE_NS && final && final->count > 0)) || (ns &&
		!IQ(s)->dp->is_forward && !dname_equal(ns->owner,
		IQ(s)->dp->name)))
		return;
	for(rr = ns ? auth->first : NULL; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NS && rr->trust == RRSET_TRUST_NONE)
			rr->trust = aa ? RRSET_TRUST_AUTH_AA :
				RRSET_TRUST_AUTH_NOAA;
	for(rr = last ? last->next : add->first; rr; rr = rr->next)
		if(rr->trust == RRSET_TRUST_NONE)
			rr->trust = aa ? RRSET_TRUST_ADD_AA :
				RRSET_TRUST_ADD_NOAA;
	if(minimal) {
		iter_store_list(s, auth, RRSET_TRUST_NONE, 0);
		iter_store_list(s, add, RRSET_TRUST_NONE, 0);
	}
}

/** @return 1 when a record of type t in the authority section (auth 1)
 * or additional section (auth 0) is one petrel does not use there: the
 * types Unbound's harden-unknown-additional keeps out (in the authority
 * section all but SOA, NS, DS, NSEC and NSEC3; in the additional section
 * all but A and AAAA), less those its scrubber always drops there
 * (CNAME, DNAME; A and AAAA in the authority, NS in the additional) */
static int
iter_unknown_type(uint16_t t, int auth)
{
	if(t == DNS_TYPE_CNAME || t == DNS_TYPE_DNAME || t == DNS_TYPE_OPT ||
		t == DNS_TYPE_A || t == DNS_TYPE_AAAA)
		return 0;
	if(auth)
		return t != DNS_TYPE_SOA && t != DNS_TYPE_NS &&
			t != DNS_TYPE_DS && t != DNS_TYPE_NSEC &&
			t != DNS_TYPE_NSEC3;
	return t != DNS_TYPE_NS;
}

/**
 * harden-unknown-additional: no: the records of the reply's authority
 * and additional sections of types petrel does not use there (an SRV in
 * the additional section, say; after the scrub) go to the client with
 * the answer, as Unbound passes them on; for DNSSEC queries with their
 * RRSIGs. They are appended to auth and add.
 */
static void
iter_pass_unknown(struct module_qstate *s, struct iter_reply *p,
	struct module_rrlist *auth, struct module_rrlist *add)
{
	int dnssec = (s->flags & (MESH_FLAG_DO | MESH_FLAG_DNSSEC)) != 0;
	int i;
	if(st_env(s)->harden_unknown_additional)
		return;
	for(i = 0; i < 2; i++) {
		const struct module_rr *rr;
		for(rr = p->sec[i == 0 ? DNS_SEC_AUTHORITY :
			DNS_SEC_ADDITIONAL].first; rr; rr = rr->next) {
			uint16_t t = rr->type;
			if(t == DNS_TYPE_RRSIG) {
				if(!dnssec || rr->rdlen < 2)
					continue;
				t = dns_read_u16(rr->rdata);
			}
			if(!iter_unknown_type(t, i == 0))
				continue;
			if(module_rrlist_push(s->region, i == 0 ? auth : add,
				rr) < 0)
				return;
		}
	}
	if(dnssec) {
		/* the additional section's records, then their RRSIGs (as
		 * Unbound writes that section: the signatures are what a
		 * truncation drops first) */
		struct module_rrlist data, sigs;
		struct module_rr *rr, *nx;
		memset(&data, 0, sizeof(data));
		memset(&sigs, 0, sizeof(sigs));
		for(rr = add->first; rr; rr = nx) {
			nx = rr->next;
			rr->next = NULL;
			module_rrlist_append(rr->type == DNS_TYPE_RRSIG ?
				&sigs : &data, rr);
		}
		if(sigs.first) {
			if(data.last)
				data.last->next = sigs.first;
			else	data.first = sigs.first;
			data.last = sigs.last;
			data.count += sigs.count;
		}
		*add = data;
	}
}

/** @return 1 when list l holds a record equal to rr (owner, type,
 * class and RDATA) */
static int
list_has_rr(const struct module_rrlist *l, const struct module_rr *rr)
{
	const struct module_rr *o;
	for(o = l->first; o; o = o->next)
		if(o->type == rr->type && o->rrclass == rr->rrclass &&
			o->rdlen == rr->rdlen && dname_equal(o->owner,
			rr->owner) && memcmp(o->rdata, rr->rdata,
			rr->rdlen) == 0)
			return 1;
	return 0;
}

/** append (copies of the structs of) the records of a list */
static int
list_push_all(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from)
{
	struct module_rr *rr;
	if(!from)
		return 0;
	for(rr = from->first; rr; rr = rr->next)
		if(module_rrlist_push(r, to, rr) < 0)
			return -1;
	return 0;
}

/** list_push_all of the records of from that neither the list to nor the
 * list later (pushed after them) has: a chain that meets a DNAME twice
 * gives it once, and the proofs of the CNAME replies come before the
 * final reply's authority section without the records that one has (as
 * Unbound's iter_prepend leaves out the RRsets the message has). A
 * reply's own records are pushed as they came (list_push_all: a proof
 * that repeats a record is the validator's to judge). */
static int
list_push_new(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from, const struct module_rrlist *later)
{
	struct module_rr *rr;
	if(!from)
		return 0;
	for(rr = from->first; rr; rr = rr->next)
		if(!(later && list_has_rr(later, rr)) && !list_has_rr(to, rr) &&
			module_rrlist_push(r, to, rr) < 0)
			return -1;
	return 0;
}

/** build the answer (in the state's region) and finish the state */
static void
iter_finish(struct module_qstate *s, int rcode,
	const struct module_rrlist *final, const struct module_rrlist *auth,
	const struct module_rrlist *add, int forwarded)
{
	struct iter_qstate *iq = IQ(s);
	struct mesh_answer *ans = region_alloc_zero(s->region, sizeof(*ans));
	if(!ans) {
		iter_fail(s, DNS_EDE_OTHER);
		return;
	}
	ans->rcode = rcode;
	/* records of the reply were dropped (iter_reply.len_dropped): the
	 * answer says so, EDE 0 (Other), as Unbound's */
	ans->ede = iq->len_scrubbed ? DNS_EDE_OTHER : -1;
	ans->forwarded = forwarded;
	ans->sec = MODULE_SEC_UNCHECKED;
	if(iq->rpz_pass == 2) {
		/* an RPZ TCP-ONLY rule on the servers: for TCP clients */
		ans->policy = 4;
		s->no_cache_store = 1;
	}
	if(list_push_new(s->region, &ans->an, &iq->chain, final) < 0 ||
		list_push_all(s->region, &ans->an, final) < 0 ||
		list_push_new(s->region, &ans->ns, &iq->chain_ns, auth) < 0 ||
		list_push_all(s->region, &ans->ns, auth) < 0 ||
		list_push_all(s->region, &ans->ar, add) < 0) {
		iter_fail(s, DNS_EDE_OTHER);
		return;
	}
	iq->phase = ITER_DONE;
	s->return_msg = ans;
	s->return_rcode = rcode;
	s->ede = -1;
	s->ext_state[s->curmod] = MODULE_FINISHED;
}

/** @return 1 when a reply holds a DNSSEC record (RRSIG, NSEC, NSEC3) in
 * any section */
static int
iter_reply_has_dnssec(const struct iter_reply *p)
{
	const struct module_rr *rr;
	int i;
	for(i = 0; i < 3; i++)
		for(rr = p->sec[i].first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_RRSIG || rr->type ==
				DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3)
				return 1;
	return 0;
}

/** a state finished from upstream replies: its answer is also the DO
 * answer when none of them carried a DNSSEC record and nothing came
 * from the cache (every upstream query asks with DO, as Unbound's, so
 * a signed zone would have sent its signatures) */
static void
iter_mark_do_same(struct module_qstate *s)
{
	if(s->return_msg && !IQ(s)->dnssec_seen)
		s->return_msg->do_same = 1;
}

/** mark the current server bad and try another */
static void
iter_server_failed(struct module_qstate *s, int ede)
{
	struct iter_qstate *iq = IQ(s);
	if(verbosity >= VERB_ALGO && iq->cur) {
		char a[128];
		verbose(VERB_ALGO, "iterator: server %s failed (EDE %d)",
			netaddr_str(&iq->cur->addr, 53, a, sizeof(a)), ede);
	}
	if(iq->cur)
		iq->cur->bad = 1;
	if(ede >= 0)
		iq->ede = ede;
	iq->phase = ITER_SEND;
	iter_again(s);
}

/** the current server's reply was thrown away (SERVFAIL and other
 * rcodes): it stays usable, to be asked again after the other servers,
 * until it was asked outbound-msg-retry times (Unbound's attempts per
 * server); another is tried */
static void
iter_server_throwaway(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	if(iq->cur && iq->cur->attempts >= iter_max_attempts(s)) {
		iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		return;
	}
	if(verbosity >= VERB_ALGO && iq->cur) {
		char a[128];
		verbose(VERB_ALGO, "iterator: server %s reply thrown away, "
			"may be asked again", netaddr_str(&iq->cur->addr, 53, a,
			sizeof(a)));
	}
	iq->ede = DNS_EDE_NO_REACHABLE_AUTHORITY;
	iq->phase = ITER_SEND;
	iter_again(s);
}

/** keep a glue record of a referral as the parent-side copy of its
 * name's address set (rrset_cache_store_pside: the last resort,
 * iter_parent_glue, when the child's own answer for the name fails) */
static void
iter_store_pside(struct module_qstate *s, const struct module_rr *rr)
{
	struct rrset_data rs;
	const uint8_t *rd[1];
	uint16_t rdlen[1];
	if(!s->env->rrset || s->no_cache_store)
		return;
	memset(&rs, 0, sizeof(rs));
	rd[0] = rr->rdata;
	rdlen[0] = rr->rdlen;
	rs.name = rr->owner;
	rs.name_len = rr->owner_len;
	rs.type = rr->type;
	rs.rrclass = rr->rrclass;
	rs.ttl = rr->ttl;
	rs.trust = RRSET_TRUST_ADD_NOAA;
	rs.sec = RRSET_SEC_UNCHECKED;
	rs.count = 1;
	rs.rdata = rd;
	rs.rdlen = rdlen;
	(void)rrset_cache_store_pside(s->env->rrset, &rs, st_now(s));
}

/** store one record as an RRset of its own */
static void
iter_store_one(struct module_qstate *s, const struct module_rr *rr,
	enum rrset_trust trust)
{
	struct module_rr one = *rr;
	struct module_rrlist l;
	one.next = NULL;
	l.first = l.last = &one;
	l.count = 1;
	iter_store_list(s, &l, trust, 0);
}

/** store the addresses of the names of an NS answer from the additional
 * section (priming: the root servers' addresses) */
static void
iter_store_ns_glue(struct module_qstate *s, const struct module_rrlist *ns,
	const struct module_rrlist *add)
{
	struct module_rr *rr, *n;
	for(rr = add->first; rr; rr = rr->next) {
		if((rr->type != DNS_TYPE_A && rr->type != DNS_TYPE_AAAA) ||
			!dname_is_subdomain(rr->owner, IQ(s)->dp->name))
			continue; /* (harden-glue: no keeps others in add) */
		for(n = ns->first; n; n = n->next) {
			const uint8_t *t = rr_target(n);
			if(t && dname_equal(t, rr->owner)) {
				iter_store_one(s, rr, RRSET_TRUST_ADD_AA);
				break;
			}
		}
	}
}

/** the current server is lame for the zone: remember it (infra cache)
 * and try another */
static void
iter_server_lame(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	if(iq->cur && s->env->infra && !iq->dp->is_forward &&
		iq->qclass == DNS_CLASS_IN) /* other classes: not lameness */
		infra_set_lame(s->env->infra, &iq->cur->addr,
			iq->dp->name, st_now(s));
	iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
}

/** prefetch-key: a referral for a query the validator checks carries a
 * DS set for the zone: fetch the zone's DNSKEY set in the background now,
 * so that it is in the cache when the validator needs it */
static void
iter_prefetch_key(struct module_qstate *s, struct module_rrlist *auth,
	const uint8_t *zone)
{
	struct module_rr *rr;
	if(!s->env->cfg || !s->env->cfg->prefetch_key ||
		!(s->flags & MESH_FLAG_DNSSEC) || (s->flags & MESH_FLAG_CD) ||
		(s->qtype == DNS_TYPE_DNSKEY && dname_equal(s->qname, zone)))
		return;
	for(rr = auth->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_DS && dname_equal(rr->owner, zone))
			break;
	if(!rr)
		return;
	(void)s->env->add_background(s->env, zone, DNS_TYPE_DNSKEY,
		DNS_CLASS_IN, MESH_FLAG_RD | MESH_FLAG_DO);
}

/**
 * harden-referral-path: a referral seen on the way to a client's answer
 * is not believed as it came: the zone's own NS set, and the addresses of
 * those of its servers named inside the zone (its glue), are asked for in
 * background queries nobody waits on (at most ITER_MAX_TARGETS names,
 * A and AAAA as do-ip4/do-ip6 allow). Their answers, validated where a
 * trust anchor covers the zone, go to the caches with the trust of
 * authoritative data and replace the referral's. Only for client
 * questions (depth 0), so the background queries do not start more.
 */
static void
iter_harden_referral(struct module_qstate *s, const struct delegpt *dp)
{
	const struct iter_env *ie = st_env(s);
	const struct delegpt_ns *ns;
	int n = 0, flags = MESH_FLAG_RD | MESH_FLAG_DO;
	if(!s->env->cfg || !s->env->cfg->harden_referral_path ||
		s->depth != 0 || s->prefetch || (s->flags & MESH_FLAG_PROBE))
		return;
	if(!(s->qtype == DNS_TYPE_NS && dname_equal(s->qname, dp->name)))
		(void)s->env->add_background(s->env, dp->name, DNS_TYPE_NS,
			DNS_CLASS_IN, flags);
	for(ns = dp->nslist; ns && n < ITER_MAX_TARGETS; ns = ns->next) {
		if(!dname_is_subdomain(ns->name, dp->name))
			continue;
		n++;
		if(ie->do_ip4)
			(void)s->env->add_background(s->env, ns->name,
				DNS_TYPE_A, DNS_CLASS_IN, flags);
		if(ie->do_ip6)
			(void)s->env->add_background(s->env, ns->name,
				DNS_TYPE_AAAA, DNS_CLASS_IN, flags);
	}
}

/** cap the TTL of a referral's NS set (in the reply's records) at the
 * time its parent delegation (iq->dp) has left, and set the new
 * delegation's expiry (the glue is left: without the NS set it
 * delegates nothing) */
static void
iter_referral_cap(struct module_qstate *s, struct module_rrlist *auth,
	const uint8_t *zone, struct delegpt *dp)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rr *rr;
	time_t now = st_now(s);
	uint32_t cap = 0xffffffffu, min = 0xffffffffu;
	if(iq->dp && iq->dp->expire)
		cap = iq->dp->expire > now ? (uint32_t)(iq->dp->expire - now) :
			0;
	for(rr = auth->first; rr; rr = rr->next) {
		if(rr->type != DNS_TYPE_NS || !dname_equal(rr->owner, zone))
			continue;
		if(rr->ttl > cap)
			rr->ttl = cap;
		if(rr->ttl < min)
			min = rr->ttl;
	}
	dp->expire = min == 0xffffffffu ? 0 : now + (time_t)min;
}

/** follow a referral: new delegation point from the NS set and glue */
static void
iter_referral(struct module_qstate *s, struct iter_reply *p,
	struct module_rr *nsrr)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rrlist *auth = &p->sec[DNS_SEC_AUTHORITY];
	struct module_rrlist *add = &p->sec[DNS_SEC_ADDITIONAL];
	const uint8_t *zone = nsrr->owner;
	struct delegpt *dp;
	struct module_rr *rr;
	if(++iq->referrals > ITER_MAX_REFERRALS) {
		iter_fail(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		return;
	}
	dp = delegpt_create(s->region, zone);
	if(!dp) {
		iter_fail(s, DNS_EDE_OTHER);
		return;
	}
	for(rr = auth->first; rr; rr = rr->next) {
		const uint8_t *t = rr_target(rr);
		if(rr->type != DNS_TYPE_NS || !dname_equal(rr->owner, zone) ||
			!t)
			continue;
		if(!delegpt_add_ns(dp, s->region, t)) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
	}
	/* glue: A/AAAA for the NS names, already scrubbed to be under the
	 * zone of the server that sent them */
	for(rr = add->first; rr; rr = rr->next) {
		struct delegpt_ns *ns;
		struct netaddr na;
		memset(&na, 0, sizeof(na));
		ns = delegpt_find_ns(dp, rr->owner);
		if(!ns || rr->rdlen == 0)
			continue;
		if(addr_from_rdata(&na, rr->type, rr->rdata, rr->rdlen) < 0)
			continue;
		if(st_env(s)->harden_unverified_glue &&
			!dname_is_subdomain(rr->owner, zone)) {
			/* harden-unverified-glue: glue for a name outside the
			 * zone is not used until a lookup of the name fails */
			ns_add_parent(s->region, ns, &na);
			continue;
		}
		if(delegpt_add_addr(dp, s->region, &na) < 0) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		/* glue of a family not in use (only IPv6 with do-ip6: no),
		 * or of only one of the families in use, leaves the name
		 * to be looked up (for the other family) */
		ns_note_family(st_env(s), ns, &na);
		dp_note_glue(dp, &na, ns->name);
	}
	if(!dp->nslist) {
		iter_server_failed(s, -1);
		return;
	}
	/* a delegation learnt from the servers of one that expires sooner
	 * expires with it: a zone its parent no longer delegates takes
	 * its subzones with it (no ghost domain below it,
	 * iter_ghost_ns_childapex.rpl, as Unbound caps it) */
	iter_referral_cap(s, auth, zone, dp);
	/* remember the delegation: the NS set and the glue for its names */
	iter_store_list(s, auth, RRSET_TRUST_AUTH_NOAA, DNS_TYPE_NS);
	/* and what it says of the zone's DS: the DS set, or the NSEC
	 * that proves there is none, with their signatures */
	iter_store_signed(s, auth, zone, DNS_TYPE_DS, RRSET_TRUST_AUTH_NOAA);
	iter_store_signed(s, auth, zone, DNS_TYPE_NSEC,
		RRSET_TRUST_AUTH_NOAA);
	iter_note_cut_proof(s, auth);
	for(rr = add->first; rr; rr = rr->next) {
		if(delegpt_find_ns(dp, rr->owner) &&
			(rr->type == DNS_TYPE_A || rr->type == DNS_TYPE_AAAA) &&
			(!st_env(s)->harden_unverified_glue ||
			dname_is_subdomain(rr->owner, zone))) {
			iter_store_one(s, rr, RRSET_TRUST_ADD_NOAA);
			iter_store_pside(s, rr);
		}
	}
	dp->no_cache = iq->dp->no_cache;
	iter_dp_dnssec(s, dp, auth);
	iq->dp = dp;
	iq->dp_sends = 0;
	iq->retry = NULL;
	iter_prefetch_key(s, auth, zone);
	iter_harden_referral(s, dp);
	iter_qmin_reset(s);
	iq->phase = ITER_SEND;
	iter_again(s);
}

/**
 * Learn the child's NS set: an authoritative reply from a server of the
 * zone that carries the zone's NS set in its authority section (as NSD
 * and BIND send with answers) gives the child's own view of its servers,
 * which may differ from the parent's delegation. It is stored with the
 * trust of authoritative authority data, above the referral's, so later
 * queries in the zone start from it (rrset_cache_find_delegation); when
 * those servers all fail, iter_send starts again from the top without
 * the cache, which follows the parent's delegation: the fallback.
 * The addresses of the child's servers (in-bailiwick, already scrubbed)
 * are stored with them. With iter-scrub-promiscuous (the default) the
 * scrubber has dropped the NS set of answers and errors, so this learns
 * from NODATA replies only.
 */
static void
iter_learn_child_ns(struct module_qstate *s, struct iter_reply *p,
	const uint8_t *name)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rrlist *auth = &p->sec[DNS_SEC_AUTHORITY];
	struct module_rrlist *add = &p->sec[DNS_SEC_ADDITIONAL];
	struct module_rrlist ns, glue;
	struct module_rr *nsrr = iter_find_ns(auth, name), *rr, *g;
	if(!nsrr || iq->dp->is_forward || (s->flags & MESH_FLAG_CD) ||
		!(p->flags & DNS_FLAG_AA) ||
		!dname_is_subdomain(nsrr->owner, iq->dp->name))
		return;
	memset(&ns, 0, sizeof(ns));
	memset(&glue, 0, sizeof(glue));
	for(rr = auth->first; rr; rr = rr->next) {
		const uint8_t *t;
		if(rr->type != DNS_TYPE_NS ||
			!dname_equal(rr->owner, nsrr->owner) ||
			!(t = rr_target(rr)))
			continue;
		if(module_rrlist_push(s->region, &ns, rr) < 0)
			return;
		for(g = add->first; g; g = g->next) {
			if((g->type != DNS_TYPE_A && g->type != DNS_TYPE_AAAA) ||
				!dname_equal(g->owner, t) ||
				!dname_is_subdomain(g->owner, iq->dp->name))
				continue;
			if(module_rrlist_push(s->region, &glue, g) < 0)
				return;
		}
	}
	iter_store_list(s, &ns, RRSET_TRUST_AUTH_AA, DNS_TYPE_NS);
	iter_store_list(s, &glue, RRSET_TRUST_ADD_AA, 0);
}

/** the reply of the current server is part of the answer: note its
 * address as an origin of the answer (module.h: a validator that finds
 * the answer bogus excludes these servers when it restarts the query);
 * an auth-zone copy's answer is noted as iter_auth_origin */
static void
iter_note_origin(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	const struct netaddr *a = iq->cur ? &iq->cur->addr :
		iter_auth_origin();
	int i;
	for(i = 0; i < s->origin_count; i++)
		if(netaddr_cmp(s->origin[i], a) == 0)
			return;
	if(s->origin_count < MODULE_ORIGIN_MAX)
		s->origin[s->origin_count++] = a;
}

/** replies are checked for signatures while fewer queries than this
 * went to a delegation's servers (Unbound's DNSSEC_LAME_DETECT_COUNT) */
#define ITER_DNSSEC_LAME_DETECT 4

/**
 * dnssec-lame detection, as Unbound's iterator does it: a reply from a
 * server of a zone whose answers must be signed (iter_dp_dnssec), to a
 * query that asks for DNSSEC, that would be used (an answer, denial or
 * CNAME) but has no RRSIG in its answer and authority sections comes
 * from a server that does not serve the signed zone (an old copy, a
 * parent and child mix-up): the server is dnssec lame for this
 * resolution, the others are asked first, and it is the last resort
 * (iter_pick_lame), its reply then taken as it is. Unlike
 * Unbound, referrals are not checked: the validator proves a
 * delegation's DS set (or its absence) with queries of its own.
 * @return 1 when the reply was set aside so (the state goes on).
 */
static int
iter_dnssec_lame(struct module_qstate *s, const struct iter_reply *p,
	enum iter_class cl)
{
	struct iter_qstate *iq = IQ(s);
	const struct module_rr *rr;
	int sec;
	if(st_env(s)->no_dnssec_lame || !iq->dp->dnssec_expected ||
		iq->dnssec_lame_query || !iq->cur ||
		iq->dp->is_forward || (iq->cur_flags & OUTBOUND_FLAG_RD) ||
		iq->dp_sends >= ITER_DNSSEC_LAME_DETECT)
		return 0;
	if(cl != ITER_CL_ANSWER && cl != ITER_CL_NODATA &&
		cl != ITER_CL_NXDOMAIN && cl != ITER_CL_CNAME)
		return 0;
	for(sec = DNS_SEC_ANSWER; sec <= DNS_SEC_AUTHORITY; sec++)
		for(rr = p->sec[sec].first; rr; rr = rr->next)
			if(rr->type == DNS_TYPE_RRSIG)
				return 0;
	if(verbosity >= VERB_ALGO) {
		char a[128];
		verbose(VERB_ALGO, "iterator: server %s is dnssec lame (no "
			"signatures)", netaddr_str(&iq->cur->addr, 53, a,
			sizeof(a)));
	}
	iq->cur->dnsseclame = 1;
	iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
	return 1;
}

/** @return 1 when an authority section holds a signed denial: an NSEC
 * or NSEC3 record and an RRSIG over one */
static int
iter_signed_denial(const struct module_rrlist *auth)
{
	const struct module_rr *rr;
	int nsec = 0, sig = 0;
	for(rr = auth->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3)
			nsec = 1;
		else if(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2 &&
			(dns_read_u16(rr->rdata) == DNS_TYPE_NSEC ||
			dns_read_u16(rr->rdata) == DNS_TYPE_NSEC3))
			sig = 1;
	}
	return nsec && sig;
}

/**
 * A YXDOMAIN reply with the DNAME whose substitution makes the name asked
 * too long (RFC 6672 2.2) answers the question: the chain so far and the
 * reply's answer section after the scrub (the DNAME and its RRSIGs, the
 * records at the name asked), rcode YXDOMAIN, nothing of it cached. A
 * YXDOMAIN without such a DNAME is a failure like other rcodes.
 * @return 1 when the state was finished.
 */
static int
iter_yxdomain(struct module_qstate *s, struct iter_reply *p)
{
	struct iter_qstate *iq = IQ(s);
	struct module_rr *rr;
	iter_scrub_reply(p, iq->dp->is_forward ? NULL : iq->dp->name,
		st_env(s));
	for(rr = p->sec[DNS_SEC_ANSWER].first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_DNAME && iter_dname_too_long(rr,
			iq->sent_qname))
			break;
	if(!rr)
		return 0;
	iter_note_origin(s);
	s->no_cache_store = 1;
	iter_finish(s, DNS_RCODE_YXDOMAIN, &p->sec[DNS_SEC_ANSWER], NULL,
		NULL, iq->dp->is_forward);
	return 1;
}

/** handle a reply from the server the state asked */
static void
iter_handle_reply(struct module_qstate *s, const uint8_t *pkt, size_t len)
{
	struct iter_qstate *iq = IQ(s);
	struct iter_reply rep, *p = &rep;
	struct module_rrlist final, neg, add;
	struct module_rr *nsrr;
	uint8_t name[256];
	int rcode, minimised, links, dnssec = (s->flags &
		(MESH_FLAG_DO | MESH_FLAG_DNSSEC)) != 0;
	int aa;
	enum iter_class cl;

	if(iter_reply_parse(s->region, pkt, len, p) != 0) {
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		return;
	}
	iq->got_reply = 1;
	iq->len_scrubbed = p->len_dropped > 0;
	if(iq->dp->no_cache)
		s->no_cache_store = 1; /* forward-no-cache, stub-no-cache */
	rcode = p->rcode;
	aa = (p->flags & DNS_FLAG_AA) != 0;
	if(rcode == DNS_RCODE_FORMERR &&
		!(iq->cur_flags & OUTBOUND_FLAG_NOEDNS) && iq->cur) {
		/* retry without EDNS, remember for this server */
		iq->cur->noedns = 1;
		if(s->env->infra)
			infra_edns_update(s->env->infra, &iq->cur->addr,
				INFRA_EDNS_NO, st_now(s));
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		iter_again(s);
		return;
	}
	if((p->flags & DNS_FLAG_TC) && !(iq->cur_flags & OUTBOUND_FLAG_TCP) &&
		iq->cur) {
		iq->cur->tcp = 1;
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		iter_again(s);
		return;
	}
	if((p->flags & DNS_FLAG_TC) && iq->cur) {
		/* truncated over TCP: nothing bigger can come; a broken
		 * server (as Unbound, the reply is not used) */
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		return;
	}
	/* the question must match what was sent */
	if(p->qdcount != 1 || !(p->flags & DNS_FLAG_QR) ||
		!dname_equal(p->qname, iq->sent_qname) ||
		p->qtype != iq->sent_qtype || p->qclass != iq->qclass) {
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		return;
	}
	if(iq->cur && s->env->infra && !(iq->cur_flags &
		OUTBOUND_FLAG_NOEDNS) && rcode != DNS_RCODE_NOTIMPL) {
		/* a reply to a query with EDNS (FORMERR went above, NOTIMPL
		 * is no answer to it): the server does EDNS, as Unbound's
		 * "EDNS works" notes; written once, while the cache does
		 * not know it yet (dump_infra's ednsknown, lookup's
		 * "probed") */
		struct infra_host h;
		if(infra_host_get(s->env->infra, &iq->cur->addr, st_now(s),
			&h) != 0 || h.edns != INFRA_EDNS_YES)
			infra_edns_update(s->env->infra, &iq->cur->addr,
				INFRA_EDNS_YES, st_now(s));
	}
	if(iq->qmin_labels > 0 && rcode != DNS_RCODE_NOERROR &&
		rcode != DNS_RCODE_NXDOMAIN) {
		/* RFC 9156 relaxed, as Unbound: an error to a minimised query
		 * (servers that refuse, or fail on, the names between zone
		 * cuts) stops minimising; the same server gets the full name
		 * before it is judged */
		verbose(VERB_ALGO, "iterator: rcode %d to a minimised query: "
			"the full name is asked", rcode);
		iq->qmin_labels = 0;
		iq->qmin_off = 1;
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		iter_again(s);
		return;
	}
	if(rcode == DNS_RCODE_YXDOMAIN && iter_yxdomain(s, p))
		return;
	if(rcode == DNS_RCODE_REFUSED || rcode == DNS_RCODE_NOTIMPL) {
		/* lame: the server does not serve the zone */
		iter_server_lame(s);
		return;
	}
	if(rcode != DNS_RCODE_NOERROR && rcode != DNS_RCODE_NXDOMAIN) {
		/* SERVFAIL and others: a failure, not remembered; the server
		 * may be asked again (outbound-msg-retry), after the others */
		iter_server_throwaway(s);
		return;
	}
	memset(&final, 0, sizeof(final));
	memset(&neg, 0, sizeof(neg));
	memset(&add, 0, sizeof(add));
	minimised = (iq->qmin_labels > 0);
	/* bailiwick (not for a forwarder), private addresses */
	iter_scrub_reply(p, iq->dp->is_forward ? NULL : iq->dp->name,
		st_env(s));
	memcpy(name, iq->sent_qname, iq->sent_qname_len);
	dname_tolower(name);
	links = iq->cname_count;

	if(minimised) {
		/* RFC 9156: a referral moves down; anything else that says
		 * the name exists means no zone cut here: one label more;
		 * errors fall back to the full name */
		nsrr = iter_find_ns(&p->sec[DNS_SEC_AUTHORITY], name);
		if(nsrr && !aa && p->sec[DNS_SEC_ANSWER].count == 0 &&
			dname_is_strict_subdomain(nsrr->owner, iq->dp->name)) {
			iter_referral(s, p, nsrr);
			return;
		}
		if(rcode == DNS_RCODE_NOERROR) {
			iq->qmin_labels++;
			if(iq->qmin_labels >= dname_count_labels(iq->qname))
				iq->qmin_labels = 0;
		} else if(st_env(s)->qname_min_strict || (dnssec &&
			!(s->flags & MESH_FLAG_CD) &&
			iter_signed_denial(&p->sec[DNS_SEC_AUTHORITY]))) {
			/* qname-minimisation-strict: the NXDOMAIN of the
			 * minimised name is the answer (RFC 8020), no fall
			 * back to the full name; so is a signed one, for a
			 * query the validator checks (as Unbound: a signed
			 * zone's servers do not deny empty non-terminals,
			 * and the validator checks the proof for the full
			 * name) */
			iter_note_origin(s);
			iter_finish(s, DNS_RCODE_NXDOMAIN, NULL,
				&p->sec[DNS_SEC_AUTHORITY], NULL, 0);
			return;
		} else {
			iq->qmin_labels = 0;
			iq->qmin_off = 1;
		}
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		iter_again(s);
		return;
	}

	cl = iter_classify(s->region, p, name, iq->qtype, iq->dp->name,
		iq->dp->is_forward || (iq->cur_flags & OUTBOUND_FLAG_RD) != 0,
		&iq->chain, &final, &links,
		st_env(s)->max_restarts, dnssec, &nsrr);
	verbose(VERB_ALGO, "iterator: reply classified as %s",
		iter_class_str(cl));
	if(cl == ITER_CL_ERROR) {
		/* CNAME loop or too long chain */
		iter_fail(s, DNS_EDE_OTHER);
		return;
	}
	if(dnssec && iter_dnssec_lame(s, p, cl))
		return;
	iq->cname_count = links;
	if((cl == ITER_CL_ANSWER || cl == ITER_CL_NODATA ||
		cl == ITER_CL_NXDOMAIN || cl == ITER_CL_CNAME) &&
		iter_reply_has_dnssec(p))
		iq->dnssec_seen = 1;
	/* the answer records (the chain and the final set) go to the RRset
	 * cache when the answer is finished (services/cache/store.h), with
	 * the trust of the reply they came in; not from CD queries, whose
	 * data other clients must not get */
	if(!(s->flags & MESH_FLAG_CD)) {
		iter_mark_trust(&iq->chain, aa ?
			RRSET_TRUST_ANS_AA : RRSET_TRUST_ANS_NOAA);
		iter_mark_trust(&final, aa ?
			RRSET_TRUST_ANS_AA : RRSET_TRUST_ANS_NOAA);
	}
	if(iq->qtype == DNS_TYPE_NS && final.count > 0 && !iq->dp->is_forward)
		iter_store_ns_glue(s, &final, &p->sec[DNS_SEC_ADDITIONAL]);
	if(cl == ITER_CL_ANSWER || cl == ITER_CL_NODATA ||
		cl == ITER_CL_NXDOMAIN)
		iter_learn_child_ns(s, p, name);
	if(cl == ITER_CL_ANSWER || cl == ITER_CL_NODATA ||
		cl == ITER_CL_NXDOMAIN || cl == ITER_CL_CNAME)
		iter_note_origin(s);
	switch(cl) {
	case ITER_CL_ANSWER:
		/* (a forwarder's answer is taken as it is, rcode and all) */
		/* the zone's NS set and (DNSSEC) the NSEC/NSEC3 proof of a
		 * wildcard answer, in the order the reply gave them (as
		 * Unbound keeps the reply's authority section) */
		if(!dnssec || iter_ns_before_proof(&p->sec[DNS_SEC_AUTHORITY]))
			iter_extra_sections(s, p, name, &final, &neg, &add);
		if(dnssec)
			(void)iter_copy_soa(s->region,
				&p->sec[DNS_SEC_AUTHORITY], name, &neg, dnssec);
		if(dnssec && !iter_ns_before_proof(&p->sec[DNS_SEC_AUTHORITY]))
			iter_extra_sections(s, p, name, &final, &neg, &add);
		iter_pass_unknown(s, p, &neg, &add);
		iter_finish(s, iq->dp->is_forward ? rcode : DNS_RCODE_NOERROR,
			&final, &neg, &add, iq->dp->is_forward);
		iter_mark_do_same(s);
		break;
	case ITER_CL_NXDOMAIN:
	case ITER_CL_NODATA:
		(void)iter_copy_soa(s->region, &p->sec[DNS_SEC_AUTHORITY], name,
			&neg, dnssec);
		if(cl == ITER_CL_NODATA && !iter_has_soa(
			&p->sec[DNS_SEC_AUTHORITY]))
			/* a NODATA without SOA (an authoritative reply whose
			 * records were all scrubbed, one with only the
			 * zone's NS set): the NS set and its addresses go
			 * along as with an answer (as Unbound keeps them) */
			iter_extra_sections(s, p, name, NULL, &neg, &add);
		iter_pass_unknown(s, p, &neg, &add);
		iter_finish(s, cl == ITER_CL_NXDOMAIN ? DNS_RCODE_NXDOMAIN :
			DNS_RCODE_NOERROR, &final, &neg, &add,
			iq->dp->is_forward);
		iter_mark_do_same(s);
		break;
	case ITER_CL_CNAME:
		/* the proofs that came with the CNAME go with the answer
		 * (DNSSEC only: the NSEC and NSEC3 records, not the SOA) */
		if(dnssec && iter_copy_nsec(s->region,
			&p->sec[DNS_SEC_AUTHORITY], &iq->chain_ns) < 0) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		if(iter_rpz_cname(s, name))
			break;
		/* resolve the target from the top */
		memcpy(iq->qname, name, dname_len(name));
		iq->qname_len = dname_len(name);
		iq->qmin_off = 0;
		iq->referrals = 0;
		iq->retry = NULL;
		iq->skip_zone = 0;
		iq->phase = ITER_INIT;
		iter_again(s);
		break;
	case ITER_CL_REFERRAL:
		iter_referral(s, p, nsrr);
		break;
	case ITER_CL_USELESS:
		/* skipped for this resolution, not remembered lame */
		iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		break;
	case ITER_CL_EMPTY:
		/* the other servers first; this is NODATA when none says
		 * more (iter_send) */
		if(!iq->empty_from)
			iq->empty_from = iq->cur;
		iq->empty_dp = iq->dp;
		iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		break;
	case ITER_CL_RECLAME:
		/* the other servers first; this one is the last resort
		 * (iter_pick_lame), not remembered lame */
		if(iq->cur)
			iq->cur->reclame = 1;
		iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		break;
	case ITER_CL_LAME:
	case ITER_CL_ERROR:
	default:
		iter_server_lame(s);
		break;
	}
}

/** the reply to the query in flight, its timeout, or its failure */
static void
iter_handle_event(struct module_qstate *s, enum module_ev ev,
	struct module_reply *rep)
{
	struct iter_qstate *iq = IQ(s);
	iq->oq = NULL;
	iq->phase = ITER_SEND;
	if(s->env->infra && iq->cur)
		infra_rtt_update(s->env->infra, &iq->cur->addr,
			iq->sent_qtype, ev == MODULE_EVENT_REPLY ? rep->rtt_ms : -1,
			iq->cur_rto, st_now(s));
	if((ev == MODULE_EVENT_NOREPLY || ev == MODULE_EVENT_ERROR) &&
		iq->cur && !(s->flags & MESH_FLAG_PROBE)) {
		/* a timeout or a network error (the network does not
		 * retransmit): this server may be asked again (a timeout
		 * with a doubled timeout), after the others, until it was
		 * asked outbound-msg-retry times (iter_pick_addr), as
		 * Unbound's iterator does */
		iq->cur->timeouts++;
		iq->ede = DNS_EDE_NETWORK_ERROR;
		iter_again(s);
	} else if(ev != MODULE_EVENT_REPLY || !rep || !rep->pkt)
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
	else	iter_handle_reply(s, rep->pkt, rep->len);
}

/**
 * The module above passed the finished query down again (module.h: the
 * validator after a bogus answer): resolve it anew, from the question.
 * What bounds the work of the state stays: the queries sent count on
 * against ITER_MAX_SENDS, and the time budget runs from the state's
 * start. The delegations learnt are used from the cache as usual (the
 * answer itself never is for a validated query, see
 * iter_answer_from_cache); the servers in s->exclude are not asked.
 */
static void
iter_restart(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	int sends = iq->sends, refresh = iq->refresh;
	memset(iq, 0, sizeof(*iq));
	memcpy(iq->qname, s->qname, s->qname_len);
	iq->qname_len = s->qname_len;
	iq->qtype = s->qtype;
	iq->qclass = iter_qclass(s);
	iq->ede = -1;
	iq->sends = sends;
	iq->refresh = refresh;
	iq->restarted = 1;
	iq->phase = ITER_INIT;
	s->origin_count = 0;
	s->return_msg = NULL;
	s->return_rcode = 0;
	s->ede = -1;
	verbose(VERB_ALGO, "iterator: restart (%d servers excluded, %d sent)",
		s->exclude_count, sends);
}

/**
 * A class-ANY question: ask it in each class with root hints, by a
 * sub-query per class (validated as the client's question, as Unbound's
 * class sub-queries are), whose answers iter_collect_inform merges.
 */
static void
iter_collect_start(struct module_qstate *s)
{
	struct iter_qstate *iq = IQ(s);
	int flags = (s->flags & (MESH_FLAG_DO | MESH_FLAG_CD |
		MESH_FLAG_RD)) | MESH_FLAG_VALSUB;
	uint16_t c = 0;
	iq->collect = 1;
	iq->collect_ede = -1;
	while((c = iter_env_next_class(st_env(s), c)) != 0) {
		verbose(VERB_ALGO, "iterator: class ANY: asked in class %u",
			(unsigned)c);
		if(!s->env->attach_sub(s, s->qname, s->qtype, c, flags)) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		iq->collect_pending++;
	}
	if(iq->collect_pending == 0)
		iter_fail(s, DNS_EDE_OTHER); /* (no class has hints) */
}

/** copy the records of a list into the region, appended to another;
 * the copies are not stored in the RRset cache again (trust 0: their
 * own query stored them); @return 0 or -1 */
static int
iter_collect_copy(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from)
{
	const struct module_rr *rr;
	for(rr = from->first; rr; rr = rr->next) {
		struct module_rr *c = module_rr_new(r, rr->owner,
			rr->owner_len, rr->type, rr->rrclass, rr->ttl,
			rr->rdata, rr->rdlen);
		if(!c)
			return -1;
		c->sec = rr->sec;
		module_rrlist_append(to, c);
	}
	return 0;
}

/**
 * One class's sub-query of a class-ANY question finished: its sections
 * are appended to the merged answer (in the order the classes finish,
 * as Unbound's); NOERROR when a part is NOERROR, else the first part's
 * rcode (NXDOMAIN); the lowest security status of the parts; a failed
 * part makes the whole SERVFAIL.
 */
static void
iter_collect_inform(struct module_qstate *sub, struct module_qstate *super)
{
	struct iter_qstate *iq = IQ(super);
	const struct mesh_answer *ans = sub->return_msg;
	struct mesh_answer *m;
	if(iq->collect_pending > 0)
		iq->collect_pending--;
	if(iq->collect_failed)
		return;
	if(!ans || ans->policy || (sub->return_rcode != DNS_RCODE_NOERROR &&
		sub->return_rcode != DNS_RCODE_NXDOMAIN)) {
		iq->collect_failed = 1;
		iq->collect_ede = sub->ede >= 0 ? sub->ede : DNS_EDE_OTHER;
		return;
	}
	if(!(m = iq->collect_ans)) {
		m = region_alloc_zero(super->region, sizeof(*m));
		if(!m) {
			iq->collect_failed = 1;
			iq->collect_ede = DNS_EDE_OTHER;
			return;
		}
		m->rcode = sub->return_rcode;
		m->sec = ans->sec;
		m->ede = ans->ede;
		m->forwarded = ans->forwarded;
		m->do_same = ans->do_same;
		iq->collect_ans = m;
	} else {
		if(sub->return_rcode == DNS_RCODE_NOERROR)
			m->rcode = DNS_RCODE_NOERROR;
		if(ans->sec < m->sec)
			m->sec = ans->sec;
		if(m->ede < 0)
			m->ede = ans->ede;
		m->forwarded = m->forwarded && ans->forwarded;
		m->do_same = m->do_same && ans->do_same;
	}
	m->no_cd_share |= ans->no_cd_share;
	if(sub->no_cache_store)
		super->no_cache_store = 1;
	if(iter_collect_copy(super->region, &m->an, &ans->an) < 0 ||
		iter_collect_copy(super->region, &m->ns, &ans->ns) < 0 ||
		iter_collect_copy(super->region, &m->ar, &ans->ar) < 0) {
		iq->collect_failed = 1;
		iq->collect_ede = DNS_EDE_OTHER;
	}
}

/** operate() for a class-ANY question (iter_collect_start) */
static void
iter_collect_operate(struct module_qstate *s, enum module_ev ev, int id)
{
	struct iter_qstate *iq = s->minfo[id];
	if(iq->phase == ITER_DONE)
		return; /* (its result stands) */
	if(!iq->collect) {
		if(ev != MODULE_EVENT_NEW && ev != MODULE_EVENT_PASS)
			return;
		iter_collect_start(s);
		if(iq->phase == ITER_DONE)
			return;
	}
	if(iq->collect_pending > 0) {
		s->ext_state[id] = MODULE_WAIT_SUBQUERY;
		return;
	}
	if(iq->collect_failed || !iq->collect_ans) {
		iter_fail(s, iq->collect_ede >= 0 ? iq->collect_ede :
			DNS_EDE_OTHER);
		return;
	}
	iq->phase = ITER_DONE;
	s->return_msg = iq->collect_ans;
	s->return_rcode = iq->collect_ans->rcode;
	s->ede = -1;
	s->ext_state[id] = MODULE_FINISHED;
}

/** module operate(): run the state for an event */
static void
iter_operate(struct module_qstate *s, enum module_ev ev, int id,
	struct module_reply *rep)
{
	struct iter_qstate *iq = s->minfo[id];
	if(!iq) {
		if(iter_new_state(s, id) < 0) {
			s->ede = DNS_EDE_OTHER;
			s->ext_state[id] = MODULE_ERROR;
			return;
		}
		iq = s->minfo[id];
	}
	if(s->qclass == DNS_CLASS_ANY) {
		iter_collect_operate(s, ev, id);
		return;
	}
	iq->again = 0;
	switch(ev) {
	case MODULE_EVENT_NEW:
	case MODULE_EVENT_PASS:
		if(iq->phase == ITER_DONE)
			iter_restart(s);
		iq->again = 1;
		break;
	case MODULE_EVENT_REPLY:
	case MODULE_EVENT_NOREPLY:
	case MODULE_EVENT_ERROR:
		if(iq->phase == ITER_WAIT_REPLY)
			iter_handle_event(s, ev, rep);
		break;
	case MODULE_EVENT_MODDONE:
	default:
		break;
	}
	while(iq->again && iq->phase != ITER_DONE) {
		iq->again = 0;
		iter_run(s);
	}
	switch(iq->phase) {
	case ITER_WAIT_REPLY:
		s->ext_state[id] = MODULE_WAIT_REPLY;
		break;
	case ITER_INIT:
	case ITER_SEND:
		s->ext_state[id] = MODULE_WAIT_SUBQUERY;
		break;
	case ITER_DONE:
	default:
		/* iter_finish or iter_fail set it */
		break;
	}
}

/**
 * The address lookup of an NS name finished: when the delegation it
 * ended at carried glue for the name itself (the parent zone's view of
 * the server's address), keep those addresses with the name as the last
 * resort (iter_parent_glue).
 */
static void
iter_note_parent_glue(struct module_qstate *sub, int id,
	struct module_qstate *super, struct delegpt_ns *ns)
{
	struct iter_qstate *siq = sub->minfo[id];
	struct delegpt_addr *a;
	if(!siq || !siq->dp || siq->dp->is_forward)
		return;
	for(a = siq->dp->addrs; a; a = a->next)
		if(a->glue_of && dname_equal(a->glue_of, sub->qname))
			ns_add_parent(super->region, ns, &a->addr);
}

/** @return 1 when the delegation holds an address noted as ns's glue */
static int
iter_ns_has_addr(const struct delegpt *dp, const struct delegpt_ns *ns)
{
	const struct delegpt_addr *a;
	for(a = dp->addrs; a; a = a->next)
		if(a->glue_of && dname_equal(a->glue_of, ns->name))
			return 1;
	return 0;
}

/** @return 1 when an address lookup's answer (may be NULL) holds an
 * A or AAAA record */
static int
iter_ans_has_addr(const struct mesh_answer *ans)
{
	const struct module_rr *rr;
	if(!ans)
		return 0;
	for(rr = ans->an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_A || rr->type == DNS_TYPE_AAAA)
			return 1;
	return 0;
}

/** module inform_super(): the address lookup of an NS name finished */
static void
iter_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	struct iter_qstate *iq = super->minfo[id];
	struct mesh_answer *ans = sub->return_msg;
	struct delegpt_ns *ns;
	if(iq && iq->collect) {
		iter_collect_inform(sub, super);
		return;
	}
	if(!iq || iq->phase == ITER_DONE || !iq->dp)
		return;
	ns = delegpt_find_ns(iq->dp, sub->qname);
	if(!ns)
		return;
	ns->pending = 0;
	iter_note_parent_glue(sub, id, super, ns);
	if(!(sub->flags & MESH_FLAG_PSIDE)) {
		struct iter_qstate *siq = sub->minfo[id];
		if(!siq || !siq->neg_cached)
			ns->asked_upstream = 1;
	}
	if(sub->flags & MESH_FLAG_PSIDE) {
		/* a parent-side lookup (iter_start_pside_targets): only
		 * the addresses it found count */
	} else if(ans && ans->an.count == 0 &&
		sub->qtype == DNS_TYPE_A && st_env(super)->do_ip6 &&
		!ns->got6 && !ns->tried_aaaa &&
		(ans->rcode == DNS_RCODE_NOERROR ||
		ans->rcode == DNS_RCODE_NXDOMAIN)) {
		/* no IPv4 address: look for an IPv6 one (after an
		 * NXDOMAIN too: Unbound asks both families of a name) */
		ns->resolved = 0;
	} else if(!iter_ans_has_addr(ans) && !iter_ns_has_addr(iq->dp, ns) &&
		(sub->qtype == DNS_TYPE_AAAA || !st_env(super)->do_ip6)) {
		/* the name's lookups are over and gave no address */
		if(!ns->asked_upstream) {
			/* every lookup of it (A and AAAA) was a cached
			 * denial and cost no upstream query: the name is
			 * not counted (Unbound's "do not count cached
			 * answers"); one that went upstream (an A asked
			 * before its AAAA came from the cache) keeps its
			 * place in the bound and counts as a name without
			 * an address (iter_nxns_cached_aaaa.rpl) */
			if(iq->dp->targets_started > 0)
				iq->dp->targets_started--;
		} else	iq->nx_targets++;
	}
	if(ans) {
		struct module_rr *rr;
		for(rr = ans->an.first; rr; rr = rr->next) {
			struct netaddr na;
			memset(&na, 0, sizeof(na));
			if(rr->rdlen == 0)
				continue;
			if(addr_from_rdata(&na, rr->type, rr->rdata,
				rr->rdlen) < 0)
				continue;
			(void)delegpt_add_addr(iq->dp, super->region, &na);
			if(dname_equal(rr->owner, ns->name))
				ns_note_family(st_env(super), ns, &na);
		}
	}
}

/** module init(): the iterator's settings, root hints, forward and stub
 * zones from the config */
static int
iter_init(struct module_env *env, int id, char *err, size_t errlen)
{
	struct iter_env *ie = env->cfg ? iter_env_create(env->cfg) :
		iter_env_create_default();
	if(!ie) {
		snprintf(err, errlen, "cannot set up the iterator (root-hints, "
			"target-fetch-policy, nat64-prefix, forward-zone or "
			"stub-zone): see the log above");
		return -1;
	}
	if(iter_ratelimit_create(env->cfg, &ie->rl, err, errlen) != 0) {
		iter_env_delete(ie);
		return -1;
	}
	env->modinfo[id] = ie;
	return 0;
}

/** module deinit() */
static void
iter_deinit(struct module_env *env, int id)
{
	if(env->modinfo[id])
		iter_ratelimit_delete(((struct iter_env *)
			env->modinfo[id])->rl);
	iter_env_delete(env->modinfo[id]);
	env->modinfo[id] = NULL;
}

/** module get_mem() */
static size_t
iter_get_mem(struct module_env *env, int id)
{
	return env->modinfo[id] ? sizeof(struct iter_env) : 0;
}

/** iter_ratelimit_walk's callback for MODULE_CTL_RATELIMIT_LIST: to the
 * request's rate() */
static void
iter_control_rate(const char *zone, int rate, int limit, void *arg)
{
	const struct module_ctl_arg *a = arg;
	a->rate(a->cbarg, zone, rate, limit);
}

/** module control(): the remote control's ratelimit_list and the root
 * hints list_stubs shows */
static int
iter_control(struct module_env *env, int id, enum module_ctl what,
	struct module_ctl_arg *a)
{
	const struct iter_env *ie;
	const struct iter_hint *h;
	if(what != MODULE_CTL_RATELIMIT_LIST && what != MODULE_CTL_ROOT_HINTS)
		return 0;
	if(!a)
		return 1;
	if(!(ie = env->modinfo[id]))
		return 1;
	if(what == MODULE_CTL_RATELIMIT_LIST) {
		if(ie->rl && a->rate)
			iter_ratelimit_walk(ie->rl, a->now, a->all,
				iter_control_rate, a);
		return 1;
	}
	for(h = ie->hints; h && a->hint; h = h->next)
		a->hint(a->cbarg, h->name, h->has_addr ? &h->addr : NULL);
	return 1;
}

const struct module_func_block iter_module_block = {
	.name = "iterator",
	.init = iter_init,
	.deinit = iter_deinit,
	.operate = iter_operate,
	.inform_super = iter_inform_super,
	.clear = iter_clear,
	.get_mem = iter_get_mem,
	.control = iter_control,
};
