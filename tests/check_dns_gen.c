/*
 * tests/check_dns_gen.c - random messages written by ldns, and the
 * petrel-versus-ldns comparison used by the dns/ Check suites.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/msgparse.h"
#include "tests/check_dns_gen.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** owner names: case, escapes, wildcards, the root, long labels */
static const char *const owners[] = {
	"example.com.", "www.example.com.", "WWW.Example.COM.",
	"a.b.c.d.example.com.", "mail.example.com.", "ns1.example.com.",
	"_sip._tcp.example.com.", "*.wild.example.com.", ".",
	"xn--bcher-kva.example.", "\\000\\.\\255.example.net.",
	"sub.example.org.", "0.2.0.192.in-addr.arpa.",
	"averyveryveryveryveryveryveryveryveryverylonglabelthatis63charsx.example.com."
};
#define NOWNERS (sizeof(owners) / sizeof(owners[0]))

/** RR templates; %s is replaced by a name, %u by a number */
static const char *const templates[] = {
	"%s %u IN A 192.0.2.%u",
	"%s %u IN AAAA 2001:db8::%u",
	"%s %u IN NS ns%u.example.com.",
	"%s %u IN NS NS%u.Example.COM.",
	"%s %u IN CNAME target%u.example.org.",
	"%s %u IN SOA ns%u.example.com. hostmaster.example.com. 2024010101 7200 3600 1209600 300",
	"%s %u IN PTR host%u.example.net.",
	"%s %u IN MX %u mail.example.com.",
	"%s %u IN TXT \"hello %u\" \"world\" \"\"",
	"%s %u IN SRV 10 20 %u sip.example.com.",
	"%s %u IN NAPTR 100 %u \"u\" \"E2U+sip\" \"!^.*$!sip:info@example.com!\" .",
	"%s %u IN DNAME other%u.example.",
	"%s %u IN DS %u 8 2 2BB183AF5F22588179A53B0A98631FAD1A292118C0CE6B3A7F9BEF1CD1FA5C4F",
	"%s %u IN DNSKEY 257 3 %u AwEAAagAIKlVZrpC6Ia7gEzahOR+9W29euxhJhVVLOyQbSEW0O8gcCjFFVQUTf6v58fLjwBd0YI0EzrAcQqBGCzh/RStIoO8g0NfnfL2MTJRkxoXbfDaUeVPQuYEhg37NZWAJQ9VnMVDxP/VHL496M/QZxkjf5/Efucp2gaDX6RS6CXpoY68LsvPVjR0ZSwzz1apAzvN9dlzEheX7ICJBBtuA6G3LQpzW5hOA2hzCTMjJPJ8LbqF6dsV6DoBQzgul0sGIcGOYl7OyQdXfZ57relSQageu+ipAdTTJ25AsRTAoub8ONGcLmqrAmRLKBP1dfwhYB4N7knNnulqQxA+Uk1ihz0=",
	"%s %u IN RRSIG A 8 %u 3600 20250101000000 20240101000000 12345 example.com. oJB1W6WNGv+ldvQ3WDG0MQkg5IEhjRip8WTrPYGv07h108dUKGMeDPKijVCHX3DDKdfb+v6oB9wfuh3DTJXUAfI/M0zmO/zz8bW0Rznl8O3tGNazPwQKkRN20XPXV6nwwfoXmJQbsLNrLfkGJ5D6fwFm8nN+6pBzeDQfsS3Ap3o=",
	"%s %u IN RRSIG NS 13 %u 3600 20250101000000 20240101000000 %u Example.Com. AAAAAAAA",
	"%s %u IN NSEC next%u.example.com. A NS SOA MX RRSIG NSEC DNSKEY TYPE65000",
	"%s %u IN NSEC3 1 0 %u AABBCCDD 2VPTU5TIMAMQTTGL4LUU9KG21E0AOR3S A RRSIG",
	"%s %u IN NSEC3PARAM 1 0 %u AABBCCDD",
	"%s %u IN TLSA 3 1 %u 0C72AC70B745AC19998811B131D662C9AC69DBDBE7CB23E5B514B56664C5D3D6",
	"%s %u IN SSHFP 1 %u 123456789ABCDEF67890123456789ABCDEF67890",
	"%s %u IN CAA 0 issue \"ca%u.example.net\"",
	"%s %u IN HINFO \"cpu%u\" \"os\"",
	"%s %u IN RP mbox%u.example.com. txt.example.com.",
	"%s %u IN AFSDB %u afs.example.com.",
	"%s %u IN KX %u kx.example.com.",
	"%s %u IN LOC 52 22 23.000 N 4 53 32.000 E -2.00m 0.00m 10000m %um",
	"%s %u IN TYPE65280 \\# 4 0a0000%02x",
	"%s %u IN TYPE%u \\# 0",
	"%s %u CH TXT \"version %u\"",
	"%s %u IN SPF \"v=spf1 -all %u\"",
	"%s %u IN MINFO rm%u.example.com. em.example.com."
};
#define NTEMPLATES (sizeof(templates) / sizeof(templates[0]))

int
testgen_num_templates(void)
{
	return (int)NTEMPLATES;
}

/** make one random RR, or NULL when ldns refuses the template */
static ldns_rr *
random_rr(void)
{
	char s[1200];
	const char *t = templates[random() % NTEMPLATES];
	const char *o = owners[random() % NOWNERS];
	unsigned v = (unsigned)(random() % 250 + 1);
	ldns_rr *rr = NULL;
	snprintf(s, sizeof(s), t, o, (unsigned)(random() % 86400), v, v);
	if(ldns_rr_new_frm_str(&rr, s, 0, NULL, NULL) != LDNS_STATUS_OK)
		return NULL;
	/* meta types that ldns takes out of the sections */
	if(ldns_rr_get_type(rr) == LDNS_RR_TYPE_OPT ||
		ldns_rr_get_type(rr) == LDNS_RR_TYPE_TSIG) {
		ldns_rr_free(rr);
		return NULL;
	}
	return rr;
}

ldns_pkt *
testgen_packet(void)
{
	ldns_pkt *p = ldns_pkt_new();
	ldns_rr *q = NULL;
	char qs[300];
	int sec, i;
	static const ldns_pkt_section secs[] = { LDNS_SECTION_ANSWER,
		LDNS_SECTION_AUTHORITY, LDNS_SECTION_ADDITIONAL };
	ldns_pkt_set_id(p, (uint16_t)random());
	ldns_pkt_set_qr(p, random() % 4 != 0);
	ldns_pkt_set_aa(p, random() % 2);
	ldns_pkt_set_rd(p, random() % 2);
	ldns_pkt_set_ra(p, random() % 2);
	ldns_pkt_set_ad(p, random() % 2);
	ldns_pkt_set_cd(p, random() % 2);
	ldns_pkt_set_rcode(p, (uint8_t)(random() % 6));
	if(random() % 3 != 0) {
		snprintf(qs, sizeof(qs), "%s IN %s", owners[random() % NOWNERS],
			random() % 2 ? "A" : "MX");
		if(ldns_rr_new_question_frm_str(&q, qs, NULL, NULL) ==
			LDNS_STATUS_OK)
			ldns_pkt_push_rr(p, LDNS_SECTION_QUESTION, q);
	}
	for(sec = 0; sec < 3; sec++) {
		int n = (int)(random() % 7);
		for(i = 0; i < n; i++) {
			ldns_rr *rr = random_rr();
			if(rr)
				ldns_pkt_push_rr(p, secs[sec], rr);
		}
	}
	if(random() % 2) {
		ldns_pkt_set_edns_udp_size(p, (uint16_t)(512 + random() % 4000));
		ldns_pkt_set_edns_do(p, random() % 2);
		if(random() % 4 == 0)
			ldns_pkt_set_edns_extended_rcode(p, (uint8_t)(random() % 3));
		if(random() % 2) {
			uint8_t od[24] = { 0, 10, 0, 8, 1, 2, 3, 4, 5, 6, 7, 8,
				0, 15, 0, 6, 0, 3, 'o', 'l', 'd', '!',
				0, 0 };
			ldns_pkt_set_edns_data(p, ldns_rdf_new_frm_data(
				LDNS_RDF_TYPE_UNKNOWN, random() % 2 ? 12 : 22,
				od));
		}
	}
	return p;
}

/** compare one RR */
static int
cmp_rr(const struct dns_msg *msg, const struct dns_rr *rr, const ldns_rr *lr,
	char *why, size_t whylen)
{
	uint8_t owner[DNS_MAX_NAME], rd[65536];
	size_t n = dns_rr_owner(msg, rr, owner);
	ldns_buffer *b;
	int rl, ok;
	if(n != ldns_rdf_size(ldns_rr_owner(lr)) ||
		memcmp(owner, ldns_rdf_data(ldns_rr_owner(lr)), n) != 0) {
		snprintf(why, whylen, "owner differs");
		return -1;
	}
	if(rr->type != ldns_rr_get_type(lr) ||
		rr->rrclass != ldns_rr_get_class(lr) ||
		rr->ttl != ldns_rr_ttl(lr)) {
		snprintf(why, whylen, "type/class/ttl differ: %u/%u/%u vs "
			"%u/%u/%u", rr->type, rr->rrclass, (unsigned)rr->ttl,
			(unsigned)ldns_rr_get_type(lr),
			(unsigned)ldns_rr_get_class(lr),
			(unsigned)ldns_rr_ttl(lr));
		return -1;
	}
	rl = dns_rr_rdata_uncompressed(msg, rr, rd, sizeof(rd));
	b = ldns_buffer_new(65536);
	ldns_rr_rdata2buffer_wire(b, lr);
	ok = rl >= 0 && (size_t)rl == ldns_buffer_position(b) &&
		memcmp(rd, ldns_buffer_begin(b), (size_t)rl) == 0;
	if(!ok)
		snprintf(why, whylen, "rdata of type %u differs (len %d vs %d)",
			rr->type, rl, (int)ldns_buffer_position(b));
	ldns_buffer_free(b);
	return ok ? 0 : -1;
}

int
testgen_compare(const struct dns_msg *msg, ldns_pkt *lp, char *why,
	size_t whylen)
{
	ldns_rr_list *lists[3];
	int sec;
	size_t i;
	uint16_t f = msg->flags;
	lists[0] = ldns_pkt_answer(lp);
	lists[1] = ldns_pkt_authority(lp);
	lists[2] = ldns_pkt_additional(lp);
	if(msg->id != ldns_pkt_id(lp) ||
		!!(f & DNS_FLAG_QR) != ldns_pkt_qr(lp) ||
		!!(f & DNS_FLAG_AA) != ldns_pkt_aa(lp) ||
		!!(f & DNS_FLAG_TC) != ldns_pkt_tc(lp) ||
		!!(f & DNS_FLAG_RD) != ldns_pkt_rd(lp) ||
		!!(f & DNS_FLAG_RA) != ldns_pkt_ra(lp) ||
		!!(f & DNS_FLAG_AD) != ldns_pkt_ad(lp) ||
		!!(f & DNS_FLAG_CD) != ldns_pkt_cd(lp) ||
		((f & DNS_FLAG_OPCODE_MASK) >> DNS_OPCODE_SHIFT) !=
		(int)ldns_pkt_get_opcode(lp) ||
		(f & DNS_FLAG_RCODE_MASK) != ldns_pkt_get_rcode(lp)) {
		snprintf(why, whylen, "header differs");
		return -1;
	}
	if(msg->qdcount != ldns_pkt_qdcount(lp)) {
		snprintf(why, whylen, "qdcount differs");
		return -1;
	}
	if(msg->qdcount > 0) {
		const ldns_rr *q = ldns_rr_list_rr(ldns_pkt_question(lp), 0);
		uint8_t qn[DNS_MAX_NAME];
		size_t n = dns_msg_name_at(msg, msg->qname_off, qn, NULL);
		if(n != ldns_rdf_size(ldns_rr_owner(q)) || memcmp(qn,
			ldns_rdf_data(ldns_rr_owner(q)), n) != 0 ||
			msg->qtype != ldns_rr_get_type(q) ||
			msg->qclass != ldns_rr_get_class(q)) {
			snprintf(why, whylen, "question differs");
			return -1;
		}
	}
	for(sec = 0; sec < 3; sec++) {
		if(msg->sec_count[sec] != ldns_rr_list_rr_count(lists[sec])) {
			snprintf(why, whylen, "section %d count %u vs %u", sec,
				(unsigned)msg->sec_count[sec],
				(unsigned)ldns_rr_list_rr_count(lists[sec]));
			return -1;
		}
		for(i = 0; i < msg->sec_count[sec]; i++) {
			if(cmp_rr(msg, &msg->rrs[msg->sec_first[sec] + i],
				ldns_rr_list_rr(lists[sec], i), why,
				whylen) != 0)
				return -1;
		}
	}
	if(msg->edns.present != ldns_pkt_edns(lp)) {
		snprintf(why, whylen, "edns presence differs");
		return -1;
	}
	if(msg->edns.present) {
		ldns_rdf *d = ldns_pkt_edns_data(lp);
		size_t dl = d ? ldns_rdf_size(d) : 0;
		if(msg->edns.udp_size != ldns_pkt_edns_udp_size(lp) ||
			msg->edns.do_bit != ldns_pkt_edns_do(lp) ||
			msg->edns.version != ldns_pkt_edns_version(lp) ||
			msg->edns.ext_rcode != ldns_pkt_edns_extended_rcode(lp) ||
			msg->edns.rdata_len != dl || (dl && memcmp(msg->pkt +
			msg->edns.rdata_off, ldns_rdf_data(d), dl) != 0)) {
			snprintf(why, whylen, "edns differs");
			return -1;
		}
	}
	return 0;
}
