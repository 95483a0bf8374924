/*
 * validator/val_pres.c - presentation format of trust anchor records,
 * through ldns (see the header).
 */
#include "config.h"
#include "validator/val_pres.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <ldns/ldns.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** an ldns dname rdf from a wire name, or NULL */
static ldns_rdf *
wire_rdf(const uint8_t *name)
{
	if(!name)
		return NULL;
	return ldns_rdf_new_frm_data(LDNS_RDF_TYPE_DNAME, dname_len(name),
		name);
}

int
val_pres_parse_rr(const char *text, uint32_t default_ttl,
	const uint8_t *origin, const uint8_t *prev, struct val_pres_rr *out,
	char *err, size_t errlen)
{
	ldns_rdf *orig = wire_rdf(origin), *prv = wire_rdf(prev), *own;
	ldns_rr *rr = NULL;
	ldns_buffer *b = NULL;
	ldns_status st;
	int ret = -1;
	st = ldns_rr_new_frm_str(&rr, text, default_ttl, orig, &prv);
	if(st != LDNS_STATUS_OK) {
		snprintf(err, errlen, "%s", ldns_get_errorstr_by_id(st));
		goto fail;
	}
	own = ldns_rr_owner(rr);
	if(ldns_rdf_size(own) > DNS_MAX_NAME) {
		snprintf(err, errlen, "owner name too long");
		goto fail;
	}
	memcpy(out->owner, ldns_rdf_data(own), ldns_rdf_size(own));
	out->type = (uint16_t)ldns_rr_get_type(rr);
	out->rrclass = (uint16_t)ldns_rr_get_class(rr);
	out->ttl = ldns_rr_ttl(rr);
	if(!(b = ldns_buffer_new(1024)) ||
		ldns_rr_rdata2buffer_wire(b, rr) != LDNS_STATUS_OK ||
		ldns_buffer_position(b) > sizeof(out->rdata)) {
		snprintf(err, errlen, "cannot convert the RDATA");
		goto fail;
	}
	out->rdlen = ldns_buffer_position(b);
	memcpy(out->rdata, ldns_buffer_begin(b), out->rdlen);
	ret = 0;
fail:
	ldns_buffer_free(b);
	ldns_rr_free(rr);
	ldns_rdf_deep_free(orig);
	ldns_rdf_deep_free(prv);
	return ret;
}

char *
val_pres_rr_str(const uint8_t *owner, uint16_t type, uint16_t rrclass,
	uint32_t ttl, const uint8_t *rdata, size_t rdlen)
{
	size_t ol = dname_len(owner), pos = 0, l;
	uint8_t *wire = malloc(ol + DNS_RR_FIXED + rdlen);
	ldns_rr *rr = NULL;
	char *s = NULL;
	if(!wire || rdlen > 0xffff)
		goto fail;
	memcpy(wire, owner, ol);
	dns_write_u16(wire + ol, type);
	dns_write_u16(wire + ol + 2, rrclass);
	dns_write_u32(wire + ol + 4, ttl);
	dns_write_u16(wire + ol + 8, (uint16_t)rdlen);
	memcpy(wire + ol + DNS_RR_FIXED, rdata, rdlen);
	if(ldns_wire2rr(&rr, wire, ol + DNS_RR_FIXED + rdlen, &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		goto fail;
	s = ldns_rr2str_fmt(ldns_output_format_nocomments, rr);
	if(s) {
		l = strlen(s);
		while(l > 0 && (s[l-1] == '\n' || s[l-1] == ' '))
			s[--l] = 0;
	}
fail:
	ldns_rr_free(rr);
	free(wire);
	return s;
}

int
val_pres_read_line(FILE *f, struct val_pres_line *l, int *lineno)
{
	char part[4096];
	size_t len = 0;
	int depth = 0, got = 0;
	l->buf[0] = 0;
	while(fgets(part, sizeof(part), f)) {
		size_t pl = strlen(part), i;
		int quoted = 0;
		(*lineno)++;
		if(!got)
			l->lineno = *lineno;
		got = 1;
		if(pl > 0 && part[pl-1] == '\n')
			part[--pl] = 0;
		/* parentheses outside quotes and comments */
		for(i = 0; i < pl; i++) {
			if(part[i] == '"')
				quoted = !quoted;
			else if(!quoted && part[i] == ';')
				break;
			else if(!quoted && (part[i] == '(' || part[i] == ')')) {
				depth += part[i] == '(' ? 1 : -1;
				part[i] = ' ';
			}
		}
		if(len + pl + 2 > sizeof(l->buf))
			return -1;
		if(len > 0)
			l->buf[len++] = ' ';
		memcpy(l->buf + len, part, pl + 1);
		len += pl;
		if(depth <= 0)
			return 1;
	}
	return got ? 1 : 0;
}

char *
val_pres_comment(char *s)
{
	int quoted = 0;
	for(; *s; s++) {
		if(*s == '"')
			quoted = !quoted;
		else if(*s == ';' && !quoted)
			return s;
	}
	return NULL;
}

int
val_pres_directive(const char *s, uint8_t *origin, int *have_origin,
	uint32_t *ttl)
{
	if(strncmp(s, "$ORIGIN", 7) == 0) {
		size_t wl = DNS_MAX_NAME;
		char name[1100];
		if(sscanf(s + 7, "%1099s", name) != 1 ||
			dname_from_str(name, origin, &wl) != 0)
			return -1;
		*have_origin = 1;
		return 1;
	}
	if(strncmp(s, "$TTL", 4) == 0) {
		char *e;
		unsigned long v = strtoul(s + 4, &e, 10);
		if(e == s + 4 || v > 0x7fffffff)
			return -1;
		*ttl = (uint32_t)v;
		return 1;
	}
	return 0;
}
