/*
 * util/config_doc.c - example.conf and petrel.conf(5) from the option table.
 *
 * The prose around the options lives here; everything about an option (its
 * name, argument, default, limits, reload behaviour, description) comes from
 * the table. The output is deterministic and does not depend on the build
 * (build-dependent defaults are printed from doc_def), so that one committed
 * copy of each document fits every build.
 */
#include "config.h"
#include "util/config_doc.h"
#include "util/config_options.h"
#include <ctype.h>
#include <stdio.h>
#include <string.h>

/** the width comments are wrapped to in example.conf */
#define EXAMPLE_WIDTH 76

/** Print text as comment lines "prefix# ...", wrapped at word breaks. */
static void
ex_comment(FILE *out, const char *prefix, const char *text)
{
	size_t col = 0, plen = strlen(prefix) + 2 + (prefix[0] == '\t' ? 7 : 0);
	const char *s = text;
	fprintf(out, "%s#", prefix);
	while(*s) {
		const char *e = s;
		size_t wl;
		while(*e && *e != ' ')
			e++;
		wl = (size_t)(e - s);
		if(col > 0 && plen + col + 1 + wl > EXAMPLE_WIDTH) {
			fprintf(out, "\n%s#", prefix);
			col = 0;
		}
		fprintf(out, " %.*s", (int)wl, s);
		col += wl + 1;
		s = e;
		while(*s == ' ')
			s++;
	}
	fprintf(out, "\n");
}

/** @return 1 when the option is a list (repeatable), else 0 */
static int
is_list(const struct config_option *o)
{
	if(o->type == OPT_AUTH)
		return strcmp(o->name, "primary") == 0 ||
			strcmp(o->name, "master") == 0 ||
			strcmp(o->name, "allow-notify") == 0;
	switch(o->type) {
	case OPT_ADDR_LIST: case OPT_CTRL_LIST: case OPT_NAME_LIST:
	case OPT_PATH_LIST:
	case OPT_NETBLOCK_LIST: case OPT_ACL: case OPT_LOCALZONE:
	case OPT_LOCALDATA: case OPT_LOCALDATA_PTR: case OPT_ZONE_ADDR:
	case OPT_ZONE_HOST: case OPT_NAME_NUM_LIST:
	case OPT_NETBLOCK_NUM_LIST: case OPT_POLICY: case OPT_PORT_LIST:
	case OPT_PORT_RULES:
		return 1;
	default:
		break;
	}
	return 0;
}

/** The default as config text ("" quoted), into buf. */
static const char *
def_text(const struct config_option *o, char *buf, size_t len)
{
	if(o->flags & OPT_F_BUILD_DEFAULT)
		snprintf(buf, len, "%s", o->ex ? o->ex : "");
	else if(!o->def)
		snprintf(buf, len, "%s", o->ex ? o->ex : "");
	else if(o->def[0] == 0)
		snprintf(buf, len, "\"\"");
	else if(strchr(o->def, ' '))
		snprintf(buf, len, "\"%s\"", o->def);
	else
		snprintf(buf, len, "%s", o->def);
	return buf;
}

/** The default as the documents state it, into buf. */
static const char *
def_doc(const struct config_option *o, char *buf, size_t len)
{
	if(o->doc_def)
		snprintf(buf, len, "%s", o->doc_def);
	else if(o->def && o->def[0] == 0)
		snprintf(buf, len, "\"\" (empty)");
	else if(o->def)
		snprintf(buf, len, "%s", o->def);
	else
		snprintf(buf, len, "none");
	return buf;
}

/** Print the limits of a numeric option into buf ("" for others). */
static const char *
limits_text(const struct config_option *o, char *buf, size_t len)
{
	const char *unit = "";
	buf[0] = 0;
	if(o->arg && strcmp(o->arg, "<msec>") == 0)
		unit = "in milliseconds, ";
	else if(o->arg && strcmp(o->arg, "<seconds>") == 0)
		unit = "in seconds, ";
	if(o->type == OPT_INT)
		snprintf(buf, len, "%sfrom %lld to %lld", unit, o->min, o->max);
	else if(o->type == OPT_INT_POW2)
		snprintf(buf, len, "a power of 2 from %lld to %lld", o->min,
			o->max);
	else if(o->type == OPT_SIZE) {
		const long long g = 1024LL * 1024 * 1024, m = 1024LL * 1024;
		if(o->max % g == 0)
			snprintf(buf, len, "from %lld to %lldg", o->min,
				o->max / g);
		else if(o->max % m == 0)
			snprintf(buf, len, "from %lld to %lldm", o->min,
				o->max / m);
		else
			snprintf(buf, len, "from %lld to %lld", o->min, o->max);
	}
	return buf;
}

/** One option in example.conf. */
static void
ex_option(FILE *out, const struct config_option *o, const char *ind)
{
	char line[1024], d[256], lim[128], val[256];
	limits_text(o, lim, sizeof(lim));
	snprintf(line, sizeof(line), "%c%s%s%s%s%s%s.",
		toupper((unsigned char)o->desc[0]), o->desc + 1,
		is_list(o) ? "; repeat for more" : "",
		(o->flags & OPT_F_IMPLEMENTED) ? "" :
		" (not implemented yet: accepted with a warning)",
		lim[0] ? " (" : "", lim, lim[0] ? ")" : "");
	ex_comment(out, ind, line);
	if(!o->def || o->doc_def || (o->flags & OPT_F_BUILD_DEFAULT)) {
		snprintf(line, sizeof(line), "Default: %s.",
			def_doc(o, d, sizeof(d)));
		ex_comment(out, ind, line);
	}
	def_text(o, val, sizeof(val));
	/* (a build-dependent default the example sets is said in words
	 * above, not as a line) */
	if((o->def && !((o->flags & OPT_F_BUILD_DEFAULT) &&
		(o->flags & OPT_F_EXAMPLE_SET))) ||
		!(o->flags & OPT_F_EXAMPLE_SET))
		fprintf(out, "%s# %s: %s\n", ind, o->name, val);
	if(o->flags & OPT_F_EXAMPLE_SET)
		fprintf(out, "%s%s: %s\n", ind, o->name, o->ex);
	fprintf(out, "\n");
}

/** @return 1 for the rows that are not petrel options (ignored, or load
 * errors), listed by name at the end of the documents */
static int
is_unbound_only(const struct config_option *o)
{
	return o->type == OPT_IGNORED || o->type == OPT_INSECURE;
}

/** @return 1 if the row belongs in the list of that kind (0 ignored,
 * 1 load errors) */
static int
of_kind(const struct config_option *o, int refused)
{
	if(refused)
		return o->type == OPT_INSECURE;
	return o->type == OPT_IGNORED;
}

/** the clause's name in the lists ("server:", or the ignored clauses) */
static const char *
list_clause_str(int clause)
{
	if(clause == CLAUSE_IGNORED)
		return "the ignored clauses";
	return config_clause_str(clause);
}

/** Print the names of the ignored (or refused) options of a clause,
 * wrapped. */
static void
ex_ignored(FILE *out, int clause, int refused)
{
	char line[8192];
	size_t i, n = 0;
	line[0] = 0;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		int r;
		if(!of_kind(o, refused) || o->clause != clause ||
			(!refused && o->desc))
			continue;
		r = snprintf(line + n, sizeof(line) - n, "%s%s:",
			n ? " " : "", o->name);
		if(r > 0 && (size_t)r < sizeof(line) - n)
			n += (size_t)r;
	}
	if(n) {
		fprintf(out, "# in %s\n", list_clause_str(clause));
		ex_comment(out, "", line);
	}
	/* the ones that say why, a line each */
	for(i = 0; !refused && i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		char why[1024];
		if(!of_kind(o, 0) || o->clause != clause || !o->desc)
			continue;
		snprintf(why, sizeof(why), "%s: (%s) %s", o->name,
			list_clause_str(clause), o->desc);
		ex_comment(out, "", why);
	}
}

/** Print the options of one clause for example.conf. */
static void
ex_clause(FILE *out, int clause, const char *ind)
{
	size_t i;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		if(o->clause == clause && !is_unbound_only(o))
			ex_option(out, o, ind);
	}
}

int
config_doc_example(FILE *out)
{
	size_t i;
	fprintf(out,
"#\n"
"# example.conf - a petrel configuration with every option.\n"
"#\n"
"# GENERATED from the option table in util/config_options.c by\n"
"# 'make config-docs'; the test suite fails when this file and the table\n"
"# differ, so edit the table, not this file. See petrel.conf(5).\n"
"#\n"
"# The lines that are not commented out make petrel answer on 127.0.0.1\n"
"# port 5353 in the foreground, without changing user, so this file can\n"
"# be used as it is:\n"
"#\n"
"#\tpetrel -c example.conf\n"
"#\tdig @127.0.0.1 -p 5353 example.com\n"
"#\n"
"# Every other option is shown commented out with its default value.\n"
"# The syntax is Unbound's: 'key: value' lines under a clause (server:,\n"
"# forward-zone:, stub-zone:, remote-control:), values may be quoted,\n"
"# '#' starts a comment, yes/no for switches, sizes take a k, m or g\n"
"# suffix, options marked 'repeat for more' accumulate, and\n"
"# include: \"file-or-glob\" reads other files in place.\n"
"#\n\n");
	fprintf(out, "server:\n");
	ex_clause(out, CLAUSE_SERVER, "\t");
	ex_comment(out, "",
		"A forward-zone: clause sends the queries for a zone, and the "
		"names below it, to the resolvers given. Repeat the clause for "
		"more zones. Name \".\" forwards everything.");
	fprintf(out, "# forward-zone:\n");
	ex_clause(out, CLAUSE_FORWARD, "\t");
	ex_comment(out, "",
		"A stub-zone: clause names the authoritative servers of a "
		"zone, for zones that are not delegated from the public tree. "
		"Repeat the clause for more zones.");
	fprintf(out, "# stub-zone:\n");
	ex_clause(out, CLAUSE_STUB, "\t");
	ex_comment(out, "",
		"A tsig-key: clause defines a key that zone transfers are "
		"signed with (RFC 8945). Repeat the clause for more keys.");
	fprintf(out, "# tsig-key:\n");
	ex_clause(out, CLAUSE_TSIG, "\t");
	ex_comment(out, "",
		"An auth-zone: clause keeps a copy of a zone, transferred from "
		"its primaries (and kept fresh by the SOA timers and NOTIFY) "
		"or read from a file, and answers from it: to clients "
		"(for-downstream) and to the iterator (for-upstream, e.g. a "
		"local copy of the root, RFC 8806). Repeat the clause for "
		"more zones.");
	fprintf(out, "# auth-zone:\n");
	ex_clause(out, CLAUSE_AUTH, "\t");
	ex_comment(out, "",
		"An rpz: clause loads a response policy zone (RPZ): its "
		"triggers (QNAME, client IP, response IP) rewrite answers. "
		"Repeat the clause for more zones; they apply in file order.");
	fprintf(out, "# rpz:\n");
	ex_clause(out, CLAUSE_RPZ, "\t");
	ex_comment(out, "",
		"A view: clause holds local zones and response-ip lines for "
		"the clients that access-control-view or interface-view send "
		"to it: split horizon. Repeat the clause for more views.");
	fprintf(out, "# view:\n");
	ex_clause(out, CLAUSE_VIEW, "\t");
	ex_comment(out, "",
		"The remote-control: clause sets up the control server that "
		"petrel-control(8) talks to.");
	fprintf(out, "remote-control:\n");
	ex_clause(out, CLAUSE_REMOTE, "\t");
	ex_comment(out, "",
		"The dnstap: clause logs DNS messages in the dnstap format "
		"to a Frame Streams collector (a build with dnstap; petrel "
		"-V says).");
	fprintf(out, "dnstap:\n");
	ex_clause(out, CLAUSE_DNSTAP, "\t");
	ex_comment(out, "",
		"The cachedb: clause sets up the second-level cache that the "
		"cachedb module (module-config: \"cachedb iterator\") shares "
		"with the other resolvers of a fleet, on Redis.");
	fprintf(out, "cachedb:\n");
	ex_clause(out, CLAUSE_CACHEDB, "\t");
	ex_comment(out, "",
		"Unbound options that petrel accepts and ignores, with one "
		"warning each (name, file and line):");
	for(i = CLAUSE_SERVER; i <= CLAUSE_IGNORED; i++)
		ex_ignored(out, (int)i, 0);
	ex_comment(out, "",
		"Unbound options that ask for a service petrel does not "
		"provide yet (DNS over QUIC, DNSCrypt, DNS over TLS on a second "
		"port): a line that turns one on stops the load with its file "
		"and line, so that nobody believes they are served; 'no' or "
		"\"\" is accepted. module-config: may name every module petrel "
		"has (validator, iterator, respip, dns64, subnetcache, cachedb); "
		"one it does not have (python, dynlib, ipsecmod, ipset) is a "
		"load error.");
	for(i = CLAUSE_SERVER; i <= CLAUSE_IGNORED; i++)
		ex_ignored(out, (int)i, 1);
	{
		char line[1024];
		size_t n = 0;
		line[0] = 0;
		for(i = 0; config_ignored_clauses[i]; i++) {
			int r = snprintf(line + n, sizeof(line) - n, "%s%s:",
				i ? " " : "", config_ignored_clauses[i]);
			if(r > 0 && (size_t)r < sizeof(line) - n)
				n += (size_t)r;
		}
		fprintf(out, "# and these clauses, with everything in them:\n");
		ex_comment(out, "", line);
	}
	return ferror(out) ? -1 : 0;
}

/** Print text for roff: backslashes doubled, '-' as \-, and a leading
 * '.' or '\'' guarded. */
static void
roff(FILE *out, const char *s)
{
	if(*s == '.' || *s == '\'')
		fputs("\\&", out);
	for(; *s; s++) {
		if(*s == '\\')
			fputs("\\e", out);
		else if(*s == '-')
			fputs("\\-", out);
		else
			fputc(*s, out);
	}
}

/** One option in the man page. */
static void
man_option(FILE *out, const struct config_option *o)
{
	char d[256], lim[128];
	fputs(".TP\n.B ", out);
	roff(out, o->name);
	fputs(": \\fI", out);
	roff(out, o->arg ? o->arg : "");
	fputs("\\fR\n", out);
	fputc(toupper((unsigned char)o->desc[0]), out);
	roff(out, o->desc + 1);
	fputs(".\n", out);
	if(!(o->flags & OPT_F_IMPLEMENTED))
		fputs("Not implemented yet: accepted with a warning, "
			"and ignored.\n", out);
	if(limits_text(o, lim, sizeof(lim))[0]) {
		fputs("The value is ", out);
		roff(out, lim);
		fputs(o->type == OPT_SIZE ? " bytes (k, m and g suffixes "
			"multiply by 1024, 1024^2 and 1024^3).\n" : ".\n",
			out);
	}
	if(is_list(o))
		fputs("Repeat the option for more values.\n", out);
	fputs("Default: ", out);
	roff(out, def_doc(o, d, sizeof(d)));
	fputs(".\n", out);
	fputs((o->flags & OPT_F_SIGHUP) ?
		"A reload (SIGHUP) applies a change.\n" :
		"A change needs a restart; a reload keeps the old "
		"value.\n", out);
}

/** The options of one clause in the man page. */
static void
man_clause(FILE *out, int clause)
{
	size_t i;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		if(o->clause == clause && !is_unbound_only(o))
			man_option(out, o);
	}
}

/** The ignored options of one clause, as one paragraph. */
static void
man_ignored(FILE *out, int clause, int refused)
{
	size_t i;
	int first = 1;
	for(i = 0; i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		if(!of_kind(o, refused) || o->clause != clause ||
			(!refused && o->desc))
			continue;
		if(first) {
			fputs(".TP\n.B ", out);
			roff(out, list_clause_str(clause));
			fputs("\n", out);
		} else
			fputs(",\n", out);
		first = 0;
		roff(out, o->name);
	}
	if(!first)
		fputs("\n", out);
	/* the ones that say why, a paragraph each */
	for(i = 0; !refused && i < config_option_count; i++) {
		const struct config_option *o = &config_option_table[i];
		if(!of_kind(o, 0) || o->clause != clause || !o->desc)
			continue;
		fputs(".TP\n.B ", out);
		roff(out, o->name);
		fputs(":\n", out);
		roff(out, o->desc);
		fputs("\n", out);
	}
}

int
config_doc_manpage(FILE *out)
{
	size_t i;
	fputs(
".\\\" petrel.conf.5 -- GENERATED from util/config_options.c by\n"
".\\\" 'make config-docs'; edit the table, not this file.\n"
".TH \"petrel.conf\" \"5\" \"\" \"petrel\" \"petrel manual\"\n"
".SH \"NAME\"\n"
".B petrel.conf\n"
"\\- petrel configuration file\n"
".SH \"SYNOPSIS\"\n"
".B " PETREL_CONFDIR "/petrel.conf\n"
".SH \"DESCRIPTION\"\n"
".B petrel.conf\n"
"configures \\fIpetrel\\fR(8), a caching recursive DNS resolver.\n"
"The syntax and the option names are Unbound's, so that a file written\n"
"for \\fIunbound.conf\\fR(5), by hand or by a tool, can be given to petrel\n"
"as it is.\n"
"Options petrel does not have are accepted with one warning each and\n"
"ignored (see\n"
".B IGNORED UNBOUND OPTIONS\n"
"below); a misspelt option is an error that names the nearest known one.\n"
".P\n"
"Check a file with \\fIpetrel\\-checkconf\\fR(8) before use.\n"
"Every option, with its default, is in the example.conf file that comes\n"
"with petrel.\n"
".SH \"FILE FORMAT\"\n"
"The file is read line by line.\n"
"A line holds a keyword that ends with a colon, and its value:\n"
".IR keyword \": \" value .\n"
"A keyword alone (\\fBserver:\\fR, \\fBforward\\-zone:\\fR,\n"
"\\fBstub\\-zone:\\fR, \\fBremote\\-control:\\fR)\n"
"starts a clause; the options that follow belong to it, until the next\n"
"clause starts.\n"
"The server: and remote\\-control: clauses may be repeated; each\n"
"forward\\-zone: or stub\\-zone: clause describes one zone.\n"
".P\n"
"A value is a word, or text in double or single quotes, taken as it is.\n"
"A # at the start of a line or of a value starts a comment that runs to\n"
"the end of the line.\n"
"Switches take\n"
".B yes\n"
"or\n"
".BR no .\n"
"Sizes are bytes, or a number followed by k, m or g (times 1024,\n"
"1024^2, 1024^3).\n"
"Addresses are IPv4 or IPv6 addresses, with an optional port after an @\n"
"(192.0.2.1@5353, 2001:db8::1@53); netblocks are address/prefix.\n"
"Options that hold lists accumulate: each line adds a value.\n"
".P\n"
".B include:\n"
"\\fIfile\\fR reads another file as if its text stood in place of the\n"
"line; the clause in effect carries into it and out of it.\n"
"The name may be a glob pattern (see \\fIglob\\fR(7)); the files that match\n"
"are read in order, and a pattern that matches nothing is not an error.\n"
"A relative name is taken from the\n"
".B directory:\n"
"given before the include, or else from the folder of the file that holds\n"
"the include.\n"
".B include\\-toplevel:\n"
"does the same, but closes the current clause before and after, so the\n"
"included files must start their own clauses.\n"
".P\n"
"Loading is all or nothing.\n"
"The first bad value stops the load with a message of the form\n"
".IR file : line \": \" option \": expected \" what \", got '\" value '\n"
"and the configuration in use stays as it was (at a reload as well).\n"
".SH \"EXAMPLE\"\n"
"A resolver for a local network, forwarding one internal zone:\n"
".P\n"
".nf\n"
"server:\n"
"\tinterface: 0.0.0.0\n"
"\tinterface: ::0\n"
"\taccess\\-control: 10.0.0.0/8 allow\n"
"\taccess\\-control: 2001:db8::/32 allow\n"
"\tmsg\\-cache\\-size: 64m\n"
"\trrset\\-cache\\-size: 128m\n"
"\tnum\\-threads: 4\n"
"\tusername: \"petrel\"\n"
"\tpidfile: \"/run/petrel.pid\"\n"
"forward\\-zone:\n"
"\tname: \"corp.example.\"\n"
"\tforward\\-addr: 10.1.1.53\n"
"\tforward\\-addr: 10.1.2.53@5353\n"
"include: \"/etc/petrel/conf.d/*.conf\"\n"
".fi\n"
".SH \"SERVER OPTIONS\"\n"
"These options belong in the\n"
".B server:\n"
"clause.\n", out);
	man_clause(out, CLAUSE_SERVER);
	fputs(".SH \"FORWARD ZONE OPTIONS\"\n"
"Each\n"
".B forward\\-zone:\n"
"clause sends the queries for one zone, and the names below it, to other\n"
"resolvers (which must allow recursion).\n"
"It needs a name: and at least one forward\\-addr: or forward\\-host:.\n",
		out);
	man_clause(out, CLAUSE_FORWARD);
	fputs(".SH \"STUB ZONE OPTIONS\"\n"
"Each\n"
".B stub\\-zone:\n"
"clause gives the authoritative servers of one zone, for example a zone\n"
"that is not delegated from the public tree.\n"
"It needs a name: and at least one stub\\-addr: or stub\\-host:.\n", out);
	man_clause(out, CLAUSE_STUB);
	fputs(".SH \"TSIG KEY OPTIONS\"\n"
"Each\n"
".B tsig\\-key:\n"
"clause defines one key for signed zone transfers (RFC 8945).\n"
"It needs a name:, an algorithm: and a secret:.\n", out);
	man_clause(out, CLAUSE_TSIG);
	fputs(".SH \"AUTH ZONE OPTIONS\"\n"
"Each\n"
".B auth\\-zone:\n"
"clause keeps a copy of one zone, transferred from its primaries (IXFR,\n"
"else AXFR; refreshed by the SOA timers and by NOTIFY) or read from a\n"
"zone file, and answers from it: to clients (for\\-downstream) and to the\n"
"iterator (for\\-upstream, for example a local root, RFC 8806).\n"
"It needs a name: and a primary: or a zonefile:.\n", out);
	man_clause(out, CLAUSE_AUTH);
	fputs(".SH \"RPZ OPTIONS\"\n"
"Each\n"
".B rpz:\n"
"clause loads one response policy zone. Its QNAME, client IP\n"
"(rpz\\-client\\-ip) and response IP (rpz\\-ip) triggers answer\n"
"NXDOMAIN, NODATA, local data or a CNAME, pass the query through,\n"
"drop it or send it to TCP; policy answers carry EDE 15 (Blocked) or\n"
"17 (Filtered). The zones apply in file order, the first match wins.\n"
"It needs a name: and a zonefile:.\n", out);
	man_clause(out, CLAUSE_RPZ);
	fputs(".SH \"VIEW OPTIONS\"\n"
"Each\n"
".B view:\n"
"clause holds local zones, local data and response\\-ip lines for the\n"
"clients that access\\-control\\-view (by client address) or\n"
"interface\\-view (by the address asked) send to it.\n"
"It needs a name:.\n", out);
	man_clause(out, CLAUSE_VIEW);
	fputs(".SH \"REMOTE CONTROL OPTIONS\"\n"
"These options belong in the\n"
".B remote\\-control:\n"
"clause, and set up the control server that \\fIpetrel\\-control\\fR(8)\n"
"talks to.\n", out);
	man_clause(out, CLAUSE_REMOTE);
	fputs(".SH \"DNSTAP OPTIONS\"\n"
"These options belong in the\n"
".B dnstap:\n"
"clause. They log DNS messages in the dnstap format (protobuf in Frame\n"
"Streams) to a collector such as \\fIfstrm_capture\\fR(1), read back by\n"
"\\fIdnstap\\-read\\fR(1). Each worker has its own writer thread and a\n"
"bounded queue: a slow or absent collector never blocks a worker, and\n"
"messages that do not fit are dropped and counted (a worker that dropped\n"
"any says how many in the log when it stops or reloads). A build without\n"
"dnstap refuses dnstap\\-enable: yes.\n", out);
	man_clause(out, CLAUSE_DNSTAP);
	fputs(".SH \"CACHEDB OPTIONS\"\n"
"These options belong in the\n"
".B cachedb:\n"
"clause, and set up the second\\-level cache on Redis that the cachedb\n"
"module (\\fBmodule\\-config: \"cachedb iterator\"\\fR) shares with the\n"
"other resolvers of a fleet. Keys are the SHA\\-256 of the question and\n"
"the secret\\-seed in hexadecimal; values are the answer in DNS wire\n"
"format followed by the time it was stored and the time it expires\n"
"(64\\-bit big\\-endian seconds). A value read back has its TTLs lowered\n"
"by the time elapsed and is not served after its expiry, except as\n"
"serve\\-expired allows.\n", out);
	man_clause(out, CLAUSE_CACHEDB);
	fputs(".SH \"IGNORED UNBOUND OPTIONS\"\n"
"petrel accepts these Unbound options, warns once about each (with the\n"
"file and line) and ignores them:\n", out);
	for(i = CLAUSE_SERVER; i <= CLAUSE_IGNORED; i++)
		man_ignored(out, (int)i, 0);
	fputs(".SH \"UNBOUND OPTIONS THAT ARE ERRORS\"\n"
"These Unbound options ask for a service petrel does not provide yet\n"
"(DNS over QUIC, DNSCrypt, DNS over TLS on a second port). A line that\n"
"turns one on stops the load with its file and line, so that nobody\n"
"believes they are served; a value of no or \"\" is accepted.\n"
".B module\\-config:\n"
"may name every module petrel has (validator, iterator, respip, dns64,\n"
"subnetcache, cachedb); one it does not have (python, dynlib, ipsecmod,\n"
"ipset) is a load error.\n", out);
	for(i = CLAUSE_SERVER; i <= CLAUSE_IGNORED; i++)
		man_ignored(out, (int)i, 1);
	fputs(".P\nThese Unbound clauses are accepted and ignored, with\n"
		"everything in them:\n", out);
	for(i = 0; config_ignored_clauses[i]; i++) {
		if(i)
			fputs(",\n", out);
		roff(out, config_ignored_clauses[i]);
		fputs(":", out);
	}
	fputs(".\n", out);
	fputs(".SH \"FILES\"\n"
".TP\n"
".I " PETREL_CONFDIR "/petrel.conf\n"
"the default configuration file.\n"
".SH \"SEE ALSO\"\n"
"\\fIpetrel\\fR(8), \\fIpetrel\\-checkconf\\fR(8), "
"\\fIpetrel\\-control\\fR(8), \\fIunbound.conf\\fR(5).\n", out);
	return ferror(out) ? -1 : 0;
}
