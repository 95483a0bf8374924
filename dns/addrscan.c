/*
 * dns/addrscan.c - the addresses of an answer. See dns/addrscan.h.
 */
#include "config.h"
#include "dns/addrscan.h"
#include "dns/dns.h"
#include "dns/name.h"

int
dns_addr_scan(const uint8_t *pkt, size_t len, dns_addr_cb cb, void *arg,
	struct dns_addr_hit *hit)
{
	size_t pos = DNS_HDR_SIZE, i;
	unsigned qd, an;
	if(len < DNS_HDR_SIZE)
		return -1;
	qd = ((unsigned)pkt[4] << 8) | pkt[5];
	an = ((unsigned)pkt[6] << 8) | pkt[7];
	for(i = 0; i < qd; i++) {
		if(dname_pkt_read(pkt, len, &pos, NULL, NULL) != 0 ||
			pos + 4 > len)
			return -1;
		pos += 4;
	}
	for(i = 0; i < an; i++) {
		size_t owner = pos;
		uint16_t type, cls, rdlen;
		if(dname_pkt_read(pkt, len, &pos, NULL, NULL) != 0 ||
			pos + 10 > len)
			return -1;
		type = (uint16_t)((pkt[pos] << 8) | pkt[pos + 1]);
		cls = (uint16_t)((pkt[pos + 2] << 8) | pkt[pos + 3]);
		rdlen = (uint16_t)((pkt[pos + 8] << 8) | pkt[pos + 9]);
		pos += 10;
		if(pos + rdlen > len)
			return -1;
		if(cls == DNS_CLASS_IN && ((type == DNS_TYPE_A && rdlen == 4) ||
			(type == DNS_TYPE_AAAA && rdlen == 16)) &&
			cb(arg, pkt + pos, rdlen)) {
			hit->idx = i;
			hit->owner_off = owner;
			hit->type = type;
			return 1;
		}
		pos += rdlen;
	}
	return 0;
}
