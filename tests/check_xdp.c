/*
 * tests/check_xdp.c - the frames of the AF_XDP fast path (xdp/xdp_frame.h).
 *
 * The known packets are frames the Linux kernel sent over a veth pair
 * with checksum offload off (captured with tshark): a DNS query and its
 * answer over IPv4 and over IPv6, so every checksum in them was computed
 * by the kernel, not by the code under test. The parser must accept all
 * four and find the addresses, ports and the DNS message; it must refuse
 * every kind of broken frame (a flipped bit under either checksum, each
 * cut-short length, lengths that disagree, IP options, fragments, VLAN
 * tags, ARP, IPv6 with a zero UDP checksum) and accept the legal
 * oddities (Ethernet padding, an IPv4 UDP checksum of 0). The builder
 * turns each query frame, with the answer's DNS bytes written in, into
 * the kernel's answer frame byte for byte, apart from the fields it sets
 * on purpose (IPv4 identification 0, so its header checksum; IPv6 flow
 * label 0): the UDP checksums, which cover neither, are the kernel's.
 * Last, xdp_set_open on an interface that is not there gives no set.
 */
#include "config.h"
#include "xdp/xdp_frame.h"
#include "xdp/xdp_sock.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

/** dig's query for www.example.com A from 198.18.0.2#40000 */
static const char *Q4 =
	"424d803aafd1cec6227ee46908004500003da660000040114828c6120002c6120001"
	"9c400035002920396c490120000100000000000003777777076578616d706c650363"
	"6f6d0000010001";
/** the kernel's answer to it (a UDP socket on 198.18.0.1#53) */
static const char *R4 =
	"cec6227ee469424d803aafd108004500003dfeba40004011afcdc6120001c6120002"
	"00359c4000299fd86c498180000100000000000003777777076578616d706c650363"
	"6f6d0000010001";
/** that answer with IPv4 identification 0 (and so header checksum
 * 0xae88): what the builder makes */
static const char *R4_BUILT =
	"cec6227ee469424d803aafd108004500003d000040004011ae88c6120001c6120002"
	"00359c4000299fd86c498180000100000000000003777777076578616d706c650363"
	"6f6d0000010001";
/** dig's query for www.example.com AAAA from [2001:2::2]#40001 */
static const char *Q6 =
	"424d803aafd1cec6227ee46986dd600641810029114020010002000000000000000000"
	"000002200100020000000000000000000000019c410035002993652a3b012000010000"
	"0000000003777777076578616d706c6503636f6d00001c0001";
/** the kernel's answer to it */
static const char *R6 =
	"cec6227ee469424d803aafd186dd600caee10029114020010002000000000000000000"
	"00000120010002000000000000000000000002"
	"00359c41002913052a3b8180000100000000000003777777076578616d706c650363"
	"6f6d00001c0001";
/** that answer with flow label 0: what the builder makes */
static const char *R6_BUILT =
	"cec6227ee469424d803aafd186dd600000000029114020010002000000000000000000"
	"00000120010002000000000000000000000002"
	"00359c41002913052a3b8180000100000000000003777777076578616d706c650363"
	"6f6d00001c0001";

/** hex to bytes. @return the length */
static size_t
unhex(const char *h, uint8_t *out, size_t max)
{
	size_t n = 0;
	unsigned v;
	while(h[0] && h[1] && n < max) {
		ck_assert(sscanf(h, "%2x", &v) == 1);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

/** the naive Internet checksum of b (16-bit words, one at a time), to
 * check xdp_csum_add's four-at-a-time loop against */
static uint16_t
naive_csum(const uint8_t *b, size_t len)
{
	uint32_t s = 0;
	size_t i;
	for(i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(b[i] << 8 | b[i + 1]);
	if(len & 1)
		s += (uint32_t)b[len - 1] << 8;
	while(s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/** the port of a socket address */
static int
port_of(const struct netaddr *a)
{
	if(a->addr.ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)&a->addr)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)&a->addr)->sin6_port);
}

/** the address of a socket address, as text */
static const char *
addr_of(const struct netaddr *a, char *buf, size_t len)
{
	if(a->addr.ss_family == AF_INET)
		return inet_ntop(AF_INET, &((const struct sockaddr_in *)
			&a->addr)->sin_addr, buf, (socklen_t)len);
	return inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)
		&a->addr)->sin6_addr, buf, (socklen_t)len);
}

START_TEST(test_parse_known)
{
	uint8_t f[256];
	char b[64];
	struct xdp_frame_info fi;
	size_t n = unhex(Q4, f, sizeof(f));
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	ck_assert_int_eq(fi.family, 4);
	ck_assert_uint_eq(fi.udp_off, 34);
	ck_assert_uint_eq(fi.dns_off, 42);
	ck_assert_uint_eq(fi.dns_len, 33);
	ck_assert_uint_eq(f[fi.dns_off], 0x6c);
	ck_assert_str_eq(addr_of(&fi.src, b, sizeof(b)), "198.18.0.2");
	ck_assert_int_eq(port_of(&fi.src), 40000);
	ck_assert_str_eq(addr_of(&fi.dst, b, sizeof(b)), "198.18.0.1");
	ck_assert_int_eq(port_of(&fi.dst), 53);
	n = unhex(R4, f, sizeof(f));
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	ck_assert_int_eq(port_of(&fi.src), 53);
	n = unhex(Q6, f, sizeof(f));
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	ck_assert_int_eq(fi.family, 6);
	ck_assert_uint_eq(fi.udp_off, 54);
	ck_assert_uint_eq(fi.dns_off, 62);
	ck_assert_uint_eq(fi.dns_len, 33);
	ck_assert_str_eq(addr_of(&fi.src, b, sizeof(b)), "2001:2::2");
	ck_assert_int_eq(port_of(&fi.src), 40001);
	ck_assert_str_eq(addr_of(&fi.dst, b, sizeof(b)), "2001:2::1");
	ck_assert_int_eq(port_of(&fi.dst), 53);
	n = unhex(R6, f, sizeof(f));
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
}
END_TEST

/** every bit flipped under a checksum (or in a field the parser reads)
 * is caught; the Ethernet addresses are covered by nothing and skipped */
START_TEST(test_parse_bitflips)
{
	const char *frames[2];
	uint8_t f[256];
	struct xdp_frame_info fi;
	size_t n, i;
	int k, bit;
	frames[0] = Q4;
	frames[1] = Q6;
	for(k = 0; k < 2; k++) {
		n = unhex(frames[k], f, sizeof(f));
		for(i = XDP_ETH_LEN; i < n; i++) {
			for(bit = 0; bit < 8; bit++) {
				/* IPv6 has no header checksum: its traffic
				 * class, flow label and hop limit are not
				 * covered by anything */
				if(k == 1 && ((i == 14 && bit < 4) ||
					(i >= 15 && i <= 17) || i == 21))
					continue;
				f[i] ^= (uint8_t)(1 << bit);
				ck_assert_msg(xdp_frame_parse(f, n, &fi) !=
					XDP_FRAME_OK, "frame %d byte %zu bit "
					"%d flipped and accepted", k, i, bit);
				f[i] ^= (uint8_t)(1 << bit);
			}
		}
		ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	}
}
END_TEST

START_TEST(test_parse_short)
{
	uint8_t f[256];
	struct xdp_frame_info fi;
	size_t n4 = unhex(Q4, f, sizeof(f)), i;
	for(i = 0; i < n4; i++)
		ck_assert_int_eq(xdp_frame_parse(f, i, &fi), XDP_FRAME_SHORT);
	n4 = unhex(Q6, f, sizeof(f));
	for(i = 0; i < n4; i++)
		ck_assert_int_eq(xdp_frame_parse(f, i, &fi), XDP_FRAME_SHORT);
}
END_TEST

START_TEST(test_parse_odd)
{
	uint8_t f[256];
	struct xdp_frame_info fi;
	size_t n = unhex(Q4, f, sizeof(f));
	/* Ethernet padding after the IP packet: taken from the headers */
	memset(f + n, 0, 20);
	ck_assert_int_eq(xdp_frame_parse(f, n + 20, &fi), XDP_FRAME_OK);
	ck_assert_uint_eq(fi.dns_len, 33);
	/* IPv4: a UDP checksum of 0 is no checksum */
	f[40] = f[41] = 0;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	/* a UDP length past the IP payload */
	f[38] = 0;
	f[39] = 0x2a;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_SHORT);
	/* a UDP length below its header */
	f[39] = 7;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_SHORT);
	/* IPv6: a UDP checksum of 0 is refused (RFC 8200) */
	n = unhex(Q6, f, sizeof(f));
	f[60] = f[61] = 0;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_CHECKSUM);
	/* an IPv6 payload length past the frame */
	n = unhex(Q6, f, sizeof(f));
	f[19] = 0x2a;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_SHORT);
}
END_TEST

START_TEST(test_parse_unhandled)
{
	uint8_t f[256];
	struct xdp_frame_info fi;
	size_t n = unhex(Q4, f, sizeof(f));
	/* IP options (IHL 6) */
	f[14] = 0x46;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	/* more fragments, a fragment offset */
	n = unhex(Q4, f, sizeof(f));
	f[20] = 0x20;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	f[20] = 0x00;
	f[21] = 0x01;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	/* TCP */
	n = unhex(Q4, f, sizeof(f));
	f[23] = 6;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	/* a VLAN tag, ARP */
	n = unhex(Q4, f, sizeof(f));
	f[12] = 0x81;
	f[13] = 0x00;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	f[12] = 0x08;
	f[13] = 0x06;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	/* IPv6 with an extension header (hop-by-hop), a fragment header */
	n = unhex(Q6, f, sizeof(f));
	f[20] = 0;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	f[20] = 44;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
	/* a version that does not match the type */
	n = unhex(Q6, f, sizeof(f));
	f[14] = 0x40;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_UNHANDLED);
}
END_TEST

/** turn query frame q into its answer with the DNS bytes of r, and
 * compare with want */
static void
check_build(const char *q, const char *r, const char *want)
{
	uint8_t f[256], rf[256], w[256];
	struct xdp_frame_info fi, rfi;
	size_t n = unhex(q, f, sizeof(f)), rn = unhex(r, rf, sizeof(rf));
	size_t wn = unhex(want, w, sizeof(w)), len;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	ck_assert_int_eq(xdp_frame_parse(rf, rn, &rfi), XDP_FRAME_OK);
	memcpy(f + fi.dns_off, rf + rfi.dns_off, rfi.dns_len);
	len = xdp_frame_reply(f, &fi, rfi.dns_len);
	ck_assert_uint_eq(len, wn);
	ck_assert_msg(memcmp(f, w, wn) == 0, "built frame differs");
	/* and it parses, its checksums right */
	ck_assert_int_eq(xdp_frame_parse(f, len, &rfi), XDP_FRAME_OK);
}

START_TEST(test_build_known)
{
	check_build(Q4, R4, R4_BUILT);
	check_build(Q6, R6, R6_BUILT);
}
END_TEST

/** an answer longer than the query: lengths and checksums follow */
START_TEST(test_build_longer)
{
	uint8_t f[2048];
	struct xdp_frame_info fi, rfi;
	size_t n = unhex(Q4, f, sizeof(f)), len, i;
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	for(i = 0; i < 1000; i++)
		f[fi.dns_off + i] = (uint8_t)(i * 7 + 3);
	len = xdp_frame_reply(f, &fi, 1000);
	ck_assert_uint_eq(len, 42 + 1000);
	ck_assert_int_eq(xdp_frame_parse(f, len, &rfi), XDP_FRAME_OK);
	ck_assert_uint_eq(rfi.dns_len, 1000);
	ck_assert_int_eq(port_of(&rfi.dst), 40000);
	n = unhex(Q6, f, sizeof(f));
	ck_assert_int_eq(xdp_frame_parse(f, n, &fi), XDP_FRAME_OK);
	for(i = 0; i < 1001; i++)
		f[fi.dns_off + i] = (uint8_t)(i * 13 + 1);
	len = xdp_frame_reply(f, &fi, 1001);
	ck_assert_int_eq(xdp_frame_parse(f, len, &rfi), XDP_FRAME_OK);
	ck_assert_uint_eq(rfi.dns_len, 1001);
}
END_TEST

START_TEST(test_csum)
{
	uint8_t b[131];
	size_t i, len, off;
	uint32_t start;
	for(i = 0; i < sizeof(b); i++)
		b[i] = (uint8_t)(0xff - i * 5);
	/* every length from every alignment, from several starting sums
	 * (the naive sum of the start's two bytes, then the data) */
	for(off = 0; off < 8; off++)
		for(len = 0; len + off <= sizeof(b); len++)
			for(start = 0; start < 0x30000; start += 0xfff1) {
				uint32_t ns = naive_csum(b + off, len) +
					start;
				while(ns >> 16)
					ns = (ns & 0xffff) + (ns >> 16);
				ck_assert_uint_eq(xdp_csum_add(start, b + off,
					len), ns);
			}
	/* all ones stays all ones; a carry out of the start is folded */
	memset(b, 0xff, sizeof(b));
	ck_assert_uint_eq(xdp_csum_add(0, b, 64), 0xffff);
	ck_assert_uint_eq(xdp_csum_add(0xffff, b, 0), 0xffff);
	ck_assert_uint_eq(xdp_csum_add(0x1ffff, b, 0), 1);
}
END_TEST

/** an interface that is not there: no set (one log line), so that the
 * daemon answers through its sockets; with or without libxdp */
START_TEST(test_open_missing)
{
	struct xdp_set_opts o;
	struct netaddr pt;
	memset(&o, 0, sizeof(o));
	memset(&pt, 0, sizeof(pt));
	o.ifname = "pxdpnone0";
	o.points = &pt;
	o.num_points = 0;
	o.num_workers = 1;
	ck_assert_ptr_null(xdp_set_open(&o));
	/* what the daemon does with no set: nothing, and no crash */
	ck_assert_ptr_null(xdp_worker_start(NULL, 0, NULL, NULL, NULL));
	ck_assert_str_eq(xdp_set_describe(NULL), "off");
	xdp_set_close(NULL);
}
END_TEST

static Suite *
xdp_suite(void)
{
	Suite *s = suite_create("xdp");
	TCase *tc = tcase_create("frame");
	tcase_add_test(tc, test_parse_known);
	tcase_add_test(tc, test_parse_bitflips);
	tcase_add_test(tc, test_parse_short);
	tcase_add_test(tc, test_parse_odd);
	tcase_add_test(tc, test_parse_unhandled);
	tcase_add_test(tc, test_build_known);
	tcase_add_test(tc, test_build_longer);
	tcase_add_test(tc, test_csum);
	tcase_add_test(tc, test_open_missing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int nf;
	sr = srunner_create(xdp_suite());
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
