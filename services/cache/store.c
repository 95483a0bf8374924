/*
 * services/cache/store.c - the one store path of a finished answer (see
 * store.h): marked RRsets to the RRset cache, the message, encoded once
 * with its RR offsets recorded as it is written, to the message cache.
 */
#include "config.h"
#include "services/cache/store.h"
#include "services/cache/rrset.h"
#include "services/cache/msgcache.h"
#include "util/storage/slabhash.h"
#include "util/region.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include <stddef.h>
#include <string.h>

/** most records and signatures of one set stored with its RRSIGs; a
 * larger set is stored without them */
#define STORE_MAX_SIGNED 128

/**
 * The RRSIGs of the answer that cover set cs (at its owner, of its type)
 * after its records in rd/rdlen (which hold cs->count of them first).
 * @return the number of signatures added.
 */
static size_t
store_sigs_of(const struct cache_answer *a, const struct cache_rrset *cs,
	const uint8_t **rd, uint16_t *rdlen)
{
	size_t i, k, n = 0;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *s = &a->sets[i];
		if(s->type != DNS_TYPE_RRSIG || s->rrclass != cs->rrclass ||
			!dname_equal(s->owner, cs->owner))
			continue;
		for(k = 0; k < s->count; k++) {
			if(s->rdlen[k] < 2 || dns_read_u16(s->rdata[k]) !=
				cs->type)
				continue;
			if(cs->count + n >= STORE_MAX_SIGNED)
				return 0;
			rd[cs->count + n] = s->rdata[k];
			rdlen[cs->count + n] = s->rdlen[k];
			n++;
		}
	}
	return n;
}

/** the marked sets into the RRset cache, each with the RRSIGs of the
 * answer that cover it and its DNSSEC status (a DO question can then be
 * answered from them, and validated again); stored (may be NULL): one
 * byte per set, set to 1 for a set that went in (new or replacing), 2
 * for one that went in with an older set's shorter expiry
 * (rrset_cache_store_held), 0 otherwise */
static void
store_rrsets(struct rrset_cache *rc, const struct cache_answer *a,
	time_t now, uint8_t *stored)
{
	size_t i, k;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		const uint8_t *rd[STORE_MAX_SIGNED];
		uint16_t rdlen[STORE_MAX_SIGNED];
		struct rrset_data rs;
		if(cs->trust == RRSET_TRUST_NONE || cs->type == DNS_TYPE_RRSIG
			|| cs->count == 0)
			continue;
		memset(&rs, 0, sizeof(rs));
		rs.name = cs->owner;
		rs.name_len = cs->owner_len;
		rs.type = cs->type;
		rs.rrclass = cs->rrclass;
		rs.ttl = cs->ttl;
		rs.trust = (enum rrset_trust)cs->trust;
		rs.sec = (enum rrset_security)cs->sec;
		rs.count = cs->count;
		rs.rdata = cs->rdata;
		rs.rdlen = cs->rdlen;
		if(cs->count < STORE_MAX_SIGNED) {
			for(k = 0; k < cs->count; k++) {
				rd[k] = cs->rdata[k];
				rdlen[k] = cs->rdlen[k];
			}
			if((rs.sig_count = store_sigs_of(a, cs, rd,
				rdlen)) > 0) {
				rs.rdata = rd;
				rs.rdlen = rdlen;
			}
		}
		/* secure with the RRSIGs that show it: trust validated, as
		 * Unbound's validator ranks the sets it proved (then neither
		 * the unsigned copy of an answer without DO nor an unchecked
		 * one replaces it); without them (an answer to a query
		 * without DO) not claimed secure, so that the signed copy
		 * replaces it (see store.h) */
		if(rs.sec == RRSET_SEC_SECURE) {
			if(rs.sig_count > 0)
				rs.trust = RRSET_TRUST_VALIDATED;
			else	rs.sec = RRSET_SEC_UNCHECKED;
		}
		{
			int held = 0;
			if(rrset_cache_store_held(rc, &rs, now, a->leeway,
				a->qstart, &held) == RRSET_STORED && stored)
				stored[i] = (uint8_t)(held ? 2 : 1);
		}
	}
}

/** @return 1 when a cached set holds the same RDATA as cs, in any order */
static int
same_rdata(const struct rrset_data *c, const struct cache_rrset *cs)
{
	size_t i, j;
	if(c->count != cs->count)
		return 0;
	for(i = 0; i < cs->count; i++) {
		for(j = 0; j < c->count; j++)
			if(c->rdlen[j] == cs->rdlen[i] && memcmp(c->rdata[j],
				cs->rdata[i], cs->rdlen[i]) == 0)
				break;
		if(j == c->count)
			return 0;
	}
	return 1;
}

/**
 * The TTLs of the message's sets from the RRset cache (see store.h).
 * @param ttl: one TTL per set of a, filled in (the set's own, or the
 *	cached set's remaining seconds).
 * @return 1 when some TTL changed, 0 when none did.
 */
static int
cached_ttls(struct rrset_cache *rc, const struct cache_answer *a,
	time_t now, struct region *region, const uint8_t *stored,
	uint32_t *ttl)
{
	size_t i, j;
	int changed = 0;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		struct rrset_data c;
		ttl[i] = cs->ttl;
		/* (a set that went in is the message's own: the cache took
		 * it, with its expiry or, guarding a delegation, an older
		 * one that the message does not take, as the answer shows
		 * what the server sent) */
		if(stored[i] || cs->type == DNS_TYPE_RRSIG ||
			cs->type == DNS_TYPE_SOA ||
			cs->type == DNS_TYPE_NSEC ||
			cs->type == DNS_TYPE_NSEC3 || cs->count == 0)
			continue;
		if(rrset_cache_lookup(rc, cs->owner, cs->type, cs->rrclass,
			now, region, &c) != 0 || !same_rdata(&c, cs) ||
			c.ttl == cs->ttl)
			continue;
		ttl[i] = c.ttl;
		changed = 1;
	}
	if(!changed)
		return 0;
	/* an RRSIG set goes with the set it covers (same owner and
	 * section) */
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		if(cs->type != DNS_TYPE_RRSIG || cs->count == 0 ||
			cs->rdlen[0] < 2)
			continue;
		for(j = 0; j < a->nsets; j++)
			if(a->sets[j].type == dns_read_u16(cs->rdata[0]) &&
				a->sets[j].section == cs->section &&
				dname_equal(a->sets[j].owner, cs->owner) &&
				ttl[j] != a->sets[j].ttl && ttl[j] < ttl[i])
				ttl[i] = ttl[j];
	}
	return 1;
}

/**
 * Write one RR and record where its parts went.
 * @return 0, or -1 when it did not fit or is malformed.
 */
static int
write_rr_rec(struct dns_builder *b, uint8_t *buf, const struct cache_rrset *cs,
	size_t k, struct dns_rr *rec)
{
	size_t start = dns_build_pos(b), end, p = start;
	if(dns_build_rr(b, cs->section, cs->owner, cs->type, cs->rrclass,
		cs->ttl, cs->rdata[k], cs->rdlen[k]) != 0)
		return -1;
	end = dns_build_pos(b);
	/* the owner as written (a pointer, or labels and a pointer) */
	if(dname_pkt_read(buf, end, &p, NULL, NULL) != 0 || p + 10 > end)
		return -1;
	rec->owner_off = (uint16_t)start;
	rec->type = cs->type;
	rec->rrclass = cs->rrclass;
	rec->ttl_off = (uint16_t)(p + 4);
	rec->ttl = cs->ttl;
	rec->rdata_off = (uint16_t)(p + 10);
	rec->rdlen = (uint16_t)(end - (p + 10));
	rec->section = cs->section;
	rec->covered = (cs->type == DNS_TYPE_RRSIG && cs->rdlen[k] >= 2) ?
		dns_read_u16(cs->rdata[k]) : 0;
	rec->next = DNS_RR_NONE;
	return 0;
}

/** encode the message, recording its parse, and store it (expiring at
 * expire_max at the latest, 0 for no limit); set_capped (NULL for none):
 * per set, 1 when its TTL is the RRset cache's shorter one; keep (NULL
 * for none): the refresh and serve-expired state of the entry it
 * rebuilds */
static enum mcache_store_result
store_message(struct mcache *mc, const struct cache_answer *a, time_t now,
	uint8_t *buf, size_t bufsize, struct region *region,
	time_t expire_max, const uint8_t *set_capped,
	const struct mcache_keep *keep)
{
	struct dns_msg msg;
	struct dns_builder b;
	uint8_t *rr_capped = NULL;
	size_t i, k, n = 0, sec;
	for(i = 0; i < a->nsets; i++)
		n += a->sets[i].count;
	if(set_capped && region && (rr_capped = region_alloc(region, n + 1))) {
		size_t r = 0;
		for(i = 0; i < a->nsets; i++)
			for(k = 0; k < a->sets[i].count; k++)
				rr_capped[r++] = set_capped[i];
	}
	/* the header fields and counts (the inline record array is written
	 * as used) */
	memset(&msg, 0, offsetof(struct dns_msg, rr_inline));
	if(n <= DNS_MSG_INLINE_RRS)
		msg.rrs = msg.rr_inline;
	else if(!region || n > 0xffff || !(msg.rrs = region_alloc(region,
		n * sizeof(*msg.rrs))))
		return MCACHE_NOT_CACHEABLE;
	dns_build_init(&b, buf, bufsize, 0);
	if(dns_build_header(&b, 0, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(a->rcode & 0xf))) != 0 ||
	   dns_build_question(&b, a->qinfo->qname, a->qinfo->qtype,
		a->qinfo->qclass) != 0)
		return MCACHE_NOT_CACHEABLE;
	msg.flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA | (a->rcode & 0xf));
	msg.rcode = a->rcode;
	msg.qdcount = 1;
	msg.qname_off = DNS_HDR_SIZE;
	msg.qtype = a->qinfo->qtype;
	msg.qclass = a->qinfo->qclass;
	msg.question_end = (uint16_t)dns_build_pos(&b);
	for(sec = 0; sec < DNS_SEC_NUM; sec++)
		msg.sec_first[sec] = 0;
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		if(cs->section >= DNS_SEC_NUM)
			return MCACHE_NOT_CACHEABLE;
		for(k = 0; k < cs->count; k++) {
			if(write_rr_rec(&b, buf, cs, k, &msg.rrs[msg.rr_count])
				!= 0)
				return MCACHE_NOT_CACHEABLE;
			msg.rr_count++;
			msg.sec_count[cs->section]++;
		}
	}
	/* each section's first record: after those of the sections before */
	for(sec = 1; sec < DNS_SEC_NUM; sec++)
		msg.sec_first[sec] = msg.sec_first[sec - 1] +
			msg.sec_count[sec - 1];
	msg.ancount = (uint16_t)msg.sec_count[DNS_SEC_ANSWER];
	msg.nscount = (uint16_t)msg.sec_count[DNS_SEC_AUTHORITY];
	msg.arcount = (uint16_t)msg.sec_count[DNS_SEC_ADDITIONAL];
	msg.len = dns_build_finish(&b);
	msg.pkt = buf;
	return mcache_store_msg_capped(mc, a->qinfo, a->do_bit, a->cd_bit,
		a->share, buf, msg.len, &msg, now, a->sec, a->ede, expire_max,
		rr_capped, keep);
}

/* ---- coherence (msgcache.h): the messages that carry a replaced set
 * are rebuilt with the new one ---- */

/** the reference table's key of a set: its owner (lower-cased), type
 * and class */
static uint32_t
ref_hash(const uint8_t *owner, uint16_t type, uint16_t rrclass)
{
	uint8_t l[DNS_MAX_NAME + 1];
	size_t n = dname_copy_lower(l, owner);
	return dns_qinfo_hash(l, n, type, rrclass);
}

/** the fingerprint of a set's data (in any order of its records) */
static uint32_t
ref_fp(const struct cache_rrset *cs)
{
	uint32_t fp = (uint32_t)cs->count;
	size_t i;
	for(i = 0; i < cs->count; i++)
		fp += slabhash_hash_bytes(cs->rdata[i], cs->rdlen[i],
			0x9747b28cu);
	return fp;
}

/** @return 1 for a set the reference table keeps: one of the authority
 * or additional section, not RRSIG (it goes with its set) */
static int
ref_kept(const struct cache_rrset *cs)
{
	return (cs->section == DNS_SEC_AUTHORITY ||
		cs->section == DNS_SEC_ADDITIONAL) &&
		cs->type != DNS_TYPE_RRSIG && cs->count > 0;
}

/** remember the sets of a message stored at base (its TTLs count from
 * there) */
static void
ref_add_all(struct mcache *mc, const struct cache_answer *a, time_t base)
{
	size_t i;
	for(i = 0; i < a->nsets; i++)
		if(ref_kept(&a->sets[i]))
			mcache_ref_add(mc, ref_hash(a->sets[i].owner,
				a->sets[i].type, a->sets[i].rrclass),
				ref_fp(&a->sets[i]), base +
				(time_t)a->sets[i].ttl, a->qinfo, a->do_bit,
				a->cd_bit);
}

/** @return 1 when two sets hold the same RDATA, in any order */
static int
same_set_rdata(const struct cache_rrset *x, const struct cache_rrset *y)
{
	size_t i, j;
	if(x->count != y->count)
		return 0;
	for(i = 0; i < x->count; i++) {
		for(j = 0; j < y->count; j++)
			if(x->rdlen[i] == y->rdlen[j] && memcmp(x->rdata[i],
				y->rdata[j], x->rdlen[i]) == 0)
				break;
		if(j == y->count)
			return 0;
	}
	return 1;
}

/**
 * Most messages one store rebuilds. Each set of a stored answer can take
 * up to MCACHE_REF_SLOTS messages to rebuild, and an answer can hold
 * some 2000 small sets: the rebuilds of one store are bounded in number
 * (their time) as their memory is in bytes (one at a time, see
 * rebuild_space). Past the bound, the messages that would be rebuilt are
 * removed instead: a removal is always safe (the next query for one is
 * a miss, and stores it afresh).
 */
#define STORE_MAX_REBUILDS 64

/** scratch of the rebuilds of one store, allocated at the first one */
struct rebuild_space {
	/** the copy of the message (DNS_MAX_MSG, in the store's region) */
	uint8_t *copy;
	/** for an uncompressed RDATA (DNS_MAX_MSG, in the store's region) */
	uint8_t *scratch;
	/** the parse, sets and arrays of one rebuild, freed after each
	 * (region_free_all): a store holds one rebuild's memory at a time,
	 * however many it makes; NULL until the first */
	struct region *work;
	/** rebuilds tried so far (STORE_MAX_REBUILDS) */
	size_t count;
};

/**
 * Rebuild the message of key ref, when it carries a set at nw's owner,
 * type and class with other data, or with renew the same data (renewed:
 * its copy in the message has expired, or is about to), with nw's data
 * in its place (its TTL: the RRset cache's, else nw's); the message
 * keeps its expiry, its rcode, security, EDE and sharing, its records'
 * capped flags and its refresh and serve-expired state (mcache_keep). An expired
 * message that serve-expired still serves is rebuilt as it was stored
 * (its TTLs count from then; it stays expired, and the renewed set shows
 * what is left of it in its stale answers, as Unbound's live sets do).
 * A message that carries the set's RRSIGs, or is secure while nw is
 * not, is removed instead (it is made again by the next query for it,
 * as Unbound revalidates). The references of a message that is there
 * afterwards are remembered again.
 */
static void
store_rebuild_one(struct mcache *mc, struct rrset_cache *rc,
	const struct mcache_ref *ref, const struct cache_rrset *nw,
	int renew, time_t now, uint8_t *buf, size_t bufsize,
	struct region *region, struct rebuild_space *sp)
{
	struct query_info qi;
	struct mcache_state st;
	struct dns_msg m;
	struct cache_answer ca;
	struct cache_rrset *sets;
	const uint8_t **rd;
	uint16_t *rl;
	struct mcache_keep keep;
	uint8_t *rr_capped, *set_capped;
	size_t len, i, n = 0, hit = 0;
	int found = 0, signed_set = 0, same;
	time_t base = now, expire_max, st_stored, st_expire;
	if(query_info_set(&qi, ref->qname, ref->qtype, ref->qclass) < 0)
		return;
	if(!sp->copy && (!(sp->copy = region_alloc(region, DNS_MAX_MSG)) ||
		!(sp->scratch = region_alloc(region, DNS_MAX_MSG)))) {
		sp->copy = NULL;
		return;
	}
	/* (from here on, memory of this rebuild only: the caller frees it
	 * after each) */
	region = sp->work;
	if(mcache_copy_msg(mc, &qi, ref->do_bit, ref->cd_bit, now, sp->copy,
		DNS_MAX_MSG, &len, &st) == 0)
		expire_max = now + (time_t)st.ttl;
	else if(mcache_copy_stale(mc, &qi, ref->do_bit, ref->cd_bit, now,
		sp->copy, DNS_MAX_MSG, &len, &st, &st_stored, &st_expire)
		== 0) {
		base = st_stored;
		expire_max = st_expire;
	} else
		return;
	if(dns_msg_parse(sp->copy, len, &m, region, 0) != 0 ||
		m.rr_count == 0)
		return;
	sets = region_alloc(region, m.rr_count * sizeof(*sets));
	rd = region_alloc(region, m.rr_count * sizeof(*rd));
	rl = region_alloc(region, m.rr_count * sizeof(*rl));
	rr_capped = region_alloc(region, m.rr_count);
	set_capped = region_alloc_zero(region, m.rr_count);
	if(!sets || !rd || !rl || !rr_capped || !set_capped)
		return;
	/* what the entry keeps beside its message goes with it: its
	 * records' capped flags, and its refresh and serve-expired state
	 * (a failed refresh's "no recursion" window, mcache_norec_set: an
	 * expired message rebuilt during an outage does not ask upstream
	 * at once) */
	i = (size_t)mcache_get_keep(mc, &qi, ref->do_bit, ref->cd_bit, &keep,
		rr_capped, m.rr_count);
	if(i == (size_t)-1)
		return;
	if(i != m.rr_count)
		memset(rr_capped, 0, m.rr_count); /* (replaced meanwhile) */
	/* the sets, as the message holds them (its records of a set are
	 * together: store_message wrote them so) */
	for(i = 0; i < m.rr_count; i++) {
		const struct dns_rr *rr = &m.rrs[i];
		uint8_t owner[DNS_MAX_NAME + 1];
		size_t ol = dns_rr_owner(&m, rr, owner);
		int l = dns_rr_rdata_uncompressed(&m, rr, sp->scratch,
			DNS_MAX_MSG);
		struct cache_rrset *cs = n > 0 ? &sets[n - 1] : NULL;
		if(ol == 0 || l < 0)
			return;
		rd[i] = region_memdup(region, sp->scratch, (size_t)l);
		rl[i] = (uint16_t)l;
		if(!rd[i] && l > 0)
			return;
		if(cs && cs->section == rr->section && cs->type == rr->type &&
			cs->rrclass == rr->rrclass && dname_equal(cs->owner,
			owner) && (rr->type != DNS_TYPE_RRSIG ||
			(cs->rdlen[0] >= 2 && dns_read_u16(cs->rdata[0]) ==
			rr->covered))) {
			cs->count++;
			if(rr->ttl < cs->ttl)
				cs->ttl = rr->ttl;
			continue;
		}
		set_capped[n] = rr_capped[i];
		cs = &sets[n++];
		memset(cs, 0, sizeof(*cs));
		if(!(cs->owner = region_memdup(region, owner, ol)))
			return;
		cs->owner_len = ol;
		cs->type = rr->type;
		cs->rrclass = rr->rrclass;
		cs->ttl = rr->ttl;
		cs->section = rr->section;
		cs->trust = 0; /* (RRSET_TRUST_NONE: not stored again) */
		cs->count = 1;
		cs->rdata = rd + i;
		cs->rdlen = rl + i;
	}
	for(i = 0; i < n; i++) {
		if(!dname_equal(sets[i].owner, nw->owner) ||
			sets[i].rrclass != nw->rrclass)
			continue;
		if(sets[i].type == nw->type && ref_kept(&sets[i]) && !found) {
			found = 1;
			hit = i;
		} else if(sets[i].type == DNS_TYPE_RRSIG &&
			sets[i].rdlen[0] >= 2 &&
			dns_read_u16(sets[i].rdata[0]) == nw->type)
			signed_set = 1;
	}
	if(!found)
		return; /* (another set of the same hash) */
	same = same_set_rdata(&sets[hit], nw);
	if(same && !renew) {
		/* (as it was: its reference stays) */
		mcache_ref_add(mc, ref_hash(nw->owner, nw->type, nw->rrclass),
			ref->data_fp, ref->set_expire, &qi, ref->do_bit,
			ref->cd_bit);
		return;
	}
	/* (a secure message's sets are validated in the RRset cache, where
	 * an unvalidated one does not replace them: a safety belt; the same
	 * data renewed changes only TTLs, its signatures' with it) */
	if(!same && (signed_set || (st.sec == MCACHE_SEC_SECURE &&
		nw->sec != RRSET_SEC_SECURE))) {
		(void)mcache_flush_type(mc, qi.qname, qi.qtype, qi.qclass);
		return;
	}
	{
		struct rrset_data c;
		uint8_t section = sets[hit].section;
		uint32_t ttl;
		if(!same) {
			sets[hit] = *nw;
			sets[hit].section = section;
			sets[hit].trust = 0;
		}
		sets[hit].ttl = nw->ttl;
		set_capped[hit] = 0;
		if(rrset_cache_lookup(rc, nw->owner, nw->type, nw->rrclass,
			now, region, &c) == 0) {
			struct cache_rrset cc = *nw;
			cc.count = c.count;
			cc.rdata = c.rdata;
			cc.rdlen = c.rdlen;
			if(same_set_rdata(&cc, nw)) {
				sets[hit].ttl = c.ttl;
				set_capped[hit] = c.ttl < nw->ttl;
			}
		}
		/* (an expired message's TTLs count from when it was
		 * stored) */
		sets[hit].ttl += (uint32_t)(now - base);
		/* the RRSIGs over a renewed set in the message go with it */
		ttl = sets[hit].ttl;
		for(i = 0; same && i < n; i++)
			if(sets[i].type == DNS_TYPE_RRSIG && sets[i].section ==
				section && sets[i].rrclass == nw->rrclass &&
				sets[i].rdlen[0] >= 2 &&
				dns_read_u16(sets[i].rdata[0]) == nw->type &&
				dname_equal(sets[i].owner, nw->owner))
				sets[i].ttl = ttl;
	}
	memset(&ca, 0, sizeof(ca));
	ca.qinfo = &qi;
	ca.rcode = st.rcode;
	ca.do_bit = ref->do_bit;
	ca.cd_bit = ref->cd_bit;
	ca.share = st.share;
	ca.sec = st.sec;
	ca.ede = st.ede;
	ca.sets = sets;
	ca.nsets = n;
	if(store_message(mc, &ca, base, buf, bufsize, region, expire_max,
		set_capped, &keep) != MCACHE_STORED)
		return;
	ref_add_all(mc, &ca, base);
}

/** rebuild the message of ref (store_rebuild_one) in sp's own region,
 * freed afterwards; past STORE_MAX_REBUILDS, or without that region,
 * remove it instead */
static void
store_rebuild(struct mcache *mc, struct rrset_cache *rc,
	const struct mcache_ref *ref, const struct cache_rrset *nw,
	int renew, time_t now, uint8_t *buf, size_t bufsize,
	struct region *region, struct rebuild_space *sp)
{
	if(sp->count < STORE_MAX_REBUILDS && !sp->work)
		sp->work = region_create(0);
	if(sp->count >= STORE_MAX_REBUILDS || !sp->work) {
		(void)mcache_flush_type(mc, ref->qname, ref->qtype,
			ref->qclass);
		return;
	}
	sp->count++;
	store_rebuild_one(mc, rc, ref, nw, renew, now, buf, bufsize, region,
		sp);
	region_free_all(sp->work);
}

/** @return 1 when the RRset cache holds cs's data, live (put there by
 * this store or before it, by the iterator as the reply came in) */
static int
store_cache_holds(struct rrset_cache *rc, const struct cache_rrset *cs,
	time_t now, struct region *region)
{
	struct rrset_data c;
	return rrset_cache_lookup(rc, cs->owner, cs->type, cs->rrclass, now,
		region, &c) == 0 && same_rdata(&c, cs);
}

/** the sets of a that the RRset cache holds (it took them now, or the
 * iterator stored them as the reply came in, before this store), and
 * its SOA: the other messages that carry them with other data are
 * rebuilt (store_rebuild) */
static void
store_coherence(struct mcache *mc, struct rrset_cache *rc,
	const struct cache_answer *a, const uint8_t *stored, time_t now,
	uint8_t *buf, size_t bufsize, struct region *region)
{
	struct mcache_ref refs[MCACHE_REF_SLOTS];
	struct rebuild_space sp;
	struct query_info qi;
	size_t i, k, n;
	uint32_t h;
	memset(&sp, 0, sizeof(sp));
	for(i = 0; i < a->nsets; i++) {
		const struct cache_rrset *cs = &a->sets[i];
		if(cs->type == DNS_TYPE_RRSIG || cs->count == 0)
			continue;
		h = ref_hash(cs->owner, cs->type, cs->rrclass);
		/* (other data, or the same data where the messages' copy
		 * has expired, or for a refresh is about to) */
		n = mcache_ref_take(mc, h, ref_fp(cs), now + a->leeway, refs,
			MCACHE_REF_SLOTS);
		if(n == 0)
			continue;
		/* (the SOA of a negative answer is the zone's own, which
		 * Unbound's RRset cache takes, and petrel's does not: it
		 * counts as held) */
		if(!stored[i] && !(cs->type == DNS_TYPE_SOA && cs->section ==
			DNS_SEC_AUTHORITY) && !store_cache_holds(rc, cs, now,
			region)) {
			/* the cache keeps other data: the messages keep
			 * theirs, and their references */
			for(k = 0; k < n; k++)
				if(query_info_set(&qi, refs[k].qname,
					refs[k].qtype, refs[k].qclass) == 0)
					mcache_ref_add(mc, h, refs[k].data_fp,
						refs[k].set_expire, &qi,
						refs[k].do_bit,
						refs[k].cd_bit);
			continue;
		}
		for(k = 0; k < n; k++) {
			if(refs[k].qtype == a->qinfo->qtype &&
				refs[k].qclass == a->qinfo->qclass &&
				refs[k].qname_len == a->qinfo->qname_len &&
				memcmp(refs[k].qname, a->qinfo->qname,
				refs[k].qname_len) == 0)
				continue; /* (this question: replaced now) */
			/* (a message still there keeps its references) */
			store_rebuild(mc, rc, &refs[k], cs, refs[k].data_fp ==
				ref_fp(cs), now, buf, bufsize, region, &sp);
		}
	}
	region_destroy(sp.work);
}

/** r, or MCACHE_STORED_HELD when the message is stored and a set of it
 * went into the RRset cache with an older set's shorter expiry (not with
 * serve-original-ttl, whose answers keep the TTLs as received) */
static enum mcache_store_result
store_held(const struct cache_answer *a, const uint8_t *stored,
	enum mcache_store_result r)
{
	size_t i;
	if(r != MCACHE_STORED || !stored)
		return r;
	for(i = 0; i < a->nsets; i++)
		if(stored[i] == 2)
			return MCACHE_STORED_HELD;
	return r;
}

enum mcache_store_result
cache_store_answer(struct mcache *mc, struct rrset_cache *rc,
	const struct cache_answer *a, time_t now, uint8_t *buf,
	size_t bufsize, struct region *region)
{
	struct cache_answer ca;
	struct cache_rrset *sets;
	uint32_t *ttl;
	uint8_t *stored = NULL, *capped;
	size_t i;
	enum mcache_store_result r;
	if(rc && mc && region && a->nsets > 0)
		stored = region_alloc_zero(region, a->nsets);
	if(rc)
		store_rrsets(rc, a, now, stored);
	if(!mc)
		return MCACHE_NOT_CACHEABLE;
	if(rc && stored)
		store_coherence(mc, rc, a, stored, now, buf, bufsize, region);
	/* (serve-original-ttl answers with the TTLs as received) */
	if(!rc || !stored || mcache_get_params(mc)->original_ttl ||
		!(ttl = region_alloc(region, a->nsets * sizeof(*ttl))) ||
		!cached_ttls(rc, a, now, region, stored, ttl) ||
		!(sets = region_alloc(region, a->nsets * sizeof(*sets)))) {
		r = store_message(mc, a, now, buf, bufsize, region, 0, NULL,
			NULL);
		if(r == MCACHE_STORED)
			ref_add_all(mc, a, now);
		return mcache_get_params(mc)->original_ttl ? r :
			store_held(a, stored, r);
	}
	ca = *a;
	capped = region_alloc(region, a->nsets);
	for(i = 0; i < a->nsets; i++) {
		sets[i] = a->sets[i];
		sets[i].ttl = ttl[i];
		if(capped)
			capped[i] = ttl[i] < a->sets[i].ttl;
	}
	ca.sets = sets;
	r = store_message(mc, &ca, now, buf, bufsize, region, 0, capped,
		NULL);
	if(r == MCACHE_STORED)
		ref_add_all(mc, &ca, now);
	return store_held(a, stored, r);
}

/** @return 1 when set cs is part of the target's message: an answer
 * set owned by the target, or any set of the other sections */
static int
chain_target_set(const struct cache_rrset *cs, const uint8_t *target)
{
	return cs->section != DNS_SEC_ANSWER || dname_equal(cs->owner,
		target);
}

/** @return 1 when the message cache holds a fresh answer for the
 * target's key (its own entry, or one of the other DO or CD bits that
 * serves it, as mcache_answer finds them), with more than leeway
 * seconds left; buf is scratch space */
static int
chain_target_cached(struct mcache *mc, const struct cache_answer *t,
	time_t now, uint8_t *buf, size_t bufsize)
{
	struct mcache_state st;
	size_t len;
	int k;
	for(k = 0; k < 4; k++) {
		int need = ((k & 1) ? MCACHE_SHARE_CD : 0) |
			((k & 2) ? MCACHE_SHARE_DO : 0);
		if(mcache_copy_msg(mc, t->qinfo, (k & 2) ? !t->do_bit :
			t->do_bit, (k & 1) ? !t->cd_bit : t->cd_bit, now, buf,
			bufsize, &len, &st) == 0 && (st.share & need) == need &&
			(time_t)st.ttl > t->leeway)
			return 1;
	}
	return 0;
}

enum mcache_store_result
cache_store_chain_target(struct mcache *mc, struct rrset_cache *rc,
	const struct cache_answer *a, time_t now, uint8_t *buf,
	size_t bufsize, struct region *region)
{
	uint8_t target[DNS_MAX_NAME + 1];
	const uint8_t *cur = a->qinfo->qname;
	struct query_info qi;
	struct cache_answer t;
	struct cache_rrset *sets;
	size_t i, n = 0;
	int links = 0, insecure = 0;
	if(!mc || !region || a->nsets == 0 ||
		a->qinfo->qtype == DNS_TYPE_CNAME ||
		a->qinfo->qtype == DNS_TYPE_DNAME ||
		(a->rcode != DNS_RCODE_NOERROR &&
		a->rcode != DNS_RCODE_NXDOMAIN) ||
		(a->sec != MCACHE_SEC_UNCHECKED &&
		a->sec != MCACHE_SEC_SECURE && a->sec != MCACHE_SEC_INSECURE))
		return MCACHE_NOT_CACHEABLE;
	/* the chain, in answer order (each CNAME set once: no loop) */
	for(i = 0; i < a->nsets && a->sets[i].section == DNS_SEC_ANSWER;
		i++) {
		const struct cache_rrset *cs = &a->sets[i];
		if(cs->type != DNS_TYPE_CNAME || cs->count != 1 ||
			cs->rrclass != a->qinfo->qclass ||
			!dname_equal(cs->owner, cur) ||
			dname_valid(cs->rdata[0], cs->rdlen[0]) == 0)
			continue;
		cur = cs->rdata[0];
		links++;
	}
	if(links == 0 || dname_equal(cur, a->qinfo->qname))
		return MCACHE_NOT_CACHEABLE;
	if(!(sets = region_alloc(region, a->nsets * sizeof(*sets))))
		return MCACHE_NOT_CACHEABLE;
	for(i = 0; i < a->nsets; i++) {
		if(!chain_target_set(&a->sets[i], cur))
			continue;
		sets[n] = a->sets[i];
		sets[n].trust = RRSET_TRUST_NONE; /* (stored with the answer) */
		if(sets[n].section != DNS_SEC_ADDITIONAL &&
			sets[n].type != DNS_TYPE_RRSIG &&
			sets[n].sec != RRSET_SEC_SECURE)
			insecure = 1;
		n++;
	}
	if(a->sec == MCACHE_SEC_INSECURE && !insecure)
		return MCACHE_NOT_CACHEABLE;
	(void)dname_copy_lower(target, cur);
	if(query_info_set(&qi, target, a->qinfo->qtype, a->qinfo->qclass) < 0)
		return MCACHE_NOT_CACHEABLE;
	t = *a;
	t.qinfo = &qi;
	t.sets = sets;
	t.nsets = n;
	/* (as Unbound's iterator answers a chased name from its message
	 * cache, and so stores nothing for it: the entry keeps its
	 * expiry, ttl_msg.rpl) */
	if(chain_target_cached(mc, &t, now, buf, bufsize))
		return MCACHE_NOT_CACHEABLE;
	return cache_store_answer(mc, rc, &t, now, buf, bufsize, region);
}
