/*
 * daemon/daemon.h - the petrel process: configuration, listening sockets,
 * privileges, and the supervisor of its workers.
 *
 * Start-up order (OpenBSD's habit): read the config; open the log; check
 * the file-descriptor budget; bind every listening socket; daemonize;
 * write the pidfile; chroot and change user; then start the workers.
 *
 * Threading models (thread-model:):
 *  - pthreads / solaris: workers are threads of this process. The main
 *    thread is the supervisor: it owns the signals and runs a small event
 *    loop; it builds the shared environment (config, caches, local zones,
 *    access control, iterator settings) that every worker reads.
 *  - fork: workers are child processes, each with its own caches (copied
 *    from the parent's empty ones at fork). The parent supervises: it
 *    restarts a worker that dies (with back-off, logging the signal or
 *    exit code), forwards reload, log-reopen and stop, and gathers
 *    statistics over pipes.
 * In both models the supervisor tells workers what to do by writing
 * one-byte commands into each worker's command pipe; no signal handler
 * touches shared state (signals arrive through the event layer's
 * self-pipe, in the supervisor's loop).
 *
 * Reload (SIGHUP): the new config is read into a fresh struct; if it does
 * not load, the error (file:line) is logged and the old one keeps running.
 * If the listening set (interfaces, port, so-reuseport, num-threads,
 * thread-model, event-backend) is unchanged, the listening sockets stay
 * open (queries wait in the kernel's buffers, none is lost) and the
 * workers are restarted on the new environment; caches are kept unless
 * their sizes changed. Otherwise everything is rebuilt.
 *
 * Ownership: struct daemon owns the config, the listening sockets (the
 * originals; workers serve dup()s), the environment and the workers.
 */
#ifndef DAEMON_DAEMON_H
#define DAEMON_DAEMON_H

#include <sys/types.h>
#include <sys/time.h>
#include "util/netaddr.h"

struct shm_stats;
struct config_file;
struct comm_base;
struct comm_signal;
struct comm_timer;
struct worker;
struct worker_counters;
struct daemon_env;
struct remote;

struct ssl_ctx_st;
struct comm_tcp_limit;
struct tcp_conn_limit;

/** one listening address: its UDP socket and TCP socket (or -1) */
struct listen_port {
	/** the address bound */
	struct netaddr addr;
	/** the text from the config, for messages */
	char name[NETADDR_STRLEN];
	/** UDP sockets: one per worker with so-reuseport, else one (index 0) */
	int *udp;
	/** TCP listening sockets, likewise; -1 when do-tcp is off */
	int *tcp;
	/** number of sockets in udp[] and tcp[] */
	int num;
	/** DNS over TLS: the port is tls-port and tls-service-key is set;
	 * tcp[] then serves TLS and there is no UDP socket */
	int tls;
	/** DNS over HTTPS: the port is https-port, with tls-service-key or
	 * http-notls-downstream; tcp[] serves HTTP/2, no UDP socket */
	int https;
};

/** the set of listening sockets */
struct xdp_set;

struct listen_set {
	/** the ports */
	struct listen_port *ports;
	/** how many */
	int num;
	/** 1 when each worker has its own sockets (so-reuseport) */
	int per_worker;
	/** DNS over TLS server context (tls-service-key, tls-service-pem),
	 * loaded with the sockets, before privileges are dropped; shared by
	 * the workers' TLS listeners; NULL when no port serves TLS */
	struct ssl_ctx_st *tls_server;
	/** DNS over HTTPS server context (the same files, ALPN h2); NULL
	 * when no port serves DoH over TLS */
	struct ssl_ctx_st *https_server;
	/** upstream TLS client context (tls-cert-bundle or the system
	 * store), loaded likewise; NULL when no zone uses TLS */
	struct ssl_ctx_st *tls_client;
	/** dnstap over TLS client context (dnstap-tls-cert-bundle, the
	 * client certificate), loaded likewise; NULL without it */
	struct ssl_ctx_st *dnstap_tls;
	/** xdp-interface: the XDP program and the AF_XDP sockets of the
	 * interface's queues (xdp/xdp_sock.h), opened with the sockets;
	 * NULL when off or when it could not be used */
	struct xdp_set *xdp;
	/** tcp-connection-limit, shared by the workers' TCP points
	 * (listen_set_tcp_limit); NULL when none is set */
	struct tcp_conn_limit *tcp_limit;
};

/**
 * The tcp-connection-limit hooks of a listen set for its TCP points
 * (comm_point_set_tcp_limit), or NULL when no limit is set. The counts
 * are the set's: shared by the threads, per process with thread-model
 * fork.
 */
const struct comm_tcp_limit *listen_set_tcp_limit(
	const struct listen_set *ls);

/** a forked worker, as the parent sees it */
struct child {
	/** process id, 0 when not running */
	pid_t pid;
	/** parent's end of the command pipe (write) */
	int cmd_fd;
	/** parent's end of the statistics pipe (read) */
	int stat_fd;
	/** when it was last started (seconds) */
	time_t started;
	/** restart back-off in ms */
	int backoff_ms;
	/** times it was restarted */
	int restarts;
};

/** the process */
struct daemon {
	/** the config file name (absolute, or as given) */
	char *cfgfile;
	/** the running config (owned) */
	struct config_file *cfg;
	/** the listening sockets (owned) */
	struct listen_set *ls;
	/** the shared environment for threads, the template for fork */
	struct daemon_env *env;
	/** number of workers */
	int num_workers;
	/** workers (thread models), in this process */
	struct worker **workers;
	/** thread models: what the workers counted, kept while a reload
	 * replaces them (num_workers entries, or NULL before the first
	 * start) */
	struct worker_counters *kept;
	/** children (fork model) */
	struct child *children;
	/** the supervisor's event base */
	struct comm_base *base;
	/** the supervisor's signals */
	struct comm_signal *sig;
	/** restart timer for dead children (fork) */
	struct comm_timer *restart_timer;
	/** readiness pipe: workers write a byte when their loop runs */
	int ready_pipe[2];
	/** workers that reported ready */
	int num_ready;
	/** 1 after READY=1 was sent for the current generation */
	int ready_sent;
	/** 1 while stopping */
	int stopping;
	/** 1 if a reload was requested */
	int reload_pending;
	/** 1 in a forked child */
	int is_child;
	/** generation, increased at each reload */
	int generation;
	/** extra verbosity from the command line (-v) */
	int cmdline_verbose;
	/** 1 if -d was given */
	int cmdline_foreground;
	/** the pidfile written, "" if none (for removal at exit) */
	char pidfile[1024];
	/** user to change to, resolved before chroot */
	uid_t uid;
	/** group */
	gid_t gid;
	/** 1 if uid/gid are to be applied */
	int change_user;
	/** the control server and metrics endpoint (daemon/remote.h), or
	 * NULL when neither is configured */
	struct remote *rc;
	/** when the daemon started (time.up) */
	struct timeval started;
	/** shm-enable: the statistics segments (daemon/shm_stats.h), or
	 * NULL */
	struct shm_stats *shm;
};

/**
 * Create the daemon from a loaded config.
 * @param cfgfile: the config file name (copied).
 * @param cfg: the config; owned by the daemon from now on.
 * @return the daemon or NULL (logged).
 */
struct daemon *daemon_create(const char *cfgfile, struct config_file *cfg);

/**
 * Check the descriptor budget: raise RLIMIT_NOFILE as far as allowed;
 * lower outgoing-range with a warning when the limit (or FD_SETSIZE with
 * the select backend) is short, or fail naming the option to change.
 * @return 0 or -1 (logged).
 */
int daemon_check_fds(struct daemon *d);

/**
 * Open every listening socket of the config.
 * @param cfg: the config.
 * @param num_workers: workers (for so-reuseport).
 * @return the set, or NULL (logged, naming the address).
 */
struct listen_set *listen_set_open(struct config_file *cfg, int num_workers);

/** Close every socket and free. NULL is allowed. */
void listen_set_close(struct listen_set *ls);

/**
 * Daemonize (unless do-daemonize is off), write the pidfile, chroot and
 * change user. @return 0 or -1 (logged).
 */
int daemon_detach_and_drop(struct daemon *d);

/**
 * Run the workers and supervise them until a stop signal.
 * @return the exit code for the process (0 on a clean stop).
 */
int daemon_run(struct daemon *d);

/** Free everything and remove the pidfile. */
void daemon_delete(struct daemon *d);

/**
 * Is the listening set the same in both configs (so sockets can stay)?
 * @return 1 if the same.
 */
int daemon_listen_cfg_equal(const struct config_file *a,
	const struct config_file *b);

/**
 * Run the workers on a new config (a reload without reading the file):
 * the same steps as SIGHUP, with the caches kept unless their sizes
 * changed. Called in the supervisor (control commands).
 * @param ncfg: the new config; owned by the daemon from now on (freed on
 *	failure).
 * @param tell_children: fork model: send 'R' to the children (they
 *	re-read the config file); 0 when the caller tells them itself.
 * @return 0, or -1 when refused (logged; the old config keeps running).
 */
int daemon_apply_config(struct daemon *d, struct config_file *ncfg,
	int tell_children);

/** Re-read the config file and apply it, as SIGHUP does. */
void daemon_request_reload(struct daemon *d);

/** Send a one-byte command to every worker (thread or child). */
void daemon_command_all(struct daemon *d, char cmd);

#endif /* DAEMON_DAEMON_H */
