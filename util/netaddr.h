/*
 * util/netaddr.h - IPv4 and IPv6 addresses, ports and netblocks as text.
 *
 * Forms accepted: "192.0.2.1", "2001:db8::1", "192.0.2.1@53",
 * "2001:db8::1@853", "192.0.2.0/24", "2001:db8::/32". The '@port' form is
 * Unbound's (a colon would be ambiguous with IPv6). IPv6 scope ids
 * ("fe80::1%eth0") are accepted. Parse errors return -1 and fill a short
 * reason that the config parser quotes after "file:line:".
 * Nothing here allocates or logs.
 */
#ifndef UTIL_NETADDR_H
#define UTIL_NETADDR_H

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stddef.h>

/** an address with its length, as the socket calls take it */
struct netaddr {
	struct sockaddr_storage addr;
	socklen_t len;
};

/** a netblock: an address (host bits zeroed) and a prefix length */
struct netblock {
	struct netaddr a;
	int prefix;
};

/** longest text form of an address with port (INET6_ADDRSTRLEN + "@65535" + scope) */
#define NETADDR_STRLEN 80

/**
 * Parse "ip" or "ip@port".
 * @param str: the text.
 * @param default_port: port to use when none is given.
 * @param out: the address.
 * @param err: on failure a static reason string; may be NULL.
 * @return 0 or -1.
 */
int netaddr_parse(const char *str, int default_port, struct netaddr *out,
	const char **err);

/**
 * Parse "ip/prefix" or "ip" (a host: /32 or /128).
 * Host bits past the prefix must be zero unless allow_host_bits is set,
 * in which case they are cleared.
 * @return 0 or -1 with *err set.
 */
int netblock_parse(const char *str, struct netblock *out, int allow_host_bits,
	const char **err);

/**
 * Print an address as "ip" (port 0 or port == default_port) or "ip@port".
 * @param default_port: -1 to always print the port.
 * @return buf.
 */
char *netaddr_str(const struct netaddr *a, int default_port, char *buf,
	size_t len);

/** Print a netblock as "ip/prefix". @return buf. */
char *netblock_str(const struct netblock *b, char *buf, size_t len);

/** @return the address family, AF_INET or AF_INET6. */
int netaddr_family(const struct netaddr *a);

/** @return the port in host order. */
int netaddr_port(const struct netaddr *a);

/** Set the port (host order). */
void netaddr_set_port(struct netaddr *a, int port);

/**
 * Compare two addresses: family, then address bytes, then port.
 * @return <0, 0, >0.
 */
int netaddr_cmp(const struct netaddr *a, const struct netaddr *b);

/** As netaddr_cmp but ignoring the port. */
int netaddr_cmp_addr(const struct netaddr *a, const struct netaddr *b);

/** @return 1 if addr falls inside the netblock, else 0. */
int netblock_match(const struct netblock *b, const struct netaddr *addr);

/** @return 1 if the address is a loopback address (127/8, ::1). */
int netaddr_is_loopback(const struct netaddr *a);

/** Fill a netaddr from a sockaddr. */
void netaddr_from_sockaddr(struct netaddr *out, const struct sockaddr *sa,
	socklen_t len);

/**
 * Get the raw address bytes.
 * @return pointer into the address (4 or 16 bytes), and *n its length.
 */
const uint8_t *netaddr_bytes(const struct netaddr *a, size_t *n);

#endif /* UTIL_NETADDR_H */
