/*
 * validator/val_autotrust.h - RFC 5011 automated trust anchor rollover:
 * the key state machine and the auto-trust-anchor-file format.
 *
 * A trust point (struct val_autr_point) is one auto-trust-anchor-file
 * owner: a list of keys, each a DS (an initial anchor, e.g. written by
 * petrel-anchor) or a DNSKEY with its RFC 5011 state. The state machine
 * is a pure function, val_autr_update(), of the trust point, the DNSKEY
 * set just fetched, whether that set validated with a key the point
 * trusts, which revoked keys signed it themselves, the settings and
 * `now`: no clock is read, no network is used, so tests and the replay
 * runner drive it with a fake clock.
 *
 * States and events (RFC 5011 section 4), with Unbound's choices where
 * the RFC leaves room:
 *   START   -> ADDPEND  a new SEP key is seen in a validated set
 *   ADDPEND -> VALID    add-holddown passed since it was first seen, and
 *                       it was seen in at least 2 probes
 *   ADDPEND -> START    it disappeared (the key is then forgotten)
 *   VALID   -> MISSING  it disappeared
 *   MISSING -> VALID    it came back
 *   VALID, MISSING -> REVOKED  it is seen with the REVOKE bit, signing
 *                       the set itself
 *   REVOKED -> REMOVED  del-holddown passed
 *   MISSING -> (deleted) keep-missing passed (0: never), unless it is the
 *                       last trusted key
 * A key that matches a DS anchor of the point in a set validated by that
 * DS becomes VALID at once (first start-up from a DS file); once the
 * point has a VALID DNSKEY its DS anchors are dropped. REMOVED keys stay
 * listed so that they are not added again. Only keys with the SEP flag
 * take part (zone signing keys are not trust anchors).
 *
 * Probe timing (Unbound's): query interval MAX(1h, MIN(15 days, TTL/2,
 * signature lifetime/2)), retry time MAX(1h, MIN(1 day, TTL/10,
 * lifetime/10)); permit-small-holddown drops the one-hour floors.
 *
 * File format (Unbound's autotrust format, so files move between the
 * two): ";;id: <name> <class>" and ";;last_queried:", ";;last_success:",
 * ";;next_probe_time:", ";;query_failed:", ";;query_interval:",
 * ";;retry_time:" header lines, then one RR per line followed by
 * ";;state=N [ NAME ] ;;count=N ;;lastchange=N". An RR line without
 * state is a configured anchor, VALID. The file is written to a
 * temporary file in the same directory and renamed over the old one, so
 * a crash leaves the old or the new file, never half of one.
 */
#ifndef VALIDATOR_VAL_AUTOTRUST_H
#define VALIDATOR_VAL_AUTOTRUST_H

#include <stddef.h>
#include <stdint.h>

struct val_rr;

/** RFC 5011 key states (the numbers are those of the file format) */
enum val_autr_state {
	VAL_AUTR_START = 0,
	VAL_AUTR_ADDPEND = 1,
	VAL_AUTR_VALID = 2,
	VAL_AUTR_MISSING = 3,
	VAL_AUTR_REVOKED = 4,
	VAL_AUTR_REMOVED = 5
};

/** probes an ADDPEND key must be seen in before it may become VALID */
#define VAL_AUTR_MIN_PENDING 2
/** default add-holddown, del-holddown: 30 days */
#define VAL_AUTR_HOLDDOWN_DEFAULT 2592000
/** default keep-missing: 366 days */
#define VAL_AUTR_KEEP_MISSING_DEFAULT 31622400

/** one key of a trust point */
struct val_autr_key {
	/** DNS_TYPE_DS or DNS_TYPE_DNSKEY */
	uint16_t type;
	/** RDATA (malloc'd); a DNSKEY as last seen (REVOKE bit included) */
	uint8_t *rdata;
	/** RDATA length */
	uint16_t len;
	/** TTL to write */
	uint32_t ttl;
	/** enum val_autr_state */
	int state;
	/** probes it was seen in while ADDPEND */
	unsigned pending_count;
	/** when the state last changed */
	uint32_t last_change;
	/** next in the point's list */
	struct val_autr_key *next;
};

/** one auto-trust-anchor point */
struct val_autr_point {
	/** owner name, wire */
	uint8_t name[256];
	/** class */
	uint16_t dclass;
	/** the keys */
	struct val_autr_key *keys;
	/** last probe time */
	uint32_t last_queried;
	/** last probe that validated */
	uint32_t last_success;
	/** when to probe next */
	uint32_t next_probe_time;
	/** failed probes in a row */
	unsigned query_failed;
	/** seconds between probes */
	uint32_t query_interval;
	/** seconds between retries after a failure */
	uint32_t retry_time;
	/** the file had ";;REVOKED": the point was revoked for good */
	int revoked;
	/** fetches again of the probe under way whose DNSKEY set did not
	 * validate (val-max-restart bounds them); not in the file */
	unsigned probe_restarts;
};

/** the RFC 5011 settings */
struct val_autr_cfg {
	/** add-holddown, seconds */
	uint32_t add_holddown;
	/** del-holddown, seconds */
	uint32_t del_holddown;
	/** keep-missing, seconds; 0 keeps missing keys for ever */
	uint32_t keep_missing;
	/** permit-small-holddown: no one-hour floor on the timers */
	int permit_small_holddown;
};

/** fill in Unbound's defaults */
void val_autr_cfg_init(struct val_autr_cfg *cfg);

/** @return a static name of a state ("VALID", ...) */
const char *val_autr_state_str(int s);

/**
 * Make an empty trust point.
 * @param name: owner (wire). @param dclass: class.
 * @return the point or NULL (out of memory). Free with val_autr_free.
 */
struct val_autr_point *val_autr_create(const uint8_t *name, uint16_t dclass);

/** free a point and its keys */
void val_autr_free(struct val_autr_point *tp);

/**
 * Add a key (reading a file or a config line), at the head of the list
 * (as Unbound: the file lists new keys first).
 * @return the key or NULL (out of memory).
 */
struct val_autr_key *val_autr_add_key(struct val_autr_point *tp,
	uint16_t type, const uint8_t *rdata, size_t len, uint32_t ttl,
	int state, unsigned count, uint32_t last_change);

/**
 * Is a key trusted now (a DS anchor, or a VALID or MISSING DNSKEY)?
 */
int val_autr_key_trusted(const struct val_autr_key *k);

/** @return the number of trusted DNSKEYs and DS of the point */
size_t val_autr_num_trusted(const struct val_autr_point *tp);

/**
 * Run the state machine for one probe.
 * @param tp: the trust point, updated in place.
 * @param cfg: the settings.
 * @param keys: the DNSKEY RDATA of the set fetched (uncompressed), nkeys.
 * @param revoke_signed: per key of keys, 1 when it has the REVOKE bit and
 *	its own signature over the DNSKEY set verified (the caller checks
 *	it with val_verify_rrsig_key: a revoked key may sign its own
 *	set), or NULL for none.
 * @param validated: 1 when the set validated with a key or DS the point
 *	trusts; 0 when the probe failed (then only the failure is counted).
 * @param ds_validated: 1 when that validation used a DS anchor (keys
 *	matching it become VALID at once).
 * @param now: the time.
 * @return 1 when something changed (the file must be written), 0 if
 *	not, -1 when out of memory.
 */
int val_autr_update(struct val_autr_point *tp, const struct val_autr_cfg *cfg,
	const struct val_rr *keys, size_t nkeys, const int *revoke_signed,
	int validated, int ds_validated, uint32_t now);

/**
 * Time alone: the ADDPEND keys seen in enough probes whose add-holddown
 * has passed become VALID. Run before a probe's set is checked, so that
 * such a key may already sign it (as Unbound does).
 * @return 1 when a key changed, else 0.
 */
int val_autr_holddown(struct val_autr_point *tp,
	const struct val_autr_cfg *cfg, uint32_t now);

/**
 * Update the probe timers after a probe (Unbound's formulas).
 * @param tp: the point.
 * @param cfg: the settings (permit_small_holddown).
 * @param ttl: the DNSKEY set's original TTL.
 * @param sig_lifetime: seconds from now to the earliest RRSIG expiry.
 * @param ok: the probe validated.
 * @param now: the time.
 * @return the seconds to wait until the next probe (before jitter).
 */
uint32_t val_autr_set_times(struct val_autr_point *tp,
	const struct val_autr_cfg *cfg, uint32_t ttl, uint32_t sig_lifetime,
	int ok, uint32_t now);

/**
 * Read an auto-trust-anchor-file. Every ";;id:" starts a point; RR lines
 * before the first one start a point at their owner.
 * @param path: the file.
 * @param out: the points read (array, malloc'd), *nout of them; free
 *	each with val_autr_free and the array with free.
 * @param err: error text ("file:line: what"), errlen its size.
 * @return 0 or -1.
 */
int val_autr_read_file(const char *path, struct val_autr_point ***out,
	size_t *nout, char *err, size_t errlen);

/**
 * Write a point to its file atomically (temporary file + rename).
 * @param tp: the point. @param path: the file. @param now: for the
 *	comments only.
 * @param err: error text, errlen its size.
 * @return 0 or -1.
 */
int val_autr_write_file(const struct val_autr_point *tp, const char *path,
	char *err, size_t errlen);

#endif /* VALIDATOR_VAL_AUTOTRUST_H */
