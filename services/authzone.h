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
 * A zone below its trust anchor (a TLD copy under the root's anchor)
 * cannot be chained on the thread that builds it: its new copy is held
 * (one per zone, a newer one replaces it; the old data stays in use, a
 * zone without data is "zonemd-pending" and treated as refused), and the
 * worker registered with auth_zones_set_waker is woken through its pipe
 * to start a query for <apex> DNSKEY through its mesh, which the
 * validator chains from the anchor; it is asked of the zone's servers,
 * not of the old copy (for-upstream), so that a key rollover is seen.
 * When it finishes, the worker hands the result over
 * (auth_zones_keys_answer,
 * under a small lock) and the rest of the check, the keys compared and
 * the ZONEMD verified with them, then the digest, is posted to the
 * transfer thread (xfr_service_post). Secure: used; insecure (proven):
 * the digest alone; bogus: refused, transferred again at the retry
 * timer; failed (or no answer in AZ_LOOKUP_TIMEOUT): still held and
 * looked up again at the SOA retry timer. Neither side waits for the
 * other.
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
struct xfr_service;

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
	/** a trust anchor covers the zone but the check cannot be made
	 *  (e.g. NSEC3 iterations over the limit) */
	AUTH_ZMD_UNVERIFIABLE,
	/** a trust anchor lies above the apex: the zone's DNSKEY set must
	 *  be looked up through the validator, which chains it from the
	 *  anchor; the zone is held until then (auth_zones_start_lookups,
	 *  auth_zones_keys_answer, auth_zonemd_keys_func) */
	AUTH_ZMD_NEED_KEYS
};

/** what the validated lookup of a held zone's DNSKEY gave */
enum auth_keys_result {
	/** secure: the DNSKEY set is validated from the trust anchor */
	AUTH_KEYS_SECURE = 0,
	/** insecure: the validator proved an insecure delegation above the
	 *  zone (or it is below a domain-insecure): the digest alone */
	AUTH_KEYS_INSECURE,
	/** bogus (or not validated at all): the zone is refused */
	AUTH_KEYS_BOGUS,
	/** the lookup failed (SERVFAIL, no DNSKEY, mesh full): refused
	 *  for now, tried again at the zone's retry timer */
	AUTH_KEYS_FAILED
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
 * The second half of the DNSSEC check of a held zone (one that got
 * AUTH_ZMD_NEED_KEYS), given by the same higher layer with the same
 * argument: the zone's apex DNSKEY RRset must be the validated one (the
 * same records), then the ZONEMD RRSIG (or the proof of its absence) must
 * verify with it. Runs on the transfer thread.
 * @param arg: the argument of the auth_zonemd_dnssec_func.
 * @param rrs: every RR of the zone; apex: the zone name.
 * @param key: the RDATA of the n validated DNSKEY records; keylen theirs.
 * @param err: the reason when BOGUS; errlen its size.
 * @return AUTH_ZMD_SECURE, AUTH_ZMD_BOGUS or AUTH_ZMD_UNVERIFIABLE.
 */
typedef int (*auth_zonemd_keys_func)(void *arg, const ldns_rr_list *rrs,
	const ldns_rdf *apex, const uint8_t *const *key,
	const uint16_t *keylen, size_t n, char *err, size_t errlen);

/**
 * Build the auth zones of a config: read the zone files (a missing file
 * is not an error when the zone has primaries: it is transferred), check
 * their ZONEMD, and make the transfer tasks (not started). A zone whose
 * zone file fails its ZONEMD check is logged and left without data (it is
 * not used: see auth_zones_answer_*), unless zonemd-permissive-mode is on.
 * An rpz: clause with for-downstream: yes is a zone too (for-downstream,
 * from its zonefile:).
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
 * @param keys: the check of a held zone's keys (auth_zonemd_keys_func),
 *	or NULL: then a zone below its trust anchor is refused
 *	(AUTH_ZMD_UNVERIFIABLE) instead of held for its DNSKEY lookup.
 * @param arg: their argument (not owned; must outlive the zones).
 */
struct auth_zones *auth_zones_create_dnssec(const struct config_file *cfg,
	auth_zonemd_dnssec_func dnssec, auth_zonemd_keys_func keys, void *arg,
	int *ok, char *err, size_t errlen);

/**
 * Held zones (below a trust anchor, waiting for their validated DNSKEY):
 * a worker registers a wake-up, called (from any thread, under a lock
 * of the zones: it must only signal, e.g. write a pipe) when a zone
 * wants a lookup; the worker then calls auth_zones_start_lookups from
 * its event loop. The first worker to register is the one; it calls
 * auth_zones_clear_waker before it goes. When zones are waiting at
 * registration, the wake-up is called at once.
 * @return 1 when fn was registered, 0 when another one is (or az is
 *	NULL, or no zone can need a lookup).
 */
int auth_zones_set_waker(struct auth_zones *az, void (*fn)(void *),
	void *arg);

/** Unregister the wake-up registered with arg (no-op otherwise). */
void auth_zones_clear_waker(struct auth_zones *az, void *arg);

/**
 * On the worker: start the lookups the held zones want, one per zone.
 * @param start: starts a validated query for <apex> DNSKEY (with DO)
 *	through the mesh; @return 0 or -1 (then the lookup counts as
 *	failed). It may finish at once (calling auth_zones_keys_answer).
 * @param arg: its argument.
 */
void auth_zones_start_lookups(struct auth_zones *az,
	int (*start)(void *arg, const uint8_t *apex), void *arg);

/**
 * Host names (a primary: or allow-notify: written as a name, as Unbound
 * allows): their A and AAAA records are looked up through the resolver
 * (validated: a bogus answer is not used), by the worker that starts
 * the DNSKEY lookups (the same wake-up), when the zones are made and
 * again a minute after a lookup that failed. A primary's addresses are
 * handed to its zone's transfer task; every address found may NOTIFY.
 * @param start: starts the lookup of the wire name and type (A or
 *	AAAA) in the background; @return 0, or -1 (the lookup counts as
 *	failed). It may finish at once (calling auth_zones_host_answer).
 * @param arg: its argument.
 */
void auth_zones_start_host_lookups(struct auth_zones *az,
	int (*start)(void *arg, const uint8_t *name, uint16_t qtype),
	void *arg);

/** @return 1 when a host name lookup of the wire name qname and qtype
 *	(A or AAAA) was started by auth_zones_start_host_lookups and waits
 *	for its answer */
int auth_zones_wants_host(struct auth_zones *az, const uint8_t *qname,
	uint16_t qtype);

/**
 * A host name lookup finished.
 * @param ok: 1 when the answer is usable (NOERROR, not bogus; no
 *	addresses is usable too), 0 when it failed or was bogus (asked
 *	again later).
 * @param addrs: its addresses (port ignored), n of them.
 */
void auth_zones_host_answer(struct auth_zones *az, const uint8_t *qname,
	uint16_t qtype, int ok, const struct netaddr *addrs, size_t n);

/**
 * @return 1 when a held zone waits for the DNSKEY of the wire name qname
 *	(a lookup started by auth_zones_start_lookups).
 */
int auth_zones_wants_keys(struct auth_zones *az, const uint8_t *qname);

/**
 * On the worker, when a query for qname DNSKEY finished: hand the result
 * to the held zone at qname (copied); the rest of its check is posted to
 * the transfer thread. Ignored when no zone waits for it.
 * @param res: an enum auth_keys_result.
 * @param key: the RDATA of the n DNSKEY records; keylen theirs.
 */
void auth_zones_keys_answer(struct auth_zones *az, const uint8_t *qname,
	int res, const uint8_t *const *key, const uint16_t *keylen,
	size_t n);

/** Start the transfer thread. @return 0 or -1. NULL is allowed. */
int auth_zones_start(struct auth_zones *az);

/** The zones' transfer service, for a test or the replay runner to put on
 * its own transport and drive instead of auth_zones_start
 * (xfr_service_set_transport, xfr_service_run_due).
 * @return it, or NULL when no zone transfers (or az is NULL). */
struct xfr_service *auth_zones_xfr(struct auth_zones *az);

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
 * @return 1 when the closest for-upstream zone that holds the wire name
 *	has fallback-enabled: an answer of its copy found bogus may then be
 *	asked of the servers instead (the iterator, restarted by the
 *	validator, as Unbound avoids the auth zone then), else 0.
 */
int auth_zones_fallback(struct auth_zones *az, const uint8_t *name);

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
 * @return 0 when it verifies (or is absent and allowed, or has only
 *	ZONEMD records of schemes or hash algorithms not supported: used
 *	unverified, RFC 8976 section 4), -1 otherwise.
 */
int auth_zonemd_verify(const ldns_rr_list *rrs, const ldns_rdf *apex,
	int reject_absence, const char **err);

/** @return serial of the named zone's data, or -1 when it has none
 * (tests) */
int64_t auth_zones_serial(struct auth_zones *az, const char *name);

#endif /* SERVICES_AUTHZONE_H */
