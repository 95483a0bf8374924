/*
 * util/netevent/http2.c - DNS over HTTPS on HTTP/2 (see http2.h).
 *
 * nghttp2 does the HTTP/2 framing, HPACK, flow control and the checks of
 * HTTP messaging (pseudo-headers, content-length against DATA); this file
 * keeps one struct h2_stream per request (the stream's user data in
 * nghttp2), turns a finished request into a DNS query or an HTTP error,
 * and an answer into a response. The memory callbacks are nghttp2's
 * defaults; everything petrel allocates per stream is bounded: the path
 * (H2_PATH_MAX), the query (65535), the answer (65535), and the query and
 * answer bytes over all streams by the h2_service budgets.
 */
#include "config.h"
#include "util/netevent/http2.h"
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <strings.h>

long
h2_base64url_decode(const char *in, size_t inlen, uint8_t *out,
	size_t outmax)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, n = 0;
	while(inlen > 0 && in[inlen - 1] == '=')
		inlen--;
	if(inlen % 4 == 1)
		return -1;
	for(i = 0; i < inlen; i++) {
		char ch = in[i];
		int v;
		if(ch >= 'A' && ch <= 'Z')
			v = ch - 'A';
		else if(ch >= 'a' && ch <= 'z')
			v = ch - 'a' + 26;
		else if(ch >= '0' && ch <= '9')
			v = ch - '0' + 52;
		else if(ch == '-')
			v = 62;
		else if(ch == '_')
			v = 63;
		else	return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if(bits >= 8) {
			bits -= 8;
			if(n >= outmax)
				return -1;
			out[n++] = (uint8_t)(acc >> bits);
		}
	}
	return (long)n;
}

/** skip a wire name at *pos. @return 0 or -1 */
static int
skip_name(const uint8_t *pkt, size_t len, size_t *pos)
{
	size_t p = *pos;
	int labels = 0;
	while(p < len && labels++ < 128) {
		uint8_t l = pkt[p];
		if(l == 0) {
			*pos = p + 1;
			return 0;
		}
		if((l & 0xc0) == 0xc0) {
			if(p + 2 > len)
				return -1;
			*pos = p + 2;
			return 0;
		}
		if(l & 0xc0)
			return -1;
		p += 1 + (size_t)l;
	}
	return -1;
}

uint32_t
h2_answer_max_age(const uint8_t *pkt, size_t len)
{
	size_t pos = 12, i, nrr;
	unsigned qd;
	uint32_t best = 0;
	int any = 0;
	if(len < 12)
		return 0;
	qd = ((unsigned)pkt[4] << 8) | pkt[5];
	nrr = (((size_t)pkt[6] << 8) | pkt[7]) + (((size_t)pkt[8] << 8) |
		pkt[9]) + (((size_t)pkt[10] << 8) | pkt[11]);
	for(i = 0; i < qd; i++) {
		if(skip_name(pkt, len, &pos) != 0 || pos + 4 > len)
			return 0;
		pos += 4;
	}
	for(i = 0; i < nrr; i++) {
		uint16_t type, rdlen;
		uint32_t ttl;
		if(skip_name(pkt, len, &pos) != 0 || pos + 10 > len)
			return 0;
		type = (uint16_t)((pkt[pos] << 8) | pkt[pos + 1]);
		ttl = ((uint32_t)pkt[pos + 4] << 24) |
			((uint32_t)pkt[pos + 5] << 16) |
			((uint32_t)pkt[pos + 6] << 8) | pkt[pos + 7];
		rdlen = (uint16_t)((pkt[pos + 8] << 8) | pkt[pos + 9]);
		pos += 10;
		if(pos + rdlen > len)
			return 0;
		if(ttl > 0x7fffffff)
			ttl = 0;
		if(type == 41) { /* OPT: no TTL */
			pos += rdlen;
			continue;
		}
		if(type == 6 && rdlen >= 4) { /* SOA: negative caching */
			size_t m = pos + rdlen - 4;
			uint32_t min = ((uint32_t)pkt[m] << 24) |
				((uint32_t)pkt[m + 1] << 16) |
				((uint32_t)pkt[m + 2] << 8) | pkt[m + 3];
			if(min < ttl)
				ttl = min;
		}
		if(!any || ttl < best)
			best = ttl;
		any = 1;
		pos += rdlen;
	}
	return any ? best : 0;
}

#ifdef HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>

/** longest :path kept (a GET query of 65535 bytes is 87380 characters of
 * base64url, but a DNS query over GET is short in practice; longer paths
 * get 414) */
#define H2_PATH_MAX 8192
/** largest DNS message */
#define H2_DNS_MAX 65535

/** request methods */
enum h2_method {
	/** none or another (405) */
	H2_M_OTHER = 0,
	/** GET */
	H2_M_GET,
	/** POST */
	H2_M_POST
};

/** one request/response */
struct h2_stream {
	/** the stream id */
	int32_t id;
	/** the method */
	enum h2_method method;
	/** :path, malloced, or NULL */
	char *path;
	/** the path was too long */
	int path_long;
	/** Content-Type is application/dns-message */
	int ctype_ok;
	/** HTTP status to answer with instead of a DNS answer, 0 for none */
	int status;
	/** the query, malloced (counted in query_used) */
	uint8_t *q;
	/** its length */
	size_t qlen;
	/** its allocated size */
	size_t qcap;
	/** the query went to the callback */
	int dispatched;
	/** a response was submitted */
	int responded;
	/** the answer, malloced (counted in response_used) */
	uint8_t *r;
	/** its length */
	size_t rlen;
	/** bytes of it sent */
	size_t roff;
	/** header values that must live until the headers are sent */
	char status_s[12], clen_s[12], age_s[24];
	/** the session's list of streams */
	struct h2_stream *prev, *next;
};

/** the session */
struct h2_session {
	/** nghttp2's session */
	nghttp2_session *ng;
	/** settings and budgets */
	struct h2_service *svc;
	/** query callback */
	h2_query_cb_type cb;
	/** its argument */
	void *arg;
	/** open streams */
	int nstreams;
	/** their list (nghttp2_session_del does not close them through
	 * on_stream_close, so the session frees what is left itself) */
	struct h2_stream *streams;
};

/** give back a stream's query buffer */
static void
stream_free_query(struct h2_session *s, struct h2_stream *st)
{
	if(st->q) {
		s->svc->query_used -= st->qcap;
		free(st->q);
		st->q = NULL;
	}
	st->qlen = st->qcap = 0;
}

/** free a stream */
static void
stream_free(struct h2_session *s, struct h2_stream *st)
{
	stream_free_query(s, st);
	if(st->r) {
		s->svc->response_used -= st->rlen;
		free(st->r);
	}
	free(st->path);
	if(st->prev)
		st->prev->next = st->next;
	else	s->streams = st->next;
	if(st->next)
		st->next->prev = st->prev;
	free(st);
	s->nstreams--;
}

/** make room for need query bytes. @return 0, or -1 (over the budget:
 * status set to the refusal) */
static int
stream_query_room(struct h2_session *s, struct h2_stream *st, size_t need)
{
	size_t cap;
	uint8_t *n;
	if(need <= st->qcap)
		return 0;
	if(need > H2_DNS_MAX) {
		st->status = 413;
		return -1;
	}
	cap = st->qcap ? st->qcap * 2 : 512;
	while(cap < need)
		cap *= 2;
	if(cap > H2_DNS_MAX)
		cap = H2_DNS_MAX;
	if(s->svc->query_used - st->qcap + cap > s->svc->query_max) {
		st->status = -1; /* refused */
		return -1;
	}
	n = realloc(st->q, cap);
	if(!n) {
		st->status = -1;
		return -1;
	}
	s->svc->query_used += cap - st->qcap;
	st->q = n;
	st->qcap = cap;
	return 0;
}

/** data provider: the answer */
static ssize_t
answer_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct h2_stream *st = src->ptr;
	size_t n = st->rlen - st->roff;
	(void)ng;
	(void)id;
	(void)user;
	if(n > len)
		n = len;
	if(n)
		memcpy(buf, st->r + st->roff, n);
	st->roff += n;
	if(st->roff >= st->rlen)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/** make a header */
#define H2_NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, \
	strlen(v), NGHTTP2_NV_FLAG_NO_COPY_NAME }

/** answer a stream with an HTTP error status (no body). @return 0/-1 */
static int
stream_error(struct h2_session *s, struct h2_stream *st, int status)
{
	if(st->responded)
		return 0;
	st->responded = 1;
	stream_free_query(s, st);
	if(status < 0) {
		/* refused for want of buffer space: the client may retry */
		s->svc->refused++;
		return nghttp2_submit_rst_stream(s->ng, NGHTTP2_FLAG_NONE,
			st->id, NGHTTP2_REFUSED_STREAM) == 0 ? 0 : -1;
	}
	s->svc->http_errors++;
	snprintf(st->status_s, sizeof(st->status_s), "%d", status);
	{
		nghttp2_nv hd[] = {
			H2_NV(":status", st->status_s),
			H2_NV("content-length", "0")
		};
		return nghttp2_submit_response(s->ng, st->id, hd,
			sizeof(hd) / sizeof(hd[0]), NULL) == 0 ? 0 : -1;
	}
}

/** parse the path of a finished request's headers: the endpoint and, for
 * GET, the dns parameter. Sets st->status on an error. */
static void
stream_parse_path(struct h2_session *s, struct h2_stream *st)
{
	const char *p = st->path, *qm, *par;
	size_t plen;
	if(st->path_long) {
		st->status = 414;
		return;
	}
	if(!p) {
		st->status = 400;
		return;
	}
	qm = strchr(p, '?');
	plen = qm ? (size_t)(qm - p) : strlen(p);
	if(plen != strlen(s->svc->endpoint) ||
		memcmp(p, s->svc->endpoint, plen) != 0) {
		st->status = 404;
		return;
	}
	if(st->method == H2_M_OTHER) {
		st->status = 405;
		return;
	}
	if(st->method != H2_M_GET)
		return;
	/* find dns= among the parameters */
	for(par = qm ? qm + 1 : NULL; par && *par; ) {
		const char *end = strchr(par, '&');
		size_t l = end ? (size_t)(end - par) : strlen(par);
		if(l >= 4 && memcmp(par, "dns=", 4) == 0) {
			long n;
			size_t need = (l - 4) / 4 * 3 + 3;
			if(stream_query_room(s, st, need) != 0)
				return;
			n = h2_base64url_decode(par + 4, l - 4, st->q,
				st->qcap);
			if(n < 0) {
				st->status = 400;
				return;
			}
			st->qlen = (size_t)n;
			return;
		}
		par = end ? end + 1 : NULL;
	}
	st->status = 400;
}

/** a request is complete: dispatch its query or answer its error.
 * @return 0 or -1 (fatal) */
static int
stream_complete(struct h2_session *s, struct h2_stream *st)
{
	if(st->dispatched || st->responded)
		return 0;
	if(!st->status && st->method == H2_M_POST && !st->ctype_ok)
		st->status = 415;
	if(!st->status && (st->qlen < 12 || st->qlen > H2_DNS_MAX))
		st->status = 400;
	if(st->status)
		return stream_error(s, st, st->status);
	st->dispatched = 1;
	s->svc->queries++;
	s->cb(s->arg, st->id, st->q, st->qlen);
	/* the stream may have been answered (and even closed) inside */
	st = nghttp2_session_get_stream_user_data(s->ng, st->id);
	if(st)
		stream_free_query(s, st);
	return 0;
}

static int
on_begin_headers(nghttp2_session *ng, const nghttp2_frame *f, void *user)
{
	struct h2_session *s = user;
	struct h2_stream *st;
	if(f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	st = calloc(1, sizeof(*st));
	if(!st)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	st->id = f->hd.stream_id;
	if(nghttp2_session_set_stream_user_data(ng, st->id, st) != 0) {
		free(st);
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	s->nstreams++;
	st->next = s->streams;
	if(st->next)
		st->next->prev = st;
	s->streams = st;
	return 0;
}

/** @return 1 if a Content-Type value is application/dns-message */
static int
ctype_is_dns(const uint8_t *v, size_t len)
{
	static const char want[] = "application/dns-message";
	size_t n = sizeof(want) - 1;
	if(len < n || strncasecmp((const char *)v, want, n) != 0)
		return 0;
	/* parameters may follow */
	return len == n || v[n] == ';' || v[n] == ' ';
}

static int
on_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name,
	size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
	void *user)
{
	struct h2_stream *st;
	(void)flags;
	(void)user;
	if(f->hd.type != NGHTTP2_HEADERS ||
		f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	st = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
	if(!st)
		return 0;
	if(namelen == 7 && memcmp(name, ":method", 7) == 0) {
		if(valuelen == 3 && memcmp(value, "GET", 3) == 0)
			st->method = H2_M_GET;
		else if(valuelen == 4 && memcmp(value, "POST", 4) == 0)
			st->method = H2_M_POST;
		else	st->method = H2_M_OTHER;
	} else if(namelen == 5 && memcmp(name, ":path", 5) == 0) {
		free(st->path);
		st->path = NULL;
		if(valuelen > H2_PATH_MAX) {
			st->path_long = 1;
			return 0;
		}
		st->path = malloc(valuelen + 1);
		if(!st->path)
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
		memcpy(st->path, value, valuelen);
		st->path[valuelen] = 0;
	} else if(namelen == 12 && memcmp(name, "content-type", 12) == 0) {
		st->ctype_ok = ctype_is_dns(value, valuelen);
	}
	return 0;
}

static int
on_data_chunk(nghttp2_session *ng, uint8_t flags, int32_t id,
	const uint8_t *data, size_t len, void *user)
{
	struct h2_session *s = user;
	struct h2_stream *st = nghttp2_session_get_stream_user_data(ng, id);
	(void)flags;
	if(!st || st->status || st->dispatched || st->responded)
		return 0; /* discarded; the flow control window still moves */
	if(st->method != H2_M_POST) {
		st->status = 400; /* a GET with a body */
		return 0;
	}
	if(stream_query_room(s, st, st->qlen + len) != 0)
		return 0;
	memcpy(st->q + st->qlen, data, len);
	st->qlen += len;
	return 0;
}

static int
on_frame_recv(nghttp2_session *ng, const nghttp2_frame *f, void *user)
{
	struct h2_session *s = user;
	struct h2_stream *st;
	if(f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA)
		return 0;
	st = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
	if(!st)
		return 0;
	if(f->hd.type == NGHTTP2_HEADERS &&
		f->headers.cat == NGHTTP2_HCAT_REQUEST)
		stream_parse_path(s, st);
	if(!(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	if(stream_complete(s, st) != 0)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	return 0;
}

static int
on_stream_close(nghttp2_session *ng, int32_t id, uint32_t code, void *user)
{
	struct h2_session *s = user;
	struct h2_stream *st = nghttp2_session_get_stream_user_data(ng, id);
	(void)code;
	if(!st)
		return 0;
	(void)nghttp2_session_set_stream_user_data(ng, id, NULL);
	stream_free(s, st);
	return 0;
}

struct h2_session *
h2_session_create(struct h2_service *svc, h2_query_cb_type cb, void *arg)
{
	struct h2_session *s = calloc(1, sizeof(*s));
	nghttp2_session_callbacks *cbs = NULL;
	nghttp2_option *opt = NULL;
	nghttp2_settings_entry set[3];
	if(!s)
		return NULL;
	s->svc = svc;
	s->cb = cb;
	s->arg = arg;
	if(nghttp2_session_callbacks_new(&cbs) != 0)
		goto fail;
	nghttp2_session_callbacks_set_on_begin_headers_callback(cbs,
		on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cbs, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs,
		on_data_chunk);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cbs,
		on_frame_recv);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs,
		on_stream_close);
	if(nghttp2_option_new(&opt) != 0)
		goto fail;
	/* bound HPACK's dynamic table and the header list; streams past the
	 * limit are refused by nghttp2 itself */
	nghttp2_option_set_max_deflate_dynamic_table_size(opt, 4096);
	nghttp2_option_set_max_send_header_block_length(opt, 16384);
	if(nghttp2_session_server_new2(&s->ng, cbs, s, opt) != 0)
		goto fail;
	nghttp2_session_callbacks_del(cbs);
	nghttp2_option_del(opt);
	cbs = NULL;
	opt = NULL;
	set[0].settings_id = NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS;
	set[0].value = (uint32_t)(svc->max_streams > 0 ? svc->max_streams : 1);
	set[1].settings_id = NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE;
	set[1].value = H2_PATH_MAX + 4096;
	set[2].settings_id = NGHTTP2_SETTINGS_HEADER_TABLE_SIZE;
	set[2].value = 4096;
	if(nghttp2_submit_settings(s->ng, NGHTTP2_FLAG_NONE, set, 3) != 0)
		goto fail;
	return s;
fail:
	if(cbs)
		nghttp2_session_callbacks_del(cbs);
	if(opt)
		nghttp2_option_del(opt);
	h2_session_free(s);
	return NULL;
}

void
h2_session_free(struct h2_session *s)
{
	if(!s)
		return;
	if(s->ng)
		nghttp2_session_del(s->ng);
	while(s->streams)
		stream_free(s, s->streams);
	free(s);
}

int
h2_session_recv(struct h2_session *s, const uint8_t *data, size_t len)
{
	ssize_t r = nghttp2_session_mem_recv(s->ng, data, len);
	if(r < 0 || (size_t)r != len)
		return -1;
	return 0;
}

int
h2_session_answer(struct h2_session *s, int32_t stream, const uint8_t *pkt,
	size_t len)
{
	struct h2_stream *st = nghttp2_session_get_stream_user_data(s->ng,
		stream);
	nghttp2_data_provider dp;
	if(!st || st->responded || len == 0 || len > H2_DNS_MAX)
		return -1;
	if(s->svc->response_used + len > s->svc->response_max ||
		!(st->r = malloc(len))) {
		(void)stream_error(s, st, -1);
		return -1;
	}
	memcpy(st->r, pkt, len);
	st->rlen = len;
	st->roff = 0;
	s->svc->response_used += len;
	st->responded = 1;
	snprintf(st->clen_s, sizeof(st->clen_s), "%u", (unsigned)len);
	snprintf(st->age_s, sizeof(st->age_s), "max-age=%u",
		(unsigned)h2_answer_max_age(pkt, len));
	dp.source.ptr = st;
	dp.read_callback = answer_read;
	{
		nghttp2_nv hd[] = {
			H2_NV(":status", "200"),
			H2_NV("content-type", "application/dns-message"),
			H2_NV("content-length", st->clen_s),
			H2_NV("cache-control", st->age_s)
		};
		if(nghttp2_submit_response(s->ng, stream, hd,
			sizeof(hd) / sizeof(hd[0]), &dp) != 0)
			return -1;
	}
	return 0;
}

int
h2_session_error(struct h2_session *s, int32_t stream, int status)
{
	struct h2_stream *st = nghttp2_session_get_stream_user_data(s->ng,
		stream);
	if(!st || st->responded)
		return -1;
	return stream_error(s, st, status);
}

int
h2_session_output(struct h2_session *s,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg)
{
	for(;;) {
		const uint8_t *d = NULL;
		ssize_t n = nghttp2_session_mem_send(s->ng, &d);
		if(n < 0)
			return -1;
		if(n == 0)
			return 0;
		if(push(arg, d, (size_t)n) != 0)
			return -1;
	}
}

int
h2_session_alive(struct h2_session *s)
{
	return nghttp2_session_want_read(s->ng) ||
		nghttp2_session_want_write(s->ng);
}

int
h2_session_streams(struct h2_session *s)
{
	return s->nstreams;
}

/* ------------------------------------------------------------------ */
/* client */

/** one query in flight */
struct h2_cstream {
	/** the query, sent as the body */
	uint8_t *q;
	/** its length */
	size_t qlen;
	/** bytes sent */
	size_t qoff;
	/** :status of the response, 0 before */
	int status;
	/** Content-Type is application/dns-message */
	int ctype_ok;
	/** the body, malloced as it comes (up to H2_DNS_MAX) */
	uint8_t *body;
	/** its length */
	size_t blen;
	/** the body was too long */
	int too_long;
	/** the content-length text */
	char clen_s[12];
	/** list links */
	struct h2_cstream *prev, *next;
};

/** the client */
struct h2_client {
	/** nghttp2's session */
	nghttp2_session *ng;
	/** reply callback */
	h2_reply_cb_type cb;
	/** its argument */
	void *arg;
	/** open streams */
	struct h2_cstream *streams;
};

static void
cstream_free(struct h2_client *c, struct h2_cstream *cs)
{
	if(cs->prev)
		cs->prev->next = cs->next;
	else	c->streams = cs->next;
	if(cs->next)
		cs->next->prev = cs->prev;
	free(cs->q);
	free(cs->body);
	free(cs);
}

static ssize_t
cquery_read(nghttp2_session *ng, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct h2_cstream *cs = src->ptr;
	size_t n = cs->qlen - cs->qoff;
	(void)ng;
	(void)id;
	(void)user;
	if(n > len)
		n = len;
	memcpy(buf, cs->q + cs->qoff, n);
	cs->qoff += n;
	if(cs->qoff >= cs->qlen)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

static int
con_header(nghttp2_session *ng, const nghttp2_frame *f, const uint8_t *name,
	size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
	void *user)
{
	struct h2_cstream *cs;
	(void)flags;
	(void)user;
	if(f->hd.type != NGHTTP2_HEADERS)
		return 0;
	cs = nghttp2_session_get_stream_user_data(ng, f->hd.stream_id);
	if(!cs)
		return 0;
	if(namelen == 7 && memcmp(name, ":status", 7) == 0) {
		int st = 0;
		size_t i;
		for(i = 0; i < valuelen && i < 3; i++)
			st = st * 10 + (value[i] - '0');
		cs->status = st;
	} else if(namelen == 12 && memcmp(name, "content-type", 12) == 0)
		cs->ctype_ok = ctype_is_dns(value, valuelen);
	return 0;
}

static int
con_data(nghttp2_session *ng, uint8_t flags, int32_t id, const uint8_t *d,
	size_t len, void *user)
{
	struct h2_cstream *cs = nghttp2_session_get_stream_user_data(ng, id);
	uint8_t *n;
	(void)flags;
	(void)user;
	if(!cs || cs->too_long)
		return 0;
	if(cs->blen + len > H2_DNS_MAX) {
		cs->too_long = 1;
		return 0;
	}
	n = realloc(cs->body, cs->blen + len);
	if(!n) {
		cs->too_long = 1;
		return 0;
	}
	cs->body = n;
	memcpy(cs->body + cs->blen, d, len);
	cs->blen += len;
	return 0;
}

static int
con_close(nghttp2_session *ng, int32_t id, uint32_t code, void *user)
{
	struct h2_client *c = user;
	struct h2_cstream *cs = nghttp2_session_get_stream_user_data(ng, id);
	int ok;
	if(!cs)
		return 0;
	(void)nghttp2_session_set_stream_user_data(ng, id, NULL);
	ok = code == NGHTTP2_NO_ERROR && cs->status == 200 && cs->ctype_ok &&
		!cs->too_long && cs->blen >= 12;
	c->cb(c->arg, id, code == NGHTTP2_NO_ERROR ? cs->status : 0,
		ok ? cs->body : NULL, ok ? cs->blen : 0);
	cstream_free(c, cs);
	return 0;
}

struct h2_client *
h2_client_create(h2_reply_cb_type cb, void *arg)
{
	struct h2_client *c = calloc(1, sizeof(*c));
	nghttp2_session_callbacks *cbs = NULL;
	nghttp2_settings_entry set[2];
	if(!c)
		return NULL;
	c->cb = cb;
	c->arg = arg;
	if(nghttp2_session_callbacks_new(&cbs) != 0)
		goto fail;
	nghttp2_session_callbacks_set_on_header_callback(cbs, con_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs,
		con_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs,
		con_close);
	if(nghttp2_session_client_new(&c->ng, cbs, c) != 0)
		goto fail;
	nghttp2_session_callbacks_del(cbs);
	cbs = NULL;
	set[0].settings_id = NGHTTP2_SETTINGS_ENABLE_PUSH;
	set[0].value = 0;
	set[1].settings_id = NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE;
	set[1].value = 16384;
	if(nghttp2_submit_settings(c->ng, NGHTTP2_FLAG_NONE, set, 2) != 0)
		goto fail;
	return c;
fail:
	if(cbs)
		nghttp2_session_callbacks_del(cbs);
	h2_client_free(c);
	return NULL;
}

void
h2_client_free(struct h2_client *c)
{
	if(!c)
		return;
	if(c->ng)
		nghttp2_session_del(c->ng);
	while(c->streams)
		cstream_free(c, c->streams);
	free(c);
}

int32_t
h2_client_query(struct h2_client *c, const char *authority,
	const char *path, const uint8_t *q, size_t len)
{
	struct h2_cstream *cs;
	nghttp2_data_provider dp;
	int32_t id;
	if(len == 0 || len > H2_DNS_MAX || !h2_client_usable(c))
		return -1;
	cs = calloc(1, sizeof(*cs));
	if(!cs || !(cs->q = malloc(len))) {
		free(cs);
		return -1;
	}
	memcpy(cs->q, q, len);
	cs->qlen = len;
	snprintf(cs->clen_s, sizeof(cs->clen_s), "%u", (unsigned)len);
	dp.source.ptr = cs;
	dp.read_callback = cquery_read;
	{
		nghttp2_nv hd[] = {
			H2_NV(":method", "POST"),
			H2_NV(":scheme", "https"),
			H2_NV(":authority", authority),
			H2_NV(":path", path),
			H2_NV("accept", "application/dns-message"),
			H2_NV("content-type", "application/dns-message"),
			H2_NV("content-length", cs->clen_s)
		};
		id = nghttp2_submit_request(c->ng, NULL, hd,
			sizeof(hd) / sizeof(hd[0]), &dp, cs);
	}
	if(id < 0) {
		free(cs->q);
		free(cs);
		return -1;
	}
	cs->next = c->streams;
	if(cs->next)
		cs->next->prev = cs;
	c->streams = cs;
	return id;
}

int
h2_client_recv(struct h2_client *c, const uint8_t *data, size_t len)
{
	ssize_t r = nghttp2_session_mem_recv(c->ng, data, len);
	return r < 0 || (size_t)r != len ? -1 : 0;
}

int
h2_client_output(struct h2_client *c,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg)
{
	for(;;) {
		const uint8_t *d = NULL;
		ssize_t n = nghttp2_session_mem_send(c->ng, &d);
		if(n < 0)
			return -1;
		if(n == 0)
			return 0;
		if(push(arg, d, (size_t)n) != 0)
			return -1;
	}
}

int
h2_client_usable(struct h2_client *c)
{
	return nghttp2_session_want_read(c->ng) &&
		nghttp2_session_check_request_allowed(c->ng);
}

#else /* !HAVE_NGHTTP2 */

struct h2_session *
h2_session_create(struct h2_service *svc, h2_query_cb_type cb, void *arg)
{
	(void)svc;
	(void)cb;
	(void)arg;
	return NULL;
}

void
h2_session_free(struct h2_session *s)
{
	(void)s;
}

int
h2_session_recv(struct h2_session *s, const uint8_t *data, size_t len)
{
	(void)s;
	(void)data;
	(void)len;
	return -1;
}

int
h2_session_answer(struct h2_session *s, int32_t stream, const uint8_t *pkt,
	size_t len)
{
	(void)s;
	(void)stream;
	(void)pkt;
	(void)len;
	return -1;
}

int
h2_session_error(struct h2_session *s, int32_t stream, int status)
{
	(void)s;
	(void)stream;
	(void)status;
	return -1;
}

int
h2_session_output(struct h2_session *s,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg)
{
	(void)s;
	(void)push;
	(void)arg;
	return -1;
}

int
h2_session_alive(struct h2_session *s)
{
	(void)s;
	return 0;
}

int
h2_session_streams(struct h2_session *s)
{
	(void)s;
	return 0;
}

struct h2_client *
h2_client_create(h2_reply_cb_type cb, void *arg)
{
	(void)cb;
	(void)arg;
	return NULL;
}

void
h2_client_free(struct h2_client *c)
{
	(void)c;
}

int32_t
h2_client_query(struct h2_client *c, const char *authority,
	const char *path, const uint8_t *q, size_t len)
{
	(void)c;
	(void)authority;
	(void)path;
	(void)q;
	(void)len;
	return -1;
}

int
h2_client_recv(struct h2_client *c, const uint8_t *data, size_t len)
{
	(void)c;
	(void)data;
	(void)len;
	return -1;
}

int
h2_client_output(struct h2_client *c,
	int (*push)(void *arg, const uint8_t *data, size_t len), void *arg)
{
	(void)c;
	(void)push;
	(void)arg;
	return -1;
}

int
h2_client_usable(struct h2_client *c)
{
	(void)c;
	return 0;
}
#endif /* HAVE_NGHTTP2 */
