/*
 * dns/msgparse.c - full DNS message parse.
 *
 * See msgparse.h. RDATA layouts that contain names are described by small
 * field lists (fixed octets, a name, a character-string, "the rest"); one
 * walker checks them during the parse and writes them out uncompressed on
 * request, so the checking and the copying cannot disagree.
 */
#include "config.h"
#include <string.h>
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "util/region.h"

/* RDATA field kinds; positive values are that many fixed octets */
/** a domain name (compression accepted) */
#define F_NAME (-1)
/** a character-string: length octet and that many octets */
#define F_STR (-2)
/** any number of octets up to the end of the RDATA */
#define F_REST (-3)
/** end of the list: the RDATA must end here */
#define F_END 0

static const int d_name[] = { F_NAME, F_END };
static const int d_name2[] = { F_NAME, F_NAME, F_END };
static const int d_pref_name[] = { 2, F_NAME, F_END };
static const int d_px[] = { 2, F_NAME, F_NAME, F_END };
static const int d_soa[] = { F_NAME, F_NAME, 20, F_END };
static const int d_srv[] = { 6, F_NAME, F_END };
static const int d_naptr[] = { 4, F_STR, F_STR, F_STR, F_NAME, F_END };
static const int d_rrsig[] = { 18, F_NAME, F_REST, F_END };
static const int d_nsec[] = { F_NAME, F_REST, F_END };
static const int d_a[] = { 4, F_END };
static const int d_aaaa[] = { 16, F_END };

/** @return the field list for a type, or NULL for opaque RDATA */
static const int *
rdata_desc(uint16_t type)
{
	switch(type) {
	case DNS_TYPE_NS: case DNS_TYPE_MD: case DNS_TYPE_MF:
	case DNS_TYPE_CNAME: case DNS_TYPE_MB: case DNS_TYPE_MG:
	case DNS_TYPE_MR: case DNS_TYPE_PTR: case DNS_TYPE_DNAME:
		return d_name;
	case DNS_TYPE_MINFO: case DNS_TYPE_RP:
		return d_name2;
	case DNS_TYPE_MX: case DNS_TYPE_AFSDB: case DNS_TYPE_RT:
	case DNS_TYPE_KX:
		return d_pref_name;
	case DNS_TYPE_PX:
		return d_px;
	case DNS_TYPE_SOA:
		return d_soa;
	case DNS_TYPE_SRV:
		return d_srv;
	case DNS_TYPE_NAPTR:
		return d_naptr;
	case DNS_TYPE_RRSIG: case DNS_TYPE_SIG:
		return d_rrsig;
	case DNS_TYPE_NSEC: case DNS_TYPE_NXT:
		return d_nsec;
	case DNS_TYPE_A:
		return d_a;
	case DNS_TYPE_AAAA:
		return d_aaaa;
	default:
		return NULL;
	}
}

/**
 * Walk RDATA by its field list; check it and optionally write it out with
 * names decompressed.
 * @param out: NULL to only check.
 * @param outlen: in: capacity; out: length written.
 * @return 0, DNS_ERR_BAD_RDATA, or DNS_ERR_NOSPACE.
 */
static int
rdata_walk(const uint8_t *pkt, size_t len, size_t off, size_t rdlen,
	const int *d, uint8_t *out, size_t *outlen)
{
	size_t p = off, end = off + rdlen, o = 0, cap = out ? *outlen : 0;
	for(; *d != F_END; d++) {
		size_t n;
		if(*d == F_NAME) {
			uint8_t nm[DNS_MAX_NAME];
			size_t nlen;
			if(dname_pkt_read(pkt, len, &p, out ? nm : NULL,
				&nlen) != 0 || p > end)
				return DNS_ERR_BAD_RDATA;
			if(out) {
				if(o + nlen > cap)
					return DNS_ERR_NOSPACE;
				memcpy(out + o, nm, nlen);
				o += nlen;
			}
			continue;
		}
		if(*d == F_STR) {
			if(p >= end)
				return DNS_ERR_BAD_RDATA;
			n = (size_t)pkt[p] + 1;
		} else if(*d == F_REST) {
			n = end - p;
		} else {
			n = (size_t)*d;
		}
		if(p + n > end)
			return DNS_ERR_BAD_RDATA;
		if(out) {
			if(o + n > cap)
				return DNS_ERR_NOSPACE;
			memcpy(out + o, pkt + p, n);
			o += n;
		}
		p += n;
	}
	if(p != end)
		return DNS_ERR_BAD_RDATA;
	if(out)
		*outlen = o;
	return 0;
}

/** parse one RR at *pos into rr; OPT is reported through *is_opt */
static int
parse_rr(const uint8_t *pkt, size_t len, size_t *pos, struct dns_rr *rr,
	int flags)
{
	size_t p = *pos, rdlen;
	const int *d;
	int r;
	rr->owner_off = (uint16_t)p;
	if((r = dname_pkt_read(pkt, len, &p, NULL, NULL)) != 0)
		return r;
	if(p + DNS_RR_FIXED > len)
		return DNS_ERR_TRUNCATED;
	rr->type = dns_read_u16(pkt + p);
	rr->rrclass = dns_read_u16(pkt + p + 2);
	rr->ttl_off = (uint16_t)(p + 4);
	rr->ttl = dns_read_u32(pkt + p + 4);
	rdlen = dns_read_u16(pkt + p + 8);
	p += DNS_RR_FIXED;
	if(p + rdlen > len)
		return DNS_ERR_TRUNCATED;
	rr->rdata_off = (uint16_t)p;
	rr->rdlen = (uint16_t)rdlen;
	rr->next = DNS_RR_NONE;
	rr->covered = 0;
	/* empty RDATA is allowed for every type (RFC 2136 2.5.2 deletes) */
	if(rdlen != 0 && rr->type != DNS_TYPE_OPT &&
		(d = rdata_desc(rr->type)) != NULL &&
		!((flags & DNS_PARSE_LAX_ADDR_LEN) &&
		(rr->type == DNS_TYPE_A || rr->type == DNS_TYPE_AAAA))) {
		if((r = rdata_walk(pkt, len, p, rdlen, d, NULL, NULL)) != 0)
			return r;
		if(rr->type == DNS_TYPE_RRSIG || rr->type == DNS_TYPE_SIG)
			rr->covered = dns_read_u16(pkt + p);
	}
	*pos = p + rdlen;
	return 0;
}

int
dns_msg_parse(const uint8_t *pkt, size_t len, struct dns_msg *msg,
	struct region *region, int flags)
{
	size_t p, i, total, idx = 0;
	int sec, r;
	uint16_t counts[DNS_SEC_NUM];

	msg->pkt = pkt;
	msg->len = len;
	msg->rrs = msg->rr_inline;
	msg->rr_count = 0;
	msg->qname_off = 0;
	msg->qtype = msg->qclass = 0;
	msg->question_end = 0;
	msg->edns.present = 0;
	msg->tsig_off = 0;
	for(sec = 0; sec < DNS_SEC_NUM; sec++)
		msg->sec_first[sec] = msg->sec_count[sec] = 0;
	if(len < DNS_HDR_SIZE)
		return DNS_ERR_TRUNCATED;
	if(len > DNS_MAX_MSG)
		return DNS_ERR_MSG_TOO_LONG;
	msg->id = dns_hdr_id(pkt);
	msg->flags = dns_hdr_flags(pkt);
	msg->rcode = msg->flags & DNS_FLAG_RCODE_MASK;
	msg->qdcount = dns_hdr_qdcount(pkt);
	msg->ancount = counts[0] = dns_hdr_ancount(pkt);
	msg->nscount = counts[1] = dns_hdr_nscount(pkt);
	msg->arcount = counts[2] = dns_hdr_arcount(pkt);

	p = DNS_HDR_SIZE;
	for(i = 0; i < msg->qdcount; i++) {
		size_t q = p;
		if((r = dname_pkt_read(pkt, len, &p, NULL, NULL)) != 0)
			return r;
		if(p + 4 > len)
			return DNS_ERR_TRUNCATED;
		if(i == 0) {
			msg->qname_off = (uint16_t)q;
			msg->qtype = dns_read_u16(pkt + p);
			msg->qclass = dns_read_u16(pkt + p + 2);
		}
		p += 4;
	}
	msg->question_end = (uint16_t)p;

	/* every RR takes at least 11 octets: a bound before allocating */
	total = (size_t)counts[0] + counts[1] + counts[2];
	if(total * (DNS_RR_FIXED + 1) > len - p)
		return DNS_ERR_TRUNCATED;
	if(total > DNS_MSG_INLINE_RRS) {
		if(!region)
			return DNS_ERR_TOO_MANY_RRS;
		msg->rrs = region_alloc(region, total * sizeof(struct dns_rr));
		if(!msg->rrs) {
			msg->rrs = msg->rr_inline;
			return DNS_ERR_NOMEM;
		}
	}

	for(sec = 0; sec < DNS_SEC_NUM; sec++) {
		msg->sec_first[sec] = idx;
		for(i = 0; i < counts[sec]; i++) {
			struct dns_rr *rr = &msg->rrs[idx];
			size_t start = p;
			if((r = parse_rr(pkt, len, &p, rr, flags)) != 0)
				return r;
			rr->section = (uint8_t)sec;
			if(rr->type == DNS_TYPE_OPT) {
				if(sec != DNS_SEC_ADDITIONAL)
					return DNS_ERR_OPT_NOT_ADDITIONAL;
				if(msg->edns.present)
					return DNS_ERR_OPT_TWICE;
				r = edns_parse_opt(pkt, len, start,
					rr->rrclass, rr->ttl, rr->rdata_off,
					rr->rdlen, &msg->edns);
				if(r != 0)
					return r;
				msg->rcode |= (int)msg->edns.ext_rcode << 4;
				continue;
			}
			if(rr->type == DNS_TYPE_TSIG && sec ==
				DNS_SEC_ADDITIONAL)
				msg->tsig_off = (uint16_t)start;
			idx++;
		}
		msg->sec_count[sec] = idx - msg->sec_first[sec];
	}
	msg->rr_count = idx;
	if(p != len && (flags & DNS_PARSE_STRICT_TRAILING))
		return DNS_ERR_TRAILING;
	return 0;
}

struct dns_rr *
dns_msg_section(struct dns_msg *msg, int section, size_t *count)
{
	*count = msg->sec_count[section];
	return msg->rrs + msg->sec_first[section];
}

size_t
dns_msg_name_at(const struct dns_msg *msg, size_t off, uint8_t *buf,
	size_t *endoff)
{
	size_t n = 0;
	if(dname_pkt_read(msg->pkt, msg->len, &off, buf, &n) != 0)
		return 0;
	if(endoff)
		*endoff = off;
	return n;
}

size_t
dns_rr_owner(const struct dns_msg *msg, const struct dns_rr *rr,
	uint8_t *buf)
{
	return dns_msg_name_at(msg, rr->owner_off, buf, NULL);
}

size_t
dns_rr_rdata_name(const struct dns_msg *msg, const struct dns_rr *rr,
	uint8_t *buf)
{
	const int *d = rdata_desc(rr->type);
	size_t p = rr->rdata_off;
	if(!d || rr->rdlen == 0)
		return 0;
	for(; *d != F_END; d++) {
		if(*d == F_NAME)
			return dns_msg_name_at(msg, p, buf, NULL);
		if(*d < 0)
			return 0; /* no name before a variable field */
		p += (size_t)*d;
	}
	return 0;
}

int
dns_rr_rdata_uncompressed(const struct dns_msg *msg,
	const struct dns_rr *rr, uint8_t *out, size_t outlen)
{
	const int *d = rdata_desc(rr->type);
	size_t o = outlen;
	if(!d || rr->type == DNS_TYPE_OPT || rr->rdlen == 0) {
		if(rr->rdlen > outlen)
			return -1;
		memcpy(out, msg->pkt + rr->rdata_off, rr->rdlen);
		return rr->rdlen;
	}
	if(rdata_walk(msg->pkt, msg->len, rr->rdata_off, rr->rdlen, d, out,
		&o) != 0)
		return -1;
	return (int)o;
}

/** hash of an owner name in the packet, for quick set matching */
static uint32_t
owner_hash(const struct dns_msg *msg, const struct dns_rr *rr)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t n = dns_rr_owner(msg, rr, nm);
	dname_tolower(nm);
	return dns_qinfo_hash(nm, n, rr->type, rr->rrclass) ^ rr->covered;
}

int
dns_msg_group_rrsets(struct dns_msg *msg, struct dns_rrset *sets,
	size_t max)
{
	size_t nsets = 0, i, s, sec_start_set;
	int sec;
	for(sec = 0; sec < DNS_SEC_NUM; sec++) {
		sec_start_set = nsets;
		for(i = msg->sec_first[sec]; i < msg->sec_first[sec] +
			msg->sec_count[sec]; i++) {
			struct dns_rr *rr = &msg->rrs[i];
			uint32_t h = owner_hash(msg, rr);
			rr->next = DNS_RR_NONE;
			for(s = sec_start_set; s < nsets; s++) {
				struct dns_rrset *set = &sets[s];
				if(set->owner_hash == h && set->type == rr->type
					&& set->rrclass == rr->rrclass &&
					set->covered == rr->covered &&
					dname_pkt_equal(msg->pkt, msg->len,
					msg->rrs[set->first].owner_off,
					rr->owner_off))
					break;
			}
			if(s < nsets) {
				struct dns_rrset *set = &sets[s];
				msg->rrs[set->last].next = (uint16_t)i;
				set->last = (uint16_t)i;
				set->count++;
				if(rr->ttl < set->min_ttl)
					set->min_ttl = rr->ttl;
				continue;
			}
			if(nsets >= max)
				return -1;
			sets[nsets].first = (uint16_t)i;
			sets[nsets].last = (uint16_t)i;
			sets[nsets].count = 1;
			sets[nsets].section = (uint8_t)sec;
			sets[nsets].type = rr->type;
			sets[nsets].rrclass = rr->rrclass;
			sets[nsets].covered = rr->covered;
			sets[nsets].min_ttl = rr->ttl;
			sets[nsets].owner_hash = h;
			nsets++;
		}
	}
	return (int)nsets;
}
