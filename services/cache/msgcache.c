/*
 * services/cache/msgcache.c - the message cache.
 *
 * Entry layout: one malloc holds struct mcache_entry (the key fields and
 * times first, where a hit reads them), then the lower-cased qname, the
 * body: the reply from offset 12 (the question and the three sections, OPT
 * cut off) with every TTL already rewritten to its stored value, then the
 * TTL offset array (uint16 message offsets, one per RR) and the per-RR
 * flags (the first RR of each run of one RRset, for truncation). A hit
 * reads the struct, the qname, the body and the offsets, in that order.
 * Keeping the question inside the body keeps the upstream compression
 * pointers valid: the client's question has the same length and sits at
 * the same offset, so it is copied over the stored one on a hit.
 *
 * rrset-roundrobin: after the RR flags the entry lists the runs a hit
 * may rotate (struct mcache_rot): RRsets of two or more records that
 * lie back to back with the same length, the same owner bytes and the
 * same TTL, of a type whose RDATA holds no name (so nothing elsewhere
 * in the message can point into it), and no owner name elsewhere points
 * into their RDATA. Rotating such a run moves whole equal slots: every
 * TTL offset, every compression pointer and the truncation points stay
 * valid. Each listed run is also kept doubled (its records, then all but
 * the last again) after the list, so that a rotated run is one memcpy
 * over the run the body copy just wrote, from the record the query ID
 * picks (ID mod count, as Unbound takes the rotation from the ID). An
 * entry with no such run costs one test. Sets that do not qualify
 * (records of different lengths: TXT, MX...), and runs past
 * MCACHE_ROT_BYTES of doubled copies, keep their stored order.
 */
#include "config.h"
#include "services/cache/msgcache.h"
#include "util/config_file.h"
#include "util/storage/cachetab.h"
#include "util/storage/shmhash.h"
#include "util/locks.h"
#include <stddef.h>
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/** key bit: the DO bit */
#define MKEY_DO 0x01
/** key bit: the CD bit */
#define MKEY_CD 0x02
/** entry flags (mcache_entry.alt): the answer also serves queries with
 * the other CD bit (MCACHE_SHARE_CD) or DO bit (MCACHE_SHARE_DO) that
 * have no entry of their own */
#define MALT_CD MCACHE_SHARE_CD
#define MALT_DO MCACHE_SHARE_DO
/** rr flag: first RR of a run of one RRset */
#define MRR_START 0x01
/** rr flag: its stored TTL is the RRset cache's remaining one, shorter
 * than its own (store.h): once expired it is served stale with
 * serve-expired-reply-ttl, not with that shorter TTL */
#define MRR_CAPPED 0x02
/** most runs an entry lists for rrset-roundrobin (more stay in order) */
#define MCACHE_MAX_ROT 16
/** most bytes of doubled runs an entry keeps for rrset-roundrobin */
#define MCACHE_ROT_BYTES 4096
/** size of the OPT record petrel writes, without options */
#define OPT_FIXED 11
/** size of an EDE option with no text */
#define OPT_EDE 6
/** size of a COOKIE option with a client and a server cookie */
#define OPT_COOKIE 28

/** mcache_entry.refresh_after: the flag of mcache_norec_set, above any
 * time (the time is the value without it); kept in that field so that
 * the entry does not grow and a fresh hit reads nothing more */
#define REFRESH_NOREC ((int64_t)1 << 62)

/** a run of one RRset's records that a hit may rotate (see the file
 * comment); message offsets */
struct mcache_rot {
	/** where the first record starts (its owner) */
	uint16_t start;
	/** the length of each record */
	uint16_t rrlen;
	/** the number of records */
	uint16_t count;
	/** where its doubled copy is, as an offset into the entry's data */
	uint16_t dbl;
	/** count * rrlen */
	uint16_t len;
	/** start + len: the message length a truncated answer must have
	 * kept for the run to be there */
	uint16_t end;
};

/**
 * A cached answer. The fields a hit reads first (the key, the times) come
 * right after the table part; the variable part follows in data[]: the
 * qname, the body, then (2-aligned) the TTL offsets and the RR flags.
 */
struct mcache_entry {
	/** question type */
	uint16_t qtype;
	/** question class */
	uint16_t qclass;
	/** qname length */
	uint8_t qname_len;
	/** MKEY_DO | MKEY_CD */
	uint8_t dc;
	/** rcode */
	uint8_t rcode;
	/** enum mcache_security */
	uint8_t sec;
	/** absolute expiry */
	time_t expire;
	/** when its TTLs start counting down: when it was stored, or, with
	 * serve-original-ttl, its expiry (so they never do; no test on the
	 * hit path) */
	time_t stored;
	/** length of the body */
	uint16_t body_len;
	/** number of RRs (OPT not counted) */
	uint16_t n_rr;
	/** RRs per section */
	uint16_t counts[3];
	/** message offset just past the question */
	uint16_t qd_end;
	/** the entry's own EDE code, or -1 */
	int16_t ede;
	/** 1 for NXDOMAIN/NODATA */
	uint8_t negative;
	/** number of runs rrset-roundrobin rotates (struct mcache_rot) */
	uint8_t n_rot;
	/** where their list is, as an offset into data (n_rot > 0) */
	uint16_t rot_at;
	/** the first of them (n_rot > 0), here so that a hit on an entry
	 * with one run (the common case) reads no more than the header */
	struct mcache_rot rot0;
	/** MALT_CD | MALT_DO (read only on a miss of the entry's own key) */
	uint8_t alt;
	/** from here on a prefetch is due */
	time_t prefetch_at;
	/** no refresh is signalled before this time (CAS by readers); with
	 * REFRESH_NOREC set, a refresh of the expired entry failed and
	 * until then it is served stale at once (mcache_norec_set) */
	_Atomic int64_t refresh_after;
	/** serve-expired-ttl-reset: when the last refresh of the expired
	 * entry failed; the serve-expired-ttl window runs from the later of
	 * this and the expiry (0: from the expiry) */
	_Atomic int64_t stale_from;
	/** qname (lower-cased), body (the message from offset 12), TTL
	 * offsets (uint16 message offsets, n_rr, 2-aligned), RR flags,
	 * then (2-aligned) the rotatable runs */
	uint8_t data[];
};


/** the lower-cased qname of an entry */
#define ME_QNAME(e) ((e)->data)
/** the body: the message from offset 12 */
#define ME_BODY(e) ((e)->data + (e)->qname_len)
/** offset of the TTL offset array in data */
#define ME_TTLS_AT(qlen, blen) (((size_t)(qlen) + (blen) + 1) & ~(size_t)1)
/** the TTL offsets */
#define ME_TTL_OFF(e) ((uint16_t *)(void *)((e)->data + \
	ME_TTLS_AT((e)->qname_len, (e)->body_len)))
/** the RR flags */
#define ME_RR_FLAGS(e) ((uint8_t *)(ME_TTL_OFF(e) + (e)->n_rr))
/** offset of the rotatable runs in data */
#define ME_ROT_AT(qlen, blen, n) ((ME_TTLS_AT(qlen, blen) + (size_t)(n) * 3 \
	+ 1) & ~(size_t)1)
/** the rotatable runs */
#define ME_ROT(e) ((const struct mcache_rot *)(const void *)((e)->data + \
	ME_ROT_AT((e)->qname_len, (e)->body_len, (e)->n_rr)))

/** a lookup key */
struct mcache_key {
	/** lower-cased name */
	const uint8_t *qname;
	/** its length */
	size_t qname_len;
	/** type, class */
	uint16_t qtype, qclass;
	/** MKEY_DO | MKEY_CD */
	uint8_t dc;
};

/** the cache */
/** a slot of the reference table (msgcache.h: coherence) */
struct mref_slot {
	/** the set's hash */
	uint32_t set_hash;
	/** the fingerprint of its data in the message */
	uint32_t data_fp;
	/** when the set expires as the message holds it */
	time_t set_expire;
	/** 1 when in use */
	uint8_t used;
	/** the key's MKEY_DO | MKEY_CD */
	uint8_t dc;
	/** question name length */
	uint8_t qname_len;
	/** type and class */
	uint16_t qtype, qclass;
	/** question name, lower-cased */
	uint8_t qname[DNS_MAX_NAME];
};

/** a bucket of the reference table */
struct mref_bucket {
	/** taken by add and take (the store path) */
	lock_basic_type lock;
	/** the slot the next new key goes to when none is free */
	unsigned next;
	/** the slots */
	struct mref_slot s[MCACHE_REF_SLOTS];
};

struct mcache {
	/** the table: per-process or shared (util/storage/cachetab.h); an
	 * entry is a struct mcache_entry, which holds no pointer, so it
	 * reads the same from every process */
	struct cachetab tab;
	/** settings */
	struct mcache_params p;
	/** the reference table (MCACHE_REF_BUCKETS), or NULL when it could
	 * not be made (then nothing is rebuilt) */
	struct mref_bucket *refs;
};

/** make the reference table of c (a failure leaves it NULL) */
static void
mref_create(struct mcache *c)
{
	size_t i;
	c->refs = calloc(MCACHE_REF_BUCKETS, sizeof(*c->refs));
	if(!c->refs)
		return;
	for(i = 0; i < MCACHE_REF_BUCKETS; i++)
		lock_basic_init(&c->refs[i].lock);
}

/** free the reference table of c */
static void
mref_delete(struct mcache *c)
{
	size_t i;
	if(!c->refs)
		return;
	for(i = 0; i < MCACHE_REF_BUCKETS; i++)
		lock_basic_destroy(&c->refs[i].lock);
	free(c->refs);
	c->refs = NULL;
}

const struct mcache_params *
mcache_get_params(const struct mcache *c)
{
	return &c->p;
}

void
mcache_params_default(struct mcache_params *p)
{
	memset(p, 0, sizeof(*p));
	p->maxmem = 4 * 1024 * 1024;
	p->slabs = 4;
	p->min_ttl = 0;
	p->min_negative_ttl = 0;
	p->max_ttl = 86400;
	p->max_negative_ttl = 3600;
	p->prefetch = 0;
	p->serve_expired = 0;
	p->serve_expired_ttl = 0;
	p->serve_expired_reply_ttl = 30;
	p->max_udp_size = 1232;
	p->roundrobin = 1;
}

/** the table hash of a key */
static inline uint32_t
mkey_hash(uint32_t qhash, uint8_t dc)
{
	return qhash ^ ((uint32_t)dc * 0x9e3779b9u);
}

/** does an answer (a struct mcache_entry) hold the key (a struct
 * mcache_key)? */
static inline int
mcache_match(const void *data, const void *key)
{
	const struct mcache_entry *e = data;
	const struct mcache_key *k = key;
	return e->qtype == k->qtype && e->qclass == k->qclass &&
		e->dc == k->dc && e->qname_len == k->qname_len &&
		memcmp(ME_QNAME(e), k->qname, k->qname_len) == 0;
}

/** the message cache's keys, for either kind of table */
CACHETAB_TYPE(mcache_type, mcache_match);

void
mcache_params_from_cfg(struct mcache_params *p, const struct config_file *cfg)
{
	mcache_params_default(p);
	p->maxmem = cfg->msg_cache_size;
	p->slabs = (size_t)cfg->msg_cache_slabs;
	p->min_ttl = (uint32_t)cfg->cache_min_ttl;
	p->max_ttl = (uint32_t)cfg->cache_max_ttl;
	p->max_negative_ttl = (uint32_t)cfg->cache_max_negative_ttl;
	p->min_negative_ttl = (uint32_t)cfg->cache_min_negative_ttl;
	p->prefetch = cfg->prefetch;
	p->serve_expired = cfg->serve_expired;
	p->serve_expired_ttl = (uint32_t)cfg->serve_expired_ttl;
	p->serve_expired_reply_ttl = (uint32_t)cfg->serve_expired_reply_ttl;
	p->max_udp_size = (uint16_t)cfg->max_udp_size;
	p->roundrobin = cfg->rrset_roundrobin;
	p->no_ede = !cfg->ede;
	p->no_ede_stale = !cfg->ede || !cfg->ede_serve_expired;
	if(cfg->serve_original_ttl) {
		/* the upstream's TTLs, as Unbound: no cache-min-ttl or
		 * cache-max-ttl, and not counted down in answers */
		p->original_ttl = 1;
		p->min_ttl = 0;
		p->max_ttl = 0x7fffffff;
	}
}

/** make a cache on a table of its own (base NULL) or on the shared
 * table at off in the mapping base (cachetab_init) */
static struct mcache *
mcache_make(const struct mcache_params *p, void *base, uint64_t off)
{
	struct mcache *c = calloc(1, sizeof(*c));
	if(!c)
		return NULL;
	c->p = *p;
	if(cachetab_init(&c->tab, &mcache_type, p->slabs, p->maxmem, base,
		off) != 0) {
		free(c);
		return NULL;
	}
	mref_create(c);
	return c;
}

struct mcache *
mcache_create(const struct mcache_params *p)
{
	return mcache_make(p, NULL, 0);
}

size_t
mcache_shared_space(const struct mcache_params *p)
{
	return shmhash_space(p->slabs, p->maxmem);
}

uint64_t
mcache_shared_init(void *base, const struct mcache_params *p)
{
	return shmhash_create(base, p->slabs, p->maxmem);
}

struct mcache *
mcache_create_shared(const struct mcache_params *p, void *base, uint64_t off)
{
	return mcache_make(p, base, off);
}

void
mcache_delete(struct mcache *c)
{
	if(!c)
		return;
	cachetab_destroy(&c->tab);
	mref_delete(c);
	free(c);
}

void
mcache_ref_add(struct mcache *c, uint32_t set_hash, uint32_t data_fp,
	time_t set_expire, const struct query_info *qinfo, int do_bit,
	int cd_bit)
{
	struct mref_bucket *b;
	struct mref_slot *sl = NULL;
	uint8_t dc = (uint8_t)((do_bit ? MKEY_DO : 0) | (cd_bit ? MKEY_CD :
		0));
	size_t i;
	if(!c->refs || qinfo->qname_len > DNS_MAX_NAME)
		return;
	b = &c->refs[set_hash & (MCACHE_REF_BUCKETS - 1)];
	lock_basic_lock(&b->lock);
	for(i = 0; i < MCACHE_REF_SLOTS; i++) {
		struct mref_slot *x = &b->s[i];
		if(x->used && x->set_hash == set_hash && x->dc == dc &&
			x->qtype == qinfo->qtype && x->qclass ==
			qinfo->qclass && x->qname_len == qinfo->qname_len &&
			memcmp(x->qname, qinfo->qname, x->qname_len) == 0) {
			x->data_fp = data_fp; /* (known) */
			x->set_expire = set_expire;
			lock_basic_unlock(&b->lock);
			return;
		}
		if(!x->used && !sl)
			sl = x;
	}
	if(!sl) {
		/* full: the oldest key goes */
		sl = &b->s[b->next % MCACHE_REF_SLOTS];
		b->next = (b->next + 1) % MCACHE_REF_SLOTS;
	}
	sl->used = 1;
	sl->set_hash = set_hash;
	sl->data_fp = data_fp;
	sl->set_expire = set_expire;
	sl->dc = dc;
	sl->qtype = qinfo->qtype;
	sl->qclass = qinfo->qclass;
	sl->qname_len = (uint8_t)qinfo->qname_len;
	memcpy(sl->qname, qinfo->qname, qinfo->qname_len);
	lock_basic_unlock(&b->lock);
}

size_t
mcache_ref_take(struct mcache *c, uint32_t set_hash, uint32_t data_fp,
	time_t renew_before, struct mcache_ref *out, size_t max)
{
	struct mref_bucket *b;
	size_t i, n = 0;
	if(!c->refs)
		return 0;
	b = &c->refs[set_hash & (MCACHE_REF_BUCKETS - 1)];
	lock_basic_lock(&b->lock);
	for(i = 0; i < MCACHE_REF_SLOTS && n < max; i++) {
		struct mref_slot *x = &b->s[i];
		if(!x->used || x->set_hash != set_hash ||
			(x->data_fp == data_fp && x->set_expire > renew_before))
			continue;
		memcpy(out[n].qname, x->qname, x->qname_len);
		out[n].qname_len = x->qname_len;
		out[n].qtype = x->qtype;
		out[n].qclass = x->qclass;
		out[n].do_bit = (x->dc & MKEY_DO) != 0;
		out[n].cd_bit = (x->dc & MKEY_CD) != 0;
		out[n].data_fp = x->data_fp;
		out[n].set_expire = x->set_expire;
		x->used = 0;
		n++;
	}
	lock_basic_unlock(&b->lock);
	return n;
}

void
mcache_set_params(struct mcache *c, const struct mcache_params *p)
{
	c->p = *p;
	cachetab_set_maxmem(&c->tab, p->maxmem);
}

/** clamp a TTL as received (RFC 2181 8: above 2^31-1 means 0) */
static inline uint32_t
ttl_sane(uint32_t t)
{
	return t > 0x7fffffffu ? 0 : t;
}

enum mcache_store_result
mcache_store(struct mcache *c, const struct query_info *qinfo, int do_bit,
	int cd_bit, const uint8_t *reply, size_t len, time_t now,
	enum mcache_security sec, int ede)
{
	/* the parse is on the stack (about 1 KB): no allocation per store
	 * beyond the entry, unless the answer has more records than the
	 * parse holds inline */
	struct dns_msg msgbuf, *msg = &msgbuf;
	struct region *region = NULL;
	enum mcache_store_result ret = MCACHE_ERROR;
	int r;

	r = dns_msg_parse(reply, len, msg, NULL, 0);
	if(r == DNS_ERR_TOO_MANY_RRS) {
		region = region_create(0);
		if(!region)
			return MCACHE_ERROR;
		r = dns_msg_parse(reply, len, msg, region, 0);
	}
	if(r == 0)
		ret = mcache_store_msg(c, qinfo, do_bit, cd_bit, reply, len,
			msg, now, sec, ede);
	region_destroy(region);
	return ret;
}

/** @return 1 when RDATA of this type may hold a (compressed) name: the
 * types RFC 3597 section 4 lists; their sets are not rotated */
static int
rot_name_type(uint16_t t)
{
	switch(t) {
	case 2: case 3: case 4: case 5: case 6: case 7: case 8: case 9:
	case 12: case 14: case 15: case 17: case 18: case 21: case 24:
	case 26: case 30: case 33: case 35: case 36: case 39:
	case DNS_TYPE_RRSIG:
		return 1;
	default:
		return 0;
	}
}

/** the bytes of an RR's owner as written (up to its type field) */
static size_t
rot_owner_len(const struct dns_rr *rr)
{
	return (size_t)rr->ttl_off - 4 - rr->owner_off;
}

/**
 * Drop the runs that a compression pointer in an owner name points into
 * other than at owner bytes (the same in every slot of a run).
 * @return the number of runs kept (moved to the front).
 */
static size_t
rot_check_pointers(const uint8_t *reply, size_t len, const struct dns_msg *msg,
	struct mcache_rot *rot, size_t nrot, const size_t *olen)
{
	size_t i, k, kept = 0;
	int bad[MCACHE_MAX_ROT];
	memset(bad, 0, sizeof(bad));
	for(i = 0; i < msg->rr_count; i++) {
		size_t pos = msg->rrs[i].owner_off;
		int hops = 0;
		while(pos < len && reply[pos] != 0 && hops < 256) {
			if((reply[pos] & 0xc0) == 0xc0) {
				size_t t;
				if(pos + 1 >= len)
					break;
				t = ((size_t)(reply[pos] & 0x3f) << 8) |
					reply[pos + 1];
				for(k = 0; k < nrot; k++) {
					size_t end = (size_t)rot[k].start +
						(size_t)rot[k].count *
						rot[k].rrlen;
					if(t >= rot[k].start && t < end &&
						(t - rot[k].start) %
						rot[k].rrlen >= olen[k])
						bad[k] = 1;
				}
				pos = t;
				hops++;
				continue;
			}
			pos += (size_t)reply[pos] + 1;
		}
	}
	for(k = 0; k < nrot; k++)
		if(!bad[k])
			rot[kept++] = rot[k];
	return kept;
}

/**
 * Find the runs of a message a hit may rotate (see the file comment).
 * @param rot: out (MCACHE_MAX_ROT).
 * @return how many.
 */
static size_t
rot_find(const uint8_t *reply, size_t len, const struct dns_msg *msg,
	struct mcache_rot *rot)
{
	size_t i = 0, j, k, n = 0, olen[MCACHE_MAX_ROT];
	while(i < msg->rr_count) {
		const struct dns_rr *a = &msg->rrs[i];
		size_t rrlen = (size_t)a->rdata_off + a->rdlen - a->owner_off;
		size_t ol = rot_owner_len(a);
		int ok = !rot_name_type(a->type);
		for(j = i + 1; j < msg->rr_count; j++) {
			const struct dns_rr *b = &msg->rrs[j];
			if(b->section != a->section || b->type != a->type ||
				b->rrclass != a->rrclass ||
				b->covered != a->covered ||
				!dname_pkt_equal(reply, len, b->owner_off,
				a->owner_off))
				break;
			if((size_t)b->rdata_off + b->rdlen - b->owner_off !=
				rrlen || b->owner_off != a->owner_off +
				(j - i) * rrlen || rot_owner_len(b) != ol ||
				memcmp(reply + b->owner_off, reply +
				a->owner_off, ol) != 0 ||
				ttl_sane(b->ttl) != ttl_sane(a->ttl))
				ok = 0;
		}
		if(ok && j - i >= 2 && n < MCACHE_MAX_ROT &&
			a->owner_off + (j - i) * rrlen <= 0xffff &&
			rrlen <= 0xffff && (j - i) * rrlen >= 16) {
			rot[n].start = a->owner_off;
			rot[n].rrlen = (uint16_t)rrlen;
			rot[n].count = (uint16_t)(j - i);
			olen[n] = ol;
			n++;
		}
		i = j;
	}
	if(n == 0)
		return 0;
	k = rot_check_pointers(reply, len, msg, rot, n, olen);
	/* the doubled copies stay within their budget */
	for(i = 0, j = 0, n = 0; i < k; i++) {
		size_t d = (2 * (size_t)rot[i].count - 1) * rot[i].rrlen;
		if(n + d > MCACHE_ROT_BYTES)
			continue;
		n += d;
		rot[j++] = rot[i];
	}
	return j;
}

uint32_t
mcache_clamp_neg_ttl(const struct mcache_params *p, uint32_t ttl)
{
	/* in Unbound's order: cache-min-ttl and cache-max-ttl as for any
	 * record, then cache-max-negative-ttl, then cache-min-negative-ttl,
	 * which wins (it is meant for this record) */
	if(ttl < p->min_ttl)
		ttl = p->min_ttl;
	if(ttl > p->max_ttl)
		ttl = p->max_ttl;
	if(ttl > p->max_negative_ttl)
		ttl = p->max_negative_ttl;
	if(ttl < p->min_negative_ttl)
		ttl = p->min_negative_ttl;
	return ttl;
}

enum mcache_store_result
mcache_store_msg(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, const uint8_t *reply, size_t len,
	const struct dns_msg *msg, time_t now, enum mcache_security sec,
	int ede)
{
	return mcache_store_msg_share(c, qinfo, do_bit, cd_bit, 0, reply,
		len, msg, now, sec, ede);
}

static enum mcache_store_result mcache_store_impl(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit, int share,
	const uint8_t *reply, size_t len, const struct dns_msg *msg,
	time_t now, enum mcache_security sec, int ede, int servfail,
	time_t expire_max, const uint8_t *rr_capped,
	const struct mcache_keep *keep);

enum mcache_store_result
mcache_store_msg_share(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, int share, const uint8_t *reply,
	size_t len, const struct dns_msg *msg, time_t now,
	enum mcache_security sec, int ede)
{
	return mcache_store_impl(c, qinfo, do_bit, cd_bit, share, reply, len,
		msg, now, sec, ede, 0, 0, NULL, NULL);
}

enum mcache_store_result
mcache_store_msg_capped(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, int share, const uint8_t *reply,
	size_t len, const struct dns_msg *msg, time_t now,
	enum mcache_security sec, int ede, time_t expire_max,
	const uint8_t *rr_capped, const struct mcache_keep *keep)
{
	return mcache_store_impl(c, qinfo, do_bit, cd_bit, share, reply, len,
		msg, now, sec, ede, 0, expire_max, rr_capped, keep);
}

enum mcache_store_result
mcache_store_servfail(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, int ede)
{
	uint8_t wire[DNS_HDR_SIZE + DNS_MAX_NAME + 4];
	struct dns_msg msg;
	size_t len = DNS_HDR_SIZE;
	if(qinfo->qname_len > DNS_MAX_NAME)
		return MCACHE_NOT_CACHEABLE;
	memset(wire, 0, DNS_HDR_SIZE);
	dns_write_u16(wire + 2, DNS_FLAG_QR | DNS_FLAG_RA |
		DNS_RCODE_SERVFAIL);
	dns_write_u16(wire + 4, 1);
	memcpy(wire + len, qinfo->qname, qinfo->qname_len);
	len += qinfo->qname_len;
	dns_write_u16(wire + len, qinfo->qtype);
	dns_write_u16(wire + len + 2, qinfo->qclass);
	len += 4;
	if(dns_msg_parse(wire, len, &msg, NULL, 0) != 0)
		return MCACHE_ERROR;
	return mcache_store_impl(c, qinfo, do_bit, cd_bit, 0, wire, len,
		&msg, now, MCACHE_SEC_UNCHECKED, ede, 1, 0, NULL, NULL);
}

/**
 * Store an answer (mcache_store_msg_share), or with servfail a SERVFAIL
 * with no records, kept MCACHE_SERVFAIL_TTL seconds (see the define);
 * expiring at expire_max at the latest (0: no limit,
 * mcache_store_msg_capped); rr_capped: per RR, 1 when its TTL is the
 * RRset cache's shorter one (MRR_CAPPED), or NULL; keep: the refresh
 * and serve-expired state the entry takes (a rebuilt one's), or NULL.
 */
static enum mcache_store_result
mcache_store_impl(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, int share, const uint8_t *reply,
	size_t len, const struct dns_msg *msg, time_t now,
	enum mcache_security sec, int ede, int servfail, time_t expire_max,
	const uint8_t *rr_capped, const struct mcache_keep *keep)
{
	struct mcache_entry *e = NULL;
	struct mcache_key key;
	enum mcache_store_result ret = MCACHE_NOT_CACHEABLE;
	size_t i, body_end, n, sz, nrot, dbl_at, dbl_len = 0;
	uint32_t entry_ttl = 0xffffffffu, neg_ttl = 0, hash;
	int negative, soa_idx = -1, share_do;
	struct mcache_rot rot[MCACHE_MAX_ROT];

	if(msg->qdcount != 1 || msg->qtype != qinfo->qtype ||
		msg->qclass != qinfo->qclass ||
		!dname_pkt_equal_wire(reply, len, msg->qname_off, qinfo->qname))
		goto fail;
	if((msg->flags & DNS_FLAG_TC) || msg->tsig_off != 0)
		goto fail;
	if(msg->rcode != DNS_RCODE_NOERROR && msg->rcode != DNS_RCODE_NXDOMAIN &&
		!(servfail && msg->rcode == DNS_RCODE_SERVFAIL))
		goto fail;
	if(msg->rr_count > 0xffff || qinfo->qname_len > DNS_MAX_NAME)
		goto fail;
	n = msg->rr_count;
	/* where the body ends: after the last RR that is not OPT */
	body_end = msg->question_end;
	for(i = 0; i < n; i++) {
		size_t end = (size_t)msg->rrs[i].rdata_off + msg->rrs[i].rdlen;
		if(end > body_end)
			body_end = end;
	}
	if(msg->edns.present && msg->edns.opt_off < body_end)
		goto fail; /* OPT is not the last record */

	/* negative answer? NXDOMAIN, or no answer RR of the asked type */
	negative = (msg->rcode == DNS_RCODE_NXDOMAIN);
	if(servfail)
		entry_ttl = MCACHE_SERVFAIL_TTL; /* (and not negative) */
	else if(!negative) {
		negative = 1;
		for(i = 0; i < msg->sec_count[DNS_SEC_ANSWER]; i++) {
			uint16_t t = msg->rrs[msg->sec_first[DNS_SEC_ANSWER]
				+ i].type;
			if(t == qinfo->qtype || qinfo->qtype == DNS_TYPE_ANY ||
				(t != DNS_TYPE_CNAME && t != DNS_TYPE_DNAME &&
				t != DNS_TYPE_RRSIG)) {
				negative = 0;
				break;
			}
		}
	}
	if(negative) {
		for(i = 0; i < msg->sec_count[DNS_SEC_AUTHORITY]; i++) {
			size_t k = msg->sec_first[DNS_SEC_AUTHORITY] + i;
			const struct dns_rr *rr = &msg->rrs[k];
			if(rr->type == DNS_TYPE_SOA && rr->rdlen >= 22) {
				uint32_t minimum = dns_read_u32(reply +
					rr->rdata_off + rr->rdlen - 4);
				neg_ttl = ttl_sane(rr->ttl);
				if(ttl_sane(minimum) < neg_ttl)
					neg_ttl = ttl_sane(minimum);
				soa_idx = (int)k;
				break;
			}
		}
		if(soa_idx < 0) /* no SOA: kept briefly (see the define) */
			neg_ttl = MCACHE_NOSOA_NEG_TTL;
		if(neg_ttl == 0)
			goto fail;
		neg_ttl = mcache_clamp_neg_ttl(&c->p, neg_ttl);
		entry_ttl = neg_ttl;
	}
	for(i = 0; i < n; i++)
		if(ttl_sane(msg->rrs[i].ttl) == 0)
			goto fail; /* a TTL 0 record: not cached */

	nrot = rot_find(reply, len, msg, rot);
	dbl_at = ME_ROT_AT(qinfo->qname_len, body_end - DNS_HDR_SIZE, n) +
		nrot * sizeof(struct mcache_rot);
	for(i = 0; i < nrot; i++) {
		rot[i].dbl = (uint16_t)(dbl_at + dbl_len);
		rot[i].len = (uint16_t)(rot[i].count * rot[i].rrlen);
		rot[i].end = (uint16_t)(rot[i].start + rot[i].len);
		dbl_len += (2 * (size_t)rot[i].count - 1) * rot[i].rrlen;
	}
	if(dbl_at + dbl_len > 0xffff)
		nrot = dbl_len = 0; /* (cannot happen below 64k messages) */
	/* allocate: struct, qname, body, ttl offsets, flags, runs and their
	 * doubled copies */
	ret = MCACHE_ERROR;
	sz = sizeof(*e) + dbl_at + dbl_len;
	e = cachetab_alloc(&c->tab, sz);
	if(!e)
		goto fail;
	e->qname_len = (uint8_t)qinfo->qname_len;
	e->body_len = (uint16_t)(body_end - DNS_HDR_SIZE);
	e->n_rr = (uint16_t)n;
	memcpy(ME_QNAME(e), qinfo->qname, qinfo->qname_len);
	memcpy(ME_BODY(e), reply + DNS_HDR_SIZE, e->body_len);
	e->qd_end = msg->question_end;
	for(i = 0; i < DNS_SEC_NUM; i++)
		e->counts[i] = (uint16_t)msg->sec_count[i];
	e->qtype = qinfo->qtype;
	e->qclass = qinfo->qclass;
	e->ede = (int16_t)(ede < 0 || ede > 0x7fff ? -1 : ede);
	e->dc = (uint8_t)((do_bit ? MKEY_DO : 0) | (cd_bit ? MKEY_CD : 0));
	e->rcode = (uint8_t)msg->rcode;
	e->sec = (uint8_t)sec;
	/* a bogus answer is for CD clients only */
	e->alt = (uint8_t)(sec == MCACHE_SEC_BOGUS ? 0 :
		share & (MALT_CD | MALT_DO));
	e->negative = (uint8_t)negative;
	e->n_rot = (uint8_t)nrot;
	e->rot_at = (uint16_t)ME_ROT_AT(e->qname_len, e->body_len, n);
	if(nrot)
		e->rot0 = rot[0];
	for(i = 0; i < n; i++) {
		const struct dns_rr *rr = &msg->rrs[i];
		uint32_t t = ttl_sane(rr->ttl);
		if((int)i == soa_idx)
			t = neg_ttl;
		else {
			if(t < c->p.min_ttl)
				t = c->p.min_ttl;
			if(t > c->p.max_ttl)
				t = c->p.max_ttl;
		}
		if(t < entry_ttl)
			entry_ttl = t;
		ME_TTL_OFF(e)[i] = rr->ttl_off;
		dns_write_u32(ME_BODY(e) + rr->ttl_off - DNS_HDR_SIZE, t);
		/* a new run starts at a section change or a different set;
		 * the RRSIGs right after the set they cover are of its run
		 * (a truncation keeps or drops a set with its signatures,
		 * as Unbound's encoder does) */
		if(i == 0 || rr->section != msg->rrs[i-1].section ||
			(rr->type != msg->rrs[i-1].type &&
			!(rr->type == DNS_TYPE_RRSIG &&
			rr->covered == msg->rrs[i-1].type)) ||
			rr->rrclass != msg->rrs[i-1].rrclass ||
			(rr->covered != msg->rrs[i-1].covered &&
			!(rr->type == DNS_TYPE_RRSIG &&
			msg->rrs[i-1].type != DNS_TYPE_RRSIG)) ||
			!dname_pkt_equal(reply, len, rr->owner_off,
			msg->rrs[i-1].owner_off))
			ME_RR_FLAGS(e)[i] = MRR_START;
		if(rr_capped && rr_capped[i])
			ME_RR_FLAGS(e)[i] |= MRR_CAPPED;
	}
	if(nrot) {
		/* the runs and their doubled copies, with the stored TTLs */
		memcpy((void *)ME_ROT(e), rot, nrot * sizeof(*rot));
		for(i = 0; i < nrot; i++) {
			size_t rl = (size_t)rot[i].count * rot[i].rrlen;
			const uint8_t *run = ME_BODY(e) + rot[i].start -
				DNS_HDR_SIZE;
			memcpy(e->data + rot[i].dbl, run, rl);
			memcpy(e->data + rot[i].dbl + rl, run,
				rl - rot[i].rrlen);
		}
	}
	if(n == 0 && !negative && !servfail)
		entry_ttl = 0; /* NOERROR with nothing in it: nothing to keep */
	ret = MCACHE_NOT_CACHEABLE;
	if(entry_ttl == 0 || entry_ttl == 0xffffffffu)
		goto fail;
	e->stored = now;
	e->expire = now + (time_t)entry_ttl;
	if(expire_max > now && e->expire > expire_max) {
		entry_ttl = (uint32_t)(expire_max - now);
		e->expire = expire_max;
	}
	if(c->p.original_ttl)
		e->stored = e->expire; /* serve-original-ttl: no count down */
	e->prefetch_at = e->expire - (time_t)(entry_ttl / 10);
	atomic_init(&e->refresh_after, keep ? keep->refresh_after : 0);
	atomic_init(&e->stale_from, keep ? keep->stale_from : 0);
	hash = mkey_hash(qinfo->hash, e->dc);
	share_do = (e->alt & MALT_DO) != 0;
	key.qname = ME_QNAME(e);
	key.qname_len = e->qname_len;
	key.qtype = e->qtype;
	key.qclass = e->qclass;
	key.dc = e->dc;
	/* the table takes e, whatever the result */
	if(cachetab_insert(&c->tab, hash, &key, e, sz, NULL, NULL) ==
		CACHETAB_NOMEM)
		return ret;
	if(share_do) {
		/* the entry of the other DO bit is superseded: its key
		 * is answered from this one now (mcache_find_alt), not
		 * from an older answer, still less a stale one (the
		 * caller's name: the entry's copy may be gone) */
		key.qname = qinfo->qname;
		key.dc ^= MKEY_DO;
		(void)cachetab_remove(&c->tab, mkey_hash(qinfo->hash,
			key.dc), &key);
	}
	return MCACHE_STORED;
fail:
	cachetab_free_new(&c->tab, e);
	return ret;
}

/** message offset where RR i ends (i < n_rr) */
static inline size_t
rr_end(const struct mcache_entry *e, size_t i)
{
	size_t off = ME_TTL_OFF(e)[i];
	return off + 6 + dns_read_u16(ME_BODY(e) + off + 4 - DNS_HDR_SIZE);
}

/**
 * Find how much of the entry fits in room bytes (the message without
 * OPT): whole runs of RRsets, in order.
 * @param e: entry.
 * @param room: bytes available.
 * @param counts: out: RRs kept per section.
 * @param nrr: out: RRs kept.
 * @return message length kept, with *tc set when an answer or authority
 *	RRset had to go; 0 when not even the question fits.
 */
static size_t
mcache_truncate(const struct mcache_entry *e, size_t room, uint16_t *counts,
	size_t *nrr, int *tc)
{
	size_t pos = e->qd_end, i = 0, j;
	int sec;
	*tc = 0;
	counts[0] = counts[1] = counts[2] = 0;
	if(pos > room)
		return 0;
	for(sec = 0; sec < 3; sec++) {
		size_t sec_last = i + e->counts[sec];
		while(i < sec_last) {
			size_t end;
			for(j = i + 1; j < sec_last &&
				!(ME_RR_FLAGS(e)[j] & MRR_START); j++)
				;
			end = rr_end(e, j - 1);
			if(end > room) {
				if(sec < 2)
					*tc = 1;
				*nrr = i;
				return pos;
			}
			counts[sec] += (uint16_t)(j - i);
			pos = end;
			i = j;
		}
	}
	*nrr = i;
	return pos;
}

/** the key's DO and CD bits of a client query */
static inline uint8_t
mkey_dc(const struct fast_query *q)
{
	return (uint8_t)((q->edns.present && q->edns.do_bit ? MKEY_DO : 0) |
		((q->flags & DNS_FLAG_CD) ? MKEY_CD : 0));
}

uint32_t
mcache_hash(const struct fast_query *q)
{
	return mkey_hash(q->qinfo.hash, mkey_dc(q));
}

void
mcache_prefetch(struct mcache *c, uint32_t hash, int stage)
{
	cachetab_prefetch(&c->tab, hash, stage);
}

/**
 * Copy n bytes, at least 16, between buffers that do not overlap, in
 * 16-byte moves the compiler inlines (a rotated run: no library call on
 * the hit path, so nothing around it is spilled); the last move may
 * overlap the one before, writing the same bytes again.
 */
static inline void
copy_run(uint8_t *d, const uint8_t *s, size_t n)
{
	size_t i;
	if(n <= 32) {
		/* two A records, one AAAA pair: two moves */
		memcpy(d, s, 16);
		memcpy(d + n - 16, s + n - 16, 16);
		return;
	}
	if(n <= 64) {
		/* up to four A records: four moves */
		memcpy(d, s, 16);
		memcpy(d + 16, s + 16, 16);
		memcpy(d + n - 32, s + n - 32, 16);
		memcpy(d + n - 16, s + n - 16, 16);
		return;
	}
	for(i = 0; i + 32 <= n; i += 32) {
		memcpy(d + i, s + i, 16);
		memcpy(d + i + 16, s + i + 16, 16);
	}
	if(i + 16 <= n) {
		memcpy(d + i, s + i, 16);
		i += 16;
	}
	if(i < n)
		memcpy(d + n - 16, s + n - 16, 16);
}

/** rotate one run of a hit (see the file comment) */
static inline void
rotate_run(uint8_t *out, const struct mcache_entry *e,
	const struct mcache_rot *rot, unsigned id, size_t msglen)
{
	unsigned k = id % rot->count;
	if(k != 0 && rot->end <= msglen)
		copy_run(out + rot->start, e->data + rot->dbl + k * rot->rrlen,
			rot->len);
}

/** rotate the runs of a hit after the first (rare: sets in more than
 * one section) */
static void __attribute__((noinline))
rotate_more(uint8_t *out, const struct mcache_entry *e, unsigned id,
	size_t msglen)
{
	const struct mcache_rot *rot = (const struct mcache_rot *)
		(const void *)(e->data + e->rot_at);
	size_t i;
	for(i = 1; i < e->n_rot; i++)
		rotate_run(out, e, &rot[i], id, msglen);
}

/** where an expired entry's serve-expired-ttl window starts: its expiry,
 * or its last failed refresh (serve-expired-ttl-reset) */
static inline time_t
stale_base(const struct mcache_entry *e)
{
	int64_t f = atomic_load_explicit(&((struct mcache_entry *)e)->
		stale_from, memory_order_relaxed);
	return (time_t)f > e->expire ? (time_t)f : e->expire;
}

/**
 * The TTLs of an expired answer (off the hit path): a record still live
 * (its set outlives the message, or was refreshed since) shows what is
 * left of it; an expired one serve-expired-reply-ttl, but never more
 * than its own TTL (as Unbound); with serve-original-ttl (the entry
 * never counts down) the stored TTLs, as copied.
 */
static void __attribute__((noinline))
stale_ttls(const struct mcache *c, const struct mcache_entry *e,
	uint8_t *out, size_t nrr, time_t now)
{
	const uint16_t *toff = ME_TTL_OFF(e);
	const uint8_t *body = ME_BODY(e) - DNS_HDR_SIZE;
	uint32_t rt = c->p.serve_expired_reply_ttl;
	uint32_t age = now > e->stored ? (uint32_t)(now - e->stored) : 0;
	size_t i;
	if(e->stored >= e->expire)
		return;
	for(i = 0; i < nrr; i++) {
		uint32_t t = dns_read_u32(body + toff[i]);
		if(t > age)
			t -= age;
		else if((ME_RR_FLAGS(e)[i] & MRR_CAPPED) || t > rt)
			t = rt;
		dns_write_u32(out + toff[i], t);
	}
}

/** find the answer for a key (lock-free; see the tables' headers) */
static inline const struct mcache_entry *
mcache_find(struct mcache *c, uint32_t hash, const struct mcache_key *key)
{
	return cachetab_lookup(&c->tab, hash, key);
}

/**
 * The key of a query had no entry: the entry of the other CD bit, or
 * else of the other DO bit, when it was stored as serving both (MALT_CD,
 * MALT_DO), or else of both other bits, when it serves both. Off the
 * hit path.
 * @param key: the key; its dc is changed.
 */
static const struct mcache_entry * __attribute__((noinline))
mcache_find_alt(struct mcache *c, uint32_t qhash, struct mcache_key *key)
{
	const struct mcache_entry *e;
	key->dc ^= MKEY_CD;
	e = mcache_find(c, mkey_hash(qhash, key->dc), key);
	if(e && (e->alt & MALT_CD))
		return e;
	key->dc ^= MKEY_CD | MKEY_DO;
	e = mcache_find(c, mkey_hash(qhash, key->dc), key);
	if(e && (e->alt & MALT_DO))
		return e;
	/* both bits the other way: an entry that serves either other bit
	 * serves both (the two conditions are independent), as Unbound's
	 * one entry per question answers a CD and DO query that the plain
	 * query filled */
	key->dc ^= MKEY_CD;
	e = mcache_find(c, mkey_hash(qhash, key->dc), key);
	if(e && (e->alt & (MALT_CD | MALT_DO)) == (MALT_CD | MALT_DO))
		return e;
	return NULL;
}

enum mcache_result
mcache_answer(struct mcache *c, const struct fast_query *q,
	const uint8_t *qpkt, int tcp, time_t now, uint8_t *out, size_t outmax,
	size_t *outlen, int *refresh)
{
	const struct mcache_entry *e;
	struct mcache_key key;
	enum mcache_result res;
	size_t limit, opt_len = 0, msglen, nrr, i;
	uint16_t counts[3], flags;
	uint32_t age = 0;
	int tc = 0, ede = -1, stale = 0;
	int edns = q->edns.present;
	int client_do = edns && q->edns.do_bit;

	if(refresh)
		*refresh = 0;
	if((edns && q->edns.version != 0) ||
		(q->flags & DNS_FLAG_OPCODE_MASK) != 0)
		return MCACHE_MISS;
	key.qname = q->qinfo.qname;
	key.qname_len = q->qinfo.qname_len;
	key.qtype = q->qinfo.qtype;
	key.qclass = q->qinfo.qclass;
	key.dc = mkey_dc(q);
	e = mcache_find(c, mkey_hash(q->qinfo.hash, key.dc), &key);
	if(__builtin_expect(!e, 0) &&
		!(e = mcache_find_alt(c, q->qinfo.hash, &key)))
		return MCACHE_MISS;

	if(now < e->expire) {
		res = MCACHE_HIT;
		/* (a clock that went back gives age 0, not a huge one) */
		age = now > e->stored ? (uint32_t)(now - e->stored) : 0;
		if(c->p.prefetch && now >= e->prefetch_at)
			res = MCACHE_HIT_PREFETCH;
	} else if(c->p.serve_expired && e->rcode != DNS_RCODE_SERVFAIL &&
		(c->p.serve_expired_ttl == 0 ||
		now < stale_base(e) + (time_t)c->p.serve_expired_ttl)) {
		/* (a SERVFAIL is never served stale: past its seconds the
		 * question is asked again) */
		res = MCACHE_HIT_EXPIRED;
		stale = 1;
		if(!c->p.no_ede_stale && !c->p.no_ede)
			ede = e->rcode == DNS_RCODE_NXDOMAIN ?
				DNS_EDE_STALE_NXDOMAIN : DNS_EDE_STALE_ANSWER;
	} else {
		return MCACHE_MISS;
	}
	if(ede < 0 && !c->p.no_ede)
		ede = e->ede;

	if(tcp)
		limit = outmax;
	else if(edns) {
		limit = q->edns.udp_size < DNS_MIN_UDP ? DNS_MIN_UDP :
			q->edns.udp_size;
		if(limit > c->p.max_udp_size && c->p.max_udp_size >= DNS_MIN_UDP)
			limit = c->p.max_udp_size;
	} else
		limit = DNS_MIN_UDP;
	if(limit > outmax)
		limit = outmax;
	if(edns)
		opt_len = OPT_FIXED + (ede >= 0 ? OPT_EDE : 0) +
			(q->edns.cookie_reply ? OPT_COOKIE : 0);

	msglen = DNS_HDR_SIZE + (size_t)e->body_len;
	if(msglen + opt_len <= limit) {
		nrr = e->n_rr;
		counts[0] = e->counts[0];
		counts[1] = e->counts[1];
		counts[2] = e->counts[2];
	} else {
		if(limit < opt_len)
			return MCACHE_MISS;
		msglen = mcache_truncate(e, limit - opt_len, counts, &nrr, &tc);
		if(msglen == 0)
			return MCACHE_MISS;
	}

	/* the refresh signal: one caller wins, until the retry time; none
	 * while a failed refresh holds the expired entry (REFRESH_NOREC),
	 * which is reported instead */
	if(refresh && res != MCACHE_HIT) {
		int64_t raw = atomic_load_explicit(&e->refresh_after,
			memory_order_relaxed);
		int64_t ra = raw & ~REFRESH_NOREC;
		if((raw & REFRESH_NOREC) && (int64_t)now < ra) {
			if(stale)
				*refresh = MCACHE_ANSWER_NOREC;
		} else if((int64_t)now >= ra &&
			atomic_compare_exchange_strong_explicit(
			&((struct mcache_entry *)e)->refresh_after, &raw,
			(int64_t)now + MCACHE_REFRESH_RETRY,
			memory_order_relaxed, memory_order_relaxed))
			*refresh = MCACHE_ANSWER_REFRESH;
	}

	/* the body, then the client's question name over the stored one */
	memcpy(out + DNS_HDR_SIZE, ME_BODY(e), msglen - DNS_HDR_SIZE);
	memcpy(out + DNS_HDR_SIZE, qpkt + q->qname_off, e->qname_len);
	if(e->n_rot && c->p.roundrobin) {
		/* rrset-roundrobin: each listed run starts at record
		 * (ID mod count); its slots are equal, its TTLs the same */
		rotate_run(out, e, &e->rot0, q->id, msglen);
		if(e->n_rot > 1)
			rotate_more(out, e, q->id, msglen);
	}

	flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA | e->rcode |
		(q->flags & (DNS_FLAG_RD | DNS_FLAG_CD)));
	if(tc)
		flags |= DNS_FLAG_TC;
	if(e->sec == MCACHE_SEC_SECURE && (client_do ||
		(q->flags & DNS_FLAG_AD)))
		flags |= DNS_FLAG_AD;
	if(refresh && e->sec == MCACHE_SEC_SECURE)
		*refresh |= MCACHE_ANSWER_SECURE;
	dns_write_u16(out, q->id);
	dns_write_u16(out + 2, flags);
	dns_write_u16(out + 4, 1);
	dns_write_u16(out + 6, counts[0]);
	dns_write_u16(out + 8, counts[1]);
	dns_write_u16(out + 10, (uint16_t)(counts[2] + (edns ? 1 : 0)));

	/* the TTLs */
	if(stale) {
		stale_ttls(c, e, out, nrr, now);
	} else {
		const uint16_t *toff = ME_TTL_OFF(e);
		const uint8_t *body = ME_BODY(e) - DNS_HDR_SIZE;
		for(i = 0; i < nrr; i++) {
			size_t off = toff[i];
			uint32_t t = dns_read_u32(body + off);
			dns_write_u32(out + off, t > age ? t - age : 0);
		}
	}

	/* the OPT record */
	if(edns) {
		uint8_t *o = out + msglen;
		o[0] = 0;
		dns_write_u16(o + 1, DNS_TYPE_OPT);
		dns_write_u16(o + 3, c->p.max_udp_size);
		o[5] = 0; /* extended rcode */
		o[6] = 0; /* version */
		dns_write_u16(o + 7, client_do ? DNS_EDNS_DO : 0);
		dns_write_u16(o + 9, (uint16_t)(opt_len - OPT_FIXED));
		o += OPT_FIXED;
		if(ede >= 0) {
			dns_write_u16(o, DNS_EDNS_EDE);
			dns_write_u16(o + 2, 2);
			dns_write_u16(o + 4, (uint16_t)ede);
			o += OPT_EDE;
		}
		if(q->edns.cookie_reply) {
			/* answer-cookie: the front end's client and server
			 * cookie */
			dns_write_u16(o, DNS_EDNS_COOKIE);
			dns_write_u16(o + 2, OPT_COOKIE - 4);
			memcpy(o + 4, q->edns.cookie_reply, OPT_COOKIE - 4);
		}
		msglen += opt_len;
	}
	*outlen = msglen;
	return res;
}

/** the entry of a question with these DO and CD bits, or NULL */
static const struct mcache_entry *
mcache_find_q(struct mcache *c, const struct query_info *qinfo, int do_bit,
	int cd_bit)
{
	struct mcache_key key;
	key.qname = qinfo->qname;
	key.qname_len = qinfo->qname_len;
	key.qtype = qinfo->qtype;
	key.qclass = qinfo->qclass;
	key.dc = (uint8_t)((do_bit ? MKEY_DO : 0) | (cd_bit ? MKEY_CD : 0));
	return mcache_find(c, mkey_hash(qinfo->hash, key.dc), &key);
}

int
mcache_peek(struct mcache *c, const struct query_info *qinfo, int do_bit,
	int cd_bit, time_t now, struct mcache_state *st)
{
	const struct mcache_entry *e;
	memset(st, 0, sizeof(*st));
	st->result = MCACHE_MISS;
	e = mcache_find_q(c, qinfo, do_bit, cd_bit);
	if(!e)
		return -1;
	st->rcode = e->rcode;
	st->sec = (enum mcache_security)e->sec;
	if(now < e->expire) {
		st->ttl = (uint32_t)(e->expire - now);
		st->result = (c->p.prefetch && now >= e->prefetch_at) ?
			MCACHE_HIT_PREFETCH : MCACHE_HIT;
	} else if(c->p.serve_expired && e->rcode != DNS_RCODE_SERVFAIL &&
		(c->p.serve_expired_ttl == 0 ||
		now < stale_base(e) + (time_t)c->p.serve_expired_ttl)) {
		st->result = MCACHE_HIT_EXPIRED;
	}
	return 0;
}

int
mcache_copy_msg(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, uint8_t *buf, size_t bufmax,
	size_t *len, struct mcache_state *st)
{
	const struct mcache_entry *e;
	const uint16_t *toff;
	uint32_t age;
	size_t i, msglen;
	memset(st, 0, sizeof(*st));
	st->result = MCACHE_MISS;
	e = mcache_find_q(c, qinfo, do_bit, cd_bit);
	if(!e || now >= e->expire)
		return -1;
	msglen = DNS_HDR_SIZE + (size_t)e->body_len;
	if(msglen > bufmax)
		return -1;
	age = now > e->stored ? (uint32_t)(now - e->stored) : 0;
	memcpy(buf + DNS_HDR_SIZE, ME_BODY(e), e->body_len);
	dns_write_u16(buf, 0);
	dns_write_u16(buf + 2, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		e->rcode));
	dns_write_u16(buf + 4, 1);
	dns_write_u16(buf + 6, e->counts[0]);
	dns_write_u16(buf + 8, e->counts[1]);
	dns_write_u16(buf + 10, e->counts[2]);
	toff = ME_TTL_OFF(e);
	for(i = 0; i < e->n_rr; i++) {
		uint32_t t = dns_read_u32(buf + toff[i]);
		dns_write_u32(buf + toff[i], t > age ? t - age : 0);
	}
	st->result = MCACHE_HIT;
	st->ttl = (uint32_t)(e->expire - now);
	st->rcode = e->rcode;
	st->sec = (enum mcache_security)e->sec;
	st->ede = e->ede;
	st->share = (e->alt & MALT_CD ? MCACHE_SHARE_CD : 0) |
		(e->alt & MALT_DO ? MCACHE_SHARE_DO : 0);
	*len = msglen;
	return 0;
}

int
mcache_copy_stale(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, uint8_t *buf, size_t bufmax,
	size_t *len, struct mcache_state *st, time_t *stored, time_t *expire)
{
	const struct mcache_entry *e;
	size_t msglen;
	memset(st, 0, sizeof(*st));
	st->result = MCACHE_MISS;
	e = mcache_find_q(c, qinfo, do_bit, cd_bit);
	if(!e || now < e->expire || !c->p.serve_expired ||
		e->rcode == DNS_RCODE_SERVFAIL || e->stored >= e->expire ||
		(c->p.serve_expired_ttl != 0 && now >= stale_base(e) +
		(time_t)c->p.serve_expired_ttl))
		return -1;
	msglen = DNS_HDR_SIZE + (size_t)e->body_len;
	if(msglen > bufmax)
		return -1;
	memcpy(buf + DNS_HDR_SIZE, ME_BODY(e), e->body_len);
	dns_write_u16(buf, 0);
	dns_write_u16(buf + 2, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		e->rcode));
	dns_write_u16(buf + 4, 1);
	dns_write_u16(buf + 6, e->counts[0]);
	dns_write_u16(buf + 8, e->counts[1]);
	dns_write_u16(buf + 10, e->counts[2]);
	st->result = MCACHE_HIT_EXPIRED;
	st->rcode = e->rcode;
	st->sec = (enum mcache_security)e->sec;
	st->ede = e->ede;
	st->share = (e->alt & MALT_CD ? MCACHE_SHARE_CD : 0) |
		(e->alt & MALT_DO ? MCACHE_SHARE_DO : 0);
	*stored = e->stored;
	*expire = e->expire;
	*len = msglen;
	return 0;
}

void
mcache_stale_reset(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now)
{
	const struct mcache_entry *e = mcache_find_q(c, qinfo, do_bit,
		cd_bit);
	if(e && now >= e->expire)
		atomic_store_explicit(&((struct mcache_entry *)e)->stale_from,
			(int64_t)now, memory_order_relaxed);
}

int
mcache_get_keep(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, struct mcache_keep *keep, uint8_t *rr_capped,
	size_t max)
{
	const struct mcache_entry *e = mcache_find_q(c, qinfo, do_bit,
		cd_bit);
	size_t i;
	if(!e)
		return -1;
	keep->refresh_after = atomic_load_explicit(
		&((struct mcache_entry *)e)->refresh_after,
		memory_order_relaxed);
	keep->stale_from = atomic_load_explicit(
		&((struct mcache_entry *)e)->stale_from, memory_order_relaxed);
	for(i = 0; rr_capped && i < e->n_rr && i < max; i++)
		rr_capped[i] = (ME_RR_FLAGS(e)[i] & MRR_CAPPED) != 0;
	return (int)e->n_rr;
}

void
mcache_norec_set(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now)
{
	const struct mcache_entry *e = mcache_find_q(c, qinfo, do_bit,
		cd_bit);
	if(e && now >= e->expire)
		atomic_store_explicit(&((struct mcache_entry *)e)->
			refresh_after, ((int64_t)now + MCACHE_SERVFAIL_TTL) |
			REFRESH_NOREC, memory_order_relaxed);
}

/* ---- flushing ---- */

/** what flush predicates look at */
struct flush_arg {
	/** lower-cased name */
	uint8_t name[DNS_MAX_NAME + 1];
	/** its length */
	size_t len;
};

/** lower-case a name into a flush_arg; @return 0 or -1 when invalid */
static int
flush_arg_set(struct flush_arg *a, const uint8_t *name)
{
	a->len = dname_valid(name, DNS_MAX_NAME);
	if(a->len == 0)
		return -1;
	dname_copy_lower(a->name, name);
	return 0;
}

/* the removal predicates (cachetab_pred_func): data is an answer */

static int
pred_name(const void *data, void *arg)
{
	const struct mcache_entry *e = data;
	const struct flush_arg *a = arg;
	return e->qname_len == a->len &&
		memcmp(ME_QNAME(e), a->name, a->len) == 0;
}

static int
pred_zone(const void *data, void *arg)
{
	const struct flush_arg *a = arg;
	return dname_is_subdomain(ME_QNAME((const struct mcache_entry *)
		data), a->name);
}

static int
pred_negative(const void *data, void *arg)
{
	const struct mcache_entry *e = data;
	(void)arg;
	return e->negative || e->rcode == DNS_RCODE_SERVFAIL;
}

static int
pred_bogus(const void *data, void *arg)
{
	const struct mcache_entry *e = data;
	(void)arg;
	return e->sec == MCACHE_SEC_BOGUS;
}

size_t
mcache_flush_name(struct mcache *c, const uint8_t *name)
{
	struct flush_arg a;
	if(flush_arg_set(&a, name) != 0)
		return 0;
	return cachetab_remove_if(&c->tab, pred_name, &a);
}

size_t
mcache_flush_type(struct mcache *c, const uint8_t *name, uint16_t qtype,
	uint16_t qclass)
{
	struct flush_arg a;
	struct mcache_key key;
	uint32_t h;
	size_t n = 0;
	int dc;
	if(flush_arg_set(&a, name) != 0)
		return 0;
	h = dns_qinfo_hash(a.name, a.len, qtype, qclass);
	key.qname = a.name;
	key.qname_len = a.len;
	key.qtype = qtype;
	key.qclass = qclass;
	for(dc = 0; dc < 4; dc++) {
		key.dc = (uint8_t)dc;
		n += (size_t)cachetab_remove(&c->tab, mkey_hash(h, key.dc),
			&key);
	}
	return n;
}

size_t
mcache_flush_zone(struct mcache *c, const uint8_t *zone)
{
	struct flush_arg a;
	if(flush_arg_set(&a, zone) != 0)
		return 0;
	return cachetab_remove_if(&c->tab, pred_zone, &a);
}

size_t
mcache_flush_negative(struct mcache *c)
{
	return cachetab_remove_if(&c->tab, pred_negative, NULL);
}

size_t
mcache_flush_bogus(struct mcache *c)
{
	return cachetab_remove_if(&c->tab, pred_bogus, NULL);
}

void
mcache_flush_all(struct mcache *c)
{
	cachetab_clear(&c->tab);
}

/* ---- dump ---- */

/** traversal state */
struct dump_arg {
	/** the user's callback */
	mcache_traverse_func fn;
	/** its argument */
	void *arg;
	/** the clock */
	time_t now;
	/** scratch message buffer, DNS_MAX_MSG bytes */
	uint8_t *buf;
};

/** report one answer (data) to the traversal callback (arg: the
 * struct dump_arg) */
static void
dump_one(const void *data, void *arg)
{
	const struct mcache_entry *e = data;
	struct dump_arg *a = arg;
	struct mcache_dump_entry d;
	uint32_t age = (uint32_t)(a->now > e->stored ? a->now - e->stored : 0);
	size_t i;
	uint8_t *m = a->buf;
	memset(m, 0, DNS_HDR_SIZE);
	dns_write_u16(m + 2, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA | e->rcode));
	dns_write_u16(m + 4, 1);
	dns_write_u16(m + 6, e->counts[0]);
	dns_write_u16(m + 8, e->counts[1]);
	dns_write_u16(m + 10, e->counts[2]);
	memcpy(m + DNS_HDR_SIZE, ME_BODY(e), e->body_len);
	memcpy(m + DNS_HDR_SIZE, ME_QNAME(e), e->qname_len);
	for(i = 0; i < e->n_rr; i++) {
		size_t off = ME_TTL_OFF(e)[i];
		uint32_t t = dns_read_u32(ME_BODY(e) + off - DNS_HDR_SIZE);
		dns_write_u32(m + off, t > age ? t - age : 0);
	}
	memset(&d, 0, sizeof(d));
	d.qname = ME_QNAME(e);
	d.qname_len = e->qname_len;
	d.qtype = e->qtype;
	d.qclass = e->qclass;
	d.do_bit = (e->dc & MKEY_DO) != 0;
	d.cd_bit = (e->dc & MKEY_CD) != 0;
	d.msg = m;
	d.msg_len = DNS_HDR_SIZE + (size_t)e->body_len;
	d.ttl = a->now < e->expire ? (uint32_t)(e->expire - a->now) : 0;
	d.rcode = e->rcode;
	d.sec = (enum mcache_security)e->sec;
	a->fn(&d, a->arg);
}

int
mcache_traverse(struct mcache *c, time_t now, mcache_traverse_func fn,
	void *arg)
{
	struct dump_arg a;
	a.fn = fn;
	a.arg = arg;
	a.now = now;
	a.buf = malloc(DNS_MAX_MSG);
	if(!a.buf)
		return -1;
	cachetab_traverse(&c->tab, dump_one, &a);
	free(a.buf);
	return 0;
}

size_t
mcache_get_mem(struct mcache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.mem;
}

size_t
mcache_get_count(struct mcache *c)
{
	struct cachetab_figures f;
	cachetab_figures(&c->tab, &f);
	return f.count;
}

struct shmhash *
mcache_shared_table(struct mcache *c)
{
	return cachetab_shared_table(&c->tab);
}

const struct cachetab *
mcache_cachetab(struct mcache *c)
{
	return &c->tab;
}
