/*
 * cachedb/redis_conn.h - one asynchronous connection to a Redis server,
 * on a worker's event loop.
 *
 * Design choice (issue 23): hiredis' asynchronous API runs on the
 * worker's own comm_base, through a small adapter: hiredis' addRead /
 * delRead / addWrite / delWrite hooks set the interest of a comm_watch
 * (comm_watch_create_rw), whose callback calls redisAsyncHandleRead /
 * HandleWrite. No thread, no queue, no lock: the worker that needs a
 * value sends the GET and goes on serving; the reply arrives as one more
 * event of its loop. Each worker has its own connection (so the fleet's
 * Redis sees num-threads connections per petrel).
 *
 * A connection is "up" once connected (and AUTH and SELECT sent, when
 * configured: they are pipelined ahead of every command). A command is
 * accepted only while up (or while the first connection is being made)
 * and while fewer than REDIS_CONN_MAX_PENDING
 * commands wait for their replies, so a slow or dead Redis costs the
 * worker nothing but one failed check: the caller goes on without it.
 *
 * Lost connections: a refused or timed-out connect, a closed or broken
 * connection, or too many commands in a row without a reply
 * (REDIS_CONN_MAX_TIMEOUTS, a hung server) drop the connection and
 * retry it after a back-off, 100 ms doubling to REDIS_CONN_MAX_BACKOFF_MS.
 * The loss is logged once (warning) and the return once (info), per
 * process: when the first connection goes down and when the last is
 * back; the retries between are silent.
 *
 * Callbacks: every command's callback is called exactly once by hiredis,
 * with the reply, or with NULL when the connection goes away (including
 * at redis_conn_delete). The callback must not free or drop the
 * connection; it may send more commands.
 */
#ifndef CACHEDB_REDIS_CONN_H
#define CACHEDB_REDIS_CONN_H

#include <stddef.h>

struct comm_base;
struct redis_conn;
struct redisAsyncContext;

/** most commands waiting for replies on one connection */
#define REDIS_CONN_MAX_PENDING 1024
/** this many command timeouts in a row with no reply drop the connection */
#define REDIS_CONN_MAX_TIMEOUTS 8
/** longest wait between connection attempts */
#define REDIS_CONN_MAX_BACKOFF_MS 3200

/** where and how to connect (copied by redis_conn_create) */
struct redis_server_cfg {
	/** IP address (host), or NULL/"" with path */
	const char *host;
	/** TCP port */
	int port;
	/** unix socket path, or NULL/"" */
	const char *path;
	/** password for AUTH, or NULL/"" */
	const char *password;
	/** logical database for SELECT (0: none sent) */
	int db;
	/** connect timeout, ms */
	int connect_timeout_ms;
	/** name in the logs ("server", "replica") */
	const char *name;
};

/** a command's callback: reply is a redisReply, or NULL (connection gone) */
typedef void (*redis_conn_cb_type)(struct redis_conn *c, void *reply,
	void *arg);

/**
 * Create a connection and start connecting.
 * @param base: the worker's event loop.
 * @param cfg: where to (copied).
 * @return the connection (possibly not up yet) or NULL (out of memory).
 */
struct redis_conn *redis_conn_create(struct comm_base *base,
	const struct redis_server_cfg *cfg);

/** Close and free; pending callbacks are called with NULL. NULL ok. */
void redis_conn_delete(struct redis_conn *c);

/** @return 1 when a command would be accepted now: the connection is
 * up, or is being made for the first time (at the worker's start; the
 * command waits in hiredis for it), and not too many wait for replies */
int redis_conn_ready(const struct redis_conn *c);

/**
 * Send a command.
 * @param argc, argv, argvlen: the command and its arguments (copied).
 * @param cb: called once with the reply (or NULL); may be NULL.
 * @param arg: its argument.
 * @return 0 when sent (cb will be called), -1 when not (not up, too many
 *	pending; cb is never called).
 */
int redis_conn_command(struct redis_conn *c, int argc, const char **argv,
	const size_t *argvlen, redis_conn_cb_type cb, void *arg);

/** A command the caller gave up waiting for (its own timeout); counts
 * towards REDIS_CONN_MAX_TIMEOUTS, and may drop the connection (so the
 * caller must not hold hiredis state across this call). */
void redis_conn_timeout(struct redis_conn *c);

/** @return the description of where it connects, for logs */
const char *redis_conn_name(const struct redis_conn *c);

#endif /* CACHEDB_REDIS_CONN_H */
