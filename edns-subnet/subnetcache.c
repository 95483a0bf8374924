/*
 * edns-subnet/subnetcache.c - the subnetcache module (RFC 7871).
 *
 * See subnetcache.h for what it does. The cache keeps each answer as one
 * heap block: the entry, its records' structs and their bytes, so that
 * freeing an entry is one free(). A hit copies the records into the
 * state's region with their TTLs aged.
 */
#include "config.h"
#include "edns-subnet/subnetcache.h"
#include "dns/ecs.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/region.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

/** buckets of the question table (a power of 2) */
#define ECS_TABLE_SIZE 1024

/** one answer for one subnet of a question */
struct ecs_entry {
	/** next in the question's list */
	struct ecs_entry *next;
	/** 1 IPv4, 2 IPv6 */
	uint16_t family;
	/** the scope prefix length */
	uint8_t scope;
	/** the net: the first scope bits of the address, the rest zero */
	uint8_t net[16];
	/** when it was stored, and when it expires */
	time_t stored, expire;
	/** bytes of the block */
	size_t size;
	/** the answer (its lists point into this block) */
	struct mesh_answer ans;
};

/** a question and its subnets */
struct ecs_tree {
	/** hash chain */
	struct ecs_tree *hnext;
	/** use list: most recent first */
	struct ecs_tree *prev, *next;
	/** hash of the key */
	uint32_t hash;
	/** the key */
	uint8_t qname[DNS_MAX_NAME];
	uint16_t qtype, qclass;
	int flags;
	/** the entries */
	struct ecs_entry *entries;
	/** number of IPv4 and IPv6 entries */
	size_t n4, n6;
};

struct ecs_cache {
	/** the question table */
	struct ecs_tree *table[ECS_TABLE_SIZE];
	/** use list */
	struct ecs_tree *first, *last;
	/** bytes used, and the bound */
	size_t mem, maxmem;
	/** most entries per question and family */
	size_t max4, max6;
	/** bounds of an entry's lifetime (cache-min-ttl, cache-max-ttl;
	 * max 0: none) */
	uint32_t min_ttl, max_ttl;
};

/** the module's settings */
struct subnet_env {
	/** send-client-subnet netblocks, and their number */
	struct netblock *nets;
	size_t nnets;
	/** client-subnet-zone names (wire, lower case), and their number */
	uint8_t (*zones)[DNS_MAX_NAME];
	size_t nzones;
	/** client-subnet-always-forward */
	int always;
	/** the option code */
	uint16_t code;
	/** max- and min-client-subnet-ipv4/6 */
	int max4, max6, min4, min6;
	/** max-ecs-tree-size-ipv4/6 */
	int tree4, tree6;
	/** the bytes of one worker's cache */
	size_t maxmem;
	/** cache-min-ttl and cache-max-ttl */
	uint32_t min_ttl, max_ttl;
};

/** per state */
struct subnet_qstate {
	/** the module's index in the stack (for the hook) */
	int id;
	/** the source prefix sent upstream, and the address (cut to it) */
	int source;
	uint8_t addr[16];
	/** 1 once the option went out on a query */
	int sent;
	/** 1 once a reply held a matching option; the largest scope */
	int got;
	int scope;
};

/* ---- the cache ---- */

/** hash of a question */
static uint32_t
tree_hash(const uint8_t *qname, uint16_t qtype, uint16_t qclass, int flags)
{
	uint32_t h = 2166136261u;
	size_t i, n = dname_len(qname);
	for(i = 0; i < n; i++) {
		h ^= qname[i];
		h *= 16777619u;
	}
	h ^= qtype; h *= 16777619u;
	h ^= qclass; h *= 16777619u;
	h ^= (uint32_t)flags; h *= 16777619u;
	return h;
}

struct ecs_cache *
ecs_cache_create(size_t maxmem, int max4, int max6)
{
	struct ecs_cache *c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	c->maxmem = maxmem;
	c->max4 = max4 > 0 ? (size_t)max4 : 0;
	c->max6 = max6 > 0 ? (size_t)max6 : 0;
	c->mem = sizeof(*c);
	return c;
}

void
ecs_cache_set_ttl(struct ecs_cache *c, uint32_t min_ttl, uint32_t max_ttl)
{
	c->min_ttl = min_ttl;
	c->max_ttl = max_ttl;
}

/** free an entry of a tree (unlinked by the caller) */
static void
entry_free(struct ecs_cache *c, struct ecs_tree *t, struct ecs_entry *e)
{
	if(e->family == 1)
		t->n4--;
	else	t->n6--;
	c->mem -= e->size;
	free(e);
}

/** take a tree out of the table and the use list and free it */
static void
tree_free(struct ecs_cache *c, struct ecs_tree *t)
{
	struct ecs_tree **pp = &c->table[t->hash & (ECS_TABLE_SIZE - 1)];
	while(*pp && *pp != t)
		pp = &(*pp)->hnext;
	if(*pp)
		*pp = t->hnext;
	if(t->prev)
		t->prev->next = t->next;
	else	c->first = t->next;
	if(t->next)
		t->next->prev = t->prev;
	else	c->last = t->prev;
	while(t->entries) {
		struct ecs_entry *e = t->entries;
		t->entries = e->next;
		entry_free(c, t, e);
	}
	c->mem -= sizeof(*t);
	free(t);
}

void
ecs_cache_delete(struct ecs_cache *c)
{
	if(!c)
		return;
	while(c->first)
		tree_free(c, c->first);
	free(c);
}

/** find a question; move it to the front of the use list */
static struct ecs_tree *
tree_find(struct ecs_cache *c, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags)
{
	uint32_t h = tree_hash(qname, qtype, qclass, flags);
	struct ecs_tree *t;
	for(t = c->table[h & (ECS_TABLE_SIZE - 1)]; t; t = t->hnext)
		if(t->hash == h && t->qtype == qtype && t->qclass == qclass &&
			t->flags == flags && dname_equal(t->qname, qname))
			break;
	if(t && t != c->first) {
		t->prev->next = t->next;
		if(t->next)
			t->next->prev = t->prev;
		else	c->last = t->prev;
		t->prev = NULL;
		t->next = c->first;
		c->first->prev = t;
		c->first = t;
	}
	return t;
}

/** @return bytes a list's records take in a block */
static size_t
list_size(const struct module_rrlist *l, size_t *n)
{
	const struct module_rr *rr;
	size_t s = 0;
	for(rr = l->first; rr; rr = rr->next) {
		s += sizeof(struct module_rr) + rr->owner_len + rr->rdlen;
		(*n)++;
	}
	return s;
}

/** copy a list into a block at *p; the smallest TTL goes into *ttl */
static void
list_copy(struct module_rrlist *to, const struct module_rrlist *from,
	uint8_t **p, uint32_t *ttl)
{
	const struct module_rr *rr;
	memset(to, 0, sizeof(*to));
	for(rr = from->first; rr; rr = rr->next) {
		struct module_rr *c = (struct module_rr *)*p;
		uint8_t *o, *d;
		*p += sizeof(*c);
		o = *p;
		memcpy(o, rr->owner, rr->owner_len);
		*p += rr->owner_len;
		d = *p;
		if(rr->rdlen)
			memcpy(d, rr->rdata, rr->rdlen);
		*p += rr->rdlen;
		*c = *rr;
		c->next = NULL;
		c->owner = o;
		c->rdata = d;
		module_rrlist_append(to, c);
		if(rr->ttl < *ttl)
			*ttl = rr->ttl;
	}
}

/** make room: drop the questions used longest ago while over the bound
 * (never keep) */
static void
cache_shrink(struct ecs_cache *c, struct ecs_tree *keep)
{
	while(c->mem > c->maxmem && c->last && c->last != keep)
		tree_free(c, c->last);
}

int
ecs_cache_store(struct ecs_cache *c, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint16_t family, const uint8_t *addr,
	int scope, const struct mesh_answer *ans, time_t now)
{
	struct ecs_tree *t;
	struct ecs_entry *e, **pp, **victim = NULL;
	size_t size, nrr = 0, max = family == 1 ? c->max4 : c->max6,
		*count;
	uint32_t ttl = 0xffffffffU;
	uint8_t net[16], *p;
	if((family != 1 && family != 2) || scope <= 0 ||
		scope > (int)ecs_addr_len(family) * 8 || max == 0 || !ans)
		return -1;
	memset(net, 0, sizeof(net));
	memcpy(net, addr, ecs_addr_len(family));
	ecs_mask_addr(net, sizeof(net), scope);
	size = sizeof(*e) + list_size(&ans->an, &nrr) +
		list_size(&ans->ns, &nrr) + list_size(&ans->ar, &nrr);
	if(sizeof(*c) + sizeof(*t) + size > c->maxmem)
		return -1;
	if(!(t = tree_find(c, qname, qtype, qclass, flags))) {
		if(!(t = calloc(1, sizeof(*t))))
			return -1;
		(void)dname_copy_lower(t->qname, qname);
		t->qtype = qtype;
		t->qclass = qclass;
		t->flags = flags;
		t->hash = tree_hash(t->qname, qtype, qclass, flags);
		t->hnext = c->table[t->hash & (ECS_TABLE_SIZE - 1)];
		c->table[t->hash & (ECS_TABLE_SIZE - 1)] = t;
		t->next = c->first;
		if(c->first)
			c->first->prev = t;
		else	c->last = t;
		c->first = t;
		c->mem += sizeof(*t);
	}
	/* the same net: replaced; the set full: the entry that expires
	 * first goes */
	count = family == 1 ? &t->n4 : &t->n6;
	for(pp = &t->entries; *pp; pp = &(*pp)->next) {
		if((*pp)->family != family)
			continue;
		if((*pp)->scope == scope && memcmp((*pp)->net, net, 16) == 0) {
			victim = pp;
			break;
		}
		if(!victim || (*pp)->expire < (*victim)->expire)
			victim = pp;
	}
	if(victim && ((*victim)->scope == scope &&
		memcmp((*victim)->net, net, 16) == 0 ? 1 : *count >= max)) {
		struct ecs_entry *v = *victim;
		*victim = v->next;
		entry_free(c, t, v);
	}
	if(!(e = calloc(1, size)))
		goto fail;
	e->size = size;
	e->family = family;
	e->scope = (uint8_t)scope;
	memcpy(e->net, net, 16);
	e->ans = *ans;
	p = (uint8_t *)(e + 1);
	list_copy(&e->ans.an, &ans->an, &p, &ttl);
	list_copy(&e->ans.ns, &ans->ns, &p, &ttl);
	list_copy(&e->ans.ar, &ans->ar, &p, &ttl);
	if(ttl == 0 || nrr == 0) {
		/* nothing to keep (a negative answer without its SOA has
		 * no TTL to keep it by) */
		free(e);
		goto fail;
	}
	if(c->max_ttl && ttl > c->max_ttl)
		ttl = c->max_ttl;
	if(ttl < c->min_ttl)
		ttl = c->min_ttl;
	e->stored = now;
	e->expire = now + (time_t)ttl;
	e->next = t->entries;
	t->entries = e;
	(*count)++;
	c->mem += size;
	cache_shrink(c, t);
	while(c->mem > c->maxmem && t->entries) {
		/* the question alone is over the bound: its oldest go */
		struct ecs_entry **last = &t->entries;
		while((*last)->next)
			last = &(*last)->next;
		e = *last;
		*last = NULL;
		entry_free(c, t, e);
	}
	if(!t->entries) {
		tree_free(c, t);
		return -1;
	}
	return 0;
fail:
	if(!t->entries)
		tree_free(c, t);
	return -1;
}

/** copy a list out of an entry into a region, TTLs less age */
static int
list_out(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from, uint32_t age)
{
	const struct module_rr *rr;
	memset(to, 0, sizeof(*to));
	for(rr = from->first; rr; rr = rr->next) {
		struct module_rr *c = module_rr_new(r, rr->owner,
			rr->owner_len, rr->type, rr->rrclass, rr->ttl > age ?
			rr->ttl - age : 0, rr->rdata, rr->rdlen);
		if(!c)
			return -1;
		c->sec = rr->sec;
		c->trust = 0; /* never to the RRset cache */
		module_rrlist_append(to, c);
	}
	return 0;
}

struct mesh_answer *
ecs_cache_lookup(struct ecs_cache *c, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct module_ecs *client,
	time_t now, struct region *r, int *scope)
{
	struct ecs_tree *t = tree_find(c, qname, qtype, qclass, flags);
	struct ecs_entry *e, **pp, *best = NULL;
	struct mesh_answer *a;
	uint8_t net[16];
	if(!t)
		return NULL;
	for(pp = &t->entries; (e = *pp) != NULL; ) {
		if(e->expire <= now) {
			*pp = e->next;
			entry_free(c, t, e);
			continue;
		}
		pp = &e->next;
		if(e->family != client->family || e->scope > client->source ||
			(best && best->scope >= e->scope))
			continue;
		memcpy(net, client->addr, 16);
		ecs_mask_addr(net, 16, e->scope);
		if(memcmp(net, e->net, 16) == 0)
			best = e;
	}
	if(!t->entries) {
		tree_free(c, t);
		return NULL;
	}
	if(!best || !(a = region_alloc_zero(r, sizeof(*a))))
		return NULL;
	*a = best->ans;
	if(list_out(r, &a->an, &best->ans.an, (uint32_t)(now - best->stored))
		|| list_out(r, &a->ns, &best->ans.ns, (uint32_t)(now -
		best->stored)) || list_out(r, &a->ar, &best->ans.ar,
		(uint32_t)(now - best->stored)))
		return NULL;
	*scope = best->scope;
	return a;
}

size_t
ecs_cache_mem(const struct ecs_cache *c)
{
	return c ? c->mem : 0;
}

size_t
ecs_cache_count(struct ecs_cache *c, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint16_t family)
{
	struct ecs_tree *t = tree_find(c, qname, qtype, qclass, flags);
	if(!t)
		return 0;
	return family == 1 ? t->n4 : t->n6;
}

/* ---- the module ---- */

/** module init(): the settings */
static int
subnet_init(struct module_env *env, int id, char *err, size_t errlen)
{
	struct subnet_env *se = calloc(1, sizeof(*se));
	const struct config_file *cfg = env->cfg;
	const struct config_netblocklist *nb;
	const struct config_strlist *s;
	size_t i;
	if(!se) {
		snprintf(err, errlen, "subnetcache: out of memory");
		return -1;
	}
	se->code = ECS_OPTION_CODE;
	se->max4 = 24;
	se->max6 = 56;
	se->tree4 = se->tree6 = 100;
	se->maxmem = 4 * 1024 * 1024;
	if(cfg) {
		se->always = cfg->client_subnet_always_forward;
		se->code = (uint16_t)cfg->client_subnet_opcode;
		se->max4 = cfg->max_client_subnet_ipv4;
		se->max6 = cfg->max_client_subnet_ipv6;
		se->min4 = cfg->min_client_subnet_ipv4;
		se->min6 = cfg->min_client_subnet_ipv6;
		se->tree4 = cfg->max_ecs_tree_size_ipv4;
		se->tree6 = cfg->max_ecs_tree_size_ipv6;
		se->min_ttl = cfg->cache_min_ttl > 0 ?
			(uint32_t)cfg->cache_min_ttl : 0;
		se->max_ttl = cfg->cache_max_ttl > 0 ?
			(uint32_t)cfg->cache_max_ttl : 0;
		/* as much as the message cache, shared by the workers */
		se->maxmem = cfg->msg_cache_size / (size_t)(cfg->num_threads >
			0 ? cfg->num_threads : 1);
		for(nb = cfg->send_client_subnet; nb; nb = nb->next)
			se->nnets++;
		for(s = cfg->client_subnet_zone; s; s = s->next)
			se->nzones++;
	}
	if(se->nnets && !(se->nets = calloc(se->nnets, sizeof(*se->nets))))
		goto oom;
	if(se->nzones && !(se->zones = calloc(se->nzones,
		sizeof(*se->zones))))
		goto oom;
	for(i = 0, nb = cfg ? cfg->send_client_subnet : NULL; nb;
		nb = nb->next)
		se->nets[i++] = nb->block;
	for(i = 0, s = cfg ? cfg->client_subnet_zone : NULL; s;
		s = s->next, i++) {
		size_t len = DNS_MAX_NAME;
		if(dname_from_str(s->str, se->zones[i], &len) != 0) {
			snprintf(err, errlen, "client-subnet-zone: bad name "
				"'%s'", s->str);
			goto fail;
		}
		dname_tolower(se->zones[i]);
	}
	env->modinfo[id] = se;
	return 0;
oom:
	snprintf(err, errlen, "subnetcache: out of memory");
fail:
	free(se->nets);
	free(se->zones);
	free(se);
	return -1;
}

/** module deinit() */
static void
subnet_deinit(struct module_env *env, int id)
{
	struct subnet_env *se = env->modinfo[id];
	if(se) {
		free(se->nets);
		free(se->zones);
	}
	free(se);
	env->modinfo[id] = NULL;
}

/** does this query get the option: the server in send-client-subnet,
 * the name in client-subnet-zone, or always-forward for a client that
 * sent one */
static int
subnet_wanted(const struct subnet_env *se, const struct module_qstate *qs,
	const struct netaddr *to, const uint8_t *qname)
{
	size_t i;
	uint8_t lname[DNS_MAX_NAME];
	if(se->always && qs->ecs->from_client)
		return 1;
	for(i = 0; i < se->nnets; i++)
		if(netblock_match(&se->nets[i], to))
			return 1;
	if(se->nzones) {
		(void)dname_copy_lower(lname, qname);
		for(i = 0; i < se->nzones; i++)
			if(dname_is_subdomain(lname, se->zones[i]))
				return 1;
	}
	return 0;
}

/** the hook's out(): the ECS option of an upstream query */
static size_t
subnet_hook_out(struct module_qstate *qs, void *arg,
	const struct netaddr *to, const uint8_t *qname, uint8_t *buf,
	size_t max)
{
	struct subnet_qstate *sq = arg;
	const struct subnet_env *se = qs->env->modinfo[sq->id];
	struct module_ecs e;
	size_t n;
	if(!qs->ecs)
		return 0;
	if(!subnet_wanted(se, qs, to, qname))
		return 0;
	e = *qs->ecs;
	memcpy(e.addr, sq->addr, sizeof(e.addr));
	n = ecs_write(se->code, &e, sq->source, 0, buf, max);
	if(n)
		sq->sent = 1;
	return n;
}

/** the hook's in(): keep the scope of a reply whose option matches the
 * query's (RFC 7871 7.3: family, source prefix and address) */
static void
subnet_hook_in(struct module_qstate *qs, void *arg, const uint8_t *pkt,
	size_t len)
{
	struct subnet_qstate *sq = arg;
	const struct subnet_env *se = qs->env->modinfo[sq->id];
	size_t pos, i, an, total;
	if(!sq->sent || !qs->ecs || len < DNS_HDR_SIZE)
		return;
	/* walk to the additional section's OPT record */
	pos = DNS_HDR_SIZE;
	total = (size_t)dns_hdr_ancount(pkt) + dns_hdr_nscount(pkt) +
		dns_hdr_arcount(pkt);
	for(i = 0; i < dns_hdr_qdcount(pkt); i++) {
		if(dname_pkt_read(pkt, len, &pos, NULL, NULL) != 0 ||
			pos + 4 > len)
			return;
		pos += 4;
	}
	for(an = 0; an < total; an++) {
		uint16_t type, rdlen;
		size_t rd;
		if(dname_pkt_read(pkt, len, &pos, NULL, NULL) != 0 ||
			pos + 10 > len)
			return;
		type = dns_read_u16(pkt + pos);
		rdlen = dns_read_u16(pkt + pos + 8);
		rd = pos + 10;
		if(rd + rdlen > len)
			return;
		pos = rd + rdlen;
		if(type != DNS_TYPE_OPT)
			continue;
		while(rd + 4 <= pos) {
			uint16_t code = dns_read_u16(pkt + rd);
			uint16_t olen = dns_read_u16(pkt + rd + 2);
			struct module_ecs e;
			if(rd + 4 + olen > pos)
				return;
			if(code == se->code && ecs_parse(pkt + rd + 4, olen, 0,
				&e) == 0 && e.family == qs->ecs->family &&
				e.source == sq->source && memcmp(e.addr,
				sq->addr, 16) == 0) {
				sq->got = 1;
				if(e.scope > sq->scope)
					sq->scope = e.scope;
				/* at once, for the modules the answer passes
				 * first (cachedb must not share it) */
				if(sq->scope > 0)
					qs->no_cache_store = 1;
			}
			rd += 4 + (size_t)olen;
		}
		return;
	}
}

/** the hook the module sets on its states */
static const struct module_edns_hook subnet_hook = {
	subnet_hook_out, subnet_hook_in
};

/** the worker's cache, made when first needed; NULL when out of memory */
static struct ecs_cache *
subnet_cache(struct module_env *env, int id)
{
	const struct subnet_env *se = env->modinfo[id];
	if(!env->worker_data[id]) {
		struct ecs_cache *c = ecs_cache_create(se->maxmem, se->tree4,
			se->tree6);
		if(c)
			ecs_cache_set_ttl(c, se->min_ttl, se->max_ttl);
		env->worker_data[id] = c;
	}
	return env->worker_data[id];
}

/** finish a state with an answer */
static void
subnet_finish(struct module_qstate *qs, struct mesh_answer *a, int id)
{
	qs->return_msg = a;
	qs->return_rcode = a->rcode;
	qs->ext_state[id] = MODULE_FINISHED;
}

/** a new state: from the cache, or down the chain with the hook */
static void
subnet_new(struct module_qstate *qs, int id)
{
	const struct subnet_env *se = qs->env->modinfo[id];
	struct module_ecs *e = qs->ecs;
	struct subnet_qstate *sq;
	struct ecs_cache *c;
	struct mesh_answer *a;
	int max, min, scope = 0;
	qs->ext_state[id] = MODULE_WAIT_MODULE;
	if(!e || qs->depth > 0 || qs->prefetch)
		return;
	e->scope = 0;
	if(e->from_client && e->source == 0)
		return; /* the client asks for privacy: no ECS upstream */
	max = e->family == 1 ? se->max4 : se->max6;
	min = e->family == 1 ? se->min4 : se->min6;
	if(e->from_client && e->source < min) {
		if(!(a = region_alloc_zero(qs->region, sizeof(*a))))
			goto fail;
		a->rcode = DNS_RCODE_REFUSED;
		a->ede = -1;
		qs->no_cache_store = 1;
		subnet_finish(qs, a, id);
		return;
	}
	if((c = subnet_cache(qs->env, id)) != NULL &&
		(a = ecs_cache_lookup(c, qs->qname, qs->qtype, qs->qclass,
		qs->flags & (MESH_FLAG_DO | MESH_FLAG_CD), e,
		qs->env->now->tv_sec, qs->region, &scope)) != NULL) {
		e->scope = (uint8_t)scope;
		qs->no_cache_store = 1;
		if(qs->env->ctr.num_subnet_cache)
			(*qs->env->ctr.num_subnet_cache)++;
		subnet_finish(qs, a, id);
		return;
	}
	if(!(sq = region_alloc_zero(qs->region, sizeof(*sq))))
		goto fail;
	sq->id = id;
	sq->source = e->source < max ? e->source : max;
	memcpy(sq->addr, e->addr, sizeof(sq->addr));
	ecs_mask_addr(sq->addr, sizeof(sq->addr), sq->source);
	qs->minfo[id] = sq;
	qs->edns_hook = &subnet_hook;
	qs->edns_hook_arg = sq;
	return;
fail:
	qs->ede = DNS_EDE_OTHER;
	qs->ext_state[id] = MODULE_ERROR;
}

/** the answer came back up: keep a scoped one here */
static void
subnet_done(struct module_qstate *qs, int id)
{
	struct subnet_qstate *sq = qs->minfo[id];
	struct mesh_answer *a = qs->return_msg;
	struct ecs_cache *c;
	qs->ext_state[id] = a || qs->return_rcode != DNS_RCODE_SERVFAIL ?
		MODULE_FINISHED : MODULE_ERROR;
	if(!sq || !qs->ecs)
		return;
	qs->edns_hook = NULL;
	if(sq->got && qs->env->ctr.num_subnet)
		(*qs->env->ctr.num_subnet)++;
	if(!sq->got || sq->scope == 0)
		return; /* scope 0: the answer is for everyone */
	/* a scoped answer never goes to the shared caches; it is kept
	 * for the subnet of its scope (no longer than the prefix sent) */
	qs->no_cache_store = 1;
	qs->ecs->scope = (uint8_t)(sq->scope < sq->source ? sq->scope :
		sq->source);
	if(a && (a->rcode == DNS_RCODE_NOERROR ||
		a->rcode == DNS_RCODE_NXDOMAIN) && a->sec != MODULE_SEC_BOGUS &&
		(c = subnet_cache(qs->env, id)) != NULL)
		(void)ecs_cache_store(c, qs->qname, qs->qtype, qs->qclass,
			qs->flags & (MESH_FLAG_DO | MESH_FLAG_CD),
			qs->ecs->family, sq->addr, qs->ecs->scope, a,
			qs->env->now->tv_sec);
}

/** module operate() */
static void
subnet_operate(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	(void)reply;
	if(event == MODULE_EVENT_NEW) {
		subnet_new(qs, id);
		return;
	}
	if(event == MODULE_EVENT_MODDONE) {
		subnet_done(qs, id);
		return;
	}
	qs->ext_state[id] = MODULE_WAIT_MODULE;
}

/** module inform_super(): it starts no sub-queries */
static void
subnet_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	(void)sub; (void)id; (void)super;
}

/** module clear(): the state's data is in its region */
static void
subnet_clear(struct module_qstate *qs, int id)
{
	if(qs->edns_hook == &subnet_hook)
		qs->edns_hook = NULL;
	qs->minfo[id] = NULL;
}

/** module get_mem() */
static size_t
subnet_get_mem(struct module_env *env, int id)
{
	const struct subnet_env *se = env->modinfo[id];
	return se ? sizeof(*se) + se->nnets * sizeof(*se->nets) +
		se->nzones * DNS_MAX_NAME +
		ecs_cache_mem(env->worker_data[id]) : 0;
}

/** module worker_deinit(): the worker's cache */
static void
subnet_worker_deinit(struct module_env *env, int id)
{
	ecs_cache_delete(env->worker_data[id]);
	env->worker_data[id] = NULL;
}

const struct module_func_block subnetcache_module_block = {
	.name = "subnetcache",
	.stats_name = "subnet",	/* Unbound's mem.mod.subnet */
	.init = subnet_init,
	.deinit = subnet_deinit,
	.operate = subnet_operate,
	.inform_super = subnet_inform_super,
	.clear = subnet_clear,
	.get_mem = subnet_get_mem,
	.worker_deinit = subnet_worker_deinit,
};
