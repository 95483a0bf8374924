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
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/evp.h>
#include <openssl/core_names.h>

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

/** ALPN: choose "dot" when the client offers it (RFC 7858 section 3.2 as
 * updated by the IANA registration); a client that offers ALPN without
 * "dot" gets no_application_protocol; with a non-NULL arg (DNS over
 * HTTPS, tls_server_ctx_alpn_h2) the same for "h2" (RFC 8484 section 5.2
 * asks for HTTP/2) */
static int
alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
	const unsigned char *in, unsigned int inlen, void *arg)
{
	static const unsigned char dot[] = { 3, 'd', 'o', 't' };
	static const unsigned char h2[] = { 2, 'h', '2' };
	unsigned char *sel = NULL;
	int is_h2 = arg != NULL;
	(void)ssl;
	if(SSL_select_next_proto(&sel, outlen, is_h2 ? h2 : dot,
		is_h2 ? sizeof(h2) : sizeof(dot), in, inlen)
		!= OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_ALERT_FATAL;
	*out = sel;
	return SSL_TLSEXT_ERR_OK;
}

int
tls_ctx_set_protocols(SSL_CTX *ctx, const char *protocols, char *err,
	size_t errlen)
{
	const char *p = protocols ? protocols : "";
	int lo = 0, hi = 0;
	while(*p) {
		size_t n;
		int v;
		while(*p == ' ' || *p == '\t' || *p == ',')
			p++;
		n = strcspn(p, " \t,");
		if(n == 0)
			break;
		if(n == 7 && strncmp(p, "TLSv1.2", 7) == 0)
			v = TLS1_2_VERSION;
		else if(n == 7 && strncmp(p, "TLSv1.3", 7) == 0)
			v = TLS1_3_VERSION;
		else {
			snprintf(err, errlen, "tls-protocols: '%.*s' is not "
				"TLSv1.2 or TLSv1.3 (petrel offers no older "
				"TLS)", (int)(n > 32 ? 32 : n), p);
			return -1;
		}
		if(!lo || v < lo)
			lo = v;
		if(v > hi)
			hi = v;
		p += n;
	}
	if(!lo)
		return 0;
	if(!SSL_CTX_set_min_proto_version(ctx, lo) ||
		!SSL_CTX_set_max_proto_version(ctx, hi)) {
		snprintf(err, errlen, "tls-protocols: this OpenSSL cannot "
			"limit the versions to '%s'", protocols);
		return -1;
	}
	return 0;
}

SSL_CTX *
tls_server_ctx_create(const char *key, const char *pem, const char *ciphers,
	const char *ciphersuites, char *err, size_t errlen)
{
	char eb[256];
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if(!ctx) {
		snprintf(err, errlen, "SSL_CTX_new: %s", err_text(eb,
			sizeof(eb)));
		return NULL;
	}
	if(!SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION))
		goto fail_ssl;
	SSL_CTX_set_options(ctx, SSL_OP_NO_COMPRESSION |
		SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF |
		SSL_OP_CIPHER_SERVER_PREFERENCE);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
		SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER | SSL_MODE_RELEASE_BUFFERS);
	if(!SSL_CTX_use_certificate_chain_file(ctx, pem)) {
		snprintf(err, errlen, "tls-service-pem '%s': %s", pem,
			err_text(eb, sizeof(eb)));
		goto fail;
	}
	if(!SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM)) {
		snprintf(err, errlen, "tls-service-key '%s': %s", key,
			err_text(eb, sizeof(eb)));
		goto fail;
	}
	if(!SSL_CTX_check_private_key(ctx)) {
		snprintf(err, errlen, "tls-service-key '%s' does not match "
			"the certificate in tls-service-pem '%s'", key, pem);
		goto fail;
	}
	if(ciphers && ciphers[0] && !SSL_CTX_set_cipher_list(ctx, ciphers)) {
		snprintf(err, errlen, "tls-ciphers '%s': no usable cipher",
			ciphers);
		goto fail;
	}
	if(ciphersuites && ciphersuites[0] &&
		!SSL_CTX_set_ciphersuites(ctx, ciphersuites)) {
		snprintf(err, errlen, "tls-ciphersuites '%s': no usable "
			"suite", ciphersuites);
		goto fail;
	}
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	return ctx;
fail_ssl:
	snprintf(err, errlen, "TLS context: %s", err_text(eb, sizeof(eb)));
fail:
	ERR_clear_error();
	SSL_CTX_free(ctx);
	return NULL;
}

int
tls_client_alpn_h2(SSL *ssl)
{
	static const unsigned char h2[] = { 2, 'h', '2' };
	/* SSL_set_alpn_protos returns 0 on success */
	return SSL_set_alpn_protos(ssl, h2, sizeof(h2)) == 0 ? 0 : -1;
}

void
tls_server_ctx_alpn_h2(SSL_CTX *ctx)
{
	/* any non-NULL argument selects "h2" in alpn_select */
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, (void *)ctx);
}

SSL *
tls_server_new(SSL_CTX *ctx, int fd)
{
	char eb[256];
	SSL *ssl = SSL_new(ctx);
	if(!ssl || !SSL_set_fd(ssl, fd)) {
		verbose(VERB_OPS, "tls: new server connection: %s",
			err_text(eb, sizeof(eb)));
		SSL_free(ssl);
		return NULL;
	}
	SSL_set_accept_state(ssl);
	return ssl;
}

int
tls_pending(SSL *ssl)
{
	return SSL_has_pending(ssl) ? 1 : 0;
}

long
tls_read_sys(SSL *ssl, uint8_t *buf, size_t len)
{
	size_t n = 0;
	switch(tls_read(ssl, buf, len, &n)) {
	case TLS_IO_DONE:
		return (long)n;
	case TLS_IO_WANT_READ:
	case TLS_IO_WANT_WRITE:
		errno = EAGAIN;
		return -1;
	case TLS_IO_CLOSED:
		return 0;
	default:
		break;
	}
	ERR_clear_error();
	errno = EIO;
	return -1;
}

int
tls_wq_write_sys(SSL *ssl, struct nev_wq *q, uint64_t *done)
{
	switch(tls_wq_write(ssl, q, done)) {
	case TLS_IO_DONE:
	case TLS_IO_WANT_READ:
	case TLS_IO_WANT_WRITE:
		return 0;
	case TLS_IO_CLOSED:
		errno = EPIPE;
		return -1;
	default:
		break;
	}
	ERR_clear_error();
	errno = EIO;
	return -1;
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
		nev_wq_advance(q, n, done);
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

int
tls_cert_dns_name(const char *pemfile, char *buf, size_t len)
{
	FILE *f = fopen(pemfile, "r");
	X509 *x;
	GENERAL_NAMES *names;
	int i, r = -1;
	if(!f)
		return -1;
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	if(!x) {
		ERR_clear_error();
		return -1;
	}
	names = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	for(i = 0; names && i < sk_GENERAL_NAME_num(names); i++) {
		const GENERAL_NAME *g = sk_GENERAL_NAME_value(names, i);
		const unsigned char *d;
		int n;
		if(g->type != GEN_DNS)
			continue;
		d = ASN1_STRING_get0_data(g->d.dNSName);
		n = ASN1_STRING_length(g->d.dNSName);
		/* a wildcard is no host name */
		if(n <= 0 || (size_t)n >= len || d[0] == '*' ||
			memchr(d, 0, (size_t)n))
			continue;
		memcpy(buf, d, (size_t)n);
		buf[n] = 0;
		r = 0;
		break;
	}
	GENERAL_NAMES_free(names);
	X509_free(x);
	return r;
}

int
tls_session_resumed(SSL *ssl)
{
	return SSL_session_reused(ssl) == 1;
}

/** one session ticket key (tls-session-ticket-keys): an 80-byte file */
struct tls_ticket_key {
	/** the key name, sent in the ticket */
	unsigned char name[16];
	/** the HMAC-SHA256 key */
	unsigned char hmac[32];
	/** the AES-256-CBC key */
	unsigned char aes[32];
};

/** the keys of a context, its ex_data; the first encrypts */
struct tls_ticket_keys {
	/** how many */
	int n;
	/** the keys */
	struct tls_ticket_key k[];
};

/** the ex_data index of the ticket keys, made once */
static int ticket_idx = -1;

/** free a context's keys with the context */
static void
ticket_keys_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx,
	long argl, void *argp)
{
	(void)parent;
	(void)ad;
	(void)idx;
	(void)argl;
	(void)argp;
	if(ptr)
		OPENSSL_cleanse(ptr, sizeof(struct tls_ticket_keys) +
			(size_t)((struct tls_ticket_keys *)ptr)->n *
			sizeof(struct tls_ticket_key));
	free(ptr);
}

/** OpenSSL's ticket callback: encrypt with the first key, decrypt with
 * the one the ticket names (and renew it when that is not the first);
 * an unknown name means a full handshake */
static int
ticket_cb(SSL *ssl, unsigned char name[16], unsigned char iv[16],
	EVP_CIPHER_CTX *ectx, EVP_MAC_CTX *hctx, int enc)
{
	struct tls_ticket_keys *keys = SSL_CTX_get_ex_data(
		SSL_get_SSL_CTX(ssl), ticket_idx);
	const struct tls_ticket_key *k = NULL;
	OSSL_PARAM params[2];
	int i;
	if(!keys || keys->n == 0)
		return -1;
	if(enc) {
		k = &keys->k[0];
		if(RAND_bytes(iv, 16) <= 0)
			return -1;
		memcpy(name, k->name, 16);
		if(!EVP_EncryptInit_ex(ectx, EVP_aes_256_cbc(), NULL, k->aes,
			iv))
			return -1;
	} else {
		for(i = 0; i < keys->n; i++)
			if(memcmp(name, keys->k[i].name, 16) == 0) {
				k = &keys->k[i];
				break;
			}
		if(!k)
			return 0;
		if(!EVP_DecryptInit_ex(ectx, EVP_aes_256_cbc(), NULL, k->aes,
			iv))
			return -1;
	}
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
		(char *)"SHA256", 0);
	params[1] = OSSL_PARAM_construct_end();
	if(!EVP_MAC_init(hctx, k->hmac, sizeof(k->hmac), params))
		return -1;
	return enc || k == &keys->k[0] ? 1 : 2;
}

int
tls_server_ctx_ticket_keys(SSL_CTX *ctx, const char *const *files, int n,
	char *err, size_t errlen)
{
	struct tls_ticket_keys *keys;
	int i;
	if(n <= 0)
		return 0;
	if(ticket_idx == -1)
		ticket_idx = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL,
			ticket_keys_free);
	if(ticket_idx == -1) {
		snprintf(err, errlen, "tls-session-ticket-keys: no ex_data");
		return -1;
	}
	keys = calloc(1, sizeof(*keys) + (size_t)n * sizeof(keys->k[0]));
	if(!keys) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	keys->n = n;
	for(i = 0; i < n; i++) {
		unsigned char b[81];
		size_t got;
		FILE *f = fopen(files[i], "rb");
		if(!f) {
			snprintf(err, errlen, "tls-session-ticket-keys: cannot "
				"read %s: %s", files[i], strerror(errno));
			goto fail;
		}
		got = fread(b, 1, sizeof(b), f);
		fclose(f);
		if(got != 80) {
			snprintf(err, errlen, "tls-session-ticket-keys: %s "
				"holds %s bytes, expected 80 (openssl rand 80 "
				"> file)", files[i], got > 80 ? "more than 80" :
				"fewer");
			OPENSSL_cleanse(b, sizeof(b));
			goto fail;
		}
		memcpy(keys->k[i].name, b, 16);
		memcpy(keys->k[i].hmac, b + 16, 32);
		memcpy(keys->k[i].aes, b + 48, 32);
		OPENSSL_cleanse(b, sizeof(b));
	}
	if(!SSL_CTX_set_ex_data(ctx, ticket_idx, keys)) {
		snprintf(err, errlen, "tls-session-ticket-keys: ex_data");
		goto fail;
	}
	if(SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_cb) != 1) {
		snprintf(err, errlen, "tls-session-ticket-keys: callback");
		return -1; /* the keys belong to the context now */
	}
	return 0;
fail:
	OPENSSL_cleanse(keys, sizeof(*keys) + (size_t)n * sizeof(keys->k[0]));
	free(keys);
	return -1;
}
