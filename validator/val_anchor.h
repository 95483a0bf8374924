/*
 * validator/val_anchor.h - the trust anchor store.
 *
 * Holds every configured trust anchor, by owner name:
 *   trust-anchor: "<RR>"        one DS or DNSKEY in presentation format
 *   trust-anchor-file: <file>   zone-file format (DS and DNSKEY records;
 *                               other types are skipped, as a zone file
 *                               may hold them)
 *   trusted-keys-file: <file>   BIND's trusted-keys { ... }; clause, and
 *                               the managed-keys / trust-anchors clauses
 *                               (initial-key, static-key, initial-ds,
 *                               static-ds entries)
 *   auto-trust-anchor-file: <file>  RFC 5011 managed (val_autotrust.h)
 *   domain-insecure: <name>     a negative anchor: validation stops there
 * Anchors of one name from several static lines are merged; a name may
 * not be both a static and an automatic anchor (as in Unbound).
 *
 * Every anchor keeps its keys as a struct val_autr_point: for static
 * anchors all keys are VALID and never change; for automatic ones the
 * point follows RFC 5011 and is written back to its file.
 *
 * The store is built at config load and read-only afterwards (lookups
 * take no lock); RFC 5011 updates of an automatic anchor are the
 * validator module's business (it owns the point and serialises them).
 *
 * Errors are returned as text naming the file and line and what was
 * expected.
 */
#ifndef VALIDATOR_VAL_ANCHOR_H
#define VALIDATOR_VAL_ANCHOR_H

#include <stddef.h>
#include <stdint.h>

struct val_autr_point;
struct val_rr;

/** one anchor */
struct val_anchor {
	/** owner, wire, lower case */
	uint8_t name[256];
	/** labels of the owner */
	int namelabs;
	/** class */
	uint16_t dclass;
	/** a domain-insecure (negative) anchor: no keys */
	int insecure;
	/** its keys (NULL for an insecure anchor) */
	struct val_autr_point *tp;
	/** managed by RFC 5011 */
	int autotrust;
	/** the auto-trust-anchor-file (malloc'd), or NULL */
	char *file;
	/** next in the store */
	struct val_anchor *next;
};

/** the store */
struct val_anchors {
	/** the anchors, unordered */
	struct val_anchor *list;
	/** how many */
	size_t count;
};

/** @return a new empty store, or NULL. Free with val_anchors_delete. */
struct val_anchors *val_anchors_create(void);

/** free a store and its anchors */
void val_anchors_delete(struct val_anchors *a);

/**
 * Add a trust-anchor: line.
 * @param a: the store.
 * @param rr: the RR text (DS or DNSKEY).
 * @param err: error text; errlen its size.
 * @return 0 or -1.
 */
int val_anchors_add_str(struct val_anchors *a, const char *rr, char *err,
	size_t errlen);

/** Add a trust-anchor-file: (zone-file format). @return 0 or -1. */
int val_anchors_add_zonefile(struct val_anchors *a, const char *path,
	char *err, size_t errlen);

/** Add a trusted-keys-file: (BIND format). @return 0 or -1. */
int val_anchors_add_bindfile(struct val_anchors *a, const char *path,
	char *err, size_t errlen);

/** Add an auto-trust-anchor-file:. @return 0 or -1. */
int val_anchors_add_autofile(struct val_anchors *a, const char *path,
	char *err, size_t errlen);

/** Add a domain-insecure: name. @return 0 or -1. */
int val_anchors_add_insecure(struct val_anchors *a, const char *name,
	char *err, size_t errlen);

/**
 * The anchor for a name: the anchor at the name or the closest one above
 * it (an insecure anchor included; the caller checks ->insecure).
 * @return the anchor or NULL when no anchor covers the name.
 */
const struct val_anchor *val_anchors_lookup(const struct val_anchors *a,
	const uint8_t *name, uint16_t dclass);

/** The anchor at exactly this name, or NULL. */
struct val_anchor *val_anchors_find(const struct val_anchors *a,
	const uint8_t *name, uint16_t dclass);

/**
 * The trusted keys of an anchor of one type (DS, or DNSKEY in VALID or
 * MISSING state), as val_rr pointing into the anchor.
 * @param an: the anchor.
 * @param type: DNS_TYPE_DS or DNS_TYPE_DNSKEY.
 * @param out: output array; max its size.
 * @return the number found (may exceed max: then only max are written).
 */
size_t val_anchor_keys(const struct val_anchor *an, uint16_t type,
	struct val_rr *out, size_t max);

/**
 * The root trust anchors built into petrel, as DS records in
 * presentation format: KSK-2017 (key tag 20326) and KSK-2024 (key tag
 * 38696), algorithm 8, digest type 2, as IANA publishes them in
 * https://data.iana.org/root-anchors/root-anchors.xml.
 * @param n: set to the number of strings.
 * @return a static array of strings.
 */
const char *const *val_anchor_builtin_root(size_t *n);

#endif /* VALIDATOR_VAL_ANCHOR_H */
