/*
 * services/mesh.c - the mesh of in-flight queries of one worker.
 *
 * See mesh.h for the design: states keyed by question and flags, clients
 * merged, sub-queries as states, a run list instead of recursion.
 */
#include "config.h"
#include "util/log.h"
#include <stdlib.h>
#include <string.h>
#include "services/mesh.h"
#include "services/resolver.h"
#include "services/outbound.h"
#include "iterator/iterator.h"
#include "iterator/iter_env.h"
#include "dns/name.h"
#include "util/region.h"

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

struct mesh *
mesh_create(struct resolver *res, size_t max_states, int jostle_ms)
{
	struct mesh *m = calloc(1, sizeof(*m));
	if(!m)
		return NULL;
	m->res = res;
	m->table_size = MESH_TABLE_SIZE;
	m->table = calloc(m->table_size, sizeof(*m->table));
	if(!m->table) {
		free(m);
		return NULL;
	}
	m->max_states = max_states ? max_states : 1;
	m->jostle_ms = jostle_ms;
	return m;
}

/** find a state by key */
static struct mesh_state *
mesh_find(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint32_t h)
{
	struct mesh_state *s;
	for(s = m->table[h & (m->table_size - 1)]; s; s = s->hnext)
		if(s->hash == h && s->qtype == qtype && s->qclass == qclass &&
			s->flags == flags && dname_equal(s->qname, qname))
			return s;
	return NULL;
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

/** create a state and start the iterator on it */
static struct mesh_state *
mesh_state_create(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, uint32_t h)
{
	struct region *r = region_create(0);
	struct mesh_state *s;
	if(!r)
		return NULL;
	s = region_alloc_zero(r, sizeof(*s));
	if(!s) {
		region_destroy(r);
		return NULL;
	}
	s->region = r;
	s->mesh = m;
	s->qname_len = dname_copy_lower(s->qname, qname);
	s->qtype = qtype;
	s->qclass = qclass;
	s->flags = flags;
	s->hash = h;
	s->start = *m->res->out->now;
	s->hnext = m->table[h & (m->table_size - 1)];
	m->table[h & (m->table_size - 1)] = s;
	s->prev = m->last;
	if(m->last)
		m->last->next = s;
	else	m->first = s;
	m->last = s;
	m->num_states++;
	if(iter_new_state(s) < 0) {
		mesh_unhash(m, s);
		if(s->prev) s->prev->next = NULL; else m->first = NULL;
		m->last = s->prev;
		m->num_states--;
		region_destroy(r);
		return NULL;
	}
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

/** free a state: unlink everything */
static void
mesh_state_free(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_ref *r;
	if(s->expire_timer) {
		m->res->out->timer_cancel(m->res->out->ctx, s->expire_timer);
		s->expire_timer = NULL;
	}
	iter_qstate_cleanup(s);
	mesh_unrun(m, s);
	if(!s->finished)
		mesh_unhash(m, s);
	/* states waiting on this one no longer do */
	for(r = s->supers; r; r = r->next) {
		ref_remove(&r->s->subs, s);
		r->s->num_subs--;
	}
	/* subs no longer have this one waiting */
	for(r = s->subs; r; r = r->next)
		ref_remove(&r->s->supers, s);
	if(s->prev) s->prev->next = s->next; else m->first = s->next;
	if(s->next) s->next->prev = s->prev; else m->last = s->prev;
	m->num_states--;
	if(s->num_clients > 0) {
		m->num_client_states--;
		m->num_clients -= (size_t)s->num_clients;
	}
	region_destroy(s->region);
}

/** drop the clients of a state without an answer */
static void
mesh_drop_clients(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	struct mesh_client *c;
	for(c = s->clients; c; c = c->next) {
		m->res->stats.num_dropped++;
		m->res->reply_cb(m->res->reply_arg, &c->handle, NULL, 0);
	}
	s->clients = NULL;
	if(s->num_clients > 0) {
		m->num_client_states--;
		m->num_clients -= (size_t)s->num_clients;
		s->num_clients = 0;
	}
}

void
mesh_delete(struct mesh *m)
{
	if(!m)
		return;
	while(m->first) {
		mesh_drop_clients(m->first);
		mesh_state_free(m->first);
	}
	free(m->table);
	free(m);
}

/** make room for a new client state: jostle out an old one.
 * @return 0 when there is room */
static int
mesh_make_room(struct mesh *m)
{
	struct mesh_state *s;
	const struct timeval *now = m->res->out->now;
	if(m->num_client_states < m->max_states)
		return 0;
	for(s = m->first; s; s = s->next) {
		long ms;
		if(s->num_clients == 0)
			continue;
		ms = (long)(now->tv_sec - s->start.tv_sec) * 1000 +
			(long)(now->tv_usec - s->start.tv_usec) / 1000;
		if(ms < m->jostle_ms)
			return -1; /* oldest is too young: none older */
		verbose(VERB_ALGO, "mesh full: jostling out an old query");
		mesh_drop_clients(s);
		if(!s->supers && !s->prefetch) {
			/* nobody needs the resolution any more */
			s->finished = 1;
			mesh_unhash(m, s);
			iter_qstate_cleanup(s);
			mesh_state_free(s);
		}
		return 0;
	}
	return -1;
}

/** serve-expired-client-timeout passed: answer the clients that may get
 * an expired answer from the cache, keep resolving for the others */
static void
mesh_expire_timeout(void *arg)
{
	struct mesh_state *s = arg;
	struct mesh *m = s->mesh;
	struct mesh_client **pp = &s->clients;
	s->expire_timer = NULL;
	while(*pp) {
		struct mesh_client *c = *pp;
		if(c->qpkt && resolver_answer_stale(m->res, c)) {
			*pp = c->next;
			s->num_clients--;
			m->num_clients--;
			continue;
		}
		pp = &c->next;
	}
	if(s->num_clients == 0 && s->clients == NULL) {
		/* keep resolving in the background to refresh the cache */
		m->num_client_states--;
		s->prefetch = 1;
	}
	mesh_run(m);
}

int
mesh_new_client(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct mesh_client *client)
{
	uint32_t h = mesh_hash(qname, dname_len(qname), qtype, qclass, flags);
	struct mesh_state *s = mesh_find(m, qname, qtype, qclass, flags, h);
	struct mesh_client *c;
	if(!s || s->num_clients == 0) {
		if(mesh_make_room(m) < 0)
			return -1;
		/* the find may have been jostled out */
		s = mesh_find(m, qname, qtype, qclass, flags, h);
	}
	if(!s) {
		s = mesh_state_create(m, qname, qtype, qclass, flags, h);
		if(!s)
			return -1;
	}
	c = region_alloc(s->region, sizeof(*c));
	if(!c)
		return -1;
	*c = *client;
	if(client->qpkt) {
		c->qpkt = region_memdup(s->region, client->qpkt, client->qlen);
		if(!c->qpkt)
			return -1;
		if(!s->expire_timer && m->res->ienv &&
			m->res->ienv->serve_expired_client_timeout > 0)
			s->expire_timer = m->res->out->timer_set(
				m->res->out->ctx,
				m->res->ienv->serve_expired_client_timeout,
				mesh_expire_timeout, s);
	}
	c->next = s->clients;
	s->clients = c;
	if(s->num_clients == 0)
		m->num_client_states++;
	s->num_clients++;
	m->num_clients++;
	mesh_run(m);
	return 0;
}

int
mesh_new_prefetch(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags)
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
	m->res->stats.num_prefetch++;
	mesh_run(m);
	return 0;
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

struct mesh_state *
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
	super->num_subs++;
	return s;
}

void
mesh_schedule(struct mesh_state *s)
{
	struct mesh *m = s->mesh;
	if(s->on_run_list || s->finished)
		return;
	s->on_run_list = 1;
	s->run_next = NULL;
	if(m->run_last)
		m->run_last->run_next = s;
	else	m->run_first = s;
	m->run_last = s;
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
		else	iter_run(s);
	}
	m->running = 0;
}

void
mesh_state_finish(struct mesh_state *s, struct mesh_answer *ans, int ede)
{
	struct mesh *m = s->mesh;
	struct mesh_client *c;
	struct mesh_ref *r;
	if(s->finished)
		return;
	/* a new identical question from now on starts afresh */
	mesh_unhash(m, s);
	s->finished = 1;
	resolver_store_answer(m->res, s, ans);
	for(c = s->clients; c; c = c->next)
		resolver_answer_client(m->res, s, c, ans, ede);
	for(r = s->supers; r; r = r->next) {
		r->s->num_subs--;
		ref_remove(&r->s->subs, s);
		iter_inform_super(r->s, s, ans);
	}
	s->supers = NULL;
	/* freed by mesh_run, which may be on our call stack */
	iter_qstate_cleanup(s);
	if(s->on_run_list)
		mesh_unrun(m, s);
	mesh_schedule_free(s);
}

void
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
