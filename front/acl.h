/*
 * front/acl.h - access control: which clients may ask what.
 *
 * An acl_list maps netblocks to the access-control actions of Unbound
 * (enum config_acl_action in util/config_file.h): deny, refuse, allow,
 * allow_setrd, allow_snoop, deny_non_local, refuse_non_local,
 * allow_cookie. A client
 * address gets the action of the most specific (longest prefix) netblock
 * that contains it; the order of the lines does not matter. An address
 * that no netblock contains is refused.
 *
 * Like Unbound, 127.0.0.0/8, ::1 and ::ffff:127.0.0.1 are always allowed
 * unless a line names exactly that netblock, so the default with no
 * access-control lines is "localhost may ask, everybody else is refused".
 * IPv4-mapped IPv6 addresses are matched as IPv6 (as Unbound does).
 *
 * interface-action (Unbound 1.16+): a client address that no netblock
 * contains gets the action of the listening point the query came in on
 * (its bound address and port, as the interface: line made it; an
 * interface name stands for each of its addresses), refuse when no
 * interface-action names that point. access-control lines, the
 * localhost defaults included, thus win over interface-action. The list
 * keeps, for each action an interface-action line names, a variant that
 * shares its lookup arrays and differs only in what a miss gets
 * (acl_for_interface()): the worker picks the variant of a listening
 * point once, at start, and a check costs what it costs without it.
 *
 * Lifecycle: acl_create(), acl_add()/acl_add_str() any number of times
 * (or acl_apply_cfg() for the whole config), then acl_finish(). After
 * acl_finish() the list is immutable: workers call acl_check() on it
 * concurrently without locks. A reload builds a new list and swaps the
 * pointer while the workers are paused.
 *
 * Lookup: per address family, one sorted array of masked prefixes for
 * each prefix length in use, tried from the longest length down with a
 * binary search each. Configurations use a handful of distinct prefix
 * lengths, so a check costs a few binary searches over small arrays; it
 * allocates nothing, locks nothing and logs nothing.
 *
 * What the actions mean for one query (the order Unbound uses, which
 * local_front_answer() in front/localzone.h implements):
 *   1. deny: drop. refuse: REFUSED (QR, RD/CD echoed, no RA); without
 *      EDNS a bare header (as Unbound), with EDNS the question and EDE 18
 *      Prohibited (acl_refused_reply()).
 *   2. CHAOS identity and local zones answer as for any client.
 *   3. deny_non_local / refuse_non_local: what local data did not answer is
 *      dropped / refused (EDE 18).
 *   4. a query without RD is refused (EDE 20 Not Authoritative, RA set)
 *      unless the action is allow_snoop; allow_setrd treats it as if RD
 *      were set.
 *   0. (before all that, in the front end, front/resolver.c)
 *      allow_cookie: over UDP a query without a valid DNS cookie gets
 *      BADCOOKIE with a fresh cookie, or REFUSED with TC (EDE 0) when it
 *      had no cookie at all; otherwise it is allow.
 */
#ifndef FRONT_ACL_H
#define FRONT_ACL_H

#include <stddef.h>
#include <stdint.h>
#include "util/config_file.h"

struct acl_list;
struct netaddr;
struct netblock;

/**
 * Create an empty access-control list.
 * @return the list, or NULL when out of memory. Free with acl_delete().
 */
struct acl_list *acl_create(void);

/** Free an access-control list and everything in it. NULL is allowed. */
void acl_delete(struct acl_list *acl);

/**
 * Add one netblock with its action. Before acl_finish() only.
 * A netblock given twice keeps the first action, and a warning is logged
 * (Unbound's rule).
 * @param acl: the list.
 * @param nb: the netblock (host bits past the prefix are ignored).
 * @param action: what to do with its clients.
 * @return 0, or -1 when out of memory or the list is already finished.
 */
int acl_add(struct acl_list *acl, const struct netblock *nb,
	enum config_acl_action action);

/**
 * Add one "netblock action" pair given as text, e.g. ("10.0.0.0/8",
 * "allow"). A netblock without "/prefix" is a host.
 * @param err: on failure a reason is written here; may be NULL.
 * @param errlen: size of err.
 * @return 0 or -1.
 */
int acl_add_str(struct acl_list *acl, const char *netblock,
	const char *action, char *err, size_t errlen);

/**
 * Finish the list: add the localhost defaults (unless those exact
 * netblocks were given) and build the lookup arrays. After this the list
 * is read-only and safe to share between threads.
 * @return 0, or -1 when out of memory (err filled).
 */
int acl_finish(struct acl_list *acl, char *err, size_t errlen);

/**
 * Add every access-control: line of a config and finish the list; read
 * its interface-action: lines ("<ip or interface name[@port]> <action>",
 * the port defaulting to port:) and make their variants.
 * @param acl: a list fresh from acl_create().
 * @param cfg: the config (not kept).
 * @return 0, or -1 with err filled.
 */
int acl_apply_cfg(struct acl_list *acl, const struct config_file *cfg,
	char *err, size_t errlen);

/**
 * The list to check the clients of a listening point with: the variant
 * whose miss is the interface-action of that point, or acl itself (miss
 * refuse) when no interface-action: line names it. The variant belongs
 * to acl (freed with it).
 * @param acl: a list made by acl_apply_cfg(); NULL gives NULL.
 * @param bound: the address and port the listening socket is bound to
 *	(a wildcard socket: 0.0.0.0 or ::, as Unbound matches it).
 */
const struct acl_list *acl_for_interface(const struct acl_list *acl,
	const struct netaddr *bound);

/** @return 1 when the config that made acl has interface-action: lines */
int acl_has_interface_actions(const struct acl_list *acl);

/**
 * The action for a client address: the longest matching netblock's, or
 * ACL_REFUSE when none matches (a variant of acl_for_interface(): the
 * interface-action). The port is ignored. Read-only; no locks,
 * no allocation.
 * @param acl: a finished list; NULL gives the built-in default (allow
 *	loopback, refuse the rest).
 * @param addr: the client address.
 */
enum config_acl_action acl_check(const struct acl_list *acl,
	const struct netaddr *addr);

/**
 * Give a netblock a client-context number: the tags (and their actions and
 * data) of front/policy.c that the clients of the netblock get. When
 * no access-control line names that exact netblock it is made, with the
 * action allow (Unbound's rule for access-control-tag). Before
 * acl_finish() only.
 * @param ref: the number, not 0.
 * @return 0 or -1.
 */
int acl_add_ref(struct acl_list *acl, const struct netblock *nb,
	uint32_t ref);

/**
 * As acl_check(), and the client-context number of the netblock that
 * matched (0 when it has none, or nothing matched). The tags are thus
 * those of the client's access-control entry, as in Unbound: a longer
 * access-control netblock without tags hides the tags of a shorter one.
 * @param ref: set (not NULL).
 */
enum config_acl_action acl_check_ref(const struct acl_list *acl,
	const struct netaddr *addr, uint32_t *ref);

/**
 * The netblocks of a config's access-control-tag, access-control-tag-action
 * and access-control-tag-data lines, each once, in the order first given:
 * netblock i gets client-context number i + 1 (acl_apply_cfg() and
 * front/policy.c both number them so).
 * @param out: set to a malloced array (free it), NULL when none.
 * @param n: set to its length.
 * @param err: "file:line: ..." for a bad netblock; errlen its size.
 * @return 0 or -1.
 */
int acl_cfg_tag_blocks(const struct config_file *cfg, struct netblock **out,
	size_t *n, char *err, size_t errlen);

/**
 * Parse an action word ("allow", "deny_non_local", ...).
 * @return 0 and *out set, or -1 for an unknown word.
 */
int acl_action_from_str(const char *s, enum config_acl_action *out);

/** @return the word for an action (a static string). */
const char *acl_action_str(enum config_acl_action a);

/**
 * The answer to a client whose action is refuse or refuse_non_local, in
 * the form Unbound gives it: a query without EDNS gets a bare header (ID,
 * opcode, RD and CD echoed, QR, no RA, rcode REFUSED, every count 0: no
 * question); a query with EDNS gets its question back and an OPT record,
 * with EDE 18 (Prohibited) when ede is 1. (Unbound, with ede off, drops
 * the OPT record as well; petrel keeps it: RFC 6891 section 6.1.1 wants
 * an OPT record in the answer to a query that had one.)
 * @param pkt: the query; pktlen its length (at least a header).
 * @param fq: its parse (dns_query_parse_fast()).
 * @param ede: 1 to put EDE 18 in (the ede: option).
 * @param udp_size: the UDP size of the OPT record.
 * @param out: the answer is written here; outmax its size.
 * @return the answer's length, or -1 when it does not fit.
 */
struct fast_query;
int acl_refused_reply(const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, int ede, uint16_t udp_size, uint8_t *out,
	size_t outmax);

/** @return number of netblocks in the list, defaults included once
 *	finished (for tests and statistics). */
size_t acl_count(const struct acl_list *acl);

#endif /* FRONT_ACL_H */
