/*
 * services/cache/rrset.c - the RRset cache.
 *
 * Entry layout: one malloc holds struct rrset_entry, the lower-cased owner
 * name, and the RDATA blob: for each RR, then each RRSIG, a 16-bit length
 * and the RDATA. A lookup copies the blob into the caller's region in one
 * go and builds the pointer arrays there.
 */
#include "config.h"
#include "services/cache/rrset.h"
#include "util/storage/cachetab.h"
#include "util/storage/shmhash.h"
#include <stddef.h>
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include <stdlib.h>
#include <string.h>

/**
 * A cached RRset; the owner (lower-cased) follows the struct, then the
 * RDATA blob. It holds no pointer, so a shared table (shared-cache) keeps
 * it as it is.
 */
struct rrset_entry {
	/** absolute expiry */
	time_t expire;
	/** blob length */
	size_t blob_len;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** RRs */
	uint16_t count;
	/** RRSIGs */
	uint16_t sig_count;
	/** owner length */
	uint8_t name_len;
	/** enum rrset_trust */
	uint8_t trust;
	/** enum rrset_security */
	uint8_t sec;
	/** 1: a DNAME received with TTL 0, kept for RRSET_ZERO_TTL_GRACE
	 * (its lookups say TTL 0) */
	uint8_t zero_ttl;
	/** 1: a parent-side copy (rrset_cache_store_pside), an entry apart
	 * from the set of the same name, type and class */
	uint8_t pside;
};

/** the owner of an entry */
#define RE_NAME(e) ((uint8_t *)(uintptr_t)((e) + 1))
/** the RDATA blob of an entry */
#define RE_BLOB(e) (RE_NAME(e) + (e)->name_len)

/** a lookup key */
struct rrset_key {
	/** lower-cased owner */
	const uint8_t *name;
	/** its length */
	size_t name_len;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** 1: the parent-side copy */
	uint8_t pside;
};

/** mixed into the hash of a parent-side copy */
#define RRSET_PSIDE_HASH 0x5bd1e995u

/** the table hash of a key */
static uint32_t
rrset_hash(const uint8_t *lname, size_t len, uint16_t type,
	uint16_t rrclass, int pside)
{
	return dns_qinfo_hash(lname, len, type, rrclass) ^
		(pside ? RRSET_PSIDE_HASH : 0);
}

/** the cache */
struct rrset_cache {
	/** the table: per-process or shared (util/storage/cachetab.h);
	 * an entry is a struct rrset_entry, its owner and blob */
	struct cachetab tab;
	/** cache-min-ttl */
	uint32_t min_ttl;
	/** cache-max-ttl */
	uint32_t max_ttl;
};

/** does an RRset (a struct rrset_entry) hold the key (a struct
 * rrset_key)? */
static inline int
rrset_match(const void *data, const void *key)
{
	const struct rrset_entry *e = data;
	const struct rrset_key *k = key;
	return e->type == k->type && e->rrclass == k->rrclass &&
		e->pside == k->pside && e->name_len == k->name_len &&
		memcmp(RE_NAME(e), k->name, k->name_len) == 0;
}

/** the RRset cache's keys, for either kind of table */
CACHETAB_TYPE(rrset_type, rrset_match);

/** make a cache on a table of its own (base NULL) or on the shared
 * table at off in the mapping base (cachetab_init) */
static struct rrset_cache *
rrset_cache_make(size_t maxmem, size_t slabs, void *base, uint64_t off,
	uint32_t min_ttl, uint32_t max_ttl)
{
	struct rrset_cache *c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	if(cachetab_init(&c->tab, &rrset_type, slabs, maxmem, base, off)
		!= 0) {
		free(c);
		return NULL;
	}
	c->min_ttl = min_ttl;
	c->max_ttl = max_ttl;
	return c;
}

struct rrset_cache *
rrset_cache_create(size_t maxmem, size_t slabs, uint32_t min_ttl,
	uint32_t max_ttl)
{
	return rrset_cache_make(maxmem, slabs, NULL, 0, min_ttl, max_ttl);
}

size_t
rrset_cache_shared_space(size_t maxmem, size_t slabs)
{
	return shmhash_space(slabs, maxmem);
}

uint64_t
rrset_cache_shared_init(void *base, size_t maxmem, size_t slabs)
{
	return shmhash_create(base, slabs, maxmem);
}

struct rrset_cache *
rrset_cache_create_shared(void *base, uint64_t off, uint32_t min_ttl,
	uint32_t max_ttl)
{
	return rrset_cache_make(0, 0, base, off, min_ttl, max_ttl);
}

void
rrset_cache_delete(struct rrset_cache *c)
{
	if(!c)
		return;
	cachetab_destroy(&c->tab);
	free(c);
}

void
rrset_cache_set_params(struct rrset_cache *c, size_t maxmem,
	uint32_t min_ttl, uint32_t max_ttl)
{
	c->min_ttl = min_ttl;
	c->max_ttl = max_ttl;
	cachetab_set_maxmem(&c->tab, maxmem);
}

/** @return 1 when two entries hold the same records (in any order;
 * their RRSIGs are not compared) */
static int
rrset_same_rrs(const struct rrset_entry *a, const struct rrset_entry *b)
{
	const uint8_t *p, *q;
	size_t i, j;
	if(a->count != b->count)
		return 0;
	for(i = 0, p = RE_BLOB(a); i < a->count; i++) {
		size_t l = dns_read_u16(p);
		for(j = 0, q = RE_BLOB(b); j < b->count; j++) {
			size_t m = dns_read_u16(q);
			if(l == m && memcmp(p + 2, q + 2, l) == 0)
				break;
			q += 2 + m;
		}
		if(j == b->count)
			return 0;
		p += 2 + l;
	}
	return 1;
}

/** is this set (replacing old, live) protected against TTL extension? */
static int
ghost_protected(const struct rrset_entry *old, const struct rrset_entry *e)
{
	if(e->type == DNS_TYPE_NS)
		/* an NS set not authoritatively from the child keeps the
		 * old expiry (a child-apex NS answer without AA does not
		 * extend the parent's delegation: iter_ghost_*.rpl), and
		 * so does a changed NS set of no higher trust, the child's
		 * own too (a domain moved away is not kept alive by its old
		 * servers' answers: iter_domain_sale_nschange.rpl); the
		 * child's authoritative data after the parent's referral
		 * gets its own TTL */
		return e->trust < RRSET_TRUST_AUTH_AA ||
			e->trust <= old->trust;
	if(e->trust >= RRSET_TRUST_AUTH_AA)
		/* authoritative from the child itself; but the same
		 * addresses as the glue it replaces do not renew that glue
		 * (the delegation would live on through them) */
		return (e->type == DNS_TYPE_A || e->type == DNS_TYPE_AAAA) &&
			old->trust < RRSET_TRUST_ANS_NOAA &&
			rrset_same_rrs(old, e);
	/* glue: address records from outside an authoritative answer */
	return (e->type == DNS_TYPE_A || e->type == DNS_TYPE_AAAA) &&
		e->trust < RRSET_TRUST_ANS_NOAA;
}

/** what the insert policy is given */
struct rrset_decide_arg {
	/** the time */
	time_t now;
	/** seconds before its expiry a cached set counts as expired
	 * (rrset_cache_store_leeway) */
	time_t leeway;
	/** when the query started (rrset_cache_store_answer), at most
	 * now: an NS set counts as expired only if it was then */
	time_t qstart;
	/** out: 1 when the set went in with the old set's expiry */
	int held;
};

/** the insert policy (see the header; a cachetab_decide_func): old and
 * data are RRsets, arg is a struct rrset_decide_arg */
static int
rrset_decide(const void *olddata, void *data, void *arg)
{
	const struct rrset_entry *old = olddata;
	struct rrset_entry *e = data;
	struct rrset_decide_arg *d = arg;
	time_t now = e->type == DNS_TYPE_NS ? d->qstart : d->now;
	if(old->expire <= now + d->leeway || (old->zero_ttl && !e->zero_ttl))
		return 1;
	/* a validated set replaces one that is not, whatever their trust
	 * ranks (as Unbound prefers secure data): the glue a referral or
	 * an NS answer left unchecked takes the status the validator gave
	 * it later */
	if(e->sec == RRSET_SEC_SECURE && old->sec != RRSET_SEC_SECURE) {
		if(ghost_protected(old, e) && e->expire > old->expire) {
			e->expire = old->expire;
			d->held = 1;
		}
		return 1;
	}
	if(e->trust < old->trust)
		return 0;
	if(e->trust == old->trust && e->count == old->count &&
		e->sig_count == old->sig_count && e->sec == old->sec &&
		e->blob_len == old->blob_len &&
		memcmp(RE_BLOB(e), RE_BLOB(old), e->blob_len) == 0)
		return 0;
	if(ghost_protected(old, e) && e->expire > old->expire) {
		e->expire = old->expire;
		d->held = 1;
	}
	return 1;
}

int
rrset_cache_store(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now)
{
	return rrset_cache_store_leeway(c, rs, now, 0);
}

int
rrset_cache_store_leeway(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now, time_t leeway)
{
	return rrset_cache_store_answer(c, rs, now, leeway, now);
}

/** store a set, as the set of its name (pside 0) or its parent-side
 * copy (pside 1); held (may be NULL): rrset_cache_store_held */
static int
rrset_store(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now, time_t leeway, time_t qstart, int pside, int *held);

int
rrset_cache_store_answer(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now, time_t leeway, time_t qstart)
{
	return rrset_store(c, rs, now, leeway, qstart, 0, NULL);
}

int
rrset_cache_store_held(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now, time_t leeway, time_t qstart, int *held)
{
	return rrset_store(c, rs, now, leeway, qstart, 0, held);
}

int
rrset_cache_store_pside(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now)
{
	return rrset_store(c, rs, now, 0, now, 1, NULL);
}

static int
rrset_store(struct rrset_cache *c, const struct rrset_data *rs,
	time_t now, time_t leeway, time_t qstart, int pside, int *held)
{
	struct rrset_decide_arg d;
	struct rrset_entry *e;
	struct rrset_key key;
	size_t i, n, blob = 0, nlen;
	int r;
	uint32_t ttl = rs->ttl > 0x7fffffffu ? 0 : rs->ttl;
	uint8_t *p;
	if(ttl == 0 && rs->type != DNS_TYPE_DNAME)
		return RRSET_NOT_STORED;
	nlen = dname_valid(rs->name, rs->name_len);
	if(nlen == 0 || nlen != rs->name_len || rs->count == 0 ||
		rs->count > 0xffff || rs->sig_count > 0xffff)
		return RRSET_NOT_STORED;
	if(ttl < c->min_ttl)
		ttl = c->min_ttl;
	if(ttl > c->max_ttl)
		ttl = c->max_ttl;
	if(ttl == 0 && rs->type != DNS_TYPE_DNAME)
		return RRSET_NOT_STORED;
	n = rs->count + rs->sig_count;
	for(i = 0; i < n; i++)
		blob += 2 + (size_t)rs->rdlen[i];
	e = cachetab_alloc(&c->tab, sizeof(*e) + nlen + blob);
	if(!e)
		return RRSET_NOT_STORED;
	e->blob_len = blob;
	dname_copy_lower(RE_NAME(e), rs->name);
	e->name_len = (uint8_t)nlen;
	for(p = RE_BLOB(e), i = 0; i < n; i++) {
		dns_write_u16(p, rs->rdlen[i]);
		memcpy(p + 2, rs->rdata[i], rs->rdlen[i]);
		p += 2 + rs->rdlen[i];
	}
	e->type = rs->type;
	e->rrclass = rs->rrclass;
	e->count = (uint16_t)rs->count;
	e->sig_count = (uint16_t)rs->sig_count;
	e->trust = (uint8_t)rs->trust;
	e->sec = (uint8_t)rs->sec;
	/* a DNAME of TTL 0 (RFC 2308: for the transaction in progress)
	 * synthesises the names below it for a grace second more, as
	 * Unbound's cache keeps it, so that a burst of queries under it
	 * does not each go upstream; it is given out with TTL 0 */
	e->zero_ttl = (ttl == 0);
	e->expire = now + (ttl == 0 ? RRSET_ZERO_TTL_GRACE + 1 : (time_t)ttl);
	e->pside = (uint8_t)(pside != 0);
	d.now = now;
	d.leeway = leeway;
	d.qstart = qstart > 0 && qstart < now ? qstart : now;
	d.held = 0;
	if(held)
		*held = 0;
	key.name = RE_NAME(e);
	key.name_len = nlen;
	key.type = e->type;
	key.rrclass = e->rrclass;
	key.pside = e->pside;
	/* the table takes e, whatever the result */
	r = cachetab_insert(&c->tab, rrset_hash(key.name, nlen, key.type,
		key.rrclass, pside), &key, e, sizeof(*e) + nlen + blob,
		rrset_decide, &d);
	if(r == CACHETAB_NOMEM)
		return RRSET_NOT_STORED;
	if(r == CACHETAB_KEPT)
		return RRSET_KEPT;
	if(held)
		*held = d.held;
	return RRSET_STORED;
}

/**
 * Copy an entry into region (or, with region NULL, point into it: only
 * for traversals under the slab lock, arrays in arr).
 */
static int
rrset_copy(const struct rrset_entry *e, time_t now, struct region *region,
	struct rrset_data *out, const uint8_t **arr, uint16_t *lens)
{
	size_t i, n = (size_t)e->count + e->sig_count;
	const uint8_t *blob = RE_BLOB(e), *name = RE_NAME(e);
	if(region) {
		uint8_t *nb = region_alloc(region, e->name_len + e->blob_len);
		arr = region_alloc(region, n * sizeof(*arr));
		lens = region_alloc(region, n * sizeof(*lens));
		if(!nb || !arr || !lens)
			return -1;
		memcpy(nb, RE_NAME(e), e->name_len);
		memcpy(nb + e->name_len, RE_BLOB(e), e->blob_len);
		name = nb;
		blob = nb + e->name_len;
	}
	for(i = 0; i < n; i++) {
		lens[i] = dns_read_u16(blob);
		arr[i] = blob + 2;
		blob += 2 + lens[i];
	}
	out->name = name;
	out->name_len = e->name_len;
	out->type = e->type;
	out->rrclass = e->rrclass;
	out->ttl = e->expire > now && !e->zero_ttl ?
		(uint32_t)(e->expire - now) : 0;
	out->expire = e->expire;
	out->trust = (enum rrset_trust)e->trust;
	out->sec = (enum rrset_security)e->sec;
	out->count = e->count;
	out->sig_count = e->sig_count;
	out->rdata = arr;
	out->rdlen = lens;
	return 0;
}

/** look up the live entry for name (lower-cased), type, class */
static const struct rrset_entry *
rrset_find_side(struct rrset_cache *c, const uint8_t *lname, size_t len,
	uint16_t type, uint16_t rrclass, time_t now, int pside)
{
	struct rrset_key key;
	const struct rrset_entry *e;
	key.name = lname;
	key.name_len = len;
	key.type = type;
	key.rrclass = rrclass;
	key.pside = (uint8_t)(pside != 0);
	e = cachetab_lookup(&c->tab, rrset_hash(lname, len, type, rrclass,
		pside), &key);
	if(!e || e->expire <= now)
		return NULL;
	return e;
}

/** look up the live entry (not a parent-side copy) */
static const struct rrset_entry *
rrset_find(struct rrset_cache *c, const uint8_t *lname, size_t len,
	uint16_t type, uint16_t rrclass, time_t now)
{
	return rrset_find_side(c, lname, len, type, rrclass, now, 0);
}

/** rrset_cache_lookup and its parent-side twin: side 1 looks for the
 * parent-side copy */
static int
rrset_lookup_side(struct rrset_cache *c, const uint8_t *name, uint16_t type,
	uint16_t rrclass, time_t now, struct region *region,
	struct rrset_data *out, int side)
{
	uint8_t lname[DNS_MAX_NAME + 1];
	size_t len = dname_valid(name, DNS_MAX_NAME);
	const struct rrset_entry *e;
	if(len == 0)
		return -1;
	dname_copy_lower(lname, name);
	e = rrset_find_side(c, lname, len, type, rrclass, now, side);
	if(!e)
		return -1;
	return rrset_copy(e, now, region, out, NULL, NULL);
}

int
rrset_cache_lookup_pside(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass, time_t now, struct region *region,
	struct rrset_data *out)
{
	return rrset_lookup_side(c, name, type, rrclass, now, region, out, 1);
}

int
rrset_cache_lookup(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass, time_t now, struct region *region,
	struct rrset_data *out)
{
	return rrset_lookup_side(c, name, type, rrclass, now, region, out, 0);
}

int
rrset_cache_find_delegation(struct rrset_cache *c, const uint8_t *qname,
	uint16_t qclass, time_t now, struct region *region,
	struct rrset_delegation *out)
{
	uint8_t lname[DNS_MAX_NAME + 1];
	const uint8_t *zone;
	size_t len = dname_valid(qname, DNS_MAX_NAME), i, g = 0;
	const struct rrset_entry *e = NULL;
	if(len == 0)
		return -1;
	dname_copy_lower(lname, qname);
	memset(out, 0, sizeof(*out));
	zone = lname;
	for(;;) {
		size_t zlen = len - (size_t)(zone - lname);
		e = rrset_find(c, zone, zlen, DNS_TYPE_NS, qclass, now);
		if(e || zone[0] == 0)
			break;
		zone = dname_strip_label(zone);
	}
	if(!e)
		return -1;
	if(rrset_copy(e, now, region, &out->ns, NULL, NULL) != 0)
		return -1;
	out->glue = region_alloc(region, 2 * out->ns.count *
		sizeof(struct rrset_data));
	if(!out->glue)
		return -1;
	for(i = 0; i < out->ns.count; i++) {
		uint8_t target[DNS_MAX_NAME + 1];
		size_t tlen = dname_valid(out->ns.rdata[i], out->ns.rdlen[i]);
		const struct rrset_entry *a;
		int t;
		if(tlen == 0)
			continue;
		dname_copy_lower(target, out->ns.rdata[i]);
		for(t = 0; t < 2; t++) {
			a = rrset_find(c, target, tlen, t == 0 ? DNS_TYPE_A :
				DNS_TYPE_AAAA, qclass, now);
			if(a && rrset_copy(a, now, region, &out->glue[g],
				NULL, NULL) == 0)
				g++;
		}
	}
	out->glue_count = g;
	return 0;
}

int
rrset_data_from_msg(const struct dns_msg *msg, const struct dns_rrset *set,
	const struct dns_rrset *sigs, enum rrset_trust trust,
	struct region *region, struct rrset_data *out)
{
	size_t n = set->count + (sigs ? sigs->count : 0), k = 0;
	const uint8_t **arr = region_alloc(region, n * sizeof(*arr));
	uint16_t *lens = region_alloc(region, n * sizeof(*lens));
	uint8_t *owner = region_alloc(region, DNS_MAX_NAME);
	/* decompressed RDATA can grow up to the largest RDATA size */
	uint8_t *scratch = region_alloc(region, 65535);
	const struct dns_rrset *s;
	uint32_t ttl = set->min_ttl;
	int pass;
	if(!arr || !lens || !owner || !scratch)
		return -1;
	memset(out, 0, sizeof(*out));
	out->name_len = dns_rr_owner(msg, &msg->rrs[set->first], owner);
	out->name = owner;
	for(pass = 0; pass < 2; pass++) {
		uint16_t i;
		s = pass == 0 ? set : sigs;
		if(!s)
			break;
		if(pass == 1 && s->min_ttl < ttl)
			ttl = s->min_ttl;
		for(i = s->first; i != DNS_RR_NONE; i = msg->rrs[i].next) {
			const struct dns_rr *rr = &msg->rrs[i];
			int l;
			if(k >= n)
				return -1;
			l = dns_rr_rdata_uncompressed(msg, rr, scratch, 65535);
			if(l < 0)
				return -1;
			arr[k] = region_memdup(region, scratch, (size_t)l);
			if(!arr[k] && l > 0)
				return -1;
			lens[k] = (uint16_t)l;
			k++;
		}
	}
	out->type = set->type;
	out->rrclass = set->rrclass;
	out->ttl = ttl;
	out->trust = trust;
	out->sec = RRSET_SEC_UNCHECKED;
	out->count = set->count;
	out->sig_count = k - set->count;
	out->rdata = arr;
	out->rdlen = lens;
	return 0;
}

/* ---- flushing ---- */

/** predicate argument: a lower-cased name */
struct rflush_arg {
	/** name */
	uint8_t name[DNS_MAX_NAME + 1];
	/** length */
	size_t len;
};

/* the removal predicates (cachetab_pred_func): data is an RRset */

static int
rpred_name(const void *data, void *arg)
{
	const struct rrset_entry *e = data;
	const struct rflush_arg *a = arg;
	return e->name_len == a->len && memcmp(RE_NAME(e), a->name, a->len)
		== 0;
}

static int
rpred_zone(const void *data, void *arg)
{
	const struct rrset_entry *e = data;
	return dname_is_subdomain(RE_NAME(e), ((const struct rflush_arg *)
		arg)->name);
}

static int
rflush_set(struct rflush_arg *a, const uint8_t *name)
{
	a->len = dname_valid(name, DNS_MAX_NAME);
	if(a->len == 0)
		return -1;
	dname_copy_lower(a->name, name);
	return 0;
}

size_t
rrset_cache_flush_name(struct rrset_cache *c, const uint8_t *name)
{
	struct rflush_arg a;
	if(rflush_set(&a, name) != 0)
		return 0;
	return cachetab_remove_if(&c->tab, rpred_name, &a);
}

size_t
rrset_cache_flush_type(struct rrset_cache *c, const uint8_t *name,
	uint16_t type, uint16_t rrclass)
{
	struct rflush_arg a;
	struct rrset_key key;
	if(rflush_set(&a, name) != 0)
		return 0;
	size_t n = 0;
	int side;
	key.name = a.name;
	key.name_len = a.len;
	key.type = type;
	key.rrclass = rrclass;
	for(side = 0; side < 2; side++) {
		/* the set and its parent-side copy */
		key.pside = (uint8_t)side;
		n += (size_t)cachetab_remove(&c->tab, rrset_hash(a.name,
			a.len, type, rrclass, side), &key);
	}
	return n;
}

size_t
rrset_cache_flush_zone(struct rrset_cache *c, const uint8_t *zone)
{
	struct rflush_arg a;
	if(rflush_set(&a, zone) != 0)
		return 0;
	return cachetab_remove_if(&c->tab, rpred_zone, &a);
}

void
rrset_cache_flush_all(struct rrset_cache *c)
{
	cachetab_clear(&c->tab);
}

/** traversal state */
struct rdump_arg {
	/** user callback */
	rrset_traverse_func fn;
	/** its argument */
	void *arg;
	/** the time */
	time_t now;
	/** pointer array, 2*65535 entries */
	const uint8_t **arr;
	/** length array */
	uint16_t *lens;
};

/** report one RRset (data) to the traversal callback (arg: the struct
 * rdump_arg) */
static void
rdump_one(const void *data, void *arg)
{
	const struct rrset_entry *e = data;
	struct rdump_arg *a = arg;
	struct rrset_data d;
	if(e->pside)
		return; /* (the parent-side copies are the iterator's) */
	(void)rrset_copy(e, a->now, NULL, &d, a->arr, a->lens);
	a->fn(&d, a->arg);
}

int
rrset_cache_traverse(struct rrset_cache *c, time_t now,
	rrset_traverse_func fn, void *arg)
{
	struct rdump_arg a;
	a.fn = fn;
	a.arg = arg;
	a.now = now;
	a.arr = malloc(2 * 65536 * sizeof(*a.arr));
	a.lens = malloc(2 * 65536 * sizeof(*a.lens));
	if(!a.arr || !a.lens) {
		free(a.arr);
		free(a.lens);
		return -1;
	}
	cachetab_traverse(&c->tab, rdump_one, &a);
	free(a.arr);
	free(a.lens);
	return 0;
}

size_t
rrset_cache_get_mem(struct rrset_cache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.mem;
}

size_t
rrset_cache_get_count(struct rrset_cache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.count;
}

struct shmhash *
rrset_cache_shared_table(struct rrset_cache *c)
{
	return cachetab_shared_table(&c->tab);
}
