/*
 * services/http_fetch.c - a small HTTP/1.1 client over TCP or TLS.
 *
 * See services/http_fetch.h. One download is one blocking call on the
 * caller's thread: resolve the host (an address, or the system's
 * resolver), connect, shake hands (https), send one GET with "Connection:
 * close", read to the end, then check the status and undo the framing
 * (Content-Length or chunked). Every wait is a poll(2) with a deadline:
 * HTTP_FETCH_PROGRESS_MS for each read or write to make progress, and
 * HTTP_FETCH_TOTAL_MS for the whole download; the caller's stop flag is
 * looked at every 200 ms so that a daemon shutting down does not wait for
 * a slow server.
 */
#include "config.h"
#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif
#include "services/http_fetch.h"
#include "services/deadline_io.h"
#include "util/config_auth.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/time.h>
#include <sys/socket.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <ctype.h>

/** the longest a connect, a read or a write may wait to make progress, ms
 * (the value the transfer client uses, XFR_TIMEOUT_MS) */
#define HTTP_FETCH_PROGRESS_MS 5000
/** the longest a whole download may take, ms */
#define HTTP_FETCH_TOTAL_MS 120000
/** most bytes of a response's status line and headers */
#define HTTP_FETCH_MAX_HEAD 65536

/* ---------------- the download ---------------- */

/** one HTTP connection */
struct http_conn {
	/** the socket (non-blocking) */
	int fd;
	/** the TLS session, or NULL for plain HTTP */
	SSL *ssl;
	/** the end of the whole download */
	struct timeval total;
	/** set to stop */
	volatile int *stop;
	/** 1 when the TLS peer closed without close_notify */
	int unclean_eof;
};

/** the deadline of the next wait: progress, within the total */
static void
http_deadline(const struct http_conn *c, struct timeval *dl)
{
	dio_deadline_in(dl, HTTP_FETCH_PROGRESS_MS);
	if(timercmp(&c->total, dl, <))
		*dl = c->total;
}

/** wait for the socket (POLLIN or POLLOUT); @return 0 or -1 */
static int
http_wait(struct http_conn *c, short ev)
{
	struct timeval dl;
	http_deadline(c, &dl);
	return dio_wait_fd(c->fd, ev, &dl, c->stop);
}

/** write all of buf; @return 0 or -1 */
static int
http_write(struct http_conn *c, const uint8_t *buf, size_t n)
{
	struct timeval dl;
	if(!c->ssl) {
		http_deadline(c, &dl);
		return dio_write_full(c->fd, buf, n, &dl, c->stop);
	}
	while(n > 0) {
		int r = SSL_write(c->ssl, buf, (int)(n > 65536 ? 65536 : n));
		if(r > 0) {
			buf += r;
			n -= (size_t)r;
			continue;
		}
		switch(SSL_get_error(c->ssl, r)) {
		case SSL_ERROR_WANT_READ:
			if(http_wait(c, POLLIN) != 0)
				return -1;
			break;
		case SSL_ERROR_WANT_WRITE:
			if(http_wait(c, POLLOUT) != 0)
				return -1;
			break;
		default:
			return -1;
		}
	}
	return 0;
}

/** read some bytes; @return the count, 0 at the end, -1 on an error */
static ssize_t
http_read(struct http_conn *c, uint8_t *buf, size_t n)
{
	for(;;) {
		if(!c->ssl) {
			ssize_t r = read(c->fd, buf, n);
			if(r >= 0)
				return r;
			if(errno != EAGAIN && errno != EWOULDBLOCK &&
				errno != EINTR)
				return -1;
			if(http_wait(c, POLLIN) != 0)
				return -1;
			continue;
		} else {
			int r = SSL_read(c->ssl, buf, (int)(n > 65536 ? 65536 :
				n)), e;
			if(r > 0)
				return r;
			e = SSL_get_error(c->ssl, r);
			if(e == SSL_ERROR_ZERO_RETURN)
				return 0;
			if(e == SSL_ERROR_WANT_READ) {
				if(http_wait(c, POLLIN) != 0)
					return -1;
			} else if(e == SSL_ERROR_WANT_WRITE) {
				if(http_wait(c, POLLOUT) != 0)
					return -1;
			} else if(e == SSL_ERROR_SYSCALL ||
				(e == SSL_ERROR_SSL && ERR_GET_REASON(
				ERR_peek_error()) ==
				SSL_R_UNEXPECTED_EOF_WHILE_READING)) {
				/* closed without close_notify: the body's
				 * length says whether that cut it short */
				ERR_clear_error();
				c->unclean_eof = 1;
				return 0;
			} else
				return -1;
		}
	}
}

/** the TLS handshake, the server's certificate checked against the
 * bundle (or the system store) and the URL's host.
 * @return 0, or -1 with why */
static int
http_tls(struct http_conn *c, SSL_CTX *ctx, const struct config_url *u,
	char *why, size_t whylen)
{
	unsigned char b[16];
	int ip = inet_pton(AF_INET, u->host, b) == 1 ||
		inet_pton(AF_INET6, u->host, b) == 1;
	if(!(c->ssl = SSL_new(ctx)) || !SSL_set_fd(c->ssl, c->fd)) {
		snprintf(why, whylen, "TLS: out of memory");
		return -1;
	}
	if(ip) {
		if(!X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->ssl),
			u->host)) {
			snprintf(why, whylen, "TLS: bad address %s", u->host);
			return -1;
		}
	} else if(!SSL_set_tlsext_host_name(c->ssl, u->host) ||
		!SSL_set1_host(c->ssl, u->host)) {
		snprintf(why, whylen, "TLS: bad host name %s", u->host);
		return -1;
	}
	for(;;) {
		int r = SSL_connect(c->ssl), e;
		if(r == 1)
			return 0;
		e = SSL_get_error(c->ssl, r);
		if(e == SSL_ERROR_WANT_READ) {
			if(http_wait(c, POLLIN) == 0)
				continue;
		} else if(e == SSL_ERROR_WANT_WRITE) {
			if(http_wait(c, POLLOUT) == 0)
				continue;
		} else {
			long v = SSL_get_verify_result(c->ssl);
			unsigned long q = ERR_peek_error();
			if(v != X509_V_OK)
				snprintf(why, whylen, "TLS: the certificate of "
					"%s does not verify: %s", u->host,
					X509_verify_cert_error_string(v));
			else	snprintf(why, whylen, "TLS handshake with %s "
					"failed: %s", u->host, q ?
					ERR_reason_error_string(q) :
					"connection closed");
			ERR_clear_error();
			return -1;
		}
		snprintf(why, whylen, "TLS handshake with %s: timed out",
			u->host);
		return -1;
	}
}

/** the address of a URL's host (an address, or a name looked up with the
 * system's resolver). @return 0, or -1 with why */
static int
http_addr(const struct config_url *u, struct netaddr *a, char *why,
	size_t whylen)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&a->addr;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&a->addr;
	struct addrinfo hints, *res = NULL;
	int r;
	memset(a, 0, sizeof(*a));
	if(inet_pton(AF_INET, u->host, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)u->port);
		a->len = sizeof(*s4);
		return 0;
	}
	if(inet_pton(AF_INET6, u->host, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)u->port);
		a->len = sizeof(*s6);
		return 0;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if((r = getaddrinfo(u->host, NULL, &hints, &res)) != 0 || !res) {
		snprintf(why, whylen, "cannot look up %s: %s", u->host,
			gai_strerror(r));
		if(res)
			freeaddrinfo(res);
		return -1;
	}
	if(res->ai_addrlen > sizeof(a->addr)) {
		freeaddrinfo(res);
		snprintf(why, whylen, "cannot look up %s", u->host);
		return -1;
	}
	memcpy(&a->addr, res->ai_addr, res->ai_addrlen);
	a->len = (socklen_t)res->ai_addrlen;
	if(a->addr.ss_family == AF_INET)
		s4->sin_port = htons((uint16_t)u->port);
	else	s6->sin6_port = htons((uint16_t)u->port);
	freeaddrinfo(res);
	return 0;
}

/**
 * Decode a chunked body (RFC 9112 7.1) in place.
 * @return the decoded length, or -1 when malformed or cut short (no last
 *	chunk).
 */
static long
http_unchunk(uint8_t *b, size_t n)
{
	size_t in = 0, out = 0;
	for(;;) {
		char *end;
		unsigned long sz;
		size_t eol;
		uint8_t *nl = memchr(b + in, '\n', n - in);
		if(!nl)
			return -1;
		eol = (size_t)(nl - b) + 1;
		if(!isxdigit(b[in]))
			return -1;
		sz = strtoul((char *)b + in, &end, 16);
		if((uint8_t *)end > nl || sz > n)
			return -1;
		in = eol;
		if(sz == 0)
			return (long)out;
		if(in + sz + 2 > n || b[in + sz] != '\r' ||
			b[in + sz + 1] != '\n')
			return -1;
		memmove(b + out, b + in, sz);
		out += sz;
		in += sz + 2;
	}
}

/** the value of a header (case-insensitive name) in the head, copied
 * into v. @return 1 found, 0 not */
static int
http_header(const char *head, const char *name, char *v, size_t vlen)
{
	const char *p = head;
	size_t nl = strlen(name);
	while((p = strchr(p, '\n')) != NULL) {
		p++;
		if(strncasecmp(p, name, nl) == 0 && p[nl] == ':') {
			const char *s = p + nl + 1;
			size_t l;
			while(*s == ' ' || *s == '\t')
				s++;
			l = strcspn(s, "\r\n");
			while(l > 0 && (s[l - 1] == ' ' || s[l - 1] == '\t'))
				l--;
			snprintf(v, vlen, "%.*s", (int)l, s);
			return 1;
		}
	}
	return 0;
}

/** http-user-agent ("" for petrel/VERSION) and hide-http-user-agent,
 * written by the daemon's thread, read by the download's */
static char fetch_ua[256];
static int fetch_ua_hide;
#ifdef HAVE_PTHREAD
static pthread_mutex_t fetch_ua_lock = PTHREAD_MUTEX_INITIALIZER;
#endif

void
http_fetch_set_user_agent(const char *ua, int hide)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_lock(&fetch_ua_lock);
#endif
	snprintf(fetch_ua, sizeof(fetch_ua), "%s", ua ? ua : "");
	fetch_ua_hide = hide;
#ifdef HAVE_PTHREAD
	pthread_mutex_unlock(&fetch_ua_lock);
#endif
}

/** the User-Agent header line with its CRLF, or "" when hidden */
static void
fetch_ua_line(char *buf, size_t len)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_lock(&fetch_ua_lock);
#endif
	if(fetch_ua_hide)
		buf[0] = 0;
	else if(fetch_ua[0])
		snprintf(buf, len, "User-Agent: %s\r\n", fetch_ua);
	else	snprintf(buf, len, "User-Agent: petrel/%s\r\n",
			PACKAGE_VERSION);
#ifdef HAVE_PTHREAD
	pthread_mutex_unlock(&fetch_ua_lock);
#endif
}

int
http_fetch_get(const struct config_url *u, SSL_CTX *ctx, volatile int *stop,
	size_t max_bytes, uint8_t **body, size_t *blen, char *why,
	size_t whylen)
{
	struct http_conn c;
	struct netaddr a;
	char req[1500 + sizeof(u->path)], host[300], v[64], *head, ua[300];
	uint8_t *buf = NULL;
	size_t len = 0, max = 0, hl;
	int ret = -1, status = 0, chunked = 0;
	long cl = -1;
	ssize_t r;
	memset(&c, 0, sizeof(c));
	c.fd = -1;
	c.stop = stop;
	dio_deadline_in(&c.total, HTTP_FETCH_TOTAL_MS);
	*body = NULL;
	*blen = 0;
	if(u->tls && !ctx) {
		snprintf(why, whylen, "TLS: no context");
		return -1;
	}
	if(http_addr(u, &a, why, whylen) != 0)
		return -1;
	if((c.fd = dio_tcp_connect(&a, HTTP_FETCH_PROGRESS_MS, stop)) < 0) {
		snprintf(why, whylen, "cannot connect to %s port %d: %s",
			u->host, u->port, strerror(errno));
		return -1;
	}
	if(u->tls && http_tls(&c, ctx, u, why, whylen) != 0)
		goto done;
	snprintf(host, sizeof(host), "%s%s%s", strchr(u->host, ':') ? "[" :
		"", u->host, strchr(u->host, ':') ? "]" : "");
	if(u->port != (u->tls ? 443 : 80))
		snprintf(host + strlen(host), sizeof(host) - strlen(host),
			":%d", u->port);
	fetch_ua_line(ua, sizeof(ua));
	if(snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
		"%sAccept: */*\r\nConnection: close"
		"\r\n\r\n", u->path, host, ua) >= (int)sizeof(req)) {
		snprintf(why, whylen, "the request is too long");
		goto done;
	}
	if(http_write(&c, (const uint8_t *)req, strlen(req)) != 0) {
		snprintf(why, whylen, "cannot send the request to %s",
			u->host);
		goto done;
	}
	/* the whole response, to the end (the server closes) */
	for(;;) {
		if(len + 16385 > max) {
			size_t nm = max ? max * 2 : 65536;
			uint8_t *nb;
			if(nm > max_bytes + HTTP_FETCH_MAX_HEAD + 1)
				nm = max_bytes + HTTP_FETCH_MAX_HEAD +
					1;
			if(nm <= len + 1) {
				snprintf(why, whylen, "the response from %s is "
					"larger than %u bytes", u->host,
					(unsigned)max_bytes);
				goto done;
			}
			if(!(nb = realloc(buf, nm))) {
				snprintf(why, whylen, "out of memory");
				goto done;
			}
			buf = nb;
			max = nm;
		}
		r = http_read(&c, buf + len, max - len - 1);
		if(r < 0) {
			snprintf(why, whylen, "reading from %s failed or timed "
				"out", u->host);
			goto done;
		}
		if(r == 0)
			break;
		len += (size_t)r;
	}
	if(!buf) {
		snprintf(why, whylen, "no response from %s", u->host);
		goto done;
	}
	buf[len] = 0;
	head = (char *)buf;
	if(!(head = strstr((char *)buf, "\r\n\r\n")) ||
		(size_t)(head - (char *)buf) > HTTP_FETCH_MAX_HEAD) {
		snprintf(why, whylen, "no HTTP response from %s", u->host);
		goto done;
	}
	hl = (size_t)(head - (char *)buf) + 4;
	head[2] = 0; /* the head ends with its last line's CR LF */
	if(sscanf((char *)buf, "HTTP/1.%*d %d", &status) != 1) {
		snprintf(why, whylen, "no HTTP response from %s", u->host);
		goto done;
	}
	if(status != 200) {
		snprintf(why, whylen, "HTTP status %d from %s", status,
			u->host);
		goto done;
	}
	if(http_header((char *)buf, "Transfer-Encoding", v, sizeof(v)) &&
		strcasecmp(v, "chunked") == 0)
		chunked = 1;
	else if(http_header((char *)buf, "Content-Length", v, sizeof(v))) {
		char *end;
		cl = strtol(v, &end, 10);
		if(end == v || *end || cl < 0) {
			snprintf(why, whylen, "a bad Content-Length from %s",
				u->host);
			goto done;
		}
	}
	len -= hl;
	memmove(buf, buf + hl, len);
	if(chunked) {
		long dl = http_unchunk(buf, len);
		if(dl < 0) {
			snprintf(why, whylen, "a bad or cut chunked body from "
				"%s", u->host);
			goto done;
		}
		len = (size_t)dl;
	} else if(cl >= 0) {
		if(len < (size_t)cl) {
			snprintf(why, whylen, "the body from %s is cut short "
				"(%lu of %ld bytes)", u->host,
				(unsigned long)len, cl);
			goto done;
		}
		len = (size_t)cl;
	} else if(c.unclean_eof) {
		/* no length and no TLS close_notify: it may be cut */
		snprintf(why, whylen, "the TLS connection to %s was closed "
			"without close_notify and the body has no length",
			u->host);
		goto done;
	}
	buf[len] = 0;
	*body = buf;
	*blen = len;
	buf = NULL;
	ret = 0;
done:
	free(buf);
	if(c.ssl) {
		if(ret == 0)
			(void)SSL_shutdown(c.ssl);
		SSL_free(c.ssl);
	}
	if(c.fd >= 0)
		close(c.fd);
	return ret;
}


SSL_CTX *
http_fetch_tls_ctx(const char *bundle, char *why, size_t whylen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	if(!ctx) {
		snprintf(why, whylen, "TLS: out of memory");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	if(bundle && bundle[0]) {
		if(SSL_CTX_load_verify_locations(ctx, bundle, NULL) != 1) {
			snprintf(why, whylen, "TLS: cannot load the CA "
				"certificates of %s", bundle);
			ERR_clear_error();
			SSL_CTX_free(ctx);
			return NULL;
		}
	} else if(SSL_CTX_set_default_verify_paths(ctx) != 1) {
		snprintf(why, whylen, "TLS: cannot load the system CA store");
		ERR_clear_error();
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}
