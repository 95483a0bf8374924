/*
 * tests/check_dns_encode.c - Check suite for dns/msgencode: messages built
 * by petrel are read back by ldns (and by petrel) and compared; name
 * compression, the no-compression rule for SRV and DNAME, whole-RRset
 * truncation with TC, the OPT reserve, and misuse.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include "tests/check_dns_gen.h"
#include <check.h>
#include "tests/testutil.h"
#include <ldns/ldns.h>
#include <stdlib.h>
#include <string.h>

/** wire name from a string, in static storage (a ring) */
#define N(s) tu_name_ring(s)

/** re-encode an ldns packet with the petrel builder
 * @return length, or 0 on failure */
static size_t
encode_from_ldns(ldns_pkt *lp, uint8_t *out, size_t cap)
{
	struct dns_builder b;
	ldns_rr_list *lists[3];
	ldns_buffer *rd = ldns_buffer_new(65536);
	int sec;
	size_t i;
	uint16_t flags = 0;
	lists[0] = ldns_pkt_answer(lp);
	lists[1] = ldns_pkt_authority(lp);
	lists[2] = ldns_pkt_additional(lp);
	if(ldns_pkt_qr(lp)) flags |= DNS_FLAG_QR;
	if(ldns_pkt_aa(lp)) flags |= DNS_FLAG_AA;
	if(ldns_pkt_tc(lp)) flags |= DNS_FLAG_TC;
	if(ldns_pkt_rd(lp)) flags |= DNS_FLAG_RD;
	if(ldns_pkt_ra(lp)) flags |= DNS_FLAG_RA;
	if(ldns_pkt_ad(lp)) flags |= DNS_FLAG_AD;
	if(ldns_pkt_cd(lp)) flags |= DNS_FLAG_CD;
	flags |= (uint16_t)(ldns_pkt_get_opcode(lp) << DNS_OPCODE_SHIFT);
	flags |= ldns_pkt_get_rcode(lp) & 0xf;
	dns_build_init(&b, out, cap, 0);
	ck_assert_int_eq(dns_build_header(&b, ldns_pkt_id(lp), flags), 0);
	for(i = 0; i < ldns_pkt_qdcount(lp); i++) {
		ldns_rr *q = ldns_rr_list_rr(ldns_pkt_question(lp), i);
		ck_assert_int_eq(dns_build_question(&b,
			ldns_rdf_data(ldns_rr_owner(q)), ldns_rr_get_type(q),
			ldns_rr_get_class(q)), 0);
	}
	for(sec = 0; sec < 3; sec++) {
		for(i = 0; i < ldns_rr_list_rr_count(lists[sec]); i++) {
			ldns_rr *rr = ldns_rr_list_rr(lists[sec], i);
			ldns_buffer_clear(rd);
			ldns_rr_rdata2buffer_wire(rd, rr);
			ck_assert_int_eq(dns_build_rr(&b, sec,
				ldns_rdf_data(ldns_rr_owner(rr)),
				ldns_rr_get_type(rr), ldns_rr_get_class(rr),
				ldns_rr_ttl(rr), ldns_buffer_begin(rd),
				ldns_buffer_position(rd)), 0);
		}
	}
	if(ldns_pkt_edns(lp)) {
		struct edns_opt_out o[4];
		size_t no = 0, p = 0, dl;
		ldns_rdf *d = ldns_pkt_edns_data(lp);
		const uint8_t *dd = d ? ldns_rdf_data(d) : NULL;
		dl = d ? ldns_rdf_size(d) : 0;
		while(p + 4 <= dl && no < 4) {
			o[no].code = dns_read_u16(dd + p);
			o[no].len = dns_read_u16(dd + p + 2);
			o[no].data = dd + p + 4;
			p += 4 + o[no].len;
			no++;
		}
		ck_assert_int_eq(dns_build_opt(&b, ldns_pkt_edns_udp_size(lp),
			(ldns_pkt_edns_extended_rcode(lp) << 4) |
			(ldns_pkt_get_rcode(lp) & 0xf), ldns_pkt_edns_do(lp), o,
			no), 0);
	}
	ldns_buffer_free(rd);
	return dns_build_finish(&b);
}

/** compare two ldns RR lists: equal in canonical form (RFC 4034 6.2),
 * since compression is case-insensitive and an owner or a compressed RDATA
 * name takes the spelling of the name it points to, as in Unbound */
static void
same_rrs(ldns_rr_list *a, ldns_rr_list *b, int iter)
{
	size_t i;
	ck_assert_uint_eq(ldns_rr_list_rr_count(a), ldns_rr_list_rr_count(b));
	for(i = 0; i < ldns_rr_list_rr_count(a); i++) {
		uint8_t *wa = NULL, *wb = NULL;
		size_t la = 0, lb = 0;
		ldns_rr *ca = ldns_rr_clone(ldns_rr_list_rr(a, i));
		ldns_rr *cb = ldns_rr_clone(ldns_rr_list_rr(b, i));
		ldns_rr2canonical(ca);
		ldns_rr2canonical(cb);
		ck_assert_int_eq(ldns_rr2wire(&wa, ca, LDNS_SECTION_ANSWER, &la),
			LDNS_STATUS_OK);
		ck_assert_int_eq(ldns_rr2wire(&wb, cb, LDNS_SECTION_ANSWER, &lb),
			LDNS_STATUS_OK);
		if(la != lb || memcmp(wa, wb, la) != 0) {
			ldns_rr_print(stderr, ldns_rr_list_rr(a, i));
			ldns_rr_print(stderr, ldns_rr_list_rr(b, i));
		}
		ck_assert_msg(la == lb && memcmp(wa, wb, la) == 0,
			"packet %d rr %u differs", iter, (unsigned)i);
		free(wa);
		free(wb);
		ldns_rr_free(ca);
		ldns_rr_free(cb);
	}
}

START_TEST(test_roundtrip_ldns)
{
	int iter, smaller = 0;
	srandom(7);
	for(iter = 0; iter < 2000; iter++) {
		ldns_pkt *orig = testgen_packet(), *back = NULL;
		static uint8_t out[65535];
		uint8_t *lw = NULL;
		size_t n, lwlen = 0;
		struct dns_msg msg;
		char why[200];
		n = encode_from_ldns(orig, out, sizeof(out));
		ck_assert_uint_gt(n, 0);
		ck_assert_int_eq(ldns_wire2pkt(&back, out, n), LDNS_STATUS_OK);
		ck_assert_uint_eq(ldns_pkt_id(back), ldns_pkt_id(orig));
		ck_assert_int_eq(ldns_pkt_get_rcode(back),
			ldns_pkt_get_rcode(orig));
		ck_assert_int_eq(ldns_pkt_qr(back), ldns_pkt_qr(orig));
		ck_assert_int_eq(ldns_pkt_cd(back), ldns_pkt_cd(orig));
		ck_assert_int_eq(ldns_pkt_ad(back), ldns_pkt_ad(orig));
		same_rrs(ldns_pkt_question(orig), ldns_pkt_question(back), iter);
		same_rrs(ldns_pkt_answer(orig), ldns_pkt_answer(back), iter);
		same_rrs(ldns_pkt_authority(orig), ldns_pkt_authority(back),
			iter);
		same_rrs(ldns_pkt_additional(orig), ldns_pkt_additional(back),
			iter);
		ck_assert_int_eq(ldns_pkt_edns(back), ldns_pkt_edns(orig));
		if(ldns_pkt_edns(orig)) {
			ck_assert_uint_eq(ldns_pkt_edns_udp_size(back),
				ldns_pkt_edns_udp_size(orig));
			ck_assert_int_eq(ldns_pkt_edns_do(back),
				ldns_pkt_edns_do(orig));
			ck_assert_int_eq(ldns_pkt_edns_extended_rcode(back),
				ldns_pkt_edns_extended_rcode(orig));
		}
		/* and petrel's own parser agrees with ldns on our output */
		ck_assert_int_eq(dns_msg_parse(out, n, &msg, NULL,
			DNS_PARSE_STRICT_TRAILING), 0);
		ck_assert_msg(testgen_compare(&msg, back, why, sizeof(why)) == 0,
			"packet %d: %s", iter, why);
		/* compression: never larger than ldns's own (compressed) wire
		 * by more than what SRV/DNAME/RRSIG rules allow: count how
		 * often we are at least as small */
		ck_assert_int_eq(ldns_pkt2wire(&lw, orig, &lwlen),
			LDNS_STATUS_OK);
		if(n <= lwlen)
			smaller++;
		free(lw);
		ldns_pkt_free(orig);
		ldns_pkt_free(back);
	}
	/* ldns compresses only owner names and a few RDATA types, as we
	 * do: our messages should mostly be no larger than ldns's */
	ck_assert_int_ge(smaller, 1600);
}
END_TEST

START_TEST(test_compression)
{
	uint8_t buf[512], rd[300];
	struct dns_builder b;
	size_t n, rl;
	struct dns_msg msg;
	uint8_t nm[DNS_MAX_NAME];
	dns_build_init(&b, buf, sizeof(buf), 0);
	ck_assert_int_eq(dns_build_header(&b, 1, DNS_FLAG_QR), 0);
	ck_assert_int_eq(dns_build_question(&b, N("www.example.com"), 1, 1),
		0);
	/* owner equal to the question: a pointer to 12 */
	ck_assert_int_eq(dns_build_rr(&b, 0, N("WWW.example.com"),
		DNS_TYPE_CNAME, 1, 60, N("mail.example.com"), 18), 0);
	ck_assert_int_eq(buf[33], 0xc0);
	ck_assert_int_eq(buf[34], 12);
	/* CNAME target: "mail" + pointer to example.com at 16 */
	ck_assert_int_eq(buf[43], 0);
	ck_assert_int_eq(buf[44], 7); /* rdlength 7 */
	ck_assert_int_eq(memcmp(buf + 45, "\004mail\300\020", 7), 0);
	/* MX whose exchange is the CNAME target: fully compressed */
	memcpy(rd, "\000\012", 2);
	memcpy(rd + 2, N("mail.example.com"), 18);
	ck_assert_int_eq(dns_build_rr(&b, 0, N("example.com"), DNS_TYPE_MX, 1,
		60, rd, 20), 0);
	ck_assert_int_eq(memcmp(buf + 52, "\300\020", 2), 0);
	ck_assert_int_eq(buf[63], 4); /* rdlength: pref + pointer */
	ck_assert_int_eq(memcmp(buf + 64, "\000\012\300\055", 4), 0);
	/* SRV target is not compressed even though it could be */
	memcpy(rd, "\000\001\000\002\000\003", 6);
	memcpy(rd + 6, N("mail.example.com"), 18);
	n = dns_build_len(&b);
	ck_assert_int_eq(dns_build_rr(&b, 0, N("_sip._tcp.example.com"),
		DNS_TYPE_SRV, 1, 60, rd, 24), 0);
	/* owner: 5 + 5 + pointer, then type class ttl, then rdlength */
	ck_assert_uint_eq(dns_read_u16(buf + n + 12 + 8), 24);
	/* DNAME likewise */
	n = dns_build_len(&b);
	ck_assert_int_eq(dns_build_rr(&b, 0, N("example.com"), DNS_TYPE_DNAME,
		1, 60, N("example.com"), 13), 0);
	ck_assert_uint_eq(dns_read_u16(buf + n + 2 + 8), 13);
	/* SOA: both names compressed, then the 20 fixed octets */
	rl = 0;
	memcpy(rd, N("ns1.example.com"), 17);
	rl += 17;
	memcpy(rd + rl, N("hostmaster.example.com"), 24);
	rl += 24;
	memset(rd + rl, 7, 20);
	rl += 20;
	ck_assert_int_eq(dns_build_rr(&b, 1, N("example.com"), DNS_TYPE_SOA,
		1, 60, rd, rl), 0);
	n = dns_build_finish(&b);
	ck_assert_uint_eq(dns_hdr_ancount(buf), 4);
	ck_assert_uint_eq(dns_hdr_nscount(buf), 1);
	/* read it all back */
	ck_assert_int_eq(dns_msg_parse(buf, n, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING), 0);
	ck_assert_uint_eq(msg.rr_count, 5);
	ck_assert_uint_eq(dns_rr_owner(&msg, &msg.rrs[0], nm), 17);
	/* the owner was compressed to the question's spelling */
	ck_assert_int_ne(memcmp(nm, N("WWW.example.com"), 17), 0);
	ck_assert_int_eq(dname_equal(nm, N("www.example.com")), 1);
	ck_assert_int_eq(dns_rr_rdata_uncompressed(&msg, &msg.rrs[4], rd,
		sizeof(rd)), (int)rl);
	ck_assert_int_eq(memcmp(rd + 17, N("hostmaster.example.com"), 24), 0);
}
END_TEST

/** add n A records for name as one RRset */
static int
add_a_set(struct dns_builder *b, int sec, const char *name, size_t n)
{
	static uint8_t addrs[64][4];
	const uint8_t *rd[64];
	uint16_t rl[64];
	size_t i;
	for(i = 0; i < n; i++) {
		addrs[i][0] = 10;
		addrs[i][3] = (uint8_t)i;
		rd[i] = addrs[i];
		rl[i] = 4;
	}
	return dns_build_rrset(b, sec, N(name), DNS_TYPE_A, 1, 300, n, rd, rl);
}

START_TEST(test_truncation)
{
	uint8_t buf[4096];
	struct dns_builder b;
	size_t n, optsz;
	struct dns_msg msg;
	int i, r;
	dns_build_init(&b, buf, sizeof(buf), 512);
	dns_build_header(&b, 7, DNS_FLAG_QR | DNS_FLAG_RD);
	dns_build_question(&b, N("big.example"), 1, 1);
	optsz = dns_opt_size(NULL, 0);
	ck_assert_uint_eq(optsz, 11);
	dns_build_reserve(&b, optsz);
	/* each set: owner pointer 2 + 14 per RR after the first... add sets
	 * of 10 A records (16 * 10 = 160 octets) until one does not fit */
	for(i = 0; i < 10; i++) {
		char nm[32];
		snprintf(nm, sizeof(nm), "h%d.big.example", i);
		r = add_a_set(&b, DNS_SEC_ANSWER, nm, 10);
		if(r != 0)
			break;
	}
	ck_assert_int_eq(r, DNS_ERR_NOSPACE);
	ck_assert_int_eq(dns_build_is_truncated(&b), 1);
	ck_assert_int_lt(i, 4);
	/* nothing more goes in once truncated, even what would fit */
	ck_assert_int_eq(add_a_set(&b, DNS_SEC_ANSWER, "x.big.example", 1),
		DNS_ERR_NOSPACE);
	dns_build_reserve(&b, 0);
	ck_assert_int_eq(dns_build_opt(&b, 1232, 0, 0, NULL, 0), 0);
	n = dns_build_finish(&b);
	ck_assert_uint_le(n, 512);
	ck_assert_int_eq(dns_hdr_flags(buf) & DNS_FLAG_TC, DNS_FLAG_TC);
	ck_assert_uint_eq(dns_hdr_ancount(buf), (unsigned)(10 * i));
	ck_assert_int_eq(dns_msg_parse(buf, n, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING), 0);
	ck_assert_int_eq(msg.edns.present, 1);
	ck_assert_uint_eq(msg.sec_count[0], (size_t)(10 * i));

	/* additional section: a set that does not fit is dropped, no TC */
	dns_build_init(&b, buf, sizeof(buf), 200);
	dns_build_header(&b, 7, DNS_FLAG_QR);
	dns_build_question(&b, N("big.example"), 1, 1);
	ck_assert_int_eq(add_a_set(&b, DNS_SEC_ANSWER, "big.example", 2), 0);
	ck_assert_int_eq(add_a_set(&b, DNS_SEC_ADDITIONAL, "a.big.example",
		20), DNS_ERR_NOSPACE);
	ck_assert_int_eq(dns_build_is_truncated(&b), 0);
	ck_assert_int_eq(add_a_set(&b, DNS_SEC_ADDITIONAL, "b.big.example",
		2), 0);
	n = dns_build_finish(&b);
	ck_assert_int_eq(dns_hdr_flags(buf) & DNS_FLAG_TC, 0);
	ck_assert_uint_eq(dns_hdr_arcount(buf), 2);
	ck_assert_int_eq(dns_msg_parse(buf, n, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING), 0);
}
END_TEST

START_TEST(test_misuse_and_rollback)
{
	uint8_t buf[512], bad[4] = { 5, 'a', 'b', 0 };
	struct dns_builder b;
	struct dns_build_mark m;
	size_t n;
	dns_build_init(&b, buf, sizeof(buf), 0);
	/* RR before the header */
	ck_assert_int_eq(dns_build_rr(&b, 0, N("a"), 1, 1, 0,
		(const uint8_t *)"abcd", 4), DNS_ERR_SYNTAX);
	dns_build_header(&b, 1, 0);
	ck_assert_int_eq(dns_build_rr(&b, 1, N("a"), 1, 1, 0,
		(const uint8_t *)"abcd", 4), 0);
	/* going back a section */
	ck_assert_int_eq(dns_build_rr(&b, 0, N("a"), 1, 1, 0,
		(const uint8_t *)"abcd", 4), DNS_ERR_SYNTAX);
	/* a question after RRs */
	ck_assert_int_eq(dns_build_question(&b, N("a"), 1, 1),
		DNS_ERR_SYNTAX);
	/* a CNAME whose RDATA is not a name */
	ck_assert_int_eq(dns_build_rr(&b, 1, N("a"), DNS_TYPE_CNAME, 1, 0,
		bad, 4), DNS_ERR_BAD_RDATA);
	/* an SOA with a short fixed part */
	ck_assert_int_eq(dns_build_rr(&b, 1, N("a"), DNS_TYPE_SOA, 1, 0,
		(const uint8_t *)"\0\0\0", 3), DNS_ERR_BAD_RDATA);
	/* the failures wrote nothing */
	ck_assert_uint_eq(dns_build_len(&b), 12 + 3 + 10 + 4);
	dns_build_mark(&b, &m);
	ck_assert_int_eq(dns_build_rr(&b, 2, N("b.a"), 1, 1, 0,
		(const uint8_t *)"abcd", 4), 0);
	ck_assert_uint_eq(dns_build_len(&b), 29 + 4 + 14);
	dns_build_rollback(&b, &m);
	ck_assert_uint_eq(dns_build_len(&b), 29);
	ck_assert_int_eq(dns_build_opt(&b, 4096, DNS_RCODE_BADVERS, 1, NULL,
		0), 0);
	/* nothing after the OPT */
	ck_assert_int_eq(dns_build_rr(&b, 2, N("a"), 1, 1, 0,
		(const uint8_t *)"abcd", 4), DNS_ERR_SYNTAX);
	ck_assert_int_eq(dns_build_opt(&b, 4096, 0, 1, NULL, 0),
		DNS_ERR_SYNTAX);
	n = dns_build_finish(&b);
	ck_assert_uint_eq(dns_hdr_nscount(buf), 1);
	ck_assert_uint_eq(dns_hdr_arcount(buf), 1);
	ck_assert_int_eq(dns_hdr_rcode(buf), 0);
	ck_assert_int_eq(buf[n - 11 + 5], 1);
	/* a tiny buffer */
	dns_build_init(&b, buf, 11, 0);
	ck_assert_int_eq(dns_build_header(&b, 1, 0), DNS_ERR_NOSPACE);
	dns_build_init(&b, buf, 20, 0);
	ck_assert_int_eq(dns_build_header(&b, 1, 0), 0);
	ck_assert_int_eq(dns_build_question(&b, N("example.com"), 1, 1),
		DNS_ERR_NOSPACE);
}
END_TEST

START_TEST(test_ede_option)
{
	struct edns_opt_out o;
	uint8_t d[8];
	edns_opt_ede(&o, d, sizeof(d), DNS_EDE_STALE_ANSWER, "stale answer");
	ck_assert_uint_eq(o.code, 15);
	ck_assert_uint_eq(o.len, 8); /* text cut to fit */
	ck_assert_uint_eq(dns_read_u16(d), 3);
	ck_assert_int_eq(memcmp(d + 2, "stale ", 6), 0);
	edns_opt_ede(&o, d, sizeof(d), DNS_EDE_NETWORK_ERROR, NULL);
	ck_assert_uint_eq(o.len, 2);
	ck_assert_uint_eq(dns_read_u16(d), 23);
	ck_assert_str_eq(dns_ede_str(DNS_EDE_NO_REACHABLE_AUTHORITY),
		"No Reachable Authority");
	ck_assert_str_eq(dns_ede_str(DNS_EDE_PROHIBITED), "Prohibited");
	ck_assert_str_eq(dns_ede_str(DNS_EDE_NOT_AUTHORITATIVE),
		"Not Authoritative");
	ck_assert_ptr_null(dns_ede_str(99));
}
END_TEST

static Suite *
encode_suite(void)
{
	Suite *s = suite_create("dns_encode");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_roundtrip_ldns);
	tcase_add_test(tc, test_compression);
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_misuse_and_rollback);
	tcase_add_test(tc, test_ede_option);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(encode_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
