/*
 * respip/respip.c - the respip module in the module chain.
 *
 * See respip/respip.h: the rules (respip/respip_rules.c) are applied per
 * client by the front end through this block; in the chain this module
 * passes queries down and answers up.
 */
#include "config.h"
#include "respip/respip.h"
#include "respip/respip_rules.h"
#include "services/module.h"
#include "dns/dns.h"
#include <stddef.h>

/** module init(): no settings of its own (the front end holds the rule
 * sets it built with the block's rules) */
static int
respip_init(struct module_env *env, int id, char *err, size_t errlen)
{
	(void)err; (void)errlen;
	env->modinfo[id] = NULL;
	return 0;
}

/** module deinit() */
static void
respip_deinit(struct module_env *env, int id)
{
	env->modinfo[id] = NULL;
}

/** module operate(): queries go down, answers come back up as they are */
static void
respip_operate(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	(void)reply;
	if(event == MODULE_EVENT_MODDONE) {
		qs->ext_state[id] = qs->return_msg ||
			qs->return_rcode != DNS_RCODE_SERVFAIL ?
			MODULE_FINISHED : MODULE_ERROR;
		return;
	}
	qs->ext_state[id] = MODULE_WAIT_MODULE;
}

/** module inform_super(): the module makes no sub-queries */
static void
respip_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	(void)sub; (void)id; (void)super;
}

/** module clear(): nothing kept per query */
static void
respip_clear(struct module_qstate *qs, int id)
{
	qs->minfo[id] = NULL;
}

/** module get_mem() */
static size_t
respip_get_mem(struct module_env *env, int id)
{
	(void)env; (void)id;
	return 0;
}

const struct module_func_block respip_module_block = {
	.name = "respip",
	.init = respip_init,
	.deinit = respip_deinit,
	.operate = respip_operate,
	.inform_super = respip_inform_super,
	.clear = respip_clear,
	.get_mem = respip_get_mem,
	.respip = &respip_rules_ops,
};
