/*
 * tests/check_authzone.c - Check suite for services/xfr and
 * services/authzone: TSIG signing and verification against ldns (ldns
 * verifies what petrel signs, petrel verifies what ldns signs, for SHA-1,
 * SHA-256 and SHA-512, first and later messages, and rejects tampered,
 * wrong-key and unsigned replies); the transfer stream parser (IXFR
 * differences, AXFR, up to date, incomplete, malformed) and the
 * application of IXFR differences; ZONEMD (the RFC 8976 A.1 vector, a
 * changed record, absence); the answers of an auth zone (AA, NXDOMAIN and
 * NODATA with SOA, wildcard, CNAME, referral, DNSSEC records, for-upstream
 * with a delegation point) and NOTIFY; ZONEMD with DNSSEC (RFC 8976 4,
 * validator/val_zonemd.h) on zones signed here by ldns: a good one, a
 * wrong trust anchor, a tampered ZONEMD, a ZONEMD signed by a key outside
 * the zone's DNSKEY set, absence proven by NSEC and NSEC3 or not proven,
 * a zone below its anchor; a refused zone is not used (SERVFAIL
 * downstream, the servers asked upstream) unless zonemd-permissive-mode;
 * url: parsing (and a bad one as a load error with file and line).
 */
#include "config.h"
#include "services/xfr.h"
#include "services/authzone.h"
#include "services/authzone_lookup.h"
#include "services/mesh.h"
#include "services/module.h"
#include "dns/dns.h"
#include "validator/val_zonemd.h"
#include "util/config_file.h"
#include "util/config_auth.h"
#include "services/http_fetch.h"
#include "util/netaddr.h"
#include "util/log.h"
#include "dns/name.h"
#include <check.h>
#include <ldns/ldns.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

/** the secret of the test key, base64 */
#define SECRET "cGV0cmVsLWF1dGh6b25lLXRlc3Qta2V5LW9uZQ=="

/** a query for name/type written by ldns; wire in *w (free) */
static size_t
make_query(const char *name, ldns_rr_type t, uint16_t id, uint8_t **w)
{
	ldns_pkt *q = NULL;
	size_t len = 0;
	ck_assert(ldns_pkt_query_new_frm_str(&q, name, t, LDNS_RR_CLASS_IN, 0)
		== LDNS_STATUS_OK);
	ldns_pkt_set_id(q, id);
	ck_assert(ldns_pkt2wire(w, q, &len) == LDNS_STATUS_OK);
	ldns_pkt_free(q);
	return len;
}

/** petrel signs a request: ldns verifies it; a changed byte fails */
static void
sign_with(const char *alg, const char *ldns_alg)
{
	struct xfr_tsig_key k;
	struct xfr_tsig_state st;
	uint8_t buf[1024], *w;
	size_t len = make_query("example.", LDNS_RR_TYPE_AXFR, 4242, &w);
	ldns_pkt *p = NULL;
	(void)ldns_alg;
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1", alg, SECRET), 0);
	memset(&st, 0, sizeof(st));
	st.key = &k;
	memcpy(buf, w, len);
	free(w);
	ck_assert_int_eq(xfr_tsig_sign(&st, buf, &len, sizeof(buf),
		(uint64_t)time(NULL)), 0);
	ck_assert(ldns_wire2pkt(&p, buf, len) == LDNS_STATUS_OK);
	ck_assert_msg(ldns_pkt_tsig_verify(p, buf, len, "k1.", SECRET, NULL),
		"ldns does not verify petrel's %s signature", alg);
	ldns_pkt_free(p);
	buf[3] ^= 0x10; /* the CD bit */
	ck_assert(ldns_wire2pkt(&p, buf, len) == LDNS_STATUS_OK);
	ck_assert(!ldns_pkt_tsig_verify(p, buf, len, "k1.", SECRET, NULL));
	ldns_pkt_free(p);
}

START_TEST(test_tsig_sign)
{
	sign_with("hmac-sha256", "hmac-sha256.");
	sign_with("hmac-sha1", "hmac-sha1.");
	sign_with("hmac-sha512", "hmac-sha512.");
}
END_TEST

/** the MAC of a signed message as the rdf ldns takes as "query mac" */
static ldns_rdf *
mac_rdf(const uint8_t *mac, size_t len)
{
	uint8_t b[70];
	b[0] = (uint8_t)(len >> 8);
	b[1] = (uint8_t)len;
	memcpy(b + 2, mac, len);
	return ldns_rdf_new_frm_data(LDNS_RDF_TYPE_INT16_DATA, len + 2, b);
}

/** a response to the query: SOA and one A, signed by ldns */
static size_t
ldns_response(uint16_t id, const ldns_rdf *qmac, int next, const char *alg,
	const char *secret, uint8_t **w)
{
	ldns_pkt *r = NULL;
	ldns_rr *rr = NULL;
	size_t len = 0;
	ck_assert(ldns_pkt_query_new_frm_str(&r, "example.", LDNS_RR_TYPE_AXFR,
		LDNS_RR_CLASS_IN, 0) == LDNS_STATUS_OK);
	ldns_pkt_set_id(r, id);
	ldns_pkt_set_qr(r, true);
	ldns_pkt_set_aa(r, true);
	ck_assert(ldns_rr_new_frm_str(&rr, "www.example. 300 IN A 192.0.2.1",
		0, NULL, NULL) == LDNS_STATUS_OK);
	ldns_pkt_push_rr(r, LDNS_SECTION_ANSWER, rr);
	if(next)
		ck_assert(ldns_pkt_tsig_sign_next(r, "k1.", secret, 300, alg,
			qmac, 1) == LDNS_STATUS_OK);
	else
		ck_assert(ldns_pkt_tsig_sign(r, "k1.", secret, 300, alg, qmac)
			== LDNS_STATUS_OK);
	ck_assert(ldns_pkt2wire(w, r, &len) == LDNS_STATUS_OK);
	ldns_pkt_free(r);
	return len;
}

/** the MAC in the TSIG of a wire message */
static ldns_rdf *
tsig_mac_of(const uint8_t *w, size_t len)
{
	ldns_pkt *p = NULL;
	ldns_rdf *m;
	ck_assert(ldns_wire2pkt(&p, w, len) == LDNS_STATUS_OK);
	ck_assert_ptr_nonnull(ldns_pkt_tsig(p));
	m = ldns_rdf_clone(ldns_rr_rdf(ldns_pkt_tsig(p), 3));
	ldns_pkt_free(p);
	return m;
}

/** ldns signs responses (first, then timers-only): petrel verifies */
static void
verify_with(const char *alg, const char *ldns_alg)
{
	struct xfr_tsig_key k, wrong;
	struct xfr_tsig_state st, st2;
	uint8_t q[1024], *w, *w2, copy[1024];
	size_t qlen = make_query("example.", LDNS_RR_TYPE_AXFR, 777, &w), len,
		len2, l;
	ldns_rdf *qm, *m1;
	const char *err;
	uint64_t now = (uint64_t)time(NULL);
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1.", alg, SECRET), 0);
	ck_assert_int_eq(xfr_tsig_key_init(&wrong, "k1.", alg,
		"d3Jvbmctc2VjcmV0LWtleQ=="), 0);
	memset(&st, 0, sizeof(st));
	st.key = &k;
	memcpy(q, w, qlen);
	free(w);
	ck_assert_int_eq(xfr_tsig_sign(&st, q, &qlen, sizeof(q), now), 0);
	st2 = st;
	qm = mac_rdf(st.mac, st.mac_len);
	len = ldns_response(777, qm, 0, ldns_alg, SECRET, &w);
	/* a tampered copy fails, with the state untouched */
	/* every byte but the ID (the MAC covers the original ID kept in
	 * the TSIG, RFC 8945 4.3.2) */
	for(l = 2; l < len; l++) {
		size_t ll = len;
		int vr;
		memcpy(copy, w, len);
		copy[l] ^= 0x01;
		vr = xfr_tsig_verify(&st2, copy, &ll, now, &err);
		ck_assert_msg(vr == -1, "%s: byte %d of %d changed, verify %d",
			alg, (int)l, (int)len, vr);
	}
	/* the wrong secret fails */
	st2.key = &wrong;
	memcpy(copy, w, len);
	l = len;
	ck_assert_int_eq(xfr_tsig_verify(&st2, copy, &l, now, &err), -1);
	/* the time outside the fudge fails */
	st2.key = &k;
	memcpy(copy, w, len);
	l = len;
	ck_assert_int_eq(xfr_tsig_verify(&st2, copy, &l, now + 1000, &err),
		-1);
	/* the real one verifies, and loses its TSIG */
	m1 = tsig_mac_of(w, len);
	memcpy(copy, w, len);
	l = len;
	ck_assert_msg(xfr_tsig_verify(&st, copy, &l, now, &err) == 1,
		"%s: %s", alg, err ? err : "");
	ck_assert_uint_lt(l, len);
	ck_assert_int_eq(copy[11], 0); /* ARCOUNT */
	free(w);
	/* the next message, signed with the timers only */
	len2 = ldns_response(777, m1, 1, ldns_alg, SECRET, &w2);
	memcpy(copy, w2, len2);
	l = len2;
	ck_assert_msg(xfr_tsig_verify(&st, copy, &l, now, &err) == 1,
		"%s next: %s", alg, err ? err : "");
	free(w2);
	ldns_rdf_deep_free(qm);
	ldns_rdf_deep_free(m1);
	xfr_tsig_state_clear(&st);
}

START_TEST(test_tsig_verify)
{
	verify_with("hmac-sha256", "hmac-sha256.");
	verify_with("hmac-sha1", "hmac-sha1.");
	verify_with("hmac-sha512", "hmac-sha512.");
}
END_TEST

START_TEST(test_tsig_unsigned)
{
	struct xfr_tsig_key k;
	struct xfr_tsig_state st;
	uint8_t q[1024], *w;
	size_t qlen = make_query("example.", LDNS_RR_TYPE_AXFR, 9, &w), l;
	const char *err;
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1", "hmac-sha256", SECRET),
		0);
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1", "hmac-md5", SECRET), -1);
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1", "hmac-sha256", "!!"), -1);
	ck_assert_int_eq(xfr_tsig_key_init(&k, "k1", "hmac-sha256", SECRET),
		0);
	memset(&st, 0, sizeof(st));
	st.key = &k;
	memcpy(q, w, qlen);
	ck_assert_int_eq(xfr_tsig_sign(&st, q, &qlen, sizeof(q),
		(uint64_t)time(NULL)), 0);
	free(w);
	/* an unsigned first reply is refused */
	l = make_query("example.", LDNS_RR_TYPE_AXFR, 9, &w);
	memcpy(q, w, l);
	free(w);
	q[2] |= 0x80;
	ck_assert_int_eq(xfr_tsig_verify(&st, q, &l, (uint64_t)time(NULL),
		&err), -1);
	ck_assert_ptr_nonnull(err);
	xfr_tsig_state_clear(&st);
}
END_TEST

/** a message holding these RRs (presentation, ';' separated) */
static ldns_pkt *
msg(const char *rrs)
{
	ldns_pkt *p = ldns_pkt_new();
	char *copy = strdup(rrs), *s, *save = NULL;
	ck_assert_ptr_nonnull(p);
	for(s = strtok_r(copy, ";", &save); s; s = strtok_r(NULL, ";", &save)) {
		ldns_rr *rr = NULL;
		ck_assert_msg(ldns_rr_new_frm_str(&rr, s, 3600, NULL, NULL) ==
			LDNS_STATUS_OK, "bad rr %s", s);
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	}
	free(copy);
	return p;
}

#define SOA(n) "example. 3600 IN SOA ns.example. h.example. " #n \
	" 3600 600 86400 300"

/** @return a zone list from ';' separated RRs */
static ldns_rr_list *
zone_list(const char *rrs)
{
	ldns_pkt *p = msg(rrs);
	ldns_rr_list *l = ldns_rr_list_clone(ldns_pkt_answer(p));
	ldns_pkt_free(p);
	return l;
}

/** @return 1 when list l has the RR given as text */
static int
has_rr(const ldns_rr_list *l, const char *s)
{
	ldns_rr *rr = NULL;
	size_t i;
	int found = 0;
	ck_assert(ldns_rr_new_frm_str(&rr, s, 3600, NULL, NULL) ==
		LDNS_STATUS_OK);
	for(i = 0; i < ldns_rr_list_rr_count(l); i++)
		if(ldns_rr_compare(ldns_rr_list_rr(l, i), rr) == 0)
			found = 1;
	ldns_rr_free(rr);
	return found;
}

START_TEST(test_ixfr)
{
	ldns_rdf *zone = ldns_dname_new_frm_str("example.");
	ldns_pkt *m[2];
	struct xfr_result res;
	ldns_rr_list *z, *nz;
	const char *err;
	int up;
	/* 1 -> 2: a.example A .1 becomes .2; 2 -> 3: b added */
	m[0] = msg(SOA(3) ";" SOA(1) ";a.example. 300 IN A 192.0.2.1;"
		SOA(2) ";a.example. 300 IN A 192.0.2.2");
	m[1] = msg(SOA(2) ";" SOA(3) ";b.example. 300 IN A 192.0.2.3;"
		SOA(3));
	/* the first message alone is incomplete */
	ck_assert_int_eq(xfr_parse_stream(zone, 1, 1, m, 1, &res, &up, &err),
		1);
	ck_assert_int_eq(xfr_parse_stream(zone, 1, 1, m, 2, &res, &up, &err),
		0);
	ck_assert_int_eq(up, 0);
	ck_assert_int_eq(res.kind, XFR_INCR);
	ck_assert_uint_eq(res.serial, 3);
	ck_assert_uint_eq(res.num_diffs, 2);
	ck_assert_uint_eq(res.diffs[0].from, 1);
	ck_assert_uint_eq(res.diffs[0].to, 2);
	ck_assert_uint_eq(res.diffs[1].from, 2);
	ck_assert_uint_eq(res.diffs[1].to, 3);
	z = zone_list(SOA(1) ";example. 3600 IN NS ns.example.;"
		"ns.example. 3600 IN A 192.0.2.53;"
		"a.example. 300 IN A 192.0.2.1");
	nz = xfr_apply(z, &res, &err);
	ck_assert_msg(nz != NULL, "%s", err ? err : "");
	ck_assert_uint_eq(ldns_rr_list_rr_count(nz), 5);
	ck_assert(has_rr(nz, SOA(3)));
	ck_assert(!has_rr(nz, SOA(1)));
	ck_assert(has_rr(nz, "a.example. 300 IN A 192.0.2.2"));
	ck_assert(!has_rr(nz, "a.example. 300 IN A 192.0.2.1"));
	ck_assert(has_rr(nz, "b.example. 300 IN A 192.0.2.3"));
	ck_assert(has_rr(nz, "ns.example. 3600 IN A 192.0.2.53"));
	ck_assert(ldns_rr_get_type(ldns_rr_list_rr(nz, 0)) ==
		LDNS_RR_TYPE_SOA);
	ldns_rr_list_deep_free(nz);
	/* the old zone is unchanged */
	ck_assert(has_rr(z, "a.example. 300 IN A 192.0.2.1"));
	ldns_rr_list_deep_free(z);
	/* the SOA anywhere in the list (a zone's data is sorted: NS before
	 * SOA), and last, where a deletion moves it */
	z = zone_list("example. 3600 IN NS ns.example.;" SOA(1) ";"
		"a.example. 300 IN A 192.0.2.1");
	nz = xfr_apply(z, &res, &err);
	ck_assert_msg(nz != NULL, "%s", err ? err : "");
	ck_assert(has_rr(nz, SOA(3)));
	ck_assert(!has_rr(nz, SOA(1)));
	ck_assert(has_rr(nz, "b.example. 300 IN A 192.0.2.3"));
	ck_assert_uint_eq(ldns_rr_list_rr_count(nz), 4);
	ldns_rr_list_deep_free(nz);
	ldns_rr_list_deep_free(z);
	z = zone_list("a.example. 300 IN A 192.0.2.1;example. 3600 IN NS "
		"ns.example.;" SOA(1));
	nz = xfr_apply(z, &res, &err);
	ck_assert_msg(nz != NULL, "%s", err ? err : "");
	ck_assert(has_rr(nz, SOA(3)));
	ck_assert(has_rr(nz, "a.example. 300 IN A 192.0.2.2"));
	ck_assert_uint_eq(ldns_rr_list_rr_count(nz), 4);
	ldns_rr_list_deep_free(nz);
	ldns_rr_list_deep_free(z);
	/* a zone without the deleted record: refused */
	z = zone_list(SOA(1) ";example. 3600 IN NS ns.example.");
	ck_assert_ptr_null(xfr_apply(z, &res, &err));
	ck_assert_ptr_nonnull(err);
	ldns_rr_list_deep_free(z);
	/* a zone at another serial: refused */
	z = zone_list(SOA(2) ";a.example. 300 IN A 192.0.2.2");
	ck_assert_ptr_null(xfr_apply(z, &res, &err));
	ldns_rr_list_deep_free(z);
	xfr_result_clear(&res);
	ldns_pkt_free(m[0]);
	ldns_pkt_free(m[1]);

	/* a full zone in the reply to IXFR (or AXFR) */
	m[0] = msg(SOA(5) ";example. 3600 IN NS ns.example.;"
		"ns.example. 3600 IN A 192.0.2.53");
	m[1] = msg("www.example. 300 IN A 192.0.2.80;" SOA(5));
	ck_assert_int_eq(xfr_parse_stream(zone, 1, 1, m, 2, &res, &up, &err),
		0);
	ck_assert_int_eq(res.kind, XFR_FULL);
	ck_assert_uint_eq(ldns_rr_list_rr_count(res.full), 4);
	ck_assert(ldns_rr_get_type(ldns_rr_list_rr(res.full, 0)) ==
		LDNS_RR_TYPE_SOA);
	xfr_result_clear(&res);
	ldns_pkt_free(m[0]);
	ldns_pkt_free(m[1]);

	/* up to date: the SOA alone */
	m[0] = msg(SOA(5));
	ck_assert_int_eq(xfr_parse_stream(zone, 1, 5, m, 1, &res, &up, &err),
		0);
	ck_assert_int_eq(up, 1);
	/* without a serial, a lone SOA is the start of a transfer */
	ck_assert_int_eq(xfr_parse_stream(zone, 0, 0, m, 1, &res, &up, &err),
		1);
	ldns_pkt_free(m[0]);

	/* malformed: another zone's SOA first; records after the end;
	 * a record outside the zone */
	m[0] = msg("other. 3600 IN SOA a. b. 1 1 1 1 1;" SOA(5));
	ck_assert_int_eq(xfr_parse_stream(zone, 0, 0, m, 1, &res, &up, &err),
		-1);
	ldns_pkt_free(m[0]);
	m[0] = msg(SOA(5) ";" SOA(5) ";x.example. 1 IN A 192.0.2.1");
	ck_assert_int_eq(xfr_parse_stream(zone, 0, 0, m, 1, &res, &up, &err),
		-1);
	ldns_pkt_free(m[0]);
	m[0] = msg(SOA(5) ";www.other. 1 IN A 192.0.2.1;" SOA(5));
	ck_assert_int_eq(xfr_parse_stream(zone, 0, 0, m, 1, &res, &up, &err),
		-1);
	ldns_pkt_free(m[0]);
	ldns_rdf_deep_free(zone);
}
END_TEST

/** RFC 8976 appendix A.1 */
static const char *zonemd_a1 =
	"example. 86400 IN SOA ns1.example. admin.example. 2018031900 1800 "
	"900 604800 86400;"
	"example. 86400 IN NS ns1.example.;"
	"example. 86400 IN NS ns2.example.;"
	"example. 86400 IN ZONEMD 2018031900 1 1 c68090d90a7aed716bc459f934"
	"0e3d7c1370d4d24b7e2fc3a1ddc0b9a87153b9a9713b3c9ae5cc27777f98b8e730"
	"044c;"
	"ns1.example. 3600 IN A 203.0.113.63;"
	"ns2.example. 3600 IN AAAA 2001:db8::63";

START_TEST(test_zonemd)
{
	ldns_rdf *apex = ldns_dname_new_frm_str("example.");
	ldns_rr_list *z = zone_list(zonemd_a1);
	const char *err;
	ldns_rr *rr;
	ck_assert_msg(auth_zonemd_verify(z, apex, 1, &err) == 0, "%s",
		err ? err : "");
	/* the order of the records does not matter */
	rr = ldns_rr_list_rr(z, 0);
	ldns_rr_list_set_rr(z, ldns_rr_list_rr(z, 5), 0);
	ldns_rr_list_set_rr(z, rr, 5);
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 1, &err), 0);
	ldns_rr_list_deep_free(z);
	/* one changed address: refused */
	z = zone_list(zonemd_a1);
	rr = NULL;
	ck_assert(ldns_rr_new_frm_str(&rr, "ns1.example. 3600 IN A "
		"203.0.113.64", 0, NULL, NULL) == LDNS_STATUS_OK);
	ldns_rr_free(ldns_rr_list_rr(z, 4));
	ldns_rr_list_set_rr(z, rr, 4);
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "digest"));
	ldns_rr_list_deep_free(z);
	/* only unknown schemes or hash algorithms (RFC 8976 section 4:
	 * not successful with those records; the zone is used unverified,
	 * as Unbound's auth_zonemd_file_unknown.rpl), even when absence is
	 * rejected: a ZONEMD is there */
	z = zone_list("example. 86400 IN SOA ns1.example. admin.example. "
		"2018031900 1800 900 604800 86400;"
		"example. 86400 IN NS ns1.example.;"
		"example. 86400 IN ZONEMD 2018031900 1 22 c68090d90a7aed716bc45"
		"9f9340e3d7c1370d4d24b7e2fc3a1ddc0b9a87153b9a9713b3c9ae5cc2777"
		"7f98b8e730044c;"
		"example. 86400 IN ZONEMD 2018031900 21 2 c68090d90a7aed716bc45"
		"9f9340e3d7c1370d4d24b7e2fc3a1ddc0b9a87153b9a9713b3c9ae5cc2777"
		"7f98b8e730044c;"
		"ns1.example. 3600 IN A 203.0.113.63");
	ck_assert_msg(auth_zonemd_verify(z, apex, 0, &err) == 0, "%s",
		err ? err : "");
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 1, &err), 0);
	ldns_rr_list_deep_free(z);
	/* a supported one that does not match beside an unknown one: the
	 * supported one decides, refused */
	z = zone_list("example. 86400 IN SOA ns1.example. admin.example. "
		"2018031900 1800 900 604800 86400;"
		"example. 86400 IN NS ns1.example.;"
		"example. 86400 IN ZONEMD 2018031900 1 1 c68090d90a7aed716bc459"
		"f9340e3d7c1370d4d24b7e2fc3a1ddc0b9a87153b9a9713b3c9ae5cc27777"
		"f98b8e730044c;"
		"example. 86400 IN ZONEMD 2018031900 1 240 c68090d90a7aed716bc4"
		"59f9340e3d7c1370d4d24b7e2fc3a1ddc0b9a87153b9a9713b3c9ae5cc277"
		"77f98b8e730044c;"
		"ns1.example. 3600 IN A 203.0.113.64");
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 0, &err), -1);
	ck_assert_ptr_nonnull(strstr(err, "digest"));
	ldns_rr_list_deep_free(z);
	/* without ZONEMD: fine unless its absence is rejected */
	z = zone_list("example. 86400 IN SOA ns1.example. admin.example. 1 1 "
		"1 1 1;example. 86400 IN NS ns1.example.");
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 0, &err), 0);
	ck_assert_int_eq(auth_zonemd_verify(z, apex, 1, &err), -1);
	ldns_rr_list_deep_free(z);
	ldns_rdf_deep_free(apex);
}
END_TEST

/** the zone file of the answer tests */
static const char *zone_text =
	"$TTL 3600\n"
	"example. IN SOA ns.example. h.example. 10 3600 600 86400 300\n"
	"example. IN NS ns.example.\n"
	"ns.example. IN A 192.0.2.53\n"
	"www.example. IN A 192.0.2.80\n"
	"www.example. IN RRSIG A 8 2 3600 20300101000000 20200101000000 "
	"1 example. AAAA\n"
	"alias.example. IN CNAME www.example.\n"
	"*.wild.example. IN TXT \"w\"\n"
	"x.y.deep.example. IN A 192.0.2.9\n"
	"sub.example. IN NS ns.sub.example.\n"
	"sub.example. IN DS 1 8 2 "
	"0000000000000000000000000000000000000000000000000000000000000000\n"
	"ns.sub.example. IN A 192.0.2.54\n"
	"example. IN NSEC alias.example. SOA NS NSEC RRSIG\n";

/** a config with one auth zone (name) from a zone file of text */
static struct auth_zones *
make_zone_of(const char *name, const char *ztext, const char *opts,
	char *path, size_t plen)
{
	char text[2048], err[512];
	struct config_file *cfg = config_create();
	struct auth_zones *az;
	FILE *f;
	int ok = 0, fd;
	snprintf(path, plen, "/tmp/check_authzone.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(ztext, f);
	fclose(f);
	snprintf(text, sizeof(text), "auth-zone:\n name: %s\n "
		"zonefile: \"%s\"\n allow-notify: 192.0.2.0/24\n%s", name,
		path, opts);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	az = auth_zones_create(cfg, &ok, err, sizeof(err));
	ck_assert_msg(ok && az, "%s", err);
	config_delete(cfg);
	return az;
}

/** a config with one auth zone from a zone file (zone_text) */
static struct auth_zones *
make_zones(const char *opts, char *path, size_t plen)
{
	return make_zone_of("example.", zone_text, opts, path, plen);
}

/** ask downstream; @return the parsed answer or NULL (not answered) */
static ldns_pkt *
ask(struct auth_zones *az, const char *name, ldns_rr_type t, int rd,
	int do_bit, enum auth_answer *res)
{
	uint8_t *w, out[65535], qn[256];
	size_t len = make_query(name, t, 99, &w), ol = 0, ql = sizeof(qn);
	ldns_pkt *p = NULL;
	ck_assert_int_eq(dname_from_str(name, qn, &ql), 0);
	dname_tolower(qn);
	*res = auth_zones_answer_downstream(az, w, len, 12, qn, (uint16_t)t,
		1, 99, rd ? 0x0100 : 0, do_bit, do_bit, 4096, 0, out,
		sizeof(out), &ol);
	free(w);
	if(*res != AUTH_ANSWERED)
		return NULL;
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	return p;
}

START_TEST(test_answers)
{
	char path[64];
	struct auth_zones *az = make_zones("", path, sizeof(path));
	enum auth_answer r;
	ldns_pkt *p;
	ck_assert_int_eq(auth_zones_serial(az, "example."), 10);
	/* an answer */
	p = ask(az, "WWW.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_ptr_nonnull(p);
	ck_assert(ldns_pkt_aa(p));
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 1);
	ck_assert_uint_eq(ldns_pkt_id(p), 99);
	ldns_pkt_free(p);
	/* with DO: the RRSIG too */
	p = ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 1, &r);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 2);
	ldns_pkt_free(p);
	/* NXDOMAIN with the SOA, TTL capped at the minimum */
	p = ask(az, "nope.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	ck_assert(ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_nscount(p), 1);
	ck_assert(ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_authority(p), 0))
		== LDNS_RR_TYPE_SOA);
	ck_assert_uint_eq(ldns_rr_ttl(ldns_rr_list_rr(ldns_pkt_authority(p),
		0)), 300);
	ldns_pkt_free(p);
	/* NXDOMAIN with DO: an NSEC */
	p = ask(az, "a.example.", LDNS_RR_TYPE_A, 0, 1, &r);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NXDOMAIN);
	ck_assert_uint_ge(ldns_pkt_nscount(p), 2);
	ldns_pkt_free(p);
	/* NODATA: a name with data of another type, an empty non-terminal */
	p = ask(az, "www.example.", LDNS_RR_TYPE_AAAA, 0, 0, &r);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 0);
	ck_assert_uint_eq(ldns_pkt_nscount(p), 1);
	ldns_pkt_free(p);
	p = ask(az, "y.deep.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 0);
	ldns_pkt_free(p);
	/* the wildcard, with the question's name */
	p = ask(az, "q.wild.example.", LDNS_RR_TYPE_TXT, 0, 0, &r);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 1);
	ck_assert_int_eq(ldns_dname_compare(ldns_rr_owner(ldns_rr_list_rr(
		ldns_pkt_answer(p), 0)), ldns_rr_owner(ldns_rr_list_rr(
		ldns_pkt_question(p), 0))), 0);
	ldns_pkt_free(p);
	/* CNAME followed inside the zone */
	p = ask(az, "alias.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_uint_eq(ldns_pkt_ancount(p), 2);
	ldns_pkt_free(p);
	/* a referral without RD: no AA, NS and glue */
	p = ask(az, "www.sub.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_ptr_nonnull(p);
	ck_assert(!ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_ancount(p), 0);
	ck_assert_uint_eq(ldns_pkt_nscount(p), 1);
	ck_assert_uint_eq(ldns_pkt_arcount(p), 1);
	ldns_pkt_free(p);
	/* with RD: resolved instead */
	ck_assert_ptr_null(ask(az, "www.sub.example.", LDNS_RR_TYPE_A, 1, 0,
		&r));
	ck_assert_int_eq(r, AUTH_NOT);
	/* the DS of the cut is answered from the parent side */
	p = ask(az, "sub.example.", LDNS_RR_TYPE_DS, 1, 0, &r);
	ck_assert(ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_ancount(p), 1);
	ldns_pkt_free(p);
	/* outside the zone: not ours */
	ck_assert_ptr_null(ask(az, "www.example.com.", LDNS_RR_TYPE_A, 0, 0,
		&r));
	ck_assert_int_eq(r, AUTH_NOT);
	auth_zones_delete(az);
	unlink(path);
}
END_TEST

/** @return 1 when RR i of section l has type t (for RRSIG: covering
 * type covered) and owner name */
static int
rr_is(ldns_rr_list *l, size_t i, ldns_rr_type t, ldns_rr_type covered,
	const char *owner)
{
	ldns_rr *rr;
	ldns_rdf *o;
	int ok;
	if(i >= ldns_rr_list_rr_count(l))
		return 0;
	rr = ldns_rr_list_rr(l, i);
	if(ldns_rr_get_type(rr) != t)
		return 0;
	if(t == LDNS_RR_TYPE_RRSIG && ldns_rdf2native_int16(ldns_rr_rdf(rr,
		0)) != covered)
		return 0;
	ck_assert(ldns_str2rdf_dname(&o, owner) == LDNS_STATUS_OK);
	ok = ldns_dname_compare(ldns_rr_owner(rr), o) == 0;
	ldns_rdf_deep_free(o);
	return ok;
}

/** an NSEC3 zone (iterations 0, no salt) with signatures (not checked:
 * only their place in the answer is) on the SOA and some NSEC3s.
 * Hashes: apex krsatb3p.., b 7at0s0ri.., w e1r4elaj.., *.w qmu5emua..,
 * z.w bcmdaeme.. (covered by 7at0s0ri..) */
static const char *n3_zone_text =
	"$ORIGIN nsec3.example.\n$TTL 3600\n"
	"@ IN SOA ns.nsec3.example. h.nsec3.example. 1 3600 600 86400 300\n"
	"@ IN RRSIG SOA 8 2 3600 20300101000000 20200101000000 1 "
	"nsec3.example. AAAA\n"
	"@ IN NS ns\n"
	"@ IN NSEC3PARAM 1 0 0 -\n"
	"*.w IN TXT \"wild\"\n"
	"a.b IN TXT \"deep\"\n"
	"qmu5emuaalpkk9cb81ajp93kp1u0v58c IN NSEC3 1 0 0 - "
	"T8NTILOM33A9M4PLRR2JORSDRT543QQP TXT RRSIG\n"
	"qmu5emuaalpkk9cb81ajp93kp1u0v58c IN RRSIG NSEC3 8 3 3600 "
	"20300101000000 20200101000000 1 nsec3.example. AAAA\n"
	"e1r4elajvnae9pucmjrofafa95hs5bf2 IN NSEC3 1 0 0 - "
	"KRSATB3PJBKRJUTSKF89T5MS899D2UDP\n"
	"e1r4elajvnae9pucmjrofafa95hs5bf2 IN RRSIG NSEC3 8 3 3600 "
	"20300101000000 20200101000000 1 nsec3.example. AAAA\n"
	"7at0s0ridcjrff2m5h5aav22csfjbul4 IN NSEC3 1 0 0 - "
	"E1R4ELAJVNAE9PUCMJROFAFA95HS5BF2\n"
	"7at0s0ridcjrff2m5h5aav22csfjbul4 IN RRSIG NSEC3 8 3 3600 "
	"20300101000000 20200101000000 1 nsec3.example. AAAA\n"
	"krsatb3pjbkrjutskf89t5ms899d2udp IN NSEC3 1 0 0 - "
	"QMU5EMUAALPKK9CB81AJP93KP1U0V58C NS SOA RRSIG NSEC3PARAM\n"
	"t8ntilom33a9m4plrr2jorsdrt543qqp IN NSEC3 1 0 0 - "
	"7AT0S0RIDCJRFF2M5H5AAV22CSFJBUL4 TXT\n";

START_TEST(test_answer_order)
{
	char path[64];
	struct auth_zones *az;
	enum auth_answer r;
	ldns_rr_list *l;
	ldns_pkt *p;
	/* NSEC3 (type 50) sorts after RRSIG (46) in the zone, SOA (6)
	 * before: each RRset is written before its signatures all the
	 * same, as resolvers write them (and testbound compares) */
	az = make_zone_of("nsec3.example.", n3_zone_text, "", path,
		sizeof(path));
	/* wildcard NODATA (RFC 5155 7.2.5): the wildcard's own NSEC3
	 * first, then the closest encloser's, then the one covering the
	 * next closer name, each followed by its RRSIG */
	p = ask(az, "z.w.nsec3.example.", LDNS_RR_TYPE_A, 0, 1, &r);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(ldns_pkt_get_rcode(p), LDNS_RCODE_NOERROR);
	l = ldns_pkt_authority(p);
	ck_assert_uint_eq(ldns_rr_list_rr_count(l), 8);
	ck_assert(rr_is(l, 0, LDNS_RR_TYPE_SOA, 0, "nsec3.example."));
	ck_assert(rr_is(l, 1, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_SOA,
		"nsec3.example."));
	ck_assert(rr_is(l, 2, LDNS_RR_TYPE_NSEC3, 0,
		"qmu5emuaalpkk9cb81ajp93kp1u0v58c.nsec3.example."));
	ck_assert(rr_is(l, 3, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_NSEC3,
		"qmu5emuaalpkk9cb81ajp93kp1u0v58c.nsec3.example."));
	ck_assert(rr_is(l, 4, LDNS_RR_TYPE_NSEC3, 0,
		"e1r4elajvnae9pucmjrofafa95hs5bf2.nsec3.example."));
	ck_assert(rr_is(l, 5, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_NSEC3,
		"e1r4elajvnae9pucmjrofafa95hs5bf2.nsec3.example."));
	ck_assert(rr_is(l, 6, LDNS_RR_TYPE_NSEC3, 0,
		"7at0s0ridcjrff2m5h5aav22csfjbul4.nsec3.example."));
	ck_assert(rr_is(l, 7, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_NSEC3,
		"7at0s0ridcjrff2m5h5aav22csfjbul4.nsec3.example."));
	ldns_pkt_free(p);
	/* ANY at the apex: each RRset, then its RRSIGs */
	p = ask(az, "nsec3.example.", LDNS_RR_TYPE_ANY, 0, 1, &r);
	ck_assert_ptr_nonnull(p);
	l = ldns_pkt_answer(p);
	ck_assert_uint_eq(ldns_rr_list_rr_count(l), 4);
	ck_assert(rr_is(l, 0, LDNS_RR_TYPE_NS, 0, "nsec3.example."));
	ck_assert(rr_is(l, 1, LDNS_RR_TYPE_SOA, 0, "nsec3.example."));
	ck_assert(rr_is(l, 2, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_SOA,
		"nsec3.example."));
	ck_assert(rr_is(l, 3, LDNS_RR_TYPE_NSEC3PARAM, 0, "nsec3.example."));
	ldns_pkt_free(p);
	auth_zones_delete(az);
	unlink(path);
}
END_TEST

START_TEST(test_upstream)
{
	char path[64];
	struct auth_zones *az = make_zones("", path, sizeof(path));
	uint8_t out[65535], dp[256], qn[256];
	size_t ol, l;
	ldns_pkt *p = NULL;
	l = sizeof(dp);
	ck_assert_int_eq(dname_from_str("example.", dp, &l), 0);
	l = sizeof(qn);
	ck_assert_int_eq(dname_from_str("www.sub.example.", qn, &l), 0);
	/* from the zone's own delegation point: the referral */
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_ANSWERED);
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	ck_assert(ldns_pkt_qr(p));
	ck_assert(!ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_nscount(p), 1);
	ldns_pkt_free(p);
	/* with DO (the validator's queries): the DS of the cut too */
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 1, out,
		sizeof(out), &ol), AUTH_ANSWERED);
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	ck_assert_uint_eq(ldns_pkt_nscount(p), 2);
	ck_assert(ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_authority(p), 1))
		== LDNS_RR_TYPE_DS);
	ldns_pkt_free(p);
	/* an answer in the zone: AA */
	l = sizeof(qn);
	ck_assert_int_eq(dname_from_str("www.example.", qn, &l), 0);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_ANSWERED);
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	ck_assert(ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_ancount(p), 1);
	ldns_pkt_free(p);
	l = sizeof(qn);
	ck_assert_int_eq(dname_from_str("www.sub.example.", qn, &l), 0);
	/* from the child's delegation point: not the zone's business */
	l = sizeof(dp);
	ck_assert_int_eq(dname_from_str("sub.example.", dp, &l), 0);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_NOT);
	/* a delegation point outside the zone */
	l = sizeof(dp);
	ck_assert_int_eq(dname_from_str("com.", dp, &l), 0);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_NOT);
	auth_zones_delete(az);
	unlink(path);
}
END_TEST

/** a NOTIFY for name from addr; @return the rcode, or -1 when dropped */
static int
notify(struct auth_zones *az, const char *name, const char *addr)
{
	ldns_pkt *q = NULL;
	uint8_t *w, out[512];
	size_t len, ol = 0;
	struct netaddr a;
	int r;
	ck_assert(ldns_pkt_query_new_frm_str(&q, name, LDNS_RR_TYPE_SOA,
		LDNS_RR_CLASS_IN, 0) == LDNS_STATUS_OK);
	ldns_pkt_set_opcode(q, LDNS_PACKET_NOTIFY);
	ldns_pkt_set_aa(q, true);
	ck_assert(ldns_pkt2wire(&w, q, &len) == LDNS_STATUS_OK);
	ldns_pkt_free(q);
	ck_assert_int_eq(netaddr_parse(addr, 53, &a, NULL), 0);
	r = auth_zones_notify(az, w, len, &a, out, sizeof(out), &ol);
	free(w);
	if(!r)
		return -1;
	ck_assert_uint_ge(ol, 12);
	ck_assert(out[2] & 0x80); /* QR */
	ck_assert_int_eq((out[2] >> 3) & 0x0f, 4); /* NOTIFY */
	return out[3] & 0x0f;
}

START_TEST(test_notify)
{
	char path[64];
	/* a primary that is never reached: the task exists, the service
	 * is not started */
	struct auth_zones *az = make_zones(" primary: 127.0.120.250@1\n",
		path, sizeof(path));
	ck_assert_int_eq(notify(az, "example.", "192.0.2.1"), 0);
	ck_assert_int_eq(notify(az, "example.", "127.0.120.250"), 0);
	ck_assert_int_eq(notify(az, "example.", "198.51.100.1"), 5);
	ck_assert_int_eq(notify(az, "other.", "192.0.2.1"), 5);
	auth_zones_delete(az);
	unlink(path);
	/* a zone without primaries takes no NOTIFY */
	az = make_zones("", path, sizeof(path));
	ck_assert_int_eq(notify(az, "example.", "192.0.2.1"), 5);
	auth_zones_delete(az);
	unlink(path);
}
END_TEST

/** auth zones of a zone with a primary and no data yet */
static struct auth_zones *
nodata_zones(const char *opts)
{
	char text[512], err[512];
	struct config_file *cfg = config_create();
	struct auth_zones *az;
	int ok = 0;
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n primary:"
		" 127.0.120.250@1\n zonefile: /nonexistent/petrel/zone\n%s",
		opts);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	az = auth_zones_create(cfg, &ok, err, sizeof(err));
	ck_assert_msg(ok && az, "%s", err);
	config_delete(cfg);
	return az;
}

START_TEST(test_nodata)
{
	struct auth_zones *az = nodata_zones("");
	uint8_t out[512], dp[256], qn[256];
	size_t ol, l = sizeof(dp);
	enum auth_answer r;
	ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
	/* no data, no fallback: the caller fails the query */
	ck_assert_ptr_null(ask(az, "www.example.", LDNS_RR_TYPE_A, 1, 0, &r));
	ck_assert_int_eq(r, AUTH_FAIL);
	ck_assert_int_eq(dname_from_str("example.", dp, &l), 0);
	l = sizeof(qn);
	ck_assert_int_eq(dname_from_str("www.example.", qn, &l), 0);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_FAIL);
	auth_zones_delete(az);
	/* fallback-enabled: resolve normally */
	az = nodata_zones(" fallback-enabled: yes\n");
	ck_assert_ptr_null(ask(az, "www.example.", LDNS_RR_TYPE_A, 1, 0, &r));
	ck_assert_int_eq(r, AUTH_NOT);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_NOT);
	auth_zones_delete(az);
}
END_TEST

/* for-downstream: no with for-upstream: no is accepted (as Unbound):
 * the zone loads and answers nobody */
START_TEST(test_no_downstream_no_upstream)
{
	char path[64];
	struct auth_zones *az = make_zones(" for-downstream: no\n"
		" for-upstream: no\n", path, sizeof(path));
	uint8_t out[65535], dp[256], qn[256];
	size_t ol, l;
	enum auth_answer r;
	ck_assert_ptr_null(ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r));
	ck_assert_int_ne(r, AUTH_ANSWERED);
	l = sizeof(dp);
	ck_assert_int_eq(dname_from_str("example.", dp, &l), 0);
	l = sizeof(qn);
	ck_assert_int_eq(dname_from_str("www.example.", qn, &l), 0);
	ck_assert_int_ne(auth_zones_answer_upstream(az, dp, qn, 1, 1, 0, out,
		sizeof(out), &ol), AUTH_ANSWERED);
	auth_zones_delete(az);
	unlink(path);
}
END_TEST

/* a primary: or allow-notify: may be a host name (name, name@port), as
 * in Unbound; what is neither an address nor a name is refused */
START_TEST(test_host_names_config)
{
	static const char *good[] = {
		"master: ns.example.net.\n", "master: ns.example.net@5353\n",
		"primary: 192.0.2.1\n allow-notify: notifier.example.net\n",
		NULL
	}, *bad[] = {
		"master: ns..example.net\n", "master: ns.example.net@0\n",
		"master: 2001:db8::zz\n", "allow-notify: 192.0.2.0/33\n",
		"allow-notify: a b\n", NULL
	};
	char text[512], err[512];
	int i;
	for(i = 0; good[i]; i++) {
		struct config_file *cfg = config_create();
		snprintf(text, sizeof(text), "auth-zone:\n name: example.\n "
			"%s", good[i]);
		ck_assert_msg(config_read_mem(cfg, "t.conf", text,
			strlen(text), err, sizeof(err)) == 0, "%s: %s",
			good[i], err);
		config_delete(cfg);
	}
	for(i = 0; bad[i]; i++) {
		struct config_file *cfg = config_create();
		snprintf(text, sizeof(text), "auth-zone:\n name: example.\n "
			"master: 192.0.2.1\n %s", bad[i]);
		ck_assert_msg(config_read_mem(cfg, "t.conf", text,
			strlen(text), err, sizeof(err)) != 0, "%s", bad[i]);
		config_delete(cfg);
	}
}
END_TEST

START_TEST(test_zonefile_errors)
{
	char text[512], err[512];
	struct config_file *cfg = config_create();
	int ok = 1;
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n zonefile:"
		" /nonexistent/petrel/zone\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_ptr_null(auth_zones_create(cfg, &ok, err, sizeof(err)));
	ck_assert_int_eq(ok, 0);
	ck_assert_ptr_nonnull(strstr(err, "cannot read zonefile"));
	config_delete(cfg);
}
END_TEST

/* rpz for-downstream: yes makes an auth zone of the rpz zone (its
 * zonefile read here); one of the name of an auth-zone: is an error */
START_TEST(test_rpz_downstream)
{
	char text[512], err[512];
	struct auth_zones *az;
	struct config_file *cfg = config_create();
	int ok = 1;
	snprintf(text, sizeof(text), "rpz:\n name: rpz.example.\n zonefile:"
		" /nonexistent/petrel/rpz\n for-downstream: yes\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_ptr_null(auth_zones_create(cfg, &ok, err, sizeof(err)));
	ck_assert_int_eq(ok, 0);
	ck_assert_ptr_nonnull(strstr(err, "'rpz.example.': cannot read "
		"zonefile /nonexistent/petrel/rpz"));
	config_delete(cfg);
	cfg = config_create();
	snprintf(text, sizeof(text), "auth-zone:\n name: rpz.example.\n "
		"zonefile: /nonexistent/petrel/a\nrpz:\n name: rpz.example\n "
		"zonefile: /nonexistent/petrel/rpz\n for-downstream: yes\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ok = 1;
	ck_assert_ptr_null(auth_zones_create(cfg, &ok, err, sizeof(err)));
	ck_assert_int_eq(ok, 0);
	ck_assert_str_eq(err, "t.conf:7: rpz 'rpz.example.' for-downstream: "
		"an auth-zone: of that name is defined too");
	config_delete(cfg);
	/* with a primary: a zone of its own transfer (nothing read: the
	 * zonefile: is the policy's) */
	cfg = config_create();
	snprintf(text, sizeof(text), "rpz:\n name: rpz.example.\n zonefile:"
		" /nonexistent/petrel/rpz\n primary: 192.0.2.1\n "
		"for-downstream: yes\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ok = 0;
	az = auth_zones_create(cfg, &ok, err, sizeof(err));
	ck_assert_int_eq(ok, 1);
	ck_assert_ptr_nonnull(az);
	ck_assert_int_eq(auth_zones_downstream_covers(az, (const uint8_t *)
		"\003www\003rpz\007example"), 1);
	auth_zones_delete(az);
	config_delete(cfg);
	/* for-downstream: no: no zone */
	cfg = config_create();
	snprintf(text, sizeof(text), "rpz:\n name: rpz.example.\n zonefile:"
		" /nonexistent/petrel/rpz\n for-downstream: no\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ok = 0;
	ck_assert_ptr_null(auth_zones_create(cfg, &ok, err, sizeof(err)));
	ck_assert_int_eq(ok, 1);
	config_delete(cfg);
}
END_TEST

START_TEST(test_zonemd_reject_at_load)
{
	char path[64], text[1024], err[512];
	struct config_file *cfg = config_create();
	struct auth_zones *az;
	enum auth_answer r;
	int ok = 1, fd;
	FILE *f;
	snprintf(path, sizeof(path), "/tmp/check_authzone.XXXXXX");
	fd = mkstemp(path);
	f = fdopen(fd, "w");
	fputs(zone_text, f);
	fclose(f);
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n zonefile:"
		" \"%s\"\n zonemd-check: yes\n zonemd-reject-absence: yes\n",
		path);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	/* not a load error: the zone is logged and not used */
	az = auth_zones_create(cfg, &ok, err, sizeof(err));
	ck_assert_int_eq(ok, 1);
	ck_assert_ptr_nonnull(az);
	ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
	ck_assert_ptr_null(ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r));
	ck_assert_int_eq(r, AUTH_FAIL);
	auth_zones_delete(az);
	config_delete(cfg);
	unlink(path);
}
END_TEST

/* ---------------- ZONEMD with DNSSEC ---------------- */

/** the zone signed in the DNSSEC ZONEMD tests */
static const char *dz_text =
	"example. 3600 IN SOA ns.example. h.example. 7 3600 600 86400 300;"
	"example. 3600 IN NS ns.example.;"
	"ns.example. 3600 IN A 192.0.2.53;"
	"www.example. 3600 IN A 192.0.2.80";

/** a new ECDSA P-256 key for example. (flags 257) */
static ldns_key *
dz_key(void)
{
	ldns_key *k = ldns_key_new_frm_algorithm(LDNS_SIGN_ECDSAP256SHA256,
		256);
	ck_assert_ptr_nonnull(k);
	ldns_key_set_pubkey_owner(k, ldns_dname_new_frm_str("example."));
	ldns_rr *rr;
	ldns_key_set_flags(k, 257);
	/* the RRSIGs take the key tag from the key, not from its RR */
	rr = ldns_key2rr(k);
	ldns_key_set_keytag(k, ldns_calc_keytag(rr));
	ldns_rr_free(rr);
	return k;
}

/** @return a malloc'd RR text without its newline */
static char *
rr_text(const ldns_rr *rr)
{
	char *t = ldns_rr2str(rr), *nl;
	ck_assert_ptr_nonnull(t);
	if((nl = strchr(t, '\n')))
		*nl = 0;
	return t;
}

/**
 * The test zone signed with k (its DNSKEY added), with a ZONEMD (SIMPLE,
 * SHA-384) when zonemd, NSEC3 instead of NSEC when nsec3.
 * @return every RR, in a new list.
 */
static ldns_rr_list *
dz_sign(ldns_key *k, int zonemd, int nsec3)
{
	ldns_rr_list *src = zone_list(dz_text), *out = ldns_rr_list_new();
	ldns_dnssec_zone *dz = ldns_dnssec_zone_new();
	ldns_rr_list *added = ldns_rr_list_new();
	ldns_key_list *kl = ldns_key_list_new();
	ldns_dnssec_name *name;
	ldns_rbnode_t *node;
	int flags = zonemd ? LDNS_SIGN_WITH_ZONEMD_SIMPLE_SHA384 : 0;
	size_t i;
	ck_assert(dz && out && added && kl);
	for(i = 0; i < ldns_rr_list_rr_count(src); i++)
		ck_assert(ldns_dnssec_zone_add_rr(dz, ldns_rr_clone(
			ldns_rr_list_rr(src, i))) == LDNS_STATUS_OK);
	ck_assert(ldns_dnssec_zone_add_rr(dz, ldns_key2rr(k)) ==
		LDNS_STATUS_OK);
	ldns_key_list_push_key(kl, k);
	if(nsec3)
		ck_assert(ldns_dnssec_zone_sign_nsec3_flg(dz, added, kl,
			ldns_dnssec_default_replace_signatures, NULL, 1, 0, 0,
			0, NULL, flags) == LDNS_STATUS_OK);
	else	ck_assert(ldns_dnssec_zone_sign_flg(dz, added, kl,
			ldns_dnssec_default_replace_signatures, NULL, flags) ==
			LDNS_STATUS_OK);
	/* every RR of the signed zone, by name */
	for(node = ldns_rbtree_first(dz->names); node != LDNS_RBTREE_NULL;
		node = ldns_rbtree_next(node)) {
		ldns_dnssec_rrsets *set;
		ldns_dnssec_rrs *r;
		name = (ldns_dnssec_name *)node->data;
		for(set = name->rrsets; set; set = set->next) {
			for(r = set->rrs; r; r = r->next)
				ldns_rr_list_push_rr(out, ldns_rr_clone(r->rr));
			for(r = set->signatures; r; r = r->next)
				ldns_rr_list_push_rr(out, ldns_rr_clone(r->rr));
		}
		if(name->nsec) {
			ldns_rr_list_push_rr(out, ldns_rr_clone(name->nsec));
			for(r = name->nsec_signatures; r; r = r->next)
				ldns_rr_list_push_rr(out, ldns_rr_clone(r->rr));
		}
	}
	/* the key list does not own k */
	ldns_key_list_set_key_count(kl, 0);
	ldns_key_list_free(kl);
	ldns_dnssec_zone_deep_free(dz);
	/* the new NSEC and RRSIG records belong to the zone now */
	ldns_rr_list_free(added);
	ldns_rr_list_deep_free(src);
	return out;
}

/** @return the index of the first RR of a type (covered, for RRSIG, when
 * not 0) in l, or -1 */
static int
rr_find(const ldns_rr_list *l, ldns_rr_type t, ldns_rr_type covered)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(l); i++) {
		const ldns_rr *rr = ldns_rr_list_rr(l, i);
		if(ldns_rr_get_type(rr) != t)
			continue;
		if(covered && ldns_rdf2rr_type(ldns_rr_rrsig_typecovered(rr))
			!= covered)
			continue;
		return (int)i;
	}
	return -1;
}

/** a check state with one trust-anchor line (or none: NULL) */
static struct val_zonemd *
dz_anchor(const char *ta)
{
	char text[2048], err[512];
	struct config_file *cfg = config_create();
	struct val_zonemd *vz;
	if(ta)
		snprintf(text, sizeof(text), "server:\n trust-anchor: \"%s\"\n",
			ta);
	else	snprintf(text, sizeof(text), "server:\n verbosity: 0\n");
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	vz = val_zonemd_create(cfg, err, sizeof(err));
	ck_assert_msg(vz != NULL, "%s", err);
	config_delete(cfg);
	return vz;
}

/** run the check; the reason into err */
static int
dz_check(struct val_zonemd *vz, const ldns_rr_list *z, char *err,
	size_t errlen)
{
	ldns_rdf *apex = ldns_dname_new_frm_str("example.");
	int r;
	err[0] = 0;
	r = val_zonemd_check(vz, z, apex, err, errlen);
	ldns_rdf_deep_free(apex);
	return r;
}

/** point key[0] at a DNSKEY RR's RDATA (the wire form, kept in a static
 * buffer: one at a time) */
static void
dz_keyset(const ldns_rr *k, const uint8_t **key, uint16_t *keylen)
{
	static uint8_t wire[4096];
	ldns_buffer *b = ldns_buffer_new(4096);
	ck_assert(ldns_rr_rdata2buffer_wire(b, k) == LDNS_STATUS_OK);
	memcpy(wire, ldns_buffer_begin(b), ldns_buffer_position(b));
	key[0] = wire;
	keylen[0] = (uint16_t)ldns_buffer_position(b);
	ldns_buffer_free(b);
}

/** run the check with validated keys; the reason into err */
static int
dz_check_keys(struct val_zonemd *vz, const ldns_rr_list *z,
	const uint8_t *const *key, const uint16_t *keylen, size_t n,
	char *err, size_t errlen)
{
	ldns_rdf *apex = ldns_dname_new_frm_str("example.");
	int r;
	err[0] = 0;
	r = val_zonemd_check_keys(vz, z, apex, key, keylen, n, err, errlen);
	ldns_rdf_deep_free(apex);
	return r;
}

START_TEST(test_zonemd_dnssec)
{
	ldns_key *ka = dz_key(), *kb = dz_key();
	ldns_rr *ka_rr = ldns_key2rr(ka), *kb_rr = ldns_key2rr(kb);
	ldns_rr *ds = ldns_key_rr2ds(ka_rr, LDNS_SHA256);
	char *ds_text = rr_text(ds), *kb_text = rr_text(kb_rr);
	struct val_zonemd *good = dz_anchor(ds_text), *wrong =
		dz_anchor(kb_text), *none = dz_anchor(NULL), *root =
		dz_anchor(". 3600 IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D0"
		"8458E880409BBC683457104237C7F8EC8D");
	ldns_rr_list *z = dz_sign(ka, 1, 0);
	ldns_rdf *apex = ldns_dname_new_frm_str("example.");
	const char *e = NULL;
	char err[512];
	int i;
	/* a good signed zone: the ZONEMD verifies, and its digest */
	ck_assert_msg(dz_check(good, z, err, sizeof(err)) == AUTH_ZMD_SECURE,
		"%s", err);
	ck_assert_msg(auth_zonemd_verify(z, apex, 1, &e) == 0, "%s", e);
	/* no anchor: nothing to verify with DNSSEC */
	ck_assert_int_eq(dz_check(none, z, err, sizeof(err)),
		AUTH_ZMD_NO_ANCHOR);
	/* below the root anchor: its DNSKEY must be looked up through the
	 * validator */
	ck_assert_int_eq(dz_check(root, z, err, sizeof(err)),
		AUTH_ZMD_NEED_KEYS);
	ck_assert_msg(strstr(err, "below the trust anchor .") != NULL, "%s", err);
	/* ... and then checked with the validated set */
	{
		const uint8_t *key[1];
		uint16_t keylen[1];
		ldns_rr_list *t;
		dz_keyset(ka_rr, key, keylen);
		ck_assert_msg(dz_check_keys(root, z, key, keylen, 1, err,
			sizeof(err)) == AUTH_ZMD_SECURE, "%s", err);
		/* the validated set is another key: refused */
		dz_keyset(kb_rr, key, keylen);
		ck_assert_int_eq(dz_check_keys(root, z, key, keylen, 1, err,
			sizeof(err)), AUTH_ZMD_BOGUS);
		ck_assert_msg(strstr(err, "not the one validated") != NULL,
			"%s", err);
		/* no keys validated */
		ck_assert_int_eq(dz_check_keys(root, z, key, keylen, 0, err,
			sizeof(err)), AUTH_ZMD_BOGUS);
		/* the right keys, a tampered ZONEMD */
		t = ldns_rr_list_clone(z);
		i = rr_find(t, LDNS_RR_TYPE_ZONEMD, 0);
		ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(t, (size_t)i),
			3))[0] ^= 0x01;
		dz_keyset(ka_rr, key, keylen);
		ck_assert_int_eq(dz_check_keys(root, t, key, keylen, 1, err,
			sizeof(err)), AUTH_ZMD_BOGUS);
		ck_assert_msg(strstr(err, "ZONEMD RRSIG does not verify") !=
			NULL, "%s", err);
		ldns_rr_list_deep_free(t);
	}
	/* the anchor is another key: the DNSKEY set does not chain */
	ck_assert_int_eq(dz_check(wrong, z, err, sizeof(err)), AUTH_ZMD_BOGUS);
	ck_assert_msg(strstr(err, "DNSKEY set does not verify") != NULL, "%s",
		err);
	/* a tampered ZONEMD: its signature fails */
	{
		ldns_rr_list *t = ldns_rr_list_clone(z);
		ldns_rr *rr;
		ldns_rdf *dg;
		i = rr_find(t, LDNS_RR_TYPE_ZONEMD, 0);
		ck_assert_int_ge(i, 0);
		rr = ldns_rr_list_rr(t, (size_t)i);
		dg = ldns_rr_rdf(rr, 3);
		ldns_rdf_data(dg)[0] ^= 0x01;
		ck_assert_int_eq(dz_check(good, t, err, sizeof(err)),
			AUTH_ZMD_BOGUS);
		ck_assert_msg(strstr(err, "ZONEMD RRSIG does not verify") !=
			NULL, "%s", err);
		ldns_rr_list_deep_free(t);
	}
	/* the ZONEMD signed by a key that is not in the zone's DNSKEY
	 * set (its digest is still right) */
	{
		ldns_rr_list *t = ldns_rr_list_clone(z), *set =
			ldns_rr_list_new(), *sig;
		ldns_key_list *kl = ldns_key_list_new();
		i = rr_find(t, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_ZONEMD);
		ck_assert_int_ge(i, 0);
		ldns_rr_list_push_rr(set, ldns_rr_list_rr(t, (size_t)rr_find(
			t, LDNS_RR_TYPE_ZONEMD, 0)));
		ldns_key_list_push_key(kl, kb);
		sig = ldns_sign_public(set, kl);
		ck_assert_ptr_nonnull(sig);
		ldns_rr_free(ldns_rr_list_rr(t, (size_t)i));
		ldns_rr_list_set_rr(t, ldns_rr_clone(ldns_rr_list_rr(sig, 0)),
			(size_t)i);
		ck_assert_int_eq(dz_check(good, t, err, sizeof(err)),
			AUTH_ZMD_BOGUS);
		ck_assert_msg(strstr(err, "ZONEMD RRSIG does not verify") &&
			strstr(err, "no matching DNSKEY"), "%s", err);
		ck_assert_int_eq(auth_zonemd_verify(t, apex, 1, &e), 0);
		ldns_rr_list_deep_free(sig);
		ldns_rr_list_free(set);
		ldns_key_list_set_key_count(kl, 0);
		ldns_key_list_free(kl);
		ldns_rr_list_deep_free(t);
	}
	ldns_rr_list_deep_free(z);
	/* no ZONEMD: the apex NSEC proves it absent */
	z = dz_sign(ka, 0, 0);
	ck_assert_int_lt(rr_find(z, LDNS_RR_TYPE_ZONEMD, 0), 0);
	ck_assert_msg(dz_check(good, z, err, sizeof(err)) == AUTH_ZMD_SECURE,
		"%s", err);
	/* without the apex NSEC (and its RRSIG): not proven */
	while((i = rr_find(z, LDNS_RR_TYPE_NSEC, 0)) >= 0 ||
		(i = rr_find(z, LDNS_RR_TYPE_RRSIG, LDNS_RR_TYPE_NSEC)) >= 0) {
		ldns_rr_free(ldns_rr_list_rr(z, (size_t)i));
		ldns_rr_list_set_rr(z, ldns_rr_list_rr(z,
			ldns_rr_list_rr_count(z) - 1), (size_t)i);
		(void)ldns_rr_list_pop_rr(z);
	}
	ck_assert_int_eq(dz_check(good, z, err, sizeof(err)), AUTH_ZMD_BOGUS);
	ck_assert_msg(strstr(err, "proves it absent") != NULL, "%s", err);
	ldns_rr_list_deep_free(z);
	/* no ZONEMD, NSEC3: the apex NSEC3 proves it absent */
	z = dz_sign(ka, 0, 1);
	ck_assert_int_ge(rr_find(z, LDNS_RR_TYPE_NSEC3, 0), 0);
	ck_assert_msg(dz_check(good, z, err, sizeof(err)) == AUTH_ZMD_SECURE,
		"%s", err);
	ldns_rr_list_deep_free(z);
	/* NSEC3 with a ZONEMD */
	z = dz_sign(ka, 1, 1);
	ck_assert_msg(dz_check(good, z, err, sizeof(err)) == AUTH_ZMD_SECURE,
		"%s", err);
	ldns_rr_list_deep_free(z);
	val_zonemd_delete(good);
	val_zonemd_delete(wrong);
	val_zonemd_delete(none);
	val_zonemd_delete(root);
	free(ds_text);
	free(kb_text);
	ldns_rr_free(ds);
	ldns_rr_free(ka_rr);
	ldns_rr_free(kb_rr);
	ldns_key_deep_free(ka);
	ldns_key_deep_free(kb);
	ldns_rdf_deep_free(apex);
}
END_TEST

/** make zones from a zone file of RRs l and a config, with the check */
static struct auth_zones *
dz_zones(const ldns_rr_list *l, const char *server, const char *ta,
	char *path, size_t plen, struct val_zonemd **vz)
{
	char text[4096], err[512];
	struct config_file *cfg = config_create();
	struct auth_zones *az;
	FILE *f;
	int ok = 0, fd;
	snprintf(path, plen, "/tmp/check_authzone.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ldns_rr_list_print(f, l);
	fclose(f);
	snprintf(text, sizeof(text), "server:\n trust-anchor: \"%s\"\n%s"
		"auth-zone:\n name: example.\n zonefile: \"%s\"\n "
		"for-downstream: yes\n for-upstream: yes\n zonemd-check: yes\n",
		ta, server, path);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	*vz = val_zonemd_create(cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(*vz);
	az = auth_zones_create_dnssec(cfg, val_zonemd_check,
		val_zonemd_check_keys, *vz, &ok, err, sizeof(err));
	ck_assert_msg(ok && az, "%s", err);
	config_delete(cfg);
	return az;
}

START_TEST(test_zonemd_dnssec_zones)
{
	ldns_key *ka = dz_key();
	ldns_rr *ka_rr = ldns_key2rr(ka);
	ldns_rr *ds = ldns_key_rr2ds(ka_rr, LDNS_SHA256);
	char *ds_text = rr_text(ds), path[64], buf[512];
	ldns_rr_list *z = dz_sign(ka, 1, 0);
	struct auth_zones *az;
	struct val_zonemd *vz;
	enum auth_answer r;
	ldns_pkt *p;
	uint8_t out[4096], qn[256], dp[1] = { 0 };
	size_t ol = 0, ql = sizeof(qn);
	int i;
	ck_assert_int_eq(dname_from_str("www.example.", qn, &ql), 0);
	/* good: used */
	az = dz_zones(z, "", ds_text, path, sizeof(path), &vz);
	ck_assert_int_eq(auth_zones_serial(az, "example."), 7);
	p = ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_ptr_nonnull(p);
	ldns_pkt_free(p);
	auth_zones_delete(az);
	val_zonemd_delete(vz);
	unlink(path);
	/* a tampered ZONEMD: not used; downstream SERVFAIL (AUTH_FAIL),
	 * upstream too when the iterator reaches the zone (its apex is
	 * the delegation point) without fallback-enabled, as Unbound */
	i = rr_find(z, LDNS_RR_TYPE_ZONEMD, 0);
	ck_assert_int_ge(i, 0);
	ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(z, (size_t)i), 3))[0] ^= 1;
	az = dz_zones(z, "", ds_text, path, sizeof(path), &vz);
	ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
	p = ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r);
	ck_assert_ptr_null(p);
	ck_assert_int_eq(r, AUTH_FAIL);
	ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn,
		LDNS_RR_TYPE_A, 1, 0, out, sizeof(out), &ol), AUTH_NOT);
	ck_assert_int_eq(auth_zones_answer_upstream(az, qn + 4, qn,
		LDNS_RR_TYPE_A, 1, 0, out, sizeof(out), &ol), AUTH_FAIL);
	ck_assert_int_eq(auth_zones_list(az, buf, sizeof(buf)), 1);
	ck_assert_msg(strstr(buf, "zonemd-refused") != NULL, "%s", buf);
	auth_zones_delete(az);
	val_zonemd_delete(vz);
	unlink(path);
	/* the same with zonemd-permissive-mode: logged and used */
	az = dz_zones(z, "server:\n zonemd-permissive-mode: yes\n", ds_text,
		path, sizeof(path), &vz);
	ck_assert_int_eq(auth_zones_serial(az, "example."), 7);
	auth_zones_delete(az);
	val_zonemd_delete(vz);
	unlink(path);
	ldns_rr_list_deep_free(z);
	free(ds_text);
	ldns_rr_free(ds);
	ldns_rr_free(ka_rr);
	ldns_key_deep_free(ka);
}
END_TEST

/** test waker: counts its calls */
static void
held_wake(void *arg)
{
	(void)__atomic_add_fetch((int *)arg, 1, __ATOMIC_SEQ_CST);
}

/** test lookup start: records the apex; @return 0 */
static int
held_start(void *arg, const uint8_t *apex)
{
	uint8_t ex[256];
	size_t l = sizeof(ex);
	ck_assert_int_eq(dname_from_str("example.", ex, &l), 0);
	ck_assert(dname_equal(apex, ex));
	(*(int *)arg)++;
	return 0;
}

/** wait (bounded) until the zone's serial is not -1 or the list shows
 * it refused; @return the serial */
static int64_t
held_wait(struct auth_zones *az)
{
	char buf[512];
	int i;
	for(i = 0; i < 1000; i++) {
		int64_t s = auth_zones_serial(az, "example.");
		(void)auth_zones_list(az, buf, sizeof(buf));
		if(s >= 0 || strstr(buf, "zonemd-refused"))
			return s;
		usleep(10000);
	}
	return -1;
}

/* a zone below its trust anchor (the root's) is held: not used until
 * the validated DNSKEY of its apex comes back from a worker's lookup,
 * which the zones ask for through the waker; then its keys must be the
 * validated ones and sign the ZONEMD; insecure: the digest alone; bogus:
 * refused; failed: still held, looked up again at the SOA retry timer */
START_TEST(test_zonemd_held)
{
	ldns_key *ka = dz_key(), *kb = dz_key();
	ldns_rr *ka_rr = ldns_key2rr(ka), *kb_rr = ldns_key2rr(kb);
	const char *rootds = ". 3600 IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D"
		"7C65D08458E880409BBC683457104237C7F8EC8D";
	ldns_rr_list *z = dz_sign(ka, 1, 0), *zr = ldns_rr_list_clone(z);
	struct auth_zones *az;
	struct val_zonemd *vz;
	const uint8_t *key[1];
	uint16_t keylen[1];
	uint8_t qn[256], out[4096], dp[1] = { 0 };
	char path[64], buf[512];
	size_t ql = sizeof(qn), ol = 0;
	int wakes, starts, c, i;
	enum auth_answer r;
	ldns_pkt *p;
	ck_assert_int_eq(dname_from_str("example.", qn, &ql), 0);
	/* zr: the SOA retry set to 1 s (its signatures no longer matter:
	 * it is only used for a failed lookup) */
	i = rr_find(zr, LDNS_RR_TYPE_SOA, 0);
	ck_assert_int_ge(i, 0);
	ldns_rdf_deep_free(ldns_rr_set_rdf(ldns_rr_list_rr(zr, (size_t)i),
		ldns_native2rdf_int32(LDNS_RDF_TYPE_PERIOD, 1), 4));
	for(c = 0; c < 5; c++) {
		int res = c == 0 || c == 1 ? AUTH_KEYS_SECURE : c == 2 ?
			AUTH_KEYS_INSECURE : c == 3 ? AUTH_KEYS_BOGUS :
			AUTH_KEYS_FAILED;
		wakes = starts = 0;
		az = dz_zones(c == 4 ? zr : z, "", rootds, path, sizeof(path),
			&vz);
		/* held: not used, the iterator asks the servers */
		ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
		ck_assert_int_eq(auth_zones_list(az, buf, sizeof(buf)), 1);
		ck_assert_msg(strstr(buf, "zonemd-pending") != NULL, "%s", buf);
		ck_assert_int_eq(auth_zones_answer_upstream(az, dp, qn,
			LDNS_RR_TYPE_A, 1, 0, out, sizeof(out), &ol), AUTH_NOT);
		ck_assert_int_eq(auth_zones_wants_keys(az, qn), 1);
		/* the worker registers: woken at once; a second is not */
		ck_assert_int_eq(auth_zones_set_waker(az, held_wake, &wakes),
			1);
		ck_assert_int_eq(wakes, 1);
		ck_assert_int_eq(auth_zones_set_waker(az, held_wake, &c), 0);
		auth_zones_start_lookups(az, held_start, &starts);
		ck_assert_int_eq(starts, 1);
		/* one lookup per zone */
		auth_zones_start_lookups(az, held_start, &starts);
		ck_assert_int_eq(starts, 1);
		ck_assert_int_eq(auth_zones_start(az), 0);
		dz_keyset(c == 1 ? kb_rr : ka_rr, key, keylen);
		auth_zones_keys_answer(az, qn, res, key, keylen, 1);
		ck_assert_int_eq(auth_zones_wants_keys(az, qn), 0);
		if(c == 4) {
#ifdef HAVE_PTHREAD
			/* still held; after the retry (1 s) wanted again */
			for(i = 0; i < 1000 && __atomic_load_n(&wakes,
				__ATOMIC_SEQ_CST) < 2; i++)
				usleep(10000);
			ck_assert_int_eq(__atomic_load_n(&wakes,
				__ATOMIC_SEQ_CST), 2);
			ck_assert_int_eq(auth_zones_wants_keys(az, qn), 1);
			ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
			(void)auth_zones_list(az, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "zonemd-pending") != NULL,
				"%s", buf);
			auth_zones_start_lookups(az, held_start, &starts);
			ck_assert_int_eq(starts, 2);
#else
			/* no transfer thread, so no retry timer: the zone
			 * stays held until a reload */
			ck_assert_int_eq(auth_zones_serial(az, "example."), -1);
#endif
		} else if(c == 0 || c == 2) {
			ck_assert_int_eq(held_wait(az), 7);
			p = ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r);
			ck_assert_ptr_nonnull(p);
			ldns_pkt_free(p);
		} else {
			ck_assert_int_eq(held_wait(az), -1);
		}
		if(c == 0) {
			/* a new copy (zr) is held; the old one stays in use */
			FILE *f = fopen(path, "w");
			ck_assert_ptr_nonnull(f);
			ldns_rr_list_print(f, zr);
			fclose(f);
			ck_assert_int_eq(auth_zones_reload(az, "example.", buf,
				sizeof(buf)), 0);
			ck_assert_int_eq(auth_zones_wants_keys(az, qn), 1);
			ck_assert_int_eq(auth_zones_serial(az, "example."), 7);
			p = ask(az, "www.example.", LDNS_RR_TYPE_A, 0, 0, &r);
			ck_assert_ptr_nonnull(p);
			ldns_pkt_free(p);
			(void)auth_zones_list(az, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "\tserial\t") != NULL, "%s",
				buf);
		}
		if(c == 1 || c == 3) {
			ck_assert_int_eq(held_wait(az), -1);
			(void)auth_zones_list(az, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "zonemd-refused") != NULL,
				"%s", buf);
		}
		auth_zones_clear_waker(az, &wakes);
		auth_zones_delete(az);
		val_zonemd_delete(vz);
		unlink(path);
	}
	/* insecure with a tampered ZONEMD: the digest fails */
	i = rr_find(z, LDNS_RR_TYPE_ZONEMD, 0);
	ldns_rdf_data(ldns_rr_rdf(ldns_rr_list_rr(z, (size_t)i), 3))[0] ^= 1;
	az = dz_zones(z, "", rootds, path, sizeof(path), &vz);
	ck_assert_int_eq(auth_zones_start(az), 0);
	auth_zones_keys_answer(az, qn, AUTH_KEYS_INSECURE, NULL, NULL, 0);
	ck_assert_int_eq(held_wait(az), -1);
	(void)auth_zones_list(az, buf, sizeof(buf));
	ck_assert_msg(strstr(buf, "zonemd-refused") != NULL, "%s", buf);
	auth_zones_delete(az);
	val_zonemd_delete(vz);
	unlink(path);
	ldns_rr_list_deep_free(z);
	ldns_rr_list_deep_free(zr);
	ldns_rr_free(ka_rr);
	ldns_rr_free(kb_rr);
	ldns_key_deep_free(ka);
	ldns_key_deep_free(kb);
}
END_TEST

/* services/authzone_lookup.c: a finished query is handed to the held
 * zone that waits for its DNSKEY, as the answer's security says; a CD
 * query, another class or a query not asked of the servers (no
 * MESH_FLAG_NOAUTH) is not the zone's lookup and is left alone */
START_TEST(test_lookup_done)
{
	ldns_key *ka = dz_key();
	const char *rootds = ". 3600 IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D"
		"7C65D08458E880409BBC683457104237C7F8EC8D";
	ldns_rr_list *z = dz_sign(ka, 1, 0);
	static struct mesh_state s;
	struct mesh_answer ans;
	struct auth_zones *az;
	struct val_zonemd *vz;
	char path[64], buf[512];
	int c;
	for(c = 0; c < 3; c++) {
		az = dz_zones(z, "", rootds, path, sizeof(path), &vz);
		ck_assert_int_eq(auth_zones_start(az), 0);
		memset(&s, 0, sizeof(s));
		s.qname_len = sizeof(s.qname);
		ck_assert_int_eq(dname_from_str("example.", s.qname,
			&s.qname_len), 0);
		s.qtype = LDNS_RR_TYPE_DNSKEY;
		s.qclass = LDNS_RR_CLASS_CH;
		s.flags = MESH_FLAG_RD | MESH_FLAG_DO | MESH_FLAG_NOAUTH;
		memset(&ans, 0, sizeof(ans));
		ans.rcode = DNS_RCODE_NOERROR;
		ans.sec = MODULE_SEC_INSECURE;
		ck_assert_int_eq(auth_zones_wants_keys(az, s.qname), 1);
		auth_lookup_done(az, &s, &ans, 0);
		s.qclass = LDNS_RR_CLASS_IN;
		s.flags |= MESH_FLAG_CD;
		auth_lookup_done(az, &s, &ans, 0);
		s.flags &= ~(MESH_FLAG_CD | MESH_FLAG_NOAUTH);
		auth_lookup_done(az, &s, &ans, 0);
		auth_lookup_done(NULL, &s, &ans, 0);
		ck_assert_int_eq(auth_zones_wants_keys(az, s.qname), 1);
		s.flags |= MESH_FLAG_NOAUTH;
		if(c == 0) {
			/* proven insecure: the digest alone; used */
			auth_lookup_done(az, &s, &ans, 0);
			ck_assert_int_eq(auth_zones_wants_keys(az, s.qname),
				0);
			ck_assert_int_eq(held_wait(az), 7);
		} else {
			/* the validator's SERVFAIL, or an answer it found
			 * bogus (val-permissive-mode): refused */
			ans.sec = MODULE_SEC_BOGUS;
			auth_lookup_done(az, &s, c == 1 ? NULL : &ans,
				c == 1 ? DNS_EDE_DNSSEC_BOGUS : 0);
			ck_assert_int_eq(auth_zones_wants_keys(az, s.qname),
				0);
			ck_assert_int_eq(held_wait(az), -1);
			(void)auth_zones_list(az, buf, sizeof(buf));
			ck_assert_msg(strstr(buf, "zonemd-refused") != NULL,
				"%s", buf);
		}
		auth_zones_delete(az);
		val_zonemd_delete(vz);
		unlink(path);
	}
	ldns_rr_list_deep_free(z);
	ldns_key_deep_free(ka);
}
END_TEST

/* an answer larger than the client's UDP size: without the additional
 * section, else TC with the question only; over TCP all of it */
START_TEST(test_truncation)
{
	char path[64], text[4096], err[512];
	struct config_file *cfg = config_create();
	struct auth_zones *az;
	uint8_t *w, out[65535], qn[256];
	size_t len, ol = 0, ql = sizeof(qn);
	ldns_pkt *p = NULL;
	FILE *f;
	int ok = 0, fd, i;
	snprintf(path, sizeof(path), "/tmp/check_authzone.XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs("example. 3600 IN SOA ns.example. h.example. 1 1 1 1 1\n"
		"example. 3600 IN NS ns.example.\n", f);
	for(i = 0; i < 40; i++)
		fprintf(f, "big.example. 3600 IN TXT \"record %d with some "
			"text to make it long enough\"\n", i);
	fclose(f);
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n "
		"zonefile: \"%s\"\n", path);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	az = auth_zones_create(cfg, &ok, err, sizeof(err));
	ck_assert_msg(ok && az, "%s", err);
	ck_assert_int_eq(dname_from_str("big.example.", qn, &ql), 0);
	len = make_query("big.example.", LDNS_RR_TYPE_TXT, 7, &w);
	/* UDP without EDNS: 512 bytes, TC and no records */
	ck_assert_int_eq(auth_zones_answer_downstream(az, w, len, 12, qn,
		LDNS_RR_TYPE_TXT, 1, 7, 0, 0, 0, 0, 0, out, sizeof(out), &ol),
		AUTH_ANSWERED);
	ck_assert_uint_le(ol, 512);
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	ck_assert(ldns_pkt_tc(p));
	ck_assert_uint_eq(ldns_pkt_ancount(p), 0);
	ck_assert_uint_eq(ldns_pkt_qdcount(p), 1);
	ldns_pkt_free(p);
	/* TCP: every record, names compressed */
	ck_assert_int_eq(auth_zones_answer_downstream(az, w, len, 12, qn,
		LDNS_RR_TYPE_TXT, 1, 7, 0, 0, 0, 0, 1, out, sizeof(out), &ol),
		AUTH_ANSWERED);
	p = NULL;
	ck_assert(ldns_wire2pkt(&p, out, ol) == LDNS_STATUS_OK);
	ck_assert(!ldns_pkt_tc(p));
	ck_assert(ldns_pkt_aa(p));
	ck_assert_uint_eq(ldns_pkt_ancount(p), 40);
	ck_assert_uint_eq(ldns_pkt_id(p), 7);
	ldns_pkt_free(p);
	free(w);
	auth_zones_delete(az);
	config_delete(cfg);
	unlink(path);
}
END_TEST

/* ---------------- url: ---------------- */

/* ---------------- the transport seam: a fake primary and clock ---------------- */

/** the most messages a fake reply has */
#define FAKE_MAX_MSGS 4

/** a fake transport: a scripted primary and a settable clock */
struct fake_net {
	/** the time */
	time_t now;
	/** exchanges opened */
	int opens;
	/** the type and SOA serial (IXFR) of the last query */
	ldns_rr_type qtype;
	/** the serial in the last IXFR query's authority section */
	uint32_t qserial;
	/** the zone's serial at the primary (2: the IXFR 1 -> 2 is served) */
	uint32_t serial;
	/** the reply messages queued (wire, malloced) and their lengths */
	uint8_t *msg[FAKE_MAX_MSGS];
	/** their lengths */
	size_t len[FAKE_MAX_MSGS];
	/** how many are queued, and the next to give */
	int nmsg, next;
	/** messages given in all */
	int given;
};

/** an RR from text */
static ldns_rr *
fake_rr(const char *text)
{
	ldns_rr *rr = NULL;
	ck_assert(ldns_rr_new_frm_str(&rr, text, 0, NULL, NULL) ==
		LDNS_STATUS_OK);
	return rr;
}

/** the zone's SOA at a serial (refresh 100, retry 50) */
static ldns_rr *
fake_soa(uint32_t serial)
{
	char s[128];
	snprintf(s, sizeof(s), "example. 3600 IN SOA ns.example. host.example."
		" %u 100 50 1000 60", (unsigned)serial);
	return fake_rr(s);
}

/** queue one reply message with these answer RRs (NULL-ended, owned) */
static void
fake_reply(struct fake_net *f, const ldns_pkt *q, ldns_rr *rr, ...)
{
	ldns_pkt *p = ldns_pkt_new();
	va_list ap;
	ck_assert(p && f->nmsg < FAKE_MAX_MSGS);
	ldns_pkt_set_id(p, ldns_pkt_id(q));
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_aa(p, 1);
	ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, ldns_rr_clone(
		ldns_rr_list_rr(ldns_pkt_question(q), 0)));
	va_start(ap, rr);
	for(; rr; rr = va_arg(ap, ldns_rr *))
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	va_end(ap);
	ck_assert(ldns_pkt2wire(&f->msg[f->nmsg], p, &f->len[f->nmsg]) ==
		LDNS_STATUS_OK);
	f->nmsg++;
	ldns_pkt_free(p);
}

/** the fake's open: no socket */
static void *
fake_open(void *ctx, const struct netaddr *addr, volatile int *stop,
	char *why, size_t whylen)
{
	struct fake_net *f = ctx;
	(void)addr; (void)stop; (void)why; (void)whylen;
	f->opens++;
	f->nmsg = f->next = 0;
	return f;
}

/** the fake's send: the primary's answer is queued at once */
static int
fake_send(void *conn, const uint8_t *msg, size_t len)
{
	struct fake_net *f = conn;
	ldns_pkt *q = NULL;
	ck_assert(ldns_wire2pkt(&q, msg, len) == LDNS_STATUS_OK);
	f->qtype = ldns_rr_get_type(ldns_rr_list_rr(ldns_pkt_question(q), 0));
	f->qserial = 0;
	if(f->qtype == LDNS_RR_TYPE_IXFR) {
		ck_assert_int_eq(ldns_pkt_nscount(q), 1);
		f->qserial = ldns_rdf2native_int32(ldns_rr_rdf(
			ldns_rr_list_rr(ldns_pkt_authority(q), 0), 2));
	}
	if(f->qtype == LDNS_RR_TYPE_AXFR) {
		/* the whole zone in two messages */
		fake_reply(f, q, fake_soa(f->serial),
			fake_rr("www.example. 3600 IN A 192.0.2.1"), NULL);
		fake_reply(f, q, fake_rr("ns.example. 3600 IN A 192.0.2.53"),
			fake_soa(f->serial), NULL);
	} else if(f->qserial == f->serial) {
		/* current: the SOA alone */
		fake_reply(f, q, fake_soa(f->serial), NULL);
	} else {
		/* 1 -> 2: www changes address, in two messages */
		ck_assert_int_eq(f->qserial, 1);
		ck_assert_int_eq(f->serial, 2);
		fake_reply(f, q, fake_soa(2), fake_soa(1),
			fake_rr("www.example. 3600 IN A 192.0.2.1"), NULL);
		fake_reply(f, q, fake_soa(2),
			fake_rr("www.example. 3600 IN A 192.0.2.2"), fake_soa(2),
			NULL);
	}
	ldns_pkt_free(q);
	return 0;
}

/** the fake's recv: the next queued message */
static int
fake_recv(void *conn, uint8_t *buf, size_t max)
{
	struct fake_net *f = conn;
	size_t l;
	if(f->next >= f->nmsg)
		return -1;
	l = f->len[f->next];
	ck_assert(l <= max);
	memcpy(buf, f->msg[f->next], l);
	f->next++;
	f->given++;
	return (int)l;
}

/** the fake's close */
static void
fake_close(void *conn)
{
	struct fake_net *f = conn;
	int i;
	for(i = 0; i < f->nmsg; i++)
		free(f->msg[i]);
	f->nmsg = f->next = 0;
}

/** the fake's clock */
static time_t
fake_now(void *ctx)
{
	return ((struct fake_net *)ctx)->now;
}

/** what the callback was given */
struct fake_got {
	/** calls */
	int calls;
	/** the last result's kind and serial */
	enum xfr_kind kind;
	/** its serial */
	uint32_t serial;
	/** XFR_FULL: its RR count; XFR_INCR: its diff count */
	size_t count;
};

/** the task's callback: record, take the zone */
static int
fake_cb(void *arg, struct xfr_result *res)
{
	struct fake_got *g = arg;
	g->calls++;
	g->kind = res->kind;
	g->serial = res->serial;
	g->count = res->kind == XFR_FULL ? ldns_rr_list_rr_count(res->full) :
		res->num_diffs;
	return 0;
}

/** the transfers run through a transport given at creation, driven from
 * the caller's loop on the transport's clock: AXFR at once, nothing before
 * the SOA refresh, an up-to-date IXFR at it, a NOTIFY starts an IXFR that
 * brings the differences; multi-message replies over the fake exchange */
START_TEST(test_transport_seam)
{
	struct fake_net f;
	struct fake_got g;
	struct xfr_transport tp = { fake_open, fake_send, fake_recv,
		fake_close, fake_now, &f };
	struct xfr_primary pr;
	struct xfr_service *xs;
	struct xfr_task *t;
	char st[600];
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	memset(&pr, 0, sizeof(pr));
	f.now = 1000000;
	f.serial = 1;
	ck_assert_int_eq(netaddr_parse("192.0.2.53", 53, &pr.addr, NULL), 0);
	ck_assert_ptr_nonnull(xs = xfr_service_create_transport(&tp));
	ck_assert_ptr_nonnull(t = xfr_task_create(xs, "example.", &pr, 1,
		fake_cb, &g));
	/* no data: AXFR at once, two messages */
	ck_assert_int_eq(xfr_service_run_due(xs), 1);
	ck_assert_int_eq(f.opens, 1);
	ck_assert_int_eq(f.qtype, LDNS_RR_TYPE_AXFR);
	ck_assert_int_eq(f.given, 2);
	ck_assert_int_eq(g.calls, 1);
	ck_assert_int_eq(g.kind, XFR_FULL);
	ck_assert_int_eq(g.serial, 1);
	ck_assert_uint_eq(g.count, 3);
	ck_assert_uint_eq(xfr_task_count(t), 1);
	/* the fake clock alone decides when the SOA refresh (100 s) is due */
	ck_assert_int_eq(xfr_service_run_due(xs), 0);
	f.now += 99;
	ck_assert_int_eq(xfr_service_run_due(xs), 0);
	ck_assert_int_eq(f.opens, 1);
	f.now += 1;
	ck_assert_int_eq(xfr_service_run_due(xs), 1);
	ck_assert_int_eq(f.opens, 2);
	ck_assert_int_eq(f.qtype, LDNS_RR_TYPE_IXFR);
	ck_assert_int_eq(f.qserial, 1);
	ck_assert_int_eq(g.calls, 1); /* up to date */
	ck_assert_ptr_nonnull(strstr(xfr_task_status(t, st, sizeof(st)),
		"next check in 100s"));
	/* a NOTIFY of serial 2: an IXFR with our serial, the differences */
	f.serial = 2;
	f.now += 10;
	xfr_task_notify(t, 2, 0);
	ck_assert_int_eq(xfr_service_run_due(xs), 1);
	ck_assert_int_eq(f.opens, 3);
	ck_assert_int_eq(f.qtype, LDNS_RR_TYPE_IXFR);
	ck_assert_int_eq(f.qserial, 1);
	ck_assert_int_eq(g.calls, 2);
	ck_assert_int_eq(g.kind, XFR_INCR);
	ck_assert_int_eq(g.serial, 2);
	ck_assert_uint_eq(g.count, 1);
	ck_assert_ptr_nonnull(strstr(xfr_task_status(t, st, sizeof(st)),
		"serial 2"));
	ck_assert_int_eq(xfr_service_run_due(xs), 0);
	xfr_service_delete(xs);
}
END_TEST

/** the callback of an owner that cannot apply differences */
static int
fake_cb_no_incr(void *arg, struct xfr_result *res)
{
	(void)fake_cb(arg, res);
	return res->kind == XFR_INCR ? -1 : 0;
}

/** differences the owner refuses (they do not apply to its zone): the
 * whole zone from the same primary at once, in the same run (was: the
 * retry timer, with the zone left old meanwhile) */
START_TEST(test_transport_ixfr_refused)
{
	struct fake_net f;
	struct fake_got g;
	struct xfr_transport tp = { fake_open, fake_send, fake_recv,
		fake_close, fake_now, &f };
	struct xfr_primary pr;
	struct xfr_service *xs;
	struct xfr_task *t;
	memset(&f, 0, sizeof(f));
	memset(&g, 0, sizeof(g));
	memset(&pr, 0, sizeof(pr));
	f.now = 1000000;
	f.serial = 2;
	ck_assert_int_eq(netaddr_parse("192.0.2.53", 53, &pr.addr, NULL), 0);
	ck_assert_ptr_nonnull(xs = xfr_service_create_transport(&tp));
	ck_assert_ptr_nonnull(t = xfr_task_create(xs, "example.", &pr, 1,
		fake_cb_no_incr, &g));
	xfr_task_set_serial(t, 1, 100, 50, 1000, 0);
	xfr_task_notify(t, 2, 0);
	ck_assert_int_eq(xfr_service_run_due(xs), 1);
	ck_assert_int_eq(f.opens, 2);
	ck_assert_int_eq(f.qtype, LDNS_RR_TYPE_AXFR);
	ck_assert_int_eq(g.calls, 2);
	ck_assert_int_eq(g.kind, XFR_FULL);
	ck_assert_int_eq(g.serial, 2);
	ck_assert_uint_eq(xfr_task_count(t), 1);
	xfr_service_delete(xs);
}
END_TEST

#ifdef HAVE_PTHREAD
/** the request a one-shot HTTP server read (ua_server) */
static char ua_req[2048];

/** accept one connection on *arg (a listening fd), keep its request,
 * answer 200 "ok" */
static void *
ua_server(void *arg)
{
	int lfd = *(int *)arg, fd;
	size_t n = 0;
	const char *rep = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
		"Connection: close\r\n\r\nok";
	ua_req[0] = 0;
	fd = accept(lfd, NULL, NULL);
	if(fd == -1)
		return NULL;
	while(n < sizeof(ua_req) - 1 && !strstr(ua_req, "\r\n\r\n")) {
		ssize_t r = read(fd, ua_req + n, sizeof(ua_req) - 1 - n);
		if(r <= 0)
			break;
		n += (size_t)r;
		ua_req[n] = 0;
	}
	if(write(fd, rep, strlen(rep)) < 0) {
		/* the fetch then fails, and the test says so */
	}
	close(fd);
	return NULL;
}

/** fetch http://127.0.0.1:port/ua once and return the request sent */
static const char *
ua_fetch(void)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	struct config_url u;
	pthread_t t;
	uint8_t *body = NULL;
	size_t blen = 0;
	char why[256];
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(lfd, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(listen(lfd, 1), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	memset(&u, 0, sizeof(u));
	snprintf(u.host, sizeof(u.host), "127.0.0.1");
	u.port = ntohs(sa.sin_port);
	snprintf(u.path, sizeof(u.path), "/ua");
	ck_assert_int_eq(pthread_create(&t, NULL, ua_server, &lfd), 0);
	why[0] = 0;
	ck_assert_msg(http_fetch_get(&u, NULL, NULL, 1000, &body, &blen, why,
		sizeof(why)) == 0, "fetch: %s", why);
	ck_assert_uint_eq(blen, 2);
	free(body);
	pthread_join(t, NULL);
	close(lfd);
	return ua_req;
}

/* http-user-agent and hide-http-user-agent: the header of url: downloads */
START_TEST(test_http_user_agent)
{
	const char *r;
	http_fetch_set_user_agent("", 0);
	r = ua_fetch();
	ck_assert_ptr_nonnull(strstr(r, "GET /ua HTTP/1.1\r\n"));
	ck_assert_ptr_nonnull(strstr(r, "\r\nUser-Agent: petrel/"));
	http_fetch_set_user_agent("zone-fetcher 1.0", 0);
	r = ua_fetch();
	ck_assert_ptr_nonnull(strstr(r, "\r\nUser-Agent: zone-fetcher 1.0\r\n"));
	http_fetch_set_user_agent("zone-fetcher 1.0", 1);
	r = ua_fetch();
	ck_assert_ptr_null(strstr(r, "User-Agent"));
	ck_assert_ptr_nonnull(strstr(r, "\r\nAccept: */*\r\n"));
	http_fetch_set_user_agent(NULL, 0);
}
END_TEST
#endif /* HAVE_PTHREAD */

START_TEST(test_url_parse)
{
	struct config_url u;
	const char *why = NULL;
	char text[512], err[512];
	struct config_file *cfg;
	ck_assert_int_eq(config_url_parse("https://www.internic.net/domain/"
		"root.zone", &u, &why), 0);
	ck_assert_int_eq(u.tls, 1);
	ck_assert_str_eq(u.host, "www.internic.net");
	ck_assert_int_eq(u.port, 443);
	ck_assert_str_eq(u.path, "/domain/root.zone");
	ck_assert_int_eq(config_url_parse("http://127.0.0.1:8080", &u, &why),
		0);
	ck_assert_int_eq(u.tls, 0);
	ck_assert_int_eq(u.port, 8080);
	ck_assert_str_eq(u.path, "/");
	ck_assert_int_eq(config_url_parse("HTTP://[2001:db8::1]:81/z?a=b#f",
		&u, &why), 0);
	ck_assert_str_eq(u.host, "2001:db8::1");
	ck_assert_int_eq(u.port, 81);
	ck_assert_str_eq(u.path, "/z?a=b");
	ck_assert_int_eq(config_url_parse("ftp://h/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http:///z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://h:0/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://h:65536/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://h:8x/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://u:p@h/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://[::1/z", &u, &why), -1);
	ck_assert_int_eq(config_url_parse("http://h/a b", &u, &why), -1);
	/* in a config: a load error with the file and line */
	cfg = config_create();
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n"
		" url: \"gopher://example.net/z\"\n");
	ck_assert_int_ne(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_msg(strstr(err, "t.conf:3") && strstr(err,
		"expected http://"), "%s", err);
	config_delete(cfg);
	/* a zone with a url only is complete */
	cfg = config_create();
	snprintf(text, sizeof(text), "auth-zone:\n name: example.\n"
		" url: \"http://192.0.2.1/example.zone\"\n");
	ck_assert_msg(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)) == 0, "%s", err);
	ck_assert_ptr_nonnull(cfg->auths->urls);
	ck_assert_int_eq(cfg->auths->urls->url.port, 80);
	config_delete(cfg);
}
END_TEST

static Suite *
authzone_suite(void)
{
	Suite *s = suite_create("authzone");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_tsig_sign);
	tcase_add_test(tc, test_tsig_verify);
	tcase_add_test(tc, test_tsig_unsigned);
	tcase_add_test(tc, test_ixfr);
	tcase_add_test(tc, test_zonemd);
	tcase_add_test(tc, test_answers);
	tcase_add_test(tc, test_answer_order);
	tcase_add_test(tc, test_upstream);
	tcase_add_test(tc, test_notify);
	tcase_add_test(tc, test_nodata);
	tcase_add_test(tc, test_no_downstream_no_upstream);
	tcase_add_test(tc, test_host_names_config);
	tcase_add_test(tc, test_zonefile_errors);
	tcase_add_test(tc, test_rpz_downstream);
	tcase_add_test(tc, test_zonemd_reject_at_load);
	tcase_add_test(tc, test_zonemd_dnssec);
	tcase_add_test(tc, test_zonemd_dnssec_zones);
	tcase_add_test(tc, test_zonemd_held);
	tcase_add_test(tc, test_lookup_done);
	tcase_add_test(tc, test_url_parse);
#ifdef HAVE_PTHREAD
	tcase_add_test(tc, test_http_user_agent);
#endif
	tcase_add_test(tc, test_truncation);
	tcase_add_test(tc, test_transport_seam);
	tcase_add_test(tc, test_transport_ixfr_refused);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(authzone_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
