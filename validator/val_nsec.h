/*
 * validator/val_nsec.h - denial of existence with NSEC (RFC 4035 5.4,
 * RFC 4034 4, RFC 6840 4).
 *
 * The proof functions take a set of NSEC records that the caller has
 * already validated (each NSEC RRset verified with val_crypto against the
 * zone's keys) and say what they prove about a name: NXDOMAIN (a covering
 * NSEC and no wildcard that could have answered), NODATA (a matching NSEC
 * without the type and without CNAME, an empty non-terminal, or the
 * wildcard's NSEC without the type), a wildcard answer's proof (nothing
 * closer to the name exists), and the answer to a DS query at a
 * delegation (NS without DS: an insecure delegation).
 *
 * Everything is wire format: owners and RDATA uncompressed (RFC 3845
 * forbids compressing the NSEC next name), names in any case. Nothing is
 * allocated; the functions keep no state.
 *
 * Results are enum val_proof: SECURE when the records prove the claim,
 * INSECURE when they prove the name is in an unsigned part (an insecure
 * delegation; NSEC3 opt-out and the iteration limit in val_nsec3.h),
 * BOGUS when they prove the opposite (the type exists, a CNAME is there,
 * the NSEC is the child's), NONE when they prove nothing (the caller then
 * treats the answer as bogus for missing NSEC, EDE 12).
 *
 * The type bitmap helpers are shared with NSEC3.
 */
#ifndef VALIDATOR_VAL_NSEC_H
#define VALIDATOR_VAL_NSEC_H

#include <stddef.h>
#include <stdint.h>

/** one NSEC or NSEC3 record: owner and RDATA, uncompressed */
struct val_nrec {
	/** owner name (wire) */
	const uint8_t *owner;
	/** RDATA */
	const uint8_t *rdata;
	/** RDATA length */
	size_t len;
};

/** what a set of denial records proves */
enum val_proof {
	/** nothing (missing or unrelated records) */
	VAL_PROOF_NONE = 0,
	/** the claim is proven */
	VAL_PROOF_SECURE,
	/** the name is provably in an unsigned part (insecure delegation,
	 *  opt-out, NSEC3 iterations over the limit) */
	VAL_PROOF_INSECURE,
	/** the records contradict the claim */
	VAL_PROOF_BOGUS
};

/** @return a static name for a val_proof ("secure", ...) */
const char *val_proof_str(int p);

/**
 * Check a type bitmap (RFC 4034 4.1.2): windows in increasing order, each
 * with a length of 1 to 32.
 * @return 0 when well-formed, -1 when not.
 */
int val_bitmap_check(const uint8_t *bm, size_t len);

/**
 * Is a type in a (well-formed) type bitmap?
 * @return 1 if present, 0 if not or when the bitmap is malformed.
 */
int val_bitmap_has(const uint8_t *bm, size_t len, uint16_t type);

/**
 * Split NSEC RDATA into next name and type bitmap, checking both.
 * @param rdata: NSEC RDATA; len its length.
 * @param next: the next owner name (points into rdata).
 * @param bm: the bitmap (points into rdata); bmlen its length.
 * @return 0, or -1 when malformed.
 */
int val_nsec_parse(const uint8_t *rdata, size_t len, const uint8_t **next,
	const uint8_t **bm, size_t *bmlen);

/**
 * Does an NSEC have a type in its bitmap?
 * @return 1 yes, 0 no (or a malformed record).
 */
int val_nsec_has_type(const struct val_nrec *r, uint16_t type);

/**
 * Does the NSEC cover name: owner < name < next in canonical order (the
 * last NSEC of a zone, whose next is the apex, covers every name after
 * its owner below the apex)?
 * @return 1 yes, 0 no (also for a malformed record).
 */
int val_nsec_covers(const struct val_nrec *r, const uint8_t *name);

/**
 * Is name an empty non-terminal according to this NSEC: it is covered
 * and the next name is below it?
 * @return 1 yes, 0 no.
 */
int val_nsec_is_ent(const struct val_nrec *r, const uint8_t *name);

/**
 * The closest encloser of name that an NSEC which covers it shows: the
 * longest common ancestor of name with the owner or the next name.
 * @return its label count (the root not counted), -1 for a malformed
 *	record.
 */
int val_nsec_closest_encloser(const struct val_nrec *r, const uint8_t *name);

/**
 * Prove that qname does not exist (NXDOMAIN): an NSEC covers qname (and
 * is not from a delegation or DNAME above it, and qname is not an empty
 * non-terminal), and an NSEC covers the wildcard at the closest encloser.
 * @param recs: the validated NSEC records; n how many.
 * @param qname: the name.
 * @return SECURE, BOGUS (an NSEC shows qname exists) or NONE.
 */
int val_nsec_prove_nxdomain(const struct val_nrec *recs, size_t n,
	const uint8_t *qname);

/**
 * Prove that qname has no qtype (NODATA): an NSEC at qname without qtype
 * and without CNAME (for DS: not the child apex's NSEC; for other types:
 * not the parent side of a delegation), or qname is an empty
 * non-terminal, or qname does not exist and the wildcard at its closest
 * encloser has an NSEC without qtype and CNAME (a wildcard NODATA).
 * INSECURE when an NSEC shows an insecure delegation (NS without DS and
 * SOA) at or above qname (strictly above for DS): qname is in an
 * unsigned child, whose data the parent's NSEC cannot deny (as when a
 * CNAME from the signed parent points into a child on the same servers).
 * @return SECURE, INSECURE, BOGUS (the type or a CNAME is there) or NONE.
 */
int val_nsec_prove_nodata(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, uint16_t qtype);

/**
 * Prove a wildcard answer legitimate: qname was synthesised from the
 * wildcard whose parent has wc_labels labels (the RRSIG labels field), so
 * an NSEC must cover qname with exactly that closest encloser.
 * @return SECURE, or NONE.
 */
int val_nsec_prove_wildcard(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, int wc_labels);

/**
 * What do the NSECs say about the DS set of qname (a referral or a DS
 * query)?
 * @return INSECURE for an NSEC at qname with NS and without DS and SOA
 *	(an insecure delegation); SECURE when qname provably has no DS and
 *	is no delegation (no NS, or an empty non-terminal); BOGUS when the
 *	NSEC shows a DS, or is the child's (SOA, below the root); NONE.
 */
int val_nsec_prove_no_ds(const struct val_nrec *recs, size_t n,
	const uint8_t *qname);

#endif /* VALIDATOR_VAL_NSEC_H */
