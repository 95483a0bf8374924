/*
 * util/netevent/netevent.h - the event layer: comm_base, comm_point,
 * timers, signals, socket helpers, and the backends underneath.
 *
 * Layering. Everything above util/netevent/ sees only the objects declared
 * here: a comm_base (one per worker: the loop, its cached clock, its timers
 * and signals) and comm_points (a UDP socket served in batches, a TCP
 * listening socket with its connections, an outgoing TCP connection),
 * plus comm_timer, comm_signal and comm_watch (any fd, readable). Below
 * them sits one backend, picked per comm_base by name at run time:
 *
 *   "select"    built always: select(2), fd sets copied before every call,
 *               descriptors >= FD_SETSIZE refused with an error (never
 *               written past the set), timers in a binary min-heap.
 *   "libevent"  built when HAVE_LIBEVENT: one event_base per comm_base
 *               (epoll on Linux, event ports on Solaris, kqueue on BSD).
 *   "io_uring"  built when HAVE_LIBURING (Linux): one ring per comm_base;
 *               descriptors through one-shot poll requests, UDP
 *               comm_points through multishot recvmsg into provided
 *               buffer rings and sendmsg requests, TCP comm_points
 *               through multishot accept, multishot recv into a buffer
 *               ring and send requests, everything submitted with the
 *               wait in one system call (backend_uring.c, comm_uring.c).
 *               Probed at run time: where the kernel cannot run it,
 *               comm_base_create logs one line (once per process) and
 *               uses the default backend instead.
 *
 * The backend contract (util/netevent/backend.h, internal) is the small
 * set of operations of Redis' ae: create/destroy a loop; register a file
 * descriptor and set its read/write interest, or remove it; create, arm,
 * disarm and free a one-shot relative timer; run one iteration of the loop
 * (block until something is ready, then call the callbacks); and a name.
 * Signals and the cross-thread "break" are built once above the backends
 * out of that contract: a signal handler writes the signal number into a
 * self-pipe, and comm_base_exit() sets a flag and writes a byte into the
 * base's wakeup pipe, both ordinary readable descriptors to every backend.
 *
 * Clock. The comm_base reads the time (gettimeofday) once per loop
 * iteration, right after the backend wakes and before the first callback
 * runs; everything above reads comm_base_now() / comm_base_secs() and never
 * calls time() itself. The idle hooks run at the same two points:
 * before_wait just before the backend may block, after_wake after it woke
 * and before any callback of that iteration.
 *
 * Threads. A comm_base and everything created on it belong to one thread.
 * The only call allowed from another thread is comm_base_exit().
 *
 * UDP hot path. comm_point_create_udp() preallocates batch_size slots
 * (buffer, address, control data) per comm_point; a wake-up drains the
 * socket with recvmmsg (recvmsg without it) in at most
 * NETEVENT_UDP_BATCHES_PER_WAKE batches, calls the callback per datagram
 * with a struct comm_reply, and sends all the answers of a batch with one
 * sendmmsg (per-packet sendmsg when sendmmsg is missing or stops short).
 * A peek callback (comm_point_set_peek) may look at a whole batch first,
 * to prefetch. A socket that comes back full every time goes into busy
 * mode: out of the backend, drained once per loop iteration by a loop
 * that does not sleep, until a batch comes back short (see comm_udp.c).
 * Nothing is allocated, locked or logged per packet. With a wildcard-bound
 * socket the answer leaves from the address the query was sent to
 * (IP_PKTINFO / IPV6_RECVPKTINFO). A UDP comm_point may drop datagrams
 * that waited too long in the socket (sock-queue-timeout), and a UDP or
 * TCP one may serve a proxy-protocol-port, whose queries come with a
 * PROXY v2 header that names the client (comm_udp_opts,
 * comm_point_set_proxy).
 *
 * Answering later. The callback may copy the reply's address with
 * comm_reply_save() (a small struct, by value) and return 0; later,
 * comm_reply_send() sends the answer. For TCP the saved address holds the
 * connection and its generation number: a connection closed (or reused)
 * in between is detected and the answer dropped (-1).
 *
 * Ownership. Every object is freed by its own _delete function, which may
 * be called from inside its own callback unless the doc says otherwise.
 * Comm_points must outlive saved comm_reply_addr values that name them.
 * A function that takes a callback and fails never calls the callback.
 */
#ifndef UTIL_NETEVENT_NETEVENT_H
#define UTIL_NETEVENT_NETEVENT_H

#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <time.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "util/netaddr.h"

struct comm_base;
struct comm_point;
struct comm_timer;
struct comm_signal;
struct comm_watch;
struct comm_tcp_conn;
struct comm_tcp_out;
struct ssl_ctx_st;

/** default number of datagrams per recvmmsg/sendmmsg batch */
#define NETEVENT_UDP_BATCH_DEFAULT 32
/** most batches drained from one UDP socket per wake-up */
#define NETEVENT_UDP_BATCHES_PER_WAKE 4
/** default per-slot buffer size (largest answer that fits) */
#define NETEVENT_BUFSIZE_DEFAULT 65535

/* ------------------------------------------------------------------ */
/* backends and the base                                               */

/**
 * @return the names of the backends compiled into this binary, separated
 *	by spaces, the default first among equals: "select libevent" or
 *	"select". Static string.
 */
const char *netevent_backends_compiled(void);

/**
 * Print the event layer's lines of the `-V` report to out: "event
 * backends: " and netevent_backends_compiled(), then, in a build with
 * io_uring, whether this kernel runs it (the run-time probe, with the
 * reason when not). Passed to version_print() (util/version.h).
 */
void netevent_version_print(FILE *out);

/** @return the name of the default backend ("libevent" when built). */
const char *netevent_backend_default(void);

/**
 * Can the named backend run here (compiled in, and the run-time probe of
 * the kernel passes)?
 * @param why: set to a static sentence when not.
 * @return 1 or 0.
 */
int netevent_backend_usable(const char *name, const char **why);

/**
 * Create an event base (one per worker).
 * @param backend: "select", "libevent", "io_uring", or NULL / "" /
 *	"default" for the default backend. A backend the kernel cannot run
 *	(io_uring) is replaced by the default one, logged once per process.
 * @return the base, or NULL (unknown or not compiled backend, or out of
 *	resources; logged).
 */
struct comm_base *comm_base_create(const char *backend);

/**
 * Free a base. Every comm_point, timer, signal and watch created on it must
 * have been deleted first. NULL is allowed. Not from inside dispatch.
 */
void comm_base_delete(struct comm_base *base);

/** @return the backend name of this base: "select", "libevent" or
 * "io_uring" (the one actually used). */
const char *comm_base_backend_name(struct comm_base *base);

/**
 * @return the kernel method underneath: "select", "epoll", "evport",
 *	"kqueue", "poll", ... (libevent's choice).
 */
const char *comm_base_method(struct comm_base *base);

/**
 * Run the loop until comm_base_exit() is called.
 * @return 0 after an exit request, -1 on a backend error (logged).
 */
int comm_base_dispatch(struct comm_base *base);

/**
 * Run one iteration: wait (at most until the next timer, or the given
 * limit) and run the callbacks that became ready. For tests and the
 * replay runner.
 * @param max_wait_ms: upper bound on the wait, -1 for none (then it may
 *	block until an event). 0 polls.
 * @return 0, or -1 on a backend error.
 */
int comm_base_loop_once(struct comm_base *base, int max_wait_ms);

/**
 * Make comm_base_dispatch() return after the current iteration. Callable
 * from a callback running on this base, or from any other thread (the base
 * is woken through its wakeup pipe). Async-signal-safe.
 */
void comm_base_exit(struct comm_base *base);

/** @return 1 if an exit was requested and not yet consumed by dispatch. */
int comm_base_exiting(struct comm_base *base);

/**
 * The cached clock: updated once per loop iteration (after the wait, before
 * the first callback). The pointer is stable for the life of the base.
 */
const struct timeval *comm_base_now(struct comm_base *base);

/** The cached clock in seconds; pointer stable for the life of the base. */
const time_t *comm_base_secs(struct comm_base *base);

/** Read the system clock into the cache now (start-up, long callbacks). */
void comm_base_update_time(struct comm_base *base);

/**
 * Set idle hooks (e.g. mark the worker offline for epoch-based
 * reclamation while it sleeps).
 * @param before_wait: called just before the backend may block; may be NULL.
 * @param after_wake: called after the backend woke, before any callback of
 *	that iteration runs; may be NULL.
 * @param arg: passed to both.
 */
void comm_base_set_idle_hooks(struct comm_base *base,
	void (*before_wait)(void *), void (*after_wake)(void *), void *arg);

/**
 * A before-wait hook: a callback the loop runs once per iteration, after
 * the callbacks of the iteration's wake-up and so before its next wait,
 * whose answer says whether that wait may sleep. Its owner embeds it in
 * its own state (nothing is allocated), fills run and arg, and links it
 * with comm_base_add_wait_hook; comm_base_del_wait_hook unlinks it, also
 * from inside its own run. While a linked hook's last answer is 1 (a hook
 * just linked counts as 1 until it runs) the loop waits with a zero
 * timeout. A UDP comm_point in busy mode is drained by one (comm_udp.c).
 * Like the idle hooks, they belong to the base's thread.
 */
struct comm_wait_hook {
	/** the callback. @return 1 when the next wait must not sleep (more
	 * to poll), 0 when it may */
	int (*run)(void *arg);
	/** its argument */
	void *arg;
	/** the last answer of run (1 from the link until it runs) */
	int poll;
	/** linked on a base */
	int linked;
	/** next linked */
	struct comm_wait_hook *next;
};

/** Link h (run and arg set) on the base's before-wait hooks; a no-op when
 * it is linked already. */
void comm_base_add_wait_hook(struct comm_base *base,
	struct comm_wait_hook *h);

/** Unlink h; a no-op when it is not linked. */
void comm_base_del_wait_hook(struct comm_base *base,
	struct comm_wait_hook *h);

/* ------------------------------------------------------------------ */
/* timers                                                              */

/**
 * Create a timer (not armed).
 * @param cb: called with arg when the timer fires (once per arming).
 * @return the timer or NULL.
 */
struct comm_timer *comm_timer_create(struct comm_base *base,
	void (*cb)(void *arg), void *arg);

/**
 * Arm (or re-arm) a timer to fire after ms milliseconds, counted from the
 * base's cached clock. Timers fire in deadline order; on the select backend
 * timers with the same deadline fire in the order they were set (libevent
 * does not promise that). @return 0 or -1.
 */
int comm_timer_set(struct comm_timer *t, int ms);

/** Disarm a timer; its callback will not be called. */
void comm_timer_disable(struct comm_timer *t);

/** @return 1 if the timer is armed. */
int comm_timer_is_set(struct comm_timer *t);

/** Free a timer (disarmed first). NULL is allowed. */
void comm_timer_delete(struct comm_timer *t);

/* ------------------------------------------------------------------ */
/* signals                                                             */

/**
 * Create a signal handler object: signals bound to it are caught by a
 * handler that only writes the number into a self-pipe; cb runs later in the
 * loop, as any other callback. One base per process should bind a given
 * signal (the last binding wins).
 * @return the object or NULL.
 */
struct comm_signal *comm_signal_create(struct comm_base *base,
	void (*cb)(int sig, void *arg), void *arg);

/** Catch sig and deliver it to this object's callback. @return 0 or -1. */
int comm_signal_bind(struct comm_signal *s, int sig);

/** Restore the default disposition of the bound signals and free. */
void comm_signal_delete(struct comm_signal *s);

/* ------------------------------------------------------------------ */
/* watching an arbitrary descriptor                                    */

/**
 * Call cb whenever fd is readable (level triggered), e.g. a command pipe.
 * The fd stays owned by the caller (not closed by delete).
 * @return the watch, or NULL (e.g. fd >= FD_SETSIZE on the select backend;
 *	logged).
 */
struct comm_watch *comm_watch_create(struct comm_base *base, int fd,
	void (*cb)(int fd, void *arg), void *arg);

/** Stop watching and free. NULL is allowed. */
void comm_watch_delete(struct comm_watch *w);

/** comm_watch_create_rw events: readable */
#define COMM_WATCH_READ 0x01
/** comm_watch_create_rw events: writable */
#define COMM_WATCH_WRITE 0x02

/**
 * Watch a descriptor for readability and writability, as a client library
 * with its own socket (hiredis) asks: cb gets the ready events
 * (COMM_WATCH_READ | COMM_WATCH_WRITE). Interest starts empty; set it with
 * comm_watch_set_events. The watch may be changed or deleted from its own
 * callback. The fd stays owned by the caller.
 * @return the watch, or NULL (logged).
 */
struct comm_watch *comm_watch_create_rw(struct comm_base *base, int fd,
	void (*cb)(int fd, int events, void *arg), void *arg);

/** Set the interest of a watch from comm_watch_create_rw (COMM_WATCH_*
 * bits, 0 for none). @return 0 or -1. */
int comm_watch_set_events(struct comm_watch *w, int events);

/**
 * Stop watching for now and let go of the fd, keeping the watch for
 * comm_watch_refd (call it before the fd is closed).
 * @return 0, or -1 when the backend cannot let go of the fd now: then
 *	delete the watch before the fd closes.
 */
int comm_watch_pause(struct comm_watch *w);

/**
 * Watch another descriptor with a paused watch (same callback and
 * argument), without allocating: for a socket per query.
 * @return 0, or -1 when the backend cannot move it now (the watch stays
 *	paused; delete it and create a new one).
 */
int comm_watch_refd(struct comm_watch *w, int fd);

/* ------------------------------------------------------------------ */
/* sockets                                                             */

/** options for the socket helpers; zero means "leave the kernel default" */
struct comm_sock_opts {
	/** set SO_REUSEPORT (one listening socket per worker) */
	int reuseport;
	/** SO_RCVBUF in bytes, 0 for default; logged if the kernel gives less */
	int rcvbuf;
	/** SO_SNDBUF in bytes, 0 for default; logged if the kernel gives less */
	int sndbuf;
	/** TCP listen backlog, 0 for 256 (as Unbound: room for a burst of
	 * connections while a flood of others is being accepted and closed) */
	int backlog;
	/** ip-freebind: IP_FREEBIND, bind to an address not (yet) on the
	 * machine */
	int freebind;
	/** ip-transparent: IP_TRANSPARENT (IP_BINDANY, SO_BINDANY), bind to
	 * a non-local address (needs CAP_NET_ADMIN; a warning otherwise) */
	int transparent;
	/** ip-dscp: the DSCP (1-63) of every packet sent, 0 to leave it */
	int dscp;
	/** tcp-mss: TCP_MAXSEG of a TCP socket, 0 for the default */
	int tcp_mss;
};

/**
 * Set the DSCP of the packets a socket sends (IP_TOS or IPV6_TCLASS: the
 * code point in the upper 6 bits). Nothing for 0.
 * @param fd: the socket.
 * @param family: AF_INET or AF_INET6.
 * @param dscp: 0-63.
 * @return 0, or -1 (errno set; the caller logs).
 */
int comm_sock_set_dscp(int fd, int family, int dscp);

/**
 * The options of the upstream sockets a base's users open (comm_tcp_out,
 * the outside network's UDP sockets): ip-dscp and outgoing-tcp-mss.
 * @param base: the event base.
 * @param dscp: ip-dscp, 0 for none.
 * @param tcp_mss: outgoing-tcp-mss, 0 for the default.
 */
void comm_base_set_out_opts(struct comm_base *base, int dscp, int tcp_mss);

/** @return the ip-dscp set with comm_base_set_out_opts (0: none). */
int comm_base_out_dscp(const struct comm_base *base);

/**
 * Open a UDP socket bound to addr: nonblocking, close-on-exec, IPV6_V6ONLY
 * for IPv6, IP_PKTINFO / IPV6_RECVPKTINFO when addr is a wildcard.
 * @return the fd, or -1 (logged, naming the address).
 */
int comm_sock_open_udp(const struct netaddr *addr,
	const struct comm_sock_opts *opts);

/**
 * Open a TCP listening socket bound to addr: nonblocking, close-on-exec,
 * SO_REUSEADDR, IPV6_V6ONLY for IPv6.
 * @return the fd, or -1 (logged, naming the address).
 */
int comm_sock_open_tcp(const struct netaddr *addr,
	const struct comm_sock_opts *opts);

/** @return 1 if addr is 0.0.0.0 or :: (any port). */
int comm_sock_is_wildcard(const struct netaddr *addr);

/* ------------------------------------------------------------------ */
/* comm_point: UDP and TCP service                                     */

/** local address information of a query (the address that was asked) */
struct comm_local {
	/** AF_INET or AF_INET6 if known, else 0 */
	int family;
	union {
		/** IPv4: from IP_PKTINFO */
		struct in_pktinfo v4;
		/** IPv6: from IPV6_RECVPKTINFO */
		struct in6_pktinfo v6;
	} pi;
};

/**
 * The socket peer of a query that came through a PROXY v2 load balancer
 * (proxy-protocol-port): where a UDP answer goes, while the client address
 * is the one the header named. Small, so that a saved reply stays small.
 */
struct comm_peer {
	/** the address; an IP socket's peer fits sockaddr_in6 */
	union {
		/** any */
		struct sockaddr sa;
		/** IPv4 */
		struct sockaddr_in v4;
		/** IPv6 */
		struct sockaddr_in6 v6;
	} a;
	/** its length; 0 when the client is the socket peer itself */
	socklen_t len;
};

/**
 * One query handed to the callback. The callback reads the query from
 * buf[0..len) and may write the answer in place (up to cap bytes) and set
 * len; returning 1 sends buf[0..len). Valid only during the callback.
 */
struct comm_reply {
	/** the comm_point the query came in on */
	struct comm_point *c;
	/** the query, and the answer written in place */
	uint8_t *buf;
	/** length of the query in buf; set to the answer length to send */
	size_t len;
	/** capacity of buf */
	size_t cap;
	/** the client's address (on a proxy-protocol-port: the source
	 * address of the PROXY header, unless it was a LOCAL one) */
	struct netaddr client;
	/** on a proxy-protocol-port, once a PROXY v2 header came: the socket's
	 * own peer, the proxy (over UDP the answer goes there; over TCP it
	 * goes back on the connection). Access control must accept the proxy
	 * as well as the client (as Unbound). Else len 0. */
	struct comm_peer peer;
	/** the local address asked (UDP on a wildcard socket), or family 0 */
	struct comm_local local;
	/** TCP: the connection, else NULL */
	struct comm_tcp_conn *conn;
	/** TCP: the connection's generation when the query arrived */
	uint32_t gen;
	/** 1 if it came over TCP */
	int is_tcp;
	/** DNS over TLS with EDNS Padding in the query: the answer is padded
	 * (pad-responses) when sent */
	int pad;
	/** UDP: the peek callback's word for this datagram, kept from the
	 * peek stages to the callback (see comm_point_set_peek); 0 before
	 * the peek, and always 0 for TCP */
	uint64_t hint;
	/** UDP: the datagram's index in its batch (0 .. batch-1), for what
	 * a peek callback keeps per datagram; 0 for TCP */
	int slot;
	/** DNS over HTTPS: the HTTP/2 stream of the query, else 0 */
	int32_t stream;
};

/**
 * Per-query callback for UDP and TCP comm_points.
 * @param rep: the query; write the answer in place.
 * @param arg: the arg given at creation.
 * @return 1 to send rep->buf[0..rep->len), 0 to send nothing now (answered
 *	later through comm_reply_save / comm_reply_send), -1 to send nothing
 *	ever (dropped: a TCP connection is then owed nothing for it, and
 *	its slot may go to a new connection).
 */
typedef int (*comm_point_cb_type)(struct comm_reply *rep, void *arg);

/** where to send an answer later; a plain value, copy it freely */
struct comm_reply_addr {
	/** the comm_point the query came in on */
	struct comm_point *c;
	/** the client's address */
	struct netaddr client;
	/** UDP through a PROXY v2 load balancer: where the answer goes;
	 * else len 0 */
	struct comm_peer peer;
	/** the local address asked, or family 0 */
	struct comm_local local;
	/** TCP: the connection, else NULL */
	struct comm_tcp_conn *conn;
	/** TCP: the connection's generation, checked on send */
	uint32_t gen;
	/** 1 for TCP */
	int16_t is_tcp;
	/** DNS over TLS: pad the answer (the query carried EDNS Padding) */
	int16_t pad;
	/** DNS over HTTPS: the HTTP/2 stream, else 0 */
	int32_t stream;
};

/** counters of a comm_point; read them freely from the owning thread */
struct comm_point_stats {
	/** queries received (datagrams or TCP messages) */
	uint64_t pkts_in;
	/** answers sent */
	uint64_t pkts_out;
	/** UDP batches processed (a recv call that returned >= 1 datagram) */
	uint64_t batches;
	/** recvmmsg calls (or recvmsg calls without recvmmsg); on io_uring,
	 * the times the multishot receive was armed */
	uint64_t recv_calls;
	/** sendmmsg calls (0 on io_uring: an answer is a sendmsg request) */
	uint64_t sendmmsg_calls;
	/** per-packet sendmsg calls (fallback and later answers) */
	uint64_t sendmsg_calls;
	/** answers the kernel refused (dropped) */
	uint64_t send_errors;
	/** UDP: times the socket went into busy mode (it came back full
	 * NETEVENT_UDP_BATCHES_PER_WAKE times in a row; it is then drained
	 * every loop iteration, out of the backend, until it runs dry) */
	uint64_t busy_periods;
	/** UDP with a queue timeout: the longest a datagram waited in the
	 * socket, microseconds (query.queue_time_us.max; a maximum, not a
	 * counter) */
	uint64_t queue_wait_max_us;
	/** TCP connections accepted and served */
	uint64_t tcp_accepted;
	/** TCP connections refused (accepted and closed: every slot taken by
	 * a connection owed an answer) */
	uint64_t tcp_refused;
	/** stream-wait-size: answers dropped for want of queue room */
	uint64_t stream_wait_drops;
	/** TCP connections closed to give their slot to a new one (idle,
	 * owed nothing; those that never sent a whole query first) */
	uint64_t tcp_evicted;
	/** times accept was paused for want of descriptors */
	uint64_t tcp_accept_pauses;
	/** TCP connections closed for idleness */
	uint64_t tcp_timeouts;
	/** TCP connections closed for a malformed length or read error */
	uint64_t tcp_errors;
	/** answers dropped because their connection was gone */
	uint64_t tcp_stale_replies;
	/** DNS over TLS: handshakes completed */
	uint64_t tls_handshakes;
	/** DNS over TLS: handshakes that failed (the connection closed) */
	uint64_t tls_handshake_fails;
	/** queries over TLS (DoT, and DoH over TLS) */
	uint64_t tls_queries;
	/** of those, on a resumed TLS session */
	uint64_t tls_resume_queries;
	/** proxy-protocol-port: datagrams dropped and connections closed
	 * for a missing, malformed or refused PROXY v2 header; on a TCP
	 * port without it, connections closed for sending one */
	uint64_t proxy_errors;
	/** UDP with sock-queue-timeout: datagrams dropped for having waited
	 * in the socket longer than the timeout */
	uint64_t queue_timeouts;
};

/**
 * Serve a bound UDP socket.
 * @param base: the worker's base.
 * @param fd: the socket (from comm_sock_open_udp); owned by the comm_point
 *	from now on (closed by delete), also on failure.
 * @param bufsize: buffer per datagram slot (largest answer), 0 for default.
 * @param batch: datagrams per recvmmsg/sendmmsg, 0 for default (32).
 * @param cb: per-query callback.
 * @param arg: its argument.
 * @return the comm_point, or NULL.
 */
struct comm_point *comm_point_create_udp(struct comm_base *base, int fd,
	size_t bufsize, int batch, comm_point_cb_type cb, void *arg);

/** settings of a UDP comm_point fixed at creation */
struct comm_udp_opts {
	/** every datagram starts with a PROXY v2 header (proxy-protocol-port,
	 * util/netevent/proxy_protocol.h): it is removed, its source
	 * address becomes rep->client, and the answer goes to the socket
	 * peer (rep->peer); a datagram without a valid one is dropped
	 * (proxy_errors) */
	int proxy;
	/** sock-queue-timeout in ms, 0 for off: a datagram that waited in
	 * the socket longer (the kernel's SO_TIMESTAMP against the clock
	 * read when its batch came in) is dropped (queue_timeouts); the
	 * timestamps are asked for only when this is set */
	int queue_timeout_ms;
};

/**
 * Serve a bound UDP socket, with settings (comm_point_create_udp is this
 * with none).
 * @param opts: the settings, or NULL for none.
 * Other parameters and the return value as comm_point_create_udp.
 */
struct comm_point *comm_point_create_udp_opts(struct comm_base *base,
	int fd, size_t bufsize, int batch, comm_point_cb_type cb, void *arg,
	const struct comm_udp_opts *opts);

/**
 * The sock-queue-timeout check: did a datagram received at stamp wait
 * longer than ms at now? A stamp in the future (the clock stepped) has
 * not waited. @return 1 if it is stale.
 */
int comm_queue_expired(const struct timeval *stamp, const struct timeval *now,
	int ms);

/**
 * Look at a received UDP batch before it is answered.
 * @param rep: one datagram (buf, len, client set; hint is the callback's).
 * @param stage: 0 .. stages-1.
 * @param arg: the comm_point's arg.
 */
typedef void (*comm_point_peek_type)(struct comm_reply *rep, int stage,
	void *arg);

/**
 * Give a UDP comm_point a peek callback: for every batch recvmmsg returns,
 * it is called for every datagram with stage 0, then for every datagram
 * with stage 1, ..., and only then does the per-query callback run for
 * each. It is for prefetching what the answers will read, so that the
 * cache misses of a whole batch overlap instead of one after the other.
 * @param c: a UDP comm_point.
 * @param peek: the callback, NULL for none.
 * @param stages: passes over the batch (1 or more).
 */
void comm_point_set_peek(struct comm_point *c, comm_point_peek_type peek,
	int stages);

/**
 * Serve a TCP listening socket (RFC 7766: 2-byte length framing,
 * pipelined queries answered in any order, idle timeout).
 * @param base: the worker's base.
 * @param fd: the listening socket (comm_sock_open_tcp); owned from now on,
 *	also on failure.
 * @param max_conn: connections served at once (incoming-num-tcp). When all
 *	are taken a new one replaces an idle one (tcp_evicted), or, when all
 *	are owed answers, is accepted and closed at once (tcp_refused).
 * @param idle_timeout_ms: close a connection idle this long (tcp-idle-timeout,
 *	0 for never); shorter before the first query and when over half the
 *	connections are in use (comm_point_tcp_set_timeouts).
 * @param bufsize: largest query/answer, 0 for default (65535).
 * @param cb: per-query callback (rep->is_tcp set).
 * @param arg: its argument.
 * @return the comm_point, or NULL.
 */
struct comm_point *comm_point_create_tcp(struct comm_base *base, int fd,
	int max_conn, int idle_timeout_ms, size_t bufsize,
	comm_point_cb_type cb, void *arg);

/**
 * Close the socket(s), connections, and free. NULL is allowed. Not from
 * inside the comm_point's own callback.
 */
void comm_point_delete(struct comm_point *c);

/** @return the comm_point's counters. */
const struct comm_point_stats *comm_point_get_stats(struct comm_point *c);

/** Zero the counters. */
void comm_point_clear_stats(struct comm_point *c);

/** @return the socket (UDP) or listening socket (TCP). */
int comm_point_fd(struct comm_point *c);

/**
 * Make a TCP comm_point serve DNS over TLS (RFC 7858): every connection
 * accepted from now on runs a TLS handshake (non-blocking, bounded by the
 * idle timeout) before its framed queries are read; answers are written
 * through TLS. Call right after comm_point_create_tcp.
 * @param ctx: from tls_server_ctx_create (not owned; must outlive c).
 * @return 0, or -1 when an io_uring comm_point could not move to readiness
 *	(TLS is served by readiness: the ring reads bytes that SSL_read
 *	needs to read itself).
 */
int comm_point_set_tls(struct comm_point *c, struct ssl_ctx_st *ctx);

/**
 * Pad answers on a DNS over TLS comm_point (RFC 7830, RFC 8467): an answer
 * to a query that carried the Padding option grows to a multiple of block
 * bytes. @param block: pad-responses-block-size; 0 for no padding.
 * @return 0, or -1 (out of memory).
 */
int comm_point_set_tls_padding(struct comm_point *c, int block);

/** DNS over HTTPS settings of a TCP comm_point (comm_point_set_http) */
struct comm_http_settings {
	/** the path of queries (http-endpoint); copied */
	const char *endpoint;
	/** concurrent streams per connection (http-max-streams) */
	int max_streams;
	/** query bytes held over the connections (http-query-buffer-size) */
	size_t query_buffer;
	/** answer bytes likewise (http-response-buffer-size) */
	size_t response_buffer;
	/** TCP_NODELAY on the connections (http-nodelay) */
	int nodelay;
};

/**
 * Serve DNS over HTTPS (RFC 8484, HTTP/2) on a TCP comm_point instead of
 * length-framed DNS: with comm_point_set_tls as well (ALPN h2), or alone
 * for h2c (http-notls-downstream). The queries reach the same callback,
 * with rep->stream set; the answer goes back on its stream (see
 * util/netevent/http2.h). Call before connections arrive.
 * @return 0, or -1 (out of memory, or built without nghttp2).
 */
int comm_point_set_http(struct comm_point *c,
	const struct comm_http_settings *set);

/** DoH counters of a comm_point (zero when it serves no DoH) */
struct comm_http_stats {
	/** DNS queries received over HTTP */
	uint64_t queries;
	/** requests answered with an HTTP error (404, 400, 413, 415, ...) */
	uint64_t http_errors;
	/** streams refused for want of buffer space */
	uint64_t refused;
	/** query bytes held now (of http-query-buffer-size) */
	uint64_t query_bytes;
	/** answer bytes held now (of http-response-buffer-size) */
	uint64_t response_bytes;
};

/** fill in the DoH counters of a comm_point */
void comm_point_get_http_stats(struct comm_point *c,
	struct comm_http_stats *out);

/**
 * edns-tcp-keepalive (RFC 7828) on a TCP or TLS comm_point: an answer to
 * a query that carries the option gets it back with TIMEOUT ms / 100, and
 * that connection's idle timeout becomes ms. Not on DoH (RFC 8484
 * section 5: HTTP/2 manages its connections).
 * @param ms: the timeout (edns-tcp-keepalive-timeout); 0 turns it off.
 * @return 0, or -1 (out of memory).
 */
int comm_point_set_keepalive(struct comm_point *c, int ms);

/**
 * A limit on the client TCP connections of a comm_point
 * (tcp-connection-limit), kept by its owner: admit is asked about each
 * connection as it is accepted, before it takes a slot; a refused one is
 * closed at once (counted in tcp_refused). release is called when an
 * admitted connection closes, with the slot admit gave.
 */
struct comm_tcp_limit {
	/** @return 1 to keep the connection from client (with *slot set
	 * for release, or -1 when no limit applies), 0 to close it */
	int (*admit)(void *arg, const struct netaddr *client, int *slot);
	/** an admitted connection with slot >= 0 closed */
	void (*release)(void *arg, int slot);
	/** their argument */
	void *arg;
};

/**
 * stream-wait-size on a TCP comm_point: an answer that would take the
 * bytes queued on its connections (not yet written) past this is
 * dropped (counted in stream_wait_drops). DNS over TCP and TLS framing;
 * DoH streams are HTTP/2's.
 * @param bytes: the limit, 0 for none.
 */
void comm_point_set_stream_wait(struct comm_point *c, size_t bytes);

/** @return the bytes of answers queued now on the point's connections */
size_t comm_point_tcp_queued(const struct comm_point *c);

/**
 * Set the connection limit of a TCP comm_point (before it accepts).
 * @param lim: copied; NULL for none.
 */
void comm_point_set_tcp_limit(struct comm_point *c,
	const struct comm_tcp_limit *lim);

/**
 * edns-tcp-keepalive on a TCP connection, for each query read on it (the
 * TCP read path and the replay runner's fake connection share it): a
 * query with the option marks the connection; from then on every answer
 * on it that has an OPT record carries the option (RFC 7828 section
 * 3.3.2 allows it on any answer to an EDNS query; Unbound sends it so),
 * and its idle timeout is the advertised one.
 * @param ka_ms: edns-tcp-keepalive-timeout, ms; 0 when off (returns 0).
 * @param seen: the connection's mark, in and out.
 * @param q: the query; qlen its length.
 * @return 1 when the answer gets the option (comm_tcp_keepalive_add).
 */
int comm_tcp_keepalive_query(int ka_ms, int *seen, const uint8_t *q,
	size_t qlen);

/**
 * Add the edns-tcp-keepalive option, TIMEOUT ka_ms / 100 (in units of
 * 100 ms, at most 65535), to an answer's OPT record.
 * @param msg: the answer, changed in place; len its length; cap the
 *	room at msg.
 * @return the new length, or len when left as it is (no OPT record, the
 *	option already there, no room).
 */
size_t comm_tcp_keepalive_add(int ka_ms, uint8_t *msg, size_t len,
	size_t cap);

/**
 * proxy-protocol-port on a TCP (or TLS, or HTTPS) comm_point: every
 * connection accepted from now on starts with a PROXY v2 header, read
 * before anything else (before the TLS handshake), possibly in pieces;
 * its source address becomes the connection's client address. A
 * connection whose header is malformed or refused is closed
 * (proxy_errors). Call right after comm_point_create_tcp.
 */
void comm_point_set_proxy(struct comm_point *c);

/** @return the number of open TCP connections (0 for UDP). */
int comm_point_tcp_count(struct comm_point *c);

/**
 * Set the shorter timeouts of a TCP comm_point (defaults 2000 and 200 ms;
 * each applies only when shorter than the idle timeout, and never to a
 * connection owed an answer).
 * @param first_query_ms: a new connection must send its first whole query
 *	within this; 0 for only the idle timeout.
 * @param pressure_idle_ms: idle timeout while more than half the
 *	connections are in use; 0 for only the idle timeout.
 */
void comm_point_tcp_set_timeouts(struct comm_point *c, int first_query_ms,
	int pressure_idle_ms);

/** Stop reading / accepting (e.g. during reload). @return 0 or -1. */
int comm_point_stop_listening(struct comm_point *c);

/** Resume reading / accepting. @return 0 or -1. */
int comm_point_start_listening(struct comm_point *c);

/** Copy the address of a query out of a callback, to answer later. */
void comm_reply_save(const struct comm_reply *rep, struct comm_reply_addr *out);

/**
 * Send an answer later (outside the query's callback).
 * UDP: one sendmsg, from the asked address. TCP: queued on the
 * connection (copied) if it is still the same connection.
 * @return 0 if sent or queued; -1 if dropped (connection gone, send error).
 */
int comm_reply_send(const struct comm_reply_addr *ra, const uint8_t *pkt,
	size_t len);

/* ------------------------------------------------------------------ */
/* outgoing TCP (upstream queries)                                     */

/** how an outgoing TCP event ended, for comm_tcp_out_cb_type */
enum comm_tcp_out_status {
	/** a framed reply arrived */
	COMM_TCP_OUT_REPLY = 0,
	/** the connection closed or failed (connect refused, reset, EOF) */
	COMM_TCP_OUT_CLOSED,
	/** the timeout (connect or idle) expired */
	COMM_TCP_OUT_TIMEOUT,
	/** TLS only: the handshake or the certificate check failed */
	COMM_TCP_OUT_TLS_FAILED
};

/**
 * Called for each framed reply (status REPLY; pkt valid during the call),
 * or once when the connection ends (CLOSED/TIMEOUT; pkt NULL). After
 * CLOSED/TIMEOUT no more replies come; the callback may delete t then (and
 * the caller must delete it eventually).
 */
typedef void (*comm_tcp_out_cb_type)(struct comm_tcp_out *t,
	enum comm_tcp_out_status status, const uint8_t *pkt, size_t len,
	void *arg);

/**
 * Start a nonblocking TCP connection.
 * @param base: the worker's base.
 * @param to: server address.
 * @param from: source address to bind, or NULL.
 * @param timeout_ms: connect timeout and, after that, idle timeout between
 *	reads while replies are expected.
 * @param cb: callback; never called from inside this function.
 * @param arg: its argument.
 * @return the connection, or NULL (logged at verbose level).
 */
struct comm_tcp_out *comm_tcp_out_create(struct comm_base *base,
	const struct netaddr *to, const struct netaddr *from, int timeout_ms,
	comm_tcp_out_cb_type cb, void *arg);

/**
 * Queue a query; the 2-byte length is added. Can be called before the
 * connection is up. @return 0 or -1 (too long, closed, out of memory).
 */
int comm_tcp_out_write(struct comm_tcp_out *t, const uint8_t *pkt,
	size_t len);

/** Close and free. NULL is allowed. Safe from inside its own callback. */
void comm_tcp_out_delete(struct comm_tcp_out *t);

/**
 * Close the connection but keep its memory (the struct, its timer, the
 * 64 kB reply buffer, a write queue item, the backend's watch where the
 * backend can move it) for comm_tcp_out_reopen: an owner that keeps a few
 * parked connections opens TCP without allocating. The callback is not
 * called. Safe from inside its own callback (nothing of the old
 * connection runs after it returns). Plain TCP only (not TLS).
 */
void comm_tcp_out_park(struct comm_tcp_out *t);

/**
 * Open a new connection on a parked t, as comm_tcp_out_create would.
 * @return 0, or -1 (t stays parked: delete it or try again later).
 */
int comm_tcp_out_reopen(struct comm_tcp_out *t, const struct netaddr *to,
	const struct netaddr *from, int timeout_ms, comm_tcp_out_cb_type cb,
	void *arg);

/**
 * Start a nonblocking TCP connection that speaks TLS (util/netevent/tls.h):
 * after the connect the handshake runs in the event loop, and queued
 * queries are written only through TLS once it is complete. The
 * certificate must verify against ctx's trust store and name auth_name
 * (or, without a name, the address). A failure ends the connection with
 * COMM_TCP_OUT_TLS_FAILED; nothing is ever sent in clear.
 * @param ctx: an SSL_CTX from tls_client_ctx_create (not owned).
 * @param auth_name: the server's name, or NULL/"" to verify the address.
 * @param use_sni: send auth_name as SNI.
 * Other parameters and the return value as comm_tcp_out_create.
 */
struct comm_tcp_out *comm_tcp_out_create_tls(struct comm_base *base,
	const struct netaddr *to, const struct netaddr *from, int timeout_ms,
	struct ssl_ctx_st *ctx, const char *auth_name, int use_sni,
	comm_tcp_out_cb_type cb, void *arg);

/** @return why the connection failed (TLS handshake or certificate, a
 * timed out handshake), or "" when not known. Valid while t exists. */
const char *comm_tcp_out_error(const struct comm_tcp_out *t);

/**
 * Carry HTTP/2 instead of framed DNS (forwarding over DNS over HTTPS):
 * ALPN "h2" is offered (call before the handshake, right after
 * comm_tcp_out_create_tls), the bytes read go to the callback as they
 * come (COMM_TCP_OUT_REPLY with raw bytes), and comm_tcp_out_write_raw
 * queues bytes without a length prefix.
 * @return 0 or -1.
 */
int comm_tcp_out_set_h2(struct comm_tcp_out *t);

/** Queue bytes as they are (after comm_tcp_out_set_h2). @return 0/-1 */
int comm_tcp_out_write_raw(struct comm_tcp_out *t, const uint8_t *data,
	size_t len);

/** @return 1 once the TLS handshake of t has completed, else 0 */
int comm_tcp_out_tls_done(const struct comm_tcp_out *t);

#endif /* UTIL_NETEVENT_NETEVENT_H */
