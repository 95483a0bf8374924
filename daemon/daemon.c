/*
 * daemon/daemon.c - the petrel process: sockets, privileges, supervisor.
 * See daemon.h for the design.
 */
#include "config.h"
#include "daemon/daemon.h"
#include "xdp/xdp_sock.h"
#include "util/netevent/tls.h"
#include "util/netevent/dnstap_tls.h"
#include "daemon/env.h"
#include "daemon/worker.h"
#include "daemon/sdnotify.h"
#include "daemon/remote.h"
#include "daemon/shm_stats.h"
#include "services/cache/shcache.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/locks.h"
#include "util/netaddr.h"
#include "util/netevent/netevent.h"
#include "util/thread.h"
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

/** restart back-off for dead children: first, and cap, in ms */
#define RESTART_BACKOFF_MIN 100
#define RESTART_BACKOFF_MAX 10000
/** a child that ran this long (s) gets its back-off reset */
#define RESTART_STABLE_SECS 10

/** set close-on-exec and (optionally) nonblocking on a descriptor */
static void
fd_set_flags(int fd, int nonblock)
{
	int fl = fcntl(fd, F_GETFD);
	if(fl != -1)
		(void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	if(nonblock) {
		fl = fcntl(fd, F_GETFL);
		if(fl != -1)
			(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	}
}

struct daemon *
daemon_create(const char *cfgfile, struct config_file *cfg)
{
	struct daemon *d = calloc(1, sizeof(*d));
	if(!d) {
		log_err("out of memory");
		return NULL;
	}
	d->cfgfile = strdup(cfgfile);
	if(!d->cfgfile) {
		free(d);
		log_err("out of memory");
		return NULL;
	}
	d->cfg = cfg;
	d->num_workers = cfg->num_threads;
	d->ready_pipe[0] = d->ready_pipe[1] = -1;
	return d;
}

/** free a list from listen_names */
static void
listen_names_free(struct config_strlist *l)
{
	while(l) {
		struct config_strlist *n = l->next;
		free(l->str);
		free(l);
		l = n;
	}
}

/**
 * interface-automatic-ports: with interface-automatic, every interface
 * given without a port is listened on at each of the ports, as
 * "ip@port" in the list returned (malloced, listen_names_free).
 * @param fail: set to 1 on a bad port or out of memory (logged).
 * @return the list, or NULL when there is nothing to expand (use
 *	config_interfaces) or on failure.
 */
static struct config_strlist *
listen_names(const struct config_file *cfg, int *fail)
{
	const struct config_strlist *s;
	struct config_strlist *head = NULL, **tail = &head;
	const char *ports = cfg->interface_automatic_ports;
	*fail = 0;
	if(!cfg->interface_automatic || !ports || !ports[0])
		return NULL;
	for(s = config_interfaces(cfg); s; s = s->next) {
		const char *p = ports;
		/* an address with its own port (ip@port) keeps it */
		if(strchr(s->str, '@')) {
			p = "";
			if(!(*tail = calloc(1, sizeof(**tail))) ||
				!((*tail)->str = strdup(s->str)))
				goto oom;
			tail = &(*tail)->next;
		}
		while(*p) {
			char *end;
			long port;
			while(*p == ' ' || *p == '\t')
				p++;
			if(!*p)
				break;
			port = strtol(p, &end, 10);
			if(end == p || port < 1 || port > 65535 ||
				(*end && *end != ' ' && *end != '\t')) {
				log_err("interface-automatic-ports: '%s' is "
					"not a list of port numbers", ports);
				listen_names_free(head);
				*fail = 1;
				return NULL;
			}
			p = end;
			if(!(*tail = calloc(1, sizeof(**tail))))
				goto oom;
			if(!((*tail)->str = malloc(strlen(s->str) + 8)))
				goto oom;
			sprintf((*tail)->str, "%s@%ld", s->str, port);
			tail = &(*tail)->next;
		}
	}
	return head;
oom:
	log_err("interface-automatic-ports: out of memory");
	listen_names_free(head);
	*fail = 1;
	return NULL;
}

/** the number of listening addresses in the config */
static int
count_interfaces(const struct config_file *cfg)
{
	const struct config_strlist *s;
	struct config_strlist *l;
	int n = 0, fail;
	l = listen_names(cfg, &fail);
	for(s = l ? l : config_interfaces(cfg); s; s = s->next)
		n++;
	listen_names_free(l);
	return n;
}

int
daemon_check_fds(struct daemon *d)
{
	struct config_file *cfg = d->cfg;
	struct rlimit rl;
	long listen_fds, per_worker, fixed, need, avail;
	int nw = d->num_workers;
	int nif = count_interfaces(cfg);
	listen_fds = (long)nif * (cfg->do_tcp ? 2 : 1);
	/* a worker serves dup()s of the listening sockets, has a command
	 * pipe, a wakeup pipe, its outgoing sockets and TCP connections */
	fixed = 16 + (long)nif * 2 * nw + 4L * nw;
	per_worker = listen_fds + cfg->incoming_num_tcp +
		cfg->outgoing_num_tcp + 6;
	need = fixed + (long)nw * (per_worker + cfg->outgoing_range);
	if(getrlimit(RLIMIT_NOFILE, &rl) != 0) {
		log_warn("getrlimit(RLIMIT_NOFILE)");
		return 0;
	}
	if((rlim_t)need > rl.rlim_cur) {
		rlim_t want = (rlim_t)need;
		if(rl.rlim_max != RLIM_INFINITY && want > rl.rlim_max)
			want = rl.rlim_max;
		if(want > rl.rlim_cur) {
			rl.rlim_cur = want;
			if(setrlimit(RLIMIT_NOFILE, &rl) != 0)
				log_warn("setrlimit(RLIMIT_NOFILE, %ld)",
					(long)want);
			(void)getrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	avail = rl.rlim_cur == RLIM_INFINITY ? need : (long)rl.rlim_cur;
	if(cfg->event_backend == EVENT_BACKEND_SELECT && avail > FD_SETSIZE) {
		/* descriptor numbers are per process: with threads every
		 * worker's descriptors must be below FD_SETSIZE */
		avail = FD_SETSIZE;
	}
	if(need <= avail)
		return 0;
	{
		long room = (avail - fixed) / (nw > 0 ? nw : 1) - per_worker;
		const char *why = cfg->event_backend == EVENT_BACKEND_SELECT ?
			"FD_SETSIZE of the select backend" :
			"the file descriptor limit (ulimit -n)";
		if(room >= 16) {
			log_warnx("outgoing-range: %d is too large for %s "
				"(%ld descriptors for %d workers): lowered to %ld",
				cfg->outgoing_range, why, avail, nw, room);
			cfg->outgoing_range = (int)room;
			return 0;
		}
		log_err("not enough file descriptors for %d workers: %s allows "
			"%ld, the config needs %ld; lower num-threads, "
			"outgoing-range or incoming-num-tcp%s", nw, why, avail,
			need, cfg->event_backend == EVENT_BACKEND_SELECT ?
			", or use event-backend: libevent" :
			", or raise ulimit -n");
		return -1;
	}
}

/* ------------------------------------------------------------------ */
/* tcp-connection-limit */

/**
 * The tcp-connection-limit lines: a netblock each, its limit, and the
 * client TCP connections from it open now. A connection counts in the
 * longest netblock that holds its address; past the limit it is accepted
 * and closed at once (as Unbound). The lock is taken once per accept and
 * close of a TCP connection, never per query.
 */
struct tcp_conn_limit {
	/** guards count */
	lock_basic_type lock;
	/** the netblocks */
	struct netblock *nb;
	/** their limits */
	int *limit;
	/** their connections open now */
	int *count;
	/** how many */
	int num;
	/** the hooks given to the TCP points */
	struct comm_tcp_limit hook;
};

/** comm_tcp_limit admit: the longest matching netblock, under its limit */
static int
tcp_limit_admit(void *arg, const struct netaddr *client, int *slot)
{
	struct tcp_conn_limit *tl = arg;
	int i, best = -1, ok = 1;
	for(i = 0; i < tl->num; i++)
		if(netblock_match(&tl->nb[i], client) && (best < 0 ||
			tl->nb[i].prefix > tl->nb[best].prefix))
			best = i;
	*slot = best;
	if(best < 0)
		return 1;
	lock_basic_lock(&tl->lock);
	if(tl->count[best] >= tl->limit[best])
		ok = 0;
	else	tl->count[best]++;
	lock_basic_unlock(&tl->lock);
	if(!ok && verbosity >= VERB_ALGO) {
		char a[NETADDR_STRLEN], b[NETADDR_STRLEN];
		verbose(VERB_ALGO, "tcp-connection-limit: %s has %d "
			"connections, closing the one from %s",
			netblock_str(&tl->nb[best], b, sizeof(b)),
			tl->limit[best], netaddr_str(client, -1, a, sizeof(a)));
	}
	return ok;
}

/** comm_tcp_limit release */
static void
tcp_limit_release(void *arg, int slot)
{
	struct tcp_conn_limit *tl = arg;
	if(slot < 0 || slot >= tl->num)
		return;
	lock_basic_lock(&tl->lock);
	if(tl->count[slot] > 0)
		tl->count[slot]--;
	lock_basic_unlock(&tl->lock);
}

static void
tcp_limit_free(struct tcp_conn_limit *tl)
{
	if(!tl)
		return;
	lock_basic_destroy(&tl->lock);
	free(tl->nb);
	free(tl->limit);
	free(tl->count);
	free(tl);
}

/** the tcp-connection-limit of the config, or NULL (none, or logged
 * error: *fail set) */
static struct tcp_conn_limit *
tcp_limit_create(const struct config_strlist *lines, int *fail)
{
	const struct config_strlist *s;
	struct tcp_conn_limit *tl;
	int n = 0;
	*fail = 0;
	for(s = lines; s; s = s->next)
		n++;
	if(n == 0)
		return NULL;
	tl = calloc(1, sizeof(*tl));
	if(!tl || !(tl->nb = calloc((size_t)n, sizeof(*tl->nb))) ||
		!(tl->limit = calloc((size_t)n, sizeof(int))) ||
		!(tl->count = calloc((size_t)n, sizeof(int)))) {
		if(tl) {
			free(tl->nb);
			free(tl->limit);
			free(tl);
		}
		log_err("tcp-connection-limit: out of memory");
		*fail = 1;
		return NULL;
	}
	lock_basic_init(&tl->lock);
	for(s = lines; s; s = s->next) {
		char blk[128];
		const char *why = "";
		const char *sp = strchr(s->str, ' ');
		size_t bl = sp ? (size_t)(sp - s->str) : strlen(s->str);
		if(!sp || bl >= sizeof(blk)) {
			log_err("tcp-connection-limit: bad line '%s'", s->str);
			goto fail;
		}
		memcpy(blk, s->str, bl);
		blk[bl] = 0;
		if(netblock_parse(blk, &tl->nb[tl->num], 1, &why) != 0) {
			log_err("tcp-connection-limit: %s: %s", blk, why);
			goto fail;
		}
		tl->limit[tl->num++] = atoi(sp + 1);
	}
	tl->hook.admit = tcp_limit_admit;
	tl->hook.release = tcp_limit_release;
	tl->hook.arg = tl;
	return tl;
fail:
	tcp_limit_free(tl);
	*fail = 1;
	return NULL;
}

const struct comm_tcp_limit *
listen_set_tcp_limit(const struct listen_set *ls)
{
	return ls && ls->tcp_limit ? &ls->tcp_limit->hook : NULL;
}

void
listen_set_close(struct listen_set *ls)
{
	int i, j;
	if(!ls)
		return;
	tcp_limit_free(ls->tcp_limit);
	for(i = 0; i < ls->num; i++) {
		for(j = 0; j < ls->ports[i].num; j++) {
			if(ls->ports[i].udp && ls->ports[i].udp[j] != -1)
				close(ls->ports[i].udp[j]);
			if(ls->ports[i].tcp && ls->ports[i].tcp[j] != -1)
				close(ls->ports[i].tcp[j]);
		}
		free(ls->ports[i].udp);
		free(ls->ports[i].tcp);
	}
	free(ls->ports);
	tls_ctx_free(ls->tls_server);
	tls_ctx_free(ls->https_server);
	tls_ctx_free(ls->tls_client);
	tls_ctx_free(ls->dnstap_tls);
	xdp_set_close(ls->xdp);
	free(ls);
}


/** give a TLS server context the tls-session-ticket-keys. @return 0/-1 */
static int
daemon_ticket_keys(struct ssl_ctx_st *ctx, const struct config_file *cfg,
	char *err, size_t errlen)
{
	const char *files[64];
	const struct config_strlist *s;
	int n = 0;
	for(s = cfg->tls_session_ticket_keys; s; s = s->next) {
		if(n == 64) {
			snprintf(err, errlen, "tls-session-ticket-keys: more "
				"than 64 files");
			return -1;
		}
		files[n++] = s->str;
	}
	return tls_server_ctx_ticket_keys(ctx, files, n, err, errlen);
}

/** after a listening socket could not be opened (errno kept): what the
 * operator can do about it */
static void
listen_advice(const struct listen_port *p, const struct config_file *cfg)
{
	int port = netaddr_port(&p->addr);
	if(errno == EADDRINUSE)
		log_err("another process listens on %s port %d: stop it "
			"('ss -lnptu' names it; often systemd-resolved, dnsmasq "
			"or an Unbound still running), or give petrel another "
			"interface: or port:", p->name, port);
	else if(errno == EACCES && port < 1024)
		log_err("port %d needs root (or CAP_NET_BIND_SERVICE): start "
			"petrel as root, it binds its ports and then becomes "
			"username: (%s)", port, cfg->username[0] ?
			cfg->username : "not set");
	else if(errno == EADDRNOTAVAIL)
		log_err("no interface of this machine has the address %s: "
			"fix interface:", p->name);
}

/** xdp-interface: open the AF_XDP sockets for the UDP points (on
 * failure, logged by xdp_set_open, the ordinary sockets answer alone) */
static void
listen_set_xdp(struct listen_set *ls, struct config_file *cfg,
	int num_workers)
{
	struct xdp_set_opts xo;
	struct netaddr *pts = calloc((size_t)ls->num + 1, sizeof(*pts));
	int i;
	if(!pts) {
		log_err("out of memory");
		return;
	}
	for(i = 0; i < ls->num; i++) {
		const struct listen_port *p = &ls->ports[i];
		const struct config_strlist *pp;
		int proxy = 0;
		for(pp = cfg->proxy_protocol_ports; pp; pp = pp->next)
			if(atoi(pp->str) == netaddr_port(&p->addr))
				proxy = 1;
		/* a point without a UDP socket (DNS over TLS or HTTPS) or
		 * whose datagrams carry a PROXY header stays with the
		 * kernel: left empty, the program passes its frames */
		if(p->udp && p->udp[0] != -1 && !proxy)
			pts[i] = p->addr;
	}
	memset(&xo, 0, sizeof(xo));
	xo.ifname = cfg->xdp_interface;
	xo.points = pts;
	xo.num_points = ls->num;
	xo.num_workers = num_workers;
	xo.batch = cfg->xdp_batch_size;
	xo.ring = cfg->xdp_ring_size;
	ls->xdp = xdp_set_open(&xo);
	free(pts);
	if(ls->xdp)
		log_info("xdp-interface %s", xdp_set_describe(ls->xdp));
}

/** listen_set_open; with_xdp 0 leaves xdp-interface for the caller to
 * open later (listen_set_xdp), once an older set has let go of the
 * interface's queues */
static struct listen_set *
listen_set_open_ex(struct config_file *cfg, int num_workers, int with_xdp);

struct listen_set *
listen_set_open(struct config_file *cfg, int num_workers)
{
	return listen_set_open_ex(cfg, num_workers, 1);
}

static struct listen_set *
listen_set_open_ex(struct config_file *cfg, int num_workers, int with_xdp)
{
	const struct config_strlist *s;
	struct listen_set *ls = calloc(1, sizeof(*ls));
	struct comm_sock_opts opts;
	struct config_strlist *names = NULL;
	int n = count_interfaces(cfg), i = 0, j, nfail;
	if(!ls)
		goto oom;
	names = listen_names(cfg, &nfail);
	if(nfail)
		goto fail;
	ls->per_worker = cfg->so_reuseport && num_workers > 1;
	ls->ports = calloc((size_t)(n ? n : 1), sizeof(*ls->ports));
	if(!ls->ports)
		goto oom;
	{
		int fail;
		ls->tcp_limit = tcp_limit_create(cfg->tcp_connection_limit,
			&fail);
		if(fail)
			goto fail;
	}
	memset(&opts, 0, sizeof(opts));
	opts.reuseport = cfg->so_reuseport;
	opts.rcvbuf = (int)cfg->so_rcvbuf;
	opts.sndbuf = (int)cfg->so_sndbuf;
	opts.freebind = cfg->ip_freebind;
	opts.transparent = cfg->ip_transparent;
	opts.dscp = cfg->ip_dscp;
	opts.tcp_mss = cfg->tcp_mss;
	for(s = names ? names : config_interfaces(cfg); s; s = s->next, i++) {
		struct listen_port *p = &ls->ports[i];
		const char *err = NULL;
		ls->num = i + 1;
		snprintf(p->name, sizeof(p->name), "%s", s->str);
		if(netaddr_parse(s->str, cfg->port, &p->addr, &err) != 0) {
			log_err("interface: %s: %s", s->str, err);
			goto fail;
		}
		if(cfg->interface_automatic && !comm_sock_is_wildcard(&p->addr))
			verbose(VERB_DETAIL, "interface-automatic: %s is not a "
				"wildcard address; answering from it as bound",
				s->str);
		p->num = ls->per_worker ? num_workers : 1;
		p->udp = malloc(sizeof(int) * (size_t)p->num);
		p->tcp = malloc(sizeof(int) * (size_t)p->num);
		if(!p->udp || !p->tcp)
			goto oom;
		for(j = 0; j < p->num; j++)
			p->udp[j] = p->tcp[j] = -1;
		p->tls = config_tls_service_key(cfg)[0] &&
			netaddr_port(&p->addr) == cfg->tls_port;
		p->https = !p->tls && netaddr_port(&p->addr) ==
			cfg->https_port && (config_tls_service_key(cfg)[0] ||
			cfg->http_notls_downstream);
		for(j = 0; j < p->num; j++) {
			if(p->tls || p->https) {
				/* DNS over TLS: TCP only, whatever do-tcp */
				p->tcp[j] = comm_sock_open_tcp(&p->addr, &opts);
				if(p->tcp[j] == -1)
					goto sockfail;
				continue;
			}
			if(cfg->do_udp) {
				p->udp[j] = comm_sock_open_udp(&p->addr, &opts);
				if(p->udp[j] == -1)
					goto sockfail;
			}
			if(cfg->do_tcp) {
				p->tcp[j] = comm_sock_open_tcp(&p->addr, &opts);
				if(p->tcp[j] == -1)
					goto sockfail;
			}
		}
		if(p->tls && !ls->tls_server) {
			char terr[512];
			ls->tls_server = tls_server_ctx_create(
				config_tls_service_key(cfg),
				config_tls_service_pem(cfg), cfg->tls_ciphers,
				cfg->tls_ciphersuites, terr, sizeof(terr));
			if(!ls->tls_server || daemon_ticket_keys(ls->tls_server,
				cfg, terr, sizeof(terr)) != 0 ||
				tls_ctx_set_protocols(ls->tls_server,
				cfg->tls_protocols, terr, sizeof(terr)) != 0) {
				log_err("%s", terr);
				goto fail;
			}
		}
		if(p->https && !cfg->http_notls_downstream &&
			!ls->https_server) {
			char terr[512];
			ls->https_server = tls_server_ctx_create(
				config_tls_service_key(cfg),
				config_tls_service_pem(cfg), cfg->tls_ciphers,
				cfg->tls_ciphersuites, terr, sizeof(terr));
			if(!ls->https_server || daemon_ticket_keys(
				ls->https_server, cfg, terr, sizeof(terr)) != 0 ||
				tls_ctx_set_protocols(ls->https_server,
				cfg->tls_protocols, terr, sizeof(terr)) != 0) {
				log_err("%s", terr);
				goto fail;
			}
			tls_server_ctx_alpn_h2(ls->https_server);
		}
		verbose(VERB_OPS, "listening on %s port %d%s (%d socket%s)",
			s->str, netaddr_port(&p->addr), p->tls ?
			" for DNS over TLS" : p->https ? (cfg->
			http_notls_downstream ? " for DNS over HTTP/2 (h2c)" :
			" for DNS over HTTPS") : "", p->num,
			p->num == 1 ? "" : "s each");
	}
	if(config_uses_tls_upstream(cfg)) {
		char err[512];
		ls->tls_client = tls_client_ctx_create(
			config_tls_cert_bundle(cfg), cfg->tls_system_cert, err,
			sizeof(err));
		if(!ls->tls_client) {
			log_err("upstream TLS: %s", err);
			goto fail;
		}
	}
	/* the ports keep their names */
	listen_names_free(names);
	names = NULL;
	if(dt_tls_wanted(cfg)) {
		char err[512];
		if(!(ls->dnstap_tls = dt_tls_ctx_create(cfg, err,
			sizeof(err)))) {
			log_err("dnstap TLS: %s", err);
			goto fail;
		}
	}
	if(with_xdp && cfg->xdp_interface[0] && cfg->do_udp)
		listen_set_xdp(ls, cfg, num_workers);
	return ls;
sockfail:
	listen_advice(&ls->ports[i], cfg);
	goto fail;
oom:
	log_err("out of memory");
fail:
	listen_names_free(names);
	listen_set_close(ls);
	return NULL;
}

/** @return 1 when two string lists hold the same strings in order */
static int
strlist_equal(const struct config_strlist *x, const struct config_strlist *y)
{
	for(; x && y; x = x->next, y = y->next)
		if(strcmp(x->str, y->str) != 0)
			return 0;
	return x == NULL && y == NULL;
}

/** the listening-related options are equal in both configs */
int
daemon_listen_cfg_equal(const struct config_file *a,
	const struct config_file *b)
{
	const struct config_strlist *x = config_interfaces(a);
	const struct config_strlist *y = config_interfaces(b);
	if(a->port != b->port || a->so_reuseport != b->so_reuseport ||
		a->num_threads != b->num_threads ||
		a->thread_model != b->thread_model ||
		a->event_backend != b->event_backend ||
		a->do_udp != b->do_udp || a->do_tcp != b->do_tcp ||
		a->so_rcvbuf != b->so_rcvbuf || a->so_sndbuf != b->so_sndbuf ||
		a->interface_automatic != b->interface_automatic ||
		strcmp(a->xdp_interface, b->xdp_interface) ||
		a->xdp_batch_size != b->xdp_batch_size ||
		a->xdp_ring_size != b->xdp_ring_size ||
		strcmp(a->interface_automatic_ports,
			b->interface_automatic_ports) ||
		a->ip_freebind != b->ip_freebind ||
		a->ip_transparent != b->ip_transparent ||
		a->ip_dscp != b->ip_dscp || a->tcp_mss != b->tcp_mss ||
		strcmp(a->tls_protocols, b->tls_protocols) ||
		!strlist_equal(a->tcp_connection_limit,
			b->tcp_connection_limit) ||
		a->tls_port != b->tls_port ||
		a->https_port != b->https_port ||
		a->http_notls_downstream != b->http_notls_downstream ||
		strcmp(config_tls_service_key(a), config_tls_service_key(b)) ||
		strcmp(config_tls_service_pem(a), config_tls_service_pem(b)) ||
		strcmp(a->tls_ciphers, b->tls_ciphers) ||
		strcmp(a->tls_ciphersuites, b->tls_ciphersuites) ||
		strcmp(config_tls_cert_bundle(a), config_tls_cert_bundle(b)) ||
		a->tls_system_cert != b->tls_system_cert ||
		config_uses_tls_upstream(a) != config_uses_tls_upstream(b) ||
		dt_tls_wanted(a) != dt_tls_wanted(b) || (dt_tls_wanted(a) &&
		(strcmp(a->dnstap_tls_cert_bundle, b->dnstap_tls_cert_bundle) ||
		strcmp(a->dnstap_tls_client_key_file,
			b->dnstap_tls_client_key_file) ||
		strcmp(a->dnstap_tls_client_cert_file,
			b->dnstap_tls_client_cert_file))))
		return 0;
	for(; x && y; x = x->next, y = y->next)
		if(strcmp(x->str, y->str) != 0)
			return 0;
	if(x || y)
		return 0;
	/* new ticket key files (a rotation) reload the TLS contexts */
	for(x = a->tls_session_ticket_keys, y = b->tls_session_ticket_keys;
		x && y; x = x->next, y = y->next)
		if(strcmp(x->str, y->str) != 0)
			return 0;
	return x == NULL && y == NULL;
}

/** write the pid file */
static int
write_pidfile(struct daemon *d)
{
	char buf[32];
	int fd, n;
	const char *f = d->cfg->pidfile;
	if(!f[0])
		return 0;
	fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if(fd == -1) {
		log_warn("cannot write pidfile %s", f);
		return -1;
	}
	n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if(write(fd, buf, (size_t)n) != n) {
		log_warn("cannot write pidfile %s", f);
		close(fd);
		return -1;
	}
	if(d->change_user && fchown(fd, d->uid, d->gid) != 0)
		verbose(VERB_DETAIL, "chown pidfile %s: %s", f, strerror(errno));
	close(fd);
	snprintf(d->pidfile, sizeof(d->pidfile), "%s", f);
	return 0;
}

/** remove the pid file (or empty it when the directory is not ours) */
static void
remove_pidfile(struct daemon *d)
{
	const char *f = d->pidfile;
	if(!f[0])
		return;
	if(d->cfg->chroot[0] && strncmp(f, d->cfg->chroot,
		strlen(d->cfg->chroot)) == 0)
		f += strlen(d->cfg->chroot);
	if(unlink(f) != 0) {
		int fd = open(f, O_WRONLY | O_TRUNC | O_CLOEXEC);
		if(fd != -1)
			close(fd);
		verbose(VERB_DETAIL, "cannot remove pidfile %s: %s", f,
			strerror(errno));
	}
	d->pidfile[0] = 0;
}

/** fork into the background */
static int
daemonize(void)
{
	pid_t pid = fork();
	int fd;
	if(pid == -1) {
		log_err("cannot fork to the background: %s", strerror(errno));
		return -1;
	}
	if(pid > 0)
		_exit(0);
	if(setsid() == -1)
		log_warn("setsid");
	fd = open("/dev/null", O_RDWR);
	if(fd != -1) {
		(void)dup2(fd, STDIN_FILENO);
		(void)dup2(fd, STDOUT_FILENO);
		if(log_init(NULL, 0, NULL) == 0 && !getenv("PETREL_KEEP_STDERR"))
			(void)dup2(fd, STDERR_FILENO);
		if(fd > STDERR_FILENO)
			close(fd);
	}
	return 0;
}

int
daemon_detach_and_drop(struct daemon *d)
{
	struct config_file *cfg = d->cfg;
	/* the control sockets and keys, while we may still open them */
	if(remote_needed(cfg) && !d->rc && !(d->rc = remote_create(d, cfg)))
		return -1;
	if(cfg->username[0]) {
		struct passwd *pw = getpwnam(cfg->username);
		if(!pw) {
			log_err("username: user '%s' does not exist: create it "
				"(adduser --system --group %s, as petrel's "
				"package does), or name another user in "
				"username:", cfg->username, cfg->username);
			return -1;
		}
		d->uid = pw->pw_uid;
		d->gid = pw->pw_gid;
		endpwent();
		/* already that user: nothing to change (as Unbound) */
		d->change_user = d->uid != geteuid();
		if(d->change_user && geteuid() != 0) {
			log_err("username: %s: only root can become another "
				"user, and petrel runs as uid %d: start it as "
				"root (it binds its ports, then becomes %s), or "
				"set username: \"\" to run as the user who "
				"starts it", cfg->username, (int)geteuid(),
				cfg->username);
			return -1;
		}
	}
	if(!cfg->username[0] && geteuid() == 0)
		log_warnx("username: is empty and petrel runs as root: it "
			"keeps root's privileges after binding its ports; set "
			"username: to a user of its own (the default, \"%s\", "
			"is created by the package)", PETREL_USERNAME[0] ?
			PETREL_USERNAME : "petrel");
	if(cfg->do_daemonize && !d->cmdline_foreground) {
		/* a log file given relative: keep it working after chdir */
		if(daemonize() != 0)
			return -1;
		if(cfg->logfile[0] || cfg->use_syslog) {
			if(log_init(cfg->logfile, cfg->use_syslog, NULL) != 0)
				log_warn("cannot open logfile %s", cfg->logfile);
		} else {
			/* stderr is /dev/null now: rather than lose every
			 * message, log to syslog (Unbound's default) */
			(void)log_init(NULL, 1, NULL);
		}
	}
	/* the log file becomes the user's, as Unbound does, so that a
	 * reload (which reopens it after the privileges are gone) can */
	if(d->change_user && cfg->logfile[0] && !cfg->use_syslog &&
		chown(cfg->logfile, d->uid, d->gid) != 0)
		verbose(VERB_DETAIL, "chown logfile %s: %s", cfg->logfile,
			strerror(errno));
	if(write_pidfile(d) != 0 && cfg->do_daemonize && !d->cmdline_foreground)
		return -1;
	if(cfg->chroot[0]) {
		if(chdir(cfg->chroot) != 0 || chroot(cfg->chroot) != 0) {
			log_err("chroot: cannot change root to %s: %s",
				cfg->chroot, strerror(errno));
			return -1;
		}
		if(chdir("/") != 0) {
			log_err("chroot: cannot chdir to / in %s: %s",
				cfg->chroot, strerror(errno));
			return -1;
		}
		verbose(VERB_DETAIL, "chroot to %s", cfg->chroot);
	}
	if(cfg->directory[0]) {
		const char *dir = cfg->directory;
		if(cfg->chroot[0] && strncmp(dir, cfg->chroot,
			strlen(cfg->chroot)) == 0)
			dir += strlen(cfg->chroot);
		if(chdir(dir[0] ? dir : "/") != 0) {
			log_err("directory: cannot chdir to %s: %s", dir,
				strerror(errno));
			return -1;
		}
	}
	if(d->change_user) {
		if(setgroups(1, &d->gid) != 0) {
			log_err("username: %s: cannot set the groups: %s",
				cfg->username, strerror(errno));
			return -1;
		}
#ifdef HAVE_SETRESGID
		if(setresgid(d->gid, d->gid, d->gid) != 0) {
#else
		if(setregid(d->gid, d->gid) != 0) {
#endif
			log_err("username: %s: cannot change group to %d: %s",
				cfg->username, (int)d->gid, strerror(errno));
			return -1;
		}
#ifdef HAVE_SETRESUID
		if(setresuid(d->uid, d->uid, d->uid) != 0) {
#else
		if(setreuid(d->uid, d->uid) != 0) {
#endif
			log_err("username: cannot change user to %s: %s",
				cfg->username, strerror(errno));
			return -1;
		}
		verbose(VERB_DETAIL, "dropped privileges to user %s (uid %d)",
			cfg->username, (int)d->uid);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* workers                                                             */

/** block the signals the supervisor handles (workers must not get them) */
static void
block_signals(sigset_t *old)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGQUIT);
#ifdef PETREL_HAVE_THREADS
	pthread_sigmask(SIG_BLOCK, &set, old);
#else
	sigprocmask(SIG_BLOCK, &set, old);
#endif
}

static void
restore_signals(const sigset_t *old)
{
#ifdef PETREL_HAVE_THREADS
	pthread_sigmask(SIG_SETMASK, old, NULL);
#else
	sigprocmask(SIG_SETMASK, old, NULL);
#endif
}

/** readiness: a worker wrote a byte on the ready pipe */
static void
ready_cb(int fd, void *arg)
{
	struct daemon *d = arg;
	char buf[64];
	ssize_t n = read(fd, buf, sizeof(buf));
	if(n <= 0)
		return;
	d->num_ready += (int)n;
	if(!d->ready_sent && d->num_ready >= d->num_workers) {
		d->ready_sent = 1;
		verbose(VERB_OPS, "%d worker%s ready (%s, %s)", d->num_workers,
			d->num_workers == 1 ? "" : "s",
			config_thread_model_str(d->cfg->thread_model),
			comm_base_backend_name(d->base));
		sdnotify_send("READY=1");
	}
}

/** start the worker threads on d->env */
static int
start_threads(struct daemon *d)
{
	sigset_t old;
	int i, r;
	d->workers = calloc((size_t)d->num_workers, sizeof(*d->workers));
	if(!d->workers)
		return -1;
	if(!d->kept && !(d->kept = calloc((size_t)d->num_workers,
		sizeof(*d->kept))))
		return -1;
	for(i = 0; i < d->num_workers; i++) {
		d->workers[i] = worker_create(d, i, d->env);
		if(!d->workers[i])
			return -1;
		worker_counters_restore(d->workers[i], &d->kept[i]);
	}
	block_signals(&old);
	for(i = 0; i < d->num_workers; i++) {
		r = thread_create(&d->workers[i]->thr, worker_thread_main,
			d->workers[i]);
		if(r != 0) {
			restore_signals(&old);
			log_err("cannot start worker thread %d: %s", i,
				strerror(r));
			return -1;
		}
		d->workers[i]->thr_started = 1;
	}
	restore_signals(&old);
	return 0;
}

/** stop and join the worker threads */
static void
stop_threads(struct daemon *d)
{
	int i;
	if(!d->workers)
		return;
	for(i = 0; i < d->num_workers; i++)
		if(d->workers[i] && d->workers[i]->thr_started)
			worker_send_cmd(d->workers[i], 'S');
	for(i = 0; i < d->num_workers; i++) {
		if(d->workers[i] && d->workers[i]->thr_started) {
			thread_join(d->workers[i]->thr);
			d->workers[i]->thr_started = 0;
			/* for the workers a reload starts next */
			if(d->kept)
				worker_counters_save(d->workers[i],
					&d->kept[i]);
		}
	}
	for(i = 0; i < d->num_workers; i++)
		worker_delete(d->workers[i]);
	free(d->workers);
	d->workers = NULL;
}

/** fork one worker process; in the child this never returns */
static int
start_child(struct daemon *d, int i)
{
	struct child *ch = &d->children[i];
	int cmd[2], st[2];
	pid_t pid;
	if(pipe(cmd) != 0 || pipe(st) != 0) {
		log_warn("pipe for worker %d", i);
		return -1;
	}
	pid = fork();
	if(pid == -1) {
		log_warn("fork worker %d", i);
		close(cmd[0]); close(cmd[1]); close(st[0]); close(st[1]);
		return -1;
	}
	if(pid == 0) {
		/* the child: a worker of its own, with its own caches */
		struct worker *w;
		int j, rc;
		sigset_t none;
		d->is_child = 1;
		for(j = 0; j < d->num_workers; j++) {
			if(d->children[j].cmd_fd != -1)
				close(d->children[j].cmd_fd);
			if(d->children[j].stat_fd != -1)
				close(d->children[j].stat_fd);
		}
		close(cmd[1]);
		close(st[0]);
		if(d->ready_pipe[0] != -1)
			close(d->ready_pipe[0]);
		remote_child_close(d->rc);
		/* the parent's loop and signal handlers are not ours */
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGHUP, SIG_IGN);
		signal(SIGUSR1, SIG_IGN);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		log_thread_set(i);
		w = worker_create(d, i, d->env);
		if(!w)
			_exit(3);
		close(w->cmd_pipe[0]);
		close(w->cmd_pipe[1]);
		w->cmd_pipe[0] = cmd[0];
		w->cmd_pipe[1] = -1;
		w->stat_pipe[1] = st[1];
		fd_set_flags(cmd[0], 1);
		rc = worker_main(w);
		worker_delete(w);
		_exit(rc == 0 ? 0 : 3);
	}
	close(cmd[0]);
	close(st[1]);
	fd_set_flags(cmd[1], 0);
	fd_set_flags(st[0], 0);
	ch->pid = pid;
	ch->cmd_fd = cmd[1];
	ch->stat_fd = st[0];
	ch->started = time(NULL);
	verbose(VERB_DETAIL, "started worker %d as process %d", i, (int)pid);
	return 0;
}

/**
 * A worker process is gone (reaped): with a shared cache, free its reader
 * slot and repair what it left half-written, before it is restarted.
 */
static void
child_gone_shared(struct daemon *d, int i, pid_t pid)
{
	size_t n;
	if(!d->env || !d->env->shc)
		return;
	n = shcache_worker_died(d->env->shc, pid);
	if(n > 0)
		log_warnx("shared-cache: worker %d (process %d) died in the "
			"middle of a cache write; %zu slab%s repaired", i,
			(int)pid, n, n == 1 ? "" : "s");
}

/** close the parent's pipes to a child */
static void
child_close(struct child *ch)
{
	if(ch->cmd_fd != -1)
		close(ch->cmd_fd);
	if(ch->stat_fd != -1)
		close(ch->stat_fd);
	ch->cmd_fd = ch->stat_fd = -1;
	ch->pid = 0;
}

static int
start_children(struct daemon *d)
{
	int i;
	d->children = calloc((size_t)d->num_workers, sizeof(*d->children));
	if(!d->children)
		return -1;
	for(i = 0; i < d->num_workers; i++) {
		d->children[i].cmd_fd = d->children[i].stat_fd = -1;
		d->children[i].backoff_ms = RESTART_BACKOFF_MIN;
	}
	for(i = 0; i < d->num_workers; i++)
		if(start_child(d, i) != 0)
			return -1;
	return 0;
}

/** tell the children to stop and wait (at most ~2 s, then SIGKILL) */
static void
stop_children(struct daemon *d)
{
	int i, alive, tries;
	if(!d->children)
		return;
	for(i = 0; i < d->num_workers; i++)
		if(d->children[i].pid > 0 &&
			write(d->children[i].cmd_fd, "S", 1) != 1)
			kill(d->children[i].pid, SIGTERM);
	for(tries = 0; tries < 200; tries++) {
		alive = 0;
		for(i = 0; i < d->num_workers; i++) {
			struct child *ch = &d->children[i];
			if(ch->pid > 0) {
				pid_t p = ch->pid, r = waitpid(p, NULL, WNOHANG);
				if(r == p || (r == -1 && errno == ECHILD)) {
					child_close(ch);
					child_gone_shared(d, i, p);
				} else	alive++;
			}
		}
		if(!alive)
			break;
		usleep(10000);
	}
	for(i = 0; i < d->num_workers; i++) {
		struct child *ch = &d->children[i];
		if(ch->pid > 0) {
			pid_t p = ch->pid;
			log_warnx("worker %d (process %d) did not stop; killed",
				i, (int)p);
			kill(p, SIGKILL);
			waitpid(p, NULL, 0);
			child_close(ch);
			child_gone_shared(d, i, p);
		}
	}
	free(d->children);
	d->children = NULL;
}

/** restart children that died, when their back-off passed */
static void
restart_timer_cb(void *arg)
{
	struct daemon *d = arg;
	time_t now = time(NULL);
	int i, again = 0;
	if(d->stopping || !d->children)
		return;
	for(i = 0; i < d->num_workers; i++) {
		struct child *ch = &d->children[i];
		if(ch->pid != 0)
			continue;
		if(start_child(d, i) != 0) {
			again = 1;
			continue;
		}
		ch->restarts++;
		ch->started = now;
	}
	if(again)
		comm_timer_set(d->restart_timer, RESTART_BACKOFF_MAX);
}

/** reap children; schedule restarts */
static void
reap_children(struct daemon *d)
{
	int status, i, delay = -1;
	pid_t pid;
	time_t now = time(NULL);
	while((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for(i = 0; d->children && i < d->num_workers; i++) {
			struct child *ch = &d->children[i];
			if(ch->pid != pid)
				continue;
			if(WIFSIGNALED(status))
				log_err("worker %d (process %d) killed by signal "
					"%d (%s)", i, (int)pid, WTERMSIG(status),
					strsignal(WTERMSIG(status)));
			else	log_err("worker %d (process %d) exited with code "
					"%d", i, (int)pid, WEXITSTATUS(status));
			child_close(ch);
			child_gone_shared(d, i, pid);
			if(now - ch->started >= RESTART_STABLE_SECS)
				ch->backoff_ms = RESTART_BACKOFF_MIN;
			if(!d->stopping) {
				log_info("restarting worker %d in %d ms", i,
					ch->backoff_ms);
				if(delay == -1 || ch->backoff_ms < delay)
					delay = ch->backoff_ms;
				ch->backoff_ms *= 2;
				if(ch->backoff_ms > RESTART_BACKOFF_MAX)
					ch->backoff_ms = RESTART_BACKOFF_MAX;
			}
		}
	}
	if(delay >= 0 && !comm_timer_is_set(d->restart_timer))
		comm_timer_set(d->restart_timer, delay);
}

/** start the workers of the configured model */
static int
start_workers(struct daemon *d)
{
	d->num_ready = 0;
	d->ready_sent = 0;
	if(d->cfg->thread_model == THREAD_MODEL_FORK)
		return start_children(d);
	return start_threads(d);
}

static void
stop_workers(struct daemon *d)
{
	if(d->children)
		stop_children(d);
	if(d->workers)
		stop_threads(d);
}

/** send a command byte to every worker */
static void
command_all(struct daemon *d, char cmd)
{
	int i;
	for(i = 0; d->workers && i < d->num_workers; i++)
		worker_send_cmd(d->workers[i], cmd);
	for(i = 0; d->children && i < d->num_workers; i++)
		if(d->children[i].pid > 0 &&
			write(d->children[i].cmd_fd, &cmd, 1) != 1)
			verbose(VERB_OPS, "cannot send command to worker %d", i);
}

/** apply the logging options of a (new) config */
static void
apply_log_cfg(struct daemon *d, struct config_file *cfg)
{
	log_set_verbosity(cfg->verbosity + d->cmdline_verbose);
	log_set_format(cfg->log_time_ascii, cfg->log_time_iso,
		cfg->log_thread_id);
	log_ident_set(cfg->log_identity[0] ? cfg->log_identity : "petrel");
	if(cfg->logfile[0] || cfg->use_syslog) {
		if(log_init(cfg->logfile, cfg->use_syslog, cfg->chroot) != 0)
			log_warn("cannot open logfile %s", cfg->logfile);
	}
}

/** SIGHUP: re-read the config and restart the workers on it */
static void
do_reload(struct daemon *d)
{
	struct config_file *ncfg;
	char err[1024];
	sdnotify_send("RELOADING=1");
	log_info("reloading %s", d->cfgfile);
	ncfg = config_create();
	if(!ncfg || config_read(ncfg, d->cfgfile, err, sizeof(err)) != 0) {
		log_err("reload refused, keeping the running config: %s",
			ncfg ? err : "out of memory");
		config_delete(ncfg);
		sdnotify_send("READY=1");
		return;
	}
	(void)daemon_apply_config(d, ncfg, 1);
}

void
daemon_request_reload(struct daemon *d)
{
	do_reload(d);
}

void
daemon_command_all(struct daemon *d, char cmd)
{
	command_all(d, cmd);
}

int
daemon_apply_config(struct daemon *d, struct config_file *ncfg,
	int tell_children)
{
	struct daemon_env *nenv;
	char err[1024];
	int same_listen, in_place;
	if(ncfg->thread_model != d->cfg->thread_model ||
		ncfg->num_threads != d->cfg->num_threads) {
		log_warnx("reload: thread-model and num-threads need a restart;"
			" keeping %s with %d workers",
			config_thread_model_str(d->cfg->thread_model),
			d->cfg->num_threads);
		ncfg->thread_model = d->cfg->thread_model;
		ncfg->num_threads = d->cfg->num_threads;
	}
	if(d->cmdline_foreground)
		ncfg->do_daemonize = 0;
	same_listen = daemon_listen_cfg_equal(d->cfg, ncfg);
	/* fork children with unchanged sockets reload in place: each re-reads
	 * the config itself and keeps its own caches; the parent's copy is
	 * what restarted children get. Otherwise the workers stop here and
	 * start again on the new environment; unchanged sockets stay open,
	 * so queries wait in the kernel meanwhile. */
	in_place = same_listen && d->cfg->thread_model == THREAD_MODEL_FORK &&
		d->children && !env_shared_cache_changed(d->env, ncfg);
	if(!same_listen) {
		struct listen_set *nls = listen_set_open_ex(ncfg,
			d->num_workers, 0);
		if(!nls) {
			log_err("reload refused: cannot open the new listening "
				"sockets; keeping the running config");
			config_delete(ncfg);
			sdnotify_send("READY=1");
			return -1;
		}
		stop_workers(d);
		listen_set_close(d->ls);
		d->ls = nls;
		/* the old set has let go of the interface's queues */
		if(ncfg->xdp_interface[0] && ncfg->do_udp)
			listen_set_xdp(nls, ncfg, d->num_workers);
	} else if(!in_place)
		stop_workers(d);
	nenv = env_create(ncfg, d->num_workers, d->env, err, sizeof(err));
	if(!nenv) {
		log_err("reload: %s; keeping the running config", err);
		config_delete(ncfg);
		if(in_place)
			sdnotify_send("READY=1");
		else if(start_workers(d) != 0)
			log_err("cannot restart the workers");
		return -1;
	}
	env_delete(d->env);
	config_delete(d->cfg);
	d->cfg = ncfg;
	d->env = nenv;
	apply_log_cfg(d, ncfg);
	d->generation++;
	if(in_place) {
		d->num_ready = 0;
		d->ready_sent = 0;
		if(tell_children)
			command_all(d, 'R');
		log_info("reload sent to the workers (generation %d)",
			d->generation);
		return 0;
	}
	if(start_workers(d) != 0)
		log_err("cannot start the workers after reload");
	log_info("reload done (generation %d)", d->generation);
	return 0;
}

/** supervisor signal handler (runs in the supervisor's loop) */
static void
sig_cb(int sig, void *arg)
{
	struct daemon *d = arg;
	switch(sig) {
	case SIGTERM:
	case SIGINT:
	case SIGQUIT:
		verbose(VERB_OPS, "caught signal %d (%s), stopping", sig,
			strsignal(sig));
		d->stopping = 1;
		comm_base_exit(d->base);
		break;
	case SIGHUP:
		d->reload_pending = 1;
		comm_base_exit(d->base);
		break;
	case SIGUSR1:
		if(log_reopen() != 0)
			log_warn("cannot reopen the log file");
		command_all(d, 'L');
		verbose(VERB_OPS, "log file reopened");
		break;
	case SIGCHLD:
		reap_children(d);
		break;
	default:
		break;
	}
}

int
daemon_run(struct daemon *d)
{
	char err[1024];
	struct comm_watch *ready_watch = NULL;
	int rc = 0;
	d->env = env_create(d->cfg, d->num_workers, NULL, err, sizeof(err));
	if(!d->env) {
		log_err("%s", err);
		log_err("petrel stops: it cannot start with %s (petrel-checkconf "
			"shows the same error)", d->cfgfile);
		return 1;
	}
	d->base = comm_base_create(config_event_backend_str(
		d->cfg->event_backend));
	if(!d->base)
		return 1;
	if(pipe(d->ready_pipe) != 0) {
		log_warn("pipe");
		return 1;
	}
	fd_set_flags(d->ready_pipe[0], 1);
	fd_set_flags(d->ready_pipe[1], 0);
	ready_watch = comm_watch_create(d->base, d->ready_pipe[0], ready_cb, d);
	d->sig = comm_signal_create(d->base, sig_cb, d);
	d->restart_timer = comm_timer_create(d->base, restart_timer_cb, d);
	if(!ready_watch || !d->sig || !d->restart_timer ||
		comm_signal_bind(d->sig, SIGTERM) != 0 ||
		comm_signal_bind(d->sig, SIGINT) != 0 ||
		comm_signal_bind(d->sig, SIGQUIT) != 0 ||
		comm_signal_bind(d->sig, SIGHUP) != 0 ||
		comm_signal_bind(d->sig, SIGUSR1) != 0 ||
		comm_signal_bind(d->sig, SIGCHLD) != 0) {
		log_err("cannot set up the supervisor loop");
		rc = 1;
		goto out;
	}
	signal(SIGPIPE, SIG_IGN);
	gettimeofday(&d->started, NULL);
	if(remote_needed(d->cfg) && !d->rc)
		d->rc = remote_create(d, d->cfg);
	if((remote_needed(d->cfg) && !d->rc) ||
		(d->rc && remote_attach(d->rc, d->base) != 0)) {
		rc = 1;
		goto out;
	}
	if(start_workers(d) != 0) {
		log_err("cannot start the workers");
		rc = 1;
		goto out;
	}
	if(shm_stats_start(d) != 0) {
		rc = 1;
		goto out;
	}
	/* (the backend in use: io_uring may have fallen back) */
	log_info("petrel %s started: %d worker%s, %s, %s backend",
		PACKAGE_VERSION, d->num_workers, d->num_workers == 1 ? "" : "s",
		config_thread_model_str(d->cfg->thread_model),
		comm_base_backend_name(d->base));
	while(!d->stopping) {
		if(comm_base_dispatch(d->base) != 0) {
			rc = 1;
			break;
		}
		if(d->reload_pending && !d->stopping) {
			d->reload_pending = 0;
			do_reload(d);
		}
	}
	sdnotify_send("STOPPING=1");
out:
	shm_stats_stop(d);
	stop_workers(d);
	remote_delete(d->rc);
	d->rc = NULL;
	comm_watch_delete(ready_watch);
	comm_timer_delete(d->restart_timer);
	d->restart_timer = NULL;
	comm_signal_delete(d->sig);
	d->sig = NULL;
	log_info("petrel stopped");
	return rc;
}

void
daemon_delete(struct daemon *d)
{
	if(!d)
		return;
	shm_stats_stop(d);
	stop_workers(d);
	remote_delete(d->rc);
	d->rc = NULL;
	env_delete(d->env);
	listen_set_close(d->ls);
	remove_pidfile(d);
	comm_base_delete(d->base);
	if(d->ready_pipe[0] != -1)
		close(d->ready_pipe[0]);
	if(d->ready_pipe[1] != -1)
		close(d->ready_pipe[1]);
	config_delete(d->cfg);
	free(d->kept);
	free(d->cfgfile);
	free(d);
}
