/*
 * validator/val_nsec3.h - denial of existence with NSEC3 (RFC 5155,
 * RFC 9276).
 *
 * As with val_nsec.h, the records are given already validated (their
 * RRSIGs checked), as struct val_nrec (owner and uncompressed RDATA), and
 * the functions prove NXDOMAIN, NODATA, a wildcard answer, or what a
 * referral says about DS, returning an enum val_proof.
 *
 * Hashing: SHA-1 (hash algorithm 1), IH(salt, x, 0) = H(x || salt),
 * IH(salt, x, k) = H(IH(salt, x, k-1) || salt), x the lower-cased wire
 * name; the owner's first label is the base32hex (RFC 4648, no padding)
 * of the hash. Records with another hash algorithm or with flags other
 * than 0 and 1 are ignored (RFC 5155 8.1, 8.2), and so are the records of
 * a zone whose hash algorithm, iterations or salt differ from those of
 * the zone's first usable record in the list: a zone has one chain (RFC
 * 5155 7.2), and a proof made of several (or of records made up to
 * collide) proves nothing (Unbound's val_nx_nsec3_params and
 * val_nx_nsec3_collision want SERVFAIL for such proofs).
 *
 * The closest encloser proof (RFC 5155 8.3): the longest ancestor of
 * qname, in the records' zone, that has a matching NSEC3, with the next
 * closer name (one label longer, toward qname) covered by an NSEC3.
 *
 * Insecure cases: the next closer name covered by an opt-out NSEC3 for a
 * DS or NXDOMAIN question (RFC 5155 6, 9.2: the delegation may be
 * unsigned), and any relevant NSEC3 with more iterations than the limit
 * (RFC 9276 3.2; Unbound 1.19's val-nsec3-keysize-iterations default is
 * 150 for every key size; the limit is a parameter here).
 *
 * Hashes are computed per call into a small cache on the stack: nothing
 * is allocated. Each proof takes a budget (struct val_budget, the query's;
 * NULL: none): a name hashed with k iterations costs k + 1 of its
 * hash_left; when too little is left the hash is not computed, the proof
 * fails (NONE) and the budget is marked spent, so the caller can tell
 * "too much work" (bogus, EDE 6) from a missing proof.
 */
#ifndef VALIDATOR_VAL_NSEC3_H
#define VALIDATOR_VAL_NSEC3_H

#include <stddef.h>
#include <stdint.h>

struct val_nrec;
struct val_budget;

/** SHA-1 hash length */
#define VAL_NSEC3_HASH_LEN 20
/** default iteration limit above which NSEC3 proofs are insecure */
#define VAL_NSEC3_MAX_ITER_DEFAULT 150
/** NSEC3 flags: opt-out */
#define VAL_NSEC3_OPTOUT 0x01

/** an NSEC3 record's fields */
struct val_nsec3_info {
	/** hash algorithm */
	uint8_t alg;
	/** flags */
	uint8_t flags;
	/** iterations */
	uint16_t iterations;
	/** salt (points into the RDATA) */
	const uint8_t *salt;
	/** salt length */
	uint8_t saltlen;
	/** next hashed owner, binary (points into the RDATA) */
	const uint8_t *next;
	/** its length */
	uint8_t nextlen;
	/** the type bitmap (points into the RDATA) */
	const uint8_t *bitmap;
	/** its length */
	size_t bmlen;
	/** the owner's hash, decoded from the first label */
	uint8_t owner_hash[64];
	/** its length */
	size_t owner_hashlen;
	/** the zone: the owner without its first label (points into it) */
	const uint8_t *zone;
};

/**
 * Parse an NSEC3 record.
 * @param r: the record.
 * @param info: filled in.
 * @return 0 usable; 1 well-formed but to be ignored (unknown hash
 *	algorithm or flags); -1 malformed (the owner label is no base32hex
 *	hash, lengths run past the RDATA, a bad bitmap).
 */
int val_nsec3_parse(const struct val_nrec *r, struct val_nsec3_info *info);

/**
 * Decode base32hex (RFC 4648 section 7, either case, no padding).
 * @param in: the text; inlen its length.
 * @param out: output; outmax its size.
 * @return the decoded length, or 0 on a bad character, trailing bits
 *	that are not zero, or an output that does not fit.
 */
size_t val_base32hex_decode(const uint8_t *in, size_t inlen, uint8_t *out,
	size_t outmax);

/**
 * Encode base32hex, lower case, no padding.
 * @return the text length, or 0 when out (outmax) is too small.
 */
size_t val_base32hex_encode(const uint8_t *in, size_t inlen, char *out,
	size_t outmax);

/**
 * The NSEC3 hash of a name.
 * @param name: wire name (any case; hashed lower-cased).
 * @param alg: hash algorithm (only 1 is known).
 * @param salt: salt; saltlen its length.
 * @param iterations: additional iterations.
 * @param out: VAL_NSEC3_HASH_LEN bytes.
 * @return 0, or -1 for an unknown algorithm or a crypto failure.
 */
int val_nsec3_hash(const uint8_t *name, uint8_t alg, const uint8_t *salt,
	size_t saltlen, unsigned iterations, uint8_t *out);

/**
 * Prove qname does not exist: closest encloser proof, and the wildcard at
 * the closest encloser covered.
 * @param recs: validated NSEC3 records; n how many.
 * @param qname: the name.
 * @param max_iter: the iteration limit.
 * @return SECURE; INSECURE (next closer covered by opt-out, the
 *	closest encloser an insecure delegation, or iterations over the
 *	limit); BOGUS (qname or the wildcard exists); NONE.
 */
int val_nsec3_prove_nxdomain(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, unsigned max_iter,
	struct val_budget *b);

/**
 * Prove qname has no qtype: a matching NSEC3 without qtype and CNAME
 * (INSECURE when it is an insecure delegation and qtype is not DS); a
 * wildcard NODATA (closest encloser proof and the wildcard's NSEC3
 * without qtype; INSECURE when the next closer is in an opt-out span).
 * INSECURE as well when qname lies below an insecure
 * delegation (the closest encloser's NSEC3 has NS without SOA and DS),
 * or when neither qname nor the wildcard match and the next closer is
 * covered by opt-out (RFC 5155 9.2; for DS, 8.6): qname may be in an
 * unsigned child left out of the chain, as Unbound judges it.
 * @return SECURE, INSECURE, BOGUS or NONE.
 */
int val_nsec3_prove_nodata(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, uint16_t qtype, unsigned max_iter,
	struct val_budget *b);

/**
 * Prove a wildcard answer: the next closer name of qname for a wildcard
 * whose parent has wc_labels labels is covered.
 * @return SECURE, INSECURE (iterations, or the covering record is
 *	opt-out: RFC 5155 9.2) or NONE.
 */
int val_nsec3_prove_wildcard(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, int wc_labels, unsigned max_iter,
	struct val_budget *b);

/**
 * What do the NSEC3s say about qname's DS (a referral)? A matching NSEC3
 * with NS, without DS and SOA: INSECURE (insecure delegation); without
 * NS: SECURE (no delegation); with DS, or SOA below the root: BOGUS. No
 * match: a closest encloser proof with an opt-out next closer: INSECURE.
 * @return SECURE, INSECURE, BOGUS or NONE.
 */
int val_nsec3_prove_no_ds(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, unsigned max_iter,
	struct val_budget *b);

#endif /* VALIDATOR_VAL_NSEC3_H */
