/*
 * tests/check_tls.c - Check suite for the encrypted-transport pieces that
 * can be tested without a network: EDNS Padding (dns/padding.c) with ldns
 * as the oracle, the TLS config rules (port 853 for TLS zones, the
 * global tls-upstream, the ssl- names), and the TLS contexts' error
 * reports. The handshakes themselves run against real peers in
 * tests/integration/tls.sh.
 */
#include "config.h"
#include "dns/padding.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/netevent/tls.h"
#include <check.h>
#include <ldns/ldns.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/** a query for www.example.com. A, with an OPT record when edns;
 * @return its length */
static size_t
make_query(uint8_t *b, int edns)
{
	static const uint8_t q[] = {
		0x12, 0x34, 0x01, 0x00, 0x00, 0x01, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00,
		3, 'w', 'w', 'w', 7, 'e', 'x', 'a', 'm', 'p', 'l', 'e',
		3, 'c', 'o', 'm', 0, 0x00, 0x01, 0x00, 0x01 };
	static const uint8_t opt[] = { 0, 0x00, 0x29, 0x04, 0xd0, 0, 0,
		0x80, 0x00, 0x00, 0x00 };
	memcpy(b, q, sizeof(q));
	if(!edns)
		return sizeof(q);
	b[11] = 1;
	memcpy(b + sizeof(q), opt, sizeof(opt));
	return sizeof(q) + sizeof(opt);
}

/** parse with ldns: the padding option must be there, the rest intact */
static void
check_ldns(const uint8_t *b, size_t len, size_t padlen)
{
	ldns_pkt *p = NULL;
	ldns_rdf *d;
	ck_assert_int_eq(ldns_wire2pkt(&p, b, len), LDNS_STATUS_OK);
	ck_assert_uint_eq(ldns_pkt_qdcount(p), 1);
	ck_assert_uint_eq(ldns_pkt_edns_udp_size(p), 1232);
	ck_assert(ldns_pkt_edns_do(p));
	d = ldns_pkt_edns_data(p);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(ldns_rdf_size(d), 4 + padlen);
	ck_assert_uint_eq(ldns_rdf_data(d)[1], DNS_EDNS_PADDING);
	ck_assert_uint_eq((ldns_rdf_data(d)[2] << 8) | ldns_rdf_data(d)[3],
		padlen);
	ldns_pkt_free(p);
}

START_TEST(test_pad_query)
{
	uint8_t b[1024];
	size_t len = make_query(b, 1), at = 0, n;
	ck_assert_uint_eq(len, 44);
	ck_assert(dns_opt_last(b, len, &at));
	ck_assert_uint_eq(at, 42);
	ck_assert(!dns_has_padding(b, len));
	n = dns_pad(b, len, sizeof(b), DNS_PAD_QUERY_BLOCK);
	ck_assert_uint_eq(n, 128);
	ck_assert(dns_has_padding(b, n));
	check_ldns(b, n, 128 - 44 - 4);
	/* never twice */
	ck_assert_uint_eq(dns_pad(b, n, sizeof(b), 128), n);
	ck_assert_uint_eq(dns_pad(b, n, sizeof(b), 468), n);
}
END_TEST

START_TEST(test_pad_blocks)
{
	uint8_t b[1024];
	size_t len, n;
	/* 468 for answers */
	len = make_query(b, 1);
	n = dns_pad(b, len, sizeof(b), DNS_PAD_RESPONSE_BLOCK);
	ck_assert_uint_eq(n, 468);
	check_ldns(b, n, 468 - 44 - 4);
	/* length plus the option header exactly a block: no zeros */
	len = make_query(b, 1);
	n = dns_pad(b, len, sizeof(b), 48);
	ck_assert_uint_eq(n, 48);
	check_ldns(b, n, 0);
	/* one byte over a block: the next block */
	len = make_query(b, 1);
	n = dns_pad(b, len, sizeof(b), 47);
	ck_assert_uint_eq(n, 94);
	check_ldns(b, n, 94 - 48);
	/* block 0 or 1: nothing */
	len = make_query(b, 1);
	ck_assert_uint_eq(dns_pad(b, len, sizeof(b), 0), len);
	ck_assert_uint_eq(dns_pad(b, len, sizeof(b), 1), len);
}
END_TEST

START_TEST(test_pad_refused)
{
	uint8_t b[1024], c[1024];
	size_t len, at;
	/* no OPT: unchanged */
	len = make_query(b, 0);
	memcpy(c, b, len);
	ck_assert(!dns_opt_last(b, len, &at));
	ck_assert_uint_eq(dns_pad(b, len, sizeof(b), 128), len);
	ck_assert(memcmp(b, c, len) == 0);
	/* no room: unchanged */
	len = make_query(b, 1);
	memcpy(c, b, len);
	ck_assert_uint_eq(dns_pad(b, len, 127, 128), len);
	ck_assert(memcmp(b, c, len) == 0);
	/* truncated, or with a trailing byte: not an OPT-last message */
	ck_assert_uint_eq(dns_pad(b, len - 1, sizeof(b), 128), len - 1);
	b[len] = 0;
	ck_assert_uint_eq(dns_pad(b, len + 1, sizeof(b), 128), len + 1);
	/* an OPT that is not the last record (an A record after it) */
	len = make_query(b, 1);
	b[11] = 2;
	memcpy(b + len, "\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04"
		"\xc0\x00\x02\x01", 16);
	ck_assert_uint_eq(dns_pad(b, len + 16, sizeof(b), 128), len + 16);
	/* counts larger than the message: malformed */
	len = make_query(b, 1);
	b[11] = 9;
	ck_assert_uint_eq(dns_pad(b, len, sizeof(b), 128), len);
	/* a header only */
	ck_assert_uint_eq(dns_pad(b, 12, sizeof(b), 128), 12);
	ck_assert_uint_eq(dns_pad(b, 5, sizeof(b), 128), 5);
}
END_TEST

/** load a config from text; the test fails on an error */
static struct config_file *
load(const char *text)
{
	char err[512];
	struct config_file *cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	if(config_read_mem(cfg, "t.conf", text, strlen(text), err,
		sizeof(err)) != 0)
		ck_abort_msg("config: %s", err);
	return cfg;
}

/** the load fails with exactly this error */
static void
load_bad(const char *text, const char *want)
{
	char err[512];
	struct config_file *cfg = config_create();
	ck_assert_int_ne(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_str_eq(err, want);
	config_delete(cfg);
}

START_TEST(test_config_ports)
{
	struct config_file *cfg = load(
		"forward-zone:\n"
		"  name: \"a.\"\n"
		"  forward-tls-upstream: yes\n"
		"  forward-addr: 192.0.2.1#dns.example\n"
		"  forward-addr: 192.0.2.2@8853#dns.example\n"
		"  forward-addr: 2001:db8::1\n"
		"forward-zone:\n"
		"  name: \"b.\"\n"
		"  forward-addr: 192.0.2.3\n"
		"stub-zone:\n"
		"  name: \"c.\"\n"
		"  stub-addr: 192.0.2.4#ns.example\n"
		"  stub-ssl-upstream: yes\n");
	const struct config_addrlist *a = cfg->forwards->addrs;
	ck_assert_int_eq(cfg->forwards->tls, 1);
	ck_assert_int_eq(netaddr_port(&a->addr), 853);
	ck_assert_str_eq(a->str, "192.0.2.1#dns.example");
	ck_assert_int_eq(netaddr_port(&a->next->addr), 8853);
	ck_assert_int_eq(netaddr_port(&a->next->next->addr), 853);
	/* a zone without TLS keeps port 53 */
	ck_assert_int_eq(cfg->forwards->next->tls, 0);
	ck_assert_int_eq(netaddr_port(&cfg->forwards->next->addrs->addr), 53);
	ck_assert_int_eq(cfg->stubs->tls, 1);
	ck_assert_int_eq(netaddr_port(&cfg->stubs->addrs->addr), 853);
	config_delete(cfg);
}
END_TEST

START_TEST(test_config_global)
{
	/* tls-upstream: every zone, whatever the order in the file */
	struct config_file *cfg = load(
		"stub-zone:\n"
		"  name: \"c.\"\n"
		"  stub-addr: 192.0.2.4\n"
		"forward-zone:\n"
		"  name: \".\"\n"
		"  forward-addr: 192.0.2.1#dns.example\n"
		"server:\n"
		"  ssl-upstream: yes\n"
		"  ssl-cert-bundle: \"/x/ca.pem\"\n"
		"  pad-queries-block-size: 256\n");
	ck_assert_int_eq(cfg->tls_upstream, 1);
	ck_assert_int_eq(cfg->forwards->tls, 1);
	ck_assert_int_eq(netaddr_port(&cfg->forwards->addrs->addr), 853);
	ck_assert_int_eq(cfg->stubs->tls, 1);
	ck_assert_int_eq(netaddr_port(&cfg->stubs->addrs->addr), 853);
	ck_assert_str_eq(config_tls_cert_bundle(cfg), "/x/ca.pem");
	ck_assert_int_eq(cfg->pad_queries, 1);
	ck_assert_int_eq(cfg->pad_queries_block_size, 256);
	ck_assert_int_eq(cfg->pad_responses_block_size, 468);
	config_delete(cfg);
	load_bad("server:\n  tls-upstream: yes\n",
		"t.conf:2: tls-upstream: yes needs a forward-zone or "
		"stub-zone for \".\": petrel asks only those servers over "
		"TLS, and would ask the servers found by recursion in clear");
	load_bad("forward-zone:\n  name: \".\"\n  forward-host: ns.example\n"
		"server:\n  tls-upstream: yes\n",
		"t.conf:5: tls-upstream: forward-zone '.' has forward-host: "
		"lines, which cannot be used with TLS; give forward-addr: "
		"ip@port#name");
	load_bad("server:\n  pad-queries-block-size: 2000\n",
		"t.conf:2: pad-queries-block-size: expected an integer from 2 "
		"to 1024, got '2000'");
}
END_TEST

START_TEST(test_ctx_errors)
{
	char err[512];
	err[0] = 0;
	ck_assert_ptr_null(tls_client_ctx_create("/nonexistent/ca.pem", 0,
		err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "tls-cert-bundle "
		"'/nonexistent/ca.pem': cannot load CA certificates"));
	err[0] = 0;
	ck_assert_ptr_null(tls_server_ctx_create("/nonexistent/k.pem",
		"/nonexistent/c.pem", NULL, NULL, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "tls-service-pem "
		"'/nonexistent/c.pem'"));
}
END_TEST

/** the suite */
static Suite *
tls_suite(void)
{
	Suite *s = suite_create("tls");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_pad_query);
	tcase_add_test(tc, test_pad_blocks);
	tcase_add_test(tc, test_pad_refused);
	tcase_add_test(tc, test_config_ports);
	tcase_add_test(tc, test_config_global);
	tcase_add_test(tc, test_ctx_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(tls_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
