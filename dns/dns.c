/*
 * dns/dns.c - names for DNS constants: error reasons, types, classes,
 * rcodes and EDE codes. Tables only; nothing here is on the hot path.
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "dns/dns.h"

const char *
dns_parse_err_str(int err)
{
	switch(err) {
	case DNS_OK: return "no error";
	case DNS_ERR_TRUNCATED: return "message truncated";
	case DNS_ERR_BAD_LABEL: return "bad label type";
	case DNS_ERR_LABEL_TOO_LONG: return "label longer than 63";
	case DNS_ERR_NAME_TOO_LONG: return "name longer than 255";
	case DNS_ERR_POINTER_LOOP: return "compression pointer loop";
	case DNS_ERR_BAD_POINTER: return "compression pointer forward or out of range";
	case DNS_ERR_TOO_MANY_POINTERS: return "too many compression pointers";
	case DNS_ERR_POINTER_NOT_ALLOWED: return "compression pointer not allowed here";
	case DNS_ERR_BAD_OPT: return "malformed OPT record";
	case DNS_ERR_OPT_NOT_ADDITIONAL: return "OPT record outside the additional section";
	case DNS_ERR_OPT_TWICE: return "more than one OPT record";
	case DNS_ERR_NOT_QUERY: return "not a query (QR set)";
	case DNS_ERR_QDCOUNT: return "question count is not one";
	case DNS_ERR_BAD_RDATA: return "malformed RDATA";
	case DNS_ERR_TOO_MANY_RRS: return "too many records";
	case DNS_ERR_MSG_TOO_LONG: return "message longer than 65535";
	case DNS_ERR_TRAILING: return "trailing bytes after the last record";
	case DNS_ERR_SYNTAX: return "syntax error";
	case DNS_ERR_NOSPACE: return "output buffer too small";
	case DNS_ERR_NOMEM: return "out of memory";
	default: return "unknown error";
	}
}

/** a type and its mnemonic */
struct type_name {
	uint16_t type;
	const char *name;
};

static const struct type_name type_names[] = {
	{ DNS_TYPE_A, "A" }, { DNS_TYPE_NS, "NS" }, { DNS_TYPE_MD, "MD" },
	{ DNS_TYPE_MF, "MF" }, { DNS_TYPE_CNAME, "CNAME" },
	{ DNS_TYPE_SOA, "SOA" }, { DNS_TYPE_MB, "MB" }, { DNS_TYPE_MG, "MG" },
	{ DNS_TYPE_MR, "MR" }, { DNS_TYPE_NULL, "NULL" },
	{ DNS_TYPE_WKS, "WKS" }, { DNS_TYPE_PTR, "PTR" },
	{ DNS_TYPE_HINFO, "HINFO" }, { DNS_TYPE_MINFO, "MINFO" },
	{ DNS_TYPE_MX, "MX" }, { DNS_TYPE_TXT, "TXT" }, { DNS_TYPE_RP, "RP" },
	{ DNS_TYPE_AFSDB, "AFSDB" }, { DNS_TYPE_X25, "X25" },
	{ DNS_TYPE_ISDN, "ISDN" }, { DNS_TYPE_RT, "RT" },
	{ DNS_TYPE_NSAP, "NSAP" }, { DNS_TYPE_SIG, "SIG" },
	{ DNS_TYPE_KEY, "KEY" }, { DNS_TYPE_PX, "PX" },
	{ DNS_TYPE_AAAA, "AAAA" }, { DNS_TYPE_LOC, "LOC" },
	{ DNS_TYPE_NXT, "NXT" }, { DNS_TYPE_SRV, "SRV" },
	{ DNS_TYPE_NAPTR, "NAPTR" }, { DNS_TYPE_KX, "KX" },
	{ DNS_TYPE_CERT, "CERT" }, { DNS_TYPE_A6, "A6" },
	{ DNS_TYPE_DNAME, "DNAME" }, { DNS_TYPE_OPT, "OPT" },
	{ DNS_TYPE_APL, "APL" }, { DNS_TYPE_DS, "DS" },
	{ DNS_TYPE_SSHFP, "SSHFP" }, { DNS_TYPE_IPSECKEY, "IPSECKEY" },
	{ DNS_TYPE_RRSIG, "RRSIG" }, { DNS_TYPE_NSEC, "NSEC" },
	{ DNS_TYPE_DNSKEY, "DNSKEY" }, { DNS_TYPE_DHCID, "DHCID" },
	{ DNS_TYPE_NSEC3, "NSEC3" }, { DNS_TYPE_NSEC3PARAM, "NSEC3PARAM" },
	{ DNS_TYPE_TLSA, "TLSA" }, { DNS_TYPE_SMIMEA, "SMIMEA" },
	{ DNS_TYPE_HIP, "HIP" }, { DNS_TYPE_CDS, "CDS" },
	{ DNS_TYPE_CDNSKEY, "CDNSKEY" }, { DNS_TYPE_OPENPGPKEY, "OPENPGPKEY" },
	{ DNS_TYPE_CSYNC, "CSYNC" }, { DNS_TYPE_ZONEMD, "ZONEMD" },
	{ DNS_TYPE_SVCB, "SVCB" }, { DNS_TYPE_HTTPS, "HTTPS" },
	{ DNS_TYPE_SPF, "SPF" }, { DNS_TYPE_TKEY, "TKEY" },
	{ DNS_TYPE_TSIG, "TSIG" }, { DNS_TYPE_IXFR, "IXFR" },
	{ DNS_TYPE_AXFR, "AXFR" }, { DNS_TYPE_MAILB, "MAILB" },
	{ DNS_TYPE_MAILA, "MAILA" }, { DNS_TYPE_ANY, "ANY" },
	{ DNS_TYPE_URI, "URI" }, { DNS_TYPE_CAA, "CAA" },
	{ 0, NULL }
};

const char *
dns_type_str(uint16_t type, char *buf, size_t len)
{
	const struct type_name *t;
	for(t = type_names; t->name; t++)
		if(t->type == type)
			return t->name;
	snprintf(buf, len, "TYPE%u", (unsigned)type);
	return buf;
}

int
dns_type_from_str(const char *s)
{
	const struct type_name *t;
	for(t = type_names; t->name; t++)
		if(strcasecmp(t->name, s) == 0)
			return t->type;
	if(strncasecmp(s, "TYPE", 4) == 0 && s[4] >= '0' && s[4] <= '9') {
		char *end;
		unsigned long v = strtoul(s + 4, &end, 10);
		if(*end == 0 && v <= 65535)
			return (int)v;
	}
	return -1;
}

const char *
dns_class_str(uint16_t rrclass)
{
	switch(rrclass) {
	case DNS_CLASS_IN: return "IN";
	case DNS_CLASS_CH: return "CH";
	case DNS_CLASS_HS: return "HS";
	case DNS_CLASS_NONE: return "NONE";
	case DNS_CLASS_ANY: return "ANY";
	default: return NULL;
	}
}

const char *
dns_rcode_str(int rcode)
{
	switch(rcode) {
	case DNS_RCODE_NOERROR: return "NOERROR";
	case DNS_RCODE_FORMERR: return "FORMERR";
	case DNS_RCODE_SERVFAIL: return "SERVFAIL";
	case DNS_RCODE_NXDOMAIN: return "NXDOMAIN";
	case DNS_RCODE_NOTIMPL: return "NOTIMP";
	case DNS_RCODE_REFUSED: return "REFUSED";
	case DNS_RCODE_YXDOMAIN: return "YXDOMAIN";
	case DNS_RCODE_YXRRSET: return "YXRRSET";
	case DNS_RCODE_NXRRSET: return "NXRRSET";
	case DNS_RCODE_NOTAUTH: return "NOTAUTH";
	case DNS_RCODE_NOTZONE: return "NOTZONE";
	case DNS_RCODE_BADVERS: return "BADVERS";
	case DNS_RCODE_BADCOOKIE: return "BADCOOKIE";
	default: return NULL;
	}
}

const char *
dns_ede_str(int code)
{
	static const char *const ede[] = {
		"Other Error",
		"Unsupported DNSKEY Algorithm",
		"Unsupported DS Digest Type",
		"Stale Answer",
		"Forged Answer",
		"DNSSEC Indeterminate",
		"DNSSEC Bogus",
		"Signature Expired",
		"Signature Not Yet Valid",
		"DNSKEY Missing",
		"RRSIGs Missing",
		"No Zone Key Bit Set",
		"NSEC Missing",
		"Cached Error",
		"Not Ready",
		"Blocked",
		"Censored",
		"Filtered",
		"Prohibited",
		"Stale NXDOMAIN Answer",
		"Not Authoritative",
		"Not Supported",
		"No Reachable Authority",
		"Network Error",
		"Invalid Data"
	};
	if(code < 0 || code >= (int)(sizeof(ede) / sizeof(ede[0])))
		return NULL;
	return ede[code];
}
