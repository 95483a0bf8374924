/*
 * iterator/iter_scrub.c - what the iterator believes of a reply.
 *
 * See iter_scrub.h. The reply is parsed by dns/msgparse into records in
 * the state's region (struct module_rr: owner and RDATA uncompressed);
 * names are compared case-insensitively.
 */
#include "config.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>
#include "iterator/iter_scrub.h"
#include "iterator/iterator.h"
#include "iterator/iter_env.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgparse.h"
#include "util/region.h"

int
iter_reply_parse(struct region *r, const uint8_t *pkt, size_t len,
	struct iter_reply *rep)
{
	struct dns_msg msg;
	uint8_t owner[DNS_MAX_NAME], rd[65535];
	size_t i;
	memset(rep, 0, sizeof(*rep));
	if(dns_msg_parse(pkt, len, &msg, r, DNS_PARSE_LAX_ADDR_LEN) != 0)
		return -1;
	rep->flags = msg.flags;
	rep->rcode = msg.flags & 0xf;
	rep->qdcount = msg.qdcount;
	if(msg.qdcount > 0) {
		if(dns_msg_name_at(&msg, msg.qname_off, rep->qname, NULL) == 0)
			return -1;
		rep->qtype = msg.qtype;
		rep->qclass = msg.qclass;
	}
	for(i = 0; i < msg.rr_count; i++) {
		struct dns_rr *d = &msg.rrs[i];
		struct module_rr *rr;
		size_t olen = dns_rr_owner(&msg, d, owner);
		int rdlen = dns_rr_rdata_uncompressed(&msg, d, rd, sizeof(rd));
		if(rdlen < 0 && olen != 0 && ((d->type == DNS_TYPE_A &&
			d->rdlen != 4) || (d->type == DNS_TYPE_AAAA &&
			d->rdlen != 16))) {
			/* an address of the wrong length: that record is
			 * dropped, the rest of the reply is used (as
			 * Unbound's scrubber) */
			rep->len_dropped++;
			continue;
		}
		if(olen == 0 || rdlen < 0 || d->section >= DNS_SEC_NUM)
			return -1;
		rr = module_rr_new(r, owner, olen, d->type, d->rrclass, d->ttl,
			rd, (size_t)rdlen);
		if(!rr)
			return -1;
		module_rrlist_append(&rep->sec[d->section], rr);
	}
	return 0;
}

/** remove the record *pp points at from list l (prev is the record
 * before it, or NULL) */
static void
list_unlink(struct module_rrlist *l, struct module_rr **pp,
	struct module_rr *prev)
{
	struct module_rr *rr = *pp;
	*pp = rr->next;
	if(l->last == rr)
		l->last = prev;
	l->count--;
}

int
iter_scrub_zone(struct module_rrlist *l, const uint8_t *zone)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	int ns = 0;
	while(*pp) {
		struct module_rr *rr = *pp;
		if(!dname_is_subdomain(rr->owner, zone) ||
			rr->type == DNS_TYPE_OPT) {
			if(rr->type == DNS_TYPE_NS)
				ns++;
			list_unlink(l, pp, prev);
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
	return ns;
}

/** SvcParamKeys of the address hints (RFC 9460 section 14.3.2) */
#define SVC_KEY_IPV4HINT 4
#define SVC_KEY_IPV6HINT 6

/** @return 1 when an SVCB or HTTPS record's ipv4hint or ipv6hint
 * (RFC 9460 section 7.3) holds a private address (private-address) */
static int
svcb_hint_private(struct iter_env *env, const struct module_rr *rr)
{
	size_t p = 2, n, vlen, i, alen;
	if(rr->rdlen < 3)
		return 0;
	if((n = dname_valid(rr->rdata + 2, rr->rdlen - 2)) == 0)
		return 0; /* (malformed: not ours to judge here) */
	p += n;
	while(p + 4 <= rr->rdlen) {
		uint16_t key = dns_read_u16(rr->rdata + p);
		vlen = dns_read_u16(rr->rdata + p + 2);
		p += 4;
		if(p + vlen > rr->rdlen)
			return 0;
		alen = key == SVC_KEY_IPV4HINT ? 4 : key == SVC_KEY_IPV6HINT ?
			16 : 0;
		for(i = 0; alen && i + alen <= vlen; i += alen) {
			struct netaddr na;
			if(iter_addr_from_rdata(&na, alen == 4 ? DNS_TYPE_A :
				DNS_TYPE_AAAA, rr->rdata + p + i, alen) == 0 &&
				iter_addr_private(env, &na))
				return 1;
		}
		p += vlen;
	}
	return 0;
}

int
iter_scrub_private(struct iter_env *env, struct module_rrlist *l)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	int removed = 0;
	if(!env->priv)
		return 0;
	while(*pp) {
		struct module_rr *rr = *pp;
		struct netaddr na;
		if(((iter_addr_from_rdata(&na, rr->type, rr->rdata,
			rr->rdlen) == 0 && iter_addr_private(env, &na)) ||
			((rr->type == DNS_TYPE_SVCB ||
			rr->type == DNS_TYPE_HTTPS) &&
			svcb_hint_private(env, rr))) &&
			!iter_name_privdom(env, rr->owner)) {
			list_unlink(l, pp, prev);
			removed++;
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
	return removed;
}

/** harden-glue: no: as iter_scrub_zone, but A and AAAA records outside
 * the zone stay (glue the server is not authoritative for, believed) */
static void
scrub_zone_keep_addr(struct module_rrlist *l, const uint8_t *zone)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	while(*pp) {
		struct module_rr *rr = *pp;
		if(rr->type == DNS_TYPE_OPT || (rr->type != DNS_TYPE_A &&
			rr->type != DNS_TYPE_AAAA &&
			!dname_is_subdomain(rr->owner, zone))) {
			list_unlink(l, pp, prev);
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
}

/** @return 1 when rr is an NS record or an RRSIG that covers NS */
static int
rr_is_ns(const struct module_rr *rr)
{
	return rr->type == DNS_TYPE_NS || (rr->type == DNS_TYPE_RRSIG &&
		rr->rdlen >= 2 && ((rr->rdata[0] << 8) | rr->rdata[1]) ==
		DNS_TYPE_NS);
}

/** distinct NS owners counted per list by iter_scrub_ns (a reply with
 * more is junk; the NS records of further owners are dropped) */
#define SCRUB_NS_OWNERS 16

int
iter_scrub_ns(struct module_rrlist *l, int max)
{
	const uint8_t *owner[SCRUB_NS_OWNERS];
	int count[SCRUB_NS_OWNERS], owners = 0, removed = 0;
	struct module_rr **pp = &l->first, *prev = NULL;
	while(*pp) {
		struct module_rr *rr = *pp;
		int i;
		if(rr->type != DNS_TYPE_NS) {
			prev = rr;
			pp = &rr->next;
			continue;
		}
		for(i = 0; i < owners; i++)
			if(dname_equal(owner[i], rr->owner))
				break;
		if(i == owners && owners < SCRUB_NS_OWNERS) {
			owner[owners] = rr->owner;
			count[owners++] = 0;
		}
		if(i == owners || ++count[i] > max) {
			list_unlink(l, pp, prev);
			removed++;
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
	return removed;
}

int
iter_scrub_cname(struct module_rrlist *l, int max)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	int seen = 0, removed = 0;
	while(*pp) {
		struct module_rr *rr = *pp;
		if((rr->type == DNS_TYPE_CNAME || rr->type == DNS_TYPE_DNAME) &&
			++seen > max) {
			list_unlink(l, pp, prev);
			removed++;
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
	return removed;
}

int
iter_scrub_promiscuous(struct iter_reply *rep)
{
	struct module_rrlist *l = &rep->sec[DNS_SEC_AUTHORITY];
	struct module_rr **pp = &l->first, *prev = NULL;
	int removed = 0;
	if(rep->rcode == DNS_RCODE_NOERROR &&
		rep->sec[DNS_SEC_ANSWER].count == 0)
		return 0; /* a referral or NODATA: the NS set may be needed */
	while(*pp) {
		struct module_rr *rr = *pp;
		if(rr_is_ns(rr)) {
			list_unlink(l, pp, prev);
			removed++;
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
	return removed;
}

/** @return the last record of the RRset owner/type (not its RRSIGs) in
 * a list, or NULL */
static struct module_rr *
rrset_last(const struct module_rrlist *l, const uint8_t *owner,
	uint16_t type)
{
	struct module_rr *rr, *last = NULL;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == type && dname_equal(rr->owner, owner))
			last = rr;
	return last;
}

/**
 * Put every RRSIG into the section of the RRset it covers: a server that
 * sends an RRset's signature in another section (the answer's RRSIG in
 * the additional section) still signed it, and Unbound's message parser
 * joins the two wherever they are. An RRSIG whose RRset is in its own
 * section, or in none, stays. The record moves (no copy) to its RRset,
 * among the RRset's RRSIGs in packet order (after them when it came from
 * a later section, before them from an earlier one).
 */
static void
scrub_sig_sections(struct iter_reply *rep)
{
	int i, j, to;
	for(i = 0; i < 3; i++) {
		struct module_rrlist *l = &rep->sec[i];
		struct module_rr **pp = &l->first, *prev = NULL;
		while(*pp) {
			struct module_rr *rr = *pp, *at = NULL;
			uint16_t t = 0;
			if(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2 &&
				!rrset_last(l, rr->owner, dns_read_u16(
				rr->rdata)))
				t = dns_read_u16(rr->rdata);
			for(j = 0, to = -1; t && j < 3 && !at; j++)
				if(j != i && (at = rrset_last(&rep->sec[j],
					rr->owner, t)) != NULL)
					to = j;
			if(!at) {
				prev = rr;
				pp = &rr->next;
				continue;
			}
			if(to < i) {
				/* it came later in the packet than the
				 * RRset's own RRSIGs: after them (packet
				 * order, as Unbound keeps it) */
				struct module_rr *o;
				for(o = at->next; o && o->type ==
					DNS_TYPE_RRSIG && o->rdlen >= 2 &&
					dns_read_u16(o->rdata) == t &&
					dname_equal(o->owner, rr->owner);
					o = o->next)
					at = o;
			}
			list_unlink(l, pp, prev);
			rr->next = at->next;
			at->next = rr;
			if(rep->sec[to].last == at)
				rep->sec[to].last = rr;
			rep->sec[to].count++;
		}
	}
}

/** remove the records of another class than cls from list l */
static void
scrub_class(struct module_rrlist *l, uint16_t cls)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	while(*pp) {
		struct module_rr *rr = *pp;
		if(rr->rrclass != cls) {
			list_unlink(l, pp, prev);
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
}

/** signatures kept per RRset, as Unbound's scrubber keeps (more only
 * give a validator work: KeyTrap) */
#define ITER_MAX_RRSIGS 8

/** drop the RRSIGs past the first ITER_MAX_RRSIGS of each owner and
 * covered type in a list */
static void
scrub_sig_count(struct module_rrlist *l)
{
	struct module_rr **pp = &l->first, *prev = NULL;
	while(*pp) {
		struct module_rr *rr = *pp, *o;
		int n = 0;
		if(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2) {
			uint16_t t = dns_read_u16(rr->rdata);
			for(o = l->first; o != rr && n < ITER_MAX_RRSIGS;
				o = o->next)
				if(o->type == DNS_TYPE_RRSIG && o->rdlen >= 2 &&
					dns_read_u16(o->rdata) == t &&
					dname_equal(o->owner, rr->owner))
					n++;
			if(n >= ITER_MAX_RRSIGS) {
				list_unlink(l, pp, prev);
				continue;
			}
		}
		prev = rr;
		pp = &rr->next;
	}
}

/** @return 1 when rr is the DNAME record at owner, or an RRSIG over it */
static int
rr_is_dname_at(const struct module_rr *rr, const uint8_t *owner)
{
	if(!dname_equal(rr->owner, owner))
		return 0;
	return rr->type == DNS_TYPE_DNAME || (rr->type == DNS_TYPE_RRSIG &&
		rr->rdlen >= 2 && dns_read_u16(rr->rdata) == DNS_TYPE_DNAME);
}

int
iter_dname_too_long(const struct module_rr *d, const uint8_t *qname)
{
	int keep = dname_count_labels(qname) - dname_count_labels(d->owner);
	size_t tlen = dname_valid(d->rdata, d->rdlen);
	const uint8_t *p = qname;
	int i;
	if(tlen == 0 || keep <= 0 || !dname_is_strict_subdomain(qname,
		d->owner))
		return 0;
	for(i = 0; i < keep; i++)
		p += 1 + *p;
	return (size_t)(p - qname) + tlen > 255;
}

/** @return 1 when the DNAME record d turns qname into target */
static int
dname_synth_is(const struct module_rr *d, const uint8_t *qname,
	const uint8_t *target)
{
	int keep = dname_count_labels(qname) - dname_count_labels(d->owner);
	size_t tlen = dname_valid(d->rdata, d->rdlen), prefix;
	const uint8_t *p = qname;
	uint8_t out[512];
	int i;
	if(tlen == 0 || keep <= 0)
		return 0;
	for(i = 0; i < keep; i++)
		p += 1 + *p;
	prefix = (size_t)(p - qname);
	if(prefix + tlen > 255)
		return 0;
	memcpy(out, qname, prefix);
	memcpy(out + prefix, d->rdata, tlen);
	return dname_equal(out, target);
}

void
iter_scrub_chain(struct iter_reply *rep)
{
	struct module_rrlist *l = &rep->sec[DNS_SEC_ANSWER];
	struct module_rr **pp, *prev = NULL, *rr;
	const uint8_t *cname_target = NULL, *dn = NULL;
	if(rep->qdcount != 1)
		return;
	/* the DNAME that applies to the name asked: the first in the
	 * packet; after a CNAME at the name only the DNAME that made that
	 * very CNAME (a server that put its synthesis first) */
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_CNAME && !cname_target &&
			dname_equal(rr->owner, rep->qname) &&
			dname_valid(rr->rdata, rr->rdlen) > 0)
			cname_target = rr->rdata;
		if(rr->type != DNS_TYPE_DNAME ||
			!dname_is_strict_subdomain(rep->qname, rr->owner))
			continue;
		if(!cname_target || dname_synth_is(rr, rep->qname,
			cname_target))
			dn = rr->owner;
		break;
	}
	pp = &l->first;
	while(*pp) {
		rr = *pp;
		if(!dname_equal(rr->owner, rep->qname) &&
			!(dn && rr_is_dname_at(rr, dn))) {
			list_unlink(l, pp, prev);
			continue;
		}
		prev = rr;
		pp = &rr->next;
	}
}

/** @return 1 when rr is an NSEC record whose next name is outside zone
 * (or unreadable) */
static int
nsec_overreach(const struct module_rr *rr, const uint8_t *zone)
{
	return rr->type == DNS_TYPE_NSEC && (dname_valid(rr->rdata,
		rr->rdlen) == 0 || !dname_is_subdomain(rr->rdata, zone));
}

/** @return 1 when rr is the NSEC record or an RRSIG over NSEC at owner */
static int
rr_is_nsec_at(const struct module_rr *rr, const uint8_t *owner)
{
	return dname_equal(rr->owner, owner) && (rr->type == DNS_TYPE_NSEC ||
		(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2 &&
		dns_read_u16(rr->rdata) == DNS_TYPE_NSEC));
}

int
iter_scrub_nsec_overreach(struct module_rrlist *l, const uint8_t *zone)
{
	int removed = 0;
	for(;;) {
		struct module_rr **pp = &l->first, *prev = NULL, *rr;
		uint8_t owner[256];
		for(rr = l->first; rr && !nsec_overreach(rr, zone);
			rr = rr->next)
			;
		if(!rr)
			return removed;
		/* the whole NSEC set at that owner goes, with its RRSIGs,
		 * as Unbound's sanitize removes the RRset */
		memcpy(owner, rr->owner, dname_len(rr->owner));
		while(*pp) {
			rr = *pp;
			if(rr_is_nsec_at(rr, owner)) {
				list_unlink(l, pp, prev);
				removed++;
				continue;
			}
			prev = rr;
			pp = &rr->next;
		}
	}
}

void
iter_scrub_reply(struct iter_reply *rep, const uint8_t *zone,
	struct iter_env *env)
{
	int i;
	/* records of another class than the question's are no part of the
	 * answer (a referral's CH glue is no address for an IN server) */
	if(rep->qclass != DNS_CLASS_ANY)
		for(i = 0; i < DNS_SEC_NUM; i++)
			scrub_class(&rep->sec[i], rep->qclass);
	scrub_sig_sections(rep);
	for(i = 0; i < DNS_SEC_NUM; i++)
		scrub_sig_count(&rep->sec[i]);
	if(zone) {
		iter_scrub_zone(&rep->sec[DNS_SEC_ANSWER], zone);
		rep->ns_dropped = iter_scrub_zone(&rep->sec[DNS_SEC_AUTHORITY],
			zone);
		if(env->harden_glue)
			iter_scrub_zone(&rep->sec[DNS_SEC_ADDITIONAL], zone);
		else	scrub_zone_keep_addr(&rep->sec[DNS_SEC_ADDITIONAL],
				zone);
		if(iter_scrub_cname(&rep->sec[DNS_SEC_ANSWER],
			env->scrub_cname) > 0)
			verbose(VERB_ALGO, "iterator: scrubbed CNAME/DNAME "
				"records past iter-scrub-cname (%d)",
				env->scrub_cname);
		if(iter_scrub_ns(&rep->sec[DNS_SEC_ANSWER], env->scrub_ns) +
			iter_scrub_ns(&rep->sec[DNS_SEC_AUTHORITY],
			env->scrub_ns) > 0)
			verbose(VERB_ALGO, "iterator: scrubbed NS records past "
				"iter-scrub-ns (%d)", env->scrub_ns);
		for(i = 0; i < DNS_SEC_NUM; i++)
			if(iter_scrub_nsec_overreach(&rep->sec[i], zone) > 0)
				verbose(VERB_ALGO, "iterator: scrubbed an NSEC "
					"whose next name is outside the zone");
		if(env->scrub_promiscuous && iter_scrub_promiscuous(rep) > 0)
			verbose(VERB_ALGO, "iterator: scrubbed the promiscuous "
				"NS set of an answer");
	}
	(void)iter_scrub_private(env, &rep->sec[DNS_SEC_ANSWER]);
	iter_scrub_chain(rep);
}

/** synthesise the CNAME for name from a DNAME; @return rr or NULL */
static struct module_rr *
scrub_synth_cname(struct region *r, const struct module_rr *dname,
	const uint8_t *name)
{
	int keep = dname_count_labels(name) - dname_count_labels(dname->owner);
	uint8_t out[512];
	size_t prefix, tlen = dname_valid(dname->rdata, dname->rdlen);
	const uint8_t *p = name;
	int i;
	if(tlen == 0 || keep <= 0)
		return NULL;
	for(i = 0; i < keep; i++)
		p += 1 + *p;
	prefix = (size_t)(p - name);
	if(prefix + tlen > 255)
		return NULL; /* YXDOMAIN: too long */
	memcpy(out, name, prefix);
	memcpy(out + prefix, dname->rdata, tlen);
	return module_rr_new(r, name, dname_len(name), DNS_TYPE_CNAME,
		dname->rrclass, dname->ttl, out, prefix + tlen);
}

/** append (copies of) the RRSIGs at owner covering type from list l.
 * @return 0 or -1 */
static int
scrub_push_sigs(struct region *r, const struct module_rrlist *l,
	const uint8_t *owner, uint16_t type, struct module_rrlist *to)
{
	struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next) {
		if(rr->type != DNS_TYPE_RRSIG || rr->rdlen < 2 ||
			!dname_equal(rr->owner, owner))
			continue;
		if(dns_read_u16(rr->rdata) != type)
			continue;
		if(module_rrlist_push(r, to, rr) < 0)
			return -1;
	}
	return 0;
}

/** the name in a record's RDATA (NS, CNAME, DNAME target), or NULL */
static const uint8_t *
rr_target(const struct module_rr *rr)
{
	if(rr->rdlen == 0 || dname_valid(rr->rdata, rr->rdlen) == 0)
		return NULL;
	return rr->rdata;
}

int
iter_walk_chain(struct region *r, const struct module_rrlist *ans,
	uint8_t *name, uint16_t qtype, struct module_rrlist *chain,
	struct module_rrlist *final, int *links, int max_links, int dnssec)
{
	struct module_rr *rr;
	for(;;) {
		int found = 0, cname_first = 0;
		/* a CNAME question below a DNAME: the CNAME the DNAME makes
		 * for the name is the answer (the server's CNAME there is
		 * that synthesis), as Unbound answers it */
		for(rr = ans->first; qtype == DNS_TYPE_CNAME && rr;
			rr = rr->next) {
			struct module_rr *c;
			if(rr->type != DNS_TYPE_DNAME ||
				!dname_is_strict_subdomain(name, rr->owner))
				continue;
			if(++(*links) > max_links ||
				!(c = scrub_synth_cname(r, rr, name)))
				return -1;
			if(module_rrlist_push(r, chain, rr) < 0 ||
				(dnssec && scrub_push_sigs(r, ans, rr->owner,
				DNS_TYPE_DNAME, chain) < 0))
				return -1;
			module_rrlist_append(final, c);
			return 0;
		}
		/* a name with both a CNAME and data of the type (which no
		 * zone can have): the one that comes first, as Unbound's
		 * scrubber reads the answer in order */
		if(qtype != DNS_TYPE_CNAME && qtype != DNS_TYPE_ANY)
			for(rr = ans->first; rr; rr = rr->next)
				if(dname_equal(rr->owner, name) && (rr->type ==
					qtype || rr->type == DNS_TYPE_CNAME)) {
					cname_first = rr->type ==
						DNS_TYPE_CNAME;
					break;
				}
		for(rr = ans->first; rr && !cname_first; rr = rr->next) {
			if(!dname_equal(rr->owner, name))
				continue;
			/* (ANY under DNSSEC keeps the RRSIGs at the name:
			 * the validator checks each RRset of the answer) */
			if(rr->type == qtype || (qtype == DNS_TYPE_ANY &&
				(rr->type != DNS_TYPE_RRSIG || dnssec))) {
				if(module_rrlist_push(r, final, rr) < 0)
					return -1;
				found = 1;
			}
		}
		if(found) {
			if(dnssec && qtype != DNS_TYPE_ANY &&
				scrub_push_sigs(r, ans, name, qtype, final) < 0)
				return -1;
			return 0;
		}
		/* a DNAME above name? (before a CNAME at name: the
		 * server's CNAME beside a DNAME is its synthesis, made
		 * here again from the DNAME, which carries the RRSIG the
		 * validator checks; RFC 6672 3.2) */
		for(rr = ans->first; rr; rr = rr->next) {
			struct module_rr *c;
			if(rr->type != DNS_TYPE_DNAME ||
				!dname_is_strict_subdomain(name, rr->owner))
				continue;
			if(++(*links) > max_links)
				return -1;
			c = scrub_synth_cname(r, rr, name);
			if(!c)
				return -1;
			if(module_rrlist_push(r, chain, rr) < 0 ||
				(dnssec && scrub_push_sigs(r, ans, rr->owner,
				DNS_TYPE_DNAME, chain) < 0))
				return -1;
			module_rrlist_append(chain, c);
			if(dname_equal(c->rdata, name))
				return 0; /* a link to itself: the end */
			memcpy(name, c->rdata, c->rdlen);
			dname_tolower(name);
			found = 1;
			break;
		}
		if(found)
			continue;
		/* a CNAME at name? */
		for(rr = ans->first; rr; rr = rr->next) {
			const uint8_t *t;
			if(rr->type != DNS_TYPE_CNAME ||
				!dname_equal(rr->owner, name))
				continue;
			if(!(t = rr_target(rr)))
				return -1;
			if(++(*links) > max_links)
				return -1;
			if(module_rrlist_push(r, chain, rr) < 0)
				return -1;
			if(dnssec && scrub_push_sigs(r, ans, name,
				DNS_TYPE_CNAME, chain) < 0)
				return -1;
			if(dname_equal(t, name))
				return 0; /* a link to itself: the end */
			memcpy(name, t, dname_len(t));
			dname_tolower(name);
			found = 1;
			break;
		}
		if(!found)
			return 0;
	}
}

int
iter_copy_soa(struct region *r, const struct module_rrlist *auth,
	const uint8_t *name, struct module_rrlist *to, int dnssec)
{
	struct module_rr *rr;
	for(rr = auth->first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_SOA) {
			if(!dname_is_subdomain(name, rr->owner))
				continue;
			if(module_rrlist_push(r, to, rr) < 0)
				return -1;
			if(dnssec && scrub_push_sigs(r, auth, rr->owner,
				rr->type, to) < 0)
				return -1;
		} else if(dnssec && (rr->type == DNS_TYPE_NSEC ||
			rr->type == DNS_TYPE_NSEC3)) {
			if(module_rrlist_push(r, to, rr) < 0 ||
				scrub_push_sigs(r, auth, rr->owner, rr->type,
				to) < 0)
				return -1;
		}
	}
	return 0;
}

int
iter_copy_nsec(struct region *r, const struct module_rrlist *auth,
	struct module_rrlist *to)
{
	struct module_rr *rr;
	for(rr = auth->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NSEC || rr->type == DNS_TYPE_NSEC3 ||
			(rr->type == DNS_TYPE_RRSIG && rr->rdlen >= 2 &&
			(dns_read_u16(rr->rdata) == DNS_TYPE_NSEC ||
			dns_read_u16(rr->rdata) == DNS_TYPE_NSEC3)))
			if(module_rrlist_push(r, to, rr) < 0)
				return -1;
	return 0;
}

int
iter_has_soa(const struct module_rrlist *auth)
{
	struct module_rr *rr;
	for(rr = auth->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_SOA)
			return 1;
	return 0;
}

struct module_rr *
iter_find_ns(const struct module_rrlist *auth, const uint8_t *name)
{
	struct module_rr *rr, *best = NULL;
	for(rr = auth->first; rr; rr = rr->next) {
		if(rr->type != DNS_TYPE_NS)
			continue;
		if(!dname_is_subdomain(name, rr->owner))
			continue;
		if(!best || dname_count_labels(rr->owner) >
			dname_count_labels(best->owner))
			best = rr;
	}
	return best;
}

/** @return 1 when a list holds a record that is not an NS record or
 * its RRSIG (an NS set here is a sideways one: it says nothing) */
static int
has_non_ns(const struct module_rrlist *l)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(!rr_is_ns(rr))
			return 1;
	return 0;
}

/** @return 1 when a list holds a DS record at name */
static int
iter_has_ds(const struct module_rrlist *l, const uint8_t *name)
{
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_DS && dname_equal(rr->owner, name))
			return 1;
	return 0;
}

/** iter_classify without the recursion-lame check */
static enum iter_class
classify(struct region *r, struct iter_reply *rep, uint8_t *name,
	uint16_t qtype, const uint8_t *zone, int forward,
	struct module_rrlist *chain, struct module_rrlist *final, int *links,
	int max_links, int dnssec, struct module_rr **nsrr)
{
	struct module_rrlist *auth = &rep->sec[DNS_SEC_AUTHORITY];
	int aa = (rep->flags & DNS_FLAG_AA) != 0;
	uint8_t start[256];
	struct module_rr *ns;
	*nsrr = NULL;
	memcpy(start, name, dname_len(name));
	if(iter_walk_chain(r, &rep->sec[DNS_SEC_ANSWER], name, qtype, chain,
		final, links, max_links, dnssec) < 0)
		return ITER_CL_ERROR;
	if(qtype == DNS_TYPE_CNAME && rep->rcode == DNS_RCODE_NXDOMAIN &&
		final->first && final->first->type == DNS_TYPE_CNAME &&
		dname_equal(final->first->owner, name) &&
		rr_target(final->first)) {
		/* a CNAME question answered with the CNAME and NXDOMAIN: the
		 * server chased it, and says its target does not exist; the
		 * target is asked for (its zone's denial, with its proof),
		 * as Unbound takes it as a CNAME response */
		const uint8_t *t = rr_target(final->first);
		if(++(*links) > max_links)
			return ITER_CL_ERROR;
		memcpy(name, t, dname_len(t));
		dname_tolower(name);
		if(chain->last)
			chain->last->next = final->first;
		else	chain->first = final->first;
		chain->last = final->last;
		chain->count += final->count;
		memset(final, 0, sizeof(*final));
		return ITER_CL_CNAME;
	}
	if(forward) {
		/* a forwarder answers recursively: taken as it is; but a
		 * chain that stops short of the data (a CNAME and a denial)
		 * is followed, as Unbound does: the target is asked for, so
		 * the denial is the target zone's own (with its proof) */
		if(final->count > 0)
			return ITER_CL_ANSWER;
		if(!dname_equal(name, start))
			return ITER_CL_CNAME;
		if(rep->rcode == DNS_RCODE_NXDOMAIN)
			return ITER_CL_NXDOMAIN;
		/* but an upward referral (no answer, no SOA, an NS set
		 * above the zone it is asked for) says it did not recurse:
		 * lame, as Unbound */
		if(rep->sec[DNS_SEC_ANSWER].count == 0 && !iter_has_soa(auth) &&
			(ns = iter_find_ns(auth, name)) != NULL &&
			!dname_is_subdomain(ns->owner, zone))
			return ITER_CL_LAME;
		return ITER_CL_NODATA;
	}
	if(final->count > 0)
		return ITER_CL_ANSWER;
	if(!dname_equal(name, start)) {
		/* the chain moved to a new name: the server may say what
		 * is there when it is authoritative for it; an NXDOMAIN
		 * for a target outside the zone asked is not this server's
		 * to say: that zone's servers are asked, as Unbound does
		 * (their denial is the target zone's own, and following the
		 * chain learns the zone's delegation, which the validator
		 * needs for its keys) */
		if(rep->rcode == DNS_RCODE_NXDOMAIN &&
			dname_is_subdomain(name, zone))
			return ITER_CL_NXDOMAIN;
		if(rep->rcode == DNS_RCODE_NXDOMAIN)
			return ITER_CL_CNAME;
		if(aa && iter_has_soa(auth) && dname_is_subdomain(name, zone))
			return ITER_CL_NODATA;
		return ITER_CL_CNAME;
	}
	if(rep->rcode == DNS_RCODE_NXDOMAIN)
		return ITER_CL_NXDOMAIN;
	ns = iter_find_ns(auth, name);
	if(ns && (!aa || !iter_has_soa(auth)) &&
		rep->sec[DNS_SEC_ANSWER].count == 0 &&
		(!aa || dname_is_strict_subdomain(ns->owner, zone))) {
		/* a referral (some servers set AA on referrals too); one
		 * that is not below the zone is upward or sideways: lame */
		if(qtype == DNS_TYPE_DS && dname_equal(ns->owner, name) &&
			!iter_has_ds(auth, name) && has_non_ns(auth)) {
			/* the DS question answered with the referral to
			 * that very zone: what the parent says of the DS
			 * is the NSEC or NSEC3 proof it carries; the child
			 * cannot answer for it (RFC 4035 3.1.4.1) */
			return ITER_CL_NODATA;
		}
		if(qtype == DNS_TYPE_DS && dname_equal(ns->owner, name) &&
			dname_is_strict_subdomain(name, zone)) {
			/* the DS question answered with the referral to that
			 * very zone, the DS set in it: that set is the
			 * parent's answer (as Unbound takes it); the child
			 * has none to give */
			struct module_rr *rr;
			for(rr = auth->first; rr; rr = rr->next)
				if(rr->type == DNS_TYPE_DS &&
					dname_equal(rr->owner, name) &&
					module_rrlist_push(r, final, rr) < 0)
					return ITER_CL_ERROR;
			if(final->count > 0) {
				if(dnssec && scrub_push_sigs(r, auth, name,
					DNS_TYPE_DS, final) < 0)
					return ITER_CL_ERROR;
				return ITER_CL_ANSWER;
			}
		}
		if(dname_is_strict_subdomain(ns->owner, zone)) {
			*nsrr = ns;
			return ITER_CL_REFERRAL;
		}
		return ITER_CL_LAME;
	}
	if(aa && !iter_has_soa(auth) && rep->ns_dropped > 0 &&
		auth->count == 0)
		return ITER_CL_USELESS;
	if(aa && rep->sec[DNS_SEC_ANSWER].count == 0 && auth->count == 0 &&
		rep->sec[DNS_SEC_ADDITIONAL].count == 0)
		return ITER_CL_EMPTY;
	/* no SOA and not authoritative, but something in the authority
	 * section (NSEC or NSEC3 records without their SOA), or nothing at
	 * all: NODATA (RFC 2308 2.2: no relevant answer and no NS records),
	 * as Unbound takes it (an RA reply is recursion lame,
	 * iter_classify); one with NS records not above the name, or
	 * whose authority records the bailiwick scrub dropped (an upward
	 * or sideways referral), is lame, as Unbound keeps such an NS set
	 * to find the server lame */
	if(aa || iter_has_soa(auth) || has_non_ns(auth) ||
		(auth->count == 0 && rep->ns_dropped == 0))
		return ITER_CL_NODATA;
	return ITER_CL_LAME;
}

enum iter_class
iter_classify(struct region *r, struct iter_reply *rep, uint8_t *name,
	uint16_t qtype, const uint8_t *zone, int forward,
	struct module_rrlist *chain, struct module_rrlist *final, int *links,
	int max_links, int dnssec, struct module_rr **nsrr)
{
	struct module_rrlist was = *chain;
	int links_was = *links;
	enum iter_class c = classify(r, rep, name, qtype, zone, forward,
		chain, final, links, max_links, dnssec, nsrr);
	if(!forward && (rep->flags & DNS_FLAG_RA) &&
		!(rep->flags & DNS_FLAG_AA) && (c == ITER_CL_ANSWER ||
		c == ITER_CL_CNAME || c == ITER_CL_NXDOMAIN ||
		c == ITER_CL_NODATA || c == ITER_CL_LAME)) {
		/* recursion lame: nothing of the reply is taken */
		*chain = was;
		if(chain->last)
			chain->last->next = NULL;
		*links = links_was;
		return ITER_CL_RECLAME;
	}
	return c;
}


const char *
iter_class_str(enum iter_class c)
{
	switch(c) {
	case ITER_CL_ANSWER: return "answer";
	case ITER_CL_CNAME: return "cname";
	case ITER_CL_REFERRAL: return "referral";
	case ITER_CL_NXDOMAIN: return "nxdomain";
	case ITER_CL_NODATA: return "nodata";
	case ITER_CL_LAME: return "lame";
	case ITER_CL_RECLAME: return "recursion lame";
	case ITER_CL_USELESS: return "useless";
	case ITER_CL_EMPTY: return "empty";
	case ITER_CL_ERROR: return "error";
	}
	return "?";
}
