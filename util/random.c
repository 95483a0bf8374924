/*
 * util/random.c - ChaCha20-based per-worker generator. See random.h.
 *
 * The ChaCha20 block function follows RFC 8439 section 2.3. The generator
 * keeps one 64-byte block of output and hands it out 4 bytes at a time;
 * after REKEY_BLOCKS blocks it replaces its key with fresh output
 * (fast key erasure), so state captured later does not reveal earlier IDs.
 */
#include "config.h"
#include "util/random.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#ifdef HAVE_SYS_RANDOM_H
#include <sys/random.h>
#endif
#include <openssl/rand.h>

#define REKEY_BLOCKS 25000

struct petrel_random {
	uint32_t key[8];
	uint32_t counter;
	uint32_t nonce[3];
	uint8_t block[64];
	/** bytes of block already used */
	unsigned used;
	unsigned blocks;
};

#define ROTL(v, n) (((v) << (n)) | ((v) >> (32 - (n))))
#define QR(a, b, c, d) do { \
	a += b; d ^= a; d = ROTL(d, 16); \
	c += d; b ^= c; b = ROTL(b, 12); \
	a += b; d ^= a; d = ROTL(d, 8); \
	c += d; b ^= c; b = ROTL(b, 7); } while(0)

/** compute one ChaCha20 block into out */
static void
chacha_block(const uint32_t key[8], uint32_t counter, const uint32_t nonce[3],
	uint8_t out[64])
{
	uint32_t in[16], x[16];
	int i;
	in[0] = 0x61707865; in[1] = 0x3320646e;
	in[2] = 0x79622d32; in[3] = 0x6b206574;
	for(i = 0; i < 8; i++)
		in[4 + i] = key[i];
	in[12] = counter;
	in[13] = nonce[0]; in[14] = nonce[1]; in[15] = nonce[2];
	memcpy(x, in, sizeof(x));
	for(i = 0; i < 10; i++) {
		QR(x[0], x[4], x[8], x[12]);
		QR(x[1], x[5], x[9], x[13]);
		QR(x[2], x[6], x[10], x[14]);
		QR(x[3], x[7], x[11], x[15]);
		QR(x[0], x[5], x[10], x[15]);
		QR(x[1], x[6], x[11], x[12]);
		QR(x[2], x[7], x[8], x[13]);
		QR(x[3], x[4], x[9], x[14]);
	}
	for(i = 0; i < 16; i++) {
		uint32_t v = x[i] + in[i];
		out[4 * i] = (uint8_t)v;
		out[4 * i + 1] = (uint8_t)(v >> 8);
		out[4 * i + 2] = (uint8_t)(v >> 16);
		out[4 * i + 3] = (uint8_t)(v >> 24);
	}
}

/** produce the next block, rekeying when due */
static void
refill(struct petrel_random *r)
{
	if(++r->blocks >= REKEY_BLOCKS) {
		uint8_t k[64];
		chacha_block(r->key, r->counter++, r->nonce, k);
		memcpy(r->key, k, sizeof(r->key));
		memset(k, 0, sizeof(k));
		r->blocks = 0;
	}
	chacha_block(r->key, r->counter++, r->nonce, r->block);
	if(r->counter == 0)
		r->nonce[0]++;
	r->used = 0;
}

int
random_os_bytes(void *buf, size_t len)
{
#ifdef HAVE_GETRANDOM
	uint8_t *p = buf;
	size_t got = 0;
	while(got < len) {
		ssize_t n = getrandom(p + got, len - got, 0);
		if(n < 0) {
			if(errno == EINTR)
				continue;
			break;
		}
		got += (size_t)n;
	}
	if(got == len)
		return 0;
#endif
	if(RAND_bytes(buf, (int)len) == 1)
		return 0;
	return -1;
}

struct petrel_random *
random_create(void)
{
	struct petrel_random *r = calloc(1, sizeof(*r));
	if(!r)
		return NULL;
	if(random_os_bytes(r->key, sizeof(r->key)) != 0 ||
		random_os_bytes(r->nonce, sizeof(r->nonce)) != 0) {
		log_err("random: cannot get entropy from the operating system");
		free(r);
		return NULL;
	}
	r->used = 64;
	return r;
}

struct petrel_random *
random_create_seeded(uint64_t seed)
{
	struct petrel_random *r = calloc(1, sizeof(*r));
	if(!r)
		return NULL;
	r->key[0] = (uint32_t)seed;
	r->key[1] = (uint32_t)(seed >> 32);
	r->used = 64;
	return r;
}

void
random_delete(struct petrel_random *r)
{
	if(!r)
		return;
	memset(r, 0, sizeof(*r));
	free(r);
}

void
random_bytes(struct petrel_random *r, void *buf, size_t len)
{
	uint8_t *p = buf;
	while(len > 0) {
		size_t n;
		if(r->used >= 64)
			refill(r);
		n = 64 - r->used;
		if(n > len)
			n = len;
		memcpy(p, r->block + r->used, n);
		memset(r->block + r->used, 0, n);
		r->used += (unsigned)n;
		p += n;
		len -= n;
	}
}

uint32_t
random_u32(struct petrel_random *r)
{
	uint32_t v;
	if(r->used + 4 > 64)
		refill(r);
	memcpy(&v, r->block + r->used, 4);
	r->used += 4;
	return v;
}

uint32_t
random_uniform(struct petrel_random *r, uint32_t n)
{
	uint32_t v, min;
	if(n < 2)
		return 0;
	/* 2^32 mod n: values below this would make the low ones likelier */
	min = (uint32_t)(-n) % n;
	do {
		v = random_u32(r);
	} while(v < min);
	return v % n;
}
