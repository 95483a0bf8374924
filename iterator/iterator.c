/*
 * iterator/iterator.c - iterative resolution for one mesh state.
 *
 * See iterator.h for the design. Upstream replies are read with ldns
 * (this is not the cached-answer path: it runs once per upstream reply).
 * Names kept by the iterator are lower-case uncompressed wire format; the
 * records it collects are ldns_rr in lists it owns.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <stdlib.h>
#include <string.h>
#include <ldns/ldns.h>
#include "iterator/iterator.h"
#include "iterator/iter_env.h"
#include "services/mesh.h"
#include "services/resolver.h"
#include "services/outbound.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/region.h"
#include "util/random.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"

/** how a scrubbed reply was classified */
enum iter_class {
	/** the question's RRset (maybe behind a CNAME/DNAME chain) */
	ITER_CL_ANSWER,
	/** a CNAME chain ending at a name that must be resolved anew */
	ITER_CL_CNAME,
	/** a referral to a zone below the current one */
	ITER_CL_REFERRAL,
	/** name does not exist */
	ITER_CL_NXDOMAIN,
	/** name exists, no data of this type */
	ITER_CL_NODATA,
	/** lame or useless */
	ITER_CL_LAME
};

static void iter_send(struct mesh_state *s);
static void iter_finish(struct mesh_state *s, int rcode, ldns_rr_list *final,
	ldns_rr_list *auth, ldns_rr_list *add, int forwarded);
static void iter_reply_cb(void *arg, enum outbound_status status,
	const uint8_t *pkt, size_t len, int rtt_ms);

/** env of a state */
static struct iter_env *
st_env(struct mesh_state *s)
{
	return s->mesh->res->ienv;
}

/** milliseconds since the state started */
static long
st_elapsed_ms(struct mesh_state *s)
{
	const struct timeval *now = s->mesh->res->out->now;
	return (long)(now->tv_sec - s->start.tv_sec) * 1000 +
		(long)(now->tv_usec - s->start.tv_usec) / 1000;
}

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

/** the worker's time in seconds */
static time_t
st_now(struct mesh_state *s)
{
	return s->mesh->res->out->now->tv_sec;
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
 * @param trust: trust rank.
 * @param only_type: 0 for all types, else only this type.
 */
static void
iter_store_list(struct mesh_state *s, ldns_rr_list *l, enum rrset_trust trust,
	uint16_t only_type)
{
	struct rrset_cache *c = s->mesh->res->rrset;
	size_t i, j, n;
	uint8_t *done;
	if(!c || !l || (n = ldns_rr_list_rr_count(l)) == 0)
		return;
	done = calloc(n, 1);
	if(!done)
		return;
	for(i = 0; i < n; i++) {
		ldns_rr *first = ldns_rr_list_rr(l, i);
		const uint8_t *rd[ITER_MAX_SET];
		uint16_t rdlen[ITER_MAX_SET];
		uint8_t buf[ITER_MAX_SET][512];
		struct rrset_data rs;
		size_t k = 0;
		if(done[i])
			continue;
		if(only_type && (uint16_t)ldns_rr_get_type(first) != only_type)
			continue;
		if(ldns_rr_get_type(first) == LDNS_RR_TYPE_RRSIG ||
			!rdf_is_dname(ldns_rr_owner(first)))
			continue;
		memset(&rs, 0, sizeof(rs));
		rs.ttl = ldns_rr_ttl(first);
		for(j = i; j < n; j++) {
			ldns_rr *rr = ldns_rr_list_rr(l, j);
			size_t m, len = 0;
			if(done[j] || ldns_rr_get_type(rr) !=
				ldns_rr_get_type(first) ||
				ldns_rr_get_class(rr) !=
				ldns_rr_get_class(first) ||
				ldns_dname_compare(ldns_rr_owner(rr),
				ldns_rr_owner(first)) != 0)
				continue;
			done[j] = 1;
			if(k >= ITER_MAX_SET)
				continue;
			for(m = 0; m < ldns_rr_rd_count(rr); m++) {
				ldns_rdf *d = ldns_rr_rdf(rr, m);
				if(len + ldns_rdf_size(d) > sizeof(buf[k]))
					break;
				memcpy(buf[k] + len, ldns_rdf_data(d),
					ldns_rdf_size(d));
				len += ldns_rdf_size(d);
			}
			if(m < ldns_rr_rd_count(rr))
				continue; /* too big to cache here */
			rd[k] = buf[k];
			rdlen[k] = (uint16_t)len;
			if(ldns_rr_ttl(rr) < rs.ttl)
				rs.ttl = ldns_rr_ttl(rr);
			k++;
		}
		if(k == 0)
			continue;
		rs.name = rdf_wire(ldns_rr_owner(first));
		rs.name_len = ldns_rdf_size(ldns_rr_owner(first));
		rs.type = (uint16_t)ldns_rr_get_type(first);
		rs.rrclass = (uint16_t)ldns_rr_get_class(first);
		rs.trust = trust;
		rs.sec = RRSET_SEC_UNCHECKED;
		rs.count = k;
		rs.rdata = rd;
		rs.rdlen = rdlen;
		(void)rrset_cache_store(c, &rs, st_now(s));
	}
	free(done);
}

/** build a delegation point from a cached delegation */
static struct delegpt *
dp_from_cache(struct mesh_state *s, struct rrset_delegation *d)
{
	struct delegpt *dp = delegpt_create(s->region, d->ns.name);
	size_t i, j;
	if(!dp)
		return NULL;
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
			if(ns)
				ns->resolved = 1;
		}
	}
	return dp;
}

/** look the addresses of NS names up in the RRset cache.
 * @return number of addresses added */
static int
iter_targets_from_cache(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	struct rrset_cache *c = s->mesh->res->rrset;
	struct delegpt_ns *ns;
	int added = 0;
	static const uint16_t types[2] = {DNS_TYPE_A, DNS_TYPE_AAAA};
	if(!c)
		return 0;
	for(ns = iq->dp->nslist; ns; ns = ns->next) {
		int t;
		if(ns->resolved)
			continue;
		for(t = 0; t < 2; t++) {
			struct rrset_data rs;
			size_t j;
			if(rrset_cache_lookup(c, ns->name, types[t],
				DNS_CLASS_IN, st_now(s), s->region, &rs) < 0)
				continue;
			for(j = 0; j < rs.count; j++) {
				struct netaddr na;
				if(addr_from_rdata(&na, rs.type, rs.rdata[j],
					rs.rdlen[j]) < 0)
					continue;
				if(delegpt_add_addr(iq->dp, s->region,
					&na) == 0)
					added++;
				ns->resolved = 1;
			}
		}
	}
	return added;
}

void
mesh_answer_clear(struct mesh_answer *a)
{
	if(!a)
		return;
	ldns_rr_list_deep_free(a->an);
	ldns_rr_list_deep_free(a->ns);
	ldns_rr_list_deep_free(a->ar);
	a->an = a->ns = a->ar = NULL;
}

int
iter_new_state(struct mesh_state *s)
{
	struct iter_qstate *iq = region_alloc_zero(s->region, sizeof(*iq));
	if(!iq)
		return -1;
	memcpy(iq->qname, s->qname, s->qname_len);
	iq->qname_len = s->qname_len;
	iq->qtype = s->qtype;
	iq->qclass = s->qclass;
	iq->chain = ldns_rr_list_new();
	if(!iq->chain)
		return -1;
	iq->ede = -1;
	iq->phase = ITER_INIT;
	s->iq = iq;
	mesh_schedule(s);
	return 0;
}

void
iter_qstate_cleanup(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	if(!iq)
		return;
	if(iq->oq) {
		s->mesh->res->out->cancel(s->mesh->res->out->ctx, iq->oq);
		iq->oq = NULL;
	}
	ldns_rr_list_deep_free(iq->chain);
	iq->chain = NULL;
	s->iq = NULL;
}

/** finish with SERVFAIL */
static void
iter_fail(struct mesh_state *s, int ede)
{
	if(verbosity >= VERB_ALGO) {
		char n[DNS_MAX_NAME_STR], t[16];
		(void)dname_to_str(s->qname, n, sizeof(n));
		verbose(VERB_ALGO, "iterator: %s %s fails (EDE %d, %d sent)",
			n, dns_type_str(s->qtype, t, sizeof(t)), ede,
			s->iq->sends);
	}
	s->iq->phase = ITER_DONE;
	mesh_state_finish(s, NULL, ede);
}

/** number of labels to send with qname minimisation, 0 for full */
static void
iter_qmin_reset(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
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
 */
static void
iter_prime(struct mesh_state *s, const uint8_t *zone)
{
	if(!s->mesh->res->rrset)
		return;
	if(s->qtype == DNS_TYPE_NS && dname_equal(s->qname, zone))
		return; /* this is the priming query */
	/* the priming query asks the configured servers, never a
	 * forwarder */
	(void)mesh_new_prefetch(s->mesh, zone, DNS_TYPE_NS, DNS_CLASS_IN,
		MESH_FLAG_RD | MESH_FLAG_NOFWD);
}

/** find the starting delegation for the current name */
static int
iter_init_dp(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	struct iter_zone *z = iter_env_find_zone(st_env(s), iq->qname);
	while(z && z->is_forward && (s->flags & MESH_FLAG_NOFWD))
		z = (z->len > 1) ? iter_env_find_zone(st_env(s),
			dname_strip_label(z->name)) : NULL;
	if(z && iq->skip_zone && z == iq->skipped) {
		/* forward-first/stub-first failed: the next zone up */
		z = (z->len > 1) ? iter_env_find_zone(st_env(s),
			dname_strip_label(z->name)) : NULL;
	}
	iq->dp = NULL;
	if((!z || !z->is_forward) && s->mesh->res->rrset && !iq->no_cache) {
		/* the closest delegation in the cache, when it is below the
		 * configured stub zone (if any) */
		struct rrset_delegation d;
		const uint8_t *name = iq->qname;
		if(iq->qtype == DNS_TYPE_DS && iq->qname_len > 1)
			name = dname_strip_label(iq->qname);
		if(rrset_cache_find_delegation(s->mesh->res->rrset, name,
			iq->qclass, st_now(s), s->region, &d) == 0 &&
			(!z || dname_is_strict_subdomain(d.ns.name, z->name) ||
			(z->prime && dname_equal(d.ns.name, z->name))))
			iq->dp = dp_from_cache(s, &d);
		if(iq->dp) {
			iq->dp->from_cache = 1;
			z = NULL;
		}
	}
	if(!iq->dp && z) {
		iq->dp = iter_env_zone_dp(z, s->region);
		if(!z->is_forward && z->prime)
			iter_prime(s, z->name);
	} else if(!iq->dp) {
		static const uint8_t root[1] = {0};
		iq->dp = iter_env_root_dp(st_env(s), s->region);
		if(st_env(s)->hints)
			iter_prime(s, root);
	}
	if(!iq->dp)
		return -1;
	iq->zone = z;
	iter_qmin_reset(s);
	return 0;
}

/** make an ldns record from a cached RRset's RR; @return rr or NULL */
static ldns_rr *
rr_from_cache(const struct rrset_data *rs, size_t i)
{
	uint8_t buf[256 + 10 + 65535];
	size_t pos = 0;
	ldns_rr *rr = NULL;
	if(rs->name_len > 255)
		return NULL;
	memcpy(buf, rs->name, rs->name_len);
	pos = rs->name_len;
	dns_write_u16(buf + pos, rs->type);
	dns_write_u16(buf + pos + 2, rs->rrclass);
	dns_write_u32(buf + pos + 4, rs->ttl);
	dns_write_u16(buf + pos + 8, rs->rdlen[i]);
	memcpy(buf + pos + 10, rs->rdata[i], rs->rdlen[i]);
	pos = 0;
	if(ldns_wire2rr(&rr, buf, rs->name_len + 10 + rs->rdlen[i], &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		return NULL;
	return rr;
}

/**
 * Answer from the RRset cache: the question's RRset, or a CNAME chain
 * (followed in the cache) ending at it, learnt from answer sections (glue
 * and referral data are never given as answers). When the chain leaves
 * the cache, resolution goes on from its end.
 * @return 1 when the state was finished.
 */
static int
iter_answer_from_cache(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	struct rrset_cache *c = s->mesh->res->rrset;
	ldns_rr_list *final;
	size_t i;
	if(!c || iq->qtype == DNS_TYPE_ANY || iq->qtype == DNS_TYPE_RRSIG ||
		s->prefetch || (s->flags & (MESH_FLAG_CD | MESH_FLAG_DO)))
		return 0; /* a refresh must ask; CD answers are kept apart;
			   * the RRset cache holds no signatures for DO */
	for(;;) {
		struct rrset_data rs;
		if(rrset_cache_lookup(c, iq->qname, iq->qtype, iq->qclass,
			st_now(s), s->region, &rs) == 0 &&
			rs.trust >= RRSET_TRUST_ANS_NOAA && rs.count > 0) {
			final = ldns_rr_list_new();
			if(!final)
				return 0;
			for(i = 0; i < rs.count; i++) {
				ldns_rr *rr = rr_from_cache(&rs, i);
				if(!rr || !ldns_rr_list_push_rr(final, rr)) {
					ldns_rr_free(rr);
					ldns_rr_list_deep_free(final);
					return 0;
				}
			}
			iter_finish(s, DNS_RCODE_NOERROR, final, NULL, NULL,
				0);
			ldns_rr_list_deep_free(final);
			return 1;
		}
		if(iq->qtype != DNS_TYPE_CNAME && rrset_cache_lookup(c,
			iq->qname, DNS_TYPE_CNAME, iq->qclass, st_now(s),
			s->region, &rs) == 0 && rs.trust >=
			RRSET_TRUST_ANS_NOAA && rs.count == 1 &&
			iq->cname_count < ITER_MAX_CNAME &&
			dname_valid(rs.rdata[0], rs.rdlen[0]) > 0) {
			ldns_rr *rr = rr_from_cache(&rs, 0);
			if(!rr || !ldns_rr_list_push_rr(iq->chain, rr)) {
				ldns_rr_free(rr);
				return 0;
			}
			iq->cname_count++;
			iq->qname_len = dname_copy_lower(iq->qname,
				rs.rdata[0]);
			continue;
		}
		return 0;
	}
}

void
iter_run(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	if(!iq)
		return;
	switch(iq->phase) {
	case ITER_INIT:
		if(iter_answer_from_cache(s))
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
iter_pick_addr(struct mesh_state *s, int *rto, int fresh_only)
{
	struct iter_qstate *iq = s->iq;
	struct infra_cache *infra = s->mesh->res->infra;
	struct delegpt_addr *a, *cand[ITER_MAX_CANDS];
	struct netaddr addrs[ITER_MAX_CANDS];
	int minatt = -1, i;
	size_t n = 0;
	*rto = st_env(s)->timeout_ms;
	if(iq->retry && !iq->retry->bad) {
		if(infra)
			*rto = infra_get_rto(infra, &iq->retry->addr,
				st_now(s));
		return iq->retry;
	}
	for(a = iq->dp->addrs; a; a = a->next) {
		if(a->bad || !iter_addr_allowed(st_env(s), &a->addr) ||
			(fresh_only && a->attempts > 0))
			continue;
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
	if(!infra)
		return cand[random_uniform(s->mesh->res->rnd, (uint32_t)n)];
	i = infra_select(infra, addrs, n, iq->dp->is_forward ? NULL :
		iq->dp->name, st_now(s), s->mesh->res->rnd, rto);
	if(i < 0) {
		/* every candidate is lame for this zone */
		size_t k;
		for(k = 0; k < n; k++)
			cand[k]->bad = 1;
		return iter_pick_addr(s, rto, fresh_only);
	}
	return cand[i];
}

/** NS names whose addresses one delegation may look up, by the depth of
 * the lookup (as Unbound's target-fetch-policy "6 3 1 0"): a client query
 * gets ITER_MAX_TARGETS, a lookup for it fewer, and so on, so that the
 * work one client query can cause stays bounded (NXNSAttack). */
static int
iter_max_targets(int depth)
{
	static const int policy[] = {ITER_MAX_TARGETS, 3, 1};
	if(depth < 0)
		depth = 0;
	if(depth >= (int)(sizeof(policy) / sizeof(policy[0])) ||
		depth >= ITER_MAX_DEPTH)
		return 0;
	return policy[depth];
}

/** start address lookups for NS names without addresses.
 * @return number of lookups now in flight */
static int
iter_start_targets(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	struct delegpt_ns *ns;
	int inflight = 0;
	for(ns = iq->dp->nslist; ns; ns = ns->next) {
		struct mesh_state *sub;
		if(ns->pending) {
			inflight++;
			continue;
		}
		if(ns->resolved)
			continue;
		if(iq->dp->targets_started >= iter_max_targets(iq->depth))
			break;
		ns->resolved = 1;
		iq->dp->targets_started++;
		/* A first; AAAA when A gave nothing (or without IPv4) */
		sub = mesh_attach_sub(s, ns->name,
			(st_env(s)->do_ip4 && !ns->tried_a) ? DNS_TYPE_A :
			DNS_TYPE_AAAA, DNS_CLASS_IN, MESH_FLAG_RD |
			((iq->dp->is_forward || (s->flags & MESH_FLAG_NOFWD)) ?
			MESH_FLAG_NOFWD : 0));
		if(sub && sub->qtype == DNS_TYPE_A)
			ns->tried_a = 1;
		if(!sub)
			continue;
		if(sub->iq && sub->iq->depth < iq->depth + 1)
			sub->iq->depth = iq->depth + 1;
		ns->pending = 1;
		inflight++;
	}
	return inflight;
}

/** pick a server and send the next query, or wait, or give up */
static void
iter_send(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	struct iter_env *env = st_env(s);
	struct outbound *out = s->mesh->res->out;
	struct delegpt_addr *a;
	const uint8_t *name;
	uint16_t qtype;
	int flags = 0, rto = env->timeout_ms;

	if(iq->sends >= ITER_MAX_SENDS || st_elapsed_ms(s) > env->max_time_ms) {
		iter_fail(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		return;
	}
	for(;;) {
		a = iter_pick_addr(s, &rto, 1);
		if(!a) {
			/* every known server was tried once: look for more
			 * servers (NS names) before asking one again */
			if(iter_targets_from_cache(s) > 0)
				continue;
			if(iter_start_targets(s) > 0 || s->num_subs > 0) {
				iq->phase = ITER_SEND;
				return;
			}
			a = iter_pick_addr(s, &rto, 0);
			if(!a)
				break;
		}
		iq->retry = NULL;
		name = iq->qname;
		qtype = iq->qtype;
		if(iq->qmin_labels > 0) {
			name = dname_suffix_labels(iq->qname, iq->qmin_labels);
			qtype = DNS_TYPE_A;
		}
		flags = 0;
		if(iq->dp->is_forward)
			flags |= OUTBOUND_FLAG_RD;
		if(!a->noedns && s->mesh->res->infra) {
			struct infra_host h;
			if(infra_host_get(s->mesh->res->infra, &a->addr,
				st_now(s), &h) == 0 && h.edns == INFRA_EDNS_NO)
				a->noedns = 1;
		}
		if(a->noedns)
			flags |= OUTBOUND_FLAG_NOEDNS;
		if(env->tcp_upstream || a->tcp)
			flags |= OUTBOUND_FLAG_TCP;
		if(s->flags & MESH_FLAG_CD)
			flags |= OUTBOUND_FLAG_CD;
		if((s->flags & MESH_FLAG_DO) && !a->noedns)
			flags |= OUTBOUND_FLAG_DO;
		iq->sent_qname_len = dname_len(name);
		memcpy(iq->sent_qname, name, iq->sent_qname_len);
		iq->sent_qtype = qtype;
		iq->cur = a;
		iq->cur_flags = flags;
		iq->cur_rto = rto;
		a->attempts++;
		iq->sends++;
		s->mesh->res->stats.num_outgoing++;
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
				a->attempts, rto);
		}
		iq->oq = out->send(out->ctx, &a->addr, name,
			iq->sent_qname_len, qtype, iq->qclass, flags,
			rto, iter_reply_cb, s);
		if(iq->oq) {
			iq->phase = ITER_WAIT_REPLY;
			return;
		}
		a->bad = 1;
		iq->ede = DNS_EDE_NETWORK_ERROR;
	}
	/* every server failed */
	if(iq->dp->from_cache && !iq->no_cache) {
		/* the cached delegation is dead (stale NS set, servers
		 * moved): start again from the configured zone or the
		 * root, ignoring the cache */
		verbose(VERB_ALGO, "iterator: cached delegation failed, "
			"trying from the top");
		iq->no_cache = 1;
		iq->phase = ITER_INIT;
		mesh_schedule(s);
		return;
	}
	if(iq->dp->first && (iq->dp->is_forward || iq->dp->is_stub) &&
		!iq->skip_zone) {
		/* forward-first / stub-first: full recursion instead */
		iq->skip_zone = 1;
		iq->skipped = iq->zone;
		iq->phase = ITER_INIT;
		mesh_schedule(s);
		return;
	}
	iter_fail(s, iq->ede >= 0 ? iq->ede : DNS_EDE_NO_REACHABLE_AUTHORITY);
}

/** drop records not under zone from a list (scrub for bailiwick) */
static void
scrub_list_zone(ldns_rr_list *l, const uint8_t *zone)
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
static int
scrub_private(struct iter_env *env, ldns_rr_list *l)
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
		if(d && addr_from_rdata(&na, (uint16_t)ldns_rr_get_type(rr),
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
static int
list_push_clone(ldns_rr_list *l, const ldns_rr *rr)
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
synth_cname(const ldns_rr *dname, const uint8_t *name)
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
push_sigs(ldns_rr_list *l, const uint8_t *owner, uint16_t type,
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
		if(list_push_clone(to, rr) < 0)
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
static int
walk_chain(ldns_rr_list *ans, uint8_t *name, uint16_t qtype,
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
				if(list_push_clone(final, rr) < 0)
					return -1;
				found = 1;
			}
		}
		if(found) {
			if(dnssec && qtype != DNS_TYPE_ANY &&
				push_sigs(ans, name, qtype, final) < 0)
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
			if(list_push_clone(chain, rr) < 0)
				return -1;
			if(dnssec && push_sigs(ans, name, DNS_TYPE_CNAME,
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
			c = synth_cname(rr, name);
			if(!c)
				return -1;
			if(list_push_clone(chain, rr) < 0 ||
				(dnssec && push_sigs(ans,
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
static int
copy_soa(ldns_rr_list *auth, const uint8_t *name, ldns_rr_list *to,
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
			if(list_push_clone(to, rr) < 0)
				return -1;
			if(dnssec && push_sigs(auth,
				rdf_wire(ldns_rr_owner(rr)), t, to) < 0)
				return -1;
		} else if(dnssec && (t == DNS_TYPE_NSEC ||
			t == DNS_TYPE_NSEC3)) {
			if(list_push_clone(to, rr) < 0 || push_sigs(auth,
				rdf_wire(ldns_rr_owner(rr)), t, to) < 0)
				return -1;
		}
	}
	return 0;
}

/** does authority have an SOA */
static int
has_soa(ldns_rr_list *auth)
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
static ldns_rr *
find_ns(ldns_rr_list *auth, const uint8_t *name)
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

/**
 * Without minimal-responses, a positive answer carries the NS set of the
 * zone that gave it (from the reply's authority section) and the
 * addresses of those servers (from its additional section), as Unbound
 * and NSD do. Records are cloned into auth and add.
 */
static void
iter_extra_sections(struct mesh_state *s, ldns_pkt *p, const uint8_t *name,
	ldns_rr_list *auth, ldns_rr_list *add)
{
	ldns_rr_list *a = ldns_pkt_authority(p), *ad = ldns_pkt_additional(p);
	ldns_rr *ns = find_ns(a, name);
	size_t i, j;
	if(st_env(s)->minimal || !ns)
		return;
	for(i = 0; i < ldns_rr_list_rr_count(a); i++) {
		ldns_rr *rr = ldns_rr_list_rr(a, i);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS ||
			ldns_dname_compare(ldns_rr_owner(rr),
			ldns_rr_owner(ns)) != 0)
			continue;
		if(list_push_clone(auth, rr) < 0)
			return;
		for(j = 0; j < ldns_rr_list_rr_count(ad); j++) {
			ldns_rr *g = ldns_rr_list_rr(ad, j);
			ldns_rdf *t = ldns_rr_rdf(rr, 0);
			if((ldns_rr_get_type(g) != LDNS_RR_TYPE_A &&
				ldns_rr_get_type(g) != LDNS_RR_TYPE_AAAA) ||
				!rdf_is_dname(t) || !rr_owner_is(g, rdf_wire(t)))
				continue;
			if(list_push_clone(add, g) < 0)
				return;
		}
	}
}

/** build the answer and finish the state */
static void
iter_finish(struct mesh_state *s, int rcode, ldns_rr_list *final,
	ldns_rr_list *auth, ldns_rr_list *add, int forwarded)
{
	struct iter_qstate *iq = s->iq;
	struct mesh_answer ans;
	size_t i;
	memset(&ans, 0, sizeof(ans));
	ans.rcode = rcode;
	ans.ede = -1;
	ans.forwarded = forwarded;
	ans.an = ldns_rr_list_new();
	ans.ns = ldns_rr_list_new();
	ans.ar = ldns_rr_list_new();
	if(!ans.an || !ans.ns || !ans.ar)
		goto fail;
	for(i = 0; i < ldns_rr_list_rr_count(iq->chain); i++)
		if(list_push_clone(ans.an, ldns_rr_list_rr(iq->chain, i)) < 0)
			goto fail;
	if(final) {
		for(i = 0; i < ldns_rr_list_rr_count(final); i++)
			if(list_push_clone(ans.an,
				ldns_rr_list_rr(final, i)) < 0)
				goto fail;
	}
	if(auth) {
		for(i = 0; i < ldns_rr_list_rr_count(auth); i++)
			if(list_push_clone(ans.ns,
				ldns_rr_list_rr(auth, i)) < 0)
				goto fail;
	}
	if(add) {
		for(i = 0; i < ldns_rr_list_rr_count(add); i++)
			if(list_push_clone(ans.ar,
				ldns_rr_list_rr(add, i)) < 0)
				goto fail;
	}
	iq->phase = ITER_DONE;
	mesh_state_finish(s, &ans, -1);
	mesh_answer_clear(&ans);
	return;
fail:
	mesh_answer_clear(&ans);
	iter_fail(s, DNS_EDE_OTHER);
}

/** mark the current server bad and try another */
static void
iter_server_failed(struct mesh_state *s, int ede)
{
	struct iter_qstate *iq = s->iq;
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
	mesh_schedule(s);
}

/** store the addresses of the names of an NS answer from the additional
 * section (priming: the root servers' addresses) */
static void
iter_store_ns_glue(struct mesh_state *s, ldns_rr_list *ns, ldns_rr_list *add)
{
	size_t i, j;
	for(j = 0; j < ldns_rr_list_rr_count(add); j++) {
		ldns_rr *rr = ldns_rr_list_rr(add, j);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_A &&
			ldns_rr_get_type(rr) != LDNS_RR_TYPE_AAAA)
			continue;
		for(i = 0; i < ldns_rr_list_rr_count(ns); i++) {
			ldns_rdf *t = ldns_rr_rdf(ldns_rr_list_rr(ns, i), 0);
			if(rdf_is_dname(t) && rdf_is_dname(ldns_rr_owner(rr)) &&
				dname_equal(rdf_wire(t),
				rdf_wire(ldns_rr_owner(rr)))) {
				ldns_rr_list *one = ldns_rr_list_new();
				if(!one)
					return;
				if(ldns_rr_list_push_rr(one, rr))
					iter_store_list(s, one,
						RRSET_TRUST_ADD_AA, 0);
				ldns_rr_list_free(one);
				break;
			}
		}
	}
}

/** the current server is lame for the zone: remember it (infra cache)
 * and try another */
static void
iter_server_lame(struct mesh_state *s)
{
	struct iter_qstate *iq = s->iq;
	if(iq->cur && s->mesh->res->infra && !iq->dp->is_forward &&
		iq->qclass == DNS_CLASS_IN) /* other classes: not lameness */
		infra_set_lame(s->mesh->res->infra, &iq->cur->addr,
			iq->dp->name, st_now(s));
	iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
}

/** follow a referral: new delegation point from the NS set and glue */
static void
iter_referral(struct mesh_state *s, ldns_pkt *p, ldns_rr *nsrr)
{
	struct iter_qstate *iq = s->iq;
	ldns_rr_list *auth = ldns_pkt_authority(p);
	ldns_rr_list *add = ldns_pkt_additional(p);
	const uint8_t *zone = rdf_wire(ldns_rr_owner(nsrr));
	struct delegpt *dp;
	size_t i, j;
	if(++iq->referrals > ITER_MAX_REFERRALS) {
		iter_fail(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		return;
	}
	dp = delegpt_create(s->region, zone);
	if(!dp) {
		iter_fail(s, DNS_EDE_OTHER);
		return;
	}
	for(i = 0; i < ldns_rr_list_rr_count(auth); i++) {
		ldns_rr *rr = ldns_rr_list_rr(auth, i);
		ldns_rdf *t = ldns_rr_rdf(rr, 0);
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS ||
			!rr_owner_is(rr, zone) || !rdf_is_dname(t))
			continue;
		if(!delegpt_add_ns(dp, s->region, rdf_wire(t))) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
	}
	/* glue: A/AAAA for the NS names, already scrubbed to be under the
	 * zone of the server that sent them */
	for(j = 0; j < ldns_rr_list_rr_count(add); j++) {
		ldns_rr *rr = ldns_rr_list_rr(add, j);
		ldns_rdf *d = ldns_rr_rdf(rr, 0);
		struct delegpt_ns *ns;
		struct netaddr na;
		memset(&na, 0, sizeof(na));
		if(!rdf_is_dname(ldns_rr_owner(rr)))
			continue;
		ns = delegpt_find_ns(dp, rdf_wire(ldns_rr_owner(rr)));
		if(!ns || !d)
			continue;
		if(addr_from_rdata(&na, (uint16_t)ldns_rr_get_type(rr),
			ldns_rdf_data(d), ldns_rdf_size(d)) < 0)
			continue;
		if(delegpt_add_addr(dp, s->region, &na) < 0) {
			iter_fail(s, DNS_EDE_OTHER);
			return;
		}
		ns->resolved = 1;
	}
	if(!dp->nslist) {
		iter_server_failed(s, -1);
		return;
	}
	/* remember the delegation: the NS set and the glue for its names */
	iter_store_list(s, auth, RRSET_TRUST_AUTH_NOAA, DNS_TYPE_NS);
	for(j = 0; j < ldns_rr_list_rr_count(add); j++) {
		ldns_rr *rr = ldns_rr_list_rr(add, j);
		if(rdf_is_dname(ldns_rr_owner(rr)) &&
			delegpt_find_ns(dp, rdf_wire(ldns_rr_owner(rr))) &&
			(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A ||
			ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA)) {
			ldns_rr_list *one = ldns_rr_list_new();
			if(!one)
				break;
			if(ldns_rr_list_push_rr(one, rr))
				iter_store_list(s, one, RRSET_TRUST_ADD_NOAA, 0);
			ldns_rr_list_free(one); /* not deep: rr is p's */
		}
	}
	iq->dp = dp;
	iq->retry = NULL;
	iter_qmin_reset(s);
	iq->phase = ITER_SEND;
	mesh_schedule(s);
}

/** handle a reply from the server the state asked */
static void
iter_handle_reply(struct mesh_state *s, const uint8_t *pkt, size_t len)
{
	struct iter_qstate *iq = s->iq;
	ldns_pkt *p = NULL;
	ldns_rr_list *final = NULL, *neg = NULL, *add = NULL;
	ldns_rr *q, *nsrr;
	uint8_t name[256];
	int rcode, minimised, links, dnssec = (s->flags & MESH_FLAG_DO) != 0;

	if(ldns_wire2pkt(&p, pkt, len) != LDNS_STATUS_OK || !p) {
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		return;
	}
	iq->got_reply = 1;
	rcode = (int)ldns_pkt_get_rcode(p);
	if(rcode == DNS_RCODE_FORMERR &&
		!(iq->cur_flags & OUTBOUND_FLAG_NOEDNS) && iq->cur) {
		/* retry without EDNS, remember for this server */
		iq->cur->noedns = 1;
		if(s->mesh->res->infra)
			infra_edns_update(s->mesh->res->infra, &iq->cur->addr,
				INFRA_EDNS_NO, st_now(s));
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		mesh_schedule(s);
		goto out;
	}
	if(ldns_pkt_tc(p) && !(iq->cur_flags & OUTBOUND_FLAG_TCP) && iq->cur) {
		iq->cur->tcp = 1;
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		mesh_schedule(s);
		goto out;
	}
	/* the question must match what was sent */
	if(ldns_rr_list_rr_count(ldns_pkt_question(p)) != 1 ||
		!ldns_pkt_qr(p)) {
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		goto out;
	}
	q = ldns_rr_list_rr(ldns_pkt_question(p), 0);
	if(!rr_owner_is(q, iq->sent_qname) ||
		(uint16_t)ldns_rr_get_type(q) != iq->sent_qtype ||
		(uint16_t)ldns_rr_get_class(q) != iq->qclass) {
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
		goto out;
	}
	if(rcode == DNS_RCODE_REFUSED || rcode == DNS_RCODE_NOTIMPL) {
		/* lame: the server does not serve the zone */
		iter_server_lame(s);
		goto out;
	}
	if(rcode != DNS_RCODE_NOERROR && rcode != DNS_RCODE_NXDOMAIN) {
		/* SERVFAIL and others: a failure, not remembered */
		iter_server_failed(s, DNS_EDE_NO_REACHABLE_AUTHORITY);
		goto out;
	}
	final = ldns_rr_list_new();
	neg = ldns_rr_list_new();
	add = ldns_rr_list_new();
	if(!final || !neg || !add) {
		iter_fail(s, DNS_EDE_OTHER);
		goto out;
	}
	minimised = (iq->qmin_labels > 0);
	if(!iq->dp->is_forward) {
		/* bailiwick: only what the server is authoritative for */
		scrub_list_zone(ldns_pkt_answer(p), iq->dp->name);
		scrub_list_zone(ldns_pkt_authority(p), iq->dp->name);
		scrub_list_zone(ldns_pkt_additional(p), iq->dp->name);
	}
	scrub_private(st_env(s), ldns_pkt_answer(p));
	memcpy(name, iq->sent_qname, iq->sent_qname_len);
	dname_tolower(name);
	links = iq->cname_count;

	if(minimised) {
		/* RFC 9156: a referral moves down; anything else that says
		 * the name exists means no zone cut here: one label more;
		 * errors fall back to the full name */
		nsrr = find_ns(ldns_pkt_authority(p), name);
		if(nsrr && !ldns_pkt_aa(p) &&
			ldns_rr_list_rr_count(ldns_pkt_answer(p)) == 0 &&
			dname_is_strict_subdomain(rdf_wire(ldns_rr_owner(nsrr)),
			iq->dp->name)) {
			iter_referral(s, p, nsrr);
			goto out;
		}
		if(rcode == DNS_RCODE_NOERROR) {
			iq->qmin_labels++;
			if(iq->qmin_labels >= dname_count_labels(iq->qname))
				iq->qmin_labels = 0;
		} else {
			iq->qmin_labels = 0;
			iq->qmin_off = 1;
		}
		iq->retry = iq->cur;
		iq->phase = ITER_SEND;
		mesh_schedule(s);
		goto out;
	}

	if(walk_chain(ldns_pkt_answer(p), name, iq->qtype, iq->chain, final,
		&links, dnssec) < 0) {
		/* CNAME loop or too long chain */
		iter_fail(s, DNS_EDE_OTHER);
		goto out;
	}
	iq->cname_count = links;
	/* remember the answer records (the chain and the final set); not
	 * from CD queries, whose data other clients must not get */
	if(!(s->flags & MESH_FLAG_CD)) {
		iter_store_list(s, iq->chain, ldns_pkt_aa(p) ?
			RRSET_TRUST_ANS_AA : RRSET_TRUST_ANS_NOAA, 0);
		iter_store_list(s, final, ldns_pkt_aa(p) ?
			RRSET_TRUST_ANS_AA : RRSET_TRUST_ANS_NOAA, 0);
	}
	if(iq->qtype == DNS_TYPE_NS && ldns_rr_list_rr_count(final) > 0 &&
		!iq->dp->is_forward)
		iter_store_ns_glue(s, final, ldns_pkt_additional(p));
	if(iq->dp->is_forward) {
		/* a forwarder answers recursively: take it as is */
		if(ldns_rr_list_rr_count(final) == 0)
			copy_soa(ldns_pkt_authority(p), name, neg, dnssec);
		else	iter_extra_sections(s, p, name, neg, add);
		iter_finish(s, rcode, final, neg, add, 1);
		goto out;
	}
	if(ldns_rr_list_rr_count(final) > 0) {
		iter_extra_sections(s, p, name, neg, add);
		iter_finish(s, DNS_RCODE_NOERROR, final, neg, add, 0);
		goto out;
	}
	if(!dname_equal(name, iq->qname)) {
		/* the chain moved to a new name */
		if(rcode == DNS_RCODE_NXDOMAIN || (ldns_pkt_aa(p) &&
			has_soa(ldns_pkt_authority(p)) &&
			dname_is_subdomain(name, iq->dp->name))) {
			copy_soa(ldns_pkt_authority(p), name, neg, dnssec);
			iter_finish(s, rcode, NULL, neg, NULL, 0);
			goto out;
		}
		/* resolve the target from the top */
		memcpy(iq->qname, name, dname_len(name));
		iq->qname_len = dname_len(name);
		iq->qmin_off = 0;
		iq->referrals = 0;
		iq->retry = NULL;
		iq->skip_zone = 0;
		iq->phase = ITER_INIT;
		mesh_schedule(s);
		goto out;
	}
	if(rcode == DNS_RCODE_NXDOMAIN) {
		copy_soa(ldns_pkt_authority(p), name, neg, dnssec);
		iter_finish(s, DNS_RCODE_NXDOMAIN, NULL, neg, NULL, 0);
		goto out;
	}
	nsrr = find_ns(ldns_pkt_authority(p), name);
	if(nsrr && (!ldns_pkt_aa(p) || !has_soa(ldns_pkt_authority(p))) &&
		ldns_rr_list_rr_count(ldns_pkt_answer(p)) == 0 &&
		(!ldns_pkt_aa(p) || dname_is_strict_subdomain(
		rdf_wire(ldns_rr_owner(nsrr)), iq->dp->name))) {
		/* a referral (some servers set AA on referrals too) */
		if(dname_is_strict_subdomain(rdf_wire(ldns_rr_owner(nsrr)),
			iq->dp->name)) {
			iter_referral(s, p, nsrr);
			goto out;
		}
		/* upward or sideways referral: lame */
		iter_server_lame(s);
		goto out;
	}
	if(ldns_pkt_aa(p) || has_soa(ldns_pkt_authority(p))) {
		copy_soa(ldns_pkt_authority(p), name, neg, dnssec);
		iter_finish(s, DNS_RCODE_NOERROR, NULL, neg, NULL, 0);
		goto out;
	}
	/* nothing useful: lame */
	iter_server_lame(s);
out:
	ldns_rr_list_deep_free(final);
	ldns_rr_list_deep_free(neg);
	ldns_rr_list_deep_free(add);
	ldns_pkt_free(p);
}

/** the outbound callback: a reply, a timeout or an error */
static void
iter_reply_cb(void *arg, enum outbound_status status, const uint8_t *pkt,
	size_t len, int rtt_ms)
{
	struct mesh_state *s = arg;
	struct mesh *m = s->mesh;
	struct iter_qstate *iq = s->iq;
	iq->oq = NULL;
	iq->phase = ITER_SEND;
	if(s->mesh->res->infra && iq->cur)
		infra_rtt_update(s->mesh->res->infra, &iq->cur->addr,
			status == OUTBOUND_REPLY ? rtt_ms : -1, iq->cur_rto,
			st_now(s));
	if(status == OUTBOUND_TIMEOUT && iq->cur &&
		++iq->cur->timeouts < ITER_MAX_TIMEOUTS) {
		/* the network does not retransmit: this server may be
		 * asked again (with a doubled timeout), after the others */
		iq->ede = DNS_EDE_NETWORK_ERROR;
		mesh_schedule(s);
	} else if(status != OUTBOUND_REPLY || !pkt)
		iter_server_failed(s, DNS_EDE_NETWORK_ERROR);
	else	iter_handle_reply(s, pkt, len);
	mesh_run(m);
}

void
iter_inform_super(struct mesh_state *super, struct mesh_state *sub,
	struct mesh_answer *ans)
{
	struct iter_qstate *iq = super->iq;
	struct delegpt_ns *ns;
	size_t i;
	if(!iq || iq->phase == ITER_DONE || !iq->dp)
		return;
	ns = delegpt_find_ns(iq->dp, sub->qname);
	if(!ns)
		return;
	ns->pending = 0;
	if(ans && ans->an && ldns_rr_list_rr_count(ans->an) == 0 &&
		sub->qtype == DNS_TYPE_A && st_env(super)->do_ip6 &&
		ans->rcode == DNS_RCODE_NOERROR) {
		/* no IPv4 address: look for an IPv6 one */
		ns->resolved = 0;
	}
	if(ans && ans->an) {
		for(i = 0; i < ldns_rr_list_rr_count(ans->an); i++) {
			ldns_rr *rr = ldns_rr_list_rr(ans->an, i);
			ldns_rdf *d = ldns_rr_rdf(rr, 0);
			struct netaddr na;
			memset(&na, 0, sizeof(na));
			if(!d)
				continue;
			if(addr_from_rdata(&na, (uint16_t)ldns_rr_get_type(rr),
				ldns_rdf_data(d), ldns_rdf_size(d)) < 0)
				continue;
			(void)delegpt_add_addr(iq->dp, super->region, &na);
		}
	}
	if(iq->phase == ITER_SEND)
		mesh_schedule(super);
}
