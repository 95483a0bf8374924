/*
 * daemon/remote.c - the control server and the metrics endpoint.
 * See remote.h for the design.
 */
#include "config.h"
#include "daemon/remote.h"
#include "daemon/daemon.h"
#include "daemon/env.h"
#include "daemon/stats.h"
#include "daemon/worker.h"
#include "services/mesh.h"
#include "services/cache/msgcache.h"
#include "services/cache/rrset.h"
#include "services/cache/infra.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "dns/query.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/version.h"
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
/** how long the supervisor waits for a worker's reply, ms (inactivity) */
#define REMOTE_WORKER_TIMEOUT_MS 5000
/** longest request line */
#define REMOTE_LINE_MAX 4096
/** the reply frame magic ("PTRL") */
#define REMOTE_MAGIC 0x5054524cU
/** largest frame accepted from a pipe */
#define REMOTE_FRAME_MAX (256U * 1024U * 1024U)

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
/* small helpers                                                       */

/** split off the first word of s (in place); *rest is the remainder */
static char *
next_word(char *s, char **rest)
{
	char *w;
	while(*s && isspace((unsigned char)*s))
		s++;
	w = s;
	while(*s && !isspace((unsigned char)*s))
		s++;
	if(*s)
		*s++ = 0;
	while(*s && isspace((unsigned char)*s))
		s++;
	*rest = s;
	return w;
}

/** parse a domain name argument; @return 0 or -1 */
static int
parse_name(const char *s, uint8_t *out, size_t *len)
{
	*len = DNS_MAX_NAME + 1;
	if(!s[0])
		return -1;
	if(dname_from_str(s, out, len) != 0)
		return -1;
	dname_tolower(out);
	return 0;
}

/** hex encode */
static void
buf_hex(struct stats_buf *b, const uint8_t *d, size_t n)
{
	static const char hx[] = "0123456789abcdef";
	char tmp[256];
	size_t i, k = 0;
	if(n == 0) {
		stats_buf_append(b, "-", 1);
		return;
	}
	for(i = 0; i < n; i++) {
		tmp[k++] = hx[d[i] >> 4];
		tmp[k++] = hx[d[i] & 0xf];
		if(k == sizeof(tmp)) {
			stats_buf_append(b, tmp, k);
			k = 0;
		}
	}
	stats_buf_append(b, tmp, k);
}

/** hex decode into out (max outmax); @return length or -1 */
static long
hex_decode(const char *s, uint8_t *out, size_t outmax)
{
	size_t n = 0;
	if(strcmp(s, "-") == 0)
		return 0;
	while(s[0] && s[1]) {
		int hi = isdigit((unsigned char)s[0]) ? s[0] - '0' :
			tolower((unsigned char)s[0]) - 'a' + 10;
		int lo = isdigit((unsigned char)s[1]) ? s[1] - '0' :
			tolower((unsigned char)s[1]) - 'a' + 10;
		if(hi < 0 || hi > 15 || lo < 0 || lo > 15 || n >= outmax)
			return -1;
		out[n++] = (uint8_t)(hi * 16 + lo);
		s += 2;
	}
	if(s[0])
		return -1;
	return (long)n;
}

/** poll one fd for events, ms; @return >0 ready, 0 timeout, -1 error */
static int
wait_fd(int fd, short ev, int ms)
{
	struct pollfd p;
	int r;
	p.fd = fd;
	p.events = ev;
	p.revents = 0;
	do {
		r = poll(&p, 1, ms);
	} while(r < 0 && errno == EINTR);
	return r;
}

/** write all of buf to a (possibly nonblocking) fd, with a timeout */
static int
write_all_fd(int fd, const void *buf, size_t len, int ms)
{
	const uint8_t *p = buf;
	while(len > 0) {
		ssize_t n = write(fd, p, len);
		if(n < 0) {
			if(errno == EINTR)
				continue;
			if(errno == EAGAIN || errno == EWOULDBLOCK) {
				if(wait_fd(fd, POLLOUT, ms) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/** read exactly len bytes from a (possibly nonblocking) fd, timeout */
static int
read_all_fd(int fd, void *buf, size_t len, int ms)
{
	uint8_t *p = buf;
	while(len > 0) {
		ssize_t n = read(fd, p, len);
		if(n == 0)
			return -1;
		if(n < 0) {
			if(errno == EINTR)
				continue;
			if(errno == EAGAIN || errno == EWOULDBLOCK) {
				if(wait_fd(fd, POLLIN, ms) <= 0)
					return -1;
				continue;
			}
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/** set or clear O_NONBLOCK; @return the old flags */
static int
fd_nonblock(int fd, int on)
{
	int fl = fcntl(fd, F_GETFL);
	if(fl == -1)
		return 0;
	(void)fcntl(fd, F_SETFL, on ? (fl | O_NONBLOCK) : (fl & ~O_NONBLOCK));
	return fl;
}

/* ------------------------------------------------------------------ */
/* config changes                                                      */

/** free a strlist node as config_file.c allocates it */
static void
strlist_node_free(struct config_strlist *s)
{
	free(s->str);
	free(s);
}

/** free a zone clause as config_file.c allocates it */
static void
stub_free(struct config_stub *z)
{
	struct config_addrlist *a, *an;
	struct config_strlist *h, *hn;
	for(a = z->addrs; a; a = an) {
		an = a->next;
		free(a->str);
		free(a);
	}
	for(h = z->hosts; h; h = hn) {
		hn = h->next;
		strlist_node_free(h);
	}
	free(z->name);
	free(z);
}

/** are the two presentation names the same name? */
static int
names_equal(const char *a, const char *b)
{
	uint8_t x[DNS_MAX_NAME + 1], y[DNS_MAX_NAME + 1];
	size_t xl, yl;
	if(parse_name(a, x, &xl) != 0 || parse_name(b, y, &yl) != 0)
		return 0;
	return dname_equal(x, y);
}

/** remove local zones called name; @return how many */
static int
rm_local_zone(struct config_file *cfg, const char *name)
{
	struct config_localzone **p = &cfg->local_zones, *z;
	int n = 0;
	while((z = *p) != NULL) {
		if(names_equal(z->name, name)) {
			*p = z->next;
			free(z->name);
			free(z->type);
			free(z);
			n++;
		} else	p = &z->next;
	}
	return n;
}

/** the owner name (first word) of a local-data string */
static void
owner_of(const char *rr, char *buf, size_t len)
{
	size_t i = 0;
	while(*rr && isspace((unsigned char)*rr))
		rr++;
	while(rr[i] && !isspace((unsigned char)rr[i]) && i + 1 < len) {
		buf[i] = rr[i];
		i++;
	}
	buf[i] = 0;
}

/** remove local data owned by name; @return how many */
static int
rm_local_data(struct config_file *cfg, const char *name)
{
	struct config_strlist **p = &cfg->local_data, *s;
	char own[DNS_MAX_NAME_STR];
	int n = 0;
	while((s = *p) != NULL) {
		owner_of(s->str, own, sizeof(own));
		if(names_equal(own, name)) {
			*p = s->next;
			strlist_node_free(s);
			n++;
		} else	p = &s->next;
	}
	return n;
}

/** remove a zone clause by name; @return how many */
static int
rm_stub(struct config_stub **p, const char *name)
{
	struct config_stub *z;
	int n = 0;
	while((z = *p) != NULL) {
		if(names_equal(z->name, name)) {
			*p = z->next;
			stub_free(z);
			n++;
		} else	p = &z->next;
	}
	return n;
}

/** read a config snippet on top of cfg, keeping cfg's file name */
static int
add_text(struct config_file *cfg, const char *text, char *err, size_t errlen)
{
	char *fn = strdup(cfg->filename);
	int r;
	if(!fn) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	r = config_read_mem(cfg, "petrel-control", text, strlen(text), err,
		errlen);
	if(r == 0) {
		free(cfg->filename);
		cfg->filename = fn;
	} else	free(fn);
	return r;
}

/** forward_add/stub_add: [+i] name addr... */
static int
add_zone(struct config_file *cfg, int fwd, const char *args, char *err,
	size_t errlen)
{
	char *copy = strdup(args), *rest, *w, *name;
	struct stats_buf t;
	int r = -1, naddr = 0;
	memset(&t, 0, sizeof(t));
	if(!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	name = next_word(copy, &rest);
	if(name[0] == '+')	/* Unbound's +i (insecure) flags: ignored */
		name = next_word(rest, &rest);
	if(!name[0] || strchr(name, '"')) {
		snprintf(err, errlen, "expected a zone name and addresses");
		goto out;
	}
	stats_buf_printf(&t, "%s:\n\tname: \"%s\"\n", fwd ? "forward-zone" :
		"stub-zone", name);
	while(*(w = next_word(rest, &rest))) {
		struct netaddr a;
		const char *e = NULL;
		if(netaddr_parse(w, 53, &a, &e) != 0) {
			snprintf(err, errlen, "bad address '%s': %s", w,
				e ? e : "syntax");
			goto out;
		}
		stats_buf_printf(&t, "\t%s: %s\n", fwd ? "forward-addr" :
			"stub-addr", w);
		naddr++;
	}
	if(naddr == 0) {
		snprintf(err, errlen, "expected a zone name and addresses");
		goto out;
	}
	if(t.oom) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	(void)rm_stub(fwd ? &cfg->forwards : &cfg->stubs, name);
	r = add_text(cfg, t.data, err, errlen);
out:
	stats_buf_free(&t);
	free(copy);
	return r;
}

/** the bulk commands (their lines follow the request) and the command
 * each line is; NULL-terminated */
static const char *const bulk_cmds[][2] = {
	{ "local_zones", "local_zone" },
	{ "local_zones_remove", "local_zone_remove" },
	{ "local_datas", "local_data" },
	{ "local_datas_remove", "local_data_remove" },
	{ NULL, NULL }
};

/** @return the single command of a bulk command, or NULL */
static const char *
bulk_single(const char *cmd)
{
	int i;
	for(i = 0; bulk_cmds[i][0]; i++)
		if(strcmp(bulk_cmds[i][0], cmd) == 0)
			return bulk_cmds[i][1];
	return NULL;
}

/** a bulk command: each line of text as its single command. As
 * Unbound does, a bad line is reported ("error for input line") and the
 * others are applied. @return the number applied; errors into report */
static int
cfg_change_bulk(struct config_file *cfg, const char *one, const char *text,
	struct stats_buf *report)
{
	const char *s = text;
	int n = 0;
	while(*s) {
		char line[REMOTE_LINE_MAX], err[512];
		const char *e = strchr(s, '\n');
		size_t l = e ? (size_t)(e - s) : strlen(s);
		char *b;
		if(l >= sizeof(line))
			l = sizeof(line) - 1;
		memcpy(line, s, l);
		line[l] = 0;
		s = e ? e + 1 : s + strlen(s);
		b = line;
		while(isspace((unsigned char)*b))
			b++;
		while(*b && isspace((unsigned char)b[strlen(b) - 1]))
			b[strlen(b) - 1] = 0;
		if(!*b)
			continue;
		err[0] = 0;
		if(remote_cfg_change(cfg, one, b, err, sizeof(err)) != 0) {
			if(report)
				stats_buf_printf(report, "error for input line: "
					"%s (%s)\n", b, err);
			continue;
		}
		n++;
	}
	return n;
}

int
remote_cfg_change(struct config_file *cfg, const char *cmd, const char *args,
	char *err, size_t errlen)
{
	char a[REMOTE_LINE_MAX], *rest, *w1, *w2;
	const char *one = bulk_single(cmd);
	if(one) {
		(void)cfg_change_bulk(cfg, one, args, NULL);
		return 0;
	}
	snprintf(a, sizeof(a), "%s", args);
	if(strcmp(cmd, "forward") == 0) {
		/* Unbound's forward: set the root forward zone, or "off" */
		w1 = next_word(a, &rest);
		(void)rm_stub(&cfg->forwards, ".");
		if(strcmp(w1, "off") == 0 && !rest[0])
			return 0;
		if(!w1[0]) {
			snprintf(err, errlen, "expected: forward off | "
				"forward addr...");
			return -1;
		}
		{
			char v[REMOTE_LINE_MAX + 4];
			snprintf(v, sizeof(v), ". %s", args);
			return add_zone(cfg, 1, v, err, errlen);
		}
	}
	if(strcmp(cmd, "local_zone") == 0) {
		char v[REMOTE_LINE_MAX];
		w1 = next_word(a, &rest);
		w2 = next_word(rest, &rest);
		if(!w1[0] || !w2[0] || rest[0]) {
			snprintf(err, errlen, "expected: local_zone name type");
			return -1;
		}
		if(!names_equal(w1, w1)) {
			snprintf(err, errlen, "bad name '%s'", w1);
			return -1;
		}
		(void)rm_local_zone(cfg, w1);
		snprintf(v, sizeof(v), "%s %s", w1, w2);
		return config_set_option(cfg, "local-zone", v, err, errlen);
	}
	if(strcmp(cmd, "local_zone_remove") == 0) {
		w1 = next_word(a, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: local_zone_remove name");
			return -1;
		}
		(void)rm_local_zone(cfg, w1);
		return 0;
	}
	if(strcmp(cmd, "local_data") == 0) {
		char v[REMOTE_LINE_MAX + 2];
		/* quoted as in the file: "RR", or 'RR' when the RR has
		 * double quotes (TXT) */
		char q = strchr(a, '"') ? '\'' : '"';
		if(!a[0] || strchr(a, q)) {
			snprintf(err, errlen, "expected: local_data RR (with "
				"either single or double quotes inside, not "
				"both)");
			return -1;
		}
		snprintf(v, sizeof(v), "%c%s%c", q, a, q);
		return config_set_option(cfg, "local-data", v, err, errlen);
	}
	if(strcmp(cmd, "local_data_remove") == 0) {
		w1 = next_word(a, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: local_data_remove name");
			return -1;
		}
		(void)rm_local_data(cfg, w1);
		return 0;
	}
	if(strcmp(cmd, "forward_add") == 0)
		return add_zone(cfg, 1, args, err, errlen);
	if(strcmp(cmd, "stub_add") == 0)
		return add_zone(cfg, 0, args, err, errlen);
	if(strcmp(cmd, "forward_remove") == 0 || strcmp(cmd, "stub_remove")
		== 0) {
		int fwd = cmd[0] == 'f';
		w1 = next_word(a, &rest);
		if(w1[0] == '+')
			w1 = next_word(rest, &rest);
		if(!w1[0] || rest[0] || !names_equal(w1, w1)) {
			snprintf(err, errlen, "expected: %s name", cmd);
			return -1;
		}
		if(rm_stub(fwd ? &cfg->forwards : &cfg->stubs, w1) == 0) {
			snprintf(err, errlen, "no %s zone %s", fwd ? "forward" :
				"stub", w1);
			return -1;
		}
		return 0;
	}
	if(strcmp(cmd, "set_option") == 0) {
		char *colon;
		w1 = a;
		while(*w1 && isspace((unsigned char)*w1))
			w1++;
		colon = strchr(w1, ':');
		if(!colon) {
			snprintf(err, errlen, "expected: set_option name: value");
			return -1;
		}
		*colon = 0;
		rest = colon + 1;
		while(*rest && isspace((unsigned char)*rest))
			rest++;
		switch(config_option_sighup_applies(w1)) {
		case -1:
			snprintf(err, errlen, "unknown option '%s'", w1);
			return -1;
		case 0:
			snprintf(err, errlen, "option '%s' cannot be changed "
				"while running (it needs a restart)", w1);
			return -1;
		default:
			break;
		}
		return config_set_option(cfg, w1, rest, err, errlen);
	}
	return 1;
}

/* ------------------------------------------------------------------ */
/* worker side                                                         */

/** the worker's clock */
static time_t
worker_now(struct worker *w)
{
	return w->base ? *comm_base_secs(w->base) : time(NULL);
}

/** stats_get modes: the counters since the last reset, the same and
 * reset them (Unbound's stats), or everything since start, resets
 * included (the Prometheus counters, which never go down) */
enum { STATS_GET_NORESET = 0, STATS_GET_RESET = 1, STATS_GET_MONOTONIC = 2 };

/** collect a worker's counters, in its own thread or process
 * @param mode: a STATS_GET_ mode */
static void
stats_collect(struct worker *w, struct stats_info *out, int mode)
{
	memset(out, 0, sizeof(*out));
	if(w->res && w->res->mesh) {
		out->reqlist_current = mesh_num_states(w->res->mesh);
		out->reqlist_user = mesh_num_clients(w->res->mesh);
	}
	worker_get_stats(w, &out->s, &out->r, mode == STATS_GET_RESET);
	if(mode == STATS_GET_MONOTONIC) {
		stats_add_worker(&out->s, &w->carry_s);
		stats_add_resolver(&out->r, &w->carry_r);
	}
}

/** dump_cache: one message entry */
struct dump_arg {
	/** output */
	struct stats_buf *out;
	/** the time */
	time_t now;
	/** lookup: only this name, or NULL */
	const uint8_t *only;
	/** entries seen */
	size_t n;
};

static void
dump_msg_cb(const struct mcache_dump_entry *e, void *arg)
{
	struct dump_arg *a = arg;
	if(e->ttl == 0)
		return;
	if(a->only) {
		char nm[DNS_MAX_NAME_STR], tb[32];
		if(!dname_equal(a->only, e->qname))
			return;
		(void)dname_to_str(e->qname, nm, sizeof(nm));
		stats_buf_printf(a->out, "msg %s %s %s ttl %u rcode %s%s%s\n",
			nm, dns_class_str(e->qclass),
			dns_type_str(e->qtype, tb, sizeof(tb)), (unsigned)e->ttl,
			dns_rcode_str(e->rcode), e->do_bit ? " do" : "",
			e->cd_bit ? " cd" : "");
		a->n++;
		return;
	}
	stats_buf_printf(a->out, "msg %lld %u %d %d %d ", (long long)a->now,
		(unsigned)e->ttl, e->do_bit, e->cd_bit, (int)e->sec);
	buf_hex(a->out, e->msg, e->msg_len);
	stats_buf_append(a->out, "\n", 1);
	a->n++;
}

static void
dump_rrset_cb(const struct rrset_data *rs, void *arg)
{
	struct dump_arg *a = arg;
	size_t i;
	if(rs->ttl == 0)
		return;
	if(a->only) {
		char nm[DNS_MAX_NAME_STR], tb[32];
		if(!dname_equal(a->only, rs->name))
			return;
		(void)dname_to_str(rs->name, nm, sizeof(nm));
		stats_buf_printf(a->out, "rrset %s %u %s %s (%zu records, %zu "
			"signatures)\n", nm, (unsigned)rs->ttl,
			dns_class_str(rs->rrclass),
			dns_type_str(rs->type, tb, sizeof(tb)), rs->count,
			rs->sig_count);
		a->n++;
		return;
	}
	stats_buf_printf(a->out, "rrset %lld %u %d %d %u %u %zu %zu ",
		(long long)a->now, (unsigned)rs->ttl, (int)rs->trust,
		(int)rs->sec, (unsigned)rs->rrclass, (unsigned)rs->type,
		rs->count, rs->sig_count);
	buf_hex(a->out, rs->name, rs->name_len);
	for(i = 0; i < rs->count + rs->sig_count; i++) {
		stats_buf_append(a->out, " ", 1);
		buf_hex(a->out, rs->rdata[i], rs->rdlen[i]);
	}
	stats_buf_append(a->out, "\n", 1);
	a->n++;
}

/** dump_infra: where the lines go, and the time */
struct infra_dump_arg {
	/** output */
	struct stats_buf *out;
	/** the time */
	time_t now;
};

/** dump_infra: one server (or lameness) entry, in the order of
 * Unbound's line: address, zone, ttl, ping, var, rtt, rto; then
 * petrel's timeouts, edns and lame fields */
static void
dump_infra_cb(const struct infra_dump_entry *e, void *arg)
{
	struct infra_dump_arg *a = arg;
	char zone[DNS_MAX_NAME_STR], ad[80];
	long long ttl = (long long)e->host.expire - (long long)a->now;
	int srtt = e->host.srtt < 0 ? 0 : e->host.srtt;
	if(ttl <= 0)
		return;
	if(!e->zone || dname_to_str(e->zone, zone, sizeof(zone)) != 0)
		snprintf(zone, sizeof(zone), ".");
	if(e->port != 53)
		snprintf(ad, sizeof(ad), "%s@%d", e->addr, e->port);
	else	snprintf(ad, sizeof(ad), "%s", e->addr);
	stats_buf_printf(a->out, "%s %s ttl %lld ping %d var %d rtt %d "
		"rto %d timeouts %d ednsknown %d edns %d lame %d\n", ad,
		zone, ttl, srtt,
		e->host.rttvar, srtt + 4 * e->host.rttvar, e->host.rto,
		e->host.timeouts, e->host.edns != INFRA_EDNS_UNKNOWN,
		e->host.edns == INFRA_EDNS_YES ? 0 : -1, e->lame);
}

/** lower every TTL of a wire message by dec (at least 1 remains);
 * @return new wire (malloced) or NULL */
static uint8_t *
msg_lower_ttls(const uint8_t *msg, size_t len, uint32_t dec, size_t *outlen)
{
	ldns_pkt *pkt = NULL;
	uint8_t *wire = NULL;
	ldns_rr_list *lists[3];
	size_t i, j;
	if(ldns_wire2pkt(&pkt, msg, len) != LDNS_STATUS_OK)
		return NULL;
	lists[0] = ldns_pkt_answer(pkt);
	lists[1] = ldns_pkt_authority(pkt);
	lists[2] = ldns_pkt_additional(pkt);
	for(i = 0; i < 3; i++) {
		for(j = 0; lists[i] && j < ldns_rr_list_rr_count(lists[i]); j++) {
			ldns_rr *rr = ldns_rr_list_rr(lists[i], j);
			uint32_t t = ldns_rr_ttl(rr);
			ldns_rr_set_ttl(rr, t > dec ? t - dec : 1);
		}
	}
	if(ldns_pkt2wire(&wire, pkt, outlen) != LDNS_STATUS_OK)
		wire = NULL;
	ldns_pkt_free(pkt);
	return wire;
}

/** load one "msg" line; @return 1 stored, 0 dropped, -1 malformed */
static int
load_msg_line(struct daemon_env *env, char *rest, time_t now)
{
	long long dumped;
	unsigned ttl;
	int do_bit, cd_bit, sec, n = 0;
	char *hex;
	uint8_t *msg, *wire;
	long mlen;
	size_t wlen = 0, pos;
	struct query_info qi;
	uint8_t qname[DNS_MAX_NAME + 1];
	long long elapsed;
	int r;
	if(sscanf(rest, "%lld %u %d %d %d %n", &dumped, &ttl, &do_bit, &cd_bit,
		&sec, &n) != 5 || n == 0)
		return -1;
	hex = rest + n;
	hex[strcspn(hex, " \r\n")] = 0;
	msg = malloc(strlen(hex) / 2 + 1);
	if(!msg)
		return -1;
	mlen = hex_decode(hex, msg, strlen(hex) / 2 + 1);
	if(mlen < DNS_HDR_SIZE + 5) {
		free(msg);
		return -1;
	}
	elapsed = (long long)now - dumped;
	if(elapsed < 0)
		elapsed = 0;
	if(elapsed >= (long long)ttl) {
		free(msg);
		return 0;	/* expired since the dump */
	}
	pos = DNS_HDR_SIZE;
	if(dname_pkt_read_lower(msg, (size_t)mlen, &pos, qname, NULL) != 0 ||
		pos + 4 > (size_t)mlen) {
		free(msg);
		return -1;
	}
	if(query_info_set(&qi, qname, dns_read_u16(msg + pos),
		dns_read_u16(msg + pos + 2)) != 0) {
		free(msg);
		return -1;
	}
	wire = msg_lower_ttls(msg, (size_t)mlen, (uint32_t)elapsed, &wlen);
	free(msg);
	if(!wire)
		return -1;
	r = mcache_store(env->msg, &qi, do_bit, cd_bit, wire, wlen, now,
		(enum mcache_security)sec, -1);
	free(wire);
	return r == MCACHE_STORED ? 1 : r == MCACHE_NOT_CACHEABLE ? 0 : -1;
}

/** load one "rrset" line; @return 1 stored, 0 dropped, -1 malformed */
static int
load_rrset_line(struct daemon_env *env, char *rest, time_t now)
{
	long long dumped, elapsed;
	unsigned ttl, cl, ty;
	int trust, sec, n = 0, r = -1;
	size_t count, sigs, i, k;
	char *p, *w;
	uint8_t name[DNS_MAX_NAME + 1];
	uint8_t **rd = NULL;
	uint16_t *rl = NULL;
	long nl;
	struct rrset_data rs;
	if(sscanf(rest, "%lld %u %d %d %u %u %zu %zu %n", &dumped, &ttl, &trust,
		&sec, &cl, &ty, &count, &sigs, &n) != 8 || n == 0 ||
		count + sigs == 0 || count + sigs > 65535)
		return -1;
	p = rest + n;
	w = next_word(p, &p);
	nl = hex_decode(w, name, sizeof(name));
	if(nl <= 0 || dname_valid(name, (size_t)nl) != (size_t)nl)
		return -1;
	elapsed = (long long)now - dumped;
	if(elapsed < 0)
		elapsed = 0;
	if(elapsed >= (long long)ttl)
		return 0;
	rd = calloc(count + sigs, sizeof(*rd));
	rl = calloc(count + sigs, sizeof(*rl));
	if(!rd || !rl)
		goto out;
	for(i = 0; i < count + sigs; i++) {
		long l;
		w = next_word(p, &p);
		if(!w[0])
			goto out;
		rd[i] = malloc(strlen(w) / 2 + 1);
		if(!rd[i])
			goto out;
		l = hex_decode(w, rd[i], strlen(w) / 2 + 1);
		if(l < 0 || l > 65535)
			goto out;
		rl[i] = (uint16_t)l;
	}
	memset(&rs, 0, sizeof(rs));
	rs.name = name;
	rs.name_len = (size_t)nl;
	rs.type = (uint16_t)ty;
	rs.rrclass = (uint16_t)cl;
	rs.ttl = ttl - (uint32_t)elapsed;
	rs.trust = (enum rrset_trust)trust;
	rs.sec = (enum rrset_security)sec;
	rs.count = count;
	rs.sig_count = sigs;
	rs.rdata = (const uint8_t *const *)rd;
	rs.rdlen = rl;
	r = rrset_cache_store(env->rrset, &rs, now) == RRSET_STORED ? 1 : 0;
out:
	for(k = 0; rd && k < count + sigs; k++)
		free(rd[k]);
	free(rd);
	free(rl);
	return r;
}

/** load_cache in a worker: the payload is the dump text */
static void
worker_load_cache(struct worker *w, char *data, struct stats_buf *out)
{
	char *line = data, *nl;
	time_t now = worker_now(w);
	size_t stored = 0, dropped = 0, bad = 0;
	while(line && *line) {
		char *rest, *kw;
		nl = strchr(line, '\n');
		if(nl)
			*nl = 0;
		kw = next_word(line, &rest);
		if(strcmp(kw, "EOF") == 0)
			break;
		if(kw[0] && kw[0] != ';') {
			int r = -1;
			if(strcmp(kw, "msg") == 0 && w->env->msg)
				r = load_msg_line(w->env, rest, now);
			else if(strcmp(kw, "rrset") == 0 && w->env->rrset)
				r = load_rrset_line(w->env, rest, now);
			if(r == 1)
				stored++;
			else if(r == 0)
				dropped++;
			else	bad++;
		}
		line = nl ? nl + 1 : NULL;
	}
	stats_buf_printf(out, "%zu %zu %zu\n", stored, dropped, bad);
}

/** drop every client resolution in the mesh (flush_requestlist) */
static size_t
worker_flush_requestlist(struct worker *w)
{
	struct mesh *m;
	struct mesh_state *s;
	size_t n = 0, guard;
	if(!w->res || !(m = w->res->mesh))
		return 0;
	guard = m->num_states + 1;
	while(guard-- > 0) {
		for(s = m->first; s; s = s->next)
			if(!s->finished && s->num_clients > 0)
				break;
		if(!s)
			break;
		mesh_state_finish(s, NULL, DNS_EDE_OTHER);
		n++;
	}
	return n;
}

/** dump_requestlist in a worker */
static void
worker_dump_requestlist(struct worker *w, struct stats_buf *out)
{
	struct mesh_state *s;
	const struct timeval *now = w->base ? comm_base_now(w->base) : NULL;
	int i = 0;
	stats_buf_printf(out, "thread #%d\n", w->index);
	if(!w->res || !w->res->mesh)
		return;
	for(s = w->res->mesh->first; s; s = s->next, i++) {
		char nm[DNS_MAX_NAME_STR], tb[32];
		double age = 0;
		if(now)
			age = (double)(now->tv_sec - s->start.tv_sec) +
				(double)(now->tv_usec - s->start.tv_usec) / 1e6;
		(void)dname_to_str(s->qname, nm, sizeof(nm));
		stats_buf_printf(out, "%3d %4s %2s %s %.3f %d clients%s\n", i,
			dns_type_str(s->qtype, tb, sizeof(tb)),
			dns_class_str(s->qclass), nm, age, s->num_clients,
			s->prefetch ? " prefetch" : "");
	}
}

/** flush commands in a worker; replies "rrsets messages\n" */
static int
worker_flush(struct worker *w, const char *cmd, char *args,
	struct stats_buf *out, char *err, size_t errlen)
{
	struct daemon_env *env = w->env;
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl, nr = 0, nm = 0;
	char *rest, *a1;
	a1 = next_word(args, &rest);
	if(strcmp(cmd, "flush_negative") == 0) {
		if(env->msg)
			nm = mcache_flush_negative(env->msg);
	} else if(strcmp(cmd, "flush_bogus") == 0) {
		if(env->msg)
			nm = mcache_flush_bogus(env->msg);
	} else if(strcmp(cmd, "flush_all") == 0) {
		if(env->msg) {
			nm = mcache_get_count(env->msg);
			mcache_flush_all(env->msg);
		}
		if(env->rrset) {
			nr = rrset_cache_get_count(env->rrset);
			rrset_cache_flush_all(env->rrset);
		}
	} else if(strcmp(cmd, "flush_infra") == 0) {
		struct netaddr a;
		const char *e = NULL;
		if(!a1[0] || rest[0]) {
			snprintf(err, errlen, "expected: flush_infra all|IP");
			return -1;
		}
		if(strcmp(a1, "all") == 0) {
			if(env->infra) {
				nr = infra_get_count(env->infra);
				infra_flush_all(env->infra);
			}
		} else if(netaddr_parse(a1, 53, &a, &e) != 0) {
			snprintf(err, errlen, "bad address '%s'", a1);
			return -1;
		} else if(env->infra)
			nr = infra_flush_addr(env->infra, &a);
	} else {
		if(parse_name(a1, name, &nl) != 0) {
			snprintf(err, errlen, "bad or missing name '%s'", a1);
			return -1;
		}
		if(strcmp(cmd, "flush") == 0) {
			if(rest[0]) {
				snprintf(err, errlen, "expected: flush name");
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_name(env->msg, name);
			if(env->rrset)
				nr = rrset_cache_flush_name(env->rrset, name);
		} else if(strcmp(cmd, "flush_zone") == 0) {
			if(rest[0]) {
				snprintf(err, errlen, "expected: flush_zone name");
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_zone(env->msg, name);
			if(env->rrset)
				nr = rrset_cache_flush_zone(env->rrset, name);
		} else {	/* flush_type */
			char *t = next_word(rest, &rest);
			int ty = dns_type_from_str(t);
			if(!t[0] || rest[0] || ty < 0) {
				snprintf(err, errlen, "bad or missing type '%s'",
					t);
				return -1;
			}
			if(env->msg)
				nm = mcache_flush_type(env->msg, name,
					(uint16_t)ty, DNS_CLASS_IN);
			if(env->rrset)
				nr = rrset_cache_flush_type(env->rrset, name,
					(uint16_t)ty, DNS_CLASS_IN);
		}
	}
	stats_buf_printf(out, "%zu %zu\n", nr, nm);
	return 0;
}

/** run one worker command; the reply goes to out */
static void
worker_exec(struct worker *w, char *line, char *payload, size_t plen,
	struct stats_buf *out)
{
	char err[512], *args, *cmd = next_word(line, &args);
	(void)plen;
	err[0] = 0;
	if(strcmp(cmd, "stats_get") == 0) {
		struct stats_info si;
		stats_collect(w, &si, atoi(args));
		if(w->env->msg) {
			si.mem_msg = mcache_get_mem(w->env->msg);
			si.msg_count = mcache_get_count(w->env->msg);
		}
		if(w->env->rrset) {
			si.mem_rrset = rrset_cache_get_mem(w->env->rrset);
			si.rrset_count = rrset_cache_get_count(w->env->rrset);
		}
		if(w->env->infra)
			si.infra_count = infra_get_count(w->env->infra);
		stats_buf_append(out, &si, sizeof(si));
	} else if(strncmp(cmd, "flush", 5) == 0 &&
		strcmp(cmd, "flush_requestlist") != 0) {
		if(worker_flush(w, cmd, args, out, err, sizeof(err)) != 0)
			stats_buf_printf(out, "error %s\n", err);
	} else if(strcmp(cmd, "flush_requestlist") == 0) {
		stats_buf_printf(out, "0 %zu\n", worker_flush_requestlist(w));
	} else if(strcmp(cmd, "dump_requestlist") == 0) {
		worker_dump_requestlist(w, out);
	} else if(strcmp(cmd, "dump_cache") == 0) {
		struct dump_arg a;
		memset(&a, 0, sizeof(a));
		a.out = out;
		a.now = worker_now(w);
		if((w->env->msg && mcache_traverse(w->env->msg, a.now,
			dump_msg_cb, &a) != 0) || (w->env->rrset &&
			rrset_cache_traverse(w->env->rrset, a.now, dump_rrset_cb,
			&a) != 0))
			stats_buf_printf(out, "error out of memory\n");
	} else if(strcmp(cmd, "lookup") == 0) {
		struct dump_arg a;
		uint8_t name[DNS_MAX_NAME + 1];
		size_t nl;
		if(parse_name(args, name, &nl) != 0) {
			stats_buf_printf(out, "error bad name '%s'\n", args);
			return;
		}
		memset(&a, 0, sizeof(a));
		a.out = out;
		a.now = worker_now(w);
		a.only = name;
		if(w->env->msg)
			(void)mcache_traverse(w->env->msg, a.now, dump_msg_cb,
				&a);
		if(w->env->rrset)
			(void)rrset_cache_traverse(w->env->rrset, a.now,
				dump_rrset_cb, &a);
	} else if(strcmp(cmd, "load_cache") == 0) {
		if(payload)
			worker_load_cache(w, payload, out);
		else	stats_buf_printf(out, "0 0 0\n");
	} else if(strcmp(cmd, "dump_infra") == 0) {
		struct infra_dump_arg ia;
		ia.out = out;
		ia.now = worker_now(w);
		if(w->env->infra)
			infra_traverse(w->env->infra, dump_infra_cb, &ia);
	} else if(strcmp(cmd, "verbosity") == 0) {
		log_set_verbosity(atoi(args));
		stats_buf_printf(out, "ok\n");
	} else if(strcmp(cmd, "cfg") == 0 && w->daemon->is_child) {
		/* fork: apply the same config change and reload on it */
		char *sub, *subargs;
		struct config_file *ncfg = config_dup(w->daemon->cfg);
		sub = next_word(args, &subargs);
		if(payload && bulk_single(sub))
			subargs = payload;
		if(!ncfg || remote_cfg_change(ncfg, sub, subargs, err,
			sizeof(err)) != 0) {
			config_delete(ncfg);
			stats_buf_printf(out, "error %s\n", err[0] ? err :
				"out of memory");
			return;
		}
		config_delete(w->next_cfg);
		w->next_cfg = ncfg;
		w->cmd = 'R';
		comm_base_exit(w->base);
		stats_buf_printf(out, "ok\n");
	} else
		stats_buf_printf(out, "error unknown worker command '%s'\n",
			cmd);
}

void
remote_worker_cmd(struct worker *w, int fd)
{
	uint32_t len, hdr[2];
	char *frame = NULL;
	struct stats_buf out;
	size_t ll;
	int wfd = w->stat_pipe[1];
	memset(&out, 0, sizeof(out));
	if(read_all_fd(fd, &len, sizeof(len), REMOTE_WORKER_TIMEOUT_MS) != 0 ||
		len == 0 || len > REMOTE_FRAME_MAX) {
		verbose(VERB_OPS, "worker %d: bad control frame", w->index);
		return;
	}
	frame = malloc((size_t)len + 1);
	if(!frame || read_all_fd(fd, frame, len, REMOTE_WORKER_TIMEOUT_MS)
		!= 0) {
		free(frame);
		verbose(VERB_OPS, "worker %d: short control frame", w->index);
		return;
	}
	frame[len] = 0;
	ll = strnlen(frame, len);
	worker_exec(w, frame, ll < len ? frame + ll + 1 : NULL,
		ll < len ? len - ll - 1 : 0, &out);
	free(frame);
	if(out.oom) {
		stats_buf_free(&out);
		stats_buf_printf(&out, "error out of memory\n");
	}
	if(wfd == -1) {
		stats_buf_free(&out);
		return;
	}
	hdr[0] = REMOTE_MAGIC;
	hdr[1] = (uint32_t)out.len;
	(void)fd_nonblock(wfd, 1);
	if(write_all_fd(wfd, hdr, sizeof(hdr), REMOTE_WORKER_TIMEOUT_MS) != 0 ||
		write_all_fd(wfd, out.data ? out.data : "", out.len,
		REMOTE_WORKER_TIMEOUT_MS) != 0)
		verbose(VERB_OPS, "worker %d: cannot write the control reply",
			w->index);
	stats_buf_free(&out);
}

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
	(void)fd_nonblock(readfd, 1);
	while(read(readfd, junk, sizeof(junk)) > 0)
		;
	len = (uint32_t)(ll + 1 + plen);
	oldfl = fd_nonblock(cmdfd, 1);
	r = write_all_fd(cmdfd, &c, 1, REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0)
		r = write_all_fd(cmdfd, &len, sizeof(len),
			REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0)
		r = write_all_fd(cmdfd, line, ll + 1, REMOTE_WORKER_TIMEOUT_MS);
	if(r == 0 && plen)
		r = write_all_fd(cmdfd, payload, plen,
			REMOTE_WORKER_TIMEOUT_MS);
	(void)fcntl(cmdfd, F_SETFL, oldfl);
	if(r != 0) {
		log_warnx("control: cannot send '%s' to worker %d", line, i);
		return -1;
	}
	if(read_all_fd(readfd, hdr, sizeof(hdr), REMOTE_WORKER_TIMEOUT_MS)
		!= 0 || hdr[0] != REMOTE_MAGIC || hdr[1] > REMOTE_FRAME_MAX) {
		log_warnx("control: no reply from worker %d to '%s'", i, line);
		return -1;
	}
	while(hdr[1] > 0) {
		size_t n = hdr[1] < sizeof(junk) ? hdr[1] : sizeof(junk);
		if(read_all_fd(readfd, junk, n, REMOTE_WORKER_TIMEOUT_MS) != 0) {
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

/** gather statistics from every worker */
static int
gather_stats(struct daemon *d, int mode, struct stats_info *info,
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
		if(d->children || i == 0) {
			/* threads share one cache: count it once */
			g->mem_msg += info[i].mem_msg;
			g->mem_rrset += info[i].mem_rrset;
			g->msg_count += info[i].msg_count;
			g->rrset_count += info[i].rrset_count;
			g->infra_count += info[i].infra_count;
		}
		if((double)info[i].s.elapsed > g->elapsed)
			g->elapsed = (double)info[i].s.elapsed;
	}
	gettimeofday(&now, NULL);
	g->now = (double)now.tv_sec + (double)now.tv_usec / 1e6;
	g->up = g->now - ((double)d->started.tv_sec +
		(double)d->started.tv_usec / 1e6);
	g->extended = d->cfg->extended_statistics;
	return 0;
}

/* ------------------------------------------------------------------ */
/* supervisor: connections                                             */

/** read up to len bytes; @return bytes, 0 at end, -1 on error */
static ssize_t
conn_read(struct remote_conn *c, void *buf, size_t len)
{
	if(time(NULL) > c->deadline) {
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
			log_warnx("control: client too slow to read, closed");
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

/** the zone clause that covers name (longest match), or NULL */
static const struct config_stub *
zone_for(const struct config_stub *z, const uint8_t *name, int *labels)
{
	const struct config_stub *best = NULL;
	for(; z; z = z->next) {
		uint8_t zn[DNS_MAX_NAME + 1];
		size_t zl;
		int l;
		if(parse_name(z->name, zn, &zl) != 0 ||
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

/** status */
static void
do_status(struct remote *rc, struct stats_buf *out)
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
	stats_buf_printf(out, "modules: 1 [ iterator ]\n");
	stats_buf_printf(out, "uptime: %lld seconds\n",
		(long long)(now.tv_sec - d->started.tv_sec));
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
	if(bulk_single(cmd)) {
		/* each line alone; the bad ones reported, as Unbound does */
		nbulk = cfg_change_bulk(ncfg, bulk_single(cmd), args, &report);
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
		int bulk = bulk_single(cmd) != NULL;
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
	if(bulk_single(cmd)) {
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
};

/** a command handler */
typedef void (*remote_cmd_func)(struct remote_req *q);

static void
cmd_status(struct remote_req *q)
{
	do_status(q->rc, q->out);
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
	gather_stats(q->d, reset, info, &g);
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
	gather_stats(q->d, 1, info, &g);
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
	unsigned long long sums[2];
	if(sum_workers(q->d, q->line, NULL, 0, cache_workers(q->d), sums, 2,
		q->out) != 0)
		return;
	if(strcmp(q->cmd, "flush_infra") == 0)
		stats_buf_printf(q->out, "ok removed %llu hosts\n", sums[0]);
	else	stats_buf_printf(q->out, "ok removed %llu rrsets, %llu "
			"messages and 0 key entries\n", sums[0], sums[1]);
}

/** flush_requestlist: every worker has its own mesh */
static void
cmd_flush_requestlist(struct remote_req *q)
{
	unsigned long long sums[2];
	if(sum_workers(q->d, q->line, NULL, 0, q->d->num_workers, sums, 2,
		q->out) != 0)
		return;
	stats_buf_printf(q->out, "ok removed %llu queries\n", sums[1]);
}

static void
cmd_dump_requestlist(struct remote_req *q)
{
	join_workers(q->d, q->line, q->d->num_workers, q->out);
}

static void
cmd_dump_cache(struct remote_req *q)
{
	join_workers(q->d, q->line, cache_workers(q->d), q->out);
	stats_buf_printf(q->out, "EOF\n");
}

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
	if(sum_workers(q->d, "load_cache", dump.data, dump.len,
		cache_workers(q->d), sums, 3, q->out) != 0) {
		stats_buf_free(&dump);
		return;
	}
	stats_buf_free(&dump);
	if(sums[2] > 0)
		stats_buf_printf(q->out, "error %llu malformed lines (%llu "
			"entries loaded, %llu expired)\n", sums[2], sums[0],
			sums[1]);
	else	stats_buf_printf(q->out, "ok loaded %llu entries, %llu "
			"expired or kept\n", sums[0], sums[1]);
}

static void
cmd_lookup(struct remote_req *q)
{
	struct daemon *d = q->d;
	uint8_t name[DNS_MAX_NAME + 1];
	size_t nl;
	int labels = -1;
	const struct config_stub *f, *s;
	if(parse_name(q->args, name, &nl) != 0 || strchr(q->args, ' ')) {
		stats_buf_printf(q->out, "error expected: lookup name\n");
		return;
	}
	stats_buf_printf(q->out, "The following name servers are used for "
		"lookup of %s\n", q->args);
	f = zone_for(d->cfg->forwards, name, &labels);
	s = zone_for(d->cfg->stubs, name, &labels);
	if(s) {
		/* zone_for kept the longer match: the stub */
		stats_buf_printf(q->out, "stub zone:\n");
		list_zones(q->out, s, 0, 1);
	} else if(f) {
		stats_buf_printf(q->out, "forwarding request:\n");
		list_zones(q->out, f, 1, 1);
	} else
		stats_buf_printf(q->out, "the root servers (recursion)\n");
	stats_buf_printf(q->out, "cached:\n");
	join_workers(d, q->line, cache_workers(d), q->out);
}

static void
cmd_list_forwards(struct remote_req *q)
{
	list_zones(q->out, q->d->cfg->forwards, 1, 0);
}

static void
cmd_list_stubs(struct remote_req *q)
{
	list_zones(q->out, q->d->cfg->stubs, 0, 0);
}

static void
cmd_list_local_zones(struct remote_req *q)
{
	const struct config_localzone *z;
	for(z = q->d->cfg->local_zones; z; z = z->next)
		stats_buf_printf(q->out, "%s %s\n", z->name, z->type);
}

static void
cmd_list_local_data(struct remote_req *q)
{
	const struct config_strlist *s;
	for(s = q->d->cfg->local_data; s; s = s->next)
		stats_buf_printf(q->out, "%s\n", s->str);
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
	while(*(w = next_word(rest, &rest))) {
		uint8_t name[DNS_MAX_NAME + 1];
		size_t nl;
		if(w[0] == '+')	/* +t allows top-level names: all are */
			continue;
		if(parse_name(w, name, &nl) != 0) {
			stats_buf_printf(q->out, "error bad name '%s'\n", w);
			return;
		}
		snprintf(line, sizeof(line), "lookup %s", w);
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
	{ "flush_requestlist", cmd_flush_requestlist },
	{ "dump_requestlist", cmd_dump_requestlist },
	{ "dump_cache", cmd_dump_cache },
	{ "load_cache", cmd_load_cache },
	{ "lookup", cmd_lookup },
	{ "list_forwards", cmd_list_forwards },
	{ "list_stubs", cmd_list_stubs },
	{ "list_local_zones", cmd_list_local_zones },
	{ "list_local_data", cmd_list_local_data },
	{ "get_option", cmd_get_option },
	{ "set_option", cmd_cfg_change },
	{ "local_zone", cmd_cfg_change },
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
	{ "forward", cmd_forward },
	{ NULL, NULL }
};

/** run a control command in the supervisor */
static void
execute(struct remote *rc, struct remote_conn *c, char *cmd, char *args,
	struct stats_buf *out)
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
	k->fn(&q);
}

/** serve one control connection */
static void
serve_control(struct remote *rc, struct remote_conn *c)
{
	char line[REMOTE_LINE_MAX], *rest, *proto, *cmd;
	struct stats_buf out;
	memset(&out, 0, sizeof(out));
	if(conn_readline(c, line, sizeof(line)) != 0) {
		(void)conn_write(c, "error no command line (or too long)\n", 36);
		return;
	}
	proto = next_word(line, &rest);
	if(strcmp(proto, REMOTE_PROTO) != 0 &&
		strcmp(proto, REMOTE_PROTO_UNBOUND) != 0) {
		const char *e = "error unknown protocol: expected "
			REMOTE_PROTO " command\n";
		(void)conn_write(c, e, strlen(e));
		return;
	}
	cmd = next_word(rest, &rest);
	{
		size_t n = strlen(rest);
		while(n > 0 && isspace((unsigned char)rest[n-1]))
			rest[--n] = 0;
	}
	verbose(VERB_DETAIL, "control command: %s %s", cmd, rest);
	execute(rc, c, cmd, rest, &out);
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
			gather_stats(d, STATS_GET_MONOTONIC, info, &g);
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
	(void)fd_nonblock(s, 0);
	tv.tv_sec = REMOTE_TIMEOUT_MS / 1000;
	tv.tv_usec = (REMOTE_TIMEOUT_MS % 1000) * 1000;
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if(l->http) {
		serve_http(rc, &c);
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
			log_ssl_errors("control: TLS handshake refused "
				"(wrong or missing client certificate?)");
			goto done;
		}
	}
	serve_control(rc, &c);
	if(c.ssl)
		(void)SSL_shutdown(c.ssl);
done:
	if(c.ssl)
		SSL_free(c.ssl);
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
		log_warn("control-interface: cannot listen on %s", path);
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
		log_warn("cannot listen on %s port %d", str, netaddr_port(&a));
		close(s);
		return -1;
	}
	return s;
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
	(void)fd_nonblock(fd, 1);
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
		verbose(VERB_OPS, "metrics on http://%s/metrics",
			cfg->http_metrics_interface);
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
