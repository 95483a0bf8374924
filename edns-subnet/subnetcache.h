/*
 * edns-subnet/subnetcache.h - the subnetcache module: EDNS Client Subnet
 * (RFC 7871) towards upstream servers, and a cache of answers per subnet.
 *
 * Where it sits: first in the chain ("subnetcache validator iterator").
 * The front end, when this module is in the stack, gives every client
 * state its subnet (struct module_ecs: the client's ECS option, or its
 * address when it sent none) and the mesh keys the state with it. The
 * module then:
 *   - looks the question up in its own cache of scoped answers, by the
 *     client's address: an answer whose scope covers the client finishes
 *     the state at once;
 *   - else sets an EDNS hook on the state (module_edns_hook): the mesh
 *     asks it for the options of every upstream query, and it adds the
 *     ECS option (source prefix cut to max-client-subnet-ipv4/6) for
 *     servers in send-client-subnet, names in client-subnet-zone, and,
 *     with client-subnet-always-forward, to every server for a client
 *     that sent the option; every reply goes through the hook too, which
 *     keeps the scope of a reply whose ECS option matches the query's;
 *   - when the answer comes back up: scope > 0 keeps it here only, for
 *     the subnet of that scope (qstate->no_cache_store, set as soon
 *     as such a reply arrives: not in the shared message and RRset
 *     caches, nor cachedb's); scope 0 lets it go to them.
 *   The scope is left in qstate->ecs->scope; the front end echoes it in
 *   the ECS option of the reply to a client that sent one (RFC 7871
 *   7.2.1). A client option with source prefix 0 asks for privacy: no
 *   ECS goes upstream for it.
 *
 * The cache (struct ecs_cache) is the worker's own (no locks): a hash
 * table of questions, each with its set of subnets (at most
 * max-ecs-tree-size-ipv4 IPv4 and -ipv6 IPv6 ones; past that the entry
 * that expires first goes), and a byte bound for the whole (the
 * question used longest ago goes first). The set of a question is a
 * short list searched whole (at most the tree size, 100 by default) for
 * the most specific subnet that covers the client.
 *
 * The option's wire code (parse, write, a client's address as its
 * subnet) is in dns/ecs.h, which the front end uses too.
 */
#ifndef EDNS_SUBNET_SUBNETCACHE_H
#define EDNS_SUBNET_SUBNETCACHE_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct module_func_block;
struct module_ecs;
struct mesh_answer;
struct region;

/** the module */
extern const struct module_func_block subnetcache_module_block;

/** the per-worker cache of scoped answers */
struct ecs_cache;

/**
 * Create a cache.
 * @param maxmem: most bytes for all its entries.
 * @param max4: most IPv4 subnets per question; max6: IPv6 ones.
 * @return the cache or NULL.
 */
struct ecs_cache *ecs_cache_create(size_t maxmem, int max4, int max6);

/**
 * Bound how long an entry is kept, as cache-min-ttl and cache-max-ttl
 * bound the message cache (an answer with TTL 0 is still never kept).
 * @param min_ttl: at least this many seconds; max_ttl: at most (0: no
 *	bound).
 */
void ecs_cache_set_ttl(struct ecs_cache *c, uint32_t min_ttl,
	uint32_t max_ttl);

/** Delete a cache and its entries. */
void ecs_cache_delete(struct ecs_cache *c);

/**
 * Store an answer for a subnet. The net is the first scope bits of
 * the address. An entry of the same question and net is replaced.
 * @param c: the cache.
 * @param qname: lower-cased name (wire); qtype, qclass, flags
 *	(MESH_FLAG_DO | MESH_FLAG_CD) complete the question.
 * @param family: 1 IPv4, 2 IPv6; addr: 16 bytes (or 4).
 * @param scope: the scope prefix length (> 0).
 * @param ans: the answer (copied; its smallest TTL is the lifetime,
 *	within the bounds of ecs_cache_set_ttl).
 * @param now: the clock.
 * @return 0, or -1 when not stored (out of memory, tree size 0, TTL 0).
 */
int ecs_cache_store(struct ecs_cache *c, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags, uint16_t family,
	const uint8_t *addr, int scope, const struct mesh_answer *ans,
	time_t now);

/**
 * Look up the answer for a client: the entry with the longest scope
 * that is at most the client's source prefix and whose net holds the
 * client's address.
 * @param client: family, address and source prefix of the client.
 * @param now: the clock (expired entries never match, and are freed).
 * @param r: where the answer is made (TTLs aged).
 * @param scope: the entry's scope, if found.
 * @return the answer, or NULL.
 */
struct mesh_answer *ecs_cache_lookup(struct ecs_cache *c,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, int flags,
	const struct module_ecs *client, time_t now, struct region *r,
	int *scope);

/** @return bytes used by the cache */
size_t ecs_cache_mem(const struct ecs_cache *c);

/** @return the number of subnets kept for a question and family */
size_t ecs_cache_count(struct ecs_cache *c, const uint8_t *qname,
	uint16_t qtype, uint16_t qclass, int flags, uint16_t family);

#endif /* EDNS_SUBNET_SUBNETCACHE_H */
