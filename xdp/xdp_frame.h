/*
 * xdp/xdp_frame.h - the Ethernet/IP/UDP frames of the AF_XDP fast path:
 * the parser that checks a received frame before anything reads its DNS
 * message, and the builder that turns the frame into its reply's frame.
 *
 * The parser accepts Ethernet II (no VLAN tag) carrying IPv4 without
 * options (not a fragment, header checksum right) or IPv6 whose next
 * header is UDP, then UDP whose length fits inside the IP payload and
 * whose checksum is right (IPv4: or 0, no checksum; IPv6: 0 is refused,
 * RFC 8200). Lengths come from the headers, never from the frame alone:
 * an Ethernet frame may be padded. It fills struct xdp_frame_info with
 * offsets into the frame and the two addresses; it allocates nothing and
 * writes nothing but info.
 *
 * The builder writes the reply's headers in place over the query's (the
 * answer's DNS bytes are already at info->dns_off): MAC addresses,
 * IP addresses and UDP ports swapped, lengths set, IPv4 TTL 64 and DF,
 * IPv6 hop limit 64, the IPv4 header checksum and the UDP checksum (also
 * for IPv4, where it is optional) computed.
 */
#ifndef XDP_XDP_FRAME_H
#define XDP_XDP_FRAME_H

#include <stdint.h>
#include <stddef.h>
#include "util/netaddr.h"

/** Ethernet header length */
#define XDP_ETH_LEN 14
/** headers before the DNS message: Ethernet, IPv4 (no options), UDP */
#define XDP_HDR4_LEN (14 + 20 + 8)
/** headers before the DNS message: Ethernet, IPv6, UDP */
#define XDP_HDR6_LEN (14 + 40 + 8)

/** why xdp_frame_parse refused a frame */
enum xdp_frame_err {
	/** a valid UDP datagram */
	XDP_FRAME_OK = 0,
	/** shorter than its headers say, or lengths that disagree */
	XDP_FRAME_SHORT,
	/** not IPv4 or IPv6 over Ethernet II, or IP options, a fragment,
	 * an extension header, not UDP */
	XDP_FRAME_UNHANDLED,
	/** the IPv4 header checksum or the UDP checksum is wrong */
	XDP_FRAME_CHECKSUM
};

/** what xdp_frame_parse found in a frame */
struct xdp_frame_info {
	/** 4 or 6 */
	int family;
	/** offset of the UDP header */
	size_t udp_off;
	/** offset of the DNS message (the UDP payload) */
	size_t dns_off;
	/** length of the DNS message (from the UDP length) */
	size_t dns_len;
	/** the UDP pseudo header's partial sum without the length (the two
	 * addresses and the protocol): the reply's is the same, its
	 * addresses only swap places */
	uint32_t psum;
	/** the client: source address and port */
	struct netaddr src;
	/** the address and port the query was sent to */
	struct netaddr dst;
};

/**
 * Check a received frame and find its UDP payload.
 * @param f: the frame, from its Ethernet header.
 * @param len: its length.
 * @param fi: filled in when the result is XDP_FRAME_OK (partly otherwise).
 * @return XDP_FRAME_OK or why the frame is refused.
 */
enum xdp_frame_err xdp_frame_parse(const uint8_t *f, size_t len,
	struct xdp_frame_info *fi);

/**
 * Turn a query's frame into its reply's: the answer's alen DNS bytes are
 * at f + fi->dns_off; the headers before them are rewritten in place.
 * The caller made sure that fi->dns_off + alen fits in the frame's buffer
 * and that the IP packet fits the interface's MTU.
 * @param f: the frame (the query's headers, as xdp_frame_parse saw them).
 * @param fi: what xdp_frame_parse found in it.
 * @param alen: length of the answer.
 * @return the length of the reply frame.
 */
size_t xdp_frame_reply(uint8_t *f, const struct xdp_frame_info *fi,
	size_t alen);

/**
 * The Internet checksum (RFC 1071) of b[0..len) added to sum.
 * @param sum: a partial sum (0 to start).
 * @return the folded, not yet complemented, 16-bit sum.
 */
uint16_t xdp_csum_add(uint32_t sum, const uint8_t *b, size_t len);

#endif /* XDP_XDP_FRAME_H */
