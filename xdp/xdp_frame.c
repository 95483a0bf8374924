/*
 * xdp/xdp_frame.c - the frames of the AF_XDP fast path. See xdp_frame.h.
 */
#include "config.h"
#include "xdp/xdp_frame.h"
#include <string.h>
#include <netinet/in.h>

/** read a big-endian 16-bit value */
static inline uint16_t
rd16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

/** write a big-endian 16-bit value */
static inline void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** swap n bytes of a and b (n <= 16) */
static inline void
swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	uint8_t t[16];
	memcpy(t, a, n);
	memcpy(a, b, n);
	memcpy(b, t, n);
}

/** swap the bytes of a 16-bit value */
static inline uint32_t
swap16(uint32_t v)
{
	return ((v & 0xff) << 8) | ((v >> 8) & 0xff);
}

uint16_t
xdp_csum_add(uint32_t sum, const uint8_t *b, size_t len)
{
	/* RFC 1071: the one's complement sum does not depend on the byte
	 * order it is computed in, so it is summed in the CPU's own order,
	 * eight bytes at a time as two 32-bit halves in a 64-bit
	 * accumulator (the carries pile up in the high bits and are folded
	 * at the end), and turned back into network order once */
	uint64_t s;
	uint64_t v8;
	uint32_t v4;
	uint16_t v2;
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = swap16(sum);
#else
	s = sum;
#endif
	while(len >= 8) {
		memcpy(&v8, b, 8);
		s += (v8 & 0xffffffffu) + (v8 >> 32);
		b += 8;
		len -= 8;
	}
	if(len >= 4) {
		memcpy(&v4, b, 4);
		s += v4;
		b += 4;
		len -= 4;
	}
	if(len >= 2) {
		memcpy(&v2, b, 2);
		s += v2;
		b += 2;
		len -= 2;
	}
	if(len) {
		/* the last byte is the high byte of a word padded with 0 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
		s += b[0];
#else
		s += (uint32_t)b[0] << 8;
#endif
	}
	while(s >> 16)
		s = (s & 0xffff) + (s >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (uint16_t)swap16((uint32_t)s);
#else
	return (uint16_t)s;
#endif
}

/** fill an IPv4 socket address */
static void
set_addr4(struct netaddr *a, const uint8_t *ip, const uint8_t *port)
{
	struct sockaddr_in *sa = (struct sockaddr_in *)&a->addr;
	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	memcpy(&sa->sin_addr, ip, 4);
	memcpy(&sa->sin_port, port, 2);
	a->len = (socklen_t)sizeof(*sa);
}

/** fill an IPv6 socket address */
static void
set_addr6(struct netaddr *a, const uint8_t *ip, const uint8_t *port)
{
	struct sockaddr_in6 *sa = (struct sockaddr_in6 *)&a->addr;
	memset(sa, 0, sizeof(*sa));
	sa->sin6_family = AF_INET6;
	memcpy(&sa->sin6_addr, ip, 16);
	memcpy(&sa->sin6_port, port, 2);
	a->len = (socklen_t)sizeof(*sa);
}

enum xdp_frame_err
xdp_frame_parse(const uint8_t *f, size_t len, struct xdp_frame_info *fi)
{
	const uint8_t *ip = f + XDP_ETH_LEN, *udp;
	size_t l4len, ulen;
	uint32_t sum;
	uint16_t csum;
	if(len < XDP_ETH_LEN)
		return XDP_FRAME_SHORT;
	switch(rd16(f + 12)) {
	case 0x0800: {
		size_t tot;
		if(len < XDP_ETH_LEN + 20)
			return XDP_FRAME_SHORT;
		if(ip[0] != 0x45 || (rd16(ip + 6) & 0x3fff) != 0 ||
			ip[9] != IPPROTO_UDP)
			return XDP_FRAME_UNHANDLED;
		tot = rd16(ip + 2);
		if(tot < 20 + 8 || tot > len - XDP_ETH_LEN)
			return XDP_FRAME_SHORT;
		if(xdp_csum_add(0, ip, 20) != 0xffff)
			return XDP_FRAME_CHECKSUM;
		fi->family = 4;
		fi->udp_off = XDP_ETH_LEN + 20;
		l4len = tot - 20;
		/* the pseudo header: the two addresses, protocol (the
		 * length is added below) */
		sum = (uint32_t)xdp_csum_add(0, ip + 12, 8) + IPPROTO_UDP;
		break;
	}
	case 0x86dd:
		if(len < XDP_ETH_LEN + 40)
			return XDP_FRAME_SHORT;
		if((ip[0] >> 4) != 6 || ip[6] != IPPROTO_UDP)
			return XDP_FRAME_UNHANDLED;
		l4len = rd16(ip + 4);
		if(l4len < 8 || l4len > len - XDP_ETH_LEN - 40)
			return XDP_FRAME_SHORT;
		fi->family = 6;
		fi->udp_off = XDP_ETH_LEN + 40;
		sum = (uint32_t)xdp_csum_add(0, ip + 8, 32) + IPPROTO_UDP;
		break;
	default:
		return XDP_FRAME_UNHANDLED;
	}
	udp = f + fi->udp_off;
	ulen = rd16(udp + 4);
	if(ulen < 8 || ulen > l4len)
		return XDP_FRAME_SHORT;
	csum = rd16(udp + 6);
	if(csum == 0 && fi->family == 6)
		return XDP_FRAME_CHECKSUM;
	if(csum != 0 && xdp_csum_add(sum + (uint32_t)ulen, udp, ulen) !=
		0xffff)
		return XDP_FRAME_CHECKSUM;
	fi->dns_off = fi->udp_off + 8;
	fi->dns_len = ulen - 8;
	fi->psum = sum;
	if(fi->family == 4) {
		set_addr4(&fi->src, ip + 12, udp);
		set_addr4(&fi->dst, ip + 16, udp + 2);
	} else {
		set_addr6(&fi->src, ip + 8, udp);
		set_addr6(&fi->dst, ip + 24, udp + 2);
	}
	return XDP_FRAME_OK;
}

size_t
xdp_frame_reply(uint8_t *f, const struct xdp_frame_info *fi, size_t alen)
{
	uint8_t *ip = f + XDP_ETH_LEN, *udp = f + fi->udp_off;
	uint16_t ulen = (uint16_t)(8 + alen), c;
	swap_bytes(f, f + 6, 6);
	if(fi->family == 4) {
		ip[1] = 0;
		wr16(ip + 2, (uint16_t)(20 + ulen));
		wr16(ip + 4, 0);
		wr16(ip + 6, 0x4000);
		ip[8] = 64;
		wr16(ip + 10, 0);
		swap_bytes(ip + 12, ip + 16, 4);
		wr16(ip + 10, (uint16_t)~xdp_csum_add(0, ip, 20));
	} else {
		ip[0] = 0x60;
		ip[1] = ip[2] = ip[3] = 0;
		wr16(ip + 4, ulen);
		ip[7] = 64;
		swap_bytes(ip + 8, ip + 24, 16);
	}
	swap_bytes(udp, udp + 2, 2);
	wr16(udp + 4, ulen);
	wr16(udp + 6, 0);
	c = (uint16_t)~xdp_csum_add(fi->psum + ulen, udp, ulen);
	wr16(udp + 6, c ? c : 0xffff);
	return fi->udp_off + ulen;
}
