/*
 * daemon/env.c - build the environment the workers resolve in.
 * See env.h.
 */
#include "config.h"
#include "daemon/env.h"
#include "services/authzone.h"
#include "services/http_fetch.h"
#include "util/ratelimit.h"
#include "front/acl.h"
#include "front/localzone.h"
#include "front/ddr.h"
#include "services/cache/infra.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/shcache.h"
#include "front/modstack.h"
#include "front/policy.h"
#include "util/config_file.h"
#include "util/config_auth.h"
#include "util/log.h"
#include "front/cookie_secrets.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** the infrastructure cache budget: Unbound keeps 10000 hosts */
/** the infrastructure cache budget: infra-cache-numhosts servers */
#define ENV_INFRA_MEM infra_mem_for_hosts((size_t)cfg->infra_cache_numhosts)

/** does the config ask for a shared cache? (fork only: threads share) */
static int
env_wants_shared(const struct config_file *cfg)
{
	return cfg->shared_cache && cfg->thread_model == THREAD_MODEL_FORK;
}

/**
 * The message cache on a shared mapping: old's when it fits, else a new
 * mapping (made here, before the fork).
 * @return 0, or -1 with err filled.
 */
static int
env_shared_create(struct daemon_env *env, struct daemon_env *old,
	const struct config_file *cfg, const struct mcache_params *mp,
	int *took, char *err, size_t errlen)
{
	if(old && old->shc && old->msg && old->rrset && old->infra &&
		shcache_fits(old->shc, mp, cfg->rrset_cache_size,
		(size_t)cfg->rrset_cache_slabs, ENV_INFRA_MEM,
		(size_t)cfg->msg_cache_slabs)) {
		env->shc = old->shc;
		env->msg = old->msg;
		env->rrset = old->rrset;
		env->infra = old->infra;
		old->shc = NULL;
		old->msg = NULL;
		old->rrset = NULL;
		old->infra = NULL;
		*took = 1;
		mcache_set_params(env->msg, mp);
		rrset_cache_set_params(env->rrset, cfg->rrset_cache_size,
			(uint32_t)cfg->cache_min_ttl, (uint32_t)cfg->cache_max_ttl);
		infra_set_params(env->infra, ENV_INFRA_MEM,
			(uint32_t)cfg->infra_host_ttl);
		return 0;
	}
	env->shc = shcache_create(mp, cfg->rrset_cache_size,
		(size_t)cfg->rrset_cache_slabs, ENV_INFRA_MEM,
		(size_t)cfg->msg_cache_slabs, err, errlen);
	if(!env->shc)
		return -1;
	env->msg = shcache_msg(env->shc, mp);
	env->rrset = shcache_rrset(env->shc, (uint32_t)cfg->cache_min_ttl,
		(uint32_t)cfg->cache_max_ttl);
	env->infra = shcache_infra(env->shc, (uint32_t)cfg->infra_host_ttl);
	if(!env->msg || !env->rrset || !env->infra) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	log_info("shared-cache: %s shared message cache of %zu bytes in %zu "
		"slabs, RRset cache of %zu bytes in %d slabs and "
		"infrastructure cache of %zu bytes (mapping of %zu bytes)",
		old && old->shc ? "rebuilt the" : "made the", mp->maxmem,
		mp->slabs, cfg->rrset_cache_size, cfg->rrset_cache_slabs,
		ENV_INFRA_MEM, shcache_mapping_size(env->shc));
	return 0;
}

int
env_shared_cache_changed(const struct daemon_env *env,
	const struct config_file *cfg)
{
	struct mcache_params mp;
	if(env_wants_shared(cfg) != (env->shc != NULL))
		return 1;
	if(!env->shc)
		return 0;
	mcache_params_from_cfg(&mp, cfg);
	return !shcache_fits(env->shc, &mp, cfg->rrset_cache_size,
		(size_t)cfg->rrset_cache_slabs, ENV_INFRA_MEM,
		(size_t)cfg->msg_cache_slabs);
}

int
env_keep_shared_cache(const struct daemon_env *env, struct config_file *cfg)
{
	int changed;
	if(!env->shc)
		return 0;
	changed = env_shared_cache_changed(env, cfg);
	cfg->shared_cache = env->cfg->shared_cache;
	cfg->msg_cache_size = env->cfg->msg_cache_size;
	cfg->msg_cache_slabs = env->cfg->msg_cache_slabs;
	cfg->rrset_cache_size = env->cfg->rrset_cache_size;
	cfg->rrset_cache_slabs = env->cfg->rrset_cache_slabs;
	return changed;
}

/**
 * Is the ZONEMD of the auth zones checked with DNSSEC: some auth-zone has
 * zonemd-check and module-config has a module that validates DNSSEC (its
 * trust anchors are the ones used)?
 */
static int
env_zonemd_dnssec(const struct config_file *cfg)
{
	const struct config_auth *c;
	int any = 0;
	for(c = cfg->auths; c; c = c->next)
		if(c->zonemd_check)
			any = 1;
	return any && cfg->module_config && modstack_conf_has_cap(
		cfg->module_config, MODSTACK_CAP_DNSSEC);
}

/**
 * Build what an environment holds besides the caches, from the config:
 * local zones, access control, the auth zones (their files read), views
 * and RPZ, the rate table, the cookie secrets and the module stack (each
 * module's init: the validator reads its trust anchors). The same for
 * the daemon and for petrel-checkconf (env_check).
 * @return 0, or -1 with err set (what was built is freed by env_delete).
 */
static int
env_build(struct daemon_env *env, struct config_file *cfg,
	struct daemon_env *old, char *err, size_t errlen)
{
	env->lz = local_zones_create();
	if(!env->lz || ddr_add_local(env->lz, cfg, err, errlen) != 0 ||
		local_zones_apply_cfg(env->lz, cfg, err, errlen) != 0) {
		if(!env->lz)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	env->acl = acl_create();
	if(!env->acl || acl_apply_cfg(env->acl, cfg, err, errlen) != 0) {
		if(!env->acl)
			snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(env_zonemd_dnssec(cfg) && !(env->zmd = modstack_zonemd_create(cfg,
		err, errlen)))
		return -1;
	/* the downloads of url: sources (http-user-agent) */
	http_fetch_set_user_agent(cfg->http_user_agent,
		cfg->hide_http_user_agent);
	{
		int ok = 0;
		/* the ZONEMD checks of the module that validates */
		env->authz = modstack_auth_zones_create(cfg, env->zmd, &ok,
			err, errlen);
		if(!ok)
			return -1;
	}
	if(cfg->ip_ratelimit > 0 && !(env->ip_rate = rate_table_create(
		cfg->ip_ratelimit_size, cfg->ip_ratelimit_slabs, 16))) {
		snprintf(err, errlen, "out of memory (ip-ratelimit-size)");
		return -1;
	}
	if(policy_apply_cfg(&env->pol, cfg, err, errlen) != 0)
		return -1;
	if((cfg->answer_cookie || (cfg->cookie_secret_file &&
		cfg->cookie_secret_file[0])) && !(env->cookies =
		cookie_secrets_create(cfg, err, errlen)))
		return -1;
	cookie_secrets_keep(env->cookies, old ? old->cookies : NULL);
	if(modstack_setup(&env->mods, cfg->module_config, NULL, cfg, err,
		errlen) != 0)
		return -1;
	return 0;
}

struct daemon_env *
env_create(struct config_file *cfg, int num_workers, struct daemon_env *old,
	char *err, size_t errlen)
{
	struct daemon_env *env = calloc(1, sizeof(*env));
	struct mcache_params mp;
	int took_msg = 0, took_rrset = 0, took_infra = 0;
	if(!env) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	env->cfg = cfg;
	env->num_readers = num_workers;
	mcache_params_from_cfg(&mp, cfg);
	/* caches: take the old ones over when their sizes did not change;
	 * the other settings (TTL limits, prefetch...) are updated in place
	 * while no worker runs */
	if(env_wants_shared(cfg)) {
		if(env_shared_create(env, old, cfg, &mp, &took_msg, err,
			errlen) != 0)
			goto fail;
	} else if(old && old->msg && !old->shc &&
		old->cfg->msg_cache_size == cfg->msg_cache_size &&
		old->cfg->msg_cache_slabs == cfg->msg_cache_slabs) {
		env->msg = old->msg;
		old->msg = NULL;
		took_msg = 1;
		mcache_set_params(env->msg, &mp);
	} else if(!(env->msg = mcache_create(&mp))) {
		snprintf(err, errlen, "cannot create the message cache "
			"(msg-cache-size %zu): out of memory", cfg->msg_cache_size);
		goto fail;
	}
	if(env->rrset) {
		/* the shared one, made or taken over with the message cache */
	} else if(old && old->rrset && !old->shc &&
		old->cfg->rrset_cache_size ==
		cfg->rrset_cache_size && old->cfg->rrset_cache_slabs ==
		cfg->rrset_cache_slabs) {
		env->rrset = old->rrset;
		old->rrset = NULL;
		took_rrset = 1;
		rrset_cache_set_params(env->rrset, cfg->rrset_cache_size,
			(uint32_t)cfg->cache_min_ttl, (uint32_t)cfg->cache_max_ttl);
	} else if(!(env->rrset = rrset_cache_create(cfg->rrset_cache_size,
		(size_t)cfg->rrset_cache_slabs, (uint32_t)cfg->cache_min_ttl,
		(uint32_t)cfg->cache_max_ttl))) {
		snprintf(err, errlen, "cannot create the RRset cache "
			"(rrset-cache-size %zu): out of memory",
			cfg->rrset_cache_size);
		goto fail;
	}
	if(env->infra) {
		/* the shared one, made or taken over with the message cache */
	} else if(old && old->infra && !old->shc) {
		env->infra = old->infra;
		old->infra = NULL;
		took_infra = 1;
		infra_set_params(env->infra, ENV_INFRA_MEM,
			(uint32_t)cfg->infra_host_ttl);
	} else if(!(env->infra = infra_create(ENV_INFRA_MEM,
		(size_t)cfg->infra_cache_slabs, (uint32_t)cfg->infra_host_ttl))) {
		snprintf(err, errlen, "cannot create the infrastructure cache: "
			"out of memory");
		goto fail;
	}
	infra_set_rtt_limits(env->infra, cfg->infra_cache_min_rtt,
		cfg->infra_cache_max_rtt);
	infra_set_unknown_rto(env->infra, cfg->unknown_server_time_limit);
	infra_set_fast(env->infra, cfg->fast_server_num,
		cfg->fast_server_permil);
	if(env_build(env, cfg, old, err, errlen) != 0)
		goto fail;
	return env;
fail:
	/* give the caches taken over back to the old environment */
	if(took_msg) {
		old->msg = env->msg;
		env->msg = NULL;
		if(env->shc) {
			old->shc = env->shc;
			env->shc = NULL;
			old->rrset = env->rrset;
			env->rrset = NULL;
			old->infra = env->infra;
			env->infra = NULL;
		}
	}
	if(took_rrset) {
		old->rrset = env->rrset;
		env->rrset = NULL;
	}
	if(took_infra) {
		old->infra = env->infra;
		env->infra = NULL;
	}
	env_delete(env);
	return NULL;
}

int
env_check(struct config_file *cfg, char *err, size_t errlen)
{
	struct daemon_env *env = calloc(1, sizeof(*env));
	int r;
	if(!env) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	env->cfg = cfg;
	env->num_readers = 1;
	r = env_build(env, cfg, NULL, err, errlen);
	env_delete(env);
	return r;
}

void
env_delete(struct daemon_env *env)
{
	if(!env)
		return;
	mcache_delete(env->msg);
	shcache_delete(env->shc);
	rrset_cache_delete(env->rrset);
	infra_delete(env->infra);
	local_zones_delete(env->lz);
	acl_delete(env->acl);
	auth_zones_delete(env->authz);
	modstack_zonemd_delete(env->zmd);
	rate_table_delete(env->ip_rate);
	cookie_secrets_delete(env->cookies);
	policy_delete(env->pol);
	modstack_desetup(&env->mods);
	free(env);
}

void
env_clear_caches(struct daemon_env *env)
{
	if(env->msg)
		mcache_flush_all(env->msg);
	if(env->rrset)
		rrset_cache_flush_all(env->rrset);
	if(env->infra)
		infra_flush_all(env->infra);
}
