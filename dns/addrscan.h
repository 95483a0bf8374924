/*
 * dns/addrscan.h - the addresses of an answer: a walk over the A and
 * AAAA records of an answer section, with a callback per address.
 *
 * Two rule sets look at the addresses an answer holds: response-ip
 * (respip/) and the RESPONSE-IP triggers of the RPZ zones (services/
 * rpz.h). Both walk the answer the same way and stop at the first
 * address their rules hold, so the walk lives here, below both, and each
 * passes the test of an address as a callback. The walk reads the packet
 * in place: no allocation, no copy.
 */
#ifndef DNS_ADDRSCAN_H
#define DNS_ADDRSCAN_H

#include <stddef.h>
#include <stdint.h>

/** the address record a walk stopped at */
struct dns_addr_hit {
	/** index of the record in the answer section */
	size_t idx;
	/** offset of its owner name in the packet */
	size_t owner_off;
	/** its type (DNS_TYPE_A or DNS_TYPE_AAAA) */
	uint16_t type;
};

/**
 * The test of one address.
 * @param arg: the caller's argument.
 * @param addr: the RDATA of an A (4 bytes) or AAAA (16 bytes) record of
 *	class IN; alen its length.
 * @return 1 to stop the walk at this record, 0 to go on.
 */
typedef int (*dns_addr_cb)(void *arg, const uint8_t *addr, size_t alen);

/**
 * Walk the answer section of a packet (after its question section) and
 * call cb for the address of each A and AAAA record of class IN with the
 * right RDATA length, in order.
 * @param pkt: the packet; len its length.
 * @param cb, arg: the test and its argument.
 * @param hit: set when the test stopped the walk.
 * @return 1 with hit set when cb stopped at a record, 0 when it stopped
 *	at none, -1 when the packet does not parse (up to where the walk
 *	got).
 */
int dns_addr_scan(const uint8_t *pkt, size_t len, dns_addr_cb cb, void *arg,
	struct dns_addr_hit *hit);

#endif /* DNS_ADDRSCAN_H */
