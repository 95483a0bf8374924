/*
 * tests/check_locks.c - Check suite for util/locks.h and util/thread.
 *
 * With a thread library: threads are created and joined, and counters
 * guarded by each kind of lock come out exact under contention. Without
 * one (--without-pthreads): thread_create reports ENOSYS, and the lock
 * macros compile and do nothing, so a forked child sees the same API.
 */
#include "config.h"
#include "util/locks.h"
#include "util/thread.h"
#include <check.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#define NTHREADS 4
#define ITER 200000

static lock_basic_type basic;
static lock_rw_type rw;
static lock_quick_type quick;
static volatile long counter_basic, counter_rw, counter_quick;

static void *
worker(void *arg)
{
	long i;
	(void)arg;
	for(i = 0; i < ITER; i++) {
		lock_basic_lock(&basic);
		counter_basic++;
		lock_basic_unlock(&basic);
		lock_quick_lock(&quick);
		counter_quick++;
		lock_quick_unlock(&quick);
		if(i % 8 == 0) {
			lock_rw_wrlock(&rw);
			counter_rw++;
			lock_rw_unlock(&rw);
		} else {
			long v;
			lock_rw_rdlock(&rw);
			v = counter_rw;
			(void)v;
			lock_rw_unlock(&rw);
		}
	}
	return arg;
}

START_TEST(test_contention)
{
	thread_type t[NTHREADS];
	int i;
	lock_basic_init(&basic);
	lock_rw_init(&rw);
	lock_quick_init(&quick);
	counter_basic = counter_rw = counter_quick = 0;
	if(!thread_have_threads()) {
		ck_assert_int_eq(thread_create(&t[0], worker, NULL), ENOSYS);
		worker(NULL);
		ck_assert_int_eq(counter_basic, ITER);
		ck_assert_str_eq(thread_lib_name(), "none");
		return;
	}
	for(i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(thread_create(&t[i], worker, NULL), 0);
	for(i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(thread_join(t[i]), 0);
	ck_assert_int_eq(counter_basic, (long)NTHREADS * ITER);
	ck_assert_int_eq(counter_quick, (long)NTHREADS * ITER);
	ck_assert_int_eq(counter_rw, (long)NTHREADS * (ITER / 8));
	lock_basic_destroy(&basic);
	lock_rw_destroy(&rw);
	lock_quick_destroy(&quick);
}
END_TEST

static thread_key_type key;

static void *
key_worker(void *arg)
{
	if(thread_key_set(key, arg) != 0)
		return NULL;
	usleep(1000);
	return thread_key_get(key);
}

START_TEST(test_thread_keys)
{
	int a = 1, b = 2, mine = 3;
	ck_assert_int_eq(thread_key_create(&key), 0);
	ck_assert_int_eq(thread_key_set(key, &mine), 0);
	ck_assert_ptr_eq(thread_key_get(key), &mine);
	if(thread_have_threads()) {
		thread_type t1, t2;
		ck_assert_int_eq(thread_create(&t1, key_worker, &a), 0);
		ck_assert_int_eq(thread_create(&t2, key_worker, &b), 0);
		ck_assert_int_eq(thread_join(t1), 0);
		ck_assert_int_eq(thread_join(t2), 0);
		/* each thread saw its own value; ours is untouched */
		ck_assert_ptr_eq(thread_key_get(key), &mine);
	}
}
END_TEST

START_TEST(test_fork_model)
{
	/* the fork model: locks taken in a child process work on its copy */
	pid_t pid;
	int status;
	lock_basic_init(&basic);
	lock_basic_lock(&basic);
	lock_basic_unlock(&basic);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if(pid == 0) {
		lock_basic_lock(&basic);
		counter_basic = 7;
		lock_basic_unlock(&basic);
		_exit(counter_basic == 7 ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	lock_basic_destroy(&basic);
}
END_TEST

START_TEST(test_lib_name)
{
#if defined(HAVE_SOLARIS_THREADS)
	ck_assert_str_eq(thread_lib_name(), "solaris");
#elif defined(HAVE_PTHREAD)
	ck_assert_str_eq(thread_lib_name(), "pthreads");
#else
	ck_assert_str_eq(thread_lib_name(), "none");
#endif
}
END_TEST

static Suite *
locks_suite(void)
{
	Suite *s = suite_create("locks");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_contention);
	tcase_add_test(tc, test_thread_keys);
	tcase_add_test(tc, test_fork_model);
	tcase_add_test(tc, test_lib_name);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(locks_suite());
	int failed;
	/* run in-process: thread keys and locks are process state */
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
