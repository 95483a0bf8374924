/*
 * bench/floor.c - the cost floor: the cheapest UDP DNS "server" there is.
 *
 * Each query is turned into a one-record answer in place: the header and
 * the question are kept, QR (and RA) are set, the counts become 1/1/0/0,
 * and one A record follows whose owner is a compression pointer to the
 * question name (0xc00c). Nothing is parsed beyond the question name (its
 * length is all that is needed), nothing is looked up, nothing is
 * allocated per packet: receive 32 datagrams with one recvmmsg, rewrite
 * them in their buffers, send them back with one sendmmsg. EDNS options,
 * additional records and anything after the question are dropped.
 *
 * What a resolver spends per cached answer beyond this is its own cost;
 * bench/run reports every configuration as a ratio to this floor, measured
 * in the same run (server CPU microseconds per answer).
 *
 * usage: floor [-a addr] [-p port] [-n processes] [-l seconds]
 *   -n  fork that many processes, each with its own SO_REUSEPORT socket
 *   -l  exit after that many seconds (the benchmark is always bounded)
 * Stops on SIGTERM/SIGINT (the parent stops its children).
 */
#include "config.h"
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** datagrams per recvmmsg / sendmmsg */
#define FLOOR_BATCH 32
/** largest query kept; a longer one is truncated by the kernel and dropped */
#define FLOOR_BUFSZ 512
/** DNS header length */
#define HDR 12
/** the answer record after the question: pointer, A, IN, TTL 3600, 4 bytes */
static const unsigned char floor_rr[16] = {
	0xc0, 0x0c, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x0e, 0x10,
	0x00, 0x04, 192, 0, 2, 1
};

/** set by the signal handler: stop the loop */
static volatile sig_atomic_t floor_stop;

/** signal handler: ask the loop to stop */
static void
floor_sig(int sig)
{
	(void)sig;
	floor_stop = 1;
}

/**
 * Rewrite one query into its answer, in place.
 * @param p: the datagram; room for FLOOR_BUFSZ bytes.
 * @param len: its length.
 * @return the answer length, or 0 to drop the datagram.
 */
static size_t
floor_answer(unsigned char *p, size_t len)
{
	size_t i = HDR;
	if(len < HDR + 5 || (p[2] & 0x80))
		return 0; /* too short, or a response */
	/* walk the question name: labels only, no pointers in a query */
	while(i < len && p[i] != 0) {
		if(p[i] > 63)
			return 0;
		i += (size_t)p[i] + 1;
	}
	i += 1 + 4; /* the root label, qtype, qclass */
	if(i > len || i + sizeof(floor_rr) > FLOOR_BUFSZ)
		return 0;
	p[2] = (unsigned char)((p[2] & 0x79) | 0x84); /* QR AA, keep opcode RD */
	p[3] = 0x80;                                  /* RA, rcode NOERROR */
	p[4] = 0; p[5] = 1;                           /* QDCOUNT 1 */
	p[6] = 0; p[7] = 1;                           /* ANCOUNT 1 */
	memset(p + 8, 0, 4);                          /* NSCOUNT ARCOUNT 0 */
	memcpy(p + i, floor_rr, sizeof(floor_rr));
	return i + sizeof(floor_rr);
}

#if !defined(HAVE_RECVMMSG) || !defined(HAVE_SENDMMSG)
/** without recvmmsg/sendmmsg: one datagram per system call (not a floor
 * to compare against; bench/run says so when it sees it) */
static int
floor_serve(int fd)
{
	unsigned char buf[FLOOR_BUFSZ];
	struct sockaddr_storage from;
	socklen_t fl;
	ssize_t n;
	size_t alen;
	while(!floor_stop) {
		fl = sizeof(from);
		n = recvfrom(fd, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl);
		if(n < 0) {
			if(errno == EINTR || errno == EAGAIN)
				continue;
			perror("floor: recvfrom");
			return -1;
		}
		alen = floor_answer(buf, (size_t)n);
		if(alen != 0)
			(void)sendto(fd, buf, alen, 0, (struct sockaddr *)&from, fl);
	}
	return 0;
}
#else
/**
 * Serve on one socket until told to stop.
 * @param fd: the bound UDP socket.
 * @return 0 on a clean stop, -1 on a socket error.
 */
static int
floor_serve(int fd)
{
	static unsigned char bufs[FLOOR_BATCH][FLOOR_BUFSZ];
	static struct sockaddr_storage from[FLOOR_BATCH];
	static struct iovec iov[FLOOR_BATCH];
	static struct mmsghdr msgs[FLOOR_BATCH], out[FLOOR_BATCH];
	int i, n, k, sent;
	size_t alen;

	while(!floor_stop) {
		for(i = 0; i < FLOOR_BATCH; i++) {
			iov[i].iov_base = bufs[i];
			iov[i].iov_len = FLOOR_BUFSZ;
			memset(&msgs[i].msg_hdr, 0, sizeof(msgs[i].msg_hdr));
			msgs[i].msg_hdr.msg_name = &from[i];
			msgs[i].msg_hdr.msg_namelen = sizeof(from[i]);
			msgs[i].msg_hdr.msg_iov = &iov[i];
			msgs[i].msg_hdr.msg_iovlen = 1;
		}
		/* block for the first datagram, take what else is queued */
		n = recvmmsg(fd, msgs, FLOOR_BATCH, MSG_WAITFORONE, NULL);
		if(n < 0) {
			if(errno == EINTR || errno == EAGAIN)
				continue;
			perror("floor: recvmmsg");
			return -1;
		}
		k = 0;
		for(i = 0; i < n; i++) {
			alen = floor_answer(bufs[i], msgs[i].msg_len);
			if(alen == 0 || (msgs[i].msg_hdr.msg_flags & MSG_TRUNC))
				continue;
			iov[i].iov_len = alen;
			out[k].msg_hdr = msgs[i].msg_hdr;
			out[k].msg_hdr.msg_flags = 0;
			out[k].msg_len = 0;
			k++;
		}
		sent = 0;
		while(sent < k) {
			int r = sendmmsg(fd, out + sent, (unsigned)(k - sent), 0);
			if(r < 0) {
				if(errno == EINTR)
					continue;
				break; /* drop the rest, like a full socket would */
			}
			sent += r;
		}
	}
	return 0;
}
#endif /* HAVE_RECVMMSG && HAVE_SENDMMSG */

/**
 * Open the listening socket.
 * @param addr: IPv4 or IPv6 address text.
 * @param port: UDP port.
 * @return the socket, or -1 (with a message).
 */
static int
floor_socket(const char *addr, int port)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, on = 1, rcv = 4 * 1024 * 1024; /* as bench/run gives the resolvers (so-rcvbuf, so-sndbuf) */
	memset(&ss, 0, sizeof(ss));
	if(inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((unsigned short)port);
		sl = sizeof(*s4);
	} else if(inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((unsigned short)port);
		sl = sizeof(*s6);
	} else {
		fprintf(stderr, "floor: bad address %s\n", addr);
		return -1;
	}
	fd = socket(ss.ss_family, SOCK_DGRAM, 0);
	if(fd == -1) {
		perror("floor: socket");
		return -1;
	}
	if(setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &on, sizeof(on)) == -1)
		perror("floor: SO_REUSEPORT");
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof(rcv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &rcv, sizeof(rcv));
	if(bind(fd, (struct sockaddr *)&ss, sl) == -1) {
		fprintf(stderr, "floor: bind %s port %d: %s\n", addr, port,
			strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/** print usage */
static void
usage(void)
{
	fprintf(stderr, "usage: floor [-a addr] [-p port] [-n processes] [-l seconds]\n");
}

int
main(int argc, char *argv[])
{
	const char *addr = "127.0.0.1";
	int port = 53, nproc = 1, limit = 0, c, i, status;
	pid_t kids[256];
	struct sigaction sa;

	while((c = getopt(argc, argv, "a:p:n:l:h")) != -1) {
		switch(c) {
		case 'a': addr = optarg; break;
		case 'p': port = atoi(optarg); break;
		case 'n': nproc = atoi(optarg); break;
		case 'l': limit = atoi(optarg); break;
		default: usage(); return c == 'h' ? 0 : 1;
		}
	}
	if(nproc < 1 || nproc > 256 || port < 1 || port > 65535) {
		usage();
		return 1;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = floor_sig;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: recvmmsg must return EINTR so the loop sees the stop */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	if(limit > 0)
		alarm((unsigned)limit);
	if(nproc == 1) {
		int fd = floor_socket(addr, port);
		if(fd == -1)
			return 1;
		return floor_serve(fd) == 0 ? 0 : 1;
	}
	for(i = 0; i < nproc; i++) {
		int fd = floor_socket(addr, port);
		if(fd == -1) {
			nproc = i;
			floor_stop = 1;
			break;
		}
		kids[i] = fork();
		if(kids[i] == 0) {
			if(limit > 0)
				alarm((unsigned)limit);
			_exit(floor_serve(fd) == 0 ? 0 : 1);
		}
		close(fd);
		if(kids[i] == -1) {
			perror("floor: fork");
			nproc = i;
			floor_stop = 1;
			break;
		}
	}
	while(!floor_stop && wait(&status) == -1 && errno == EINTR)
		;
	for(i = 0; i < nproc; i++)
		kill(kids[i], SIGTERM);
	while(wait(&status) > 0 || errno == EINTR)
		;
	return 0;
}
