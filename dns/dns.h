/*
 * dns/dns.h - DNS wire format constants and header helpers.
 *
 * Everything in dns/ works on wire-format buffers owned by the caller.
 * Nothing here allocates. Parse functions return 0 on success or a value
 * of enum dns_parse_err; they never read outside [pkt, pkt+len).
 *
 * Header layout (RFC 1035 4.1.1): ID, FLAGS, QDCOUNT, ANCOUNT, NSCOUNT,
 * ARCOUNT, each 16 bits big-endian. The FLAGS word holds QR, OPCODE, AA,
 * TC, RD, RA, Z, AD, CD and the low four bits of the RCODE; use the
 * DNS_FLAG_* masks on the 16-bit word returned by dns_hdr_flags().
 */
#ifndef DNS_DNS_H
#define DNS_DNS_H

#include <stdint.h>
#include <stddef.h>

/** size of the fixed DNS header */
#define DNS_HDR_SIZE		12
/** longest wire-format name, including the root label */
#define DNS_MAX_NAME		255
/** longest label */
#define DNS_MAX_LABEL		63
/** most labels a name can have (root included): 127 one-char labels + root */
#define DNS_MAX_LABELS		128
/** longest presentation-format name: every byte as \DDD, dots, NUL */
#define DNS_MAX_NAME_STR	(DNS_MAX_NAME * 4 + 2)
/** longest message (TCP length field) */
#define DNS_MAX_MSG		65535
/** RFC 1035 UDP size without EDNS */
#define DNS_MIN_UDP		512
/** fixed part of an RR after the owner: type, class, ttl, rdlength */
#define DNS_RR_FIXED		10

/** RR types (IANA) */
enum dns_type {
	DNS_TYPE_A = 1,
	DNS_TYPE_NS = 2,
	DNS_TYPE_MD = 3,
	DNS_TYPE_MF = 4,
	DNS_TYPE_CNAME = 5,
	DNS_TYPE_SOA = 6,
	DNS_TYPE_MB = 7,
	DNS_TYPE_MG = 8,
	DNS_TYPE_MR = 9,
	DNS_TYPE_NULL = 10,
	DNS_TYPE_WKS = 11,
	DNS_TYPE_PTR = 12,
	DNS_TYPE_HINFO = 13,
	DNS_TYPE_MINFO = 14,
	DNS_TYPE_MX = 15,
	DNS_TYPE_TXT = 16,
	DNS_TYPE_RP = 17,
	DNS_TYPE_AFSDB = 18,
	DNS_TYPE_X25 = 19,
	DNS_TYPE_ISDN = 20,
	DNS_TYPE_RT = 21,
	DNS_TYPE_NSAP = 22,
	DNS_TYPE_SIG = 24,
	DNS_TYPE_KEY = 25,
	DNS_TYPE_PX = 26,
	DNS_TYPE_AAAA = 28,
	DNS_TYPE_LOC = 29,
	DNS_TYPE_NXT = 30,
	DNS_TYPE_SRV = 33,
	DNS_TYPE_NAPTR = 35,
	DNS_TYPE_KX = 36,
	DNS_TYPE_CERT = 37,
	DNS_TYPE_A6 = 38,
	DNS_TYPE_DNAME = 39,
	DNS_TYPE_OPT = 41,
	DNS_TYPE_APL = 42,
	DNS_TYPE_DS = 43,
	DNS_TYPE_SSHFP = 44,
	DNS_TYPE_IPSECKEY = 45,
	DNS_TYPE_RRSIG = 46,
	DNS_TYPE_NSEC = 47,
	DNS_TYPE_DNSKEY = 48,
	DNS_TYPE_DHCID = 49,
	DNS_TYPE_NSEC3 = 50,
	DNS_TYPE_NSEC3PARAM = 51,
	DNS_TYPE_TLSA = 52,
	DNS_TYPE_SMIMEA = 53,
	DNS_TYPE_HIP = 55,
	DNS_TYPE_CDS = 59,
	DNS_TYPE_CDNSKEY = 60,
	DNS_TYPE_OPENPGPKEY = 61,
	DNS_TYPE_CSYNC = 62,
	DNS_TYPE_ZONEMD = 63,
	DNS_TYPE_SVCB = 64,
	DNS_TYPE_HTTPS = 65,
	DNS_TYPE_SPF = 99,
	DNS_TYPE_TKEY = 249,
	DNS_TYPE_TSIG = 250,
	DNS_TYPE_IXFR = 251,
	DNS_TYPE_AXFR = 252,
	DNS_TYPE_MAILB = 253,
	DNS_TYPE_MAILA = 254,
	DNS_TYPE_ANY = 255,
	DNS_TYPE_URI = 256,
	DNS_TYPE_CAA = 257
};

/** classes */
enum dns_class {
	DNS_CLASS_IN = 1,
	DNS_CLASS_CH = 3,
	DNS_CLASS_HS = 4,
	DNS_CLASS_NONE = 254,
	DNS_CLASS_ANY = 255
};

/** response codes (the values above 15 need EDNS) */
enum dns_rcode {
	DNS_RCODE_NOERROR = 0,
	DNS_RCODE_FORMERR = 1,
	DNS_RCODE_SERVFAIL = 2,
	DNS_RCODE_NXDOMAIN = 3,
	DNS_RCODE_NOTIMPL = 4,
	DNS_RCODE_REFUSED = 5,
	DNS_RCODE_YXDOMAIN = 6,
	DNS_RCODE_YXRRSET = 7,
	DNS_RCODE_NXRRSET = 8,
	DNS_RCODE_NOTAUTH = 9,
	DNS_RCODE_NOTZONE = 10,
	DNS_RCODE_BADVERS = 16,
	DNS_RCODE_BADCOOKIE = 23
};

/** opcodes */
enum dns_opcode {
	DNS_OPCODE_QUERY = 0,
	DNS_OPCODE_IQUERY = 1,
	DNS_OPCODE_STATUS = 2,
	DNS_OPCODE_NOTIFY = 4,
	DNS_OPCODE_UPDATE = 5
};

/* bits in the 16-bit header flags word */
/** query (0) or response (1) */
#define DNS_FLAG_QR		0x8000
/** opcode mask; shift right by DNS_OPCODE_SHIFT */
#define DNS_FLAG_OPCODE_MASK	0x7800
/** opcode shift */
#define DNS_OPCODE_SHIFT	11
/** authoritative answer */
#define DNS_FLAG_AA		0x0400
/** truncated */
#define DNS_FLAG_TC		0x0200
/** recursion desired */
#define DNS_FLAG_RD		0x0100
/** recursion available */
#define DNS_FLAG_RA		0x0080
/** reserved, must be zero */
#define DNS_FLAG_Z		0x0040
/** authentic data */
#define DNS_FLAG_AD		0x0020
/** checking disabled */
#define DNS_FLAG_CD		0x0010
/** low four bits of the rcode */
#define DNS_FLAG_RCODE_MASK	0x000f

/** the DO bit in the 16-bit EDNS flags (low half of the OPT TTL) */
#define DNS_EDNS_DO		0x8000

/** EDNS option codes */
enum dns_edns_opt {
	DNS_EDNS_LLQ = 1,
	DNS_EDNS_UL = 2,
	DNS_EDNS_NSID = 3,
	DNS_EDNS_DAU = 5,
	DNS_EDNS_DHU = 6,
	DNS_EDNS_N3U = 7,
	DNS_EDNS_CLIENT_SUBNET = 8,
	DNS_EDNS_EXPIRE = 9,
	DNS_EDNS_COOKIE = 10,
	DNS_EDNS_KEEPALIVE = 11,
	DNS_EDNS_PADDING = 12,
	DNS_EDNS_CHAIN = 13,
	DNS_EDNS_KEYTAG = 14,
	DNS_EDNS_EDE = 15
};

/** Extended DNS Error info-codes (RFC 8914 section 4) */
enum dns_ede {
	DNS_EDE_OTHER = 0,
	DNS_EDE_UNSUPPORTED_DNSKEY_ALG = 1,
	DNS_EDE_UNSUPPORTED_DS_DIGEST = 2,
	DNS_EDE_STALE_ANSWER = 3,
	DNS_EDE_FORGED_ANSWER = 4,
	DNS_EDE_DNSSEC_INDETERMINATE = 5,
	DNS_EDE_DNSSEC_BOGUS = 6,
	DNS_EDE_SIGNATURE_EXPIRED = 7,
	DNS_EDE_SIGNATURE_NOT_YET_VALID = 8,
	DNS_EDE_DNSKEY_MISSING = 9,
	DNS_EDE_RRSIGS_MISSING = 10,
	DNS_EDE_NO_ZONE_KEY_BIT = 11,
	DNS_EDE_NSEC_MISSING = 12,
	DNS_EDE_CACHED_ERROR = 13,
	DNS_EDE_NOT_READY = 14,
	DNS_EDE_BLOCKED = 15,
	DNS_EDE_CENSORED = 16,
	DNS_EDE_FILTERED = 17,
	DNS_EDE_PROHIBITED = 18,
	DNS_EDE_STALE_NXDOMAIN = 19,
	DNS_EDE_NOT_AUTHORITATIVE = 20,
	DNS_EDE_NOT_SUPPORTED = 21,
	DNS_EDE_NO_REACHABLE_AUTHORITY = 22,
	DNS_EDE_NETWORK_ERROR = 23,
	DNS_EDE_INVALID_DATA = 24
};

/** why a parse failed; 0 is success */
enum dns_parse_err {
	DNS_OK = 0,
	/** the buffer ends inside a header, name, RR or option */
	DNS_ERR_TRUNCATED,
	/** a label type other than 0x00 (length) or 0xc0 (pointer) */
	DNS_ERR_BAD_LABEL,
	/** a label longer than 63 octets (presentation format) */
	DNS_ERR_LABEL_TOO_LONG,
	/** a name longer than 255 octets in wire format */
	DNS_ERR_NAME_TOO_LONG,
	/** a compression pointer that points into the name being read */
	DNS_ERR_POINTER_LOOP,
	/** a compression pointer that points forward or past the message */
	DNS_ERR_BAD_POINTER,
	/** too many compression pointers in one name */
	DNS_ERR_TOO_MANY_POINTERS,
	/** compression pointer where none is allowed (uncompressed input) */
	DNS_ERR_POINTER_NOT_ALLOWED,
	/** a malformed OPT record or option list */
	DNS_ERR_BAD_OPT,
	/** OPT outside the additional section */
	DNS_ERR_OPT_NOT_ADDITIONAL,
	/** more than one OPT record */
	DNS_ERR_OPT_TWICE,
	/** QR is set: a response where a query was expected */
	DNS_ERR_NOT_QUERY,
	/** QDCOUNT is not 1 where exactly one question is needed */
	DNS_ERR_QDCOUNT,
	/** RDATA does not match its type (a name in it overruns RDLENGTH...) */
	DNS_ERR_BAD_RDATA,
	/** more RRs than the caller's limit or than the packet can hold */
	DNS_ERR_TOO_MANY_RRS,
	/** message longer than 65535 octets */
	DNS_ERR_MSG_TOO_LONG,
	/** bytes after the last record */
	DNS_ERR_TRAILING,
	/** presentation-format syntax error (bad escape, empty label) */
	DNS_ERR_SYNTAX,
	/** the output buffer is too small */
	DNS_ERR_NOSPACE,
	/** out of memory (region) */
	DNS_ERR_NOMEM,
	/** number of codes, keep last */
	DNS_ERR_MAX
};

/**
 * Describe a parse error.
 * @param err: a dns_parse_err value.
 * @return a static string, never NULL.
 */
const char *dns_parse_err_str(int err);

/**
 * Mnemonic of an RR type ("A", "TYPE65280").
 * @param type: the type.
 * @param buf: where to write it when the type has no mnemonic; at least
 *	16 bytes.
 * @param len: size of buf.
 * @return buf, or a static string.
 */
const char *dns_type_str(uint16_t type, char *buf, size_t len);

/**
 * Look up an RR type mnemonic, case-insensitive; "TYPEnnn" accepted.
 * @return the type, or -1 when unknown.
 */
int dns_type_from_str(const char *s);

/** @return a static mnemonic for a class ("IN", "CH", ...) or NULL */
const char *dns_class_str(uint16_t rrclass);

/** @return a static mnemonic for an rcode ("SERVFAIL", ...) or NULL */
const char *dns_rcode_str(int rcode);

/** @return a static description of an EDE info-code ("Stale Answer"),
 *	or NULL for unassigned codes. */
const char *dns_ede_str(int code);

/** Read a big-endian 16-bit value. */
static inline uint16_t
dns_read_u16(const uint8_t *p)
{
	return (uint16_t)(((uint16_t)p[0] << 8) | p[1]);
}

/** Read a big-endian 32-bit value. */
static inline uint32_t
dns_read_u32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) |
		((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

/** Write a big-endian 16-bit value. */
static inline void
dns_write_u16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** Write a big-endian 32-bit value. */
static inline void
dns_write_u32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* Header accessors. The packet must hold at least DNS_HDR_SIZE bytes. */

/** @return the message ID */
static inline uint16_t dns_hdr_id(const uint8_t *p) { return dns_read_u16(p); }
/** @return the 16-bit flags word (QR..CD, low rcode bits) */
static inline uint16_t dns_hdr_flags(const uint8_t *p) { return dns_read_u16(p + 2); }
/** @return QDCOUNT */
static inline uint16_t dns_hdr_qdcount(const uint8_t *p) { return dns_read_u16(p + 4); }
/** @return ANCOUNT */
static inline uint16_t dns_hdr_ancount(const uint8_t *p) { return dns_read_u16(p + 6); }
/** @return NSCOUNT */
static inline uint16_t dns_hdr_nscount(const uint8_t *p) { return dns_read_u16(p + 8); }
/** @return ARCOUNT */
static inline uint16_t dns_hdr_arcount(const uint8_t *p) { return dns_read_u16(p + 10); }
/** @return the opcode from the header */
static inline int dns_hdr_opcode(const uint8_t *p)
{ return (dns_hdr_flags(p) & DNS_FLAG_OPCODE_MASK) >> DNS_OPCODE_SHIFT; }
/** @return the low four rcode bits from the header */
static inline int dns_hdr_rcode(const uint8_t *p)
{ return dns_hdr_flags(p) & DNS_FLAG_RCODE_MASK; }
/** Set the message ID. */
static inline void dns_hdr_set_id(uint8_t *p, uint16_t v) { dns_write_u16(p, v); }
/** Set the whole flags word. */
static inline void dns_hdr_set_flags(uint8_t *p, uint16_t v) { dns_write_u16(p + 2, v); }
/** Set QDCOUNT. */
static inline void dns_hdr_set_qdcount(uint8_t *p, uint16_t v) { dns_write_u16(p + 4, v); }
/** Set ANCOUNT. */
static inline void dns_hdr_set_ancount(uint8_t *p, uint16_t v) { dns_write_u16(p + 6, v); }
/** Set NSCOUNT. */
static inline void dns_hdr_set_nscount(uint8_t *p, uint16_t v) { dns_write_u16(p + 8, v); }
/** Set ARCOUNT. */
static inline void dns_hdr_set_arcount(uint8_t *p, uint16_t v) { dns_write_u16(p + 10, v); }
/** Set the low four rcode bits, keeping the other flags. */
static inline void dns_hdr_set_rcode(uint8_t *p, int rcode)
{ dns_hdr_set_flags(p, (uint16_t)((dns_hdr_flags(p) & ~DNS_FLAG_RCODE_MASK) | (rcode & 0xf))); }

#endif /* DNS_DNS_H */
