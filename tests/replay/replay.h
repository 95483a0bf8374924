/*
 * tests/replay/replay.h - replay scenarios (.rpl), as Unbound's testbound
 * and CZ-NIC's Deckard write them.
 *
 * A scenario file has a config part ended by CONFIG_END (petrel/Unbound
 * config lines, plus the Deckard keys stub-addr, query-minimization,
 * trust-anchor, val-override-date, domain-insecure, do-not-query-localhost,
 * harden-glue), then SCENARIO_BEGIN title ... SCENARIO_END holding
 * RANGE_BEGIN first last ... RANGE_END blocks (scripted authoritative
 * servers with ADDRESS lines and entries) and STEP lines.
 *
 * Entries (ENTRY_BEGIN ... ENTRY_END) hold MATCH, ADJUST and REPLY
 * keywords, SECTION blocks with records in zone-file syntax (parsed with
 * ldns), or RAW hex. The parser keeps the reply as an ldns_pkt.
 *
 * Everything unknown is an error: a keyword the runner does not
 * implement must fail the scenario, never pass it silently.
 */
#ifndef TESTS_REPLAY_REPLAY_H
#define TESTS_REPLAY_REPLAY_H

#include <ldns/ldns.h>
#include "util/netaddr.h"

/** MATCH bits */
#define RPL_M_OPCODE	0x0001
#define RPL_M_QTYPE	0x0002
#define RPL_M_QNAME	0x0004
#define RPL_M_QCASE	0x0008
#define RPL_M_SUBDOMAIN	0x0010
#define RPL_M_FLAGS	0x0020
#define RPL_M_RCODE	0x0040
#define RPL_M_QUESTION	0x0080
#define RPL_M_ANSWER	0x0100
#define RPL_M_AUTHORITY	0x0200
#define RPL_M_ADDITIONAL 0x0400
#define RPL_M_ALL	0x0800
#define RPL_M_EDNS	0x1000
#define RPL_M_TCP	0x2000
#define RPL_M_UDP	0x4000
#define RPL_M_TTL	0x8000
#define RPL_M_EDE	0x10000
#define RPL_M_NOEDNS	0x20000
#define RPL_M_EDNSDATA	0x40000
#define RPL_M_COOKIE	0x80000
/* testbound's (Unbound's testcode/testpkts.c) */
#define RPL_M_DO	0x100000
#define RPL_M_ALL_NOEDNS 0x200000
#define RPL_M_CLIENT_COOKIE 0x400000
#define RPL_M_SERVER_COOKIE 0x800000
#define RPL_M_SERIAL	0x1000000

/** MATCH ede=any */
#define RPL_EDE_ANY (-2)

/** one ENTRY_BEGIN ... ENTRY_END */
struct rpl_entry {
	/** next entry in the range or step */
	struct rpl_entry *next;
	/** line where it started */
	int lineno;
	/** RPL_M_* */
	int match;
	/** MATCH ede=N: the EDE code wanted; -1 for none (ede=-1),
	 * RPL_EDE_ANY for any (testbound's ede=any) */
	int ede;
	/** MATCH serial=N: the SOA serial of the authority section */
	uint32_t serial;
	/** MATCH cookie=HEX: the COOKIE option data wanted (lower-case
	 * hex), or "none" for no COOKIE option */
	char cookie[96];
	/** ADJUST copy_id */
	int copy_id;
	/** ADJUST copy_query */
	int copy_query;
	/** ADJUST do_not_answer */
	int do_not_answer;
	/** ADJUST copy_ednsdata_assume_clientsubnet: the reply's ECS scope
	 * is the query's source prefix length */
	int copy_ecs;
	/** ADJUST increment_ecs_scope (with copy_ecs): and one more */
	int inc_ecs;
	/** EXTRA_PACKET: how many more reply packets follow the first (a
	 * TCP stream, as for a zone transfer) */
	int extra_packets;
	/** their RRs (question and answer sections; the header is the
	 * first packet's), extra_packets of them */
	ldns_pkt **extra;
	/** HEX_ANSWER_BEGIN: the reply is raw (hex) yet ADJUST applies when
	 * it parses, as in testbound */
	int hex_answer;
	/** REPLY DO bit */
	int do_bit;
	/** 1 when the entry carries an OPT (DO or EDNS given) */
	int edns;
	/** the message (header flags, rcode, sections) */
	ldns_pkt *pkt;
	/** RAW packet, or NULL */
	uint8_t *raw;
	/** its length */
	size_t rawlen;
};

/** a RANGE_BEGIN ... RANGE_END */
struct rpl_range {
	/** next range */
	struct rpl_range *next;
	/** first step */
	int first;
	/** last step */
	int last;
	/** ADDRESS lines */
	struct netaddr addrs[32];
	/** number of addresses (0: any address) */
	int naddrs;
	/** entries, in file order */
	struct rpl_entry *entries;
	/** line where it started */
	int lineno;
};

/** step kinds */
enum rpl_step_type {
	RPL_STEP_QUERY,
	RPL_STEP_CHECK_ANSWER,
	RPL_STEP_CHECK_OUT_QUERY,
	RPL_STEP_REPLY,
	RPL_STEP_TIMEOUT,
	RPL_STEP_TIME_PASSES,
	RPL_STEP_CHECK_NO_ANSWER,
	RPL_STEP_CHECK_EVENTS,
	RPL_STEP_CHECK_FILE,
	RPL_STEP_CHECK_SENT,
	/* testbound's */
	RPL_STEP_NOTHING,
	RPL_STEP_ERROR,
	RPL_STEP_TRAFFIC,
	RPL_STEP_ASSIGN,
	RPL_STEP_CHECK_AUTOTRUST,
	RPL_STEP_CHECK_TEMPFILE,
	RPL_STEP_INFRA_RTT,
	RPL_STEP_FLUSH_MESSAGE
};

/** one STEP */
struct rpl_step {
	/** next step */
	struct rpl_step *next;
	/** its number */
	int num;
	/** kind */
	enum rpl_step_type type;
	/** the entry (QUERY, CHECK_ANSWER, CHECK_OUT_QUERY, REPLY) */
	struct rpl_entry *entry;
	/** TIME_PASSES ELAPSE seconds (a fraction allowed: microseconds) */
	long elapse_sec, elapse_usec;
	/** TIME_PASSES EVAL expression, ASSIGN var = expression, INFRA_RTT
	 * rtt, FLUSH_MESSAGE question (testbound); NULL when not given */
	char *expr;
	/** ASSIGN: the variable; INFRA_RTT: the zone */
	char *var;
	/** CHECK_AUTOTRUST, CHECK_TEMPFILE: the lines the file must have,
	 * each ended by a newline (macros expanded when checked) */
	char *content;
	/** QUERY ADDRESS: client address; CHECK_OUT_QUERY, REPLY and
	 * CHECK_SENT ADDRESS: the server the query went to */
	struct netaddr addr;
	/** 1 when addr was given */
	int has_addr;
	/** QUERY INTERFACE: the address the query came to (interface-view) */
	struct netaddr iface;
	/** 1 when iface was given */
	int has_iface;
	/** CHECK_EVENTS: the events the test module must have recorded
	 * since the last check, one per line */
	char *events;
	/** CHECK_FILE name keytag text: the file (in the scenario's
	 * folder), and what a line naming "id = keytag " must hold;
	 * CHECK_SENT name type: fname and fkey */
	char *fname, *fkey, *ftext;
	/** CHECK_SENT ... COUNT n: exactly n such queries (to ADDRESS when
	 * given); -1: at least one */
	int count;
	/** line */
	int lineno;
};

/** a scenario file */
struct rpl_scenario {
	/** file name */
	char *file;
	/** SCENARIO_BEGIN text */
	char *title;
	/** the config text for config_read_mem (translated Deckard keys) */
	char *config;
	/** its length */
	size_t config_len;
	/** ranges */
	struct rpl_range *ranges;
	/** steps in file order */
	struct rpl_step *steps;
	/** 1 when a step answers or checks outgoing queries by hand */
	int manual_out;
	/** the module-config value when it names the runner's test module
	 * (the config gets it without that name), or NULL */
	char *module_config;
	/** the module-config value as the scenario writes it (every name,
	 * quotes kept), or NULL: the runner skips a scenario that names a
	 * module the build leaves out */
	char *modules;
	/** the scenario's temporary folder (FILE_BEGIN, @TMPDIR@, testbound's
	 * TEMPFILE_* and AUTOTRUST_FILE), removed with its files by rpl_free;
	 * "" when none */
	char tmpdir[64];
	/** read with testbound's semantics (RPL_READ_TESTBOUND) */
	int testbound;
	/** fake-sha1: yes or fake-dsa: yes (testbound's switches): DSA
	 * signatures verify without being checked */
	int fake_dsa;
	/** petrel's format: the addresses of the root's servers (a
	 * top-level stub-addr:, or the stub-addr: of a stub zone of "."),
	 * separated by spaces, whose priming query the runner answers when
	 * no entry does; "" when none */
	char stub_addr[256];
};

/** rpl_read flags: a file of Unbound's suite, read and run as Unbound's
 * testbound does (see README.md, "testbound semantics") */
#define RPL_READ_TESTBOUND 0x01

/**
 * Path of a testbound temporary file (TEMPFILE_NAME id, AUTOTRUST_FILE id)
 * in the scenario's folder.
 * @param s: the scenario (its folder is made when needed).
 * @param kind: "_temp_" or "_auto_".
 * @param id: the id.
 * @param buf: output.
 * @param len: its size.
 * @return 0 or -1.
 */
int rpl_tempfile(struct rpl_scenario *s, const char *kind, const char *id,
	char *buf, size_t len);

/**
 * Read a scenario file.
 * @param file: the path.
 * @param flags: RPL_READ_*.
 * @param err: error text "file:line: what".
 * @param errlen: its size.
 * @return the scenario or NULL (err filled).
 */
struct rpl_scenario *rpl_read(const char *file, int flags, char *err,
	size_t errlen);

/** Free a scenario. */
void rpl_free(struct rpl_scenario *s);

/**
 * Does a query packet match an entry's MATCH rules (for ranges and
 * CHECK_OUT_QUERY)?
 * @param e: the entry.
 * @param q: the query.
 * @param tcp: 1 when the query went over TCP.
 * @return 1 when it matches.
 */
int rpl_match_query(struct rpl_entry *e, ldns_pkt *q, int tcp);

/**
 * Compare an answer with an entry under its MATCH rules (CHECK_ANSWER).
 * @param e: the entry.
 * @param a: the answer.
 * @param wire: the answer in wire format (for EDE).
 * @param wlen: its length.
 * @param diff: text of the first difference.
 * @param difflen: its size.
 * @return 1 when it matches.
 */
int rpl_match_answer(struct rpl_entry *e, ldns_pkt *a, const uint8_t *wire,
	size_t wlen, char *diff, size_t difflen);

/**
 * Match a message (an upstream query, or an answer for CHECK_ANSWER)
 * against an entry as Unbound's testbound does (its testpkts.c
 * find_match): EDE and cookies are taken out of the message first when
 * the entry matches them; `all`, `question` and `answer` compare the
 * sections in order, names without regard to case and TTLs only with
 * `ttl`; `all` compares the header (ID, opcode, rcode, every flag, the
 * counts) and the EDNS record too (`all_noedns`: not the EDNS record).
 * @param e: the entry.
 * @param p: the message.
 * @param tcp: 1 when it came over TCP.
 * @param diff: the first difference, or NULL.
 * @param difflen: its size.
 * @return 1 when it matches.
 */
int rpl_match_tb(struct rpl_entry *e, ldns_pkt *p, int tcp, char *diff,
	size_t difflen);

/**
 * Build the reply for a query from an entry (ADJUST copy_id/copy_query,
 * and for testbound copy_ednsdata_assume_clientsubnet).
 * @param e: the entry.
 * @param q: the query.
 * @param tb: 1 for testbound's message form (EDNS payload size 1232).
 * @param out: malloced wire reply.
 * @param outlen: its length.
 * @return 0 or -1.
 */
int rpl_make_reply(struct rpl_entry *e, ldns_pkt *q, int tb, uint8_t **out,
	size_t *outlen);

/**
 * Build the k-th extra packet of an entry's reply (EXTRA_PACKET, k from
 * 0): the first packet's header and ADJUSTs, the extra packet's RRs.
 * @return 0 or -1 (no such packet, out of memory); *out malloced.
 */
int rpl_make_reply_extra(struct rpl_entry *e, ldns_pkt *q, int tb, int k,
	uint8_t **out, size_t *outlen);

#endif /* TESTS_REPLAY_REPLAY_H */
