/*
 * util/config_auth.c - the auth-zone: and tsig-key: clauses.
 *
 * See util/config_auth.h. A url: is checked here (scheme, host, port,
 * path); services/xfr.c fetches it.
 */
#include "config.h"
#include "util/config_auth.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <ctype.h>

/** @return a malloced copy of a domain name with a trailing dot, or NULL
 * (*bad set when the text is not a name) */
static char *
auth_domain(const char *v, int *bad)
{
	size_t n = strlen(v), i;
	char *d;
	*bad = 0;
	if(n == 0 || n > 253 || strstr(v, "..") || (v[0] == '.' && n > 1)) {
		*bad = 1;
		return NULL;
	}
	for(i = 0; i < n; i++)
		if(isspace((unsigned char)v[i])) {
			*bad = 1;
			return NULL;
		}
	d = malloc(n + 2);
	if(!d)
		return NULL;
	memcpy(d, v, n + 1);
	if(d[n - 1] != '.') {
		d[n] = '.';
		d[n + 1] = 0;
	}
	return d;
}

/** yes/no into *out. @return 0 or -1 */
static int
auth_bool(const char *key, char **v, int n, int *out, char *err,
	size_t errlen)
{
	if(n == 1 && strcmp(v[0], "yes") == 0)
		*out = 1;
	else if(n == 1 && strcmp(v[0], "no") == 0)
		*out = 0;
	else {
		snprintf(err, errlen, "%s: expected yes or no, got '%s'", key,
			n ? v[0] : "");
		return -1;
	}
	return 0;
}

/** set a name (once). @return 0 or -1 */
static int
auth_name(const char *key, const char *clause, char **dst, char **v, int n,
	char *err, size_t errlen)
{
	int bad;
	if(n != 1) {
		snprintf(err, errlen, "%s: expected a domain name", key);
		return -1;
	}
	if(*dst) {
		snprintf(err, errlen, "%s: the %s clause already has a name "
			"('%s')", key, clause, *dst);
		return -1;
	}
	if(!(*dst = auth_domain(v[0], &bad))) {
		snprintf(err, errlen, bad ? "%s: expected a domain name, got "
			"'%s'" : "out of memory", key, v[0]);
		return -1;
	}
	return 0;
}

int
config_url_parse(const char *s, struct config_url *u, const char **why)
{
	const char *h, *e, *p;
	size_t hl;
	memset(u, 0, sizeof(*u));
	if(strncasecmp(s, "https://", 8) == 0) {
		u->tls = 1;
		u->port = 443;
		h = s + 8;
	} else if(strncasecmp(s, "http://", 7) == 0) {
		u->port = 80;
		h = s + 7;
	} else {
		*why = "expected http:// or https://";
		return -1;
	}
	if(strchr(h, '@')) {
		*why = "user names and passwords in a URL are not supported";
		return -1;
	}
	p = h + strcspn(h, "/?#");
	if(*h == '[') {
		/* an IPv6 address */
		if(!(e = memchr(h, ']', (size_t)(p - h)))) {
			*why = "expected ']' after an IPv6 address";
			return -1;
		}
		hl = (size_t)(e - h - 1);
		h++;
		e++;
	} else {
		e = h + strcspn(h, ":/?#");
		hl = (size_t)(e - h);
	}
	if(hl == 0 || hl >= sizeof(u->host)) {
		*why = "expected a host name or address";
		return -1;
	}
	memcpy(u->host, h, hl);
	u->host[hl] = 0;
	for(hl = 0; u->host[hl]; hl++)
		if(isspace((unsigned char)u->host[hl]) ||
			iscntrl((unsigned char)u->host[hl])) {
			*why = "a space in the host name";
			return -1;
		}
	if(*e == ':') {
		char *end;
		long port = strtol(e + 1, &end, 10);
		if(end == e + 1 || end != p || port < 1 || port > 65535) {
			*why = "expected a port from 1 to 65535 after ':'";
			return -1;
		}
		u->port = (int)port;
	} else if(e != p) {
		*why = "unexpected text after the host";
		return -1;
	}
	/* the fragment (after '#') is the client's: not sent */
	if(*p != '/')
		snprintf(u->path, sizeof(u->path), "/%.*s",
			(int)strcspn(p, "#"), p);
	else	snprintf(u->path, sizeof(u->path), "%.*s",
			(int)strcspn(p, "#"), p);
	if(strlen(p) >= sizeof(u->path) - 1) {
		*why = "the path is too long";
		return -1;
	}
	for(hl = 0; u->path[hl]; hl++)
		if(isspace((unsigned char)u->path[hl]) ||
			iscntrl((unsigned char)u->path[hl])) {
			*why = "a space in the path (write it as %20)";
			return -1;
		}
	return 0;
}

int
config_auth_set(struct config_auth *a, const char *key, char **v, int n,
	char *err, size_t errlen)
{
	if(strcmp(key, "name") == 0)
		return auth_name(key, "auth-zone:", &a->name, v, n, err,
			errlen);
	if(strcmp(key, "primary") == 0 || strcmp(key, "master") == 0) {
		struct config_auth_primary *p, **t;
		const char *why = "";
		struct netaddr ad;
		int bad = 0;
		if(n < 1 || n > 2) {
			snprintf(err, errlen, "%s: expected <ip[@port]> "
				"[tsig-key name]", key);
			return -1;
		}
		char *host = NULL;
		int port = 53;
		if(netaddr_parse(v[0], 53, &ad, &why) != 0) {
			/* a host name (name or name@port), looked up when
			 * the zone starts, as Unbound does */
			char nm[300], *at;
			snprintf(nm, sizeof(nm), "%s", v[0]);
			if((at = strchr(nm, '@')) != NULL) {
				char *e;
				long pt = strtol(at + 1, &e, 10);
				if(*e || pt < 1 || pt > 65535)
					nm[0] = 0;
				port = (int)pt;
				*at = 0;
			}
			if(!nm[0] || strchr(nm, ':') || !(host = auth_domain(
				nm, &bad))) {
				snprintf(err, errlen, "%s: expected an IP "
					"address or a host name (ip, ip@port, "
					"name or name@port), got '%s': %s",
					key, v[0], why);
				return -1;
			}
		}
		if(!(p = calloc(1, sizeof(*p))) || !(p->str = strdup(v[0])) ||
			(n == 2 && !(p->tsig = auth_domain(v[1], &bad)))) {
			free(host);
			if(p) {
				free(p->str);
				free(p);
			}
			snprintf(err, errlen, bad ? "%s: expected a key name, "
				"got '%s'" : "out of memory", key,
				n == 2 ? v[1] : "");
			return -1;
		}
		if(host) {
			p->host = host;
			p->port = port;
		} else
			p->addr = ad;
		for(t = &a->primaries; *t; t = &(*t)->next)
			;
		*t = p;
		return 0;
	}
	if(strcmp(key, "url") == 0 && n == 0)
		return 0; /* an empty url: asks for nothing */
	if(strcmp(key, "url") == 0) {
		struct config_auth_url *u, **t;
		struct config_url pu;
		const char *why = "";
		if(n != 1 || config_url_parse(v[0], &pu, &why) != 0) {
			snprintf(err, errlen, "%s: expected http://host[:port]"
				"/path or https://host[:port]/path, got '%s'%s%s",
				key, n ? v[0] : "", n == 1 ? ": " : "",
				n == 1 ? why : "");
			return -1;
		}
		if(!(u = calloc(1, sizeof(*u))) || !(u->str = strdup(v[0]))) {
			free(u);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		u->url = pu;
		for(t = &a->urls; *t; t = &(*t)->next)
			;
		*t = u;
		return 0;
	}
	if(strcmp(key, "allow-notify") == 0) {
		struct config_auth_notify *e, **t;
		const char *why = "";
		struct netblock b;
		char *host = NULL;
		int bad = 0;
		memset(&b, 0, sizeof(b));
		if(n != 1 || (netblock_parse(v[0], &b, 1, &why) != 0 &&
			(strchr(v[0], '/') || strchr(v[0], ':') ||
			!(host = auth_domain(v[0], &bad))))) {
			snprintf(err, errlen, "%s: expected an address, a "
				"netblock or a host name, got '%s'%s%s", key,
				n ? v[0] : "", n ? ": " : "", n ? why : "");
			return -1;
		}
		if(!(e = calloc(1, sizeof(*e))) || !(e->str = strdup(v[0]))) {
			free(e);
			free(host);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		e->block = b;
		e->host = host;
		for(t = &a->notify; *t; t = &(*t)->next)
			;
		*t = e;
		return 0;
	}
	if(strcmp(key, "zonefile") == 0) {
		if(n != 1 || !v[0][0]) {
			snprintf(err, errlen, "%s: expected a file name", key);
			return -1;
		}
		free(a->zonefile);
		if(!(a->zonefile = strdup(v[0]))) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		return 0;
	}
	if(strcmp(key, "fallback-enabled") == 0)
		return auth_bool(key, v, n, &a->fallback_enabled, err, errlen);
	if(strcmp(key, "for-downstream") == 0)
		return auth_bool(key, v, n, &a->for_downstream, err, errlen);
	if(strcmp(key, "for-upstream") == 0)
		return auth_bool(key, v, n, &a->for_upstream, err, errlen);
	if(strcmp(key, "zonemd-check") == 0)
		return auth_bool(key, v, n, &a->zonemd_check, err, errlen);
	if(strcmp(key, "zonemd-reject-absence") == 0)
		return auth_bool(key, v, n, &a->zonemd_reject_absence, err,
			errlen);
	snprintf(err, errlen, "%s: not an auth-zone: option", key);
	return -1;
}

int
config_tsig_set(struct config_tsig *t, const char *key, char **v, int n,
	char *err, size_t errlen)
{
	if(strcmp(key, "name") == 0)
		return auth_name(key, "tsig-key:", &t->name, v, n, err, errlen);
	if(strcmp(key, "algorithm") == 0) {
		if(n != 1 || (strcasecmp(v[0], "hmac-sha1") != 0 &&
			strcasecmp(v[0], "hmac-sha256") != 0 &&
			strcasecmp(v[0], "hmac-sha512") != 0)) {
			snprintf(err, errlen, "%s: expected hmac-sha1, "
				"hmac-sha256 or hmac-sha512, got '%s'", key,
				n ? v[0] : "");
			return -1;
		}
		free(t->algorithm);
		if(!(t->algorithm = strdup(v[0])))
			goto oom;
		return 0;
	}
	if(strcmp(key, "secret") == 0) {
		size_t i, l;
		if(n != 1 || (l = strlen(v[0])) == 0 || l % 4 != 0) {
			snprintf(err, errlen, "%s: expected a base64 secret, "
				"got '%s'", key, n ? v[0] : "");
			return -1;
		}
		for(i = 0; i < l; i++)
			if(!isalnum((unsigned char)v[0][i]) && v[0][i] != '+' &&
				v[0][i] != '/' && v[0][i] != '=') {
				snprintf(err, errlen, "%s: expected a base64 "
					"secret, got '%s'", key, v[0]);
				return -1;
			}
		free(t->secret);
		if(!(t->secret = strdup(v[0])))
			goto oom;
		return 0;
	}
	snprintf(err, errlen, "%s: not a tsig-key: option", key);
	return -1;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

const struct config_tsig *
config_tsig_find(const struct config_tsig *t, const char *name)
{
	for(; t; t = t->next)
		if(t->name && strcasecmp(t->name, name) == 0)
			return t;
	return NULL;
}

int
config_auth_check(const struct config_auth *a,
	const struct config_auth *list, const struct config_tsig *keys,
	char *err, size_t errlen)
{
	const struct config_auth_primary *p;
	if(!a->name) {
		snprintf(err, errlen, "auth-zone: expected a name: line");
		return -1;
	}
	if(!a->primaries && !a->urls && !a->zonefile) {
		snprintf(err, errlen, "auth-zone '%s': expected a primary:, "
			"a url: or a zonefile: line", a->name);
		return -1;
	}
	/* for-downstream: no with for-upstream: no is accepted, as
	 * Unbound does: the zone is loaded and kept up to date (its
	 * transfers, its zone file, its ZONEMD check) and answers nobody */
	for(p = a->primaries; p; p = p->next)
		if(p->tsig && !config_tsig_find(keys, p->tsig)) {
			snprintf(err, errlen, "auth-zone '%s': primary %s names "
				"tsig-key '%s', which is not defined (define "
				"the tsig-key: clause first)", a->name, p->str,
				p->tsig);
			return -1;
		}
	for(; list && list != a; list = list->next)
		if(list->name && strcasecmp(list->name, a->name) == 0) {
			snprintf(err, errlen, "auth-zone '%s' is defined twice",
				a->name);
			return -1;
		}
	return 0;
}

int
config_tsig_check(const struct config_tsig *t,
	const struct config_tsig *list, char *err, size_t errlen)
{
	if(!t->name || !t->algorithm || !t->secret) {
		snprintf(err, errlen, "tsig-key%s%s%s: expected name:, "
			"algorithm: and secret: lines", t->name ? " '" : "",
			t->name ? t->name : "", t->name ? "'" : "");
		return -1;
	}
	for(; list && list != t; list = list->next)
		if(list->name && strcasecmp(list->name, t->name) == 0) {
			snprintf(err, errlen, "tsig-key '%s' is defined twice",
				t->name);
			return -1;
		}
	return 0;
}

void
config_auth_free(struct config_auth *a)
{
	while(a) {
		struct config_auth *n = a->next;
		struct config_auth_primary *p = a->primaries;
		struct config_auth_notify *e = a->notify;
		struct config_auth_url *u = a->urls;
		while(u) {
			struct config_auth_url *un = u->next;
			free(u->str);
			free(u);
			u = un;
		}
		while(p) {
			struct config_auth_primary *pn = p->next;
			free(p->str);
			free(p->tsig);
			free(p->host);
			free(p);
			p = pn;
		}
		while(e) {
			struct config_auth_notify *en = e->next;
			free(e->str);
			free(e->host);
			free(e);
			e = en;
		}
		free(a->name);
		free(a->zonefile);
		free(a);
		a = n;
	}
}

void
config_tsig_free(struct config_tsig *t)
{
	while(t) {
		struct config_tsig *n = t->next;
		free(t->name);
		free(t->algorithm);
		if(t->secret) {
			memset(t->secret, 0, strlen(t->secret));
			free(t->secret);
		}
		free(t);
		t = n;
	}
}

/** strdup that keeps NULL. @return 0 or -1 */
static int
dup_str(char **dst, const char *s)
{
	*dst = NULL;
	if(s && !(*dst = strdup(s)))
		return -1;
	return 0;
}

int
config_auth_copy(struct config_auth **dst, const struct config_auth *s)
{
	struct config_auth **tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		const struct config_auth_primary *p;
		const struct config_auth_notify *e;
		const struct config_auth_url *u;
		struct config_auth_primary **pt;
		struct config_auth_notify **et;
		struct config_auth_url **ut;
		struct config_auth *a = calloc(1, sizeof(*a));
		if(!a)
			return -1;
		*tail = a;
		tail = &a->next;
		a->fallback_enabled = s->fallback_enabled;
		a->for_downstream = s->for_downstream;
		a->for_upstream = s->for_upstream;
		a->zonemd_check = s->zonemd_check;
		a->zonemd_reject_absence = s->zonemd_reject_absence;
		a->line = s->line;
		if(dup_str(&a->name, s->name) || dup_str(&a->zonefile,
			s->zonefile))
			return -1;
		pt = &a->primaries;
		for(p = s->primaries; p; p = p->next) {
			struct config_auth_primary *c = calloc(1, sizeof(*c));
			if(!c)
				return -1;
			*pt = c;
			pt = &c->next;
			c->addr = p->addr;
			c->port = p->port;
			if(dup_str(&c->str, p->str) || dup_str(&c->tsig,
				p->tsig) || dup_str(&c->host, p->host))
				return -1;
		}
		ut = &a->urls;
		for(u = s->urls; u; u = u->next) {
			struct config_auth_url *c = calloc(1, sizeof(*c));
			if(!c)
				return -1;
			*ut = c;
			ut = &c->next;
			c->url = u->url;
			if(dup_str(&c->str, u->str))
				return -1;
		}
		et = &a->notify;
		for(e = s->notify; e; e = e->next) {
			struct config_auth_notify *c = calloc(1, sizeof(*c));
			if(!c)
				return -1;
			*et = c;
			et = &c->next;
			c->block = e->block;
			if(dup_str(&c->str, e->str) || dup_str(&c->host,
				e->host))
				return -1;
		}
	}
	return 0;
}

int
config_tsig_copy(struct config_tsig **dst, const struct config_tsig *s)
{
	struct config_tsig **tail = dst;
	*dst = NULL;
	for(; s; s = s->next) {
		struct config_tsig *t = calloc(1, sizeof(*t));
		if(!t)
			return -1;
		*tail = t;
		tail = &t->next;
		t->line = s->line;
		if(dup_str(&t->name, s->name) || dup_str(&t->algorithm,
			s->algorithm) || dup_str(&t->secret, s->secret))
			return -1;
	}
	return 0;
}

int
config_auth_print(const struct config_auth *a, const struct config_tsig *t,
	const char *key, void (*cb)(void *arg, const char *item), void *arg)
{
	char buf[1024];
	int n = 0;
	for(; a; a = a->next) {
		const char *nm = a->name ? a->name : "";
		const int *b = NULL;
		if(strcmp(key, "name") == 0) {
			cb(arg, nm);
			n++;
		} else if(strcmp(key, "primary") == 0 ||
			strcmp(key, "master") == 0) {
			const struct config_auth_primary *p;
			for(p = a->primaries; p; p = p->next) {
				snprintf(buf, sizeof(buf), "%s %s%s%s", nm,
					p->str, p->tsig ? " " : "",
					p->tsig ? p->tsig : "");
				cb(arg, buf);
				n++;
			}
		} else if(strcmp(key, "url") == 0) {
			const struct config_auth_url *u;
			for(u = a->urls; u; u = u->next) {
				snprintf(buf, sizeof(buf), "%s %s", nm, u->str);
				cb(arg, buf);
				n++;
			}
		} else if(strcmp(key, "allow-notify") == 0) {
			const struct config_auth_notify *e;
			for(e = a->notify; e; e = e->next) {
				snprintf(buf, sizeof(buf), "%s %s", nm, e->str);
				cb(arg, buf);
				n++;
			}
		} else if(strcmp(key, "zonefile") == 0) {
			snprintf(buf, sizeof(buf), "%s %s", nm,
				a->zonefile ? a->zonefile : "");
			cb(arg, buf);
			n++;
		} else if(strcmp(key, "fallback-enabled") == 0)
			b = &a->fallback_enabled;
		else if(strcmp(key, "for-downstream") == 0)
			b = &a->for_downstream;
		else if(strcmp(key, "for-upstream") == 0)
			b = &a->for_upstream;
		else if(strcmp(key, "zonemd-check") == 0)
			b = &a->zonemd_check;
		else if(strcmp(key, "zonemd-reject-absence") == 0)
			b = &a->zonemd_reject_absence;
		if(b) {
			snprintf(buf, sizeof(buf), "%s %s", nm, *b ? "yes" :
				"no");
			cb(arg, buf);
			n++;
		}
	}
	for(; t; t = t->next) {
		const char *nm = t->name ? t->name : "";
		if(strcmp(key, "algorithm") == 0)
			snprintf(buf, sizeof(buf), "%s %s", nm,
				t->algorithm ? t->algorithm : "");
		else if(strcmp(key, "secret") == 0)
			snprintf(buf, sizeof(buf), "%s (hidden)", nm);
		else if(strcmp(key, "name") == 0)
			snprintf(buf, sizeof(buf), "%s", nm);
		else
			continue;
		cb(arg, buf);
		n++;
	}
	return n;
}
