/*
 * cachedb/cachedb_record.h - what petrel keeps in the second-level cache
 * (Redis): the key of a question and the value of an answer, with the
 * expiry arithmetic that decides what a stored answer may still be
 * served as.
 *
 * These functions are pure (no I/O, no clock of their own: the caller
 * passes "now"), so that tests/check_cachedb.c checks them with a fake
 * clock.
 *
 * Key: the SHA-256 digest of the lower-cased question name in wire
 * format, the type and the class (two bytes each, network order) and the
 * secret-seed string, written as 64 upper-case hexadecimal digits. The
 * layout follows Unbound's cachedb, so that the fleet's key space is
 * laid out the same way; a different secret-seed gives a disjoint key
 * space (say, for two fleets sharing one Redis).
 *
 * Value: a DNS message in wire format (header with QR and the rcode, the
 * question, the answer, authority and additional records, no OPT),
 * followed by two 64-bit big-endian numbers: the time it was stored and
 * the time it expires, both in seconds since the epoch. The TTLs in the
 * message are those left at the moment it was stored, and the expiry is
 * the stored time plus the smallest of them. Unbound's cachedb appends
 * the same two numbers after its messages.
 *
 * Expiry by construction: an answer read back at time now gets every TTL
 * lowered by (now - stored) and never above (expiry - now), so no TTL
 * reaches past the absolute expiry whatever the stored TTLs say (a
 * record with a clock in the future, or a corrupted TTL, cannot stretch
 * it). At or after the expiry the answer is expired: it is served only
 * as serve-expired allows, by the module, with serve-expired's TTL.
 */
#ifndef CACHEDB_CACHEDB_RECORD_H
#define CACHEDB_CACHEDB_RECORD_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct mesh_answer;
struct region;

/** length of a key, without its terminating zero */
#define CACHEDB_KEY_LEN 64

/** bytes after the message: stored time and expiry time */
#define CACHEDB_TRAILER_LEN 16

/**
 * Compute the key of a question.
 * @param qname: the question name (wire; lower-cased here).
 * @param qtype: type; qclass: class.
 * @param seed: secret-seed ("" or NULL: none).
 * @param key: out, CACHEDB_KEY_LEN + 1 bytes (zero-terminated).
 * @return 0, or -1 on a bad name or a digest failure.
 */
int cachedb_key(const uint8_t *qname, uint16_t qtype, uint16_t qclass,
	const char *seed, char *key);

/**
 * Encode an answer for storage.
 * @param qname: the question (wire), qtype, qclass.
 * @param ans: the answer (rcode NOERROR or NXDOMAIN).
 * @param now: the time of storage (seconds).
 * @param buf: output; buflen its size (64 KiB + trailer is enough).
 * @param len: out, the value's length.
 * @param expiry: out, the absolute expiry (now + smallest TTL).
 * @return 0; -1 when the answer cannot be stored (not NOERROR/NXDOMAIN,
 *	does not fit, bad record).
 */
int cachedb_encode(const uint8_t *qname, uint16_t qtype, uint16_t qclass,
	const struct mesh_answer *ans, time_t now, uint8_t *buf,
	size_t buflen, size_t *len, time_t *expiry);

/** what cachedb_decode found */
enum cachedb_decode_result {
	/** fresh: TTLs lowered by the time elapsed */
	CACHEDB_FRESH = 0,
	/** expired (now >= expiry); TTLs are 0, see cachedb_stale_ok() */
	CACHEDB_EXPIRED,
	/** not a valid value, or not for this question */
	CACHEDB_INVALID
};

/**
 * Decode a stored value into an answer (records copied into region).
 * @param val: the value; vlen its length.
 * @param qname: the question it must answer (wire), qtype, qclass.
 * @param now: the current time (seconds).
 * @param region: where the answer and its records go.
 * @param out: out, the answer (rcode set, ede -1, sec unchecked).
 * @param expiry: out, the stored absolute expiry (may be NULL).
 * @return the result; *out is set for FRESH and EXPIRED.
 */
enum cachedb_decode_result cachedb_decode(const uint8_t *val, size_t vlen,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, time_t now,
	struct region *region, struct mesh_answer **out, time_t *expiry);

/**
 * May an expired answer still be served (serve-expired)?
 * @param expiry: its absolute expiry.
 * @param now: the current time.
 * @param serve_expired: the serve-expired setting.
 * @param serve_expired_ttl: serve-expired-ttl (0: no limit).
 * @return 1 when it may.
 */
int cachedb_stale_ok(time_t expiry, time_t now, int serve_expired,
	int serve_expired_ttl);

/**
 * Set every TTL of an answer to ttl (serve-expired-reply-ttl for an
 * expired answer served) and mark it stale (EDE Stale Answer).
 */
void cachedb_mark_stale(struct mesh_answer *ans, uint32_t ttl);

/**
 * The Redis expiry (seconds) to give a stored value: the time until its
 * expiry, plus serve-expired-ttl when serve-expired is on (so that the
 * stale copy stays available that long), at least 1.
 */
long long cachedb_redis_ttl(time_t expiry, time_t now, int serve_expired,
	int serve_expired_ttl);

#endif /* CACHEDB_CACHEDB_RECORD_H */
