/*
 * tests/check_http2.c - Check suite for DNS over HTTPS (util/netevent/
 * http2.c) without a network: base64url, the Cache-Control freshness of
 * answers, and whole requests driven by a real nghttp2 client session in
 * memory (GET, POST, the HTTP errors, the buffer budgets, a late answer
 * for a reset stream), plus malformed HTTP/2 input from a fixed-seed
 * generator (deterministic) that must never crash and must give every
 * byte of the budgets back; and the DoH config rules (https-port,
 * http-endpoint, forward-addr: https://...).
 */
#include "config.h"
#include "util/netevent/http2.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>
#endif

START_TEST(test_base64url)
{
	uint8_t out[64];
	/* RFC 4648 section 10 vectors (the same in the url alphabet) */
	ck_assert_int_eq(h2_base64url_decode("", 0, out, sizeof(out)), 0);
	ck_assert_int_eq(h2_base64url_decode("Zg", 2, out, sizeof(out)), 1);
	ck_assert_int_eq(out[0], 'f');
	ck_assert_int_eq(h2_base64url_decode("Zm9vYg==", 8, out,
		sizeof(out)), 4);
	ck_assert(memcmp(out, "foob", 4) == 0);
	ck_assert_int_eq(h2_base64url_decode("Zm9vYmFy", 8, out,
		sizeof(out)), 6);
	ck_assert(memcmp(out, "foobar", 6) == 0);
	/* the url alphabet: - and _ for + and / */
	ck_assert_int_eq(h2_base64url_decode("-_8", 3, out, sizeof(out)), 2);
	ck_assert_int_eq(out[0], 0xfb);
	ck_assert_int_eq(out[1], 0xff);
	ck_assert_int_eq(h2_base64url_decode("+/8", 3, out, sizeof(out)), -1);
	ck_assert_int_eq(h2_base64url_decode("Zm9v%59", 7, out,
		sizeof(out)), -1);
	/* a length of 4n+1 cannot be base64 */
	ck_assert_int_eq(h2_base64url_decode("Zm9vY", 5, out, sizeof(out)),
		-1);
	/* out of room */
	ck_assert_int_eq(h2_base64url_decode("Zm9vYmFy", 8, out, 5), -1);
	/* the RFC 8484 section 4.1 example query */
	ck_assert_int_eq(h2_base64url_decode(
		"AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB", 44, out,
		sizeof(out)), 33);
	ck_assert_int_eq(out[12], 3);
	ck_assert(memcmp(out + 13, "www", 3) == 0);
}
END_TEST

/** a response for www.test. A with the given records appended */
static size_t
make_answer(uint8_t *b, int an, int ns, int ar, const uint8_t *rrs,
	size_t rrlen)
{
	static const uint8_t h[] = { 0, 0, 0x85, 0x80, 0, 1, 0, 0, 0, 0, 0, 0,
		3, 'w', 'w', 'w', 4, 't', 'e', 's', 't', 0, 0, 1, 0, 1 };
	memcpy(b, h, sizeof(h));
	b[7] = (uint8_t)an;
	b[9] = (uint8_t)ns;
	b[11] = (uint8_t)ar;
	memcpy(b + sizeof(h), rrs, rrlen);
	return sizeof(h) + rrlen;
}

START_TEST(test_max_age)
{
	uint8_t b[512];
	size_t n;
	/* A 300 and A 120: the smaller */
	static const uint8_t two_a[] = {
		0xc0, 12, 0, 1, 0, 1, 0, 0, 0x01, 0x2c, 0, 4, 192, 0, 2, 1,
		0xc0, 12, 0, 1, 0, 1, 0, 0, 0x00, 0x78, 0, 4, 192, 0, 2, 2 };
	/* SOA with TTL 3600, MINIMUM 60; and an OPT with a "TTL" of 0 */
	static const uint8_t soa_opt[] = {
		4, 't', 'e', 's', 't', 0, 0, 6, 0, 1, 0, 0, 0x0e, 0x10, 0, 24,
		0xc0, 16, 0xc0, 16, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3,
		0, 0, 0, 4, 0, 0, 0, 60,
		0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0 };
	/* only an OPT */
	static const uint8_t opt[] = { 0, 0, 41, 0x04, 0xd0, 0, 0, 0, 0, 0, 0 };
	n = make_answer(b, 2, 0, 0, two_a, sizeof(two_a));
	ck_assert_uint_eq(h2_answer_max_age(b, n), 120);
	n = make_answer(b, 0, 1, 1, soa_opt, sizeof(soa_opt));
	ck_assert_uint_eq(h2_answer_max_age(b, n), 60);
	n = make_answer(b, 0, 0, 1, opt, sizeof(opt));
	ck_assert_uint_eq(h2_answer_max_age(b, n), 0);
	/* truncated in the middle of a record: 0, never a read past */
	n = make_answer(b, 2, 0, 0, two_a, sizeof(two_a));
	ck_assert_uint_eq(h2_answer_max_age(b, n - 3), 0);
	ck_assert_uint_eq(h2_answer_max_age(b, 5), 0);
	/* a compression loop is bounded */
	b[12] = 0xc0;
	b[13] = 12;
	ck_assert_uint_eq(h2_answer_max_age(b, n), 0);
}
END_TEST

#ifdef HAVE_NGHTTP2
/** what the client saw of one stream */
struct resp {
	/** :status, 0 before */
	int status;
	/** content-type and cache-control */
	char ctype[64], cache[64];
	/** body */
	uint8_t body[70000];
	/** its length */
	size_t blen;
	/** the stream closed, and its error code */
	int closed;
	/** the RST_STREAM / close code */
	uint32_t code;
};

/** the test's world: a client, a server session, what each saw */
struct world {
	/** the client */
	nghttp2_session *cl;
	/** the server under test */
	struct h2_session *sv;
	/** its service */
	struct h2_service svc;
	/** responses by client stream id (odd ids 1..) */
	struct resp *r[64];
	/** answer queries at once */
	int auto_answer;
	/** queries seen by the server */
	int nq;
	/** the last query's stream and bytes */
	int32_t qstream;
	/** its bytes */
	uint8_t q[70000];
	/** its length */
	size_t qlen;
	/** server bytes to the client */
	uint8_t out[1 << 20];
	/** their length */
	size_t outlen;
};

/** server query callback: remember it; answer it with an A 300 */
static void
sv_query(void *arg, int32_t stream, const uint8_t *q, size_t len)
{
	struct world *w = arg;
	static const uint8_t rr[] = { 0xc0, 12, 0, 1, 0, 1, 0, 0, 0x01, 0x2c,
		0, 4, 192, 0, 2, 1 };
	w->nq++;
	w->qstream = stream;
	memcpy(w->q, q, len);
	w->qlen = len;
	if(w->auto_answer) {
		uint8_t a[512];
		memcpy(a, q, len);
		a[2] |= 0x80;
		a[7] = 1;
		memcpy(a + len, rr, sizeof(rr));
		ck_assert_int_eq(h2_session_answer(w->sv, stream, a,
			len + sizeof(rr)), 0);
	}
}

static struct resp *
resp_of(struct world *w, int32_t id)
{
	if(id <= 0 || id >= 128 || !(id & 1))
		return NULL;
	if(!w->r[id / 2])
		w->r[id / 2] = calloc(1, sizeof(struct resp));
	return w->r[id / 2];
}

static int
cl_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name,
	size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
	void *user)
{
	struct resp *r = resp_of(user, f->hd.stream_id);
	(void)s;
	(void)flags;
	if(!r)
		return 0;
	if(namelen == 7 && memcmp(name, ":status", 7) == 0)
		r->status = atoi((const char *)value);
	else if(namelen == 12 && memcmp(name, "content-type", 12) == 0)
		snprintf(r->ctype, sizeof(r->ctype), "%.*s", (int)valuelen,
			value);
	else if(namelen == 13 && memcmp(name, "cache-control", 13) == 0)
		snprintf(r->cache, sizeof(r->cache), "%.*s", (int)valuelen,
			value);
	return 0;
}

static int
cl_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *d,
	size_t len, void *user)
{
	struct resp *r = resp_of(user, id);
	(void)s;
	(void)flags;
	if(r && r->blen + len <= sizeof(r->body)) {
		memcpy(r->body + r->blen, d, len);
		r->blen += len;
	}
	return 0;
}

static int
cl_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct resp *r = resp_of(user, id);
	(void)s;
	if(r) {
		r->closed = 1;
		r->code = code;
	}
	return 0;
}

/** collect server output */
static int
sv_push(void *arg, const uint8_t *d, size_t len)
{
	struct world *w = arg;
	if(w->outlen + len > sizeof(w->out))
		return -1;
	memcpy(w->out + w->outlen, d, len);
	w->outlen += len;
	return 0;
}

static struct world *
world_new(int max_streams, size_t qmax, size_t rmax)
{
	struct world *w = calloc(1, sizeof(*w));
	nghttp2_session_callbacks *cbs;
	ck_assert_ptr_nonnull(w);
	w->svc.endpoint = "/dns-query";
	w->svc.max_streams = max_streams;
	w->svc.query_max = qmax;
	w->svc.response_max = rmax;
	w->auto_answer = 1;
	w->sv = h2_session_create(&w->svc, sv_query, w);
	ck_assert_ptr_nonnull(w->sv);
	ck_assert_int_eq(nghttp2_session_callbacks_new(&cbs), 0);
	nghttp2_session_callbacks_set_on_header_callback(cbs, cl_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cbs,
		cl_data);
	nghttp2_session_callbacks_set_on_stream_close_callback(cbs, cl_close);
	ck_assert_int_eq(nghttp2_session_client_new(&w->cl, cbs, w), 0);
	nghttp2_session_callbacks_del(cbs);
	ck_assert_int_eq(nghttp2_submit_settings(w->cl, NGHTTP2_FLAG_NONE,
		NULL, 0), 0);
	return w;
}

static void
world_free(struct world *w)
{
	int i;
	h2_session_free(w->sv);
	/* every byte of the budgets came back */
	ck_assert_uint_eq(w->svc.query_used, 0);
	ck_assert_uint_eq(w->svc.response_used, 0);
	nghttp2_session_del(w->cl);
	for(i = 0; i < 64; i++)
		free(w->r[i]);
	free(w);
}

/** move bytes both ways until neither side has more */
static void
pump(struct world *w)
{
	int k;
	for(k = 0; k < 100; k++) {
		const uint8_t *d;
		ssize_t n;
		int moved = 0;
		while((n = nghttp2_session_mem_send(w->cl, &d)) > 0) {
			ck_assert_int_eq(h2_session_recv(w->sv, d, (size_t)n),
				0);
			moved = 1;
		}
		w->outlen = 0;
		ck_assert_int_eq(h2_session_output(w->sv, sv_push, w), 0);
		if(w->outlen) {
			ck_assert_int_eq(nghttp2_session_mem_recv(w->cl,
				w->out, w->outlen), (ssize_t)w->outlen);
			moved = 1;
		}
		if(!moved)
			return;
	}
	ck_abort_msg("pump does not settle");
}

/** the body of a POST */
struct body {
	/** bytes */
	const uint8_t *d;
	/** length */
	size_t len;
	/** sent */
	size_t off;
};

static ssize_t
body_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
	uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct body *b = src->ptr;
	size_t n = b->len - b->off;
	(void)s;
	(void)id;
	(void)user;
	if(n > len)
		n = len;
	memcpy(buf, b->d + b->off, n);
	b->off += n;
	if(b->off == b->len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

/** make a header */
#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), \
	NGHTTP2_NV_FLAG_NONE }

/** send a request. @return the stream id */
static int32_t
request(struct world *w, const char *method, const char *path,
	const char *ctype, struct body *b)
{
	nghttp2_nv hd[6] = { NV(":method", method), NV(":scheme", "https"),
		NV(":authority", "doh.test"), NV(":path", path),
		NV("accept", "application/dns-message"), NV("content-type",
		ctype ? ctype : "") };
	nghttp2_data_provider dp;
	int32_t id;
	dp.source.ptr = b;
	dp.read_callback = body_read;
	id = nghttp2_submit_request(w->cl, NULL, hd, ctype ? 6 : 5,
		b ? &dp : NULL, NULL);
	ck_assert_int_gt(id, 0);
	return id;
}

/** the RFC 8484 example query, www.example.com A, in base64url */
#define EXAMPLE_B64 "AAABAAABAAAAAAAAA3d3dwdleGFtcGxlA2NvbQAAAQAB"

START_TEST(test_get_post)
{
	struct world *w = world_new(100, 1 << 20, 1 << 20);
	uint8_t q[64];
	struct body b;
	struct resp *r;
	int32_t id;
	long qn = h2_base64url_decode(EXAMPLE_B64, strlen(EXAMPLE_B64), q,
		sizeof(q));
	ck_assert_int_eq(qn, 33);
	id = request(w, "GET", "/dns-query?ct&dns=" EXAMPLE_B64, NULL, NULL);
	pump(w);
	ck_assert_int_eq(w->nq, 1);
	ck_assert_uint_eq(w->qlen, 33);
	ck_assert(memcmp(w->q, q, 33) == 0);
	r = resp_of(w, id);
	ck_assert_int_eq(r->status, 200);
	ck_assert_str_eq(r->ctype, "application/dns-message");
	ck_assert_str_eq(r->cache, "max-age=300");
	ck_assert_uint_eq(r->blen, 33 + 16);
	ck_assert_int_eq(r->body[2] & 0x80, 0x80);
	ck_assert(r->closed);
	/* POST, with a charset parameter on the type */
	b.d = q;
	b.len = 33;
	b.off = 0;
	id = request(w, "POST", "/dns-query", "application/dns-message", &b);
	pump(w);
	ck_assert_int_eq(w->nq, 2);
	ck_assert(memcmp(w->q, q, 33) == 0);
	r = resp_of(w, id);
	ck_assert_int_eq(r->status, 200);
	ck_assert_uint_eq(r->blen, 33 + 16);
	ck_assert_uint_eq(w->svc.queries, 2);
	world_free(w);
}
END_TEST

START_TEST(test_http_errors)
{
	struct world *w = world_new(100, 1 << 20, 1 << 20);
	static uint8_t big[70000];
	uint8_t q[64];
	struct body b1, b2, b3;
	int32_t id[8];
	int i;
	long qn = h2_base64url_decode(EXAMPLE_B64, strlen(EXAMPLE_B64), q,
		sizeof(q));
	ck_assert_int_eq(qn, 33);
	memcpy(big, q, 33);
	id[0] = request(w, "GET", "/other?dns=" EXAMPLE_B64, NULL, NULL);
	id[1] = request(w, "GET", "/dns-query?name=x", NULL, NULL);
	id[2] = request(w, "GET", "/dns-query?dns=A*AB", NULL, NULL);
	id[3] = request(w, "GET", "/dns-query?dns=AAAB", NULL, NULL);
	b1.d = q;
	b1.len = 33;
	b1.off = 0;
	id[4] = request(w, "POST", "/dns-query", "text/plain", &b1);
	b2.d = big;
	b2.len = sizeof(big);
	b2.off = 0;
	id[5] = request(w, "POST", "/dns-query", "application/dns-message",
		&b2);
	b3 = b1;
	id[6] = request(w, "PUT", "/dns-query", "application/dns-message",
		&b3);
	id[7] = request(w, "GET", "/dns-query", NULL, NULL);
	pump(w);
	ck_assert_int_eq(w->nq, 0);
	ck_assert_int_eq(resp_of(w, id[0])->status, 404);
	ck_assert_int_eq(resp_of(w, id[1])->status, 400);
	ck_assert_int_eq(resp_of(w, id[2])->status, 400);
	ck_assert_int_eq(resp_of(w, id[3])->status, 400); /* 3 bytes */
	ck_assert_int_eq(resp_of(w, id[4])->status, 415);
	ck_assert_int_eq(resp_of(w, id[5])->status, 413);
	ck_assert_int_eq(resp_of(w, id[6])->status, 405);
	ck_assert_int_eq(resp_of(w, id[7])->status, 400);
	for(i = 0; i < 8; i++)
		ck_assert(resp_of(w, id[i])->closed);
	ck_assert_uint_eq(w->svc.http_errors, 8);
	world_free(w);
}
END_TEST

START_TEST(test_budgets)
{
	/* room for the query buffer of one stream (512) only */
	struct world *w = world_new(100, 600, 1 << 20);
	int32_t id1, id2;
	w->auto_answer = 0;
	id1 = request(w, "GET", "/dns-query?dns=" EXAMPLE_B64, NULL, NULL);
	pump(w);
	ck_assert_int_eq(w->nq, 1);
	/* the first query was handed on and its buffer given back */
	ck_assert_uint_eq(w->svc.query_used, 0);
	/* an answer larger than the response budget: the stream is reset */
	w->svc.response_max = 40;
	{
		uint8_t a[64];
		memcpy(a, w->q, w->qlen);
		a[2] |= 0x80;
		memset(a + w->qlen, 0, 16);
		ck_assert_int_eq(h2_session_answer(w->sv, id1, a,
			w->qlen + 16), -1);
	}
	pump(w);
	ck_assert(resp_of(w, id1)->closed);
	ck_assert_uint_eq(resp_of(w, id1)->code, NGHTTP2_REFUSED_STREAM);
	ck_assert_uint_eq(w->svc.refused, 1);
	/* the query budget: 600 bytes hold one 512-byte buffer; a stream
	 * whose query needs a second is refused */
	w->svc.query_used = 200;
	id2 = request(w, "GET", "/dns-query?dns=" EXAMPLE_B64, NULL, NULL);
	pump(w);
	ck_assert_int_eq(w->nq, 1);
	ck_assert_uint_eq(resp_of(w, id2)->code, NGHTTP2_REFUSED_STREAM);
	w->svc.query_used = 0;
	world_free(w);
}
END_TEST

START_TEST(test_late_answer)
{
	struct world *w = world_new(100, 1 << 20, 1 << 20);
	int32_t id;
	uint8_t a[64];
	w->auto_answer = 0;
	id = request(w, "GET", "/dns-query?dns=" EXAMPLE_B64, NULL, NULL);
	pump(w);
	ck_assert_int_eq(w->nq, 1);
	ck_assert_int_eq(h2_session_streams(w->sv), 1);
	/* the client gives up on it */
	ck_assert_int_eq(nghttp2_submit_rst_stream(w->cl, NGHTTP2_FLAG_NONE,
		id, NGHTTP2_CANCEL), 0);
	pump(w);
	ck_assert_int_eq(h2_session_streams(w->sv), 0);
	memcpy(a, w->q, w->qlen);
	ck_assert_int_eq(h2_session_answer(w->sv, id, a, w->qlen), -1);
	ck_assert_int_eq(h2_session_answer(w->sv, 99, a, w->qlen), -1);
	ck_assert_int_eq(h2_session_error(w->sv, id, 400), -1);
	world_free(w);
}
END_TEST

START_TEST(test_max_streams)
{
	/* the client honours the server's SETTINGS: with 2 streams allowed,
	 * 5 requests are served 2 at a time and all are answered */
	struct world *w = world_new(2, 1 << 20, 1 << 20);
	int32_t id[5];
	int i;
	pump(w); /* the SETTINGS exchange */
	ck_assert_uint_eq(nghttp2_session_get_remote_settings(w->cl,
		NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS), 2);
	for(i = 0; i < 5; i++)
		id[i] = request(w, "GET", "/dns-query?dns=" EXAMPLE_B64, NULL,
			NULL);
	pump(w);
	for(i = 0; i < 5; i++)
		ck_assert_int_eq(resp_of(w, id[i])->status, 200);
	world_free(w);
}
END_TEST

/** xorshift64: a fixed sequence, so the test is the same every run */
static uint64_t
next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/** the session of the malformed-input test */
static struct h2_session *fuzz_sess;
/** a query that survived the mutations: answer it with itself */
static void
fuzz_query(void *arg, int32_t stream, const uint8_t *q, size_t len)
{
	(void)arg;
	(void)h2_session_answer(fuzz_sess, stream, q, len);
}
/** server output goes nowhere */
static int
fuzz_sink(void *arg, const uint8_t *d, size_t len)
{
	(void)arg;
	(void)d;
	(void)len;
	return 0;
}

START_TEST(test_malformed)
{
	static const char preface[] = NGHTTP2_CLIENT_MAGIC;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	uint8_t buf[4096], good[8192];
	size_t goodlen = 0;
	int round;
	/* a valid client stream of bytes to mutate: preface, SETTINGS and a
	 * few requests */
	{
		struct world *w = world_new(100, 1 << 20, 1 << 20);
		const uint8_t *d;
		ssize_t n;
		(void)request(w, "GET", "/dns-query?dns=" EXAMPLE_B64, NULL,
			NULL);
		(void)request(w, "GET", "/x", NULL, NULL);
		while((n = nghttp2_session_mem_send(w->cl, &d)) > 0 &&
			goodlen + (size_t)n <= sizeof(good)) {
			memcpy(good + goodlen, d, (size_t)n);
			goodlen += (size_t)n;
		}
		world_free(w);
	}
	ck_assert_uint_gt(goodlen, sizeof(preface));
	for(round = 0; round < 3000; round++) {
		struct h2_service svc;
		struct h2_session *s;
		size_t len, i, off;
		memset(&svc, 0, sizeof(svc));
		svc.endpoint = "/dns-query";
		svc.max_streams = 4;
		svc.query_max = 4096;
		svc.response_max = 4096;
		s = h2_session_create(&svc, fuzz_query, NULL);
		fuzz_sess = s;
		ck_assert_ptr_nonnull(s);
		if(round % 3 == 0) {
			/* the preface, then random frames */
			len = sizeof(preface) - 1 + next_rand(&x) % 2000;
			memcpy(buf, preface, sizeof(preface) - 1);
			for(i = sizeof(preface) - 1; i < len; i++)
				buf[i] = (uint8_t)next_rand(&x);
		} else {
			/* the valid stream with a few bytes changed after
			 * the preface; a request that survives is answered
			 * with its own bytes */
			len = goodlen;
			memcpy(buf, good, len);
			for(i = 0; i < 1 + next_rand(&x) % 8; i++) {
				off = sizeof(preface) - 1 + next_rand(&x) %
					(len - sizeof(preface) + 1);
				buf[off] = (uint8_t)next_rand(&x);
			}
			if(round % 3 == 2)
				len = sizeof(preface) - 1 + next_rand(&x) %
					(len - sizeof(preface) + 2);
		}
		/* feed in pieces of random size */
		for(off = 0; off < len; ) {
			size_t n = 1 + next_rand(&x) % 64;
			if(n > len - off)
				n = len - off;
			if(h2_session_recv(s, buf + off, n) != 0)
				break;
			off += n;
			(void)h2_session_output(s, fuzz_sink, NULL);
		}
		h2_session_free(s);
		ck_assert_uint_eq(svc.query_used, 0);
		ck_assert_uint_eq(svc.response_used, 0);
	}
}
END_TEST
#endif /* HAVE_NGHTTP2 */


/** load a config from text; NULL and the error in err on failure */
static struct config_file *
load(const char *text, char *err, size_t errlen)
{
	struct config_file *cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	err[0] = 0;
	if(config_read_mem(cfg, "t.conf", text, strlen(text), err,
		errlen) != 0) {
		config_delete(cfg);
		return NULL;
	}
	return cfg;
}

START_TEST(test_config)
{
	char err[512];
	struct config_file *cfg = load("server:\n  interface: 127.0.0.1@443\n"
		"  http-notls-downstream: yes\n  http-max-streams: 7\n"
		"  http-query-buffer-size: 1m\n"
		"forward-zone:\n  name: \".\"\n"
		"  forward-addr: https://192.0.2.1/dns-query#doh.example\n"
		"  forward-addr: https://192.0.2.2@8443/q\n"
		"  forward-addr: https://[2001:db8::1]\n"
		"  forward-addr: 192.0.2.3\n", err, sizeof(err));
	const struct config_addrlist *a;
#ifndef HAVE_NGHTTP2
	/* built without nghttp2: a DoH upstream is refused, saying why;
	 * the HTTP settings themselves still load */
	ck_assert_ptr_null(cfg);
	ck_assert_ptr_nonnull(strstr(err, "built without libnghttp2"));
	cfg = load("server:\n  interface: 127.0.0.1@443\n"
		"  http-notls-downstream: yes\n  http-max-streams: 7\n"
		"  http-query-buffer-size: 1m\n", err, sizeof(err));
#endif
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_int_eq(cfg->https_port, 443);
	ck_assert_str_eq(cfg->http_endpoint, "/dns-query");
	ck_assert_int_eq(cfg->http_max_streams, 7);
	ck_assert_uint_eq(cfg->http_query_buffer_size, 1024 * 1024);
	ck_assert_int_eq(cfg->http_nodelay, 1);
#ifdef HAVE_NGHTTP2
	a = cfg->forwards->addrs;
	ck_assert_str_eq(a->doh_path, "/dns-query");
	ck_assert_int_eq(netaddr_port(&a->addr), 443);
	ck_assert_str_eq(a->next->doh_path, "/q");
	ck_assert_int_eq(netaddr_port(&a->next->addr), 8443);
	ck_assert_str_eq(a->next->next->doh_path, "/dns-query");
	ck_assert_int_eq(netaddr_port(&a->next->next->addr), 443);
	ck_assert_ptr_null(a->next->next->next->doh_path);
	ck_assert_int_eq(netaddr_port(&a->next->next->next->addr), 53);
	/* a DoH server makes the config use TLS upstream (the CA bundle) */
	ck_assert(config_uses_tls_upstream(cfg));
#else
	(void)a;
#endif
	config_delete(cfg);
#ifdef HAVE_NGHTTP2
	ck_assert_ptr_null(load("forward-zone:\n  name: \".\"\n"
		"  forward-addr: https://dns.example/dns-query\n", err,
		sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "t.conf:3: forward-addr: expected "
		"https://ip[@port]/path[#name] (an IP address, not a host "
		"name), got 'https://dns.example/dns-query'"));
	ck_assert_ptr_null(load("forward-zone:\n  name: \".\"\n"
		"  forward-addr: https://\n", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "t.conf:3: forward-addr: expected "
		"https://ip[@port]/path[#name], got 'https://'"));
	ck_assert_ptr_null(load("forward-zone:\n  name: \".\"\n"
		"  forward-addr: https://192.0.2.1/x#\n", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "expected a server name after"));
	/* forward-host would be asked in clear */
	ck_assert_ptr_null(load("forward-zone:\n  name: \".\"\n"
		"  forward-addr: https://192.0.2.1/dns-query\n"
		"  forward-host: ns.example\n", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "cannot be used with TLS"));
	/* https-port without the key and without h2c */
	ck_assert_ptr_null(load("server:\n  interface: 127.0.0.1@8443\n"
		"  https-port: 8443\n", err, sizeof(err)));
	ck_assert_str_eq(err, "t.conf:3: https-port: DNS over HTTPS needs "
		"tls-service-key and tls-service-pem (or http-notls-downstream: "
		"yes behind a TLS proxy)");
	ck_assert_ptr_null(load("server:\n  https-port: 853\n"
		"  interface: 127.0.0.1@853\n  http-notls-downstream: yes\n"
		"  tls-port: 853\n", err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "https-port and tls-port are both "
		"853"));
#endif
	ck_assert_ptr_null(load("server:\n  http-endpoint: \"q\"\n", err,
		sizeof(err)));
	ck_assert_str_eq(err, "t.conf:2: http-endpoint: 'q' is not a path "
		"(it must start with /)");
}
END_TEST

static Suite *
http2_suite(void)
{
	Suite *s = suite_create("http2");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_base64url);
	tcase_add_test(tc, test_max_age);
	tcase_add_test(tc, test_config);
#ifdef HAVE_NGHTTP2
	tcase_add_test(tc, test_get_post);
	tcase_add_test(tc, test_http_errors);
	tcase_add_test(tc, test_budgets);
	tcase_add_test(tc, test_late_answer);
	tcase_add_test(tc, test_max_streams);
	tcase_add_test(tc, test_malformed);
#endif
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(http2_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
