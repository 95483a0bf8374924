/*
 * tests/check_outside_network.c - the outside network against a small fake
 * authoritative server on 127.0.0.1, served from the same comm_base (a UDP
 * socket watched with comm_watch, and a TCP comm_point), so the test runs
 * on one thread in every build.
 */
#include "config.h"
#include "services/outside_network.h"
#include "util/netevent/netevent.h"
#include "util/netaddr.h"
#include "util/random.h"
#include "util/log.h"
#include "util/config_file.h"
#include <check.h>
#define TU_COUNTING_ALLOC 1
#include "tests/testutil.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <sys/uio.h>
#include <signal.h>
#include <sys/wait.h>

/* ------------------------------------------------------------------ */
/* heap calls, counted (test_steady_state_allocs) */

/** the fake server's and the callers' own code (check's assertions
 * allocate) is not counted: these bracket it */
#define UNCOUNTED_BEGIN int was_counting = tu_counting; tu_counting = 0
#define UNCOUNTED_END tu_counting = was_counting


/* ------------------------------------------------------------------ */
/* the fake server */

/** how the fake UDP server answers */
enum fake_mode {
	/** echo the question with QR set */
	FAKE_ANSWER,
	/** first a wrong ID, a wrong question, a wrong port, then right */
	FAKE_WRONG_FIRST,
	/** answer with TC set (TCP server gives the full answer) */
	FAKE_TC,
	/** never answer */
	FAKE_SILENT,
	/** answer with the name lower-cased (breaks 0x20) */
	FAKE_LOWERCASE
};

static struct comm_base *base;
static struct petrel_random *rnd;
static enum fake_mode mode;
static int srv_fd, alt_fd;
static struct netaddr srv_addr, tcp_addr;
static struct comm_watch *srv_watch;
static struct comm_point *tcp_srv;
/** queries the UDP server saw: source port, ID, name */
static int udp_seen;
static int seen_port[64];
/** source address of the last query */
static struct netaddr seen_from;
static int seen_id[64];
static uint8_t seen_name[64][64];
static int tcp_seen;
/** 1: the TCP server reads queries and never answers */
static int tcp_silent;

/** answer marker in ANCOUNT: which path made the answer */
#define MARK_UDP 1
#define MARK_TCP 2
#define MARK_BAD 9

static void
put16(uint8_t *p, int v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static int
get16(const uint8_t *p)
{
	return (p[0] << 8) | p[1];
}

/** length of the question section (name + 4) of pkt, or 0 */
static size_t
question_len(const uint8_t *pkt, size_t len)
{
	size_t n = 12;
	while(n < len && pkt[n] != 0)
		n += 1 + pkt[n];
	if(n + 5 > len)
		return 0;
	return n + 1 + 4 - 12;
}

static void
srv_send(int fd, const uint8_t *pkt, size_t len, const struct netaddr *to)
{
	UNCOUNTED_BEGIN;
	ck_assert_int_eq(sendto(fd, pkt, len, 0,
		(const struct sockaddr *)&to->addr, to->len), (ssize_t)len);
	UNCOUNTED_END;
}

static void
srv_read(int fd, void *arg)
{
	uint8_t q[512], r[512];
	struct netaddr from;
	ssize_t n;
	size_t qlen, rlen, i;
	(void)arg;
	from.len = sizeof(from.addr);
	n = recvfrom(fd, q, sizeof(q), 0, (struct sockaddr *)&from.addr,
		&from.len);
	if(n < 12)
		return;
	qlen = question_len(q, (size_t)n);
	{
		UNCOUNTED_BEGIN;
		ck_assert_uint_gt(qlen, 0);
		UNCOUNTED_END;
	}
	if(udp_seen < 64) {
		seen_port[udp_seen] = netaddr_port(&from);
		seen_id[udp_seen] = get16(q);
		memcpy(seen_name[udp_seen], q + 12, qlen - 4 < 64 ? qlen - 4 :
			63);
	}
	udp_seen++;
	seen_from = from;
	if(mode == FAKE_SILENT)
		return;
	/* the reply: header, question */
	memcpy(r, q, 12 + qlen);
	r[2] |= 0x80;
	put16(r + 4, 1);
	put16(r + 6, MARK_UDP);
	put16(r + 8, 0);
	put16(r + 10, 0);
	rlen = 12 + qlen;
	if(mode == FAKE_TC)
		r[2] |= 0x02;
	if(mode == FAKE_LOWERCASE) {
		for(i = 12; i < 12 + qlen - 4; i++)
			if(r[i] >= 'A' && r[i] <= 'Z')
				r[i] += 32;
	}
	if(mode == FAKE_WRONG_FIRST) {
		uint8_t bad[512];
		memcpy(bad, r, rlen);
		put16(bad + 6, MARK_BAD);
		/* wrong ID */
		put16(bad, get16(r) ^ 0x5555);
		srv_send(fd, bad, rlen, &from);
		/* wrong question (type) */
		memcpy(bad, r, rlen);
		put16(bad + 6, MARK_BAD);
		put16(bad + 12 + qlen - 4, get16(r + 12 + qlen - 4) + 1);
		srv_send(fd, bad, rlen, &from);
		/* right packet, wrong source port */
		memcpy(bad, r, rlen);
		put16(bad + 6, MARK_BAD);
		srv_send(alt_fd, bad, rlen, &from);
	}
	srv_send(fd, r, rlen, &from);
}

/** the TCP server: echo the query with QR set and the TCP mark */
static int
tcp_srv_cb(struct comm_reply *rep, void *arg)
{
	(void)arg;
	tcp_seen++;
	if(tcp_silent)
		return 0;
	rep->buf[2] |= 0x80;
	put16(rep->buf + 6, MARK_TCP);
	return 1;
}

/** open the fake servers on 127.0.0.1, UDP and TCP on the same port */
static void
fake_start(void)
{
	struct netaddr a;
	int tfd, tries;
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 0, &a, NULL), 0);
	for(tries = 0; tries < 20; tries++) {
		srv_fd = comm_sock_open_udp(&a, NULL);
		ck_assert_int_ge(srv_fd, 0);
		srv_addr.len = sizeof(srv_addr.addr);
		getsockname(srv_fd, (struct sockaddr *)&srv_addr.addr,
			&srv_addr.len);
		tfd = comm_sock_open_tcp(&srv_addr, NULL);
		if(tfd >= 0)
			break;
		close(srv_fd);
	}
	ck_assert_int_ge(tfd, 0);
	tcp_addr = srv_addr;
	alt_fd = comm_sock_open_udp(&a, NULL);
	ck_assert_int_ge(alt_fd, 0);
	srv_watch = comm_watch_create(base, srv_fd, srv_read, NULL);
	ck_assert_ptr_nonnull(srv_watch);
	tcp_srv = comm_point_create_tcp(base, tfd, 8, 5000, 0, tcp_srv_cb,
		NULL);
	ck_assert_ptr_nonnull(tcp_srv);
	udp_seen = tcp_seen = 0;
	tcp_silent = 0;
	mode = FAKE_ANSWER;
}

static void
fake_stop(void)
{
	comm_watch_delete(srv_watch);
	comm_point_delete(tcp_srv);
	close(srv_fd);
	close(alt_fd);
}

/* ------------------------------------------------------------------ */
/* callers */

/** what a caller got */
struct result {
	/** callbacks seen */
	int calls;
	/** status */
	enum outbound_status st;
	/** ANCOUNT mark of the reply */
	int mark;
	/** TC bit of the reply */
	int tc;
	/** rtt given */
	int rtt;
};

static void
res_cb(void *arg, enum outbound_status st, const uint8_t *pkt, size_t len,
	int rtt)
{
	struct result *r = arg;
	UNCOUNTED_BEGIN;
	r->calls++;
	r->st = st;
	r->rtt = rtt;
	if(st == OUTBOUND_REPLY) {
		ck_assert_ptr_nonnull(pkt);
		ck_assert_uint_ge(len, 12);
		r->mark = get16(pkt + 6);
		r->tc = (pkt[2] & 0x02) != 0;
	}
	UNCOUNTED_END;
}

/** turn the loop until *flag >= want, or about two seconds */
static void
run_until(int *flag, int want)
{
	int i;
	for(i = 0; i < 400 && *flag < want; i++)
		comm_base_loop_once(base, 5);
}

/** turn the loop ms milliseconds */
static void
run_for(int ms)
{
	struct timeval a, n;
	gettimeofday(&a, NULL);
	do {
		comm_base_loop_once(base, 5);
		gettimeofday(&n, NULL);
	} while((n.tv_sec - a.tv_sec) * 1000 + (n.tv_usec - a.tv_usec) / 1000
		< ms);
}

/** wire name of "a<i>.example." (or a long name) into out */
static size_t
mkname(uint8_t *out, const char *label, int i)
{
	char l[64];
	size_t n;
	snprintf(l, sizeof(l), "%s%d", label, i);
	n = strlen(l);
	out[0] = (uint8_t)n;
	memcpy(out + 1, l, n);
	out[1 + n] = 7;
	memcpy(out + 2 + n, "example", 7);
	out[9 + n] = 0;
	return 10 + n;
}

/** the event backends, every test runs on each */
static const char *backends[] = {
	"select",
#ifdef HAVE_LIBEVENT
	"libevent",
#endif
};
#define NUM_BACKENDS ((int)(sizeof(backends) / sizeof(backends[0])))

/** set up a network and the fake server on the test's backend */
#define mknet(range, ntcp, caps, thr) mknet_(backends[_i], range, ntcp, \
	caps, thr)

/** upstream-cookies for the next mknet */
static int with_cookies;
/** caps-exempt for the next mknet (NULL: none) */
static const struct config_strlist *caps_exempt;
/** outgoing-port-permit/-avoid rules for the next mknet (NULL: none) */
static const struct config_strlist *port_rules;
/** udp-connect for the next mknet */
static int with_connect;
/** delay-close (ms) for the next mknet */
static int with_delay_close;
/** tcp-auth-query-timeout (ms) for the next mknet */
static int with_tcp_auth;

static struct outside_network *
mknet_(const char *backend, int range, int ntcp, int caps, int threshold)
{
	struct outside_network *on;
	struct outside_network_params op;
	base = comm_base_create(backend);
	ck_assert_ptr_nonnull(base);
	rnd = random_create();
	ck_assert_ptr_nonnull(rnd);
	memset(&op, 0, sizeof(op));
	op.outgoing_range = range;
	op.outgoing_num_tcp = ntcp;
	op.use_caps_for_id = caps;
	op.upstream_cookies = with_cookies;
	op.caps_exempt = caps_exempt;
	op.port_rules = port_rules;
	op.udp_connect = with_connect;
	op.delay_close = with_delay_close;
	op.tcp_auth_query_timeout = with_tcp_auth;
	op.edns_buffer_size = 1232;
	op.do_ip4 = 1;
	op.do_ip6 = 0;
	op.unwanted_reply_threshold = threshold;
	op.rnd = rnd;
	on = outside_network_create(base, &op);
	ck_assert_ptr_nonnull(on);
	fake_start();
	return on;
}

static void
rmnet(struct outside_network *on)
{
	outside_network_delete(on);
	fake_stop();
	random_delete(rnd);
	comm_base_delete(base);
}

/** ask_wait: the status is not checked */
#define ANY_ST (-1)

static struct outbound_query *
ask(struct outbound *ob, const uint8_t *name, size_t len, int flags,
	int timeout, struct result *r)
{
	memset(r, 0, sizeof(*r));
	return ob->send(ob->ctx, &srv_addr, name, len, 1, 1, flags, NULL, 0,
		timeout, res_cb, r);
}

/** ask, and turn the loop until the callback came: the query must be
 * accepted, and called back once, with status st (ANY_ST: not checked) */
static void
ask_wait(struct outbound *ob, const uint8_t *name, size_t len, int flags,
	int timeout, struct result *r, int st)
{
	ck_assert_ptr_nonnull(ask(ob, name, len, flags, timeout, r));
	run_until(&r->calls, 1);
	ck_assert_int_eq(r->calls, 1);
	ck_assert_msg(st == ANY_ST || (int)r->st == st, "status %d, want %d",
		(int)r->st, st);
}

/* ------------------------------------------------------------------ */

START_TEST(test_answer)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "www", 1);
	ck_assert_ptr_eq(ob->now, comm_base_now(base));
	ck_assert_ptr_nonnull(ask(ob, name, len, OUTBOUND_FLAG_RD |
		OUTBOUND_FLAG_DO, 1000, &r));
	/* never called from inside send */
	ck_assert_int_eq(r.calls, 0);
	run_until(&r.calls, 1);
	ck_assert_int_eq(r.calls, 1);
	ck_assert_int_eq(r.st, OUTBOUND_REPLY);
	ck_assert_int_eq(r.mark, MARK_UDP);
	ck_assert_int_ge(r.rtt, 0);
	ck_assert_int_lt(r.rtt, 1000);
	ck_assert_int_eq(udp_seen, 1);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	ck_assert_int_eq(outside_network_pending(on), 0);
	ck_assert_uint_eq(outside_network_get_stats(on)->replies, 1);
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 0);
	rmnet(on);
}
END_TEST

/** the query packet: flags, EDNS, DO, RD */
static uint8_t last_q[512];
static ssize_t last_qlen;

static void
raw_read(int fd, void *arg)
{
	struct netaddr from;
	(void)arg;
	from.len = sizeof(from.addr);
	last_qlen = recvfrom(fd, last_q, sizeof(last_q), 0,
		(struct sockaddr *)&from.addr, &from.len);
	udp_seen++;
}

/** an ECS option (192.0.2.0/24) */
static const uint8_t ecs_opt[] = { 0, 8, 0, 7, 0, 1, 24, 0, 192, 0, 2 };

START_TEST(test_query_format)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct outbound_query *q;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "Fmt", 1), qend;
	comm_watch_delete(srv_watch);
	srv_watch = comm_watch_create(base, srv_fd, raw_read, NULL);
	q = ask(ob, name, len, OUTBOUND_FLAG_RD | OUTBOUND_FLAG_CD |
		OUTBOUND_FLAG_DO, 1000, &r);
	ck_assert_ptr_nonnull(q);
	run_until(&udp_seen, 1);
	qend = 12 + len + 4;
	ck_assert_int_eq(last_qlen, (ssize_t)(qend + 11));
	ck_assert_int_eq(last_q[2] & 0x81, 0x01);	/* RD, not QR */
	ck_assert_int_eq(last_q[3] & 0x10, 0x10);	/* CD */
	ck_assert_int_eq(get16(last_q + 4), 1);
	ck_assert_int_eq(get16(last_q + 10), 1);	/* OPT */
	ck_assert_int_eq(memcmp(last_q + 12, name, len), 0); /* no 0x20 */
	ck_assert_int_eq(get16(last_q + qend + 1), 41);
	ck_assert_int_eq(get16(last_q + qend + 3), 1232);
	ck_assert_int_eq(get16(last_q + qend + 7), 0x8000); /* DO */
	ob->cancel(ob->ctx, q);
	/* without EDNS and flags */
	q = ask(ob, name, len, OUTBOUND_FLAG_NOEDNS, 1000, &r);
	run_until(&udp_seen, 2);
	ck_assert_int_eq(last_qlen, (ssize_t)qend);
	ck_assert_int_eq(last_q[2], 0);
	ck_assert_int_eq(get16(last_q + 10), 0);
	ob->cancel(ob->ctx, q);
	/* EDNS options go in the OPT record's RDATA */
	q = ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0, ecs_opt,
		sizeof(ecs_opt), 1000, res_cb, &r);
	ck_assert_ptr_nonnull(q);
	run_until(&udp_seen, 3);
	ck_assert_int_eq(last_qlen, (ssize_t)(qend + 11 + sizeof(ecs_opt)));
	ck_assert_int_eq(get16(last_q + qend + 9), sizeof(ecs_opt));
	ck_assert_int_eq(memcmp(last_q + qend + 11, ecs_opt, sizeof(ecs_opt)),
		0);
	ob->cancel(ob->ctx, q);
	/* not with NOEDNS; too many are refused */
	q = ob->send(ob->ctx, &srv_addr, name, len, 1, 1,
		OUTBOUND_FLAG_NOEDNS, ecs_opt, sizeof(ecs_opt), 1000, res_cb,
		&r);
	run_until(&udp_seen, 4);
	ck_assert_int_eq(last_qlen, (ssize_t)qend);
	ob->cancel(ob->ctx, q);
	ck_assert_ptr_null(ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0,
		ecs_opt, OUTBOUND_MAX_OPTS + 1, 1000, res_cb, &r));
	ck_assert_int_eq(r.calls, 0);
	rmnet(on);
}
END_TEST

/* upstream-cookies beside a module's EDNS options (the subnetcache's
 * ECS): the COOKIE option follows them and the OPT RDLEN counts both */
START_TEST(test_query_format_cookie)
{
	struct outside_network *on;
	struct outbound *ob;
	struct outbound_query *q;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "Ck", 1), qend, o;
	with_cookies = 1;
	on = mknet(16, 4, 0, 0);
	with_cookies = 0;
	ob = outside_network_outbound(on);
	comm_watch_delete(srv_watch);
	srv_watch = comm_watch_create(base, srv_fd, raw_read, NULL);
	q = ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0, ecs_opt,
		sizeof(ecs_opt), 1000, res_cb, &r);
	ck_assert_ptr_nonnull(q);
	run_until(&udp_seen, 1);
	qend = 12 + len + 4;
	o = qend + 11;
	ck_assert_int_eq(last_qlen, (ssize_t)(o + sizeof(ecs_opt) + 12));
	ck_assert_int_eq(get16(last_q + qend + 9), sizeof(ecs_opt) + 12);
	ck_assert_int_eq(memcmp(last_q + o, ecs_opt, sizeof(ecs_opt)), 0);
	ck_assert_int_eq(get16(last_q + o + sizeof(ecs_opt)), 10); /* COOKIE */
	ck_assert_int_eq(get16(last_q + o + sizeof(ecs_opt) + 2), 8);
	ob->cancel(ob->ctx, q);
	/* and alone: right after the OPT header */
	q = ask(ob, name, len, 0, 1000, &r);
	run_until(&udp_seen, 2);
	ck_assert_int_eq(last_qlen, (ssize_t)(o + 12));
	ck_assert_int_eq(get16(last_q + qend + 9), 12);
	ck_assert_int_eq(get16(last_q + o), 10);
	ob->cancel(ob->ctx, q);
	rmnet(on);
}
END_TEST

START_TEST(test_wrong_replies_ignored)
{
	struct outside_network *on = mknet(16, 4, 0, 3);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "bad", 1);
	mode = FAKE_WRONG_FIRST;
	ask_wait(ob, name, len, 0, 1000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(r.mark, MARK_UDP);	/* not one of the bad ones */
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 3);
	rmnet(on);
}
END_TEST

/* udp-connect: the socket is connected to the server, so the kernel
 * drops the reply from the server's other port before petrel reads it:
 * two unwanted replies (wrong ID, wrong question), not three */
START_TEST(test_udp_connect)
{
	struct outside_network *on;
	struct outbound *ob;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "conn", 1);
	with_connect = 1;
	on = mknet(16, 4, 0, 0);
	with_connect = 0;
	ob = outside_network_outbound(on);
	mode = FAKE_WRONG_FIRST;
	ask_wait(ob, name, len, 0, 1000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(r.mark, MARK_UDP);
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 2);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	rmnet(on);
}
END_TEST

/** TOS byte of the last query the raw server read, -1 for none */
static int last_tos;

static void
tos_read(int fd, void *arg)
{
	uint8_t buf[512];
	char cbuf[256];
	struct iovec iov;
	struct msghdr m;
	struct cmsghdr *c;
	(void)arg;
	memset(&m, 0, sizeof(m));
	iov.iov_base = buf;
	iov.iov_len = sizeof(buf);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cbuf;
	m.msg_controllen = sizeof(cbuf);
	if(recvmsg(fd, &m, 0) < 0)
		return;
	last_tos = -1;
	for(c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if(c->cmsg_level == IPPROTO_IP && c->cmsg_type == IP_TOS)
			last_tos = *(uint8_t *)CMSG_DATA(c);
	udp_seen++;
}

#ifdef IP_RECVTOS
/* ip-dscp: upstream UDP queries carry the code point (the server reads
 * the TOS byte of the datagram) */
START_TEST(test_udp_dscp)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "tos", 1);
	int on1 = 1;
	ck_assert_int_eq(setsockopt(srv_fd, IPPROTO_IP, IP_RECVTOS, &on1,
		sizeof(on1)), 0);
	comm_watch_delete(srv_watch);
	srv_watch = comm_watch_create(base, srv_fd, tos_read, NULL);
	last_tos = -2;
	ck_assert_ptr_nonnull(ask(ob, name, len, 0, 1000, &r));
	run_until(&udp_seen, 1);
	ck_assert_int_eq(last_tos, 0);
	comm_base_set_out_opts(base, 46, 0);
	len = mkname(name, "tos", 2);
	ck_assert_ptr_nonnull(ask(ob, name, len, 0, 1000, &r));
	run_until(&udp_seen, 2);
	ck_assert_int_eq(last_tos, 46 << 2);
	rmnet(on);
}
END_TEST
#endif

static int unwanted_calls;

static void
unwanted_cb(void *arg)
{
	(void)arg;
	unwanted_calls++;
}

START_TEST(test_unwanted_threshold)
{
	struct outside_network *on = mknet(16, 4, 0, 5);
	struct outbound *ob = outside_network_outbound(on);
	struct result r[2];
	uint8_t name[64];
	size_t len;
	unwanted_calls = 0;
	outside_network_set_unwanted_cb(on, unwanted_cb, NULL);
	mode = FAKE_WRONG_FIRST;
	len = mkname(name, "thr", 1);
	ask_wait(ob, name, len, 0, 1000, &r[0], ANY_ST);
	ck_assert_int_eq(unwanted_calls, 0);	/* 3 of 5 */
	len = mkname(name, "thr", 2);
	ask_wait(ob, name, len, 0, 1000, &r[1], ANY_ST);
	ck_assert_int_eq(unwanted_calls, 1);	/* 6: crossed once */
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 6);
	rmnet(on);
}
END_TEST

START_TEST(test_ports_and_ids_vary)
{
	struct outside_network *on = mknet(64, 4, 1, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r[20];
	uint8_t name[64];
	int i, j, same_port = 0, same_id = 0, upper = 0, done = 0;
	for(i = 0; i < 20; i++) {
		size_t len = mkname(name, "abcdefghijklmnopqrst", i);
		ck_assert_ptr_nonnull(ask(ob, name, len, 0, 2000, &r[i]));
	}
	for(i = 0; i < 400 && done < 20; i++) {
		comm_base_loop_once(base, 5);
		for(done = 0, j = 0; j < 20; j++)
			done += r[j].calls;
	}
	ck_assert_int_eq(done, 20);
	ck_assert_int_eq(udp_seen, 20);
	for(i = 0; i < 20; i++) {
		ck_assert_int_eq(r[i].st, OUTBOUND_REPLY);
		ck_assert_int_ge(seen_port[i], 1024);
		for(j = 0; j < i; j++) {
			same_port += seen_port[i] == seen_port[j];
			same_id += seen_id[i] == seen_id[j];
		}
		/* 0x20: some letters went out in upper case */
		for(j = 1; j < 21; j++)
			if(seen_name[i][j] >= 'A' && seen_name[i][j] <= 'Z')
				upper++;
	}
	/* 190 pairs out of 64512 ports / 65536 IDs: a few collisions at
	 * most by chance; a fixed port or ID gives 190 */
	ck_assert_int_le(same_port, 5);
	ck_assert_int_le(same_id, 5);
	ck_assert_int_gt(upper, 50);
	ck_assert_int_lt(upper, 350);
	rmnet(on);
}
END_TEST

/* a server that does not echo the 0x20 case: the reply is not thrown
 * away as unwanted (which would time the query out and make the server
 * look dead); the query goes again without 0x20, fresh ID and port, and
 * that reply is the answer */
START_TEST(test_caps_fallback)
{
	struct outside_network *on = mknet(16, 4, 1, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "abcdefghijklmnopqrstuvwxyz", 0);
	mode = FAKE_LOWERCASE;
	ask_wait(ob, name, len, 0, 2000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(udp_seen, 2);
	/* the first try had some upper case letters, the second none */
	ck_assert_int_ne(memcmp(seen_name[0], name, len), 0);
	ck_assert_int_eq(memcmp(seen_name[1], name, len), 0);
	ck_assert_int_ne(seen_id[0], seen_id[1]);
	ck_assert_uint_eq(outside_network_get_stats(on)->caps_fallbacks, 1);
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 0);
	rmnet(on);
}
END_TEST

/* caps-exempt: with 0x20 on, a name at or below an exempt domain goes in
 * the letter case given (and needs no fallback), others get 0x20 */
START_TEST(test_caps_exempt)
{
	struct config_strlist ex2 = { NULL, (char *)"other.test." };
	struct config_strlist ex1 = { &ex2, (char *)"Example." };
	struct outside_network *on;
	struct outbound *ob;
	struct result r;
	uint8_t name[64], other[64];
	size_t len = mkname(name, "abcdefghijklmnopqrstuvwxyz", 0), olen;
	caps_exempt = &ex1;
	on = mknet(16, 4, 1, 0);
	caps_exempt = NULL;
	ob = outside_network_outbound(on);
	mode = FAKE_LOWERCASE;
	ask_wait(ob, name, len, 0, 2000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(udp_seen, 1);
	ck_assert_int_eq(memcmp(seen_name[0], name, len), 0);
	ck_assert_uint_eq(outside_network_get_stats(on)->caps_fallbacks, 0);
	/* another domain: 0x20, and the fallback */
	olen = len;
	memcpy(other, name, len);
	memcpy(other + name[0] + 2, "exampla", 7);
	ask_wait(ob, other, olen, 0, 2000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(udp_seen, 3);
	ck_assert_int_ne(memcmp(seen_name[1], other, olen), 0);
	ck_assert_uint_eq(outside_network_get_stats(on)->caps_fallbacks, 1);
	rmnet(on);
}
END_TEST

/* outgoing-port-permit / outgoing-port-avoid, applied in line order:
 * every port away, 47000-47009 back, 47002-47008 away again: queries go
 * from 47000, 47001 or 47009 only */
START_TEST(test_port_rules)
{
	struct config_strlist r3 = { NULL, (char *)"-47002-47008" };
	struct config_strlist r2 = { &r3, (char *)"+47000-47009" };
	struct config_strlist r1 = { &r2, (char *)"-0-65535" };
	struct config_strlist none = { NULL, (char *)"-1024-65535" };
	struct outside_network *on;
	struct outbound *ob;
	struct outside_network_params op;
	struct result r;
	uint8_t name[64];
	int i;
	port_rules = &r1;
	on = mknet(16, 4, 0, 0);
	port_rules = NULL;
	ob = outside_network_outbound(on);
	for(i = 0; i < 8; i++) {
		size_t len = mkname(name, "port", i);
		ask_wait(ob, name, len, 0, 2000, &r, OUTBOUND_REPLY);
		ck_assert_msg(seen_port[i] == 47000 || seen_port[i] == 47001 ||
			seen_port[i] == 47009, "port %d", seen_port[i]);
	}
	ck_assert_int_eq(udp_seen, 8);
	rmnet(on);
	/* no port left: the network is not made */
	base = comm_base_create(backends[_i]);
	rnd = random_create();
	memset(&op, 0, sizeof(op));
	op.outgoing_range = 4;
	op.outgoing_num_tcp = 1;
	op.do_ip4 = 1;
	op.rnd = rnd;
	op.port_rules = &none;
	ck_assert_ptr_null(outside_network_create(base, &op));
	random_delete(rnd);
	comm_base_delete(base);
}
END_TEST

START_TEST(test_tc_goes_tcp)
{
	struct outside_network *on = mknet(16, 4, 1, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "big", 1);
	mode = FAKE_TC;
	ask_wait(ob, name, len, 0, 2000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(r.mark, MARK_TCP);
	ck_assert_int_eq(r.tc, 0);
	ck_assert_int_eq(udp_seen, 1);
	ck_assert_int_eq(tcp_seen, 1);
	ck_assert_uint_eq(outside_network_get_stats(on)->tc_fallbacks, 1);
	ck_assert_int_eq(outside_network_tcp_open(on), 0);
	rmnet(on);
}
END_TEST

START_TEST(test_tcp_flag_and_limit)
{
	struct outside_network *on = mknet(16, 1, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r[3];
	uint8_t name[64];
	int i, done = 0, maxopen = 0;
	for(i = 0; i < 3; i++) {
		size_t len = mkname(name, "tcp", i);
		ck_assert_ptr_nonnull(ask(ob, name, len, OUTBOUND_FLAG_TCP,
			2000, &r[i]));
	}
	for(i = 0; i < 400 && done < 3; i++) {
		comm_base_loop_once(base, 5);
		if(outside_network_tcp_open(on) > maxopen)
			maxopen = outside_network_tcp_open(on);
		done = r[0].calls + r[1].calls + r[2].calls;
	}
	ck_assert_int_eq(done, 3);
	for(i = 0; i < 3; i++) {
		ck_assert_int_eq(r[i].st, OUTBOUND_REPLY);
		ck_assert_int_eq(r[i].mark, MARK_TCP);
	}
	ck_assert_int_eq(maxopen, 1);
	ck_assert_int_eq(udp_seen, 0);
	ck_assert_int_eq(tcp_seen, 3);
	ck_assert_uint_eq(outside_network_get_stats(on)->tcp_waits, 2);
	rmnet(on);
}
END_TEST

START_TEST(test_outgoing_range)
{
	struct outside_network *on = mknet(2, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r[5];
	uint8_t name[64];
	int i, j, done = 0, maxopen = 0;
	for(i = 0; i < 5; i++) {
		size_t len = mkname(name, "rng", i);
		ck_assert_ptr_nonnull(ask(ob, name, len, 0, 2000, &r[i]));
		ck_assert_int_le(outside_network_udp_open(on), 2);
	}
	for(i = 0; i < 400 && done < 5; i++) {
		comm_base_loop_once(base, 5);
		if(outside_network_udp_open(on) > maxopen)
			maxopen = outside_network_udp_open(on);
		for(done = 0, j = 0; j < 5; j++)
			done += r[j].calls;
	}
	ck_assert_int_eq(done, 5);
	ck_assert_int_le(maxopen, 2);
	ck_assert_uint_eq(outside_network_get_stats(on)->udp_waits, 3);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	rmnet(on);
}
END_TEST

START_TEST(test_timeout)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "slow", 1);
	struct timeval a, z;
	long ms;
	mode = FAKE_SILENT;
	gettimeofday(&a, NULL);
	ask_wait(ob, name, len, 0, 150, &r, OUTBOUND_TIMEOUT);
	gettimeofday(&z, NULL);
	ms = (z.tv_sec - a.tv_sec) * 1000 + (z.tv_usec - a.tv_usec) / 1000;
	ck_assert_int_eq(r.rtt, 150);
	ck_assert_int_ge(ms, 140);
	ck_assert_int_lt(ms, 5000);
	ck_assert_uint_eq(outside_network_get_stats(on)->timeouts, 1);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	rmnet(on);
}
END_TEST

/** ms since a */
static long
ms_since(const struct timeval *a)
{
	struct timeval z;
	gettimeofday(&z, NULL);
	return (z.tv_sec - a->tv_sec) * 1000 + (z.tv_usec - a->tv_usec) / 1000;
}

/* tcp-auth-query-timeout: the TCP retry of a truncated answer waits the
 * whole of it, from the retry on, not what is left of the caller's 100
 * ms; the caller is told the timeout it gave */
START_TEST(test_tcp_auth_timeout_tc)
{
	struct outside_network *on;
	struct outbound *ob;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "tca", 1);
	struct timeval a;
	long ms;
	/* before the base exists: every timer counts from its clock, so
	 * from after this */
	gettimeofday(&a, NULL);
	with_tcp_auth = 600;
	on = mknet(16, 4, 0, 0);
	with_tcp_auth = 0;
	ob = outside_network_outbound(on);
	mode = FAKE_TC;
	tcp_silent = 1;
	ask_wait(ob, name, len, 0, 100, &r, OUTBOUND_TIMEOUT);
	ms = ms_since(&a);
	ck_assert_int_eq(r.rtt, 100);
	ck_assert_int_eq(udp_seen, 1);
	ck_assert_int_eq(tcp_seen, 1);
	ck_assert_int_ge(ms, 599);
	ck_assert_int_eq(outside_network_tcp_open(on), 0);
	rmnet(on);
}
END_TEST

/* tcp-auth-query-timeout: a query sent over TCP to a server never
 * measured (the unknown-server timeout, 376 ms) waits at least the TCP
 * timeout; one to a measured server (150 ms) keeps its own */
START_TEST(test_tcp_auth_timeout_unknown)
{
	struct outside_network *on;
	struct outbound *ob;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "tcu", 1);
	struct timeval a;
	long ms;
	/* before the base exists: every timer counts from its clock, so
	 * from after this */
	gettimeofday(&a, NULL);
	with_tcp_auth = 900;
	on = mknet(16, 4, 0, 0);
	with_tcp_auth = 0;
	ob = outside_network_outbound(on);
	tcp_silent = 1;
	ask_wait(ob, name, len, OUTBOUND_FLAG_TCP, 376, &r, OUTBOUND_TIMEOUT);
	ms = ms_since(&a);
	ck_assert_int_eq(r.rtt, 376);
	ck_assert_int_ge(ms, 899);
	/* a measured server: its own timeout (the callback comes, and
	 * reports it; nothing shorter than it) */
	len = mkname(name, "tcu", 2);
	gettimeofday(&a, NULL);
	ask_wait(ob, name, len, OUTBOUND_FLAG_TCP, 150, &r, OUTBOUND_TIMEOUT);
	ms = ms_since(&a);
	ck_assert_int_eq(r.rtt, 150);
	ck_assert_int_ge(ms, 140);
	ck_assert_int_eq(tcp_seen, 2);
	rmnet(on);
}
END_TEST

/* delay-close: the socket of a query that timed out stays open for the
 * delay (counted open), a late reply to it is read and counted unwanted,
 * and it closes when the delay ends; without it, the socket closes with
 * the timeout and the late reply meets a closed port */
START_TEST(test_delay_close)
{
	struct outside_network *on;
	struct outbound *ob;
	struct result r;
	uint8_t name[64], late[12];
	size_t len = mkname(name, "late", 1);
	int k;
	with_delay_close = 1500;
	on = mknet(16, 4, 0, 0);
	with_delay_close = 0;
	ob = outside_network_outbound(on);
	mode = FAKE_SILENT;
	ask_wait(ob, name, len, 0, 100, &r, OUTBOUND_TIMEOUT);
	ck_assert_int_eq(outside_network_udp_open(on), 1);
	ck_assert_int_eq(outside_network_pending(on), 0);
	/* the late reply (any bytes: the query is gone) */
	memset(late, 0, sizeof(late));
	srv_send(srv_fd, late, sizeof(late), &seen_from);
	for(k = 0; k < 200 && outside_network_get_stats(on)->unwanted < 1;
		k++)
		comm_base_loop_once(base, 5);
	ck_assert_uint_eq(outside_network_get_stats(on)->unwanted, 1);
	/* the delay ends: closed */
	for(k = 0; k < 1000 && outside_network_udp_open(on) > 0; k++)
		comm_base_loop_once(base, 5);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	/* again, and the network deleted while the socket lingers */
	len = mkname(name, "late", 2);
	r.calls = 0;
	ask_wait(ob, name, len, 0, 100, &r, ANY_ST);
	ck_assert_int_eq(outside_network_udp_open(on), 1);
	rmnet(on);

	/* without delay-close the socket closes with the timeout */
	on = mknet(16, 4, 0, 0);
	ob = outside_network_outbound(on);
	mode = FAKE_SILENT;
	len = mkname(name, "late", 3);
	ask_wait(ob, name, len, 0, 100, &r, ANY_ST);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	rmnet(on);
}
END_TEST

START_TEST(test_cancel)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r1, r2;
	struct outbound_query *q1, *q2;
	uint8_t name[64];
	size_t len = mkname(name, "gone", 1);
	q1 = ask(ob, name, len, 0, 500, &r1);
	ck_assert_ptr_nonnull(q1);
	ob->cancel(ob->ctx, q1);
	ck_assert_int_eq(outside_network_pending(on), 0);
	ck_assert_int_eq(outside_network_udp_open(on), 0);
	/* a cancelled joiner: the other caller still gets the reply */
	len = mkname(name, "gone", 2);
	q1 = ask(ob, name, len, 0, 500, &r1);
	q2 = ask(ob, name, len, 0, 500, &r2);
	ob->cancel(ob->ctx, q2);
	run_for(700);
	ck_assert_int_eq(r1.calls, 1);
	ck_assert_int_eq(r1.st, OUTBOUND_REPLY);
	ck_assert_int_eq(r2.calls, 0);
	ck_assert_uint_eq(outside_network_get_stats(on)->cancelled, 1);
	rmnet(on);
}
END_TEST

START_TEST(test_duplicates_sent_once)
{
	struct outside_network *on = mknet(16, 4, 1, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct outbound_query *q;
	struct result r[5];
	uint8_t name[64], upper[64];
	size_t len = mkname(name, "dup", 1), i;
	memcpy(upper, name, len);
	for(i = 0; i < len; i++)
		if(upper[i] >= 'a' && upper[i] <= 'z')
			upper[i] -= 32;
	ck_assert_ptr_nonnull(ask(ob, name, len, 0, 1000, &r[0]));
	ck_assert_ptr_nonnull(ask(ob, name, len, 0, 1000, &r[1]));
	ck_assert_ptr_nonnull(ask(ob, upper, len, 0, 1000, &r[2]));
	/* different flags: a different query */
	ck_assert_ptr_nonnull(ask(ob, name, len, OUTBOUND_FLAG_CD, 1000,
		&r[3]));
	ck_assert_int_eq(outside_network_pending(on), 2);
	/* other EDNS options: a different query, sent on its own (then
	 * cancelled) */
	memset(&r[4], 0, sizeof(r[4]));
	q = ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0, ecs_opt,
		sizeof(ecs_opt), 1000, res_cb, &r[4]);
	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(outside_network_pending(on), 3);
	ob->cancel(ob->ctx, q);
	run_until(&r[3].calls, 1);
	run_until(&r[0].calls, 1);
	for(i = 0; i < 4; i++) {
		ck_assert_int_eq(r[i].calls, 1);
		ck_assert_int_eq(r[i].st, OUTBOUND_REPLY);
	}
	ck_assert_int_eq(r[4].calls, 0);
	ck_assert_int_eq(udp_seen, 3);
	ck_assert_uint_eq(outside_network_get_stats(on)->dup_joins, 2);
	ck_assert_uint_eq(outside_network_get_stats(on)->queries, 3);
	rmnet(on);
}
END_TEST

/* a callback that cancels the other caller of the same reply */
static struct outbound_query *other_q;
static struct outbound *cur_ob;

static void
cancel_other_cb(void *arg, enum outbound_status st, const uint8_t *pkt,
	size_t len, int rtt)
{
	res_cb(arg, st, pkt, len, rtt);
	if(other_q) {
		cur_ob->cancel(cur_ob->ctx, other_q);
		other_q = NULL;
	}
}

START_TEST(test_cancel_from_callback)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct result r1, r2;
	uint8_t name[64];
	size_t len = mkname(name, "cb", 1);
	memset(&r1, 0, sizeof(r1));
	memset(&r2, 0, sizeof(r2));
	cur_ob = ob;
	/* joiners are called newest first: r2's callback runs first */
	other_q = ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0, NULL, 0,
		1000, res_cb, &r1);
	ck_assert_ptr_nonnull(ob->send(ob->ctx, &srv_addr, name, len, 1, 1,
		0, NULL, 0, 1000, cancel_other_cb, &r2));
	run_until(&r2.calls, 1);
	run_for(50);
	ck_assert_int_eq(r2.calls, 1);
	ck_assert_int_eq(r1.calls, 0);
	rmnet(on);
}
END_TEST

static int tfired;

static void
tfn(void *arg)
{
	(void)arg;
	tfired++;
}

START_TEST(test_timers_and_refusals)
{
	struct outside_network *on = mknet(16, 4, 0, 0);
	struct outbound *ob = outside_network_outbound(on);
	struct netaddr v6;
	struct result r;
	uint8_t name[64];
	size_t len = mkname(name, "x", 1);
	void *t1, *t2;
	tfired = 0;
	t1 = ob->timer_set(ob->ctx, 20, tfn, NULL);
	t2 = ob->timer_set(ob->ctx, 20, tfn, NULL);
	ck_assert_ptr_nonnull(t1);
	ck_assert_ptr_nonnull(t2);
	ob->timer_cancel(ob->ctx, t2);
	run_for(100);
	ck_assert_int_eq(tfired, 1);
	/* do-ip6 off: refused, and no callback ever */
	ck_assert_int_eq(netaddr_parse("::1@53", 53, &v6, NULL), 0);
	memset(&r, 0, sizeof(r));
	ck_assert_ptr_null(ob->send(ob->ctx, &v6, name, len, 1, 1, 0, NULL,
		0, 100, res_cb, &r));
	/* a malformed name is refused */
	name[0] = 60;
	ck_assert_ptr_null(ob->send(ob->ctx, &srv_addr, name, len, 1, 1, 0,
		NULL, 0, 100, res_cb, &r));
	/* pending queries and timers are freed by delete, no callbacks */
	len = mkname(name, "x", 2);
	mode = FAKE_SILENT;
	ck_assert_ptr_nonnull(ask(ob, name, len, 0, 1000, &r));
	ck_assert_ptr_nonnull(ob->timer_set(ob->ctx, 1000, tfn, NULL));
	comm_base_loop_once(base, 5);
	ck_assert_int_eq(r.calls, 0);
	rmnet(on);
}
END_TEST

START_TEST(test_outgoing_interface)
{
	struct outside_network_params op;
	struct outside_network *on;
	struct config_strlist bad = { NULL, "192.0.2.300" };
	struct config_strlist lo2 = { NULL, "127.0.0.2" };
	struct outbound *ob;
	struct result r;
	struct netaddr want;
	uint8_t name[64];
	size_t len = mkname(name, "src", 1);
	char s1[NETADDR_STRLEN];
	base = comm_base_create(backends[_i]);
	rnd = random_create();
	fake_start();
	memset(&op, 0, sizeof(op));
	op.outgoing_range = 4;
	op.outgoing_num_tcp = 2;
	op.edns_buffer_size = 1232;
	op.do_ip4 = 1;
	op.rnd = rnd;
	op.outgoing_interfaces = &bad;
	ck_assert_ptr_null(outside_network_create(base, &op));
	op.outgoing_interfaces = &lo2;
	on = outside_network_create(base, &op);
	ck_assert_ptr_nonnull(on);
	ob = outside_network_outbound(on);
	ask_wait(ob, name, len, 0, 1000, &r, OUTBOUND_REPLY);
	ck_assert_int_eq(netaddr_parse("127.0.0.2", 0, &want, NULL), 0);
	ck_assert_msg(netaddr_cmp_addr(&seen_from, &want) == 0,
		"query came from %s", netaddr_str(&seen_from, -1, s1,
		sizeof(s1)));
	rmnet(on);
}
END_TEST

/* the backends for the allocation count (io_uring too, where built) */
#define alloc_backends tu_backends_built
#define NUM_ALLOC_BACKENDS TU_NUM_BACKENDS_BUILT

/* Steady state: a query over UDP (a socket of its own, its timer, its
 * caller record) allocates nothing once the network has made one of each:
 * the pend and caller records are reused with their timer, and the watch
 * moves to the next socket, on every backend. Over TCP the same: the
 * closed connection is parked (struct, timer, 64 kB reply buffer, write
 * item, watch) and reopened for the next query. The count is
 * deterministic. _i: the backend (in alloc_backends) and, from
 * NUM_ALLOC_BACKENDS on, the same backends over TCP. */
/* A TCP echo server on its own thread with plain blocking sockets: no
 * heap use of its own (the comm_point server of fake_start allocates per
 * connection in the same loop and would be counted with the client) */
static int echo_lfd = -1;
static struct netaddr echo_addr;
static pid_t echo_pid = -1;

/** read n bytes. @return 0, or -1 at EOF or on an error */
static int
echo_read(int fd, uint8_t *b, size_t n)
{
	while(n > 0) {
		ssize_t r = read(fd, b, n);
		if(r <= 0) {
			if(r == -1 && errno == EINTR)
				continue;
			return -1;
		}
		b += r;
		n -= (size_t)r;
	}
	return 0;
}

/** the echo server: each query is answered with QR set and the TCP mark,
 * until the client closes; until it is killed */
static void
echo_main(void)
{
	static uint8_t b[2 + 65535];
	for(;;) {
		int fd = accept(echo_lfd, NULL, NULL);
		if(fd == -1) {
			if(errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		for(;;) {
			size_t len;
			if(echo_read(fd, b, 2) != 0)
				break;
			len = (size_t)get16(b);
			if(len < 12 || echo_read(fd, b + 2, len) != 0)
				break;
			b[2 + 2] |= 0x80;
			put16(b + 2 + 6, MARK_TCP);
			if(write(fd, b, 2 + len) != (ssize_t)(2 + len))
				break;
		}
		close(fd);
	}
}

/** start the echo server on 127.0.0.1, in a process of its own: a
 * thread would share the test's descriptor table (its accepted sockets
 * move the numbers of the client's next sockets, and an event library
 * grows its descriptor map, one allocation, when a number is new) and
 * its heap calls would be counted with the client's */
static void
echo_start(void)
{
	struct netaddr a;
	ck_assert_int_eq(netaddr_parse("127.0.0.1", 0, &a, NULL), 0);
	echo_lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(echo_lfd, 0);
	ck_assert_int_eq(bind(echo_lfd, (struct sockaddr *)&a.addr, a.len),
		0);
	ck_assert_int_eq(listen(echo_lfd, 16), 0);
	echo_addr.len = sizeof(echo_addr.addr);
	ck_assert_int_eq(getsockname(echo_lfd, (struct sockaddr *)
		&echo_addr.addr, &echo_addr.len), 0);
	echo_pid = fork();
	ck_assert_int_ge(echo_pid, 0);
	if(echo_pid == 0) {
		tu_counting = 0;
		echo_main();
		_exit(0);
	}
	close(echo_lfd);
	echo_lfd = -1;
}

/** stop it */
static void
echo_stop(void)
{
	int st;
	(void)kill(echo_pid, SIGKILL);
	ck_assert_int_eq(waitpid(echo_pid, &st, 0), echo_pid);
	echo_pid = -1;
}

START_TEST(test_steady_state_allocs)
{
	int tcp = _i >= NUM_ALLOC_BACKENDS;
	struct outside_network *on = mknet_(alloc_backends[_i %
		NUM_ALLOC_BACKENDS], 16, 4, 1, 0);
	struct outbound *ob = outside_network_outbound(on);
	const char *method = comm_base_backend_name(base);
	struct result r;
	uint8_t name[64];
	int i, bad = 0;
	unsigned long allocs, tcp0;
#ifdef TU_ALLOC_SKIP
	rmnet(on);
	return;
#endif
	if(tcp)
		echo_start();
	tcp0 = outside_network_get_stats(on)->tcp_sent;
	for(i = 0; i < 250; i++) {
		size_t len = mkname(name, "steady", i);
		if(i == 50) {
			tu_num_allocs = 0;
			tu_counting = 1;
		}
		memset(&r, 0, sizeof(r));
		if(!ob->send(ob->ctx, tcp ? &echo_addr : &srv_addr, name, len,
			1, 1, tcp ? OUTBOUND_FLAG_TCP : 0, NULL, 0, 2000, res_cb,
			&r)) {
			bad++;
			continue;
		}
		run_until(&r.calls, 1);
		if(r.calls != 1 || r.st != OUTBOUND_REPLY)
			bad++;
	}
	tu_counting = 0;
	allocs = tu_num_allocs;
	if(tcp)
		echo_stop();
	ck_assert_int_eq(bad, 0);
	/* the TCP run went over TCP, the other did not */
	ck_assert_uint_eq(outside_network_get_stats(on)->tcp_sent - tcp0,
		tcp ? 250 : 0);
	fprintf(stderr, "outside network [%s, %s, %s]: %lu heap allocations "
		"for 200 queries\n", alloc_backends[_i % NUM_ALLOC_BACKENDS],
		method, tcp ? "TCP" : "UDP", allocs);
	ck_assert_uint_eq(allocs, 0);
	rmnet(on);
}
END_TEST

static Suite *
outnet_suite(void)
{
	Suite *s = suite_create("outside_network");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_answer, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_query_format, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_query_format_cookie, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_wrong_replies_ignored, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_udp_connect, 0, NUM_BACKENDS);
#ifdef IP_RECVTOS
	tcase_add_loop_test(tc, test_udp_dscp, 0, NUM_BACKENDS);
#endif
	tcase_add_loop_test(tc, test_unwanted_threshold, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_ports_and_ids_vary, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_caps_fallback, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_caps_exempt, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_port_rules, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tc_goes_tcp, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_flag_and_limit, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_outgoing_range, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timeout, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_auth_timeout_tc, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_tcp_auth_timeout_unknown, 0,
		NUM_BACKENDS);
	tcase_add_loop_test(tc, test_delay_close, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_cancel, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_duplicates_sent_once, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_cancel_from_callback, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_timers_and_refusals, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_outgoing_interface, 0, NUM_BACKENDS);
	tcase_add_loop_test(tc, test_steady_state_allocs, 0,
		2 * NUM_ALLOC_BACKENDS);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	SRunner *sr = srunner_create(outnet_suite());
	int failed;
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
