/*
 * dns/msgencode.h - build DNS messages in a caller buffer.
 *
 * A struct dns_builder writes a message front to back into memory the
 * caller owns: dns_build_init(), dns_build_header(), dns_build_question(),
 * then RRs or whole RRsets section by section (answer, authority,
 * additional: sections may not go backwards), dns_build_opt() last, and
 * dns_build_finish() which writes the counts and returns the length.
 *
 * Name compression: owner names, and the names inside NS, CNAME, PTR, MX
 * and SOA RDATA (plus the obsolete MD MF MB MG MR MINFO), are compressed
 * against the names already written. SRV targets and DNAME targets are
 * written uncompressed because RFC 2782 and RFC 6672 forbid compressing
 * them (receivers must still accept it, and dns/msgparse does). The
 * compression table remembers DNS_COMPRESS_MAX name positions.
 *
 * Truncation (RFC 2181 section 9): the builder has a size limit (the
 * client's UDP size) below its capacity. dns_build_rrset() adds a whole
 * RRset or nothing; when the set does not fit in the answer or authority
 * section, the builder rolls back to before the set, sets TC, and refuses
 * every later RR (so no partial sections follow). A set that does not fit
 * in the additional section is dropped without TC. Space for the OPT record
 * can be kept free with dns_build_reserve() so it still fits after
 * truncation.
 *
 * RDATA given to the builder is uncompressed wire format.
 */
#ifndef DNS_MSGENCODE_H
#define DNS_MSGENCODE_H

#include <stdint.h>
#include <stddef.h>
#include "dns/dns.h"

struct fast_query;

/** name positions remembered for compression */
#define DNS_COMPRESS_MAX 64

/** builder state; all fields private, use the functions */
struct dns_builder {
	/** output buffer (not owned) */
	uint8_t *buf;
	/** its capacity */
	size_t cap;
	/** size limit for RRs (<= cap) */
	size_t limit;
	/** bytes kept free below the limit for later (OPT) */
	size_t reserve;
	/** write position */
	size_t pos;
	/** section currently written: -1 question, 0..2 RR sections */
	int section;
	/** counts: question, answer, authority, additional */
	uint16_t count[4];
	/** header flags as given (TC added on truncation) */
	uint16_t flags;
	/** 1 once an RRset was dropped for size in answer/authority */
	int truncated;
	/** 1 once the OPT record was written */
	int have_opt;
	/** offsets of names written (each a label start) */
	uint16_t ctab[DNS_COMPRESS_MAX];
	/** entries used in ctab */
	int nctab;
};

/** a saved builder position, for rollback */
struct dns_build_mark {
	/** write position */
	size_t pos;
	/** counts */
	uint16_t count[4];
	/** compression table entries */
	int nctab;
	/** section */
	int section;
};

/** one EDNS option to write */
struct edns_opt_out {
	/** option code */
	uint16_t code;
	/** option length */
	uint16_t len;
	/** option data (len bytes) */
	const uint8_t *data;
};

/**
 * Start a message.
 * @param b: the builder.
 * @param buf: output buffer.
 * @param cap: its size (at least DNS_HDR_SIZE).
 * @param limit: the size the message must fit in (UDP size), 0 for cap;
 *	taken as min(limit, cap).
 */
void dns_build_init(struct dns_builder *b, uint8_t *buf, size_t cap,
	size_t limit);

/**
 * Write the header with zero counts.
 * @param id: message ID.
 * @param flags: flags word (see DNS_FLAG_*), rcode low bits included.
 * @return 0 or DNS_ERR_NOSPACE.
 */
int dns_build_header(struct dns_builder *b, uint16_t id, uint16_t flags);

/**
 * Add a question. Must come before any RR.
 * @param name: uncompressed name (written as given, case kept).
 * @return 0, DNS_ERR_NOSPACE, DNS_ERR_BAD_RDATA (invalid name), or
 *	DNS_ERR_SYNTAX (before the header or after an RR).
 */
int dns_build_question(struct dns_builder *b, const uint8_t *name,
	uint16_t qtype, uint16_t qclass);

/**
 * Copy a question verbatim from a received packet (to echo its letter
 * case). The bytes [qname_off, question_end) are copied.
 * @return 0, DNS_ERR_NOSPACE, or DNS_ERR_SYNTAX (misuse).
 */
int dns_build_question_raw(struct dns_builder *b, const uint8_t *pkt,
	size_t qname_off, size_t question_end);

/**
 * Add one RR. It must fit in the limit minus the reserve.
 * @param section: DNS_SEC_ANSWER, DNS_SEC_AUTHORITY or DNS_SEC_ADDITIONAL;
 *	never lower than the section of the previous RR.
 * @param owner: uncompressed owner name.
 * @param rdata: uncompressed RDATA.
 * @param rdlen: its length.
 * @return 0, DNS_ERR_NOSPACE (nothing written), DNS_ERR_BAD_RDATA
 *	(a name in the RDATA is invalid; nothing written), or DNS_ERR_SYNTAX
 *	(misuse: section out of order, after the OPT, or before the header).
 */
int dns_build_rr(struct dns_builder *b, int section, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen);

/**
 * Add a whole RRset or nothing (see truncation in the file comment).
 * @param n: number of RRs.
 * @param rdata: array of n RDATA pointers.
 * @param rdlen: array of n lengths.
 * @return 0 when written; DNS_ERR_NOSPACE when dropped (TC is set when
 *	section is answer or authority); DNS_ERR_BAD_RDATA.
 */
int dns_build_rrset(struct dns_builder *b, int section, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, size_t n,
	const uint8_t *const *rdata, const uint16_t *rdlen);

/** @return the write position: the message length so far (where the
 * next RR starts) */
size_t dns_build_pos(const struct dns_builder *b);

/** Save the builder position. */
void dns_build_mark(const struct dns_builder *b, struct dns_build_mark *m);

/** Return to a saved position, forgetting what was written after it. */
void dns_build_rollback(struct dns_builder *b,
	const struct dns_build_mark *m);

/** Set TC and refuse further RRs (the caller's own truncation). */
void dns_build_truncate(struct dns_builder *b);

/** @return 1 when the message has been truncated */
int dns_build_is_truncated(const struct dns_builder *b);

/** Keep n bytes free below the limit (for OPT); 0 to release. */
void dns_build_reserve(struct dns_builder *b, size_t n);

/** @return the size of an OPT RR with these options */
size_t dns_opt_size(const struct edns_opt_out *opts, size_t nopts);

/**
 * Add the OPT record (once, last). It uses the reserve, not the RR limit.
 * @param udp_size: our UDP payload size.
 * @param ext_rcode: the full rcode; bits 4..11 go in the OPT, the low
 *	four stay in the header (which is updated).
 * @param do_bit: 1 to set DO.
 * @param opts: options to write, may be NULL when nopts is 0.
 * @return 0 or DNS_ERR_NOSPACE.
 */
int dns_build_opt(struct dns_builder *b, uint16_t udp_size, int ext_rcode,
	int do_bit, const struct edns_opt_out *opts, size_t nopts);

/**
 * Fill an EDE option (RFC 8914).
 * @param o: the option to fill.
 * @param buf: storage for its data, at least 2 + strlen(text) bytes.
 * @param buflen: size of buf (the text is cut to fit).
 * @param code: the info-code.
 * @param text: UTF-8 extra text, or NULL.
 */
void edns_opt_ede(struct edns_opt_out *o, uint8_t *buf, size_t buflen,
	uint16_t code, const char *text);

/**
 * Write the counts and flags into the header.
 * @return the message length.
 */
size_t dns_build_finish(struct dns_builder *b);

/** @return current length of the message */
static inline size_t dns_build_len(const struct dns_builder *b)
{ return b->pos; }

/**
 * Build an error reply for a query: ID, opcode, RD and CD echoed, QR set,
 * RA set when ra is 1, the question copied with the client's letter case
 * (when the query had one that parsed), and an OPT record when the query
 * had one (UDP size udp_size, DO echoed) carrying the EDE when ede >= 0.
 * When the query's EDNS version is not 0, the reply is BADVERS instead.
 * @param q: the query packet.
 * @param qlen: its length (at least DNS_HDR_SIZE).
 * @param fq: the result of dns_query_parse_fast() on it (even a failed
 *	one: id/flags/qname_off/question_end/edns are used as far as valid).
 * @param rcode: DNS_RCODE_SERVFAIL, REFUSED, FORMERR, NOTIMPL, ...
 * @param ra: 1 to set RA.
 * @param ede: EDE info-code, or -1 for none.
 * @param ede_text: EDE extra text or NULL.
 * @param udp_size: UDP size for our OPT.
 * @param out: output buffer.
 * @param outlen: its size.
 * @return length of the reply, or -1 when out is too small.
 */
int dns_build_error_reply(const uint8_t *q, size_t qlen,
	const struct fast_query *fq, int rcode, int ra, int ede,
	const char *ede_text, uint16_t udp_size, uint8_t *out, size_t outlen);

#endif /* DNS_MSGENCODE_H */
