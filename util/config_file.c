/*
 * util/config_file.c - the config file parser, loader and printer.
 *
 * The parser is line based. A line is "key:" followed by zero or more
 * values; a value is a run of non-blank characters or a quoted string ("..."
 * or '...', taken literally); '#' at the start of a value (or of the line)
 * starts a comment. A key that names a clause (server:, forward-zone:, ...)
 * switches the clause, and anything after it on the line is read as a line
 * of its own. include: reads other files in place (the current clause
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
#ifdef HAVE_GLOB_H
#include <glob.h>
#endif

/** most values on one line that are looked at */
#define MAX_VALUES 8
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
	/** warnings given */
	int nwarn;
	/** tail cache, so that appending to a long list (a block list of
	 * 100000 local-zone: lines) does not walk it each time: the
	 * address of a list head ... */
	void *tail_head[16];
	/** ... and the address of the next field of its last element */
	void *tail_at[16];
	/** the slot to replace next */
	int tail_next;
};

const char *const config_localzone_types[] = {
	"deny", "refuse", "static", "transparent", "typetransparent",
	"redirect", "nodefault", "inform", "inform_deny", "inform_redirect",
	"always_transparent", "always_refuse", "always_nxdomain",
	"always_nodata", "always_null", "always_deny", "block_a",
	"block_aaaa", "noview", NULL };

/** access-control action words, in enum config_acl_action order */
static const char *const acl_action_words[] = {
	"deny", "refuse", "allow", "allow_setrd", "allow_snoop",
	"deny_non_local", "refuse_non_local", NULL };

/** Format an error, prefixed with file:line when reading a file. */
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

/** free a string list */
static void
strlist_free(struct config_strlist *l)
{
	while(l) {
		struct config_strlist *n = l->next;
		free(l->str);
		free(l);
		l = n;
	}
}

/** free an address list */
static void
addrlist_free(struct config_addrlist *l)
{
	while(l) {
		struct config_addrlist *n = l->next;
		free(l->str);
		free(l);
		l = n;
	}
}

/** free a zone list */
static void
stublist_free(struct config_stub *z)
{
	while(z) {
		struct config_stub *n = z->next;
		free(z->name);
		addrlist_free(z->addrs);
		strlist_free(z->hosts);
		free(z);
		z = n;
	}
}

/** free everything a config owns, not the struct itself */
static void
config_free_members(struct config_file *cfg)
{
	size_t i;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		char *base = (char *)cfg;
		if(o->clause != CLAUSE_SERVER && o->clause != CLAUSE_REMOTE)
			continue;
		switch(o->type) {
		case OPT_STR: case OPT_PATH: case OPT_ADDR:
			free(*(char **)(base + o->off));
			*(char **)(base + o->off) = NULL;
			break;
		case OPT_ADDR_LIST: case OPT_CTRL_LIST: case OPT_NAME_LIST:
		case OPT_PATH_LIST:
		case OPT_LOCALDATA: case OPT_LOCALDATA_PTR:
			strlist_free(*(struct config_strlist **)(base + o->off));
			*(struct config_strlist **)(base + o->off) = NULL;
			break;
		default:
			break;
		}
	}
	while(cfg->acls) {
		struct config_acl *n = cfg->acls->next;
		free(cfg->acls);
		cfg->acls = n;
	}
	while(cfg->local_zones) {
		struct config_localzone *n = cfg->local_zones->next;
		free(cfg->local_zones->name);
		free(cfg->local_zones->type);
		free(cfg->local_zones);
		cfg->local_zones = n;
	}
	while(cfg->private_addresses) {
		struct config_netblocklist *n = cfg->private_addresses->next;
		free(cfg->private_addresses);
		cfg->private_addresses = n;
	}
	stublist_free(cfg->forwards);
	cfg->forwards = NULL;
	stublist_free(cfg->stubs);
	cfg->stubs = NULL;
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
	/* forward-addr: ip@port#tls-name: the name part is not used */
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

/** Check and store one option's values. All checks come before any
 * change, so that a failed set leaves the config as it was.
 * @return 0 or -1 with the error set. */
static int
set_value(struct cfg_parser *p, const struct config_option *o,
	char **v, int n)
{
	char wbuf[512], b1[32], b2[32];
	const char *why = "";
	long long ll;
	int want = 1, bad = 0;

	if(o->type == OPT_ACL || o->type == OPT_LOCALZONE)
		want = 2;
	if(o->type == OPT_IGNORED)
		return 0;
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
		want = n; /* joined below */
	if(n != want)
		return perr(p, "%s: expected %s, got %d value%s", o->name,
			o->arg, n, n == 1 ? "" : "s");

	switch(o->type) {
	case OPT_BOOL:
	case OPT_ZONE_BOOL:
		if(strcmp(v[0], "yes") == 0)
			*opt_int(p, o) = 1;
		else if(strcmp(v[0], "no") == 0)
			*opt_int(p, o) = 0;
		else
			return perr(p, "%s: expected yes or no, got '%s'",
				o->name, v[0]);
		return 0;
	case OPT_INT:
	case OPT_INT_POW2:
		if(parse_ll(v[0], &ll) != 0 || ll < o->min || ll > o->max ||
			(o->type == OPT_INT_POW2 && (ll & (ll - 1)) != 0)) {
			if(o->type == OPT_INT_POW2)
				return perr(p, "%s: expected a power of 2 from "
					"%lld to %lld, got '%s'", o->name,
					o->min, o->max, v[0]);
			return perr(p, "%s: expected an integer from %lld to "
				"%lld, got '%s'", o->name, o->min, o->max,
				v[0]);
		}
		*opt_int(p, o) = (int)ll;
		return 0;
	case OPT_SIZE:
		if(parse_size(v[0], &ll) != 0 || ll < o->min ||
			ll > o->max || (unsigned long long)ll > SIZE_MAX)
			return perr(p, "%s: expected a size from %s to %s (a "
				"number, optionally followed by k, m or g), "
				"got '%s'", o->name,
				size_str(o->min, b1, sizeof(b1)),
				size_str(o->max, b2, sizeof(b2)), v[0]);
		*(size_t *)((char *)p->cfg + o->off) = (size_t)ll;
		return 0;
	case OPT_STR:
	case OPT_PATH:
		if((o->flags & OPT_F_MODULES) &&
			config_check_modules(v[0], wbuf, sizeof(wbuf)) != 0)
			return perr(p, "%s: %s", o->name, wbuf);
		return set_str(p, o, v[0]);
	case OPT_ADDR: {
		struct netaddr a;
		if(v[0][0] == 0)
			return set_str(p, o, v[0]);
		if(!strchr(v[0], '@'))
			return perr(p, "%s: expected ip@port (or \"\" for "
				"off), got '%s'", o->name, v[0]);
		if(check_addr(p, o, v[0], &a) != 0)
			return -1;
		return set_str(p, o, v[0]);
	}
	case OPT_ENUM: {
		int i = word_index(o->words, v[0]);
		if(i < 0)
			return perr(p, "%s: expected %s, got '%s'", o->name,
				join_words(o->words, wbuf, sizeof(wbuf)),
				v[0]);
		if(!enum_available(o, i))
			return perr(p, "%s: %s is not compiled into this "
				"petrel (it has %s)", o->name, v[0],
				enum_available_words(o, wbuf, sizeof(wbuf)));
		*opt_int(p, o) = i;
		return 0;
	}
	case OPT_ADDR_LIST:
		if(check_addr(p, o, v[0], NULL) != 0)
			return -1;
		goto append_str;
	case OPT_CTRL_LIST:
		if(v[0][0] != '/') {
			struct netaddr a;
			if(netaddr_parse(v[0], 53, &a, &why) != 0)
				return perr(p, "%s: expected an IP address or "
					"a unix socket path starting with "
					"'/', got '%s': %s", o->name, v[0],
					why);
		}
		goto append_str;
	case OPT_PATH_LIST:
		goto append_str;
	case OPT_NAME_LIST: {
		char *d = domain_copy(v[0], &bad);
		struct config_strlist *e;
		if(!d)
			return bad ? perr(p, "%s: expected a domain name, "
				"got '%s'", o->name, v[0])
				: perr(p, "out of memory");
		e = calloc(1, sizeof(*e));
		if(!e) {
			free(d);
			return perr(p, "out of memory");
		}
		e->str = d;
		LIST_APPEND(p, *(struct config_strlist **)((char *)p->cfg +
			o->off), e);
		return 0;
	}
	case OPT_NETBLOCK_LIST: {
		struct config_netblocklist *e;
		struct netblock nb;
		if(netblock_parse(v[0], &nb, 1, &why) != 0)
			return perr(p, "%s: expected a netblock (ip/prefix), "
				"got '%s': %s", o->name, v[0], why);
		e = calloc(1, sizeof(*e));
		if(!e)
			return perr(p, "out of memory");
		e->block = nb;
		LIST_APPEND(p, p->cfg->private_addresses, e);
		return 0;
	}
	case OPT_ACL: {
		struct config_acl *e;
		struct netblock nb;
		int act;
		if(netblock_parse(v[0], &nb, 1, &why) != 0)
			return perr(p, "%s: expected a netblock (ip/prefix), "
				"got '%s': %s", o->name, v[0], why);
		act = word_index(acl_action_words, v[1]);
		if(act < 0)
			return perr(p, "%s: expected an action (%s), got '%s'",
				o->name, join_words(acl_action_words, wbuf,
				sizeof(wbuf)), v[1]);
		e = calloc(1, sizeof(*e));
		if(!e)
			return perr(p, "out of memory");
		e->block = nb;
		e->action = (enum config_acl_action)act;
		LIST_APPEND(p, p->cfg->acls, e);
		return 0;
	}
	case OPT_LOCALZONE: {
		struct config_localzone *e;
		char *d;
		if(word_index(config_localzone_types, v[1]) < 0)
			return perr(p, "%s: expected a zone type (%s), got "
				"'%s'", o->name, join_words(
				config_localzone_types, wbuf, sizeof(wbuf)),
				v[1]);
		d = domain_copy(v[0], &bad);
		if(!d)
			return bad ? perr(p, "%s: expected a domain name, "
				"got '%s'", o->name, v[0])
				: perr(p, "out of memory");
		e = calloc(1, sizeof(*e));
		if(!e || !(e->type = strdup(v[1]))) {
			free(e);
			free(d);
			return perr(p, "out of memory");
		}
		e->name = d;
		LIST_APPEND(p, p->cfg->local_zones, e);
		return 0;
	}
	case OPT_LOCALDATA:
	case OPT_LOCALDATA_PTR: {
		/* values given without quotes are joined with spaces */
		char joined[4096];
		const char *rec = v[0];
		if(n > 1) {
			int i;
			size_t k = 0;
			for(i = 0; i < n; i++) {
				size_t l = strlen(v[i]);
				if(k + l + 2 > sizeof(joined))
					return perr(p, "%s: record too long",
						o->name);
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
			ldns_status st = ldns_rr_new_frm_str(&rr, rec, 3600,
				NULL, NULL);
			if(st != LDNS_STATUS_OK || !rr) {
				if(rr)
					ldns_rr_free(rr);
				return perr(p, "%s: expected a resource record, "
					"got '%s': %s", o->name, rec,
					st != LDNS_STATUS_OK ?
					ldns_get_errorstr_by_id(st) :
					"no record");
			}
			ldns_rr_free(rr);
		} else {
			/* "ip name" or "ip ttl name" */
			char w[3][300];
			int nw;
			struct netaddr a;
			char *d;
			const char *t;
			w[0][0] = w[1][0] = w[2][0] = 0;
			for(nw = 0, t = rec; ; nw++) {
				size_t wl;
				while(isspace((unsigned char)*t))
					t++;
				if(!*t)
					break;
				wl = strcspn(t, " \t\r\n\f\v");
				if(nw >= 3 || wl >= sizeof(w[0]))
					return perr(p, "%s: expected %s, got "
						"'%s'", o->name, o->arg, rec);
				memcpy(w[nw], t, wl);
				w[nw][wl] = 0;
				t += wl;
			}
			if(nw < 2 || (nw == 3 && strspn(w[1], "0123456789") !=
				strlen(w[1])))
				return perr(p, "%s: expected %s, got '%s'",
					o->name, o->arg, rec);
			if(strchr(w[0], '@') || strchr(w[0], '%') ||
				netaddr_parse(w[0], 0, &a, &why) != 0)
				return perr(p, "%s: expected %s, got '%s': '%s' "
					"is not an IP address", o->name, o->arg,
					rec, w[0]);
			d = domain_copy(w[nw-1], &bad);
			if(!d)
				return bad ? perr(p, "%s: expected %s, got '%s': "
					"'%s' is not a domain name", o->name,
					o->arg, rec, w[nw-1])
					: perr(p, "out of memory");
			free(d);
		}
		if(strlist_append(p, (struct config_strlist **)((char *)
			p->cfg + o->off), rec) != 0)
			return perr(p, "out of memory");
		return 0;
	}
	case OPT_ZONE_NAME: {
		char *d;
		if(p->zone->name)
			return perr(p, "%s: the %s clause already has a name "
				"('%s')", o->name, config_clause_str(o->clause),
				p->zone->name);
		d = domain_copy(v[0], &bad);
		if(!d)
			return bad ? perr(p, "%s: expected a domain name, "
				"got '%s'", o->name, v[0])
				: perr(p, "out of memory");
		p->zone->name = d;
		return 0;
	}
	case OPT_ZONE_ADDR: {
		struct config_addrlist *e;
		struct netaddr a;
		if(check_addr(p, o, v[0], &a) != 0)
			return -1;
		e = calloc(1, sizeof(*e));
		if(!e || !(e->str = strdup(v[0]))) {
			free(e);
			return perr(p, "out of memory");
		}
		e->addr = a;
		LIST_APPEND(p, p->zone->addrs, e);
		return 0;
	}
	case OPT_ZONE_HOST: {
		struct config_strlist *e;
		char *d = domain_copy(v[0], &bad);
		if(!d)
			return bad ? perr(p, "%s: expected a domain name, "
				"got '%s'", o->name, v[0])
				: perr(p, "out of memory");
		e = calloc(1, sizeof(*e));
		if(!e) {
			free(d);
			return perr(p, "out of memory");
		}
		e->str = d;
		LIST_APPEND(p, p->zone->hosts, e);
		return 0;
	}
	default:
		break;
	}
	return perr(p, "%s: internal error: unknown option type", o->name);

append_str:
	if(strlist_append(p, (struct config_strlist **)((char *)p->cfg +
		o->off), v[0]) != 0)
		return perr(p, "out of memory");
	return 0;
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

/** Close the current clause (checking a zone). @return 0 or -1. */
static int
end_clause(struct cfg_parser *p)
{
	int r = 0;
	if(p->clause == CLAUSE_FORWARD || p->clause == CLAUSE_STUB)
		r = end_zone(p);
	p->clause = CLAUSE_NONE;
	return r;
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

/** Handle one line (modified in place). @return 0 or -1. */
static int
parse_line(struct cfg_parser *p, char *s)
{
	char *key, *v[MAX_VALUES];
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
		strcmp(key, "remote-control") == 0) {
		if(end_clause(p) != 0)
			return -1;
		if(key[0] == 's' && key[1] == 'e')
			p->clause = CLAUSE_SERVER;
		else if(key[0] == 'r')
			p->clause = CLAUSE_REMOTE;
		else if(start_zone(p, key[0] == 'f' ? CLAUSE_FORWARD :
			CLAUSE_STUB) != 0)
			return -1;
		goto again; /* the rest of the line, e.g. "server: port: 53" */
	}
	i = word_index(config_ignored_clauses, key);
	if(i >= 0) {
		if(end_clause(p) != 0)
			return -1;
		p->clause = CLAUSE_IGNORED;
		warn_ignored(p, &p->warned_clause[i], key, ": clause");
		return 0;
	}

	n = tokenize(s, v, MAX_VALUES);
	if(n < 0)
		return perr(p, "%s: unterminated quoted string", key);

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
	if(p->clause == CLAUSE_IGNORED)
		return 0;

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
		return perr(p, "unknown option '%s', did you mean '%s'?", key,
			config_option_nearest(key));
	}
	if(o->type == OPT_IGNORED || !(o->flags & OPT_F_IMPLEMENTED))
		warn_ignored(p, &p->warned[o - config_option_table], o->name,
			":");
	return set_value(p, o, v, n > MAX_VALUES ? MAX_VALUES + 1 : n);
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
		free(copy);
		free(nm);
	} else {
		r = parse_file(&p, name);
		if(r == 0)
			r = end_clause(&p);
	}
	free(p.zone_file);
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
		if(o->clause != CLAUSE_SERVER && o->clause != CLAUSE_REMOTE)
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
		if(o->clause != CLAUSE_SERVER && o->clause != CLAUSE_REMOTE)
			continue;
		switch(o->type) {
		case OPT_STR: case OPT_PATH: case OPT_ADDR:
		case OPT_ADDR_LIST: case OPT_CTRL_LIST: case OPT_NAME_LIST:
		case OPT_PATH_LIST:
		case OPT_LOCALDATA: case OPT_LOCALDATA_PTR:
			*(void **)((char *)c + o->off) = NULL;
			break;
		default:
			break;
		}
	}
	c->acls = NULL;
	c->local_zones = NULL;
	c->private_addresses = NULL;
	c->forwards = NULL;
	c->stubs = NULL;
	c->filename = NULL;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		const char *src = (const char *)cfg + o->off;
		char *dst = (char *)c + o->off;
		if(o->clause != CLAUSE_SERVER && o->clause != CLAUSE_REMOTE)
			continue;
		switch(o->type) {
		case OPT_STR: case OPT_PATH: case OPT_ADDR:
			if(*(char *const *)src &&
				!(*(char **)dst = strdup(*(char *const *)src)))
				goto fail;
			break;
		case OPT_ADDR_LIST: case OPT_CTRL_LIST: case OPT_NAME_LIST:
		case OPT_PATH_LIST:
		case OPT_LOCALDATA: case OPT_LOCALDATA_PTR:
			if(strlist_copy((struct config_strlist **)dst,
				*(struct config_strlist *const *)src) != 0)
				goto fail;
			break;
		default:
			break;
		}
	}
	if(cfg->filename && !(c->filename = strdup(cfg->filename)))
		goto fail;
	{
		const struct config_acl *a;
		struct config_acl **tail = &c->acls;
		for(a = cfg->acls; a; a = a->next) {
			struct config_acl *e = malloc(sizeof(*e));
			if(!e)
				goto fail;
			*e = *a;
			e->next = NULL;
			*tail = e;
			tail = &e->next;
		}
	}
	{
		const struct config_localzone *z;
		struct config_localzone **tail = &c->local_zones;
		for(z = cfg->local_zones; z; z = z->next) {
			struct config_localzone *e = calloc(1, sizeof(*e));
			if(!e)
				goto fail;
			*tail = e;
			tail = &e->next;
			if(!(e->name = strdup(z->name)) ||
				!(e->type = strdup(z->type)))
				goto fail;
		}
	}
	{
		const struct config_netblocklist *b;
		struct config_netblocklist **tail = &c->private_addresses;
		for(b = cfg->private_addresses; b; b = b->next) {
			struct config_netblocklist *e = malloc(sizeof(*e));
			if(!e)
				goto fail;
			*e = *b;
			e->next = NULL;
			*tail = e;
			tail = &e->next;
		}
	}
	if(stublist_copy(&c->forwards, cfg->forwards) != 0 ||
		stublist_copy(&c->stubs, cfg->stubs) != 0)
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

int
config_get_option_str(const struct config_file *cfg, const char *name,
	char *buf, size_t len)
{
	const struct config_option *o;
	struct outbuf out;
	const char *base = (const char *)cfg;
	char nb[NETADDR_STRLEN + 8];
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
	switch(o->type) {
	case OPT_BOOL:
		out_item(&out, "%s", *(const int *)(base + o->off) ? "yes" :
			"no");
		break;
	case OPT_INT: case OPT_INT_POW2:
		out_item(&out, "%d", *(const int *)(base + o->off));
		break;
	case OPT_SIZE:
		out_item(&out, "%zu", *(const size_t *)(base + o->off));
		break;
	case OPT_STR: case OPT_PATH: case OPT_ADDR: {
		const char *s = *(char *const *)(base + o->off);
		out_item(&out, "%s", s ? s : "");
		break;
	}
	case OPT_ENUM:
		out_item(&out, "%s", o->words[*(const int *)(base + o->off)]);
		break;
	case OPT_ADDR_LIST: case OPT_CTRL_LIST: case OPT_NAME_LIST:
		case OPT_PATH_LIST:
	case OPT_LOCALDATA: case OPT_LOCALDATA_PTR: {
		const struct config_strlist *s;
		for(s = *(struct config_strlist *const *)(base + o->off); s;
			s = s->next)
			out_item(&out, "%s", s->str);
		break;
	}
	case OPT_NETBLOCK_LIST: {
		const struct config_netblocklist *b;
		for(b = cfg->private_addresses; b; b = b->next)
			out_item(&out, "%s", netblock_str(&b->block, nb,
				sizeof(nb)));
		break;
	}
	case OPT_ACL: {
		const struct config_acl *a;
		for(a = cfg->acls; a; a = a->next)
			out_item(&out, "%s %s", netblock_str(&a->block, nb,
				sizeof(nb)), acl_action_words[a->action]);
		break;
	}
	case OPT_LOCALZONE: {
		const struct config_localzone *z;
		for(z = cfg->local_zones; z; z = z->next)
			out_item(&out, "%s %s", z->name, z->type);
		break;
	}
	case OPT_ZONE_NAME: case OPT_ZONE_ADDR: case OPT_ZONE_HOST:
	case OPT_ZONE_BOOL:
		if(o->clause == CLAUSE_FORWARD ||
			config_option_find(name, CLAUSE_FORWARD))
			print_zone_opt(&out, o, cfg->forwards);
		if(o->clause == CLAUSE_STUB ||
			config_option_find(name, CLAUSE_STUB))
			print_zone_opt(&out, config_option_find(name,
				CLAUSE_STUB), cfg->stubs);
		break;
	default:
		break;
	}
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
	if(!o) {
		if(config_option_find(key, -1))
			snprintf(err, errlen, "%s: belongs to a zone clause "
				"and cannot be set alone", key);
		else
			snprintf(err, errlen, "unknown option '%s', did you "
				"mean '%s'?", key, config_option_nearest(key));
		return -1;
	}
	if(o->type == OPT_IGNORED) {
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
