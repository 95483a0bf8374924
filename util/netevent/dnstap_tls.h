/*
 * util/netevent/dnstap_tls.h - a TLS transport for libfstrm's Frame Streams writer:
 * dnstap to a dnstap-ip collector with dnstap-tls: yes.
 *
 * libfstrm lets a writer run over any transport given as a struct
 * fstrm_rdwr (open, close, read, write, destroy callbacks). This one is a
 * TCP connection with OpenSSL on it. All its callbacks run in the writer's
 * own I/O thread (util/dnstap.c), never in a worker, so they block on the
 * socket: a worker only ever puts messages on the bounded queue, and when
 * the collector is slow or away the queue fills and messages are dropped
 * and counted, as with the other transports.
 *
 * Because the rdwr has a read callback, libfstrm runs the bidirectional
 * Frame Streams handshake over it (READY, then ACCEPT from the collector,
 * then START; STOP and FINISH at the end): the control frames are made
 * and checked by libfstrm above these callbacks, which only move bytes.
 *
 * The context (CA store, client certificate) is made once by the daemon
 * before it drops privileges and chroots (dt_tls_ctx_create), like the
 * other TLS contexts; each writer takes a reference to it.
 *
 * Layering: util/dnstap.c sits below util/netevent/ (where the TLS code
 * is), so it does not call this file; the worker hands
 * dt_tls_writer_create and the context to dt_io_create, which calls it
 * to make the writer (a dt_writer_maker_func, util/dnstap.h).
 *
 * Security: the collector's chain must verify against
 * dnstap-tls-cert-bundle (or the system store when that is empty), TLS 1.2
 * or later, and the certificate must name dnstap-tls-server-name (also
 * sent as SNI) or, without a name, carry the dnstap-ip address as an
 * iPAddress subjectAltName. With dnstap-tls-client-key-file and
 * dnstap-tls-client-cert-file the writer shows that client certificate.
 * A failed connect, handshake or verification closes the connection and
 * is logged with its reason (the same reason at most once a minute per
 * writer); libfstrm's I/O thread tries again after its reopen interval.
 * Nothing is ever sent in clear text.
 *
 * Connecting and each socket read or write time out after
 * DT_TLS_TIMEOUT_SEC seconds, so a collector that stalls costs the I/O
 * thread a reconnection, and petrel's exit waits at most that long for it.
 */
#ifndef UTIL_NETEVENT_DNSTAP_TLS_H
#define UTIL_NETEVENT_DNSTAP_TLS_H

#include <stddef.h>

struct config_file;
struct fstrm_writer;
struct fstrm_writer_options;
struct ssl_ctx_st;

/** seconds a connect, a read or a write may take before the connection
 * is given up (and opened again later) */
#define DT_TLS_TIMEOUT_SEC 5

/**
 * Whether cfg asks for dnstap over TLS (dnstap-enable, dnstap-ip and
 * dnstap-tls all set), so a context is needed.
 * @param cfg: the config.
 * @return 1 or 0.
 */
int dt_tls_wanted(const struct config_file *cfg);

/**
 * Make the client context for dnstap over TLS: the CA bundle
 * (dnstap-tls-cert-bundle, or the system store) and the client
 * certificate and key when given. The daemon makes it with its sockets,
 * before it drops privileges (the key may be readable by root only), and
 * shares it between the workers' writers.
 * @param cfg: the config (dt_tls_wanted).
 * @param err: why it failed (names the file); errlen its size.
 * @return the context (free it with tls_ctx_free), or NULL with err set:
 *	an unreadable bundle, key or certificate, a key that does not match
 *	the certificate, out of memory.
 */
struct ssl_ctx_st *dt_tls_ctx_create(const struct config_file *cfg,
	char *err, size_t errlen);

/**
 * Make a Frame Streams writer that writes to the dnstap-ip collector over
 * TLS with the context ctx; it connects later, in the I/O thread. A
 * dt_writer_maker_func (util/dnstap.h).
 * @param cfg: the config; dnstap_ip is set and parses (checked at load),
 *	and dnstap_tls_server_name is copied.
 * @param ctx: the SSL_CTX from dt_tls_ctx_create; the writer takes a
 *	reference of its own, the caller keeps its own.
 * @param wopt: the writer options (content type), kept by the caller.
 * @param err: why it failed; errlen its size.
 * @return the writer (the caller owns it; fstrm_writer_destroy frees the
 *	transport too), or NULL with err set.
 */
struct fstrm_writer *dt_tls_writer_create(const struct config_file *cfg,
	void *ctx, const struct fstrm_writer_options *wopt, char *err,
	size_t errlen);

#endif /* UTIL_NETEVENT_DNSTAP_TLS_H */
