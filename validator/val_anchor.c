/*
 * validator/val_anchor.c - the trust anchor store (see the header).
 *
 * The store is a list: resolvers carry a handful of anchors (the root,
 * a few private zones, some domain-insecure names), and a lookup walks it
 * once per validation start, not per cached answer. The BIND file reader
 * is a small tokenizer (strings, words, braces, semicolons; '#', '//' and
 * C comments) that turns each key entry into an RR text for
 * val_pres_parse_rr.
 */
#include "config.h"
#include "validator/val_anchor.h"
#include "validator/val_autotrust.h"
#include "validator/val_crypto.h"
#include "validator/val_pres.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct val_anchors *
val_anchors_create(void)
{
	return calloc(1, sizeof(struct val_anchors));
}

/** free one anchor */
static void
anchor_free(struct val_anchor *an)
{
	val_autr_free(an->tp);
	free(an->file);
	free(an);
}

void
val_anchors_delete(struct val_anchors *a)
{
	struct val_anchor *an, *n;
	if(!a)
		return;
	for(an = a->list; an; an = n) {
		n = an->next;
		anchor_free(an);
	}
	free(a);
}

struct val_anchor *
val_anchors_find(const struct val_anchors *a, const uint8_t *name,
	uint16_t dclass)
{
	struct val_anchor *an;
	for(an = a->list; an; an = an->next)
		if(an->dclass == dclass && dname_equal(an->name, name))
			return an;
	return NULL;
}

const struct val_anchor *
val_anchors_lookup(const struct val_anchors *a, const uint8_t *name,
	uint16_t dclass)
{
	const struct val_anchor *an, *best = NULL;
	for(an = a->list; an; an = an->next) {
		if(an->dclass != dclass || !dname_is_subdomain(name, an->name))
			continue;
		/* an RFC 5011 point whose keys were all revoked is no anchor
		 * (the flag goes from 0 to 1 once, set by the probing
		 * worker) */
		if(an->tp && an->tp->revoked)
			continue;
		if(!best || an->namelabs > best->namelabs)
			best = an;
	}
	return best;
}

/** a new anchor at name, linked in; NULL when out of memory */
static struct val_anchor *
anchor_new(struct val_anchors *a, const uint8_t *name, uint16_t dclass)
{
	struct val_anchor *an = calloc(1, sizeof(*an));
	if(!an)
		return NULL;
	dname_copy_lower(an->name, name);
	an->namelabs = dname_count_labels(name);
	an->dclass = dclass;
	an->next = a->list;
	a->list = an;
	a->count++;
	return an;
}

/**
 * Add a parsed DS or DNSKEY to the static anchor of its owner.
 * @param where: "file:line" or "trust-anchor" for errors.
 * @return 0 or -1.
 */
static int
add_static_rr(struct val_anchors *a, const struct val_pres_rr *rr,
	const char *where, char *err, size_t errlen)
{
	struct val_anchor *an;
	if(rr->type != DNS_TYPE_DS && rr->type != DNS_TYPE_DNSKEY) {
		snprintf(err, errlen, "%s: only DS and DNSKEY records can be "
			"trust anchors", where);
		return -1;
	}
	if(rr->type == DNS_TYPE_DNSKEY && (rr->rdlen < 4 ||
		!(dns_read_u16(rr->rdata) & VAL_DNSKEY_ZONE))) {
		snprintf(err, errlen, "%s: a DNSKEY trust anchor must have the "
			"zone key flag (256 or 257)", where);
		return -1;
	}
	if(rr->type == DNS_TYPE_DS && rr->rdlen < 5) {
		snprintf(err, errlen, "%s: DS record too short", where);
		return -1;
	}
	an = val_anchors_find(a, rr->owner, rr->rrclass);
	if(an && (an->autotrust || an->insecure)) {
		snprintf(err, errlen, "%s: the anchor for this name is already "
			"%s", where, an->autotrust ? "an auto-trust-anchor-file"
			: "domain-insecure");
		return -1;
	}
	if(!an) {
		if(!(an = anchor_new(a, rr->owner, rr->rrclass)) ||
			!(an->tp = val_autr_create(rr->owner, rr->rrclass))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	if(!val_autr_add_key(an->tp, rr->type, rr->rdata, rr->rdlen, rr->ttl,
		VAL_AUTR_VALID, 0, 0)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

int
val_anchors_add_str(struct val_anchors *a, const char *text, char *err,
	size_t errlen)
{
	struct val_pres_rr *rr = malloc(sizeof(*rr));
	char perr[256];
	int r = -1;
	if(!rr) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(val_pres_parse_rr(text, 3600, NULL, NULL, rr, perr,
		sizeof(perr)) != 0)
		snprintf(err, errlen, "trust-anchor \"%s\": %s; expected a DS "
			"or DNSKEY record", text, perr);
	else
		r = add_static_rr(a, rr, "trust-anchor", err, errlen);
	free(rr);
	return r;
}

int
val_anchors_add_zonefile(struct val_anchors *a, const char *path, char *err,
	size_t errlen)
{
	FILE *f = fopen(path, "r");
	struct val_pres_line *l = malloc(sizeof(*l));
	struct val_pres_rr *rr = malloc(sizeof(*rr));
	uint8_t origin[DNS_MAX_NAME], prev[DNS_MAX_NAME];
	int have_origin = 0, have_prev = 0, lineno = 0, r, ret = -1;
	size_t added = 0;
	uint32_t ttl = 3600;
	if(!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		goto done;
	}
	if(!l || !rr) {
		snprintf(err, errlen, "out of memory");
		goto done;
	}
	while((r = val_pres_read_line(f, l, &lineno)) == 1) {
		char *c = val_pres_comment(l->buf), perr[256], where[1100];
		const char *s;
		if(c)
			*c = 0;
		s = l->buf;
		while(isspace((unsigned char)*s))
			s++;
		if(*s == 0)
			continue;
		snprintf(where, sizeof(where), "%s:%d", path, l->lineno);
		if((r = val_pres_directive(s, origin, &have_origin, &ttl))
			!= 0) {
			if(r < 0) {
				snprintf(err, errlen, "%s: bad $ORIGIN or $TTL",
					where);
				goto done;
			}
			continue;
		}
		if(val_pres_parse_rr(l->buf, ttl, have_origin ? origin : NULL,
			have_prev ? prev : NULL, rr, perr, sizeof(perr)) != 0) {
			snprintf(err, errlen, "%s: %s; expected a DS or DNSKEY "
				"record", where, perr);
			goto done;
		}
		memcpy(prev, rr->owner, dname_len(rr->owner));
		have_prev = 1;
		if(rr->type != DNS_TYPE_DS && rr->type != DNS_TYPE_DNSKEY)
			continue;
		if(add_static_rr(a, rr, where, err, errlen) != 0)
			goto done;
		added++;
	}
	if(r < 0) {
		snprintf(err, errlen, "%s:%d: line too long", path, lineno);
		goto done;
	}
	if(added == 0) {
		snprintf(err, errlen, "%s: no DS or DNSKEY record in the file",
			path);
		goto done;
	}
	ret = 0;
done:
	if(f)
		fclose(f);
	free(l);
	free(rr);
	return ret;
}

/* ---------------------------------------------------------------- */
/* BIND trusted-keys files */

/** token kinds */
enum btok { BT_END, BT_WORD, BT_STRING, BT_LBRACE, BT_RBRACE, BT_SEMI,
	BT_ERR };

/** the tokenizer */
struct blex {
	/** the file text */
	const char *p;
	/** current line */
	int line;
	/** line of the last token */
	int tline;
	/** the last token's text */
	char tok[8192];
};

/** next token; @return its kind */
static enum btok
blex_next(struct blex *x)
{
	size_t n = 0;
	x->tline = x->line;
	for(;;) {
		while(isspace((unsigned char)*x->p)) {
			if(*x->p == '\n')
				x->line++;
			x->p++;
		}
		if(*x->p == '#' || (x->p[0] == '/' && x->p[1] == '/')) {
			while(*x->p && *x->p != '\n')
				x->p++;
			continue;
		}
		if(x->p[0] == '/' && x->p[1] == '*') {
			x->tline = x->line;
			x->p += 2;
			while(*x->p && !(x->p[0] == '*' && x->p[1] == '/')) {
				if(*x->p == '\n')
					x->line++;
				x->p++;
			}
			if(!*x->p)
				return BT_ERR;
			x->p += 2;
			continue;
		}
		break;
	}
	x->tline = x->line;
	x->tok[0] = 0;
	switch(*x->p) {
	case 0: return BT_END;
	case '{': x->p++; return BT_LBRACE;
	case '}': x->p++; return BT_RBRACE;
	case ';': x->p++; return BT_SEMI;
	case '"':
		x->p++;
		while(*x->p && *x->p != '"') {
			if(*x->p == '\n')
				x->line++;
			if(n + 1 >= sizeof(x->tok))
				return BT_ERR;
			x->tok[n++] = *x->p++;
		}
		if(!*x->p)
			return BT_ERR;
		x->p++;
		x->tok[n] = 0;
		return BT_STRING;
	default:
		while(*x->p && !isspace((unsigned char)*x->p) &&
			!strchr("{};\"", *x->p)) {
			if(n + 1 >= sizeof(x->tok))
				return BT_ERR;
			x->tok[n++] = *x->p++;
		}
		x->tok[n] = 0;
		return BT_WORD;
	}
}

/** skip a balanced { ... } block and its ';'; @return 0 or -1 */
static int
blex_skip_block(struct blex *x)
{
	int depth = 1;
	enum btok t;
	while(depth > 0) {
		t = blex_next(x);
		if(t == BT_END || t == BT_ERR)
			return -1;
		if(t == BT_LBRACE)
			depth++;
		else if(t == BT_RBRACE)
			depth--;
	}
	return blex_next(x) == BT_SEMI ? 0 : -1;
}

/**
 * Read one key entry up to its ';' and add it.
 * @param first: the entry's first token (the name), already read.
 * @param managed: in a managed-keys or trust-anchors clause (a keyword
 *	after the name).
 * @return 0 or -1.
 */
static int
bind_entry(struct val_anchors *a, struct blex *x, const char *path,
	int managed, char *err, size_t errlen)
{
	char text[9000], name[1100], where[1200];
	const char *type = "DNSKEY";
	struct val_pres_rr *rr;
	size_t len;
	int line = x->tline, r, fields = 0;
	enum btok t;
	snprintf(where, sizeof(where), "%s:%d", path, line);
	snprintf(name, sizeof(name), "%.1000s", x->tok);
	len = strlen(name);
	if(len == 0 || name[len-1] != '.')
		snprintf(name + len, sizeof(name) - len, ".");
	if(managed) {
		if(blex_next(x) != BT_WORD) {
			snprintf(err, errlen, "%s: expected initial-key, "
				"static-key, initial-ds or static-ds", where);
			return -1;
		}
		if(strcmp(x->tok, "initial-ds") == 0 ||
			strcmp(x->tok, "static-ds") == 0)
			type = "DS";
		else if(strcmp(x->tok, "initial-key") != 0 &&
			strcmp(x->tok, "static-key") != 0) {
			snprintf(err, errlen, "%s: unknown key type '%s', "
				"expected initial-key, static-key, initial-ds "
				"or static-ds", where, x->tok);
			return -1;
		}
	}
	len = (size_t)snprintf(text, sizeof(text), "%s IN %s", name, type);
	while((t = blex_next(x)) == BT_WORD || t == BT_STRING) {
		if(len + strlen(x->tok) + 2 >= sizeof(text)) {
			snprintf(err, errlen, "%s: key entry too long", where);
			return -1;
		}
		text[len++] = ' ';
		memcpy(text + len, x->tok, strlen(x->tok) + 1);
		len += strlen(x->tok);
		fields++;
	}
	if(t != BT_SEMI || fields < 4) {
		snprintf(err, errlen, "%s: expected '<name> %s<flags> <protocol> "
			"<algorithm> \"<key>\";' (or a DS: <tag> <algorithm> "
			"<digest type> \"<digest>\")", where,
			managed ? "<initial-key|static-key> " : "");
		return -1;
	}
	if(!(rr = malloc(sizeof(*rr)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	{
		char perr[256];
		if(val_pres_parse_rr(text, 3600, NULL, NULL, rr, perr,
			sizeof(perr)) != 0) {
			snprintf(err, errlen, "%s: %s", where, perr);
			free(rr);
			return -1;
		}
	}
	r = add_static_rr(a, rr, where, err, errlen);
	free(rr);
	return r;
}

/** read a whole file into a malloc'd string; NULL on failure */
static char *
read_all(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	if(!f) {
		snprintf(err, errlen, "%s: cannot open: %s", path,
			strerror(errno));
		return NULL;
	}
	for(;;) {
		if(cap - len < 4097) {
			char *nb;
			if(cap > 16*1024*1024 ||
				!(nb = realloc(buf, cap ? cap * 2 : 8192))) {
				snprintf(err, errlen, "%s: too large or out of "
					"memory", path);
				free(buf);
				fclose(f);
				return NULL;
			}
			buf = nb;
			cap = cap ? cap * 2 : 8192;
		}
		n = fread(buf + len, 1, 4096, f);
		len += n;
		if(n < 4096)
			break;
	}
	fclose(f);
	buf[len] = 0;
	if(strlen(buf) != len) {
		snprintf(err, errlen, "%s: the file holds a NUL byte", path);
		free(buf);
		return NULL;
	}
	return buf;
}

int
val_anchors_add_bindfile(struct val_anchors *a, const char *path, char *err,
	size_t errlen)
{
	struct blex *x = malloc(sizeof(*x));
	char *text = read_all(path, err, errlen);
	enum btok t;
	int ret = -1, keys = 0;
	if(!x || !text) {
		if(!x)
			snprintf(err, errlen, "out of memory");
		goto done;
	}
	x->p = text;
	x->line = 1;
	while((t = blex_next(x)) != BT_END) {
		int managed;
		if(t == BT_ERR) {
			snprintf(err, errlen, "%s:%d: unterminated comment or "
				"string, or a token too long", path, x->tline);
			goto done;
		}
		if(t != BT_WORD) {
			snprintf(err, errlen, "%s:%d: expected a clause name "
				"(trusted-keys, managed-keys, trust-anchors)",
				path, x->tline);
			goto done;
		}
		managed = strcmp(x->tok, "managed-keys") == 0 ||
			strcmp(x->tok, "trust-anchors") == 0;
		if(!managed && strcmp(x->tok, "trusted-keys") != 0) {
			/* another clause of a named.conf: skip it */
			char clause[64];
			snprintf(clause, sizeof(clause), "%.60s", x->tok);
			while((t = blex_next(x)) == BT_WORD || t == BT_STRING)
				;
			if(t == BT_SEMI)
				continue;
			if(t != BT_LBRACE || blex_skip_block(x) != 0) {
				snprintf(err, errlen, "%s:%d: unbalanced "
					"clause '%s'", path, x->tline, clause);
				goto done;
			}
			continue;
		}
		if(blex_next(x) != BT_LBRACE) {
			snprintf(err, errlen, "%s:%d: expected '{' after %s",
				path, x->tline, managed ? "managed-keys" :
				"trusted-keys");
			goto done;
		}
		while((t = blex_next(x)) == BT_WORD || t == BT_STRING) {
			if(bind_entry(a, x, path, managed, err, errlen) != 0)
				goto done;
			keys++;
		}
		if(t != BT_RBRACE || blex_next(x) != BT_SEMI) {
			snprintf(err, errlen, "%s:%d: expected '};' to close "
				"the clause", path, x->tline);
			goto done;
		}
	}
	if(keys == 0) {
		snprintf(err, errlen, "%s: no trusted-keys entry in the file",
			path);
		goto done;
	}
	ret = 0;
done:
	free(x);
	free(text);
	return ret;
}

int
val_anchors_add_autofile(struct val_anchors *a, const char *path, char *err,
	size_t errlen)
{
	struct val_autr_point **pts = NULL;
	size_t n = 0, i;
	int ret = -1;
	if(val_autr_read_file(path, &pts, &n, err, errlen) != 0)
		return -1;
	for(i = 0; i < n; i++) {
		struct val_anchor *an = val_anchors_find(a, pts[i]->name,
			pts[i]->dclass);
		if(an) {
			char nm[DNS_MAX_NAME_STR];
			dname_to_str(pts[i]->name, nm, sizeof(nm));
			snprintf(err, errlen, "%s: the trust anchor for %s is "
				"already configured; a name cannot be both an "
				"auto-trust-anchor-file and another anchor",
				path, nm);
			goto done;
		}
		if(!(an = anchor_new(a, pts[i]->name, pts[i]->dclass)) ||
			!(an->file = strdup(path))) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		an->tp = pts[i];
		an->autotrust = 1;
		pts[i] = NULL;
	}
	ret = 0;
done:
	for(i = 0; i < n; i++)
		val_autr_free(pts[i]);
	free(pts);
	return ret;
}

int
val_anchors_add_insecure(struct val_anchors *a, const char *name, char *err,
	size_t errlen)
{
	uint8_t wire[DNS_MAX_NAME];
	size_t wl = sizeof(wire);
	struct val_anchor *an;
	if(dname_from_str(name, wire, &wl) != 0) {
		snprintf(err, errlen, "domain-insecure \"%s\": not a domain "
			"name", name);
		return -1;
	}
	an = val_anchors_find(a, wire, DNS_CLASS_IN);
	if(an && an->insecure)
		return 0;
	if(an) {
		/* as Unbound: the negative anchor wins over the keys */
		val_autr_free(an->tp);
		an->tp = NULL;
		an->autotrust = 0;
		free(an->file);
		an->file = NULL;
	} else if(!(an = anchor_new(a, wire, DNS_CLASS_IN))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	an->insecure = 1;
	return 0;
}

size_t
val_anchor_keys(const struct val_anchor *an, uint16_t type,
	struct val_rr *out, size_t max)
{
	const struct val_autr_key *k;
	size_t n = 0;
	if(!an->tp)
		return 0;
	for(k = an->tp->keys; k; k = k->next) {
		if(k->type != type || !val_autr_key_trusted(k))
			continue;
		if(n < max) {
			out[n].buf = k->rdata;
			out[n].buflen = k->len;
			out[n].off = 0;
			out[n].len = k->len;
		}
		n++;
	}
	return n;
}

/** the IANA root anchors (root-anchors.xml), as DS records */
static const char *const builtin_root[] = {
	/* KSK-2017 */
	". 172800 IN DS 20326 8 2 "
	"E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D",
	/* KSK-2024 */
	". 172800 IN DS 38696 8 2 "
	"683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16"
};

const char *const *
val_anchor_builtin_root(size_t *n)
{
	*n = sizeof(builtin_root) / sizeof(builtin_root[0]);
	return builtin_root;
}
