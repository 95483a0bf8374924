/*
 * daemon/env.h - the environment the workers resolve in: the config and
 * everything built from it that workers read but do not own: the message,
 * RRset and infrastructure caches, the local zones, the access-control
 * list and the iterator's settings (root hints, forward and stub zones).
 *
 * With threads one environment is shared by every worker, so everything
 * in it is either immutable after creation (local zones, access control,
 * iterator settings) or safe for concurrent use (the caches). With fork,
 * each child has its own copy; with fork and shared-cache, the copies'
 * message, RRset and infrastructure caches are handles on tables in one
 * shared mapping (shc), made here in the supervisor before the fork.
 *
 * Reload builds a new environment from the new config, taking over the
 * old one's caches when their sizes did not change (env_create's old
 * argument); the old one is deleted once no worker uses it.
 */
#ifndef DAEMON_ENV_H
#define DAEMON_ENV_H

#include <stddef.h>
#include "services/module.h"

struct config_file;
struct mcache;
struct rrset_cache;
struct infra_cache;
struct local_zones;
struct acl_list;
struct shcache;
struct rate_table;
struct policy;
struct val_zonemd;
struct cookie_secrets;

/** the environment */
struct daemon_env {
	/** the config (not owned: the daemon's) */
	struct config_file *cfg;
	/** message cache (owned unless taken over by a newer env) */
	struct mcache *msg;
	/** RRset cache (likewise) */
	struct rrset_cache *rrset;
	/** infrastructure cache (likewise) */
	struct infra_cache *infra;
	/** local zones (owned) */
	struct local_zones *lz;
	/** access control (owned) */
	struct acl_list *acl;
	/** auth zones (owned; NULL: none). Built (zone files read) here;
	 * the transfer thread is started by the first worker that sets up
	 * on this environment (with fork, one per worker process) */
	struct auth_zones *authz;
	/** the DNSSEC check of the auth zones' ZONEMD (owned, deleted
	 * after authz), NULL when the validator is off or no auth-zone has
	 * zonemd-check */
	struct val_zonemd *zmd;
	/** views and RPZ zones (owned), NULL when none are configured */
	struct policy *pol;
	/** the modules of module-config and their settings (owned) */
	struct module_stack mods;
	/** ip-ratelimit: the client rate table, or NULL when off */
	struct rate_table *ip_rate;
	/** answer-cookie: the server secrets (owned), or NULL when off */
	struct cookie_secrets *cookies;
	/** the shared cache of forked workers (shared-cache), or NULL;
	 * owned like the caches (taken over by a newer env) */
	struct shcache *shc;
	/** readers the caches were sized for (workers) */
	int num_readers;
};

/**
 * Build an environment.
 * @param cfg: the config (not owned; must outlive the env).
 * @param num_workers: workers that will read the shared caches.
 * @param old: a previous environment whose caches are taken over (and
 *	set to NULL in it) when their sizes are unchanged; may be NULL.
 * @param err: buffer for an error message.
 * @param errlen: its size.
 * @return the environment, or NULL with err filled.
 */
struct daemon_env *env_create(struct config_file *cfg, int num_workers,
	struct daemon_env *old, char *err, size_t errlen);

/**
 * Check a config as the daemon's start-up does, without the caches and
 * without a network: build and free what env_create builds from it
 * (local zones, access control, auth zone files, views and RPZ, cookie
 * secrets, the modules: the validator's trust anchor files...), as
 * petrel-checkconf does.
 * @return 0, or -1 with the daemon's error in err.
 */
int env_check(struct config_file *cfg, char *err, size_t errlen);

/** Free an environment and what it still owns. NULL is allowed. */
void env_delete(struct daemon_env *env);

/**
 * Would the config use a different shared cache than env has (shared-cache
 * turned on or off, or the message or RRset cache's size or slabs
 * changed)? Then
 * the workers must be restarted on a new environment (no reload in
 * place).
 * @return 1 if so.
 */
int env_shared_cache_changed(const struct daemon_env *env,
	const struct config_file *cfg);

/**
 * A fork child reloading on its own: keep the running shared cache.
 * Sets cfg's shared-cache and the message and RRset caches' sizes and
 * slabs to those of env's shared cache.
 * @return 1 if cfg asked for something else (the caller logs it).
 */
int env_keep_shared_cache(const struct daemon_env *env,
	struct config_file *cfg);

/** Empty every cache (unwanted-reply threshold, flush). */
void env_clear_caches(struct daemon_env *env);

#endif /* DAEMON_ENV_H */
