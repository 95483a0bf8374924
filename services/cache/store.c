/*
 * services/cache/store.c - the one store path of a finished answer (see
 * store.h): marked RRsets to the RRset cache, the message, encoded once
 * with its RR offsets recorded as it is written, to the message cache.
 */
#include "config.h"
#include "services/cache/store.h"
#include "services/cache/rrset.h"
#include "services/cache/msgcache.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include <stddef.h>
#include <string.h>

/** most records (RRs and RRSIGs) of a set stored with its RRSIGs; a
 * larger set is stored without them (and so not as secure) */
#define STORE_SIGNED_MAX 256

/**
 * The RRSIGs of an answer that cover a set (same owner, class and
 * section, type covered), appended to rd/rdlen after the set's RRs.
 * @return the number of RRSIGs appended (0 when none, or too many).
 */
static size_t
store_sigs_of(const struct cache_answer *a, const struct cache_rrset *cs,
	const uint8_t **rd, uint16_t *rdlen)
{
	size_t i, k, n = cs->count;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *g = &a->sets[i];
		if(g->type != DNS_TYPE_RRSIG || g->section != cs->section ||
			g->rrclass != cs->rrclass ||
			!dname_equal(g->owner, cs->owner))
			continue;
		for(k = 0; k < g->count; k++) {
			if(g->rdlen[k] < 2 || dns_read_u16(g->rdata[k]) !=
				cs->type)
				continue;
			if(n >= STORE_SIGNED_MAX)
				return 0;
			rd[n] = g->rdata[k];
			rdlen[n] = g->rdlen[k];
			n++;
		}
	}
	return n - cs->count;
}

/** the marked sets into the RRset cache, each with its RRSIGs and the
 * security status the validator gave it (see store.h) */
static void
store_rrsets(struct rrset_cache *rc, const struct cache_answer *a,
	time_t now)
{
	const uint8_t *rd[STORE_SIGNED_MAX];
	uint16_t rdlen[STORE_SIGNED_MAX];
	size_t i, k;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		struct rrset_data rs;
		if(cs->trust == RRSET_TRUST_NONE || cs->type == DNS_TYPE_RRSIG
			|| cs->count == 0)
			continue;
		memset(&rs, 0, sizeof(rs));
		rs.name = cs->owner;
		rs.name_len = cs->owner_len;
		rs.type = cs->type;
		rs.rrclass = cs->rrclass;
		rs.ttl = cs->ttl;
		rs.trust = (enum rrset_trust)cs->trust;
		rs.sec = RRSET_SEC_UNCHECKED;
		rs.count = cs->count;
		rs.rdata = cs->rdata;
		rs.rdlen = cs->rdlen;
		if(cs->count < STORE_SIGNED_MAX) {
			for(k = 0; k < cs->count; k++) {
				rd[k] = cs->rdata[k];
				rdlen[k] = cs->rdlen[k];
			}
			rs.sig_count = store_sigs_of(a, cs, rd, rdlen);
			if(rs.sig_count > 0) {
				rs.rdata = rd;
				rs.rdlen = rdlen;
			}
		}
		/* secure only with the RRSIGs that show it (see store.h);
		 * insecure is kept as the validator said */
		if(cs->sec == RRSET_SEC_SECURE && rs.sig_count > 0) {
			rs.sec = RRSET_SEC_SECURE;
			rs.trust = RRSET_TRUST_VALIDATED;
		} else if(cs->sec == RRSET_SEC_INSECURE)
			rs.sec = RRSET_SEC_INSECURE;
		(void)rrset_cache_store(rc, &rs, now);
	}
}

/**
 * Write one RR and record where its parts went.
 * @return 0, or -1 when it did not fit or is malformed.
 */
static int
write_rr_rec(struct dns_builder *b, uint8_t *buf, const struct cache_rrset *cs,
	size_t k, struct dns_rr *rec)
{
	size_t start = dns_build_pos(b), end, p = start;
	if(dns_build_rr(b, cs->section, cs->owner, cs->type, cs->rrclass,
		cs->ttl, cs->rdata[k], cs->rdlen[k]) != 0)
		return -1;
	end = dns_build_pos(b);
	/* the owner as written (a pointer, or labels and a pointer) */
	if(dname_pkt_read(buf, end, &p, NULL, NULL) != 0 || p + 10 > end)
		return -1;
	rec->owner_off = (uint16_t)start;
	rec->type = cs->type;
	rec->rrclass = cs->rrclass;
	rec->ttl_off = (uint16_t)(p + 4);
	rec->ttl = cs->ttl;
	rec->rdata_off = (uint16_t)(p + 10);
	rec->rdlen = (uint16_t)(end - (p + 10));
	rec->section = cs->section;
	rec->covered = (cs->type == DNS_TYPE_RRSIG && cs->rdlen[k] >= 2) ?
		dns_read_u16(cs->rdata[k]) : 0;
	rec->next = DNS_RR_NONE;
	return 0;
}

/** encode the message, recording its parse, and store it */
static enum mcache_store_result
store_message(struct mcache *mc, const struct cache_answer *a, time_t now,
	uint8_t *buf, size_t bufsize, struct region *region)
{
	struct dns_msg msg;
	struct dns_builder b;
	size_t i, k, n = 0, sec;
	for(i = 0; i < a->nsets; i++)
		n += a->sets[i].count;
	/* the header fields and counts (the inline record array is written
	 * as used) */
	memset(&msg, 0, offsetof(struct dns_msg, rr_inline));
	if(n <= DNS_MSG_INLINE_RRS)
		msg.rrs = msg.rr_inline;
	else if(!region || n > 0xffff || !(msg.rrs = region_alloc(region,
		n * sizeof(*msg.rrs))))
		return MCACHE_NOT_CACHEABLE;
	dns_build_init(&b, buf, bufsize, 0);
	if(dns_build_header(&b, 0, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(a->rcode & 0xf))) != 0 ||
	   dns_build_question(&b, a->qinfo->qname, a->qinfo->qtype,
		a->qinfo->qclass) != 0)
		return MCACHE_NOT_CACHEABLE;
	msg.flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA | (a->rcode & 0xf));
	msg.rcode = a->rcode;
	msg.qdcount = 1;
	msg.qname_off = DNS_HDR_SIZE;
	msg.qtype = a->qinfo->qtype;
	msg.qclass = a->qinfo->qclass;
	msg.question_end = (uint16_t)dns_build_pos(&b);
	for(sec = 0; sec < DNS_SEC_NUM; sec++)
		msg.sec_first[sec] = 0;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		if(cs->section >= DNS_SEC_NUM)
			return MCACHE_NOT_CACHEABLE;
		for(k = 0; k < cs->count; k++) {
			if(write_rr_rec(&b, buf, cs, k, &msg.rrs[msg.rr_count])
				!= 0)
				return MCACHE_NOT_CACHEABLE;
			msg.rr_count++;
			msg.sec_count[cs->section]++;
		}
	}
	/* each section's first record: after those of the sections before */
	for(sec = 1; sec < DNS_SEC_NUM; sec++)
		msg.sec_first[sec] = msg.sec_first[sec - 1] +
			msg.sec_count[sec - 1];
	msg.ancount = (uint16_t)msg.sec_count[DNS_SEC_ANSWER];
	msg.nscount = (uint16_t)msg.sec_count[DNS_SEC_AUTHORITY];
	msg.arcount = (uint16_t)msg.sec_count[DNS_SEC_ADDITIONAL];
	msg.len = dns_build_finish(&b);
	msg.pkt = buf;
	return mcache_store_msg_share(mc, a->qinfo, a->do_bit, a->cd_bit,
		a->share, buf, msg.len, &msg, now, a->sec, a->ede);
}

enum mcache_store_result
cache_store_answer(struct mcache *mc, struct rrset_cache *rc,
	const struct cache_answer *a, time_t now, uint8_t *buf,
	size_t bufsize, struct region *region)
{
	if(rc)
		store_rrsets(rc, a, now);
	if(!mc)
		return MCACHE_NOT_CACHEABLE;
	return store_message(mc, a, now, buf, bufsize, region);
}
