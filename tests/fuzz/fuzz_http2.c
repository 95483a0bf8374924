/*
 * tests/fuzz/fuzz_http2.c - libFuzzer target for the DNS-over-HTTPS
 * server side (util/netevent/http2.c over nghttp2).
 *
 * Input: one mode byte, then the bytes a client sends on the connection
 * (the HTTP/2 preface, frames). The mode byte picks:
 *   bits 0-1  how each DNS query is answered: at once from inside the
 *             query callback, later (after the piece of input that brought
 *             it), with an HTTP error status instead, or never;
 *   bits 2-4  the size of the pieces the input is fed in (a socket read
 *             returns what it has: 1 byte, 7, 64, ... or all at once);
 *   bit 5     small byte budgets (query and answer bytes held), so that
 *             streams are refused for want of space;
 *   bits 6-7  the concurrent stream limit (1, 4, 16 or 100).
 * After every piece the session's output is drained, as the TCP service
 * does. Checked: every query handed on is 12..65535 bytes; the budgets
 * never go past their maximum; after the session is freed every byte of
 * them is given back. A broken invariant calls abort(); memory errors and
 * leaks are caught by ASan.
 *
 * Built with libFuzzer under --enable-fuzzing (tests/fuzz/fuzz_http2);
 * linked with replay_main.c it replays tests/fuzz/corpus/http2/ (made by
 * tests/fuzz/gen_corpus.py) in make check.
 */
#include "config.h"
#include "util/netevent/http2.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** abort when cond is false (kept in release builds, unlike assert) */
#define CHECK(cond) do { if(!(cond)) abort(); } while(0)

/** most deferred answers kept */
#define MAX_LATER 64

/** the state of one run */
struct run {
	/** the session */
	struct h2_session *s;
	/** the settings and budgets */
	struct h2_service svc;
	/** answer mode: 0 now, 1 later, 2 HTTP error, 3 never */
	int answer;
	/** the streams to answer later */
	int32_t later[MAX_LATER];
	/** how many */
	int nlater;
	/** the answer to send (the query with QR set) */
	uint8_t ans[65535];
	/** its length */
	size_t anslen;
	/** output bytes drained */
	size_t out;
};

/** the budgets stay within their maximum */
static void
check_budgets(const struct run *r)
{
	CHECK(r->svc.query_used <= r->svc.query_max);
	CHECK(r->svc.response_used <= r->svc.response_max);
}

/** keep the query as the answer to send */
static void
keep_answer(struct run *r, const uint8_t *q, size_t len)
{
	memcpy(r->ans, q, len);
	r->ans[2] |= 0x80;
	r->anslen = len;
}

/** the query callback */
static void
on_query(void *arg, int32_t stream, const uint8_t *q, size_t len)
{
	struct run *r = arg;
	CHECK(len >= 12 && len <= 65535);
	CHECK(stream > 0);
	check_budgets(r);
	keep_answer(r, q, len);
	switch(r->answer) {
	case 0:
		(void)h2_session_answer(r->s, stream, r->ans, r->anslen);
		break;
	case 1:
		if(r->nlater < MAX_LATER)
			r->later[r->nlater++] = stream;
		break;
	case 2:
		(void)h2_session_error(r->s, stream, 400);
		break;
	default:
		break;
	}
	check_budgets(r);
}

/** the output sink */
static int
push(void *arg, const uint8_t *data, size_t len)
{
	struct run *r = arg;
	(void)data;
	r->out += len;
	return 0;
}

/** the piece sizes a mode selects */
static const size_t pieces[8] = { 1, 2, 7, 9, 64, 512, 4096, 1u << 20 };
/** the stream limits a mode selects */
static const int stream_limits[4] = { 1, 4, 16, 100 };

/** the fuzz entry point: a mode byte and a client's bytes */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct run r;
	size_t off = 1, piece;
	int k;
	if(size < 1)
		return 0;
	memset(&r.svc, 0, sizeof(r.svc));
	r.svc.endpoint = "/dns-query";
	r.svc.max_streams = stream_limits[data[0] >> 6];
	r.svc.query_max = (data[0] & 0x20) ? 200 : 1u << 20;
	r.svc.response_max = (data[0] & 0x20) ? 300 : 1u << 20;
	r.answer = data[0] & 0x3;
	r.nlater = 0;
	r.out = 0;
	piece = pieces[(data[0] >> 2) & 0x7];
	r.s = h2_session_create(&r.svc, on_query, &r);
	if(!r.s) {
#ifdef HAVE_NGHTTP2
		abort();
#endif
		return 0; /* built without nghttp2: nothing to test */
	}
	CHECK(h2_session_output(r.s, push, &r) == 0);
	while(off < size) {
		size_t n = size - off < piece ? size - off : piece;
		int rc = h2_session_recv(r.s, data + off, n);
		off += n;
		check_budgets(&r);
		/* the deferred answers, as a worker's come back later */
		for(k = 0; k < r.nlater; k++)
			(void)h2_session_answer(r.s, r.later[k], r.ans,
				r.anslen);
		r.nlater = 0;
		check_budgets(&r);
		if(h2_session_output(r.s, push, &r) != 0 || rc != 0)
			break;
		CHECK(h2_session_streams(r.s) >= 0);
		if(!h2_session_alive(r.s))
			break;
	}
	h2_session_free(r.s);
	/* every byte held for a query or an answer was given back */
	CHECK(r.svc.query_used == 0);
	CHECK(r.svc.response_used == 0);
	return 0;
}
