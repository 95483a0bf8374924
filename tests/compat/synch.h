/*
 * tests/compat/synch.h - Solaris mutex_t and rwlock_t on POSIX threads.
 * See thread.h in this folder: a test shim, never installed.
 */
#ifndef TESTS_COMPAT_SYNCH_H
#define TESTS_COMPAT_SYNCH_H

#include <pthread.h>

#define USYNC_THREAD	0x00
#define USYNC_PROCESS	0x01

typedef pthread_mutex_t mutex_t;
typedef pthread_rwlock_t rwlock_t;

static inline int
mutex_init(mutex_t *m, int type, void *arg)
{
	(void)arg;
	if(type != USYNC_THREAD)
		return 22; /* EINVAL: the shim only does thread-private locks */
	return pthread_mutex_init(m, NULL);
}
static inline int mutex_destroy(mutex_t *m) { return pthread_mutex_destroy(m); }
static inline int mutex_lock(mutex_t *m) { return pthread_mutex_lock(m); }
static inline int mutex_trylock(mutex_t *m) { return pthread_mutex_trylock(m); }
static inline int mutex_unlock(mutex_t *m) { return pthread_mutex_unlock(m); }

static inline int
rwlock_init(rwlock_t *l, int type, void *arg)
{
	(void)arg;
	if(type != USYNC_THREAD)
		return 22;
	return pthread_rwlock_init(l, NULL);
}
static inline int rwlock_destroy(rwlock_t *l) { return pthread_rwlock_destroy(l); }
static inline int rw_rdlock(rwlock_t *l) { return pthread_rwlock_rdlock(l); }
static inline int rw_wrlock(rwlock_t *l) { return pthread_rwlock_wrlock(l); }
static inline int rw_unlock(rwlock_t *l) { return pthread_rwlock_unlock(l); }

#endif /* TESTS_COMPAT_SYNCH_H */
