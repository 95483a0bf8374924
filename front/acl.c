/*
 * front/acl.c - access control lists.
 *
 * See acl.h. While the list is being built, entries sit in one array in
 * the order given. acl_finish() appends the localhost defaults, sorts by
 * (family, prefix, masked address, default-last, order given), drops
 * duplicates (the first given wins, a default never beats a line), and
 * then lays out, per family, one group per prefix length, longest first,
 * each a sorted array of masked addresses (as 128-bit numbers, two 64-bit
 * words) with their actions. A check masks the client address to each
 * group's length in turn and binary searches the group; the first hit is
 * the longest match.
 */
#include "config.h"
#include "front/acl.h"
#include "dns/dns.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/config_options.h"
#include <sys/socket.h>
#include <netinet/in.h>
#include <ifaddrs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** one netblock with its action (build time) */
struct acl_item {
	/** address bytes, host bits cleared (4 used for IPv4) */
	uint8_t addr[16];
	/** 4 or 16 */
	uint8_t alen;
	/** prefix length */
	uint8_t prefix;
	/** 0 for an access-control line, 1 for a netblock made by a tag
	 * line alone (allow), 2 for a built-in default */
	uint8_t is_default;
	/** the action */
	enum config_acl_action action;
	/** the client-context number (acl_add_ref), 0 for none */
	uint32_t ref;
	/** order given */
	size_t seq;
};

/** an address as a 128-bit number (IPv4 in the low 32 bits) */
struct acl_key {
	/** high 64 bits */
	uint64_t hi;
	/** low 64 bits */
	uint64_t lo;
};

/** all netblocks of one prefix length in one family */
struct acl_group {
	/** the prefix length */
	int prefix;
	/** the mask for that prefix, as a key */
	struct acl_key mask;
	/** first entry (into the family's keys and actions) */
	size_t start;
	/** number of entries */
	size_t n;
};

/** the lookup structure of one family */
struct acl_family {
	/** groups, longest prefix first */
	struct acl_group groups[129];
	/** number of groups */
	int ngroups;
	/** the masked addresses, grouped, ascending within each group */
	struct acl_key *keys;
	/** the action of each key */
	enum config_acl_action *acts;
	/** the client-context number of each key, or NULL when no entry
	 * has one */
	uint32_t *refs;
	/** number of entries */
	size_t n;
};

/** an interface-action: line, resolved (an interface name gives one
 * entry per address of the interface) */
struct acl_iface {
	/** the listening address and port it names */
	struct netaddr addr;
	/** its action */
	enum config_acl_action action;
};

/** the number of actions (acl_words) */
#define ACL_NUM_ACTIONS 8

/** an access-control list */
struct acl_list {
	/** entries being built (freed by finish) */
	struct acl_item *build;
	/** number of build entries */
	size_t nbuild;
	/** allocated length of build */
	size_t capbuild;
	/** 1 once finished */
	int finished;
	/** IPv4 lookup */
	struct acl_family v4;
	/** IPv6 lookup */
	struct acl_family v6;
	/** what a client address no netblock contains gets: refuse, or
	 * the interface-action of the listening point (a variant) */
	enum config_acl_action miss;
	/** 1 for a variant: the lookup arrays are borrowed from the list
	 * that owns the variant, not freed with it */
	int borrowed;
	/** the interface-action: lines, resolved (NULL when none) */
	struct acl_iface *ifs;
	/** number of ifs */
	size_t nifs;
	/** per action, the variant whose miss is that action (made for the
	 * actions interface-action lines name, except refuse) */
	struct acl_list *variant[ACL_NUM_ACTIONS];
};

/** the action words, indexed by enum config_acl_action */
static const char *const acl_words[] = {
	"deny", "refuse", "allow", "allow_setrd", "allow_snoop",
	"deny_non_local", "refuse_non_local", "allow_cookie"
};

/** write an error message */
static void __attribute__((format(printf, 3, 4)))
acl_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if(!err || errlen == 0)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

int
acl_action_from_str(const char *s, enum config_acl_action *out)
{
	size_t i;
	if(!s)
		return -1;
	for(i = 0; i < sizeof(acl_words) / sizeof(acl_words[0]); i++) {
		if(strcmp(s, acl_words[i]) == 0) {
			*out = (enum config_acl_action)i;
			return 0;
		}
	}
	return -1;
}

const char *
acl_action_str(enum config_acl_action a)
{
	if((size_t)a >= sizeof(acl_words) / sizeof(acl_words[0]))
		return "unknown";
	return acl_words[a];
}

struct acl_list *
acl_create(void)
{
	struct acl_list *acl = calloc(1, sizeof(struct acl_list));
	if(acl)
		acl->miss = ACL_REFUSE;
	return acl;
}

void
acl_delete(struct acl_list *acl)
{
	size_t i;
	if(!acl)
		return;
	for(i = 0; i < ACL_NUM_ACTIONS; i++)
		free(acl->variant[i]);
	free(acl->ifs);
	free(acl->build);
	if(acl->borrowed) {
		free(acl);
		return;
	}
	free(acl->v4.keys);
	free(acl->v4.acts);
	free(acl->v4.refs);
	free(acl->v6.keys);
	free(acl->v6.acts);
	free(acl->v6.refs);
	free(acl);
}

/** clear the bits past prefix */
static void
acl_mask(uint8_t *a, size_t alen, int prefix)
{
	size_t i;
	for(i = 0; i < alen; i++) {
		int bits = prefix - (int)(i * 8);
		if(bits >= 8)
			continue;
		if(bits <= 0)
			a[i] = 0;
		else
			a[i] &= (uint8_t)(0xff << (8 - bits));
	}
}

/** add an item. @return 0 or -1 */
static int
acl_add_item(struct acl_list *acl, const struct netblock *nb,
	enum config_acl_action action, int is_default, uint32_t ref)
{
	struct acl_item *it;
	const uint8_t *b;
	size_t n;
	if(!acl || acl->finished || !nb)
		return -1;
	if((size_t)action >= sizeof(acl_words) / sizeof(acl_words[0]))
		return -1;
	b = netaddr_bytes(&nb->a, &n);
	if(!b || (n != 4 && n != 16) || nb->prefix < 0 ||
		nb->prefix > (int)n * 8)
		return -1;
	if(acl->nbuild == acl->capbuild) {
		size_t nc = acl->capbuild ? acl->capbuild * 2 : 16;
		struct acl_item *ni = realloc(acl->build, nc * sizeof(*ni));
		if(!ni)
			return -1;
		acl->build = ni;
		acl->capbuild = nc;
	}
	it = &acl->build[acl->nbuild];
	memset(it, 0, sizeof(*it));
	memcpy(it->addr, b, n);
	it->alen = (uint8_t)n;
	it->prefix = (uint8_t)nb->prefix;
	acl_mask(it->addr, n, nb->prefix);
	it->is_default = (uint8_t)is_default;
	it->action = action;
	it->ref = ref;
	it->seq = acl->nbuild;
	acl->nbuild++;
	return 0;
}

int
acl_add(struct acl_list *acl, const struct netblock *nb,
	enum config_acl_action action)
{
	return acl_add_item(acl, nb, action, 0, 0);
}

int
acl_add_ref(struct acl_list *acl, const struct netblock *nb, uint32_t ref)
{
	if(ref == 0)
		return -1;
	return acl_add_item(acl, nb, ACL_ALLOW, 1, ref);
}

int
acl_add_str(struct acl_list *acl, const char *netblock, const char *action,
	char *err, size_t errlen)
{
	struct netblock nb;
	enum config_acl_action a;
	const char *why = NULL;
	if(!netblock || netblock_parse(netblock, &nb, 1, &why) != 0) {
		acl_err(err, errlen, "bad access-control netblock '%s': %s",
			netblock ? netblock : "", why ? why : "syntax");
		return -1;
	}
	if(acl_action_from_str(action, &a) != 0) {
		acl_err(err, errlen, "bad access-control action '%s'",
			action ? action : "");
		return -1;
	}
	if(acl_add(acl, &nb, a) != 0) {
		acl_err(err, errlen, "cannot add access-control %s %s",
			netblock, action);
		return -1;
	}
	return 0;
}

/** sort: family, prefix (longest first), address, lines before defaults,
 * order given */
static int
acl_item_cmp(const void *x, const void *y)
{
	const struct acl_item *a = x, *b = y;
	int c;
	if(a->alen != b->alen)
		return a->alen < b->alen ? -1 : 1;
	if(a->prefix != b->prefix)
		return a->prefix > b->prefix ? -1 : 1;
	c = memcmp(a->addr, b->addr, a->alen);
	if(c != 0)
		return c;
	if(a->is_default != b->is_default)
		return a->is_default < b->is_default ? -1 : 1;
	if(a->seq != b->seq)
		return a->seq < b->seq ? -1 : 1;
	return 0;
}

/** address bytes (4 or 16, network order) as a key */
static void
acl_key_from(struct acl_key *k, const uint8_t *a, size_t alen)
{
	size_t i;
	k->hi = k->lo = 0;
	if(alen == 4) {
		k->lo = ((uint64_t)a[0] << 24) | ((uint64_t)a[1] << 16) |
			((uint64_t)a[2] << 8) | (uint64_t)a[3];
		return;
	}
	for(i = 0; i < 8; i++)
		k->hi = (k->hi << 8) | a[i];
	for(i = 8; i < 16; i++)
		k->lo = (k->lo << 8) | a[i];
}

/** the mask of a prefix length in a family */
static void
acl_key_mask(struct acl_key *m, size_t alen, int prefix)
{
	uint8_t b[16];
	memset(b, 0xff, sizeof(b));
	acl_mask(b, alen, prefix);
	acl_key_from(m, b, alen);
}

/** lay out one family from the sorted, deduplicated items */
static int
acl_layout(struct acl_family *f, const struct acl_item *items, size_t n)
{
	size_t i;
	f->keys = NULL;
	f->acts = NULL;
	f->refs = NULL;
	f->n = 0;
	f->ngroups = 0;
	if(n == 0)
		return 0;
	f->keys = malloc(n * sizeof(*f->keys));
	f->acts = malloc(n * sizeof(*f->acts));
	if(!f->keys || !f->acts)
		return -1;
	f->n = n;
	for(i = 0; i < n; i++)
		if(items[i].ref)
			break;
	if(i < n && !(f->refs = calloc(n, sizeof(*f->refs))))
		return -1;
	for(i = 0; i < n; i++) {
		if(f->refs)
			f->refs[i] = items[i].ref;
		acl_key_from(&f->keys[i], items[i].addr, items[i].alen);
		f->acts[i] = items[i].action;
		if(f->ngroups == 0 ||
			f->groups[f->ngroups - 1].prefix != items[i].prefix) {
			struct acl_group *g = &f->groups[f->ngroups++];
			g->prefix = items[i].prefix;
			acl_key_mask(&g->mask, items[i].alen, items[i].prefix);
			g->start = i;
			g->n = 0;
		}
		f->groups[f->ngroups - 1].n++;
	}
	return 0;
}

int
acl_finish(struct acl_list *acl, char *err, size_t errlen)
{
	static const char *const defaults[] = {
		"127.0.0.0/8", "::1", "::ffff:127.0.0.1", NULL
	};
	size_t i, out, n4;
	if(!acl || acl->finished) {
		acl_err(err, errlen, "access-control list already finished");
		return -1;
	}
	for(i = 0; defaults[i]; i++) {
		struct netblock nb;
		if(netblock_parse(defaults[i], &nb, 1, NULL) != 0 ||
			acl_add_item(acl, &nb, ACL_ALLOW, 2, 0) != 0) {
			acl_err(err, errlen, "out of memory");
			return -1;
		}
	}
	qsort(acl->build, acl->nbuild, sizeof(*acl->build), acl_item_cmp);
	out = 0;
	for(i = 0; i < acl->nbuild; i++) {
		struct acl_item *it = &acl->build[i];
		if(out > 0 && acl->build[out - 1].alen == it->alen &&
			acl->build[out - 1].prefix == it->prefix &&
			memcmp(acl->build[out - 1].addr, it->addr,
			it->alen) == 0) {
			/* a tag line's context joins the access-control
			 * line of the same netblock */
			if(!acl->build[out - 1].ref)
				acl->build[out - 1].ref = it->ref;
			if(!it->is_default) {
				struct netblock nb;
				char buf[NETADDR_STRLEN + 8];
				memset(&nb, 0, sizeof(nb));
				if(it->alen == 4) {
					struct sockaddr_in *s = (struct
						sockaddr_in *)&nb.a.addr;
					s->sin_family = AF_INET;
					memcpy(&s->sin_addr, it->addr, 4);
					nb.a.len = sizeof(*s);
				} else {
					struct sockaddr_in6 *s = (struct
						sockaddr_in6 *)&nb.a.addr;
					s->sin6_family = AF_INET6;
					memcpy(&s->sin6_addr, it->addr, 16);
					nb.a.len = sizeof(*s);
				}
				nb.prefix = it->prefix;
				log_warnx("duplicate access-control %s "
					"ignored", netblock_str(&nb, buf,
					sizeof(buf)));
			}
			continue;
		}
		acl->build[out++] = *it;
	}
	for(n4 = 0; n4 < out && acl->build[n4].alen == 4; n4++)
		;
	if(acl_layout(&acl->v4, acl->build, n4) != 0 ||
		acl_layout(&acl->v6, acl->build + n4, out - n4) != 0) {
		acl_err(err, errlen, "out of memory");
		return -1;
	}
	free(acl->build);
	acl->build = NULL;
	acl->nbuild = acl->capbuild = 0;
	acl->finished = 1;
	return 0;
}

/** add one resolved interface-action entry (the first line for an
 * address and port wins, as for access-control). @return 0 or -1 */
static int
acl_iface_add(struct acl_list *acl, const struct netaddr *a,
	enum config_acl_action action, const struct config_policyline *l)
{
	size_t i;
	struct acl_iface *n;
	for(i = 0; i < acl->nifs; i++)
		if(netaddr_cmp(&acl->ifs[i].addr, a) == 0) {
			char buf[NETADDR_STRLEN];
			log_warnx("%s:%d: duplicate interface-action %s "
				"ignored", l->file, l->line, netaddr_str(a, -1,
				buf, sizeof(buf)));
			return 0;
		}
	n = realloc(acl->ifs, (acl->nifs + 1) * sizeof(*n));
	if(!n)
		return -1;
	acl->ifs = n;
	n[acl->nifs].addr = *a;
	n[acl->nifs].action = action;
	acl->nifs++;
	return 0;
}

/**
 * The addresses of a network interface by name (lo, eth0), as Unbound
 * resolves an interface name in interface-action: each address of the
 * interface with the port.
 * @return the number added (0: no interface has that name), or -1.
 */
static int
acl_iface_by_name(struct acl_list *acl, const char *name, int port,
	enum config_acl_action action, const struct config_policyline *l)
{
	struct ifaddrs *ifa, *i;
	int n = 0;
	if(getifaddrs(&ifa) != 0)
		return 0;
	for(i = ifa; i; i = i->ifa_next) {
		struct netaddr a;
		socklen_t len;
		if(!i->ifa_addr || strcmp(i->ifa_name, name) != 0)
			continue;
		if(i->ifa_addr->sa_family == AF_INET)
			len = sizeof(struct sockaddr_in);
		else if(i->ifa_addr->sa_family == AF_INET6)
			len = sizeof(struct sockaddr_in6);
		else	continue;
		netaddr_from_sockaddr(&a, i->ifa_addr, len);
		netaddr_set_port(&a, port);
		if(acl_iface_add(acl, &a, action, l) != 0) {
			freeifaddrs(ifa);
			return -1;
		}
		n++;
	}
	freeifaddrs(ifa);
	return n;
}

/** read the interface-action: lines into acl->ifs and make the variants
 * of the finished list for the actions they name. @return 0 or -1 */
static int
acl_apply_ifaces(struct acl_list *acl, const struct config_file *cfg,
	char *err, size_t errlen)
{
	const struct config_policyline *l;
	size_t i;
	for(l = cfg->policy_lines; l; l = l->next) {
		char buf[512], *sp, *act, *at;
		enum config_acl_action a;
		struct netaddr na;
		if(l->clause != CLAUSE_SERVER || l->n < 1 ||
			strcmp(l->key, "interface-action") != 0)
			continue;
		/* "<ip or name[@port]> <action>": two values, or one with
		 * both words */
		if(l->n >= 2)
			snprintf(buf, sizeof(buf), "%s %s", l->v[0], l->v[1]);
		else	snprintf(buf, sizeof(buf), "%s", l->v[0]);
		sp = strpbrk(buf, " \t");
		act = sp;
		if(sp) {
			*sp = 0;
			act = sp + 1;
			act += strspn(act, " \t");
		}
		if(!act || !*act || l->n > 2 || strpbrk(act, " \t")) {
			acl_err(err, errlen, "%s:%d: interface-action: expected "
				"<ip or interface name[@port]> <action>",
				l->file, l->line);
			return -1;
		}
		if(acl_action_from_str(act, &a) != 0) {
			acl_err(err, errlen, "%s:%d: interface-action: unknown "
				"action '%s' (deny, refuse, allow, allow_setrd, "
				"allow_snoop, deny_non_local, refuse_non_local, "
				"allow_cookie)", l->file, l->line, act);
			return -1;
		}
		if(netaddr_parse(buf, cfg->port, &na, NULL) == 0) {
			if(acl_iface_add(acl, &na, a, l) != 0)
				goto oom;
			continue;
		}
		/* an interface name, with an optional @port */
		{
			int port = cfg->port, r;
			if((at = strchr(buf, '@'))) {
				char *end;
				long p = strtol(at + 1, &end, 10);
				if(end == at + 1 || *end || p < 1 || p > 65535) {
					acl_err(err, errlen, "%s:%d: "
						"interface-action: bad port "
						"'%s'", l->file, l->line,
						at + 1);
					return -1;
				}
				*at = 0;
				port = (int)p;
			}
			if((r = acl_iface_by_name(acl, buf, port, a, l)) < 0)
				goto oom;
			if(r == 0) {
				acl_err(err, errlen, "%s:%d: interface-action: "
					"'%s' is neither an address nor the "
					"name of a network interface with an "
					"address", l->file, l->line, buf);
				return -1;
			}
		}
	}
	for(i = 0; i < acl->nifs; i++) {
		enum config_acl_action a = acl->ifs[i].action;
		struct acl_list *v;
		if(a == ACL_REFUSE || acl->variant[a])
			continue;
		/* the same lookup arrays; only the miss differs */
		if(!(v = malloc(sizeof(*v))))
			goto oom;
		*v = *acl;
		v->ifs = NULL;
		v->nifs = 0;
		memset(v->variant, 0, sizeof(v->variant));
		v->borrowed = 1;
		v->miss = a;
		acl->variant[a] = v;
	}
	return 0;
oom:
	acl_err(err, errlen, "out of memory");
	return -1;
}

int
acl_apply_cfg(struct acl_list *acl, const struct config_file *cfg,
	char *err, size_t errlen)
{
	const struct config_acl *c;
	if(!acl || !cfg) {
		acl_err(err, errlen, "no config");
		return -1;
	}
	struct netblock *tb = NULL;
	size_t ntb = 0, i;
	for(c = cfg->acls; c; c = c->next) {
		if(acl_add(acl, &c->block, c->action) != 0) {
			char buf[NETADDR_STRLEN + 8];
			acl_err(err, errlen, "cannot add access-control %s %s",
				netblock_str(&c->block, buf, sizeof(buf)),
				acl_action_str(c->action));
			return -1;
		}
	}
	if(acl_cfg_tag_blocks(cfg, &tb, &ntb, err, errlen) != 0)
		return -1;
	for(i = 0; i < ntb; i++)
		if(acl_add_ref(acl, &tb[i], (uint32_t)(i + 1)) != 0) {
			free(tb);
			acl_err(err, errlen, "out of memory");
			return -1;
		}
	free(tb);
	if(acl_finish(acl, err, errlen) != 0)
		return -1;
	return acl_apply_ifaces(acl, cfg, err, errlen);
}

/** @return 1 when a policy line is one of the access-control-tag lines */
static int
acl_is_tag_line(const struct config_policyline *l)
{
	return l->clause == CLAUSE_SERVER && l->n >= 1 &&
		(strcmp(l->key, "access-control-tag") == 0 ||
		strcmp(l->key, "access-control-tag-action") == 0 ||
		strcmp(l->key, "access-control-tag-data") == 0);
}

/** @return 1 when two parsed netblocks are the same */
static int
acl_block_same(const struct netblock *a, const struct netblock *b)
{
	size_t na, nb;
	const uint8_t *x = netaddr_bytes(&a->a, &na), *y = netaddr_bytes(
		&b->a, &nb);
	return a->prefix == b->prefix && x && y && na == nb &&
		memcmp(x, y, na) == 0;
}

int
acl_cfg_tag_blocks(const struct config_file *cfg, struct netblock **out,
	size_t *n, char *err, size_t errlen)
{
	const struct config_policyline *l;
	size_t cap = 0, i;
	*out = NULL;
	*n = 0;
	for(l = cfg->policy_lines; l; l = l->next) {
		struct netblock nb;
		const char *why = NULL;
		char buf[256], *sp;
		if(!acl_is_tag_line(l))
			continue;
		/* the netblock is the first word of the first value */
		snprintf(buf, sizeof(buf), "%s", l->v[0]);
		if((sp = strpbrk(buf, " \t")))
			*sp = 0;
		if(netblock_parse(buf, &nb, 1, &why) != 0) {
			acl_err(err, errlen, "%s:%d: %s: bad netblock '%s': %s",
				l->file, l->line, l->key, buf,
				why ? why : "syntax");
			free(*out);
			*out = NULL;
			return -1;
		}
		for(i = 0; i < *n; i++)
			if(acl_block_same(&(*out)[i], &nb))
				break;
		if(i < *n)
			continue;
		if(*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct netblock *t = realloc(*out, nc * sizeof(*t));
			if(!t) {
				free(*out);
				*out = NULL;
				acl_err(err, errlen, "out of memory");
				return -1;
			}
			*out = t;
			cap = nc;
		}
		(*out)[(*n)++] = nb;
	}
	return 0;
}

/** search one family: longest prefix first, binary search each group.
 * @return the index of the entry, or -1 */
static inline long
acl_family_find(const struct acl_family *f, const struct acl_key *a)
{
	int g;
	for(g = 0; g < f->ngroups; g++) {
		const struct acl_group *gr = &f->groups[g];
		uint64_t hi = a->hi & gr->mask.hi, lo = a->lo & gr->mask.lo;
		size_t l = gr->start, h = gr->start + gr->n;
		while(l < h) {
			size_t mid = l + (h - l) / 2;
			const struct acl_key *k = &f->keys[mid];
			if(k->hi == hi && k->lo == lo)
				return (long)mid;
			if(k->hi < hi || (k->hi == hi && k->lo < lo))
				l = mid + 1;
			else
				h = mid;
		}
	}
	return -1;
}

enum config_acl_action
acl_check(const struct acl_list *acl, const struct netaddr *addr)
{
	const uint8_t *a;
	size_t n;
	struct acl_key k;
	const struct acl_family *f;
	long i;
	if(!addr)
		return ACL_REFUSE;
	if(!acl || !acl->finished)
		return netaddr_is_loopback(addr) ? ACL_ALLOW : ACL_REFUSE;
	if(addr->addr.ss_family != AF_INET6) {
		/* IPv4 (as netaddr_bytes reads any other family), the key
		 * made here: a call to netaddr_bytes and one to
		 * acl_key_from cost 20 instructions per cached answer */
		a = (const uint8_t *)&((const struct sockaddr_in *)
			&addr->addr)->sin_addr;
		k.hi = 0;
		k.lo = (uint64_t)dns_read_u32(a);
		f = &acl->v4;
	} else {
		a = netaddr_bytes(addr, &n);
		acl_key_from(&k, a, n);
		f = &acl->v6;
	}
	if((i = acl_family_find(f, &k)) >= 0)
		return f->acts[i];
	return acl->miss;
}

enum config_acl_action
acl_check_ref(const struct acl_list *acl, const struct netaddr *addr,
	uint32_t *ref)
{
	const uint8_t *a;
	size_t n;
	struct acl_key k;
	const struct acl_family *f;
	long i;
	*ref = 0;
	if(!addr)
		return ACL_REFUSE;
	if(!acl || !acl->finished)
		return netaddr_is_loopback(addr) ? ACL_ALLOW : ACL_REFUSE;
	a = netaddr_bytes(addr, &n);
	if(!a || (n != 4 && n != 16))
		return ACL_REFUSE;
	acl_key_from(&k, a, n);
	f = n == 4 ? &acl->v4 : &acl->v6;
	if((i = acl_family_find(f, &k)) < 0)
		return acl->miss;
	if(f->refs)
		*ref = f->refs[i];
	return f->acts[i];
}

int
acl_has_interface_actions(const struct acl_list *acl)
{
	return acl && acl->nifs > 0;
}

const struct acl_list *
acl_for_interface(const struct acl_list *acl, const struct netaddr *bound)
{
	size_t i;
	if(!acl || !bound)
		return acl;
	for(i = 0; i < acl->nifs; i++)
		if(netaddr_cmp(&acl->ifs[i].addr, bound) == 0) {
			enum config_acl_action a = acl->ifs[i].action;
			return acl->variant[a] ? acl->variant[a] : acl;
		}
	return acl;
}

size_t
acl_count(const struct acl_list *acl)
{
	if(!acl)
		return 0;
	if(!acl->finished)
		return acl->nbuild;
	return acl->v4.n + acl->v6.n;
}

int
acl_refused_reply(const uint8_t *pkt, size_t pktlen,
	const struct fast_query *fq, int ede, uint16_t udp_size, uint8_t *out,
	size_t outmax)
{
	uint16_t flags;
	if(!pkt || !fq || pktlen < DNS_HDR_SIZE)
		return -1;
	if(fq->edns.present)
		return dns_build_error_reply(pkt, pktlen, fq, DNS_RCODE_REFUSED,
			0, ede ? DNS_EDE_PROHIBITED : -1, NULL, udp_size, out,
			outmax);
	if(outmax < DNS_HDR_SIZE)
		return -1;
	flags = (uint16_t)(DNS_FLAG_QR | (fq->flags & (DNS_FLAG_OPCODE_MASK |
		DNS_FLAG_RD | DNS_FLAG_CD)) | DNS_RCODE_REFUSED);
	memset(out, 0, DNS_HDR_SIZE);
	dns_hdr_set_id(out, fq->id);
	dns_hdr_set_flags(out, flags);
	return DNS_HDR_SIZE;
}
