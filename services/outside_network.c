/*
 * services/outside_network.c - upstream queries over UDP and TCP.
 *
 * Objects:
 *  - struct pend (a query in flight): the server, the question, the
 *    flags, the packet as sent (ID, 0x20 name), its transport state (a
 *    UDP socket with its watch, or a comm_tcp_out), its timer, and the
 *    list of callers (struct outbound_query) waiting for it. Pends are
 *    kept in a hash table keyed by server, lower-cased name, type, class
 *    and flags, so duplicates join instead of sending again.
 *  - struct outbound_query: one caller; the handle returned by send().
 *
 *  - struct tls_up: one upstream server configured for TLS (a forward or
 *    stub zone with forward-tls-upstream / stub-tls-upstream), with its
 *    auth name, its one persistent connection (comm_tcp_out_create_tls)
 *    and the pends sent on it. Every query to that address and port goes
 *    over that connection, whatever the caller's flags: there is no path
 *    from such a server to UDP or plain TCP. Queries are pipelined (each
 *    with an ID unique on the connection) and replies are matched by ID
 *    and question in any order. The connection stays open while queries
 *    come (idle timeout ON_TLS_IDLE_MS); when the server closes it, the
 *    queries still waiting are sent again on a new one (once). A failed
 *    handshake or certificate (or a connection that never got through the
 *    handshake) makes the server unusable for ON_TLS_BAD_SECS: its queries
 *    fail at once (OUTBOUND_ERROR, so the iterator tries another server or
 *    answers SERVFAIL with EDE 23), and the reason is logged.
 *    A DNS over HTTPS server (forward-addr: https://ip/path#name) is a
 *    tls_up with a path: its connection carries HTTP/2 (ALPN h2,
 *    comm_tcp_out_set_h2) through an h2_client (util/netevent/http2.c),
 *    each query a POST on its own stream, the pend found by its stream
 *    id; everything else (verification, no clear text, failure) is the
 *    TLS server's.
 *
 * Client cookies (RFC 7873 section 5.1; upstream-cookies: yes): a query
 * over UDP or TCP (not TLS, which needs none) carries a COOKIE option
 * with the client cookie of that server, the first 8 bytes of
 * SipHash-2-4(this network's random secret, the server's address and
 * port): stable per server, different for each server, unguessable from
 * outside. The server cookie a server answered with is remembered in a
 * fixed table (ON_COOKIE_SLOTS entries, one slot per address hash, a
 * newer server overwriting an older one: no allocation per query) and
 * sent back next time. A reply whose COOKIE option does not carry our
 * client cookie is a spoof: it is counted unwanted and the query keeps
 * waiting. BADCOOKIE is answered once more, with the server cookie the
 * BADCOOKIE brought.
 *
 * Memory: pends, caller records and closed TCP connections (struct,
 * timer, reply buffer, write item, watch: comm_tcp_out_park) are kept on
 * bounded free lists and reused, so a query over UDP or TCP allocates
 * nothing in steady state.
 *
 * A pend is in exactly one state: waiting for a UDP socket, waiting for a
 * TCP slot, sent over UDP, sent over TCP, sent over TLS, or delivering. Delivery takes
 * the pend out of the hash table first (new identical queries start
 * afresh), then pops callers one at a time, so a callback may cancel
 * another caller of the same pend or send new queries.
 */
#include "config.h"
#include "services/outside_network.h"
#include "services/cache/infra.h"
#include "util/netevent/netevent.h"
#include "util/netevent/tls.h"
#include "util/netevent/http2.h"
#include "dns/dns.h"
#include "dns/padding.h"
#include "dns/cookie.h"
#include "util/netaddr.h"
#include "util/random.h"
#include "util/log.h"
#include "util/config_file.h"
#include "util/dnstap.h"
#include "dns/name.h"
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

/** buckets of the pend hash table (power of two) */
#define ON_HASH_SIZE 1024
/** attempts to bind a random port before giving up */
#define ON_BIND_TRIES 16
/** largest query name */
#define ON_MAX_NAME 255
/** largest query packet: header, name, type, class, OPT (with the
 * options of a module, OUTBOUND_MAX_OPTS, and a COOKIE option of a client
 * and a server cookie of at most 32 bytes) */
#define ON_MAX_PKT (12 + ON_MAX_NAME + 4 + 11 + OUTBOUND_MAX_OPTS + 4 + 40)
/** slots of the server cookie table (power of two) */
#define ON_COOKIE_SLOTS 1024
/** largest UDP reply read */
#define ON_MAX_REPLY 65535
/** idle (and connect plus handshake) timeout of an upstream TLS connection */
#define ON_TLS_IDLE_MS 10000
/** how long a TLS server whose handshake or certificate failed is not used */
#define ON_TLS_BAD_SECS 60
/** times a query is sent again when the server closed its TLS connection */
#define ON_TLS_RESENDS 1

/** most pends and callers kept for reuse (their memory, a pend's timer
 * and UDP watch): a miss allocates none of them in steady state */
#define ON_FREE_MAX 256

/** most closed TCP connections kept for reuse (each with its 64 kB reply
 * buffer; at most outgoing-num-tcp of them): a query over TCP allocates
 * nothing in steady state */
#define ON_FREE_TCP_MAX 16

/** pend states */
enum pend_state {
	/** queued for a UDP socket */
	PEND_UDP_WAIT,
	/** queued for a TCP slot */
	PEND_TCP_WAIT,
	/** sent over UDP, socket open */
	PEND_UDP,
	/** sent over TCP, connection open */
	PEND_TCP,
	/** sent (or queued) on its server's TLS connection */
	PEND_TLS,
	/** callbacks running */
	PEND_DELIVER
};

struct pend;

/** one caller of a query */
struct outbound_query {
	/** the pend it waits on */
	struct pend *p;
	/** next caller */
	struct outbound_query *next;
	/** previous caller */
	struct outbound_query *prev;
	/** callback */
	outbound_cb_type cb;
	/** its argument */
	void *cb_arg;
};

/** a query in flight */
struct pend {
	/** the network */
	struct outside_network *on;
	/** hash chain */
	struct pend *hnext;
	/** hash chain back link */
	struct pend *hprev;
	/** wait queue link (UDP or TCP wait) */
	struct pend *wnext;
	/** hash value */
	uint32_t hash;
	/** in the hash table */
	int in_hash;
	/** state */
	enum pend_state state;
	/** server */
	struct netaddr to;
	/** query name as given, lower-cased (the key) */
	uint8_t qname[ON_MAX_NAME];
	/** its length */
	size_t qname_len;
	/** query name in the case the first caller gave (sent without 0x20) */
	uint8_t qname_given[ON_MAX_NAME];
	/** type */
	uint16_t qtype;
	/** class */
	uint16_t qclass;
	/** OUTBOUND_FLAG_* */
	int flags;
	/** EDNS options of the OPT record (part of the key) */
	uint8_t opts[OUTBOUND_MAX_OPTS];
	/** their length */
	size_t optlen;
	/** 0x20 is off for this query: the server did not echo the letter
	 * case of an earlier try (see pend_caps_fallback) */
	int no_caps;
	/** timeout in ms (the caller's: what a timeout reports) */
	int timeout_ms;
	/** how long the timer was last armed for, in ms (the TCP
	 * connect and idle timeout too): timeout_ms, or longer over TCP
	 * (tcp-auth-query-timeout) */
	int wait_ms;
	/** the packet as sent (ID and 0x20 name in it) */
	uint8_t pkt[ON_MAX_PKT];
	/** its length */
	size_t pkt_len;
	/** upstream-cookies: the client cookie in pkt (when has_cookie) */
	uint8_t cookie[COOKIE_CLIENT_LEN];
	/** 1 when pkt carries a COOKIE option */
	int has_cookie;
	/** 1 once sent again after a BADCOOKIE */
	int cookie_retried;
	/** the ID in pkt */
	uint16_t id;
	/** when it was created (the cached clock) */
	struct timeval start;
	/** timeout timer */
	struct comm_timer *timer;
	/** UDP socket, -1 if none */
	int fd;
	/** watch on fd */
	struct comm_watch *watch;
	/** TCP connection */
	struct comm_tcp_out *tcp;
	/** the TLS server, if the server is configured for TLS, else NULL */
	struct tls_up *tu;
	/** links in tu's list of pends on its connection */
	struct pend *tnext, *tprev;
	/** on tu's list */
	int in_tls;
	/** times sent again on a new TLS connection */
	int tls_resends;
	/** DNS over HTTPS: the HTTP/2 stream of the query on tu's
	 * connection, 0 when not sent */
	int32_t stream;
	/** callers */
	struct outbound_query *callers;
};

/** an upstream server that is only ever asked over TLS */
struct tls_up {
	/** the network */
	struct outside_network *on;
	/** address and port */
	struct netaddr addr;
	/** the auth name (forward-addr: ip@port#name), "" to verify the IP */
	char name[256];
	/** the connection, or NULL */
	struct comm_tcp_out *conn;
	/** pends sent or queued on conn */
	struct pend *pends;
	/** unusable until this time (seconds of the cached clock) */
	time_t bad_until;
	/** DNS over HTTPS (forward-addr: https://...): the path, else "" */
	char doh_path[256];
	/** DNS over HTTPS: the :authority (the name, else the address) */
	char authority[264];
	/** DNS over HTTPS: the HTTP/2 client on conn, or NULL */
	struct h2_client *h2;
	/** inside h2_client_recv: output waits until it returns */
	int in_recv;
};

/** a timer from timer_set */
struct on_timer {
	/** the network */
	struct outside_network *on;
	/** the comm timer */
	struct comm_timer *t;
	/** function */
	void (*fn)(void *);
	/** its argument */
	void *arg;
	/** list links (to free them all on delete) */
	struct on_timer *next, *prev;
};

/** a server cookie learnt from a server (upstream-cookies) */
struct on_cookie {
	/** the server's address and port */
	struct netaddr addr;
	/** its server cookie (8 to 32 bytes); 0 when the slot is empty */
	uint8_t len;
	/** the server cookie */
	uint8_t srv[32];
};

/** the outside network of one worker */
struct outside_network {
	/** upstream-cookies: the server cookie table (ON_COOKIE_SLOTS), or
	 * NULL when client cookies are off */
	struct on_cookie *cookies;
	/** upstream-cookies: the secret client cookies are made with */
	uint8_t cookie_secret[COOKIE_SECRET_LEN];
	/** the base */
	struct comm_base *base;
	/** random numbers */
	struct petrel_random *rnd;
	/** udp-connect: each UDP socket is connected to its server */
	int udp_connect;
	/** delay-close: ms a timed-out query's UDP socket stays open, 0 */
	int delay_close;
	/** tcp-auth-query-timeout in ms, 0 for none */
	int tcp_auth_ms;
	/** delay-close: the sockets waiting out their delay, and the
	 * records kept for reuse */
	struct on_linger *lingers, *free_lingers;
	/** the seam */
	struct outbound ob;
	/** most UDP sockets open */
	int outgoing_range;
	/** most TCP connections */
	int num_tcp;
	/** 0x20 */
	int use_caps;
	/** the ports UDP queries go from (outgoing-port-permit/-avoid),
	 * malloced, and their number; NULL: any port from 1024 */
	uint16_t *ports;
	int num_ports;
	/** caps-exempt: lower-cased wire names, malloced, and their number */
	uint8_t (*caps_exempt)[ON_MAX_NAME];
	int num_caps_exempt;
	/** EDNS size */
	int edns_size;
	/** allow IPv4 */
	int do_ip4;
	/** allow IPv6 */
	int do_ip6;
	/** outgoing interfaces, IPv4 */
	struct netaddr *ifs4;
	/** their number */
	int num_ifs4;
	/** outgoing interfaces, IPv6 */
	struct netaddr *ifs6;
	/** their number */
	int num_ifs6;
	/** unwanted-reply-threshold */
	int unwanted_threshold;
	/** unwanted replies since the last callback */
	int unwanted_count;
	/** callback on the threshold */
	void (*unwanted_cb)(void *);
	/** its argument */
	void *unwanted_arg;
	/** UDP sockets open */
	int udp_open;
	/** TCP connections open */
	int tcp_open;
	/** pends existing */
	int num_pend;
	/** queue waiting for UDP sockets, head and tail */
	struct pend *udp_wait, *udp_wait_tail;
	/** queue waiting for TCP slots, head and tail */
	struct pend *tcp_wait, *tcp_wait_tail;
	/** timers from timer_set */
	struct on_timer *timers;
	/** counters */
	struct outside_network_stats stats;
	/** TLS client context (not owned; NULL when no server is
	 * configured for TLS) */
	struct ssl_ctx_st *tls_ctx;
	/** the servers configured for TLS */
	struct tls_up *tls;
	/** their number */
	int num_tls;
	/** send SNI */
	int tls_use_sni;
	/** query padding block for TLS servers, 0 for none */
	int tls_pad_block;
	/** TLS connections open */
	int tls_open;
	/** dnstap writer (not owned), or NULL */
	struct dt_io *dtio;
	/** pends kept for reuse (linked by hnext), with their timer and
	 * paused watch */
	struct pend *free_pends;
	/** their number */
	int num_free_pends;
	/** callers kept for reuse (linked by next) */
	struct outbound_query *free_queries;
	/** their number */
	int num_free_queries;
	/** closed (parked) TCP connections kept for reuse */
	struct comm_tcp_out *free_tcp[ON_FREE_TCP_MAX];
	/** their number */
	int num_free_tcp;
	/** the pend hash table */
	struct pend *hash[ON_HASH_SIZE];
	/** reply buffer for UDP reads */
	uint8_t rbuf[ON_MAX_REPLY];
};

static void pend_start_udp(struct pend *p);
static void pend_caps_fallback(struct pend *p);
static void pend_timer_cb(void *arg);
static void pend_start_tcp(struct pend *p);
static void pend_start_tls(struct pend *p);

/* ------------------------------------------------------------------ */
/* names and packets */

/** @return length of a valid uncompressed wire name, or 0 */
static size_t
name_len(const uint8_t *d, size_t max)
{
	size_t n = 0;
	while(n < max) {
		uint8_t l = d[n];
		if(l & 0xc0)
			return 0;
		n += 1 + (size_t)l;
		if(l == 0)
			return n <= ON_MAX_NAME ? n : 0;
	}
	return 0;
}

static uint8_t
lower(uint8_t c)
{
	return (c >= 'A' && c <= 'Z') ? (uint8_t)(c + 32) : c;
}

/** compare two wire names of length len: exactly, or case-insensitive */
static int
name_eq(const uint8_t *a, const uint8_t *b, size_t len, int exact)
{
	size_t i;
	if(exact)
		return memcmp(a, b, len) == 0;
	for(i = 0; i < len; i++)
		if(lower(a[i]) != lower(b[i]))
			return 0;
	return 1;
}

/** FNV-1a over bytes */
static uint32_t
hash_bytes(uint32_t h, const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;
	for(i = 0; i < n; i++) {
		h ^= b[i];
		h *= 16777619u;
	}
	return h;
}

/** hash of a pend's key */
static uint32_t
pend_hash(const struct netaddr *to, const uint8_t *lname, size_t len,
	uint16_t qtype, uint16_t qclass, int flags)
{
	size_t alen;
	const uint8_t *ab = netaddr_bytes(to, &alen);
	uint32_t h = 2166136261u;
	int port = netaddr_port(to);
	h = hash_bytes(h, ab, alen);
	h = hash_bytes(h, &port, sizeof(port));
	h = hash_bytes(h, lname, len);
	h = hash_bytes(h, &qtype, sizeof(qtype));
	h = hash_bytes(h, &qclass, sizeof(qclass));
	h = hash_bytes(h, &flags, sizeof(flags));
	return h;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static uint16_t
get16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/** the server cookie slot of an address */
static struct on_cookie *
cookie_slot(struct outside_network *on, const struct netaddr *a)
{
	uint8_t h[8];
	cookie_siphash_bytes(cookie_siphash(on->cookie_secret,
		(const uint8_t *)&a->addr, a->len), h);
	return &on->cookies[(h[0] | (uint32_t)h[1] << 8) &
		(ON_COOKIE_SLOTS - 1)];
}

/** the client cookie of a server: SipHash of its address and port under
 * the network's secret, with the key turned so it differs from the slot
 * hash */
static void
cookie_client(struct outside_network *on, const struct netaddr *a,
	uint8_t *out)
{
	uint8_t key[COOKIE_SECRET_LEN];
	size_t i;
	for(i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(on->cookie_secret[i] ^ 0x5c);
	cookie_siphash_bytes(cookie_siphash(key, (const uint8_t *)&a->addr,
		a->len), out);
}

/** build the query packet of p with a fresh ID (and fresh 0x20 case) */
static void
pend_build(struct pend *p)
{
	struct outside_network *on = p->on;
	uint8_t *q = p->pkt;
	uint16_t fl = 0;
	size_t i, pos;
	int caps = on->use_caps && !p->no_caps;
	p->id = (uint16_t)random_uniform(on->rnd, 65536);
	put16(q, p->id);
	if(p->flags & OUTBOUND_FLAG_RD)
		fl |= 0x0100;
	if(p->flags & OUTBOUND_FLAG_CD)
		fl |= 0x0010;
	put16(q + 2, fl);
	put16(q + 4, 1);
	put16(q + 6, 0);
	put16(q + 8, 0);
	put16(q + 10, (p->flags & OUTBOUND_FLAG_NOEDNS) ? 0 : 1);
	memcpy(q + 12, caps ? p->qname : p->qname_given, p->qname_len);
	if(caps) {
		/* 0x20: a random case for every letter (labels' length
		 * bytes are never letters: they are < 64) */
		uint32_t bits = 0;
		int left = 0;
		for(i = 0; i < p->qname_len; i++) {
			uint8_t c = q[12 + i];
			if(c >= 'a' && c <= 'z') {
				if(left == 0) {
					bits = random_u32(on->rnd);
					left = 32;
				}
				if(bits & 1)
					q[12 + i] = (uint8_t)(c - 32);
				bits >>= 1;
				left--;
			}
		}
	}
	pos = 12 + p->qname_len;
	put16(q + pos, p->qtype);
	put16(q + pos + 2, p->qclass);
	pos += 4;
	if(!(p->flags & OUTBOUND_FLAG_NOEDNS)) {
		q[pos] = 0;				/* root owner */
		put16(q + pos + 1, 41);			/* OPT */
		put16(q + pos + 3, (uint16_t)on->edns_size);
		q[pos + 5] = 0;				/* ext rcode */
		q[pos + 6] = 0;				/* version */
		put16(q + pos + 7, (p->flags & OUTBOUND_FLAG_DO) ? 0x8000 : 0);
		put16(q + pos + 9, (uint16_t)p->optlen);	/* rdlen */
		pos += 11;
		memcpy(q + pos, p->opts, p->optlen);
		pos += p->optlen;
		p->has_cookie = 0;
		if(on->cookies && !p->tu) {
			/* client cookie, and the server cookie if known */
			const struct on_cookie *c = cookie_slot(on, &p->to);
			size_t sl = (c->len && netaddr_cmp(&c->addr, &p->to)
				== 0) ? c->len : 0;
			cookie_client(on, &p->to, p->cookie);
			/* the OPT RDLEN (just before the options) grows by
			 * the option */
			put16(q + pos - p->optlen - 2,
				(uint16_t)(p->optlen + 4 + 8 + sl));
			put16(q + pos, DNS_EDNS_COOKIE);
			put16(q + pos + 2, (uint16_t)(8 + sl));
			memcpy(q + pos + 4, p->cookie, 8);
			memcpy(q + pos + 12, c->srv, sl);
			pos += 12 + sl;
			p->has_cookie = 1;
		}
	}
	p->pkt_len = pos;
}

/** pend_match: the reply is p's, but for the letter case of its name */
#define PEND_CASE_DIFFERS 2

/**
 * Does reply r match pend p (ID, QR, question)? The address is checked
 * by the caller (UDP) or implied (TCP).
 * @return 1 if it does; PEND_CASE_DIFFERS if everything matches but the
 *	name was sent with 0x20 and comes back in another letter case (a
 *	server that does not echo the case); 0 otherwise.
 */
static int
pend_match(struct pend *p, const uint8_t *r, size_t len)
{
	size_t qpos = 12 + p->qname_len;
	int caps = p->on->use_caps && !p->no_caps;
	if(len < qpos + 4)
		return 0;
	if(get16(r) != p->id || !(r[2] & 0x80) || get16(r + 4) != 1)
		return 0;
	if(get16(r + qpos) != p->qtype || get16(r + qpos + 2) != p->qclass)
		return 0;
	if(name_eq(r + 12, p->pkt + 12, p->qname_len, caps))
		return 1;
	if(caps && name_eq(r + 12, p->pkt + 12, p->qname_len, 0))
		return PEND_CASE_DIFFERS;
	return 0;
}

/* ------------------------------------------------------------------ */
/* pend lifetime */

static void
hash_remove(struct pend *p)
{
	struct outside_network *on = p->on;
	if(!p->in_hash)
		return;
	if(p->hprev)
		p->hprev->hnext = p->hnext;
	else	on->hash[p->hash & (ON_HASH_SIZE - 1)] = p->hnext;
	if(p->hnext)
		p->hnext->hprev = p->hprev;
	p->in_hash = 0;
}

/** take p off a wait queue */
static void
wait_remove(struct pend **head, struct pend **tail, struct pend *p)
{
	struct pend *q, *prev = NULL;
	for(q = *head; q; prev = q, q = q->wnext) {
		if(q != p)
			continue;
		if(prev)
			prev->wnext = q->wnext;
		else	*head = q->wnext;
		if(*tail == q)
			*tail = prev;
		q->wnext = NULL;
		return;
	}
}

static void
wait_append(struct pend **head, struct pend **tail, struct pend *p)
{
	p->wnext = NULL;
	if(*tail)
		(*tail)->wnext = p;
	else	*head = p;
	*tail = p;
}

/** start queued queries while sockets or slots are free */
static void
run_queues(struct outside_network *on)
{
	while(on->udp_wait && on->udp_open < on->outgoing_range) {
		struct pend *p = on->udp_wait;
		wait_remove(&on->udp_wait, &on->udp_wait_tail, p);
		pend_start_udp(p);
	}
	while(on->tcp_wait && on->tcp_open < on->num_tcp) {
		struct pend *p = on->tcp_wait;
		wait_remove(&on->tcp_wait, &on->tcp_wait_tail, p);
		pend_start_tcp(p);
	}
}

/** take p off the wait queue it is on, if any */
static void
pend_unqueue(struct pend *p)
{
	struct outside_network *on = p->on;
	if(p->state == PEND_UDP_WAIT)
		wait_remove(&on->udp_wait, &on->udp_wait_tail, p);
	else if(p->state == PEND_TCP_WAIT)
		wait_remove(&on->tcp_wait, &on->tcp_wait_tail, p);
}

/** close p's transport (socket or connection) and leave the queues */
static void
pend_close_transport(struct pend *p)
{
	struct outside_network *on = p->on;
	/* the watch stays with the pend (for its next socket), paused
	 * and detached before its descriptor closes */
	if(p->watch && comm_watch_pause(p->watch) != 0) {
		comm_watch_delete(p->watch);
		p->watch = NULL;
	}
	if(p->fd != -1) {
		close(p->fd);
		p->fd = -1;
		on->udp_open--;
	}
	if(p->tcp) {
		/* kept (parked) for the next TCP query while there is room */
		if(on->num_free_tcp < ON_FREE_TCP_MAX &&
			on->num_free_tcp < on->num_tcp) {
			comm_tcp_out_park(p->tcp);
			on->free_tcp[on->num_free_tcp++] = p->tcp;
		} else	comm_tcp_out_delete(p->tcp);
		p->tcp = NULL;
		on->tcp_open--;
	}
	if(p->in_tls) {
		/* the connection is the server's and stays open */
		if(p->tprev)
			p->tprev->tnext = p->tnext;
		else	p->tu->pends = p->tnext;
		if(p->tnext)
			p->tnext->tprev = p->tprev;
		p->tnext = p->tprev = NULL;
		p->in_tls = 0;
	}
	pend_unqueue(p);
}

/** free a pend's memory, timer and watch */
static void
pend_destroy(struct pend *p)
{
	comm_watch_delete(p->watch);
	comm_timer_delete(p->timer);
	free(p);
}

/** end a pend (transport closed first); callers must be gone. It is kept
 * for reuse (its timer disarmed, its watch paused) while there is room */
static void
pend_free(struct pend *p)
{
	struct outside_network *on = p->on;
	hash_remove(p);
	pend_close_transport(p);
	on->num_pend--;
	if(on->num_free_pends >= ON_FREE_MAX || !p->timer) {
		pend_destroy(p);
		return;
	}
	comm_timer_disable(p->timer);
	p->hnext = on->free_pends;
	on->free_pends = p;
	on->num_free_pends++;
}

/** a pend, zeroed but for the timer and watch a reused one keeps;
 * NULL when out of memory */
static struct pend *
pend_take(struct outside_network *on)
{
	struct pend *p = on->free_pends;
	struct comm_timer *timer;
	struct comm_watch *watch;
	if(!p) {
		p = calloc(1, sizeof(*p));
		if(p && !(p->timer = comm_timer_create(on->base,
			pend_timer_cb, p))) {
			free(p);
			return NULL;
		}
		return p;
	}
	on->free_pends = p->hnext;
	on->num_free_pends--;
	timer = p->timer;
	watch = p->watch;
	/* (the packet buffers are written before they are read) */
	memset(p, 0, offsetof(struct pend, qname));
	memset(&p->qtype, 0, offsetof(struct pend, pkt) -
		offsetof(struct pend, qtype));
	memset(&p->pkt_len, 0, sizeof(*p) - offsetof(struct pend, pkt_len));
	p->timer = timer;
	p->watch = watch;
	return p;
}

/** a caller record (reused or new); NULL when out of memory */
static struct outbound_query *
query_take(struct outside_network *on)
{
	struct outbound_query *q = on->free_queries;
	if(!q)
		return calloc(1, sizeof(*q));
	on->free_queries = q->next;
	on->num_free_queries--;
	memset(q, 0, sizeof(*q));
	return q;
}

/** give a caller record back (kept for reuse while there is room) */
static void
query_give(struct outside_network *on, struct outbound_query *q)
{
	if(on->num_free_queries >= ON_FREE_MAX) {
		free(q);
		return;
	}
	q->next = on->free_queries;
	on->free_queries = q;
	on->num_free_queries++;
}

/** end p: run every caller's callback, then free p */
static void
pend_deliver(struct pend *p, enum outbound_status st, const uint8_t *pkt,
	size_t len)
{
	struct outside_network *on = p->on;
	const struct timeval *now = comm_base_now(on->base);
	int rtt;
	hash_remove(p);
	pend_unqueue(p);
	comm_timer_disable(p->timer);
	if(st == OUTBOUND_TIMEOUT)
		rtt = p->timeout_ms;
	else {
		rtt = (int)((now->tv_sec - p->start.tv_sec) * 1000 +
			(now->tv_usec - p->start.tv_usec) / 1000);
		if(rtt < 0)
			rtt = 0;
	}
	if(st == OUTBOUND_REPLY) {
		on->stats.replies++;
		if(on->dtio)
			dt_upstream_response(on->dtio, &p->to, p->tu ? DT_DOT :
				p->state == PEND_UDP ? DT_UDP : DT_TCP,
				&p->start, p->pkt, p->pkt_len, pkt, len);
	}
	else if(st == OUTBOUND_TIMEOUT)
		on->stats.timeouts++;
	else	on->stats.errors++;
	p->state = PEND_DELIVER;
	while(p->callers) {
		struct outbound_query *q = p->callers;
		p->callers = q->next;
		if(p->callers)
			p->callers->prev = NULL;
		q->p = NULL;
		q->cb(q->cb_arg, st, pkt, len, rtt);
		query_give(on, q);
	}
	/* pkt may point into the transport: close it only now */
	pend_free(p);
	run_queues(on);
}

/** what pend_cookie says of a reply */
enum { COOKIE_REPLY_OK = 0, COOKIE_REPLY_SPOOF, COOKIE_REPLY_BAD };

/**
 * upstream-cookies: check the COOKIE option of a reply to p and learn the
 * server cookie it brings.
 * @return COOKIE_REPLY_OK (no cookie sent, no COOKIE option in the reply,
 *	or ours), COOKIE_REPLY_SPOOF (a COOKIE option without our client
 *	cookie: not the server's answer), or COOKIE_REPLY_BAD (BADCOOKIE
 *	with our client cookie: send again once, with the new server
 *	cookie).
 */
static int
pend_cookie(struct pend *p, const uint8_t *r, size_t len)
{
	size_t at, i, end;
	uint16_t rdlen;
	if(!p->has_cookie || !dns_opt_last(r, len, &at))
		return COOKIE_REPLY_OK;
	rdlen = get16(r + at);
	end = at + 2 + rdlen;
	if(end > len)
		return COOKIE_REPLY_OK;
	for(i = at + 2; i + 4 <= end; ) {
		uint16_t code = get16(r + i), olen = get16(r + i + 2);
		const uint8_t *o = r + i + 4;
		if(i + 4 + olen > end)
			break;
		if(code == DNS_EDNS_COOKIE) {
			struct on_cookie *c;
			if(olen < 8 || memcmp(o, p->cookie, 8) != 0)
				return COOKIE_REPLY_SPOOF;
			if(olen >= 16 && olen <= 40) {
				c = cookie_slot(p->on, &p->to);
				c->addr = p->to;
				c->len = (uint8_t)(olen - 8);
				memcpy(c->srv, o + 8, olen - 8);
			}
			/* BADCOOKIE: rcode 23, its upper bits in the OPT TTL
			 * (the ext rcode byte is 6 bytes before RDLENGTH) */
			if((r[3] & 0x0f) == (DNS_RCODE_BADCOOKIE & 0xf) &&
				at >= 6 && r[at - 4] == (DNS_RCODE_BADCOOKIE >> 4))
				return COOKIE_REPLY_BAD;
			return COOKIE_REPLY_OK;
		}
		i += 4u + olen;
	}
	return COOKIE_REPLY_OK;
}

/** an unmatched reply */
static void
count_unwanted(struct outside_network *on)
{
	on->stats.unwanted++;
	if(on->unwanted_threshold <= 0)
		return;
	if(++on->unwanted_count >= on->unwanted_threshold) {
		on->unwanted_count = 0;
		if(on->unwanted_cb)
			on->unwanted_cb(on->unwanted_arg);
	}
}

/**
 * delay-close: the UDP socket of a query that timed out, kept open for
 * delay-close ms so that a late reply finds the port open (not an ICMP
 * port unreachable that counts against the server elsewhere); what it
 * reads is counted unwanted (the query is gone). It counts among the
 * outgoing-range sockets until it closes. Records are reused.
 */
struct on_linger {
	/** the network */
	struct outside_network *on;
	/** the socket, -1 when the record is free */
	int fd;
	/** its watch (paused while free) */
	struct comm_watch *watch;
	/** the end of the delay */
	struct comm_timer *timer;
	/** in on->lingers or on->free_lingers */
	struct on_linger *next, *prev;
};

/** read and count what reaches a lingering socket */
static void
linger_read(int fd, void *arg)
{
	struct on_linger *l = arg;
	int k;
	for(k = 0; k < 16; k++) {
		if(recv(fd, l->on->rbuf, sizeof(l->on->rbuf), MSG_DONTWAIT)
			== -1)
			return;
		count_unwanted(l->on);
	}
}

/** close a lingering socket; its record goes to the free list */
static void
linger_close(struct on_linger *l)
{
	struct outside_network *on = l->on;
	if(l->watch && comm_watch_pause(l->watch) != 0) {
		comm_watch_delete(l->watch);
		l->watch = NULL;
	}
	comm_timer_disable(l->timer);
	close(l->fd);
	l->fd = -1;
	on->udp_open--;
	if(l->prev)
		l->prev->next = l->next;
	else	on->lingers = l->next;
	if(l->next)
		l->next->prev = l->prev;
	l->prev = NULL;
	l->next = on->free_lingers;
	on->free_lingers = l;
}

/** the delay is over */
static void
linger_end(void *arg)
{
	struct on_linger *l = arg;
	struct outside_network *on = l->on;
	linger_close(l);
	run_queues(on);
}

/** free the lingering sockets and the records (network deletion) */
static void
linger_delete_all(struct outside_network *on)
{
	while(on->lingers)
		linger_close(on->lingers);
	while(on->free_lingers) {
		struct on_linger *l = on->free_lingers;
		on->free_lingers = l->next;
		comm_watch_delete(l->watch);
		comm_timer_delete(l->timer);
		free(l);
	}
}

/**
 * Keep p's UDP socket open for delay-close ms (p no longer owns it).
 * @return 0, or -1 (nothing changed; the socket closes as usual).
 */
static int
linger_start(struct pend *p)
{
	struct outside_network *on = p->on;
	struct on_linger *l = on->free_lingers;
	if(l)
		on->free_lingers = l->next;
	else {
		if(!(l = calloc(1, sizeof(*l))))
			return -1;
		l->on = on;
		l->fd = -1;
		if(!(l->timer = comm_timer_create(on->base, linger_end, l))) {
			free(l);
			return -1;
		}
	}
	/* the pend's watch lets go of the descriptor first */
	if(p->watch && comm_watch_pause(p->watch) != 0) {
		comm_watch_delete(p->watch);
		p->watch = NULL;
	}
	if(l->watch && comm_watch_refd(l->watch, p->fd) != 0) {
		comm_watch_delete(l->watch);
		l->watch = NULL;
	}
	if(!l->watch)
		l->watch = comm_watch_create(on->base, p->fd, linger_read, l);
	if(!l->watch || comm_timer_set(l->timer, on->delay_close) != 0) {
		if(l->watch && comm_watch_pause(l->watch) != 0) {
			comm_watch_delete(l->watch);
			l->watch = NULL;
		}
		l->next = on->free_lingers;
		on->free_lingers = l;
		return -1;
	}
	l->fd = p->fd;
	p->fd = -1;
	l->prev = NULL;
	l->next = on->lingers;
	if(on->lingers)
		on->lingers->prev = l;
	on->lingers = l;
	return 0;
}

static void
pend_timeout(void *arg)
{
	struct pend *p = arg;
	/* delay-close: the socket outlives the query (the count of open
	 * sockets keeps it until the delay ends) */
	if(p->on->delay_close > 0 && p->state == PEND_UDP && p->fd != -1)
		(void)linger_start(p);
	pend_deliver(p, OUTBOUND_TIMEOUT, NULL, 0);
}

/* ------------------------------------------------------------------ */
/* TCP */

static void
pend_tcp_cb(struct comm_tcp_out *t, enum comm_tcp_out_status st,
	const uint8_t *pkt, size_t len, void *arg)
{
	struct pend *p = arg;
	(void)t;
	if(st == COMM_TCP_OUT_REPLY) {
		int m = pend_match(p, pkt, len);
		if(m == PEND_CASE_DIFFERS) {
			pend_caps_fallback(p);
			return;
		}
		if(!m) {
			count_unwanted(p->on);
			return;
		}
		switch(pend_cookie(p, pkt, len)) {
		case COOKIE_REPLY_SPOOF:
			count_unwanted(p->on);
			return;
		case COOKIE_REPLY_BAD:
			if(!p->cookie_retried) {
				p->cookie_retried = 1;
				pend_close_transport(p);
				pend_build(p);
				pend_start_tcp(p);
				run_queues(p->on);
				return;
			}
			break;
		default:
			break;
		}
		pend_deliver(p, OUTBOUND_REPLY, pkt, len);
		return;
	}
	pend_deliver(p, st == COMM_TCP_OUT_TIMEOUT ? OUTBOUND_TIMEOUT :
		OUTBOUND_ERROR, NULL, 0);
}

/**
 * The 0x20 fallback (as Unbound's): the server answered p with the right
 * ID, port and question but did not echo the random letter case, as some
 * servers and middleboxes do. Counting that reply as unwanted would make
 * the server look dead; instead p is sent again, on the same transport,
 * with a fresh ID (and source port for UDP) and the name in the case the
 * caller gave, and matched without case from then on. The ID and port
 * still have to match, so a forger gains nothing it did not have.
 */
static void
pend_caps_fallback(struct pend *p)
{
	struct outside_network *on = p->on;
	int tcp = p->state == PEND_TCP;
	on->stats.caps_fallbacks++;
	pend_close_transport(p);
	p->no_caps = 1;
	pend_build(p);
	if(tcp)
		pend_start_tcp(p);
	else	pend_start_udp(p);
	run_queues(on);
}

/** pick the source address for the server's family, or NULL */
static const struct netaddr *
pick_source(struct outside_network *on, const struct netaddr *to)
{
	if(netaddr_family(to) == AF_INET6) {
		if(on->num_ifs6 == 0)
			return NULL;
		return &on->ifs6[random_uniform(on->rnd,
			(uint32_t)on->num_ifs6)];
	}
	if(on->num_ifs4 == 0)
		return NULL;
	return &on->ifs4[random_uniform(on->rnd, (uint32_t)on->num_ifs4)];
}

/** send p over TCP now, or queue it. Failures are delivered later. */
static void
pend_start_tcp(struct pend *p)
{
	struct outside_network *on = p->on;
	if(on->tcp_open >= on->num_tcp) {
		p->state = PEND_TCP_WAIT;
		on->stats.tcp_waits++;
		wait_append(&on->tcp_wait, &on->tcp_wait_tail, p);
		return;
	}
	p->state = PEND_TCP;
	p->tcp = NULL;
	if(on->num_free_tcp > 0) {
		struct comm_tcp_out *t = on->free_tcp[--on->num_free_tcp];
		if(comm_tcp_out_reopen(t, &p->to, pick_source(on, &p->to),
			p->wait_ms, pend_tcp_cb, p) == 0)
			p->tcp = t;
		else	comm_tcp_out_delete(t);
	} else	p->tcp = comm_tcp_out_create(on->base, &p->to,
			pick_source(on, &p->to), p->wait_ms, pend_tcp_cb, p);
	if(!p->tcp) {
		/* tell the callers from the loop, not from here: 0 ms timer
		 * firing reports an error */
		p->state = PEND_TCP;
		comm_timer_set(p->timer, 0);
		p->timeout_ms = -1;
		return;
	}
	on->tcp_open++;
	if(comm_tcp_out_write(p->tcp, p->pkt, p->pkt_len) == -1) {
		comm_timer_set(p->timer, 0);
		p->timeout_ms = -1;
		return;
	}
	on->stats.tcp_sent++;
	if(on->dtio)
		dt_upstream_query(on->dtio, &p->to, DT_TCP,
			comm_base_now(on->base), p->pkt, p->pkt_len);
}

/* ------------------------------------------------------------------ */
/* TLS */

/** report an error to p's callers from the loop (never from here) */
static void
pend_fail_later(struct pend *p)
{
	comm_timer_set(p->timer, 0);
	p->timeout_ms = -1;
}

/** the TLS server with address and port to, or NULL */
static struct tls_up *
tls_find(struct outside_network *on, const struct netaddr *to)
{
	int i;
	for(i = 0; i < on->num_tls; i++)
		if(netaddr_cmp(&on->tls[i].addr, to) == 0)
			return &on->tls[i];
	return NULL;
}

/** the server as "ip@port#name" for log lines */
static const char *
tls_up_str(const struct tls_up *tu, char *buf, size_t len)
{
	char a[NETADDR_STRLEN];
	snprintf(buf, len, "%s%s%s", netaddr_str(&tu->addr, -1, a, sizeof(a)),
		tu->name[0] ? "#" : "", tu->name);
	return buf;
}

static int doh_flush(struct tls_up *tu);

/** events of a server's TLS connection (for a DNS over HTTPS server, the
 * bytes of its HTTP/2 stream) */
static void
tls_conn_cb(struct comm_tcp_out *t, enum comm_tcp_out_status st,
	const uint8_t *pkt, size_t len, void *arg)
{
	struct tls_up *tu = arg;
	struct outside_network *on = tu->on;
	struct pend *p, *list;
	int bad;
	if(st == COMM_TCP_OUT_REPLY && tu->h2) {
		int r;
		tu->in_recv = 1;
		r = h2_client_recv(tu->h2, pkt, len);
		tu->in_recv = 0;
		if(r == 0 && doh_flush(tu) == 0)
			return;
		/* an HTTP/2 error, or the server is done with the
		 * connection (GOAWAY): close it; what waits goes again on a
		 * new one */
		verbose(VERB_ALGO, "DoH upstream: %s, closing the connection",
			r ? "HTTP/2 protocol error" : "connection ended");
		st = COMM_TCP_OUT_CLOSED;
	}
	if(st == COMM_TCP_OUT_REPLY) {
		for(p = tu->pends; p; p = p->tnext)
			if(len >= 2 && p->id == get16(pkt))
				break;
		if(!p || !pend_match(p, pkt, len)) {
			count_unwanted(on);
			return;
		}
		pend_deliver(p, OUTBOUND_REPLY, pkt, len);
		return;
	}
	/* the connection ended. Never through the handshake: the server is
	 * unusable for a while; else (closed by the server, idle) the
	 * queries still waiting go again on a new connection. No callback
	 * runs in here: failures are reported from the loop. */
	bad = !comm_tcp_out_tls_done(t);
	if(bad) {
		char b[320];
		const char *why = comm_tcp_out_error(t);
		tu->bad_until = *comm_base_secs(on->base) + ON_TLS_BAD_SECS;
		on->stats.tls_failures++;
		log_warnx("TLS upstream %s not used for %d s: %s",
			tls_up_str(tu, b, sizeof(b)), ON_TLS_BAD_SECS,
			why[0] ? why : (st == COMM_TCP_OUT_TIMEOUT ?
			"connect timed out" : "connection failed"));
	}
	comm_tcp_out_delete(t);
	tu->conn = NULL;
	h2_client_free(tu->h2);
	tu->h2 = NULL;
	on->tls_open--;
	list = tu->pends;
	tu->pends = NULL;
	while(list) {
		p = list;
		list = p->tnext;
		p->tnext = p->tprev = NULL;
		p->in_tls = 0;
		if(!bad && p->tls_resends < ON_TLS_RESENDS) {
			p->tls_resends++;
			pend_start_tls(p);
		} else	pend_fail_later(p);
	}
}

/** queue what tu's HTTP/2 client has to send. @return 0, or -1 when the
 * connection cannot go on */
static int
doh_push(void *arg, const uint8_t *d, size_t len)
{
	struct tls_up *tu = arg;
	return comm_tcp_out_write_raw(tu->conn, d, len);
}

static int
doh_flush(struct tls_up *tu)
{
	if(!tu->h2 || !tu->conn || tu->in_recv)
		return 0;
	if(h2_client_output(tu->h2, doh_push, tu) != 0)
		return -1;
	return h2_client_usable(tu->h2) || tu->pends ? 0 : -1;
}

/** an HTTP/2 stream ended: its pend gets the answer, or fails */
static void
doh_reply(void *arg, int32_t stream, int status, const uint8_t *body,
	size_t len)
{
	struct tls_up *tu = arg;
	struct pend *p;
	for(p = tu->pends; p; p = p->tnext)
		if(p->stream == stream)
			break;
	if(!p) {
		count_unwanted(tu->on);
		return;
	}
	if(!body || !pend_match(p, body, len)) {
		char b[320];
		verbose(VERB_ALGO, "DoH upstream %s: %s%d", tls_up_str(tu, b,
			sizeof(b)), body ? "answer does not match, status " :
			"no DNS answer, HTTP status ", status);
		/* off the connection's list, then fail from the loop */
		if(p->tprev)
			p->tprev->tnext = p->tnext;
		else	tu->pends = p->tnext;
		if(p->tnext)
			p->tnext->tprev = p->tprev;
		p->tnext = p->tprev = NULL;
		p->in_tls = 0;
		pend_fail_later(p);
		return;
	}
	pend_deliver(p, OUTBOUND_REPLY, body, len);
}

/** is id in use on tu's connection? */
static int
tls_id_used(struct tls_up *tu, uint16_t id)
{
	struct pend *p;
	for(p = tu->pends; p; p = p->tnext)
		if(p->id == id)
			return 1;
	return 0;
}

/** send p on its server's TLS connection (opened if needed). Failures are
 * delivered later, from the loop. Never anything in clear. */
static void
pend_start_tls(struct pend *p)
{
	struct tls_up *tu = p->tu;
	struct outside_network *on = p->on;
	int tries = 0;
	/* room for the query padded to a block (RFC 8467) */
	uint8_t padded[ON_MAX_PKT + 4 + 1024];
	size_t plen;
	p->state = PEND_TLS;
	if(tu->bad_until > *comm_base_secs(on->base)) {
		pend_fail_later(p);
		return;
	}
	if(tu->conn && tu->h2 && !h2_client_usable(tu->h2)) {
		/* the server sent GOAWAY: this connection takes no new
		 * query. With none left on it, a new connection; else the
		 * ones on it finish there and this query fails (the
		 * iterator tries again) */
		if(tu->pends || tu->in_recv) {
			pend_fail_later(p);
			return;
		}
		comm_tcp_out_delete(tu->conn);
		tu->conn = NULL;
		h2_client_free(tu->h2);
		tu->h2 = NULL;
		on->tls_open--;
	}
	if(!tu->conn) {
		tu->conn = comm_tcp_out_create_tls(on->base, &tu->addr,
			pick_source(on, &tu->addr), ON_TLS_IDLE_MS, on->tls_ctx,
			tu->name, on->tls_use_sni, tls_conn_cb, tu);
		if(!tu->conn) {
			pend_fail_later(p);
			return;
		}
		on->tls_open++;
		if(tu->doh_path[0] && (comm_tcp_out_set_h2(tu->conn) != 0 ||
			!(tu->h2 = h2_client_create(doh_reply, tu)))) {
			comm_tcp_out_delete(tu->conn);
			tu->conn = NULL;
			on->tls_open--;
			pend_fail_later(p);
			return;
		}
	}
	/* an ID unique on the connection (pipelined replies come back in
	 * any order) */
	while(tls_id_used(tu, p->id) && tries++ < 64)
		pend_build(p);
	memcpy(padded, p->pkt, p->pkt_len);
	plen = p->pkt_len;
	if(on->tls_pad_block > 1 && on->tls_pad_block <= 1024)
		plen = dns_pad(padded, plen, sizeof(padded),
			(size_t)on->tls_pad_block);
	if(tu->h2) {
		/* DNS over HTTPS: a POST on a stream of its own */
		p->stream = h2_client_query(tu->h2, tu->authority,
			tu->doh_path, padded, plen);
		if(p->stream <= 0) {
			p->stream = 0;
			pend_fail_later(p);
			return;
		}
	} else if(tls_id_used(tu, p->id) ||
		comm_tcp_out_write(tu->conn, padded, plen) == -1) {
		pend_fail_later(p);
		return;
	}
	p->in_tls = 1;
	p->tprev = NULL;
	p->tnext = tu->pends;
	if(tu->pends)
		tu->pends->tprev = p;
	tu->pends = p;
	on->stats.tls_sent++;
	if(on->dtio)
		dt_upstream_query(on->dtio, &tu->addr, DT_DOT,
			comm_base_now(on->base), padded, plen);
	if(tu->h2 && doh_flush(tu) != 0)
		verbose(VERB_ALGO, "DoH upstream: cannot queue the query");
}

/** make the TLS servers of the zones marked tls. @return 0 or -1 */
static int
tls_add_zones(struct outside_network *on, const struct config_stub *z)
{
	for(; z; z = z->next) {
		const struct config_addrlist *a;
		for(a = z->addrs; a; a = a->next) {
			struct tls_up *tu;
			const char *h = a->str ? strchr(a->str, '#') : NULL;
			if(!z->tls && !a->doh_path)
				continue;
			if(tls_find(on, &a->addr))
				continue;
			tu = realloc(on->tls, sizeof(*tu) *
				(size_t)(on->num_tls + 1));
			if(!tu)
				return -1;
			on->tls = tu;
			tu = &on->tls[on->num_tls++];
			memset(tu, 0, sizeof(*tu));
			tu->on = on;
			tu->addr = a->addr;
			if(h)
				snprintf(tu->name, sizeof(tu->name), "%s",
					h + 1);
			if(a->doh_path) {
				char ip[NETADDR_STRLEN];
				snprintf(tu->doh_path, sizeof(tu->doh_path),
					"%s", a->doh_path);
				(void)netaddr_str(&tu->addr, netaddr_port(
					&tu->addr), ip, sizeof(ip));
				if(tu->name[0])
					snprintf(tu->authority,
						sizeof(tu->authority), "%s",
						tu->name);
				else if(strchr(ip, ':'))
					snprintf(tu->authority,
						sizeof(tu->authority), "[%s]",
						ip);
				else	snprintf(tu->authority,
						sizeof(tu->authority), "%s",
						ip);
			}
		}
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* UDP */

/** read replies from p's socket */
static void
pend_udp_read(int fd, void *arg)
{
	struct pend *p = arg;
	struct outside_network *on = p->on;
	int k, m;
	for(k = 0; k < 16; k++) {
		struct netaddr from;
		ssize_t r;
		from.len = sizeof(from.addr);
		r = recvfrom(fd, on->rbuf, sizeof(on->rbuf), MSG_DONTWAIT,
			(struct sockaddr *)&from.addr, &from.len);
		if(r == -1) {
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				verbose(VERB_ALGO, "outside network: recv: %s",
					strerror(errno));
			return;
		}
		if(netaddr_cmp(&from, &p->to) != 0) {
			count_unwanted(on);
			continue;
		}
		m = pend_match(p, on->rbuf, (size_t)r);
		if(m == PEND_CASE_DIFFERS) {
			pend_caps_fallback(p);
			return;
		}
		if(!m) {
			count_unwanted(on);
			continue;
		}
		m = pend_cookie(p, on->rbuf, (size_t)r);
		if(m == COOKIE_REPLY_SPOOF) {
			count_unwanted(on);
			continue;
		}
		if(m == COOKIE_REPLY_BAD && !p->cookie_retried) {
			/* once more, with the server cookie just learnt */
			p->cookie_retried = 1;
			pend_close_transport(p);
			pend_build(p);
			pend_start_udp(p);
			run_queues(on);
			return;
		}
		if(on->rbuf[2] & 0x02) {
			/* TC: retry over TCP, the callers see the TCP reply */
			on->stats.tc_fallbacks++;
			if(on->tcp_auth_ms > 0) {
				/* tcp-auth-query-timeout, afresh (as Unbound) */
				p->wait_ms = on->tcp_auth_ms;
				comm_timer_set(p->timer, p->wait_ms);
			}
			pend_close_transport(p);
			pend_build(p);
			pend_start_tcp(p);
			run_queues(on);
			return;
		}
		pend_deliver(p, OUTBOUND_REPLY, on->rbuf, (size_t)r);
		return;
	}
}

/**
 * The port set of outgoing-port-permit and outgoing-port-avoid: ports
 * 1024-65535, then each rule in line order adds ("+") or takes away
 * ("-") its range (as Unbound, which starts from the ports above 1024
 * that IANA has not assigned; petrel keeps no such list).
 * @return 0, or -1 (logged) when no port is left or out of memory.
 */
static int
ports_setup(struct outside_network *on, const struct config_strlist *rules)
{
	uint8_t *set;
	const struct config_strlist *r;
	int p, n = 0;
	if(!rules)
		return 0;
	set = calloc(65536, 1);
	if(!set) {
		log_err("outside_network_create: out of memory");
		return -1;
	}
	for(p = 1024; p < 65536; p++)
		set[p] = 1;
	for(r = rules; r; r = r->next) {
		unsigned long lo, hi;
		char *end;
		lo = strtoul(r->str + 1, &end, 10);
		hi = *end == '-' ? strtoul(end + 1, NULL, 10) : lo;
		if(hi > 65535)
			hi = 65535;
		for(; lo <= hi; lo++)
			set[lo] = (r->str[0] == '+');
	}
	for(p = 0; p < 65536; p++)
		n += set[p];
	if(n == 0) {
		log_err("outgoing-port-permit/-avoid: no port is left to "
			"send queries from");
		free(set);
		return -1;
	}
	on->ports = malloc((size_t)n * sizeof(*on->ports));
	if(!on->ports) {
		free(set);
		log_err("outside_network_create: out of memory");
		return -1;
	}
	for(p = 0; p < 65536; p++)
		if(set[p])
			on->ports[on->num_ports++] = (uint16_t)p;
	free(set);
	return 0;
}

/**
 * The options of a bound upstream UDP socket: ip-dscp, and with
 * udp-connect the connect() to its one server, after which the kernel
 * drops datagrams from any other address and port before petrel sees
 * them (Unbound's default), and send() needs no address.
 * @return fd, or -1 (closed, logged).
 */
static int
udp_ready(struct outside_network *on, int fd, const struct netaddr *to)
{
	char s[NETADDR_STRLEN];
	int dscp = comm_base_out_dscp(on->base);
	if(dscp > 0 && comm_sock_set_dscp(fd, netaddr_family(to), dscp) == -1)
		verbose(VERB_OPS, "outside network: ip-dscp %d: %s", dscp,
			strerror(errno));
	if(on->udp_connect && connect(fd, (const struct sockaddr *)&to->addr,
		to->len) == -1) {
		verbose(VERB_ALGO, "outside network: connect %s: %s",
			netaddr_str(to, -1, s, sizeof(s)), strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/** open a UDP socket on a random port. @return fd or -1 */
static int
open_udp(struct outside_network *on, const struct netaddr *to)
{
	const struct netaddr *src = pick_source(on, to);
	struct netaddr a;
	int fd, i;
#if defined(SOCK_NONBLOCK) && defined(SOCK_CLOEXEC)
	/* one system call where three were (socket and two fcntl): this
	 * runs once per upstream query */
	fd = socket(netaddr_family(to), SOCK_DGRAM | SOCK_NONBLOCK |
		SOCK_CLOEXEC, 0);
#else
	fd = socket(netaddr_family(to), SOCK_DGRAM, 0);
#endif
	if(fd == -1) {
		log_warn("outside network: socket");
		return -1;
	}
#if !defined(SOCK_NONBLOCK) || !defined(SOCK_CLOEXEC)
	{
		int fl = fcntl(fd, F_GETFL, 0);
		if(fl == -1 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1 ||
			fcntl(fd, F_SETFD, FD_CLOEXEC) == -1) {
			log_warn("outside network: fcntl");
			close(fd);
			return -1;
		}
	}
#endif
	if(src)
		a = *src;
	else {
		memset(&a, 0, sizeof(a));
		a.addr.ss_family = (sa_family_t)netaddr_family(to);
		a.len = netaddr_family(to) == AF_INET6 ?
			sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	}
	for(i = 0; i < ON_BIND_TRIES; i++) {
		if(on->ports)
			netaddr_set_port(&a, on->ports[random_uniform(on->rnd,
				(uint32_t)on->num_ports)]);
		else	netaddr_set_port(&a, 1024 + (int)random_uniform(
				on->rnd, 65536 - 1024));
		if(bind(fd, (struct sockaddr *)&a.addr, a.len) == 0)
			return udp_ready(on, fd, to);
		if(errno != EADDRINUSE && errno != EACCES) {
			char s[NETADDR_STRLEN];
			log_warn("outside network: bind %s",
				netaddr_str(&a, -1, s, sizeof(s)));
			break;
		}
	}
	close(fd);
	return -1;
}

/** send p over UDP now, or queue it. Failures are delivered later. */
static void
pend_start_udp(struct pend *p)
{
	struct outside_network *on = p->on;
	if(on->udp_open >= on->outgoing_range) {
		p->state = PEND_UDP_WAIT;
		on->stats.udp_waits++;
		wait_append(&on->udp_wait, &on->udp_wait_tail, p);
		return;
	}
	p->state = PEND_UDP;
	p->fd = open_udp(on, &p->to);
	if(p->fd == -1)
		goto fail;
	on->udp_open++;
	/* the watch of this pend's last socket moves to the new one; when
	 * the backend cannot move it now, a new watch */
	if(p->watch && comm_watch_refd(p->watch, p->fd) != 0) {
		comm_watch_delete(p->watch);
		p->watch = NULL;
	}
	if(!p->watch)
		p->watch = comm_watch_create(on->base, p->fd, pend_udp_read,
			p);
	if(!p->watch)
		goto fail;
	if((on->udp_connect ? send(p->fd, p->pkt, p->pkt_len, 0) :
		sendto(p->fd, p->pkt, p->pkt_len, 0,
		(const struct sockaddr *)&p->to.addr, p->to.len)) == -1) {
		char s[NETADDR_STRLEN];
		verbose(VERB_ALGO, "outside network: sendto %s: %s",
			netaddr_str(&p->to, -1, s, sizeof(s)), strerror(errno));
		goto fail;
	}
	on->stats.udp_sent++;
	if(on->dtio)
		dt_upstream_query(on->dtio, &p->to, DT_UDP,
			comm_base_now(on->base), p->pkt, p->pkt_len);
	return;
fail:
	/* report from the loop (never from inside send) */
	comm_timer_set(p->timer, 0);
	p->timeout_ms = -1;
}

/* ------------------------------------------------------------------ */
/* the seam */

/** timer of a pend: a real timeout, or an error reported from the loop */
static void
pend_timer_cb(void *arg)
{
	struct pend *p = arg;
	if(p->timeout_ms < 0)
		pend_deliver(p, OUTBOUND_ERROR, NULL, 0);
	else	pend_timeout(p);
}

static struct outbound_query *
on_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms,
	outbound_cb_type cb, void *cb_arg)
{
	struct outside_network *on = ctx;
	struct outbound_query *q;
	struct pend *p;
	uint8_t lname[ON_MAX_NAME];
	uint32_t h;
	size_t i;
	int fam = netaddr_family(to);
	if(!cb || qname_len == 0 || qname_len > ON_MAX_NAME ||
		name_len(qname, qname_len) != qname_len ||
		optlen > OUTBOUND_MAX_OPTS || (optlen && !opts))
		return NULL;
	if(flags & OUTBOUND_FLAG_NOEDNS)
		optlen = 0;
	if((fam == AF_INET && !on->do_ip4) || (fam == AF_INET6 &&
		!on->do_ip6) || (fam != AF_INET && fam != AF_INET6))
		return NULL;
	for(i = 0; i < qname_len; i++)
		lname[i] = lower(qname[i]);
	q = query_take(on);
	if(!q)
		return NULL;
	q->cb = cb;
	q->cb_arg = cb_arg;
	h = pend_hash(to, lname, qname_len, qtype, qclass, flags);
	for(p = on->hash[h & (ON_HASH_SIZE - 1)]; p; p = p->hnext) {
		if(p->hash == h && p->qname_len == qname_len &&
			p->qtype == qtype && p->qclass == qclass &&
			p->flags == flags && netaddr_cmp(&p->to, to) == 0 &&
			memcmp(p->qname, lname, qname_len) == 0 &&
			p->optlen == optlen && (optlen == 0 ||
			memcmp(p->opts, opts, optlen) == 0))
			break;
	}
	if(p) {
		/* identical query in flight: wait for its reply */
		on->stats.dup_joins++;
		q->p = p;
		q->next = p->callers;
		if(p->callers)
			p->callers->prev = q;
		p->callers = q;
		return q;
	}
	p = pend_take(on);
	if(!p) {
		query_give(on, q);
		return NULL;
	}
	p->on = on;
	p->fd = -1;
	p->to = *to;
	memcpy(p->qname, lname, qname_len);
	memcpy(p->qname_given, qname, qname_len);
	p->qname_len = qname_len;
	p->qtype = qtype;
	p->qclass = qclass;
	p->flags = flags;
	if(optlen)
		memcpy(p->opts, opts, optlen);
	p->optlen = optlen;
	if(on->use_caps) {
		/* caps-exempt: names at or below these go without 0x20 */
		int k;
		for(k = 0; k < on->num_caps_exempt; k++)
			if(dname_is_subdomain(lname, on->caps_exempt[k])) {
				p->no_caps = 1;
				break;
			}
	}
	p->timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
	p->wait_ms = p->timeout_ms;
	p->tu = on->num_tls ? tls_find(on, to) : NULL;
	if((flags & OUTBOUND_FLAG_TCP) && !p->tu && on->tcp_auth_ms >
		p->wait_ms && p->wait_ms >= INFRA_UNKNOWN_RTO)
		p->wait_ms = on->tcp_auth_ms; /* a server never measured */
	p->start = *comm_base_now(on->base);
	p->hash = h;
	on->num_pend++;
	on->stats.queries++;
	q->p = p;
	p->callers = q;
	p->hnext = on->hash[h & (ON_HASH_SIZE - 1)];
	if(p->hnext)
		p->hnext->hprev = p;
	on->hash[h & (ON_HASH_SIZE - 1)] = p;
	p->in_hash = 1;
	if(comm_timer_set(p->timer, p->wait_ms) == -1) {
		p->callers = NULL;
		pend_free(p);
		query_give(on, q);
		return NULL;
	}
	pend_build(p);
	if(p->tu)
		pend_start_tls(p);
	else if(flags & OUTBOUND_FLAG_TCP)
		pend_start_tcp(p);
	else	pend_start_udp(p);
	return q;
}

static void
on_cancel(void *ctx, struct outbound_query *q)
{
	struct outside_network *on = ctx;
	struct pend *p;
	if(!q)
		return;
	p = q->p;
	if(!p) {
		/* its callback is running (delivery): nothing to undo */
		return;
	}
	if(q->prev)
		q->prev->next = q->next;
	else	p->callers = q->next;
	if(q->next)
		q->next->prev = q->prev;
	query_give(on, q);
	if(!p->callers && p->state != PEND_DELIVER) {
		on->stats.cancelled++;
		pend_free(p);
		run_queues(on);
	}
}

static void
on_timer_fire(void *arg)
{
	struct on_timer *t = arg;
	struct outside_network *on = t->on;
	if(t->prev)
		t->prev->next = t->next;
	else	on->timers = t->next;
	if(t->next)
		t->next->prev = t->prev;
	t->fn(t->arg);
	comm_timer_delete(t->t);
	free(t);
}

static void *
on_timer_set(void *ctx, int ms, void (*fn)(void *), void *arg)
{
	struct outside_network *on = ctx;
	struct on_timer *t = calloc(1, sizeof(*t));
	if(!t)
		return NULL;
	t->on = on;
	t->fn = fn;
	t->arg = arg;
	t->t = comm_timer_create(on->base, on_timer_fire, t);
	if(!t->t || comm_timer_set(t->t, ms) == -1) {
		comm_timer_delete(t->t);
		free(t);
		return NULL;
	}
	t->next = on->timers;
	if(t->next)
		t->next->prev = t;
	on->timers = t;
	return t;
}

static void
on_timer_cancel(void *ctx, void *timer)
{
	struct outside_network *on = ctx;
	struct on_timer *t = timer;
	if(!t)
		return;
	if(t->prev)
		t->prev->next = t->next;
	else	on->timers = t->next;
	if(t->next)
		t->next->prev = t->prev;
	comm_timer_delete(t->t);
	free(t);
}

/* ------------------------------------------------------------------ */
/* create, delete */

/** add one outgoing interface to the per-family arrays */
static void
add_if(struct outside_network *on, const struct netaddr *a)
{
	if(netaddr_family(a) == AF_INET6)
		on->ifs6[on->num_ifs6++] = *a;
	else	on->ifs4[on->num_ifs4++] = *a;
}

struct outside_network *
outside_network_create(struct comm_base *base,
	const struct outside_network_params *p)
{
	struct outside_network *on = calloc(1, sizeof(*on));
	struct config_strlist *s;
	int i, n;
	if(!on) {
		log_err("outside_network_create: out of memory");
		return NULL;
	}
	if(!p->rnd) {
		log_err("outside_network_create: no random generator");
		goto fail;
	}
	on->base = base;
	on->rnd = p->rnd;
	on->dtio = p->dtio;
	on->outgoing_range = p->outgoing_range > 0 ? p->outgoing_range : 1;
	on->num_tcp = p->outgoing_num_tcp > 0 ? p->outgoing_num_tcp : 1;
	on->use_caps = p->use_caps_for_id;
	if(ports_setup(on, p->port_rules) != 0)
		goto fail;
	for(s = (struct config_strlist *)p->caps_exempt; s; s = s->next)
		on->num_caps_exempt++;
	if(on->num_caps_exempt > 0) {
		on->caps_exempt = calloc((size_t)on->num_caps_exempt,
			sizeof(*on->caps_exempt));
		if(!on->caps_exempt) {
			log_err("outside_network_create: out of memory");
			goto fail;
		}
		for(i = 0, s = (struct config_strlist *)p->caps_exempt; s;
			s = s->next, i++) {
			size_t len = ON_MAX_NAME;
			if(dname_from_str(s->str, on->caps_exempt[i], &len) != 0) {
				log_err("caps-exempt: %s: not a domain name",
					s->str);
				goto fail;
			}
			dname_tolower(on->caps_exempt[i]);
		}
	}
	on->edns_size = p->edns_buffer_size >= 512 &&
		p->edns_buffer_size <= 65535 ? p->edns_buffer_size : 1232;
	on->do_ip4 = p->do_ip4;
	on->do_ip6 = p->do_ip6;
	on->unwanted_threshold = p->unwanted_reply_threshold;
	on->unwanted_cb = p->unwanted_cb;
	on->unwanted_arg = p->unwanted_arg;
	n = p->ifs ? p->num_ifs : 0;
	for(s = p->outgoing_interfaces; s; s = s->next)
		n++;
	if(n > 0) {
		on->ifs4 = calloc((size_t)n, sizeof(*on->ifs4));
		on->ifs6 = calloc((size_t)n, sizeof(*on->ifs6));
		if(!on->ifs4 || !on->ifs6) {
			log_err("outside_network_create: out of memory");
			goto fail;
		}
	}
	for(i = 0; p->ifs && i < p->num_ifs; i++)
		add_if(on, &p->ifs[i]);
	for(s = p->outgoing_interfaces; s; s = s->next) {
		struct netaddr a;
		const char *err = NULL;
		if(netaddr_parse(s->str, 0, &a, &err) != 0) {
			log_err("outgoing-interface: %s: %s", s->str,
				err ? err : "bad address");
			goto fail;
		}
		add_if(on, &a);
	}
	on->tls_use_sni = p->tls_use_sni;
	on->tls_pad_block = p->tls_pad_block;
	on->udp_connect = p->udp_connect;
	on->delay_close = p->delay_close;
	on->tcp_auth_ms = p->tcp_auth_query_timeout > 0 ?
		p->tcp_auth_query_timeout : 0;
	if(p->upstream_cookies) {
		on->cookies = calloc(ON_COOKIE_SLOTS, sizeof(*on->cookies));
		if(!on->cookies) {
			log_err("outside_network_create: out of memory");
			goto fail;
		}
		random_bytes(on->rnd, on->cookie_secret,
			sizeof(on->cookie_secret));
	}
	if(tls_add_zones(on, p->forwards) != 0 ||
		tls_add_zones(on, p->stubs) != 0) {
		log_err("outside_network_create: out of memory");
		goto fail;
	}
	if(on->num_tls > 0) {
		on->tls_ctx = p->tls_ctx;
		if(!on->tls_ctx) {
			log_err("outside_network_create: TLS servers are "
				"configured but there is no TLS context");
			goto fail;
		}
	}
	on->ob.ctx = on;
	on->ob.send = on_send;
	on->ob.cancel = on_cancel;
	on->ob.timer_set = on_timer_set;
	on->ob.timer_cancel = on_timer_cancel;
	on->ob.now = comm_base_now(base);
	return on;
fail:
	outside_network_delete(on);
	return NULL;
}

void
outside_network_delete(struct outside_network *on)
{
	int i;
	if(!on)
		return;
	for(i = 0; i < ON_HASH_SIZE; i++) {
		while(on->hash[i]) {
			struct pend *p = on->hash[i];
			while(p->callers) {
				struct outbound_query *q = p->callers;
				p->callers = q->next;
				free(q);
			}
			pend_free(p);
		}
	}
	while(on->free_pends) {
		struct pend *p = on->free_pends;
		on->free_pends = p->hnext;
		pend_destroy(p);
	}
	while(on->free_queries) {
		struct outbound_query *q = on->free_queries;
		on->free_queries = q->next;
		free(q);
	}
	linger_delete_all(on);
	while(on->num_free_tcp > 0)
		comm_tcp_out_delete(on->free_tcp[--on->num_free_tcp]);
	while(on->timers)
		on_timer_cancel(on, on->timers);
	for(i = 0; i < on->num_tls; i++) {
		comm_tcp_out_delete(on->tls[i].conn);
		h2_client_free(on->tls[i].h2);
	}
	free(on->tls);
	free(on->caps_exempt);
	free(on->ports);
	free(on->ifs4);
	free(on->ifs6);
	free(on->cookies);
	free(on);
}

struct outbound *
outside_network_outbound(struct outside_network *on)
{
	return &on->ob;
}

void
outside_network_set_unwanted_cb(struct outside_network *on,
	void (*cb)(void *arg), void *arg)
{
	on->unwanted_cb = cb;
	on->unwanted_arg = arg;
}

const struct outside_network_stats *
outside_network_get_stats(struct outside_network *on)
{
	return &on->stats;
}

int
outside_network_udp_open(struct outside_network *on)
{
	return on->udp_open;
}

int
outside_network_tcp_open(struct outside_network *on)
{
	return on->tcp_open;
}

int
outside_network_tls_open(struct outside_network *on)
{
	return on->tls_open;
}

int
outside_network_pending(struct outside_network *on)
{
	return on->num_pend;
}

/* ---- edns-client-string (see outside_network.h) ---- */

/** one line */
struct es_line {
	/** the netblock */
	struct netblock nb;
	/** the text and its length */
	uint8_t text[CONFIG_EDNS_STRING_MAX];
	size_t len;
};

/** the table */
struct edns_strings {
	/** edns-client-string-opcode */
	uint16_t code;
	/** number of lines */
	size_t n;
	/** the lines, longest prefix first */
	struct es_line l[];
};

/** the order of the lines: the longer prefix first (equal ones keep the
 * file's order: the sort is stable) */
static int
es_cmp(const void *a, const void *b)
{
	const struct es_line *x = a, *y = b;
	if(x->nb.prefix != y->nb.prefix)
		return x->nb.prefix > y->nb.prefix ? -1 : 1;
	return 0;
}

struct edns_strings *
edns_strings_create(const struct config_file *cfg)
{
	const struct config_strlist *s;
	struct edns_strings *es;
	size_t n = 0;
	if(!cfg)
		return NULL;
	for(s = cfg->edns_client_strings; s; s = s->next)
		n++;
	if(n == 0)
		return NULL;
	es = calloc(1, sizeof(*es) + n * sizeof(es->l[0]));
	if(!es) {
		log_err("edns-client-string: out of memory, queries go "
			"without it");
		return NULL;
	}
	es->code = (uint16_t)cfg->edns_client_string_opcode;
	for(s = cfg->edns_client_strings; s; s = s->next) {
		/* "netblock text" (the load checked both) */
		struct es_line *l = &es->l[es->n];
		const char *sp = strchr(s->str, ' ');
		char nb[128];
		const char *why = NULL;
		if(!sp || (size_t)(sp - s->str) >= sizeof(nb))
			continue;
		memcpy(nb, s->str, (size_t)(sp - s->str));
		nb[sp - s->str] = 0;
		l->len = strlen(sp + 1);
		if(l->len > sizeof(l->text) ||
			netblock_parse(nb, &l->nb, 1, &why) != 0)
			continue;
		memcpy(l->text, sp + 1, l->len);
		es->n++;
	}
	/* a stable order for equal prefixes: insertion sort (short list) */
	{
		size_t i, j;
		for(i = 1; i < es->n; i++) {
			struct es_line t = es->l[i];
			for(j = i; j > 0 && es_cmp(&es->l[j - 1], &t) > 0; j--)
				es->l[j] = es->l[j - 1];
			es->l[j] = t;
		}
	}
	return es;
}

void
edns_strings_delete(struct edns_strings *es)
{
	free(es);
}

size_t
edns_strings_opt(const struct edns_strings *es, const struct netaddr *to,
	uint8_t *buf, size_t max)
{
	size_t i;
	if(!es || !to)
		return 0;
	for(i = 0; i < es->n; i++) {
		const struct es_line *l = &es->l[i];
		if(!netblock_match(&l->nb, to))
			continue;
		if(4 + l->len > max)
			return 0;
		buf[0] = (uint8_t)(es->code >> 8);
		buf[1] = (uint8_t)es->code;
		buf[2] = (uint8_t)(l->len >> 8);
		buf[3] = (uint8_t)l->len;
		memcpy(buf + 4, l->text, l->len);
		return 4 + l->len;
	}
	return 0;
}
