/*
 * tests/check_daemon.c - Check suite for the process pieces of daemon/:
 * systemd's notify protocol, the listening-set comparison that decides
 * whether a reload keeps its sockets, the file-descriptor budget, the
 * listening sockets, and the environment built for the workers.
 */
#include "config.h"
#include "daemon/daemon.h"
#include "daemon/env.h"
#include "daemon/sdnotify.h"
#include "daemon/shm_stats.h"
#include "daemon/stats.h"
#include "util/histogram.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "util/config_file.h"
#include "util/log.h"
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>

/** a config from text; fails the test when it does not load */
static struct config_file *
cfg_from(const char *text)
{
	struct config_file *cfg = config_create();
	char err[512];
	ck_assert_ptr_nonnull(cfg);
	ck_assert_msg(config_read_mem(cfg, "test.conf", text, strlen(text),
		err, sizeof(err)) == 0, "config: %s", err);
	return cfg;
}

/** bind a unix datagram socket at path (or abstract when path[0]=='@') */
static int
notify_listener(const char *path)
{
	struct sockaddr_un sun;
	struct timeval tv = { 2, 0 };
	size_t n = strlen(path);
	int fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, n);
	if(path[0] == '@')
		sun.sun_path[0] = 0;
	else	unlink(path);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun,
		(socklen_t)(offsetof(struct sockaddr_un, sun_path) + n)), 0);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return fd;
}

static void
expect_notify(int fd, const char *want)
{
	char buf[128];
	ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
	ck_assert_int_gt(n, 0);
	buf[n] = 0;
	ck_assert_str_eq(buf, want);
}

START_TEST(test_sdnotify_path)
{
	char path[64];
	int fd;
	snprintf(path, sizeof(path), "/tmp/petrel-notify-%d", (int)getpid());
	fd = notify_listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(sdnotify_send("READY=1"), 1);
	expect_notify(fd, "READY=1");
	ck_assert_int_eq(sdnotify_send("RELOADING=1"), 1);
	expect_notify(fd, "RELOADING=1");
	ck_assert_int_eq(sdnotify_send("STOPPING=1"), 1);
	expect_notify(fd, "STOPPING=1");
	close(fd);
	unlink(path);
	/* nobody listens any more: an error, not a crash */
	ck_assert_int_eq(sdnotify_send("READY=1"), -1);
	unsetenv("NOTIFY_SOCKET");
	ck_assert_int_eq(sdnotify_send("READY=1"), 0);
	setenv("NOTIFY_SOCKET", "relative/path", 1);
	ck_assert_int_eq(sdnotify_send("READY=1"), -1);
	unsetenv("NOTIFY_SOCKET");
}
END_TEST

START_TEST(test_sdnotify_abstract)
{
	char path[64];
	int fd;
	snprintf(path, sizeof(path), "@petrel-notify-%d", (int)getpid());
	fd = notify_listener(path);
	setenv("NOTIFY_SOCKET", path, 1);
	ck_assert_int_eq(sdnotify_send("READY=1"), 1);
	expect_notify(fd, "READY=1");
	close(fd);
	unsetenv("NOTIFY_SOCKET");
}
END_TEST

START_TEST(test_listen_cfg_equal)
{
	struct config_file *a = cfg_from("server:\n interface: 127.0.0.1\n"
		" port: 5353\n num-threads: 2\n");
	struct config_file *b = cfg_from("server:\n interface: 127.0.0.1\n"
		" port: 5353\n num-threads: 2\n msg-cache-size: 8m\n"
		" local-data: \"x.example. A 192.0.2.1\"\n");
	struct config_file *c = cfg_from("server:\n interface: 127.0.0.1\n"
		" port: 5354\n num-threads: 2\n");
	struct config_file *d = cfg_from("server:\n interface: 127.0.0.1\n"
		" interface: 127.0.0.2\n port: 5353\n num-threads: 2\n");
	struct config_file *e = cfg_from("server:\n interface: 127.0.0.1\n"
		" port: 5353\n num-threads: 2\n so-reuseport: no\n");
	/* cache sizes and local data do not touch the sockets */
	ck_assert_int_eq(daemon_listen_cfg_equal(a, b), 1);
	ck_assert_int_eq(daemon_listen_cfg_equal(a, c), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(a, d), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(d, a), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(a, e), 0);
	config_delete(a); config_delete(b); config_delete(c);
	config_delete(d); config_delete(e);
	/* the socket options of issue 31 and tcp-connection-limit are the
	 * listen set's too: a reload with new values opens it anew */
	a = cfg_from("server:\n interface: 127.0.0.1\n");
	b = cfg_from("server:\n interface: 127.0.0.1\n ip-dscp: 46\n");
	c = cfg_from("server:\n interface: 127.0.0.1\n"
		" tcp-connection-limit: 192.0.2.0/24 5\n");
	d = cfg_from("server:\n interface: 127.0.0.1\n"
		" tcp-connection-limit: 192.0.2.0/24 6\n");
	ck_assert_int_eq(daemon_listen_cfg_equal(a, b), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(a, c), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(c, d), 0);
	ck_assert_int_eq(daemon_listen_cfg_equal(c, c), 1);
	config_delete(a); config_delete(b); config_delete(c);
	config_delete(d);
}
END_TEST

START_TEST(test_fd_budget_select)
{
	/* with select, every descriptor of the process must stay below
	 * FD_SETSIZE: a large outgoing-range is lowered with a warning */
	struct config_file *cfg = cfg_from("server:\n event-backend: select\n"
		" num-threads: 2\n outgoing-range: 4096\n");
	struct daemon *d = daemon_create("test.conf", cfg);
	char cap[2048];
	ck_assert_ptr_nonnull(d);
	log_capture(cap, sizeof(cap));
	ck_assert_int_eq(daemon_check_fds(d), 0);
	log_capture(NULL, 0);
	ck_assert_int_lt(cfg->outgoing_range * 2, FD_SETSIZE);
	ck_assert_int_ge(cfg->outgoing_range, 16);
	ck_assert_ptr_nonnull(strstr(cap, "outgoing-range: 4096 is too large"));
	daemon_delete(d);
}
END_TEST

START_TEST(test_fd_budget_refused)
{
	/* so many workers that even 16 sockets each do not fit: refused,
	 * with a message that names the options to change */
	struct config_file *cfg = cfg_from("server:\n event-backend: select\n"
		" num-threads: 64\n incoming-num-tcp: 10\n");
	struct daemon *d = daemon_create("test.conf", cfg);
	char cap[2048];
	log_capture(cap, sizeof(cap));
	ck_assert_int_eq(daemon_check_fds(d), -1);
	log_capture(NULL, 0);
	ck_assert_ptr_nonnull(strstr(cap, "lower num-threads, outgoing-range"));
	daemon_delete(d);
}
END_TEST

START_TEST(test_fd_budget_raised)
{
	/* libevent: the soft limit is raised towards what is needed */
	struct config_file *cfg = cfg_from("server:\n num-threads: 2\n"
		" outgoing-range: 1500\n");
	struct daemon *d = daemon_create("test.conf", cfg);
	struct rlimit rl;
	if(cfg->event_backend == EVENT_BACKEND_SELECT) {
		daemon_delete(d);
		return; /* a build without libevent */
	}
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(daemon_check_fds(d), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	if(rl.rlim_max >= 4000)
		ck_assert_uint_ge(rl.rlim_cur, 3000);
	daemon_delete(d);
}
END_TEST

/** open a listen set from a config made of fmt with a port filled in,
 * trying ports upward from a start derived from the process ID until one
 * is free: another test run (or another program) may hold any single
 * port on this machine, so the test must not depend on one being free.
 * @param fmt: config text with one %d for the port
 * @param nthreads: workers
 * @param cfg_out: the config used (caller deletes)
 * @return the listen set; the test fails when 200 ports were all taken */
static struct listen_set *
listen_set_try(const char *fmt, int nthreads, struct config_file **cfg_out)
{
	char text[256];
	int i, port0 = 20000 + (int)(getpid() % 20000);
	for(i = 0; i < 200; i++) {
		struct listen_set *ls;
		struct config_file *cfg;
		snprintf(text, sizeof(text), fmt, port0 + i);
		cfg = cfg_from(text);
		log_capture(NULL, 0);
		ls = listen_set_open(cfg, nthreads);
		if(ls) {
			*cfg_out = cfg;
			return ls;
		}
		config_delete(cfg);
	}
	ck_abort_msg("no free port in 200 tries from %d", port0);
	return NULL;
}

START_TEST(test_listen_set)
{
	struct config_file *cfg;
	struct listen_set *ls;
	/* an address of its own in 127/8: other tests and suites listen on
	 * 127.0.0.1 and their own blocks */
	ls = listen_set_try("server:\n interface: 127.0.199.1\n port: %d\n"
		" num-threads: 3\n so-reuseport: yes\n", 3, &cfg);
	ck_assert_ptr_nonnull(ls);
	ck_assert_int_eq(ls->num, 1);
	ck_assert_int_eq(ls->per_worker, 1);
	ck_assert_int_eq(ls->ports[0].num, 3);
	ck_assert_int_ge(ls->ports[0].udp[2], 0);
	ck_assert_int_ge(ls->ports[0].tcp[2], 0);
	listen_set_close(ls);
	config_delete(cfg);
	/* without reuseport one socket pair is shared */
	ls = listen_set_try("server:\n interface: 127.0.199.1\n port: %d\n"
		" num-threads: 3\n so-reuseport: no\n do-tcp: no\n", 3, &cfg);
	ck_assert_ptr_nonnull(ls);
	ck_assert_int_eq(ls->ports[0].num, 1);
	ck_assert_int_eq(ls->ports[0].tcp[0], -1);
	listen_set_close(ls);
	config_delete(cfg);
	/* an address that is not ours: a clear failure, nothing left open */
	cfg = cfg_from("server:\n interface: 192.0.2.77\n port: 5999\n");
	log_capture(NULL, 0);
	ck_assert_ptr_null(listen_set_open(cfg, 1));
	config_delete(cfg);
}
END_TEST

/* interface-automatic-ports: with interface-automatic, an interface
 * without a port is listened on at each port of the list (not port:);
 * a bad list fails clearly */
START_TEST(test_listen_auto_ports)
{
	struct config_file *cfg;
	struct listen_set *ls;
	ls = listen_set_try("server:\n interface-automatic: yes\n"
		" interface: 127.0.199.2\n port: 1\n"
		" interface-automatic-ports: \"%d\"\n", 1, &cfg);
	ck_assert_ptr_nonnull(ls);
	ck_assert_int_eq(ls->num, 1);
	ck_assert_int_eq(netaddr_port(&ls->ports[0].addr),
		atoi(cfg->interface_automatic_ports));
	listen_set_close(ls);
	config_delete(cfg);
	cfg = cfg_from("server:\n interface-automatic: yes\n"
		" interface: 127.0.199.2\n interface-automatic-ports: \"53 x\"\n");
	log_capture(NULL, 0);
	ck_assert_ptr_null(listen_set_open(cfg, 1));
	config_delete(cfg);
}
END_TEST

START_TEST(test_env_keeps_caches)
{
	struct config_file *a = cfg_from("server:\n msg-cache-size: 1m\n");
	struct config_file *b = cfg_from("server:\n msg-cache-size: 1m\n"
		" cache-max-ttl: 60\n");
	struct config_file *c = cfg_from("server:\n msg-cache-size: 2m\n");
	char err[512];
	struct daemon_env *e1 = env_create(a, 1, NULL, err, sizeof(err));
	struct daemon_env *e2, *e3;
	struct mcache *m1;
	ck_assert_msg(e1 != NULL, "%s", err);
	m1 = e1->msg;
	/* same size: the caches move to the new environment */
	e2 = env_create(b, 1, e1, err, sizeof(err));
	ck_assert_ptr_nonnull(e2);
	ck_assert_ptr_eq(e2->msg, m1);
	ck_assert_ptr_null(e1->msg);
	env_delete(e1);
	/* another size: a new message cache, the RRset cache moves */
	e3 = env_create(c, 1, e2, err, sizeof(err));
	ck_assert_ptr_nonnull(e3);
	ck_assert_ptr_ne(e3->msg, NULL);
	ck_assert_ptr_nonnull(e2->msg);
	ck_assert_ptr_null(e2->rrset);
	env_delete(e2);
	env_delete(e3);
	config_delete(a); config_delete(b); config_delete(c);
}
END_TEST

START_TEST(test_env_shared_cache)
{
	/* shared-cache with fork: the caches are handles on a mapping that
	 * moves to the next environment when its sizes stay, and is made
	 * anew when they change */
	const char *base = "server:\n thread-model: fork\n"
		" msg-cache-size: 1m\n rrset-cache-size: 1m\n";
	char text[256], err[512];
	struct config_file *a, *b, *c, *c2, *d;
	struct daemon_env *e1, *e2, *e3;
	struct shcache *sc;
	struct mcache *m1;
	snprintf(text, sizeof(text), "%s shared-cache: yes\n", base);
	a = cfg_from(text);
	snprintf(text, sizeof(text), "%s shared-cache: yes\n"
		" cache-max-ttl: 60\n", base);
	b = cfg_from(text);
	c = cfg_from("server:\n thread-model: fork\n shared-cache: yes\n"
		" msg-cache-size: 2m\n rrset-cache-size: 1m\n");
	c2 = cfg_from("server:\n thread-model: fork\n shared-cache: yes\n"
		" msg-cache-size: 2m\n rrset-cache-size: 1m\n");
	d = cfg_from(base);
	e1 = env_create(a, 1, NULL, err, sizeof(err));
	ck_assert_msg(e1 != NULL, "%s", err);
	ck_assert_ptr_nonnull(e1->shc);
	ck_assert_ptr_nonnull(mcache_shared_table(e1->msg));
	ck_assert_ptr_nonnull(rrset_cache_shared_table(e1->rrset));
	ck_assert_ptr_nonnull(infra_shared_table(e1->infra));
	sc = e1->shc;
	m1 = e1->msg;
	ck_assert_int_eq(env_shared_cache_changed(e1, b), 0);
	ck_assert_int_eq(env_shared_cache_changed(e1, c), 1);
	ck_assert_int_eq(env_shared_cache_changed(e1, d), 1);
	/* same sizes: the mapping and the handles move */
	e2 = env_create(b, 1, e1, err, sizeof(err));
	ck_assert_msg(e2 != NULL, "%s", err);
	ck_assert_ptr_eq(e2->shc, sc);
	ck_assert_ptr_eq(e2->msg, m1);
	ck_assert_ptr_null(e1->shc);
	env_delete(e1);
	/* a fork child reloading alone keeps the running sizes */
	ck_assert_int_eq(env_keep_shared_cache(e2, c2), 1);
	ck_assert_uint_eq(c2->msg_cache_size, 1024 * 1024);
	ck_assert_int_eq(env_shared_cache_changed(e2, c2), 0);
	/* another size: a new mapping */
	e3 = env_create(c, 1, e2, err, sizeof(err));
	ck_assert_msg(e3 != NULL, "%s", err);
	ck_assert_ptr_nonnull(e3->shc);
	ck_assert_ptr_ne(e3->shc, sc);
	ck_assert_ptr_eq(e2->shc, sc);
	env_delete(e2);
	env_delete(e3);
	config_delete(a); config_delete(b); config_delete(c);
	config_delete(c2); config_delete(d);
}
END_TEST

/** the expected word of a ub_stats_info block: what is there, marked */
static void
shm_expect(const uint64_t *w, char *seen, int word, uint64_t want)
{
	ck_assert_msg(w[word] == want, "word %d: %llu, want %llu", word,
		(unsigned long long)w[word], (unsigned long long)want);
	seen[word] = 1;
}

/** one ub_stats_info block against the counters, with Unbound 1.17's
 * word numbers written out (not shm_stats.c's names) */
static void
shm_check_block(const uint64_t *w, const struct stats_info *x,
	const struct stats_globals *g)
{
	static char seen[SHM_STATS_THREAD_WORDS];
	const struct resolver_stats *r = &x->r;
	uint64_t misses = r->num_cache_miss + r->num_prefetch, us;
	double median;
	int i;
	/* the single counters: Unbound's word, petrel's counter */
	const struct { int word; uint64_t v; } one[] = {
		{ 0, r->num_queries }, { 1, r->num_ip_ratelimited },
		{ 2, r->num_cache_miss }, { 3, r->num_prefetch },
		{ 5, r->reqlist_max }, { 6, 1 }, { 537, x->s.num_tcp },
		{ 538, x->s.num_tcpout }, { 539, x->s.num_udpout },
		{ 540, x->s.num_tls }, { 541, x->s.num_https },
		{ 542, r->qipv6 }, { 551, r->qedns }, { 552, r->qedns_do },
		{ 570, r->num_answer_secure }, { 571, r->num_answer_bogus },
		{ 572, r->num_rrset_bogus }, { 573, r->num_ratelimited },
		{ 574, x->s.num_unwanted_replies }, { 575, r->num_acl_denied },
		{ 576, x->tcp_usage }, { 577, r->num_expired },
		{ 618, g->msg_count }, { 619, g->rrset_count },
		{ 620, g->infra_count }, { 621, g->key_count },
		{ 634, r->num_subnet }, { 635, r->num_subnet_cache },
		{ 639, x->s.num_tls_resume }, { 650, x->reqlist_current },
		{ 651, x->reqlist_user }, { 652, r->num_jostled },
		{ 653, r->num_dropped }, { 654, r->num_recursive_replies }
	};
	memset(seen, 0, sizeof(seen));
	for(i = 0; i < (int)(sizeof(one) / sizeof(one[0])); i++)
		shm_expect(w, seen, one[i].word, one[i].v);
	/* the arrays */
	for(i = 0; i <= 256; i++) {
		shm_expect(w, seen, 7 + i, r->qtype[i]);
		shm_expect(w, seen, 264 + i, r->qclass[i]);
	}
	for(i = 0; i < 16; i++)
		shm_expect(w, seen, 521 + i, r->qopcode[i]);
	for(i = 0; i < 8; i++)
		shm_expect(w, seen, 543 + i, r->qflags[i]);
	for(i = 0; i < 17; i++)	/* the rcodes, then NODATA */
		shm_expect(w, seen, 553 + i, r->ans_rcode[i]);
	for(i = 0; i < 40; i++)
		shm_expect(w, seen, 578 + i, r->rec_hist[i]);
	/* the computed words: requestlist.avg's sum */
	shm_expect(w, seen, 4, (uint64_t)((double)r->reqlist_sum *
		(double)misses / (double)r->reqlist_samples + 0.5));
	/* the wait sum: the mean recursion time times the replies */
	us = (uint64_t)((double)r->rec_time_us / (double)hist_count(
		r->rec_hist) / 1e6 * (double)r->num_recursive_replies * 1e6 +
		0.5);
	shm_expect(w, seen, 655, us / 1000000);
	shm_expect(w, seen, 656, us % 1000000);
	median = hist_quantile(r->rec_hist, 0.5);
	ck_assert(memcmp(&w[657], &median, sizeof(median)) == 0);
	seen[657] = 1;
	for(i = 0; i < SHM_STATS_THREAD_WORDS; i++)
		ck_assert_msg(seen[i] || w[i] == 0, "word %d: %llu, want 0", i,
			(unsigned long long)w[i]);
}

START_TEST(test_shm_stats_fill)
{
	/* every counter its own value; three workers, room for two */
	static struct stats_info info[3], tot;
	static uint64_t threads[3 * SHM_STATS_THREAD_WORDS];
	static uint64_t mainw[SHM_STATS_MAIN_WORDS];
	struct stats_globals g = { .now = 1700000000.25, .up = 12.5,
		.elapsed = 3.000001, .mem_msg = 111, .mem_rrset = 222,
		.msg_count = 11, .rrset_count = 12, .infra_count = 13,
		.key_count = 14, .extended = 1 };
	int nthreads = 0, k;
	size_t i;
	memset(&tot, 0, sizeof(tot));
	for(k = 0; k < 3; k++) {
		uint64_t *u = (uint64_t *)&info[k];
		for(i = 0; i < sizeof(info[k]) / sizeof(*u); i++)
			u[i] = (uint64_t)(1000 * k + i + 1);
		stats_add(&tot, &info[k]);
	}
	memset(threads, 0xee, sizeof(threads));
	memset(mainw, 0xee, sizeof(mainw));
	shm_stats_fill(mainw, threads, info, 3, 2, &g);
	shm_check_block(threads, &tot, &g);
	shm_check_block(threads + SHM_STATS_THREAD_WORDS, &info[0], &g);
	shm_check_block(threads + 2 * SHM_STATS_THREAD_WORDS, &info[1], &g);
	memcpy(&nthreads, mainw, sizeof(nthreads));
	ck_assert_int_eq(nthreads, 3);
	ck_assert(mainw[1] == 1700000000 && mainw[2] == 250000);
	ck_assert(mainw[3] == 12 && mainw[4] == 500000);
	ck_assert(mainw[5] == 3 && mainw[6] == 1);
	ck_assert(mainw[7] == 111 && mainw[8] == 222);
	for(k = 9; k < SHM_STATS_MAIN_WORDS; k++)
		ck_assert(mainw[k] == 0);
}
END_TEST

static Suite *
daemon_suite(void)
{
	Suite *s = suite_create("daemon");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_sdnotify_path);
	tcase_add_test(tc, test_sdnotify_abstract);
	tcase_add_test(tc, test_listen_cfg_equal);
	tcase_add_test(tc, test_fd_budget_select);
	tcase_add_test(tc, test_fd_budget_refused);
	tcase_add_test(tc, test_fd_budget_raised);
	tcase_add_test(tc, test_listen_set);
	tcase_add_test(tc, test_listen_auto_ports);
	tcase_add_test(tc, test_env_keeps_caches);
	tcase_add_test(tc, test_env_shared_cache);
	tcase_add_test(tc, test_shm_stats_fill);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(daemon_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
