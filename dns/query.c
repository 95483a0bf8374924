/*
 * dns/query.c - the fast query parser and the question hash.
 *
 * The question name is found by hopping over its length bytes only, then
 * copied in one memcpy and lower-cased eight bytes at a time (length bytes
 * are at most 63, below 'A', so lower-casing the whole wire name leaves
 * them alone). The copy is zero-padded to a multiple of eight bytes so the
 * hash can read whole words.
 */
#include "config.h"
#include <string.h>
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"

/** the hash seed; set once at start-up (dns_hash_set_seed) */
static uint64_t hash_seed = 0x243f6a8885a308d3ULL;

#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xc2b2ae3d27d4eb4fULL
#define LOW7 0x7f7f7f7f7f7f7f7fULL
#define HIGH 0x8080808080808080ULL
#define BYTES(x) (0x0101010101010101ULL * (uint64_t)(x))

void
dns_hash_set_seed(uint64_t seed)
{
	hash_seed = seed;
}

/** rotate left */
static inline uint64_t
rotl64(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/** final avalanche (the murmur3 fmix64 constants) */
static inline uint64_t
fmix64(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdULL;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ULL;
	h ^= h >> 33;
	return h;
}

/** mix one word into the state */
static inline uint64_t
hash_word(uint64_t h, uint64_t w)
{
	h ^= w * K1;
	return rotl64(h, 29) * K2;
}

/** finish with type and class */
static inline uint32_t
hash_final(uint64_t h, size_t len, uint16_t qtype, uint16_t qclass)
{
	h ^= ((uint64_t)qtype << 32 | (uint64_t)qclass << 16 | len) * K2;
	h = fmix64(h);
	return (uint32_t)(h ^ (h >> 32));
}

uint32_t
dns_qinfo_hash(const uint8_t *name, size_t len, uint16_t qtype,
	uint16_t qclass)
{
	uint64_t h = hash_seed, w;
	size_t i = 0;
	for(; i + 8 <= len; i += 8) {
		memcpy(&w, name + i, 8);
		h = hash_word(h, w);
	}
	if(i < len) {
		w = 0;
		memcpy(&w, name + i, len - i);
		h = hash_word(h, w);
	}
	return hash_final(h, len, qtype, qclass);
}

/** lower-case ASCII A-Z in eight bytes at once */
static inline uint64_t
lower_word(uint64_t x)
{
	uint64_t b = x & LOW7;
	uint64_t ge_a = b + BYTES(0x80 - 'A');
	uint64_t gt_z = b + BYTES(0x80 - 'Z' - 1);
	uint64_t up = ge_a & ~gt_z & ~x & HIGH;
	return x | (up >> 2);
}

int
query_info_set(struct query_info *qi, const uint8_t *name, uint16_t qtype,
	uint16_t qclass)
{
	size_t n = dname_valid(name, DNS_MAX_NAME);
	if(n == 0)
		return -1;
	memset(qi->qname, 0, sizeof(qi->qname));
	dname_copy_lower(qi->qname, name);
	qi->qname_len = n;
	qi->qtype = qtype;
	qi->qclass = qclass;
	qi->hash = dns_qinfo_hash(qi->qname, n, qtype, qclass);
	return 0;
}

int
edns_parse_opt(const uint8_t *pkt, size_t len, size_t opt_off,
	uint16_t rrclass, uint32_t ttl, size_t rdata_off, size_t rdlen,
	struct edns_data *edns)
{
	size_t p = rdata_off, end = rdata_off + rdlen;
	if(opt_off >= len || pkt[opt_off] != 0 || end > len)
		return DNS_ERR_BAD_OPT;
	edns->present = 1;
	edns->udp_size = rrclass;
	edns->ext_rcode = (uint8_t)(ttl >> 24);
	edns->version = (uint8_t)(ttl >> 16);
	edns->flags = (uint16_t)ttl;
	edns->do_bit = (ttl & DNS_EDNS_DO) != 0;
	edns->opt_off = (uint16_t)opt_off;
	edns->rdata_off = (uint16_t)rdata_off;
	edns->rdata_len = (uint16_t)rdlen;
	edns->num_opts = 0;
	edns->cookie_off = 0;
	edns->cookie_len = 0;
	edns->cookie_reply = NULL;
	edns->nsid = 0;
	while(p + 4 <= end) {
		uint16_t code = dns_read_u16(pkt + p);
		uint16_t olen = dns_read_u16(pkt + p + 2);
		p += 4;
		if(p + olen > end)
			return DNS_ERR_BAD_OPT;
		if(edns->num_opts < EDNS_MAX_OPTS) {
			struct edns_opt_ref *o = &edns->opts[edns->num_opts];
			o->code = code;
			o->len = olen;
			o->off = (uint16_t)p;
		}
		edns->num_opts++;
		if(code == DNS_EDNS_COOKIE && edns->cookie_off == 0) {
			edns->cookie_off = (uint16_t)p;
			edns->cookie_len = olen;
		} else if(code == DNS_EDNS_NSID) {
			edns->nsid = 1;
		}
		p += olen;
	}
	if(p != end)
		return DNS_ERR_BAD_OPT;
	return 0;
}

size_t
edns_opt_find(const uint8_t *pkt, const struct edns_data *edns,
	uint16_t code, size_t start, uint16_t *len)
{
	size_t p = edns->rdata_off, end = p + edns->rdata_len;
	if(!edns->present)
		return 0;
	/* the list was checked by edns_parse_opt: each option fits */
	while(p + 4 <= end) {
		uint16_t c = dns_read_u16(pkt + p), l = dns_read_u16(pkt + p + 2);
		if(p + 4 + l > end)
			return 0;
		if(c == code && p + 4 > start) {
			*len = l;
			return p + 4;
		}
		p += 4 + (size_t)l;
	}
	return 0;
}

/** skip one RR in a section of a query; note OPT/TSIG */
static int
skip_rr(const uint8_t *pkt, size_t len, size_t *pos, int additional,
	struct fast_query *out)
{
	size_t p = *pos, own = p, rdlen;
	uint16_t type;
	int r;
	if(p < len && pkt[p] == 0) {
		p++; /* the root, as in every OPT */
	} else if((r = dname_pkt_read(pkt, len, &p, NULL, NULL)) != 0) {
		return r;
	}
	if(p + DNS_RR_FIXED > len)
		return DNS_ERR_TRUNCATED;
	type = dns_read_u16(pkt + p);
	rdlen = dns_read_u16(pkt + p + 8);
	if(p + DNS_RR_FIXED + rdlen > len)
		return DNS_ERR_TRUNCATED;
	if(type == DNS_TYPE_OPT) {
		if(!additional)
			return DNS_ERR_OPT_NOT_ADDITIONAL;
		if(out->edns.present)
			return DNS_ERR_OPT_TWICE;
		r = edns_parse_opt(pkt, len, own, dns_read_u16(pkt + p + 2),
			dns_read_u32(pkt + p + 4), p + DNS_RR_FIXED, rdlen,
			&out->edns);
		if(r != 0)
			return r;
	} else if(type == DNS_TYPE_TSIG && additional) {
		out->has_tsig = 1;
	}
	*pos = p + DNS_RR_FIXED + rdlen;
	return 0;
}

int
dns_query_parse_fast(const uint8_t *pkt, size_t len, struct fast_query *out)
{
	size_t p, n, i, nrr;
	uint8_t *q = out->qinfo.qname;
	uint64_t h;
	int r;

	out->qname_off = 0;
	out->question_end = 0;
	out->edns.present = 0;
	out->has_tsig = 0;
	if(len < DNS_HDR_SIZE) {
		out->id = 0;
		out->flags = 0;
		return DNS_ERR_TRUNCATED;
	}
	if(len > DNS_MAX_MSG)
		len = DNS_MAX_MSG; /* offsets are 16 bits; the rest is ignored */
	out->id = dns_hdr_id(pkt);
	out->flags = dns_hdr_flags(pkt);
	out->opcode = (uint8_t)((out->flags & DNS_FLAG_OPCODE_MASK) >>
		DNS_OPCODE_SHIFT);
	out->qdcount = dns_hdr_qdcount(pkt);
	out->ancount = dns_hdr_ancount(pkt);
	out->nscount = dns_hdr_nscount(pkt);
	out->arcount = dns_hdr_arcount(pkt);
	if(out->flags & DNS_FLAG_QR)
		return DNS_ERR_NOT_QUERY;
	if(out->qdcount != 1)
		return DNS_ERR_QDCOUNT;

	/* find the end of the question name: hop over the length bytes */
	p = DNS_HDR_SIZE;
	for(;;) {
		uint8_t c;
		if(p >= len)
			return DNS_ERR_TRUNCATED;
		c = pkt[p];
		if(c & 0xc0)
			return (c & 0xc0) == 0xc0 ?
				DNS_ERR_POINTER_NOT_ALLOWED : DNS_ERR_BAD_LABEL;
		p += (size_t)c + 1;
		if(p - DNS_HDR_SIZE > DNS_MAX_NAME)
			return DNS_ERR_NAME_TOO_LONG;
		if(c == 0)
			break;
	}
	if(p + 4 > len)
		return DNS_ERR_TRUNCATED;
	n = p - DNS_HDR_SIZE;
	/* copy, zero-pad to a word, lower-case a word at a time and hash
	 * it in the same pass: the zero padding makes the words those of
	 * dns_qinfo_hash, whose last partial word is zero-filled too */
	memset(q + (n & ~(size_t)7), 0, 8);
	memcpy(q, pkt + DNS_HDR_SIZE, n);
	h = hash_seed;
	for(i = 0; i < n; i += 8) {
		uint64_t w;
		memcpy(&w, q + i, 8);
		w = lower_word(w);
		memcpy(q + i, &w, 8);
		h = hash_word(h, w);
	}
	out->qinfo.qname_len = n;
	out->qinfo.qtype = dns_read_u16(pkt + p);
	out->qinfo.qclass = dns_read_u16(pkt + p + 2);
	out->qinfo.hash = hash_final(h, n, out->qinfo.qtype,
		out->qinfo.qclass);
	out->qname_off = DNS_HDR_SIZE;
	out->question_end = p + 4;
	p += 4;

	/* the other sections: checked and skipped, OPT parsed */
	nrr = (size_t)out->ancount + out->nscount;
	for(i = 0; i < nrr; i++)
		if((r = skip_rr(pkt, len, &p, 0, out)) != 0)
			return r;
	for(i = 0; i < out->arcount; i++)
		if((r = skip_rr(pkt, len, &p, 1, out)) != 0)
			return r;
	return 0;
}
