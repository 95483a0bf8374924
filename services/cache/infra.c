/*
 * services/cache/infra.c - the infrastructure cache.
 *
 * Entries are keyed by a packed address (family, port, address bytes) and,
 * for lameness entries, a lower-cased zone name; host entries have an
 * empty zone. An update builds a new entry with the change applied to the
 * defaults; the table's insert policy (infra_decide, run under the slab
 * lock) re-applies the change to the live entry's state when there is
 * one, so the read-modify-write is atomic.
 */
#include "config.h"
#include "services/cache/infra.h"
#include "util/storage/cachetab.h"
#include "util/storage/shmhash.h"
#include "util/netaddr.h"
#include "util/random.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <arpa/inet.h>

/** packed address: family byte, port (2), address (4 or 16) */
#define IKEY_ADDR_MAX 19

/** an entry (no pointers: a shared table keeps it as it is) */
struct infra_entry {
	/** the state */
	struct infra_host host;
	/** 1 for a lameness entry */
	int lame;
	/** packed address */
	uint8_t addr[IKEY_ADDR_MAX];
	/** its length */
	uint8_t alen;
	/** zone length (0 for a host entry) */
	uint8_t zlen;
	/** zone, lower-cased */
	uint8_t zone[DNS_MAX_NAME + 1];
};

/** a key */
struct infra_key {
	/** packed address */
	uint8_t addr[IKEY_ADDR_MAX];
	/** its length */
	size_t alen;
	/** zone (lower-cased) or empty */
	uint8_t zone[DNS_MAX_NAME + 1];
	/** zone length, 0 for the host entry */
	size_t zlen;
};

/** the kinds of update */
enum infra_upd_kind {
	/** an RTT sample or a timeout */
	UPD_RTT,
	/** EDNS status */
	UPD_EDNS,
	/** lameness */
	UPD_LAME,
	/** a probe claim (infra_probe_claim) */
	UPD_PROBE
};

/** an update, applied in infra_decide */
struct infra_upd {
	/** kind */
	enum infra_upd_kind kind;
	/** RTT sample in ms, -1 for a timeout */
	int rtt;
	/** UPD_RTT: the kind of the query's type (enum
	 * infra_timeout_kind) */
	int tkind;
	/** rto the query went out with */
	int orig_rto;
	/** EDNS status */
	enum infra_edns edns;
	/** the time */
	time_t now;
	/** new expiry */
	time_t expire;
	/** UPD_PROBE: seconds to the next claim */
	int probe_secs;
	/** UPD_PROBE: set to 1 when the claim succeeded (the caller's) */
	int *won;
	/** UPD_RTT: the rto limits (infra-cache-min-rtt, -max-rtt) */
	int min_rto, max_rto;
};

/** the cache */
struct infra_cache {
	/** the table: per-process or shared (util/storage/cachetab.h);
	 * an entry is a struct infra_entry */
	struct cachetab tab;
	/** infra-host-ttl */
	uint32_t host_ttl;
	/** infra-cache-min-rtt, infra-cache-max-rtt: the rto limits, ms */
	int min_rto, max_rto;
	/** unknown-server-time-limit: the rto of a server never heard
	 * from, ms */
	int unknown_rto;
	/** fast-server-permil: times in 1000 a pick is among the fastest;
	 * 0 off */
	int fast_permil;
	/** fast-server-num: how many fastest (1 to INFRA_FAST_MAX) */
	int fast_num;
};

/** does an entry (a struct infra_entry) hold the key (a struct
 * infra_key)? */
static inline int
infra_match(const void *data, const void *key)
{
	const struct infra_entry *e = data;
	const struct infra_key *k = key;
	return e->alen == k->alen && e->zlen == k->zlen &&
		memcmp(e->addr, k->addr, k->alen) == 0 &&
		memcmp(e->zone, k->zone, k->zlen) == 0;
}

/** the infrastructure cache's keys, for either kind of table */
CACHETAB_TYPE(infra_type, infra_match);

/** fill a key from an address and an optional zone; @return 0 or -1 */
static int
infra_key_set(struct infra_key *k, const struct netaddr *a,
	const uint8_t *zone)
{
	memset(k, 0, sizeof(*k));
	if(a->addr.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const struct sockaddr_in *)
			&a->addr;
		k->addr[0] = 4;
		memcpy(k->addr + 1, &s->sin_port, 2);
		memcpy(k->addr + 3, &s->sin_addr, 4);
		k->alen = 7;
	} else if(a->addr.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const struct sockaddr_in6 *)
			&a->addr;
		k->addr[0] = 6;
		memcpy(k->addr + 1, &s->sin6_port, 2);
		memcpy(k->addr + 3, &s->sin6_addr, 16);
		k->alen = 19;
	} else
		return -1;
	if(zone) {
		k->zlen = dname_valid(zone, DNS_MAX_NAME);
		if(k->zlen == 0)
			return -1;
		dname_copy_lower(k->zone, zone);
	}
	return 0;
}

/** the table hash of a key */
static uint32_t
infra_hash(const struct infra_key *k)
{
	return slabhash_hash_bytes(k->zone, k->zlen,
		slabhash_hash_bytes(k->addr, k->alen, 0x1f2a));
}

/** make a cache on a table of its own (base NULL) or on the shared
 * table at off in the mapping base (cachetab_init) */
static struct infra_cache *
infra_make(size_t maxmem, size_t slabs, void *base, uint64_t off,
	uint32_t host_ttl)
{
	struct infra_cache *c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	if(cachetab_init(&c->tab, &infra_type, slabs, maxmem, base, off)
		!= 0) {
		free(c);
		return NULL;
	}
	c->host_ttl = host_ttl;
	c->min_rto = INFRA_RTO_MIN;
	c->max_rto = INFRA_RTO_MAX;
	c->unknown_rto = INFRA_UNKNOWN_RTO;
	c->fast_num = 3;
	return c;
}

struct infra_cache *
infra_create(size_t maxmem, size_t slabs, uint32_t host_ttl)
{
	return infra_make(maxmem, slabs, NULL, 0, host_ttl);
}

size_t
infra_shared_space(size_t maxmem, size_t slabs)
{
	return shmhash_space(slabs, maxmem);
}

uint64_t
infra_shared_init(void *base, size_t maxmem, size_t slabs)
{
	return shmhash_create(base, slabs, maxmem);
}

struct infra_cache *
infra_create_shared(void *base, uint64_t off, uint32_t host_ttl)
{
	return infra_make(0, 0, base, off, host_ttl);
}

void
infra_delete(struct infra_cache *c)
{
	if(!c)
		return;
	cachetab_destroy(&c->tab);
	free(c);
}

void
infra_set_params(struct infra_cache *c, size_t maxmem, uint32_t host_ttl)
{
	c->host_ttl = host_ttl;
	cachetab_set_maxmem(&c->tab, maxmem);
}

void
infra_set_rtt_limits(struct infra_cache *c, int min_ms, int max_ms)
{
	c->min_rto = min_ms > 0 ? min_ms : 1;
	c->max_rto = max_ms >= c->min_rto ? max_ms : c->min_rto;
}

size_t
infra_mem_for_hosts(size_t n)
{
	return n * cachetab_local_entry_mem(sizeof(struct infra_entry));
}

void
infra_set_fast(struct infra_cache *c, int num, int permil)
{
	c->fast_num = num < 1 ? 1 : num > INFRA_FAST_MAX ? INFRA_FAST_MAX :
		num;
	c->fast_permil = permil < 0 ? 0 : permil > 1000 ? 1000 : permil;
}

/**
 * fast-server-permil: a pick among the fast_num candidates with the
 * smallest rto (not lame), at random.
 * @return the index, or -1 when none is usable.
 */
static int
infra_select_fast(struct infra_cache *c, const struct netaddr *cands,
	size_t n, const uint8_t *zone, time_t now, struct petrel_random *rnd,
	int *rto_out)
{
	int idx[INFRA_FAST_MAX], rtos[INFRA_FAST_MAX], k = 0, j, m;
	size_t i;
	/* the fast_num smallest, kept sorted (insertion, n is small) */
	for(i = 0; i < n; i++) {
		int rto;
		if(infra_is_lame(c, &cands[i], zone, now))
			continue;
		rto = infra_get_rto(c, &cands[i], now);
		if(k == c->fast_num && rto >= rtos[k - 1])
			continue;
		j = k < c->fast_num ? k++ : k - 1;
		for(; j > 0 && rtos[j - 1] > rto; j--) {
			rtos[j] = rtos[j - 1];
			idx[j] = idx[j - 1];
		}
		rtos[j] = rto;
		idx[j] = (int)i;
	}
	if(k == 0)
		return -1;
	m = (int)random_uniform(rnd, (uint32_t)k);
	if(rto_out)
		*rto_out = rtos[m];
	return idx[m];
}

void
infra_set_unknown_rto(struct infra_cache *c, int ms)
{
	c->unknown_rto = ms > 0 ? ms : INFRA_UNKNOWN_RTO;
}

/** the state of a server never heard from (rto: the cache's unknown_rto) */
static void
host_default(struct infra_host *h, int rto)
{
	h->srtt = -1;
	h->rttvar = 0;
	h->rto = rto;
	h->timeouts = 0;
	memset(h->type_timeouts, 0, sizeof(h->type_timeouts));
	h->edns = INFRA_EDNS_UNKNOWN;
	h->expire = 0;
	h->probe_at = 0;
}

/** clamp an rto to the update's limits */
static int
rto_clamp(long rto, const struct infra_upd *u)
{
	if(rto > u->max_rto)
		rto = u->max_rto;
	if(rto < u->min_rto)
		rto = u->min_rto;
	return (int)rto;
}

/** apply an update to a state */
static void
host_apply(struct infra_host *h, const struct infra_upd *u)
{
	switch(u->kind) {
	case UPD_RTT:
		if(u->rtt >= 0) {
			if(h->srtt < 0) {
				h->srtt = u->rtt;
				h->rttvar = u->rtt / 2;
			} else {
				int d = h->srtt - u->rtt;
				if(d < 0)
					d = -d;
				h->rttvar += (d - h->rttvar) / 4;
				h->srtt += (u->rtt - h->srtt) / 8;
			}
			h->rto = rto_clamp((long)h->srtt + 4L * h->rttvar, u);
			h->timeouts = 0;
			h->type_timeouts[u->tkind] = 0;
		} else if(u->orig_rto >= h->rto) {
			long base = h->rto > u->orig_rto ? h->rto : u->orig_rto;
			h->rto = rto_clamp(base * 2, u);
			h->timeouts++;
			if(h->type_timeouts[u->tkind] < INFRA_DOWN_TIMEOUTS)
				h->type_timeouts[u->tkind]++;
		}
		/* else: it went out before the last backoff, which a query
		 * sent with it already made: queries lost together (a burst
		 * dropped by a busy server) back off once, not once each */
		break;
	case UPD_EDNS:
		h->edns = u->edns;
		break;
	case UPD_LAME:
		break;
	case UPD_PROBE:
		if(h->probe_at <= u->now) {
			h->probe_at = u->now + u->probe_secs;
			if(u->won)
				*u->won = 1;
		}
		return; /* a claim does not make the entry live longer */
	}
	h->expire = u->expire;
}

/** the insert policy (a cachetab_decide_func): apply the update to the
 * live state; old and data are entries, arg is the struct infra_upd */
static int
infra_decide(const void *olddata, void *data, void *arg)
{
	const struct infra_entry *old = olddata;
	struct infra_entry *e = data;
	const struct infra_upd *u = arg;
	if(old->host.expire > u->now) {
		e->host = old->host;
		host_apply(&e->host, u);
	}
	return 1;
}

/** build and insert an entry carrying an update */
static void
infra_update(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, struct infra_upd *u)
{
	struct infra_key k;
	struct infra_entry *e;
	if(infra_key_set(&k, addr, zone) != 0)
		return;
	e = cachetab_alloc(&c->tab, sizeof(*e));
	if(!e)
		return;
	u->expire = u->now + (time_t)c->host_ttl;
	host_default(&e->host, c->unknown_rto);
	{
		/* a probe claim is won against the live entry only (in the
		 * insert policy), never by this fresh copy */
		int *won = u->won;
		u->won = NULL;
		host_apply(&e->host, u);
		u->won = won;
	}
	e->lame = (u->kind == UPD_LAME);
	memcpy(e->addr, k.addr, k.alen);
	e->alen = (uint8_t)k.alen;
	memcpy(e->zone, k.zone, k.zlen);
	e->zlen = (uint8_t)k.zlen;
	/* the table takes e, whatever the result */
	(void)cachetab_insert(&c->tab, infra_hash(&k), &k, e, sizeof(*e),
		infra_decide, u);
}

/** find a live entry */
static const struct infra_entry *
infra_find(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, time_t now)
{
	struct infra_key k;
	const struct infra_entry *e;
	if(infra_key_set(&k, addr, zone) != 0)
		return NULL;
	e = cachetab_lookup(&c->tab, infra_hash(&k), &k);
	if(!e || e->host.expire <= now)
		return NULL;
	return e;
}

int
infra_host_get(struct infra_cache *c, const struct netaddr *addr,
	time_t now, struct infra_host *out)
{
	const struct infra_entry *e = infra_find(c, addr, NULL, now);
	if(!e) {
		host_default(out, c->unknown_rto);
		return -1;
	}
	*out = e->host;
	return 0;
}

int
infra_get_rto(struct infra_cache *c, const struct netaddr *addr, time_t now)
{
	const struct infra_entry *e = infra_find(c, addr, NULL, now);
	if(e)
		return e->host.rto;
	/* a server never heard from: within the limits too (a raised
	 * infra-cache-min-rtt for slow forwarders) */
	return c->unknown_rto < c->min_rto ? c->min_rto :
		c->unknown_rto > c->max_rto ? c->max_rto : c->unknown_rto;
}

/** @return the kind of a query type, for infra_host.type_timeouts */
static int
timeout_kind(uint16_t qtype)
{
	return qtype == DNS_TYPE_A ? INFRA_TIMEOUT_A :
		qtype == DNS_TYPE_AAAA ? INFRA_TIMEOUT_AAAA :
		INFRA_TIMEOUT_OTHER;
}

void
infra_rtt_update(struct infra_cache *c, const struct netaddr *addr,
	uint16_t qtype, int rtt_ms, int orig_rto, time_t now)
{
	struct infra_upd u;
	memset(&u, 0, sizeof(u));
	u.kind = UPD_RTT;
	u.rtt = rtt_ms;
	u.tkind = timeout_kind(qtype);
	u.orig_rto = orig_rto;
	u.min_rto = c->min_rto;
	u.max_rto = c->max_rto;
	u.now = now;
	infra_update(c, addr, NULL, &u);
}

int
infra_is_down(struct infra_cache *c, const struct netaddr *addr,
	uint16_t qtype, time_t now)
{
	const struct infra_entry *e = infra_find(c, addr, NULL, now);
	return e && e->host.timeouts >= INFRA_DOWN_TIMEOUTS &&
		e->host.type_timeouts[timeout_kind(qtype)] >=
		INFRA_DOWN_TIMEOUTS;
}

int
infra_probe_claim(struct infra_cache *c, const struct netaddr *addr,
	time_t now, int secs)
{
	struct infra_upd u;
	int won = 0;
	const struct infra_entry *e = infra_find(c, addr, NULL, now);
	if(!e || e->host.timeouts < INFRA_DOWN_TIMEOUTS)
		return 1; /* not down (or unknown): nothing to share */
	memset(&u, 0, sizeof(u));
	u.kind = UPD_PROBE;
	u.now = now;
	u.probe_secs = secs > 0 ? secs : 1;
	u.won = &won;
	infra_update(c, addr, NULL, &u);
	return won;
}

void
infra_edns_update(struct infra_cache *c, const struct netaddr *addr,
	enum infra_edns edns, time_t now)
{
	struct infra_upd u;
	memset(&u, 0, sizeof(u));
	u.kind = UPD_EDNS;
	u.edns = edns;
	u.now = now;
	infra_update(c, addr, NULL, &u);
}

void
infra_set_lame(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, time_t now)
{
	struct infra_upd u;
	memset(&u, 0, sizeof(u));
	u.kind = UPD_LAME;
	u.now = now;
	if(zone)
		infra_update(c, addr, zone, &u);
}

int
infra_is_lame(struct infra_cache *c, const struct netaddr *addr,
	const uint8_t *zone, time_t now)
{
	const struct infra_entry *e;
	if(!zone)
		return 0;
	e = infra_find(c, addr, zone, now);
	return e && e->lame;
}

int
infra_select(struct infra_cache *c, const struct netaddr *cands, size_t n,
	const uint8_t *zone, time_t now, struct petrel_random *rnd,
	int *rto_out)
{
	/* two passes: the best rto, then a random pick within the band */
	int best = -1, pick = -1, best_i = -1;
	size_t i, inband = 0;
	if(c->fast_permil > 0 && rnd && (int)random_uniform(rnd, 1000) <
		c->fast_permil)
		return infra_select_fast(c, cands, n, zone, now, rnd, rto_out);
	for(i = 0; i < n; i++) {
		int rto;
		if(infra_is_lame(c, &cands[i], zone, now))
			continue;
		rto = infra_get_rto(c, &cands[i], now);
		if(best < 0 || rto < best) {
			best = rto;
			best_i = (int)i;
		}
	}
	if(best < 0)
		return -1;
	for(i = 0; i < n; i++) {
		if(infra_is_lame(c, &cands[i], zone, now))
			continue;
		if(infra_get_rto(c, &cands[i], now) <= best + INFRA_RTT_BAND)
			inband++;
	}
	if(inband == 0)
		inband = 1; /* another thread changed an entry meanwhile */
	inband = rnd ? random_uniform(rnd, (uint32_t)inband) : 0;
	for(i = 0; i < n; i++) {
		int rto;
		if(infra_is_lame(c, &cands[i], zone, now))
			continue;
		rto = infra_get_rto(c, &cands[i], now);
		if(rto <= best + INFRA_RTT_BAND) {
			if(inband == 0) {
				pick = (int)i;
				if(rto_out)
					*rto_out = rto;
				break;
			}
			inband--;
		}
	}
	if(pick < 0) {
		/* entries changed between the passes: take the best */
		pick = best_i;
		if(rto_out)
			*rto_out = best;
	}
	return pick;
}

void
infra_flush_all(struct infra_cache *c)
{
	cachetab_clear(&c->tab);
}

/** removal predicate: does the entry (data) belong to the address of
 * the key (arg, a struct infra_key)? */
static int
ipred_addr(const void *data, void *arg)
{
	const struct infra_entry *e = data;
	const struct infra_key *k = arg;
	return e->alen == k->alen && memcmp(e->addr, k->addr, k->alen) == 0;
}

size_t
infra_flush_addr(struct infra_cache *c, const struct netaddr *addr)
{
	struct infra_key k;
	if(infra_key_set(&k, addr, NULL) != 0)
		return 0;
	return cachetab_remove_if(&c->tab, ipred_addr, &k);
}

/** infra_traverse's state */
struct infra_walk {
	/** the caller's function */
	void (*fn)(const struct infra_dump_entry *e, void *arg);
	/** and its argument */
	void *arg;
};

/** infra_traverse: one table entry (data), unpacked for the caller
 * (arg: the struct infra_walk) */
static void
infra_walk_entry(const void *data, void *arg)
{
	const struct infra_entry *e = data;
	struct infra_walk *w = arg;
	struct infra_dump_entry d;
	uint16_t port;
	memset(&d, 0, sizeof(d));
	memcpy(&port, e->addr + 1, 2);
	d.port = ntohs(port);
	if(e->addr[0] == 4)
		(void)inet_ntop(AF_INET, e->addr + 3, d.addr, sizeof(d.addr));
	else
		(void)inet_ntop(AF_INET6, e->addr + 3, d.addr, sizeof(d.addr));
	d.zone = e->zlen ? e->zone : NULL;
	d.lame = e->lame;
	d.host = e->host;
	w->fn(&d, w->arg);
}

void
infra_traverse(struct infra_cache *c,
	void (*fn)(const struct infra_dump_entry *e, void *arg), void *arg)
{
	struct infra_walk w;
	w.fn = fn;
	w.arg = arg;
	cachetab_traverse(&c->tab, infra_walk_entry, &w);
}

size_t
infra_get_count(struct infra_cache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.count;
}

size_t
infra_get_mem(struct infra_cache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.mem;
}

struct shmhash *
infra_shared_table(struct infra_cache *c)
{
	return cachetab_shared_table(&c->tab);
}
