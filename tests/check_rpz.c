/*
 * tests/check_rpz.c - Check suite for services/rpz: the update API a zone
 * transfer feeds (rpz_zone_apply, rpz_zone_update), every trigger kind,
 * IPv4 and IPv6 netblock triggers, exact-before-wildcard, the overrides,
 * enable/disable, and the policy loader's errors (front/policy.c).
 */
#include "config.h"
#include "services/rpz.h"
#include "front/policy.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/region.h"
#include "services/module.h"
#include "util/log.h"
#include "dns/name.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** room for the records of a test zone */
struct rrbuf {
	/** owners */
	uint8_t owner[16][DNS_MAX_NAME];
	/** rdata */
	uint8_t rdata[16][DNS_MAX_NAME];
	/** the records */
	struct rpz_rr rr[16];
	/** how many */
	size_t n;
};

/** add a record: owner text, type, rdata as a name (CNAME) or 4 bytes */
static void
add(struct rrbuf *b, const char *owner, uint16_t type, const char *target,
	const uint8_t *a4)
{
	size_t ol = DNS_MAX_NAME, tl = DNS_MAX_NAME;
	struct rpz_rr *r = &b->rr[b->n];
	ck_assert_int_lt(b->n, 16);
	ck_assert_int_eq(dname_from_str(owner, b->owner[b->n], &ol), 0);
	if(target)
		ck_assert_int_eq(dname_from_str(target, b->rdata[b->n], &tl),
			0);
	else {
		memcpy(b->rdata[b->n], a4, 4);
		tl = 4;
	}
	r->owner = b->owner[b->n];
	r->type = type;
	r->rrclass = DNS_CLASS_IN;
	r->ttl = 60;
	r->rdata = b->rdata[b->n];
	r->rdlen = (uint16_t)tl;
	b->n++;
}

/** look a name up; @return the action or RPZ_ACTION_NONE */
static enum rpz_action
q(const struct rpz *z, const char *name, const char *client)
{
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d);
	struct netaddr a;
	struct rpz_match m;
	ck_assert_int_eq(dname_from_str(name, d, &dl), 0);
	dname_tolower(d);
	if(client)
		ck_assert_int_eq(netaddr_parse(client, 53, &a, NULL), 0);
	if(!rpz_lookup_query(z, d, client ? &a : NULL, &m))
		return RPZ_ACTION_NONE;
	return m.action;
}

/** look an address up in the RESPONSE-IP triggers */
static enum rpz_action
ip(const struct rpz *z, const char *addr)
{
	struct netaddr a;
	struct rpz_match m;
	size_t len;
	const uint8_t *b;
	ck_assert_int_eq(netaddr_parse(addr, 53, &a, NULL), 0);
	b = netaddr_bytes(&a, &len);
	if(!rpz_lookup_ip(z, b, len, &m))
		return RPZ_ACTION_NONE;
	return m.action;
}

/** look a name server name up in the NSDNAME triggers */
static enum rpz_action
nsd(const struct rpz *z, const char *name)
{
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d);
	struct rpz_match m;
	ck_assert_int_eq(dname_from_str(name, d, &dl), 0);
	if(!rpz_lookup_nsdname(z, d, &m))
		return RPZ_ACTION_NONE;
	ck_assert_int_eq(m.trigger, RPZ_TRIGGER_NSDNAME);
	return m.action;
}

/** look a name server address up in the NSIP triggers */
static enum rpz_action
nsip(const struct rpz *z, const char *addr)
{
	struct netaddr a;
	struct rpz_match m;
	size_t len;
	const uint8_t *b;
	ck_assert_int_eq(netaddr_parse(addr, 53, &a, NULL), 0);
	b = netaddr_bytes(&a, &len);
	if(!rpz_lookup_nsip(z, b, len, &m))
		return RPZ_ACTION_NONE;
	ck_assert_int_eq(m.trigger, RPZ_TRIGGER_NSIP);
	return m.action;
}

/** a zone rpz.test. */
static struct rpz *
mkzone(const struct rpz_settings *set)
{
	uint8_t o[DNS_MAX_NAME];
	size_t ol = sizeof(o);
	struct rpz *z;
	ck_assert_int_eq(dname_from_str("rpz.test.", o, &ol), 0);
	z = rpz_create(o, set);
	ck_assert_ptr_nonnull(z);
	return z;
}

START_TEST(test_triggers)
{
	static const uint8_t a[4] = { 192, 0, 2, 1 };
	struct rrbuf b;
	struct rpz *z = mkzone(NULL);
	char err[256];
	memset(&b, 0, sizeof(b));
	add(&b, "nx.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "*.wild.example.rpz.test.", DNS_TYPE_CNAME, "*.", NULL);
	add(&b, "ok.wild.example.rpz.test.", DNS_TYPE_CNAME, "rpz-passthru.",
		NULL);
	add(&b, "data.example.rpz.test.", DNS_TYPE_A, NULL, a);
	add(&b, "24.0.2.0.192.rpz-client-ip.rpz.test.", DNS_TYPE_CNAME,
		"rpz-drop.", NULL);
	add(&b, "32.1.0.51.198.rpz-client-ip.rpz.test.", DNS_TYPE_CNAME,
		"rpz-passthru.", NULL);
	add(&b, "16.0.0.51.198.rpz-client-ip.rpz.test.", DNS_TYPE_CNAME,
		"rpz-tcp-only.", NULL);
	add(&b, "32.7.113.0.203.rpz-ip.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "48.zz.1.db8.2001.rpz-ip.rpz.test.", DNS_TYPE_CNAME, "*.",
		NULL);
	add(&b, "128.1.zz.db8.2001.rpz-client-ip.rpz.test.", DNS_TYPE_CNAME,
		".", NULL);
	add(&b, "ns.bad.example.rpz-nsdname.rpz.test.", DNS_TYPE_CNAME, ".",
		NULL);
	add(&b, "*.worse.example.rpz-nsdname.rpz.test.", DNS_TYPE_CNAME, "*.",
		NULL);
	add(&b, "24.0.2.0.192.rpz-nsip.rpz.test.", DNS_TYPE_CNAME,
		"rpz-passthru.", NULL);
	add(&b, "outside.example.", DNS_TYPE_CNAME, ".", NULL);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	ck_assert_int_eq(q(z, "nx.example.", NULL), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(q(z, "NX.Example.", NULL), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(q(z, "a.nx.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "x.y.wild.example.", NULL), RPZ_ACTION_NODATA);
	ck_assert_int_eq(q(z, "wild.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "ok.wild.example.", NULL), RPZ_ACTION_PASSTHRU);
	ck_assert_int_eq(q(z, "data.example.", NULL), RPZ_ACTION_LOCAL_DATA);
	ck_assert_int_eq(q(z, "outside.example.", NULL), RPZ_ACTION_NONE);
	/* client IP first, longest prefix */
	ck_assert_int_eq(q(z, "data.example.", "192.0.2.77"),
		RPZ_ACTION_DROP);
	ck_assert_int_eq(q(z, "x.", "198.51.0.1"), RPZ_ACTION_PASSTHRU);
	ck_assert_int_eq(q(z, "x.", "198.51.9.9"), RPZ_ACTION_TCP_ONLY);
	ck_assert_int_eq(q(z, "x.", "198.52.0.1"), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "x.", "2001:db8::1"), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(q(z, "x.", "2001:db8::2"), RPZ_ACTION_NONE);
	/* response IP */
	ck_assert_int_eq(ip(z, "203.0.113.7"), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(ip(z, "203.0.113.8"), RPZ_ACTION_NONE);
	ck_assert_int_eq(ip(z, "2001:db8:1:ffff::1"), RPZ_ACTION_NODATA);
	ck_assert_int_eq(ip(z, "2001:db8:2::1"), RPZ_ACTION_NONE);
	ck_assert_uint_eq(rpz_count(z, RPZ_TRIGGER_QNAME), 4);
	ck_assert_uint_eq(rpz_count(z, RPZ_TRIGGER_CLIENT_IP), 4);
	ck_assert_uint_eq(rpz_count(z, RPZ_TRIGGER_RESPONSE_IP), 2);
	ck_assert_uint_eq(rpz_count(z, RPZ_TRIGGER_NSDNAME), 2);
	ck_assert_uint_eq(rpz_count(z, RPZ_TRIGGER_NSIP), 1);
	/* NSDNAME exact and wildcard, NSIP; they are not QNAME triggers */
	ck_assert_int_eq(nsd(z, "NS.bad.example."), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(nsd(z, "ns2.bad.example."), RPZ_ACTION_NONE);
	ck_assert_int_eq(nsd(z, "a.b.worse.example."), RPZ_ACTION_NODATA);
	ck_assert_int_eq(nsd(z, "worse.example."), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "ns.bad.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(nsip(z, "192.0.2.9"), RPZ_ACTION_PASSTHRU);
	ck_assert_int_eq(nsip(z, "192.0.3.9"), RPZ_ACTION_NONE);
	ck_assert_int_eq(ip(z, "192.0.2.9"), RPZ_ACTION_NONE);
	/* disabled: the caller checks; the switch is kept */
	rpz_set_enabled(z, 0);
	ck_assert_int_eq(rpz_is_enabled(z), 0);
	rpz_set_enabled(z, 1);
	ck_assert_int_eq(rpz_is_enabled(z), 1);
	rpz_delete(z);
}
END_TEST

/** collect local data */
static int
data_cb(void *arg, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen)
{
	int *n = arg;
	(void)rrclass; (void)ttl; (void)rdata;
	if(type == DNS_TYPE_A && rdlen == 4)
		(*n)++;
	return 0;
}

START_TEST(test_update)
{
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 };
	struct rrbuf b, del, ad;
	struct rpz *z = mkzone(NULL);
	struct rpz_match m;
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d);
	char err[256];
	int n = 0;
	memset(&b, 0, sizeof(b));
	memset(&del, 0, sizeof(del));
	memset(&ad, 0, sizeof(ad));
	add(&b, "one.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "two.example.rpz.test.", DNS_TYPE_A, NULL, a1);
	add(&b, "two.example.rpz.test.", DNS_TYPE_A, NULL, a2);
	add(&b, "three.example.rpz.test.", DNS_TYPE_CNAME, "rpz-drop.", NULL);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	/* an IXFR: one.example goes, one A of two.example goes, four
	 * comes */
	add(&del, "one.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&del, "two.example.rpz.test.", DNS_TYPE_A, NULL, a1);
	add(&ad, "four.example.rpz.test.", DNS_TYPE_CNAME, "*.", NULL);
	ck_assert_int_eq(rpz_zone_update(z, del.rr, del.n, ad.rr, ad.n, err,
		sizeof(err)), 0);
	ck_assert_int_eq(q(z, "one.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "three.example.", NULL), RPZ_ACTION_DROP);
	ck_assert_int_eq(q(z, "four.example.", NULL), RPZ_ACTION_NODATA);
	ck_assert_int_eq(dname_from_str("two.example.", d, &dl), 0);
	ck_assert_int_eq(rpz_lookup_query(z, d, NULL, &m), 1);
	ck_assert_int_eq(m.action, RPZ_ACTION_LOCAL_DATA);
	rpz_match_data(&m, data_cb, &n);
	ck_assert_int_eq(n, 1);
	/* a full replace */
	ck_assert_int_eq(rpz_zone_apply(z, ad.rr, ad.n, err, sizeof(err)), 0);
	ck_assert_int_eq(q(z, "three.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "four.example.", NULL), RPZ_ACTION_NODATA);
	rpz_delete(z);
}
END_TEST

/** rpz_match_data callback: the last octets of the A records, in order */
static int
order_cb(void *arg, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen)
{
	char *o = arg;
	(void)rrclass; (void)ttl;
	if(type == DNS_TYPE_A && rdlen == 4)
		o[strlen(o)] = (char)('0' + rdata[3]);
	return 0;
}

/* the local data of a name are listed newest first (as Unbound answers
 * them), and an IXFR that rebuilds the rules keeps that order */
START_TEST(test_data_order)
{
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 },
		a3[4] = { 192, 0, 2, 3 };
	struct rrbuf b, del, ad;
	struct rpz *z = mkzone(NULL);
	struct rpz_match m;
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d);
	char err[256], o[8];
	memset(&b, 0, sizeof(b));
	memset(&del, 0, sizeof(del));
	memset(&ad, 0, sizeof(ad));
	add(&b, "two.example.rpz.test.", DNS_TYPE_A, NULL, a1);
	add(&b, "two.example.rpz.test.", DNS_TYPE_A, NULL, a2);
	add(&b, "one.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	ck_assert_int_eq(dname_from_str("two.example.", d, &dl), 0);
	ck_assert_int_eq(rpz_lookup_query(z, d, NULL, &m), 1);
	memset(o, 0, sizeof(o));
	rpz_match_data(&m, order_cb, o);
	ck_assert_str_eq(o, "21");
	/* an IXFR elsewhere rebuilds the rules: the order stays; one
	 * added to the name comes first */
	add(&del, "one.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&ad, "two.example.rpz.test.", DNS_TYPE_A, NULL, a3);
	ck_assert_int_eq(rpz_zone_update(z, del.rr, del.n, ad.rr, ad.n, err,
		sizeof(err)), 0);
	ck_assert_int_eq(rpz_lookup_query(z, d, NULL, &m), 1);
	memset(o, 0, sizeof(o));
	rpz_match_data(&m, order_cb, o);
	ck_assert_str_eq(o, "321");
	rpz_delete(z);
}
END_TEST

START_TEST(test_override)
{
	struct rrbuf b;
	struct rpz_settings set;
	struct rpz *z;
	char err[256];
	memset(&set, 0, sizeof(set));
	set.action_override = RPZ_ACTION_NODATA;
	z = mkzone(&set);
	memset(&b, 0, sizeof(b));
	add(&b, "nx.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	ck_assert_int_eq(q(z, "nx.example.", NULL), RPZ_ACTION_NODATA);
	rpz_delete(z);
	ck_assert_int_eq(rpz_action_from_str("passthru"), RPZ_ACTION_PASSTHRU);
	ck_assert_int_eq(rpz_action_from_str("tcp-only"), RPZ_ACTION_TCP_ONLY);
	ck_assert_int_eq(rpz_action_from_str("local-data"), -1);
	ck_assert_int_eq(rpz_action_from_str("bogus"), -1);
}
END_TEST

/** load a config text and build its policy; @return the error or "" */
static const char *
load(const char *text, char *err, size_t errlen)
{
	struct config_file *cfg = config_create();
	struct policy *p = NULL;
	err[0] = 0;
	ck_assert_ptr_nonnull(cfg);
	if(config_read_mem(cfg, "t.conf", text, strlen(text), err, errlen)
		== 0 && policy_apply_cfg(&p, cfg, err, errlen) == 0)
		err[0] = 0;
	policy_delete(p);
	config_delete(cfg);
	return err;
}

/** a config without module-config (NULL) means the default list, and
 * the response-ip check names that one (util/config_options.h's
 * CONFIG_MODULE_DEFAULT, as the option and the module stack do) */
START_TEST(test_respip_default_modules)
{
	static const char text[] = "server:\n\tresponse-ip: 10.0.0.0/8 "
		"always_refuse\n";
	struct config_file *cfg = config_create();
	struct policy *p = NULL;
	char err[512];
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	free(cfg->module_config);
	cfg->module_config = NULL;
	ck_assert_int_eq(policy_apply_cfg(&p, cfg, err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.conf:2: response-ip: needs the respip "
		"module: module-config: \"respip validator iterator\"");
	policy_delete(p);
	config_delete(cfg);
}
END_TEST

START_TEST(test_load_errors)
{
	char err[512];
	ck_assert_str_eq(load("server:\n\tport: 53\n", err, sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tzonefile: /nonexistent\n", err,
		sizeof(err)), "t.conf:1: rpz: expected a name: line");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n", err, sizeof(err)),
		"t.conf:1: rpz 'x.': expected a zonefile:, a primary: or a url: "
		"line");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tzonefile: /nonexistent/z\n",
		err, sizeof(err)), "t.conf:3: rpz 'x.': /nonexistent/z: cannot "
		"open: No such file or directory");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tprimary: 192.0.2.1\n",
		err, sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tmaster: 192.0.2.1@5353\n"
		"\tallow-notify: 192.0.2.0/24\n\tzonefile: /nonexistent-pz\n",
		err, sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tprimary: 192.0.2.1 k9\n",
		err, sizeof(err)), "t.conf:3: primary: no tsig-key: named 'k9'");
	ck_assert_str_eq(load("tsig-key:\n\tname: k9\n\talgorithm: "
		"hmac-sha256\n\tsecret: \"cGV0cmVsLXRlc3Qta2V5\"\nrpz:\n\t"
		"name: x.\n\tprimary: 192.0.2.1 k9\n", err, sizeof(err)), "");
	(void)load("rpz:\n\tname: x.\n\tprimary: 192.0.2.300\n", err,
		sizeof(err));
	ck_assert_int_eq(strncmp(err, "t.conf:3: primary: bad address "
		"'192.0.2.300'", 40), 0);
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tallow-notify: "
		"192.0.2.1\n\tzonefile: /nonexistent/z\n", err, sizeof(err)),
		"t.conf:1: rpz 'x.': allow-notify: without a primary:");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\turl: http://a/z\n", err,
		sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\turl: https://a:8443/z\n"
		"\tprimary: 192.0.2.1\n\tzonefile: /nonexistent-pz\n", err,
		sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\turl: ftp://a/z\n", err,
		sizeof(err)), "t.conf:3: url: expected http:// or https://");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\turl: http://a/z\n"
		"\tallow-notify: 192.0.2.1\n", err, sizeof(err)),
		"t.conf:1: rpz 'x.': allow-notify: without a primary:");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tprimary: 192.0.2.1\n"
		"\tfor-downstream: yes\n", err, sizeof(err)), "");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\tfor-downstream: maybe\n",
		err, sizeof(err)), "t.conf:3: for-downstream: expected yes or "
		"no");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\trpz-action-override: "
		"block\n", err, sizeof(err)), "t.conf:3: rpz-action-override: "
		"expected nxdomain, nodata, passthru, drop, tcp-only, cname or "
		"disabled");
	ck_assert_str_eq(load("rpz:\n\tname: x.\n\trpz-log: maybe\n", err,
		sizeof(err)), "t.conf:3: rpz-log: expected yes or no");
	ck_assert_str_eq(load("view:\n\tlocal-zone: a. static\n", err,
		sizeof(err)), "t.conf:1: view: expected a name: line");
	ck_assert_str_eq(load("view:\n\tname: v\n\tlocal-zone: a. bogus\n",
		err, sizeof(err)), "t.conf:3: view 'v': local-zone: bad "
		"local-zone type 'bogus' for a.");
	ck_assert_str_eq(load("view:\n\tname: v\nview:\n\tname: v\n", err,
		sizeof(err)), "t.conf:4: view 'v' is defined twice");
	ck_assert_str_eq(load("server:\n\taccess-control-view: 10.0.0.0/8 "
		"nope\nview:\n\tname: v\n", err, sizeof(err)), "t.conf:2: "
		"access-control-view: no view: clause named 'nope'");
	ck_assert_str_eq(load("server:\n\taccess-control-view: 10.0.0.1/8 "
		"v\nview:\n\tname: v\n", err, sizeof(err)), "t.conf:2: "
		"access-control-view: bad netblock '10.0.0.1/8': address has "
		"bits set past the prefix length");
	ck_assert_str_eq(load("server:\n\tinterface-view: 127.0.0.1\n", err,
		sizeof(err)), "t.conf:2: interface-view: expected <ip> <view>");
	/* tags */
	ck_assert_str_eq(load("server:\n\tdefine-tag: \"a b\"\n\t"
		"access-control-tag: 10.0.0.0/8 \"a c\"\n", err, sizeof(err)),
		"t.conf:3: access-control-tag: unknown tag 'c' (not in a "
		"define-tag:, or past the first 64 tags)");
	ck_assert_str_eq(load("server:\n\tdefine-tag: \"a b\"\n\t"
		"access-control-tag-action: 10.0.0.0/8 a bogus\n", err,
		sizeof(err)), "t.conf:3: access-control-tag-action: bad action "
		"'bogus' (a local-zone type)");
	ck_assert_str_eq(load("server:\n\tdefine-tag: \"a b\"\n\t"
		"interface-tag-action: 127.0.0.1 z refuse\n", err,
		sizeof(err)), "t.conf:3: interface-tag-action: unknown tag 'z' "
		"(not in a define-tag:)");
	(void)load("server:\n\tdefine-tag: \"a\"\n\t"
		"access-control-tag-data: 10.0.0.0/8 a \"A 1.2.3\"\n", err,
		sizeof(err));
	ck_assert_int_eq(strncmp(err, "t.conf:3: access-control-tag-data: ",
		35), 0);
	ck_assert_str_eq(load("server:\n\tdefine-tag: \"a\"\n\t"
		"access-control-tag: 10.0.0.1/8 a\n", err, sizeof(err)), "");
	ck_assert_str_eq(load("server:\n\tdefine-tag: \"a\"\n"
		"rpz:\n\tname: x.\n\ttags: \"a b\"\n", err, sizeof(err)),
		"t.conf:5: tags: unknown tag 'b' (not in a define-tag:, or past "
		"the first 64 tags)");
	ck_assert_str_eq(load("view:\n\tname: v\n\tresponse-ip: 10.0.0.0/8 "
		"always_refuse\n", err, sizeof(err)), "t.conf:3: response-ip: "
		"needs the respip module: module-config: \"respip validator "
		"iterator\"");
	ck_assert_str_eq(load("server:\n\tmodule-config: \"respip "
		"iterator\"\n\tresponse-ip: 10.0.0.0/8 always_refuse\n", err,
		sizeof(err)), "");
	ck_assert_str_eq(load("server:\n\tmodule-config: \"respip "
		"iterator\"\n\tresponse-ip: 10.0.0.0/8 static\n", err,
		sizeof(err)), "t.conf:3: response-ip: bad action 'static' "
		"(deny, redirect, inform, inform_deny, inform_redirect, "
		"always_transparent, always_refuse, always_nxdomain, "
		"always_nodata or always_deny)");
	ck_assert_str_eq(load("server:\n\tmodule-config: \"respip "
		"iterator\"\n\tresponse-ip-data: 10.0.0.1/8 \"A 1.2.3.4\"\n",
		err, sizeof(err)), "t.conf:3: response-ip-data: bad netblock "
		"'10.0.0.1/8': address has bits set past the prefix length");
}
END_TEST

/* wildcards by closest encloser (RFC 4592 3.3.1, as Unbound): *.a stands
 * only for names whose child of a.example does not exist in the zone;
 * and a name's first record decides its action */
/** policy_respip_sub() on an answer of one A record to www.example. A
 * @return its result; *out set as it leaves it */
static int
respip_sub_one(const struct policy *p, struct module_qstate *qs,
	uint16_t qtype, const uint8_t v4[4], struct mesh_answer **out)
{
	uint8_t name[DNS_MAX_NAME];
	size_t len = sizeof(name);
	struct mesh_answer ans;
	struct module_rr *rr;
	ck_assert_int_eq(dname_from_str("www.example.", name, &len), 0);
	memset(&ans, 0, sizeof(ans));
	ans.rcode = DNS_RCODE_NOERROR;
	ans.ede = -1;
	rr = module_rr_new(qs->region, name, len, DNS_TYPE_A, DNS_CLASS_IN,
		300, v4, 4);
	ck_assert_ptr_nonnull(rr);
	module_rrlist_append(&ans.an, rr);
	return policy_respip_sub((void *)p, qs, name, qtype, &ans, out);
}

/* response-ip on a module's sub-query answer (dns64's A lookup): the
 * server: lines with their own action; a netblock with tags only (no
 * client, so no tag) leaves the answer alone */
START_TEST(test_respip_sub)
{
	static const char *text = "server:\n"
		"\tmodule-config: \"respip dns64 iterator\"\n"
		"\tdefine-tag: \"k\"\n"
		"\tresponse-ip: 192.0.2.1/32 redirect\n"
		"\tresponse-ip-data: 192.0.2.1/32 \"A 198.51.100.1\"\n"
		"\tresponse-ip: 192.0.2.2/32 always_nxdomain\n"
		"\tresponse-ip: 192.0.2.3/32 always_deny\n"
		"\tresponse-ip-tag: 192.0.2.4/32 \"k\"\n";
	static const uint8_t a1[4] = { 192, 0, 2, 1 }, a2[4] = { 192, 0, 2, 2 },
		a3[4] = { 192, 0, 2, 3 }, a4[4] = { 192, 0, 2, 4 },
		a9[4] = { 192, 0, 2, 9 }, redir[4] = { 198, 51, 100, 1 };
	struct config_file *cfg = config_create();
	struct policy *p = NULL;
	struct module_qstate qs;
	struct mesh_answer *out;
	char err[256];
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), 0);
	ck_assert_int_eq(policy_apply_cfg(&p, cfg, err, sizeof(err)), 0);
	ck_assert_ptr_nonnull(p);
	memset(&qs, 0, sizeof(qs));
	qs.region = region_create(4096);
	ck_assert_ptr_nonnull(qs.region);
	qs.qclass = DNS_CLASS_IN;
	/* redirect: the data's address, owned by the record's name */
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_A, a1, &out), 1);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(out->rcode, DNS_RCODE_NOERROR);
	ck_assert_int_eq((int)out->an.count, 1);
	ck_assert_int_eq(out->an.first->type, DNS_TYPE_A);
	ck_assert_int_eq(out->an.first->rdlen, 4);
	ck_assert_int_eq(memcmp(out->an.first->rdata, redir, 4), 0);
	ck_assert_int_eq(dname_equal(out->an.first->owner,
		(const uint8_t *)"\003www\007example"), 1);
	/* always_nxdomain: NXDOMAIN without the records */
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_A, a2, &out), 1);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(out->rcode, DNS_RCODE_NXDOMAIN);
	ck_assert_int_eq((int)out->an.count, 0);
	/* a deny kind: dropped */
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_A, a3, &out), 1);
	ck_assert_ptr_null(out);
	/* tags only, no rule, or a question that is not A or AAAA: as is */
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_A, a4, &out), 0);
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_A, a9, &out), 0);
	ck_assert_int_eq(respip_sub_one(p, &qs, DNS_TYPE_TXT, a1, &out), 0);
	region_destroy(qs.region);
	policy_delete(p);
	config_delete(cfg);
}
END_TEST

START_TEST(test_wildcard_encloser)
{
	struct rrbuf b;
	struct rpz *z = mkzone(NULL);
	char err[256];
	memset(&b, 0, sizeof(b));
	add(&b, "*.a.example.rpz.test.", DNS_TYPE_CNAME, "*.", NULL);
	add(&b, "b.a.example.rpz.test.", DNS_TYPE_CNAME, "rpz-passthru.",
		NULL);
	add(&b, "c.d.a.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "dup.example.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "dup.example.rpz.test.", DNS_TYPE_CNAME, "*.", NULL);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	ck_assert_int_eq(q(z, "x.a.example.", NULL), RPZ_ACTION_NODATA);
	ck_assert_int_eq(q(z, "x.y.a.example.", NULL), RPZ_ACTION_NODATA);
	ck_assert_int_eq(q(z, "b.a.example.", NULL), RPZ_ACTION_PASSTHRU);
	/* below a name the zone has, or below an empty non-terminal */
	ck_assert_int_eq(q(z, "x.b.a.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "x.d.a.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "y.c.d.a.example.", NULL), RPZ_ACTION_NONE);
	ck_assert_int_eq(q(z, "c.d.a.example.", NULL), RPZ_ACTION_NXDOMAIN);
	/* the empty non-terminal itself: the wildcard (Unbound's order) */
	ck_assert_int_eq(q(z, "d.a.example.", NULL), RPZ_ACTION_NODATA);
	/* the first record of dup.example: NXDOMAIN, not NODATA */
	ck_assert_int_eq(q(z, "dup.example.", NULL), RPZ_ACTION_NXDOMAIN);
	rpz_delete(z);
}
END_TEST

/* "*." at the zone's apex is a wildcard at the root: it stands for
 * every name, except those under a top label the zone has (as Unbound,
 * rpz_rootwc.rpl) */
START_TEST(test_root_wildcard)
{
	struct rrbuf b;
	struct rpz *z = mkzone(NULL);
	char err[256];
	static const uint8_t a4[4] = { 192, 0, 2, 1 };
	memset(&b, 0, sizeof(b));
	add(&b, "*.rpz.test.", DNS_TYPE_CNAME, ".", NULL);
	add(&b, "a.rpz.test.", DNS_TYPE_CNAME, "*.", NULL);
	add(&b, "*.a.rpz.test.", DNS_TYPE_A, NULL, a4);
	ck_assert_int_eq(rpz_zone_apply(z, b.rr, b.n, err, sizeof(err)), 0);
	ck_assert_int_eq(q(z, "x.", NULL), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(q(z, "y.tld.", NULL), RPZ_ACTION_NXDOMAIN);
	ck_assert_int_eq(q(z, "a.", NULL), RPZ_ACTION_NODATA);
	ck_assert_int_eq(q(z, "b.a.", NULL), RPZ_ACTION_LOCAL_DATA);
	/* the root itself is no name under the root */
	ck_assert_int_eq(q(z, ".", NULL), RPZ_ACTION_NONE);
	rpz_delete(z);
}
END_TEST

static Suite *
rpz_suite(void)
{
	Suite *s = suite_create("rpz");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_triggers);
	tcase_add_test(tc, test_update);
	tcase_add_test(tc, test_data_order);
	tcase_add_test(tc, test_override);
	tcase_add_test(tc, test_wildcard_encloser);
	tcase_add_test(tc, test_root_wildcard);
	tcase_add_test(tc, test_load_errors);
	tcase_add_test(tc, test_respip_default_modules);
	tcase_add_test(tc, test_respip_sub);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(rpz_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
