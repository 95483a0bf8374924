/*
 * services/outside_network.h - the real network behind struct outbound.
 *
 * One outside_network per worker, on the worker's comm_base. It implements
 * the seam of services/outbound.h:
 *
 *  - UDP: each query gets its own socket, bound to a random port in
 *    1024..65535 (on a random outgoing-interface of the right family, or
 *    the wildcard), and a random 16-bit ID from the worker's generator. At
 *    most outgoing-range UDP sockets are open; queries beyond wait in a
 *    queue for a socket. The socket is not connected, so a reply from the
 *    wrong address or port is seen, ignored and counted as unwanted.
 *  - 0x20: with use-caps-for-id the letters of the query name get a random
 *    case, and the reply's question must carry exactly that case. A reply
 *    that matches in everything (ID, address, port, question) but the
 *    case comes from a server that does not echo it: the query is sent
 *    again without 0x20 (fresh ID and port) instead of timing out.
 *  - Matching: a reply is accepted only if its ID, source address and port
 *    and question (name, type, class) match, and QR is set. Anything else
 *    is counted; every unwanted-reply-threshold such replies (0 = off) the
 *    owner's callback is called (the daemon clears caches and warns).
 *  - TCP: OUTBOUND_FLAG_TCP, or a truncated (TC) UDP reply, sends the query
 *    over a fresh TCP connection (comm_tcp_out); the caller never sees the
 *    truncated reply. At most outgoing-num-tcp connections at once; queries
 *    beyond wait in a queue.
 *  - Duplicates: a query identical to one in flight (same server address
 *    and port, name compared case-insensitively, type, class and flags)
 *    is not sent again; its caller joins the one in flight and every
 *    caller gets the reply. The first caller's timeout applies to all.
 *  - TLS: the addresses of forward and stub zones with tls set are asked
 *    only over TLS (one persistent, pipelined connection per server; the
 *    certificate verified against the bundle and the auth name after '#');
 *    whatever the caller's flags, nothing goes to them over UDP or plain
 *    TCP. A server whose handshake or certificate fails is not used for a
 *    minute: its queries end with OUTBOUND_ERROR.
 *  - Timeout: one timer per query in flight, armed with the caller's
 *    timeout_ms when the query is created (time spent queued counts). The
 *    network does not retransmit by itself; the iterator decides. Over
 *    TCP, tcp-auth-query-timeout (as Unbound): the retry of a truncated
 *    reply re-arms the timer with it, and a TCP query to a server never
 *    measured (timeout_ms at least the unknown-server RTO) gets it when
 *    that is longer.
 *
 * Ownership and callbacks follow outbound.h: send() returns a handle or
 * NULL (and then never calls back), callbacks run from the event loop
 * only, cancel() suppresses the callback. Callbacks may call send() and
 * cancel() (also for other queries that waited on the same reply).
 * timer_set() handles are freed when they fire: do not cancel a timer
 * whose function has run.
 *
 * Single-threaded: everything belongs to the worker's thread.
 */
#ifndef SERVICES_OUTSIDE_NETWORK_H
#define SERVICES_OUTSIDE_NETWORK_H

#include <stdint.h>
#include <stddef.h>
#include "services/outbound.h"

struct comm_base;
struct petrel_random;
struct netaddr;
struct outside_network;
struct config_strlist;
struct config_stub;
struct ssl_ctx_st;
struct dt_io;

/** counters of an outside network */
struct outside_network_stats {
	/** queries created (not counting joins of duplicates) */
	uint64_t queries;
	/** callers that joined an identical query in flight */
	uint64_t dup_joins;
	/** UDP datagrams sent */
	uint64_t udp_sent;
	/** TCP queries sent (connections opened) */
	uint64_t tcp_sent;
	/** truncated UDP replies retried over TCP */
	uint64_t tc_fallbacks;
	/** replies that did not echo the 0x20 letter case: the query was
	 * sent again without it */
	uint64_t caps_fallbacks;
	/** matching replies delivered */
	uint64_t replies;
	/** replies that matched nothing (wrong ID, question, address, port) */
	uint64_t unwanted;
	/** queries that timed out */
	uint64_t timeouts;
	/** queries that failed (send error, connection failed) */
	uint64_t errors;
	/** queries cancelled by every caller before they ended */
	uint64_t cancelled;
	/** times a query waited for a free UDP socket (outgoing-range) */
	uint64_t udp_waits;
	/** times a query waited for a free TCP slot (outgoing-num-tcp) */
	uint64_t tcp_waits;
	/** queries written on TLS connections */
	uint64_t tls_sent;
	/** TLS connections that failed before or in the handshake (the
	 * server is then not used for a while) */
	uint64_t tls_failures;
};

/**
 * What an outside network is made with: plain values taken from the
 * config by the daemon (so tests and tools need no config file).
 */
struct outside_network_params {
	/** outgoing-range: most UDP sockets open at once (>= 1) */
	int outgoing_range;
	/** outgoing-num-tcp: most outgoing TCP connections at once (>= 1) */
	int outgoing_num_tcp;
	/** use-caps-for-id (0x20) */
	int use_caps_for_id;
	/** caps-exempt: domains whose names (at or below) are sent without
	 * 0x20, as text, or NULL */
	const struct config_strlist *caps_exempt;
	/** outgoing-port-permit / outgoing-port-avoid in line order
	 * ("+low-high", "-low-high"), or NULL for every port from 1024 */
	const struct config_strlist *port_rules;
	/** edns-buffer-size advertised in the OPT record */
	int edns_buffer_size;
	/** allow IPv4 upstreams */
	int do_ip4;
	/** allow IPv6 upstreams */
	int do_ip6;
	/** unwanted-reply-threshold, 0 for off */
	int unwanted_reply_threshold;
	/** called each time the threshold is passed (may be NULL) */
	void (*unwanted_cb)(void *arg);
	/** its argument */
	void *unwanted_arg;
	/** the worker's random generator (IDs, ports, 0x20); not owned */
	struct petrel_random *rnd;
	/** outgoing-interface: source addresses as text ("ip"), or NULL */
	struct config_strlist *outgoing_interfaces;
	/** outgoing interfaces as addresses (used besides the list), or NULL */
	const struct netaddr *ifs;
	/** number of ifs */
	int num_ifs;
	/** forward zones: the addresses of those with tls set are asked
	 * over TLS only (read by create), or NULL */
	const struct config_stub *forwards;
	/** stub zones, the same */
	const struct config_stub *stubs;
	/** the TLS client context the servers are verified with (from
	 * tls_client_ctx_create: tls-cert-bundle or the system store; not
	 * owned, must outlive the network); needed when a zone uses TLS */
	struct ssl_ctx_st *tls_ctx;
	/** tls-use-sni */
	int tls_use_sni;
	/** pad queries to TLS servers to this block size (RFC 8467); 0 for
	 * no padding */
	int tls_pad_block;
	/** upstream-cookies: send DNS client cookies to upstream servers
	 * over UDP and TCP (RFC 7873 section 5.1) */
	int upstream_cookies;
	/** udp-connect: connect() each upstream UDP socket to its server,
	 * so that the kernel drops replies from other addresses and ports */
	int udp_connect;
	/** delay-close: ms the UDP socket of a query that timed out stays
	 * open, its late replies counted unwanted; 0 closes it at once */
	int delay_close;
	/** tcp-auth-query-timeout (ms; 0: the caller's timeout for TCP as
	 * for UDP): the TCP retry of a truncated UDP reply waits this long
	 * from the retry on; a query the caller sends over plain TCP with
	 * a timeout of INFRA_UNKNOWN_RTO or more (a server never measured)
	 * waits at least this long. The callers are still told the
	 * timeout they gave when it expires (their back-off is theirs). */
	int tcp_auth_query_timeout;
	/** dnstap writer for the queries and replies (util/dnstap.h; not
	 * owned, must outlive the network), or NULL */
	struct dt_io *dtio;
};

/**
 * Create the outside network of one worker.
 * @param base: the worker's event base (clock and timers).
 * @param p: the parameters (copied; the lists may be freed afterwards).
 * @return the outside network, or NULL (logged; e.g. a bad
 *	outgoing-interface address).
 */
struct outside_network *outside_network_create(struct comm_base *base,
	const struct outside_network_params *p);

/**
 * Free an outside network: pending queries are dropped without callbacks,
 * pending timer_set timers are freed without running. Not from inside one
 * of its callbacks. NULL is allowed.
 */
void outside_network_delete(struct outside_network *on);

/**
 * @return the struct outbound that sends through this network (valid for
 *	the life of on; its now member is the comm_base's cached clock).
 */
struct outbound *outside_network_outbound(struct outside_network *on);

/**
 * Set (replace) the callback called each time unwanted-reply-threshold
 * unwanted replies have been counted (the counter then starts again).
 */
void outside_network_set_unwanted_cb(struct outside_network *on,
	void (*cb)(void *arg), void *arg);

/** @return the counters. */
const struct outside_network_stats *outside_network_get_stats(
	struct outside_network *on);

/** @return the number of UDP sockets open now. */
int outside_network_udp_open(struct outside_network *on);

/** @return the number of TCP connections open now. */
int outside_network_tcp_open(struct outside_network *on);

/** @return the number of upstream TLS connections open now. */
int outside_network_tls_open(struct outside_network *on);

/** @return the number of distinct queries in flight (or queued). */
int outside_network_pending(struct outside_network *on);

/*
 * edns-client-string: an EDNS option with a configured text in the
 * upstream queries to the servers of a netblock. The mesh adds it (above
 * the outbound interface, so that the replay runner's fake network sees
 * it too); it lives here, with the rest of what an upstream query holds.
 *
 * As Unbound's edns-client-string: each line gives a netblock and a text
 * (at most CONFIG_EDNS_STRING_MAX bytes); a query to an address inside
 * one or more of the netblocks carries the text of the longest prefix, as
 * the data of an option with code edns-client-string-opcode (default
 * 65001, in the private range). Queries sent without EDNS carry nothing.
 *
 * The table is built once from the config (per mesh, read by its worker
 * only) and never changes: no locks. A lookup is a linear scan, longest
 * prefix first; the lists are short and it runs once per upstream query.
 */
struct edns_strings;
struct config_file;

/**
 * Build the table of a config's edns-client-string lines.
 * @param cfg: the config (its lines already checked by the load); may
 *	be NULL.
 * @return the table (free with edns_strings_delete), or NULL when there
 *	are no lines (or memory ran out, which is logged: the queries then
 *	go without the option).
 */
struct edns_strings *edns_strings_create(const struct config_file *cfg);

/** Free a table (NULL is fine). */
void edns_strings_delete(struct edns_strings *es);

/**
 * Write the option for a query to this server.
 * @param es: the table, or NULL.
 * @param to: the server's address.
 * @param buf: where the option goes (code, length, text).
 * @param max: room in buf.
 * @return the bytes written: 0 when no netblock holds the address, or the
 *	option does not fit.
 */
size_t edns_strings_opt(const struct edns_strings *es,
	const struct netaddr *to, uint8_t *buf, size_t max);

#endif /* SERVICES_OUTSIDE_NETWORK_H */
