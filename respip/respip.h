/*
 * respip/respip.h - the respip module: answers rewritten by the addresses
 * they contain (response-ip, response-ip-data, response-ip-tag, and the
 * RPZ RESPONSE-IP triggers).
 *
 * In module-config first ("respip validator iterator", as operators copy
 * it from Unbound). A response-ip: line without this module in
 * module-config is a load error (front/policy.c), as in Unbound, so
 * that nobody believes answers are filtered when they are not.
 *
 * Where the rewrite happens: petrel answers every client, the ones whose
 * question was a cache hit and the ones that waited for a resolution
 * alike, from the message cache entry by copy-and-patch, and the rewrite
 * depends on the client (its view, its tags). So the rule is applied per
 * client where its answer is written, never to what is stored: the cache
 * keeps the real answer, and a client without a matching rule gets it
 * unchanged. The rules themselves (built from the config lines, matched
 * and applied to an answer) are this module's, in respip/respip_rules.h;
 * the module offers them in its block (module_func_block.respip), and
 * the front end, which knows the client's view and tags, picks the set
 * that applies and calls them through the stack (policy_respip_answer()
 * in front/policy.h, modstack_respip() in front/modstack.h), never by
 * these headers. In the chain the module hands queries to the next
 * module and the answers back up untouched; it keeps no state per query.
 * Its presence in the stack also turns on module_env.respip (the front
 * end's policy_respip_sub): a module that makes an answer out of a
 * sub-query's (dns64 out of the A records) shows that answer to the rules
 * first, as Unbound's respip module rewrites the sub-queries' answers.
 */
#ifndef RESPIP_RESPIP_H
#define RESPIP_RESPIP_H

struct module_func_block;

/** the respip module */
extern const struct module_func_block respip_module_block;

#endif /* RESPIP_RESPIP_H */
