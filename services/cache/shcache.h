/*
 * services/cache/shcache.h - the cache shared by forked workers
 * (shared-cache: yes with thread-model: fork).
 *
 * The supervisor makes one shared mapping (util/storage/shmarena.h)
 * before it forks, sized for the message cache (msg-cache-size,
 * msg-cache-slabs), the RRset cache (rrset-cache-size,
 * rrset-cache-slabs) and the infrastructure cache, and the three caches'
 * tables in it (util/storage/shmhash.h). Every worker process inherits
 * the mapping and makes its own handles on the tables
 * (mcache_create_shared, rrset_cache_create_shared, infra_create_shared),
 * so an answer, an RRset or a server's RTT stored by one worker is seen by
 * every other.
 *
 * Readers: each worker process registers in the mapping's QSBR domain
 * (shcache_reader_start) and goes offline/online around its event loop's
 * waits (shcache_hook_before_wait/after_wake, the event layer's idle
 * hooks), so entries it may still be reading are not reused under it.
 *
 * A worker that dies: the supervisor calls shcache_worker_died with its
 * pid, which clears the reader slots it held (so it holds back no
 * reclamation) and takes every slab lock once, repairing a slab whose
 * lock the dead worker held in the middle of a write (robust mutexes;
 * see shmhash.h), before the worker is restarted.
 *
 * The struct shcache itself is process-local (each process has its copy
 * after fork, with its own reader slot); the mapping is shared.
 */
#ifndef SERVICES_CACHE_SHCACHE_H
#define SERVICES_CACHE_SHCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct shcache;
struct mcache;
struct mcache_params;
struct rrset_cache;
struct infra_cache;

/**
 * Make the mapping and the message, RRset and infrastructure caches'
 * tables in it.
 * @param mp: the message cache settings (maxmem, slabs).
 * @param rrset_maxmem: rrset-cache-size.
 * @param rrset_slabs: rrset-cache-slabs.
 * @param infra_maxmem: the infrastructure cache's budget.
 * @param infra_slabs: its slabs.
 * @param err: message buffer.
 * @param errlen: its size.
 * @return the shared cache, or NULL with err filled (out of memory, or
 *	no robust process-shared mutexes on this platform).
 */
struct shcache *shcache_create(const struct mcache_params *mp,
	size_t rrset_maxmem, size_t rrset_slabs, size_t infra_maxmem,
	size_t infra_slabs, char *err, size_t errlen);

/** Unmap (in this process) and free. NULL is ok. */
void shcache_delete(struct shcache *sc);

/** @return 1 if the shared cache was made for these sizes */
int shcache_fits(const struct shcache *sc, const struct mcache_params *mp,
	size_t rrset_maxmem, size_t rrset_slabs, size_t infra_maxmem,
	size_t infra_slabs);

/**
 * A message cache handle of this process on the shared table.
 * @param sc: the shared cache.
 * @param mp: the settings (the TTL rules etc. are per handle).
 * @return the handle (mcache_delete frees it) or NULL.
 */
struct mcache *shcache_msg(struct shcache *sc, const struct mcache_params *mp);

/**
 * An RRset cache handle of this process on the shared table.
 * @return the handle (rrset_cache_delete frees it) or NULL.
 */
struct rrset_cache *shcache_rrset(struct shcache *sc, uint32_t min_ttl,
	uint32_t max_ttl);

/**
 * An infrastructure cache handle of this process on the shared table.
 * @return the handle (infra_delete frees it) or NULL.
 */
struct infra_cache *shcache_infra(struct shcache *sc, uint32_t host_ttl);

/**
 * Register this process as a reader (a worker, once, in the child).
 * @return 0, or -1 when the mapping's reader slots are all taken.
 */
int shcache_reader_start(struct shcache *sc);

/** Release this process's reader slot (a worker that stops). */
void shcache_reader_stop(struct shcache *sc);

/** Idle hook (before the event loop waits): go offline. @param sc: the
 *  struct shcache */
void shcache_hook_before_wait(void *sc);

/** Idle hook (after the wait): come back online. */
void shcache_hook_after_wake(void *sc);

/**
 * Supervisor: a worker process died. Clears its reader slots and repairs
 * any slab it left in the middle of a write.
 * @param sc: the shared cache.
 * @param pid: the dead worker.
 * @return the number of slabs repaired.
 */
size_t shcache_worker_died(struct shcache *sc, pid_t pid);

/**
 * Run the consistency checker on the shared tables (shmhash_check).
 * @return 0 when consistent, -1 with err filled.
 */
int shcache_check(struct shcache *sc, char *err, size_t errlen);

/** @return slabs repaired after a dead writer, since the cache was made */
size_t shcache_repairs(struct shcache *sc);

/** @return the bytes of the mapping */
size_t shcache_mapping_size(const struct shcache *sc);

#endif /* SERVICES_CACHE_SHCACHE_H */
