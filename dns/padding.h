/*
 * dns/padding.h - EDNS(0) Padding (RFC 7830) with the block-length policy
 * of RFC 8467, for messages sent over encrypted transports.
 *
 * Padding hides the length of a query or answer inside TLS: the message
 * grows to the next multiple of a block size (128 for queries, 468 for
 * answers, RFC 8467 section 4.1) by a Padding option (code 12) of zero
 * bytes appended to its OPT record. The functions work on a complete wire
 * message in place and allocate nothing; a message they cannot pad
 * (no OPT record as the last record, already padded, no room) is left as
 * it is, which is always a valid outcome (padding is optional).
 */
#ifndef DNS_PADDING_H
#define DNS_PADDING_H

#include <stddef.h>
#include <stdint.h>

/** the EDNS option code of Padding (RFC 7830) */
#define DNS_EDNS_PADDING 12
/** RFC 8467's recommended block size for queries */
#define DNS_PAD_QUERY_BLOCK 128
/** RFC 8467's recommended block size for answers */
#define DNS_PAD_RESPONSE_BLOCK 468

/**
 * Find the OPT record of a message when it is the last record.
 * @param msg: the message.
 * @param len: its length.
 * @param opt_rdlen_at: set to the offset of the OPT record's RDLENGTH.
 * @return 1 if the last record of the message is an OPT record with the
 *	root owner, 0 otherwise (no OPT, OPT not last, malformed).
 */
int dns_opt_last(const uint8_t *msg, size_t len, size_t *opt_rdlen_at);

/**
 * Does the message's OPT record (the last record) hold a Padding option?
 * @return 1 or 0.
 */
int dns_has_padding(const uint8_t *msg, size_t len);

/**
 * Pad a message to a multiple of block bytes with a Padding option added
 * to its OPT record (which must be the last record).
 * @param msg: the message, changed in place.
 * @param len: its length.
 * @param cap: the bytes available at msg.
 * @param block: the block size (>= 2); 0 or 1 for no padding.
 * @return the new length, or len when the message is left as it is (no
 *	OPT last, already padded, the padded length over cap or 65535).
 */
size_t dns_pad(uint8_t *msg, size_t len, size_t cap, size_t block);

/** the EDNS option code of edns-tcp-keepalive (RFC 7828) */
#define DNS_EDNS_KEEPALIVE 11

/** @return 1 if the message's OPT record (the last record) holds an
 * option with this code, else 0 */
int dns_has_edns_option(const uint8_t *msg, size_t len, uint16_t code);

/**
 * Append an option to a message's OPT record (the last record), e.g. the
 * edns-tcp-keepalive TIMEOUT of an answer over TCP (RFC 7828). Add it
 * before padding (dns_pad), which must stay last in size.
 * @return the new length, or len when the message is left as it is (no
 *	OPT last, the option already there, no room).
 */
size_t dns_add_edns_option(uint8_t *msg, size_t len, size_t cap,
	uint16_t code, const uint8_t *data, uint16_t dlen);

#endif /* DNS_PADDING_H */
