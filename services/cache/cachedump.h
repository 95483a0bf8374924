/*
 * services/cache/cachedump.h - the message and RRset caches to and from
 * text in Unbound's dump_cache format, so that a cache moves between
 * Unbound and petrel both ways (unbound-control or petrel-control
 * dump_cache / load_cache).
 *
 * The format (Unbound's daemon/cachedump.c writes and reads it):
 *
 *   START_RRSET_CACHE
 *   ;rrset[ nsec_apex] TTL NRR NSIG TRUST SECURITY
 *   NRR resource records, then NSIG RRSIG records, presentation format
 *   ... more sets ...
 *   END_RRSET_CACHE
 *   START_MSG_CACHE
 *   msg QNAME QCLASS QTYPE FLAGS QDCOUNT TTL SECURITY AN NS AR
 *   AN + NS + AR lines "NAME CLASS TYPE FLAGS": the RRsets of the answer,
 *   in message order, by reference to the sets above
 *   ... more messages ...
 *   END_MSG_CACHE
 *   EOF
 *
 * TTLs are remaining seconds at dump time. TRUST and SECURITY are
 * Unbound's enum values (rrset_trust 0..12, sec_status 0..5); petrel maps
 * its own to and from them. A line "BADRR" in place of a record, or
 * "BADREF" in place of a reference, makes the reader skip that set or
 * message (Unbound writes them for data it cannot print).
 *
 * Writing: one pass over each cache. Every live RRset of the RRset cache
 * is written; a message's sets that are not there (evicted since, the
 * negative answer's SOA, the RRSIGs of a DO answer) are written from the
 * message itself, so that every reference resolves. One message per
 * question: petrel keeps up to four (the DO and CD bits of the key); the
 * DO one is written (it carries the RRSIGs), CD ones never (they may hold
 * data that failed validation). The RRset cache keeps each set with its
 * RRSIGs and the status the validator gave it (store.h), so a validated
 * set is written with them, secure (5) and trust validated (11), as
 * Unbound writes it. A set written from a message is secure (and
 * validated) only when the message is and the set has its RRSIGs; an
 * answer is written secure only when every set it references is written
 * secure (an answer for queries without DO has no RRSIGs): Unbound
 * serves a secure message from its cache only when all its sets are
 * secure. The reference flags are written as 0:
 * Unbound looks a reference up by name, type, class and flags, and a set
 * read from a ";rrset" line has flags 0, so a negative answer's SOA
 * written with Unbound's own flag 4 would not be found on its load.
 *
 * Reading is in two steps, so that nothing is loaded half:
 * cachedump_parse() reads and checks the whole text (an error names the
 * line and what was expected) into a parsed dump; cachedump_load() then
 * stores it. A loaded entry keeps the security status of the dump, as
 * in Unbound (the operator gives the dump over the authenticated control
 * channel; that is how a validated cache moves between resolvers): a set
 * marked secure is stored secure with trust validated, one marked
 * insecure insecure; a message marked secure is stored secure (served
 * with AD) when every set it references is marked secure, else
 * unchecked. One marked bogus is not loaded at all, and the trust of a
 * set that is not secure is at most that of a non-authoritative answer,
 * so it never shadows what the resolver learns itself. Messages are rebuilt
 * from the sets they reference (as Unbound does) and stored through the
 * one store path (cache_store_answer), once for queries without DO
 * (without RRSIGs) and once for DO queries (with them). A message whose
 * reference names no set of the dump is skipped, as Unbound skips one
 * whose sets are no longer cached.
 *
 * Off the hot path: ldns converts presentation format; memory is
 * allocated freely.
 */
#ifndef SERVICES_CACHE_CACHEDUMP_H
#define SERVICES_CACHE_CACHEDUMP_H

#include <stddef.h>
#include <time.h>

struct mcache;
struct rrset_cache;
struct rrset_data;
struct cachedump;

/**
 * Where the text goes.
 * @param arg: the caller's.
 * @param text: bytes (not NUL-terminated).
 * @param len: how many.
 */
typedef void (*cachedump_print_func)(void *arg, const char *text,
	size_t len);

/**
 * Write the caches' live entries in Unbound's format, without the
 * section lines (START_..., END_..., EOF): the caller frames them, so
 * that several caches (forked workers) make one dump.
 * @param mc: message cache, or NULL.
 * @param rc: RRset cache, or NULL.
 * @param now: the clock.
 * @param rrsets: gets the ";rrset" blocks (the body of the RRset
 *	section).
 * @param rarg: its argument.
 * @param msgs: gets the "msg" blocks (the body of the message section).
 * @param marg: its argument.
 * @return 0, or -1 when out of memory (part may have been printed).
 */
int cachedump_write(struct mcache *mc, struct rrset_cache *rc, time_t now,
	cachedump_print_func rrsets, void *rarg, cachedump_print_func msgs,
	void *marg);

/**
 * Write one RRset as a block of the dump's RRset section: the line
 * ";rrset TTL COUNT SIGS TRUST SECURITY" and its records, RRSIGs last
 * (also what unbound-control lookup prints of a delegation).
 * @param rs: the set (ttl: the remaining seconds).
 */
void cachedump_write_rrset(const struct rrset_data *rs,
	cachedump_print_func f, void *arg);

/**
 * Read a whole dump (from START_RRSET_CACHE to EOF).
 * @param text: the dump.
 * @param len: its length.
 * @param err: on error, "line N: what was expected".
 * @param errlen: its size.
 * @return the parsed dump (free with cachedump_free), or NULL on error
 *	(malformed or out of memory).
 */
struct cachedump *cachedump_parse(const char *text, size_t len, char *err,
	size_t errlen);

/** what cachedump_load did */
struct cachedump_counts {
	/** sets and messages stored */
	size_t stored;
	/** those not stored: expired (TTL 0), bogus, a better set already
	 * cached, a reference to a set not in the dump, a message the
	 * message cache does not keep (SERVFAIL) */
	size_t dropped;
};

/**
 * Store a parsed dump: its sets in the RRset cache, then its messages in
 * the message cache (see the file comment for the rules).
 * @param d: the parsed dump.
 * @param mc: message cache, or NULL (messages are then dropped).
 * @param rc: RRset cache, or NULL.
 * @param now: the clock.
 * @param counts: filled in.
 * @return 0, or -1 when out of memory (part may have been stored).
 */
int cachedump_load(const struct cachedump *d, struct mcache *mc,
	struct rrset_cache *rc, time_t now, struct cachedump_counts *counts);

/** @return the number of sets and messages in a parsed dump */
size_t cachedump_size(const struct cachedump *d);

/** Free a parsed dump. NULL is allowed. */
void cachedump_free(struct cachedump *d);

#endif /* SERVICES_CACHE_CACHEDUMP_H */
