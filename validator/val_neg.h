/*
 * validator/val_neg.h - aggressive use of validated NSEC (RFC 8198).
 *
 * The validator keeps the NSEC records (with their RRSIG) and the zone's
 * SOA (with its RRSIG) of every NXDOMAIN and NODATA answer it found
 * secure. Before a query goes to the iterator, val_neg_answer() looks for
 * a cached NSEC that covers the name (and one that covers the wildcard at
 * its closest encloser: NXDOMAIN) or an NSEC at the name without the type
 * (NODATA), proves it with the same val_nsec checks as a fresh answer,
 * and makes the answer from the cache: no upstream query. A DS question
 * is answered only from the NSEC at the name in the zone strictly above
 * it (NODATA: the NSEC the key walk proved at a zone cut, kept with
 * val_neg_add), never from a child's apex NSEC.
 *
 * The store is a fixed array (VAL_NEG_MAX entries, so memory is bounded
 * and a lookup is a bounded scan), shared by the workers under one lock;
 * a full store replaces the entry that expires first. It is used only
 * on the way to the iterator (a message cache miss), never on the
 * cached-answer path. NSEC3 is not used (RFC 8198 allows it; not here).
 */
#ifndef VALIDATOR_VAL_NEG_H
#define VALIDATOR_VAL_NEG_H
#include <stddef.h>
#include <stdint.h>
struct region;
struct module_rr;
struct mesh_answer;

/** entries in a store made by val_neg_create */
#define VAL_NEG_MAX 256
/** largest RDATA kept (NSEC, SOA, and RRSIG each) */
#define VAL_NEG_RDATA_MAX 512

/** the store (opaque) */
struct val_neg;

/** @return a new store of VAL_NEG_MAX entries, or NULL when out of memory */
struct val_neg *val_neg_create(void);

/**
 * A new store in at most bytes of entries (neg-cache-size; at least one
 * entry), or NULL when out of memory.
 */
struct val_neg *val_neg_create_size(size_t bytes);

/** @return the bytes one entry takes (a record and its RRSIG) */
size_t val_neg_entry_size(void);

/** free the store */
void val_neg_delete(struct val_neg *n);

/**
 * Keep a validated NSEC or SOA record and its RRSIG.
 * @param n: the store.
 * @param rr: the NSEC or SOA record (one record; an NSEC set has one).
 * @param sig: its RRSIG record (the signer is the zone).
 * @param now: the time.
 * @param use_max: the longest time, in seconds, the record may be used
 *	for answers (RFC 9077: an NSEC no longer than the SOA TTL and the
 *	SOA MINIMUM of its answer), 0xffffffff for no limit beyond its TTL;
 *	the answers made from it carry the record's own TTL, as Unbound's.
 * @return 0 kept, -1 not kept (too large, malformed, not NSEC/SOA).
 */
int val_neg_add(struct val_neg *n, const struct module_rr *rr,
	const struct module_rr *sig, uint32_t now, uint32_t use_max);

/**
 * Answer a query from the store.
 * @param n: the store.
 * @param qname: the name (wire); qtype its type.
 * @param now: the time.
 * @param r: the region for the answer.
 * @param out: set to the answer (rcode NXDOMAIN or NOERROR, the SOA and
 *	the NSEC records with their RRSIGs in the authority section, status
 *	secure).
 * @return 1 answered, 0 not (nothing cached proves it), -1 out of memory.
 */
int val_neg_answer(struct val_neg *n, const uint8_t *qname, uint16_t qtype,
	uint32_t now, struct region *r, struct mesh_answer **out);

/** drop every entry (flush) */
void val_neg_clear(struct val_neg *n);

/** @return the entries in use (for tests) */
size_t val_neg_count(struct val_neg *n);

#endif /* VALIDATOR_VAL_NEG_H */
