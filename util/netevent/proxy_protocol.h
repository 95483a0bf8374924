/*
 * util/netevent/proxy_protocol.h - the PROXY protocol version 2 header
 * (haproxy's proxy-protocol.txt, section 2.2), read in front of DNS.
 *
 * A load balancer in front of petrel prepends to every UDP datagram, and
 * to the byte stream of every TCP (or TLS, before the handshake)
 * connection, a binary header that names the client it received the query
 * from. On the ports listed in proxy-protocol-port that header is
 * required: the source address it carries replaces the socket peer for
 * everything above the event layer (access control, views, rate limits,
 * logs, dnstap), while the answer still goes back to the socket peer.
 *
 * The header: the 12-byte signature, a byte with the version (2, high
 * nibble) and the command (LOCAL 0 or PROXY 1), a byte with the address
 * family (high nibble: UNSPEC 0, INET 1, INET6 2, UNIX 3) and transport
 * (low nibble: UNSPEC 0, STREAM 1, DGRAM 2), a 16-bit length of what
 * follows, then the addresses (INET: 4+4+2+2 bytes, INET6: 16+16+2+2) and
 * TLVs (a type byte, a 16-bit length, the value), whose values petrel
 * skips. What petrel accepts:
 *   - PROXY with INET or INET6: the source address and port are the
 *     client's; the TLVs after the addresses must fill the rest of the
 *     header exactly (a TLV whose length runs past the header's end, or
 *     one or two bytes left over, refuse the header);
 *   - LOCAL (a health check from the proxy itself), any family: the
 *     socket's own peer stays the client; the address block (and any
 *     TLVs) is skipped unread.
 * Everything else is refused: a wrong signature (that includes the PROXY
 * version 1 text header, "PROXY TCP4 ...", which petrel does not accept,
 * as Unbound does not), another version or command, PROXY with UNSPEC or
 * UNIX or an unknown family, an unknown transport, a length shorter than
 * the family's addresses, and a header cut short.
 *
 * Nothing here allocates or keeps state beyond what the caller passes in:
 * pp2_parse reads a whole header (a datagram), and struct pp2_stream
 * gathers a header from a byte stream that may come in pieces, asking for
 * no more bytes than the header has, so that what follows it stays in the
 * socket for the DNS (or TLS) reader.
 */
#ifndef UTIL_NETEVENT_PROXY_PROTOCOL_H
#define UTIL_NETEVENT_PROXY_PROTOCOL_H

#include <stddef.h>
#include <stdint.h>
#include "util/netaddr.h"

/** the length of the signature */
#define PP2_SIG_LEN 12
/** the length of the fixed part: signature, ver/cmd, family, length */
#define PP2_HDR_LEN 16
/** the longest address block petrel reads (INET6) */
#define PP2_ADDR_MAX 36
/** bytes of a header kept while it is gathered from a stream */
#define PP2_KEEP (PP2_HDR_LEN + PP2_ADDR_MAX)
/** the longest header petrel accepts, TLVs included: one rule for UDP and
 * TCP (a longer one is refused on both; a proxy-protocol-port's UDP buffer
 * has this much room beyond max-udp-size, so that every header accepted
 * fits with its query). haproxy's TLVs (ALPN, authority, unique ID, TLS
 * details) come to a few hundred bytes. */
#define PP2_MAX_LEN 1024

/** the result of reading a header */
struct pp2_info {
	/** 1 for the LOCAL command (keep the socket's peer), 0 for PROXY */
	int local;
	/** PROXY: the client's address and port (family AF_INET or
	 * AF_INET6); untouched for LOCAL */
	struct netaddr src;
};

/**
 * Does buf start with the PROXY v2 signature? For telling a header sent to
 * a port that does not expect one from a malformed DNS message.
 * @return 1 or 0.
 */
int pp2_has_signature(const uint8_t *buf, size_t len);

/**
 * Read a whole header at the start of buf.
 * @param buf: the bytes (a datagram).
 * @param len: how many.
 * @param info: set on success.
 * @return the header's length (16 + its length field; the DNS message
 *	starts there), or -1 when it is malformed, refused (see the file
 *	comment) or longer than len.
 */
int pp2_parse(const uint8_t *buf, size_t len, struct pp2_info *info);

/** a header being gathered from a stream; zero it (pp2_stream_init) at
 * the start of the connection */
struct pp2_stream {
	/** the fixed part and the address block */
	uint8_t keep[PP2_KEEP];
	/** header bytes consumed so far */
	uint32_t seen;
	/** the header's whole length once the fixed part is in, else 0 */
	uint32_t total;
	/** the offset of the next TLV (PROXY), or total (LOCAL) */
	uint32_t tlv_next;
	/** the high byte of that TLV's length, once read */
	uint8_t tlv_hi;
};

/** Start gathering a header. */
void pp2_stream_init(struct pp2_stream *s);

/**
 * @return how many bytes the header still has at most: read no more than
 *	this, so that nothing after the header is taken. 0 when complete.
 */
size_t pp2_stream_want(const struct pp2_stream *s);

/**
 * Take bytes from the stream.
 * @param s: the state.
 * @param data: the bytes; the header's are consumed from the front.
 * @param len: how many.
 * @param used: set to how many bytes belonged to the header (the rest,
 *	data[used..len), follows it).
 * @param info: set when the header is complete.
 * @return 1 when the header is complete and accepted, 0 when more bytes
 *	are needed, -1 when it is malformed or refused (close the
 *	connection).
 */
int pp2_stream_feed(struct pp2_stream *s, const uint8_t *data, size_t len,
	size_t *used, struct pp2_info *info);

#endif /* UTIL_NETEVENT_PROXY_PROTOCOL_H */
