/*
 * front/localzone.h - local zones, local data and CHAOS identity answers.
 *
 * Local zones answer a question from configured data (local-data,
 * local-data-ptr) or by policy (the local-zone type) before the cache and
 * recursion are consulted. The types and their answers follow Unbound's
 * unbound.conf(5):
 *
 *   static            local data, else NODATA/NXDOMAIN (with the zone's
 *                     SOA when the apex has one)
 *   transparent       local data, NODATA for a name that has local data
 *                     of other types, else resolve normally
 *   typetransparent   local data, else resolve normally
 *   redirect          the apex data answers the apex and every name below
 *                     (a CNAME there is an alias: see local_alias below)
 *   inform            as transparent, and the client address is logged
 *   inform_deny       as deny, and logged
 *   inform_redirect   as redirect, and logged
 *   deny              local data, else drop the query
 *   refuse            local data, else REFUSED
 *   always_transparent, always_refuse, always_nxdomain, always_nodata,
 *   always_deny       ignore the local data and resolve / refuse /
 *                     NXDOMAIN / NODATA / drop
 *   always_null       0.0.0.0 for A, :: for AAAA, NODATA otherwise
 *   block_a           NODATA for A questions, the rest resolved normally
 *                     (local data ignored); block_aaaa the same for AAAA
 *   block_a_wdata     as block_a, but the local data of the zone answers
 *                     first; block_aaaa_wdata the same for AAAA
 *   noview            in a view: the global zones answer; elsewhere
 *                     as transparent
 *   nodefault         no zone at all: only switches off a default zone
 *
 * Local data whose name no zone covers makes an implicit transparent
 * zone at the closest common ancestor of all such names (per class), as
 * Unbound does. The default zones are Unbound's (localhost, the loopback
 * reverse zones, home.arpa, onion, test, invalid and the AS112 reverse
 * zones of RFC 6303); a local-zone of the same name (any type, nodefault
 * included) replaces one. A DS question is looked up in the zone above
 * its name (the DS lives in the parent), again as Unbound does.
 *
 * Answers are authoritative (AA), echo the client's ID, RD, CD and the
 * question's letter case, and carry an OPT record (our UDP size, DO
 * echoed) when the query had one. Negative answers carry the zone's SOA
 * with the TTL lowered to the SOA minimum.
 *
 * CHAOS class TXT (or ANY) questions for id.server and hostname.bind
 * (the identity) and version.server and version.bind (the version) are
 * answered before local zones, TTL 0, unless hide-identity / hide-version
 * is set; then the question falls through to the local zones and, when
 * nothing local answers it, is REFUSED like any question in a class other
 * than IN and ANY (Unbound's behaviour).
 *
 * Lifecycle and threads: local_zones_create(), then the add functions in
 * any order (or local_zones_apply_cfg()), then local_zones_finish(). All
 * presentation-format parsing (ldns) and all allocation happen there.
 * After local_zones_finish() the structure is immutable: any number of
 * workers call local_zones_answer() / local_front_answer() on it without
 * locks. A reload builds a new one and swaps the pointer while workers
 * are paused. Answering allocates nothing and locks nothing; only the
 * inform types log.
 *
 * Lookup: every zone apex, every name that has local data (and the empty
 * non-terminals above them) and every strict ancestor of a zone apex is
 * one entry of an open-addressing hash table keyed on (class, lower-case
 * wire name). The closest enclosing zone is found by walking the query
 * name's suffixes from the root down, one probe per label, stopping at
 * the first suffix that is not the ancestor of any zone; for an ordinary
 * name outside every local zone that is one probe.
 */
#ifndef FRONT_LOCALZONE_H
#define FRONT_LOCALZONE_H

#include <stdint.h>
#include <stddef.h>
#include "dns/dns.h"
#include "util/config_file.h"

struct local_zones;
struct acl_list;
struct fast_query;
struct netaddr;

/** local-zone types (Unbound's words, see the file comment) */
enum local_zone_type {
	/** no type: used for "not found" */
	LOCAL_ZONE_UNSET = 0,
	/** local data, else drop */
	LOCAL_ZONE_DENY,
	/** local data, else REFUSED */
	LOCAL_ZONE_REFUSE,
	/** local data, else NODATA / NXDOMAIN */
	LOCAL_ZONE_STATIC,
	/** local data, NODATA for names with data, else resolve */
	LOCAL_ZONE_TRANSPARENT,
	/** local data, else resolve */
	LOCAL_ZONE_TYPETRANSPARENT,
	/** the apex data answers every name in the zone */
	LOCAL_ZONE_REDIRECT,
	/** transparent, and log the client */
	LOCAL_ZONE_INFORM,
	/** deny, and log the client */
	LOCAL_ZONE_INFORM_DENY,
	/** redirect, and log the client */
	LOCAL_ZONE_INFORM_REDIRECT,
	/** ignore local data, resolve */
	LOCAL_ZONE_ALWAYS_TRANSPARENT,
	/** ignore local data, REFUSED */
	LOCAL_ZONE_ALWAYS_REFUSE,
	/** ignore local data, NXDOMAIN */
	LOCAL_ZONE_ALWAYS_NXDOMAIN,
	/** ignore local data, NODATA */
	LOCAL_ZONE_ALWAYS_NODATA,
	/** ignore local data, drop */
	LOCAL_ZONE_ALWAYS_DENY,
	/** 0.0.0.0 / :: for every name */
	LOCAL_ZONE_ALWAYS_NULL,
	/** no zone; switches off the default zone of that name */
	LOCAL_ZONE_NODEFAULT,
	/** NODATA for A, else resolve */
	LOCAL_ZONE_BLOCK_A,
	/** NODATA for AAAA, else resolve */
	LOCAL_ZONE_BLOCK_AAAA,
	/** leave a view for the global zones; without views: transparent */
	LOCAL_ZONE_NOVIEW,
	/** the local data, else NODATA for A, else resolve */
	LOCAL_ZONE_BLOCK_A_WDATA,
	/** the local data, else NODATA for AAAA, else resolve */
	LOCAL_ZONE_BLOCK_AAAA_WDATA
};

/** what local_zones_answer() did */
enum local_zone_answer {
	/** nothing local: go on to the cache and recursion */
	LOCAL_ZONE_NOT_LOCAL = 0,
	/** an answer was written into the caller's buffer */
	LOCAL_ZONE_ANSWERED,
	/** drop the query, send nothing */
	LOCAL_ZONE_DROP
};

/**
 * A CNAME alias from a redirect zone (Unbound's "local alias"). When
 * local_zones_answer() returns LOCAL_ZONE_ANSWERED with present set, the
 * answer in the buffer is complete and valid (the CNAME, owner = the
 * question name), and a resolver that can chase it may instead resolve
 * target and send the CNAME followed by that answer, as Unbound does
 * (front/resolver.c does; policy_front_answer() sets the alias for an
 * RPZ CNAME rule too).
 */
struct local_alias {
	/** 1 when the answer is a redirect-zone CNAME alias */
	int present;
	/** the CNAME target, uncompressed wire format */
	uint8_t target[DNS_MAX_NAME];
	/** its length */
	size_t target_len;
	/** TTL of the CNAME */
	uint32_t ttl;
};

/**
 * Create an empty local-zones structure (no defaults yet: they are added
 * by local_zones_finish()).
 * @return it, or NULL when out of memory. Free with local_zones_delete().
 */
struct local_zones *local_zones_create(void);

/** Free a local-zones structure and all its data. NULL is allowed. */
void local_zones_delete(struct local_zones *lz);

/**
 * Parse a local-zone type word ("static", "always_nxdomain", ...).
 * @return the type, or LOCAL_ZONE_UNSET for an unknown word.
 */
enum local_zone_type local_zone_type_from_str(const char *s);

/** @return the word for a type (a static string). */
const char *local_zone_type_str(enum local_zone_type t);

/**
 * Add a local-zone: line. Before local_zones_finish() only.
 * A zone given twice keeps the first type (a warning is logged).
 * @param lz: the structure.
 * @param name: the zone name, presentation format ("example.com",
 *	"example.com.", "." for the root).
 * @param type: the type word.
 * @param err: on failure a reason is written here; may be NULL.
 * @param errlen: size of err.
 * @return 0 or -1.
 */
int local_zones_add_zone(struct local_zones *lz, const char *name,
	const char *type, char *err, size_t errlen);

/**
 * Add a local-data: RR in presentation format (parsed with ldns; default
 * TTL 3600, default class IN, names absolute). Before
 * local_zones_finish() only.
 * @return 0, or -1 on a parse error (err filled).
 */
int local_zones_add_data(struct local_zones *lz, const char *rr,
	char *err, size_t errlen);

/**
 * Add a local-data-ptr: "address name" or "address ttl name" line; the
 * PTR goes at the reverse name (in-addr.arpa or ip6.arpa nibbles).
 * @return 0, or -1 on a parse error (err filled).
 */
int local_zones_add_data_ptr(struct local_zones *lz, const char *str,
	char *err, size_t errlen);

/**
 * Set the CHAOS identity answers. Before local_zones_finish() only.
 * @param hide_identity: 1 to not answer id.server and hostname.bind.
 * @param hide_version: 1 to not answer version.server and version.bind.
 * @param identity: identity string; NULL or "" for the host name.
 * @param version: version string; NULL or "" for "petrel VERSION".
 * @return 0, or -1 when out of memory.
 */
int local_zones_set_chaos(struct local_zones *lz, int hide_identity,
	int hide_version, const char *identity, const char *version);

/**
 * Set the EDNS sizes. Defaults: edns_size 1232, max_udp 1232.
 * @param edns_size: UDP payload size put in our OPT records
 *	(edns-buffer-size).
 * @param max_udp: the largest UDP answer sent (max-udp-size).
 */
void local_zones_set_edns(struct local_zones *lz, uint16_t edns_size,
	uint16_t max_udp);

/**
 * Leave out the AS112 default zones (Unbound's unblock-lan-zones).
 * @param unblock: 1 to leave them out.
 */
void local_zones_set_unblock_lan(struct local_zones *lz, int unblock);

/**
 * log-local-actions: log a line (the inform zones' line: zone, type,
 * client, question) for every query a local zone handles, of any type.
 * @param on: 1 to log.
 */
void local_zones_set_log_actions(struct local_zones *lz, int on);

/**
 * ede: with on 0, the zones' answers carry no Extended DNS Error
 * (blocked, filtered, ...). Before local_zones_finish.
 */
void local_zones_set_ede(struct local_zones *lz, int on);

/**
 * Finish: add the default zones not switched off, make the implicit zones,
 * put every RR in its zone and build the lookup table. After this the
 * structure is read-only.
 * @return 0, or -1 with err filled (a CNAME next to other data in a
 *	redirect zone, out of memory).
 */
int local_zones_finish(struct local_zones *lz, char *err, size_t errlen);

/**
 * Fill from a config (local-zone, local-data, local-data-ptr,
 * hide-identity, hide-version, identity, version, edns-buffer-size,
 * max-udp-size) and finish.
 * @param lz: fresh from local_zones_create().
 * @param cfg: the config (not kept).
 * @return 0, or -1 with err filled.
 */
int local_zones_apply_cfg(struct local_zones *lz, const struct config_file *cfg,
	char *err, size_t errlen);

/**
 * Answer a query from local zones (and CHAOS identity) if they cover it.
 * Read-only, no locks, no allocation.
 * @param lz: a finished structure.
 * @param pkt: the query packet.
 * @param pktlen: its length.
 * @param fq: dns_query_parse_fast() of it (must have succeeded; opcode
 *	QUERY; EDNS version 0: the caller answers BADVERS before).
 * @param client: client address, for the inform types' log line; may be
 *	NULL.
 * @param tcp: 1 for a stream transport (no UDP size limit).
 * @param out: buffer for the answer.
 * @param outmax: its size (at least 512).
 * @param outlen: length of the answer, set when ANSWERED.
 * @param alias: may be NULL; see struct local_alias.
 * @return LOCAL_ZONE_NOT_LOCAL, LOCAL_ZONE_ANSWERED or LOCAL_ZONE_DROP.
 */
enum local_zone_answer local_zones_answer(const struct local_zones *lz,
	const uint8_t *pkt, size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias);

/**
 * The tags of a client (front/policy.h: access-control-tag,
 * interface-tag and their -action and -data lines). A zone with
 * local-zone-tag tags is seen only by clients with one of them; for such
 * a client the action of its lowest matching tag replaces the zone's
 * type, and for a redirect the tag's data replaces the zone's data
 * (Unbound's rules). Owned by the policy, read-only.
 */
struct local_tags {
	/** the tag bits (bit i: tag i of define-tag) */
	uint64_t tags;
	/** per tag, a local-zone type or LOCAL_ZONE_UNSET; NULL for none
	 * (CONFIG_MAX_TAGS entries) */
	const uint8_t *action;
	/** per tag, the data: a finished local_zones with one redirect
	 * zone at the root holding the records; NULL entries or NULL */
	struct local_zones *const *data;
};

/**
 * Mark a zone added with local_zones_add_zone() as seen only by clients
 * with one of the tags (local-zone-tag). Before local_zones_finish().
 * @return 0, or -1 (no such zone) with err filled.
 */
int local_zones_set_zone_tags(struct local_zones *lz, const char *name,
	uint64_t tags, char *err, size_t errlen);

/**
 * local-zone-override: clients in the netblock see the zone (added with
 * local_zones_add_zone()) as this type, whatever its own type, tags or
 * views say (the longest matching netblock wins). Before
 * local_zones_finish().
 * @return 0, or -1 (no such zone, a bad netblock or type) with err
 *	filled.
 */
int local_zones_set_zone_override(struct local_zones *lz, const char *name,
	const char *netblock, const char *type, char *err, size_t errlen);

/**
 * As local_zones_answer(), for a client with tags (see struct
 * local_tags); ct NULL is a client without tags (tagged zones are then
 * not there).
 */
enum local_zone_answer local_zones_answer_tags(const struct local_zones *lz,
	const uint8_t *pkt, size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias, const struct local_tags *ct);

struct dns_builder;

/**
 * Data zones (the -data options: a local_zones whose only zone is a
 * redirect zone at the root holding the records): is there an RRset of
 * the type (or a CNAME) at the apex.
 * @param d: a finished data zone, or NULL (then 0).
 * @return 1 or 0.
 */
int local_zones_has_apex_data(const struct local_zones *d, uint16_t type);

/**
 * Put the apex RRset of the type (or the CNAME) of a data zone in the
 * answer section of a message being built, with the given owner.
 * @return 1 when put (or truncated), 0 when there is none.
 */
int local_zones_put_apex_data(const struct local_zones *d,
	struct dns_builder *b, const uint8_t *owner, uint16_t type);

/** what local_front_answer() decided */
enum local_front_result {
	/** go on to the cache and recursion */
	LOCAL_FRONT_CONTINUE = 0,
	/** an answer is in the caller's buffer; send it */
	LOCAL_FRONT_ANSWERED,
	/** drop the query */
	LOCAL_FRONT_DROP
};

/** details from local_front_answer() */
struct local_front_info {
	/** the client's access-control action */
	enum config_acl_action action;
	/** 1 when the query is to be resolved as if RD were set even though
	 * it was not (allow_setrd): the reply must then carry RD */
	int set_rd;
	/** the redirect alias, when ANSWERED with one */
	struct local_alias alias;
	/** 1 when an RPZ rule said passthru (CONTINUE): the answer is not
	 * shown to RESPONSE-IP rules either (services/policy.c) */
	int rpz_passthru;
};

/**
 * The whole local front end of a query, in Unbound's order: access
 * control (deny drops, refuse answers REFUSED + EDE 18), CHAOS identity,
 * local zones, the *_non_local actions (drop / REFUSED + EDE 18 for what
 * local data did not answer), the RD rule (no RD and not allow_snoop or
 * allow_setrd: REFUSED with RA and EDE 20), and REFUSED for classes other
 * than IN and ANY. LOCAL_FRONT_CONTINUE means: look in the cache and
 * resolve. Read-only, no locks, no allocation.
 * @param acl: finished access-control list (NULL: the default list).
 * @param lz: finished local zones (NULL: none, and no CHAOS answers).
 * Other parameters as local_zones_answer(); client must not be NULL.
 * @param info: filled in (may be NULL).
 */
enum local_front_result local_front_answer(const struct acl_list *acl,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info);

/**
 * As local_front_answer, but a query without RD continues (instead of the
 * RD rule's REFUSED) when norec_ok is set: the caller answers it itself
 * (an auth-zone for-downstream covers the name).
 */
enum local_front_result local_front_answer_norec(const struct acl_list *acl,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, int norec_ok);

/**
 * As local_front_answer(), for a client in a view (front/policy.h):
 * the view's local zones answer first; when none of them covers the
 * question, the global zones answer it if view_first is set or the view's
 * zone there is of type noview, else the question goes on to the cache.
 * @param vlz: the view's finished local zones, or NULL for no view (then
 *	this is local_front_answer()).
 * @param view_first: the view's view-first: setting.
 * @param norec_ok: a query without RD goes on instead of REFUSED (an
 *	auth-zone for-downstream answers it), as local_front_answer_norec().
 * Other parameters and the result as local_front_answer().
 */
enum local_front_result local_front_answer_view(const struct acl_list *acl,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, int norec_ok);

/**
 * As local_front_answer_view(), with the client's access-control action
 * already looked up (acl_check_ref()) and its tags (the global zones see
 * them; a view's zones have no tags).
 * @param ct: the client's tags, or NULL.
 * @param norec_ok: as for local_front_answer_view().
 */
enum local_front_result local_front_answer_tags(enum config_acl_action action,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, const struct local_tags *ct,
	int norec_ok);

/**
 * Find the zone that covers a name (for tests, tools and the control
 * channel).
 * @param lz: finished structure.
 * @param name: uncompressed wire name (any case).
 * @param qtype: the question type (DS looks in the parent).
 * @param qclass: the class.
 * @param zname: when not NULL and a zone is found, its name (wire, lower
 *	case) is copied here (DNS_MAX_NAME bytes).
 * @return the zone's type, or LOCAL_ZONE_UNSET when no zone covers it.
 */
enum local_zone_type local_zones_lookup(const struct local_zones *lz,
	const uint8_t *name, uint16_t qtype, uint16_t qclass, uint8_t *zname);

/** @return number of zones (defaults and implicit zones included). */
size_t local_zones_count(const struct local_zones *lz);

/**
 * Called once per zone by local_zones_walk().
 * @param arg: the caller's argument.
 * @param name: the apex, lower-case wire format (valid during the call).
 * @param rrclass: the class.
 * @param type: the zone type.
 */
typedef void (*local_zones_walk_cb)(void *arg, const uint8_t *name,
	uint16_t rrclass, enum local_zone_type type);

/**
 * Visit every zone (user zones, defaults and implicit zones), in the
 * order they were made (for list_local_zones). Read-only.
 */
void local_zones_walk(const struct local_zones *lz, local_zones_walk_cb cb,
	void *arg);

/**
 * Called once per RR by local_data_walk().
 * @param arg: the caller's argument.
 * @param zone: the apex of the zone the RR belongs to (wire, lower case).
 * @param owner: the owner name (wire, lower case).
 * @param type: RR type.
 * @param rrclass: RR class.
 * @param ttl: TTL.
 * @param rdata: uncompressed RDATA (rdlen bytes); all pointers are valid
 *	during the call only.
 */
typedef void (*local_data_walk_cb)(void *arg, const uint8_t *zone,
	const uint8_t *owner, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen);

/**
 * Visit every RR of local data (defaults included), for list_local_data.
 * The order is unspecified. Read-only.
 */
void local_data_walk(const struct local_zones *lz, local_data_walk_cb cb,
	void *arg);

#endif /* FRONT_LOCALZONE_H */
