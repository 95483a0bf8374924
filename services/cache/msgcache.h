/*
 * services/cache/msgcache.h - the message cache: ready-made wire answers.
 *
 * An entry is a complete answer as it goes to a client, kept in wire format
 * (question, answer, authority and additional sections, without the OPT
 * record) together with the byte offset of every RR's TTL field, the TTLs
 * as stored (already clamped by cache-min-ttl/cache-max-ttl, or set to the
 * negative TTL), the time it was stored, its absolute expiry, rcode and
 * DNSSEC security status. The key is the lower-cased question name, type,
 * class, and the client's DO and CD bits (an answer for a DO query carries
 * RRSIGs, a CD answer may hold unvalidated data). An entry may be marked
 * as serving the other CD or DO bit too (mcache_store_msg_share): a query
 * whose own key misses then takes it, so that one resolution serves CD
 * and non-CD (DO and non-DO) clients where their answers are the same.
 *
 * The hot path, mcache_answer(), looks the key up in the shared slabbed
 * table (util/storage/slabhash.h: no lock, no shared write on a hit),
 * copies the stored answer into the caller's buffer with one memcpy and
 * patches:
 *   - the header: the client's ID; QR, RA set; RD and CD copied from the
 *     query; AA cleared; AD only when the entry is secure and the client
 *     set DO or AD; the stored rcode; the counts;
 *   - the question name, with the client's bytes (its letter case);
 *   - every TTL: the stored TTL minus the entry's age (the stored TTL
 *     with serve-original-ttl; in an expired answer, the same for a
 *     record still live and serve-expired-reply-ttl, at most its own
 *     TTL, for an expired one: mcache_store_msg_capped);
 *   - with rrset-roundrobin, the order of the records of each RRset
 *     the entry lists as rotatable (equal-length records, such as A and
 *     AAAA sets), starting at the record the query ID picks;
 *   - the OPT record, only if the client sent EDNS: petrel's UDP size, DO
 *     echoed, and an Extended DNS Error option where one applies (3, Stale
 *     Answer, or 19, Stale NXDOMAIN Answer, for expired data; or the
 *     entry's own code).
 * An answer larger than the limit (the client's UDP size, at least 512,
 * at most max-udp-size; 512 without EDNS; the buffer size for TCP) is
 * truncated at whole RRsets (RFC 2181 section 9): RRsets are dropped from
 * the end; TC is set when one from the answer or authority section had to
 * go; dropped additional data does not set TC. The OPT record always fits.
 * It allocates nothing, takes no lock, calls no clock and logs nothing:
 * the caller passes `now` (the worker's cached clock).
 *
 * Threads: one message cache is shared by all worker threads (thread-model
 * pthreads/solaris), or each process has its own (fork), or, with fork
 * and shared-cache, every process uses one table in a shared mapping
 * (util/storage/shmhash.h; mcache_create_shared): then the workers must
 * be readers of the mapping's QSBR domain (util/storage/shmarena.h), the
 * entries are copied into the mapping on store, and a hit is the same
 * code with an offset-to-pointer step in the lookup. The settings other
 * than the budget (TTL limits, prefetch...) stay per process. Workers must be
 * QSBR readers (util/storage/qsbr.h): the hit path reads entries that a
 * writer on another thread may be replacing. Store, flush, traverse take
 * the slab locks. The parameters (mcache_params) may only change while no
 * worker runs (reload).
 *
 * Refresh signalling: an entry in the last 10% of its TTL is "due for
 * prefetch"; an expired entry within serve-expired-ttl may be served
 * stale. Both ask the caller to refresh it, once: the first caller to see
 * the state wins an atomic compare-and-swap on the entry and gets
 * *refresh = 1; others get 0 until MCACHE_REFRESH_RETRY seconds have
 * passed (in case that refresh failed). This is the one write a hit can
 * make to a shared line, once per entry per refresh. (With
 * serve-expired-ttl-reset a failed refresh, not a hit, stores its time
 * in the entry: the serve-expired-ttl window then runs from it.)
 */
#ifndef SERVICES_CACHE_MSGCACHE_H
#define SERVICES_CACHE_MSGCACHE_H

#include <stdint.h>
#include <stddef.h>
#include <time.h>

struct query_info;
struct fast_query;
struct dns_msg;
struct mcache;
struct shmhash;
struct cachetab;

/** seconds after a refresh was signalled before another may be signalled */
#define MCACHE_REFRESH_RETRY 5

/** seconds a negative answer without SOA (RFC 2308 section 2.2 type 3
 * NODATA, or a bare NXDOMAIN) is kept: there is no SOA to give a
 * negative TTL, and RFC 2308 section 5 warns that such answers may loop
 * between servers, so it is kept only long enough to absorb a burst of
 * repeats (as Unbound does, 5 s); cache-min-negative-ttl and
 * cache-max-negative-ttl still apply */
#define MCACHE_NOSOA_NEG_TTL 5

/** seconds a SERVFAIL is kept (mcache_store_servfail): RFC 9520 section
 * 3.2 asks a resolver to cache a resolution failure, at least 1 s and
 * at most 5 minutes; Unbound keeps it 5 s (its NORR_TTL), which stops a
 * burst of repeats from asking the failing servers again and is short
 * enough that a server that comes back is soon asked. Past it the entry
 * is never served stale (serve-expired): the question is asked again */
#define MCACHE_SERVFAIL_TTL 5

/** DNSSEC status of a cached answer */
enum mcache_security {
	/** not validated (no validator, or CD query) */
	MCACHE_SEC_UNCHECKED = 0,
	/** validated insecure (no chain of trust) */
	MCACHE_SEC_INSECURE,
	/** validated secure: AD may be set */
	MCACHE_SEC_SECURE,
	/** validation failed */
	MCACHE_SEC_BOGUS,
	/** validation could not decide */
	MCACHE_SEC_INDETERMINATE
};

/** what mcache_answer found */
enum mcache_result {
	/** nothing usable: resolve (nothing written) */
	MCACHE_MISS = 0,
	/** a fresh answer was written */
	MCACHE_HIT,
	/** a fresh answer was written; the entry is in the last 10% of its
	 * TTL (prefetch) */
	MCACHE_HIT_PREFETCH,
	/** an expired answer was written (serve-expired, RFC 8767), its
	 * expired records with TTL serve-expired-reply-ttl, and EDE 3 (19
	 * for NXDOMAIN) when the client has EDNS */
	MCACHE_HIT_EXPIRED
};

/** what mcache_store did */
enum mcache_store_result {
	/** stored */
	MCACHE_STORED = 0,
	/** not cacheable (TTL 0, TC set, rcode other than NOERROR/NXDOMAIN,
	 * question mismatch, OPT not last...) */
	MCACHE_NOT_CACHEABLE = 1,
	/** malformed message or out of memory */
	MCACHE_ERROR = -1,
	/** (cache_store_answer only) stored, with the TTLs of the answer;
	 * but a set of it went into the RRset cache with an older set's
	 * shorter expiry (rrset_cache_store_held): the answer is to be
	 * stored again once its waiting clients have been answered, so that
	 * later hits show that set's TTL (as Unbound's first answer shows
	 * the server's TTL, and its message the cached set's) */
	MCACHE_STORED_HELD = 2
};

/** the message cache's settings (from the config) */
struct mcache_params {
	/** msg-cache-size: bytes */
	size_t maxmem;
	/** msg-cache-slabs: power of two */
	size_t slabs;
	/** cache-min-ttl: s */
	uint32_t min_ttl;
	/** cache-max-ttl: s */
	uint32_t max_ttl;
	/** cache-max-negative-ttl: s */
	uint32_t max_negative_ttl;
	/** cache-min-negative-ttl: s; 0 leaves min_ttl to apply */
	uint32_t min_negative_ttl;
	/** prefetch: 1 to signal refreshes in the last 10% of the TTL */
	int prefetch;
	/** serve-expired: 1 to answer from expired entries */
	int serve_expired;
	/** serve-expired-ttl: s past expiry an entry may be served; 0 = no
	 * limit */
	uint32_t serve_expired_ttl;
	/** serve-expired-reply-ttl: the TTL put in expired answers */
	uint32_t serve_expired_reply_ttl;
	/** max-udp-size: the UDP size petrel puts in its OPT record and the
	 * largest UDP answer it sends */
	uint16_t max_udp_size;
	/** rrset-roundrobin: 1 to rotate the records of the RRsets the
	 * entry lists (equal-length sets: A, AAAA...) by the query ID */
	int roundrobin;
	/** serve-original-ttl: 1 to answer with the TTLs as stored, not
	 * counted down by the entry's age (the entry still expires); it
	 * applies to the entries stored while it is set */
	int original_ttl;
	/** ede: no: 1 to put no Extended DNS Error in answers (0, the
	 * default, puts them) */
	int no_ede;
	/** ede-serve-expired: no: 1 to leave EDE 3 (Stale Answer) / 19
	 * (Stale NXDOMAIN Answer) out of expired answers */
	int no_ede_stale;
};

/**
 * Fill params with the defaults (Unbound's): 4 MB, 4 slabs, min 0,
 * max 86400, negative 3600, no prefetch, no serve-expired, reply TTL 30,
 * UDP 1232, rrset-roundrobin on.
 */
void mcache_params_default(struct mcache_params *p);

struct config_file;
/**
 * Fill params from a config (the daemon and the replay runner both build
 * their message cache with it): msg-cache-size and -slabs, cache-min-ttl,
 * cache-max-ttl, cache-min- and cache-max-negative-ttl, prefetch, the
 * serve-expired options, max-udp-size, rrset-roundrobin, ede and
 * serve-original-ttl (which turns cache-min-ttl and cache-max-ttl off).
 */
void mcache_params_from_cfg(struct mcache_params *p,
	const struct config_file *cfg);

/**
 * The TTL a negative answer (NXDOMAIN, NODATA) is kept for, and its SOA
 * given with, from min(SOA TTL, SOA MINIMUM) (RFC 2308 section 5):
 * cache-min-ttl and cache-max-ttl, then cache-max-negative-ttl, then
 * cache-min-negative-ttl, which wins over the others (Unbound's order).
 */
uint32_t mcache_clamp_neg_ttl(const struct mcache_params *p, uint32_t ttl);

/**
 * Create a message cache.
 * @param p: settings (copied).
 * @return the cache or NULL when out of memory. Free with mcache_delete.
 */
struct mcache *mcache_create(const struct mcache_params *p);

/**
 * The bytes of shared mapping a shared message cache needs.
 * @param p: settings (maxmem, slabs).
 */
size_t mcache_shared_space(const struct mcache_params *p);

/**
 * Make the shared table of a message cache in a mapping (set-up, before
 * the fork).
 * @param base: the mapping (shmarena_map_create).
 * @param p: settings.
 * @return its offset, or 0 when it does not fit or is not supported.
 */
uint64_t mcache_shared_init(void *base, const struct mcache_params *p);

/**
 * A message cache on a shared table (each process makes its own handle;
 * the entries are shared).
 * @param p: settings (copied).
 * @param base: the mapping at its address in this process.
 * @param off: mcache_shared_init's result.
 * @return the cache or NULL. mcache_delete frees only the handle.
 */
struct mcache *mcache_create_shared(const struct mcache_params *p,
	void *base, uint64_t off);

/**
 * Delete a cache and its entries; no thread may use it any more. A
 * shared cache: only this process's handle (the entries stay).
 */
void mcache_delete(struct mcache *c);

/**
 * Change the settings (reload; no worker may run). The byte budget is
 * applied at once (evicting); TTL rules apply to later stores.
 */
void mcache_set_params(struct mcache *c, const struct mcache_params *p);

/** @return the cache's settings (its TTL clamps), valid while it lives */
const struct mcache_params *mcache_get_params(const struct mcache *c);

/**
 * Store an answer.
 * @param c: cache.
 * @param qinfo: the question (lower-cased name, hash as dns_qinfo_hash).
 * @param do_bit: the DO bit of the queries this answer is for.
 * @param cd_bit: the CD bit of those queries.
 * @param reply: the full reply message in wire format (header, the one
 *	question, sections; an OPT record, if any, must be the last
 *	additional record and is left out). Not owned; copied.
 * @param len: its length.
 * @param now: the current time.
 * @param sec: DNSSEC status.
 * @param ede: Extended DNS Error code to put in answers from this entry,
 *	or -1 for none.
 * @return MCACHE_STORED, MCACHE_NOT_CACHEABLE or MCACHE_ERROR.
 *	TTL rules: positive answers live min(TTL of every RR), each TTL
 *	clamped to [cache-min-ttl, cache-max-ttl]; NXDOMAIN and NODATA
 *	(RFC 2308) live min(SOA TTL, SOA MINIMUM), at most
 *	cache-max-negative-ttl; an answer with a TTL 0 record is not cached.
 */
enum mcache_store_result mcache_store(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit,
	const uint8_t *reply, size_t len, time_t now,
	enum mcache_security sec, int ede);

/**
 * Store an answer already parsed (or built with its parse): as
 * mcache_store, without parsing reply again. The store path of a finished
 * query (services/cache/store.h) builds the wire and msg together.
 * @param reply: the message, len its length.
 * @param msg: its parse (msg->rrs offsets into reply; no OPT among them).
 * Other parameters and the result as mcache_store.
 */
enum mcache_store_result mcache_store_msg(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit,
	const uint8_t *reply, size_t len, const struct dns_msg *msg,
	time_t now, enum mcache_security sec, int ede);

/** mcache_store_msg_share: the answer serves the other CD bit too */
#define MCACHE_SHARE_CD 0x01
/** mcache_store_msg_share: the answer serves the other DO bit too */
#define MCACHE_SHARE_DO 0x02

/**
 * As mcache_store_msg, and say whether the answer also serves queries
 * with the other CD bit, or the other DO bit. A query whose own key (its
 * DO and CD bits) has no entry is answered from the entry of the other
 * CD bit, or else of the other DO bit, when that was stored shared, or
 * else of both other bits, when that serves both (a
 * miss of the own key is the only cost: the hit path is unchanged). The
 * caller decides, so that both would be the same answer: a non-CD
 * answer serves CD clients (it is what a validating resolver gives
 * them, RFC 6840 section 5.9); a CD answer serves non-CD clients only
 * when no validation would have happened for them either (no trust
 * anchor); a DO answer serves non-DO clients when it holds no DNSSEC
 * record to strip (RRSIG, NSEC, NSEC3); a non-DO answer serves DO
 * clients when its resolution saw no such record (every upstream query
 * asks with DO; mesh_answer.do_same). A bogus answer is never shared.
 * Storing an answer that serves the other DO bit removes that key's own
 * entry, which it supersedes (an older or expired answer must not be
 * served in its place).
 * @param share: MCACHE_SHARE_CD | MCACHE_SHARE_DO, or 0.
 */
enum mcache_store_result mcache_store_msg_share(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit, int share,
	const uint8_t *reply, size_t len, const struct dns_msg *msg,
	time_t now, enum mcache_security sec, int ede);

/**
 * Store a SERVFAIL for a question (RFC 9520 section 3.2): an entry with
 * no records, rcode SERVFAIL, kept MCACHE_SERVFAIL_TTL seconds, answered
 * by mcache_answer like any entry (with its EDE), never served stale and
 * never shared with the other DO or CD bit. The caller decides which
 * failures are kept (upstream failures, not a refused or ratelimited
 * query) and that no servable answer is replaced by it.
 * @param c: cache.
 * @param qinfo: the question (lower-cased name, hash as dns_qinfo_hash).
 * @param do_bit: the DO bit of the key; cd_bit: its CD bit.
 * @param now: the current time.
 * @param ede: Extended DNS Error code to answer with, or -1.
 * @return MCACHE_STORED, or MCACHE_ERROR (out of memory).
 */
enum mcache_store_result mcache_store_servfail(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit, time_t now,
	int ede);

/** mcache_answer's *refresh: this caller starts the entry's refresh */
#define MCACHE_ANSWER_REFRESH 1
/** mcache_answer's *refresh: the answer came from a secure entry */
#define MCACHE_ANSWER_SECURE 2
/** mcache_answer's *refresh: an expired answer whose last refresh failed
 * less than MCACHE_SERVFAIL_TTL seconds ago (mcache_norec_set): give it
 * at once, without trying for a fresh answer (serve-expired-client-
 * timeout); no refresh is signalled meanwhile */
#define MCACHE_ANSWER_NOREC 4

/**
 * The hot path: answer a client query from the cache.
 * @param c: cache.
 * @param q: the client query, parsed by dns_query_parse_fast (its hash,
 *	ID, flags, EDNS, question offsets).
 * @param qpkt: the client's packet (for its question bytes).
 * @param tcp: 1 when the answer goes over TCP (no UDP size limit).
 * @param now: the worker's clock.
 * @param out: the reply buffer (may not overlap qpkt).
 * @param outmax: its size (at least 512).
 * @param outlen: the reply length, set on a hit.
 * @param refresh: set to flags (0 for none): MCACHE_ANSWER_REFRESH when
 *	this caller should start a refresh of the entry (prefetch, or
 *	background refresh of an expired answer), MCACHE_ANSWER_SECURE when
 *	the answer came from a secure entry (num.answer.secure counts those
 *	too, as Unbound's, whether or not the client sees AD). May be NULL.
 * @return MCACHE_HIT, MCACHE_HIT_PREFETCH, MCACHE_HIT_EXPIRED (an answer
 *	is in out) or MCACHE_MISS (nothing written). A query with EDNS
 *	version other than 0 (the caller answers BADVERS) or an opcode other
 *	than QUERY is always a miss.
 */
enum mcache_result mcache_answer(struct mcache *c,
	const struct fast_query *q, const uint8_t *qpkt, int tcp, time_t now,
	uint8_t *out, size_t outmax, size_t *outlen, int *refresh);

/**
 * The table hash mcache_answer() will look q up with (the question's hash
 * and the client's DO and CD bits), for mcache_prefetch().
 */
uint32_t mcache_hash(const struct fast_query *q);

/**
 * Warm the CPU cache for an mcache_answer() that is coming: stage 0 for
 * every query of a batch, then stage 1 for every query, then the answers
 * (see slabhash_prefetch). Changes nothing.
 * @param c: cache.
 * @param hash: mcache_hash() of the query.
 * @param stage: 0 or 1.
 */
void mcache_prefetch(struct mcache *c, uint32_t hash, int stage);

/** what mcache_peek reports about an entry */
struct mcache_state {
	/** MCACHE_MISS, MCACHE_HIT, MCACHE_HIT_PREFETCH, MCACHE_HIT_EXPIRED
	 * (the latter only when serve-expired allows it) */
	enum mcache_result result;
	/** remaining TTL in seconds (0 when expired) */
	uint32_t ttl;
	/** the stored rcode */
	int rcode;
	/** the security status */
	enum mcache_security sec;
	/** the entry's Extended DNS Error code, or -1 */
	int ede;
	/** MCACHE_SHARE_CD | MCACHE_SHARE_DO: the other keys it serves */
	int share;
};

/**
 * Look an entry up without answering (for the resolver: serve-expired
 * decisions, tests). Same key as mcache_answer.
 * @return 0 and *st filled, or -1 when there is no entry (st->result is
 *	then MCACHE_MISS).
 */
int mcache_peek(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, struct mcache_state *st);

/**
 * Copy a fresh entry out as a complete message (harden-below-nxdomain:
 * the iterator reads a parent name's NXDOMAIN and its proof). Not the
 * hot path: the message is written with ID 0, QR RA and the stored
 * rcode, the counts, the stored question, and every TTL minus the
 * entry's age; no OPT record.
 * @param c: cache.
 * @param qinfo: the question (lower-cased name, hash as dns_qinfo_hash).
 * @param do_bit: the DO bit of the key; cd_bit: its CD bit.
 * @param now: the current time.
 * @param buf: where the message goes; bufmax its size.
 * @param len: set to the message length.
 * @param st: set to the entry's rcode, security and remaining TTL.
 * @return 0, or -1 when there is no fresh entry or it does not fit.
 */
int mcache_copy_msg(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, uint8_t *buf, size_t bufmax,
	size_t *len, struct mcache_state *st);

/**
 * serve-expired-ttl-reset: a refresh of this question failed; if its
 * entry has expired, the serve-expired-ttl window starts again now (the
 * entry is served stale as long as it is asked for and the upstream
 * fails). One relaxed atomic store on the entry; nothing else changes.
 * @param c: cache.
 * @param qinfo: the question (lower-cased name, hash as dns_qinfo_hash).
 * @param do_bit: the DO bit of the key; cd_bit: its CD bit.
 * @param now: the current time.
 */
void mcache_stale_reset(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now);

/* ---- coherence: the messages that carry an RRset ----
 *
 * Unbound's message cache refers to the sets of its RRset cache, so a
 * set replaced there (a zone's new NS set, an SOA with a new serial)
 * shows in every cached message that carries it. petrel's entries are
 * finished wire answers, and the hit path stays as it is: instead, the
 * store path (services/cache/store.c) rebuilds, when it replaces a set
 * with different data, the messages that carry it. It finds them in a
 * small table of references kept beside the cache: per set (a hash of
 * its owner, type and class) the keys of the last few messages stored
 * with it in their authority or additional section. It is bounded
 * (MCACHE_REF_BUCKETS buckets of MCACHE_REF_SLOTS keys; a full bucket
 * forgets its oldest key, whose message then keeps the old set until it
 * expires, as before) and per process. Each reference holds a
 * fingerprint of the set's data as the message has it, so that a store
 * of the same data (a refresh, the SOA of every negative answer of a
 * zone) costs a bucket look-up, not a rebuild. With shared-cache, a
 * store in one worker process rebuilds only the messages it stored
 * itself. A bucket has its own lock, taken on the store path only. */

/** buckets of the reference table (a power of two) */
#define MCACHE_REF_BUCKETS 1024
/** message keys per bucket */
#define MCACHE_REF_SLOTS 4

/** a message key taken from the reference table */
struct mcache_ref {
	/** the question name, lower-cased */
	uint8_t qname[255];
	/** its length */
	size_t qname_len;
	/** type and class */
	uint16_t qtype, qclass;
	/** the DO and CD bits of the key */
	int do_bit, cd_bit;
	/** the fingerprint of the set's data the message holds */
	uint32_t data_fp;
	/** when the set expires as the message holds it */
	time_t set_expire;
};

/**
 * Remember that the message of this key carries the set of set_hash,
 * with data of fingerprint data_fp, expiring at set_expire there (a lost
 * reference only loses the rebuild: no error).
 */
void mcache_ref_add(struct mcache *c, uint32_t set_hash, uint32_t data_fp,
	time_t set_expire, const struct query_info *qinfo, int do_bit,
	int cd_bit);

/**
 * Take (and forget) the keys remembered for set_hash whose messages hold
 * data of another fingerprint than data_fp, or the same data expiring
 * at renew_before or earlier (a set that comes again once its copy in
 * the messages has expired, or, for a refresh, is about to: Unbound's
 * messages show the renewed set); the others stay.
 * @param renew_before: 0 to take only other data.
 * @param out: where they go; max: its room (MCACHE_REF_SLOTS is enough).
 * @return how many were written.
 */
size_t mcache_ref_take(struct mcache *c, uint32_t set_hash,
	uint32_t data_fp, time_t renew_before, struct mcache_ref *out,
	size_t max);

/**
 * Copy an expired entry that serve-expired may still serve, as stored:
 * the message with ID 0, QR RA and the stored rcode, the counts, the
 * stored question and the stored TTLs (not counted down; they count
 * from *stored). Not the hot path (store.c rebuilds such a message when
 * one of its sets is renewed: it is served stale with the live set).
 * @param stored: set to the time its TTLs count from.
 * @param expire: set to its expiry (in the past).
 * Other parameters as mcache_copy_msg (st->result MCACHE_HIT_EXPIRED).
 * @return 0, or -1 when there is no such entry or it does not fit.
 */
int mcache_copy_stale(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now, uint8_t *buf, size_t bufmax,
	size_t *len, struct mcache_state *st, time_t *stored, time_t *expire);

struct mcache_keep;

/**
 * As mcache_store_msg_share, and the entry expires at expire_max at the
 * latest (a message rebuilt with a newer set keeps the expiry it had, as
 * Unbound's message keeps its TTL while its sets show theirs); 0 for no
 * limit. rr_capped (NULL for none): one byte per record of msg, 1 for a
 * record whose TTL is the RRset cache's, shorter than its own (store.h):
 * once expired it is served stale with serve-expired-reply-ttl, as
 * Unbound's expired set is, not with that shorter TTL. (An expired
 * answer shows each record that is still live with what is left of it,
 * and each expired one with serve-expired-reply-ttl, at most its own
 * TTL.) keep (NULL for none): the refresh and serve-expired state
 * the new entry starts with (mcache_get_keep of the entry it rebuilds).
 */
enum mcache_store_result mcache_store_msg_capped(struct mcache *c,
	const struct query_info *qinfo, int do_bit, int cd_bit, int share,
	const uint8_t *reply, size_t len, const struct dns_msg *msg,
	time_t now, enum mcache_security sec, int ede, time_t expire_max,
	const uint8_t *rr_capped, const struct mcache_keep *keep);

/** the state an entry keeps beside its message, which a rebuild of it
 * (store.c) carries over: without it, an expired message rebuilt during
 * an outage would lose its "no recursion" window (mcache_norec_set) and
 * its serve-expired-ttl-reset start (mcache_stale_reset) */
struct mcache_keep {
	/** the refresh time, with the REFRESH_NOREC flag (as stored) */
	int64_t refresh_after;
	/** the serve-expired-ttl-reset start, 0 for none */
	int64_t stale_from;
};

/**
 * Read the kept state of the entry of this key, and its records'
 * capped flags (off the hit path: store.c, before a rebuild).
 * @param keep: set to the entry's refresh and serve-expired state.
 * @param rr_capped: NULL, or one byte per record (in message order), set
 *	to 1 for a record whose TTL is the RRset cache's shorter one
 *	(mcache_store_msg_capped); max: its room.
 * @return the entry's number of records (OPT not counted), or -1 when
 *	there is no entry.
 */
int mcache_get_keep(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, struct mcache_keep *keep, uint8_t *rr_capped,
	size_t max);

/**
 * serve-expired: a refresh of this question failed for want of a working
 * server; if its entry has expired, it is served stale at once, with no
 * refresh, for MCACHE_SERVFAIL_TTL seconds (as the SERVFAIL itself would
 * be kept, RFC 9520 section 3.2; Unbound's serve_expired_norec_ttl):
 * mcache_answer reports MCACHE_ANSWER_NOREC. One relaxed atomic store on
 * the entry.
 * @param c: cache.
 * @param qinfo: the question (lower-cased name, hash as dns_qinfo_hash).
 * @param do_bit: the DO bit of the key; cd_bit: its CD bit.
 * @param now: the current time.
 */
void mcache_norec_set(struct mcache *c, const struct query_info *qinfo,
	int do_bit, int cd_bit, time_t now);

/* ---- flushing (control channel) ---- */

/** Remove every entry for this name (all types, classes, DO/CD).
 * @param name: uncompressed wire name, any case. @return entries removed */
size_t mcache_flush_name(struct mcache *c, const uint8_t *name);

/** Remove the entries for name, type and class (all DO/CD variants).
 * @return entries removed */
size_t mcache_flush_type(struct mcache *c, const uint8_t *name,
	uint16_t qtype, uint16_t qclass);

/** Remove every entry at or below zone. @return entries removed */
size_t mcache_flush_zone(struct mcache *c, const uint8_t *zone);

/** Remove every negative entry (NXDOMAIN, NODATA) and every kept
 * SERVFAIL (mcache_store_servfail), as Unbound's flush_negative does.
 * @return removed */
size_t mcache_flush_negative(struct mcache *c);

/** Remove every bogus entry. @return removed */
size_t mcache_flush_bogus(struct mcache *c);

/** Remove everything. */
void mcache_flush_all(struct mcache *c);

/* ---- dump and load ---- */

/** one entry as dump_cache sees it */
struct mcache_dump_entry {
	/** question name, lower-cased, uncompressed wire */
	const uint8_t *qname;
	/** its length */
	size_t qname_len;
	/** question type */
	uint16_t qtype;
	/** question class */
	uint16_t qclass;
	/** the DO and CD bits of the key */
	int do_bit, cd_bit;
	/** the answer as a complete message (ID 0, QR RA set, TTLs as they
	 * would be sent now), ready for mcache_store on load */
	const uint8_t *msg;
	/** its length */
	size_t msg_len;
	/** remaining TTL of the entry (0 when expired) */
	uint32_t ttl;
	/** rcode */
	int rcode;
	/** security status */
	enum mcache_security sec;
};

/**
 * Callback for mcache_traverse; called under a slab lock: copy what is
 * needed, do not call into the cache.
 */
typedef void (*mcache_traverse_func)(const struct mcache_dump_entry *d,
	void *arg);

/**
 * Call fn for every entry (dump_cache).
 * @return 0, or -1 when out of memory (nothing called).
 */
int mcache_traverse(struct mcache *c, time_t now, mcache_traverse_func fn,
	void *arg);

/* load_cache: mcache_store() with the dumped message. */

/* ---- statistics ---- */

/** @return bytes in use */
size_t mcache_get_mem(struct mcache *c);

/** @return number of entries */
size_t mcache_get_count(struct mcache *c);

/** @return the cache's table handle (tests and statistics: its
 *	figures, util/storage/cachetab.h) */
const struct cachetab *mcache_cachetab(struct mcache *c);

/** @return the shared table, or NULL when the cache is per-process */
struct shmhash *mcache_shared_table(struct mcache *c);

#endif /* SERVICES_CACHE_MSGCACHE_H */
