/*
 * tests/check_log.c - Check suite for util/log.
 */
#include "config.h"
#include "util/log.h"
#include "util/log_limit.h"
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <regex.h>

static char cap[4096];

START_TEST(test_levels)
{
	log_capture(cap, sizeof(cap));
	log_set_verbosity(1);
	verbose(VERB_OPS, "ops %d", 1);
	verbose(VERB_DETAIL, "detail %d", 2);
	verbose(VERB_ALGO, "algo");
	log_err("err %s", "x");
	ck_assert_ptr_nonnull(strstr(cap, "ops 1"));
	ck_assert_ptr_null(strstr(cap, "detail 2"));
	ck_assert_ptr_null(strstr(cap, "algo"));
	ck_assert_ptr_nonnull(strstr(cap, "error: err x"));
	log_set_verbosity(4);
	verbose(VERB_ALGO, "algo now");
	ck_assert_ptr_nonnull(strstr(cap, "algo now"));
	verbose(VERB_CLIENT, "client");
	ck_assert_ptr_null(strstr(cap, "client"));
	log_capture(NULL, 0);
	log_set_verbosity(1);
}
END_TEST

START_TEST(test_errno_kept)
{
	log_capture(cap, sizeof(cap));
	errno = ENOENT;
	log_warn("open %s", "/nonexistent");
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(cap, "open /nonexistent: No such file or directory"));
	errno = EACCES;
	log_info("info");
	log_err("err");
	log_warnx("warnx");
	verbose(VERB_OPS, "v");
	ck_assert_int_eq(errno, EACCES);
	ck_assert_ptr_null(strstr(cap, "warnx: Permission"));
	log_capture(NULL, 0);
}
END_TEST

START_TEST(test_file_output)
{
	char path[] = "/tmp/petrel-check-log-XXXXXX";
	char buf[2048];
	int fd = mkstemp(path);
	ssize_t n;
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(log_init(path, 0, NULL), 0);
	log_thread_set(3);
	log_err("to the file %d", 42);
	verbose(VERB_OPS, "second line");
	/* rotate: move the file away, reopen, write again */
	{
		char moved[64];
		snprintf(moved, sizeof(moved), "%s.1", path);
		ck_assert_int_eq(rename(path, moved), 0);
		ck_assert_int_eq(log_reopen(), 0);
		log_err("after rotate");
		log_close();
		fd = open(moved, O_RDONLY);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		ck_assert_int_gt(n, 0);
		buf[n] = 0;
		ck_assert_ptr_nonnull(strstr(buf, "error: to the file 42"));
		ck_assert_ptr_nonnull(strstr(buf, ":3] notice: second line"));
		ck_assert_ptr_null(strstr(buf, "after rotate"));
		unlink(moved);
	}
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	ck_assert_ptr_nonnull(strstr(buf, "after rotate"));
	unlink(path);
	/* an unopenable file fails and keeps errno */
	ck_assert_int_eq(log_init("/nonexistent-dir/x.log", 0, NULL), -1);
	ck_assert_int_eq(errno, ENOENT);
}
END_TEST

/** log-time-ascii, log-time-iso and log-thread-id change how a line
 * starts: checked by pattern, whatever the time and zone */
START_TEST(test_formats)
{
	static const struct {
		int ascii, iso, tid;
		const char *re;
	} c[] = {
		{ 0, 0, 0, "^\\[[0-9]+\\] petrel\\[[0-9]+:5\\] error: x\n$" },
		{ 1, 0, 0, "^[A-Z][a-z][a-z] [0-9 ][0-9] [0-9][0-9]:[0-9][0-9]:"
			"[0-9][0-9] petrel\\[[0-9]+:5\\] error: x\n$" },
		{ 1, 1, 0, "^[0-9]{4}-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:"
			"[0-9][0-9]\\.[0-9]{3}[+-][0-9][0-9]:[0-9][0-9] "
			"petrel\\[[0-9]+:5\\] error: x\n$" },
		{ 0, 0, 1, "^\\[[0-9]+\\] petrel\\[[0-9]+:[0-9]+\\] error: x\n$" },
	};
	size_t i;
	for(i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		char path[] = "/tmp/petrel-check-log-XXXXXX";
		char buf[512];
		regex_t re;
		ssize_t n;
		int fd = mkstemp(path);
		ck_assert_int_ge(fd, 0);
		close(fd);
		ck_assert_int_eq(log_init(path, 0, NULL), 0);
		log_set_format(c[i].ascii, c[i].iso, c[i].tid);
		log_thread_set(5);
		log_err("x");
		log_close();
		log_set_format(0, 0, 0);
		fd = open(path, O_RDONLY);
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		unlink(path);
		ck_assert_int_gt(n, 0);
		buf[n] = 0;
		ck_assert_int_eq(regcomp(&re, c[i].re, REG_EXTENDED), 0);
		ck_assert_msg(regexec(&re, buf, 0, NULL, 0) == 0, "%d: '%s'",
			(int)i, buf);
		regfree(&re);
		if(c[i].tid) /* the thread id, not the worker number */
			ck_assert_ptr_null(strstr(buf, ":5] "));
	}
}
END_TEST

START_TEST(test_long_line)
{
	char big[3000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	log_capture(cap, sizeof(cap));
	log_err("%s", big);
	ck_assert_uint_lt(strlen(cap), sizeof(cap));
	log_capture(NULL, 0);
}
END_TEST

/** occurrences of needle in hay */
static int
count_of(const char *hay, const char *needle)
{
	int n = 0;
	const char *p = hay;
	while((p = strstr(p, needle)) != NULL) {
		n++;
		p += strlen(needle);
	}
	return n;
}

/* 300 warnings in one interval: 5 logged and one summary line, given at
 * the first call after the interval; then 5 more may pass */
START_TEST(test_log_limit)
{
	struct log_limit l = LOG_LIMIT_INIT(5, 60, "control");
	struct log_limit l2;
	int i, passed = 0;
	time_t t0 = 1000000;
	log_capture(cap, sizeof(cap));
	for(i = 0; i < 300; i++) {
		if(log_limit_allow(&l, t0 + i / 10)) {
			log_warnx("bad connection %d", i);
			passed++;
		}
	}
	ck_assert_int_eq(passed, 5);
	ck_assert_int_eq(count_of(cap, "bad connection"), 5);
	ck_assert_ptr_nonnull(strstr(cap, "bad connection 4\n"));
	ck_assert_int_eq(count_of(cap, "suppressed"), 0);
	/* still inside the interval: nothing */
	log_limit_flush(&l, t0 + 59);
	ck_assert_int_eq(count_of(cap, "suppressed"), 0);
	/* the interval is over: one line, then warnings pass again */
	ck_assert_int_eq(log_limit_allow(&l, t0 + 60), 1);
	ck_assert_int_eq(count_of(cap, "suppressed"), 1);
	ck_assert_ptr_nonnull(strstr(cap,
		"control: 295 more warnings suppressed in 60 s\n"));
	for(i = 0; i < 4; i++)
		ck_assert_int_eq(log_limit_allow(&l, t0 + 61), 1);
	ck_assert_int_eq(log_limit_allow(&l, t0 + 61), 0);
	/* flush gives the summary without a new warning */
	log_limit_flush(&l, t0 + 200);
	ck_assert_int_eq(count_of(cap, "suppressed"), 2);
	ck_assert_ptr_nonnull(strstr(cap,
		"control: 1 more warnings suppressed in 60 s\n"));
	/* an interval with nothing suppressed logs no summary */
	log_limit_init(&l2, 2, 10, "x");
	ck_assert_int_eq(log_limit_allow(&l2, t0), 1);
	ck_assert_int_eq(log_limit_allow(&l2, t0 + 20), 1);
	ck_assert_int_eq(count_of(cap, "suppressed"), 2);
	log_capture(NULL, 0);
}
END_TEST

static Suite *
log_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, test_levels);
	tcase_add_test(tc, test_errno_kept);
	tcase_add_test(tc, test_file_output);
	tcase_add_test(tc, test_long_line);
	tcase_add_test(tc, test_log_limit);
	tcase_add_test(tc, test_formats);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(log_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
