/*
 * tests/check_remote.c - the config changes of the control commands
 * (remote_cfg_change: local_zone, local_data, forward_add, stub_add,
 * set_option and their removals).
 */
#include "config.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "daemon/remote.h"
#include "daemon/remote_cfg.h"
#include "util/config_file.h"

static struct config_file *cfg;
static char err[512];

static void
setup(void)
{
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	err[0] = 0;
}

static void
teardown(void)
{
	config_delete(cfg);
	cfg = NULL;
}

static int
nzones(void)
{
	const struct config_localzone *z;
	int n = 0;
	for(z = cfg->local_zones; z; z = z->next)
		n++;
	return n;
}

static int
ndata(void)
{
	const struct config_strlist *s;
	int n = 0;
	for(s = cfg->local_data; s; s = s->next)
		n++;
	return n;
}

static int
nstubs(const struct config_stub *z)
{
	int n = 0;
	for(; z; z = z->next)
		n++;
	return n;
}

/* the request line: both protocol words (1 says Unbound's), spaces
 * around the command and the arguments cut, anything else refused */
START_TEST(test_parse_request)
{
	char l1[] = "PETREL1 local_zone  example.  static \t ";
	char l2[] = "  UBCT1\tstatus";
	char l3[] = "PETREL2 status", l4[] = "", l5[] = "petrel1 stop";
	char *cmd, *args;
	ck_assert_int_eq(remote_parse_request(l1, &cmd, &args), 0);
	ck_assert_str_eq(cmd, "local_zone");
	ck_assert_str_eq(args, "example.  static");
	ck_assert_int_eq(remote_parse_request(l2, &cmd, &args), 1);
	ck_assert_str_eq(cmd, "status");
	ck_assert_str_eq(args, "");
	ck_assert_int_eq(remote_parse_request(l3, &cmd, &args), -1);
	ck_assert_int_eq(remote_parse_request(l4, &cmd, &args), -1);
	ck_assert_int_eq(remote_parse_request(l5, &cmd, &args), -1);
}
END_TEST

START_TEST(test_local_zone)
{
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone",
		"blocked.example static", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 1);
	ck_assert_str_eq(cfg->local_zones->name, "blocked.example.");
	ck_assert_str_eq(cfg->local_zones->type, "static");
	/* the same name again replaces it */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone",
		"Blocked.Example. refuse", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 1);
	ck_assert_str_eq(cfg->local_zones->type, "refuse");
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone",
		"other.example transparent", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 2);
	/* errors leave the config as it was */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone", "x.example",
		err, sizeof(err)), -1);
	ck_assert(strstr(err, "local_zone name type") != NULL);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone",
		"x.example nosuchtype", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone", "a..b static",
		err, sizeof(err)), -1);
	ck_assert_int_eq(nzones(), 2);
	/* removal, any case, with or without the dot */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone_remove",
		"BLOCKED.example", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 1);
	ck_assert_str_eq(cfg->local_zones->name, "other.example.");
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zone_remove", "",
		err, sizeof(err)), -1);
}
END_TEST

START_TEST(test_local_data)
{
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"a.example. 300 IN A 192.0.2.1", err, sizeof(err)), 0);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"a.example. 300 IN AAAA 2001:db8::1", err, sizeof(err)), 0);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"b.example. A 192.0.2.2", err, sizeof(err)), 0);
	ck_assert_int_eq(ndata(), 3);
	/* checked as the config file checks it */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"c.example. A not-an-address", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"c.example. TXT \"it's\"", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data", "", err,
		sizeof(err)), -1);
	ck_assert_int_eq(ndata(), 3);
	/* TXT with double quotes */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data",
		"a.example. TXT \"hello world\"", err, sizeof(err)), 0);
	ck_assert_int_eq(ndata(), 4);
	/* every record of the owner goes, the others stay */
	ck_assert_int_eq(remote_cfg_change(cfg, "local_data_remove",
		"A.example", err, sizeof(err)), 0);
	ck_assert_int_eq(ndata(), 1);
	ck_assert(strncmp(cfg->local_data->str, "b.example.", 10) == 0);
}
END_TEST

/** the bulk commands (unbound-control local_zones etc.): each line as
 * its single command; a bad line is skipped, the others applied */
START_TEST(test_bulk)
{
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zones",
		"a.example. static\n\n  b.example. refuse  \nbad\n"
		"c.example always_nxdomain", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 3);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_datas",
		"www.a.example. A 192.0.2.1\nx.b.example. TXT \"two words\"\n"
		"not a record at all\n", err, sizeof(err)), 0);
	ck_assert_int_eq(ndata(), 2);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_datas_remove",
		"www.a.example.\nx.b.example.\n", err, sizeof(err)), 0);
	ck_assert_int_eq(ndata(), 0);
	ck_assert_int_eq(remote_cfg_change(cfg, "local_zones_remove",
		"a.example.\nc.example.\n", err, sizeof(err)), 0);
	ck_assert_int_eq(nzones(), 1);
	ck_assert_str_eq(cfg->local_zones->name, "b.example.");
}
END_TEST

/** Unbound's forward: the root forward zone set, replaced, or off */
START_TEST(test_forward_root)
{
	ck_assert_int_eq(remote_cfg_change(cfg, "forward",
		"192.0.2.1 192.0.2.2@5353", err, sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->forwards), 1);
	ck_assert_str_eq(cfg->forwards->name, ".");
	ck_assert_str_eq(cfg->forwards->addrs->next->str, "192.0.2.2@5353");
	ck_assert_int_eq(remote_cfg_change(cfg, "forward", "192.0.2.9", err,
		sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->forwards), 1);
	ck_assert_str_eq(cfg->forwards->addrs->str, "192.0.2.9");
	ck_assert_int_eq(remote_cfg_change(cfg, "forward", "not-an-address",
		err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward", "off", err,
		sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->forwards), 0);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward", "", err,
		sizeof(err)), -1);
}
END_TEST

START_TEST(test_forward)
{
	const struct config_stub *z;
	const struct config_addrlist *a;
	int n = 0;
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_add",
		"fwd.example 192.0.2.53 192.0.2.54@5353", err, sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->forwards), 1);
	z = cfg->forwards;
	ck_assert_str_eq(z->name, "fwd.example.");
	for(a = z->addrs; a; a = a->next)
		n++;
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(netaddr_port(&z->addrs->next->addr), 5353);
	/* Unbound's +i flag is accepted; the same zone is replaced */
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_add",
		"+i fwd.example. 192.0.2.99", err, sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->forwards), 1);
	ck_assert_ptr_null(cfg->forwards->addrs->next);
	/* the config's own file name is kept */
	ck_assert(strstr(cfg->filename, "petrel-control") == NULL);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_add",
		"bad.example 300.1.1.1", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_add", "noaddr.example",
		err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_add",
		"q\"uote.example 192.0.2.1", err, sizeof(err)), -1);
	ck_assert_int_eq(nstubs(cfg->forwards), 1);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_remove",
		"nothere.example", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_remove",
		"FWD.example", err, sizeof(err)), 0);
	ck_assert_ptr_null(cfg->forwards);
	/* a stub zone is not a forward zone */
	ck_assert_int_eq(remote_cfg_change(cfg, "stub_add",
		"stub.example 192.0.2.7", err, sizeof(err)), 0);
	ck_assert_int_eq(nstubs(cfg->stubs), 1);
	ck_assert_ptr_null(cfg->forwards);
	ck_assert_int_eq(remote_cfg_change(cfg, "forward_remove",
		"stub.example", err, sizeof(err)), -1);
	ck_assert_int_eq(remote_cfg_change(cfg, "stub_remove", "stub.example",
		err, sizeof(err)), 0);
	ck_assert_ptr_null(cfg->stubs);
}
END_TEST

START_TEST(test_set_option)
{
	ck_assert_int_eq(remote_cfg_change(cfg, "set_option",
		"cache-max-ttl: 100", err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->cache_max_ttl, 100);
	ck_assert_int_eq(remote_cfg_change(cfg, "set_option",
		"cache-max-ttl: lots", err, sizeof(err)), -1);
	ck_assert_int_eq(cfg->cache_max_ttl, 100);
	/* options a reload does not apply are refused */
	ck_assert_int_eq(remote_cfg_change(cfg, "set_option", "port: 5353",
		err, sizeof(err)), -1);
	ck_assert(strstr(err, "restart") != NULL);
	ck_assert_int_eq(cfg->port, 53);
	ck_assert_int_eq(remote_cfg_change(cfg, "set_option",
		"no-such-option: 1", err, sizeof(err)), -1);
	ck_assert(strstr(err, "unknown option") != NULL);
	ck_assert_int_eq(remote_cfg_change(cfg, "set_option",
		"cache-max-ttl 100", err, sizeof(err)), -1);
	/* not a config command */
	ck_assert_int_eq(remote_cfg_change(cfg, "status", "", err,
		sizeof(err)), 1);
}
END_TEST

static Suite *
remote_suite(void)
{
	Suite *s = suite_create("remote");
	TCase *tc = tcase_create("cfg_change");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse_request);
	tcase_add_test(tc, test_local_zone);
	tcase_add_test(tc, test_local_data);
	tcase_add_test(tc, test_forward);
	tcase_add_test(tc, test_bulk);
	tcase_add_test(tc, test_forward_root);
	tcase_add_test(tc, test_set_option);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(remote_suite());
	int nf;
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
