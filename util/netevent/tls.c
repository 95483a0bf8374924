/*
 * util/netevent/tls.c - TLS contexts and non-blocking steps (see tls.h).
 *
 * Each step maps OpenSSL's SSL_get_error() onto enum tls_io, so that the
 * callers deal with one small vocabulary. OpenSSL's per-thread error queue
 * is cleared before every step, so a stale error from another connection
 * of the same worker never turns a WANT into a FAIL.
 */
#include "config.h"
#include "util/netevent/tls.h"
#include "util/netevent/netevent_int.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>

/** the last OpenSSL error as text into buf */
static const char *
err_text(char *buf, size_t len)
{
	unsigned long e = ERR_peek_last_error();
	if(!e) {
		snprintf(buf, len, "unknown error");
		return buf;
	}
	ERR_error_string_n(e, buf, len);
	ERR_clear_error();
	return buf;
}

SSL_CTX *
tls_client_ctx_create(const char *bundle, int system_too, char *err,
	size_t errlen)
{
	char eb[256];
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if(!ctx) {
		snprintf(err, errlen, "SSL_CTX_new: %s", err_text(eb,
			sizeof(eb)));
		return NULL;
	}
	if(!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION))
		goto fail_ssl;
	SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION |
		SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
		SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if(bundle && bundle[0]) {
		if(!SSL_CTX_load_verify_locations(ctx, bundle, NULL)) {
			snprintf(err, errlen, "tls-cert-bundle '%s': cannot "
				"load CA certificates: %s", bundle,
				err_text(eb, sizeof(eb)));
			SSL_CTX_free(ctx);
			return NULL;
		}
		if(system_too && !SSL_CTX_set_default_verify_paths(ctx))
			goto fail_ssl;
	} else if(!SSL_CTX_set_default_verify_paths(ctx))
		goto fail_ssl;
	return ctx;
fail_ssl:
	snprintf(err, errlen, "TLS context: %s", err_text(eb, sizeof(eb)));
	SSL_CTX_free(ctx);
	return NULL;
}

void
tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

SSL *
tls_client_new(SSL_CTX *ctx, int fd, const char *auth_name, const char *ip,
	int use_sni)
{
	char eb[256];
	SSL *ssl = SSL_new(ctx);
	if(!ssl) {
		log_err("tls: SSL_new: %s", err_text(eb, sizeof(eb)));
		return NULL;
	}
	SSL_set_connect_state(ssl);
	if(!SSL_set_fd(ssl, fd))
		goto fail;
	if(auth_name && auth_name[0]) {
		/* the certificate must name the server (RFC 6125), without
		 * partial wildcards */
		SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		if(!SSL_set1_host(ssl, auth_name))
			goto fail;
		if(use_sni && !SSL_set_tlsext_host_name(ssl, auth_name))
			goto fail;
	} else {
		X509_VERIFY_PARAM *vp = SSL_get0_param(ssl);
		if(!ip || !X509_VERIFY_PARAM_set1_ip_asc(vp, ip))
			goto fail;
	}
	return ssl;
fail:
	log_err("tls: cannot set up the connection to %s%s%s: %s", ip ? ip : "",
		auth_name && auth_name[0] ? "#" : "", auth_name ? auth_name : "",
		err_text(eb, sizeof(eb)));
	SSL_free(ssl);
	return NULL;
}

void
tls_free(SSL *ssl)
{
	if(!ssl)
		return;
	/* one close_notify if the socket takes it; never wait for the
	 * peer's */
	ERR_clear_error();
	if(SSL_is_init_finished(ssl))
		(void)SSL_shutdown(ssl);
	ERR_clear_error();
	SSL_free(ssl);
}

/** map the result r of an SSL call */
static enum tls_io
map_result(SSL *ssl, int r)
{
	switch(SSL_get_error(ssl, r)) {
	case SSL_ERROR_WANT_READ:
		return TLS_IO_WANT_READ;
	case SSL_ERROR_WANT_WRITE:
		return TLS_IO_WANT_WRITE;
	case SSL_ERROR_ZERO_RETURN:
		return TLS_IO_CLOSED;
	case SSL_ERROR_SYSCALL:
		if(errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return TLS_IO_WANT_READ;
		if(ERR_peek_error() == 0 && (errno == 0 || errno == EPIPE ||
			errno == ECONNRESET))
			return TLS_IO_CLOSED;
		return TLS_IO_FAIL;
	default:
		break;
	}
	return TLS_IO_FAIL;
}

enum tls_io
tls_handshake(SSL *ssl)
{
	int r;
	ERR_clear_error();
	errno = 0;
	r = SSL_do_handshake(ssl);
	if(r == 1)
		return TLS_IO_DONE;
	return map_result(ssl, r);
}

enum tls_io
tls_read(SSL *ssl, uint8_t *buf, size_t len, size_t *got)
{
	size_t n = 0;
	ERR_clear_error();
	errno = 0;
	if(SSL_read_ex(ssl, buf, len, &n) == 1) {
		*got = n;
		return TLS_IO_DONE;
	}
	*got = 0;
	return map_result(ssl, 0);
}

enum tls_io
tls_wq_write(SSL *ssl, struct nev_wq *q, uint64_t *done)
{
	while(q->head) {
		struct nev_wq_item *w = q->head;
		size_t n = 0;
		ERR_clear_error();
		errno = 0;
		if(SSL_write_ex(ssl, w->data + w->off, w->len - w->off,
			&n) != 1) {
			enum tls_io st = map_result(ssl, 0);
			return st;
		}
		w->off += n;
		if(w->off < w->len)
			continue;
		q->head = w->next;
		if(!q->head)
			q->tail = NULL;
		q->num--;
		(*done)++;
		free(w);
	}
	return TLS_IO_DONE;
}

int
tls_fail_was_cert(SSL *ssl)
{
	return SSL_get_verify_result(ssl) != X509_V_OK;
}

const char *
tls_fail_reason(SSL *ssl, char *buf, size_t len)
{
	long v = SSL_get_verify_result(ssl);
	if(v != X509_V_OK) {
		snprintf(buf, len, "certificate verify failed: %s",
			X509_verify_cert_error_string(v));
		ERR_clear_error();
		return buf;
	}
	return err_text(buf, len);
}
