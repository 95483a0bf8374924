/*
 * front/ddr.c - DDR (RFC 9462) records for the local zones; see ddr.h.
 */
#include "config.h"
#include "front/ddr.h"
#include "front/localzone.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/netevent/tls.h"
#include "util/log.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

/** the DDR owner name */
#define DDR_NAME "_dns.resolver.arpa."

/** append text to a record being built. @return 0, or -1 when full */
static int
add(char *rr, size_t len, const char *fmt, const char *a)
{
	size_t n = strlen(rr);
	int r = snprintf(rr + n, len - n, fmt, a);
	return r < 0 || (size_t)r >= len - n ? -1 : 0;
}

/** @return 1 if the config already says something at the DDR name */
static int
ddr_user_defined(const struct config_file *cfg)
{
	const struct config_localzone *z;
	const struct config_strlist *s;
	for(z = cfg->local_zones; z; z = z->next)
		if(strncasecmp(z->name, DDR_NAME, sizeof(DDR_NAME) - 2) == 0)
			return 1;
	for(s = cfg->local_data; s; s = s->next)
		if(strncasecmp(s->str, DDR_NAME, sizeof(DDR_NAME) - 2) == 0)
			return 1;
	return 0;
}

/**
 * Build one SVCB record for the interfaces on port.
 * @return 1 when made (some interface is on the port), 0 when none, -1
 *	when it does not fit.
 */
static int
ddr_record(const struct config_file *cfg, int prio, const char *alpn,
	int port, const char *target, const char *dohpath, char *rr,
	size_t len)
{
	const struct config_strlist *i;
	char v4[512] = "", v6[1024] = "", num[32];
	int found = 0, wild = 0;
	for(i = config_interfaces(cfg); i; i = i->next) {
		struct netaddr a;
		const char *why = NULL;
		char ip[NETADDR_STRLEN];
		char *list;
		size_t cap;
		if(netaddr_parse(i->str, cfg->port, &a, &why) != 0 ||
			netaddr_port(&a) != port)
			continue;
		found = 1;
		(void)netaddr_str(&a, port, ip, sizeof(ip));
		if(strcmp(ip, "0.0.0.0") == 0 || strcmp(ip, "::") == 0) {
			wild = 1;
			continue;
		}
		list = strchr(ip, ':') ? v6 : v4;
		cap = strchr(ip, ':') ? sizeof(v6) : sizeof(v4);
		if(strlen(list) + strlen(ip) + 2 < cap) {
			if(list[0])
				strcat(list, ",");
			strcat(list, ip);
		}
	}
	if(!found)
		return 0;
	rr[0] = 0;
	snprintf(num, sizeof(num), "%d", prio);
	if(add(rr, len, DDR_NAME " 300 IN SVCB %s ", num) != 0 ||
		add(rr, len, "%s ", target) != 0 ||
		add(rr, len, "alpn=%s ", alpn) != 0)
		return -1;
	snprintf(num, sizeof(num), "%d", port);
	if(add(rr, len, "port=%s", num) != 0)
		return -1;
	/* hints only when every address is known: a wildcard listener
	 * answers on addresses this list would leave out */
	if(!wild && v4[0] && add(rr, len, " ipv4hint=%s", v4) != 0)
		return -1;
	if(!wild && v6[0] && add(rr, len, " ipv6hint=%s", v6) != 0)
		return -1;
	if(dohpath && add(rr, len, " dohpath=%s{?dns}", dohpath) != 0)
		return -1;
	return 1;
}

int
ddr_add_local(struct local_zones *lz, const struct config_file *cfg,
	char *err, size_t errlen)
{
	char target[300], rr[2048];
	int doh, dot, r, zone = 0;
	const char *pem = config_tls_service_pem(cfg);
	if(!cfg->ddr || !config_tls_service_key(cfg)[0] || !pem[0] ||
		ddr_user_defined(cfg))
		return 0;
	if(cfg->ddr_target_name[0])
		snprintf(target, sizeof(target), "%s", cfg->ddr_target_name);
	else if(tls_cert_dns_name(pem, target, sizeof(target) - 1) != 0) {
		/* DDR was not asked for by name (it is on by default): a
		 * certificate without a DNS name leaves it out, with a word */
		log_warnx("ddr: no ddr-target-name and no DNS name in the "
			"certificate of %s: _dns.resolver.arpa is not answered "
			"(set ddr-target-name, or ddr: no)", pem);
		return 0;
	}
	if(target[strlen(target) - 1] != '.')
		strcat(target, ".");
	for(doh = 0; doh < 2; doh++) {
		dot = !doh;
		if(doh && cfg->http_notls_downstream)
			continue;
		r = ddr_record(cfg, doh ? 1 : 2, dot ? "dot" : "h2",
			dot ? cfg->tls_port : cfg->https_port, target,
			doh ? cfg->http_endpoint : NULL, rr, sizeof(rr));
		if(r < 0) {
			snprintf(err, errlen, "ddr: too many interfaces for "
				"one SVCB record");
			return -1;
		}
		if(r == 0)
			continue;
		if(!zone) {
			if(local_zones_add_zone(lz, DDR_NAME, "static", err,
				errlen) != 0)
				return -1;
			zone = 1;
		}
		verbose(VERB_ALGO, "ddr: %s", rr);
		if(local_zones_add_data(lz, rr, err, errlen) != 0)
			return -1;
	}
	return 0;
}
