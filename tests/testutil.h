/*
 * tests/testutil.h - helpers shared by the Check suites.
 *
 * One copy of what several suites need: building wire-format names from
 * presentation text (asserting that the text parses). Header-only (static
 * inline), so that a suite needs no extra source file in its Makefile.inc; the static buffers of the ring and slot
 * builders are per suite (per translation unit), as they were when each
 * suite kept its own copy.
 */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include "dns/dns.h"
#include "dns/name.h"

/** parse presentation name s into out (DNS_MAX_NAME bytes), failing the
 * test when it does not parse. @return the wire length */
static inline size_t
tu_name(const char *s, uint8_t *out)
{
	size_t n = DNS_MAX_NAME;
	int r = dname_from_str(s, out, &n);
	ck_assert_msg(r == 0, "dname_from_str(%s): %s", s,
		dns_parse_err_str(r));
	return n;
}

/** entries in the ring of tu_name_ring */
#define TU_NAME_RING 16

/** the wire name of s in static storage, a ring of TU_NAME_RING buffers:
 * valid until TU_NAME_RING more calls */
static inline const uint8_t *
tu_name_ring(const char *s)
{
	static uint8_t ring[TU_NAME_RING][DNS_MAX_NAME];
	static int i;
	uint8_t *p = ring[i++ % TU_NAME_RING];
	(void)tu_name(s, p);
	return p;
}

/** slots of tu_name_slot */
#define TU_NAME_SLOTS 8

/** the wire name of s in static slot slot (0 .. TU_NAME_SLOTS-1): valid
 * until the slot is used again */
static inline const uint8_t *
tu_name_slot(int slot, const char *s)
{
	static uint8_t names[TU_NAME_SLOTS][DNS_MAX_NAME];
	ck_assert_int_lt(slot, TU_NAME_SLOTS);
	(void)tu_name(s, names[slot]);
	return names[slot];
}

#endif /* TESTS_TESTUTIL_H */
