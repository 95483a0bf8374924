/*
 * tests/fuzz/fuzz_xdp.c - libFuzzer target for the frames of the AF_XDP
 * fast path (xdp/xdp_frame.c).
 *
 * Input: one received frame, from its Ethernet header. The target runs
 * the parser on it; when the parser accepts it, the offsets must lie
 * inside the frame, and the reply builder is run on a copy with an
 * answer made of the query's own DNS bytes (as long as the first input
 * byte says, up to the query's length plus 64: answers may be longer):
 * the reply must parse again, with the addresses and ports swapped, the
 * answer's length, and the answer's bytes untouched. A broken invariant
 * calls abort(); memory errors are caught by ASan.
 *
 * Built with libFuzzer under --enable-fuzzing (tests/fuzz/fuzz_xdp);
 * linked with replay_main.c it replays tests/fuzz/corpus/xdp/ (made by
 * tests/fuzz/gen_xdp_corpus.py) in make check.
 */
#include "config.h"
#include "xdp/xdp_frame.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** abort when cond is false (kept in release builds, unlike assert) */
#define CHECK(cond) do { if(!(cond)) abort(); } while(0)

/** the largest frame looked at (an AF_XDP frame is 4096 bytes) */
#define MAXF 4096

/** @return 1 when the two socket addresses are equal */
static int
same_addr(const struct netaddr *a, const struct netaddr *b)
{
	return a->len == b->len && memcmp(&a->addr, &b->addr, a->len) == 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t f[MAXF + 128];
	static uint8_t ans[MAXF];
	struct xdp_frame_info fi, ri;
	size_t alen, len, i;
	if(size > MAXF)
		return 0;
	if(xdp_frame_parse(data, size, &fi) != XDP_FRAME_OK)
		return 0;
	CHECK(fi.family == 4 || fi.family == 6);
	CHECK(fi.udp_off == (fi.family == 4 ? 34u : 54u));
	CHECK(fi.dns_off == fi.udp_off + 8);
	CHECK(fi.dns_off + fi.dns_len <= size);
	/* an answer of the query's bytes, cut or grown */
	alen = size ? (size_t)data[0] % (fi.dns_len + 65) : 0;
	for(i = 0; i < alen; i++)
		ans[i] = fi.dns_len ? data[fi.dns_off + i % fi.dns_len] :
			(uint8_t)i;
	memcpy(f, data, fi.dns_off);
	memcpy(f + fi.dns_off, ans, alen);
	len = xdp_frame_reply(f, &fi, alen);
	CHECK(len == fi.dns_off + alen);
	CHECK(xdp_frame_parse(f, len, &ri) == XDP_FRAME_OK);
	CHECK(ri.family == fi.family);
	CHECK(ri.dns_off == fi.dns_off);
	CHECK(ri.dns_len == alen);
	CHECK(same_addr(&ri.src, &fi.dst));
	CHECK(same_addr(&ri.dst, &fi.src));
	CHECK(memcmp(f + ri.dns_off, ans, alen) == 0);
	return 0;
}
