/*
 * util/config_file.c - the config file parser, loader and printer.
 *
 * The parser is line based. A line is "key:" followed by zero or more
 * values; a value is a run of non-blank characters or a quoted string ("..."
 * or '...', taken literally); '#' at the start of a value (or of the line)
 * starts a comment. A key that names a clause (server:, forward-zone:, ...)
 * switches the clause, and anything after it on the line is read as a line
 * of its own. As Unbound's lexer reads tokens, not lines, a line may hold
 * several statements ("forward-zone: name: "." forward-addr: 1.2.3.4": an
 * unquoted word that starts with a known key and a colon starts the next
 * one, see next_key()), and a key alone on its line takes its value from
 * the next line that is not blank or a comment. include: reads other files in place (the current clause
 * carries into them and out of them again, as in Unbound, where an include
 * is textual); include-toplevel: closes the clause first and after.
 *
 * Every key is looked up in the option table (util/config_options.c) and
 * its values are checked and stored by the row's type. A zone clause is
 * checked when the next clause starts or the input ends.
 *
 * All or nothing: config_read() parses into config_dup(cfg) and swaps the
 * copy in only on success.
 */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/config_auth.h"
#include "util/log.h"
#include "util/netaddr.h"
#include <ldns/ldns.h>
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#ifdef HAVE_GLOB_H
#include <glob.h>
#endif

/** most values on one line that are looked at */
#define MAX_VALUES 8
/** longest value of an option, bytes: far above any name, path, address
 * or record, and a bound on what a config line can make petrel keep */
#define MAX_VALUE_LEN 8192
/** how deep includes may nest */
#define MAX_INCLUDE_DEPTH 16
/** largest config file read (bytes) */
#define MAX_FILE_SIZE (256 * 1024 * 1024)

/** the state of one load */
struct cfg_parser {
	/** the config being filled in */
	struct config_file *cfg;
	/** the file being read, NULL for config_set_option (no prefix) */
	const char *file;
	/** the line being read, from 1 */
	int line;
	/** the current clause (enum config_clause) */
	int clause;
	/** the zone of the current forward-zone: or stub-zone: clause */
	struct config_stub *zone;
	/** the file of the zone's clause header (malloced) */
	char *zone_file;
	/** the node of the current auth-zone: clause */
	struct config_auth *auth;
	/** the node of the current tsig-key: clause */
	struct config_tsig *tsig;
	/** include depth, 0 for the top file */
	int depth;
	/** the error buffer and its size */
	char *err;
	/** size of err */
	size_t errlen;
	/** per table row: already warned about */
	unsigned char *warned;
	/** per ignored clause: already warned about */
	unsigned char warned_clause[16];
	/** rpz: and view: clauses started so far (the block numbers) */
	int nrpz, nview;
	/** warnings given */
	int nwarn;
	/** file and line of the last "tls-upstream: yes" (or ssl-upstream),
	 * for the check at the end of the load; file malloced */
	char *tls_up_file;
	/** its line */
	int tls_up_line;
	/** file and line of the last tls-service-key, tls-service-pem and
	 * tls-port lines (or their ssl- names), for the checks at the end
	 * of the load; files malloced */
	char *svc_file[4];
	/** their lines (index 3: https-port) */
	int svc_line[4];
	/** file and line of the last "dnstap-enable: yes", for the check
	 * at the end of the load; file malloced */
	char *dt_file;
	/** its line */
	int dt_line;
	/** file and line of the last "disable-edns-do: yes", for the check
	 * at the end of the load; file malloced */
	char *nodo_file;
	/** its line */
	int nodo_line;
	/** tail cache, so that appending to a long list (a block list of
	 * 100000 local-zone: lines) does not walk it each time: the
	 * address of a list head ... */
	void *tail_head[16];
	/** ... and the address of the next field of its last element */
	void *tail_at[16];
	/** the slot to replace next */
	int tail_next;
	/** a key given without its value, which then comes on a following
	 * line (as Unbound's lexer reads it); "" when none */
	char pending[64];
};

const char *const config_localzone_types[] = {
	"deny", "refuse", "static", "transparent", "typetransparent",
	"redirect", "nodefault", "inform", "inform_deny", "inform_redirect",
	"always_transparent", "always_refuse", "always_nxdomain",
	"always_nodata", "always_null", "always_deny", "block_a",
	"block_aaaa", "block_a_wdata", "block_aaaa_wdata", "noview", NULL };

/** access-control action words, in enum config_acl_action order */
static const char *const acl_action_words[] = {
	"deny", "refuse", "allow", "allow_setrd", "allow_snoop",
	"deny_non_local", "refuse_non_local", "allow_cookie", NULL };

/** Format an error, prefixed with file:line when reading a file. */
struct outbuf;

/**
 * What an option type does, one row per enum config_type (opt_type()):
 * parse a value into the config (set_value), copy the value from one
 * config to another (config_dup), free what it owns (config_delete),
 * print it (config_get_option_str, get_option). NULL copy and free: the
 * value is a scalar in struct config_file, copied with it. NULL print:
 * nothing to print (Unbound-only options).
 */
struct opt_type_ops;
static const struct opt_type_ops *opt_type(int type);

struct opt_type_ops {
	/** parse v[0..n-1]; @return 0 or -1 with the error set */
	int (*parse)(struct cfg_parser *p, const struct config_option *o,
		char **v, int n);
	/** copy src's value into dst (whose member is NULL); @return 0 or
	 * -1 (out of memory: what was copied is freed with dst) */
	int (*copy)(struct config_file *dst, const struct config_file *src,
		const struct config_option *o);
	/** free cfg's value and set the member to NULL */
	void (*free)(struct config_file *cfg, const struct config_option *o);
	/** print cfg's value, one item per value */
	void (*print)(struct outbuf *out, const struct config_file *cfg,
		const struct config_option *o);
};

static int perr(struct cfg_parser *p, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static int
perr(struct cfg_parser *p, const char *fmt, ...)
{
	va_list ap;
	size_t n = 0;
	if(!p->err || p->errlen == 0)
		return -1;
	p->err[0] = 0;
	if(p->file) {
		snprintf(p->err, p->errlen, "%s:%d: ", p->file, p->line);
		n = strlen(p->err);
	}
	if(n < p->errlen) {
		va_start(ap, fmt);
		vsnprintf(p->err + n, p->errlen - n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/** Join a NULL-terminated word list as "a, b or c" into buf. */
static const char *
join_words(const char *const *w, char *buf, size_t len)
{
	size_t i, n = 0;
	buf[0] = 0;
	for(i = 0; w[i]; i++) {
		const char *sep = (i == 0) ? "" : (w[i+1] ? ", " : " or ");
		int r = snprintf(buf + n, len - n, "%s%s", sep, w[i]);
		if(r < 0 || (size_t)r >= len - n)
			break;
		n += (size_t)r;
	}
	return buf;
}

/** @return index of word in w, or -1 */
static int
word_index(const char *const *w, const char *word)
{
	int i;
	for(i = 0; w[i]; i++)
		if(strcmp(w[i], word) == 0)
			return i;
	return -1;
}

/** Print a size in the shortest exact form: 4m, 512k, 1000. */
static const char *
size_str(long long v, char *buf, size_t len)
{
	const long long k = 1024, m = 1024 * 1024, g = 1024 * 1024 * 1024;
	if(v > 0 && v % g == 0)
		snprintf(buf, len, "%lldg", v / g);
	else if(v > 0 && v % m == 0)
		snprintf(buf, len, "%lldm", v / m);
	else if(v > 0 && v % k == 0)
		snprintf(buf, len, "%lldk", v / k);
	else
		snprintf(buf, len, "%lld", v);
	return buf;
}

/** Parse a decimal integer, optionally negative. @return 0 or -1. */
static int
parse_ll(const char *s, long long *out)
{
	const char *d = s;
	char *end = NULL;
	long long v;
	if(*d == '-' || *d == '+')
		d++;
	if(!isdigit((unsigned char)*d))
		return -1;
	for(; *d; d++)
		if(!isdigit((unsigned char)*d))
			return -1;
	errno = 0;
	v = strtoll(s, &end, 10);
	if(errno != 0 || !end || *end)
		return -1;
	*out = v;
	return 0;
}

/** Parse a size: digits, then optionally k, m or g (any case), then
 * optionally b. @return 0 or -1. */
static int
parse_size(const char *s, long long *out)
{
	long long v = 0, mult = 1;
	const char *d = s;
	if(!isdigit((unsigned char)*d))
		return -1;
	while(isdigit((unsigned char)*d)) {
		if(v > (LLONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*d - '0');
		d++;
	}
	switch(*d) {
	case 'k': case 'K': mult = 1024LL; d++; break;
	case 'm': case 'M': mult = 1024LL * 1024; d++; break;
	case 'g': case 'G': mult = 1024LL * 1024 * 1024; d++; break;
	default: break;
	}
	if(*d == 'b' || *d == 'B')
		d++;
	if(*d)
		return -1;
	if(v > LLONG_MAX / mult)
		return -1;
	*out = v * mult;
	return 0;
}

/** Check a domain name with ldns and return a copy that ends in a dot.
 * @return the malloced name, or NULL (bad name or no memory; *bad is set
 * for a bad name). */
static char *
domain_copy(const char *s, int *bad)
{
	ldns_rdf *r;
	size_t n = strlen(s);
	char *out;
	*bad = 0;
	/* ldns takes "a b" as one label with a space; a config means a
	 * mistake by it */
	if(n == 0 || n > 1024 || strpbrk(s, " \t\r\n\f\v")) {
		*bad = 1;
		return NULL;
	}
	r = ldns_dname_new_frm_str(s);
	if(!r) {
		*bad = 1;
		return NULL;
	}
	ldns_rdf_deep_free(r);
	out = malloc(n + 2);
	if(!out)
		return NULL;
	memcpy(out, s, n + 1);
	if(s[n-1] != '.' || (n >= 2 && s[n-2] == '\\')) {
		out[n] = '.';
		out[n+1] = 0;
	}
	return out;
}

/** @return the cached tail (address of the last next field) of the
 * list whose head is at 'head', or NULL */
static void *
tail_get(struct cfg_parser *p, void *head)
{
	int i;
	for(i = 0; i < 16; i++)
		if(p->tail_head[i] == head)
			return p->tail_at[i];
	return NULL;
}

/** Remember the tail of the list whose head is at 'head'. */
static void
tail_set(struct cfg_parser *p, void *head, void *at)
{
	int i;
	for(i = 0; i < 16; i++) {
		if(p->tail_head[i] == head) {
			p->tail_at[i] = at;
			return;
		}
	}
	i = p->tail_next;
	p->tail_next = (p->tail_next + 1) % 16;
	p->tail_head[i] = head;
	p->tail_at[i] = at;
}

/** Append an element (with a next member, NULL) to the end of a list,
 * through the parser's tail cache (a stale entry is noticed: its next
 * field is no longer NULL, and then the list is walked). */
#define LIST_APPEND(p, head, elem) do { \
		__typeof__(elem) *lp_ = tail_get((p), &(head)); \
		if(!lp_ || *lp_) { \
			lp_ = &(head); \
			while(*lp_) lp_ = &(*lp_)->next; \
		} \
		*lp_ = (elem); \
		tail_set((p), &(head), &(elem)->next); \
	} while(0)

/** Append a copy of a string to a list. @return 0 or -1 (no memory). */
static int
strlist_append(struct cfg_parser *p, struct config_strlist **list,
	const char *s)
{
	struct config_strlist *e = calloc(1, sizeof(*e));
	if(!e)
		return -1;
	e->str = strdup(s);
	if(!e->str) {
		free(e);
		return -1;
	}
	LIST_APPEND(p, *list, e);
	return 0;
}

void
config_strlist_free(struct config_strlist *l)
{
	while(l) {
		struct config_strlist *n = l->next;
		free(l->str);
		free(l);
		l = n;
	}
}

void
config_addrlist_free(struct config_addrlist *l)
{
	while(l) {
		struct config_addrlist *n = l->next;
		free(l->str);
		free(l->doh_path);
		free(l);
		l = n;
	}
}

void
config_stub_free(struct config_stub *z)
{
	while(z) {
		struct config_stub *n = z->next;
		free(z->name);
		config_addrlist_free(z->addrs);
		config_strlist_free(z->hosts);
		free(z);
		z = n;
	}
}

void
config_localzone_free(struct config_localzone *z)
{
	while(z) {
		struct config_localzone *n = z->next;
		free(z->name);
		free(z->type);
		free(z);
		z = n;
	}
}

void
config_policyline_free(struct config_policyline *l)
{
	while(l) {
		struct config_policyline *n = l->next;
		int i;
		for(i = 0; i < l->n; i++)
			free(l->v[i]);
		free(l->v);
		free(l->key);
		free(l->file);
		free(l);
		l = n;
	}
}

struct config_policyline *
config_policyline_new(int clause, int block, const char *key, const char *file,
	int line, char *const *v, int n)
{
	struct config_policyline *l = calloc(1, sizeof(*l));
	int i;
	if(!l)
		return NULL;
	l->clause = clause;
	l->block = block;
	l->line = line;
	l->key = strdup(key);
	l->file = strdup(file ? file : "");
	l->v = calloc((size_t)(n > 0 ? n : 1), sizeof(char *));
	if(!l->key || !l->file || !l->v) {
		config_policyline_free(l);
		return NULL;
	}
	for(i = 0; i < n; i++) {
		if(!(l->v[i] = strdup(v[i]))) {
			config_policyline_free(l);
			return NULL;
		}
		l->n = i + 1;
	}
	return l;
}

int
config_tag_index(const struct config_file *cfg, const char *name)
{
	const struct config_policyline *l;
	int idx = 0, i;
	size_t nl = strlen(name);
	for(l = cfg->policy_lines; l; l = l->next) {
		if(l->clause != CLAUSE_SERVER || strcmp(l->key, "define-tag"))
			continue;
		for(i = 0; i < l->n; i++) {
			const char *p = l->v[i];
			for(;;) {
				size_t n = 0;
				while(*p == ' ' || *p == '\t' || *p == ',')
					p++;
				if(!*p)
					break;
				while(p[n] && p[n] != ' ' && p[n] != '\t' &&
					p[n] != ',')
					n++;
				if(n == nl && strncmp(p, name, n) == 0)
					return idx < CONFIG_MAX_TAGS ? idx : -1;
				idx++;
				p += n;
			}
		}
	}
	return -1;
}

int
config_tag_mask(const struct config_file *cfg, const char *list,
	uint64_t *mask, char *err, size_t errlen)
{
	const char *p = list;
	*mask = 0;
	for(;;) {
		char name[256];
		size_t n = 0;
		int i;
		while(*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if(!*p)
			break;
		while(p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != ',')
			n++;
		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		p += n;
		if((i = config_tag_index(cfg, name)) < 0) {
			snprintf(err, errlen, "unknown tag '%s' (not in a "
				"define-tag:, or past the first %d tags)", name,
				CONFIG_MAX_TAGS);
			return -1;
		}
		*mask |= (uint64_t)1 << i;
	}
	if(!*mask) {
		snprintf(err, errlen, "expected a list of tags");
		return -1;
	}
	return 0;
}

/** copy a list of policy lines. @return 0 or -1. */
static int
policylines_copy(struct config_policyline **dst,
	const struct config_policyline *s)
{
	struct config_policyline **tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		struct config_policyline *e = config_policyline_new(s->clause,
			s->block, s->key, s->file, s->line, s->v, s->n);
		if(!e)
			return -1;
		*tail = e;
		tail = &e->next;
	}
	return 0;
}

/** @return days from 1970-01-01 to the date (proleptic Gregorian) */
static long long
days_from_civil(long long y, int m, int d)
{
	long long era, yoe, doy, doe;
	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int
config_nsid(const char *s, uint8_t *buf, size_t *len)
{
	size_t n = strlen(s), i;
	if(strncmp(s, "ascii_", 6) == 0) {
		if(n - 6 > CONFIG_NSID_MAX)
			return -1;
		memcpy(buf, s + 6, n - 6);
		*len = n - 6;
		return 0;
	}
	if(n % 2 != 0 || n / 2 > CONFIG_NSID_MAX)
		return -1;
	for(i = 0; i < n; i += 2) {
		int hi, lo;
		if(!isxdigit((unsigned char)s[i]) ||
			!isxdigit((unsigned char)s[i + 1]))
			return -1;
		hi = isdigit((unsigned char)s[i]) ? s[i] - '0' :
			tolower((unsigned char)s[i]) - 'a' + 10;
		lo = isdigit((unsigned char)s[i + 1]) ? s[i + 1] - '0' :
			tolower((unsigned char)s[i + 1]) - 'a' + 10;
		buf[i / 2] = (uint8_t)(hi << 4 | lo);
	}
	*len = n / 2;
	return 0;
}

int
config_parse_date(const char *s, long long *out)
{
	static const int mdays[12] = { 31, 29, 31, 30, 31, 30, 31, 31, 30,
		31, 30, 31 };
	long long ll;
	size_t i, len = strlen(s);
	if(len == 0 || strcmp(s, "0") == 0) {
		*out = 0;
		return 0;
	}
	if(strcmp(s, "-1") == 0) {
		*out = -1;
		return 0;
	}
	for(i = 0; i < len; i++)
		if(!isdigit((unsigned char)s[i]))
			return -1;
	if(len == 14) {
		int f[6], k, leap;
		long long y;
		for(k = 0; k < 6; k++) {
			int w = k == 0 ? 4 : 2, j, off = k == 0 ? 0 : 2 + 2 * k;
			f[k] = 0;
			for(j = 0; j < w; j++)
				f[k] = f[k] * 10 + (s[off + j] - '0');
		}
		y = f[0];
		leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
		if(y < 1970 || f[1] < 1 || f[1] > 12 || f[2] < 1 ||
			f[2] > mdays[f[1] - 1] || (f[1] == 2 && f[2] == 29 &&
			!leap) || f[3] > 23 || f[4] > 59 || f[5] > 59)
			return -1;
		ll = days_from_civil(y, f[1], f[2]) * 86400LL +
			f[3] * 3600LL + f[4] * 60LL + f[5];
		if(ll > 0xffffffffLL)
			return -1;
		*out = ll;
		return 0;
	}
	if(parse_ll(s, &ll) != 0 || ll < 1 || ll > 0xffffffffLL)
		return -1;
	*out = ll;
	return 0;
}

/** free everything a config owns, not the struct itself */
static void
config_free_members(struct config_file *cfg)
{
	size_t i;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		const struct opt_type_ops *t = opt_type(o->type);
		if(!config_clause_in_file(o->clause))
			continue;
		if(t && t->free)
			t->free(cfg, o);
	}
	config_stub_free(cfg->forwards);
	cfg->forwards = NULL;
	config_stub_free(cfg->stubs);
	cfg->stubs = NULL;
	config_auth_free(cfg->auths);
	cfg->auths = NULL;
	config_tsig_free(cfg->tsig_keys);
	cfg->tsig_keys = NULL;
	config_policyline_free(cfg->policy_lines);
	cfg->policy_lines = NULL;
	free(cfg->filename);
	cfg->filename = NULL;
}

void
config_delete(struct config_file *cfg)
{
	if(!cfg)
		return;
	config_free_members(cfg);
	free(cfg);
}

/** the int stored for an option (in cfg, or in the zone) */
static int *
opt_int(struct cfg_parser *p, const struct config_option *o)
{
	if(o->type == OPT_ZONE_BOOL)
		return (int *)((char *)p->zone + o->off);
	return (int *)((char *)p->cfg + o->off);
}

/** @return 1 if word i of an enum option is built in, else 0: the
 * thread models and event backends depend on the build */
static int
enum_available(const struct config_option *o, int i)
{
	if(o->off == offsetof(struct config_file, thread_model)) {
		switch(i) {
		case THREAD_MODEL_PTHREADS:
#ifdef HAVE_PTHREAD
			return 1;
#else
			return 0;
#endif
		case THREAD_MODEL_SOLARIS:
#ifdef HAVE_SOLARIS_THREADS
			return 1;
#else
			return 0;
#endif
		default:
			return 1;
		}
	}
	if(o->off == offsetof(struct config_file, event_backend) &&
		i == EVENT_BACKEND_LIBEVENT) {
#ifdef HAVE_LIBEVENT
		return 1;
#else
		return 0;
#endif
	}
	if(o->off == offsetof(struct config_file, event_backend) &&
		i == EVENT_BACKEND_URING) {
#ifdef HAVE_LIBURING
		return 1;
#else
		return 0;
#endif
	}
	return 1;
}

/** The words of an enum option that are built in, into buf. */
static const char *
enum_available_words(const struct config_option *o, char *buf, size_t len)
{
	const char *w[8];
	int i, n = 0;
	for(i = 0; o->words[i] && n < 7; i++)
		if(enum_available(o, i))
			w[n++] = o->words[i];
	w[n] = NULL;
	return join_words(w, buf, len);
}

/** Check an address value. @return 0 or -1 with the error set. */
static int
check_addr(struct cfg_parser *p, const struct config_option *o,
	const char *v, struct netaddr *out)
{
	const char *why = "";
	struct netaddr a;
	char buf[NETADDR_STRLEN + 256];
	const char *h = strchr(v, '#');
	const char *s = v;
	/* forward-addr: ip@port#tls-name: the name is the TLS auth name
	 * (util/netevent/tls.c reads it from the stored text) */
	if(h && o->type == OPT_ZONE_ADDR) {
		size_t n = (size_t)(h - v);
		if(n >= sizeof(buf))
			n = sizeof(buf) - 1;
		memcpy(buf, v, n);
		buf[n] = 0;
		s = buf;
	}
	if(netaddr_parse(s, 53, &a, &why) != 0)
		return perr(p, "%s: expected an IP address (ip or ip@port), "
			"got '%s': %s", o->name, v, why);
	if(out)
		*out = a;
	return 0;
}

/** Store a string member. @return 0 or -1. */
static int
set_str(struct cfg_parser *p, const struct config_option *o, const char *v)
{
	char **dst = (char **)((char *)p->cfg + o->off);
	char *s = strdup(v);
	if(!s)
		return perr(p, "out of memory");
	free(*dst);
	*dst = s;
	return 0;
}

/** Warn once per load about something petrel ignores. */
static void
warn_ignored(struct cfg_parser *p, unsigned char *flag, const char *name,
	const char *what)
{
	if(*flag)
		return;
	*flag = 1;
	p->nwarn++;
	log_warnx("%s:%d: %s%s not implemented by petrel, ignored",
		p->file ? p->file : "", p->line, name, what);
}

/** An option asking for security petrel does not provide yet
 * (OPT_INSECURE). A value that turns it off is accepted quietly; one that
 * asks for it is an error that says what is missing, so that nobody believes they are protected.
 * @return 0 or -1 with the error set. */
static int
check_insecure(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	if(n == 0)
		return perr(p, "%s: expected a value", o->name);
	if(n == 1 && (strcmp(v[0], "no") == 0 || v[0][0] == 0))
		return 0;
	return perr(p, "%s: asks for %s, which petrel does not "
		"provide yet; remove the line rather than run without "
		"that protection", o->name, o->desc);
}

/* ---- parsing, one function per option type (see opt_type()) ---- */

/** the member of cfg an option is stored in */
#define MEMBER(p, o, type) ((type)(void *)((char *)(p)->cfg + (o)->off))

/** yes or no (OPT_BOOL, OPT_ZONE_BOOL) */
static int
parse_bool(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	(void)n;
	if(strcmp(v[0], "yes") == 0)
		*opt_int(p, o) = 1;
	else if(strcmp(v[0], "no") == 0)
		*opt_int(p, o) = 0;
	else
		return perr(p, "%s: expected yes or no, got '%s'", o->name,
			v[0]);
	return 0;
}

/** an integer in [min, max], a power of 2 for OPT_INT_POW2 */
static int
parse_int(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	long long ll;
	(void)n;
	if(parse_ll(v[0], &ll) != 0 || ll < o->min || ll > o->max ||
		(o->type == OPT_INT_POW2 && (ll & (ll - 1)) != 0)) {
		if(o->type == OPT_INT_POW2)
			return perr(p, "%s: expected a power of 2 from %lld to "
				"%lld, got '%s'", o->name, o->min, o->max, v[0]);
		return perr(p, "%s: expected an integer from %lld to %lld, "
			"got '%s'", o->name, o->min, o->max, v[0]);
	}
	*opt_int(p, o) = (int)ll;
	return 0;
}

/** a size with an optional k, m or g */
static int
parse_size_opt(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	char b1[32], b2[32];
	long long ll;
	(void)n;
	if(parse_size(v[0], &ll) != 0 || ll < o->min || ll > o->max ||
		(unsigned long long)ll > SIZE_MAX)
		return perr(p, "%s: expected a size from %s to %s (a number, "
			"optionally followed by k, m or g), got '%s'", o->name,
			size_str(o->min, b1, sizeof(b1)),
			size_str(o->max, b2, sizeof(b2)), v[0]);
	*MEMBER(p, o, size_t *) = (size_t)ll;
	return 0;
}

/** any text, or a path (OPT_STR, OPT_PATH) */
static int
parse_str(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	char why[512];
	long long date;
	uint8_t nsid[CONFIG_NSID_MAX];
	size_t nsid_len;
	(void)n;
	if((o->flags & OPT_F_MODULES) &&
		config_check_modules(v[0], why, sizeof(why)) != 0)
		return perr(p, "%s: %s", o->name, why);
	if((o->flags & OPT_F_DATE) && config_parse_date(v[0], &date) != 0)
		return perr(p, "%s: expected a date YYYYMMDDHHMMSS, seconds "
			"since 1970, -1 (do not check dates) or 0 (the clock), "
			"got '%s'", o->name, v[0]);
	if((o->flags & OPT_F_NSID) && config_nsid(v[0], nsid, &nsid_len)
		!= 0)
		return perr(p, "%s: expected \"ascii_\" and a text, or an "
			"even number of hex digits, at most %d bytes, got '%s'",
			o->name, CONFIG_NSID_MAX, v[0]);
	if((o->flags & OPT_F_HEX128) && v[0][0]) {
		size_t i;
		for(i = 0; isxdigit((unsigned char)v[0][i]); i++)
			;
		if(i != 32 || v[0][i] != 0)
			return perr(p, "%s: expected 32 hex digits (a 128-bit "
				"secret), got '%s'", o->name, v[0]);
	}
	return set_str(p, o, v[0]);
}

/** "" or ip@port */
static int
parse_addr(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	struct netaddr a;
	(void)n;
	if(v[0][0] == 0)
		return set_str(p, o, v[0]);
	if(!strchr(v[0], '@'))
		return perr(p, "%s: expected ip@port (or \"\" for off), got "
			"'%s'", o->name, v[0]);
	if(check_addr(p, o, v[0], &a) != 0)
		return -1;
	return set_str(p, o, v[0]);
}

/** one of the words, if this build has it */
static int
parse_enum(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	char wbuf[512];
	int i = word_index(o->words, v[0]);
	(void)n;
	if(i < 0)
		return perr(p, "%s: expected %s, got '%s'", o->name,
			join_words(o->words, wbuf, sizeof(wbuf)), v[0]);
	if(!enum_available(o, i))
		return perr(p, "%s: %s is not compiled into this petrel (it "
			"has %s)", o->name, v[0],
			enum_available_words(o, wbuf, sizeof(wbuf)));
	*opt_int(p, o) = i;
	return 0;
}

/** append the value to the option's string list */
static int
append_value(struct cfg_parser *p, const struct config_option *o,
	const char *v)
{
	if(strlist_append(p, MEMBER(p, o, struct config_strlist **), v) != 0)
		return perr(p, "out of memory");
	return 0;
}

/** repeatable: an address (ip or ip@port) */
static int
parse_addr_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	(void)n;
	if(check_addr(p, o, v[0], NULL) != 0)
		return -1;
	return append_value(p, o, v[0]);
}

/** repeatable: an address, or a unix socket path starting with / */
static int
parse_ctrl_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	(void)n;
	if(v[0][0] != '/') {
		const char *why = "";
		struct netaddr a;
		if(netaddr_parse(v[0], 53, &a, &why) != 0)
			return perr(p, "%s: expected an IP address or a unix "
				"socket path starting with '/', got '%s': %s",
				o->name, v[0], why);
	}
	return append_value(p, o, v[0]);
}

/** repeatable: a file name (trust anchor files) */
static int
parse_path_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	(void)n;
	return append_value(p, o, v[0]);
}

/** repeatable: a port number (OPT_PORT_LIST) */
static int
parse_port_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	long long ll;
	char b[16];
	(void)n;
	if(parse_ll(v[0], &ll) != 0 || ll < o->min || ll > o->max)
		return perr(p, "%s: expected a port number from %lld to %lld, "
			"got '%s'", o->name, o->min, o->max, v[0]);
	snprintf(b, sizeof(b), "%lld", ll);
	return append_value(p, o, b);
}

/** a domain name, copied with a trailing dot; NULL with the error set */
static char *
parse_domain(struct cfg_parser *p, const struct config_option *o,
	const char *v)
{
	int bad = 0;
	char *d = domain_copy(v, &bad);
	if(!d) {
		if(bad)
			(void)perr(p, "%s: expected a domain name, got '%s'",
				o->name, v);
		else	(void)perr(p, "out of memory");
	}
	return d;
}

/** repeatable: a domain name */
static int
parse_name_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_strlist *e;
	char *d = parse_domain(p, o, v[0]);
	(void)n;
	if(!d)
		return -1;
	e = calloc(1, sizeof(*e));
	if(!e) {
		free(d);
		return perr(p, "out of memory");
	}
	e->str = d;
	LIST_APPEND(p, *MEMBER(p, o, struct config_strlist **), e);
	return 0;
}

/**
 * repeatable: a port or a range "low-high" (outgoing-port-permit,
 * outgoing-port-avoid): kept in one list in line order, '+' or '-' in
 * front
 */
static int
parse_port_rules(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	char buf[32], *end;
	unsigned long lo, hi;
	(void)n;
	lo = strtoul(v[0], &end, 10);
	hi = lo;
	if(end != v[0] && *end == '-') {
		const char *h = end + 1;
		hi = strtoul(h, &end, 10);
		if(end == h)
			end = (char *)"x";
	}
	if(end == v[0] || *end != 0 || v[0][0] == '-' || v[0][0] == '+' ||
		lo > 65535 || hi > 65535 || lo > hi)
		return perr(p, "%s: expected a port or a range low-high "
			"(0 to 65535), got '%s'", o->name, v[0]);
	snprintf(buf, sizeof(buf), "%c%lu-%lu",
		strcmp(o->name, "outgoing-port-avoid") == 0 ? '-' : '+', lo,
		hi);
	return append_value(p, o, buf);
}

/** repeatable: a netblock */
static int
parse_netblock_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_netblocklist *e;
	struct netblock nb;
	const char *why = "";
	(void)n;
	if(netblock_parse(v[0], &nb, 1, &why) != 0)
		return perr(p, "%s: expected a netblock (ip/prefix), got '%s': "
			"%s", o->name, v[0], why);
	e = calloc(1, sizeof(*e));
	if(!e)
		return perr(p, "out of memory");
	e->block = nb;
	LIST_APPEND(p, *MEMBER(p, o, struct config_netblocklist **), e);
	return 0;
}

/** repeatable: netblock and action */
static int
parse_acl(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	struct config_acl *e;
	struct netblock nb;
	const char *why = "";
	char wbuf[512];
	int act;
	(void)n;
	if(netblock_parse(v[0], &nb, 1, &why) != 0)
		return perr(p, "%s: expected a netblock (ip/prefix), got '%s': "
			"%s", o->name, v[0], why);
	act = word_index(acl_action_words, v[1]);
	if(act < 0)
		return perr(p, "%s: expected an action (%s), got '%s'", o->name,
			join_words(acl_action_words, wbuf, sizeof(wbuf)), v[1]);
	e = calloc(1, sizeof(*e));
	if(!e)
		return perr(p, "out of memory");
	e->block = nb;
	e->action = (enum config_acl_action)act;
	LIST_APPEND(p, *MEMBER(p, o, struct config_acl **), e);
	return 0;
}

/** repeatable: zone name and type */
static int
parse_localzone(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_localzone *e;
	char wbuf[512], *d;
	(void)n;
	if(word_index(config_localzone_types, v[1]) < 0)
		return perr(p, "%s: expected a zone type (%s), got '%s'",
			o->name, join_words(config_localzone_types, wbuf,
			sizeof(wbuf)), v[1]);
	if(!(d = parse_domain(p, o, v[0])))
		return -1;
	e = calloc(1, sizeof(*e));
	if(!e || !(e->type = strdup(v[1]))) {
		free(e);
		free(d);
		return perr(p, "out of memory");
	}
	e->name = d;
	LIST_APPEND(p, *MEMBER(p, o, struct config_localzone **), e);
	return 0;
}

/** check "ip name" or "ip ttl name" (local-data-ptr). @return 0 or -1 */
static int
check_ptr(struct cfg_parser *p, const struct config_option *o,
	const char *rec)
{
	char w[3][300], *d;
	int nw, bad = 0;
	struct netaddr a;
	const char *t, *why = "";
	w[0][0] = w[1][0] = w[2][0] = 0;
	for(nw = 0, t = rec; ; nw++) {
		size_t wl;
		while(isspace((unsigned char)*t))
			t++;
		if(!*t)
			break;
		wl = strcspn(t, " \t\r\n\f\v");
		if(nw >= 3 || wl >= sizeof(w[0]))
			return perr(p, "%s: expected %s, got '%s'", o->name,
				o->arg, rec);
		memcpy(w[nw], t, wl);
		w[nw][wl] = 0;
		t += wl;
	}
	if(nw < 2 || (nw == 3 && strspn(w[1], "0123456789") != strlen(w[1])))
		return perr(p, "%s: expected %s, got '%s'", o->name, o->arg,
			rec);
	if(strchr(w[0], '@') || strchr(w[0], '%') ||
		netaddr_parse(w[0], 0, &a, &why) != 0)
		return perr(p, "%s: expected %s, got '%s': '%s' is not an IP "
			"address", o->name, o->arg, rec, w[0]);
	d = domain_copy(w[nw-1], &bad);
	if(!d)
		return bad ? perr(p, "%s: expected %s, got '%s': '%s' is not a "
			"domain name", o->name, o->arg, rec, w[nw-1])
			: perr(p, "out of memory");
	free(d);
	return 0;
}

/** repeatable: a resource record (OPT_LOCALDATA) or "ip [ttl] name"
 * (OPT_LOCALDATA_PTR); values given without quotes are joined */
static int
parse_localdata(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	char joined[4096];
	const char *rec = v[0];
	if(n > 1) {
		int i;
		size_t k = 0;
		for(i = 0; i < n; i++) {
			size_t l = strlen(v[i]);
			if(k + l + 2 > sizeof(joined))
				return perr(p, "%s: record too long", o->name);
			if(i)
				joined[k++] = ' ';
			memcpy(joined + k, v[i], l);
			k += l;
		}
		joined[k] = 0;
		rec = joined;
	}
	if(o->type == OPT_LOCALDATA) {
		ldns_rr *rr = NULL;
		ldns_status st = ldns_rr_new_frm_str(&rr, rec, 3600, NULL,
			NULL);
		if(st != LDNS_STATUS_OK || !rr) {
			if(rr)
				ldns_rr_free(rr);
			return perr(p, "%s: expected a resource record, got "
				"'%s': %s", o->name, rec, st != LDNS_STATUS_OK ?
				ldns_get_errorstr_by_id(st) : "no record");
		}
		ldns_rr_free(rr);
	} else if(check_ptr(p, o, rec) != 0)
		return -1;
	return append_value(p, o, rec);
}

/** the name: of a forward or stub zone */
static int
parse_zone_name(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	char *d;
	(void)n;
	if(p->zone->name)
		return perr(p, "%s: the %s clause already has a name ('%s')",
			o->name, config_clause_str(o->clause), p->zone->name);
	if(!(d = parse_domain(p, o, v[0])))
		return -1;
	p->zone->name = d;
	return 0;
}

/**
 * A DNS over HTTPS server: https://ip[@port]/path[#name] (port 443, path
 * /dns-query when not given; the name, for the certificate and SNI, is
 * read from the text after '#' as for TLS servers).
 * @return 0 with *path malloced, or -1 with the error set.
 */
static int
parse_doh_addr(struct cfg_parser *p, const struct config_option *o,
	const char *v, struct netaddr *out, char **path)
{
	char host[NETADDR_STRLEN + 8];
	const char *s = v + 8, *sl, *h, *end;
	const char *why = "";
	size_t n;
#ifndef HAVE_NGHTTP2
	(void)out;
	(void)path;
	(void)s;
	(void)sl;
	(void)h;
	(void)end;
	(void)host;
	(void)n;
	(void)why;
	return perr(p, "%s: '%s': this petrel is built without libnghttp2, "
		"so it cannot forward over DNS over HTTPS", o->name, v);
#else
	h = strchr(s, '#');
	end = h ? h : s + strlen(s);
	sl = memchr(s, '/', (size_t)(end - s));
	n = (size_t)((sl ? sl : end) - s);
	if(n == 0 || n >= sizeof(host))
		return perr(p, "%s: expected https://ip[@port]/path[#name], "
			"got '%s'", o->name, v);
	memcpy(host, s, n);
	host[n] = 0;
	if(host[0] == '[') {
		/* [v6] or [v6]@port, as in URLs: without the brackets */
		char *rb = strchr(host, ']');
		if(!rb || (rb[1] && rb[1] != '@'))
			return perr(p, "%s: expected https://ip[@port]/path"
				"[#name], got '%s'", o->name, v);
		memmove(rb, rb + 1, strlen(rb + 1) + 1);
		memmove(host, host + 1, strlen(host + 1) + 1);
	}
	if(netaddr_parse(host, 443, out, &why) != 0)
		return perr(p, "%s: expected https://ip[@port]/path[#name] "
			"(an IP address, not a host name), got '%s': %s",
			o->name, v, why);
	if(sl && (size_t)(end - sl) > 255)
		return perr(p, "%s: '%s': the path is too long", o->name, v);
	if(h && (!h[1] || strlen(h + 1) > 255))
		return perr(p, "%s: '%s': expected a server name after '#'",
			o->name, v);
	*path = sl ? strndup(sl, (size_t)(end - sl)) : strdup("/dns-query");
	if(!*path)
		return perr(p, "out of memory");
	return 0;
#endif
}

/** repeatable: an address of a forward or stub zone */
static int
parse_zone_addr(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_addrlist *e;
	struct netaddr a;
	char *path = NULL;
	(void)n;
	if(strncasecmp(v[0], "https://", 8) == 0) {
		if(parse_doh_addr(p, o, v[0], &a, &path) != 0)
			return -1;
	} else if(check_addr(p, o, v[0], &a) != 0)
		return -1;
	e = calloc(1, sizeof(*e));
	if(!e || !(e->str = strdup(v[0]))) {
		free(e);
		free(path);
		return perr(p, "out of memory");
	}
	e->addr = a;
	e->doh_path = path;
	LIST_APPEND(p, p->zone->addrs, e);
	return 0;
}

/** repeatable: a host name of a forward or stub zone */
static int
parse_zone_host(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_strlist *e;
	char *d = parse_domain(p, o, v[0]);
	(void)n;
	if(!d)
		return -1;
	e = calloc(1, sizeof(*e));
	if(!e) {
		free(d);
		return perr(p, "out of memory");
	}
	e->str = d;
	LIST_APPEND(p, p->zone->hosts, e);
	return 0;
}

/** repeatable: a domain name and a number (ratelimit-for-domain),
 * stored as "name. number" */
static int
parse_name_num_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	long long num;
	char *d, *line;
	size_t len;
	int r;
	(void)n;
	if(parse_ll(v[1], &num) != 0 || num < 0 || num > 2147483647LL)
		return perr(p, "%s: expected %s, got '%s' where a number (0 "
			"to 2147483647) belongs", o->name, o->arg, v[1]);
	if(!(d = parse_domain(p, o, v[0])))
		return -1;
	len = strlen(d) + 24;
	if(!(line = malloc(len))) {
		free(d);
		return perr(p, "out of memory");
	}
	snprintf(line, len, "%s %lld", d, num);
	free(d);
	r = append_value(p, o, line);
	free(line);
	return r;
}

/** repeatable: "netblock number" (wait-limit-netblock) */
static int
parse_netblock_num_list(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct netblock nb;
	const char *why = "";
	long long num;
	char line[128 + CONFIG_EDNS_STRING_MAX];
	(void)n;
	if(netblock_parse(v[0], &nb, 1, &why) != 0)
		return perr(p, "%s: expected %s, got '%s' where a netblock "
			"(ip/prefix) belongs: %s", o->name, o->arg, v[0], why);
	if(strlen(v[0]) > 80)
		return perr(p, "%s: netblock '%s' is too long", o->name, v[0]);
	if(o->flags & OPT_F_TEXT2) {
		if(v[1][0] == 0 || strlen(v[1]) > CONFIG_EDNS_STRING_MAX)
			return perr(p, "%s: expected %s, with a string of 1 to "
				"%d bytes, got '%s'", o->name, o->arg,
				CONFIG_EDNS_STRING_MAX, v[1]);
		snprintf(line, sizeof(line), "%s %s", v[0], v[1]);
		return append_value(p, o, line);
	}
	if(parse_ll(v[1], &num) != 0 || num < 0 || num > 2147483647LL)
		return perr(p, "%s: expected %s, got '%s' where a number (0 "
			"to 2147483647) belongs", o->name, o->arg, v[1]);
	if(strlen(v[0]) > 80)
		return perr(p, "%s: netblock '%s' is too long", o->name, v[0]);
	snprintf(line, sizeof(line), "%s %lld", v[0], num);
	return append_value(p, o, line);
}

/** an IPv6 prefix of a length RFC 6052 allows (dns64-prefix) */
static int
parse_netblock6(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct netblock nb;
	const char *why = "";
	(void)n;
	if(netblock_parse(v[0], &nb, 0, &why) != 0)
		return perr(p, "%s: expected an IPv6 prefix (ip6/len), got "
			"'%s': %s", o->name, v[0], why);
	if(netaddr_family(&nb.a) != AF_INET6 || !strchr(v[0], '/'))
		return perr(p, "%s: expected an IPv6 prefix (ip6/len), got "
			"'%s'", o->name, v[0]);
	if(nb.prefix != 32 && nb.prefix != 40 && nb.prefix != 48 &&
		nb.prefix != 56 && nb.prefix != 64 && nb.prefix != 96)
		return perr(p, "%s: the prefix length must be 32, 40, 48, 56, "
			"64 or 96 (RFC 6052), got %d", o->name, nb.prefix);
	return set_str(p, o, v[0]);
}

/** a policy line (rpz:, view:, and the view, tag and response-ip options
 * of server:): kept as written, checked by front/policy.c */
static int
parse_policy(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	struct config_policyline *l;
	int block = -1;
	if(n == 0)
		return perr(p, "%s: expected %s", o->name, o->arg);
	if(n > MAX_VALUES)
		return perr(p, "%s: expected %s, got more than %d values",
			o->name, o->arg, MAX_VALUES);
	if(o->clause == CLAUSE_RPZ)
		block = p->nrpz - 1;
	else if(o->clause == CLAUSE_VIEW)
		block = p->nview - 1;
	l = config_policyline_new(o->clause, block, o->name, p->file, p->line,
		v, n);
	if(!l)
		return perr(p, "out of memory");
	LIST_APPEND(p, p->cfg->policy_lines, l);
	return 0;
}

/** Start an rpz: or view: clause: a header line (no values) that gives
 * the clause's file:line. @return 0 or -1. */
static int
start_policy_clause(struct cfg_parser *p, int clause)
{
	struct config_policyline *l;
	int block = clause == CLAUSE_RPZ ? p->nrpz++ : p->nview++;
	l = config_policyline_new(clause, block, clause == CLAUSE_RPZ ?
		"rpz" : "view", p->file, p->line, NULL, 0);
	if(!l)
		return perr(p, "out of memory");
	LIST_APPEND(p, p->cfg->policy_lines, l);
	p->clause = clause;
	return 0;
}

/** an Unbound option petrel ignores (warned about by the caller) */
static int
parse_ignored(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	(void)p; (void)o; (void)v; (void)n;
	return 0;
}

/** Check and store one option's values. The checks of the value count
 * are common; the rest is the type's parse function (opt_type()). All
 * checks come before any change, so that a failed set leaves the config
 * as it was. @return 0 or -1 with the error set. */
static int
set_value(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	const struct opt_type_ops *t = opt_type(o->type);
	int want = 1;

	if(o->type == OPT_ACL || o->type == OPT_LOCALZONE ||
		o->type == OPT_NAME_NUM_LIST || o->type == OPT_NETBLOCK_NUM_LIST)
		want = 2;
	if(!t)
		return perr(p, "%s: internal error: unknown option type",
			o->name);
	if(o->type == OPT_IGNORED || o->type == OPT_INSECURE ||
		o->type == OPT_AUTH || o->type == OPT_POLICY)
		return t->parse(p, o, v, n); /* their own value checks */
	if(n == 0)
		return perr(p, "%s: expected a value", o->name);
	if(n > MAX_VALUES)
		return perr(p, "%s: expected %s, got more than %d values",
			o->name, o->arg, MAX_VALUES);
	if(want == 2 && n == 1) {
		/* "netblock action" given as one quoted value */
		char *sp = v[0];
		while(*sp && !isspace((unsigned char)*sp))
			sp++;
		if(*sp) {
			*sp++ = 0;
			while(isspace((unsigned char)*sp))
				sp++;
			if(*sp) {
				v[1] = sp;
				n = 2;
			}
		}
	}
	if(n > want && (o->type == OPT_LOCALDATA ||
		o->type == OPT_LOCALDATA_PTR))
		want = n; /* joined by parse_localdata */
	if(n != want)
		return perr(p, "%s: expected %s, got %d value%s", o->name,
			o->arg, n, n == 1 ? "" : "s");
	return t->parse(p, o, v, n);
}

/** Split a value text into values, in place. Quotes group and are
 * removed; '#' at the start of a value starts a comment.
 * @return the number of values (may exceed max; only max are stored), or
 * -1 for an unterminated quote. */
static int
tokenize(char *s, char **v, int max)
{
	int n = 0;
	for(;;) {
		char *tok;
		while(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' ||
			*s == '\v')
			s++;
		if(*s == 0 || *s == '#')
			break;
		if(*s == '"' || *s == '\'') {
			char *end = strchr(s + 1, *s);
			if(!end)
				return -1;
			tok = s + 1;
			*end = 0;
			s = end + 1;
		} else {
			tok = s;
			while(*s && !isspace((unsigned char)*s))
				s++;
			if(*s)
				*s++ = 0;
		}
		if(n < max)
			v[n] = tok;
		n++;
	}
	return n;
}

/** A TLS zone's addresses written without @port get port 853 (RFC 7858),
 * as in Unbound. */
static void
zone_tls_ports(struct config_stub *z)
{
	struct config_addrlist *a;
	for(a = z->addrs; a; a = a->next) {
		const char *h = strchr(a->str, '#');
		const char *at = strchr(a->str, '@');
		if(a->doh_path)
			continue; /* https://: port 443 unless given */
		if(!at || (h && at > h))
			netaddr_set_port(&a->addr, 853);
	}
}

/** @return 1 if a zone has a DNS over HTTPS server (https://) */
static int
zone_has_doh(const struct config_stub *z)
{
	const struct config_addrlist *a;
	for(a = z->addrs; a; a = a->next)
		if(a->doh_path)
			return 1;
	return 0;
}

/**
 * The checks at the end of a load that need the whole file: the global
 * tls-upstream makes every zone TLS, and there must be a zone for the root
 * (otherwise recursion would ask servers in clear). @return 0 or -1 with the error set.
 */
static int
end_load_tls(struct cfg_parser *p)
{
	struct config_file *cfg = p->cfg;
	struct config_stub *z;
	int root = 0, r = 0;
	int has_key = config_tls_service_key(cfg)[0] != 0;
	int has_pem = config_tls_service_pem(cfg)[0] != 0;
	int tls_if = 0, https_if = 0;
	const struct config_strlist *i;
	for(i = config_interfaces(cfg); i; i = i->next) {
		struct netaddr a;
		const char *why = NULL;
		if(netaddr_parse(i->str, cfg->port, &a, &why) == 0 &&
			netaddr_port(&a) == cfg->tls_port)
			tls_if = 1;
		if(netaddr_parse(i->str, cfg->port, &a, &why) == 0 &&
			netaddr_port(&a) == cfg->https_port)
			https_if = 1;
	}
	/* DNS over HTTPS: an interface on https-port needs the TLS key
	 * (or http-notls-downstream for h2c behind a proxy), and nghttp2 */
	if(https_if && p->svc_file[3]) {
		p->file = p->svc_file[3];
		p->line = p->svc_line[3];
#ifndef HAVE_NGHTTP2
		return perr(p, "https-port: this petrel is built without "
			"libnghttp2, so it cannot serve DNS over HTTPS");
#endif
		if(!has_key && !cfg->http_notls_downstream)
			return perr(p, "https-port: DNS over HTTPS needs "
				"tls-service-key and tls-service-pem (or "
				"http-notls-downstream: yes behind a TLS proxy)");
	}
	if(https_if && tls_if && cfg->https_port == cfg->tls_port)
		return perr(p, "https-port and tls-port are both %d",
			cfg->tls_port);
	/* DNS over TLS to clients needs both files; a tls-port given, with
	 * an interface on it, but no key asks for TLS that cannot be
	 * served (the port would answer in clear) */
	if(has_key != has_pem || (p->svc_file[2] && tls_if && !has_key)) {
		int k = has_key ? 0 : has_pem ? 1 : 2;
		if(p->svc_file[k]) {
			p->file = p->svc_file[k];
			p->line = p->svc_line[k];
		}
		return perr(p, "%s: DNS over TLS needs both tls-service-key "
			"and tls-service-pem", k == 0 ? "tls-service-key" :
			k == 1 ? "tls-service-pem" : "tls-port");
	}
	if(cfg->tls_upstream) {
		if(p->tls_up_file) {
			p->file = p->tls_up_file;
			p->line = p->tls_up_line;
		}
		for(z = cfg->forwards; z; z = z->next) {
			if(z->name && strcmp(z->name, ".") == 0)
				root = 1;
			if(z->hosts)
				return perr(p, "tls-upstream: forward-zone '%s' "
					"has forward-host: lines, which cannot "
					"be used with TLS; give forward-addr: "
					"ip@port#name", z->name);
			if(!z->tls) {
				z->tls = 1;
				zone_tls_ports(z);
			}
		}
		for(z = cfg->stubs; z; z = z->next) {
			if(z->name && strcmp(z->name, ".") == 0)
				root = 1;
			if(z->prime)
				return perr(p, "tls-upstream: stub-zone '%s' has "
					"stub-prime: yes, which cannot be used "
					"with TLS (the primed servers would be "
					"asked in clear)", z->name);
			if(z->hosts)
				return perr(p, "tls-upstream: stub-zone '%s' "
					"has stub-host: lines, which cannot be "
					"used with TLS; give stub-addr: "
					"ip@port#name", z->name);
			if(!z->tls) {
				z->tls = 1;
				zone_tls_ports(z);
			}
		}
		if(!root)
			return perr(p, "tls-upstream: yes needs a forward-zone "
				"or stub-zone for \".\": petrel asks only "
				"those servers over TLS, and would ask the "
				"servers found by recursion in clear");
	}
	return r;
}

/** Check the zone of the clause that is ending. @return 0 or -1. */
static int
end_zone(struct cfg_parser *p)
{
	struct config_stub *z = p->zone, *o;
	int fwd = (p->clause == CLAUSE_FORWARD);
	const char *cl = fwd ? "forward-zone" : "stub-zone";
	const char *sv_file = p->file;
	int sv_line = p->line, r = 0;
	if(!z)
		return 0;
	p->file = p->zone_file;
	p->line = z->line;
	if(!z->name)
		r = perr(p, "%s: expected a name: line", cl);
	else if(!z->addrs && !z->hosts)
		r = perr(p, "%s '%s': expected a %s: or %s: line", cl,
			z->name, fwd ? "forward-addr" : "stub-addr",
			fwd ? "forward-host" : "stub-host");
	else if((z->tls || zone_has_doh(z)) && z->prime)
		r = perr(p, "stub-zone '%s': stub-prime: cannot be used with "
			"TLS (stub-tls-upstream): the primed servers would be "
			"asked in clear", z->name);
	else if((z->tls || zone_has_doh(z)) && z->hosts)
		r = perr(p, "%s '%s': %s: cannot be used with TLS (%s); give "
			"the servers as %s: ip@port#name", cl, z->name,
			fwd ? "forward-host" : "stub-host",
			fwd ? "forward-tls-upstream" : "stub-tls-upstream",
			fwd ? "forward-addr" : "stub-addr");
	else {
		for(o = fwd ? p->cfg->forwards : p->cfg->stubs; o && o != z;
			o = o->next) {
			if(o->name && strcasecmp(o->name, z->name) == 0) {
				r = perr(p, "%s '%s' is defined twice", cl,
					z->name);
				break;
			}
		}
	}
	if(r == 0 && z->tls)
		zone_tls_ports(z);
	p->file = sv_file;
	p->line = sv_line;
	p->zone = NULL;
	return r;
}

/** Start a forward-zone: or stub-zone: clause. @return 0 or -1. */
static int
start_zone(struct cfg_parser *p, int clause)
{
	struct config_stub *z = calloc(1, sizeof(*z));
	char *f = strdup(p->file ? p->file : "");
	size_t i;
	if(!z || !f) {
		free(z);
		free(f);
		return perr(p, "out of memory");
	}
	z->line = p->line;
	free(p->zone_file);
	p->zone_file = f;
	if(clause == CLAUSE_FORWARD)
		LIST_APPEND(p, p->cfg->forwards, z);
	else
		LIST_APPEND(p, p->cfg->stubs, z);
	p->zone = z;
	p->clause = clause;
	/* defaults of the zone's yes/no options */
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		if(o->clause == clause && o->type == OPT_ZONE_BOOL && o->def)
			*opt_int(p, o) = (strcmp(o->def, "yes") == 0);
	}
	return 0;
}

/** Start an auth-zone: or tsig-key: clause. @return 0 or -1. */
static int
start_auth(struct cfg_parser *p, int clause)
{
	char *f = strdup(p->file ? p->file : "");
	if(!f)
		return perr(p, "out of memory");
	free(p->zone_file);
	p->zone_file = f;
	p->clause = clause;
	if(clause == CLAUSE_AUTH) {
		struct config_auth *a = calloc(1, sizeof(*a));
		if(!a)
			return perr(p, "out of memory");
		a->line = p->line;
		a->for_downstream = 1;
		a->for_upstream = 1;
		LIST_APPEND(p, p->cfg->auths, a);
		p->auth = a;
	} else {
		struct config_tsig *t = calloc(1, sizeof(*t));
		if(!t)
			return perr(p, "out of memory");
		t->line = p->line;
		LIST_APPEND(p, p->cfg->tsig_keys, t);
		p->tsig = t;
	}
	return 0;
}

/** Check the auth-zone: or tsig-key: clause that is ending. */
static int
end_auth(struct cfg_parser *p)
{
	char e[512];
	const char *sv_file = p->file;
	int sv_line = p->line, r = 0;
	e[0] = 0;
	if(p->auth) {
		p->line = p->auth->line;
		r = config_auth_check(p->auth, p->cfg->auths,
			p->cfg->tsig_keys, e, sizeof(e));
	} else if(p->tsig) {
		p->line = p->tsig->line;
		r = config_tsig_check(p->tsig, p->cfg->tsig_keys, e,
			sizeof(e));
	}
	p->file = p->zone_file;
	if(r != 0)
		(void)perr(p, "%s", e);
	p->file = sv_file;
	p->line = sv_line;
	p->auth = NULL;
	p->tsig = NULL;
	return r;
}

/** an auth-zone: or tsig-key: option */
static int
parse_auth(struct cfg_parser *p, const struct config_option *o, char **v,
	int n)
{
	char e[512];
	int r;
	if(n > MAX_VALUES)
		return perr(p, "%s: expected %s, got more than %d values",
			o->name, o->arg, MAX_VALUES);
	if(p->clause == CLAUSE_AUTH && p->auth)
		r = config_auth_set(p->auth, o->name, v, n, e, sizeof(e));
	else if(p->clause == CLAUSE_TSIG && p->tsig)
		r = config_tsig_set(p->tsig, o->name, v, n, e, sizeof(e));
	else
		return perr(p, "%s: belongs in an auth-zone: or tsig-key: "
			"clause", o->name);
	if(r != 0)
		return perr(p, "%s", e);
	return 0;
}

/** Close the current clause (checking a zone). @return 0 or -1. */
static int
end_clause(struct cfg_parser *p)
{
	int r = 0;
	if(p->clause == CLAUSE_FORWARD || p->clause == CLAUSE_STUB)
		r = end_zone(p);
	else if(p->clause == CLAUSE_AUTH || p->clause == CLAUSE_TSIG)
		r = end_auth(p);
	p->clause = CLAUSE_NONE;
	return r;
}

static int parse_file(struct cfg_parser *p, const char *filename);

/** The folder of a file name, into buf ("." when there is none). */
static void
folder_of(const char *file, char *buf, size_t len)
{
	const char *sl = strrchr(file, '/');
	if(!sl) {
		snprintf(buf, len, ".");
		return;
	}
	if(sl == file) {
		snprintf(buf, len, "/");
		return;
	}
	snprintf(buf, len, "%.*s", (int)(sl - file), file);
}

/** Process include: pattern. @return 0 or -1. */
static int
do_include(struct cfg_parser *p, const char *pat)
{
	char full[4096], base[4096];
	int r = 0, fl;
	if(p->depth >= MAX_INCLUDE_DEPTH)
		return perr(p, "include: nested more than %d deep (an include "
			"loop?)", MAX_INCLUDE_DEPTH);
	if(pat[0] == 0)
		return perr(p, "include: expected a file name or pattern");
	if(pat[0] == '/')
		fl = snprintf(full, sizeof(full), "%s", pat);
	else {
		if(p->cfg->directory && p->cfg->directory[0])
			snprintf(base, sizeof(base), "%s", p->cfg->directory);
		else
			folder_of(p->file ? p->file : ".", base, sizeof(base));
		if(strcmp(base, ".") == 0)
			fl = snprintf(full, sizeof(full), "%s", pat);
		else
			fl = snprintf(full, sizeof(full), "%s/%s", base, pat);
	}
	if(fl < 0 || (size_t)fl >= sizeof(full))
		return perr(p, "include: path too long");
#ifdef HAVE_GLOB_H
	if(strpbrk(pat, "*?[")) {
		glob_t g;
		size_t i;
		int gr;
		memset(&g, 0, sizeof(g));
		gr = glob(full, 0, NULL, &g);
		if(gr == GLOB_NOMATCH) {
			globfree(&g);
			return 0; /* a pattern that matches nothing is fine */
		}
		if(gr != 0) {
			globfree(&g);
			return perr(p, "include: cannot expand '%s'", full);
		}
		for(i = 0; i < g.gl_pathc && r == 0; i++)
			r = parse_file(p, g.gl_pathv[i]);
		globfree(&g);
		return r;
	}
#endif
	return parse_file(p, full);
}

/** the clause headers, and include: (keys that are no option) */
static const char *const clause_keys[] = { "server", "forward-zone",
	"stub-zone", "remote-control", "dnstap", "cachedb", "auth-zone",
	"tsig-key", "rpz", "view", "include", "include-toplevel", NULL };

/** @return whether the name (n bytes) is a clause header (include: too) */
static int
is_clause(const char *w, size_t n)
{
	char name[64];
	if(n == 0 || n >= sizeof(name))
		return 0;
	memcpy(name, w, n);
	name[n] = 0;
	return word_index(clause_keys, name) >= 0 ||
		word_index(config_ignored_clauses, name) >= 0;
}

/** @return whether the name (n bytes) is a key Unbound's lexer knows: an
 * option of the table (or an alias), a clause, include: */
static int
is_key(const char *w, size_t n)
{
	char name[64];
	if(n == 0 || n >= sizeof(name))
		return 0;
	memcpy(name, w, n);
	name[n] = 0;
	return is_clause(w, n) || config_option_find(name, -1) != NULL;
}

/**
 * Where the next statement starts in a line's value text: Unbound's lexer
 * reads tokens, not lines, so "forward-zone: name: "." forward-addr:
 * 1.2.3.4" is three statements. An option's values end at an unquoted
 * word that starts with a known key and a colon ("forward-addr:", or
 * "forward-addr:1.2.3.4"), after at least one value; an IPv6 address
 * ("fe80::1") starts with no key. The unquoted words of a local-data
 * record are joined into one record, so there, only a quoted record ends
 * before a key (as Unbound needs it quoted).
 * @param s: the value text after "key:".
 * @param rr: the key is local-data or local-data-ptr.
 * @param typo: set to a word of the values that looks like a misspelt
 *	key ("forward-adr:": a dash, a colon and a blank or the end), or
 *	NULL; the caller can name it instead of counting values.
 * @return the start of the next key, or NULL.
 */
static char *
next_key(char *s, int rr, char **typo)
{
	int idx = 0, first_quoted = 0;
	for(;;) {
		char *w;
		size_t n = 0;
		while(*s == ' ' || *s == '\t' || *s == '\r' || *s == '\f' ||
			*s == '\v')
			s++;
		if(*s == 0 || *s == '#')
			return NULL;
		if(*s == '"' || *s == '\'') {
			char *end = strchr(s + 1, *s);
			if(!end)
				return NULL; /* tokenize() says so */
			if(idx == 0)
				first_quoted = 1;
			s = end + 1;
			idx++;
			continue;
		}
		w = s;
		while(isalnum((unsigned char)w[n]) || w[n] == '-' ||
			w[n] == '_')
			n++;
		if(idx > 0 && w[n] == ':' && (!rr || first_quoted)) {
			if(is_key(w, n))
				return w;
			if(!*typo && isalpha((unsigned char)w[0]) &&
				memchr(w, '-', n) && (w[n + 1] == 0 ||
				isspace((unsigned char)w[n + 1])))
				*typo = w;
		}
		while(*s && !isspace((unsigned char)*s))
			s++;
		idx++;
	}
}

/** Handle one statement ("key: values") of a line (modified in place).
 * @param rest: set to where the next statement of the line starts, or
 *	NULL; the text ends before it (*rest is set to 0, its character
 *	saved in restc). @return 0 or -1. */
static int
parse_stmt(struct cfg_parser *p, char *s, char **rest, char *restc)
{
	char *key, *v[MAX_VALUES], *typo = NULL;
	int n, i;
	const struct config_option *o;

again:
	while(isspace((unsigned char)*s))
		s++;
	if(*s == 0 || *s == '#')
		return 0;
	key = s;
	while(isalnum((unsigned char)*s) || *s == '-' || *s == '_')
		s++;
	if(*s != ':' || s == key) {
		char *e = key + strlen(key);
		while(e > key && isspace((unsigned char)e[-1]))
			*--e = 0;
		return perr(p, "expected 'key: value', got '%s'", key);
	}
	*s++ = 0;

	/* clause headers */
	if(strcmp(key, "server") == 0 || strcmp(key, "forward-zone") == 0 ||
		strcmp(key, "stub-zone") == 0 ||
		strcmp(key, "remote-control") == 0 ||
		strcmp(key, "dnstap") == 0 ||
		strcmp(key, "cachedb") == 0) {
		if(end_clause(p) != 0)
			return -1;
		if(key[0] == 's' && key[1] == 'e')
			p->clause = CLAUSE_SERVER;
		else if(key[0] == 'r')
			p->clause = CLAUSE_REMOTE;
		else if(key[0] == 'd')
			p->clause = CLAUSE_DNSTAP;
		else if(key[0] == 'c')
			p->clause = CLAUSE_CACHEDB;
		else if(start_zone(p, key[0] == 'f' ? CLAUSE_FORWARD :
			CLAUSE_STUB) != 0)
			return -1;
		goto again; /* the rest of the line, e.g. "server: port: 53" */
	}
	if(strcmp(key, "auth-zone") == 0 || strcmp(key, "tsig-key") == 0) {
		if(end_clause(p) != 0)
			return -1;
		if(start_auth(p, key[0] == 'a' ? CLAUSE_AUTH : CLAUSE_TSIG))
			return -1;
		goto again;
	}
	if(strcmp(key, "rpz") == 0 || strcmp(key, "view") == 0) {
		if(end_clause(p) != 0)
			return -1;
		if(start_policy_clause(p, key[0] == 'r' ? CLAUSE_RPZ :
			CLAUSE_VIEW) != 0)
			return -1;
		goto again;
	}
	i = word_index(config_ignored_clauses, key);
	if(i >= 0) {
		if(end_clause(p) != 0)
			return -1;
		p->clause = CLAUSE_IGNORED;
		warn_ignored(p, &p->warned_clause[i], key, ": clause");
		goto again; /* its options on the same line are checked too */
	}

	o = config_option_find(key, -1);
	*rest = next_key(s, o && (o->type == OPT_LOCALDATA ||
		o->type == OPT_LOCALDATA_PTR), &typo);
	if(typo) {
		char *e = typo;
		while(*e && *e != ':')
			e++;
		*e = 0;
		return perr(p, "unknown option '%s' (after %s:), did you "
			"mean '%s'?", typo, key, config_option_nearest(typo));
	}
	if(*rest) {
		*restc = **rest;
		**rest = 0;
	}
	n = tokenize(s, v, MAX_VALUES);
	if(n < 0)
		return perr(p, "%s: unterminated quoted string", key);
	if(n == 0 && o) {
		/* the value comes on a following line, as Unbound reads
		 * "zonefile:\n\t/tmp/x" */
		if(strlen(key) >= sizeof(p->pending))
			return perr(p, "%s: expected a value", key);
		snprintf(p->pending, sizeof(p->pending), "%s", key);
		return 0;
	}
	for(i = 0; i < n && i < MAX_VALUES; i++) {
		size_t l = strlen(v[i]);
		if(l > MAX_VALUE_LEN)
			return perr(p, "%s: value of %lu bytes, longer than the "
				"%d allowed", key, (unsigned long)l,
				MAX_VALUE_LEN);
	}

	if(strcmp(key, "include") == 0 ||
		strcmp(key, "include-toplevel") == 0) {
		int top = (key[8] == '-');
		if(n != 1)
			return perr(p, "%s: expected a file name or pattern, got "
				"%d values", key, n);
		if(top && end_clause(p) != 0)
			return -1;
		if(do_include(p, v[0]) != 0)
			return -1;
		if(top && end_clause(p) != 0)
			return -1;
		return 0;
	}
	if(p->clause == CLAUSE_IGNORED) {
		/* the clause was warned about; its options are only checked
		 * for being Unbound's, and for asking for security */
		o = config_option_find(key, CLAUSE_IGNORED);
		if(!o)
			o = config_option_find(key, -1);
		if(!o)
			return perr(p, "unknown option '%s', did you mean "
				"'%s'?", key, config_option_nearest(key));
		if(o->type == OPT_INSECURE)
			return set_value(p, o, v,
				n > MAX_VALUES ? MAX_VALUES + 1 : n);
		return 0;
	}

	o = config_option_find(key, p->clause);
	if(!o) {
		const struct config_option *other = config_option_find(key, -1);
		if(other && p->clause == CLAUSE_NONE)
			return perr(p, "%s: outside of a clause; put it after "
				"%s", key, config_clause_str(other->clause));
		if(other)
			return perr(p, "%s: not a %s option (it belongs in %s)",
				key, config_clause_str(p->clause),
				config_clause_str(other->clause));
		if(n == 0 || (v[0][0] && v[0][strlen(v[0]) - 1] == ':')) {
			/* "name:" alone (or followed by "option:"): a clause */
			char ign[256];
			size_t k = 0;
			ign[0] = 0;
			for(i = 0; config_ignored_clauses[i] &&
				k < sizeof(ign); i++) {
				snprintf(ign + k, sizeof(ign) - k, "%s%s:",
					i ? ", " : "", config_ignored_clauses[i]);
				k += strlen(ign + k);
			}
			return perr(p, "unknown clause '%s:'; the clauses are "
				"server:, forward-zone:, stub-zone:, "
				"remote-control:, dnstap:, cachedb:, rpz:, "
				"view:, auth-zone:, tsig-key: (accepted and ignored: "
				"%s)",
				key, ign);
		}
		return perr(p, "unknown option '%s', did you mean '%s'?", key,
			config_option_nearest(key));
	}
	if(o->type == OPT_IGNORED && o->desc) {
		/* an ignored option that says why */
		if(!p->warned[o - config_option_table]) {
			p->warned[o - config_option_table] = 1;
			p->nwarn++;
			log_warnx("%s:%d: %s: ignored: %s", p->file ? p->file :
				"", p->line, o->name, o->desc);
		}
	} else if((o->type == OPT_IGNORED ||
		!(o->flags & OPT_F_IMPLEMENTED)) && o->type != OPT_INSECURE)
		warn_ignored(p, &p->warned[o - config_option_table], o->name,
			":");
	if(set_value(p, o, v, n > MAX_VALUES ? MAX_VALUES + 1 : n) != 0)
		return -1;
	if((o->flags & OPT_F_ONLY_YES) && strcmp(v[0], "no") == 0) {
		p->nwarn++;
		log_warnx("%s:%d: %s: %s",
			p->file ? p->file : "", p->line, o->name, o->desc);
	}
	if(strcmp(o->name, "http-endpoint") == 0 && v[0][0] != '/')
		return perr(p, "http-endpoint: '%s' is not a path (it must "
			"start with /)", v[0]);
	if(p->file) {
		static const char *const svc[4][2] = {
			{ "tls-service-key", "ssl-service-key" },
			{ "tls-service-pem", "ssl-service-pem" },
			{ "tls-port", "ssl-port" },
			{ "https-port", "https-port" } };
		int k;
		for(k = 0; k < 4; k++) {
			char *f;
			if(strcmp(o->name, svc[k][0]) != 0 &&
				strcmp(o->name, svc[k][1]) != 0)
				continue;
			if(k < 2 && v[0][0] && access(v[0], R_OK) != 0)
				return perr(p, "%s: cannot read '%s': %s",
					o->name, v[0], strerror(errno));
			if(!(f = strdup(p->file)))
				return perr(p, "out of memory");
			free(p->svc_file[k]);
			p->svc_file[k] = f;
			p->svc_line[k] = p->line;
		}
	}
	/* the dnstap TLS files are read when a worker starts its writer;
	 * one that cannot be read stops the load here, at its line */
	if(p->file && (strcmp(o->name, "dnstap-tls-cert-bundle") == 0 ||
		strcmp(o->name, "dnstap-tls-client-key-file") == 0 ||
		strcmp(o->name, "dnstap-tls-client-cert-file") == 0) &&
		v[0][0] && access(v[0], R_OK) != 0)
		return perr(p, "%s: cannot read '%s': %s", o->name, v[0],
			strerror(errno));
	if(p->file && strcmp(o->name, "dnstap-enable") == 0 &&
		p->cfg->dnstap_enable) {
		char *f = strdup(p->file);
		if(!f)
			return perr(p, "out of memory");
		free(p->dt_file);
		p->dt_file = f;
		p->dt_line = p->line;
	}
	if(p->file && strcmp(o->name, "disable-edns-do") == 0 &&
		p->cfg->disable_edns_do) {
		char *f = strdup(p->file);
		if(!f)
			return perr(p, "out of memory");
		free(p->nodo_file);
		p->nodo_file = f;
		p->nodo_line = p->line;
	}
	if(p->file && (strcmp(o->name, "tls-upstream") == 0 ||
		strcmp(o->name, "ssl-upstream") == 0) && p->cfg->tls_upstream) {
		char *f = strdup(p->file);
		if(!f)
			return perr(p, "out of memory");
		free(p->tls_up_file);
		p->tls_up_file = f;
		p->tls_up_line = p->line;
	}
	return 0;
}

/** Handle one line (modified in place): its statements, one after the
 * other; a line that only holds the value of a key given alone on an
 * earlier line is that key's statement. @return 0 or -1. */
static int
parse_line(struct cfg_parser *p, char *s)
{
	char *buf = NULL, *t = s;
	int r = 0;
	if(p->pending[0]) {
		size_t l;
		while(isspace((unsigned char)*t))
			t++;
		if(*t == 0 || *t == '#')
			return 0; /* blank lines and comments in between */
		for(l = 0; isalnum((unsigned char)t[l]) || t[l] == '-'; l++)
			;
		if(t[l] == ':' && is_clause(t, l)) {
			int r2 = perr(p, "%s: expected a value before the "
				"clause '%.*s:'", p->pending, (int)l, t);
			p->pending[0] = 0;
			return r2;
		}
		l = strlen(p->pending) + strlen(t) + 3;
		if(!(buf = malloc(l)))
			return perr(p, "out of memory");
		snprintf(buf, l, "%s: %s", p->pending, t);
		p->pending[0] = 0;
		s = buf;
	}
	for(;;) {
		char *rest = NULL, c = 0;
		if((r = parse_stmt(p, s, &rest, &c)) != 0 || !rest)
			break;
		*rest = c;
		s = rest;
	}
	free(buf);
	return r;
}

/**
 * disable-edns-do once the whole config is read: the validator with a
 * trust anchor needs the DNSSEC records the option keeps away (as
 * Unbound, which refuses the combination). @return 0 or -1.
 */
static int
end_load_nodo(struct cfg_parser *p)
{
	struct config_file *cfg = p->cfg;
	if(!cfg->disable_edns_do || !config_modules_dnssec(
		cfg->module_config))
		return 0;
	if(p->nodo_file) {
		p->file = p->nodo_file;
		p->line = p->nodo_line;
	}
	if(cfg->trust_anchors || cfg->trust_anchor_files ||
		cfg->trusted_keys_files || cfg->auto_trust_anchor_files)
		return perr(p, "disable-edns-do: the validator with a trust "
			"anchor needs the DNSSEC records that upstream "
			"queries without DO do not get; remove the trust "
			"anchors or the validator, or the option");
	return 0;
}

/**
 * The checks of the dnstap: clause once the whole config is read: a
 * collector to write to, a build that can, and for TLS to dnstap-ip a
 * client certificate given whole (key and chain) or not at all. The error
 * names the dnstap-enable line. @return 0 or -1.
 */
static int
end_load_dnstap(struct cfg_parser *p)
{
	struct config_file *cfg = p->cfg;
	if(!cfg->dnstap_enable)
		return 0;
	if(p->dt_file) {
		p->file = p->dt_file;
		p->line = p->dt_line;
	}
#ifndef USE_DNSTAP
	return perr(p, "dnstap-enable: this petrel is built without dnstap "
		"(configure found no libfstrm, libprotobuf-c and protoc-c)");
#else
	struct netaddr a;
	const char *why = NULL;
	int key = cfg->dnstap_tls_client_key_file &&
		cfg->dnstap_tls_client_key_file[0];
	int pem = cfg->dnstap_tls_client_cert_file &&
		cfg->dnstap_tls_client_cert_file[0];
	if((!cfg->dnstap_socket_path || !cfg->dnstap_socket_path[0]) &&
		(!cfg->dnstap_ip || !cfg->dnstap_ip[0]))
		return perr(p, "dnstap-enable: needs dnstap-socket-path or "
			"dnstap-ip, the collector to write to");
	if(cfg->dnstap_ip && cfg->dnstap_ip[0]) {
		if(netaddr_parse(cfg->dnstap_ip, 6000, &a, &why) != 0)
			return perr(p, "dnstap-ip: '%s': %s", cfg->dnstap_ip,
				why ? why : "expected ip[@port]");
		if(cfg->dnstap_tls && key != pem)
			return perr(p, "dnstap-tls: a client certificate needs "
				"both dnstap-tls-client-key-file and "
				"dnstap-tls-client-cert-file, one is missing");
	}
	return 0;
#endif
}

/** Parse a text buffer (modified in place) as the file 'name'. */
static int
parse_text(struct cfg_parser *p, const char *name, char *text, size_t len)
{
	const char *sv_file = p->file;
	int sv_line = p->line, r = 0;
	size_t pos = 0;
	p->file = name;
	p->line = 0;
	/* a UTF-8 byte order mark, as some editors write */
	if(len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	while(pos < len && r == 0) {
		char *line = text + pos;
		char *nl = memchr(line, '\n', len - pos);
		if(nl) {
			*nl = 0;
			pos = (size_t)(nl - text) + 1;
		} else {
			text[len] = 0;
			pos = len;
		}
		p->line++;
		r = parse_line(p, line);
	}
	if(r == 0 && p->pending[0]) {
		r = perr(p, "%s: expected a value", p->pending);
		p->pending[0] = 0;
	}
	if(r == 0) {
		p->file = sv_file;
		p->line = sv_line;
	}
	/* on error, file and line stay for the caller (they are printed) */
	return r;
}

/** Read a file and parse it. @return 0 or -1. */
static int
parse_file(struct cfg_parser *p, const char *filename)
{
	FILE *in;
	char *buf = NULL, *name = NULL;
	size_t len = 0, cap = 0;
	int r;
	in = fopen(filename, "r");
	if(!in) {
		int e = errno;
		if(p->depth == 0) {
			snprintf(p->err, p->errlen, "%s: cannot open: %s",
				filename, strerror(e));
			return -1;
		}
		return perr(p, "include: cannot open '%s': %s", filename,
			strerror(e));
	}
	for(;;) {
		size_t got;
		if(cap - len < 4096) {
			char *nb;
			if(cap >= MAX_FILE_SIZE) {
				fclose(in);
				free(buf);
				if(p->depth == 0) {
					snprintf(p->err, p->errlen, "%s: file "
						"too large (over %d bytes)",
						filename, MAX_FILE_SIZE);
					return -1;
				}
				return perr(p, "include: '%s' is too large "
					"(over %d bytes)", filename,
					MAX_FILE_SIZE);
			}
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if(!nb) {
				fclose(in);
				free(buf);
				return perr(p, "out of memory");
			}
			buf = nb;
		}
		got = fread(buf + len, 1, cap - len, in);
		len += got;
		if(got == 0)
			break;
	}
	if(ferror(in)) {
		int e = errno;
		fclose(in);
		free(buf);
		if(p->depth == 0) {
			snprintf(p->err, p->errlen, "%s: cannot read: %s",
				filename, strerror(e));
			return -1;
		}
		return perr(p, "include: cannot read '%s': %s", filename,
			strerror(e));
	}
	fclose(in);
	/* the name must outlive this file while a zone refers to it and
	 * while the error message is formatted */
	name = strdup(filename);
	if(!name) {
		free(buf);
		return perr(p, "out of memory");
	}
	p->depth++;
	r = parse_text(p, name, buf, len);
	p->depth--;
	if(r != 0) {
		/* the message already holds the name; drop the pointer */
		p->file = NULL;
	}
	free(name);
	free(buf);
	return r;
}

/** Run a whole load into cfg (already a copy). @return 0 or -1. */
static int
load(struct config_file *cfg, const char *name, const char *text,
	size_t len, char *err, size_t errlen, int *nwarn)
{
	struct cfg_parser p;
	int r;
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.err = err;
	p.errlen = errlen;
	p.warned = calloc(config_option_count, 1);
	if(!p.warned) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(text) {
		char *copy = malloc(len + 1);
		char *nm = strdup(name);
		if(!copy || !nm) {
			free(copy);
			free(nm);
			free(p.warned);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		memcpy(copy, text, len);
		copy[len] = 0;
		r = parse_text(&p, nm, copy, len);
		if(r == 0) {
			p.file = nm;
			r = end_clause(&p);
		}
		if(r == 0)
			r = end_load_tls(&p);
		if(r == 0)
			r = end_load_dnstap(&p);
		if(r == 0)
			r = end_load_nodo(&p);
		free(copy);
		free(nm);
	} else {
		r = parse_file(&p, name);
		if(r == 0)
			r = end_clause(&p);
		if(r == 0) {
			p.file = name;
			p.line = 0;
			r = end_load_tls(&p);
		}
		if(r == 0) {
			p.file = name;
			p.line = 0;
			r = end_load_dnstap(&p);
		}
		if(r == 0) {
			p.file = name;
			p.line = 0;
			r = end_load_nodo(&p);
		}
	}
	free(p.zone_file);
	free(p.dt_file);
	free(p.nodo_file);
	free(p.tls_up_file);
	free(p.svc_file[0]);
	free(p.svc_file[1]);
	free(p.svc_file[2]);
	free(p.svc_file[3]);
	free(p.warned);
	*nwarn = p.nwarn;
	return r;
}

/** Load into a copy of cfg and swap it in on success. */
static int
read_common(struct config_file *cfg, const char *name, const char *text,
	size_t len, char *err, size_t errlen)
{
	struct config_file *tmp, swap;
	char *fn;
	int nwarn = 0;
	if(errlen)
		err[0] = 0;
	tmp = config_dup(cfg);
	fn = strdup(name);
	if(!tmp || !fn) {
		config_delete(tmp);
		free(fn);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if(load(tmp, name, text, len, err, errlen, &nwarn) != 0) {
		config_delete(tmp);
		free(fn);
		return -1;
	}
	free(tmp->filename);
	tmp->filename = fn;
	tmp->num_warnings = nwarn;
	swap = *cfg;
	*cfg = *tmp;
	*tmp = swap;
	config_delete(tmp);
	return 0;
}

int
config_read(struct config_file *cfg, const char *filename, char *err,
	size_t errlen)
{
	return read_common(cfg, filename, NULL, 0, err, errlen);
}

int
config_read_mem(struct config_file *cfg, const char *name, const char *text,
	size_t len, char *err, size_t errlen)
{
	return read_common(cfg, name, text, len, err, errlen);
}

struct config_file *
config_create(void)
{
	struct config_file *cfg = calloc(1, sizeof(*cfg));
	struct cfg_parser p;
	char err[256];
	size_t i;
	if(!cfg)
		return NULL;
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.err = err;
	p.errlen = sizeof(err);
	p.file = "(defaults)";
	cfg->filename = strdup("");
	if(!cfg->filename)
		goto fail;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		char buf[256], *v[1];
		if(!config_clause_in_file(o->clause))
			continue;
		if(!o->def)
			continue;
		snprintf(buf, sizeof(buf), "%s", o->def);
		v[0] = buf;
		if(set_value(&p, o, v, 1) != 0) {
			log_err("config defaults: %s", err);
			goto fail;
		}
	}
	return cfg;
fail:
	config_delete(cfg);
	return NULL;
}

/** copy a string list. @return 0 or -1. */
static int
strlist_copy(struct config_strlist **dst, const struct config_strlist *s)
{
	struct config_strlist **tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		struct config_strlist *e = calloc(1, sizeof(*e));
		if(!e)
			return -1;
		*tail = e;
		tail = &e->next;
		if(!(e->str = strdup(s->str)))
			return -1;
	}
	return 0;
}

/** copy a zone list. @return 0 or -1. */
static int
stublist_copy(struct config_stub **dst, const struct config_stub *s)
{
	struct config_stub **tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		const struct config_addrlist *a;
		struct config_addrlist **at;
		struct config_stub *z = calloc(1, sizeof(*z));
		if(!z)
			return -1;
		*tail = z;
		tail = &z->next;
		z->first = s->first;
		z->prime = s->prime;
		z->tls = s->tls;
		z->line = s->line;
		if(s->name && !(z->name = strdup(s->name)))
			return -1;
		if(strlist_copy(&z->hosts, s->hosts) != 0)
			return -1;
		at = &z->addrs;
		for(a = s->addrs; a; a = a->next) {
			struct config_addrlist *e = calloc(1, sizeof(*e));
			if(!e)
				return -1;
			*at = e;
			at = &e->next;
			e->addr = a->addr;
			if(!(e->str = strdup(a->str)))
				return -1;
			if(a->doh_path && !(e->doh_path = strdup(a->doh_path)))
				return -1;
		}
	}
	return 0;
}

struct config_file *
config_dup(const struct config_file *cfg)
{
	struct config_file *c = malloc(sizeof(*c));
	size_t i;
	if(!c)
		return NULL;
	*c = *cfg;
	/* first clear every pointer, so that a failure frees only copies */
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		const struct opt_type_ops *t = opt_type(o->type);
		if(config_clause_in_file(o->clause) &&
			t && t->copy)
			*(void **)((char *)c + o->off) = NULL;
	}
	c->forwards = NULL;
	c->stubs = NULL;
	c->policy_lines = NULL;
	c->auths = NULL;
	c->tsig_keys = NULL;
	c->filename = NULL;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		const struct opt_type_ops *t = opt_type(o->type);
		if(config_clause_in_file(o->clause) &&
			t && t->copy && t->copy(c, cfg, o) != 0)
			goto fail;
	}
	if(cfg->filename && !(c->filename = strdup(cfg->filename)))
		goto fail;
	if(stublist_copy(&c->forwards, cfg->forwards) != 0 ||
		stublist_copy(&c->stubs, cfg->stubs) != 0 ||
		config_auth_copy(&c->auths, cfg->auths) != 0 ||
		config_tsig_copy(&c->tsig_keys, cfg->tsig_keys) != 0 ||
		policylines_copy(&c->policy_lines, cfg->policy_lines) != 0)
		goto fail;
	return c;
fail:
	config_delete(c);
	return NULL;
}

/** Append text to an output buffer, a newline between list items. */
struct outbuf {
	/** the buffer */
	char *buf;
	/** its size */
	size_t len;
	/** bytes used */
	size_t used;
	/** items printed */
	int items;
};

/** Add one item (a line) to the output. */
static void out_item(struct outbuf *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void
out_item(struct outbuf *o, const char *fmt, ...)
{
	va_list ap;
	int r;
	if(o->len == 0)
		return;
	if(o->items++ && o->used + 1 < o->len) {
		o->buf[o->used++] = '\n';
		o->buf[o->used] = 0;
	}
	if(o->used >= o->len - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(o->buf + o->used, o->len - o->used, fmt, ap);
	va_end(ap);
	if(r > 0) {
		o->used += (size_t)r;
		if(o->used > o->len - 1)
			o->used = o->len - 1;
	}
}

/** Print one option's zone values (one item per value, per zone). */
static void
print_zone_opt(struct outbuf *out, const struct config_option *o,
	const struct config_stub *z)
{
	for(; z; z = z->next) {
		const char *nm = z->name ? z->name : "";
		if(o->type == OPT_ZONE_NAME)
			out_item(out, "%s", nm);
		else if(o->type == OPT_ZONE_BOOL)
			out_item(out, "%s %s", nm, *(const int *)(
				(const char *)z + o->off) ? "yes" : "no");
		else if(o->type == OPT_ZONE_ADDR) {
			const struct config_addrlist *a;
			for(a = z->addrs; a; a = a->next)
				out_item(out, "%s %s", nm, a->str);
		} else if(o->type == OPT_ZONE_HOST) {
			const struct config_strlist *h;
			for(h = z->hosts; h; h = h->next)
				out_item(out, "%s %s", nm, h->str);
		}
	}
}

/* ---- copy, free and print, per option type (see opt_type()) ---- */

/** the member of a config an option is stored in */
#define CMEMBER(cfg, o, type) ((type)(void *)((char *)(cfg) + (o)->off))
/** the same, read-only */
#define CMEMBER_C(cfg, o, type) \
	((type)(const void *)((const char *)(cfg) + (o)->off))

/** copy a string member */
static int
copy_str(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	const char *s = *CMEMBER_C(src, o, char *const *);
	if(s && !(*CMEMBER(dst, o, char **) = strdup(s)))
		return -1;
	return 0;
}

/** free a string member */
static void
free_str(struct config_file *cfg, const struct config_option *o)
{
	free(*CMEMBER(cfg, o, char **));
	*CMEMBER(cfg, o, char **) = NULL;
}

/** copy a string list member */
static int
copy_strlist(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	return strlist_copy(CMEMBER(dst, o, struct config_strlist **),
		*CMEMBER_C(src, o, struct config_strlist *const *));
}

/** free a string list member */
static void
free_strlist(struct config_file *cfg, const struct config_option *o)
{
	config_strlist_free(*CMEMBER(cfg, o, struct config_strlist **));
	*CMEMBER(cfg, o, struct config_strlist **) = NULL;
}

/** copy the outgoing port list: once, by outgoing-port-permit's row
 * (outgoing-port-avoid shares the member) */
static int
copy_ports(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	if(strcmp(o->name, "outgoing-port-permit") != 0)
		return 0;
	return copy_strlist(dst, src, o);
}

/** free the outgoing port list (once; the second row finds NULL) */
static void
free_ports(struct config_file *cfg, const struct config_option *o)
{
	free_strlist(cfg, o);
}

/** copy the netblock list (private-address) */
static int
copy_netblocks(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	const struct config_netblocklist *b;
	struct config_netblocklist **tail = CMEMBER(dst, o,
		struct config_netblocklist **);
	for(b = *CMEMBER_C(src, o, struct config_netblocklist *const *); b;
		b = b->next) {
		struct config_netblocklist *e = malloc(sizeof(*e));
		if(!e)
			return -1;
		*e = *b;
		e->next = NULL;
		*tail = e;
		tail = &e->next;
	}
	return 0;
}

/** free the netblock list */
static void
free_netblocks(struct config_file *cfg, const struct config_option *o)
{
	struct config_netblocklist **l = CMEMBER(cfg, o,
		struct config_netblocklist **);
	while(*l) {
		struct config_netblocklist *n = (*l)->next;
		free(*l);
		*l = n;
	}
}

/** copy the access-control list */
static int
copy_acls(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	const struct config_acl *a;
	struct config_acl **tail = CMEMBER(dst, o, struct config_acl **);
	for(a = *CMEMBER_C(src, o, struct config_acl *const *); a;
		a = a->next) {
		struct config_acl *e = malloc(sizeof(*e));
		if(!e)
			return -1;
		*e = *a;
		e->next = NULL;
		*tail = e;
		tail = &e->next;
	}
	return 0;
}

/** free the access-control list */
static void
free_acls(struct config_file *cfg, const struct config_option *o)
{
	struct config_acl **l = CMEMBER(cfg, o, struct config_acl **);
	while(*l) {
		struct config_acl *n = (*l)->next;
		free(*l);
		*l = n;
	}
}

/** copy the local-zone list */
static int
copy_localzones(struct config_file *dst, const struct config_file *src,
	const struct config_option *o)
{
	const struct config_localzone *z;
	struct config_localzone **tail = CMEMBER(dst, o,
		struct config_localzone **);
	for(z = *CMEMBER_C(src, o, struct config_localzone *const *); z;
		z = z->next) {
		struct config_localzone *e = calloc(1, sizeof(*e));
		if(!e)
			return -1;
		*tail = e;
		tail = &e->next;
		if(!(e->name = strdup(z->name)) || !(e->type = strdup(z->type)))
			return -1;
	}
	return 0;
}

/** free the local-zone list */
static void
free_localzones(struct config_file *cfg, const struct config_option *o)
{
	config_localzone_free(*CMEMBER(cfg, o, struct config_localzone **));
	*CMEMBER(cfg, o, struct config_localzone **) = NULL;
}

/** print yes or no */
static void
print_bool(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	out_item(out, "%s", *CMEMBER_C(cfg, o, const int *) ? "yes" : "no");
}

/** print an integer */
static void
print_int(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	out_item(out, "%d", *CMEMBER_C(cfg, o, const int *));
}

/** print a size in bytes */
static void
print_size(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	out_item(out, "%zu", *CMEMBER_C(cfg, o, const size_t *));
}

/** print a string */
static void
print_str(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	const char *s = *CMEMBER_C(cfg, o, char *const *);
	out_item(out, "%s", s ? s : "");
}

/** print an enum's word */
static void
print_enum(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	out_item(out, "%s", o->words[*CMEMBER_C(cfg, o, const int *)]);
}

/** print a string list, one item each */
static void
print_strlist(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	const struct config_strlist *s;
	for(s = *CMEMBER_C(cfg, o, struct config_strlist *const *); s;
		s = s->next)
		out_item(out, "%s", s->str);
}

/** print the netblocks */
static void
print_netblocks(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	char nb[NETADDR_STRLEN + 8];
	const struct config_netblocklist *b;
	for(b = *CMEMBER_C(cfg, o, struct config_netblocklist *const *); b;
		b = b->next)
		out_item(out, "%s", netblock_str(&b->block, nb, sizeof(nb)));
}

/** print the access-control lines */
static void
print_acls(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	char nb[NETADDR_STRLEN + 8];
	const struct config_acl *a;
	for(a = *CMEMBER_C(cfg, o, struct config_acl *const *); a;
		a = a->next)
		out_item(out, "%s %s", netblock_str(&a->block, nb, sizeof(nb)),
			acl_action_words[a->action]);
}

/** print the local zones */
static void
print_localzones(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	const struct config_localzone *z;
	for(z = *CMEMBER_C(cfg, o, struct config_localzone *const *); z;
		z = z->next)
		out_item(out, "%s %s", z->name, z->type);
}

/** print a zone option of the forward zones and of the stub zones
 * ("name" is both) */
static void
print_zone(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	const struct config_option *f = config_option_find(o->name,
		CLAUSE_FORWARD);
	const struct config_option *st = config_option_find(o->name,
		CLAUSE_STUB);
	if(f)
		print_zone_opt(out, f, cfg->forwards);
	if(st)
		print_zone_opt(out, st, cfg->stubs);
}

/** out_item for config_auth_print */
static void
print_auth_item(void *arg, const char *item)
{
	out_item((struct outbuf *)arg, "%s", item);
}

/** print an auth-zone: or tsig-key: option ("zone value" per item) */
static void
print_auth(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	(void)config_auth_print(o->clause == CLAUSE_AUTH ? cfg->auths : NULL,
		o->clause == CLAUSE_TSIG ? cfg->tsig_keys : NULL, o->name,
		print_auth_item, out);
}

/** print the policy lines of an option ("value value" per line) */
static void
print_policy(struct outbuf *out, const struct config_file *cfg,
	const struct config_option *o)
{
	const struct config_policyline *l;
	for(l = cfg->policy_lines; l; l = l->next) {
		char buf[1024];
		size_t k = 0;
		int i;
		if(l->clause != o->clause || strcmp(l->key, o->name) != 0)
			continue;
		buf[0] = 0;
		for(i = 0; i < l->n && k < sizeof(buf); i++) {
			int r = snprintf(buf + k, sizeof(buf) - k, "%s%s",
				i ? " " : "", l->v[i]);
			if(r < 0)
				break;
			k += (size_t)r;
		}
		out_item(out, "%s", buf);
	}
}

/** the parse function of the security options and module-config */
static int
parse_insecure(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	return check_insecure(p, o, v, n);
}

/** the operations of each option type, in enum config_type order */
static const struct opt_type_ops opt_types[] = {
	[OPT_BOOL] = { parse_bool, NULL, NULL, print_bool },
	[OPT_INT] = { parse_int, NULL, NULL, print_int },
	[OPT_INT_POW2] = { parse_int, NULL, NULL, print_int },
	[OPT_SIZE] = { parse_size_opt, NULL, NULL, print_size },
	[OPT_STR] = { parse_str, copy_str, free_str, print_str },
	[OPT_PATH] = { parse_str, copy_str, free_str, print_str },
	[OPT_ADDR] = { parse_addr, copy_str, free_str, print_str },
	[OPT_ENUM] = { parse_enum, NULL, NULL, print_enum },
	[OPT_ADDR_LIST] = { parse_addr_list, copy_strlist, free_strlist,
		print_strlist },
	[OPT_CTRL_LIST] = { parse_ctrl_list, copy_strlist, free_strlist,
		print_strlist },
	[OPT_PATH_LIST] = { parse_path_list, copy_strlist, free_strlist,
		print_strlist },
	[OPT_NAME_LIST] = { parse_name_list, copy_strlist, free_strlist,
		print_strlist },
	[OPT_NETBLOCK_LIST] = { parse_netblock_list, copy_netblocks,
		free_netblocks, print_netblocks },
	[OPT_ACL] = { parse_acl, copy_acls, free_acls, print_acls },
	[OPT_LOCALZONE] = { parse_localzone, copy_localzones,
		free_localzones, print_localzones },
	[OPT_LOCALDATA] = { parse_localdata, copy_strlist, free_strlist,
		print_strlist },
	[OPT_LOCALDATA_PTR] = { parse_localdata, copy_strlist,
		free_strlist, print_strlist },
	/* the zone options live in the zone lists, copied and freed with
	 * them */
	[OPT_ZONE_NAME] = { parse_zone_name, NULL, NULL, print_zone },
	[OPT_ZONE_ADDR] = { parse_zone_addr, NULL, NULL, print_zone },
	[OPT_ZONE_HOST] = { parse_zone_host, NULL, NULL, print_zone },
	[OPT_ZONE_BOOL] = { parse_bool, NULL, NULL, print_zone },
	[OPT_NAME_NUM_LIST] = { parse_name_num_list, copy_strlist,
		free_strlist, print_strlist },
	[OPT_NETBLOCK_NUM_LIST] = { parse_netblock_num_list, copy_strlist,
		free_strlist, print_strlist },
	[OPT_NETBLOCK6] = { parse_netblock6, copy_str, free_str, print_str },
	[OPT_IGNORED] = { parse_ignored, NULL, NULL, NULL },
	/* the policy lines live in one list, copied and freed with it */
	[OPT_POLICY] = { parse_policy, NULL, NULL, print_policy },
	[OPT_INSECURE] = { parse_insecure, NULL, NULL, NULL },
	[OPT_AUTH] = { parse_auth, NULL, NULL, print_auth },
	[OPT_PORT_LIST] = { parse_port_list, copy_strlist, free_strlist,
		print_strlist },
	[OPT_PORT_RULES] = { parse_port_rules, copy_ports, free_ports,
		print_strlist },
};

/** @return the operations of an option type, or NULL */
static const struct opt_type_ops *
opt_type(int type)
{
	if(type < 0 || (size_t)type >= sizeof(opt_types) / sizeof(opt_types[0]))
		return NULL;
	return &opt_types[type];
}

int
config_get_option_str(const struct config_file *cfg, const char *name,
	char *buf, size_t len)
{
	const struct config_option *o;
	struct outbuf out;
	size_t nl = strlen(name);
	char key[128];
	if(nl > 0 && nl < sizeof(key) && name[nl-1] == ':') {
		memcpy(key, name, nl - 1);
		key[nl-1] = 0;
		name = key;
	}
	o = config_option_find(name, -1);
	if(!o)
		return -1;
	out.buf = buf;
	out.len = len;
	out.used = 0;
	out.items = 0;
	if(len)
		buf[0] = 0;
	if(opt_type(o->type) && opt_type(o->type)->print)
		opt_type(o->type)->print(&out, cfg, o);
	return 0;
}

int
config_set_option(struct config_file *cfg, const char *name,
	const char *value, char *err, size_t errlen)
{
	const struct config_option *o;
	struct cfg_parser p;
	char key[128], *copy, *v[MAX_VALUES];
	size_t nl = strlen(name);
	int n, r;
	if(errlen)
		err[0] = 0;
	if(nl >= sizeof(key)) {
		snprintf(err, errlen, "unknown option");
		return -1;
	}
	memcpy(key, name, nl + 1);
	if(nl > 0 && key[nl-1] == ':')
		key[nl-1] = 0;
	o = config_option_find(key, CLAUSE_SERVER);
	if(!o)
		o = config_option_find(key, CLAUSE_REMOTE);
	if(!o)
		o = config_option_find(key, CLAUSE_DNSTAP);
	if(!o)
		o = config_option_find(key, CLAUSE_CACHEDB);
	if(!o) {
		if(config_option_find(key, -1))
			snprintf(err, errlen, "%s: belongs to a zone clause "
				"and cannot be set alone", key);
		else
			snprintf(err, errlen, "unknown option '%s', did you "
				"mean '%s'?", key, config_option_nearest(key));
		return -1;
	}
	if(o->type == OPT_IGNORED || o->type == OPT_INSECURE) {
		snprintf(err, errlen, "%s: not implemented by petrel", key);
		return -1;
	}
	copy = strdup(value);
	if(!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(&p, 0, sizeof(p));
	p.cfg = cfg;
	p.err = err;
	p.errlen = errlen;
	n = tokenize(copy, v, MAX_VALUES);
	if(n < 0)
		r = perr(&p, "%s: unterminated quoted string", key);
	else
		r = set_value(&p, o, v, n > MAX_VALUES ? MAX_VALUES + 1 : n);
	free(copy);
	return r;
}

int
config_option_sighup_applies(const char *name)
{
	const struct config_option *o = config_option_find(name, -1);
	if(!o)
		return -1;
	return (o->flags & OPT_F_SIGHUP) ? 1 : 0;
}

/** the default interface list: 127.0.0.1, then ::1 */
static struct config_strlist default_if6 = { NULL, (char *)"::1" };
/** the default interface list head */
static struct config_strlist default_if4 = { &default_if6,
	(char *)"127.0.0.1" };

const struct config_strlist *
config_interfaces(const struct config_file *cfg)
{
	return cfg->interfaces ? cfg->interfaces : &default_if4;
}

const struct config_strlist *
config_control_interfaces(const struct config_file *cfg)
{
	return cfg->control_interfaces ? cfg->control_interfaces :
		&default_if4;
}

/** the tls- value if set, else the ssl- one (never NULL) */
static const char *
tls_or_ssl(const char *tls, const char *ssl)
{
	if(tls && tls[0])
		return tls;
	return ssl ? ssl : "";
}

const char *
config_tls_service_key(const struct config_file *cfg)
{
	return tls_or_ssl(cfg->tls_service_key, cfg->ssl_service_key);
}

const char *
config_tls_service_pem(const struct config_file *cfg)
{
	return tls_or_ssl(cfg->tls_service_pem, cfg->ssl_service_pem);
}

const char *
config_tls_cert_bundle(const struct config_file *cfg)
{
	return tls_or_ssl(cfg->tls_cert_bundle, cfg->ssl_cert_bundle);
}

int
config_uses_tls_upstream(const struct config_file *cfg)
{
	const struct config_stub *z;
	for(z = cfg->forwards; z; z = z->next)
		if(z->tls || zone_has_doh(z))
			return 1;
	for(z = cfg->stubs; z; z = z->next)
		if(z->tls || zone_has_doh(z))
			return 1;
	return 0;
}

const char *
config_default_file(void)
{
	return PETREL_CONFDIR "/petrel.conf";
}

const char *
config_thread_model_str(int model)
{
	switch(model) {
	case THREAD_MODEL_PTHREADS: return "pthreads";
	case THREAD_MODEL_SOLARIS: return "solaris";
	case THREAD_MODEL_FORK: return "fork";
	default: break;
	}
	return "unknown";
}

const char *
config_event_backend_str(int backend)
{
	switch(backend) {
	case EVENT_BACKEND_SELECT: return "select";
	case EVENT_BACKEND_LIBEVENT: return "libevent";
	case EVENT_BACKEND_URING: return "io_uring";
	default: break;
	}
	return "unknown";
}

const char *
config_acl_action_str(enum config_acl_action a)
{
	if((int)a < 0 || (size_t)a >= sizeof(acl_action_words) /
		sizeof(acl_action_words[0]) - 1)
		return "unknown";
	return acl_action_words[a];
}
