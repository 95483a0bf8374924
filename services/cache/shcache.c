/*
 * services/cache/shcache.c - the cache shared by forked workers. See
 * shcache.h.
 */
#include "config.h"
#include "services/cache/shcache.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "util/storage/shmarena.h"
#include "util/storage/shmhash.h"
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** root number of the message cache's table in the mapping */
#define SHCACHE_ROOT_MSG 0
/** root number of the RRset cache's table */
#define SHCACHE_ROOT_RRSET 1
/** root number of the infrastructure cache's table */
#define SHCACHE_ROOT_INFRA 2
/** room for alignment between the tables */
#define SHCACHE_HEADROOM (64 * 1024)

/** the shared cache (process-local view) */
struct shcache {
	/** the mapping at its address in this process */
	void *base;
	/** the message cache budget it was made for */
	size_t msg_maxmem;
	/** and the slabs */
	size_t msg_slabs;
	/** the message cache's table offset */
	uint64_t msg_off;
	/** the RRset cache budget and slabs it was made for */
	size_t rrset_maxmem, rrset_slabs;
	/** the RRset cache's table offset */
	uint64_t rrset_off;
	/** the infrastructure cache budget and slabs it was made for */
	size_t infra_maxmem, infra_slabs;
	/** the infrastructure cache's table offset */
	uint64_t infra_off;
	/** this process's reader slot, or -1 */
	int slot;
	/** handles for the supervisor's repairs and checks */
	struct shmhash *msg, *rrset, *infra;
};

/** the shmhash match of the message cache is private to msgcache.c: the
 * supervisor's handle never looks keys up, so any match will do */
static int
no_match(const void *data, const void *key)
{
	(void)data; (void)key;
	return 0;
}

struct shcache *
shcache_create(const struct mcache_params *mp, size_t rrset_maxmem,
	size_t rrset_slabs, size_t infra_maxmem, size_t infra_slabs,
	char *err, size_t errlen)
{
	struct shcache *sc = calloc(1, sizeof(*sc));
	size_t sz;
	if(!sc) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	sc->slot = -1;
	sc->msg_maxmem = mp->maxmem;
	sc->msg_slabs = mp->slabs;
	sc->rrset_maxmem = rrset_maxmem;
	sc->rrset_slabs = rrset_slabs;
	sc->infra_maxmem = infra_maxmem;
	sc->infra_slabs = infra_slabs;
	sz = SHCACHE_HEADROOM + mcache_shared_space(mp) +
		rrset_cache_shared_space(rrset_maxmem, rrset_slabs) +
		infra_shared_space(infra_maxmem, infra_slabs);
	sc->base = shmarena_map_create(sz);
	if(!sc->base) {
		snprintf(err, errlen, "shared-cache: cannot map %zu bytes of "
			"shared memory: %s", sz, strerror(errno));
		free(sc);
		return NULL;
	}
	sc->msg_off = mcache_shared_init(sc->base, mp);
	sc->rrset_off = sc->msg_off ? rrset_cache_shared_init(sc->base,
		rrset_maxmem, rrset_slabs) : 0;
	sc->infra_off = sc->rrset_off ? infra_shared_init(sc->base,
		infra_maxmem, infra_slabs) : 0;
	if(!sc->msg_off || !sc->rrset_off || !sc->infra_off) {
		snprintf(err, errlen, "shared-cache: cannot make the shared "
			"message cache (this platform lacks robust "
			"process-shared mutexes, or the mapping is too small)");
		goto fail;
	}
	shmarena_root_set(sc->base, SHCACHE_ROOT_MSG, sc->msg_off);
	shmarena_root_set(sc->base, SHCACHE_ROOT_RRSET, sc->rrset_off);
	shmarena_root_set(sc->base, SHCACHE_ROOT_INFRA, sc->infra_off);
	sc->msg = shmhash_attach(sc->base, sc->msg_off, no_match);
	sc->rrset = shmhash_attach(sc->base, sc->rrset_off, no_match);
	sc->infra = shmhash_attach(sc->base, sc->infra_off, no_match);
	if(!sc->msg || !sc->rrset || !sc->infra) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return sc;
fail:
	shmhash_detach(sc->msg);
	shmhash_detach(sc->rrset);
	shmhash_detach(sc->infra);
	shmarena_map_delete(sc->base);
	free(sc);
	return NULL;
}

void
shcache_delete(struct shcache *sc)
{
	if(!sc)
		return;
	shcache_reader_stop(sc);
	shmhash_detach(sc->msg);
	shmhash_detach(sc->rrset);
	shmhash_detach(sc->infra);
	shmarena_map_delete(sc->base);
	free(sc);
}

int
shcache_fits(const struct shcache *sc, const struct mcache_params *mp,
	size_t rrset_maxmem, size_t rrset_slabs, size_t infra_maxmem,
	size_t infra_slabs)
{
	return sc->msg_maxmem == mp->maxmem && sc->msg_slabs == mp->slabs &&
		sc->rrset_maxmem == rrset_maxmem &&
		sc->rrset_slabs == rrset_slabs &&
		sc->infra_maxmem == infra_maxmem &&
		sc->infra_slabs == infra_slabs;
}

struct mcache *
shcache_msg(struct shcache *sc, const struct mcache_params *mp)
{
	return mcache_create_shared(mp, sc->base, sc->msg_off);
}

struct rrset_cache *
shcache_rrset(struct shcache *sc, uint32_t min_ttl, uint32_t max_ttl)
{
	return rrset_cache_create_shared(sc->base, sc->rrset_off, min_ttl,
		max_ttl);
}

struct infra_cache *
shcache_infra(struct shcache *sc, uint32_t host_ttl)
{
	return infra_create_shared(sc->base, sc->infra_off, host_ttl);
}

int
shcache_reader_start(struct shcache *sc)
{
	if(sc->slot >= 0)
		return 0;
	sc->slot = shmarena_qsbr_register(sc->base, getpid());
	return sc->slot >= 0 ? 0 : -1;
}

void
shcache_reader_stop(struct shcache *sc)
{
	if(sc->slot < 0)
		return;
	shmarena_qsbr_unregister(sc->base, sc->slot);
	sc->slot = -1;
}

void
shcache_hook_before_wait(void *arg)
{
	struct shcache *sc = arg;
	if(sc->slot >= 0)
		shmarena_qsbr_offline(sc->base, sc->slot);
}

void
shcache_hook_after_wake(void *arg)
{
	struct shcache *sc = arg;
	if(sc->slot >= 0)
		shmarena_qsbr_online(sc->base, sc->slot);
}

size_t
shcache_worker_died(struct shcache *sc, pid_t pid)
{
	(void)shmarena_qsbr_release_pid(sc->base, pid);
	return shmhash_recover(sc->msg) + shmhash_recover(sc->rrset) +
		shmhash_recover(sc->infra);
}

int
shcache_check(struct shcache *sc, char *err, size_t errlen)
{
	char e[400];
	if(shmhash_check(sc->msg, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "message cache: %s", e);
		return -1;
	}
	if(shmhash_check(sc->rrset, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "RRset cache: %s", e);
		return -1;
	}
	if(shmhash_check(sc->infra, e, sizeof(e)) != 0) {
		snprintf(err, errlen, "infrastructure cache: %s", e);
		return -1;
	}
	return 0;
}

size_t
shcache_repairs(struct shcache *sc)
{
	return shmhash_get_repairs(sc->msg) + shmhash_get_repairs(sc->rrset) +
		shmhash_get_repairs(sc->infra);
}

size_t
shcache_mapping_size(const struct shcache *sc)
{
	return shmarena_map_size(sc->base);
}
