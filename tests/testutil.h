/*
 * tests/testutil.h - helpers shared by the Check suites.
 *
 * One copy of what several suites need: building wire-format names from
 * presentation text (asserting that the text parses), and the list of the
 * event backends compiled in together with the pick of those this kernel
 * can run. Header-only (static inline), so that a suite needs no extra
 * source file in its Makefile.inc; the static buffers of the ring and slot
 * builders are per suite (per translation unit), as they were when each
 * suite kept its own copy.
 *
 * A suite that counts heap calls defines TU_COUNTING_ALLOC before it
 * includes this file: it then gets malloc, calloc and realloc that count
 * into tu_num_allocs while tu_counting is set, wrapping glibc's allocator
 * (__libc_malloc and friends). Under AddressSanitizer or MemorySanitizer,
 * which own the allocator, TU_ALLOC_SKIP is defined instead and the suite
 * skips its counting tests. Only one file of a program may define
 * TU_COUNTING_ALLOC.
 */
#ifndef TESTS_TESTUTIL_H
#define TESTS_TESTUTIL_H

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include "dns/dns.h"
#include "dns/name.h"
#include "util/netevent/netevent.h"

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

/** the event backends compiled in, in order */
static const char *const tu_backends_built[] = {
	"select",
#ifdef HAVE_LIBEVENT
	"libevent",
#endif
#ifdef HAVE_LIBURING
	"io_uring",
#endif
};
/** entries in tu_backends_built */
#define TU_NUM_BACKENDS_BUILT ((int)(sizeof(tu_backends_built) / \
	sizeof(tu_backends_built[0])))

/** fill out[] (room for TU_NUM_BACKENDS_BUILT) with the backends compiled
 * in that the kernel and process can run (the run-time probe of
 * netevent_backend_usable). A skipped backend is named with its reason on
 * stdout when prog (the suite's name for the message) is not NULL.
 * @return the number of entries filled */
static inline int
tu_pick_backends(const char **out, const char *prog)
{
	int i, n = 0;
	for(i = 0; i < TU_NUM_BACKENDS_BUILT; i++) {
		const char *why = "";
		if(!netevent_backend_usable(tu_backends_built[i], &why)) {
			if(prog)
				printf("%s: SKIPPING the %s backend: %s\n",
					prog, tu_backends_built[i], why);
			continue;
		}
		out[n++] = tu_backends_built[i];
	}
	return n;
}

/** defined when the heap cannot be wrapped (a sanitizer owns it) */
#if defined(__SANITIZE_ADDRESS__)
#define TU_ALLOC_SKIP 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define TU_ALLOC_SKIP 1
#endif
#endif

#ifdef TU_COUNTING_ALLOC
/** 1 while allocations are counted */
static int tu_counting;
/** allocations counted */
static unsigned long tu_num_allocs;

#ifndef TU_ALLOC_SKIP
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t m);
extern void *__libc_realloc(void *p, size_t n);

/** the counting malloc */
void *
malloc(size_t n)
{
	if(tu_counting)
		tu_num_allocs++;
	return __libc_malloc(n);
}

/** the counting calloc */
void *
calloc(size_t n, size_t m)
{
	if(tu_counting)
		tu_num_allocs++;
	return __libc_calloc(n, m);
}

/** the counting realloc */
void *
realloc(void *p, size_t n)
{
	if(tu_counting)
		tu_num_allocs++;
	return __libc_realloc(p, n);
}
#endif /* !TU_ALLOC_SKIP */
#endif /* TU_COUNTING_ALLOC */

#endif /* TESTS_TESTUTIL_H */
