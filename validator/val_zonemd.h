/*
 * validator/val_zonemd.h - the DNSSEC side of an auth-zone's ZONEMD
 * check (RFC 8976 section 4).
 *
 * The auth zones (services/authzone.h) sit below the validator, so they
 * take this check as a function at creation (auth_zones_create_dnssec);
 * the daemon passes val_zonemd_check with a struct val_zonemd made from
 * the same trust anchor lines as the validator module's.
 *
 * For a zone with zonemd-check:
 *   - no trust anchor at or above the apex, or a domain-insecure one:
 *     nothing to verify (AUTH_ZMD_NO_ANCHOR), the digest alone is checked;
 *   - a trust anchor at the apex (the RFC 8806 root case, or any zone
 *     with its own anchor): the apex DNSKEY set must verify with the
 *     anchor (DS or DNSKEY, as the validator does), then the apex ZONEMD
 *     RRset's RRSIG must verify with that key set; when the zone has no
 *     ZONEMD, the apex NSEC (or the NSEC3 of the apex, with the zone's
 *     NSEC3 parameters) must verify and prove the type absent;
 *   - a trust anchor above the apex (a TLD copy under the root's
 *     anchor, the common case): the zone's keys must be chained through
 *     the delegations above it, which the transfer thread cannot do (no
 *     sub-queries), so the result is AUTH_ZMD_NEED_KEYS: the auth zone
 *     holds the new copy (the old one stays in use), a worker looks up
 *     <apex> DNSKEY with DO through the mesh, where the validator chains
 *     it from the anchor with DS lookups as for any client, and the
 *     answer comes back to val_zonemd_check_keys on the transfer
 *     thread: the zone's apex DNSKEY set must be the validated one (the
 *     same records), then the ZONEMD RRSIG (or the proof of its absence)
 *     must verify with it. A lookup proven insecure leaves the digest
 *     alone; bogus or failed refuses the zone (services/authzone.h);
 *   - an anchor whose algorithms are all unsupported makes the zone
 *     insecure (RFC 6840 5.2): NO_ANCHOR.
 * Signatures are checked with val_crypto against the wall clock, with
 * val-sig-skew-min/max. The anchor store is read-only after creation,
 * and the check keeps no state, so it may run on any thread. RFC 5011
 * updates of an auto-trust-anchor-file are seen at the next reload.
 */
#ifndef VALIDATOR_VAL_ZONEMD_H
#define VALIDATOR_VAL_ZONEMD_H

#include <stddef.h>
#include <ldns/ldns.h>

struct config_file;
struct val_zonemd;

/**
 * Make the check's state from a config: its trust anchors (trust-anchor,
 * trust-anchor-file, trusted-keys-file, auto-trust-anchor-file,
 * domain-insecure) and signature skew.
 * @param cfg: the config.
 * @param err: reason on failure (a bad anchor line); errlen its size.
 * @return the state, or NULL.
 */
struct val_zonemd *val_zonemd_create(const struct config_file *cfg,
	char *err, size_t errlen);

/** Free the state. NULL is allowed. */
void val_zonemd_delete(struct val_zonemd *vz);

/**
 * Set the clock (tests): 0 (the default) reads time(NULL) per check.
 */
void val_zonemd_set_now(struct val_zonemd *vz, uint32_t now);

/**
 * The check, as an auth_zonemd_dnssec_func (services/authzone.h).
 * @param arg: a struct val_zonemd.
 * @param rrs: every RR of the zone; apex: the zone name.
 * @param err: the reason when BOGUS or UNVERIFIABLE; errlen its size.
 * @return an enum auth_zonemd_dnssec.
 */
int val_zonemd_check(void *arg, const ldns_rr_list *rrs,
	const ldns_rdf *apex, char *err, size_t errlen);

/**
 * The check of a held zone with its validated DNSKEY set, as an
 * auth_zonemd_keys_func (services/authzone.h): the zone's apex DNSKEY
 * RRset must be those records (no more, no fewer), then the ZONEMD RRSIG
 * must verify with them (or, without a ZONEMD, the apex NSEC/NSEC3 must
 * prove it absent).
 * @param arg: a struct val_zonemd.
 * @param rrs: every RR of the zone; apex: the zone name.
 * @param key: RDATA of the n validated DNSKEY records; keylen theirs.
 * @param err: the reason when not SECURE; errlen its size.
 * @return AUTH_ZMD_SECURE, AUTH_ZMD_BOGUS or AUTH_ZMD_UNVERIFIABLE.
 */
int val_zonemd_check_keys(void *arg, const ldns_rr_list *rrs,
	const ldns_rdf *apex, const uint8_t *const *key,
	const uint16_t *keylen, size_t n, char *err, size_t errlen);

#endif /* VALIDATOR_VAL_ZONEMD_H */
