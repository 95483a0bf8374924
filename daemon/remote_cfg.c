/*
 * daemon/remote_cfg.c - the control commands that change the
 * configuration. See remote_cfg.h.
 */
#include "config.h"
#include "daemon/remote_cfg.h"
#include "daemon/remote.h"
#include "daemon/stats.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/netaddr.h"
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char *
remote_next_word(char *s, char **rest)
{
	char *w;
	while(*s && isspace((unsigned char)*s))
		s++;
	w = s;
	while(*s && !isspace((unsigned char)*s))
		s++;
	if(*s)
		*s++ = 0;
	while(*s && isspace((unsigned char)*s))
		s++;
	*rest = s;
	return w;
}

int
remote_parse_request(char *line, char **cmd, char **args)
{
	char *rest, *proto = remote_next_word(line, &rest);
	size_t n;
	int unbound = strcmp(proto, REMOTE_PROTO_UNBOUND) == 0;
	if(strcmp(proto, REMOTE_PROTO) != 0 && !unbound)
		return -1;
	*cmd = remote_next_word(rest, args);
	n = strlen(*args);
	while(n > 0 && isspace((unsigned char)(*args)[n-1]))
		(*args)[--n] = 0;
	return unbound;
}

int
remote_parse_name(const char *s, uint8_t *out, size_t *len)
{
	*len = DNS_MAX_NAME + 1;
	if(!s[0])
		return -1;
	if(dname_from_str(s, out, len) != 0)
		return -1;
	dname_tolower(out);
	return 0;
}

/** are the two presentation names the same name? */
static int
names_equal(const char *a, const char *b)
{
	uint8_t x[DNS_MAX_NAME + 1], y[DNS_MAX_NAME + 1];
	size_t xl, yl;
	if(remote_parse_name(a, x, &xl) != 0 || remote_parse_name(b, y, &yl) != 0)
		return 0;
	return dname_equal(x, y);
}

/** remove local zones called name; @return how many */
static int
rm_local_zone(struct config_file *cfg, const char *name)
{
	struct config_localzone **p = &cfg->local_zones, *z;
	int n = 0;
	while((z = *p) != NULL) {
		if(names_equal(z->name, name)) {
			*p = z->next;
			z->next = NULL;
			config_localzone_free(z);
			n++;
		} else	p = &z->next;
	}
	return n;
}

/** the owner name (first word) of a local-data string */
static void
owner_of(const char *rr, char *buf, size_t len)
{
	size_t i = 0;
	while(*rr && isspace((unsigned char)*rr))
		rr++;
	while(rr[i] && !isspace((unsigned char)rr[i]) && i + 1 < len) {
		buf[i] = rr[i];
		i++;
	}
	buf[i] = 0;
}

/** remove local data owned by name; @return how many */
static int
rm_local_data(struct config_file *cfg, const char *name)
{
	struct config_strlist **p = &cfg->local_data, *s;
	char own[DNS_MAX_NAME_STR];
	int n = 0;
	while((s = *p) != NULL) {
		owner_of(s->str, own, sizeof(own));
		if(names_equal(own, name)) {
			*p = s->next;
			s->next = NULL;
			config_strlist_free(s);
			n++;
		} else	p = &s->next;
	}
	return n;
}

/** @return the block number of the view: clause called name, or -1 */
static int
view_block(const struct config_file *cfg, const char *name)
{
	const struct config_policyline *l;
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_VIEW && strcmp(l->key, "name") == 0 &&
			l->n == 1 && strcmp(l->v[0], name) == 0)
			return l->block;
	return -1;
}

/** remove the lines key of view block b whose first word names name;
 * @return how many */
static int
rm_view_lines(struct config_file *cfg, int b, const char *key,
	const char *name)
{
	struct config_policyline **p = &cfg->policy_lines, *l;
	char own[DNS_MAX_NAME_STR];
	int n = 0;
	while((l = *p) != NULL) {
		if(l->clause == CLAUSE_VIEW && l->block == b && l->n > 0 &&
			strcmp(l->key, key) == 0) {
			owner_of(l->v[0], own, sizeof(own));
			if(names_equal(own, name)) {
				*p = l->next;
				l->next = NULL;
				config_policyline_free(l);
				n++;
				continue;
			}
		}
		p = &l->next;
	}
	return n;
}

/** add a line to view block b (at the end of the list) */
static int
add_view_line(struct config_file *cfg, int b, const char *key,
	char *const *v, int n, char *err, size_t errlen)
{
	struct config_policyline **p = &cfg->policy_lines;
	struct config_policyline *l = config_policyline_new(CLAUSE_VIEW, b,
		key, "(petrel-control)", 0, v, n);
	if(!l) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	while(*p)
		p = &(*p)->next;
	*p = l;
	return 0;
}

/** @return 1 when w is a local-zone type word */
static int
is_zone_type(const char *w)
{
	int i;
	for(i = 0; config_localzone_types[i]; i++)
		if(strcmp(config_localzone_types[i], w) == 0)
			return 1;
	return 0;
}

/** view_local_zone, view_local_zone_remove, view_local_data,
 * view_local_data_remove. @return 0, 1 (not one of them), -1 */
static int
view_change(struct config_file *cfg, const char *cmd, char *a, char *err,
	size_t errlen)
{
	char *rest, *vn, *w1, *w2;
	int b;
	if(strncmp(cmd, "view_local_", 11) != 0)
		return 1;
	vn = remote_next_word(a, &rest);
	if(!vn[0]) {
		snprintf(err, errlen, "expected: %s view ...", cmd);
		return -1;
	}
	if((b = view_block(cfg, vn)) < 0) {
		snprintf(err, errlen, "no view '%s'", vn);
		return -1;
	}
	if(strcmp(cmd, "view_local_zone") == 0) {
		char *v[2];
		w1 = remote_next_word(rest, &rest);
		w2 = remote_next_word(rest, &rest);
		if(!w1[0] || !w2[0] || rest[0] || !names_equal(w1, w1) ||
			!is_zone_type(w2)) {
			snprintf(err, errlen, "expected: view_local_zone view "
				"name type");
			return -1;
		}
		(void)rm_view_lines(cfg, b, "local-zone", w1);
		v[0] = w1;
		v[1] = w2;
		return add_view_line(cfg, b, "local-zone", v, 2, err, errlen);
	}
	if(strcmp(cmd, "view_local_data") == 0) {
		char *v[1];
		if(!rest[0]) {
			snprintf(err, errlen, "expected: view_local_data view "
				"RR");
			return -1;
		}
		v[0] = rest;
		return add_view_line(cfg, b, "local-data", v, 1, err, errlen);
	}
	w1 = remote_next_word(rest, &rest);
	if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
		snprintf(err, errlen, "expected: %s view name", cmd);
		return -1;
	}
	if(strcmp(cmd, "view_local_zone_remove") == 0) {
		(void)rm_view_lines(cfg, b, "local-zone", w1);
		return 0;
	}
	if(strcmp(cmd, "view_local_data_remove") == 0) {
		(void)rm_view_lines(cfg, b, "local-data", w1);
		return 0;
	}
	return 1;
}

/** remove a zone clause by name; @return how many */
static int
rm_stub(struct config_stub **p, const char *name)
{
	struct config_stub *z;
	int n = 0;
	while((z = *p) != NULL) {
		if(names_equal(z->name, name)) {
			*p = z->next;
			z->next = NULL;
			config_stub_free(z);
			n++;
		} else	p = &z->next;
	}
	return n;
}

/** read a config snippet on top of cfg, keeping cfg's file name */
static int
add_text(struct config_file *cfg, const char *text, char *err, size_t errlen)
{
	char *fn = strdup(cfg->filename);
	int r;
	if(!fn) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = config_read_mem(cfg, "petrel-control", text, strlen(text), err,
		errlen);
	if(r == 0) {
		free(cfg->filename);
		cfg->filename = fn;
	} else	free(fn);
	return r;
}

/** forward_add/stub_add: [+i] name addr... */
static int
add_zone(struct config_file *cfg, int fwd, const char *args, char *err,
	size_t errlen)
{
	char *copy = strdup(args), *rest, *w, *name;
	struct stats_buf t;
	int r = -1, naddr = 0;
	memset(&t, 0, sizeof(t));
	if(!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	name = remote_next_word(copy, &rest);
	if(name[0] == '+')	/* Unbound's +i (insecure) flags: ignored */
		name = remote_next_word(rest, &rest);
	if(!name[0] || strchr(name, '"')) {
		snprintf(err, errlen, "expected a zone name and addresses");
		goto out;
	}
	stats_buf_printf(&t, "%s:\n\tname: \"%s\"\n", fwd ? "forward-zone" :
		"stub-zone", name);
	while(*(w = remote_next_word(rest, &rest))) {
		struct netaddr a;
		const char *e = NULL;
		if(netaddr_parse(w, 53, &a, &e) != 0) {
			snprintf(err, errlen, "bad address '%s': %s", w,
				e ? e : "syntax");
			goto out;
		}
		stats_buf_printf(&t, "\t%s: %s\n", fwd ? "forward-addr" :
			"stub-addr", w);
		naddr++;
	}
	if(naddr == 0) {
		snprintf(err, errlen, "expected a zone name and addresses");
		goto out;
	}
	if(t.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	(void)rm_stub(fwd ? &cfg->forwards : &cfg->stubs, name);
	r = add_text(cfg, t.data, err, errlen);
out:
	stats_buf_free(&t);
	free(copy);
	return r;
}

/** the bulk commands (their lines follow the request) and the command
 * each line is; NULL-terminated */
static const char *const bulk_cmds[][2] = {
	{ "local_zones", "local_zone" },
	{ "local_zones_remove", "local_zone_remove" },
	{ "local_datas", "local_data" },
	{ "local_datas_remove", "local_data_remove" },
	{ NULL, NULL }
};

const char *
remote_cfg_bulk_single(const char *cmd)
{
	int i;
	for(i = 0; bulk_cmds[i][0]; i++)
		if(strcmp(bulk_cmds[i][0], cmd) == 0)
			return bulk_cmds[i][1];
	return NULL;
}

int
remote_cfg_change_bulk(struct config_file *cfg, const char *one, const char *text,
	struct stats_buf *report)
{
	const char *s = text;
	int n = 0;
	while(*s) {
		char line[REMOTE_LINE_MAX], err[512];
		const char *e = strchr(s, '\n');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		char *b;
		if(l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, s, l);
		line[l] = 0;
		s = e ? e + 1 : s + strlen(s);
		b = line;
		while(isspace((unsigned char)*b))
			b++;
		while(*b && isspace((unsigned char)b[strlen(b) - 1]))
			b[strlen(b) - 1] = 0;
		if(!*b)
			continue;
		err[0] = 0;
		if(remote_cfg_change(cfg, one, b, err, sizeof(err)) != 0) {
			if(report)
				stats_buf_printf(report, "error for input line: "
					"%s (%s)\n", b, err);
			continue;
		}
		n++;
	}
	return n;
}

int
remote_cfg_change(struct config_file *cfg, const char *cmd, const char *args,
	char *err, size_t errlen)
{
	char a[REMOTE_LINE_MAX], *rest, *w1, *w2;
	const char *one = remote_cfg_bulk_single(cmd);
	if(one) {
		(void)remote_cfg_change_bulk(cfg, one, args, NULL);
		return 0;
	}
	snprintf(a, sizeof(a), "%s", args);
	if(strncmp(cmd, "view_local_", 11) == 0) {
		int r = view_change(cfg, cmd, a, err, errlen);
		if(r <= 0)
			return r;
	}
	if(strcmp(cmd, "forward") == 0) {
		/* Unbound's forward: set the root forward zone, or "off" */
		w1 = remote_next_word(a, &rest);
		(void)rm_stub(&cfg->forwards, ".");
		if(strcmp(w1, "off") == 0 && !rest[0])
			return 0;
		if(!w1[0]) {
			snprintf(err, errlen, "expected: forward off | "
				"forward addr...");
			return -1;
		}
		{
			char v[REMOTE_LINE_MAX + 4];
			snprintf(v, sizeof(v), ". %s", args);
			return add_zone(cfg, 1, v, err, errlen);
		}
	}
	if(strcmp(cmd, "local_zone") == 0) {
		char v[REMOTE_LINE_MAX];
		w1 = remote_next_word(a, &rest);
		w2 = remote_next_word(rest, &rest);
		if(!w1[0] || !w2[0] || rest[0]) {
			snprintf(err, errlen, "expected: local_zone name type");
			return -1;
		}
		if(!names_equal(w1, w1)) {
			snprintf(err, errlen, "bad name '%s'", w1);
			return -1;
		}
		(void)rm_local_zone(cfg, w1);
		snprintf(v, sizeof(v), "%s %s", w1, w2);
		return config_set_option(cfg, "local-zone", v, err, errlen);
	}
	if(strcmp(cmd, "local_zone_remove") == 0) {
		w1 = remote_next_word(a, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: local_zone_remove name");
			return -1;
		}
		(void)rm_local_zone(cfg, w1);
		return 0;
	}
	if(strcmp(cmd, "local_data") == 0) {
		char v[REMOTE_LINE_MAX + 2];
		/* quoted as in the file: "RR", or 'RR' when the RR has
		 * double quotes (TXT) */
		char q = strchr(a, '"') ? '\'' : '"';
		if(!a[0] || strchr(a, q)) {
			snprintf(err, errlen, "expected: local_data RR (with "
				"either single or double quotes inside, not "
				"both)");
			return -1;
		}
		snprintf(v, sizeof(v), "%c%s%c", q, a, q);
		return config_set_option(cfg, "local-data", v, err, errlen);
	}
	if(strcmp(cmd, "local_data_remove") == 0) {
		w1 = remote_next_word(a, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: local_data_remove name");
			return -1;
		}
		(void)rm_local_data(cfg, w1);
		return 0;
	}
	if(strcmp(cmd, "forward_add") == 0)
		return add_zone(cfg, 1, args, err, errlen);
	if(strcmp(cmd, "stub_add") == 0)
		return add_zone(cfg, 0, args, err, errlen);
	if(strcmp(cmd, "forward_remove") == 0 || strcmp(cmd, "stub_remove")
		== 0) {
		int fwd = cmd[0] == 'f';
		w1 = remote_next_word(a, &rest);
		if(w1[0] == '+')
			w1 = remote_next_word(rest, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: %s name", cmd);
			return -1;
		}
		if(rm_stub(fwd ? &cfg->forwards : &cfg->stubs, w1) == 0) {
			snprintf(err, errlen, "no %s zone %s", fwd ? "forward" :
				"stub", w1);
			return -1;
		}
		return 0;
	}
	if(strcmp(cmd, "set_option") == 0) {
		char *colon;
		w1 = a;
		while(*w1 && isspace((unsigned char)*w1))
			w1++;
		colon = strchr(w1, ':');
		if(!colon) {
			snprintf(err, errlen, "expected: set_option name: value");
			return -1;
		}
		*colon = 0;
		rest = colon + 1;
		while(*rest && isspace((unsigned char)*rest))
			rest++;
		switch(config_option_sighup_applies(w1)) {
		case -1:
			snprintf(err, errlen, "unknown option '%s'", w1);
			return -1;
		case 0:
			snprintf(err, errlen, "option '%s' cannot be changed "
				"while running (it needs a restart)", w1);
			return -1;
		default:
			break;
		}
		return config_set_option(cfg, w1, rest, err, errlen);
	}
	return 1;
}
