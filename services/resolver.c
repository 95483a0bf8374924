/*
 * services/resolver.c - the per-query front end.
 *
 * See resolver.h for the order of work. The immediate path (parse, access
 * control, local zones, cache) writes into the caller's buffer and
 * allocates nothing. A finished answer is stored in the message cache and
 * each waiting client is answered from that entry by mcache_answer (the
 * hit's copy-and-patch code); an answer that was not stored is encoded
 * for each client with the dns/msgencode builder from the records of the
 * finished state (struct module_rr) into the resolver's own buffer.
 */
#include "config.h"
#include "util/log.h"
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "services/resolver.h"
#include "services/wait_limit.h"
#include "services/mesh.h"
#include "services/outbound.h"
#include "services/localzone.h"
#include "services/acl.h"
#include "services/authzone.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "util/config_file.h"
#include "util/ratelimit.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "services/cache/msgcache.h"
#include "services/cache/store.h"
#include "util/region.h"

/** the UDP size we advertise to clients in our OPT record */
#define RESOLVER_EDNS_SIZE 1232

/** what the front end keeps of a client waiting in the mesh (the mesh
 * copies it into the state's region and hands it back) */
struct resolver_client {
	/** the caller's reply handle */
	struct resolver_handle handle;
	/** query ID */
	uint16_t id;
	/** query flags word (RD, CD are echoed) */
	uint16_t qflags;
	/** question name in the client's letter case */
	uint8_t qname[256];
	/** 1 when the client sent EDNS */
	int edns;
	/** client's UDP payload size (512 without EDNS) */
	uint16_t udp_size;
	/** 1 when the client set DO */
	int do_bit;
	/** transport */
	enum resolver_transport tp;
	/** when the client arrived */
	struct timeval start;
	/** 1 when the answer must be encoded for it (its flags are not its
	 * packet's: allow_setrd); else it is answered from the message
	 * cache entry the answer was stored in, as a cache hit would be */
	int encode;
	/** length of its query packet, which follows this record */
	size_t qlen;
	/** its address, when counted by wait-limit */
	struct netaddr addr;
	/** 1 when counted by wait-limit (wait_limit_remove when it leaves) */
	int wl_counted;
	/** response-ip (policy_has_respip): 1 when client is set, 2 when
	 * local is set too */
	int respip;
	/** response-ip: the client's address and the one it asked */
	struct netaddr client, local;
};

/**
 * Response-ip on an answer for a client that waited (services/policy.h).
 * @param buf: the answer (r->buf); *len in/out.
 * @return 0 to send it, -1 to drop it.
 */
static int
resolver_respip(struct resolver *r, const struct resolver_client *c,
	const uint8_t *qpkt, size_t qlen, uint8_t *buf, size_t *len)
{
	struct fast_query fq;
	if(!c->respip || dns_query_parse_fast(qpkt, qlen, &fq) != 0)
		return 0;
	if(policy_respip_answer(r->pol, r->acl, qpkt, &fq, &c->client,
		c->respip == 2 ? &c->local : NULL, c->tp == RESOLVER_TCP, buf,
		len, DNS_MAX_MSG, &r->pstats) == POLICY_RESPIP_DROP)
		return -1;
	return 0;
}

/** a client leaves the mesh: it no longer counts for wait-limit */
static void
resolver_client_leaves(struct resolver *r, struct resolver_client *rc)
{
	if(rc->wl_counted) {
		wait_limit_remove(r->wl, &rc->addr);
		rc->wl_counted = 0;
	}
}

/** the client's query packet, stored after its record */
#define RESOLVER_CLIENT_PKT(c) ((uint8_t *)((c) + 1))

static void resolver_mesh_done(void *arg, struct mesh_state *s,
	struct mesh_answer *ans, int ede);
static void resolver_mesh_drop(void *arg, struct mesh_client *c);
static int resolver_answer_stale(void *arg, struct mesh_client *c);

struct resolver *
resolver_create(struct config_file *cfg, const struct module_stack *stack,
	struct outbound *out, struct petrel_random *rnd,
	resolver_reply_cb_type cb, void *cb_arg)
{
	struct resolver *r = calloc(1, sizeof(*r));
	struct mesh_frontend fe;
	size_t maxq = 1024;
	int jostle = 200, i;
	if(!r)
		return NULL;
	r->cfg = cfg;
	r->stack = stack;
	r->out = out;
	r->rnd = rnd;
	r->reply_cb = cb;
	r->reply_arg = cb_arg;
	r->max_udp = RESOLVER_EDNS_SIZE;
	r->expire_client_ms = 0;
	if(cfg) {
		if(cfg->num_queries_per_thread > 0)
			maxq = (size_t)cfg->num_queries_per_thread;
		jostle = cfg->jostle_timeout;
		if(cfg->max_udp_size >= 512)
			r->max_udp = (uint16_t)cfg->max_udp_size;
		r->expire_client_ms = cfg->serve_expired_client_timeout;
	}
	r->menv.cfg = cfg;
	r->menv.rnd = rnd;
	r->menv.now = out->now;
	r->menv.ctr.num_outgoing = &r->stats.num_outgoing;
	r->menv.ctr.num_prefetch = &r->stats.num_prefetch;
	r->menv.ctr.num_answer_secure = &r->stats.num_answer_secure;
	r->menv.ctr.num_answer_bogus = &r->stats.num_answer_bogus;
	r->menv.ctr.num_rrset_bogus = &r->stats.num_rrset_bogus;
	r->menv.ctr.num_ratelimited = &r->stats.num_ratelimited;
	for(i = 0; i < stack->num; i++)
		r->menv.modinfo[i] = stack->modinfo[i];
	fe.done = resolver_mesh_done;
	fe.drop = resolver_mesh_drop;
	fe.stale = resolver_answer_stale;
	r->buf = malloc(DNS_MAX_MSG);
	r->qcopy = malloc(DNS_MAX_MSG);
	r->cbuf = malloc(sizeof(struct resolver_client) + DNS_MAX_MSG);
	r->mesh = mesh_create(stack, &r->menv, out, maxq, jostle,
		r->expire_client_ms, &fe, r);
	if(r->mesh)
		mesh_set_discard_timeout(r->mesh, cfg ? cfg->discard_timeout :
			1900, &r->stats.num_discard_timeout);
	r->wait_limit = cfg ? cfg->wait_limit : 1000;
	if(r->wait_limit > 0) {
		/* room for every client address of a full mesh, twice */
		r->wl = wait_limit_create(maxq * 2);
		if(!r->wl) {
			resolver_delete(r);
			return NULL;
		}
	}
	if(!r->mesh || !r->buf || !r->qcopy || !r->cbuf) {
		resolver_delete(r);
		return NULL;
	}
	return r;
}

void
resolver_set_base(struct resolver *r, struct comm_base *base)
{
	r->menv.base = base;
}

void
resolver_set_env(struct resolver *r, struct mcache *msg,
	struct rrset_cache *rrset, struct infra_cache *infra,
	const struct local_zones *lz, const struct acl_list *acl)
{
	r->mcache = msg;
	r->rrset = rrset;
	r->infra = infra;
	r->menv.mcache = msg;
	r->menv.rrset = rrset;
	r->menv.infra = infra;
	r->lz = lz;
	r->acl = acl;
}

void
resolver_set_authz(struct resolver *r, struct auth_zones *az)
{
	r->authz = az;
	r->menv.authz = az;
	r->notify = r->authz || policy_rpz_count(r->pol) > 0;
}

void
resolver_set_ratelimit(struct resolver *r, struct rate_table *ip_rate)
{
	r->ip_rate = (r->cfg && r->cfg->ip_ratelimit > 0) ? ip_rate : NULL;
	if(r->cfg) {
		r->ip_rate_limit = r->cfg->ip_ratelimit;
		r->ip_rate_factor = r->cfg->ip_ratelimit_factor;
		r->ip_rate_backoff = r->cfg->ip_ratelimit_backoff;
	}
}

/**
 * ip-ratelimit: count the query against its client address.
 * @return 1 to go on, 0 to drop it (over the limit, and not the 1 in
 *	ip-ratelimit-factor let through).
 */
static int
resolver_ip_ratelimit_ok(struct resolver *r, const struct netaddr *client)
{
	size_t n = 0;
	const uint8_t *k;
	if(!client)
		return 1;
	k = netaddr_bytes(client, &n);
	if(!k || n == 0)
		return 1;
	if(rate_table_inc(r->ip_rate, k, n, r->out->now->tv_sec,
		r->ip_rate_backoff) <= r->ip_rate_limit)
		return 1;
	if(r->ip_rate_factor > 0 &&
		random_uniform(r->rnd, (uint32_t)r->ip_rate_factor) == 0)
		return 1;
	r->stats.num_ip_ratelimited++;
	return 0;
}

void
resolver_set_policy(struct resolver *r, const struct policy *pol)
{
	r->pol = pol;
	r->respip = policy_has_respip(pol);
	r->menv.rpz_ns = policy_has_ns_triggers(pol) ? policy_rpz_ns : NULL;
	r->menv.rpz_ns_arg = (void *)pol;
	r->notify = r->authz || policy_rpz_count(pol) > 0;
}

void
resolver_set_local(struct resolver *r, const struct netaddr *local)
{
	r->local = local;
}

void
resolver_delete(struct resolver *r)
{
	if(!r)
		return;
	mesh_delete(r->mesh);
	free(r->buf);
	free(r->qcopy);
	free(r->cbuf);
	wait_limit_delete(r->wl);
	free(r);
}

size_t
resolver_num_pending(struct resolver *r)
{
	return mesh_num_clients(r->mesh);
}

/** answer an error straight away; @return RESOLVER_ANSWERED or DROP */
static enum resolver_result
resolver_error(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *fq, int rcode, int ede, uint8_t *out,
	size_t outmax, size_t *outlen)
{
	int n = dns_build_error_reply(pkt, len, fq, rcode, 1, ede, NULL,
		r->max_udp, out, outmax);
	if(n < 0)
		return RESOLVER_DROP;
	*outlen = (size_t)n;
	return RESOLVER_ANSWERED;
}

/** serve-expired: answer a client from an expired cache entry (its query
 * packet is in c->qpkt) and call the reply callback (the mesh's stale
 * callback). @return 1 when answered, 0 when there is no usable entry. */
static int
resolver_answer_stale(void *arg, struct mesh_client *c)
{
	struct resolver *r = arg;
	struct resolver_client *rc = c->data;
	struct fast_query fq;
	size_t len = 0;
	int refresh = 0;
	if(!r->mcache || !c->qpkt)
		return 0;
	if(dns_query_parse_fast(c->qpkt, c->qlen, &fq) != 0)
		return 0;
	if(mcache_answer(r->mcache, &fq, c->qpkt, rc->tp == RESOLVER_TCP,
		r->out->now->tv_sec, r->buf, DNS_MAX_MSG, &len, &refresh) !=
		MCACHE_HIT_EXPIRED)
		return 0;
	r->stats.num_expired++;
	resolver_client_leaves(r, rc);
	if(resolver_respip(r, rc, c->qpkt, c->qlen, r->buf, &len) != 0) {
		r->stats.num_dropped++;
		r->reply_cb(r->reply_arg, &rc->handle, NULL, 0);
		return 1;
	}
	r->reply_cb(r->reply_arg, &rc->handle, r->buf, len);
	return 1;
}

/** the mesh drops a client without an answer */
static void
resolver_mesh_drop(void *arg, struct mesh_client *c)
{
	struct resolver *r = arg;
	struct resolver_client *rc = c->data;
	resolver_client_leaves(r, rc);
	r->stats.num_dropped++;
	r->reply_cb(r->reply_arg, &rc->handle, NULL, 0);
}

/** extended statistics of a well-formed query: array increments on this
 * worker's own counters */
static void
resolver_count_query(struct resolver *r, const struct fast_query *fq,
	const struct netaddr *client)
{
	uint16_t t = fq->qinfo.qtype, cl = fq->qinfo.qclass;
	int i;
	r->stats.qtype[t < RESOLVER_STATS_QTYPES ? t : RESOLVER_STATS_QTYPES]++;
	r->stats.qclass[cl < RESOLVER_STATS_QTYPES ? cl :
		RESOLVER_STATS_QTYPES]++;
	r->stats.qopcode[fq->opcode & 0xf]++;
	for(i = 0; i < 8; i++)
		if(fq->flags & (DNS_FLAG_QR >> (i == 0 ? 0 : i + 4)))
			r->stats.qflags[i]++;
	if(fq->edns.present) {
		r->stats.qedns++;
		if(fq->edns.do_bit)
			r->stats.qedns_do++;
	}
	if(client && client->addr.ss_family == AF_INET6)
		r->stats.qipv6++;
}

/** recursion time of a client answered after recursion, in the
 * histogram (bucket i >= 1 holds [2^(i-1), 2^i) microseconds) */
static void
resolver_count_rec_time(struct resolver *r, const struct resolver_client *c)
{
	const struct timeval *now = r->out->now;
	long long us = (long long)(now->tv_sec - c->start.tv_sec) * 1000000LL +
		(now->tv_usec - c->start.tv_usec);
	int b = 0;
	if(us < 0)
		us = 0;
	while(b < RESOLVER_STATS_HIST - 1 && (us >> b) != 0)
		b++;
	r->stats.rec_hist[b]++;
	r->stats.rec_time_us += (uint64_t)us;
}

void
resolver_prefetch(struct resolver *r, const uint8_t *pkt, size_t len,
	struct resolver_peek *pk, int stage)
{
	if(stage == 0) {
		pk->have_hash = 0;
		if(len < DNS_HDR_SIZE || len > DNS_MAX_MSG) {
			pk->err = DNS_ERR_TRUNCATED;
			return;
		}
		pk->err = dns_query_parse_fast(pkt, len, &pk->fq);
		if(pk->err != 0 || !r->mcache)
			return;
		pk->hash = mcache_hash(&pk->fq);
		pk->have_hash = 1;
	}
	if(pk->have_hash && r->mcache)
		mcache_prefetch(r->mcache, pk->hash, stage);
}

/**
 * The start of every client packet: count it, drop what cannot be a DNS
 * message, and when the answer is built in the query's buffer, move the
 * query to the resolver's copy (the cache and the error replies read the
 * client's question while writing the answer).
 * @return the packet to work from, or NULL to drop.
 */
static const uint8_t *
resolver_take(struct resolver *r, const uint8_t *pkt, size_t len,
	const uint8_t *out, size_t outmax, size_t *outlen)
{
	r->stats.num_queries++;
	*outlen = 0;
	if(len < DNS_HDR_SIZE || len > DNS_MAX_MSG) {
		r->stats.num_malformed++;
		return NULL;
	}
	if((uintptr_t)out < (uintptr_t)(pkt + len) &&
		(uintptr_t)pkt < (uintptr_t)(out + outmax)) {
		memcpy(r->qcopy, pkt, len);
		return r->qcopy;
	}
	return pkt;
}

/**
 * Answer from an auth-zone for-downstream.
 * @return 1 when *res is the result (answered, or SERVFAIL written), 0
 *	when no zone answers (resolve).
 */
static int
resolver_auth_answer(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, enum resolver_transport tp, uint8_t *out,
	size_t outmax, size_t *outlen, enum resolver_result *res)
{
	switch(auth_zones_answer_downstream(r->authz, pkt, len, q->qname_off,
		q->qinfo.qname, q->qinfo.qtype, q->qinfo.qclass, q->id,
		q->flags, q->edns.present, q->edns.present && q->edns.do_bit,
		q->edns.udp_size, tp == RESOLVER_TCP, out, outmax, outlen)) {
	case AUTH_ANSWERED:
		r->stats.num_local++;
		*res = RESOLVER_ANSWERED;
		return 1;
	case AUTH_FAIL:
		r->stats.num_servfail++;
		*res = resolver_error(r, pkt, len, q, DNS_RCODE_SERVFAIL,
			DNS_EDE_NOT_READY, out, outmax, outlen);
		return 1;
	case AUTH_NOT:
	default:
		break;
	}
	return 0;
}

/** handle a client packet parsed into q with result err */
static enum resolver_result
resolver_handle_parsed(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, int err, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	struct local_front_info info;
	struct resolver_client *c = (struct resolver_client *)r->cbuf;
	int flags = 0, stale = 0, norec_ok;

	if(r->notify && len >= DNS_HDR_SIZE && !(pkt[2] & 0x80) &&
		((pkt[2] >> 3) & 0x0f) == DNS_OPCODE_NOTIFY) {
		/* NOTIFY for an rpz zone or an auth-zone: its own ACL
		 * (allow-notify and the primaries), not access-control */
		if(client && r->pol && policy_rpz_notify(r->pol, pkt, len,
			client, out, outmax, outlen))
			return RESOLVER_ANSWERED;
		if(r->authz) {
			if(client && auth_zones_notify(r->authz, pkt, len,
				client, out, outmax, outlen))
				return RESOLVER_ANSWERED;
			return RESOLVER_DROP;
		}
		/* no auth zones: NOTIMPL, as any other opcode */
	}
	if(err == DNS_ERR_NOT_QUERY) {
		/* a response: never answer it (reflection loops) */
		r->stats.num_malformed++;
		return RESOLVER_DROP;
	}
	if(err != 0) {
		r->stats.num_malformed++;
		return resolver_error(r, pkt, len, q, DNS_RCODE_FORMERR, -1,
			out, outmax, outlen);
	}
	resolver_count_query(r, q, client);
	if(q->opcode != DNS_OPCODE_QUERY)
		return resolver_error(r, pkt, len, q, DNS_RCODE_NOTIMPL, -1,
			out, outmax, outlen);
	if(q->edns.present && q->edns.version != 0)
		/* dns_build_error_reply answers BADVERS */
		return resolver_error(r, pkt, len, q, DNS_RCODE_FORMERR, -1,
			out, outmax, outlen);
	if(q->qinfo.qtype == DNS_TYPE_AXFR || q->qinfo.qtype == DNS_TYPE_IXFR)
		return resolver_error(r, pkt, len, q, DNS_RCODE_REFUSED,
			DNS_EDE_NOT_SUPPORTED, out, outmax, outlen);
	/* ip-ratelimit: before local zones and the cache (a flood of
	 * cached names is what it is for); off, it costs one test */
	if(r->ip_rate && !resolver_ip_ratelimit_ok(r, client))
		return RESOLVER_DROP;
	memset(&info, 0, sizeof(info));
	norec_ok = r->authz && !(q->flags & DNS_FLAG_RD) &&
		auth_zones_downstream_covers(r->authz, q->qinfo.qname);
	/* with views or RPZ zones the policy answers first (a query without
	 * RD for an auth-zone for-downstream name then meets the RD rule) */
	switch(r->pol ? policy_front_answer(r->pol, r->acl, r->lz, pkt, len,
		q, client, r->local, tp == RESOLVER_TCP, out, outmax, outlen,
		&info, &r->pstats) : local_front_answer_norec(r->acl, r->lz, pkt,
		len, q, client, tp == RESOLVER_TCP, out, outmax, outlen, &info,
		norec_ok)) {
	case LOCAL_FRONT_ANSWERED:
		/* a redirect-zone CNAME alias (info.alias) is answered with
		 * the CNAME alone; its target is not chased */
		r->stats.num_local++;
		return RESOLVER_ANSWERED;
	case LOCAL_FRONT_DROP:
		r->stats.num_acl_denied++;
		return RESOLVER_DROP;
	case LOCAL_FRONT_CONTINUE:
	default:
		break;
	}
	if(norec_ok) {
		/* without RD, for an auth-zone for-downstream: the zone
		 * answers, never the cache (that would be snooping) */
		enum resolver_result rr = RESOLVER_PENDING;
		if(resolver_auth_answer(r, pkt, len, q, tp, out, outmax,
			outlen, &rr))
			return rr;
		if(info.action != ACL_ALLOW_SNOOP)
			/* the zone did not answer (no data, fallback): what
			 * the RD rule says */
			return resolver_error(r, pkt, len, q,
				DNS_RCODE_REFUSED, DNS_EDE_NOT_AUTHORITATIVE,
				out, outmax, outlen);
	}
	if(q->edns.present && q->edns.do_bit)
		flags |= MESH_FLAG_DO;
	if(q->flags & DNS_FLAG_CD)
		flags |= MESH_FLAG_CD;
	flags |= MESH_FLAG_RD;

	/* the message cache: the hot path */
	if(r->mcache) {
		int refresh = 0;
		enum mcache_result mr;
		mr = mcache_answer(r->mcache, q, pkt, tp == RESOLVER_TCP,
			r->out->now->tv_sec, out, outmax, outlen, &refresh);
		if(mr == MCACHE_HIT_EXPIRED && r->expire_client_ms > 0) {
			/* serve-expired-client-timeout: try for a fresh
			 * answer first; the expired one (written to out,
			 * now discarded) is given if that is slow or fails */
			*outlen = 0;
			stale = 1;
			goto mesh;
		}
		if(mr != MCACHE_MISS) {
			/* response-ip: one test when not configured */
			if(r->respip && policy_respip_answer(r->pol, r->acl,
				pkt, q, client, r->local, tp == RESOLVER_TCP,
				out, outlen, outmax, &r->pstats) ==
				POLICY_RESPIP_DROP) {
				r->stats.num_cache_hits++;
				return RESOLVER_DROP;
			}
			r->stats.num_cache_hits++;
			if(mr == MCACHE_HIT_EXPIRED)
				r->stats.num_expired++;
			if(refresh)
				(void)mesh_new_prefetch(r->mesh,
					q->qinfo.qname, q->qinfo.qtype,
					q->qinfo.qclass, flags);
			return RESOLVER_ANSWERED;
		}
	}
	if(r->authz && !norec_ok) {
		/* auth-zone for-downstream, on a cache miss: a name the
		 * zone answers is never in the cache, and a cached answer
		 * (a name below one of its cuts, resolved) stays the hot
		 * path, without a zone lookup */
		enum resolver_result rr = RESOLVER_PENDING;
		if(resolver_auth_answer(r, pkt, len, q, tp, out, outmax,
			outlen, &rr))
			return rr;
	}
mesh:
	/* the mesh */
	r->stats.num_cache_miss++;
	{
		uint64_t n = (uint64_t)mesh_num_states(r->mesh);
		r->stats.reqlist_sum += n;
		r->stats.reqlist_samples++;
		if(n > r->stats.reqlist_max)
			r->stats.reqlist_max = n;
	}
	memset(c, 0, sizeof(*c));
	if(handle)
		c->handle = *handle;
	c->id = q->id;
	c->qflags = q->flags;
	if(info.set_rd && !(q->flags & DNS_FLAG_RD)) {
		c->qflags |= DNS_FLAG_RD;
		c->encode = 1;
	}
	memcpy(c->qname, pkt + q->qname_off, q->qinfo.qname_len);
	c->edns = q->edns.present;
	c->udp_size = q->edns.present ? q->edns.udp_size : DNS_MIN_UDP;
	if(c->udp_size < DNS_MIN_UDP)
		c->udp_size = DNS_MIN_UDP;
	c->do_bit = q->edns.present && q->edns.do_bit;
	c->tp = tp;
	c->start = *r->out->now;
	c->qlen = len;
	memcpy(RESOLVER_CLIENT_PKT(c), pkt, len);
	if(r->respip && client) {
		c->client = *client;
		c->respip = 1;
		if(r->local) {
			c->local = *r->local;
			c->respip = 2;
		}
	}
	if(client && r->wl) {
		/* wait-limit: the clients of one address waiting here */
		switch(wait_limit_add(r->wl, client, r->wait_limit)) {
		case WAIT_LIMIT_COUNTED:
			c->addr = *client;
			c->wl_counted = 1;
			break;
		case WAIT_LIMIT_OVER:
			r->stats.num_wait_limit++;
			r->stats.num_dropped++;
			return RESOLVER_DROP;
		case WAIT_LIMIT_FULL:
		default:
			break;
		}
	}
	if(mesh_new_client(r->mesh, q->qinfo.qname, q->qinfo.qtype,
		q->qinfo.qclass, flags, c, sizeof(*c) + len, stale ? pkt : NULL,
		stale ? len : 0) < 0) {
		resolver_client_leaves(r, c);
		r->stats.num_dropped++;
		r->stats.num_servfail++;
		return resolver_error(r, pkt, len, q, DNS_RCODE_SERVFAIL,
			DNS_EDE_OTHER, out, outmax, outlen);
	}
	return RESOLVER_PENDING;
}

enum resolver_result
resolver_handle_query(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct netaddr *client, enum resolver_transport tp,
	const struct resolver_handle *handle, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	struct fast_query fq;
	int err;
	if(!(pkt = resolver_take(r, pkt, len, out, outmax, outlen)))
		return RESOLVER_DROP;
	err = dns_query_parse_fast(pkt, len, &fq);
	return resolver_handle_parsed(r, pkt, len, &fq, err, client, tp,
		handle, out, outmax, outlen);
}

enum resolver_result
resolver_handle_peeked(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct resolver_peek *pk, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	/* (the parse holds offsets and a copy of the name: it stays valid
	 * for the copy resolver_take may make) */
	if(!(pkt = resolver_take(r, pkt, len, out, outmax, outlen)))
		return RESOLVER_DROP;
	return resolver_handle_parsed(r, pkt, len, &pk->fq, pk->err, client,
		tp, handle, out, outmax, outlen);
}

static int encode_section(struct dns_builder *b, int section,
	const struct module_rrlist *l, const struct mcache_params *clamp,
	int negative);

/** the security status of an answer as the message cache keeps it */
static int
resolver_cache_sec(enum module_sec_status sec)
{
	switch(sec) {
	case MODULE_SEC_SECURE:
		return MCACHE_SEC_SECURE;
	case MODULE_SEC_INSECURE:
		return MCACHE_SEC_INSECURE;
	case MODULE_SEC_BOGUS:
		return MCACHE_SEC_BOGUS;
	case MODULE_SEC_UNCHECKED:
	default:
		return MCACHE_SEC_UNCHECKED;
	}
}

/**
 * The RRsets of one section, for the store path: consecutive records of
 * one owner, type and class form a set (as the encoder groups them); its
 * TTL is the smallest, its trust the lowest of its records'.
 * @param l: the section's records.
 * @param section: DNS_SEC_*.
 * @param sets: where the sets go (room for every record of the answer).
 * @param n: in/out: sets used.
 * @param rd, rdlen: RDATA pointers and lengths, one per record; *k in/out
 *	used.
 */
static void
resolver_sets_of(const struct module_rrlist *l, int section,
	struct cache_rrset *sets, size_t *n, const uint8_t **rd,
	uint16_t *rdlen, size_t *k)
{
	const struct module_rr *rr = l->first;
	while(rr) {
		struct cache_rrset *cs = &sets[(*n)++];
		const struct module_rr *first = rr;
		cs->owner = first->owner;
		cs->owner_len = first->owner_len;
		cs->type = first->type;
		cs->rrclass = first->rrclass;
		cs->ttl = first->ttl;
		cs->section = (uint8_t)section;
		cs->trust = first->trust;
		cs->count = 0;
		cs->rdata = &rd[*k];
		cs->rdlen = &rdlen[*k];
		for(; rr && (rr == first || (rr->type == first->type &&
			rr->rrclass == first->rrclass &&
			dname_equal(rr->owner, first->owner))); rr = rr->next) {
			rd[*k] = rr->rdata;
			rdlen[*k] = rr->rdlen;
			(*k)++;
			cs->count++;
			if(rr->ttl < cs->ttl)
				cs->ttl = rr->ttl;
			if(rr->trust < cs->trust)
				cs->trust = rr->trust;
		}
	}
}

/** Store a finished state's answer (not SERVFAIL): the one store path,
 * services/cache/store.h (its marked RRsets in the RRset cache, the
 * message in the message cache).
 * @return 1 when the message was stored, 0 when not */
static int
resolver_store_answer(struct resolver *r, struct mesh_state *s,
	struct mesh_answer *ans)
{
	struct query_info qi;
	struct cache_answer ca;
	struct cache_rrset *sets;
	const uint8_t **rd;
	uint16_t *rdlen;
	size_t total, n = 0, k = 0;
	if((!r->mcache && !r->rrset) || !ans || ans->policy)
		return 0; /* (a policy answer is for now, not for the cache) */
	if(query_info_set(&qi, s->qname, s->qtype, s->qclass) < 0)
		return 0;
	total = ans->an.count + ans->ns.count + ans->ar.count;
	sets = region_alloc(s->qs.region, total * sizeof(*sets) + 1);
	rd = region_alloc(s->qs.region, total * sizeof(*rd) + 1);
	rdlen = region_alloc(s->qs.region, total * sizeof(*rdlen) + 1);
	if(!sets || !rd || !rdlen)
		return 0;
	resolver_sets_of(&ans->an, DNS_SEC_ANSWER, sets, &n, rd, rdlen, &k);
	resolver_sets_of(&ans->ns, DNS_SEC_AUTHORITY, sets, &n, rd, rdlen, &k);
	resolver_sets_of(&ans->ar, DNS_SEC_ADDITIONAL, sets, &n, rd, rdlen,
		&k);
	memset(&ca, 0, sizeof(ca));
	ca.qinfo = &qi;
	ca.rcode = ans->rcode;
	ca.do_bit = (s->flags & MESH_FLAG_DO) != 0;
	ca.cd_bit = (s->flags & MESH_FLAG_CD) != 0;
	ca.sec = resolver_cache_sec(ans->sec);
	ca.ede = ans->ede;
	ca.sets = sets;
	ca.nsets = n;
	/* the message cache keeps only NOERROR and NXDOMAIN answers */
	if(ans->rcode != DNS_RCODE_NOERROR && ans->rcode != DNS_RCODE_NXDOMAIN)
		return cache_store_answer(NULL, r->rrset, &ca,
			r->out->now->tv_sec, r->buf, DNS_MAX_MSG,
			s->qs.region) == MCACHE_STORED;
	return cache_store_answer(r->mcache, r->rrset, &ca,
		r->out->now->tv_sec, r->buf, DNS_MAX_MSG, s->qs.region) ==
		MCACHE_STORED;
}

/**
 * Answer a waiting client from the message cache entry its answer was
 * just stored in, by the cache hit's copy-and-patch code (its ID, flags,
 * question letter case, EDNS, UDP size and TC come from its own query).
 * @return 1 when answered, 0 when the entry is not there (the caller
 *	encodes the answer instead).
 */
static int
resolver_answer_from_entry(struct resolver *r, struct resolver_client *c)
{
	struct fast_query fq;
	size_t len = 0;
	enum mcache_result mr;
	if(c->encode || dns_query_parse_fast(RESOLVER_CLIENT_PKT(c), c->qlen,
		&fq) != 0)
		return 0;
	mr = mcache_answer(r->mcache, &fq, RESOLVER_CLIENT_PKT(c),
		c->tp == RESOLVER_TCP, r->out->now->tv_sec, r->buf,
		DNS_MAX_MSG, &len, NULL);
	if(mr != MCACHE_HIT && mr != MCACHE_HIT_PREFETCH)
		return 0;
	if(resolver_respip(r, c, RESOLVER_CLIENT_PKT(c), c->qlen, r->buf,
		&len) != 0) {
		r->stats.num_dropped++;
		r->reply_cb(r->reply_arg, &c->handle, NULL, 0);
		return 1;
	}
	r->stats.num_recursive_replies++;
	resolver_count_rec_time(r, c);
	r->reply_cb(r->reply_arg, &c->handle, r->buf, len);
	return 1;
}

/** most RRs in one RRset we encode */
#define RESOLVER_MAX_SET 256

/**
 * Add a section, RRset by RRset (consecutive RRs of the same owner, type
 * and class).
 * @param clamp: when not NULL, TTLs are clamped to cache-min-ttl and
 *	cache-max-ttl (and the SOA of a negative answer to
 *	cache-max-negative-ttl), as the cache would give them.
 * @param negative: 1 for NXDOMAIN/NODATA answers.
 * @return 0, or -1 when truncated/failed.
 */
static int
encode_section(struct dns_builder *b, int section,
	const struct module_rrlist *l, const struct mcache_params *clamp,
	int negative)
{
	const struct module_rr *rr = l->first;
	while(rr) {
		const uint8_t *rd[RESOLVER_MAX_SET];
		uint16_t rdlen[RESOLVER_MAX_SET];
		const struct module_rr *first = rr;
		uint32_t ttl = first->ttl;
		size_t k = 0;
		int err;
		while(rr && k < RESOLVER_MAX_SET) {
			if(k > 0 && (rr->type != first->type ||
				rr->rrclass != first->rrclass ||
				!dname_equal(rr->owner, first->owner)))
				break;
			rd[k] = rr->rdata;
			rdlen[k] = rr->rdlen;
			if(rr->ttl < ttl)
				ttl = rr->ttl;
			k++;
			rr = rr->next;
		}
		if(clamp) {
			if(clamp->max_ttl && ttl > clamp->max_ttl)
				ttl = clamp->max_ttl;
			if(ttl < clamp->min_ttl)
				ttl = clamp->min_ttl;
			if(negative && section == DNS_SEC_AUTHORITY &&
				first->type == DNS_TYPE_SOA &&
				clamp->max_negative_ttl &&
				ttl > clamp->max_negative_ttl)
				ttl = clamp->max_negative_ttl;
		}
		err = dns_build_rrset(b, section, first->owner, first->type,
			first->rrclass, ttl, k, rd, rdlen);
		if(err == DNS_ERR_NOSPACE && section == DNS_SEC_ADDITIONAL)
			continue;
		if(err != 0)
			return -1;
	}
	return 0;
}

/** Encode the answer (or SERVFAIL) for one client and call the reply
 * callback. */
static void
resolver_answer_client(struct resolver *r, struct mesh_state *s,
	struct mesh_client *mc, struct mesh_answer *ans, int ede, int stored)
{
	struct resolver_client *c = mc->data;
	const struct mcache_params *clamp = r->mcache ?
		mcache_get_params(r->mcache) : NULL;
	struct dns_builder b;
	struct edns_opt_out opt;
	uint8_t edebuf[64];
	size_t limit, len, nopt = 0;
	int rcode = ans ? ans->rcode : DNS_RCODE_SERVFAIL;
	uint16_t flags;

	if(rcode == DNS_RCODE_SERVFAIL && mc->qpkt &&
		resolver_answer_stale(r, mc))
		return; /* serve-expired: stale beats SERVFAIL */
	resolver_client_leaves(r, c);
	if(ans && ans->policy == 2)
		goto drop; /* RPZ DROP from the iterator */
	if(stored && resolver_answer_from_entry(r, c))
		return;
	/* the one encode path: answers that were not stored (SERVFAIL, TTL
	 * 0, too large, no cache), and allow_setrd clients */

	if(!ans) {
		r->stats.num_servfail++;
		if(ede < 0)
			ede = DNS_EDE_OTHER;
	} else if(ans->ede >= 0)
		ede = ans->ede;
	else	ede = -1;
	flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(c->qflags & (DNS_FLAG_RD | DNS_FLAG_CD)) | (rcode & 0xf));
	if(c->tp == RESOLVER_TCP)
		limit = DNS_MAX_MSG;
	else if(c->edns)
		limit = c->udp_size < r->max_udp ? c->udp_size : r->max_udp;
	else	limit = DNS_MIN_UDP;
	dns_build_init(&b, r->buf, DNS_MAX_MSG, limit);
	if(dns_build_header(&b, c->id, flags) != 0 ||
		dns_build_question(&b, c->qname, s->qtype, s->qclass) != 0)
		goto drop;
	if(c->edns) {
		if(ede >= 0) {
			edns_opt_ede(&opt, edebuf, sizeof(edebuf),
				(uint16_t)ede, NULL);
			nopt = 1;
		}
		dns_build_reserve(&b, dns_opt_size(&opt, nopt));
	}
	if(ans) {
		int neg = ans->rcode == DNS_RCODE_NXDOMAIN ||
			ans->an.count == 0;
		if(encode_section(&b, DNS_SEC_ANSWER, &ans->an, clamp,
			neg) == 0 &&
		   encode_section(&b, DNS_SEC_AUTHORITY, &ans->ns, clamp,
			neg) == 0)
			(void)encode_section(&b, DNS_SEC_ADDITIONAL, &ans->ar,
				clamp, neg);
	}
	if(c->edns) {
		dns_build_reserve(&b, 0);
		if(dns_build_opt(&b, r->max_udp, rcode, c->do_bit,
			nopt ? &opt : NULL, nopt) != 0)
			goto drop;
	}
	len = dns_build_finish(&b);
	if(resolver_respip(r, c, RESOLVER_CLIENT_PKT(c), c->qlen, r->buf,
		&len) != 0)
		goto drop;
	r->stats.num_recursive_replies++;
	resolver_count_rec_time(r, c);
	r->reply_cb(r->reply_arg, &c->handle, r->buf, len);
	return;
drop:
	r->stats.num_dropped++;
	r->reply_cb(r->reply_arg, &c->handle, NULL, 0);
}

/** the mesh's done callback: store the answer, answer every client */
static void
resolver_mesh_done(void *arg, struct mesh_state *s, struct mesh_answer *ans,
	int ede)
{
	struct resolver *r = arg;
	struct mesh_client *c;
	int stored = resolver_store_answer(r, s, ans);
	for(c = s->clients; c; c = c->next)
		resolver_answer_client(r, s, c, ans, ede, stored);
}
