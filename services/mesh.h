/*
 * services/mesh.h - the mesh of in-flight queries of one worker.
 *
 * A mesh state is one resolution: a question (lower-cased name, type,
 * class) plus the DO and CD bits of the clients that asked it, and whether
 * it is recursive (RD). Identical client questions are merged into one
 * state with a list of clients to answer. A state may also exist with no
 * client: a prefetch (refresh of a cache entry about to expire), or a
 * sub-query that another state waits on (the address of a name server
 * with no glue). Sub-queries are states like any other, so two states
 * needing the same name server address share one resolution.
 *
 * Work is never done recursively across states: when a state finishes,
 * the states waiting on it are told the result and put on a run list,
 * and mesh_run() works through the run list until it is empty. Every
 * entry point (a new client, an upstream reply, a timer) ends with
 * mesh_run(), so at most one state runs at a time and a state is freed
 * only when nothing refers to it.
 *
 * Limits: at most num-queries-per-thread states with clients. As in
 * Unbound's mesh, the first half of them (rounded up) are kept for good
 * (the "forever" states) and the others may be jostled out: a state gets
 * its kind when its first client joins, forever while fewer than half are
 * forever. When full, the clients of every state that waited longer than
 * discard-timeout are dropped first (they have given up by then: stub
 * resolvers retry after a second or two); if that made no room, the
 * oldest state that may be jostled out is dropped (its clients get no
 * answer) when its newest client joined longer than jostle-timeout ago;
 * otherwise the new client
 * is dropped too, without an answer (MESH_FULL), and counted, as Unbound
 * does. Every state has a total time budget; past it the iterator gives
 * up with SERVFAIL.
 *
 * Modules: a state runs through the module stack (services/module.h); the
 * mesh knows no module by name. It calls the current module's operate()
 * and follows the result it leaves: pass down, wait for a reply or for
 * sub-queries, or finished, which goes back up the chain. When the answer
 * has passed the first module, the front end gets it through the
 * callbacks it registered (struct mesh_frontend): it stores it in the
 * caches and answers each client. Clients are opaque to the mesh: the
 * front end hands in a record of its own, copied into the state's region.
 *
 * Memory: each state has its own region, emptied when the state ends and
 * kept on the mesh's free list (up to MESH_REGION_CACHE of them) for the
 * next state, so that a state whose memory fits in the region's first
 * chunk costs no heap allocation. What a module keeps outside its region
 * is freed by the module's clear().
 */
#ifndef SERVICES_MESH_H
#define SERVICES_MESH_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>
#include "services/module.h"

struct region;
struct outbound;
struct mesh;
struct mesh_state;

/** mesh_new_client: the mesh is full and no state could be jostled out */
#define MESH_FULL (-2)

/** a client waiting on a mesh state */
struct mesh_client {
	/** next in the state's list */
	struct mesh_client *next;
	/** the front end's record of the client (copied, in the state's
	 * region) */
	void *data;
	/** serve-expired: the client's query packet (in the state's region)
	 * to answer it from the expired cache entry later, or NULL */
	uint8_t *qpkt;
	/** its length */
	size_t qlen;
};

/** what the mesh calls in the front end */
struct mesh_frontend {
	/**
	 * A state has finished: store its answer and answer its clients.
	 * @param arg: the argument given with these functions.
	 * @param s: the state (question, flags, clients).
	 * @param ans: the answer, or NULL for SERVFAIL.
	 * @param ede: Extended DNS Error for SERVFAIL, or -1.
	 */
	void (*done)(void *arg, struct mesh_state *s, struct mesh_answer *ans,
		int ede);
	/** A client is dropped without an answer (jostled out, or the mesh
	 * is deleted). */
	void (*drop)(void *arg, struct mesh_client *c);
	/** serve-expired-client-timeout passed: answer the client from an
	 * expired cache entry (c->qpkt). @return 1 when answered */
	int (*stale)(void *arg, struct mesh_client *c);
};

/** a state waiting on another (reverse dependency) */
struct mesh_ref {
	/** next in list */
	struct mesh_ref *next;
	/** the state */
	struct mesh_state *s;
};

/** one resolution in flight */
struct mesh_state {
	/** hash chain */
	struct mesh_state *hnext;
	/** all states, oldest first */
	struct mesh_state *prev, *next;
	/** run list link (mesh_run) */
	struct mesh_state *run_next;
	/** 1 while on the run list */
	int on_run_list;
	/** the event to run the current module with from the run list */
	enum module_ev run_event;
	/** the question, lower-cased name */
	uint8_t qname[256];
	/** length of qname */
	size_t qname_len;
	/** type */
	uint16_t qtype;
	/** class */
	uint16_t qclass;
	/** MESH_FLAG_* */
	int flags;
	/** hash of the key */
	uint32_t hash;
	/** per-state memory */
	struct region *region;
	/** clients to answer */
	struct mesh_client *clients;
	/** number of clients */
	int num_clients;
	/** states that wait on this one */
	struct mesh_ref *supers;
	/** states this one waits on */
	struct mesh_ref *subs;
	/** 1 when a background refresh (no client) */
	int prefetch;
	/** when the state started */
	struct timeval start;
	/** when its newest client joined (jostle-timeout counts from it,
	 * as Unbound's from its newest reply) */
	struct timeval last_join;
	/** the state as the modules see it */
	struct module_qstate qs;
	/** the client's subnet, part of the key when qs.ecs points here */
	struct module_ecs ecs;
	/** serve-expired: the client timer, or NULL */
	void *expire_timer;
	/** 1 when finished (answer delivered, waiting to be freed) */
	int finished;
	/** while it has clients: 1 for one of the forever states (never
	 * jostled out), 0 for one that may be jostled out */
	int forever;
	/** dns-error-reporting: the agent domain (wire, in region) of the
	 * Report-Channel option of the last reply to this state, and its
	 * length; 0 when that reply had none */
	uint8_t *er_agent;
	size_t er_agent_len;
	/** back pointer */
	struct mesh *mesh;
};

/** most emptied state regions a mesh keeps for reuse */
#define MESH_REGION_CACHE 64

/** the mesh of one worker */
struct mesh {
	/** the modules (not owned) */
	const struct module_stack *stack;
	/** the environment handed to the modules (not owned; the mesh
	 * fills in its functions and mesh pointer) */
	struct module_env *env;
	/** the network and timers (not owned) */
	struct outbound *out;
	/** edns-client-string (owned; NULL: none) */
	struct edns_strings *edns_strings;
	/** dns-error-reporting: note the Report-Channel of replies */
	int error_reporting;
	/** the front end's callbacks */
	struct mesh_frontend fe;
	/** their argument */
	void *fe_arg;
	/** hash table of states */
	struct mesh_state **table;
	/** size of table (power of 2) */
	size_t table_size;
	/** all states, oldest first */
	struct mesh_state *first, *last;
	/** run list */
	struct mesh_state *run_first, *run_last;
	/** number of states */
	size_t num_states;
	/** number of states with clients */
	size_t num_client_states;
	/** number of clients waiting */
	size_t num_clients;
	/** max states with clients (num-queries-per-thread) */
	size_t max_states;
	/** number of states with clients that are forever states (at most
	 * half of max_states, rounded up) */
	size_t num_forever;
	/** jostle timeout in ms */
	int jostle_ms;
	/** discard-timeout in ms (0: off) */
	int discard_ms;
	/** counter of clients dropped by discard-timeout, or NULL */
	uint64_t *ctr_discard;
	/** counter of states jostled out (jostle-timeout), or NULL */
	uint64_t *ctr_jostle;
	/** serve-expired-client-timeout in ms (0: off) */
	int expire_client_ms;
	/** 1 while mesh_run is running */
	int running;
	/** emptied regions of freed states, for new states */
	struct region *free_regions[MESH_REGION_CACHE];
	/** how many are in free_regions */
	int num_free_regions;
};

/**
 * Create a mesh.
 * @param stack: the modules every state runs through (not owned).
 * @param env: the module environment (not owned); the mesh sets its
 *	send_query, cancel_query, attach_sub, add_background and mesh.
 * @param out: network and timers (not owned).
 * @param max_states: num-queries-per-thread.
 * @param jostle_ms: jostle-timeout.
 * @param expire_client_ms: serve-expired-client-timeout (0: off).
 * @param fe: the front end's callbacks (copied).
 * @param fe_arg: their argument.
 * @return mesh or NULL.
 */
struct mesh *mesh_create(const struct module_stack *stack,
	struct module_env *env, struct outbound *out, size_t max_states,
	int jostle_ms, int expire_client_ms, const struct mesh_frontend *fe,
	void *fe_arg);

/**
 * Set discard-timeout: when the mesh is full, the clients of every state
 * that has waited at least ms are dropped without an answer (the front
 * end's drop callback) to make room, before jostle-timeout is tried.
 * @param ms: the timeout, 0 for none.
 * @param ctr: counter of the clients so dropped, or NULL.
 */
void mesh_set_discard_timeout(struct mesh *m, int ms, uint64_t *ctr);

/**
 * Start the modules' per-worker jobs (their worker_start(), e.g. the
 * validator's RFC 5011 probe timer). Call once, when the worker's
 * environment is complete and before its first query.
 * @param m: the mesh.
 * @param worker_index: the worker's number, 0 for the first (set in
 *	module_env.worker_index).
 */
void mesh_start(struct mesh *m, int worker_index);

/** Delete the mesh: clients are dropped, upstream queries cancelled. */
void mesh_delete(struct mesh *m);

/**
 * Add a client query to the mesh; starts a resolution or joins one.
 * @param m: the mesh.
 * @param qname: question name (client's case), uncompressed.
 * @param qtype: type.
 * @param qclass: class.
 * @param flags: MESH_FLAG_*.
 * @param data: the front end's record of the client (copied).
 * @param datalen: its size.
 * @param qpkt: serve-expired: the client's query (copied), or NULL.
 * @param qlen: its length.
 * @return 0 when added, MESH_FULL when the mesh is full (the caller
 *	drops the query, as Unbound does), -1 when out of memory (the
 *	caller answers SERVFAIL).
 */
int mesh_new_client(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const void *data, size_t datalen,
	const uint8_t *qpkt, size_t qlen);

/**
 * Add a client query with its subnet (EDNS Client Subnet; the
 * subnetcache module is in the stack): as mesh_new_client, but the state
 * is keyed by the subnet too, so clients of different subnets never
 * share a resolution (or its scoped answer).
 * @param ecs: the client's subnet (copied into the state), or NULL (as
 *	mesh_new_client).
 * @return 0 when added, MESH_FULL or -1 (as mesh_new_client).
 */
int mesh_new_client_ecs(struct mesh *m, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags,
	const struct module_ecs *ecs, const void *data, size_t datalen,
	const uint8_t *qpkt, size_t qlen);

/**
 * As mesh_new_client_ecs, with the client's tags (module_qstate.tags):
 * clients of different tags never share a state.
 * @param tags: the tags (0: none, as mesh_new_client_ecs).
 */
int mesh_new_client_tags(struct mesh *m, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags,
	const struct module_ecs *ecs, uint64_t tags, const void *data,
	size_t datalen, const uint8_t *qpkt, size_t qlen);

/**
 * Start a background refresh with no client, unless one is in flight:
 * a prefetch or a serve-expired refresh, counted in num.prefetch.
 * @return 0 on success or when one already runs, -1 on failure.
 */
int mesh_new_prefetch(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags);

/**
 * As mesh_new_prefetch, for a query a module or the front end needs in
 * the background that is no refresh of a cached answer (RFC 5011 probes,
 * RFC 8145 signals, the iterator's NS checks, a held zone's DNSKEY): not
 * counted in num.prefetch, as Unbound counts only prefetches.
 * @return 0 on success or when one already runs, -1 on failure.
 */
int mesh_new_background(struct mesh *m, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags);

/**
 * Run states on the run list until it is empty. Entry points call this.
 */
void mesh_run(struct mesh *m);

/**
 * Finish a state at once (control: flush_requestlist): answer every
 * client with the answer (or SERVFAIL when ans is NULL), inform the states
 * waiting on it, and free it once mesh_run gets to it.
 * @param s: the state.
 * @param ans: the answer, or NULL for SERVFAIL (with ede).
 * @param ede: Extended DNS Error code for SERVFAIL, or -1.
 */
void mesh_state_finish(struct mesh_state *s, struct mesh_answer *ans,
	int ede);

/** @return the number of states in the mesh */
size_t mesh_num_states(struct mesh *m);

/** @return the number of clients waiting */
size_t mesh_num_clients(struct mesh *m);

#endif /* SERVICES_MESH_H */
