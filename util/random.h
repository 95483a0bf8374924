/*
 * util/random.h - per-worker random numbers for query IDs and source ports.
 *
 * Each worker owns a generator: ChaCha20 in counter mode, keyed with 32
 * bytes from the operating system (getrandom(2), or OpenSSL's RAND_bytes
 * when getrandom is not available) and rekeyed from its own output every
 * 1.6 MB, so an attacker who sees query IDs cannot predict the next ones.
 * No locks: a generator belongs to one thread. Ranges are unbiased
 * (rejection sampling), which matters for IDs and ports an attacker must
 * guess.
 */
#ifndef UTIL_RANDOM_H
#define UTIL_RANDOM_H

#include <stdint.h>
#include <stddef.h>

struct petrel_random;

/**
 * Create a generator seeded from the operating system.
 * @return the generator, or NULL if no entropy could be had (logged).
 *	Free with random_delete.
 */
struct petrel_random *random_create(void);

/**
 * Create a generator with a fixed seed (tests and replay only: never for
 * queries that leave the machine).
 */
struct petrel_random *random_create_seeded(uint64_t seed);

/** Free a generator. NULL is allowed. */
void random_delete(struct petrel_random *r);

/** @return 32 random bits. */
uint32_t random_u32(struct petrel_random *r);

/** @return a uniformly distributed value in [0, n), without bias; 0 if n is 0. */
uint32_t random_uniform(struct petrel_random *r, uint32_t n);

/** Fill buf with len random bytes. */
void random_bytes(struct petrel_random *r, void *buf, size_t len);

/**
 * Get seed bytes from the operating system.
 * @return 0 on success, -1 on failure.
 */
int random_os_bytes(void *buf, size_t len);

#endif /* UTIL_RANDOM_H */
