/*
 * validator/val_autotrust.c - RFC 5011 state machine and the
 * auto-trust-anchor-file format (see the header for the rules).
 *
 * The keys of a point are a singly linked list in file order (new keys
 * are appended), small enough (a handful per zone) that every lookup is
 * a walk. The state machine works in three passes: the keys of the
 * fetched set (new, seen, revoked), the keys that were not seen (missing,
 * pending ones forgotten), then the timers (revoked to removed, missing
 * ones past keep-missing deleted, DS anchors dropped once a DNSKEY is
 * VALID).
 */
#include "config.h"
#include "validator/val_autotrust.h"
#include "validator/val_crypto.h"
#include "validator/val_pres.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/** one hour, the floor of the probe timers */
#define AUTR_HOUR 3600

void
val_autr_cfg_init(struct val_autr_cfg *cfg)
{
	cfg->add_holddown = VAL_AUTR_HOLDDOWN_DEFAULT;
	cfg->del_holddown = VAL_AUTR_HOLDDOWN_DEFAULT;
	cfg->keep_missing = VAL_AUTR_KEEP_MISSING_DEFAULT;
	cfg->permit_small_holddown = 0;
}

const char *
val_autr_state_str(int s)
{
	switch(s) {
	case VAL_AUTR_START: return "START";
	case VAL_AUTR_ADDPEND: return "ADDPEND";
	case VAL_AUTR_VALID: return "VALID";
	case VAL_AUTR_MISSING: return "MISSING";
	case VAL_AUTR_REVOKED: return "REVOKED";
	case VAL_AUTR_REMOVED: return "REMOVED";
	default: return "UNKNOWN";
	}
}

struct val_autr_point *
val_autr_create(const uint8_t *name, uint16_t dclass)
{
	struct val_autr_point *tp = calloc(1, sizeof(*tp));
	if(!tp)
		return NULL;
	dname_copy_lower(tp->name, name);
	tp->dclass = dclass;
	return tp;
}

void
val_autr_free(struct val_autr_point *tp)
{
	struct val_autr_key *k, *n;
	if(!tp)
		return;
	for(k = tp->keys; k; k = n) {
		n = k->next;
		free(k->rdata);
		free(k);
	}
	free(tp);
}

struct val_autr_key *
val_autr_add_key(struct val_autr_point *tp, uint16_t type,
	const uint8_t *rdata, size_t len, uint32_t ttl, int state,
	unsigned count, uint32_t last_change)
{
	struct val_autr_key *k = calloc(1, sizeof(*k));
	if(!k || len > 0xffff)
		goto fail;
	if(!(k->rdata = malloc(len ? len : 1)))
		goto fail;
	memcpy(k->rdata, rdata, len);
	k->len = (uint16_t)len;
	k->type = type;
	k->ttl = ttl;
	k->state = state;
	k->pending_count = count;
	k->last_change = last_change;
	/* at the head, as Unbound links them: a new key is written first,
	 * and a file read back lists its keys in reverse order */
	k->next = tp->keys;
	tp->keys = k;
	return k;
fail:
	free(k);
	return NULL;
}

int
val_autr_key_trusted(const struct val_autr_key *k)
{
	if(k->type == DNS_TYPE_DS)
		return 1;
	return k->state == VAL_AUTR_VALID || k->state == VAL_AUTR_MISSING;
}

size_t
val_autr_num_trusted(const struct val_autr_point *tp)
{
	const struct val_autr_key *k;
	size_t n = 0;
	for(k = tp->keys; k; k = k->next)
		if(val_autr_key_trusted(k))
			n++;
	return n;
}

/** same DNSKEY, the REVOKE bit aside? */
static int
same_key(const uint8_t *a, size_t al, const uint8_t *b, size_t bl)
{
	if(al != bl || al < 4)
		return 0;
	if((dns_read_u16(a) | VAL_DNSKEY_REVOKE) !=
		(dns_read_u16(b) | VAL_DNSKEY_REVOKE))
		return 0;
	return memcmp(a + 2, b + 2, al - 2) == 0;
}

/** find a DNSKEY of the point, the REVOKE bit aside */
static struct val_autr_key *
find_key(struct val_autr_point *tp, const uint8_t *rd, size_t len)
{
	struct val_autr_key *k;
	for(k = tp->keys; k; k = k->next)
		if(k->type == DNS_TYPE_DNSKEY &&
			same_key(k->rdata, k->len, rd, len))
			return k;
	return NULL;
}

/** does a DNSKEY match one of the point's DS anchors? */
static int
matches_ds(struct val_autr_point *tp, const uint8_t *rd, size_t len)
{
	struct val_autr_key *k;
	for(k = tp->keys; k; k = k->next)
		if(k->type == DNS_TYPE_DS && val_ds_match(tp->name, k->rdata,
			k->len, rd, len) == VAL_CRYPTO_OK)
			return 1;
	return 0;
}

/** set a key's state */
static void
set_state(struct val_autr_key *k, int s, uint32_t now)
{
	k->state = s;
	k->last_change = now;
}

/** has the time since the last change reached d? */
static int
elapsed(const struct val_autr_key *k, uint32_t now, uint32_t d)
{
	return (uint32_t)(now - k->last_change) >= d &&
		(int32_t)(now - k->last_change) >= 0;
}

/** number of VALID DNSKEYs */
static size_t
num_valid(const struct val_autr_point *tp)
{
	const struct val_autr_key *k;
	size_t n = 0;
	for(k = tp->keys; k; k = k->next)
		if(k->type == DNS_TYPE_DNSKEY && k->state == VAL_AUTR_VALID)
			n++;
	return n;
}

/** is a DNSKEY a key signing key (SEP flag)? */
static int
is_sep(const struct val_autr_key *k)
{
	return k->type == DNS_TYPE_DNSKEY && k->len >= 2 &&
		(dns_read_u16(k->rdata) & VAL_DNSKEY_SEP) != 0;
}

/** number of VALID key signing keys */
static size_t
num_valid_sep(const struct val_autr_point *tp)
{
	const struct val_autr_key *k;
	size_t n = 0;
	for(k = tp->keys; k; k = k->next)
		if(is_sep(k) && k->state == VAL_AUTR_VALID)
			n++;
	return n;
}

/** a point configured with a zone signing key (a VALID DNSKEY without
 * the SEP flag that no probe has changed: lastchange 0) and no trusted
 * KSK: the KSKs the probes found (ADDPEND) are trusted at once, as
 * Unbound does, since the ZSK may not stay published for a holddown */
static void
zsk_to_ksk(struct val_autr_point *tp, uint32_t now)
{
	struct val_autr_key *k;
	int zsk = 0;
	for(k = tp->keys; k; k = k->next)
		if(k->type == DNS_TYPE_DNSKEY && !is_sep(k) &&
			k->state == VAL_AUTR_VALID && k->last_change == 0)
			zsk = 1;
	if(!zsk)
		return;
	for(k = tp->keys; k; k = k->next)
		if(is_sep(k) && k->state == VAL_AUTR_ADDPEND)
			set_state(k, VAL_AUTR_VALID, now);
}

/** unlink and free the keys a predicate picks; @return how many */
static int
delete_keys(struct val_autr_point *tp,
	int (*pick)(struct val_autr_point *, struct val_autr_key *, void *),
	void *arg)
{
	struct val_autr_key **p = &tp->keys, *k;
	int n = 0;
	while((k = *p) != NULL) {
		if(pick(tp, k, arg)) {
			*p = k->next;
			free(k->rdata);
			free(k);
			n++;
		} else
			p = &k->next;
	}
	return n;
}

/** the per-probe scratch: which keys were seen */
struct seen_set {
	/** keys seen in this probe */
	struct val_autr_key **keys;
	/** how many */
	size_t n;
};

/** was k seen in this probe? */
static int
was_seen(const struct seen_set *s, const struct val_autr_key *k)
{
	size_t i;
	for(i = 0; i < s->n; i++)
		if(s->keys[i] == k)
			return 1;
	return 0;
}

/** pick: pending keys that were not seen (forgotten: back to Start) */
static int
pick_unseen_pending(struct val_autr_point *tp, struct val_autr_key *k,
	void *arg)
{
	(void)tp;
	return k->type == DNS_TYPE_DNSKEY && !was_seen(arg, k) &&
		(k->state == VAL_AUTR_ADDPEND || k->state == VAL_AUTR_START);
}

/** arguments of pick_missing_expired */
struct expire_arg {
	/** settings */
	const struct val_autr_cfg *cfg;
	/** time */
	uint32_t now;
};

/** pick: MISSING keys past keep-missing, if another key stays VALID */
static int
pick_missing_expired(struct val_autr_point *tp, struct val_autr_key *k,
	void *arg)
{
	struct expire_arg *a = arg;
	return k->type == DNS_TYPE_DNSKEY && k->state == VAL_AUTR_MISSING &&
		a->cfg->keep_missing != 0 &&
		elapsed(k, a->now, a->cfg->keep_missing) && num_valid(tp) > 0;
}

/** pick: zone signing keys (not new ones) */
static int
pick_zsk(struct val_autr_point *tp, struct val_autr_key *k, void *arg)
{
	(void)tp;
	(void)arg;
	return k->type == DNS_TYPE_DNSKEY && !is_sep(k) &&
		k->state != VAL_AUTR_START;
}

/** pick: DS anchors */
static int
pick_ds(struct val_autr_point *tp, struct val_autr_key *k, void *arg)
{
	(void)tp;
	(void)arg;
	return k->type == DNS_TYPE_DS;
}

int
val_autr_holddown(struct val_autr_point *tp, const struct val_autr_cfg *cfg,
	uint32_t now)
{
	struct val_autr_key *k;
	int changed = 0;
	for(k = tp->keys; k; k = k->next)
		if(is_sep(k) && k->state == VAL_AUTR_ADDPEND &&
			k->pending_count >= VAL_AUTR_MIN_PENDING &&
			elapsed(k, now, cfg->add_holddown)) {
			set_state(k, VAL_AUTR_VALID, now);
			k->pending_count = 0;
			changed = 1;
		}
	return changed;
}

int
val_autr_update(struct val_autr_point *tp, const struct val_autr_cfg *cfg,
	const struct val_rr *keys, size_t nkeys, const int *revoke_signed,
	int validated, int ds_validated, uint32_t now)
{
	struct seen_set seen;
	struct val_autr_key *k;
	struct expire_arg ea;
	size_t i;
	int changed = 0, revoked = 0;
	tp->last_queried = now;
	/* a key that revokes itself (REVOKE bit, its own signature over
	 * the set) is revoked whether or not the set validates with the
	 * other keys (RFC 5011 2.1: a revoked key can sign that set only
	 * when it is still trusted), as Unbound does */
	for(i = 0; i < nkeys && revoke_signed; i++) {
		const uint8_t *rd = keys[i].buf + keys[i].off;
		size_t len = keys[i].len;
		if(!revoke_signed[i] || len < 4 ||
			!(dns_read_u16(rd) & VAL_DNSKEY_REVOKE) ||
			!(k = find_key(tp, rd, len)))
			continue;
		if(k->state == VAL_AUTR_VALID ||
			k->state == VAL_AUTR_MISSING) {
			set_state(k, VAL_AUTR_REVOKED, now);
			revoked = 1;
		} else if(k->state == VAL_AUTR_ADDPEND ||
			k->state == VAL_AUTR_START) {
			/* never trust a key revoked while pending */
			set_state(k, VAL_AUTR_REMOVED, now);
			revoked = 1;
		}
		if(k->len == len && memcmp(k->rdata, rd, len) != 0) {
			memcpy(k->rdata, rd, len);
			revoked = 1;
		}
	}
	if(revoked && val_autr_num_trusted(tp) == 0) {
		/* every trusted key revoked: the point is revoked for good
		 * (no more probes; the zone is treated as unanchored), as
		 * Unbound writes it */
		tp->revoked = 1;
		tp->last_success = now;
		tp->next_probe_time = 0;
		return 1;
	}
	if(!validated) {
		/* as Unbound: counted (and written) only after a first
		 * success, so that a point still starting from its DS or
		 * configured keys keeps its file as it is; a set that
		 * revoked a key and did not validate counts too */
		if(!tp->last_success)
			return revoked;
		tp->query_failed++;
		return 1;
	}
	tp->query_failed = 0;
	tp->last_success = now;
	changed = revoked;
	seen.n = 0;
	seen.keys = calloc(nkeys ? nkeys : 1, sizeof(*seen.keys));
	if(!seen.keys)
		return -1;

	/* pass 1: the keys of the validated set */
	for(i = 0; i < nkeys; i++) {
		const uint8_t *rd = keys[i].buf + keys[i].off;
		size_t len = keys[i].len;
		uint16_t flags;
		if(len < 4)
			continue;
		flags = dns_read_u16(rd);
		if(!(flags & VAL_DNSKEY_SEP) || !(flags & VAL_DNSKEY_ZONE) ||
			rd[2] != 3)
			continue;
		k = find_key(tp, rd, len);
		if(!k && !val_algo_supported(rd[3]))
			continue; /* a new key of an algorithm petrel cannot
				   * check is of no use as an anchor (Unbound
				   * skips it too) */
		if(k)
			seen.keys[seen.n++] = k;
		if(flags & VAL_DNSKEY_REVOKE) {
			/* only a revocation the key signed itself counts */
			if(!k || !revoke_signed || !revoke_signed[i])
				continue;
			if(k->state == VAL_AUTR_VALID ||
				k->state == VAL_AUTR_MISSING) {
				set_state(k, VAL_AUTR_REVOKED, now);
				changed = 1;
			} else if(k->state == VAL_AUTR_ADDPEND ||
				k->state == VAL_AUTR_START) {
				/* never trust a key revoked while pending */
				set_state(k, VAL_AUTR_REMOVED, now);
				changed = 1;
			}
			if(k->len == len && memcmp(k->rdata, rd, len) != 0) {
				memcpy(k->rdata, rd, len);
				changed = 1;
			}
			continue;
		}
		if(!k) {
			k = val_autr_add_key(tp, DNS_TYPE_DNSKEY, rd, len, 0,
				VAL_AUTR_START, 0, now);
			if(!k) {
				free(seen.keys);
				return -1;
			}
			seen.keys[seen.n++] = k;
			changed = 1;
		}
		switch(k->state) {
		case VAL_AUTR_START:
			changed = 1;
			if(ds_validated && matches_ds(tp, rd, len)) {
				set_state(k, VAL_AUTR_VALID, now);
				break;
			}
			set_state(k, VAL_AUTR_ADDPEND, now);
			k->pending_count = 1;
			changed = 1;
			break;
		case VAL_AUTR_ADDPEND:
			changed = 1;
			if(ds_validated && matches_ds(tp, rd, len)) {
				set_state(k, VAL_AUTR_VALID, now);
				break;
			}
			k->pending_count++;
			if(elapsed(k, now, cfg->add_holddown) &&
				k->pending_count >= VAL_AUTR_MIN_PENDING)
				set_state(k, VAL_AUTR_VALID, now);
			break;
		case VAL_AUTR_MISSING:
			set_state(k, VAL_AUTR_VALID, now);
			changed = 1;
			break;
		case VAL_AUTR_REVOKED:
			/* published again without its REVOKE bit: it stays
			 * revoked (RFC 5011 2.1), and its del-holddown starts
			 * again, as Unbound counts it */
			k->last_change = now;
			changed = 1;
			break;
		case VAL_AUTR_VALID:
			/* a configured anchor (no state in the file) seen for
			 * the first time: its holddown clock starts now */
			if(k->last_change == 0) {
				k->last_change = now;
				changed = 1;
			}
			break;
		default:
			/* VALID stays; REVOKED and REMOVED are final */
			break;
		}
	}

	/* pass 2: the keys that were not in the set */
	if(delete_keys(tp, pick_unseen_pending, &seen) > 0)
		changed = 1;
	for(k = tp->keys; k; k = k->next) {
		/* only key signing keys: a configured ZSK is not probed */
		if(is_sep(k) && k->state == VAL_AUTR_VALID &&
			!was_seen(&seen, k)) {
			set_state(k, VAL_AUTR_MISSING, now);
			changed = 1;
		}
	}
	free(seen.keys);

	/* pass 3: timers */
	for(k = tp->keys; k; k = k->next) {
		if(k->type == DNS_TYPE_DNSKEY && k->state == VAL_AUTR_REVOKED &&
			elapsed(k, now, cfg->del_holddown)) {
			set_state(k, VAL_AUTR_REMOVED, now);
			changed = 1;
		}
	}
	ea.cfg = cfg;
	ea.now = now;
	if(delete_keys(tp, pick_missing_expired, &ea) > 0)
		changed = 1;
	if(num_valid_sep(tp) == 0)
		zsk_to_ksk(tp, now);
	if(num_valid_sep(tp) > 0) {
		/* configured zone signing keys give way to a trusted KSK */
		if(delete_keys(tp, pick_zsk, NULL) > 0)
			changed = 1;
		if(delete_keys(tp, pick_ds, NULL) > 0)
			changed = 1;
	}
	for(k = tp->keys; k; k = k->next)
		if(k->state != VAL_AUTR_ADDPEND)
			k->pending_count = 0;
	return changed;
}

uint32_t
val_autr_set_times(struct val_autr_point *tp, const struct val_autr_cfg *cfg,
	uint32_t ttl, uint32_t sig_lifetime, int ok, uint32_t now)
{
	uint32_t x, wait;
	/* query interval: MIN(15 days, TTL/2, lifetime/2) */
	x = 15 * 24 * 3600;
	if(ttl / 2 < x)
		x = ttl / 2;
	if(sig_lifetime / 2 < x)
		x = sig_lifetime / 2;
	if(!cfg->permit_small_holddown && x < AUTR_HOUR)
		x = AUTR_HOUR;
	tp->query_interval = x;
	/* retry time: MIN(1 day, TTL/10, lifetime/10) */
	x = 24 * 3600;
	if(ttl / 10 < x)
		x = ttl / 10;
	if(sig_lifetime / 10 < x)
		x = sig_lifetime / 10;
	if(!cfg->permit_small_holddown && x < AUTR_HOUR)
		x = AUTR_HOUR;
	tp->retry_time = x;
	wait = ok ? tp->query_interval : tp->retry_time;
	if(wait == 0)
		wait = 1;
	tp->next_probe_time = now + wait;
	return wait;
}

/* ---------------------------------------------------------------- */
/* the file */

/** the number after a tag in s, or def when the tag is absent */
static long
tag_num(const char *s, const char *tag, long def, int *bad)
{
	const char *p = strstr(s, tag);
	char *e;
	long v;
	if(!p)
		return def;
	v = strtol(p + strlen(tag), &e, 10);
	if(e == p + strlen(tag) || v < 0)
		*bad = 1;
	return v;
}

/** skip white space */
static const char *
skip_ws(const char *s)
{
	while(*s == ' ' || *s == '\t' || *s == '\r')
		s++;
	return s;
}

/** append a point to the result array; -1 when out of memory */
static int
push_point(struct val_autr_point ***out, size_t *n, size_t *cap,
	struct val_autr_point *tp)
{
	if(*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		struct val_autr_point **a = realloc(*out, nc * sizeof(*a));
		if(!a)
			return -1;
		*out = a;
		*cap = nc;
	}
	(*out)[(*n)++] = tp;
	return 0;
}

/** parse the ";;id: name class" header into a new point */
static struct val_autr_point *
parse_id(const char *s)
{
	char name[1100];
	uint8_t wire[DNS_MAX_NAME];
	size_t wl = sizeof(wire);
	unsigned cls = 0;
	if(sscanf(s, "%1099s %u", name, &cls) != 2 || cls > 0xffff)
		return NULL;
	if(dname_from_str(name, wire, &wl) != 0)
		return NULL;
	return val_autr_create(wire, (uint16_t)cls);
}

int
val_autr_read_file(const char *path, struct val_autr_point ***out,
	size_t *nout, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct val_pres_line *l = NULL;
	struct val_autr_point *tp = NULL;
	struct val_pres_rr *rr = NULL;
	uint8_t origin[DNS_MAX_NAME], prev[DNS_MAX_NAME];
	int have_origin = 0, have_prev = 0, lineno = 0, r, revoked = 0;
	uint32_t ttl = 3600;
	size_t cap = 0;
	*out = NULL;
	*nout = 0;
	if(!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return -1;
	}
	l = malloc(sizeof(*l));
	rr = malloc(sizeof(*rr));
	if(!l || !rr) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	while((r = val_pres_read_line(f, l, &lineno)) == 1) {
		const char *s = skip_ws(l->buf);
		char *c, perr[256];
		int bad = 0;
		long state, count, lastchange;
		if(strncmp(s, ";;id: ", 6) == 0) {
			if(!(tp = parse_id(s + 6))) {
				snprintf(err, errlen, "%s:%d: bad ;;id: line, "
					"expected ';;id: <name> <class>'",
					path, l->lineno);
				goto fail;
			}
			tp->revoked = revoked;
			if(push_point(out, nout, &cap, tp) != 0) {
				val_autr_free(tp);
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
			continue;
		}
		if(strncmp(s, ";;REVOKED", 9) == 0) {
			if(tp) {
				snprintf(err, errlen, "%s:%d: ;;REVOKED must "
					"come before ;;id:", path, l->lineno);
				goto fail;
			}
			revoked = 1;
			continue;
		}
		if(strncmp(s, ";;", 2) == 0 && tp) {
			long v;
			if((v = tag_num(s, ";;last_queried: ", -1, &bad)) >= 0)
				tp->last_queried = (uint32_t)v;
			else if((v = tag_num(s, ";;last_success: ", -1, &bad))
				>= 0)
				tp->last_success = (uint32_t)v;
			else if((v = tag_num(s, ";;next_probe_time: ", -1,
				&bad)) >= 0)
				tp->next_probe_time = (uint32_t)v;
			else if((v = tag_num(s, ";;query_failed: ", -1, &bad))
				>= 0)
				tp->query_failed = (unsigned)v;
			else if((v = tag_num(s, ";;query_interval: ", -1,
				&bad)) >= 0)
				tp->query_interval = (uint32_t)v;
			else if((v = tag_num(s, ";;retry_time: ", -1, &bad))
				>= 0)
				tp->retry_time = (uint32_t)v;
			/* a revoked point's file is the record of its last
			 * probe, never used again: read leniently, as
			 * Unbound stops reading at ;;REVOKED */
			if(bad && !tp->revoked) {
				snprintf(err, errlen, "%s:%d: bad number in "
					"'%s'", path, l->lineno, s);
				goto fail;
			}
			continue;
		}
		if(*s == 0 || *s == ';')
			continue;
		if((r = val_pres_directive(s, origin, &have_origin, &ttl))
			!= 0) {
			if(r < 0) {
				snprintf(err, errlen, "%s:%d: bad $ORIGIN or "
					"$TTL", path, l->lineno);
				goto fail;
			}
			continue;
		}
		/* an RR, its state in the comment */
		c = val_pres_comment(l->buf);
		state = VAL_AUTR_VALID;
		count = 0;
		lastchange = 0;
		if(c) {
			state = tag_num(c, ";;state=", VAL_AUTR_VALID, &bad);
			count = tag_num(c, ";;count=", 0, &bad);
			lastchange = tag_num(c, ";;lastchange=", 0, &bad);
			*c = 0;
		}
		if(bad || state < VAL_AUTR_START || state > VAL_AUTR_REMOVED) {
			snprintf(err, errlen, "%s:%d: bad ;;state=, ;;count= "
				"or ;;lastchange= comment", path, l->lineno);
			goto fail;
		}
		if(val_pres_parse_rr(l->buf, ttl, have_origin ? origin : NULL,
			have_prev ? prev : NULL, rr, perr, sizeof(perr)) != 0) {
			snprintf(err, errlen, "%s:%d: %s", path, l->lineno,
				perr);
			goto fail;
		}
		memcpy(prev, rr->owner, dname_len(rr->owner));
		have_prev = 1;
		if(rr->type != DNS_TYPE_DS && rr->type != DNS_TYPE_DNSKEY)
			continue; /* an RRSIG saved with the keys: skipped, as
				   * Unbound skips it */
		if(!tp || !dname_equal(tp->name, rr->owner)) {
			size_t i;
			tp = NULL;
			for(i = 0; i < *nout; i++)
				if(dname_equal((*out)[i]->name, rr->owner))
					tp = (*out)[i];
			if(!tp) {
				if(!(tp = val_autr_create(rr->owner,
					rr->rrclass)) ||
					push_point(out, nout, &cap, tp) != 0) {
					val_autr_free(tp);
					snprintf(err, errlen, "out of memory");
					goto fail;
				}
			}
		}
		if(!val_autr_add_key(tp, rr->type, rr->rdata, rr->rdlen,
			rr->ttl, rr->type == DNS_TYPE_DS ? VAL_AUTR_VALID :
			(int)state, (unsigned)count, (uint32_t)lastchange)) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if(r < 0) {
		snprintf(err, errlen, "%s:%d: line too long", path, lineno);
		goto fail;
	}
	if(*nout == 0) {
		snprintf(err, errlen, "%s: no trust anchor in the file", path);
		goto fail;
	}
	fclose(f);
	free(l);
	free(rr);
	return 0;
fail:
	fclose(f);
	free(l);
	free(rr);
	while(*nout > 0)
		val_autr_free((*out)[--(*nout)]);
	free(*out);
	*out = NULL;
	return -1;
}

/** print a time as a comment, the way Unbound does (ctime) */
static void
time_comment(char *buf, size_t len, uint32_t t)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if(gmtime_r(&tt, &tm) == NULL ||
		strftime(buf, len, "%a %b %e %H:%M:%S %Y", &tm) == 0)
		snprintf(buf, len, "-");
}

/** the state as the file shows it between brackets: Unbound's names,
 * padded to nine characters ("[  VALID  ]") */
static const char *
state_padded(int s)
{
	switch(s) {
	case VAL_AUTR_START: return "  START  ";
	case VAL_AUTR_ADDPEND: return " ADDPEND ";
	case VAL_AUTR_VALID: return "  VALID  ";
	case VAL_AUTR_MISSING: return " MISSING ";
	case VAL_AUTR_REVOKED: return " REVOKED ";
	case VAL_AUTR_REMOVED: return " REMOVED ";
	default: return " UNKNOWN ";
	}
}

/** the size in bits of a DNSKEY's public key, as the file's comment
 * shows it (and Unbound computes it): the RSA modulus (the key less its
 * exponent), DSA from its T parameter, the curves' fixed sizes; 0 when
 * unknown */
static unsigned
key_bits(const uint8_t *rdata, size_t len)
{
	const uint8_t *k = rdata + 4;
	size_t kl;
	if(len < 4)
		return 0;
	kl = len - 4;
	switch(rdata[3]) {
	case 3: case 6: /* DSA */
		return kl > 0 ? (64u + k[0] * 8u) * 8u : 0;
	case 1: case 5: case 7: case 8: case 10: /* RSA */
		if(kl > 0 && k[0] != 0)
			return kl > (size_t)k[0] + 1 ?
				(unsigned)(kl - k[0] - 1) * 8 : 0;
		if(kl > 3) {
			size_t e = (size_t)k[1] << 8 | k[2];
			return kl > e + 3 ? (unsigned)(kl - e - 3) * 8 : 0;
		}
		return 0;
	case 12: return 512; /* GOST */
	case 13: return 256;
	case 14: return 384;
	case 15: return 256;
	case 16: return 456;
	default: return 0;
	}
}

/** write the point's text to f; @return 0 or -1 */
static int
write_point(FILE *f, const struct val_autr_point *tp)
{
	char name[DNS_MAX_NAME_STR], t1[64];
	const struct val_autr_key *k;
	if(dname_to_str(tp->name, name, sizeof(name)) < 0)
		return -1;
	fprintf(f, "; autotrust trust anchor file\n");
	if(tp->revoked)
		fprintf(f, ";;REVOKED\n"
			"; The zone has all keys revoked, and is\n"
			"; considered as if it has no trust anchors.\n"
			"; the remainder of the file is the last probe.\n"
			"; to restart the trust anchor, overwrite this file.\n"
			"; with one containing valid DNSKEYs or DSes.\n");
	fprintf(f, ";;id: %s %u\n", name, (unsigned)tp->dclass);
	time_comment(t1, sizeof(t1), tp->last_queried);
	fprintf(f, ";;last_queried: %u ;;%s\n", tp->last_queried, t1);
	time_comment(t1, sizeof(t1), tp->last_success);
	fprintf(f, ";;last_success: %u ;;%s\n", tp->last_success, t1);
	time_comment(t1, sizeof(t1), tp->next_probe_time);
	fprintf(f, ";;next_probe_time: %u ;;%s\n", tp->next_probe_time, t1);
	fprintf(f, ";;query_failed: %u\n", tp->query_failed);
	fprintf(f, ";;query_interval: %u\n", tp->query_interval);
	fprintf(f, ";;retry_time: %u\n", tp->retry_time);
	for(k = tp->keys; k; k = k->next) {
		char *s;
		if(k->type == DNS_TYPE_DNSKEY && (k->state == VAL_AUTR_START ||
			k->state == VAL_AUTR_REMOVED))
			continue; /* as Unbound: only the keys that count */
		s = val_pres_rr_str(tp->name, k->type, tp->dclass, k->ttl,
			k->rdata, k->len);
		if(!s)
			return -1;
		if(k->type == DNS_TYPE_DS) {
			fprintf(f, "%s\n", s);
		} else {
			time_comment(t1, sizeof(t1), k->last_change);
			fprintf(f, "%s ;{id = %u (%s), size = %ub} ;;state=%d "
				"[%s] ;;count=%u ;;lastchange=%u ;;%s\n", s,
				(unsigned)val_keytag(k->rdata, k->len),
				is_sep(k) ? "ksk" : "zsk",
				key_bits(k->rdata, k->len),
				k->state, state_padded(k->state),
				k->pending_count, k->last_change, t1);
		}
		free(s);
	}
	return 0;
}

int
val_autr_write_file(const struct val_autr_point *tp, const char *path,
	char *err, size_t errlen)
{
	char tmp[4096];
	FILE *f;
	int fd;
	if((size_t)snprintf(tmp, sizeof(tmp), "%s.XXXXXX", path) >=
		sizeof(tmp)) {
		snprintf(err, errlen, "%s: path too long", path);
		return -1;
	}
	if((fd = mkstemp(tmp)) < 0) {
		snprintf(err, errlen, "%s: cannot create a temporary file: %s",
			path, strerror(errno));
		return -1;
	}
	if(!(f = fdopen(fd, "w"))) {
		snprintf(err, errlen, "%s: %s", tmp, strerror(errno));
		close(fd);
		unlink(tmp);
		return -1;
	}
	if(write_point(f, tp) != 0 || fflush(f) != 0 || fsync(fd) != 0) {
		snprintf(err, errlen, "%s: write failed: %s", tmp,
			strerror(errno));
		fclose(f);
		unlink(tmp);
		return -1;
	}
	if(fclose(f) != 0) {
		snprintf(err, errlen, "%s: close failed: %s", tmp,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	if(rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot rename %s to %s: %s", tmp, path,
			strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}
