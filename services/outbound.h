/*
 * services/outbound.h - the seam between the resolver core and the network.
 *
 * The mesh and the iterator never touch sockets or the clock. They reach
 * upstream servers only through a struct outbound (a table of functions and
 * an opaque context), and they read time only through outbound->now. The
 * daemon plugs in the real outside network (services/outside_network.c:
 * random source ports from outgoing-range, random IDs, 0x20, TCP fallback,
 * timers on the worker's comm_base); the replay runner (tests/replay/)
 * plugs in a fake network answered from a scenario script and a fake clock.
 *
 * Ownership and callbacks:
 *  - send() copies what it needs; the caller's buffers may be reused at once.
 *  - send() either returns a handle and later calls cb exactly once, or
 *    returns NULL and never calls cb (libuv's rule).
 *  - cb is never called from inside send() or cancel(); it runs later from
 *    the event loop (or the replay runner's step loop).
 *  - cancel() stops a pending query; its cb is then never called. The
 *    handle is invalid after cb has run or after cancel().
 *  - The packet given to cb is only valid during the call. It has already
 *    been matched to the query: ID, source address and port, and question
 *    (name with 0x20 case, type, class). It has not been scrubbed.
 */
#ifndef SERVICES_OUTBOUND_H
#define SERVICES_OUTBOUND_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>

struct netaddr;
struct outbound_query;

/** how a query ended, passed to the callback */
enum outbound_status {
	/** a matching reply arrived; pkt/len hold it */
	OUTBOUND_REPLY = 0,
	/** no reply within the timeout (after the retries the network does) */
	OUTBOUND_TIMEOUT,
	/** the query could not be sent or the connection failed */
	OUTBOUND_ERROR
};

/** query flags for send() */
#define OUTBOUND_FLAG_RD	0x0001	/* set RD in the query (forwarding) */
#define OUTBOUND_FLAG_CD	0x0002	/* set CD */
#define OUTBOUND_FLAG_DO	0x0004	/* set the DO bit in EDNS */
#define OUTBOUND_FLAG_NOEDNS	0x0008	/* send without an OPT record */
#define OUTBOUND_FLAG_TCP	0x0010	/* use TCP (after TC, or tcp-upstream) */

/** most bytes of EDNS options on one upstream query (an ECS option of an
 * IPv6 /128 takes 24, an edns-client-string option up to 68) */
#define OUTBOUND_MAX_OPTS 128

/**
 * Called once when an upstream query ends.
 * @param arg: the cb_arg given to send().
 * @param status: how it ended.
 * @param pkt: the reply (status OUTBOUND_REPLY), else NULL.
 * @param len: its length.
 * @param rtt_ms: measured round trip in milliseconds (reply), or the
 *	timeout that expired.
 */
typedef void (*outbound_cb_type)(void *arg, enum outbound_status status,
	const uint8_t *pkt, size_t len, int rtt_ms);

/** the network as the resolver core sees it */
struct outbound {
	/** context passed to every function below */
	void *ctx;
	/**
	 * Send a query.
	 * @param ctx: the context.
	 * @param to: server address and port.
	 * @param qname: query name in wire format (any case; the network may
	 *	randomise the case for 0x20 and checks it in the reply).
	 * @param qname_len: its length.
	 * @param qtype: type.
	 * @param qclass: class.
	 * @param flags: OUTBOUND_FLAG_*.
	 * @param opts: EDNS options for the OPT record (code, length, data
	 *	each; copied), or NULL; not sent with OUTBOUND_FLAG_NOEDNS.
	 *	Queries with other options are never merged.
	 * @param optlen: their length (at most OUTBOUND_MAX_OPTS).
	 * @param timeout_ms: how long to wait for a reply.
	 * @param cb: called once when the query ends.
	 * @param cb_arg: passed to cb.
	 * @return handle, or NULL (cb is then never called).
	 */
	struct outbound_query *(*send)(void *ctx, const struct netaddr *to,
		const uint8_t *qname, size_t qname_len, uint16_t qtype,
		uint16_t qclass, int flags, const uint8_t *opts,
		size_t optlen, int timeout_ms, outbound_cb_type cb,
		void *cb_arg);
	/** Cancel a pending query; its callback is never called. */
	void (*cancel)(void *ctx, struct outbound_query *q);
	/**
	 * Run fn(arg) after ms milliseconds (mesh timers: serve-expired
	 * client timeout, jostle). @return a timer handle, or NULL.
	 */
	void *(*timer_set)(void *ctx, int ms, void (*fn)(void *), void *arg);
	/** Cancel a timer from timer_set (fn is then never called). */
	void (*timer_cancel)(void *ctx, void *timer);
	/** the worker's cached clock: updated once per loop iteration */
	const struct timeval *now;
};

#endif /* SERVICES_OUTBOUND_H */
