/*
 * dns/cookie.h - DNS Cookies (RFC 7873) with interoperable server cookies
 * (RFC 9018), and SipHash-2-4 which they are made with.
 *
 * A client sends an 8-byte client cookie in the COOKIE EDNS option; a
 * server answers with that client cookie followed by a 16-byte server
 * cookie:
 *
 *	version (1, one byte) | reserved (three zero bytes) |
 *	timestamp (32-bit seconds, serial arithmetic) |
 *	hash (8 bytes) = SipHash-2-4(key = server secret,
 *	    client cookie | version | reserved | timestamp | client address)
 *
 * Because the hash covers only what is in the cookie and the client's
 * address, any server that knows the secret can check a cookie made by
 * another (an anycast set shares the secret). A server cookie is valid
 * when its hash checks with one of the server's secrets and its
 * timestamp is at most an hour old and at most five minutes ahead of the
 * server's clock; one older than half an hour is replaced by a fresh one
 * in the answer (RFC 9018 section 4.3).
 *
 * The functions here work on caller memory: no allocation, no lock, no
 * clock (the caller passes the time), so that the cached-answer path can
 * use them.
 */
#ifndef DNS_COOKIE_H
#define DNS_COOKIE_H

#include <stdint.h>
#include <stddef.h>

/** length of a server secret (SipHash-2-4 key) */
#define COOKIE_SECRET_LEN 16
/** length of a client cookie */
#define COOKIE_CLIENT_LEN 8
/** length of an RFC 9018 server cookie */
#define COOKIE_SERVER_LEN 16
/** length of the COOKIE option data a server answers with */
#define COOKIE_FULL_LEN (COOKIE_CLIENT_LEN + COOKIE_SERVER_LEN)
/** the server cookie version of RFC 9018 */
#define COOKIE_VERSION 1
/** a server cookie older than this (seconds) is no longer valid */
#define COOKIE_MAX_AGE 3600
/** a server cookie older than this (seconds) is replaced in the answer */
#define COOKIE_RENEW_AGE 1800
/** a server cookie this far (seconds) in the future is not valid */
#define COOKIE_MAX_FUTURE 300

/**
 * SipHash-2-4 of a message (the reference algorithm of Aumasson and
 * Bernstein).
 * @param key: 16 bytes.
 * @param in: the message.
 * @param len: its length.
 * @return the 64-bit hash; its wire form is the little-endian bytes
 *	(cookie_siphash_bytes).
 */
uint64_t cookie_siphash(const uint8_t key[16], const uint8_t *in,
	size_t len);

/** Write a SipHash value as its 8 little-endian bytes. */
void cookie_siphash_bytes(uint64_t h, uint8_t out[8]);

/** what a COOKIE option of a query is */
enum cookie_status {
	/** malformed: a length other than 8 or 16..40 (answer FORMERR) */
	COOKIE_MALFORMED = -1,
	/** a client cookie only (8 bytes) */
	COOKIE_CLIENT_ONLY = 0,
	/** a server cookie that is not ours, not version 1, or not 16
	 * bytes (its hash does not check) */
	COOKIE_INVALID,
	/** a server cookie more than COOKIE_MAX_AGE old */
	COOKIE_EXPIRED,
	/** a server cookie more than COOKIE_MAX_FUTURE ahead */
	COOKIE_FUTURE,
	/** valid, and recent enough to be echoed */
	COOKIE_VALID,
	/** valid, but older than COOKIE_RENEW_AGE: answer a fresh one */
	COOKIE_VALID_RENEW
};

/** @return 1 when the status is a validated server cookie */
#define COOKIE_IS_VALID(s) ((s) == COOKIE_VALID || (s) == COOKIE_VALID_RENEW)

/**
 * Make the server cookie for a client (RFC 9018).
 * @param secret: the server secret (COOKIE_SECRET_LEN bytes).
 * @param client_cookie: the client's 8 bytes.
 * @param addr: the client address bytes (4 or 16).
 * @param addrlen: 4 or 16.
 * @param now: the time, seconds (its low 32 bits are the timestamp).
 * @param out: COOKIE_FULL_LEN bytes: client cookie, then server cookie.
 */
void cookie_make(const uint8_t *secret, const uint8_t *client_cookie,
	const uint8_t *addr, size_t addrlen, uint32_t now, uint8_t *out);

/**
 * Check the COOKIE option of a query against a set of secrets.
 * @param opt: the option data.
 * @param len: its length.
 * @param secrets: n secrets of COOKIE_SECRET_LEN bytes each, one after
 *	the other (the active one first; any of them validates).
 * @param n: the number of secrets.
 * @param addr: the client address bytes (4 or 16).
 * @param addrlen: 4 or 16.
 * @param now: the time, seconds.
 * @return the status (enum cookie_status).
 */
enum cookie_status cookie_check(const uint8_t *opt, size_t len,
	const uint8_t *secrets, size_t n, const uint8_t *addr, size_t addrlen,
	uint32_t now);

/**
 * Parse a 128-bit secret written as 32 hex digits.
 * @param s: the text (surrounding spaces are not allowed).
 * @param out: COOKIE_SECRET_LEN bytes.
 * @return 0, or -1 when it is not 32 hex digits.
 */
int cookie_secret_parse(const char *s, uint8_t *out);

/**
 * Write a secret as 32 lower-case hex digits and a NUL.
 * @param sec: COOKIE_SECRET_LEN bytes.
 * @param out: at least 33 bytes.
 */
void cookie_secret_hex(const uint8_t *sec, char *out);

#endif /* DNS_COOKIE_H */
