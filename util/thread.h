/*
 * util/thread.h - threads over POSIX threads, Solaris threads, or none.
 *
 * thread_create starts a thread; without a thread library it fails with
 * ENOSYS and the caller must fork instead (thread_have_threads() says
 * which). Thread-local keys are provided for data that must follow a
 * thread (the worker number in log lines uses compiler TLS instead).
 */
#ifndef UTIL_THREAD_H
#define UTIL_THREAD_H

#include "util/locks.h"

#if defined(HAVE_SOLARIS_THREADS)
typedef thread_t thread_type;
typedef thread_key_t thread_key_type;
#elif defined(HAVE_PTHREAD)
typedef pthread_t thread_type;
typedef pthread_key_t thread_key_type;
#else
typedef int thread_type;
typedef int thread_key_type;
#endif

/** thread start function */
typedef void *(*thread_func_type)(void *arg);

/** @return 1 if this build has a thread library, 0 if not. */
int thread_have_threads(void);

/** @return the name of the thread library: "pthreads", "solaris", "none". */
const char *thread_lib_name(void);

/**
 * Start a thread.
 * @param t: the new thread's handle is stored here.
 * @param func: start function; arg is passed to it.
 * @return 0, or an errno value (ENOSYS without threads). On failure func is
 *	never called.
 */
int thread_create(thread_type *t, thread_func_type func, void *arg);

/** Wait for a thread to end. @return 0 or an errno value. */
int thread_join(thread_type t);

/** @return the calling thread's handle. */
thread_type thread_self(void);

/** Create a thread-local key. @return 0 or an errno value. */
int thread_key_create(thread_key_type *key);

/** Set this thread's value for key. @return 0 or errno value. */
int thread_key_set(thread_key_type key, void *value);

/** @return this thread's value for key, NULL if unset. */
void *thread_key_get(thread_key_type key);

#endif /* UTIL_THREAD_H */
