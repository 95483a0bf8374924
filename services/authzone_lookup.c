/*
 * services/authzone_lookup.c - the auth zones' DNSKEY and host name
 * lookups through the mesh. See authzone_lookup.h.
 */
#include "config.h"
#include "services/authzone_lookup.h"
#include "services/authzone.h"
#include "services/mesh.h"
#include "services/module.h"
#include "util/netaddr.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <string.h>
#include <netinet/in.h>

/** the most DNSKEY records handed to a zone */
#define AUTH_LOOKUP_MAX_KEYS 64
/** the most addresses handed over for one host name and type */
#define AUTH_LOOKUP_MAX_ADDRS 16

/** start one held zone's DNSKEY lookup (auth_zones_start_lookups)
 * @return 0 or -1 */
static int
auth_lookup_key_start(void *arg, const uint8_t *apex)
{
	struct mesh *mesh = arg;
	return mesh_new_background(mesh, apex, DNS_TYPE_DNSKEY, DNS_CLASS_IN,
		MESH_FLAG_RD | MESH_FLAG_DO | MESH_FLAG_NOAUTH);
}

/** start one host name lookup (auth_zones_start_host_lookups),
 * validated as a client's query is; @return 0 or -1 */
static int
auth_lookup_host_start(void *arg, const uint8_t *name, uint16_t qtype)
{
	struct mesh *mesh = arg;
	return mesh_new_background(mesh, name, qtype, DNS_CLASS_IN,
		MESH_FLAG_RD | MESH_FLAG_DO | MESH_FLAG_NOAUTH);
}

void
auth_lookup_keys_start(struct auth_zones *az, struct mesh *mesh)
{
	auth_zones_start_lookups(az, auth_lookup_key_start, mesh);
}

void
auth_lookup_hosts_start(struct auth_zones *az, struct mesh *mesh)
{
	auth_zones_start_host_lookups(az, auth_lookup_host_start, mesh);
}

/** an A (4 bytes) or AAAA (16) record's address, port 53 */
static void
auth_lookup_addr(struct netaddr *na, const uint8_t *ip, size_t len)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)&na->addr;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&na->addr;
	memset(na, 0, sizeof(*na));
	if(len == 4) {
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, ip, 4);
		na->len = (socklen_t)sizeof(*s4);
	} else {
		s6->sin6_family = AF_INET6;
		memcpy(&s6->sin6_addr, ip, 16);
		na->len = (socklen_t)sizeof(*s6);
	}
	netaddr_set_port(na, 53);
}

/**
 * A host name lookup finished: hand the zones the addresses, when the
 * answer is not bogus (as Unbound takes a primary's addresses).
 */
static void
auth_lookup_host_done(struct auth_zones *az, const struct mesh_state *s,
	const struct mesh_answer *ans)
{
	struct netaddr a[AUTH_LOOKUP_MAX_ADDRS];
	size_t n = 0;
	const struct module_rr *rr;
	int ok;
	if(!auth_zones_wants_host(az, s->qname, s->qtype))
		return;
	ok = ans && (ans->rcode == DNS_RCODE_NOERROR || ans->rcode ==
		DNS_RCODE_NXDOMAIN) && ans->sec != MODULE_SEC_BOGUS;
	for(rr = ok ? ans->an.first : NULL; rr && n < AUTH_LOOKUP_MAX_ADDRS;
		rr = rr->next) {
		if(rr->type != s->qtype || rr->rrclass != DNS_CLASS_IN ||
			rr->rdlen != (s->qtype == DNS_TYPE_A ? 4 : 16))
			continue;
		auth_lookup_addr(&a[n++], rr->rdata, rr->rdlen);
	}
	auth_zones_host_answer(az, s->qname, s->qtype, ok, a, n);
}

/**
 * A held zone's DNSKEY lookup finished (asked of the servers, not of the
 * zone's old copy): hand the zone the validated set (or why there is
 * none).
 */
static void
auth_lookup_keys_done(struct auth_zones *az, const struct mesh_state *s,
	const struct mesh_answer *ans, int ede)
{
	const uint8_t *key[AUTH_LOOKUP_MAX_KEYS];
	uint16_t keylen[AUTH_LOOKUP_MAX_KEYS];
	size_t n = 0;
	const struct module_rr *rr;
	int res;
	if(!auth_zones_wants_keys(az, s->qname))
		return;
	if(!ans && ede >= DNS_EDE_DNSSEC_INDETERMINATE &&
		ede <= DNS_EDE_NSEC_MISSING)
		res = AUTH_KEYS_BOGUS; /* the validator's SERVFAIL */
	else if(ans && ans->sec == MODULE_SEC_BOGUS)
		res = AUTH_KEYS_BOGUS; /* val-permissive-mode */
	else if(!ans || ans->rcode != DNS_RCODE_NOERROR)
		res = AUTH_KEYS_FAILED;
	else if(ans->sec == MODULE_SEC_SECURE)
		res = AUTH_KEYS_SECURE;
	else if(ans->sec == MODULE_SEC_INSECURE)
		res = AUTH_KEYS_INSECURE;
	else	/* bogus, or not validated at all */
		res = AUTH_KEYS_BOGUS;
	if(res == AUTH_KEYS_SECURE) {
		for(rr = ans->an.first; rr && n < AUTH_LOOKUP_MAX_KEYS;
			rr = rr->next)
			if(rr->type == DNS_TYPE_DNSKEY && rr->rrclass ==
				DNS_CLASS_IN && dname_equal(rr->owner,
				s->qname)) {
				key[n] = rr->rdata;
				keylen[n] = rr->rdlen;
				n++;
			}
		if(n == 0)
			res = AUTH_KEYS_FAILED;
	}
	auth_zones_keys_answer(az, s->qname, res, key, keylen, n);
}

void
auth_lookup_done(struct auth_zones *az, const struct mesh_state *s,
	const struct mesh_answer *ans, int ede)
{
	if(!az || !(s->flags & MESH_FLAG_NOAUTH) ||
		(s->flags & MESH_FLAG_CD) || s->qclass != DNS_CLASS_IN)
		return;
	if(s->qtype == DNS_TYPE_DNSKEY)
		auth_lookup_keys_done(az, s, ans, ede);
	else if(s->qtype == DNS_TYPE_A || s->qtype == DNS_TYPE_AAAA)
		auth_lookup_host_done(az, s, ans);
}
