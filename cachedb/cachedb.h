/*
 * cachedb/cachedb.h - the cachedb module: a second-level cache on Redis,
 * shared by the resolvers of a fleet (module "cachedb", between the
 * validator and the iterator: module-config: "validator cachedb iterator").
 *
 * A state that reaches the module missed the local caches (the front end
 * answers hits before the mesh). The module asks Redis (GET of the
 * question's key, cachedb/cachedb_record.h) and waits at most
 * redis-timeout (or redis-command-timeout); the reply or the timeout
 * resumes the state from the worker's event loop. A fresh value answers
 * the state with TTLs lowered by the time elapsed since it was stored;
 * the answer goes up (the validator, when there is one, validates it: a
 * stored answer never brings its own security status) and the front end
 * stores it in the local caches as any other answer. Anything else (no
 * value, expired, invalid, no reply in time, Redis down) passes the state
 * on to the iterator, and when the iterator's answer comes back up
 * (NOERROR or NXDOMAIN with a TTL) it is written to Redis (SET, with EX
 * when redis-expire-records), unless cachedb-no-store. An answer read
 * from Redis is not written back.
 *
 * serve-expired: an expired value within serve-expired-ttl is kept; the
 * state still goes to the iterator, and only when that fails does the
 * client get the expired answer, with serve-expired-reply-ttl and the
 * Extended DNS Error "Stale Answer".
 * cachedb-check-when-serve-expired (default yes), with serve-expired and
 * serve-expired-client-timeout 0: a client whose question has an expired
 * answer in the local cache is not answered from it at once; the front
 * end sends it to the mesh, this module asks Redis, and a fresh value
 * answers it; when Redis has nothing fresh (or does not reply in time,
 * or is down) the module has the mesh give the expired answer at once
 * (env->serve_stale) and the state goes on to the iterator to refresh
 * the cache. With a client timeout, the expired answer waits for it.
 *
 * Background refreshes (prefetch) skip the lookup: they exist to get a
 * newer answer than the one cached. Lookups go to the replica
 * (redis-replica-*) when one is set and up, else to the server; writes go
 * to the server.
 *
 * Per worker: one connection to the server and one to the replica
 * (cachedb/redis_conn.h), made at the worker's first query through the
 * module and closed when its mesh is deleted. Nothing is shared between
 * workers, so nothing is locked. Without an event loop (the replay
 * runner) the module passes every query on.
 */
#ifndef CACHEDB_CACHEDB_H
#define CACHEDB_CACHEDB_H

struct module_func_block;

/** the cachedb module (name "cachedb") */
extern const struct module_func_block cachedb_module_block;

#endif /* CACHEDB_CACHEDB_H */
