/*
 * services/xfr.h - the zone transfer client: AXFR, IXFR (RFC 1995, 5936),
 * TSIG (RFC 8945), the SOA timers and NOTIFY triggers (RFC 1996).
 *
 * Who runs what. One transfer service (struct xfr_service) per process
 * owns one thread (with thread-model: fork, every worker process runs its
 * own, started by its first worker set-up, and transfers for itself; a
 * build without threads has no transfers: zones come from zone files). Every transfer runs on that thread, with non-blocking
 * sockets and poll(2) against a deadline, so that a slow or dead primary
 * never holds up a worker: workers only call xfr_task_notify() (a flag and
 * a condition-variable signal), xfr_service_post() (a job queued for the
 * thread, e.g. a ZONEMD check to finish) and read xfr_task_status(). A finished
 * transfer is handed to the task's callback, on the transfer thread; the
 * owner of the zone builds its new copy there, off to the side, and swaps
 * it in (services/authzone.c does that under a write lock held only for
 * the pointer swap).
 *
 * A task is one zone with its primaries, in the order given. When its
 * timer fires (or a NOTIFY, or a control command, wakes it) the service
 * asks the primaries in turn until one answers: IXFR over TCP with the
 * serial it has (the reply is the SOA alone when nothing changed; an
 * incremental reply is handed over as a list of differences; a full zone
 * in the IXFR reply, or a primary that refuses IXFR, is taken as / falls
 * back to AXFR; differences the owner cannot apply, its callback refusing
 * them, bring AXFR from the same primary at once), or AXFR when it has no
 * serial yet. With the new SOA the
 * task sets its timers: refresh after the SOA refresh, retry after the
 * SOA retry when every primary failed, and after the SOA expire without a
 * successful check the callback is told that the zone expired.
 *
 * url: sources (xfr_task_set_urls): when no primary answers, or the task
 * has none, the zone file is fetched from each URL in turn with HTTP/1.1
 * GET (HTTPS with the server's certificate verified against
 * tls-cert-bundle, else the system store; a bounded size, a deadline per
 * read and for the whole download) and handed over as a full zone when
 * its serial is newer; its SOA then sets the timers as a transfer's does.
 * The HTTP client itself is services/http_fetch.c.
 *
 * The transport seam (struct xfr_transport): the transfers reach the
 * network and the clock only through a table of functions given at
 * creation. The daemon's is the real one above (its thread, its sockets,
 * time(NULL)); a test or the replay runner gives a fake network and clock
 * and runs the service from its own loop (xfr_service_run_due,
 * xfr_service_run_woken), with no thread: the replay runner answers
 * the transfer requests from a scenario's ranges (tests/replay/README.md).
 *
 * Reuse: RPZ (or anything that follows a zone) creates a task with its
 * own callback and receives either the full zone or the differences; the
 * helper xfr_apply() turns the differences and the old zone into the new.
 *
 * Memory: a result and its RR lists belong to the service and are freed
 * after the callback returns; the callback copies (or steals, setting the
 * pointer to NULL) what it keeps.
 */
#ifndef SERVICES_XFR_H
#define SERVICES_XFR_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>
#include <ldns/ldns.h>
#include "util/netaddr.h"

struct xfr_service;
struct xfr_task;
struct config_url;

/** a TSIG key (RFC 8945), parsed */
struct xfr_tsig_key {
	/** key name, lower-case wire format */
	uint8_t name[256];
	/** its length */
	size_t name_len;
	/** algorithm name, wire format (hmac-sha256. etc) */
	uint8_t alg[64];
	/** its length */
	size_t alg_len;
	/** OpenSSL digest name ("SHA256", ...) */
	const char *md;
	/** the secret */
	uint8_t secret[256];
	/** its length */
	size_t secret_len;
};

/** the MAC of a signed message, kept to sign / verify the next one */
struct xfr_tsig_state {
	/** the key */
	const struct xfr_tsig_key *key;
	/** the previous MAC */
	uint8_t mac[64];
	/** its length */
	size_t mac_len;
	/** messages since the last TSIG (RFC 8945 5.3.1 allows up to 99
	 * unsigned ones in between), concatenated, stripped of nothing
	 * (they carry no TSIG) */
	uint8_t *pending;
	/** bytes in pending */
	size_t pending_len;
	/** its size */
	size_t pending_max;
	/** number of messages in pending */
	int pending_num;
	/** 1 when a response has been verified before (the next ones use
	 * the timers-only variables) */
	int later;
};

/**
 * Make a key from the config's words.
 * @param k: filled in.
 * @param name: key name, presentation format.
 * @param alg: "hmac-sha1", "hmac-sha256" or "hmac-sha512".
 * @param secret: base64.
 * @return 0, or -1 on a bad name, algorithm or secret.
 */
int xfr_tsig_key_init(struct xfr_tsig_key *k, const char *name,
	const char *alg, const char *secret);

/**
 * Sign a request: append the TSIG record to pkt and count it in ARCOUNT.
 * @param st: the state; st->key set; its MAC is set for the response.
 * @param pkt: the message; room for max bytes.
 * @param len: in: its length; out: with the TSIG.
 * @param now: time signed (seconds since 1970).
 * @return 0, or -1 when there is no room.
 */
int xfr_tsig_sign(struct xfr_tsig_state *st, uint8_t *pkt, size_t *len,
	size_t max, uint64_t now);

/**
 * Verify one message of a response (the first, or a later one of a
 * multi-message transfer); removes the TSIG record from pkt when present.
 * @param st: the state, after xfr_tsig_sign of the request.
 * @param pkt: the message (modified: TSIG removed, ARCOUNT lowered).
 * @param len: in/out its length.
 * @param now: the local time, for the fudge check.
 * @param err: a reason on failure.
 * @return 1 when verified, 0 when the message carries no TSIG (allowed
 *	for a later message, and folded into the next MAC), -1 when it
 *	fails (bad MAC, bad time, wrong key, TSIG error from the server, or
 *	an unsigned first message or too many unsigned ones).
 */
int xfr_tsig_verify(struct xfr_tsig_state *st, uint8_t *pkt, size_t *len,
	uint64_t now, const char **err);

/** Free what a state holds (not the key). */
void xfr_tsig_state_clear(struct xfr_tsig_state *st);

/** one primary of a task */
struct xfr_primary {
	/** address and port */
	struct netaddr addr;
	/** key to sign with, or NULL (copied by xfr_task_create) */
	const struct xfr_tsig_key *key;
};

/** one IXFR difference sequence: from_serial -> to_serial */
struct xfr_diff {
	/** serial before */
	uint32_t from;
	/** serial after */
	uint32_t to;
	/** RRs deleted (the old SOA first) */
	ldns_rr_list *del;
	/** RRs added (the new SOA first) */
	ldns_rr_list *add;
};

/** what a transfer gave */
enum xfr_kind {
	/** the whole zone (AXFR, or a full zone in an IXFR reply) */
	XFR_FULL = 0,
	/** differences from the serial the task had */
	XFR_INCR,
	/** no success for the SOA expire time: drop the data */
	XFR_EXPIRED
};

/** a transfer result, handed to the callback */
struct xfr_result {
	/** which */
	enum xfr_kind kind;
	/** the new serial */
	uint32_t serial;
	/** XFR_FULL: every RR of the zone (SOA first, once) */
	ldns_rr_list *full;
	/** XFR_INCR: the sequences, in order */
	struct xfr_diff *diffs;
	/** how many */
	size_t num_diffs;
	/** the primary that gave it, as text */
	char from[NETADDR_STRLEN];
	/** 1 when it came over IXFR */
	int ixfr;
};

/**
 * Called on the transfer thread with a result.
 * @return 0 when the zone was taken (the task keeps the new serial and
 *	SOA timers), or -1 when the owner refused it (e.g. a bad ZONEMD):
 *	the next primary is tried, then the retry timer runs.
 */
typedef int (*xfr_cb_type)(void *arg, struct xfr_result *res);

/**
 * Apply the differences of an incremental result to a zone.
 * @param zone: the RRs of the zone at the first diff's from serial (not
 *	changed), its SOA anywhere in the list.
 * @param res: an XFR_INCR result.
 * @param err: a reason on failure.
 * @return the new zone's RRs (a new list; the SOA where it was), or NULL
 *	when a difference does not apply (its from serial is not the zone's, or it
 *	deletes an RR the zone does not have). The order is kept, as
 *	Unbound keeps it in the zone file it writes: the remaining RRs in
 *	theirs, the additions after them; the RRSIGs of an RRset whose last
 *	record went move to the end (Unbound's RRSIG RRset of the name).
 */
ldns_rr_list *xfr_apply(const ldns_rr_list *zone, const struct xfr_result *res,
	const char **err);

/**
 * Parse a transfer reply stream (the messages, in order) into a result;
 * split out of the network code for tests.
 * @param zone: the zone name.
 * @param have: 1 when the asker had serial.
 * @param serial: the serial asked with.
 * @param msgs: the messages (ldns_pkt), n of them.
 * @param res: filled in (free with xfr_result_clear).
 * @param uptodate: set to 1 when the reply says the zone is current.
 * @param err: reason on failure.
 * @return 0 when the stream is complete and well formed, 1 when more
 *	messages are needed, -1 when it is malformed.
 */
int xfr_parse_stream(const ldns_rdf *zone, int have, uint32_t serial,
	ldns_pkt **msgs, size_t n, struct xfr_result *res, int *uptodate,
	const char **err);

/** Free the RR lists of a result and zero it. */
void xfr_result_clear(struct xfr_result *res);

/**
 * The transport of the transfers: how a task reaches a primary and reads
 * the time. This is the seam between the transfer logic (which query to
 * send, TSIG, the reply stream, the SOA timers) and the network: the
 * daemon uses the real one (xfr_service_create: TCP sockets with poll
 * deadlines and time(NULL), on the service's own thread), a test or the
 * replay runner gives its own fake network and clock
 * (xfr_service_create_transport) and runs what is due from its own loop
 * (xfr_service_run_due), with no thread and no socket. One exchange is
 * open, then send (the request), then recv until the transfer is whole,
 * then close; every call may block (the real one up to XFR_TIMEOUT_MS).
 */
struct xfr_transport {
	/**
	 * Open an exchange with a primary (a TCP connection).
	 * @param ctx: the transport's ctx.
	 * @param addr: the primary's address and port.
	 * @param stop: the service's stop flag (a real wait ends when set).
	 * @param why: the reason on failure; whylen its size.
	 * @return a handle, or NULL.
	 */
	void *(*open)(void *ctx, const struct netaddr *addr,
		volatile int *stop, char *why, size_t whylen);
	/** Send one DNS message (no TCP length prefix). @return 0 or -1. */
	int (*send)(void *conn, const uint8_t *msg, size_t len);
	/**
	 * Receive the next DNS message of the reply (no length prefix).
	 * @param buf: room for max bytes (65535).
	 * @return its length, or -1 on a timeout, a close or an error.
	 */
	int (*recv)(void *conn, uint8_t *buf, size_t max);
	/** End an exchange and free the handle. */
	void (*close)(void *conn);
	/** @return the time, seconds since 1970 (timers, TSIG). */
	time_t (*now)(void *ctx);
	/** the argument of open and now */
	void *ctx;
};

/** Create the service (no thread yet) on the real transport.
 * @return it or NULL. */
struct xfr_service *xfr_service_create(void);

/**
 * Create the service on another transport (see struct xfr_transport).
 * @param tp: copied; its ctx must live as long as the service.
 * @return it or NULL.
 */
struct xfr_service *xfr_service_create_transport(
	const struct xfr_transport *tp);

/**
 * Move a service that is not started yet onto another transport (see
 * struct xfr_transport): the times of its tasks and jobs keep their
 * distance from now on the new clock. For a service its owner created
 * (auth zones) that a test or the replay runner then drives.
 * @param tp: copied; its ctx must live as long as the service.
 */
void xfr_service_set_transport(struct xfr_service *xs,
	const struct xfr_transport *tp);

/**
 * Run, on the caller's thread, every job and task due at the transport's
 * time (woken tasks too), until none is. For a service whose thread is
 * not started (a test, the replay runner); does nothing when it is.
 * @return how many jobs and tasks ran.
 */
int xfr_service_run_due(struct xfr_service *xs);

/**
 * As xfr_service_run_due, only the tasks woken (xfr_task_notify), none
 * whose time came and no job: what Unbound starts at once rather than on
 * a timer (the replay runner, between the timers of its steps).
 * @return how many tasks ran.
 */
int xfr_service_run_woken(struct xfr_service *xs);

/** Start the thread. @return 0 or -1. */
int xfr_service_start(struct xfr_service *xs);

/** Stop the thread (a transfer in progress is abandoned at its next
 * wait), free every task. NULL is allowed. */
void xfr_service_delete(struct xfr_service *xs);

/**
 * Add a task. It runs at once (if the service runs) unless
 * xfr_task_set_serial says the zone is fresh.
 * @param xs: the service.
 * @param zone: zone name, presentation format.
 * @param primaries: n primaries (copied; keys are pointers the caller
 *	keeps alive as long as the service).
 * @param cb: the callback; arg: its argument.
 * @return the task (owned by the service) or NULL.
 */
struct xfr_task *xfr_task_create(struct xfr_service *xs, const char *zone,
	const struct xfr_primary *primaries, size_t n, xfr_cb_type cb,
	void *arg);

/**
 * Give a task url: sources, tried in order when no primary answers (or
 * the task has none): at once, and at every SOA refresh. Call before the
 * service starts.
 * @param t: the task.
 * @param urls: n URLs (copied).
 * @param ca_bundle: PEM file of the CA certificates https servers are
 *	verified against (tls-cert-bundle), or NULL or "" for the system
 *	store.
 * @param why: the reason on failure; whylen its size.
 * @return 0, or -1 (out of memory, a CA file that does not load).
 */
int xfr_task_set_urls(struct xfr_task *t, const struct config_url *urls,
	size_t n, const char *ca_bundle, char *why, size_t whylen);

/**
 * Give a task one more primary (an address found for a primary given by
 * host name): call it on the transfer thread (a job, xfr_service_post)
 * or before the service starts. A task that had no source yet and no
 * data checks the new one at once (at the next run).
 * @param p: the primary (copied; its key lives as long as the service);
 *	one the task has already is not added again.
 * @return 0, or -1 (out of memory).
 */
int xfr_task_add_primary(struct xfr_task *t, const struct xfr_primary *p);

/** @return the service's clock (its transport's: time(NULL) for the real
 * one), for xfr_service_post_at */
time_t xfr_service_now(struct xfr_service *xs);

/**
 * Tell a task the serial and SOA timers of data it has (read from a zone
 * file): it checks after refresh seconds instead of at once.
 * @param age: seconds since the data was fresh (the file's age).
 */
void xfr_task_set_serial(struct xfr_task *t, uint32_t serial,
	uint32_t refresh, uint32_t retry, uint32_t expire, time_t age);

/**
 * Wake a task now (NOTIFY, or a control command). Safe from any thread.
 * @param serial: the serial the NOTIFY carried, or -1: when it is not
 *	newer than the task's, the check is still made (cheap: an IXFR
 *	with our serial is answered with the SOA alone).
 * @param full: 1 to fetch with AXFR, ignoring the serial.
 */
void xfr_task_notify(struct xfr_task *t, int64_t serial, int full);

/**
 * The task's state, one line: serial, last result, next check.
 * @return buf.
 */
char *xfr_task_status(struct xfr_task *t, char *buf, size_t len);

/** @return number of successful transfers of the task so far */
uint64_t xfr_task_count(struct xfr_task *t);

/**
 * After the owner took a zone (the callback returned 0) and later found
 * it bad (a check finished off the transfer thread): go back to the
 * serial it still has and try again at the SOA retry timer, with AXFR.
 * @param have: 1 when the owner still has data, with serial.
 */
void xfr_task_retry(struct xfr_task *t, int have, uint32_t serial);

/**
 * Run a job on the transfer thread (a handoff from a worker: the worker
 * never waits, the job runs between transfers). Safe from any thread.
 * A job posted before the thread starts runs once it does; a build
 * without threads runs it at once, on the caller's thread.
 * @param fn: the job; arg: its argument (must live as long as the
 *	service; jobs still queued when it is deleted are dropped).
 * @return 0, or -1 (out of memory).
 */
int xfr_service_post(struct xfr_service *xs, void (*fn)(void *),
	void *arg);

/**
 * As xfr_service_post, to run at (or after) a time: a retry later. A
 * build without threads drops it (returns -1).
 * @param when: time(NULL) at which it runs.
 */
int xfr_service_post_at(struct xfr_service *xs, void (*fn)(void *),
	void *arg, time_t when);

/** per-transfer time limit, ms (connect, every read) */
#define XFR_TIMEOUT_MS 5000

#endif /* SERVICES_XFR_H */
