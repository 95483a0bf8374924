/*
 * daemon/worker.h - one worker: an event loop with its listening
 * comm_points, its outside network, its resolver front end (mesh) and its
 * counters.
 *
 * A worker runs in its own thread (pthreads, solaris) or process (fork).
 * It owns everything it creates; it reads the environment (config, caches,
 * local zones, access control, iterator settings) that its daemon built,
 * shared with the other workers in the thread models.
 *
 * Life: worker_main() sets up on the current environment, reports ready,
 * dispatches until a command arrives on its command pipe, tears down, and
 * then either stops ('S') or sets up again on the next environment ('R',
 * reload). Commands are single bytes:
 *   'S' stop: in-flight queries are dropped, sockets closed, return.
 *   'R' reload: restart on w->next_env (threads: set by the supervisor
 *       before writing 'R'; fork: the child reads the config itself).
 *   'L' reopen the log file (fork children; threads share the parent's).
 *   'T' write the counters to the statistics pipe (fork children).
 *   'C' a control command (daemon/remote.h): followed by a length and the
 *       command text; the worker runs it against its own environment and
 *       writes a framed reply to its statistics pipe.
 */
#ifndef DAEMON_WORKER_H
#define DAEMON_WORKER_H

#include <stdint.h>
#include <time.h>
#include <sys/time.h>
#include "util/thread.h"
#include "util/netevent/netevent.h"
#include "services/outbound.h"
#include "front/resolver.h"
#include "services/outside_network.h"

struct daemon;
struct daemon_env;
struct resolver;
struct resolver_peek;
struct outside_network;
struct petrel_random;
struct dt_io;
struct xdp_worker;

/** a worker's own counters, exported to the supervisor and the logs.
 * The query counters are the resolver's (struct resolver_stats, counted
 * where the queries are handled); these are the ones only the worker
 * sees: its sockets and its outside network. */
struct worker_stats {
	/** queries that came over TCP */
	uint64_t num_tcp;
	/** UDP batches received */
	uint64_t udp_batches;
	/** upstream replies that matched no query (unwanted.replies) */
	uint64_t num_unwanted_replies;
	/** upstream queries sent over UDP (num.query.udpout) */
	uint64_t num_udpout;
	/** upstream queries sent over TCP (num.query.tcpout) */
	uint64_t num_tcpout;
	/** queries over TLS, DoT and DoH (num.query.tls) */
	uint64_t num_tls;
	/** of those, on resumed TLS sessions (num.query.tls.resume) */
	uint64_t num_tls_resume;
	/** queries over DNS over HTTPS (num.query.https) */
	uint64_t num_https;
	/** UDP queries dropped by sock-queue-timeout
	 * (num.queries_timed_out) */
	uint64_t num_queries_timed_out;
	/** proxy-protocol-port: datagrams dropped and connections closed for
	 * a bad PROXY v2 header (num.query.proxy_errors) */
	uint64_t num_proxy_errors;
	/** xdp-interface: answers sent over AF_XDP (num.xdp.answers), queries
	 * handed to the ordinary path (num.xdp.passed), frames dropped as
	 * not valid (num.xdp.invalid), answers dropped on a full TX ring
	 * (num.xdp.tx_full) */
	uint64_t num_xdp_answers, num_xdp_passed, num_xdp_invalid;
	uint64_t num_xdp_tx_full;
	/** microseconds the counters cover (not a counter: the members
	 * from here on are not summed) */
	uint64_t elapsed;
	/** the longest a query waited in the socket, microseconds
	 * (query.queue_time_us.max; with sock-queue-timeout only) */
	uint64_t queue_wait_max_us;
} __attribute__((aligned(64)));

/** one worker */
struct worker {
	/** number, 0..num_workers-1 */
	int index;
	/** the daemon (in a fork child: the child's copy) */
	struct daemon *daemon;
	/** the environment it runs on */
	struct daemon_env *env;
	/** the environment to switch to on 'R' (threads) */
	struct daemon_env *next_env;
	/** the event loop */
	struct comm_base *base;
	/** UDP comm_points, one per listening port */
	struct comm_point **udp;
	/** TCP comm_points, one per listening port (or NULL entries) */
	struct comm_point **tcp;
	/** number of entries in udp and tcp */
	int num_points;
	/** the address each listening point is bound to (getsockname; a
	 * wildcard socket's answers use the address from IP_PKTINFO), for
	 * interface-view; NULL when no interface-view is configured */
	struct netaddr *ifaddr;
	/** 1 when the policy has interface views */
	int local_views;
	/** interface-action: the access-control list of each listening
	 * point (acl_for_interface()); NULL when no interface-action is
	 * configured */
	const struct acl_list **if_acl;
	/** 1 when a listening point is a proxy-protocol-port: the proxy's own
	 * address goes to access control with each of its queries */
	int proxied;
	/** the queries of the UDP batch being answered, parsed by the peek
	 * (one per batch slot; the UDP points' batches are answered one at
	 * a time, so they share it) */
	struct resolver_peek *peeks;
	/** command pipe: [0] read by the worker, [1] written by the supervisor */
	int cmd_pipe[2];
	/** statistics and control reply pipe: [0] read by the supervisor,
	 * [1] written here (fork: the parent's pipe to this child; threads:
	 * made by worker_create) */
	int stat_pipe[2];
	/** watch on cmd_pipe[0] */
	struct comm_watch *cmd_watch;
	/** the auth zones' wake-up for DNSKEY lookups of held zones
	 * (auth_zones_set_waker): a pipe written by any thread, read
	 * here; -1 when this worker is not the one registered */
	int zmd_pipe[2];
	/** watch on zmd_pipe[0] */
	struct comm_watch *zmd_watch;
	/** the auth zones registered with */
	struct auth_zones *zmd_az;
	/** fork children: SIGTERM and SIGINT stop the worker through its
	 * loop (NULL for threads: the supervisor handles signals) */
	struct comm_signal *child_sig;
	/** the last command read */
	int cmd;
	/** xdp-interface: this worker's AF_XDP queues (xdp/xdp_sock.h), or
	 * NULL; and the buffer their queries are answered in (xdp_cap
	 * bytes, as a UDP comm_point's) */
	struct xdp_worker *xdp;
	uint8_t *xdp_buf;
	size_t xdp_cap;
	/** the outside network (owned) */
	struct outside_network *outnet;
	/** the seam the resolver uses (points into outnet) */
	struct outbound *out;
	/** the resolver front end and its mesh (owned) */
	struct resolver *res;
	/** random numbers (owned) */
	struct petrel_random *rnd;
	/** statistics-interval timer */
	struct comm_timer *stat_timer;
	/** when the counters were last reset */
	struct timeval stats_since;
	/** the thread (thread models) */
	thread_type thr;
	/** 1 once the thread was started */
	int thr_started;
	/** reader slot in the shared caches' reclamation scheme, -1 if none */
	int reader_id;
	/** log-queries: log every query */
	int log_queries;
	/** log-replies: log every answer */
	int log_replies;
	/** log-tag-queryreply: those lines are tagged 'query' and 'reply'
	 * instead of 'info' */
	int log_tag;
	/** log-destaddr: those lines end with where the query came to */
	int log_destaddr;
	/** dnstap writer (util/dnstap.h), NULL when dnstap is off */
	struct dt_io *dtio;
	/** counters kept over reloads */
	struct worker_stats total;
	/** the outside network's counters when the worker's were last
	 * reset (they are counted from there) */
	struct outside_network_stats outnet_base;
	/** the resolver's (extended) counters kept over reloads */
	struct resolver_stats ext_total;
	/** what the resets (stats, statistics-interval) took away, so that
	 * the Prometheus counters never go down: basic counters */
	struct worker_stats carry_s;
	/** and the resolver's (extended) counters */
	struct resolver_stats carry_r;
	/** fork child: the config to reload with on 'R' instead of reading
	 * the file (a control command changed it), or NULL; owned */
	struct config_file *next_cfg;
};

/**
 * What a worker has counted, for the daemon to carry over to the worker
 * that replaces it (a reload that stops and starts the workers): the
 * counters are reset only by `stats` (and statistics-interval), as
 * Unbound's, and the Prometheus counters never go down.
 */
struct worker_counters {
	/** the basic counters (worker.total) */
	struct worker_stats total;
	/** the resolver's (worker.ext_total) */
	struct resolver_stats ext_total;
	/** what the resets took away (worker.carry_s) */
	struct worker_stats carry_s;
	/** and of the resolver's (worker.carry_r) */
	struct resolver_stats carry_r;
	/** when the counters were last reset (worker.stats_since) */
	struct timeval since;
};

/** Copy what a stopped worker counted (worker_main has returned: its
 * last loop's counters are folded into its totals) into kc. */
void worker_counters_save(const struct worker *w, struct worker_counters *kc);

/** Give a worker that has not started what its predecessor counted. */
void worker_counters_restore(struct worker *w,
	const struct worker_counters *kc);

/**
 * Allocate a worker (no loop yet) with its command pipes.
 * @return the worker or NULL (logged).
 */
struct worker *worker_create(struct daemon *d, int index,
	struct daemon_env *env);

/** Free a worker that is not running. NULL is allowed. */
void worker_delete(struct worker *w);

/**
 * Run the worker until a stop command: set up, report ready on the
 * daemon's ready pipe, dispatch, and handle reloads.
 * @return 0 after a clean stop, -1 if set-up failed (logged).
 */
int worker_main(struct worker *w);

/** Thread entry for the thread models: calls worker_main. */
void *worker_thread_main(void *arg);

/**
 * Send a command byte to a worker (from the supervisor).
 * @return 0 or -1.
 */
int worker_send_cmd(struct worker *w, char cmd);

/**
 * Get the worker's counters (the running ones added to the kept total).
 * @param out: the worker's own counters.
 * @param rout: the resolver's counters (with the extended ones).
 * @param reset: zero them afterwards (what they held is kept in
 *	carry_s and carry_r, for the counters that never go down).
 */
void worker_get_stats(struct worker *w, struct worker_stats *out,
	struct resolver_stats *rout, int reset);

/** Log one line of statistics for this worker. */
void worker_log_stats(struct worker *w, const struct worker_stats *s,
	const struct resolver_stats *r);

#endif /* DAEMON_WORKER_H */
