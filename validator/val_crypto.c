/*
 * validator/val_crypto.c - DNSSEC signatures, DS digests and key tags.
 *
 * See val_crypto.h for the rules. Design notes:
 *   - The canonical form is built in two steps: each record's RDATA is
 *     canonicalised into one scratch block (names decompressed and
 *     lower-cased for the types of the RFC 4034 6.2 list), the pieces are
 *     sorted and de-duplicated by pointer, then written out after the
 *     RRSIG prefix with the rebuilt owner, type, class and original TTL.
 *     Sorting pointers keeps the copying to one pass.
 *   - Public keys are turned into EVP_PKEYs with EVP_PKEY_fromdata (RSA:
 *     n and e; ECDSA: the group and the uncompressed point) or
 *     EVP_PKEY_new_raw_public_key (EdDSA), so nothing deprecated in
 *     OpenSSL 3 is used. ECDSA signatures come as r||s and are turned into
 *     DER for EVP_DigestVerify.
 *   - Verification allocates (the signed data, the OpenSSL objects); it is
 *     never on the cached-answer path: a cached answer carries its
 *     security status.
 */
#include "config.h"
#include "validator/val_crypto.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/locks.h"
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/param_build.h>
#include <stdlib.h>
#include <string.h>

/** RRsets up to this many RRs are put in canonical order on the stack */
#define VAL_CANON_STACK_RRS 16
/** canonical RDATA up to this many bytes is built on the stack */
#define VAL_CANON_STACK_BYTES 4096
/** signed data (as bounded in val_verify_rrsig_key) up to this many bytes
 * is built on the stack: a verify of a small RRset allocates nothing;
 * a larger one takes heap blocks */
#define VAL_SIGNED_STACK_BYTES 8192

/** largest RSA modulus accepted, bytes (4096 bits, RFC 3110's limit) */
#define VAL_RSA_MAX_MOD 512

/*
 * The verification cache: per thread, a small direct-mapped table of
 * DNSKEY RDATA -> EVP_PKEY and an EVP_PKEY_CTX already set up for verify
 * (EVP_PKEY_verify may run many times after one init), plus one digest
 * context and the digests fetched once. Building an EVP_PKEY with
 * EVP_PKEY_fromdata costs about as much as a fifth of an ECDSA verify, and
 * a zone signs thousands of RRsets with the same ZSK. Bounded: VKC_SLOTS
 * entries per thread, keys at most VKC_KEY_MAX bytes (a longer key is not
 * cached). Every thread's table is on one list (its lock is taken when a
 * thread makes its table, never on a verify) so that the last validator
 * deinit frees them all; a thread that outlives that sees the generation
 * change and makes a new table.
 */
#define VKC_SLOTS 64
#define VKC_KEY_MAX 1024

/** one cached key */
struct vkc_slot {
	/** the DNSKEY RDATA (flags, protocol, algorithm, key), NULL: free */
	uint8_t *key;
	/** its length */
	size_t len;
	/** the public key; NULL when OpenSSL refused the key */
	EVP_PKEY *pkey;
	/** verify context (RSA, ECDSA), NULL for EdDSA */
	EVP_PKEY_CTX *vctx;
};

/** a thread's table */
struct vkc {
	/** the slots */
	struct vkc_slot slot[VKC_SLOTS];
	/** digest context reused for the signed data */
	EVP_MD_CTX *md;
	/** the generation it was made in */
	unsigned gen;
	/** next on the list of all tables */
	struct vkc *next;
};

/** all tables, their generation, the number of users */
static struct vkc *vkc_all;
static unsigned vkc_gen;
static int vkc_users;
static lock_basic_type vkc_lock;
static int vkc_lock_inited;
/** this thread's table */
static __thread struct vkc *vkc_mine;
/** the generation vkc_mine was made in: compared without touching the
 * table, which a validator's deinit may have freed since */
static __thread unsigned vkc_mine_gen;
/** digests fetched once (explicit fetch: no lookup per use) */
static EVP_MD *md_sha1, *md_sha256, *md_sha384, *md_sha512;

/** free the OpenSSL objects and key of a slot */
static void
vkc_slot_clear(struct vkc_slot *s)
{
	EVP_PKEY_CTX_free(s->vctx);
	EVP_PKEY_free(s->pkey);
	free(s->key);
	memset(s, 0, sizeof(*s));
}

/** free a table */
static void
vkc_free(struct vkc *c)
{
	size_t i;
	for(i = 0; i < VKC_SLOTS; i++)
		vkc_slot_clear(&c->slot[i]);
	EVP_MD_CTX_free(c->md);
	free(c);
}

void
val_crypto_cache_ref(void)
{
	if(!vkc_lock_inited) {
		/* the validator's init runs before any worker starts */
		lock_basic_init(&vkc_lock);
		vkc_lock_inited = 1;
	}
	lock_basic_lock(&vkc_lock);
	if(vkc_users++ == 0 && !md_sha256) {
		md_sha1 = EVP_MD_fetch(NULL, "SHA1", NULL);
		md_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
		md_sha384 = EVP_MD_fetch(NULL, "SHA384", NULL);
		md_sha512 = EVP_MD_fetch(NULL, "SHA512", NULL);
	}
	lock_basic_unlock(&vkc_lock);
}

void
val_crypto_cache_unref(void)
{
	struct vkc *c, *n;
	if(!vkc_lock_inited)
		return;
	lock_basic_lock(&vkc_lock);
	if(vkc_users > 0 && --vkc_users == 0) {
		for(c = vkc_all; c; c = n) {
			n = c->next;
			vkc_free(c);
		}
		vkc_all = NULL;
		vkc_gen++;
	}
	lock_basic_unlock(&vkc_lock);
}

/** this thread's table, made on first use; NULL when out of memory or
 * when no validator holds a reference */
static struct vkc *
vkc_get(void)
{
	struct vkc *c = vkc_mine;
	if(c && vkc_mine_gen == vkc_gen)
		return c;
	vkc_mine = NULL;
	if(!vkc_lock_inited)
		return NULL;
	if(!(c = calloc(1, sizeof(*c))))
		return NULL;
	if(!(c->md = EVP_MD_CTX_new())) {
		free(c);
		return NULL;
	}
	lock_basic_lock(&vkc_lock);
	if(vkc_users == 0) {
		lock_basic_unlock(&vkc_lock);
		vkc_free(c);
		return NULL;
	}
	c->gen = vkc_gen;
	c->next = vkc_all;
	vkc_all = c;
	lock_basic_unlock(&vkc_lock);
	vkc_mine = c;
	vkc_mine_gen = c->gen;
	return c;
}

const char *
val_crypto_result_str(int r)
{
	switch(r) {
	case VAL_CRYPTO_OK: return "signature verified";
	case VAL_CRYPTO_UNSUPPORTED: return "unsupported algorithm";
	case VAL_CRYPTO_EXPIRED: return "signature expired";
	case VAL_CRYPTO_NOT_YET_VALID: return "signature not yet valid";
	case VAL_CRYPTO_BAD_SIG: return "signature does not verify";
	case VAL_CRYPTO_MALFORMED: return "malformed record";
	case VAL_CRYPTO_MISMATCH: return "signature does not fit the RRset";
	case VAL_CRYPTO_NO_KEY: return "no matching DNSKEY";
	case VAL_CRYPTO_REVOKED: return "DNSKEY is revoked";
	case VAL_CRYPTO_INTERNAL: return "internal error";
	case VAL_CRYPTO_BUDGET: return "too many signature verifications";
	default: return "unknown result";
	}
}

void
val_budget_init(struct val_budget *b, unsigned verify, unsigned hash)
{
	memset(b, 0, sizeof(*b));
	b->verify_left = verify;
	b->hash_left = hash;
}

int
val_crypto_result_ede(int r)
{
	switch(r) {
	case VAL_CRYPTO_OK: return -1;
	case VAL_CRYPTO_UNSUPPORTED: return DNS_EDE_UNSUPPORTED_DNSKEY_ALG;
	case VAL_CRYPTO_EXPIRED: return DNS_EDE_SIGNATURE_EXPIRED;
	case VAL_CRYPTO_NOT_YET_VALID: return DNS_EDE_SIGNATURE_NOT_YET_VALID;
	case VAL_CRYPTO_NO_KEY: return DNS_EDE_DNSKEY_MISSING;
	case VAL_CRYPTO_INTERNAL: return DNS_EDE_OTHER;
	default: return DNS_EDE_DNSSEC_BOGUS;
	}
}

/** test-only (the replay runner's fake-dsa for Unbound's scenarios):
 * DSA signatures (algorithms 3 and 6) pass unchecked */
static int fake_dsa;

void
val_crypto_fake_dsa(int on)
{
	fake_dsa = on;
}

int
val_algo_supported(int alg)
{
	switch(alg) {
	case 5: case 7: case 8: case 10: case 13: case 14: case 15: case 16:
		return 1;
	case 3: case 6:
		return fake_dsa;
	default:
		return 0;
	}
}

size_t
val_ds_digest_len(int t)
{
	switch(t) {
	case 1: return 20;
	case 2: return 32;
	case 4: return 48;
	default: return 0;
	}
}

int
val_ds_digest_supported(int t)
{
	return val_ds_digest_len(t) != 0;
}

uint16_t
val_keytag(const uint8_t *rdata, size_t len)
{
	uint32_t ac = 0;
	size_t i;
	if(len < 4)
		return 0;
	if(rdata[3] == 1) {
		/* RSA/MD5: the second-to-last two octets of the modulus */
		if(len < 7)
			return 0;
		return (uint16_t)((rdata[len-3] << 8) | rdata[len-2]);
	}
	for(i = 0; i < len; i++)
		ac += (i & 1) ? rdata[i] : ((uint32_t)rdata[i] << 8);
	ac += (ac >> 16) & 0xffff;
	return (uint16_t)(ac & 0xffff);
}

/** the EVP digest of a DS digest type, or NULL */
static const EVP_MD *
ds_md(int t)
{
	switch(t) {
	case 1: return md_sha1 ? md_sha1 : EVP_sha1();
	case 2: return md_sha256 ? md_sha256 : EVP_sha256();
	case 4: return md_sha384 ? md_sha384 : EVP_sha384();
	default: return NULL;
	}
}

int
val_ds_digest(const uint8_t *owner, const uint8_t *dnskey, size_t keylen,
	int digest_type, uint8_t *out, size_t *outlen)
{
	uint8_t lower[DNS_MAX_NAME];
	size_t nl = dname_copy_lower(lower, owner);
	const EVP_MD *md = ds_md(digest_type);
	EVP_MD_CTX *ctx;
	unsigned int len = 0;
	int ok;
	if(!md)
		return VAL_CRYPTO_UNSUPPORTED;
	ctx = EVP_MD_CTX_new();
	if(!ctx)
		return VAL_CRYPTO_INTERNAL;
	ok = EVP_DigestInit_ex(ctx, md, NULL) &&
		EVP_DigestUpdate(ctx, lower, nl) &&
		EVP_DigestUpdate(ctx, dnskey, keylen) &&
		EVP_DigestFinal_ex(ctx, out, &len);
	EVP_MD_CTX_free(ctx);
	if(!ok)
		return VAL_CRYPTO_INTERNAL;
	*outlen = len;
	return VAL_CRYPTO_OK;
}

int
val_ds_match(const uint8_t *owner, const uint8_t *ds, size_t dslen,
	const uint8_t *dnskey, size_t keylen)
{
	uint8_t dig[EVP_MAX_MD_SIZE];
	size_t dl = 0;
	int r;
	if(dslen < 5 || keylen < 4)
		return VAL_CRYPTO_MALFORMED;
	if(dns_read_u16(ds) != val_keytag(dnskey, keylen) ||
		ds[2] != dnskey[3])
		return VAL_CRYPTO_NO_KEY;
	if((dns_read_u16(dnskey) & VAL_DNSKEY_REVOKE))
		return VAL_CRYPTO_REVOKED;
	if(!val_ds_digest_supported(ds[3]) || !val_algo_supported(ds[2]))
		return VAL_CRYPTO_UNSUPPORTED;
	if((r = val_ds_digest(owner, dnskey, keylen, ds[3], dig, &dl)) != 0)
		return r;
	if(dslen - 4 != dl || CRYPTO_memcmp(dig, ds + 4, dl) != 0)
		return VAL_CRYPTO_BAD_SIG;
	return VAL_CRYPTO_OK;
}

int
val_check_window(const uint8_t *rrsig, size_t len, const struct val_window *w)
{
	uint32_t expi, incep, skew;
	if(len < VAL_RRSIG_FIXED)
		return VAL_CRYPTO_MALFORMED;
	if(w->skew_min == VAL_SKEW_NO_DATES)
		return VAL_CRYPTO_OK;
	expi = dns_read_u32(rrsig + 8);
	incep = dns_read_u32(rrsig + 12);
	if((int32_t)(expi - incep) < 0)
		return VAL_CRYPTO_MALFORMED;
	skew = (expi - incep) / 10;
	if(skew < w->skew_min)
		skew = w->skew_min;
	if(skew > w->skew_max)
		skew = w->skew_max;
	if((int32_t)(incep - w->now) > 0 && incep - w->now > skew)
		return VAL_CRYPTO_NOT_YET_VALID;
	if((int32_t)(w->now - expi) > 0 && w->now - expi > skew)
		return VAL_CRYPTO_EXPIRED;
	return VAL_CRYPTO_OK;
}

/** canonicalisation cursor over one RDATA */
struct canon {
	/** the RR */
	const struct val_rr *rr;
	/** read position in rr->buf */
	size_t pos;
	/** end of the RDATA in rr->buf */
	size_t end;
	/** output */
	uint8_t *out;
	/** output size */
	size_t outmax;
	/** bytes written */
	size_t o;
};

/** copy n fixed bytes; @return 0 or a val_crypto_result */
static int
canon_fixed(struct canon *c, size_t n)
{
	if(c->end - c->pos < n)
		return VAL_CRYPTO_MALFORMED;
	if(c->outmax - c->o < n)
		return VAL_CRYPTO_INTERNAL;
	memcpy(c->out + c->o, c->rr->buf + c->pos, n);
	c->pos += n;
	c->o += n;
	return 0;
}

/** copy a <character-string>; @return 0 or a val_crypto_result */
static int
canon_string(struct canon *c)
{
	if(c->pos >= c->end)
		return VAL_CRYPTO_MALFORMED;
	return canon_fixed(c, 1 + (size_t)c->rr->buf[c->pos]);
}

/** decompress and lower-case a name; @return 0 or a val_crypto_result */
static int
canon_name(struct canon *c)
{
	uint8_t name[DNS_MAX_NAME];
	size_t nl = 0, pos = c->pos;
	if(pos >= c->end)
		return VAL_CRYPTO_MALFORMED;
	/* bound the read by the RDATA end: a name may not run past it,
	 * but a pointer may point anywhere earlier in the buffer */
	if(dname_pkt_read_lower(c->rr->buf, c->end, &pos, name, &nl) != 0)
		return VAL_CRYPTO_MALFORMED;
	if(c->outmax - c->o < nl)
		return VAL_CRYPTO_INTERNAL;
	memcpy(c->out + c->o, name, nl);
	c->o += nl;
	c->pos = pos;
	return 0;
}

int
val_canon_rdata(uint16_t type, const struct val_rr *rr, uint8_t *out,
	size_t outmax, size_t *outlen)
{
	struct canon c;
	int r = 0;
	if(rr->off > rr->buflen || rr->buflen - rr->off < rr->len)
		return VAL_CRYPTO_MALFORMED;
	c.rr = rr;
	c.pos = rr->off;
	c.end = rr->off + rr->len;
	c.out = out;
	c.outmax = outmax;
	c.o = 0;
	switch(type) {
	case DNS_TYPE_NS: case DNS_TYPE_MD: case DNS_TYPE_MF:
	case DNS_TYPE_CNAME: case DNS_TYPE_MB: case DNS_TYPE_MG:
	case DNS_TYPE_MR: case DNS_TYPE_PTR: case DNS_TYPE_DNAME:
	case DNS_TYPE_NXT:
		r = canon_name(&c);
		break;
	case DNS_TYPE_SOA: case DNS_TYPE_MINFO: case DNS_TYPE_RP:
		if(!(r = canon_name(&c)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_MX: case DNS_TYPE_AFSDB: case DNS_TYPE_RT:
	case DNS_TYPE_KX:
		if(!(r = canon_fixed(&c, 2)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_PX:
		if(!(r = canon_fixed(&c, 2)) && !(r = canon_name(&c)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_SRV:
		if(!(r = canon_fixed(&c, 6)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_NAPTR:
		if(!(r = canon_fixed(&c, 4)) && !(r = canon_string(&c)) &&
			!(r = canon_string(&c)) && !(r = canon_string(&c)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_SIG: case DNS_TYPE_RRSIG:
		if(!(r = canon_fixed(&c, VAL_RRSIG_FIXED)))
			r = canon_name(&c);
		break;
	case DNS_TYPE_A6:
		if(c.pos >= c.end)
			return VAL_CRYPTO_MALFORMED;
		else {
			uint8_t plen = rr->buf[c.pos];
			if(plen > 128)
				return VAL_CRYPTO_MALFORMED;
			if(!(r = canon_fixed(&c, 1 + (size_t)(128-plen+7)/8))
				&& plen > 0)
				r = canon_name(&c);
		}
		break;
	default:
		break;
	}
	if(r)
		return r;
	/* the rest (fixed fields after the names, opaque RDATA) as is */
	if((r = canon_fixed(&c, c.end - c.pos)) != 0)
		return r;
	*outlen = c.o;
	return VAL_CRYPTO_OK;
}

/** one canonical RDATA in the scratch block */
struct canon_piece {
	/** start */
	const uint8_t *d;
	/** length */
	size_t len;
};

/** qsort order: canonical RDATA order (RFC 4034 6.3) */
static int
piece_cmp(const void *a, const void *b)
{
	const struct canon_piece *x = a, *y = b;
	size_t n = x->len < y->len ? x->len : y->len;
	int c = memcmp(x->d, y->d, n);
	if(c)
		return c;
	return x->len < y->len ? -1 : (x->len > y->len ? 1 : 0);
}

/**
 * Build the canonical owner for an RRSIG labels field.
 * @return its length, or 0 when labels is larger than the owner's.
 */
static size_t
canon_owner(const uint8_t *owner, int labels, uint8_t *out)
{
	int n = dname_count_labels(owner);
	if(n > 0 && owner[0] == 1 && owner[1] == '*')
		n--; /* a wildcard owner: the labels field does not count it */
	if(labels > n)
		return 0;
	if(labels < n) {
		const uint8_t *suf = dname_suffix_labels(owner, labels);
		out[0] = 1;
		out[1] = '*';
		return 2 + dname_copy_lower(out + 2, suf);
	}
	return dname_copy_lower(out, owner);
}

int
val_canon_signed_data(const struct val_rrset *rrset, const uint8_t *rrsig,
	size_t siglen, uint8_t *out, size_t outmax, size_t *outlen)
{
	uint8_t owner[DNS_MAX_NAME + 2];
	size_t ol, sl, i, o, scratch_sz = 0, s = 0, n = 0;
	struct canon_piece pieces_st[VAL_CANON_STACK_RRS], *pieces = NULL;
	uint8_t scratch_st[VAL_CANON_STACK_BYTES], *scratch = NULL;
	int r = VAL_CRYPTO_INTERNAL;
	if(siglen < VAL_RRSIG_FIXED + 1)
		return VAL_CRYPTO_MALFORMED;
	sl = dname_valid(rrsig + VAL_RRSIG_FIXED, siglen - VAL_RRSIG_FIXED);
	if(sl == 0)
		return VAL_CRYPTO_MALFORMED;
	ol = canon_owner(rrset->owner, rrsig[3], owner);
	if(ol == 0)
		return VAL_CRYPTO_MISMATCH;
	if(outmax < VAL_RRSIG_FIXED + sl)
		return VAL_CRYPTO_INTERNAL;
	memcpy(out, rrsig, VAL_RRSIG_FIXED);
	dname_copy_lower(out + VAL_RRSIG_FIXED, rrsig + VAL_RRSIG_FIXED);
	o = VAL_RRSIG_FIXED + sl;

	for(i = 0; i < rrset->count; i++)
		scratch_sz += (size_t)rrset->rrs[i].len + 2 * DNS_MAX_NAME;
	/* a small RRset (the usual one) is sorted on the stack */
	if(rrset->count <= VAL_CANON_STACK_RRS)
		pieces = pieces_st;
	else	pieces = calloc(rrset->count, sizeof(*pieces));
	if(scratch_sz <= sizeof(scratch_st))
		scratch = scratch_st;
	else	scratch = malloc(scratch_sz);
	if(!pieces || !scratch)
		goto fail;
	for(i = 0; i < rrset->count; i++) {
		size_t len = 0;
		r = val_canon_rdata(rrset->type, &rrset->rrs[i], scratch + s,
			scratch_sz - s, &len);
		if(r)
			goto fail;
		pieces[n].d = scratch + s;
		pieces[n].len = len;
		n++;
		s += len;
	}
	qsort(pieces, n, sizeof(*pieces), piece_cmp);
	for(i = 0; i < n; i++) {
		if(i > 0 && piece_cmp(&pieces[i-1], &pieces[i]) == 0)
			continue; /* duplicate RR */
		if(pieces[i].len > 0xffff) {
			r = VAL_CRYPTO_MALFORMED;
			goto fail;
		}
		if(outmax - o < ol + DNS_RR_FIXED + pieces[i].len) {
			r = VAL_CRYPTO_INTERNAL;
			goto fail;
		}
		memcpy(out + o, owner, ol);
		o += ol;
		dns_write_u16(out + o, rrset->type);
		dns_write_u16(out + o + 2, rrset->rrclass);
		memcpy(out + o + 4, rrsig + 4, 4); /* original TTL */
		dns_write_u16(out + o + 8, (uint16_t)pieces[i].len);
		o += DNS_RR_FIXED;
		memcpy(out + o, pieces[i].d, pieces[i].len);
		o += pieces[i].len;
	}
	*outlen = o;
	r = VAL_CRYPTO_OK;
fail:
	if(pieces != pieces_st)
		free(pieces);
	if(scratch != scratch_st)
		free(scratch);
	return r;
}

int
val_dnskey_check(const uint8_t *dnskey, size_t keylen)
{
	const uint8_t *k = dnskey + 4;
	size_t kl, el, off;
	if(keylen < 4)
		return VAL_CRYPTO_MALFORMED;
	kl = keylen - 4;
	switch(dnskey[3]) {
	case 5: case 7: case 8: case 10:
		if(kl < 1)
			return VAL_CRYPTO_MALFORMED;
		if(k[0] == 0) {
			if(kl < 3)
				return VAL_CRYPTO_MALFORMED;
			el = dns_read_u16(k + 1);
			off = 3;
		} else {
			el = k[0];
			off = 1;
		}
		/* the exponent's length is bounded before anything else:
		 * a verification costs in proportion to it (KeyTrap) */
		if(el == 0 || el > VAL_RSA_MAX_EXP || kl <= off + el ||
			kl - off - el > VAL_RSA_MAX_MOD)
			return VAL_CRYPTO_MALFORMED;
		return VAL_CRYPTO_OK;
	case 13: return kl == 64 ? VAL_CRYPTO_OK : VAL_CRYPTO_MALFORMED;
	case 14: return kl == 96 ? VAL_CRYPTO_OK : VAL_CRYPTO_MALFORMED;
	case 15: return kl == 32 ? VAL_CRYPTO_OK : VAL_CRYPTO_MALFORMED;
	case 16: return kl == 57 ? VAL_CRYPTO_OK : VAL_CRYPTO_MALFORMED;
	default: return VAL_CRYPTO_UNSUPPORTED;
	}
}

/** build an EVP_PKEY from fromdata params; NULL on failure */
static EVP_PKEY *
pkey_fromdata(const char *name, OSSL_PARAM *params)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
	EVP_PKEY *pkey = NULL;
	if(!ctx)
		return NULL;
	if(EVP_PKEY_fromdata_init(ctx) <= 0 ||
		EVP_PKEY_fromdata(ctx, &pkey, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		pkey = NULL;
	EVP_PKEY_CTX_free(ctx);
	return pkey;
}

/** RSA public key from DNSKEY key bytes (RFC 3110); NULL on failure */
static EVP_PKEY *
pkey_rsa(const uint8_t *k, size_t kl)
{
	OSSL_PARAM_BLD *bld = NULL;
	OSSL_PARAM *params = NULL;
	BIGNUM *n = NULL, *e = NULL;
	EVP_PKEY *pkey = NULL;
	size_t el, off;
	if(k[0] == 0) {
		el = dns_read_u16(k + 1);
		off = 3;
	} else {
		el = k[0];
		off = 1;
	}
	e = BN_bin2bn(k + off, (int)el, NULL);
	n = BN_bin2bn(k + off + el, (int)(kl - off - el), NULL);
	bld = OSSL_PARAM_BLD_new();
	if(!e || !n || !bld ||
		!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
		!OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
		!(params = OSSL_PARAM_BLD_to_param(bld)))
		goto fail;
	pkey = pkey_fromdata("RSA", params);
fail:
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return pkey;
}

/** ECDSA public key from the X||Y DNSKEY bytes (RFC 6605) */
static EVP_PKEY *
pkey_ec(const uint8_t *k, size_t kl, const char *group)
{
	uint8_t point[97];
	OSSL_PARAM params[3];
	point[0] = 0x04; /* uncompressed point */
	memcpy(point + 1, k, kl);
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_PKEY_PARAM_GROUP_NAME, (char *)group, 0);
	params[1] = OSSL_PARAM_construct_octet_string(
		OSSL_PKEY_PARAM_PUB_KEY, point, kl + 1);
	params[2] = OSSL_PARAM_construct_end();
	return pkey_fromdata("EC", params);
}

/**
 * Write one DER INTEGER of an unsigned big-endian number.
 * @return bytes written (at most n + 3).
 */
static size_t
der_uint(uint8_t *out, const uint8_t *v, size_t n)
{
	size_t o = 0;
	while(n > 1 && v[0] == 0) {
		v++;
		n--;
	}
	out[o++] = 0x02;
	out[o++] = (uint8_t)(n + (v[0] & 0x80 ? 1 : 0));
	if(v[0] & 0x80)
		out[o++] = 0;
	memcpy(out + o, v, n);
	return o + n;
}

/**
 * Turn an r||s ECDSA signature (at most 2 x 48 bytes) into DER without
 * BIGNUMs: a SEQUENCE of two INTEGERs, short-form lengths.
 * @return the DER length.
 */
static size_t
ecdsa_sig_der(const uint8_t *sig, size_t siglen, uint8_t *out)
{
	size_t n = 2;
	n += der_uint(out + n, sig, siglen / 2);
	n += der_uint(out + n, sig + siglen / 2, siglen / 2);
	out[0] = 0x30;
	out[1] = (uint8_t)(n - 2);
	return n;
}

/** the digest an algorithm signs with; NULL for EdDSA (or unknown) */
static const EVP_MD *
alg_md(int alg)
{
	switch(alg) {
	case 5: case 7: return md_sha1 ? md_sha1 : EVP_sha1();
	case 8: case 13: return md_sha256 ? md_sha256 : EVP_sha256();
	case 10: return md_sha512 ? md_sha512 : EVP_sha512();
	case 14: return md_sha384 ? md_sha384 : EVP_sha384();
	default: return NULL;
	}
}

/** build the public key of a DNSKEY (shape checked); NULL if refused */
static EVP_PKEY *
pkey_build(const uint8_t *dnskey, size_t keylen)
{
	const uint8_t *k = dnskey + 4;
	size_t kl = keylen - 4;
	switch(dnskey[3]) {
	case 5: case 7: case 8: case 10:
		return pkey_rsa(k, kl);
	case 13:
		return pkey_ec(k, kl, "prime256v1");
	case 14:
		return pkey_ec(k, kl, "secp384r1");
	case 15:
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, NULL,
			k, kl);
	case 16:
		return EVP_PKEY_new_raw_public_key(EVP_PKEY_ED448, NULL,
			k, kl);
	default:
		return NULL;
	}
}

/**
 * Fill a slot for a DNSKEY: the key, and for RSA and ECDSA a verify
 * context with the signature digest set.
 * @return 0, or -1 when OpenSSL failed (out of memory).
 */
static int
vkc_slot_fill(struct vkc_slot *s, const uint8_t *dnskey, size_t keylen,
	const EVP_MD *md)
{
	s->pkey = pkey_build(dnskey, keylen);
	if(!s->pkey || !md)
		return 0; /* a refused key: no signature by it verifies */
	if(!(s->vctx = EVP_PKEY_CTX_new_from_pkey(NULL, s->pkey, NULL)) ||
		EVP_PKEY_verify_init(s->vctx) <= 0 ||
		EVP_PKEY_CTX_set_signature_md(s->vctx, md) <= 0)
		return -1;
	return 0;
}

/** the slot index of a key: its length and last bytes */
static size_t
vkc_hash(const uint8_t *dnskey, size_t keylen)
{
	size_t h = keylen, i = keylen > 16 ? keylen - 16 : 0;
	for(; i < keylen; i++)
		h = h * 31 + dnskey[i];
	return h % VKC_SLOTS;
}

/**
 * Verify a signature over data with a DNSKEY (shape already checked).
 * The key comes from this thread's verification cache (built and cached
 * on a miss); RSA and ECDSA hash the data and verify the digest with the
 * cached context, EdDSA verifies the data in one shot.
 * @return VAL_CRYPTO_OK, BAD_SIG, UNSUPPORTED or INTERNAL.
 */
static int
verify_raw(const uint8_t *dnskey, size_t keylen, const uint8_t *sig,
	size_t siglen, const uint8_t *data, size_t datalen)
{
	struct vkc *c;
	struct vkc_slot own, *s = &own;
	const EVP_MD *md;
	EVP_MD_CTX *mdc = NULL;
	uint8_t dig[EVP_MAX_MD_SIZE], der[2 * (3 + 48) + 2];
	unsigned int dl = 0;
	size_t derlen;
	int alg = dnskey[3], r = VAL_CRYPTO_INTERNAL, v;
	if(alg != 5 && alg != 7 && alg != 8 && alg != 10 && alg != 13 &&
		alg != 14 && alg != 15 && alg != 16)
		return VAL_CRYPTO_UNSUPPORTED;
	if((alg == 13 || alg == 14) && (siglen != keylen - 4 ||
		siglen > 96))
		return VAL_CRYPTO_BAD_SIG;
	md = alg_md(alg);
	memset(&own, 0, sizeof(own));
	c = vkc_get();
	if(c && keylen <= VKC_KEY_MAX) {
		s = &c->slot[vkc_hash(dnskey, keylen)];
		if(!s->key || s->len != keylen ||
			memcmp(s->key, dnskey, keylen) != 0) {
			vkc_slot_clear(s);
			if(!(s->key = malloc(keylen)) ||
				vkc_slot_fill(s, dnskey, keylen, md) != 0) {
				vkc_slot_clear(s);
				return VAL_CRYPTO_INTERNAL;
			}
			memcpy(s->key, dnskey, keylen);
			s->len = keylen;
		}
	} else if(vkc_slot_fill(s, dnskey, keylen, md) != 0)
		goto done;
	if(!s->pkey) {
		/* a point not on the curve, a modulus OpenSSL refuses: the
		 * key is unusable, so no signature by it verifies */
		r = VAL_CRYPTO_BAD_SIG;
		goto done;
	}
	mdc = c ? c->md : EVP_MD_CTX_new();
	if(!mdc)
		goto done;
	if(md) {
		if(!EVP_DigestInit_ex2(mdc, md, NULL) ||
			!EVP_DigestUpdate(mdc, data, datalen) ||
			!EVP_DigestFinal_ex(mdc, dig, &dl))
			goto done;
		if(alg == 13 || alg == 14) {
			derlen = ecdsa_sig_der(sig, siglen, der);
			v = EVP_PKEY_verify(s->vctx, der, derlen, dig, dl);
		} else
			v = EVP_PKEY_verify(s->vctx, sig, siglen, dig, dl);
	} else {
		if(EVP_DigestVerifyInit(mdc, NULL, NULL, NULL, s->pkey) != 1)
			goto done;
		v = EVP_DigestVerify(mdc, sig, siglen, data, datalen);
	}
	r = v == 1 ? VAL_CRYPTO_OK : VAL_CRYPTO_BAD_SIG;
done:
	if(mdc && (!c || mdc != c->md))
		EVP_MD_CTX_free(mdc);
	else if(mdc)
		EVP_MD_CTX_reset(mdc);
	if(s == &own)
		vkc_slot_clear(&own);
	return r;
}

/** does the DNSKEY fit the RRSIG (signer, algorithm, tag, flags)? */
static int
key_fits(const uint8_t *rrsig, const uint8_t *signer,
	const uint8_t *key_owner, const uint8_t *dnskey, size_t keylen)
{
	if(keylen < 4)
		return VAL_CRYPTO_MALFORMED;
	if(!(dns_read_u16(dnskey) & VAL_DNSKEY_ZONE) || dnskey[2] != 3 ||
		dnskey[3] != rrsig[2] ||
		val_keytag(dnskey, keylen) != dns_read_u16(rrsig + 16) ||
		!dname_equal(key_owner, signer))
		return VAL_CRYPTO_NO_KEY;
	return VAL_CRYPTO_OK;
}

/**
 * Take one verification from the RRset's count (tries, may be NULL) and
 * the window's budget. @return 0, or VAL_CRYPTO_BUDGET when one is spent
 */
static int
take_verify(const struct val_window *w, int *tries)
{
	if(tries) {
		if(*tries >= VAL_MAX_RRSET_VERIFY)
			return VAL_CRYPTO_BUDGET;
		(*tries)++;
	}
	if(w->budget) {
		if(w->budget->verify_left == 0) {
			w->budget->spent = 1;
			return VAL_CRYPTO_BUDGET;
		}
		w->budget->verify_left--;
		w->budget->verified++;
	}
	return 0;
}

/** val_verify_rrsig_key, counting the public-key operation it makes in
 * tries (the RRset's) and the window's budget */
static int
verify_rrsig_key_n(const struct val_rrset *rrset, const uint8_t *rrsig,
	size_t siglen, const uint8_t *key_owner, const uint8_t *dnskey,
	size_t keylen, const struct val_window *w, int *tries)
{
	const uint8_t *signer = rrsig + VAL_RRSIG_FIXED;
	size_t sl, need, datalen = 0, i;
	uint8_t data_st[VAL_SIGNED_STACK_BYTES], *data;
	int r;
	if(siglen < VAL_RRSIG_FIXED + 1)
		return VAL_CRYPTO_MALFORMED;
	sl = dname_valid(signer, siglen - VAL_RRSIG_FIXED);
	if(sl == 0 || siglen - VAL_RRSIG_FIXED - sl == 0)
		return VAL_CRYPTO_MALFORMED;
	if(dns_read_u16(rrsig) != rrset->type ||
		!dname_is_subdomain(rrset->owner, signer))
		return VAL_CRYPTO_MISMATCH;
	if((r = key_fits(rrsig, signer, key_owner, dnskey, keylen)) != 0)
		return r;
	/* RFC 5011 2.1: a revoked key signs only its own revocation */
	if((dns_read_u16(dnskey) & VAL_DNSKEY_REVOKE) &&
		rrset->type != DNS_TYPE_DNSKEY)
		return VAL_CRYPTO_REVOKED;
	if(!val_algo_supported(rrsig[2]))
		return VAL_CRYPTO_UNSUPPORTED;
	if((rrsig[2] == 3 || rrsig[2] == 6) && fake_dsa)
		return val_check_window(rrsig, siglen, w);
	if((r = val_dnskey_check(dnskey, keylen)) != 0)
		return r;
	if((r = val_check_window(rrsig, siglen, w)) != 0)
		return r;
	/* everything cheap is checked: this is the work that counts */
	if((r = take_verify(w, tries)) != 0)
		return r;
	need = VAL_RRSIG_FIXED + DNS_MAX_NAME;
	for(i = 0; i < rrset->count; i++)
		need += DNS_MAX_NAME + 2 + DNS_RR_FIXED +
			(size_t)rrset->rrs[i].len + 2 * DNS_MAX_NAME;
	/* the signed data of a small RRset is built on the stack */
	if(need <= sizeof(data_st))
		data = data_st;
	else if(!(data = malloc(need)))
		return VAL_CRYPTO_INTERNAL;
	r = val_canon_signed_data(rrset, rrsig, siglen, data, need, &datalen);
	if(r == 0)
		r = verify_raw(dnskey, keylen, signer + sl,
			siglen - VAL_RRSIG_FIXED - sl, data, datalen);
	if(data != data_st)
		free(data);
	return r;
}

int
val_verify_rrsig_key(const struct val_rrset *rrset, const uint8_t *rrsig,
	size_t siglen, const uint8_t *key_owner, const uint8_t *dnskey,
	size_t keylen, const struct val_window *w)
{
	return verify_rrsig_key_n(rrset, rrsig, siglen, key_owner, dnskey,
		keylen, w, NULL);
}

/** how telling a failure is, to report the best one of several */
static int
fail_rank(int r)
{
	switch(r) {
	case VAL_CRYPTO_BUDGET: return 8;
	case VAL_CRYPTO_EXPIRED: case VAL_CRYPTO_NOT_YET_VALID: return 7;
	case VAL_CRYPTO_BAD_SIG: return 6;
	case VAL_CRYPTO_REVOKED: return 5;
	case VAL_CRYPTO_INTERNAL: return 4;
	case VAL_CRYPTO_UNSUPPORTED: return 3;
	case VAL_CRYPTO_MISMATCH: return 2;
	case VAL_CRYPTO_MALFORMED: return 1;
	default: return 0; /* NO_KEY */
	}
}

/**
 * val_verify_rrset with the RRset's count of verifications (tries),
 * shared by the callers that verify one RRset several times (per DS
 * matched key, per algorithm). Only the first VAL_MAX_RRSET_SIGS RRSIGs
 * are looked at, at most VAL_MAX_TAG_KEYS keys are tried per RRSIG; a
 * count or budget that runs out ends the search at once.
 */
static int
verify_rrset_n(const struct val_rrset *rrset, const struct val_rr *rrsigs,
	size_t nsigs, const struct val_rrset *keys, const struct val_window *w,
	int *ede, int *tries)
{
	int best = VAL_CRYPTO_NO_KEY;
	size_t i, j;
	if(nsigs > VAL_MAX_RRSET_SIGS)
		nsigs = VAL_MAX_RRSET_SIGS;
	for(i = 0; i < nsigs; i++) {
		const struct val_rr *s = &rrsigs[i];
		int tried = 0;
		if(s->off > s->buflen || s->buflen - s->off < s->len) {
			if(fail_rank(VAL_CRYPTO_MALFORMED) > fail_rank(best))
				best = VAL_CRYPTO_MALFORMED;
			continue;
		}
		for(j = 0; j < keys->count && tried < VAL_MAX_TAG_KEYS; j++) {
			const struct val_rr *k = &keys->rrs[j];
			int r, before = *tries;
			if(k->off > k->buflen || k->buflen - k->off < k->len)
				continue;
			r = verify_rrsig_key_n(rrset, s->buf + s->off, s->len,
				keys->owner, k->buf + k->off, k->len, w, tries);
			if(r == VAL_CRYPTO_OK) {
				if(ede)
					*ede = -1;
				return VAL_CRYPTO_OK;
			}
			if(*tries != before)
				tried++;
			if(fail_rank(r) > fail_rank(best))
				best = r;
			if(r == VAL_CRYPTO_BUDGET)
				goto out;
		}
	}
out:
	if(ede) {
		if(nsigs == 0)
			*ede = DNS_EDE_RRSIGS_MISSING;
		else
			*ede = val_crypto_result_ede(best);
	}
	return best;
}

int
val_verify_rrset(const struct val_rrset *rrset, const struct val_rr *rrsigs,
	size_t nsigs, const struct val_rrset *keys, const struct val_window *w,
	int *ede)
{
	int tries = 0;
	return verify_rrset_n(rrset, rrsigs, nsigs, keys, w, ede, &tries);
}

/** key tags computed up front for the first this many keys of a set */
#define VAL_TAGS_STACK 64

/** RDATA pointer of a val_rr (bounds checked); NULL when out of bounds */
static const uint8_t *
rr_data(const struct val_rr *r)
{
	if(r->off > r->buflen || r->buflen - r->off < r->len)
		return NULL;
	return r->buf + r->off;
}

/** is this DS usable (supported algorithm and digest, long enough)? */
static int
ds_usable(const struct val_rr *r)
{
	const uint8_t *d = rr_data(r);
	return d && r->len >= 5 && val_algo_supported(d[2]) &&
		val_ds_digest_supported(d[3]) &&
		(size_t)r->len - 4 == val_ds_digest_len(d[3]);
}

int
val_ds_set_usable(const struct val_rrset *ds)
{
	size_t i;
	for(i = 0; i < ds->count; i++)
		if(ds_usable(&ds->rrs[i]))
			return 1;
	return 0;
}

/** verify the key set with one of its keys; @return a result */
static int
verify_with_key(const struct val_rrset *keys, const struct val_rr *sigs,
	size_t nsigs, const struct val_rr *key, const struct val_window *w,
	int *tries)
{
	struct val_rrset one = *keys;
	one.rrs = key;
	one.count = 1;
	return verify_rrset_n(keys, sigs, nsigs, &one, w, NULL, tries);
}

int
val_verify_dnskeys_with_ds(const struct val_rrset *keys,
	const struct val_rr *sigs, size_t nsigs, const struct val_rrset *ds,
	const struct val_window *w, int *ede)
{
	int best = VAL_CRYPTO_NO_KEY, strong = 0, tries = 0, digests = 0;
	uint16_t tags[VAL_TAGS_STACK];
	size_t i, j;
	for(i = 0; i < ds->count; i++)
		if(ds_usable(&ds->rrs[i]) && rr_data(&ds->rrs[i])[3] != 1)
			strong = 1;
	if(!val_ds_set_usable(ds)) {
		if(ede)
			*ede = DNS_EDE_UNSUPPORTED_DS_DIGEST;
		return VAL_CRYPTO_UNSUPPORTED;
	}
	/* the key tags once, not per DS record */
	for(j = 0; j < keys->count && j < VAL_TAGS_STACK; j++) {
		const uint8_t *k = rr_data(&keys->rrs[j]);
		tags[j] = k ? val_keytag(k, keys->rrs[j].len) : 0;
	}
	for(i = 0; i < ds->count; i++) {
		const uint8_t *d = rr_data(&ds->rrs[i]);
		if(!ds_usable(&ds->rrs[i]) || (strong && d[3] == 1))
			continue;
		for(j = 0; j < keys->count; j++) {
			const uint8_t *k = rr_data(&keys->rrs[j]);
			int r;
			if(!k || keys->rrs[j].len < 4 || k[3] != d[2] ||
				(j < VAL_TAGS_STACK && tags[j] !=
				dns_read_u16(d)))
				continue;
			/* a digest per DS and key of one tag: bounded */
			if(digests++ >= VAL_MAX_DS_DIGESTS) {
				best = VAL_CRYPTO_BUDGET;
				goto out;
			}
			if(val_ds_match(keys->owner, d, ds->rrs[i].len, k,
				keys->rrs[j].len) != VAL_CRYPTO_OK)
				continue;
			r = verify_with_key(keys, sigs, nsigs, &keys->rrs[j], w,
				&tries);
			if(r == VAL_CRYPTO_OK) {
				if(ede)
					*ede = -1;
				return r;
			}
			if(fail_rank(r) > fail_rank(best))
				best = r;
			if(r == VAL_CRYPTO_BUDGET)
				goto out;
		}
	}
out:
	if(ede)
		*ede = nsigs == 0 ? DNS_EDE_RRSIGS_MISSING :
			val_crypto_result_ede(best);
	return best;
}

int
val_verify_dnskeys_with_anchors(const struct val_rrset *keys,
	const struct val_rr *sigs, size_t nsigs,
	const struct val_rrset *anchors, const struct val_window *w, int *ede)
{
	int best = VAL_CRYPTO_NO_KEY, supported = 0, tries = 0;
	size_t i, j;
	for(i = 0; i < anchors->count; i++) {
		const uint8_t *a = rr_data(&anchors->rrs[i]);
		if(!a || anchors->rrs[i].len < 4 || !val_algo_supported(a[3]))
			continue;
		supported = 1;
		if(dns_read_u16(a) & VAL_DNSKEY_REVOKE)
			continue;
		for(j = 0; j < keys->count; j++) {
			const uint8_t *k = rr_data(&keys->rrs[j]);
			int r;
			if(!k || keys->rrs[j].len != anchors->rrs[i].len ||
				memcmp(k, a, anchors->rrs[i].len) != 0)
				continue;
			r = verify_with_key(keys, sigs, nsigs, &keys->rrs[j], w,
				&tries);
			if(r == VAL_CRYPTO_OK) {
				if(ede)
					*ede = -1;
				return r;
			}
			if(fail_rank(r) > fail_rank(best))
				best = r;
			if(r == VAL_CRYPTO_BUDGET)
				goto out;
		}
	}
out:
	if(!supported) {
		if(ede)
			*ede = DNS_EDE_UNSUPPORTED_DNSKEY_ALG;
		return VAL_CRYPTO_UNSUPPORTED;
	}
	if(ede)
		*ede = nsigs == 0 ? DNS_EDE_RRSIGS_MISSING :
			val_crypto_result_ede(best);
	return best;
}

size_t
val_ds_algorithms(const struct val_rrset *ds, uint8_t *algs)
{
	uint8_t seen[256];
	size_t i, n = 0;
	memset(seen, 0, sizeof(seen));
	for(i = 0; i < ds->count; i++) {
		const uint8_t *d;
		if(!ds_usable(&ds->rrs[i]))
			continue;
		d = rr_data(&ds->rrs[i]);
		if(!seen[d[2]]) {
			seen[d[2]] = 1;
			algs[n++] = d[2];
		}
	}
	return n;
}

int
val_verify_rrset_algos(const struct val_rrset *rrset,
	const struct val_rr *rrsigs, size_t nsigs,
	const struct val_rrset *keys, const uint8_t *algs, size_t nalgs,
	const struct val_window *w, int *ede)
{
	struct val_rr *sub;
	size_t a, i, n;
	int r = VAL_CRYPTO_OK, tries = 0;
	if(nalgs == 0)
		return val_verify_rrset(rrset, rrsigs, nsigs, keys, w, ede);
	if(!(sub = calloc(nsigs ? nsigs : 1, sizeof(*sub)))) {
		if(ede)
			*ede = DNS_EDE_OTHER;
		return VAL_CRYPTO_INTERNAL;
	}
	for(a = 0; a < nalgs; a++) {
		for(i = 0, n = 0; i < nsigs; i++) {
			const uint8_t *d = rr_data(&rrsigs[i]);
			if(d && rrsigs[i].len >= VAL_RRSIG_FIXED &&
				d[2] == algs[a])
				sub[n++] = rrsigs[i];
		}
		r = verify_rrset_n(rrset, sub, n, keys, w, ede, &tries);
		if(r != VAL_CRYPTO_OK)
			break;
	}
	free(sub);
	return r;
}

uint32_t
val_rrsig_remaining(const uint8_t *rrsig, size_t len, uint32_t now)
{
	uint32_t expi;
	if(len < VAL_RRSIG_FIXED)
		return 0;
	expi = dns_read_u32(rrsig + 8);
	if((int32_t)(expi - now) <= 0)
		return 0;
	return expi - now;
}
