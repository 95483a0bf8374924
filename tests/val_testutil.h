/*
 * tests/val_testutil.h - zone fixtures for the validator tests.
 *
 * Loads a signed zone file (testdata/dnssec/) with ldns, the test oracle,
 * and hands out RRsets, their RRSIGs and the DNSKEY set as the wire-format
 * struct val_rrset / struct val_rr that validator/ works on. Each RR keeps
 * its own RDATA copy (uncompressed, case as in the file) and its ldns_rr,
 * so a test can tamper with the bytes and ask ldns the same question.
 */
#ifndef TESTS_VAL_TESTUTIL_H
#define TESTS_VAL_TESTUTIL_H

#include <ldns/ldns.h>
#include "validator/val_crypto.h"

/** most RRs in one test RRset */
#define VT_MAX_SET 32

/** one RR of a loaded zone */
struct vt_rr {
	/** owner, wire, case as loaded */
	uint8_t owner[256];
	/** type */
	uint16_t type;
	/** for RRSIG the type covered */
	uint16_t covered;
	/** RDATA (malloc'd) and its length */
	uint8_t *rdata;
	/** RDATA length */
	uint16_t len;
	/** the ldns form (owned by the zone's list) */
	ldns_rr *lrr;
};

/** a loaded zone */
struct vt_zone {
	/** the RRs */
	struct vt_rr *rrs;
	/** number of RRs */
	size_t n;
	/** ldns' list of them */
	ldns_rr_list *list;
	/** apex name, wire */
	uint8_t apex[256];
};

/** an RRset with its RRSIGs, pointing into a zone */
struct vt_set {
	/** the RRset as validator/ wants it */
	struct val_rrset set;
	/** its records */
	struct val_rr rrs[VT_MAX_SET];
	/** its RRSIGs */
	struct val_rr sigs[VT_MAX_SET];
	/** number of RRSIGs */
	size_t nsigs;
	/** the ldns forms (lists own no RRs) */
	ldns_rr_list *lrrs;
	/** the ldns RRSIGs */
	ldns_rr_list *lsigs;
	/** owner copy */
	uint8_t owner[256];
};

/** load testdata/dnssec/<file>; aborts the test on failure */
struct vt_zone *vt_zone_load(const char *file);
/** free a zone */
void vt_zone_free(struct vt_zone *z);
/**
 * Collect the RRset (owner, type) and its RRSIGs.
 * @return number of RRs found (0: none; the set is then empty).
 */
size_t vt_set_get(struct vt_zone *z, const uint8_t *owner, uint16_t type,
	struct vt_set *s);
/** as vt_set_get with a presentation-format owner */
size_t vt_set_get_str(struct vt_zone *z, const char *owner, uint16_t type,
	struct vt_set *s);
/** free the ldns lists of a set (not the RRs) */
void vt_set_clear(struct vt_set *s);
/** a name from presentation format into buf (256 bytes); aborts on error */
uint8_t *vt_name(const char *s, uint8_t *buf);
/** seconds since the epoch of "YYYYMMDDhhmmss" (UTC) */
uint32_t vt_time(const char *s);

#endif /* TESTS_VAL_TESTUTIL_H */
