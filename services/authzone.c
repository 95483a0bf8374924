/*
 * services/authzone.c - auth-zone: local copies of zones, answered from.
 *
 * See services/authzone.h. A zone's data (struct az_data) is every RR of
 * the zone, sorted in canonical order (RFC 4034 6.1), and an index of the
 * names (one node per owner, its RRs in a run of the sorted array). A
 * lookup is a binary search; an empty non-terminal is a name whose
 * canonical successor is below it; the NSEC that covers a missing name is
 * the one of its canonical predecessor. The data keeps every RR's wire
 * form too (struct az_rrw): a lookup collects references to RRs on the
 * stack and the encoder writes them, so answering allocates nothing
 * (but for OpenSSL's digest context when an NSEC3 denial is hashed);
 * ldns is used to read, check and write zones, off the answer path.
 * An NSEC3 zone (an NSEC3PARAM at the apex) keeps its NSEC3 owners by
 * hash too, for the denials of RFC 5155 section 7.2.
 */
#include "config.h"
#include "services/authzone.h"
#include "services/xfr.h"
#include "util/config_file.h"
#include "util/config_auth.h"
#include "util/config_options.h"
#include "util/netaddr.h"
#include "util/log.h"
#include "dns/name.h"
#include "dns/dns.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>
#include <openssl/evp.h>
#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

/** most CNAMEs followed inside a zone */
#define AZ_MAX_CNAME 8
/** ZONEMD RR type */
#define TYPE_ZONEMD 63
/** the length of an NSEC3 hash (SHA-1) */
#define AZ_N3_HASHLEN 20
/** the UDP size we advertise */
#define AZ_EDNS_SIZE 1232
/** most DNSKEY records taken from a validated lookup */
#define AZ_MAX_KEYS 64
/** seconds a DNSKEY lookup may take before it counts as failed (a
 * mesh state dropped without an answer; well beyond the mesh's own
 * time budget) */
#define AZ_LOOKUP_TIMEOUT 120

/** the DNSKEY lookup of a held zone (auth_zone.lk_state) */
enum az_lookup_state {
	/** none */
	AZ_LK_NONE = 0,
	/** wanted: a worker is to start it */
	AZ_LK_WANTED,
	/** started in a worker's mesh */
	AZ_LK_STARTED,
	/** answered: the rest of the check is posted to the transfer
	 * thread */
	AZ_LK_ANSWERED
};

/** one owner name of a zone */
struct az_node {
	/** the name (points into an RR's owner) */
	const ldns_rdf *name;
	/** the same, wire, lower case */
	const uint8_t *wname;
	/** first RR in the sorted array */
	size_t first;
	/** how many */
	size_t num;
};

/** an RR of the data in wire form, as the answers write it */
struct az_rrw {
	/** owner, wire, lower case (the ldns owner's data) */
	const uint8_t *owner;
	/** RDATA, uncompressed (in the data's blob) */
	const uint8_t *rdata;
	/** TTL */
	uint32_t ttl;
	/** type */
	uint16_t type;
	/** for an RRSIG, the type it covers */
	uint16_t covered;
	/** class */
	uint16_t rrclass;
	/** RDATA length */
	uint16_t rdlen;
};

/** a zone's data, immutable once built */
struct az_data {
	/** every RR, canonical order (owned) */
	ldns_rr_list *rrs;
	/** the same RRs in the order they came (the zone file, the
	 * transfer, an IXFR's additions last): the base of the next IXFR
	 * and the order of an RRset's records in the zone file written,
	 * as Unbound keeps and writes them (pointers into rrs) */
	ldns_rr **arrival;
	/** for each RR of rrs (same index), its place in arrival */
	uint32_t *seq;
	/** the names */
	struct az_node *nodes;
	/** how many */
	size_t num;
	/** the wire form of each RR of rrs, same order */
	struct az_rrw *w;
	/** the RDATA of w */
	uint8_t *blob;
	/** the SOA (in rrs) */
	const ldns_rr *soa;
	/** its serial */
	uint32_t serial;
	/** its minimum (negative answers' TTL cap) */
	uint32_t soa_min;
	/** NSEC3 (RFC 5155): 1 when the apex has an NSEC3PARAM of hash
	 * algorithm 1 (SHA-1); the denials are then NSEC3 records */
	int n3;
	/** the NSEC3PARAM's iterations */
	uint16_t n3_iter;
	/** its salt, and the salt's length */
	uint8_t n3_salt[255];
	uint8_t n3_saltlen;
	/** the NSEC3 records' owners, by hash (sorted), or NULL */
	struct az_n3 *n3s;
	/** how many */
	size_t n3num;
};

/** an NSEC3 owner: its hash (the first label, base32hex decoded) and
 * its node */
struct az_n3 {
	/** the hash */
	uint8_t h[AZ_N3_HASHLEN];
	/** the node holding the NSEC3 */
	long nd;
};

/** the lookup of one type of a host name (struct az_host.st) */
enum az_host_state {
	/** a worker is to start it */
	AZ_H_WANTED = 0,
	/** started in a worker's mesh */
	AZ_H_STARTED,
	/** answered (or failed: a retry is posted) */
	AZ_H_DONE
};

/** a host name of a zone: a primary: or an allow-notify: written as a
 * name, whose addresses are looked up through the resolver, validated
 * (a bogus answer is not used), as Unbound does */
struct az_host {
	/** the name, wire, lower case */
	uint8_t wire[256];
	/** the port to transfer from (a primary) */
	int port;
	/** the key to sign with (a primary), or NULL */
	const struct xfr_tsig_key *key;
	/** 1 for an allow-notify: name, 0 for a primary */
	int notify;
	/** the A and the AAAA lookup, enum az_host_state (under the
	 * zones' lk_lock) */
	int st[2];
	/** AZ_H_DONE: 1 when it failed (it is asked again later) */
	int failed[2];
};

/** most addresses kept from the host name lookups of a zone */
#define AZ_MAX_HOST_ADDRS 32
/** seconds before a failed host name lookup is tried again */
#define AZ_HOST_RETRY 60

/** one zone */
struct auth_zone {
	/** the name, text with a trailing dot */
	char *name;
	/** the name (canonical) */
	ldns_rdf *apex;
	/** the apex, wire, lower case */
	uint8_t apex_wire[256];
	/** settings */
	int for_downstream, for_upstream, fallback, zonemd_check,
		zonemd_reject_absence;
	/** zonefile or NULL */
	char *zonefile;
	/** allow-notify netblocks */
	struct netblock *notify;
	/** how many */
	size_t num_notify;
	/** primaries */
	struct xfr_primary *prim;
	/** how many */
	size_t num_prim;
	/** url: sources (tried when no primary answers) */
	struct config_url *url;
	/** how many */
	size_t num_url;
	/** the transfer task, or NULL */
	struct xfr_task *task;
#ifdef HAVE_PTHREAD
	/** guards data: readers for an answer, the writer for a swap */
	pthread_rwlock_t lock;
	/** serialises the writers (transfer thread, control commands) */
	pthread_mutex_t wlock;
#endif
	/** the data, or NULL (none yet, or expired) */
	struct az_data *data;
	/** 1 when data is NULL because the zone failed its ZONEMD check,
	 * 2 when it is held for its DNSKEY lookup (written under the
	 * rwlock's write side, read under the read side): the iterator
	 * then asks the servers (for-upstream) */
	int refused;
	/** a zone held for the validated lookup of its DNSKEY
	 * (AUTH_ZMD_NEED_KEYS): its RRs (owned), or NULL; one per zone, a
	 * newer copy replaces it; under the writer mutex */
	ldns_rr_list *held;
	/** where the held copy came from (for the log) */
	char held_from[300];
	/** the lookup, enum az_lookup_state (under the zones' lk_lock) */
	int lk_state;
	/** its result, enum auth_keys_result (AZ_LK_ANSWERED) */
	int lk_res;
	/** the validated DNSKEY records' RDATA, one after the other (owned) */
	uint8_t *lk_keys;
	/** their lengths */
	uint16_t lk_len[AZ_MAX_KEYS];
	/** how many */
	size_t lk_n;
	/** AZ_LK_STARTED: when it counts as failed */
	time_t lk_deadline;
	/** host names of primaries and allow-notify (or NULL) */
	struct az_host *hosts;
	/** how many */
	size_t num_hosts;
	/** of them primaries */
	size_t num_host_prim;
	/** the addresses they were found to have: each may NOTIFY (under
	 * lk_lock) */
	struct netaddr host_addrs[AZ_MAX_HOST_ADDRS];
	/** how many */
	size_t num_host_addrs;
	/** of the primaries among them, the ones not yet handed to the
	 * task (the transfer thread takes them: z_host_prims) */
	struct xfr_primary host_new[AZ_MAX_HOST_ADDRS];
	/** how many */
	size_t num_host_new;
	/** the zones (for the keys) */
	struct auth_zones *az;
};

/** the zones */
struct auth_zones {
	/** the zones */
	struct auth_zone **z;
	/** how many */
	size_t num;
	/** TSIG keys */
	struct xfr_tsig_key *keys;
	/** how many */
	size_t num_keys;
	/** the transfer service (NULL when no zone has primaries) */
	struct xfr_service *xs;
	/** 1 when some zone is for-upstream / for-downstream */
	int any_up, any_down;
	/** the DNSSEC check of ZONEMD (RFC 8976 4), or NULL */
	auth_zonemd_dnssec_func dnssec;
	/** its argument */
	void *dnssec_arg;
	/** zonemd-permissive-mode: a failed check is logged, the zone used */
	int permissive;
	/** the check of held zones' keys, or NULL */
	auth_zonemd_keys_func keys_check;
	/** 1 when some zone may be held (zonemd-check with a DNSSEC check) */
	int any_chain;
	/** 1 when some zone has host names to look up */
	int any_host;
#ifdef HAVE_PTHREAD
	/** guards the lookups (lk_* of the zones) and the waker; held for
	 * a few instructions only; taken after a zone's writer mutex */
	pthread_mutex_t lk_lock;
#endif
	/** the worker's wake-up for lookups, or NULL */
	void (*waker)(void *);
	/** its argument */
	void *waker_arg;
};

/** lock the lookups */
static void
lk_lock(struct auth_zones *az)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_lock(&az->lk_lock);
#else
	(void)az;
#endif
}

/** unlock the lookups */
static void
lk_unlock(struct auth_zones *az)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_unlock(&az->lk_lock);
#else
	(void)az;
#endif
}

/* ---------------- zone data ---------------- */

/** free data */
static void
az_data_free(struct az_data *d)
{
	if(!d)
		return;
	ldns_rr_list_deep_free(d->rrs);
	free(d->arrival);
	free(d->seq);
	free(d->nodes);
	free(d->w);
	free(d->blob);
	free(d->n3s);
	free(d);
}

/** qsort: canonical RR order */
static int
rr_cmp(const void *a, const void *b)
{
	const ldns_rr *x = *(ldns_rr *const *)a, *y = *(ldns_rr *const *)b;
	int c = ldns_dname_compare(ldns_rr_owner(x), ldns_rr_owner(y));
	if(c)
		return c;
	if(ldns_rr_get_type(x) != ldns_rr_get_type(y))
		return ldns_rr_get_type(x) < ldns_rr_get_type(y) ? -1 : 1;
	return ldns_rr_compare(x, y);
}

/** @return the type an RRSIG covers */
static ldns_rr_type
sig_covers(const ldns_rr *rr)
{
	if(ldns_rr_rd_count(rr) < 1)
		return 0;
	return (ldns_rr_type)ldns_rdf2native_int16(ldns_rr_rdf(rr, 0));
}

/**
 * The wire form of the data's RRs (d->w, d->blob), so that answers are
 * written from it without ldns.
 * @return 0, or -1 with err.
 */
static int
az_data_wire(struct az_data *d, const char **err)
{
	size_t i, n = ldns_rr_list_rr_count(d->rrs), total = 0, off = 0;
	ldns_buffer *b = ldns_buffer_new(4096);
	int pass;
	if(!b || !(d->w = calloc(n ? n : 1, sizeof(*d->w)))) {
		*err = "out of memory";
		goto fail;
	}
	/* pass 0 measures, pass 1 copies */
	for(pass = 0; pass < 2; pass++) {
		if(pass == 1 && !(d->blob = malloc(total ? total : 1))) {
			*err = "out of memory";
			goto fail;
		}
		for(i = 0; i < n; i++) {
			const ldns_rr *rr = ldns_rr_list_rr(d->rrs, i);
			size_t l;
			ldns_buffer_clear(b);
			if(ldns_rr_rdata2buffer_wire(b, rr) != LDNS_STATUS_OK ||
				(l = ldns_buffer_position(b)) > 65535) {
				*err = "an RR that cannot be written";
				goto fail;
			}
			if(pass == 0) {
				total += l;
				continue;
			}
			memcpy(d->blob + off, ldns_buffer_begin(b), l);
			d->w[i].owner = ldns_rdf_data(ldns_rr_owner(rr));
			d->w[i].rdata = d->blob + off;
			d->w[i].rdlen = (uint16_t)l;
			d->w[i].ttl = ldns_rr_ttl(rr);
			d->w[i].type = (uint16_t)ldns_rr_get_type(rr);
			d->w[i].rrclass = (uint16_t)ldns_rr_get_class(rr);
			if(d->w[i].type == LDNS_RR_TYPE_RRSIG)
				d->w[i].covered = (uint16_t)sig_covers(rr);
			off += l;
		}
	}
	ldns_buffer_free(b);
	return 0;
fail:
	if(b)
		ldns_buffer_free(b);
	return -1;
}

static int az_n3_build(struct az_data *d, const ldns_rdf *apex);

/** qsort: canonical RR order; equal RRs by address, so that of a
 * duplicate pair the one dropped is found by its address */
static int
rr_cmp_stable(const void *a, const void *b)
{
	int c = rr_cmp(a, b);
	const ldns_rr *x = *(ldns_rr *const *)a, *y = *(ldns_rr *const *)b;
	if(c)
		return c;
	return x < y ? -1 : (x > y ? 1 : 0);
}

/** a duplicate RR is freed: its slot in the arrival order empties */
static void
az_arrival_drop(ldns_rr **arrival, size_t n, const ldns_rr *rr)
{
	size_t i;
	for(i = n; i > 0; i--)
		if(arrival[i - 1] == rr) {
			arrival[i - 1] = NULL;
			return;
		}
}

/** close the empty slots of the arrival order */
static void
az_arrival_pack(ldns_rr **arrival, size_t n)
{
	size_t i, k = 0;
	for(i = 0; i < n; i++)
		if(arrival[i])
			arrival[k++] = arrival[i];
}

/** one arrival slot: the RR's address and its place */
struct az_slot {
	/** the RR */
	const ldns_rr *rr;
	/** its place in the arrival order */
	uint32_t pos;
};

/** qsort: by address */
static int
slot_cmp(const void *a, const void *b)
{
	const struct az_slot *x = a, *y = b;
	return x->rr < y->rr ? -1 : (x->rr > y->rr ? 1 : 0);
}

/** d->seq from d->arrival (n RRs). @return 0 or -1 */
static int
az_seq_build(struct az_data *d, size_t n)
{
	struct az_slot *sl = malloc((n ? n : 1) * sizeof(*sl));
	size_t i;
	if(!sl || !(d->seq = malloc((n ? n : 1) * sizeof(*d->seq)))) {
		free(sl);
		return -1;
	}
	for(i = 0; i < n; i++) {
		sl[i].rr = d->arrival[i];
		sl[i].pos = (uint32_t)i;
	}
	qsort(sl, n, sizeof(*sl), slot_cmp);
	for(i = 0; i < n; i++) {
		struct az_slot k, *f;
		k.rr = ldns_rr_list_rr(d->rrs, i);
		f = bsearch(&k, sl, n, sizeof(*sl), slot_cmp);
		d->seq[i] = f ? f->pos : (uint32_t)i;
	}
	free(sl);
	return 0;
}

/**
 * Build data from a list of RRs (taken: freed on failure too).
 * @return data or NULL with err.
 */
static struct az_data *
az_data_build(ldns_rr_list *rrs, const ldns_rdf *apex, const char **err)
{
	struct az_data *d = calloc(1, sizeof(*d));
	size_t i, n = ldns_rr_list_rr_count(rrs), k = 0;
	ldns_rr **arr;
	*err = NULL;
	if(!d) {
		*err = "out of memory";
		ldns_rr_list_deep_free(rrs);
		return NULL;
	}
	d->rrs = rrs;
	for(i = 0; i < n; i++) {
		ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		ldns_dname2canonical(ldns_rr_owner(rr));
		if(ldns_dname_compare(ldns_rr_owner(rr), apex) != 0 &&
			!ldns_dname_is_subdomain(ldns_rr_owner(rr), apex)) {
			*err = "a record outside the zone";
			goto fail;
		}
	}
	/* the array inside the list, sorted in place; duplicates dropped
	 * (the later one of a pair: the arrival order keeps the first) */
	arr = (ldns_rr **)rrs->_rrs;
	if(!(d->arrival = malloc((n ? n : 1) * sizeof(*d->arrival)))) {
		*err = "out of memory";
		goto fail;
	}
	if(n)
		memcpy(d->arrival, arr, n * sizeof(*arr));
	if(n)
		qsort(arr, n, sizeof(*arr), rr_cmp_stable);
	for(i = 0; i < n; i++) {
		if(k && ldns_rr_compare(arr[k - 1], arr[i]) == 0 &&
			ldns_rr_compare_no_rdata(arr[k - 1], arr[i]) == 0) {
			az_arrival_drop(d->arrival, n, arr[i]);
			ldns_rr_free(arr[i]);
			continue;
		}
		arr[k++] = arr[i];
	}
	ldns_rr_list_set_rr_count(rrs, k);
	az_arrival_pack(d->arrival, n);
	n = k;
	if(az_seq_build(d, n) != 0) {
		*err = "out of memory";
		goto fail;
	}
	if(!(d->nodes = calloc(n ? n : 1, sizeof(*d->nodes)))) {
		*err = "out of memory";
		goto fail;
	}
	for(i = 0; i < n; i++) {
		if(d->num && ldns_dname_compare(d->nodes[d->num - 1].name,
			ldns_rr_owner(arr[i])) == 0) {
			d->nodes[d->num - 1].num++;
			continue;
		}
		d->nodes[d->num].name = ldns_rr_owner(arr[i]);
		d->nodes[d->num].wname = ldns_rdf_data(ldns_rr_owner(arr[i]));
		d->nodes[d->num].first = i;
		d->nodes[d->num].num = 1;
		d->num++;
	}
	for(i = 0; i < n; i++)
		if(ldns_rr_get_type(arr[i]) == LDNS_RR_TYPE_SOA &&
			ldns_dname_compare(ldns_rr_owner(arr[i]), apex) == 0 &&
			ldns_rr_rd_count(arr[i]) == 7) {
			if(d->soa) {
				*err = "more than one SOA";
				goto fail;
			}
			d->soa = arr[i];
		}
	/* no SOA at the apex (a zone file may lack it, as Unbound allows):
	 * serial 0, negative answers without SOA */
	if(d->soa) {
		d->serial = ldns_rdf2native_int32(ldns_rr_rdf(d->soa, 2));
		d->soa_min = ldns_rdf2native_int32(ldns_rr_rdf(d->soa, 6));
	}
	if(az_data_wire(d, err) != 0)
		goto fail;
	if(az_n3_build(d, apex) != 0) {
		*err = "out of memory";
		goto fail;
	}
	return d;
fail:
	az_data_free(d);
	return NULL;
}

/** find a name (wire, any case): @return node index or -1; *pos: where it
 * would be */
static long
node_find(const struct az_data *d, const uint8_t *name, size_t *pos)
{
	size_t lo = 0, hi = d->num;
	while(lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = dname_canon_cmp(d->nodes[mid].wname, name);
		if(c == 0) {
			*pos = mid;
			return (long)mid;
		}
		if(c < 0)
			lo = mid + 1;
		else	hi = mid;
	}
	*pos = lo;
	return -1;
}

/** @return 1 when a missing name (insertion pos) has names below it */
static int
is_ent(const struct az_data *d, const uint8_t *name, size_t pos)
{
	return pos < d->num && dname_is_strict_subdomain(d->nodes[pos].wname,
		name);
}

/** @return 1 when node has an RR of type t */
static int
node_has(const struct az_data *d, long nd, uint16_t t)
{
	size_t i;
	const struct az_node *n = &d->nodes[nd];
	for(i = n->first; i < n->first + n->num; i++)
		if(d->w[i].type == t)
			return 1;
	return 0;
}

/* ---- NSEC3 (RFC 5155) ---- */

/** decode a base32hex label (RFC 4648 section 7, any case, no padding)
 * into out. @return the bytes, or 0 when it is not base32hex */
static size_t
az_b32hex_decode(const uint8_t *in, size_t len, uint8_t *out,
	size_t outmax)
{
	size_t i, n = 0;
	unsigned bits = 0, acc = 0;
	for(i = 0; i < len; i++) {
		int c = in[i], v;
		if(c >= '0' && c <= '9')
			v = c - '0';
		else if(c >= 'a' && c <= 'v')
			v = c - 'a' + 10;
		else if(c >= 'A' && c <= 'V')
			v = c - 'A' + 10;
		else	return 0;
		acc = (acc << 5) | (unsigned)v;
		bits += 5;
		if(bits >= 8) {
			if(n >= outmax)
				return 0;
			out[n++] = (uint8_t)(acc >> (bits - 8));
			bits -= 8;
			acc &= (1u << bits) - 1;
		}
	}
	return n;
}

/** qsort: NSEC3 owners by hash */
static int
n3_cmp(const void *a, const void *b)
{
	return memcmp(((const struct az_n3 *)a)->h,
		((const struct az_n3 *)b)->h, AZ_N3_HASHLEN);
}

/** the NSEC3 parameters (the apex NSEC3PARAM) and the NSEC3 owners by
 * hash. @return 0, or -1 out of memory */
static int
az_n3_build(struct az_data *d, const ldns_rdf *apex)
{
	const uint8_t *aw = ldns_rdf_data(apex);
	size_t pos, i, k, al = ldns_rdf_size(apex);
	long an = node_find(d, aw, &pos);
	const struct az_node *n;
	if(an < 0)
		return 0;
	n = &d->nodes[an];
	for(i = n->first; i < n->first + n->num; i++) {
		const struct az_rrw *w = &d->w[i];
		if(w->type != LDNS_RR_TYPE_NSEC3PARAM || w->rdlen < 5 ||
			w->rdata[0] != 1 || (size_t)5 + w->rdata[4] >
			w->rdlen)
			continue;
		d->n3 = 1;
		d->n3_iter = (uint16_t)((w->rdata[2] << 8) | w->rdata[3]);
		d->n3_saltlen = w->rdata[4];
		memcpy(d->n3_salt, w->rdata + 5, w->rdata[4]);
		break;
	}
	if(!d->n3)
		return 0;
	for(k = 0; k < 2; k++) {
		size_t m = 0;
		for(i = 0; i < d->num; i++) {
			const uint8_t *o = d->nodes[i].wname;
			uint8_t h[AZ_N3_HASHLEN + 8];
			if(o[0] != 32 || dname_len(o) != 33 + al ||
				!node_has(d, (long)i, LDNS_RR_TYPE_NSEC3) ||
				az_b32hex_decode(o + 1, 32, h, sizeof(h)) !=
				AZ_N3_HASHLEN)
				continue;
			if(k == 1) {
				memcpy(d->n3s[m].h, h, AZ_N3_HASHLEN);
				d->n3s[m].nd = (long)i;
			}
			m++;
		}
		if(k == 0) {
			if(m == 0)
				return 0;
			if(!(d->n3s = calloc(m, sizeof(*d->n3s))))
				return -1;
		}
		d->n3num = m;
	}
	qsort(d->n3s, d->n3num, sizeof(*d->n3s), n3_cmp);
	return 0;
}

/** the NSEC3 hash of a name with the zone's parameters (the answer
 * path's one allocation: OpenSSL's digest context, for DNSSEC denials
 * of an NSEC3 zone only). @return 0 or -1 */
static int
az_n3_hash(const struct az_data *d, const uint8_t *name, uint8_t *out)
{
	uint8_t lower[256];
	size_t nl = dname_copy_lower(lower, name);
	unsigned i;
	int ok;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	if(!ctx)
		return -1;
	ok = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
		EVP_DigestUpdate(ctx, lower, nl) &&
		EVP_DigestUpdate(ctx, d->n3_salt, d->n3_saltlen) &&
		EVP_DigestFinal_ex(ctx, out, NULL);
	for(i = 0; ok && i < d->n3_iter; i++)
		ok = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
			EVP_DigestUpdate(ctx, out, AZ_N3_HASHLEN) &&
			EVP_DigestUpdate(ctx, d->n3_salt, d->n3_saltlen) &&
			EVP_DigestFinal_ex(ctx, out, NULL);
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/** the node of the NSEC3 that matches name (match 1), or that covers it
 * (match 0: the one with the greatest hash below the name's, the last
 * one below the first); -1 when there is none */
static long
az_n3_find(const struct az_data *d, const uint8_t *name, int match)
{
	uint8_t h[AZ_N3_HASHLEN];
	size_t lo = 0, hi = d->n3num;
	if(d->n3num == 0 || az_n3_hash(d, name, h) != 0)
		return -1;
	while(lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if(memcmp(d->n3s[mid].h, h, AZ_N3_HASHLEN) < 0)
			lo = mid + 1;
		else	hi = mid;
	}
	if(lo < d->n3num && memcmp(d->n3s[lo].h, h, AZ_N3_HASHLEN) == 0)
		return match ? d->n3s[lo].nd : -1;
	if(match)
		return -1;
	return d->n3s[lo == 0 ? d->n3num - 1 : lo - 1].nd;
}

/** most RRs of one section of an answer (more: the answer fails) */
#define AZ_MAX_REFS 256

/** one RR of an answer: where it is in the data, how it is written */
struct az_ref {
	/** index of the RR in the data */
	uint32_t idx;
	/** its owner: -1 its own, else a slot of az_ans.owners (the name
	 * a wildcard answered for) */
	int8_t owner;
	/** 1: the TTL capped at the SOA minimum (a negative answer's SOA) */
	uint8_t negttl;
};

/** an answer under construction: references into the zone data, read
 * under the zone's read lock, so nothing is copied or allocated */
struct az_ans {
	/** the answer, authority and additional sections */
	struct az_ref r[3][AZ_MAX_REFS];
	/** RRs in each */
	size_t n[3];
	/** 1 when a section ran out of room */
	int full;
	/** rcode */
	int rcode;
	/** 1 for an authoritative answer, 0 for a referral */
	int aa;
	/** the cut of a referral, or NULL (points into the data) */
	const uint8_t *cut;
	/** owner names of wildcard-synthesised RRs, lower case */
	uint8_t owners[AZ_MAX_CNAME + 1][256];
	/** slots used */
	int nowners;
};

/** add a reference to a section */
static void
push_ref(struct az_ans *a, int sec, size_t idx, int owner)
{
	struct az_ref *r;
	if(a->n[sec] >= AZ_MAX_REFS) {
		a->full = 1;
		return;
	}
	r = &a->r[sec][a->n[sec]++];
	r->idx = (uint32_t)idx;
	r->owner = (int8_t)owner;
	r->negttl = 0;
}

/** push the RRs of type t at node n (t RRSIG with covered not 0: only
 * the signatures over type covered); @return number pushed */
static int
push_type(const struct az_data *d, const struct az_node *n, uint16_t t,
	uint16_t covered, int owner, struct az_ans *a, int sec)
{
	size_t i;
	int c = 0;
	for(i = n->first; i < n->first + n->num; i++) {
		const struct az_rrw *w = &d->w[i];
		if(w->type == t && (covered == 0 ||
			w->covered == covered)) {
			push_ref(a, sec, i, owner);
			c++;
		}
	}
	return c;
}

/** @return 1 when node n holds RRs of type t */
static int
node_has_type(const struct az_data *d, const struct az_node *n, uint16_t t)
{
	size_t i;
	for(i = n->first; i < n->first + n->num; i++)
		if(d->w[i].type == t)
			return 1;
	return 0;
}

/** push the RRset of type t at node (ANY: all), with its RRSIGs when
 * dnssec, owner slot owner (-1: the RRs' own); @return number of RRs of
 * type t pushed. Each RRset is followed by its own signatures, as
 * resolvers write an answer (the node keeps its RRs in canonical order,
 * where RRSIG, type 46, sorts before NSEC and NSEC3 and after SOA) */
static int
push_rrset(const struct az_data *d, long nd, uint16_t t, int dnssec,
	int owner, struct az_ans *a, int sec)
{
	const struct az_node *n = &d->nodes[nd];
	size_t i;
	int c = 0;
	if(t != LDNS_RR_TYPE_ANY) {
		c = push_type(d, n, t, 0, owner, a, sec);
		if(dnssec && t != LDNS_RR_TYPE_RRSIG)
			(void)push_type(d, n, LDNS_RR_TYPE_RRSIG, t, owner, a,
				sec);
		return c;
	}
	/* ANY: the RRsets in type order (the node's RRs are sorted by
	 * type), each followed by its RRSIGs */
	for(i = n->first; i < n->first + n->num; i++) {
		const struct az_rrw *w = &d->w[i];
		if(w->type == LDNS_RR_TYPE_RRSIG)
			continue;
		push_ref(a, sec, i, owner);
		c++;
		if(dnssec && (i + 1 == n->first + n->num ||
			d->w[i + 1].type != w->type))
			(void)push_type(d, n, LDNS_RR_TYPE_RRSIG, w->type,
				owner, a, sec);
	}
	/* signatures over a type the node does not hold */
	if(dnssec) {
		for(i = n->first; i < n->first + n->num; i++) {
			const struct az_rrw *w = &d->w[i];
			if(w->type == LDNS_RR_TYPE_RRSIG &&
				!node_has_type(d, n, w->covered)) {
				push_ref(a, sec, i, owner);
				c++;
			}
		}
	}
	return c;
}

/** the SOA for a negative answer, TTL capped by the minimum */
static void
push_neg_soa(const struct az_data *d, int dnssec, struct az_ans *a)
{
	size_t pos, i, from = a->n[DNS_SEC_AUTHORITY];
	long nd;
	if(!d->soa)
		return;
	nd = node_find(d, ldns_rdf_data(ldns_rr_owner(d->soa)), &pos);
	if(nd < 0)
		return;
	(void)push_rrset(d, nd, LDNS_RR_TYPE_SOA, dnssec, -1, a,
		DNS_SEC_AUTHORITY);
	for(i = from; i < a->n[DNS_SEC_AUTHORITY]; i++)
		a->r[DNS_SEC_AUTHORITY][i].negttl = 1;
}

/** push the denial record of type t (NSEC or NSEC3) at node nd (with
 * its RRSIG) to the authority section, once */
static void
push_denial(const struct az_data *d, long nd, uint16_t t, struct az_ans *a)
{
	size_t i;
	if(nd < 0 || (size_t)nd >= d->num)
		return;
	for(i = 0; i < a->n[DNS_SEC_AUTHORITY]; i++) {
		const struct az_rrw *w = &d->w[a->r[DNS_SEC_AUTHORITY][i].idx];
		if(w->type == t && dname_equal(w->owner, d->nodes[nd].wname))
			return; /* already there */
	}
	(void)push_rrset(d, nd, t, 1, -1, a, DNS_SEC_AUTHORITY);
}

/** push the NSEC at node nd (with its RRSIG) to the authority section */
static void
push_nsec(const struct az_data *d, long nd, struct az_ans *a)
{
	push_denial(d, nd, LDNS_RR_TYPE_NSEC, a);
}

/** push the NSEC3 that matches name (match 1) or covers it (match 0) */
static void
push_n3(const struct az_data *d, const uint8_t *name, int match,
	struct az_ans *a)
{
	push_denial(d, az_n3_find(d, name, match), LDNS_RR_TYPE_NSEC3, a);
}

/** the NSEC3 closest encloser proof (RFC 5155 7.2.1): the NSEC3 that
 * matches the closest encloser ce and the one that covers the next
 * closer name (the name one label below ce, toward qname) */
static void
push_n3_ce(const struct az_data *d, const uint8_t *qname, const uint8_t *ce,
	struct az_ans *a)
{
	int cl = dname_count_labels(ce);
	push_n3(d, ce, 1, a);
	if(dname_count_labels(qname) > cl)
		push_n3(d, dname_suffix_labels(qname, cl + 1), 0, a);
}

/** the proof that an answer synthesised from the wildcard at the
 * closest encloser ce is needed: qname itself does not exist. The NSEC3
 * that covers the next closer name (RFC 5155 7.2.6), or the NSEC that
 * covers qname (RFC 4035 3.1.3.3; pos: qname's insertion point) */
static void
push_wild_proof(const struct az_data *d, const uint8_t *qname,
	const uint8_t *ce, size_t pos, struct az_ans *a)
{
	if(d->n3)
		push_n3(d, dname_suffix_labels(qname,
			dname_count_labels(ce) + 1), 0, a);
	else	push_nsec(d, (long)pos - 1, a);
}

/** the denial that qname has no data of the type (NODATA of a name that
 * exists, an empty non-terminal too): its NSEC3 (RFC 5155 7.2.3), or the
 * NSEC at node nd */
static void
push_nodata(const struct az_data *d, const uint8_t *qname, long nd,
	struct az_ans *a)
{
	if(d->n3)
		push_n3(d, qname, 1, a);
	else	push_nsec(d, nd, a);
}

/** the glue (in-zone A/AAAA) of the NS targets in the authority */
static void
push_glue(const struct az_data *d, struct az_ans *a)
{
	size_t i, pos, n = a->n[DNS_SEC_AUTHORITY];
	for(i = 0; i < n; i++) {
		const struct az_rrw *w = &d->w[a->r[DNS_SEC_AUTHORITY][i].idx];
		long nd;
		if(w->type != LDNS_RR_TYPE_NS || w->rdlen < 1 ||
			dname_valid(w->rdata, w->rdlen) == 0)
			continue;
		if((nd = node_find(d, w->rdata, &pos)) >= 0) {
			(void)push_rrset(d, nd, LDNS_RR_TYPE_A, 0, -1, a,
				DNS_SEC_ADDITIONAL);
			(void)push_rrset(d, nd, LDNS_RR_TYPE_AAAA, 0, -1, a,
				DNS_SEC_ADDITIONAL);
		}
	}
}

/** a slot holding name (lower case) for synthesised owners; -1 when
 * there is no room */
static int
owner_slot(struct az_ans *a, const uint8_t *name)
{
	if(a->nowners >= AZ_MAX_CNAME + 1)
		return -1;
	(void)dname_copy_lower(a->owners[a->nowners], name);
	return a->nowners++;
}

/**
 * Look up qname/qtype in the zone data (the caller holds the read lock;
 * the answer points into the data).
 * @param d: the data; apex: the zone name (wire, lower case).
 * @param qname0: the question name (wire, any case).
 * @return 0, or -1 when the answer does not fit (too many RRs).
 */
static int
az_lookup(const struct az_data *d, const uint8_t *apex,
	const uint8_t *qname0, uint16_t qtype, int dnssec, struct az_ans *a)
{
	uint8_t qbuf[256], wc[256];
	int chain, apexl = dname_count_labels(apex);
	a->rcode = LDNS_RCODE_NOERROR;
	a->aa = 1;
	a->cut = NULL;
	(void)dname_copy_lower(qbuf, qname0);
	for(chain = 0; chain <= AZ_MAX_CNAME; chain++) {
		const uint8_t *qname = qbuf;
		int ql = dname_count_labels(qname), k, slot;
		size_t pos;
		long nd;
		if(!dname_is_subdomain(qname, apex))
			break; /* a CNAME out of the zone: the client follows */
		/* zone cuts between the apex and the name */
		for(k = apexl + 1; k <= ql; k++) {
			long cn = node_find(d, dname_suffix_labels(qname, k),
				&pos);
			if(cn < 0 || !node_has(d, cn, LDNS_RR_TYPE_NS))
				continue;
			if(k == ql && qtype == LDNS_RR_TYPE_DS)
				break; /* the DS lives on the parent side */
			if(chain > 0)
				goto done; /* the client asks the child */
			(void)push_rrset(d, cn, LDNS_RR_TYPE_NS, 0, -1, a,
				DNS_SEC_AUTHORITY);
			if(dnssec && push_rrset(d, cn, LDNS_RR_TYPE_DS, 1, -1,
				a, DNS_SEC_AUTHORITY) == 0) {
				const uint8_t *cut = d->nodes[cn].wname;
				if(!d->n3)
					push_nsec(d, cn, a);
				else if(az_n3_find(d, cut, 1) >= 0)
					push_n3(d, cut, 1, a);
				else	/* opt-out (RFC 5155 7.2.7) */
					push_n3_ce(d, cut,
						dname_strip_label(cut), a);
			}
			push_glue(d, a);
			a->aa = 0;
			a->cut = d->nodes[cn].wname;
			goto done;
		}
		nd = node_find(d, qname, &pos);
		if(nd < 0 && !is_ent(d, qname, pos)) {
			/* wildcard at the closest encloser */
			const uint8_t *ce = qname;
			long wn = -1;
			size_t cpos, wpos = 0, cel;
			while(dname_count_labels(ce) > apexl) {
				ce = dname_strip_label(ce);
				if(node_find(d, ce, &cpos) >= 0 ||
					is_ent(d, ce, cpos))
					break;
			}
			cel = dname_len(ce);
			if(cel + 2 <= sizeof(wc) - 1) {
				wc[0] = 1;
				wc[1] = '*';
				memcpy(wc + 2, ce, cel);
				wn = node_find(d, wc, &wpos);
			}
			if(wn < 0) {
				if(chain == 0)
					a->rcode = LDNS_RCODE_NXDOMAIN;
				push_neg_soa(d, dnssec, a);
				if(dnssec && d->n3) {
					/* the closest encloser proof and
					 * the wildcard's denial (RFC 5155
					 * 7.2.2) */
					push_n3_ce(d, qname, ce, a);
					if(cel + 2 <= sizeof(wc) - 1)
						push_n3(d, wc, 0, a);
				} else if(dnssec) {
					/* the name's denial, and the
					 * wildcard's: the NSECs before them
					 * (often the same one) */
					push_nsec(d, (long)pos - 1, a);
					if(wpos > 0)
						push_nsec(d, (long)wpos - 1, a);
				}
				goto done;
			}
			nd = wn;
			/* synthesised from the wildcard, owner = qname */
			if((slot = owner_slot(a, qname)) < 0)
				return -1;
			if(push_rrset(d, nd, qtype, dnssec, slot, a,
				DNS_SEC_ANSWER) > 0) {
				if(dnssec)
					push_wild_proof(d, qname, ce, pos, a);
				goto done;
			}
			if(qtype != LDNS_RR_TYPE_CNAME && node_has(d, nd,
				LDNS_RR_TYPE_CNAME)) {
				(void)push_rrset(d, nd, LDNS_RR_TYPE_CNAME,
					dnssec, slot, a, DNS_SEC_ANSWER);
				if(dnssec)
					push_wild_proof(d, qname, ce, pos, a);
				goto cname;
			}
			push_neg_soa(d, dnssec, a);
			if(dnssec && d->n3) {
				/* wildcard NODATA (RFC 5155 7.2.5): the
				 * wildcard's own NSEC3 (no such type), then
				 * the closest encloser proof, in the order
				 * Unbound writes them */
				push_n3(d, wc, 1, a);
				push_n3_ce(d, qname, ce, a);
			} else if(dnssec) {
				/* the wildcard's NSEC (no such type) and
				 * the one covering qname (RFC 4035 3.1.3.4) */
				push_nsec(d, nd, a);
				push_nsec(d, (long)pos - 1, a);
			}
			goto done;
		}
		if(nd < 0) {
			/* an empty non-terminal: NODATA (its NSEC3, or the
			 * NSEC before it) */
			push_neg_soa(d, dnssec, a);
			if(dnssec)
				push_nodata(d, qname, (long)pos - 1, a);
			goto done;
		}
		if(push_rrset(d, nd, qtype, dnssec, -1, a, DNS_SEC_ANSWER) > 0)
			goto done;
		if(qtype != LDNS_RR_TYPE_CNAME && node_has(d, nd,
			LDNS_RR_TYPE_CNAME)) {
			(void)push_rrset(d, nd, LDNS_RR_TYPE_CNAME, dnssec, -1,
				a, DNS_SEC_ANSWER);
			goto cname;
		}
		push_neg_soa(d, dnssec, a);
		if(dnssec)
			push_nodata(d, qname, nd, a);
		goto done;
cname:
		{
			/* follow the target of the last CNAME pushed */
			size_t i = a->n[DNS_SEC_ANSWER];
			const struct az_rrw *c = NULL;
			while(i > 0) {
				c = &d->w[a->r[DNS_SEC_ANSWER][--i].idx];
				if(c->type == LDNS_RR_TYPE_CNAME)
					break;
				c = NULL;
			}
			if(!c || c->rdlen < 1 || dname_valid(c->rdata,
				c->rdlen) == 0)
				goto done;
			(void)dname_copy_lower(qbuf, c->rdata);
		}
	}
done:
	return a->full ? -1 : 0;
}

/* ---------------- ZONEMD ---------------- */

int
auth_zonemd_verify(const ldns_rr_list *rrs, const ldns_rdf *apex,
	int reject_absence, const char **err)
{
	size_t i, n = ldns_rr_list_rr_count(rrs);
	ldns_rr **arr = NULL;
	ldns_buffer *buf = NULL;
	uint32_t soa_serial = 0;
	int have_soa = 0, found = 0, checked = 0, ok = 0, h;
	*err = NULL;
	for(i = 0; i < n; i++) {
		const ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA &&
			ldns_dname_compare(ldns_rr_owner(rr), apex) == 0 &&
			ldns_rr_rd_count(rr) == 7) {
			soa_serial = ldns_rdf2native_int32(ldns_rr_rdf(rr, 2));
			have_soa = 1;
		}
		if((int)ldns_rr_get_type(rr) == TYPE_ZONEMD &&
			ldns_dname_compare(ldns_rr_owner(rr), apex) == 0)
			found = 1;
	}
	if(!found) {
		if(reject_absence) {
			*err = "the zone has no ZONEMD (zonemd-reject-absence)";
			return -1;
		}
		return 0;
	}
	if(!have_soa) {
		*err = "the zone has no SOA";
		return -1;
	}
	/* the canonical form of every RR but the apex ZONEMDs and their
	 * signatures, sorted, without duplicates */
	if(!(arr = calloc(n ? n : 1, sizeof(*arr))) ||
		!(buf = ldns_buffer_new(65536)))
		goto oom;
	{
		size_t k = 0;
		for(i = 0; i < n; i++) {
			const ldns_rr *rr = ldns_rr_list_rr(rrs, i);
			int apexrr = ldns_dname_compare(ldns_rr_owner(rr),
				apex) == 0;
			if(apexrr && ((int)ldns_rr_get_type(rr) == TYPE_ZONEMD ||
				(ldns_rr_get_type(rr) == LDNS_RR_TYPE_RRSIG &&
				(int)sig_covers(rr) == TYPE_ZONEMD)))
				continue;
			if(!(arr[k] = ldns_rr_clone(rr)))
				goto oom;
			ldns_rr2canonical(arr[k]);
			k++;
		}
		n = k;
	}
	qsort(arr, n, sizeof(*arr), rr_cmp);
	for(h = 1; h <= 2; h++) {
		EVP_MD_CTX *ctx;
		unsigned char dg[EVP_MAX_MD_SIZE];
		unsigned int dl = 0;
		size_t j;
		int want = 0;
		for(j = 0; j < ldns_rr_list_rr_count(rrs); j++) {
			const ldns_rr *rr = ldns_rr_list_rr(rrs, j);
			if((int)ldns_rr_get_type(rr) == TYPE_ZONEMD &&
				ldns_dname_compare(ldns_rr_owner(rr), apex) == 0
				&& ldns_rr_rd_count(rr) == 4 &&
				ldns_rdf2native_int8(ldns_rr_rdf(rr, 1)) == 1 &&
				ldns_rdf2native_int8(ldns_rr_rdf(rr, 2)) == h)
				want = 1;
		}
		if(!want)
			continue;
		if(!(ctx = EVP_MD_CTX_new()))
			goto oom;
		if(EVP_DigestInit_ex(ctx, h == 1 ? EVP_sha384() : EVP_sha512(),
			NULL) != 1) {
			EVP_MD_CTX_free(ctx);
			goto oom;
		}
		for(i = 0; i < n; i++) {
			if(i > 0 && rr_cmp(&arr[i - 1], &arr[i]) == 0)
				continue;
			ldns_buffer_clear(buf);
			if(ldns_rr2buffer_wire_canonical(buf, arr[i],
				LDNS_SECTION_ANSWER) != LDNS_STATUS_OK) {
				EVP_MD_CTX_free(ctx);
				goto oom;
			}
			EVP_DigestUpdate(ctx, ldns_buffer_begin(buf),
				ldns_buffer_position(buf));
		}
		EVP_DigestFinal_ex(ctx, dg, &dl);
		EVP_MD_CTX_free(ctx);
		for(j = 0; j < ldns_rr_list_rr_count(rrs); j++) {
			const ldns_rr *rr = ldns_rr_list_rr(rrs, j);
			const ldns_rdf *dgf;
			if((int)ldns_rr_get_type(rr) != TYPE_ZONEMD ||
				ldns_dname_compare(ldns_rr_owner(rr), apex) != 0
				|| ldns_rr_rd_count(rr) != 4 ||
				ldns_rdf2native_int8(ldns_rr_rdf(rr, 1)) != 1 ||
				ldns_rdf2native_int8(ldns_rr_rdf(rr, 2)) != h)
				continue;
			checked = 1;
			dgf = ldns_rr_rdf(rr, 3);
			if(ldns_rdf2native_int32(ldns_rr_rdf(rr, 0)) !=
				soa_serial) {
				*err = "the ZONEMD serial is not the SOA serial";
				continue;
			}
			if(ldns_rdf_size(dgf) == dl && memcmp(
				ldns_rdf_data(dgf), dg, dl) == 0)
				ok = 1;
			else
				*err = "the ZONEMD digest does not match the zone";
		}
	}
	for(i = 0; i < n; i++)
		ldns_rr_free(arr[i]);
	free(arr);
	ldns_buffer_free(buf);
	if(ok) {
		*err = NULL;
		return 0;
	}
	if(!checked) {
		/* only unknown schemes or hash algorithms: RFC 8976 section
		 * 4 says verification is then not successful "with this
		 * ZONEMD RR", not that the zone fails; a publisher may put a
		 * private-use algorithm in first (as the root zone's first
		 * ZONEMD was, deliberately unverifiable), and a recipient
		 * that refused it would lose the zone. The zone is used
		 * unverified, as Unbound does (auth_zonemd_file_unknown) */
		if(verbosity >= VERB_OPS) {
			char *zn = ldns_rdf2str(apex);
			verbose(VERB_OPS, "auth zone %s: no ZONEMD with a "
				"supported scheme and hash algorithm (SIMPLE with "
				"SHA-384 or SHA-512): used unverified",
				zn ? zn : "?");
			free(zn);
		}
		*err = NULL;
		return 0;
	}
	return -1;
oom:
	if(arr) {
		for(i = 0; i < n; i++)
			if(arr[i])
				ldns_rr_free(arr[i]);
		free(arr);
	}
	if(buf)
		ldns_buffer_free(buf);
	*err = "out of memory";
	return -1;
}

/* ---------------- zones ---------------- */

/** lock helpers */
static void
z_rdlock(struct auth_zone *z)
{
#ifdef HAVE_PTHREAD
	pthread_rwlock_rdlock(&z->lock);
#else
	(void)z;
#endif
}

/** unlock */
static void
z_unlock(struct auth_zone *z)
{
#ifdef HAVE_PTHREAD
	pthread_rwlock_unlock(&z->lock);
#else
	(void)z;
#endif
}

/** writer mutex */
static void
z_wlock(struct auth_zone *z, int on)
{
#ifdef HAVE_PTHREAD
	if(on)
		pthread_mutex_lock(&z->wlock);
	else	pthread_mutex_unlock(&z->wlock);
#else
	(void)z;
	(void)on;
#endif
}

/** swap in new data (caller holds the writer mutex); frees the old */
static void
z_swap(struct auth_zone *z, struct az_data *d)
{
	struct az_data *old;
#ifdef HAVE_PTHREAD
	pthread_rwlock_wrlock(&z->lock);
#endif
	old = z->data;
	z->data = d;
	if(d)
		z->refused = 0;
#ifdef HAVE_PTHREAD
	pthread_rwlock_unlock(&z->lock);
#endif
	az_data_free(old);
}

/** print one RR as a zone file line: owner, TTL, class, type and RDATA
 * separated by tabs, hexadecimal fields in upper case (as Unbound's
 * writer, sldns, prints them; ldns prints them in lower case), a
 * DNSKEY's key tag in a comment after it.
 * @return 0 or -1 (out of memory) */
static int
z_print_rr(FILE *f, const ldns_rr *rr)
{
	char *o = ldns_rdf2str(ldns_rr_owner(rr));
	char *c = ldns_rr_class2str(ldns_rr_get_class(rr));
	char *t = ldns_rr_type2str(ldns_rr_get_type(rr));
	size_t i;
	int ret = -1;
	if(!o || !c || !t)
		goto done;
	fprintf(f, "%s\t%u\t%s\t%s\t", o, (unsigned)ldns_rr_ttl(rr), c, t);
	for(i = 0; i < ldns_rr_rd_count(rr); i++) {
		const ldns_rdf *rd = ldns_rr_rdf(rr, i);
		char *v = ldns_rdf2str(rd), *p;
		if(!v)
			goto done;
		if(ldns_rdf_get_type(rd) == LDNS_RDF_TYPE_HEX ||
			ldns_rdf_get_type(rd) == LDNS_RDF_TYPE_NSEC3_SALT ||
			ldns_rdf_get_type(rd) == LDNS_RDF_TYPE_UNKNOWN)
			for(p = v; *p; p++)
				if(*p >= 'a' && *p <= 'f')
					*p = (char)(*p - 'a' + 'A');
		fprintf(f, "%s%s", i ? " " : "", v);
		free(v);
	}
	/* a DNSKEY carries its key tag in a comment, as Unbound's */
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_DNSKEY)
		fprintf(f, " ;{id = %u}", (unsigned)ldns_calc_keytag(rr));
	fputc('\n', f);
	ret = 0;
done:
	free(o);
	free(c);
	free(t);
	return ret;
}

/** print the RRs at idx (k of them) in their arrival order (d->seq)
 * @return 0 or -1 */
static int
z_print_seq(FILE *f, const struct az_data *d, size_t *idx, size_t k)
{
	size_t i, j;
	/* insertion sort: an RRset has few records, and comes mostly in
	 * order already */
	for(i = 1; i < k; i++) {
		size_t v = idx[i];
		for(j = i; j > 0 && d->seq[idx[j - 1]] > d->seq[v]; j--)
			idx[j] = idx[j - 1];
		idx[j] = v;
	}
	for(i = 0; i < k; i++)
		if(z_print_rr(f, ldns_rr_list_rr(d->rrs, idx[i])) != 0)
			return -1;
	return 0;
}

/** print a node's RRs of type t (its RRSIGs when t is RRSIG: those whose
 * type has no RRs at the node) and, but for RRSIG, the RRSIGs covering t,
 * each part in the order the records came (as Unbound keeps an RRset)
 * @param idx: room for the node's RRs. @return 0 or -1 */
static int
z_print_rrset(FILE *f, const struct az_data *d, const struct az_node *n,
	uint16_t t, size_t *idx)
{
	size_t i, j, k = 0;
	for(i = n->first; i < n->first + n->num; i++) {
		const struct az_rrw *w = &d->w[i];
		if(w->type != t)
			continue;
		if(t == LDNS_RR_TYPE_RRSIG) {
			for(j = n->first; j < n->first + n->num; j++)
				if(d->w[j].type == w->covered &&
					w->covered != LDNS_RR_TYPE_RRSIG)
					break;
			if(j < n->first + n->num)
				continue; /* written with its RRset */
		}
		idx[k++] = i;
	}
	if(z_print_seq(f, d, idx, k) != 0)
		return -1;
	if(t == LDNS_RR_TYPE_RRSIG)
		return 0;
	k = 0;
	for(i = n->first; i < n->first + n->num; i++)
		if(d->w[i].type == LDNS_RR_TYPE_RRSIG && d->w[i].covered == t)
			idx[k++] = i;
	return z_print_seq(f, d, idx, k);
}

/**
 * Write the zone's RRs as Unbound writes a zone it transferred, so that
 * the files read the same: names in canonical order; at the apex the SOA
 * first; then each RRset in type order followed by the RRSIGs that
 * cover it; RRSIGs whose type has no RRs at the name take the RRSIG
 * type's place. @return 0 or -1
 */
static int
z_print_data(FILE *f, const struct az_data *d)
{
	size_t k, i, most = 0, *idx;
	for(k = 0; k < d->num; k++)
		if(d->nodes[k].num > most)
			most = d->nodes[k].num;
	if(!(idx = malloc((most ? most : 1) * sizeof(*idx))))
		return -1;
	for(k = 0; k < d->num; k++) {
		const struct az_node *n = &d->nodes[k];
		int apex = d->soa && ldns_dname_compare(ldns_rr_owner(d->soa),
			n->name) == 0;
		uint16_t last = 0;
		if(apex && z_print_rrset(f, d, n, LDNS_RR_TYPE_SOA, idx) != 0)
			goto fail;
		/* the node's RRs are sorted by type: each type once */
		for(i = n->first; i < n->first + n->num; i++) {
			uint16_t t = d->w[i].type;
			if((i > n->first && t == last) ||
				(apex && t == LDNS_RR_TYPE_SOA)) {
				last = t;
				continue;
			}
			last = t;
			if(z_print_rrset(f, d, n, t, idx) != 0)
				goto fail;
		}
	}
	free(idx);
	return 0;
fail:
	free(idx);
	return -1;
}

/** write the zone file atomically; @return 0 or -1 */
static int
z_write_file(struct auth_zone *z, const struct az_data *d)
{
	char tmp[1024];
	FILE *f;
	if(!z->zonefile)
		return 0;
	/* the process ID in the name: with fork, every worker process
	 * writes its copy; each rename is whole */
	snprintf(tmp, sizeof(tmp), "%s.petrel-tmp.%d", z->zonefile,
		(int)getpid());
	if(!(f = fopen(tmp, "w"))) {
		log_err("auth-zone %s: cannot write %s: %s", z->name, tmp,
			strerror(errno));
		return -1;
	}
	fprintf(f, "; auth-zone %s, serial %u, written by petrel\n", z->name,
		(unsigned)d->serial);
	if(z_print_data(f, d) != 0) {
		log_err("auth-zone %s: cannot write %s: out of memory",
			z->name, tmp);
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if(fflush(f) != 0 || fsync(fileno(f)) != 0) {
		log_err("auth-zone %s: cannot write %s: %s", z->name, tmp,
			strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	fclose(f);
	if(rename(tmp, z->zonefile) != 0) {
		log_err("auth-zone %s: cannot rename %s to %s: %s", z->name,
			tmp, z->zonefile, strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/** mark a zone without data as refused for its ZONEMD (st 1) or held
 * for its DNSKEY lookup (st 2) */
static void
z_set_refused(struct auth_zone *z, int st)
{
#ifdef HAVE_PTHREAD
	pthread_rwlock_wrlock(&z->lock);
#endif
	if(!z->data)
		z->refused = st;
#ifdef HAVE_PTHREAD
	pthread_rwlock_unlock(&z->lock);
#endif
}

/**
 * The ZONEMD check of a zone's RRs (RFC 8976 4): with a DNSSEC check and
 * a trust anchor over the zone, the ZONEMD RRset (or the proof of its
 * absence) must verify first; then the digest. A zone below its trust
 * anchor needs its DNSKEY validated through the mesh first: it is held.
 * @param z: the zone; rrs: its RRs.
 * @param why: the reason on failure; whylen its size.
 * @return 0 when the zone may be used (with zonemd-permissive-mode, a
 *	failure is logged and 0 returned), -1 when it is refused, 1 when
 *	it must be held for its DNSKEY lookup (z_hold).
 */
static int
z_zonemd(struct auth_zone *z, const ldns_rr_list *rrs, char *why,
	size_t whylen)
{
	struct auth_zones *az = z->az;
	const char *e = NULL;
	int r = AUTH_ZMD_NO_ANCHOR;
	if(!z->zonemd_check && !z->zonemd_reject_absence)
		return 0;
	why[0] = 0;
	if(az && az->dnssec && z->zonemd_check) {
		r = az->dnssec(az->dnssec_arg, rrs, z->apex, why, whylen);
		if(r == AUTH_ZMD_NEED_KEYS && az->keys_check)
			return 1;
		if(r == AUTH_ZMD_NEED_KEYS)
			r = AUTH_ZMD_UNVERIFIABLE;
		if(r == AUTH_ZMD_SECURE)
			verbose(VERB_ALGO, "auth-zone %s: the ZONEMD is "
				"DNSSEC-verified", z->name);
	}
	if(r != AUTH_ZMD_BOGUS && r != AUTH_ZMD_UNVERIFIABLE) {
		if(auth_zonemd_verify(rrs, z->apex, z->zonemd_reject_absence,
			&e) == 0)
			return 0;
		snprintf(why, whylen, "%s", e);
	} else if(!why[0])
		snprintf(why, whylen, "the ZONEMD does not verify with DNSSEC");
	if(az && az->permissive) {
		log_warnx("auth-zone %s: ZONEMD check failed (%s); the zone is "
			"used (zonemd-permissive-mode)", z->name, why);
		return 0;
	}
	return -1;
}

/** wake the worker for the lookups (caller holds lk_lock) */
static void
az_wake(struct auth_zones *az)
{
	if(az->waker)
		az->waker(az->waker_arg);
}

/**
 * Hold a zone for the validated lookup of its DNSKEY (caller holds the
 * writer mutex, or runs before the workers): the RRs (taken) replace an
 * older held copy; the old data, if any, stays in use; a worker is woken
 * to start the lookup unless one is under way already.
 */
static void
z_hold(struct auth_zone *z, ldns_rr_list *rrs, const char *from)
{
	struct auth_zones *az = z->az;
	if(z->held)
		ldns_rr_list_deep_free(z->held);
	z->held = rrs;
	snprintf(z->held_from, sizeof(z->held_from), "%s", from);
	z_set_refused(z, 2);
	verbose(VERB_OPS, "auth-zone %s: the zone from %s is held until its "
		"DNSKEY is validated from the trust anchor above it", z->name,
		from);
	lk_lock(az);
	if(z->lk_state == AZ_LK_NONE) {
		z->lk_state = AZ_LK_WANTED;
		az_wake(az);
	}
	lk_unlock(az);
}

/** drop a held copy (newer data came in; caller holds the writer
 * mutex) */
static void
z_drop_held(struct auth_zone *z)
{
	if(z->held)
		ldns_rr_list_deep_free(z->held);
	z->held = NULL;
}

/**
 * Check and build data from RRs (taken).
 * @param from: where they came from (a held zone's log lines).
 * @param zmd_fail: set to 1 when the ZONEMD check refused the zone, 2
 *	when it is held for its DNSKEY lookup (z_hold; NULL is returned).
 * @return data or NULL with the reason in why.
 */
static struct az_data *
z_build(struct auth_zone *z, ldns_rr_list *rrs, const char *from,
	int *zmd_fail, char *why, size_t whylen)
{
	const char *e = NULL;
	struct az_data *d;
	int r;
	*zmd_fail = 0;
	if((r = z_zonemd(z, rrs, why, whylen)) != 0) {
		if(r == 1) {
			*zmd_fail = 2;
			z_hold(z, rrs, from);
			return NULL;
		}
		*zmd_fail = 1;
		ldns_rr_list_deep_free(rrs);
		return NULL;
	}
	if(!(d = az_data_build(rrs, z->apex, &e)))
		snprintf(why, whylen, "%s", e ? e : "out of memory");
	return d;
}

/** most levels of $INCLUDE in a zone file */
#define AZ_MAX_INCLUDE 10

/** a growing text buffer (the zone file with its includes) */
struct az_text {
	/** the text (malloced) */
	char *s;
	/** used, capacity */
	size_t n, cap;
};

/** append len bytes. @return 0 or -1 (out of memory) */
static int
az_text_add(struct az_text *t, const char *s, size_t len)
{
	if(t->n + len + 1 > t->cap) {
		size_t nc = t->cap ? t->cap * 2 : 4096;
		char *ns;
		while(nc < t->n + len + 1)
			nc *= 2;
		if(!(ns = realloc(t->s, nc)))
			return -1;
		t->s = ns;
		t->cap = nc;
	}
	memcpy(t->s + t->n, s, len);
	t->n += len;
	t->s[t->n] = 0;
	return 0;
}

/** the next word of a directive line (a quoted one without its quotes)
 * into w (wlen its size). @return the rest of the line, or NULL when
 * there is no word */
static const char *
az_word(const char *p, char *w, size_t wlen)
{
	size_t n = 0;
	while(*p == ' ' || *p == '\t')
		p++;
	if(!*p || *p == ';' || *p == '\n' || *p == '\r')
		return NULL;
	if(*p == '"') {
		p++;
		while(*p && *p != '"' && n + 1 < wlen)
			w[n++] = *p++;
		if(*p == '"')
			p++;
	} else {
		while(*p && *p != ' ' && *p != '\t' && *p != ';' &&
			*p != '\n' && *p != '\r' && n + 1 < wlen)
			w[n++] = *p++;
	}
	w[n] = 0;
	return p;
}

/** a $ORIGIN value made absolute against the current origin (o) */
static void
az_origin_abs(const char *val, const char *cur, char *o, size_t olen)
{
	size_t l = strlen(val);
	if(l && val[l - 1] == '.')
		snprintf(o, olen, "%s", val);
	else if(strcmp(cur, ".") == 0)
		snprintf(o, olen, "%s.", val);
	else	snprintf(o, olen, "%s.%s", val, cur);
}

/**
 * Read a zone file into t with its $INCLUDE lines replaced by the files
 * they name (RFC 1035 section 5.1: "$INCLUDE <file> [<origin>]"), each
 * between a $ORIGIN line for its origin (the one given, else the
 * including file's current one) and one that restores the including
 * file's. A relative name is opened as given (from the working
 * directory, as Unbound does) and, when not found there, from the folder
 * of the including file.
 * @param origin: in/out the current origin, absolute text.
 * @param found: set to 1 when a $INCLUDE was seen.
 * @return 0, or -1 with err.
 */
static int
az_read_text(const char *path, struct az_text *t, char *origin,
	size_t originlen, int depth, int *found, char *err, size_t errlen)
{
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int lineno = 0, paren = 0;
	if(depth > AZ_MAX_INCLUDE) {
		snprintf(err, errlen, "%s: $INCLUDE nested more than %d deep",
			path, AZ_MAX_INCLUDE);
		return -1;
	}
	if(!(f = fopen(path, "r"))) {
		snprintf(err, errlen, "cannot read %s: %s", path,
			strerror(errno));
		return -1;
	}
	while((len = getline(&line, &cap, f)) != -1) {
		char w[1024], o[1024], inc[4096], saved[1024];
		const char *p;
		int i;
		lineno++;
		if(paren == 0 && strncasecmp(line, "$ORIGIN", 7) == 0 &&
			(line[7] == ' ' || line[7] == '\t') &&
			az_word(line + 7, w, sizeof(w))) {
			az_origin_abs(w, origin, o, sizeof(o));
			snprintf(origin, originlen, "%s", o);
		} else if(paren == 0 && strncasecmp(line, "$INCLUDE", 8) == 0 &&
			(line[8] == ' ' || line[8] == '\t')) {
			int r;
			*found = 1;
			if(!(p = az_word(line + 8, w, sizeof(w)))) {
				snprintf(err, errlen, "%s:%d: $INCLUDE without "
					"a file", path, lineno);
				goto fail;
			}
			snprintf(saved, sizeof(saved), "%s", origin);
			if(az_word(p, o, sizeof(o)))
				az_origin_abs(o, saved, origin, originlen);
			snprintf(inc, sizeof(inc), "%s", w);
			if(w[0] != '/' && access(w, R_OK) != 0 &&
				strrchr(path, '/'))
				snprintf(inc, sizeof(inc), "%.*s/%s",
					(int)(strrchr(path, '/') - path), path,
					w);
			if(az_text_add(t, "$ORIGIN ", 8) != 0 ||
				az_text_add(t, origin, strlen(origin)) != 0 ||
				az_text_add(t, "\n", 1) != 0)
				goto oom;
			r = az_read_text(inc, t, origin, originlen, depth + 1,
				found, err, errlen);
			snprintf(origin, originlen, "%s", saved);
			if(r != 0) {
				size_t el = strlen(err);
				snprintf(err + el, errlen - el,
					" (the $INCLUDE at %s:%d)", path,
					lineno);
				goto fail;
			}
			if(az_text_add(t, "\n$ORIGIN ", 9) != 0 ||
				az_text_add(t, origin, strlen(origin)) != 0 ||
				az_text_add(t, "\n", 1) != 0)
				goto oom;
			continue;
		}
		/* the parentheses of a record over several lines (a
		 * directive inside one is not a directive) */
		for(i = 0; i < len && line[i] != ';'; i++) {
			if(line[i] == '"') {
				for(i++; i < len && line[i] != '"'; i++)
					if(line[i] == '\\' && i + 1 < len)
						i++;
			} else if(line[i] == '(')
				paren++;
			else if(line[i] == ')' && paren > 0)
				paren--;
		}
		if(az_text_add(t, line, (size_t)len) != 0)
			goto oom;
		if(len > 0 && line[len - 1] != '\n' &&
			az_text_add(t, "\n", 1) != 0)
			goto oom;
	}
	free(line);
	fclose(f);
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	free(line);
	fclose(f);
	return -1;
}

/**
 * Drop the records of a zone file that are not in the zone (Unbound skips
 * them too: a file may carry glue or stray data), with one warning line
 * for the first few.
 */
static void
az_drop_outside(const struct auth_zone *z, ldns_rr_list *rrs,
	const char *file)
{
	size_t i, k = 0, n = ldns_rr_list_rr_count(rrs), dropped = 0;
	for(i = 0; i < n; i++) {
		ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		if(ldns_dname_compare(ldns_rr_owner(rr), z->apex) == 0 ||
			ldns_dname_is_subdomain(ldns_rr_owner(rr), z->apex)) {
			ldns_rr_list_set_rr(rrs, rr, k++);
			continue;
		}
		if(dropped++ < 3) {
			char *o = ldns_rdf2str(ldns_rr_owner(rr));
			log_warnx("auth-zone %s: %s: a record of %s, outside "
				"the zone, is skipped", z->name, file,
				o ? o : "?");
			free(o);
		}
		ldns_rr_free(rr);
	}
	ldns_rr_list_set_rr_count(rrs, k);
	if(dropped > 3)
		log_warnx("auth-zone %s: %s: %u records outside the zone "
			"skipped in all", z->name, file, (unsigned)dropped);
}

/**
 * Read the zone file.
 * @param at_start: 1 at start-up: a zone that fails its ZONEMD check is
 *	logged and left without data (refused), not an error.
 * @return 0 (data set, or no file, or refused at start), -1 with err
 */
static int
z_read_file(struct auth_zone *z, int missing_ok, int at_start, time_t *age,
	char *err, size_t errlen)
{
	FILE *f;
	ldns_zone *lz = NULL;
	ldns_rr_list *rrs;
	ldns_status st;
	struct az_data *d;
	struct stat sb;
	char why[256];
	int line = 0, zmd_fail = 0;
	if(!z->zonefile)
		return 0;
	if(!(f = fopen(z->zonefile, "r"))) {
		if(errno == ENOENT && missing_ok)
			return 0;
		snprintf(err, errlen, "auth-zone '%s': cannot read zonefile "
			"%s: %s", z->name, z->zonefile, strerror(errno));
		return -1;
	}
	if(age) {
		*age = 0;
		if(fstat(fileno(f), &sb) == 0 && sb.st_mtime < time(NULL))
			*age = time(NULL) - sb.st_mtime;
	}
	{
		/* with $INCLUDE lines, the text with the included files
		 * is read instead (line numbers then count in it) */
		struct az_text t;
		char origin[1024];
		int found = 0;
		memset(&t, 0, sizeof(t));
		char *an = ldns_rdf2str(z->apex);
		snprintf(origin, sizeof(origin), "%s", an ? an : ".");
		free(an);
		if(az_read_text(z->zonefile, &t, origin, sizeof(origin), 0,
			&found, why, sizeof(why)) != 0) {
			fclose(f);
			free(t.s);
			snprintf(err, errlen, "auth-zone '%s': %s", z->name,
				why);
			return -1;
		}
		if(found) {
			FILE *mf = fmemopen(t.s, t.n, "r");
			if(!mf) {
				fclose(f);
				free(t.s);
				snprintf(err, errlen, "auth-zone '%s': %s: %s",
					z->name, z->zonefile, strerror(errno));
				return -1;
			}
			st = ldns_zone_new_frm_fp_l(&lz, mf, z->apex, 3600,
				LDNS_RR_CLASS_IN, &line);
			fclose(mf);
		} else
			st = ldns_zone_new_frm_fp_l(&lz, f, z->apex, 3600,
				LDNS_RR_CLASS_IN, &line);
		free(t.s);
	}
	fclose(f);
	if(st != LDNS_STATUS_OK) {
		snprintf(err, errlen, "auth-zone '%s': %s:%d: %s", z->name,
			z->zonefile, line, ldns_get_errorstr_by_id(st));
		return -1;
	}
	if(missing_ok && !ldns_zone_soa(lz) &&
		ldns_rr_list_rr_count(ldns_zone_rrs(lz)) == 0) {
		/* an empty file of a zone that is transferred: no data
		 * yet, as when it is missing (Unbound's zonefile: written
		 * before the first transfer) */
		ldns_zone_deep_free(lz);
		return 0;
	}
	/* the SOA is kept apart by ldns: put it with the others (a file
	 * without one is used as Unbound uses it: served, without the
	 * SOA in negative answers, and not transferred again) */
	rrs = ldns_rr_list_clone(ldns_zone_rrs(lz));
	if(!rrs || (ldns_zone_soa(lz) && !ldns_rr_list_push_rr(rrs,
		ldns_rr_clone(ldns_zone_soa(lz))))) {
		if(rrs)
			ldns_rr_list_deep_free(rrs);
		snprintf(err, errlen, "auth-zone '%s': %s: out of memory",
			z->name, z->zonefile);
		ldns_zone_deep_free(lz);
		return -1;
	}
	ldns_zone_deep_free(lz);
	az_drop_outside(z, rrs, z->zonefile);
	if(!(d = z_build(z, rrs, z->zonefile, &zmd_fail, why, sizeof(why)))) {
		if(zmd_fail == 2)
			return 0;
		if(zmd_fail && at_start) {
			log_err("auth-zone %s: the zone from %s is refused, not "
				"used: %s", z->name, z->zonefile, why);
			z_set_refused(z, 1);
			return 0;
		}
		snprintf(err, errlen, "auth-zone '%s': %s: %s", z->name,
			z->zonefile, why);
		return -1;
	}
	if(!d->soa)
		log_warnx("auth-zone %s: %s has no SOA at the apex: the zone "
			"is served without (no SOA in negative answers)",
			z->name, z->zonefile);
	z_swap(z, d);
	z_drop_held(z);
	return 0;
}

/** a list of the data's RRs in their arrival order: a view (free it
 * with ldns_rr_list_free, not deep), or NULL (out of memory) */
static ldns_rr_list *
az_arrival_list(const struct az_data *d)
{
	size_t i, n = ldns_rr_list_rr_count(d->rrs);
	ldns_rr_list *l = ldns_rr_list_new();
	for(i = 0; l && i < n; i++)
		if(!ldns_rr_list_push_rr(l, d->arrival[i])) {
			ldns_rr_list_free(l);
			return NULL;
		}
	return l;
}

/** the transfer callback (on the transfer thread) */
static int
z_xfr_cb(void *arg, struct xfr_result *res)
{
	struct auth_zone *z = arg;
	struct az_data *d = NULL;
	const char *e = NULL;
	char why[256];
	int zmd_fail = 0;
	ldns_rr_list *rrs = NULL;
	why[0] = 0;
	z_wlock(z, 1);
	if(res->kind == XFR_EXPIRED) {
		z_swap(z, NULL);
		z_wlock(z, 0);
		return 0;
	}
	if(res->kind == XFR_FULL) {
		rrs = res->full;
		res->full = NULL;
	} else {
		if(!z->data && !z->held) {
			z_wlock(z, 0);
			return -1;
		}
		/* the differences follow the newest copy: a held one; the
		 * data's RRs in the order they came */
		ldns_rr_list *base = z->held;
		if(!base && !(base = az_arrival_list(z->data)))
			e = "out of memory";
		if(base && !(rrs = xfr_apply(base, res, &e)))
			snprintf(why, sizeof(why), "%s", e ? e :
				"out of memory");
		else if(!base)
			snprintf(why, sizeof(why), "%s", e);
		if(base && base != z->held)
			ldns_rr_list_free(base); /* the view, not the RRs */
	}
	if(rrs)
		d = z_build(z, rrs, res->from, &zmd_fail, why, sizeof(why));
	if(!d && zmd_fail == 2) {
		/* held: taken (the task keeps the serial); a refusal later
		 * sets the task back (xfr_task_retry) */
		z_wlock(z, 0);
		return 0;
	}
	if(!d) {
		log_err("auth-zone %s: the zone from %s is refused: %s",
			z->name, res->from, why[0] ? why : "out of memory");
		if(zmd_fail)
			z_set_refused(z, 1);
		z_wlock(z, 0);
		return -1;
	}
	(void)z_write_file(z, d);
	z_swap(z, d);
	z_drop_held(z);
	z_wlock(z, 0);
	return 0;
}

/** the SOA retry of a held copy, clamped to 1 s .. 1 h */
static uint32_t
z_held_retry(const ldns_rr_list *rrs)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(rrs); i++) {
		const ldns_rr *rr = ldns_rr_list_rr(rrs, i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA &&
			ldns_rr_rd_count(rr) == 7) {
			uint32_t v = ldns_rdf2native_int32(ldns_rr_rdf(rr, 4));
			return v < 1 ? 1 : (v > 3600 ? 3600 : v);
		}
	}
	return 600;
}

/** a held zone's lookup again, after a failed one (on the transfer
 * thread) */
static void
z_relookup(void *arg)
{
	struct auth_zone *z = arg;
	z_wlock(z, 1);
	lk_lock(z->az);
	if(z->held && z->lk_state == AZ_LK_NONE) {
		z->lk_state = AZ_LK_WANTED;
		az_wake(z->az);
	}
	lk_unlock(z->az);
	z_wlock(z, 0);
}

static void z_finish(void *arg);

/** a lookup that did not come back in time counts as failed (on the
 * transfer thread) */
static void
z_lookup_timeout(void *arg)
{
	struct auth_zone *z = arg;
	int late;
	lk_lock(z->az);
	late = (z->lk_state == AZ_LK_STARTED && time(NULL) >=
		z->lk_deadline);
	if(late) {
		z->lk_state = AZ_LK_ANSWERED;
		z->lk_res = AUTH_KEYS_FAILED;
		z->lk_n = 0;
	}
	lk_unlock(z->az);
	if(late)
		z_finish(z);
}

/**
 * The rest of a held zone's check, with the result of its DNSKEY lookup
 * (a job on the transfer thread, posted by auth_zones_keys_answer): the
 * zone's DNSKEY set must be the validated one and sign the ZONEMD (or
 * the lookup proved the zone insecure), then the digest; the zone is
 * used, or refused and transferred again at the retry timer.
 */
static void
z_finish(void *arg)
{
	struct auth_zone *z = arg;
	struct auth_zones *az = z->az;
	const uint8_t *key[AZ_MAX_KEYS];
	uint16_t keylen[AZ_MAX_KEYS];
	uint8_t *keys;
	size_t n, i, off;
	int res, r, have = 0, ok = 0;
	uint32_t serial = 0;
	const char *e = NULL;
	char why[256];
	struct az_data *d;
	ldns_rr_list *rrs;
	z_wlock(z, 1);
	lk_lock(az);
	if(z->lk_state != AZ_LK_ANSWERED) {
		lk_unlock(az);
		z_wlock(z, 0);
		return;
	}
	res = z->lk_res;
	keys = z->lk_keys;
	n = z->lk_n;
	memcpy(keylen, z->lk_len, sizeof(keylen));
	z->lk_keys = NULL;
	z->lk_n = 0;
	z->lk_state = AZ_LK_NONE;
	lk_unlock(az);
	if(!(rrs = z->held)) {
		/* newer data came in meanwhile */
		free(keys);
		z_wlock(z, 0);
		return;
	}
	z->held = NULL;
	for(i = 0, off = 0; i < n; i++) {
		key[i] = keys + off;
		off += keylen[i];
	}
	why[0] = 0;
	if(res == AUTH_KEYS_FAILED && !az->permissive) {
		/* no answer to judge by: keep the copy held, look again
		 * at its SOA retry timer */
		uint32_t retry = z_held_retry(rrs);
		z->held = rrs;
		free(keys);
		log_warnx("auth-zone %s: the lookup of its DNSKEY through the "
			"validator failed; the zone from %s stays held, looked "
			"up again in %u s", z->name, z->held_from,
			(unsigned)retry);
		if(!az->xs || xfr_service_post_at(az->xs, z_relookup, z,
			time(NULL) + (time_t)retry) != 0)
			log_err("auth-zone %s: cannot schedule the lookup",
				z->name);
		z_wlock(z, 0);
		return;
	}
	switch(res) {
	case AUTH_KEYS_SECURE:
		r = az->keys_check(az->dnssec_arg, rrs, z->apex, key, keylen,
			n, why, sizeof(why));
		if(r == AUTH_ZMD_SECURE)
			verbose(VERB_ALGO, "auth-zone %s: the ZONEMD is "
				"DNSSEC-verified with the validated DNSKEY",
				z->name);
		ok = (r == AUTH_ZMD_SECURE);
		if(!ok && !why[0])
			snprintf(why, sizeof(why), "the ZONEMD does not verify "
				"with the validated DNSKEY");
		break;
	case AUTH_KEYS_INSECURE:
		verbose(VERB_ALGO, "auth-zone %s: the validator proves the "
			"zone insecure: the ZONEMD digest alone", z->name);
		ok = 1;
		break;
	case AUTH_KEYS_BOGUS:
		snprintf(why, sizeof(why), "the lookup of its DNSKEY through "
			"the validator is bogus");
		break;
	default:
		snprintf(why, sizeof(why), "the lookup of its DNSKEY through "
			"the validator failed");
		break;
	}
	free(keys);
	if(ok) {
		if(auth_zonemd_verify(rrs, z->apex, z->zonemd_reject_absence,
			&e) != 0) {
			snprintf(why, sizeof(why), "%s", e);
			ok = 0;
		}
	}
	if(!ok && az->permissive) {
		log_warnx("auth-zone %s: ZONEMD check failed (%s); the zone is "
			"used (zonemd-permissive-mode)", z->name, why);
		ok = 1;
	}
	if(ok) {
		if(!(d = az_data_build(rrs, z->apex, &e))) {
			log_err("auth-zone %s: the zone from %s is refused: %s",
				z->name, z->held_from, e ? e : "out of memory");
			ok = 0;
		} else {
			verbose(VERB_OPS, "auth-zone %s: serial %u from %s is "
				"verified and used", z->name,
				(unsigned)d->serial, z->held_from);
			(void)z_write_file(z, d);
			z_swap(z, d);
			z_wlock(z, 0);
			return;
		}
	} else {
		log_err("auth-zone %s: the zone from %s is refused, not used: "
			"%s", z->name, z->held_from, why);
		ldns_rr_list_deep_free(rrs);
	}
	z_set_refused(z, 1);
	if(z->data) {
		have = 1;
		serial = z->data->serial;
	}
	if(z->task)
		xfr_task_retry(z->task, have, serial);
	z_wlock(z, 0);
}

/** free a zone */
static void
z_free(struct auth_zone *z)
{
	if(!z)
		return;
	az_data_free(z->data);
	if(z->held)
		ldns_rr_list_deep_free(z->held);
	free(z->lk_keys);
	if(z->apex)
		ldns_rdf_deep_free(z->apex);
#ifdef HAVE_PTHREAD
	pthread_rwlock_destroy(&z->lock);
	pthread_mutex_destroy(&z->wlock);
#endif
	free(z->name);
	free(z->zonefile);
	free(z->notify);
	free(z->prim);
	free(z->hosts);
	free(z->url);
	free(z);
}

/** add a host name to look up (z->hosts has room). @return 0 or -1 */
static int
z_add_host(struct auth_zone *z, const char *name, int port,
	const struct xfr_tsig_key *key, int notify)
{
	struct az_host *h = &z->hosts[z->num_hosts];
	size_t l = sizeof(h->wire);
	if(dname_from_str(name, h->wire, &l) != 0)
		return -1;
	dname_tolower(h->wire);
	h->port = port;
	h->key = key;
	h->notify = notify;
	h->st[0] = h->st[1] = AZ_H_WANTED;
	z->num_hosts++;
	if(!notify)
		z->num_host_prim++;
	return 0;
}

/** make a zone from its clause; @return it or NULL with err */
static struct auth_zone *
z_create(struct auth_zones *az, const struct config_auth *c,
	const struct config_tsig *keys, char *err, size_t errlen)
{
	struct auth_zone *z = calloc(1, sizeof(*z));
	const struct config_auth_primary *p;
	const struct config_auth_notify *e;
	const struct config_auth_url *u;
	size_t l = sizeof(z->apex_wire), n;
	if(!z)
		goto oom;
#ifdef HAVE_PTHREAD
	pthread_rwlock_init(&z->lock, NULL);
	pthread_mutex_init(&z->wlock, NULL);
#endif
	z->az = az;
	if(!(z->name = strdup(c->name)))
		goto oom;
	if(ldns_str2rdf_dname(&z->apex, c->name) != LDNS_STATUS_OK ||
		dname_from_str(c->name, z->apex_wire, &l) != 0) {
		snprintf(err, errlen, "auth-zone '%s': a bad name", c->name);
		z_free(z);
		return NULL;
	}
	ldns_dname2canonical(z->apex);
	dname_tolower(z->apex_wire);
	z->for_downstream = c->for_downstream;
	z->for_upstream = c->for_upstream;
	z->fallback = c->fallback_enabled;
	z->zonemd_check = c->zonemd_check;
	z->zonemd_reject_absence = c->zonemd_reject_absence;
	if(c->zonefile && !(z->zonefile = strdup(c->zonefile)))
		goto oom;
	for(n = 0, e = c->notify; e; e = e->next)
		n++;
	for(p = c->primaries; p; p = p->next)
		n++; /* room for the host names of both */
	if(n && !(z->hosts = calloc(n, sizeof(*z->hosts))))
		goto oom;
	for(n = 0, e = c->notify; e; e = e->next)
		if(!e->host)
			n++;
	if(n && !(z->notify = calloc(n, sizeof(*z->notify))))
		goto oom;
	for(n = 0, e = c->notify; e; e = e->next)
		if(!e->host)
			z->notify[n++] = e->block;
		else if(z_add_host(z, e->host, 53, NULL, 1) != 0)
			goto badhost;
	z->num_notify = n;
	for(n = 0, p = c->primaries; p; p = p->next)
		if(!p->host)
			n++;
	if(n && !(z->prim = calloc(n, sizeof(*z->prim))))
		goto oom;
	for(n = 0, p = c->primaries; p; p = p->next) {
		const struct xfr_tsig_key *key = NULL;
		if(p->tsig) {
			const struct config_tsig *t;
			size_t i = 0;
			for(t = keys; t; t = t->next, i++)
				if(t->name && strcasecmp(t->name, p->tsig) == 0)
					break;
			if(!t || i >= az->num_keys) {
				snprintf(err, errlen, "auth-zone '%s': no "
					"tsig-key '%s'", c->name, p->tsig);
				z_free(z);
				return NULL;
			}
			key = &az->keys[i];
		}
		if(p->host) {
			if(z_add_host(z, p->host, p->port, key, 0) != 0)
				goto badhost;
			continue;
		}
		z->prim[n].addr = p->addr;
		z->prim[n].key = key;
		n++;
	}
	z->num_prim = n;
	if(z->num_hosts)
		az->any_host = 1;
	for(n = 0, u = c->urls; u; u = u->next)
		n++;
	if(n && !(z->url = calloc(n, sizeof(*z->url))))
		goto oom;
	for(n = 0, u = c->urls; u; u = u->next)
		z->url[n++] = u->url;
	z->num_url = n;
	return z;
badhost:
	snprintf(err, errlen, "auth-zone '%s': a bad host name", c->name);
	z_free(z);
	return NULL;
oom:
	snprintf(err, errlen, "auth-zone '%s': out of memory", c->name);
	z_free(z);
	return NULL;
}

struct auth_zones *
auth_zones_create(const struct config_file *cfg, int *ok, char *err,
	size_t errlen)
{
	return auth_zones_create_dnssec(cfg, NULL, NULL, NULL, ok, err,
		errlen);
}

/**
 * The auth zones the rpz: clauses with for-downstream: yes ask for: the
 * RPZ zone itself answered to clients (as Unbound): from its zonefile:,
 * or, with primary: or url: lines, transferred by the zone's own task
 * (the zonefile: is then the policy's to write, and not used here; a
 * NOTIFY the policy takes is passed on, front/resolver.c).
 * @param out: the list (config_auth_free), NULL when none.
 * @return 0, or -1 (err: a bad line, or an auth-zone: of the same name).
 */
static int
az_rpz_downstream(const struct config_file *cfg, struct config_auth **out,
	char *err, size_t errlen)
{
	const struct config_policyline *l, *m;
	struct config_auth **tail = out;
	*out = NULL;
	for(l = cfg->policy_lines; l; l = l->next) {
		struct config_auth *a;
		const struct config_auth *c;
		char e[256];
		int xfr = 0;
		if(l->clause != CLAUSE_RPZ || strcmp(l->key, "for-downstream")
			!= 0 || l->n != 1 || strcasecmp(l->v[0], "yes") != 0)
			continue;
		if(!(a = calloc(1, sizeof(*a)))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		*tail = a;
		tail = &a->next;
		a->line = l->line;
		a->for_downstream = 1;
		for(m = cfg->policy_lines; m; m = m->next)
			if(m->clause == CLAUSE_RPZ && m->block == l->block &&
				(strcmp(m->key, "primary") == 0 ||
				strcmp(m->key, "master") == 0 ||
				strcmp(m->key, "url") == 0))
				xfr = 1;
		for(m = cfg->policy_lines; m; m = m->next) {
			if(m->clause != CLAUSE_RPZ || m->block != l->block ||
				(strcmp(m->key, "name") != 0 &&
				(xfr || strcmp(m->key, "zonefile") != 0) &&
				(!xfr || (strcmp(m->key, "primary") != 0 &&
				strcmp(m->key, "master") != 0 &&
				strcmp(m->key, "url") != 0 &&
				strcmp(m->key, "allow-notify") != 0))))
				continue;
			if(config_auth_set(a, m->key, m->v, m->n, e,
				sizeof(e)) != 0) {
				snprintf(err, errlen, "%s:%d: rpz "
					"for-downstream: %s", m->file ?
					m->file : "", m->line, e);
				return -1;
			}
		}
		if(!a->name || (!a->zonefile && !xfr)) {
			snprintf(err, errlen, "%s:%d: rpz for-downstream: yes "
				"needs the clause's name: and zonefile:",
				l->file ? l->file : "", l->line);
			return -1;
		}
		for(c = cfg->auths; c; c = c->next)
			if(strcasecmp(c->name, a->name) == 0) {
				snprintf(err, errlen, "%s:%d: rpz '%s' "
					"for-downstream: an auth-zone: of that "
					"name is defined too", l->file ?
					l->file : "", l->line, a->name);
				return -1;
			}
	}
	return 0;
}

struct auth_zones *
auth_zones_create_dnssec(const struct config_file *cfg,
	auth_zonemd_dnssec_func dnssec, auth_zonemd_keys_func keys, void *arg,
	int *ok, char *err, size_t errlen)
{
	struct auth_zones *az;
	const struct config_auth *c;
	const struct config_tsig *t;
	struct config_auth *rpzd = NULL;
	size_t n = 0, i;
	int pass;
	*ok = 0;
	if(az_rpz_downstream(cfg, &rpzd, err, errlen) != 0) {
		config_auth_free(rpzd);
		return NULL;
	}
	for(c = cfg->auths; c; c = c->next)
		n++;
	for(c = rpzd; c; c = c->next)
		n++;
	if(n == 0) {
		*ok = 1;
		return NULL;
	}
	if(!(az = calloc(1, sizeof(*az))) || !(az->z = calloc(n,
		sizeof(*az->z)))) {
		free(az);
		config_auth_free(rpzd);
		snprintf(err, errlen, "auth-zone: out of memory");
		return NULL;
	}
	az->dnssec = dnssec;
	az->dnssec_arg = arg;
	az->keys_check = dnssec ? keys : NULL;
	az->permissive = cfg->zonemd_permissive_mode;
#ifdef HAVE_PTHREAD
	pthread_mutex_init(&az->lk_lock, NULL);
#endif
	for(t = cfg->tsig_keys; t; t = t->next)
		az->num_keys++;
	if(az->num_keys && !(az->keys = calloc(az->num_keys,
		sizeof(*az->keys)))) {
		snprintf(err, errlen, "tsig-key: out of memory");
		goto fail;
	}
	for(i = 0, t = cfg->tsig_keys; t; t = t->next, i++)
		if(xfr_tsig_key_init(&az->keys[i], t->name, t->algorithm,
			t->secret) != 0) {
			snprintf(err, errlen, "tsig-key '%s': a bad name, "
				"algorithm or secret", t->name);
			goto fail;
		}
	/* the auth-zone: clauses, then the rpz zones for-downstream */
	for(pass = 0, c = cfg->auths; pass < 2; pass++, c = rpzd)
	for(; c; c = c->next) {
		struct auth_zone *z = z_create(az, c, cfg->tsig_keys, err,
			errlen);
		time_t age = 0;
		if(!z)
			goto fail;
		az->z[az->num++] = z;
		if(z->for_upstream)
			az->any_up = 1;
		if(z->for_downstream)
			az->any_down = 1;
		if(z->zonemd_check && az->keys_check && !az->any_chain) {
			az->any_chain = 1;
#ifdef HAVE_PTHREAD
			/* the rest of a held zone's check runs on the
			 * transfer thread: zones without primaries get the
			 * service too (with no tasks) */
			if(!az->xs && !(az->xs = xfr_service_create())) {
				snprintf(err, errlen, "auth-zone: out of "
					"memory");
				goto fail;
			}
#endif
		}
		if(z_read_file(z, z->num_prim > 0 || z->num_url > 0 ||
			z->num_host_prim > 0, 1, &age, err, errlen) != 0)
			goto fail;
		if(z->data)
			verbose(VERB_OPS, "auth-zone %s: serial %u from %s",
				z->name, (unsigned)z->data->serial,
				z->zonefile);
		if(z->num_prim || z->num_url || z->num_host_prim) {
			char why[512];
			const char *ca = config_tls_cert_bundle(cfg);
			if(!az->xs && !(az->xs = xfr_service_create())) {
				snprintf(err, errlen, "auth-zone: out of "
					"memory");
				goto fail;
			}
			if(!(z->task = xfr_task_create(az->xs, z->name,
				z->prim, z->num_prim, z_xfr_cb, z))) {
				snprintf(err, errlen, "auth-zone '%s': out of "
					"memory", z->name);
				goto fail;
			}
			if(xfr_task_set_urls(z->task, z->url, z->num_url, ca,
				why, sizeof(why)) != 0) {
				snprintf(err, errlen, "auth-zone '%s': url: %s",
					z->name, why);
				goto fail;
			}
			if(z->data && z->data->soa) {
				const ldns_rr *s = z->data->soa;
				xfr_task_set_serial(z->task, z->data->serial,
					ldns_rdf2native_int32(ldns_rr_rdf(s,
					3)), ldns_rdf2native_int32(
					ldns_rr_rdf(s, 4)),
					ldns_rdf2native_int32(ldns_rr_rdf(s,
					5)), age);
			}
		}
	}
	config_auth_free(rpzd);
	*ok = 1;
	return az;
fail:
	config_auth_free(rpzd);
	auth_zones_delete(az);
	return NULL;
}

/** @return 1 when a host name of the zone wants a lookup (caller holds
 * lk_lock) */
static int
z_host_wanted(const struct auth_zone *z)
{
	size_t i;
	for(i = 0; i < z->num_hosts; i++)
		if(z->hosts[i].st[0] == AZ_H_WANTED ||
			z->hosts[i].st[1] == AZ_H_WANTED)
			return 1;
	return 0;
}

/** on the transfer thread: hand the primaries' new addresses to the
 * task (it may transfer from them now) */
static void
z_host_prims(void *arg)
{
	struct auth_zone *z = arg;
	struct xfr_primary p[AZ_MAX_HOST_ADDRS];
	size_t n, i;
	lk_lock(z->az);
	n = z->num_host_new;
	memcpy(p, z->host_new, n * sizeof(*p));
	z->num_host_new = 0;
	lk_unlock(z->az);
	for(i = 0; i < n && z->task; i++)
		(void)xfr_task_add_primary(z->task, &p[i]);
}

/** on the transfer thread: the failed host name lookups of a zone are
 * wanted again */
static void
z_host_retry(void *arg)
{
	struct auth_zone *z = arg;
	size_t i;
	int t, any = 0;
	lk_lock(z->az);
	for(i = 0; i < z->num_hosts; i++)
		for(t = 0; t < 2; t++)
			if(z->hosts[i].st[t] == AZ_H_DONE &&
				z->hosts[i].failed[t]) {
				z->hosts[i].st[t] = AZ_H_WANTED;
				z->hosts[i].failed[t] = 0;
				any = 1;
			}
	if(any)
		az_wake(z->az);
	lk_unlock(z->az);
}

void
auth_zones_start_host_lookups(struct auth_zones *az,
	int (*start)(void *arg, const uint8_t *name, uint16_t qtype),
	void *arg)
{
	size_t i, j;
	int t;
	if(!az || !az->any_host)
		return;
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		for(j = 0; j < z->num_hosts; j++)
			for(t = 0; t < 2; t++) {
				uint16_t qt = t ? DNS_TYPE_AAAA : DNS_TYPE_A;
				int go;
				lk_lock(az);
				go = z->hosts[j].st[t] == AZ_H_WANTED;
				if(go)
					z->hosts[j].st[t] = AZ_H_STARTED;
				lk_unlock(az);
				/* unlocked: the lookup may finish at once,
				 * in auth_zones_host_answer */
				if(go && start(arg, z->hosts[j].wire, qt) != 0)
					auth_zones_host_answer(az,
						z->hosts[j].wire, qt, 0, NULL,
						0);
			}
	}
}

int
auth_zones_wants_host(struct auth_zones *az, const uint8_t *qname,
	uint16_t qtype)
{
	size_t i, j;
	int t = qtype == DNS_TYPE_AAAA, r = 0;
	if(!az || !az->any_host || (qtype != DNS_TYPE_A &&
		qtype != DNS_TYPE_AAAA))
		return 0;
	lk_lock(az);
	for(i = 0; i < az->num && !r; i++)
		for(j = 0; j < az->z[i]->num_hosts && !r; j++)
			if(az->z[i]->hosts[j].st[t] == AZ_H_STARTED &&
				dname_equal(az->z[i]->hosts[j].wire, qname))
				r = 1;
	lk_unlock(az);
	return r;
}

void
auth_zones_host_answer(struct auth_zones *az, const uint8_t *qname,
	uint16_t qtype, int ok, const struct netaddr *addrs, size_t n)
{
	size_t i, j, k;
	int t = qtype == DNS_TYPE_AAAA;
	char nm[256];
	if(!az || !az->any_host)
		return;
	if(dname_to_str(qname, nm, sizeof(nm)) < 0)
		snprintf(nm, sizeof(nm), "?");
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		int prims = 0, retry = 0;
		lk_lock(az);
		for(j = 0; j < z->num_hosts; j++) {
			struct az_host *h = &z->hosts[j];
			if(h->st[t] != AZ_H_STARTED ||
				!dname_equal(h->wire, qname))
				continue;
			h->st[t] = AZ_H_DONE;
			h->failed[t] = !ok;
			retry |= !ok;
			for(k = 0; ok && k < n; k++) {
				struct netaddr a = addrs[k];
				size_t m;
				netaddr_set_port(&a, h->port);
				for(m = 0; m < z->num_host_addrs; m++)
					if(netaddr_cmp_addr(&z->host_addrs[m],
						&a) == 0)
						break;
				if(m == z->num_host_addrs && m <
					AZ_MAX_HOST_ADDRS)
					z->host_addrs[z->num_host_addrs++] = a;
				if(h->notify || z->num_host_new >=
					AZ_MAX_HOST_ADDRS)
					continue;
				z->host_new[z->num_host_new].addr = a;
				z->host_new[z->num_host_new].key = h->key;
				z->num_host_new++;
				prims = 1;
			}
		}
		lk_unlock(az);
		if(retry) {
			verbose(VERB_OPS, "auth-zone %s: no usable %s address "
				"for the host name %s (failed or bogus); asked "
				"again in %d s", z->name, t ? "AAAA" : "A", nm,
				AZ_HOST_RETRY);
			if(az->xs)
				(void)xfr_service_post_at(az->xs, z_host_retry,
					z, xfr_service_now(az->xs) +
					AZ_HOST_RETRY);
		}
		if(prims) {
			verbose(VERB_ALGO, "auth-zone %s: the host name %s "
				"has %s addresses to transfer from", z->name,
				nm, t ? "AAAA" : "A");
			if(az->xs && xfr_service_post(az->xs, z_host_prims,
				z) != 0)
				log_err("auth-zone %s: out of memory", z->name);
		}
	}
}

int
auth_zones_set_waker(struct auth_zones *az, void (*fn)(void *), void *arg)
{
	size_t i;
	int r = 0;
	if(!az || ((!az->any_chain || !az->keys_check) && !az->any_host))
		return 0;
	lk_lock(az);
	if(!az->waker) {
		az->waker = fn;
		az->waker_arg = arg;
		r = 1;
		for(i = 0; i < az->num; i++)
			if(az->z[i]->lk_state == AZ_LK_WANTED ||
				z_host_wanted(az->z[i])) {
				az_wake(az);
				break;
			}
	}
	lk_unlock(az);
	return r;
}

void
auth_zones_clear_waker(struct auth_zones *az, void *arg)
{
	if(!az || !az->any_chain)
		return;
	lk_lock(az);
	if(az->waker && az->waker_arg == arg) {
		az->waker = NULL;
		az->waker_arg = NULL;
	}
	lk_unlock(az);
}

void
auth_zones_start_lookups(struct auth_zones *az,
	int (*start)(void *arg, const uint8_t *apex), void *arg)
{
	size_t i;
	if(!az || !az->any_chain)
		return;
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		int go;
		lk_lock(az);
		go = (z->lk_state == AZ_LK_WANTED);
		if(go) {
			z->lk_state = AZ_LK_STARTED;
			z->lk_deadline = time(NULL) + AZ_LOOKUP_TIMEOUT;
		}
		lk_unlock(az);
		if(go && az->xs)
			(void)xfr_service_post_at(az->xs, z_lookup_timeout, z,
				time(NULL) + AZ_LOOKUP_TIMEOUT);
		/* unlocked: the lookup may finish at once, in
		 * auth_zones_keys_answer */
		if(go) {
			verbose(VERB_ALGO, "auth-zone %s: looking up its DNSKEY "
				"through the validator", z->name);
			if(start(arg, z->apex_wire) != 0)
				auth_zones_keys_answer(az, z->apex_wire,
					AUTH_KEYS_FAILED, NULL, NULL, 0);
		}
	}
}

/** the held zone at the wire name qname waiting for its keys, or NULL
 * (caller holds lk_lock) */
static struct auth_zone *
az_find_waiting(struct auth_zones *az, const uint8_t *qname)
{
	size_t i;
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		if((z->lk_state == AZ_LK_STARTED || z->lk_state ==
			AZ_LK_WANTED) && dname_equal(z->apex_wire, qname))
			return z;
	}
	return NULL;
}

int
auth_zones_wants_keys(struct auth_zones *az, const uint8_t *qname)
{
	int r;
	if(!az || !az->any_chain)
		return 0;
	lk_lock(az);
	r = az_find_waiting(az, qname) != NULL;
	lk_unlock(az);
	return r;
}

void
auth_zones_keys_answer(struct auth_zones *az, const uint8_t *qname,
	int res, const uint8_t *const *key, const uint16_t *keylen,
	size_t n)
{
	struct auth_zone *z;
	uint8_t *buf = NULL;
	size_t i, total = 0, off = 0;
	if(!az || !az->any_chain)
		return;
	if(n > AZ_MAX_KEYS)
		n = AZ_MAX_KEYS;
	for(i = 0; i < n; i++)
		total += keylen[i];
	if(res == AUTH_KEYS_SECURE && (n == 0 || !(buf = malloc(total))))
		res = AUTH_KEYS_FAILED;
	lk_lock(az);
	if(!(z = az_find_waiting(az, qname))) {
		lk_unlock(az);
		free(buf);
		return;
	}
	z->lk_res = res;
	z->lk_n = 0;
	free(z->lk_keys);
	z->lk_keys = buf;
	if(buf) {
		for(i = 0; i < n; i++) {
			memcpy(buf + off, key[i], keylen[i]);
			z->lk_len[i] = keylen[i];
			off += keylen[i];
		}
		z->lk_n = n;
	}
	z->lk_state = AZ_LK_ANSWERED;
	lk_unlock(az);
	/* the digest of a big zone is no work for a worker: the transfer
	 * thread finishes it */
	if(!az->xs || xfr_service_post(az->xs, z_finish, z) != 0)
		z_finish(z);
}

struct xfr_service *
auth_zones_xfr(struct auth_zones *az)
{
	return az ? az->xs : NULL;
}

int
auth_zones_start(struct auth_zones *az)
{
	if(!az || !az->xs)
		return 0;
	return xfr_service_start(az->xs);
}

void
auth_zones_delete(struct auth_zones *az)
{
	size_t i;
	if(!az)
		return;
	/* the thread first: its callbacks use the zones */
	xfr_service_delete(az->xs);
	for(i = 0; i < az->num; i++)
		z_free(az->z[i]);
	free(az->z);
#ifdef HAVE_PTHREAD
	pthread_mutex_destroy(&az->lk_lock);
#endif
	if(az->keys)
		memset(az->keys, 0, az->num_keys * sizeof(*az->keys));
	free(az->keys);
	free(az);
}

/** the zone that holds a name (the deepest), for a direction:
 * 1 downstream, 2 upstream, 0 any */
static struct auth_zone *
az_find(struct auth_zones *az, const uint8_t *name, int dir)
{
	struct auth_zone *best = NULL;
	size_t i;
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		if((dir == 1 && !z->for_downstream) ||
			(dir == 2 && !z->for_upstream))
			continue;
		if(!dname_is_subdomain(name, z->apex_wire))
			continue;
		if(!best || dname_count_labels(z->apex_wire) >
			dname_count_labels(best->apex_wire))
			best = z;
	}
	return best;
}

int
auth_zones_fallback(struct auth_zones *az, const uint8_t *name)
{
	struct auth_zone *z;
	if(!az || !az->any_up || !(z = az_find(az, name, 2)))
		return 0;
	return z->fallback;
}

/** the zone of a name given as text */
static struct auth_zone *
az_find_str(struct auth_zones *az, const char *name)
{
	uint8_t w[256];
	size_t l = sizeof(w), i;
	if(!az || dname_from_str(name, w, &l) != 0)
		return NULL;
	dname_tolower(w);
	for(i = 0; i < az->num; i++)
		if(dname_equal(w, az->z[i]->apex_wire))
			return az->z[i];
	return NULL;
}

/**
 * Write an answer with petrel's encoder into out: everything; else
 * without the additional section; else the header and question with TC
 * (names compressed; nothing allocated).
 * @param d: the data the answer points into (read lock held).
 * @param qowner: the question name as written (the client's case).
 * @param max: the size the answer must fit in (the client's UDP size).
 * @return 0, or -1 when not even the question fits.
 */
static int
az_encode(const struct az_data *d, const struct az_ans *a,
	const uint8_t *qowner, uint16_t qtype, uint16_t qclass, uint16_t id,
	uint16_t flags, int edns, int do_bit, size_t max, uint8_t *out,
	size_t outmax, size_t *outlen)
{
	int pass;
	uint16_t hf = (uint16_t)(DNS_FLAG_QR | (a->aa ? DNS_FLAG_AA : 0) |
		(flags & (DNS_FLAG_RD | DNS_FLAG_CD | DNS_FLAG_RA)) |
		(a->rcode & DNS_FLAG_RCODE_MASK));
	for(pass = 0; pass < 3; pass++) {
		/* pass 0: everything; 1: without additional; 2: TC */
		struct dns_builder b;
		int s, fail = 0;
		dns_build_init(&b, out, outmax, max);
		if(dns_build_header(&b, id, (uint16_t)(hf | (pass == 2 ?
			DNS_FLAG_TC : 0))) != 0 || dns_build_question(&b,
			qowner, qtype, qclass) != 0)
			return -1;
		if(edns)
			dns_build_reserve(&b, 11);
		for(s = 0; s < 3 && pass < 2 && !fail; s++) {
			size_t i;
			if(s == DNS_SEC_ADDITIONAL && pass == 1)
				break;
			for(i = 0; i < a->n[s]; i++) {
				const struct az_ref *r = &a->r[s][i];
				const struct az_rrw *w = &d->w[r->idx];
				uint32_t ttl = w->ttl;
				if(r->negttl && ttl > d->soa_min)
					ttl = d->soa_min;
				if(dns_build_rr(&b, s, r->owner < 0 ? w->owner :
					a->owners[r->owner], w->type,
					w->rrclass, ttl, w->rdata, w->rdlen) !=
					0) {
					fail = 1;
					break;
				}
			}
		}
		if(fail)
			continue;
		if(edns && dns_build_opt(&b, AZ_EDNS_SIZE, a->rcode, do_bit,
			NULL, 0) != 0)
			continue;
		*outlen = dns_build_finish(&b);
		return 0;
	}
	return -1;
}

/** run a lookup and encode it. @return AUTH_* */
static enum auth_answer
az_answer(struct auth_zone *z, const uint8_t *dp, const uint8_t *qowner,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, uint16_t id,
	uint16_t flags, int edns, int do_bit, size_t max, int downstream,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	struct az_ans a;
	enum auth_answer r;
	a.n[0] = a.n[1] = a.n[2] = 0;
	a.full = 0;
	a.nowners = 0;
	z_rdlock(z);
	if(!z->data) {
		/* no data (none yet, expired, or refused for its ZONEMD):
		 * with fallback-enabled the servers are asked (the iterator
		 * resolves), else the query fails, as in Unbound: a zone
		 * that did not verify is not replaced by its servers'
		 * answers unless the operator said so. A zone held for its
		 * DNSKEY lookup (refused 2) is not failed yet: upstream the
		 * servers answer meanwhile. */
		r = (z->fallback || (z->refused == 2 && !downstream)) ?
			AUTH_NOT : AUTH_FAIL;
		z_unlock(z);
		return r;
	}
	if(az_lookup(z->data, z->apex_wire, qname, qtype, do_bit, &a) != 0) {
		z_unlock(z);
		return AUTH_FAIL;
	}
	if(a.cut && ((dp && dname_is_subdomain(dp, a.cut)) ||
		(downstream && (flags & DNS_FLAG_RD)))) {
		/* upstream: the iterator already is at or below this cut;
		 * downstream with RD: resolve instead of referring */
		z_unlock(z);
		return AUTH_NOT;
	}
	r = az_encode(z->data, &a, qowner, qtype, qclass, id, flags, edns,
		do_bit, max, out, outmax, outlen) == 0 ? AUTH_ANSWERED :
		AUTH_FAIL;
	z_unlock(z);
	return r;
}

enum auth_answer
auth_zones_answer_downstream(struct auth_zones *az, const uint8_t *pkt,
	size_t len, size_t qname_off, const uint8_t *qname, uint16_t qtype,
	uint16_t qclass, uint16_t id, uint16_t flags, int edns, int do_bit,
	uint16_t udp_size, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	struct auth_zone *z;
	size_t ql;
	if(!az || !az->any_down || qclass != LDNS_RR_CLASS_IN ||
		!(z = az_find(az, qname, 1)))
		return AUTH_NOT;
	ql = dname_len(qname);
	if(qname_off + ql > len || dname_valid(pkt + qname_off, len -
		qname_off) != ql)
		return AUTH_NOT;
	/* RA: we are a recursive resolver, whatever answers the client */
	return az_answer(z, NULL, pkt + qname_off, qname, qtype, qclass, id,
		(uint16_t)((flags & (DNS_FLAG_RD | DNS_FLAG_CD)) |
		DNS_FLAG_RA), edns, do_bit, tcp ? 65535 : (edns ?
		(udp_size < 512 ? 512 : udp_size) : 512), 1, out, outmax,
		outlen);
}

int
auth_zones_downstream_covers(struct auth_zones *az, const uint8_t *qname)
{
	return az && az->any_down && az_find(az, qname, 1) != NULL;
}

enum auth_answer
auth_zones_answer_upstream(struct auth_zones *az, const uint8_t *dp,
	const uint8_t *qname, uint16_t qtype, uint16_t qclass, int do_bit,
	uint8_t *out, size_t outmax, size_t *outlen)
{
	struct auth_zone *z;
	if(!az || !az->any_up || qclass != LDNS_RR_CLASS_IN ||
		!(z = az_find(az, dp, 2)) || !dname_is_subdomain(qname,
		z->apex_wire))
		return AUTH_NOT;
	return az_answer(z, dp, qname, qname, qtype, qclass, 0, 0, 1, do_bit,
		65535, 0, out, outmax, outlen);
}

int
auth_zones_notify(struct auth_zones *az, const uint8_t *pkt, size_t len,
	const struct netaddr *from, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	uint8_t name[256];
	size_t p = 12, nl = 0, i, qend;
	struct auth_zone *z = NULL;
	int allowed = 0, rcode = 5; /* REFUSED */
	int64_t serial = -1;
	if(len < 12 || (pkt[2] & 0x80) || ((pkt[2] >> 3) & 0x0f) != 4)
		return 0;
	if(((pkt[4] << 8) | pkt[5]) != 1) {
		rcode = 1; /* FORMERR */
		qend = 12;
		goto reply;
	}
	while(p < len && pkt[p] && nl + pkt[p] + 1 < sizeof(name)) {
		if(pkt[p] & 0xc0)
			return 0;
		memcpy(name + nl, pkt + p, (size_t)pkt[p] + 1);
		nl += (size_t)pkt[p] + 1;
		p += (size_t)pkt[p] + 1;
	}
	if(p + 5 > len || pkt[p] != 0)
		return 0;
	name[nl++] = 0;
	qend = p + 5;
	dname_tolower(name);
	if(az) {
		for(i = 0; i < az->num; i++)
			if(dname_equal(name, az->z[i]->apex_wire))
				z = az->z[i];
	}
	if(z && z->task) {
		for(i = 0; i < z->num_notify && !allowed; i++)
			if(netblock_match(&z->notify[i], from))
				allowed = 1;
		for(i = 0; i < z->num_prim && !allowed; i++)
			if(netaddr_cmp_addr(&z->prim[i].addr, from) == 0)
				allowed = 1;
		if(!allowed && z->num_hosts) {
			/* the addresses of the host names */
			lk_lock(az);
			for(i = 0; i < z->num_host_addrs && !allowed; i++)
				if(netaddr_cmp_addr(&z->host_addrs[i], from)
					== 0)
					allowed = 1;
			lk_unlock(az);
		}
	}
	if(allowed) {
		/* the serial of an SOA in the answer section, if any */
		ldns_pkt *m = NULL;
		if(ldns_wire2pkt(&m, pkt, len) == LDNS_STATUS_OK) {
			ldns_rr_list *an = ldns_pkt_answer(m);
			if(ldns_rr_list_rr_count(an) && ldns_rr_get_type(
				ldns_rr_list_rr(an, 0)) == LDNS_RR_TYPE_SOA &&
				ldns_rr_rd_count(ldns_rr_list_rr(an, 0)) == 7)
				serial = ldns_rdf2native_int32(ldns_rr_rdf(
					ldns_rr_list_rr(an, 0), 2));
			ldns_pkt_free(m);
		}
		verbose(VERB_DETAIL, "auth-zone %s: NOTIFY (serial %lld)",
			z->name, (long long)serial);
		xfr_task_notify(z->task, serial, 0);
		rcode = 0;
	} else {
		char a[NETADDR_STRLEN];
		verbose(VERB_OPS, "NOTIFY from %s refused (%s)",
			netaddr_str(from, 53, a, sizeof(a)), z ? "not in "
			"allow-notify or the primaries" : "not an auth-zone "
			"with primaries");
	}
reply:
	if(qend > outmax)
		return 0;
	memmove(out, pkt, qend);
	/* QR, the opcode, RD and CD as asked, RA: the flags Unbound
	 * answers a NOTIFY with (no AA: a resolver holds no authority) */
	out[2] = (uint8_t)((out[2] & 0x79) | 0x80);
	out[3] = (uint8_t)(0x80 | (pkt[3] & 0x10) | (rcode & 0x0f));
	out[4] = 0;
	out[5] = qend > 12 ? 1 : 0;
	memset(out + 6, 0, 6);
	*outlen = qend;
	return 1;
}

int
auth_zones_list(struct auth_zones *az, char *buf, size_t len)
{
	size_t i, used = 0;
	if(len)
		buf[0] = 0;
	if(!az)
		return 0;
	for(i = 0; i < az->num; i++) {
		struct auth_zone *z = az->z[i];
		char st[400];
		int r;
		long long serial = -1;
		int refused;
		z_rdlock(z);
		if(z->data)
			serial = z->data->serial;
		refused = z->refused;
		z_unlock(z);
		if(z->task)
			(void)xfr_task_status(z->task, st, sizeof(st));
		else
			snprintf(st, sizeof(st), "zonefile only");
		r = snprintf(buf + used, len - used, "%s\t%s%s%s\t%s\t%s\n",
			z->name, z->for_upstream ? "upstream" : "",
			z->for_upstream && z->for_downstream ? "," : "",
			z->for_downstream ? "downstream" : "", serial < 0 ?
			(refused == 2 ? "zonemd-pending" : refused ?
			"zonemd-refused" : "no-data") : "serial",
			st);
		if(r < 0 || (size_t)r >= len - used)
			break;
		used += (size_t)r;
	}
	return (int)az->num;
}

int
auth_zones_reload(struct auth_zones *az, const char *name, char *err,
	size_t errlen)
{
	struct auth_zone *z = az_find_str(az, name);
	int r;
	if(!z) {
		snprintf(err, errlen, "no auth-zone %s", name);
		return -1;
	}
	if(!z->zonefile) {
		snprintf(err, errlen, "auth-zone %s has no zonefile", z->name);
		return -1;
	}
	z_wlock(z, 1);
	r = z_read_file(z, 0, 0, NULL, err, errlen);
	z_wlock(z, 0);
	if(r == 0 && z->task && z->data) {
		const ldns_rr *s;
		z_rdlock(z);
		if(z->data && z->data->soa) {
			s = z->data->soa;
			xfr_task_set_serial(z->task, z->data->serial,
				ldns_rdf2native_int32(ldns_rr_rdf(s, 3)),
				ldns_rdf2native_int32(ldns_rr_rdf(s, 4)),
				ldns_rdf2native_int32(ldns_rr_rdf(s, 5)), 0);
		}
		z_unlock(z);
	}
	return r;
}

int
auth_zones_transfer(struct auth_zones *az, const char *name, char *err,
	size_t errlen)
{
	struct auth_zone *z = az_find_str(az, name);
	if(!z) {
		snprintf(err, errlen, "no auth-zone %s", name);
		return -1;
	}
	if(!z->task) {
		snprintf(err, errlen, "auth-zone %s has no primaries or urls",
			z->name);
		return -1;
	}
	xfr_task_notify(z->task, -1, 1);
	return 0;
}

int64_t
auth_zones_serial(struct auth_zones *az, const char *name)
{
	struct auth_zone *z = az_find_str(az, name);
	int64_t s = -1;
	if(!z)
		return -1;
	z_rdlock(z);
	if(z->data)
		s = z->data->serial;
	z_unlock(z);
	return s;
}
