/*
 * front/modstack.h - the modules this build has, and the stack of them
 * that module-config asks for.
 *
 * modstack_setup() reads a module-config string ("validator iterator"),
 * checks every name against the table of this build and the order (the
 * table's order; the iterator last), and runs each module's init() on the
 * config: the global data each module builds (its settings, for the
 * iterator the root hints and forward/stub zones) is kept in the stack
 * and copied into every worker's module environment. This sits with the
 * front end in the layer order: it is the one place that names modules.
 */
#ifndef FRONT_MODSTACK_H
#define FRONT_MODSTACK_H

#include <stddef.h>
#include "services/module.h"

struct config_file;

/**
 * A module this build has, by name.
 * @return its table or NULL.
 */
const struct module_func_block *module_find(const char *name);

/**
 * The names of the modules this build has, in table order (the order a
 * module-config must follow), as "a, b", into buf.
 */
const char *module_list_str(char *buf, size_t len);

/**
 * Set a stack up from a module-config string and run every init().
 * @param stack: zeroed stack to fill.
 * @param conf: module names separated by spaces (NULL: the default,
 *	CONFIG_MODULE_DEFAULT of util/config_options.h, the option's).
 * @param extra: a module that is not in the build's table but may be
 *	named in conf (the replay runner's recorder), or NULL.
 * @param cfg: the config given to init() (may be NULL for defaults).
 * @param err: message buffer; errlen its size.
 * @return 0, or -1 (unknown or misplaced module, init failed).
 */
int modstack_setup(struct module_stack *stack, const char *conf,
	const struct module_func_block *extra, struct config_file *cfg,
	char *err, size_t errlen);

/** Run every deinit() and empty the stack. */
void modstack_desetup(struct module_stack *stack);

/** @return the index of the module named name in the stack, or -1 */
int modstack_find(const struct module_stack *stack, const char *name);

#endif /* FRONT_MODSTACK_H */
