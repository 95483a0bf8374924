/*
 * tests/check_iterator.c - unit tests for the iterator's environment:
 * root hints (built-in and from a file), forward/stub zone matching,
 * delegation points, address filters (do-not-query-localhost, do-ip6,
 * private-address, private-domain), and building it from a config.
 * The resolution itself is proven by the replay scenarios (testdata);
 * what the replies teach the infrastructure cache about a server's EDNS
 * (dump_infra's ednsknown, which no scenario can read) is checked here
 * with a fake network.
 */
#include "config.h"
#include "util/log.h"
#include <check.h>
#include "tests/testutil.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "iterator/iter_env.h"
#include "util/config_file.h"
#include "util/region.h"
#include "util/netaddr.h"
#include "dns/name.h"
#include "dns/dns.h"
#include "front/resolver.h"
#include "front/modstack.h"
#include "services/outbound.h"
#include "services/cache/infra.h"
#include "util/random.h"
#include <ldns/ldns.h>

/** count hints */
static int
num_hints(struct iter_env *env, int *with_addr)
{
	struct iter_hint *h;
	int n = 0;
	*with_addr = 0;
	for(h = env->hints; h; h = h->next) {
		n++;
		if(h->has_addr)
			(*with_addr)++;
	}
	return n;
}

START_TEST(test_default_hints)
{
	struct iter_env *env = iter_env_create_default();
	struct region *r = region_create(0);
	struct delegpt *dp;
	struct delegpt_ns *ns;
	struct delegpt_addr *a;
	int n, wa, nns = 0, naddr = 0;
	uint8_t k[256];
	ck_assert_ptr_nonnull(env);
	n = num_hints(env, &wa);
	ck_assert_int_eq(n, 26);	/* 13 servers, IPv4 and IPv6 each */
	ck_assert_int_eq(wa, 26);
	dp = iter_env_root_dp(env, r);
	ck_assert_ptr_nonnull(dp);
	ck_assert_uint_eq(dp->len, 1);
	for(ns = dp->nslist; ns; ns = ns->next)
		nns++;
	for(a = dp->addrs; a; a = a->next)
		naddr++;
	ck_assert_int_eq(nns, 13);	/* names are not duplicated */
	ck_assert_int_eq(naddr, 26);
	tu_name("K.Root-Servers.NET.", k);
	ck_assert_ptr_nonnull(delegpt_find_ns(dp, k));
	/* defaults as Unbound's */
	ck_assert_int_eq(env->dnqlh, 1);
	ck_assert_int_eq(env->qname_min, 1);
	region_destroy(r);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_hints_file)
{
	char path[] = "/tmp/check_iterator_hintsXXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct iter_env *env = iter_env_create_default();
	int n, wa;
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, ".\t3600000\tIN\tNS\tns1.test.\n"
		".\t3600000\tIN\tNS\tns2.test.\n"
		"ns1.test.\t3600000\tIN\tA\t192.0.2.1\n"
		"ns1.test.\t3600000\tIN\tAAAA\t2001:db8::1\n");
	fclose(f);
	ck_assert_int_eq(iter_env_read_hints(env, path), 0);
	n = num_hints(env, &wa);
	/* ns1 with two addresses, ns2 without */
	ck_assert_int_eq(n, 3);
	ck_assert_int_eq(wa, 2);
	unlink(path);
	/* a missing file fails and keeps the hints */
	ck_assert_int_eq(iter_env_read_hints(env, "/nonexistent/hints"), -1);
	ck_assert_int_eq(num_hints(env, &wa), 3);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_hints_file_garbage)
{
	char path[] = "/tmp/check_iterator_hintsXXXXXX";
	int fd = mkstemp(path);
	FILE *f;
	struct iter_env *env = iter_env_create_default();
	int wa;
	f = fdopen(fd, "w");
	fprintf(f, "this is not a zone file {{{\n");
	fclose(f);
	ck_assert_int_eq(iter_env_read_hints(env, path), -1);
	ck_assert_int_eq(num_hints(env, &wa), 26);
	unlink(path);
	iter_env_delete(env);
}
END_TEST

/** write a hints file from text into path (a mkstemp template) */
static void
write_hints(char *path, const char *text)
{
	int fd = mkstemp(path);
	FILE *f;
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* a hints file of class ANY (or NONE): a query class, not a class of data
 * (RFC 6895 3.2), which a class-ANY question would be asked in again by a
 * sub-query of its own (iter_collect_start): the file is refused with an
 * error, and the hints stay as they were */
START_TEST(test_hints_meta_class)
{
	static const char *const text[2] = {
		". 3600 ANY NS ns.any.test.\nns.any.test. 3600 ANY A "
		"192.0.2.30\n",
		". 3600 IN NS k.root.\nk.root. 3600 IN A 192.0.2.1\n"
		". 3600 NONE NS ns.none.test.\n"
	};
	int i;
	for(i = 0; i < 2; i++) {
		char path[] = "/tmp/check_iterator_hintsXXXXXX";
		struct iter_env *env = iter_env_create_default();
		int wa;
		ck_assert_ptr_nonnull(env);
		write_hints(path, text[i]);
		ck_assert_int_eq(iter_env_read_hints(env, path), -1);
		ck_assert_int_eq(num_hints(env, &wa), 26);
		ck_assert_int_eq(iter_env_next_class(env, DNS_CLASS_IN), 0);
		unlink(path);
		iter_env_delete(env);
	}
}
END_TEST

/* two root-hints lines: both files are read, each with the class of its
 * records; the CH hints are kept apart from the IN ones (Unbound's
 * iter_class_any_merge.rpl); a second file for a class is ignored */
START_TEST(test_hints_per_class)
{
	char in[] = "/tmp/check_iterator_hintsXXXXXX";
	char ch[] = "/tmp/check_iterator_hintsXXXXXX";
	char in2[] = "/tmp/check_iterator_hintsXXXXXX";
	char conf[1024], buf[64];
	struct config_file *cfg;
	struct iter_env *env;
	struct region *r = region_create(0);
	struct delegpt *dp;
	int wa;
	write_hints(in, ". 3600 NS k.root.\nk.root. 3600 IN A 192.0.2.1\n");
	write_hints(ch, "; class CH\n. 3600 CH NS ns.ch.test.\n"
		"ns.ch.test. 3600 CH A 192.0.2.5\n"
		"ns.ch.test. 3600 IN A 192.0.2.99\n");
	write_hints(in2, ". 3600 IN NS other.root.\n"
		"other.root. 3600 IN A 192.0.2.7\n");
	snprintf(conf, sizeof(conf), "server:\n root-hints: \"%s\"\n"
		" root-hints: \"%s\"\n root-hints: \"%s\"\n", in, ch, in2);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "test", conf, strlen(conf), buf, sizeof(buf)), 0);
	env = iter_env_create(cfg);
	ck_assert_ptr_nonnull(env);
	/* class IN: the first file's server only (the built-in ones
	 * replaced, the third file's second IN hints ignored) */
	ck_assert_int_eq(num_hints(env, &wa), 1);
	ck_assert_int_eq(wa, 1);
	ck_assert_str_eq((char *)env->hints->name, "\001k\004root");
	/* class CH: its own server, with its CH address only */
	ck_assert_ptr_nonnull(env->class_hints);
	ck_assert_int_eq(env->class_hints->rrclass, DNS_CLASS_CH);
	ck_assert_ptr_null(env->class_hints->next);
	ck_assert_int_eq(iter_env_next_class(env, 0), DNS_CLASS_IN);
	ck_assert_int_eq(iter_env_next_class(env, DNS_CLASS_IN),
		DNS_CLASS_CH);
	ck_assert_int_eq(iter_env_next_class(env, DNS_CLASS_CH), 0);
	dp = iter_env_class_root_dp(env, DNS_CLASS_CH, r);
	ck_assert_ptr_nonnull(dp);
	ck_assert_ptr_nonnull(dp->nslist);
	ck_assert_str_eq((char *)dp->nslist->name, "\002ns\002ch\004test");
	ck_assert_ptr_null(dp->nslist->next);
	ck_assert_ptr_nonnull(dp->addrs);
	ck_assert_ptr_null(dp->addrs->next);
	ck_assert_ptr_null(iter_env_class_root_dp(env, DNS_CLASS_HS, r));
	dp = iter_env_root_dp(env, r);
	ck_assert_ptr_nonnull(dp);
	ck_assert_str_eq((char *)dp->nslist->name, "\001k\004root");
	iter_env_delete(env);
	/* a CH file alone keeps the built-in IN hints */
	snprintf(conf, sizeof(conf), "server:\n root-hints: \"%s\"\n", ch);
	config_delete(cfg);
	cfg = config_create();
	ck_assert_int_eq(config_read_mem(cfg, "test", conf, strlen(conf), buf, sizeof(buf)), 0);
	env = iter_env_create(cfg);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(num_hints(env, &wa), 26);
	ck_assert_int_eq(iter_env_next_class(env, DNS_CLASS_IN),
		DNS_CLASS_CH);
	iter_env_delete(env);
	config_delete(cfg);
	region_destroy(r);
	unlink(in);
	unlink(ch);
	unlink(in2);
}
END_TEST

START_TEST(test_find_zone)
{
	struct iter_env *env = iter_env_create_default();
	struct iter_zone *root, *ex, *aex, *z;
	uint8_t n[256];
	root = iter_env_add_zone(env, ".", 1);
	ex = iter_env_add_zone(env, "example.com", 0);
	aex = iter_env_add_zone(env, "a.example.com.", 1);
	ck_assert_ptr_nonnull(root);
	ck_assert_ptr_nonnull(ex);
	ck_assert_ptr_nonnull(aex);
	/* adding the same name again finds it */
	ck_assert_ptr_eq(iter_env_add_zone(env, "EXAMPLE.com.", 0), ex);
	tu_name("www.example.com.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), ex);
	tu_name("x.a.example.com.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), aex);
	tu_name("a.example.com.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), aex);
	tu_name("b.example.com.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), ex);
	tu_name("example.net.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), root);
	/* case does not matter */
	tu_name("WWW.Example.COM.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), ex);
	/* a stub beats a forward of the same name */
	z = iter_env_add_zone(env, "example.com.", 1);
	ck_assert_ptr_ne(z, ex);
	tu_name("www.example.com.", n);
	ck_assert_ptr_eq(iter_env_find_zone(env, n), ex);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_zone_dp)
{
	struct iter_env *env = iter_env_create_default();
	struct region *r = region_create(0);
	struct iter_zone *z = iter_env_add_zone(env, "example.com.", 1);
	struct delegpt *dp;
	struct delegpt_addr *a;
	int n = 0;
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.2@5353"), 0);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	ck_assert_int_eq(iter_zone_add_addr(z, "not-an-address"), -1);
	ck_assert_int_eq(iter_zone_add_host(z, "ns.example.net"), 0);
	z->first = 1;
	dp = iter_env_zone_dp(z, r);
	ck_assert_ptr_nonnull(dp);
	ck_assert_int_eq(dp->is_forward, 1);
	ck_assert_int_eq(dp->is_stub, 0);
	ck_assert_int_eq(dp->first, 1);
	for(a = dp->addrs; a; a = a->next)
		n++;
	ck_assert_int_eq(n, 2);	/* the duplicate is merged */
	ck_assert_int_eq(netaddr_port(&dp->addrs->next->addr), 5353);
	ck_assert_ptr_nonnull(dp->nslist);
	ck_assert_ptr_null(dp->nslist->next);
	region_destroy(r);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_delegpt)
{
	struct region *r = region_create(0);
	uint8_t zone[256], n1[256], n2[256];
	struct delegpt *dp;
	struct netaddr a;
	const char *err;
	tu_name("Example.COM.", zone);
	tu_name("ns1.example.com.", n1);
	tu_name("NS1.example.com.", n2);
	dp = delegpt_create(r, zone);
	ck_assert_ptr_nonnull(dp);
	ck_assert_int_eq(dp->name[1], 'e');	/* lower-cased */
	ck_assert_ptr_nonnull(delegpt_add_ns(dp, r, n1));
	ck_assert_ptr_eq(delegpt_add_ns(dp, r, n2), dp->nslist);
	ck_assert_ptr_null(dp->nslist->next);
	ck_assert_int_eq(netaddr_parse("192.0.2.7", 53, &a, &err), 0);
	ck_assert_int_eq(delegpt_add_addr(dp, r, &a), 0);
	ck_assert_int_eq(delegpt_add_addr(dp, r, &a), 1);
	ck_assert_ptr_nonnull(dp->addrs);
	ck_assert_ptr_null(dp->addrs->next);
	region_destroy(r);
}
END_TEST

START_TEST(test_addr_filters)
{
	struct iter_env *env = iter_env_create_default();
	struct netaddr lo, lo6, pub, pub6, priv;
	const char *err;
	uint8_t n[256];
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &lo, &err), 0);
	ck_assert_int_eq(netaddr_parse("127.1.2.3", 53, &lo6, &err), 0);
	ck_assert_int_eq(netaddr_parse("192.0.2.1", 53, &pub, &err), 0);
	ck_assert_int_eq(netaddr_parse("2001:db8::1", 53, &pub6, &err), 0);
	ck_assert_int_eq(netaddr_parse("10.1.2.3", 53, &priv, &err), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &lo), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &lo6), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &pub), 1);
	ck_assert_int_eq(iter_addr_allowed(env, &pub6), 1);
	env->dnqlh = 0;
	ck_assert_int_eq(iter_addr_allowed(env, &lo), 1);
	env->do_ip6 = 0;
	ck_assert_int_eq(iter_addr_allowed(env, &pub6), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &pub), 1);
	env->do_ip4 = 0;
	ck_assert_int_eq(iter_addr_allowed(env, &pub), 0);

	ck_assert_int_eq(iter_addr_private(env, &priv), 0);
	ck_assert_int_eq(iter_env_add_private(env, "10.0.0.0/8"), 0);
	ck_assert_int_eq(iter_env_add_private(env, "bogus"), -1);
	ck_assert_int_eq(iter_addr_private(env, &priv), 1);
	ck_assert_int_eq(iter_addr_private(env, &pub), 0);
	ck_assert_int_eq(iter_env_add_privdom(env, "intra.example."), 0);
	tu_name("host.Intra.Example.", n);
	ck_assert_int_eq(iter_name_privdom(env, n), 1);
	tu_name("host.example.", n);
	ck_assert_int_eq(iter_name_privdom(env, n), 0);
	iter_env_delete(env);
}
END_TEST

START_TEST(test_from_config)
{
	struct config_file *cfg = config_create();
	struct iter_env *env;
	struct iter_zone *z;
	char err[256];
	uint8_t n[256];
	const char *text =
		"server:\n"
		"\tqname-minimisation: no\n"
		"\tdo-not-query-localhost: no\n"
		"\tprivate-address: 10.0.0.0/8\n"
		"\tprivate-domain: \"lan.\"\n"
		"\tprefetch: yes\n"
		"forward-zone:\n"
		"\tname: \".\"\n"
		"\tforward-addr: 192.0.2.53\n"
		"\tforward-first: yes\n"
		"stub-zone:\n"
		"\tname: \"corp.example.\"\n"
		"\tstub-addr: 192.0.2.54@5353\n"
		"\tstub-host: ns.corp.example.\n";
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "test", text, strlen(text),
		err, sizeof(err)), 0);
	env = iter_env_create(cfg);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(env->qname_min, 0);
	ck_assert_int_eq(env->dnqlh, 0);
	ck_assert_ptr_nonnull(env->priv);
	ck_assert_ptr_nonnull(env->privdom);
	tu_name("www.corp.example.", n);
	z = iter_env_find_zone(env, n);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(z->is_forward, 0);
	ck_assert_int_eq(z->num_addrs, 1);
	ck_assert_int_eq(netaddr_port(&z->addrs[0]), 5353);
	ck_assert_int_eq(z->num_hosts, 1);
	tu_name("www.example.", n);
	z = iter_env_find_zone(env, n);
	ck_assert_ptr_nonnull(z);
	ck_assert_int_eq(z->is_forward, 1);
	ck_assert_int_eq(z->first, 1);
	iter_env_delete(env);
	config_delete(cfg);
}
END_TEST

/** target-fetch-policy: parsed per depth, the default Unbound's, bad
 * values refused with a message (and the env left as it was) */
START_TEST(test_target_fetch_policy)
{
	struct iter_env *env = iter_env_create_default();
	struct config_file *cfg = config_create();
	char err[256];
	const char *text = "server:\n\ttarget-fetch-policy: \"-1 2 0\"\n";
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(env->tfp_count, 5);
	ck_assert_int_eq(env->tfp[0], 3);
	ck_assert_int_eq(env->tfp[1], 2);
	ck_assert_int_eq(env->tfp[2], 1);
	ck_assert_int_eq(env->tfp[3], 0);
	ck_assert_int_eq(env->tfp[4], 0);
	ck_assert_int_eq(iter_env_parse_tfp(env, " 0\t1 -1 ", err,
		sizeof(err)), 0);
	ck_assert_int_eq(env->tfp_count, 3);
	ck_assert_int_eq(env->tfp[2], -1);
	ck_assert_int_eq(iter_env_parse_tfp(env, "", err, sizeof(err)), -1);
	ck_assert_int_eq(iter_env_parse_tfp(env, "1 -2", err, sizeof(err)),
		-1);
	ck_assert_ptr_nonnull(strstr(err, "-1 or more"));
	ck_assert_int_eq(iter_env_parse_tfp(env, "1 x", err, sizeof(err)),
		-1);
	ck_assert_int_eq(iter_env_parse_tfp(env, "1,2", err, sizeof(err)),
		-1);
	ck_assert_int_eq(iter_env_parse_tfp(env,
		"0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0", err, sizeof(err)), -1);
	ck_assert_int_eq(env->tfp_count, 3);
	iter_env_delete(env);
	/* from a config */
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "test", text, strlen(text),
		err, sizeof(err)), 0);
	env = iter_env_create(cfg);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(env->tfp_count, 3);
	ck_assert_int_eq(env->tfp[0], -1);
	ck_assert_int_eq(env->tfp[1], 2);
	iter_env_delete(env);
	config_delete(cfg);
	/* a bad value: no environment */
	cfg = config_create();
	text = "server:\n\ttarget-fetch-policy: \"3 two\"\n";
	ck_assert_int_eq(config_read_mem(cfg, "test", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_ptr_null(iter_env_create(cfg));
	config_delete(cfg);
}
END_TEST

/** do-nat64: RFC 6052 2.2 embedding for each prefix length (its
 * examples, with 192.0.2.33), the port kept; IPv6 in the prefix judged
 * by the IPv4 address it embeds; IPv4 allowed without do-ip4 */
START_TEST(test_nat64)
{
	static const struct { const char *pfx, *want; } t[] = {
		{ "2001:db8::/32", "2001:db8:c000:221::" },
		{ "2001:db8:100::/40", "2001:db8:1c0:2:21::" },
		{ "2001:db8:122::/48", "2001:db8:122:c000:2:2100::" },
		{ "2001:db8:122:300::/56", "2001:db8:122:3c0:0:221::" },
		{ "2001:db8:122:344::/64", "2001:db8:122:344:c0:2:2100:0" },
		{ "2001:db8:122:344::/96", "2001:db8:122:344::c000:221" },
		{ NULL, NULL } };
	struct config_file *cfg;
	struct iter_env *env;
	struct netaddr v4, out, want;
	const char *why = NULL;
	char err[256], text[256], buf[NETADDR_STRLEN];
	int i;
	ck_assert_int_eq(netaddr_parse("192.0.2.33@5300", 53, &v4, &why), 0);
	for(i = 0; t[i].pfx; i++) {
		cfg = config_create();
		snprintf(text, sizeof(text), "server:\n\tdo-nat64: yes\n"
			"\tdo-ip4: no\n\tnat64-prefix: %s\n", t[i].pfx);
		ck_assert_int_eq(config_read_mem(cfg, "test", text,
			strlen(text), err, sizeof(err)), 0);
		env = iter_env_create(cfg);
		ck_assert_ptr_nonnull(env);
		ck_assert_int_eq(iter_nat64_addr(env, &v4, &out), 0);
		ck_assert_int_eq(netaddr_parse(t[i].want, 5300, &want, &why),
			0);
		ck_assert_msg(netaddr_cmp(&out, &want) == 0, "%s: got %s",
			t[i].pfx, netaddr_str(&out, -1, buf, sizeof(buf)));
		/* allowed: IPv4 (over NAT64), the embedded form */
		ck_assert_int_eq(iter_addr_allowed(env, &v4), 1);
		ck_assert_int_eq(iter_addr_family_ok(env, &v4), 1);
		ck_assert_int_eq(iter_addr_allowed(env, &out), 1);
		iter_env_delete(env);
		config_delete(cfg);
	}
	/* the default prefix (dns64-prefix's), and do-not-query-address
	 * judged on the IPv4 address, also inside the prefix */
	cfg = config_create();
	snprintf(text, sizeof(text), "server:\n\tdo-nat64: yes\n"
		"\tdo-not-query-address: 192.0.2.0/24\n"
		"\tdo-not-query-address: ::0/0\n");
	ck_assert_int_eq(config_read_mem(cfg, "test", text, strlen(text),
		err, sizeof(err)), 0);
	env = iter_env_create(cfg);
	ck_assert_ptr_nonnull(env);
	ck_assert_int_eq(iter_nat64_addr(env, &v4, &out), 0);
	ck_assert_int_eq(netaddr_parse("64:ff9b::c000:221", 5300, &want,
		&why), 0);
	ck_assert_int_eq(netaddr_cmp(&out, &want), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &v4), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &out), 0);
	ck_assert_int_eq(netaddr_parse("64:ff9b::102:304", 53, &want, &why),
		0);
	ck_assert_int_eq(iter_addr_allowed(env, &want), 1);
	ck_assert_int_eq(netaddr_parse("2001:db8::1", 53, &want, &why), 0);
	ck_assert_int_eq(iter_addr_allowed(env, &want), 0);
	ck_assert_int_eq(iter_nat64_addr(env, &want, &out), -1);
	iter_env_delete(env);
	config_delete(cfg);
}
END_TEST

/* ------------------------------------------------------------------ */
/* what the replies teach the infrastructure cache about EDNS          */

/** a query the fake network holds */
static struct {
	/** 1 while it waits for its answer */
	int used;
	/** its OUTBOUND_FLAG_ bits */
	int flags;
	/** whom to answer */
	outbound_cb_type cb;
	/** and its argument */
	void *arg;
} e_sent;
/** answers the fake client got */
static int e_replies;
/** the fake clock */
static struct timeval e_now;

static struct outbound_query *
e_send(void *ctx, const struct netaddr *to, const uint8_t *qname,
	size_t qname_len, uint16_t qtype, uint16_t qclass, int flags,
	const uint8_t *opts, size_t optlen, int timeout_ms, outbound_cb_type cb,
	void *cb_arg)
{
	(void)ctx; (void)to; (void)qname; (void)qname_len; (void)qtype;
	(void)qclass; (void)opts; (void)optlen; (void)timeout_ms;
	ck_assert_int_eq(e_sent.used, 0);
	e_sent.used = 1;
	e_sent.flags = flags;
	e_sent.cb = cb;
	e_sent.arg = cb_arg;
	return (struct outbound_query *)&e_sent;
}

static void
e_cancel(void *ctx, struct outbound_query *q)
{
	(void)ctx; (void)q;
	e_sent.used = 0;
}

static void *
e_timer_set(void *ctx, int ms, void (*fn)(void *), void *arg)
{
	(void)ctx; (void)ms; (void)fn; (void)arg;
	return NULL;
}

static void
e_timer_cancel(void *ctx, void *t)
{
	(void)ctx; (void)t;
}

static void
e_reply(void *arg, const struct resolver_handle *h, const uint8_t *pkt,
	size_t len)
{
	(void)arg; (void)h; (void)pkt; (void)len;
	e_replies++;
}

/** the resolver under test: the iterator forwarding "." to 192.0.2.1,
 * with an infrastructure cache */
static struct resolver *e_res;
static struct module_stack e_stack;
static struct config_file *e_cfg;
static struct petrel_random *e_rnd;
static struct infra_cache *e_infra;
static struct outbound e_out;

static void
e_setup(void)
{
	struct iter_env *ie;
	struct iter_zone *z;
	char err[256];
	memset(&e_sent, 0, sizeof(e_sent));
	e_replies = 0;
	e_now.tv_sec = 1000;
	e_now.tv_usec = 0;
	memset(&e_out, 0, sizeof(e_out));
	e_out.send = e_send;
	e_out.cancel = e_cancel;
	e_out.timer_set = e_timer_set;
	e_out.timer_cancel = e_timer_cancel;
	e_out.now = &e_now;
	e_cfg = config_create();
	ck_assert_ptr_nonnull(e_cfg);
	ck_assert_int_eq(modstack_setup(&e_stack, "iterator", NULL, NULL, err,
		sizeof(err)), 0);
	ie = iter_env_create_default();
	ck_assert_ptr_nonnull(ie);
	z = iter_env_add_zone(ie, ".", 1);
	ck_assert_int_eq(iter_zone_add_addr(z, "192.0.2.1"), 0);
	iter_env_delete(e_stack.modinfo[0]);
	e_stack.modinfo[0] = ie;
	e_rnd = random_create_seeded(1);
	e_infra = infra_create(1 << 20, 4, 900);
	ck_assert_ptr_nonnull(e_infra);
	e_res = resolver_create(e_cfg, &e_stack, &e_out, e_rnd, e_reply, NULL);
	ck_assert_ptr_nonnull(e_res);
	resolver_set_env(e_res, NULL, NULL, e_infra, NULL, NULL);
}

static void
e_teardown(void)
{
	resolver_delete(e_res);
	modstack_desetup(&e_stack);
	infra_delete(e_infra);
	config_delete(e_cfg);
	random_delete(e_rnd);
}

/** a client asks name A (RD) */
static void
e_client(const char *name)
{
	ldns_pkt *p = NULL;
	uint8_t *wire = NULL, buf[4096];
	size_t len = 0, outlen = 0;
	struct netaddr a;
	struct resolver_handle h;
	const char *why;
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 53, &a, &why), 0);
	memset(&h, 0, sizeof(h));
	ck_assert_int_eq(resolver_handle_query(e_res, wire, len, &a,
		RESOLVER_UDP, &h, buf, sizeof(buf), &outlen), RESOLVER_PENDING);
	free(wire);
}

/** the server answers the query in flight: rcode, with an A record
 * for NOERROR, with an OPT record when edns */
static void
e_answer(const char *name, ldns_pkt_rcode rcode, int edns)
{
	ldns_pkt *p = NULL;
	ldns_rr *rr = NULL;
	uint8_t *wire = NULL;
	size_t len = 0;
	char txt[300];
	ck_assert_int_eq(e_sent.used, 1);
	ck_assert_int_eq(ldns_pkt_query_new_frm_str(&p, name,
		LDNS_RR_TYPE_A, LDNS_RR_CLASS_IN, LDNS_RD), LDNS_STATUS_OK);
	ldns_pkt_set_qr(p, 1);
	ldns_pkt_set_ra(p, 1);
	ldns_pkt_set_rcode(p, rcode);
	if(rcode == LDNS_RCODE_NOERROR) {
		snprintf(txt, sizeof(txt), "%s 300 IN A 192.0.2.99", name);
		ck_assert_int_eq(ldns_rr_new_frm_str(&rr, txt, 300, NULL,
			NULL), LDNS_STATUS_OK);
		ldns_pkt_push_rr(p, LDNS_SECTION_ANSWER, rr);
	}
	if(edns)
		ldns_pkt_set_edns_udp_size(p, 1232);
	ck_assert_int_eq(ldns_pkt2wire(&wire, p, &len), LDNS_STATUS_OK);
	ldns_pkt_free(p);
	e_sent.used = 0;
	e_sent.cb(e_sent.arg, OUTBOUND_REPLY, wire, len, 5);
	free(wire);
}

/** what the cache knows of 192.0.2.1's EDNS */
static enum infra_edns
e_known(void)
{
	struct netaddr a;
	struct infra_host h;
	const char *why;
	ck_assert_int_eq(netaddr_parse("192.0.2.1", 53, &a, &why), 0);
	ck_assert_int_eq(infra_host_get(e_infra, &a, e_now.tv_sec, &h), 0);
	return h.edns;
}

START_TEST(test_edns_works)
{
	/* a reply to a query with EDNS: the server is known to do EDNS
	 * (Unbound's dump_infra says ednsknown 1 edns 0) */
	e_client("www.example.com.");
	ck_assert_int_eq(e_sent.used, 1);
	ck_assert_int_eq(e_sent.flags & OUTBOUND_FLAG_NOEDNS, 0);
	e_answer("www.example.com.", LDNS_RCODE_NOERROR, 1);
	ck_assert_int_eq(e_replies, 1);
	ck_assert_int_eq(e_known(), INFRA_EDNS_YES);
	/* so is a negative answer */
	e_client("nx.example.com.");
	e_answer("nx.example.com.", LDNS_RCODE_NXDOMAIN, 1);
	ck_assert_int_eq(e_replies, 2);
	ck_assert_int_eq(e_known(), INFRA_EDNS_YES);
}
END_TEST

START_TEST(test_edns_formerr)
{
	/* FORMERR to EDNS: asked again without; the answer to that does
	 * not make it an EDNS server: it stays known as one without */
	e_client("www.example.com.");
	e_answer("www.example.com.", LDNS_RCODE_FORMERR, 0);
	ck_assert_int_eq(e_known(), INFRA_EDNS_NO);
	ck_assert_int_eq(e_sent.used, 1);
	ck_assert_int_eq(e_sent.flags & OUTBOUND_FLAG_NOEDNS,
		OUTBOUND_FLAG_NOEDNS);
	e_answer("www.example.com.", LDNS_RCODE_NOERROR, 0);
	ck_assert_int_eq(e_replies, 1);
	ck_assert_int_eq(e_known(), INFRA_EDNS_NO);
}
END_TEST

/** the suite */
static Suite *
iterator_suite(void)
{
	Suite *s = suite_create("iterator");
	TCase *tc = tcase_create("env");
	tcase_add_test(tc, test_default_hints);
	tcase_add_test(tc, test_hints_file);
	tcase_add_test(tc, test_hints_file_garbage);
	tcase_add_test(tc, test_hints_per_class);
	tcase_add_test(tc, test_hints_meta_class);
	tcase_add_test(tc, test_find_zone);
	tcase_add_test(tc, test_zone_dp);
	tcase_add_test(tc, test_delegpt);
	tcase_add_test(tc, test_addr_filters);
	tcase_add_test(tc, test_from_config);
	tcase_add_test(tc, test_target_fetch_policy);
	tcase_add_test(tc, test_nat64);
	suite_add_tcase(s, tc);
	tc = tcase_create("edns");
	tcase_add_checked_fixture(tc, e_setup, e_teardown);
	tcase_add_test(tc, test_edns_works);
	tcase_add_test(tc, test_edns_formerr);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(iterator_suite());
	int failed;
	log_init(NULL, 0, NULL);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
