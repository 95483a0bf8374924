/*
 * services/rpz.h - response policy zones (RPZ): the rules of one rpz:
 * clause, built into an immutable snapshot that workers read without locks.
 *
 * A response policy zone is an ordinary zone whose owner names encode
 * triggers and whose records encode actions (the RPZ draft,
 * draft-vixie-dnsop-dns-rpz, as BIND and Unbound read it). Below the
 * zone's origin:
 *
 *   name.            QNAME trigger for exactly name
 *   *.name.          QNAME trigger for every name strictly below name
 *   P.B4.B3.B2.B1.rpz-client-ip.   CLIENT-IP trigger: netblock B1.B2.B3.B4/P
 *   P.W8.W7....rpz-client-ip.      the same for IPv6 (16-bit words in
 *                    reverse, "zz" for the "::" run)
 *   P.B4...rpz-ip.   RESPONSE-IP trigger (an address in the answer)
 *   name.rpz-nsdname., *.name.rpz-nsdname.   NSDNAME trigger: a name
 *                    server name of the delegation (exact, or below name)
 *   P...rpz-nsip.    NSIP trigger: a name server address (both looked up
 *                    by the iterator through front/policy.c)
 *
 * and the records at a trigger say what to do:
 *
 *   CNAME .               NXDOMAIN
 *   CNAME *.              NODATA
 *   CNAME rpz-passthru.   PASSTHRU: answer normally, stop looking at the
 *                         later zones
 *   CNAME rpz-drop.       DROP: no answer
 *   CNAME rpz-tcp-only.   TCP-ONLY: over UDP answer TC, over TCP normally
 *   CNAME other.name.     a CNAME redirect (local data)
 *   any other records     local data: the records of the question's type
 *                         answer it (owner = the question name), NODATA
 *                         when there are none of that type
 *
 * Snapshots and the update API: all the rules of a zone live in one
 * struct rpz_snap, built off to the side from a list of records (a zone
 * file read with ldns, or a transfer) and never changed after. The rpz
 * holds a pointer to its current snapshot; rpz_zone_apply() builds a new
 * one and swaps the pointer with an atomic exchange, so a worker that is
 * looking a query up keeps the old one until it is done and never waits.
 * The old snapshot is retired with a QSBR tag (util/storage/qsbr.h) and
 * freed by a later swap or rpz_reclaim() once every worker has passed a
 * quiescent state (workers hold no snapshot pointer across events), or at
 * rpz_delete(). A config reload builds new rpz objects while the workers
 * are paused, as for local zones. rpz_zone_update() applies a difference
 * (the records an IXFR deletes and adds) by building a new snapshot from
 * the current one: the zone transfer client (services/xfr.h, another
 * issue) feeds either call.
 *
 * Lookup: QNAME triggers are an open-addressing hash table of the trigger
 * names (lower-case wire format, origin removed), wildcards in a second
 * table, probed for each parent of the question name (only when the zone
 * has wildcards, and only for parents with as many labels as some
 * wildcard). IP triggers are arrays of netblocks, longest prefix first.
 * A lookup allocates nothing, locks nothing and logs nothing.
 */
#ifndef SERVICES_RPZ_H
#define SERVICES_RPZ_H

#include <stdint.h>
#include <stddef.h>
#include "dns/dns.h"

struct netaddr;
struct rpz_snap;

/** what a trigger does */
enum rpz_action {
	/** no rule, or rpz-action-override: disabled */
	RPZ_ACTION_NONE = 0,
	/** NXDOMAIN */
	RPZ_ACTION_NXDOMAIN,
	/** NOERROR, no answer */
	RPZ_ACTION_NODATA,
	/** answer normally and stop looking at later zones */
	RPZ_ACTION_PASSTHRU,
	/** send nothing */
	RPZ_ACTION_DROP,
	/** TC over UDP, normal over TCP */
	RPZ_ACTION_TCP_ONLY,
	/** answer from the rule's records (a CNAME redirect included) */
	RPZ_ACTION_LOCAL_DATA,
	/** rpz-action-override: cname: a CNAME to rpz-cname-override */
	RPZ_ACTION_CNAME,
	/** rpz-action-override: disabled (the zone only logs) */
	RPZ_ACTION_DISABLED
};

/** the kinds of triggers */
enum rpz_trigger {
	/** the question name */
	RPZ_TRIGGER_QNAME = 0,
	/** the client's address */
	RPZ_TRIGGER_CLIENT_IP,
	/** an address in the answer */
	RPZ_TRIGGER_RESPONSE_IP,
	/** a name server name of the delegation */
	RPZ_TRIGGER_NSDNAME,
	/** a name server address */
	RPZ_TRIGGER_NSIP,
	/** how many kinds */
	RPZ_TRIGGER_NUM
};

/** one record fed to a snapshot build */
struct rpz_rr {
	/** owner, uncompressed wire format, absolute (any case) */
	const uint8_t *owner;
	/** RR type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** TTL */
	uint32_t ttl;
	/** uncompressed RDATA */
	const uint8_t *rdata;
	/** its length */
	uint16_t rdlen;
};

/** a rule found by a lookup (pointers into the snapshot) */
struct rpz_match {
	/** the action (after rpz-action-override) */
	enum rpz_action action;
	/** the trigger kind that matched */
	enum rpz_trigger trigger;
	/** 1 when the rule was a wildcard (local data owner = qname) */
	int wildcard;
	/** the snapshot (for rpz_match_data) */
	const struct rpz_snap *snap;
	/** the rule's index in the snapshot */
	uint32_t rule;
};

/** settings of one rpz: clause */
struct rpz_settings {
	/** rpz-action-override (RPZ_ACTION_NONE: the zone's own) */
	enum rpz_action action_override;
	/** rpz-cname-override target (wire), when override is CNAME */
	uint8_t cname_override[DNS_MAX_NAME];
	/** rpz-log */
	int log;
	/** rpz-log-name, "" for the zone name */
	char log_name[256];
	/** rpz-signal-nxdomain-ra */
	int signal_nxdomain_ra;
};

/** one response policy zone (an rpz: clause) */
struct rpz;

/**
 * Create a zone with no rules.
 * @param origin: the zone name, wire format.
 * @param set: its settings (copied).
 * @return it, or NULL when out of memory. Free with rpz_delete().
 */
struct rpz *rpz_create(const uint8_t *origin, const struct rpz_settings *set);

/** Free a zone, its snapshot and its retired snapshots. NULL is allowed. */
void rpz_delete(struct rpz *z);

/** @return the zone's origin (wire). */
const uint8_t *rpz_origin(const struct rpz *z);

/** @return the zone's settings. */
const struct rpz_settings *rpz_get_settings(const struct rpz *z);

/**
 * Replace the zone's rules: build a snapshot from the records (those not
 * below the origin are skipped with a warning; SOA and NS at the origin
 * are kept aside) and swap it in. Workers never wait.
 * @param z: the zone.
 * @param rrs: the records, n of them.
 * @param err: the reason on failure; errlen its size.
 * @return 0, or -1 (out of memory, a record too big); the old rules stay.
 */
int rpz_zone_apply(struct rpz *z, const struct rpz_rr *rrs, size_t n,
	char *err, size_t errlen);

/**
 * Apply a difference (IXFR): a new snapshot holding the current records
 * minus del plus add (a record is deleted when owner, type, class and
 * RDATA are equal), swapped in as rpz_zone_apply() does.
 * @return 0 or -1 (err filled; the old rules stay).
 */
int rpz_zone_update(struct rpz *z, const struct rpz_rr *del, size_t ndel,
	const struct rpz_rr *add, size_t nadd, char *err, size_t errlen);

/**
 * Read a zone file (ldns; $ORIGIN defaults to the zone name) and apply it.
 * @return 0, or -1 with err "file:line: reason".
 */
int rpz_load_file(struct rpz *z, const char *file, char *err,
	size_t errlen);

/** Free the retired snapshots no worker can see any more (QSBR). */
void rpz_reclaim(struct rpz *z);

/** Switch the zone on or off (rpz_enable / rpz_disable); atomic. */
void rpz_set_enabled(struct rpz *z, int on);

/** @return 1 when the zone is enabled */
int rpz_is_enabled(const struct rpz *z);

/** @return the number of rules of a trigger kind in the current rules */
size_t rpz_count(const struct rpz *z, enum rpz_trigger t);

/**
 * Look up the QNAME and CLIENT-IP triggers of an enabled zone (client IP
 * first, as the RPZ precedence says). Read-only, no locks.
 * @param z: the zone.
 * @param qname: lower-case wire name.
 * @param client: the client address, or NULL.
 * @param m: filled when found.
 * @return 1 when a rule matched, else 0.
 */
int rpz_lookup_query(const struct rpz *z, const uint8_t *qname,
	const struct netaddr *client, struct rpz_match *m);

/**
 * Look up an address in the RESPONSE-IP triggers.
 * @param addr: 4 or 16 bytes; len: 4 or 16.
 * @return 1 when a rule matched (m filled), else 0.
 */
int rpz_lookup_ip(const struct rpz *z, const uint8_t *addr, size_t len,
	struct rpz_match *m);

struct dns_addr_hit;

/**
 * The RESPONSE-IP triggers on an answer: the first A or AAAA record of
 * its answer section (dns_addr_scan, dns/addrscan.h) whose address a
 * trigger holds.
 * @param ans: the answer packet; len its length.
 * @param m: filled when found; hit: the record it was found at.
 * @return 1 when a rule matched, else 0.
 */
int rpz_lookup_answer(const struct rpz *z, const uint8_t *ans, size_t len,
	struct rpz_match *m, struct dns_addr_hit *hit);

/**
 * Look up a name server name in the NSDNAME triggers (exact, then the
 * closest "*." rule above it).
 * @param nsname: wire name (any case).
 * @return 1 when a rule matched (m filled), else 0.
 */
int rpz_lookup_nsdname(const struct rpz *z, const uint8_t *nsname,
	struct rpz_match *m);

/**
 * Look up a name server address in the NSIP triggers.
 * @param addr: 4 or 16 bytes; len: 4 or 16.
 * @return 1 when a rule matched (m filled), else 0.
 */
int rpz_lookup_nsip(const struct rpz *z, const uint8_t *addr, size_t len,
	struct rpz_match *m);

/**
 * Called for each record of a matched local-data rule.
 * @return 0 to go on, 1 to stop.
 */
typedef int (*rpz_data_cb)(void *arg, uint16_t type, uint16_t rrclass,
	uint32_t ttl, const uint8_t *rdata, size_t rdlen);

/** Visit the records of a matched rule (local data). */
void rpz_match_data(const struct rpz_match *m, rpz_data_cb cb, void *arg);

/** @return the SOA of the zone (wire RDATA) and its TTL, or NULL */
const uint8_t *rpz_soa(const struct rpz_match *m, size_t *rdlen,
	uint32_t *ttl);

/** @return the word for an action ("nxdomain", "local-data", ...) */
const char *rpz_action_str(enum rpz_action a);

/**
 * Parse an rpz-action-override word.
 * @return the action, or -1 for an unknown word.
 */
int rpz_action_from_str(const char *s);

#endif /* SERVICES_RPZ_H */
