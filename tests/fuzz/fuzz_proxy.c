/*
 * tests/fuzz/fuzz_proxy.c - libFuzzer target for the PROXY v2 header
 * parser (util/netevent/proxy_protocol.c).
 *
 * Input: one byte that picks the sizes of the pieces a stream is fed in,
 * then the bytes a client sends (a header, normally followed by a DNS
 * message). The target runs the datagram parser (pp2_parse) on them and
 * the stream gatherer (pp2_stream_feed) on the same bytes cut into
 * pieces, and checks that the two agree: an accepted header has the same
 * length and client address from both, the stream never takes a byte
 * past the header (a piece longer than it asked for included), and a
 * header one
 * refuses the other never accepts. A broken invariant calls abort();
 * memory errors are caught by ASan.
 *
 * Built with libFuzzer under --enable-fuzzing (tests/fuzz/fuzz_proxy);
 * linked with replay_main.c it replays tests/fuzz/corpus/proxy/ (made by
 * tests/fuzz/gen_corpus.py) in make check.
 */
#include "config.h"
#include "util/netevent/proxy_protocol.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** abort when cond is false (kept in release builds, unlike assert) */
#define CHECK(cond) do { if(!(cond)) abort(); } while(0)

/**
 * Feed the stream gatherer b[0..len) in pieces.
 * @param sizes: the piece sizes, cycled (1 + the low 5 bits of each).
 * @param used_total: the bytes it took.
 * @return its result (1, 0 or -1).
 */
static int
feed(const uint8_t *b, size_t len, uint8_t sizes, size_t *used_total,
	struct pp2_info *info)
{
	struct pp2_stream s;
	size_t off = 0;
	unsigned k = 0;
	pp2_stream_init(&s);
	*used_total = 0;
	while(off < len) {
		size_t piece = 1 + (size_t)((sizes >> (k++ % 4)) & 0x1f), used;
		size_t want = pp2_stream_want(&s);
		int st;
		CHECK(want > 0);
		if(piece > len - off)
			piece = len - off;
		st = pp2_stream_feed(&s, b + off, piece, &used, info);
		CHECK(used <= piece);
		/* a piece no longer than it asked for is taken whole */
		if(st == 0 || piece <= want)
			CHECK(used == piece || st == -1);
		*used_total += used;
		if(st != 0) {
			CHECK(st == 1 || st == -1);
			if(st == 1)
				CHECK(pp2_stream_want(&s) == 0);
			return st;
		}
		CHECK(used == piece);
		off += piece;
	}
	return 0;
}

/** the fuzz entry point: a mode byte and a client's first bytes */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pp2_info i1, i2;
	size_t used = 0;
	int p1, st;
	if(size < 1)
		return 0;
	memset(&i1, 0, sizeof(i1));
	memset(&i2, 0, sizeof(i2));
	p1 = pp2_parse(data + 1, size - 1, &i1);
	st = feed(data + 1, size - 1, data[0], &used, &i2);
	if(p1 >= 0) {
		CHECK(p1 >= PP2_HDR_LEN && (size_t)p1 <= size - 1);
		CHECK(pp2_has_signature(data + 1, size - 1));
		CHECK(st == 1);
		CHECK(used == (size_t)p1);
		CHECK(i1.local == i2.local);
		if(!i1.local) {
			CHECK(i1.src.len == i2.src.len);
			CHECK(memcmp(&i1.src.addr, &i2.src.addr,
				i1.src.len) == 0);
		}
	} else {
		/* refused, or cut short (the stream still waits) */
		CHECK(st != 1);
	}
	return 0;
}
