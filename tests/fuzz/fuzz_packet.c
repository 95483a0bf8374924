/*
 * tests/fuzz/fuzz_packet.c - libFuzzer target for the dns/ wire code.
 *
 * Each input is a DNS message. The target runs:
 *  - the fast query parser; when it accepts, checks the question it made
 *    (valid, lower-cased, hash matches) and builds an error reply for it,
 *    which must parse back with the same ID and question;
 *  - the full message parser; when it accepts, groups RRsets, decompresses
 *    every owner and RDATA, round-trips each owner through presentation
 *    format, re-encodes the whole message with the builder (compression on)
 *    and parses that again: every RR must come back with the same owner
 *    (ignoring case), type, class, TTL and uncompressed RDATA;
 *  - when both parsers accept, they must agree on the question;
 *  - the input read as a presentation-format name (dname_from_str): when
 *    it parses, printing and parsing again gives the same wire name.
 * A broken invariant calls abort(). Memory errors are caught by ASan.
 *
 * Built with -fsanitize=fuzzer,address,undefined under --enable-fuzzing
 * (tests/fuzz/fuzz_packet); linked with replay_main.c it replays the seed
 * corpus tests/fuzz/corpus/packet/ and testdata/packets/ in make check.
 */
#include "config.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "dns/msgparse.h"
#include "dns/msgencode.h"
#include "util/region.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** abort when cond is false (kept in release builds, unlike assert) */
#define CHECK(cond) do { if(!(cond)) abort(); } while(0)

/** the fast parser and the error reply */
static void
fuzz_fast(const uint8_t *data, size_t size, struct fast_query *fq, int *ok)
{
	static uint8_t out[65536];
	struct dns_msg msg;
	int r = dns_query_parse_fast(data, size, fq), n;
	size_t i;
	*ok = (r == 0);
	CHECK(r >= 0 && r < DNS_ERR_MAX);
	if(r == 0) {
		const struct query_info *qi = &fq->qinfo;
		CHECK(dname_valid(qi->qname, sizeof(qi->qname)) ==
			qi->qname_len);
		for(i = 0; i < qi->qname_len; i++)
			CHECK(!(qi->qname[i] >= 'A' && qi->qname[i] <= 'Z'));
		CHECK(qi->hash == dns_qinfo_hash(qi->qname, qi->qname_len,
			qi->qtype, qi->qclass));
		CHECK(fq->question_end == fq->qname_off + qi->qname_len + 4);
	}
	if(size < DNS_HDR_SIZE)
		return;
	n = dns_build_error_reply(data, size, fq, DNS_RCODE_SERVFAIL, 1,
		DNS_EDE_NETWORK_ERROR, "fuzz", 1232, out, sizeof(out));
	CHECK(n >= DNS_HDR_SIZE);
	CHECK(dns_msg_parse(out, (size_t)n, &msg, NULL,
		DNS_PARSE_STRICT_TRAILING) == 0);
	CHECK(msg.id == fq->id);
	if(fq->qname_off) {
		uint8_t nm[DNS_MAX_NAME];
		CHECK(msg.qdcount == 1);
		CHECK(dns_msg_name_at(&msg, msg.qname_off, nm, NULL) > 0);
		if(r == 0)
			CHECK(dname_equal(nm, fq->qinfo.qname));
	}
}

/** re-encode a parsed message and compare */
static void
roundtrip(struct dns_msg *msg, struct region *region)
{
	static uint8_t out[65535], rd[65536], rd2[65536];
	struct dns_builder b;
	struct dns_msg back;
	struct edns_opt_out opts[EDNS_MAX_OPTS];
	size_t i, n;
	int sec, full = 1;
	uint8_t qn[DNS_MAX_NAME];
	dns_build_init(&b, out, sizeof(out), 0);
	CHECK(dns_build_header(&b, msg->id, msg->flags) == 0);
	if(msg->qdcount >= 1) {
		CHECK(dns_msg_name_at(msg, msg->qname_off, qn, NULL) > 0);
		CHECK(dns_build_question(&b, qn, msg->qtype, msg->qclass) == 0);
	}
	for(sec = 0; sec < DNS_SEC_NUM && full; sec++) {
		for(i = 0; i < msg->sec_count[sec]; i++) {
			struct dns_rr *rr = &msg->rrs[msg->sec_first[sec] + i];
			uint8_t own[DNS_MAX_NAME];
			int rl = dns_rr_rdata_uncompressed(msg, rr, rd,
				sizeof(rd)), r;
			CHECK(rl >= 0);
			CHECK(dns_rr_owner(msg, rr, own) > 0);
			r = dns_build_rr(&b, sec, own, rr->type, rr->rrclass,
				rr->ttl, rd, (size_t)rl);
			if(r == DNS_ERR_NOSPACE) {
				full = 0; /* decompressed, it grew past 64k */
				break;
			}
			CHECK(r == 0);
		}
	}
	if(!full)
		return;
	if(msg->edns.present) {
		size_t no = msg->edns.num_opts < EDNS_MAX_OPTS ?
			msg->edns.num_opts : EDNS_MAX_OPTS;
		for(i = 0; i < no; i++) {
			opts[i].code = msg->edns.opts[i].code;
			opts[i].len = msg->edns.opts[i].len;
			opts[i].data = msg->pkt + msg->edns.opts[i].off;
		}
		if(dns_build_opt(&b, msg->edns.udp_size, msg->rcode,
			msg->edns.do_bit, opts, no) != 0)
			return;
	}
	n = dns_build_finish(&b);
	CHECK(dns_msg_parse(out, n, &back, region,
		DNS_PARSE_STRICT_TRAILING) == 0);
	CHECK(back.rr_count == msg->rr_count);
	CHECK(back.id == msg->id);
	CHECK(back.edns.present == msg->edns.present);
	if(msg->edns.present) {
		CHECK(back.rcode == msg->rcode);
		CHECK(back.edns.udp_size == msg->edns.udp_size);
	}
	for(i = 0; i < msg->rr_count; i++) {
		struct dns_rr *a = &msg->rrs[i], *c = &back.rrs[i];
		uint8_t o1[DNS_MAX_NAME], o2[DNS_MAX_NAME];
		int l1, l2;
		CHECK(a->type == c->type && a->rrclass == c->rrclass &&
			a->ttl == c->ttl && a->section == c->section);
		CHECK(dns_rr_owner(msg, a, o1) == dns_rr_owner(&back, c, o2));
		CHECK(dname_equal(o1, o2));
		l1 = dns_rr_rdata_uncompressed(msg, a, rd, sizeof(rd));
		l2 = dns_rr_rdata_uncompressed(&back, c, rd2, sizeof(rd2));
		CHECK(l1 == l2);
		/* compressed RDATA names may take another spelling's case */
		if(memcmp(rd, rd2, (size_t)l1) != 0) {
			int k;
			for(k = 0; k < l1; k++)
				CHECK(dname_lower_table[rd[k]] ==
					dname_lower_table[rd2[k]]);
		}
	}
}

/** the full parser and everything built on it */
static void
fuzz_full(const uint8_t *data, size_t size, struct region *region,
	const struct fast_query *fq, int fast_ok)
{
	struct dns_msg msg;
	struct dns_rrset sets[256];
	int r = dns_msg_parse(data, size, &msg, region, 0), ns;
	size_t i;
	CHECK(r >= 0 && r < DNS_ERR_MAX);
	if(r != 0)
		return;
	CHECK(msg.rr_count == msg.sec_count[0] + msg.sec_count[1] +
		msg.sec_count[2]);
	ns = dns_msg_group_rrsets(&msg, sets, 256);
	if(ns >= 0) {
		size_t total = 0;
		int s;
		for(s = 0; s < ns; s++) {
			uint16_t k = sets[s].first;
			size_t c = 0;
			while(k != DNS_RR_NONE) {
				CHECK(k < msg.rr_count);
				CHECK(msg.rrs[k].type == sets[s].type);
				k = msg.rrs[k].next;
				c++;
			}
			CHECK(c == sets[s].count);
			total += c;
		}
		CHECK(total == msg.rr_count);
	}
	for(i = 0; i < msg.rr_count; i++) {
		uint8_t own[DNS_MAX_NAME], back[DNS_MAX_NAME], nm[DNS_MAX_NAME];
		char str[DNS_MAX_NAME_STR];
		size_t n = dns_rr_owner(&msg, &msg.rrs[i], own), bl = sizeof(back);
		CHECK(n > 0 && dname_valid(own, n) == n);
		CHECK(dname_to_str(own, str, sizeof(str)) > 0);
		CHECK(dname_from_str(str, back, &bl) == 0);
		CHECK(bl == n && memcmp(own, back, n) == 0);
		(void)dns_rr_rdata_name(&msg, &msg.rrs[i], nm);
		CHECK(msg.rrs[i].rdata_off + msg.rrs[i].rdlen <= size);
	}
	if(fast_ok && msg.qdcount == 1) {
		uint8_t qn[DNS_MAX_NAME];
		CHECK(dns_msg_name_at(&msg, msg.qname_off, qn, NULL) ==
			fq->qinfo.qname_len);
		CHECK(dname_equal(qn, fq->qinfo.qname));
		CHECK(msg.edns.present == fq->edns.present);
	}
	roundtrip(&msg, region);
}

/** the input as a presentation-format name */
static void
fuzz_str(const uint8_t *data, size_t size)
{
	char s[1100], s2[DNS_MAX_NAME_STR];
	uint8_t nm[DNS_MAX_NAME], nm2[DNS_MAX_NAME];
	size_t n = sizeof(nm), n2 = sizeof(nm2);
	int r;
	if(size >= sizeof(s))
		return;
	memcpy(s, data, size);
	s[size] = 0;
	r = dname_from_str(s, nm, &n);
	CHECK(r >= 0 && r < DNS_ERR_MAX);
	if(r != 0)
		return;
	CHECK(dname_valid(nm, n) == n);
	CHECK(dname_to_str(nm, s2, sizeof(s2)) > 0);
	CHECK(dname_from_str(s2, nm2, &n2) == 0);
	CHECK(n2 == n && memcmp(nm, nm2, n) == 0);
	CHECK(dname_canon_cmp(nm, nm2) == 0);
	CHECK(dname_common_labels(nm, nm2) == dname_count_labels(nm));
}

/** the fuzz entry point: one DNS message */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct region *region;
	struct fast_query fq;
	int fast_ok;
	if(!region && !(region = region_create(0)))
		abort();
	fuzz_fast(data, size, &fq, &fast_ok);
	fuzz_full(data, size, region, &fq, fast_ok);
	region_free_all(region);
	fuzz_str(data, size);
	return 0;
}
