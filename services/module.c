/*
 * services/module.c - what the module contract shares: the records of an
 * answer, naming events.
 *
 * See module.h for the contract. The table of the modules this build has
 * is in front/modstack.c, which sits above the modules (it names them).
 */
#include "config.h"
#include "util/log.h"
#include <string.h>
#include "services/module.h"
#include "util/region.h"

struct module_rr *
module_rr_new(struct region *r, const uint8_t *owner, size_t owner_len,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	struct module_rr *rr = region_alloc_zero(r, sizeof(*rr));
	uint8_t *o, *d = NULL;
	if(!rr || rdlen > 65535)
		return NULL;
	o = region_memdup(r, owner, owner_len);
	if(rdlen > 0)
		d = region_memdup(r, rdata, rdlen);
	if(!o || (rdlen > 0 && !d))
		return NULL;
	rr->owner = o;
	rr->owner_len = owner_len;
	rr->type = type;
	rr->rrclass = rrclass;
	rr->ttl = ttl;
	rr->rdata = d;
	rr->rdlen = (uint16_t)rdlen;
	return rr;
}

void
module_rrlist_append(struct module_rrlist *l, struct module_rr *rr)
{
	rr->next = NULL;
	if(l->last)
		l->last->next = rr;
	else	l->first = rr;
	l->last = rr;
	l->count++;
}

int
module_rrlist_push(struct region *r, struct module_rrlist *l,
	const struct module_rr *rr)
{
	struct module_rr *c = region_alloc(r, sizeof(*c));
	if(!c)
		return -1;
	*c = *rr;
	module_rrlist_append(l, c);
	return 0;
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
