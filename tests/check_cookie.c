/*
 * tests/check_cookie.c - Check suite for DNS Cookies: SipHash-2-4
 * (the reference vectors), RFC 9018 server cookies (its appendix A
 * examples), the checks of a query's COOKIE option (malformed lengths,
 * expiry and the future limit with a given time, serial wrap-around),
 * the secret file, the control-command changes of the secrets, and the
 * cookie options of the config.
 */
#include "config.h"
#include "dns/cookie.h"
#include "front/cookie_secrets.h"
#include "util/config_file.h"
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** hex text to bytes; @return the number of bytes */
static size_t
unhex(const char *s, uint8_t *out)
{
	size_t n = 0;
	unsigned v;
	while(s[0] && s[1] && sscanf(s, "%2x", &v) == 1) {
		out[n++] = (uint8_t)v;
		s += 2;
	}
	return n;
}

/** bytes to hex text (out: 2n+1) */
static void
tohex(const uint8_t *b, size_t n, char *out)
{
	size_t i;
	for(i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
	out[2 * n] = 0;
}

START_TEST(test_siphash_vectors)
{
	/* the reference vectors: key 00..0f, message 00..(len-1) */
	uint8_t key[16], msg[64], h[8];
	char hex[17];
	int i;
	for(i = 0; i < 16; i++)
		key[i] = (uint8_t)i;
	for(i = 0; i < 64; i++)
		msg[i] = (uint8_t)i;
	cookie_siphash_bytes(cookie_siphash(key, msg, 0), h);
	tohex(h, 8, hex);
	ck_assert_str_eq(hex, "310e0edd47db6f72");
	/* the example of the SipHash paper (appendix A): 15 bytes */
	ck_assert_uint_eq(cookie_siphash(key, msg, 15), 0xa129ca6149be45e5ULL);
	cookie_siphash_bytes(cookie_siphash(key, msg, 1), h);
	tohex(h, 8, hex);
	ck_assert_str_eq(hex, "fd67dc93c539f874");
}
END_TEST

/** one server cookie example of RFC 9018 appendix A */
static void
rfc9018_case(const char *secret, const char *client, const uint8_t *addr,
	size_t alen, uint32_t now, const char *want)
{
	uint8_t sec[16], cc[8], out[COOKIE_FULL_LEN];
	char hex[2 * COOKIE_FULL_LEN + 1];
	ck_assert_uint_eq(unhex(secret, sec), 16);
	ck_assert_uint_eq(unhex(client, cc), 8);
	cookie_make(sec, cc, addr, alen, now, out);
	tohex(out, sizeof(out), hex);
	ck_assert_str_eq(hex, want);
	/* and the server that made it takes it back */
	ck_assert_int_eq(cookie_check(out, sizeof(out), sec, 1, addr, alen,
		now + 10), COOKIE_VALID);
}

START_TEST(test_rfc9018_examples)
{
	static const uint8_t c1[4] = { 198, 51, 100, 100 };
	static const uint8_t c3[4] = { 203, 0, 113, 203 };
	static const uint8_t c4[16] = { 0x20, 0x01, 0x0d, 0xb8, 0x02, 0x20,
		0x00, 0x01, 0x59, 0xde, 0xd0, 0xf4, 0x87, 0x69, 0x82, 0xb8 };
	/* A.1: learning a new server cookie */
	rfc9018_case("e5e973e5a6b2a43f48e7dc849e37bfcf", "2464c4abcf10c957",
		c1, 4, 1559731985u,
		"2464c4abcf10c957010000005cf79f111f8130c3eee29480");
	/* A.2: the same client, 40 minutes later, a renewed cookie */
	rfc9018_case("e5e973e5a6b2a43f48e7dc849e37bfcf", "2464c4abcf10c957",
		c1, 4, 1559734385u,
		"2464c4abcf10c957010000005cf7a871d4a564a1442aca77");
	/* A.3: another client */
	rfc9018_case("e5e973e5a6b2a43f48e7dc849e37bfcf", "fc93fc62807ddb86",
		c3, 4, 1559734700u,
		"fc93fc62807ddb86010000005cf7a9acf73a7810aca2381e");
	/* A.4: IPv6, before and after the secret rolled over */
	rfc9018_case("dd3bdf9344b678b185a6f5cb60fca715", "22681ab97d52c298",
		c4, 16, 1559741817u,
		"22681ab97d52c298010000005cf7c57926556bd0934c72f8");
	rfc9018_case("445536bcd2513298075a5d379663c962", "22681ab97d52c298",
		c4, 16, 1559741961u,
		"22681ab97d52c298010000005cf7c609a6bb79d16625507a");
}
END_TEST

START_TEST(test_check_status)
{
	static const uint8_t a[4] = { 192, 0, 2, 1 }, b[4] = { 192, 0, 2, 2 };
	uint8_t secs[32], ck[COOKIE_FULL_LEN], opt[41];
	uint32_t t = 1700000000u;
	size_t i;
	memset(secs, 0x11, 16);
	memset(secs + 16, 0x22, 16);
	memset(opt, 0xab, sizeof(opt));
	/* lengths: 8, or 16 to 40; anything else is malformed */
	for(i = 0; i <= 41; i++) {
		enum cookie_status st = cookie_check(opt, i, secs, 1, a, 4, t);
		if(i == 8)
			ck_assert_int_eq(st, COOKIE_CLIENT_ONLY);
		else if(i < 16 || i > 40)
			ck_assert_int_eq(st, COOKIE_MALFORMED);
		else
			ck_assert_int_eq(st, COOKIE_INVALID);
	}
	cookie_make(secs, opt, a, 4, t, ck);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t), COOKIE_VALID);
	/* another address, another secret: not ours */
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, b, 4, t),
		COOKIE_INVALID);
	ck_assert_int_eq(cookie_check(ck, 24, secs + 16, 1, a, 4, t),
		COOKIE_INVALID);
	/* a staging secret validates too */
	cookie_make(secs + 16, opt, a, 4, t, ck);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 2, a, 4, t), COOKIE_VALID);
	cookie_make(secs, opt, a, 4, t, ck);
	/* age: renewed after half an hour, expired after an hour */
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t + 1800),
		COOKIE_VALID);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t + 1801),
		COOKIE_VALID_RENEW);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t + 3600),
		COOKIE_VALID_RENEW);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t + 3601),
		COOKIE_EXPIRED);
	/* the future: five minutes of clock skew */
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t - 300),
		COOKIE_VALID);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t - 301),
		COOKIE_FUTURE);
	/* a flipped bit anywhere in the server cookie */
	for(i = 8; i < 24; i++) {
		ck[i] ^= 0x04;
		ck_assert_int_ne(cookie_check(ck, 24, secs, 1, a, 4, t),
			COOKIE_VALID);
		ck[i] ^= 0x04;
	}
	/* version 2 is not ours to check */
	ck[8] = 2;
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, t),
		COOKIE_INVALID);
	/* serial arithmetic across the 32-bit wrap */
	cookie_make(secs, opt, a, 4, 0xffffff00u, ck);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, 0x100u),
		COOKIE_VALID);
	ck_assert_int_eq(cookie_check(ck, 24, secs, 1, a, 4, 0xf00u),
		COOKIE_EXPIRED);
}
END_TEST

START_TEST(test_secret_parse)
{
	uint8_t s[16];
	char hex[33];
	ck_assert_int_eq(cookie_secret_parse(
		"000102030405060708090a0b0c0d0E0F", s), 0);
	cookie_secret_hex(s, hex);
	ck_assert_str_eq(hex, "000102030405060708090a0b0c0d0e0f");
	ck_assert_int_eq(cookie_secret_parse("0001", s), -1);
	ck_assert_int_eq(cookie_secret_parse(
		"000102030405060708090a0b0c0d0e0f00", s), -1);
	ck_assert_int_eq(cookie_secret_parse(
		"000102030405060708090a0b0c0d0e0g", s), -1);
	ck_assert_int_eq(cookie_secret_parse("", s), -1);
}
END_TEST

/** write a file; @return its path (static buffer) */
static const char *
write_tmp(const char *text)
{
	static char path[64];
	FILE *f;
	snprintf(path, sizeof(path), "/tmp/check_cookie.%d", (int)getpid());
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/** @return the file's text (static buffer) */
static const char *
read_tmp(const char *path)
{
	static char buf[512];
	size_t n;
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/** @return a config with these server: lines */
static struct config_file *
cfg_of(const char *text, char *err, size_t errlen)
{
	struct config_file *cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	if(config_read_mem(cfg, "t.conf", text, strlen(text), err,
		errlen) != 0) {
		config_delete(cfg);
		return NULL;
	}
	return cfg;
}

START_TEST(test_secret_file)
{
	char err[256], text[256], hex[33];
	const char *path = write_tmp("# secrets\n\n"
		"00112233445566778899aabbccddeeff\n"
		"  ffeeddccbbaa99887766554433221100  \n"
		"0123456789abcdef0123456789abcdef\n");
	struct config_file *cfg;
	struct cookie_secrets *cs;
	const struct cookie_set *s;
	uint8_t add[16];

	snprintf(text, sizeof(text), "server:\n answer-cookie: yes\n"
		" cookie-secret-file: \"%s\"\n", path);
	cfg = cfg_of(text, err, sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	cs = cookie_secrets_create(cfg, err, sizeof(err));
	ck_assert_msg(cs != NULL, "%s", err);
	s = cookie_secrets_get(cs);
	ck_assert_uint_eq(s->n, 2); /* active and staging only */
	ck_assert_int_eq(s->from_file, 1);
	cookie_secret_hex(s->s, hex);
	ck_assert_str_eq(hex, "00112233445566778899aabbccddeeff");
	cookie_secret_hex(s->s + 16, hex);
	ck_assert_str_eq(hex, "ffeeddccbbaa99887766554433221100");

	/* activate: the staging one becomes active; written back */
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_ACTIVATE, NULL,
		1, err, sizeof(err)), 0);
	ck_assert_str_eq(read_tmp(path),
		"ffeeddccbbaa99887766554433221100\n"
		"00112233445566778899aabbccddeeff\n");
	/* drop the staging one; then nothing is left to drop or activate */
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_DROP, NULL, 1,
		err, sizeof(err)), 0);
	ck_assert_str_eq(read_tmp(path),
		"ffeeddccbbaa99887766554433221100\n");
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_DROP, NULL, 1,
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "error: can not drop the currently active "
		"cookie secret");
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_ACTIVATE, NULL,
		1, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "error: no staging cookie secret to activate");
	/* add: staging; a second add replaces the staging one */
	memset(add, 0x5a, sizeof(add));
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_ADD, add, 1, err,
		sizeof(err)), 0);
	memset(add, 0x6b, sizeof(add));
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_ADD, add, 0, err,
		sizeof(err)), 0);
	s = cookie_secrets_get(cs);
	ck_assert_uint_eq(s->n, 2);
	ck_assert_uint_eq(s->s[16], 0x6b);
	/* (write_file 0: the file still has the first add) */
	ck_assert_str_eq(read_tmp(path),
		"ffeeddccbbaa99887766554433221100\n"
		"5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a\n");
	cookie_secrets_reclaim(cs);
	cookie_secrets_delete(cs);

	/* a bad line names the file and the line */
	write_tmp("00112233445566778899aabbccddeeff\nnot-hex\n");
	cs = cookie_secrets_create(cfg, err, sizeof(err));
	ck_assert_ptr_null(cs);
	ck_assert_msg(strstr(err, ":2: expected a cookie secret") != NULL,
		"%s", err);
	/* an absent file: cookie-secret (or a random one) until an add */
	unlink(path);
	cs = cookie_secrets_create(cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(cs);
	s = cookie_secrets_get(cs);
	ck_assert_uint_eq(s->n, 1);
	ck_assert_int_eq(s->from_file, 0);
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_ADD, add, 1, err,
		sizeof(err)), 0);
	s = cookie_secrets_get(cs);
	ck_assert_uint_eq(s->n, 1); /* the file's first: active */
	ck_assert_str_eq(read_tmp(path), "6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b6b\n");
	cookie_secrets_delete(cs);
	unlink(path);
	config_delete(cfg);
}
END_TEST

START_TEST(test_config)
{
	char err[256];
	struct config_file *cfg;
	struct cookie_secrets *cs;
	const struct cookie_set *s;
	char hex[33];
	cfg = cfg_of("server:\n answer-cookie: yes\n cookie-secret: "
		"\"000102030405060708090a0b0c0d0e0f\"\n ip-ratelimit-cookie: 50\n"
		" wait-limit-cookie: 20\n wait-limit-netblock: 10.0.0.0/8 5\n"
		" wait-limit-cookie-netblock: \"10.1.0.0/16 7\"\n", err,
		sizeof(err));
	ck_assert_msg(cfg != NULL, "%s", err);
	ck_assert_int_eq(cfg->answer_cookie, 1);
	ck_assert_int_eq(cfg->ip_ratelimit_cookie, 50);
	ck_assert_int_eq(cfg->wait_limit_cookie, 20);
	ck_assert_str_eq(cfg->wait_limit_netblock->str, "10.0.0.0/8 5");
	ck_assert_str_eq(cfg->wait_limit_cookie_netblock->str,
		"10.1.0.0/16 7");
	cs = cookie_secrets_create(cfg, err, sizeof(err));
	ck_assert_ptr_nonnull(cs);
	s = cookie_secrets_get(cs);
	cookie_secret_hex(s->s, hex);
	ck_assert_str_eq(hex, "000102030405060708090a0b0c0d0e0f");
	ck_assert_int_eq(s->from_file, 0);
	/* no file: the commands say so */
	ck_assert_int_eq(cookie_secrets_change(cs, COOKIE_OP_DROP, NULL, 1,
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "error: no cookie secret file configured");
	cookie_secrets_delete(cs);
	config_delete(cfg);

	/* the defaults: Unbound 1.22's */
	cfg = cfg_of("server:\n", err, sizeof(err));
	ck_assert_ptr_nonnull(cfg);
	{
		/* a random secret is kept over a reload */
		struct cookie_secrets *o = cookie_secrets_create(cfg, err,
			sizeof(err)), *n = cookie_secrets_create(cfg, err,
			sizeof(err));
		ck_assert_ptr_nonnull(o);
		ck_assert_ptr_nonnull(n);
		ck_assert_int_eq(cookie_secrets_get(n)->random, 1);
		ck_assert_mem_ne(cookie_secrets_get(n)->s,
			cookie_secrets_get(o)->s, COOKIE_SECRET_LEN);
		cookie_secrets_keep(n, o);
		ck_assert_mem_eq(cookie_secrets_get(n)->s,
			cookie_secrets_get(o)->s, COOKIE_SECRET_LEN);
		cookie_secrets_delete(o);
		cookie_secrets_delete(n);
	}
	ck_assert_int_eq(cfg->answer_cookie, 0);
	ck_assert_int_eq(cfg->wait_limit, 1000);
	ck_assert_int_eq(cfg->wait_limit_cookie, 10000);
	ck_assert_int_eq(cfg->ip_ratelimit_cookie, 0);
	config_delete(cfg);

	/* bad values name the line */
	ck_assert_ptr_null(cfg_of("server:\n cookie-secret: 0011\n", err,
		sizeof(err)));
	ck_assert_msg(strstr(err, "t.conf:2") && strstr(err, "32 hex"),
		"%s", err);
	ck_assert_ptr_null(cfg_of("server:\n wait-limit-netblock: 10.0.0.0/8\n",
		err, sizeof(err)));
	ck_assert_msg(strstr(err, "t.conf:2") != NULL, "%s", err);
	ck_assert_ptr_null(cfg_of("server:\n wait-limit-netblock: x 5\n",
		err, sizeof(err)));
	ck_assert_msg(strstr(err, "netblock") != NULL, "%s", err);
	ck_assert_ptr_null(cfg_of("server:\n wait-limit-cookie-netblock: "
		"10.0.0.0/8 -1\n", err, sizeof(err)));
	ck_assert_msg(strstr(err, "number") != NULL, "%s", err);
}
END_TEST

static Suite *
cookie_suite(void)
{
	Suite *s = suite_create("cookie");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_siphash_vectors);
	tcase_add_test(tc, test_rfc9018_examples);
	tcase_add_test(tc, test_check_status);
	tcase_add_test(tc, test_secret_parse);
	tcase_add_test(tc, test_secret_file);
	tcase_add_test(tc, test_config);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(cookie_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
