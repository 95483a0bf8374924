/*
 * dns/msgencode.c - build DNS messages in a caller buffer.
 *
 * See msgencode.h. The compression table holds the offsets of label starts
 * already in the message (below 0x4000, the pointer range). To write a
 * name, its suffixes are tried longest first against the table; the labels
 * before the match are written literally (and added to the table) and a
 * pointer closes the name.
 */
#include "config.h"
#include <string.h>
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"

/* RDATA fields of the types whose names we compress; see msgparse.c */
#define F_NAME (-1)
#define F_END 0
static const int c_name[] = { F_NAME, F_END };
static const int c_name2[] = { F_NAME, F_NAME, F_END };
static const int c_mx[] = { 2, F_NAME, F_END };
static const int c_soa[] = { F_NAME, F_NAME, 20, F_END };

/** field list for types whose RDATA names are compressed, else NULL */
static const int *
compress_desc(uint16_t type)
{
	switch(type) {
	case DNS_TYPE_NS: case DNS_TYPE_MD: case DNS_TYPE_MF:
	case DNS_TYPE_CNAME: case DNS_TYPE_MB: case DNS_TYPE_MG:
	case DNS_TYPE_MR: case DNS_TYPE_PTR:
		return c_name;
	case DNS_TYPE_MINFO:
		return c_name2;
	case DNS_TYPE_MX:
		return c_mx;
	case DNS_TYPE_SOA:
		return c_soa;
	default:
		return NULL;
	}
}

void
dns_build_init(struct dns_builder *b, uint8_t *buf, size_t cap, size_t limit)
{
	b->buf = buf;
	b->cap = cap > DNS_MAX_MSG ? DNS_MAX_MSG : cap;
	b->limit = (limit == 0 || limit > b->cap) ? b->cap : limit;
	b->reserve = 0;
	b->pos = 0;
	b->section = -1;
	memset(b->count, 0, sizeof(b->count));
	b->flags = 0;
	b->truncated = 0;
	b->have_opt = 0;
	b->nctab = 0;
}

int
dns_build_header(struct dns_builder *b, uint16_t id, uint16_t flags)
{
	if(b->cap < DNS_HDR_SIZE)
		return DNS_ERR_NOSPACE;
	memset(b->buf, 0, DNS_HDR_SIZE);
	dns_hdr_set_id(b->buf, id);
	dns_hdr_set_flags(b->buf, flags);
	b->flags = flags;
	b->pos = DNS_HDR_SIZE;
	return 0;
}

/** @return the usable limit for RRs */
static size_t
rr_limit(const struct dns_builder *b)
{
	return b->reserve >= b->limit ? 0 : b->limit - b->reserve;
}

/** remember the label starts of a literal name part at off, n bytes */
static void
ctab_add(struct dns_builder *b, size_t off, size_t n)
{
	size_t p = off;
	while(p < off + n && b->nctab < DNS_COMPRESS_MAX && p < 0x4000) {
		b->ctab[b->nctab++] = (uint16_t)p;
		p += (size_t)b->buf[p] + 1;
	}
}

/**
 * Write a valid uncompressed name at b->pos, compressed against the names
 * already written, within limit.
 * @return 0 or DNS_ERR_NOSPACE.
 */
static int
write_name(struct dns_builder *b, const uint8_t *d, size_t limit)
{
	const uint8_t *s = d;
	int match = -1;
	size_t lit, need;
	while(*s) {
		int k;
		for(k = 0; k < b->nctab; k++) {
			if(dname_pkt_equal_wire(b->buf, b->pos, b->ctab[k],
				s)) {
				match = k;
				break;
			}
		}
		if(match >= 0)
			break;
		s += (size_t)*s + 1;
	}
	lit = (size_t)(s - d);
	need = lit + (match >= 0 ? 2 : 1);
	if(b->pos + need > limit)
		return DNS_ERR_NOSPACE;
	memcpy(b->buf + b->pos, d, lit);
	ctab_add(b, b->pos, lit);
	b->pos += lit;
	if(match >= 0) {
		dns_write_u16(b->buf + b->pos, (uint16_t)(0xc000 |
			b->ctab[match]));
		b->pos += 2;
	} else {
		b->buf[b->pos++] = 0;
	}
	return 0;
}

int
dns_build_question(struct dns_builder *b, const uint8_t *name,
	uint16_t qtype, uint16_t qclass)
{
	size_t n = dname_valid(name, DNS_MAX_NAME), start = b->pos;
	if(n == 0)
		return DNS_ERR_BAD_RDATA;
	if(b->section != -1 || b->pos < DNS_HDR_SIZE)
		return DNS_ERR_SYNTAX;
	if(b->pos + n + 4 > b->cap)
		return DNS_ERR_NOSPACE;
	memcpy(b->buf + b->pos, name, n);
	ctab_add(b, start, n - 1);
	b->pos += n;
	dns_write_u16(b->buf + b->pos, qtype);
	dns_write_u16(b->buf + b->pos + 2, qclass);
	b->pos += 4;
	b->count[0]++;
	return 0;
}

int
dns_build_question_raw(struct dns_builder *b, const uint8_t *pkt,
	size_t qname_off, size_t question_end)
{
	size_t n;
	if(question_end <= qname_off + 4 || b->section != -1 ||
		b->pos < DNS_HDR_SIZE)
		return DNS_ERR_SYNTAX;
	n = question_end - qname_off;
	if(b->pos + n > b->cap)
		return DNS_ERR_NOSPACE;
	memcpy(b->buf + b->pos, pkt + qname_off, n);
	/* the name is compressible only when it is a plain name */
	if(dname_valid(b->buf + b->pos, n - 4) == n - 4)
		ctab_add(b, b->pos, n - 5);
	b->pos += n;
	b->count[0]++;
	return 0;
}

void
dns_build_mark(const struct dns_builder *b, struct dns_build_mark *m)
{
	m->pos = b->pos;
	memcpy(m->count, b->count, sizeof(m->count));
	m->nctab = b->nctab;
	m->section = b->section;
}

void
dns_build_rollback(struct dns_builder *b, const struct dns_build_mark *m)
{
	b->pos = m->pos;
	memcpy(b->count, m->count, sizeof(b->count));
	b->nctab = m->nctab;
	b->section = m->section;
}

/** write one RR; on failure the caller rolls back */
static int
write_rr(struct dns_builder *b, const uint8_t *owner, uint16_t type,
	uint16_t rrclass, uint32_t ttl, const uint8_t *rdata, size_t rdlen,
	size_t limit)
{
	/* empty RDATA is written as is (RFC 2136), as msgparse accepts it */
	const int *d = rdlen ? compress_desc(type) : NULL;
	size_t rdstart;
	int r;
	if((r = write_name(b, owner, limit)) != 0)
		return r;
	if(b->pos + DNS_RR_FIXED > limit)
		return DNS_ERR_NOSPACE;
	dns_write_u16(b->buf + b->pos, type);
	dns_write_u16(b->buf + b->pos + 2, rrclass);
	dns_write_u32(b->buf + b->pos + 4, ttl);
	b->pos += DNS_RR_FIXED;
	rdstart = b->pos;
	if(!d) {
		if(b->pos + rdlen > limit)
			return DNS_ERR_NOSPACE;
		memcpy(b->buf + b->pos, rdata, rdlen);
		b->pos += rdlen;
	} else {
		size_t p = 0;
		for(; *d != F_END; d++) {
			if(*d == F_NAME) {
				size_t n = dname_valid(rdata + p, rdlen - p);
				if(n == 0)
					return DNS_ERR_BAD_RDATA;
				if((r = write_name(b, rdata + p, limit)) != 0)
					return r;
				p += n;
				continue;
			}
			if(p + (size_t)*d > rdlen)
				return DNS_ERR_BAD_RDATA;
			if(b->pos + (size_t)*d > limit)
				return DNS_ERR_NOSPACE;
			memcpy(b->buf + b->pos, rdata + p, (size_t)*d);
			b->pos += (size_t)*d;
			p += (size_t)*d;
		}
		if(p != rdlen)
			return DNS_ERR_BAD_RDATA;
	}
	if(b->pos - rdstart > 0xffff)
		return DNS_ERR_BAD_RDATA;
	dns_write_u16(b->buf + rdstart - 2, (uint16_t)(b->pos - rdstart));
	return 0;
}

/** common checks before adding RRs to a section */
static int
rr_precheck(struct dns_builder *b, int section, const uint8_t *owner)
{
	if(section < DNS_SEC_ANSWER || section > DNS_SEC_ADDITIONAL ||
		section < b->section || b->have_opt || b->pos < DNS_HDR_SIZE)
		return DNS_ERR_SYNTAX;
	if(dname_valid(owner, DNS_MAX_NAME) == 0)
		return DNS_ERR_BAD_RDATA;
	if(b->truncated)
		return DNS_ERR_NOSPACE;
	return 0;
}

int
dns_build_rr(struct dns_builder *b, int section, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	struct dns_build_mark m;
	int r;
	if((r = rr_precheck(b, section, owner)) != 0)
		return r;
	if(b->count[section + 1] == 0xffff)
		return DNS_ERR_NOSPACE;
	dns_build_mark(b, &m);
	b->section = section;
	if((r = write_rr(b, owner, type, rrclass, ttl, rdata, rdlen,
		rr_limit(b))) != 0) {
		dns_build_rollback(b, &m);
		return r;
	}
	b->count[section + 1]++;
	return 0;
}

int
dns_build_rrset(struct dns_builder *b, int section, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, size_t n,
	const uint8_t *const *rdata, const uint16_t *rdlen)
{
	struct dns_build_mark m;
	size_t i;
	int r;
	if((r = rr_precheck(b, section, owner)) != 0)
		return r;
	if((size_t)b->count[section + 1] + n > 0xffff)
		return DNS_ERR_NOSPACE;
	dns_build_mark(b, &m);
	b->section = section;
	for(i = 0; i < n; i++) {
		r = write_rr(b, owner, type, rrclass, ttl, rdata[i], rdlen[i],
			rr_limit(b));
		if(r != 0) {
			dns_build_rollback(b, &m);
			if(r == DNS_ERR_NOSPACE && section != DNS_SEC_ADDITIONAL)
				dns_build_truncate(b);
			return r;
		}
		b->count[section + 1]++;
	}
	return 0;
}

size_t
dns_build_pos(const struct dns_builder *b)
{
	return b->pos;
}

void
dns_build_truncate(struct dns_builder *b)
{
	b->truncated = 1;
	b->flags |= DNS_FLAG_TC;
}

int
dns_build_is_truncated(const struct dns_builder *b)
{
	return b->truncated;
}

void
dns_build_reserve(struct dns_builder *b, size_t n)
{
	b->reserve = n;
}

size_t
dns_opt_size(const struct edns_opt_out *opts, size_t nopts)
{
	size_t n = 1 + DNS_RR_FIXED, i;
	for(i = 0; i < nopts; i++)
		n += 4 + (size_t)opts[i].len;
	return n;
}

int
dns_build_opt(struct dns_builder *b, uint16_t udp_size, int ext_rcode,
	int do_bit, const struct edns_opt_out *opts, size_t nopts)
{
	size_t need = dns_opt_size(opts, nopts), i, rdlen = need - 11;
	uint8_t *p;
	if(b->have_opt || b->pos < DNS_HDR_SIZE || rdlen > 0xffff)
		return DNS_ERR_SYNTAX;
	if(b->pos + need > b->limit || b->count[3] == 0xffff)
		return DNS_ERR_NOSPACE;
	p = b->buf + b->pos;
	p[0] = 0;
	dns_write_u16(p + 1, DNS_TYPE_OPT);
	dns_write_u16(p + 3, udp_size);
	dns_write_u32(p + 5, ((uint32_t)((ext_rcode >> 4) & 0xff) << 24) |
		(do_bit ? DNS_EDNS_DO : 0));
	dns_write_u16(p + 9, (uint16_t)rdlen);
	p += 11;
	for(i = 0; i < nopts; i++) {
		dns_write_u16(p, opts[i].code);
		dns_write_u16(p + 2, opts[i].len);
		if(opts[i].len)
			memcpy(p + 4, opts[i].data, opts[i].len);
		p += 4 + (size_t)opts[i].len;
	}
	b->pos += need;
	b->flags = (uint16_t)((b->flags & ~DNS_FLAG_RCODE_MASK) |
		(ext_rcode & 0xf));
	b->count[3]++;
	b->section = DNS_SEC_ADDITIONAL;
	b->have_opt = 1;
	return 0;
}

void
edns_opt_ede(struct edns_opt_out *o, uint8_t *buf, size_t buflen,
	uint16_t code, const char *text)
{
	size_t tl = text ? strlen(text) : 0;
	if(buflen < 2) {
		o->code = DNS_EDNS_EDE;
		o->len = 0;
		o->data = buf;
		return;
	}
	if(tl > buflen - 2)
		tl = buflen - 2;
	dns_write_u16(buf, code);
	if(tl)
		memcpy(buf + 2, text, tl);
	o->code = DNS_EDNS_EDE;
	o->len = (uint16_t)(2 + tl);
	o->data = buf;
}

size_t
dns_build_finish(struct dns_builder *b)
{
	if(b->pos < DNS_HDR_SIZE)
		return 0;
	dns_hdr_set_flags(b->buf, b->flags);
	dns_hdr_set_qdcount(b->buf, b->count[0]);
	dns_hdr_set_ancount(b->buf, b->count[1]);
	dns_hdr_set_nscount(b->buf, b->count[2]);
	dns_hdr_set_arcount(b->buf, b->count[3]);
	return b->pos;
}

int
dns_build_error_reply(const uint8_t *q, size_t qlen,
	const struct fast_query *fq, int rcode, int ra, int ede,
	const char *ede_text, uint16_t udp_size, uint8_t *out, size_t outlen)
{
	struct dns_builder b;
	uint16_t flags;
	uint8_t edebuf[2 + 256];
	struct edns_opt_out opt;
	int full = rcode;
	if(qlen < DNS_HDR_SIZE)
		return -1;
	flags = (uint16_t)(DNS_FLAG_QR | (fq->flags & (DNS_FLAG_OPCODE_MASK |
		DNS_FLAG_RD | DNS_FLAG_CD)) | (ra ? DNS_FLAG_RA : 0));
	if(fq->edns.present && fq->edns.version != 0)
		full = DNS_RCODE_BADVERS;
	dns_build_init(&b, out, outlen, 0);
	if(dns_build_header(&b, fq->id, (uint16_t)(flags | (full & 0xf))) != 0)
		return -1;
	if(fq->qname_off && fq->question_end > fq->qname_off &&
		fq->question_end <= qlen) {
		if(dns_build_question_raw(&b, q, fq->qname_off,
			fq->question_end) != 0)
			return -1;
	}
	if(fq->edns.present) {
		if(ede >= 0)
			edns_opt_ede(&opt, edebuf, sizeof(edebuf),
				(uint16_t)ede, ede_text);
		if(dns_build_opt(&b, udp_size, full, fq->edns.do_bit, &opt,
			ede >= 0 ? 1 : 0) != 0)
			return -1;
	}
	return (int)dns_build_finish(&b);
}
