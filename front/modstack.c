/*
 * front/modstack.c - the module list, and the module stack built from
 * module-config.
 *
 * See modstack.h. The rows below are the one place that names modules:
 * a module's name, its functions and its rank (its place in the order:
 * as in Unbound, respip and dns64 first in either order, each rewriting
 * what the one after it gives back, then subnetcache, the validator,
 * cachedb, and the iterator last). An optional module that configure
 * can leave out keeps its row, with no functions, so that a config
 * naming it is told the build lacks it, not that the name is unknown.
 * This file sits above the modules in the layer order (with the front
 * end), since it names them.
 */
#include "config.h"
#include "util/log.h"
#include <stdio.h>
#include <string.h>
#include "front/modstack.h"
#include "util/config_options.h"
#include "services/module.h"
#include "iterator/iterator.h"
#include "validator/validator.h"
#include "validator/val_zonemd.h"
#include "services/authzone.h"
#include "respip/respip.h"
#include "edns-subnet/subnetcache.h"
#include "cachedb/cachedb.h"
#ifdef USE_DNS64
#include "dns64/dns64.h"
/** dns64's functions, or NULL without dns64/ (configure --disable-dns64) */
#define DNS64_BLOCK (&dns64_module_block)
#else
#define DNS64_BLOCK NULL
#endif

const struct module_row modstack_rows[] = {
	/* name, functions, rank, what it offers */
	{ "respip", &respip_module_block, 0, MODSTACK_CAP_RESPIP },
	{ "dns64", DNS64_BLOCK, 0, 0 },
	{ "subnetcache", &subnetcache_module_block, 1,
		MODSTACK_CAP_CLIENT_ECS },
	{ "validator", &val_module_block, 2, MODSTACK_CAP_DNSSEC },
	{ "cachedb", &cachedb_module_block, 3, MODSTACK_CAP_SECOND_CACHE },
	{ "iterator", &iter_module_block, 4, MODSTACK_CAP_RESOLVES },
	{ NULL, NULL, 0, 0 }
};

/** @return the row named by the n characters at w, or NULL */
static const struct module_row *
row_find(const char *w, size_t n)
{
	const struct module_row *r;
	for(r = modstack_rows; r->name; r++)
		if(strlen(r->name) == n && strncmp(r->name, w, n) == 0)
			return r;
	return NULL;
}

/** @return the last row (its module ends every stack) */
static const struct module_row *
row_last(void)
{
	const struct module_row *r = modstack_rows;
	while(r[1].name)
		r++;
	return r;
}

const struct module_func_block *
module_find(const char *name)
{
	const struct module_row *r = row_find(name, strlen(name));
	return r ? r->mod : NULL;
}

const char *
module_list_str(char *buf, size_t len)
{
	const struct module_row *r;
	size_t n = 0;
	buf[0] = 0;
	for(r = modstack_rows; r->name; r++) {
		int k;
		if(!r->mod)
			continue;
		k = snprintf(buf + n, len - n, "%s%s", n ? " " : "", r->name);
		if(k < 0 || (size_t)k >= len - n)
			break;
		n += (size_t)k;
	}
	return buf;
}

/** a separator between the words of a module-config string */
static int
is_sep(char c)
{
	return c == ' ' || c == '\t' || c == '"';
}

/** the next word of a module-config string.
 * @param p: where to read; moved past the word.
 * @param n: the word's length.
 * @return the word, or NULL at the end */
static const char *
next_word(const char **p, size_t *n)
{
	const char *w = *p;
	while(is_sep(*w))
		w++;
	if(!*w)
		return NULL;
	*n = 0;
	while(w[*n] && !is_sep(w[*n]))
		(*n)++;
	*p = w + *n;
	return w;
}

const char *
modstack_left_out(const char *conf)
{
	const char *p = conf, *w;
	size_t n;
	while((w = next_word(&p, &n)) != NULL) {
		const struct module_row *r = row_find(w, n);
		if(r && !r->mod)
			return r->name;
	}
	return NULL;
}

/**
 * Parse and check a module-config string: the one order check.
 * @param conf: the names.
 * @param extra: a module not in the list that may be named (not last),
 *	or NULL.
 * @param mods: the modules, in order, filled (MODULE_MAX of them).
 * @param num: their number.
 * @param err: what is wrong; errlen its size.
 * @return 0 or -1.
 */
static int
modstack_parse(const char *conf, const struct module_func_block *extra,
	const struct module_func_block **mods, int *num, char *err,
	size_t errlen)
{
	char have[256];
	const char *p = conf, *w;
	size_t n;
	int last_rank = -1, i;
	*num = 0;
	while((w = next_word(&p, &n)) != NULL) {
		const struct module_row *r = row_find(w, n);
		const struct module_func_block *m = r ? r->mod : NULL;
		int rank = r ? r->rank : last_rank, twice = 0;
		if(!r && extra && strlen(extra->name) == n &&
			strncmp(extra->name, w, n) == 0)
			m = extra;
		if(r && !m) {
			snprintf(err, errlen, "module '%.*s' is not in this "
				"build of petrel (this petrel has: %s)",
				(int)n, w, module_list_str(have, sizeof(have)));
			return -1;
		}
		if(!m) {
			snprintf(err, errlen, "unknown module '%.*s' (this "
				"petrel has: %s)", (int)(n > 64 ? 64 : n), w,
				module_list_str(have, sizeof(have)));
			return -1;
		}
		for(i = 0; i < *num; i++)
			if(mods[i] == m)
				twice = 1;
		if(rank < last_rank || twice) {
			snprintf(err, errlen, "module '%.*s' is misplaced (the "
				"order is: %s)", (int)(n > 64 ? 64 : n), w,
				module_list_str(have, sizeof(have)));
			return -1;
		}
		if(*num >= MODULE_MAX) {
			snprintf(err, errlen, "more than %d modules",
				MODULE_MAX);
			return -1;
		}
		last_rank = rank;
		mods[(*num)++] = m;
	}
	if(*num == 0) {
		snprintf(err, errlen, "expected a list of modules (this "
			"petrel has: %s)", module_list_str(have, sizeof(have)));
		return -1;
	}
	if(mods[*num - 1] != row_last()->mod) {
		snprintf(err, errlen, "the last module must be %s (the order "
			"is: %s)", row_last()->name,
			module_list_str(have, sizeof(have)));
		return -1;
	}
	return 0;
}

int
modstack_config_check(const char *value, char *err, size_t errlen)
{
	const struct module_func_block *mods[MODULE_MAX];
	int num;
	return modstack_parse(value, NULL, mods, &num, err, errlen);
}

/** config_modules_dnssec_func: does a module-config validate */
static int
modstack_conf_dnssec(const char *value)
{
	return modstack_conf_has_cap(value, MODSTACK_CAP_DNSSEC);
}

void
modstack_config_register(void)
{
	config_modules_check_set(modstack_config_check);
	config_modules_dnssec_set(modstack_conf_dnssec);
}

int
modstack_setup(struct module_stack *stack, const char *conf,
	const struct module_func_block *extra, struct config_file *cfg,
	char *err, size_t errlen)
{
	char why[384];
	int i;
	memset(stack, 0, sizeof(*stack));
	if(modstack_parse(conf ? conf : CONFIG_MODULE_DEFAULT, extra,
		stack->mod, &stack->num, why, sizeof(why)) != 0) {
		snprintf(err, errlen, "module-config: %s", why);
		goto fail;
	}
	for(i = 0; i < stack->num; i++) {
		struct module_env env;
		memset(&env, 0, sizeof(env));
		env.cfg = cfg;
		if(stack->mod[i]->init && stack->mod[i]->init(&env, i, err,
			errlen) != 0) {
			int j;
			for(j = 0; j < i; j++) {
				env.modinfo[j] = stack->modinfo[j];
				if(stack->mod[j]->deinit)
					stack->mod[j]->deinit(&env, j);
			}
			goto fail;
		}
		stack->modinfo[i] = env.modinfo[i];
	}
	return 0;
fail:
	memset(stack, 0, sizeof(*stack));
	return -1;
}

void
modstack_desetup(struct module_stack *stack)
{
	struct module_env env;
	int i;
	if(!stack)
		return;
	memset(&env, 0, sizeof(env));
	for(i = 0; i < stack->num; i++)
		env.modinfo[i] = stack->modinfo[i];
	for(i = 0; i < stack->num; i++)
		if(stack->mod[i]->deinit)
			stack->mod[i]->deinit(&env, i);
	memset(stack, 0, sizeof(*stack));
}

int
modstack_find(const struct module_stack *stack, const char *name)
{
	int i;
	for(i = 0; i < stack->num; i++)
		if(strcmp(stack->mod[i]->name, name) == 0)
			return i;
	return -1;
}

int
modstack_find_cap(const struct module_stack *stack, unsigned cap)
{
	const struct module_row *r;
	int i;
	for(i = 0; i < stack->num; i++)
		for(r = modstack_rows; r->name; r++)
			if(r->mod && r->mod == stack->mod[i] && (r->caps & cap))
				return i;
	return -1;
}

int
modstack_control_find(const struct module_stack *stack, enum module_ctl what)
{
	struct module_env env;
	int i;
	memset(&env, 0, sizeof(env));
	for(i = 0; i < stack->num; i++)
		if(stack->mod[i]->control && stack->mod[i]->control(&env, i,
			what, NULL) == 1)
			return i;
	return -1;
}

int
modstack_control(const struct module_stack *stack, struct module_env *env,
	enum module_ctl what, struct module_ctl_arg *arg)
{
	struct module_env own;
	int i = modstack_control_find(stack, what);
	if(i < 0)
		return 0;
	if(!env) {
		memset(&own, 0, sizeof(own));
		memcpy(own.modinfo, stack->modinfo, sizeof(own.modinfo));
		env = &own;
	}
	return stack->mod[i]->control(env, i, what, arg);
}

int
modstack_conf_has_cap(const char *conf, unsigned cap)
{
	const char *p = conf ? conf : CONFIG_MODULE_DEFAULT, *w;
	size_t n;
	while((w = next_word(&p, &n)) != NULL) {
		const struct module_row *r = row_find(w, n);
		if(r && (r->caps & cap))
			return 1;
	}
	return 0;
}

const char *
modstack_cap_name(unsigned cap)
{
	const struct module_row *r;
	for(r = modstack_rows; r->name; r++)
		if(r->caps & cap)
			return r->name;
	return "?";
}

const struct module_respip_ops *
modstack_respip(void)
{
	const struct module_row *r;
	for(r = modstack_rows; r->name; r++)
		if(r->mod && (r->caps & MODSTACK_CAP_RESPIP) && r->mod->respip)
			return r->mod->respip;
	return NULL;
}

struct val_zonemd *
modstack_zonemd_create(const struct config_file *cfg, char *err,
	size_t errlen)
{
	return val_zonemd_create(cfg, err, errlen);
}

void
modstack_zonemd_delete(struct val_zonemd *zmd)
{
	val_zonemd_delete(zmd);
}

struct auth_zones *
modstack_auth_zones_create(const struct config_file *cfg,
	struct val_zonemd *zmd, int *ok, char *err, size_t errlen)
{
	/* a zone below its trust anchor: its DNSKEY is validated through
	 * the mesh, then val_zonemd_check_keys */
	return auth_zones_create_dnssec(cfg, zmd ? val_zonemd_check : NULL,
		val_zonemd_check_keys, zmd, ok, err, errlen);
}
