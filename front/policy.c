/*
 * front/policy.c - views and response policy zones in the front end.
 *
 * See front/policy.h. The loader walks the config's policy lines once
 * per kind; every error names the line's file and number. The view
 * netblocks are kept longest prefix first and matched with a linear scan
 * (a configuration has a handful; the work per query is bounded by it).
 */
#include "config.h"
#include "front/policy.h"
#include "services/rpz.h"
#include "front/localzone.h"
#include "front/acl.h"
#include "front/modstack.h"
#include "services/xfr.h"
#include "services/module.h"
#include "util/region.h"
#include "util/config_auth.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/netaddr.h"
#include "util/log.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "dns/addrscan.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <errno.h>
#include <unistd.h>
#include <sys/stat.h>

/** one view: clause */
struct policy_view {
	/** its name (malloced) */
	char *name;
	/** its local zones (finished) */
	struct local_zones *lz;
	/** view-first: */
	int view_first;
	/** its response-ip lines (the respip module's rules), or NULL */
	struct respip_set *respip;
};

/** a netblock or address that selects a view */
struct policy_sel {
	/** the netblock (interface-view: the address, full prefix) */
	struct netblock nb;
	/** the view index */
	int view;
};

/** the tags of a group of clients (an access-control-tag netblock, or an
 * interface-tag address), their actions and data */
struct policy_tagset {
	/** the address (interface-tag only; full prefix) */
	struct netblock nb;
	/** per tag: a local-zone type, LOCAL_ZONE_UNSET for none */
	uint8_t action[CONFIG_MAX_TAGS];
	/** per tag: the data (a local_zones with a redirect zone at the
	 * root), or NULL */
	struct local_zones *data[CONFIG_MAX_TAGS];
	/** what the local zones are given (points into this struct) */
	struct local_tags lt;
	/** per tag, the action as response-ip's rules code it
	 * (module_respip_ops.action_of), 0 for none */
	uint8_t respip_action[CONFIG_MAX_TAGS];
	/** per tag, data as the rules see it (the same zones) */
	const void *respip_data[CONFIG_MAX_TAGS];
	/** what the rules are given (points into this struct) */
	struct module_respip_client rc;
};

/** the zone transfer of an rpz: zone with primary: or url: lines */
struct policy_rpzxfr {
	/** the zone */
	struct rpz *z;
	/** its name, presentation format (malloced) */
	char *name;
	/** zonefile: written after each transfer, or NULL (malloced) */
	char *zonefile;
	/** the primaries (malloced) */
	struct xfr_primary *prim;
	/** how many */
	size_t nprim;
	/** url: sources, tried when no primary answers (malloced) */
	struct config_url *url;
	/** how many */
	size_t nurl;
	/** allow-notify: netblocks (malloced) */
	struct netblock *notify;
	/** how many */
	size_t nnotify;
	/** the task (owned by the service) */
	struct xfr_task *task;
	/** the zone's records as last loaded or transferred, the base of an
	 * IXFR (touched by the transfer thread only, after the load) */
	ldns_rr_list *rrs;
};

struct policy {
	/** the views */
	struct policy_view *views;
	/** how many */
	size_t nviews;
	/** access-control-view, longest prefix first */
	struct policy_sel *acv;
	/** how many */
	size_t nacv;
	/** interface-view addresses */
	struct policy_sel *ifv;
	/** how many */
	size_t nifv;
	/** the rpz zones, in clause order */
	struct rpz **rpz;
	/** how many */
	size_t nrpz;
	/** the zone names as text, for the log lines (malloced each) */
	char **rpz_logname;
	/** per rpz zone its tags: line (0: every client) */
	uint64_t *rpz_tags;
	/** the tag sets of the access-control-tag netblocks, by their
	 * client-context number - 1 (acl_cfg_tag_blocks()) */
	struct policy_tagset *acltags;
	/** how many */
	size_t nacltags;
	/** the tag sets of the interface-tag addresses */
	struct policy_tagset *iftags;
	/** how many */
	size_t niftags;
	/** the respip module's rules (NULL: the stack has none) */
	const struct module_respip_ops *rops;
	/** the response-ip lines of server: (rops's), or NULL */
	struct respip_set *respip;
	/** 1 when answers are checked for addresses (response-ip in
	 * server: or a view, or an rpz zone with RESPONSE-IP triggers) */
	int respip_on;
	/** per rpz zone its transfer, or NULL (a zone file only) */
	struct policy_rpzxfr **rpzx;
	/** the transfer service, when some rpz zone has a primary */
	struct xfr_service *xs;
	/** the tsig-key: clauses, parsed (malloced) */
	struct xfr_tsig_key *keys;
	/** how many */
	size_t nkeys;
	/** our EDNS UDP size and the UDP answer limit */
	uint16_t edns_size, max_udp;
	/** ede: no: no Extended DNS Error in the answers made here */
	int no_ede;
	/** minimal-responses: the policy zone's SOA is not added to a
	 * client-ip, NSDNAME or NSIP local-data answer */
	int minimal;
};

/** the error "file:line: text" */
static int perr(char *err, size_t errlen, const struct config_policyline *l,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int
perr(char *err, size_t errlen, const struct config_policyline *l,
	const char *fmt, ...)
{
	char m[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if(l)
		snprintf(err, errlen, "%s:%d: %s", l->file, l->line, m);
	else
		snprintf(err, errlen, "%s", m);
	return -1;
}

/** split a line's values as "a b" pairs: a single quoted value with a
 * space is two. @return 0 and a, b set, or -1 */
static int
two_values(const struct config_policyline *l, char *buf, size_t len,
	const char **a, const char **b)
{
	char *sp;
	if(l->n == 2) {
		*a = l->v[0];
		*b = l->v[1];
		return 0;
	}
	if(l->n != 1)
		return -1;
	snprintf(buf, len, "%s", l->v[0]);
	sp = strpbrk(buf, " \t");
	if(!sp)
		return -1;
	*sp++ = 0;
	while(*sp == ' ' || *sp == '\t')
		sp++;
	if(!*sp)
		return -1;
	*a = buf;
	*b = sp;
	return 0;
}

/** join a line's values with spaces */
static void
join_values(const struct config_policyline *l, char *buf, size_t len)
{
	size_t k = 0;
	int i;
	buf[0] = 0;
	for(i = 0; i < l->n && k < len; i++) {
		int r = snprintf(buf + k, len - k, "%s%s", i ? " " : "",
			l->v[i]);
		if(r < 0)
			break;
		k += (size_t)r;
	}
}

/** a yes/no value. @return 0/1, or -1 */
static int
yesno(const struct config_policyline *l)
{
	if(l->n != 1)
		return -1;
	if(strcmp(l->v[0], "yes") == 0)
		return 1;
	if(strcmp(l->v[0], "no") == 0)
		return 0;
	return -1;
}

/** @return 1 when a line has exactly one value */
static int
one_value(const struct config_policyline *l)
{
	return l->n == 1;
}

/** the view named name. @return its index or -1 */
static int
view_find(const struct policy *p, const char *name)
{
	size_t i;
	for(i = 0; i < p->nviews; i++)
		if(p->views[i].name && strcmp(p->views[i].name, name) == 0)
			return (int)i;
	return -1;
}

/** free what a tag set holds */
static void
tagset_clear(struct policy_tagset *t)
{
	size_t i;
	for(i = 0; i < CONFIG_MAX_TAGS; i++)
		local_zones_delete(t->data[i]);
}

void
policy_delete(struct policy *p)
{
	size_t i;
	if(!p)
		return;
	for(i = 0; i < p->nviews; i++) {
		free(p->views[i].name);
		local_zones_delete(p->views[i].lz);
		if(p->views[i].respip)
			p->rops->set_delete(p->views[i].respip);
	}
	if(p->respip)
		p->rops->set_delete(p->respip);
	/* the transfer thread first: its callbacks use the zones */
	xfr_service_delete(p->xs);
	for(i = 0; p->rpzx && i < p->nrpz; i++) {
		struct policy_rpzxfr *x = p->rpzx[i];
		if(!x)
			continue;
		free(x->name);
		free(x->zonefile);
		free(x->prim);
		free(x->url);
		free(x->notify);
		if(x->rrs)
			ldns_rr_list_deep_free(x->rrs);
		free(x);
	}
	free(p->rpzx);
	free(p->keys);
	free(p->views);
	free(p->acv);
	free(p->ifv);
	for(i = 0; i < p->nrpz; i++) {
		rpz_delete(p->rpz[i]);
		if(p->rpz_logname)
			free(p->rpz_logname[i]);
	}
	free(p->rpz);
	free(p->rpz_logname);
	free(p->rpz_tags);
	for(i = 0; i < p->nacltags; i++)
		tagset_clear(&p->acltags[i]);
	for(i = 0; i < p->niftags; i++)
		tagset_clear(&p->iftags[i]);
	free(p->acltags);
	free(p->iftags);
	free(p);
}

/** @return the number of clauses of a kind */
static int
count_blocks(const struct config_file *cfg, int clause)
{
	const struct config_policyline *l;
	int n = 0;
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == clause && l->block + 1 > n)
			n = l->block + 1;
	return n;
}

/** the header line of clause block b */
static const struct config_policyline *
block_header(const struct config_file *cfg, int clause, int b)
{
	const struct config_policyline *l;
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == clause && l->block == b && l->n == 0)
			return l;
	return NULL;
}

/* ---- response-ip: the glue to the respip module's rules ---- */

/** module_respip_data: a data zone (one redirect zone at the root) */
static void *
respip_data_create(void)
{
	struct local_zones *d = local_zones_create();
	char e[512];
	if(d && local_zones_add_zone(d, ".", "redirect", e, sizeof(e)) != 0) {
		local_zones_delete(d);
		return NULL;
	}
	return d;
}

/** module_respip_data: a record into a data zone */
static int
respip_data_add(void *d, const char *rr, char *err, size_t errlen)
{
	return local_zones_add_data(d, rr, err, errlen);
}

/** module_respip_data: finish a data zone */
static int
respip_data_finish(void *d, char *err, size_t errlen)
{
	return local_zones_finish(d, err, errlen);
}

/** module_respip_data: free a data zone */
static void
respip_data_del(void *d)
{
	local_zones_delete(d);
}

/** module_respip_data: apex data of a type in a data zone */
static int
respip_data_has(const void *d, uint16_t type)
{
	return local_zones_has_apex_data(d, type);
}

/** module_respip_data: put the apex data of a type in an answer */
static int
respip_data_put(const void *d, struct dns_builder *b, const uint8_t *owner,
	uint16_t type)
{
	return local_zones_put_apex_data(d, b, owner, type);
}

/** the data zones, as response-ip's rules reach them */
static const struct module_respip_data respip_data = {
	.create = respip_data_create,
	.add = respip_data_add,
	.finish = respip_data_finish,
	.del = respip_data_del,
	.has = respip_data_has,
	.put = respip_data_put,
};

/** a response-ip, response-ip-data or response-ip-tag line into a set of
 * the respip module's rules, made when new. @return 0 or -1 */
static int
respip_line(struct policy *p, const struct config_file *cfg,
	struct respip_set **rs, const struct config_policyline *l, char *err,
	size_t errlen)
{
	if(!p->rops)
		return perr(err, errlen, l, "%s: needs the %s module, which "
			"this build leaves out", l->key, modstack_cap_name(
			MODSTACK_CAP_RESPIP));
	if(!*rs && !(*rs = p->rops->set_new(&respip_data)))
		return perr(err, errlen, l, "out of memory");
	return p->rops->set_line(*rs, cfg, l, err, errlen);
}

/** finish a set of rules (NULL: none). @return 0 or -1 */
static int
respip_finish(const struct policy *p, struct respip_set *rs, char *err,
	size_t errlen)
{
	return rs ? p->rops->set_finish(rs, err, errlen) : 0;
}

/** what a tag set gives the rules: its tags, actions and data */
static void
respip_tagset(const struct policy *p, struct policy_tagset *t)
{
	size_t i;
	for(i = 0; i < CONFIG_MAX_TAGS; i++) {
		t->respip_action[i] = t->action[i] == LOCAL_ZONE_UNSET ? 0 :
			p->rops->action_of(local_zone_type_str(
			(enum local_zone_type)t->action[i]));
		t->respip_data[i] = t->data[i];
	}
	t->rc.tags = t->lt.tags;
	t->rc.action = t->respip_action;
	t->rc.data = t->respip_data;
}

/** the server: response-ip lines, and whether answers are checked at
 * all. @return 0 or -1 */
static int
build_respip(struct policy *p, const struct config_file *cfg, char *err,
	size_t errlen)
{
	const struct config_policyline *l, *first = NULL;
	size_t i;
	for(l = cfg->policy_lines; l; l = l->next) {
		if(strncmp(l->key, "response-ip", 11) != 0 || l->n == 0 ||
			(l->clause != CLAUSE_SERVER && l->clause !=
			CLAUSE_VIEW))
			continue;
		if(!first)
			first = l;
		if(l->clause == CLAUSE_SERVER && respip_line(p, cfg,
			&p->respip, l, err, errlen) != 0)
			return -1;
	}
	if(respip_finish(p, p->respip, err, errlen) != 0)
		return -1;
	if(first) {
		/* as in Unbound: without the module nothing would be
		 * filtered, so say so instead */
		const char *m = cfg->module_config ? cfg->module_config :
			CONFIG_MODULE_DEFAULT;
		if(!modstack_conf_has_cap(m, MODSTACK_CAP_RESPIP))
			return perr(err, errlen, first, "%s: needs the %s "
				"module: module-config: \"%s %s\"",
				first->key, modstack_cap_name(
				MODSTACK_CAP_RESPIP), modstack_cap_name(
				MODSTACK_CAP_RESPIP), m);
		p->respip_on = 1;
		for(i = 0; i < p->nacltags; i++)
			respip_tagset(p, &p->acltags[i]);
		for(i = 0; i < p->niftags; i++)
			respip_tagset(p, &p->iftags[i]);
	}
	for(i = 0; i < p->nrpz; i++)
		if(p->rpz[i] && rpz_count(p->rpz[i], RPZ_TRIGGER_RESPONSE_IP))
			p->respip_on = 1;
	return 0;
}

/** build view block b. @return 0 or -1 */
static int
build_view(struct policy *p, const struct config_file *cfg, int b,
	char *err, size_t errlen)
{
	const struct config_policyline *l, *hd = block_header(cfg, CLAUSE_VIEW,
		b);
	struct policy_view *v = &p->views[b];
	char e[512], buf[8192];
	/* the name first: it is in the messages */
	for(l = cfg->policy_lines; l; l = l->next) {
		if(l->clause != CLAUSE_VIEW || l->block != b ||
			strcmp(l->key, "name") != 0)
			continue;
		if(!one_value(l) || !l->v[0][0])
			return perr(err, errlen, l, "name: expected a view "
				"name");
		if(v->name)
			return perr(err, errlen, l, "name: the view already "
				"has a name ('%s')", v->name);
		if(view_find(p, l->v[0]) >= 0)
			return perr(err, errlen, l, "view '%s' is defined "
				"twice", l->v[0]);
		if(!(v->name = strdup(l->v[0])))
			return perr(err, errlen, l, "out of memory");
	}
	if(!v->name)
		return perr(err, errlen, hd, "view: expected a name: line");
	if(!(v->lz = local_zones_create()))
		return perr(err, errlen, hd, "out of memory");
	for(l = cfg->policy_lines; l; l = l->next) {
		const char *a, *t;
		if(l->clause != CLAUSE_VIEW || l->block != b || l->n == 0)
			continue;
		if(strcmp(l->key, "local-zone") == 0) {
			if(two_values(l, buf, sizeof(buf), &a, &t) != 0)
				return perr(err, errlen, l, "local-zone: "
					"expected <zone> <type>");
			if(local_zones_add_zone(v->lz, a, t, e, sizeof(e))
				!= 0)
				return perr(err, errlen, l, "view '%s': "
					"local-zone: %s", v->name, e);
		} else if(strcmp(l->key, "local-data") == 0) {
			join_values(l, buf, sizeof(buf));
			if(local_zones_add_data(v->lz, buf, e, sizeof(e)) != 0)
				return perr(err, errlen, l, "view '%s': "
					"local-data: %s", v->name, e);
		} else if(strcmp(l->key, "local-data-ptr") == 0) {
			join_values(l, buf, sizeof(buf));
			if(local_zones_add_data_ptr(v->lz, buf, e, sizeof(e))
				!= 0)
				return perr(err, errlen, l, "view '%s': "
					"local-data-ptr: %s", v->name, e);
		} else if(strcmp(l->key, "view-first") == 0) {
			if((v->view_first = yesno(l)) < 0)
				return perr(err, errlen, l, "view-first: "
					"expected yes or no");
		} else if(strcmp(l->key, "response-ip") == 0 ||
			strcmp(l->key, "response-ip-data") == 0) {
			if(respip_line(p, cfg, &v->respip, l, err, errlen)
				!= 0)
				return -1;
		}
	}
	if(local_zones_set_chaos(v->lz, cfg->hide_identity,
		cfg->hide_version, cfg->identity, cfg->version) != 0)
		return perr(err, errlen, hd, "out of memory");
	local_zones_set_edns(v->lz, p->edns_size, p->max_udp);
	local_zones_set_unblock_lan(v->lz, cfg->unblock_lan_zones);
	local_zones_set_ede(v->lz, cfg->ede);
	if(local_zones_finish(v->lz, e, sizeof(e)) != 0)
		return perr(err, errlen, hd, "view '%s': %s", v->name, e);
	return respip_finish(p, v->respip, err, errlen);
}

/** a primary: (master:), url: or allow-notify: line of rpz block b.
 * @return 0 or -1 */
static int
rpzx_line(struct policy *p, const struct config_file *cfg, int b,
	const struct config_policyline *l, char *err, size_t errlen)
{
	struct policy_rpzxfr *x = p->rpzx[b];
	const char *why = NULL;
	char buf[1024];
	const char *a, *k = NULL;
	if(!x) {
		if(!(x = calloc(1, sizeof(*x))))
			return perr(err, errlen, l, "out of memory");
		p->rpzx[b] = x;
	}
	if(strcmp(l->key, "allow-notify") == 0) {
		struct netblock nb, *t;
		if(!one_value(l) || netblock_parse(l->v[0], &nb, 1, &why) != 0)
			return perr(err, errlen, l, "allow-notify: expected a "
				"netblock%s%s", why ? ": " : "", why ? why : "");
		if(!(t = realloc(x->notify, (x->nnotify + 1) * sizeof(*t))))
			return perr(err, errlen, l, "out of memory");
		x->notify = t;
		x->notify[x->nnotify++] = nb;
		return 0;
	}
	if(strcmp(l->key, "url") == 0) {
		struct config_url u, *t;
		if(!one_value(l) || config_url_parse(l->v[0], &u, &why) != 0)
			return perr(err, errlen, l, "url: %s", why ? why :
				"expected one http:// or https:// URL");
		if(!(t = realloc(x->url, (x->nurl + 1) * sizeof(*t))))
			return perr(err, errlen, l, "out of memory");
		x->url = t;
		x->url[x->nurl++] = u;
		return 0;
	}
	/* primary: <ip[@port]> [<tsig-key name>] */
	if(l->n == 1 && !strpbrk(l->v[0], " \t"))
		a = l->v[0];
	else if(two_values(l, buf, sizeof(buf), &a, &k) != 0)
		return perr(err, errlen, l, "%s: expected <ip[@port]> "
			"[<tsig-key>]", l->key);
	{
		struct xfr_primary *t = realloc(x->prim, (x->nprim + 1) *
			sizeof(*t));
		if(!t)
			return perr(err, errlen, l, "out of memory");
		x->prim = t;
		t = &x->prim[x->nprim];
		memset(t, 0, sizeof(*t));
		if(netaddr_parse(a, 53, &t->addr, &why) != 0)
			return perr(err, errlen, l, "%s: bad address '%s': %s",
				l->key, a, why ? why : "syntax");
		if(k) {
			const struct config_tsig *c;
			size_t i = 0, kl = strlen(k);
			for(c = cfg->tsig_keys; c; c = c->next, i++)
				if(c->name && (strcasecmp(c->name, k) == 0 ||
					(strlen(c->name) == kl + 1 &&
					strncasecmp(c->name, k, kl) == 0)))
					break;
			if(!c || i >= p->nkeys)
				return perr(err, errlen, l, "%s: no tsig-key: "
					"named '%s'", l->key, k);
			t->key = &p->keys[i];
		}
		x->nprim++;
	}
	return 0;
}

/** read a zone file's records with ldns (the base of the next IXFR).
 * @return the list (SOA first, when the file has one), NULL with err
 * (missing: *missing set) */
static ldns_rr_list *
rpzx_read(const char *file, const char *zone, int *missing, time_t *age,
	char *err, size_t errlen)
{
	FILE *f;
	ldns_zone *lz = NULL;
	ldns_rdf *origin = NULL;
	ldns_rr_list *rrs;
	ldns_status st;
	struct stat sb;
	int line = 0;
	*missing = 0;
	if(!(f = fopen(file, "r"))) {
		*missing = errno == ENOENT;
		snprintf(err, errlen, "%s: cannot open: %s", file,
			strerror(errno));
		return NULL;
	}
	*age = 0;
	if(fstat(fileno(f), &sb) == 0 && sb.st_mtime < time(NULL))
		*age = time(NULL) - sb.st_mtime;
	if(ldns_str2rdf_dname(&origin, zone) != LDNS_STATUS_OK) {
		fclose(f);
		snprintf(err, errlen, "bad zone name");
		return NULL;
	}
	st = ldns_zone_new_frm_fp_l(&lz, f, origin, 3600, LDNS_RR_CLASS_IN,
		&line);
	fclose(f);
	ldns_rdf_deep_free(origin);
	if(st != LDNS_STATUS_OK) {
		snprintf(err, errlen, "%s:%d: %s", file, line,
			ldns_get_errorstr_by_id(st));
		return NULL;
	}
	/* a file without SOA (as Unbound takes it): its rules apply, and
	 * the first transfer is a full one (no serial to ask from) */
	if(!(rrs = ldns_rr_list_new()) || (ldns_zone_soa(lz) &&
		!ldns_rr_list_push_rr(rrs, ldns_rr_clone(ldns_zone_soa(lz))))) {
		if(rrs)
			ldns_rr_list_deep_free(rrs);
		snprintf(err, errlen, "%s: out of memory", file);
		ldns_zone_deep_free(lz);
		return NULL;
	}
	{
		ldns_rr_list *c = ldns_rr_list_clone(ldns_zone_rrs(lz));
		if(!c || !ldns_rr_list_cat(rrs, c)) {
			if(c)
				ldns_rr_list_deep_free(c);
			ldns_rr_list_deep_free(rrs);
			ldns_zone_deep_free(lz);
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		ldns_rr_list_free(c);
	}
	ldns_zone_deep_free(lz);
	return rrs;
}

/** the records of an ldns list as rpz_rr (pointers into the list; the
 * RDATA joined into buf). @return the array (free it and *buf) or NULL */
static struct rpz_rr *
rpzx_convert(const ldns_rr_list *l, uint8_t **buf, size_t *n)
{
	size_t i, j, total = 0, at = 0, cnt = l ? ldns_rr_list_rr_count(l) : 0;
	struct rpz_rr *out;
	*buf = NULL;
	*n = 0;
	for(i = 0; i < cnt; i++) {
		const ldns_rr *rr = ldns_rr_list_rr(l, i);
		for(j = 0; j < ldns_rr_rd_count(rr); j++)
			if(ldns_rr_rdf(rr, j))
				total += ldns_rdf_size(ldns_rr_rdf(rr, j));
	}
	if(!(out = calloc(cnt + 1, sizeof(*out))) || !(*buf = malloc(total +
		1))) {
		free(out);
		return NULL;
	}
	for(i = 0; i < cnt; i++) {
		const ldns_rr *rr = ldns_rr_list_rr(l, i);
		size_t start = at;
		for(j = 0; j < ldns_rr_rd_count(rr); j++) {
			const ldns_rdf *d = ldns_rr_rdf(rr, j);
			if(!d)
				continue;
			memcpy(*buf + at, ldns_rdf_data(d), ldns_rdf_size(d));
			at += ldns_rdf_size(d);
		}
		if(at - start > 65535)
			continue;
		out[*n].owner = ldns_rdf_data(ldns_rr_owner(rr));
		out[*n].type = (uint16_t)ldns_rr_get_type(rr);
		out[*n].rrclass = (uint16_t)ldns_rr_get_class(rr);
		out[*n].ttl = ldns_rr_ttl(rr);
		out[*n].rdata = *buf + start;
		out[*n].rdlen = (uint16_t)(at - start);
		(*n)++;
	}
	return out;
}

/** replace the rules of a zone with an ldns list. @return 0 or -1 */
static int
rpzx_apply(struct rpz *z, const ldns_rr_list *l, char *err, size_t errlen)
{
	uint8_t *buf;
	size_t n;
	struct rpz_rr *rrs = rpzx_convert(l, &buf, &n);
	int r;
	if(!rrs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = rpz_zone_apply(z, rrs, n, err, errlen);
	free(rrs);
	free(buf);
	return r;
}

/** apply the differences of an IXFR to a zone's rules. @return 0 or -1 */
static int
rpzx_update(struct rpz *z, const struct xfr_result *res, char *err,
	size_t errlen)
{
	size_t i;
	for(i = 0; i < res->num_diffs; i++) {
		uint8_t *db, *ab;
		size_t nd, na;
		struct rpz_rr *d = rpzx_convert(res->diffs[i].del, &db, &nd);
		struct rpz_rr *a = rpzx_convert(res->diffs[i].add, &ab, &na);
		int r = (d && a) ? rpz_zone_update(z, d, nd, a, na, err,
			errlen) : -1;
		if(!d || !a)
			snprintf(err, errlen, "out of memory");
		free(d);
		free(db);
		free(a);
		free(ab);
		if(r != 0)
			return -1;
	}
	return 0;
}

/** write the zone file after a transfer, whole or not at all */
static void
rpzx_write(const struct policy_rpzxfr *x, const ldns_rr_list *rrs,
	uint32_t serial)
{
	char tmp[1024];
	FILE *f;
	size_t i;
	if(!x->zonefile)
		return;
	/* with fork every worker process writes its copy; each rename is
	 * whole */
	snprintf(tmp, sizeof(tmp), "%s.petrel-tmp.%d", x->zonefile,
		(int)getpid());
	if(!(f = fopen(tmp, "w"))) {
		log_err("rpz %s: cannot write %s: %s", x->name, tmp,
			strerror(errno));
		return;
	}
	fprintf(f, "; rpz %s, serial %u, written by petrel\n", x->name,
		(unsigned)serial);
	for(i = 0; i < ldns_rr_list_rr_count(rrs); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(rrs, i)) == LDNS_RR_TYPE_SOA)
			ldns_rr_print(f, ldns_rr_list_rr(rrs, i));
	for(i = 0; i < ldns_rr_list_rr_count(rrs); i++)
		if(ldns_rr_get_type(ldns_rr_list_rr(rrs, i)) != LDNS_RR_TYPE_SOA)
			ldns_rr_print(f, ldns_rr_list_rr(rrs, i));
	if(fflush(f) != 0 || fsync(fileno(f)) != 0) {
		log_err("rpz %s: cannot write %s: %s", x->name, tmp,
			strerror(errno));
		fclose(f);
		unlink(tmp);
		return;
	}
	fclose(f);
	if(rename(tmp, x->zonefile) != 0) {
		log_err("rpz %s: cannot rename %s to %s: %s", x->name, tmp,
			x->zonefile, strerror(errno));
		unlink(tmp);
	}
}

/** the transfer callback (on the transfer thread): the new rules are
 * built aside and swapped in (services/rpz.h); workers never wait */
static int
rpzx_cb(void *arg, struct xfr_result *res)
{
	struct policy_rpzxfr *x = arg;
	ldns_rr_list *rrs = NULL;
	const char *why = NULL;
	char e[256];
	e[0] = 0;
	if(res->kind == XFR_EXPIRED) {
		log_warnx("rpz %s: expired (no primary answered for the SOA "
			"expire time): its rules are dropped", x->name);
		(void)rpz_zone_apply(x->z, NULL, 0, e, sizeof(e));
		if(x->rrs)
			ldns_rr_list_deep_free(x->rrs);
		x->rrs = NULL;
		return 0;
	}
	if(res->kind == XFR_FULL) {
		if(rpzx_apply(x->z, res->full, e, sizeof(e)) != 0)
			goto refused;
		rrs = res->full;
		res->full = NULL;
	} else {
		if(!x->rrs) {
			why = "a difference without the zone it applies to";
			goto refused;
		}
		if(!(rrs = xfr_apply(x->rrs, res, &why)))
			goto refused;
		/* the differences, or the whole zone when they do not apply
		 * to the rules as they are */
		if(rpzx_update(x->z, res, e, sizeof(e)) != 0 &&
			rpzx_apply(x->z, rrs, e, sizeof(e)) != 0) {
			ldns_rr_list_deep_free(rrs);
			goto refused;
		}
	}
	if(x->rrs)
		ldns_rr_list_deep_free(x->rrs);
	x->rrs = rrs;
	rpzx_write(x, rrs, res->serial);
	verbose(VERB_OPS, "rpz %s: serial %u from %s by %s", x->name,
		(unsigned)res->serial, res->from, res->kind == XFR_INCR ? "IXFR"
		: res->ixfr ? "IXFR (full)" : "AXFR");
	return 0;
refused:
	log_err("rpz %s: the zone from %s is refused: %s", x->name, res->from,
		why ? why : e);
	return -1;
}

/** set up the transfer of an rpz zone: its zone file (if any, and there)
 * first, then the task. @return 0 or -1 */
static int
rpzx_setup(struct policy *p, const struct config_file *cfg,
	struct policy_rpzxfr *x, struct rpz *z, const char *name,
	const struct config_policyline *hd,
	const struct config_policyline *zf, char *err, size_t errlen)
{
	char e[512];
	time_t age = 0;
	int missing = 0;
	x->z = z;
	if(!(x->name = strdup(name)) || (zf && !(x->zonefile =
		strdup(zf->v[0]))))
		return perr(err, errlen, zf, "out of memory");
	if(zf) {
		x->rrs = rpzx_read(zf->v[0], name, &missing, &age, e,
			sizeof(e));
		if(!x->rrs && !missing)
			return perr(err, errlen, zf, "rpz '%s': %s", name, e);
		if(x->rrs && rpzx_apply(z, x->rrs, e, sizeof(e)) != 0)
			return perr(err, errlen, zf, "rpz '%s': %s", name, e);
	}
	if(!p->xs && !(p->xs = xfr_service_create()))
		return perr(err, errlen, zf, "out of memory");
	if(!(x->task = xfr_task_create(p->xs, name, x->prim, x->nprim,
		rpzx_cb, x)))
		return perr(err, errlen, zf, "out of memory");
	if(xfr_task_set_urls(x->task, x->url, x->nurl,
		config_tls_cert_bundle(cfg), e, sizeof(e)) != 0)
		return perr(err, errlen, hd, "rpz '%s': url: %s", name, e);
	if(x->rrs && ldns_rr_list_rr_count(x->rrs) > 0 &&
		ldns_rr_get_type(ldns_rr_list_rr(x->rrs, 0)) ==
		LDNS_RR_TYPE_SOA && ldns_rr_rd_count(ldns_rr_list_rr(x->rrs,
		0)) == 7) {
		const ldns_rr *s = ldns_rr_list_rr(x->rrs, 0);
		xfr_task_set_serial(x->task, ldns_rdf2native_int32(
			ldns_rr_rdf(s, 2)), ldns_rdf2native_int32(
			ldns_rr_rdf(s, 3)), ldns_rdf2native_int32(
			ldns_rr_rdf(s, 4)), ldns_rdf2native_int32(
			ldns_rr_rdf(s, 5)), age);
	}
	/* rules may arrive with RESPONSE-IP triggers at any time */
	p->respip_on = 1;
	return 0;
}

/** build rpz block b. @return 0 or -1 */
static int
build_rpz(struct policy *p, const struct config_file *cfg, int b,
	char *err, size_t errlen)
{
	const struct config_policyline *l, *hd = block_header(cfg, CLAUSE_RPZ,
		b), *zf = NULL, *nm = NULL;
	struct rpz_settings set;
	uint8_t origin[DNS_MAX_NAME];
	size_t olen;
	char e[512];
	size_t i;
	memset(&set, 0, sizeof(set));
	for(l = cfg->policy_lines; l; l = l->next) {
		int yn;
		if(l->clause != CLAUSE_RPZ || l->block != b || l->n == 0)
			continue;
		if(strcmp(l->key, "name") == 0) {
			if(nm)
				return perr(err, errlen, l, "name: the rpz "
					"clause already has a name");
			olen = sizeof(origin);
			if(!one_value(l) || dname_from_str(l->v[0], origin,
				&olen) != 0)
				return perr(err, errlen, l, "name: expected a "
					"zone name");
			nm = l;
		} else if(strcmp(l->key, "zonefile") == 0) {
			if(zf)
				return perr(err, errlen, l, "zonefile: given "
					"twice");
			if(!one_value(l) || !l->v[0][0])
				return perr(err, errlen, l, "zonefile: "
					"expected a file name");
			zf = l;
		} else if(strcmp(l->key, "primary") == 0 ||
			strcmp(l->key, "master") == 0 ||
			strcmp(l->key, "url") == 0 ||
			strcmp(l->key, "allow-notify") == 0) {
			if(rpzx_line(p, cfg, b, l, err, errlen) != 0)
				return -1;
		} else if(strcmp(l->key, "tags") == 0) {
			join_values(l, e, sizeof(e));
			if(config_tag_mask(cfg, e, &p->rpz_tags[b], e,
				sizeof(e)) != 0)
				return perr(err, errlen, l, "tags: %s", e);
		} else if(strcmp(l->key, "rpz-action-override") == 0) {
			int a = one_value(l) ? rpz_action_from_str(l->v[0]) :
				-1;
			if(a < 0)
				return perr(err, errlen, l, "rpz-action-"
					"override: expected nxdomain, nodata, "
					"passthru, drop, tcp-only, cname or "
					"disabled");
			set.action_override = (enum rpz_action)a;
		} else if(strcmp(l->key, "rpz-cname-override") == 0) {
			size_t cl = sizeof(set.cname_override);
			if(!one_value(l) || dname_from_str(l->v[0],
				set.cname_override, &cl) != 0)
				return perr(err, errlen, l, "rpz-cname-override:"
					" expected a domain name");
		} else if(strcmp(l->key, "rpz-log") == 0) {
			if((yn = yesno(l)) < 0)
				return perr(err, errlen, l, "rpz-log: expected "
					"yes or no");
			set.log = yn;
		} else if(strcmp(l->key, "rpz-log-name") == 0) {
			if(!one_value(l))
				return perr(err, errlen, l, "rpz-log-name: "
					"expected a name");
			snprintf(set.log_name, sizeof(set.log_name), "%s",
				l->v[0]);
		} else if(strcmp(l->key, "rpz-signal-nxdomain-ra") == 0) {
			if((yn = yesno(l)) < 0)
				return perr(err, errlen, l, "rpz-signal-"
					"nxdomain-ra: expected yes or no");
			set.signal_nxdomain_ra = yn;
		} else if(strcmp(l->key, "for-downstream") == 0) {
			if((yn = yesno(l)) < 0)
				return perr(err, errlen, l, "for-downstream: "
					"expected yes or no");
			/* yes: the zone itself is served by an auth zone
			 * made from the clause (auth_zones_create) */
		}
	}
	if(!nm)
		return perr(err, errlen, hd, "rpz: expected a name: line");
	if(!zf && !p->rpzx[b])
		return perr(err, errlen, hd, "rpz '%s': expected a zonefile:, "
			"a primary: or a url: line", nm->v[0]);
	if(p->rpzx[b] && !p->rpzx[b]->nprim && p->rpzx[b]->nnotify)
		return perr(err, errlen, hd, "rpz '%s': allow-notify: without "
			"a primary:", nm->v[0]);
	if(set.action_override == RPZ_ACTION_CNAME && !set.cname_override[0])
		return perr(err, errlen, hd, "rpz '%s': rpz-action-override: "
			"cname needs an rpz-cname-override: name", nm->v[0]);
	for(i = 0; i < (size_t)b; i++)
		if(p->rpz[i] && dname_equal(rpz_origin(p->rpz[i]), origin))
			return perr(err, errlen, nm, "rpz '%s' is defined "
				"twice", nm->v[0]);
	if(!(p->rpz[b] = rpz_create(origin, &set)))
		return perr(err, errlen, hd, "out of memory");
	{
		char nb[DNS_MAX_NAME_STR];
		(void)dname_to_str(origin, nb, sizeof(nb));
		p->rpz_logname[b] = strdup(set.log_name[0] ? set.log_name :
			nb);
		if(!p->rpz_logname[b])
			return perr(err, errlen, hd, "out of memory");
	}
	if(p->rpzx[b])
		return rpzx_setup(p, cfg, p->rpzx[b], p->rpz[b], nm->v[0],
			hd, zf, err, errlen);
	if(rpz_load_file(p->rpz[b], zf->v[0], e, sizeof(e)) != 0)
		return perr(err, errlen, zf, "rpz '%s': %s", nm->v[0], e);
	return 0;
}

/** order selectors: longest prefix first */
static int
sel_cmp(const void *a, const void *b)
{
	const struct policy_sel *x = a, *y = b;
	return y->nb.prefix - x->nb.prefix;
}

/** the server: lines (access-control-view, interface-view) */
static int
build_selectors(struct policy *p, const struct config_file *cfg, char *err,
	size_t errlen)
{
	const struct config_policyline *l;
	size_t n = 0;
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_SERVER)
			n++;
	if(n) {
		p->acv = calloc(n, sizeof(*p->acv));
		p->ifv = calloc(n, sizeof(*p->ifv));
		if(!p->acv || !p->ifv)
			return perr(err, errlen, NULL, "out of memory");
	}
	for(l = cfg->policy_lines; l; l = l->next) {
		const char *a, *vn, *why = NULL;
		char buf[1024];
		struct policy_sel s;
		int acv;
		if(l->clause != CLAUSE_SERVER)
			continue;
		acv = strcmp(l->key, "access-control-view") == 0;
		if(!acv && strcmp(l->key, "interface-view") != 0)
			continue; /* the tag and response-ip lines */
		if(two_values(l, buf, sizeof(buf), &a, &vn) != 0)
			return perr(err, errlen, l, "%s: expected %s <view>",
				l->key, acv ? "<netblock>" : "<ip>");
		memset(&s, 0, sizeof(s));
		if(acv) {
			if(netblock_parse(a, &s.nb, 0, &why) != 0)
				return perr(err, errlen, l, "%s: bad netblock "
					"'%s': %s", l->key, a, why);
		} else {
			char ab[256];
			char *at;
			snprintf(ab, sizeof(ab), "%s", a);
			/* interface@port: the port is not matched */
			if((at = strchr(ab, '@')))
				*at = 0;
			if(netblock_parse(ab, &s.nb, 0, &why) != 0)
				return perr(err, errlen, l, "%s: bad address "
					"'%s': %s", l->key, a, why);
		}
		if((s.view = view_find(p, vn)) < 0)
			return perr(err, errlen, l, "%s: no view: clause "
				"named '%s'", l->key, vn);
		if(acv)
			p->acv[p->nacv++] = s;
		else
			p->ifv[p->nifv++] = s;
	}
	if(p->nacv > 1)
		qsort(p->acv, p->nacv, sizeof(*p->acv), sel_cmp);
	return 0;
}

/** the tag set of an interface-tag address, made when new. @return it or
 * NULL (out of memory) */
static struct policy_tagset *
tagset_of_interface(struct policy *p, const struct netblock *nb)
{
	size_t i;
	struct policy_tagset *t;
	for(i = 0; i < p->niftags; i++)
		if(p->iftags[i].nb.prefix == nb->prefix &&
			netblock_match(&p->iftags[i].nb, &nb->a))
			return &p->iftags[i];
	t = realloc(p->iftags, (p->niftags + 1) * sizeof(*t));
	if(!t)
		return NULL;
	p->iftags = t;
	t = &p->iftags[p->niftags++];
	memset(t, 0, sizeof(*t));
	t->nb = *nb;
	return t;
}

/** the tag lines of one kind: prefix "access-control" or "interface".
 * @return 0 or -1 */
static int
build_tag_lines(struct policy *p, const struct config_file *cfg,
	const char *prefix, const struct netblock *blocks, size_t nblocks,
	char *err, size_t errlen)
{
	const struct config_policyline *l;
	size_t plen = strlen(prefix);
	for(l = cfg->policy_lines; l; l = l->next) {
		const char *a, *rest, *kind;
		char buf[8192], e[512], ab[256], *at;
		struct netblock nb;
		struct policy_tagset *t = NULL;
		const char *why = NULL;
		size_t i;
		int tag;
		if(l->clause != CLAUSE_SERVER || strncmp(l->key, prefix, plen)
			!= 0 || strncmp(l->key + plen, "-tag", 4) != 0)
			continue;
		kind = l->key + plen + 4; /* "", "-action" or "-data" */
		if(l->n >= 2) {
			a = l->v[0];
			/* the rest of the line, from the second value */
			buf[0] = 0;
			for(i = 1; i < (size_t)l->n; i++) {
				size_t k = strlen(buf);
				snprintf(buf + k, sizeof(buf) - k, "%s%s",
					i > 1 ? " " : "", l->v[i]);
			}
			rest = buf;
		} else if(two_values(l, buf, sizeof(buf), &a, &rest) != 0)
			return perr(err, errlen, l, "%s: expected <%s> and "
				"the tag%s", l->key, plen > 10 ? "netblock" :
				"ip", *kind ? " with its value" : "s");
		snprintf(ab, sizeof(ab), "%s", a);
		if((at = strchr(ab, '@')))
			*at = 0;
		if(netblock_parse(ab, &nb, 1, &why) != 0)
			return perr(err, errlen, l, "%s: bad address '%s': %s",
				l->key, a, why ? why : "syntax");
		if(blocks) {
			for(i = 0; i < nblocks; i++)
				if(blocks[i].prefix == nb.prefix &&
					netblock_match(&blocks[i], &nb.a))
					t = &p->acltags[i];
		} else
			t = tagset_of_interface(p, &nb);
		if(!t)
			return perr(err, errlen, l, "out of memory");
		if(!*kind) {
			uint64_t m;
			if(config_tag_mask(cfg, rest, &m, e, sizeof(e)) != 0)
				return perr(err, errlen, l, "%s: %s", l->key,
					e);
			t->lt.tags |= m;
			continue;
		}
		/* -action and -data: "<tag> <value>" */
		{
			char tn[256];
			const char *sp = strpbrk(rest, " \t");
			if(!sp)
				return perr(err, errlen, l, "%s: expected <tag> "
					"<%s>", l->key, strcmp(kind, "-action")
					== 0 ? "action" : "rr");
			snprintf(tn, sizeof(tn), "%.*s", (int)(sp - rest),
				rest);
			while(*sp == ' ' || *sp == '\t')
				sp++;
			if((tag = config_tag_index(cfg, tn)) < 0)
				return perr(err, errlen, l, "%s: unknown tag "
					"'%s' (not in a define-tag:)", l->key,
					tn);
			rest = sp;
		}
		if(strcmp(kind, "-action") == 0) {
			enum local_zone_type ty = local_zone_type_from_str(
				rest);
			if(ty == LOCAL_ZONE_UNSET || ty == LOCAL_ZONE_NODEFAULT)
				return perr(err, errlen, l, "%s: bad action "
					"'%s' (a local-zone type)", l->key,
					rest);
			t->action[tag] = (uint8_t)ty;
		} else if(strcmp(kind, "-data") == 0) {
			char rr[8192];
			if(!t->data[tag]) {
				if(!(t->data[tag] = local_zones_create()) ||
					local_zones_add_zone(t->data[tag], ".",
					"redirect", e, sizeof(e)) != 0)
					return perr(err, errlen, l, "out of "
						"memory");
			}
			snprintf(rr, sizeof(rr), ". %s", rest);
			if(local_zones_add_data(t->data[tag], rr, e, sizeof(e))
				!= 0)
				return perr(err, errlen, l, "%s: %s", l->key,
					e);
		} else
			return perr(err, errlen, l, "%s: not supported by "
				"this petrel", l->key);
	}
	return 0;
}

/** finish a tag set: its data zones, and the view the zones get */
static int
tagset_finish(struct policy_tagset *t, char *err, size_t errlen)
{
	size_t i;
	for(i = 0; i < CONFIG_MAX_TAGS; i++)
		if(t->data[i] && local_zones_finish(t->data[i], err, errlen)
			!= 0)
			return -1;
	t->lt.action = t->action;
	t->lt.data = t->data;
	return 0;
}

/** the tags: define-tag checked, access-control-tag* and interface-tag*
 * lines into tag sets. @return 0 or -1 */
static int
build_tags(struct policy *p, const struct config_file *cfg, char *err,
	size_t errlen)
{
	const struct config_policyline *l;
	struct netblock *blocks = NULL;
	size_t nblocks = 0, i;
	int ntags = 0;
	char e[512];
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_SERVER && strcmp(l->key,
			"define-tag") == 0) {
			int k;
			for(k = 0; k < l->n; k++) {
				const char *s = l->v[k];
				while(*s) {
					while(*s == ' ' || *s == '\t' ||
						*s == ',')
						s++;
					if(!*s)
						break;
					ntags++;
					while(*s && *s != ' ' && *s != '\t' &&
						*s != ',')
						s++;
				}
			}
			if(ntags > CONFIG_MAX_TAGS)
				return perr(err, errlen, l, "define-tag: more "
					"than %d tags", CONFIG_MAX_TAGS);
		}
	if(acl_cfg_tag_blocks(cfg, &blocks, &nblocks, e, sizeof(e)) != 0)
		return perr(err, errlen, NULL, "%s", e);
	if(nblocks) {
		if(!(p->acltags = calloc(nblocks, sizeof(*p->acltags)))) {
			free(blocks);
			return perr(err, errlen, NULL, "out of memory");
		}
		p->nacltags = nblocks;
	}
	if(build_tag_lines(p, cfg, "access-control", blocks, nblocks, err,
		errlen) != 0 || build_tag_lines(p, cfg, "interface", NULL, 0,
		err, errlen) != 0) {
		free(blocks);
		return -1;
	}
	free(blocks);
	for(i = 0; i < p->nacltags; i++)
		if(tagset_finish(&p->acltags[i], e, sizeof(e)) != 0)
			return perr(err, errlen, NULL, "access-control-tag-"
				"data: %s", e);
	for(i = 0; i < p->niftags; i++)
		if(tagset_finish(&p->iftags[i], e, sizeof(e)) != 0)
			return perr(err, errlen, NULL, "interface-tag-data: %s",
				e);
	return 0;
}

/** the tag set of a client: its access-control entry's, else that of
 * the address the query came to. @return it or NULL */
static const struct policy_tagset *
policy_client_tagset(const struct policy *p, uint32_t ref,
	const struct netaddr *local)
{
	size_t i;
	if(ref && ref <= p->nacltags)
		return &p->acltags[ref - 1];
	if(local)
		for(i = 0; i < p->niftags; i++)
			if(netblock_match(&p->iftags[i].nb, local))
				return &p->iftags[i];
	return NULL;
}

/** the tags of a client (policy_client_tagset). @return them or NULL */
static const struct local_tags *
policy_client_tags(const struct policy *p, uint32_t ref,
	const struct netaddr *local)
{
	const struct policy_tagset *t = policy_client_tagset(p, ref, local);
	return t ? &t->lt : NULL;
}

/** the tsig-key: clauses, for the rpz primaries. @return 0 or -1 */
static int
build_keys(struct policy *p, const struct config_file *cfg, char *err,
	size_t errlen)
{
	const struct config_tsig *t;
	size_t n = 0;
	for(t = cfg->tsig_keys; t; t = t->next)
		n++;
	if(!n)
		return 0;
	if(!(p->keys = calloc(n, sizeof(*p->keys))))
		return perr(err, errlen, NULL, "out of memory");
	for(t = cfg->tsig_keys; t; t = t->next, p->nkeys++)
		if(xfr_tsig_key_init(&p->keys[p->nkeys], t->name,
			t->algorithm, t->secret) != 0)
			return perr(err, errlen, NULL, "%s:%d: tsig-key '%s': a "
				"bad name, algorithm or secret", cfg->filename ?
				cfg->filename : "", t->line, t->name);
	return 0;
}

struct xfr_service *
policy_xfr(struct policy *p)
{
	return p ? p->xs : NULL;
}

int
policy_start(struct policy *p)
{
	if(!p || !p->xs)
		return 0;
	return xfr_service_start(p->xs);
}

int
policy_rpz_notify(const struct policy *p, const uint8_t *pkt, size_t len,
	const struct netaddr *from, uint8_t *out, size_t outmax,
	size_t *outlen)
{
	uint8_t name[DNS_MAX_NAME];
	size_t pos = DNS_HDR_SIZE, nl = 0, i, j;
	const struct policy_rpzxfr *x = NULL;
	int allowed = 0;
	int64_t serial = -1;
	if(!p || !p->xs || len < DNS_HDR_SIZE || (pkt[2] & 0x80) ||
		((pkt[2] >> 3) & 0x0f) != DNS_OPCODE_NOTIFY ||
		((pkt[4] << 8) | pkt[5]) != 1 || dname_pkt_read(pkt, len, &pos,
		name, &nl) != 0 || pos + 4 > len)
		return 0;
	dname_tolower(name);
	for(i = 0; i < p->nrpz && !x; i++)
		if(p->rpzx[i] && dname_equal(rpz_origin(p->rpz[i]), name))
			x = p->rpzx[i];
	if(!x)
		return 0; /* not ours: the auth zones may know it */
	for(j = 0; j < x->nnotify && !allowed; j++)
		if(netblock_match(&x->notify[j], from))
			allowed = 1;
	for(j = 0; j < x->nprim && !allowed; j++)
		if(netaddr_cmp_addr(&x->prim[j].addr, from) == 0)
			allowed = 1;
	pos += 4;
	if(allowed) {
		/* the serial of an SOA in the answer section, if any */
		size_t ap = pos;
		if(((pkt[6] << 8) | pkt[7]) >= 1 && dname_pkt_read(pkt, len,
			&ap, NULL, NULL) == 0 && ap + 10 <= len &&
			((pkt[ap] << 8) | pkt[ap + 1]) == DNS_TYPE_SOA) {
			size_t rd = ap + 10;
			if(dname_pkt_read(pkt, len, &rd, NULL, NULL) == 0 &&
				dname_pkt_read(pkt, len, &rd, NULL, NULL) == 0 &&
				rd + 4 <= len)
				serial = ((int64_t)pkt[rd] << 24) | (pkt[rd + 1]
					<< 16) | (pkt[rd + 2] << 8) | pkt[rd + 3];
		}
		verbose(VERB_DETAIL, "rpz %s: NOTIFY (serial %lld)", x->name,
			(long long)serial);
		xfr_task_notify(x->task, serial, 0);
	} else {
		char a[NETADDR_STRLEN];
		verbose(VERB_OPS, "rpz %s: NOTIFY from %s refused (not in "
			"allow-notify or the primaries)", x->name,
			netaddr_str(from, 53, a, sizeof(a)));
	}
	if(pos > outmax)
		return 0;
	memmove(out, pkt, pos);
	out[2] = (uint8_t)((out[2] & 0x79) | 0x80 | (allowed ? 0x04 : 0));
	out[3] = (uint8_t)(allowed ? DNS_RCODE_NOERROR : DNS_RCODE_REFUSED);
	memset(out + 6, 0, 6);
	*outlen = pos;
	return 1;
}

int
policy_rpz_transfer(const struct policy *p, const char *name)
{
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d), i;
	if(!p || !p->xs || dname_from_str(name, d, &dl) != 0)
		return 0;
	dname_tolower(d);
	for(i = 0; i < p->nrpz; i++)
		if(p->rpzx[i] && dname_equal(rpz_origin(p->rpz[i]), d)) {
			xfr_task_notify(p->rpzx[i]->task, -1, 1);
			return 1;
		}
	return 0;
}

int
policy_apply_cfg(struct policy **out, const struct config_file *cfg,
	char *err, size_t errlen)
{
	struct policy *p;
	int nv, nr, i;
	*out = NULL;
	if(!cfg->policy_lines)
		return 0;
	if(!(p = calloc(1, sizeof(*p))))
		return perr(err, errlen, NULL, "out of memory");
	p->edns_size = (uint16_t)(cfg->edns_buffer_size > 0 &&
		cfg->edns_buffer_size < 65536 ? cfg->edns_buffer_size : 1232);
	p->max_udp = (uint16_t)(cfg->max_udp_size > 0 &&
		cfg->max_udp_size < 65536 ? cfg->max_udp_size : 1232);
	p->no_ede = !cfg->ede;
	p->minimal = cfg->minimal_responses;
	p->rops = modstack_respip();
	nv = count_blocks(cfg, CLAUSE_VIEW);
	nr = count_blocks(cfg, CLAUSE_RPZ);
	if(nv) {
		if(!(p->views = calloc((size_t)nv, sizeof(*p->views))))
			goto oom;
		p->nviews = (size_t)nv;
	}
	if(nr) {
		p->rpz = calloc((size_t)nr, sizeof(*p->rpz));
		p->rpz_logname = calloc((size_t)nr, sizeof(char *));
		p->rpz_tags = calloc((size_t)nr, sizeof(uint64_t));
		p->rpzx = calloc((size_t)nr, sizeof(*p->rpzx));
		if(!p->rpz || !p->rpz_logname || !p->rpz_tags || !p->rpzx)
			goto oom;
		p->nrpz = (size_t)nr;
	}
	for(i = 0; i < nv; i++)
		if(build_view(p, cfg, i, err, errlen) != 0)
			goto fail;
	if(build_selectors(p, cfg, err, errlen) != 0)
		goto fail;
	if(build_tags(p, cfg, err, errlen) != 0)
		goto fail;
	if(nr && build_keys(p, cfg, err, errlen) != 0)
		goto fail;
	for(i = 0; i < nr; i++)
		if(build_rpz(p, cfg, i, err, errlen) != 0)
			goto fail;
	if(build_respip(p, cfg, err, errlen) != 0)
		goto fail;
	*out = p;
	return 0;
oom:
	perr(err, errlen, NULL, "out of memory");
fail:
	policy_delete(p);
	return -1;
}

int
policy_has_interface_views(const struct policy *p)
{
	return p && (p->nifv > 0 || p->niftags > 0);
}

int
policy_select_view(const struct policy *p, const struct netaddr *client,
	const struct netaddr *local)
{
	size_t i;
	if(client)
		for(i = 0; i < p->nacv; i++)
			if(netblock_match(&p->acv[i].nb, client))
				return p->acv[i].view;
	if(local)
		for(i = 0; i < p->nifv; i++)
			if(netblock_match(&p->ifv[i].nb, local))
				return p->ifv[i].view;
	return -1;
}

/* ---- RPZ answers ---- */

/** the state of a local-data answer being written */
struct rpz_write {
	/** the builder */
	struct dns_builder *b;
	/** owner of the records (the question name) */
	const uint8_t *owner;
	/** question type */
	uint16_t qtype;
	/** 1 when the rule has a CNAME (it answers every type) */
	int cname;
	/** records written */
	int n;
	/** the CNAME written (its target, uncompressed), or NULL */
	const uint8_t *target;
	/** its length */
	size_t target_len;
	/** its TTL */
	uint32_t target_ttl;
	/** a wildcard CNAME's target made for the question
	 * (rpz_cname_target) */
	uint8_t tbuf[DNS_MAX_NAME];
};

/**
 * The target of a local-data CNAME: "*.suffix" stands for the question
 * name under suffix, as in Unbound and BIND ("e CNAME *.a.example."
 * answers e. with e.a.example.); any other target is itself.
 * @param buf: room for DNS_MAX_NAME bytes, used for a wildcard target.
 * @param len: set to the target's length.
 * @return the target, or NULL when the name would be too long (the record
 *	is left out).
 */
static const uint8_t *
rpz_cname_target(const uint8_t *qname, const uint8_t *rdata, size_t rdlen,
	uint8_t *buf, size_t *len)
{
	size_t ql;
	*len = rdlen;
	if(rdlen <= 3 || rdata[0] != 1 || rdata[1] != '*')
		return rdata;
	ql = dname_len(qname);
	if(ql - 1 + rdlen - 2 > DNS_MAX_NAME)
		return NULL;
	memcpy(buf, qname, ql - 1);
	memcpy(buf + ql - 1, rdata + 2, rdlen - 2);
	*len = ql - 1 + rdlen - 2;
	return buf;
}

/** does the rule have a CNAME: sets the int at arg (a walk callback of
 * rpz_match_data, for the client answer and the iterator's alike) */
static int
rpz_find_cname(void *arg, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen)
{
	int *cname = arg;
	(void)rrclass; (void)ttl; (void)rdata; (void)rdlen;
	if(type == DNS_TYPE_CNAME) {
		*cname = 1;
		return 1;
	}
	return 0;
}

/** write the records that answer the question */
static int
rpz_put_rr(void *arg, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen)
{
	struct rpz_write *w = arg;
	if(w->cname ? type != DNS_TYPE_CNAME : (type != w->qtype &&
		w->qtype != DNS_TYPE_ANY))
		return 0;
	if(type == DNS_TYPE_CNAME && !(rdata = rpz_cname_target(w->owner,
		rdata, rdlen, w->tbuf, &rdlen)))
		return 0;
	if(dns_build_rr(w->b, DNS_SEC_ANSWER, w->owner, type, rrclass, ttl,
		rdata, rdlen) != 0) {
		dns_build_truncate(w->b);
		return 1;
	}
	if(type == DNS_TYPE_CNAME) {
		w->target = rdata;
		w->target_len = rdlen;
		w->target_ttl = ttl;
	}
	w->n++;
	return 0;
}

/** most local-data CNAMEs of rpz rules followed in one answer */
#define RPZ_CHAIN_MAX 8

/**
 * Follow a local-data CNAME through the QNAME rules of the rpz zones, as
 * Unbound does when it restarts the lookup at a CNAME target and applies
 * the policy to it again: while the last CNAME written (w->target) names
 * a local-data QNAME rule of a zone the client may use (its tags ct), the
 * rule's records are written too, owned by that target (at most
 * RPZ_CHAIN_MAX). A target no rule names (or one with another action) is
 * left for the resolver to chase.
 * @param w: the writer after the first rule's records.
 * @param last: set to the target the chain ends in (lower case), when it
 *	ends in a CNAME; room for DNS_MAX_NAME bytes.
 * @return 1 when the chain ends in the data of a rule, 0 when it ends in
 *	a CNAME whose target is to be resolved (last).
 */
static int
rpz_follow_chain(const struct policy *p, const struct local_tags *ct,
	struct rpz_write *w, uint8_t *last)
{
	int k;
	size_t z;
	for(k = 0; k < RPZ_CHAIN_MAX; k++) {
		struct rpz_match m;
		int found = 0;
		if(!w->cname || !w->target || w->target_len == 0 ||
			dname_valid(w->target, w->target_len) == 0)
			return w->cname ? 0 : 1;
		(void)dname_copy_lower(last, w->target);
		for(z = 0; z < p->nrpz && !found; z++) {
			const struct rpz *rz = p->rpz[z];
			if(p->rpz_tags[z] && !(ct && (ct->tags &
				p->rpz_tags[z])))
				continue;
			if(!rpz_is_enabled(rz) || !rpz_lookup_query(rz, last,
				NULL, &m) || m.action == RPZ_ACTION_DISABLED ||
				m.action == RPZ_ACTION_NONE)
				continue;
			found = 1;
		}
		if(!found || m.trigger != RPZ_TRIGGER_QNAME ||
			m.action != RPZ_ACTION_LOCAL_DATA)
			return 0;
		w->owner = last;
		w->cname = 0;
		w->target = NULL;
		w->target_len = 0;
		rpz_match_data(&m, rpz_find_cname, &w->cname);
		rpz_match_data(&m, rpz_put_rr, w);
		if(!w->cname || !w->target)
			return 1;
		/* the next target: copied before w->owner's buffer is
		 * written again */
		memmove(w->tbuf, w->target, w->target_len);
		w->target = w->tbuf;
	}
	return 0;
}

/** log an RPZ action (rpz-log: yes) */
static void
rpz_log(const struct policy *p, size_t zi, const struct rpz_match *m,
	const struct fast_query *fq, const struct netaddr *client)
{
	char qn[DNS_MAX_NAME_STR], ip[NETADDR_STRLEN], tb[16];
	static const char *const trig[] = { "QNAME", "CLIENT-IP",
		"RESPONSE-IP", "NSDNAME", "NSIP" };
	(void)dname_to_str(fq->qinfo.qname, qn, sizeof(qn));
	if(client)
		netaddr_str(client, -1, ip, sizeof(ip));
	else
		snprintf(ip, sizeof(ip), "-");
	log_info("rpz: applied [%s] %s %s %s %s %s", p->rpz_logname[zi],
		trig[m->trigger], qn, dns_type_str(fq->qinfo.qtype, tb,
		sizeof(tb)), rpz_action_str(m->action), ip);
}

/** a CNAME answer of a rule (local data CNAME, or the cname override):
 * the resolver may chase its target (struct local_alias) */
static void
rpz_set_alias(struct local_front_info *info, const uint8_t *t, size_t tl,
	uint32_t ttl)
{
	if(!info || tl == 0 || tl > sizeof(info->alias.target))
		return;
	info->alias.present = 1;
	memcpy(info->alias.target, t, tl);
	info->alias.target_len = tl;
	info->alias.ttl = ttl;
}

/**
 * Write the answer of a matched rule, in the form Unbound gives it: a
 * QNAME, CLIENT-IP, NSDNAME or NSIP rule answers with AA set (the policy
 * zone is the authority for it), a RESPONSE-IP rule without (it rewrites
 * an answer from elsewhere). NXDOMAIN and NODATA carry no SOA (so no
 * downstream cache keeps the policy's verdict, RFC 2308 section 5); the
 * local data of a CLIENT-IP rule (or its NODATA) has the policy zone's
 * SOA in the additional section, unless minimal-responses.
 * A local-data CNAME is followed through the rules (rpz_follow_chain).
 * @param info: its alias is set for a CNAME answer (may be NULL).
 * @param ct: the client's tags (for the rules a CNAME target meets), or
 *	NULL.
 * @return the front result
 */
static enum local_front_result
rpz_answer(const struct policy *p, const struct rpz *z,
	const struct rpz_match *m, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_front_info *info,
	const struct local_tags *ct)
{
	struct dns_builder b;
	uint16_t flags = (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RA |
		(fq->flags & (DNS_FLAG_RD | DNS_FLAG_CD)));
	int rcode = DNS_RCODE_NOERROR, ede = DNS_EDE_FILTERED, soa = 0;
	struct rpz_write w;
	if(m->trigger != RPZ_TRIGGER_RESPONSE_IP)
		flags |= DNS_FLAG_AA;
	switch(m->action) {
	case RPZ_ACTION_NXDOMAIN:
		rcode = DNS_RCODE_NXDOMAIN;
		ede = DNS_EDE_BLOCKED;
		if(rpz_get_settings(z)->signal_nxdomain_ra)
			flags &= (uint16_t)~DNS_FLAG_RA;
		break;
	case RPZ_ACTION_NODATA:
		ede = DNS_EDE_BLOCKED;
		break;
	case RPZ_ACTION_TCP_ONLY:
		flags |= DNS_FLAG_TC;
		ede = -1;
		break;
	default:
		break;
	}
	dns_build_init(&b, out, outmax, fast_query_answer_limit(fq, tcp,
		p->max_udp, outmax));
	if(dns_build_header(&b, fq->id, (uint16_t)(flags | rcode)) != 0 ||
		dns_build_question_raw(&b, pkt, fq->qname_off,
		fq->question_end) != 0)
		return LOCAL_FRONT_DROP;
	if(fq->edns.present)
		dns_build_reserve(&b, dns_opt_size(NULL, 0) + 6);
	memset(&w, 0, sizeof(w));
	w.b = &b;
	w.owner = fq->qinfo.qname;
	w.qtype = fq->qinfo.qtype;
	if(m->action == RPZ_ACTION_LOCAL_DATA) {
		uint8_t last[DNS_MAX_NAME];
		rpz_match_data(m, rpz_find_cname, &w.cname);
		rpz_match_data(m, rpz_put_rr, &w);
		if(w.cname && w.n == 1 && w.target &&
			rpz_follow_chain(p, ct, &w, last) == 0)
			rpz_set_alias(info, last, dname_len(last),
				w.target_ttl);
		soa = m->trigger == RPZ_TRIGGER_CLIENT_IP && !p->minimal;
	} else if(m->action == RPZ_ACTION_CNAME) {
		const uint8_t *t = rpz_get_settings(z)->cname_override;
		if(dns_build_rr(&b, DNS_SEC_ANSWER, w.owner, DNS_TYPE_CNAME,
			fq->qinfo.qclass, 3600, t, dname_len(t)) == 0)
			rpz_set_alias(info, t, dname_len(t), 3600);
	}
	if(soa) {
		size_t sl;
		uint32_t ttl;
		const uint8_t *s = rpz_soa(m, &sl, &ttl);
		if(s)
			(void)dns_build_rr(&b, DNS_SEC_ADDITIONAL,
				rpz_origin(z), DNS_TYPE_SOA, DNS_CLASS_IN,
				ttl, s, sl);
	}
	if(fq->edns.present) {
		struct edns_opt_out o;
		uint8_t eb[8];
		if(p->no_ede)
			ede = -1;
		if(ede >= 0)
			edns_opt_ede(&o, eb, sizeof(eb), (uint16_t)ede, NULL);
		if(dns_build_opt(&b, p->edns_size, rcode, fq->edns.do_bit,
			ede >= 0 ? &o : NULL, ede >= 0 ? 1 : 0) != 0)
			return LOCAL_FRONT_DROP;
	}
	*outlen = dns_build_finish(&b);
	return *outlen ? LOCAL_FRONT_ANSWERED : LOCAL_FRONT_DROP;
}

enum local_front_result
policy_front_answer(const struct policy *p, const struct acl_list *acl,
	const struct local_zones *lz, const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, const struct netaddr *client,
	const struct netaddr *local, int tcp, uint8_t *out, size_t outmax,
	size_t *outlen, struct local_front_info *info, struct policy_stats *st,
	int norec_ok)
{
	enum local_front_result r;
	int vi = (p->nacv || p->nifv) ? policy_select_view(p, client, local) :
		-1;
	size_t i;
	const struct local_tags *ct = NULL;
	if(p->nacltags || p->niftags) {
		uint32_t ref = 0;
		enum config_acl_action a = acl_check_ref(acl, client, &ref);
		ct = policy_client_tags(p, ref, local);
		r = local_front_answer_tags(a, vi >= 0 ? p->views[vi].lz :
			NULL, vi >= 0 ? p->views[vi].view_first : 0, lz, pkt,
			pktlen, fq, client, tcp, out, outmax, outlen, info, ct,
			norec_ok);
	} else
		r = local_front_answer_view(acl, vi >= 0 ? p->views[vi].lz :
			NULL, vi >= 0 ? p->views[vi].view_first : 0, lz, pkt,
			pktlen, fq, client, tcp, out, outmax, outlen, info,
			norec_ok);
	if(r != LOCAL_FRONT_CONTINUE)
		return r;
	for(i = 0; i < p->nrpz; i++) {
		const struct rpz *z = p->rpz[i];
		struct rpz_match m;
		if(p->rpz_tags[i] && !(ct && (ct->tags & p->rpz_tags[i])))
			continue;
		if(!rpz_is_enabled(z) || !rpz_lookup_query(z,
			fq->qinfo.qname, client, &m))
			continue;
		if(rpz_get_settings(z)->log)
			rpz_log(p, i, &m, fq, client);
		if(st && (size_t)m.action < sizeof(st->rpz_action) /
			sizeof(st->rpz_action[0]))
			st->rpz_action[m.action]++;
		switch(m.action) {
		case RPZ_ACTION_DISABLED:
		case RPZ_ACTION_NONE:
			continue;
		case RPZ_ACTION_PASSTHRU:
			/* the first rule that matches decides, for the
			 * answer's RESPONSE-IP rules too (as Unbound) */
			if(info)
				info->rpz_passthru = 1;
			return LOCAL_FRONT_CONTINUE;
		case RPZ_ACTION_DROP:
			return LOCAL_FRONT_DROP;
		case RPZ_ACTION_TCP_ONLY:
			if(tcp)
				return LOCAL_FRONT_CONTINUE;
			/* fallthrough */
		default:
			return rpz_answer(p, z, &m, pkt, fq, tcp, out, outmax,
				outlen, info, ct);
		}
	}
	return LOCAL_FRONT_CONTINUE;
}

size_t
policy_rpz_count(const struct policy *p)
{
	return p ? p->nrpz : 0;
}

struct rpz *
policy_rpz(const struct policy *p, size_t i)
{
	return p && i < p->nrpz ? p->rpz[i] : NULL;
}

struct rpz *
policy_rpz_find(const struct policy *p, const char *name)
{
	uint8_t d[DNS_MAX_NAME];
	size_t dl = sizeof(d), i;
	if(!p || dname_from_str(name, d, &dl) != 0)
		return NULL;
	for(i = 0; i < p->nrpz; i++)
		if(dname_equal(rpz_origin(p->rpz[i]), d))
			return p->rpz[i];
	return NULL;
}

size_t
policy_view_count(const struct policy *p)
{
	return p ? p->nviews : 0;
}

const char *
policy_view_name(const struct policy *p, size_t i)
{
	return p && i < p->nviews ? p->views[i].name : NULL;
}

const struct local_zones *
policy_view_zones(const struct policy *p, size_t i)
{
	return p && i < p->nviews ? p->views[i].lz : NULL;
}

/* ---- response-ip: answers by the addresses they hold ---- */

/** room for a rewritten answer (the chain, the data, the OPT) */
#define RESPIP_SCRATCH 4096

/** a result of the rules as policy_respip_answer() gives it */
static enum policy_respip_result
respip_result(enum module_respip_result r)
{
	return r == MODULE_RESPIP_REWRITTEN ? POLICY_RESPIP_REWRITTEN :
		r == MODULE_RESPIP_DROP ? POLICY_RESPIP_DROP :
		POLICY_RESPIP_PASS;
}

/**
 * policy_respip_answer() for a client in view vi (-1: none) with tags ct
 * and rc (NULL: none); client may be NULL (a sub-query's answer, which
 * is for no client in particular).
 */
static enum policy_respip_result
respip_answer_in(const struct policy *p, int vi, const struct local_tags *ct,
	const struct module_respip_client *rc,
	const uint8_t *pkt, const struct fast_query *fq,
	const struct netaddr *client, int tcp, uint8_t *ans, size_t *anslen,
	size_t ansmax, struct policy_stats *st)
{
	uint8_t scratch[RESPIP_SCRATCH];
	enum module_respip_result r;
	int matched = 0;
	size_t i;
	/* the view's lines first (without tags); the server's when none
	 * matched and the view has view-first (or there is no view) */
	if(vi >= 0 && p->views[vi].respip) {
		r = p->rops->apply(p->views[vi].respip, NULL, pkt, fq, client,
			tcp, p->edns_size, p->max_udp, ans, anslen, ansmax,
			scratch, sizeof(scratch), &matched);
		if(r != MODULE_RESPIP_PASS)
			return respip_result(r);
	}
	if(!matched && p->respip && (vi < 0 || p->views[vi].view_first)) {
		r = p->rops->apply(p->respip, rc, pkt, fq, client, tcp,
			p->edns_size, p->max_udp, ans, anslen, ansmax, scratch,
			sizeof(scratch), &matched);
		if(r != MODULE_RESPIP_PASS)
			return respip_result(r);
	}
	if(matched)
		return POLICY_RESPIP_PASS;
	/* the RPZ RESPONSE-IP triggers, zone by zone */
	for(i = 0; i < p->nrpz; i++) {
		const struct rpz *z = p->rpz[i];
		struct rpz_match m;
		struct dns_addr_hit hit;
		size_t n = 0;
		if(p->rpz_tags[i] && !(ct && (ct->tags & p->rpz_tags[i])))
			continue;
		if(!rpz_count(z, RPZ_TRIGGER_RESPONSE_IP) ||
			!rpz_is_enabled(z) || !rpz_lookup_answer(z, ans,
			*anslen, &m, &hit))
			continue;
		if(rpz_get_settings(z)->log)
			rpz_log(p, i, &m, fq, client);
		if(st && (size_t)m.action < sizeof(st->rpz_action) /
			sizeof(st->rpz_action[0]))
			st->rpz_action[m.action]++;
		switch(m.action) {
		case RPZ_ACTION_DISABLED:
		case RPZ_ACTION_NONE:
			continue;
		case RPZ_ACTION_PASSTHRU:
			return POLICY_RESPIP_PASS;
		case RPZ_ACTION_DROP:
			return POLICY_RESPIP_DROP;
		case RPZ_ACTION_TCP_ONLY:
			if(tcp)
				return POLICY_RESPIP_PASS;
			/* fallthrough */
		default:
			if(rpz_answer(p, z, &m, pkt, fq, tcp, scratch,
				sizeof(scratch), &n, NULL, ct) !=
				LOCAL_FRONT_ANSWERED || n > ansmax)
				return POLICY_RESPIP_DROP;
			memcpy(ans, scratch, n);
			*anslen = n;
			return POLICY_RESPIP_REWRITTEN;
		}
	}
	return POLICY_RESPIP_PASS;
}

enum policy_respip_result
policy_respip_answer(const struct policy *p, const struct acl_list *acl,
	const uint8_t *pkt, const struct fast_query *fq,
	const struct netaddr *client, const struct netaddr *local, int tcp,
	uint8_t *ans, size_t *anslen, size_t ansmax, struct policy_stats *st)
{
	const struct policy_tagset *ts = NULL;
	int vi;
	uint16_t qt = fq->qinfo.qtype;
	if(!p->respip_on || (qt != DNS_TYPE_A && qt != DNS_TYPE_AAAA &&
		qt != DNS_TYPE_ANY))
		return POLICY_RESPIP_PASS;
	vi = (p->nacv || p->nifv) ? policy_select_view(p, client, local) : -1;
	if(p->nacltags || p->niftags) {
		uint32_t ref = 0;
		(void)acl_check_ref(acl, client, &ref);
		ts = policy_client_tagset(p, ref, local);
	}
	return respip_answer_in(p, vi, ts ? &ts->lt : NULL, ts ? &ts->rc :
		NULL, pkt, fq, client, tcp, ans, anslen, ansmax, st);
}

/* ---- response-ip on a module's sub-query answer ---- */

/** room for the answer of a sub-query shown to the rules: its answer
 * section (an address lookup's, a few records) and the rewrite */
#define RESPIP_SUB_MAX 8192

/**
 * Read the answer section of a (rewritten) message into an answer in a
 * region: owner names and the names in CNAME and DNAME RDATA
 * uncompressed, other RDATA as it is (the rules put A, AAAA and CNAME
 * records there).
 * @return the answer, or NULL when it does not parse or out of memory.
 */
static struct mesh_answer *
respip_sub_read(struct region *r, const uint8_t *m, size_t len)
{
	struct mesh_answer *ans;
	size_t pos = DNS_HDR_SIZE, i;
	unsigned qd, an;
	if(len < DNS_HDR_SIZE || !(ans = region_alloc_zero(r, sizeof(*ans))))
		return NULL;
	ans->rcode = m[3] & 0x0f;
	ans->ede = -1;
	ans->sec = MODULE_SEC_INSECURE; /* the policy's, not the zone's */
	qd = ((unsigned)m[4] << 8) | m[5];
	an = ((unsigned)m[6] << 8) | m[7];
	for(i = 0; i < qd; i++) {
		if(dname_pkt_read(m, len, &pos, NULL, NULL) != 0 ||
			pos + 4 > len)
			return NULL;
		pos += 4;
	}
	for(i = 0; i < an; i++) {
		uint8_t owner[DNS_MAX_NAME], tgt[DNS_MAX_NAME];
		const uint8_t *rd;
		size_t ol = 0, tl = 0, rdl, wirelen;
		uint16_t type, cls;
		uint32_t ttl;
		struct module_rr *rr;
		if(dname_pkt_read(m, len, &pos, owner, &ol) != 0 ||
			pos + 10 > len)
			return NULL;
		type = (uint16_t)((m[pos] << 8) | m[pos + 1]);
		cls = (uint16_t)((m[pos + 2] << 8) | m[pos + 3]);
		ttl = ((uint32_t)m[pos + 4] << 24) | ((uint32_t)m[pos + 5]
			<< 16) | ((uint32_t)m[pos + 6] << 8) | m[pos + 7];
		rdl = wirelen = (size_t)((m[pos + 8] << 8) | m[pos + 9]);
		pos += 10;
		if(pos + wirelen > len)
			return NULL;
		rd = m + pos;
		if(type == DNS_TYPE_CNAME || type == DNS_TYPE_DNAME) {
			size_t tp = pos;
			if(dname_pkt_read(m, len, &tp, tgt, &tl) != 0)
				return NULL;
			rd = tgt;
			rdl = tl;
		}
		pos += wirelen;
		if(!(rr = module_rr_new(r, owner, ol, type, cls, ttl, rd,
			rdl)))
			return NULL;
		module_rrlist_append(&ans->an, rr);
	}
	return ans;
}

int
policy_respip_sub(void *arg, struct module_qstate *qs, const uint8_t *qname,
	uint16_t qtype, const struct mesh_answer *ans, struct mesh_answer **out)
{
	const struct policy *p = arg;
	uint8_t q[DNS_HDR_SIZE + DNS_MAX_NAME + 4], m[RESPIP_SUB_MAX];
	struct dns_builder b;
	struct fast_query fq;
	const struct module_rr *rr;
	size_t qlen, mlen;
	*out = NULL;
	if(!p || !p->respip_on || !ans || (qtype != DNS_TYPE_A &&
		qtype != DNS_TYPE_AAAA))
		return 0;
	/* the question and the answer as the wire rules see them: the
	 * sub-query is for no client (no view, no tags) */
	dns_build_init(&b, q, sizeof(q), sizeof(q));
	if(dns_build_header(&b, 0, DNS_FLAG_RD) != 0 ||
		dns_build_question(&b, qname, qtype, qs->qclass) != 0 ||
		(qlen = dns_build_finish(&b)) == 0 ||
		dns_query_parse_fast(q, qlen, &fq) != 0)
		return 0;
	dns_build_init(&b, m, sizeof(m), sizeof(m));
	if(dns_build_header(&b, 0, (uint16_t)(DNS_FLAG_QR | DNS_FLAG_RD |
		DNS_FLAG_RA | (ans->rcode & 0x0f))) != 0 ||
		dns_build_question(&b, qname, qtype, qs->qclass) != 0)
		return 0;
	for(rr = ans->an.first; rr; rr = rr->next)
		if(dns_build_rr(&b, DNS_SEC_ANSWER, rr->owner, rr->type,
			rr->rrclass, rr->ttl, rr->rdata, rr->rdlen) != 0)
			return 0; /* (too big to look at: left as it is) */
	if((mlen = dns_build_finish(&b)) == 0)
		return 0;
	switch(respip_answer_in(p, -1, NULL, NULL, q, &fq, NULL, 1, m, &mlen,
		sizeof(m), NULL)) {
	case POLICY_RESPIP_PASS:
		return 0;
	case POLICY_RESPIP_DROP:
		return 1;
	default:
		*out = respip_sub_read(qs->region, m, mlen);
		return 1;
	}
}

enum policy_respip_result
policy_rpz_cname_answer(const struct policy *p, const struct acl_list *acl,
	const uint8_t *pkt, const struct fast_query *fq,
	const struct netaddr *client, const struct netaddr *local, int tcp,
	uint8_t *ans, size_t *anslen, size_t ansmax, struct policy_stats *st)
{
	uint8_t scratch[RESPIP_SCRATCH], tgt[DNS_MAX_NAME], low[DNS_MAX_NAME];
	const struct local_tags *ct = NULL;
	size_t len = *anslen, pos, i, z, tl = 0, chain_end = 0;
	unsigned an;
	struct rpz_match m;
	const struct rpz *zone = NULL;
	int found = 0, rcode = DNS_RCODE_NOERROR, ede, aa = 1;
	uint16_t flags;
	struct dns_builder b;
	struct rpz_write w;
	if(!p || p->nrpz == 0 || len < DNS_HDR_SIZE || fq->question_end == 0 ||
		fq->question_end + 12 > len)
		return POLICY_RESPIP_PASS;
	an = ((unsigned)ans[6] << 8) | ans[7];
	if(ans[4] != 0 || ans[5] != 1)
		return POLICY_RESPIP_PASS;
	/* the cheap test: the answer's first record is no CNAME */
	pos = fq->question_end;
	if(an == 0 || dname_pkt_read(ans, len, &pos, NULL, NULL) != 0 ||
		pos + 10 > len || ((ans[pos] << 8) | ans[pos + 1]) !=
		DNS_TYPE_CNAME)
		return POLICY_RESPIP_PASS;
	if(p->nacltags || p->niftags) {
		uint32_t ref = 0;
		(void)acl_check_ref(acl, client, &ref);
		ct = policy_client_tags(p, ref, local);
	}
	pos = fq->question_end;
	for(i = 0; i < an && !found; i++) {
		uint16_t type, rdlen;
		if(dname_pkt_read(ans, len, &pos, NULL, NULL) != 0 ||
			pos + 10 > len)
			return POLICY_RESPIP_PASS;
		type = (uint16_t)((ans[pos] << 8) | ans[pos + 1]);
		rdlen = (uint16_t)((ans[pos + 8] << 8) | ans[pos + 9]);
		pos += 10;
		if(pos + rdlen > len)
			return POLICY_RESPIP_PASS;
		if(type != DNS_TYPE_CNAME) {
			if(type != DNS_TYPE_DNAME && type != DNS_TYPE_RRSIG)
				break; /* the chain ends here */
			pos += rdlen;
			continue;
		}
		{
			size_t tp = pos;
			tl = 0;
			if(dname_pkt_read(ans, len, &tp, tgt, &tl) != 0)
				return POLICY_RESPIP_PASS;
		}
		pos += rdlen;
		dname_copy_lower(low, tgt);
		for(z = 0; z < p->nrpz; z++) {
			const struct rpz *rz = p->rpz[z];
			if(p->rpz_tags[z] && !(ct && (ct->tags &
				p->rpz_tags[z])))
				continue;
			if(!rpz_is_enabled(rz) || !rpz_lookup_query(rz, low,
				NULL, &m))
				continue;
			if(m.action == RPZ_ACTION_DISABLED ||
				m.action == RPZ_ACTION_NONE)
				continue;
			zone = rz;
			found = 1;
			chain_end = i + 1;
			if(rpz_get_settings(rz)->log)
				rpz_log(p, z, &m, fq, client);
			if(st && (size_t)m.action < sizeof(st->rpz_action) /
				sizeof(st->rpz_action[0]))
				st->rpz_action[m.action]++;
			break;
		}
	}
	if(!found)
		return POLICY_RESPIP_PASS;
	flags = (uint16_t)((((ans[2] << 8) | ans[3]) & ~(DNS_FLAG_RCODE_MASK |
		DNS_FLAG_AD | DNS_FLAG_TC)) | DNS_FLAG_AA);
	ede = DNS_EDE_FILTERED;
	switch(m.action) {
	case RPZ_ACTION_PASSTHRU:
		return POLICY_RESPIP_PASS;
	case RPZ_ACTION_DROP:
		return POLICY_RESPIP_DROP;
	case RPZ_ACTION_TCP_ONLY:
		if(tcp)
			return POLICY_RESPIP_PASS;
		flags |= DNS_FLAG_TC;
		ede = -1;
		break;
	case RPZ_ACTION_NXDOMAIN:
		rcode = DNS_RCODE_NXDOMAIN;
		ede = DNS_EDE_BLOCKED;
		if(rpz_get_settings(zone)->signal_nxdomain_ra)
			flags &= (uint16_t)~DNS_FLAG_RA;
		break;
	case RPZ_ACTION_NODATA:
		ede = DNS_EDE_BLOCKED;
		break;
	default:
		break;
	}
	/* the chain up to the matched CNAME, then the rule's answer */
	dns_build_init(&b, scratch, sizeof(scratch), fast_query_answer_limit(
		fq, tcp, p->max_udp, sizeof(scratch)));
	if(dns_build_header(&b, fq->id, (uint16_t)(flags | rcode)) != 0 ||
		dns_build_question_raw(&b, pkt, fq->qname_off,
		fq->question_end) != 0)
		return POLICY_RESPIP_PASS;
	if(fq->edns.present)
		dns_build_reserve(&b, dns_opt_size(NULL, 0) + 6);
	pos = fq->question_end;
	for(i = 0; i < chain_end; i++) {
		uint8_t owner[DNS_MAX_NAME], t2[DNS_MAX_NAME];
		size_t ol = 0, tp, t2l = 0;
		uint16_t type, cls, rdlen;
		uint32_t ttl;
		if(dname_pkt_read(ans, len, &pos, owner, &ol) != 0)
			return POLICY_RESPIP_PASS;
		type = (uint16_t)((ans[pos] << 8) | ans[pos + 1]);
		cls = (uint16_t)((ans[pos + 2] << 8) | ans[pos + 3]);
		ttl = dns_read_u32(ans + pos + 4);
		rdlen = (uint16_t)((ans[pos + 8] << 8) | ans[pos + 9]);
		pos += 10;
		tp = pos;
		pos += rdlen;
		if(type != DNS_TYPE_CNAME && type != DNS_TYPE_DNAME)
			continue; /* (an RRSIG: the policy's answer is not
				   * validated) */
		if(dname_pkt_read(ans, len, &tp, t2, &t2l) != 0)
			return POLICY_RESPIP_PASS;
		if(dns_build_rr(&b, DNS_SEC_ANSWER, owner, type, cls, ttl, t2,
			t2l) != 0) {
			dns_build_truncate(&b);
			break;
		}
	}
	memset(&w, 0, sizeof(w));
	w.b = &b;
	w.owner = low;
	w.qtype = fq->qinfo.qtype;
	if(m.action == RPZ_ACTION_LOCAL_DATA) {
		uint8_t last[DNS_MAX_NAME];
		rpz_match_data(&m, rpz_find_cname, &w.cname);
		rpz_match_data(&m, rpz_put_rr, &w);
		if(w.cname && w.n == 1 && w.target &&
			rpz_follow_chain(p, ct, &w, last) == 0)
			aa = 0;
	} else if(m.action == RPZ_ACTION_CNAME) {
		const uint8_t *t = rpz_get_settings(zone)->cname_override;
		(void)dns_build_rr(&b, DNS_SEC_ANSWER, low, DNS_TYPE_CNAME,
			fq->qinfo.qclass, 3600, t, dname_len(t));
		aa = 0;
	}
	/* AA when the policy gives the final answer; a chain that ends in
	 * a CNAME to resolve is answered by whoever answers that (as
	 * Unbound, whose iterator goes on from the target) */
	if(!aa)
		b.flags = (uint16_t)(b.flags & ~DNS_FLAG_AA);
	if(fq->edns.present) {
		struct edns_opt_out o;
		uint8_t eb[8];
		if(p->no_ede)
			ede = -1;
		if(ede >= 0)
			edns_opt_ede(&o, eb, sizeof(eb), (uint16_t)ede, NULL);
		if(dns_build_opt(&b, p->edns_size, rcode, fq->edns.do_bit,
			ede >= 0 ? &o : NULL, ede >= 0 ? 1 : 0) != 0)
			return POLICY_RESPIP_PASS;
	}
	len = dns_build_finish(&b);
	if(len == 0 || len > ansmax)
		return POLICY_RESPIP_DROP;
	memcpy(ans, scratch, len);
	*anslen = len;
	return POLICY_RESPIP_REWRITTEN;
}

int
policy_has_respip(const struct policy *p)
{
	return p && p->respip_on;
}

/* ---- RPZ NSDNAME and NSIP, for the iterator ---- */

/** building the local data of an NSDNAME / NSIP rule into an answer */
struct rpz_ns_write {
	/** the state */
	struct module_qstate *qs;
	/** the answer */
	struct mesh_answer *ans;
	/** 1 when the rule has a CNAME (it answers every type) */
	int cname;
	/** records put */
	int n;
};

/** put the records that answer the question */
static int
rpz_ns_put_rr(void *arg, uint16_t type, uint16_t rrclass, uint32_t ttl,
	const uint8_t *rdata, size_t rdlen)
{
	struct rpz_ns_write *w = arg;
	struct module_rr *rr;
	uint8_t tbuf[DNS_MAX_NAME];
	if(w->cname ? type != DNS_TYPE_CNAME : (type != w->qs->qtype &&
		w->qs->qtype != DNS_TYPE_ANY))
		return 0;
	if(type == DNS_TYPE_CNAME && !(rdata = rpz_cname_target(w->qs->qname,
		rdata, rdlen, tbuf, &rdlen)))
		return 0;
	if(!(rr = module_rr_new(w->qs->region, w->qs->qname,
		w->qs->qname_len, type, rrclass, ttl, rdata, rdlen)))
		return 1;
	module_rrlist_append(&w->ans->an, rr);
	w->n++;
	return 0;
}

/** the answer of an NSDNAME / NSIP rule for a state, in its region, in
 * the form of rpz_answer() (the resolver sets AA on a policy answer): no
 * SOA with NXDOMAIN or NODATA, the policy zone's SOA in the additional
 * section of local data unless minimal-responses.
 * @return it, or NULL (out of memory: the state goes on) */
static struct mesh_answer *
rpz_ns_answer(const struct policy *p, const struct rpz *z,
	const struct rpz_match *m, struct module_qstate *qs)
{
	struct mesh_answer *ans = region_alloc_zero(qs->region, sizeof(*ans));
	struct rpz_ns_write w;
	int soa = 0;
	if(!ans)
		return NULL;
	ans->policy = 1;
	ans->sec = MODULE_SEC_INSECURE;
	ans->rcode = DNS_RCODE_NOERROR;
	ans->ede = DNS_EDE_FILTERED;
	memset(&w, 0, sizeof(w));
	w.qs = qs;
	w.ans = ans;
	switch(m->action) {
	case RPZ_ACTION_NXDOMAIN:
		ans->rcode = DNS_RCODE_NXDOMAIN;
		ans->ede = DNS_EDE_BLOCKED;
		if(rpz_get_settings(z)->signal_nxdomain_ra)
			ans->policy = 3; /* without RA */
		break;
	case RPZ_ACTION_NODATA:
		ans->ede = DNS_EDE_BLOCKED;
		break;
	case RPZ_ACTION_DROP:
		ans->policy = 2;
		ans->ede = -1;
		break;
	case RPZ_ACTION_CNAME: {
		const uint8_t *t = rpz_get_settings(z)->cname_override;
		struct module_rr *rr = module_rr_new(qs->region, qs->qname,
			qs->qname_len, DNS_TYPE_CNAME, qs->qclass, 3600, t,
			dname_len(t));
		if(!rr)
			return NULL;
		module_rrlist_append(&ans->an, rr);
		break;
	}
	default:
		/* local data */
		rpz_match_data(m, rpz_find_cname, &w.cname);
		rpz_match_data(m, rpz_ns_put_rr, &w);
		soa = !p->minimal;
		break;
	}
	if(soa) {
		size_t sl;
		uint32_t ttl;
		const uint8_t *s = rpz_soa(m, &sl, &ttl);
		struct module_rr *rr;
		if(s && (rr = module_rr_new(qs->region, rpz_origin(z),
			dname_len(rpz_origin(z)), DNS_TYPE_SOA, DNS_CLASS_IN, ttl,
			s, sl)))
			module_rrlist_append(&ans->ar, rr);
	}
	return ans;
}

struct mesh_answer *
policy_rpz_ns(void *arg, struct module_qstate *qs, const uint8_t *nsname,
	const struct netaddr *nsaddr, int *pass)
{
	const struct policy *p = arg;
	size_t i, al = 0;
	const uint8_t *a = NULL;
	if(nsaddr && !(a = netaddr_bytes(nsaddr, &al)))
		return NULL;
	for(i = 0; i < p->nrpz; i++) {
		const struct rpz *z = p->rpz[i];
		struct rpz_match m;
		/* a zone with tags: is for its clients only: the state's
		 * clients have the state's tags (the mesh keys states by
		 * them, policy_ns_tags) */
		if((p->rpz_tags[i] && !(qs->tags & p->rpz_tags[i])) ||
			!rpz_is_enabled(z))
			continue;
		if(nsname ? !rpz_lookup_nsdname(z, nsname, &m) :
			!rpz_lookup_nsip(z, a, al, &m))
			continue;
		if(rpz_get_settings(z)->log) {
			char qn[DNS_MAX_NAME_STR], tb[16];
			(void)dname_to_str(qs->qname, qn, sizeof(qn));
			log_info("rpz: applied [%s] %s %s %s %s", p->rpz_logname[i],
				nsname ? "NSDNAME" : "NSIP", qn, dns_type_str(
				qs->qtype, tb, sizeof(tb)), rpz_action_str(
				m.action));
		}
		switch(m.action) {
		case RPZ_ACTION_NONE:
		case RPZ_ACTION_DISABLED:
			continue;
		case RPZ_ACTION_TCP_ONLY:
			/* the client's transport, which the iterator does
			 * not know, decides: resolved, and marked so that a
			 * UDP client gets TC (as Unbound) */
			*pass = 2;
			return NULL;
		case RPZ_ACTION_PASSTHRU:
			*pass = 1;
			return NULL;
		default:
			return rpz_ns_answer(p, z, &m, qs);
		}
	}
	return NULL;
}

int
policy_rpz_qname(void *arg, struct module_qstate *qs, const uint8_t *name)
{
	const struct policy *p = arg;
	size_t i;
	for(i = 0; p && i < p->nrpz; i++) {
		const struct rpz *z = p->rpz[i];
		struct rpz_match m;
		if((p->rpz_tags[i] && !(qs->tags & p->rpz_tags[i])) ||
			!rpz_is_enabled(z) || !rpz_lookup_query(z, name, NULL,
			&m) || m.trigger != RPZ_TRIGGER_QNAME)
			continue;
		switch(m.action) {
		case RPZ_ACTION_NONE:
		case RPZ_ACTION_DISABLED:
			continue;
		case RPZ_ACTION_PASSTHRU:
		case RPZ_ACTION_TCP_ONLY:
			return 0;
		default:
			return 1;
		}
	}
	return 0;
}

uint64_t
policy_ns_tag_mask(const struct policy *p)
{
	uint64_t all = 0;
	size_t i;
	if(!p || (!p->nacltags && !p->niftags))
		return 0;
	for(i = 0; i < p->nrpz; i++)
		if(p->rpz_tags[i] && (p->rpzx[i] || rpz_count(p->rpz[i],
			RPZ_TRIGGER_NSDNAME) || rpz_count(p->rpz[i],
			RPZ_TRIGGER_NSIP)))
			all |= p->rpz_tags[i];
	return all;
}

uint64_t
policy_ns_tags(const struct policy *p, const struct acl_list *acl,
	const struct netaddr *client, const struct netaddr *local,
	uint64_t mask)
{
	uint32_t ref = 0;
	const struct local_tags *ct;
	if(!p || !client || !mask)
		return 0;
	(void)acl_check_ref(acl, client, &ref);
	ct = policy_client_tags(p, ref, local);
	return ct ? ct->tags & mask : 0;
}

int
policy_has_ns_triggers(const struct policy *p)
{
	size_t i;
	if(!p)
		return 0;
	for(i = 0; i < p->nrpz; i++)
		if(p->rpzx[i] || rpz_count(p->rpz[i], RPZ_TRIGGER_NSDNAME) ||
			rpz_count(p->rpz[i], RPZ_TRIGGER_NSIP))
			return 1;
	return 0;
}
