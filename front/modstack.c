/*
 * front/modstack.c - the table of the modules this build has, and the
 * module stack built from module-config.
 *
 * See modstack.h. The table below is the one place that names modules:
 * its order is the order module-config must follow (as in Unbound:
 * validator before iterator, the iterator last). This file sits above the
 * modules in the layer order (with the front end), since it names them.
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
#include "respip/respip.h"
#include "dns64/dns64.h"
#include "edns-subnet/subnetcache.h"
#include "cachedb/cachedb.h"

/** the modules of this build, in the order a module-config must list
 * them; the iterator is always last */
static const struct module_func_block *const module_table[] = {
	&respip_module_block,
	&dns64_module_block,
	&subnetcache_module_block,
	&val_module_block,
	&cachedb_module_block,
	&iter_module_block,
	NULL
};

const struct module_func_block *
module_find(const char *name)
{
	size_t i;
	for(i = 0; module_table[i]; i++)
		if(strcmp(module_table[i]->name, name) == 0)
			return module_table[i];
	return NULL;
}

/** @return position of a module in the table, or -1; respip and dns64
 * share the first place: Unbound takes them in either order ("respip
 * dns64 ..." or "dns64 respip ..."), each rewriting what the one after
 * it gives back */
static int
module_rank(const struct module_func_block *m)
{
	int i;
	for(i = 0; module_table[i]; i++)
		if(module_table[i] == m)
			return m == &dns64_module_block ? 0 : i;
	return -1;
}

const char *
module_list_str(char *buf, size_t len)
{
	size_t i, n = 0;
	buf[0] = 0;
	for(i = 0; module_table[i]; i++) {
		int r = snprintf(buf + n, len - n, "%s%s", i ? ", " : "",
			module_table[i]->name);
		if(r < 0 || (size_t)r >= len - n)
			break;
		n += (size_t)r;
	}
	return buf;
}

int
modstack_setup(struct module_stack *stack, const char *conf,
	const struct module_func_block *extra, struct config_file *cfg,
	char *err, size_t errlen)
{
	char word[64], have[256];
	const char *p = conf ? conf : CONFIG_MODULE_DEFAULT;
	int last_rank = -1, i;
	memset(stack, 0, sizeof(*stack));
	while(*p) {
		const struct module_func_block *m;
		size_t n = 0;
		int rank;
		while(*p == ' ' || *p == '\t')
			p++;
		if(!*p)
			break;
		while(p[n] && p[n] != ' ' && p[n] != '\t')
			n++;
		if(n >= sizeof(word))
			n = sizeof(word) - 1;
		memcpy(word, p, n);
		word[n] = 0;
		p += n;
		while(*p && *p != ' ' && *p != '\t')
			p++;
		m = module_find(word);
		if(!m && extra && strcmp(extra->name, word) == 0)
			m = extra;
		if(!m) {
			snprintf(err, errlen, "module-config: unknown module "
				"'%s' (this petrel has %s)", word,
				module_list_str(have, sizeof(have)));
			goto fail;
		}
		rank = (m == extra) ? last_rank : module_rank(m);
		if(rank < last_rank || modstack_find(stack, word) >= 0) {
			snprintf(err, errlen, "module-config: module '%s' is "
				"misplaced (the order is %s)", word,
				module_list_str(have, sizeof(have)));
			goto fail;
		}
		last_rank = rank;
		if(stack->num >= MODULE_MAX) {
			snprintf(err, errlen, "module-config: more than %d "
				"modules", MODULE_MAX);
			goto fail;
		}
		stack->mod[stack->num++] = m;
	}
	if(stack->num == 0 || stack->mod[stack->num - 1] != &iter_module_block) {
		snprintf(err, errlen, "module-config: the last module must be "
			"the iterator (this petrel has %s)",
			module_list_str(have, sizeof(have)));
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

