/*
 * util/thread.c - threads over POSIX threads, Solaris threads, or none.
 */
#include "config.h"
#include "util/thread.h"
#include "util/log.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void
lock_fail(const char *what, int err, const char *file, int line)
{
	log_err("%s:%d: %s failed: %s", file, line, what, strerror(err));
	abort();
}

#if defined(HAVE_SOLARIS_THREADS)
int thread_have_threads(void) { return 1; }
const char *thread_lib_name(void) { return "solaris"; }
int
thread_create(thread_type *t, thread_func_type func, void *arg)
{
	return thr_create(NULL, 0, func, arg, 0, t);
}
int thread_join(thread_type t) { return thr_join(t, NULL, NULL); }
thread_type thread_self(void) { return thr_self(); }
int thread_key_create(thread_key_type *key) { return thr_keycreate(key, NULL); }
int thread_key_set(thread_key_type key, void *value) { return thr_setspecific(key, value); }
void *
thread_key_get(thread_key_type key)
{
	void *v = NULL;
	if(thr_getspecific(key, &v) != 0)
		return NULL;
	return v;
}
#elif defined(HAVE_PTHREAD)
int thread_have_threads(void) { return 1; }
const char *thread_lib_name(void) { return "pthreads"; }
int
thread_create(thread_type *t, thread_func_type func, void *arg)
{
	return pthread_create(t, NULL, func, arg);
}
int thread_join(thread_type t) { return pthread_join(t, NULL); }
thread_type thread_self(void) { return pthread_self(); }
int thread_key_create(thread_key_type *key) { return pthread_key_create(key, NULL); }
int thread_key_set(thread_key_type key, void *value) { return pthread_setspecific(key, value); }
void *thread_key_get(thread_key_type key) { return pthread_getspecific(key); }
#else
/* no threads: one thread of control per process; keys are plain slots */
#define MAX_KEYS 16
static void *key_values[MAX_KEYS];
static int num_keys = 0;
int thread_have_threads(void) { return 0; }
const char *thread_lib_name(void) { return "none"; }
int
thread_create(thread_type *t, thread_func_type func, void *arg)
{
	(void)t; (void)func; (void)arg;
	return ENOSYS;
}
int thread_join(thread_type t) { (void)t; return ENOSYS; }
thread_type thread_self(void) { return 0; }
int
thread_key_create(thread_key_type *key)
{
	if(num_keys >= MAX_KEYS)
		return EAGAIN;
	*key = num_keys++;
	return 0;
}
int
thread_key_set(thread_key_type key, void *value)
{
	if(key < 0 || key >= num_keys)
		return EINVAL;
	key_values[key] = value;
	return 0;
}
void *
thread_key_get(thread_key_type key)
{
	if(key < 0 || key >= num_keys)
		return NULL;
	return key_values[key];
}
#endif
