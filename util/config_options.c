/*
 * util/config_options.c - the one table of configuration options.
 *
 * See util/config_options.h for what a row holds. The rows are in the
 * order the documents list them. Defaults follow Unbound's.
 */
#include "config.h"
#include "util/config_options.h"
#include "util/config_file.h"
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

/** offset of a member of struct config_file */
#define OFF(m) offsetof(struct config_file, m)
/** offset of a member of struct config_stub */
#define ZOFF(m) offsetof(struct config_stub, m)
/** flag shorthands */
#define SH OPT_F_SIGHUP
#define IM OPT_F_IMPLEMENTED

/** one TTL or count in seconds can be up to 2^31-1 */
#define INTMAX 2147483647LL
/** an hour in milliseconds, the upper limit of the timeouts */
#define HOUR_MS 3600000LL
/** largest cache size accepted (also capped by SIZE_MAX when parsed) */
#define SIZEMAX (1024LL * 1024 * 1024 * 1024)

/** a yes/no server: option */
#define BOOLOPT(nm, cl, m, d, fl, ds) \
	{ nm, cl, OPT_BOOL, d, NULL, NULL, 0, 0, NULL, OFF(m), (fl), \
	  "yes|no", ds }
/** an integer option */
#define INTOPT(nm, cl, m, d, lo, hi, fl, ar, ds) \
	{ nm, cl, OPT_INT, d, NULL, NULL, lo, hi, NULL, OFF(m), (fl), ar, ds }
/** a power-of-2 integer option */
#define POW2OPT(nm, cl, m, d, lo, hi, fl, ds) \
	{ nm, cl, OPT_INT_POW2, d, NULL, NULL, lo, hi, NULL, OFF(m), (fl), \
	  "<number>", ds }
/** a size option */
#define SIZEOPT(nm, cl, m, d, lo, hi, fl, ds) \
	{ nm, cl, OPT_SIZE, d, NULL, NULL, lo, hi, NULL, OFF(m), (fl), \
	  "<size>", ds }
/** a string or path option */
#define STROPT(nm, cl, ty, m, d, fl, ar, ds) \
	{ nm, cl, ty, d, NULL, NULL, 0, 0, NULL, OFF(m), (fl), ar, ds }
/** a list option, with an example value for the documents */
#define LISTOPT(nm, cl, ty, m, ex, fl, ar, ds) \
	{ nm, cl, ty, NULL, NULL, ex, 0, 0, NULL, OFF(m), (fl), ar, ds }
/** an Unbound option petrel ignores */
#define IGN(nm, cl) \
	{ nm, cl, OPT_IGNORED, NULL, NULL, NULL, 0, 0, NULL, 0, SH, NULL, NULL }
/** an Unbound option petrel accepts and ignores, and why (in its one
 * warning, petrel-checkconf -o and the documents) */
#define IGNW(nm, cl, why) \
	{ nm, cl, OPT_IGNORED, NULL, NULL, NULL, 0, 0, NULL, 0, SH, NULL, why }

/** a line of rpz: or view:, or a policy option of server: (kept as
 * written, checked by front/policy.c) */
#define POL(nm, cl, ex, ar, ds) \
	{ nm, cl, OPT_POLICY, NULL, NULL, ex, 0, 0, NULL, 0, SH | IM, ar, ds }

/** an Unbound option asking for security petrel does not provide yet:
 * a load error that says what is missing (ds) */
#define NOSEC(nm, cl, ds) \
	{ nm, cl, OPT_INSECURE, NULL, NULL, NULL, 0, 0, NULL, 0, SH, NULL, ds }
/** what the trust anchor options ask for */
/** what the TLS upstream options ask for */
#define NOSEC_TLS_UP "DNS over TLS to upstream servers"
/** what the TLS service options ask for */
#define NOSEC_TLS_SVC "DNS over QUIC service to clients (petrel serves DNS over TLS and HTTPS)"

/** thread-model: words, in enum config_thread_model order */
static const char *const thread_model_words[] = {
	"pthreads", "solaris", "fork", NULL };
/** event-backend: words, in enum config_event_backend order */
static const char *const event_backend_words[] = {
	"select", "libevent", "io_uring", NULL };

/** backend: words (cachedb:), in enum config_cachedb_backend order */
static const char *const cachedb_backend_words[] = { "redis", NULL };

/** the module-config check the program registered, or NULL */
static config_modules_check_func modules_check;

void
config_modules_check_set(config_modules_check_func f)
{
	modules_check = f;
}

int
config_check_modules(const char *v, char *err, size_t errlen)
{
	const char *p = v;
	if(modules_check)
		return modules_check(v, err, errlen);
	/* no module list registered: the form only, one name or more; the
	 * stack refuses an unknown or misplaced name when it is built */
	while(*p == ' ' || *p == '\t')
		p++;
	if(!*p) {
		snprintf(err, errlen, "expected a list of modules");
		return -1;
	}
	return 0;
}

/** the module-config DNSSEC answer the program registered, or NULL */
static config_modules_dnssec_func modules_dnssec;

void
config_modules_dnssec_set(config_modules_dnssec_func f)
{
	modules_dnssec = f;
}

/** a separator between the names of a module-config value */
static int
modules_sep(char c)
{
	return c == ' ' || c == '\t' || c == '"';
}

int
config_modules_dnssec(const char *value)
{
	const char *d = CONFIG_MODULE_DEFAULT, *p;
	size_t dn = 0, n;
	if(!value)
		value = CONFIG_MODULE_DEFAULT;
	if(modules_dnssec)
		return modules_dnssec(value) ? 1 : 0;
	/* none registered: a word of value equal to the default's first */
	while(d[dn] && !modules_sep(d[dn]))
		dn++;
	for(p = value; *p; p += n) {
		while(modules_sep(*p))
			p++;
		for(n = 0; p[n] && !modules_sep(p[n]); n++)
			;
		if(n == dn && strncmp(p, d, dn) == 0)
			return 1;
	}
	return 0;
}

/** the build's best thread model */
#if defined(HAVE_SOLARIS_THREADS)
#define DEFAULT_THREAD_MODEL "solaris"
#elif defined(HAVE_PTHREAD)
#define DEFAULT_THREAD_MODEL "pthreads"
#else
#define DEFAULT_THREAD_MODEL "fork"
#endif
/** the build's best event backend */
#ifdef HAVE_LIBEVENT
#define DEFAULT_EVENT_BACKEND "libevent"
#else
#define DEFAULT_EVENT_BACKEND "select"
#endif

const struct config_option config_option_table[] = {
/* ---- server: ---- */
{ "interface", CLAUSE_SERVER, OPT_ADDR_LIST, NULL, "127.0.0.1 and ::1",
  "127.0.0.1", 0, 0, NULL, OFF(interfaces), IM | OPT_F_EXAMPLE_SET,
  "<ip[@port]>", "an address to listen on" },
{ "port", CLAUSE_SERVER, OPT_INT, "53", NULL, "5353", 1, 65535, NULL,
  OFF(port), IM | OPT_F_EXAMPLE_SET, "<number>",
  "the port to answer queries on (unless an interface gives ip@port)" },
BOOLOPT("interface-automatic", CLAUSE_SERVER, interface_automatic, "no", IM,
  "listen on the wildcard address and answer from the address each query came to"),
STROPT("xdp-interface", CLAUSE_SERVER, OPT_STR, xdp_interface, "", IM,
  "<ifname>", "answer UDP queries that arrive on this network interface, to the addresses and port petrel listens on, over AF_XDP: an XDP program hands them to petrel, which answers what the cache and the local zones can answer straight from the frame and hands the rest to the ordinary path (answered through the kernel's socket on the same address and port). Needs a build with libxdp (petrel -V), root or CAP_NET_ADMIN, CAP_NET_RAW and CAP_BPF at start; where it cannot be used, one log line and the ordinary path. See doc/xdp.md"),
INTOPT("xdp-batch-size", CLAUSE_SERVER, xdp_batch_size, "64", 1, 4096, IM,
  "<number>", "with xdp-interface: frames handled per batch of an AF_XDP socket"),
POW2OPT("xdp-ring-size", CLAUSE_SERVER, xdp_ring_size, "2048", 64, 16384, IM,
  "with xdp-interface: entries of each AF_XDP ring (fill, completion, RX, TX); each socket has twice as many frames of 4096 bytes"),
{ "access-control", CLAUSE_SERVER, OPT_ACL, NULL,
  "none: localhost is allowed, everything else refused",
  "127.0.0.0/8 allow", 0, 0, NULL, OFF(acls), IM | SH | OPT_F_EXAMPLE_SET,
  "<netblock> <action>",
  "what to do with queries from a netblock: deny, refuse, allow, "
  "allow_setrd, allow_snoop, deny_non_local, refuse_non_local or "
  "allow_cookie (over UDP, only queries with a valid DNS cookie); "
  "the longest match wins" },
INTOPT("num-threads", CLAUSE_SERVER, num_threads, "1", 1, 1024, IM,
  "<number>", "the number of workers (threads or processes)"),
{ "thread-model", CLAUSE_SERVER, OPT_ENUM, DEFAULT_THREAD_MODEL,
  "pthreads (solaris or fork when built so)", "pthreads", 0, 0,
  thread_model_words, OFF(thread_model), IM | OPT_F_BUILD_DEFAULT,
  "pthreads|solaris|fork",
  "how workers run: threads sharing one cache, or forked processes with a cache each (a model this build lacks is an error)" },
{ "event-backend", CLAUSE_SERVER, OPT_ENUM, DEFAULT_EVENT_BACKEND,
  "libevent (select when built without it)", "libevent", 0, 0,
  event_backend_words, OFF(event_backend), IM | OPT_F_BUILD_DEFAULT,
  "select|libevent|io_uring",
  "the event loop each worker runs (libevent and io_uring only when built with them; where the kernel cannot run io_uring, petrel says so once and uses libevent, or select without it)" },
BOOLOPT("so-reuseport", CLAUSE_SERVER, so_reuseport, "yes", IM,
  "give every worker its own listening socket with SO_REUSEPORT"),
SIZEOPT("so-rcvbuf", CLAUSE_SERVER, so_rcvbuf, "0", 0, 1073741824LL, IM,
  "receive buffer of the listening UDP sockets; 0 keeps the system default"),
SIZEOPT("so-sndbuf", CLAUSE_SERVER, so_sndbuf, "0", 0, 1073741824LL, IM,
  "send buffer of the listening UDP sockets; 0 keeps the system default"),
INTOPT("outgoing-range", CLAUSE_SERVER, outgoing_range, "4096", 1, 65535,
  IM, "<number>",
  "outgoing UDP sockets per worker (lowered to fit the select backend)"),
LISTOPT("outgoing-port-permit", CLAUSE_SERVER, OPT_PORT_RULES, outgoing_ports,
  "32768-60999", IM, "<port or low-high>",
  "add ports to the set upstream queries are sent from (which starts as 1024-65535; petrel keeps no list of IANA-assigned ports); permit and avoid lines apply in file order"),
LISTOPT("outgoing-port-avoid", CLAUSE_SERVER, OPT_PORT_RULES, outgoing_ports,
  "3306", IM, "<port or low-high>",
  "take ports out of that set (for other daemons' ports); permit and avoid lines apply in file order"),
LISTOPT("outgoing-interface", CLAUSE_SERVER, OPT_ADDR_LIST,
  outgoing_interfaces, "192.0.2.1", IM, "<ip>",
  "a source address for upstream queries"),
INTOPT("num-queries-per-thread", CLAUSE_SERVER, num_queries_per_thread,
  "1024", 1, 1048576, IM, "<number>",
  "queries each worker resolves at the same time"),
INTOPT("jostle-timeout", CLAUSE_SERVER, jostle_timeout, "200", 0, HOUR_MS,
  SH | IM, "<msec>",
  "when full, a query older than this may be replaced by a new one (one "
  "of the newer half of the list, as in Unbound); else the new one is "
  "dropped"),
INTOPT("incoming-num-tcp", CLAUSE_SERVER, incoming_num_tcp, "10", 0, 65535,
  IM, "<number>", "client TCP connections each worker serves at once; when "
  "all are taken, a new one takes the slot of an idle one"),
INTOPT("outgoing-num-tcp", CLAUSE_SERVER, outgoing_num_tcp, "10", 0, 65535,
  IM, "<number>", "upstream TCP connections each worker may open"),
INTOPT("tcp-idle-timeout", CLAUSE_SERVER, tcp_idle_timeout, "30000", 0,
  HOUR_MS, SH | IM, "<msec>",
  "how long an idle client TCP connection is kept open (at most 2000 ms "
  "before its first query, 200 ms when over half the slots are in use)"),
INTOPT("edns-buffer-size", CLAUSE_SERVER, edns_buffer_size, "1232", 512,
  65535, SH | IM, "<number>", "the EDNS buffer size advertised upstream"),
INTOPT("max-udp-size", CLAUSE_SERVER, max_udp_size, "1232", 512, 65535,
  SH | IM, "<number>", "the largest UDP answer sent to clients"),
SIZEOPT("msg-cache-size", CLAUSE_SERVER, msg_cache_size, "4m", 0, SIZEMAX,
  SH | IM, "memory for the message cache (ready-made answers)"),
POW2OPT("msg-cache-slabs", CLAUSE_SERVER, msg_cache_slabs, "4", 1, 65536,
  SH | IM, "slabs of the message cache (more slabs, less lock contention)"),
BOOLOPT("shared-cache", CLAUSE_SERVER, shared_cache, "no", SH | IM,
  "with thread-model fork: one message cache, one RRset cache and one infrastructure cache, in shared memory made before the fork, for every worker process (sized by msg-cache-size and rrset-cache-size); a worker killed at any point leaves them usable. The mapping reserves about twice the two sizes (room for the allocator's size classes and for entries waiting out the readers' grace period); pages are only used as the caches fill. No effect with threads, which share their caches anyway. Changing it, or a cache size or slab count, on reload restarts the workers on new, empty shared caches"),
SIZEOPT("rrset-cache-size", CLAUSE_SERVER, rrset_cache_size, "4m", 0,
  SIZEMAX, SH | IM, "memory for the RRset cache"),
POW2OPT("rrset-cache-slabs", CLAUSE_SERVER, rrset_cache_slabs, "4", 1,
  65536, SH | IM, "slabs of the RRset cache (more slabs, less lock contention)"),
INTOPT("cache-min-ttl", CLAUSE_SERVER, cache_min_ttl, "0", 0, INTMAX,
  SH | IM, "<seconds>", "cached TTLs are raised to at least this"),
INTOPT("cache-max-ttl", CLAUSE_SERVER, cache_max_ttl, "86400", 0, INTMAX,
  SH | IM, "<seconds>", "cached TTLs are lowered to at most this"),
INTOPT("cache-max-negative-ttl", CLAUSE_SERVER, cache_max_negative_ttl,
  "3600", 0, INTMAX, SH | IM, "<seconds>",
  "negative answers (NXDOMAIN, NODATA) are cached at most this long"),
INTOPT("cache-min-negative-ttl", CLAUSE_SERVER, cache_min_negative_ttl,
  "0", 0, INTMAX, SH | IM, "<seconds>",
  "negative answers are cached at least this long (0: cache-min-ttl applies)"),
INTOPT("infra-host-ttl", CLAUSE_SERVER, infra_host_ttl, "900", 0, INTMAX,
  SH | IM, "<seconds>", "how long an upstream server's round-trip data is kept"),
INTOPT("infra-cache-numhosts", CLAUSE_SERVER, infra_cache_numhosts, "10000",
  1, 16777216, SH | IM, "<number>",
  "upstream servers (and server-and-zone lameness records) the infrastructure cache holds"),
INTOPT("infra-cache-min-rtt", CLAUSE_SERVER, infra_cache_min_rtt, "50", 1,
  HOUR_MS, SH | IM, "<msec>",
  "the least retransmit timeout of a server (raise it for forwarders that take long to recurse; also the first timeout of a server never heard from when above 376)"),
INTOPT("infra-cache-max-rtt", CLAUSE_SERVER, infra_cache_max_rtt, "120000", 1,
  HOUR_MS, SH | IM, "<msec>",
  "the largest retransmit timeout of a server (the backoff cap)"),
POW2OPT("infra-cache-slabs", CLAUSE_SERVER, infra_cache_slabs, "4", 1, 65536,
  IM, "slabs of the infrastructure cache (upstream servers' round-trip data)"),
BOOLOPT("prefetch", CLAUSE_SERVER, prefetch, "no", SH | IM,
  "refresh a popular entry when a query hits it in the last tenth of its TTL"),
BOOLOPT("serve-expired", CLAUSE_SERVER, serve_expired, "no", SH | IM,
  "answer from expired cache entries while refreshing them"),
INTOPT("serve-expired-ttl", CLAUSE_SERVER, serve_expired_ttl, "86400", 0,
  INTMAX, SH | IM, "<seconds>",
  "how long past expiry an entry may be served; 0 is no limit"),
BOOLOPT("serve-original-ttl", CLAUSE_SERVER, serve_original_ttl, "no", SH | IM,
  "answers carry the TTLs as the upstream gave them, not counted down (entries still expire); cache-min-ttl and cache-max-ttl then do not apply to the message cache"),
BOOLOPT("serve-expired-ttl-reset", CLAUSE_SERVER, serve_expired_ttl_reset, "no",
  SH | IM, "with serve-expired, a failed refresh of an expired entry starts its serve-expired-ttl again: it is served as long as it is asked for"),
INTOPT("serve-expired-reply-ttl", CLAUSE_SERVER, serve_expired_reply_ttl,
  "30", 0, INTMAX, SH | IM, "<seconds>", "the TTL put in expired answers"),
INTOPT("serve-expired-client-timeout", CLAUSE_SERVER,
  serve_expired_client_timeout, "1800", 0, HOUR_MS, SH | IM, "<msec>",
  "wait this long for a fresh answer before serving an expired one; 0 serves it at once"),
{ "module-config", CLAUSE_SERVER, OPT_STR, CONFIG_MODULE_DEFAULT, "\"" CONFIG_MODULE_DEFAULT "\"", NULL, 0, 0,
  NULL, OFF(module_config), SH | IM | OPT_F_MODULES, "\"<module> ...\"",
  "the modules a query runs through, in order (this build has: respip, dns64, subnetcache, validator, cachedb, iterator)" },
LISTOPT("trust-anchor", CLAUSE_SERVER, OPT_LOCALDATA, trust_anchors,
  "\". DS 20326 8 2 e06d44b80b8f1d39a95c0b0d7c65d08458e880409bbc683457104237c7f8ec8d\"",
  SH | IM, "\"<DS or DNSKEY record>\"",
  "a trust anchor: a DS or DNSKEY record (validator module)"),
LISTOPT("trust-anchor-file", CLAUSE_SERVER, OPT_PATH_LIST, trust_anchor_files,
  "\"/etc/petrel/root.key\"", SH | IM, "<file>",
  "a file of DS or DNSKEY trust anchors in zone-file format"),
LISTOPT("trusted-keys-file", CLAUSE_SERVER, OPT_PATH_LIST, trusted_keys_files,
  "\"/etc/petrel/trusted.keys\"", SH | IM, "<file>",
  "a file of trust anchors in BIND trusted-keys format"),
LISTOPT("auto-trust-anchor-file", CLAUSE_SERVER, OPT_PATH_LIST,
  auto_trust_anchor_files, "\"/var/lib/petrel/root.key\"", SH | IM, "<file>",
  "a trust anchor file kept up to date by RFC 5011 (written back)"),
LISTOPT("domain-insecure", CLAUSE_SERVER, OPT_NAME_LIST, domain_insecure,
  "\"example.lan.\"", SH | IM, "<name>",
  "a domain not validated (negative trust anchor)"),
INTOPT("val-bogus-ttl", CLAUSE_SERVER, val_bogus_ttl, "60", 0, INTMAX, SH | IM,
  "<seconds>", "how long a validation failure is remembered"),
INTOPT("val-max-restart", CLAUSE_SERVER, val_max_restart, "5", 0, 100,
  SH | IM, "<number>", "times a bogus answer (or a bogus DNSKEY or DS set of "
  "the key chain) is asked again of other servers before it is final"),
INTOPT("val-sig-skew-min", CLAUSE_SERVER, val_sig_skew_min, "3600", 0, INTMAX,
  SH | IM, "<seconds>", "least clock skew allowed on signature dates"),
INTOPT("val-sig-skew-max", CLAUSE_SERVER, val_sig_skew_max, "86400", 0,
  INTMAX, SH | IM, "<seconds>", "most clock skew allowed on signature dates"),
STROPT("val-override-date", CLAUSE_SERVER, OPT_STR, val_override_date, "0",
  SH | IM | OPT_F_DATE, "<YYYYMMDDHHMMSS|seconds|-1>",
  "the date signatures are checked against instead of the clock: for tests; "
  "-1 does not check signature dates at all; 0 uses the clock"),
STROPT("val-nsec3-keysize-iterations", CLAUSE_SERVER, OPT_STR,
  val_nsec3_keysize_iterations, "150", SH | IM, "\"<keysize iterations ...>\"",
  "NSEC3 iterations above the largest listed make the answer insecure (RFC 9276)"),
SIZEOPT("key-cache-size", CLAUSE_SERVER, key_cache_size, "4m", 0, SIZEMAX,
  SH | IM, "memory for the validator's key cache"),
POW2OPT("key-cache-slabs", CLAUSE_SERVER, key_cache_slabs, "4", 1, 65536,
  SH | IM, "slabs of the key cache"),
BOOLOPT("val-permissive-mode", CLAUSE_SERVER, val_permissive_mode, "no",
  SH | IM, "give bogus answers (without AD) instead of SERVFAIL"),
BOOLOPT("zonemd-permissive-mode", CLAUSE_SERVER, zonemd_permissive_mode,
  "no", SH | IM, "an auth-zone whose ZONEMD check fails (digest or DNSSEC) "
  "is logged and used anyway"),
INTOPT("val-log-level", CLAUSE_SERVER, val_log_level, "0", 0, 2, SH | IM,
  "<0|1|2>", "log a line for each bogus answer (1), with more detail (2)"),
BOOLOPT("harden-dnssec-stripped", CLAUSE_SERVER, harden_dnssec_stripped,
  "yes", SH | IM, "unsigned data under a trust anchor is bogus unless proven insecure"),
BOOLOPT("ignore-cd-flag", CLAUSE_SERVER, ignore_cd_flag, "no", SH | IM,
  "treat a query with CD as one without: SERVFAIL bogus answers for CD clients too"),
BOOLOPT("val-clean-additional", CLAUSE_SERVER, val_clean_additional, "yes",
  SH | IM, "remove the additional section of validated answers"),
BOOLOPT("disable-edns-do", CLAUSE_SERVER, disable_edns_do, "no", SH | IM,
  "ask upstream servers without the EDNS DO bit, so that they send no DNSSEC records (for clients that cannot handle them); a client that sets DO gets an answer without EDNS, to tell it; not with the validator and a trust anchor, which need the DNSSEC records"),
BOOLOPT("aggressive-nsec", CLAUSE_SERVER, aggressive_nsec, "yes", SH | IM,
  "answer NXDOMAIN and NODATA from validated NSEC records in the cache (RFC 8198)"),
BOOLOPT("harden-algo-downgrade", CLAUSE_SERVER, harden_algo_downgrade, "no",
  SH | IM, "a zone signed with several algorithms must validate with every algorithm of its DS set"),
BOOLOPT("prefetch-key", CLAUSE_SERVER, prefetch_key, "no", SH | IM,
  "fetch a zone's DNSKEY set when a referral carries its DS, before the validator needs it"),
BOOLOPT("root-key-sentinel", CLAUSE_SERVER, root_key_sentinel, "yes", SH | IM,
  "answer RFC 8509 root-key-sentinel-is-ta/not-ta queries by the root's trust anchor"),
BOOLOPT("trust-anchor-signaling", CLAUSE_SERVER, trust_anchor_signaling, "yes",
  SH | IM, "send the RFC 8145 key tag query (_ta-xxxx NULL) when the anchor's keys are fetched"),
INTOPT("add-holddown", CLAUSE_SERVER, add_holddown, "2592000", 0, INTMAX,
  SH | IM, "<seconds>", "RFC 5011: how long a new key must be seen before it is trusted"),
INTOPT("del-holddown", CLAUSE_SERVER, del_holddown, "2592000", 0, INTMAX,
  SH | IM, "<seconds>", "RFC 5011: how long a revoked key is kept before it is removed"),
INTOPT("keep-missing", CLAUSE_SERVER, keep_missing, "31622400", 0, INTMAX,
  SH | IM, "<seconds>", "RFC 5011: how long a key missing from the set is kept (0: for ever)"),
BOOLOPT("permit-small-holddown", CLAUSE_SERVER, permit_small_holddown, "no",
  SH | IM, "RFC 5011: allow probe timers under an hour (for tests)"),
LISTOPT("root-hints", CLAUSE_SERVER, OPT_PATH_LIST, root_hints,
  "\"/usr/share/dns/root.hints\"", SH | IM, "<file>",
  "a root hints file, repeatable (none: the built-in root servers of class IN); a file's hints are of its records' class: class IN ones replace the built-in servers, those of other classes are asked too for class ANY questions"),
BOOLOPT("qname-minimisation", CLAUSE_SERVER, qname_minimisation, "yes",
  SH | IM, "send upstream servers only as much of the name as they need (RFC 9156)"),
BOOLOPT("qname-minimisation-strict", CLAUSE_SERVER, qname_minimisation_strict,
  "no", SH | IM, "with qname-minimisation, an NXDOMAIN for a minimised name is the final answer, never retried with the full name (breaks names behind servers that answer NXDOMAIN for empty non-terminals)"),
BOOLOPT("use-caps-for-id", CLAUSE_SERVER, use_caps_for_id, "no", SH | IM,
  "random letter case in upstream queries (0x20), checked in the replies"),
LISTOPT("caps-exempt", CLAUSE_SERVER, OPT_NAME_LIST, caps_exempt,
  "\"licdn.com.\"", SH | IM, "<domain>",
  "with use-caps-for-id, names at or below this domain are sent without 0x20 (for servers that do not echo the letter case)"),
BOOLOPT("harden-glue", CLAUSE_SERVER, harden_glue, "yes", SH | IM,
  "trust glue only when it lies inside the server's zone; 'no' believes the addresses a referral gives for any name (a cache poisoning risk)"),
{ "target-fetch-policy", CLAUSE_SERVER, OPT_STR, "3 2 1 0 0", "\"3 2 1 0 0\"",
  NULL, 0, 0, NULL, OFF(target_fetch_policy), SH | IM, "\"<number> ...\"",
  "per dependency depth (a client query is depth 0, the lookup of its server's address depth 1, ...): how many NS names without addresses are looked up as soon as the zone is first asked (-1: all; 0: one at a time, only once every server with a known address was tried); the number of values is the deepest dependency followed" },
BOOLOPT("iter-scrub-promiscuous", CLAUSE_SERVER, iter_scrub_promiscuous,
  "yes", SH | IM, "drop the NS set from the authority section of a reply that carries an answer or an error (it is not needed, and believed it would move the zone's other names to the servers it names: CVE-2025-11411); the addresses of those servers are not used either"),
BOOLOPT("disable-dnssec-lame-check", CLAUSE_SERVER,
  disable_dnssec_lame_check, "no", SH | IM,
  "take the unsigned answers of a server of a signed zone as they are, instead of setting the server aside as dnssec lame and asking the zone's other servers first (the validator then judges them)"),
BOOLOPT("harden-unverified-glue", CLAUSE_SERVER, harden_unverified_glue,
  "no", SH | IM, "use a referral's glue at once only for NS names inside the referred zone; the others are looked up, their glue used only when that lookup fails"),
BOOLOPT("do-nat64", CLAUSE_SERVER, do_nat64, "no", SH | IM,
  "reach IPv4-only servers through NAT64: their addresses are sent to inside nat64-prefix, over IPv6 (for an IPv6-only host; do-ip4 may be no)"),
{ "nat64-prefix", CLAUSE_SERVER, OPT_NETBLOCK6, NULL,
  "the dns64-prefix (64:ff9b::/96 unless set)", "64:ff9b::/96", 0, 0, NULL,
  OFF(nat64_prefix), SH | IM, "<ip6/len>",
  "with do-nat64, the prefix IPv4 server addresses are embedded in (RFC 6052: /32, /40, /48, /56, /64 or /96)" },
INTOPT("outbound-msg-retry", CLAUSE_SERVER, outbound_msg_retry, "5", 0, 100,
  SH | IM, "<number>",
  "the most times one server (or forwarder) is asked for a question; a server that answers SERVFAIL (or another error), times out or fails on the network (a refused connection) is asked again, after the others, up to this many times (0 or 1 for once)"),
INTOPT("iter-scrub-cname", CLAUSE_SERVER, iter_scrub_cname, "11", 1, 65535,
  SH | IM, "<number>", "the most CNAME and DNAME records kept of a reply's answer section (in the order they came); the rest are dropped, as Unbound scrubs them"),
INTOPT("iter-scrub-ns", CLAUSE_SERVER, iter_scrub_ns, "20", 1, 65535, SH | IM,
  "<number>", "most NS records kept of one NS set in a reply (the rest are dropped by the scrubber, and their addresses go unused): bounds the work an oversized delegation causes"),
INTOPT("max-query-restarts", CLAUSE_SERVER, max_query_restarts, "11", 0,
  1000, SH | IM, "<number>",
  "most CNAME and DNAME links followed for one question (in one reply or across replies and the cache); past it the question gets SERVFAIL"),
INTOPT("max-sent-count", CLAUSE_SERVER, max_sent_count, "32", 1, 1000,
  SH | IM, "<number>",
  "most upstream queries for one question to the servers of one delegation (counted anew after a referral or a CNAME); past it the question gets SERVFAIL (EDE 22)"),
BOOLOPT("harden-below-nxdomain", CLAUSE_SERVER, harden_below_nxdomain, "yes",
  SH | IM, "answer NXDOMAIN for names below a cached DNSSEC-secure NXDOMAIN (RFC 8020; the proof is checked again for the name, so only a cached answer that was asked for with DO, which keeps its proof, is used)"),
BOOLOPT("do-not-query-localhost", CLAUSE_SERVER, do_not_query_localhost,
  "yes", SH | IM, "never send upstream queries to 127.0.0.0/8 or ::1"),
LISTOPT("do-not-query-address", CLAUSE_SERVER, OPT_NETBLOCK_LIST,
  do_not_query_addresses, "192.0.2.0/24", SH | IM, "<netblock>",
  "never send upstream queries to addresses in this netblock (an address alone is a /32 or /128); applies to forward and stub servers too"),
BOOLOPT("do-ip4", CLAUSE_SERVER, do_ip4, "yes", IM,
  "use IPv4 to answer and to query"),
BOOLOPT("do-ip6", CLAUSE_SERVER, do_ip6, "yes", IM,
  "use IPv6 to answer and to query"),
BOOLOPT("prefer-ip4", CLAUSE_SERVER, prefer_ip4, "no", SH | IM,
  "ask a zone's IPv4 servers first; its IPv6 servers only when none of those is left"),
BOOLOPT("prefer-ip6", CLAUSE_SERVER, prefer_ip6, "no", SH | IM,
  "ask a zone's IPv6 servers first; its IPv4 servers only when none of those is left"),
BOOLOPT("do-udp", CLAUSE_SERVER, do_udp, "yes", IM,
  "use UDP to answer and to query"),
BOOLOPT("do-tcp", CLAUSE_SERVER, do_tcp, "yes", IM,
  "use TCP to answer and to query"),
BOOLOPT("tcp-upstream", CLAUSE_SERVER, tcp_upstream, "no", SH | IM,
  "send upstream queries over TCP only"),
BOOLOPT("tls-upstream", CLAUSE_SERVER, tls_upstream, "no", IM,
  "every forward-zone and stub-zone server is asked over TLS (needs a zone for \".\")"),
BOOLOPT("ssl-upstream", CLAUSE_SERVER, tls_upstream, "no", IM,
  "the same as tls-upstream"),
STROPT("tls-cert-bundle", CLAUSE_SERVER, OPT_PATH, tls_cert_bundle, "", IM,
  "<file>", "PEM CA certificates that upstream TLS certificates are verified against; \"\" for the system store"),
STROPT("ssl-cert-bundle", CLAUSE_SERVER, OPT_PATH, ssl_cert_bundle, "", IM,
  "<file>", "the same as tls-cert-bundle (which wins when both are set)"),
BOOLOPT("tls-system-cert", CLAUSE_SERVER, tls_system_cert, "no", IM,
  "trust the system CA store besides tls-cert-bundle"),
BOOLOPT("tls-win-cert", CLAUSE_SERVER, tls_system_cert, "no", IM,
  "the same as tls-system-cert"),
BOOLOPT("tls-use-sni", CLAUSE_SERVER, tls_use_sni, "yes", IM,
  "send the upstream's name (addr#name) as SNI"),
STROPT("tls-service-key", CLAUSE_SERVER, OPT_PATH, tls_service_key, "", IM,
  "<file>", "PEM private key for DNS over TLS on tls-port (with tls-service-pem)"),
STROPT("ssl-service-key", CLAUSE_SERVER, OPT_PATH, ssl_service_key, "", IM,
  "<file>", "the same as tls-service-key (which wins when both are set)"),
STROPT("tls-service-pem", CLAUSE_SERVER, OPT_PATH, tls_service_pem, "", IM,
  "<file>", "PEM certificate chain for DNS over TLS, leaf first"),
STROPT("ssl-service-pem", CLAUSE_SERVER, OPT_PATH, ssl_service_pem, "", IM,
  "<file>", "the same as tls-service-pem (which wins when both are set)"),
INTOPT("tls-port", CLAUSE_SERVER, tls_port, "853", 1, 65535, IM, "<number>",
  "interfaces on this port (interface: ip@853) answer DNS over TLS, not UDP or plain TCP"),
INTOPT("ssl-port", CLAUSE_SERVER, tls_port, "853", 1, 65535, IM, "<number>",
  "the same as tls-port"),
STROPT("tls-ciphers", CLAUSE_SERVER, OPT_STR, tls_ciphers, "", IM,
  "<list>", "OpenSSL cipher list for TLS 1.2 clients; \"\" for the default"),
STROPT("tls-ciphersuites", CLAUSE_SERVER, OPT_STR, tls_ciphersuites, "", IM,
  "<list>", "OpenSSL TLS 1.3 cipher suites; \"\" for the default"),
BOOLOPT("pad-responses", CLAUSE_SERVER, pad_responses, "yes", IM,
  "pad DNS over TLS answers to queries that carry EDNS Padding (RFC 7830)"),
INTOPT("pad-responses-block-size", CLAUSE_SERVER, pad_responses_block_size,
  "468", 2, 65535, IM, "<bytes>", "answers are padded to a multiple of this (RFC 8467)"),
BOOLOPT("pad-queries", CLAUSE_SERVER, pad_queries, "yes", IM,
  "pad queries sent to TLS upstreams (RFC 7830)"),
INTOPT("pad-queries-block-size", CLAUSE_SERVER, pad_queries_block_size,
  "128", 2, 1024, IM, "<bytes>", "queries are padded to a multiple of this (RFC 8467)"),
INTOPT("https-port", CLAUSE_SERVER, https_port, "443", 1, 65535, IM, "<number>",
  "interfaces on this port (interface: ip@443) answer DNS over HTTPS (RFC 8484, HTTP/2), not UDP or plain TCP"),
STROPT("http-endpoint", CLAUSE_SERVER, OPT_STR, http_endpoint, "/dns-query",
  IM, "<path>", "the HTTP path of DNS over HTTPS queries; other paths get 404"),
INTOPT("http-max-streams", CLAUSE_SERVER, http_max_streams, "100", 1, 10000,
  IM, "<number>", "concurrent HTTP/2 streams per DoH connection (SETTINGS_MAX_CONCURRENT_STREAMS)"),
SIZEOPT("http-query-buffer-size", CLAUSE_SERVER, http_query_buffer_size,
  "4m", 65536, SIZEMAX, IM, "bytes of DoH queries held per listener and thread; a stream past it is refused"),
SIZEOPT("http-response-buffer-size", CLAUSE_SERVER, http_response_buffer_size,
  "4m", 65536, SIZEMAX, IM, "bytes of DoH answers held per listener and thread; a stream past it is refused"),
BOOLOPT("http-nodelay", CLAUSE_SERVER, http_nodelay, "yes", IM,
  "set TCP_NODELAY on DoH connections"),
BOOLOPT("http-notls-downstream", CLAUSE_SERVER, http_notls_downstream, "no",
  IM, "https-port serves HTTP/2 without TLS (h2c), for a TLS-terminating proxy in front"),
BOOLOPT("edns-tcp-keepalive", CLAUSE_SERVER, edns_tcp_keepalive, "no", IM,
  "answer the edns-tcp-keepalive option (RFC 7828) on TCP and TLS with edns-tcp-keepalive-timeout"),
INTOPT("edns-tcp-keepalive-timeout", CLAUSE_SERVER, edns_tcp_keepalive_timeout,
  "120000", 1, HOUR_MS, IM, "<msec>",
  "the idle timeout told to (and kept for) clients that ask for keepalive"),
LISTOPT("tls-session-ticket-keys", CLAUSE_SERVER, OPT_PATH_LIST,
  tls_session_ticket_keys, "\"/etc/petrel/ticket.key\"", IM, "<file>",
  "80 random bytes (openssl rand 80) to encrypt TLS session tickets; the first given encrypts, all decrypt"),
BOOLOPT("ddr", CLAUSE_SERVER, ddr, "yes", IM,
  "with DNS over TLS or HTTPS served, answer _dns.resolver.arpa SVCB with those endpoints (RFC 9462)"),
STROPT("ddr-target-name", CLAUSE_SERVER, OPT_STR, ddr_target_name, "", IM,
  "<name>", "the TargetName of the DDR records; \"\" for the first DNS name of tls-service-pem's certificate"),
LISTOPT("local-zone", CLAUSE_SERVER, OPT_LOCALZONE, local_zones,
  "\"example.\" static", SH | IM, "<zone> <type>",
  "a zone answered locally: static, transparent, typetransparent, redirect, "
  "deny, refuse, inform, nodefault, always_transparent, always_refuse, "
  "always_nxdomain, always_nodata, always_null, block_a, block_aaaa, "
  "block_a_wdata, block_aaaa_wdata (the local data, else as block_a), noview"),
LISTOPT("local-data", CLAUSE_SERVER, OPT_LOCALDATA, local_data,
  "\"www.example. 3600 IN A 192.0.2.80\"", SH | IM, "\"<resource record>\"",
  "a record served locally; its zone becomes a static local zone unless one is given"),
LISTOPT("local-data-ptr", CLAUSE_SERVER, OPT_LOCALDATA_PTR, local_data_ptr,
  "\"192.0.2.80 www.example.\"", SH | IM, "\"<ip> [<ttl>] <name>\"",
  "a PTR record for an address, served locally (the TTL defaults to 3600)"),
BOOLOPT("infra-keep-probing", CLAUSE_SERVER, infra_keep_probing, "yes",
  SH | IM | OPT_F_ONLY_YES, "petrel always keeps probing a server it marked down, one background probe at a time, while clients ask for its zones; 'no' (Unbound's default) has no effect"),
BOOLOPT("unblock-lan-zones", CLAUSE_SERVER, unblock_lan_zones, "no", SH | IM,
  "resolve the reverse zones of private addresses (RFC 1918, RFC 4193...) instead of answering them locally"),
BOOLOPT("insecure-lan-zones", CLAUSE_SERVER, insecure_lan_zones, "no",
  SH | IM, "the validator treats the reverse zones of private addresses (those unblock-lan-zones unblocks) as insecure, so their unsigned answers are not bogus under a root trust anchor"),
LISTOPT("private-address", CLAUSE_SERVER, OPT_NETBLOCK_LIST,
  private_addresses, "10.0.0.0/8", SH | IM, "<netblock>",
  "addresses removed from upstream answers (DNS rebinding protection)"),
LISTOPT("private-domain", CLAUSE_SERVER, OPT_NAME_LIST, private_domains,
  "\"example.lan.\"", SH | IM, "<name>",
  "a domain allowed to hold private addresses"),
BOOLOPT("hide-identity", CLAUSE_SERVER, hide_identity, "no", SH | IM,
  "refuse id.server and hostname.bind queries"),
BOOLOPT("hide-version", CLAUSE_SERVER, hide_version, "no", SH | IM,
  "refuse version.server and version.bind queries"),
BOOLOPT("hide-trustanchor", CLAUSE_SERVER, hide_trustanchor, "no", SH | IM,
  "do not answer trustanchor.unbound CH TXT (the trust anchors and their key tags)"),
STROPT("identity", CLAUSE_SERVER, OPT_STR, identity, "", SH | IM,
  "<string>", "the answer to id.server; empty uses the host name"),
STROPT("version", CLAUSE_SERVER, OPT_STR, version, "", SH | IM,
  "<string>", "the answer to version.server; empty uses petrel's version"),
STROPT("nsid", CLAUSE_SERVER, OPT_STR, nsid, "", SH | IM | OPT_F_NSID,
  "<\"ascii_text\"|hex>", "the name server identifier (RFC 5001) in the "
  "answers to clients that ask for it: \"ascii_\" and a text, or hex digits; "
  "empty for none"),
BOOLOPT("minimal-responses", CLAUSE_SERVER, minimal_responses, "yes",
  SH | IM, "leave out the authority and additional sections where not needed"),
INTOPT("verbosity", CLAUSE_SERVER, verbosity, "1", 0, 5, SH | IM,
  "<0..5>", "how much to log: 0 errors only, 1 operations, up to 5 client detail"),
STROPT("logfile", CLAUSE_SERVER, OPT_PATH, logfile, "", SH | IM, "<file>",
  "the file to log to; empty logs to stderr (or syslog)"),
BOOLOPT("use-syslog", CLAUSE_SERVER, use_syslog, "no", SH | IM,
  "log to syslog instead of a file"),
BOOLOPT("log-queries", CLAUSE_SERVER, log_queries, "no", SH | IM,
  "log every query, as Unbound: client address, name, type, class (slow)"),
BOOLOPT("log-replies", CLAUSE_SERVER, log_replies, "no", SH | IM,
  "log every reply, as Unbound: client address, name, type, class, rcode, seconds taken, 1 when from the cache, size (slow)"),
BOOLOPT("log-time-ascii", CLAUSE_SERVER, log_time_ascii, "no", SH | IM,
  "start log lines with the local time (\"Nov 24 03:37:58\") instead of seconds since 1970"),
BOOLOPT("log-time-iso", CLAUSE_SERVER, log_time_iso, "no", SH | IM,
  "start log lines with the ISO 8601 time, milliseconds and UTC offset (wins over log-time-ascii)"),
BOOLOPT("log-thread-id", CLAUSE_SERVER, log_thread_id, "no", SH | IM,
  "print the system's thread id in log lines instead of the worker number"),
STROPT("pidfile", CLAUSE_SERVER, OPT_PATH, pidfile, "", IM, "<file>",
  "the file the process id is written to; empty writes none"),
STROPT("chroot", CLAUSE_SERVER, OPT_PATH, chroot, "", IM, "<directory>",
  "the directory to chroot to after start-up; empty does not chroot"),
{ "username", CLAUSE_SERVER, OPT_STR, PETREL_USERNAME,
  "the user given to configure --with-username, \"petrel\" when none is",
  "\"\"", 0, 0, NULL, OFF(username),
  IM | OPT_F_EXAMPLE_SET | OPT_F_BUILD_DEFAULT, "<user>",
  "the user to change to after the sockets are bound (the package creates the default user); empty keeps the privileges petrel was started with, with a warning when that is root" },
STROPT("directory", CLAUSE_SERVER, OPT_PATH, directory, "", IM,
  "<directory>",
  "the working directory; relative paths and includes are taken from it"),
BOOLOPT("use-systemd", CLAUSE_SERVER, use_systemd, "no", IM,
  "tell systemd when petrel is ready; petrel does so whenever systemd gives it a NOTIFY_SOCKET, so 'no' only documents the unit type"),
{ "do-daemonize", CLAUSE_SERVER, OPT_BOOL, "yes", NULL, "no", 0, 0, NULL,
  OFF(do_daemonize), IM | OPT_F_EXAMPLE_SET, "yes|no",
  "detach and run in the background" },
INTOPT("statistics-interval", CLAUSE_SERVER, statistics_interval, "0", 0,
  INTMAX, SH | IM, "<seconds>",
  "log the statistics this often; 0 does not"),
BOOLOPT("statistics-cumulative", CLAUSE_SERVER, statistics_cumulative, "no",
  SH | IM, "keep counting after the statistics are printed instead of resetting"),
BOOLOPT("extended-statistics", CLAUSE_SERVER, extended_statistics, "no",
  SH | IM, "keep counters per query type, class, rcode and flag"),
INTOPT("unwanted-reply-threshold", CLAUSE_SERVER, unwanted_reply_threshold,
  "0", 0, INTMAX, SH | IM, "<number>",
  "after this many unwanted replies, clear the caches against poisoning; 0 is off"),
{ "http-metrics-interface", CLAUSE_SERVER, OPT_ADDR, "", NULL,
  "127.0.0.1@9167", 0, 0, NULL, OFF(http_metrics_interface), IM,
  "<ip@port>",
  "serve Prometheus metrics over HTTP on this address; empty is off" },
POL("access-control-view", CLAUSE_SERVER, "10.0.0.0/8 inside",
  "<netblock> <view>",
  "clients in the netblock use the view (longest match)"),
POL("interface-view", CLAUSE_SERVER, "127.0.0.1 inside", "<ip> <view>",
  "queries to this listening address use the view (a client's access-control-view wins)"),
POL("define-tag", CLAUSE_SERVER, "\"malware social\"", "<\"tags\">",
  "name the tags (at most 64) that clients, local zones and rpz zones can be given"),
POL("access-control-tag", CLAUSE_SERVER, "10.0.0.0/8 \"malware\"",
  "<netblock> <\"tags\">",
  "the clients of this access-control netblock have these tags (the netblock is made with allow when no access-control names it)"),
POL("access-control-tag-action", CLAUSE_SERVER,
  "10.0.0.0/8 malware always_refuse", "<netblock> <tag> <action>",
  "for these clients, a local zone tagged with the tag acts as this local-zone type"),
POL("access-control-tag-data", CLAUSE_SERVER,
  "10.0.0.0/8 malware \"A 127.0.0.1\"", "<netblock> <tag> <\"rr\">",
  "for these clients, a redirect local zone tagged with the tag answers with this data"),
POL("local-zone-tag", CLAUSE_SERVER, "example.com. \"malware\"",
  "<zone> <\"tags\">",
  "the local-zone is seen only by clients with one of these tags"),
POL("local-zone-override", CLAUSE_SERVER,
  "example.com. 192.0.2.0/24 refuse", "<zone> <netblock> <type>",
  "the clients in the netblock see the local-zone as this type, whatever its "
  "type, tags or views say (the longest netblock wins)"),
POL("interface-tag", CLAUSE_SERVER, "127.0.0.1 \"malware\"",
  "<ip> <\"tags\">",
  "queries to this listening address have these tags (a client's access-control-tag netblock wins)"),
POL("interface-tag-action", CLAUSE_SERVER, "127.0.0.1 malware refuse",
  "<ip> <tag> <action>", "as access-control-tag-action, for interface-tag"),
POL("interface-tag-data", CLAUSE_SERVER,
  "127.0.0.1 malware \"A 127.0.0.1\"", "<ip> <tag> <\"rr\">",
  "as access-control-tag-data, for interface-tag"),
POL("response-ip", CLAUSE_SERVER, "192.0.2.0/24 always_refuse",
  "<netblock> <action>",
  "answers holding an A/AAAA address in the netblock are rewritten, refused or dropped (deny, redirect, inform, inform_deny, inform_redirect, always_transparent, always_refuse, always_nxdomain, always_nodata, always_deny); needs module-config \"respip ...\""),
POL("response-ip-data", CLAUSE_SERVER, "192.0.2.0/24 \"A 198.51.100.1\"",
  "<netblock> <\"rr\">",
  "the records that replace the matching address records (a netblock with data and no response-ip redirects)"),
POL("response-ip-tag", CLAUSE_SERVER, "192.0.2.0/24 \"malware\"",
  "<netblock> <\"tags\">",
  "for clients with one of these tags, the tag's access-control-tag-action and -data apply to the netblock"),

/* ---- forward-zone: ---- */
{ "name", CLAUSE_FORWARD, OPT_ZONE_NAME, NULL, NULL, "\"example.com.\"",
  0, 0, NULL, 0, SH | IM, "<zone>",
  "the zone to forward; \".\" forwards everything" },
{ "forward-addr", CLAUSE_FORWARD, OPT_ZONE_ADDR, NULL, NULL, "192.0.2.53",
  0, 0, NULL, 0, SH | IM, "<ip[@port][#name]|https://ip[@port]/path[#name]>",
  "a server to forward to; https://... is a DNS over HTTPS server (RFC 8484; port 443, certificate verified against #name or the IP address, never asked in clear)" },
{ "forward-host", CLAUSE_FORWARD, OPT_ZONE_HOST, NULL, NULL,
  "\"ns.example.net.\"", 0, 0, NULL, 0, SH | IM, "<name>",
  "a server to forward to, by name (resolved first)" },
{ "forward-first", CLAUSE_FORWARD, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0,
  NULL, ZOFF(first), SH | IM, "yes|no",
  "when the servers fail, resolve normally instead" },
{ "forward-tls-upstream", CLAUSE_FORWARD, OPT_ZONE_BOOL, "no", NULL, NULL, 0,
  0, NULL, ZOFF(tls), SH | IM, "yes|no",
  "ask the servers over TLS (port 853 unless given), verifying addr#name; never in clear" },
{ "forward-ssl-upstream", CLAUSE_FORWARD, OPT_ZONE_BOOL, "no", NULL, NULL, 0,
  0, NULL, ZOFF(tls), SH | IM, "yes|no", "the same as forward-tls-upstream" },
{ "forward-tcp-upstream", CLAUSE_FORWARD, OPT_ZONE_BOOL, "no", NULL, NULL, 0,
  0, NULL, ZOFF(tcp), SH | IM, "yes|no",
  "ask the servers over TCP only (as tcp-upstream does for every server)" },
{ "forward-no-cache", CLAUSE_FORWARD, OPT_ZONE_BOOL, "no", NULL, NULL, 0,
  0, NULL, ZOFF(no_cache), SH | IM, "yes|no",
  "answers from this zone's servers are not cached (and not answered from the cache): every question asks them, so changes show at once" },

/* ---- stub-zone: ---- */
{ "name", CLAUSE_STUB, OPT_ZONE_NAME, NULL, NULL, "\"example.org.\"",
  0, 0, NULL, 0, SH | IM, "<zone>", "the zone whose servers are given here" },
{ "stub-addr", CLAUSE_STUB, OPT_ZONE_ADDR, NULL, NULL, "192.0.2.54", 0, 0,
  NULL, 0, SH | IM, "<ip[@port]>",
  "an authoritative server for the zone" },
{ "stub-host", CLAUSE_STUB, OPT_ZONE_HOST, NULL, NULL,
  "\"ns.example.org.\"", 0, 0, NULL, 0, SH | IM, "<name>",
  "an authoritative server for the zone, by name" },
{ "stub-prime", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0, NULL,
  ZOFF(prime), SH | IM, "yes|no",
  "ask the given servers for the zone's full NS set first" },
{ "stub-first", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0, NULL,
  ZOFF(first), SH | IM, "yes|no",
  "when the servers fail, resolve normally instead" },
{ "stub-tcp-upstream", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0,
  NULL, ZOFF(tcp), SH | IM, "yes|no",
  "ask the servers over TCP only (as tcp-upstream does for every server)" },
{ "stub-no-cache", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0,
  NULL, ZOFF(no_cache), SH | IM, "yes|no",
  "answers (and referrals) from this zone's servers are not cached (and not answered from the cache): every question asks them" },
{ "stub-tls-upstream", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0,
  NULL, ZOFF(tls), SH | IM, "yes|no",
  "ask the servers over TLS (port 853 unless given), verifying addr#name; never in clear" },
{ "stub-ssl-upstream", CLAUSE_STUB, OPT_ZONE_BOOL, "no", NULL, NULL, 0, 0,
  NULL, ZOFF(tls), SH | IM, "yes|no", "the same as stub-tls-upstream" },

/* ---- auth-zone: (util/config_auth.c stores and checks these) ---- */
{ "name", CLAUSE_AUTH, OPT_AUTH, NULL, NULL, "\".\"", 0, 0, NULL, 0,
  SH | IM, "<zone>", "the zone served from this clause" },
{ "primary", CLAUSE_AUTH, OPT_AUTH, NULL, NULL, "192.0.2.53", 0, 0, NULL,
  0, SH | IM, "<ip[@port] | name[@port]> [key]",
  "a server to transfer the zone from (IXFR, else AXFR, over TCP), signed with the tsig-key named after it; the next one is tried when one fails; a host name is looked up through the resolver (validated) at start" },
{ "master", CLAUSE_AUTH, OPT_AUTH, NULL, NULL, "192.0.2.53", 0, 0, NULL,
  0, SH | IM, "<ip[@port] | name[@port]> [key]", "the same as primary" },
{ "url", CLAUSE_AUTH, OPT_AUTH, NULL, NULL,
  "\"https://www.internic.net/domain/root.zone\"", 0, 0, NULL, 0, SH | IM,
  "<url>",
  "fetch the zone file over HTTP or HTTPS (certificate checked against tls-cert-bundle, else the system store) at start and at the SOA refresh when no primary answers; written to zonefile" },
{ "allow-notify", CLAUSE_AUTH, OPT_AUTH, NULL, NULL, "192.0.2.0/24", 0, 0,
  NULL, 0, SH | IM, "<ip | netblock | name>",
  "a source whose NOTIFY starts a transfer at once (the primaries always may); a host name stands for the addresses the resolver finds for it" },
{ "zonefile", CLAUSE_AUTH, OPT_AUTH, NULL, NULL, "\"root.zone\"", 0, 0,
  NULL, 0, SH | IM, "<file>",
  "read at start, written (atomically) after every transfer" },
{ "fallback-enabled", CLAUSE_AUTH, OPT_AUTH, "no", NULL, NULL, 0, 0, NULL,
  0, SH | IM, "yes|no",
  "when the zone has no data (expired, not yet transferred, refused for its ZONEMD), "
  "resolve normally instead of SERVFAIL" },
{ "for-downstream", CLAUSE_AUTH, OPT_AUTH, "yes", NULL, NULL, 0, 0, NULL,
  0, SH | IM, "yes|no", "answer clients from the zone, authoritatively" },
{ "for-upstream", CLAUSE_AUTH, OPT_AUTH, "yes", NULL, NULL, 0, 0, NULL, 0,
  SH | IM, "yes|no",
  "the iterator answers from the zone instead of asking its servers (RFC 8806)" },
{ "zonemd-check", CLAUSE_AUTH, OPT_AUTH, "no", NULL, NULL, 0, 0, NULL, 0,
  SH | IM, "yes|no",
  "verify the zone's ZONEMD digest (RFC 8976, SHA-384 simple) and refuse a zone that fails; "
  "with the validator on and a trust anchor at the apex, the ZONEMD RRSIG (or an NSEC/NSEC3 "
  "proof of its absence) must verify with the zone's DNSKEY, chained to the anchor; "
  "with the anchor above the apex (a TLD under the root's), the new copy is held (the old "
  "one stays in use) while a worker looks up the zone's DNSKEY through the validator: the "
  "zone's DNSKEY set must be the validated one and sign the ZONEMD (for a proven insecure "
  "delegation, the digest alone; a failed lookup is tried again at the SOA retry timer); "
  "a refused zone is not used: its names are SERVFAIL, or resolved from the servers "
  "with fallback-enabled" },
{ "zonemd-reject-absence", CLAUSE_AUTH, OPT_AUTH, "no", NULL, NULL, 0, 0,
  NULL, 0, SH | IM, "yes|no", "refuse a zone without a ZONEMD record" },

/* ---- tsig-key: ---- */
{ "name", CLAUSE_TSIG, OPT_AUTH, NULL, NULL, "\"xfr.key.\"", 0, 0, NULL,
  0, SH | IM, "<name>", "the key name" },
{ "algorithm", CLAUSE_TSIG, OPT_AUTH, NULL, NULL, "hmac-sha256", 0, 0,
  NULL, 0, SH | IM, "hmac-sha1|hmac-sha256|hmac-sha512",
  "the HMAC algorithm" },
{ "secret", CLAUSE_TSIG, OPT_AUTH, NULL, NULL, "\"K2tf3TRjvQkVCmJF3/Z9vA==\"",
  0, 0, NULL, 0, SH | IM, "<base64>", "the shared secret" },

/* ---- rpz: ---- */
POL("name", CLAUSE_RPZ, "\"rpz.example.\"", "<zone>",
  "the name of the response policy zone (its origin)"),
POL("zonefile", CLAUSE_RPZ, "\"/etc/petrel/rpz.zone\"", "<file>",
  "the zone file the policy is read from (at start and reload); with primary, written after each transfer"),
POL("primary", CLAUSE_RPZ, "192.0.2.1", "<ip[@port]> [tsig-key]",
  "a primary to transfer the zone from by AXFR and IXFR, the transfers signed with the named key of a tsig-key clause"),
POL("master", CLAUSE_RPZ, "192.0.2.1", "<ip[@port]> [tsig-key]",
  "the same as primary"),
POL("url", CLAUSE_RPZ, "\"https://example.net/rpz.zone\"", "<url>",
  "fetch the zone file over HTTP or HTTPS (tls-cert-bundle verifies the server) when no primary answers, at start and every SOA refresh"),
POL("allow-notify", CLAUSE_RPZ, "192.0.2.1", "<netblock>",
  "who may send NOTIFY for the zone (with primary)"),
POL("rpz-action-override", CLAUSE_RPZ, "nxdomain",
  "nxdomain|nodata|passthru|drop|tcp-only|cname|disabled",
  "apply this action to every trigger instead of the zone's"),
POL("rpz-cname-override", CLAUSE_RPZ, "\"walled.example.\"", "<name>",
  "the CNAME target when rpz-action-override is cname"),
POL("rpz-log", CLAUSE_RPZ, "no", "yes|no",
  "log every query the zone acts on (name, client, action)"),
POL("rpz-log-name", CLAUSE_RPZ, "\"blocklist\"", "<text>",
  "the name put in those log lines (by default the zone name)"),
POL("rpz-signal-nxdomain-ra", CLAUSE_RPZ, "no", "yes|no",
  "clear RA in NXDOMAIN answers the policy made, so clients can tell"),
POL("for-downstream", CLAUSE_RPZ, "no", "yes|no",
  "also answer queries for the RPZ zone itself (an auth zone for-downstream: from its zonefile, or transferred from its primary or url)"),
POL("tags", CLAUSE_RPZ, "\"tag1 tag2\"", "<tags>",
  "apply the zone only to clients with one of these tags (define-tag, access-control-tag, interface-tag)"),

/* ---- view: ---- */
POL("name", CLAUSE_VIEW, "\"inside\"", "<name>",
  "the name of the view (access-control-view and interface-view use it)"),
POL("local-zone", CLAUSE_VIEW, "\"example.com. static\"", "<zone> <type>",
  "a local zone of the view (as the server option); noview falls through to the global zones"),
POL("local-data", CLAUSE_VIEW, "\"www.example.com. A 10.0.0.1\"", "<rr>",
  "local data of the view"),
POL("local-data-ptr", CLAUSE_VIEW, "\"10.0.0.1 www.example.com.\"",
  "<ip> <name>", "a PTR record of the view"),
POL("view-first", CLAUSE_VIEW, "no", "yes|no",
  "when no zone of the view covers a question, try the global local zones"),
POL("response-ip", CLAUSE_VIEW, "192.0.2.0/24 always_refuse",
  "<netblock> <action>", "a response-ip for the clients of the view (checked before the server's, which apply only with view-first)"),
POL("response-ip-data", CLAUSE_VIEW, "192.0.2.0/24 \"A 198.51.100.1\"",
  "<netblock> <\"rr\">", "a response-ip-data of the view"),

/* ---- remote-control: ---- */
BOOLOPT("control-enable", CLAUSE_REMOTE, control_enable, "no", IM,
  "run the control server that petrel-control talks to"),
{ "control-interface", CLAUSE_REMOTE, OPT_CTRL_LIST, NULL,
  "127.0.0.1 and ::1", "127.0.0.1", 0, 0, NULL, OFF(control_interfaces),
  IM, "<ip | /path>",
  "an address, or a unix socket path starting with /, to listen on" },
INTOPT("control-port", CLAUSE_REMOTE, control_port, "8953", 1, 65535, IM,
  "<number>", "the TCP port of the control server"),
BOOLOPT("control-use-cert", CLAUSE_REMOTE, control_use_cert, "yes", IM,
  "use TLS with the key and certificate files (plain text is for localhost and unix sockets)"),
STROPT("server-key-file", CLAUSE_REMOTE, OPT_PATH, server_key_file,
  PETREL_CONFDIR "/petrel_server.key", IM, "<file>",
  "the control server's private key"),
STROPT("server-cert-file", CLAUSE_REMOTE, OPT_PATH, server_cert_file,
  PETREL_CONFDIR "/petrel_server.pem", IM, "<file>",
  "the control server's certificate"),
STROPT("control-key-file", CLAUSE_REMOTE, OPT_PATH, control_key_file,
  PETREL_CONFDIR "/petrel_control.key", IM, "<file>",
  "the private key of petrel-control"),
STROPT("control-cert-file", CLAUSE_REMOTE, OPT_PATH, control_cert_file,
  PETREL_CONFDIR "/petrel_control.pem", IM, "<file>",
  "the certificate of petrel-control"),

/* ---- cachedb: ---- */
{ "backend", CLAUSE_CACHEDB, OPT_ENUM, "redis", NULL, NULL, 0, 0,
  cachedb_backend_words, OFF(cachedb_backend), SH | IM, "redis",
  "the second-level cache's store (module-config must list cachedb)" },
STROPT("secret-seed", CLAUSE_CACHEDB, OPT_STR, secret_seed, "default",
  SH | IM, "<string>", "mixed into every key: fleets with different seeds "
  "share nothing"),
BOOLOPT("cachedb-no-store", CLAUSE_CACHEDB, cachedb_no_store, "no", SH | IM,
  "only read the second-level cache, never write to it"),
BOOLOPT("cachedb-check-when-serve-expired", CLAUSE_CACHEDB,
  cachedb_check_when_serve_expired, "yes", SH | IM,
  "with serve-expired, look in Redis for a fresh answer before serving an "
  "expired one from the local cache (without serve-expired-client-timeout, "
  "the expired one is given as soon as Redis has nothing fresh; with it, "
  "at the timeout)"),
STROPT("redis-server-host", CLAUSE_CACHEDB, OPT_STR, redis_server_host,
  "127.0.0.1", SH | IM, "<address>", "the Redis server's address"),
INTOPT("redis-server-port", CLAUSE_CACHEDB, redis_server_port, "6379", 1,
  65535, SH | IM, "<port>", "the Redis server's port"),
STROPT("redis-server-path", CLAUSE_CACHEDB, OPT_STR, redis_server_path, "",
  SH | IM, "<path>", "a unix socket of the Redis server (instead of host "
  "and port)"),
STROPT("redis-server-password", CLAUSE_CACHEDB, OPT_STR,
  redis_server_password, "", SH | IM, "<password>",
  "sent with AUTH after connecting (\"\": none)"),
INTOPT("redis-timeout", CLAUSE_CACHEDB, redis_timeout, "100", 1, HOUR_MS,
  SH | IM, "<msec>", "how long a lookup may wait for Redis before the "
  "query goes on to the iterator"),
INTOPT("redis-command-timeout", CLAUSE_CACHEDB, redis_command_timeout, "0",
  0, HOUR_MS, SH | IM, "<msec>", "the bound on a lookup's wait when not 0 "
  "(else redis-timeout)"),
INTOPT("redis-connect-timeout", CLAUSE_CACHEDB, redis_connect_timeout, "0",
  0, HOUR_MS, SH | IM, "<msec>", "how long a connection attempt may take "
  "when not 0 (else redis-timeout)"),
BOOLOPT("redis-expire-records", CLAUSE_CACHEDB, redis_expire_records, "no",
  SH | IM, "give each stored record a Redis EXPIRE at its DNS expiry "
  "(plus serve-expired-ttl with serve-expired)"),
INTOPT("redis-logical-db", CLAUSE_CACHEDB, redis_logical_db, "0", 0,
  65535, SH | IM, "<number>", "the Redis database (SELECT) to use"),
STROPT("redis-replica-server-host", CLAUSE_CACHEDB, OPT_STR,
  redis_replica_server_host, "", SH | IM, "<address>",
  "a Redis replica that lookups go to (\"\": lookups go to the server)"),
INTOPT("redis-replica-server-port", CLAUSE_CACHEDB, redis_replica_server_port,
  "6379", 1, 65535, SH | IM, "<port>", "the replica's port"),
STROPT("redis-replica-server-path", CLAUSE_CACHEDB, OPT_STR,
  redis_replica_server_path, "", SH | IM, "<path>",
  "a unix socket of the replica (instead of host and port)"),
STROPT("redis-replica-server-password", CLAUSE_CACHEDB, OPT_STR,
  redis_replica_server_password, "", SH | IM, "<password>",
  "sent with AUTH to the replica"),
INTOPT("redis-replica-timeout", CLAUSE_CACHEDB, redis_replica_timeout, "100",
  1, HOUR_MS, SH | IM, "<msec>", "the replica's redis-timeout"),
INTOPT("redis-replica-command-timeout", CLAUSE_CACHEDB,
  redis_replica_command_timeout, "0", 0, HOUR_MS, SH | IM, "<msec>",
  "the replica's redis-command-timeout"),
INTOPT("redis-replica-connect-timeout", CLAUSE_CACHEDB,
  redis_replica_connect_timeout, "0", 0, HOUR_MS, SH | IM, "<msec>",
  "the replica's redis-connect-timeout"),
INTOPT("redis-replica-logical-db", CLAUSE_CACHEDB, redis_replica_logical_db,
  "0", 0, 65535, SH | IM, "<number>", "the replica's redis-logical-db"),

/* ---- Unbound options that ask for security petrel does not provide yet:
 * load errors (file:line and what is missing) ---- */
NOSEC("tls-additional-port", CLAUSE_SERVER, "DNS over TLS on a second "
  "port (petrel serves DNS over TLS on the one tls-port, on every "
  "interface: with that port)"),
NOSEC("quic-port", CLAUSE_SERVER, NOSEC_TLS_SVC),
NOSEC("dnscrypt-enable", CLAUSE_IGNORED, "DNSCrypt service to clients"),

/* ---- Unbound options petrel accepts and ignores ---- */
/* (Unbound's default for both is no: petrel's is yes, deliberately, as
 * the Extended DNS Errors are how it says why a query failed) */
BOOLOPT("ede", CLAUSE_SERVER, ede, "yes", SH | IM,
  "put Extended DNS Errors (RFC 8914) in answers: why a query failed (SERVFAIL, DNSSEC), was blocked or filtered (local zones, RPZ) or refused; Unbound's default is no"),
BOOLOPT("ede-serve-expired", CLAUSE_SERVER, ede_serve_expired, "yes",
  SH | IM, "with ede, put EDE 3 (Stale Answer) or 19 (Stale NXDOMAIN Answer) in answers served from expired cache entries (serve-expired); Unbound's default is no"),
BOOLOPT("harden-large-queries", CLAUSE_SERVER, harden_large_queries, "no",
  SH | IM, "drop queries larger than 512 bytes (legal, but not needed unless TSIG or large EDNS options are used)"),
BOOLOPT("harden-short-bufsize", CLAUSE_SERVER, harden_short_bufsize, "yes",
  SH | IM | OPT_F_ONLY_YES, "petrel always reads an EDNS buffer size below 512 in a query as 512 (RFC 6891); 'no' has no effect"),
BOOLOPT("harden-referral-path", CLAUSE_SERVER, harden_referral_path, "no",
  SH | IM, "for each referral on the way to a client's answer, ask the zone's servers in the background for its own NS set and the addresses of its in-zone servers, so that the cache holds authoritative (and, under a trust anchor, validated) infrastructure data instead of the referral's; more upstream queries (Unbound marks it experimental)"),
BOOLOPT("harden-unknown-additional", CLAUSE_SERVER, harden_unknown_additional,
  "yes", SH | IM, "yes: the authority and additional sections of an answer hold only the records petrel uses (the zone's NS set and their addresses, the DNSSEC proofs); no: records of other types the server put there (an SRV in the additional section, say), after the scrub, go to the client with the answer, which could carry what a future protocol adds there; Unbound's default is no"),
BOOLOPT("rrset-roundrobin", CLAUSE_SERVER, rrset_roundrobin, "yes", SH | IM,
  "rotate the order of the records of RRsets in answers, by the query ID (sets of equal-length records, such as A and AAAA; others keep their order)"),
INTOPT("ratelimit", CLAUSE_SERVER, ratelimit, "0", 0, INTMAX, SH | IM,
  "<number>", "queries per second petrel sends to the servers of one zone "
  "(its delegation); a query over the limit gets SERVFAIL; 0 is no limit"),
INTOPT("max-global-quota", CLAUSE_SERVER, max_global_quota, "200", 0, INTMAX,
  SH | IM, "<number>", "most upstream queries one client query may cause, "
  "counting all its sub-queries (server addresses, DNSSEC keys, CNAME "
  "targets); past it the query gets SERVFAIL (EDE 0); 0 is no limit"),
SIZEOPT("ratelimit-size", CLAUSE_SERVER, ratelimit_size, "4m", 0, SIZEMAX,
  SH | IM, "memory for the zone rate table (the quietest zones are forgotten first)"),
POW2OPT("ratelimit-slabs", CLAUSE_SERVER, ratelimit_slabs, "4", 1, 65536,
  SH | IM, "slabs of the zone rate table (more slabs, less lock contention)"),
INTOPT("ratelimit-factor", CLAUSE_SERVER, ratelimit_factor, "10", 0, INTMAX,
  SH | IM, "<number>", "1 in this many queries over a zone's limit still "
  "goes out; 0 sends none"),
BOOLOPT("ratelimit-backoff", CLAUSE_SERVER, ratelimit_backoff, "no",
  SH | IM, "a zone over its limit stays limited until its demand (limited queries counted) falls below the limit for a 2 second window"),
LISTOPT("ratelimit-for-domain", CLAUSE_SERVER, OPT_NAME_NUM_LIST,
  ratelimit_for_domain, "example.com 1000", SH | IM, "<domain> <number>",
  "the ratelimit of this zone (0: none), instead of ratelimit"),
LISTOPT("ratelimit-below-domain", CLAUSE_SERVER, OPT_NAME_NUM_LIST,
  ratelimit_below_domain, "example 1000", SH | IM, "<domain> <number>",
  "the ratelimit of the zones below this name (the closest name wins; "
  "ratelimit-for-domain comes first)"),
INTOPT("ip-ratelimit", CLAUSE_SERVER, ip_ratelimit, "0", 0, INTMAX, SH | IM,
  "<number>", "queries per second one client address may send; more are "
  "dropped without an answer, before the cache is looked at; 0 is no limit"),
SIZEOPT("ip-ratelimit-size", CLAUSE_SERVER, ip_ratelimit_size, "4m", 0,
  SIZEMAX, SH | IM, "memory for the client rate table (the quietest addresses are forgotten first)"),
POW2OPT("ip-ratelimit-slabs", CLAUSE_SERVER, ip_ratelimit_slabs, "4", 1,
  65536, SH | IM, "slabs of the client rate table"),
INTOPT("ip-ratelimit-factor", CLAUSE_SERVER, ip_ratelimit_factor, "10", 0,
  INTMAX, SH | IM, "<number>", "1 in this many queries over a client's "
  "limit is still answered; 0 drops them all"),
BOOLOPT("ip-ratelimit-backoff", CLAUSE_SERVER, ip_ratelimit_backoff, "no",
  SH | IM, "a client over its limit stays limited until its demand (dropped queries counted) falls below the limit for a 2 second window"),
INTOPT("ip-ratelimit-cookie", CLAUSE_SERVER, ip_ratelimit_cookie, "0", 0,
  INTMAX, SH | IM, "<number>", "the ip-ratelimit of a client whose query "
  "carries a valid DNS cookie (with answer-cookie), instead of "
  "ip-ratelimit; 0 is no limit for such clients"),
STROPT("dns64-prefix", CLAUSE_SERVER, OPT_NETBLOCK6, dns64_prefix,
  "64:ff9b::/96", SH | IM, "<ip6/len>", "the prefix of the IPv6 addresses "
  "the dns64 module makes from IPv4 ones (RFC 6052: /32, /40, /48, /56, "
  "/64 or /96)"),
BOOLOPT("dns64-synthall", CLAUSE_SERVER, dns64_synthall, "no", SH | IM,
  "dns64: synthesize AAAA records from A records even for names that have AAAA records"),
LISTOPT("dns64-ignore-aaaa", CLAUSE_SERVER, OPT_NAME_LIST, dns64_ignore_aaaa,
  "\"example.com\"", SH | IM, "<name>",
  "dns64: ignore the AAAA records of this name and synthesize them from its A records"),
LISTOPT("send-client-subnet", CLAUSE_SERVER, OPT_NETBLOCK_LIST,
  send_client_subnet, "192.0.2.0/24", SH | IM, "<netblock>",
  "subnetcache: upstream servers in this netblock get the client's subnet (EDNS Client Subnet, RFC 7871)"),
LISTOPT("client-subnet-zone", CLAUSE_SERVER, OPT_NAME_LIST, client_subnet_zone,
  "\"example.com\"", SH | IM, "<name>",
  "subnetcache: queries for names in this zone carry the client's subnet upstream, whatever the server"),
BOOLOPT("client-subnet-always-forward", CLAUSE_SERVER,
  client_subnet_always_forward, "no", SH | IM,
  "subnetcache: a client's own ECS option goes to every upstream server, and its queries skip the message cache"),
INTOPT("client-subnet-opcode", CLAUSE_SERVER, client_subnet_opcode, "8", 1,
  65535, SH | IM, "<option code>",
  "subnetcache: the EDNS option code of Client Subnet (8, RFC 7871)"),
INTOPT("max-client-subnet-ipv4", CLAUSE_SERVER, max_client_subnet_ipv4, "24",
  0, 32, SH | IM, "<bits>",
  "subnetcache: the longest IPv4 source prefix sent upstream"),
INTOPT("max-client-subnet-ipv6", CLAUSE_SERVER, max_client_subnet_ipv6, "56",
  0, 128, SH | IM, "<bits>",
  "subnetcache: the longest IPv6 source prefix sent upstream"),
INTOPT("min-client-subnet-ipv4", CLAUSE_SERVER, min_client_subnet_ipv4, "0",
  0, 32, SH | IM, "<bits>",
  "subnetcache: a client ECS option with a shorter IPv4 source prefix (but not 0) is REFUSED"),
INTOPT("min-client-subnet-ipv6", CLAUSE_SERVER, min_client_subnet_ipv6, "0",
  0, 128, SH | IM, "<bits>",
  "subnetcache: a client ECS option with a shorter IPv6 source prefix (but not 0) is REFUSED"),
INTOPT("max-ecs-tree-size-ipv4", CLAUSE_SERVER, max_ecs_tree_size_ipv4, "100",
  0, INTMAX, SH | IM, "<number>",
  "subnetcache: most IPv4 subnets kept per question"),
INTOPT("max-ecs-tree-size-ipv6", CLAUSE_SERVER, max_ecs_tree_size_ipv6, "100",
  0, INTMAX, SH | IM, "<number>",
  "subnetcache: most IPv6 subnets kept per question"),
SIZEOPT("neg-cache-size", CLAUSE_SERVER, neg_cache_size, "1m", 0, SIZEMAX,
  SH | IM, "memory for the validated NSEC records aggressive-nsec answers from (each record with its RRSIG takes about 1.5 kB; at least one is kept)"),
BOOLOPT("udp-upstream-without-downstream", CLAUSE_SERVER,
  udp_upstream_without_downstream, "no", SH | IM,
  "with do-udp: no (which also sends upstream queries over TCP), still query upstream servers over UDP: for a TLS service that answers no UDP"),
BOOLOPT("deny-any", CLAUSE_SERVER, deny_any, "no", SH | IM,
  "answer ANY queries with an empty NOERROR instead of recursing (local zones still answer them)"),
INTOPT("delay-close", CLAUSE_SERVER, delay_close, "0", 0, HOUR_MS, IM,
  "<msec>", "keep the UDP socket of an upstream query that timed out open this long, so a late reply meets an open port (it is counted in unwanted replies) instead of setting off the server's closed-port counters; such sockets count in outgoing-range; 0 closes it at once"),
BOOLOPT("ip-transparent", CLAUSE_SERVER, ip_transparent, "no", IM,
  "listening sockets may bind an address the machine does not have (IP_TRANSPARENT, IP_BINDANY or SO_BINDANY: needs CAP_NET_ADMIN on Linux; a warning where refused)"),
BOOLOPT("ip-freebind", CLAUSE_SERVER, ip_freebind, "no", IM,
  "listening sockets may bind an address not (yet) on an interface, e.g. one that comes up later (IP_FREEBIND, Linux)"),
INTOPT("ip-dscp", CLAUSE_SERVER, ip_dscp, "0", 0, 63, IM, "<0..63>",
  "the DSCP (differentiated services code point) of every packet sent, to clients and upstream (IP_TOS, IPV6_TCLASS); 0 leaves it alone"),
BOOLOPT("log-servfail", CLAUSE_SERVER, log_servfail, "no", SH | IM,
  "log an error line saying why a query is answered SERVFAIL (\"SERVFAIL <name type class>: reason\")"),
BOOLOPT("log-local-actions", CLAUSE_SERVER, log_local_actions, "no", SH | IM,
  "log a line (as inform zones do) for every query a local zone handles"),
BOOLOPT("log-tag-queryreply", CLAUSE_SERVER, log_tag_queryreply, "no", SH | IM,
  "log-queries and log-replies lines are tagged 'query' and 'reply' instead of 'info'"),
POL("interface-action", CLAUSE_SERVER, "127.0.0.1 allow",
  "<ip or interface name[@port]> <action>",
  "what to do with queries that come in on this listening address (as interface: gives it; a name stands for each address of that network interface; the port is port: unless given) from clients no access-control netblock contains (an access-control line, the localhost defaults included, wins): deny, refuse, allow, allow_setrd, allow_snoop, deny_non_local, refuse_non_local, allow_cookie; a listening address no line names refuses them"),
INTOPT("msg-buffer-size", CLAUSE_SERVER, msg_buffer_size, "65552", 4096,
  65552, IM, "<bytes>",
  "the buffer of each client TCP and TLS connection, in bytes: a longer query closes the connection, and no longer answer is sent; less memory per connection (65535 and more: every DNS message fits)"),
SIZEOPT("stream-wait-size", CLAUSE_SERVER, stream_wait_size, "4m", 0,
  SIZEMAX, IM, "the most bytes of answers waiting to be written on the TCP and TLS connections of one listening socket in one worker; an answer past it is dropped (the client asks again); 0 is no limit"),
INTOPT("fast-server-permil", CLAUSE_SERVER, fast_server_permil, "0", 0,
  1000, SH | IM, "<0..1000>",
  "times in 1000 an upstream server is picked among the fast-server-num fastest (smallest retransmit timeout, at random) instead of among all within 400 ms of the fastest; 0 is off"),
INTOPT("fast-server-num", CLAUSE_SERVER, fast_server_num, "3", 1, 64,
  SH | IM, "<1..64>", "how many of the fastest servers fast-server-permil picks among"),
INTOPT("tcp-mss", CLAUSE_SERVER, tcp_mss, "0", 0, 65535, IM, "<bytes>",
  "the TCP maximum segment size of client connections (TCP_MAXSEG on the listening sockets); 0 for the system default"),
INTOPT("outgoing-tcp-mss", CLAUSE_SERVER, outgoing_tcp_mss, "0", 0, 65535,
  IM, "<bytes>", "the TCP maximum segment size of upstream connections (TCP_MAXSEG); 0 for the system default"),
IGNW("tcp-reuse-timeout", CLAUSE_SERVER,
  "petrel keeps no pool of upstream TCP connections: each query over plain TCP opens its own, closed with its answer (a TLS server keeps one connection while queries come)"),
IGNW("max-reuse-tcp-queries", CLAUSE_SERVER,
  "petrel keeps no pool of upstream TCP connections: each query over plain TCP opens its own, closed with its answer (a TLS server keeps one connection while queries come)"),
INTOPT("tcp-auth-query-timeout", CLAUSE_SERVER, tcp_auth_query_timeout,
  "3000", 1, HOUR_MS, IM, "<msec>",
  "how long a query over TCP to an authoritative server waits for its answer: the TCP retry of a truncated UDP answer waits this long afresh, and a query sent over TCP (tcp-upstream, or a server that truncates) to a server with no measured round trip time (the unknown-server timeout, 376 ms, or more) waits at least this long; a known server keeps its retransmit timeout"),
BOOLOPT("shm-enable", CLAUSE_SERVER, shm_enable, "no", IM,
  "write the statistics into two System V shared memory segments (keys shm-key and shm-key+1, mode 0644) laid out as Unbound 1.17 on 64-bit Linux lays them out, so that unbound-control stats_shm reads them (give it a config with the same num-threads and shm-key); written every statistics-interval seconds, or every second when that is 0; removed when petrel stops"),
INTOPT("shm-key", CLAUSE_SERVER, shm_key, "11777", 1, 2147483646, IM,
  "<number>", "the key of the first shared memory segment of shm-enable (the second is shm-key+1)"),
BOOLOPT("hide-http-user-agent", CLAUSE_SERVER, hide_http_user_agent, "no",
  SH | IM, "send no User-Agent header in the HTTP requests petrel makes (auth-zone and rpz url: downloads); some servers refuse such requests"),
STROPT("http-user-agent", CLAUSE_SERVER, OPT_STR, http_user_agent, "",
  SH | IM, "<string>", "the User-Agent header of the HTTP requests petrel makes (auth-zone and rpz url: downloads); empty for petrel/VERSION"),
STROPT("interface-automatic-ports", CLAUSE_SERVER, OPT_STR,
  interface_automatic_ports, "", IM, "\"<port> ...\"",
  "with interface-automatic, every interface given without a port is listened on at each of these ports (e.g. \"53 853\" for DNS over TLS too, with tls-port 853); empty listens on port:"),
STROPT("log-identity", CLAUSE_SERVER, OPT_STR, log_identity, "", SH | IM,
  "<string>", "the name log lines (and syslog) carry, to tell instances apart; empty for \"petrel\""),
BOOLOPT("log-destaddr", CLAUSE_SERVER, log_destaddr, "no", IM,
  "log-queries and log-replies lines end with the transport, address and port the query came in on (\" on udp|tcp|dot|doh ADDRESS PORT\")"),
BOOLOPT("udp-connect", CLAUSE_SERVER, udp_connect, "yes", IM,
  "connect() each upstream UDP socket to its server: the kernel drops datagrams from any other address or port, and ICMP errors reach the socket"),
INTOPT("unknown-server-time-limit", CLAUSE_SERVER, unknown_server_time_limit,
  "376", 1, HOUR_MS, SH | IM, "<msec>",
  "how long the first query to a server never heard from waits before it is asked again or another is tried (raise it behind a slow link, e.g. 1128; kept within infra-cache-min-rtt and infra-cache-max-rtt)"),
INTOPT("discard-timeout", CLAUSE_SERVER, discard_timeout, "1900", 0,
  HOUR_MS, SH | IM, "<msec>",
  "when the request list is full, clients that waited longer than this are "
  "dropped without an answer to make room (0: never)"),
INTOPT("sock-queue-timeout", CLAUSE_SERVER, sock_queue_timeout, "0", 0,
  86400, IM, "<sec>",
  "UDP queries that waited in the socket longer than this (the kernel's "
  "arrival time) are dropped unread: their clients have given up "
  "(0: off)"),
INTOPT("wait-limit", CLAUSE_SERVER, wait_limit, "1000", 0, 1048576,
  SH | IM, "<number>",
  "most queries of one client address waiting on recursion in each "
  "worker; more are dropped (0: no limit)"),
INTOPT("wait-limit-cookie", CLAUSE_SERVER, wait_limit_cookie, "10000", 0,
  1048576, SH | IM, "<number>",
  "the wait-limit of a client whose query carries a valid DNS cookie "
  "(with answer-cookie)"),
{ "edns-client-string", CLAUSE_SERVER, OPT_NETBLOCK_NUM_LIST, NULL, NULL,
  "192.0.2.0/24 \"petrel\"", 0, 0, NULL, OFF(edns_client_strings),
  SH | IM | OPT_F_TEXT2, "<netblock> <string>",
  "an EDNS option with the string (at most 64 bytes) in the queries to "
  "servers in the netblock (the longest prefix wins)" },
INTOPT("edns-client-string-opcode", CLAUSE_SERVER, edns_client_string_opcode,
  "65001", 0, 65535, SH | IM, "<number>",
  "the EDNS option code of edns-client-string"),
BOOLOPT("dns-error-reporting", CLAUSE_SERVER, dns_error_reporting, "no",
  SH | IM, "when a client's answer fails with an Extended DNS Error and the last "
  "server asked gave a Report-Channel option (RFC 9567), ask "
  "_er.<qtype>.<qname>.<error>._er.<agent> TXT in the background"),
LISTOPT("wait-limit-netblock", CLAUSE_SERVER, OPT_NETBLOCK_NUM_LIST,
  wait_limit_netblock, "192.0.2.0/24 50", SH | IM, "<netblock> <number>",
  "the wait-limit of the client addresses in the netblock, instead of "
  "wait-limit (the longest prefix wins)"),
LISTOPT("wait-limit-cookie-netblock", CLAUSE_SERVER, OPT_NETBLOCK_NUM_LIST,
  wait_limit_cookie_netblock, "192.0.2.0/24 500", SH | IM,
  "<netblock> <number>", "the wait-limit of the client addresses in the "
  "netblock whose query carries a valid DNS cookie, instead of "
  "wait-limit-cookie"),
BOOLOPT("answer-cookie", CLAUSE_SERVER, answer_cookie, "no", SH | IM,
  "answer DNS Cookies (RFC 7873, server cookies as RFC 9018): a query with "
  "a client cookie gets a server cookie back, and a valid server cookie "
  "earns the -cookie limits; a malformed COOKIE option is answered "
  "FORMERR"),
BOOLOPT("upstream-cookies", CLAUSE_SERVER, upstream_cookies, "no", SH | IM,
  "send a DNS client cookie (RFC 7873) to upstream servers over UDP and "
  "TCP, one per server, and the server cookie it gave back; a reply "
  "without our client cookie is ignored as a spoof, BADCOOKIE is asked "
  "again once (petrel's option, not Unbound's)"),
STROPT("cookie-secret", CLAUSE_SERVER, OPT_STR, cookie_secret, "",
  SH | IM | OPT_F_HEX128, "<128-bit hex>",
  "the secret server cookies are made with (32 hex digits; an anycast set "
  "shares it); empty: a random secret made at start"),
STROPT("cookie-secret-file", CLAUSE_SERVER, OPT_PATH, cookie_secret_file,
  "", SH | IM, "<file>", "the cookie secrets, one a line, the active one "
  "first, then the staging one (Unbound's format); it overrides "
  "cookie-secret when it holds one; add_cookie_secret, "
  "activate_cookie_secret and drop_cookie_secret write it"),
BOOLOPT("statistics-inhibit-zero", CLAUSE_SERVER, statistics_inhibit_zero,
  "yes", SH | IM, "with extended-statistics, the counters by query type, class and opcode and by rcode (but NOERROR to REFUSED) that are 0 are left out of petrel-control stats; no prints them all"),
IGNW("ipsecmod-enabled", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("ipsecmod-hook", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("ipsecmod-strict", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("ipsecmod-max-ttl", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("ipsecmod-ignore-bogus", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("ipsecmod-allow", CLAUSE_SERVER,
  "the ipsecmod module is not in petrel (module-config naming it is an error)"),
IGNW("dlv-anchor-file", CLAUSE_SERVER,
  "DNSSEC Lookaside Validation is retired (RFC 8749); Unbound ignores it too"),
IGNW("dlv-anchor", CLAUSE_SERVER,
  "DNSSEC Lookaside Validation is retired (RFC 8749); Unbound ignores it too"),
{ "proxy-protocol-port", CLAUSE_SERVER, OPT_PORT_LIST, NULL, NULL, "8053",
  1, 65535, NULL, OFF(proxy_protocol_ports), IM, "<port>",
  "queries to listening ports on this port number start with a PROXY v2 "
  "header (UDP and TCP, before TLS); its source address is the client's "
  "for access control, views, rate limits and logs, and the proxy's own "
  "address must pass access control too (deny: no answer, refuse: "
  "REFUSED); headers longer than 1024 bytes are refused; may be given "
  "several times" },
LISTOPT("tcp-connection-limit", CLAUSE_SERVER, OPT_NETBLOCK_NUM_LIST,
  tcp_connection_limit, "192.0.2.0/24 10", IM, "<netblock> <limit>",
  "most client TCP (and TLS, HTTPS) connections open at once from the addresses of the netblock (the longest prefix wins); past it a connection is accepted and closed at once (per process with thread-model fork)"),
/* (gone from Unbound, which ignores them: lameness is kept per server
 * and zone in the infrastructure cache, for infra-host-ttl) */
IGNW("infra-cache-lame-size", CLAUSE_SERVER,
  "gone from Unbound, which ignores it too: lameness is kept per server and zone in the infrastructure cache (infra-cache-numhosts)"),
IGNW("infra-lame-ttl", CLAUSE_SERVER,
  "gone from Unbound, which ignores it too: lameness is kept per server and zone for infra-host-ttl"),
IGNW("quic-size", CLAUSE_SERVER,
  "petrel serves no DNS over QUIC (quic-port turning it on is an error)"),
{ "tls-protocols", CLAUSE_SERVER, OPT_STR, "TLSv1.2 TLSv1.3",
  "\"TLSv1.2 TLSv1.3\"", NULL, 0, 0, NULL, OFF(tls_protocols), IM,
  "\"<TLSv1.2 TLSv1.3>\"",
  "the TLS versions DNS over TLS and HTTPS clients may use (petrel offers nothing older than TLS 1.2; a version it does not know stops the start)" },
IGNW("fake-dsa", CLAUSE_SERVER,
  "a switch of Unbound's test harness (testbound), not of the server"),
IGNW("fake-sha1", CLAUSE_SERVER,
  "a switch of Unbound's test harness (testbound), not of the server"),
IGNW("python-script", CLAUSE_IGNORED,
  "petrel has no python module (module-config naming it is an error)"),
IGNW("dynlib-file", CLAUSE_IGNORED,
  "petrel loads no dynamic library modules (module-config naming dynlib is an error)"),
IGNW("dnscrypt-port", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-provider", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-secret-key", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-provider-cert", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-provider-cert-rotated", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-shared-secret-cache-size", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-shared-secret-cache-slabs", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-nonce-cache-size", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("dnscrypt-nonce-cache-slabs", CLAUSE_IGNORED,
  "petrel serves no DNSCrypt (dnscrypt-enable: yes is an error)"),
IGNW("name-v4", CLAUSE_IGNORED,
  "the ipset module is not in petrel (module-config naming it is an error)"),
IGNW("name-v6", CLAUSE_IGNORED,
  "the ipset module is not in petrel (module-config naming it is an error)"),
/* ---- dnstap: ---- */
BOOLOPT("dnstap-enable", CLAUSE_DNSTAP, dnstap_enable, "no", IM,
  "write dnstap messages (Frame Streams, protobuf) to a collector; needs a build with dnstap"),
STROPT("dnstap-socket-path", CLAUSE_DNSTAP, OPT_PATH, dnstap_socket_path,
  "", IM, "<file>",
  "the collector's unix socket (fstrm_capture -u); this or dnstap-ip is needed"),
STROPT("dnstap-ip", CLAUSE_DNSTAP, OPT_STR, dnstap_ip, "", IM,
  "<ip[@port]>", "the collector's TCP address (port 6000 unless given); used instead of the socket path"),
BOOLOPT("dnstap-tls", CLAUSE_DNSTAP, dnstap_tls, "yes", IM,
  "TLS to the dnstap-ip collector, its certificate verified (no: plain TCP); not used with dnstap-socket-path"),
STROPT("dnstap-tls-server-name", CLAUSE_DNSTAP, OPT_STR,
  dnstap_tls_server_name, "", IM, "<name>",
  "the name the collector's certificate must carry, sent as SNI too; if empty, the certificate must carry the dnstap-ip address instead"),
STROPT("dnstap-tls-cert-bundle", CLAUSE_DNSTAP, OPT_PATH,
  dnstap_tls_cert_bundle, "", IM, "<file>",
  "CA certificates (PEM) to verify the collector with; if empty, the system store"),
STROPT("dnstap-tls-client-key-file", CLAUSE_DNSTAP, OPT_PATH,
  dnstap_tls_client_key_file, "", IM, "<file>",
  "private key (PEM) of the client certificate shown to the collector; with dnstap-tls-client-cert-file"),
STROPT("dnstap-tls-client-cert-file", CLAUSE_DNSTAP, OPT_PATH,
  dnstap_tls_client_cert_file, "", IM, "<file>",
  "client certificate chain (PEM, leaf first) shown to the collector; with dnstap-tls-client-key-file"),
BOOLOPT("dnstap-send-identity", CLAUSE_DNSTAP, dnstap_send_identity, "no",
  IM, "put the identity in every message"),
BOOLOPT("dnstap-send-version", CLAUSE_DNSTAP, dnstap_send_version, "no",
  IM, "put the version in every message"),
STROPT("dnstap-identity", CLAUSE_DNSTAP, OPT_STR, dnstap_identity, "", IM,
  "<text>", "the identity to send; empty: the host name"),
STROPT("dnstap-version", CLAUSE_DNSTAP, OPT_STR, dnstap_version, "", IM,
  "<text>", "the version to send; empty: petrel's version"),
BOOLOPT("dnstap-log-resolver-query-messages", CLAUSE_DNSTAP,
  dnstap_log_resolver_query, "no", IM,
  "log the queries petrel sends to authoritative servers (RESOLVER_QUERY)"),
BOOLOPT("dnstap-log-resolver-response-messages", CLAUSE_DNSTAP,
  dnstap_log_resolver_response, "no", IM,
  "log the replies of authoritative servers (RESOLVER_RESPONSE)"),
BOOLOPT("dnstap-log-client-query-messages", CLAUSE_DNSTAP,
  dnstap_log_client_query, "no", IM,
  "log the queries of clients (CLIENT_QUERY)"),
BOOLOPT("dnstap-log-client-response-messages", CLAUSE_DNSTAP,
  dnstap_log_client_response, "no", IM,
  "log the answers sent to clients (CLIENT_RESPONSE)"),
BOOLOPT("dnstap-log-forwarder-query-messages", CLAUSE_DNSTAP,
  dnstap_log_forwarder_query, "no", IM,
  "log the queries sent to forwarders, with RD set (FORWARDER_QUERY)"),
BOOLOPT("dnstap-log-forwarder-response-messages", CLAUSE_DNSTAP,
  dnstap_log_forwarder_response, "no", IM,
  "log the replies of forwarders (FORWARDER_RESPONSE)"),
INTOPT("dnstap-sample-rate", CLAUSE_DNSTAP, dnstap_sample_rate, "0", 0,
  INTMAX, IM, "<number>",
  "log one message in this many (per worker and message type); 0 logs all"),
IGNW("dnstap-bidirectional", CLAUSE_DNSTAP,
  "petrel's dnstap writer (libfstrm) always uses the bidirectional Frame Streams handshake (READY, ACCEPT, START), Unbound's default"),
};

const size_t config_option_count =
	sizeof(config_option_table) / sizeof(config_option_table[0]);

const char *const config_ignored_clauses[] = {
	"python", "dynlib", "dnscrypt", "ipset", NULL };

const struct config_alias config_option_aliases[] = {
	{ "ip-address", "interface" },
	{ "caps-whitelist", "caps-exempt" },
	{ "ssl-upstream", "tls-upstream" },
	{ "ssl-service-key", "tls-service-key" },
	{ "ssl-service-pem", "tls-service-pem" },
	{ "ssl-port", "tls-port" },
	{ "ssl-cert-bundle", "tls-cert-bundle" },
	{ "tls-system-cert", "tls-win-cert" },
	{ "additional-ssl-port", "tls-additional-port" },
	{ "additional-tls-port", "tls-additional-port" },
	{ "tls-additional-ports", "tls-additional-port" },
	{ "forward-ssl-upstream", "forward-tls-upstream" },
	{ "stub-ssl-upstream", "stub-tls-upstream" },
	{ "low-rtt", "fast-server-num" },
	{ "low-rtt-pct", "fast-server-permil" },
	{ "low-rtt-permil", "fast-server-permil" },
	{ "ipsecmod-whitelist", "ipsecmod-allow" },
	{ "primary", "master" },
	{ NULL, NULL }
};

const struct config_option *
config_option_at(size_t i)
{
	if(i >= config_option_count)
		return NULL;
	return &config_option_table[i];
}

const struct config_option *
config_option_find(const char *name, int clause)
{
	size_t i;
	for(i = 0; i < config_option_count; i++) {
		if(strcmp(config_option_table[i].name, name) == 0 &&
			(clause < 0 || config_option_table[i].clause == clause))
			return &config_option_table[i];
	}
	for(i = 0; config_option_aliases[i].alias; i++)
		if(strcmp(config_option_aliases[i].alias, name) == 0)
			return config_option_find(config_option_aliases[i].name,
				clause);
	return NULL;
}

/** Levenshtein distance, bounded: names longer than 63 count as far */
static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), i, j;
	size_t row[64];
	if(la > 63 || lb > 63)
		return (size_t)-1;
	for(j = 0; j <= lb; j++)
		row[j] = j;
	for(i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for(j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i-1] == b[j-1] ? 0 : 1);
			if(up + 1 < best)
				best = up + 1;
			if(row[j-1] + 1 < best)
				best = row[j-1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

const char *
config_option_nearest(const char *name)
{
	static const char *const clauses[] = { "server", "forward-zone",
		"stub-zone", "remote-control", "dnstap", "cachedb", NULL };
	size_t i, best = (size_t)-1;
	const char *found = config_option_table[0].name;
	for(i = 0; clauses[i]; i++) {
		size_t d = edit_distance(name, clauses[i]);
		if(d < best) {
			best = d;
			found = clauses[i];
		}
	}
	for(i = 0; i < config_option_count; i++) {
		size_t d = edit_distance(name, config_option_table[i].name);
		if(d < best) {
			best = d;
			found = config_option_table[i].name;
		}
	}
	return found;
}

int
config_clause_in_file(int clause)
{
	return clause == CLAUSE_SERVER || clause == CLAUSE_REMOTE ||
		clause == CLAUSE_DNSTAP || clause == CLAUSE_CACHEDB;
}

const char *
config_clause_str(int clause)
{
	switch(clause) {
	case CLAUSE_SERVER: return "server:";
	case CLAUSE_FORWARD: return "forward-zone:";
	case CLAUSE_STUB: return "stub-zone:";
	case CLAUSE_REMOTE: return "remote-control:";
	case CLAUSE_DNSTAP: return "dnstap:";
	case CLAUSE_CACHEDB: return "cachedb:";
	case CLAUSE_IGNORED: return "an Unbound clause petrel ignores";
	case CLAUSE_AUTH: return "auth-zone:";
	case CLAUSE_TSIG: return "tsig-key:";
	case CLAUSE_RPZ: return "rpz:";
	case CLAUSE_VIEW: return "view:";
	default: break;
	}
	return "";
}
