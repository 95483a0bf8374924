/*
 * validator/val_nsec3.c - denial of existence with NSEC3.
 *
 * See val_nsec3.h. A proof runs with a context that holds the records
 * and a small cache of computed hashes (the same name is hashed for the
 * match and the cover checks, and several records usually share their
 * parameters), so a proof hashes each (name, salt, iterations) once.
 */
#include "config.h"
#include "validator/val_nsec3.h"
#include "validator/val_nsec.h"
#include "validator/val_crypto.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <openssl/evp.h>
#include <string.h>

/** hashes kept per proof */
#define N3_CACHE 16
/** records looked at per proof */
#define N3_MAX_RECS 64

/** one cached hash */
struct n3_hash {
	/** the name, lower-cased */
	uint8_t name[DNS_MAX_NAME];
	/** hash parameters */
	const uint8_t *salt;
	/** salt length */
	size_t saltlen;
	/** iterations */
	unsigned iter;
	/** the hash */
	uint8_t hash[VAL_NSEC3_HASH_LEN];
};

/** a proof in progress */
struct n3_ctx {
	/** the records */
	const struct val_nrec *recs;
	/** number of records */
	size_t n;
	/** cached hashes */
	struct n3_hash cache[N3_CACHE];
	/** entries in use */
	size_t used;
	/** next slot to overwrite when full */
	size_t victim;
	/** the query's budget (hash_left), or NULL */
	struct val_budget *budget;
	/** per record: 1 when it is usable (well-formed, known algorithm
	 * and flags, and the hash parameters of the first such record of
	 * its zone, n3_init); records past N3_MAX_RECS are not */
	uint8_t use[N3_MAX_RECS];
};

/** base32hex digit value, or -1 */
static int
b32_val(uint8_t c)
{
	if(c >= '0' && c <= '9')
		return c - '0';
	if(c >= 'a' && c <= 'v')
		return c - 'a' + 10;
	if(c >= 'A' && c <= 'V')
		return c - 'A' + 10;
	return -1;
}

size_t
val_base32hex_decode(const uint8_t *in, size_t inlen, uint8_t *out,
	size_t outmax)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;
	for(i = 0; i < inlen; i++) {
		int v = b32_val(in[i]);
		if(v < 0)
			return 0;
		acc = (acc << 5) | (uint32_t)v;
		bits += 5;
		if(bits >= 8) {
			if(o >= outmax)
				return 0;
			out[o++] = (uint8_t)(acc >> (bits - 8));
			bits -= 8;
			acc &= (1u << bits) - 1;
		}
	}
	if(bits >= 5 || acc != 0)
		return 0; /* a partial quantum that is not zero padding */
	return o;
}

size_t
val_base32hex_encode(const uint8_t *in, size_t inlen, char *out,
	size_t outmax)
{
	static const char digits[] = "0123456789abcdefghijklmnopqrstuv";
	uint32_t acc = 0;
	int bits = 0;
	size_t i, o = 0;
	for(i = 0; i < inlen; i++) {
		acc = (acc << 8) | in[i];
		bits += 8;
		while(bits >= 5) {
			if(o + 1 >= outmax)
				return 0;
			out[o++] = digits[(acc >> (bits - 5)) & 0x1f];
			bits -= 5;
		}
		acc &= (1u << bits) - 1;
	}
	if(bits > 0) {
		if(o + 1 >= outmax)
			return 0;
		out[o++] = digits[(acc << (5 - bits)) & 0x1f];
	}
	out[o] = 0;
	return o;
}

int
val_nsec3_parse(const struct val_nrec *r, struct val_nsec3_info *info)
{
	const uint8_t *d = r->rdata;
	size_t len = r->len, p;
	memset(info, 0, sizeof(*info));
	if(len < 5)
		return -1;
	info->alg = d[0];
	info->flags = d[1];
	info->iterations = dns_read_u16(d + 2);
	info->saltlen = d[4];
	p = 5;
	if(len - p < (size_t)info->saltlen + 1)
		return -1;
	info->salt = d + p;
	p += info->saltlen;
	info->nextlen = d[p++];
	if(info->nextlen == 0 || len - p < info->nextlen)
		return -1;
	info->next = d + p;
	p += info->nextlen;
	info->bitmap = d + p;
	info->bmlen = len - p;
	if(val_bitmap_check(info->bitmap, info->bmlen) != 0)
		return -1;
	if(r->owner[0] == 0)
		return -1;
	info->owner_hashlen = val_base32hex_decode(r->owner + 1, r->owner[0],
		info->owner_hash, sizeof(info->owner_hash));
	if(info->owner_hashlen == 0)
		return -1;
	info->zone = r->owner + 1 + r->owner[0];
	if(info->alg != 1 || (info->flags & ~VAL_NSEC3_OPTOUT) != 0)
		return 1;
	if(info->owner_hashlen != VAL_NSEC3_HASH_LEN ||
		info->nextlen != VAL_NSEC3_HASH_LEN)
		return 1;
	return 0;
}

int
val_nsec3_hash(const uint8_t *name, uint8_t alg, const uint8_t *salt,
	size_t saltlen, unsigned iterations, uint8_t *out)
{
	uint8_t lower[DNS_MAX_NAME];
	size_t nl;
	unsigned i;
	EVP_MD_CTX *ctx;
	int ok;
	if(alg != 1)
		return -1;
	nl = dname_copy_lower(lower, name);
	if(!(ctx = EVP_MD_CTX_new()))
		return -1;
	ok = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
		EVP_DigestUpdate(ctx, lower, nl) &&
		EVP_DigestUpdate(ctx, salt, saltlen) &&
		EVP_DigestFinal_ex(ctx, out, NULL);
	for(i = 0; ok && i < iterations; i++)
		ok = EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
			EVP_DigestUpdate(ctx, out, VAL_NSEC3_HASH_LEN) &&
			EVP_DigestUpdate(ctx, salt, saltlen) &&
			EVP_DigestFinal_ex(ctx, out, NULL);
	EVP_MD_CTX_free(ctx);
	return ok ? 0 : -1;
}

/** the hash of name with a record's parameters, through the cache */
static const uint8_t *
n3_hash_of(struct n3_ctx *c, const struct val_nsec3_info *in,
	const uint8_t *name)
{
	size_t i;
	struct n3_hash *h;
	for(i = 0; i < c->used; i++) {
		h = &c->cache[i];
		if(h->iter == in->iterations && h->saltlen == in->saltlen &&
			memcmp(h->salt, in->salt, in->saltlen) == 0 &&
			dname_equal(h->name, name))
			return h->hash;
	}
	if(c->used < N3_CACHE)
		h = &c->cache[c->used++];
	else {
		h = &c->cache[c->victim];
		c->victim = (c->victim + 1) % N3_CACHE;
	}
	if(c->budget) {
		/* KeyTrap's NSEC3 sibling (CVE-2023-50868): a long name
		 * and many iterations must not cost without a bound */
		unsigned cost = (unsigned)in->iterations + 1;
		if(c->budget->hash_left < cost) {
			c->budget->spent = 1;
			h->name[0] = 0;
			h->iter = ~0u;
			return NULL;
		}
		c->budget->hash_left -= cost;
		c->budget->hashed += cost;
	}
	dname_copy_lower(h->name, name);
	h->salt = in->salt;
	h->saltlen = in->saltlen;
	h->iter = in->iterations;
	if(val_nsec3_hash(name, in->alg, in->salt, in->saltlen,
		in->iterations, h->hash) != 0) {
		/* do not keep a failed entry */
		h->name[0] = 0;
		h->iter = ~0u;
		return NULL;
	}
	return h->hash;
}

/**
 * Find a usable record (in a zone above name) whose hash matches name.
 * @return its index or -1; info filled in for it.
 */
static int
n3_match(struct n3_ctx *c, const uint8_t *name, struct val_nsec3_info *info)
{
	size_t i;
	for(i = 0; i < c->n; i++) {
		const uint8_t *h;
		if(!c->use[i] || val_nsec3_parse(&c->recs[i], info) != 0 ||
			!dname_is_subdomain(name, info->zone))
			continue;
		if((h = n3_hash_of(c, info, name)) != NULL &&
			memcmp(h, info->owner_hash, VAL_NSEC3_HASH_LEN) == 0)
			return (int)i;
	}
	return -1;
}

/**
 * Find a usable record whose hash interval covers name's hash.
 * @return its index or -1; info filled in for it.
 */
static int
n3_cover(struct n3_ctx *c, const uint8_t *name, struct val_nsec3_info *info)
{
	size_t i;
	for(i = 0; i < c->n; i++) {
		const uint8_t *h, *o, *nx;
		int on;
		if(!c->use[i] || val_nsec3_parse(&c->recs[i], info) != 0 ||
			!dname_is_subdomain(name, info->zone))
			continue;
		if((h = n3_hash_of(c, info, name)) == NULL)
			continue;
		o = info->owner_hash;
		nx = info->next;
		on = memcmp(o, nx, VAL_NSEC3_HASH_LEN);
		if(on < 0) {
			if(memcmp(o, h, VAL_NSEC3_HASH_LEN) < 0 &&
				memcmp(h, nx, VAL_NSEC3_HASH_LEN) < 0)
				return (int)i;
		} else {
			/* the last record of the chain wraps around (or a
			 * one-record chain, owner == next, covers all but
			 * itself) */
			if(memcmp(o, h, VAL_NSEC3_HASH_LEN) < 0 ||
				memcmp(h, nx, VAL_NSEC3_HASH_LEN) < 0)
				return (int)i;
		}
	}
	return -1;
}

/** does a usable record above qname have more iterations than max? */
static int
n3_iter_high(struct n3_ctx *c, const uint8_t *qname, unsigned max_iter)
{
	struct val_nsec3_info info;
	size_t i;
	for(i = 0; i < c->n; i++)
		if(c->use[i] && val_nsec3_parse(&c->recs[i], &info) == 0 &&
			dname_is_subdomain(qname, info.zone) &&
			info.iterations > max_iter)
			return 1;
	return 0;
}

/**
 * Start a proof: mark the records it may use. A zone's NSEC3 chain has
 * one set of hash parameters (RFC 5155 7.2); records of a zone with
 * other parameters than its first usable record (another chain, or made
 * up to collide) are left out, so a proof is made of one chain (what
 * Unbound's val_nx_nsec3_params and val_nx_nsec3_collision expect).
 */
static void
n3_init(struct n3_ctx *c, const struct val_nrec *recs, size_t n,
	struct val_budget *b)
{
	struct val_nsec3_info in, first;
	size_t i, j;
	c->budget = b;
	c->recs = recs;
	c->n = n > N3_MAX_RECS ? N3_MAX_RECS : n;
	c->used = 0;
	c->victim = 0;
	for(i = 0; i < c->n; i++) {
		c->use[i] = 0;
		if(val_nsec3_parse(&recs[i], &in) != 0)
			continue;
		for(j = 0; j < i; j++)
			if(c->use[j] && val_nsec3_parse(&recs[j], &first) ==
				0 && dname_equal(first.zone, in.zone))
				break;
		if(j < i && (first.alg != in.alg || first.iterations !=
			in.iterations || first.saltlen != in.saltlen ||
			memcmp(first.salt, in.salt, in.saltlen) != 0))
			continue;
		c->use[i] = 1;
	}
}

/** result of a closest encloser search */
struct n3_ce {
	/** labels of the closest encloser */
	int ce_labels;
	/** the next closer's covering record was opt-out */
	int optout;
	/** the closest encloser is qname itself */
	int exists;
	/** the closest encloser's NSEC3 fields */
	struct val_nsec3_info ce_info;
};

/**
 * The closest encloser proof (RFC 5155 8.3).
 * @return 0 when proven (or qname itself matches: ce->exists), 1 when
 *	the closest encloser is an insecure delegation (NS without SOA and
 *	DS: qname lies in an unsigned child zone, whose data the parent's
 *	NSEC3 cannot deny; RFC 5155 8.9, as Unbound answers insecure), -1
 *	when not proven (no encloser, the next closer not covered, or the
 *	encloser is a DNAME or a signed delegation).
 */
static int
n3_closest_encloser(struct n3_ctx *c, const uint8_t *qname, struct n3_ce *ce)
{
	int ql = dname_count_labels(qname), l;
	struct val_nsec3_info nc;
	memset(ce, 0, sizeof(*ce));
	for(l = ql; l >= 0; l--) {
		if(n3_match(c, dname_suffix_labels(qname, l), &ce->ce_info) >= 0)
			break;
	}
	if(l < 0)
		return -1;
	ce->ce_labels = l;
	if(l == ql) {
		ce->exists = 1;
		return 0;
	}
	if(val_bitmap_has(ce->ce_info.bitmap, ce->ce_info.bmlen,
		DNS_TYPE_NS) && !val_bitmap_has(ce->ce_info.bitmap,
		ce->ce_info.bmlen, DNS_TYPE_SOA))
		return val_bitmap_has(ce->ce_info.bitmap, ce->ce_info.bmlen,
			DNS_TYPE_DS) ? -1 : 1;
	if(val_bitmap_has(ce->ce_info.bitmap, ce->ce_info.bmlen,
		DNS_TYPE_DNAME))
		return -1;
	if(n3_cover(c, dname_suffix_labels(qname, l + 1), &nc) < 0)
		return -1;
	ce->optout = (nc.flags & VAL_NSEC3_OPTOUT) != 0;
	return 0;
}

/** "*." + the suffix of qname with labels labels; -1 if too long */
static int
n3_wildcard(const uint8_t *qname, int labels, uint8_t *out)
{
	const uint8_t *suf = dname_suffix_labels(qname, labels);
	size_t sl = dname_len(suf);
	if(sl + 2 > DNS_MAX_NAME)
		return -1;
	out[0] = 1;
	out[1] = '*';
	memcpy(out + 2, suf, sl);
	return 0;
}

int
val_nsec3_prove_nxdomain(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, unsigned max_iter,
	struct val_budget *b)
{
	struct n3_ctx c;
	struct n3_ce ce;
	struct val_nsec3_info wi;
	uint8_t wc[DNS_MAX_NAME + 2];
	int r;
	n3_init(&c, recs, n, b);
	if(n3_iter_high(&c, qname, max_iter))
		return VAL_PROOF_INSECURE;
	if((r = n3_closest_encloser(&c, qname, &ce)) != 0)
		return r > 0 ? VAL_PROOF_INSECURE : VAL_PROOF_NONE;
	if(ce.exists)
		return VAL_PROOF_BOGUS;
	if(n3_wildcard(qname, ce.ce_labels, wc) != 0)
		return VAL_PROOF_NONE;
	if(n3_match(&c, wc, &wi) >= 0)
		return VAL_PROOF_BOGUS;
	if(n3_cover(&c, wc, &wi) < 0)
		return VAL_PROOF_NONE;
	/* RFC 5155 9.2: under opt-out the name may be an unsigned
	 * delegation that is not in the chain */
	if(ce.optout)
		return VAL_PROOF_INSECURE;
	return VAL_PROOF_SECURE;
}

/** NODATA from a matching record; SECURE, BOGUS, INSECURE (the record
 * is an insecure delegation: qname is the apex of an unsigned child,
 * whose data the parent cannot deny) or NONE (a signed delegation: the
 * parent side proves nothing about the child's data) */
static int
n3_nodata_at(const struct val_nsec3_info *in, uint16_t qtype, int is_root)
{
	if(val_bitmap_has(in->bitmap, in->bmlen, qtype))
		return VAL_PROOF_BOGUS;
	if(qtype != DNS_TYPE_CNAME &&
		val_bitmap_has(in->bitmap, in->bmlen, DNS_TYPE_CNAME))
		return VAL_PROOF_BOGUS;
	if(qtype == DNS_TYPE_DS) {
		if(val_bitmap_has(in->bitmap, in->bmlen, DNS_TYPE_SOA) &&
			!is_root)
			return VAL_PROOF_BOGUS;
	} else if(val_bitmap_has(in->bitmap, in->bmlen, DNS_TYPE_NS) &&
		!val_bitmap_has(in->bitmap, in->bmlen, DNS_TYPE_SOA)) {
		return val_bitmap_has(in->bitmap, in->bmlen, DNS_TYPE_DS) ?
			VAL_PROOF_NONE : VAL_PROOF_INSECURE;
	}
	return VAL_PROOF_SECURE;
}

int
val_nsec3_prove_nodata(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, uint16_t qtype, unsigned max_iter,
	struct val_budget *b)
{
	struct n3_ctx c;
	struct n3_ce ce;
	struct val_nsec3_info in;
	uint8_t wc[DNS_MAX_NAME + 2];
	int r;
	n3_init(&c, recs, n, b);
	if(n3_iter_high(&c, qname, max_iter))
		return VAL_PROOF_INSECURE;
	if(n3_match(&c, qname, &in) >= 0)
		return n3_nodata_at(&in, qtype, qname[0] == 0);
	if((r = n3_closest_encloser(&c, qname, &ce)) > 0)
		return VAL_PROOF_INSECURE;
	if(r != 0 || ce.exists)
		return VAL_PROOF_NONE;
	/* RFC 5155 8.6: a DS question at a name under opt-out */
	if(qtype == DNS_TYPE_DS && ce.optout)
		return VAL_PROOF_INSECURE;
	/* RFC 5155 8.7: wildcard NODATA */
	if(n3_wildcard(qname, ce.ce_labels, wc) != 0)
		return VAL_PROOF_NONE;
	if(n3_match(&c, wc, &in) >= 0) {
		int p = n3_nodata_at(&in, qtype, 0);
		/* the wildcard's NODATA, with the next closer name in an
		 * opt-out span: an unsigned delegation may hold qname
		 * (RFC 5155 9.2; as Unbound) */
		if(p == VAL_PROOF_SECURE && ce.optout)
			return VAL_PROOF_INSECURE;
		return p;
	}
	/* no match for qname nor its wildcard, but the next closer name
	 * is covered by an opt-out span: qname may be (or be under) an
	 * unsigned delegation left out of the chain, whose data comes
	 * without proof (RFC 5155 9.2: not secure; Unbound answers
	 * insecure, as when the data comes through a CNAME or a
	 * forwarder) */
	if(ce.optout)
		return VAL_PROOF_INSECURE;
	return VAL_PROOF_NONE;
}

int
val_nsec3_prove_wildcard(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, int wc_labels, unsigned max_iter,
	struct val_budget *b)
{
	struct n3_ctx c;
	struct val_nsec3_info in;
	n3_init(&c, recs, n, b);
	if(wc_labels < 0 || wc_labels >= dname_count_labels(qname))
		return VAL_PROOF_NONE;
	if(n3_iter_high(&c, qname, max_iter))
		return VAL_PROOF_INSECURE;
	if(n3_cover(&c, dname_suffix_labels(qname, wc_labels + 1), &in) < 0)
		return VAL_PROOF_NONE;
	/* the next closer name in an opt-out span: it may be an unsigned
	 * delegation, so the expansion is not proven (RFC 5155 9.2; as
	 * Unbound, insecure) */
	if(in.flags & VAL_NSEC3_OPTOUT)
		return VAL_PROOF_INSECURE;
	return VAL_PROOF_SECURE;
}

int
val_nsec3_prove_no_ds(const struct val_nrec *recs, size_t n,
	const uint8_t *qname, unsigned max_iter,
	struct val_budget *b)
{
	struct n3_ctx c;
	struct n3_ce ce;
	struct val_nsec3_info in;
	n3_init(&c, recs, n, b);
	if(n3_iter_high(&c, qname, max_iter))
		return VAL_PROOF_INSECURE;
	if(n3_match(&c, qname, &in) >= 0) {
		if(val_bitmap_has(in.bitmap, in.bmlen, DNS_TYPE_DS))
			return VAL_PROOF_BOGUS;
		if(val_bitmap_has(in.bitmap, in.bmlen, DNS_TYPE_SOA) &&
			qname[0] != 0)
			return VAL_PROOF_BOGUS;
		if(val_bitmap_has(in.bitmap, in.bmlen, DNS_TYPE_NS))
			return VAL_PROOF_INSECURE;
		return VAL_PROOF_SECURE;
	}
	if(n3_closest_encloser(&c, qname, &ce) != 0 || ce.exists)
		return VAL_PROOF_NONE;
	if(ce.optout)
		return VAL_PROOF_INSECURE;
	return VAL_PROOF_NONE;
}
