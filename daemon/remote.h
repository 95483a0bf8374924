/*
 * daemon/remote.h - the control server (petrel-control) and the
 * Prometheus metrics endpoint (http-metrics-interface).
 *
 * Where it runs: in the supervisor's event loop (the main thread with
 * threads, the parent process with fork). Each listening socket is a
 * comm_watch; a connection is served at once, blocking with short socket
 * timeouts (SO_RCVTIMEO/SO_SNDTIMEO), one command per connection, as
 * Unbound's remote control does: commands are rare, and a silent client
 * costs the supervisor at most the timeout.
 *
 * Transport: control-interface starting with '/' is a unix socket (mode
 * 0660, plain text); otherwise TCP on control-interface@control-port,
 * with TLS and mutual certificate authentication when control-use-cert
 * is yes (the client's certificate must be signed by server-cert-file,
 * which petrel-control-setup makes a self-signed CA), plain otherwise.
 *
 * Protocol: the client sends one line "PETREL1 command args\n" (load_cache
 * then sends the dump, ending with a line "EOF"); the server answers with
 * text and closes. Errors are one line starting with "error". Unbound's
 * unbound-control speaks the same protocol with the word "UBCT1" (and the
 * bulk commands local_zones, local_datas and their _remove send their
 * lines after the request, ending with a line holding the byte 0x04), so
 * it works unchanged, with the certificates unbound-control-setup makes.
 * Where a script of Unbound's parses an answer, a UBCT1 client gets
 * Unbound's bytes: "ok" for flush, flush_type, flush_infra,
 * flush_requestlist and load_cache (petrel-control is told what was
 * removed or loaded), "no view with name: X" (not an error) for a view
 * that does not exist, list_stubs (the root hints first) and
 * list_forwards in Unbound's format.
 *
 * The code: remote.c (this header) is the server, its protocols and the
 * commands run in the supervisor; remote_worker.c the commands a worker
 * runs and the pipe protocol; remote_cfg.c the configuration edits.
 * Reaching the workers: whatever touches a cache or a mesh runs inside a
 * worker, in its own thread or process, through its command pipe: the
 * byte 'C', a 32-bit length, then "command args\0payload". The worker
 * answers on its statistics pipe with a frame (magic, length, bytes).
 * With threads the caches are shared, so cache commands go to worker 0
 * only (which is a QSBR reader, so it may read the caches); with fork
 * they go to every child and the answers are summed or joined. Commands
 * that need a new immutable structure (local zones, forward and stub
 * zones, set_option) build a changed copy of the config and apply it as
 * a reload that keeps the caches (daemon_apply_config); fork children
 * get the same change as a "cfg ..." worker command and reload on it.
 */
#ifndef DAEMON_REMOTE_H
#define DAEMON_REMOTE_H

#include <stddef.h>

struct daemon;
struct worker;
struct config_file;
struct stats_buf;
struct stats_info;
struct stats_globals;
struct comm_base;

/** longest request line */
#define REMOTE_LINE_MAX 4096

/** the protocol version word that starts every request line */
#define REMOTE_PROTO "PETREL1"
/** Unbound's: the real unbound-control(8) (and the tools built on it)
 * start their request line with it; served the same way */
#define REMOTE_PROTO_UNBOUND "UBCT1"

/** the control server of a daemon (opaque) */
struct remote;

/** @return 1 when the config asks for the control server or metrics */
int remote_needed(const struct config_file *cfg);

/**
 * Open the control and metrics listeners and read the TLS keys (before
 * chroot and the change of user, like the DNS sockets).
 * @return the server, or NULL (logged: which address, which file).
 */
struct remote *remote_create(struct daemon *d, struct config_file *cfg);

/**
 * Start serving: watch the listeners in the supervisor's event base.
 * @return 0 or -1 (logged).
 */
int remote_attach(struct remote *rc, struct comm_base *base);

/** Close the listeners and free. NULL is allowed. */
void remote_delete(struct remote *rc);

/** In a forked child: close the inherited listening sockets and the
 * control connection being served, if any (the structure stays for the
 * parent). NULL is allowed. */
void remote_child_close(struct remote *rc);

/**
 * Gather the statistics of every worker (through the worker command
 * channel, as petrel-control stats does), in the supervisor.
 * @param d: the daemon.
 * @param mode: a STATS_GET_ mode (daemon/remote_worker.h).
 * @param info: d->num_workers entries, filled (zero for a worker that
 *	did not answer).
 * @param g: filled with the process-wide values.
 * @return 0.
 */
int remote_gather_stats(struct daemon *d, int mode, struct stats_info *info,
	struct stats_globals *g);

#endif /* DAEMON_REMOTE_H */
