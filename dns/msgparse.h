/*
 * dns/msgparse.h - full DNS message parse.
 *
 * dns_msg_parse() checks a whole message (header, questions, every RR of
 * every section, the OPT record) and records each RR as offsets into the
 * packet in a struct dns_rr. The packet is not copied: it must stay
 * unchanged while the struct dns_msg is used. Up to DNS_MSG_INLINE_RRS
 * records live inside struct dns_msg itself, so the common path does not
 * allocate; a larger message needs a region (util/region.h), and is
 * refused with DNS_ERR_TOO_MANY_RRS when none is given.
 *
 * RDATA is bounds-checked per type. Types whose RDATA holds domain names
 * (NS, MD, MF, CNAME, SOA, MB, MG, MR, PTR, MINFO, MX, RP, AFSDB, RT, PX,
 * KX, SRV, NAPTR, DNAME, RRSIG/SIG signer, NSEC/NXT next name) are walked:
 * each name must be valid and must end inside the RDATA with the fixed
 * fields after it. Compression is accepted in every one of these names
 * (RFC 3597 section 4 asks receivers to decompress the RFC 1035 types and
 * RP, AFSDB, RT, SIG, PX, NXT, NAPTR, SRV; accepting it also in RRSIG, NSEC
 * and DNAME costs nothing and the decompressed name is the same). Everything else is opaque
 * (RFC 3597), with a few fixed-size types (A, AAAA) length-checked.
 * Empty RDATA is accepted for every type (RFC 2136 uses it to delete);
 * the helpers below return no name for it.
 *
 * The OPT record (RFC 6891) is taken out of the RR list and parsed into
 * msg->edns. OPT anywhere but the additional section, or more than one,
 * is an error (the caller answers FORMERR).
 *
 * Section numbers: DNS_SEC_ANSWER 0, DNS_SEC_AUTHORITY 1,
 * DNS_SEC_ADDITIONAL 2. The question is kept apart (qdcount 0 or 1 for
 * anything but odd opcodes; more questions are skipped and counted).
 */
#ifndef DNS_MSGPARSE_H
#define DNS_MSGPARSE_H

#include <stdint.h>
#include <stddef.h>
#include "dns/dns.h"
#include "dns/query.h"

struct region;

/** sections of a message (the question is kept apart) */
enum dns_section {
	DNS_SEC_ANSWER = 0,
	DNS_SEC_AUTHORITY = 1,
	DNS_SEC_ADDITIONAL = 2,
	DNS_SEC_NUM = 3
};

/** records kept inside struct dns_msg (no allocation up to this) */
#define DNS_MSG_INLINE_RRS 48

/** "no next RR" in an rrset chain */
#define DNS_RR_NONE 0xffff

/** one resource record, by offsets into the packet */
struct dns_rr {
	/** offset of the owner name (may be compressed) */
	uint16_t owner_off;
	/** RR type */
	uint16_t type;
	/** RR class */
	uint16_t rrclass;
	/** offset of the TTL field in the packet (for patching) */
	uint16_t ttl_off;
	/** TTL as received (32 bits; RFC 2181 says treat >2^31 as 0, the
	 * caller decides) */
	uint32_t ttl;
	/** offset of the RDATA */
	uint16_t rdata_off;
	/** RDATA length */
	uint16_t rdlen;
	/** section (enum dns_section) */
	uint8_t section;
	/** for RRSIG/SIG the covered type, else 0 */
	uint16_t covered;
	/** index of the next RR in the same RRset (set by
	 * dns_msg_group_rrsets), DNS_RR_NONE at the end */
	uint16_t next;
};

/** an RRset found by dns_msg_group_rrsets */
struct dns_rrset {
	/** index of the first RR (its owner is the set's owner) */
	uint16_t first;
	/** number of RRs (follow dns_rr.next) */
	uint16_t count;
	/** section */
	uint8_t section;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** covered type for RRSIG sets (RRSIGs are grouped per covered type) */
	uint16_t covered;
	/** smallest TTL of the RRs */
	uint32_t min_ttl;
	/** index of the last RR (internal, for appending) */
	uint16_t last;
	/** hash of the lower-cased owner, type, class (internal) */
	uint32_t owner_hash;
};

/** a parsed message */
struct dns_msg {
	/** the packet (not owned) */
	const uint8_t *pkt;
	/** its length */
	size_t len;
	/** header ID */
	uint16_t id;
	/** header flags word */
	uint16_t flags;
	/** the full rcode: header low bits + OPT extended bits << 4 */
	int rcode;
	/** header counts */
	uint16_t qdcount, ancount, nscount, arcount;
	/** offset of the first question name, 0 when qdcount is 0 */
	uint16_t qname_off;
	/** first question type and class */
	uint16_t qtype, qclass;
	/** offset just past the question section */
	uint16_t question_end;
	/** the RRs in packet order, OPT removed */
	struct dns_rr *rrs;
	/** number of RRs in rrs */
	size_t rr_count;
	/** index of the first RR of each section in rrs */
	size_t sec_first[DNS_SEC_NUM];
	/** number of RRs of each section in rrs (OPT not counted) */
	size_t sec_count[DNS_SEC_NUM];
	/** the OPT record */
	struct edns_data edns;
	/** offset of a TSIG record (must be last), 0 when none */
	uint16_t tsig_off;
	/** the inline RR store */
	struct dns_rr rr_inline[DNS_MSG_INLINE_RRS];
};

/** dns_msg_parse flag: extra bytes after the last RR are an error */
#define DNS_PARSE_STRICT_TRAILING 0x01
/** dns_msg_parse flag: an A or AAAA record whose RDATA has the wrong length
 * is not an error (the message's structure is intact); the caller drops
 * that record (the iterator's scrubber) */
#define DNS_PARSE_LAX_ADDR_LEN 0x02

/**
 * Parse a message.
 * @param pkt: the message; must outlive msg.
 * @param len: its length.
 * @param msg: filled in.
 * @param region: used when there are more than DNS_MSG_INLINE_RRS records;
 *	may be NULL.
 * @param flags: DNS_PARSE_* flags.
 * @return 0 or a dns_parse_err.
 */
int dns_msg_parse(const uint8_t *pkt, size_t len, struct dns_msg *msg,
	struct region *region, int flags);

/** @return pointer to the first RR of a section; count in *count */
struct dns_rr *dns_msg_section(struct dns_msg *msg, int section,
	size_t *count);

/**
 * Decompress an RR's owner name.
 * @param buf: at least DNS_MAX_NAME bytes.
 * @return length of the name (always > 0 after a successful parse).
 */
size_t dns_rr_owner(const struct dns_msg *msg, const struct dns_rr *rr,
	uint8_t *buf);

/** @return pointer to an RR's RDATA in the packet */
static inline const uint8_t *
dns_rr_rdata(const struct dns_msg *msg, const struct dns_rr *rr)
{
	return msg->pkt + rr->rdata_off;
}

/**
 * Decompress a name at an offset in the packet (inside RDATA, say).
 * @param off: offset of the name.
 * @param buf: at least DNS_MAX_NAME bytes.
 * @param endoff: if not NULL, set to the offset just past the name as it
 *	sits in the packet.
 * @return length of the name, or 0 when it is invalid.
 */
size_t dns_msg_name_at(const struct dns_msg *msg, size_t off, uint8_t *buf,
	size_t *endoff);

/**
 * Decompress the first (or only) domain name in an RR's RDATA: the target
 * of NS, CNAME, DNAME, PTR; the exchange of MX; the MNAME of SOA; the
 * target of SRV; the signer of RRSIG; the next name of NSEC.
 * @param buf: at least DNS_MAX_NAME bytes.
 * @return length, or 0 when the type has no name.
 */
size_t dns_rr_rdata_name(const struct dns_msg *msg, const struct dns_rr *rr,
	uint8_t *buf);

/**
 * Write an RR's RDATA uncompressed (names in it decompressed, case kept),
 * the canonical input for caching and for DNSSEC.
 * @param out: output buffer.
 * @param outlen: size of out.
 * @return the length written, or -1 when out is too small.
 */
int dns_rr_rdata_uncompressed(const struct dns_msg *msg,
	const struct dns_rr *rr, uint8_t *out, size_t outlen);

/**
 * Group the RRs of each section into RRsets: same owner (case-insensitive),
 * type and class; RRSIGs grouped by covered type. Sets rrs[i].next.
 * Sets appear in the order of their first RR. Quadratic in the number of
 * sets per section (with a hash check first); callers facing hostile
 * upstreams may cap rr_count before calling.
 * @param sets: output array.
 * @param max: its size.
 * @return number of sets, or -1 when max is too small.
 */
int dns_msg_group_rrsets(struct dns_msg *msg, struct dns_rrset *sets,
	size_t max);

#endif /* DNS_MSGPARSE_H */
