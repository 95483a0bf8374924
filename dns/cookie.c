/*
 * dns/cookie.c - DNS Cookies (RFC 7873, RFC 9018) and SipHash-2-4.
 *
 * See cookie.h. SipHash is written from its specification (Aumasson and
 * Bernstein, "SipHash: a fast short-input PRF", 2012): the key is two
 * little-endian 64-bit words k0, k1; the state v0..v3 starts from the
 * constants "somepseudorandomlygeneratedbytes" xor the key; each 8-byte
 * little-endian message word m is mixed in with two SipRounds (v3 ^= m
 * before, v0 ^= m after); the last word holds the remaining bytes and
 * the length in its top byte; then v2 ^= 0xff and four SipRounds, and
 * the hash is v0 ^ v1 ^ v2 ^ v3.
 */
#include "config.h"
#include "dns/cookie.h"
#include <string.h>

/** rotate a 64-bit word left */
#define ROTL64(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

/** one SipRound over the state */
#define SIPROUND(v0, v1, v2, v3) do { \
	v0 += v1; v1 = ROTL64(v1, 13); v1 ^= v0; v0 = ROTL64(v0, 32); \
	v2 += v3; v3 = ROTL64(v3, 16); v3 ^= v2; \
	v0 += v3; v3 = ROTL64(v3, 21); v3 ^= v0; \
	v2 += v1; v1 = ROTL64(v1, 17); v1 ^= v2; v2 = ROTL64(v2, 32); \
	} while(0)

/** read 8 bytes little-endian (one load on a little-endian machine) */
static uint64_t
le64(const uint8_t *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t v;
	memcpy(&v, p, 8);
	return v;
#else
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 |
		(uint64_t)p[3] << 24 | (uint64_t)p[4] << 32 |
		(uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
		(uint64_t)p[7] << 56;
#endif
}

uint64_t
cookie_siphash(const uint8_t key[16], const uint8_t *in, size_t len)
{
	uint64_t k0 = le64(key), k1 = le64(key + 8), m, b;
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	size_t i, left = len & 7;
	const uint8_t *end = in + (len - left);

	for(; in != end; in += 8) {
		m = le64(in);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	b = (uint64_t)len << 56;
	for(i = 0; i < left; i++)
		b |= (uint64_t)in[i] << (8 * i);
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;
	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}

void
cookie_siphash_bytes(uint64_t h, uint8_t out[8])
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	memcpy(out, &h, 8);
#else
	int i;
	for(i = 0; i < 8; i++)
		out[i] = (uint8_t)(h >> (8 * i));
#endif
}

/**
 * The hash of a server cookie.
 * @param secret: the key.
 * @param head: client cookie (8), version, reserved and timestamp (8).
 * @param addr, addrlen: the client address bytes.
 * @param out: 8 bytes.
 */
static void
cookie_hash(const uint8_t *secret, const uint8_t *head, const uint8_t *addr,
	size_t addrlen, uint8_t *out)
{
	uint8_t in[16 + 16];
	if(addrlen > 16)
		addrlen = 16;
	memcpy(in, head, 16);
	memcpy(in + 16, addr, addrlen);
	cookie_siphash_bytes(cookie_siphash(secret, in, 16 + addrlen), out);
}

void
cookie_make(const uint8_t *secret, const uint8_t *client_cookie,
	const uint8_t *addr, size_t addrlen, uint32_t now, uint8_t *out)
{
	memcpy(out, client_cookie, COOKIE_CLIENT_LEN);
	out[8] = COOKIE_VERSION;
	out[9] = 0;
	out[10] = 0;
	out[11] = 0;
	out[12] = (uint8_t)(now >> 24);
	out[13] = (uint8_t)(now >> 16);
	out[14] = (uint8_t)(now >> 8);
	out[15] = (uint8_t)now;
	cookie_hash(secret, out, addr, addrlen, out + 16);
}

enum cookie_status
cookie_check(const uint8_t *opt, size_t len, const uint8_t *secrets,
	size_t n, const uint8_t *addr, size_t addrlen, uint32_t now)
{
	uint32_t ts, age;
	uint8_t h[8];
	size_t i;
	if(len != COOKIE_CLIENT_LEN && (len < 16 || len > 40))
		return COOKIE_MALFORMED;
	if(len == COOKIE_CLIENT_LEN)
		return COOKIE_CLIENT_ONLY;
	if(len != COOKIE_FULL_LEN || opt[8] != COOKIE_VERSION)
		return COOKIE_INVALID;
	ts = (uint32_t)opt[12] << 24 | (uint32_t)opt[13] << 16 |
		(uint32_t)opt[14] << 8 | opt[15];
	/* serial number arithmetic (RFC 1982): the difference as signed */
	age = now - ts;
	if((int32_t)age < 0) {
		if((uint32_t)(ts - now) > COOKIE_MAX_FUTURE)
			return COOKIE_FUTURE;
	} else if(age > COOKIE_MAX_AGE)
		return COOKIE_EXPIRED;
	for(i = 0; i < n; i++) {
		cookie_hash(secrets + i * COOKIE_SECRET_LEN, opt, addr,
			addrlen, h);
		if(memcmp(h, opt + 16, 8) == 0)
			return ((int32_t)age > COOKIE_RENEW_AGE) ?
				COOKIE_VALID_RENEW : COOKIE_VALID;
	}
	return COOKIE_INVALID;
}

/** @return the value of a hex digit, or -1 */
static int
hexval(char c)
{
	if(c >= '0' && c <= '9')
		return c - '0';
	if(c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if(c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int
cookie_secret_parse(const char *s, uint8_t *out)
{
	int i;
	if(strlen(s) != 2 * COOKIE_SECRET_LEN)
		return -1;
	for(i = 0; i < COOKIE_SECRET_LEN; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);
		if(hi < 0 || lo < 0)
			return -1;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

void
cookie_secret_hex(const uint8_t *sec, char *out)
{
	static const char dig[] = "0123456789abcdef";
	int i;
	for(i = 0; i < COOKIE_SECRET_LEN; i++) {
		out[2 * i] = dig[sec[i] >> 4];
		out[2 * i + 1] = dig[sec[i] & 0xf];
	}
	out[2 * COOKIE_SECRET_LEN] = 0;
}
