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
 * Limits: at most num-queries-per-thread states with clients. When full,
 * the oldest state older than jostle-timeout is dropped (its clients get
 * no answer, as in Unbound) to make room; otherwise the new client is
 * answered SERVFAIL and counted. Every state has a total time budget; past
 * it the iterator gives up with SERVFAIL.
 *
 * Memory: each state has its own region, destroyed when the state ends.
 * ldns records the iterator keeps are freed by the iterator's cleanup.
 */
#ifndef SERVICES_MESH_H
#define SERVICES_MESH_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>
#include "services/resolver.h"

struct region;
struct iter_qstate;
struct mesh;
struct mesh_state;
struct mesh_answer;

/** state key flag: client asked with the DO bit */
#define MESH_FLAG_DO	0x01
/** state key flag: client asked with the CD bit */
#define MESH_FLAG_CD	0x02
/** state key flag: recursion desired (RD set by the client) */
#define MESH_FLAG_RD	0x04
/** state key flag: do not use forward zones (the address lookup of a
 * forward-host, which would otherwise go to the forwarder it names) */
#define MESH_FLAG_NOFWD	0x08

/** a client waiting on a mesh state */
struct mesh_client {
	/** next in the state's list */
	struct mesh_client *next;
	/** the caller's reply handle */
	struct resolver_handle handle;
	/** query ID */
	uint16_t id;
	/** query flags word (RD, CD are echoed) */
	uint16_t qflags;
	/** question name in the client's letter case */
	uint8_t qname[256];
	/** 1 when the client sent EDNS */
	int edns;
	/** client's UDP payload size (512 without EDNS) */
	uint16_t udp_size;
	/** 1 when the client set DO */
	int do_bit;
	/** transport */
	enum resolver_transport tp;
	/** when the client arrived */
	struct timeval start;
	/** serve-expired: the client's query packet (in the state's region)
	 * to answer it from the expired cache entry later, or NULL */
	uint8_t *qpkt;
	/** its length */
	size_t qlen;
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
	/** number of sub-states this one waits on */
	int num_subs;
	/** 1 when a background refresh (no client) */
	int prefetch;
	/** when the state started */
	struct timeval start;
	/** iterator state */
	struct iter_qstate *iq;
	/** serve-expired: the client timer, or NULL */
	void *expire_timer;
	/** 1 when finished (answer delivered, waiting to be freed) */
	int finished;
	/** back pointer */
	struct mesh *mesh;
};

/** the mesh of one worker */
struct mesh {
	/** the front end (env: config, network, stats) */
	struct resolver *res;
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
	/** jostle timeout in ms */
	int jostle_ms;
	/** 1 while mesh_run is running */
	int running;
};

/**
 * Create a mesh for a resolver.
 * @param res: the front end.
 * @param max_states: num-queries-per-thread.
 * @param jostle_ms: jostle-timeout.
 * @return mesh or NULL.
 */
struct mesh *mesh_create(struct resolver *res, size_t max_states,
	int jostle_ms);

/** Delete the mesh: clients get a NULL reply, upstream queries cancelled. */
void mesh_delete(struct mesh *m);

/**
 * Add a client query to the mesh; starts a resolution or joins one.
 * @param m: the mesh.
 * @param qname: question name (client's case), uncompressed.
 * @param qtype: type.
 * @param qclass: class.
 * @param flags: MESH_FLAG_*.
 * @param client: the client (copied).
 * @return 0 when added, -1 when the mesh is full (the caller answers
 *	SERVFAIL or drops).
 */
int mesh_new_client(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags, const struct mesh_client *client);

/**
 * Start a background refresh with no client, unless one is in flight.
 * @return 0 on success or when one already runs, -1 on failure.
 */
int mesh_new_prefetch(struct mesh *m, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, int flags);

/**
 * Find or start a sub-query that state super waits on. Refuses (returns
 * NULL) when that would make a dependency cycle.
 * @return the sub-state, or NULL.
 */
struct mesh_state *mesh_attach_sub(struct mesh_state *super,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, int flags);

/**
 * Put a state on the run list (it has something new to look at).
 */
void mesh_schedule(struct mesh_state *s);

/**
 * Run states on the run list until it is empty. Entry points call this.
 */
void mesh_run(struct mesh *m);

/**
 * A state is finished: answer every client with the answer (or SERVFAIL
 * when ans is NULL), inform the states waiting on it, and free it once
 * mesh_run gets to it.
 * @param s: the state.
 * @param ans: the answer, or NULL for SERVFAIL (with ede).
 * @param ede: Extended DNS Error code for SERVFAIL, or -1.
 */
void mesh_state_finish(struct mesh_state *s, struct mesh_answer *ans,
	int ede);

/** Put a finished state on the run list to be freed (internal). */
void mesh_schedule_free(struct mesh_state *s);

/*
 * Provided by services/resolver.c, called by the mesh when a state ends.
 */

/**
 * Store a finished state's answer in the caches (not for SERVFAIL).
 * @param r: the resolver.
 * @param s: the state (question, flags).
 * @param ans: the answer or NULL.
 */
void resolver_store_answer(struct resolver *r, struct mesh_state *s,
	struct mesh_answer *ans);

/**
 * Encode the answer for one client and call the reply callback.
 * @param r: the resolver.
 * @param s: the state.
 * @param c: the client.
 * @param ans: the answer, or NULL for SERVFAIL.
 * @param ede: Extended DNS Error for SERVFAIL, or -1.
 */
void resolver_answer_client(struct resolver *r, struct mesh_state *s,
	struct mesh_client *c, struct mesh_answer *ans, int ede);

/**
 * serve-expired: answer a client from an expired cache entry (its query
 * packet is in c->qpkt) and call the reply callback.
 * @return 1 when answered, 0 when there is no usable entry.
 */
int resolver_answer_stale(struct resolver *r, struct mesh_client *c);

/** @return the number of states in the mesh */
size_t mesh_num_states(struct mesh *m);

/** @return the number of clients waiting */
size_t mesh_num_clients(struct mesh *m);

#endif /* SERVICES_MESH_H */
