/*
 * util/netevent/dnstap_tls.c - the TLS transport of the dnstap writer.
 * See util/netevent/dnstap_tls.h for the design: blocking OpenSSL on a TCP socket in
 * libfstrm's I/O thread, the Frame Streams handshake done by libfstrm.
 *
 * libfstrm writes a frame as two iovecs (the 4-byte length, then the
 * data) and many frames per call; written one SSL_write each, every
 * length would be a TLS record of its own. The write callback gathers
 * the iovecs into a buffer of one TLS record's size and writes it when
 * full, so a record carries many frames.
 */
#include "config.h"
#include "util/netevent/dnstap_tls.h"
#include "util/config_file.h"
#include <stdio.h>
#ifdef USE_DNSTAP
#include "util/netaddr.h"
#include "util/netevent/tls.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <time.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <fstrm.h>

/** the gather buffer: the largest TLS record's payload */
#define DT_TLS_BUFSIZE 16384
/** seconds between two log lines with the same failure reason */
#define DT_TLS_LOG_INTERVAL 60
/** seconds between two log lines with different reasons (a collector
 * that fails two ways in turn must not log every reopen either) */
#define DT_TLS_LOG_MIN_INTERVAL 10

/** one writer's TLS connection (lives in the I/O thread) */
struct dt_tls {
	/** the client context: CA store, client certificate */
	SSL_CTX *ctx;
	/** the connection, or NULL when closed */
	SSL *ssl;
	/** its socket, or -1 */
	int fd;
	/** the collector's address */
	struct netaddr addr;
	/** its IP address as text (checked in the certificate without a
	 * server name) */
	char ip[NETADDR_STRLEN];
	/** the collector for the log lines: ip@port#name */
	char where[NETADDR_STRLEN + 300];
	/** dnstap-tls-server-name (malloced), or NULL */
	char *server_name;
	/** the reason of the last failure logged, "" after a success */
	char last_why[256];
	/** when it was logged; 0: nothing logged since the last success */
	time_t last_log;
	/** the TLS handshake is done but the collector has not answered
	 * yet (its ACCEPT): not yet logged as connected */
	int unconfirmed;
	/** failures with that reason not logged since */
	unsigned long quiet;
	/** bytes gathered in buf */
	size_t len;
	/** the gather buffer */
	uint8_t buf[DT_TLS_BUFSIZE];
};

/** log a failure to reach the collector; the same reason again only
 * once in DT_TLS_LOG_INTERVAL seconds, another one once in
 * DT_TLS_LOG_MIN_INTERVAL, with the count of those not logged */
static void
dt_tls_fail(struct dt_tls *t, const char *why)
{
	time_t now = time(NULL);
	char m[sizeof(t->last_why)];
	if(t->unconfirmed) {
		/* with TLS 1.3 the client's handshake is over before the
		 * server has checked the client certificate: a refusal comes
		 * as an alert, or as a reset when the alert is overtaken */
		snprintf(m, sizeof(m), "the collector ended the connection "
			"right after the TLS handshake (does it accept the "
			"client certificate?): %s", why);
		why = m;
	}
	if(t->last_log && ((strcmp(why, t->last_why) == 0 &&
		now - t->last_log < DT_TLS_LOG_INTERVAL) ||
		now - t->last_log < DT_TLS_LOG_MIN_INTERVAL)) {
		t->quiet++;
		return;
	}
	if(t->quiet)
		log_err("dnstap: TLS to %s: %s (and %lu failures more since "
			"the last report)", t->where, why, t->quiet);
	else	log_err("dnstap: TLS to %s: %s", t->where, why);
	snprintf(t->last_why, sizeof(t->last_why), "%s", why);
	t->last_log = now;
	t->quiet = 0;
}

/** drop the connection, if any: a close_notify when it was up */
static void
dt_tls_teardown(struct dt_tls *t)
{
	if(t->ssl) {
		tls_free(t->ssl);
		t->ssl = NULL;
	}
	if(t->fd != -1) {
		close(t->fd);
		t->fd = -1;
	}
	t->len = 0;
}

/** connect the TCP socket, at most DT_TLS_TIMEOUT_SEC; then make it
 * blocking with that timeout on each read and write. @return 0 or -1
 * with why set. */
static int
dt_tls_connect(struct dt_tls *t, char *why, size_t whylen)
{
	struct timeval tv;
	struct pollfd pfd;
	int fl, e = 0;
	socklen_t elen = sizeof(e);
	t->fd = socket(netaddr_family(&t->addr), SOCK_STREAM | SOCK_CLOEXEC |
		SOCK_NONBLOCK, 0);
	if(t->fd == -1) {
		snprintf(why, whylen, "socket: %s", strerror(errno));
		return -1;
	}
	if(connect(t->fd, (struct sockaddr *)&t->addr.addr, t->addr.len) != 0) {
		if(errno != EINPROGRESS) {
			snprintf(why, whylen, "connect: %s", strerror(errno));
			return -1;
		}
		pfd.fd = t->fd;
		pfd.events = POLLOUT;
		pfd.revents = 0;
		if(poll(&pfd, 1, DT_TLS_TIMEOUT_SEC * 1000) != 1) {
			snprintf(why, whylen, "connect: timed out");
			return -1;
		}
		if(getsockopt(t->fd, SOL_SOCKET, SO_ERROR, &e, &elen) != 0)
			e = errno;
		if(e != 0) {
			snprintf(why, whylen, "connect: %s", strerror(e));
			return -1;
		}
	}
	fl = fcntl(t->fd, F_GETFL);
	if(fl == -1 || fcntl(t->fd, F_SETFL, fl & ~O_NONBLOCK) == -1) {
		snprintf(why, whylen, "fcntl: %s", strerror(errno));
		return -1;
	}
	tv.tv_sec = DT_TLS_TIMEOUT_SEC;
	tv.tv_usec = 0;
	if(setsockopt(t->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0 ||
		setsockopt(t->fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) != 0) {
		snprintf(why, whylen, "setsockopt: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/** rdwr open: connect, TLS handshake, certificate checked. libfstrm may
 * call it again on a connection whose Frame Streams handshake failed: it
 * starts anew then. */
static fstrm_res
dt_tls_open(void *obj)
{
	struct dt_tls *t = obj;
	char why[256];
	enum tls_io r;
	dt_tls_teardown(t);
	t->unconfirmed = 0;
	if(dt_tls_connect(t, why, sizeof(why)) != 0)
		goto fail;
	if(!(t->ssl = tls_client_new(t->ctx, t->fd, t->server_name, t->ip,
		1))) {
		snprintf(why, sizeof(why), "cannot set up the TLS connection");
		goto fail;
	}
	if((r = tls_handshake(t->ssl)) != TLS_IO_DONE) {
		char e[200];
		/* a blocking socket wants more only when SO_RCVTIMEO or
		 * SO_SNDTIMEO ran out */
		snprintf(why, sizeof(why), "handshake failed: %s",
			r == TLS_IO_WANT_READ || r == TLS_IO_WANT_WRITE ?
			"timed out" : r == TLS_IO_CLOSED ? "the collector "
			"closed the connection" : tls_fail_reason(t->ssl, e,
			sizeof(e)));
		goto fail;
	}
	/* with TLS 1.3 a collector that refuses the client certificate
	 * says so only after this: connected is logged when it answers */
	t->unconfirmed = 1;
	return fstrm_res_success;
fail:
	dt_tls_fail(t, why);
	dt_tls_teardown(t);
	return fstrm_res_failure;
}

/** rdwr close */
static fstrm_res
dt_tls_close(void *obj)
{
	dt_tls_teardown(obj);
	return fstrm_res_success;
}

/** rdwr read: exactly count bytes (control frames from the collector) */
static fstrm_res
dt_tls_read(void *obj, void *data, size_t count)
{
	struct dt_tls *t = obj;
	uint8_t *p = data;
	while(count > 0) {
		size_t got = 0;
		enum tls_io r;
		if(!t->ssl)
			return fstrm_res_failure;
		r = tls_read(t->ssl, p, count, &got);
		if(r != TLS_IO_DONE) {
			char e[200], m[240];
			snprintf(m, sizeof(m), "reading: %s", r ==
				TLS_IO_CLOSED ? "the collector closed the "
				"connection" : r == TLS_IO_FAIL ?
				tls_fail_reason(t->ssl, e, sizeof(e)) :
				"timed out");
			dt_tls_fail(t, m);
			return fstrm_res_failure;
		}
		p += got;
		count -= got;
	}
	if(t->unconfirmed) {
		t->unconfirmed = 0;
		if(t->last_why[0])
			log_info("dnstap: TLS to %s: connected again (%s)",
				t->where, SSL_get_version(t->ssl));
		else	verbose(VERB_OPS, "dnstap: TLS to %s: connected (%s)",
				t->where, SSL_get_version(t->ssl));
		t->last_why[0] = 0;
		t->last_log = 0;
		t->quiet = 0;
	}
	return fstrm_res_success;
}

/** write len bytes of p on the connection, all of them. @return 0 or -1
 * (logged). */
static int
dt_tls_put(struct dt_tls *t, const uint8_t *p, size_t len)
{
	while(len > 0) {
		size_t n = 0;
		if(!t->ssl)
			return -1;
		ERR_clear_error();
		errno = 0;
		if(SSL_write_ex(t->ssl, p, len, &n) != 1) {
			char e[200];
			int se = SSL_get_error(t->ssl, 0);
			/* SO_SNDTIMEO ran out: OpenSSL takes it for a retry */
			if(se == SSL_ERROR_WANT_WRITE ||
				se == SSL_ERROR_WANT_READ ||
				(se == SSL_ERROR_SYSCALL && (errno == EAGAIN ||
				errno == EWOULDBLOCK)))
				dt_tls_fail(t, "write timed out");
			else if(se == SSL_ERROR_SYSCALL && errno != 0) {
				snprintf(e, sizeof(e), "write: %s",
					strerror(errno));
				dt_tls_fail(t, e);
			} else	dt_tls_fail(t, tls_fail_reason(t->ssl, e,
					sizeof(e)));
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/** rdwr write: all the iovecs, gathered into records of up to
 * DT_TLS_BUFSIZE bytes */
static fstrm_res
dt_tls_write(void *obj, const struct iovec *iov, int iovcnt)
{
	struct dt_tls *t = obj;
	int i;
	t->len = 0;
	for(i = 0; i < iovcnt; i++) {
		const uint8_t *p = iov[i].iov_base;
		size_t n = iov[i].iov_len;
		if(t->len + n > DT_TLS_BUFSIZE && t->len > 0) {
			if(dt_tls_put(t, t->buf, t->len) != 0)
				return fstrm_res_failure;
			t->len = 0;
		}
		if(n >= DT_TLS_BUFSIZE) {
			/* a big frame goes as it is */
			if(dt_tls_put(t, p, n) != 0)
				return fstrm_res_failure;
			continue;
		}
		memcpy(t->buf + t->len, p, n);
		t->len += n;
	}
	if(t->len > 0 && dt_tls_put(t, t->buf, t->len) != 0)
		return fstrm_res_failure;
	t->len = 0;
	return fstrm_res_success;
}

/** rdwr destroy: the connection, the context, the struct */
static fstrm_res
dt_tls_destroy(void *obj)
{
	struct dt_tls *t = obj;
	dt_tls_teardown(t);
	if(t->ctx)
		tls_ctx_free(t->ctx);
	free(t->server_name);
	free(t);
	return fstrm_res_success;
}

/** load the client certificate chain and key into ctx. @return 0 or -1
 * with err set. */
static int
dt_tls_client_cert(SSL_CTX *ctx, const char *pem, const char *key,
	char *err, size_t errlen)
{
	char eb[200];
	if(SSL_CTX_use_certificate_chain_file(ctx, pem) != 1) {
		ERR_error_string_n(ERR_peek_last_error(), eb, sizeof(eb));
		snprintf(err, errlen, "dnstap-tls-client-cert-file '%s': %s",
			pem, eb);
		ERR_clear_error();
		return -1;
	}
	if(SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
		unsigned long e = ERR_peek_last_error();
		if(ERR_GET_REASON(e) == X509_R_KEY_VALUES_MISMATCH) {
			ERR_clear_error();
			snprintf(err, errlen, "dnstap-tls-client-key-file '%s' "
				"does not match dnstap-tls-client-cert-file "
				"'%s'", key, pem);
			return -1;
		}
		ERR_error_string_n(e, eb, sizeof(eb));
		snprintf(err, errlen, "dnstap-tls-client-key-file '%s': %s",
			key, eb);
		ERR_clear_error();
		return -1;
	}
	if(SSL_CTX_check_private_key(ctx) != 1) {
		snprintf(err, errlen, "dnstap-tls-client-key-file '%s' does "
			"not match dnstap-tls-client-cert-file '%s'", key, pem);
		return -1;
	}
	return 0;
}

int
dt_tls_wanted(const struct config_file *cfg)
{
	return cfg->dnstap_enable && cfg->dnstap_ip && cfg->dnstap_ip[0] &&
		cfg->dnstap_tls;
}

SSL_CTX *
dt_tls_ctx_create(const struct config_file *cfg, char *err, size_t errlen)
{
	SSL_CTX *ctx = tls_client_ctx_create(cfg->dnstap_tls_cert_bundle, 0,
		err, errlen);
	if(!ctx)
		return NULL;
	if(cfg->dnstap_tls_client_cert_file &&
		cfg->dnstap_tls_client_cert_file[0] &&
		dt_tls_client_cert(ctx, cfg->dnstap_tls_client_cert_file,
		cfg->dnstap_tls_client_key_file, err, errlen) != 0) {
		tls_ctx_free(ctx);
		return NULL;
	}
	return ctx;
}

struct fstrm_writer *
dt_tls_writer_create(const struct config_file *cfg, void *ctx,
	const struct fstrm_writer_options *wopt, char *err, size_t errlen)
{
	struct dt_tls *t = calloc(1, sizeof(*t));
	struct fstrm_rdwr *rdwr;
	struct fstrm_writer *w;
	const char *why = NULL, *name = cfg->dnstap_tls_server_name;
	const uint8_t *b;
	size_t n;
	if(!t) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	t->fd = -1;
	if(netaddr_parse(cfg->dnstap_ip, 6000, &t->addr, &why) != 0 ||
		!(b = netaddr_bytes(&t->addr, &n)) ||
		!inet_ntop(netaddr_family(&t->addr), b, t->ip, sizeof(t->ip))) {
		snprintf(err, errlen, "dnstap-ip '%s': %s", cfg->dnstap_ip,
			why ? why : "not an address");
		goto fail;
	}
	if(name && name[0] && !(t->server_name = strdup(name))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	snprintf(t->where, sizeof(t->where), "%s@%d%s%s", t->ip,
		netaddr_port(&t->addr), t->server_name ? "#" : "",
		t->server_name ? t->server_name : "");
	if(!ctx || !SSL_CTX_up_ref(ctx)) {
		snprintf(err, errlen, "no TLS context for dnstap");
		goto fail;
	}
	t->ctx = ctx;
	if(!(rdwr = fstrm_rdwr_init(t))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	fstrm_rdwr_set_destroy(rdwr, dt_tls_destroy);
	fstrm_rdwr_set_open(rdwr, dt_tls_open);
	fstrm_rdwr_set_close(rdwr, dt_tls_close);
	fstrm_rdwr_set_read(rdwr, dt_tls_read);
	fstrm_rdwr_set_write(rdwr, dt_tls_write);
	/* the writer takes the rdwr, and with it t */
	if(!(w = fstrm_writer_init(wopt, &rdwr))) {
		snprintf(err, errlen, "cannot make the Frame Streams writer");
		if(rdwr)
			fstrm_rdwr_destroy(&rdwr);
		return NULL;
	}
	return w;
fail:
	if(t->ctx)
		tls_ctx_free(t->ctx);
	free(t->server_name);
	free(t);
	return NULL;
}

#else /* !USE_DNSTAP */

/* Without dnstap the config refuses dnstap-enable: yes, so no context is
 * wanted and no writer made. */

int
dt_tls_wanted(const struct config_file *cfg)
{
	(void)cfg;
	return 0;
}

struct ssl_ctx_st *
dt_tls_ctx_create(const struct config_file *cfg, char *err, size_t errlen)
{
	(void)cfg;
	snprintf(err, errlen, "this petrel is built without dnstap");
	return NULL;
}

struct fstrm_writer *
dt_tls_writer_create(const struct config_file *cfg, void *ctx,
	const struct fstrm_writer_options *wopt, char *err, size_t errlen)
{
	(void)cfg;
	(void)ctx;
	(void)wopt;
	snprintf(err, errlen, "this petrel is built without dnstap");
	return NULL;
}

#endif /* USE_DNSTAP */
