/*
 * iterator/iter_env.c - root hints, forward and stub zones, settings.
 */
#include "config.h"
#include "util/log.h"
/* ldns defines its own ATTR_FORMAT/ATTR_UNUSED with other arities */
#undef ATTR_FORMAT
#undef ATTR_UNUSED
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <ldns/ldns.h>
#include "iterator/iter_env.h"
#include "util/config_file.h"
#include "util/region.h"
#include "dns/name.h"
#include "dns/dns.h"

/** the IANA root servers (root-servers.net), names and IPv4/IPv6 */
static const char *const iter_root_servers[][3] = {
	{"a.root-servers.net.", "198.41.0.4", "2001:503:ba3e::2:30"},
	{"b.root-servers.net.", "170.247.170.2", "2801:1b8:10::b"},
	{"c.root-servers.net.", "192.33.4.12", "2001:500:2::c"},
	{"d.root-servers.net.", "199.7.91.13", "2001:500:2d::d"},
	{"e.root-servers.net.", "192.203.230.10", "2001:500:a8::e"},
	{"f.root-servers.net.", "192.5.5.241", "2001:500:2f::f"},
	{"g.root-servers.net.", "192.112.36.4", "2001:500:12::d0d"},
	{"h.root-servers.net.", "198.97.190.53", "2001:500:1::53"},
	{"i.root-servers.net.", "192.36.148.17", "2001:7fe::53"},
	{"j.root-servers.net.", "192.58.128.30", "2001:503:c27::2:30"},
	{"k.root-servers.net.", "193.0.14.129", "2001:7fd::1"},
	{"l.root-servers.net.", "199.7.83.42", "2001:500:9f::42"},
	{"m.root-servers.net.", "202.12.27.33", "2001:dc3::35"},
	{NULL, NULL, NULL}
};

static int iter_env_nat64_prefix(struct iter_env *env, const char *pfx);

/** parse a presentation name into lower-case wire; @return len or 0 */
static size_t
iter_name_parse(const char *s, uint8_t *out)
{
	ldns_rdf *d = NULL;
	size_t len;
	if(ldns_str2rdf_dname(&d, s) != LDNS_STATUS_OK || !d)
		return 0;
	len = ldns_rdf_size(d);
	if(len > 255) {
		ldns_rdf_deep_free(d);
		return 0;
	}
	memcpy(out, ldns_rdf_data(d), len);
	ldns_rdf_deep_free(d);
	dname_tolower(out);
	return len;
}

struct iter_env *
iter_env_create_default(void)
{
	struct iter_env *env = calloc(1, sizeof(*env));
	int i;
	if(!env)
		return NULL;
	env->qname_min = 1;
	env->dnqlh = 1;
	env->harden_glue = 1;
	env->harden_unknown_additional = 1;
	env->scrub_promiscuous = 1;
	env->scrub_ns = 20;
	env->scrub_cname = 11;
	env->max_restarts = 11; /* ITER_MAX_CNAME */
	env->max_sent = 32;
	env->msg_retry = 5;
	env->do_ip4 = 1;
	env->do_ip6 = 1;
	env->timeout_ms = 376;
	env->max_time_ms = 30000;
	(void)iter_env_parse_tfp(env, "3 2 1 0 0", NULL, 0);
	(void)iter_env_nat64_prefix(env, NULL);
	for(i = 0; iter_root_servers[i][0]; i++) {
		if(iter_env_add_hint(env, iter_root_servers[i][0],
			iter_root_servers[i][1]) < 0 ||
		   iter_env_add_hint(env, iter_root_servers[i][0],
			iter_root_servers[i][2]) < 0) {
			iter_env_delete(env);
			return NULL;
		}
	}
	return env;
}

int
iter_env_parse_tfp(struct iter_env *env, const char *v, char *err,
	size_t errlen)
{
	int vals[ITER_TFP_MAX], n = 0;
	const char *p = v;
	for(;;) {
		char *end;
		long l;
		while(*p == ' ' || *p == '\t')
			p++;
		if(!*p)
			break;
		l = strtol(p, &end, 10);
		if(end == p || (*end && *end != ' ' && *end != '\t') ||
			l < -1 || l > 1000) {
			if(err)
				snprintf(err, errlen, "expected numbers of -1 "
					"or more, separated by spaces, got '%s'",
					v);
			return -1;
		}
		if(n >= ITER_TFP_MAX) {
			if(err)
				snprintf(err, errlen, "at most %d values",
					ITER_TFP_MAX);
			return -1;
		}
		vals[n++] = (int)l;
		p = end;
	}
	if(n == 0) {
		if(err)
			snprintf(err, errlen, "expected at least one number");
		return -1;
	}
	memcpy(env->tfp, vals, sizeof(vals[0]) * (size_t)n);
	env->tfp_count = n;
	return 0;
}

/** set the NAT64 prefix from text (NULL or "": 64:ff9b::/96);
 * @return 0 or -1 (logged) */
static int
iter_env_nat64_prefix(struct iter_env *env, const char *pfx)
{
	struct netblock nb;
	const char *why = "";
	const uint8_t *b;
	size_t n = 0;
	if(!pfx || !pfx[0])
		pfx = "64:ff9b::/96";
	if(netblock_parse(pfx, &nb, 0, &why) != 0 ||
		netaddr_family(&nb.a) != AF_INET6 ||
		!(b = netaddr_bytes(&nb.a, &n)) || n != 16 ||
		(nb.prefix != 32 && nb.prefix != 40 && nb.prefix != 48 &&
		nb.prefix != 56 && nb.prefix != 64 && nb.prefix != 96)) {
		log_err("nat64-prefix: expected an IPv6 prefix of length 32, "
			"40, 48, 56, 64 or 96, got '%s'", pfx);
		return -1;
	}
	memcpy(env->nat64, b, 16);
	env->nat64_len = nb.prefix;
	return 0;
}

/** copy one config_stub into the env */
static int
iter_env_add_cfgzone(struct iter_env *env, struct config_stub *s, int fwd)
{
	struct iter_zone *z = iter_env_add_zone(env, s->name, fwd);
	struct config_addrlist *a;
	struct config_strlist *h;
	if(!z)
		return -1;
	z->first = s->first;
	z->prime = s->prime;
	z->tcp = s->tcp;
	z->no_cache = s->no_cache;
	if(s->no_cache)
		env->no_cache_zones++;
	for(a = s->addrs; a; a = a->next) {
		if(z->num_addrs >= (int)(sizeof(z->addrs)/sizeof(z->addrs[0])))
			break;
		z->addrs[z->num_addrs++] = a->addr;
	}
	for(h = s->hosts; h; h = h->next)
		if(iter_zone_add_host(z, h->str) < 0)
			return -1;
	return 0;
}

struct iter_env *
iter_env_create(struct config_file *cfg)
{
	struct iter_env *env = iter_env_create_default();
	struct config_stub *s;
	struct config_netblocklist *nb;
	struct config_strlist *sl;
	if(!env || !cfg)
		return env;
	env->qname_min = cfg->qname_minimisation;
	env->qname_min_strict = cfg->qname_minimisation_strict;
	env->dnqlh = cfg->do_not_query_localhost;
	env->harden_glue = cfg->harden_glue;
	env->scrub_promiscuous = cfg->iter_scrub_promiscuous;
	env->harden_unverified_glue = cfg->harden_unverified_glue;
	env->no_dnssec_lame = cfg->disable_dnssec_lame_check;
	env->harden_unknown_additional = cfg->harden_unknown_additional;
	env->scrub_ns = cfg->iter_scrub_ns;
	env->scrub_cname = cfg->iter_scrub_cname;
	env->max_restarts = cfg->max_query_restarts;
	env->max_sent = cfg->max_sent_count;
	env->msg_retry = cfg->outbound_msg_retry;
	/* do-udp: no serves no UDP and asks over TCP too (as Unbound),
	 * unless udp-upstream-without-downstream keeps UDP upstream */
	env->tcp_upstream = cfg->tcp_upstream || (!cfg->do_udp &&
		!cfg->udp_upstream_without_downstream);
	env->do_nat64 = cfg->do_nat64;
	if(iter_env_nat64_prefix(env, cfg->nat64_prefix ? cfg->nat64_prefix :
		cfg->dns64_prefix) < 0)
		goto fail;
	if(cfg->target_fetch_policy) {
		char why[128];
		if(iter_env_parse_tfp(env, cfg->target_fetch_policy, why,
			sizeof(why)) < 0) {
			log_err("target-fetch-policy: %s", why);
			goto fail;
		}
	}
	env->minimal = cfg->minimal_responses;
	env->do_ip4 = cfg->do_ip4;
	env->do_ip6 = cfg->do_ip6;
	/* (both set: IPv6, as Unbound checks prefer-ip6 first) */
	env->prefer_family = cfg->prefer_ip6 ? AF_INET6 :
		cfg->prefer_ip4 ? AF_INET : 0;
	for(sl = cfg->root_hints; sl; sl = sl->next) {
		/* the file of each class replaces the built-in hints of
		 * class IN; hints given by an earlier file stay */
		if(sl->str[0] && iter_env_read_hints(env, sl->str) < 0)
			goto fail;
	}
	for(s = cfg->stubs; s; s = s->next)
		if(iter_env_add_cfgzone(env, s, 0) < 0)
			goto fail;
	for(s = cfg->forwards; s; s = s->next)
		if(iter_env_add_cfgzone(env, s, 1) < 0)
			goto fail;
	for(nb = cfg->private_addresses; nb; nb = nb->next) {
		struct iter_private *p = calloc(1, sizeof(*p));
		if(!p)
			goto fail;
		p->block = nb->block;
		p->next = env->priv;
		env->priv = p;
	}
	for(nb = cfg->do_not_query_addresses; nb; nb = nb->next) {
		struct iter_private *p = calloc(1, sizeof(*p));
		if(!p)
			goto fail;
		p->block = nb->block;
		p->next = env->dnq;
		env->dnq = p;
	}
	for(sl = cfg->private_domains; sl; sl = sl->next)
		if(iter_env_add_privdom(env, sl->str) < 0)
			goto fail;
	return env;
fail:
	iter_env_delete(env);
	return NULL;
}

/** free a list of hints */
static void
hint_list_free(struct iter_hint *h)
{
	while(h) {
		struct iter_hint *n = h->next;
		free(h);
		h = n;
	}
}

void
iter_env_clear_hints(struct iter_env *env)
{
	hint_list_free(env->hints);
	env->hints = NULL;
	hint_list_free(env->class_hints);
	env->class_hints = NULL;
}

void
iter_env_delete(struct iter_env *env)
{
	if(!env)
		return;
	iter_env_clear_hints(env);
	while(env->zones) {
		struct iter_zone *z = env->zones;
		env->zones = z->next;
		free(z);
	}
	while(env->priv) {
		struct iter_private *p = env->priv;
		env->priv = p->next;
		free(p);
	}
	while(env->privdom) {
		struct iter_privdom *p = env->privdom;
		env->privdom = p->next;
		free(p);
	}
	while(env->dnq) {
		struct iter_private *p = env->dnq;
		env->dnq = p->next;
		free(p);
	}
	free(env);
}

/** append a hint (wire name, optional address, class) to a list, to
 * keep file order; @return 0 or -1 */
static int
hint_list_add(struct iter_hint **list, const uint8_t *name, size_t len,
	const struct netaddr *a, uint16_t rrclass, int from_file)
{
	struct iter_hint *h = calloc(1, sizeof(*h)), **pp;
	if(!h)
		return -1;
	memcpy(h->name, name, len);
	if(a) {
		h->addr = *a;
		h->has_addr = 1;
	}
	h->rrclass = rrclass;
	h->from_file = from_file;
	for(pp = list; *pp; pp = &(*pp)->next)
		;
	*pp = h;
	return 0;
}

/** add a class-IN hint from wire name and optional address */
static int
iter_env_add_hint_wire(struct iter_env *env, const uint8_t *name,
	size_t len, const struct netaddr *a)
{
	return hint_list_add(&env->hints, name, len, a, DNS_CLASS_IN, 0);
}

/** @return the first hint of a class, or NULL */
static const struct iter_hint *
iter_env_class_hint(const struct iter_env *env, uint16_t rrclass)
{
	const struct iter_hint *h;
	if(rrclass == DNS_CLASS_IN)
		return env->hints;
	for(h = env->class_hints; h; h = h->next)
		if(h->rrclass == rrclass)
			return h;
	return NULL;
}

/** remove the hints of a class */
static void
iter_env_drop_class(struct iter_env *env, uint16_t rrclass)
{
	struct iter_hint **pp = &env->class_hints;
	if(rrclass == DNS_CLASS_IN) {
		hint_list_free(env->hints);
		env->hints = NULL;
		return;
	}
	while(*pp) {
		struct iter_hint *h = *pp;
		if(h->rrclass == rrclass) {
			*pp = h->next;
			free(h);
		} else	pp = &h->next;
	}
}

uint16_t
iter_env_next_class(const struct iter_env *env, uint16_t after)
{
	const struct iter_hint *h;
	uint32_t best = 0x10000;
	if(after < DNS_CLASS_IN && env->hints)
		return DNS_CLASS_IN;
	for(h = env->class_hints; h; h = h->next)
		if(h->rrclass > after && h->rrclass < best)
			best = h->rrclass;
	return best == 0x10000 ? 0 : (uint16_t)best;
}

int
iter_env_add_hint(struct iter_env *env, const char *name, const char *addr)
{
	uint8_t wire[256];
	size_t len = iter_name_parse(name, wire);
	struct netaddr a;
	const char *err = NULL;
	if(!len)
		return -1;
	if(addr) {
		if(netaddr_parse(addr, 53, &a, &err) < 0)
			return -1;
		return iter_env_add_hint_wire(env, wire, len, &a);
	}
	return iter_env_add_hint_wire(env, wire, len, NULL);
}

int
iter_env_read_hints(struct iter_env *env, const char *file)
{
	FILE *in = fopen(file, "r");
	ldns_zone *z = NULL;
	struct iter_hint *fresh = NULL, *h;
	int line = 0, skipped = 0;
	uint16_t warned = 0;
	size_t i;
	if(!in) {
		log_warn("could not open root-hints %s", file);
		return -1;
	}
	if(ldns_zone_new_frm_fp_l(&z, in, NULL, 3600, LDNS_RR_CLASS_IN,
		&line) != LDNS_STATUS_OK) {
		log_err("%s:%d: could not parse root-hints", file, line);
		fclose(in);
		return -1;
	}
	fclose(in);
	/* NS names first, then their addresses (of the NS record's class) */
	for(i = 0; i < ldns_rr_list_rr_count(ldns_zone_rrs(z)); i++) {
		ldns_rr *rr = ldns_rr_list_rr(ldns_zone_rrs(z), i);
		uint16_t c = (uint16_t)ldns_rr_get_class(rr);
		const struct iter_hint *old;
		ldns_rdf *t;
		uint8_t wire[256];
		size_t j, len;
		int found = 0;
		if(ldns_rr_get_type(rr) != LDNS_RR_TYPE_NS)
			continue;
		t = ldns_rr_rdf(rr, 0);
		if(!t || ldns_rdf_size(t) > 255)
			continue;
		if(c == DNS_CLASS_ANY || c == DNS_CLASS_NONE) {
			/* a query class, no class of data (RFC 6895 3.2): a
			 * class-ANY question would be asked in it again */
			log_err("root-hints %s: an NS record of class %s: "
				"hints are of a class of data (IN, CH, ...)",
				file, c == DNS_CLASS_ANY ? "ANY" : "NONE");
			goto fail;
		}
		old = iter_env_class_hint(env, c);
		if(old && old->from_file) {
			/* an earlier root-hints file gave this class */
			if(warned != c)
				log_warnx("root-hints %s: second hints for class "
					"%u ignored", file, (unsigned)c);
			warned = c;
			skipped++;
			continue;
		}
		len = ldns_rdf_size(t);
		memcpy(wire, ldns_rdf_data(t), len);
		dname_tolower(wire);
		for(j = 0; j < ldns_rr_list_rr_count(ldns_zone_rrs(z)); j++) {
			ldns_rr *a = ldns_rr_list_rr(ldns_zone_rrs(z), j);
			struct netaddr na;
			ldns_rdf *ad;
			if(ldns_rr_get_type(a) != LDNS_RR_TYPE_A &&
			   ldns_rr_get_type(a) != LDNS_RR_TYPE_AAAA)
				continue;
			if((uint16_t)ldns_rr_get_class(a) != c ||
				ldns_dname_compare(ldns_rr_owner(a), t) != 0)
				continue;
			ad = ldns_rr_rdf(a, 0);
			if(!ad)
				continue;
			if(iter_addr_from_rdata(&na, (uint16_t)
				ldns_rr_get_type(a), ldns_rdf_data(ad),
				ldns_rdf_size(ad)) < 0)
				continue;
			if(hint_list_add(&fresh, wire, len, &na, c, 1) < 0)
				goto fail;
			found = 1;
		}
		if(!found && hint_list_add(&fresh, wire, len, NULL, c, 1) < 0)
			goto fail;
	}
	ldns_zone_deep_free(z);
	if(!fresh) {
		if(skipped)
			return 0;
		log_err("root-hints %s: no NS records", file);
		return -1;
	}
	/* the file's classes replace what the env held of them (the
	 * built-in class IN hints; a class an earlier file gave was
	 * skipped above) */
	for(h = fresh; h; h = h->next)
		iter_env_drop_class(env, h->rrclass);
	while(fresh) {
		struct iter_hint **pp;
		h = fresh;
		fresh = h->next;
		h->next = NULL;
		for(pp = h->rrclass == DNS_CLASS_IN ? &env->hints :
			&env->class_hints; *pp; pp = &(*pp)->next)
			;
		*pp = h;
	}
	return 0;
fail:
	hint_list_free(fresh);
	ldns_zone_deep_free(z);
	return -1;
}

struct iter_zone *
iter_env_add_zone(struct iter_env *env, const char *name, int is_forward)
{
	uint8_t wire[256];
	size_t len = iter_name_parse(name, wire);
	struct iter_zone *z;
	if(!len)
		return NULL;
	for(z = env->zones; z; z = z->next)
		if(z->len == len && memcmp(z->name, wire, len) == 0 &&
			z->is_forward == is_forward)
			return z;
	z = calloc(1, sizeof(*z));
	if(!z)
		return NULL;
	memcpy(z->name, wire, len);
	z->len = len;
	z->is_forward = is_forward;
	z->next = env->zones;
	env->zones = z;
	return z;
}

int
iter_zone_add_addr(struct iter_zone *z, const char *addr)
{
	const char *err = NULL;
	if(z->num_addrs >= (int)(sizeof(z->addrs)/sizeof(z->addrs[0])))
		return -1;
	if(netaddr_parse(addr, 53, &z->addrs[z->num_addrs], &err) < 0)
		return -1;
	z->num_addrs++;
	return 0;
}

int
iter_zone_add_host(struct iter_zone *z, const char *host)
{
	if(z->num_hosts >= (int)(sizeof(z->hosts)/sizeof(z->hosts[0])))
		return -1;
	if(!iter_name_parse(host, z->hosts[z->num_hosts]))
		return -1;
	z->num_hosts++;
	return 0;
}

int
iter_env_add_private(struct iter_env *env, const char *block)
{
	struct iter_private *p = calloc(1, sizeof(*p));
	const char *err = NULL;
	if(!p)
		return -1;
	if(netblock_parse(block, &p->block, 1, &err) < 0) {
		free(p);
		return -1;
	}
	p->next = env->priv;
	env->priv = p;
	return 0;
}

int
iter_env_add_privdom(struct iter_env *env, const char *name)
{
	struct iter_privdom *p = calloc(1, sizeof(*p));
	if(!p)
		return -1;
	if(!iter_name_parse(name, p->name)) {
		free(p);
		return -1;
	}
	p->next = env->privdom;
	env->privdom = p;
	return 0;
}

struct iter_zone *
iter_env_find_zone(struct iter_env *env, const uint8_t *qname)
{
	struct iter_zone *z, *best = NULL;
	int bestlabs = -1;
	for(z = env->zones; z; z = z->next) {
		int labs;
		if(!dname_is_subdomain(qname, z->name))
			continue;
		labs = dname_count_labels(z->name);
		/* a stub wins over a forward at the same name, as the
		 * more specific configuration */
		if(labs > bestlabs || (labs == bestlabs && best &&
			best->is_forward && !z->is_forward)) {
			best = z;
			bestlabs = labs;
		}
	}
	return best;
}

struct delegpt *
delegpt_create(struct region *r, const uint8_t *name)
{
	struct delegpt *dp = region_alloc_zero(r, sizeof(*dp));
	size_t len = dname_len(name);
	if(!dp)
		return NULL;
	dp->name = region_memdup(r, name, len);
	if(!dp->name)
		return NULL;
	dname_tolower(dp->name);
	dp->len = len;
	return dp;
}

struct delegpt_ns *
delegpt_find_ns(struct delegpt *dp, const uint8_t *name)
{
	struct delegpt_ns *ns;
	for(ns = dp->nslist; ns; ns = ns->next)
		if(dname_equal(ns->name, name))
			return ns;
	return NULL;
}

struct delegpt_ns *
delegpt_add_ns(struct delegpt *dp, struct region *r, const uint8_t *name)
{
	struct delegpt_ns *ns = delegpt_find_ns(dp, name), **pp;
	size_t len = dname_len(name);
	if(ns)
		return ns;
	ns = region_alloc_zero(r, sizeof(*ns));
	if(!ns)
		return NULL;
	ns->name = region_memdup(r, name, len);
	if(!ns->name)
		return NULL;
	dname_tolower(ns->name);
	ns->len = len;
	for(pp = &dp->nslist; *pp; pp = &(*pp)->next)
		;
	*pp = ns;
	return ns;
}

int
delegpt_add_addr(struct delegpt *dp, struct region *r,
	const struct netaddr *a)
{
	struct delegpt_addr *da, **pp;
	for(da = dp->addrs; da; da = da->next)
		if(netaddr_cmp(&da->addr, a) == 0)
			return 1;
	da = region_alloc_zero(r, sizeof(*da));
	if(!da)
		return -1;
	da->addr = *a;
	for(pp = &dp->addrs; *pp; pp = &(*pp)->next)
		;
	*pp = da;
	return 0;
}

struct delegpt *
iter_env_root_dp(struct iter_env *env, struct region *r)
{
	return iter_env_class_root_dp(env, DNS_CLASS_IN, r);
}

struct delegpt *
iter_env_class_root_dp(struct iter_env *env, uint16_t rrclass,
	struct region *r)
{
	static const uint8_t root[1] = {0};
	struct delegpt *dp;
	struct iter_hint *h;
	if(!iter_env_class_hint(env, rrclass))
		return NULL;
	dp = delegpt_create(r, root);
	if(!dp)
		return NULL;
	for(h = rrclass == DNS_CLASS_IN ? env->hints : env->class_hints; h;
		h = h->next) {
		if(h->rrclass != rrclass)
			continue;
		struct delegpt_ns *ns = delegpt_add_ns(dp, r, h->name);
		if(!ns)
			return NULL;
		if(h->has_addr) {
			if(iter_addr_family_ok(env, &h->addr))
				ns->resolved = 1;
			if(delegpt_add_addr(dp, r, &h->addr) < 0)
				return NULL;
		}
	}
	return dp;
}

struct delegpt *
iter_env_zone_dp(struct iter_zone *z, struct region *r)
{
	struct delegpt *dp = delegpt_create(r, z->name);
	int i;
	if(!dp)
		return NULL;
	dp->is_forward = z->is_forward;
	dp->is_stub = !z->is_forward;
	dp->first = z->first;
	dp->tcp = z->tcp;
	dp->no_cache = z->no_cache;
	for(i = 0; i < z->num_addrs; i++)
		if(delegpt_add_addr(dp, r, &z->addrs[i]) < 0)
			return NULL;
	for(i = 0; i < z->num_hosts; i++)
		if(!delegpt_add_ns(dp, r, z->hosts[i]))
			return NULL;
	return dp;
}

/** byte i (0-3) of an IPv4 address embedded in a NAT64 prefix of plen
 * bits: RFC 6052 2.2, bits 64 to 71 (byte 8) are left zero */
static int
nat64_pos(int plen, int i)
{
	int pos = plen / 8 + i;
	if(plen / 8 <= 8 && pos >= 8)
		pos++;
	return pos;
}

int
iter_nat64_addr(const struct iter_env *env, const struct netaddr *v4,
	struct netaddr *out)
{
	const uint8_t *b;
	uint8_t a6[16];
	size_t n = 0;
	int i;
	if(netaddr_family(v4) != AF_INET || !(b = netaddr_bytes(v4, &n)) ||
		n != 4)
		return -1;
	memcpy(a6, env->nat64, 16);
	for(i = 0; i < 4; i++)
		a6[nat64_pos(env->nat64_len, i)] = b[i];
	if(iter_addr_from_rdata(out, DNS_TYPE_AAAA, a6, 16) < 0)
		return -1;
	netaddr_set_port(out, netaddr_port(v4));
	return 0;
}

/** with do-nat64, the IPv4 address an IPv6 address inside the NAT64
 * prefix embeds; @return 0, or -1 when it is not inside */
static int
nat64_extract(const struct iter_env *env, const struct netaddr *a6,
	struct netaddr *out)
{
	const uint8_t *b;
	uint8_t v4[4];
	size_t n = 0;
	int i, full = env->nat64_len / 8;
	if(netaddr_family(a6) != AF_INET6 || !(b = netaddr_bytes(a6, &n)) ||
		n != 16 || memcmp(b, env->nat64, (size_t)full) != 0)
		return -1;
	for(i = 0; i < 4; i++)
		v4[i] = b[nat64_pos(env->nat64_len, i)];
	return iter_addr_from_rdata(out, DNS_TYPE_A, v4, 4);
}

int
iter_addr_family_ok(const struct iter_env *env, const struct netaddr *a)
{
	if(netaddr_family(a) == AF_INET)
		return env->do_ip4 || env->do_nat64;
	if(netaddr_family(a) == AF_INET6)
		return env->do_ip6;
	return 0;
}

int
iter_addr_allowed(struct iter_env *env, const struct netaddr *a)
{
	struct iter_private *p;
	struct netaddr v4;
	if(env->do_nat64) {
		/* an IPv4 server is asked over IPv6; an IPv6 address in
		 * the prefix is the IPv4 one it embeds */
		if(netaddr_family(a) == AF_INET && !env->do_ip4) {
			if(!env->do_ip6)
				return 0;
		} else if(nat64_extract(env, a, &v4) == 0)
			a = &v4;
		if(netaddr_family(a) == AF_INET) {
			if(env->dnqlh && netaddr_is_loopback(a))
				return 0;
			for(p = env->dnq; p; p = p->next)
				if(netblock_match(&p->block, a))
					return 0;
			return 1;
		}
	}
	if(env->dnqlh && netaddr_is_loopback(a))
		return 0;
	for(p = env->dnq; p; p = p->next)
		if(netblock_match(&p->block, a))
			return 0;
	if(!env->do_ip4 && netaddr_family(a) == AF_INET)
		return 0;
	if(!env->do_ip6 && netaddr_family(a) == AF_INET6)
		return 0;
	return 1;
}

int
iter_addr_private(struct iter_env *env, const struct netaddr *a)
{
	struct iter_private *p;
	for(p = env->priv; p; p = p->next)
		if(netblock_match(&p->block, a))
			return 1;
	return 0;
}

int
iter_name_privdom(struct iter_env *env, const uint8_t *name)
{
	struct iter_privdom *p;
	for(p = env->privdom; p; p = p->next)
		if(dname_is_subdomain(name, p->name))
			return 1;
	return 0;
}

int
iter_addr_from_rdata(struct netaddr *na, uint16_t type, const uint8_t *d,
	size_t len)
{
	memset(na, 0, sizeof(*na));
	if(type == DNS_TYPE_A && len == 4) {
		struct sockaddr_in s4;
		memset(&s4, 0, sizeof(s4));
		s4.sin_family = AF_INET;
		s4.sin_port = htons(53);
		memcpy(&s4.sin_addr, d, 4);
		memcpy(&na->addr, &s4, sizeof(s4));
		na->len = (socklen_t)sizeof(s4);
		return 0;
	}
	if(type == DNS_TYPE_AAAA && len == 16) {
		struct sockaddr_in6 s6;
		memset(&s6, 0, sizeof(s6));
		s6.sin6_family = AF_INET6;
		s6.sin6_port = htons(53);
		memcpy(&s6.sin6_addr, d, 16);
		memcpy(&na->addr, &s6, sizeof(s6));
		na->len = (socklen_t)sizeof(s6);
		return 0;
	}
	return -1;
}
