/*
 * services/mesh.c - the mesh of in-flight queries of one worker.
 *
 * See mesh.h for the design: states keyed by question and flags, clients
 * merged, sub-queries as states, a run list instead of recursion, and the
 * module chain run by mesh_run_state().
 */
#include "config.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>
#include "services/mesh.h"
#include "services/module.h"
#include "services/outbound.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/padding.h"
#include "util/region.h"
#include "util/config_file.h"
#include "services/outside_network.h"

/** initial hash table size */
#define MESH_TABLE_SIZE 1024

/** hash a key */
static uint32_t
mesh_hash(const uint8_t *qname, size_t len, uint16_t qtype, uint16_t qclass,
	int flags)
{
	/* FNV-1a over the lower-cased key; the table is per worker and
	 * bounded, so a weak hash only costs time, not correctness */
	uint32_t h = 2166136261u;
	size_t i;
	for(i = 0; i < len; i++) {
		h ^= dname_lower_table[qname[i]];
		h *= 16777619u;
	}
	h ^= qtype; h *= 16777619u;
	h ^= qclass; h *= 16777619u;
	h ^= (uint32_t)flags; h *= 16777619u;
	return h;
}

static struct outbound_query *mesh_env_send_query(struct module_qstate *qs,
	const struct netaddr *to, const uint8_t *qname, size_t qname_len,
	uint16_t qtype, uint16_t qclass, int flags, int timeout_ms);
static void mesh_env_cancel_query(struct module_qstate *qs,
	struct outbound_query *q);
static int mesh_env_global_quota(struct module_qstate *qs, int take);
static struct module_qstate *mesh_env_attach_sub(struct module_qstate *super,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, int flags);
static int mesh_env_add_background(struct module_env *env,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, int flags);
static void mesh_env_resume(struct module_qstate *qs, enum module_ev ev);
static void mesh_env_serve_stale(struct module_qstate *qs);
static void *mesh_env_timer_set(struct module_env *env, int ms,
	void (*fn)(void *), void *arg);
static void mesh_env_timer_cancel(struct module_env *env, void *timer);
static void mesh_schedule(struct mesh_state *s, enum module_ev ev);
static void mesh_schedule_free(struct mesh_state *s);

struct mesh *
mesh_create(const struct module_stack *stack, struct module_env *env,
	struct outbound *out, size_t max_states, int jostle_ms,
	int expire_client_ms, const struct mesh_frontend *fe, void *fe_arg)
{
	struct mesh *m = calloc(1, sizeof(*m));
	if(!m)
		return NULL;
	m->stack = stack;
	m->env = env;
	m->out = out;
	m->fe = *fe;
	m->fe_arg = fe_arg;
	m->table_size = MESH_TABLE_SIZE;
	m->table = calloc(m->table_size, sizeof(*m->table));
	if(!m->table) {
		free(m);
		return NULL;
	}
	m->max_states = max_states ? max_states : 1;
	m->jostle_ms = jostle_ms;
	m->expire_client_ms = expire_client_ms;
	m->edns_strings = edns_strings_create(env->cfg);
	m->error_reporting = env->cfg && env->cfg->dns_error_reporting;
	env->mesh = m;
	env->send_query = mesh_env_send_query;
	env->cancel_query = mesh_env_cancel_query;
	env->attach_sub = mesh_env_attach_sub;
	env->add_background = mesh_env_add_background;
	env->resume = mesh_env_resume;
	env->global_quota = mesh_env_global_quota;
	env->serve_stale = mesh_env_serve_stale;
	env->timer_set = mesh_env_timer_set;
	env->timer_cancel = mesh_env_timer_cancel;
	return m;
}

void
mesh_start(struct mesh *m, int worker_index)
{
	int i;
	m->env->worker_index = worker_index;
	for(i = 0; i < m->stack->num; i++)
		if(m->stack->mod[i]->worker_start)
			m->stack->mod[i]->worker_start(m->env, i);
}

/** @return 1 when two client subnets (either may be NULL) are the same
 * key */
static int
mesh_ecs_equal(const struct module_ecs *a, const struct module_ecs *b)
{
	if(!a || !b)
		return a == b;
	return a->family == b->family && a->source == b->source &&
		a->from_client == b->from_client &&
		memcmp(a->addr, b->addr, sizeof(a->addr)) == 0;
}

/** the hash of a key with a client subnet */
static uint32_t
mesh_hash_ecs(uint32_t h, const struct module_ecs *ecs)
{
	size_t i;
	if(!ecs)
		return h;
	for(i = 0; i < sizeof(ecs->addr); i++) {
		h ^= ecs->addr[i];
		h *= 16777619u;
	}
	h ^= (uint32_t)ecs->source << 8 | ecs->family;
	h *= 16777619u;
	return h;
}

/** the hash of a key with client tags (0: the hash as it is) */
static uint32_t
mesh_hash_tags(uint32_t h, uint64_t tags)
{
	if(!tags)
		return h;
	h ^= (uint32_t)tags;
	h *= 16777619u;
	h ^= (uint32_t)(tags >> 32);
	h *= 16777619u;
	return h;
}

/** find a state by key (a client subnet only matches the same subnet;
 * NULL only a state without one; tags the same tags) */
static struct mesh_state *
mesh_find_tags(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct module_ecs *ecs,
	uint64_t tags, uint32_t h)
{
	struct mesh_state *s;
	for(s = m->table[h & (m->table_size - 1)]; s; s = s->hnext)
		if(s->hash == h && s->qtype == qtype && s->qclass == qclass &&
			s->flags == flags && dname_equal(s->qname, qname) &&
			mesh_ecs_equal(s->qs.ecs, ecs) && s->qs.tags == tags)
			return s;
	return NULL;
}

/** find a state by key, one without a client subnet or tags */
static struct mesh_state *
mesh_find(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint32_t h)
{
	return mesh_find_tags(m, qname, qtype, qclass, flags, NULL, 0, h);
}

/** remove from the hash table */
static void
mesh_unhash(struct mesh *m, struct mesh_state *s)
{
	struct mesh_state **pp = &m->table[s->hash & (m->table_size - 1)];
	for(; *pp; pp = &(*pp)->hnext) {
		if(*pp == s) {
			*pp = s->hnext;
			s->hnext = NULL;
			return;
		}
	}
}

/** a state's region is no longer used: empty it and keep it for the
 * next state, or destroy it when the free list is full */
static void
mesh_region_release(struct mesh *m, struct region *r)
{
	if(m->num_free_regions < MESH_REGION_CACHE) {
		region_free_all(r);
		m->free_regions[m->num_free_regions++] = r;
	} else	region_destroy(r);
}

/** create a state; it starts at the first module from the run list */
static struct mesh_state *
mesh_state_create(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint32_t h)
{
	struct region *r = m->num_free_regions > 0 ?
		m->free_regions[--m->num_free_regions] : region_create(0);
	struct mesh_state *s;
	if(!r)
		return NULL;
	s = region_alloc_zero(r, sizeof(*s));
	if(!s) {
		mesh_region_release(m, r);
		return NULL;
	}
	s->region = r;
	s->mesh = m;
	s->qname_len = dname_copy_lower(s->qname, qname);
	s->qtype = qtype;
	s->qclass = qclass;
	s->flags = flags;
	s->hash = h;
	s->start = *m->out->now;
	s->qs.qname = s->qname;
	s->qs.qname_len = s->qname_len;
	s->qs.qtype = qtype;
	s->qs.qclass = qclass;
	s->qs.flags = flags;
	s->qs.start = s->start;
	s->qs.region = r;
	s->qs.env = m->env;
	s->qs.ede = -1;
	s->qs.mesh_info = s;
	s->hnext = m->table[h & (m->table_size - 1)];
	m->table[h & (m->table_size - 1)] = s;
	s->prev = m->last;
	if(m->last)
		m->last->next = s;
	else	m->first = s;
	m->last = s;
	m->num_states++;
	mesh_schedule(s, MODULE_EVENT_NEW);
	return s;
}

/** remove from the run list */
static void
mesh_unrun(struct mesh *m, struct mesh_state *s)
{
	struct mesh_state **pp, *prev = NULL;
	if(!s->on_run_list)
		return;
	for(pp = &m->run_first; *pp; prev = *pp, pp = &(*pp)->run_next) {
		if(*pp == s) {
			*pp = s->run_next;
			if(m->run_last == s)
				m->run_last = prev;
			break;
		}
	}
	s->on_run_list = 0;
	s->run_next = NULL;
}

/** remove a ref to x from a list */
static void
ref_remove(struct mesh_ref **list, struct mesh_state *x)
{
	for(; *list; list = &(*list)->next)
		if((*list)->s == x) {
			*list = (*list)->next;
			return;
		}
}

/** every module frees what it holds for the state (the answer lives in
 * the region) */
static void
mesh_clear_modules(struct mesh_state *s)
{
	const struct module_stack *st = s->mesh->stack;
	int i;
	for(i = 0; i < st->num; i++)
		if(st->mod[i]->clear)
			st->mod[i]->clear(&s->qs, i);
	s->qs.return_msg = NULL;
}

/** a state got its first client: count it, and make it a forever state
 * while fewer than half the states with clients (rounded up) are */
static void
mesh_client_state_join(struct mesh *m, struct mesh_state *s)
{
	m->num_client_states++;
	s->forever = m->num_forever < (m->max_states + 1) / 2;
	if(s->forever)
		m->num_forever++;
}

/** a state has no client any more (answered, dropped, freed) */
static void
mesh_client_state_leave(struct mesh *m, struct mesh_state *s)
{
	m->num_client_states--;
	if(s->forever)
		m->num_forever--;
	s->forever = 0;
}

/** free a state: unlink everything */
static void
mesh_state_free(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_ref *r;
	if(s->expire_timer) {
		m->out->timer_cancel(m->out->ctx, s->expire_timer);
		s->expire_timer = NULL;
	}
	mesh_clear_modules(s);
	mesh_unrun(m, s);
	if(!s->finished)
		mesh_unhash(m, s);
	/* states waiting on this one no longer do */
	for(r = s->supers; r; r = r->next) {
		ref_remove(&r->s->subs, s);
		r->s->qs.num_subs--;
	}
	/* subs no longer have this one waiting */
	for(r = s->subs; r; r = r->next)
		ref_remove(&r->s->supers, s);
	if(s->prev) s->prev->next = s->next; else m->first = s->next;
	if(s->next) s->next->prev = s->prev; else m->last = s->prev;
	m->num_states--;
	if(s->num_clients > 0) {
		mesh_client_state_leave(m, s);
		m->num_clients -= (size_t)s->num_clients;
	}
	mesh_region_release(m, s->region);
}

/** drop the clients of a state without an answer */
static void
mesh_drop_clients(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_client *c;
	for(c = s->clients; c; c = c->next)
		m->fe.drop(m->fe_arg, c);
	s->clients = NULL;
	if(s->num_clients > 0) {
		mesh_client_state_leave(m, s);
		m->num_clients -= (size_t)s->num_clients;
		s->num_clients = 0;
	}
}

void
mesh_delete(struct mesh *m)
{
	int i;
	if(!m)
		return;
	while(m->first) {
		mesh_drop_clients(m->first);
		mesh_state_free(m->first);
	}
	for(i = 0; i < m->stack->num; i++)
		if(m->stack->mod[i]->worker_deinit)
			m->stack->mod[i]->worker_deinit(m->env, i);
	while(m->num_free_regions > 0)
		region_destroy(m->free_regions[--m->num_free_regions]);
	free(m->table);
	edns_strings_delete(m->edns_strings);
	free(m);
}

void
mesh_set_discard_timeout(struct mesh *m, int ms, uint64_t *ctr)
{
	m->discard_ms = ms > 0 ? ms : 0;
	m->ctr_discard = ctr;
}

/** drop the clients of a state nobody else needs, and the state */
static void
mesh_drop_state(struct mesh *m, struct mesh_state *s)
{
	mesh_drop_clients(s);
	if(!s->supers && !s->prefetch) {
		/* nobody needs the resolution any more */
		s->finished = 1;
		mesh_unhash(m, s);
		mesh_clear_modules(s);
		mesh_state_free(s);
	}
}

/** discard-timeout: drop the clients of every state that has waited at
 * least discard_ms (oldest first: stop at the first younger one).
 * @return number of states whose clients were dropped */
static size_t
mesh_discard_old(struct mesh *m)
{
	const struct timeval *now = m->out->now;
	struct mesh_state *s, *next;
	size_t n = 0;
	for(s = m->first; s; s = next) {
		long ms;
		next = s->next;
		if(s->num_clients == 0)
			continue;
		ms = (long)(now->tv_sec - s->start.tv_sec) * 1000 +
			(long)(now->tv_usec - s->start.tv_usec) / 1000;
		if(ms < m->discard_ms)
			break;
		if(m->ctr_discard)
			*m->ctr_discard += (uint64_t)s->num_clients;
		mesh_drop_state(m, s); /* unlinks s only: next stays */
		n++;
	}
	return n;
}

/** make room for a new client state: discard-timeout, then jostle out
 * an old one. @return 0 when there is room */
static int
mesh_make_room(struct mesh *m)
{
	struct mesh_state *s;
	const struct timeval *now = m->out->now;
	if(m->num_client_states < m->max_states)
		return 0;
	if(m->discard_ms > 0 && mesh_discard_old(m) > 0 &&
		m->num_client_states < m->max_states)
		return 0;
	for(s = m->first; s; s = s->next) {
		long ms;
		if(s->num_clients == 0 || s->forever)
			continue;
		ms = (long)(now->tv_sec - s->last_join.tv_sec) * 1000 +
			(long)(now->tv_usec - s->last_join.tv_usec) / 1000;
		if(ms < m->jostle_ms)
			return -1; /* the oldest is too young */
		verbose(VERB_ALGO, "mesh full: jostling out an old query");
		if(m->ctr_jostle)
			(*m->ctr_jostle)++;
		mesh_drop_state(m, s);
		return 0;
	}
	return -1;
}

/** answer the clients that may get an expired answer from the cache,
 * keep resolving for the others (or, with none left, in the background
 * to refresh the cache) */
static void
mesh_answer_stale(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_client **pp = &s->clients;
	int had = s->num_clients != 0;
	while(*pp) {
		struct mesh_client *c = *pp;
		if(c->qpkt && m->fe.stale(m->fe_arg, c)) {
			*pp = c->next;
			s->num_clients--;
			m->num_clients--;
			continue;
		}
		pp = &c->next;
	}
	if(had && s->num_clients == 0 && s->clients == NULL) {
		/* keep resolving in the background to refresh the cache */
		mesh_client_state_leave(m, s);
		s->prefetch = 1;
		s->qs.prefetch = 1;
	}
}

/** serve-expired-client-timeout passed: the expired answers */
static void
mesh_expire_timeout(void *arg)
{
	struct mesh_state *s = arg;
	s->expire_timer = NULL;
	mesh_answer_stale(s);
	mesh_run(s->mesh);
}

/** env->serve_stale: the expired answers now, before the timeout */
static void
mesh_env_serve_stale(struct module_qstate *qs)
{
	struct mesh_state *s = qs->mesh_info;
	if(!s || !s->expire_timer)
		return; /* no client waits with an expired answer */
	s->mesh->out->timer_cancel(s->mesh->out->ctx, s->expire_timer);
	s->expire_timer = NULL;
	mesh_answer_stale(s);
}

int
mesh_new_client(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const void *data, size_t datalen,
	const uint8_t *qpkt, size_t qlen)
{
	return mesh_new_client_ecs(m, qname, qtype, qclass, flags, NULL,
		data, datalen, qpkt, qlen);
}

int
mesh_new_client_ecs(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct module_ecs *ecs,
	const void *data, size_t datalen, const uint8_t *qpkt, size_t qlen)
{
	return mesh_new_client_tags(m, qname, qtype, qclass, flags, ecs, 0,
		data, datalen, qpkt, qlen);
}

int
mesh_new_client_tags(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct module_ecs *ecs,
	uint64_t tags, const void *data, size_t datalen, const uint8_t *qpkt,
	size_t qlen)
{
	uint32_t h = mesh_hash_tags(mesh_hash_ecs(mesh_hash(qname,
		dname_len(qname), qtype, qclass, flags), ecs), tags);
	struct mesh_state *s = mesh_find_tags(m, qname, qtype, qclass, flags,
		ecs, tags, h);
	struct mesh_client *c;
	if(!s || s->num_clients == 0) {
		if(mesh_make_room(m) < 0)
			return MESH_FULL;
		/* the find may have been jostled out */
		s = mesh_find_tags(m, qname, qtype, qclass, flags, ecs, tags,
			h);
	}
	if(!s) {
		s = mesh_state_create(m, qname, qtype, qclass, flags, h);
		if(!s)
			return -1;
		if(ecs) {
			/* (it runs from mesh_run below, not before) */
			s->ecs = *ecs;
			s->qs.ecs = &s->ecs;
		}
		s->qs.tags = tags;
	}
	c = region_alloc_zero(s->region, sizeof(*c));
	if(!c)
		return -1;
	c->data = region_memdup(s->region, data, datalen);
	if(!c->data)
		return -1;
	if(qpkt) {
		c->qpkt = region_memdup(s->region, qpkt, qlen);
		if(!c->qpkt)
			return -1;
		c->qlen = qlen;
		if(!s->expire_timer && m->expire_client_ms > 0)
			s->expire_timer = m->out->timer_set(m->out->ctx,
				m->expire_client_ms, mesh_expire_timeout, s);
	}
	c->next = s->clients;
	s->clients = c;
	s->last_join = *m->out->now;
	if(s->num_clients == 0)
		mesh_client_state_join(m, s);
	s->num_clients++;
	m->num_clients++;
	mesh_run(m);
	return 0;
}

/** start a state with no client, unless one is in flight; counted in
 * num.prefetch when count is set
 * @return 0 or -1 */
static int
mesh_new_noclient(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, int count)
{
	uint32_t h = mesh_hash(qname, dname_len(qname), qtype, qclass, flags);
	struct mesh_state *s = mesh_find(m, qname, qtype, qclass, flags, h);
	if(s)
		return 0;
	if(m->num_states >= m->max_states * 2)
		return -1;
	s = mesh_state_create(m, qname, qtype, qclass, flags, h);
	if(!s)
		return -1;
	s->prefetch = 1;
	s->qs.prefetch = 1;
	if(count && m->env->ctr.num_prefetch)
		(*m->env->ctr.num_prefetch)++;
	mesh_run(m);
	return 0;
}

int
mesh_new_prefetch(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags)
{
	return mesh_new_noclient(m, qname, qtype, qclass, flags, 1);
}

int
mesh_new_background(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags)
{
	return mesh_new_noclient(m, qname, qtype, qclass, flags, 0);
}

/** is x a (transitive) super of s, or s itself */
static int
mesh_is_super(struct mesh_state *s, struct mesh_state *x, int depth)
{
	struct mesh_ref *r;
	if(s == x)
		return 1;
	if(depth > 32)
		return 1; /* too deep: treat as a cycle */
	for(r = s->supers; r; r = r->next)
		if(mesh_is_super(r->s, x, depth + 1))
			return 1;
	return 0;
}

/** find or start a sub-query that super waits on; NULL on a cycle */
static struct mesh_state *
mesh_attach_sub(struct mesh_state *super, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags)
{
	struct mesh *m = super->mesh;
	uint32_t h = mesh_hash(qname, dname_len(qname), qtype, qclass, flags);
	struct mesh_state *s = mesh_find(m, qname, qtype, qclass, flags, h);
	struct mesh_ref *r1, *r2;
	if(s && mesh_is_super(super, s, 0))
		return NULL; /* dependency cycle */
	if(!s) {
		if(m->num_states >= m->max_states * 4)
			return NULL;
		s = mesh_state_create(m, qname, qtype, qclass, flags, h);
		if(!s)
			return NULL;
	}
	r1 = region_alloc(s->region, sizeof(*r1));
	r2 = region_alloc(super->region, sizeof(*r2));
	if(!r1 || !r2)
		return NULL;
	r1->s = super;
	r1->next = s->supers;
	s->supers = r1;
	r2->s = s;
	r2->next = super->subs;
	super->subs = r2;
	super->qs.num_subs++;
	if(s->qs.depth < super->qs.depth + 1)
		s->qs.depth = super->qs.depth + 1;
	return s;
}

/** put a state on the run list, to run its current module with ev */
static void
mesh_schedule(struct mesh_state *s, enum module_ev ev)
{
	struct mesh *m = s->mesh;
	if(s->on_run_list || s->finished)
		return;
	s->on_run_list = 1;
	s->run_event = ev;
	s->run_next = NULL;
	if(m->run_last)
		m->run_last->run_next = s;
	else	m->run_first = s;
	m->run_last = s;
}

/**
 * The state's answer has come up past the first module: hand it to the
 * front end (cache, clients), inform the states waiting on it, and free
 * it once mesh_run gets to it.
 */
static void
mesh_state_done(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_ref *r;
	struct mesh_answer *ans = s->qs.return_msg;
	if(s->finished)
		return;
	if(ans)
		ans->rcode = s->qs.return_rcode;
	/* a new identical question from now on starts afresh */
	mesh_unhash(m, s);
	s->finished = 1;
	m->fe.done(m->fe_arg, s, ans, s->qs.ede);
	for(r = s->supers; r; r = r->next) {
		struct mesh_state *sup = r->s;
		int id = sup->qs.curmod;
		sup->qs.num_subs--;
		ref_remove(&sup->subs, s);
		if(sup->finished)
			continue;
		if(m->stack->mod[id]->inform_super)
			m->stack->mod[id]->inform_super(&s->qs, id, &sup->qs);
		if(sup->qs.ext_state[id] == MODULE_WAIT_SUBQUERY)
			mesh_schedule(sup, MODULE_EVENT_PASS);
	}
	s->supers = NULL;
	/* freed by mesh_run, which may be on our call stack */
	mesh_clear_modules(s);
	if(s->on_run_list)
		mesh_unrun(m, s);
	mesh_schedule_free(s);
}

/**
 * Run the module chain of a state for an event: the current module
 * operates, and its result moves the state down (pass), up (finished,
 * error) or leaves it waiting.
 * @param s: the state.
 * @param ev: the event for the current module.
 * @param reply: the upstream reply for MODULE_EVENT_REPLY, else NULL.
 */
static void
mesh_run_state(struct mesh_state *s, enum module_ev ev,
	struct module_reply *reply)
{
	const struct module_stack *st = s->mesh->stack;
	struct module_qstate *qs = &s->qs;
	while(!s->finished) {
		int id = qs->curmod;
		st->mod[id]->operate(qs, ev, id, reply);
		reply = NULL;
		switch(qs->ext_state[id]) {
		case MODULE_WAIT_MODULE:
			if(id + 1 >= st->num) {
				log_err("mesh: module %s passed the query on, "
					"but no module follows it",
					st->mod[id]->name);
				qs->ext_state[id] = MODULE_ERROR;
				qs->ede = DNS_EDE_OTHER;
				goto up;
			}
			qs->curmod = id + 1;
			ev = qs->ext_state[id + 1] == MODULE_STATE_INITIAL ?
				MODULE_EVENT_NEW : MODULE_EVENT_PASS;
			continue;
		case MODULE_FINISHED:
		case MODULE_ERROR:
		up:
			if(qs->ext_state[id] == MODULE_ERROR) {
				qs->return_msg = NULL;
				qs->return_rcode = DNS_RCODE_SERVFAIL;
			}
			if(id == 0) {
				mesh_state_done(s);
				return;
			}
			qs->curmod = id - 1;
			ev = MODULE_EVENT_MODDONE;
			continue;
		case MODULE_WAIT_REPLY:
		case MODULE_WAIT_SUBQUERY:
			return;
		case MODULE_STATE_INITIAL:
		default:
			log_err("mesh: module %s left no state",
				st->mod[id]->name);
			qs->ext_state[id] = MODULE_ERROR;
			qs->ede = DNS_EDE_OTHER;
			goto up;
		}
	}
}

void
mesh_run(struct mesh *m)
{
	if(m->running)
		return;
	m->running = 1;
	while(m->run_first) {
		struct mesh_state *s = m->run_first;
		m->run_first = s->run_next;
		if(!m->run_first)
			m->run_last = NULL;
		s->on_run_list = 0;
		s->run_next = NULL;
		if(s->finished)
			mesh_state_free(s);
		else	mesh_run_state(s, s->run_event, NULL);
	}
	m->running = 0;
}

void
mesh_state_finish(struct mesh_state *s, struct mesh_answer *ans, int ede)
{
	if(s->finished)
		return;
	s->qs.return_msg = ans;
	s->qs.return_rcode = ans ? ans->rcode : DNS_RCODE_SERVFAIL;
	s->qs.ede = ede;
	mesh_state_done(s);
}

/** put a finished state on the run list to be freed */
static void
mesh_schedule_free(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	s->on_run_list = 1;
	s->run_next = NULL;
	if(m->run_last)
		m->run_last->run_next = s;
	else	m->run_first = s;
	m->run_last = s;
	if(!m->running)
		mesh_run(m);
}

/** the EDNS option code of Report-Channel (RFC 9567) */
#define MESH_EDNS_REPORT_CHANNEL 18

/**
 * dns-error-reporting: keep the agent domain of a reply's Report-Channel
 * option (the last reply counts, as in Unbound: a reply without one
 * forgets an earlier one). The domain must be a whole, valid name that
 * is not the root (RFC 9567 section 6.1).
 */
static void
mesh_note_report_channel(struct mesh_state *s, const uint8_t *pkt,
	size_t len)
{
	size_t at, pos, end;
	s->er_agent_len = 0;
	if(!dns_opt_last(pkt, len, &at))
		return;
	pos = at + 2;
	end = pos + dns_read_u16(pkt + at);
	while(pos + 4 <= end) {
		size_t olen = dns_read_u16(pkt + pos + 2);
		if(pos + 4 + olen > end)
			return;
		if(dns_read_u16(pkt + pos) == MESH_EDNS_REPORT_CHANNEL) {
			const uint8_t *d = pkt + pos + 4;
			if(olen < 3 || dname_valid(d, olen) != olen)
				return;
			if(!s->er_agent && !(s->er_agent = region_alloc(
				s->region, DNS_MAX_NAME + 1)))
				return;
			memcpy(s->er_agent, d, olen);
			s->er_agent_len = olen;
			return;
		}
		pos += 4 + olen;
	}
}

/** the outbound callback: the reply (or its absence) goes to the
 * module that sent the query */
static void
mesh_reply_cb(void *arg, enum outbound_status status, const uint8_t *pkt,
	size_t len, int rtt_ms)
{
	struct mesh_state *s = arg;
	struct mesh *m = s->mesh;
	struct module_reply rep;
	enum module_ev ev;
	rep.pkt = pkt;
	rep.len = len;
	rep.rtt_ms = rtt_ms;
	if(status == OUTBOUND_REPLY && pkt)
		ev = MODULE_EVENT_REPLY;
	else if(status == OUTBOUND_TIMEOUT)
		ev = MODULE_EVENT_NOREPLY;
	else	ev = MODULE_EVENT_ERROR;
	if(ev == MODULE_EVENT_REPLY && s->qs.edns_hook &&
		s->qs.edns_hook->in)
		s->qs.edns_hook->in(&s->qs, s->qs.edns_hook_arg, pkt, len);
	if(ev == MODULE_EVENT_REPLY && m->error_reporting)
		mesh_note_report_channel(s, pkt, len);
	mesh_run_state(s, ev, ev == MODULE_EVENT_REPLY ? &rep : NULL);
	mesh_run(m);
}

/** env->send_query */
static struct outbound_query *
mesh_env_send_query(struct module_qstate *qs, const struct netaddr *to,
	const uint8_t *qname, size_t qname_len, uint16_t qtype,
	uint16_t qclass, int flags, int timeout_ms)
{
	struct mesh_state *s = qs->mesh_info;
	struct mesh *m = s->mesh;
	uint8_t opts[OUTBOUND_MAX_OPTS];
	size_t optlen = 0;
	if(m->env->ctr.num_outgoing)
		(*m->env->ctr.num_outgoing)++;
	if(qs->edns_hook && qs->edns_hook->out &&
		!(flags & OUTBOUND_FLAG_NOEDNS))
		optlen = qs->edns_hook->out(qs, qs->edns_hook_arg, to, qname,
			opts, sizeof(opts));
	if(m->edns_strings && !(flags & OUTBOUND_FLAG_NOEDNS))
		optlen += edns_strings_opt(m->edns_strings, to, opts + optlen,
			sizeof(opts) - optlen);
	return m->out->send(m->out->ctx, to, qname, qname_len, qtype, qclass,
		flags, optlen ? opts : NULL, optlen, timeout_ms, mesh_reply_cb,
		s);
}

/** env->cancel_query */
static void
mesh_env_cancel_query(struct module_qstate *qs, struct outbound_query *q)
{
	struct mesh_state *s = qs->mesh_info;
	s->mesh->out->cancel(s->mesh->out->ctx, q);
}

/** env->resume */
static void
mesh_env_resume(struct module_qstate *qs, enum module_ev ev)
{
	struct mesh_state *s = qs->mesh_info;
	struct mesh *m = s->mesh;
	if(s->finished)
		return;
	mesh_run_state(s, ev, NULL);
	mesh_run(m);
}

/** env->attach_sub */
static struct module_qstate *
mesh_env_attach_sub(struct module_qstate *super, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags)
{
	struct mesh_state *sub = mesh_attach_sub(super->mesh_info, qname,
		qtype, qclass, flags);
	return sub ? &sub->qs : NULL;
}

/** most supers walked up to find the top of a chain (the mesh refuses
 * cycles; this only bounds the walk) */
#define MESH_QUOTA_WALK 64

/**
 * env->global_quota: the budget lives in the top state of the chain of
 * supers, found at each send rather than stored at creation, so that a
 * sub-query outliving the state that made it counts against whoever
 * waits on it now (or itself). The first state that asked for a shared
 * sub-query is the last ref in its supers list (refs are prepended).
 */
static int
mesh_env_global_quota(struct module_qstate *qs, int take)
{
	struct mesh_state *top = qs->mesh_info;
	int max = qs->env->cfg ? qs->env->cfg->max_global_quota : 0;
	int i;
	for(i = 0; top->supers && i < MESH_QUOTA_WALK; i++) {
		struct mesh_ref *r = top->supers;
		while(r->next)
			r = r->next;
		top = r->s;
	}
	if(max > 0 && top->qs.global_sends >= max)
		return 0;
	if(take)
		top->qs.global_sends++;
	return 1;
}

/** env->timer_set: the outbound network's timer (the event loop's, or
 * the replay runner's fake clock) */
static void *
mesh_env_timer_set(struct module_env *env, int ms, void (*fn)(void *),
	void *arg)
{
	struct outbound *out = env->mesh->out;
	return out->timer_set(out->ctx, ms, fn, arg);
}

/** env->timer_cancel */
static void
mesh_env_timer_cancel(struct module_env *env, void *timer)
{
	struct outbound *out = env->mesh->out;
	out->timer_cancel(out->ctx, timer);
}

/** env->add_background */
static int
mesh_env_add_background(struct module_env *env, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags)
{
	return mesh_new_background(env->mesh, qname, qtype, qclass, flags);
}

size_t
mesh_num_states(struct mesh *m)
{
	return m->num_states;
}

size_t
mesh_num_clients(struct mesh *m)
{
	return m->num_clients;
}
