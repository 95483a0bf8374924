/*
 * services/rpz.c - response policy zones: snapshot build, swap and lookup.
 *
 * See services/rpz.h for the triggers, the actions and the snapshot
 * protocol. A snapshot is a handful of flat arrays (rules, names, records,
 * RDATA bytes, netblocks) and one open-addressing table of rule indexes
 * keyed on the trigger's owner name below the origin, so that a million
 * rules cost a few tens of bytes each and load with few allocations.
 */
#include "config.h"
#include "services/rpz.h"
#include "dns/name.h"
#include "dns/addrscan.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/storage/qsbr.h"
#include <ldns/ldns.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

/** one rule: a trigger owner name and what it does */
struct rpz_rule {
	/** offset of the key (relative owner, lower-case wire) in names */
	uint32_t name_off;
	/** hash of the key */
	uint32_t hash;
	/** first record (index + 1) of local data, 0 for none: the
	 * records of a rule are listed newest first, as Unbound answers
	 * them (its local data puts each new RR of an RRset first) */
	uint32_t data;
	/** length of the key */
	uint16_t name_len;
	/** enum rpz_action */
	uint8_t action;
	/** enum rpz_trigger */
	uint8_t trigger;
	/** 1 for a wildcard QNAME trigger */
	uint8_t wildcard;
};

/** one record of local data */
struct rpz_data {
	/** next record of the rule (index + 1), 0 at the end */
	uint32_t next;
	/** offset of the RDATA in the rdata bytes */
	uint32_t rd_off;
	/** TTL */
	uint32_t ttl;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** RDATA length */
	uint16_t rdlen;
};

/** an empty non-terminal of the zone: the end of a rule's key (the
 * rules' key bytes, no copy) */
struct rpz_exist {
	/** its hash (hash_fin(H, SEED_ENT)) */
	uint32_t hash;
	/** offset + 1 of the name in the snapshot's names; 0: an empty
	 * slot */
	uint32_t off1;
};

/** a netblock trigger */
struct rpz_net {
	/** the address, host bits cleared */
	uint8_t addr[16];
	/** 4 or 16 */
	uint8_t len;
	/** prefix length */
	uint8_t prefix;
	/** the rule */
	uint32_t rule;
};

/** an immutable set of rules (see the header) */
struct rpz_snap {
	/** the rules */
	struct rpz_rule *rules;
	/** number and capacity */
	size_t nrules, caprules;
	/** the key bytes of all rules */
	uint8_t *names;
	/** used and capacity */
	size_t nnames, capnames;
	/** local-data records */
	struct rpz_data *data;
	/** number and capacity */
	size_t ndata, capdata;
	/** RDATA bytes */
	uint8_t *rdata;
	/** used and capacity */
	size_t nrdata, caprdata;
	/** the table: rule index + 1, 0 empty; size mask + 1 */
	uint32_t *tab;
	/** size - 1 (a power of two) */
	size_t mask;
	/** CLIENT-IP, RESPONSE-IP and NSIP netblocks, longest prefix
	 * first */
	struct rpz_net *nets[3];
	/** number and capacity */
	size_t nnets[3], capnets[3];
	/** a one-bit-per-key filter over the rule hashes (about 16 bits
	 * per rule, built by snap_finish): a name whose bit is clear is
	 * not in the table, without touching the table */
	uint64_t *filter;
	/** bits in the filter - 1 */
	size_t fmask;
	/** label counts (of the name under the '*') that wildcards have,
	 * as bits; wildcard lookups skip parents with other counts */
	uint64_t wild_labels[2];
	/** the names above the QNAME rules' keys (empty non-terminals,
	 * unless a rule of their own), the root not counted: with the
	 * rules, the names that exist for the wildcard rule (RFC 4592
	 * section 3.3.1); open addressing on their hash (SEED_ENT), about
	 * 12 bytes each, built by snap_finish when the zone has wildcards,
	 * else NULL */
	struct rpz_exist *exist;
	/** size - 1 of exist (a power of two) */
	size_t exist_mask;
	/** rules per trigger kind */
	size_t count[RPZ_TRIGGER_NUM];
	/** the SOA at the origin: RDATA, its length and TTL */
	uint8_t soa[512];
	/** its length, 0 when the zone has none */
	size_t soa_len;
	/** its TTL (the minimum of TTL and SOA minimum) */
	uint32_t soa_ttl;
	/** the QSBR tag it was retired with (freed when safe) */
	uint64_t retired;
	/** next on the retired list */
	struct rpz_snap *next_retired;
};

struct rpz {
	/** the origin, lower-case wire */
	uint8_t origin[DNS_MAX_NAME];
	/** its length */
	size_t origin_len;
	/** settings */
	struct rpz_settings set;
	/** the current snapshot (atomic pointer swap) */
	_Atomic(struct rpz_snap *) snap;
	/** enabled (rpz_enable / rpz_disable) */
	atomic_int enabled;
	/** replaced snapshots waiting to be freed */
	struct rpz_snap *retired;
};

/* ---- names and hashing ---- */

/** the finishing constants of exact keys and of wildcard keys */
#define SEED_EXACT 0x243f6a8885a308d3ULL
/** see SEED_EXACT */
#define SEED_WILD 0x13198a2e03707344ULL
/** the finishing constant of the names that exist (struct rpz_exist) */
#define SEED_ENT 0xa4093822299f31d0ULL

/*
 * Names are hashed label by label from the root down: H(root) is a
 * constant and H(label.parent) = mix(H(parent), label). One pass over a
 * question name then gives the hash of the name and of every parent, which
 * the wildcard lookups need. A key's hash finishes H with SEED_EXACT, or,
 * for a wildcard rule "*.parent", H(parent) with SEED_WILD.
 */

/** mix one label (with its length byte) into h */
static uint64_t
mix_label(uint64_t h, const uint8_t *l)
{
	size_t n = (size_t)l[0] + 1, i;
	uint64_t w;
	while(n >= 8) {
		memcpy(&w, l, 8);
		h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
		h ^= h >> 29;
		l += 8;
		n -= 8;
	}
	w = 0;
	for(i = 0; i < n; i++)
		w |= (uint64_t)l[i] << (8 * i);
	h = (h ^ w) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

/** finish a name hash for an exact (SEED_EXACT) or wildcard key */
static uint32_t
hash_fin(uint64_t h, uint64_t seed)
{
	h = (h ^ seed) * 0xbf58476d1ce4e5b9ULL;
	return (uint32_t)(h >> 32);
}

/** the offsets of the labels of a wire name (the root label not
 * counted). @return how many */
static int
label_offsets(const uint8_t *d, uint8_t *offs)
{
	int n = 0;
	size_t o = 0;
	while(d[o] && n < 128) {
		offs[n++] = (uint8_t)o;
		o += (size_t)d[o] + 1;
	}
	return n;
}

/** H of a wire name (see above) */
static uint64_t
name_h(const uint8_t *d)
{
	uint8_t offs[128];
	uint64_t h = 0x452821e638d01377ULL;
	int n = label_offsets(d, offs);
	while(n-- > 0)
		h = mix_label(h, d + offs[n]);
	return h;
}

/** the hash of a rule's key: wildcards by their parent */
static uint32_t
key_hash(const uint8_t *key, size_t klen)
{
	if(klen > 2 && key[0] == 1 && key[1] == '*')
		return hash_fin(name_h(key + 2), SEED_WILD);
	return hash_fin(name_h(key), SEED_EXACT);
}

/** the filter bit of a hash (other bits than the table index uses) */
static size_t
filter_bit(uint32_t h, size_t fmask)
{
	return (size_t)((h * 0x9e3779b1u) >> 7) & fmask;
}

/** @return 1 when label l (wire, with its length byte) equals word,
 * case-insensitively */
static int
label_is(const uint8_t *l, const char *word)
{
	size_t n = strlen(word);
	return l[0] == n && strncasecmp((const char *)l + 1, word, n) == 0;
}

/** @return the number of labels of a wire name (root not counted) */
static int
name_labels(const uint8_t *d)
{
	int n = 0;
	while(*d) {
		n++;
		d += *d + 1;
	}
	return n;
}

/* ---- snapshot building ---- */

/** grow an array to hold one more. @return 0 or -1 */
static int
grow(void **arr, size_t *cap, size_t n, size_t elsize, size_t more)
{
	void *a;
	size_t nc;
	if(n + more <= *cap)
		return 0;
	nc = *cap ? *cap * 2 : 64;
	while(nc < n + more)
		nc *= 2;
	a = realloc(*arr, nc * elsize);
	if(!a)
		return -1;
	*arr = a;
	*cap = nc;
	return 0;
}

/** free a snapshot */
static void
snap_free(struct rpz_snap *s)
{
	if(!s)
		return;
	free(s->rules);
	free(s->names);
	free(s->data);
	free(s->rdata);
	free(s->tab);
	free(s->filter);
	free(s->exist);
	free(s->nets[0]);
	free(s->nets[1]);
	free(s->nets[2]);
	free(s);
}

/** a new empty snapshot. @return it or NULL */
static struct rpz_snap *
snap_new(void)
{
	struct rpz_snap *s = calloc(1, sizeof(*s));
	if(!s)
		return NULL;
	s->mask = 1023;
	s->tab = calloc(s->mask + 1, sizeof(uint32_t));
	if(!s->tab) {
		free(s);
		return NULL;
	}
	return s;
}

/** find a key in the table. @return the slot (empty or the rule's) */
static size_t
snap_slot(const struct rpz_snap *s, const uint8_t *key, size_t klen,
	uint32_t h)
{
	size_t i = h & s->mask;
	for(;;) {
		uint32_t r = s->tab[i];
		if(r == 0)
			return i;
		if(s->rules[r-1].hash == h && s->rules[r-1].name_len == klen &&
			memcmp(s->names + s->rules[r-1].name_off, key, klen)
			== 0)
			return i;
		i = (i + 1) & s->mask;
	}
}

/** double the table. @return 0 or -1 */
static int
snap_rehash(struct rpz_snap *s)
{
	size_t nm = s->mask * 2 + 1, i;
	uint32_t *t = calloc(nm + 1, sizeof(uint32_t));
	if(!t)
		return -1;
	for(i = 0; i < s->nrules; i++) {
		size_t j = s->rules[i].hash & nm;
		while(t[j])
			j = (j + 1) & nm;
		t[j] = (uint32_t)i + 1;
	}
	free(s->tab);
	s->tab = t;
	s->mask = nm;
	return 0;
}

/** parse the labels of an IP trigger (the key without the rpz-ip or
 * rpz-client-ip label) into a netblock. @return 0 or -1 */
static int
parse_ip_trigger(const uint8_t *k, struct rpz_net *n)
{
	char lab[64][64];
	int nl = 0, i, prefix;
	char *end;
	while(*k && nl < 64) {
		memcpy(lab[nl], k + 1, *k);
		lab[nl][*k] = 0;
		nl++;
		k += *k + 1;
	}
	/* drop the last label (rpz-ip / rpz-client-ip) */
	nl--;
	if(nl < 2)
		return -1;
	prefix = (int)strtol(lab[0], &end, 10);
	if(*end || lab[0][0] == 0)
		return -1;
	memset(n->addr, 0, sizeof(n->addr));
	for(i = 1; i < nl; i++)
		if(strcasecmp(lab[i], "zz") == 0)
			break;
	if(nl == 5 && i == nl) {
		/* IPv4: prefix.b4.b3.b2.b1 */
		if(prefix < 1 || prefix > 32)
			return -1;
		for(i = 0; i < 4; i++) {
			long b = strtol(lab[4 - i], &end, 10);
			if(*end || lab[4 - i][0] == 0 || b < 0 || b > 255)
				return -1;
			n->addr[i] = (uint8_t)b;
		}
		n->len = 4;
	} else {
		/* IPv6: prefix.w8...w1, "zz" for a run of zero words */
		uint16_t w[8];
		int nw = nl - 1, zz = -1, j, o = 0;
		if(prefix < 1 || prefix > 128 || nw > 8)
			return -1;
		for(j = 0; j < nw; j++)
			if(strcasecmp(lab[nl - 1 - j], "zz") == 0) {
				if(zz >= 0)
					return -1;
				zz = j;
			}
		if(zz < 0 && nw != 8)
			return -1;
		memset(w, 0, sizeof(w));
		for(j = 0; j < nw; j++) {
			const char *t = lab[nl - 1 - j];
			long v;
			if(j == zz) {
				o += 8 - (nw - 1);
				continue;
			}
			v = strtol(t, &end, 16);
			if(*end || !*t || v < 0 || v > 0xffff || o > 7)
				return -1;
			w[o++] = (uint16_t)v;
		}
		for(j = 0; j < 8; j++) {
			n->addr[2*j] = (uint8_t)(w[j] >> 8);
			n->addr[2*j+1] = (uint8_t)(w[j] & 0xff);
		}
		n->len = 16;
	}
	n->prefix = (uint8_t)prefix;
	/* clear the host bits */
	for(i = prefix; i < n->len * 8; i++)
		n->addr[i / 8] &= (uint8_t)~(0x80 >> (i % 8));
	return 0;
}

/** @return the action a CNAME target says, or LOCAL_DATA */
static enum rpz_action
cname_action(const uint8_t *t, size_t len)
{
	if(len == 1 && t[0] == 0)
		return RPZ_ACTION_NXDOMAIN;
	if(len == 3 && t[0] == 1 && t[1] == '*' && t[2] == 0)
		return RPZ_ACTION_NODATA;
	if(len > 1 && t[t[0] + 1] == 0) {
		if(label_is(t, "rpz-passthru"))
			return RPZ_ACTION_PASSTHRU;
		if(label_is(t, "rpz-drop"))
			return RPZ_ACTION_DROP;
		if(label_is(t, "rpz-tcp-only"))
			return RPZ_ACTION_TCP_ONLY;
	}
	return RPZ_ACTION_LOCAL_DATA;
}

/**
 * Add one record to a snapshot being built.
 * @return 0, 1 when skipped (warned), -1 out of memory or bad record
 */
static int
snap_add(struct rpz_snap *s, const uint8_t *origin, size_t origin_len,
	const struct rpz_rr *rr, char *err, size_t errlen)
{
	uint8_t key[DNS_MAX_NAME + 1];
	size_t olen, klen, slot;
	uint32_t h, ri;
	struct rpz_rule *rule;
	enum rpz_action act = RPZ_ACTION_LOCAL_DATA;
	enum rpz_trigger trig = RPZ_TRIGGER_QNAME;
	int wild = 0, nlab, olab;
	const uint8_t *p;
	uint8_t low[DNS_MAX_NAME];

	olen = dname_valid(rr->owner, DNS_MAX_NAME);
	if(olen == 0) {
		snprintf(err, errlen, "bad owner name");
		return -1;
	}
	dname_copy_lower(low, rr->owner);
	if(!dname_is_subdomain(low, origin))
		return 1;
	if(olen == origin_len) {
		/* the apex: keep the SOA, skip the rest (NS) */
		if(rr->type == DNS_TYPE_SOA && rr->rdlen <= sizeof(s->soa) &&
			rr->rdlen >= 20) {
			uint32_t min = dns_read_u32(rr->rdata + rr->rdlen - 4);
			memcpy(s->soa, rr->rdata, rr->rdlen);
			s->soa_len = rr->rdlen;
			s->soa_ttl = rr->ttl < min ? rr->ttl : min;
		}
		return 0;
	}
	/* the key: the owner without the origin labels */
	klen = olen - origin_len;
	memcpy(key, low, klen);
	key[klen++] = 0;
	/* the trigger kind, from the last label of the key */
	nlab = name_labels(key);
	p = key;
	for(olab = 1; olab < nlab; olab++)
		p += *p + 1;
	if(label_is(p, "rpz-client-ip"))
		trig = RPZ_TRIGGER_CLIENT_IP;
	else if(label_is(p, "rpz-ip"))
		trig = RPZ_TRIGGER_RESPONSE_IP;
	else if(label_is(p, "rpz-nsdname"))
		trig = RPZ_TRIGGER_NSDNAME;
	else if(label_is(p, "rpz-nsip"))
		trig = RPZ_TRIGGER_NSIP;
	else if(key[0] == 1 && key[1] == '*')
		wild = 1;
	if(rr->type == DNS_TYPE_CNAME) {
		size_t tl = dname_valid(rr->rdata, rr->rdlen);
		if(tl == 0 || tl != rr->rdlen) {
			snprintf(err, errlen, "bad CNAME target");
			return -1;
		}
		act = cname_action(rr->rdata, tl);
	}
	if(rr->type == DNS_TYPE_DNAME || rr->type == DNS_TYPE_SOA ||
		rr->type == DNS_TYPE_NS)
		return 1; /* not an action (Unbound skips them too) */
	h = key_hash(key, klen);
	slot = snap_slot(s, key, klen, h);
	if(s->tab[slot] == 0) {
		struct rpz_net net;
		if((trig == RPZ_TRIGGER_CLIENT_IP ||
			trig == RPZ_TRIGGER_RESPONSE_IP ||
			trig == RPZ_TRIGGER_NSIP) &&
			parse_ip_trigger(key, &net) != 0)
			return 1;
		if(grow((void **)&s->rules, &s->caprules, s->nrules,
			sizeof(*s->rules), 1) != 0 ||
			grow((void **)&s->names, &s->capnames, s->nnames, 1,
			klen) != 0)
			goto oom;
		if(trig == RPZ_TRIGGER_CLIENT_IP ||
			trig == RPZ_TRIGGER_RESPONSE_IP ||
			trig == RPZ_TRIGGER_NSIP) {
			int w = trig == RPZ_TRIGGER_CLIENT_IP ? 0 :
				trig == RPZ_TRIGGER_RESPONSE_IP ? 1 : 2;
			if(grow((void **)&s->nets[w], &s->capnets[w],
				s->nnets[w], sizeof(net), 1) != 0)
				goto oom;
			net.rule = (uint32_t)s->nrules;
			s->nets[w][s->nnets[w]++] = net;
		}
		ri = (uint32_t)s->nrules++;
		rule = &s->rules[ri];
		memset(rule, 0, sizeof(*rule));
		rule->name_off = (uint32_t)s->nnames;
		rule->name_len = (uint16_t)klen;
		rule->hash = h;
		rule->trigger = (uint8_t)trig;
		rule->wildcard = (uint8_t)wild;
		rule->action = (uint8_t)act;
		memcpy(s->names + s->nnames, key, klen);
		s->nnames += klen;
		s->tab[slot] = ri + 1;
		s->count[trig]++;
		if(wild) {
			int wl = nlab - 1;
			if(wl > 127)
				wl = 127;
			s->wild_labels[wl / 64] |= (uint64_t)1 << (wl % 64);
		}
		if(s->nrules * 2 > s->mask && snap_rehash(s) != 0)
			goto oom;
	} else {
		/* a name seen before: its first record decides the action
		 * (as Unbound, which skips a duplicate: "a CNAME ." then "a
		 * CNAME *." is NXDOMAIN); only local data adds to local
		 * data */
		ri = s->tab[slot] - 1;
		rule = &s->rules[ri];
		if(act != RPZ_ACTION_LOCAL_DATA ||
			rule->action != RPZ_ACTION_LOCAL_DATA)
			return 1;
	}
	if(act == RPZ_ACTION_LOCAL_DATA) {
		struct rpz_data *d;
		if(grow((void **)&s->data, &s->capdata, s->ndata,
			sizeof(*s->data), 1) != 0 ||
			grow((void **)&s->rdata, &s->caprdata, s->nrdata, 1,
			rr->rdlen) != 0)
			goto oom;
		rule = &s->rules[ri];
		d = &s->data[s->ndata];
		d->next = rule->data;
		d->rd_off = (uint32_t)s->nrdata;
		d->ttl = rr->ttl;
		d->type = rr->type;
		d->rrclass = rr->rrclass;
		d->rdlen = rr->rdlen;
		memcpy(s->rdata + s->nrdata, rr->rdata, rr->rdlen);
		s->nrdata += rr->rdlen;
		s->ndata++;
		rule->data = (uint32_t)s->ndata;
	}
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/** order netblocks: longest prefix first */
static int
net_cmp(const void *a, const void *b)
{
	const struct rpz_net *x = a, *y = b;
	return (int)y->prefix - (int)x->prefix;
}

static const struct rpz_rule *snap_find(const struct rpz_snap *s,
	const uint8_t *key, size_t klen, uint32_t h, int wild);

/** @return the slot of a name in the exist table: its own, or the
 * empty one where it goes */
static size_t
exist_slot(const struct rpz_snap *s, const uint8_t *name, size_t len,
	uint32_t h)
{
	size_t i = h & s->exist_mask;
	for(;;) {
		const struct rpz_exist *e = &s->exist[i];
		if(e->off1 == 0 || (e->hash == h && dname_len(s->names +
			e->off1 - 1) == len && memcmp(s->names + e->off1 - 1,
			name, len) == 0))
			return i;
		i = (i + 1) & s->exist_mask;
	}
}

/** double the exist table. @return 0 or -1 (out of memory) */
static int
exist_grow(struct rpz_snap *s)
{
	size_t size = (s->exist_mask + 1) * 2, i;
	struct rpz_exist *old = s->exist, *t = calloc(size, sizeof(*t));
	if(!t)
		return -1;
	for(i = 0; i <= s->exist_mask; i++) {
		size_t j;
		if(old[i].off1 == 0)
			continue;
		j = old[i].hash & (size - 1);
		while(t[j].off1)
			j = (j + 1) & (size - 1);
		t[j] = old[i];
	}
	free(old);
	s->exist = t;
	s->exist_mask = size - 1;
	return 0;
}

/** build the exist table (see struct rpz_snap) when the zone has
 * wildcard rules. @return 0 or -1 (out of memory) */
static int
snap_exist_build(struct rpz_snap *s)
{
	size_t i, n = 0;
	free(s->exist);
	s->exist = NULL;
	s->exist_mask = 0;
	if((s->wild_labels[0] | s->wild_labels[1]) == 0)
		return 0;
	if(!(s->exist = calloc(64, sizeof(*s->exist))))
		return -1;
	s->exist_mask = 63;
	for(i = 0; i < s->nrules; i++) {
		const struct rpz_rule *r = &s->rules[i];
		const uint8_t *k = s->names + r->name_off;
		size_t o;
		if(r->trigger != RPZ_TRIGGER_QNAME || !k[0])
			continue;
		/* each name above the key, the root excluded; a name
		 * that is a QNAME rule itself is found in the rules */
		for(o = (size_t)k[0] + 1; k[o]; o += (size_t)k[o] + 1) {
			const uint8_t *d = k + o;
			size_t len = r->name_len - o, slot;
			uint64_t nh = name_h(d);
			uint32_t h;
			const struct rpz_rule *x = snap_find(s, d, len,
				hash_fin(nh, SEED_EXACT), 0);
			if(x && x->trigger == RPZ_TRIGGER_QNAME)
				continue;
			h = hash_fin(nh, SEED_ENT);
			slot = exist_slot(s, d, len, h);
			if(s->exist[slot].off1 != 0)
				break; /* there, and so is what is above */
			if((n + 1) * 3 > (s->exist_mask + 1) * 2) {
				if(exist_grow(s) != 0)
					return -1;
				slot = exist_slot(s, d, len, h);
			}
			s->exist[slot].hash = h;
			s->exist[slot].off1 = (uint32_t)(r->name_off + o + 1);
			n++;
		}
	}
	return 0;
}

/** finish a snapshot: sort the netblocks, build the filter.
 * @return 0 or -1 (out of memory) */
static int
snap_finish(struct rpz_snap *s)
{
	size_t bits = 4096, i;
	int w;
	while(bits < s->nrules * 16)
		bits *= 2;
	free(s->filter);
	if(!(s->filter = calloc(bits / 64, sizeof(uint64_t))))
		return -1;
	s->fmask = bits - 1;
	for(i = 0; i < s->nrules; i++) {
		size_t b = filter_bit(s->rules[i].hash, s->fmask);
		s->filter[b / 64] |= (uint64_t)1 << (b % 64);
	}
	for(w = 0; w < 3; w++)
		if(s->nnets[w] > 1)
			qsort(s->nets[w], s->nnets[w], sizeof(struct rpz_net),
				net_cmp);
	return snap_exist_build(s);
}

/* ---- the zone ---- */

struct rpz *
rpz_create(const uint8_t *origin, const struct rpz_settings *set)
{
	struct rpz *z = calloc(1, sizeof(*z));
	struct rpz_snap *s;
	size_t l = dname_valid(origin, DNS_MAX_NAME);
	if(!z || l == 0) {
		free(z);
		return NULL;
	}
	z->origin_len = dname_copy_lower(z->origin, origin);
	if(set)
		z->set = *set;
	if(!(s = snap_new()) || snap_finish(s) != 0) {
		snap_free(s);
		free(z);
		return NULL;
	}
	atomic_store(&z->snap, s);
	atomic_store(&z->enabled, 1);
	return z;
}

void
rpz_delete(struct rpz *z)
{
	if(!z)
		return;
	snap_free(atomic_load(&z->snap));
	while(z->retired) {
		struct rpz_snap *n = z->retired->next_retired;
		snap_free(z->retired);
		z->retired = n;
	}
	free(z);
}

const uint8_t *
rpz_origin(const struct rpz *z)
{
	return z->origin;
}

const struct rpz_settings *
rpz_get_settings(const struct rpz *z)
{
	return &z->set;
}

void
rpz_reclaim(struct rpz *z)
{
	struct rpz_snap **p = &z->retired;
	uint64_t safe = qsbr_safe_tag();
	while(*p) {
		if(safe >= (*p)->retired) {
			struct rpz_snap *d = *p;
			*p = d->next_retired;
			snap_free(d);
		} else
			p = &(*p)->next_retired;
	}
}

/** swap a built snapshot in and retire the old one */
static int
rpz_swap(struct rpz *z, struct rpz_snap *s, char *err, size_t errlen)
{
	struct rpz_snap *old;
	if(snap_finish(s) != 0) {
		snprintf(err, errlen, "out of memory");
		snap_free(s);
		return -1;
	}
	old = atomic_exchange(&z->snap, s);
	rpz_reclaim(z);
	if(old) {
		old->retired = qsbr_retire_tag();
		old->next_retired = z->retired;
		z->retired = old;
	}
	return 0;
}

int
rpz_zone_apply(struct rpz *z, const struct rpz_rr *rrs, size_t n, char *err,
	size_t errlen)
{
	struct rpz_snap *s = snap_new();
	size_t i;
	if(!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for(i = 0; i < n; i++) {
		if(snap_add(s, z->origin, z->origin_len, &rrs[i], err, errlen)
			< 0) {
			snap_free(s);
			return -1;
		}
	}
	return rpz_swap(z, s, err, errlen);
}

/** @return 1 when a record of rule r (data d) is in the list */
static int
rr_listed(const struct rpz *z, const struct rpz_snap *s,
	const struct rpz_rule *r, uint16_t type, const uint8_t *rdata,
	uint16_t rdlen, const struct rpz_rr *l, size_t n)
{
	size_t i;
	for(i = 0; i < n; i++) {
		uint8_t low[DNS_MAX_NAME];
		size_t ol = dname_valid(l[i].owner, DNS_MAX_NAME);
		if(ol == 0 || l[i].type != type || l[i].rdlen != rdlen ||
			ol != z->origin_len + r->name_len - 1)
			continue;
		dname_copy_lower(low, l[i].owner);
		if(memcmp(low, s->names + r->name_off, r->name_len - 1) == 0 &&
			(rdlen == 0 || memcmp(l[i].rdata, rdata, rdlen) == 0))
			return 1;
	}
	return 0;
}

/** the special CNAME target of an action, for re-adding a rule */
static const uint8_t *
action_target(enum rpz_action a, uint16_t *len)
{
	static const uint8_t nx[] = { 0 }, nd[] = { 1, '*', 0 };
	static const uint8_t pt[] = "\014rpz-passthru";
	static const uint8_t dr[] = "\010rpz-drop";
	static const uint8_t tc[] = "\014rpz-tcp-only";
	switch(a) {
	case RPZ_ACTION_NXDOMAIN: *len = 1; return nx;
	case RPZ_ACTION_NODATA: *len = 3; return nd;
	case RPZ_ACTION_PASSTHRU: *len = sizeof(pt); return pt;
	case RPZ_ACTION_DROP: *len = sizeof(dr); return dr;
	case RPZ_ACTION_TCP_ONLY: *len = sizeof(tc); return tc;
	default: break;
	}
	return NULL;
}

/** walk a rule's records (newest first in the list) oldest first: the
 * record before `after` in the list (index + 1), or the last one when
 * after is 0; 0 at the end. A rule has a handful of records: the walk
 * is quadratic in them, and only runs when an IXFR rebuilds the rules */
static uint32_t
data_oldest(const struct rpz_snap *o, uint32_t first, uint32_t after)
{
	uint32_t d, prev = 0;
	if(after == first)
		return 0;
	for(d = first; d && d != after; d = o->data[d-1].next)
		prev = d;
	return prev;
}

int
rpz_zone_update(struct rpz *z, const struct rpz_rr *del, size_t ndel,
	const struct rpz_rr *add, size_t nadd, char *err, size_t errlen)
{
	const struct rpz_snap *o = atomic_load(&z->snap);
	struct rpz_snap *s = snap_new();
	size_t i;
	if(!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(o->soa_len) {
		s->soa_len = o->soa_len;
		s->soa_ttl = o->soa_ttl;
		memcpy(s->soa, o->soa, o->soa_len);
	}
	for(i = 0; i < o->nrules; i++) {
		const struct rpz_rule *r = &o->rules[i];
		uint8_t owner[DNS_MAX_NAME + DNS_MAX_NAME];
		struct rpz_rr rr;
		uint32_t d;
		if(r->name_len - 1 + z->origin_len > DNS_MAX_NAME)
			continue;
		memcpy(owner, o->names + r->name_off, r->name_len - 1);
		memcpy(owner + r->name_len - 1, z->origin, z->origin_len);
		rr.owner = owner;
		rr.rrclass = DNS_CLASS_IN;
		rr.ttl = 3600;
		if(r->action != RPZ_ACTION_LOCAL_DATA) {
			rr.type = DNS_TYPE_CNAME;
			rr.rdata = action_target((enum rpz_action)r->action,
				&rr.rdlen);
			if(rr.rdata && !rr_listed(z, o, r, DNS_TYPE_CNAME,
				rr.rdata, rr.rdlen, del, ndel) &&
				snap_add(s, z->origin, z->origin_len, &rr, err,
				errlen) < 0)
				goto fail;
		}
		/* oldest first, so that the new snapshot lists them newest
		 * first again (snap_add puts each in front) */
		for(d = data_oldest(o, r->data, 0); d; d = data_oldest(o,
			r->data, d)) {
			const struct rpz_data *x = &o->data[d-1];
			rr.type = x->type;
			rr.rrclass = x->rrclass;
			rr.ttl = x->ttl;
			rr.rdata = o->rdata + x->rd_off;
			rr.rdlen = x->rdlen;
			if(rr_listed(z, o, r, x->type, rr.rdata, rr.rdlen, del,
				ndel))
				continue;
			if(snap_add(s, z->origin, z->origin_len, &rr, err,
				errlen) < 0)
				goto fail;
		}
	}
	for(i = 0; i < nadd; i++)
		if(snap_add(s, z->origin, z->origin_len, &add[i], err, errlen)
			< 0)
			goto fail;
	return rpz_swap(z, s, err, errlen);
fail:
	snap_free(s);
	return -1;
}

int
rpz_load_file(struct rpz *z, const char *file, char *err, size_t errlen)
{
	FILE *f = fopen(file, "r");
	ldns_rdf *origin = NULL, *prev = NULL;
	uint32_t ttl = 3600;
	int line = 1, nwarn = 0;
	struct rpz_snap *s;
	char e[256];
	if(!f) {
		snprintf(err, errlen, "%s: cannot open: %s", file,
			strerror(errno));
		return -1;
	}
#ifdef __GLIBC__
	/* ldns allocates and frees buffers of tens of kilobytes per record;
	 * with glibc's default trim threshold each free at the top of the
	 * heap gives the memory back with brk() and the next record asks
	 * for it again: a million records spent most of their load time in
	 * the kernel. Keep up to 32 MB of free heap instead. */
	(void)mallopt(M_TRIM_THRESHOLD, 32 * 1024 * 1024);
#endif
	if(!(s = snap_new()) || !(origin = ldns_rdf_new_frm_data(
		LDNS_RDF_TYPE_DNAME, z->origin_len, z->origin))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	prev = ldns_rdf_clone(origin);
	while(!feof(f)) {
		ldns_rr *rr = NULL;
		ldns_status st = ldns_rr_new_frm_fp_l(&rr, f, &ttl, &origin,
			&prev, &line);
		uint8_t rdata[65535];
		size_t rdlen = 0, i;
		struct rpz_rr x;
		int r;
		if(st == LDNS_STATUS_SYNTAX_EMPTY || st == LDNS_STATUS_SYNTAX_TTL
			|| st == LDNS_STATUS_SYNTAX_ORIGIN) {
			if(rr)
				ldns_rr_free(rr);
			continue;
		}
		if(st != LDNS_STATUS_OK || !rr) {
			if(rr)
				ldns_rr_free(rr);
			if(feof(f) && st == LDNS_STATUS_SYNTAX_EMPTY)
				break;
			snprintf(err, errlen, "%s:%d: %s", file, line,
				ldns_get_errorstr_by_id(st));
			goto fail;
		}
		for(i = 0; i < ldns_rr_rd_count(rr); i++) {
			ldns_rdf *d = ldns_rr_rdf(rr, i);
			if(!d)
				continue;
			if(rdlen + ldns_rdf_size(d) > sizeof(rdata)) {
				ldns_rr_free(rr);
				snprintf(err, errlen, "%s:%d: RDATA too long",
					file, line);
				goto fail;
			}
			memcpy(rdata + rdlen, ldns_rdf_data(d),
				ldns_rdf_size(d));
			rdlen += ldns_rdf_size(d);
		}
		x.owner = ldns_rdf_data(ldns_rr_owner(rr));
		x.type = (uint16_t)ldns_rr_get_type(rr);
		x.rrclass = (uint16_t)ldns_rr_get_class(rr);
		x.ttl = ldns_rr_ttl(rr);
		x.rdata = rdata;
		x.rdlen = (uint16_t)rdlen;
		r = snap_add(s, z->origin, z->origin_len, &x, e, sizeof(e));
		ldns_rr_free(rr);
		if(r < 0) {
			snprintf(err, errlen, "%s:%d: %s", file, line, e);
			goto fail;
		}
		if(r > 0 && nwarn++ < 5)
			log_warnx("%s:%d: record skipped (outside the "
				"zone, not a trigger or action, or a second "
				"action for a name: the first stays)", file,
				line);
	}
	fclose(f);
	ldns_rdf_deep_free(origin);
	ldns_rdf_deep_free(prev);
	return rpz_swap(z, s, err, errlen);
fail:
	fclose(f);
	if(origin)
		ldns_rdf_deep_free(origin);
	if(prev)
		ldns_rdf_deep_free(prev);
	snap_free(s);
	return -1;
}

void
rpz_set_enabled(struct rpz *z, int on)
{
	atomic_store(&z->enabled, on ? 1 : 0);
}

int
rpz_is_enabled(const struct rpz *z)
{
	return atomic_load(&((struct rpz *)z)->enabled);
}

size_t
rpz_count(const struct rpz *z, enum rpz_trigger t)
{
	const struct rpz_snap *s = atomic_load(&((struct rpz *)z)->snap);
	return (t >= 0 && t < RPZ_TRIGGER_NUM) ? s->count[t] : 0;
}

/* ---- lookup ---- */

/** @return 1 when the filter may hold hash h */
static int
filter_has(const struct rpz_snap *s, uint32_t h)
{
	size_t b = filter_bit(h, s->fmask);
	return (s->filter[b / 64] >> (b % 64)) & 1;
}

/** @return the rule of a key with hash h, or NULL; wild: the key is the
 * parent of a wildcard rule (stored with its "*." label) */
static const struct rpz_rule *
snap_find(const struct rpz_snap *s, const uint8_t *key, size_t klen,
	uint32_t h, int wild)
{
	size_t i = h & s->mask, want = wild ? klen + 2 : klen;
	if(!filter_has(s, h))
		return NULL;
	for(;;) {
		uint32_t r = s->tab[i];
		const struct rpz_rule *x;
		if(r == 0)
			return NULL;
		x = &s->rules[r-1];
		if(x->hash == h && x->name_len == want && x->wildcard == wild &&
			memcmp(s->names + x->name_off + (wild ? 2 : 0), key,
			klen) == 0)
			return x;
		i = (i + 1) & s->mask;
	}
}

/** @return 1 when a name exists in the zone: a QNAME rule's key (hx:
 * its SEED_EXACT hash) or a name above one (he: its SEED_ENT hash) */
static int
exist_has(const struct rpz_snap *s, const uint8_t *name, size_t len,
	uint32_t hx, uint32_t he)
{
	const struct rpz_rule *r = snap_find(s, name, len, hx, 0);
	if(r && r->trigger == RPZ_TRIGGER_QNAME)
		return 1;
	return s->exist[exist_slot(s, name, len, he)].off1 != 0;
}

/** fill a match */
static int
rpz_matched(const struct rpz *z, const struct rpz_snap *s,
	const struct rpz_rule *r, struct rpz_match *m)
{
	m->snap = s;
	m->rule = (uint32_t)(r - s->rules);
	m->trigger = (enum rpz_trigger)r->trigger;
	m->wildcard = r->wildcard;
	m->action = (enum rpz_action)r->action;
	if(z->set.action_override != RPZ_ACTION_NONE)
		m->action = z->set.action_override;
	return 1;
}

/** longest-prefix match in a netblock array. @return the rule or NULL */
static const struct rpz_rule *
net_find(const struct rpz_snap *s, int w, const uint8_t *a, size_t len)
{
	size_t i;
	for(i = 0; i < s->nnets[w]; i++) {
		const struct rpz_net *n = &s->nets[w][i];
		int full, rest;
		if(n->len != len)
			continue;
		full = n->prefix / 8;
		rest = n->prefix % 8;
		if(memcmp(n->addr, a, (size_t)full) != 0)
			continue;
		if(rest && ((a[full] ^ n->addr[full]) &
			(uint8_t)(0xff << (8 - rest))))
			continue;
		return &s->rules[n->rule];
	}
	return NULL;
}

int
rpz_lookup_query(const struct rpz *z, const uint8_t *qname,
	const struct netaddr *client, struct rpz_match *m)
{
	const struct rpz_snap *s = atomic_load(&((struct rpz *)z)->snap);
	const struct rpz_rule *r;
	size_t qlen;
	if(s->nnets[0] && client) {
		size_t al;
		const uint8_t *a = netaddr_bytes(client, &al);
		if(a && (r = net_find(s, 0, a, al)))
			return rpz_matched(z, s, r, m);
	}
	if(s->count[RPZ_TRIGGER_QNAME] == 0)
		return 0;
	{
		/* one pass from the root gives the hash of the name and of
		 * each parent; wildcards are tried from the closest parent */
		uint8_t offs[128];
		uint32_t wh[128];
		uint64_t hv[128];
		int nl = label_offsets(qname, offs), j, nw = 0;
		int wild = (s->wild_labels[0] | s->wild_labels[1]) != 0;
		uint64_t h = 0x452821e638d01377ULL;
		int wj[128];
		qlen = dname_len(qname);
		if(wild && nl > 0 && nl < 128 && (s->wild_labels[0] & 1)) {
			/* "*." at the root stands for every name (whose
			 * top label is no rule's) */
			offs[nl] = (uint8_t)(qlen - 1);
			wh[nw] = hash_fin(h, SEED_WILD);
			wj[nw++] = nl;
		}
		for(j = nl - 1; j >= 0; j--) {
			int lab = nl - j; /* labels of the suffix at j */
			h = mix_label(h, qname + offs[j]);
			if(wild) {
				hv[j] = h;
				if(j > 0 && (s->wild_labels[lab / 64] &
					((uint64_t)1 << (lab % 64)))) {
					wh[nw] = hash_fin(h, SEED_WILD);
					wj[nw++] = j;
				}
			}
		}
		r = snap_find(s, qname, qlen, hash_fin(h, SEED_EXACT), 0);
		if(r && r->trigger == RPZ_TRIGGER_QNAME)
			return rpz_matched(z, s, r, m);
		/* wh holds the parents from the root down: closest last. A
		 * wildcard *.P stands only for names under P whose child of
		 * P (toward the question) does not exist in the zone: with
		 * rules b.a and *.a, x.b.a matches neither (RFC 4592
		 * section 3.3.1, and Unbound). The closest P with a
		 * wildcard decides: when its child C exists, no wildcard
		 * applies; when C does not, nothing between C and the
		 * question exists either (it would make C exist) */
		while(nw-- > 0) {
			int c = wj[nw] - 1; /* the child of P toward qname */
			const uint8_t *p = qname + offs[wj[nw]];
			r = snap_find(s, p, qlen - offs[wj[nw]], wh[nw], 1);
			if(!r || r->trigger != RPZ_TRIGGER_QNAME)
				continue;
			if(c > 0 && s->exist && exist_has(s, qname + offs[c],
				qlen - offs[c], hash_fin(hv[c], SEED_EXACT),
				hash_fin(hv[c], SEED_ENT)))
				return 0;
			return rpz_matched(z, s, r, m);
		}
	}
	return 0;
}

int
rpz_lookup_ip(const struct rpz *z, const uint8_t *addr, size_t len,
	struct rpz_match *m)
{
	const struct rpz_snap *s = atomic_load(&((struct rpz *)z)->snap);
	const struct rpz_rule *r;
	if(s->nnets[1] == 0 || (r = net_find(s, 1, addr, len)) == NULL)
		return 0;
	return rpz_matched(z, s, r, m);
}

/** rpz_lookup_answer's walk: the zone and the rule found */
struct rpz_ans_find {
	/** the zone */
	const struct rpz *z;
	/** the rule found */
	struct rpz_match *m;
};

/** dns_addr_scan callback: a RESPONSE-IP trigger holding addr */
static int
rpz_ans_find_cb(void *arg, const uint8_t *addr, size_t alen)
{
	struct rpz_ans_find *f = arg;
	return rpz_lookup_ip(f->z, addr, alen, f->m);
}

int
rpz_lookup_answer(const struct rpz *z, const uint8_t *ans, size_t len,
	struct rpz_match *m, struct dns_addr_hit *hit)
{
	struct rpz_ans_find f;
	f.z = z;
	f.m = m;
	return dns_addr_scan(ans, len, rpz_ans_find_cb, &f, hit) == 1;
}

int
rpz_lookup_nsip(const struct rpz *z, const uint8_t *addr, size_t len,
	struct rpz_match *m)
{
	const struct rpz_snap *s = atomic_load(&((struct rpz *)z)->snap);
	const struct rpz_rule *r;
	if(s->nnets[2] == 0 || (r = net_find(s, 2, addr, len)) == NULL)
		return 0;
	return rpz_matched(z, s, r, m);
}

int
rpz_lookup_nsdname(const struct rpz *z, const uint8_t *nsname,
	struct rpz_match *m)
{
	static const uint8_t lab[] = "\013rpz-nsdname";
	const struct rpz_snap *s = atomic_load(&((struct rpz *)z)->snap);
	uint8_t key[DNS_MAX_NAME + 16], low[DNS_MAX_NAME];
	const uint8_t *p;
	size_t nl;
	int first = 1;
	if(s->count[RPZ_TRIGGER_NSDNAME] == 0)
		return 0;
	nl = dname_copy_lower(low, nsname);
	/* the name itself, then "*." and each parent: the key is the name
	 * without its root label, then the rpz-nsdname label */
	for(p = low; *p; p = dname_strip_label(p), first = 0) {
		size_t pl = nl - (size_t)(p - low) - 1, k = 0;
		const struct rpz_rule *r;
		if(!first) {
			key[k++] = 1;
			key[k++] = '*';
		}
		memcpy(key + k, p, pl);
		k += pl;
		memcpy(key + k, lab, sizeof(lab) - 1);
		k += sizeof(lab) - 1;
		key[k++] = 0;
		r = snap_find(s, key, k, key_hash(key, k), 0);
		if(r && r->trigger == RPZ_TRIGGER_NSDNAME)
			return rpz_matched(z, s, r, m);
	}
	return 0;
}

void
rpz_match_data(const struct rpz_match *m, rpz_data_cb cb, void *arg)
{
	const struct rpz_snap *s = m->snap;
	uint32_t d;
	for(d = s->rules[m->rule].data; d; d = s->data[d-1].next) {
		const struct rpz_data *x = &s->data[d-1];
		if(cb(arg, x->type, x->rrclass, x->ttl, s->rdata + x->rd_off,
			x->rdlen))
			return;
	}
}

const uint8_t *
rpz_soa(const struct rpz_match *m, size_t *rdlen, uint32_t *ttl)
{
	if(!m->snap || m->snap->soa_len == 0)
		return NULL;
	*rdlen = m->snap->soa_len;
	*ttl = m->snap->soa_ttl;
	return m->snap->soa;
}

/** the action words, in enum order */
static const char *const action_words[] = { "none", "nxdomain", "nodata",
	"passthru", "drop", "tcp-only", "local-data", "cname", "disabled" };

const char *
rpz_action_str(enum rpz_action a)
{
	if((int)a < 0 || (size_t)a >= sizeof(action_words) /
		sizeof(action_words[0]))
		return "?";
	return action_words[a];
}

int
rpz_action_from_str(const char *s)
{
	int i;
	for(i = RPZ_ACTION_NXDOMAIN; i <= RPZ_ACTION_DISABLED; i++)
		if(i != RPZ_ACTION_LOCAL_DATA &&
			strcasecmp(s, action_words[i]) == 0)
			return i;
	return -1;
}
