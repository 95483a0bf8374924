/*
 * util/config_file.h - petrel's configuration: the struct and the loader.
 *
 * petrel reads Unbound's configuration syntax, so that an unbound.conf
 * written by hand or by OPNsense, OpenWrt or an Ansible role can be pointed
 * at petrel unchanged:
 *
 *	server:
 *		interface: 127.0.0.1		# a comment
 *		access-control: 10.0.0.0/8 allow
 *		msg-cache-size: 64m
 *		local-data: "www.example. A 192.0.2.1"
 *	forward-zone:
 *		name: "example.com."
 *		forward-addr: 192.0.2.53@5353
 *	include: "/etc/petrel/conf.d/[a-z]*.conf"
 *
 * Clauses are server:, forward-zone:, stub-zone:, remote-control:,
 * dnstap:, cachedb:, rpz:, view:, auth-zone: and tsig-key: (the last
 * two: util/config_auth.h). Each
 * line is "key: value" (some keys take two values, e.g. "access-control:
 * netblock action"); values may be quoted with "" or ''; '#' starts a comment
 * outside quotes; include: (glob, relative to directory: if set, else to the
 * folder of the including file) and include-toplevel: work anywhere. Keys
 * that name lists (interface, access-control, local-zone, local-data, ...)
 * accumulate; every forward-zone: or stub-zone: clause makes one zone.
 *
 * Every option is described once, in the table in util/config_options.c:
 * its name, clause, type, default, limits, where the value goes, whether a
 * reload (SIGHUP) applies it, a one-line description and whether petrel
 * implements it. config_create() fills the defaults from that table, the
 * parser stores through it, petrel-checkconf -o prints through it, and
 * example.conf and doc/petrel.conf.5 are generated from it (a test in
 * tests/check_config.c fails when they drift apart).
 *
 * Loading is all or nothing: config_read() parses into a copy and hands the
 * result over only when the whole file (with its includes) is good. A
 * malformed value stops the load with "file:line: what was expected".
 * Options Unbound has and petrel does not are accepted with one warning per
 * option name and load ("file:line: x: not implemented by petrel,
 * ignored"), and so are the options whose row is not marked implemented;
 * the Unbound clauses petrel lacks (python:, dynlib:, ...) are
 * skipped whole, with one warning.
 *
 * Ownership: a struct config_file owns every string and list element hanging
 * off it; config_delete() frees them all. Nothing here is thread safe: the
 * daemon reads the config at start-up and at reload, while workers are
 * paused, and hands each worker the values it needs.
 */
#ifndef UTIL_CONFIG_FILE_H
#define UTIL_CONFIG_FILE_H

#include <stddef.h>
#include <stdint.h>
#include "util/netaddr.h"

struct config_auth;
struct config_tsig;

/** a list of strings, in the order they appeared in the file */
struct config_strlist {
	/** next element, or NULL */
	struct config_strlist *next;
	/** the string (malloced) */
	char *str;
};

/** a list of addresses (ip or ip@port), in file order */
struct config_addrlist {
	/** next element, or NULL */
	struct config_addrlist *next;
	/** the address; the port is the default (53) unless given with '@' */
	struct netaddr addr;
	/** the text as written in the file (malloced), e.g. for printing */
	char *str;
	/** forward-addr: https://ip[@port]/path[#name]: the server is
	 * asked over DNS over HTTPS at this path (malloced); else NULL */
	char *doh_path;
};

/** a list of netblocks (private-address), in file order */
struct config_netblocklist {
	/** next element, or NULL */
	struct config_netblocklist *next;
	/** the netblock; an address without /prefix is a host */
	struct netblock block;
};

/** access-control actions, as in Unbound */
enum config_acl_action {
	/** drop the query silently */
	ACL_DENY = 0,
	/** answer REFUSED */
	ACL_REFUSE,
	/** serve recursive queries (and cached answers) */
	ACL_ALLOW,
	/** allow, and serve queries without the RD bit as if it were set */
	ACL_ALLOW_SETRD,
	/** allow, also non-recursive (cache snooping) queries */
	ACL_ALLOW_SNOOP,
	/** drop, except for queries to local data */
	ACL_DENY_NON_LOCAL,
	/** refuse, except for queries to local data */
	ACL_REFUSE_NON_LOCAL,
	/** allow, but over UDP only queries with a valid DNS cookie
	 * (others get BADCOOKIE, or REFUSED with TC without a cookie) */
	ACL_ALLOW_COOKIE
};

/** one access-control: line */
struct config_acl {
	/** next element, or NULL */
	struct config_acl *next;
	/** the netblock it applies to */
	struct netblock block;
	/** what to do with queries from it */
	enum config_acl_action action;
};

/** one local-zone: line: a name and its type word */
struct config_localzone {
	/** next element, or NULL */
	struct config_localzone *next;
	/** the zone name as written, with a trailing dot added (malloced) */
	char *name;
	/** the type word as written (static, transparent, redirect, deny,
	 * refuse, typetransparent, nodefault, always_nxdomain, ...),
	 * one of config_localzone_types (malloced) */
	char *type;
};

/** one forward-zone: or stub-zone: clause */
struct config_stub {
	/** next zone, or NULL */
	struct config_stub *next;
	/** the zone name with a trailing dot added (malloced); "." for root */
	char *name;
	/** forward-addr: or stub-addr: values; port 53 unless given */
	struct config_addrlist *addrs;
	/** forward-host: or stub-host: names, resolved by the iterator */
	struct config_strlist *hosts;
	/** forward-first: or stub-first: try normal resolution when the
	 * configured servers fail */
	int first;
	/** stub-prime: prime the stub's NS set (stub zones only; 0 for
	 * forward zones) */
	int prime;
	/** forward-tls-upstream: or stub-tls-upstream: (or the global
	 * tls-upstream): the servers are asked over TLS only, port 853
	 * unless given, the certificate verified against the name after
	 * '#' in the address (or the IP address) */
	int tls;
	/** forward-tcp-upstream: or stub-tcp-upstream: the servers are asked
	 * over TCP only */
	int tcp;
	/** forward-no-cache: or stub-no-cache: answers from the zone are
	 * not cached */
	int no_cache;
	/** line of the clause header in its file, for later messages */
	int line;
};

/** one line of the rpz: or view: clauses, or one of the view, tag and
 * response-ip options of server:, as written; front/policy.c checks and
 * uses them (and names file:line when one is bad) */
struct config_policyline {
	/** next line, in file order, or NULL */
	struct config_policyline *next;
	/** CLAUSE_SERVER, CLAUSE_RPZ or CLAUSE_VIEW */
	int clause;
	/** rpz: and view: lines: the number of the clause (0 for the first
	 * clause of its kind); -1 in server: */
	int block;
	/** the option name ("rpz" / "view" for the clause header line,
	 * which has no values) (malloced) */
	char *key;
	/** file the line is in (malloced) */
	char *file;
	/** its line number */
	int line;
	/** number of values */
	int n;
	/** the values, quotes removed (n malloced strings) */
	char **v;
};

/** thread-model: values */
enum config_thread_model {
	/** POSIX threads, one shared cache */
	THREAD_MODEL_PTHREADS = 0,
	/** Solaris threads, one shared cache */
	THREAD_MODEL_SOLARIS,
	/** forked worker processes, a cache each */
	THREAD_MODEL_FORK
};

/** event-backend: values */
enum config_event_backend {
	/** the built-in select(2) loop */
	EVENT_BACKEND_SELECT = 0,
	/** libevent (epoll, event ports, kqueue) */
	EVENT_BACKEND_LIBEVENT,
	/** io_uring through liburing (Linux) */
	EVENT_BACKEND_URING
};

/**
 * The configuration. Every member is set from the option of the same name
 * (dashes become underscores); "ms" marks milliseconds, "s" seconds.
 * Booleans are 0 or 1. Strings are malloced and never NULL ("" when unset).
 */
struct config_file {
	/* ---- server: ---- */
	/** interface: addresses to listen on (ip or ip@port); the default is
	 * 127.0.0.1 and ::1 when none is given (see config_interfaces) */
	struct config_strlist *interfaces;
	/** port: the port to listen on (default 53) */
	int port;
	/** interface-automatic: bind the wildcard and answer from the address
	 * the query came to (IP_PKTINFO) */
	int interface_automatic;
	/** xdp-interface: answer cached queries arriving on this interface
	 * over AF_XDP ("": off); xdp-batch-size, xdp-ring-size */
	char *xdp_interface;
	int xdp_batch_size;
	int xdp_ring_size;
	/** access-control: netblock and action lines, in file order (the
	 * resolver uses the longest matching netblock); when empty, the
	 * resolver allows localhost only and refuses everything else */
	struct config_acl *acls;
	/** num-threads: worker count */
	int num_threads;
	/** thread-model: pthreads, solaris or fork (enum config_thread_model) */
	int thread_model;
	/** event-backend: select, libevent or io_uring (enum
	 * config_event_backend) */
	int event_backend;
	/** so-reuseport: one listening socket per worker with SO_REUSEPORT */
	int so_reuseport;
	/** so-rcvbuf: SO_RCVBUF for the listening UDP sockets; 0 = OS default */
	size_t so_rcvbuf;
	/** so-sndbuf: SO_SNDBUF for the listening UDP sockets; 0 = OS default */
	size_t so_sndbuf;
	/** outgoing-range: outgoing UDP sockets per worker (the daemon lowers
	 * it to fit FD_SETSIZE with the select backend) */
	int outgoing_range;
	/** outgoing-interface: source addresses for upstream queries */
	struct config_strlist *outgoing_interfaces;
	/** num-queries-per-thread: in-flight queries per worker */
	int num_queries_per_thread;
	/** jostle-timeout: ms after which a query may be replaced when full */
	int jostle_timeout;
	/** proxy-protocol-port: ports whose queries come with a PROXY v2
	 * header (the numbers as text) */
	struct config_strlist *proxy_protocol_ports;
	/** sock-queue-timeout: seconds a UDP query may wait in the socket
	 * (0: off) */
	int sock_queue_timeout;
	/** discard-timeout: ms after which a waiting client is dropped when
	 * the request list is full (0: never) */
	int discard_timeout;
	/** wait-limit: most clients of one address waiting on recursion
	 * per worker (0: no limit) */
	int wait_limit;
	/** wait-limit-cookie: wait-limit for clients with a valid DNS
	 * cookie */
	int wait_limit_cookie;
	/** wait-limit-netblock: "netblock number" lines, the wait-limit of
	 * the addresses in the netblock (longest prefix wins) */
	struct config_strlist *wait_limit_netblock;
	/** wait-limit-cookie-netblock: the same for clients with a valid
	 * cookie */
	struct config_strlist *wait_limit_cookie_netblock;
	/** answer-cookie: answer DNS Cookies (RFC 7873, RFC 9018) */
	int answer_cookie;
	/** upstream-cookies: send client cookies to upstream servers */
	int upstream_cookies;
	/** cookie-secret: the server secret, 32 hex digits, or NULL (a
	 * random one) */
	char *cookie_secret;
	/** cookie-secret-file: the file of active and staging secrets, or
	 * NULL */
	char *cookie_secret_file;
	/** incoming-num-tcp: client TCP connections per worker */
	int incoming_num_tcp;
	/** outgoing-num-tcp: upstream TCP connections per worker */
	int outgoing_num_tcp;
	/** tcp-idle-timeout: ms an idle client TCP connection is kept */
	int tcp_idle_timeout;
	/** edns-buffer-size: EDNS buffer size advertised upstream */
	int edns_buffer_size;
	/** max-udp-size: largest UDP answer sent to clients */
	int max_udp_size;
	/** msg-cache-size: bytes for the message cache */
	size_t msg_cache_size;
	/** msg-cache-slabs: slabs of the message cache, a power of 2 */
	int msg_cache_slabs;
	/** shared-cache: with thread-model fork, one message cache in a
	 * shared mapping for every worker process */
	int shared_cache;
	/** rrset-cache-size: bytes for the RRset cache */
	size_t rrset_cache_size;
	/** rrset-cache-slabs: slabs of the RRset cache, a power of 2 */
	int rrset_cache_slabs;
	/** cache-min-ttl: s, lower bound on cached TTLs */
	int cache_min_ttl;
	/** cache-max-ttl: s, upper bound on cached TTLs */
	int cache_max_ttl;
	/** cache-max-negative-ttl: s, upper bound on negative answers */
	int cache_max_negative_ttl;
	/** cache-min-negative-ttl: s, lower bound on negative answers; 0 =
	 * cache-min-ttl applies */
	int cache_min_negative_ttl;
	/** infra-host-ttl: s an upstream server's RTT data is kept */
	int infra_host_ttl;
	/** infra-cache-slabs: slabs of the infrastructure cache, a power
	 * of 2 */
	int infra_cache_slabs;
	/** prefetch: refresh popular entries before they expire */
	int prefetch;
	/** serve-expired: answer from expired cache entries */
	int serve_expired;
	/** serve-expired-ttl: s past expiry an entry may be served; 0 = no
	 * limit */
	int serve_expired_ttl;
	/** serve-expired-reply-ttl: TTL put in expired answers */
	int serve_expired_reply_ttl;
	/** serve-expired-client-timeout: ms to wait for a fresh answer before
	 * serving an expired one; 0 = serve expired at once */
	int serve_expired_client_timeout;
	/** root-hints: files of root servers, each read with the class of
	 * its records (repeatable; none = the built-in root servers for
	 * class IN, which stay unless a file gives class IN hints) */
	struct config_strlist *root_hints;
	/** module-config: the modules a query runs through, in order
	 * (names of the module list in front/modstack.c, checked when
	 * read through config_check_modules()) */
	char *module_config;
	/** qname-minimisation: send minimal names upstream (RFC 9156) */
	int qname_minimisation;
	/** qname-minimisation-strict: never fall back to the full name */
	int qname_minimisation_strict;
	/** use-caps-for-id: 0x20 random letter case in upstream queries */
	int use_caps_for_id;
	/** caps-exempt: domains sent without 0x20 */
	struct config_strlist *caps_exempt;
	/** harden-glue: only trust glue inside the server's zone */
	int harden_glue;
	/** target-fetch-policy: per dependency depth, how many NS names
	 * without addresses to look up ahead ("-1" all, "0" on demand);
	 * the number of values is the deepest dependency followed
	 * (iterator/iter_env.c parses it) */
	char *target_fetch_policy;
	/** iter-scrub-promiscuous: drop the NS set from the authority
	 * section of answers and errors */
	int iter_scrub_promiscuous;
	/** harden-unverified-glue: only in-zone glue is used at once */
	int harden_unverified_glue;
	/** disable-dnssec-lame-check: no dnssec-lame detection */
	int disable_dnssec_lame_check;
	/** do-nat64: reach IPv4 servers through NAT64 (over IPv6) */
	int do_nat64;
	/** nat64-prefix: the NAT64 prefix (ip6/len), or NULL for the
	 * dns64-prefix */
	char *nat64_prefix;
	/** outbound-msg-retry: most queries to one server for a question */
	int outbound_msg_retry;
	/** iter-scrub-cname: most CNAME and DNAME records kept of a reply's
	 * answer section */
	int iter_scrub_cname;
	/** iter-scrub-ns: most NS records kept of one NS set in a reply */
	int iter_scrub_ns;
	/** max-query-restarts: most CNAME/DNAME links followed for one
	 * question */
	int max_query_restarts;
	/** max-sent-count: most upstream queries for one question per
	 * delegation (counted again after a referral or a CNAME) */
	int max_sent_count;
	/** harden-below-nxdomain: NXDOMAIN for names below a cached
	 * NXDOMAIN (RFC 8020) */
	int harden_below_nxdomain;
	/** deny-any: ANY queries get an empty NOERROR */
	int deny_any;
	/** rrset-roundrobin: rotate the records of each RRset in answers */
	int rrset_roundrobin;
	/** log-servfail: log why a query is answered SERVFAIL */
	int log_servfail;
	/** log-local-actions: log a line for each local-zone answer */
	int log_local_actions;
	/** log-tag-queryreply: 'query' and 'reply' in log-queries and
	 * log-replies lines */
	int log_tag_queryreply;
	/** do-not-query-localhost: never send upstream queries to 127/8, ::1 */
	int do_not_query_localhost;
	/** do-ip4: use IPv4 */
	int do_ip4;
	/** do-ip6: use IPv6 */
	int do_ip6;
	/** do-udp: use UDP */
	int do_udp;
	/** do-tcp: use TCP */
	int do_tcp;
	/** tcp-upstream: query upstream over TCP only */
	int tcp_upstream;
	/** tls-upstream (ssl-upstream): every forward and stub zone is TLS */
	int tls_upstream;
	/** tls-cert-bundle (ssl-cert-bundle): PEM CA file for upstream TLS;
	 * "" = the system store */
	char *tls_cert_bundle;
	/** ssl-cert-bundle: the old name; used when tls_cert_bundle is "" */
	char *ssl_cert_bundle;
	/** tls-system-cert (tls-win-cert): the system store as well */
	int tls_system_cert;
	/** tls-use-sni: send the upstream's auth name as SNI */
	int tls_use_sni;
	/** tls-service-key: PEM key for DNS over TLS; "" = no DoT */
	char *tls_service_key;
	/** ssl-service-key: the old name, used when tls_service_key is "" */
	char *ssl_service_key;
	/** tls-service-pem: PEM certificate chain for DNS over TLS */
	char *tls_service_pem;
	/** ssl-service-pem: the old name, used when tls_service_pem is "" */
	char *ssl_service_pem;
	/** tls-port (ssl-port): interfaces on this port serve DNS over TLS */
	int tls_port;
	/** tls-ciphers: TLS 1.2 cipher list, "" = OpenSSL's default */
	char *tls_ciphers;
	/** tls-ciphersuites: TLS 1.3 suites, "" = OpenSSL's default */
	char *tls_ciphersuites;
	/** pad-responses: pad DoT answers to padded queries */
	int pad_responses;
	/** pad-responses-block-size: bytes */
	int pad_responses_block_size;
	/** pad-queries: pad queries to TLS upstreams */
	int pad_queries;
	/** pad-queries-block-size: bytes */
	int pad_queries_block_size;
	/** https-port: interfaces on this port serve DNS over HTTPS */
	int https_port;
	/** http-endpoint: the path of DoH queries (/dns-query) */
	char *http_endpoint;
	/** http-max-streams: concurrent HTTP/2 streams per connection */
	int http_max_streams;
	/** http-query-buffer-size: bytes of queries held, per listener and
	 * worker, over its connections */
	size_t http_query_buffer_size;
	/** http-response-buffer-size: bytes of answers held likewise */
	size_t http_response_buffer_size;
	/** http-nodelay: TCP_NODELAY on DoH connections */
	int http_nodelay;
	/** http-notls-downstream: https-port serves h2c (no TLS) */
	int http_notls_downstream;
	/** ddr: answer _dns.resolver.arpa SVCB (RFC 9462) when DoT or DoH
	 * is served */
	int ddr;
	/** ddr-target-name: the TargetName; "" = the certificate's name */
	char *ddr_target_name;
	/** edns-tcp-keepalive: answer the RFC 7828 option on TCP and TLS */
	int edns_tcp_keepalive;
	/** edns-tcp-keepalive-timeout: ms, advertised and applied */
	int edns_tcp_keepalive_timeout;
	/** tls-session-ticket-keys: 80-byte key files, the first encrypts */
	struct config_strlist *tls_session_ticket_keys;
	/** local-zone: name and type lines */
	struct config_localzone *local_zones;
	/** local-data: resource records in presentation format (each checked
	 * with ldns at load) */
	struct config_strlist *local_data;
	/** local-data-ptr: "address name" or "address ttl name" lines, as
	 * written (checked at load) */
	struct config_strlist *local_data_ptr;
	/** private-address: netblocks stripped from upstream answers */
	struct config_netblocklist *private_addresses;
	/** outgoing-port-permit and outgoing-port-avoid, in line order:
	 * "+low-high" or "-low-high" */
	struct config_strlist *outgoing_ports;
	/** infra-cache-numhosts: servers the infrastructure cache holds */
	int infra_cache_numhosts;
	/** infra-cache-min-rtt, infra-cache-max-rtt: rto limits, ms */
	int infra_cache_min_rtt, infra_cache_max_rtt;
	/** prefer-ip4, prefer-ip6: ask servers of that family first */
	int prefer_ip4, prefer_ip6;
	/** serve-original-ttl: answers carry the TTLs as stored, not
	 * counted down */
	int serve_original_ttl;
	/** serve-expired-ttl-reset: a failed refresh starts the expired
	 * entry's serve-expired-ttl window again */
	int serve_expired_ttl_reset;
	/** harden-large-queries: drop queries over 512 bytes */
	int harden_large_queries;
	/** harden-short-bufsize: always yes (OPT_F_ONLY_YES) */
	int harden_short_bufsize;
	/** harden-referral-path: fetch the NS set and in-zone server
	 * addresses of each referral's zone in the background */
	int harden_referral_path;
	/** harden-unknown-additional: 0 passes records of types petrel
	 * does not use from the authority and additional sections of an
	 * upstream answer on to the client */
	int harden_unknown_additional;
	/** infra-keep-probing: always yes (OPT_F_ONLY_YES) */
	int infra_keep_probing;
	/** ede: Extended DNS Errors in answers */
	int ede;
	/** ede-serve-expired: EDE 3 / 19 in expired answers (with ede) */
	int ede_serve_expired;
	/** do-not-query-address: netblocks the iterator never queries */
	struct config_netblocklist *do_not_query_addresses;
	/** private-domain: names allowed to hold private addresses */
	struct config_strlist *private_domains;
	/** trust-anchor: DS or DNSKEY records (presentation format) */
	struct config_strlist *trust_anchors;
	/** trust-anchor-file: zone-file format DS/DNSKEY files */
	struct config_strlist *trust_anchor_files;
	/** trusted-keys-file: BIND trusted-keys files */
	struct config_strlist *trusted_keys_files;
	/** auto-trust-anchor-file: RFC 5011 managed anchor files */
	struct config_strlist *auto_trust_anchor_files;
	/** domain-insecure: negative trust anchors */
	struct config_strlist *domain_insecure;
	/** val-bogus-ttl: seconds a bogus result is kept */
	int val_bogus_ttl;
	/** val-max-restart: times a bogus answer is asked again of other
	 * servers (those that gave it excluded) before it is final */
	int val_max_restart;
	/** val-sig-skew-min: least clock skew allowed on signatures, s */
	int val_sig_skew_min;
	/** val-sig-skew-max: most clock skew allowed on signatures, s */
	int val_sig_skew_max;
	/** val-override-date: the validator's clock for signature dates, as
	 * written: "0" the real clock, "-1" dates not checked, seconds since
	 * the epoch or YYYYMMDDHHMMSS (config_parse_date() reads it) */
	char *val_override_date;
	/** val-nsec3-keysize-iterations: "keysize iterations ..." or one
	 * number: above the largest, NSEC3 is insecure (RFC 9276) */
	char *val_nsec3_keysize_iterations;
	/** key-cache-size: memory for the validator's key cache */
	size_t key_cache_size;
	/** key-cache-slabs: slabs of the key cache */
	int key_cache_slabs;
	/** val-permissive-mode: bogus answers are given (without AD) */
	int val_permissive_mode;
	/** zonemd-permissive-mode: a failed ZONEMD check of an auth-zone
	 *  is logged, the zone used */
	int zonemd_permissive_mode;
	/** val-log-level: 0 none, 1 a line per bogus answer, 2 more */
	int val_log_level;
	/** aggressive-nsec: answer from validated NSEC (RFC 8198) */
	int aggressive_nsec;
	/** trust-anchor-signaling: RFC 8145 key tag queries */
	int trust_anchor_signaling;
	/** root-key-sentinel: RFC 8509 sentinel labels */
	int root_key_sentinel;
	/** add-holddown: RFC 5011 add hold-down, seconds */
	int add_holddown;
	/** del-holddown: RFC 5011 delete hold-down, seconds */
	int del_holddown;
	/** keep-missing: seconds a missing RFC 5011 key is kept; 0 ever */
	int keep_missing;
	/** permit-small-holddown: RFC 5011 timers may be under an hour */
	int permit_small_holddown;
	/** harden-dnssec-stripped: unsigned data under a secure anchor is
	 * bogus */
	int harden_dnssec_stripped;
	/** harden-algo-downgrade: every DS algorithm must sign */
	int harden_algo_downgrade;
	/** prefetch-key: fetch the DNSKEY set when a referral has its DS */
	int prefetch_key;
	/** ignore-cd-flag: validate even when the client sets CD */
	int ignore_cd_flag;
	/** disable-edns-do: no DO bit upstream; a DO client's answer goes
	 * without EDNS */
	int disable_edns_do;
	/** val-clean-additional: drop unvalidated additional records from
	 * secure answers */
	int val_clean_additional;
	/** hide-identity: refuse id.server and hostname.bind */
	int hide_identity;
	/** hide-version: refuse version.server and version.bind */
	int hide_version;
	/** hide-trustanchor: do not answer trustanchor.unbound CH TXT */
	int hide_trustanchor;
	/** identity: answer to id.server; "" = the host name */
	char *identity;
	/** version: answer to version.server; "" = the package version */
	char *version;
	/** nsid: the NSID (RFC 5001) answered to clients that ask, as
	 * written: "ascii_text" or hex; "" none (config_nsid() reads it) */
	char *nsid;
	/** edns-client-string: "netblock text" lines: the text goes in an
	 * EDNS option of the queries to servers in the netblock */
	struct config_strlist *edns_client_strings;
	/** edns-client-string-opcode: that option's code */
	int edns_client_string_opcode;
	/** dns-error-reporting: send DNS error reports (RFC 9567) to the
	 * agent a server names in its Report-Channel option */
	int dns_error_reporting;
	/** minimal-responses: leave out authority and additional data */
	int minimal_responses;
	/** verbosity: log level 0..5 */
	int verbosity;
	/** logfile: file to log to; "" = stderr (or syslog) */
	char *logfile;
	/** use-syslog: log to syslog */
	int use_syslog;
	/** log-queries: log every query */
	int log_queries;
	/** log-replies: log every reply */
	int log_replies;
	/** log-time-ascii: readable local time in log lines */
	int log_time_ascii;
	/** log-time-iso: ISO 8601 time in log lines */
	int log_time_iso;
	/** log-thread-id: the system thread id in log lines */
	int log_thread_id;
	/** use-systemd: accepted; petrel notifies systemd when asked to */
	int use_systemd;
	/** unblock-lan-zones: no default local zones for private reverse
	 * zones */
	int unblock_lan_zones;
	/** insecure-lan-zones: the validator treats the same reverse zones
	 * (dns/as112.h) as domain-insecure */
	int insecure_lan_zones;
	/** pidfile: file to write the pid to; "" = none */
	char *pidfile;
	/** chroot: directory to chroot to; "" = none */
	char *chroot;
	/** username: user to change to after binding; "" = stay */
	char *username;
	/** directory: working directory; "" = stay */
	char *directory;
	/** do-daemonize: detach into the background */
	int do_daemonize;
	/** statistics-interval: s between statistics log lines; 0 = off */
	int statistics_interval;
	/** statistics-cumulative: do not reset counters when printed */
	int statistics_cumulative;
	/** extended-statistics: keep per-type and per-rcode counters */
	int extended_statistics;
	/** unwanted-reply-threshold: unwanted replies before defensive
	 * action; 0 = off */
	int unwanted_reply_threshold;
	/** http-metrics-interface: ip@port for the Prometheus endpoint;
	 * "" = off */
	char *http_metrics_interface;

	/* ---- rate limits and DNS64 (util/ratelimit.h, dns64/) ---- */
	/** ratelimit: queries per second sent to one zone's servers; 0 off */
	int ratelimit;
	/** max-global-quota: most upstream queries one client question and
	 * its sub-queries may send; 0 no limit */
	int max_global_quota;
	/** ratelimit-size: bytes for the zone rate table */
	size_t ratelimit_size;
	/** ratelimit-slabs: slabs of the zone rate table, a power of 2 */
	int ratelimit_slabs;
	/** ratelimit-factor: 1 in this many limited queries still goes out;
	 * 0 none */
	int ratelimit_factor;
	/** ratelimit-backoff: the rate over a 2 s window, limited queries
	 * counted */
	int ratelimit_backoff;
	/** ratelimit-for-domain: "name. qps" lines (the zone itself) */
	struct config_strlist *ratelimit_for_domain;
	/** ratelimit-below-domain: "name. qps" lines (zones below the name) */
	struct config_strlist *ratelimit_below_domain;
	/** ip-ratelimit: queries per second one client address may send;
	 * 0 off */
	int ip_ratelimit;
	/** ip-ratelimit-cookie: ip-ratelimit for clients with a valid DNS
	 * cookie; 0 no limit for them */
	int ip_ratelimit_cookie;
	/** ip-ratelimit-size: bytes for the client rate table */
	size_t ip_ratelimit_size;
	/** ip-ratelimit-slabs: slabs of the client rate table */
	int ip_ratelimit_slabs;
	/** ip-ratelimit-factor: 1 in this many limited queries is still
	 * answered; 0 none */
	int ip_ratelimit_factor;
	/** ip-ratelimit-backoff: as ratelimit-backoff, per client */
	int ip_ratelimit_backoff;
	/** dns64-prefix: the IPv6 prefix of synthesized addresses */
	char *dns64_prefix;
	/** dns64-synthall: synthesize even when AAAA records exist */
	int dns64_synthall;
	/** dns64-ignore-aaaa: names whose AAAA records are ignored */
	struct config_strlist *dns64_ignore_aaaa;
	/** send-client-subnet: upstream servers that get ECS */
	struct config_netblocklist *send_client_subnet;
	/** client-subnet-zone: zones whose queries carry ECS */
	struct config_strlist *client_subnet_zone;
	/** client-subnet-always-forward: a client's ECS goes to every
	 * server, and its queries skip the message cache */
	int client_subnet_always_forward;
	/** client-subnet-opcode: the ECS option code */
	int client_subnet_opcode;
	/** max-client-subnet-ipv4/6: longest source prefix sent */
	int max_client_subnet_ipv4, max_client_subnet_ipv6;
	/** min-client-subnet-ipv4/6: shorter client prefixes are refused */
	int min_client_subnet_ipv4, min_client_subnet_ipv6;
	/** max-ecs-tree-size-ipv4/6: most subnets kept per question */
	int max_ecs_tree_size_ipv4, max_ecs_tree_size_ipv6;

	/* ---- Unbound options once ignored (issue 31, Options) ---- */
	/** udp-connect: connect() each upstream UDP socket to its server */
	int udp_connect;
	/** ip-freebind: bind listening sockets to absent addresses */
	int ip_freebind;
	/** ip-transparent: bind listening sockets to non-local addresses */
	int ip_transparent;
	/** ip-dscp: the DSCP (0-63) of every packet sent, 0 for none */
	int ip_dscp;
	/** tcp-mss: the TCP MSS of client connections, 0 for the default */
	int tcp_mss;
	/** outgoing-tcp-mss: the TCP MSS of upstream connections, 0 for the
	 * default */
	int outgoing_tcp_mss;
	/** log-identity: the name in syslog lines, "" for the program's */
	char *log_identity;
	/** log-destaddr: log-queries/log-replies name the address asked */
	int log_destaddr;
	/** statistics-inhibit-zero: stats leave out counters that are 0 */
	int statistics_inhibit_zero;
	/** shm-enable: statistics in System V shared memory */
	int shm_enable;
	/** shm-key: the key of the first segment (the second is +1) */
	int shm_key;
	/** udp-upstream-without-downstream: with do-udp: no, still query
	 * upstream over UDP */
	int udp_upstream_without_downstream;
	/** http-user-agent: "" for petrel/VERSION */
	char *http_user_agent;
	/** hide-http-user-agent: send no User-Agent header */
	int hide_http_user_agent;
	/** tls-protocols: the TLS versions served ("TLSv1.2 TLSv1.3") */
	char *tls_protocols;
	/** neg-cache-size: bytes of the aggressive NSEC store */
	size_t neg_cache_size;
	/** unknown-server-time-limit: ms a server never heard from gets */
	int unknown_server_time_limit;
	/** interface-automatic-ports: "port port ..." ("" for port:) */
	char *interface_automatic_ports;
	/** delay-close: ms a timed-out query's UDP socket stays open */
	int delay_close;
	/** tcp-auth-query-timeout: ms a query over TCP to an
	 * authoritative server waits (services/outside_network.h) */
	int tcp_auth_query_timeout;
	/** fast-server-permil: times in 1000 the fastest servers are
	 * picked (0 off) */
	int fast_server_permil;
	/** fast-server-num: how many fastest servers */
	int fast_server_num;
	/** stream-wait-size: bytes of TCP answers queued per listening
	 * point and worker, 0 no limit */
	size_t stream_wait_size;
	/** msg-buffer-size: the largest message over TCP and TLS */
	int msg_buffer_size;
	/** tcp-connection-limit: "netblock number" lines */
	struct config_strlist *tcp_connection_limit;

	/* ---- forward-zone: and stub-zone: ---- */
	/** forward zones, in file order */
	struct config_stub *forwards;
	/** stub zones, in file order */
	struct config_stub *stubs;
	/** auth-zone: clauses, in file order (util/config_auth.h) */
	struct config_auth *auths;
	/** tsig-key: clauses, in file order */
	struct config_tsig *tsig_keys;

	/* ---- rpz:, view: and the policy options of server: ---- */
	/** the lines of every rpz: and view: clause and the server:
	 * options access-control-view, interface-view, the tag options and
	 * response-ip, in file order (front/policy.h) */
	struct config_policyline *policy_lines;

	/* ---- remote-control: ---- */
	/** control-enable: run the control server */
	int control_enable;
	/** control-interface: addresses, or unix socket paths starting with
	 * '/'; default 127.0.0.1 and ::1 when none is given */
	struct config_strlist *control_interfaces;
	/** control-port: TCP port of the control server */
	int control_port;
	/** control-use-cert: TLS with certificates (else plain, only
	 * sensible for localhost and unix sockets) */
	int control_use_cert;
	/** server-key-file: the control server's private key */
	char *server_key_file;
	/** server-cert-file: the control server's certificate */
	char *server_cert_file;
	/** control-key-file: petrel-control's private key */
	char *control_key_file;
	/** control-cert-file: petrel-control's certificate */
	char *control_cert_file;

	/* ---- dnstap: ---- */
	/** dnstap-enable: write dnstap messages */
	int dnstap_enable;
	/** dnstap-socket-path: the collector's unix socket, or "" */
	char *dnstap_socket_path;
	/** dnstap-ip: the collector's TCP address (ip[@port]), or "" */
	char *dnstap_ip;
	/** dnstap-tls: TLS to the dnstap-ip collector */
	int dnstap_tls;
	/** dnstap-tls-server-name: the name the collector's certificate
	 * must carry (and SNI); "" to check its IP address instead */
	char *dnstap_tls_server_name;
	/** dnstap-tls-cert-bundle: CA certificates (PEM) that the
	 * collector's chain must end in; "" for the system store */
	char *dnstap_tls_cert_bundle;
	/** dnstap-tls-client-key-file: the key of the client certificate,
	 * or "" for none */
	char *dnstap_tls_client_key_file;
	/** dnstap-tls-client-cert-file: the client certificate chain (PEM)
	 * shown to the collector, or "" for none */
	char *dnstap_tls_client_cert_file;
	/** dnstap-send-identity: identity in every message */
	int dnstap_send_identity;
	/** dnstap-send-version: version in every message */
	int dnstap_send_version;
	/** dnstap-identity: "" for the host name */
	char *dnstap_identity;
	/** dnstap-version: "" for petrel's version */
	char *dnstap_version;
	/** dnstap-log-resolver-query-messages */
	int dnstap_log_resolver_query;
	/** dnstap-log-resolver-response-messages */
	int dnstap_log_resolver_response;
	/** dnstap-log-client-query-messages */
	int dnstap_log_client_query;
	/** dnstap-log-client-response-messages */
	int dnstap_log_client_response;
	/** dnstap-log-forwarder-query-messages */
	int dnstap_log_forwarder_query;
	/** dnstap-log-forwarder-response-messages */
	int dnstap_log_forwarder_response;
	/** dnstap-sample-rate: log 1 message in this many; 0 all */
	int dnstap_sample_rate;
	/* ---- cachedb: ---- */
	/** backend: the store (0: redis) */
	int cachedb_backend;
	/** secret-seed: mixed into every key */
	char *secret_seed;
	/** cachedb-no-store: read only */
	int cachedb_no_store;
	/** cachedb-check-when-serve-expired */
	int cachedb_check_when_serve_expired;
	/** redis-server-host */
	char *redis_server_host;
	/** redis-server-port */
	int redis_server_port;
	/** redis-server-path: unix socket, "" for none */
	char *redis_server_path;
	/** redis-server-password, "" for none */
	char *redis_server_password;
	/** redis-timeout, ms */
	int redis_timeout;
	/** redis-command-timeout, ms (0: redis-timeout) */
	int redis_command_timeout;
	/** redis-connect-timeout, ms (0: redis-timeout) */
	int redis_connect_timeout;
	/** redis-expire-records */
	int redis_expire_records;
	/** redis-logical-db */
	int redis_logical_db;
	/** redis-replica-server-host, "" for none */
	char *redis_replica_server_host;
	/** redis-replica-server-port */
	int redis_replica_server_port;
	/** redis-replica-server-path, "" for none */
	char *redis_replica_server_path;
	/** redis-replica-server-password, "" for none */
	char *redis_replica_server_password;
	/** redis-replica-timeout, ms */
	int redis_replica_timeout;
	/** redis-replica-command-timeout, ms (0: redis-replica-timeout) */
	int redis_replica_command_timeout;
	/** redis-replica-connect-timeout, ms (0: redis-replica-timeout) */
	int redis_replica_connect_timeout;
	/** redis-replica-logical-db */
	int redis_replica_logical_db;

	/* ---- bookkeeping, not options ---- */
	/** the file config_read() loaded, "" before (malloced) */
	char *filename;
	/** warnings logged by the last config_read() */
	int num_warnings;
};

/**
 * Create a configuration holding the defaults from the option table.
 * @return the config, or NULL when out of memory. Free with config_delete.
 */
struct config_file *config_create(void);

/**
 * Read a config file on top of cfg. All or nothing: the file is parsed into
 * a copy of cfg, and cfg is replaced by the copy only when every line (and
 * every include) is good. Warnings (options petrel ignores) are logged with
 * log_warnx and counted in cfg->num_warnings.
 * @param cfg: config to update; normally fresh from config_create().
 * @param filename: the file to read.
 * @param err: buffer for the error, "file:line: what was expected".
 * @param errlen: size of err.
 * @return 0 on success, -1 on error (cfg untouched, err filled).
 */
int config_read(struct config_file *cfg, const char *filename, char *err,
	size_t errlen);

/**
 * As config_read, but the text comes from memory (tests, fuzzing).
 * @param name: the name to use in messages and for relative includes (its
 *	folder); includes are read from disk.
 * @param text: the config text, len bytes, need not be NUL-terminated.
 */
int config_read_mem(struct config_file *cfg, const char *name,
	const char *text, size_t len, char *err, size_t errlen);

/** Free a string list (every node and its string). NULL is allowed. */
void config_strlist_free(struct config_strlist *l);

/** Free an address list. NULL is allowed. */
void config_addrlist_free(struct config_addrlist *l);

/** Free a list of local-zone: entries. NULL is allowed. */
void config_localzone_free(struct config_localzone *z);

/** Free a list of forward or stub zones (with their addresses and
 * hosts). NULL is allowed. To free one node, unlink it (next = NULL)
 * first. */
void config_stub_free(struct config_stub *z);

/**
 * Make a policy line (for the control channel's view_* edits).
 * @param clause: CLAUSE_SERVER, CLAUSE_RPZ or CLAUSE_VIEW.
 * @param block: the clause number, -1 in server:.
 * @param key: the option name; file, line: where it came from.
 * @param v: n values (copied).
 * @return the line (next NULL) or NULL when out of memory.
 */
struct config_policyline *config_policyline_new(int clause, int block,
	const char *key, const char *file, int line, char *const *v, int n);

/** Free a list of policy lines. NULL is allowed. */
void config_policyline_free(struct config_policyline *l);

/** the most tags define-tag may name (a client's tags are one 64-bit
 * word) */
#define CONFIG_MAX_TAGS 64

/** the longest edns-client-string text, bytes */
#define CONFIG_EDNS_STRING_MAX 64

/** the longest NSID petrel answers with, bytes */
#define CONFIG_NSID_MAX 512

/**
 * Read an nsid value, as Unbound reads it: "ascii_" and the text, or the
 * bytes in hex (an even number of digits).
 * @param s: the text.
 * @param buf: the NSID bytes (CONFIG_NSID_MAX of room).
 * @param len: set to their number (0 for "").
 * @return 0, or -1 when the text is neither (or longer than
 *	CONFIG_NSID_MAX bytes).
 */
int config_nsid(const char *s, uint8_t *buf, size_t *len);

/**
 * Read a val-override-date value, as Unbound reads it: "" or "0" (the real
 * clock), "-1" (signature dates are not checked), YYYYMMDDHHMMSS (UTC) or
 * seconds since the epoch.
 * @param s: the text.
 * @param out: the date in seconds since the epoch, 0 or -1.
 * @return 0, or -1 when the text is none of these.
 */
int config_parse_date(const char *s, long long *out);

/**
 * Read a val-override-date value, as Unbound reads it: "" or "0" (the real
 * clock), "-1" (signature dates are not checked), YYYYMMDDHHMMSS (UTC) or
 * seconds since the epoch.
 * @param s: the text.
 * @param out: the date in seconds since the epoch, 0 or -1.
 * @return 0, or -1 when the text is none of these.
 */
int config_parse_date(const char *s, long long *out);

/**
 * The number of a tag named by define-tag: lines (server:, in the order
 * the names are given, several names per line separated by spaces).
 * @return 0..CONFIG_MAX_TAGS-1, or -1 when no define-tag names it.
 */
int config_tag_index(const struct config_file *cfg, const char *name);

/**
 * The tag set of a "tag1 tag2" list (spaces or commas between names).
 * @param mask: set to the bit (1 << index) of every tag named.
 * @param err: "unknown tag 'x'" (the caller adds the file and line) or
 *	"more than 64 tags defined"; errlen its size.
 * @return 0, or -1 (an unknown or empty list).
 */
int config_tag_mask(const struct config_file *cfg, const char *list,
	uint64_t *mask, char *err, size_t errlen);

/** Free a config and everything it owns. NULL is allowed. */
void config_delete(struct config_file *cfg);

/**
 * Deep copy of a config.
 * @return the copy or NULL when out of memory.
 */
struct config_file *config_dup(const struct config_file *cfg);

/**
 * Print one option's value as it would be written in the config file
 * (petrel-checkconf -o). Lists print one value per line, in file order;
 * booleans print yes/no; sizes print in bytes.
 * forward-zone and stub-zone options print one line per zone, as
 * "zone-name value".
 * @param name: option name without the colon, e.g. "pidfile".
 * @param buf: output, NUL-terminated (truncated if too small).
 * @return 0, or -1 when there is no such option.
 */
int config_get_option_str(const struct config_file *cfg, const char *name,
	char *buf, size_t len);

/**
 * Set one server: or remote-control: option from its text value, as a line
 * "name: value" would (petrel-control set_option). List options append.
 * All or nothing: on error cfg is unchanged.
 * @param name: option name, with or without the trailing colon.
 * @param value: the value text, as after the colon in the file.
 * @param err: buffer for the error message (no file:line prefix).
 * @return 0, or -1 with err filled.
 */
int config_set_option(struct config_file *cfg, const char *name,
	const char *value, char *err, size_t errlen);

/**
 * Does a reload (SIGHUP) apply this option?
 * @return 1 if a reload applies it, 0 if it needs a restart, -1 if there
 *	is no such option.
 */
int config_option_sighup_applies(const char *name);

/**
 * The listening addresses: cfg->interfaces, or the default (127.0.0.1 and
 * ::1) when none was configured.
 * @return the list (owned by cfg or static; do not free).
 */
const struct config_strlist *config_interfaces(const struct config_file *cfg);

/** @return the control interfaces, or the default 127.0.0.1, ::1 list. */
const struct config_strlist *config_control_interfaces(
	const struct config_file *cfg);

/** @return tls-service-key, or ssl-service-key when that is unset ("" if
 * neither is set) */
const char *config_tls_service_key(const struct config_file *cfg);

/** @return tls-service-pem, or ssl-service-pem likewise */
const char *config_tls_service_pem(const struct config_file *cfg);

/** @return tls-cert-bundle, or ssl-cert-bundle likewise */
const char *config_tls_cert_bundle(const struct config_file *cfg);

/** @return 1 if a forward or stub zone asks its servers over TLS */
int config_uses_tls_upstream(const struct config_file *cfg);

/** @return the default config file, "SYSCONFDIR/petrel/petrel.conf". */
const char *config_default_file(void);

/** @return the word for a thread model ("pthreads", "solaris", "fork"). */
const char *config_thread_model_str(int model);

/** @return the word for an event backend ("select", "libevent"). */
const char *config_event_backend_str(int backend);

/** @return the word for an access-control action ("allow", ...). */
const char *config_acl_action_str(enum config_acl_action a);

/** the local-zone type words petrel accepts, NULL-terminated */
extern const char *const config_localzone_types[];

#endif /* UTIL_CONFIG_FILE_H */
