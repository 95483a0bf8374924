/*
 * validator/val_kcache.c - the key cache (see the header).
 *
 * An entry is one allocation: the fixed part, then the zone name, then
 * the key RDATA back to back, each preceded by its 16-bit length. Its
 * mem is slabhash_malloc_size() of that allocation, so the byte budget
 * counts what malloc really hands out.
 */
#include "config.h"
#include "validator/val_kcache.h"
#include "util/storage/slabhash.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** the cache */
struct val_kcache {
	/** the table */
	struct slabhash *table;
};

/** one entry */
struct kentry {
	/** the table's part (first) */
	struct slabhash_entry h;
	/** class */
	uint16_t dclass;
	/** enum val_key_status */
	uint8_t status;
	/** EDE code, -1 for none */
	int16_t ede;
	/** absolute expiry */
	uint32_t expiry;
	/** number of keys */
	uint16_t nkeys;
	/** bytes of the key area */
	uint16_t keybytes;
	/** name length */
	uint16_t namelen;
	/** reason of a bogus entry */
	char reason[VAL_KCACHE_REASON];
	/** the DS algorithms that must sign (harden-algo-downgrade) */
	uint8_t algs[VAL_KCACHE_MAX_ALGS];
	/** how many */
	uint8_t nalgs;
	/** the name (lower case), then the keys: length-prefixed RDATA */
	uint8_t data[];
};

/** a lookup key */
struct kkey {
	/** the name, lower case */
	uint8_t name[DNS_MAX_NAME];
	/** its length */
	size_t len;
	/** class */
	uint16_t dclass;
};

/** does the entry hold this key? */
static int
kc_match(const struct slabhash_entry *he, const void *key)
{
	const struct kentry *e = (const struct kentry *)he;
	const struct kkey *k = key;
	return e->dclass == k->dclass && e->namelen == k->len &&
		memcmp(e->data, k->name, k->len) == 0;
}

/** free an entry */
static void
kc_del(struct slabhash_entry *he, void *arg)
{
	(void)arg;
	free(he);
}

/** fill a key; @return its hash */
static uint32_t
kc_key(struct kkey *k, const uint8_t *name, uint16_t dclass)
{
	uint8_t c[2];
	k->len = dname_copy_lower(k->name, name);
	k->dclass = dclass;
	dns_write_u16(c, dclass);
	return slabhash_hash_bytes(k->name, k->len,
		slabhash_hash_bytes(c, 2, 0x6b657973));
}

struct val_kcache *
val_kcache_create(size_t maxmem, size_t slabs)
{
	struct val_kcache *kc = calloc(1, sizeof(*kc));
	if(!kc)
		return NULL;
	kc->table = slabhash_create(slabs, maxmem, kc_match, kc_del, NULL);
	if(!kc->table) {
		free(kc);
		return NULL;
	}
	return kc;
}

void
val_kcache_delete(struct val_kcache *kc)
{
	if(!kc)
		return;
	slabhash_delete(kc->table);
	free(kc);
}

void
val_kcache_set_maxmem(struct val_kcache *kc, size_t maxmem)
{
	slabhash_set_maxmem(kc->table, maxmem);
}

/**
 * Build and insert an entry.
 * @return 0 or -1.
 */
static int
kc_store(struct val_kcache *kc, const uint8_t *name, uint16_t dclass,
	int status, int ede, const char *reason, const struct val_rr *keys,
	size_t n, uint32_t ttl, uint32_t now, const uint8_t *algs,
	size_t nalgs)
{
	struct kkey k;
	struct kentry *e;
	size_t keybytes = 0, i, o, sz;
	uint32_t h;
	if(n > VAL_KCACHE_MAX_KEYS)
		return -1;
	for(i = 0; i < n; i++)
		keybytes += 2 + (size_t)keys[i].len;
	if(keybytes > VAL_KCACHE_MAX_BLOB)
		return -1;
	h = kc_key(&k, name, dclass);
	sz = sizeof(*e) + k.len + keybytes;
	if(!(e = calloc(1, sz)))
		return -1;
	e->h.hash = h;
	e->h.mem = slabhash_malloc_size(sz);
	e->dclass = dclass;
	e->status = (uint8_t)status;
	e->ede = (int16_t)ede;
	e->expiry = now + ttl;
	e->nkeys = (uint16_t)n;
	e->keybytes = (uint16_t)keybytes;
	e->namelen = (uint16_t)k.len;
	if(nalgs > VAL_KCACHE_MAX_ALGS)
		nalgs = VAL_KCACHE_MAX_ALGS;
	if(nalgs)
		memcpy(e->algs, algs, nalgs);
	e->nalgs = (uint8_t)nalgs;
	if(reason)
		snprintf(e->reason, sizeof(e->reason), "%s", reason);
	memcpy(e->data, k.name, k.len);
	o = k.len;
	for(i = 0; i < n; i++) {
		dns_write_u16(e->data + o, keys[i].len);
		memcpy(e->data + o + 2, keys[i].buf + keys[i].off,
			keys[i].len);
		o += 2 + (size_t)keys[i].len;
	}
	(void)slabhash_insert(kc->table, &e->h, &k, NULL, NULL);
	return 0;
}

int
val_kcache_store_keys(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, const struct val_rr *keys, size_t n, uint32_t ttl,
	uint32_t now)
{
	return kc_store(kc, name, dclass, VAL_KEY_SECURE, -1, NULL, keys, n,
		ttl, now, NULL, 0);
}

int
val_kcache_store_keys_algs(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, const struct val_rr *keys, size_t n, uint32_t ttl,
	uint32_t now, const uint8_t *algs, size_t nalgs)
{
	return kc_store(kc, name, dclass, VAL_KEY_SECURE, -1, NULL, keys, n,
		ttl, now, algs, nalgs);
}

int
val_kcache_store_insecure(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t ttl, uint32_t now)
{
	return kc_store(kc, name, dclass, VAL_KEY_INSECURE, -1, NULL, NULL, 0,
		ttl, now, NULL, 0);
}

int
val_kcache_store_bogus(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, int ede, const char *reason, uint32_t bogus_ttl,
	uint32_t now)
{
	return kc_store(kc, name, dclass, VAL_KEY_BOGUS, ede, reason, NULL, 0,
		bogus_ttl, now, NULL, 0);
}

/** copy an entry out */
static void
kc_copy(const struct kentry *e, struct val_kinfo *out)
{
	size_t o = e->namelen, i;
	out->status = e->status;
	out->expiry = e->expiry;
	out->ede = e->ede;
	memcpy(out->reason, e->reason, sizeof(out->reason));
	memcpy(out->algs, e->algs, sizeof(out->algs));
	out->nalgs = e->nalgs;
	memcpy(out->name, e->data, e->namelen);
	memcpy(out->blob, e->data + e->namelen, e->keybytes);
	for(i = 0; i < e->nkeys; i++) {
		size_t b = o - e->namelen;
		out->rrs[i].buf = out->blob;
		out->rrs[i].buflen = e->keybytes;
		out->rrs[i].len = dns_read_u16(out->blob + b);
		out->rrs[i].off = b + 2;
		o += 2 + (size_t)out->rrs[i].len;
	}
	out->keys.owner = out->name;
	out->keys.type = DNS_TYPE_DNSKEY;
	out->keys.rrclass = e->dclass;
	out->keys.rrs = out->rrs;
	out->keys.count = e->nkeys;
}

int
val_kcache_lookup(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t now, struct val_kinfo *out)
{
	struct kkey k;
	uint32_t h = kc_key(&k, name, dclass);
	const struct kentry *e = (const struct kentry *)slabhash_lookup(
		kc->table, h, &k);
	if(!e || (int32_t)(e->expiry - now) <= 0)
		return 0;
	kc_copy(e, out);
	return 1;
}

int
val_kcache_lookup_closest(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass, uint32_t now, struct val_kinfo *out)
{
	const uint8_t *n = name;
	for(;;) {
		if(val_kcache_lookup(kc, n, dclass, now, out))
			return 1;
		if(n[0] == 0)
			return 0;
		n = dname_strip_label(n);
	}
}

int
val_kcache_remove(struct val_kcache *kc, const uint8_t *name,
	uint16_t dclass)
{
	struct kkey k;
	uint32_t h = kc_key(&k, name, dclass);
	return slabhash_remove(kc->table, h, &k);
}

/** removal predicate: bogus entries */
static int
pred_bogus(const struct slabhash_entry *he, void *arg)
{
	(void)arg;
	return ((const struct kentry *)he)->status == VAL_KEY_BOGUS;
}

size_t
val_kcache_flush_bogus(struct val_kcache *kc)
{
	return slabhash_remove_if(kc->table, pred_bogus, NULL);
}

/** removal predicate: at or below a zone */
static int
pred_zone(const struct slabhash_entry *he, void *arg)
{
	const struct kentry *e = (const struct kentry *)he;
	return dname_is_subdomain(e->data, arg);
}

size_t
val_kcache_flush_zone(struct val_kcache *kc, const uint8_t *zone)
{
	return slabhash_remove_if(kc->table, pred_zone, (void *)zone);
}

size_t
val_kcache_get_mem(struct val_kcache *kc)
{
	return slabhash_get_mem(kc->table);
}

size_t
val_kcache_count(struct val_kcache *kc)
{
	return slabhash_get_count(kc->table);
}
