/*
 * tests/fuzz/fuzz_val.c - libFuzzer target for the validator's record
 * handling: DNSKEY, RRSIG, NSEC, NSEC3 and DS RDATA, the canonical form
 * and signed data, the denial-of-existence proofs.
 *
 * Input: one mode byte, then chunks, each a 16-bit big-endian length and
 * that many bytes (a chunk cut short by the end of the input is dropped).
 * Names are checked with dname_valid before use (the API takes valid
 * names); everything else goes in as it comes.
 *   mode 0  canonical RDATA: chunk 0 the type (2 bytes), chunk 1 the
 *           RDATA; the whole input is the buffer, so compression pointers
 *           in the RDATA may point back into the bytes before it.
 *   mode 1  keys: chunk 0 owner, 1 DNSKEY RDATA, 2 DS RDATA: shape check,
 *           key tag, DS digests 1, 2 and 4, DS match.
 *   mode 2  signatures: chunk 0 owner, 1 type (2 bytes), 2 RRSIG RDATA,
 *           3 DNSKEY RDATA, 4.. the RRset's RDATA: signed data and a full
 *           verification at the RRSIG's inception and at a fixed time.
 *   mode 3  NSEC: chunk 0 qname, 1 qtype (2 bytes), then (owner, RDATA)
 *           pairs: every NSEC proof.
 *   mode 4  NSEC3: as mode 3, with the NSEC3 proofs and parse.
 * Built with -fsanitize=fuzzer when configure has --enable-fuzzing; its
 * corpus (tests/fuzz/corpus/val/: seed-* files made from the signed
 * fixtures by tests/fuzz/gen_val_corpus.py, fuzz-* files a libFuzzer run
 * found and -merge=1 kept) replays in make check through
 * tests/fuzz/replay_main.c.
 */
#include "config.h"
#include "validator/val_crypto.h"
#include "validator/val_nsec.h"
#include "validator/val_nsec3.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** most chunks looked at */
#define MAX_CHUNKS 64

/** a chunk: offset and length in the input */
struct chunk {
	/** offset of its bytes */
	size_t off;
	/** length */
	size_t len;
};

/** split the input after the mode byte; @return the number of chunks */
static size_t
split(const uint8_t *data, size_t size, struct chunk *c)
{
	size_t p = 1, n = 0;
	while(n < MAX_CHUNKS && size - p >= 2) {
		size_t l = dns_read_u16(data + p);
		if(size - p - 2 < l)
			break;
		c[n].off = p + 2;
		c[n].len = l;
		n++;
		p += 2 + l;
	}
	return n;
}

/** a chunk as a valid name, or NULL */
static const uint8_t *
as_name(const uint8_t *data, const struct chunk *c)
{
	if(c->len == 0 || dname_valid(data + c->off, c->len) == 0)
		return NULL;
	return data + c->off;
}

/** a chunk as a 16-bit number */
static uint16_t
as_u16(const uint8_t *data, const struct chunk *c)
{
	return c->len >= 2 ? dns_read_u16(data + c->off) : 0;
}

/** mode 0 */
static void
fuzz_canon(const uint8_t *data, size_t size, struct chunk *c, size_t n)
{
	static uint8_t out[65535 + 2 * 255];
	struct val_rr rr;
	size_t len = 0;
	if(n < 2 || c[1].len > 0xffff)
		return;
	rr.buf = data;
	rr.buflen = size;
	rr.off = c[1].off;
	rr.len = (uint16_t)c[1].len;
	(void)val_canon_rdata(as_u16(data, &c[0]), &rr, out, sizeof(out),
		&len);
	/* and with a buffer that holds only the RDATA */
	rr.buf = data + c[1].off;
	rr.buflen = c[1].len;
	rr.off = 0;
	(void)val_canon_rdata(as_u16(data, &c[0]), &rr, out, 16, &len);
}

/** mode 1 */
static void
fuzz_keys(const uint8_t *data, struct chunk *c, size_t n)
{
	static const int dt[] = { 1, 2, 3, 4 };
	const uint8_t *owner, *key;
	uint8_t dig[64];
	size_t dl, i;
	if(n < 3 || !(owner = as_name(data, &c[0])))
		return;
	key = data + c[1].off;
	(void)val_dnskey_check(key, c[1].len);
	(void)val_keytag(key, c[1].len);
	for(i = 0; i < 4; i++)
		(void)val_ds_digest(owner, key, c[1].len, dt[i], dig, &dl);
	(void)val_ds_match(owner, data + c[2].off, c[2].len, key, c[1].len);
}

/** mode 2 */
static void
fuzz_sig(const uint8_t *data, struct chunk *c, size_t n)
{
	static uint8_t out[2 * 65536];
	struct val_rr rrs[MAX_CHUNKS], sig, key;
	struct val_rrset set, keys;
	struct val_window w;
	const uint8_t *owner;
	size_t i, len = 0;
	if(n < 4 || !(owner = as_name(data, &c[0])))
		return;
	for(i = 4; i < n; i++)
		rrs[i-4] = (struct val_rr){ data, c[i].off + c[i].len,
			c[i].off, (uint16_t)c[i].len };
	set.owner = owner;
	set.type = as_u16(data, &c[1]);
	set.rrclass = DNS_CLASS_IN;
	set.rrs = rrs;
	set.count = n - 4;
	sig = (struct val_rr){ data, c[2].off + c[2].len, c[2].off,
		(uint16_t)c[2].len };
	key = (struct val_rr){ data, c[3].off + c[3].len, c[3].off,
		(uint16_t)c[3].len };
	(void)val_canon_signed_data(&set, data + c[2].off, c[2].len, out,
		sizeof(out), &len);
	keys.owner = c[2].len > VAL_RRSIG_FIXED &&
		dname_valid(data + c[2].off + VAL_RRSIG_FIXED,
		c[2].len - VAL_RRSIG_FIXED) ? data + c[2].off +
		VAL_RRSIG_FIXED : owner;
	keys.type = DNS_TYPE_DNSKEY;
	keys.rrclass = DNS_CLASS_IN;
	keys.rrs = &key;
	keys.count = 1;
	w.skew_min = VAL_SKEW_MIN_DEFAULT;
	w.skew_max = VAL_SKEW_MAX_DEFAULT;
	w.budget = NULL;
	w.now = c[2].len >= 16 ? dns_read_u32(data + c[2].off + 12) + 1 :
		1700000000;
	(void)val_verify_rrset(&set, &sig, 1, &keys, &w, NULL);
	w.now = 1700000000;
	(void)val_verify_rrsig_key(&set, data + c[2].off, c[2].len,
		keys.owner, data + c[3].off, c[3].len, &w);
}

/** modes 3 and 4 */
static void
fuzz_denial(const uint8_t *data, struct chunk *c, size_t n, int nsec3)
{
	struct val_nrec recs[MAX_CHUNKS / 2];
	const uint8_t *qname;
	uint16_t qtype;
	size_t i, nr = 0;
	int labels;
	if(n < 2 || !(qname = as_name(data, &c[0])))
		return;
	qtype = as_u16(data, &c[1]);
	for(i = 2; i + 1 < n; i += 2) {
		const uint8_t *o = as_name(data, &c[i]);
		if(!o)
			continue;
		recs[nr].owner = o;
		recs[nr].rdata = data + c[i+1].off;
		recs[nr].len = c[i+1].len;
		nr++;
	}
	labels = dname_count_labels(qname);
	if(nsec3) {
		struct val_nsec3_info in;
		for(i = 0; i < nr; i++)
			(void)val_nsec3_parse(&recs[i], &in);
		(void)val_nsec3_prove_nxdomain(recs, nr, qname, 20, NULL);
		(void)val_nsec3_prove_nodata(recs, nr, qname, qtype, 20, NULL);
		(void)val_nsec3_prove_wildcard(recs, nr, qname,
			labels > 0 ? labels - 1 : 0, 20, NULL);
		(void)val_nsec3_prove_no_ds(recs, nr, qname, 20, NULL);
		return;
	}
	for(i = 0; i < nr; i++) {
		(void)val_nsec_has_type(&recs[i], qtype);
		(void)val_nsec_covers(&recs[i], qname);
		(void)val_nsec_closest_encloser(&recs[i], qname);
	}
	(void)val_nsec_prove_nxdomain(recs, nr, qname);
	(void)val_nsec_prove_nodata(recs, nr, qname, qtype);
	(void)val_nsec_prove_wildcard(recs, nr, qname,
		labels > 0 ? labels - 1 : 0);
	(void)val_nsec_prove_no_ds(recs, nr, qname);
}

/** the fuzz entry point */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct chunk c[MAX_CHUNKS];
	size_t n;
	if(size < 1 || size > 65536)
		return 0;
	n = split(data, size, c);
	switch(data[0] % 5) {
	case 0: fuzz_canon(data, size, c, n); break;
	case 1: fuzz_keys(data, c, n); break;
	case 2: fuzz_sig(data, c, n); break;
	case 3: fuzz_denial(data, c, n, 0); break;
	default: fuzz_denial(data, c, n, 1); break;
	}
	return 0;
}
