/*
 * respip/respip_rules.h - response-ip's rules: the netblocks of
 * response-ip, response-ip-data and response-ip-tag lines, built from
 * the config, and their application to an answer.
 *
 * A set holds the netblocks of one scope (server:, or one view:), each
 * with its action (a local-zone type response-ip takes), its tags and its
 * data (records at the apex of a store of the front end's local data,
 * reached through the table the set was made with, struct
 * module_respip_data in services/module.h). After set_finish the
 * netblocks are kept longest prefix first, and a netblock with data and
 * no action redirects.
 *
 * The front end applies the set that fits a client (its view, its tags:
 * which scope comes first is the front end's business, front/policy.c)
 * to every answer it sends, a cache hit or a fresh one alike; it reaches
 * these functions through the module's block (module_func_block.respip,
 * front/modstack.h modstack_respip()), never by this header. Applying a
 * set walks the answer's addresses (dns/addrscan.h): the first address
 * that a netblock holds, the longest such netblock, decides. Actions as
 * Unbound's response-ip: data of the address record's type (or a CNAME)
 * replaces the record, the CNAME and DNAME chain before it kept; with
 * none, always_refuse is REFUSED (the chain dropped), always_nxdomain
 * NXDOMAIN, redirect and always_nodata NOERROR without the records, the
 * deny kinds drop, inform and always_transparent pass (the inform kinds
 * log a line). A netblock with response-ip-tag takes, for a client with
 * one of its tags, the lowest common tag's access-control-tag-action and,
 * for redirect, its access-control-tag-data.
 *
 * Threads: a set is immutable after set_finish; applying it allocates
 * nothing and locks nothing (the inform kinds log).
 */
#ifndef RESPIP_RESPIP_RULES_H
#define RESPIP_RESPIP_RULES_H

struct module_respip_ops;

/** the rules' functions, for the module's block (respip/respip.c) */
extern const struct module_respip_ops respip_rules_ops;

#endif /* RESPIP_RESPIP_RULES_H */
