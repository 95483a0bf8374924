/*
 * dns/padding.c - EDNS(0) Padding (see padding.h).
 *
 * The walk over the message checks every length against the end, so a
 * malformed message is reported as "no OPT last" and left alone.
 */
#include "config.h"
#include "dns/padding.h"
#include <string.h>

/** read a 16-bit big-endian value */
static uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/** skip a (possibly compressed) name at pos. @return the offset after it,
 * or 0 if malformed */
static size_t
skip_name(const uint8_t *msg, size_t len, size_t pos)
{
	while(pos < len) {
		uint8_t l = msg[pos];
		if((l & 0xc0) == 0xc0)
			return pos + 2 <= len ? pos + 2 : 0;
		if(l & 0xc0)
			return 0;
		pos += 1 + (size_t)l;
		if(l == 0)
			return pos <= len ? pos : 0;
	}
	return 0;
}

int
dns_opt_last(const uint8_t *msg, size_t len, size_t *opt_rdlen_at)
{
	size_t pos = 12, last = 0;
	unsigned qd, rr, i;
	if(len < 12)
		return 0;
	qd = rd16(msg + 4);
	rr = (unsigned)rd16(msg + 6) + rd16(msg + 8) + rd16(msg + 10);
	if(rr == 0)
		return 0;
	for(i = 0; i < qd; i++) {
		if(!(pos = skip_name(msg, len, pos)) || pos + 4 > len)
			return 0;
		pos += 4;
	}
	for(i = 0; i < rr; i++) {
		size_t start = pos;
		if(!(pos = skip_name(msg, len, pos)) || pos + 10 > len)
			return 0;
		last = start;
		pos += 10 + (size_t)rd16(msg + pos + 8);
		if(pos > len)
			return 0;
	}
	if(pos != len)
		return 0;
	/* the last record: root owner, type OPT */
	if(msg[last] != 0 || rd16(msg + last + 1) != 41)
		return 0;
	*opt_rdlen_at = last + 9;
	return 1;
}

int
dns_has_padding(const uint8_t *msg, size_t len)
{
	size_t at, pos, end;
	if(!dns_opt_last(msg, len, &at))
		return 0;
	pos = at + 2;
	end = pos + rd16(msg + at);
	while(pos + 4 <= end) {
		if(rd16(msg + pos) == DNS_EDNS_PADDING)
			return 1;
		pos += 4 + (size_t)rd16(msg + pos + 2);
	}
	return 0;
}

size_t
dns_pad(uint8_t *msg, size_t len, size_t cap, size_t block)
{
	size_t at, total, padlen;
	if(block < 2 || !dns_opt_last(msg, len, &at) ||
		dns_has_padding(msg, len))
		return len;
	/* the option header (4 bytes) always goes in, then zeros up to
	 * the next block boundary */
	total = len + 4;
	if(total % block)
		total += block - total % block;
	if(total > cap || total > 65535 ||
		rd16(msg + at) + (total - len) > 65535)
		return len;
	padlen = total - len - 4;
	msg[len] = 0;
	msg[len + 1] = DNS_EDNS_PADDING;
	msg[len + 2] = (uint8_t)(padlen >> 8);
	msg[len + 3] = (uint8_t)padlen;
	memset(msg + len + 4, 0, padlen);
	{
		size_t rdlen = rd16(msg + at) + (total - len);
		msg[at] = (uint8_t)(rdlen >> 8);
		msg[at + 1] = (uint8_t)rdlen;
	}
	return total;
}

int
dns_has_edns_option(const uint8_t *msg, size_t len, uint16_t code)
{
	size_t at, pos, end;
	if(!dns_opt_last(msg, len, &at))
		return 0;
	pos = at + 2;
	end = pos + rd16(msg + at);
	while(pos + 4 <= end) {
		if(rd16(msg + pos) == code)
			return 1;
		pos += 4 + (size_t)rd16(msg + pos + 2);
	}
	return 0;
}

size_t
dns_add_edns_option(uint8_t *msg, size_t len, size_t cap, uint16_t code,
	const uint8_t *data, uint16_t dlen)
{
	size_t at, rdlen;
	if(!dns_opt_last(msg, len, &at) || dns_has_edns_option(msg, len, code))
		return len;
	rdlen = rd16(msg + at) + 4 + (size_t)dlen;
	if(len + 4 + dlen > cap || len + 4 + dlen > 65535 || rdlen > 65535)
		return len;
	msg[len] = (uint8_t)(code >> 8);
	msg[len + 1] = (uint8_t)code;
	msg[len + 2] = (uint8_t)(dlen >> 8);
	msg[len + 3] = (uint8_t)dlen;
	if(dlen)
		memcpy(msg + len + 4, data, dlen);
	msg[at] = (uint8_t)(rdlen >> 8);
	msg[at + 1] = (uint8_t)rdlen;
	return len + 4 + dlen;
}
