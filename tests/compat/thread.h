/*
 * tests/compat/thread.h - a Solaris threads shim on POSIX threads.
 *
 * This exists only so that petrel's Solaris-threads code path
 * (--with-solaris-threads) is compiled and tested on Linux: configure with
 *   CPPFLAGS=-I$srcdir/tests/compat ./configure --with-solaris-threads
 * It implements the Solaris calls petrel uses (thr_create, thr_join,
 * thr_self, thr_keycreate, thr_setspecific, thr_getspecific) with the
 * Solaris signatures and error conventions (0 or an errno value). It is
 * not a complete Solaris threads library and is never installed.
 */
#ifndef TESTS_COMPAT_THREAD_H
#define TESTS_COMPAT_THREAD_H

#include <pthread.h>
#include <stddef.h>
#include "synch.h"

typedef pthread_t thread_t;
typedef pthread_key_t thread_key_t;

#define THR_BOUND	0x01
#define THR_DETACHED	0x40

static inline int
thr_create(void *stack_base, size_t stack_size, void *(*start)(void *),
	void *arg, long flags, thread_t *new_thread)
{
	pthread_attr_t attr;
	pthread_t t;
	int r;
	if(stack_base != NULL)
		return 22; /* EINVAL: no caller-supplied stacks in the shim */
	if((r = pthread_attr_init(&attr)) != 0)
		return r;
	if(stack_size && (r = pthread_attr_setstacksize(&attr, stack_size)) != 0)
		goto out;
	if(flags & THR_DETACHED)
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	r = pthread_create(&t, &attr, start, arg);
	if(r == 0 && new_thread)
		*new_thread = t;
out:
	pthread_attr_destroy(&attr);
	return r;
}

static inline int
thr_join(thread_t t, thread_t *departed, void **status)
{
	int r = pthread_join(t, status);
	if(r == 0 && departed)
		*departed = t;
	return r;
}

static inline thread_t thr_self(void) { return pthread_self(); }

static inline int
thr_keycreate(thread_key_t *key, void (*destructor)(void *))
{
	return pthread_key_create(key, destructor);
}

static inline int
thr_setspecific(thread_key_t key, void *value)
{
	return pthread_setspecific(key, value);
}

static inline int
thr_getspecific(thread_key_t key, void **valuep)
{
	*valuep = pthread_getspecific(key);
	return 0;
}

#endif /* TESTS_COMPAT_THREAD_H */
