/*
 * util/config_auth.h - the auth-zone: and tsig-key: clauses.
 *
 *	tsig-key:
 *		name: "xfr.key."
 *		algorithm: hmac-sha256		# hmac-sha1, hmac-sha256, hmac-sha512
 *		secret: "base64=="
 *	auth-zone:
 *		name: "."
 *		primary: 127.0.120.1@53			# ip[@port] [tsig-key name]
 *		url: "https://www.internic.net/domain/root.zone"
 *		allow-notify: 127.0.120.0/24
 *		zonefile: "/var/lib/petrel/root.zone"
 *		for-upstream: yes
 *
 * Each clause makes one node of a list in the config. The parser in
 * util/config_file.c finds the rows of the option table (clause
 * CLAUSE_AUTH or CLAUSE_TSIG, type OPT_AUTH) and hands the values here;
 * a clause is checked as a whole when it ends (config_auth_check).
 * Ownership: every string hangs off its node; the free functions free a
 * whole list.
 */
#ifndef UTIL_CONFIG_AUTH_H
#define UTIL_CONFIG_AUTH_H

#include <stddef.h>
#include "util/netaddr.h"

/** one primary: of an auth zone */
struct config_auth_primary {
	/** next, or NULL */
	struct config_auth_primary *next;
	/** the address, port 53 unless given (unset for a host name) */
	struct netaddr addr;
	/** the text as written (malloced) */
	char *str;
	/** name of the tsig-key: to sign with, or NULL (malloced) */
	char *tsig;
	/** a host name instead of an address (name or name@port): its
	 * addresses are looked up through the resolver, validated, as
	 * Unbound does (malloced, ends in a dot), or NULL */
	char *host;
	/** the port of a host name primary (53 unless given) */
	int port;
};

/** the parts of a url: (http:// or https://host[:port][/path]) */
struct config_url {
	/** 1 for https */
	int tls;
	/** the host: a name or an address (IPv6 without its brackets) */
	char host[256];
	/** the port (80 or 443 unless given) */
	int port;
	/** the path with its query, at least "/" */
	char path[1024];
};

/**
 * Parse a url: value.
 * @param s: the text.
 * @param u: filled in.
 * @param why: the reason when it is not a URL petrel can fetch.
 * @return 0 or -1.
 */
int config_url_parse(const char *s, struct config_url *u, const char **why);

/** one url: of an auth zone */
struct config_auth_url {
	/** next, or NULL */
	struct config_auth_url *next;
	/** the parts */
	struct config_url url;
	/** the text as written (malloced) */
	char *str;
};

/** one allow-notify: netblock */
struct config_auth_notify {
	/** next, or NULL */
	struct config_auth_notify *next;
	/** the netblock (unset for a host name) */
	struct netblock block;
	/** the text as written (malloced) */
	char *str;
	/** a host name instead of a netblock: the addresses it has, looked
	 * up through the resolver, may notify (malloced, ends in a dot),
	 * or NULL */
	char *host;
};

/** one auth-zone: clause */
struct config_auth {
	/** next, or NULL */
	struct config_auth *next;
	/** zone name with a trailing dot (malloced) */
	char *name;
	/** primary: (and master:) lines, in file order */
	struct config_auth_primary *primaries;
	/** url: lines, in file order (tried when no primary answers) */
	struct config_auth_url *urls;
	/** allow-notify: netblocks */
	struct config_auth_notify *notify;
	/** zonefile: path, or NULL (malloced) */
	char *zonefile;
	/** fallback-enabled: resolve normally when the zone has no data */
	int fallback_enabled;
	/** for-downstream: answer clients from the zone */
	int for_downstream;
	/** for-upstream: the iterator answers from the zone */
	int for_upstream;
	/** zonemd-check: verify the ZONEMD record */
	int zonemd_check;
	/** zonemd-reject-absence: a zone without ZONEMD is refused */
	int zonemd_reject_absence;
	/** line of the clause header */
	int line;
};

/** one tsig-key: clause */
struct config_tsig {
	/** next, or NULL */
	struct config_tsig *next;
	/** key name with a trailing dot (malloced) */
	char *name;
	/** algorithm word: hmac-sha1, hmac-sha256, hmac-sha512 (malloced) */
	char *algorithm;
	/** the secret, base64 (malloced) */
	char *secret;
	/** line of the clause header */
	int line;
};

/**
 * Store one option of an auth-zone: clause.
 * @param a: the clause's node.
 * @param key: the option name.
 * @param v: values; n: how many.
 * @param err: error text (no file:line prefix), errlen its size.
 * @return 0 or -1.
 */
int config_auth_set(struct config_auth *a, const char *key, char **v, int n,
	char *err, size_t errlen);

/** As config_auth_set, for a tsig-key: clause. */
int config_tsig_set(struct config_tsig *t, const char *key, char **v, int n,
	char *err, size_t errlen);

/** Check a finished auth-zone: clause (name given, a source of data, no
 * duplicate among the earlier ones in list). @return 0 or -1 (err). */
int config_auth_check(const struct config_auth *a,
	const struct config_auth *list, const struct config_tsig *keys,
	char *err, size_t errlen);

/** Check a finished tsig-key: clause. @return 0 or -1 (err). */
int config_tsig_check(const struct config_tsig *t,
	const struct config_tsig *list, char *err, size_t errlen);

/** Free a list. NULL is allowed. */
void config_auth_free(struct config_auth *a);
/** Free a list. NULL is allowed. */
void config_tsig_free(struct config_tsig *t);
/** Deep copy of a list into *dst. @return 0 or -1 (out of memory; what
 * was copied is in *dst, to be freed by the caller). */
int config_auth_copy(struct config_auth **dst, const struct config_auth *s);
/** Deep copy of a list. @return 0 or -1 as config_auth_copy. */
int config_tsig_copy(struct config_tsig **dst, const struct config_tsig *s);

/**
 * Print one option's values over all clauses, "zone value" per item
 * (petrel-checkconf -o), through cb.
 * @return number of items.
 */
int config_auth_print(const struct config_auth *a,
	const struct config_tsig *t, const char *key,
	void (*cb)(void *arg, const char *item), void *arg);

/** @return the tsig-key: of that name (case-insensitive) or NULL */
const struct config_tsig *config_tsig_find(const struct config_tsig *t,
	const char *name);

#endif /* UTIL_CONFIG_AUTH_H */
