/*
 * validator/val_kcache.h - the key cache: what the validator learned
 * about each zone's keys.
 *
 * Per zone name and class, one entry:
 *   SECURE    a DNSKEY set that validated down from a trust anchor, kept
 *             until its TTL (the smallest of the set's and its RRSIGs'
 *             remaining validity, as the caller computes) runs out;
 *   INSECURE  the chain of trust provably ends above or at this zone (no
 *             DS, only unsupported algorithms, a domain-insecure name):
 *             a "null key";
 *   BOGUS     the keys could not be validated; kept val-bogus-ttl seconds
 *             so that a broken zone is not fetched again for every query,
 *             with the Extended DNS Error and a short reason for the log
 *             and the answer.
 *
 * The table is util/storage/slabhash.h, bounded in bytes (key-cache-size,
 * key-cache-slabs): each entry counts its whole allocation, and CLOCK
 * eviction keeps the total under the budget. Entries are immutable once
 * stored; a new store for the same zone replaces the old entry.
 *
 * Threads: lookups take no lock and copy the entry out into memory the
 * caller passes (struct val_kinfo), so nothing points into the table
 * afterwards. The caller must be a QSBR reader when other threads write
 * (util/storage/qsbr.h), as with every cache on the table. Stores and
 * flushes take the slab lock. Time is a parameter: no clock is read.
 */
#ifndef VALIDATOR_VAL_KCACHE_H
#define VALIDATOR_VAL_KCACHE_H

#include <stddef.h>
#include <stdint.h>
#include "validator/val_crypto.h"

struct val_kcache;

/** most keys of a cached DNSKEY set */
#define VAL_KCACHE_MAX_KEYS 32
/** most bytes of key RDATA of a cached set */
#define VAL_KCACHE_MAX_BLOB 16384
/** longest reason kept with a bogus entry, NUL included */
#define VAL_KCACHE_REASON 128
/** most DS algorithms kept with an entry (harden-algo-downgrade) */
#define VAL_KCACHE_MAX_ALGS 8
/** default key-cache-size: 4 MB */
#define VAL_KCACHE_SIZE_DEFAULT (4 * 1024 * 1024)
/** default key-cache-slabs */
#define VAL_KCACHE_SLABS_DEFAULT 4
/** default val-bogus-ttl */
#define VAL_BOGUS_TTL_DEFAULT 60

/** the status of a cached zone */
enum val_key_status {
	/** validated keys */
	VAL_KEY_SECURE = 1,
	/** provably insecure: no keys needed */
	VAL_KEY_INSECURE,
	/** failed: bogus until the entry expires */
	VAL_KEY_BOGUS
};

/** a copy of one entry, filled in by val_kcache_lookup */
struct val_kinfo {
	/** enum val_key_status */
	int status;
	/** absolute expiry time */
	uint32_t expiry;
	/** the EDE code of a bogus entry, -1 when none */
	int ede;
	/** the reason of a bogus entry (NUL-terminated, may be empty) */
	char reason[VAL_KCACHE_REASON];
	/** harden-algo-downgrade: the algorithms of the DS set, each of
	 * which must sign; nalgs 0: any one signature will do */
	uint8_t algs[VAL_KCACHE_MAX_ALGS];
	/** how many */
	uint8_t nalgs;
	/** the zone name (wire) */
	uint8_t name[256];
	/** the keys of a SECURE entry, as an RRset over the copies below */
	struct val_rrset keys;
	/** the records */
	struct val_rr rrs[VAL_KCACHE_MAX_KEYS];
	/** the RDATA bytes */
	uint8_t blob[VAL_KCACHE_MAX_BLOB];
};

/**
 * Create a key cache.
 * @param maxmem: key-cache-size, bytes.
 * @param slabs: key-cache-slabs (a power of two; rounded down).
 * @return the cache or NULL. Free with val_kcache_delete.
 */
struct val_kcache *val_kcache_create(size_t maxmem, size_t slabs);

/** free the cache and its entries; no thread may use it any more */
void val_kcache_delete(struct val_kcache *kc);

/** change the byte budget (a reload) */
void val_kcache_set_maxmem(struct val_kcache *kc, size_t maxmem);

/**
 * Store a validated DNSKEY set.
 * @param kc: the cache.
 * @param name: the zone. @param dclass: class.
 * @param keys: the DNSKEY RDATA (uncompressed), n of them.
 * @param ttl: seconds it may be used.
 * @param now: the time.
 * @return 0, or -1 when the set is too large to cache (more than
 *	VAL_KCACHE_MAX_KEYS keys or VAL_KCACHE_MAX_BLOB bytes) or memory ran
 *	out; the caller then validates again next time.
 */
int val_kcache_store_keys(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, const struct val_rr *keys, size_t n, uint32_t ttl,
	uint32_t now);

/**
 * As val_kcache_store_keys, with the DS algorithms every RRset of the
 * zone must be signed with (harden-algo-downgrade; at most
 * VAL_KCACHE_MAX_ALGS, more are not kept).
 */
int val_kcache_store_keys_algs(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, const struct val_rr *keys, size_t n, uint32_t ttl,
	uint32_t now, const uint8_t *algs, size_t nalgs);

/** Store a null key (INSECURE) for ttl seconds. @return 0 or -1. */
int val_kcache_store_insecure(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t ttl, uint32_t now);

/**
 * Store a BOGUS entry for bogus_ttl seconds (val-bogus-ttl).
 * @param ede: the EDE code to answer with. @param reason: short text or
 *	NULL (truncated to VAL_KCACHE_REASON - 1 bytes).
 * @return 0 or -1.
 */
int val_kcache_store_bogus(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, int ede, const char *reason, uint32_t bogus_ttl,
	uint32_t now);

/**
 * Look up a zone.
 * @param kc: the cache. @param name, dclass: the zone.
 * @param now: the time: an entry whose expiry passed is a miss.
 * @param out: filled with a copy of the entry.
 * @return 1 on a hit, 0 on a miss.
 */
int val_kcache_lookup(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t now, struct val_kinfo *out);

/**
 * Find the cache entry of the closest enclosing zone of name that is
 * cached (the name itself, then each parent up to the root).
 * @return 1 with out filled, or 0.
 */
int val_kcache_lookup_closest(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t now, struct val_kinfo *out);

/** Remove a zone's entry. @return 1 if there was one. */
int val_kcache_remove(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass);

/** Remove every BOGUS entry (flush_bogus). @return how many. */
size_t val_kcache_flush_bogus(struct val_kcache *kc);

/** Remove every entry at or below a zone (flush_zone). @return how many.*/
size_t val_kcache_flush_zone(struct val_kcache *kc, const uint8_t *zone);

/** @return bytes in use (entries and table overhead) */
size_t val_kcache_get_mem(struct val_kcache *kc);

/** @return the number of entries */
size_t val_kcache_count(struct val_kcache *kc);

#endif /* VALIDATOR_VAL_KCACHE_H */
