/*
 * front/modstack.h - the modules petrel knows, and the stack of them
 * that module-config asks for.
 *
 * The module list (front/modstack.c) is the one place that names the
 * modules: a row each, with the name module-config uses, the module's
 * functions (NULL when configure left the module out of this build) and
 * its rank (its place in the order). Everything else asks it: the config
 * parser through the check modstack_config_register() hands to util/
 * (which sits below the modules and cannot name them), the daemon and the
 * replay runner through modstack_setup().
 *
 * modstack_setup() reads a module-config string ("validator iterator"),
 * checks every name against the list and the order (rising rank; two of
 * one rank in either order; the last row, the iterator, last), and runs
 * each module's init() on the config: the global data each module builds
 * (its settings, for the iterator the root hints and forward/stub zones)
 * is kept in the stack and copied into every worker's module environment.
 * This sits with the front end in the layer order, above the modules.
 *
 * Nothing else names a module or includes its headers (tests/
 * check_layers.sh refuses such an include in front/ and daemon/): the
 * front end asks the stack for a capability (modstack_find_cap), the
 * config parser whether a module-config validates (the registered
 * config_modules_dnssec), the remote control which module answers a
 * request (modstack_control: the module's control hook, services/
 * module.h), and the daemon builds the auth zones' ZONEMD check of the
 * module that validates here (modstack_zonemd_create).
 */
#ifndef FRONT_MODSTACK_H
#define FRONT_MODSTACK_H

#include <stddef.h>
#include "services/module.h"

struct config_file;
struct auth_zones;
struct val_zonemd;

/**
 * What a module offers the rest of petrel, in its row, so that the front
 * end and the daemon ask the stack (or a module-config string) for a
 * capability, never for a module's name.
 */
enum modstack_cap {
	/** it validates DNSSEC with the configured trust anchors: auth
	 * zones' ZONEMD is checked with them (the validator) */
	MODSTACK_CAP_DNSSEC = 1 << 0,
	/** it applies the response-ip rules to the answers, its
	 * sub-queries' too (respip) */
	MODSTACK_CAP_RESPIP = 1 << 1,
	/** it reads the client's EDNS Client Subnet option (subnetcache) */
	MODSTACK_CAP_CLIENT_ECS = 1 << 2,
	/** a second-level cache, that serve-expired may wait for before
	 * it answers stale (cachedb) */
	MODSTACK_CAP_SECOND_CACHE = 1 << 3,
	/** it resolves: root hints, forward and stub zones (iterator;
	 * remote control reaches them by control request, see
	 * modstack_control) */
	MODSTACK_CAP_RESOLVES = 1 << 4
};

/** a module petrel knows: its one row in the module list */
struct module_row {
	/** the name module-config gives it (its functions' name too) */
	const char *name;
	/** its functions, or NULL when this build leaves it out
	 * (configure --disable-NAME) */
	const struct module_func_block *mod;
	/** its place: a module-config lists the modules in rising rank,
	 * two of one rank in either order */
	int rank;
	/** what it offers, enum modstack_cap bits */
	unsigned caps;
};

/**
 * The rows of the module list, in order, the last one (the module that
 * ends every stack) followed by a row whose name is NULL.
 */
extern const struct module_row modstack_rows[];

/**
 * A module this build has, by name.
 * @return its table, or NULL (unknown, or left out of this build).
 */
const struct module_func_block *module_find(const char *name);

/**
 * The names of the modules this build has, in the order a module-config
 * must follow, separated by spaces ("respip dns64 ... iterator"), into
 * buf (len its size, truncated to fit).
 * @return buf.
 */
const char *module_list_str(char *buf, size_t len);

/**
 * The first name in a module-config string that petrel knows but this
 * build leaves out (so a test that needs it can be skipped).
 * @param conf: module names separated by spaces (quotes allowed).
 * @return the row's name, or NULL when the build has every known name.
 */
const char *modstack_left_out(const char *conf);

/**
 * Check a module-config value against the module list, as the config
 * parser needs it (config_modules_check_func of util/config_options.h):
 * every name one of this build's modules, in rising rank, none twice,
 * the last row's module last.
 * @param value: module names separated by spaces.
 * @param err: what was expected (no "module-config: " prefix); errlen
 *	its size.
 * @return 0, or -1.
 */
int modstack_config_check(const char *value, char *err, size_t errlen);

/**
 * Register modstack_config_check() with the config parser
 * (config_modules_check_set()), and the answer to "does this
 * module-config validate DNSSEC" (config_modules_dnssec_set(): a module
 * with MODSTACK_CAP_DNSSEC in it). Every program that reads a config and
 * builds a module stack calls it once at start-up, before threads and
 * before the config is read: the daemon, petrel-checkconf, the replay
 * runner, the unit suites that check module-config.
 */
void modstack_config_register(void);

/**
 * Set a stack up from a module-config string and run every init().
 * @param stack: zeroed stack to fill.
 * @param conf: module names separated by spaces (NULL: the default,
 *	CONFIG_MODULE_DEFAULT of util/config_options.h, the option's).
 * @param extra: a module that is not in the module list but may be
 *	named in conf, anywhere but last (the replay runner's recorder),
 *	or NULL.
 * @param cfg: the config given to init() (may be NULL for defaults).
 * @param err: message buffer ("module-config: " and what
 *	modstack_config_check() says, or the failed init()'s message);
 *	errlen its size.
 * @return 0, or -1 (unknown or misplaced module, init failed).
 */
int modstack_setup(struct module_stack *stack, const char *conf,
	const struct module_func_block *extra, struct config_file *cfg,
	char *err, size_t errlen);

/** Run every deinit() and empty the stack. */
void modstack_desetup(struct module_stack *stack);

/** @return the index of the module named name in the stack, or -1 */
int modstack_find(const struct module_stack *stack, const char *name);

/**
 * The first module of a stack that offers a capability.
 * @param stack: the stack (modstack_setup()); a module not in the list
 *	(the replay runner's recorder) offers none.
 * @param cap: one enum modstack_cap bit.
 * @return its index in the stack, or -1.
 */
int modstack_find_cap(const struct module_stack *stack, unsigned cap);

/**
 * The first module of a stack that answers a remote control request
 * (module_func_block.control): the daemon asks the stack, never a name.
 * @param stack: the stack.
 * @param what: the request.
 * @return its index in the stack, or -1 when no module answers it.
 */
int modstack_control_find(const struct module_stack *stack,
	enum module_ctl what);

/**
 * Make a remote control request of the first module of a stack that
 * answers it.
 * @param stack: the stack.
 * @param env: a module env built on the stack (a worker's), or NULL: one
 *	is made with the stack's modinfo (for modules whose request reads
 *	only their global data).
 * @param what: the request.
 * @param arg: its inputs and outputs (struct module_ctl_arg).
 * @return the module's answer (1 done, -1 failed), or 0 when no module
 *	of the stack answers what.
 */
int modstack_control(const struct module_stack *stack, struct module_env *env,
	enum module_ctl what, struct module_ctl_arg *arg);

/**
 * Whether a module-config string names a module that offers a capability
 * (before the stack is built: the config's checks). Unknown names offer
 * none.
 * @param conf: module names separated by spaces (NULL: the default,
 *	CONFIG_MODULE_DEFAULT).
 * @param cap: one enum modstack_cap bit.
 * @return 1 or 0.
 */
int modstack_conf_has_cap(const char *conf, unsigned cap);

/**
 * The name of the module that offers a capability, for a message that
 * says what to add to module-config.
 * @param cap: one enum modstack_cap bit.
 * @return its row's name, or "?" when no row offers it.
 */
const char *modstack_cap_name(unsigned cap);

/**
 * response-ip's rules (struct module_respip_ops, services/module.h),
 * which the module with MODSTACK_CAP_RESPIP offers in its block, so that
 * the front end (front/policy.c) builds and applies them without
 * including the module's headers.
 * @return the table, or NULL when this build has no such module.
 */
const struct module_respip_ops *modstack_respip(void);

/**
 * The auth zones' ZONEMD check with DNSSEC (RFC 8976 4), which the module
 * with MODSTACK_CAP_DNSSEC offers (validator/val_zonemd.h): its state,
 * made from the config's trust anchors, so that the daemon builds it
 * without including the module's headers.
 * @param cfg: the config.
 * @param err: reason on failure (a bad anchor line); errlen its size.
 * @return the state (for modstack_auth_zones_create), or NULL.
 */
struct val_zonemd *modstack_zonemd_create(const struct config_file *cfg,
	char *err, size_t errlen);

/** Free a state of modstack_zonemd_create. NULL is allowed. */
void modstack_zonemd_delete(struct val_zonemd *zmd);

/**
 * Build the auth zones of a config (auth_zones_create_dnssec,
 * services/authzone.h) with the ZONEMD checks of the module with
 * MODSTACK_CAP_DNSSEC.
 * @param cfg: the config.
 * @param zmd: the state of modstack_zonemd_create, or NULL: the digest
 *	alone is checked (a held zone's keys still are, with no anchors).
 * @param ok: set to 1 on success, 0 on failure.
 * @param err: reason on failure; errlen its size.
 * @return the zones (NULL with *ok 1: none), or NULL.
 */
struct auth_zones *modstack_auth_zones_create(const struct config_file *cfg,
	struct val_zonemd *zmd, int *ok, char *err, size_t errlen);

#endif /* FRONT_MODSTACK_H */
