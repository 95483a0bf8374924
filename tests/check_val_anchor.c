/*
 * tests/check_val_anchor.c - validator/val_anchor and val_autotrust: the
 * trust anchor store and its file formats (trust-anchor, zone file, BIND
 * trusted-keys, Unbound's autotrust format with atomic writes,
 * domain-insecure), and the RFC 5011 state machine driven by a fake
 * clock through add, hold-down, revoke, remove and missing sequences,
 * with the state written to the file and read back at every step (a
 * restart at any point continues where it stopped).
 */
#include "config.h"
#include <check.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/val_testutil.h"
#include "validator/val_anchor.h"
#include "validator/val_autotrust.h"
#include "validator/val_crypto.h"
#include "dns/dns.h"
#include "dns/name.h"

/** a scratch directory per test */
static char dir[256];

static void
setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/petrel-anchor-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void
teardown(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[600];
	while(d && (e = readdir(d)) != NULL) {
		if(e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		unlink(p);
	}
	if(d)
		closedir(d);
	rmdir(dir);
}

/** write a file in the scratch directory; @return its path (static) */
static const char *
put_file(const char *name, const char *text)
{
	static char p[4][600];
	static int i;
	FILE *f;
	i = (i + 1) % 4;
	snprintf(p[i], sizeof(p[i]), "%s/%s", dir, name);
	f = fopen(p[i], "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return p[i];
}

/** number of files in the scratch directory */
static int
count_files(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;
	while(d && (e = readdir(d)) != NULL)
		if(e->d_name[0] != '.')
			n++;
	if(d)
		closedir(d);
	return n;
}

/** the root KSK-2017 DNSKEY as published by IANA */
#define KSK2017 ". 172800 IN DNSKEY 257 3 8 " \
	"AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3+/4RgWOq" \
	"7HrxRixHlFlExOLAJr5emLvN7SWXgnLh4+B5xQlNVz8Og8kvArMtNROxVQuCaSnI" \
	"DdD5LKyWbRd2n9WGe2R8PzgCmr3EgVLrjyBxWezF0jLHwVN8efS3rCj/EWgvIWgb" \
	"9tarpVUDK/b58Da+sqqls3eNbuv7pr+eoZG+SrDK6nWeL3c6H5Apxz7LjVc1uTId" \
	"sIXxuOLYA4/ilBmSVIzuDWfdRUfhHdY6+cn8HFRm+2hM8AnXGXws9555KrUB5qih" \
	"ylGa8subX2Nn6UwNR1AkUTV74bU="
/** the root KSK-2024 DNSKEY as published by IANA */
#define KSK2024 ". 172800 IN DNSKEY 257 3 8 " \
	"AwEAAa96jeuknZlaeSrvyAJj6ZHv28hhOKkx3rLGXVaC6rXTsDc449/cidltpkyG" \
	"wCJNnOAlFNKF2jBosZBU5eeHspaQWOmOElZsjICMQMC3aeHbGiShvZsx4wMYSjH8" \
	"e7Vrhbu6irwCzVBApESjbUdpWWmEnhathWu1jo+siFUiRAAxm9qyJNg/wOZqqzL/" \
	"dL/q8PkcRU5oUKEpUge71M3ej2/7CPqpdVwuMoTvoB+ZOT4YeGyxMvHmbrxlFzGO" \
	"HOijtzN+u1TQNatX2XBuzZNQ1K+s2CXkPIZo7s6JgZyvaBevYtxPvYLw4z9mR7K2" \
	"vaF18UYH9Z9GNUUeayffKC73PYc="
/** its DS, digest type 2 (key tag 20326) */
#define DS2017 ". IN DS 20326 8 2 " \
	"E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D"

START_TEST(test_trust_anchor_str)
{
	struct val_anchors *a = val_anchors_create();
	const struct val_anchor *an;
	struct val_rr rr[4];
	uint8_t nm[256];
	char err[512];
	ck_assert_int_eq(val_anchors_add_str(a, DS2017, err, sizeof(err)), 0);
	ck_assert_int_eq(val_anchors_add_str(a, KSK2017, err, sizeof(err)), 0);
	ck_assert_int_eq(val_anchors_add_str(a, "example.com. DS 1 8 2 "
		"0011223344556677889900112233445566778899001122334455667788990011",
		err, sizeof(err)), 0);
	ck_assert_uint_eq(a->count, 2);
	an = val_anchors_lookup(a, vt_name("www.example.com.", nm),
		DNS_CLASS_IN);
	ck_assert_ptr_nonnull(an);
	ck_assert(dname_equal(an->name, vt_name("example.com.", nm)));
	an = val_anchors_lookup(a, vt_name("www.example.org.", nm),
		DNS_CLASS_IN);
	ck_assert_ptr_nonnull(an);
	ck_assert_int_eq(an->namelabs, 0);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DS, rr, 4), 1);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DNSKEY, rr, 4), 1);
	/* the DS matches the key */
	{
		struct val_rr ds;
		ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DS, &ds, 1), 1);
		ck_assert_uint_eq(val_keytag(rr[0].buf, rr[0].len), 20326);
		ck_assert_int_eq(val_ds_match(an->name, ds.buf, ds.len,
			rr[0].buf, rr[0].len), VAL_CRYPTO_OK);
	}
	ck_assert_ptr_null(val_anchors_lookup(a, nm, DNS_CLASS_CH));
	/* errors */
	ck_assert_int_eq(val_anchors_add_str(a, ". IN A 192.0.2.1", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "only DS and DNSKEY"));
	ck_assert_int_eq(val_anchors_add_str(a, ". IN DS 20326 8 2 xyz", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "trust-anchor"));
	ck_assert_int_eq(val_anchors_add_str(a, "x. DNSKEY 0 3 8 AwEAAQ==",
		err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "zone key flag"));
	val_anchors_delete(a);
}
END_TEST

START_TEST(test_builtin_root)
{
	/* the built-in DS records (petrel-anchor's) are the digests of
	 * the published root KSKs, and each matches exactly one */
	static const char *ksk[2] = { KSK2017, KSK2024 };
	static const uint16_t tags[2] = { 20326, 38696 };
	struct val_anchors *a = val_anchors_create();
	struct val_rr ds[4];
	size_t n, i, j;
	const char *const *b = val_anchor_builtin_root(&n);
	char err[512];
	ck_assert_uint_eq(n, 2);
	for(i = 0; i < n; i++)
		ck_assert_int_eq(val_anchors_add_str(a, b[i], err,
			sizeof(err)), 0);
	ck_assert_uint_eq(a->count, 1);
	ck_assert_uint_eq(val_anchor_keys(a->list, DNS_TYPE_DS, ds, 4), 2);
	for(i = 0; i < 2; i++) {
		struct val_anchors *k = val_anchors_create();
		struct val_rr key;
		size_t match = 0;
		ck_assert_int_eq(val_anchors_add_str(k, ksk[i], err,
			sizeof(err)), 0);
		ck_assert_uint_eq(val_anchor_keys(k->list, DNS_TYPE_DNSKEY,
			&key, 1), 1);
		ck_assert_uint_eq(val_keytag(key.buf, key.len), tags[i]);
		for(j = 0; j < 2; j++)
			if(val_ds_match(k->list->name, ds[j].buf, ds[j].len,
				key.buf, key.len) == VAL_CRYPTO_OK)
				match++;
		ck_assert_uint_eq(match, 1);
		val_anchors_delete(k);
	}
	val_anchors_delete(a);
}
END_TEST

START_TEST(test_zonefile)
{
	struct val_anchors *a = val_anchors_create();
	const struct val_anchor *an;
	struct val_rr rr[4];
	uint8_t nm[256];
	char err[512];
	const char *p = put_file("zone.key",
		"; a zone file with an anchor in it\n"
		"$ORIGIN example.net.\n"
		"$TTL 300\n"
		"@ IN SOA ns host 1 2 3 4 5\n"
		"@ IN DNSKEY 257 3 8 (\n"
		"	AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1vkIbzxeF3\n"
		"	+/4RgWOq ) ; a comment\n"
		"sub IN DS 1 8 2 00112233445566778899001122334455667788990011"
		"22334455667788990011\n");
	ck_assert_int_eq(val_anchors_add_zonefile(a, p, err, sizeof(err)), 0);
	ck_assert_uint_eq(a->count, 2);
	an = val_anchors_lookup(a, vt_name("a.example.net.", nm),
		DNS_CLASS_IN);
	ck_assert_ptr_nonnull(an);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DNSKEY, rr, 4), 1);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DS, rr, 4), 0);
	an = val_anchors_lookup(a, vt_name("x.sub.example.net.", nm),
		DNS_CLASS_IN);
	ck_assert(dname_equal(an->name, vt_name("sub.example.net.", nm)));
	/* an error names the file and the line */
	p = put_file("bad.key", "$ORIGIN example.net.\n\n"
		"@ IN DS 1 8 2 nothex\n");
	ck_assert_int_eq(val_anchors_add_zonefile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad.key:3:"));
	p = put_file("empty.key", "; nothing\n@ IN A 192.0.2.1\n");
	ck_assert_int_eq(val_anchors_add_zonefile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no DS or DNSKEY"));
	ck_assert_int_eq(val_anchors_add_zonefile(a, "/nonexistent/x", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "cannot open"));
	val_anchors_delete(a);
}
END_TEST

START_TEST(test_bindfile)
{
	struct val_anchors *a = val_anchors_create();
	const struct val_anchor *an;
	struct val_rr rr[4];
	uint8_t nm[256];
	char err[512];
	const char *p = put_file("named.keys",
		"# BIND style\n"
		"options { directory \"/var/named\"; };\n"
		"trusted-keys {\n"
		"  // the root\n"
		"  \".\" 257 3 8 \"AwEAAaz/tAm8yTn4Mfeh5eyI96WSVexTBAvkMgJzkKTOiW1v\"\n"
		"      \"kIbzxeF3+/4RgWOq\";\n"
		"  /* a second key,\n  over lines */\n"
		"  example.org 256 3 13 \"hMj9YTW2aDKf586M46QeDYsIlsLvpODv/Lyoincx"
		"gWYi/fbxGL7FvUHwXHIR+x/oHFeWaTjpRWWzYjvNRkanJA==\";\n"
		"};\n"
		"managed-keys {\n"
		"  example.com. initial-ds 20326 8 2 \"E06D44B80B8F1D39A95C0B0D"
		"7C65D08458E880409BBC683457104237C7F8EC8D\";\n"
		"  example.com. static-key 257 3 15 "
		"\"l02Woi0iS8Aa25FQkUd9RMzZHJpBoRQwAQEX1SxZJA4=\";\n"
		"};\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), 0);
	ck_assert_uint_eq(a->count, 3);
	an = val_anchors_lookup(a, vt_name("x.example.com.", nm),
		DNS_CLASS_IN);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DS, rr, 4), 1);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DNSKEY, rr, 4), 1);
	ck_assert_uint_eq(rr[0].buf[3], 15);
	an = val_anchors_lookup(a, vt_name("x.example.org.", nm),
		DNS_CLASS_IN);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DNSKEY, rr, 4), 1);
	ck_assert_uint_eq(rr[0].len, 4 + 64);
	/* errors name the line */
	p = put_file("bad.keys", "trusted-keys {\n"
		"  \".\" 257 3 8 \"AwEAAQ==\";\n"
		"  \"x.\" 257 3;\n};\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad.keys:3:"));
	p = put_file("bad2.keys", "managed-keys {\n"
		"  x. weird-key 257 3 8 \"AwEAAQ==\";\n};\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad2.keys:2: unknown key type"));
	p = put_file("bad3.keys", "trusted-keys {\n \"x.\" 257 3 8 \"AQ==\";\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "expected '};'"));
	p = put_file("bad4.keys", "\n/* never closed\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad4.keys:2: unterminated"));
	p = put_file("none.keys", "options { };\n");
	ck_assert_int_eq(val_anchors_add_bindfile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no trusted-keys entry"));
	val_anchors_delete(a);
}
END_TEST

START_TEST(test_insecure_and_conflicts)
{
	struct val_anchors *a = val_anchors_create();
	const struct val_anchor *an;
	uint8_t nm[256];
	char err[512];
	const char *p;
	ck_assert_int_eq(val_anchors_add_str(a, DS2017, err, sizeof(err)), 0);
	ck_assert_int_eq(val_anchors_add_insecure(a, "corp.example.", err,
		sizeof(err)), 0);
	ck_assert_int_eq(val_anchors_add_insecure(a, "corp.example.", err,
		sizeof(err)), 0);
	an = val_anchors_lookup(a, vt_name("a.b.corp.example.", nm),
		DNS_CLASS_IN);
	ck_assert(an->insecure);
	an = val_anchors_lookup(a, vt_name("b.example.", nm), DNS_CLASS_IN);
	ck_assert(!an->insecure);
	ck_assert_int_eq(val_anchors_add_insecure(a, "bad..name", err,
		sizeof(err)), -1);
	/* a static anchor below an insecure one cannot be added to it */
	ck_assert_int_eq(val_anchors_add_str(a, "corp.example. DS 1 8 2 "
		"0011223344556677889900112233445566778899001122334455667788990011",
		err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "domain-insecure"));
	/* a name both static and automatic */
	p = put_file("root.key", DS2017 "\n");
	ck_assert_int_eq(val_anchors_add_autofile(a, p, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "already configured"));
	/* domain-insecure over a configured anchor removes its keys */
	ck_assert_int_eq(val_anchors_add_insecure(a, ".", err, sizeof(err)), 0);
	an = val_anchors_lookup(a, vt_name("b.example.", nm), DNS_CLASS_IN);
	ck_assert(an->insecure);
	ck_assert_uint_eq(val_anchor_keys(an, DNS_TYPE_DS, NULL, 0), 0);
	val_anchors_delete(a);
}
END_TEST

START_TEST(test_autofile_roundtrip)
{
	struct val_anchors *a = val_anchors_create();
	struct val_autr_point **pts = NULL, *tp;
	struct val_autr_key *k;
	size_t n = 0;
	char err[512];
	const char *p = put_file("auto.key",
		"; autotrust trust anchor file\n"
		";;id: . 1\n"
		";;last_queried: 1700000000 ;;Tue Nov 14 22:13:20 2023\n"
		";;last_success: 1700000001 ;;Tue Nov 14 22:13:21 2023\n"
		";;next_probe_time: 1700040000 ;;Wed Nov 15 09:20:00 2023\n"
		";;query_failed: 2\n"
		";;query_interval: 43200\n"
		";;retry_time: 8640\n"
		KSK2017 " ;{id = 20326 (ksk), size = 2048b} ;;state=2 "
		"[  VALID  ] ;;count=0 ;;lastchange=1690000000 ;;Sat Jul 22\n"
		". 172800 IN DNSKEY 257 3 8 AwEAAQ== ;;state=1 [ ADDPEND ] "
		";;count=3 ;;lastchange=1699000000 ;;x\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	tp = pts[0];
	ck_assert_uint_eq(tp->last_queried, 1700000000);
	ck_assert_uint_eq(tp->last_success, 1700000001);
	ck_assert_uint_eq(tp->next_probe_time, 1700040000);
	ck_assert_uint_eq(tp->query_failed, 2);
	ck_assert_uint_eq(tp->query_interval, 43200);
	ck_assert_uint_eq(tp->retry_time, 8640);
	/* the keys are listed in reverse (as Unbound reads a file) */
	k = tp->keys;
	ck_assert_int_eq(k->state, VAL_AUTR_ADDPEND);
	ck_assert_uint_eq(k->pending_count, 3);
	ck_assert_uint_eq(k->last_change, 1699000000);
	k = k->next;
	ck_assert_int_eq(k->state, VAL_AUTR_VALID);
	ck_assert_uint_eq(k->last_change, 1690000000);
	ck_assert_uint_eq(val_keytag(k->rdata, k->len), 20326);
	ck_assert_ptr_null(k->next);
	/* write and read back: the same point, no temporary file left */
	ck_assert_int_eq(val_autr_write_file(tp, p, err, sizeof(err)), 0);
	ck_assert_int_eq(count_files(), 1);
	{
		struct val_autr_point **p2 = NULL;
		size_t n2 = 0;
		struct val_autr_key *a1, *a2;
		ck_assert_int_eq(val_autr_read_file(p, &p2, &n2, err,
			sizeof(err)), 0);
		ck_assert_uint_eq(n2, 1);
		ck_assert_uint_eq(p2[0]->query_failed, 2);
		ck_assert_uint_eq(p2[0]->next_probe_time, 1700040000);
		/* read back: in reverse again */
		ck_assert_ptr_nonnull(p2[0]->keys->next);
		ck_assert_ptr_null(p2[0]->keys->next->next);
		a1 = p2[0]->keys->next;
		p2[0]->keys->next->next = p2[0]->keys;
		p2[0]->keys->next = NULL;
		p2[0]->keys = a1;
		for(a1 = tp->keys, a2 = p2[0]->keys; a1 && a2;
			a1 = a1->next, a2 = a2->next) {
			ck_assert_int_eq(a1->state, a2->state);
			ck_assert_uint_eq(a1->pending_count, a2->pending_count);
			ck_assert_uint_eq(a1->last_change, a2->last_change);
			ck_assert_uint_eq(a1->len, a2->len);
			ck_assert(memcmp(a1->rdata, a2->rdata, a1->len) == 0);
		}
		ck_assert_ptr_null(a1);
		ck_assert_ptr_null(a2);
		val_autr_free(p2[0]);
		free(p2);
	}
	/* writing where no file can be made fails cleanly */
	ck_assert_int_eq(val_autr_write_file(tp, "/nonexistent/dir/x", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "temporary file"));
	val_autr_free(tp);
	free(pts);
	/* a DS-only file (as petrel-anchor writes) gives a VALID DS */
	p = put_file("root.key", "; root anchors\n" DS2017 "\n");
	ck_assert_int_eq(val_anchors_add_autofile(a, p, err, sizeof(err)), 0);
	ck_assert(a->list->autotrust);
	ck_assert_str_eq(a->list->file, p);
	ck_assert_uint_eq(val_anchor_keys(a->list, DNS_TYPE_DS, NULL, 0), 1);
	/* errors name the line */
	p = put_file("bad.key", ";;id: . 1\n;;query_failed: x\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad.key:2:"));
	p = put_file("bad2.key", ";;id: . 1\n\n. DNSKEY 257 3 8 AwEAAQ== "
		";;state=9\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "bad2.key:3:"));
	/* other records (an RRSIG kept with the keys) are skipped, as
	 * Unbound skips them; a file of nothing else has no anchor */
	p = put_file("ok3.key", ";;id: . 1\n. A 192.0.2.1\n"
		". 172800 IN DNSKEY 257 3 8 AwEAAQ==\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(pts[0]->keys);
	ck_assert_ptr_null(pts[0]->keys->next);
	val_autr_free(pts[0]);
	free(pts);
	p = put_file("bad4.key", ";;id: nonsense\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), -1);
	p = put_file("bad5.key", "; nothing\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "no trust anchor"));
	val_anchors_delete(a);
}
END_TEST

/* ---------------------------------------------------------------- */
/* RFC 5011 with a fake clock */

/** a synthetic KSK: flags, protocol 3, algorithm 8, key bytes from id */
static void
mk_key(uint8_t *rd, int id, uint16_t flags)
{
	int i;
	dns_write_u16(rd, flags);
	rd[2] = 3;
	rd[3] = 8;
	rd[4] = 3;
	rd[5] = 1; rd[6] = 0; rd[7] = 1;
	for(i = 8; i < 72; i++)
		rd[i] = (uint8_t)(id * 31 + i);
}

/** key rdata storage for the probes */
static uint8_t kb[8][72];

/** a DNSKEY set of the listed key ids (negative id: revoked) */
static size_t
keyset(struct val_rr *out, const int *ids, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		int id = ids[i] < 0 ? -ids[i] : ids[i];
		mk_key(kb[i], id, (uint16_t)(257 | (ids[i] < 0 ?
			VAL_DNSKEY_REVOKE : 0)));
		out[i] = (struct val_rr){ kb[i], 72, 0, 72 };
	}
	return n;
}

/** the state of key id in the point, -1 when not listed */
static int
state_of(struct val_autr_point *tp, int id)
{
	uint8_t rd[72];
	struct val_autr_key *k;
	mk_key(rd, id, 257);
	for(k = tp->keys; k; k = k->next)
		if(k->type == DNS_TYPE_DNSKEY && k->len == 72 &&
			memcmp(k->rdata + 2, rd + 2, 70) == 0)
			return k->state;
	return -1;
}

/** write the point and read it back (a restart), returning the new one */
static struct val_autr_point *
restart(struct val_autr_point *tp)
{
	char path[600], err[512];
	struct val_autr_point **pts = NULL, *r;
	size_t n = 0;
	snprintf(path, sizeof(path), "%s/auto.key", dir);
	ck_assert_int_eq(val_autr_write_file(tp, path, err, sizeof(err)), 0);
	val_autr_free(tp);
	ck_assert_msg(val_autr_read_file(path, &pts, &n, err, sizeof(err))
		== 0, "%s", err);
	ck_assert_uint_eq(n, 1);
	r = pts[0];
	free(pts);
	return r;
}

/** one validated probe of the listed keys at time t, then a restart */
static struct val_autr_point *
probe(struct val_autr_point *tp, const struct val_autr_cfg *cfg,
	const int *ids, size_t n, const int *revsig, uint32_t t)
{
	struct val_rr set[8];
	keyset(set, ids, n);
	ck_assert_int_ge(val_autr_update(tp, cfg, set, n, revsig, 1, 0, t), 0);
	return restart(tp);
}

/** the file's text, read whole (static buffer) */
static const char *
file_text(const char *path)
{
	static char buf[8192];
	FILE *f = fopen(path, "r");
	size_t n;
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* the key lines as Unbound writes them (testbound's CHECK_AUTOTRUST
 * compares them as text): the key size is the RSA modulus, not the key
 * data, and the state in brackets is padded to nine characters */
START_TEST(test_autofile_key_comment)
{
	struct val_autr_point **pts = NULL;
	size_t n = 0;
	char err[512];
	const char *t, *p = put_file("k.key", KSK2017 " ;;state=2 "
		"[  VALID  ] ;;count=0 ;;lastchange=1690000000\n"
		". 172800 IN DNSKEY 257 3 8 AwEAAQ== ;;state=1 [ ADDPEND ] "
		";;count=1 ;;lastchange=1699000000\n");
	ck_assert_int_eq(val_autr_read_file(p, &pts, &n, err, sizeof(err)), 0);
	ck_assert_int_eq(val_autr_write_file(pts[0], p, err, sizeof(err)), 0);
	t = file_text(p);
	ck_assert_msg(strstr(t, ";{id = 20326 (ksk), size = 2048b} ;;state=2 "
		"[  VALID  ] ;;count=0 ;;lastchange=1690000000 ;;") != NULL,
		"%s", t);
	ck_assert_msg(strstr(t, "size = 0b} ;;state=1 [ ADDPEND ] ;;count=1 "
		";;lastchange=1699000000 ;;") != NULL, "%s", t);
	val_autr_free(pts[0]);
	free(pts);
}
END_TEST

/** a point with key 1 VALID */
static struct val_autr_point *
start_point(void)
{
	uint8_t rd[72], root[1] = { 0 };
	struct val_autr_point *tp = val_autr_create(root, DNS_CLASS_IN);
	mk_key(rd, 1, 257);
	ck_assert_ptr_nonnull(val_autr_add_key(tp, DNS_TYPE_DNSKEY, rd, 72,
		172800, VAL_AUTR_VALID, 0, 1000));
	return tp;
}

#define DAY 86400u
#define T0 1700000000u

/* a configured anchor (a file line without state: VALID, lastchange 0)
 * gets its lastchange at the first probe that sees it, as Unbound
 * writes it */
START_TEST(test_5011_configured_first_seen)
{
	struct val_autr_cfg cfg;
	uint8_t rd[72], root[1] = { 0 };
	struct val_autr_point *tp = val_autr_create(root, DNS_CLASS_IN);
	int ids[1] = { 1 };
	struct val_rr set[1];
	val_autr_cfg_init(&cfg);
	mk_key(rd, 1, 257);
	ck_assert_ptr_nonnull(val_autr_add_key(tp, DNS_TYPE_DNSKEY, rd, 72,
		172800, VAL_AUTR_VALID, 0, 0));
	keyset(set, ids, 1);
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 1, NULL, 1, 0, T0), 1);
	ck_assert_int_eq(tp->keys->state, VAL_AUTR_VALID);
	ck_assert_uint_eq(tp->keys->last_change, T0);
	/* later probes leave it */
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 1, NULL, 1, 0,
		T0 + DAY), 0);
	ck_assert_uint_eq(tp->keys->last_change, T0);
	val_autr_free(tp);
}
END_TEST

/* a point configured with a ZSK (flags 256, no state): the probe sees
 * the zone's KSK, which is trusted at once (the ZSK may not stay long
 * enough for a holddown), and the ZSK then leaves the point (it is not
 * a KSK that went missing); a new KSK of an algorithm petrel cannot
 * check is not added (as Unbound) */
START_TEST(test_5011_configured_zsk)
{
	struct val_autr_cfg cfg;
	uint8_t zsk[72], root[1] = { 0 };
	struct val_autr_point *tp = val_autr_create(root, DNS_CLASS_IN);
	int ids[2] = { 1, 2 };
	struct val_rr set[3];
	val_autr_cfg_init(&cfg);
	mk_key(zsk, 9, 256);
	ck_assert_ptr_nonnull(val_autr_add_key(tp, DNS_TYPE_DNSKEY, zsk, 72,
		3600, VAL_AUTR_VALID, 0, 0));
	keyset(set, ids, 2);
	kb[1][3] = 157; /* key 2: an unknown algorithm */
	set[2] = (struct val_rr){ zsk, 72, 0, 72 };
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 3, NULL, 1, 0, T0), 1);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_VALID);
	/* one key left: neither the ZSK nor the algorithm 157 key */
	ck_assert_ptr_nonnull(tp->keys);
	ck_assert_ptr_null(tp->keys->next);
	ck_assert_int_eq(tp->keys->rdata[3], 8);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 1);
	val_autr_free(tp);
}
END_TEST

/* every trusted key revokes itself: the point is revoked for good, even
 * though the set does not validate with a trusted key (their REVOKE bit
 * changed their tags); no more probes, the file says so, and the name
 * has no anchor any more */
START_TEST(test_5011_point_revoked)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	struct val_anchors *a = val_anchors_create();
	int rev[] = { -1 }, sig_ok[] = { 1 };
	struct val_rr set[1];
	char path[600], err[512];
	const char *t;
	uint8_t root[1] = { 0 };
	val_autr_cfg_init(&cfg);
	tp->next_probe_time = T0;
	keyset(set, rev, 1);
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 1, sig_ok, 0, 0, T0),
		1);
	ck_assert_int_eq(tp->revoked, 1);
	ck_assert_uint_eq(tp->next_probe_time, 0);
	ck_assert_uint_eq(tp->last_success, T0);
	ck_assert_uint_eq(tp->query_failed, 0);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	snprintf(path, sizeof(path), "%s/rev.key", dir);
	ck_assert_int_eq(val_autr_write_file(tp, path, err, sizeof(err)), 0);
	t = file_text(path);
	ck_assert_msg(strncmp(t, "; autotrust trust anchor file\n;;REVOKED\n"
		"; The zone has all keys revoked, and is\n", 80) == 0, "%s", t);
	val_autr_free(tp);
	/* read back: a revoked point is no anchor */
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(val_anchors_add_autofile(a, path, err, sizeof(err)),
		0);
	ck_assert_ptr_nonnull(val_anchors_find(a, root, DNS_CLASS_IN));
	ck_assert_ptr_null(val_anchors_lookup(a, root, DNS_CLASS_IN));
	val_anchors_delete(a);
	/* the rest of a revoked point's file is only a record: a value
	 * that does not parse there does not fail the load */
	{
		struct val_autr_point **pts = NULL;
		size_t n = 0;
		const char *p = put_file("rev2.key", ";;REVOKED\n"
			";;id: . 1\n;;next_probe_time: x\n"
			". 3600 IN DNSKEY 257 3 8 AwEAAQ==\n");
		ck_assert_msg(val_autr_read_file(p, &pts, &n, err,
			sizeof(err)) == 0, "%s", err);
		ck_assert_int_eq(pts[0]->revoked, 1);
		val_autr_free(pts[0]);
		free(pts);
	}
}
END_TEST

/* a revoked key published again without its REVOKE bit stays revoked,
 * and its del-holddown starts again from then */
START_TEST(test_5011_revoked_republished)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 }, rev[] = { -1, 2 }, sig_ok[] = { 1, 0 };
	struct val_rr set[2];
	val_autr_cfg_init(&cfg);
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 31 * DAY);
	tp = probe(tp, &cfg, rev, 2, sig_ok, T0 + 32 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	keyset(set, both, 2);
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 2, NULL, 1, 0,
		T0 + 40 * DAY), 1);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	{
		uint8_t rd[72];
		struct val_autr_key *k;
		mk_key(rd, 1, 257);
		for(k = tp->keys; k; k = k->next)
			if(memcmp(k->rdata + 2, rd + 2, 70) == 0)
				break;
		ck_assert_ptr_nonnull(k);
		ck_assert_uint_eq(k->last_change, T0 + 40 * DAY);
	}
	/* 30 days after that, not after the revocation: Removed */
	ck_assert_int_ge(val_autr_update(tp, &cfg, set + 1, 1, NULL, 1, 0,
		T0 + 65 * DAY), 0);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	ck_assert_int_ge(val_autr_update(tp, &cfg, set + 1, 1, NULL, 1, 0,
		T0 + 71 * DAY), 0);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REMOVED);
	val_autr_free(tp);
}
END_TEST

/* time alone: an ADDPEND key seen in two probes whose add-holddown has
 * passed is VALID before the next probe's set is checked, so it may be
 * the only key that signs that set; one seen once stays pending */
START_TEST(test_5011_holddown_before_check)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	uint8_t rd2[72], rd3[72];
	val_autr_cfg_init(&cfg);
	mk_key(rd2, 2, 257);
	mk_key(rd3, 3, 257);
	ck_assert_ptr_nonnull(val_autr_add_key(tp, DNS_TYPE_DNSKEY, rd2, 72,
		3600, VAL_AUTR_ADDPEND, 2, T0));
	ck_assert_ptr_nonnull(val_autr_add_key(tp, DNS_TYPE_DNSKEY, rd3, 72,
		3600, VAL_AUTR_ADDPEND, 1, T0));
	ck_assert_int_eq(val_autr_holddown(tp, &cfg, T0 + 29 * DAY), 0);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	ck_assert_int_eq(val_autr_holddown(tp, &cfg, T0 + 31 * DAY), 1);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	ck_assert_int_eq(state_of(tp, 3), VAL_AUTR_ADDPEND);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 2);
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_add_holddown)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 };
	val_autr_cfg_init(&cfg);
	/* a new key: AddPend */
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_VALID);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	/* seen daily, but the hold-down is 30 days */
	tp = probe(tp, &cfg, both, 2, NULL, T0 + DAY);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 29 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 30 * DAY - 1);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 1);
	/* hold-down passed: Valid */
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 30 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 2);
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_pending_forgotten)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 }, one[] = { 1 };
	val_autr_cfg_init(&cfg);
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	/* it went away before the hold-down: forgotten */
	tp = probe(tp, &cfg, one, 1, NULL, T0 + 10 * DAY);
	ck_assert_int_eq(state_of(tp, 2), -1);
	/* back: the hold-down starts again */
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 20 * DAY);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 31 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 50 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	/* a failed probe changes no state, only counts */
	{
		struct val_rr set[2];
		keyset(set, one, 1);
		ck_assert_int_eq(val_autr_update(tp, &cfg, set, 1, NULL, 0, 0,
			T0 + 60 * DAY), 1);
		ck_assert_uint_eq(tp->query_failed, 1);
		ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	}
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_small_holddown_needs_two_probes)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 };
	val_autr_cfg_init(&cfg);
	cfg.add_holddown = 0;
	cfg.permit_small_holddown = 1;
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 1);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_revoke_remove)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 }, rev[] = { -1, 2 }, back[] = { 1, 2 };
	int sig_ok[] = { 1, 0 }, sig_bad[] = { 0, 0 };
	val_autr_cfg_init(&cfg);
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 31 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	/* a REVOKE bit without the key's own signature is ignored */
	tp = probe(tp, &cfg, rev, 2, sig_bad, T0 + 32 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_VALID);
	/* revoked, self-signed: Revoked, no longer trusted */
	tp = probe(tp, &cfg, rev, 2, sig_ok, T0 + 33 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 1);
	/* del-holddown: Removed after 30 days */
	tp = probe(tp, &cfg, rev, 2, sig_ok, T0 + 62 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	{
		struct val_rr set[2];
		keyset(set, both + 1, 1);
		ck_assert_int_ge(val_autr_update(tp, &cfg, set, 1, NULL, 1, 0,
			T0 + 63 * DAY), 0);
		ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REMOVED);
		/* the key without its REVOKE bit again: it stays Removed
		 * while the daemon runs */
		keyset(set, back, 2);
		ck_assert_int_ge(val_autr_update(tp, &cfg, set, 2, NULL, 1, 0,
			T0 + 64 * DAY), 0);
		ck_assert_int_ge(val_autr_update(tp, &cfg, set, 2, NULL, 1, 0,
			T0 + 100 * DAY), 0);
		ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REMOVED);
		ck_assert_uint_eq(val_autr_num_trusted(tp), 1);
	}
	/* the file does not list Removed keys (as Unbound writes it) */
	tp = restart(tp);
	ck_assert_int_eq(state_of(tp, 1), -1);
	val_autr_free(tp);
}
END_TEST

/* a set that revokes a key (self-signed) but does not validate, after a
 * first success: the key is Revoked and the probe counts as failed, as
 * Unbound counts it (its autotrust_revoked_with_invalid.rpl) */
START_TEST(test_5011_revoke_unvalidated_counts)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 }, rev[] = { -1, 2 };
	int sig_ok[] = { 1, 0 };
	struct val_rr set[2];
	val_autr_cfg_init(&cfg);
	tp = probe(tp, &cfg, both, 2, NULL, T0);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 31 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	ck_assert_uint_eq(tp->query_failed, 0);
	keyset(set, rev, 2);
	ck_assert_int_eq(val_autr_update(tp, &cfg, set, 2, sig_ok, 0, 0,
		T0 + 32 * DAY), 1);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_REVOKED);
	ck_assert_uint_eq(tp->query_failed, 1);
	ck_assert_uint_eq(tp->last_success, T0 + 31 * DAY);
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_missing)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	int both[] = { 1, 2 }, only2[] = { 2 }, only1[] = { 1 };
	val_autr_cfg_init(&cfg);
	/* the only key goes missing: Missing, still trusted, kept */
	tp = probe(tp, &cfg, both + 1, 1, NULL, T0);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_MISSING);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	ck_assert_uint_eq(val_autr_num_trusted(tp), 1);
	/* past keep-missing, but it is the last trusted key: kept */
	cfg.keep_missing = 10 * DAY;
	tp = probe(tp, &cfg, only2, 1, NULL, T0 + 20 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_MISSING);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_ADDPEND);
	cfg.keep_missing = VAL_AUTR_KEEP_MISSING_DEFAULT;
	tp = probe(tp, &cfg, only2, 1, NULL, T0 + 40 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_MISSING);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_VALID);
	/* back: Valid */
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 401 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_VALID);
	/* missing again, past keep-missing with another key valid: gone */
	tp = probe(tp, &cfg, only2, 1, NULL, T0 + 402 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_MISSING);
	tp = probe(tp, &cfg, only2, 1, NULL, T0 + 402 * DAY + 366 * DAY - 1);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_MISSING);
	tp = probe(tp, &cfg, only2, 1, NULL, T0 + 402 * DAY + 366 * DAY);
	ck_assert_int_eq(state_of(tp, 1), -1);
	/* keep-missing 0 keeps it for ever */
	cfg.keep_missing = 0;
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 800 * DAY);
	tp = probe(tp, &cfg, both, 2, NULL, T0 + 831 * DAY);
	ck_assert_int_eq(state_of(tp, 1), VAL_AUTR_VALID);
	tp = probe(tp, &cfg, only1, 1, NULL, T0 + 832 * DAY);
	tp = probe(tp, &cfg, only1, 1, NULL, T0 + 5000 * DAY);
	ck_assert_int_eq(state_of(tp, 2), VAL_AUTR_MISSING);
	val_autr_free(tp);
}
END_TEST

START_TEST(test_5011_ds_bootstrap)
{
	/* a DS-only point (petrel-anchor's file) meets the real DNSKEY set
	 * of the alg8 fixture: the KSK is VALID at once, the DS is dropped,
	 * the ZSK (no SEP flag) takes no part */
	struct vt_zone *z = vt_zone_load("alg8.signed");
	struct vt_set keys;
	struct val_autr_cfg cfg;
	struct val_autr_point *tp;
	struct val_autr_key *k;
	FILE *f;
	char line[1024], err[512], path[600];
	struct val_autr_point **pts = NULL;
	size_t n = 0;
	val_autr_cfg_init(&cfg);
	ck_assert_uint_eq(vt_set_get(z, z->apex, DNS_TYPE_DNSKEY, &keys), 2);
	snprintf(path, sizeof(path), "%s/alg8.ds", VAL_TESTDATA);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_int_eq(val_autr_read_file(put_file("a8.key", line), &pts,
		&n, err, sizeof(err)), 0);
	tp = pts[0];
	free(pts);
	ck_assert_uint_eq(tp->keys->type, DNS_TYPE_DS);
	/* not validated by the DS, before any success: nothing changes,
	 * not even the failure count (as Unbound: the DS file stays) */
	ck_assert_int_eq(val_autr_update(tp, &cfg, keys.rrs, 2, NULL, 0, 0,
		T0), 0);
	ck_assert_uint_eq(tp->query_failed, 0);
	ck_assert_uint_eq(tp->keys->type, DNS_TYPE_DS);
	ck_assert_int_eq(val_autr_update(tp, &cfg, keys.rrs, 2, NULL, 1, 1,
		T0), 1);
	/* after a success, a failure is counted (and written) */
	ck_assert_int_eq(val_autr_update(tp, &cfg, keys.rrs, 2, NULL, 0, 0,
		T0 + 1), 1);
	ck_assert_uint_eq(tp->query_failed, 1);
	ck_assert_uint_eq(tp->last_success, T0);
	k = tp->keys;
	ck_assert_uint_eq(k->type, DNS_TYPE_DNSKEY);
	ck_assert_int_eq(k->state, VAL_AUTR_VALID);
	ck_assert(k->rdata[1] & VAL_DNSKEY_SEP);
	ck_assert_ptr_null(k->next);
	tp = restart(tp);
	ck_assert_int_eq(tp->keys->state, VAL_AUTR_VALID);
	ck_assert_int_eq(val_autr_update(tp, &cfg, keys.rrs, 2, NULL, 1, 0,
		T0 + DAY), 0);
	val_autr_free(tp);
	vt_set_clear(&keys);
	vt_zone_free(z);
}
END_TEST

START_TEST(test_5011_times)
{
	struct val_autr_cfg cfg;
	struct val_autr_point *tp = start_point();
	val_autr_cfg_init(&cfg);
	ck_assert_uint_eq(val_autr_set_times(tp, &cfg, 172800, 10 * DAY, 1,
		T0), DAY);
	ck_assert_uint_eq(tp->query_interval, DAY);
	ck_assert_uint_eq(tp->retry_time, 17280);
	ck_assert_uint_eq(tp->next_probe_time, T0 + DAY);
	ck_assert_uint_eq(val_autr_set_times(tp, &cfg, 172800, 10 * DAY, 0,
		T0), 17280);
	/* short TTL: the one-hour floor, unless permit-small-holddown */
	ck_assert_uint_eq(val_autr_set_times(tp, &cfg, 600, 10 * DAY, 1, T0),
		3600);
	ck_assert_uint_eq(tp->retry_time, 3600);
	cfg.permit_small_holddown = 1;
	ck_assert_uint_eq(val_autr_set_times(tp, &cfg, 600, 10 * DAY, 1, T0),
		300);
	ck_assert_uint_eq(tp->retry_time, 60);
	ck_assert_uint_eq(val_autr_set_times(tp, &cfg, 0, 0, 1, T0), 1);
	/* long TTL: capped at 15 days and 1 day */
	cfg.permit_small_holddown = 0;
	val_autr_set_times(tp, &cfg, 100 * DAY, 100 * DAY, 1, T0);
	ck_assert_uint_eq(tp->query_interval, 15 * DAY);
	ck_assert_uint_eq(tp->retry_time, DAY);
	ck_assert_str_eq(val_autr_state_str(VAL_AUTR_MISSING), "MISSING");
	val_autr_free(tp);
}
END_TEST

static Suite *
val_anchor_suite(void)
{
	Suite *s = suite_create("val_anchor");
	TCase *tc = tcase_create("core");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_trust_anchor_str);
	tcase_add_test(tc, test_builtin_root);
	tcase_add_test(tc, test_zonefile);
	tcase_add_test(tc, test_bindfile);
	tcase_add_test(tc, test_insecure_and_conflicts);
	tcase_add_test(tc, test_autofile_roundtrip);
	tcase_add_test(tc, test_autofile_key_comment);
	tcase_add_test(tc, test_5011_configured_first_seen);
	tcase_add_test(tc, test_5011_configured_zsk);
	tcase_add_test(tc, test_5011_point_revoked);
	tcase_add_test(tc, test_5011_revoked_republished);
	tcase_add_test(tc, test_5011_holddown_before_check);
	tcase_add_test(tc, test_5011_add_holddown);
	tcase_add_test(tc, test_5011_pending_forgotten);
	tcase_add_test(tc, test_5011_small_holddown_needs_two_probes);
	tcase_add_test(tc, test_5011_revoke_remove);
	tcase_add_test(tc, test_5011_revoke_unvalidated_counts);
	tcase_add_test(tc, test_5011_missing);
	tcase_add_test(tc, test_5011_ds_bootstrap);
	tcase_add_test(tc, test_5011_times);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(val_anchor_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
