/*
 * tests/check_config.c - Check suite for the config parser, the option
 * table, the generated documents and petrel-checkconf.
 *
 * The good and bad configs live in testdata/conf/. Every bad-NAME.conf has
 * a bad-NAME.err beside it with the exact error line the load must give
 * (paths as seen from testdata/conf/, where the test runs).
 */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "front/modstack.h"
#include "util/config_auth.h"
#include "util/config_doc.h"
#include "util/log.h"
#include <check.h>
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef CONFIG_TOP_SRCDIR
#define CONFIG_TOP_SRCDIR "."
#endif
#ifndef CONFIG_TOP_BUILDDIR
#define CONFIG_TOP_BUILDDIR "."
#endif
/** the folder with the test configs */
#define CONFDIR CONFIG_TOP_SRCDIR "/testdata/conf"

/** a log capture buffer for warnings */
static char logbuf[65536];

/** read a whole file into a malloced string, or NULL */
static char *
slurp(const char *fn)
{
	FILE *f = fopen(fn, "r");
	char *buf;
	long n;
	if(!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	if(!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		fclose(f);
		return NULL;
	}
	buf[n] = 0;
	fclose(f);
	return buf;
}

/** Print every option of a config, one "name=value" per line, into a
 * malloced string: a fingerprint to compare whole configs with. */
static char *
dump(const struct config_file *cfg)
{
	size_t i, cap = 1 << 20, used = 0;
	char *out = malloc(cap), val[65536];
	ck_assert_ptr_nonnull(out);
	out[0] = 0;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = config_option_at(i);
		ck_assert_int_eq(config_get_option_str(cfg, o->name, val,
			sizeof(val)), 0);
		used += (size_t)snprintf(out + used, cap - used, "%s=%s\n",
			o->name, val);
		ck_assert_uint_lt(used, cap);
	}
	return out;
}

/** get an option's value as a static string */
static const char *
get(const struct config_file *cfg, const char *name)
{
	static char buf[4096];
	ck_assert_int_eq(config_get_option_str(cfg, name, buf, sizeof(buf)),
		0);
	return buf;
}

/** load a file from testdata/conf (relative name), expect success */
static struct config_file *
load_good(const char *name)
{
	char err[1024];
	struct config_file *cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(chdir(CONFDIR), 0);
	if(config_read(cfg, name, err, sizeof(err)) != 0)
		ck_abort_msg("%s did not load: %s", name, err);
	return cfg;
}

/** count occurrences of a string */
static int
count_str(const char *hay, const char *needle)
{
	int n = 0;
	const char *p = hay;
	while((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

START_TEST(test_defaults)
{
	struct config_file *cfg = config_create();
	const struct config_strlist *l;
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(cfg->port, 53);
	ck_assert_int_eq(cfg->num_threads, 1);
	ck_assert_int_eq(cfg->outgoing_range, 4096);
	ck_assert_int_eq(cfg->num_queries_per_thread, 1024);
	ck_assert_uint_eq(cfg->msg_cache_size, 4 * 1024 * 1024);
	ck_assert_uint_eq(cfg->rrset_cache_size, 4 * 1024 * 1024);
	ck_assert_int_eq(cfg->msg_cache_slabs, 4);
	ck_assert_int_eq(cfg->rrset_cache_slabs, 4);
	ck_assert_int_eq(cfg->cache_max_ttl, 86400);
	ck_assert_int_eq(cfg->cache_max_negative_ttl, 3600);
	ck_assert_int_eq(cfg->cache_min_ttl, 0);
	ck_assert_int_eq(cfg->infra_host_ttl, 900);
	ck_assert_int_eq(cfg->edns_buffer_size, 1232);
	ck_assert_int_eq(cfg->max_udp_size, 1232);
	ck_assert_int_eq(cfg->tcp_idle_timeout, 30000);
	ck_assert_int_eq(cfg->incoming_num_tcp, 10);
	ck_assert_int_eq(cfg->outgoing_num_tcp, 10);
	ck_assert_int_eq(cfg->jostle_timeout, 200);
	/* Unbound 1.22's defaults */
	ck_assert_int_eq(cfg->serve_expired_ttl, 86400);
	ck_assert_int_eq(cfg->serve_expired_reply_ttl, 30);
	ck_assert_int_eq(cfg->serve_expired_client_timeout, 1800);
	ck_assert_int_eq(cfg->cache_min_negative_ttl, 0);
	ck_assert_int_eq(cfg->infra_cache_slabs, 4);
	ck_assert_int_eq(cfg->unblock_lan_zones, 0);
	ck_assert_int_eq(cfg->log_time_iso, 0);
	ck_assert_int_eq(cfg->qname_minimisation, 1);
	ck_assert_int_eq(cfg->harden_glue, 1);
	/* Unbound's default: answers without authority/additional padding */
	ck_assert_int_eq(cfg->minimal_responses, 1);
	ck_assert_int_eq(cfg->do_not_query_localhost, 1);
	ck_assert_int_eq(cfg->do_ip4, 1);
	ck_assert_int_eq(cfg->do_ip6, 1);
	ck_assert_int_eq(cfg->do_udp, 1);
	ck_assert_int_eq(cfg->do_tcp, 1);
	ck_assert_int_eq(cfg->do_daemonize, 1);
	ck_assert_int_eq(cfg->verbosity, 1);
	ck_assert_int_eq(cfg->prefetch, 0);
	ck_assert_int_eq(cfg->control_enable, 0);
	ck_assert_int_eq(cfg->control_port, 8953);
	ck_assert_int_eq(cfg->control_use_cert, 1);
	ck_assert_str_eq(cfg->username, PETREL_USERNAME);
	ck_assert_str_eq(cfg->chroot, "");
	ck_assert_str_eq(cfg->directory, "");
	ck_assert_str_eq(cfg->pidfile, "");
	ck_assert_str_eq(cfg->http_metrics_interface, "");
	ck_assert_str_eq(cfg->server_key_file, "/etc/petrel/petrel_server.key");
	ck_assert_ptr_null(cfg->interfaces);
	ck_assert_ptr_null(cfg->acls);
	ck_assert_ptr_null(cfg->forwards);
#if defined(HAVE_SOLARIS_THREADS)
	ck_assert_int_eq(cfg->thread_model, THREAD_MODEL_SOLARIS);
#elif defined(HAVE_PTHREAD)
	ck_assert_int_eq(cfg->thread_model, THREAD_MODEL_PTHREADS);
#else
	ck_assert_int_eq(cfg->thread_model, THREAD_MODEL_FORK);
#endif
#ifdef HAVE_LIBEVENT
	ck_assert_int_eq(cfg->event_backend, EVENT_BACKEND_LIBEVENT);
#else
	ck_assert_int_eq(cfg->event_backend, EVENT_BACKEND_SELECT);
#endif
	l = config_interfaces(cfg);
	ck_assert_str_eq(l->str, "127.0.0.1");
	ck_assert_str_eq(l->next->str, "::1");
	ck_assert_ptr_null(l->next->next);
	ck_assert_str_eq(config_control_interfaces(cfg)->str, "127.0.0.1");
	ck_assert_str_eq(config_default_file(), "/etc/petrel/petrel.conf");
	config_delete(cfg);
}
END_TEST

/** an expected error text with "@MODULES@" replaced by the modules
 * this build has (module_list_str(): a build may leave an optional
 * module out). @return the text (malloced; the argument freed) */
static char *
modules_subst(char *want)
{
	char have[256], *at = strstr(want, "@MODULES@"), *r;
	size_t l;
	if(!at)
		return want;
	module_list_str(have, sizeof(have));
	l = strlen(want) - 9 + strlen(have) + 1;
	r = malloc(l);
	ck_assert_ptr_nonnull(r);
	snprintf(r, l, "%.*s%s%s", (int)(at - want), want, have, at + 9);
	free(want);
	return r;
}

/** every bad-*.conf fails with exactly its .err text (@MODULES@: the
 * modules this build has), and leaves the config as it was */
START_TEST(test_bad_configs)
{
	DIR *d;
	struct dirent *e;
	int n = 0;
	ck_assert_int_eq(chdir(CONFDIR), 0);
	d = opendir(".");
	ck_assert_ptr_nonnull(d);
	while((e = readdir(d)) != NULL) {
		char errname[512], err[1024], *want, *before, *after;
		size_t l = strlen(e->d_name);
		struct config_file *cfg;
		if(strncmp(e->d_name, "bad-", 4) != 0 || l < 6 ||
			strcmp(e->d_name + l - 5, ".conf") != 0)
			continue;
		snprintf(errname, sizeof(errname), "%.*s.err", (int)(l - 5),
			e->d_name);
		want = NULL;
#ifndef HAVE_NGHTTP2
		/* a build without nghttp2 refuses DoH settings first */
		snprintf(errname, sizeof(errname), "%.*s.err-without-nghttp2",
			(int)(l - 5), e->d_name);
		want = slurp(errname);
		snprintf(errname, sizeof(errname), "%.*s.err", (int)(l - 5),
			e->d_name);
#endif
		if(!want)
			want = slurp(errname);
		ck_assert_msg(want != NULL, "missing %s", errname);
		want = modules_subst(want);
		while(want[0] && want[strlen(want)-1] == '\n')
			want[strlen(want)-1] = 0;
		cfg = config_create();
		ck_assert_ptr_nonnull(cfg);
		/* something set before, that the failed load must keep */
		ck_assert_int_eq(config_set_option(cfg, "port", "1234", err,
			sizeof(err)), 0);
		ck_assert_int_eq(config_set_option(cfg, "interface",
			"127.0.0.9", err, sizeof(err)), 0);
		before = dump(cfg);
		log_capture(logbuf, sizeof(logbuf));
		ck_assert_msg(config_read(cfg, e->d_name, err, sizeof(err))
			== -1, "%s loaded", e->d_name);
		log_capture(NULL, 0);
		ck_assert_msg(strcmp(err, want) == 0,
			"%s: got '%s', want '%s'", e->d_name, err, want);
		after = dump(cfg);
		ck_assert_msg(strcmp(before, after) == 0,
			"%s: config changed by a failed load", e->d_name);
		ck_assert_int_eq(cfg->port, 1234);
		free(before);
		free(after);
		free(want);
		config_delete(cfg);
		n++;
	}
	closedir(d);
	ck_assert_int_ge(n, 40);
}
END_TEST

/** read text as the file "t.conf"; @return its load result, err set */
static int
read_text(struct config_file *cfg, const char *text, char *err,
	size_t errlen)
{
	return config_read_mem(cfg, "t.conf", text, strlen(text), err,
		errlen);
}

/** the dnstap: clause: its options land in the config; a collector is
 * needed; TLS to dnstap-ip (the default) loads, its files must be
 * readable (the error names their line) and a client certificate needs
 * key and chain; a build without dnstap refuses to turn it on, naming
 * the dnstap-enable line */
START_TEST(test_dnstap_clause)
{
	struct config_file *cfg = config_create();
	char err[512];
	ck_assert_ptr_nonnull(cfg);
	/* off: loads in every build, values kept */
	ck_assert_int_eq(read_text(cfg, "server:\n  port: 5300\n"
		"dnstap:\n  dnstap-socket-path: /tmp/x.sock\n"
		"  dnstap-log-client-query-messages: yes\n"
		"  dnstap-sample-rate: 3\n"
		"  dnstap-bidirectional: yes\n"
		"server:\n  port: 5301\n", err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->port, 5301);
	ck_assert_int_eq(cfg->dnstap_enable, 0);
	ck_assert_str_eq(cfg->dnstap_socket_path, "/tmp/x.sock");
	ck_assert_int_eq(cfg->dnstap_log_client_query, 1);
	ck_assert_int_eq(cfg->dnstap_log_client_response, 0);
	ck_assert_int_eq(cfg->dnstap_sample_rate, 3);
	ck_assert_int_eq(cfg->dnstap_tls, 1);
	/* a dnstap option in server: names its clause */
	ck_assert_int_eq(read_text(cfg, "server:\n  dnstap-enable: yes\n",
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "t.conf:2: dnstap-enable: not a server: "
		"option (it belongs in dnstap:)");
	config_delete(cfg);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
#ifdef USE_DNSTAP
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-log-client-query-messages: yes\n", err,
		sizeof(err)), -1);
	ck_assert_str_eq(err, "t.conf:2: dnstap-enable: needs "
		"dnstap-socket-path or dnstap-ip, the collector to write to");
	/* dnstap-ip without a dnstap-tls line: TLS (Unbound's default) */
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n", err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->dnstap_tls, 1);
	ck_assert_int_eq(cfg->num_warnings, 0);
	config_delete(cfg);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	/* the TLS options are real ones (no warning), files checked */
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n"
		"  dnstap-tls-server-name: collector.test\n"
		"  dnstap-tls-cert-bundle: /dev/null\n"
		"  dnstap-tls-client-key-file: /dev/null\n"
		"  dnstap-tls-client-cert-file: /dev/null\n", err,
		sizeof(err)), 0);
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_str_eq(cfg->dnstap_tls_server_name, "collector.test");
	ck_assert_str_eq(cfg->dnstap_tls_cert_bundle, "/dev/null");
	ck_assert_str_eq(cfg->dnstap_tls_client_key_file, "/dev/null");
	ck_assert_str_eq(cfg->dnstap_tls_client_cert_file, "/dev/null");
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n"
		"  dnstap-tls-cert-bundle: /nonexistent/ca.pem\n", err,
		sizeof(err)), -1);
	ck_assert_str_eq(err, "t.conf:4: dnstap-tls-cert-bundle: cannot "
		"read '/nonexistent/ca.pem': No such file or directory");
	ck_assert_int_eq(read_text(cfg, "dnstap:\n"
		"  dnstap-tls-client-cert-file: /nonexistent/c.pem\n", err,
		sizeof(err)), -1);
	ck_assert_str_eq(err, "t.conf:2: dnstap-tls-client-cert-file: "
		"cannot read '/nonexistent/c.pem': No such file or directory");
	config_delete(cfg);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	/* a key without its certificate */
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n"
		"  dnstap-tls-client-key-file: /dev/null\n", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:2: dnstap-tls: a client "
		"certificate needs both"));
	config_delete(cfg);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	/* dnstap-tls: yes with a unix socket: nothing to encrypt, loads */
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-socket-path: /tmp/x.sock\n  dnstap-tls: yes\n", err,
		sizeof(err)), 0);
	config_delete(cfg);
	cfg = config_create();
	ck_assert_ptr_nonnull(cfg);
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: not-an-address\n  dnstap-tls: no\n", err,
		sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:2: dnstap-ip: "
		"'not-an-address'"));
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-ip: 127.0.0.1@6000\n  dnstap-tls: no\n", err,
		sizeof(err)), 0);
	ck_assert_int_eq(cfg->dnstap_enable, 1);
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-socket-path: /tmp/x.sock\n", err, sizeof(err)), 0);
#else
	ck_assert_int_eq(read_text(cfg, "dnstap:\n  dnstap-enable: yes\n"
		"  dnstap-socket-path: /tmp/x.sock\n", err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "t.conf:2: dnstap-enable: this "
		"petrel is built without dnstap"));
#endif
	config_delete(cfg);
}
END_TEST

START_TEST(test_good_full)
{
	struct config_file *cfg = load_good("good-full.conf");
	const struct config_strlist *s;
	const struct config_acl *a;
	const struct config_stub *z;
	const struct config_localzone *lz;
	int n;
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_str_eq(cfg->filename, "good-full.conf");
	/* interfaces accumulate across repeated server: clauses */
	for(n = 0, s = cfg->interfaces; s; s = s->next)
		n++;
	ck_assert_int_eq(n, 4);
	ck_assert_str_eq(cfg->interfaces->str, "127.0.0.1");
	ck_assert_str_eq(cfg->interfaces->next->str, "::1@5353");
	ck_assert_str_eq(cfg->interfaces->next->next->str, "192.0.2.1");
	ck_assert_str_eq(cfg->interfaces->next->next->next->str, "192.0.2.2");
	ck_assert_int_eq(cfg->port, 5353);
	a = cfg->acls;
	ck_assert_int_eq(a->action, ACL_ALLOW);
	ck_assert_int_eq(a->block.prefix, 8);
	ck_assert_int_eq(a->next->action, ACL_REFUSE);
	ck_assert_int_eq(a->next->next->action, ACL_ALLOW_SNOOP);
	ck_assert_int_eq(a->next->next->block.prefix, 32);
	ck_assert_int_eq(a->next->next->next->action, ACL_DENY);
	ck_assert_ptr_null(a->next->next->next->next);
	ck_assert_str_eq(get(cfg, "access-control"), "127.0.0.0/8 allow\n"
		"10.0.0.0/8 refuse\n2001:db8::/32 allow_snoop\n"
		"192.0.2.0/24 deny");
	ck_assert_int_eq(cfg->num_threads, 4);
	ck_assert_int_eq(cfg->thread_model, THREAD_MODEL_FORK);
	ck_assert_int_eq(cfg->event_backend, EVENT_BACKEND_SELECT);
	ck_assert_int_eq(cfg->so_reuseport, 0);
	ck_assert_uint_eq(cfg->so_rcvbuf, 4 * 1024 * 1024);
	ck_assert_uint_eq(cfg->so_sndbuf, 256 * 1024);
	ck_assert_int_eq(cfg->outgoing_range, 512);
	ck_assert_str_eq(cfg->outgoing_interfaces->str, "192.0.2.10");
	ck_assert_int_eq(cfg->num_queries_per_thread, 2048);
	ck_assert_int_eq(cfg->jostle_timeout, 300);
	ck_assert_int_eq(cfg->incoming_num_tcp, 20);
	ck_assert_int_eq(cfg->outgoing_num_tcp, 30);
	ck_assert_int_eq(cfg->tcp_idle_timeout, 10000);
	ck_assert_int_eq(cfg->edns_buffer_size, 1400);
	ck_assert_int_eq(cfg->max_udp_size, 4096);
	ck_assert_uint_eq(cfg->msg_cache_size, 64 * 1024 * 1024);
	ck_assert_uint_eq(cfg->rrset_cache_size, 1024UL * 1024 * 1024);
	ck_assert_int_eq(cfg->msg_cache_slabs, 8);
	ck_assert_int_eq(cfg->rrset_cache_slabs, 16);
	ck_assert_int_eq(cfg->cache_min_ttl, 60);
	ck_assert_int_eq(cfg->cache_max_ttl, 3600);
	ck_assert_int_eq(cfg->cache_max_negative_ttl, 300);
	ck_assert_int_eq(cfg->infra_host_ttl, 600);
	ck_assert_int_eq(cfg->prefetch, 1);
	ck_assert_int_eq(cfg->serve_expired, 1);
	ck_assert_int_eq(cfg->serve_expired_ttl, 86400);
	ck_assert_int_eq(cfg->serve_expired_reply_ttl, 10);
	ck_assert_int_eq(cfg->serve_expired_client_timeout, 1800);
	ck_assert_ptr_nonnull(cfg->root_hints);
	ck_assert_str_eq(cfg->root_hints->str, "/usr/share/dns/root.hints");
	ck_assert_ptr_null(cfg->root_hints->next);
	ck_assert_int_eq(cfg->qname_minimisation, 0);
	ck_assert_int_eq(cfg->use_caps_for_id, 1);
	ck_assert_int_eq(cfg->harden_glue, 0);
	ck_assert_int_eq(cfg->do_not_query_localhost, 0);
	ck_assert_int_eq(cfg->do_ip6, 0);
	ck_assert_int_eq(cfg->tcp_upstream, 0);
	lz = cfg->local_zones;
	ck_assert_str_eq(lz->name, "example.");
	ck_assert_str_eq(lz->type, "static");
	ck_assert_str_eq(lz->next->name, "home.arpa.");
	ck_assert_str_eq(lz->next->type, "transparent");
	ck_assert_str_eq(cfg->local_data->str,
		"www.example. 3600 IN A 192.0.2.80");
	/* '#' inside quotes is not a comment */
	ck_assert_str_eq(cfg->local_data->next->str,
		"txt.example. TXT \"hello # not a comment\"");
	ck_assert_str_eq(cfg->local_data_ptr->str, "192.0.2.80 www.example.");
	ck_assert_str_eq(cfg->local_data_ptr->next->str,
		"2001:db8::80 7200 www6.example.");
	ck_assert_int_eq(cfg->private_addresses->block.prefix, 8);
	ck_assert_int_eq(cfg->private_addresses->next->block.prefix, 8);
	ck_assert_str_eq(get(cfg, "private-address"), "10.0.0.0/8\nfd00::/8");
	ck_assert_str_eq(cfg->private_domains->str, "lan.");
	ck_assert_int_eq(cfg->hide_identity, 1);
	ck_assert_int_eq(cfg->hide_version, 1);
	ck_assert_str_eq(cfg->identity, "resolver # one");
	ck_assert_str_eq(cfg->version, "petrel test");
	ck_assert_int_eq(cfg->minimal_responses, 1);
	ck_assert_int_eq(cfg->verbosity, 3); /* written "verbosity:3" */
	ck_assert_str_eq(cfg->logfile, "/var/log/petrel.log");
	ck_assert_int_eq(cfg->log_queries, 1);
	ck_assert_str_eq(cfg->pidfile, "/run/petrel.pid");
	ck_assert_str_eq(cfg->username, "petrel");
	ck_assert_str_eq(cfg->directory, "/etc/petrel");
	ck_assert_int_eq(cfg->do_daemonize, 0);
	ck_assert_int_eq(cfg->statistics_interval, 60);
	ck_assert_int_eq(cfg->statistics_cumulative, 1);
	ck_assert_int_eq(cfg->extended_statistics, 1);
	ck_assert_int_eq(cfg->unwanted_reply_threshold, 10000000);
	ck_assert_str_eq(cfg->http_metrics_interface, "127.0.0.1@9167");
	/* zones: one per clause, in file order */
	z = cfg->forwards;
	ck_assert_str_eq(z->name, "example.com.");
	ck_assert_int_eq(z->first, 1);
	ck_assert_str_eq(z->addrs->str, "192.0.2.53");
	ck_assert_int_eq(netaddr_port(&z->addrs->addr), 53);
	ck_assert_str_eq(z->addrs->next->str, "2001:db8::53@5353");
	ck_assert_int_eq(netaddr_port(&z->addrs->next->addr), 5353);
	ck_assert_str_eq(z->hosts->str, "ns.example.net.");
	z = z->next;
	ck_assert_str_eq(z->name, ".");
	ck_assert_int_eq(z->first, 0);
	ck_assert_int_eq(netaddr_port(&z->addrs->addr), 853);
	ck_assert_ptr_null(z->next);
	z = cfg->stubs;
	ck_assert_str_eq(z->name, "corp.example.");
	ck_assert_int_eq(z->prime, 1);
	ck_assert_int_eq(z->first, 0);
	ck_assert_str_eq(z->next->name, "internal.");
	ck_assert_str_eq(z->next->hosts->str, "ns1.internal.");
	ck_assert_int_eq(z->next->prime, 0);
	ck_assert_ptr_null(z->next->next);
	ck_assert_str_eq(get(cfg, "name"), "example.com.\n.\ncorp.example.\n"
		"internal.");
	ck_assert_str_eq(get(cfg, "forward-first"), "example.com. yes\n. no");
	ck_assert_str_eq(get(cfg, "stub-prime"), "corp.example. yes\n"
		"internal. no");
	ck_assert_int_eq(cfg->control_enable, 1);
	ck_assert_str_eq(get(cfg, "control-interface"),
		"127.0.0.1\n/run/petrel.ctl");
	ck_assert_int_eq(cfg->control_port, 8954);
	ck_assert_int_eq(cfg->control_use_cert, 0);
	ck_assert_str_eq(cfg->server_key_file, "/etc/petrel/s.key");
	ck_assert_str_eq(cfg->control_cert_file, "/etc/petrel/c.pem");
	/* -o prints */
	ck_assert_str_eq(get(cfg, "msg-cache-size"), "67108864");
	ck_assert_str_eq(get(cfg, "pidfile:"), "/run/petrel.pid");
	ck_assert_str_eq(get(cfg, "do-ip6"), "no");
	ck_assert_str_eq(get(cfg, "thread-model"), "fork");
	ck_assert_int_eq(config_get_option_str(cfg, "no-such", logbuf, 10),
		-1);
	config_delete(cfg);
}
END_TEST

START_TEST(test_include_glob)
{
	struct config_file *cfg = load_good("good-include.conf");
	ck_assert_int_eq(cfg->port, 5300);
	ck_assert_int_eq(cfg->verbosity, 2);
	ck_assert_uint_eq(cfg->msg_cache_size, 8 * 1024 * 1024);
	/* in file order: the include inside server:, the glob (sorted),
	 * then the line after */
	ck_assert_str_eq(get(cfg, "interface"),
		"127.0.0.1\n127.0.0.2\n127.0.0.3");
	ck_assert_str_eq(get(cfg, "name"), "a.example.\nb.example.");
	ck_assert_int_eq(cfg->num_warnings, 0);
	config_delete(cfg);
}
END_TEST

START_TEST(test_include_directory)
{
	/* a relative include is taken from directory: when it is set */
	char text[1024], err[1024];
	struct config_file *cfg = config_create();
	snprintf(text, sizeof(text), "server:\n directory: \"%s/include\"\n"
		" include: in-server.inc\n", CONFDIR);
	ck_assert_int_eq(chdir("/"), 0);
	ck_assert_int_eq(config_read_mem(cfg, "/nowhere/x.conf", text,
		strlen(text), err, sizeof(err)), 0);
	ck_assert_str_eq(get(cfg, "interface"), "127.0.0.1");
	ck_assert_uint_eq(cfg->msg_cache_size, 8 * 1024 * 1024);
	config_delete(cfg);
}
END_TEST

START_TEST(test_debian)
{
	struct config_file *cfg;
	ck_assert_int_eq(chdir(CONFDIR), 0);
	/* Debian's stock files load: their auto-trust-anchor-file is
	 * validation petrel provides; warnings only, one per ignored
	 * option name */
	log_capture(logbuf, sizeof(logbuf));
	cfg = load_good("debian/unbound.conf");
	log_capture(NULL, 0);
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_int_eq(count_str(logbuf, "warning: "), 0);
	ck_assert_int_eq(count_str(logbuf, "auto-trust-anchor-file"), 0);
	config_delete(cfg);
	/* with what an admin adds: warnings only */
	log_capture(logbuf, sizeof(logbuf));
	cfg = load_good("debian-admin/unbound.conf");
	log_capture(NULL, 0);
	/* aggressive-nsec is implemented (RFC 8198), and its view: clause
	 * is real since views are: no warning for either; nor for its
	 * delay-close (issue 31) */
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_int_eq(count_str(logbuf, "warning: "), 0);
	ck_assert_int_eq(cfg->delay_close, 10000);
	ck_assert_int_eq(count_str(logbuf, "aggressive-nsec"), 0);
	ck_assert_int_eq(cfg->aggressive_nsec, 1);
	ck_assert_int_eq(cfg->unblock_lan_zones, 1);
	ck_assert_int_eq(count_str(logbuf, "val-log-level"), 0);
	ck_assert_ptr_null(strstr(logbuf, "view: clause"));
	ck_assert_ptr_nonnull(cfg->policy_lines);
	ck_assert_int_eq(cfg->control_enable, 1);
	ck_assert_str_eq(get(cfg, "control-interface"), "/run/unbound.ctl");
	/* ip-address: is Unbound's other name for interface: */
	ck_assert_str_eq(get(cfg, "interface"), "0.0.0.0\n::0");
	ck_assert_int_eq(cfg->num_threads, 2);
	ck_assert_uint_eq(cfg->msg_cache_size, 50 * 1024 * 1024);
	config_delete(cfg);
}
END_TEST

/** the stock config of the installed unbound package, and the example
 * it ships, as they are on this machine (skipped when absent) */
START_TEST(test_installed_unbound_configs)
{
	const char *stock = "/etc/unbound/unbound.conf";
	const char *example = "/usr/share/doc/unbound/examples/unbound.conf";
	char err[1024];
	struct config_file *cfg;
	if(access(example, R_OK) == 0) {
		cfg = config_create();
		log_capture(logbuf, sizeof(logbuf));
		if(config_read(cfg, example, err, sizeof(err)) != 0)
			ck_abort_msg("%s did not load: %s", example, err);
		log_capture(NULL, 0);
		config_delete(cfg);
	}
	if(access(stock, R_OK) == 0) {
		cfg = config_create();
		log_capture(logbuf, sizeof(logbuf));
		/* with Debian's auto-trust-anchor-file too: the validator
		 * is in */
		if(config_read(cfg, stock, err, sizeof(err)) != 0)
			ck_abort_msg("%s did not load: %s", stock, err);
		log_capture(NULL, 0);
		config_delete(cfg);
	}
}
END_TEST

/** every option name in the installed unbound.conf(5) is known: a row of
 * the table, an alias, a clause or include (skipped when the page is
 * absent) */
START_TEST(test_unbound_manpage_names)
{
	const char *page = "/usr/share/man/man5/unbound.conf.5.gz";
	char cmd[512], line[1024];
	FILE *f;
	int n = 0, unknown = 0;
	if(access(page, R_OK) != 0)
		return;
	/* the .B lines after .TP are the option entries ("name: <arg>") */
	snprintf(cmd, sizeof(cmd), "gzip -dc %s | sed -n '/^\\.TP/{n;p;}'",
		page);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	while(fgets(line, sizeof(line), f)) {
		char name[128];
		size_t i = 0;
		const char *s = line;
		if(strncmp(s, ".B ", 3) != 0)
			continue;
		s += 3;
		while(*s && i + 1 < sizeof(name)) {
			if(s[0] == '\\' && s[1] == '-') {
				name[i++] = '-';
				s += 2;
			} else if(isalnum((unsigned char)*s) || *s == '-' ||
				*s == '_')
				name[i++] = *s++;
			else
				break;
		}
		name[i] = 0;
		if(*s != ':' || i == 0)
			continue;
		n++;
		if(config_option_find(name, -1) || strcmp(name, "server") == 0
			|| strcmp(name, "forward-zone") == 0 ||
			strcmp(name, "stub-zone") == 0 ||
			strcmp(name, "remote-control") == 0 ||
			strcmp(name, "dnstap") == 0 ||
			strcmp(name, "include") == 0 ||
			strcmp(name, "include-toplevel") == 0)
			continue;
		for(i = 0; config_ignored_clauses[i]; i++)
			if(strcmp(config_ignored_clauses[i], name) == 0)
				break;
		if(config_ignored_clauses[i])
			continue;
		fprintf(stderr, "unbound.conf(5) option unknown to petrel: "
			"%s\n", name);
		unknown++;
	}
	ck_assert_int_eq(pclose(f), 0);
	ck_assert_int_gt(n, 250);
	ck_assert_int_eq(unknown, 0);
}
END_TEST

/** a generated firewall-appliance style config: warnings only */
START_TEST(test_opnsense_style)
{
	struct config_file *cfg;
	const struct config_strlist *s;
	int n;
	ck_assert_int_eq(chdir(CONFDIR), 0);
	log_capture(logbuf, sizeof(logbuf));
	cfg = load_good("opnsense/unbound.conf");
	log_capture(NULL, 0);
	/* (prefetch-key, log-local-actions, log-servfail,
	 * qname-minimisation-strict, infra-cache-numhosts and
	 * harden-referral-path are real options now: no warning) */
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_int_eq(count_str(logbuf, "warning: opnsense/unbound.conf:"),
		0);
	ck_assert_int_eq(cfg->harden_referral_path, 0);
	ck_assert_int_eq(cfg->prefetch_key, 0);
	ck_assert_int_eq(cfg->infra_cache_slabs, 4);
	ck_assert_int_eq(cfg->num_threads, 4);
	ck_assert_int_eq(cfg->outgoing_range, 8192);
	ck_assert_int_eq(cfg->interface_automatic, 1);
	ck_assert_str_eq(get(cfg, "interface"), "0.0.0.0\n::");
	/* in file order: the include of domainoverrides.conf comes first */
	ck_assert_str_eq(get(cfg, "name"), "corp.example.\n.");
	ck_assert_str_eq(get(cfg, "forward-addr"), "corp.example. 10.8.0.53\n"
		". 1.1.1.1@853\n. 1.0.0.1@853");
	for(n = 0, s = cfg->local_data; s; s = s->next)
		n++;
	ck_assert_int_eq(n, 5);
	ck_assert_str_eq(get(cfg, "local-data-ptr"), "127.0.0.1 localhost\n"
		"::1 localhost\n192.168.1.1 router.home.arpa");
	ck_assert_str_eq(get(cfg, "private-address"), "0.0.0.0/8\n10.0.0.0/8\n"
		"100.64.0.0/10\n169.254.0.0/16\n172.16.0.0/12\n"
		"192.168.0.0/16\nfc00::/7\nfe80::/10");
	ck_assert_str_eq(get(cfg, "access-control"), "127.0.0.0/8 allow\n"
		"::1/128 allow\n192.168.1.0/24 allow\n0.0.0.0/0 refuse\n"
		"::/0 refuse");
	ck_assert_int_eq(cfg->control_port, 953);
	ck_assert_int_eq(cfg->use_syslog, 1);
	config_delete(cfg);
}
END_TEST

START_TEST(test_nothing_half_applied)
{
	const char *bad = "server:\n port: 5353\n interface: 127.0.0.5\n"
		"forward-zone:\n name: x.\n forward-addr: 192.0.2.1\n"
		"server:\n msg-cache-size: 12q\n";
	const char *good = "server:\n port: 5353\n interface: 127.0.0.5\n";
	char err[256], *before, *after;
	struct config_file *cfg = config_create();
	before = dump(cfg);
	ck_assert_int_eq(config_read_mem(cfg, "mem.conf", bad, strlen(bad),
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "mem.conf:8: msg-cache-size: expected a size "
		"from 0 to 1024g (a number, optionally followed by k, m or g), "
		"got '12q'");
	after = dump(cfg);
	ck_assert_str_eq(before, after);
	ck_assert_ptr_null(cfg->forwards);
	ck_assert_ptr_null(cfg->interfaces);
	free(after);
	/* a good load applies on top */
	ck_assert_int_eq(config_read_mem(cfg, "mem.conf", good, strlen(good),
		err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->port, 5353);
	ck_assert_str_eq(cfg->interfaces->str, "127.0.0.5");
	ck_assert_str_eq(cfg->filename, "mem.conf");
	free(before);
	config_delete(cfg);
}
END_TEST

START_TEST(test_syntax_corners)
{
	/* a byte order mark, no trailing newline, CRLF, tabs, a clause with
	 * its option on the same line, comments everywhere, an empty quoted
	 * value */
	const char *t = "\xef\xbb\xbf# top comment\r\nserver: port: 5300\r\n"
		"\t\tverbosity: 4 # four\n"
		"  # indented comment\n\n"
		"identity: \"\"\n"
		"remote-control: control-enable: yes\n"
		"server:\n\tlocal-zone: 'a.example' redirect\n"
		"\taccess-control: \"10.1.0.0/16 allow_setrd\"\n"
		"\tlocal-data: www.a.example. IN AAAA 2001:db8::1\n"
		"\tmsg-cache-size: 1024\n\trrset-cache-size: 2g\n"
		"\tso-rcvbuf: 8KB";
	char err[256];
	struct config_file *cfg = config_create();
	if(config_read_mem(cfg, "c.conf", t, strlen(t), err, sizeof(err)))
		ck_abort_msg("%s", err);
	ck_assert_int_eq(cfg->port, 5300);
	ck_assert_int_eq(cfg->verbosity, 4);
	ck_assert_str_eq(cfg->identity, "");
	ck_assert_int_eq(cfg->control_enable, 1);
	ck_assert_str_eq(cfg->local_zones->name, "a.example.");
	ck_assert_str_eq(cfg->local_zones->type, "redirect");
	ck_assert_int_eq(cfg->acls->action, ACL_ALLOW_SETRD);
	ck_assert_str_eq(cfg->local_data->str,
		"www.a.example. IN AAAA 2001:db8::1");
	ck_assert_uint_eq(cfg->msg_cache_size, 1024);
	ck_assert_uint_eq(cfg->rrset_cache_size, 2048UL * 1024 * 1024);
	ck_assert_uint_eq(cfg->so_rcvbuf, 8192);
	config_delete(cfg);
}
END_TEST

/** load a text, expect failure with this message */
static void
expect_err(const char *text, const char *want)
{
	char err[512];
	struct config_file *cfg = config_create();
	ck_assert_int_eq(config_read_mem(cfg, "t.conf", text, strlen(text),
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, want);
	config_delete(cfg);
}

START_TEST(test_errors_inline)
{
	expect_err("server:\n\tmsg-cache-size: 99999999999999999999g\n",
		"t.conf:2: msg-cache-size: expected a size from 0 to 1024g (a "
		"number, optionally followed by k, m or g), got "
		"'99999999999999999999g'");
	expect_err("server:\n\tport: 99999999999999999999\n",
		"t.conf:2: port: expected an integer from 1 to 65535, got "
		"'99999999999999999999'");
	expect_err("server:\n\tport: 5x\n",
		"t.conf:2: port: expected an integer from 1 to 65535, got '5x'");
	expect_err("server:\n\tdo-tcp: YES\n",
		"t.conf:2: do-tcp: expected yes or no, got 'YES'");
	expect_err("server:\n\tharden-glu: yes\n",
		"t.conf:2: unknown option 'harden-glu', did you mean "
		"'harden-glue'?");
	expect_err("server:\n\trrset-cache-slabs: 0\n",
		"t.conf:2: rrset-cache-slabs: expected a power of 2 from 1 to "
		"65536, got '0'");
	expect_err("stub-zone:\n\tname: a.\n\tstub-addr: 192.0.2.1\n"
		"\tforward-first: yes\n",
		"t.conf:4: forward-first: not a stub-zone: option (it belongs "
		"in forward-zone:)");
	expect_err("server:\n\tport: 53\nstub-zone:\n\tname: \"a.\"\n",
		"t.conf:3: stub-zone 'a.': expected a stub-addr: or stub-host: "
		"line");
	expect_err("server:\n local-data: \"a. A\"\n",
		"t.conf:2: local-data: expected a resource record, got 'a. A': "
		"Syntax error, value expected");
	expect_err("server:\n access-control: 10.0.0.0/8 allow extra\n",
		"t.conf:2: access-control: expected <netblock> <action>, got 3 "
		"values");
	expect_err("server:\n include: a b\n",
		"t.conf:2: include: expected a file name or pattern, got 2 "
		"values");
	/* disable-edns-do with the validator and a trust anchor (as
	 * Unbound refuses it); without the validator it loads */
	expect_err("server:\n disable-edns-do: yes\n trust-anchor: \"a. DS "
		"1 8 2 aabb\"\n", "t.conf:2: disable-edns-do: the validator with a "
		"trust anchor needs the DNSSEC records that upstream queries "
		"without DO do not get; remove the trust anchors or the "
		"validator, or the option");
	{
		const char *t = "server:\n disable-edns-do: yes\n "
			"module-config: \"iterator\"\n trust-anchor: \"a. DS 1 "
			"8 2 aabb\"\n";
		char err[512];
		struct config_file *cfg = config_create();
		ck_assert_int_eq(config_read_mem(cfg, "t.conf", t, strlen(t),
			err, sizeof(err)), 0);
		ck_assert_int_eq(cfg->disable_edns_do, 1);
		config_delete(cfg);
	}
}
END_TEST

/** "does this module-config validate": the parser asks the module list
 * (registered by modstack_config_register, from the rows'
 * MODSTACK_CAP_DNSSEC), and without it names no module but answers the
 * same for every module of the list */
START_TEST(test_modules_dnssec)
{
	const struct module_row *row;
	const char *t = "server:\n disable-edns-do: yes\n "
		"module-config: \"respip iterator\"\n trust-anchor: \"a. DS "
		"1 8 2 aabb\"\n";
	char err[512];
	struct config_file *cfg;
	int reg;
	for(reg = 1; reg >= 0; reg--) {
		config_modules_dnssec_set(NULL);
		if(reg)
			modstack_config_register();
		for(row = modstack_rows; row->name; row++) {
			char v[64];
			int want = (row->caps & MODSTACK_CAP_DNSSEC) ? 1 : 0;
			ck_assert_int_eq(config_modules_dnssec(row->name), want);
			snprintf(v, sizeof(v), "\"%s iterator\"", row->name);
			ck_assert_int_eq(config_modules_dnssec(v), want);
		}
		/* the default module-config validates */
		ck_assert_int_eq(config_modules_dnssec(NULL), 1);
		ck_assert_int_eq(config_modules_dnssec(CONFIG_MODULE_DEFAULT),
			1);
		ck_assert_int_eq(config_modules_dnssec("iterator"), 0);
		/* a name, not a part of one */
		ck_assert_int_eq(config_modules_dnssec("xvalidator iterator"),
			0);
		/* disable-edns-do with a trust anchor and no validator */
		cfg = config_create();
		ck_assert_int_eq(config_read_mem(cfg, "t.conf", t, strlen(t),
			err, sizeof(err)), 0);
		config_delete(cfg);
	}
	/* the registered answer is the module list's */
	config_modules_dnssec_set(NULL);
	modstack_config_register();
}
END_TEST

/** val-override-date reads as Unbound reads it: YYYYMMDDHHMMSS (UTC),
 * seconds since the epoch, -1 (dates not checked), 0 or "" (the clock);
 * anything else is a load error */
START_TEST(test_override_date)
{
	long long d = 7;
	struct config_file *cfg = config_create();
	char err[512];
	ck_assert_int_eq(config_parse_date("20070916134226", &d), 0);
	ck_assert_int_eq(d, 1189950146LL);
	ck_assert_int_eq(config_parse_date("19700101000000", &d), 0);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(config_parse_date("20000229235959", &d), 0);
	ck_assert_int_eq(d, 951868799LL);
	ck_assert_int_eq(config_parse_date("1009843200", &d), 0);
	ck_assert_int_eq(d, 1009843200LL);
	ck_assert_int_eq(config_parse_date("-1", &d), 0);
	ck_assert_int_eq(d, -1);
	ck_assert_int_eq(config_parse_date("0", &d), 0);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(config_parse_date("", &d), 0);
	ck_assert_int_eq(d, 0);
	ck_assert_int_eq(config_parse_date("20010229000000", &d), -1);
	ck_assert_int_eq(config_parse_date("20071316134226", &d), -1);
	ck_assert_int_eq(config_parse_date("20070916244226", &d), -1);
	ck_assert_int_eq(config_parse_date("19690916134226", &d), -1);
	ck_assert_int_eq(config_parse_date("-2", &d), -1);
	ck_assert_int_eq(config_parse_date("12x", &d), -1);
	ck_assert_int_eq(config_parse_date("99999999999", &d), -1);
	ck_assert_int_eq(read_text(cfg, "server: val-override-date: "
		"\"20070916134226\"\n", err, sizeof(err)), 0);
	ck_assert_str_eq(cfg->val_override_date, "20070916134226");
	ck_assert_int_eq(read_text(cfg, "server:\n val-override-date: 2007\n",
		err, sizeof(err)), 0);
	ck_assert_str_eq(cfg->val_override_date, "2007");
	config_delete(cfg);
	expect_err("server:\n val-override-date: yesterday\n",
		"t.conf:2: val-override-date: expected a date YYYYMMDDHHMMSS, "
		"seconds since 1970, -1 (do not check dates) or 0 (the clock), "
		"got 'yesterday'");
}
END_TEST

/** several statements on one line, and a value on a later line, as
 * Unbound's lexer reads them (tokens, not lines): "forward-zone: name: "."
 * forward-addr: 1.2.3.4" is Unbound's own test suite's way of writing a
 * forward zone */
START_TEST(test_one_line_statements)
{
	const char *t =
		"server: port: 5300 verbosity: 3 do-ip6:no\n"
		"server: interface: ::1 interface: fe80::1%lo\n"
		"\tlocal-data: 'a.example. A 192.0.2.1' local-data: \"b.example. "
		"A 192.0.2.2\" local-zone: c.example. static\n"
		"\tlocal-data: d.example. TXT port:53\n"
		"forward-zone: name: \".\" forward-addr: 192.0.2.1 "
		"forward-addr:192.0.2.3 forward-first: yes\n"
		"stub-zone: name: s.example stub-addr: 192.0.2.9 # comment: x\n"
		"auth-zone:\n\tname:\n\t\t\"example.org.\"\n\tzonefile:\n\n"
		"\t# the value comes later\n\t\t\"/nonexistent/example.org\" "
		"fallback-enabled: yes\n";
	char err[512];
	struct config_file *cfg = config_create();
	struct config_strlist *l;
	if(read_text(cfg, t, err, sizeof(err)) != 0)
		ck_abort_msg("%s", err);
	ck_assert_int_eq(cfg->port, 5300);
	ck_assert_int_eq(cfg->verbosity, 3);
	ck_assert_int_eq(cfg->do_ip6, 0);
	ck_assert_str_eq(cfg->interfaces->str, "::1");
	ck_assert_str_eq(cfg->interfaces->next->str, "fe80::1%lo");
	l = cfg->local_data;
	ck_assert_str_eq(l->str, "a.example. A 192.0.2.1");
	ck_assert_str_eq(l->next->str, "b.example. A 192.0.2.2");
	ck_assert_str_eq(l->next->next->str, "d.example. TXT port:53");
	ck_assert_str_eq(cfg->local_zones->name, "c.example.");
	ck_assert_str_eq(cfg->local_zones->type, "static");
	ck_assert_str_eq(cfg->forwards->name, ".");
	ck_assert_str_eq(cfg->forwards->addrs->str, "192.0.2.1");
	ck_assert_str_eq(cfg->forwards->addrs->next->str, "192.0.2.3");
	ck_assert_int_eq(cfg->forwards->first, 1);
	ck_assert_str_eq(cfg->stubs->name, "s.example.");
	ck_assert_str_eq(cfg->stubs->addrs->str, "192.0.2.9");
	ck_assert_str_eq(cfg->auths->name, "example.org.");
	ck_assert_str_eq(cfg->auths->zonefile, "/nonexistent/example.org");
	config_delete(cfg);
	/* an auth-zone on one line; an ignored clause's options on its
	 * line are checked as on lines of their own */
	cfg = config_create();
	if(read_text(cfg, "auth-zone: name: \"a.example.\" zonefile: "
		"\"/nonexistent/a\" for-downstream: no\n", err, sizeof(err)))
		ck_abort_msg("%s", err);
	ck_assert_str_eq(cfg->auths->name, "a.example.");
	ck_assert_str_eq(cfg->auths->zonefile, "/nonexistent/a");
	config_delete(cfg);
	expect_err("python: python-scrpt: \"x.py\"\n",
		"t.conf:1: unknown option 'python-scrpt', did you mean "
		"'python-script'?");
	/* what Unbound refuses: a misspelt key, a value too many, a key
	 * without its value at the end */
	expect_err("forward-zone: name: \".\" forward-adr: 192.0.2.1\n",
		"t.conf:1: unknown option 'forward-adr' (after name:), did you "
		"mean 'forward-addr'?");
	expect_err("server: port: 53 54 verbosity: 1\n",
		"t.conf:1: port: expected <number>, got 2 values");
	expect_err("server:\n\tport:\n\n# nothing\n",
		"t.conf:4: port: expected a value");
	expect_err("forward-zone:\n\tname:\nforward-zone: name: \"b.\"\n",
		"t.conf:3: name: expected a value before the clause "
		"'forward-zone:'");
	expect_err("forward-zone: name: forward-addr: 192.0.2.1\n",
		"t.conf:1: name: expected <zone>, got 2 values");
}
END_TEST

/** nsid reads as Unbound reads it: "ascii_" and a text, or hex */
START_TEST(test_nsid)
{
	uint8_t b[CONFIG_NSID_MAX];
	size_t n = 99;
	ck_assert_int_eq(config_nsid("ascii_hopsa kidee", b, &n), 0);
	ck_assert_uint_eq(n, 11);
	ck_assert_int_eq(memcmp(b, "hopsa kidee", 11), 0);
	ck_assert_int_eq(config_nsid("0123456789abcDEF", b, &n), 0);
	ck_assert_uint_eq(n, 8);
	ck_assert_int_eq(b[0], 0x01);
	ck_assert_int_eq(b[7], 0xef);
	ck_assert_int_eq(config_nsid("", b, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(config_nsid("ascii_", b, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(config_nsid("012", b, &n), -1);
	ck_assert_int_eq(config_nsid("0g", b, &n), -1);
	ck_assert_int_eq(config_nsid("hopsa", b, &n), -1);
}
END_TEST

/** a thread model or event backend this build lacks is a load error */
START_TEST(test_build_dependent)
{
	char err[256];
	struct config_file *cfg = config_create();
	int r;
	r = config_set_option(cfg, "event-backend", "libevent", err,
		sizeof(err));
#ifdef HAVE_LIBEVENT
	ck_assert_int_eq(r, 0);
	ck_assert_int_eq(cfg->event_backend, EVENT_BACKEND_LIBEVENT);
#else
	ck_assert_int_eq(r, -1);
#ifdef HAVE_LIBURING
	ck_assert_str_eq(err, "event-backend: libevent is not compiled into "
		"this petrel (it has select or io_uring)");
#else
	ck_assert_str_eq(err, "event-backend: libevent is not compiled into "
		"this petrel (it has select)");
#endif
#endif
	ck_assert_int_eq(config_set_option(cfg, "event-backend", "select",
		err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->event_backend, EVENT_BACKEND_SELECT);
	r = config_set_option(cfg, "thread-model", "solaris", err,
		sizeof(err));
#ifdef HAVE_SOLARIS_THREADS
	ck_assert_int_eq(r, 0);
#else
	ck_assert_int_eq(r, -1);
#  ifdef HAVE_PTHREAD
	ck_assert_str_eq(err, "thread-model: solaris is not compiled into "
		"this petrel (it has pthreads or fork)");
#  else
	ck_assert_str_eq(err, "thread-model: solaris is not compiled into "
		"this petrel (it has fork)");
#  endif
#endif
	ck_assert_int_eq(config_set_option(cfg, "thread-model", "fork",
		err, sizeof(err)), 0);
	ck_assert_int_eq(cfg->thread_model, THREAD_MODEL_FORK);
	config_delete(cfg);
}
END_TEST

/* outgoing-port-permit and outgoing-port-avoid share one list, in line
 * order, marked + and -; a bad range names the file and line; a copy of
 * the config has the list once */
START_TEST(test_port_rules)
{
	const char *t = "server:\n outgoing-port-avoid: 0-65535\n"
		" outgoing-port-permit: 40000-40100\n"
		" outgoing-port-avoid: 40050\n";
	const char *bad = "server:\n outgoing-port-permit: 40100-40000\n";
	char err[256];
	struct config_file *cfg = config_create(), *dup;
	const struct config_strlist *l;
	ck_assert_int_eq(config_read_mem(cfg, "p.conf", t, strlen(t), err,
		sizeof(err)), 0);
	ck_assert_int_eq(cfg->num_warnings, 0);
	l = cfg->outgoing_ports;
	ck_assert_str_eq(l->str, "-0-65535");
	ck_assert_str_eq(l->next->str, "+40000-40100");
	ck_assert_str_eq(l->next->next->str, "-40050-40050");
	ck_assert_ptr_null(l->next->next->next);
	dup = config_dup(cfg);
	ck_assert_ptr_nonnull(dup);
	ck_assert_str_eq(dup->outgoing_ports->next->str, "+40000-40100");
	ck_assert_ptr_null(dup->outgoing_ports->next->next->next);
	config_delete(dup);
	config_delete(cfg);
	cfg = config_create();
	ck_assert_int_ne(config_read_mem(cfg, "p.conf", bad, strlen(bad), err,
		sizeof(err)), 0);
	ck_assert_str_eq(err, "p.conf:2: outgoing-port-permit: expected a "
		"port or a range low-high (0 to 65535), got '40100-40000'");
	config_delete(cfg);
}
END_TEST

START_TEST(test_ignored_warn_once)
{
	const char *t = "server:\n dlv-anchor: a\n"
		"dlv-anchor: b\n fake-dsa: yes\n"
		"ipset:\n name-v4: a\n name-v6: b\n"
		"ipset:\n name-v4: c\nserver:\n port: 5301\n";
	char err[256];
	struct config_file *cfg = config_create();
	log_capture(logbuf, sizeof(logbuf));
	ck_assert_int_eq(config_read_mem(cfg, "w.conf", t, strlen(t), err,
		sizeof(err)), 0);
	log_capture(NULL, 0);
	ck_assert_int_eq(cfg->num_warnings, 3);
	ck_assert_str_eq(logbuf,
		"warning: w.conf:2: dlv-anchor: ignored: DNSSEC Lookaside "
		"Validation is retired (RFC 8749); Unbound ignores it too\n"
		"warning: w.conf:4: fake-dsa: ignored: a switch of Unbound's "
		"test harness (testbound), not of the server\n"
		"warning: w.conf:5: ipset: clause not implemented by petrel, "
		"ignored\n");
	ck_assert_int_eq(cfg->port, 5301);
	config_delete(cfg);
}
END_TEST

/* an option petrel always behaves as "yes" for: "yes" is quiet, each
 * "no" warns with file:line and what petrel does instead */
START_TEST(test_only_yes_warn)
{
	const char *t = "server:\n harden-short-bufsize: yes\n"
		" infra-keep-probing: no\n harden-unknown-additional: no\n"
		" ede: no\n ede-serve-expired: no\n insecure-lan-zones: yes\n"
		" max-global-quota: 7\n";
	char err[256];
	struct config_file *cfg = config_create();
	log_capture(logbuf, sizeof(logbuf));
	ck_assert_int_eq(config_read_mem(cfg, "y.conf", t, strlen(t), err,
		sizeof(err)), 0);
	log_capture(NULL, 0);
	ck_assert_int_eq(cfg->num_warnings, 1);
	ck_assert_int_eq(count_str(logbuf, "warning: y.conf:3: "
		"infra-keep-probing: petrel always keeps probing"), 1);
	/* (harden-unknown-additional: no is an option of its own now) */
	ck_assert_int_eq(count_str(logbuf, "harden-unknown-additional"), 0);
	ck_assert_int_eq(cfg->harden_unknown_additional, 0);
	ck_assert_int_eq(cfg->harden_short_bufsize, 1);
	ck_assert_int_eq(cfg->ede, 0);
	ck_assert_int_eq(cfg->ede_serve_expired, 0);
	ck_assert_int_eq(cfg->insecure_lan_zones, 1);
	ck_assert_int_eq(cfg->max_global_quota, 7);
	config_delete(cfg);
	/* the defaults */
	cfg = config_create();
	ck_assert_int_eq(cfg->ede, 1);
	ck_assert_int_eq(cfg->ede_serve_expired, 1);
	ck_assert_int_eq(cfg->insecure_lan_zones, 0);
	ck_assert_int_eq(cfg->max_global_quota, 200);
	ck_assert_int_eq(cfg->infra_keep_probing, 1);
	config_delete(cfg);
}
END_TEST

START_TEST(test_set_option)
{
	char err[256];
	struct config_file *cfg = config_create();
	ck_assert_int_eq(config_set_option(cfg, "msg-cache-size:", "16m", err,
		sizeof(err)), 0);
	ck_assert_uint_eq(cfg->msg_cache_size, 16 * 1024 * 1024);
	ck_assert_int_eq(config_set_option(cfg, "msg-cache-size", "16x", err,
		sizeof(err)), -1);
	ck_assert_str_eq(err, "msg-cache-size: expected a size from 0 to "
		"1024g (a number, optionally followed by k, m or g), got '16x'");
	ck_assert_uint_eq(cfg->msg_cache_size, 16 * 1024 * 1024);
	ck_assert_int_eq(config_set_option(cfg, "access-control",
		"192.0.2.0/24 refuse", err, sizeof(err)), 0);
	ck_assert_int_eq(config_set_option(cfg, "access-control",
		"\"192.0.2.0/24 bogus\"", err, sizeof(err)), -1);
	ck_assert_ptr_null(cfg->acls->next);
	ck_assert_int_eq(config_set_option(cfg, "control-port", "9000", err,
		sizeof(err)), 0);
	ck_assert_int_eq(cfg->control_port, 9000);
	ck_assert_int_eq(config_set_option(cfg, "forward-addr", "192.0.2.1",
		err, sizeof(err)), -1);
	ck_assert_int_eq(config_set_option(cfg, "vrebosity", "2",
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "unknown option 'vrebosity', did you mean "
		"'verbosity'?");
	ck_assert_int_eq(config_set_option(cfg, "module-config", "x",
		err, sizeof(err)), -1);
	/* respip and dns64 in either order, as Unbound takes them; each
	 * once, and both above the others (in a build that has dns64) */
	if(module_find("dns64")) {
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"dns64 respip validator iterator\"", err,
			sizeof(err)), 0);
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"respip dns64 iterator\"", err, sizeof(err)), 0);
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"dns64 dns64 iterator\"", err, sizeof(err)), -1);
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"respip dns64 respip iterator\"", err,
			sizeof(err)), -1);
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"validator dns64 iterator\"", err, sizeof(err)),
			-1);
	} else {
		ck_assert_int_eq(config_set_option(cfg, "module-config",
			"\"respip dns64 iterator\"", err, sizeof(err)), -1);
		ck_assert_ptr_nonnull(strstr(err, "module 'dns64' is not in "
			"this build"));
	}
	ck_assert_int_eq(config_set_option(cfg, "module-config",
		"\"respip validator iterator\"", err, sizeof(err)), 0);
	ck_assert_int_eq(config_set_option(cfg, "module-config",
		"\"respip respip iterator\"", err, sizeof(err)), -1);
	/* with no module list registered (a program that builds no
	 * stack), the form only; the stack checks the names */
	config_modules_check_set(NULL);
	ck_assert_int_eq(config_set_option(cfg, "module-config",
		"\"respip respip iterator\"", err, sizeof(err)), 0);
	ck_assert_int_eq(config_set_option(cfg, "module-config", "\"\"",
		err, sizeof(err)), -1);
	ck_assert_str_eq(err, "module-config: expected a list of modules");
	modstack_config_register();
	ck_assert_int_eq(config_set_option(cfg, "module-config",
		"\"respip respip iterator\"", err, sizeof(err)), -1);
	ck_assert_int_eq(config_option_sighup_applies("msg-cache-size"), 1);
	ck_assert_int_eq(config_option_sighup_applies("port"), 0);
	ck_assert_int_eq(config_option_sighup_applies("username"), 0);
	ck_assert_int_eq(config_option_sighup_applies("local-data"), 1);
	ck_assert_int_eq(config_option_sighup_applies("nope"), -1);
	config_delete(cfg);
}
END_TEST

START_TEST(test_dup)
{
	struct config_file *cfg = load_good("good-full.conf"), *c;
	char *a, *b;
	c = config_dup(cfg);
	ck_assert_ptr_nonnull(c);
	a = dump(cfg);
	b = dump(c);
	ck_assert_str_eq(a, b);
	/* deep: changing the copy leaves the original */
	ck_assert_ptr_ne(c->interfaces, cfg->interfaces);
	ck_assert_ptr_ne(c->forwards, cfg->forwards);
	ck_assert_ptr_ne(c->forwards->addrs, cfg->forwards->addrs);
	ck_assert_ptr_ne(c->pidfile, cfg->pidfile);
	config_delete(cfg);
	free(b);
	b = dump(c);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	config_delete(c);
}
END_TEST

/** the table itself is sound: unique names per clause, descriptions,
 * defaults that parse, the required options present and implemented */
START_TEST(test_table)
{
	static const char *const required[] = { "interface", "port",
		"interface-automatic", "access-control", "num-threads",
		"thread-model", "event-backend", "so-reuseport", "so-rcvbuf",
		"so-sndbuf", "outgoing-range", "outgoing-interface",
		"num-queries-per-thread", "jostle-timeout", "incoming-num-tcp",
		"outgoing-num-tcp", "tcp-idle-timeout", "edns-buffer-size",
		"max-udp-size", "msg-cache-size", "msg-cache-slabs",
		"rrset-cache-size", "rrset-cache-slabs", "cache-min-ttl",
		"cache-max-ttl", "cache-max-negative-ttl", "infra-host-ttl",
		"prefetch", "serve-expired", "serve-expired-ttl",
		"serve-expired-reply-ttl", "serve-expired-client-timeout",
		"root-hints", "qname-minimisation", "use-caps-for-id",
		"harden-glue", "harden-below-nxdomain",
		"do-not-query-localhost", "do-ip4", "do-ip6", "do-udp",
		"do-tcp", "tcp-upstream", "local-zone", "local-data",
		"local-data-ptr", "private-address", "private-domain",
		"hide-identity", "hide-version", "identity", "version",
		"minimal-responses", "verbosity", "logfile", "use-syslog",
		"log-queries", "log-replies", "pidfile", "chroot", "username",
		"directory", "do-daemonize", "statistics-interval",
		"statistics-cumulative", "extended-statistics",
		"unwanted-reply-threshold", "http-metrics-interface",
		"name", "forward-addr", "forward-host", "forward-first",
		"stub-addr", "stub-host", "stub-prime", "stub-first",
		"control-enable", "control-interface", "control-port",
		"control-use-cert", "server-key-file", "server-cert-file",
		"control-key-file", "control-cert-file",
		/* issue 31: once accepted and ignored */
		"udp-connect", "ip-freebind", "ip-transparent", "ip-dscp",
		"tcp-mss", "outgoing-tcp-mss", "log-identity",
		"statistics-inhibit-zero", "tcp-connection-limit",
		"udp-upstream-without-downstream", "http-user-agent",
		"hide-http-user-agent", "tls-protocols", "neg-cache-size",
		"unknown-server-time-limit", "interface-automatic-ports",
		"delay-close", "fast-server-permil", "fast-server-num",
		"log-destaddr", "stream-wait-size", "msg-buffer-size", NULL };
	size_t i, j, ignored = 0;
	for(i = 0; required[i]; i++) {
		const struct config_option *o = config_option_find(required[i],
			-1);
		ck_assert_msg(o != NULL, "%s missing", required[i]);
		ck_assert_msg(o->type != OPT_IGNORED, "%s ignored",
			required[i]);
	}
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = config_option_at(i);
		if(o->type == OPT_IGNORED || o->type == OPT_INSECURE) {
			ignored++;
			ck_assert(!(o->flags & OPT_F_IMPLEMENTED));
			ck_assert(o->type == OPT_IGNORED || (o->desc &&
				o->desc[0]));
			continue;
		}
		ck_assert_msg(o->desc && o->desc[0], "%s: no description",
			o->name);
		ck_assert_msg(o->arg && o->arg[0], "%s: no argument", o->name);
		for(j = i + 1; j < config_option_count; j++)
			ck_assert_msg(strcmp(o->name, config_option_at(j)->name)
				!= 0 || o->clause != config_option_at(j)->clause,
				"%s twice", o->name);
		if(o->type == OPT_INT || o->type == OPT_INT_POW2 ||
			o->type == OPT_SIZE)
			ck_assert(o->min <= o->max);
	}
	/* issue 31: an ignored option says why (in its warning, -o and the
	 * documents), but for the ones other work is implementing now */
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = config_option_at(i);
		if(o->type != OPT_IGNORED ||
			strcmp(o->name, "disable-edns-do") == 0 ||
			strcmp(o->name, "disable-dnssec-lame-check") == 0 ||
			strcmp(o->name, "iter-scrub-cname") == 0)
			continue;
		ck_assert_msg(o->desc && o->desc[0], "%s: ignored without a "
			"reason", o->name);
	}
	ck_assert_uint_ge(ignored, 1);
	ck_assert_ptr_null(config_option_at(config_option_count));
	ck_assert_str_eq(config_option_nearest("stubaddr"), "stub-addr");
	ck_assert_str_eq(config_option_nearest("forward-zon"), "forward-zone");
}
END_TEST

/** every scalar option prints a value that parses back to itself, and
 * every default in the table is what config_create() holds */
START_TEST(test_print_parse_roundtrip)
{
	struct config_file *cfg = load_good("good-full.conf");
	struct config_file *fresh = config_create(), *def = config_create();
	char val[4096], quoted[4200], again[4096], err[512];
	size_t i;
	int n = 0;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = config_option_at(i);
		if(!config_clause_in_file(o->clause))
			continue;
		switch(o->type) {
		case OPT_BOOL: case OPT_INT: case OPT_INT_POW2: case OPT_SIZE:
		case OPT_STR: case OPT_PATH: case OPT_ADDR: case OPT_ENUM:
			break;
		default:
			continue;
		}
		ck_assert_int_eq(config_get_option_str(cfg, o->name, val,
			sizeof(val)), 0);
		snprintf(quoted, sizeof(quoted), "\"%s\"", val);
		if(config_set_option(fresh, o->name, quoted, err, sizeof(err)))
			ck_abort_msg("%s: '%s' does not parse: %s", o->name,
				val, err);
		ck_assert_int_eq(config_get_option_str(fresh, o->name, again,
			sizeof(again)), 0);
		ck_assert_str_eq(val, again);
		/* the default */
		if(o->def && !(o->flags & OPT_F_BUILD_DEFAULT)) {
			snprintf(quoted, sizeof(quoted), "\"%s\"", o->def);
			ck_assert_int_eq(config_set_option(fresh, o->name,
				quoted, err, sizeof(err)), 0);
			ck_assert_int_eq(config_get_option_str(fresh, o->name,
				again, sizeof(again)), 0);
			ck_assert_int_eq(config_get_option_str(def, o->name,
				val, sizeof(val)), 0);
			ck_assert_str_eq(val, again);
		}
		n++;
	}
	ck_assert_int_ge(n, 60);
	config_delete(cfg);
	config_delete(fresh);
	config_delete(def);
}
END_TEST

/** generate a document into a malloced string */
static char *
gen(int (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fn(f), 0);
	fclose(f);
	return buf;
}

/** the committed example.conf and petrel.conf.5 are what the table
 * generates; otherwise 'make config-docs' was not run */
START_TEST(test_docs_match_table)
{
	char *ex = gen(config_doc_example), *man = gen(config_doc_manpage);
	char *exf = slurp(CONFIG_TOP_SRCDIR "/example.conf");
	char *manf = slurp(CONFIG_TOP_SRCDIR "/doc/petrel.conf.5");
	size_t i;
	ck_assert_ptr_nonnull(exf);
	ck_assert_ptr_nonnull(manf);
	ck_assert_msg(strcmp(ex, exf) == 0, "example.conf differs from the "
		"option table: run 'make config-docs'");
	ck_assert_msg(strcmp(man, manf) == 0, "doc/petrel.conf.5 differs from "
		"the option table: run 'make config-docs'");
	/* and what was generated names every option, in both */
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = config_option_at(i);
		char key[128], roffname[256];
		size_t k = 0, j;
		snprintf(key, sizeof(key), "%s: ", o->name);
		for(j = 0; o->name[j] && k + 3 < sizeof(roffname); j++) {
			if(o->name[j] == '-')
				roffname[k++] = '\\';
			roffname[k++] = o->name[j];
		}
		roffname[k] = 0;
		if(o->type == OPT_IGNORED || o->type == OPT_INSECURE) {
			snprintf(key, sizeof(key), "%s:", o->name);
			ck_assert_msg(strstr(exf, key) != NULL, "%s", key);
		} else
			ck_assert_msg(strstr(exf, key) != NULL, "%s not in "
				"example.conf", o->name);
		ck_assert_msg(strstr(manf, roffname) != NULL, "%s not in the "
			"man page", o->name);
	}
	free(ex);
	free(man);
	free(exf);
	free(manf);
}
END_TEST

/** example.conf loads, without warnings, and runs on 127.0.0.1@5353 in
 * the foreground; every option line in it (commented or not) is known */
START_TEST(test_example_conf)
{
	char err[1024], *text, *line;
	struct config_file *cfg = config_create();
	int n = 0;
	if(config_read(cfg, CONFIG_TOP_SRCDIR "/example.conf", err,
		sizeof(err)) != 0)
		ck_abort_msg("example.conf: %s", err);
	ck_assert_int_eq(cfg->num_warnings, 0);
	ck_assert_int_eq(cfg->port, 5353);
	ck_assert_str_eq(get(cfg, "interface"), "127.0.0.1");
	ck_assert_int_eq(cfg->do_daemonize, 0);
	ck_assert_str_eq(cfg->username, "");
	ck_assert_str_eq(get(cfg, "access-control"), "127.0.0.0/8 allow");
	ck_assert_ptr_null(cfg->forwards);
	ck_assert_int_eq(cfg->control_enable, 0);
	config_delete(cfg);

	/* uncomment every "# key: value" line of the server: clause and
	 * remote-control: and load that: the defaults shown must parse */
	text = slurp(CONFIG_TOP_SRCDIR "/example.conf");
	ck_assert_ptr_nonnull(text);
	for(line = strstr(text, "\n\t# "); line; line = strstr(line + 1,
		"\n\t# ")) {
		char *colon = strchr(line + 4, ':');
		char *nl = strchr(line + 4, '\n');
		char key[128];
		if(!colon || (nl && colon > nl) || colon - (line + 4) > 60)
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(colon - (line + 4)),
			line + 4);
		if(strchr(key, ' ') || (key[0] >= 'A' && key[0] <= 'Z'))
			continue; /* prose */
		ck_assert_msg(config_option_find(key, -1) != NULL,
			"example.conf shows unknown option '%s'", key);
		if(config_option_find(key, -1)->flags & OPT_F_BUILD_DEFAULT)
			continue; /* its example may not be in this build */
		line[2] = ' '; /* uncomment */
		n++;
	}
	ck_assert_int_ge(n, 80);
	/* the zone clauses too, so their options land in a zone */
	for(line = text; (line = strstr(line, "\n# forward-zone:\n")) ||
		(line = strstr(text, "\n# stub-zone:\n")); )
		line[1] = ' ';
	for(line = text; (line = strstr(line, "\n# tsig-key:\n")); )
		line[1] = ' ';
	for(line = text; (line = strstr(line, "\n# auth-zone:\n")); )
		line[1] = ' ';
	for(line = text; (line = strstr(line, "\n# rpz:\n")) ||
		(line = strstr(text, "\n# view:\n")); )
		line[1] = ' ';
	cfg = config_create();
	if(config_read_mem(cfg, "example-uncommented.conf", text,
		strlen(text), err, sizeof(err)) != 0)
		ck_abort_msg("example.conf with every option: %s", err);
	ck_assert_str_eq(get(cfg, "name"), "example.com.\nexample.org.");
	ck_assert_str_eq(cfg->local_zones->name, "example.");
	free(text);
	config_delete(cfg);
}
END_TEST

/** run petrel-checkconf, capture stdout+stderr; @return exit code */
static int
run_checkconf(const char *args, char *out, size_t len)
{
	char cmd[2048];
	FILE *p;
	size_t n;
	int st;
	snprintf(cmd, sizeof(cmd), "cd '%s' && '%s/smallapp/petrel-checkconf' "
		"%s 2>&1", CONFDIR, CONFIG_TOP_BUILDDIR, args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	n = fread(out, 1, len - 1, p);
	out[n] = 0;
	st = pclose(p);
	ck_assert(WIFEXITED(st));
	return WEXITSTATUS(st);
}

START_TEST(test_checkconf)
{
	char out[8192];
	/* (good-full.conf names files of another machine, root-hints
	 * /usr/share/dns/root.hints: petrel-checkconf makes the start-up
	 * checks, so it passes only where they exist) */
	ck_assert_int_eq(run_checkconf("good-include.conf", out, sizeof(out)),
		0);
	ck_assert_str_eq(out, "petrel-checkconf: no errors in "
		"good-include.conf\n");
	ck_assert_int_eq(run_checkconf("bad-port.conf", out, sizeof(out)), 1);
	ck_assert_str_eq(out, "bad-port.conf:2: port: expected an integer "
		"from 1 to 65535, got '70000'\n");
	ck_assert_int_eq(run_checkconf("-o pidfile good-full.conf", out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "/run/petrel.pid\n");
	ck_assert_int_eq(run_checkconf("-o interface good-include.conf", out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "127.0.0.1\n127.0.0.2\n127.0.0.3\n");
	ck_assert_int_eq(run_checkconf("-o prot good-full.conf", out,
		sizeof(out)), 1);
	ck_assert_str_eq(out, "petrel-checkconf: unknown option 'prot', did "
		"you mean 'port'?\n");
	ck_assert_int_eq(run_checkconf("-f good-full.conf", out, sizeof(out)),
		0);
	ck_assert_ptr_nonnull(strstr(out, "/testdata/conf/good-full.conf\n"));
	ck_assert(out[0] == '/');
	ck_assert_int_eq(run_checkconf("no-such.conf", out, sizeof(out)), 1);
	ck_assert_str_eq(out, "no-such.conf: cannot open: No such file or "
		"directory\n");
	/* warnings go to stderr, and the check passes */
	ck_assert_int_eq(run_checkconf("debian-admin/unbound.conf", out,
		sizeof(out)), 0);
	/* (its delay-close: line, once ignored with a warning, is an
	 * option petrel has: issue 31) */
	ck_assert_int_eq(count_str(out, "warning: "), 0);
	ck_assert_ptr_nonnull(strstr(out, "petrel-checkconf: no errors in "
		"debian-admin/unbound.conf\n"));
	/* -o of an ignored option: its state on stderr, no value */
	ck_assert_int_eq(run_checkconf("-o fake-sha1 good-include.conf", out,
		sizeof(out)), 0);
	ck_assert_str_eq(out, "petrel-checkconf: fake-sha1: ignored: a switch "
		"of Unbound's test harness (testbound), not of the server\n");
	/* Debian's stock config passes too, once unbound-anchor wrote its
	 * auto-trust-anchor-file; before, it fails as the start fails
	 * (issue 31) */
	if(access("/var/lib/unbound/root.key", R_OK) == 0) {
		ck_assert_int_eq(run_checkconf("debian/unbound.conf", out,
			sizeof(out)), 0);
		ck_assert_ptr_nonnull(strstr(out, "petrel-checkconf: no errors "
			"in debian/unbound.conf\n"));
	} else {
		ck_assert_int_eq(run_checkconf("debian/unbound.conf", out,
			sizeof(out)), 1);
		ck_assert_ptr_nonnull(strstr(out, "/var/lib/unbound/root.key: "
			"cannot open"));
	}
}
END_TEST

/** the suite */
static Suite *
config_suite(void)
{
	Suite *s = suite_create("config");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_bad_configs);
	tcase_add_test(tc, test_modules_dnssec);
	tcase_add_test(tc, test_dnstap_clause);
	tcase_add_test(tc, test_good_full);
	tcase_add_test(tc, test_include_glob);
	tcase_add_test(tc, test_include_directory);
	tcase_add_test(tc, test_debian);
	tcase_add_test(tc, test_installed_unbound_configs);
	tcase_add_test(tc, test_unbound_manpage_names);
	tcase_add_test(tc, test_opnsense_style);
	tcase_add_test(tc, test_only_yes_warn);
	tcase_add_test(tc, test_nothing_half_applied);
	tcase_add_test(tc, test_syntax_corners);
	tcase_add_test(tc, test_errors_inline);
	tcase_add_test(tc, test_override_date);
	tcase_add_test(tc, test_one_line_statements);
	tcase_add_test(tc, test_nsid);
	tcase_add_test(tc, test_ignored_warn_once);
	tcase_add_test(tc, test_port_rules);
	tcase_add_test(tc, test_build_dependent);
	tcase_add_test(tc, test_set_option);
	tcase_add_test(tc, test_dup);
	tcase_add_test(tc, test_table);
	tcase_add_test(tc, test_print_parse_roundtrip);
	tcase_add_test(tc, test_docs_match_table);
	tcase_add_test(tc, test_example_conf);
	tcase_add_test(tc, test_checkconf);
	suite_add_tcase(s, tc);
	return s;
}

/** main: run the suite */
int
main(void)
{
	int failed;
	SRunner *sr = srunner_create(config_suite());
	/* module-config is checked against the build's module list */
	modstack_config_register();
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
