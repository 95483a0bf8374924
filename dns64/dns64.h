/*
 * dns64/dns64.h - the dns64 module (RFC 6147): IPv6 addresses made from
 * IPv4 ones for IPv6-only clients behind a NAT64.
 *
 * In module-config before the validator ("dns64 validator iterator"). For
 * a client's AAAA question it passes the query down; when the answer
 * (NOERROR) holds no AAAA record, it asks for the A records of the same
 * name (a sub-query) and answers with an AAAA record per A record, the
 * IPv4 address embedded in dns64-prefix as RFC 6052 section 2.2 lays out
 * (any CNAME chain is kept); an answer whose AAAA records all lie in
 * ::ffff:0:0/96 counts as one without (RFC 6147 section 5.1.4). With
 * dns64-synthall, and for the names of
 * dns64-ignore-aaaa, it asks for A at once and synthesizes whatever AAAA
 * records exist. A client that sets both DO and CD gets the real answer
 * (RFC 6147 section 5.5). NXDOMAIN and failures pass through unchanged.
 *
 * A PTR question for a full ip6.arpa name under the prefix is answered,
 * as Unbound does, with the PTR records of the in-addr.arpa name of the
 * embedded IPv4 address, owned by the ip6.arpa name (RFC 6147 section
 * 5.3.1 lets a DNS64 translate the answer so, or synthesize a CNAME);
 * when that name has no PTR record, the ip6.arpa name is asked as is.
 *
 * With the respip module in the stack, response-ip and the RPZ
 * RESPONSE-IP triggers apply to the A answer before AAAA records are
 * made from it (module_env.respip, as Unbound's respip module rewrites
 * the sub-query's answer): a redirect's addresses are used, a blocked
 * answer leaves the NODATA as it was, a CNAME a rule gives is followed.
 * The clients' own rules apply again, per client, to the AAAA answer
 * (front/policy.h).
 *
 * Only client states (depth 0, including prefetches) are changed: the
 * iterator's own address lookups of name servers see real data. The
 * answer is stored in the message cache like any other, so repeated
 * questions are cache hits and the module is not on that path; except
 * an answer that a response-ip rule changed, or one made for clients an
 * RPZ passthru exempts from the rules: those hold for the clients of the
 * state only and go to no cache.
 */
#ifndef DNS64_DNS64_H
#define DNS64_DNS64_H

#include <stdint.h>
#include <stddef.h>

struct module_func_block;

/** the dns64 module */
extern const struct module_func_block dns64_module_block;

/**
 * Embed an IPv4 address in an IPv6 prefix (RFC 6052 section 2.2; bits 64
 * to 71 stay zero).
 * @param prefix: 16 bytes, the prefix in front.
 * @param plen: 32, 40, 48, 56, 64 or 96.
 * @param v4: 4 bytes.
 * @param out: 16 bytes.
 */
void dns64_synth_addr(const uint8_t *prefix, int plen, const uint8_t *v4,
	uint8_t *out);

/**
 * The IPv4 address embedded in an IPv6 address under the prefix.
 * @return 0, or -1 when v6 is not under the prefix.
 */
int dns64_extract_addr(const uint8_t *prefix, int plen, const uint8_t *v6,
	uint8_t *v4);

/**
 * Map an ip6.arpa name under the prefix to the in-addr.arpa name of the
 * embedded IPv4 address.
 * @param name: the wire name (any case).
 * @param out: DNS_MAX_NAME bytes.
 * @return its length, or 0 when the name is not a full ip6.arpa name
 *	under the prefix.
 */
size_t dns64_ptr_name(const uint8_t *prefix, int plen, const uint8_t *name,
	uint8_t *out);

#endif /* DNS64_DNS64_H */
