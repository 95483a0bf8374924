/*
 * dns64/dns64.c - the dns64 module.
 *
 * See dns64.h for what it does. A state goes through at most one
 * sub-query: A for an AAAA question, or PTR for the in-addr.arpa name of
 * an ip6.arpa question. The sub-query's records are copied into the
 * state's region when it finishes (inform_super); the answer is put
 * together from them on the next run of the state.
 */
#include "config.h"
#include "dns64/dns64.h"
#include "services/module.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/region.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** the default dns64-prefix (RFC 6052 well-known prefix) */
#define DNS64_DEFAULT_PREFIX "64:ff9b::/96"

/** the module's settings */
struct dns64_env {
	/** the prefix, 16 bytes (bits past plen are zero) */
	uint8_t prefix[16];
	/** its length in bits */
	int plen;
	/** dns64-synthall */
	int synthall;
	/** dns64-ignore-aaaa names (wire, lower case), and their number */
	uint8_t (*ignore)[DNS_MAX_NAME];
	size_t nignore;
};

/** where a state is */
enum dns64_phase {
	/** nothing to do: pass everything through */
	DNS64_PASS = 0,
	/** an AAAA question passed down; its answer may need synthesis */
	DNS64_WAIT_AAAA,
	/** waiting for the A sub-query */
	DNS64_WAIT_A,
	/** waiting for the PTR sub-query of the in-addr.arpa name */
	DNS64_WAIT_PTR,
	/** waiting for the A sub-query of the target of a CNAME that a
	 * response-ip rule put in the A answer */
	DNS64_WAIT_ALIAS
};

/** per state */
struct dns64_qstate {
	/** where it is */
	enum dns64_phase phase;
	/** 1 while the sub-query runs */
	int waiting;
	/** the sub-query */
	uint8_t sub_name[DNS_MAX_NAME];
	uint16_t sub_type;
	/** 1 when the sub-query gave an answer; its rcode, security and
	 * records (copied into the state's region) */
	int got_sub;
	int sub_rcode;
	enum module_sec_status sub_sec;
	struct module_rrlist sub_an, sub_ns, sub_ar;
	/** the EDE of an A sub-query the validator failed (bogus: its
	 * SERVFAIL with a DNSSEC EDE, 5 to 12), else -1 */
	int sub_bogus_ede;
	/** the AAAA answer that had no AAAA records (NODATA), or NULL */
	struct mesh_answer *orig;
	/** the A answer a rule rewrote to a CNAME, while its target is
	 * looked up (DNS64_WAIT_ALIAS) */
	struct module_rrlist alias_an;
};

void
dns64_synth_addr(const uint8_t *prefix, int plen, const uint8_t *v4,
	uint8_t *out)
{
	int pos = plen / 8, i;
	memset(out, 0, 16);
	memcpy(out, prefix, (size_t)pos);
	for(i = 0; i < 4; i++) {
		if(pos == 8)
			pos++; /* bits 64-71 (the u octet) are zero */
		out[pos++] = v4[i];
	}
}

int
dns64_extract_addr(const uint8_t *prefix, int plen, const uint8_t *v6,
	uint8_t *v4)
{
	int pos = plen / 8, i;
	if(memcmp(prefix, v6, (size_t)pos) != 0)
		return -1;
	for(i = 0; i < 4; i++) {
		if(pos == 8)
			pos++;
		v4[i] = v6[pos++];
	}
	return 0;
}

/** @return the value of a hex digit, or -1 */
static int
hexval(uint8_t c)
{
	if(c >= '0' && c <= '9')
		return c - '0';
	if(c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if(c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t
dns64_ptr_name(const uint8_t *prefix, int plen, const uint8_t *name,
	uint8_t *out)
{
	static const uint8_t ip6arpa[] = "\003ip6\004arpa";
	uint8_t v6[16], v4[4];
	const uint8_t *p = name;
	char buf[64];
	size_t len = DNS_MAX_NAME;
	int i;
	memset(v6, 0, sizeof(v6));
	/* 32 one-nibble labels, least significant first */
	for(i = 0; i < 32; i++) {
		int v;
		if(p[0] != 1 || (v = hexval(p[1])) < 0)
			return 0;
		v6[15 - i / 2] |= (uint8_t)((i % 2) ? v << 4 : v);
		p += 2;
	}
	if(!dname_equal(p, ip6arpa))
		return 0;
	if(dns64_extract_addr(prefix, plen, v6, v4) != 0)
		return 0;
	snprintf(buf, sizeof(buf), "%u.%u.%u.%u.in-addr.arpa.",
		(unsigned)v4[3], (unsigned)v4[2], (unsigned)v4[1],
		(unsigned)v4[0]);
	if(dname_from_str(buf, out, &len) != 0)
		return 0;
	return len;
}

/** module init(): the prefix and the names */
static int
dns64_init(struct module_env *env, int id, char *err, size_t errlen)
{
	struct dns64_env *de = calloc(1, sizeof(*de));
	const char *pfx = DNS64_DEFAULT_PREFIX, *why = "";
	const struct config_strlist *s;
	struct netblock nb;
	const uint8_t *b;
	size_t n = 0, i = 0;
	if(!de) {
		snprintf(err, errlen, "dns64: out of memory");
		return -1;
	}
	if(env->cfg && env->cfg->dns64_prefix && env->cfg->dns64_prefix[0])
		pfx = env->cfg->dns64_prefix;
	if(netblock_parse(pfx, &nb, 0, &why) != 0 ||
		netaddr_family(&nb.a) != AF_INET6 ||
		!(b = netaddr_bytes(&nb.a, &n)) || n != 16) {
		snprintf(err, errlen, "dns64-prefix: expected an IPv6 prefix, "
			"got '%s'", pfx);
		goto fail;
	}
	memcpy(de->prefix, b, 16);
	de->plen = nb.prefix;
	if(env->cfg) {
		de->synthall = env->cfg->dns64_synthall;
		for(s = env->cfg->dns64_ignore_aaaa; s; s = s->next)
			de->nignore++;
	}
	if(de->nignore > 0) {
		de->ignore = calloc(de->nignore, sizeof(*de->ignore));
		if(!de->ignore) {
			snprintf(err, errlen, "dns64: out of memory");
			goto fail;
		}
		for(s = env->cfg->dns64_ignore_aaaa; s; s = s->next, i++) {
			size_t len = DNS_MAX_NAME;
			if(dname_from_str(s->str, de->ignore[i], &len) != 0) {
				snprintf(err, errlen, "dns64-ignore-aaaa: bad "
					"name '%s'", s->str);
				goto fail;
			}
			dname_tolower(de->ignore[i]);
		}
	}
	env->modinfo[id] = de;
	return 0;
fail:
	free(de->ignore);
	free(de);
	return -1;
}

/** module deinit() */
static void
dns64_deinit(struct module_env *env, int id)
{
	struct dns64_env *de = env->modinfo[id];
	if(de)
		free(de->ignore);
	free(de);
	env->modinfo[id] = NULL;
}

/** @return 1 when the name is in dns64-ignore-aaaa */
static int
dns64_ignored(const struct dns64_env *de, const uint8_t *qname)
{
	size_t i;
	for(i = 0; i < de->nignore; i++)
		if(dname_equal(de->ignore[i], qname))
			return 1;
	return 0;
}

/** @return 1 when the list holds an AAAA record that counts: one in
 * ::ffff:0:0/96 (IPv4-mapped) does not (RFC 6147 section 5.1.4) */
static int
has_aaaa(const struct module_rrlist *l)
{
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0xff, 0xff };
	const struct module_rr *rr;
	for(rr = l->first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_AAAA && (rr->rdlen != 16 ||
			memcmp(rr->rdata, mapped, 12) != 0))
			return 1;
	return 0;
}

/** start the sub-query. @return 0, or -1 when it could not start */
static int
dns64_sub(struct module_qstate *qs, struct dns64_qstate *dq,
	const uint8_t *name, uint16_t type)
{
	(void)dname_copy_lower(dq->sub_name, name);
	dq->sub_type = type;
	dq->got_sub = 0;
	memset(&dq->sub_an, 0, sizeof(dq->sub_an));
	memset(&dq->sub_ns, 0, sizeof(dq->sub_ns));
	memset(&dq->sub_ar, 0, sizeof(dq->sub_ar));
	if(!qs->env->attach_sub(qs, dq->sub_name, type, qs->qclass,
		(qs->flags & (MESH_FLAG_DO | MESH_FLAG_CD | MESH_FLAG_RD)) |
		MESH_FLAG_VALSUB))
		return -1;
	dq->waiting = 1;
	return 0;
}

/** finish the state with an answer */
static void
dns64_finish(struct module_qstate *qs, struct mesh_answer *ans, int id)
{
	qs->return_msg = ans;
	qs->return_rcode = ans->rcode;
	qs->ext_state[id] = MODULE_FINISHED;
}

/** the negative TTL of a NODATA answer: the SOA's TTL and minimum,
 * whichever is lower (RFC 6147 section 5.1.7); 0xffffffff without one */
static uint32_t
neg_ttl(const struct mesh_answer *orig)
{
	const struct module_rr *rr;
	if(!orig)
		return 0xffffffffU;
	for(rr = orig->ns.first; rr; rr = rr->next) {
		if(rr->type == DNS_TYPE_SOA && rr->rdlen >= 22) {
			const uint8_t *m = rr->rdata + rr->rdlen - 4;
			uint32_t min = ((uint32_t)m[0] << 24) |
				((uint32_t)m[1] << 16) | ((uint32_t)m[2] << 8) |
				m[3];
			return rr->ttl < min ? rr->ttl : min;
		}
	}
	return 0xffffffffU;
}

/**
 * The AAAA answer from the A sub-query: its CNAMEs as they are, one AAAA
 * per A record. @return the answer, or NULL when it had no A record (or
 * out of memory).
 */
static struct mesh_answer *
dns64_synth_answer(struct module_qstate *qs, const struct dns64_env *de,
	struct dns64_qstate *dq)
{
	struct mesh_answer *ans;
	const struct module_rr *rr;
	uint32_t cap = neg_ttl(dq->orig);
	int n = 0;
	if(!dq->got_sub || dq->sub_rcode != DNS_RCODE_NOERROR)
		return NULL;
	for(rr = dq->sub_an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_A && rr->rdlen == 4)
			n++;
	if(n == 0)
		return NULL;
	if(!(ans = region_alloc_zero(qs->region, sizeof(*ans))))
		return NULL;
	ans->rcode = DNS_RCODE_NOERROR;
	ans->ede = -1;
	/* RFC 6147 5.5 (2): with the negative AAAA answer and the A answer
	 * both validated, the synthesis is secure (the validating DNS64
	 * SHOULD set AD), as Unbound's dns64 gives it the A answer's
	 * status; else insecure (bogus stays bogus) */
	if(dq->sub_sec == MODULE_SEC_BOGUS)
		ans->sec = MODULE_SEC_BOGUS;
	else if(dq->sub_sec == MODULE_SEC_UNCHECKED)
		ans->sec = MODULE_SEC_UNCHECKED;
	else if(dq->sub_sec == MODULE_SEC_SECURE && dq->orig &&
		dq->orig->sec == MODULE_SEC_SECURE)
		ans->sec = MODULE_SEC_SECURE;
	else	ans->sec = MODULE_SEC_INSECURE;
	ans->forwarded = dq->orig ? dq->orig->forwarded : 0;
	ans->no_cd_share = 1;
	for(rr = dq->sub_an.first; rr; rr = rr->next) {
		struct module_rr *c;
		uint8_t v6[16];
		if(rr->type == DNS_TYPE_A && rr->rdlen == 4) {
			dns64_synth_addr(de->prefix, de->plen, rr->rdata, v6);
			c = module_rr_new(qs->region, rr->owner, rr->owner_len,
				DNS_TYPE_AAAA, rr->rrclass, rr->ttl < cap ?
				rr->ttl : cap, v6, 16);
		} else if(rr->type == DNS_TYPE_CNAME || rr->type == DNS_TYPE_DNAME)
			c = module_rr_new(qs->region, rr->owner, rr->owner_len,
				rr->type, rr->rrclass, rr->ttl, rr->rdata,
				rr->rdlen);
		else	continue; /* (RRSIGs of the A set do not cover these) */
		if(!c)
			return NULL;
		module_rrlist_append(&ans->an, c);
	}
	for(rr = dq->sub_ns.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_NS &&
			module_rrlist_push(qs->region, &ans->ns, rr) != 0)
			return NULL;
	/* the servers' addresses that came with that NS set (as Unbound's
	 * synthesised answer keeps the A answer's additional section) */
	for(rr = dq->sub_ar.first; rr; rr = rr->next)
		if((rr->type == DNS_TYPE_A || rr->type == DNS_TYPE_AAAA) &&
			module_rrlist_push(qs->region, &ans->ar, rr) != 0)
			return NULL;
	return ans;
}

/**
 * The PTR answer: the in-addr.arpa name's PTR records, owned by the
 * ip6.arpa name asked, with that answer's authority section (as Unbound
 * translates it; RFC 6147 section 5.3.1 allows this or a CNAME).
 * @return it, or NULL when the sub-query gave no PTR record (NXDOMAIN,
 *	NODATA, a failure): the ip6.arpa name is then asked as it is.
 */
static struct mesh_answer *
dns64_ptr_answer(struct module_qstate *qs, struct dns64_qstate *dq)
{
	struct mesh_answer *ans;
	const struct module_rr *rr;
	uint8_t sname[DNS_MAX_NAME];
	int n = 0;
	if(!dq->got_sub || dq->sub_rcode != DNS_RCODE_NOERROR)
		return NULL;
	/* the PTR set at the end of the chain (RFC 2317 delegations
	 * reach it through a CNAME); the chain itself is left out */
	(void)dname_copy_lower(sname, dq->sub_name);
	for(rr = dq->sub_an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_CNAME && rr->rdlen > 0 &&
			dname_equal(rr->owner, sname))
			(void)dname_copy_lower(sname, rr->rdata);
	for(rr = dq->sub_an.first; rr; rr = rr->next)
		if(rr->type == DNS_TYPE_PTR && dname_equal(rr->owner, sname))
			n++;
	if(n == 0)
		return NULL;
	if(!(ans = region_alloc_zero(qs->region, sizeof(*ans))))
		return NULL;
	ans->rcode = DNS_RCODE_NOERROR;
	ans->ede = -1;
	ans->sec = dq->sub_sec == MODULE_SEC_UNCHECKED ?
		MODULE_SEC_UNCHECKED : MODULE_SEC_INSECURE;
	for(rr = dq->sub_an.first; rr; rr = rr->next) {
		struct module_rr *c;
		if(rr->type != DNS_TYPE_PTR || !dname_equal(rr->owner, sname))
			continue;
		if(!(c = module_rr_new(qs->region, qs->qname, qs->qname_len,
			rr->type, rr->rrclass, rr->ttl, rr->rdata, rr->rdlen)))
			return NULL;
		module_rrlist_append(&ans->an, c);
	}
	for(rr = dq->sub_ns.first; rr; rr = rr->next)
		if(module_rrlist_push(qs->region, &ans->ns, rr) != 0)
			return NULL;
	for(rr = dq->sub_ar.first; rr; rr = rr->next)
		if(module_rrlist_push(qs->region, &ans->ar, rr) != 0)
			return NULL;
	return ans;
}

/** the records of the sub-query as an answer, for env->respip */
static void
dns64_sub_msg(const struct dns64_qstate *dq, struct mesh_answer *m)
{
	memset(m, 0, sizeof(*m));
	m->rcode = dq->sub_rcode;
	m->ede = -1;
	m->sec = dq->sub_sec;
	m->an = dq->sub_an;
}

/**
 * Response-ip on the A answer (env->respip, when the respip module is in
 * the stack), before anything is made from it, as Unbound's respip module
 * rewrites the sub-query's answer: a redirect gives the addresses made,
 * a block (NXDOMAIN, NODATA, REFUSED, a drop) leaves none and the NODATA
 * stands. A CNAME made by a rule is followed one step (its target's A
 * records, to which the rules apply in turn; a target they would rewrite
 * is left out, as Unbound strips it). An answer that a rule touched, and
 * the answer of a state whose clients an RPZ passthru exempts, go to no
 * cache: they hold for the clients of this state only.
 * @return 1 when the target's sub-query was started (the state waits),
 *	else 0 (the sub-query's records are what to make the answer from).
 */
static int
dns64_respip(struct module_qstate *qs, struct dns64_qstate *dq)
{
	struct mesh_answer m, *out = NULL;
	const struct module_rr *last;
	if(!qs->env->respip || !dq->got_sub)
		return 0;
	if(qs->flags & MESH_FLAG_RPZPASS) {
		/* passthru: the real records, in an answer the other
		 * clients may not get (the rules are not asked, so that
		 * their rpz-log lines stay true) */
		qs->no_cache_store = 1;
		return 0;
	}
	dns64_sub_msg(dq, &m);
	if(!qs->env->respip(qs->env->rpz_ns_arg, qs, dq->sub_name,
		DNS_TYPE_A, &m, &out))
		return 0;
	qs->no_cache_store = 1;
	if(!out) {
		dq->got_sub = 0; /* dropped: nothing to make AAAA from */
		return 0;
	}
	dq->sub_rcode = out->rcode;
	dq->sub_an = out->an;
	memset(&dq->sub_ns, 0, sizeof(dq->sub_ns));
	memset(&dq->sub_ar, 0, sizeof(dq->sub_ar));
	if(dq->sub_sec != MODULE_SEC_UNCHECKED)
		dq->sub_sec = MODULE_SEC_INSECURE; /* the policy's data */
	last = out->an.last;
	if(out->rcode != DNS_RCODE_NOERROR || !last ||
		last->type != DNS_TYPE_CNAME || last->rdlen == 0 ||
		dname_valid(last->rdata, last->rdlen) == 0)
		return 0;
	dq->alias_an = out->an;
	if(dns64_sub(qs, dq, last->rdata, DNS_TYPE_A) != 0) {
		dq->got_sub = 0;
		return 0;
	}
	dq->phase = DNS64_WAIT_ALIAS;
	return 1;
}

/** the target of a rule's CNAME has been looked up: the chain and, unless
 * a rule would rewrite them too, its A records are what to make the
 * answer from */
static void
dns64_alias_done(struct module_qstate *qs, struct dns64_qstate *dq)
{
	struct module_rrlist an = dq->alias_an;
	struct mesh_answer m, *out = NULL;
	int rcode = DNS_RCODE_NOERROR;
	if(dq->got_sub && (dq->sub_rcode == DNS_RCODE_NOERROR ||
		dq->sub_rcode == DNS_RCODE_NXDOMAIN)) {
		dns64_sub_msg(dq, &m);
		rcode = dq->sub_rcode;
		if(!qs->env->respip(qs->env->rpz_ns_arg, qs, dq->sub_name,
			DNS_TYPE_A, &m, &out) && dq->sub_an.first) {
			an.last->next = dq->sub_an.first;
			an.last = dq->sub_an.last;
			an.count += dq->sub_an.count;
		}
	}
	dq->got_sub = 1;
	dq->sub_rcode = rcode;
	dq->sub_sec = dq->sub_sec == MODULE_SEC_UNCHECKED ?
		MODULE_SEC_UNCHECKED : MODULE_SEC_INSECURE;
	dq->sub_an = an;
	memset(&dq->sub_ns, 0, sizeof(dq->sub_ns));
	memset(&dq->sub_ar, 0, sizeof(dq->sub_ar));
}

/** a new state: decide what to do with it */
static void
dns64_new(struct module_qstate *qs, const struct dns64_env *de,
	struct dns64_qstate *dq, int id)
{
	uint8_t v4name[DNS_MAX_NAME];
	qs->ext_state[id] = MODULE_WAIT_MODULE;
	if(qs->depth > 0 || qs->qclass != DNS_CLASS_IN)
		return;
	if(qs->qtype == DNS_TYPE_AAAA) {
		if((qs->flags & MESH_FLAG_DO) && (qs->flags & MESH_FLAG_CD))
			return; /* the client validates: real data only */
		if((de->synthall || dns64_ignored(de, qs->qname)) &&
			dns64_sub(qs, dq, qs->qname, DNS_TYPE_A) == 0) {
			dq->phase = DNS64_WAIT_A;
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		dq->phase = DNS64_WAIT_AAAA;
		return;
	}
	if(qs->qtype == DNS_TYPE_PTR && dns64_ptr_name(de->prefix, de->plen,
		qs->qname, v4name) > 0 &&
		dns64_sub(qs, dq, v4name, DNS_TYPE_PTR) == 0) {
		dq->phase = DNS64_WAIT_PTR;
		qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
	}
}

/** module operate() */
static void
dns64_operate(struct module_qstate *qs, enum module_ev event, int id,
	struct module_reply *reply)
{
	struct dns64_env *de = qs->env->modinfo[id];
	struct dns64_qstate *dq = qs->minfo[id];
	struct mesh_answer *ans;
	(void)reply;
	if(event == MODULE_EVENT_NEW || !dq) {
		dq = region_alloc_zero(qs->region, sizeof(*dq));
		if(!dq) {
			qs->ede = DNS_EDE_OTHER;
			qs->ext_state[id] = MODULE_ERROR;
			return;
		}
		dq->sub_bogus_ede = -1;
		qs->minfo[id] = dq;
		dns64_new(qs, de, dq, id);
		return;
	}
	if(event == MODULE_EVENT_MODDONE) {
		if(dq->phase == DNS64_WAIT_AAAA && qs->return_msg &&
			qs->return_rcode == DNS_RCODE_NOERROR &&
			!has_aaaa(&qs->return_msg->an) &&
			qs->return_msg->sec != MODULE_SEC_BOGUS) {
			dq->orig = qs->return_msg;
			dq->orig->rcode = qs->return_rcode;
			if(dns64_sub(qs, dq, qs->qname, DNS_TYPE_A) == 0) {
				dq->phase = DNS64_WAIT_A;
				qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
				return;
			}
		}
		dq->phase = DNS64_PASS;
		qs->ext_state[id] = qs->return_msg ||
			qs->return_rcode != DNS_RCODE_SERVFAIL ?
			MODULE_FINISHED : MODULE_ERROR;
		return;
	}
	if(event == MODULE_EVENT_PASS && dq->waiting) {
		if(qs->num_subs > 0) {
			qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
			return;
		}
		dq->waiting = 0;
		if(dq->phase == DNS64_WAIT_PTR) {
			dq->phase = DNS64_PASS;
			if((ans = dns64_ptr_answer(qs, dq)) != NULL) {
				dns64_finish(qs, ans, id);
				return;
			}
			/* no usable answer: ask for the ip6.arpa name */
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
		if(dq->phase == DNS64_WAIT_A || dq->phase == DNS64_WAIT_ALIAS) {
			if(dq->phase == DNS64_WAIT_ALIAS)
				dns64_alias_done(qs, dq);
			else if(dns64_respip(qs, dq)) {
				qs->ext_state[id] = MODULE_WAIT_SUBQUERY;
				return;
			}
			dq->phase = DNS64_PASS;
			if(dq->sub_bogus_ede >= 0) {
				/* the A answer is bogus: so is what would be
				 * made from it, as Unbound's synthesis takes
				 * the A answer's status (dns64_dnssec.rpl):
				 * SERVFAIL, not the NODATA */
				qs->ede = dq->sub_bogus_ede;
				qs->return_msg = NULL;
				qs->return_rcode = DNS_RCODE_SERVFAIL;
				qs->ext_state[id] = MODULE_ERROR;
				return;
			}
			if((ans = dns64_synth_answer(qs, de, dq)) != NULL) {
				dns64_finish(qs, ans, id);
				return;
			}
			if(dq->orig) {
				/* no A records either: the NODATA stands */
				dns64_finish(qs, dq->orig, id);
				return;
			}
			/* synthall (or ignore-aaaa) without A records: the
			 * real AAAA answer */
			qs->ext_state[id] = MODULE_WAIT_MODULE;
			return;
		}
	}
	qs->ext_state[id] = MODULE_WAIT_MODULE;
}

/** copy a list into a region */
static void
copy_list(struct region *r, struct module_rrlist *to,
	const struct module_rrlist *from)
{
	const struct module_rr *rr;
	for(rr = from->first; rr; rr = rr->next) {
		struct module_rr *c = module_rr_new(r, rr->owner, rr->owner_len,
			rr->type, rr->rrclass, rr->ttl, rr->rdata, rr->rdlen);
		if(!c)
			return;
		module_rrlist_append(to, c);
	}
}

/** module inform_super(): the A or PTR sub-query finished */
static void
dns64_inform_super(struct module_qstate *sub, int id,
	struct module_qstate *super)
{
	struct dns64_qstate *dq = super->minfo[id];
	if(!dq || !dq->waiting || sub->qtype != dq->sub_type ||
		!dname_equal(sub->qname, dq->sub_name))
		return;
	if(!sub->return_msg) {
		if(sub->qtype == DNS_TYPE_A && sub->return_rcode ==
			DNS_RCODE_SERVFAIL && sub->ede >=
			DNS_EDE_DNSSEC_INDETERMINATE &&
			sub->ede <= DNS_EDE_NSEC_MISSING)
			dq->sub_bogus_ede = sub->ede;
		return;
	}
	dq->got_sub = 1;
	dq->sub_rcode = sub->return_rcode;
	dq->sub_sec = sub->return_msg->sec;
	copy_list(super->region, &dq->sub_an, &sub->return_msg->an);
	copy_list(super->region, &dq->sub_ns, &sub->return_msg->ns);
	copy_list(super->region, &dq->sub_ar, &sub->return_msg->ar);
}

/** module clear(): the data is in the state's region */
static void
dns64_clear(struct module_qstate *qs, int id)
{
	qs->minfo[id] = NULL;
}

/** module get_mem() */
static size_t
dns64_get_mem(struct module_env *env, int id)
{
	struct dns64_env *de = env->modinfo[id];
	return de ? sizeof(*de) + de->nignore * DNS_MAX_NAME : 0;
}

const struct module_func_block dns64_module_block = {
	.name = "dns64",
	.init = dns64_init,
	.deinit = dns64_deinit,
	.operate = dns64_operate,
	.inform_super = dns64_inform_super,
	.clear = dns64_clear,
	.get_mem = dns64_get_mem,
};
