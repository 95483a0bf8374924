/*
 * dns/query.h - the fast query parser for the cached-answer path.
 *
 * dns_query_parse_fast() makes one pass over the header, the question and
 * the rest of the message (looking for the OPT record), and fills a
 * caller-provided struct fast_query. It copies nothing from the packet but
 * the question name, lower-cased, into fast_query.qinfo.qname; everything
 * else is kept as offsets into the packet. It does not allocate, lock or
 * log, and it never reads outside [pkt, pkt+len).
 *
 * The question name of a query must not be compressed (there is nothing
 * before it to point at but the header); a pointer there is reported as
 * DNS_ERR_POINTER_NOT_ALLOWED.
 * The parser hashes the lower-cased name, type and class with
 * dns_qinfo_hash() so the message cache can be looked up straight away.
 *
 * The hash is a seeded 64-bit multiply-mix over 8-byte words (in the
 * manner of wyhash/murmur, written for this purpose), folded to 32 bits.
 * The seed is process-global: set it once at start-up, before any worker
 * runs, with dns_hash_set_seed() so that remote clients cannot aim queries
 * at one hash chain.
 */
#ifndef DNS_QUERY_H
#define DNS_QUERY_H

#include <stdint.h>
#include <stddef.h>
#include "dns/dns.h"

/** most EDNS options remembered (more are counted and checked, not kept) */
#define EDNS_MAX_OPTS 8

/** one EDNS option, as offsets into the packet */
struct edns_opt_ref {
	/** option code */
	uint16_t code;
	/** option length */
	uint16_t len;
	/** offset of the option data in the packet */
	uint16_t off;
};

/** the EDNS0 OPT record of a message (RFC 6891) */
struct edns_data {
	/** 1 when the message had an OPT record; the rest is valid only then */
	int present;
	/** EDNS version (0 is the only one defined) */
	uint8_t version;
	/** upper eight bits of the extended rcode */
	uint8_t ext_rcode;
	/** the requestor's UDP payload size, as sent (may be < 512) */
	uint16_t udp_size;
	/** the 16 EDNS flag bits (DO is DNS_EDNS_DO) */
	uint16_t flags;
	/** 1 when the DO bit is set */
	int do_bit;
	/** offset of the OPT RR (its owner name) in the packet */
	uint16_t opt_off;
	/** offset of the OPT RDATA in the packet */
	uint16_t rdata_off;
	/** length of the OPT RDATA */
	uint16_t rdata_len;
	/** number of options in the RDATA (all of them) */
	uint16_t num_opts;
	/** the first EDNS_MAX_OPTS options */
	struct edns_opt_ref opts[EDNS_MAX_OPTS];
	/** offset of the COOKIE option data, or 0 when absent */
	uint16_t cookie_off;
	/** length of the COOKIE option data */
	uint16_t cookie_len;
	/** the COOKIE option data (COOKIE_FULL_LEN bytes) to put in the
	 * answer's OPT record, or NULL: never set by the parser (it sets
	 * NULL), but by the front end once it has checked the query's
	 * cookie (answer-cookie); the memory is the front end's */
	const uint8_t *cookie_reply;
	/** 1 when an NSID option (a request, empty) was present */
	int nsid;
};

/** the question: what the caches are keyed on */
struct query_info {
	/** question name, lower-cased, uncompressed wire format; the bytes
	 * after qname_len up to the next multiple of 8 are zero */
	uint8_t qname[DNS_MAX_NAME + 1];
	/** length of qname including the root label */
	size_t qname_len;
	/** question type */
	uint16_t qtype;
	/** question class */
	uint16_t qclass;
	/** dns_qinfo_hash(qname, qname_len, qtype, qclass) */
	uint32_t hash;
};

/** a query parsed for the fast path */
struct fast_query {
	/** message ID (valid whenever len >= 12, even on error) */
	uint16_t id;
	/** header flags word (valid whenever len >= 12, even on error) */
	uint16_t flags;
	/** opcode (from flags) */
	uint8_t opcode;
	/** QDCOUNT, ANCOUNT, NSCOUNT, ARCOUNT */
	uint16_t qdcount, ancount, nscount, arcount;
	/** the question */
	struct query_info qinfo;
	/** offset of the question name in the packet (to echo the client's
	 * letter case); 0 when the question could not be parsed */
	size_t qname_off;
	/** offset just past the question (after qclass); 0 when the question
	 * could not be parsed */
	size_t question_end;
	/** the OPT record */
	struct edns_data edns;
	/** 1 when a TSIG record was seen in the additional section */
	int has_tsig;
};

/**
 * The size an answer to q must fit in: outmax over TCP; over UDP the
 * client's EDNS size, at least 512 and at most max_udp (max-udp-size,
 * itself at least 512), or 512 without EDNS; never more than outmax.
 */
static inline size_t
fast_query_answer_limit(const struct fast_query *q, int tcp, size_t max_udp,
	size_t outmax)
{
	size_t limit;
	if(tcp)
		return outmax;
	limit = q->edns.present ? q->edns.udp_size : DNS_MIN_UDP;
	if(limit < DNS_MIN_UDP)
		limit = DNS_MIN_UDP;
	if(limit > max_udp)
		limit = max_udp;
	return limit < outmax ? limit : outmax;
}

/**
 * Parse a query for the fast path: header, one question, and the OPT
 * record. Answer and authority records are skipped (checked, not kept).
 * @param pkt: the query.
 * @param len: its length.
 * @param out: filled in. On error, id/flags are valid when len >= 12, and
 *	qname_off/question_end are non-zero when the question was read, so a
 *	FORMERR can be built with dns_build_error_reply().
 * @return 0, or DNS_ERR_TRUNCATED, DNS_ERR_NOT_QUERY (QR set),
 *	DNS_ERR_QDCOUNT (not exactly one question), a name error, or an OPT
 *	error (DNS_ERR_BAD_OPT, DNS_ERR_OPT_TWICE, DNS_ERR_OPT_NOT_ADDITIONAL).
 *	The opcode is not checked: the caller answers NOTIMPL for others.
 */
int dns_query_parse_fast(const uint8_t *pkt, size_t len,
	struct fast_query *out);

/**
 * Parse an OPT RR's fixed part and RDATA into an edns_data.
 * @param pkt: the packet.
 * @param len: packet length.
 * @param opt_off: offset of the OPT owner name.
 * @param rrclass: the OPT class field (UDP size).
 * @param ttl: the OPT TTL field (ext rcode, version, flags).
 * @param rdata_off: offset of the RDATA.
 * @param rdlen: RDATA length (already checked to fit in the packet).
 * @param edns: filled in.
 * @return 0 or DNS_ERR_BAD_OPT (owner not root, option overruns RDATA).
 */
int edns_parse_opt(const uint8_t *pkt, size_t len, size_t opt_off,
	uint16_t rrclass, uint32_t ttl, size_t rdata_off, size_t rdlen,
	struct edns_data *edns);

/**
 * Find an EDNS option by code, looking at the whole option list (not only
 * the first EDNS_MAX_OPTS kept in edns->opts).
 * @param pkt: the packet the edns_data was parsed from.
 * @param edns: the parsed OPT (present must be 1).
 * @param code: option code (DNS_EDNS_EDE, ...).
 * @param start: 0 for the first match; to find the next one, the offset
 *	returned for the previous match.
 * @param len: set to the option length.
 * @return offset of the option data in pkt, or 0 when there is none.
 */
size_t edns_opt_find(const uint8_t *pkt, const struct edns_data *edns,
	uint16_t code, size_t start, uint16_t *len);

/**
 * Set the hash seed. Call once at start-up before workers start.
 */
void dns_hash_set_seed(uint64_t seed);

/**
 * Hash a question. The name must be lower-cased by the caller.
 * Everyone who stores or looks up entries by question uses this function
 * so that the fast parser's qinfo.hash matches.
 * @param name: lower-cased uncompressed name.
 * @param len: its length.
 * @param qtype: the type.
 * @param qclass: the class.
 * @return the 32-bit hash.
 */
uint32_t dns_qinfo_hash(const uint8_t *name, size_t len, uint16_t qtype,
	uint16_t qclass);

/**
 * Fill a query_info from an uncompressed name (any case), type, class.
 * @return 0, or -1 when the name is invalid.
 */
int query_info_set(struct query_info *qi, const uint8_t *name,
	uint16_t qtype, uint16_t qclass);

#endif /* DNS_QUERY_H */
