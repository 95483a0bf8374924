/*
 * util/netevent/http2.h - DNS over HTTPS (RFC 8484) on HTTP/2 (nghttp2),
 * server side: one h2_session per client connection.
 *
 * The session does no input or output of its own. The TCP service
 * (comm_tcp.c) reads bytes from the socket (through TLS, or in clear
 * for h2c), hands them to h2_session_recv, and after every step drains
 * what HTTP/2 has to say with h2_session_output into the connection's
 * write queue; the event loop writes that queue as the socket allows. So
 * nothing here blocks, and the connection's slot, idle timer and limits
 * are the TCP service's.
 *
 * A request is a DNS query when its path is http-endpoint (else 404), its
 * method GET (the query is the base64url "dns" parameter) or POST (the
 * body, Content-Type application/dns-message, else 415), the query is a
 * DNS message of 12 to 65535 bytes (else 400; a body past 65535 is 413).
 * Other methods get 405. Each query goes to the query callback once, with
 * its stream id; the answer comes back through h2_session_answer, now or
 * later (the stream id is unique on the connection, never reused, so a
 * late answer for a stream the client reset finds no stream and is
 * dropped). The answer is sent as 200, application/dns-message, with
 * Cache-Control max-age the smallest TTL in it (RFC 8484 section 5.1).
 *
 * Bounds. HTTP/2 streams are limited by SETTINGS_MAX_CONCURRENT_STREAMS
 * (http-max-streams), which nghttp2 enforces. Query and answer bytes
 * held are counted in the h2_service shared by the connections of one
 * listening comm_point (one worker's, so no locking): a stream whose
 * query or answer would go past http-query-buffer-size or
 * http-response-buffer-size is reset with REFUSED_STREAM (the client may
 * retry). A stream's buffers are freed when the stream closes, and all
 * of them with the session.
 */
#ifndef UTIL_NETEVENT_HTTP2_H
#define UTIL_NETEVENT_HTTP2_H

#include <stddef.h>
#include <stdint.h>

struct h2_session;

/** the settings and the byte budgets shared by the sessions of one
 * listener; zero-initialise, then fill in the settings */
struct h2_service {
	/** the path of DoH queries, e.g. "/dns-query" (not owned) */
	const char *endpoint;
	/** concurrent streams per connection */
	int max_streams;
	/** most query bytes held at once over all sessions */
	size_t query_max;
	/** most answer bytes held at once over all sessions */
	size_t response_max;
	/** query bytes held now */
	size_t query_used;
	/** answer bytes held now */
	size_t response_used;
	/** counters: DNS queries handed on */
	uint64_t queries;
	/** requests answered with an HTTP error status */
	uint64_t http_errors;
	/** streams refused for want of buffer space */
	uint64_t refused;
};

/**
 * A whole DNS query arrived on a stream.
 * @param arg: the callback argument given at creation.
 * @param stream: the stream id, for h2_session_answer.
 * @param q: the query (held by the session until this returns).
 * @param len: its length (12 .. 65535).
 */
typedef void (*h2_query_cb_type)(void *arg, int32_t stream,
	const uint8_t *q, size_t len);

/**
 * Start the server side of an HTTP/2 connection (the SETTINGS frame is
 * queued for h2_session_output).
 * @param svc: settings and budgets; must outlive the session.
 * @param cb: the query callback.
 * @param arg: its argument.
 * @return the session, or NULL (out of memory).
 */
struct h2_session *h2_session_create(struct h2_service *svc,
	h2_query_cb_type cb, void *arg);

/** Free a session and its streams (budgets given back). NULL allowed. */
void h2_session_free(struct h2_session *s);

/**
 * Feed bytes read from the client. Query callbacks run from inside.
 * @return 0, or -1 when the connection is unusable (a protocol error:
 *	the GOAWAY is queued; drain the output, then close).
 */
int h2_session_recv(struct h2_session *s, const uint8_t *data, size_t len);

/**
 * Answer a stream's query (copied).
 * @return 0, or -1 (the stream is gone, the answer is too large for the
 *	budget: the stream is reset, or out of memory).
 */
int h2_session_answer(struct h2_session *s, int32_t stream,
	const uint8_t *pkt, size_t len);

/**
 * Answer a stream's query with an HTTP error status instead (the query
 * was dropped: malformed, or refused by access control).
 * @return 0, or -1 (the stream is gone or already answered).
 */
int h2_session_error(struct h2_session *s, int32_t stream, int status);

/**
 * Take the bytes HTTP/2 wants to send.
 * @param push: called with consecutive chunks; returns 0, or -1 to stop.
 * @param arg: its argument.
 * @return 0, or -1 (push failed, or a fatal session error).
 */
int h2_session_output(struct h2_session *s,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg);

/** @return 1 while the session wants to go on (neither side has ended
 * it), 0 when the connection can close once the output is written */
int h2_session_alive(struct h2_session *s);

/** @return the number of streams open (queries owed an answer among them) */
int h2_session_streams(struct h2_session *s);

/*
 * Client side (forwarding over DoH): one h2_client per upstream
 * connection. Each query is a POST of application/dns-message to the
 * server's path on its own stream; the reply callback gets the status
 * and, for a 200 of type application/dns-message, the body (at most
 * 65535 bytes; a longer one is an error). Input and output go through
 * the owner as on the server side. Do not call h2_client_output from
 * inside a reply callback (nghttp2 is inside its receive then): the
 * owner drains the output after h2_client_recv returns.
 */
struct h2_client;

/**
 * A stream ended.
 * @param arg: the callback argument.
 * @param stream: the stream id h2_client_query returned.
 * @param status: the HTTP status, 0 when the stream was reset or the
 *	connection ended before a response.
 * @param body: the DNS answer for a 200 of the right type, else NULL.
 * @param len: its length.
 */
typedef void (*h2_reply_cb_type)(void *arg, int32_t stream, int status,
	const uint8_t *body, size_t len);

/**
 * Start the client side of a connection (the preface and SETTINGS are
 * queued for h2_client_output).
 * @return the client, or NULL (out of memory, or built without nghttp2).
 */
struct h2_client *h2_client_create(h2_reply_cb_type cb, void *arg);

/** Free a client; no callbacks. NULL allowed. */
void h2_client_free(struct h2_client *c);

/**
 * Send a DNS query as a POST.
 * @param authority: the :authority (the server's name, or its address).
 * @param path: the :path, e.g. "/dns-query".
 * @param q: the query (copied).
 * @param len: its length.
 * @return the stream id (> 0), or -1.
 */
int32_t h2_client_query(struct h2_client *c, const char *authority,
	const char *path, const uint8_t *q, size_t len);

/** Feed bytes read from the server; reply callbacks run from inside.
 * @return 0, or -1 (a protocol error: the connection is unusable) */
int h2_client_recv(struct h2_client *c, const uint8_t *data, size_t len);

/** Take the bytes to send, as h2_session_output. @return 0 or -1 */
int h2_client_output(struct h2_client *c,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg);

/** @return 1 while the connection can carry new queries (no GOAWAY) */
int h2_client_usable(struct h2_client *c);

/**
 * Decode base64url (RFC 4648 section 5) without padding (trailing '='
 * are accepted and ignored).
 * @return the decoded length, or -1 (a bad character or length, or out
 *	of room in out).
 */
long h2_base64url_decode(const char *in, size_t inlen, uint8_t *out,
	size_t outmax);

/**
 * The freshness of a DNS answer for Cache-Control: the smallest TTL of
 * its records (OPT left out; for an SOA in the authority section, the
 * smaller of its TTL and its MINIMUM).
 * @return seconds, 0 when the message holds no record or is malformed.
 */
uint32_t h2_answer_max_age(const uint8_t *pkt, size_t len);

#endif /* UTIL_NETEVENT_HTTP2_H */
