/*
 * util/netevent/tls.h - TLS (OpenSSL 3) for DNS streams: contexts, and the
 * non-blocking handshake, read and write steps the event loop drives.
 *
 * Nothing here blocks or waits. Every step returns what it needs next:
 * TLS_IO_DONE (the step completed, or moved some bytes), TLS_IO_WANT_READ
 * or TLS_IO_WANT_WRITE (call again when the socket is readable or
 * writable), TLS_IO_CLOSED (the peer closed) or TLS_IO_FAIL (a protocol or
 * certificate error; the connection is unusable). The owner of the socket
 * (util/netevent/tcp_out.c for upstream queries) sets its interest in the
 * event loop from that answer, so a slow peer never holds up anything else.
 *
 * Client side (upstream servers, RFC 7858 strict profile): the context
 * trusts tls-cert-bundle and/or the system store, requires TLS 1.2 or
 * later, and every connection verifies the certificate chain and the
 * server's identity: the auth name (forward-addr: ip@port#name), sent as
 * SNI too, or without a name the IP address (iPAddress subjectAltName).
 * There is no opportunistic mode: a failure is TLS_IO_FAIL, never clear
 * text.
 *
 * Server side (DNS over TLS to clients, RFC 7858): tls-service-pem (the
 * chain) and tls-service-key, TLS 1.2 and 1.3, tls-ciphers (TLS 1.2) and
 * tls-ciphersuites (TLS 1.3) when given, ALPN "dot" selected when the
 * client offers it (a client that offers only other protocols is refused,
 * RFC 7301), no renegotiation. The TCP service (comm_tcp.c) drives the
 * handshake from its event callback, with its idle timer as the
 * handshake timeout, so a client that stalls mid-handshake holds one
 * connection slot and nothing else.
 *
 * Ownership: contexts are reference counted by OpenSSL; tls_ctx_free drops
 * the caller's reference. An SSL made by tls_client_new belongs to the
 * caller and is freed with tls_free (the socket is not closed).
 */
#ifndef UTIL_NETEVENT_TLS_H
#define UTIL_NETEVENT_TLS_H

#include <stddef.h>
#include <stdint.h>

struct ssl_ctx_st;
struct ssl_st;
struct nev_wq;

/** what a TLS step needs next */
enum tls_io {
	/** done (handshake complete; or bytes moved) */
	TLS_IO_DONE = 0,
	/** wait until the socket is readable, then call again */
	TLS_IO_WANT_READ,
	/** wait until the socket is writable, then call again */
	TLS_IO_WANT_WRITE,
	/** the peer closed the connection */
	TLS_IO_CLOSED,
	/** protocol, certificate or socket error */
	TLS_IO_FAIL
};

/**
 * Make a client context for upstream TLS.
 * @param bundle: PEM file of trusted CA certificates, or NULL or "" for
 *	the system's default store.
 * @param system_too: with a bundle, trust the system store as well.
 * @param err: buffer for the reason of a failure.
 * @param errlen: its size.
 * @return the context, or NULL with err set (unreadable bundle, no
 *	certificates in it, out of memory).
 */
struct ssl_ctx_st *tls_client_ctx_create(const char *bundle, int system_too,
	char *err, size_t errlen);

/**
 * Make a server context for DNS over TLS.
 * @param key: PEM private key file (tls-service-key).
 * @param pem: PEM certificate chain file, leaf first (tls-service-pem).
 * @param ciphers: TLS 1.2 cipher list, or NULL/"" for OpenSSL's default.
 * @param ciphersuites: TLS 1.3 suites, or NULL/"" for the default.
 * @param err: buffer for the reason of a failure (names the file).
 * @param errlen: its size.
 * @return the context, or NULL with err set.
 */
struct ssl_ctx_st *tls_server_ctx_create(const char *key, const char *pem,
	const char *ciphers, const char *ciphersuites, char *err,
	size_t errlen);

/**
 * tls-protocols: the TLS versions a server context accepts.
 * @param ctx: a context from tls_server_ctx_create.
 * @param protocols: words "TLSv1.2" and "TLSv1.3", separated by spaces;
 *	NULL or "" keeps both. TLS before 1.2 is refused (an error).
 * @param err: the reason on failure; errlen its size.
 * @return 0, or -1 with err set (the context is unchanged).
 */
int tls_ctx_set_protocols(struct ssl_ctx_st *ctx, const char *protocols,
	char *err, size_t errlen);

/**
 * Make a server context (from tls_server_ctx_create) select ALPN "h2"
 * instead of "dot", for DNS over HTTPS; a client that offers ALPN
 * without "h2" is refused.
 */
void tls_server_ctx_alpn_h2(struct ssl_ctx_st *ctx);

/**
 * Make the server side of an accepted connection.
 * @return the SSL (owned by the caller, tls_free), or NULL (logged at
 *	verbose level).
 */
struct ssl_st *tls_server_new(struct ssl_ctx_st *ctx, int fd);

/** @return 1 if decrypted bytes wait inside the TLS layer (the socket may
 * not become readable again for them), else 0 */
int tls_pending(struct ssl_st *ssl);

/**
 * tls_read in read(2)'s terms, for the TCP service's framing loop.
 * @return bytes read (> 0); 0 when the peer closed; -1 with errno EAGAIN
 *	(call again when readable) or EIO (TLS error).
 */
long tls_read_sys(struct ssl_st *ssl, uint8_t *buf, size_t len);

/**
 * tls_wq_write in nev_wq_write's terms.
 * @return 0 (all written, or it would block), -1 with errno set (EIO,
 *	EPIPE) when the connection failed.
 */
int tls_wq_write_sys(struct ssl_st *ssl, struct nev_wq *q, uint64_t *done);

/** Drop a reference to a context. NULL is allowed. */
void tls_ctx_free(struct ssl_ctx_st *ctx);

/**
 * Make the client side of a connection on a socket (connected or still
 * connecting).
 * @param ctx: from tls_client_ctx_create.
 * @param fd: the TCP socket (not owned).
 * @param auth_name: the name the certificate must carry (also sent as SNI
 *	when use_sni), or NULL or "" to verify ip instead.
 * @param ip: the server's address as text, checked when there is no name.
 * @param use_sni: send auth_name as SNI.
 * @return the SSL, or NULL (logged).
 */
struct ssl_st *tls_client_new(struct ssl_ctx_st *ctx, int fd,
	const char *auth_name, const char *ip, int use_sni);

/** Offer ALPN "h2" on a client connection (forwarding over DNS over
 * HTTPS). @return 0 or -1 */
int tls_client_alpn_h2(struct ssl_st *ssl);

/** Free a connection's TLS state (no close_notify wait; not the socket).
 * NULL is allowed. */
void tls_free(struct ssl_st *ssl);

/**
 * Advance the handshake.
 * @return TLS_IO_DONE when complete, WANT_READ/WANT_WRITE, or
 *	CLOSED/FAIL (tls_fail_reason says why).
 */
enum tls_io tls_handshake(struct ssl_st *ssl);

/**
 * Read decrypted bytes.
 * @param got: set to the bytes read (TLS_IO_DONE only; > 0).
 * @return DONE, WANT_READ (no more for now), WANT_WRITE, CLOSED or FAIL.
 */
enum tls_io tls_read(struct ssl_st *ssl, uint8_t *buf, size_t len,
	size_t *got);

/**
 * Write as much of a framed message queue as the connection takes.
 * @param done: incremented for every message written completely.
 * @return DONE (queue empty), WANT_WRITE/WANT_READ (call again then),
 *	CLOSED or FAIL.
 */
enum tls_io tls_wq_write(struct ssl_st *ssl, struct nev_wq *q,
	uint64_t *done);

/**
 * Why the last step failed, for a log line: the certificate verification
 * result when that failed, else OpenSSL's error queue (which is cleared).
 * @return buf.
 */
const char *tls_fail_reason(struct ssl_st *ssl, char *buf, size_t len);

/** @return 1 if the failure was the certificate (chain or name), else 0 */
int tls_fail_was_cert(struct ssl_st *ssl);

/**
 * Session resumption with configured keys (tls-session-ticket-keys):
 * each file holds 80 random bytes (16 key name, 32 HMAC-SHA256 key, 32
 * AES-256 key, as Unbound's); the first key encrypts new tickets, every
 * key decrypts (a ticket of an older key is renewed with the first), so
 * keys rotate by putting a new file first. Servers that share the files
 * resume each other's sessions, also across restarts.
 * @param ctx: a server context.
 * @param files: the key files.
 * @param n: how many (0: OpenSSL's own random key).
 * @return 0, or -1 with err set (unreadable, not 80 bytes).
 */
int tls_server_ctx_ticket_keys(struct ssl_ctx_st *ctx,
	const char *const *files, int n, char *err, size_t errlen);

/** @return 1 if the handshake resumed a session, else 0 */
int tls_session_resumed(struct ssl_st *ssl);

/**
 * The first DNS name (not a wildcard) in the subjectAltName of the first
 * certificate of a PEM file, for DDR's target name.
 * @return 0 with the name in buf, or -1 (unreadable, no such name).
 */
int tls_cert_dns_name(const char *pemfile, char *buf, size_t len);

#endif /* UTIL_NETEVENT_TLS_H */
