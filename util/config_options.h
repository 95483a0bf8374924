/*
 * util/config_options.h - the one table of configuration options.
 *
 * Every option petrel knows, including the Unbound options it accepts and
 * ignores, is one row of config_option_table (util/config_options.c). A row
 * says the option's name, its clause, the type of its value, its default
 * (as text, in config file syntax, so that config_create() sets defaults by
 * parsing them exactly as a line in the file would be parsed), its limits,
 * where the value is stored (an offsetof into struct config_file, or into
 * struct config_stub for the zone clauses), whether a reload (SIGHUP)
 * applies it, whether petrel implements it, and a one-line description.
 *
 * Everything else follows from the table: the parser (util/config_file.c),
 * petrel-checkconf -o, the generated example.conf and doc/petrel.conf.5
 * (util/config_doc.c), and petrel-control's set_option.
 *
 * Adding an option: add the member to struct config_file (documented), add
 * the row here, regenerate the documents (make config-docs), add a good and
 * a bad case under testdata/conf/. The table is read-only and shared.
 */
#ifndef UTIL_CONFIG_OPTIONS_H
#define UTIL_CONFIG_OPTIONS_H

#include <stddef.h>

/** the folder of petrel's config file and control keys (fixed, so that
 * the defaults and the documents do not depend on configure's prefix) */
#define PETREL_CONFDIR "/etc/petrel"

/** the clause an option belongs to */
enum config_clause {
	/** outside any clause (before the first clause header) */
	CLAUSE_NONE = 0,
	/** server: */
	CLAUSE_SERVER,
	/** forward-zone: (one per zone) */
	CLAUSE_FORWARD,
	/** stub-zone: (one per zone) */
	CLAUSE_STUB,
	/** remote-control: */
	CLAUSE_REMOTE,
	/** dnstap: (one, its options in struct config_file) */
	CLAUSE_DNSTAP,
	/** cachedb: (the second-level cache on Redis) */
	CLAUSE_CACHEDB,
	/** a clause Unbound has and petrel ignores (view:, rpz:, ...) */
	CLAUSE_IGNORED,
	/** auth-zone: (one per zone; util/config_auth.h) */
	CLAUSE_AUTH,
	/** tsig-key: (one per key; util/config_auth.h) */
	CLAUSE_TSIG,
	/** rpz: (one per response policy zone) */
	CLAUSE_RPZ,
	/** view: (one per view) */
	CLAUSE_VIEW
};

/** the type of an option's value, and so how it is parsed and stored */
enum config_type {
	/** yes or no, stored as int 0/1 */
	OPT_BOOL = 0,
	/** decimal integer in [min, max], stored as int */
	OPT_INT,
	/** as OPT_INT, and a power of 2 (cache slabs) */
	OPT_INT_POW2,
	/** bytes, with an optional k, m or g suffix (1024-based), in
	 * [min, max], stored as size_t */
	OPT_SIZE,
	/** any text, stored as char* */
	OPT_STR,
	/** a file or directory name, stored as char* */
	OPT_PATH,
	/** "" or an address (ip or ip@port), stored as char* */
	OPT_ADDR,
	/** one word of words[], stored as int (its index) */
	OPT_ENUM,
	/** repeatable: addresses (ip or ip@port), struct config_strlist */
	OPT_ADDR_LIST,
	/** repeatable: address or unix socket path, struct config_strlist */
	OPT_CTRL_LIST,
	/** repeatable: domain names, struct config_strlist */
	OPT_NAME_LIST,
	/** repeatable: file paths, struct config_strlist */
	OPT_PATH_LIST,
	/** repeatable: netblocks, struct config_netblocklist */
	OPT_NETBLOCK_LIST,
	/** repeatable: netblock and action, struct config_acl */
	OPT_ACL,
	/** repeatable: zone name and type, struct config_localzone */
	OPT_LOCALZONE,
	/** repeatable: an RR checked with ldns, struct config_strlist */
	OPT_LOCALDATA,
	/** repeatable: "address name", struct config_strlist */
	OPT_LOCALDATA_PTR,
	/** the name: of a forward or stub zone */
	OPT_ZONE_NAME,
	/** repeatable: an address of a forward or stub zone */
	OPT_ZONE_ADDR,
	/** repeatable: a host name of a forward or stub zone */
	OPT_ZONE_HOST,
	/** yes or no, an int inside struct config_stub at off */
	OPT_ZONE_BOOL,
	/** repeatable: a domain name and a number ("name. number" strings in
	 * a config_strlist; ratelimit-for-domain) */
	OPT_NAME_NUM_LIST,
	/** repeatable: a netblock and a number ("netblock number" strings
	 * in a config_strlist; wait-limit-netblock) */
	OPT_NETBLOCK_NUM_LIST,
	/** an IPv6 netblock, stored as text (dns64-prefix) */
	OPT_NETBLOCK6,
	/** an Unbound option petrel does not have: accepted, warned, dropped */
	OPT_IGNORED,
	/** repeatable: a line of the rpz: and view: clauses, or a view, tag
	 * or response-ip option of server:, kept as written (struct
	 * config_policyline in cfg->policy_lines) and checked by the policy
	 * loader (front/policy.c), which names file:line */
	OPT_POLICY,
	/** an Unbound option that asks for security petrel does not provide
	 * yet (DNS over HTTPS or QUIC, DNSCrypt): a load error naming
	 * file:line and what is missing (desc), unless its value turns it
	 * off ("no", "") */
	OPT_INSECURE,
	/** an option of an auth-zone: or tsig-key: clause, stored and checked
	 * by util/config_auth.c */
	OPT_AUTH,
	/** repeatable: a port number from min to max, kept as its text in a
	 * config_strlist (proxy-protocol-port) */
	OPT_PORT_LIST,
	/** repeatable: a port or a range "low-high" (OPT_PORT_RULES: outgoing-port-permit
	 * and outgoing-port-avoid share one struct config_strlist, in line
	 * order, each value with '+' (permit) or '-' (avoid) in front) */
	OPT_PORT_RULES
};

/** flags of an option */
/** a reload (SIGHUP) applies a new value; else a restart is needed */
#define OPT_F_SIGHUP 0x01
/** petrel implements the option; else it is accepted with a warning */
#define OPT_F_IMPLEMENTED 0x02
/** the default depends on how petrel was built (doc_def says how) */
#define OPT_F_BUILD_DEFAULT 0x04
/** example.conf sets the option (to ex) so that it runs as it is */
#define OPT_F_EXAMPLE_SET 0x08
/** the value is a module list, checked by config_check_modules() */
#define OPT_F_MODULES 0x10
/** the value is a 128-bit secret in hex (32 digits) or "" */
#define OPT_F_HEX128 0x20
/** a yes/no option petrel always behaves as "yes" for: "no" loads with a
 * warning, file:line and desc, which says what petrel always does and
 * that "no" has no effect */
#define OPT_F_ONLY_YES 0x40

/** the value is a date as config_parse_date() reads it (val-override-date) */
#define OPT_F_DATE 0x80
/** the value is an NSID as config_nsid() reads it (nsid) */
#define OPT_F_NSID 0x100
/** an OPT_NETBLOCK_NUM_LIST whose second value is a text of at most
 * CONFIG_EDNS_STRING_MAX bytes, not a number (edns-client-string) */
#define OPT_F_TEXT2 0x200

/** one row of the table */
struct config_option {
	/** the name as written in the file, without the colon */
	const char *name;
	/** enum config_clause */
	int clause;
	/** enum config_type */
	int type;
	/** default in config syntax; NULL for lists and ignored options */
	const char *def;
	/** the default as the documents state it, when def is not the
	 * whole story (lists with a built-in default, build-dependent
	 * defaults); NULL to print def */
	const char *doc_def;
	/** example value for the documents (lists, and OPT_F_EXAMPLE_SET) */
	const char *ex;
	/** lower limit (OPT_INT, OPT_INT_POW2, OPT_SIZE) */
	long long min;
	/** upper limit (OPT_INT, OPT_INT_POW2, OPT_SIZE) */
	long long max;
	/** the words of an OPT_ENUM, NULL-terminated */
	const char *const *words;
	/** offsetof the member in struct config_file (struct config_stub
	 * for OPT_ZONE_BOOL); unused for zone names, addresses and hosts */
	size_t off;
	/** OPT_F_ flags */
	int flags;
	/** what the value looks like, for the documents, e.g. "<netblock>
	 * <action>" */
	const char *arg;
	/** one line on what the option does */
	const char *desc;
};

/**
 * Whether the options of a clause are stored in struct config_file itself
 * (server:, remote-control:, dnstap:, cachedb:, each written once), rather than in
 * a repeated clause's own struct (forward-zone:, stub-zone:).
 * @param clause: enum config_clause.
 * @return 1 or 0.
 */
int config_clause_in_file(int clause);

/** the default module-config, Unbound's: written here once, for the
 * option's row in the table (util/config_options.c), the module stack
 * given no module-config (front/modstack.c) and the check that names the
 * list a config without one runs (front/policy.c); tests/check_mesh.c
 * checks that they agree */
#define CONFIG_MODULE_DEFAULT "validator iterator"

/**
 * The check of a module-config value against the module list, which sits
 * above util/ (front/modstack.c: the modules' names, functions and order
 * in one table). util/ cannot name the modules, so the program registers
 * the check at start-up (modstack_config_register(): the daemon,
 * petrel-checkconf, the replay runner and the test suites that read
 * module-config).
 * @param value: the names, separated by spaces.
 * @param err: what was expected; errlen its size.
 * @return 0 or -1.
 */
typedef int (*config_modules_check_func)(const char *value, char *err,
	size_t errlen);

/**
 * Register the module-config check (NULL: none). Call at start-up, before
 * any thread starts and any config is read; it is read, never written,
 * after that.
 */
void config_modules_check_set(config_modules_check_func f);

/**
 * Check a module-config value with the registered check. With none
 * registered (a program that builds no module stack: petrel-control, the
 * fuzzers, benches and unit suites below the front end) only the form is
 * checked, one name or more; the stack refuses an unknown or misplaced
 * name when it is built (modstack_setup()).
 * @param value: the names, separated by spaces.
 * @param err: what was expected (the parser adds file:line and the option
 *	name); errlen its size.
 * @return 0 or -1.
 */
int config_check_modules(const char *value, char *err, size_t errlen);

/**
 * Whether a module-config has a module that validates DNSSEC, for the
 * config's checks that depend on it (disable-edns-do with a trust
 * anchor). util/ cannot name the modules: the program registers the
 * answer with the check (modstack_config_register(), from the module
 * list's MODSTACK_CAP_DNSSEC flag).
 * @param value: the names, separated by spaces.
 * @return 1 or 0.
 */
typedef int (*config_modules_dnssec_func)(const char *value);

/**
 * Register the answer of config_modules_dnssec() (NULL: none). Call at
 * start-up, with config_modules_check_set().
 */
void config_modules_dnssec_set(config_modules_dnssec_func f);

/**
 * Does a module-config have a module that validates DNSSEC? Asks the
 * registered function. With none registered (a program that builds no
 * module stack: petrel-control, the fuzzers, the unit suites below the
 * front end), as the parser answered before the module list was asked:
 * when the value names the first module of CONFIG_MODULE_DEFAULT, the
 * one the default stack validates with (tests/check_config.c checks
 * that both answers agree on every module of the list).
 * @param value: the names, separated by spaces (quotes allowed), or
 *	NULL for CONFIG_MODULE_DEFAULT.
 * @return 1 or 0.
 */
int config_modules_dnssec(const char *value);

/** the table, in document order (clause by clause) */
extern const struct config_option config_option_table[];

/** the number of rows in config_option_table */
extern const size_t config_option_count;

/**
 * Iterate over the table.
 * @param i: index, from 0.
 * @return row i, or NULL past the end.
 */
const struct config_option *config_option_at(size_t i);

/**
 * Find an option by name in a clause.
 * @param name: without the colon.
 * @param clause: enum config_clause, or -1 for any clause (the first row
 *	with that name: "name" is both a forward-zone and a stub-zone option).
 *	An alias (config_option_aliases) finds the row it stands for.
 * @return the row or NULL.
 */
const struct config_option *config_option_find(const char *name,
	int clause);

/**
 * The known option or clause name nearest to a misspelt one
 * (Levenshtein distance).
 * @return a name from the table, never NULL.
 */
const char *config_option_nearest(const char *name);

/** @return the clause's name with its colon ("server:"), or "" */
const char *config_clause_str(int clause);

/** Unbound clauses petrel accepts and ignores, NULL-terminated. The
 * options Unbound has inside them are rows of the table with the clause
 * CLAUSE_IGNORED; an unknown name inside such a clause is an error. */
extern const char *const config_ignored_clauses[];

/** one alias: Unbound spells some options two ways */
struct config_alias {
	/** the other spelling (ip-address, caps-whitelist, ssl-upstream...) */
	const char *alias;
	/** the row's name it stands for */
	const char *name;
};

/** the aliases, NULL-terminated; config_option_find() resolves them */
extern const struct config_alias config_option_aliases[];

#endif /* UTIL_CONFIG_OPTIONS_H */
