/*
 * cachedb/cachedb_record.c - key, value and expiry of the second-level
 * cache. See cachedb_record.h for the formats and the expiry rules.
 */
#include "config.h"
#include <string.h>
#include <openssl/evp.h>
#include "cachedb/cachedb_record.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "util/region.h"

int
cachedb_key(const uint8_t *qname, uint16_t qtype, uint16_t qclass,
	const char *seed, char *key)
{
	static const char hex[] = "0123456789ABCDEF";
	uint8_t clear[DNS_MAX_NAME + 4 + 256], digest[32];
	unsigned int dlen = 0;
	size_t n = dname_valid(qname, DNS_MAX_NAME), slen, i;
	if(n == 0)
		return -1;
	(void)dname_copy_lower(clear, qname);
	clear[n] = (uint8_t)(qtype >> 8);
	clear[n + 1] = (uint8_t)qtype;
	clear[n + 2] = (uint8_t)(qclass >> 8);
	clear[n + 3] = (uint8_t)qclass;
	n += 4;
	slen = seed ? strlen(seed) : 0;
	if(slen > 256)
		slen = 256; /* the config limits it; never overflow */
	if(slen)
		memcpy(clear + n, seed, slen);
	n += slen;
	if(EVP_Digest(clear, n, digest, &dlen, EVP_sha256(), NULL) != 1 ||
		dlen != sizeof(digest))
		return -1;
	for(i = 0; i < sizeof(digest); i++) {
		key[i * 2] = hex[digest[i] >> 4];
		key[i * 2 + 1] = hex[digest[i] & 0xf];
	}
	key[CACHEDB_KEY_LEN] = 0;
	return 0;
}

/** write v as 8 bytes big-endian */
static void
put_be64(uint8_t *p, uint64_t v)
{
	int i;
	for(i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/** read 8 bytes big-endian */
static uint64_t
get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for(i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}

/** add a section's records; lower *minttl. @return 0 or -1 */
static int
encode_list(struct dns_builder *b, int section,
	const struct module_rrlist *l, uint32_t *minttl)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next) {
		uint32_t ttl = rr->ttl > 0x7fffffffu ? 0 : rr->ttl;
		if(dns_build_rr(b, section, rr->owner, rr->type, rr->rrclass,
			ttl, rr->rdata, rr->rdlen) != 0)
			return -1;
		if(ttl < *minttl)
			*minttl = ttl;
	}
	return 0;
}

int
cachedb_encode(const uint8_t *qname, uint16_t qtype, uint16_t qclass,
	const struct mesh_answer *ans, time_t now, uint8_t *buf,
	size_t buflen, size_t *len, time_t *expiry)
{
	struct dns_builder b;
	uint32_t minttl = 0xffffffffu;
	size_t n;
	if(!ans || (ans->rcode != DNS_RCODE_NOERROR &&
		ans->rcode != DNS_RCODE_NXDOMAIN))
		return -1;
	if(buflen < DNS_HDR_SIZE + CACHEDB_TRAILER_LEN)
		return -1;
	dns_build_init(&b, buf, buflen - CACHEDB_TRAILER_LEN, 0);
	if(dns_build_header(&b, 0, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(ans->rcode & 0xf))) != 0 ||
	   dns_build_question(&b, qname, qtype, qclass) != 0 ||
	   encode_list(&b, DNS_SEC_ANSWER, &ans->an, &minttl) != 0 ||
	   encode_list(&b, DNS_SEC_AUTHORITY, &ans->ns, &minttl) != 0 ||
	   encode_list(&b, DNS_SEC_ADDITIONAL, &ans->ar, &minttl) != 0)
		return -1;
	if(dns_build_is_truncated(&b))
		return -1;
	if(minttl == 0xffffffffu)
		minttl = 0; /* no records at all: nothing says how long */
	if(minttl == 0)
		return -1; /* TTL 0 must not be kept */
	n = dns_build_finish(&b);
	*expiry = now + (time_t)minttl;
	put_be64(buf + n, (uint64_t)now);
	put_be64(buf + n + 8, (uint64_t)*expiry);
	*len = n + CACHEDB_TRAILER_LEN;
	return 0;
}

enum cachedb_decode_result
cachedb_decode(const uint8_t *val, size_t vlen, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, time_t now, struct region *region,
	struct mesh_answer **out, time_t *expiry)
{
	struct dns_msg *msg;
	struct mesh_answer *ans;
	uint8_t owner[DNS_MAX_NAME], rdata[65535];
	time_t stored, exp;
	uint64_t s64, e64;
	size_t mlen, i;
	int expired, rcode;
	*out = NULL;
	if(vlen < DNS_HDR_SIZE + CACHEDB_TRAILER_LEN)
		return CACHEDB_INVALID;
	mlen = vlen - CACHEDB_TRAILER_LEN;
	s64 = get_be64(val + mlen);
	e64 = get_be64(val + mlen + 8);
	if(s64 > (uint64_t)0x7fffffffffffLL || e64 > (uint64_t)0x7fffffffffffLL ||
		e64 < s64)
		return CACHEDB_INVALID;
	stored = (time_t)s64;
	exp = (time_t)e64;
	if(expiry)
		*expiry = exp;
	msg = region_alloc(region, sizeof(*msg));
	if(!msg || dns_msg_parse(val, mlen, msg, region, 0) != 0)
		return CACHEDB_INVALID;
	if(!(msg->flags & DNS_FLAG_QR) || msg->qdcount != 1 ||
		msg->qtype != qtype || msg->qclass != qclass ||
		!dname_pkt_equal_wire(val, mlen, msg->qname_off, qname))
		return CACHEDB_INVALID;
	rcode = msg->rcode;
	if(rcode != DNS_RCODE_NOERROR && rcode != DNS_RCODE_NXDOMAIN)
		return CACHEDB_INVALID;
	ans = region_alloc_zero(region, sizeof(*ans));
	if(!ans)
		return CACHEDB_INVALID;
	ans->rcode = rcode;
	ans->ede = -1;
	ans->sec = MODULE_SEC_UNCHECKED;
	expired = now >= exp;
	for(i = 0; i < msg->rr_count; i++) {
		const struct dns_rr *rr = &msg->rrs[i];
		struct module_rrlist *l;
		struct module_rr *m;
		size_t olen = dns_rr_owner(msg, rr, owner);
		int rl = dns_rr_rdata_uncompressed(msg, rr, rdata,
			sizeof(rdata));
		uint32_t ttl;
		if(olen == 0 || rl < 0)
			return CACHEDB_INVALID;
		if(expired)
			ttl = 0;
		else {
			/* lowered by the time elapsed, never past expiry */
			long long left = (long long)rr->ttl;
			long long cap = (long long)(exp -
				(now > stored ? now : stored));
			if(now > stored)
				left -= (long long)(now - stored);
			if(left > cap)
				left = cap;
			if(left < 0)
				left = 0;
			ttl = (uint32_t)left;
		}
		m = module_rr_new(region, owner, olen, rr->type, rr->rrclass,
			ttl, rdata, (size_t)rl);
		if(!m)
			return CACHEDB_INVALID;
		l = rr->section == DNS_SEC_ANSWER ? &ans->an :
			rr->section == DNS_SEC_AUTHORITY ? &ans->ns : &ans->ar;
		module_rrlist_append(l, m);
	}
	*out = ans;
	return expired ? CACHEDB_EXPIRED : CACHEDB_FRESH;
}

int
cachedb_stale_ok(time_t expiry, time_t now, int serve_expired,
	int serve_expired_ttl)
{
	if(!serve_expired)
		return 0;
	if(now < expiry)
		return 1;
	if(serve_expired_ttl <= 0)
		return 1;
	return now - expiry < (time_t)serve_expired_ttl;
}

/** set the TTLs of a list */
static void
list_set_ttl(struct module_rrlist *l, uint32_t ttl)
{
	struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		rr->ttl = ttl;
}

void
cachedb_mark_stale(struct mesh_answer *ans, uint32_t ttl)
{
	list_set_ttl(&ans->an, ttl);
	list_set_ttl(&ans->ns, ttl);
	list_set_ttl(&ans->ar, ttl);
	ans->ede = DNS_EDE_STALE_ANSWER;
}

long long
cachedb_redis_ttl(time_t expiry, time_t now, int serve_expired,
	int serve_expired_ttl)
{
	long long t = (long long)(expiry - now);
	if(serve_expired) {
		if(serve_expired_ttl <= 0)
			return -1; /* no limit: no Redis expiry */
		t += serve_expired_ttl;
	}
	return t < 1 ? 1 : t;
}
