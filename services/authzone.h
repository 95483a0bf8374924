/*
 * services/authzone.h - auth-zone: local copies of zones, answered from.
 *
 * Each auth-zone: clause is one zone, read from its zonefile at start and
 * kept fresh by a transfer task (services/xfr.h) when it has primaries
 * or url: sources (HTTP/HTTPS downloads when no primary answers).
 * It answers:
 *   - clients (for-downstream): authoritatively, AA set; NXDOMAIN and
 *     NODATA with the SOA (TTL capped by the SOA minimum), wildcards, CNAME
 *     chains inside the zone, ANY; a referral (a name below a zone cut)
 *     only to a query without RD (with RD, the query is resolved, so the
 *     client gets the final answer);
 *   - the iterator (for-upstream, RFC 8806): before sending a query to the
 *     servers of a delegation inside the zone, the iterator asks here, and
 *     takes the packet written as the servers' reply (answer or referral).
 *     With DO the RRSIGs of each RRset and, for denials, the NSEC records
 *     of the zone are included, so that the validator checks the copy
 *     as it would the servers' replies.
 *
 * A zone's data is immutable once built. A transfer (on the transfer
 * thread), a control command or a reload builds the new data off to the
 * side (full zone, or the old zone with the IXFR differences applied),
 * checks its ZONEMD when zonemd-check is on (RFC 8976, scheme SIMPLE with
 * SHA-384 or SHA-512; zonemd-reject-absence refuses a zone without one;
 * with a DNSSEC check given at creation, the ZONEMD RRSIG or the proof of
 * its absence first, see auth_zonemd_dnssec_func; a zone that fails is
 * logged and not used: the old data stays, a zone without data is
 * "zonemd-refused", which sends the iterator to the zone's servers and
 * fails client queries; zonemd-permissive-mode logs and uses it),
 * writes the zonefile (to a temporary file, then rename(2)), and swaps
 * the pointer under the zone's rwlock. Readers (workers) hold the read
 * side for the length of one answer; the write side is held for the swap
 * only, and the old data is freed after it, so a worker never waits for a
 * transfer and never sees a half-built zone.
 *
 * Cost: an answer is a binary search over the zone's names (wire form,
 * canonical order) and references to its RRs, written by petrel's
 * encoder (dns/msgencode.h) from the wire form kept with the data into
 * the caller's buffer: no allocation and no ldns per answer (a name
 * outside every auth zone costs one suffix comparison per zone).
 *
 * NOTIFY (RFC 1996) for a configured zone, from an allow-notify: netblock
 * or a primary's address, wakes the zone's task and is answered NOERROR;
 * any other NOTIFY is REFUSED.
 */
#ifndef SERVICES_AUTHZONE_H
#define SERVICES_AUTHZONE_H

#include <stdint.h>
#include <stddef.h>
#include <ldns/ldns.h>

struct auth_zones;
struct config_file;
struct netaddr;

/** what the DNSSEC side of a ZONEMD check found (RFC 8976 4) */
enum auth_zonemd_dnssec {
	/** no trust anchor covers the zone (or a domain-insecure one, or
	 *  its anchor has only unsupported algorithms): the digest alone
	 *  is checked */
	AUTH_ZMD_NO_ANCHOR = 0,
	/** the ZONEMD RRset, or the NSEC/NSEC3 proof of its absence,
	 *  verifies with the zone's DNSKEY set, which chains to the trust
	 *  anchor */
	AUTH_ZMD_SECURE,
	/** a signature or the chain fails: the zone is bogus */
	AUTH_ZMD_BOGUS,
	/** a trust anchor covers the zone but the zone's keys cannot be
	 *  chained to it here (the anchor is above the apex) */
	AUTH_ZMD_UNVERIFIABLE
};

/**
 * The DNSSEC check of a zone's ZONEMD, given by a higher layer (the
 * validator's, validator/val_zonemd.h): it runs on the thread that builds
 * the zone (start-up, the transfer thread, a control command), so it must
 * be safe to call from any thread.
 * @param arg: its argument.
 * @param rrs: every RR of the zone.
 * @param apex: the zone name (canonical).
 * @param err: the reason when not SECURE or NO_ANCHOR; errlen its size.
 * @return an enum auth_zonemd_dnssec.
 */
typedef int (*auth_zonemd_dnssec_func)(void *arg, const ldns_rr_list *rrs,
	const ldns_rdf *apex, char *err, size_t errlen);

/**
 * Build the auth zones of a config: read the zone files (a missing file
 * is not an error when the zone has primaries: it is transferred), check
 * their ZONEMD, and make the transfer tasks (not started). A zone whose
 * zone file fails its ZONEMD check is logged and left without data (it is
 * not used: see auth_zones_answer_*), unless zonemd-permissive-mode is on.
 * @param cfg: the config.
 * @param err: reason on failure ("auth-zone 'x.': ...").
 * @return the zones (possibly none: NULL when cfg has no auth-zone is
 *	still a success, see *ok), or NULL.
 * @param ok: set to 1 on success, 0 on failure.
 */
struct auth_zones *auth_zones_create(const struct config_file *cfg,
	int *ok, char *err, size_t errlen);

/**
 * As auth_zones_create, with a DNSSEC check for the ZONEMD of the zones
 * that have zonemd-check (RFC 8976 4).
 * @param dnssec: the check, or NULL (the digest alone is checked).
 * @param arg: its argument (not owned; must outlive the zones).
 */
struct auth_zones *auth_zones_create_dnssec(const struct config_file *cfg,
	auth_zonemd_dnssec_func dnssec, void *arg, int *ok, char *err,
	size_t errlen);

/** Start the transfer thread. @return 0 or -1. NULL is allowed. */
int auth_zones_start(struct auth_zones *az);

/** Stop the transfers and free everything. NULL is allowed. */
void auth_zones_delete(struct auth_zones *az);

/** what an answer function did */
enum auth_answer {
	/** no auth zone (for that direction) covers the name: go on */
	AUTH_NOT = 0,
	/** an answer was written */
	AUTH_ANSWERED,
	/** the zone has no data and no fallback: the caller fails the
	 * query (SERVFAIL) */
	AUTH_FAIL
};

/**
 * Answer a client from the for-downstream zones.
 * @param az: the zones (NULL: AUTH_NOT).
 * @param pkt: the query (its question name gives the answer's case).
 * @param qname: the question name, wire format; qtype, qclass.
 * @param qname_off: offset of the name in pkt.
 * @param id: query ID; flags: its header flags word (RD, CD echoed).
 * @param edns: 1 when the query had EDNS; do_bit: its DO; udp_size: the
 *	client's size (a UDP answer longer than that is truncated, TC).
 * @param tcp: 1 over TCP.
 * @param out: the answer; outmax its room; outlen its length.
 */
enum auth_answer auth_zones_answer_downstream(struct auth_zones *az,
	const uint8_t *pkt, size_t len, size_t qname_off, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, uint16_t id, uint16_t flags, int edns,
	int do_bit, uint16_t udp_size, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen);

/** @return 1 when a for-downstream zone covers the wire name qname */
int auth_zones_downstream_covers(struct auth_zones *az,
	const uint8_t *qname);

/**
 * Answer the iterator from the for-upstream zones, as the servers of the
 * delegation dp would.
 * @param az: the zones (NULL: AUTH_NOT).
 * @param dp: the delegation point the iterator would ask (wire name).
 * @param qname: wire; qtype, qclass: the question it would send.
 * @param do_bit: 1 to include DNSSEC records.
 * @param out: the reply (ID 0, QR, AA for answers); outmax, outlen.
 * @return AUTH_NOT when no zone applies (dp outside every zone, or at or
 *	below a cut of the zone), AUTH_ANSWERED, AUTH_FAIL (no data, no
 *	fallback).
 */
enum auth_answer auth_zones_answer_upstream(struct auth_zones *az,
	const uint8_t *dp, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int do_bit, uint8_t *out, size_t outmax,
	size_t *outlen);

/**
 * Handle a NOTIFY message.
 * @return 1 when a reply was written to out (NOERROR or REFUSED), 0 when
 *	the message is not a NOTIFY query for us to answer (drop it).
 */
int auth_zones_notify(struct auth_zones *az, const uint8_t *pkt,
	size_t len, const struct netaddr *from, uint8_t *out, size_t outmax,
	size_t *outlen);

/**
 * One line per zone, "name\tstate\tserial ..." into buf (list_auth_zones).
 * @return the number of zones.
 */
int auth_zones_list(struct auth_zones *az, char *buf, size_t len);

/**
 * Read a zone's zonefile again (auth_zone_reload).
 * @return 0, or -1 with err.
 */
int auth_zones_reload(struct auth_zones *az, const char *name, char *err,
	size_t errlen);

/**
 * Transfer a zone now, with AXFR (auth_zone_transfer).
 * @return 0, or -1 with err (unknown zone, no primaries).
 */
int auth_zones_transfer(struct auth_zones *az, const char *name, char *err,
	size_t errlen);

/**
 * Check the ZONEMD of a zone (RFC 8976).
 * @param rrs: every RR of the zone.
 * @param apex: the zone name.
 * @param reject_absence: 1 when a zone without ZONEMD fails.
 * @param err: reason on failure.
 * @return 0 when it verifies (or is absent and allowed), -1 otherwise.
 */
int auth_zonemd_verify(const ldns_rr_list *rrs, const ldns_rdf *apex,
	int reject_absence, const char **err);

/** @return serial of the named zone's data, or -1 when it has none
 * (tests) */
int64_t auth_zones_serial(struct auth_zones *az, const char *name);

#endif /* SERVICES_AUTHZONE_H */
