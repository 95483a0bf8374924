/*
 * dns/ecs.c - the EDNS Client Subnet option (RFC 7871) on the wire.
 *
 * See ecs.h. An address is kept as 16 bytes whatever its family; only
 * the first ecs_addr_len() of them count.
 */
#include "config.h"
#include "dns/ecs.h"
#include "util/netaddr.h"
#include <string.h>

size_t
ecs_addr_len(uint16_t family)
{
	return family == 1 ? 4 : 16;
}

void
ecs_mask_addr(uint8_t *a, size_t n, int bits)
{
	size_t i;
	for(i = 0; i < n; i++) {
		int b = bits - (int)i * 8;
		if(b >= 8)
			continue;
		a[i] &= b <= 0 ? 0 : (uint8_t)(0xff << (8 - b));
	}
}

int
ecs_parse(const uint8_t *d, size_t len, int query, struct module_ecs *out)
{
	size_t n, alen;
	uint8_t tmp[16];
	memset(out, 0, sizeof(*out));
	if(len < 4)
		return -1;
	out->family = (uint16_t)((d[0] << 8) | d[1]);
	out->source = d[2];
	out->scope = d[3];
	if(out->family != 1 && out->family != 2)
		return -1;
	alen = ecs_addr_len(out->family);
	if(out->source > alen * 8 || out->scope > alen * 8)
		return -1;
	if(query && out->scope != 0)
		return -1;
	n = ((size_t)out->source + 7) / 8;
	if(len - 4 != n)
		return -1;
	memcpy(out->addr, d + 4, n);
	memcpy(tmp, out->addr, sizeof(tmp));
	ecs_mask_addr(tmp, alen, out->source);
	if(memcmp(tmp, out->addr, alen) != 0)
		return -1; /* bits set past the source prefix */
	return 0;
}

size_t
ecs_write(uint16_t code, const struct module_ecs *e, int source, int scope,
	uint8_t *buf, size_t max)
{
	size_t n = ((size_t)source + 7) / 8;
	uint8_t a[16];
	if(max < 8 + n)
		return 0;
	memcpy(a, e->addr, sizeof(a));
	ecs_mask_addr(a, ecs_addr_len(e->family), source);
	buf[0] = (uint8_t)(code >> 8);
	buf[1] = (uint8_t)code;
	buf[2] = (uint8_t)((4 + n) >> 8);
	buf[3] = (uint8_t)(4 + n);
	buf[4] = (uint8_t)(e->family >> 8);
	buf[5] = (uint8_t)e->family;
	buf[6] = (uint8_t)source;
	buf[7] = (uint8_t)scope;
	memcpy(buf + 8, a, n);
	return 8 + n;
}

int
ecs_from_addr(const struct netaddr *a, struct module_ecs *out)
{
	size_t n = 0;
	const uint8_t *b = netaddr_bytes(a, &n);
	memset(out, 0, sizeof(*out));
	if(!b || (n != 4 && n != 16))
		return -1;
	if(n == 16 && memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12) == 0) {
		/* an IPv4-mapped address is the IPv4 client it is */
		b += 12;
		n = 4;
	}
	out->family = n == 4 ? 1 : 2;
	out->source = (uint8_t)(n * 8);
	memcpy(out->addr, b, n);
	return 0;
}
