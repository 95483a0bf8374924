/*
 * util/netevent/comm_point_int.h - what the comm_point files share
 * (internal to util/netevent/).
 *
 * A comm_point's work is split by job: comm_point.c holds the shared API
 * (creation's common part, the settings, the counters, the listening
 * state, delete, answers sent later), comm_udp.c the UDP service,
 * comm_tcp.c the TCP service with its PROXY v2 and DNS over HTTPS glue,
 * and comm_uring.c the io_uring paths of both (HAVE_LIBURING), reached
 * only on an io_uring base. All of them read the same struct comm_point,
 * so its layout is here. A function one file lends to another carries
 * the comm__ prefix and is declared below; everything else is static in
 * its file.
 */
#ifndef UTIL_NETEVENT_COMM_POINT_INT_H
#define UTIL_NETEVENT_COMM_POINT_INT_H

#include "util/netevent/netevent_int.h"
#include "util/netevent/proxy_protocol.h"
#include <sys/socket.h>
#include <sys/uio.h>

#if defined(HAVE_RECVMMSG) || defined(HAVE_SENDMMSG)
#define nev_mmsg mmsghdr
#else
/** the layout of struct mmsghdr, for systems without it */
struct nev_mmsg {
	/** the message */
	struct msghdr msg_hdr;
	/** bytes received */
	unsigned int msg_len;
};
#endif

/** comm_point kinds */
enum comm_point_type {
	/** UDP socket */
	COMM_UDP,
	/** TCP listening socket */
	COMM_TCP
};

/** most answers queued on one connection before reading pauses */
#define TCP_MAX_QUEUED 64
/** most queries read from one connection per wake-up (fairness) */
#define TCP_READS_PER_WAKE 32
/** most connections accepted per wake-up */
#define TCP_ACCEPTS_PER_WAKE 16
/** default time for a new connection to send its first whole query, ms */
#define TCP_FIRST_QUERY_MS 2000
/** default idle timeout when more than half the slots are in use, ms */
#define TCP_PRESSURE_IDLE_MS 200
/** pause of accept when out of descriptors and no connection is idle, ms */
#define TCP_ACCEPT_PAUSE_MS 100
/** most idle connections read (and kept) before one is closed for a new
 * connection; past it the new one is refused */
#define TCP_EVICT_TRIES 4

/** one TCP connection slot */
struct comm_tcp_conn {
	/** the listening comm_point */
	struct comm_point *c;
	/** socket, -1 when the slot is free */
	int fd;
	/** backend io */
	void *io;
	/** idle timer */
	struct comm_timer *timer;
	/** generation: changes on open and close */
	uint32_t gen;
	/** interest mask currently set */
	int mask;
	/** the client's address */
	struct netaddr client;
	/** the tcp-connection-limit slot the connection counts in, -1 */
	int limit_slot;
	/** read buffer (bufsize), allocated on first use */
	uint8_t *rbuf;
	/** the length prefix being read */
	uint8_t lenbuf[2];
	/** bytes of lenbuf read */
	size_t lgot;
	/** message length (valid when lgot == 2) */
	size_t need;
	/** message bytes read */
	size_t got;
	/** queued answers */
	struct nev_wq wq;
	/** queries handed to the callback and not answered there (they may
	 * be answered later with comm_reply_send) */
	int pending;
	/** the client closed its side: close after the queue drains and the
	 * pending queries are answered (or the idle timer fires) */
	int read_closed;
	/** whole queries read on this connection */
	uint64_t nq;
	/** last progress (accept, whole query, answer queued): the cached
	 * clock then; the timer counts from it */
	struct timeval since;
	/** when the armed timer is due (valid while it is set): progress
	 * that only moves the deadline later leaves the timer alone, and
	 * tcp_conn_timeout sets it again for the rest (no timer call per
	 * query) */
	struct timeval due;
	/** the accept round (comm_point accept_round) it was accepted in */
	uint64_t round;
	/** DNS over TLS (comm_point_set_tls): the connection's TLS state,
	 * else NULL. Reads and writes go through util/netevent/tls.c; until
	 * the handshake is done only the handshake runs */
	struct ssl_st *ssl;
	/** the TLS handshake is complete */
	int hs_done;
	/** what the handshake waits for: NEV_READ or NEV_WRITE */
	int hs_mask;
	/** the TLS handshake resumed a session */
	int resumed;
	/** the client asked for edns-tcp-keepalive: its idle timeout is
	 * the one advertised (comm_point_set_keepalive) */
	int ka;
	/** DNS over HTTPS (comm_point_set_http): the HTTP/2 session, else
	 * NULL; the bytes read go to it instead of the DNS framing */
	struct h2_session *h2;
	/** proxy-protocol-port: the PROXY v2 header is still being read;
	 * nothing else is read (and no TLS handshake runs) until it is */
	int pp_wait;
	/** the header gathered so far, while pp_wait */
	struct pp2_stream pp;
	/** proxy-protocol-port: the socket's own peer (the proxy) once the
	 * header named the client, which then replaced it in client; len 0
	 * before that and on other ports. Queries carry it in rep->peer so
	 * that access control can ask about the proxy too. */
	struct netaddr proxy;
};

/** a UDP or TCP service point */
struct comm_point {
	/** the base */
	struct comm_base *base;
	/** kind */
	enum comm_point_type type;
	/** socket */
	int fd;
	/** backend io */
	void *io;
	/** reading / accepting */
	int listening;
	/** per-query callback */
	comm_point_cb_type cb;
	/** its argument */
	void *arg;
	/** buffer size per slot */
	size_t bufsize;
	/** counters */
	struct comm_point_stats stats;

	/* UDP */
	/** slots per batch */
	int batch;
	/** receive packet info (wildcard socket): AF_INET, AF_INET6, 0 */
	int pktinfo;
	/** receive control data (packet info or timestamps) */
	int ctl_on;
	/** proxy-protocol-port: UDP datagrams and TCP connections start
	 * with a PROXY v2 header */
	int proxy;
	/** tcp-connection-limit (comm_point_set_tcp_limit); admit NULL
	 * for none */
	struct comm_tcp_limit limit;
	/** stream-wait-size: the most bytes of answers queued on the
	 * point's connections (comm_point_set_stream_wait), 0 no limit */
	size_t wq_max;
	/** the bytes queued now (each connection's queue adds to it) */
	size_t wq_bytes;
	/** UDP sock-queue-timeout, ms; 0 off (no timestamps asked for) */
	int qt_ms;
	/** size of one control buffer */
	size_t ctlsize;
	/** batch * bufsize bytes */
	uint8_t *bufs;
	/** per slot reply handles */
	struct comm_reply *reps;
	/** receive headers */
	struct nev_mmsg *rmsg;
	/** receive iovecs */
	struct iovec *riov;
	/** receive control buffers */
	uint8_t *rctl;
	/** send headers */
	struct nev_mmsg *smsg;
	/** send iovecs */
	struct iovec *siov;
	/** send control buffers */
	uint8_t *sctl;
	/** in busy mode: out of the backend, drained every loop iteration */
	int busy;
	/** in busy mode: its before-wait hook on the base (drains it) */
	struct comm_wait_hook busy_hook;
	/** looks at a batch before it is answered, or NULL */
	comm_point_peek_type peek;
	/** its number of passes */
	int peek_stages;
#ifdef HAVE_LIBURING
	/** on an io_uring base: the completion-based receive and send
	 * state (udp_ring_*), NULL when the socket is served by readiness */
	struct udp_ring *ring;
#endif

	/* TCP */
	/** DNS over TLS: the server context (not owned), or NULL */
	struct ssl_ctx_st *tls_ctx;
	/** DNS over TLS: answer padding block size, 0 for none */
	int pad_block;
	/** scratch for a padded answer (65535 bytes) when pad_block */
	uint8_t *padbuf;
	/** edns-tcp-keepalive: the timeout advertised, ms; 0 when off */
	int ka_ms;
	/** DNS over HTTPS: settings and byte budgets, else NULL */
	struct h2_service *http;
	/** DNS over HTTPS: the endpoint (copied) */
	char *http_endpoint;
	/** DNS over HTTPS: TCP_NODELAY on connections */
	int http_nodelay;
	/** DNS over HTTPS: the query and answer of the callback (65535) */
	uint8_t *http_buf;
	/** DNS over HTTPS: HTTP/2 output gathered before it is queued, so
	 * that the frames of a step leave in one write (one TLS record) */
	uint8_t *http_out;
	/** bytes in http_out */
	size_t http_outlen;
	/** slots */
	struct comm_tcp_conn *conns;
	/** connections open at most (incoming-num-tcp) */
	int max_conn;
	/** number of slots: max_conn, or 2 * max_conn on an io_uring base,
	 * where a closed connection's slot waits for its requests to
	 * complete while a spare one serves the next connection */
	int nslots;
	/** connections open */
	int nconn;
	/** idle timeout */
	int idle_ms;
#ifdef HAVE_LIBURING
	/** on an io_uring base: the completion-based accept, receive and
	 * send state (tcp_ring_*), NULL when served by readiness */
	struct tcp_ring *tring;
#endif
	/** time to the first whole query, ms (0: only idle_ms) */
	int first_ms;
	/** idle timeout when over half the slots are used (0: only idle_ms) */
	int pressure_ms;
	/** set while more than half the slots are in use */
	int pressured;
	/** set while accept is paused (out of descriptors) */
	int accept_paused;
	/** resumes a paused accept */
	struct comm_timer *accept_timer;
	/** counts the wake-ups of the listening socket: a connection is
	 * not closed for a new one in the round it was accepted in */
	uint64_t accept_round;
};

/* comm_point.c: the shared part */
/**
 * The head of comm_point_create_udp and _tcp: make fd non-blocking and
 * allocate the comm_point's common part.
 * @return the comm_point, or NULL (logged; fd is closed).
 */
struct comm_point *comm__cp_new(struct comm_base *base, int fd,
	enum comm_point_type type, size_t bufsize, comm_point_cb_type cb,
	void *arg);
/**
 * The tail of comm_point_create_udp and _tcp, once their own state is
 * made: serve c through the ring when its base is io_uring and the kernel
 * allows (comm__udp_ring_setup, comm__tcp_ring_setup), else watch c->fd
 * with cb; then start listening.
 * @return 0, or -1 (logged when out of memory; the caller deletes c).
 */
int comm__cp_listen(struct comm_point *c, nev_io_cb_type cb);

/* comm_udp.c: UDP */
/**
 * sock-queue-timeout: did the datagram received with m wait too long in
 * the socket? A datagram without a timestamp is kept.
 * @return 1 if it is stale (counted).
 */
int comm__udp_stale(struct comm_point *c, struct msghdr *m);
/**
 * proxy-protocol-port: take the PROXY v2 header off a datagram. The
 * header's source becomes rep->client, the socket peer goes to rep->peer
 * (the answer goes there), and buf, len and cap start after the header.
 * @return 0, or -1 when the datagram is to be dropped (counted).
 */
int comm__udp_proxy_strip(struct comm_point *c, struct comm_reply *rep);
/** read the packet info of a received message into local */
void comm__udp_parse_ctl(struct msghdr *m, struct comm_local *local);
/**
 * Fill m's control data so the answer leaves from the asked address.
 * @param ctl: buffer of ctl_space() bytes (comm_udp.c).
 */
void comm__udp_set_ctl(struct msghdr *m, const struct comm_local *local,
	uint8_t *ctl);
/** leave busy mode: unlink; wait in the backend again if listening */
void comm__udp_busy_leave(struct comm_point *c);

/* comm_tcp.c: TCP */
/** (re)arm a connection's timer: its timeout counted from its last
 * progress */
void comm__tcp_conn_arm(struct comm_tcp_conn *conn);
/** the connection made progress: its timer counts from now */
void comm__tcp_conn_progress(struct comm_tcp_conn *conn);
/** close a connection and free its slot */
void comm__tcp_conn_close(struct comm_tcp_conn *conn);
/** over half the slots used or not: on a change, re-arm the timers of the
 * connections owed nothing (their timeout depends on it) */
void comm__tcp_pressure_check(struct comm_point *c);
/**
 * Queue an answer (copied) and try to write it.
 * @return 0 if queued or written (the connection may have been closed
 *	after a complete write), -1 if dropped.
 */
int comm__tcp_conn_queue(struct comm_tcp_conn *conn, const uint8_t *pkt,
	size_t len, int pad);
/**
 * The client closed its sending side: the connection stays until what
 * it is owed is written (tcp_conn_flush).
 * @return tcp_conn_flush's value: 0, or non-zero if it was closed.
 */
int comm__tcp_conn_eof(struct comm_tcp_conn *conn);
/**
 * The 2-byte length of the next message is in (lenbuf): take it.
 * @return 0, or -1 when it is 0 or longer than the buffer (malformed:
 *	this connection only is closed, counted).
 */
int comm__tcp_conn_take_len(struct comm_tcp_conn *conn);
/**
 * A whole framed query is in rbuf (need bytes): hand it to the callback
 * and queue its answer, or count it as pending (answered later).
 * @return 0, or -1 if the connection was closed or reused meanwhile.
 */
int comm__tcp_conn_query(struct comm_tcp_conn *conn);
/** the PROXY v2 header of a connection is complete: its source is the
 * client from now on */
void comm__tcp_conn_proxy_done(struct comm_tcp_conn *conn,
	const struct pp2_info *info);
/** the PROXY v2 header of a connection is bad: close it (counted) */
void comm__tcp_conn_proxy_fail(struct comm_tcp_conn *conn, const char *why);
/**
 * On a port without proxy-protocol-port, does the connection's first
 * message start like a PROXY v2 header (its length bytes are the first
 * two of the signature)? Looked at once, when ten bytes of it are in.
 * @param before: message bytes read before this read.
 */
int comm__tcp_conn_stray_proxy(const struct comm_tcp_conn *conn,
	size_t before);
/**
 * Queue what HTTP/2 has to send and write it.
 * @return 0, or -1 if the connection was closed (an error, or both sides
 *	are done with the session and everything is written).
 */
int comm__tcp_conn_h2_out(struct comm_tcp_conn *conn);
/**
 * @param fresh: set to 1 when an idle connection was passed over because
 *	it was accepted in this round.
 * @return the idle connection to close first for a new one, or NULL
 * when every connection is owed an answer or was accepted this round
 */
struct comm_tcp_conn *comm__tcp_victim(struct comm_point *c, int *fresh);
/** accept new connections */
void comm__tcp_acceptable(int lfd, int events, void *arg);

/* comm_uring.c: the io_uring paths (HAVE_LIBURING) */
#ifdef HAVE_LIBURING
/**
 * Serve c through the ring if the base is io_uring and the kernel has
 * buffer rings and multishot receive.
 * @return 1 if so (c->ring set, not armed yet), 0 to use readiness,
 *	-1 out of memory.
 */
int comm__udp_ring_setup(struct comm_point *c);
/** start or stop the ring receive with the listening state */
void comm__udp_ring_listen(struct comm_point *c);
/** the comm_point goes: its ring state lingers until nothing is in flight
 * (it owns the socket until then) */
void comm__udp_ring_delete(struct comm_point *c);
/** the connection closes: cancel its receive, keep a queue in flight */
void comm__tcp_ring_conn_closing(struct comm_tcp_conn *conn);
/**
 * Send the head of the write queue if no send is in flight; close a
 * finished connection. Same contract as tcp_conn_flush.
 */
int comm__tcp_ring_flush(struct comm_tcp_conn *conn);
/**
 * Accept through the ring or watch the backlog, as the table allows: the
 * ring accept is armed while listening with room (fewer than max_conn
 * connections and a free slot); the readiness watch is on while
 * listening with a full table; neither while paused or stopped, or while
 * the room waits for a closed connection's slot to be free.
 */
void comm__tcp_ring_accept_mode(struct comm_point *c);
/**
 * Serve the TCP comm_point c through the ring if its base is io_uring
 * and the kernel has buffer rings.
 * @return 1 if so (c->tring set, accept not armed yet), 0 to use
 *	readiness, -1 out of memory.
 */
int comm__tcp_ring_setup(struct comm_point *c);
/** start or stop accepting with the listening state */
void comm__tcp_ring_listen(struct comm_point *c);
/** the comm_point goes (its connections closed): the state lingers until
 * nothing is in flight, owning the listening socket until then */
void comm__tcp_ring_delete(struct comm_point *c);
/**
 * Serve a TCP comm_point that was set up on the ring by readiness instead:
 * the ring reads raw bytes into provided buffers, where a TLS connection
 * needs SSL_read. The ring state lingers until its requests are done and
 * then closes the socket it holds; the comm_point goes on with a
 * duplicate of it (the same listening socket).
 * @return 0 or -1.
 */
int comm__tcp_ring_to_readiness(struct comm_point *c);
#endif /* HAVE_LIBURING */

#endif /* UTIL_NETEVENT_COMM_POINT_INT_H */
