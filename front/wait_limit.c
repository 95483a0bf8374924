/*
 * front/wait_limit.c - wait-limit counts per client address.
 *
 * See wait_limit.h. A key is the address family and the address bytes
 * (16 for IPv6, 4 for IPv4); the hash is FNV-1a over them with a
 * per-table random-free seed (the table is per worker and bounded, so a
 * poor spread costs probing time only, never memory).
 */
#include "config.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <netinet/in.h>
#include "front/wait_limit.h"
#include "util/netaddr.h"

/** one slot */
struct wl_slot {
	/** 0: empty, else AF_INET or AF_INET6 */
	uint16_t family;
	/** clients waiting */
	int count;
	/** the address (IPv4 in the first 4 bytes) */
	uint8_t addr[16];
};

struct wait_limit {
	/** slots, a power of 2 */
	struct wl_slot *slot;
	/** number of slots - 1 */
	size_t mask;
	/** used slots */
	size_t used;
};

/** the key of an address; @return 0, or -1 for an unknown family */
static int
wl_key(const struct netaddr *a, uint16_t *family, uint8_t key[16])
{
	memset(key, 0, 16);
	if(a->addr.ss_family == AF_INET) {
		const struct sockaddr_in *s4 =
			(const struct sockaddr_in *)&a->addr;
		memcpy(key, &s4->sin_addr, 4);
	} else if(a->addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 =
			(const struct sockaddr_in6 *)&a->addr;
		memcpy(key, &s6->sin6_addr, 16);
	} else	return -1;
	*family = (uint16_t)a->addr.ss_family;
	return 0;
}

/** hash of a key */
static size_t
wl_hash(uint16_t family, const uint8_t key[16])
{
	uint32_t h = 2166136261u;
	int i;
	h ^= family;
	h *= 16777619u;
	for(i = 0; i < 16; i++) {
		h ^= key[i];
		h *= 16777619u;
	}
	return (size_t)h;
}

/** the slot of a key, or the empty slot where it would go */
static size_t
wl_find(const struct wait_limit *w, uint16_t family, const uint8_t key[16])
{
	size_t i = wl_hash(family, key) & w->mask;
	while(w->slot[i].family != 0 && (w->slot[i].family != family ||
		memcmp(w->slot[i].addr, key, 16) != 0))
		i = (i + 1) & w->mask;
	return i;
}

struct wait_limit *
wait_limit_create(size_t slots)
{
	struct wait_limit *w = calloc(1, sizeof(*w));
	size_t n = 16;
	if(!w)
		return NULL;
	while(n < slots && n < ((size_t)1 << 30))
		n <<= 1;
	w->slot = calloc(n, sizeof(*w->slot));
	if(!w->slot) {
		free(w);
		return NULL;
	}
	w->mask = n - 1;
	return w;
}

void
wait_limit_delete(struct wait_limit *w)
{
	if(!w)
		return;
	free(w->slot);
	free(w);
}

enum wait_limit_result
wait_limit_add(struct wait_limit *w, const struct netaddr *a, int limit)
{
	uint8_t key[16];
	uint16_t family;
	size_t i;
	if(!w || limit <= 0 || wl_key(a, &family, key) < 0)
		return WAIT_LIMIT_FULL;
	i = wl_find(w, family, key);
	if(w->slot[i].family == 0) {
		/* keep one slot in four free: probes stay short */
		if(w->used + 1 > (w->mask + 1) - (w->mask + 1) / 4)
			return WAIT_LIMIT_FULL;
		w->slot[i].family = family;
		memcpy(w->slot[i].addr, key, 16);
		w->slot[i].count = 0;
		w->used++;
	}
	if(w->slot[i].count >= limit)
		return WAIT_LIMIT_OVER;
	w->slot[i].count++;
	return WAIT_LIMIT_COUNTED;
}

void
wait_limit_remove(struct wait_limit *w, const struct netaddr *a)
{
	uint8_t key[16];
	uint16_t family;
	size_t i, j;
	if(!w || wl_key(a, &family, key) < 0)
		return;
	i = wl_find(w, family, key);
	if(w->slot[i].family == 0)
		return;
	if(--w->slot[i].count > 0)
		return;
	/* empty now: backward-shift deletion keeps every probe chain
	 * unbroken */
	w->slot[i].family = 0;
	w->used--;
	j = i;
	for(;;) {
		size_t home;
		j = (j + 1) & w->mask;
		if(w->slot[j].family == 0)
			break;
		home = wl_hash(w->slot[j].family, w->slot[j].addr) & w->mask;
		/* j may move to i when its home is not in (i, j] */
		if((j > i && (home <= i || home > j)) ||
			(j < i && (home <= i && home > j))) {
			w->slot[i] = w->slot[j];
			w->slot[j].family = 0;
			i = j;
		}
	}
}

int
wait_limit_count(const struct wait_limit *w, const struct netaddr *a)
{
	uint8_t key[16];
	uint16_t family;
	size_t i;
	if(!w || wl_key(a, &family, key) < 0)
		return 0;
	i = wl_find(w, family, key);
	return w->slot[i].family == 0 ? 0 : w->slot[i].count;
}
