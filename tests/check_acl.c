/*
 * tests/check_acl.c - Check suite for front/acl: the defaults, every
 * action with IPv4 and IPv6, overlapping prefixes, duplicates, parsing,
 * and a randomised comparison with a brute-force longest-prefix match.
 */
#include "config.h"
#include "front/acl.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/config_file.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** check an address (text) against a list */
static enum config_acl_action
chk(const struct acl_list *acl, const char *a)
{
	struct netaddr na;
	ck_assert_msg(netaddr_parse(a, 53, &na, NULL) == 0, "addr %s", a);
	return acl_check(acl, &na);
}

/** make a finished list from "netblock action" pairs */
static struct acl_list *
mk(const char *const *pairs)
{
	struct acl_list *acl = acl_create();
	char err[256];
	ck_assert_ptr_nonnull(acl);
	for(; pairs && pairs[0]; pairs += 2)
		ck_assert_msg(acl_add_str(acl, pairs[0], pairs[1], err,
			sizeof(err)) == 0, "%s %s: %s", pairs[0], pairs[1], err);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	return acl;
}

START_TEST(test_default)
{
	static const char *const none[] = { NULL };
	struct acl_list *acl = mk(none);
	const struct acl_list *lists[2];
	int i;
	lists[0] = acl;
	lists[1] = NULL; /* the built-in default */
	for(i = 0; i < 2; i++) {
		ck_assert_int_eq(chk(lists[i], "127.0.0.1"), ACL_ALLOW);
		ck_assert_int_eq(chk(lists[i], "127.255.3.4@9999"), ACL_ALLOW);
		ck_assert_int_eq(chk(lists[i], "::1"), ACL_ALLOW);
		ck_assert_int_eq(chk(lists[i], "192.0.2.1"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "128.0.0.1"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "126.255.255.255"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "0.0.0.0"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "2001:db8::1"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "::2"), ACL_REFUSE);
		ck_assert_int_eq(chk(lists[i], "::"), ACL_REFUSE);
	}
	ck_assert_int_eq(chk(acl, "::ffff:127.0.0.1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "::ffff:127.0.0.2"), ACL_REFUSE);
	ck_assert_uint_eq(acl_count(acl), 3);
	ck_assert_int_eq(acl_check(acl, NULL), ACL_REFUSE);
	acl_delete(acl);
	acl_delete(NULL);
}
END_TEST

START_TEST(test_actions)
{
	static const char *const cfg[] = {
		"192.0.2.1", "deny",
		"192.0.2.2", "refuse",
		"192.0.2.3", "allow",
		"192.0.2.4", "allow_setrd",
		"192.0.2.5", "allow_snoop",
		"192.0.2.6", "deny_non_local",
		"192.0.2.7", "refuse_non_local",
		"2001:db8::1", "deny",
		"2001:db8::2", "refuse",
		"2001:db8::3", "allow",
		"2001:db8::4", "allow_setrd",
		"2001:db8::5", "allow_snoop",
		"2001:db8::6", "deny_non_local",
		"2001:db8::7", "refuse_non_local",
		NULL
	};
	struct acl_list *acl = mk(cfg);
	ck_assert_int_eq(chk(acl, "192.0.2.1"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "192.0.2.2"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "192.0.2.3"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "192.0.2.4"), ACL_ALLOW_SETRD);
	ck_assert_int_eq(chk(acl, "192.0.2.5"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "192.0.2.6"), ACL_DENY_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "192.0.2.7"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "192.0.2.8"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "2001:db8::1"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "2001:db8::2"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "2001:db8::3"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "2001:db8::4"), ACL_ALLOW_SETRD);
	ck_assert_int_eq(chk(acl, "2001:db8::5"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "2001:db8::6"), ACL_DENY_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "2001:db8::7"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "2001:db8::8"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "127.0.0.1"), ACL_ALLOW);
	ck_assert_uint_eq(acl_count(acl), 17);
	acl_delete(acl);
}
END_TEST

START_TEST(test_overlap_v4)
{
	static const char *const cfg[] = {
		"0.0.0.0/0", "deny",
		"10.0.0.0/8", "allow",
		"10.1.0.0/16", "refuse",
		"10.1.2.0/24", "allow_snoop",
		"10.1.2.3/32", "deny_non_local",
		"10.1.2.128/25", "refuse_non_local",
		"10.128.0.0/9", "allow_setrd",
		NULL
	};
	struct acl_list *acl = mk(cfg);
	ck_assert_int_eq(chk(acl, "8.8.8.8"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "255.255.255.255"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "10.0.0.1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "10.127.255.255"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "10.128.0.0"), ACL_ALLOW_SETRD);
	ck_assert_int_eq(chk(acl, "10.255.1.1"), ACL_ALLOW_SETRD);
	ck_assert_int_eq(chk(acl, "10.1.0.1"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "10.1.3.1"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "10.1.2.1"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "10.1.2.127"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "10.1.2.3"), ACL_DENY_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "10.1.2.128"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "10.1.2.255"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "11.0.0.0"), ACL_DENY);
	/* the localhost default is more specific than 0.0.0.0/0 */
	ck_assert_int_eq(chk(acl, "127.0.0.1"), ACL_ALLOW);
	/* a /0 of one family says nothing about the other */
	ck_assert_int_eq(chk(acl, "2001:db8::1"), ACL_REFUSE);
	/* an IPv4-mapped address is IPv6 (as in Unbound) */
	ck_assert_int_eq(chk(acl, "::ffff:10.0.0.1"), ACL_REFUSE);
	acl_delete(acl);
}
END_TEST

START_TEST(test_overlap_v6)
{
	static const char *const cfg[] = {
		"::/0", "deny",
		"2001:db8::/32", "allow",
		"2001:db8:1::/48", "refuse_non_local",
		"2001:db8:1:2::/64", "allow_snoop",
		"2001:db8:1:2::53/128", "refuse",
		"2001:db8:8000::/33", "deny_non_local",
		"fe80::/10", "allow",
		NULL
	};
	struct acl_list *acl = mk(cfg);
	ck_assert_int_eq(chk(acl, "2001:db9::1"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "2001:db8::1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "2001:db8:7fff:ffff::1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "2001:db8:8000::1"), ACL_DENY_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "2001:db8:1::1"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "2001:db8:1:3::1"), ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(chk(acl, "2001:db8:1:2::1"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "2001:db8:1:2::53"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "2001:db8:1:2::54"), ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk(acl, "fe80::1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "febf:ffff::1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "fec0::1"), ACL_DENY);
	ck_assert_int_eq(chk(acl, "::1"), ACL_ALLOW);
	ck_assert_int_eq(chk(acl, "192.0.2.1"), ACL_REFUSE);
	acl_delete(acl);
}
END_TEST

START_TEST(test_override_and_dups)
{
	static const char *const cfg[] = {
		"127.0.0.0/8", "refuse",
		"::1", "deny",
		"192.0.2.0/24", "allow",
		"192.0.2.0/24", "deny",
		"192.0.2.77/24", "refuse_non_local", /* host bits: same block */
		NULL
	};
	struct acl_list *acl;
	char logbuf[1024];
	logbuf[0] = 0;
	log_capture(logbuf, sizeof(logbuf));
	acl = mk(cfg);
	log_capture(NULL, 0);
	/* a line for the default's netblock replaces the default */
	ck_assert_int_eq(chk(acl, "127.0.0.1"), ACL_REFUSE);
	ck_assert_int_eq(chk(acl, "::1"), ACL_DENY);
	/* duplicates: the first one wins, with a warning */
	ck_assert_int_eq(chk(acl, "192.0.2.200"), ACL_ALLOW);
	ck_assert_msg(strstr(logbuf, "duplicate access-control 192.0.2.0/24")
		!= NULL, "log: %s", logbuf);
	/* ::ffff:127.0.0.1 default is still there; 2 dups dropped */
	ck_assert_int_eq(chk(acl, "::ffff:127.0.0.1"), ACL_ALLOW);
	ck_assert_uint_eq(acl_count(acl), 4);
	acl_delete(acl);
}
END_TEST

START_TEST(test_parse)
{
	struct acl_list *acl = acl_create();
	enum config_acl_action a;
	char err[256];
	struct netblock nb;
	err[0] = 0;
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", "permit", err,
		sizeof(err)), -1);
	ck_assert(strstr(err, "permit") != NULL);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/33", "allow", err,
		sizeof(err)), -1);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0/8", "allow", err,
		sizeof(err)), -1);
	ck_assert_int_eq(acl_add_str(acl, "2001:db8::/129", "allow", err,
		sizeof(err)), -1);
	ck_assert_int_eq(acl_add_str(acl, "", "allow", err, sizeof(err)), -1);
	ck_assert_int_eq(acl_add_str(acl, NULL, "allow", err, sizeof(err)),
		-1);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", NULL, NULL, 0), -1);
	ck_assert_int_eq(acl_add(acl, NULL, ACL_ALLOW), -1);
	ck_assert_int_eq(netblock_parse("10.0.0.0/8", &nb, 0, NULL), 0);
	ck_assert_int_eq(acl_add(acl, &nb, (enum config_acl_action)42), -1);
	ck_assert_uint_eq(acl_count(acl), 0);
	ck_assert_int_eq(acl_add(acl, &nb, ACL_ALLOW), 0);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	/* finished: read-only */
	ck_assert_int_eq(acl_add(acl, &nb, ACL_DENY), -1);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), -1);
	ck_assert_int_eq(chk(acl, "10.9.9.9"), ACL_ALLOW);
	acl_delete(acl);
	/* the words */
	ck_assert_int_eq(acl_action_from_str("allow_snoop", &a), 0);
	ck_assert_int_eq(a, ACL_ALLOW_SNOOP);
	ck_assert_int_eq(acl_action_from_str("refuse_non_local", &a), 0);
	ck_assert_int_eq(a, ACL_REFUSE_NON_LOCAL);
	ck_assert_int_eq(acl_action_from_str("Allow", &a), -1);
	ck_assert_int_eq(acl_action_from_str(NULL, &a), -1);
	for(a = ACL_DENY; a <= ACL_REFUSE_NON_LOCAL; a++) {
		enum config_acl_action b;
		ck_assert_int_eq(acl_action_from_str(acl_action_str(a), &b),
			0);
		ck_assert_int_eq(a, b);
	}
	ck_assert_str_eq(acl_action_str((enum config_acl_action)42),
		"unknown");
}
END_TEST

/** one random netblock for the brute-force check */
struct rnd_block {
	/** address bytes */
	uint8_t a[16];
	/** 4 or 16 */
	int alen;
	/** prefix */
	int prefix;
	/** action */
	enum config_acl_action act;
};

/** does the address match the block? */
static int
rnd_match(const struct rnd_block *b, const uint8_t *a, int alen)
{
	int i;
	if(alen != b->alen)
		return 0;
	for(i = 0; i < b->prefix; i++) {
		int bit = 7 - (i % 8);
		if(((a[i / 8] >> bit) & 1) != ((b->a[i / 8] >> bit) & 1))
			return 0;
	}
	return 1;
}

/** make text from random bytes */
static void
rnd_text(const uint8_t *a, int alen, int prefix, char *buf, size_t len)
{
	struct netblock nb;
	memset(&nb, 0, sizeof(nb));
	if(alen == 4) {
		struct sockaddr_in *s = (struct sockaddr_in *)&nb.a.addr;
		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, a, 4);
		nb.a.len = sizeof(*s);
	} else {
		struct sockaddr_in6 *s = (struct sockaddr_in6 *)&nb.a.addr;
		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, a, 16);
		nb.a.len = sizeof(*s);
	}
	nb.prefix = prefix;
	if(prefix < 0)
		netaddr_str(&nb.a, -1, buf, len);
	else
		netblock_str(&nb, buf, len);
	if(prefix < 0) {
		char *at = strchr(buf, '@');
		if(at)
			*at = 0;
	}
}

START_TEST(test_random_vs_bruteforce)
{
	enum { NB = 300, NQ = 20000 };
	static struct rnd_block blocks[NB];
	struct acl_list *acl = acl_create();
	char err[256], txt[128];
	int i, j, nb = 0;
	srandom(4711);
	ck_assert_ptr_nonnull(acl);
	/* clustered addresses so that prefixes nest and overlap */
	for(i = 0; i < NB; i++) {
		struct rnd_block *b = &blocks[nb];
		int k, dup = 0;
		memset(b, 0, sizeof(*b));
		b->alen = (random() % 3 == 0) ? 16 : 4;
		b->a[0] = (uint8_t)(b->alen == 4 ? 10 : 0x20);
		b->a[1] = (uint8_t)(random() % 4);
		for(k = 2; k < b->alen; k++)
			b->a[k] = (uint8_t)(random() % 3 ? random() % 4 :
				random());
		b->prefix = (int)(random() % (b->alen * 8 + 1));
		for(k = 0; k < b->alen * 8; k++)
			if(k >= b->prefix)
				b->a[k / 8] &= (uint8_t)~(0x80 >> (k % 8));
		b->act = (enum config_acl_action)(random() % 7);
		for(k = 0; k < nb; k++)
			if(blocks[k].alen == b->alen &&
				blocks[k].prefix == b->prefix &&
				memcmp(blocks[k].a, b->a, b->alen) == 0)
				dup = 1;
		if(dup || (b->alen == 4 && b->a[0] == 127))
			continue;
		rnd_text(b->a, b->alen, b->prefix, txt, sizeof(txt));
		ck_assert_msg(acl_add_str(acl, txt, acl_action_str(b->act),
			err, sizeof(err)) == 0, "%s: %s", txt, err);
		nb++;
	}
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	for(i = 0; i < NQ; i++) {
		uint8_t a[16];
		int alen = (random() % 3 == 0) ? 16 : 4, k, best = -1;
		enum config_acl_action want = ACL_REFUSE;
		struct netaddr na;
		memset(a, 0, sizeof(a));
		a[0] = (uint8_t)(alen == 4 ? 10 : 0x20);
		a[1] = (uint8_t)(random() % 4);
		for(k = 2; k < alen; k++)
			a[k] = (uint8_t)(random() % 3 ? random() % 4 : random());
		for(j = 0; j < nb; j++)
			if(rnd_match(&blocks[j], a, alen) &&
				blocks[j].prefix > best) {
				best = blocks[j].prefix;
				want = blocks[j].act;
			}
		rnd_text(a, alen, -1, txt, sizeof(txt));
		ck_assert_int_eq(netaddr_parse(txt, 53, &na, NULL), 0);
		ck_assert_msg(acl_check(acl, &na) == want, "%s: got %s want %s",
			txt, acl_action_str(acl_check(acl, &na)),
			acl_action_str(want));
	}
	acl_delete(acl);
}
END_TEST

/** client-context numbers (the tags of front/policy.c) */
START_TEST(test_refs)
{
	struct acl_list *acl = acl_create();
	struct netblock nb;
	struct netaddr a;
	uint32_t ref = 99;
	char err[256];
	ck_assert_ptr_nonnull(acl);
	ck_assert_int_eq(acl_add_str(acl, "10.0.0.0/8", "refuse", err,
		sizeof(err)), 0);
	ck_assert_int_eq(acl_add_str(acl, "10.5.0.0/16", "allow", err,
		sizeof(err)), 0);
	/* joins the access-control line of the same netblock */
	ck_assert_int_eq(netblock_parse("10.0.0.0/8", &nb, 0, NULL), 0);
	ck_assert_int_eq(acl_add_ref(acl, &nb, 1), 0);
	/* made, with allow, when no line names it */
	ck_assert_int_eq(netblock_parse("10.2.0.0/16", &nb, 0, NULL), 0);
	ck_assert_int_eq(acl_add_ref(acl, &nb, 2), 0);
	ck_assert_int_eq(acl_add_ref(acl, &nb, 0), -1);
	ck_assert_int_eq(acl_finish(acl, err, sizeof(err)), 0);
	ck_assert_int_eq(netaddr_parse("10.1.1.1", 53, &a, NULL), 0);
	ck_assert_int_eq(acl_check_ref(acl, &a, &ref), ACL_REFUSE);
	ck_assert_uint_eq(ref, 1);
	ck_assert_int_eq(netaddr_parse("10.2.1.1", 53, &a, NULL), 0);
	ck_assert_int_eq(acl_check_ref(acl, &a, &ref), ACL_ALLOW);
	ck_assert_uint_eq(ref, 2);
	/* a longer entry without a number hides the shorter one's */
	ck_assert_int_eq(netaddr_parse("10.5.1.1", 53, &a, NULL), 0);
	ck_assert_int_eq(acl_check_ref(acl, &a, &ref), ACL_ALLOW);
	ck_assert_uint_eq(ref, 0);
	ck_assert_int_eq(netaddr_parse("192.0.2.1", 53, &a, NULL), 0);
	ck_assert_int_eq(acl_check_ref(acl, &a, &ref), ACL_REFUSE);
	ck_assert_uint_eq(ref, 0);
	ck_assert_int_eq(acl_check(acl, &a), ACL_REFUSE);
	acl_delete(acl);
}
END_TEST

/** a list from a config text (acl_apply_cfg); NULL with err set when the
 * config or the list is refused */
static struct acl_list *
mkcfg(const char *text, char *err, size_t errlen)
{
	struct config_file *cfg = config_create();
	struct acl_list *acl = acl_create();
	err[0] = 0;
	ck_assert_ptr_nonnull(cfg);
	ck_assert_ptr_nonnull(acl);
	if(config_read_mem(cfg, "t.conf", text, strlen(text), err, errlen)
		!= 0 || acl_apply_cfg(acl, cfg, err, errlen) != 0) {
		acl_delete(acl);
		acl = NULL;
	}
	config_delete(cfg);
	return acl;
}

/** the action a client gets on a listening point (text addresses) */
static enum config_acl_action
chk_if(const struct acl_list *acl, const char *bound, const char *client)
{
	struct netaddr b;
	ck_assert_msg(netaddr_parse(bound, 53, &b, NULL) == 0, "%s", bound);
	return chk(acl_for_interface(acl, &b), client);
}

/* interface-action: a client no access-control netblock contains gets
 * the action of the listening point (address and port), refuse when no
 * line names the point; access-control lines and the localhost defaults
 * win */
START_TEST(test_interface_action)
{
	static const char text[] = "server:\n"
		"\tport: 5353\n"
		"\tinterface-action: 192.0.2.1 allow\n"
		"\tinterface-action: 192.0.2.2@53 deny\n"
		"\tinterface-action: 2001:db8::1 allow_snoop\n"
		"\tinterface-action: 0.0.0.0 refuse_non_local\n"
		"\tinterface-action: 192.0.2.1 deny\n" /* dup: first wins */
		"\taccess-control: 10.0.0.0/8 deny\n";
	char err[512];
	struct acl_list *acl = mkcfg(text, err, sizeof(err));
	ck_assert_msg(acl != NULL, "%s", err);
	ck_assert_int_eq(acl_has_interface_actions(acl), 1);
	/* port: 5353 is the port of a line without one */
	ck_assert_int_eq(chk_if(acl, "192.0.2.1@5353", "198.51.100.7"),
		ACL_ALLOW);
	ck_assert_int_eq(chk_if(acl, "192.0.2.1@53", "198.51.100.7"),
		ACL_REFUSE);
	ck_assert_int_eq(chk_if(acl, "192.0.2.2@53", "198.51.100.7"),
		ACL_DENY);
	ck_assert_int_eq(chk_if(acl, "192.0.2.2@5353", "198.51.100.7"),
		ACL_REFUSE);
	ck_assert_int_eq(chk_if(acl, "2001:db8::1@5353", "2001:db8::99"),
		ACL_ALLOW_SNOOP);
	ck_assert_int_eq(chk_if(acl, "0.0.0.0@5353", "198.51.100.7"),
		ACL_REFUSE_NON_LOCAL);
	/* a point no line names */
	ck_assert_int_eq(chk_if(acl, "192.0.2.9@5353", "198.51.100.7"),
		ACL_REFUSE);
	/* access-control and the localhost default win */
	ck_assert_int_eq(chk_if(acl, "192.0.2.1@5353", "10.1.2.3"), ACL_DENY);
	ck_assert_int_eq(chk_if(acl, "192.0.2.2@53", "127.0.0.1"), ACL_ALLOW);
	/* the list itself is unchanged */
	ck_assert_int_eq(chk(acl, "198.51.100.7"), ACL_REFUSE);
	ck_assert_ptr_eq(acl_for_interface(acl, NULL), acl);
	acl_delete(acl);

	/* none configured */
	acl = mkcfg("server:\n\taccess-control: 10.0.0.0/8 allow\n", err,
		sizeof(err));
	ck_assert_msg(acl != NULL, "%s", err);
	ck_assert_int_eq(acl_has_interface_actions(acl), 0);
	ck_assert_int_eq(chk_if(acl, "192.0.2.1", "198.51.100.7"),
		ACL_REFUSE);
	acl_delete(acl);

	/* an access-control line for 0.0.0.0/0 hides every interface */
	acl = mkcfg("server:\n\tinterface-action: 192.0.2.1@53 allow\n"
		"\taccess-control: 0.0.0.0/0 refuse\n", err, sizeof(err));
	ck_assert_msg(acl != NULL, "%s", err);
	ck_assert_int_eq(chk_if(acl, "192.0.2.1", "198.51.100.7"),
		ACL_REFUSE);
	acl_delete(acl);
}
END_TEST

/* an interface name stands for each address of the interface (lo has
 * 127.0.0.1 on every Linux machine) */
START_TEST(test_interface_action_name)
{
	char err[512];
	struct acl_list *acl = mkcfg("server:\n\tinterface-action: lo@5300 "
		"allow_setrd\n", err, sizeof(err));
	ck_assert_msg(acl != NULL, "%s", err);
	ck_assert_int_eq(chk_if(acl, "127.0.0.1@5300", "198.51.100.7"),
		ACL_ALLOW_SETRD);
	ck_assert_int_eq(chk_if(acl, "127.0.0.1@53", "198.51.100.7"),
		ACL_REFUSE);
	acl_delete(acl);
}
END_TEST

/* bad lines are refused with file:line and why */
START_TEST(test_interface_action_errors)
{
	char err[512];
	ck_assert_ptr_null(mkcfg("server:\n\tinterface-action: 192.0.2.1 "
		"maybe\n", err, sizeof(err)));
	ck_assert_str_eq(err, "t.conf:2: interface-action: unknown action "
		"'maybe' (deny, refuse, allow, allow_setrd, allow_snoop, "
		"deny_non_local, refuse_non_local, allow_cookie)");
	ck_assert_ptr_null(mkcfg("server:\n\tinterface-action: 192.0.2.1\n",
		err, sizeof(err)));
	ck_assert_str_eq(err, "t.conf:2: interface-action: expected <ip or "
		"interface name[@port]> <action>");
	ck_assert_ptr_null(mkcfg("server:\n\tinterface-action: nosuchif0 "
		"allow\n", err, sizeof(err)));
	ck_assert_str_eq(err, "t.conf:2: interface-action: 'nosuchif0' is "
		"neither an address nor the name of a network interface with "
		"an address");
	ck_assert_ptr_null(mkcfg("server:\n\tinterface-action: lo@99999 "
		"allow\n", err, sizeof(err)));
	ck_assert_str_eq(err, "t.conf:2: interface-action: bad port '99999'");
}
END_TEST

static Suite *
acl_suite(void)
{
	Suite *s = suite_create("acl");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_default);
	tcase_add_test(tc, test_actions);
	tcase_add_test(tc, test_overlap_v4);
	tcase_add_test(tc, test_overlap_v6);
	tcase_add_test(tc, test_override_and_dups);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_random_vs_bruteforce);
	tcase_add_test(tc, test_refs);
	tcase_add_test(tc, test_interface_action);
	tcase_add_test(tc, test_interface_action_name);
	tcase_add_test(tc, test_interface_action_errors);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(acl_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
