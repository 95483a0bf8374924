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
#include "util/netevent/netevent.h"
#include "util/netevent/dnstap_tls.h"
#include <check.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include <stdio.h>
#include <unistd.h>
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

START_TEST(test_edns_option)
{
	uint8_t b[256];
	static const uint8_t v[2] = { 0x00, 0x78 };
	ldns_pkt *p = NULL;
	ldns_rdf *d;
	size_t len = make_query(b, 1), n;
	ck_assert(!dns_has_edns_option(b, len, DNS_EDNS_KEEPALIVE));
	n = dns_add_edns_option(b, len, sizeof(b), DNS_EDNS_KEEPALIVE, v, 2);
	ck_assert_uint_eq(n, len + 6);
	ck_assert(dns_has_edns_option(b, n, DNS_EDNS_KEEPALIVE));
	/* once only */
	ck_assert_uint_eq(dns_add_edns_option(b, n, sizeof(b),
		DNS_EDNS_KEEPALIVE, v, 2), n);
	/* ldns reads the option: code 11, length 2, TIMEOUT 120 */
	ck_assert_int_eq(ldns_wire2pkt(&p, b, n), LDNS_STATUS_OK);
	d = ldns_pkt_edns_data(p);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(ldns_rdf_size(d), 6);
	ck_assert(memcmp(ldns_rdf_data(d), "\x00\x0b\x00\x02\x00\x78", 6)
		== 0);
	ldns_pkt_free(p);
	/* padded after it, the option stays and the size is the block */
	n = dns_pad(b, n, sizeof(b), 128);
	ck_assert_uint_eq(n, 128);
	ck_assert(dns_has_edns_option(b, n, DNS_EDNS_KEEPALIVE));
	/* no OPT, or no room: left as it is */
	len = make_query(b, 0);
	ck_assert_uint_eq(dns_add_edns_option(b, len, sizeof(b),
		DNS_EDNS_KEEPALIVE, v, 2), len);
	len = make_query(b, 1);
	ck_assert_uint_eq(dns_add_edns_option(b, len, len + 5,
		DNS_EDNS_KEEPALIVE, v, 2), len);
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

/** the key and certificate files of the loop tests */
static char keyfile[64], certfile[64], otherfile[64];

/** write a new P-256 key and a self-signed certificate for DNS:name
 * (valid for a day) to kf and cf */
static void
make_cert(const char *name, const char *kf, const char *cf)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *n;
	X509_EXTENSION *e;
	X509V3_CTX v3;
	char san[128];
	FILE *f;
	ck_assert_ptr_nonnull(k);
	ck_assert_ptr_nonnull(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 86400);
	X509_set_pubkey(x, k);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC,
		(const unsigned char *)name, -1, -1, 0);
	X509_set_issuer_name(x, n);
	snprintf(san, sizeof(san), "DNS:%s", name);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, san);
	ck_assert_ptr_nonnull(e);
	X509_add_ext(x, e, -1);
	X509_EXTENSION_free(e);
	ck_assert_int_gt(X509_sign(x, k, EVP_sha256()), 0);
	f = fopen(kf, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert(PEM_write_PrivateKey(f, k, NULL, NULL, 0, NULL, NULL));
	fclose(f);
	f = fopen(cf, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert(PEM_write_X509(f, x));
	fclose(f);
	X509_free(x);
	EVP_PKEY_free(k);
}

/** make the files once per process (the tests fork) */
static void
setup_certs(void)
{
	char okey[64];
	snprintf(keyfile, sizeof(keyfile), "/tmp/check_tls.%d.key",
		(int)getpid());
	snprintf(certfile, sizeof(certfile), "/tmp/check_tls.%d.pem",
		(int)getpid());
	snprintf(otherfile, sizeof(otherfile), "/tmp/check_tls.%d.other.pem",
		(int)getpid());
	snprintf(okey, sizeof(okey), "/tmp/check_tls.%d.other.key",
		(int)getpid());
	make_cert("dot.test", keyfile, certfile);
	/* another self-signed certificate with the same name: not trusted */
	make_cert("dot.test", okey, otherfile);
	unlink(okey);
}

static void
teardown_certs(void)
{
	unlink(keyfile);
	unlink(certfile);
	unlink(otherfile);
}

/** the DoT service's answer: a fresh unpadded message with the query's
 * ID and QR set (the service pads it when the query asked) */
static int
echo_cb(struct comm_reply *rep, void *arg)
{
	uint8_t id0 = rep->buf[0], id1 = rep->buf[1];
	(void)arg;
	rep->len = make_query(rep->buf, 1);
	rep->buf[0] = id0;
	rep->buf[1] = id1;
	rep->buf[2] |= 0x80;
	return 1;
}

/** what the client saw */
struct loop_state {
	/** the base, to stop */
	struct comm_base *base;
	/** replies, by ID 1..3 */
	int got[4];
	/** length of the last reply */
	size_t last_len;
	/** how the connection ended (-1: not yet) */
	int end;
	/** comm_tcp_out_error at the end */
	char why[200];
	/** replies to wait for before stopping */
	int want;
	/** replies seen */
	int n;
};

static void
client_cb(struct comm_tcp_out *t, enum comm_tcp_out_status st,
	const uint8_t *pkt, size_t len, void *arg)
{
	struct loop_state *ls = arg;
	if(st == COMM_TCP_OUT_REPLY) {
		uint16_t id = (uint16_t)((pkt[0] << 8) | pkt[1]);
		ck_assert(len >= 12);
		ck_assert(pkt[2] & 0x80);
		ck_assert_uint_le(id, 3);
		ls->got[id]++;
		ls->last_len = len;
		if(++ls->n == ls->want)
			comm_base_exit(ls->base);
		return;
	}
	ls->end = (int)st;
	snprintf(ls->why, sizeof(ls->why), "%s", comm_tcp_out_error(t));
	comm_base_exit(ls->base);
}

static void
loop_timeout(void *arg)
{
	(void)arg;
	ck_abort_msg("the TLS loop test did not finish in 10 s");
}

/**
 * Run a DoT service and a TLS client in one loop.
 * @param bundle: the CA file the client trusts.
 * @param name: the auth name the client wants.
 * @param padded: send the 3 queries with EDNS Padding.
 */
static void
run_loop(const char *bundle, const char *name, int padded,
	struct loop_state *ls)
{
	char err[512];
	struct comm_base *base = comm_base_create("select");
	struct ssl_ctx_st *sctx, *cctx;
	struct comm_point *c;
	struct comm_tcp_out *t;
	struct comm_timer *tm;
	struct netaddr to;
	const char *why = NULL;
	struct sockaddr_in *sin;
	int fd, i;
	ck_assert_ptr_nonnull(base);
	memset(ls, 0, sizeof(*ls));
	ls->base = base;
	ls->end = -1;
	ls->want = 3;
	sctx = tls_server_ctx_create(keyfile, certfile, NULL, NULL, err,
		sizeof(err));
	if(!sctx)
		ck_abort_msg("server ctx: %s", err);
	cctx = tls_client_ctx_create(bundle, 0, err, sizeof(err));
	if(!cctx)
		ck_abort_msg("client ctx: %s", err);
	ck_assert_int_eq(netaddr_parse("127.0.0.1@0", 53, &to, &why), 0);
	fd = comm_sock_open_tcp(&to, NULL);
	ck_assert_int_ge(fd, 0);
	to.len = sizeof(to.addr);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&to.addr,
		&to.len), 0);
	sin = (struct sockaddr_in *)&to.addr;
	ck_assert_int_ne(sin->sin_port, 0);
	c = comm_point_create_tcp(base, fd, 4, 5000, 0, echo_cb, NULL);
	ck_assert_ptr_nonnull(c);
	comm_point_set_tls(c, sctx);
	ck_assert_int_eq(comm_point_set_tls_padding(c, 468), 0);
	t = comm_tcp_out_create_tls(base, &to, NULL, 5000, cctx, name, 1,
		client_cb, ls);
	ck_assert_ptr_nonnull(t);
	/* three queries queued before the handshake: pipelined after it */
	for(i = 1; i <= 3; i++) {
		uint8_t q[512];
		size_t len = make_query(q, 1);
		q[0] = 0;
		q[1] = (uint8_t)i;
		if(padded)
			len = dns_pad(q, len, sizeof(q), 128);
		ck_assert_int_eq(comm_tcp_out_write(t, q, len), 0);
	}
	tm = comm_timer_create(base, loop_timeout, NULL);
	ck_assert_int_eq(comm_timer_set(tm, 10000), 0);
	(void)comm_base_dispatch(base);
	comm_timer_delete(tm);
	comm_tcp_out_delete(t);
	comm_point_delete(c);
	tls_ctx_free(sctx);
	tls_ctx_free(cctx);
	comm_base_delete(base);
}

/* tls-protocols: the versions a server context accepts */
START_TEST(test_tls_protocols)
{
	char err[256];
	SSL_CTX *c = tls_server_ctx_create(keyfile, certfile, NULL, NULL,
		err, sizeof(err));
	if(!c)
		ck_abort_msg("server ctx: %s", err);
	ck_assert_int_eq(SSL_CTX_get_min_proto_version(c), TLS1_2_VERSION);
	ck_assert_int_eq(tls_ctx_set_protocols(c, "TLSv1.2 TLSv1.3", err,
		sizeof(err)), 0);
	ck_assert_int_eq(SSL_CTX_get_min_proto_version(c), TLS1_2_VERSION);
	ck_assert_int_eq(SSL_CTX_get_max_proto_version(c), TLS1_3_VERSION);
	ck_assert_int_eq(tls_ctx_set_protocols(c, "TLSv1.3", err,
		sizeof(err)), 0);
	ck_assert_int_eq(SSL_CTX_get_min_proto_version(c), TLS1_3_VERSION);
	ck_assert_int_eq(tls_ctx_set_protocols(c, "TLSv1.2", err,
		sizeof(err)), 0);
	ck_assert_int_eq(SSL_CTX_get_min_proto_version(c), TLS1_2_VERSION);
	ck_assert_int_eq(SSL_CTX_get_max_proto_version(c), TLS1_2_VERSION);
	ck_assert_int_eq(tls_ctx_set_protocols(c, "TLSv1.3 TLSv1.1", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "'TLSv1.1'"));
	/* a failed call leaves the context as it was */
	ck_assert_int_eq(SSL_CTX_get_max_proto_version(c), TLS1_2_VERSION);
	ck_assert_int_eq(tls_ctx_set_protocols(c, "", err, sizeof(err)), 0);
	SSL_CTX_free(c);
}
END_TEST

START_TEST(test_loop_good)
{
	struct loop_state ls;
	run_loop(certfile, "dot.test", 0, &ls);
	ck_assert_int_eq(ls.end, -1);
	ck_assert_int_eq(ls.got[1], 1);
	ck_assert_int_eq(ls.got[2], 1);
	ck_assert_int_eq(ls.got[3], 1);
	/* not padded: the query was not */
	ck_assert_uint_eq(ls.last_len, 44);
	/* padded queries get answers padded to 468 */
	run_loop(certfile, "dot.test", 1, &ls);
	ck_assert_int_eq(ls.end, -1);
	ck_assert_int_eq(ls.n, 3);
	ck_assert_uint_eq(ls.last_len, 468);
}
END_TEST

START_TEST(test_loop_bad_name)
{
	struct loop_state ls;
	run_loop(certfile, "wrong.test", 0, &ls);
	ck_assert_int_eq(ls.end, COMM_TCP_OUT_TLS_FAILED);
	ck_assert_int_eq(ls.n, 0);
	ck_assert_ptr_nonnull(strstr(ls.why, "hostname mismatch"));
}
END_TEST

START_TEST(test_loop_untrusted)
{
	struct loop_state ls;
	run_loop(otherfile, "dot.test", 0, &ls);
	ck_assert_int_eq(ls.end, COMM_TCP_OUT_TLS_FAILED);
	ck_assert_int_eq(ls.n, 0);
	ck_assert_ptr_nonnull(strstr(ls.why, "certificate verify failed"));
}
END_TEST

#ifdef USE_DNSTAP
/** dnstap-tls settings from text into a fresh config (files checked) */
static struct config_file *
dnstap_cfg(const char *key, const char *pem)
{
	struct config_file *cfg = config_create();
	char text[512], err[256];
	ck_assert_ptr_nonnull(cfg);
	snprintf(text, sizeof(text), "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n"
		"  dnstap-tls-cert-bundle: \"%s\"\n"
		"  dnstap-tls-client-key-file: \"%s\"\n"
		"  dnstap-tls-client-cert-file: \"%s\"\n", certfile, key, pem);
	ck_assert_msg(config_read_mem(cfg, "t.conf", text, strlen(text), err,
		sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(dt_tls_wanted(cfg), 1);
	return cfg;
}

/** the dnstap TLS context: the bundle and a matching client key and
 * certificate load; a certificate that is not the key's is refused and
 * named */
START_TEST(test_dnstap_ctx)
{
	struct config_file *cfg = dnstap_cfg(keyfile, certfile);
	struct ssl_ctx_st *ctx;
	char err[512];
	err[0] = 0;
	ctx = dt_tls_ctx_create(cfg, err, sizeof(err));
	ck_assert_msg(ctx != NULL, "%s", err);
	tls_ctx_free(ctx);
	config_delete(cfg);
	cfg = dnstap_cfg(keyfile, otherfile);
	ck_assert_ptr_null(dt_tls_ctx_create(cfg, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "does not match "
		"dnstap-tls-client-cert-file"));
	config_delete(cfg);
	/* a key file that holds a certificate, not a key */
	cfg = dnstap_cfg(certfile, certfile);
	ck_assert_ptr_null(dt_tls_ctx_create(cfg, err, sizeof(err)));
	ck_assert_ptr_nonnull(strstr(err, "dnstap-tls-client-key-file"));
	config_delete(cfg);
}
END_TEST
#endif

/** the suite */
static Suite *
tls_suite(void)
{
	Suite *s = suite_create("tls");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_pad_query);
	tcase_add_test(tc, test_pad_blocks);
	tcase_add_test(tc, test_pad_refused);
	tcase_add_test(tc, test_edns_option);
	tcase_add_test(tc, test_config_ports);
	tcase_add_test(tc, test_config_global);
	tcase_add_test(tc, test_ctx_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("loop");
	tcase_add_unchecked_fixture(tc, setup_certs, teardown_certs);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_loop_good);
	tcase_add_test(tc, test_tls_protocols);
	tcase_add_test(tc, test_loop_bad_name);
	tcase_add_test(tc, test_loop_untrusted);
#ifdef USE_DNSTAP
	tcase_add_test(tc, test_dnstap_ctx);
#endif
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
