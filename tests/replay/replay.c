/*
 * tests/replay/replay.c - read .rpl scenario files, match queries and
 * answers against their entries.
 *
 * Written for petrel from the format description (Unbound's testbound,
 * CZ-NIC's Deckard); every keyword not known here is an error so that a
 * scenario never passes by being half understood.
 */
#include "config.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <stdarg.h>
#include <dirent.h>
#include <limits.h>
#include <unistd.h>
#include "tests/replay/replay.h"
#include "tests/replay/recorder.h"

/** reader state */
struct rpl_reader {
	/** the file */
	FILE *in;
	/** file name */
	const char *file;
	/** current line number */
	int lineno;
	/** error output */
	char *err;
	/** its size */
	size_t errlen;
	/** $ORIGIN for records */
	ldns_rdf *origin;
	/** previous owner for records */
	ldns_rdf *prev;
	/** $TTL */
	uint32_t ttl;
	/** config clause seen last: 0 none (Deckard keys), 1 server: or
	 * remote-control:, 2 stub-zone: or forward-zone: */
	int clause;
	/** module-config value naming the test module, or "" */
	char modconf[256];
	/** the module-config value as written, or "" */
	char modules[256];
	/** in a stub-zone: clause (not forward-zone:), and its name is the
	 * root: its stub-addr: values are the root servers' */
	int in_stub, stub_root;
	/** the scenario (for its temporary folder) */
	struct rpl_scenario *s;
	/** 1: testbound's file (RPL_READ_TESTBOUND) */
	int tb;
};

/** make the scenario's temporary folder. @return 0 or -1 */
static int
make_tmpdir(struct rpl_scenario *s)
{
	if(s->tmpdir[0])
		return 0;
	snprintf(s->tmpdir, sizeof(s->tmpdir), "/tmp/petrel-replay-XXXXXX");
	if(!mkdtemp(s->tmpdir)) {
		s->tmpdir[0] = 0;
		return -1;
	}
	return 0;
}

/** set an error */
static void
rd_err(struct rpl_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n;
	n = snprintf(r->err, r->errlen, "%s:%d: ", r->file, r->lineno);
	if(n < 0 || (size_t)n >= r->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err + n, r->errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/** read a line, strip the comment and trailing space.
 * @return 1, or 0 at EOF */
static int
rd_line(struct rpl_reader *r, char *buf, size_t len)
{
	char *p;
	int inq = 0;
	size_t n;
	if(!fgets(buf, (int)len, r->in))
		return 0;
	r->lineno++;
	for(p = buf; *p; p++) {
		if(*p == '"' && (p == buf || p[-1] != '\\'))
			inq = !inq;
		else if(*p == ';' && !inq) {
			*p = 0;
			break;
		}
	}
	n = strlen(buf);
	while(n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 1;
}

/** read a line as it is (only the trailing space removed), for the
 * file contents of testbound's TEMPFILE_CONTENTS, AUTOTRUST_FILE and
 * CHECK_* steps. @return 1, or 0 at EOF */
static int
rd_raw_line(struct rpl_reader *r, char *buf, size_t len)
{
	size_t n;
	if(!fgets(buf, (int)len, r->in))
		return 0;
	r->lineno++;
	n = strlen(buf);
	while(n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = 0;
	return 1;
}

int
rpl_tempfile(struct rpl_scenario *s, const char *kind, const char *id,
	char *buf, size_t len)
{
	const char *c;
	if(!*id)
		return -1;
	for(c = id; *c; c++)
		if(*c == '/' || isspace((unsigned char)*c))
			return -1;
	if(make_tmpdir(s) != 0)
		return -1;
	snprintf(buf, len, "%s/%s%s.tmp", s->tmpdir, kind, id);
	return 0;
}

/** skip leading space */
static char *
skip_ws(char *p)
{
	while(*p && isspace((unsigned char)*p))
		p++;
	return p;
}

/** does the line start with the keyword (followed by space or end) */
static int
kw(const char *line, const char *k, char **rest)
{
	size_t n = strlen(k);
	if(strncmp(line, k, n) != 0)
		return 0;
	if(line[n] && !isspace((unsigned char)line[n]))
		return 0;
	if(rest)
		*rest = skip_ws((char *)line + n);
	return 1;
}

/** free an entry */
static void
entry_free(struct rpl_entry *e)
{
	int i;
	if(!e)
		return;
	ldns_pkt_free(e->pkt);
	for(i = 0; i < e->extra_packets && e->extra; i++)
		ldns_pkt_free(e->extra[i]);
	free(e->extra);
	free(e->raw);
	free(e);
}

/** parse MATCH words */
static int
parse_match(struct rpl_reader *r, struct rpl_entry *e, char *p)
{
	char *w;
	for(w = strtok(p, " \t"); w; w = strtok(NULL, " \t")) {
		if(w[0] == '#' || w[0] == ';')
			break; /* a comment, as testbound has it */
		if(strcmp(w, "opcode") == 0) e->match |= RPL_M_OPCODE;
		else if(strcmp(w, "qtype") == 0) e->match |= RPL_M_QTYPE;
		else if(strcmp(w, "qname") == 0) e->match |= RPL_M_QNAME;
		else if(strcmp(w, "qcase") == 0) e->match |= RPL_M_QCASE;
		else if(strcmp(w, "subdomain") == 0)
			e->match |= RPL_M_SUBDOMAIN;
		else if(strcmp(w, "flags") == 0) e->match |= RPL_M_FLAGS;
		else if(strcmp(w, "rcode") == 0) e->match |= RPL_M_RCODE;
		else if(strcmp(w, "question") == 0)
			e->match |= RPL_M_QUESTION;
		else if(strcmp(w, "answer") == 0) e->match |= RPL_M_ANSWER;
		else if(strcmp(w, "authority") == 0)
			e->match |= RPL_M_AUTHORITY;
		else if(strcmp(w, "additional") == 0)
			e->match |= RPL_M_ADDITIONAL;
		else if(strcmp(w, "all") == 0) e->match |= RPL_M_ALL;
		else if(strcmp(w, "edns") == 0) e->match |= RPL_M_EDNS;
		else if(strcmp(w, "noedns") == 0) e->match |= RPL_M_NOEDNS;
		else if(strcmp(w, "ednsdata") == 0) e->match |= RPL_M_EDNSDATA;
		else if(strcmp(w, "TCP") == 0 || strcmp(w, "tcp") == 0)
			e->match |= RPL_M_TCP;
		else if(strcmp(w, "UDP") == 0 || strcmp(w, "udp") == 0)
			e->match |= RPL_M_UDP;
		else if(strcmp(w, "ttl") == 0) e->match |= RPL_M_TTL;
		else if(strcmp(w, "DO") == 0) e->match |= RPL_M_DO;
		else if(strcmp(w, "all_noedns") == 0)
			e->match |= RPL_M_ALL_NOEDNS;
		else if(strcmp(w, "client_cookie") == 0)
			e->match |= RPL_M_CLIENT_COOKIE;
		else if(strcmp(w, "server_cookie") == 0)
			e->match |= RPL_M_SERVER_COOKIE;
		else if((strncmp(w, "serial=", 7) == 0 ||
			strncmp(w, "serial:", 7) == 0) &&
			isdigit((unsigned char)w[7])) {
			e->match |= RPL_M_SERIAL;
			e->serial = (uint32_t)strtoul(w + 7, NULL, 10);
		} else if((strncmp(w, "ede=", 4) == 0 ||
			strncmp(w, "ede:", 4) == 0) && (strcmp(w + 4, "any")
			== 0 || isdigit((unsigned char)w[4]) || (w[4] == '-' &&
			isdigit((unsigned char)w[5])))) {
			/* ede=-1: none wanted (petrel's); ede=any: one of
			 * any code (testbound's) */
			e->match |= RPL_M_EDE;
			e->ede = strcmp(w + 4, "any") == 0 ? RPL_EDE_ANY :
				atoi(w + 4);
		} else if(strncmp(w, "cookie=", 7) == 0 &&
			strlen(w + 7) < sizeof(e->cookie)) {
			e->match |= RPL_M_COOKIE;
			snprintf(e->cookie, sizeof(e->cookie), "%s", w + 7);
		} else {
			rd_err(r, "MATCH %s is not supported by the runner", w);
			return -1;
		}
	}
	return 0;
}

/** parse ADJUST words */
static int
parse_adjust(struct rpl_reader *r, struct rpl_entry *e, char *p)
{
	char *w;
	for(w = strtok(p, " \t"); w; w = strtok(NULL, " \t")) {
		if(w[0] == '#' || w[0] == ';')
			break;
		if(strcmp(w, "copy_id") == 0) e->copy_id = 1;
		else if(strcmp(w, "copy_query") == 0) e->copy_query = 1;
		else if(strcmp(w, "do_not_answer") == 0) e->do_not_answer = 1;
		else if(strcmp(w, "copy_ednsdata_assume_clientsubnet") == 0)
			e->copy_ecs = 1;
		else if(strcmp(w, "increment_ecs_scope") == 0)
			e->inc_ecs = 1;
		else if((strncmp(w, "sleep=", 6) == 0 && isdigit(
			(unsigned char)w[6])) || (strncmp(w, "packet_sleep=",
			13) == 0 && isdigit((unsigned char)w[13]))) {
			/* testbound sleeps in real time; its clock (and so
			 * the fake one) does not move: nothing to do */
		} else {
			rd_err(r, "ADJUST %s is not supported by the runner", w);
			return -1;
		}
	}
	return 0;
}

/** parse REPLY words */
static int
parse_reply(struct rpl_reader *r, struct rpl_entry *e, char *p)
{
	static const struct { const char *w; int v; } rcodes[] = {
		{"NOERROR", 0}, {"FORMERR", 1}, {"SERVFAIL", 2},
		{"NXDOMAIN", 3}, {"NOTIMPL", 4}, {"NOTIMP", 4},
		{"REFUSED", 5}, {"YXDOMAIN", 6}, {"YXRRSET", 7},
		{"NXRRSET", 8}, {"NOTAUTH", 9}, {"NOTZONE", 10},
		{"BADCOOKIE", 23}, {NULL, 0}};
	static const struct { const char *w; int v; } opcodes[] = {
		{"QUERY", 0}, {"IQUERY", 1}, {"STATUS", 2}, {"NOTIFY", 4},
		{"UPDATE", 5}, {NULL, 0}};
	char *w;
	int i;
	for(w = strtok(p, " \t"); w; w = strtok(NULL, " \t")) {
		int done = 0;
		if(w[0] == '#' || w[0] == ';')
			break;
		if(strcmp(w, "QR") == 0) ldns_pkt_set_qr(e->pkt, 1);
		else if(strcmp(w, "AA") == 0) ldns_pkt_set_aa(e->pkt, 1);
		else if(strcmp(w, "TC") == 0) ldns_pkt_set_tc(e->pkt, 1);
		else if(strcmp(w, "RD") == 0) ldns_pkt_set_rd(e->pkt, 1);
		else if(strcmp(w, "RA") == 0) ldns_pkt_set_ra(e->pkt, 1);
		else if(strcmp(w, "AD") == 0) ldns_pkt_set_ad(e->pkt, 1);
		else if(strcmp(w, "CD") == 0) ldns_pkt_set_cd(e->pkt, 1);
		else if(strcmp(w, "DO") == 0) {
			e->do_bit = 1;
			e->edns = 1;
		} else if(strcmp(w, "EDNS") == 0)
			e->edns = 1;
		else {
			for(i = 0; rcodes[i].w; i++)
				if(strcmp(w, rcodes[i].w) == 0) {
					ldns_pkt_set_rcode(e->pkt,
						(uint8_t)rcodes[i].v);
					done = 1;
				}
			for(i = 0; !done && opcodes[i].w; i++)
				if(strcmp(w, opcodes[i].w) == 0) {
					ldns_pkt_set_opcode(e->pkt,
						(ldns_pkt_opcode)opcodes[i].v);
					done = 1;
				}
			if(!done) {
				rd_err(r, "REPLY %s is not supported by the "
					"runner", w);
				return -1;
			}
		}
	}
	return 0;
}

/** parse hex into the entry's raw buffer */
static int
parse_raw(struct rpl_reader *r, struct rpl_entry *e, const char *p)
{
	while(*p) {
		int hi, lo;
		if(isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if(!isxdigit((unsigned char)p[0]) ||
			!isxdigit((unsigned char)p[1])) {
			rd_err(r, "bad hex in RAW");
			return -1;
		}
		hi = isdigit((unsigned char)p[0]) ? p[0] - '0' :
			tolower((unsigned char)p[0]) - 'a' + 10;
		lo = isdigit((unsigned char)p[1]) ? p[1] - '0' :
			tolower((unsigned char)p[1]) - 'a' + 10;
		if(e->rawlen >= 65535) {
			rd_err(r, "RAW too long");
			return -1;
		}
		e->raw[e->rawlen++] = (uint8_t)(hi * 16 + lo);
		p += 2;
	}
	return 0;
}

/** read the lines up to HEX_EDNSDATA_END into the entry's EDNS data
 * (the entry then has an OPT record). @return 0 or -1 */
static int
read_ednsdata(struct rpl_reader *r, struct rpl_entry *e)
{
	char line[4096];
	static uint8_t data[65535];
	size_t n = 0;
	ldns_rdf *d;
	while(rd_line(r, line, sizeof(line))) {
		char *p = skip_ws(line), *c;
		if(kw(p, "HEX_EDNSDATA_END", NULL)) {
			d = ldns_rdf_new_frm_data(LDNS_RDF_TYPE_UNKNOWN, n,
				data);
			if(!d) {
				rd_err(r, "out of memory");
				return -1;
			}
			ldns_pkt_set_edns_data(e->pkt, d);
			e->edns = 1;
			return 0;
		}
		if((c = strchr(p, ';')) != NULL)
			*c = 0;
		while(*p) {
			int hi, lo;
			if(isspace((unsigned char)*p)) {
				p++;
				continue;
			}
			if(!isxdigit((unsigned char)p[0]) ||
				!isxdigit((unsigned char)p[1]) ||
				n >= sizeof(data)) {
				rd_err(r, "bad hex in HEX_EDNSDATA");
				return -1;
			}
			hi = isdigit((unsigned char)p[0]) ? p[0] - '0' :
				tolower((unsigned char)p[0]) - 'a' + 10;
			lo = isdigit((unsigned char)p[1]) ? p[1] - '0' :
				tolower((unsigned char)p[1]) - 'a' + 10;
			data[n++] = (uint8_t)(hi * 16 + lo);
			p += 2;
		}
	}
	rd_err(r, "HEX_EDNSDATA_BEGIN without HEX_EDNSDATA_END");
	return -1;
}

/** a record ldns refuses that testbound's parser takes: RFC 3597 data
 * (\\# len hex) of a length wrong for a known type (read as an unknown
 * type, then given its type), base64 at the end without its padding or
 * with a stray mark after it, or text after the last field (left out).
 * @return LDNS_STATUS_OK and the record, or an error */
static ldns_status
rr_lenient(struct rpl_reader *r, const char *line, ldns_status err,
	ldns_rr **rr)
{
	char buf[4200], *g, *t;
	ldns_status st = LDNS_STATUS_ERR;
	snprintf(buf, sizeof(buf), "%s", line);
	if((g = strstr(buf, " \\# ")) != NULL || (g = strstr(buf, "\t\\# "))) {
		/* the type is the word before \# */
		char type[32], fixed[4300];
		ldns_rr_type tp;
		t = g;
		while(t > buf && isspace((unsigned char)t[-1]))
			t--;
		while(t > buf && !isspace((unsigned char)t[-1]))
			t--;
		if((size_t)(g - t) >= sizeof(type))
			return st;
		snprintf(type, sizeof(type), "%.*s", (int)(g - t), t);
		if(!(tp = ldns_get_rr_type_by_name(type)))
			return st;
		snprintf(fixed, sizeof(fixed), "%.*sTYPE65280%s", (int)(t - buf),
			buf, g);
		st = ldns_rr_new_frm_str(rr, fixed, r->ttl, r->origin,
			&r->prev);
		if(st == LDNS_STATUS_OK)
			ldns_rr_set_type(*rr, tp);
		return st;
	}
	/* base64 at the end without its padding, or with a stray mark after
	 * it (testbound's decoder takes both): padded, the mark left out */
	if(err != LDNS_STATUS_SYNTAX_SUPERFLUOUS_TEXT_ERR) {
		size_t n = strlen(buf), b;
		char fixed[4300];
		while(n > 0 && !isalnum((unsigned char)buf[n - 1]) &&
			buf[n - 1] != '+' && buf[n - 1] != '/' &&
			buf[n - 1] != '=')
			buf[--n] = 0;
		for(b = n; b > 0 && !isspace((unsigned char)buf[b - 1]); b--)
			;
		if(n - b >= 2) {
			snprintf(fixed, sizeof(fixed), "%s%s", buf,
				(n - b) % 4 == 2 ? "==" : (n - b) % 4 == 3 ? "=" :
				"");
			st = ldns_rr_new_frm_str(rr, fixed, r->ttl, r->origin,
				&r->prev);
			if(st == LDNS_STATUS_OK)
				return st;
		}
		return LDNS_STATUS_ERR;
	}
	/* text after the last field: fewer words until it reads */
	while(err == LDNS_STATUS_SYNTAX_SUPERFLUOUS_TEXT_ERR && ((t = strrchr(buf, ' ')) != NULL || (t = strrchr(buf, '\t')))) {
		*t = 0;
		st = ldns_rr_new_frm_str(rr, buf, r->ttl, r->origin, &r->prev);
		if(st == LDNS_STATUS_OK)
			return st;
		if(st != LDNS_STATUS_SYNTAX_SUPERFLUOUS_TEXT_ERR)
			break;
	}
	return LDNS_STATUS_ERR;
}

/** read an entry after ENTRY_BEGIN; @return entry or NULL */
static struct rpl_entry *
read_entry(struct rpl_reader *r)
{
	char line[4096];
	struct rpl_entry *e = calloc(1, sizeof(*e));
	ldns_pkt_section sec = LDNS_SECTION_QUESTION;
	int in_raw = 0, in_hex = 0;
	ldns_pkt *extra = NULL; /* the extra packet read, in e->extra */
	if(!e || !(e->pkt = ldns_pkt_new())) {
		rd_err(r, "out of memory");
		free(e);
		return NULL;
	}
	e->lineno = r->lineno;
	/* the default MATCH for entries is none; the default REPLY flags
	 * are none and NOERROR */
	while(rd_line(r, line, sizeof(line))) {
		char *p = skip_ws(line), *rest;
		if(!*p)
			continue;
		if(kw(p, "ENTRY_END", NULL)) {
			if(in_hex) {
				rd_err(r, "HEX_ANSWER_BEGIN without "
					"HEX_ANSWER_END");
				goto fail;
			}
			return e;
		}
		if(in_hex) {
			if(kw(p, "HEX_ANSWER_END", NULL))
				in_hex = 0;
			else if(e->extra_packets == 0 &&
				parse_raw(r, e, p) < 0)
				goto fail;
			continue;
		}
		if(kw(p, "HEX_ANSWER_BEGIN", NULL)) {
			/* testbound: the reply as hex, ADJUST applied when
			 * it parses */
			in_hex = 1;
			if(e->extra_packets == 0) {
				e->hex_answer = 1;
				if(!e->raw && !(e->raw = malloc(65536))) {
					rd_err(r, "out of memory");
					goto fail;
				}
			}
			continue;
		}
		if(kw(p, "EXTRA_PACKET", NULL)) {
			/* testbound: another reply packet follows in the
			 * same TCP stream (a zone transfer); its RRs are
			 * kept, sent after the first over TCP */
			ldns_pkt **n = realloc(e->extra, (size_t)(
				e->extra_packets + 1) * sizeof(*n));
			if(!n || !(extra = ldns_pkt_new())) {
				if(n)
					e->extra = n;
				rd_err(r, "out of memory");
				goto fail;
			}
			e->extra = n;
			e->extra[e->extra_packets++] = extra;
			in_raw = 0;
			sec = LDNS_SECTION_QUESTION;
			continue;
		}
		if(extra) {
			/* the lines of an extra packet are checked for
			 * syntax only */
			if(kw(p, "MATCH", NULL) || kw(p, "ADJUST", NULL) ||
				kw(p, "REPLY", NULL) || kw(p, "$TTL", NULL) ||
				kw(p, "HEX_EDNSDATA_BEGIN", NULL))
				continue;
			if(kw(p, "$ORIGIN", &rest)) {
				ldns_rdf_deep_free(r->origin);
				r->origin = ldns_dname_new_frm_str(rest);
				continue;
			}
			if(kw(p, "SECTION", &rest)) {
				sec = strcmp(rest, "QUESTION") == 0 ?
					LDNS_SECTION_QUESTION :
					LDNS_SECTION_ANSWER;
				continue;
			}
		}
		if(kw(p, "MATCH", &rest)) {
			if(parse_match(r, e, rest) < 0)
				goto fail;
		} else if(kw(p, "ADJUST", &rest)) {
			if(parse_adjust(r, e, rest) < 0)
				goto fail;
		} else if(kw(p, "REPLY", &rest)) {
			if(parse_reply(r, e, rest) < 0)
				goto fail;
		} else if(kw(p, "SECTION", &rest)) {
			in_raw = 0;
			if(strcmp(rest, "QUESTION") == 0)
				sec = LDNS_SECTION_QUESTION;
			else if(strcmp(rest, "ANSWER") == 0)
				sec = LDNS_SECTION_ANSWER;
			else if(strcmp(rest, "AUTHORITY") == 0)
				sec = LDNS_SECTION_AUTHORITY;
			else if(strcmp(rest, "ADDITIONAL") == 0)
				sec = LDNS_SECTION_ADDITIONAL;
			else {
				rd_err(r, "unknown SECTION %s", rest);
				goto fail;
			}
		} else if(kw(p, "HEX_EDNSDATA_BEGIN", NULL)) {
			/* EDNS options (code, length, data), hex with ';'
			 * comments, as testbound has them: put in the OPT
			 * record of the entry's message, compared by
			 * MATCH ednsdata */
			if(read_ednsdata(r, e) < 0)
				goto fail;
		} else if(kw(p, "RAW", NULL)) {
			in_raw = 1;
			if(!e->raw && !(e->raw = malloc(65536))) {
				rd_err(r, "out of memory");
				goto fail;
			}
		} else if(in_raw) {
			if(parse_raw(r, e, p) < 0)
				goto fail;
		} else if(kw(p, "$ORIGIN", &rest)) {
			ldns_rdf_deep_free(r->origin);
			r->origin = ldns_dname_new_frm_str(rest);
			if(!r->origin) {
				rd_err(r, "bad $ORIGIN");
				goto fail;
			}
		} else if(kw(p, "$TTL", &rest)) {
			r->ttl = (uint32_t)atoi(rest);
		} else {
			ldns_rr *rr = NULL;
			ldns_status st;
			ldns_pkt *into = extra ? extra : e->pkt;
			if(sec == LDNS_SECTION_QUESTION)
				st = ldns_rr_new_question_frm_str(&rr, p,
					r->origin, &r->prev);
			else	st = ldns_rr_new_frm_str(&rr, p, r->ttl,
					r->origin, &r->prev);
			if(st != LDNS_STATUS_OK && sec != LDNS_SECTION_QUESTION &&
				r->tb)
				st = rr_lenient(r, p, st, &rr);
			else if(st == LDNS_STATUS_OK && r->tb &&
				sec != LDNS_SECTION_QUESTION &&
				(ldns_rr_get_type(rr) == LDNS_RR_TYPE_A ||
				ldns_rr_get_type(rr) == LDNS_RR_TYPE_AAAA) &&
				(strstr(p, " \\# ") || strstr(p, "\t\\# "))) {
				/* RFC 3597 data of an address keeps its bytes
				 * as written (ldns cuts a 48-octet AAAA to
				 * 16) */
				ldns_rr *u = NULL;
				if(rr_lenient(r, p, st, &u) == LDNS_STATUS_OK) {
					ldns_rr_free(rr);
					rr = u;
				}
			}
			if(st != LDNS_STATUS_OK && sec != LDNS_SECTION_QUESTION &&
				r->tb) {
				/* an RRSIG without its signature (testbound's
				 * parser takes it): an empty signature */
				char fix[4200];
				ldns_rr *f = NULL;
				snprintf(fix, sizeof(fix), "%s AA==", p);
				if(ldns_rr_new_frm_str(&f, fix, r->ttl, r->origin,
					&r->prev) == LDNS_STATUS_OK &&
					ldns_rr_get_type(f) == LDNS_RR_TYPE_RRSIG &&
					ldns_rr_rd_count(f) == 9) {
					ldns_rdf *empty = ldns_rdf_new(
						LDNS_RDF_TYPE_B64, 0, NULL);
					if(empty) {
						ldns_rdf_deep_free(ldns_rr_set_rdf(
							f, empty, 8));
						rr = f;
						f = NULL;
						st = LDNS_STATUS_OK;
					}
				}
				ldns_rr_free(f);
			}
			if(st != LDNS_STATUS_OK) {
				rd_err(r, "cannot parse record '%s': %s", p,
					ldns_get_errorstr_by_id(st));
				goto fail;
			}
			if(!ldns_pkt_push_rr(into, sec, rr)) {
				ldns_rr_free(rr);
				rd_err(r, "out of memory");
				goto fail;
			}
		}
	}
	rd_err(r, "ENTRY_BEGIN without ENTRY_END");
fail:
	entry_free(e);
	return NULL;
}

/** append text to the config text. @return 0 or -1 */
static int
cfg_add(char **cfg, size_t *len, size_t *cap, const char *buf)
{
	size_t n = strlen(buf);
	if(*len + n + 1 > *cap) {
		char *nc;
		*cap = (*cap + n + 1) * 2;
		nc = realloc(*cfg, *cap);
		if(!nc)
			return -1;
		*cfg = nc;
	}
	memcpy(*cfg + *len, buf, n + 1);
	*len += n;
	return 0;
}

/** petrel's format: note an address of a root server (stub-addr) */
static void
root_addr_add(struct rpl_scenario *s, const char *addr)
{
	size_t l = strlen(s->stub_addr);
	snprintf(s->stub_addr + l, sizeof(s->stub_addr) - l, "%s%s",
		l ? " " : "", addr);
}

/** translate a Deckard key or copy a config line into cfg text.
 * @return 0, or -1 for an unsupported key */
static int
config_line(struct rpl_reader *r, char *line, char **cfg, size_t *len,
	size_t *cap, char *stubaddr, size_t salen)
{
	char buf[4200];
	char *p = skip_ws(line), *v;
	buf[0] = 0;
	if(!*p)
		return 0;
	v = strchr(p, ':');
	if(v && v[1] && !isspace((unsigned char)v[1]))
		v = NULL; /* not "key: value" */
	if(v) {
		char key[128];
		size_t kl = (size_t)(v - p);
		char *val = skip_ws(v + 1);
		if(kl >= sizeof(key))
			kl = sizeof(key) - 1;
		memcpy(key, p, kl);
		key[kl] = 0;
		if(strcmp(key, "module-config") == 0)
			snprintf(r->modules, sizeof(r->modules), "%s", val);
		if(strcmp(key, "server") == 0 ||
			strcmp(key, "remote-control") == 0)
			r->clause = 1;
		else if(strcmp(key, "stub-zone") == 0 ||
			strcmp(key, "forward-zone") == 0) {
			r->clause = 2;
			r->in_stub = strcmp(key, "stub-zone") == 0;
			r->stub_root = 0;
		} else if(r->clause == 2 && strcmp(key, "name") == 0)
			r->stub_root = r->in_stub && (strcmp(val, ".") == 0 ||
				strcmp(val, "\".\"") == 0);
		else if(r->clause == 2 && r->stub_root &&
			strcmp(key, "stub-addr") == 0)
			root_addr_add(r->s, val);
		if(strcmp(key, "stub-addr") == 0 && r->clause != 2) {
			/* Deckard's root server address (top level) */
			snprintf(stubaddr, salen, "%s", val);
			return 0;
		} else if(strcmp(key, "query-minimization") == 0) {
			snprintf(buf, sizeof(buf), "server:\n"
				"\tqname-minimisation: %s\n",
				strcmp(val, "on") == 0 || strcmp(val,
				"yes") == 0 ? "yes" : "no");
		} else if((strcmp(key, "do-not-query-localhost") == 0 ||
			strcmp(key, "harden-glue") == 0) && r->clause == 0) {
			snprintf(buf, sizeof(buf), "server:\n\t%s: %s\n", key,
				strcmp(val, "on") == 0 || strcmp(val,
				"yes") == 0 ? "yes" : "no");
		} else if((strcmp(key, "trust-anchor") == 0 ||
			strcmp(key, "val-override-date") == 0 ||
			strcmp(key, "domain-insecure") == 0) &&
			r->clause == 0) {
			/* Deckard's keys (outside any clause) are ignored:
			 * its scenarios are checked without AD; inside
			 * server: they are petrel's options (val_*.rpl) */
			return 0;
		} else if(strcmp(key, "module-config") == 0 &&
			strstr(val, RECORDER_NAME)) {
			/* the runner's test module: the runner builds the
			 * stack from the whole list, the config parser gets
			 * it without that name (which only the runner has) */
			char *t, *o = buf;
			size_t vl = strlen(val);
			if(vl >= 2 && val[0] == '"' && val[vl-1] == '"') {
				val++;
				vl -= 2;
			}
			snprintf(r->modconf, sizeof(r->modconf), "%.*s",
				(int)vl, val);
			o += snprintf(buf, sizeof(buf), "\tmodule-config: \"");
			for(t = strtok(r->modconf, " \t"); t;
				t = strtok(NULL, " \t")) {
				if(strcmp(t, RECORDER_NAME) != 0)
					o += snprintf(o, sizeof(buf) -
						(size_t)(o - buf), "%s%s",
						o[-1] == '"' ? "" : " ", t);
			}
			snprintf(o, sizeof(buf) - (size_t)(o - buf), "\"\n");
			/* strtok cut it up: copy it again */
			snprintf(r->modconf, sizeof(r->modconf), "%.*s",
				(int)vl, val);
		} else if(strcmp(key, "feature-list") == 0 ||
			strcmp(key, "feature-pass") == 0 ||
			strcmp(key, "force-ipv6") == 0) {
			rd_err(r, "config key %s is not supported by the "
				"runner", key);
			return -1;
		}
	}
	if(!buf[0]) {
		/* @TESTDATA@ is the folder of the scenario file, for
		 * root-hints and other files next to it */
		char *t = strstr(line, "@TESTDATA@");
		char *tt = strstr(line, "@TMPDIR@");
		if(tt) {
			if(make_tmpdir(r->s) != 0) {
				rd_err(r, "cannot make a temporary folder");
				return -1;
			}
			snprintf(buf, sizeof(buf), "%.*s%s%s\n",
				(int)(tt - line), line, r->s->tmpdir, tt + 8);
		} else if(t) {
			/* (absolute: auth zones read their files from the
			 * scenario's folder, the rest from the current one) */
			const char *slash = strrchr(r->file, '/');
			int dl = slash ? (int)(slash - r->file) : 1;
			char dir[4096], abs[PATH_MAX];
			snprintf(dir, sizeof(dir), "%.*s", dl, slash ? r->file :
				".");
			if(!realpath(dir, abs))
				snprintf(abs, sizeof(abs), "%s", dir);
			snprintf(buf, sizeof(buf), "%.*s%s%s\n",
				(int)(t - line), line, abs, t + 10);
		} else	snprintf(buf, sizeof(buf), "%s\n", line);
	}
	return cfg_add(cfg, len, cap, buf);
}

/** spool lines (as they are) into a file up to the end keyword, for
 * testbound's TEMPFILE_CONTENTS (with $INCLUDE_TEMPFILE id) and
 * AUTOTRUST_FILE. @return 0 or -1 */
static int
spool_file(struct rpl_reader *r, const char *path, const char *endkw)
{
	char line[4096];
	FILE *out = fopen(path, "w");
	if(!out) {
		rd_err(r, "cannot write %s", path);
		return -1;
	}
	while(rd_raw_line(r, line, sizeof(line))) {
		char *p = skip_ws(line), *rest;
		if(kw(p, endkw, NULL)) {
			fclose(out);
			return 0;
		}
		if(kw(p, "$INCLUDE_TEMPFILE", &rest)) {
			char inc[512];
			if(rpl_tempfile(r->s, "_temp_", rest, inc,
				sizeof(inc)) < 0) {
				rd_err(r, "bad $INCLUDE_TEMPFILE %s", rest);
				fclose(out);
				return -1;
			}
			fprintf(out, "$INCLUDE %s\n", inc);
			continue;
		}
		fprintf(out, "%s\n", line);
	}
	fclose(out);
	rd_err(r, "no %s", endkw);
	return -1;
}

/** Unbound's defaults where petrel's differ on purpose (see
 * util/config_options.c and the README): a testbound file is written
 * against Unbound's defaults, so it runs with them; the file's own lines
 * come after and override them. petrel's own scenarios and tests cover
 * petrel's defaults. */
#define UNBOUND_DEFAULTS "server:\n\tede: no\n\tede-serve-expired: no\n"

/** a config line of a testbound file: the runner's keywords and
 * switches are taken here, everything else goes to petrel's config
 * parser as it is. @return 0 or -1 */
static int
config_line_tb(struct rpl_reader *r, char *line, char **cfg, size_t *len,
	size_t *cap)
{
	char *p = skip_ws(line), *rest, path[512], buf[1024];
	if(!*p)
		return 0;
	if(kw(p, "TEMPFILE_NAME", &rest)) {
		/* the file's name, quoted, on a line of its own (testbound
		 * writes it so: "zonefile:" on the line before) */
		if(rpl_tempfile(r->s, "_temp_", rest, path, sizeof(path)) < 0) {
			rd_err(r, "bad TEMPFILE_NAME %s", rest);
			return -1;
		}
		snprintf(buf, sizeof(buf), "\"%s\"\n", path);
		if(*len >= 2 && (*cfg)[*len - 1] == '\n' &&
			(*cfg)[*len - 2] == ':') {
			/* petrel's parser reads an option and its value on
			 * one line: the name joins "zonefile:" */
			(*cfg)[*len - 1] = ' ';
		}
		return cfg_add(cfg, len, cap, buf);
	}
	if(kw(p, "TEMPFILE_CONTENTS", &rest)) {
		if(rpl_tempfile(r->s, "_temp_", rest, path, sizeof(path)) < 0) {
			rd_err(r, "bad TEMPFILE_CONTENTS %s", rest);
			return -1;
		}
		return spool_file(r, path, "TEMPFILE_END");
	}
	if(kw(p, "AUTOTRUST_FILE", &rest)) {
		if(rpl_tempfile(r->s, "_auto_", rest, path, sizeof(path)) < 0) {
			rd_err(r, "bad AUTOTRUST_FILE %s", rest);
			return -1;
		}
		if(spool_file(r, path, "AUTOTRUST_END") < 0)
			return -1;
		snprintf(buf, sizeof(buf), "server:\n\tauto-trust-anchor-file: "
			"\"%s\"\n", path);
		return cfg_add(cfg, len, cap, buf);
	}
	if(kw(p, "COMMANDLINE", NULL)) {
		rd_err(r, "COMMANDLINE (options of Unbound's command line) is "
			"not supported by the runner");
		return -1;
	}
	if(kw(p, "fake-sha1:", &rest) || kw(p, "fake-dsa:", &rest)) {
		/* testbound's switches, not options of petrel: signatures
		 * of DSA (algorithms 3 and 6) verify without a check, as in
		 * an Unbound built without DSA */
		if(strcmp(rest, "yes") == 0 || strcmp(rest, "\"yes\"") == 0)
			r->s->fake_dsa = 1;
		return 0;
	}
	if(kw(p, "module-config:", &rest))
		snprintf(r->modules, sizeof(r->modules), "%s", rest);
	if(cfg_add(cfg, len, cap, line) < 0)
		return -1;
	return cfg_add(cfg, len, cap, "\n");
}

/** parse a step line */
static int
parse_step(struct rpl_reader *r, struct rpl_scenario *s, char *p,
	struct rpl_step ***tail)
{
	struct rpl_step *st = calloc(1, sizeof(*st));
	char *w, *save = NULL;
	if(!st) {
		rd_err(r, "out of memory");
		return -1;
	}
	st->lineno = r->lineno;
	st->count = -1;
	w = strtok_r(p, " \t", &save);
	if(!w) {
		rd_err(r, "STEP without a number");
		goto fail;
	}
	st->num = atoi(w);
	w = strtok_r(NULL, " \t", &save);
	if(!w) {
		rd_err(r, "STEP without a type");
		goto fail;
	}
	if(strcmp(w, "QUERY") == 0) st->type = RPL_STEP_QUERY;
	else if(strcmp(w, "CHECK_ANSWER") == 0)
		st->type = RPL_STEP_CHECK_ANSWER;
	else if(strcmp(w, "CHECK_OUT_QUERY") == 0) {
		st->type = RPL_STEP_CHECK_OUT_QUERY;
		s->manual_out = 1;
	} else if(strcmp(w, "REPLY") == 0) {
		st->type = RPL_STEP_REPLY;
		s->manual_out = 1;
	} else if(strcmp(w, "TIMEOUT") == 0) {
		st->type = RPL_STEP_TIMEOUT;
		s->manual_out = 1;
	} else if(strcmp(w, "TIME_PASSES") == 0)
		st->type = RPL_STEP_TIME_PASSES;
	else if(strcmp(w, "CHECK_NO_ANSWER") == 0)
		st->type = RPL_STEP_CHECK_NO_ANSWER;
	else if(strcmp(w, "CHECK_EVENTS") == 0)
		st->type = RPL_STEP_CHECK_EVENTS;
	else if(strcmp(w, "CHECK_SENT") == 0) {
		char *f = strtok_r(NULL, " \t", &save);
		char *k = strtok_r(NULL, " \t", &save);
		st->type = RPL_STEP_CHECK_SENT;
		if(!f || !k || !(st->fname = strdup(f)) ||
			!(st->fkey = strdup(k))) {
			rd_err(r, "CHECK_SENT wants: name type");
			goto fail;
		}
	} else if(strcmp(w, "CHECK_FILE") == 0) {
		char *f = strtok_r(NULL, " \t", &save);
		char *k = strtok_r(NULL, " \t", &save);
		char *t = strtok_r(NULL, " \t", &save);
		st->type = RPL_STEP_CHECK_FILE;
		if(!f || !k || !t || !(st->fname = strdup(f)) ||
			!(st->fkey = strdup(k)) || !(st->ftext = strdup(t))) {
			rd_err(r, "CHECK_FILE wants: file keytag text");
			goto fail;
		}
	} else if(strcmp(w, "NOTHING") == 0)
		st->type = RPL_STEP_NOTHING;
	else if(strcmp(w, "ERROR") == 0) {
		st->type = RPL_STEP_ERROR;
		s->manual_out = 1;
	} else if(strcmp(w, "TRAFFIC") == 0)
		st->type = RPL_STEP_TRAFFIC;
	else if(strcmp(w, "ASSIGN") == 0) {
		/* ASSIGN var = expression (the rest of the line) */
		char *v = strtok_r(NULL, " \t", &save);
		char *eq = strtok_r(NULL, " \t", &save);
		st->type = RPL_STEP_ASSIGN;
		if(!v || !eq || strcmp(eq, "=") != 0 || !save) {
			rd_err(r, "ASSIGN wants: variable = expression");
			goto fail;
		}
		if(!(st->var = strdup(v)) || !(st->expr = strdup(skip_ws(
			save)))) {
			rd_err(r, "out of memory");
			goto fail;
		}
		save = NULL;
	} else if(strcmp(w, "FLUSH_MESSAGE") == 0) {
		/* FLUSH_MESSAGE name class type (the rest of the line) */
		st->type = RPL_STEP_FLUSH_MESSAGE;
		if(!save || !*skip_ws(save) || !(st->expr = strdup(
			skip_ws(save)))) {
			rd_err(r, "FLUSH_MESSAGE wants a question");
			goto fail;
		}
		save = NULL;
	} else if(strcmp(w, "INFRA_RTT") == 0) {
		/* INFRA_RTT address zone rtt */
		char *a = strtok_r(NULL, " \t", &save);
		char *z = strtok_r(NULL, " \t", &save);
		char *t = strtok_r(NULL, " \t", &save);
		const char *e = NULL;
		st->type = RPL_STEP_INFRA_RTT;
		if(!a || !z || !t || netaddr_parse(a, 53, &st->addr, &e) < 0 ||
			!(st->var = strdup(z)) || !(st->expr = strdup(t))) {
			rd_err(r, "INFRA_RTT wants: address zone rtt");
			goto fail;
		}
		st->has_addr = 1;
	} else if(strcmp(w, "CHECK_AUTOTRUST") == 0 ||
		strcmp(w, "CHECK_TEMPFILE") == 0) {
		/* the id, then FILE_BEGIN on the next line, the lines the
		 * file must have (as they are), FILE_END at a line start */
		char *id = strtok_r(NULL, " \t", &save);
		char line[4096], *ne;
		size_t len = 0;
		int ended = 0;
		st->type = w[6] == 'A' ? RPL_STEP_CHECK_AUTOTRUST :
			RPL_STEP_CHECK_TEMPFILE;
		if(!id || !(st->fname = strdup(id)) ||
			!(st->content = calloc(1, 1))) {
			rd_err(r, "%s wants an id", w);
			goto fail;
		}
		if(!rd_raw_line(r, line, sizeof(line)) ||
			!kw(line, "FILE_BEGIN", NULL)) {
			rd_err(r, "FILE_BEGIN expected after %s", w);
			goto fail;
		}
		while(rd_raw_line(r, line, sizeof(line))) {
			size_t n = strlen(line);
			if(strncmp(line, "FILE_END", 8) == 0) {
				ended = 1;
				break;
			}
			if(!(ne = realloc(st->content, len + n + 2))) {
				rd_err(r, "out of memory");
				goto fail;
			}
			st->content = ne;
			memcpy(st->content + len, line, n);
			len += n;
			st->content[len++] = '\n';
			st->content[len] = 0;
		}
		if(!ended) {
			rd_err(r, "FILE_BEGIN without FILE_END");
			goto fail;
		}
		save = NULL;
	} else {
		rd_err(r, "STEP type %s is not supported by the runner", w);
		goto fail;
	}
	while(save && (w = strtok_r(NULL, " \t", &save)) != NULL) {
		if(strcmp(w, "ELAPSE") == 0) {
			/* seconds, a fraction allowed (testbound) */
			double sec;
			char *end = NULL;
			w = strtok_r(NULL, " \t", &save);
			if(!w || (sec = strtod(w, &end)) < 0 || end == w ||
				*end) {
				rd_err(r, "ELAPSE without a number of seconds");
				goto fail;
			}
			st->elapse_sec = (long)sec;
			st->elapse_usec = (long)((sec - (double)st->elapse_sec)
				* 1000000. + 0.5);
		} else if(strcmp(w, "EVAL") == 0 &&
			st->type == RPL_STEP_TIME_PASSES) {
			/* testbound: the rest of the line, macro expanded
			 * when the step runs */
			if(!save || !*skip_ws(save) || !(st->expr = strdup(
				skip_ws(save)))) {
				rd_err(r, "EVAL without an expression");
				goto fail;
			}
			break;
		} else if(strcmp(w, "ADDRESS") == 0) {
			const char *e = NULL;
			w = strtok_r(NULL, " \t", &save);
			if(!w || netaddr_parse(w, 53, &st->addr, &e) < 0) {
				rd_err(r, "bad STEP ADDRESS");
				goto fail;
			}
			st->has_addr = 1;
		} else if(strcmp(w, "COUNT") == 0 &&
			st->type == RPL_STEP_CHECK_SENT) {
			w = strtok_r(NULL, " \t", &save);
			if(!w || atoi(w) < 0) {
				rd_err(r, "COUNT without a number");
				goto fail;
			}
			st->count = atoi(w);
		} else if(strcmp(w, "INTERFACE") == 0) {
			const char *e = NULL;
			w = strtok_r(NULL, " \t", &save);
			if(!w || netaddr_parse(w, 53, &st->iface, &e) < 0) {
				rd_err(r, "bad STEP INTERFACE");
				goto fail;
			}
			st->has_iface = 1;
		} else {
			rd_err(r, "STEP option %s is not supported by the "
				"runner", w);
			goto fail;
		}
	}
	if(st->type == RPL_STEP_QUERY || st->type == RPL_STEP_CHECK_ANSWER ||
		st->type == RPL_STEP_CHECK_OUT_QUERY ||
		st->type == RPL_STEP_REPLY) {
		char line[4096];
		while(rd_line(r, line, sizeof(line))) {
			char *q = skip_ws(line);
			if(!*q)
				continue;
			if(!kw(q, "ENTRY_BEGIN", NULL)) {
				rd_err(r, "expected ENTRY_BEGIN after STEP");
				goto fail;
			}
			st->entry = read_entry(r);
			if(!st->entry)
				goto fail;
			break;
		}
		if(!st->entry) {
			rd_err(r, "STEP without its entry");
			goto fail;
		}
	}
	if(st->type == RPL_STEP_CHECK_EVENTS) {
		/* event lines up to EVENTS_END, kept with single spaces */
		char line[4096];
		size_t len = 0;
		int ended = 0;
		st->events = calloc(1, 1);
		if(!st->events) {
			rd_err(r, "out of memory");
			goto fail;
		}
		while(rd_line(r, line, sizeof(line))) {
			char *q = skip_ws(line), *w2, *sv = NULL, *ne;
			if(!*q || *q == ';')
				continue;
			if(kw(q, "EVENTS_END", NULL)) {
				ended = 1;
				break;
			}
			for(w2 = strtok_r(q, " \t", &sv); w2;
				w2 = strtok_r(NULL, " \t", &sv)) {
				size_t n = strlen(w2);
				ne = realloc(st->events, len + n + 2);
				if(!ne) {
					rd_err(r, "out of memory");
					goto fail;
				}
				st->events = ne;
				if(len > 0 && st->events[len - 1] != '\n')
					st->events[len++] = ' ';
				memcpy(st->events + len, w2, n);
				len += n;
				st->events[len] = 0;
			}
			ne = realloc(st->events, len + 2);
			if(!ne) {
				rd_err(r, "out of memory");
				goto fail;
			}
			st->events = ne;
			st->events[len++] = '\n';
			st->events[len] = 0;
		}
		if(!ended) {
			rd_err(r, "CHECK_EVENTS without EVENTS_END");
			goto fail;
		}
	}
	**tail = st;
	*tail = &st->next;
	return 0;
fail:
	free(st->events);
	free(st->fname);
	free(st->fkey);
	free(st->ftext);
	free(st->expr);
	free(st->var);
	free(st->content);
	free(st);
	return -1;
}

struct rpl_scenario *
rpl_read(const char *file, int flags, char *err, size_t errlen)
{
	struct rpl_reader r;
	struct rpl_scenario *s = calloc(1, sizeof(*s));
	struct rpl_step **steptail;
	struct rpl_range **rangetail;
	char line[4096], stubaddr[256];
	size_t cap = 0;
	int in_config = 1, in_scenario = 0, done = 0;
	memset(&r, 0, sizeof(r));
	r.s = s;
	r.file = file;
	r.err = err;
	r.errlen = errlen;
	r.ttl = 3600;
	stubaddr[0] = 0;
	if(!s) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	r.tb = s->testbound = (flags & RPL_READ_TESTBOUND) != 0;
	/* testbound reads records with no origin, and its parser makes a
	 * relative name absolute (nobody is nobody.); ldns without an
	 * origin would append the owner name instead */
	if(r.tb && !(r.origin = ldns_dname_new_frm_str("."))) {
		snprintf(err, errlen, "out of memory");
		free(s);
		return NULL;
	}
	s->file = strdup(file);
	steptail = &s->steps;
	rangetail = &s->ranges;
	r.in = fopen(file, "r");
	if(!r.in) {
		snprintf(err, errlen, "%s: cannot open", file);
		goto fail;
	}
	s->config = calloc(1, 1);
	cap = 1;
	if(r.tb && cfg_add(&s->config, &s->config_len, &cap,
		UNBOUND_DEFAULTS) < 0)
		goto fail;
	while(rd_line(&r, line, sizeof(line))) {
		char *p = skip_ws(line), *rest;
		if(in_config) {
			if(kw(p, "CONFIG_END", NULL)) {
				in_config = 0;
				continue;
			}
			if(kw(p, "FILE_BEGIN", &rest)) {
				/* a file in the temporary folder (@TMPDIR@),
				 * lines up to FILE_END (comments stripped) */
				char path[512];
				FILE *out;
				int ended = 0;
				if(!*rest || strchr(rest, '/') ||
					make_tmpdir(s) != 0) {
					rd_err(&r, "bad FILE_BEGIN %s", rest);
					goto fail;
				}
				snprintf(path, sizeof(path), "%s/%s",
					s->tmpdir, rest);
				if(!(out = fopen(path, "w"))) {
					rd_err(&r, "cannot write %s", path);
					goto fail;
				}
				while(rd_line(&r, line, sizeof(line))) {
					if(kw(skip_ws(line), "FILE_END", NULL)) {
						ended = 1;
						break;
					}
					fprintf(out, "%s\n", line);
				}
				fclose(out);
				if(!ended) {
					rd_err(&r, "FILE_BEGIN without FILE_END");
					goto fail;
				}
				continue;
			}
			if(!kw(p, "SCENARIO_BEGIN", NULL) && r.tb) {
				if(config_line_tb(&r, line, &s->config,
					&s->config_len, &cap) < 0)
					goto fail;
				continue;
			}
			if(!kw(p, "SCENARIO_BEGIN", NULL)) {
				if(config_line(&r, line, &s->config,
					&s->config_len, &cap, stubaddr,
					sizeof(stubaddr)) < 0)
					goto fail;
				continue;
			}
			in_config = 0;
		}
		if(!*p)
			continue;
		if(kw(p, "SCENARIO_BEGIN", &rest)) {
			free(s->title);
			s->title = strdup(rest);
			in_scenario = 1;
		} else if(!in_scenario) {
			rd_err(&r, "text before SCENARIO_BEGIN: %s", p);
			goto fail;
		} else if(kw(p, "SCENARIO_END", NULL)) {
			done = 1;
			break;
		} else if(kw(p, "RANGE_BEGIN", &rest)) {
			struct rpl_range *rg = calloc(1, sizeof(*rg));
			struct rpl_entry **etail;
			int ended = 0;
			if(!rg || sscanf(rest, "%d %d", &rg->first,
				&rg->last) != 2) {
				free(rg);
				rd_err(&r, "bad RANGE_BEGIN");
				goto fail;
			}
			rg->lineno = r.lineno;
			*rangetail = rg;
			rangetail = &rg->next;
			etail = &rg->entries;
			while(rd_line(&r, line, sizeof(line))) {
				char *q = skip_ws(line), *a;
				if(!*q)
					continue;
				if(kw(q, "RANGE_END", NULL)) {
					ended = 1;
					break;
				} else if(kw(q, "ADDRESS", &a)) {
					const char *e = NULL;
					if(rg->naddrs >= 32 || netaddr_parse(a,
						53, &rg->addrs[rg->naddrs],
						&e) < 0) {
						rd_err(&r, "bad ADDRESS %s", a);
						goto fail;
					}
					rg->naddrs++;
				} else if(kw(q, "$ORIGIN", &a)) {
					/* testbound reads these between the
					 * entries too */
					ldns_rdf_deep_free(r.origin);
					if(!(r.origin = ldns_dname_new_frm_str(
						a))) {
						rd_err(&r, "bad $ORIGIN");
						goto fail;
					}
				} else if(kw(q, "$TTL", &a)) {
					r.ttl = (uint32_t)atoi(a);
				} else if(kw(q, "ENTRY_BEGIN", NULL)) {
					struct rpl_entry *e = read_entry(&r);
					if(!e)
						goto fail;
					*etail = e;
					etail = &e->next;
				} else {
					rd_err(&r, "unknown line in range: %s",
						q);
					goto fail;
				}
			}
			if(!ended) {
				rd_err(&r, "RANGE_BEGIN without RANGE_END");
				goto fail;
			}
		} else if(kw(p, "STEP", &rest)) {
			if(parse_step(&r, s, rest, &steptail) < 0)
				goto fail;
		} else if(r.tb) {
			/* testbound skips any other line here */
			verbose(VERB_ALGO, "%s:%d: skipped: %s", file, r.lineno,
				p);
		} else {
			rd_err(&r, "unknown line: %s", p);
			goto fail;
		}
	}
	if(!done) {
		rd_err(&r, "no SCENARIO_END");
		goto fail;
	}
	if(stubaddr[0]) {
		char buf[512];
		root_addr_add(s, stubaddr);
		size_t cap2;
		snprintf(buf, sizeof(buf), "stub-zone:\n\tname: \".\"\n"
			"\tstub-addr: %s\n", stubaddr);
		cap2 = s->config_len + strlen(buf) + 1;
		s->config = realloc(s->config, cap2);
		if(!s->config)
			goto fail;
		memcpy(s->config + s->config_len, buf, strlen(buf) + 1);
		s->config_len += strlen(buf);
	}
	if((r.modconf[0] && !(s->module_config = strdup(r.modconf))) ||
		(r.modules[0] && !(s->modules = strdup(r.modules)))) {
		rd_err(&r, "out of memory");
		goto fail;
	}
	fclose(r.in);
	ldns_rdf_deep_free(r.origin);
	ldns_rdf_deep_free(r.prev);
	return s;
fail:
	if(r.in)
		fclose(r.in);
	ldns_rdf_deep_free(r.origin);
	ldns_rdf_deep_free(r.prev);
	rpl_free(s);
	return NULL;
}

void
rpl_free(struct rpl_scenario *s)
{
	if(!s)
		return;
	while(s->ranges) {
		struct rpl_range *rg = s->ranges;
		s->ranges = rg->next;
		while(rg->entries) {
			struct rpl_entry *e = rg->entries;
			rg->entries = e->next;
			entry_free(e);
		}
		free(rg);
	}
	while(s->steps) {
		struct rpl_step *st = s->steps;
		s->steps = st->next;
		entry_free(st->entry);
		free(st->events);
		free(st->fname);
		free(st->fkey);
		free(st->ftext);
		free(st->expr);
		free(st->var);
		free(st->content);
		free(st);
	}
	if(s->tmpdir[0]) {
		DIR *d = opendir(s->tmpdir);
		struct dirent *de;
		char path[512];
		while(d && (de = readdir(d)) != NULL) {
			if(de->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", s->tmpdir,
				de->d_name);
			(void)unlink(path);
		}
		if(d)
			closedir(d);
		(void)rmdir(s->tmpdir);
	}
	free(s->module_config);
	free(s->modules);
	free(s->file);
	free(s->title);
	free(s->config);
	free(s);
}

/** first question rr or NULL */
static ldns_rr *
qrr(ldns_pkt *p)
{
	if(ldns_rr_list_rr_count(ldns_pkt_question(p)) < 1)
		return NULL;
	return ldns_rr_list_rr(ldns_pkt_question(p), 0);
}

/** header flags of a packet as a word (QR AA TC RD RA AD CD) */
static unsigned
pkt_flags(ldns_pkt *p)
{
	return (ldns_pkt_qr(p) ? 0x8000u : 0) | (ldns_pkt_aa(p) ? 0x400u : 0) |
		(ldns_pkt_tc(p) ? 0x200u : 0) | (ldns_pkt_rd(p) ? 0x100u : 0) |
		(ldns_pkt_ra(p) ? 0x80u : 0) | (ldns_pkt_ad(p) ? 0x20u : 0) |
		(ldns_pkt_cd(p) ? 0x10u : 0);
}

/** print flags */
static void
flags_str(unsigned f, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s%s%s%s%s", f & 0x8000 ? "QR " : "",
		f & 0x400 ? "AA " : "", f & 0x200 ? "TC " : "",
		f & 0x100 ? "RD " : "", f & 0x80 ? "RA " : "",
		f & 0x20 ? "AD " : "", f & 0x10 ? "CD " : "");
}

/** compare two RRs: owner case-insensitive, TTL only when with_ttl */
static int
rr_equal(const ldns_rr *a, const ldns_rr *b, int with_ttl)
{
	ldns_rr *ca = ldns_rr_clone(a), *cb = ldns_rr_clone(b);
	int eq = 0;
	if(ca && cb) {
		ldns_dname2canonical(ldns_rr_owner(ca));
		ldns_dname2canonical(ldns_rr_owner(cb));
		if(!with_ttl) {
			ldns_rr_set_ttl(ca, 0);
			ldns_rr_set_ttl(cb, 0);
		}
		eq = (ldns_rr_compare(ca, cb) == 0 &&
			ldns_rr_ttl(ca) == ldns_rr_ttl(cb));
		if(ldns_rr_rd_count(ca) == 0 && ldns_rr_rd_count(cb) == 0)
			eq = ldns_rr_get_type(ca) == ldns_rr_get_type(cb) &&
				ldns_rr_get_class(ca) == ldns_rr_get_class(cb)
				&& ldns_dname_compare(ldns_rr_owner(ca),
				ldns_rr_owner(cb)) == 0;
	}
	ldns_rr_free(ca);
	ldns_rr_free(cb);
	return eq;
}

/** compare sections as sets; @return 1 equal, else 0 and diff */
static int
section_equal(ldns_rr_list *want, ldns_rr_list *got, int with_ttl,
	const char *name, char *diff, size_t difflen)
{
	size_t i, j;
	for(i = 0; i < ldns_rr_list_rr_count(want); i++) {
		ldns_rr *w = ldns_rr_list_rr(want, i);
		int found = 0;
		for(j = 0; j < ldns_rr_list_rr_count(got) && !found; j++)
			if(rr_equal(w, ldns_rr_list_rr(got, j), with_ttl))
				found = 1;
		if(!found) {
			char *s = ldns_rr2str(w);
			snprintf(diff, difflen, "%s section lacks %s", name,
				s ? s : "?");
			free(s);
			return 0;
		}
	}
	for(j = 0; j < ldns_rr_list_rr_count(got); j++) {
		ldns_rr *g = ldns_rr_list_rr(got, j);
		int found = 0;
		for(i = 0; i < ldns_rr_list_rr_count(want) && !found; i++)
			if(rr_equal(ldns_rr_list_rr(want, i), g, with_ttl))
				found = 1;
		if(!found) {
			char *s = ldns_rr2str(g);
			snprintf(diff, difflen, "%s section has extra %s",
				name, s ? s : "?");
			free(s);
			return 0;
		}
	}
	return 1;
}

/** find the EDE code in a wire message; @return code or -1 */
static int
wire_ede(ldns_pkt *p)
{
	ldns_rdf *d = ldns_pkt_edns_data(p);
	const uint8_t *o;
	size_t n, i = 0;
	if(!d)
		return -1;
	o = ldns_rdf_data(d);
	n = ldns_rdf_size(d);
	while(i + 4 <= n) {
		uint16_t code = (uint16_t)(o[i] << 8 | o[i + 1]);
		uint16_t len = (uint16_t)(o[i + 2] << 8 | o[i + 3]);
		if(i + 4 + len > n)
			return -1;
		if(code == 15 && len >= 2)
			return o[i + 4] << 8 | o[i + 5];
		i += 4u + len;
	}
	return -1;
}

/** the COOKIE option of a wire message as lower-case hex, or "none" */
static void
wire_cookie(ldns_pkt *p, char *out, size_t outlen)
{
	ldns_rdf *d = ldns_pkt_edns_data(p);
	const uint8_t *o;
	size_t n, i = 0, k;
	snprintf(out, outlen, "none");
	if(!d)
		return;
	o = ldns_rdf_data(d);
	n = ldns_rdf_size(d);
	while(i + 4 <= n) {
		uint16_t code = (uint16_t)(o[i] << 8 | o[i + 1]);
		uint16_t len = (uint16_t)(o[i + 2] << 8 | o[i + 3]);
		if(i + 4 + len > n)
			return;
		if(code == 10 && 2 * (size_t)len < outlen) {
			for(k = 0; k < len; k++)
				snprintf(out + 2 * k, outlen - 2 * k, "%02x",
					o[i + 4 + k]);
			out[2 * len] = 0;
			return;
		}
		i += 4u + len;
	}
}

/** common matching of question/header/sections.
 * @return 1 match, else 0 and diff */
static int
match_common(struct rpl_entry *e, ldns_pkt *p, char *diff, size_t difflen)
{
	ldns_rr *eq = qrr(e->pkt), *pq = qrr(p);
	int m = e->match, ttl = (m & RPL_M_TTL) != 0;
	if(m & RPL_M_ALL)
		m |= RPL_M_OPCODE | RPL_M_FLAGS | RPL_M_RCODE |
			RPL_M_QUESTION | RPL_M_ANSWER | RPL_M_AUTHORITY |
			RPL_M_ADDITIONAL;
	if((m & RPL_M_OPCODE) && ldns_pkt_get_opcode(e->pkt) !=
		ldns_pkt_get_opcode(p)) {
		snprintf(diff, difflen, "opcode %d, wanted %d",
			(int)ldns_pkt_get_opcode(p),
			(int)ldns_pkt_get_opcode(e->pkt));
		return 0;
	}
	if(m & (RPL_M_QTYPE | RPL_M_QNAME | RPL_M_QCASE | RPL_M_SUBDOMAIN)) {
		if(!eq || !pq) {
			snprintf(diff, difflen, "no question");
			return 0;
		}
	}
	if((m & RPL_M_QTYPE) && ldns_rr_get_type(eq) != ldns_rr_get_type(pq)) {
		snprintf(diff, difflen, "qtype %d, wanted %d",
			(int)ldns_rr_get_type(pq), (int)ldns_rr_get_type(eq));
		return 0;
	}
	if((m & RPL_M_QNAME) && ldns_dname_compare(ldns_rr_owner(eq),
		ldns_rr_owner(pq)) != 0) {
		char *a = ldns_rdf2str(ldns_rr_owner(pq));
		char *b = ldns_rdf2str(ldns_rr_owner(eq));
		snprintf(diff, difflen, "qname %s, wanted %s", a ? a : "?",
			b ? b : "?");
		free(a);
		free(b);
		return 0;
	}
	if((m & RPL_M_QCASE) && (ldns_rdf_size(ldns_rr_owner(eq)) !=
		ldns_rdf_size(ldns_rr_owner(pq)) ||
		memcmp(ldns_rdf_data(ldns_rr_owner(eq)),
		ldns_rdf_data(ldns_rr_owner(pq)),
		ldns_rdf_size(ldns_rr_owner(eq))) != 0)) {
		snprintf(diff, difflen, "qname letter case differs");
		return 0;
	}
	if((m & RPL_M_SUBDOMAIN) && !ldns_dname_is_subdomain(
		ldns_rr_owner(pq), ldns_rr_owner(eq)) &&
		ldns_dname_compare(ldns_rr_owner(pq), ldns_rr_owner(eq)) != 0) {
		snprintf(diff, difflen, "qname not a subdomain");
		return 0;
	}
	if((m & RPL_M_FLAGS) && pkt_flags(e->pkt) != pkt_flags(p)) {
		char a[64], b[64];
		flags_str(pkt_flags(p), a, sizeof(a));
		flags_str(pkt_flags(e->pkt), b, sizeof(b));
		snprintf(diff, difflen, "flags '%s', wanted '%s'", a, b);
		return 0;
	}
	if(m & RPL_M_RCODE) {
		/* an extended rcode (BADCOOKIE) is compared with the OPT
		 * record's upper bits added */
		int want = ldns_pkt_get_rcode(e->pkt);
		int got = ldns_pkt_get_rcode(p);
		if(want > 15 && ldns_pkt_edns(p))
			got |= ldns_pkt_edns_extended_rcode(p) << 4;
		if(got != want) {
			snprintf(diff, difflen, "rcode %d, wanted %d", got,
				want);
			return 0;
		}
	}
	if((m & RPL_M_QUESTION) && !section_equal(ldns_pkt_question(e->pkt),
		ldns_pkt_question(p), 0, "question", diff, difflen))
		return 0;
	if((m & RPL_M_ANSWER) && !section_equal(ldns_pkt_answer(e->pkt),
		ldns_pkt_answer(p), ttl, "answer", diff, difflen))
		return 0;
	if((m & RPL_M_AUTHORITY) && !section_equal(ldns_pkt_authority(e->pkt),
		ldns_pkt_authority(p), ttl, "authority", diff, difflen))
		return 0;
	if((m & RPL_M_ADDITIONAL) && !section_equal(
		ldns_pkt_additional(e->pkt), ldns_pkt_additional(p), ttl,
		"additional", diff, difflen))
		return 0;
	if((m & RPL_M_EDNS) && !ldns_pkt_edns(p)) {
		snprintf(diff, difflen, "no EDNS");
		return 0;
	}
	if((m & RPL_M_NOEDNS) && ldns_pkt_edns(p)) {
		snprintf(diff, difflen, "has EDNS, wanted none");
		return 0;
	}
	if((m & RPL_M_EDNS) && e->do_bit != (int)ldns_pkt_edns_do(p)) {
		snprintf(diff, difflen, "DO bit %d, wanted %d",
			(int)ldns_pkt_edns_do(p), e->do_bit);
		return 0;
	}
	if(m & RPL_M_EDNSDATA) {
		/* the EDNS options, byte for byte (none when the entry
		 * has no HEX_EDNSDATA) */
		ldns_rdf *w = ldns_pkt_edns_data(e->pkt),
			*g = ldns_pkt_edns(p) ? ldns_pkt_edns_data(p) : NULL;
		size_t wl = w ? ldns_rdf_size(w) : 0,
			gl = g ? ldns_rdf_size(g) : 0;
		if(wl != gl || (wl && memcmp(ldns_rdf_data(w),
			ldns_rdf_data(g), wl) != 0)) {
			char *gs = g ? ldns_rdf2str(g) : NULL;
			snprintf(diff, difflen, "EDNS data %s differs",
				gs ? gs : "(none)");
			free(gs);
			return 0;
		}
	}
	if(m & RPL_M_COOKIE) {
		char ck[96];
		wire_cookie(p, ck, sizeof(ck));
		if(strcmp(ck, e->cookie) != 0) {
			snprintf(diff, difflen, "COOKIE %s, wanted %s", ck,
				e->cookie);
			return 0;
		}
	}
	if(m & RPL_M_EDE) {
		int ede = wire_ede(p);
		if(ede != e->ede) {
			snprintf(diff, difflen, "EDE %d, wanted %d", ede,
				e->ede);
			return 0;
		}
	}
	return 1;
}

/** the MATCH keywords only testbound's matching implements */
#define RPL_M_TB_ONLY (RPL_M_DO | RPL_M_ALL_NOEDNS | RPL_M_CLIENT_COOKIE | \
	RPL_M_SERVER_COOKIE | RPL_M_SERIAL)

/** with petrel's semantics, the testbound keywords of an entry are
 * matched as testbound matches them. @return 1 when they match */
static int
match_tb_only(struct rpl_entry *e, ldns_pkt *p, int tcp, char *diff,
	size_t difflen)
{
	struct rpl_entry t = *e;
	t.match &= RPL_M_TB_ONLY | RPL_M_TTL;
	if(!(t.match & RPL_M_TB_ONLY))
		return 1;
	return rpl_match_tb(&t, p, tcp, diff, difflen);
}

int
rpl_match_query(struct rpl_entry *e, ldns_pkt *q, int tcp)
{
	char diff[256];
	if(!match_tb_only(e, q, tcp, diff, sizeof(diff)))
		return 0;
	if((e->match & RPL_M_TCP) && !tcp)
		return 0;
	if((e->match & RPL_M_UDP) && tcp)
		return 0;
	/* for queries, "flags" and "all" compare the flags of a query:
	 * the entry's REPLY line gives the reply's, so only compare the
	 * query bits RD and CD there */
	if(e->match & (RPL_M_FLAGS | RPL_M_ALL)) {
		struct rpl_entry tmp = *e;
		if((ldns_pkt_rd(e->pkt) != ldns_pkt_rd(q)) ||
			(ldns_pkt_cd(e->pkt) != ldns_pkt_cd(q)))
			return 0;
		tmp.match &= ~(RPL_M_FLAGS | RPL_M_ALL | RPL_M_RCODE);
		if(e->match & RPL_M_ALL)
			tmp.match |= RPL_M_OPCODE | RPL_M_QUESTION;
		return match_common(&tmp, q, diff, sizeof(diff));
	}
	return match_common(e, q, diff, sizeof(diff));
}

int
rpl_match_answer(struct rpl_entry *e, ldns_pkt *a, const uint8_t *wire,
	size_t wlen, char *diff, size_t difflen)
{
	(void)wire;
	(void)wlen;
	if(e->match == 0) {
		snprintf(diff, difflen, "entry has no MATCH line");
		return 0;
	}
	if(!match_tb_only(e, a, 0, diff, difflen))
		return 0;
	return match_common(e, a, diff, difflen);
}

/** compare two RRs as testbound's text comparison does: names in the
 * owner and the RDATA without regard to case, the TTL only when with_ttl */
static int
rr_equal_tb(const ldns_rr *a, const ldns_rr *b, int with_ttl)
{
	ldns_rr *ca = ldns_rr_clone(a), *cb = ldns_rr_clone(b);
	int eq = 0;
	if(ca && cb) {
		ldns_rr2canonical(ca);
		ldns_rr2canonical(cb);
		if(!with_ttl) {
			ldns_rr_set_ttl(ca, 0);
			ldns_rr_set_ttl(cb, 0);
		}
		if(ldns_rr_get_type(ca) == ldns_rr_get_type(cb) &&
			ldns_rr_get_class(ca) == ldns_rr_get_class(cb) &&
			ldns_rr_ttl(ca) == ldns_rr_ttl(cb) &&
			ldns_dname_compare(ldns_rr_owner(ca),
			ldns_rr_owner(cb)) == 0) {
			size_t i;
			eq = ldns_rr_rd_count(ca) == ldns_rr_rd_count(cb);
			for(i = 0; eq && i < ldns_rr_rd_count(ca); i++)
				if(ldns_rdf_compare(ldns_rr_rdf(ca, i),
					ldns_rr_rdf(cb, i)) != 0)
					eq = 0;
		}
	}
	ldns_rr_free(ca);
	ldns_rr_free(cb);
	return eq;
}

/** compare a section in order, as testbound does; @return 1 equal, else
 * 0 and the first difference (an order difference said as such) */
static int
section_equal_tb(ldns_rr_list *want, ldns_rr_list *got, int with_ttl,
	const char *name, char *diff, size_t difflen)
{
	size_t i, nw = ldns_rr_list_rr_count(want),
		ng = ldns_rr_list_rr_count(got);
	for(i = 0; i < nw && i < ng; i++) {
		if(!rr_equal_tb(ldns_rr_list_rr(want, i),
			ldns_rr_list_rr(got, i), with_ttl))
			break;
	}
	if(i == nw && i == ng)
		return 1;
	if(nw == ng && section_equal(want, got, with_ttl, name, diff,
		difflen)) {
		char *w = ldns_rr2str(ldns_rr_list_rr(want, i));
		char *c;
		for(c = w; c && *c; c++)
			if(*c == '\n' || *c == '\t')
				*c = ' ';
		snprintf(diff, difflen, "%s section: the records come in "
			"another order (record %d wanted: %s)", name, (int)i + 1,
			w ? w : "?");
		free(w);
		return 0;
	}
	if(!section_equal(want, got, with_ttl, name, diff, difflen))
		return 0;
	snprintf(diff, difflen, "%s section: %d records, wanted %d", name,
		(int)ng, (int)nw);
	return 0;
}

/** find an EDNS option in option data; @return its offset (of the code)
 * or -1 */
static long
opt_find(const uint8_t *o, size_t n, uint16_t code)
{
	size_t i = 0;
	while(i + 4 <= n) {
		uint16_t c = (uint16_t)(o[i] << 8 | o[i + 1]);
		uint16_t len = (uint16_t)(o[i + 2] << 8 | o[i + 3]);
		if(i + 4 + len > n)
			return -1;
		if(c == code)
			return (long)i;
		i += 4u + len;
	}
	return -1;
}

/** take an option out of option data; @return its length or -1 */
static int
opt_snip(uint8_t *o, size_t *n, uint16_t code, uint8_t *val)
{
	long at = opt_find(o, *n, code);
	uint16_t len;
	if(at < 0)
		return -1;
	len = (uint16_t)(o[at + 2] << 8 | o[at + 3]);
	if(val)
		memcpy(val, o + at + 4, len);
	memmove(o + at, o + at + 4 + len, *n - (size_t)at - 4 - len);
	*n -= 4u + len;
	return len;
}

/** an rcode name */
static const char *
rcode_name(int r)
{
	static const char *n[] = {"NOERROR", "FORMERR", "SERVFAIL",
		"NXDOMAIN", "NOTIMPL", "REFUSED", "YXDOMAIN", "YXRRSET",
		"NXRRSET", "NOTAUTH", "NOTZONE"};
	return r >= 0 && r <= 10 ? n[r] : "rcode?";
}

/** the SOA serial in the authority section, or 0 */
static uint32_t
auth_serial(ldns_pkt *p)
{
	size_t i;
	for(i = 0; i < ldns_rr_list_rr_count(ldns_pkt_authority(p)); i++) {
		ldns_rr *rr = ldns_rr_list_rr(ldns_pkt_authority(p), i);
		if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_SOA &&
			ldns_rr_rd_count(rr) >= 3)
			return ldns_rdf2native_int32(ldns_rr_rdf(rr, 2));
	}
	return 0;
}

int
rpl_match_tb(struct rpl_entry *e, ldns_pkt *p, int tcp, char *diff,
	size_t difflen)
{
	char dd[512];
	int m = e->match, ttl = (m & RPL_M_TTL) != 0;
	ldns_rr *eq = qrr(e->pkt), *pq = qrr(p);
	ldns_rdf *od = ldns_pkt_edns(p) ? ldns_pkt_edns_data(p) : NULL;
	uint8_t opts[65536], val[65536];
	size_t on = od ? ldns_rdf_size(od) : 0;
	const int petrel_only = RPL_M_QCASE | RPL_M_FLAGS | RPL_M_AUTHORITY |
		RPL_M_ADDITIONAL | RPL_M_EDNS | RPL_M_COOKIE;
	if(!diff) {
		diff = dd;
		difflen = sizeof(dd);
	}
	diff[0] = 0;
	if(od)
		memcpy(opts, ldns_rdf_data(od), on);
	/* EDE and cookies first: they are taken out of the message */
	if(m & RPL_M_EDE) {
		int len = opt_snip(opts, &on, 15, val);
		int code = len >= 2 ? (val[0] << 8 | val[1]) : -1;
		if(code < 0 && e->ede != -1) {
			if(e->ede == RPL_EDE_ANY)
				snprintf(diff, difflen, "no EDE, wanted one");
			else	snprintf(diff, difflen, "no EDE, wanted EDE %d",
					e->ede);
			return 0;
		}
		if(e->ede != RPL_EDE_ANY && code != e->ede) {
			snprintf(diff, difflen, "EDE %d, wanted EDE %d", code,
				e->ede);
			return 0;
		}
	}
	if(m & (RPL_M_CLIENT_COOKIE | RPL_M_SERVER_COOKIE)) {
		int len = opt_snip(opts, &on, 10, NULL);
		if(len != 8 && len != 24) {
			snprintf(diff, difflen, "no DNS cookie");
			return 0;
		}
		if((m & RPL_M_CLIENT_COOKIE) && len != 8) {
			snprintf(diff, difflen, "a cookie of %d bytes, wanted "
				"a client cookie (8)", len);
			return 0;
		}
		if((m & RPL_M_SERVER_COOKIE) && len != 24) {
			snprintf(diff, difflen, "a cookie of %d bytes, wanted "
				"a server cookie (24)", len);
			return 0;
		}
	}
	if((m & RPL_M_OPCODE) && ldns_pkt_get_opcode(e->pkt) !=
		ldns_pkt_get_opcode(p)) {
		snprintf(diff, difflen, "opcode %d, wanted %d",
			(int)ldns_pkt_get_opcode(p),
			(int)ldns_pkt_get_opcode(e->pkt));
		return 0;
	}
	if((m & (RPL_M_QTYPE | RPL_M_QNAME | RPL_M_SUBDOMAIN)) &&
		(!eq || !pq)) {
		snprintf(diff, difflen, "no question");
		return 0;
	}
	if((m & RPL_M_QTYPE) && ldns_rr_get_type(eq) != ldns_rr_get_type(pq)) {
		snprintf(diff, difflen, "qtype %d, wanted %d",
			(int)ldns_rr_get_type(pq), (int)ldns_rr_get_type(eq));
		return 0;
	}
	if((m & RPL_M_QNAME) && ldns_dname_compare(ldns_rr_owner(eq),
		ldns_rr_owner(pq)) != 0) {
		snprintf(diff, difflen, "another qname");
		return 0;
	}
	if((m & RPL_M_RCODE) && ldns_pkt_get_rcode(e->pkt) !=
		ldns_pkt_get_rcode(p)) {
		snprintf(diff, difflen, "rcode %s, wanted %s",
			rcode_name(ldns_pkt_get_rcode(p)),
			rcode_name(ldns_pkt_get_rcode(e->pkt)));
		return 0;
	}
	if((m & RPL_M_QUESTION) && !section_equal_tb(ldns_pkt_question(e->pkt),
		ldns_pkt_question(p), ttl, "question", diff, difflen))
		return 0;
	if((m & RPL_M_ANSWER) && !section_equal_tb(ldns_pkt_answer(e->pkt),
		ldns_pkt_answer(p), ttl, "answer", diff, difflen))
		return 0;
	if((m & RPL_M_SUBDOMAIN) && !ldns_dname_is_subdomain(
		ldns_rr_owner(pq), ldns_rr_owner(eq)) &&
		ldns_dname_compare(ldns_rr_owner(pq), ldns_rr_owner(eq)) != 0) {
		snprintf(diff, difflen, "qname not a subdomain");
		return 0;
	}
	if((m & RPL_M_SERIAL) && auth_serial(p) != e->serial) {
		snprintf(diff, difflen, "serial %u, wanted %u",
			(unsigned)auth_serial(p), (unsigned)e->serial);
		return 0;
	}
	if((m & RPL_M_DO) && !(ldns_pkt_edns(p) && ldns_pkt_edns_do(p))) {
		snprintf(diff, difflen, "no DO bit");
		return 0;
	}
	if((m & RPL_M_NOEDNS) && ldns_pkt_edns(p)) {
		snprintf(diff, difflen, "has EDNS, wanted none");
		return 0;
	}
	if(m & RPL_M_EDNSDATA) {
		ldns_rdf *w = ldns_pkt_edns_data(e->pkt);
		size_t wl = w ? ldns_rdf_size(w) : 0;
		if((wl || on) && (wl != on || memcmp(ldns_rdf_data(w), opts,
			wl) != 0)) {
			snprintf(diff, difflen, "EDNS options differ (%d "
				"bytes, wanted %d)", (int)on, (int)wl);
			return 0;
		}
	}
	if((m & RPL_M_TCP) && !tcp) {
		snprintf(diff, difflen, "over UDP, wanted TCP");
		return 0;
	}
	if((m & RPL_M_UDP) && tcp) {
		snprintf(diff, difflen, "over TCP, wanted UDP");
		return 0;
	}
	if(m & (RPL_M_ALL | RPL_M_ALL_NOEDNS)) {
		char a[64], b[64];
		unsigned fw = pkt_flags(e->pkt), fg = pkt_flags(p);
		if(ldns_pkt_get_opcode(e->pkt) != ldns_pkt_get_opcode(p)) {
			snprintf(diff, difflen, "opcode %d, wanted %d",
				(int)ldns_pkt_get_opcode(p),
				(int)ldns_pkt_get_opcode(e->pkt));
			return 0;
		}
		if(ldns_pkt_get_rcode(e->pkt) != ldns_pkt_get_rcode(p)) {
			snprintf(diff, difflen, "rcode %s, wanted %s",
				rcode_name(ldns_pkt_get_rcode(p)),
				rcode_name(ldns_pkt_get_rcode(e->pkt)));
			return 0;
		}
		if(fw != fg) {
			flags_str(fg, a, sizeof(a));
			flags_str(fw, b, sizeof(b));
			snprintf(diff, difflen, "flags '%s', wanted '%s'", a, b);
			return 0;
		}
		if(!section_equal_tb(ldns_pkt_question(e->pkt),
			ldns_pkt_question(p), ttl, "question", diff, difflen) ||
			!section_equal_tb(ldns_pkt_answer(e->pkt),
			ldns_pkt_answer(p), ttl, "answer", diff, difflen) ||
			!section_equal_tb(ldns_pkt_authority(e->pkt),
			ldns_pkt_authority(p), ttl, "authority", diff, difflen) ||
			!section_equal_tb(ldns_pkt_additional(e->pkt),
			ldns_pkt_additional(p), ttl, "additional", diff,
			difflen))
			return 0;
		if(m & RPL_M_ALL) {
			/* the EDNS record: testbound's entries have one with
			 * DO or EDNS data, payload size 1232 */
			ldns_rdf *w = ldns_pkt_edns_data(e->pkt);
			size_t wl = w ? ldns_rdf_size(w) : 0;
			if(e->edns != (ldns_pkt_edns(p) != 0)) {
				snprintf(diff, difflen, e->edns ? "no EDNS "
					"record, wanted one" : "an EDNS record, "
					"wanted none");
				return 0;
			}
			/* the DO bit only with ttl: without it testbound
			 * zeroes every TTL field of both packets before it
			 * compares them (testpkts.c zerottls), the OPT
			 * record's too, which holds the extended rcode, the
			 * version and the DO bit */
			if(e->edns && ttl && e->do_bit !=
				(ldns_pkt_edns_do(p) != 0)) {
				snprintf(diff, difflen, "EDNS DO bit %d, wanted "
					"%d", (int)ldns_pkt_edns_do(p), e->do_bit);
				return 0;
			}
			if(e->edns && ldns_pkt_edns_udp_size(p) != 1232) {
				snprintf(diff, difflen, "EDNS payload size %d, "
					"wanted 1232",
					(int)ldns_pkt_edns_udp_size(p));
				return 0;
			}
			if(e->edns && (wl != on || (wl && memcmp(
				ldns_rdf_data(w), opts, wl) != 0))) {
				int ede = opt_find(opts, on, 15) >= 0;
				snprintf(diff, difflen, "EDNS options differ "
					"(%d bytes, wanted %d%s)", (int)on,
					(int)wl, ede ? "; an EDE is there" : "");
				return 0;
			}
		}
	}
	if(m & petrel_only) {
		struct rpl_entry t = *e;
		t.match &= petrel_only;
		return match_common(&t, p, diff, difflen);
	}
	return 1;
}

int
rpl_make_reply(struct rpl_entry *e, ldns_pkt *q, int tb, uint8_t **out,
	size_t *outlen)
{
	ldns_pkt *p = NULL;
	ldns_status st;
	if(e->raw && e->hex_answer && ldns_wire2pkt(&p, e->raw, e->rawlen) ==
		LDNS_STATUS_OK) {
		/* testbound: a hex reply that parses gets the ADJUSTs */
	} else if(e->raw) {
		ldns_pkt_free(p);
		*out = malloc(e->rawlen ? e->rawlen : 1);
		if(!*out)
			return -1;
		memcpy(*out, e->raw, e->rawlen);
		*outlen = e->rawlen;
		if(e->copy_id && e->rawlen >= 2) {
			(*out)[0] = (uint8_t)(ldns_pkt_id(q) >> 8);
			(*out)[1] = (uint8_t)ldns_pkt_id(q);
		}
		return 0;
	}
	if(!p && !(p = ldns_pkt_clone(e->pkt)))
		return -1;
	if(e->copy_id)
		ldns_pkt_set_id(p, ldns_pkt_id(q));
	else if(!e->hex_answer)
		ldns_pkt_set_id(p, 0);
	if(e->copy_query) {
		ldns_rr_list_deep_free(ldns_pkt_question(p));
		ldns_pkt_set_question(p,
			ldns_rr_list_clone(ldns_pkt_question(q)));
		ldns_pkt_set_qdcount(p, (uint16_t)ldns_rr_list_rr_count(
			ldns_pkt_question(p)));
	}
	if(e->edns) {
		ldns_pkt_set_edns_udp_size(p, tb ? 1232 : 4096);
		ldns_pkt_set_edns_do(p, (signed char)e->do_bit);
	}
	if(e->copy_ecs && ldns_pkt_edns_data(p) &&
		ldns_rdf_size(ldns_pkt_edns_data(p)) >= 8) {
		/* testbound's copy_ednsdata_assume_clientsubnet: the one
		 * option is ECS; its scope becomes its source prefix length
		 * (the entry writes the query's), plus one with
		 * increment_ecs_scope */
		uint8_t *d = ldns_rdf_data(ldns_pkt_edns_data(p));
		d[7] = (uint8_t)(d[6] + (e->inc_ecs ? 1 : 0));
	}
	st = ldns_pkt2wire(out, p, outlen);
	ldns_pkt_free(p);
	return st == LDNS_STATUS_OK ? 0 : -1;
}

int
rpl_make_reply_extra(struct rpl_entry *e, ldns_pkt *q, int tb, int k,
	uint8_t **out, size_t *outlen)
{
	struct rpl_entry t;
	ldns_pkt *x, *p;
	int r;
	if(k < 0 || k >= e->extra_packets || !e->extra || !e->pkt)
		return -1;
	x = e->extra[k];
	if(!(p = ldns_pkt_clone(e->pkt)))
		return -1;
	/* the first packet's header; the extra one's RRs (the reader puts
	 * every section but the question into its answer section) */
	ldns_rr_list_deep_free(ldns_pkt_answer(p));
	ldns_pkt_set_answer(p, ldns_rr_list_clone(ldns_pkt_answer(x)));
	ldns_pkt_set_ancount(p, (uint16_t)ldns_rr_list_rr_count(
		ldns_pkt_answer(p)));
	ldns_rr_list_deep_free(ldns_pkt_authority(p));
	ldns_pkt_set_authority(p, ldns_rr_list_new());
	ldns_pkt_set_nscount(p, 0);
	ldns_rr_list_deep_free(ldns_pkt_additional(p));
	ldns_pkt_set_additional(p, ldns_rr_list_new());
	ldns_pkt_set_arcount(p, 0);
	if(ldns_rr_list_rr_count(ldns_pkt_question(x)) > 0) {
		ldns_rr_list_deep_free(ldns_pkt_question(p));
		ldns_pkt_set_question(p, ldns_rr_list_clone(
			ldns_pkt_question(x)));
		ldns_pkt_set_qdcount(p, (uint16_t)ldns_rr_list_rr_count(
			ldns_pkt_question(p)));
	}
	t = *e;
	t.pkt = p;
	t.raw = NULL;
	t.hex_answer = 0;
	r = rpl_make_reply(&t, q, tb, out, outlen);
	ldns_pkt_free(p);
	return r;
}
