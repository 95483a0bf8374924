/*
 * util/netaddr.c - address text forms and netblock matching. See netaddr.h.
 */
#include "config.h"
#include "util/netaddr.h"
#include <arpa/inet.h>
#include <net/if.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** parse a decimal number in [min,max], whole string. */
static int
parse_num(const char *s, long min, long max, long *out)
{
	char *end;
	long v;
	if(!*s || !isdigit((unsigned char)*s))
		return -1;
	if(strlen(s) > 10)
		return -1;
	v = strtol(s, &end, 10);
	if(*end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/** parse a bare address (no port, no prefix), with optional v6 scope */
static int
parse_ip(const char *s, struct netaddr *out, const char **err)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)&out->addr;
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&out->addr;
	memset(out, 0, sizeof(*out));
	if(!*s) {
		if(err) *err = "empty address";
		return -1;
	}
	if(strchr(s, ':')) {
		char buf[INET6_ADDRSTRLEN + IF_NAMESIZE + 2];
		char *pct;
		if(strlen(s) >= sizeof(buf)) {
			if(err) *err = "IPv6 address too long";
			return -1;
		}
		strcpy(buf, s);
		pct = strchr(buf, '%');
		if(pct)
			*pct++ = 0;
		sin6->sin6_family = AF_INET6;
		if(inet_pton(AF_INET6, buf, &sin6->sin6_addr) != 1) {
			if(err) *err = "not a valid IPv6 address";
			return -1;
		}
		if(pct) {
			long v;
			unsigned idx;
			if(parse_num(pct, 0, 0x7fffffffL, &v) == 0)
				idx = (unsigned)v;
			else	idx = if_nametoindex(pct);
			if(idx == 0) {
				if(err) *err = "unknown IPv6 scope (interface)";
				return -1;
			}
			sin6->sin6_scope_id = idx;
		}
		out->len = sizeof(*sin6);
		return 0;
	}
	sin->sin_family = AF_INET;
	if(inet_pton(AF_INET, s, &sin->sin_addr) != 1) {
		if(err) *err = "not a valid IPv4 or IPv6 address";
		return -1;
	}
	out->len = sizeof(*sin);
	return 0;
}

int
netaddr_parse(const char *str, int default_port, struct netaddr *out,
	const char **err)
{
	char buf[NETADDR_STRLEN];
	char *at;
	long port = default_port;
	if(strlen(str) >= sizeof(buf)) {
		if(err) *err = "address too long";
		return -1;
	}
	strcpy(buf, str);
	at = strchr(buf, '@');
	if(at) {
		*at++ = 0;
		if(parse_num(at, 0, 65535, &port) != 0) {
			if(err) *err = "port after '@' must be a number 0..65535";
			return -1;
		}
	}
	if(strchr(buf, '/')) {
		if(err) *err = "a netblock (ip/prefix) where an address was expected";
		return -1;
	}
	if(parse_ip(buf, out, err) != 0)
		return -1;
	if(port < 0 || port > 65535) {
		if(err) *err = "port out of range";
		return -1;
	}
	netaddr_set_port(out, (int)port);
	return 0;
}

const uint8_t *
netaddr_bytes(const struct netaddr *a, size_t *n)
{
	if(a->addr.ss_family == AF_INET6) {
		*n = 16;
		return (const uint8_t *)&((const struct sockaddr_in6 *)&a->addr)->sin6_addr;
	}
	*n = 4;
	return (const uint8_t *)&((const struct sockaddr_in *)&a->addr)->sin_addr;
}

int
netblock_parse(const char *str, struct netblock *out, int allow_host_bits,
	const char **err)
{
	char buf[NETADDR_STRLEN];
	char *slash;
	long prefix;
	size_t n, i;
	uint8_t *bytes;
	if(strlen(str) >= sizeof(buf)) {
		if(err) *err = "netblock too long";
		return -1;
	}
	strcpy(buf, str);
	if(strchr(buf, '@')) {
		if(err) *err = "a port is not allowed in a netblock";
		return -1;
	}
	slash = strchr(buf, '/');
	if(slash)
		*slash++ = 0;
	if(parse_ip(buf, &out->a, err) != 0)
		return -1;
	bytes = (uint8_t *)netaddr_bytes(&out->a, &n);
	if(slash) {
		if(parse_num(slash, 0, (long)n * 8, &prefix) != 0) {
			if(err) *err = n == 4 ?
				"prefix after '/' must be a number 0..32" :
				"prefix after '/' must be a number 0..128";
			return -1;
		}
	} else	prefix = (long)n * 8;
	out->prefix = (int)prefix;
	for(i = 0; i < n; i++) {
		int bits = (int)prefix - (int)i * 8;
		uint8_t mask = bits >= 8 ? 0xff : bits <= 0 ? 0 :
			(uint8_t)(0xff << (8 - bits));
		if((bytes[i] & (uint8_t)~mask) != 0) {
			if(!allow_host_bits) {
				if(err) *err = "address has bits set past the prefix length";
				return -1;
			}
			bytes[i] &= mask;
		}
	}
	return 0;
}

char *
netaddr_str(const struct netaddr *a, int default_port, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];
	int port = netaddr_port(a);
	size_t n;
	const uint8_t *b = netaddr_bytes(a, &n);
	if(!inet_ntop(a->addr.ss_family == AF_INET6 ? AF_INET6 : AF_INET, b,
		ip, sizeof(ip)))
		snprintf(ip, sizeof(ip), "(bad address)");
	if(default_port == -1 || (port != 0 && port != default_port))
		snprintf(buf, len, "%s@%d", ip, port);
	else	snprintf(buf, len, "%s", ip);
	return buf;
}

char *
netblock_str(const struct netblock *b, char *buf, size_t len)
{
	char ip[NETADDR_STRLEN];
	netaddr_str(&b->a, 0, ip, sizeof(ip));
	snprintf(buf, len, "%s/%d", ip, b->prefix);
	return buf;
}

int
netaddr_family(const struct netaddr *a)
{
	return a->addr.ss_family;
}

int
netaddr_port(const struct netaddr *a)
{
	if(a->addr.ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)&a->addr)->sin6_port);
	return ntohs(((const struct sockaddr_in *)&a->addr)->sin_port);
}

void
netaddr_set_port(struct netaddr *a, int port)
{
	if(a->addr.ss_family == AF_INET6)
		((struct sockaddr_in6 *)&a->addr)->sin6_port = htons((uint16_t)port);
	else	((struct sockaddr_in *)&a->addr)->sin_port = htons((uint16_t)port);
}

int
netaddr_cmp_addr(const struct netaddr *a, const struct netaddr *b)
{
	size_t na, nb;
	const uint8_t *ba, *bb;
	if(a->addr.ss_family != b->addr.ss_family)
		return a->addr.ss_family < b->addr.ss_family ? -1 : 1;
	ba = netaddr_bytes(a, &na);
	bb = netaddr_bytes(b, &nb);
	return memcmp(ba, bb, na);
}

int
netaddr_cmp(const struct netaddr *a, const struct netaddr *b)
{
	int c = netaddr_cmp_addr(a, b);
	if(c)
		return c;
	return netaddr_port(a) - netaddr_port(b);
}

int
netblock_match(const struct netblock *b, const struct netaddr *addr)
{
	size_t n, m, i;
	const uint8_t *x, *y;
	int bits = b->prefix;
	if(b->a.addr.ss_family != addr->addr.ss_family)
		return 0;
	x = netaddr_bytes(&b->a, &n);
	y = netaddr_bytes(addr, &m);
	for(i = 0; i < n && bits > 0; i++, bits -= 8) {
		uint8_t mask = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));
		if((x[i] & mask) != (y[i] & mask))
			return 0;
	}
	return 1;
}

int
netaddr_is_loopback(const struct netaddr *a)
{
	size_t n;
	const uint8_t *b = netaddr_bytes(a, &n);
	static const uint8_t v6lo[16] = {0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,1};
	if(n == 4)
		return b[0] == 127;
	return memcmp(b, v6lo, 16) == 0;
}

void
netaddr_from_sockaddr(struct netaddr *out, const struct sockaddr *sa,
	socklen_t len)
{
	memset(out, 0, sizeof(*out));
	if(len > (socklen_t)sizeof(out->addr))
		len = sizeof(out->addr);
	memcpy(&out->addr, sa, len);
	out->len = len;
}
