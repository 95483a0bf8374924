/*
 * tests/check_proxy_protocol.c - the PROXY v2 header (proxy-protocol-port)
 * and sock-queue-timeout.
 *
 * The parser on its own: valid IPv4, IPv6, LOCAL and TLV-carrying
 * headers; every kind of refused header (a TLV area that does not end
 * at the header's end among them); every cut-short prefix; a
 * mutation loop from a fixed seed in which the datagram parser and the
 * stream gatherer (fed in random pieces) must agree. Then comm_points on
 * loopback, once per backend: the client a UDP or TCP callback sees is
 * the header's source, the answer goes back to the socket peer, a bad
 * header drops the datagram or closes the connection (counted) and the
 * next one is served; a header on a port that expects none is refused.
 * Last, sock-queue-timeout: the age check, and datagrams left in the
 * socket past the timeout while the loop does not run are dropped.
 */
#include "config.h"
#include "util/netevent/netevent.h"
#include "util/netevent/proxy_protocol.h"
#include "util/netaddr.h"
#include "util/log.h"
#include <check.h>
#include "tests/testutil.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <netinet/in.h>

/** the signature */
static const uint8_t SIG[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a,
	0x51, 0x55, 0x49, 0x54, 0x0a };

/**
 * Build a header into b.
 * @param vc: the version/command byte (0x21 PROXY, 0x20 LOCAL).
 * @param ft: the family/transport byte (0x11 INET stream, 0x12 INET
 *	dgram, 0x21 INET6 stream, ...).
 * @param addr: the address block, alen bytes.
 * @param tlv: bytes of TLVs after it: one NOOP TLV (type 4) that fills
 *	them, or for 1 or 2 bytes a TLV cut short.
 * @return the header length.
 */
static size_t
mkhdr(uint8_t *b, uint8_t vc, uint8_t ft, const uint8_t *addr, size_t alen,
	size_t tlv)
{
	size_t len = alen + tlv, i;
	memcpy(b, SIG, 12);
	b[12] = vc;
	b[13] = ft;
	b[14] = (uint8_t)(len >> 8);
	b[15] = (uint8_t)len;
	if(alen)
		memcpy(b + 16, addr, alen);
	for(i = 0; i < tlv; i++)
		b[16 + alen + i] = (uint8_t)(i * 7 + 3);
	if(tlv >= 3) {
		b[16 + alen] = 4;
		b[16 + alen + 1] = (uint8_t)((tlv - 3) >> 8);
		b[16 + alen + 2] = (uint8_t)(tlv - 3);
	}
	return 16 + len;
}

/** the IPv4 block: 192.0.2.7:1234 -> 198.51.100.1:53 */
static const uint8_t A4[12] = { 192, 0, 2, 7, 198, 51, 100, 1, 0x04, 0xd2,
	0, 53 };
/** the IPv6 block: 2001:db8::7 port 4321 -> 2001:db8::1 port 53 */
static uint8_t A6[36];

static void
init_a6(void)
{
	memset(A6, 0, sizeof(A6));
	A6[0] = 0x20; A6[1] = 0x01; A6[2] = 0x0d; A6[3] = 0xb8; A6[15] = 7;
	A6[16] = 0x20; A6[17] = 0x01; A6[18] = 0x0d; A6[19] = 0xb8; A6[31] = 1;
	A6[32] = 0x10; A6[33] = 0xe1; A6[34] = 0; A6[35] = 53;
}

/** the address of info as text with its port */
static const char *
src_str(const struct pp2_info *info, char *buf, size_t len)
{
	return netaddr_str(&info->src, -1, buf, len);
}

START_TEST(test_parse_valid)
{
	uint8_t b[600];
	struct pp2_info info;
	char s[NETADDR_STRLEN];
	size_t n;
	init_a6();
	/* IPv4 over UDP, a DNS message after it */
	n = mkhdr(b, 0x21, 0x12, A4, 12, 0);
	memset(b + n, 0xab, 20);
	ck_assert_int_eq(pp2_parse(b, n + 20, &info), 28);
	ck_assert_int_eq(info.local, 0);
	ck_assert_str_eq(src_str(&info, s, sizeof(s)), "192.0.2.7@1234");
	/* IPv6 over TCP */
	n = mkhdr(b, 0x21, 0x21, A6, 36, 0);
	ck_assert_int_eq(pp2_parse(b, n, &info), 52);
	ck_assert_int_eq(info.local, 0);
	ck_assert_str_eq(src_str(&info, s, sizeof(s)), "2001:db8::7@4321");
	/* TLVs are skipped: the message starts after them */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 500);
	ck_assert_int_eq(pp2_parse(b, n + 3, &info), 16 + 12 + 500);
	ck_assert_str_eq(src_str(&info, s, sizeof(s)), "192.0.2.7@1234");
	/* LOCAL: no address, or addresses that are ignored */
	n = mkhdr(b, 0x20, 0x00, NULL, 0, 0);
	ck_assert_int_eq(pp2_parse(b, n, &info), 16);
	ck_assert_int_eq(info.local, 1);
	n = mkhdr(b, 0x20, 0x11, A4, 12, 4);
	ck_assert_int_eq(pp2_parse(b, n, &info), 32);
	ck_assert_int_eq(info.local, 1);
	/* the transport may be left unspecified */
	n = mkhdr(b, 0x21, 0x10, A4, 12, 0);
	ck_assert_int_eq(pp2_parse(b, n, &info), 28);
	/* a longer block than the family needs: the rest is TLVs */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 3);
	ck_assert_int_eq(pp2_parse(b, n, &info), 31);
	ck_assert_int_eq(pp2_has_signature(b, n), 1);
}
END_TEST

START_TEST(test_parse_refused)
{
	uint8_t b[200], t[200];
	struct pp2_info info;
	const char *v1 = "PROXY TCP4 192.0.2.7 198.51.100.1 1234 53\r\n";
	size_t n, k;
	init_a6();
	/* version 1, the text header: refused */
	ck_assert_int_eq(pp2_parse((const uint8_t *)v1, strlen(v1), &info),
		-1);
	ck_assert_int_eq(pp2_has_signature((const uint8_t *)v1, strlen(v1)),
		0);
	n = mkhdr(b, 0x21, 0x11, A4, 12, 0);
	/* every byte of the signature matters */
	for(k = 0; k < 12; k++) {
		memcpy(t, b, n);
		t[k] ^= 0x40;
		ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	}
	/* versions 1 and 3, commands 2 and 15 */
	memcpy(t, b, n); t[12] = 0x11;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[12] = 0x31;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[12] = 0x22;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[12] = 0x2f;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	/* PROXY with UNSPEC, UNIX, and unknown families */
	memcpy(t, b, n); t[13] = 0x01;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[13] = 0x31;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[13] = 0x41;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	memcpy(t, b, n); t[13] = 0xf1;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	/* an unknown transport */
	memcpy(t, b, n); t[13] = 0x13;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	/* a length shorter than the family's addresses */
	memcpy(t, b, n); t[15] = 11;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	n = mkhdr(b, 0x21, 0x21, A6, 36, 0);
	memcpy(t, b, n); t[15] = 35;
	ck_assert_int_eq(pp2_parse(t, n, &info), -1);
	/* INET6 family with an INET-sized block */
	n = mkhdr(b, 0x21, 0x21, A4, 12, 0);
	ck_assert_int_eq(pp2_parse(b, n, &info), -1);
	/* every prefix of a valid header is cut short */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 8);
	for(k = 0; k < n; k++)
		ck_assert_int_eq(pp2_parse(b, k, &info), -1);
	ck_assert_int_eq(pp2_parse(b, n, &info), (int)n);
}
END_TEST

/** the stream gatherer on b[0..len), one byte at a time; @return its
 * result and the bytes it took in *used */
static int
feed_bytes(const uint8_t *b, size_t len, size_t *used, struct pp2_info *info)
{
	struct pp2_stream s;
	size_t k, u;
	int st = 0;
	pp2_stream_init(&s);
	*used = 0;
	for(k = 0; k < len && st == 0; k++) {
		st = pp2_stream_feed(&s, b + k, 1, &u, info);
		*used += u;
	}
	return st;
}

/* the TLV area must hold whole TLVs that end at the header's end: one
 * whose length runs past it (into the DNS message after it) or a few
 * bytes too short for a TLV refuse the header, in a datagram and in a
 * stream alike; a LOCAL header's block is not read */
START_TEST(test_parse_tlv)
{
	uint8_t b[300];
	struct pp2_info info;
	size_t n, used;
	init_a6();
	/* two well-formed TLVs: accepted by both */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 10);
	b[28] = 1; b[29] = 0; b[30] = 2;	/* ALPN, 2 bytes */
	b[33] = 4; b[34] = 0; b[35] = 2;	/* NOOP, 2 bytes */
	ck_assert_int_eq(pp2_parse(b, n, &info), 38);
	ck_assert_int_eq(feed_bytes(b, n, &used, &info), 1);
	ck_assert_uint_eq(used, 38);
	/* the second runs one byte past the end, into the message */
	memset(b + n, 0xab, 40);
	b[35] = 3;
	ck_assert_int_eq(pp2_parse(b, n + 40, &info), -1);
	ck_assert_int_eq(feed_bytes(b, n + 40, &used, &info), -1);
	/* one TLV as long as the whole header's length field allows */
	n = mkhdr(b, 0x21, 0x21, A6, 36, 20);
	b[16 + 36 + 1] = 0xff; b[16 + 36 + 2] = 0xf0;
	memset(b + n, 0xab, 200);
	ck_assert_int_eq(pp2_parse(b, n + 200, &info), -1);
	ck_assert_int_eq(feed_bytes(b, n + 200, &used, &info), -1);
	/* the TLV ends one byte short of the header's end */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 10);
	b[30] = 6;
	ck_assert_int_eq(pp2_parse(b, n + 40, &info), -1);
	ck_assert_int_eq(feed_bytes(b, n + 40, &used, &info), -1);
	/* one or two bytes left: too short for a TLV */
	n = mkhdr(b, 0x21, 0x11, A4, 12, 1);
	ck_assert_int_eq(pp2_parse(b, n + 40, &info), -1);
	ck_assert_int_eq(feed_bytes(b, n + 40, &used, &info), -1);
	n = mkhdr(b, 0x21, 0x22, A6, 36, 2);
	b[16 + 36 + 1] = 0;
	ck_assert_int_eq(pp2_parse(b, n + 40, &info), -1);
	ck_assert_int_eq(feed_bytes(b, n + 40, &used, &info), -1);
	/* LOCAL: whatever the block holds is discarded */
	n = mkhdr(b, 0x20, 0x11, A4, 12, 2);
	ck_assert_int_eq(pp2_parse(b, n, &info), 30);
	ck_assert_int_eq(info.local, 1);
	ck_assert_int_eq(feed_bytes(b, n, &used, &info), 1);
	ck_assert_uint_eq(used, 30);
}
END_TEST

/** feed s the bytes of b in pieces of random size (seeded r) */
static int
feed_pieces(const uint8_t *b, size_t len, unsigned *r, size_t *used_total,
	struct pp2_info *info)
{
	struct pp2_stream s;
	size_t off = 0;
	pp2_stream_init(&s);
	*used_total = 0;
	while(off < len) {
		size_t piece = 1 + (size_t)(rand_r(r) % 24), used = 0;
		int st;
		if(piece > len - off)
			piece = len - off;
		st = pp2_stream_feed(&s, b + off, piece, &used, info);
		ck_assert_uint_le(used, piece);
		*used_total += used;
		if(st != 0)
			return st;
		ck_assert_uint_eq(used, piece);
		ck_assert_uint_gt(pp2_stream_want(&s), 0);
		off += piece;
	}
	return 0;
}

/* random mutations of valid headers: never a crash, never a length past
 * the input, and the stream gatherer agrees with the datagram parser */
START_TEST(test_parse_fuzz)
{
	unsigned r = 20261126;
	int iter, ok = 0, bad = 0, cut = 0;
	init_a6();
	for(iter = 0; iter < 200000; iter++) {
		uint8_t b[160];
		struct pp2_info i1, i2;
		size_t n, len, used = 0;
		int k, m, p1, st;
		switch(rand_r(&r) % 4) {
		case 0: n = mkhdr(b, 0x21, 0x11, A4, 12, rand_r(&r) % 20); break;
		case 1: n = mkhdr(b, 0x21, 0x22, A6, 36, rand_r(&r) % 20); break;
		case 2: n = mkhdr(b, 0x20, 0x00, NULL, 0, rand_r(&r) % 20); break;
		default: n = mkhdr(b, 0x21, 0x12, A4, 12, 0); break;
		}
		/* trailing bytes (the DNS message) */
		for(k = 0; k < 16; k++)
			b[n + (size_t)k] = (uint8_t)rand_r(&r);
		len = n + 16;
		m = (int)(rand_r(&r) % 4);
		for(k = 0; k < m; k++) {
			/* mostly in the fixed part, where it matters */
			size_t at = rand_r(&r) % 2 ? (size_t)rand_r(&r) % 16 :
				(size_t)rand_r(&r) % len;
			b[at] = rand_r(&r) % 3 ? (uint8_t)rand_r(&r) :
				(uint8_t)(b[at] ^ (1u << (rand_r(&r) % 8)));
		}
		if(rand_r(&r) % 5 == 0)
			len = (size_t)rand_r(&r) % (len + 1); /* cut short */
		memset(&i1, 0, sizeof(i1));
		memset(&i2, 0, sizeof(i2));
		p1 = pp2_parse(b, len, &i1);
		st = feed_pieces(b, len, &r, &used, &i2);
		if(p1 >= 0) {
			ok++;
			ck_assert_int_ge(p1, 16);
			ck_assert_int_le(p1, (int)len);
			ck_assert_int_eq(st, 1);
			ck_assert_uint_eq(used, (size_t)p1);
			ck_assert_int_eq(i1.local, i2.local);
			if(!i1.local) {
				ck_assert_uint_eq(i1.src.len, i2.src.len);
				ck_assert_int_eq(memcmp(&i1.src.addr,
					&i2.src.addr, i1.src.len), 0);
			}
		} else {
			/* refused, or a valid start that is cut short */
			ck_assert_int_ne(st, 1);
			if(st == 0)
				cut++;
			else	bad++;
		}
	}
	/* the loop covered all three outcomes */
	ck_assert_int_gt(ok, 1000);
	ck_assert_int_gt(bad, 1000);
	ck_assert_int_gt(cut, 100);
}
END_TEST

/* a header that comes one byte at a time stops exactly at its end */
/* one size rule for datagrams and streams: a header of up to PP2_MAX_LEN
 * bytes is read, a longer one refused (LOCAL, whose block is not read, so
 * that only the length counts) */
START_TEST(test_max_len)
{
	static uint8_t b[PP2_MAX_LEN + 64];
	struct pp2_stream s;
	struct pp2_info info;
	size_t n, used;
	n = mkhdr(b, 0x20, 0x00, NULL, 0, PP2_MAX_LEN - PP2_HDR_LEN);
	ck_assert_uint_eq(n, PP2_MAX_LEN);
	ck_assert_int_eq(pp2_parse(b, n + 12, &info), PP2_MAX_LEN);
	pp2_stream_init(&s);
	ck_assert_int_eq(pp2_stream_feed(&s, b, n, &used, &info), 1);
	ck_assert_uint_eq(used, n);
	n = mkhdr(b, 0x20, 0x00, NULL, 0, PP2_MAX_LEN - PP2_HDR_LEN + 1);
	ck_assert_int_eq(pp2_parse(b, n + 12, &info), -1);
	pp2_stream_init(&s);
	ck_assert_int_eq(pp2_stream_feed(&s, b, n, &used, &info), -1);
}
END_TEST

START_TEST(test_stream_split)
{
	uint8_t b[200];
	struct pp2_stream s;
	struct pp2_info info;
	char str[NETADDR_STRLEN];
	size_t n, k, used;
	int st = 0;
	init_a6();
	n = mkhdr(b, 0x21, 0x21, A6, 36, 40);
	memset(b + n, 0x55, 30);
	pp2_stream_init(&s);
	for(k = 0; k < n; k++) {
		ck_assert_uint_eq(st, 0);
		ck_assert_uint_ge(pp2_stream_want(&s), 1);
		ck_assert_uint_le(pp2_stream_want(&s), n - k);
		st = pp2_stream_feed(&s, b + k, 1, &used, &info);
		ck_assert_uint_eq(used, 1);
	}
	ck_assert_int_eq(st, 1);
	ck_assert_uint_eq(pp2_stream_want(&s), 0);
	ck_assert_str_eq(src_str(&info, str, sizeof(str)), "2001:db8::7@4321");
	/* all at once, with the message after it: only the header is taken */
	pp2_stream_init(&s);
	ck_assert_int_eq(pp2_stream_feed(&s, b, n + 30, &used, &info), 1);
	ck_assert_uint_eq(used, n);
	/* a wrong first byte is refused at once, not after sixteen */
	pp2_stream_init(&s);
	ck_assert_int_eq(pp2_stream_feed(&s, (const uint8_t *)"\0\x1c", 2,
		&used, &info), -1);
	/* PROXY v1 text likewise */
	pp2_stream_init(&s);
	ck_assert_int_eq(pp2_stream_feed(&s, (const uint8_t *)"PROXY TCP4 ",
		11, &used, &info), -1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* comm_points on loopback, once per backend */

/** the backends compiled in that the kernel can run */
static const char *backends[TU_NUM_BACKENDS_BUILT];
/** entries in backends */
static int NUM_BACKENDS;

/** the clients the callbacks saw, as text */
static char seen[8][NETADDR_STRLEN];
/** how many */
static int nseen;

/** record the client; answer with the query, its first byte flipped */
static int
rec_cb(struct comm_reply *rep, void *arg)
{
	(void)arg;
	if(nseen < 8)
		netaddr_str(&rep->client, -1, seen[nseen++], NETADDR_STRLEN);
	if(rep->len > 0)
		rep->buf[0] ^= 0xff;
	return 1;
}

/** the bound address of fd */
static struct netaddr
sock_addr(int fd)
{
	struct netaddr a;
	a.len = sizeof(a.addr);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a.addr, &a.len),
		0);
	return a;
}

/** a UDP comm_point on 127.0.0.1 with the settings; a its address */
static struct comm_point *
udp_point(struct comm_base *b, const struct comm_udp_opts *uo,
	struct netaddr *a)
{
	struct comm_sock_opts o;
	struct comm_point *c;
	int fd;
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 0, a, NULL), 0);
	fd = comm_sock_open_udp(a, &o);
	ck_assert_int_ge(fd, 0);
	*a = sock_addr(fd);
	c = comm_point_create_udp_opts(b, fd, 512, 8, rec_cb, NULL, uo);
	ck_assert_ptr_nonnull(c);
	return c;
}

/** a client socket */
static int
udp_client(void)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/** turn the loop until fd has a datagram (or give up); @return its length
 * or -1 */
static int
udp_wait(struct comm_base *b, int fd, uint8_t *buf, size_t len)
{
	int k;
	for(k = 0; k < 100; k++) {
		ssize_t r = recv(fd, buf, len, 0);
		if(r >= 0)
			return (int)r;
		comm_base_loop_once(b, 10);
	}
	return -1;
}

START_TEST(test_udp_proxy)
{
	struct comm_base *b = comm_base_create(backends[_i]);
	struct comm_udp_opts uo;
	struct comm_point *c;
	struct netaddr a;
	uint8_t q[100], ans[100];
	size_t n;
	int cfd, k;
	ck_assert_ptr_nonnull(b);
	memset(&uo, 0, sizeof(uo));
	uo.proxy = 1;
	c = udp_point(b, &uo, &a);
	cfd = udp_client();
	nseen = 0;
	/* a valid header and a "query": the callback sees 192.0.2.7, the
	 * answer comes back to this socket, without the header */
	n = mkhdr(q, 0x21, 0x12, A4, 12, 3);
	memcpy(q + n, "query", 5);
	ck_assert_int_eq(sendto(cfd, q, n + 5, 0, (struct sockaddr *)&a.addr,
		a.len), (ssize_t)(n + 5));
	ck_assert_int_eq(udp_wait(b, cfd, ans, sizeof(ans)), 5);
	ck_assert_int_eq(ans[0], 'q' ^ 0xff);
	ck_assert_int_eq(memcmp(ans + 1, "uery", 4), 0);
	ck_assert_int_eq(nseen, 1);
	ck_assert_str_eq(seen[0], "192.0.2.7@1234");
	/* bad headers: no callback, no answer, counted; then a LOCAL one
	 * is answered with the socket's own peer as the client */
	n = mkhdr(q, 0x21, 0x12, A4, 12, 0);
	q[13] = 0x32; /* UNIX */
	memcpy(q + n, "bad01", 5);
	(void)sendto(cfd, q, n + 5, 0, (struct sockaddr *)&a.addr, a.len);
	(void)sendto(cfd, "PROXY UDP4 1.2.3.4", 18, 0,
		(struct sockaddr *)&a.addr, a.len);
	(void)sendto(cfd, q, 20, 0, (struct sockaddr *)&a.addr, a.len);
	(void)sendto(cfd, "\x12\x34\x01\x00", 4, 0,
		(struct sockaddr *)&a.addr, a.len);
	n = mkhdr(q, 0x20, 0x00, NULL, 0, 0);
	memcpy(q + n, "local", 5);
	(void)sendto(cfd, q, n + 5, 0, (struct sockaddr *)&a.addr, a.len);
	ck_assert_int_eq(udp_wait(b, cfd, ans, sizeof(ans)), 5);
	ck_assert_int_eq(ans[0], 'l' ^ 0xff);
	for(k = 0; k < 5; k++)
		comm_base_loop_once(b, 0);
	ck_assert_int_eq(recv(cfd, ans, sizeof(ans), 0), -1);
	ck_assert_uint_eq(comm_point_get_stats(c)->proxy_errors, 4);
	ck_assert_int_eq(nseen, 2);
	ck_assert_int_eq(strncmp(seen[1], "127.0.0.1@", 10), 0);
	comm_point_delete(c);
	close(cfd);
	comm_base_delete(b);
}
END_TEST

/** a TCP comm_point on 127.0.0.1 */
static struct comm_point *
tcp_point(struct comm_base *b, int proxy, struct netaddr *a)
{
	struct comm_sock_opts o;
	struct comm_point *c;
	int fd;
	memset(&o, 0, sizeof(o));
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 0, a, NULL), 0);
	fd = comm_sock_open_tcp(a, &o);
	ck_assert_int_ge(fd, 0);
	*a = sock_addr(fd);
	c = comm_point_create_tcp(b, fd, 4, 5000, 0, rec_cb, NULL);
	ck_assert_ptr_nonnull(c);
	if(proxy)
		comm_point_set_proxy(c);
	return c;
}

/** a connected client */
static int
tcp_connect(const struct netaddr *a)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(connect(fd, (const struct sockaddr *)&a->addr,
		a->len), 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, O_NONBLOCK), 0);
	return fd;
}

/** turn the loop and read what comes; @return bytes, 0 on EOF, -1 none */
static int
tcp_wait(struct comm_base *b, int fd, uint8_t *buf, size_t len, size_t want)
{
	size_t got = 0;
	int k;
	for(k = 0; k < 200 && got < want; k++) {
		ssize_t r = recv(fd, buf + got, len - got, 0);
		if(r == 0 || (r == -1 && errno == ECONNRESET))
			return got ? (int)got : 0;
		if(r > 0) {
			got += (size_t)r;
			continue;
		}
		comm_base_loop_once(b, 10);
	}
	return got ? (int)got : -1;
}

/** send all of it */
static void
send_all(int fd, const uint8_t *d, size_t n)
{
	ck_assert_int_eq(send(fd, d, n, 0), (ssize_t)n);
}

START_TEST(test_tcp_proxy)
{
	struct comm_base *b = comm_base_create(backends[_i]);
	struct comm_point *c;
	struct netaddr a;
	uint8_t h[200], ans[64];
	size_t n;
	int fd, k;
	ck_assert_ptr_nonnull(b);
	init_a6();
	c = tcp_point(b, 1, &a);
	nseen = 0;
	/* the header in pieces across loop turns, then a framed query in
	 * the same write as the header's last bytes */
	n = mkhdr(h, 0x21, 0x21, A6, 36, 9);
	memcpy(h + n, "\0\x05hello", 7);
	fd = tcp_connect(&a);
	send_all(fd, h, 5);
	for(k = 0; k < 20; k++)
		comm_base_loop_once(b, 5);
	send_all(fd, h + 5, 20);
	for(k = 0; k < 20; k++)
		comm_base_loop_once(b, 5);
	ck_assert_int_eq(nseen, 0);
	send_all(fd, h + 25, n - 25 + 7);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 7), 7);
	ck_assert_int_eq(ans[2], 'h' ^ 0xff);
	ck_assert_int_eq(nseen, 1);
	ck_assert_str_eq(seen[0], "2001:db8::7@4321");
	/* more queries on it keep that client */
	send_all(fd, (const uint8_t *)"\0\x02hi", 4);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 4), 4);
	ck_assert_str_eq(seen[1], "2001:db8::7@4321");
	close(fd);
	/* a bad header closes the connection, counted; the next is served */
	n = mkhdr(h, 0x21, 0x11, A4, 12, 0);
	h[12] = 0x22;
	fd = tcp_connect(&a);
	send_all(fd, h, n);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 1), 0);
	close(fd);
	fd = tcp_connect(&a);
	send_all(fd, (const uint8_t *)"PROXY TCP4 1.2.3.4 5.6.7.8 1 2\r\n", 32);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 1), 0);
	close(fd);
	fd = tcp_connect(&a);
	send_all(fd, (const uint8_t *)"\0\x05hello", 7); /* no header */
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 1), 0);
	close(fd);
	ck_assert_uint_eq(comm_point_get_stats(c)->proxy_errors, 3);
	n = mkhdr(h, 0x21, 0x11, A4, 12, 0);
	memcpy(h + n, "\0\x02ok", 4);
	fd = tcp_connect(&a);
	send_all(fd, h, n + 4);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 4), 4);
	ck_assert_str_eq(seen[nseen - 1], "192.0.2.7@1234");
	close(fd);
	ck_assert_int_eq(nseen, 3);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* a header sent to a port without proxy-protocol-port: the connection is
 * closed as soon as the signature is in, not after the idle timeout */
START_TEST(test_tcp_stray_header)
{
	struct comm_base *b = comm_base_create(backends[_i]);
	struct comm_point *c;
	struct netaddr a;
	uint8_t h[100], ans[16];
	size_t n;
	int fd;
	ck_assert_ptr_nonnull(b);
	c = tcp_point(b, 0, &a);
	n = mkhdr(h, 0x21, 0x11, A4, 12, 0);
	memcpy(h + n, "\0\x02ok", 4);
	fd = tcp_connect(&a);
	send_all(fd, h, n + 4);
	ck_assert_int_eq(tcp_wait(b, fd, ans, sizeof(ans), 1), 0);
	ck_assert_uint_eq(comm_point_get_stats(c)->proxy_errors, 1);
	close(fd);
	comm_point_delete(c);
	comm_base_delete(b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* sock-queue-timeout */

START_TEST(test_queue_expired)
{
	struct timeval st = { 1000, 500000 }, now;
	now = st;
	ck_assert_int_eq(comm_queue_expired(&st, &now, 1000), 0);
	now.tv_sec = 1001;
	now.tv_usec = 500000; /* exactly the timeout: kept */
	ck_assert_int_eq(comm_queue_expired(&st, &now, 1000), 0);
	now.tv_usec = 500001;
	ck_assert_int_eq(comm_queue_expired(&st, &now, 1000), 1);
	now.tv_sec = 1002;
	now.tv_usec = 0;
	ck_assert_int_eq(comm_queue_expired(&st, &now, 1000), 1);
	ck_assert_int_eq(comm_queue_expired(&st, &now, 0), 0); /* off */
	now.tv_sec = 999; /* the clock went back: not stale */
	ck_assert_int_eq(comm_queue_expired(&st, &now, 1000), 0);
}
END_TEST

/**
 * Wait until the kernel stamps datagrams as they arrive. Linux turns its
 * receive timestamps on for the first SO_TIMESTAMP socket through
 * deferred work; until then a datagram is stamped when it is read (it
 * never looks stale). A probe socket sends to itself until a datagram
 * read 50 ms later carries a stamp that is older.
 */
static void
wait_rx_stamps(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_DGRAM, 0), on = 1, k;
	ck_assert_int_ge(fd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &sl), 0);
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_TIMESTAMP, &on,
		sizeof(on)), 0);
	for(k = 0; k < 100; k++) {
		union {
			struct cmsghdr align;
			uint8_t b[CMSG_SPACE(sizeof(struct timeval))];
		} ctl;
		struct msghdr m;
		struct iovec iov;
		struct cmsghdr *cm;
		struct timeval now;
		uint8_t d[4];
		ck_assert_int_eq(sendto(fd, "p", 1, 0, (struct sockaddr *)&sa,
			sizeof(sa)), 1);
		usleep(50000);
		memset(&m, 0, sizeof(m));
		iov.iov_base = d;
		iov.iov_len = sizeof(d);
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl.b;
		m.msg_controllen = sizeof(ctl.b);
		ck_assert_int_eq(recvmsg(fd, &m, 0), 1);
		gettimeofday(&now, NULL);
		for(cm = CMSG_FIRSTHDR(&m); cm; cm = CMSG_NXTHDR(&m, cm)) {
			struct timeval tv;
			if(cm->cmsg_level != SOL_SOCKET ||
				cm->cmsg_type != SCM_TIMESTAMP)
				continue;
			memcpy(&tv, CMSG_DATA(cm), sizeof(tv));
			if(comm_queue_expired(&tv, &now, 40)) {
				close(fd);
				return;
			}
		}
	}
	ck_abort_msg("the kernel does not stamp datagrams on arrival");
}

/* datagrams left in the socket while the loop does not run, past the
 * timeout, are dropped; one sent just before the loop runs is answered.
 * The margins are seconds either way. */
START_TEST(test_udp_queue_timeout)
{
	struct comm_base *b = comm_base_create(backends[_i]);
	struct comm_udp_opts uo;
	struct comm_point *c, *c0;
	struct netaddr a, a0;
	uint8_t ans[64];
	int cfd, k;
	ck_assert_ptr_nonnull(b);
	memset(&uo, 0, sizeof(uo));
	uo.queue_timeout_ms = 1000;
	c = udp_point(b, &uo, &a);
	c0 = udp_point(b, NULL, &a0); /* no timeout: keeps everything */
	cfd = udp_client();
	nseen = 0;
	wait_rx_stamps();
	for(k = 0; k < 3; k++) {
		(void)sendto(cfd, "stale", 5, 0, (struct sockaddr *)&a.addr,
			a.len);
		(void)sendto(cfd, "old00", 5, 0, (struct sockaddr *)&a0.addr,
			a0.len);
	}
	/* the worker's loop is stopped meanwhile */
	usleep(2200000);
	(void)sendto(cfd, "fresh", 5, 0, (struct sockaddr *)&a.addr, a.len);
	for(k = 0; k < 10; k++)
		comm_base_loop_once(b, 10);
	ck_assert_uint_eq(comm_point_get_stats(c)->queue_timeouts, 3);
	ck_assert_uint_eq(comm_point_get_stats(c)->pkts_in, 4);
	ck_assert_uint_eq(comm_point_get_stats(c0)->queue_timeouts, 0);
	ck_assert_int_eq(nseen, 4); /* "fresh", and the three old00 */
	for(k = 0; k < 4; k++)
		ck_assert_int_eq(udp_wait(b, cfd, ans, sizeof(ans)), 5);
	ck_assert_int_eq(recv(cfd, ans, sizeof(ans), 0), -1);
	comm_point_delete(c);
	comm_point_delete(c0);
	close(cfd);
	comm_base_delete(b);
}
END_TEST

static Suite *
proxy_suite(void)
{
	Suite *s = suite_create("proxy_protocol");
	TCase *tc = tcase_create("parse");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_valid);
	tcase_add_test(tc, test_parse_refused);
	tcase_add_test(tc, test_parse_tlv);
	tcase_add_test(tc, test_parse_fuzz);
	tcase_add_test(tc, test_stream_split);
	tcase_add_test(tc, test_max_len);
	suite_add_tcase(s, tc);
	tc = tcase_create("comm_point");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_udp_proxy, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_proxy, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_stray_header, 0, NUM_BACKENDS);
	suite_add_tcase(s, tc);
	tc = tcase_create("queue_timeout");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_queue_expired);
	tcase_add_loop_test(tc, test_udp_queue_timeout, 0, NUM_BACKENDS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr;
	int nf;
	NUM_BACKENDS = tu_pick_backends(backends, NULL);
	sr = srunner_create(proxy_suite());
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
