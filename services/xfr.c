/*
 * services/xfr.c - the zone transfer client.
 *
 * See services/xfr.h for who runs what. The layout of this file: TSIG
 * (sign a request, verify a stream of replies), the stream parser (a list
 * of reply messages into a full zone or a list of differences), the
 * difference application, the network (one transfer over TCP with poll
 * deadlines), url: downloads (the HTTP client is services/http_fetch.c;
 * here the body becomes a zone), and the service thread with its task
 * timers.
 *
 * The network and the clock are reached only through the service's
 * transport (struct xfr_transport, given at creation): the real one below
 * (TCP sockets with poll deadlines, time(NULL)) on the service's thread in
 * the daemon, or a fake network and clock driven from the caller's loop
 * with xfr_service_run_due (tests, the replay runner). url: downloads go
 * through services/http_fetch.c and are not faked.
 *
 * Locking: the service mutex guards the task list and every task's
 * timers, flags and status text. The thread drops it while a transfer
 * runs, so a NOTIFY arriving meanwhile only sets the task's flag (the task
 * runs again after the transfer). Tasks are only added, never removed,
 * while the service runs; all are freed by xfr_service_delete after the
 * thread has stopped.
 */
#include "config.h"
#include "services/xfr.h"
#include "services/http_fetch.h"
#include "services/deadline_io.h"
#include "util/config_auth.h"
#include "util/log.h"
#include "dns/name.h"
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/time.h>
#include <openssl/hmac.h>
#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <arpa/inet.h>
#include <netdb.h>
#include <stdio.h>
#include <ctype.h>
#ifndef HAVE_PTHREAD
/* without threads there is no transfer thread (xfr_service_start fails
 * and auth zones are served from their zone files): the transfer code
 * below is compiled, checked, and not called */
#pragma GCC diagnostic ignored "-Wunused-function"
#endif
#ifdef HAVE_PTHREAD
#include <pthread.h>
#endif

/** the TSIG RR type */
#define TYPE_TSIG 250
/** fudge we sign with, seconds */
#define TSIG_FUDGE 300
/** most unsigned messages between two signed ones (RFC 8945 5.3.1) */
#define TSIG_MAX_UNSIGNED 99
/** most bytes one transfer may bring */
#define XFR_MAX_BYTES (256u * 1024 * 1024)
/** retry when no SOA timers are known yet (no data), seconds */
#define XFR_RETRY_NODATA 10
/** bounds of the SOA timers we follow, seconds */
#define XFR_MIN_TIMER 1
/** the longest we sleep without looking */
#define XFR_MAX_TIMER 86400

/* ---------------- TSIG ---------------- */

/** write a 16-bit value */
static void
put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/** read a 16-bit value */
static unsigned
get16(const uint8_t *p)
{
	return ((unsigned)p[0] << 8) | p[1];
}

/** write a 48-bit time */
static void
put48(uint8_t *p, uint64_t v)
{
	int i;
	for(i = 5; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

/** read a 48-bit time */
static uint64_t
get48(const uint8_t *p)
{
	uint64_t v = 0;
	int i;
	for(i = 0; i < 6; i++)
		v = (v << 8) | p[i];
	return v;
}

int
xfr_tsig_key_init(struct xfr_tsig_key *k, const char *name, const char *alg,
	const char *secret)
{
	const char *algname;
	size_t l = sizeof(k->name);
	int n;
	memset(k, 0, sizeof(*k));
	if(dname_from_str(name, k->name, &l) != 0)
		return -1;
	k->name_len = l;
	dname_tolower(k->name);
	if(strcasecmp(alg, "hmac-sha256") == 0) {
		k->md = "SHA256";
		algname = "hmac-sha256.";
	} else if(strcasecmp(alg, "hmac-sha1") == 0) {
		k->md = "SHA1";
		algname = "hmac-sha1.";
	} else if(strcasecmp(alg, "hmac-sha512") == 0) {
		k->md = "SHA512";
		algname = "hmac-sha512.";
	} else
		return -1;
	l = sizeof(k->alg);
	if(dname_from_str(algname, k->alg, &l) != 0)
		return -1;
	k->alg_len = l;
	if(strlen(secret) > 340)
		return -1;
	{
		/* EVP_DecodeBlock counts the padding as zero bytes */
		size_t sl = strlen(secret), pad = 0;
		if(sl == 0 || sl % 4 != 0 || sl / 4 * 3 > sizeof(k->secret))
			return -1;
		if(secret[sl - 1] == '=')
			pad++;
		if(sl > 1 && secret[sl - 2] == '=')
			pad++;
		n = EVP_DecodeBlock(k->secret, (const unsigned char *)secret,
			(int)sl);
		if(n <= (int)pad)
			return -1;
		n -= (int)pad;
	}
	k->secret_len = (size_t)n;
	return 0;
}

/** the TSIG variables (RFC 8945 4.3.3) into buf; @return length */
static size_t
tsig_vars(const struct xfr_tsig_key *k, uint8_t *buf, uint64_t t,
	unsigned fudge, unsigned error, const uint8_t *other,
	unsigned other_len, int timers_only)
{
	size_t n = 0;
	if(!timers_only) {
		memcpy(buf, k->name, k->name_len);
		n = k->name_len;
		put16(buf + n, 255); /* class ANY */
		n += 2;
		memset(buf + n, 0, 4); /* TTL */
		n += 4;
		memcpy(buf + n, k->alg, k->alg_len);
		n += k->alg_len;
	}
	put48(buf + n, t);
	n += 6;
	put16(buf + n, fudge);
	n += 2;
	if(timers_only)
		return n;
	put16(buf + n, error);
	n += 2;
	put16(buf + n, other_len);
	n += 2;
	if(other_len) {
		memcpy(buf + n, other, other_len);
		n += other_len;
	}
	return n;
}

/** HMAC over the pieces; @return MAC length or 0 */
static size_t
tsig_hmac(const struct xfr_tsig_key *k, const uint8_t *const *part,
	const size_t *plen, int nparts, uint8_t *mac)
{
	size_t total = 0, n = 0;
	unsigned int ml = 0;
	uint8_t *buf;
	const EVP_MD *md = EVP_get_digestbyname(k->md);
	int i;
	if(!md)
		return 0;
	for(i = 0; i < nparts; i++)
		total += plen[i];
	if(!(buf = malloc(total ? total : 1)))
		return 0;
	for(i = 0; i < nparts; i++) {
		if(plen[i])
			memcpy(buf + n, part[i], plen[i]);
		n += plen[i];
	}
	if(!HMAC(md, k->secret, (int)k->secret_len, buf, total, mac, &ml))
		ml = 0;
	free(buf);
	return ml;
}

int
xfr_tsig_sign(struct xfr_tsig_state *st, uint8_t *pkt, size_t *len,
	size_t max, uint64_t now)
{
	const struct xfr_tsig_key *k = st->key;
	uint8_t vars[600], mac[64];
	const uint8_t *part[2];
	size_t plen[2], ml, n = *len, need;
	part[0] = pkt;
	plen[0] = *len;
	part[1] = vars;
	plen[1] = tsig_vars(k, vars, now, TSIG_FUDGE, 0, NULL, 0, 0);
	if(*len < 12 || !(ml = tsig_hmac(k, part, plen, 2, mac)))
		return -1;
	need = k->name_len + 10 + k->alg_len + 10 + ml + 6;
	if(n + need > max)
		return -1;
	memcpy(pkt + n, k->name, k->name_len);
	n += k->name_len;
	put16(pkt + n, TYPE_TSIG);
	put16(pkt + n + 2, 255);
	memset(pkt + n + 4, 0, 4);
	put16(pkt + n + 8, (unsigned)(k->alg_len + 16 + ml));
	n += 10;
	memcpy(pkt + n, k->alg, k->alg_len);
	n += k->alg_len;
	put48(pkt + n, now);
	put16(pkt + n + 6, TSIG_FUDGE);
	put16(pkt + n + 8, (unsigned)ml);
	n += 10;
	memcpy(pkt + n, mac, ml);
	n += ml;
	memcpy(pkt + n, pkt, 2); /* original ID */
	put16(pkt + n + 2, 0);
	put16(pkt + n + 4, 0);
	n += 6;
	put16(pkt + 10, get16(pkt + 10) + 1);
	*len = n;
	memcpy(st->mac, mac, ml);
	st->mac_len = ml;
	st->later = 0;
	st->pending_len = 0;
	st->pending_num = 0;
	return 0;
}

/** skip a name in a packet; @return new position or 0 on error */
static size_t
skip_name(const uint8_t *pkt, size_t len, size_t p)
{
	while(p < len) {
		uint8_t c = pkt[p];
		if((c & 0xc0) == 0xc0)
			return p + 2 <= len ? p + 2 : 0;
		if(c & 0xc0)
			return 0;
		p += (size_t)c + 1;
		if(c == 0)
			return p <= len ? p : 0;
	}
	return 0;
}

/** find the last RR of the additional section; @return its offset, 0 */
static size_t
last_rr(const uint8_t *pkt, size_t len)
{
	size_t p = 12, last = 0;
	unsigned qd, rrs, i;
	if(len < 12)
		return 0;
	qd = get16(pkt + 4);
	rrs = get16(pkt + 6) + get16(pkt + 8) + get16(pkt + 10);
	for(i = 0; i < qd; i++) {
		if(!(p = skip_name(pkt, len, p)) || p + 4 > len)
			return 0;
		p += 4;
	}
	for(i = 0; i < rrs; i++) {
		last = p;
		if(!(p = skip_name(pkt, len, p)) || p + 10 > len)
			return 0;
		p += 10 + get16(pkt + p + 8);
		if(p > len)
			return 0;
	}
	return (rrs && p == len) ? last : 0;
}

/** append a message to the unsigned ones; @return 0 or -1 */
static int
pending_add(struct xfr_tsig_state *st, const uint8_t *pkt, size_t len)
{
	if(st->pending_len + len > st->pending_max) {
		size_t m = (st->pending_len + len) * 2;
		uint8_t *n = realloc(st->pending, m);
		if(!n)
			return -1;
		st->pending = n;
		st->pending_max = m;
	}
	memcpy(st->pending + st->pending_len, pkt, len);
	st->pending_len += len;
	st->pending_num++;
	return 0;
}

int
xfr_tsig_verify(struct xfr_tsig_state *st, uint8_t *pkt, size_t *len,
	uint64_t now, const char **err)
{
	const struct xfr_tsig_key *k = st->key;
	size_t off = last_rr(pkt, *len), p, rdend, ml, cl;
	uint8_t name[256], alg[256], vars[600], prior[66], mac[64];
	const uint8_t *part[4], *rmac, *other;
	size_t plen[4];
	unsigned error, fudge, other_len, origid;
	uint64_t t;
	int np = 0;
	*err = NULL;
	if(!off || get16(pkt + 10) == 0 || (p = skip_name(pkt, *len, off)) == 0
		|| get16(pkt + p) != TYPE_TSIG) {
		if(!st->later) {
			*err = "the reply is not signed (TSIG expected)";
			return -1;
		}
		if(st->pending_num >= TSIG_MAX_UNSIGNED ||
			pending_add(st, pkt, *len) != 0) {
			*err = "too many unsigned messages in the reply";
			return -1;
		}
		return 0;
	}
	/* the owner and the algorithm are uncompressed (RFC 8945 4.2) */
	{
		size_t l = 0, q = off;
		while(q < p && l < sizeof(name) && (pkt[q] & 0xc0) == 0) {
			size_t c = pkt[q];
			memcpy(name + l, pkt + q, c + 1);
			l += c + 1;
			q += c + 1;
			if(c == 0)
				break;
		}
		if(q != p || l != k->name_len) {
			*err = "TSIG of another key";
			return -1;
		}
		dname_tolower(name);
		if(memcmp(name, k->name, l) != 0) {
			*err = "TSIG of another key";
			return -1;
		}
	}
	if(get16(pkt + p + 2) != 255 || get16(pkt + p + 4) != 0 ||
		get16(pkt + p + 6) != 0) {
		*err = "malformed TSIG (class ANY and TTL 0 expected)";
		return -1;
	}
	rdend = p + 10 + get16(pkt + p + 8);
	if(rdend != *len) {
		*err = "malformed TSIG";
		return -1;
	}
	p += 10;
	{
		size_t l = 0;
		int complete = 0;
		while(p < rdend && l < sizeof(alg) - 64) {
			size_t c = pkt[p];
			if(c & 0xc0 || p + c + 1 > rdend)
				break;
			memcpy(alg + l, pkt + p, c + 1);
			l += c + 1;
			p += c + 1;
			if(c == 0) {
				complete = 1;
				break;
			}
		}
		if(!complete) {
			*err = "malformed TSIG";
			return -1;
		}
		dname_tolower(alg);
		if(l != k->alg_len || memcmp(alg, k->alg, l) != 0) {
			*err = "TSIG with another algorithm";
			return -1;
		}
	}
	if(p + 10 > rdend) {
		*err = "malformed TSIG";
		return -1;
	}
	t = get48(pkt + p);
	fudge = get16(pkt + p + 6);
	ml = get16(pkt + p + 8);
	p += 10;
	rmac = pkt + p;
	p += ml;
	if(p + 6 > rdend || ml > sizeof(mac)) {
		*err = "malformed TSIG";
		return -1;
	}
	origid = get16(pkt + p);
	error = get16(pkt + p + 2);
	other_len = get16(pkt + p + 4);
	other = pkt + p + 6;
	if(p + 6 + other_len != rdend || rdend != *len) {
		*err = "malformed TSIG";
		return -1;
	}
	if(error != 0) {
		*err = error == 17 ? "the server does not know the key "
			"(BADKEY)" : error == 16 ? "the server says the "
			"signature is bad (BADSIG)" : error == 18 ? "the server "
			"says the time is off (BADTIME)" : "TSIG error";
		return -1;
	}
	/* strip: the digest covers the message without its TSIG, with the
	 * original ID and the ARCOUNT before the TSIG was added */
	*len = off;
	put16(pkt, origid);
	put16(pkt + 10, get16(pkt + 10) - 1);
	put16(prior, (unsigned)st->mac_len);
	memcpy(prior + 2, st->mac, st->mac_len);
	part[np] = prior;
	plen[np++] = st->mac_len + 2;
	if(st->later && st->pending_len) {
		part[np] = st->pending;
		plen[np++] = st->pending_len;
	}
	part[np] = pkt;
	plen[np++] = *len;
	part[np] = vars;
	plen[np++] = tsig_vars(k, vars, t, fudge, error, other, other_len,
		st->later);
	cl = tsig_hmac(k, part, plen, np, mac);
	if(cl == 0 || cl != ml || CRYPTO_memcmp(mac, rmac, ml) != 0) {
		*err = "TSIG signature does not verify (wrong key?)";
		return -1;
	}
	if((now > t ? now - t : t - now) > fudge) {
		*err = "TSIG time is outside the fudge (clocks differ)";
		return -1;
	}
	memcpy(st->mac, mac, ml);
	st->mac_len = ml;
	st->later = 1;
	st->pending_len = 0;
	st->pending_num = 0;
	return 1;
}

void
xfr_tsig_state_clear(struct xfr_tsig_state *st)
{
	free(st->pending);
	st->pending = NULL;
	st->pending_len = st->pending_max = 0;
	st->pending_num = 0;
}

/* ---------------- the reply stream ---------------- */

void
xfr_result_clear(struct xfr_result *res)
{
	size_t i;
	if(res->full)
		ldns_rr_list_deep_free(res->full);
	for(i = 0; i < res->num_diffs; i++) {
		ldns_rr_list_deep_free(res->diffs[i].del);
		ldns_rr_list_deep_free(res->diffs[i].add);
	}
	free(res->diffs);
	memset(res, 0, sizeof(*res));
}

/** @return serial of an SOA RR */
static uint32_t
soa_serial(const ldns_rr *rr)
{
	return ldns_rdf2native_int32(ldns_rr_rdf(rr, 2));
}

/** @return 1 when a is newer than b (RFC 1982) */
static int
serial_newer(uint32_t a, uint32_t b)
{
	return a != b && (uint32_t)(a - b) < 0x80000000u;
}

/** @return 1 when rr is an SOA with a usable rdata */
static int
is_soa(const ldns_rr *rr)
{
	return ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA &&
		ldns_rr_rd_count(rr) == 7;
}

int
xfr_parse_stream(const ldns_rdf *zone, int have, uint32_t serial,
	ldns_pkt **msgs, size_t n, struct xfr_result *res, int *uptodate,
	const char **err)
{
	size_t i, j, count = 0, k;
	const ldns_rr *first = NULL, *second = NULL;
	uint32_t snew;
	int incr, phase = 0, done = 0;
	struct xfr_diff *cur = NULL;
	memset(res, 0, sizeof(*res));
	*uptodate = 0;
	*err = NULL;
	for(i = 0; i < n; i++) {
		count += ldns_rr_list_rr_count(ldns_pkt_answer(msgs[i]));
		if(!first && ldns_rr_list_rr_count(ldns_pkt_answer(msgs[i])))
			first = ldns_rr_list_rr(ldns_pkt_answer(msgs[i]), 0);
	}
	if(!first)
		return 1;
	if(!is_soa(first) || ldns_dname_compare(ldns_rr_owner(first),
		zone) != 0) {
		*err = "the reply does not start with the zone's SOA";
		return -1;
	}
	snew = soa_serial(first);
	if(count == 1) {
		if(have && !serial_newer(snew, serial)) {
			*uptodate = 1;
			res->serial = snew;
			return 0;
		}
		return 1;
	}
	/* the second RR decides: an SOA (with the serial we have) starts
	 * an incremental reply; anything else is a full zone */
	for(i = 0, k = 0; i < n && !second; i++) {
		ldns_rr_list *an = ldns_pkt_answer(msgs[i]);
		for(j = 0; j < ldns_rr_list_rr_count(an); j++, k++)
			if(k == 1) {
				second = ldns_rr_list_rr(an, j);
				break;
			}
	}
	incr = have && second && is_soa(second) && soa_serial(second) ==
		serial && snew != serial;
	res->kind = incr ? XFR_INCR : XFR_FULL;
	res->serial = snew;
	if(!incr && !(res->full = ldns_rr_list_new()))
		goto oom;
	k = 0;
	for(i = 0; i < n; i++) {
		ldns_rr_list *an = ldns_pkt_answer(msgs[i]);
		for(j = 0; j < ldns_rr_list_rr_count(an); j++, k++) {
			const ldns_rr *rr = ldns_rr_list_rr(an, j);
			ldns_rr *c;
			if(done) {
				*err = "records after the closing SOA";
				goto fail;
			}
			if(k == 0)
				continue;
			if(!incr) {
				if(is_soa(rr)) {
					if(soa_serial(rr) != snew) {
						*err = "the closing SOA has "
							"another serial";
						goto fail;
					}
					done = 1;
					continue;
				}
				if(!ldns_dname_is_subdomain(ldns_rr_owner(rr),
					zone) && ldns_dname_compare(
					ldns_rr_owner(rr), zone) != 0) {
					*err = "a record outside the zone";
					goto fail;
				}
				if(!(c = ldns_rr_clone(rr)) ||
					!ldns_rr_list_push_rr(res->full, c)) {
					ldns_rr_free(c);
					goto oom;
				}
				continue;
			}
			if(is_soa(rr)) {
				uint32_t s = soa_serial(rr);
				if(phase == 2 && cur && s == snew &&
					cur->to == snew) {
					done = 1;
					continue;
				}
				if(phase == 0 || phase == 2) {
					struct xfr_diff *d = realloc(res->diffs,
						(res->num_diffs + 1) *
						sizeof(*d));
					if(!d)
						goto oom;
					res->diffs = d;
					cur = &d[res->num_diffs++];
					memset(cur, 0, sizeof(*cur));
					cur->from = s;
					if(!(cur->del = ldns_rr_list_new()) ||
						!(cur->add = ldns_rr_list_new()))
						goto oom;
					phase = 1;
				} else {
					cur->to = s;
					phase = 2;
				}
			} else if(phase == 0) {
				*err = "malformed incremental reply";
				goto fail;
			}
			if(!(c = ldns_rr_clone(rr)) || !ldns_rr_list_push_rr(
				phase == 1 ? cur->del : cur->add, c)) {
				ldns_rr_free(c);
				goto oom;
			}
		}
	}
	if(!done) {
		xfr_result_clear(res);
		return 1;
	}
	if(!incr) {
		/* SOA first */
		ldns_rr *c = ldns_rr_clone(first);
		ldns_rr_list *l = ldns_rr_list_new();
		if(!c || !l || !ldns_rr_list_push_rr(l, c) ||
			!ldns_rr_list_cat(l, res->full)) {
			ldns_rr_free(c);
			if(l)
				ldns_rr_list_free(l);
			goto oom;
		}
		ldns_rr_list_free(res->full); /* the RRs moved to l */
		res->full = l;
	}
	return 0;
oom:
	*err = "out of memory";
fail:
	xfr_result_clear(res);
	return -1;
}

/** @return 1 when two RRs are the same record (TTL ignored) */
static int
rr_same(const ldns_rr *a, const ldns_rr *b)
{
	return ldns_rr_compare_no_rdata(a, b) == 0 &&
		ldns_rr_compare(a, b) == 0;
}

/** remove the RR at j of a list, the ones after it moving up (the
 * order is kept: it is the order of the zone file written) */
static void
list_remove_at(ldns_rr_list *l, size_t j)
{
	size_t i, n = ldns_rr_list_rr_count(l);
	for(i = j; i + 1 < n; i++)
		ldns_rr_list_set_rr(l, ldns_rr_list_rr(l, i + 1), i);
	ldns_rr_list_set_rr_count(l, n - 1);
}

/**
 * The last record of an RRset went (the deleted rr was of its owner and
 * type): the RRSIGs that covered it go to the end of the list, as in
 * Unbound, whose zone keeps such signatures in the owner's RRSIG RRset,
 * appended there (and writes them in that order).
 * @param si: the SOA's place. @return the SOA's place after the moves.
 */
static size_t
sigs_to_end(ldns_rr_list *l, const ldns_rr *rr, size_t si)
{
	size_t i, n = ldns_rr_list_rr_count(l), moved = 0;
	ldns_rr_type t = ldns_rr_get_type(rr);
	if(t == LDNS_RR_TYPE_RRSIG)
		return si;
	for(i = 0; i < n; i++) {
		const ldns_rr *x = ldns_rr_list_rr(l, i);
		if(ldns_rr_get_type(x) == t && ldns_dname_compare(
			ldns_rr_owner(x), ldns_rr_owner(rr)) == 0)
			return si; /* the RRset has records left */
	}
	for(i = 0; i + moved < n; ) {
		ldns_rr *x = ldns_rr_list_rr(l, i);
		if(ldns_rr_get_type(x) == LDNS_RR_TYPE_RRSIG &&
			ldns_rr_rd_count(x) > 0 && ldns_rdf2native_int16(
			ldns_rr_rdf(x, 0)) == (uint16_t)t && ldns_dname_compare(
			ldns_rr_owner(x), ldns_rr_owner(rr)) == 0) {
			list_remove_at(l, i);
			ldns_rr_list_set_rr_count(l, n);
			ldns_rr_list_set_rr(l, x, n - 1);
			if(si > i && si != (size_t)-1)
				si--;
			moved++;
			continue;
		}
		i++;
	}
	return si;
}

ldns_rr_list *
xfr_apply(const ldns_rr_list *zone, const struct xfr_result *res,
	const char **err)
{
	ldns_rr_list *cur;
	size_t d, i, j, si = 0;
	*err = NULL;
	/* the SOA: first in a transfer's list, anywhere in a sorted zone */
	while(zone && si < ldns_rr_list_rr_count(zone) &&
		!is_soa(ldns_rr_list_rr(zone, si)))
		si++;
	if(res->kind != XFR_INCR || !zone || si == ldns_rr_list_rr_count(zone)) {
		*err = "not an incremental result for a zone with an SOA";
		return NULL;
	}
	if(!(cur = ldns_rr_list_clone(zone))) {
		*err = "out of memory";
		return NULL;
	}
	for(d = 0; d < res->num_diffs; d++) {
		const struct xfr_diff *df = &res->diffs[d];
		if(soa_serial(ldns_rr_list_rr(cur, si)) != df->from) {
			*err = "a difference starts from another serial";
			goto fail;
		}
		for(i = 0; i < ldns_rr_list_rr_count(df->del); i++) {
			const ldns_rr *rr = ldns_rr_list_rr(df->del, i);
			size_t n = ldns_rr_list_rr_count(cur);
			if(is_soa(rr))
				continue; /* the SOA is replaced below */
			for(j = 0; j < n; j++)
				if(rr_same(ldns_rr_list_rr(cur, j), rr))
					break;
			if(j == n) {
				*err = "a difference deletes a record the zone "
					"does not have";
				goto fail;
			}
			ldns_rr_free(ldns_rr_list_rr(cur, j));
			list_remove_at(cur, j);
			if(si > j)
				si--;
			si = sigs_to_end(cur, rr, si);
		}
		for(i = 0; i < ldns_rr_list_rr_count(df->add); i++) {
			const ldns_rr *rr = ldns_rr_list_rr(df->add, i);
			ldns_rr *c = ldns_rr_clone(rr);
			if(!c)
				goto oom;
			if(is_soa(rr)) {
				/* the SOA keeps its place */
				ldns_rr_free(ldns_rr_list_rr(cur, si));
				ldns_rr_list_set_rr(cur, c, si);
				continue;
			}
			if(!ldns_rr_list_push_rr(cur, c)) {
				ldns_rr_free(c);
				goto oom;
			}
		}
		if(soa_serial(ldns_rr_list_rr(cur, si)) != df->to) {
			*err = "a difference does not end at its serial";
			goto fail;
		}
	}
	return cur;
oom:
	*err = "out of memory";
fail:
	ldns_rr_list_deep_free(cur);
	return NULL;
}

/* ---------------- the network ---------------- */

/** an exchange of the real transport: one TCP connection */
struct xfr_tcp_conn {
	/** the socket (non-blocking) */
	int fd;
	/** the service's stop flag */
	volatile int *stop;
};

/** the real transport's open: connect over TCP */
static void *
real_open(void *ctx, const struct netaddr *addr, volatile int *stop,
	char *why, size_t whylen)
{
	struct xfr_tcp_conn *c = malloc(sizeof(*c));
	(void)ctx;
	if(!c) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	c->stop = stop;
	if((c->fd = dio_tcp_connect(addr, XFR_TIMEOUT_MS, stop)) < 0) {
		snprintf(why, whylen, "cannot connect: %s", strerror(errno));
		free(c);
		return NULL;
	}
	return c;
}

/** the real transport's send: the length, then the message */
static int
real_send(void *conn, const uint8_t *msg, size_t len)
{
	struct xfr_tcp_conn *c = conn;
	struct timeval dl;
	uint8_t lenb[2];
	if(len > 65535)
		return -1;
	put16(lenb, (unsigned)len);
	dio_deadline_in(&dl, XFR_TIMEOUT_MS);
	if(dio_write_full(c->fd, lenb, 2, &dl, c->stop) != 0)
		return -1;
	return dio_write_full(c->fd, msg, len, &dl, c->stop);
}

/** the real transport's recv: a length, then that many bytes */
static int
real_recv(void *conn, uint8_t *buf, size_t max)
{
	struct xfr_tcp_conn *c = conn;
	struct timeval dl;
	uint8_t lenb[2];
	size_t ml;
	dio_deadline_in(&dl, XFR_TIMEOUT_MS);
	if(dio_read_full(c->fd, lenb, 2, &dl, c->stop) != 0 ||
		(ml = get16(lenb)) > max ||
		dio_read_full(c->fd, buf, ml, &dl, c->stop) != 0)
		return -1;
	return (int)ml;
}

/** the real transport's close */
static void
real_close(void *conn)
{
	struct xfr_tcp_conn *c = conn;
	close(c->fd);
	free(c);
}

/** the real transport's clock */
static time_t
real_now(void *ctx)
{
	(void)ctx;
	return time(NULL);
}

/** the real transport: TCP sockets, the system clock */
static const struct xfr_transport xfr_real_transport = {
	real_open, real_send, real_recv, real_close, real_now, NULL
};

/** one transfer attempt from one primary, over the transport tp.
 * @return 0 (res or *uptodate set), -1 failure, -2 the primary refused
 * IXFR (try AXFR). */
static int
xfr_fetch(const struct xfr_transport *tp, const ldns_rdf *zone,
	const struct xfr_primary *pr, int ixfr, uint32_t serial,
	struct xfr_result *res, int *uptodate, volatile int *stop, char *why,
	size_t whylen)
{
	ldns_pkt *q = NULL, **msgs = NULL;
	size_t nmsgs = 0, maxmsgs = 0, total = 0, wlen = 0;
	uint8_t *wire = NULL, *buf = NULL;
	struct xfr_tsig_state ts;
	void *conn = NULL;
	uint16_t id;
	int ret = -1, r;
	const char *err = NULL;
	memset(&ts, 0, sizeof(ts));
	ts.key = pr->key;
	*uptodate = 0;
	if(RAND_bytes((unsigned char *)&id, sizeof(id)) != 1)
		id = (uint16_t)random();
	if(!(q = ldns_pkt_query_new(ldns_rdf_clone(zone), ixfr ?
		LDNS_RR_TYPE_IXFR : LDNS_RR_TYPE_AXFR, LDNS_RR_CLASS_IN, 0))) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	ldns_pkt_set_id(q, id);
	if(ixfr) {
		ldns_rr *soa = NULL;
		char s[400], zs[300];
		char *zn = ldns_rdf2str(zone);
		snprintf(zs, sizeof(zs), "%s", zn ? zn : ".");
		free(zn);
		snprintf(s, sizeof(s), "%s 0 IN SOA . . %u 0 0 0 0", zs,
			(unsigned)serial);
		if(ldns_rr_new_frm_str(&soa, s, 0, NULL, NULL) !=
			LDNS_STATUS_OK) {
			snprintf(why, whylen, "cannot make the IXFR query");
			goto out;
		}
		ldns_pkt_push_rr(q, LDNS_SECTION_AUTHORITY, soa);
	}
	if(ldns_pkt2wire(&wire, q, &wlen) != LDNS_STATUS_OK) {
		snprintf(why, whylen, "cannot make the query");
		goto out;
	}
	if(!(buf = malloc(65536))) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	memcpy(buf, wire, wlen);
	if(pr->key && xfr_tsig_sign(&ts, buf, &wlen, 65535,
		(uint64_t)tp->now(tp->ctx)) != 0) {
		snprintf(why, whylen, "cannot sign the query");
		goto out;
	}
	if(!(conn = tp->open(tp->ctx, &pr->addr, stop, why, whylen)))
		goto out;
	if(tp->send(conn, buf, wlen) != 0) {
		snprintf(why, whylen, "cannot send the query");
		goto out;
	}
	for(;;) {
		size_t ml;
		ldns_pkt *m = NULL;
		ldns_rr_list *an;
		int got = tp->recv(conn, buf, 65535);
		if(got < 12) {
			snprintf(why, whylen, "the reply stopped (timeout or "
				"closed after %u messages)", (unsigned)nmsgs);
			goto out;
		}
		ml = (size_t)got;
		total += ml;
		if(total > XFR_MAX_BYTES) {
			snprintf(why, whylen, "the zone is larger than %u bytes",
				XFR_MAX_BYTES);
			goto out;
		}
		if(get16(buf) != id && !pr->key) {
			snprintf(why, whylen, "a reply with another ID");
			goto out;
		}
		if(pr->key) {
			r = xfr_tsig_verify(&ts, buf, &ml,
				(uint64_t)tp->now(tp->ctx), &err);
			if(r < 0) {
				/* an error reply may come unsigned: report the
				 * rcode, which says more */
				if(nmsgs == 0 && (buf[3] & 0x0f) != 0)
					goto rcode;
				snprintf(why, whylen, "TSIG: %s", err);
				goto out;
			}
			if(get16(buf) != id) {
				snprintf(why, whylen, "a reply with another ID");
				goto out;
			}
		} else
			r = 1;
rcode:
		if((buf[3] & 0x0f) != 0) {
			unsigned rc = buf[3] & 0x0f;
			snprintf(why, whylen, "rcode %u (%s)", rc, rc == 4 ?
				"NOTIMP" : rc == 5 ? "REFUSED" : rc == 9 ?
				"NOTAUTH" : rc == 1 ? "FORMERR" : rc == 2 ?
				"SERVFAIL" : "error");
			if(ixfr && (rc == 4 || rc == 1))
				ret = -2;
			goto out;
		}
		if(ldns_wire2pkt(&m, buf, ml) != LDNS_STATUS_OK) {
			snprintf(why, whylen, "a malformed reply message");
			goto out;
		}
		if(nmsgs == maxmsgs) {
			size_t nm = maxmsgs ? maxmsgs * 2 : 16;
			ldns_pkt **n = realloc(msgs, nm * sizeof(*n));
			if(!n) {
				ldns_pkt_free(m);
				snprintf(why, whylen, "out of memory");
				goto out;
			}
			msgs = n;
			maxmsgs = nm;
		}
		msgs[nmsgs++] = m;
		an = ldns_pkt_answer(m);
		if(ldns_rr_list_rr_count(an) == 0 || !is_soa(ldns_rr_list_rr(
			an, ldns_rr_list_rr_count(an) - 1)))
			continue;
		if(r != 1)
			continue; /* the last message must be signed */
		r = xfr_parse_stream(zone, ixfr, serial, msgs, nmsgs, res,
			uptodate, &err);
		if(r < 0) {
			snprintf(why, whylen, "%s", err);
			goto out;
		}
		if(r == 0)
			break;
	}
	snprintf(res->from, sizeof(res->from), "%s", why);
	ret = 0;
out:
	if(conn)
		tp->close(conn);
	while(nmsgs > 0)
		ldns_pkt_free(msgs[--nmsgs]);
	free(msgs);
	free(buf);
	free(wire);
	if(q)
		ldns_pkt_free(q);
	xfr_tsig_state_clear(&ts);
	return ret;
}

/* ---------------- url: downloads (services/http_fetch.c) ---------------- */

/**
 * Parse a zone file (a downloaded body) into a full result.
 * @return 0, or -1 with why.
 */
static int
http_zone(const ldns_rdf *zone, uint8_t *body, size_t len,
	struct xfr_result *res, char *why, size_t whylen)
{
	FILE *f = fmemopen(body, len ? len : 1, "r");
	ldns_zone *lz = NULL;
	ldns_status st;
	ldns_rr_list *l;
	size_t i;
	int line = 0;
	if(!f) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	st = ldns_zone_new_frm_fp_l(&lz, f, zone, 3600, LDNS_RR_CLASS_IN,
		&line);
	fclose(f);
	if(st != LDNS_STATUS_OK) {
		snprintf(why, whylen, "the zone file, line %d: %s", line,
			ldns_get_errorstr_by_id(st));
		return -1;
	}
	if(!ldns_zone_soa(lz) || ldns_dname_compare(ldns_rr_owner(
		ldns_zone_soa(lz)), zone) != 0 ||
		ldns_rr_rd_count(ldns_zone_soa(lz)) != 7) {
		snprintf(why, whylen, "the zone file has no SOA for the zone");
		ldns_zone_deep_free(lz);
		return -1;
	}
	if(!(l = ldns_rr_list_new()) || !ldns_rr_list_push_rr(l,
		ldns_rr_clone(ldns_zone_soa(lz)))) {
		if(l)
			ldns_rr_list_deep_free(l);
		ldns_zone_deep_free(lz);
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	for(i = 0; i < ldns_rr_list_rr_count(ldns_zone_rrs(lz)); i++) {
		ldns_rr *rr = ldns_rr_clone(ldns_rr_list_rr(ldns_zone_rrs(lz),
			i));
		if(!rr || !ldns_rr_list_push_rr(l, rr)) {
			ldns_rr_free(rr);
			ldns_rr_list_deep_free(l);
			ldns_zone_deep_free(lz);
			snprintf(why, whylen, "out of memory");
			return -1;
		}
	}
	ldns_zone_deep_free(lz);
	memset(res, 0, sizeof(*res));
	res->kind = XFR_FULL;
	res->full = l;
	res->serial = ldns_rdf2native_int32(ldns_rr_rdf(ldns_rr_list_rr(l, 0),
		2));
	return 0;
}

/* ---------------- the service ---------------- */

/** a task */
struct xfr_task {
	/** next in the service's list */
	struct xfr_task *next;
	/** the service */
	struct xfr_service *xs;
	/** zone name */
	ldns_rdf *zone;
	/** zone name, text */
	char zname[300];
	/** the primaries */
	struct xfr_primary *prim;
	/** how many */
	size_t nprim;
	/** the url: sources, tried when no primary answers */
	struct config_url *url;
	/** how many */
	size_t nurl;
	/** the TLS context of the https ones, or NULL */
	SSL_CTX *tls;
	/** callback and argument */
	xfr_cb_type cb;
	/** argument of cb */
	void *arg;
	/** 1 when the zone's data is current enough to have a serial */
	int have;
	/** the serial */
	uint32_t serial;
	/** SOA timers, seconds */
	uint32_t refresh, retry, expire;
	/** when the task runs next */
	time_t next_time;
	/** when the data expires (have set) */
	time_t expire_at;
	/** NOTIFY or control command waiting */
	int woken;
	/** fetch with AXFR next time */
	int full;
	/** successful transfers */
	uint64_t count;
	/** the last outcome, for the status line */
	char last[512];
	/** when it was */
	time_t last_time;
};

/** a job posted to the transfer thread (xfr_service_post) */
struct xfr_job {
	/** next, in the order posted */
	struct xfr_job *next;
	/** the job */
	void (*fn)(void *);
	/** its argument */
	void *arg;
	/** when it may run (0: at once) */
	time_t when;
};

/** the service */
struct xfr_service {
#ifdef HAVE_PTHREAD
	/** guards the tasks */
	pthread_mutex_t lock;
	/** signalled on a wake-up or stop */
	pthread_cond_t cond;
	/** the thread */
	pthread_t thr;
#endif
	/** 1 when the thread runs */
	int running;
	/** set to stop the thread */
	volatile int stop;
	/** the tasks */
	struct xfr_task *tasks;
	/** jobs posted, oldest first, and the last */
	struct xfr_job *jobs, *jobs_last;
	/** the transport: network and clock */
	struct xfr_transport tp;
};

/** the service's time */
static time_t
xs_now(struct xfr_service *xs)
{
	return xs->tp.now(xs->tp.ctx);
}

struct xfr_service *
xfr_service_create(void)
{
	return xfr_service_create_transport(&xfr_real_transport);
}

struct xfr_service *
xfr_service_create_transport(const struct xfr_transport *tp)
{
	struct xfr_service *xs = calloc(1, sizeof(*xs));
	if(!xs)
		return NULL;
	xs->tp = *tp;
#ifdef HAVE_PTHREAD
	pthread_mutex_init(&xs->lock, NULL);
	pthread_cond_init(&xs->cond, NULL);
#endif
	return xs;
}

/** lock the service */
static void
xs_lock(struct xfr_service *xs)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_lock(&xs->lock);
#else
	(void)xs;
#endif
}

/** unlock the service */
static void
xs_unlock(struct xfr_service *xs)
{
#ifdef HAVE_PTHREAD
	pthread_mutex_unlock(&xs->lock);
#else
	(void)xs;
#endif
}

/** clamp a timer */
static uint32_t
clamp_timer(uint32_t v)
{
	if(v < XFR_MIN_TIMER)
		return XFR_MIN_TIMER;
	if(v > XFR_MAX_TIMER)
		return XFR_MAX_TIMER;
	return v;
}

/** take the SOA timers of a result's SOA */
static void
task_timers_from(struct xfr_task *t, const ldns_rr *soa)
{
	t->refresh = clamp_timer(ldns_rdf2native_int32(ldns_rr_rdf(soa, 3)));
	t->retry = clamp_timer(ldns_rdf2native_int32(ldns_rr_rdf(soa, 4)));
	t->expire = ldns_rdf2native_int32(ldns_rr_rdf(soa, 5));
}

/** the SOA of a result (the new one) or NULL */
static const ldns_rr *
result_soa(const struct xfr_result *res)
{
	if(res->kind == XFR_FULL && res->full &&
		ldns_rr_list_rr_count(res->full))
		return ldns_rr_list_rr(res->full, 0);
	if(res->kind == XFR_INCR && res->num_diffs &&
		ldns_rr_list_rr_count(res->diffs[res->num_diffs - 1].add))
		return ldns_rr_list_rr(res->diffs[res->num_diffs - 1].add, 0);
	return NULL;
}

/**
 * The url: sources of a task, in turn, until one gives the zone (the
 * service lock is not held).
 * @param t: the task; have, serial: what it has; full: take the zone
 *	even when its serial is not newer.
 * @param nserial: set to the new serial when a zone was taken.
 * @param last: the status text (lastlen bytes).
 * @return 0 when none did, 1 when the zone is current, 2 when a new zone
 *	was taken (the SOA timers set).
 */
static int
task_run_urls(struct xfr_task *t, int have, uint32_t serial, int full,
	uint32_t *nserial, char *last, size_t lastlen)
{
	struct xfr_service *xs = t->xs;
	char why[512];
	size_t i;
	for(i = 0; i < t->nurl && !xs->stop; i++) {
		const struct config_url *u = &t->url[i];
		struct xfr_result res;
		uint8_t *body = NULL;
		size_t blen = 0;
		ldns_rr *soa;
		why[0] = 0;
		if(http_fetch_get(u, t->tls, &xs->stop, XFR_MAX_BYTES, &body,
			&blen, why, sizeof(why)) != 0 || http_zone(t->zone, body, blen,
			&res, why, sizeof(why)) != 0) {
			free(body);
			log_warnx("xfr %s: download from %s://%s:%d%s failed: "
				"%s", t->zname, u->tls ? "https" : "http",
				u->host, u->port, u->path, why);
			snprintf(last, lastlen, "failed from url %.64s: %.200s",
				u->host, why);
			continue;
		}
		free(body);
		if(have && !full && !serial_newer(res.serial, serial)) {
			verbose(VERB_DETAIL, "xfr %s: %s has serial %u, ours "
				"is current", t->zname, u->host,
				(unsigned)res.serial);
			snprintf(last, lastlen, "up to date at url %s",
				u->host);
			xfr_result_clear(&res);
			return 1;
		}
		snprintf(res.from, sizeof(res.from), "%.*s",
			(int)sizeof(res.from) - 1, u->host);
		soa = ldns_rr_clone(ldns_rr_list_rr(res.full, 0));
		if(!soa || t->cb(t->arg, &res) != 0) {
			snprintf(last, lastlen, "refused the zone from url %s",
				u->host);
			ldns_rr_free(soa);
			xfr_result_clear(&res);
			continue;
		}
		verbose(VERB_OPS, "xfr %s: serial %u from %s://%s:%d%s",
			t->zname, (unsigned)res.serial, u->tls ? "https" :
			"http", u->host, u->port, u->path);
		snprintf(last, lastlen, "serial %u from url %s",
			(unsigned)res.serial, u->host);
		*nserial = res.serial;
		xs_lock(xs);
		task_timers_from(t, soa);
		t->count++;
		xs_unlock(xs);
		ldns_rr_free(soa);
		xfr_result_clear(&res);
		return 2;
	}
	return 0;
}

/** run one task (the service lock is not held): on the transfer thread,
 * or on the caller's thread in xfr_service_run_due */
static void
task_run(struct xfr_task *t, int have, uint32_t serial, int full)
{
	struct xfr_service *xs = t->xs;
	char why[256], from[NETADDR_STRLEN], last[512];
	size_t i;
	int ok = 0, uptodate = 0, newhave = have, axfr_now = 0;
	uint32_t nserial = serial;
	ldns_rr *soa = NULL;
	struct xfr_result res;
	time_t now;
	last[0] = 0;
	for(i = 0; i < t->nprim && !ok && !xs->stop; i++) {
		const struct xfr_primary *pr = &t->prim[i];
		int ixfr = have && !full && !axfr_now, r;
		axfr_now = 0;
		(void)netaddr_str(&pr->addr, 53, from, sizeof(from));
		memset(&res, 0, sizeof(res));
		why[0] = 0;
		r = xfr_fetch(&xs->tp, t->zone, pr, ixfr, serial, &res,
			&uptodate, &xs->stop, why, sizeof(why));
		if(r == -2) {
			verbose(VERB_ALGO, "xfr %s: %s refuses IXFR (%s), "
				"trying AXFR", t->zname, from, why);
			ixfr = 0;
			r = xfr_fetch(&xs->tp, t->zone, pr, 0, serial, &res,
				&uptodate, &xs->stop, why, sizeof(why));
		}
		if(r != 0) {
			log_warn("xfr %s: transfer from %s failed: %s",
				t->zname, from, why);
			snprintf(last, sizeof(last), "failed from %s: %s", from,
				why);
			continue;
		}
		if(uptodate) {
			verbose(VERB_DETAIL, "xfr %s: %s has serial %u, ours "
				"is current", t->zname, from,
				(unsigned)res.serial);
			snprintf(last, sizeof(last), "up to date at %s",
				from);
			ok = 1;
			break;
		}
		snprintf(res.from, sizeof(res.from), "%s", from);
		res.ixfr = (res.kind == XFR_INCR);
		/* the new SOA's timers, before the callback takes the RRs */
		if(result_soa(&res)) {
			ldns_rr_free(soa);
			soa = ldns_rr_clone(result_soa(&res));
		}
		if(t->cb(t->arg, &res) != 0) {
			snprintf(last, sizeof(last), "refused the zone from %s",
				from);
			if(res.kind == XFR_INCR) {
				/* the differences do not apply to what we
				 * have: the whole zone from the same primary,
				 * at once (as Unbound falls back to AXFR) */
				verbose(VERB_ALGO, "xfr %s: the IXFR from %s "
					"does not apply, trying AXFR", t->zname,
					from);
				axfr_now = 1;
				i--;
			}
			xfr_result_clear(&res);
			continue;
		}
		verbose(VERB_OPS, "xfr %s: serial %u from %s (%s)", t->zname,
			(unsigned)res.serial, from, res.kind == XFR_INCR ?
			"IXFR" : "full zone");
		snprintf(last, sizeof(last), "serial %u from %s by %s",
			(unsigned)res.serial, from, res.kind == XFR_INCR ?
			"IXFR" : ixfr ? "IXFR (full zone)" : "AXFR");
		nserial = res.serial;
		newhave = 1;
		ok = 2;
		xs_lock(xs);
		if(soa)
			task_timers_from(t, soa);
		t->count++;
		xs_unlock(xs);
		xfr_result_clear(&res);
	}
	if(!ok && t->nurl && !xs->stop) {
		/* no primary answered (or there are none): the url: ones */
		ok = task_run_urls(t, have, serial, full, &nserial, last,
			sizeof(last));
		if(ok == 2)
			newhave = 1;
	}
	now = xs_now(xs);
	if(!ok && have && t->expire_at && now >= t->expire_at) {
		memset(&res, 0, sizeof(res));
		res.kind = XFR_EXPIRED;
		res.serial = serial;
		log_warn("xfr %s: expired (no primary answered for the SOA "
			"expire time)", t->zname);
		(void)t->cb(t->arg, &res);
		newhave = 0;
		snprintf(last, sizeof(last), "expired");
	}
	xs_lock(xs);
	t->have = newhave;
	t->serial = nserial;
	if(ok) {
		t->next_time = now + (t->refresh ? t->refresh : XFR_RETRY_NODATA);
		t->expire_at = now + (t->expire ? t->expire : XFR_MAX_TIMER);
	} else
		t->next_time = now + (have && t->retry ? t->retry :
			XFR_RETRY_NODATA);
	if(last[0]) {
		memcpy(t->last, last, sizeof(t->last));
		t->last_time = now;
	}
	xs_unlock(xs);
	ldns_rr_free(soa);
}

/**
 * Run one due job or task, if any (the service lock held; dropped while
 * it runs, taken again).
 * @param first: when nothing is due, lowered to the earliest time that
 *	something will be.
 * @param woken_only: only a task woken (NOTIFY, a command), nothing
 *	whose time came.
 * @return 1 when one ran, 0 when nothing was due.
 */
static int
xs_run_one(struct xfr_service *xs, time_t *first, int woken_only)
{
	struct xfr_task *t, *due = NULL;
	time_t now = xs_now(xs);
	struct xfr_job *j, *pj = NULL;
	for(j = woken_only ? NULL : xs->jobs; j; pj = j, j = j->next) {
		if(j->when <= now)
			break;
		if(j->when < *first)
			*first = j->when;
	}
	if(j) {
		if(pj)
			pj->next = j->next;
		else	xs->jobs = j->next;
		if(xs->jobs_last == j)
			xs->jobs_last = pj;
		xs_unlock(xs);
		j->fn(j->arg);
		free(j);
		xs_lock(xs);
		return 1;
	}
	for(t = xs->tasks; t; t = t->next) {
		if(t->woken || (!woken_only && t->next_time <= now)) {
			due = t;
			break;
		}
		if(t->next_time < *first)
			*first = t->next_time;
	}
	if(due) {
		int have = due->have, full = due->full;
		uint32_t serial = due->serial;
		due->woken = 0;
		due->full = 0;
		xs_unlock(xs);
		task_run(due, have, serial, full);
		xs_lock(xs);
		return 1;
	}
	return 0;
}

void
xfr_service_set_transport(struct xfr_service *xs,
	const struct xfr_transport *tp)
{
	struct xfr_task *t;
	struct xfr_job *j;
	time_t before, delta;
	xs_lock(xs);
	before = xs_now(xs);
	xs->tp = *tp;
	delta = xs_now(xs) - before;
	for(t = xs->tasks; t; t = t->next) {
		if(t->next_time != (time_t)0x7fffffff)
			t->next_time += delta;
		if(t->expire_at)
			t->expire_at += delta;
		if(t->last_time)
			t->last_time += delta;
	}
	for(j = xs->jobs; j; j = j->next)
		if(j->when)
			j->when += delta;
	xs_unlock(xs);
}

/** xfr_service_run_due, xfr_service_run_woken */
static int
xs_run_all(struct xfr_service *xs, int woken_only)
{
	int n = 0;
	time_t first = 0;
	xs_lock(xs);
	if(!xs->running) {
		while(!xs->stop && xs_run_one(xs, &first, woken_only))
			n++;
	}
	xs_unlock(xs);
	return n;
}

int
xfr_service_run_due(struct xfr_service *xs)
{
	return xs_run_all(xs, 0);
}

int
xfr_service_run_woken(struct xfr_service *xs)
{
	return xs_run_all(xs, 1);
}

#ifdef HAVE_PTHREAD
/** the service thread */
static void *
xfr_thread(void *arg)
{
	struct xfr_service *xs = arg;
	pthread_mutex_lock(&xs->lock);
	while(!xs->stop) {
		time_t first = xs_now(xs) + 60;
		if(!xs_run_one(xs, &first, 0)) {
			struct timespec ts;
			ts.tv_sec = first;
			ts.tv_nsec = 0;
			(void)pthread_cond_timedwait(&xs->cond, &xs->lock, &ts);
		}
	}
	pthread_mutex_unlock(&xs->lock);
	return NULL;
}
#endif

int
xfr_service_start(struct xfr_service *xs)
{
#ifdef HAVE_PTHREAD
	int r = 0;
	/* workers may call this at once: the first one starts it */
	pthread_mutex_lock(&xs->lock);
	if(!xs->running) {
		if(pthread_create(&xs->thr, NULL, xfr_thread, xs) != 0)
			r = -1;
		else	xs->running = 1;
	}
	pthread_mutex_unlock(&xs->lock);
	return r;
#else
	(void)xs;
	return -1;
#endif
}

void
xfr_service_delete(struct xfr_service *xs)
{
	struct xfr_task *t;
	if(!xs)
		return;
#ifdef HAVE_PTHREAD
	if(xs->running) {
		pthread_mutex_lock(&xs->lock);
		xs->stop = 1;
		pthread_cond_signal(&xs->cond);
		pthread_mutex_unlock(&xs->lock);
		pthread_join(xs->thr, NULL);
	}
	pthread_cond_destroy(&xs->cond);
	pthread_mutex_destroy(&xs->lock);
#endif
	while(xs->jobs) {
		struct xfr_job *j = xs->jobs;
		xs->jobs = j->next;
		free(j);
	}
	while((t = xs->tasks)) {
		xs->tasks = t->next;
		ldns_rdf_deep_free(t->zone);
		free(t->prim);
		free(t->url);
		SSL_CTX_free(t->tls);
		free(t);
	}
	free(xs);
}

struct xfr_task *
xfr_task_create(struct xfr_service *xs, const char *zone,
	const struct xfr_primary *primaries, size_t n, xfr_cb_type cb,
	void *arg)
{
	struct xfr_task *t = calloc(1, sizeof(*t)), **tail;
	if(!t)
		return NULL;
	if(ldns_str2rdf_dname(&t->zone, zone) != LDNS_STATUS_OK ||
		(n && !(t->prim = calloc(n, sizeof(*t->prim))))) {
		if(t->zone)
			ldns_rdf_deep_free(t->zone);
		free(t);
		return NULL;
	}
	ldns_dname2canonical(t->zone);
	snprintf(t->zname, sizeof(t->zname), "%s", zone);
	if(n)
		memcpy(t->prim, primaries, n * sizeof(*t->prim));
	t->nprim = n;
	t->cb = cb;
	t->arg = arg;
	t->xs = xs;
	t->next_time = n ? xs_now(xs) : (time_t)0x7fffffff;
	snprintf(t->last, sizeof(t->last), "no transfer yet");
	xs_lock(xs);
	for(tail = &xs->tasks; *tail; tail = &(*tail)->next)
		;
	*tail = t;
#ifdef HAVE_PTHREAD
	pthread_cond_signal(&xs->cond);
#endif
	xs_unlock(xs);
	return t;
}

int
xfr_task_add_primary(struct xfr_task *t, const struct xfr_primary *p)
{
	struct xfr_primary *n;
	size_t i;
	for(i = 0; i < t->nprim; i++)
		if(netaddr_cmp(&t->prim[i].addr, &p->addr) == 0)
			return 0;
	if(!(n = realloc(t->prim, (t->nprim + 1) * sizeof(*n))))
		return -1;
	n[t->nprim] = *p;
	xs_lock(t->xs);
	t->prim = n;
	t->nprim++;
	if(t->nprim == 1 && !t->nurl && !t->have)
		t->next_time = xs_now(t->xs);
	xs_unlock(t->xs);
	return 0;
}

time_t
xfr_service_now(struct xfr_service *xs)
{
	return xs_now(xs);
}

int
xfr_task_set_urls(struct xfr_task *t, const struct config_url *urls,
	size_t n, const char *ca_bundle, char *why, size_t whylen)
{
	size_t i;
	int tls = 0;
	if(n == 0)
		return 0;
	for(i = 0; i < n; i++)
		if(urls[i].tls)
			tls = 1;
	if(!(t->url = calloc(n, sizeof(*t->url)))) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	memcpy(t->url, urls, n * sizeof(*t->url));
	if(tls && !(t->tls = http_fetch_tls_ctx(ca_bundle, why, whylen))) {
		free(t->url);
		t->url = NULL;
		return -1;
	}
	xs_lock(t->xs);
	t->nurl = n;
	if(!t->nprim && !t->have)
		t->next_time = xs_now(t->xs);
	xs_unlock(t->xs);
	return 0;
}

void
xfr_task_set_serial(struct xfr_task *t, uint32_t serial, uint32_t refresh,
	uint32_t retry, uint32_t expire, time_t age)
{
	time_t now = xs_now(t->xs);
	xs_lock(t->xs);
	t->have = 1;
	t->serial = serial;
	t->refresh = clamp_timer(refresh);
	t->retry = clamp_timer(retry);
	t->expire = expire;
	if(age < 0)
		age = 0;
	if(t->nprim || t->nurl) {
		t->next_time = now + (age >= (time_t)t->refresh ? 0 :
			(time_t)t->refresh - age);
		t->expire_at = now - age + (time_t)expire;
	}
	xs_unlock(t->xs);
}

void
xfr_task_notify(struct xfr_task *t, int64_t serial, int full)
{
	xs_lock(t->xs);
	if((t->nprim || t->nurl) && (full || serial < 0 || !t->have ||
		serial_newer((uint32_t)serial, t->serial) ||
		(uint32_t)serial == t->serial)) {
		t->woken = 1;
		if(full)
			t->full = 1;
#ifdef HAVE_PTHREAD
		pthread_cond_signal(&t->xs->cond);
#endif
	}
	xs_unlock(t->xs);
}

void
xfr_task_retry(struct xfr_task *t, int have, uint32_t serial)
{
	xs_lock(t->xs);
	t->have = have;
	t->serial = serial;
	t->full = 1;
	t->next_time = xs_now(t->xs) + (t->retry ? t->retry :
		XFR_RETRY_NODATA);
	xs_unlock(t->xs);
}

int
xfr_service_post(struct xfr_service *xs, void (*fn)(void *), void *arg)
{
#ifdef HAVE_PTHREAD
	return xfr_service_post_at(xs, fn, arg, 0);
#else
	(void)xs;
	fn(arg);
	return 0;
#endif
}

int
xfr_service_post_at(struct xfr_service *xs, void (*fn)(void *), void *arg,
	time_t when)
{
#ifdef HAVE_PTHREAD
	struct xfr_job *j = calloc(1, sizeof(*j));
	if(!j)
		return -1;
	j->fn = fn;
	j->arg = arg;
	j->when = when;
	xs_lock(xs);
	if(xs->jobs_last)
		xs->jobs_last->next = j;
	else	xs->jobs = j;
	xs->jobs_last = j;
	pthread_cond_signal(&xs->cond);
	xs_unlock(xs);
	return 0;
#else
	(void)xs;
	(void)fn;
	(void)arg;
	(void)when;
	return -1;
#endif
}

char *
xfr_task_status(struct xfr_task *t, char *buf, size_t len)
{
	time_t now = xs_now(t->xs);
	xs_lock(t->xs);
	if(!t->nprim && !t->nurl)
		snprintf(buf, len, "serial %u, no primaries",
			(unsigned)t->serial);
	else
		snprintf(buf, len, "%s%u, %s, next check in %lds",
			t->have ? "serial " : "no data, serial ",
			(unsigned)t->serial, t->last,
			(long)(t->next_time > now ? t->next_time - now : 0));
	xs_unlock(t->xs);
	return buf;
}

uint64_t
xfr_task_count(struct xfr_task *t)
{
	uint64_t c;
	xs_lock(t->xs);
	c = t->count;
	xs_unlock(t->xs);
	return c;
}
