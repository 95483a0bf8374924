/*
 * front/wait_limit.h - wait-limit: how many queries of each client
 * address wait on recursion in one worker.
 *
 * A flood from one address (or a spoofed one) of names that need
 * recursion must not fill the request list for everybody: each worker
 * counts the clients of each address that wait in its mesh, and a query
 * over the limit is dropped (as Unbound's wait-limit does). The count
 * goes up when a client joins the mesh and down when it is answered or
 * dropped.
 *
 * The table is one fixed array per worker, open addressing with linear
 * probing and backward-shift deletion (no tombstones), sized at creation
 * from the most clients the mesh may hold; it never allocates after
 * that. When it is full a client is not counted (and not limited): the
 * caller keeps the result of wait_limit_add to know whether to call
 * wait_limit_remove. Per worker: no locks.
 */
#ifndef FRONT_WAIT_LIMIT_H
#define FRONT_WAIT_LIMIT_H

#include <stddef.h>

struct netaddr;
struct wait_limit;

/**
 * Create a table.
 * @param slots: addresses it can count at once (rounded up to a power of
 *	2, at least 16).
 * @return the table or NULL (out of memory).
 */
struct wait_limit *wait_limit_create(size_t slots);

/** Delete a table (NULL is fine). */
void wait_limit_delete(struct wait_limit *w);

/** what wait_limit_add did */
enum wait_limit_result {
	/** counted: call wait_limit_remove when the client leaves */
	WAIT_LIMIT_COUNTED = 0,
	/** over the limit: not counted, drop the query */
	WAIT_LIMIT_OVER,
	/** the table is full: not counted, let the query through */
	WAIT_LIMIT_FULL
};

/**
 * Count a client of an address (the port is ignored).
 * @param limit: the most clients of one address; 0 for no limit (then
 *	nothing is counted: WAIT_LIMIT_FULL).
 * @return see enum wait_limit_result.
 */
enum wait_limit_result wait_limit_add(struct wait_limit *w,
	const struct netaddr *a, int limit);

/** A counted client of the address has left (answered or dropped). */
void wait_limit_remove(struct wait_limit *w, const struct netaddr *a);

/** @return the number of clients counted for the address */
int wait_limit_count(const struct wait_limit *w, const struct netaddr *a);

#endif /* FRONT_WAIT_LIMIT_H */
