/*
 * daemon/stats.h - statistics: collecting a worker's counters, and
 * printing them in Unbound's "name=value" format (petrel-control stats)
 * and in the Prometheus text format (http-metrics-interface).
 *
 * Each worker counts on its own counters (struct worker_stats, and
 * struct resolver_stats in its resolver, both on the worker's own cache
 * lines); nothing is shared on the query path. The supervisor asks every
 * worker for a struct stats_info through the worker command channel
 * (daemon/remote.h), in the worker's own thread or process, so a reset
 * never races with an increment. The printers below are pure functions
 * of an array of stats_info, unit-tested in tests/check_stats.c.
 *
 * Names follow Unbound's unbound-control stats, so munin/collectd plugins
 * and dashboards written for Unbound read petrel unchanged: threadN.*,
 * total.*, time.*, mem.cache.*, mem.mod.* (named by each module of the
 * stack, as the module calls itself), mem.streamwait, mem.http.*, and
 * with extended-statistics: yes
 * num.query.type.*, num.query.class.*, num.query.opcode.*,
 * num.query.flags.*, num.query.edns.*, num.query.tcp, num.query.ipv6,
 * num.answer.rcode.*, histogram.*.
 */
#ifndef DAEMON_STATS_H
#define DAEMON_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "daemon/worker.h"
#include "front/resolver.h"
#include "services/module.h"

/** a growable text buffer (control replies, dumps, metrics) */
struct stats_buf {
	/** the text, NUL-terminated when len > 0 (malloced) */
	char *data;
	/** bytes used (without the NUL) */
	size_t len;
	/** bytes allocated */
	size_t cap;
	/** 1 after an allocation failed (further appends are ignored) */
	int oom;
};

/** the buckets of the upstream servers' smoothed RTT: at most 1 ms,
 * 2, 4, ... 2048 ms, and the rest (+Inf) */
#define STATS_UPSTREAM_BUCKETS 13

/** room for a module's name in the statistics (its block's name) */
#define STATS_MOD_NAME 32

/** the memory of the modules of a stack, by the name each module gives
 * itself (mem.mod.NAME), in the order of the stack */
struct stats_mods {
	/** how many */
	int num;
	/** their names (module_func_block.name), NUL-terminated */
	char name[MODULE_MAX][STATS_MOD_NAME];
	/** the bytes each one's get_mem hook reports */
	uint64_t mem[MODULE_MAX];
};

/** the upstream servers of an infrastructure cache by smoothed RTT (a
 * picture of now, not a counter): what petrel_upstream_servers shows */
struct stats_upstream {
	/** servers whose smoothed RTT falls in each bucket (not cumulative) */
	uint64_t bucket[STATS_UPSTREAM_BUCKETS];
	/** sum of their smoothed RTTs, ms */
	uint64_t srtt_sum_ms;
};

/** what one worker reports */
struct stats_info {
	/** the basic counters */
	struct worker_stats s;
	/** the resolver's counters, with the extended ones */
	struct resolver_stats r;
	/** in-flight resolutions now (requestlist.current.all) */
	uint64_t reqlist_current;
	/** resolutions with clients waiting now (requestlist.current.user) */
	uint64_t reqlist_user;
	/** clients waiting now (requestlist.current.replies) */
	uint64_t reqlist_replies;
	/** TCP connections (DNS over TCP, TLS, HTTPS) open now (tcpusage) */
	uint64_t tcp_usage;
	/** bytes in the message cache this worker uses */
	uint64_t mem_msg;
	/** bytes in the RRset cache this worker uses */
	uint64_t mem_rrset;
	/** entries in the message cache */
	uint64_t msg_count;
	/** entries in the RRset cache */
	uint64_t rrset_count;
	/** entries in the infrastructure cache */
	uint64_t infra_count;
	/** entries in the validator's key cache */
	uint64_t key_count;
	/** the servers of the infrastructure cache by smoothed RTT */
	struct stats_upstream upstream;
	/** bytes of answers queued on the worker's TCP and TLS (and
	 * HTTPS) connections, not yet written (mem.streamwait) */
	uint64_t mem_streamwait;
	/** DNS over HTTPS: bytes of queries held while their streams
	 * come in (mem.http.query_buffer) */
	uint64_t mem_http_query;
	/** DNS over HTTPS: bytes of answers held until HTTP/2 sends them
	 * (mem.http.response_buffer) */
	uint64_t mem_http_response;
	/** the modules of the worker's stack and their memory */
	struct stats_mods mods;
};

/** process-wide values printed with the counters */
struct stats_globals {
	/** time.now: seconds (with microseconds) since the epoch */
	double now;
	/** time.up: seconds since petrel started */
	double up;
	/** time.elapsed: seconds since the last reset */
	double elapsed;
	/** mem.cache.rrset: bytes */
	uint64_t mem_rrset;
	/** mem.cache.message: bytes */
	uint64_t mem_msg;
	/** msg.cache.count: entries */
	uint64_t msg_count;
	/** rrset.cache.count: entries */
	uint64_t rrset_count;
	/** infra.cache.count: entries */
	uint64_t infra_count;
	/** key.cache.count: entries */
	uint64_t key_count;
	/** the upstream servers by smoothed RTT (every infrastructure
	 * cache counted once) */
	struct stats_upstream upstream;
	/** the modules' memory (mem.mod.*; every module stack counted
	 * once: stats_mods_add) */
	struct stats_mods mods;
	/** extended-statistics: print the extended counters */
	int extended;
	/** statistics-inhibit-zero: no: the extended counters by query
	 * type, class and opcode and by rcode are printed when 0 too (else
	 * only those with a value, and the rcodes NOERROR to REFUSED) */
	int show_zero;
};

/** Append formatted text. Sets b->oom when out of memory. */
void stats_buf_printf(struct stats_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/** Append bytes. Sets b->oom when out of memory. */
void stats_buf_append(struct stats_buf *b, const void *data, size_t len);

/** Free the buffer's memory (the struct itself is the caller's). */
void stats_buf_free(struct stats_buf *b);

/** Add the resolver counters b into a (saving them across a reload). */
void stats_add_resolver(struct resolver_stats *a,
	const struct resolver_stats *b);

/** Add the worker counters b into a (elapsed is left alone). */
void stats_add_worker(struct worker_stats *a, const struct worker_stats *b);

/**
 * Count one upstream server with a measured smoothed RTT.
 * @param u: added to.
 * @param srtt_ms: its smoothed RTT in ms (negative: no sample, ignored).
 */
void stats_upstream_add(struct stats_upstream *u, int srtt_ms);

/** Add the upstream servers of b into a. */
void stats_upstream_sum(struct stats_upstream *a,
	const struct stats_upstream *b);

/**
 * Add the modules' memory of b into a, module by module (matched by
 * name; a module a does not have yet is appended).
 */
void stats_mods_add(struct stats_mods *a, const struct stats_mods *b);

/** Add every counter of b into a (for the total). */
void stats_add(struct stats_info *a, const struct stats_info *b);

/**
 * Print the statistics in Unbound's format: per thread, total, time,
 * memory (the caches; each module of g->mods, from the last of the
 * stack to the first, which is the order Unbound prints its modules in:
 * mem.mod.iterator, then mem.mod.validator; the stream and HTTP
 * buffers summed over info), and the extended counters when g->extended.
 * @param out: appended to.
 * @param info: one entry per worker.
 * @param n: number of workers.
 * @param g: the process-wide values.
 */
void stats_print(struct stats_buf *out, const struct stats_info *info,
	int n, const struct stats_globals *g);

/**
 * Print the statistics in the Prometheus text exposition format (0.0.4):
 * counters per worker with a thread label, gauges, the recursion time
 * histogram (petrel_recursion_time_seconds) and, when g->extended, the
 * per-type, per-class, per-opcode and per-rcode counters with labels.
 */
void stats_print_prometheus(struct stats_buf *out,
	const struct stats_info *info, int n, const struct stats_globals *g);

#endif /* DAEMON_STATS_H */
