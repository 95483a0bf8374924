/*
 * iterator/iter_scrub.h - what the iterator believes of a reply: the
 * scrubber and the classification of a reply.
 *
 * Scrubbing, before anything in a reply is looked at:
 *   - bailiwick: records whose owner is not at or below the zone the
 *     queried server was asked as (the delegation point) are dropped from
 *     every section (with harden-glue: no, A and AAAA records of the
 *     additional section stay: glue is believed), and so are stray OPT
 *     records; a forwarder's reply is not scrubbed for bailiwick (it
 *     answers recursively);
 *   - overreaching NSEC sets: an NSEC (and its RRSIGs) whose next name
 *     is outside that zone (iter_scrub_nsec_overreach; not for a
 *     forwarder);
 *   - oversized NS sets: past iter-scrub-ns records of one owner, the
 *     rest are dropped (iter_scrub_ns; not for a forwarder);
 *   - promiscuous NS sets (iter-scrub-promiscuous, on by default, not
 *     for a forwarder): the NS set in the authority section of an answer,
 *     NXDOMAIN or other error is dropped (iter_scrub_promiscuous);
 *   - private addresses: A and AAAA records in the answer section whose
 *     address is in a private-address block are dropped, unless their
 *     owner is under a private-domain (DNS rebinding protection);
 *   - the chain cut (iter_scrub_chain, as Unbound's scrubber): of the
 *     answer section only the records at the name asked and the DNAME
 *     that applies to it stay; the rest of a CNAME or DNAME chain is
 *     asked for link by link (the RRset cache answers what it knows).
 *
 * Classification of what is left, for the name asked (after following
 * the CNAME and DNAME records of the answer section from it, DNAMEs
 * synthesised into CNAMEs, at most max-query-restarts links in all):
 *   - ANSWER: the RRset of the type asked is there (at the end of the
 *     chain);
 *   - CNAME: the chain ends at a name with no data and the server says
 *     nothing more about it: resolve the new name from the top;
 *   - NXDOMAIN, NODATA: the name does not exist / has no data of the
 *     type (for a moved chain only when the server is authoritative
 *     (AA with an SOA) for the new name's zone);
 *   - REFERRAL: NS records in the authority section for a zone strictly
 *     below the current one (also with AA set, as long as there is no
 *     SOA), with no answer section;
 *   - LAME: an upward or sideways referral, or nothing useful;
 *   - RECLAME: an answer, CNAME, NXDOMAIN or NODATA with RA set and AA
 *     clear from a server that is not a forwarder (a recursive server
 *     where an authoritative one should be: its data is second hand;
 *     nothing of the reply is kept);
 *   - USELESS: AA, no answer and no SOA, and the authority section held
 *     only an NS set the bailiwick scrub dropped (an upward referral,
 *     as some servers give for the types they do not serve): another
 *     server is tried, this one is not remembered lame;
 *   - EMPTY: AA and nothing at all: the other servers are tried first
 *     (as Unbound, which throws such replies away); when none says more,
 *     it is NODATA without SOA (RFC 2308 section 5);
 *   - ERROR: a CNAME loop or too long a chain.
 * A forwarder's reply is an ANSWER when it has the data, else NXDOMAIN or
 * NODATA by its rcode; an upward referral from it (no answer, no SOA, an
 * NS set above the zone it is asked for) is LAME: it did not recurse.
 *
 * The reply is parsed by dns/msgparse (iter_reply_parse) into records in
 * the state's region: owner names and RDATA uncompressed (struct
 * module_rr), one list per section. Nothing here allocates on the heap.
 */
#ifndef ITERATOR_ITER_SCRUB_H
#define ITERATOR_ITER_SCRUB_H

#include <stdint.h>
#include <stddef.h>
#include "services/module.h"

struct iter_env;
struct region;
struct module_rr;
struct module_rrlist;

/** a reply as the iterator reads it */
struct iter_reply {
	/** header flags word */
	uint16_t flags;
	/** rcode (header bits) */
	int rcode;
	/** number of questions */
	int qdcount;
	/** the (first) question name, uncompressed, case as received */
	uint8_t qname[256];
	/** its type and class */
	uint16_t qtype, qclass;
	/** answer, authority, additional (DNS_SEC_*), OPT left out */
	struct module_rrlist sec[3];
	/** NS records the bailiwick scrub dropped from the authority
	 * section (an upward or sideways referral) */
	int ns_dropped;
	/** A and AAAA records dropped for an RDATA of the wrong length (the
	 * answer made from the reply says so: EDE 0, Other, as Unbound) */
	int len_dropped;
};

/** how a scrubbed reply was classified */
enum iter_class {
	/** the question's RRset (maybe behind a CNAME/DNAME chain) */
	ITER_CL_ANSWER,
	/** a CNAME chain ending at a name that must be resolved anew */
	ITER_CL_CNAME,
	/** a referral to a zone below the current one */
	ITER_CL_REFERRAL,
	/** name does not exist */
	ITER_CL_NXDOMAIN,
	/** name exists, no data of this type */
	ITER_CL_NODATA,
	/** lame or useless */
	ITER_CL_LAME,
	/** an answer, NXDOMAIN or NODATA from a recursive server (RA, no
	 * AA) where an authoritative one should be */
	ITER_CL_RECLAME,
	/** nothing for this question, though the server may serve the zone
	 * (an authoritative upward referral: some servers answer so for
	 * the types they lack); skip the server, do not remember it lame */
	ITER_CL_USELESS,
	/** AA and nothing at all (no answer, authority or additional
	 * records): another server is tried first; when none gives more,
	 * it is NODATA (RFC 2308 section 5) */
	ITER_CL_EMPTY,
	/** a CNAME loop, too long a chain, or out of memory */
	ITER_CL_ERROR
};

/**
 * Parse a reply into records in a region.
 * @param r: the region (the state's).
 * @param pkt: the reply; len its length.
 * @param rep: filled in.
 * @return 0, or -1 when it is malformed (or out of memory).
 */
int iter_reply_parse(struct region *r, const uint8_t *pkt, size_t len,
	struct iter_reply *rep);

/**
 * Scrub a reply in place: records of another class than the question's
 * go (unless it asks class ANY), then the bailiwick and the private
 * addresses.
 * @param rep: the reply.
 * @param zone: the zone the server was asked as (lower-case wire), or
 *	NULL for a forwarder (no bailiwick scrub).
 * @param env: the private-address and private-domain settings.
 */
void iter_scrub_reply(struct iter_reply *rep, const uint8_t *zone,
	struct iter_env *env);

/**
 * iter-scrub-ns: keep at most max NS records of each owner in a list (the
 * first ones), drop the rest (and every NS record of owners past the
 * 16th: no reply that means well has so many).
 * @return the number dropped.
 */
int iter_scrub_ns(struct module_rrlist *l, int max);

/**
 * iter-scrub-cname: keep the first max CNAME and DNAME records of a list
 * (an answer section), in the order they came; drop the rest (not their
 * RRSIGs: unmatched, the validator ignores them).
 * @return the number of records dropped.
 */
int iter_scrub_cname(struct module_rrlist *l, int max);

/**
 * iter-scrub-promiscuous: drop the NS records (and their RRSIGs) from the
 * authority section of a reply that is not a referral or NODATA, that
 * is, one with answer records, or with an rcode other than NOERROR. Such
 * an NS set is not needed for the answer, and believed it would move
 * every other name of its zone to the servers it names (a poisoning
 * path, CVE-2025-11411); the additional records of those servers are
 * then unrelated to the reply and never used either (the iterator only
 * takes addresses for NS names it uses).
 * @return the number of records dropped.
 */
int iter_scrub_promiscuous(struct iter_reply *rep);

/**
 * Drop the NSEC sets (with their RRSIGs) of a list whose next name lies
 * outside the zone the server was asked as: a proof that reaches over
 * the zone's end (as Unbound's scrubber; aggressive-nsec would deny names
 * of another zone with it).
 * @return the number of records dropped.
 */
int iter_scrub_nsec_overreach(struct module_rrlist *l, const uint8_t *zone);

/** Drop records not at or below zone (and OPT records) from a list.
 * @return the number of NS records dropped. */
int iter_scrub_zone(struct module_rrlist *l, const uint8_t *zone);

/**
 * Drop A/AAAA records with a private address (private-address), and SVCB
 * and HTTPS records whose ipv4hint or ipv6hint holds one (as Unbound),
 * unless their owner is under a private-domain.
 * @return the number dropped.
 */
int iter_scrub_private(struct iter_env *env, struct module_rrlist *l);

/**
 * The chain cut (as Unbound's scrubber): of the answer section only the
 * records at the name asked stay (its data, its CNAME) and the DNAME
 * (with its RRSIGs) that applies to that name; the rest of a CNAME or
 * DNAME chain is the data of other names, which the iterator asks for
 * itself (from the cache, else from their zone's servers). A forwarder's
 * reply is cut too.
 * @param rep: the reply (rep->qname is the name asked).
 */
void iter_scrub_chain(struct iter_reply *rep);

/**
 * @return 1 when the DNAME record d applies to qname (a name strictly
 * below its owner) and the substitution makes a name longer than 255
 * octets (RFC 6672 2.2: the server says YXDOMAIN).
 */
int iter_dname_too_long(const struct module_rr *d, const uint8_t *qname);

/**
 * Classify a scrubbed reply, collecting the chain and the answer.
 * @param r: region for the records collected (copies of the structs).
 * @param rep: the reply (scrubbed).
 * @param name: the name asked, lower case (buffer of 256); on return the
 *	end of the CNAME/DNAME chain.
 * @param qtype: the type wanted.
 * @param zone: the zone the server was asked as.
 * @param forward: 1 for a forwarder's reply.
 * @param chain: the chain's records are appended (with the synthesised
 *	CNAMEs).
 * @param final: the answer RRset is appended.
 * @param links: CNAME/DNAME links followed so far; incremented.
 * @param max_links: most links in all (max-query-restarts); past it the
 *	class is ERROR.
 * @param dnssec: 1 to keep the RRSIGs of the sets taken (DO queries).
 * @param nsrr: for REFERRAL, set to an NS record of the referred zone;
 *	else NULL.
 * @return the class.
 */
enum iter_class iter_classify(struct region *r, struct iter_reply *rep,
	uint8_t *name, uint16_t qtype, const uint8_t *zone, int forward,
	struct module_rrlist *chain, struct module_rrlist *final, int *links,
	int max_links, int dnssec, struct module_rr **nsrr);

/** @return the name of a class ("answer", "referral", ...) */
const char *iter_class_str(enum iter_class c);

/**
 * Walk the answer section from name along CNAME/DNAME records, appending
 * the links to chain and the final RRset (if any) to final. A link from a
 * name to itself (a CNAME to its owner, a DNAME that maps the name onto
 * itself) ends the walk there: the name has no other data (as Unbound
 * takes such a reply: an answer with the loop in it, RFC 1034 3.6.2).
 * @param r: region for the records appended.
 * @param ans: answer section (scrubbed).
 * @param name: start name; on return the end of the chain (buffer 256).
 * @param qtype: the type wanted.
 * @param chain: link records appended.
 * @param final: the answer RRset appended.
 * @param links: incremented per link.
 * @param max_links: past this many links the walk fails.
 * @param dnssec: 1 to keep the RRSIGs of the sets taken (DO clients).
 * @return 0, or -1 on error (out of memory, loop, too long).
 */
int iter_walk_chain(struct region *r, const struct module_rrlist *ans,
	uint8_t *name, uint16_t qtype, struct module_rrlist *chain,
	struct module_rrlist *final, int *links, int max_links, int dnssec);

/**
 * Copy the NSEC and NSEC3 records of an authority section with their
 * RRSIGs (the proofs that come with a CNAME: its wildcard proof, or the
 * insecure delegation its target lies under).
 * @return 0 or -1 (out of memory).
 */
int iter_copy_nsec(struct region *r, const struct module_rrlist *auth,
	struct module_rrlist *to);

/**
 * Copy the SOA from authority for a negative answer, when its owner is an
 * ancestor of name; with dnssec also its RRSIG and the NSEC/NSEC3
 * records with their RRSIGs (the denial proofs for DO clients).
 * @return 0 or -1.
 */
int iter_copy_soa(struct region *r, const struct module_rrlist *auth,
	const uint8_t *name, struct module_rrlist *to, int dnssec);

/** @return 1 when the list has an SOA record */
int iter_has_soa(const struct module_rrlist *auth);

/**
 * The referral NS owner in authority: the deepest NS owner that is an
 * ancestor-or-self of name. @return an NS record of it, or NULL.
 */
struct module_rr *iter_find_ns(const struct module_rrlist *auth,
	const uint8_t *name);

#endif /* ITERATOR_ITER_SCRUB_H */
