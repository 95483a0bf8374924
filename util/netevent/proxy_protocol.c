/*
 * util/netevent/proxy_protocol.c - the PROXY protocol version 2 header.
 *
 * See proxy_protocol.h for what is accepted. One function checks the
 * fixed 16 bytes and says how long the header is and how many address
 * bytes petrel reads; the datagram parser and the stream gatherer both
 * go through it, so they accept and refuse the same headers. Likewise
 * one function walks the TLVs of a PROXY header over whatever piece of
 * it is at hand (the whole datagram, or a stream's bytes as they come),
 * so that both refuse a TLV area that does not end exactly at the
 * header's end.
 */
#include "config.h"
#include "util/netevent/proxy_protocol.h"
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>

/** the signature (proxy-protocol.txt, 2.2) */
static const uint8_t pp2_sig[PP2_SIG_LEN] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

/** version 2 in the high nibble of byte 12 */
#define PP2_VERSION 0x20
/** commands, the low nibble of byte 12 */
#define PP2_CMD_LOCAL 0x0
/** the proxied connection command */
#define PP2_CMD_PROXY 0x1
/** families, the high nibble of byte 13 */
#define PP2_AF_INET 0x1
/** IPv6 */
#define PP2_AF_INET6 0x2
/** transports, the low nibble of byte 13: 0 UNSPEC, 1 STREAM, 2 DGRAM */
#define PP2_TRANSPORT_MAX 0x2

int
pp2_has_signature(const uint8_t *buf, size_t len)
{
	return len >= PP2_SIG_LEN && memcmp(buf, pp2_sig, PP2_SIG_LEN) == 0;
}

/**
 * Check the fixed part.
 * @param h: PP2_HDR_LEN bytes.
 * @param addrlen: set to the address bytes to read (0 for LOCAL).
 * @return the whole header length, or -1 when refused.
 */
static int
pp2_fixed(const uint8_t *h, size_t *addrlen)
{
	int cmd, fam, len;
	if(memcmp(h, pp2_sig, PP2_SIG_LEN) != 0)
		return -1;
	if((h[12] & 0xf0) != PP2_VERSION)
		return -1;
	cmd = h[12] & 0x0f;
	fam = h[13] >> 4;
	len = (h[14] << 8) | h[15];
	if((h[13] & 0x0f) > PP2_TRANSPORT_MAX || PP2_HDR_LEN + len > PP2_MAX_LEN)
		return -1;
	if(cmd == PP2_CMD_LOCAL) {
		/* the proxy speaking for itself: the addresses, if any,
		 * say nothing about a client */
		*addrlen = 0;
		return PP2_HDR_LEN + len;
	}
	if(cmd != PP2_CMD_PROXY)
		return -1;
	if(fam == PP2_AF_INET)
		*addrlen = 12;
	else if(fam == PP2_AF_INET6)
		*addrlen = 36;
	else	return -1; /* UNSPEC, UNIX, unknown: no client address */
	if((size_t)len < *addrlen)
		return -1;
	return PP2_HDR_LEN + len;
}

/**
 * Walk the TLVs over a piece of the header. Each TLV is a type byte and
 * a 16-bit length, then that many bytes; only the lengths are read.
 * @param tlv_next: the offset (from the header's start) of the next TLV;
 *	advanced past every TLV whose length is in the piece.
 * @param tlv_hi: the high byte of that TLV's length, kept when the piece
 *	ends between the two length bytes.
 * @param data: the piece: the header's bytes from offset from on.
 * @param from: the offset of data[0].
 * @param to: the offset just past the piece.
 */
static void
pp2_tlv_walk(uint32_t *tlv_next, uint8_t *tlv_hi, const uint8_t *data,
	uint32_t from, uint32_t to)
{
	/* the bytes before tlv_next + 1 were seen in an earlier piece, so
	 * the length's low byte, if in this piece, is at or after from */
	while(*tlv_next + 2 < to) {
		uint32_t o = *tlv_next + 1;
		if(o >= from)
			*tlv_hi = data[o - from];
		*tlv_next += 3 + (((uint32_t)*tlv_hi << 8) | data[o + 1 - from]);
	}
	if(*tlv_next + 1 < to && *tlv_next + 1 >= from)
		*tlv_hi = data[*tlv_next + 1 - from];
}

/** fill info from a checked header whose address block is in h */
static void
pp2_info_set(const uint8_t *h, size_t addrlen, struct pp2_info *info)
{
	const uint8_t *a = h + PP2_HDR_LEN;
	if(addrlen == 0) {
		info->local = 1;
		return;
	}
	info->local = 0;
	memset(&info->src, 0, sizeof(info->src));
	if(addrlen == 12) {
		struct sockaddr_in *sa = (struct sockaddr_in *)&info->src.addr;
		sa->sin_family = AF_INET;
		memcpy(&sa->sin_addr, a, 4);
		memcpy(&sa->sin_port, a + 8, 2);
		info->src.len = sizeof(*sa);
	} else {
		struct sockaddr_in6 *sa = (struct sockaddr_in6 *)
			&info->src.addr;
		sa->sin6_family = AF_INET6;
		memcpy(&sa->sin6_addr, a, 16);
		memcpy(&sa->sin6_port, a + 32, 2);
		info->src.len = sizeof(*sa);
	}
}

int
pp2_parse(const uint8_t *buf, size_t len, struct pp2_info *info)
{
	size_t addrlen;
	int total;
	uint32_t tlv_next;
	uint8_t tlv_hi = 0;
	if(len < PP2_HDR_LEN)
		return -1;
	total = pp2_fixed(buf, &addrlen);
	if(total < 0 || (size_t)total > len)
		return -1;
	if(addrlen != 0) {
		/* PROXY: the TLVs must end where the header does (a LOCAL
		 * header's block is discarded whole, unread) */
		tlv_next = PP2_HDR_LEN + (uint32_t)addrlen;
		pp2_tlv_walk(&tlv_next, &tlv_hi, buf, 0, (uint32_t)total);
		if(tlv_next != (uint32_t)total)
			return -1;
	}
	pp2_info_set(buf, addrlen, info);
	return total;
}

void
pp2_stream_init(struct pp2_stream *s)
{
	s->seen = 0;
	s->total = 0;
	s->tlv_next = 0;
	s->tlv_hi = 0;
}

size_t
pp2_stream_want(const struct pp2_stream *s)
{
	if(s->total == 0)
		return PP2_HDR_LEN - s->seen;
	return s->total - s->seen;
}

int
pp2_stream_feed(struct pp2_stream *s, const uint8_t *data, size_t len,
	size_t *used, struct pp2_info *info)
{
	size_t addrlen = 0;
	*used = 0;
	while(len > 0) {
		size_t want = pp2_stream_want(s), take;
		if(want == 0)
			break;
		take = want < len ? want : len;
		/* keep what is read of the fixed part and addresses; the
		 * TLVs (and a longer block of a LOCAL header) are skipped */
		if(s->seen < PP2_KEEP) {
			size_t k = PP2_KEEP - s->seen;
			memcpy(s->keep + s->seen, data, take < k ? take : k);
		}
		if(s->total != 0)
			pp2_tlv_walk(&s->tlv_next, &s->tlv_hi, data, s->seen,
				s->seen + (uint32_t)take);
		s->seen += (uint32_t)take;
		*used += take;
		data += take;
		len -= take;
		if(s->total == 0 && s->seen == PP2_HDR_LEN) {
			int t = pp2_fixed(s->keep, &addrlen);
			if(t < 0)
				return -1;
			s->total = (uint32_t)t;
			/* LOCAL: no TLVs to walk (the block is discarded) */
			s->tlv_next = addrlen ? PP2_HDR_LEN + (uint32_t)addrlen :
				s->total;
		}
		if(s->tlv_next > s->total)
			return -1; /* a TLV runs past the header's end */
	}
	if(s->total == 0 || s->seen < s->total) {
		/* refuse a wrong start at once, without waiting for all
		 * sixteen bytes (a DNS client on the wrong port) */
		size_t n = s->seen < PP2_SIG_LEN ? s->seen : PP2_SIG_LEN;
		if(s->total == 0 && memcmp(s->keep, pp2_sig, n) != 0)
			return -1;
		return 0;
	}
	if(s->tlv_next != s->total)
		return -1; /* the last TLV is cut short by the header's end */
	(void)pp2_fixed(s->keep, &addrlen);
	pp2_info_set(s->keep, addrlen, info);
	return 1;
}
