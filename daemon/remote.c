/*
 * daemon/remote.c - the control server and the metrics endpoint: the
 * listeners, the two protocols (PETREL1 and Unbound's UBCT1, plain or
 * TLS; HTTP for /metrics), and the commands run in the supervisor. The
 * commands a worker runs are in remote_worker.c, the configuration edits
 * in remote_cfg.c. See remote.h for the design.
 */
#include "config.h"
#include "daemon/remote.h"
#include "daemon/remote_cfg.h"
#include "daemon/remote_worker.h"
#include "daemon/daemon.h"
#include "daemon/env.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "services/mesh.h"
#include "front/policy.h"
#include "front/localzone.h"
#include "front/modstack.h"
#include "services/rpz.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "services/cache/shcache.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/version.h"
#include "util/log_limit.h"
#include "front/cookie_secrets.h"
#include "dns/as112.h"
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <openssl/ssl.h>
#include <openssl/err.h>
#include <ldns/ldns.h>

/** socket timeout for a control connection, ms */
#define REMOTE_TIMEOUT_MS 3000
/** the most a control connection may take in all, seconds (a slow
 * client cannot hold the supervisor longer) */
#define REMOTE_CONN_MAX_SECS 30

/** a listening socket */
struct remote_listener {
	/** the socket */
	int fd;
	/** 1 for a unix socket (no TLS) */
	int is_unix;
	/** 1 for the metrics endpoint */
	int http;
	/** the watch on fd */
	struct comm_watch *watch;
	/** back pointer */
	struct remote *rc;
	/** unix socket path, to unlink at close */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

struct remote {
	/** the daemon */
	struct daemon *d;
	/** listeners */
	struct remote_listener *ls;
	/** how many */
	int num;
	/** TLS context for TCP control connections, or NULL */
	SSL_CTX *ctx;
	/** the connection being served now, or -1: a command that starts
	 * worker processes (a reload that moves the listening points) forks
	 * while it is open, and each child closes its copy
	 * (remote_child_close), or the client would wait for the end of
	 * the answer until the children exit */
	int conn_fd;
};

/** one connection */
struct remote_conn {
	/** the socket */
	int fd;
	/** TLS, or NULL */
	SSL *ssl;
	/** read buffer */
	char rbuf[4096];
	/** its fill and position */
	size_t rlen, rpos;
	/** when the connection must be done (time()) */
	time_t deadline;
};









/* ------------------------------------------------------------------ */
/* supervisor: calling workers                                         */

/** the pipes to worker i; @return 0 or -1 (not running) */
static int
worker_fds(struct daemon *d, int i, int *cmdfd, int *readfd)
{
	if(d->children) {
		if(d->children[i].pid <= 0)
			return -1;
		*cmdfd = d->children[i].cmd_fd;
		*readfd = d->children[i].stat_fd;
		return 0;
	}
	if(d->workers && d->workers[i]) {
		struct worker *w = d->workers[i];
		if(w->stat_pipe[0] == -1)
			return -1;
		*cmdfd = w->cmd_pipe[1];
		*readfd = w->stat_pipe[0];
		return 0;
	}
	return -1;
}

/**
 * Run a command in worker i and get its reply.
 * @return 0 with reply filled, or -1 (not running, timeout).
 */
static int
worker_call(struct daemon *d, int i, const char *line, const char *payload,
	size_t plen, struct stats_buf *reply)
{
	int cmdfd, readfd, oldfl, r;
	uint32_t len, hdr[2];
	size_t ll = strlen(line);
	char junk[4096], c = 'C';
	if(worker_fds(d, i, &cmdfd, &readfd) != 0)
		return -1;
	/* drop what a timed-out earlier call left in the pipe */
	(void)remote_fd_nonblock(readfd, 1);
	while(read(readfd, junk, sizeof(junk)) > 0)
		;
	len = (uint32_t)(ll + 1 + plen);
	oldfl = remote_fd_nonblock(cmdfd, 1);
	r = remote_fd_write_all(cmdfd, &c, 1, REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0)
		r = remote_fd_write_all(cmdfd, &len, sizeof(len),
			REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0)
		r = remote_fd_write_all(cmdfd, line, ll + 1, REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0 && plen)
		r = remote_fd_write_all(cmdfd, payload, plen,
			REMOTE_WORKER_TIMEOUT_MS);
	(void)fcntl(cmdfd, F_SETFL, oldfl);
	if(r != 0) {
		log_warnx("control: cannot send '%s' to worker %d", line, i);
		return -1;
	}
	if(remote_fd_read_all(readfd, hdr, sizeof(hdr), REMOTE_WORKER_TIMEOUT_MS)
		!= 0 || hdr[0] != REMOTE_MAGIC || hdr[1] > REMOTE_FRAME_MAX) {
		log_warnx("control: no reply from worker %d to '%s'", i, line);
		return -1;
	}
	while(hdr[1] > 0) {
		size_t n = hdr[1] < sizeof(junk) ? hdr[1] : sizeof(junk);
		if(remote_fd_read_all(readfd, junk, n, REMOTE_WORKER_TIMEOUT_MS) != 0) {
			log_warnx("control: short reply from worker %d", i);
			return -1;
		}
		stats_buf_append(reply, junk, n);
		hdr[1] -= (uint32_t)n;
	}
	return 0;
}

/** which workers a cache command goes to: all with fork, else worker 0 */
static int
cache_workers(struct daemon *d)
{
	return d->children ? d->num_workers : (d->num_workers > 0 ? 1 : 0);
}

int
remote_gather_stats(struct daemon *d, int mode, struct stats_info *info,
	struct stats_globals *g)
{
	struct timeval now;
	char line[32];
	int i;
	memset(g, 0, sizeof(*g));
	snprintf(line, sizeof(line), "stats_get %d", mode);
	for(i = 0; i < d->num_workers; i++) {
		struct stats_buf b;
		memset(&b, 0, sizeof(b));
		memset(&info[i], 0, sizeof(info[i]));
		if(worker_call(d, i, line, NULL, 0, &b) == 0 &&
			b.len == sizeof(info[i]))
			memcpy(&info[i], b.data, sizeof(info[i]));
		stats_buf_free(&b);
		if(d->children && d->env && d->env->shc) {
			/* one shared message and RRset cache: count
			 * them once */
			if(info[i].mem_msg > g->mem_msg)
				g->mem_msg = info[i].mem_msg;
			if(info[i].mem_rrset > g->mem_rrset)
				g->mem_rrset = info[i].mem_rrset;
			if(info[i].msg_count > g->msg_count)
				g->msg_count = info[i].msg_count;
			if(info[i].rrset_count > g->rrset_count)
				g->rrset_count = info[i].rrset_count;
			g->infra_count += info[i].infra_count;
			stats_upstream_sum(&g->upstream, &info[i].upstream);
		} else if(d->children || i == 0) {
			/* threads share one cache: count it once */
			g->mem_msg += info[i].mem_msg;
			g->mem_rrset += info[i].mem_rrset;
			g->msg_count += info[i].msg_count;
			g->rrset_count += info[i].rrset_count;
			g->infra_count += info[i].infra_count;
			stats_upstream_sum(&g->upstream, &info[i].upstream);
		}
		/* the validator's key cache: one per process (the threads
		 * share the module stack; it is not in a shared mapping);
		 * so are the modules' memory: each process's, or worker
		 * 0's figure for the threads (the stack's data and its own,
		 * as Unbound reports the worker that serves the command) */
		if(d->children || i == 0) {
			g->key_count += info[i].key_count;
			stats_mods_add(&g->mods, &info[i].mods);
		}
		if((double)info[i].s.elapsed / 1e6 > g->elapsed)
			g->elapsed = (double)info[i].s.elapsed / 1e6;
	}
	gettimeofday(&now, NULL);
	g->now = (double)now.tv_sec + (double)now.tv_usec / 1e6;
	g->up = g->now - ((double)d->started.tv_sec +
		(double)d->started.tv_usec / 1e6);
	g->extended = d->cfg->extended_statistics;
	g->show_zero = !d->cfg->statistics_inhibit_zero;
	return 0;
}

/* ------------------------------------------------------------------ */
/* supervisor: connections                                             */

/** the warnings a bad control client causes (slow, garbage, failed
 * handshake): at most 10 a minute, so that a flood of bad connections
 * cannot fill the log */
static struct log_limit remote_warn_limit =
	LOG_LIMIT_INIT(10, 60, "control");

/** read up to len bytes; @return bytes, 0 at end, -1 on error */
static ssize_t
conn_read(struct remote_conn *c, void *buf, size_t len)
{
	if(time(NULL) > c->deadline) {
		if(log_limit_allow(&remote_warn_limit, time(NULL)))
			log_warnx("control: connection too slow, closed");
		return -1;
	}
	if(c->ssl) {
		int r = SSL_read(c->ssl, buf, (int)len);
		if(r > 0)
			return r;
		return SSL_get_error(c->ssl, r) == SSL_ERROR_ZERO_RETURN ? 0 :
			-1;
	}
	for(;;) {
		ssize_t r = read(c->fd, buf, len);
		if(r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

/** read one line (without the newline); @return 0, or -1 (end, error,
 * too long) */
static int
conn_readline(struct remote_conn *c, char *line, size_t max)
{
	size_t n = 0;
	for(;;) {
		char ch;
		if(c->rpos == c->rlen) {
			ssize_t r = conn_read(c, c->rbuf, sizeof(c->rbuf));
			if(r <= 0) {
				if(n > 0 && r == 0)
					break;
				return -1;
			}
			c->rlen = (size_t)r;
			c->rpos = 0;
		}
		ch = c->rbuf[c->rpos++];
		if(ch == '\n')
			break;
		if(n + 1 >= max)
			return -1;
		line[n++] = ch;
	}
	if(n > 0 && line[n-1] == '\r')
		n--;
	line[n] = 0;
	return 0;
}

/** write everything; @return 0 or -1 */
static int
conn_write(struct remote_conn *c, const void *buf, size_t len)
{
	const char *p = buf;
	while(len > 0) {
		ssize_t r;
		if(time(NULL) > c->deadline) {
			if(log_limit_allow(&remote_warn_limit, time(NULL)))
				log_warnx("control: client too slow to read, "
					"closed");
			return -1;
		}
		if(c->ssl) {
			r = SSL_write(c->ssl, p, (int)(len > 65536 ? 65536 : len));
			if(r <= 0)
				return -1;
		} else {
			r = write(c->fd, p, len);
			if(r < 0 && errno == EINTR)
				continue;
			if(r <= 0)
				return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/** append a list of a config's zones (only the first when one) */
static void
list_zones(struct stats_buf *out, const struct config_stub *z, int fwd,
	int one)
{
	for(; z; z = one ? NULL : z->next) {
		const struct config_addrlist *a;
		const struct config_strlist *h;
		stats_buf_printf(out, "%s IN %s%s", z->name, fwd ? "forward" :
			"stub", z->first ? " +first" : "");
		for(a = z->addrs; a; a = a->next)
			stats_buf_printf(out, " %s", a->str);
		for(h = z->hosts; h; h = h->next)
			stats_buf_printf(out, " %s", h->str);
		stats_buf_append(out, "\n", 1);
	}
}

/** an address as Unbound's list commands print it: the IP alone */
static void
print_ip(struct stats_buf *out, const struct netaddr *a)
{
	char ip[INET6_ADDRSTRLEN];
	size_t n = 0;
	const uint8_t *b = netaddr_bytes(a, &n);
	if(inet_ntop(netaddr_family(a), b, ip, sizeof(ip)))
		stats_buf_printf(out, " %s", ip);
}

/** the root hints, as the module that resolves gives them
 * (MODULE_CTL_ROOT_HINTS): at most 256, pointers into its data */
struct root_hints_list {
	/** NS names, wire */
	const uint8_t *name[256];
	/** their addresses, or NULL */
	const struct netaddr *addr[256];
	/** how many */
	int n;
};

/** module_ctl_arg.hint: one root hint into a struct root_hints_list */
static void
root_hints_cb(void *arg, const uint8_t *name, const struct netaddr *addr)
{
	struct root_hints_list *l = (struct root_hints_list *)arg;
	if(l->n >= 256)
		return;
	l->name[l->n] = name;
	l->addr[l->n] = addr;
	l->n++;
}

/** the root hints as Unbound's list_stubs shows them, the stub of ".":
 * ". IN stub prime NS... ADDR...", both lists in reverse order (the
 * order Unbound's delegation point holds them in) */
static void
list_root_hints_unbound(struct stats_buf *out,
	const struct module_stack *mods)
{
	struct root_hints_list l;
	struct module_ctl_arg c;
	int n, i, j;
	memset(&c, 0, sizeof(c));
	l.n = 0;
	c.hint = root_hints_cb;
	c.cbarg = &l;
	(void)modstack_control(mods, NULL, MODULE_CTL_ROOT_HINTS, &c);
	n = l.n;
	if(n == 0)
		return;
	stats_buf_printf(out, ". IN stub prime");
	for(i = n - 1; i >= 0; i--) {
		char nm[DNS_MAX_NAME_STR];
		/* each name once */
		for(j = n - 1; j > i; j--)
			if(dname_equal(l.name[j], l.name[i]))
				break;
		if(j > i || dname_to_str(l.name[i], nm, sizeof(nm)) < 0)
			continue;
		stats_buf_printf(out, " %s", nm);
	}
	for(i = n - 1; i >= 0; i--)
		if(l.addr[i])
			print_ip(out, l.addr[i]);
	stats_buf_append(out, "\n", 1);
}

static int ub_zone_name_cmp(const uint8_t *a, const uint8_t *b);

/** a stub or forward zone and its name (wire), to sort */
struct ub_stub_item {
	/** the zone */
	const struct config_stub *z;
	/** its name */
	uint8_t name[DNS_MAX_NAME + 1];
};

/** qsort: stubs, forwards in Unbound's order */
static int
ub_stub_cmp(const void *a, const void *b)
{
	return ub_zone_name_cmp(((const struct ub_stub_item *)a)->name,
		((const struct ub_stub_item *)b)->name);
}

/**
 * list_stubs, list_forwards to unbound-control, as Unbound prints them:
 * "name IN stub prime|noprime NS... ADDR..." (the root hints first),
 * "name IN forward NS... ADDR...", addresses without their port.
 */
static void
list_zones_unbound(const struct daemon *d, struct stats_buf *out,
	const struct config_stub *z, int fwd)
{
	const struct daemon_env *env = d->env;
	const struct config_stub *c;
	int root_stub = 0;
	for(c = z; c; c = c->next)
		if(strcmp(c->name, ".") == 0)
			root_stub = 1;
	size_t n = 0, i;
	struct ub_stub_item *ls = NULL;
	if(!fwd && !root_stub && env)
		list_root_hints_unbound(out, &env->mods);
	/* in the order of Unbound's trees of stubs and forwards (by name,
	 * as its local zones), not in the order they were configured */
	for(c = z; c; c = c->next)
		n++;
	if(n && !(ls = calloc(n, sizeof(*ls)))) {
		stats_buf_printf(out, "error out of memory\n");
		return;
	}
	for(i = 0, c = z; c && i < n; c = c->next, i++) {
		size_t len;
		ls[i].z = c;
		if(remote_parse_name(c->name, ls[i].name, &len) != 0)
			ls[i].name[0] = 0;
	}
	if(n)
		qsort(ls, n, sizeof(*ls), ub_stub_cmp);
	for(i = 0; i < n; i++) {
		const struct config_addrlist *a;
		const struct config_strlist *h;
		z = ls[i].z;
		stats_buf_printf(out, "%s IN %s", z->name, fwd ? "forward" :
			(z->prime ? "stub prime" : "stub noprime"));
		for(h = z->hosts; h; h = h->next)
			stats_buf_printf(out, " %s", h->str);
		for(a = z->addrs; a; a = a->next)
			print_ip(out, &a->addr);
		stats_buf_append(out, "\n", 1);
	}
	free(ls);
}

/** the zone clause that covers name (longest match), or NULL */
static const struct config_stub *
zone_for(const struct config_stub *z, const uint8_t *name, int *labels)
{
	const struct config_stub *best = NULL;
	for(; z; z = z->next) {
		uint8_t zn[DNS_MAX_NAME + 1];
		size_t zl;
		int l;
		if(remote_parse_name(z->name, zn, &zl) != 0 ||
			!dname_is_subdomain(name, zn))
			continue;
		l = dname_count_labels(zn);
		if(l > *labels) {
			*labels = l;
			best = z;
		}
	}
	return best;
}

/** status: the module stack as Unbound prints it, "modules: 2 [
 * validator iterator ]" */
static void
print_modules(const struct daemon *d, struct stats_buf *out)
{
	const struct module_stack *m = d->env ? &d->env->mods : NULL;
	int i, n = m ? m->num : 0;
	stats_buf_printf(out, "modules: %d [ ", n);
	for(i = 0; i < n; i++)
		stats_buf_printf(out, "%s ", m->mod[i]->name);
	stats_buf_printf(out, "]\n");
}

/** status; unbound: 1 for unbound-control (Unbound's options line) */
static void
do_status(struct remote *rc, struct stats_buf *out, int unbound)
{
	struct daemon *d = rc->d;
	struct timeval now;
	gettimeofday(&now, NULL);
	stats_buf_printf(out, "version: %s\n", PACKAGE_VERSION);
	stats_buf_printf(out, "verbosity: %d\n", verbosity);
	stats_buf_printf(out, "threads: %d\n", d->num_workers);
	stats_buf_printf(out, "thread-model: %s\n",
		config_thread_model_str(d->cfg->thread_model));
	stats_buf_printf(out, "event-backend: %s\n",
		config_event_backend_str(d->cfg->event_backend));
	print_modules(d, out);
	stats_buf_printf(out, "uptime: %lld seconds\n",
		(long long)(now.tv_sec - d->started.tv_sec));
	if(unbound) {
		/* Unbound's words: "control", "(ssl)" with TLS, and
		 * "(namedpipe)" when the first control-interface is a unix
		 * socket */
		const struct config_strlist *ci =
			config_control_interfaces(d->cfg);
		stats_buf_printf(out, "options:%s%s%s%s\n",
			d->cfg->so_reuseport ? " reuseport" : "",
			d->cfg->control_enable ? " control" : "",
			d->cfg->control_enable && rc->ctx ? "(ssl)" : "",
			d->cfg->control_enable && ci && ci->str[0] == '/' ?
			"(namedpipe)" : "");
	} else
		stats_buf_printf(out, "options:%s%s control(%s)\n",
			d->cfg->so_reuseport ? " reuseport" : "",
			d->cfg->http_metrics_interface[0] ? " metrics" : "",
			rc->ctx ? "ssl" : "plain");
	stats_buf_printf(out, "petrel (pid %d) is running...\n", (int)getpid());
}

/** send a command to the cache workers and sum "a b" replies */
static int
sum_workers(struct daemon *d, const char *line, const char *payload,
	size_t plen, int nworkers, unsigned long long *sums, int nsums,
	struct stats_buf *out)
{
	int i, k, ok = 0;
	for(k = 0; k < nsums; k++)
		sums[k] = 0;
	for(i = 0; i < nworkers; i++) {
		struct stats_buf b;
		unsigned long long v[3] = { 0, 0, 0 };
		memset(&b, 0, sizeof(b));
		if(worker_call(d, i, line, payload, plen, &b) != 0) {
			stats_buf_free(&b);
			continue;
		}
		if(b.len >= 5 && strncmp(b.data, "error", 5) == 0) {
			stats_buf_append(out, b.data, b.len);
			stats_buf_free(&b);
			return -1;
		}
		if(b.data && sscanf(b.data, "%llu %llu %llu", &v[0], &v[1],
			&v[2]) >= 2) {
			for(k = 0; k < nsums && k < 3; k++)
				sums[k] += v[k];
			ok++;
		}
		stats_buf_free(&b);
	}
	if(ok == 0) {
		stats_buf_printf(out, "error no worker answered\n");
		return -1;
	}
	return 0;
}

/** join text replies of workers */
static void
join_workers(struct daemon *d, const char *line, int nworkers,
	struct stats_buf *out)
{
	int i;
	for(i = 0; i < nworkers; i++) {
		struct stats_buf b;
		memset(&b, 0, sizeof(b));
		if(worker_call(d, i, line, NULL, 0, &b) == 0 && b.len)
			stats_buf_append(out, b.data, b.len);
		stats_buf_free(&b);
	}
}

/** a config-changing command: apply it as a reload keeping the caches */
static void
do_cfg_change(struct remote *rc, const char *cmd, const char *args,
	struct stats_buf *out)
{
	struct daemon *d = rc->d;
	struct config_file *ncfg = config_dup(d->cfg);
	struct stats_buf report;
	pid_t *before = NULL;
	char err[512], line[REMOTE_LINE_MAX + 64];
	int i, fork_model = d->children != NULL, nbulk = 0;
	err[0] = 0;
	memset(&report, 0, sizeof(report));
	if(!ncfg) {
		stats_buf_printf(out, "error out of memory\n");
		return;
	}
	if(remote_cfg_bulk_single(cmd)) {
		/* each line alone; the bad ones reported, as Unbound does */
		nbulk = remote_cfg_change_bulk(ncfg, remote_cfg_bulk_single(cmd), args, &report);
	} else if(remote_cfg_change(ncfg, cmd, args, err, sizeof(err)) != 0) {
		config_delete(ncfg);
		stats_buf_printf(out, "error %s\n", err);
		return;
	}
	if(fork_model) {
		before = calloc((size_t)d->num_workers, sizeof(pid_t));
		for(i = 0; before && i < d->num_workers; i++)
			before[i] = d->children[i].pid;
	}
	if(daemon_apply_config(d, ncfg, 0) != 0) {
		free(before);
		stats_buf_free(&report);
		stats_buf_printf(out, "error the changed config does not "
			"load (see the log); nothing changed\n");
		return;
	}
	if(fork_model && d->children) {
		/* a bulk command's lines go as the payload */
		int bulk = remote_cfg_bulk_single(cmd) != NULL;
		if(bulk)
			snprintf(line, sizeof(line), "cfg %s", cmd);
		else	snprintf(line, sizeof(line), "cfg %s %s", cmd, args);
		for(i = 0; i < d->num_workers; i++) {
			struct stats_buf b;
			/* a child started by the reload already has it */
			if(before && before[i] != d->children[i].pid)
				continue;
			memset(&b, 0, sizeof(b));
			if(worker_call(d, i, line, bulk ? args : NULL,
				bulk ? strlen(args) + 1 : 0, &b) != 0 ||
				b.len < 2 || strncmp(b.data, "ok", 2) != 0)
				log_warnx("control: worker %d did not take "
					"'%s'", i, line);
			stats_buf_free(&b);
		}
	}
	free(before);
	if(remote_cfg_bulk_single(cmd)) {
		if(report.len)
			stats_buf_append(out, report.data, report.len);
		stats_buf_printf(out, "%s %d %s\n", strstr(cmd, "remove") ?
			"removed" : "added", nbulk, strncmp(cmd, "local_zones",
			11) == 0 ? "zones" : "datas");
	} else
		stats_buf_printf(out, "ok\n");
	stats_buf_free(&report);
}

/** read the load_cache payload from the connection, up to "EOF" */
static int
read_dump(struct remote_conn *c, struct stats_buf *dump)
{
	size_t max = 1048576;	/* a 64 KB message is 128 KB of hex */
	char *line = malloc(max);
	if(!line)
		return -1;
	for(;;) {
		if(conn_readline(c, line, max) != 0) {
			free(line);
			return -1;
		}
		stats_buf_printf(dump, "%s\n", line);
		if(strcmp(line, "EOF") == 0)
			break;
		if(dump->len > REMOTE_FRAME_MAX / 2) {
			free(line);
			return -1;
		}
	}
	free(line);
	return dump->oom ? -1 : 0;
}

/** what a command handler gets */
struct remote_req {
	/** the server */
	struct remote *rc;
	/** the daemon */
	struct daemon *d;
	/** the connection (load_cache reads its dump from it) */
	struct remote_conn *c;
	/** the command word */
	const char *cmd;
	/** its arguments (trimmed) */
	char *args;
	/** "cmd args", as sent on to the workers */
	const char *line;
	/** the answer */
	struct stats_buf *out;
	/** 1 when the client spoke Unbound's protocol (UBCT1): where a
	 * script of Unbound's parses the answer, it gets Unbound's bytes
	 * ("ok" where petrel-control is told what was removed) */
	int unbound;
};

/** a command handler */
typedef void (*remote_cmd_func)(struct remote_req *q);

static void
cmd_status(struct remote_req *q)
{
	do_status(q->rc, q->out, q->unbound);
}

/**
 * shared_cache_check: run the consistency checker on the shared cache of
 * forked workers (in the supervisor, slab by slab under the slab locks).
 */
static void
cmd_shared_cache_check(struct remote_req *q)
{
	char err[512];
	struct shcache *sc = q->d->env ? q->d->env->shc : NULL;
	if(!sc) {
		stats_buf_printf(q->out, "error no shared cache (shared-cache "
			"needs thread-model: fork)\n");
		return;
	}
	if(shcache_check(sc, err, sizeof(err)) != 0) {
		stats_buf_printf(q->out, "error %s\n", err);
		return;
	}
	stats_buf_printf(q->out, "ok %zu entries, %zu bytes, %zu slab "
		"repairs\n", mcache_get_count(q->d->env->msg),
		mcache_get_mem(q->d->env->msg), shcache_repairs(sc));
}

/** stats, stats_noreset */
static void
cmd_stats(struct remote_req *q)
{
	struct stats_info *info = calloc((size_t)q->d->num_workers + 1,
		sizeof(*info));
	struct stats_globals g;
	int reset = strcmp(q->cmd, "stats") == 0 &&
		!q->d->cfg->statistics_cumulative;
	if(!info) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	remote_gather_stats(q->d, reset, info, &g);
	stats_print(q->out, info, q->d->num_workers, &g);
	free(info);
}

/** flush_stats: zero the counters */
static void
cmd_flush_stats(struct remote_req *q)
{
	struct stats_info *info = calloc((size_t)q->d->num_workers + 1,
		sizeof(*info));
	struct stats_globals g;
	if(!info) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	remote_gather_stats(q->d, 1, info, &g);
	free(info);
	stats_buf_printf(q->out, "ok\n");
}

/** reload, reload_keep_cache */
static void
cmd_reload(struct remote_req *q)
{
	struct daemon *d = q->d;
	int gen = d->generation;
	daemon_request_reload(d);
	if(d->generation == gen) {
		stats_buf_printf(q->out, "error reload failed: the config does "
			"not load (see the log); the old one keeps running\n");
		return;
	}
	if(strcmp(q->cmd, "reload") == 0) {
		if(d->children) {
			struct stats_buf tmp;
			unsigned long long sums[2];
			memset(&tmp, 0, sizeof(tmp));
			if(sum_workers(d, "flush_all", NULL, 0, d->num_workers,
				sums, 2, &tmp) != 0)
				log_warnx("control: reload: a worker did not "
					"empty its cache");
			stats_buf_free(&tmp);
		} else
			env_clear_caches(d->env);
	}
	stats_buf_printf(q->out, "ok\n");
}

static void
cmd_stop(struct remote_req *q)
{
	stats_buf_printf(q->out, "ok\n");
	q->d->stopping = 1;
	comm_base_exit(q->d->base);
}

static void
cmd_verbosity(struct remote_req *q)
{
	char *end = NULL;
	long v = strtol(q->args, &end, 10);
	if(!q->args[0] || !end || *end || v < 0 || v > 5) {
		stats_buf_printf(q->out, "error verbosity takes a number 0..5, "
			"not '%s'\n", q->args);
		return;
	}
	log_set_verbosity((int)v);
	if(q->d->children) {
		/* each child process has its own */
		struct stats_buf tmp;
		memset(&tmp, 0, sizeof(tmp));
		join_workers(q->d, q->line, q->d->num_workers, &tmp);
		stats_buf_free(&tmp);
	}
	stats_buf_printf(q->out, "ok\n");
}

static void
cmd_log_reopen(struct remote_req *q)
{
	if(log_reopen() != 0)
		log_warn("cannot reopen the log file");
	daemon_command_all(q->d, 'L');
	stats_buf_printf(q->out, "ok\n");
}

/** flush, flush_zone, flush_type, flush_negative, flush_bogus,
 * flush_infra: in the cache workers, counts summed */
static void
cmd_flush(struct remote_req *q)
{
	unsigned long long sums[3];
	if(sum_workers(q->d, q->line, NULL, 0, cache_workers(q->d), sums, 3,
		q->out) != 0)
		return;
	/* Unbound answers flush, flush_type and flush_infra with "ok";
	 * flush_zone, flush_negative and flush_bogus with the counts */
	if(q->unbound && (strcmp(q->cmd, "flush") == 0 ||
		strcmp(q->cmd, "flush_type") == 0 ||
		strcmp(q->cmd, "flush_infra") == 0))
		stats_buf_printf(q->out, "ok\n");
	else if(strcmp(q->cmd, "flush_infra") == 0)
		stats_buf_printf(q->out, "ok removed %llu hosts\n", sums[0]);
	else	stats_buf_printf(q->out, "ok removed %llu rrsets, %llu "
			"messages and %llu key entries\n", sums[0], sums[1],
			sums[2]);
}

/** insecure_add, insecure_remove: the validator's store is shared by
 * the threads of a process (one call), per process with fork (each) */
/** @return 1 for unbound-control when the validator is not in the
 * module stack: Unbound keeps domain-insecure names beside the trust
 * anchors, which exist without a validator (insecure_add answers ok,
 * list_insecure lists them), where they change nothing; petrel keeps them
 * in its validator, and tells petrel-control that there is none */
static int
ub_no_validator(const struct remote_req *q)
{
	return q->unbound && (!q->d->env ||
		modstack_control_find(&q->d->env->mods,
		MODULE_CTL_INSECURE_ADD) < 0);
}

static void
cmd_insecure(struct remote_req *q)
{
	unsigned long long sums[2];
	uint8_t nm[DNS_MAX_NAME + 1];
	size_t nl;
	if(ub_no_validator(q) && remote_parse_name(q->args, nm, &nl) == 0 &&
		!strchr(q->args, ' ')) {
		stats_buf_printf(q->out, "ok\n");
		return;
	}
	if(sum_workers(q->d, q->line, NULL, 0, cache_workers(q->d), sums, 2,
		q->out) != 0)
		return;
	stats_buf_printf(q->out, "ok\n");
}

/** list_insecure: from the first worker */
static void
cmd_list_insecure(struct remote_req *q)
{
	if(ub_no_validator(q))
		return;
	join_workers(q->d, q->line, q->d->num_workers > 0 ? 1 : 0, q->out);
}

/** flush_requestlist: every worker has its own mesh */
static void
cmd_flush_requestlist(struct remote_req *q)
{
	unsigned long long sums[2];
	if(sum_workers(q->d, q->line, NULL, 0, q->d->num_workers, sums, 2,
		q->out) != 0)
		return;
	if(q->unbound)
		stats_buf_printf(q->out, "ok\n");
	else	stats_buf_printf(q->out, "ok removed %llu queries\n",
			sums[1]);
}

static void
cmd_dump_requestlist(struct remote_req *q)
{
	join_workers(q->d, q->line, q->d->num_workers, q->out);
}

/** dump_cache: Unbound's text format (services/cache/cachedump.h); each
 * cache worker (one per cache) sends its RRset part, a line
 * END_RRSET_CACHE and its message part, framed here into one dump */
static void
cmd_dump_cache(struct remote_req *q)
{
	struct stats_buf msgs;
	int i, n = cache_workers(q->d);
	static const char sep[] = "END_RRSET_CACHE\n";
	const size_t seplen = sizeof(sep) - 1;
	memset(&msgs, 0, sizeof(msgs));
	stats_buf_printf(q->out, "START_RRSET_CACHE\n");
	for(i = 0; i < n; i++) {
		struct stats_buf b;
		size_t at = 0;
		memset(&b, 0, sizeof(b));
		if(worker_call(q->d, i, q->line, NULL, 0, &b) == 0 && b.len) {
			/* the separator: at the start or after a newline */
			while(at + seplen <= b.len && (memcmp(b.data + at, sep,
				seplen) != 0 || (at > 0 && b.data[at-1] != '\n')))
				at++;
			if(at + seplen > b.len) {
				/* an error line, or nothing: no part */
				if(strncmp(b.data, "error", 5) == 0)
					log_warnx("control: dump_cache: worker "
						"%d: %.*s", i, (int)strcspn(
						b.data, "\n"), b.data);
			} else {
				stats_buf_append(q->out, b.data, at);
				stats_buf_append(&msgs, b.data + at + seplen,
					b.len - at - seplen);
			}
		}
		stats_buf_free(&b);
	}
	stats_buf_printf(q->out, "END_RRSET_CACHE\nSTART_MSG_CACHE\n");
	if(msgs.len)
		stats_buf_append(q->out, msgs.data, msgs.len);
	stats_buf_free(&msgs);
	stats_buf_printf(q->out, "END_MSG_CACHE\nEOF\n");
}

/** load_cache: Unbound's text format, loaded by each cache worker. A
 * worker reads the whole dump before it stores anything, so a malformed
 * one is refused by the first worker (its error names the line) and no
 * worker loads any of it */
static void
cmd_load_cache(struct remote_req *q)
{
	struct stats_buf dump;
	unsigned long long sums[3];
	memset(&dump, 0, sizeof(dump));
	if(read_dump(q->c, &dump) != 0) {
		stats_buf_free(&dump);
		stats_buf_printf(q->out, "error the dump did not end with a "
			"line EOF (or was too long)\n");
		return;
	}
	/* forked workers on one shared cache: one of them loads it (each
	 * would store the same entries again) */
	if(sum_workers(q->d, "load_cache", dump.data, dump.len,
		q->d->children && q->d->env && q->d->env->shc ? 1 :
		cache_workers(q->d), sums, 3, q->out) != 0) {
		stats_buf_free(&dump);
		return;
	}
	stats_buf_free(&dump);
	if(q->unbound)
		stats_buf_printf(q->out, "ok\n");
	else	stats_buf_printf(q->out, "ok loaded %llu entries, %llu "
			"skipped (expired, bogus, already cached or "
			"unreferenced)\n", sums[0], sums[1]);
}

static void
cmd_lookup(struct remote_req *q)
{
	struct daemon *d = q->d;
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl, n;
	int labels = -1;
	const struct config_stub *f, *s;
	char line[REMOTE_LINE_MAX + 32];
	struct stats_buf b;
	memset(&b, 0, sizeof(b));
	if(remote_parse_name(q->args, name, &nl) != 0 || strchr(q->args, ' ')) {
		stats_buf_printf(q->out, "error expected: lookup name\n");
		return;
	}
	/* the name as given, absolute (Unbound prints it with its final
	 * dot and its letter case) */
	n = strlen(q->args);
	stats_buf_printf(q->out, "The following name servers are used for "
		"lookup of %s%s\n", q->args, n && q->args[n - 1] == '.' &&
		(n < 2 || q->args[n - 2] != '\\') ? "" : ".");
	f = zone_for(d->cfg->forwards, name, &labels);
	s = zone_for(d->cfg->stubs, name, &labels);
	/* zone_for kept the longer match; worker 0 looks in its caches
	 * (a shared cache is one, per-process caches show worker 0's) */
	if(s || f) {
		const struct config_stub *z = s ? s : f;
		const struct config_addrlist *a;
		struct stats_buf addrs;
		memset(&addrs, 0, sizeof(addrs));
		for(a = z->addrs; a; a = a->next)
			stats_buf_printf(&addrs, "%s ", a->str);
		if(!s)
			stats_buf_printf(q->out, "forwarding request:\n");
		snprintf(line, sizeof(line), "lookup %s %s", q->args, !s ?
			"forward" : s->prime ? "stub" : "stub-noprime");
		if(!addrs.oom && worker_call(d, 0, line, addrs.data ?
			addrs.data : "", addrs.len, &b) == 0 && b.len)
			stats_buf_append(q->out, b.data, b.len);
		stats_buf_free(&addrs);
	} else {
		snprintf(line, sizeof(line), "lookup %s", q->args);
		if(worker_call(d, 0, line, NULL, 0, &b) == 0 && b.len)
			stats_buf_append(q->out, b.data, b.len);
	}
	stats_buf_free(&b);
}

static void
cmd_list_forwards(struct remote_req *q)
{
	if(q->unbound)
		list_zones_unbound(q->d, q->out, q->d->cfg->forwards, 1);
	else	list_zones(q->out, q->d->cfg->forwards, 1, 0);
}

static void
cmd_list_stubs(struct remote_req *q)
{
	if(q->unbound)
		list_zones_unbound(q->d, q->out, q->d->cfg->stubs, 0);
	else	list_zones(q->out, q->d->cfg->stubs, 0, 0);
}

static int ub_zone_name_cmp(const uint8_t *a, const uint8_t *b);

/** an auth zone's line for list_auth_zones, with its name (wire) */
struct ub_az_line {
	/** the line */
	char *text;
	/** the zone */
	uint8_t name[DNS_MAX_NAME + 1];
};

/** qsort: auth zones in Unbound's order */
static int
ub_az_cmp(const void *a, const void *b)
{
	return ub_zone_name_cmp(((const struct ub_az_line *)a)->name,
		((const struct ub_az_line *)b)->name);
}

/** list_auth_zones to unbound-control: Unbound's lines ("name<TAB>serial
 * N" or "name<TAB>no serial"), in its order of zones */
static void
ub_list_auth_zones(struct remote_req *q)
{
	struct stats_buf b;
	struct ub_az_line *ls = NULL;
	size_t n = 0, max = 0, i;
	char *p, *nl;
	memset(&b, 0, sizeof(b));
	join_workers(q->d, "list_auth_zones +ub", cache_workers(q->d), &b);
	for(p = b.data; p && *p; p = nl) {
		char *tab = strchr(p, '\t');
		size_t len;
		if(!(nl = strchr(p, '\n')))
			nl = p + strlen(p);
		else	*nl++ = 0;
		if(!tab) {	/* an error line: as it is */
			stats_buf_printf(q->out, "%s\n", p);
			continue;
		}
		if(n == max) {
			struct ub_az_line *m = realloc(ls, (max ? 2 * max :
				16) * sizeof(*m));
			if(!m)
				break;
			ls = m;
			max = max ? 2 * max : 16;
		}
		*tab = 0;
		if(remote_parse_name(p, ls[n].name, &len) != 0)
			ls[n].name[0] = 0;
		*tab = '\t';
		ls[n++].text = p;
	}
	if(n)
		qsort(ls, n, sizeof(*ls), ub_az_cmp);
	for(i = 0; i < n; i++)	/* (with fork each worker process lists
				 * its zones: each once) */
		if(i == 0 || strcmp(ls[i].text, ls[i - 1].text) != 0)
			stats_buf_printf(q->out, "%s\n", ls[i].text);
	free(ls);
	stats_buf_free(&b);
}

/** list_auth_zones, auth_zone_reload, auth_zone_transfer: done by the
 * workers on their auth zones (one set with threads; with fork, one per
 * worker process, each answering) */
static void
cmd_auth_zone(struct remote_req *q)
{
	if(strcmp(q->cmd, "list_auth_zones") != 0 && !q->args[0]) {
		stats_buf_printf(q->out, "error %s needs a zone name\n",
			q->cmd);
		return;
	}
	if(q->unbound && strcmp(q->cmd, "list_auth_zones") == 0) {
		ub_list_auth_zones(q);
		return;
	}
	join_workers(q->d, q->line, cache_workers(q->d), q->out);
}

struct ub_skip;
static void ub_list_zones(struct stats_buf *out,
	const struct local_zones *lz, const struct config_file *cfg, int b,
	const struct ub_skip *sk);

/** list_local_zones: one zone */
static void
list_zone_cb(void *arg, const uint8_t *name, uint16_t rrclass,
	enum local_zone_type type)
{
	char nm[DNS_MAX_NAME_STR];
	(void)rrclass;
	if(dname_to_str(name, nm, sizeof(nm)) < 0)
		return;
	stats_buf_printf(arg, "%s %s\n", nm, local_zone_type_str(type));
}

static void
cmd_list_local_zones(struct remote_req *q)
{
	/* the zones in force, defaults and implicit zones included, as
	 * Unbound lists them: "name type", in its order */
	if(q->d->env && q->d->env->lz)
		ub_list_zones(q->out, q->d->env->lz, q->d->cfg, -1, NULL);
}

/** list_local_data: one record in presentation format, as Unbound's
 * ("name<TAB>ttl<TAB>class<TAB>type<TAB>rdata") */
static void
list_data_cb(void *arg, const uint8_t *zone, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	struct remote_req *q = arg;
	uint8_t wire[DNS_MAX_NAME + 10 + 65535];
	size_t ol = dname_len(owner), pos = 0;
	ldns_rr *rr = NULL;
	char *str;
	(void)zone;
	if(ol == 0 || ol > DNS_MAX_NAME || rdlen > 65535)
		return;
	memcpy(wire, owner, ol);
	dns_write_u16(wire + ol, type);
	dns_write_u16(wire + ol + 2, rrclass);
	dns_write_u32(wire + ol + 4, ttl);
	dns_write_u16(wire + ol + 8, (uint16_t)rdlen);
	memcpy(wire + ol + 10, rdata, rdlen);
	if(ldns_wire2rr(&rr, wire, ol + 10 + rdlen, &pos,
		LDNS_SECTION_ANSWER) != LDNS_STATUS_OK)
		return;
	if((str = ldns_rr2str(rr)) != NULL) {
		/* (Unbound's lines end in an empty line: its record text
		 * ends in a newline and it prints one more; unbound-control
		 * gets that byte for byte) */
		stats_buf_printf(q->out, "%s%s", str, q->unbound ? "\n" : "");
		free(str);
	}
	ldns_rr_free(rr);
}

/* ------------------------------------------------------------------ */
/* list_local_zones, list_local_data in Unbound's order                */

/*
 * Unbound walks its local zones in the order of its zone tree: class,
 * then its dname_lab_cmp order, which lines the names up at the root,
 * compares the labels they have in common and lets the one nearest the
 * root that differs decide (a shorter label first, then the lower-case
 * bytes), and puts a name after its ancestors. Within a zone the records
 * go by owner in canonical order (RFC 4034 6.1); the RRsets of an owner
 * are a list each new one is put in front of, and so are the records of
 * an RRset, and Unbound adds its default zones first, then the local-data
 * lines last to first (its config list is built by putting each line in
 * front). So an owner's RRsets come in the order of their last lines in
 * the file, then those of a default zone in the reverse of the order
 * Unbound adds them in; an RRset's records in the order of their lines.
 * petrel's zone keeps the RRsets of an owner by type and the records in
 * the order of the lines, so the RRsets are ranked from the config lines
 * (and for the default zones from the order Unbound adds their records
 * in). Records added with local_data at run time are ranked as if they
 * were at the end of the file (Unbound would put the last one added
 * first).
 */

/** @return <0, 0, >0: a before, equal to, after b in Unbound's order of
 * zone names */
static int
ub_zone_name_cmp(const uint8_t *a, const uint8_t *b)
{
	const uint8_t *la[DNS_MAX_LABELS + 1], *lb[DNS_MAX_LABELS + 1];
	int na = 0, nb = 0, n, i, diff = 0;
	for(; *a && na <= DNS_MAX_LABELS; a += *a + 1)
		la[na++] = a;
	for(; *b && nb <= DNS_MAX_LABELS; b += *b + 1)
		lb[nb++] = b;
	n = na < nb ? na : nb;
	for(i = 0; i < n; i++) {
		const uint8_t *x = la[na - n + i], *y = lb[nb - n + i];
		int k;
		if(*x != *y) {
			diff = *x < *y ? -1 : 1;
			continue;
		}
		for(k = 1; k <= *x; k++) {
			int cx = tolower(x[k]), cy = tolower(y[k]);
			if(cx != cy) {
				diff = cx < cy ? -1 : 1;
				break;
			}
		}
	}
	if(diff == 0 && na != nb)
		diff = na < nb ? -1 : 1;
	return diff;
}

/** a zone of a list */
struct ub_lz {
	/** its apex (wire, malloced) */
	uint8_t *name;
	/** class */
	uint16_t rrclass;
	/** type */
	enum local_zone_type type;
};

/** a record of a list */
struct ub_ld {
	/** the zone's apex, the owner (wire) and the rdata, in one malloced
	 * block starting at zone */
	uint8_t *zone, *owner, *rdata;
	/** rdata length */
	size_t rdlen;
	/** type, class */
	uint16_t type, rrclass;
	/** TTL */
	uint32_t ttl;
	/** the order petrel gave it in (the order of addition within an
	 * RRset) */
	size_t seq;
	/** its RRset's place among the owner's RRsets (smaller: first) */
	long rank;
};

/** a growing list of zones or records */
struct ub_list {
	/** the zones, or the records */
	struct ub_lz *z;
	struct ub_ld *d;
	/** number, room */
	size_t n, max;
	/** 1 after an allocation failed */
	int oom;
};

/** @return room for one more item of size sz in *arr, or -1 */
static int
ub_list_grow(void **arr, size_t *max, size_t n, size_t sz)
{
	void *p;
	size_t m;
	if(n < *max)
		return 0;
	m = *max ? 2 * *max : 64;
	if(!(p = realloc(*arr, m * sz)))
		return -1;
	*arr = p;
	*max = m;
	return 0;
}

/** local_zones_walk: keep one zone */
static void
ub_zone_cb(void *arg, const uint8_t *name, uint16_t rrclass,
	enum local_zone_type type)
{
	struct ub_list *l = arg;
	size_t len = dname_len(name);
	if(l->oom || ub_list_grow((void **)&l->z, &l->max, l->n,
		sizeof(*l->z)) != 0 || !(l->z[l->n].name = malloc(len))) {
		l->oom = 1;
		return;
	}
	memcpy(l->z[l->n].name, name, len);
	l->z[l->n].rrclass = rrclass;
	l->z[l->n].type = type;
	l->n++;
}

/** qsort: zones in Unbound's order */
static int
ub_zone_cmp(const void *a, const void *b)
{
	const struct ub_lz *x = a, *y = b;
	if(x->rrclass != y->rrclass)
		return x->rrclass < y->rrclass ? -1 : 1;
	return ub_zone_name_cmp(x->name, y->name);
}

/** local_data_walk: keep one record */
static void
ub_data_cb(void *arg, const uint8_t *zone, const uint8_t *owner,
	uint16_t type, uint16_t rrclass, uint32_t ttl, const uint8_t *rdata,
	size_t rdlen)
{
	struct ub_list *l = arg;
	size_t zl = dname_len(zone), ol = dname_len(owner);
	struct ub_ld *d;
	if(l->oom || ub_list_grow((void **)&l->d, &l->max, l->n,
		sizeof(*l->d)) != 0) {
		l->oom = 1;
		return;
	}
	d = &l->d[l->n];
	if(!(d->zone = malloc(zl + ol + rdlen + 1))) {
		l->oom = 1;
		return;
	}
	d->owner = d->zone + zl;
	d->rdata = d->owner + ol;
	memcpy(d->zone, zone, zl);
	memcpy(d->owner, owner, ol);
	if(rdlen)
		memcpy(d->rdata, rdata, rdlen);
	d->rdlen = rdlen;
	d->type = type;
	d->rrclass = rrclass;
	d->ttl = ttl;
	d->seq = l->n;
	d->rank = 0;
	l->n++;
}

/** qsort: records in Unbound's order */
static int
ub_data_cmp(const void *a, const void *b)
{
	const struct ub_ld *x = a, *y = b;
	int c;
	if(x->rrclass != y->rrclass)
		return x->rrclass < y->rrclass ? -1 : 1;
	if((c = ub_zone_name_cmp(x->zone, y->zone)) != 0)
		return c;
	if((c = dname_canon_cmp(x->owner, y->owner)) != 0)
		return c;
	if(x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if(x->type != y->type)
		return x->type < y->type ? -1 : 1;
	if(x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return 0;
}

/** an RRset named by a config line, and the line's number */
struct ub_cfg_rr {
	/** owner (wire, lower case) */
	uint8_t owner[DNS_MAX_NAME + 1];
	/** type */
	uint16_t type;
	/** the number of its last line */
	long line;
};

/** qsort, bsearch: by owner and type, then line */
static int
ub_cfg_rr_cmp(const void *a, const void *b)
{
	const struct ub_cfg_rr *x = a, *y = b;
	int c = dname_canon_cmp(x->owner, y->owner);
	if(c != 0)
		return c;
	if(x->type != y->type)
		return x->type < y->type ? -1 : 1;
	return 0;
}

/** the default zones whose records Unbound adds NS, SOA, then A, AAAA
 * or PTR (the others: SOA, then NS) */
static int
ub_default_ns_first(const uint8_t *zone)
{
	static const char *const names[] = { "localhost.",
		"127.in-addr.arpa.",
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"0.0.ip6.arpa.", NULL };
	int i;
	for(i = 0; names[i]; i++) {
		uint8_t nm[DNS_MAX_NAME + 1];
		size_t len;
		if(remote_parse_name(names[i], nm, &len) == 0 &&
			dname_equal(nm, zone))
			return 1;
	}
	return 0;
}

/**
 * Rank each record's RRset by where Unbound lists it: the last config
 * line that names it (lines[0..n-1], in order), else after them, its
 * place among a default zone's records.
 */
static void
ub_rank_records(struct ub_list *l, const char *const *lines, size_t n)
{
	struct ub_cfg_rr *c = n ? calloc(n, sizeof(*c)) : NULL;
	size_t i, nc = 0;
	for(i = 0; c && i < n; i++) {
		ldns_rr *rr = NULL;
		const ldns_rdf *o;
		if(ldns_rr_new_frm_str(&rr, lines[i], 3600, NULL, NULL) !=
			LDNS_STATUS_OK || !rr)
			continue;
		o = ldns_rr_owner(rr);
		if(o && ldns_rdf_size(o) <= DNS_MAX_NAME) {
			memcpy(c[nc].owner, ldns_rdf_data(o), ldns_rdf_size(o));
			dname_copy_lower(c[nc].owner, c[nc].owner);
			c[nc].type = (uint16_t)ldns_rr_get_type(rr);
			c[nc].line = (long)i;
			nc++;
		}
		ldns_rr_free(rr);
	}
	if(nc) {
		/* the last line of each RRset */
		size_t j = 0;
		qsort(c, nc, sizeof(*c), ub_cfg_rr_cmp);
		for(i = 1; i < nc; i++) {
			if(ub_cfg_rr_cmp(&c[i], &c[j]) == 0) {
				if(c[i].line > c[j].line)
					c[j].line = c[i].line;
				continue;
			}
			c[++j] = c[i];
		}
		nc = j + 1;
	}
	for(i = 0; i < l->n; i++) {
		struct ub_ld *d = &l->d[i];
		struct ub_cfg_rr key, *f = NULL;
		if(nc) {
			memcpy(key.owner, d->owner, dname_len(d->owner));
			key.type = d->type;
			f = bsearch(&key, c, nc, sizeof(*c), ub_cfg_rr_cmp);
		}
		if(f)
			d->rank = f->line;
		else if(d->type == DNS_TYPE_NS || d->type == DNS_TYPE_SOA)
			d->rank = (long)n + 3 - ((d->type == DNS_TYPE_SOA) ==
				ub_default_ns_first(d->zone) ? 1 : 0);
		else	d->rank = (long)n + 3 - (d->type == DNS_TYPE_AAAA ?
				3 : 2);
	}
	free(c);
}

/** the zones of a view-first view that are left out (see ub_view_list):
 * the default zones that the view's own local-zone lines do not name */
struct ub_skip {
	/** the config */
	const struct config_file *cfg;
	/** the view's block number */
	int b;
};

/** @return 1 when zone is one of the default zones */
static int
ub_is_default_zone(const uint8_t *zone)
{
	static const char *const names[] = { "localhost.",
		"127.in-addr.arpa.",
		"1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0."
		"0.0.ip6.arpa.", "home.arpa.", "onion.", "test.", "invalid.",
		"resolver.arpa.", "service.arpa.", NULL };
	uint8_t nm[DNS_MAX_NAME + 1];
	size_t len;
	int i;
	for(i = 0; names[i]; i++)
		if(remote_parse_name(names[i], nm, &len) == 0 &&
			dname_equal(nm, zone))
			return 1;
	for(i = 0; dns_as112_zones[i]; i++)
		if(remote_parse_name(dns_as112_zones[i], nm, &len) == 0 &&
			dname_equal(nm, zone))
			return 1;
	return 0;
}

/** @return 1 when zone is to be left out of the view's lists */
static int
ub_skipped(const struct ub_skip *sk, const uint8_t *zone)
{
	const struct config_policyline *l;
	if(!sk || !ub_is_default_zone(zone))
		return 0;
	for(l = sk->cfg->policy_lines; l; l = l->next) {
		uint8_t nm[DNS_MAX_NAME + 1];
		size_t len;
		if(l->clause == CLAUSE_VIEW && l->block == sk->b && l->n > 0 &&
			strcmp(l->key, "local-zone") == 0 &&
			remote_parse_name(l->v[0], nm, &len) == 0 &&
			dname_equal(nm, zone))
			return 0;
	}
	return 1;
}

/** a zone name written with capitals in the config */
struct ub_case {
	/** the name (wire, lower case) */
	uint8_t name[DNS_MAX_NAME + 1];
	/** as written */
	const char *text;
};

/** note name (as written in the config) when it has capitals: Unbound
 * lists a zone with the letters of its config line (the last one, as it
 * enters the lines last to first and keeps the first) */
static void
ub_case_add(struct ub_case **cs, size_t *n, const char *name)
{
	const char *p;
	struct ub_case *m;
	size_t len;
	for(p = name; *p; p++)
		if(*p >= 'A' && *p <= 'Z')
			break;
	if(!*p || !(m = realloc(*cs, (*n + 1) * sizeof(*m))))
		return;
	*cs = m;
	if(remote_parse_name(name, m[*n].name, &len) != 0)
		return;
	m[*n].text = name;
	(*n)++;
}

/** print the zones of lz as Unbound's list_local_zones does, without
 * those sk leaves out (sk may be NULL); b: the view's block, or -1 for
 * server:'s zones (whose config lines give the letter case) */
static void
ub_list_zones(struct stats_buf *out, const struct local_zones *lz,
	const struct config_file *cfg, int b, const struct ub_skip *sk)
{
	struct ub_list l;
	struct ub_case *cs = NULL;
	size_t i, j, ncs = 0;
	memset(&l, 0, sizeof(l));
	if(b < 0) {
		const struct config_localzone *z;
		for(z = cfg->local_zones; z; z = z->next)
			ub_case_add(&cs, &ncs, z->name);
	} else {
		const struct config_policyline *pl;
		for(pl = cfg->policy_lines; pl; pl = pl->next)
			if(pl->clause == CLAUSE_VIEW && pl->block == b &&
				pl->n > 0 && strcmp(pl->key, "local-zone") == 0)
				ub_case_add(&cs, &ncs, pl->v[0]);
	}
	local_zones_walk(lz, ub_zone_cb, &l);
	if(l.oom)
		stats_buf_printf(out, "error out of memory\n");
	else {
		qsort(l.z, l.n, sizeof(*l.z), ub_zone_cmp);
		for(i = 0; i < l.n; i++) {
			if(ub_skipped(sk, l.z[i].name))
				continue;
			for(j = ncs; j > 0; j--)
				if(dname_equal(cs[j - 1].name, l.z[i].name))
					break;
			if(j == 0) {
				list_zone_cb(out, l.z[i].name, l.z[i].rrclass,
					l.z[i].type);
				continue;
			}
			stats_buf_printf(out, "%s%s %s\n", cs[j - 1].text,
				cs[j - 1].text[strlen(cs[j - 1].text) - 1] ==
				'.' ? "" : ".", local_zone_type_str(
				l.z[i].type));
		}
	}
	free(cs);
	for(i = 0; i < l.n; i++)
		free(l.z[i].name);
	free(l.z);
}

/** print the records of lz as Unbound's list_local_data does; lines:
 * the local-data lines they came from, in order; without the zones sk
 * leaves out (sk may be NULL) */
static void
ub_list_data(struct remote_req *q, const struct local_zones *lz,
	const char *const *lines, size_t nlines, const struct ub_skip *sk)
{
	struct ub_list l;
	size_t i;
	memset(&l, 0, sizeof(l));
	local_data_walk(lz, ub_data_cb, &l);
	if(l.oom)
		stats_buf_printf(q->out, "error out of memory\n");
	else {
		ub_rank_records(&l, lines, nlines);
		qsort(l.d, l.n, sizeof(*l.d), ub_data_cmp);
		for(i = 0; i < l.n; i++) {
			const struct ub_ld *d = &l.d[i];
			if(!ub_skipped(sk, d->zone))
				list_data_cb(q, d->zone, d->owner, d->type,
					d->rrclass, d->ttl, d->rdata,
					d->rdlen);
		}
	}
	for(i = 0; i < l.n; i++)
		free(l.d[i].zone);
	free(l.d);
}

static void
cmd_list_local_data(struct remote_req *q)
{
	const struct config_strlist *s;
	const char **lines = NULL;
	size_t n = 0, i = 0;
	if(!q->d->env || !q->d->env->lz)
		return;
	for(s = q->d->cfg->local_data; s; s = s->next)
		n++;
	if(n && !(lines = calloc(n, sizeof(*lines)))) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	for(s = q->d->cfg->local_data; s && i < n; s = s->next)
		lines[i++] = s->str;
	ub_list_data(q, q->d->env->lz, lines, n, NULL);
	free(lines);
}

/** rpz_enable, rpz_disable NAME: switch a response policy zone on or off
 * until the next reload (every worker; with fork, in each child) */
static void
cmd_rpz_switch(struct remote_req *q)
{
	struct rpz *z = policy_rpz_find(q->d->env ? q->d->env->pol : NULL,
		q->args);
	if(!q->args[0] || !z) {
		stats_buf_printf(q->out, "error no rpz zone named '%s'\n",
			q->args);
		return;
	}
	rpz_set_enabled(z, strcmp(q->cmd, "rpz_enable") == 0);
	if(q->d->children) {
		struct stats_buf tmp;
		memset(&tmp, 0, sizeof(tmp));
		join_workers(q->d, q->line, q->d->num_workers, &tmp);
		stats_buf_free(&tmp);
	}
	stats_buf_printf(q->out, "ok\n");
}

/** print_cookie_secrets: the secrets of cookie-secret-file, the active
 * one first (Unbound's format); nothing when they are not the file's */
static void
cmd_print_cookie_secrets(struct remote_req *q)
{
	const struct cookie_set *s;
	char hex[2 * COOKIE_SECRET_LEN + 1];
	size_t i;
	if(!q->d->env || !q->d->env->cookies)
		return;
	s = cookie_secrets_get(q->d->env->cookies);
	if(!s->from_file)
		return;
	for(i = 0; i < s->n; i++) {
		cookie_secret_hex(s->s + i * COOKIE_SECRET_LEN, hex);
		if(i == 0)
			stats_buf_printf(q->out, "active : %s\n", hex);
		else if(s->n == 2)
			stats_buf_printf(q->out, "staging: %s\n", hex);
		else
			stats_buf_printf(q->out, "staging[%d]: %s\n", (int)i,
				hex);
	}
	memset(hex, 0, sizeof(hex));
}

/** add_cookie_secret HEX, activate_cookie_secret, drop_cookie_secret:
 * change the secrets, write cookie-secret-file (here, in the supervisor
 * or the threads' process), and with fork have every worker process
 * change its own copy */
static void
cmd_cookie_secret(struct remote_req *q)
{
	uint8_t sec[COOKIE_SECRET_LEN];
	enum cookie_secrets_op op = COOKIE_OP_ADD;
	char err[256];
	struct cookie_secrets *cs = q->d->env ? q->d->env->cookies : NULL;
	if(!cs || !q->d->cfg->cookie_secret_file ||
		!q->d->cfg->cookie_secret_file[0]) {
		stats_buf_printf(q->out, "error: no cookie secret file "
			"configured\n");
		return;
	}
	if(strcmp(q->cmd, "add_cookie_secret") == 0) {
		if(!q->args[0]) {
			stats_buf_printf(q->out, "error: missing argument "
				"(cookie_secret)\n");
			return;
		}
		if(strlen(q->args) != 2 * COOKIE_SECRET_LEN ||
			cookie_secret_parse(q->args, sec) != 0) {
			stats_buf_printf(q->out, "invalid cookie secret: %s\n"
				"please provide a 128bit hex encoded secret\n",
				strlen(q->args) != 2 * COOKIE_SECRET_LEN ?
				"invalid argument length" : "parse error");
			return;
		}
	} else if(strcmp(q->cmd, "activate_cookie_secret") == 0)
		op = COOKIE_OP_ACTIVATE;
	else	op = COOKIE_OP_DROP;
	if(cookie_secrets_change(cs, op, op == COOKIE_OP_ADD ? sec : NULL, 1,
		err, sizeof(err)) != 0) {
		memset(sec, 0, sizeof(sec));
		stats_buf_printf(q->out, "%s\n", err);
		return;
	}
	memset(sec, 0, sizeof(sec));
	if(q->d->children) {
		/* (the line carries the secret to each worker process over
		 * its private pipe) */
		struct stats_buf tmp;
		memset(&tmp, 0, sizeof(tmp));
		join_workers(q->d, q->line, q->d->num_workers, &tmp);
		stats_buf_free(&tmp);
	}
	stats_buf_printf(q->out, "ok\n");
}

/** @return the block number of the view called name, or -1 */
static int
view_block_of(const struct config_file *cfg, const char *name)
{
	const struct config_policyline *l;
	for(l = cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_VIEW && strcmp(l->key, "name") == 0 &&
			l->n == 1 && strcmp(l->v[0], name) == 0)
			return l->block;
	return -1;
}

/**
 * view_list_local_zones, view_list_local_data VIEW to unbound-control:
 * as Unbound, the zones and records in force in the view (the default
 * zones included, unless view-first leaves them to server:), in its
 * order; nothing for a view without local zones.
 * @param b: the view's block number in the config.
 * @param key: "local-zone" or "local-data".
 */
static void
ub_view_list(struct remote_req *q, int b, const char *key)
{
	const struct policy *pol = q->d->env ? q->d->env->pol : NULL;
	const struct local_zones *lz = NULL;
	const struct config_policyline *l;
	const char **lines = NULL;
	size_t i, n = pol ? policy_view_count(pol) : 0, nl = 0;
	struct ub_skip sk;
	int first = 0;
	for(i = 0; i < n; i++) {
		const char *nm = policy_view_name(pol, i);
		if(nm && strcmp(nm, q->args) == 0) {
			lz = policy_view_zones(pol, i);
			break;
		}
	}
	/* a view without local-zone: or local-data: lines has no zones of
	 * its own in Unbound (server:'s answer), and lists none */
	for(l = q->d->cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_VIEW && l->block == b &&
			(strcmp(l->key, "local-zone") == 0 ||
			strcmp(l->key, "local-data") == 0 ||
			strcmp(l->key, "local-data-ptr") == 0))
			break;
	if(!lz || !l)
		return;
	/* with view-first, Unbound does not give the view the default
	 * zones (server:'s answer them) */
	sk.cfg = q->d->cfg;
	sk.b = b;
	for(l = q->d->cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_VIEW && l->block == b && l->n > 0 &&
			strcmp(l->key, "view-first") == 0 &&
			strcmp(l->v[0], "yes") == 0)
			first = 1;
	if(strcmp(key, "local-zone") == 0) {
		ub_list_zones(q->out, lz, q->d->cfg, b, first ? &sk : NULL);
		return;
	}
	for(l = q->d->cfg->policy_lines; l; l = l->next)
		if(l->clause == CLAUSE_VIEW && l->block == b && l->n > 0 &&
			strcmp(l->key, key) == 0)
			nl++;
	if(nl && !(lines = calloc(nl, sizeof(*lines)))) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	i = 0;
	for(l = q->d->cfg->policy_lines; l && i < nl; l = l->next)
		if(l->clause == CLAUSE_VIEW && l->block == b && l->n > 0 &&
			strcmp(l->key, key) == 0)
			lines[i++] = l->v[0];
	ub_list_data(q, lz, lines, nl, first ? &sk : NULL);
	free(lines);
}

/** view_list_local_zones, view_list_local_data VIEW: the view's lines */
static void
cmd_view_list(struct remote_req *q)
{
	const struct config_policyline *l;
	int b = q->args[0] ? view_block_of(q->d->cfg, q->args) : -1;
	const char *key = strcmp(q->cmd, "view_list_local_zones") == 0 ?
		"local-zone" : "local-data";
	if(b < 0) {
		/* Unbound's answer is not an error (unbound-control exits
		 * 0); petrel-control's is */
		if(q->unbound)
			stats_buf_printf(q->out, "no view with name: %s\n",
				q->args);
		else	stats_buf_printf(q->out, "error no view named '%s'\n",
				q->args);
		return;
	}
	if(q->unbound) {
		ub_view_list(q, b, key);
		return;
	}
	for(l = q->d->cfg->policy_lines; l; l = l->next) {
		int i;
		if(l->clause != CLAUSE_VIEW || l->block != b ||
			strcmp(l->key, key) != 0)
			continue;
		for(i = 0; i < l->n; i++)
			stats_buf_printf(q->out, "%s%s", i ? " " : "",
				l->v[i]);
		stats_buf_printf(q->out, "\n");
	}
}

static void
cmd_get_option(struct remote_req *q)
{
	char *buf = malloc(65536);
	if(!buf) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	if(!q->args[0] || config_get_option_str(q->d->cfg, q->args, buf,
		65536) != 0)
		stats_buf_printf(q->out, "error unknown option '%s'\n",
			q->args);
	else if(buf[0] && buf[strlen(buf) - 1] != '\n')
		stats_buf_printf(q->out, "%s\n", buf);
	else	stats_buf_printf(q->out, "%s", buf);
	free(buf);
}

/** local_zones, local_zones_remove, local_datas, local_datas_remove:
 * the lines follow the request, up to a line holding the byte 0x04 (or
 * the end of the connection); applied as one change */
static void
cmd_bulk(struct remote_req *q)
{
	struct stats_buf text;
	size_t max = REMOTE_LINE_MAX;
	char *line = malloc(max);
	memset(&text, 0, sizeof(text));
	if(!line) {
		stats_buf_printf(q->out, "error out of memory\n");
		return;
	}
	while(conn_readline(q->c, line, max) == 0) {
		if(line[0] == 0x04 && line[1] == 0)
			break;
		stats_buf_printf(&text, "%s\n", line);
		if(text.len > REMOTE_FRAME_MAX / 2)
			break;
	}
	free(line);
	if(text.oom || text.len > REMOTE_FRAME_MAX / 2)
		stats_buf_printf(q->out, "error input too large\n");
	else
		do_cfg_change(q->rc, q->cmd, text.data ? text.data : "",
			q->out);
	stats_buf_free(&text);
}

/** cache_lookup [+t] name...: what the cache holds for each name */
static void
cmd_cache_lookup(struct remote_req *q)
{
	char *rest = q->args, *w, line[REMOTE_LINE_MAX + 16];
	int n = 0;
	while(*(w = remote_next_word(rest, &rest))) {
		uint8_t name[DNS_MAX_NAME + 1];
		size_t nl;
		if(w[0] == '+')	/* +t allows top-level names: all are */
			continue;
		if(remote_parse_name(w, name, &nl) != 0) {
			stats_buf_printf(q->out, "error bad name '%s'\n", w);
			return;
		}
		snprintf(line, sizeof(line), "cache_lookup %s", w);
		join_workers(q->d, line, cache_workers(q->d), q->out);
		n++;
	}
	if(n == 0)
		stats_buf_printf(q->out, "error expected: cache_lookup "
			"[+t] name...\n");
}

/** dump_infra: the upstream servers' round-trip, EDNS and lameness */
static void
cmd_dump_infra(struct remote_req *q)
{
	join_workers(q->d, "dump_infra", cache_workers(q->d), q->out);
}

/** ratelimit_list [+a], ip_ratelimit_list [+a]: the zones or client
 * addresses over their limit (the tables are shared by the threads, one
 * per process with fork) */
static void
cmd_rate_list(struct remote_req *q)
{
	join_workers(q->d, q->line, cache_workers(q->d), q->out);
}

/** forward: show the root forward zone's addresses ("off" when there
 * is none); forward off; forward addr... */
static void
cmd_forward(struct remote_req *q)
{
	const struct config_stub *z;
	if(q->args[0]) {
		do_cfg_change(q->rc, q->cmd, q->args, q->out);
		return;
	}
	for(z = q->d->cfg->forwards; z; z = z->next)
		if(strcmp(z->name, ".") == 0)
			break;
	if(!z || !z->addrs) {
		stats_buf_printf(q->out, "off (using root hints)\n");
		return;
	}
	{
		const struct config_addrlist *a;
		for(a = z->addrs; a; a = a->next)
			stats_buf_printf(q->out, "%s%s", a->str, a->next ? " " :
				"\n");
	}
}

/** local_zone, local_data, forward_add, stub_add, set_option, ... */
static void
cmd_cfg_change(struct remote_req *q)
{
	do_cfg_change(q->rc, q->cmd, q->args, q->out);
}

/** the commands */
static const struct remote_cmd {
	/** the command word */
	const char *name;
	/** its handler */
	remote_cmd_func fn;
} remote_cmds[] = {
	{ "status", cmd_status },
	{ "stats", cmd_stats },
	{ "stats_noreset", cmd_stats },
	{ "flush_stats", cmd_flush_stats },
	{ "reload", cmd_reload },
	{ "reload_keep_cache", cmd_reload },
	{ "stop", cmd_stop },
	{ "verbosity", cmd_verbosity },
	{ "log_reopen", cmd_log_reopen },
	{ "flush", cmd_flush },
	{ "flush_zone", cmd_flush },
	{ "flush_type", cmd_flush },
	{ "flush_negative", cmd_flush },
	{ "flush_bogus", cmd_flush },
	{ "flush_infra", cmd_flush },
	{ "insecure_add", cmd_insecure },
	{ "insecure_remove", cmd_insecure },
	{ "list_insecure", cmd_list_insecure },
	{ "flush_requestlist", cmd_flush_requestlist },
	{ "dump_requestlist", cmd_dump_requestlist },
	{ "dump_cache", cmd_dump_cache },
	{ "shared_cache_check", cmd_shared_cache_check },
	{ "load_cache", cmd_load_cache },
	{ "lookup", cmd_lookup },
	{ "list_forwards", cmd_list_forwards },
	{ "list_stubs", cmd_list_stubs },
	{ "list_local_zones", cmd_list_local_zones },
	{ "list_auth_zones", cmd_auth_zone },
	{ "auth_zone_reload", cmd_auth_zone },
	{ "auth_zone_transfer", cmd_auth_zone },
	{ "list_local_data", cmd_list_local_data },
	{ "get_option", cmd_get_option },
	{ "set_option", cmd_cfg_change },
	{ "local_zone", cmd_cfg_change },
	{ "rpz_enable", cmd_rpz_switch },
	{ "rpz_disable", cmd_rpz_switch },
	{ "view_list_local_zones", cmd_view_list },
	{ "view_list_local_data", cmd_view_list },
	{ "view_local_zone", cmd_cfg_change },
	{ "view_local_zone_remove", cmd_cfg_change },
	{ "view_local_data", cmd_cfg_change },
	{ "view_local_data_remove", cmd_cfg_change },
	{ "local_zone_remove", cmd_cfg_change },
	{ "local_data", cmd_cfg_change },
	{ "local_data_remove", cmd_cfg_change },
	{ "forward_add", cmd_cfg_change },
	{ "forward_remove", cmd_cfg_change },
	{ "stub_add", cmd_cfg_change },
	{ "stub_remove", cmd_cfg_change },
	{ "local_zones", cmd_bulk },
	{ "local_zones_remove", cmd_bulk },
	{ "local_datas", cmd_bulk },
	{ "local_datas_remove", cmd_bulk },
	{ "cache_lookup", cmd_cache_lookup },
	{ "dump_infra", cmd_dump_infra },
	{ "ratelimit_list", cmd_rate_list },
	{ "ip_ratelimit_list", cmd_rate_list },
	{ "forward", cmd_forward },
	{ "add_cookie_secret", cmd_cookie_secret },
	{ "activate_cookie_secret", cmd_cookie_secret },
	{ "drop_cookie_secret", cmd_cookie_secret },
	{ "print_cookie_secrets", cmd_print_cookie_secrets },
	{ NULL, NULL }
};

/** run a control command in the supervisor */
static void
execute(struct remote *rc, struct remote_conn *c, char *cmd, char *args,
	int unbound, struct stats_buf *out)
{
	struct remote_req q;
	char line[REMOTE_LINE_MAX + 64];
	const struct remote_cmd *k;
	snprintf(line, sizeof(line), "%s %s", cmd, args);
	for(k = remote_cmds; k->name; k++)
		if(strcmp(k->name, cmd) == 0)
			break;
	if(!k->name) {
		stats_buf_printf(out, "error unknown command '%s'\n", cmd);
		return;
	}
	q.rc = rc;
	q.d = rc->d;
	q.c = c;
	q.cmd = cmd;
	q.args = args;
	q.line = line;
	q.out = out;
	q.unbound = unbound;
	k->fn(&q);
}

/** serve one control connection */
static void
serve_control(struct remote *rc, struct remote_conn *c)
{
	char line[REMOTE_LINE_MAX], *rest, *cmd;
	struct stats_buf out;
	int proto;
	memset(&out, 0, sizeof(out));
	if(conn_readline(c, line, sizeof(line)) != 0) {
		(void)conn_write(c, "error no command line (or too long)\n", 36);
		return;
	}
	if((proto = remote_parse_request(line, &cmd, &rest)) < 0) {
		const char *e = "error unknown protocol: expected "
			REMOTE_PROTO " command\n";
		(void)conn_write(c, e, strlen(e));
		return;
	}
	verbose(VERB_DETAIL, "control command: %s %s", cmd, rest);
	execute(rc, c, cmd, rest, proto == 1, &out);
	if(out.oom) {
		stats_buf_free(&out);
		stats_buf_printf(&out, "error out of memory\n");
	}
	if(out.len)
		(void)conn_write(c, out.data, out.len);
	stats_buf_free(&out);
}

/** serve one metrics request */
static void
serve_http(struct remote *rc, struct remote_conn *c)
{
	char line[1024], method[16], path[256];
	struct stats_buf body, out;
	int ok = 0;
	memset(&body, 0, sizeof(body));
	memset(&out, 0, sizeof(out));
	if(conn_readline(c, line, sizeof(line)) != 0)
		return;
	if(sscanf(line, "%15s %255s", method, path) == 2 &&
		(strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) &&
		(strcmp(path, "/metrics") == 0 || strncmp(path, "/metrics?", 9)
		== 0))
		ok = 1;
	/* the headers, up to the empty line */
	while(conn_readline(c, line, sizeof(line)) == 0 && line[0])
		;
	if(ok) {
		struct daemon *d = rc->d;
		struct stats_info *info = calloc((size_t)d->num_workers + 1,
			sizeof(*info));
		struct stats_globals g;
		if(info) {
			remote_gather_stats(d, STATS_GET_MONOTONIC, info, &g);
			stats_print_prometheus(&body, info, d->num_workers, &g);
			free(info);
		}
		if(!info || body.oom)
			ok = 0;
	}
	if(ok) {
		stats_buf_printf(&out, "HTTP/1.0 200 OK\r\nContent-Type: "
			"text/plain; version=0.0.4; charset=utf-8\r\n"
			"Content-Length: %zu\r\nConnection: close\r\n\r\n",
			body.len);
		if(strcmp(method, "GET") == 0 && body.len)
			stats_buf_append(&out, body.data, body.len);
	} else
		stats_buf_printf(&out, "HTTP/1.0 404 Not Found\r\nContent-Type: "
			"text/plain\r\nContent-Length: 10\r\nConnection: "
			"close\r\n\r\nnot found\n");
	if(!out.oom)
		(void)conn_write(c, out.data, out.len);
	stats_buf_free(&body);
	stats_buf_free(&out);
}

/** log the OpenSSL error queue */
static void
log_ssl_errors(const char *what)
{
	unsigned long e;
	char buf[256];
	int any = 0;
	while((e = ERR_get_error()) != 0) {
		ERR_error_string_n(e, buf, sizeof(buf));
		log_warnx("%s: %s", what, buf);
		any = 1;
	}
	if(!any)
		log_warnx("%s", what);
}

/** a listener is readable: accept and serve one connection */
static void
accept_cb(int fd, void *arg)
{
	struct remote_listener *l = arg;
	struct remote *rc = l->rc;
	struct remote_conn c;
	struct timeval tv;
	int s = accept(fd, NULL, NULL);
	if(s == -1)
		return;
	memset(&c, 0, sizeof(c));
	c.fd = s;
	c.deadline = time(NULL) + REMOTE_CONN_MAX_SECS;
	(void)fcntl(s, F_SETFD, FD_CLOEXEC);
	(void)remote_fd_nonblock(s, 0);
	tv.tv_sec = REMOTE_TIMEOUT_MS / 1000;
	tv.tv_usec = (REMOTE_TIMEOUT_MS % 1000) * 1000;
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rc->conn_fd = s;
	if(l->http) {
		serve_http(rc, &c);
		rc->conn_fd = -1;
		close(s);
		return;
	}
	if(rc->ctx && !l->is_unix) {
		c.ssl = SSL_new(rc->ctx);
		if(!c.ssl || !SSL_set_fd(c.ssl, s)) {
			log_ssl_errors("control: SSL_new");
			goto done;
		}
		if(SSL_accept(c.ssl) != 1) {
			if(log_limit_allow(&remote_warn_limit, time(NULL)))
				log_ssl_errors("control: TLS handshake refused "
					"(wrong or missing client "
					"certificate?)");
			else	ERR_clear_error();
			goto done;
		}
	}
	serve_control(rc, &c);
	if(c.ssl)
		(void)SSL_shutdown(c.ssl);
done:
	if(c.ssl)
		SSL_free(c.ssl);
	rc->conn_fd = -1;
	close(s);
}

/** open a unix listening socket */
static int
open_unix(const char *path, struct remote_listener *l)
{
	struct sockaddr_un sun;
	int s;
	if(strlen(path) >= sizeof(sun.sun_path)) {
		log_err("control-interface: %s: path too long", path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	s = socket(AF_UNIX, SOCK_STREAM, 0);
	if(s == -1) {
		log_warn("control-interface: socket(%s)", path);
		return -1;
	}
	(void)unlink(path);
	if(bind(s, (struct sockaddr *)&sun, sizeof(sun)) != 0 ||
		chmod(path, 0660) != 0 || listen(s, 16) != 0) {
		log_err("control-interface: cannot listen on %s: %s%s", path,
			strerror(errno), errno == EACCES ? " (the user petrel "
			"starts as must be able to write in its directory)" :
			"");
		close(s);
		return -1;
	}
	snprintf(l->path, sizeof(l->path), "%s", path);
	l->is_unix = 1;
	return s;
}

/** open a TCP listening socket */
static int
open_tcp(const char *str, int port, struct remote_listener *l)
{
	struct netaddr a;
	const char *e = NULL;
	int s, on = 1;
	(void)l;
	if(netaddr_parse(str, port, &a, &e) != 0) {
		log_err("cannot parse address %s: %s", str, e ? e : "");
		return -1;
	}
	s = socket(a.addr.ss_family, SOCK_STREAM, 0);
	if(s == -1) {
		log_warn("socket for %s", str);
		return -1;
	}
	(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
#ifdef IPV6_V6ONLY
	if(a.addr.ss_family == AF_INET6)
		(void)setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof(on));
#endif
	if(bind(s, (struct sockaddr *)&a.addr, a.len) != 0 ||
		listen(s, 16) != 0) {
		log_err("cannot listen on %s port %d: %s%s", str,
			netaddr_port(&a), strerror(errno), errno == EADDRINUSE ?
			" (another process listens there: stop it, or "
			"change the port)" : "");
		close(s);
		return -1;
	}
	return s;
}

/** log where the metrics are, as a URL a browser or Prometheus takes:
 * http://127.0.0.1:9167/metrics, http://[::1]:9167/metrics */
static void
log_metrics_url(const char *iface)
{
	struct netaddr a;
	const char *e = NULL;
	char ip[INET6_ADDRSTRLEN];
	size_t n = 0;
	const uint8_t *b;
	if(netaddr_parse(iface, 9167, &a, &e) != 0)
		return;
	b = netaddr_bytes(&a, &n);
	if(!inet_ntop(netaddr_family(&a), b, ip, sizeof(ip)))
		return;
	verbose(VERB_OPS, "metrics on http://%s%s%s:%d/metrics",
		netaddr_family(&a) == AF_INET6 ? "[" : "", ip,
		netaddr_family(&a) == AF_INET6 ? "]" : "", netaddr_port(&a));
}

/** the TLS server context: our key and cert, clients verified against
 * our (self-signed CA) certificate */
static SSL_CTX *
make_ctx(const struct config_file *cfg)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	if(!ctx) {
		log_ssl_errors("control: SSL_CTX_new");
		return NULL;
	}
	(void)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	if(SSL_CTX_use_certificate_chain_file(ctx, cfg->server_cert_file) != 1) {
		log_ssl_errors("control: server-cert-file");
		log_err("control: cannot use server-cert-file %s (run "
			"petrel-control-setup)", cfg->server_cert_file);
		goto fail;
	}
	if(SSL_CTX_use_PrivateKey_file(ctx, cfg->server_key_file,
		SSL_FILETYPE_PEM) != 1 || SSL_CTX_check_private_key(ctx) != 1) {
		log_ssl_errors("control: server-key-file");
		log_err("control: cannot use server-key-file %s",
			cfg->server_key_file);
		goto fail;
	}
	if(SSL_CTX_load_verify_locations(ctx, cfg->server_cert_file, NULL)
		!= 1) {
		log_ssl_errors("control: verify locations");
		goto fail;
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER |
		SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	return ctx;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

int
remote_needed(const struct config_file *cfg)
{
	return cfg->control_enable || cfg->http_metrics_interface[0];
}

/** add a listener */
static int
add_listener(struct remote *rc, int fd, int http, int is_unix,
	const char *path)
{
	struct remote_listener *l = &rc->ls[rc->num];
	l->fd = fd;
	l->http = http;
	l->is_unix = is_unix;
	l->rc = rc;
	if(path)
		snprintf(l->path, sizeof(l->path), "%s", path);
	(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	(void)remote_fd_nonblock(fd, 1);
	rc->num++;
	return 0;
}

int
remote_attach(struct remote *rc, struct comm_base *base)
{
	int i;
	for(i = 0; i < rc->num; i++) {
		if(rc->ls[i].watch || rc->ls[i].fd == -1)
			continue;
		rc->ls[i].watch = comm_watch_create(base, rc->ls[i].fd,
			accept_cb, &rc->ls[i]);
		if(!rc->ls[i].watch) {
			log_err("cannot watch the control socket");
			return -1;
		}
	}
	return 0;
}

struct remote *
remote_create(struct daemon *d, struct config_file *cfg)
{
	struct remote *rc = calloc(1, sizeof(*rc));
	const struct config_strlist *s;
	int n = 1;
	if(!rc) {
		log_err("out of memory");
		return NULL;
	}
	rc->d = d;
	rc->conn_fd = -1;
	for(s = config_control_interfaces(cfg); s; s = s->next)
		n++;
	rc->ls = calloc((size_t)n, sizeof(*rc->ls));
	if(!rc->ls)
		goto fail;
	if(cfg->control_enable) {
		int any_tcp = 0;
		for(s = config_control_interfaces(cfg); s; s = s->next)
			if(s->str[0] != '/')
				any_tcp = 1;
		if(any_tcp && cfg->control_use_cert) {
			rc->ctx = make_ctx(cfg);
			if(!rc->ctx)
				goto fail;
		}
		for(s = config_control_interfaces(cfg); s; s = s->next) {
			struct remote_listener tmp;
			int fd;
			memset(&tmp, 0, sizeof(tmp));
			if(s->str[0] == '/')
				fd = open_unix(s->str, &tmp);
			else	fd = open_tcp(s->str, cfg->control_port, &tmp);
			if(fd == -1)
				goto fail;
			if(add_listener(rc, fd, 0, tmp.is_unix, tmp.is_unix ?
				tmp.path : NULL) != 0)
				goto fail;
			verbose(VERB_OPS, "control server on %s%s", s->str,
				s->str[0] == '/' ? "" : (rc->ctx ? " (TLS)" :
				" (plain)"));
		}
	}
	if(cfg->http_metrics_interface[0]) {
		struct remote_listener tmp;
		int fd = open_tcp(cfg->http_metrics_interface, 9167, &tmp);
		if(fd == -1)
			goto fail;
		if(add_listener(rc, fd, 1, 0, NULL) != 0)
			goto fail;
		log_metrics_url(cfg->http_metrics_interface);
	}
	return rc;
fail:
	log_err("cannot start the control server");
	remote_delete(rc);
	return NULL;
}

void
remote_child_close(struct remote *rc)
{
	int i;
	if(!rc)
		return;
	for(i = 0; i < rc->num; i++) {
		if(rc->ls[i].fd != -1)
			close(rc->ls[i].fd);
		rc->ls[i].fd = -1;
		rc->ls[i].path[0] = 0;
	}
	/* (the parent answers on it and closes it; the TLS state is the
	 * parent's too: the child only lets go of the descriptor) */
	if(rc->conn_fd != -1)
		close(rc->conn_fd);
	rc->conn_fd = -1;
}

void
remote_delete(struct remote *rc)
{
	int i;
	if(!rc)
		return;
	for(i = 0; i < rc->num; i++) {
		comm_watch_delete(rc->ls[i].watch);
		if(rc->ls[i].fd != -1)
			close(rc->ls[i].fd);
		if(rc->ls[i].path[0] && !rc->d->is_child)
			(void)unlink(rc->ls[i].path);
	}
	free(rc->ls);
	if(rc->ctx)
		SSL_CTX_free(rc->ctx);
	free(rc);
}
