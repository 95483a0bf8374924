/*
 * tests/val_testutil.c - zone fixtures for the validator tests (see the
 * header).
 */
#include "config.h"
#include "tests/val_testutil.h"
#include "dns/dns.h"
#include "dns/name.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef VAL_TESTDATA
#define VAL_TESTDATA "testdata/dnssec"
#endif

/** abort with a message (a test setup failure) */
static void
vt_die(const char *what, const char *arg)
{
	fprintf(stderr, "val_testutil: %s %s\n", what, arg);
	abort();
}

uint8_t *
vt_name(const char *s, uint8_t *buf)
{
	size_t len = 256;
	if(dname_from_str(s, buf, &len) != 0)
		vt_die("bad name", s);
	return buf;
}

uint32_t
vt_time(const char *s)
{
	struct tm tm;
	memset(&tm, 0, sizeof(tm));
	if(sscanf(s, "%4d%2d%2d%2d%2d%2d", &tm.tm_year, &tm.tm_mon,
		&tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec) != 6)
		vt_die("bad time", s);
	tm.tm_year -= 1900;
	tm.tm_mon -= 1;
	return (uint32_t)timegm(&tm);
}

struct vt_zone *
vt_zone_load(const char *file)
{
	char path[1024];
	FILE *f;
	ldns_zone *lz = NULL;
	ldns_status st;
	struct vt_zone *z = calloc(1, sizeof(*z));
	size_t i, cnt;
	snprintf(path, sizeof(path), "%s/%s", VAL_TESTDATA, file);
	if(!z || !(f = fopen(path, "r")))
		vt_die("cannot open", path);
	st = ldns_zone_new_frm_fp(&lz, f, NULL, 3600, LDNS_RR_CLASS_IN);
	fclose(f);
	if(st != LDNS_STATUS_OK)
		vt_die(ldns_get_errorstr_by_id(st), path);
	z->list = ldns_rr_list_new();
	if(ldns_zone_soa(lz)) {
		ldns_rr_list_push_rr(z->list, ldns_rr_clone(ldns_zone_soa(lz)));
	}
	for(i = 0; i < ldns_rr_list_rr_count(ldns_zone_rrs(lz)); i++)
		ldns_rr_list_push_rr(z->list, ldns_rr_clone(
			ldns_rr_list_rr(ldns_zone_rrs(lz), i)));
	ldns_zone_deep_free(lz);
	cnt = ldns_rr_list_rr_count(z->list);
	z->rrs = calloc(cnt, sizeof(*z->rrs));
	if(!z->rrs)
		vt_die("out of memory", path);
	for(i = 0; i < cnt; i++) {
		ldns_rr *rr = ldns_rr_list_rr(z->list, i);
		struct vt_rr *v = &z->rrs[i];
		ldns_buffer *b = ldns_buffer_new(65536);
		ldns_rdf *own = ldns_rr_owner(rr);
		memcpy(v->owner, ldns_rdf_data(own), ldns_rdf_size(own));
		v->type = (uint16_t)ldns_rr_get_type(rr);
		if(v->type == DNS_TYPE_RRSIG)
			v->covered = (uint16_t)ldns_rdf2rr_type(
				ldns_rr_rrsig_typecovered(rr));
		if(ldns_rr_rdata2buffer_wire(b, rr) != LDNS_STATUS_OK)
			vt_die("rdata2wire failed", path);
		v->len = (uint16_t)ldns_buffer_position(b);
		v->rdata = malloc(v->len ? v->len : 1);
		memcpy(v->rdata, ldns_buffer_begin(b), v->len);
		v->lrr = rr;
		ldns_buffer_free(b);
		if(v->type == DNS_TYPE_SOA)
			memcpy(z->apex, v->owner, dname_len(v->owner));
	}
	z->n = cnt;
	return z;
}

void
vt_zone_free(struct vt_zone *z)
{
	size_t i;
	if(!z)
		return;
	for(i = 0; i < z->n; i++)
		free(z->rrs[i].rdata);
	free(z->rrs);
	ldns_rr_list_deep_free(z->list);
	free(z);
}

size_t
vt_set_get(struct vt_zone *z, const uint8_t *owner, uint16_t type,
	struct vt_set *s)
{
	size_t i, n = 0;
	memset(s, 0, sizeof(*s));
	memcpy(s->owner, owner, dname_len(owner));
	s->lrrs = ldns_rr_list_new();
	s->lsigs = ldns_rr_list_new();
	for(i = 0; i < z->n; i++) {
		struct vt_rr *v = &z->rrs[i];
		if(!dname_equal(v->owner, owner))
			continue;
		if(v->type == type && n < VT_MAX_SET) {
			s->rrs[n].buf = v->rdata;
			s->rrs[n].buflen = v->len;
			s->rrs[n].off = 0;
			s->rrs[n].len = v->len;
			ldns_rr_list_push_rr(s->lrrs, v->lrr);
			n++;
		} else if(v->type == DNS_TYPE_RRSIG && v->covered == type &&
			s->nsigs < VT_MAX_SET) {
			s->sigs[s->nsigs].buf = v->rdata;
			s->sigs[s->nsigs].buflen = v->len;
			s->sigs[s->nsigs].off = 0;
			s->sigs[s->nsigs].len = v->len;
			ldns_rr_list_push_rr(s->lsigs, v->lrr);
			s->nsigs++;
		}
	}
	s->set.owner = s->owner;
	s->set.type = type;
	s->set.rrclass = DNS_CLASS_IN;
	s->set.rrs = s->rrs;
	s->set.count = n;
	return n;
}

size_t
vt_set_get_str(struct vt_zone *z, const char *owner, uint16_t type,
	struct vt_set *s)
{
	uint8_t buf[256];
	return vt_set_get(z, vt_name(owner, buf), type, s);
}

void
vt_set_clear(struct vt_set *s)
{
	ldns_rr_list_free(s->lrrs);
	ldns_rr_list_free(s->lsigs);
	s->lrrs = s->lsigs = NULL;
}
