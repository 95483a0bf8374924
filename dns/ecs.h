/*
 * dns/ecs.h - the EDNS Client Subnet option (RFC 7871) on the wire:
 * parse one, write one, and make the subnet of a client that sent none
 * from its address.
 *
 * The option data is FAMILY (2 bytes: 1 IPv4, 2 IPv6), SOURCE PREFIX-
 * LENGTH, SCOPE PREFIX-LENGTH (a byte each) and the address, cut to the
 * bytes the source prefix covers, with every bit past the prefix zero.
 * A query carries scope 0; a reply says in its scope how far the answer
 * holds.
 *
 * The wire code sits here, beside cookies and padding, so that the front
 * end (which parses the client's option and echoes it in the reply) and
 * the subnetcache module (which sends it upstream and reads the scope of
 * the reply) share it without the front end naming the module. Nothing
 * here allocates, locks or logs: the functions work on caller memory.
 */
#ifndef DNS_ECS_H
#define DNS_ECS_H

#include <stdint.h>
#include <stddef.h>

struct netaddr;

/** the ECS option code of RFC 7871 (client-subnet-opcode's default) */
#define ECS_OPTION_CODE 8

/** the subnet of the client a state answers: the front end makes it,
 * only when the subnetcache module is in the stack, from the client's
 * ECS option or else from its address; the mesh keys the state with it
 * (clients of different subnets never share a state) and keeps a copy in
 * the state's region. Its name is the module contract's (services/
 * module.h, which includes this header, hands it to the modules). */
struct module_ecs {
	/** ECS FAMILY: 1 IPv4, 2 IPv6 */
	uint16_t family;
	/** source prefix length (for an address: 32 or 128) */
	uint8_t source;
	/** scope prefix length of the answer: set by the subnetcache
	 * module, echoed to a client that sent the option */
	uint8_t scope;
	/** 1 when the client sent the option (its reply carries one) */
	uint8_t from_client;
	/** the address; bits past source are zero */
	uint8_t addr[16];
};

/**
 * Bytes of an address of an ECS family.
 * @param family: 1 (IPv4) or 2 (IPv6).
 * @return 4 for IPv4, else 16.
 */
size_t ecs_addr_len(uint16_t family);

/**
 * Zero the bits of an address past a prefix.
 * @param a: the address, changed in place; n its length in bytes.
 * @param bits: the prefix length (0 zeroes all, n * 8 or more none).
 */
void ecs_mask_addr(uint8_t *a, size_t n, int bits);

/**
 * Parse the data of an ECS option.
 * @param d: the option data; len its length.
 * @param query: 1 for a client's option (its scope must be 0).
 * @param out: family, source, scope and address (from_client is 0).
 * @return 0, or -1 when malformed (unknown family, prefix too long,
 *	address length not that of the source prefix, bits set past it, a
 *	scope in a query): the client gets FORMERR.
 */
int ecs_parse(const uint8_t *d, size_t len, int query, struct module_ecs *out);

/**
 * Write an ECS option (code, length, data).
 * @param code: the option code.
 * @param e: family and address (bits past source are written as zero).
 * @param source: the source prefix length; scope: the scope one.
 * @param buf: where; max its room.
 * @return bytes written, 0 when it does not fit.
 */
size_t ecs_write(uint16_t code, const struct module_ecs *e, int source,
	int scope, uint8_t *buf, size_t max);

/**
 * The subnet of a client that sent no option: its whole address (an
 * IPv4-mapped IPv6 address is the IPv4 client it is).
 * @param a: the client's address.
 * @param out: family, source (32 or 128) and address.
 * @return 0, or -1 for an address that is neither IPv4 nor IPv6.
 */
int ecs_from_addr(const struct netaddr *a, struct module_ecs *out);

#endif /* DNS_ECS_H */
