/*
 * services/module.c - what the module contract shares: freeing an answer,
 * naming events.
 *
 * See module.h for the contract. The table of the modules this build has
 * is in services/modstack.c, which sits above the modules (it names them).
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <ldns/ldns.h>
#include "services/module.h"

void
mesh_answer_clear(struct mesh_answer *a)
{
	if(!a)
		return;
	ldns_rr_list_deep_free(a->an);
	ldns_rr_list_deep_free(a->ns);
	ldns_rr_list_deep_free(a->ar);
	a->an = a->ns = a->ar = NULL;
}

const char *
module_event_str(enum module_ev ev)
{
	static const char *const names[MODULE_EVENT_COUNT] = {
		"new", "pass", "reply", "noreply", "moddone", "error" };
	if((int)ev < 0 || (int)ev >= MODULE_EVENT_COUNT)
		return "?";
	return names[ev];
}
