/*
 * util/locks.h - one lock API over POSIX threads, Solaris threads, or none.
 *
 * Three kinds of lock:
 *   lock_basic  a mutex;
 *   lock_rw     a readers-writer lock;
 *   lock_quick  a spinlock for very short critical sections (a mutex where
 *               the thread library has no spinlock, as with Solaris
 *               threads' portable API).
 * Which library backs them is chosen at configure time: HAVE_SOLARIS_THREADS
 * (thr_create, mutex_t, rwlock_t), HAVE_PTHREAD, or neither. Without a
 * thread library every lock compiles to nothing, and workers can only be
 * forked processes.
 *
 * A lock call that fails is a programming error (double unlock, a lock
 * never initialised): it is logged and the process aborts, so it is found
 * in testing instead of corrupting state.
 *
 * The threads themselves (create, join, self, thread-local keys) are in
 * util/thread.h.
 */
#ifndef UTIL_LOCKS_H
#define UTIL_LOCKS_H

/** report a failed lock operation and abort. */
void lock_fail(const char *what, int err, const char *file, int line)
	__attribute__((noreturn));

#define LOCK_CHECK(call) do { int lock_err_ = (call); \
	if(lock_err_ != 0) lock_fail(#call, lock_err_, __FILE__, __LINE__); \
	} while(0)

#if defined(HAVE_SOLARIS_THREADS)
#include <thread.h>
#include <synch.h>
#define PETREL_HAVE_THREADS 1
typedef mutex_t lock_basic_type;
#define lock_basic_init(l)	LOCK_CHECK(mutex_init((l), USYNC_THREAD, NULL))
#define lock_basic_destroy(l)	LOCK_CHECK(mutex_destroy(l))
#define lock_basic_lock(l)	LOCK_CHECK(mutex_lock(l))
#define lock_basic_unlock(l)	LOCK_CHECK(mutex_unlock(l))
typedef rwlock_t lock_rw_type;
#define lock_rw_init(l)		LOCK_CHECK(rwlock_init((l), USYNC_THREAD, NULL))
#define lock_rw_destroy(l)	LOCK_CHECK(rwlock_destroy(l))
#define lock_rw_rdlock(l)	LOCK_CHECK(rw_rdlock(l))
#define lock_rw_wrlock(l)	LOCK_CHECK(rw_wrlock(l))
#define lock_rw_unlock(l)	LOCK_CHECK(rw_unlock(l))
typedef mutex_t lock_quick_type;
#define lock_quick_init(l)	lock_basic_init(l)
#define lock_quick_destroy(l)	lock_basic_destroy(l)
#define lock_quick_lock(l)	lock_basic_lock(l)
#define lock_quick_unlock(l)	lock_basic_unlock(l)

#elif defined(HAVE_PTHREAD)
#include <pthread.h>
#define PETREL_HAVE_THREADS 1
typedef pthread_mutex_t lock_basic_type;
#define lock_basic_init(l)	LOCK_CHECK(pthread_mutex_init((l), NULL))
#define lock_basic_destroy(l)	LOCK_CHECK(pthread_mutex_destroy(l))
#define lock_basic_lock(l)	LOCK_CHECK(pthread_mutex_lock(l))
#define lock_basic_unlock(l)	LOCK_CHECK(pthread_mutex_unlock(l))
typedef pthread_rwlock_t lock_rw_type;
#define lock_rw_init(l)		LOCK_CHECK(pthread_rwlock_init((l), NULL))
#define lock_rw_destroy(l)	LOCK_CHECK(pthread_rwlock_destroy(l))
#define lock_rw_rdlock(l)	LOCK_CHECK(pthread_rwlock_rdlock(l))
#define lock_rw_wrlock(l)	LOCK_CHECK(pthread_rwlock_wrlock(l))
#define lock_rw_unlock(l)	LOCK_CHECK(pthread_rwlock_unlock(l))
#ifdef HAVE_PTHREAD_SPIN_INIT
typedef pthread_spinlock_t lock_quick_type;
#define lock_quick_init(l)	LOCK_CHECK(pthread_spin_init((l), PTHREAD_PROCESS_PRIVATE))
#define lock_quick_destroy(l)	LOCK_CHECK(pthread_spin_destroy(l))
#define lock_quick_lock(l)	LOCK_CHECK(pthread_spin_lock(l))
#define lock_quick_unlock(l)	LOCK_CHECK(pthread_spin_unlock(l))
#else
typedef pthread_mutex_t lock_quick_type;
#define lock_quick_init(l)	lock_basic_init(l)
#define lock_quick_destroy(l)	lock_basic_destroy(l)
#define lock_quick_lock(l)	lock_basic_lock(l)
#define lock_quick_unlock(l)	lock_basic_unlock(l)
#endif

#else /* no threads: locks compile to nothing */
typedef int lock_basic_type;
#define lock_basic_init(l)	((void)(l))
#define lock_basic_destroy(l)	((void)(l))
#define lock_basic_lock(l)	((void)(l))
#define lock_basic_unlock(l)	((void)(l))
typedef int lock_rw_type;
#define lock_rw_init(l)		((void)(l))
#define lock_rw_destroy(l)	((void)(l))
#define lock_rw_rdlock(l)	((void)(l))
#define lock_rw_wrlock(l)	((void)(l))
#define lock_rw_unlock(l)	((void)(l))
typedef int lock_quick_type;
#define lock_quick_init(l)	((void)(l))
#define lock_quick_destroy(l)	((void)(l))
#define lock_quick_lock(l)	((void)(l))
#define lock_quick_unlock(l)	((void)(l))
#endif

#endif /* UTIL_LOCKS_H */
