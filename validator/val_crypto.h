/*
 * validator/val_crypto.h - DNSSEC signatures, DS digests and key tags on
 * wire-format records.
 *
 * This is the cryptographic bottom of the validator: given an RRset, its
 * RRSIGs and a DNSKEY set, all as wire-format RDATA, it says whether a
 * signature over the RRset verifies, and if not, why. It reads no clock
 * (the caller passes `now`) and keeps no state; everything is a function
 * of its arguments, so the module on the mesh, the replay runner with its
 * fake clock and the tests all get the same answer.
 *
 * Records are given as struct val_rr: a pointer to the RDATA inside some
 * buffer (a packet, or a buffer holding only that RDATA) plus that
 * buffer's bounds. Names inside the RDATA may be compressed when the
 * buffer is the packet they came in (petrel's message parse accepts
 * compression in every RDATA name, see dns/msgparse.h); the canonical
 * form decompresses them. ldns is not used here.
 *
 * Canonical form (RFC 4034 6.2, 6.3, as amended by RFC 6840 5.1):
 *   - the owner name lower-cased; a wildcard-expanded owner is rebuilt
 *     from the RRSIG labels field as "*." + the rightmost `labels` labels;
 *   - names in the RDATA of NS, MD, MF, CNAME, SOA, MB, MG, MR, PTR,
 *     MINFO, MX, RP, AFSDB, RT, SIG, PX, NXT, NAPTR, KX, SRV, DNAME, A6 and
 *     RRSIG decompressed and lower-cased (not NSEC's next name: RFC 6840
 *     5.1; HINFO has no names);
 *   - the TTL replaced by the RRSIG's original TTL;
 *   - RRs sorted by their canonical RDATA as left-justified octet strings,
 *     exact duplicates removed.
 * The signed data is the RRSIG RDATA without the signature (signer name
 * lower-cased) followed by each canonical RR.
 *
 * Algorithms (OpenSSL 3 EVP): 5 and 7 RSA/SHA-1, 8 RSA/SHA-256, 10
 * RSA/SHA-512, 13 ECDSA P-256/SHA-256, 14 ECDSA P-384/SHA-384, 15
 * Ed25519, 16 Ed448. DS digests 1 SHA-1, 2 SHA-256, 4 SHA-384. Anything
 * else is reported as unsupported, never as bogus, so that a zone signed
 * only with unsupported algorithms can be treated as insecure (RFC 6840
 * 5.2).
 *
 * Validity window: as Unbound's val-sig-skew-min / val-sig-skew-max, the
 * inception and expiration (RFC 1982 serial arithmetic on 32 bits) are
 * widened by a skew of a tenth of the signature's lifetime, clamped to
 * [skew_min, skew_max].
 *
 * Bounded work (KeyTrap, CVE-2023-50387): RFC 4035 5.3.1 asks a validator
 * to try every DNSKEY whose owner, algorithm and key tag fit an RRSIG;
 * a zone with many keys sharing one tag and an RRset with many RRSIGs of
 * that tag would make that signatures x keys public-key operations. The
 * checks here deliberately stop sooner (as Unbound 1.19.1 and every
 * patched validator do): per RRSIG at most VAL_MAX_TAG_KEYS keys are
 * tried, per RRset (all its RRSIGs, every algorithm, every DS-matched key
 * of a DNSKEY set) at most VAL_MAX_RRSET_VERIFY verifications are made
 * and only its first VAL_MAX_RRSET_SIGS RRSIGs are looked at, a DS set
 * costs at most VAL_MAX_DS_DIGESTS digests,
 * and a query's whole validation draws on one struct val_budget (given
 * through the window). Past a limit the result is VAL_CRYPTO_BUDGET:
 * bogus (EDE 6), never insecure. An RSA key whose exponent is longer than
 * VAL_RSA_MAX_EXP bytes or whose modulus is longer than 4096 bits is
 * unusable (VAL_CRYPTO_MALFORMED, rejected before any crypto: a 2040-bit
 * exponent makes one verification cost a millisecond): a signature by it
 * never verifies, so data that only it signs is bogus. It is not treated
 * as an unsupported algorithm (which would make the data insecure): the
 * algorithm is supported, and an "insecure" verdict that RRSIGs naming
 * such a key could trigger would be a downgrade an attacker could aim
 * for; RFC 6840 5.2 keeps "insecure" for algorithms not implemented.
 */
#ifndef VALIDATOR_VAL_CRYPTO_H
#define VALIDATOR_VAL_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/** a record's RDATA, by offset into a buffer that holds it */
struct val_rr {
	/** the buffer: a whole packet (names may be compressed pointing
	 *  back into it) or just this RDATA */
	const uint8_t *buf;
	/** length of buf */
	size_t buflen;
	/** offset of the RDATA in buf */
	size_t off;
	/** RDATA length */
	uint16_t len;
};

/** an RRset: owner, type, class and its records */
struct val_rrset {
	/** owner, uncompressed wire name (any case) */
	const uint8_t *owner;
	/** RR type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** the records */
	const struct val_rr *rrs;
	/** number of records */
	size_t count;
};

/** why a verification failed; VAL_CRYPTO_OK is success */
enum val_crypto_result {
	/** the signature verifies */
	VAL_CRYPTO_OK = 0,
	/** algorithm (or DS digest type) not supported: not bogus */
	VAL_CRYPTO_UNSUPPORTED,
	/** the signature's expiration is past (with the skew) */
	VAL_CRYPTO_EXPIRED,
	/** the signature's inception is in the future (with the skew) */
	VAL_CRYPTO_NOT_YET_VALID,
	/** the cryptographic check failed */
	VAL_CRYPTO_BAD_SIG,
	/** a malformed record (RRSIG, DNSKEY, DS or the RRset's RDATA) */
	VAL_CRYPTO_MALFORMED,
	/** the RRSIG does not fit the RRset (type covered, class, labels
	 *  larger than the owner's, signer not an ancestor of the owner) */
	VAL_CRYPTO_MISMATCH,
	/** no DNSKEY matches the RRSIG (signer, algorithm, key tag, zone
	 *  key flag, protocol 3), or no RRSIG at all */
	VAL_CRYPTO_NO_KEY,
	/** the DNSKEY is revoked (RFC 5011) and may not sign */
	VAL_CRYPTO_REVOKED,
	/** out of memory or an OpenSSL failure that is not the data's */
	VAL_CRYPTO_INTERNAL,
	/** the work limit (per RRset, or the query's val_budget) was
	 * reached before a signature verified: bogus */
	VAL_CRYPTO_BUDGET,
	/** number of codes, keep last */
	VAL_CRYPTO_MAX
};

/** fixed part of RRSIG RDATA, before the signer name */
#define VAL_RRSIG_FIXED 18
/** DNSKEY flags: zone key */
#define VAL_DNSKEY_ZONE 0x0100
/** DNSKEY flags: revoked (RFC 5011) */
#define VAL_DNSKEY_REVOKE 0x0080
/** DNSKEY flags: secure entry point */
#define VAL_DNSKEY_SEP 0x0001
/** default val-sig-skew-min (Unbound's) */
#define VAL_SKEW_MIN_DEFAULT 3600
/** default val-sig-skew-max (Unbound's) */
#define VAL_SKEW_MAX_DEFAULT 86400

/** most keys tried for one RRSIG (keys sharing its key tag, owner and
 * algorithm); the rest are not tried */
#define VAL_MAX_TAG_KEYS 4
/** most signature verifications for one RRset (every RRSIG, key and
 * algorithm together, as Unbound's MAX_VALIDATE_RRSIGS) */
#define VAL_MAX_RRSET_VERIFY 8
/** most RRSIGs looked at for one RRset (the first ones; real RRsets
 * carry one to four): the checks before a verification are cheap, but
 * hundreds of RRSIGs times 32 keys, on every pass, are not */
#define VAL_MAX_RRSET_SIGS 16
/** most DS digests computed to match one DNSKEY set against a DS set
 * (DS records and keys of one key tag and algorithm: each pair costs a
 * digest of the key) */
#define VAL_MAX_DS_DIGESTS 16
/** longest RSA public exponent accepted, bytes (64 bits: OpenSSL's own
 * limit for moduli above 3072 bits; real keys use 3, 65537 or 2^32+1) */
#define VAL_RSA_MAX_EXP 8
/** default signature verifications for one query (its walk, its answer,
 * its restarts) */
#define VAL_BUDGET_VERIFY_DEFAULT 128
/** default NSEC3 hash work for one query, in SHA-1 computations (one
 * name hashed with k iterations costs k + 1) */
#define VAL_BUDGET_HASH_DEFAULT 8192

/**
 * The validation work a query may still do. One per query, counted down
 * by every check it makes (restarts included); a check that finds it
 * spent fails with VAL_CRYPTO_BUDGET (an NSEC3 proof: VAL_PROOF_NONE)
 * and sets spent, so the caller knows that asking again cannot help.
 */
struct val_budget {
	/** signature verifications (public-key operations) left */
	unsigned verify_left;
	/** NSEC3 hash work left, SHA-1 computations */
	unsigned hash_left;
	/** verifications made (statistics and tests) */
	unsigned verified;
	/** SHA-1 computations made for NSEC3 hashes */
	unsigned hashed;
	/** 1 once a check was refused for want of budget */
	int spent;
};

/** set a budget to the given limits, nothing used */
void val_budget_init(struct val_budget *b, unsigned verify, unsigned hash);

/** skew_min of a window that does not check signature dates at all
 * (val-override-date: -1, as Unbound: for test data with old dates) */
#define VAL_SKEW_NO_DATES 0xffffffffu

/** the validity window settings, and the budget the checks draw on */
struct val_window {
	/** now, seconds since the epoch (the caller's clock) */
	uint32_t now;
	/** val-sig-skew-min, seconds; VAL_SKEW_NO_DATES: dates unchecked */
	uint32_t skew_min;
	/** val-sig-skew-max, seconds */
	uint32_t skew_max;
	/** the query's budget; NULL: only the per-RRset limits */
	struct val_budget *budget;
};

/**
 * Take a reference on the per-thread verification cache (DNSKEY ->
 * OpenSSL key and verify context, digests fetched once); the validator's
 * init calls it before workers start. Without a reference verification
 * works uncached.
 */
void val_crypto_cache_ref(void);

/** Drop the reference; the last one frees every thread's cache (call
 * when no worker verifies). */
void val_crypto_cache_unref(void);

/** @return a static description of a val_crypto_result */
const char *val_crypto_result_str(int r);

/**
 * The Extended DNS Error (RFC 8914) that fits a failure.
 * @return the EDE code (DNS_EDE_*), or -1 for VAL_CRYPTO_OK.
 */
int val_crypto_result_ede(int r);

/** @return 1 when DNSKEY algorithm alg can be verified, else 0 */
int val_algo_supported(int alg);

/** Test only, for the replay runner (testbound's fake-dsa and fake-sha1
 * switches in Unbound's scenarios): with on, DSA signatures (algorithms 3
 * and 6, which petrel does not validate: RFC 8624) count as supported and
 * pass without a check, as in an Unbound built without DSA. Never set by
 * the daemon. @param on: 1 or 0. */
void val_crypto_fake_dsa(int on);

/** @return 1 when DS digest type t can be computed, else 0 */
int val_ds_digest_supported(int t);

/** @return the digest length of a supported DS digest type, else 0 */
size_t val_ds_digest_len(int t);

/**
 * Key tag of a DNSKEY (RFC 4034 appendix B; the algorithm 1 special case
 * included).
 * @param rdata: DNSKEY RDATA (flags, protocol, algorithm, key).
 * @param len: its length, at least 4.
 * @return the key tag, 0 for RDATA shorter than 4.
 */
uint16_t val_keytag(const uint8_t *rdata, size_t len);

/**
 * Compute a DS digest for a DNSKEY.
 * @param owner: the DNSKEY's owner (wire, any case; lower-cased here).
 * @param dnskey: DNSKEY RDATA.
 * @param keylen: its length.
 * @param digest_type: 1, 2 or 4.
 * @param out: at least 48 bytes.
 * @param outlen: the digest length written.
 * @return VAL_CRYPTO_OK, VAL_CRYPTO_UNSUPPORTED or VAL_CRYPTO_INTERNAL.
 */
int val_ds_digest(const uint8_t *owner, const uint8_t *dnskey,
	size_t keylen, int digest_type, uint8_t *out, size_t *outlen);

/**
 * Does a DS record match a DNSKEY (key tag, algorithm, digest)?
 * @param owner: the common owner name.
 * @param ds: DS RDATA; dslen its length.
 * @param dnskey: DNSKEY RDATA; keylen its length.
 * @return VAL_CRYPTO_OK on a match; VAL_CRYPTO_UNSUPPORTED when the DS
 *	digest type or algorithm is not supported; VAL_CRYPTO_NO_KEY when
 *	tag or algorithm differ; VAL_CRYPTO_BAD_SIG when the digest differs;
 *	VAL_CRYPTO_MALFORMED for short RDATA; VAL_CRYPTO_REVOKED when the
 *	key has the REVOKE flag.
 */
int val_ds_match(const uint8_t *owner, const uint8_t *ds, size_t dslen,
	const uint8_t *dnskey, size_t keylen);

/**
 * Check an RRSIG's validity window.
 * @param rrsig: RRSIG RDATA, at least VAL_RRSIG_FIXED bytes.
 * @param w: now and the skew limits.
 * @return VAL_CRYPTO_OK, VAL_CRYPTO_EXPIRED, VAL_CRYPTO_NOT_YET_VALID, or
 *	VAL_CRYPTO_MALFORMED (short RDATA, inception after expiration).
 */
int val_check_window(const uint8_t *rrsig, size_t len,
	const struct val_window *w);

/**
 * Build the data an RRSIG signs over an RRset (the canonical form, see
 * the file comment).
 * @param rrset: the RRset (its records' RDATA possibly compressed).
 * @param rrsig: RRSIG RDATA (uncompressed).
 * @param siglen: its length.
 * @param out: output buffer.
 * @param outmax: its size (DNS_MAX_MSG * 2 is always enough for an
 *	RRset from one message).
 * @param outlen: bytes written.
 * @return VAL_CRYPTO_OK, VAL_CRYPTO_MALFORMED, VAL_CRYPTO_MISMATCH
 *	(labels field larger than the owner's label count) or
 *	VAL_CRYPTO_INTERNAL (out too small, out of memory).
 */
int val_canon_signed_data(const struct val_rrset *rrset,
	const uint8_t *rrsig, size_t siglen, uint8_t *out, size_t outmax,
	size_t *outlen);

/**
 * Canonical RDATA of one record: names of the RFC 4034 6.2 list (as
 * amended) decompressed and lower-cased, other bytes copied.
 * @param type: the RR type.
 * @param rr: the record.
 * @param out: output; rr->len + 2 * 255 bytes always suffice (at most two
 *	names per RDATA are decompressed).
 * @param outmax: size of out.
 * @param outlen: length written.
 * @return VAL_CRYPTO_OK, VAL_CRYPTO_MALFORMED (a name that is invalid or
 *	runs past the RDATA) or VAL_CRYPTO_INTERNAL (out too small).
 */
int val_canon_rdata(uint16_t type, const struct val_rr *rr, uint8_t *out,
	size_t outmax, size_t *outlen);

/**
 * Verify one RRSIG over an RRset with one DNSKEY: the window, the
 * RRSIG/RRset fit, the key fit (signer = key owner, algorithm, tag, zone
 * key, protocol), then the signature.
 * @param rrset: the RRset.
 * @param rrsig: RRSIG RDATA (uncompressed); siglen its length.
 * @param key_owner: the DNSKEY's owner.
 * @param dnskey: DNSKEY RDATA; keylen its length.
 * @param w: the validity window.
 * @return a val_crypto_result.
 */
int val_verify_rrsig_key(const struct val_rrset *rrset,
	const uint8_t *rrsig, size_t siglen, const uint8_t *key_owner,
	const uint8_t *dnskey, size_t keylen, const struct val_window *w);

/**
 * Verify an RRset against a DNSKEY set: secure when one RRSIG verifies
 * with one key of the set.
 * @param rrset: the RRset.
 * @param rrsigs: its RRSIGs (uncompressed RDATA), nsigs of them.
 * @param keys: the DNSKEY RRset (its owner is the keys' owner).
 * @param w: the validity window.
 * @param ede: when not NULL, set to the EDE code of the failure (or -1).
 * @return VAL_CRYPTO_OK, or the most telling failure: an expired or
 *	not-yet-valid signature or a bad signature over no matching key;
 *	VAL_CRYPTO_UNSUPPORTED when every RRSIG that names a key of the set
 *	uses an unsupported algorithm; VAL_CRYPTO_BUDGET when the RRset's
 *	VAL_MAX_RRSET_VERIFY or the window's budget ran out first.
 */
int val_verify_rrset(const struct val_rrset *rrset,
	const struct val_rr *rrsigs, size_t nsigs,
	const struct val_rrset *keys, const struct val_window *w, int *ede);

/**
 * Check a DNSKEY RDATA's shape for its algorithm (RSA exponent and
 * modulus present, exponent at most VAL_RSA_MAX_EXP bytes, modulus at
 * most 512; ECDSA 64 or 96 bytes, Ed25519 32, Ed448 57).
 * @return VAL_CRYPTO_OK, VAL_CRYPTO_UNSUPPORTED or VAL_CRYPTO_MALFORMED.
 */
int val_dnskey_check(const uint8_t *dnskey, size_t keylen);

/**
 * Can a DS set be used at all: does one DS have a supported algorithm
 * and digest type? When none does, the zone below is insecure, not
 * bogus (RFC 6840 5.2).
 * @return 1 yes, 0 no.
 */
int val_ds_set_usable(const struct val_rrset *ds);

/**
 * The DS → DNSKEY step (RFC 4035 5.2): the DNSKEY set is secure when a
 * key in it matches a usable DS and that key's signature over the set
 * verifies. DS records with digest type 1 are ignored when the set also
 * has a usable SHA-256 or SHA-384 one (RFC 4509 3).
 * @param keys: the DNSKEY RRset.
 * @param sigs: its RRSIGs (uncompressed RDATA), nsigs of them.
 * @param ds: the DS RRset (from the parent, validated, or a trust
 *	anchor).
 * @param w: the validity window.
 * @param ede: when not NULL, the EDE code of a failure (-1 on success).
 * @return VAL_CRYPTO_OK; VAL_CRYPTO_UNSUPPORTED when no DS is usable
 *	(insecure); VAL_CRYPTO_NO_KEY when no key matches a usable DS (EDE
 *	9); or the signature failure of the matching key (expired, bad...).
 */
int val_verify_dnskeys_with_ds(const struct val_rrset *keys,
	const struct val_rr *sigs, size_t nsigs, const struct val_rrset *ds,
	const struct val_window *w, int *ede);

/**
 * The DNSKEY set checked against DNSKEY trust anchors: secure when it
 * holds an anchor key (the REVOKE flag aside, a revoked key never
 * counts) whose signature over the set verifies.
 * @param anchors: the anchor DNSKEYs (owner = the keys' owner).
 * @return as val_verify_dnskeys_with_ds; VAL_CRYPTO_UNSUPPORTED when no
 *	anchor key has a supported algorithm.
 */
int val_verify_dnskeys_with_anchors(const struct val_rrset *keys,
	const struct val_rr *sigs, size_t nsigs,
	const struct val_rrset *anchors, const struct val_window *w, int *ede);

/**
 * The distinct algorithms of the usable DS records of a set (for
 * harden-algo-downgrade: the zone must then be signed with each).
 * @param ds: the DS RRset.
 * @param algs: output, at least 256 bytes; @return the number written.
 */
size_t val_ds_algorithms(const struct val_rrset *ds, uint8_t *algs);

/**
 * Verify an RRset with every algorithm of a list (harden-algo-downgrade,
 * as Unbound's: with it on, a signature by each algorithm of the DS set
 * must verify, so an attacker cannot strip the strongest one).
 * @param algs: the algorithms; nalgs how many (0: any one signature).
 * @return VAL_CRYPTO_OK, or the failure for the first algorithm without
 *	a verified signature (VAL_CRYPTO_NO_KEY when it has no RRSIG).
 */
int val_verify_rrset_algos(const struct val_rrset *rrset,
	const struct val_rr *rrsigs, size_t nsigs,
	const struct val_rrset *keys, const uint8_t *algs, size_t nalgs,
	const struct val_window *w, int *ede);

/**
 * How long a verified signature may still be used: the seconds from now
 * to its expiration (0 when past), to cap a validated RRset's TTL.
 * @return the seconds, or 0 for short RDATA.
 */
uint32_t val_rrsig_remaining(const uint8_t *rrsig, size_t len, uint32_t now);

#endif /* VALIDATOR_VAL_CRYPTO_H */
