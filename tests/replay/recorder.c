/*
 * tests/replay/recorder.c - the replay runner's test module.
 *
 * See recorder.h. The log is a fixed buffer: a scenario that records more
 * than it holds fails its check (the text ends in "...overflow").
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <stdio.h>
#include <string.h>
#include <ldns/ldns.h>
#include "tests/replay/recorder.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"

/** the log */
static char rec_buf[16384];
/** bytes used in it */
static size_t rec_len;
/** 1 when something did not fit */
static int rec_overflow;

void
recorder_reset(void)
{
	rec_len = 0;
	rec_buf[0] = 0;
	rec_overflow = 0;
}

const char *
recorder_log(void)
{
	if(rec_overflow)
		return "...overflow\n";
	return rec_buf;
}

/** append text to the log */
static void
rec_add(const char *s)
{
	size_t n = strlen(s);
	if(rec_len + n + 1 > sizeof(rec_buf)) {
		rec_overflow = 1;
		return;
	}
	memcpy(rec_buf + rec_len, s, n + 1);
	rec_len += n;
}

/** one line for an event */
static void
rec_event(struct module_qstate *qs, enum module_ev ev)
{
	char line[DNS_MAX_NAME_STR + 64], name[DNS_MAX_NAME_STR], t[16];
	(void)dname_to_str(qs->qname, name, sizeof(name));
	snprintf(line, sizeof(line), "%s %s %s", module_event_str(ev), name,
		dns_type_str(qs->qtype, t, sizeof(t)));
	rec_add(line);
	if(ev == MODULE_EVENT_MODDONE) {
		char rc[16];
		ldns_lookup_table *lt = ldns_lookup_by_id(ldns_rcodes,
			qs->return_rcode);
		snprintf(rc, sizeof(rc), "%s", lt ? lt->name : "RCODE?");
		rec_add(" ");
		rec_add(rc);
		if(qs->return_msg) {
			struct module_rr *rr;
			for(rr = qs->return_msg->an.first; rr; rr = rr->next) {
				rec_add(" ");
				rec_add(dns_type_str(rr->type, t, sizeof(t)));
			}
		}
	}
	rec_add("\n");
}

/** operate: record, pass new queries down, let answers through */
static void
rec_operate(struct module_qstate *qs, enum module_ev ev, int id,
	struct module_reply *reply)
{
	(void)reply;
	rec_event(qs, ev);
	switch(ev) {
	case MODULE_EVENT_NEW:
	case MODULE_EVENT_PASS:
		qs->ext_state[id] = MODULE_WAIT_MODULE;
		return;
	case MODULE_EVENT_MODDONE:
		qs->ext_state[id] = MODULE_FINISHED;
		return;
	case MODULE_EVENT_REPLY:
	case MODULE_EVENT_NOREPLY:
	case MODULE_EVENT_ERROR:
	default:
		/* it sends nothing: a reply for it is a mesh bug */
		qs->ede = DNS_EDE_OTHER;
		qs->ext_state[id] = MODULE_ERROR;
		return;
	}
}

/** inform_super: it starts no sub-queries, so this is never called */
static void
rec_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	char line[DNS_MAX_NAME_STR + 64], name[DNS_MAX_NAME_STR], t[16];
	(void)id;
	(void)super;
	(void)dname_to_str(sub->qname, name, sizeof(name));
	snprintf(line, sizeof(line), "inform_super %s %s\n", name,
		dns_type_str(sub->qtype, t, sizeof(t)));
	rec_add(line);
}

const struct module_func_block recorder_module_block = {
	.name = RECORDER_NAME,
	.operate = rec_operate,
	.inform_super = rec_inform_super,
};
