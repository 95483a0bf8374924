/*
 * tests/check_dns_gen.h - test helpers shared by the dns/ Check suites:
 * random DNS messages written by ldns over many RR types, and a
 * field-by-field comparison of a petrel parse with an ldns parse.
 */
#ifndef TESTS_CHECK_DNS_GEN_H
#define TESTS_CHECK_DNS_GEN_H

#include <stdint.h>
#include <stddef.h>
#include <ldns/ldns.h>

struct dns_msg;

/**
 * Make a random message with ldns (uses random(); seed with srandom).
 * Owners and RDATA are drawn from templates covering A, AAAA, NS, CNAME,
 * SOA, PTR, MX, TXT, SRV, NAPTR, DNAME, DS, DNSKEY, RRSIG, NSEC, NSEC3,
 * NSEC3PARAM, TLSA, SSHFP, CAA, HINFO, RP, AFSDB, KX, LOC, unknown types,
 * with mixed letter case, escapes, and random EDNS.
 * @return the packet; free with ldns_pkt_free.
 */
ldns_pkt *testgen_packet(void);

/** @return number of RR templates (for coverage reports) */
int testgen_num_templates(void);

/**
 * Compare a petrel parse with ldns's parse of the same wire message.
 * @param msg: petrel's parse.
 * @param lp: ldns's parse.
 * @param why: on a difference, a description is written here.
 * @param whylen: size of why.
 * @return 0 when equal, -1 on a difference.
 */
int testgen_compare(const struct dns_msg *msg, ldns_pkt *lp, char *why,
	size_t whylen);

#endif /* TESTS_CHECK_DNS_GEN_H */
