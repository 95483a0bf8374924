/*
 * front/resolver.c - the per-query front end.
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
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>
#include "front/resolver.h"
#include "front/wait_limit.h"
#include "services/mesh.h"
#include "services/outbound.h"
#include "front/localzone.h"
#include "front/acl.h"
#include "services/authzone.h"
#include "services/authzone_lookup.h"
#include "services/module.h"
#include "front/modstack.h"
#include "dns/ecs.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "util/config_file.h"
#include "util/ratelimit.h"
#include "util/histogram.h"
#include "util/random.h"
#include "util/netaddr.h"
#include "util/netevent/proxy_protocol.h"
#include "services/cache/msgcache.h"
#include "services/cache/store.h"
#include "services/cache/rrset.h"
#include "front/cookie_secrets.h"
#include "dns/cookie.h"
#include "dns/padding.h"
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
	/** 1 when the client sent an ECS option: its reply carries one
	 * (ecs, with the scope of the answer) */
	int ecs_echo;
	/** the client's ECS option */
	struct module_ecs ecs;
	/** 1 when it asked for the NSID (nsid is set) */
	int nsid;
	/** 1 when its answer carries cookie (answer-cookie) */
	int has_cookie;
	/** the COOKIE option data of its answer */
	uint8_t cookie[COOKIE_FULL_LEN];
	/** response-ip (policy_has_respip): 1 when client is set, 2 when
	 * local is set too */
	int respip;
	/** RPZ QNAME triggers on its answer's CNAME targets (the resolver's
	 * rpzc, and no passthru): client and local are set as for respip */
	int rpzc;
	/** response-ip: the client's address and the one it asked */
	struct netaddr client, local;
	/** 1 when the client's question was answered by a CNAME whose
	 * target this state resolves: a struct resolver_chase follows the
	 * query packet (RESOLVER_CHASE_OF) */
	int chase;
	/** the client's tags its state is keyed by (policy_ns_tags) */
	uint64_t tags;
	/** 1 when a query without RD found no delegation in the cache: it
	 * waits for the root's priming (its state is ". NS") and is
	 * answered with that answer under its own question (encode) */
	int norec_prime;
	/** its own question type and class (with norec_prime) */
	uint16_t own_qtype, own_qclass;
	/** 1 when a query without RD found its closest delegation in the
	 * cache not yet validated: it waits for the cut's NS set to be
	 * resolved (and validated), then gets the referral from the cache
	 * (resolver_norec_client) */
	int norec_refer;
};

/** a client leaves the mesh: it no longer counts for wait-limit */
static void
resolver_client_leaves(struct resolver *r, struct resolver_client *rc)
{
	if(rc->wl_counted) {
		wait_limit_remove(r->wl, &rc->addr);
		rc->wl_counted = 0;
	}
}


/** most bytes of records a chased answer starts with (struct
 * resolver_chase.pre); a longer chain is answered without a chase */
#define RESOLVER_CHASE_PRE 1024

/** a CNAME chase (resolver.h): what the client asked, and the records
 * that answer it up to a CNAME whose target is resolved; the target's
 * answer goes after them (resolver_chase_splice) */
struct resolver_chase {
	/** the client's question name, in its letter case */
	uint8_t qname[DNS_MAX_NAME];
	/** the client's question type and class */
	uint16_t qtype, qclass;
	/** the CNAME target, uncompressed */
	uint8_t target[DNS_MAX_NAME];
	/** its length */
	size_t target_len;
	/** the largest answer the client takes (its UDP size, or TCP) */
	size_t limit;
	/** 1 when the policy answer had an EDE (RPZ: 17 Filtered): it is
	 * kept when the target's answer has none */
	int has_ede;
	/** its INFO-CODE, wire order */
	uint8_t ede[2];
	/** 1 when the front answer had AA (local data, an RPZ rule): the
	 * spliced answer keeps it, its first record being that answer's
	 * (RFC 1035 section 4.1.1: AA is about the question's name) */
	int aa;
	/** the records that come first (the CNAME; for response-ip the
	 * chain before it too), each: owner, type, class, TTL, RDLENGTH,
	 * RDATA, names uncompressed */
	uint8_t pre[RESOLVER_CHASE_PRE];
	/** bytes used in pre */
	size_t pre_len;
	/** the front end's chase only: the client's own query (its
	 * SERVFAIL when the mesh is full) */
	const uint8_t *opkt;
	/** its length */
	size_t olen;
	/** its parse */
	const struct fast_query *oq;
};

/** the client's query packet, stored after its record */
#define RESOLVER_CLIENT_PKT(c) ((uint8_t *)((c) + 1))
/** the chase of a client with chase set, after its query packet */
#define RESOLVER_CHASE_OF(c) ((struct resolver_chase *)(void *)( \
	RESOLVER_CLIENT_PKT(c) + (((c)->qlen + 7) & ~(size_t)7)))
/** the size of a waiting client's record with a query of qlen bytes */
#define RESOLVER_CLIENT_SIZE(qlen, chase) (sizeof(struct resolver_client) + \
	((chase) ? (((qlen) + 7) & ~(size_t)7) + \
	sizeof(struct resolver_chase) : (qlen)))

/* (the chase functions are not inlined: their frames stay off the
 * cached-answer path's) */
/* r->chase, allocated at the first chase: the target's query (at 0), the
 * spliced answer (DNS_MAX_MSG), RDATA scratch (2 * DNS_MAX_MSG), a new
 * client record (resolver_chase_waiting), the chase of the query being
 * handled and the parse of its target's query (off the stack of the
 * cached-answer path) */
#define RESOLVER_ALIGN16(x) (((size_t)(x) + 15) & ~(size_t)15)
#define RESOLVER_CH_REC RESOLVER_ALIGN16(3 * (size_t)DNS_MAX_MSG)
#define RESOLVER_CH_FRONT RESOLVER_ALIGN16(RESOLVER_CH_REC + DNS_MAX_MSG)
#define RESOLVER_CH_Q2 RESOLVER_ALIGN16(RESOLVER_CH_FRONT + \
	sizeof(struct resolver_chase))
#define RESOLVER_CH_SIZE (RESOLVER_CH_Q2 + sizeof(struct fast_query))

/** add a record to ch->pre. @return 0, or -1 when it does not fit */
static int
resolver_chase_add(struct resolver_chase *ch, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	size_t ol = dname_len(owner);
	uint8_t *p = ch->pre + ch->pre_len;
	if(ol == 0 || rdlen > 0xffff || ch->pre_len + ol + 10 + rdlen >
		sizeof(ch->pre))
		return -1;
	memcpy(p, owner, ol);
	p += ol;
	dns_write_u16(p, type);
	dns_write_u16(p + 2, rrclass);
	dns_write_u32(p + 4, ttl);
	dns_write_u16(p + 8, (uint16_t)rdlen);
	memcpy(p + 10, rdata, rdlen);
	ch->pre_len += ol + 10 + rdlen;
	return 0;
}

/** keep the EDE of a policy answer in ch (when it has one) */
static void
resolver_chase_ede(struct resolver_chase *ch, const struct dns_msg *m)
{
	size_t i;
	if(!m->edns.present)
		return;
	for(i = 0; i < m->edns.num_opts && i < EDNS_MAX_OPTS; i++)
		if(m->edns.opts[i].code == DNS_EDNS_EDE &&
			m->edns.opts[i].len >= 2) {
			ch->has_ede = 1;
			memcpy(ch->ede, m->pkt + m->edns.opts[i].off, 2);
			return;
		}
}

static int resolver_chase_rewritten(struct resolver_chase *ch,
	const uint8_t *pkt, const struct fast_query *q, const uint8_t *ans,
	size_t anslen);

/**
 * A chase for a front answer with an alias (a redirect-zone CNAME or an
 * RPZ CNAME rule, struct local_alias): the CNAME from the question name;
 * an answer with more records (a chain of RPZ rules) goes first whole.
 * @param pkt, q: the client's query.
 * @param ans, anslen: the front answer (its EDE is kept).
 * @return 0, or -1 (no chase).
 */
static int __attribute__((noinline))
resolver_chase_alias(struct resolver_chase *ch, const uint8_t *pkt,
	const struct fast_query *q, const struct local_alias *al,
	const uint8_t *ans, size_t anslen)
{
	struct dns_msg m;
	if(anslen >= DNS_HDR_SIZE && ((ans[6] << 8) | ans[7]) > 1)
		return resolver_chase_rewritten(ch, pkt, q, ans, anslen);
	memset(ch, 0, sizeof(*ch));
	if(al->target_len == 0 || al->target_len > sizeof(ch->target) ||
		q->qinfo.qname_len > sizeof(ch->qname))
		return -1;
	memcpy(ch->qname, pkt + q->qname_off, q->qinfo.qname_len);
	memcpy(ch->target, al->target, al->target_len);
	ch->target_len = al->target_len;
	if(resolver_chase_add(ch, ch->qname, DNS_TYPE_CNAME, q->qinfo.qclass,
		al->ttl, al->target, al->target_len) != 0)
		return -1;
	if(dns_msg_parse(ans, anslen, &m, NULL, 0) == 0)
		resolver_chase_ede(ch, &m);
	ch->aa = anslen >= DNS_HDR_SIZE &&
		(dns_hdr_flags(ans) & DNS_FLAG_AA) != 0;
	return 0;
}

/**
 * A chase for an answer response-ip rewrote to end in a CNAME (the data
 * of a redirect, or an RPZ RESPONSE-IP CNAME rule) that the answer does
 * not follow: its answer section comes first.
 * @param pkt, q: the client's query.
 * @param ans, anslen: the rewritten answer.
 * @return 0, or -1 (no chase: the answer goes out as it is).
 */
static int __attribute__((noinline))
resolver_chase_rewritten(struct resolver_chase *ch, const uint8_t *pkt,
	const struct fast_query *q, const uint8_t *ans, size_t anslen)
{
	struct dns_msg m;
	uint8_t owner[DNS_MAX_NAME], rd[RESOLVER_CHASE_PRE];
	const struct dns_rr *last;
	size_t i, n;
	int rc;
	memset(ch, 0, sizeof(*ch));
	if(dns_msg_parse(ans, anslen, &m, NULL, 0) != 0 ||
		(m.rcode & 0xf) != DNS_RCODE_NOERROR ||
		m.sec_count[DNS_SEC_ANSWER] == 0)
		return -1;
	last = &m.rrs[m.sec_first[DNS_SEC_ANSWER] +
		m.sec_count[DNS_SEC_ANSWER] - 1];
	if(last->type != DNS_TYPE_CNAME ||
		!(ch->target_len = dns_rr_rdata_name(&m, last, ch->target)))
		return -1;
	for(i = 0; i < m.sec_count[DNS_SEC_ANSWER]; i++) {
		const struct dns_rr *rr = &m.rrs[m.sec_first[DNS_SEC_ANSWER] +
			i];
		(void)dns_rr_owner(&m, rr, owner);
		if(dname_equal(owner, ch->target))
			return -1; /* the answer follows it */
		if((rc = dns_rr_rdata_uncompressed(&m, rr, rd, sizeof(rd))) < 0)
			return -1;
		n = (size_t)rc;
		if(resolver_chase_add(ch, owner, rr->type, rr->rrclass,
			rr->ttl, rd, n) != 0)
			return -1;
	}
	memcpy(ch->qname, pkt + q->qname_off, q->qinfo.qname_len);
	resolver_chase_ede(ch, &m);
	ch->aa = (m.flags & DNS_FLAG_AA) != 0;
	return 0;
}

/**
 * The room of the front end's chase (allocated at the first chase).
 * @param ch: set to the chase; q2: to the parse of the target's query.
 * @return 0, or -1 (out of memory: no chase).
 */
static int __attribute__((noinline))
resolver_chase_space(struct resolver *r, struct resolver_chase **ch,
	struct fast_query **q2)
{
	if(!r->chase && !(r->chase = malloc(RESOLVER_CH_SIZE)))
		return -1;
	*ch = (struct resolver_chase *)(void *)(r->chase + RESOLVER_CH_FRONT);
	*q2 = (struct fast_query *)(void *)(r->chase + RESOLVER_CH_Q2);
	return 0;
}


/**
 * Parse a client's query again (a waiting client's stored packet, a
 * CNAME chase's made-up one), as resolver_handle_parsed saw it: with
 * disable-edns-do a query with DO is one without EDNS.
 * @return dns_query_parse_fast's result.
 */
static int
resolver_reparse(const struct resolver *r, const uint8_t *pkt, size_t len,
	struct fast_query *q)
{
	int err = dns_query_parse_fast(pkt, len, q);
	if(err == 0 && (r->front_opts & RESOLVER_OPT_NODO) &&
		q->edns.present && q->edns.do_bit) {
		q->edns.present = 0;
		q->edns.do_bit = 0;
	}
	return err;
}

/**
 * Begin a CNAME chase (its records in ch): the client's query with the
 * target as its question name (header and EDNS kept) is written to
 * r->chase and parsed.
 * @param pkt, len, q: the client's query.
 * @param tcp: 1 over TCP.
 * @param ch: its question and limit are filled in.
 * @param q2: the parse of the target's query.
 * @param len2: its length.
 * @return 0, or -1 when there is no chase (out of memory, the query does
 *	not fit): the answer goes out as it is.
 */
static int __attribute__((noinline))
resolver_chase_begin(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, int tcp, struct resolver_chase *ch,
	struct fast_query *q2, size_t *len2)
{
	size_t n;
	uint8_t *b;
	if(!r->chase && !(r->chase = malloc(RESOLVER_CH_SIZE)))
		return -1;
	if(!r->chase_region && !(r->chase_region = region_create(8192)))
		return -1;
	n = DNS_HDR_SIZE + ch->target_len + 4 + (len - q->question_end);
	if(q->qname_off != DNS_HDR_SIZE || q->question_end < DNS_HDR_SIZE +
		q->qinfo.qname_len + 4 || n > DNS_MAX_MSG - 2 * sizeof(*ch) ||
		ch->target_len == 0)
		return -1;
	b = r->chase;
	memcpy(b, pkt, DNS_HDR_SIZE);
	memcpy(b + DNS_HDR_SIZE, ch->target, ch->target_len);
	memcpy(b + DNS_HDR_SIZE + ch->target_len, pkt + q->question_end - 4,
		4 + (len - q->question_end));
	if(resolver_reparse(r, b, n, q2) != 0)
		return -1;
	q2->edns.cookie_reply = q->edns.cookie_reply;
	ch->qtype = q->qinfo.qtype;
	ch->qclass = q->qinfo.qclass;
	ch->limit = fast_query_answer_limit(q, tcp, r->max_udp, DNS_MAX_MSG);
	*len2 = n;
	return 0;
}

/**
 * The answer for a chased target becomes the answer to the client's own
 * question: the target answer's header (AA and AD cleared) and the
 * client's question, the chase's records (the CNAME; not when the target
 * failed: SERVFAIL), then the target answer's records and its OPT record
 * (EDE, cookie; the policy answer's EDE when it has none). Truncated
 * (TC) to the client's size.
 * @param buf: the target's answer; replaced. *len in/out; bufmax its
 *	size.
 * @return 0, or -1 (drop: the answer does not parse).
 */
static int __attribute__((noinline))
resolver_chase_splice(struct resolver *r, const struct resolver_chase *ch,
	uint8_t *buf, size_t *len, size_t bufmax)
{
	struct dns_msg m;
	struct dns_builder b;
	struct edns_opt_out opts[EDNS_MAX_OPTS];
	uint8_t owner[DNS_MAX_NAME];
	uint8_t *out = r->chase + DNS_MAX_MSG, *rd = out + DNS_MAX_MSG;
	size_t i, nopt = 0, n, p;
	int rc, ede = 0, fail;
	if(dns_msg_parse(buf, *len, &m, r->chase_region, 0) != 0) {
		region_free_all(r->chase_region);
		return -1;
	}
	dns_build_init(&b, out, DNS_MAX_MSG, ch->limit < bufmax ? ch->limit :
		bufmax);
	/* a target that failed fails the answer: SERVFAIL without the
	 * chase's records and without AA, as Unbound answers an alias
	 * whose target fails (local_cname.rpl) */
	fail = (m.rcode == DNS_RCODE_SERVFAIL);
	/* (AD cleared too: the policy's CNAME is not validated; AA is the
	 * front answer's, whose CNAME comes first) */
	if(dns_build_header(&b, m.id, (uint16_t)((m.flags & ~(DNS_FLAG_AA |
		DNS_FLAG_AD | DNS_FLAG_TC | 0xf)) | (m.rcode & 0xf) |
		(ch->aa && !fail ? DNS_FLAG_AA : 0))) != 0 ||
		dns_build_question(&b, ch->qname, ch->qtype, ch->qclass) != 0)
		goto fail;
	if(m.edns.present) {
		for(i = 0; i < m.edns.num_opts && i < EDNS_MAX_OPTS; i++) {
			opts[nopt].code = m.edns.opts[i].code;
			opts[nopt].len = m.edns.opts[i].len;
			opts[nopt].data = buf + m.edns.opts[i].off;
			if(opts[nopt].code == DNS_EDNS_EDE)
				ede = 1;
			nopt++;
		}
		if(ch->has_ede && !ede && nopt < EDNS_MAX_OPTS) {
			opts[nopt].code = DNS_EDNS_EDE;
			opts[nopt].len = 2;
			opts[nopt].data = ch->ede;
			nopt++;
		}
		dns_build_reserve(&b, dns_opt_size(opts, nopt));
	}
	for(p = 0; p < ch->pre_len && !fail; ) {
		const uint8_t *o = ch->pre + p, *f = o + dname_len(o);
		size_t rdl = dns_read_u16(f + 8);
		if(dns_build_rr(&b, DNS_SEC_ANSWER, o, dns_read_u16(f),
			dns_read_u16(f + 2), dns_read_u32(f + 4), f + 10, rdl)
			!= 0) {
			/* too long for the client: TC, nothing more */
			dns_build_truncate(&b);
			break;
		}
		p = (size_t)(f + 10 + rdl - ch->pre);
	}
	for(i = 0; i < m.rr_count && !dns_build_is_truncated(&b); i++) {
		const struct dns_rr *rr = &m.rrs[i];
		(void)dns_rr_owner(&m, rr, owner);
		if((rc = dns_rr_rdata_uncompressed(&m, rr, rd, DNS_MAX_MSG)) <
			0)
			continue;
		n = (size_t)rc;
		if(dns_build_rr(&b, rr->section, owner, rr->type, rr->rrclass,
			rr->ttl, rd, n) == DNS_ERR_NOSPACE) {
			/* (what does not fit of the additional section is
			 * left out without TC) */
			if(rr->section != DNS_SEC_ADDITIONAL)
				dns_build_truncate(&b);
			break;
		}
	}
	if(m.flags & DNS_FLAG_TC)
		dns_build_truncate(&b);
	if(m.edns.present) {
		dns_build_reserve(&b, 0);
		if(dns_build_opt(&b, m.edns.udp_size, m.rcode, m.edns.do_bit,
			nopt ? opts : NULL, nopt) != 0)
			goto fail;
	}
	n = dns_build_finish(&b);
	region_free_all(r->chase_region);
	if(n == 0 || n > bufmax)
		return -1;
	memcpy(buf, out, n);
	*len = n;
	return 0;
fail:
	region_free_all(r->chase_region);
	return -1;
}

/**
 * A waiting client whose answer response-ip rewrote to end in a CNAME:
 * it waits on for the target (a new mesh client, its record with the
 * chase). Called from the mesh's callbacks (mesh_run does not nest).
 * @param c: the client's record; qpkt, qlen: its query.
 * @param buf, len: the rewritten answer.
 * @return 1 when it waits for the target, 0 when not (send the answer).
 */
static int
resolver_chase_waiting(struct resolver *r, const struct resolver_client *c,
	const uint8_t *qpkt, size_t qlen, const uint8_t *buf, size_t len)
{
	struct fast_query fq, q2;
	struct resolver_chase ch;
	struct resolver_client *nc;
	size_t len2;
	int flags = MESH_FLAG_RD;
	if(resolver_reparse(r, qpkt, qlen, &fq) != 0 ||
		fq.qinfo.qtype == DNS_TYPE_CNAME ||
		fq.qinfo.qtype == DNS_TYPE_ANY ||
		resolver_chase_rewritten(&ch, qpkt, &fq, buf, len) != 0 ||
		resolver_chase_begin(r, qpkt, qlen, &fq, c->tp == RESOLVER_TCP,
		&ch, &q2, &len2) != 0)
		return 0;
	if(RESOLVER_CLIENT_SIZE(len2, 1) > DNS_MAX_MSG)
		return 0;
	nc = (struct resolver_client *)(void *)(r->chase + RESOLVER_CH_REC);
	*nc = *c;
	nc->wl_counted = 0;
	nc->chase = 1;
	nc->qlen = len2;
	memcpy(nc->qname, r->chase + DNS_HDR_SIZE, ch.target_len);
	memcpy(RESOLVER_CLIENT_PKT(nc), r->chase, len2);
	memcpy(RESOLVER_CHASE_OF(nc), &ch, sizeof(ch));
	if(c->do_bit)
		flags |= MESH_FLAG_DO;
	if(c->qflags & DNS_FLAG_CD)
		flags |= MESH_FLAG_CD;
	return mesh_new_client_tags(r->mesh, q2.qinfo.qname, q2.qinfo.qtype,
		q2.qinfo.qclass, flags, c->ecs_echo ? &c->ecs : NULL, c->tags,
		nc, RESOLVER_CLIENT_SIZE(len2, 1), NULL, 0) == 0;
}

/**
 * A chased target's answer that response-ip rewrote again to end in a
 * CNAME back to a name of the chase (the client's name, or an owner of
 * the records before it): a loop of redirects. Unbound answers such a
 * loop SERVFAIL (its respip_cname_loop_tagged.rpl).
 * @return 1 for a loop.
 */
static int __attribute__((noinline))
resolver_chase_loops(const struct resolver_chase *ch, const uint8_t *buf,
	size_t len)
{
	struct dns_msg m;
	uint8_t t[DNS_MAX_NAME];
	const struct dns_rr *last;
	size_t p;
	if(dns_msg_parse(buf, len, &m, NULL, 0) != 0 ||
		m.sec_count[DNS_SEC_ANSWER] == 0)
		return 0;
	last = &m.rrs[m.sec_first[DNS_SEC_ANSWER] +
		m.sec_count[DNS_SEC_ANSWER] - 1];
	if(last->type != DNS_TYPE_CNAME || !dns_rr_rdata_name(&m, last, t))
		return 0;
	if(dname_equal(t, ch->qname))
		return 1;
	for(p = 0; p < ch->pre_len; ) {
		const uint8_t *o = ch->pre + p, *f = o + dname_len(o);
		if(dname_equal(t, o))
			return 1;
		p = (size_t)(f + 10 + dns_read_u16(f + 8) - ch->pre);
	}
	return 0;
}

/**
 * The SERVFAIL of a chase (a loop of redirects): the client's question,
 * no records, the OPT record of the target's query.
 * @param qpkt, qlen: the target's query.
 * @param buf, len, bufmax: where the answer goes, its length, its room.
 * @return 0, or -1 (drop).
 */
static int __attribute__((noinline))
resolver_chase_servfail(struct resolver *r, const struct resolver_chase *ch,
	const uint8_t *qpkt, size_t qlen, uint8_t *buf, size_t *len,
	size_t bufmax)
{
	struct fast_query fq;
	struct resolver_chase none;
	int n;
	memset(&none, 0, sizeof(none));
	(void)dns_query_parse_fast(qpkt, qlen, &fq);
	if((n = dns_build_error_reply(qpkt, qlen, &fq, DNS_RCODE_SERVFAIL, 1,
		r->cfg && !r->cfg->ede ? -1 : DNS_EDE_OTHER, NULL, r->max_udp,
		buf, bufmax)) < 0)
		return -1;
	*len = (size_t)n;
	/* the client's question, nothing before the answer */
	memcpy(none.qname, ch->qname, sizeof(none.qname));
	none.qtype = ch->qtype;
	none.qclass = ch->qclass;
	none.limit = ch->limit;
	return resolver_chase_splice(r, &none, buf, len, bufmax);
}

/** a policy step on an answer about to be sent
 * (policy_rpz_cname_answer, policy_respip_answer) */
typedef enum policy_respip_result (*resolver_policy_step_type)(
	const struct policy *p, const struct acl_list *acl,
	const uint8_t *pkt, const struct fast_query *fq,
	const struct netaddr *client, const struct netaddr *local, int tcp,
	uint8_t *ans, size_t *anslen, size_t ansmax, struct policy_stats *st);

/**
 * One policy step on the answer for a client that waited; an answer the
 * step rewrote to a CNAME is chased (one level) unless the client is in
 * a chase already.
 * @param step: the policy's function.
 * @param local: the local address it is given, or NULL.
 * @param buf: the answer (r->buf); *len in/out.
 * @return 0 when it passed the answer unchanged, 2 when it rewrote it,
 *	1 when the client now waits for the CNAME target (send nothing now),
 *	-1 to drop it.
 */
static int
resolver_policy_step(struct resolver *r, const struct resolver_client *c,
	resolver_policy_step_type step, const struct netaddr *local,
	const uint8_t *qpkt, size_t qlen, uint8_t *buf, size_t *len)
{
	struct fast_query fq;
	if(dns_query_parse_fast(qpkt, qlen, &fq) != 0)
		return 0;
	switch(step(r->pol, r->acl, qpkt, &fq, &c->client, local,
		c->tp == RESOLVER_TCP, buf, len, DNS_MAX_MSG, &r->pstats)) {
	case POLICY_RESPIP_DROP:
		return -1;
	case POLICY_RESPIP_REWRITTEN:
		if(!c->chase && resolver_chase_waiting(r, c, qpkt, qlen, buf,
			*len))
			return 1;
		return 2;
	default:
		return 0;
	}
}

/**
 * The last step of an answer for a client that waited: RPZ on the CNAME
 * targets, then response-ip (front/policy.h), then, for a CNAME chase,
 * the chase's records put before it; an answer either rewrote to a CNAME
 * is chased (one level).
 * @param buf: the answer (r->buf); *len in/out.
 * @return 0 to send it, -1 to drop it, 1 when the client now waits for
 *	the CNAME target (send nothing now).
 */
static int
resolver_respip(struct resolver *r, const struct resolver_client *c,
	const uint8_t *qpkt, size_t qlen, uint8_t *buf, size_t *len)
{
	int rv = 0;
	/* RPZ on the CNAME targets first: its answer is final */
	if(c->rpzc)
		rv = resolver_policy_step(r, c, policy_rpz_cname_answer,
			r->local ? &c->local : NULL, qpkt, qlen, buf, len);
	if(rv == 0 && c->respip) {
		rv = resolver_policy_step(r, c, policy_respip_answer,
			c->respip == 2 ? &c->local : NULL, qpkt, qlen, buf,
			len);
		if(rv == 2 && c->chase && resolver_chase_loops(
			RESOLVER_CHASE_OF(c), buf, *len))
			return resolver_chase_servfail(r, RESOLVER_CHASE_OF(c),
				qpkt, qlen, buf, len, DNS_MAX_MSG) == 0 ? 0 : -1;
	}
	if(rv == -1 || rv == 1)
		return rv;
	if(c->chase)
		return resolver_chase_splice(r, RESOLVER_CHASE_OF(c), buf, len,
			DNS_MAX_MSG);
	return 0;
}

static void resolver_mesh_done(void *arg, struct mesh_state *s,
	struct mesh_answer *ans, int ede);
static void resolver_mesh_drop(void *arg, struct mesh_client *c);
static void resolver_client_nsid(const struct resolver *r,
	const struct resolver_client *c, uint8_t *buf, size_t *len);
static int resolver_answer_stale(void *arg, struct mesh_client *c);

/** order of wait-limit-netblock entries: the longest prefix first */
static int
resolver_wl_cmp(const void *a, const void *b)
{
	const struct resolver_wl_block *x = a, *y = b;
	return y->nb.prefix - x->nb.prefix;
}

/**
 * Read wait-limit-netblock lines ("netblock number", checked at load).
 * @param l: the lines.
 * @param out: set to the array (malloced; NULL when there are none).
 * @param n: set to its length.
 * @return 0, or -1 (out of memory).
 */
static int
resolver_wl_blocks(const struct config_strlist *l,
	struct resolver_wl_block **out, size_t *n)
{
	const struct config_strlist *e;
	size_t k = 0;
	*out = NULL;
	*n = 0;
	for(e = l; e; e = e->next)
		k++;
	if(k == 0)
		return 0;
	if(!(*out = calloc(k, sizeof(**out))))
		return -1;
	for(e = l; e; e = e->next) {
		char nb[128];
		const char *why = "";
		long v = 0;
		if(sscanf(e->str, "%127s %ld", nb, &v) != 2 ||
			netblock_parse(nb, &(*out)[*n].nb, 1, &why) != 0)
			continue; /* (checked by the config loader) */
		(*out)[*n].limit = (int)v;
		(*n)++;
	}
	qsort(*out, *n, sizeof(**out), resolver_wl_cmp);
	return 0;
}

/**
 * cachedb-check-when-serve-expired (with serve-expired and no
 * serve-expired-client-timeout): an expired answer of the local cache
 * waits for the Redis lookup, which serves it as soon as Redis has
 * nothing fresh (env->serve_stale); this is the longest it waits, the
 * lookup's own bound plus a little, should the module never say.
 * @return milliseconds.
 */
static int
resolver_cachedb_wait(const struct config_file *cfg)
{
	int a = cfg->redis_command_timeout > 0 ? cfg->redis_command_timeout :
		cfg->redis_timeout;
	int b = cfg->redis_replica_command_timeout > 0 ?
		cfg->redis_replica_command_timeout :
		cfg->redis_replica_timeout;
	return (a > b ? a : b) + 50;
}

/**
 * The wait-limit of a client: the longest wait-limit-netblock (or
 * -cookie-netblock) that holds its address, else wait-limit (or
 * wait-limit-cookie). A linear scan: the lists are short, and this is
 * the recursion path, not the cached-answer one.
 */
static int
resolver_wait_limit_of(const struct resolver *r, const struct netaddr *a,
	int cookie_valid)
{
	const struct resolver_wl_block *b = cookie_valid ?
		r->wl_cookie_blocks : r->wl_blocks;
	size_t i, n = cookie_valid ? r->wl_cookie_nblocks : r->wl_nblocks;
	for(i = 0; i < n; i++)
		if(netblock_match(&b[i].nb, a))
			return b[i].limit;
	return cookie_valid ? r->wait_limit_cookie : r->wait_limit;
}

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
		if(cfg->serve_expired && r->expire_client_ms == 0 &&
			cfg->cachedb_check_when_serve_expired &&
			modstack_find_cap(stack,
			MODSTACK_CAP_SECOND_CACHE) >= 0)
			r->expire_client_ms = resolver_cachedb_wait(cfg);
		r->front_opts = (cfg->deny_any ? RESOLVER_OPT_DENY_ANY : 0) |
			(cfg->harden_large_queries ? RESOLVER_OPT_LARGE : 0) |
			(cfg->edns_tcp_keepalive ? RESOLVER_OPT_KEEPALIVE : 0) |
			(cfg->disable_edns_do ? RESOLVER_OPT_NODO : 0);
	}
	if(modstack_find_cap(stack, MODSTACK_CAP_CLIENT_ECS) >= 0) {
		r->ecs_code = cfg ? (uint16_t)cfg->client_subnet_opcode :
			ECS_OPTION_CODE;
		r->ecs_always = cfg ? cfg->client_subnet_always_forward : 0;
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
	r->menv.ctr.num_quota_exceeded = &r->stats.num_quota_exceeded;
	r->menv.ctr.num_subnet = &r->stats.num_subnet;
	r->menv.ctr.num_subnet_cache = &r->stats.num_subnet_cache;
	for(i = 0; i < stack->num; i++)
		r->menv.modinfo[i] = stack->modinfo[i];
	fe.done = resolver_mesh_done;
	fe.drop = resolver_mesh_drop;
	fe.stale = resolver_answer_stale;
	r->buf = malloc(DNS_MAX_MSG);
	r->qcopy = malloc(DNS_MAX_MSG);
	r->cbuf = malloc(sizeof(struct resolver_client) + DNS_MAX_MSG + 8 +
		sizeof(struct resolver_chase));
	r->mesh = mesh_create(stack, &r->menv, out, maxq, jostle,
		r->expire_client_ms, &fe, r);
	if(r->mesh) {
		mesh_set_discard_timeout(r->mesh, cfg ? cfg->discard_timeout :
			1900, &r->stats.num_discard_timeout);
		r->mesh->ctr_jostle = &r->stats.num_jostled;
	}
	r->wait_limit = cfg ? cfg->wait_limit : 1000;
	if(cfg) {
		const struct config_acl *a;
		for(a = cfg->acls; a; a = a->next)
			if(a->action == ACL_ALLOW_COOKIE)
				r->acl_cookie = 1;
	}
	r->wait_limit_cookie = cfg ? cfg->wait_limit_cookie : 10000;
	if(cfg && cfg->nsid && cfg->nsid[0]) {
		/* (checked by the config load) */
		size_t n = 0;
		if(!(r->nsid = malloc(CONFIG_NSID_MAX)) ||
			config_nsid(cfg->nsid, r->nsid, &n) != 0) {
			resolver_delete(r);
			return NULL;
		}
		r->nsid_len = (uint16_t)n;
	}
	if(cfg && (resolver_wl_blocks(cfg->wait_limit_netblock,
		&r->wl_blocks, &r->wl_nblocks) != 0 ||
		resolver_wl_blocks(cfg->wait_limit_cookie_netblock,
		&r->wl_cookie_blocks, &r->wl_cookie_nblocks) != 0)) {
		resolver_delete(r);
		return NULL;
	}
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
resolver_start(struct resolver *r, int worker_index)
{
	mesh_start(r->mesh, worker_index);
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
		r->ip_rate_limit_cookie = r->cfg->ip_ratelimit_cookie;
	}
}

void
resolver_set_cookies(struct resolver *r, const struct cookie_secrets *cs)
{
	r->cookies = (r->cfg && r->cfg->answer_cookie) ? cs : NULL;
}

/**
 * ip-ratelimit: count the query against its client address.
 * @param cookie_valid: the query has a valid server cookie: the limit is
 *	ip-ratelimit-cookie (0: none), and ip-ratelimit-factor does not
 *	apply (as Unbound).
 * @return 1 to go on, 0 to drop it (over the limit, and not the 1 in
 *	ip-ratelimit-factor let through).
 */
static int
resolver_ip_ratelimit_ok(struct resolver *r, const struct netaddr *client,
	int cookie_valid)
{
	size_t n = 0;
	const uint8_t *k;
	int64_t rate;
	if(!client)
		return 1;
	k = netaddr_bytes(client, &n);
	if(!k || n == 0)
		return 1;
	rate = (int64_t)rate_table_inc(r->ip_rate, k, n, r->out->now->tv_sec,
		r->ip_rate_backoff);
	if(cookie_valid) {
		if(r->ip_rate_limit_cookie == 0 ||
			rate <= r->ip_rate_limit_cookie)
			return 1;
		r->stats.num_ip_ratelimited++;
		return 0;
	}
	if(rate <= r->ip_rate_limit)
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
	r->rpzc = policy_rpz_count(pol) > 0;
	r->menv.rpz_ns = policy_has_ns_triggers(pol) ? policy_rpz_ns : NULL;
	r->menv.rpz_ns_arg = (void *)pol;
	r->menv.rpz_qname = r->rpzc ? policy_rpz_qname : NULL;
	/* response-ip on a module's sub-query answers, where the respip
	 * module runs (as Unbound's does on them) */
	r->menv.respip = r->respip && r->stack &&
		modstack_find_cap(r->stack, MODSTACK_CAP_RESPIP) >= 0 ?
		policy_respip_sub : NULL;
	r->ns_tag_mask = policy_ns_tag_mask(pol);
	r->notify = r->authz || policy_rpz_count(pol) > 0;
}

void
resolver_set_acl(struct resolver *r, const struct acl_list *acl)
{
	r->acl = acl;
}

void
resolver_set_local(struct resolver *r, const struct netaddr *local)
{
	r->local = local;
}

void
resolver_set_proxy(struct resolver *r, const struct netaddr *proxy)
{
	r->proxy = proxy;
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
	free(r->chase);
	region_destroy(r->chase_region);
	region_destroy(r->norec_region);
	wait_limit_delete(r->wl);
	free(r->wl_blocks);
	free(r->wl_cookie_blocks);
	free(r->nsid);
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
	int n;
	if(r->cfg && !r->cfg->ede)
		ede = -1;
	n = dns_build_error_reply(pkt, len, fq, rcode, 1, ede, NULL,
		r->max_udp, out, outmax);
	if(n < 0)
		return RESOLVER_DROP;
	*outlen = (size_t)n;
	return RESOLVER_ANSWERED;
}

/** serve-expired: answer a client from an expired cache entry (its query
 * packet is in c->qpkt, or else, not for a CNAME chase, the one its
 * record keeps) and call the reply callback (the mesh's stale callback;
 * a SERVFAIL's clients). @return 1 when answered, 0 when there is no
 * usable entry. */
static int
resolver_answer_stale(void *arg, struct mesh_client *c)
{
	struct resolver *r = arg;
	struct resolver_client *rc = c->data;
	struct fast_query fq;
	const uint8_t *qpkt = c->qpkt;
	size_t len = 0, qlen = c->qlen;
	int refresh = 0, rv;
	if(!qpkt && !rc->chase && !rc->encode) {
		qpkt = RESOLVER_CLIENT_PKT(rc);
		qlen = rc->qlen;
	}
	if(!r->mcache || !qpkt)
		return 0;
	if(resolver_reparse(r, qpkt, qlen, &fq) != 0)
		return 0;
	if(rc->has_cookie && fq.edns.present)
		fq.edns.cookie_reply = rc->cookie;
	if(mcache_answer(r->mcache, &fq, qpkt, rc->tp == RESOLVER_TCP,
		r->out->now->tv_sec, r->buf, DNS_MAX_MSG, &len, &refresh) !=
		MCACHE_HIT_EXPIRED)
		return 0;
	r->stats.num_expired++;
	resolver_client_leaves(r, rc);
	r->reply_start = rc->start;
	if((rv = resolver_respip(r, rc, qpkt, qlen, r->buf, &len)) == 1)
		return 1; /* it waits for a CNAME target */
	if(rv != 0) {
		r->stats.num_dropped++;
		r->reply_cb(r->reply_arg, &rc->handle, NULL, 0);
		return 1;
	}
	resolver_client_nsid(r, rc, r->buf, &len);
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
	/* qflags[0] is QR, qflags[1..7] the bits AA (bit 10) down to CD
	 * (bit 4): only the bits that are set are visited (a query has one
	 * or two; a loop over all eight cost 81 instructions per cached
	 * answer, bench/hitcost) */
	unsigned f = fq->flags & 0x07f0u;
	r->stats.qtype[t < RESOLVER_STATS_QTYPES ? t : RESOLVER_STATS_QTYPES]++;
	r->stats.qclass[cl < RESOLVER_STATS_QTYPES ? cl :
		RESOLVER_STATS_QTYPES]++;
	r->stats.qopcode[fq->opcode & 0xf]++;
	if(fq->flags & DNS_FLAG_QR)
		r->stats.qflags[0]++;
	while(f) {
		r->stats.qflags[11 - __builtin_ctz(f)]++;
		f &= f - 1;
	}
	if(fq->edns.present) {
		r->stats.qedns++;
		if(fq->edns.do_bit)
			r->stats.qedns_do++;
	}
	if(client && client->addr.ss_family == AF_INET6)
		r->stats.qipv6++;
}

/** recursion time of a client answered after recursion, in the
 * histogram (util/histogram.h gives the buckets) */
static void
resolver_count_rec_time(struct resolver *r, const struct resolver_client *c)
{
	const struct timeval *now = r->out->now;
	long long us = (long long)(now->tv_sec - c->start.tv_sec) * 1000000LL +
		(now->tv_usec - c->start.tv_usec);
	if(us < 0)
		us = 0;
	r->stats.rec_hist[hist_bucket((uint64_t)us)]++;
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
		/* the zone's own failure is authoritative, as Unbound
		 * answers it (AA on the SERVFAIL of a zone with no data) */
		if(*outlen >= 4)
			out[2] |= 0x04;
		return 1;
	case AUTH_NOT:
	default:
		break;
	}
	return 0;
}

/**
 * The subnet of a client (subnetcache in the stack): its ECS option, or
 * its address when it sent none.
 * @param ecs: filled in.
 * @return 1 with a subnet, 0 without (no address), -1 for a malformed
 *	option (FORMERR).
 */
static int
resolver_client_ecs(struct resolver *r, const uint8_t *pkt,
	const struct fast_query *q, const struct netaddr *client,
	struct module_ecs *ecs)
{
	uint16_t olen = 0;
	size_t off;
	if(q->edns.present && (off = edns_opt_find(pkt, &q->edns,
		r->ecs_code, 0, &olen)) != 0) {
		if(ecs_parse(pkt + off, olen, 1, ecs) != 0)
			return -1;
		ecs->from_client = 1;
		return 1;
	}
	if(!client || ecs_from_addr(client, ecs) != 0)
		return 0;
	return 1;
}

/**
 * Add the ECS option, scope 0, to a reply from the message cache for a
 * client that sent one (RFC 7871 7.2.1; the cache holds scope 0 answers
 * only). The reply's OPT record must be its last record, as the cache
 * writes it.
 * @return 0, or -1 when it cannot (no room within the client's size):
 *	the caller answers it another way.
 */
static int
resolver_reply_ecs(struct resolver *r, const struct fast_query *q,
	const struct module_ecs *ecs, enum resolver_transport tp,
	uint8_t *pkt, size_t max, size_t *len)
{
	uint8_t opt[32];
	size_t n = ecs_write(r->ecs_code, ecs, ecs->source, 0, opt,
		sizeof(opt)), pos = DNS_HDR_SIZE, last = 0, i, limit;
	size_t nrr = (size_t)dns_hdr_ancount(pkt) + dns_hdr_nscount(pkt) +
		dns_hdr_arcount(pkt);
	uint16_t rdlen = 0;
	limit = tp == RESOLVER_TCP ? DNS_MAX_MSG : (q->edns.udp_size <
		r->max_udp ? q->edns.udp_size : r->max_udp);
	if(limit > max)
		limit = max;
	if(n == 0 || *len < DNS_HDR_SIZE || *len + n > limit || nrr == 0)
		return -1;
	for(i = 0; i < dns_hdr_qdcount(pkt); i++) {
		if(dname_pkt_read(pkt, *len, &pos, NULL, NULL) != 0 ||
			pos + 4 > *len)
			return -1;
		pos += 4;
	}
	for(i = 0; i < nrr; i++) {
		if(dname_pkt_read(pkt, *len, &pos, NULL, NULL) != 0 ||
			pos + 10 > *len)
			return -1;
		last = pos;
		rdlen = dns_read_u16(pkt + pos + 8);
		pos += 10 + (size_t)rdlen;
		if(pos > *len)
			return -1;
	}
	if(pos != *len || dns_read_u16(pkt + last) != DNS_TYPE_OPT ||
		(size_t)rdlen + n > 65535)
		return -1;
	dns_write_u16(pkt + last + 8, (uint16_t)(rdlen + n));
	memcpy(pkt + *len, opt, n);
	*len += n;
	return 0;
}

/**
 * answer-cookie: check the COOKIE option of a query and make the one of
 * its answer in r->cookie_out (q->edns.cookie_reply points at it). The
 * client cookie comes back with the same server cookie when that is
 * valid and recent, else with a fresh one (RFC 9018 section 4.3). No
 * allocation, no lock: the secrets are an immutable snapshot.
 * @return the status; COOKIE_MALFORMED (a bad length) is answered
 *	FORMERR by the caller, and then nothing was made.
 */
static enum cookie_status
resolver_cookie(struct resolver *r, const uint8_t *pkt,
	struct fast_query *q, const struct netaddr *client)
{
	const struct cookie_set *set = cookie_secrets_get(r->cookies);
	const uint8_t *opt = pkt + q->edns.cookie_off;
	uint32_t now = (uint32_t)r->out->now->tv_sec;
	size_t alen = 0;
	const uint8_t *a = netaddr_bytes(client, &alen);
	static const uint8_t none[1] = { 0 };
	enum cookie_status st;
	if(!a) {
		a = none;
		alen = 0;
	}
	st = cookie_check(opt, q->edns.cookie_len, set->s, set->n, a, alen,
		now);
	switch(st) {
	case COOKIE_MALFORMED:
		return st;
	case COOKIE_VALID:
		r->stats.num_cookie_valid++;
		memcpy(r->cookie_out, opt, COOKIE_FULL_LEN);
		break;
	case COOKIE_VALID_RENEW:
		r->stats.num_cookie_valid++;
		cookie_make(set->s, opt, a, alen, now, r->cookie_out);
		break;
	case COOKIE_CLIENT_ONLY:
		r->stats.num_cookie_client++;
		cookie_make(set->s, opt, a, alen, now, r->cookie_out);
		break;
	default:
		r->stats.num_cookie_invalid++;
		cookie_make(set->s, opt, a, alen, now, r->cookie_out);
		break;
	}
	q->edns.cookie_reply = r->cookie_out;
	return st;
}

/**
 * Add an EDNS option to the OPT record at the end of an answer, when that
 * record is last, has no option with this code yet, and the answer still
 * fits in limit; else the answer is left as it is.
 * @param out: the answer; outlen its length, updated.
 * @param code, data, dlen: the option.
 */
static void
resolver_opt_append(uint8_t *out, size_t *outlen, size_t limit,
	uint16_t code, const uint8_t *data, uint16_t dlen)
{
	size_t at;
	uint16_t rdlen;
	if(*outlen + 4 + dlen > limit || !dns_opt_last(out, *outlen, &at))
		return;
	rdlen = dns_read_u16(out + at);
	if(at + 2 + rdlen != *outlen || (size_t)rdlen + 4 + dlen > 65535 ||
		dns_has_edns_option(out, *outlen, code))
		return;
	dns_write_u16(out + at, (uint16_t)(rdlen + 4 + dlen));
	dns_write_u16(out + *outlen, code);
	dns_write_u16(out + *outlen + 2, dlen);
	memcpy(out + *outlen + 4, data, dlen);
	*outlen += 4 + (size_t)dlen;
}

/**
 * answer-cookie, for an immediate answer that is not a cache hit (local
 * data, errors, auth zones; the cache hit path writes the COOKIE option
 * itself): append it to the answer's OPT record, when that is the last
 * record and the option fits the client's size. Otherwise the answer
 * goes without it (as an answer to a client without EDNS would).
 */
static void
resolver_cookie_append(struct resolver *r, const struct fast_query *q,
	enum resolver_transport tp, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	resolver_opt_append(out, outlen, fast_query_answer_limit(q,
		tp == RESOLVER_TCP, r->max_udp, outmax), DNS_EDNS_COOKIE,
		r->cookie_out, COOKIE_FULL_LEN);
}

/**
 * nsid: the NSID option (RFC 5001) goes in the answer of a client that
 * asked for it (once, however often it asked, as Unbound), when it fits.
 * @param limit: the size the answer must fit in.
 */
static void __attribute__((noinline))
resolver_nsid_append(const struct resolver *r, uint8_t *out,
	size_t *outlen, size_t limit)
{
	resolver_opt_append(out, outlen, limit,
		DNS_EDNS_NSID, r->nsid, r->nsid_len);
}

/** nsid for an answer to a client that waited (mesh, serve-expired) */
static void
resolver_client_nsid(const struct resolver *r,
	const struct resolver_client *c, uint8_t *buf, size_t *len)
{
	size_t limit = DNS_MAX_MSG;
	if(!c->nsid)
		return;
	if(c->tp != RESOLVER_TCP)
		limit = c->udp_size < r->max_udp ? c->udp_size : r->max_udp;
	resolver_nsid_append(r, buf, len, limit);
}

/**
 * The end of an immediate answer other than a cache hit: with
 * answer-cookie, the query's cookie goes in (resolver_cookie_append).
 * Queries without a cookie, and cache hits, never come here, so the hot
 * path pays nothing for it.
 * @return res.
 */
static enum resolver_result
resolver_done(struct resolver *r, const struct fast_query *q,
	enum resolver_transport tp, uint8_t *out, size_t outmax,
	size_t *outlen, enum resolver_result res)
{
	if(res == RESOLVER_ANSWERED && q->edns.present && q->edns.cookie_reply)
		resolver_cookie_append(r, q, tp, out, outmax, outlen);
	return res;
}

/** what the front end knows of a query on its way to the cache and the
 * mesh (resolver_to_mesh, resolver_chase_query) */
struct resolver_ctx {
	/** the client's address, or NULL */
	const struct netaddr *client;
	/** its transport */
	enum resolver_transport tp;
	/** its reply handle */
	const struct resolver_handle *handle;
	/** the caller's answer buffer */
	uint8_t *out;
	/** its size */
	size_t outmax;
	/** the length of the answer written */
	size_t *outlen;
	/** MESH_FLAG_* */
	int flags;
	/** what resolver_client_ecs() gave */
	int has_ecs;
	/** the subnet (with has_ecs > 0) */
	struct module_ecs *ecs;
	/** the client's cookie was valid */
	int cookie_valid;
	/** allow_setrd: resolve as if RD were set */
	int set_rd;
	/** serve-expired-client-timeout: an expired answer is there */
	int stale;
	/** policy_ns_tags() of the client */
	uint64_t tags;
	/** the chase, or NULL */
	struct resolver_chase *chase;
	/** an RPZ passthru: no response-ip for its answer */
	int no_respip;
	/** a query without RD and no delegation in the cache: the root is
	 * primed for it (resolver_client.norec_prime) */
	int norec_prime;
	/** a query without RD whose closest cached delegation is not yet
	 * validated: the cut, whose NS set is resolved for it
	 * (resolver_client.norec_refer), or NULL */
	const uint8_t *norec_cut;
};

/**
 * A cache miss: the client waits in the mesh (its record holds what its
 * answer needs, and the chase when it has one).
 * @param pkt, len, q: the query the mesh resolves (the target's for a
 *	chase).
 * @return RESOLVER_PENDING, or the result of an answer written to out.
 */
static enum resolver_result __attribute__((noinline))
resolver_to_mesh(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, const struct resolver_ctx *x)
{
	struct resolver_client *c = (struct resolver_client *)r->cbuf;
	int rc;
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
	if(x->handle) {
		if(x->handle->fill)
			x->handle->fill(x->handle->fill_arg, &c->handle);
		else
			c->handle = *x->handle;
	}
	c->id = q->id;
	c->qflags = q->flags;
	if(x->set_rd && !(q->flags & DNS_FLAG_RD)) {
		c->qflags |= DNS_FLAG_RD;
		c->encode = 1;
	}
	memcpy(c->qname, pkt + q->qname_off, q->qinfo.qname_len);
	c->edns = q->edns.present;
	c->udp_size = q->edns.present ? q->edns.udp_size : DNS_MIN_UDP;
	if(c->udp_size < DNS_MIN_UDP)
		c->udp_size = DNS_MIN_UDP;
	c->do_bit = q->edns.present && q->edns.do_bit;
	c->tp = x->tp;
	c->start = *r->out->now;
	c->qlen = len;
	c->nsid = q->edns.present && q->edns.nsid && r->nsid_len;
	if(q->edns.present && q->edns.cookie_reply) {
		c->has_cookie = 1;
		memcpy(c->cookie, q->edns.cookie_reply, COOKIE_FULL_LEN);
	}
	memcpy(RESOLVER_CLIENT_PKT(c), pkt, len);
	if(x->chase) {
		c->chase = 1;
		memcpy(RESOLVER_CHASE_OF(c), x->chase, sizeof(*x->chase));
	}
	if(x->has_ecs > 0 && x->ecs->from_client) {
		c->ecs_echo = 1;
		c->ecs = *x->ecs;
	}
	if((r->respip || r->rpzc) && x->client && !x->no_respip) {
		c->client = *x->client;
		c->respip = r->respip ? 1 : 0;
		c->rpzc = r->rpzc;
		if(r->local) {
			c->local = *r->local;
			if(r->respip)
				c->respip = 2;
		}
	}
	if(x->client && r->wl) {
		/* wait-limit: the clients of one address waiting here */
		switch(wait_limit_add(r->wl, x->client,
			resolver_wait_limit_of(r, x->client, x->cookie_valid))) {
		case WAIT_LIMIT_COUNTED:
			c->addr = *x->client;
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
	c->tags = x->tags;
	if(x->norec_prime) {
		static const uint8_t root[1] = {0};
		c->norec_prime = 1;
		c->encode = 1;
		c->own_qtype = q->qinfo.qtype;
		c->own_qclass = q->qinfo.qclass;
		rc = mesh_new_client_tags(r->mesh, root, DNS_TYPE_NS,
			DNS_CLASS_IN, x->flags | MESH_FLAG_RD, NULL, c->tags,
			c, RESOLVER_CLIENT_SIZE(len, 0), NULL, 0);
	} else if(x->norec_cut) {
		c->norec_refer = 1;
		c->encode = 1;
		rc = mesh_new_client_tags(r->mesh, x->norec_cut, DNS_TYPE_NS,
			DNS_CLASS_IN, x->flags | MESH_FLAG_RD, NULL, c->tags,
			c, RESOLVER_CLIENT_SIZE(len, 0), NULL, 0);
	} else
	rc = mesh_new_client_tags(r->mesh, q->qinfo.qname, q->qinfo.qtype,
		q->qinfo.qclass, x->flags, x->has_ecs > 0 ? x->ecs : NULL,
		c->tags, c, RESOLVER_CLIENT_SIZE(len, x->chase != NULL),
		x->stale ? pkt : NULL, x->stale ? len : 0);
	if(rc == MESH_FULL) {
		/* the request list is full: dropped, as Unbound does */
		resolver_client_leaves(r, c);
		r->stats.num_dropped++;
		return RESOLVER_DROP;
	}
	if(rc < 0) {
		resolver_client_leaves(r, c);
		r->stats.num_dropped++;
		r->stats.num_servfail++;
		/* (to the client's own question when chasing) */
		if(x->chase) {
			q = x->chase->oq;
			pkt = x->chase->opkt;
			len = x->chase->olen;
		}
		return resolver_done(r, q, x->tp, x->out, x->outmax,
			x->outlen, resolver_error(r, pkt, len, q,
			DNS_RCODE_SERVFAIL, DNS_EDE_OTHER, x->out, x->outmax,
			x->outlen));
	}
	return RESOLVER_PENDING;
}

/** fill in the client part of x */
static void
resolver_ctx_init(struct resolver_ctx *x, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen, int has_ecs,
	struct module_ecs *ecs, int cookie_valid, int set_rd)
{
	memset(x, 0, sizeof(*x));
	x->client = client;
	x->tp = tp;
	x->handle = handle;
	x->out = out;
	x->outmax = outmax;
	x->outlen = outlen;
	x->has_ecs = has_ecs;
	x->ecs = ecs;
	x->cookie_valid = cookie_valid;
	x->set_rd = set_rd;
}

/**
 * The target of a chase, looked up as a query of its own: the message
 * cache (response-ip, then the chase's records put first), an auth zone
 * for-downstream, else the mesh. One level: no chase of its own. A
 * client that sent ECS is resolved (its subnet keys the state).
 * @param pkt, len, q: the client's query, of which the target's query
 *	(in r->chase, len2 octets, parsed in q2) was made.
 * @param ch: the chase (RESOLVER_CH_FRONT).
 * @param x: the client (resolver_ctx_init); the rest is set here.
 */
static enum resolver_result __attribute__((noinline))
resolver_chase_query(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, struct resolver_chase *ch,
	const struct fast_query *q2, size_t len2, struct resolver_ctx *x)
{
	enum resolver_result rr = RESOLVER_PENDING;
	const uint8_t *pkt2 = r->chase;
	ch->opkt = pkt;
	ch->olen = len;
	ch->oq = q;
	x->chase = ch;
	x->flags = MESH_FLAG_RD;
	if(q2->edns.present && q2->edns.do_bit)
		x->flags |= MESH_FLAG_DO;
	if(q2->flags & DNS_FLAG_CD)
		x->flags |= MESH_FLAG_CD;
	if(r->ns_tag_mask && x->client)
		x->tags = policy_ns_tags(r->pol, r->acl, x->client, r->local,
			r->ns_tag_mask);
	*x->outlen = 0;
	if(r->mcache && !x->tags && !(x->has_ecs > 0 &&
		x->ecs->from_client)) {
		int refresh = 0;
		enum mcache_result mr = mcache_answer(r->mcache, q2, pkt2,
			x->tp == RESOLVER_TCP, r->out->now->tv_sec, x->out,
			x->outmax, x->outlen, &refresh);
		if(mr == MCACHE_HIT_EXPIRED && r->expire_client_ms > 0 &&
			!(refresh & MCACHE_ANSWER_NOREC)) {
			/* a fresh answer first, as for any query */
			*x->outlen = 0;
			x->stale = 1;
			return resolver_to_mesh(r, pkt2, len2, q2, x);
		}
		if(mr != MCACHE_MISS) {
			enum policy_respip_result pr = POLICY_RESPIP_PASS;
			r->stats.num_cache_hits++;
			if(r->respip && (pr = policy_respip_answer(r->pol,
				r->acl, pkt2, q2, x->client, r->local, x->tp ==
				RESOLVER_TCP, x->out, x->outlen, x->outmax,
				&r->pstats)) == POLICY_RESPIP_DROP)
				return RESOLVER_DROP;
			if(pr == POLICY_RESPIP_REWRITTEN &&
				resolver_chase_loops(ch, x->out, *x->outlen))
				return resolver_chase_servfail(r, ch, pkt2,
					len2, x->out, x->outlen, x->outmax) ==
					0 ? RESOLVER_ANSWERED : RESOLVER_DROP;
			if(mr == MCACHE_HIT_EXPIRED)
				r->stats.num_expired++;
			if(refresh & MCACHE_ANSWER_REFRESH)
				(void)mesh_new_prefetch(r->mesh,
					q2->qinfo.qname, q2->qinfo.qtype,
					q2->qinfo.qclass, x->flags);
			if(resolver_chase_splice(r, ch, x->out, x->outlen,
				x->outmax) != 0)
				return RESOLVER_DROP;
			return RESOLVER_ANSWERED;
		}
	}
	if(r->authz && resolver_auth_answer(r, pkt2, len2, q2, x->tp, x->out,
		x->outmax, x->outlen, &rr)) {
		rr = resolver_done(r, q2, x->tp, x->out, x->outmax, x->outlen,
			rr);
		if(rr == RESOLVER_ANSWERED && resolver_chase_splice(r, ch,
			x->out, x->outlen, x->outmax) != 0)
			return RESOLVER_DROP;
		return rr;
	}
	return resolver_to_mesh(r, pkt2, len2, q2, x);
}

/** @return 1 when the query's OPT record holds an edns-tcp-keepalive
 * option with data (a TIMEOUT, which only a server may send), else 0 */
static int
resolver_keepalive_timeout(const uint8_t *pkt, size_t len,
	const struct fast_query *q)
{
	size_t pos = q->edns.rdata_off, end = pos + q->edns.rdata_len;
	if(end > len)
		return 0;
	while(pos + 4 <= end) {
		uint16_t code = dns_read_u16(pkt + pos);
		uint16_t olen = dns_read_u16(pkt + pos + 2);
		if(code == DNS_EDNS_KEEPALIVE && olen != 0)
			return 1;
		pos += 4 + (size_t)olen;
	}
	return 0;
}

/** policy_rpz_cname_answer() on a cache hit (out of line: the hit path
 * without rpz zones does not pay for its arguments) */
static int __attribute__((noinline))
resolver_rpz_cname(struct resolver *r, const uint8_t *pkt,
	const struct fast_query *q, const struct netaddr *client,
	enum resolver_transport tp, uint8_t *out, size_t *outlen,
	size_t outmax)
{
	return (int)policy_rpz_cname_answer(r->pol, r->acl, pkt, q, client,
		r->local, tp == RESOLVER_TCP, out, outlen, outmax,
		&r->pstats);
}

/** handle a client packet parsed into q with result err */
/**
 * trustanchor.unbound CH TXT (as Unbound, unless hide-trustanchor): a TXT
 * record per trust anchor of the stack's modules (anchor_list), "name tag
 * tag ..."; none without a validator. Asked before the local zones, for
 * a client that access-control does not deny or refuse (as Unbound).
 * @return 1 when answered (out written), 0 when not that question.
 */
static int __attribute__((noinline))
resolver_trustanchor(struct resolver *r, const uint8_t *pkt,
	const struct fast_query *q, const struct netaddr *client,
	enum resolver_transport tp, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	static const uint8_t ta_name[] = "\013trustanchor\007unbound";
	char list[4096], *line, *nl;
	struct dns_builder b;
	int i;
	if(q->qinfo.qname_len != sizeof(ta_name) || memcmp(q->qinfo.qname,
		ta_name, sizeof(ta_name)) != 0 || (q->qinfo.qtype !=
		DNS_TYPE_TXT && q->qinfo.qtype != DNS_TYPE_ANY) ||
		(r->cfg && r->cfg->hide_trustanchor) || !q->question_end)
		return 0;
	/* a client denied or refused gets what access-control says */
	switch(acl_check(r->acl, client)) {
	case ACL_DENY:
	case ACL_REFUSE:
		return 0;
	default:
		break;
	}
	list[0] = 0;
	for(i = 0; r->stack && i < r->stack->num; i++)
		if(r->stack->mod[i]->anchor_list) {
			(void)r->stack->mod[i]->anchor_list(&r->menv, i, list,
				sizeof(list));
			break;
		}
	dns_build_init(&b, out, outmax, fast_query_answer_limit(q,
		tp == RESOLVER_TCP, r->max_udp, outmax));
	if(dns_build_header(&b, q->id, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(q->flags & (DNS_FLAG_RD | DNS_FLAG_CD)))) != 0 ||
		dns_build_question_raw(&b, pkt, q->qname_off, q->question_end)
		!= 0)
		return 0;
	if(q->edns.present)
		dns_build_reserve(&b, dns_opt_size(NULL, 0));
	for(line = list; *line; line = nl + 1) {
		uint8_t rdata[256];
		size_t n;
		if(!(nl = strchr(line, '\n')))
			break;
		n = (size_t)(nl - line);
		if(n > 255)
			n = 255;
		rdata[0] = (uint8_t)n;
		memcpy(rdata + 1, line, n);
		if(dns_build_rr(&b, DNS_SEC_ANSWER, q->qinfo.qname,
			DNS_TYPE_TXT, DNS_CLASS_CH, 0, rdata, n + 1) != 0) {
			dns_build_truncate(&b);
			break;
		}
	}
	if(q->edns.present && dns_build_opt(&b, r->max_udp,
		DNS_RCODE_NOERROR, q->edns.do_bit, NULL, 0) != 0)
		return 0;
	*outlen = dns_build_finish(&b);
	return *outlen != 0;
}

static int resolver_validates(struct resolver *r);

/** @return the EDE of a failure a module of the stack remembers for the
 * question (failure_lookup), or -1 for none */
static int
resolver_failure(struct resolver *r, const struct fast_query *q)
{
	int i, ede;
	for(i = 0; r->stack && i < r->stack->num; i++)
		if(r->stack->mod[i]->failure_lookup && (ede = r->stack->
			mod[i]->failure_lookup(&r->menv, i, q->qinfo.qname,
			q->qinfo.qtype)) >= 0)
			return ede;
	return -1;
}

/** @return 1 when the type bitmap of an NSEC record (its RDATA) lists
 * type t */
static int
resolver_nsec_has_type(const uint8_t *rd, size_t len, uint16_t t)
{
	size_t pos = dname_valid(rd, len);
	if(pos == 0)
		return 0;
	while(pos + 2 <= len) {
		uint8_t win = rd[pos], blen = rd[pos + 1];
		if(blen == 0 || blen > 32 || pos + 2 + blen > len)
			return 0;
		if(win == (uint8_t)(t >> 8)) {
			uint8_t lo = (uint8_t)(t & 0xff);
			return (size_t)(lo >> 3) < blen &&
				(rd[pos + 2 + (lo >> 3)] & (0x80 >> (lo & 7))) != 0;
		}
		pos += 2 + (size_t)blen;
	}
	return 0;
}

/** write a cached set, and with do_bit its RRSIGs, to section; a set
 * that does not fit is left out (dns_build_rrset: TC in the authority)
 * @return 0, or -1 on bad data */
static int
resolver_norec_set(struct dns_builder *b, int section,
	const struct rrset_data *rs, int do_bit)
{
	int rc = dns_build_rrset(b, section, rs->name, rs->type, rs->rrclass,
		rs->ttl, rs->count, rs->rdata, rs->rdlen);
	if(rc == DNS_ERR_NOSPACE)
		return 0;
	if(rc != 0)
		return -1;
	if(do_bit && rs->sig_count > 0 && dns_build_rrset(b, section,
		rs->name, DNS_TYPE_RRSIG, rs->rrclass, rs->ttl, rs->sig_count,
		rs->rdata + rs->count, rs->rdlen + rs->count) ==
		DNS_ERR_BAD_RDATA)
		return -1;
	return 0;
}

/**
 * A query without RD, from a client that may snoop, that the message
 * cache did not answer: a referral from the RRset cache alone, as
 * Unbound answers it (its answer_norec_from_cache): the closest cached
 * delegation's NS set in the authority section, then the DS set at the
 * cut (or an NSEC there that denies DS), the servers' A and AAAA sets in
 * the additional section, each with its RRSIGs for a DO query; QR and RA,
 * CD echoed, no AA, no RD. When the query is validated (a trust anchor,
 * no CD) the authority sets decide: all secure gives AD (DO or AD asked)
 * and leaves the additional sets that are not secure out
 * (val-clean-additional, as the validator cleans a secure answer); one
 * bogus gives SERVFAIL (EDE 6); one not yet validated gives no answer
 * here (*no_dp is set to 2 and the cut written to cut, DNS_MAX_NAME
 * bytes: the caller has its NS set validated first, as Unbound has the
 * validator check the delegation), nor does a cache without a
 * delegation, not even the root's NS set (*no_dp is set to 1: the
 * caller primes the root for it, as Unbound's iterator does).
 * Off the hot path: called on a message cache miss only.
 * @return 1 when answered (out written), 0 when not.
 */
static int __attribute__((noinline))
resolver_norec_answer(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct fast_query *q, enum resolver_transport tp, uint8_t *out,
	size_t outmax, size_t *outlen, enum resolver_result *res, int *no_dp,
	uint8_t *cut)
{
	struct rrset_delegation d;
	struct rrset_data ds;
	struct dns_builder b;
	time_t now = r->out->now->tv_sec;
	int do_bit = q->edns.present && q->edns.do_bit, has_ds = 0;
	int must_validate, secure = 0, bogus = 0, unchecked = 0;
	size_t i;
	uint16_t fl;
	if(!r->rrset || !q->question_end)
		return 0;
	if(!r->norec_region && !(r->norec_region = region_create(8192)))
		return 0;
	if(rrset_cache_find_delegation(r->rrset, q->qinfo.qname,
		q->qinfo.qclass, now, r->norec_region, &d) != 0) {
		*no_dp = 1;
		goto none;
	}
	if(rrset_cache_lookup(r->rrset, d.ns.name, DNS_TYPE_DS,
		q->qinfo.qclass, now, r->norec_region, &ds) == 0)
		has_ds = 1;
	else if(rrset_cache_lookup(r->rrset, d.ns.name, DNS_TYPE_NSEC,
		q->qinfo.qclass, now, r->norec_region, &ds) == 0 &&
		ds.count > 0 && !resolver_nsec_has_type(ds.rdata[0],
		ds.rdlen[0], DNS_TYPE_DS))
		/* the parent side's NSEC: no DS at the cut */
		has_ds = 1;
	must_validate = !(q->flags & DNS_FLAG_CD) && resolver_validates(r);
	if(must_validate) {
		enum rrset_security s[2];
		int k, n = has_ds ? 2 : 1;
		s[0] = d.ns.sec;
		s[1] = has_ds ? ds.sec : RRSET_SEC_SECURE;
		secure = 1;
		for(k = 0; k < n; k++) {
			if(s[k] == RRSET_SEC_BOGUS)
				bogus = 1;
			else if(s[k] == RRSET_SEC_UNCHECKED)
				unchecked = 1;
			if(s[k] != RRSET_SEC_SECURE)
				secure = 0;
		}
		if(bogus) {
			region_free_all(r->norec_region);
			*res = resolver_error(r, pkt, len, q,
				DNS_RCODE_SERVFAIL, DNS_EDE_DNSSEC_BOGUS, out,
				outmax, outlen);
			return 1;
		}
		if(unchecked) {
			/* to be validated first */
			if(cut)
				memcpy(cut, d.ns.name, d.ns.name_len);
			*no_dp = 2;
			goto none;
		}
	}
	fl = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA | (q->flags &
		DNS_FLAG_CD));
	if(secure && (do_bit || (q->flags & DNS_FLAG_AD)))
		fl |= DNS_FLAG_AD;
	dns_build_init(&b, out, outmax, fast_query_answer_limit(q,
		tp == RESOLVER_TCP, r->max_udp, outmax));
	if(dns_build_header(&b, q->id, fl) != 0 ||
		dns_build_question_raw(&b, pkt, q->qname_off, q->question_end)
		!= 0)
		goto none;
	if(q->edns.present)
		dns_build_reserve(&b, dns_opt_size(NULL, 0));
	if(resolver_norec_set(&b, DNS_SEC_AUTHORITY, &d.ns, do_bit) != 0 ||
		(has_ds && resolver_norec_set(&b, DNS_SEC_AUTHORITY, &ds,
		do_bit) != 0))
		goto none;
	for(i = 0; i < d.glue_count; i++) {
		if(secure && d.glue[i].sec != RRSET_SEC_SECURE)
			continue; /* val-clean-additional */
		if(resolver_norec_set(&b, DNS_SEC_ADDITIONAL, &d.glue[i],
			do_bit) != 0)
			goto none;
	}
	if(q->edns.present) {
		dns_build_reserve(&b, 0);
		if(dns_build_opt(&b, r->max_udp, DNS_RCODE_NOERROR, do_bit,
			NULL, 0) != 0)
			goto none;
	}
	*outlen = dns_build_finish(&b);
	region_free_all(r->norec_region);
	if(*outlen == 0)
		return 0;
	r->stats.num_cache_hits++;
	if(secure)
		r->stats.num_answer_secure++;
	*res = RESOLVER_ANSWERED;
	return 1;
none:
	region_free_all(r->norec_region);
	*outlen = 0;
	return 0;
}

static enum resolver_result
resolver_handle_parsed(struct resolver *r, const uint8_t *pkt, size_t len,
	struct fast_query *q, int err, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	struct local_front_info info;
	struct resolver_ctx x;
	struct module_ecs ecs;
	int flags = 0, stale = 0, norec_ok, has_ecs = 0, cookie_valid = 0;
	uint64_t tags = 0;
	/* a CNAME chase (in r->chase: RESOLVER_CH_FRONT, the target's
	 * query's parse at RESOLVER_CH_Q2) */
	struct resolver_chase *chase;
	struct fast_query *q2;
	size_t len2;

	if(r->proxy) {
		/* the proxy itself passes access control first (its deny
		 * and refuse; its allow lets the header's client be judged
		 * on its own), before anything the query asks for */
		enum config_acl_action pa = acl_check(r->acl, r->proxy);
		if(pa == ACL_DENY || (pa == ACL_REFUSE && err != 0))
			return RESOLVER_DROP;
		if(pa == ACL_REFUSE) {
			/* in the form of any access-control refusal */
			int n = acl_refused_reply(pkt, len, q,
				!r->cfg || r->cfg->ede, r->max_udp, out,
				outmax);
			if(n <= 0)
				return RESOLVER_DROP;
			*outlen = (size_t)n;
			return RESOLVER_ANSWERED;
		}
	}
	if(r->notify && len >= DNS_HDR_SIZE && !(pkt[2] & 0x80) &&
		((pkt[2] >> 3) & 0x0f) == DNS_OPCODE_NOTIFY) {
		/* NOTIFY for an rpz zone or an auth-zone: its own ACL
		 * (allow-notify and the primaries), not access-control */
		if(client && r->pol && policy_rpz_notify(r->pol, pkt, len,
			client, out, outmax, outlen)) {
			/* an rpz zone for-downstream is an auth zone too,
			 * with its own transfer: woken as well (its answer
			 * is not sent) */
			size_t l2 = 0;
			if(r->authz)
				(void)auth_zones_notify(r->authz, pkt, len,
					client, r->buf, DNS_MAX_MSG, &l2);
			return RESOLVER_ANSWERED;
		}
		if(r->authz) {
			if(client && auth_zones_notify(r->authz, pkt, len,
				client, out, outmax, outlen))
				return RESOLVER_ANSWERED;
			return RESOLVER_DROP;
		}
		/* no auth zones: NOTIMPL, as any other opcode */
	}
	if(len > DNS_MIN_UDP && (r->front_opts & RESOLVER_OPT_LARGE)) {
		/* harden-large-queries (as Unbound): ignored */
		r->stats.num_malformed++;
		return RESOLVER_DROP;
	}
	if(err == DNS_ERR_NOT_QUERY) {
		/* a response: never answer it (reflection loops) */
		r->stats.num_malformed++;
		return RESOLVER_DROP;
	}
	if(err != 0) {
		int fl;
		r->stats.num_malformed++;
		/* a PROXY v2 header sent to a port that is not a
		 * proxy-protocol-port: no answer (the sender is a proxy) */
		if(pp2_has_signature(pkt, len))
			return RESOLVER_DROP;
		/* the query's own header flags with QR, without RA, as
		 * Unbound answers a query it cannot parse (long_qname.rpl):
		 * nothing was looked at for recursion */
		fl = dns_build_error_reply(pkt, len, q, DNS_RCODE_FORMERR, 0,
			-1, NULL, r->max_udp, out, outmax);
		if(fl < 0)
			return RESOLVER_DROP;
		*outlen = (size_t)fl;
		return RESOLVER_ANSWERED;
	}
	resolver_count_query(r, q, client);
	if(q->opcode != DNS_OPCODE_QUERY)
		return resolver_error(r, pkt, len, q, DNS_RCODE_NOTIMPL, -1,
			out, outmax, outlen);
	if(q->edns.present && __builtin_expect(q->edns.version != 0 ||
		(q->edns.do_bit && (r->front_opts & RESOLVER_OPT_NODO)), 0)) {
		if(q->edns.version != 0)
			/* dns_build_error_reply answers BADVERS */
			return resolver_error(r, pkt, len, q,
				DNS_RCODE_FORMERR, -1, out, outmax, outlen);
		/* disable-edns-do (as Unbound): a client that sets DO is
		 * answered without EDNS, which tells it that no DNSSEC
		 * records come; it is served as a client without EDNS
		 * (so also the 512-byte UDP limit of one) */
		q->edns.present = 0;
		q->edns.do_bit = 0;
	}
	/* edns-tcp-keepalive over TCP: a client must not send a TIMEOUT
	 * (RFC 7828 section 3.2.1); a query that does is FORMERR, as in
	 * Unbound (over UDP the option is ignored: section 3.2.2) */
	if(tp == RESOLVER_TCP && (r->front_opts & RESOLVER_OPT_KEEPALIVE) &&
		q->edns.present && resolver_keepalive_timeout(pkt, len, q))
		return resolver_error(r, pkt, len, q, DNS_RCODE_FORMERR, -1,
			out, outmax, outlen);
	/* answer-cookie: off, or a query without a cookie, it costs a
	 * test; a bad server cookie is answered as usual with a fresh one
	 * (RFC 7873 section 5.2.3; BADCOOKIE only where a valid cookie is
	 * required, which petrel does not do) */
	if(r->cookies && q->edns.present && q->edns.cookie_off && client) {
		enum cookie_status st = resolver_cookie(r, pkt, q, client);
		if(st == COOKIE_MALFORMED) {
			enum config_acl_action act = acl_check(r->acl, client);
			r->stats.num_malformed++;
			if(act == ACL_DENY || act == ACL_DENY_NON_LOCAL)
				return RESOLVER_DROP; /* (no answer to them) */
			return resolver_error(r, pkt, len, q,
				DNS_RCODE_FORMERR, -1, out, outmax, outlen);
		}
		cookie_valid = COOKIE_IS_VALID(st);
	}
	if(q->qinfo.qtype == DNS_TYPE_AXFR || q->qinfo.qtype == DNS_TYPE_IXFR) {
		/* a zone transfer is refused without RA, as Unbound does (it
		 * is not a recursive question) */
		enum resolver_result rr = resolver_error(r, pkt, len, q,
			DNS_RCODE_REFUSED, DNS_EDE_NOT_SUPPORTED, out, outmax,
			outlen);
		if(rr == RESOLVER_ANSWERED)
			dns_hdr_set_flags(out, (uint16_t)(dns_hdr_flags(out) &
				~DNS_FLAG_RA));
		return resolver_done(r, q, tp, out, outmax, outlen, rr);
	}
	/* subnetcache: the client's subnet; a malformed ECS option is
	 * FORMERR (without the module, ECS is an option like any other) */
	if(r->ecs_code && (has_ecs = resolver_client_ecs(r, pkt, q, client,
		&ecs)) < 0) {
		r->stats.num_malformed++;
		return resolver_error(r, pkt, len, q, DNS_RCODE_FORMERR, -1,
			out, outmax, outlen);
	}
	/* ip-ratelimit: before local zones and the cache (a flood of
	 * cached names is what it is for); off, it costs one test */
	if(r->ip_rate && !resolver_ip_ratelimit_ok(r, client, cookie_valid))
		return RESOLVER_DROP;
	/* access-control allow_cookie: over UDP, a valid cookie or a
	 * stateful transport (as Unbound; RFC 7873 section 5.2.3) */
	if(r->acl_cookie && !cookie_valid && tp != RESOLVER_TCP && client &&
		acl_check(r->acl, client) == ACL_ALLOW_COOKIE) {
		int n;
		if(q->edns.present && q->edns.cookie_off && r->cookies)
			return resolver_done(r, q, tp, out, outmax, outlen,
				resolver_error(r, pkt, len, q,
				DNS_RCODE_BADCOOKIE, -1, out, outmax, outlen));
		n = dns_build_error_reply(pkt, len, q, DNS_RCODE_REFUSED, 1,
			r->cfg && !r->cfg->ede ? -1 : DNS_EDE_OTHER,
			"DNS Cookie needed for UDP replies",
			r->max_udp, out, outmax);
		if(n < 0)
			return RESOLVER_DROP;
		out[2] |= (uint8_t)(DNS_FLAG_TC >> 8);
		*outlen = (size_t)n;
		return RESOLVER_ANSWERED;
	}
	/* trustanchor.unbound CH TXT: after access control, before the
	 * local zones (whose class rule refuses CH beyond the identity
	 * answers); one test for other classes */
	if(q->qinfo.qclass == DNS_CLASS_CH && client &&
		resolver_trustanchor(r, pkt, q, client, tp, out, outmax,
		outlen))
		return resolver_done(r, q, tp, out, outmax, outlen,
			RESOLVER_ANSWERED);
	/* (not the whole struct: its alias target, 255 bytes, is read only
	 * when alias.present is set, by whoever set it; a memset cost 42
	 * instructions per cached answer) */
	info.action = ACL_DENY;
	info.set_rd = 0;
	info.alias.present = 0;
	info.alias.target_len = 0;
	info.alias.ttl = 0;
	info.rpz_passthru = 0;
	norec_ok = r->authz && !(q->flags & DNS_FLAG_RD) &&
		auth_zones_downstream_covers(r->authz, q->qinfo.qname);
	/* with views, tags or RPZ zones the policy answers first */
	switch(r->pol ? policy_front_answer(r->pol, r->acl, r->lz, pkt, len,
		q, client, r->local, tp == RESOLVER_TCP, out, outmax, outlen,
		&info, &r->pstats, norec_ok) : local_front_answer_norec(r->acl, r->lz, pkt,
		len, q, client, tp == RESOLVER_TCP, out, outmax, outlen, &info,
		norec_ok)) {
	case LOCAL_FRONT_ANSWERED:
		/* a redirect-zone alias or an RPZ CNAME (info.alias): the
		 * cache or the mesh answers the target, the CNAME is put
		 * before that answer (resolver_chase_splice); one level;
		 * counted by the target's lookup */
		if(info.alias.present && q->qinfo.qtype != DNS_TYPE_CNAME &&
			q->qinfo.qtype != DNS_TYPE_ANY &&
			resolver_chase_space(r, &chase, &q2) == 0 &&
			resolver_chase_alias(chase, pkt, q, &info.alias, out,
			*outlen) == 0 && resolver_chase_begin(r, pkt, len, q,
			tp == RESOLVER_TCP, chase, q2, &len2) == 0) {
			resolver_ctx_init(&x, client, tp, handle, out, outmax,
				outlen, has_ecs, &ecs, cookie_valid,
				info.set_rd);
			return resolver_chase_query(r, pkt, len, q, chase, q2,
				len2, &x);
		}
		r->stats.num_local++;
		return resolver_done(r, q, tp, out, outmax, outlen,
			RESOLVER_ANSWERED);
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
			return resolver_done(r, q, tp, out, outmax, outlen,
				rr);
		if(info.action != ACL_ALLOW_SNOOP)
			/* the zone did not answer (no data, fallback): what
			 * the RD rule says */
			return resolver_done(r, q, tp, out, outmax, outlen,
				resolver_error(r, pkt, len, q,
				DNS_RCODE_REFUSED, DNS_EDE_NOT_AUTHORITATIVE,
				out, outmax, outlen));
	}
	if(q->edns.present && q->edns.do_bit)
		flags |= MESH_FLAG_DO;
	if(q->flags & DNS_FLAG_CD)
		flags |= MESH_FLAG_CD;
	flags |= MESH_FLAG_RD;
	/* rpz zones with tags: and NSDNAME / NSIP triggers: a client with
	 * such tags is resolved by its own states, which show every
	 * delegation to its zones: no cached answer (one test otherwise) */
	if(r->ns_tag_mask && client)
		tags = policy_ns_tags(r->pol, r->acl, client, r->local,
			r->ns_tag_mask);

	/* the message cache: the hot path (with client-subnet-always-
	 * forward, a client that sent ECS skips it, as in Unbound) */
	if(r->mcache && !(has_ecs > 0 && ecs.from_client && r->ecs_always) &&
		!tags) {
		int refresh = 0;
		enum mcache_result mr;
		mr = mcache_answer(r->mcache, q, pkt, tp == RESOLVER_TCP,
			r->out->now->tv_sec, out, outmax, outlen, &refresh);
		if(mr == MCACHE_HIT_EXPIRED && r->expire_client_ms > 0 &&
			!(refresh & MCACHE_ANSWER_NOREC)) {
			/* serve-expired-client-timeout (or cachedb-check-
			 * when-serve-expired): try for a fresh answer first;
			 * the expired one (written to out, now discarded) is
			 * given if that is slow or fails (at once while a
			 * failed refresh holds it, MCACHE_ANSWER_NOREC) */
			*outlen = 0;
			stale = 1;
			goto mesh;
		}
		if(mr != MCACHE_MISS && has_ecs > 0 && ecs.from_client &&
			resolver_reply_ecs(r, q, &ecs, tp, out, outmax,
			outlen) != 0) {
			/* (the option does not fit: encoded by the mesh) */
			*outlen = 0;
			goto mesh;
		}
		if(mr != MCACHE_MISS) {
			/* rpz zones: their QNAME rules on the answer's
			 * CNAME targets (one test when there are none) */
			int rpzc = r->rpzc && !info.rpz_passthru ?
				resolver_rpz_cname(r, pkt, q, client, tp, out,
				outlen, outmax) : POLICY_RESPIP_PASS;
			if(rpzc == POLICY_RESPIP_DROP) {
				r->stats.num_cache_hits++;
				return RESOLVER_DROP;
			}
			/* response-ip: one test when not configured (and
			 * none after an RPZ passthru or CNAME rule) */
			if(r->respip && !info.rpz_passthru &&
				rpzc == POLICY_RESPIP_PASS) {
				enum policy_respip_result pr =
					policy_respip_answer(r->pol, r->acl,
					pkt, q, client, r->local, tp ==
					RESOLVER_TCP, out, outlen, outmax,
					&r->pstats);
				if(pr == POLICY_RESPIP_DROP) {
					r->stats.num_cache_hits++;
					return RESOLVER_DROP;
				}
				/* rewritten to a CNAME: its target is
				 * chased (one level), as for an alias */
				if(pr == POLICY_RESPIP_REWRITTEN &&
					q->qinfo.qtype != DNS_TYPE_ANY &&
					resolver_chase_space(r, &chase, &q2) ==
					0 && resolver_chase_rewritten(chase,
					pkt, q, out, *outlen) == 0 &&
					resolver_chase_begin(r, pkt, len, q,
					tp == RESOLVER_TCP, chase, q2,
					&len2) == 0) {
					/* (counted by the target's
					 * lookup) */
					resolver_ctx_init(&x, client, tp,
						handle, out, outmax, outlen,
						has_ecs, &ecs, cookie_valid,
						info.set_rd);
					return resolver_chase_query(r, pkt,
						len, q, chase, q2, len2, &x);
				}
			}
			r->stats.num_cache_hits++;
			if(mr == MCACHE_HIT_EXPIRED)
				r->stats.num_expired++;
			/* (a fresh validation is counted by the validator) */
			if(refresh & MCACHE_ANSWER_SECURE)
				r->stats.num_answer_secure++;
			if(refresh & MCACHE_ANSWER_REFRESH)
				(void)mesh_new_prefetch(r->mesh,
					q->qinfo.qname, q->qinfo.qtype,
					q->qinfo.qclass, flags);
			return RESOLVER_ANSWERED;
		}
	}
	if((r->front_opts & RESOLVER_OPT_DENY_ANY) &&
		q->qinfo.qtype == DNS_TYPE_ANY)
		/* deny-any (as Unbound): an empty NOERROR instead of
		 * recursion. Tested on a miss, off the hot path: with the
		 * option on no ANY answer is stored (one stored before a
		 * reload turned it on is served until it expires) */
		return resolver_error(r, pkt, len, q, DNS_RCODE_NOERROR, -1,
			out, outmax, outlen);
	if(!(q->flags & DNS_FLAG_RD) && !info.set_rd && !stale) {
		/* a client that may snoop, without RD: a referral from the
		 * RRset cache (Unbound does not recurse for it) */
		enum resolver_result rr = RESOLVER_PENDING;
		int no_dp = 0, fail;
		uint8_t cut[DNS_MAX_NAME];
		if(!(q->flags & DNS_FLAG_CD) && (fail = resolver_failure(r,
			q)) >= 0) {
			/* a failure the validator remembers for the question:
			 * SERVFAIL with its EDE, as Unbound answers it from
			 * the bogus message its cache keeps */
			r->stats.num_servfail++;
			return resolver_done(r, q, tp, out, outmax, outlen,
				resolver_error(r, pkt, len, q,
				DNS_RCODE_SERVFAIL, fail, out, outmax,
				outlen));
		}
		if(resolver_norec_answer(r, pkt, len, q, tp, out, outmax,
			outlen, &rr, &no_dp, cut))
			return resolver_done(r, q, tp, out, outmax, outlen,
				rr);
		if(no_dp == 2 && !(has_ecs > 0 && ecs.from_client)) {
			/* the delegation is to be validated: its NS set is
			 * resolved (and validated) first, then the client
			 * gets the referral from the cache */
			resolver_ctx_init(&x, client, tp, handle, out, outmax,
				outlen, 0, &ecs, cookie_valid, 0);
			x.flags = flags & (MESH_FLAG_DO | MESH_FLAG_CD);
			x.tags = tags;
			x.norec_cut = cut;
			x.no_respip = 1;
			return resolver_to_mesh(r, pkt, len, q, &x);
		}
		if(no_dp == 1 && r->rrset && !(has_ecs > 0 && ecs.from_client) &&
			!resolver_validates(r)) {
			/* nothing cached, not even the root's NS set: the
			 * priming answer (Unbound's iterator primes and
			 * gives it). Not with a trust anchor: the client's
			 * own question goes to the mesh as before, where the
			 * validator gives the failure it remembers for it
			 * (SERVFAIL with its EDE, as Unbound's message
			 * cache keeps it: val_nx_failwc.rpl) */
			resolver_ctx_init(&x, client, tp, handle, out, outmax,
				outlen, 0, &ecs, cookie_valid, 0);
			x.flags = flags & (MESH_FLAG_DO | MESH_FLAG_CD);
			x.tags = tags;
			x.norec_prime = 1;
			x.no_respip = 1;
			return resolver_to_mesh(r, pkt, len, q, &x);
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
			return resolver_done(r, q, tp, out, outmax, outlen,
				rr);
	}
mesh:
	resolver_ctx_init(&x, client, tp, handle, out, outmax, outlen,
		has_ecs, &ecs, cookie_valid, info.set_rd);
	x.flags = flags;
	if(info.rpz_passthru && (r->menv.rpz_ns || r->menv.respip))
		x.flags |= MESH_FLAG_RPZPASS; /* no NSDNAME / NSIP rules, no
					       * response-ip in the chain */
	x.stale = stale;
	x.tags = tags;
	x.no_respip = info.rpz_passthru;
	return resolver_to_mesh(r, pkt, len, q, &x);
}

enum resolver_result
resolver_handle_query(struct resolver *r, const uint8_t *pkt, size_t len,
	const struct netaddr *client, enum resolver_transport tp,
	const struct resolver_handle *handle, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	struct fast_query fq;
	enum resolver_result res;
	int err;
	if(!(pkt = resolver_take(r, pkt, len, out, outmax, outlen)))
		return RESOLVER_DROP;
	err = dns_query_parse_fast(pkt, len, &fq);
	res = resolver_handle_parsed(r, pkt, len, &fq, err, client, tp,
		handle, out, outmax, outlen);
	if(r->nsid_len && res == RESOLVER_ANSWERED && fq.edns.present &&
		fq.edns.nsid)
		resolver_nsid_append(r, out, outlen, fast_query_answer_limit(
			&fq, tp == RESOLVER_TCP, r->max_udp, outmax));
	return res;
}

enum resolver_result
resolver_handle_peeked(struct resolver *r, const uint8_t *pkt, size_t len,
	struct resolver_peek *pk, const struct netaddr *client,
	enum resolver_transport tp, const struct resolver_handle *handle,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	/* (the parse holds offsets and a copy of the name: it stays valid
	 * for the copy resolver_take may make) */
	enum resolver_result res;
	if(!(pkt = resolver_take(r, pkt, len, out, outmax, outlen)))
		return RESOLVER_DROP;
	res = resolver_handle_parsed(r, pkt, len, &pk->fq, pk->err, client,
		tp, handle, out, outmax, outlen);
	if(r->nsid_len && res == RESOLVER_ANSWERED && pk->fq.edns.present &&
		pk->fq.edns.nsid)
		resolver_nsid_append(r, out, outlen, fast_query_answer_limit(
			&pk->fq, tp == RESOLVER_TCP, r->max_udp, outmax));
	return res;
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
 * TTL is the smallest, its trust the lowest of its records', its
 * security status the one the validator marked on them.
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
		cs->sec = (uint8_t)resolver_cache_sec(
			(enum module_sec_status)first->sec);
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

/**
 * Would a query without CD be validated? When no module of the stack has
 * a trust anchor with keys (anchor_list), CD changes nothing and a CD
 * answer is the non-CD one too. Asked on the store of a CD answer only.
 * @return 1 when some module validates.
 */
static int
resolver_validates(struct resolver *r)
{
	char list[1024];
	int i;
	for(i = 0; r->stack && i < r->stack->num; i++)
		if(r->stack->mod[i]->anchor_list && r->stack->mod[i]->
			anchor_list(&r->menv, i, list, sizeof(list)) != 0)
			return 1;
	return 0;
}

/** @return 1 when an answer's sets hold a DNSSEC record that a non-DO
 * client's answer leaves out (RRSIG, NSEC, NSEC3 other than the type
 * asked for) */
static int
resolver_has_dnssec(const struct cache_rrset *sets, size_t n, uint16_t qtype)
{
	size_t i;
	for(i = 0; i < n; i++)
		if((sets[i].type == DNS_TYPE_RRSIG || sets[i].type ==
			DNS_TYPE_NSEC || sets[i].type == DNS_TYPE_NSEC3) &&
			sets[i].type != qtype)
			return 1;
	return 0;
}

/** Store a finished state's answer (not SERVFAIL): the one store path,
 * services/cache/store.h (its marked RRsets in the RRset cache, the
 * message in the message cache).
 * @return 1 when the message was stored, 2 when it was and is to be
 *	stored again after its clients are answered (MCACHE_STORED_HELD),
 *	0 when not */
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
	enum mcache_store_result res;
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
	/* one resolution serves CD and non-CD clients where their answers
	 * are the same (mcache_store_msg_share): a CD answer only when it
	 * was not validated for want of a trust anchor, and not taken from
	 * a forwarder (which was asked with CD: it may not have validated
	 * what it would have refused a non-CD client) */
	if((!ca.cd_bit && !ans->no_cd_share) ||
		(ca.cd_bit && !ans->forwarded && !resolver_validates(r)))
		ca.share |= MCACHE_SHARE_CD;
	/* a DO answer with no DNSSEC record (RRSIG, NSEC, NSEC3: what a
	 * non-DO answer leaves out) is the non-DO answer too */
	if(ca.do_bit && !resolver_has_dnssec(sets, n, s->qtype))
		ca.share |= MCACHE_SHARE_DO;
	/* and a non-DO answer is the DO answer too when the resolution
	 * saw no DNSSEC record to leave out (mesh_answer.do_same): one
	 * resolution serves both, as Unbound's one cache entry does */
	if(!ca.do_bit && ans->do_same)
		ca.share |= MCACHE_SHARE_DO;
	ca.sec = resolver_cache_sec(ans->sec);
	ca.ede = ans->ede;
	ca.sets = sets;
	ca.nsets = n;
	ca.leeway = s->prefetch ? CACHE_REFRESH_LEEWAY : 0;
	ca.qstart = s->qs.start.tv_sec;
	/* the message cache keeps only NOERROR and NXDOMAIN answers */
	if(ans->rcode != DNS_RCODE_NOERROR && ans->rcode != DNS_RCODE_NXDOMAIN)
		return cache_store_answer(NULL, r->rrset, &ca,
			r->out->now->tv_sec, r->buf, DNS_MAX_MSG,
			s->qs.region) == MCACHE_STORED;
	switch((res = cache_store_answer(r->mcache, r->rrset, &ca,
		r->out->now->tv_sec, r->buf, DNS_MAX_MSG, s->qs.region))) {
	case MCACHE_STORED:
	case MCACHE_STORED_HELD:
		/* a CNAME chain's target's answer: a message of its own */
		(void)cache_store_chain_target(r->mcache, r->rrset, &ca,
			r->out->now->tv_sec, r->buf, DNS_MAX_MSG,
			s->qs.region);
		/* (HELD: stored again once the clients are answered) */
		return res == MCACHE_STORED ? 1 : 2;
	default:
		break;
	}
	/* a newer answer that is not kept (a TTL 0 record...) replaces the
	 * entries of its question: an expired one is not served stale
	 * (serve-expired) after the upstream has answered otherwise; those
	 * of the other CD and DO bits too, which the key may have been
	 * answered from (mcache_store_msg_share), and whose data the newer
	 * answer supersedes as well */
	if(r->mcache)
		(void)mcache_flush_type(r->mcache, qi.qname, qi.qtype,
			qi.qclass);
	return 0;
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
	int rv;
	if(c->encode || resolver_reparse(r, RESOLVER_CLIENT_PKT(c), c->qlen,
		&fq) != 0)
		return 0;
	if(c->has_cookie && fq.edns.present)
		fq.edns.cookie_reply = c->cookie;
	mr = mcache_answer(r->mcache, &fq, RESOLVER_CLIENT_PKT(c),
		c->tp == RESOLVER_TCP, r->out->now->tv_sec, r->buf,
		DNS_MAX_MSG, &len, NULL);
	if(mr != MCACHE_HIT && mr != MCACHE_HIT_PREFETCH)
		return 0;
	if((rv = resolver_respip(r, c, RESOLVER_CLIENT_PKT(c), c->qlen,
		r->buf, &len)) == 1)
		return 1; /* it waits for a CNAME target */
	if(rv != 0) {
		r->stats.num_dropped++;
		r->reply_cb(r->reply_arg, &c->handle, NULL, 0);
		return 1;
	}
	r->stats.num_recursive_replies++;
	resolver_count_rec_time(r, c);
	r->reply_start = c->start;
	resolver_client_nsid(r, c, r->buf, &len);
	r->reply_cb(r->reply_arg, &c->handle, r->buf, len);
	return 1;
}

/** most RRs in one RRset we encode */
#define RESOLVER_MAX_SET 256

/**
 * Add a section, RRset by RRset (consecutive RRs of the same owner, type
 * and class).
 * @param clamp: when not NULL, TTLs are clamped to cache-min-ttl and
 *	cache-max-ttl (and the SOA of a negative answer as
 *	mcache_clamp_neg_ttl() says), as the cache would give them.
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
		if(clamp && negative && section == DNS_SEC_AUTHORITY &&
			first->type == DNS_TYPE_SOA) {
			/* min(TTL, MINIMUM) (RFC 2308 section 5), clamped
			 * as the message cache keeps it */
			if(rdlen[0] >= 22 && dns_read_u32(rd[0] + rdlen[0] -
				4) < ttl)
				ttl = dns_read_u32(rd[0] + rdlen[0] - 4);
			ttl = mcache_clamp_neg_ttl(clamp, ttl);
		} else if(clamp) {
			if(clamp->max_ttl && ttl > clamp->max_ttl)
				ttl = clamp->max_ttl;
			if(ttl < clamp->min_ttl)
				ttl = clamp->min_ttl;
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

/**
 * log-servfail: one error line for a SERVFAIL given to a client, as
 * Unbound prints it: "SERVFAIL <name type class>: reason" (the reason
 * is the Extended DNS Error of the failure).
 */
static void
resolver_log_servfail(const struct mesh_state *s, int ede)
{
	char name[DNS_MAX_NAME_STR], tb[16], cb[16];
	const char *cs = dns_class_str(s->qclass);
	if(dname_to_str(s->qname, name, sizeof(name)) < 0)
		snprintf(name, sizeof(name), "(unprintable)");
	if(!cs) {
		snprintf(cb, sizeof(cb), "CLASS%u", (unsigned)s->qclass);
		cs = cb;
	}
	log_err("SERVFAIL <%s %s %s>: %s", name,
		dns_type_str(s->qtype, tb, sizeof(tb)), cs,
		ede >= 0 ? dns_ede_str(ede) : "misc failure");
}

/** A client without RD that waited for its delegation's NS set to be
 * validated (resolver_client.norec_refer): the referral from the cache
 * now, or SERVFAIL (with ede) when it still cannot be given. */
static void
resolver_norec_client(struct resolver *r, struct resolver_client *c, int ede)
{
	struct fast_query fq;
	const uint8_t *pkt = RESOLVER_CLIENT_PKT(c);
	enum resolver_result rr = RESOLVER_DROP;
	size_t len = 0;
	int why = 0;
	if(dns_query_parse_fast(pkt, c->qlen, &fq) == 0) {
		if(c->has_cookie && fq.edns.present)
			fq.edns.cookie_reply = c->cookie;
		if(!resolver_norec_answer(r, pkt, c->qlen, &fq, c->tp, r->buf,
			DNS_MAX_MSG, &len, &rr, &why, NULL)) {
			r->stats.num_servfail++;
			rr = resolver_error(r, pkt, c->qlen, &fq,
				DNS_RCODE_SERVFAIL, ede >= 0 ? ede :
				DNS_EDE_OTHER, r->buf, DNS_MAX_MSG, &len);
		}
		rr = resolver_done(r, &fq, c->tp, r->buf, DNS_MAX_MSG, &len,
			rr);
	}
	if(rr != RESOLVER_ANSWERED) {
		r->stats.num_dropped++;
		r->reply_cb(r->reply_arg, &c->handle, NULL, 0);
		return;
	}
	r->stats.num_recursive_replies++;
	resolver_count_rec_time(r, c);
	r->reply_start = c->start;
	resolver_client_nsid(r, c, r->buf, &len);
	r->reply_cb(r->reply_arg, &c->handle, r->buf, len);
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
	struct edns_opt_out opt[3];
	uint8_t edebuf[64], ecsbuf[32];
	size_t limit, len, nopt = 0;
	int rcode = ans ? ans->rcode : DNS_RCODE_SERVFAIL, rc;
	uint16_t flags;

	/* serve-expired: stale beats SERVFAIL, for every client (one that
	 * asked while the entry was past serve-expired-ttl too: a failed
	 * refresh may have started its window again, serve-expired-ttl-
	 * reset), as Unbound's mesh does */
	if(rcode == DNS_RCODE_SERVFAIL && (mc->qpkt || (r->cfg &&
		r->cfg->serve_expired)) && resolver_answer_stale(r, mc))
		return;
	resolver_client_leaves(r, c);
	if(c->norec_refer) {
		resolver_norec_client(r, c, ans ? ans->ede : ede);
		return;
	}
	if(ans && ans->policy == 2)
		goto drop; /* RPZ DROP from the iterator */
	if(stored && !c->ecs_echo && resolver_answer_from_entry(r, c))
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
	if(rcode == DNS_RCODE_SERVFAIL && r->cfg && r->cfg->log_servfail)
		resolver_log_servfail(s, ede);
	if(r->cfg && !r->cfg->ede)
		ede = -1;
	flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(c->qflags & (DNS_FLAG_RD | DNS_FLAG_CD)) | (rcode & 0xf));
	if(ans && !ans->policy && ans->sec == MODULE_SEC_SECURE &&
		(c->do_bit || (c->qflags & DNS_FLAG_AD)))
		flags |= DNS_FLAG_AD; /* as a cache hit sets it (a secure
			answer that was not stored: TTL 0, no room) */
	if(ans && (ans->policy == 1 || ans->policy == 3))
		flags |= DNS_FLAG_AA; /* an RPZ answer: the policy zone's */
	if(ans && ans->policy == 3)
		flags &= (uint16_t)~DNS_FLAG_RA; /* rpz-signal-nxdomain-ra */
	if(c->tp == RESOLVER_TCP)
		limit = DNS_MAX_MSG;
	else if(c->edns)
		limit = c->udp_size < r->max_udp ? c->udp_size : r->max_udp;
	else	limit = DNS_MIN_UDP;
	dns_build_init(&b, r->buf, DNS_MAX_MSG, limit);
	if(dns_build_header(&b, c->id, flags) != 0 ||
		dns_build_question(&b, c->qname, c->norec_prime ?
		c->own_qtype : s->qtype, c->norec_prime ? c->own_qclass :
		s->qclass) != 0)
		goto drop;
	if(c->edns) {
		if(ede >= 0) {
			edns_opt_ede(&opt[nopt], edebuf, sizeof(edebuf),
				(uint16_t)ede, NULL);
			nopt++;
		}
		if(c->ecs_echo) {
			/* RFC 7871 7.2.1: the client's option back, with
			 * the scope of the answer */
			size_t n = ecs_write(r->ecs_code, &c->ecs,
				c->ecs.source, s->qs.ecs ? s->qs.ecs->scope : 0,
				ecsbuf, sizeof(ecsbuf));
			if(n > 4) {
				opt[nopt].code = r->ecs_code;
				opt[nopt].len = (uint16_t)(n - 4);
				opt[nopt].data = ecsbuf + 4;
				nopt++;
			}
		}
		if(c->has_cookie) {
			opt[nopt].code = DNS_EDNS_COOKIE;
			opt[nopt].len = COOKIE_FULL_LEN;
			opt[nopt].data = c->cookie;
			nopt++;
		}
		dns_build_reserve(&b, dns_opt_size(opt, nopt));
	}
	if(ans && ans->policy == 4 && c->tp != RESOLVER_TCP)
		/* an RPZ TCP-ONLY rule (NSDNAME / NSIP): empty, with TC */
		b.flags |= DNS_FLAG_TC;
	else if(ans) {
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
			nopt ? opt : NULL, nopt) != 0)
			goto drop;
	}
	len = dns_build_finish(&b);
	if((rc = resolver_respip(r, c, RESOLVER_CLIENT_PKT(c), c->qlen,
		r->buf, &len)) == 1)
		return; /* it waits for a CNAME target */
	if(rc != 0)
		goto drop;
	r->stats.num_recursive_replies++;
	resolver_count_rec_time(r, c);
	r->reply_start = c->start;
	resolver_client_nsid(r, c, r->buf, &len);
	r->reply_cb(r->reply_arg, &c->handle, r->buf, len);
	return;
drop:
	r->stats.num_dropped++;
	r->reply_cb(r->reply_arg, &c->handle, NULL, 0);
}

void
resolver_auth_host_lookups(struct resolver *r)
{
	auth_lookup_hosts_start(r->authz, r->mesh);
}

void
resolver_zonemd_lookups(struct resolver *r)
{
	auth_lookup_keys_start(r->authz, r->mesh);
	resolver_auth_host_lookups(r);
}

/**
 * dns-error-reporting (RFC 9567, as Unbound): a client's answer failed
 * with an Extended DNS Error and the last server asked named a reporting
 * agent (Report-Channel, s->er_agent): ask
 * "_er.<qtype>.<qname>.<error>._er.<agent>" TXT in the background (its
 * answer is cached like any other, so a repeated failure does not ask
 * again while it lives). EDE "Other" is not reported: it says nothing
 * without its text. A name that would be longer than 255 is skipped.
 */
static void
resolver_error_report(struct resolver *r, const struct mesh_state *s,
	int ede)
{
	uint8_t q[DNS_MAX_NAME + 1];
	char num[8];
	size_t n = 0, l, qn = s->qname_len - 1;
	if(ede <= 0 || !s->er_agent_len || s->qname_len < 1)
		return;
	memcpy(q, "\003_er", 4);
	n = 4;
	l = (size_t)snprintf(num, sizeof(num), "%u", (unsigned)s->qtype);
	if(n + 1 + l + qn + 1 + 5 + 4 + s->er_agent_len > DNS_MAX_NAME)
		return;
	q[n++] = (uint8_t)l;
	memcpy(q + n, num, l);
	n += l;
	memcpy(q + n, s->qname, qn);
	n += qn;
	l = (size_t)snprintf(num, sizeof(num), "%u", (unsigned)ede);
	q[n++] = (uint8_t)l;
	memcpy(q + n, num, l);
	n += l;
	memcpy(q + n, "\003_er", 4);
	n += 4;
	if(n + s->er_agent_len > DNS_MAX_NAME)
		return;
	memcpy(q + n, s->er_agent, s->er_agent_len);
	verbose(VERB_ALGO, "dns-error-reporting: a report for EDE %d", ede);
	(void)mesh_new_prefetch(r->mesh, q, DNS_TYPE_TXT, s->qclass,
		MESH_FLAG_RD);
}

/**
 * A resolution failed for want of a working server (EDE 22, No
 * Reachable Authority, or 23, Network Error): keep the SERVFAIL in the
 * message cache a few seconds (RFC 9520 section 3.2; MCACHE_SERVFAIL_TTL,
 * as Unbound's error_response_cache), so that repeats do not ask the
 * failing servers again at once. Not when an answer that may still be
 * given is there (a fresh one, or one serve-expired serves stale, of
 * either DO bit): the failure does not replace it; an expired one is
 * then served stale at once for those seconds (mcache_norec_set, as
 * Unbound's serve_expired_norec_ttl). Other failures (a
 * bogus answer, which the validator remembers itself; a refused,
 * ratelimited or dropped query) are not kept; with serve-expired they
 * only hold an expired answer's recursion back for those seconds, as
 * Unbound's norec time follows any failed refresh
 * (serve_expired_val_bogus.rpl).
 */
static void
resolver_store_servfail(struct resolver *r, struct mesh_state *s, int ede)
{
	struct query_info qi;
	struct mcache_state st;
	int do_bit = (s->flags & MESH_FLAG_DO) != 0;
	int cd_bit = (s->flags & MESH_FLAG_CD) != 0;
	int d, kept = 0, keep = (ede == DNS_EDE_NO_REACHABLE_AUTHORITY ||
		ede == DNS_EDE_NETWORK_ERROR);
	time_t now = r->out->now->tv_sec;
	if(!r->mcache || s->qs.no_cache_store || (!keep && !(r->cfg &&
		r->cfg->serve_expired)))
		return;
	if(query_info_set(&qi, s->qname, s->qtype, s->qclass) < 0)
		return;
	for(d = 0; d < 2; d++) {
		int b = d ? !do_bit : do_bit;
		if(mcache_peek(r->mcache, &qi, b, cd_bit, now, &st) != 0 ||
			st.result == MCACHE_MISS ||
			st.rcode == DNS_RCODE_SERVFAIL)
			continue;
		kept = 1;
		/* an expired answer is served stale at once for as long
		 * as the SERVFAIL would have been kept (its refreshes and
		 * serve-expired-client-timeout wait on no failing server
		 * meanwhile) */
		if(st.result == MCACHE_HIT_EXPIRED)
			mcache_norec_set(r->mcache, &qi, b, cd_bit, now);
	}
	if(!kept && keep)
		(void)mcache_store_servfail(r->mcache, &qi, do_bit, cd_bit,
			now, ede);
}

/**
 * A question without CD whose answer the validator made SERVFAIL as
 * bogus (qs.bogus_msg): the answer is kept under the CD key of the
 * message cache (the state's DO bit), where CD clients get it with its
 * data and without AD (mcache_answer sets AD on secure entries only), as
 * Unbound serves its bogus message to them (RFC 4035 3.2.2: CD gets the
 * data of the BAD cache). Off the hot path: on a bogus SERVFAIL only.
 */
static void
resolver_store_bogus_cd(struct resolver *r, struct mesh_state *s)
{
	int flags = s->flags;
	if(s->qs.no_cache_store)
		return;
	s->flags |= MESH_FLAG_CD; /* (the key the answer is stored under) */
	(void)resolver_store_answer(r, s, s->qs.bogus_msg);
	s->flags = flags;
}

/** the mesh's done callback: store the answer, answer every client */
static void
resolver_mesh_done(void *arg, struct mesh_state *s, struct mesh_answer *ans,
	int ede)
{
	struct resolver *r = arg;
	struct mesh_client *c;
	/* an answer the subnetcache keeps for its scope stays out of the
	 * shared caches */
	int stored = s->qs.no_cache_store ? 0 :
		resolver_store_answer(r, s, ans);
	if((!ans || ans->rcode == DNS_RCODE_SERVFAIL) && r->mcache && r->cfg &&
		r->cfg->serve_expired && r->cfg->serve_expired_ttl_reset) {
		/* serve-expired-ttl-reset: the refresh failed; an expired
		 * entry's serve-expired-ttl window starts again (the entry
		 * of either DO bit: one may answer the other's key,
		 * mcache_store_msg_share); before the SERVFAIL is kept,
		 * which it then does not replace */
		struct query_info qi;
		int d;
		if(query_info_set(&qi, s->qname, s->qtype, s->qclass) == 0)
			for(d = 0; d < 2; d++)
				mcache_stale_reset(r->mcache, &qi,
					((s->flags & MESH_FLAG_DO) != 0) ^ d,
					(s->flags & MESH_FLAG_CD) != 0,
					r->out->now->tv_sec);
	}
	if(!ans)
		resolver_store_servfail(r, s, ede);
	if(!ans && s->qs.bogus_msg && !(s->flags & MESH_FLAG_CD))
		resolver_store_bogus_cd(r, s);
	if(s->clients && s->er_agent_len && r->cfg &&
		r->cfg->dns_error_reporting)
		resolver_error_report(r, s, ede);
	for(c = s->clients; c; c = c->next) {
		/* num.answer.secure: each secure reply, as Unbound counts
		 * (a validation with no client, or several, counts so) */
		if(ans && ans->sec == MODULE_SEC_SECURE &&
			ans->rcode != DNS_RCODE_SERVFAIL)
			r->stats.num_answer_secure++;
		resolver_answer_client(r, s, c, ans, ede, stored);
	}
	if(stored == 2)
		/* later hits show the held set's TTL (store.h) */
		(void)resolver_store_answer(r, s, ans);
	/* an auth zone's DNSKEY or host name lookup */
	auth_lookup_done(r->authz, s, ans, ede);
}
