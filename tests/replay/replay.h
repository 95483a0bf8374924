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

/** one ENTRY_BEGIN ... ENTRY_END */
struct rpl_entry {
	/** next entry in the range or step */
	struct rpl_entry *next;
	/** line where it started */
	int lineno;
	/** RPL_M_* */
	int match;
	/** MATCH ede=N: the EDE code wanted */
	int ede;
	/** MATCH cookie=HEX: the COOKIE option data wanted (lower-case
	 * hex), or "none" for no COOKIE option */
	char cookie[96];
	/** ADJUST copy_id */
	int copy_id;
	/** ADJUST copy_query */
	int copy_query;
	/** ADJUST do_not_answer */
	int do_not_answer;
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
	RPL_STEP_CHECK_SENT
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
	/** TIME_PASSES ELAPSE seconds */
	int elapse;
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
	/** the scenario's temporary folder (FILE_BEGIN, @TMPDIR@), removed
	 * with its files by rpl_free; "" when none */
	char tmpdir[64];
};

/**
 * Read a scenario file.
 * @param file: the path.
 * @param err: error text "file:line: what".
 * @param errlen: its size.
 * @return the scenario or NULL (err filled).
 */
struct rpl_scenario *rpl_read(const char *file, char *err, size_t errlen);

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
 * Build the reply for a query from an entry (ADJUST copy_id/copy_query).
 * @param e: the entry.
 * @param q: the query.
 * @param out: malloced wire reply.
 * @param outlen: its length.
 * @return 0 or -1.
 */
int rpl_make_reply(struct rpl_entry *e, ldns_pkt *q, uint8_t **out,
	size_t *outlen);

#endif /* TESTS_REPLAY_REPLAY_H */
