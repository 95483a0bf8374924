/*
 * respip/respip_rules.c - response-ip's rules. See respip/respip_rules.h.
 */
#include "config.h"
#include "respip/respip_rules.h"
#include "services/module.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/log.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgencode.h"
#include "dns/msgparse.h"
#include "dns/addrscan.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** what a netblock does with an answer (the local-zone types a
 * response-ip line takes, in their words' order below) */
enum respip_action {
	/** none given (a netblock with only tags) */
	RESPIP_NONE = 0,
	RESPIP_DENY,
	RESPIP_REDIRECT,
	RESPIP_INFORM,
	RESPIP_INFORM_DENY,
	RESPIP_INFORM_REDIRECT,
	RESPIP_ALWAYS_TRANSPARENT,
	RESPIP_ALWAYS_REFUSE,
	RESPIP_ALWAYS_NXDOMAIN,
	RESPIP_ALWAYS_NODATA,
	RESPIP_ALWAYS_DENY,
	/** another local-zone type (a tag's access-control-tag-action
	 * only): the data when there is some, else the answer passes */
	RESPIP_OTHER
};

/** the words of enum respip_action from RESPIP_DENY on */
static const char *const respip_words[] = {
	"deny", "redirect", "inform", "inform_deny", "inform_redirect",
	"always_transparent", "always_refuse", "always_nxdomain",
	"always_nodata", "always_deny"
};

/** one netblock */
struct respip_rule {
	/** the netblock */
	struct netblock nb;
	/** response-ip: its action */
	enum respip_action action;
	/** response-ip-tag: the tags whose -action and -data apply */
	uint64_t tags;
	/** response-ip-data: a store of the front end's local data, or
	 * NULL */
	void *data;
	/** where it was given, for the inform log line */
	int line;
};

/** the netblocks of one scope */
struct respip_set {
	/** the netblocks, longest prefix first once finished */
	struct respip_rule *e;
	/** how many */
	size_t n;
	/** the store the data lives in */
	const struct module_respip_data *dat;
};

/** the error "file:line: text" (l NULL: the text alone). @return -1 */
static int rerr(char *err, size_t errlen, const struct config_policyline *l,
	const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int
rerr(char *err, size_t errlen, const struct config_policyline *l,
	const char *fmt, ...)
{
	int k = 0;
	va_list ap;
	if(l)
		k = snprintf(err, errlen, "%s:%d: ", l->file, l->line);
	if(k < 0 || (size_t)k >= errlen)
		k = 0;
	va_start(ap, fmt);
	vsnprintf(err + k, errlen - (size_t)k, fmt, ap);
	va_end(ap);
	return -1;
}

static struct respip_set *
respip_set_new(const struct module_respip_data *dat)
{
	struct respip_set *rs = calloc(1, sizeof(*rs));
	if(rs)
		rs->dat = dat;
	return rs;
}

static void
respip_set_delete(struct respip_set *rs)
{
	size_t i;
	if(!rs)
		return;
	for(i = 0; i < rs->n; i++)
		rs->dat->del(rs->e[i].data);
	free(rs->e);
	free(rs);
}

static size_t
respip_set_count(const struct respip_set *rs)
{
	return rs ? rs->n : 0;
}

static uint8_t
respip_action_of(const char *word)
{
	size_t i;
	for(i = 0; i < sizeof(respip_words) / sizeof(respip_words[0]); i++)
		if(strcmp(word, respip_words[i]) == 0)
			return (uint8_t)(RESPIP_DENY + i);
	return RESPIP_OTHER;
}

/** the rule of a netblock in a set, made when new.
 * @return it or NULL (out of memory) */
static struct respip_rule *
respip_set_rule(struct respip_set *rs, const struct netblock *nb, int line)
{
	size_t i;
	struct respip_rule *e;
	for(i = 0; i < rs->n; i++)
		if(rs->e[i].nb.prefix == nb->prefix &&
			netblock_match(&rs->e[i].nb, &nb->a))
			return &rs->e[i];
	e = realloc(rs->e, (rs->n + 1) * sizeof(*e));
	if(!e)
		return NULL;
	rs->e = e;
	e = &rs->e[rs->n++];
	memset(e, 0, sizeof(*e));
	e->nb = *nb;
	e->line = line;
	return e;
}

static int
respip_set_line(struct respip_set *rs, const struct config_file *cfg,
	const struct config_policyline *l, char *err, size_t errlen)
{
	char buf[8192], e[512];
	const char *a, *rest, *why = NULL;
	struct netblock nb;
	struct respip_rule *ent;
	size_t i;
	buf[0] = 0;
	if(l->n >= 2) {
		/* the netblock, then the rest joined by spaces */
		a = l->v[0];
		for(i = 1; i < (size_t)l->n; i++) {
			size_t k = strlen(buf);
			snprintf(buf + k, sizeof(buf) - k, "%s%s", i > 1 ?
				" " : "", l->v[i]);
		}
		rest = buf;
	} else {
		/* one quoted value: "netblock rest" */
		char *sp;
		snprintf(buf, sizeof(buf), "%s", l->n == 1 ? l->v[0] : "");
		sp = buf + strcspn(buf, " \t");
		if(*sp)
			*sp++ = 0;
		sp += strspn(sp, " \t");
		a = buf;
		rest = sp;
		if(!*rest)
			return rerr(err, errlen, l, "%s: expected <netblock> "
				"%s", l->key, strcmp(l->key, "response-ip") == 0
				? "<action>" : strcmp(l->key, "response-ip-tag")
				== 0 ? "\"<tags>\"" : "\"<rr>\"");
	}
	if(netblock_parse(a, &nb, 0, &why) != 0)
		return rerr(err, errlen, l, "%s: bad netblock '%s': %s",
			l->key, a, why ? why : "syntax");
	if(!(ent = respip_set_rule(rs, &nb, l->line)))
		return rerr(err, errlen, l, "out of memory");
	if(strcmp(l->key, "response-ip") == 0) {
		uint8_t t = respip_action_of(rest);
		if(t == RESPIP_OTHER)
			return rerr(err, errlen, l, "response-ip: bad action "
				"'%s' (deny, redirect, inform, inform_deny, "
				"inform_redirect, always_transparent, "
				"always_refuse, always_nxdomain, always_nodata "
				"or always_deny)", rest);
		ent->action = (enum respip_action)t;
	} else if(strcmp(l->key, "response-ip-tag") == 0) {
		if(config_tag_mask(cfg, rest, &ent->tags, e, sizeof(e)) != 0)
			return rerr(err, errlen, l, "response-ip-tag: %s", e);
	} else {
		char rr[sizeof(buf) + 2];
		if(!ent->data && !(ent->data = rs->dat->create()))
			return rerr(err, errlen, l, "out of memory");
		snprintf(rr, sizeof(rr), ". %s", rest);
		if(rs->dat->add(ent->data, rr, e, sizeof(e)) != 0)
			return rerr(err, errlen, l, "response-ip-data: %s", e);
	}
	return 0;
}

/** order netblocks: longest prefix first */
static int
respip_cmp(const void *a, const void *b)
{
	const struct respip_rule *x = a, *y = b;
	return y->nb.prefix - x->nb.prefix;
}

static int
respip_set_finish(struct respip_set *rs, char *err, size_t errlen)
{
	size_t i;
	char e[512];
	for(i = 0; i < rs->n; i++) {
		struct respip_rule *ent = &rs->e[i];
		if(ent->data && rs->dat->finish(ent->data, e, sizeof(e)) != 0)
			return rerr(err, errlen, NULL, "response-ip-data: %s",
				e);
		if(ent->data && ent->action == RESPIP_NONE)
			ent->action = RESPIP_REDIRECT;
	}
	if(rs->n > 1)
		qsort(rs->e, rs->n, sizeof(*rs->e), respip_cmp);
	return 0;
}

/** dns_addr_scan state: a set, and the rule found */
struct respip_find {
	/** the set */
	const struct respip_set *rs;
	/** the rule found */
	const struct respip_rule *found;
};

/** @return 1 when an address lies in a netblock */
static int
respip_in_block(const struct netblock *nb, const uint8_t *addr, size_t alen)
{
	size_t n, i;
	const uint8_t *b = netaddr_bytes(&nb->a, &n);
	int bits = nb->prefix;
	if(!b || n != alen)
		return 0;
	for(i = 0; bits > 0; i++, bits -= 8) {
		uint8_t m = bits >= 8 ? 0xff : (uint8_t)(0xff << (8 - bits));
		if((addr[i] & m) != (b[i] & m))
			return 0;
	}
	return 1;
}

/** dns_addr_scan callback: the longest netblock of the set holding addr */
static int
respip_find_cb(void *arg, const uint8_t *addr, size_t alen)
{
	struct respip_find *f = arg;
	size_t i;
	for(i = 0; i < f->rs->n; i++)
		if(respip_in_block(&f->rs->e[i].nb, addr, alen)) {
			f->found = &f->rs->e[i];
			return 1;
		}
	return 0;
}

/** log an inform action */
static void
respip_inform(const struct respip_rule *e, const struct fast_query *fq,
	const struct netaddr *client)
{
	char nb[NETADDR_STRLEN + 8], qn[DNS_MAX_NAME_STR], ip[NETADDR_STRLEN];
	char tb[16];
	(void)dname_to_str(fq->qinfo.qname, qn, sizeof(qn));
	if(client)
		netaddr_str(client, -1, ip, sizeof(ip));
	else
		snprintf(ip, sizeof(ip), "-");
	log_info("response-ip %s inform %s %s %s IN", netblock_str(&e->nb, nb,
		sizeof(nb)), ip, qn, dns_type_str(fq->qinfo.qtype, tb,
		sizeof(tb)));
}

/**
 * Write a rewritten answer: the client's header and question, the CNAME
 * and DNAME records that came before the address record (the chain to
 * it), then the data (when d), with rcode; OPT as the client asked.
 * @return its length, 0 on failure
 */
static size_t
respip_rewrite(const struct respip_set *rs, const uint8_t *pkt,
	const struct fast_query *fq, int tcp, uint16_t edns_size,
	uint16_t max_udp, const uint8_t *ans, size_t alen,
	const struct dns_addr_hit *hit, const void *d, int rcode,
	uint8_t *out, size_t outmax)
{
	struct dns_builder b;
	size_t pos = DNS_HDR_SIZE, i;
	uint16_t flags = (uint16_t)(((ans[2] << 8) | ans[3]) &
		~(DNS_FLAG_RCODE_MASK | DNS_FLAG_AD | DNS_FLAG_TC));
	unsigned qd = ((unsigned)ans[4] << 8) | ans[5];
	uint8_t owner[DNS_MAX_NAME];
	dns_build_init(&b, out, outmax, fast_query_answer_limit(fq, tcp,
		max_udp, outmax));
	if(dns_build_header(&b, fq->id, (uint16_t)(flags | rcode)) != 0 ||
		dns_build_question_raw(&b, pkt, fq->qname_off,
		fq->question_end) != 0)
		return 0;
	if(fq->edns.present)
		dns_build_reserve(&b, dns_opt_size(NULL, 0));
	for(i = 0; i < qd; i++) {
		if(dname_pkt_read(ans, alen, &pos, NULL, NULL) != 0)
			return 0;
		pos += 4;
	}
	for(i = 0; i < hit->idx; i++) {
		uint16_t type, cls, rdlen;
		uint32_t ttl;
		size_t ol = 0;
		if(dname_pkt_read(ans, alen, &pos, owner, &ol) != 0)
			return 0;
		type = (uint16_t)((ans[pos] << 8) | ans[pos + 1]);
		cls = (uint16_t)((ans[pos + 2] << 8) | ans[pos + 3]);
		ttl = ((uint32_t)ans[pos + 4] << 24) | ((uint32_t)ans[pos + 5]
			<< 16) | ((uint32_t)ans[pos + 6] << 8) | ans[pos + 7];
		rdlen = (uint16_t)((ans[pos + 8] << 8) | ans[pos + 9]);
		pos += 10;
		if(type == DNS_TYPE_CNAME || type == DNS_TYPE_DNAME) {
			uint8_t tgt[DNS_MAX_NAME];
			size_t tp = pos, tl = 0;
			if(dname_pkt_read(ans, alen, &tp, tgt, &tl) != 0)
				return 0;
			if(dns_build_rr(&b, DNS_SEC_ANSWER, owner, type, cls,
				ttl, tgt, tl) != 0) {
				dns_build_truncate(&b);
				break;
			}
		}
		pos += rdlen;
	}
	if(d) {
		size_t ol = 0, op = hit->owner_off;
		if(dname_pkt_read(ans, alen, &op, owner, &ol) != 0)
			return 0;
		(void)rs->dat->put(d, &b, owner, hit->type);
	}
	if(fq->edns.present && dns_build_opt(&b, edns_size, rcode,
		fq->edns.do_bit, NULL, 0) != 0)
		return 0;
	return dns_build_finish(&b);
}

/** @return 1 when a store (or NULL: 0) has apex data of the type */
static int
respip_has(const struct respip_set *rs, const void *d, uint16_t type)
{
	return d && rs->dat->has(d, type);
}

static enum module_respip_result
respip_set_apply(const struct respip_set *rs,
	const struct module_respip_client *c, const uint8_t *pkt,
	const struct fast_query *fq, const struct netaddr *client, int tcp,
	uint16_t edns_size, uint16_t max_udp, uint8_t *ans, size_t *anslen,
	size_t ansmax, uint8_t *scratch, size_t scratchmax, int *matched)
{
	struct respip_find f;
	struct dns_addr_hit hit;
	const void *d;
	enum respip_action t;
	int tag = -1, rcode;
	size_t n;
	*matched = 0;
	if(rs->n == 0)
		return MODULE_RESPIP_PASS;
	f.rs = rs;
	f.found = NULL;
	if(dns_addr_scan(ans, *anslen, respip_find_cb, &f, &hit) != 1)
		return MODULE_RESPIP_PASS;
	*matched = 1;
	t = f.found->action;
	if(f.found->tags && c && (f.found->tags & c->tags)) {
		uint64_t m = f.found->tags & c->tags;
		tag = 0;
		while(!(m & 1)) {
			m >>= 1;
			tag++;
		}
		if(c->action && c->action[tag] != RESPIP_NONE)
			t = (enum respip_action)c->action[tag];
	}
	if(t == RESPIP_INFORM || t == RESPIP_INFORM_DENY ||
		t == RESPIP_INFORM_REDIRECT)
		respip_inform(f.found, fq, client);
	d = NULL;
	if(t != RESPIP_ALWAYS_REFUSE && t != RESPIP_ALWAYS_TRANSPARENT &&
		t != RESPIP_ALWAYS_NXDOMAIN && t != RESPIP_NONE) {
		if(t == RESPIP_REDIRECT && tag >= 0 && c->data &&
			respip_has(rs, c->data[tag], hit.type))
			d = c->data[tag];
		else if(respip_has(rs, f.found->data, hit.type))
			d = f.found->data;
	}
	rcode = DNS_RCODE_NOERROR;
	if(!d) {
		switch(t) {
		case RESPIP_ALWAYS_REFUSE:
			rcode = DNS_RCODE_REFUSED;
			hit.idx = 0;
			break;
		case RESPIP_ALWAYS_NXDOMAIN:
			rcode = DNS_RCODE_NXDOMAIN;
			break;
		case RESPIP_REDIRECT:
		case RESPIP_INFORM_REDIRECT:
		case RESPIP_ALWAYS_NODATA:
			break;
		case RESPIP_DENY:
		case RESPIP_INFORM_DENY:
		case RESPIP_ALWAYS_DENY:
			return MODULE_RESPIP_DROP;
		default:
			/* inform, always_transparent, no action, another
			 * local-zone type */
			return MODULE_RESPIP_PASS;
		}
	}
	n = respip_rewrite(rs, pkt, fq, tcp, edns_size, max_udp, ans, *anslen,
		&hit, d, rcode, scratch, scratchmax);
	if(n == 0 || n > ansmax)
		return MODULE_RESPIP_DROP;
	memcpy(ans, scratch, n);
	*anslen = n;
	return MODULE_RESPIP_REWRITTEN;
}

const struct module_respip_ops respip_rules_ops = {
	.set_new = respip_set_new,
	.set_line = respip_set_line,
	.set_finish = respip_set_finish,
	.set_count = respip_set_count,
	.set_delete = respip_set_delete,
	.action_of = respip_action_of,
	.apply = respip_set_apply,
};
