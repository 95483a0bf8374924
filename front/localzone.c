/*
 * front/localzone.c - local zones, local data and CHAOS identity answers.
 *
 * See localzone.h for the behaviour. This file comment says how it is
 * built.
 *
 * Build: local_zones_add_zone() creates zones at once (they live in the
 * structure's region) and records them in the name table;
 * local_zones_add_data() parses an RR with ldns and keeps it, owner and
 * RDATA in the region, on a pending list. local_zones_finish() then
 *   1. adds the default zones that no local-zone line names,
 *   2. marks in the table every strict ancestor of every zone apex,
 *   3. makes the implicit transparent zones for RRs no zone covers,
 *   4. finds each RR's zone, sorts the RRs by (class, owner, zone, type)
 *      and turns every run into a node with its RRsets (exact-size arrays
 *      in the region; duplicates dropped),
 *   5. adds the empty non-terminals between each node and its apex, and
 *      points each zone at its apex SOA.
 * The pending list is freed; from then on nothing changes.
 *
 * Table: open addressing, linear probing, at most half full. The key is
 * (class, lower-case wire name); the hash is computed label by label from
 * the root, so the hashes of all suffixes of a query name fall out of one
 * right-to-left pass, which is what the zone walk needs.
 */
#include "config.h"
#include "front/localzone.h"
#include "dns/as112.h"
#include "front/acl.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/config_options.h"
#include "util/region.h"
#include <ldns/ldns.h>
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** the default UDP payload size we put in OPT records */
#define LZ_DEFAULT_EDNS 1232
/** longest CHAOS TXT string */
#define LZ_CHAOS_MAX 255
/** TTL of the default zones' data */
#define LZ_DEFAULT_TTL "10800"

/** one RR of local data */
struct lz_rr {
	/** TTL */
	uint32_t ttl;
	/** RDATA length */
	uint16_t rdlen;
	/** uncompressed RDATA (in the region) */
	const uint8_t *rdata;
};

/** an RRset of local data */
struct lz_rrset {
	/** RR type */
	uint16_t type;
	/** number of RRs */
	uint16_t count;
	/** the RRs, in the order they were given */
	const struct lz_rr *rrs;
};

/** the local data of one name in one zone */
struct lz_node {
	/** the zone it belongs to */
	const struct local_zone *zone;
	/** its RRsets */
	const struct lz_rrset *rrsets;
	/** number of RRsets; 0 for an empty non-terminal */
	size_t nrrsets;
	/** the node of another zone at the same name (a DS at a zone cut
	 * belongs to the parent zone), or NULL */
	struct lz_node *next;
};

/** one local zone */
struct local_zone {
	/** apex, lower-case wire format (in the region) */
	const uint8_t *name;
	/** its length */
	size_t namelen;
	/** number of labels, root not counted */
	int labs;
	/** class */
	uint16_t rrclass;
	/** the type */
	enum local_zone_type type;
	/** local-zone-tag: the zone is seen only by clients with one of
	 * these tags; 0 for every client */
	uint64_t tags;
	/** the apex SOA RRset, or NULL */
	const struct lz_rrset *soa;
	/** TTL for the SOA in negative answers: min(TTL, SOA minimum) */
	uint32_t soa_neg_ttl;
	/** local-zone-override: the type for clients in a netblock (in the
	 * region; longest prefix first), and their number (0: none) */
	struct lz_override *ovr;
	size_t novr;
};

/** a local-zone-override line of a zone */
struct lz_override {
	/** the clients */
	struct netblock nb;
	/** the type they see */
	enum local_zone_type type;
};

/** a name table entry */
struct lz_entry {
	/** the name (lower case, in the region); NULL for an empty slot */
	const uint8_t *name;
	/** its hash (lz_name_hash) */
	uint32_t hash;
	/** length of name */
	uint16_t namelen;
	/** class */
	uint16_t rrclass;
	/** 1 when some zone apex lies strictly below this name */
	uint8_t anc;
	/** 1 when a local-zone nodefault line named it */
	uint8_t nodefault;
	/** the zone whose apex this is, or NULL */
	struct local_zone *zone;
	/** local data (or an empty non-terminal) here, or NULL */
	struct lz_node *node;
};

/** an RR waiting for local_zones_finish() */
struct lz_prr {
	/** owner, lower case, in the region */
	const uint8_t *owner;
	/** owner length */
	uint16_t ownerlen;
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** RDATA length */
	uint16_t rdlen;
	/** TTL */
	uint32_t ttl;
	/** RDATA, in the region */
	const uint8_t *rdata;
	/** order given */
	size_t seq;
	/** its zone, found in finish */
	const struct local_zone *zone;
};

/** the local zones */
struct local_zones {
	/** 1 once finished (read-only from then) */
	int finished;
	/** all zone and data memory */
	struct region *region;
	/** zones (malloced array of pointers into the region) */
	struct local_zone **zones;
	/** number of zones */
	size_t nzones;
	/** allocated length of zones */
	size_t capzones;
	/** the name table (malloced) */
	struct lz_entry *table;
	/** slots in table, a power of 2 (or 0) */
	size_t tsize;
	/** slots used */
	size_t tused;
	/** zones at the root, one per class (small) */
	struct local_zone *roots[4];
	/** number of roots */
	int nroots;
	/** pending RRs (malloced; freed by finish) */
	struct lz_prr *prrs;
	/** number of pending RRs */
	size_t nprrs;
	/** allocated length of prrs */
	size_t capprrs;
	/** do not add the AS112 default zones */
	int unblock_lan;
	/** log-local-actions: log every query a zone handles */
	int log_actions;
	/** ede: no: no Extended DNS Error in the zones' answers */
	int no_ede;
	/** do not answer id.server, hostname.bind */
	int hide_identity;
	/** do not answer version.server, version.bind */
	int hide_version;
	/** the identity string */
	char identity[LZ_CHAOS_MAX + 1];
	/** the version string */
	char version[LZ_CHAOS_MAX + 1];
	/** our EDNS UDP size */
	uint16_t edns_size;
	/** largest UDP answer */
	uint16_t max_udp;
	/** number of zones with local-zone-tag tags (0: no tag tests) */
	size_t ntagged;
};

/** the words of the types, indexed by enum local_zone_type */
static const char *const lz_type_words[] = {
	"unset", "deny", "refuse", "static", "transparent", "typetransparent",
	"redirect", "inform", "inform_deny", "inform_redirect",
	"always_transparent", "always_refuse", "always_nxdomain",
	"always_nodata", "always_deny", "always_null", "nodefault",
	"block_a", "block_aaaa", "noview", "block_a_wdata", "block_aaaa_wdata"
};


/** the ::1 reverse name */
#define LZ_IP6_LOOPBACK "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0." \
	"0.0.0.0.0.0.0.0.ip6.arpa."

/** write an error message */
static void __attribute__((format(printf, 3, 4)))
lz_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if(!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------- */
/* names and hashing                                                  */

/**
 * Find the label starts of a valid wire name.
 * @param name: the name.
 * @param offs: gets the offset of each label, leftmost first.
 * @return number of labels (root not counted).
 */
static int
lz_label_offsets(const uint8_t *name, uint8_t *offs)
{
	int k = 0;
	size_t p = 0;
	while(name[p] != 0 && k < DNS_MAX_LABELS) {
		offs[k++] = (uint8_t)p;
		p += (size_t)name[p] + 1;
	}
	return k;
}

/** hash seed for a class */
static uint32_t
lz_hash_start(uint16_t rrclass)
{
	return 2166136261u ^ ((uint32_t)rrclass * 0x9e3779b1u);
}

/** extend a suffix hash by one label on the left (lab at its length) */
static uint32_t
lz_hash_label(uint32_t h, const uint8_t *lab)
{
	size_t i, n = lab[0];
	h = (h ^ (uint32_t)(n + 0x100)) * 16777619u;
	for(i = 1; i <= n; i++)
		h = (h ^ lab[i]) * 16777619u;
	return h;
}

/** hash of a whole valid lower-case name */
static uint32_t
lz_name_hash(const uint8_t *name, uint16_t rrclass)
{
	uint8_t offs[DNS_MAX_LABELS];
	int k = lz_label_offsets(name, offs), j;
	uint32_t h = lz_hash_start(rrclass);
	for(j = k - 1; j >= 0; j--)
		h = lz_hash_label(h, name + offs[j]);
	return h;
}

/** spread the hash bits for the slot index */
static size_t
lz_slot(uint32_t h, size_t mask)
{
	h ^= h >> 16;
	h *= 0x85ebca6bu;
	h ^= h >> 13;
	h *= 0xc2b2ae35u;
	h ^= h >> 16;
	return (size_t)h & mask;
}

/** find an entry */
static struct lz_entry *
lz_table_find(const struct local_zones *lz, uint16_t rrclass,
	const uint8_t *name, size_t namelen, uint32_t h)
{
	size_t mask, i;
	if(lz->tsize == 0)
		return NULL;
	mask = lz->tsize - 1;
	i = lz_slot(h, mask);
	for(;;) {
		struct lz_entry *e = &lz->table[i];
		if(!e->name)
			return NULL;
		if(e->hash == h && e->rrclass == rrclass &&
			e->namelen == namelen &&
			memcmp(e->name, name, namelen) == 0)
			return e;
		i = (i + 1) & mask;
	}
}

/** double the table. @return 0 or -1 */
static int
lz_table_grow(struct local_zones *lz)
{
	size_t nsize = lz->tsize ? lz->tsize * 2 : 256, i;
	struct lz_entry *nt = calloc(nsize, sizeof(*nt));
	if(!nt)
		return -1;
	for(i = 0; i < lz->tsize; i++) {
		struct lz_entry *e = &lz->table[i];
		size_t j;
		if(!e->name)
			continue;
		j = lz_slot(e->hash, nsize - 1);
		while(nt[j].name)
			j = (j + 1) & (nsize - 1);
		nt[j] = *e;
	}
	free(lz->table);
	lz->table = nt;
	lz->tsize = nsize;
	return 0;
}

/**
 * Find or add the entry for a name (build time).
 * @param name: lower-case name; copied into the region when new.
 * @return the entry or NULL when out of memory. The pointer is valid until
 *	the next insert.
 */
static struct lz_entry *
lz_table_get(struct local_zones *lz, uint16_t rrclass, const uint8_t *name,
	size_t namelen)
{
	uint32_t h = lz_name_hash(name, rrclass);
	struct lz_entry *e = lz_table_find(lz, rrclass, name, namelen, h);
	size_t i;
	if(e)
		return e;
	if((lz->tused + 1) * 2 > lz->tsize && lz_table_grow(lz) != 0)
		return NULL;
	i = lz_slot(h, lz->tsize - 1);
	while(lz->table[i].name)
		i = (i + 1) & (lz->tsize - 1);
	e = &lz->table[i];
	e->name = region_memdup(lz->region, name, namelen);
	if(!e->name)
		return NULL;
	e->hash = h;
	e->namelen = (uint16_t)namelen;
	e->rrclass = rrclass;
	lz->tused++;
	return e;
}

/** inlined into each caller, so that a constant argument (the untagged
 * zone walk, the untagged front end: both on the cached-answer path)
 * leaves no test behind; a call to the front end's shared rules cost 17
 * instructions per cached answer (bench/hitcost) */
#define LZ_INLINE static inline __attribute__((always_inline))

/** @return 1 if the client sees zone z: tagged 0 (tags not asked), an
 * untagged zone, or one with a tag of the client's (ctags) */
LZ_INLINE int
lz_zone_seen(const struct local_zone *z, int tagged, uint64_t ctags)
{
	return !tagged || !z->tags || (z->tags & ctags) != 0;
}

/**
 * The closest zone that covers a name and that the client sees: walk the
 * suffixes from the root down while they are ancestors of some zone. A
 * tagged zone the client has none of the tags of is not there for it (the
 * zone above answers).
 * @param name: valid lower-case wire name.
 * @param qtype: DS skips the leftmost label (the DS is in the parent).
 * @param tagged: 0 when no zone has local-zone-tag tags (ctags unused).
 */
LZ_INLINE const struct local_zone *
lz_find_zone_walk(const struct local_zones *lz, const uint8_t *name,
	uint16_t qtype, uint16_t rrclass, int tagged, uint64_t ctags)
{
	uint8_t offs[DNS_MAX_LABELS];
	const struct local_zone *best = NULL;
	int k, j, first = 0, i;
	size_t total;
	uint32_t h;
	for(i = 0; i < lz->nroots; i++)
		if(lz->roots[i]->rrclass == rrclass &&
			lz_zone_seen(lz->roots[i], tagged, ctags))
			best = lz->roots[i];
	if(lz->tsize == 0)
		return best;
	k = lz_label_offsets(name, offs);
	if(k == 0)
		return best;
	total = (size_t)offs[k - 1] + name[offs[k - 1]] + 2;
	if(qtype == DNS_TYPE_DS)
		first = 1;
	h = lz_hash_start(rrclass);
	for(j = k - 1; j >= first; j--) {
		const struct lz_entry *e;
		h = lz_hash_label(h, name + offs[j]);
		e = lz_table_find(lz, rrclass, name + offs[j],
			total - offs[j], h);
		if(!e)
			break;
		if(e->zone && lz_zone_seen(e->zone, tagged, ctags))
			best = e->zone;
		if(!e->anc)
			break;
	}
	return best;
}

/** lz_find_zone_walk for every zone (no tags asked) */
LZ_INLINE const struct local_zone *
lz_find_zone(const struct local_zones *lz, const uint8_t *name,
	uint16_t qtype, uint16_t rrclass)
{
	return lz_find_zone_walk(lz, name, qtype, rrclass, 0, 0);
}

/** lz_find_zone_walk for a client with tags ctags, when some zone has
 * local-zone-tag tags */
static const struct local_zone *
lz_find_zone_tags(const struct local_zones *lz, const uint8_t *name,
	uint16_t qtype, uint16_t rrclass, uint64_t ctags)
{
	return lz_find_zone_walk(lz, name, qtype, rrclass, 1, ctags);
}

/** the node of zone z at a name, or NULL */
static const struct lz_node *
lz_find_node(const struct local_zones *lz, const struct local_zone *z,
	const uint8_t *name, size_t namelen)
{
	const struct lz_entry *e = lz_table_find(lz, z->rrclass, name,
		namelen, lz_name_hash(name, z->rrclass));
	const struct lz_node *n;
	if(!e)
		return NULL;
	for(n = e->node; n; n = n->next)
		if(n->zone == z)
			return n;
	return NULL;
}

/** an RRset of a node: the type, else (when alias_ok) a CNAME */
static const struct lz_rrset *
lz_node_rrset(const struct lz_node *n, uint16_t type, int alias_ok)
{
	const struct lz_rrset *cname = NULL;
	size_t i;
	for(i = 0; i < n->nrrsets; i++) {
		if(n->rrsets[i].type == type)
			return &n->rrsets[i];
		if(n->rrsets[i].type == DNS_TYPE_CNAME)
			cname = &n->rrsets[i];
	}
	return alias_ok ? cname : NULL;
}

/* ---------------------------------------------------------------- */
/* building                                                           */

struct local_zones *
local_zones_create(void)
{
	struct local_zones *lz = calloc(1, sizeof(*lz));
	char host[256];
	if(!lz)
		return NULL;
	lz->region = region_create(0);
	if(!lz->region) {
		free(lz);
		return NULL;
	}
	lz->edns_size = LZ_DEFAULT_EDNS;
	lz->max_udp = LZ_DEFAULT_EDNS;
	if(gethostname(host, sizeof(host)) != 0)
		host[0] = 0;
	host[sizeof(host) - 1] = 0;
	snprintf(lz->identity, sizeof(lz->identity), "%s", host);
	snprintf(lz->version, sizeof(lz->version), "petrel %s",
		PACKAGE_VERSION);
	return lz;
}

void
local_zones_delete(struct local_zones *lz)
{
	if(!lz)
		return;
	region_destroy(lz->region);
	free(lz->zones);
	free(lz->table);
	free(lz->prrs);
	free(lz);
}

enum local_zone_type
local_zone_type_from_str(const char *s)
{
	size_t i;
	if(!s)
		return LOCAL_ZONE_UNSET;
	for(i = 1; i < sizeof(lz_type_words) / sizeof(lz_type_words[0]); i++)
		if(strcmp(s, lz_type_words[i]) == 0)
			return (enum local_zone_type)i;
	return LOCAL_ZONE_UNSET;
}

const char *
local_zone_type_str(enum local_zone_type t)
{
	if((size_t)t >= sizeof(lz_type_words) / sizeof(lz_type_words[0]))
		return "unknown";
	return lz_type_words[t];
}

/**
 * Create a zone (build time). An existing zone of that name and class
 * gets the new type (Unbound: the later line wins, with a warning).
 * @return the zone or NULL when out of memory.
 */
static struct local_zone *
lz_zone_create(struct local_zones *lz, const uint8_t *name, size_t namelen,
	uint16_t rrclass, enum local_zone_type type, int warn_dup)
{
	struct lz_entry *e = lz_table_get(lz, rrclass, name, namelen);
	struct local_zone *z;
	if(!e)
		return NULL;
	if(e->zone) {
		if(warn_dup) {
			char buf[DNS_MAX_NAME_STR];
			(void)dname_to_str(name, buf, sizeof(buf));
			log_warnx("duplicate local-zone %s", buf);
		}
		e->zone->type = type;
		return e->zone;
	}
	z = region_alloc_zero(lz->region, sizeof(*z));
	if(!z)
		return NULL;
	z->name = e->name;
	z->namelen = namelen;
	z->labs = dname_count_labels(name);
	z->rrclass = rrclass;
	z->type = type;
	if(lz->nzones == lz->capzones) {
		size_t nc = lz->capzones ? lz->capzones * 2 : 64;
		struct local_zone **nz = realloc(lz->zones, nc * sizeof(*nz));
		if(!nz)
			return NULL;
		lz->zones = nz;
		lz->capzones = nc;
	}
	lz->zones[lz->nzones++] = z;
	e->zone = z;
	if(z->labs == 0) {
		if(lz->nroots >= (int)(sizeof(lz->roots) / sizeof(lz->roots[0]))) {
			log_err("local-zone: too many classes with a root zone");
			return NULL;
		}
		lz->roots[lz->nroots++] = z;
	}
	return z;
}

/** mark every strict ancestor of a zone apex. @return 0 or -1 */
static int
lz_mark_ancestors(struct local_zones *lz, const struct local_zone *z)
{
	const uint8_t *p = z->name;
	while(*p) {
		struct lz_entry *e;
		p = dname_strip_label(p);
		if(*p == 0)
			break;
		e = lz_table_get(lz, z->rrclass, p, dname_len(p));
		if(!e)
			return -1;
		if(e->anc)
			break; /* and so are all above it */
		e->anc = 1;
	}
	return 0;
}

/** parse a name to lower-case wire. @return length or 0 */
static size_t
lz_parse_name(const char *s, uint8_t *out)
{
	size_t len = DNS_MAX_NAME;
	if(dname_from_str(s, out, &len) != 0)
		return 0;
	dname_tolower(out);
	return len;
}

int
local_zones_add_zone(struct local_zones *lz, const char *name,
	const char *type, char *err, size_t errlen)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t len;
	enum local_zone_type t;
	if(!lz || lz->finished) {
		lz_err(err, errlen, "local zones already finished");
		return -1;
	}
	if(!name || !(len = lz_parse_name(name, nm))) {
		lz_err(err, errlen, "bad local-zone name '%s'",
			name ? name : "");
		return -1;
	}
	t = local_zone_type_from_str(type);
	if(t == LOCAL_ZONE_UNSET) {
		lz_err(err, errlen, "bad local-zone type '%s' for %s",
			type ? type : "", name);
		return -1;
	}
	if(t == LOCAL_ZONE_NODEFAULT) {
		struct lz_entry *e = lz_table_get(lz, DNS_CLASS_IN, nm, len);
		if(!e) {
			lz_err(err, errlen, "out of memory");
			return -1;
		}
		e->nodefault = 1;
		return 0;
	}
	if(!lz_zone_create(lz, nm, len, DNS_CLASS_IN, t, 1)) {
		lz_err(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int
local_zones_set_zone_tags(struct local_zones *lz, const char *name,
	uint64_t tags, char *err, size_t errlen)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t len, i;
	if(!lz || lz->finished) {
		lz_err(err, errlen, "local zones already finished");
		return -1;
	}
	if(!name || !(len = lz_parse_name(name, nm))) {
		lz_err(err, errlen, "bad local-zone name '%s'",
			name ? name : "");
		return -1;
	}
	for(i = 0; i < lz->nzones; i++)
		if(lz->zones[i]->rrclass == DNS_CLASS_IN &&
			lz->zones[i]->namelen == len &&
			memcmp(lz->zones[i]->name, nm, len) == 0) {
			if(!lz->zones[i]->tags && tags)
				lz->ntagged++;
			lz->zones[i]->tags = tags;
			return 0;
		}
	lz_err(err, errlen, "no local-zone '%s' to tag", name);
	return -1;
}

int
local_zones_set_zone_override(struct local_zones *lz, const char *name,
	const char *netblock, const char *type, char *err, size_t errlen)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t len, i, j;
	struct netblock nb;
	const char *why = NULL;
	enum local_zone_type t = local_zone_type_from_str(type);
	struct local_zone *z = NULL;
	struct lz_override *o;
	if(!lz || lz->finished) {
		lz_err(err, errlen, "local zones already finished");
		return -1;
	}
	if(!name || !(len = lz_parse_name(name, nm))) {
		lz_err(err, errlen, "bad local-zone name '%s'",
			name ? name : "");
		return -1;
	}
	if(!netblock || netblock_parse(netblock, &nb, 1, &why) != 0) {
		lz_err(err, errlen, "bad netblock '%s': %s",
			netblock ? netblock : "", why ? why : "");
		return -1;
	}
	if(t == LOCAL_ZONE_UNSET || t == LOCAL_ZONE_NODEFAULT) {
		lz_err(err, errlen, "bad local-zone type '%s'",
			type ? type : "");
		return -1;
	}
	for(i = 0; i < lz->nzones && !z; i++)
		if(lz->zones[i]->rrclass == DNS_CLASS_IN &&
			lz->zones[i]->namelen == len &&
			memcmp(lz->zones[i]->name, nm, len) == 0)
			z = lz->zones[i];
	if(!z) {
		lz_err(err, errlen, "no local-zone '%s' to override", name);
		return -1;
	}
	/* a new array in the region, one longer, the longer prefix first
	 * (the old one stays in the region until the zones are freed) */
	o = region_alloc(lz->region, (z->novr + 1) * sizeof(*o));
	if(!o) {
		lz_err(err, errlen, "out of memory");
		return -1;
	}
	for(i = 0, j = 0; i < z->novr; i++) {
		if(j == i && z->ovr[i].nb.prefix < nb.prefix) {
			o[j].nb = nb;
			o[j++].type = t;
		}
		o[j++] = z->ovr[i];
	}
	if(j == z->novr) {
		o[j].nb = nb;
		o[j].type = t;
	}
	z->ovr = o;
	z->novr++;
	return 0;
}

/** The local-zone-override of zone z for this client (the longest
 * netblock that holds the address). @return 1 with *t set, or 0 when
 * none holds it (*t as it was) */
static int
lz_override_type(const struct local_zone *z, const struct netaddr *client,
	enum local_zone_type *t)
{
	size_t i;
	for(i = 0; i < z->novr; i++)
		if(netblock_match(&z->ovr[i].nb, client)) {
			*t = z->ovr[i].type;
			return 1;
		}
	return 0;
}

/** append a parsed RR to the pending list. @return 0 or -1 */
static int
lz_prr_add(struct local_zones *lz, const uint8_t *owner, size_t ownerlen,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	struct lz_prr *p;
	if(lz->nprrs == lz->capprrs) {
		size_t nc = lz->capprrs ? lz->capprrs * 2 : 64;
		struct lz_prr *np = realloc(lz->prrs, nc * sizeof(*np));
		if(!np)
			return -1;
		lz->prrs = np;
		lz->capprrs = nc;
	}
	p = &lz->prrs[lz->nprrs];
	memset(p, 0, sizeof(*p));
	p->owner = region_memdup(lz->region, owner, ownerlen);
	p->rdata = rdlen ? region_memdup(lz->region, rdata, rdlen) :
		(const uint8_t *)"";
	if(!p->owner || !p->rdata)
		return -1;
	p->ownerlen = (uint16_t)ownerlen;
	p->type = type;
	p->rrclass = rrclass;
	p->ttl = ttl;
	p->rdlen = (uint16_t)rdlen;
	p->seq = lz->nprrs;
	lz->nprrs++;
	return 0;
}

int
local_zones_add_data(struct local_zones *lz, const char *rrstr, char *err,
	size_t errlen)
{
	ldns_rr *rr = NULL;
	ldns_rdf *origin = NULL;
	ldns_status st;
	uint8_t owner[DNS_MAX_NAME], rdata[65535];
	size_t ownerlen, rdlen = 0, i;
	if(!lz || lz->finished) {
		lz_err(err, errlen, "local zones already finished");
		return -1;
	}
	if(!rrstr) {
		lz_err(err, errlen, "no local-data");
		return -1;
	}
	origin = ldns_dname_new_frm_str(".");
	if(!origin) {
		lz_err(err, errlen, "out of memory");
		return -1;
	}
	st = ldns_rr_new_frm_str(&rr, rrstr, 3600, origin, NULL);
	ldns_rdf_deep_free(origin);
	if(st != LDNS_STATUS_OK || !rr) {
		lz_err(err, errlen, "bad local-data '%s': %s", rrstr,
			ldns_get_errorstr_by_id(st));
		if(rr)
			ldns_rr_free(rr);
		return -1;
	}
	if(!ldns_rr_owner(rr) || ldns_rdf_size(ldns_rr_owner(rr)) >
		DNS_MAX_NAME || (ownerlen = dname_valid(ldns_rdf_data(
		ldns_rr_owner(rr)), ldns_rdf_size(ldns_rr_owner(rr)))) == 0) {
		lz_err(err, errlen, "bad local-data '%s': owner name", rrstr);
		ldns_rr_free(rr);
		return -1;
	}
	memcpy(owner, ldns_rdf_data(ldns_rr_owner(rr)), ownerlen);
	dname_tolower(owner);
	for(i = 0; i < ldns_rr_rd_count(rr); i++) {
		ldns_rdf *f = ldns_rr_rdf(rr, i);
		if(!f)
			continue;
		if(rdlen + ldns_rdf_size(f) > sizeof(rdata)) {
			lz_err(err, errlen, "bad local-data '%s': RDATA too "
				"long", rrstr);
			ldns_rr_free(rr);
			return -1;
		}
		memcpy(rdata + rdlen, ldns_rdf_data(f), ldns_rdf_size(f));
		rdlen += ldns_rdf_size(f);
	}
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_OPT) {
		lz_err(err, errlen, "bad local-data '%s': OPT", rrstr);
		ldns_rr_free(rr);
		return -1;
	}
	if(lz_prr_add(lz, owner, ownerlen, (uint16_t)ldns_rr_get_type(rr),
		(uint16_t)ldns_rr_get_class(rr), ldns_rr_ttl(rr), rdata,
		rdlen) != 0) {
		lz_err(err, errlen, "out of memory");
		ldns_rr_free(rr);
		return -1;
	}
	ldns_rr_free(rr);
	return 0;
}

int
local_zones_add_data_ptr(struct local_zones *lz, const char *str, char *err,
	size_t errlen)
{
	char ip[128], tok2[300], tok3[300], rev[160], rr[800];
	unsigned char a[16];
	int n, i;
	size_t p = 0;
	const char *ttl = "3600", *name;
	if(!str) {
		lz_err(err, errlen, "no local-data-ptr");
		return -1;
	}
	tok2[0] = tok3[0] = 0;
	n = sscanf(str, "%127s %299s %299s", ip, tok2, tok3);
	if(n == 2) {
		name = tok2;
	} else if(n == 3) {
		for(i = 0; tok2[i]; i++)
			if(!isdigit((unsigned char)tok2[i]))
				break;
		if(tok2[i] || !tok2[0]) {
			lz_err(err, errlen, "bad local-data-ptr '%s': TTL",
				str);
			return -1;
		}
		ttl = tok2;
		name = tok3;
	} else {
		lz_err(err, errlen, "bad local-data-ptr '%s': want "
			"\"address name\"", str);
		return -1;
	}
	if(inet_pton(AF_INET, ip, a) == 1) {
		snprintf(rev, sizeof(rev), "%u.%u.%u.%u.in-addr.arpa.",
			a[3], a[2], a[1], a[0]);
	} else if(inet_pton(AF_INET6, ip, a) == 1) {
		static const char hex[] = "0123456789abcdef";
		for(i = 15; i >= 0; i--) {
			rev[p++] = hex[a[i] & 0xf];
			rev[p++] = '.';
			rev[p++] = hex[a[i] >> 4];
			rev[p++] = '.';
		}
		snprintf(rev + p, sizeof(rev) - p, "ip6.arpa.");
	} else {
		lz_err(err, errlen, "bad local-data-ptr '%s': address", str);
		return -1;
	}
	snprintf(rr, sizeof(rr), "%s %s IN PTR %s", rev, ttl, name);
	return local_zones_add_data(lz, rr, err, errlen);
}

int
local_zones_set_chaos(struct local_zones *lz, int hide_identity,
	int hide_version, const char *identity, const char *version)
{
	if(!lz || lz->finished)
		return -1;
	lz->hide_identity = hide_identity;
	lz->hide_version = hide_version;
	if(identity && identity[0])
		snprintf(lz->identity, sizeof(lz->identity), "%s", identity);
	if(version && version[0])
		snprintf(lz->version, sizeof(lz->version), "%s", version);
	return 0;
}

void
local_zones_set_edns(struct local_zones *lz, uint16_t edns_size,
	uint16_t max_udp)
{
	if(!lz)
		return;
	lz->edns_size = edns_size < DNS_MIN_UDP ? DNS_MIN_UDP : edns_size;
	lz->max_udp = max_udp < DNS_MIN_UDP ? DNS_MIN_UDP : max_udp;
}

void
local_zones_set_unblock_lan(struct local_zones *lz, int unblock)
{
	if(lz)
		lz->unblock_lan = unblock;
}

void
local_zones_set_log_actions(struct local_zones *lz, int on)
{
	if(lz)
		lz->log_actions = on;
}

void
local_zones_set_ede(struct local_zones *lz, int on)
{
	if(lz)
		lz->no_ede = !on;
}

/** is the default zone of that name switched off or taken? */
static int
lz_default_taken(struct local_zones *lz, const char *name)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t len = lz_parse_name(name, nm);
	const struct lz_entry *e;
	if(!len)
		return 1;
	e = lz_table_find(lz, DNS_CLASS_IN, nm, len,
		lz_name_hash(nm, DNS_CLASS_IN));
	return e && (e->zone || e->nodefault);
}

/**
 * Add one default zone with its NS and SOA (and extra RRs) unless a
 * local-zone line names it. @return 0 or -1.
 */
static int
lz_add_default(struct local_zones *lz, const char *name,
	enum local_zone_type type, const char *const *extra, char *err,
	size_t errlen)
{
	uint8_t nm[DNS_MAX_NAME];
	size_t len;
	char rr[512];
	if(lz_default_taken(lz, name))
		return 0;
	len = lz_parse_name(name, nm);
	if(!len || !lz_zone_create(lz, nm, len, DNS_CLASS_IN, type, 0)) {
		lz_err(err, errlen, "out of memory");
		return -1;
	}
	snprintf(rr, sizeof(rr), "%s " LZ_DEFAULT_TTL " IN NS localhost.",
		name);
	if(local_zones_add_data(lz, rr, err, errlen) != 0)
		return -1;
	snprintf(rr, sizeof(rr), "%s " LZ_DEFAULT_TTL " IN SOA localhost. "
		"nobody.invalid. 1 3600 1200 604800 10800", name);
	if(local_zones_add_data(lz, rr, err, errlen) != 0)
		return -1;
	for(; extra && *extra; extra++)
		if(local_zones_add_data(lz, *extra, err, errlen) != 0)
			return -1;
	return 0;
}

/** add Unbound's default zones. @return 0 or -1 */
static int
lz_add_defaults(struct local_zones *lz, char *err, size_t errlen)
{
	static const char *const localhost_rr[] = {
		"localhost. " LZ_DEFAULT_TTL " IN A 127.0.0.1",
		"localhost. " LZ_DEFAULT_TTL " IN AAAA ::1",
		NULL
	};
	static const char *const rev4_rr[] = {
		"1.0.0.127.in-addr.arpa. " LZ_DEFAULT_TTL " IN PTR localhost.",
		NULL
	};
	static const char *const rev6_rr[] = {
		LZ_IP6_LOOPBACK " " LZ_DEFAULT_TTL " IN PTR localhost.",
		NULL
	};
	static const char *const rfc_zones[] = {
		"home.arpa.", "onion.", "test.", "invalid.",
		"resolver.arpa.", "service.arpa.", NULL
	};
	size_t i;
	if(lz_add_default(lz, "localhost.", LOCAL_ZONE_REDIRECT, localhost_rr,
		err, errlen) != 0)
		return -1;
	if(lz_add_default(lz, "127.in-addr.arpa.", LOCAL_ZONE_STATIC,
		rev4_rr, err, errlen) != 0)
		return -1;
	if(lz_add_default(lz, LZ_IP6_LOOPBACK, LOCAL_ZONE_STATIC, rev6_rr,
		err, errlen) != 0)
		return -1;
	for(i = 0; rfc_zones[i]; i++)
		if(lz_add_default(lz, rfc_zones[i], LOCAL_ZONE_STATIC, NULL,
			err, errlen) != 0)
			return -1;
	if(lz->unblock_lan)
		return 0;
	for(i = 0; dns_as112_zones[i]; i++)
		if(lz_add_default(lz, dns_as112_zones[i], LOCAL_ZONE_STATIC,
			NULL, err, errlen) != 0)
			return -1;
	return 0;
}

/** the zone a pending RR goes in (Unbound: lookup by name and type) */
static const struct local_zone *
lz_prr_zone(const struct local_zones *lz, const struct lz_prr *p)
{
	return lz_find_zone(lz, p->owner, p->type, p->rrclass);
}

/**
 * Make the implicit zones: for RRs in a class that no zone covers, copy
 * an IN zone that covers the name into that class, else make one
 * transparent zone at the closest common ancestor of them all (per
 * class). @return 0 or -1.
 */
static int
lz_setup_implicit(struct local_zones *lz)
{
	size_t i;
	uint16_t done[16];
	int ndone = 0;
	for(;;) {
		const uint8_t *nm = NULL;
		int match = 0, d;
		uint16_t cls = 0;
		int have = 0;
		for(i = 0; i < lz->nprrs; i++) {
			struct lz_prr *p = &lz->prrs[i];
			const struct local_zone *z;
			for(d = 0; d < ndone; d++)
				if(done[d] == p->rrclass)
					break;
			if(d < ndone)
				continue;
			if(have && p->rrclass != cls)
				continue;
			if(lz_prr_zone(lz, p))
				continue;
			if(p->rrclass != DNS_CLASS_IN &&
				(z = lz_find_zone(lz, p->owner, p->type,
				DNS_CLASS_IN)) != NULL) {
				struct local_zone *nz = lz_zone_create(lz,
					z->name, z->namelen, p->rrclass,
					z->type, 0);
				if(!nz || lz_mark_ancestors(lz, nz) != 0)
					return -1;
				continue;
			}
			if(!have) {
				have = 1;
				cls = p->rrclass;
				nm = p->owner;
				match = dname_count_labels(nm);
			} else {
				int m = dname_common_labels(nm, p->owner);
				if(m < match)
					match = m;
			}
		}
		if(!have)
			break;
		{
			const uint8_t *top = dname_suffix_labels(nm, match);
			struct local_zone *z;
			char buf[DNS_MAX_NAME_STR];
			(void)dname_to_str(top, buf, sizeof(buf));
			verbose(VERB_ALGO, "implicit transparent local-zone %s "
				"class %u", buf, (unsigned)cls);
			z = lz_zone_create(lz, top, dname_len(top), cls,
				LOCAL_ZONE_TRANSPARENT, 0);
			if(!z || lz_mark_ancestors(lz, z) != 0)
				return -1;
		}
		if(ndone >= (int)(sizeof(done) / sizeof(done[0])))
			return -1;
		done[ndone++] = cls;
	}
	return 0;
}

/** sort order of pending RRs: class, owner, zone, type, order given */
static int
lz_prr_cmp(const void *a, const void *b)
{
	const struct lz_prr *x = a, *y = b;
	int c;
	if(x->rrclass != y->rrclass)
		return x->rrclass < y->rrclass ? -1 : 1;
	if(x->ownerlen != y->ownerlen)
		return x->ownerlen < y->ownerlen ? -1 : 1;
	c = memcmp(x->owner, y->owner, x->ownerlen);
	if(c != 0)
		return c;
	if(x->zone != y->zone)
		return (uintptr_t)x->zone < (uintptr_t)y->zone ? -1 : 1;
	if(x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if(x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/** is the zone type a redirect? */
static int
lz_is_redirect(enum local_zone_type t)
{
	return t == LOCAL_ZONE_REDIRECT || t == LOCAL_ZONE_INFORM_REDIRECT;
}

/**
 * Turn one run of pending RRs (same class, owner, zone) into a node.
 * @return 0 or -1 (err filled).
 */
static int
lz_make_node(struct local_zones *lz, struct lz_prr *run, size_t n,
	char *err, size_t errlen)
{
	struct lz_node *node;
	struct lz_rrset *sets;
	struct lz_entry *e;
	size_t i, j, nsets = 0, s;
	for(i = 0; i < n; i++)
		if(i == 0 || run[i].type != run[i - 1].type)
			nsets++;
	node = region_alloc_zero(lz->region, sizeof(*node));
	sets = region_alloc_zero(lz->region, nsets * sizeof(*sets));
	if(!node || !sets)
		goto nomem;
	node->zone = run[0].zone;
	node->rrsets = sets;
	node->nrrsets = nsets;
	s = 0;
	for(i = 0; i < n; ) {
		struct lz_rr *rrs;
		size_t cnt = 0;
		for(j = i; j < n && run[j].type == run[i].type; j++)
			;
		rrs = region_alloc(lz->region, (j - i) * sizeof(*rrs));
		if(!rrs)
			goto nomem;
		for(; i < j; i++) {
			size_t k;
			for(k = 0; k < cnt; k++)
				if(rrs[k].rdlen == run[i].rdlen &&
					memcmp(rrs[k].rdata, run[i].rdata,
					run[i].rdlen) == 0)
					break;
			if(k < cnt)
				continue; /* duplicate */
			rrs[cnt].ttl = run[i].ttl;
			rrs[cnt].rdlen = run[i].rdlen;
			rrs[cnt].rdata = run[i].rdata;
			cnt++;
		}
		sets[s].type = run[i - 1].type;
		sets[s].count = (uint16_t)(cnt > 0xffff ? 0xffff : cnt);
		sets[s].rrs = rrs;
		s++;
	}
	if(lz_is_redirect(node->zone->type)) {
		const struct lz_rrset *c = lz_node_rrset(node, DNS_TYPE_CNAME,
			0);
		if(c && (nsets > 1 || c->count > 1)) {
			char buf[DNS_MAX_NAME_STR];
			(void)dname_to_str(run[0].owner, buf, sizeof(buf));
			lz_err(err, errlen, "local-data %s CNAME in redirect "
				"zone must not coexist with other local-data",
				buf);
			return -1;
		}
	}
	e = lz_table_get(lz, run[0].rrclass, run[0].owner, run[0].ownerlen);
	if(!e)
		goto nomem;
	node->next = e->node;
	e->node = node;
	if(node->zone->namelen == run[0].ownerlen &&
		memcmp(node->zone->name, run[0].owner, run[0].ownerlen) == 0) {
		struct local_zone *z = e->zone;
		const struct lz_rrset *soa = lz_node_rrset(node, DNS_TYPE_SOA,
			0);
		if(z == node->zone && soa && soa->count > 0) {
			const struct lz_rr *r = &soa->rrs[0];
			z->soa = soa;
			z->soa_neg_ttl = r->ttl;
			if(r->rdlen >= 20) {
				uint32_t min = dns_read_u32(r->rdata +
					r->rdlen - 4);
				if(min < z->soa_neg_ttl)
					z->soa_neg_ttl = min;
			}
		}
	}
	return 0;
nomem:
	lz_err(err, errlen, "out of memory");
	return -1;
}

/** add the empty non-terminals between a node's name and its apex */
static int
lz_add_ents(struct local_zones *lz, const struct lz_prr *p)
{
	const struct local_zone *z = p->zone;
	const uint8_t *nm = p->owner;
	int labs = dname_count_labels(nm);
	while(labs > z->labs) {
		struct lz_entry *e;
		struct lz_node *n;
		nm = dname_strip_label(nm);
		labs--;
		e = lz_table_get(lz, z->rrclass, nm, dname_len(nm));
		if(!e)
			return -1;
		for(n = e->node; n; n = n->next)
			if(n->zone == z)
				break;
		if(n)
			break; /* this one and all above exist */
		n = region_alloc_zero(lz->region, sizeof(*n));
		if(!n)
			return -1;
		n->zone = z;
		n->next = e->node;
		e->node = n;
	}
	return 0;
}

int
local_zones_finish(struct local_zones *lz, char *err, size_t errlen)
{
	size_t i, j;
	if(!lz || lz->finished) {
		lz_err(err, errlen, "local zones already finished");
		return -1;
	}
	if(lz_add_defaults(lz, err, errlen) != 0)
		return -1;
	for(i = 0; i < lz->nzones; i++)
		if(lz_mark_ancestors(lz, lz->zones[i]) != 0)
			goto nomem;
	if(lz_setup_implicit(lz) != 0)
		goto nomem;
	for(i = 0; i < lz->nprrs; i++) {
		struct lz_prr *p = &lz->prrs[i];
		p->zone = lz_prr_zone(lz, p);
		if(!p->zone) {
			char buf[DNS_MAX_NAME_STR];
			(void)dname_to_str(p->owner, buf, sizeof(buf));
			lz_err(err, errlen, "local-data %s: no zone for it "
				"(a DS needs a zone above its name)", buf);
			return -1;
		}
	}
	if(lz->nprrs > 1)
		qsort(lz->prrs, lz->nprrs, sizeof(*lz->prrs), lz_prr_cmp);
	for(i = 0; i < lz->nprrs; i = j) {
		for(j = i + 1; j < lz->nprrs &&
			lz->prrs[j].rrclass == lz->prrs[i].rrclass &&
			lz->prrs[j].zone == lz->prrs[i].zone &&
			lz->prrs[j].ownerlen == lz->prrs[i].ownerlen &&
			memcmp(lz->prrs[j].owner, lz->prrs[i].owner,
			lz->prrs[i].ownerlen) == 0; j++)
			;
		if(lz_make_node(lz, &lz->prrs[i], j - i, err, errlen) != 0)
			return -1;
	}
	for(i = 0; i < lz->nprrs; i++)
		if(lz_add_ents(lz, &lz->prrs[i]) != 0)
			goto nomem;
	free(lz->prrs);
	lz->prrs = NULL;
	lz->nprrs = lz->capprrs = 0;
	lz->finished = 1;
	return 0;
nomem:
	lz_err(err, errlen, "out of memory");
	return -1;
}

int
local_zones_apply_cfg(struct local_zones *lz, const struct config_file *cfg,
	char *err, size_t errlen)
{
	const struct config_localzone *z;
	const struct config_strlist *s;
	const struct config_policyline *l;
	if(!lz || !cfg) {
		lz_err(err, errlen, "no config");
		return -1;
	}
	for(z = cfg->local_zones; z; z = z->next)
		if(local_zones_add_zone(lz, z->name, z->type, err, errlen)
			!= 0)
			return -1;
	for(s = cfg->local_data; s; s = s->next)
		if(local_zones_add_data(lz, s->str, err, errlen) != 0)
			return -1;
	for(s = cfg->local_data_ptr; s; s = s->next)
		if(local_zones_add_data_ptr(lz, s->str, err, errlen) != 0)
			return -1;
	for(l = cfg->policy_lines; l; l = l->next) {
		uint64_t tags;
		char e[256];
		if(l->clause == CLAUSE_SERVER &&
			strcmp(l->key, "local-zone-override") == 0) {
			if(l->n != 3) {
				lz_err(err, errlen, "%s:%d: local-zone-override: "
					"expected <zone> <netblock> <type>",
					l->file, l->line);
				return -1;
			}
			if(local_zones_set_zone_override(lz, l->v[0], l->v[1],
				l->v[2], e, sizeof(e)) != 0) {
				lz_err(err, errlen, "%s:%d: local-zone-override: "
					"%s", l->file, l->line, e);
				return -1;
			}
			continue;
		}
		if(l->clause != CLAUSE_SERVER ||
			strcmp(l->key, "local-zone-tag") != 0)
			continue;
		if(l->n != 2) {
			lz_err(err, errlen, "%s:%d: local-zone-tag: expected "
				"<zone> \"<tags>\"", l->file, l->line);
			return -1;
		}
		if(config_tag_mask(cfg, l->v[1], &tags, e, sizeof(e)) != 0 ||
			local_zones_set_zone_tags(lz, l->v[0], tags, e,
			sizeof(e)) != 0) {
			lz_err(err, errlen, "%s:%d: local-zone-tag: %s",
				l->file, l->line, e);
			return -1;
		}
	}
	if(local_zones_set_chaos(lz, cfg->hide_identity, cfg->hide_version,
		cfg->identity, cfg->version) != 0) {
		lz_err(err, errlen, "out of memory");
		return -1;
	}
	local_zones_set_edns(lz, (uint16_t)(cfg->edns_buffer_size > 0 &&
		cfg->edns_buffer_size < 65536 ? cfg->edns_buffer_size :
		LZ_DEFAULT_EDNS), (uint16_t)(cfg->max_udp_size > 0 &&
		cfg->max_udp_size < 65536 ? cfg->max_udp_size :
		LZ_DEFAULT_EDNS));
	local_zones_set_unblock_lan(lz, cfg->unblock_lan_zones);
	local_zones_set_log_actions(lz, cfg->log_local_actions);
	local_zones_set_ede(lz, cfg->ede);
	return local_zones_finish(lz, err, errlen);
}

/* ---------------------------------------------------------------- */
/* answering                                                          */

/**
 * Start an answer: header and the client's question; space for an OPT is
 * kept when the query had one. @return 0 or -1.
 */
static int
lz_begin(const struct local_zones *lz, struct dns_builder *b,
	const uint8_t *pkt, const struct fast_query *fq, int tcp,
	uint8_t *out, size_t outmax, uint16_t flags)
{
	dns_build_init(b, out, outmax, fast_query_answer_limit(fq, tcp,
		lz->max_udp, outmax));
	flags |= (uint16_t)(DNS_FLAG_QR | (fq->flags & (DNS_FLAG_RD |
		DNS_FLAG_CD)));
	if(dns_build_header(b, fq->id, flags) != 0)
		return -1;
	if(dns_build_question_raw(b, pkt, fq->qname_off, fq->question_end)
		!= 0)
		return -1;
	if(fq->edns.present)
		dns_build_reserve(b, dns_opt_size(NULL, 0));
	return 0;
}

/**
 * End an answer: OPT when the query had one, with an EDE when ede >= 0.
 * @return length or 0
 */
static size_t
lz_end_ede(const struct local_zones *lz, struct dns_builder *b,
	const struct fast_query *fq, int rcode, int ede, const char *text)
{
	if(fq->edns.present) {
		struct edns_opt_out o;
		uint8_t buf[64];
		if(ede >= 0 && !lz->no_ede) {
			edns_opt_ede(&o, buf, sizeof(buf), (uint16_t)ede, text);
			if(dns_build_opt(b, lz->edns_size, rcode,
				fq->edns.do_bit, &o, 1) == 0)
				return dns_build_finish(b);
		}
		if(dns_build_opt(b, lz->edns_size, rcode, fq->edns.do_bit,
			NULL, 0) != 0)
			return 0;
	}
	return dns_build_finish(b);
}

/** end an answer: OPT when the query had one. @return length or 0 */
static size_t
lz_end(const struct local_zones *lz, struct dns_builder *b,
	const struct fast_query *fq, int rcode)
{
	return lz_end_ede(lz, b, fq, rcode, -1, NULL);
}

/**
 * Put an RRset in a section, all or nothing (TC when it does not fit in
 * the answer or authority section).
 * @param ttl: -1 to use each RR's TTL, else this TTL.
 */
static void
lz_put_rrset(struct dns_builder *b, int section, const uint8_t *owner,
	uint16_t rrclass, const struct lz_rrset *s, int64_t ttl)
{
	struct dns_build_mark m;
	size_t i;
	if(dns_build_is_truncated(b))
		return;
	dns_build_mark(b, &m);
	for(i = 0; i < s->count; i++) {
		const struct lz_rr *r = &s->rrs[i];
		if(dns_build_rr(b, section, owner, s->type, rrclass,
			ttl < 0 ? r->ttl : (uint32_t)ttl, r->rdata,
			r->rdlen) != 0) {
			dns_build_rollback(b, &m);
			if(section != DNS_SEC_ADDITIONAL)
				dns_build_truncate(b);
			return;
		}
	}
}

/** answer with one RRset in the answer section */
static enum local_zone_answer
lz_answer_rrset(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, const struct lz_rrset *s,
	uint16_t flags, uint8_t *out, size_t outmax, size_t *outlen)
{
	struct dns_builder b;
	if(lz_begin(lz, &b, pkt, fq, tcp, out, outmax, flags) != 0)
		return LOCAL_ZONE_NOT_LOCAL;
	lz_put_rrset(&b, DNS_SEC_ANSWER, fq->qinfo.qname, fq->qinfo.qclass,
		s, -1);
	*outlen = lz_end(lz, &b, fq, DNS_RCODE_NOERROR);
	return *outlen ? LOCAL_ZONE_ANSWERED : LOCAL_ZONE_NOT_LOCAL;
}

/** a negative answer (NODATA, NXDOMAIN, REFUSED), with the SOA if given */
static enum local_zone_answer
lz_answer_neg(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, const struct local_zone *z,
	int rcode, uint8_t *out, size_t outmax, size_t *outlen)
{
	struct dns_builder b;
	if(lz_begin(lz, &b, pkt, fq, tcp, out, outmax,
		(uint16_t)(DNS_FLAG_AA | DNS_FLAG_RA | rcode)) != 0)
		return LOCAL_ZONE_NOT_LOCAL;
	if(z && z->soa)
		lz_put_rrset(&b, DNS_SEC_AUTHORITY, z->name, z->rrclass,
			z->soa, (int64_t)z->soa_neg_ttl);
	*outlen = lz_end(lz, &b, fq, rcode);
	return *outlen ? LOCAL_ZONE_ANSWERED : LOCAL_ZONE_NOT_LOCAL;
}

/** log a query to an inform zone (or, with log-local-actions, to any
 * zone), as Unbound's lz_inform_print lines */
static void
lz_inform(const struct local_zone *z, enum local_zone_type t,
	const struct fast_query *fq, const struct netaddr *client)
{
	char zn[DNS_MAX_NAME_STR], qn[DNS_MAX_NAME_STR], ip[NETADDR_STRLEN];
	char tb[16], cb[16];
	const char *cs = dns_class_str(fq->qinfo.qclass);
	if(!client)
		return;
	(void)dname_to_str(z->name, zn, sizeof(zn));
	(void)dname_to_str(fq->qinfo.qname, qn, sizeof(qn));
	if(!cs) {
		snprintf(cb, sizeof(cb), "CLASS%u", (unsigned)fq->qinfo.qclass);
		cs = cb;
	}
	log_info("%s %s %s %s %s %s", zn, local_zone_type_str(t),
		netaddr_str(client, -1, ip, sizeof(ip)), qn,
		dns_type_str(fq->qinfo.qtype, tb, sizeof(tb)), cs);
}

/** compare a lower-case wire name with a literal */
static int
lz_name_is(const struct fast_query *fq, const char *lit, size_t litlen)
{
	return fq->qinfo.qname_len == litlen &&
		memcmp(fq->qinfo.qname, lit, litlen) == 0;
}

/** CHAOS identity answers. @return 1 when answered */
static int
lz_chaos(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	const char *str;
	uint8_t rdata[1 + LZ_CHAOS_MAX];
	size_t n;
	struct dns_builder b;
	if(fq->qinfo.qtype != DNS_TYPE_TXT && fq->qinfo.qtype != DNS_TYPE_ANY)
		return 0;
	if(lz_name_is(fq, "\002id\006server", 11) ||
		lz_name_is(fq, "\010hostname\004bind", 15)) {
		if(lz->hide_identity)
			return 0;
		str = lz->identity;
	} else if(lz_name_is(fq, "\007version\006server", 16) ||
		lz_name_is(fq, "\007version\004bind", 14)) {
		if(lz->hide_version)
			return 0;
		str = lz->version;
	} else
		return 0;
	n = strlen(str);
	if(n > LZ_CHAOS_MAX)
		n = LZ_CHAOS_MAX;
	rdata[0] = (uint8_t)n;
	memcpy(rdata + 1, str, n);
	if(lz_begin(lz, &b, pkt, fq, tcp, out, outmax, DNS_FLAG_RA) != 0)
		return 0;
	if(dns_build_rr(&b, DNS_SEC_ANSWER, fq->qinfo.qname, DNS_TYPE_TXT,
		DNS_CLASS_CH, 0, rdata, n + 1) != 0)
		dns_build_truncate(&b);
	*outlen = lz_end(lz, &b, fq, DNS_RCODE_NOERROR);
	return *outlen != 0;
}

/**
 * The CNAME at a redirect apex (Unbound's local alias): answered with
 * the question name as owner. A target that starts with the "*" label is
 * synthesised as the question name followed by the rest of the target;
 * when that is too long the answer is YXDOMAIN (with an EDE), as Unbound
 * does. @return 1 when answered
 */
static int
lz_alias_answer(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, const struct lz_rrset *s,
	uint8_t *out, size_t outmax, size_t *outlen, struct local_alias *alias)
{
	const struct query_info *qi = &fq->qinfo;
	uint8_t syn[DNS_MAX_NAME + 2];
	const uint8_t *tgt = s->rrs[0].rdata;
	size_t tl = dname_valid(tgt, s->rrs[0].rdlen);
	struct lz_rr rr;
	struct lz_rrset one;
	if(tl >= 3 && tgt[0] == 1 && tgt[1] == '*') {
		/* qname without its root label, then the target after "*" */
		size_t nl = qi->qname_len - 1 + tl - 2;
		if(nl > DNS_MAX_NAME) {
			struct dns_builder b;
			if(lz_begin(lz, &b, pkt, fq, tcp, out, outmax,
				(uint16_t)(DNS_FLAG_AA | DNS_FLAG_RA |
				DNS_RCODE_YXDOMAIN)) != 0)
				return 0;
			*outlen = lz_end_ede(lz, &b, fq, DNS_RCODE_YXDOMAIN,
				DNS_EDE_OTHER, "DNAME expansion became too large");
			return *outlen != 0;
		}
		memcpy(syn, qi->qname, qi->qname_len - 1);
		memcpy(syn + qi->qname_len - 1, tgt + 2, tl - 2);
		rr.ttl = s->rrs[0].ttl;
		rr.rdlen = (uint16_t)nl;
		rr.rdata = syn;
		one.type = DNS_TYPE_CNAME;
		one.count = 1;
		one.rrs = &rr;
		s = &one;
		tgt = syn;
		tl = nl;
	}
	if(alias && tl > 0 && tl <= sizeof(alias->target)) {
		alias->present = 1;
		memcpy(alias->target, tgt, tl);
		alias->target_len = tl;
		alias->ttl = s->rrs[0].ttl;
	}
	return lz_answer_rrset(lz, pkt, fq, tcp, s, DNS_FLAG_AA | DNS_FLAG_RA,
		out, outmax, outlen) == LOCAL_ZONE_ANSWERED;
}

/** answer from the local data of zone z. @return 1 when answered */
static int
lz_data_answer(const struct local_zones *lz, const struct local_zone *z,
	enum local_zone_type t, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias, const struct lz_node **np)
{
	const struct lz_node *node;
	const struct lz_rrset *s;
	const struct query_info *qi = &fq->qinfo;
	if(lz_is_redirect(t))
		node = lz_find_node(lz, z, z->name, z->namelen);
	else
		node = lz_find_node(lz, z, qi->qname, qi->qname_len);
	*np = node;
	if(!node)
		return 0;
	s = lz_node_rrset(node, qi->qtype, 1);
	if(!s)
		return 0;
	if(lz_is_redirect(t) && qi->qtype != DNS_TYPE_CNAME &&
		s->type == DNS_TYPE_CNAME && s->count > 0)
		return lz_alias_answer(lz, pkt, fq, tcp, s, out, outmax,
			outlen, alias);
	return lz_answer_rrset(lz, pkt, fq, tcp, s, DNS_FLAG_AA | DNS_FLAG_RA,
		out, outmax, outlen) == LOCAL_ZONE_ANSWERED;
}

/** 0.0.0.0 or :: for always_null */
static enum local_zone_answer
lz_null_answer(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	static const uint8_t zero[16];
	struct lz_rr rr;
	struct lz_rrset s;
	rr.ttl = 3600;
	rr.rdlen = fq->qinfo.qtype == DNS_TYPE_A ? 4 : 16;
	rr.rdata = zero;
	s.type = fq->qinfo.qtype;
	s.count = 1;
	s.rrs = &rr;
	return lz_answer_rrset(lz, pkt, fq, tcp, &s, DNS_FLAG_AA | DNS_FLAG_RA,
		out, outmax, outlen);
}

/**
 * The tag data of a redirect for a tagged client (access-control-tag-data,
 * interface-tag-data): the records of the question's type (or a CNAME)
 * answer with the question name as owner. @return 1 when answered
 */
static int
lz_tag_data_answer(const struct local_zones *lz, const struct local_zones *d,
	const uint8_t *pkt, const struct fast_query *fq, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen, struct local_alias *alias)
{
	const struct lz_node *node;
	const struct lz_rrset *s;
	if(!d || !d->finished || d->nroots == 0)
		return 0;
	node = lz_find_node(d, d->roots[0], d->roots[0]->name,
		d->roots[0]->namelen);
	if(!node || !(s = lz_node_rrset(node, fq->qinfo.qtype, 1)))
		return 0;
	if(fq->qinfo.qtype != DNS_TYPE_CNAME && s->type == DNS_TYPE_CNAME &&
		s->count > 0)
		return lz_alias_answer(lz, pkt, fq, tcp, s, out, outmax,
			outlen, alias);
	return lz_answer_rrset(lz, pkt, fq, tcp, s, DNS_FLAG_AA | DNS_FLAG_RA,
		out, outmax, outlen) == LOCAL_ZONE_ANSWERED;
}

/** the RRset of a data zone's root apex for a type (else its CNAME) */
static const struct lz_rrset *
lz_apex_rrset(const struct local_zones *d, uint16_t type)
{
	const struct lz_node *node;
	if(!d || !d->finished || d->nroots == 0)
		return NULL;
	node = lz_find_node(d, d->roots[0], d->roots[0]->name,
		d->roots[0]->namelen);
	return node ? lz_node_rrset(node, type, 1) : NULL;
}

int
local_zones_has_apex_data(const struct local_zones *d, uint16_t type)
{
	return lz_apex_rrset(d, type) != NULL;
}

int
local_zones_put_apex_data(const struct local_zones *d, struct dns_builder *b,
	const uint8_t *owner, uint16_t type)
{
	const struct lz_rrset *s = lz_apex_rrset(d, type);
	if(!s)
		return 0;
	lz_put_rrset(b, DNS_SEC_ANSWER, owner, DNS_CLASS_IN, s, -1);
	return 1;
}

/** @return 1 when a query can be answered from local zones at all */
static inline int
lz_answer_ok(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq, const uint8_t *out,
	const size_t *outlen, size_t outmax)
{
	if(!lz || !lz->finished || !pkt || !fq || !out || !outlen ||
		pktlen < DNS_HDR_SIZE || outmax < DNS_MIN_UDP)
		return 0;
	if(fq->qdcount != 1 || fq->question_end == 0 ||
		fq->question_end > pktlen || fq->opcode != DNS_OPCODE_QUERY)
		return 0;
	if(fq->qinfo.qname_len == 0 || fq->qinfo.qname_len > DNS_MAX_NAME)
		return 0;
	return 1;
}

/** the answer of zone z, acting as type t, to the question */
static enum local_zone_answer
lz_answer_zone(const struct local_zones *lz, const struct local_zone *z,
	enum local_zone_type t, const uint8_t *pkt,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen, struct local_alias *alias)
{
	const struct lz_node *node = NULL;
	const struct query_info *qi = &fq->qinfo;
	if(z->novr && client)
		(void)lz_override_type(z, client, &t);
	if(lz->log_actions || t == LOCAL_ZONE_INFORM ||
		t == LOCAL_ZONE_INFORM_DENY || t == LOCAL_ZONE_INFORM_REDIRECT)
		lz_inform(z, t, fq, client);
	switch(t) {
	case LOCAL_ZONE_ALWAYS_TRANSPARENT:
	case LOCAL_ZONE_ALWAYS_REFUSE:
	case LOCAL_ZONE_ALWAYS_NXDOMAIN:
	case LOCAL_ZONE_ALWAYS_NODATA:
	case LOCAL_ZONE_ALWAYS_DENY:
	case LOCAL_ZONE_ALWAYS_NULL:
	case LOCAL_ZONE_BLOCK_A:
	case LOCAL_ZONE_BLOCK_AAAA:
		break;
	default:
		if(lz_data_answer(lz, z, t, pkt, fq, tcp, out, outmax, outlen,
			alias, &node))
			return LOCAL_ZONE_ANSWERED;
		break;
	}
	switch(t) {
	case LOCAL_ZONE_DENY:
	case LOCAL_ZONE_INFORM_DENY:
	case LOCAL_ZONE_ALWAYS_DENY:
		return LOCAL_ZONE_DROP;
	case LOCAL_ZONE_REFUSE:
	case LOCAL_ZONE_ALWAYS_REFUSE:
		return lz_answer_neg(lz, pkt, fq, tcp, NULL, DNS_RCODE_REFUSED,
			out, outmax, outlen);
	case LOCAL_ZONE_STATIC:
	case LOCAL_ZONE_REDIRECT:
	case LOCAL_ZONE_INFORM_REDIRECT:
	case LOCAL_ZONE_ALWAYS_NXDOMAIN:
	case LOCAL_ZONE_ALWAYS_NODATA:
		return lz_answer_neg(lz, pkt, fq, tcp, z, (node ||
			lz_is_redirect(t) || t == LOCAL_ZONE_ALWAYS_NODATA) ?
			DNS_RCODE_NOERROR : DNS_RCODE_NXDOMAIN, out, outmax,
			outlen);
	case LOCAL_ZONE_ALWAYS_NULL:
		if(qi->qtype == DNS_TYPE_A || qi->qtype == DNS_TYPE_AAAA)
			return lz_null_answer(lz, pkt, fq, tcp, out, outmax,
				outlen);
		return lz_answer_neg(lz, pkt, fq, tcp, NULL,
			DNS_RCODE_NOERROR, out, outmax, outlen);
	case LOCAL_ZONE_BLOCK_A:
	case LOCAL_ZONE_BLOCK_AAAA:
	case LOCAL_ZONE_BLOCK_A_WDATA:
	case LOCAL_ZONE_BLOCK_AAAA_WDATA:
		if(qi->qtype == ((t == LOCAL_ZONE_BLOCK_A ||
			t == LOCAL_ZONE_BLOCK_A_WDATA) ? DNS_TYPE_A :
			DNS_TYPE_AAAA))
			return lz_answer_neg(lz, pkt, fq, tcp, NULL,
				DNS_RCODE_NOERROR, out, outmax, outlen);
		return LOCAL_ZONE_NOT_LOCAL;
	case LOCAL_ZONE_TRANSPARENT:
	case LOCAL_ZONE_INFORM:
	case LOCAL_ZONE_NOVIEW:
		if(node && node->nrrsets > 0)
			return lz_answer_neg(lz, pkt, fq, tcp, z,
				DNS_RCODE_NOERROR, out, outmax, outlen);
		return LOCAL_ZONE_NOT_LOCAL;
	case LOCAL_ZONE_TYPETRANSPARENT:
	case LOCAL_ZONE_ALWAYS_TRANSPARENT:
	default:
		return LOCAL_ZONE_NOT_LOCAL;
	}
}

/** the zone lookup and answer when some zone has tags (ct NULL: a client
 * without tags) */
static enum local_zone_answer
lz_answer_tagged(const struct local_zones *lz, const uint8_t *pkt,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen, struct local_alias *alias,
	const struct local_tags *ct)
{
	const struct query_info *qi = &fq->qinfo;
	const struct local_zone *z = lz_find_zone_tags(lz, qi->qname,
		qi->qtype, qi->qclass, ct ? ct->tags : 0);
	enum local_zone_type t;
	if(!z)
		return LOCAL_ZONE_NOT_LOCAL;
	t = z->type;
	if(z->novr && client && lz_override_type(z, client, &t))
		/* local-zone-override wins over the tags' actions */
		return lz_answer_zone(lz, z, t, pkt, fq, client, tcp, out,
			outmax, outlen, alias);
	if(z->tags && ct) {
		/* the client's lowest tag the zone has: its action (when
		 * set) replaces the zone's type, its data a redirect's */
		uint64_t m = z->tags & ct->tags;
		int tag = 0;
		while(!(m & 1)) {
			m >>= 1;
			tag++;
		}
		if(ct->action && ct->action[tag] != LOCAL_ZONE_UNSET)
			t = (enum local_zone_type)ct->action[tag];
		if(lz_is_redirect(t) && ct->data && lz_tag_data_answer(lz,
			ct->data[tag], pkt, fq, tcp, out, outmax, outlen,
			alias)) {
			if(t == LOCAL_ZONE_INFORM_REDIRECT)
				lz_inform(z, t, fq, client);
			return LOCAL_ZONE_ANSWERED;
		}
	}
	return lz_answer_zone(lz, z, t, pkt, fq, client, tcp, out, outmax,
		outlen, alias);
}

/** local_zones_answer, inlined into the untagged front end without a
 * view (the cached-answer path: one call level and its argument list
 * fewer per query) */
LZ_INLINE enum local_zone_answer
lz_zones_answer(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias)
{
	const struct local_zone *z;
	const struct query_info *qi;
	if(alias)
		alias->present = 0;
	if(!lz_answer_ok(lz, pkt, pktlen, fq, out, outlen, outmax))
		return LOCAL_ZONE_NOT_LOCAL;
	qi = &fq->qinfo;
	if(qi->qclass == DNS_CLASS_CH &&
		lz_chaos(lz, pkt, fq, tcp, out, outmax, outlen))
		return LOCAL_ZONE_ANSWERED;
	if(lz->ntagged)
		/* a client without tags does not see the tagged zones */
		return lz_answer_tagged(lz, pkt, fq, client, tcp, out, outmax,
			outlen, alias, NULL);
	z = lz_find_zone(lz, qi->qname, qi->qtype, qi->qclass);
	if(!z)
		return LOCAL_ZONE_NOT_LOCAL;
	return lz_answer_zone(lz, z, z->type, pkt, fq, client, tcp, out,
		outmax, outlen, alias);
}

enum local_zone_answer
local_zones_answer(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias)
{
	return lz_zones_answer(lz, pkt, pktlen, fq, client, tcp, out, outmax,
		outlen, alias);
}

enum local_zone_answer
local_zones_answer_tags(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_alias *alias, const struct local_tags *ct)
{
	if(alias)
		alias->present = 0;
	if(!lz_answer_ok(lz, pkt, pktlen, fq, out, outlen, outmax))
		return LOCAL_ZONE_NOT_LOCAL;
	if(fq->qinfo.qclass == DNS_CLASS_CH &&
		lz_chaos(lz, pkt, fq, tcp, out, outmax, outlen))
		return LOCAL_ZONE_ANSWERED;
	return lz_answer_tagged(lz, pkt, fq, client, tcp, out, outmax, outlen,
		alias, ct);
}

/** an error reply through the dns builder. @return ANSWERED or DROP */
static enum local_front_result
lz_front_error(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq, int rcode, int ra,
	int ede, uint8_t *out, size_t outmax, size_t *outlen)
{
	int n = dns_build_error_reply(pkt, pktlen, fq, rcode, ra,
		lz && lz->no_ede ? -1 : ede, NULL,
		lz ? lz->edns_size : LZ_DEFAULT_EDNS, out, outmax);
	if(n <= 0)
		return LOCAL_FRONT_DROP;
	*outlen = (size_t)n;
	return LOCAL_FRONT_ANSWERED;
}

/** the access-control refusal (acl_refused_reply(): Unbound's form) */
static enum local_front_result
lz_front_refused(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq, uint8_t *out,
	size_t outmax, size_t *outlen)
{
	int n = acl_refused_reply(pkt, pktlen, fq, !(lz && lz->no_ede),
		lz ? lz->edns_size : LZ_DEFAULT_EDNS, out, outmax);
	if(n <= 0)
		return LOCAL_FRONT_DROP;
	*outlen = (size_t)n;
	return LOCAL_FRONT_ANSWERED;
}

/**
 * The access-control rules before the local zones, shared by the untagged
 * and the tagged front end: a malformed call or ACL_DENY drops, ACL_REFUSE
 * is REFUSED (EDE 18).
 * @return LOCAL_FRONT_CONTINUE when the local zones are to be asked.
 */
LZ_INLINE enum local_front_result
lz_front_gate(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq,
	enum config_acl_action action, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	if(!pkt || !fq || pktlen < DNS_HDR_SIZE)
		return LOCAL_FRONT_DROP;
	if(action == ACL_DENY)
		return LOCAL_FRONT_DROP;
	if(action == ACL_REFUSE)
		return lz_front_refused(lz, pkt, pktlen, fq, out, outmax,
			outlen);
	return LOCAL_FRONT_CONTINUE;
}

/**
 * The rules after the local zones gave r, shared by the untagged and the
 * tagged front end (one copy, so that a rule such as norec_ok cannot be
 * added to one and missed in the other): the zones' answer or drop, the
 * *_non_local actions, the RD rule (allow_setrd, allow_snoop, norec_ok)
 * and the class.
 */
LZ_INLINE enum local_front_result
lz_front_rules(const struct local_zones *lz, const uint8_t *pkt,
	size_t pktlen, const struct fast_query *fq,
	enum config_acl_action action, enum local_zone_answer r, uint8_t *out,
	size_t outmax, size_t *outlen, struct local_front_info *info,
	int norec_ok)
{
	if(r == LOCAL_ZONE_ANSWERED)
		return LOCAL_FRONT_ANSWERED;
	if(r == LOCAL_ZONE_DROP)
		return LOCAL_FRONT_DROP;
	if(action == ACL_DENY_NON_LOCAL)
		return LOCAL_FRONT_DROP;
	if(action == ACL_REFUSE_NON_LOCAL)
		return lz_front_refused(lz, pkt, pktlen, fq, out, outmax,
			outlen);
	if(!(fq->flags & DNS_FLAG_RD)) {
		if(action == ACL_ALLOW_SETRD)
			info->set_rd = 1;
		else if(action != ACL_ALLOW_SNOOP && !norec_ok)
			return lz_front_error(lz, pkt, pktlen, fq,
				DNS_RCODE_REFUSED, 1,
				DNS_EDE_NOT_AUTHORITATIVE, out, outmax,
				outlen);
	}
	if(fq->qinfo.qclass != DNS_CLASS_IN &&
		fq->qinfo.qclass != DNS_CLASS_ANY)
		return lz_front_error(lz, pkt, pktlen, fq, DNS_RCODE_REFUSED, 1,
			-1, out, outmax, outlen);
	return LOCAL_FRONT_CONTINUE;
}

static enum local_front_result lz_front_answer(const struct acl_list *acl,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, int norec_ok);

enum local_front_result
local_front_answer_norec(const struct acl_list *acl, const struct local_zones *lz,
	const uint8_t *pkt, size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_front_info *info, int norec_ok)
{
	return lz_front_answer(acl, NULL, 0, lz, pkt, pktlen, fq, client, tcp,
		out, outmax, outlen, info, norec_ok);
}

/** the local zones of a view, then (view-first, or a noview zone) the
 * global ones */
LZ_INLINE enum local_zone_answer
lz_answer_view(const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen, struct local_alias *alias)
{
	enum local_zone_answer r;
	if(!vlz)
		return lz_zones_answer(lz, pkt, pktlen, fq, client, tcp,
			out, outmax, outlen, alias);
	r = local_zones_answer(vlz, pkt, pktlen, fq, client, tcp, out, outmax,
		outlen, alias);
	if(r != LOCAL_ZONE_NOT_LOCAL)
		return r;
	if(view_first || local_zones_lookup(vlz, fq->qinfo.qname,
		fq->qinfo.qtype, fq->qinfo.qclass, NULL) == LOCAL_ZONE_NOVIEW)
		return local_zones_answer(lz, pkt, pktlen, fq, client, tcp,
			out, outmax, outlen, alias);
	return LOCAL_ZONE_NOT_LOCAL;
}

/** local_front_answer_view, and with norec_ok a query without RD goes on
 * (local_front_answer_norec); inlined into each, so that the cached-answer
 * path (no view) keeps no test and no call for the view */
LZ_INLINE enum local_front_result
lz_front_answer(const struct acl_list *acl,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, int norec_ok)
{
	struct local_front_info tmp;
	enum config_acl_action action;
	enum local_zone_answer r;
	enum local_front_result fr;
	if(!info)
		info = &tmp;
	info->set_rd = 0;
	info->alias.present = 0;
	action = acl_check(acl, client);
	info->action = action;
	if((fr = lz_front_gate(lz, pkt, pktlen, fq, action, out, outmax,
		outlen)) != LOCAL_FRONT_CONTINUE)
		return fr;
	r = lz_answer_view(vlz, view_first, lz, pkt, pktlen, fq, client, tcp,
		out, outmax, outlen, &info->alias);
	return lz_front_rules(lz, pkt, pktlen, fq, action, r, out, outmax,
		outlen, info, norec_ok);
}

/**
 * local_front_answer_tags: lz_front_answer for a client with tags, its
 * access-control action already known. The same rules in the same order;
 * kept apart so that the untagged front end (the cached-answer path)
 * stays as it was, without the extra arguments. With norec_ok a query
 * without RD goes on (an auth-zone for-downstream answers it).
 */
static enum local_front_result
lz_front_answer_tags(enum config_acl_action action,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, const struct local_tags *ct,
	int norec_ok)
{
	struct local_front_info tmp;
	enum local_zone_answer r = LOCAL_ZONE_NOT_LOCAL;
	enum local_front_result fr;
	if(!info)
		info = &tmp;
	info->set_rd = 0;
	info->alias.present = 0;
	info->action = action;
	if((fr = lz_front_gate(lz, pkt, pktlen, fq, action, out, outmax,
		outlen)) != LOCAL_FRONT_CONTINUE)
		return fr;
	/* the view's zones (no tags), then the global ones with the tags */
	if(vlz)
		r = local_zones_answer(vlz, pkt, pktlen, fq, client, tcp, out,
			outmax, outlen, &info->alias);
	if(r == LOCAL_ZONE_NOT_LOCAL && (!vlz || view_first ||
		local_zones_lookup(vlz, fq->qinfo.qname, fq->qinfo.qtype,
		fq->qinfo.qclass, NULL) == LOCAL_ZONE_NOVIEW))
		r = local_zones_answer_tags(lz, pkt, pktlen, fq, client, tcp,
			out, outmax, outlen, &info->alias, ct);
	return lz_front_rules(lz, pkt, pktlen, fq, action, r, out, outmax,
		outlen, info, norec_ok);
}

enum local_front_result
local_front_answer_view(const struct acl_list *acl,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, int norec_ok)
{
	return lz_front_answer(acl, vlz, view_first, lz, pkt, pktlen, fq,
		client, tcp, out, outmax, outlen, info, norec_ok);
}

enum local_front_result
local_front_answer_tags(enum config_acl_action action,
	const struct local_zones *vlz, int view_first,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint8_t *out, size_t outmax, size_t *outlen,
	struct local_front_info *info, const struct local_tags *ct,
	int norec_ok)
{
	return lz_front_answer_tags(action, vlz, view_first, lz, pkt, pktlen,
		fq, client, tcp, out, outmax, outlen, info, ct, norec_ok);
}

enum local_zone_type
local_zones_lookup(const struct local_zones *lz, const uint8_t *name,
	uint16_t qtype, uint16_t qclass, uint8_t *zname)
{
	uint8_t low[DNS_MAX_NAME];
	const struct local_zone *z;
	size_t len;
	if(!lz || !lz->finished || !name)
		return LOCAL_ZONE_UNSET;
	len = dname_valid(name, DNS_MAX_NAME);
	if(len == 0)
		return LOCAL_ZONE_UNSET;
	dname_copy_lower(low, name);
	z = lz_find_zone(lz, low, qtype, qclass);
	if(!z)
		return LOCAL_ZONE_UNSET;
	if(zname)
		memcpy(zname, z->name, z->namelen);
	return z->type;
}

size_t
local_zones_count(const struct local_zones *lz)
{
	return lz ? lz->nzones : 0;
}

void
local_zones_walk(const struct local_zones *lz, local_zones_walk_cb cb,
	void *arg)
{
	size_t i;
	if(!lz || !cb)
		return;
	for(i = 0; i < lz->nzones; i++)
		cb(arg, lz->zones[i]->name, lz->zones[i]->rrclass,
			lz->zones[i]->type);
}

void
local_data_walk(const struct local_zones *lz, local_data_walk_cb cb,
	void *arg)
{
	size_t i, j, k;
	const struct lz_node *n;
	if(!lz || !cb || !lz->finished)
		return;
	for(i = 0; i < lz->tsize; i++) {
		const struct lz_entry *e = &lz->table[i];
		if(!e->name)
			continue;
		for(n = e->node; n; n = n->next)
			for(j = 0; j < n->nrrsets; j++)
				for(k = 0; k < n->rrsets[j].count; k++) {
					const struct lz_rr *r =
						&n->rrsets[j].rrs[k];
					cb(arg, n->zone->name, e->name,
						n->rrsets[j].type, e->rrclass,
						r->ttl, r->rdata, r->rdlen);
				}
	}
}

enum local_front_result
local_front_answer(const struct acl_list *acl, const struct local_zones *lz,
	const uint8_t *pkt, size_t pktlen, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_front_info *info)
{
	return local_front_answer_norec(acl, lz, pkt, pktlen, fq, client, tcp,
		out, outmax, outlen, info, 0);
}
