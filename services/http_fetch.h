/*
 * services/http_fetch.h - a small HTTP/1.1 client over TCP or TLS, for
 * any download the daemon makes (today the url: sources of auth zones and
 * RPZ zones, fetched by the zone transfer client, services/xfr.c).
 *
 * Design: one download is one blocking call on the caller's own thread,
 * never on a worker: GET with "Connection: close", the whole response
 * read into memory (bounded by the caller's limit), the body returned
 * once the status is 200 and its framing (Content-Length, chunked, or
 * the end of the connection) is whole. https peers are verified against
 * a CA bundle or the system store, and against the URL's host (name or
 * address). Deadlines are per read or write and for the whole download;
 * a stop flag the caller sets ends a download early. Nothing is cached
 * or kept between calls but the TLS context, which the caller owns.
 */
#ifndef SERVICES_HTTP_FETCH_H
#define SERVICES_HTTP_FETCH_H
#include <stddef.h>
#include <stdint.h>
#include <openssl/ssl.h>
struct config_url;

/**
 * A TLS context for downloads: peers verified against the bundle or,
 * without one, the system store; TLS 1.2 at least.
 * @param bundle: a PEM file of CA certificates, or NULL or "" for the
 *	system store.
 * @param why: the reason on failure; whylen its size.
 * @return the context (the caller frees it with SSL_CTX_free), or NULL.
 */
SSL_CTX *http_fetch_tls_ctx(const char *bundle, char *why, size_t whylen);

/**
 * Fetch a URL with GET (HTTP/1.1, Connection: close) and return the body
 * of a 200 reply. Blocks the calling thread.
 * @param u: the URL.
 * @param ctx: the TLS context (https, from http_fetch_tls_ctx), or NULL
 *	for http.
 * @param stop: the caller's stop flag (looked at while waiting), or NULL.
 * @param max_bytes: the largest body accepted.
 * @param body: set to the body (malloced, NUL-terminated, the caller
 *	frees it); blen its length.
 * @param why: the reason on failure; whylen its size.
 * @return 0 or -1.
 */
int http_fetch_get(const struct config_url *u, SSL_CTX *ctx,
	volatile int *stop, size_t max_bytes, uint8_t **body, size_t *blen,
	char *why, size_t whylen);

/**
 * The User-Agent header of every later download (http-user-agent,
 * hide-http-user-agent). Safe while a download runs on another thread.
 * @param ua: the header's value; NULL or "" for "petrel/VERSION".
 * @param hide: 1 to send no User-Agent header at all.
 */
void http_fetch_set_user_agent(const char *ua, int hide);

#endif /* SERVICES_HTTP_FETCH_H */
