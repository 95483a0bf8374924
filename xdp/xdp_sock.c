/*
 * xdp/xdp_sock.c - AF_XDP sockets on one interface. See xdp_sock.h.
 *
 * Frames. Each queue has a UMEM of 2 * ring frames of XDP_FRAME_SIZE
 * bytes (aligned mode, no headroom). A frame is in one place at a time:
 * the fill ring (the kernel may write a received frame into it), the RX
 * ring (received, ours to read), the TX ring or the completion ring (an
 * answer on its way out), or the queue's free stack. A received frame
 * that is answered is rewritten in place and goes to the TX ring; any
 * other goes to the free stack. Each wake-up first takes the completed
 * frames back onto the free stack and refills the fill ring from it.
 */
#include "config.h"
#include "xdp/xdp_sock.h"
#include "xdp/xdp_frame.h"
#include "util/netevent/netevent.h"
#include "util/log.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <net/if.h>
#include <dirent.h>
#ifdef HAVE_LIBXDP
#include <linux/if_link.h>
#include <linux/if_xdp.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <xdp/xsk.h>
#include "xdp/xdp_kern_obj.h"
#endif

/** bytes per UMEM frame */
#define XDP_FRAME_SIZE 4096
/** the most receive queues served (the program's XSKMAP size) */
#define XDP_MAX_QUEUES 256
/** the most listening points given to the program */
#define XDP_MAX_POINTS 256
/** most batches handled per wake-up (so that TCP and timers are not
 * starved, as the UDP comm_points) */
#define XDP_BATCHES_PER_WAKE 4

#ifdef HAVE_LIBXDP

/** the key of the program's petrel_dests map (as struct dest_key in
 * xdp_kern.bpf.c) */
struct xdp_dest_key {
	/** port, network order */
	uint16_t port;
	/** 4 or 6 */
	uint16_t family;
	/** the address; zero for a wildcard point */
	uint8_t addr[16];
};

/** one receive queue and its socket; lives in shared memory */
struct xdp_queue {
	/** the queue's number */
	uint32_t qid;
	/** 1 when the socket is bound in zero-copy mode */
	int zerocopy;
	/** the socket and its UMEM (libxdp's) */
	struct xsk_socket *xsk;
	struct xsk_umem *umem;
	/** the socket's descriptor */
	int fd;
	/** the frames (shared mapping) */
	uint8_t *area;
	/** its size */
	size_t area_len;
	/** the rings */
	struct xsk_ring_prod fill, tx;
	struct xsk_ring_cons comp, rx;
	/** the free stack of frame addresses (shared mapping), and how many
	 * are on it */
	uint64_t *free;
	uint32_t nfree;
	/** counters (reset by xdp_worker_stats) */
	struct xdp_stats stats;
};

struct xdp_set {
	/** the process that opened it: only it detaches the program and
	 * closes the sockets (fork children inherit the set) */
	pid_t owner;
	/** settings */
	char ifname[IF_NAMESIZE];
	int ifindex;
	int num_workers, batch, ring;
	/** the MTU of the interface: the largest IP packet sent */
	int mtu;
	/** the attach mode (XDP_FLAGS_DRV_MODE or XDP_FLAGS_SKB_MODE) */
	uint32_t mode;
	/** the BPF link that holds the program on the interface, or -1 */
	int link_fd;
	/** without a link: the mode of the netlink attach to undo, or 0 */
	uint32_t xdp_flags;
	/** the program */
	struct bpf_object *obj;
	/** the listening points, and their keys (made once at open; a
	 * key of family 0 is a point left to the kernel) */
	struct netaddr points[XDP_MAX_POINTS];
	struct xdp_dest_key keys[XDP_MAX_POINTS];
	int num_points;
	/** the queues (shared mapping) */
	struct xdp_queue *q;
	int nq;
	/** what xdp_set_describe says */
	char desc[160];
};

struct xdp_worker {
	/** the set */
	struct xdp_set *s;
	/** the answer callback */
	xdp_answer_cb_type cb;
	void *arg;
	/** the worker's queues (indexes into s->q) and their watches */
	int *qidx;
	struct comm_watch **watch;
	int n;
};

/** libbpf's messages go to the log at the detail level (a failed load
 * is reported once by the caller) */
static int
xdp_libbpf_print(enum libbpf_print_level level, const char *fmt,
	va_list ap)
{
	char buf[512];
	if(level == LIBBPF_DEBUG)
		return 0;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = 0;
	verbose(VERB_DETAIL, "libbpf: %s", buf);
	return 0;
}

/** @return the number of receive queues of the interface (1 when the
 *	kernel does not say) */
static int
count_rx_queues(const char *ifname)
{
	char path[128];
	DIR *d;
	struct dirent *e;
	int n = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/queues", ifname);
	if(!(d = opendir(path)))
		return 1;
	while((e = readdir(d)) != NULL)
		if(strncmp(e->d_name, "rx-", 3) == 0)
			n++;
	closedir(d);
	return n ? n : 1;
}

/** @return the interface's MTU, or 1500 */
static int
read_mtu(const char *ifname)
{
	char path[128];
	FILE *f;
	int mtu = 0;
	snprintf(path, sizeof(path), "/sys/class/net/%s/mtu", ifname);
	if((f = fopen(path, "r")) != NULL) {
		if(fscanf(f, "%d", &mtu) != 1)
			mtu = 0;
		fclose(f);
	}
	return mtu >= 576 ? mtu : 1500;
}

/** the key of a listening point */
static void
point_key(const struct netaddr *a, struct xdp_dest_key *k)
{
	memset(k, 0, sizeof(*k));
	if(a->addr.ss_family == AF_INET) {
		const struct sockaddr_in *sa = (const struct sockaddr_in *)
			&a->addr;
		k->family = 4;
		k->port = sa->sin_port;
		memcpy(k->addr, &sa->sin_addr, 4);
	} else {
		const struct sockaddr_in6 *sa = (const struct sockaddr_in6 *)
			&a->addr;
		k->family = 6;
		k->port = sa->sin6_port;
		memcpy(k->addr, &sa->sin6_addr, 16);
	}
}

/** @return 1 when the point is to be answered (an IPv4 or IPv6 address;
 *	the daemon leaves the others empty) */
static int
point_used(const struct netaddr *a)
{
	return a->len && (a->addr.ss_family == AF_INET ||
		a->addr.ss_family == AF_INET6);
}

/** @return 1 when the key's address is all zero (a wildcard point) */
static int
key_wildcard(const struct xdp_dest_key *k)
{
	static const uint8_t zero[16];
	return memcmp(k->addr, zero, sizeof(zero)) == 0;
}

/** @return the listening point a datagram was sent to, or -1 */
static int
find_point(const struct xdp_set *s, const struct xdp_frame_info *fi,
	int *wildcard)
{
	struct xdp_dest_key want;
	int i, wild = -1;
	point_key(&fi->dst, &want);
	for(i = 0; i < s->num_points; i++) {
		const struct xdp_dest_key *k = &s->keys[i];
		if(k->family != want.family || k->port != want.port)
			continue;
		if(memcmp(k->addr, want.addr, sizeof(k->addr)) == 0) {
			*wildcard = 0;
			return i;
		}
		if(wild == -1 && key_wildcard(k))
			wild = i;
	}
	*wildcard = 1;
	return wild;
}

/** give the kernel what is on the free stack */
static void
refill(struct xdp_queue *q)
{
	uint32_t idx, n, i;
	if(q->nfree == 0)
		return;
	n = xsk_prod_nb_free(&q->fill, q->nfree);
	if(n > q->nfree)
		n = q->nfree;
	if(n == 0 || xsk_ring_prod__reserve(&q->fill, n, &idx) != n)
		return;
	for(i = 0; i < n; i++)
		*xsk_ring_prod__fill_addr(&q->fill, idx + i) =
			q->free[--q->nfree];
	xsk_ring_prod__submit(&q->fill, n);
}

/** take the sent frames back */
static void
reclaim(struct xdp_queue *q)
{
	uint32_t idx, n, i;
	n = xsk_ring_cons__peek(&q->comp, 1024, &idx);
	if(n == 0)
		return;
	for(i = 0; i < n; i++)
		q->free[q->nfree++] = xsk_umem__extract_addr(
			*xsk_ring_cons__comp_addr(&q->comp, idx + i));
	xsk_ring_cons__release(&q->comp, n);
}

/** handle up to one batch of received frames. @return how many */
static uint32_t
xdp_queue_batch(struct xdp_worker *xw, struct xdp_queue *q)
{
	struct xdp_set *s = xw->s;
	uint32_t idx, n, i, ntx = 0, tidx;
	reclaim(q);
	refill(q);
	if(xsk_ring_prod__needs_wakeup(&q->fill))
		(void)recvfrom(q->fd, NULL, 0, MSG_DONTWAIT, NULL, NULL);
	n = xsk_ring_cons__peek(&q->rx, (uint32_t)s->batch, &idx);
	for(i = 0; i < n; i++) {
		const struct xdp_desc *d = xsk_ring_cons__rx_desc(&q->rx,
			idx + i);
		uint64_t base = xsk_umem__extract_addr(d->addr);
		uint8_t *f = xsk_umem__get_data(q->area, d->addr);
		struct xdp_frame_info fi;
		struct xdp_query xq;
		size_t alen, room, mtu_room;
		if(xdp_frame_parse(f, d->len, &fi) != XDP_FRAME_OK ||
			(xq.point = find_point(s, &fi, &xq.wildcard)) < 0) {
			q->stats.invalid++;
			q->free[q->nfree++] = base;
			continue;
		}
		room = XDP_FRAME_SIZE - (size_t)(d->addr - base);
		room = room > fi.dns_off ? room - fi.dns_off : 0;
		mtu_room = (size_t)s->mtu - (fi.dns_off - XDP_ETH_LEN);
		xq.fi = &fi;
		xq.dns = f + fi.dns_off;
		xq.len = fi.dns_len;
		xq.out = f + fi.dns_off;
		xq.room = room < mtu_room ? room : mtu_room;
		alen = (*xw->cb)(xw->arg, &xq);
		if(alen == 0) {
			q->stats.passed++;
			q->free[q->nfree++] = base;
			continue;
		}
		if(xsk_ring_prod__reserve(&q->tx, 1, &tidx) != 1) {
			q->stats.tx_full++;
			q->free[q->nfree++] = base;
			continue;
		}
		xsk_ring_prod__tx_desc(&q->tx, tidx)->addr = d->addr;
		xsk_ring_prod__tx_desc(&q->tx, tidx)->len =
			(uint32_t)xdp_frame_reply(f, &fi, alen);
		ntx++;
	}
	if(n)
		xsk_ring_cons__release(&q->rx, n);
	if(ntx) {
		xsk_ring_prod__submit(&q->tx, ntx);
		q->stats.answers += ntx;
		if(xsk_ring_prod__needs_wakeup(&q->tx))
			(void)sendto(q->fd, NULL, 0, MSG_DONTWAIT, NULL, 0);
	}
	return n;
}

/** a queue's socket is readable */
static void
xdp_readable(int fd, void *arg)
{
	struct xdp_worker *xw = arg;
	int i, b;
	for(i = 0; i < xw->n; i++) {
		struct xdp_queue *q = &xw->s->q[xw->qidx[i]];
		if(q->fd != fd)
			continue;
		for(b = 0; b < XDP_BATCHES_PER_WAKE; b++)
			if(xdp_queue_batch(xw, q) < (uint32_t)xw->s->batch)
				break;
		reclaim(q);
		refill(q);
	}
}

/** bind the socket of queue q. @return 0 or -1 (logged by the caller) */
static int
queue_open(struct xdp_set *s, struct xdp_queue *q, uint32_t qid, int *err)
{
	struct xsk_umem_config uc;
	struct xsk_socket_config sc;
	uint32_t nframes = (uint32_t)s->ring * 2, i;
	int rc;
	q->qid = qid;
	q->fd = -1;
	q->area_len = (size_t)nframes * XDP_FRAME_SIZE;
	q->area = mmap(NULL, q->area_len, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if(q->area == MAP_FAILED) {
		q->area = NULL;
		*err = errno;
		return -1;
	}
	q->free = mmap(NULL, nframes * sizeof(uint64_t), PROT_READ |
		PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if(q->free == MAP_FAILED) {
		q->free = NULL;
		*err = errno;
		return -1;
	}
	memset(&uc, 0, sizeof(uc));
	uc.fill_size = (uint32_t)s->ring;
	uc.comp_size = (uint32_t)s->ring;
	uc.frame_size = XDP_FRAME_SIZE;
	uc.frame_headroom = 0;
	rc = xsk_umem__create(&q->umem, q->area, q->area_len, &q->fill,
		&q->comp, &uc);
	if(rc) {
		q->umem = NULL;
		*err = -rc;
		return -1;
	}
	memset(&sc, 0, sizeof(sc));
	sc.rx_size = (uint32_t)s->ring;
	sc.tx_size = (uint32_t)s->ring;
	sc.libxdp_flags = XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD;
	sc.xdp_flags = s->mode;
	/* zero-copy first; copy mode where the driver has none */
	sc.bind_flags = XDP_ZEROCOPY | XDP_USE_NEED_WAKEUP;
	rc = xsk_socket__create(&q->xsk, s->ifname, qid, q->umem, &q->rx,
		&q->tx, &sc);
	q->zerocopy = rc == 0;
	if(rc) {
		sc.bind_flags = XDP_COPY | XDP_USE_NEED_WAKEUP;
		rc = xsk_socket__create(&q->xsk, s->ifname, qid, q->umem,
			&q->rx, &q->tx, &sc);
	}
	if(rc) {
		q->xsk = NULL;
		*err = -rc;
		return -1;
	}
	q->fd = xsk_socket__fd(q->xsk);
	for(i = 0; i < nframes; i++)
		q->free[i] = (uint64_t)i * XDP_FRAME_SIZE;
	q->nfree = nframes;
	refill(q);
	return 0;
}

/** close the socket of a queue */
static void
queue_close(struct xdp_queue *q)
{
	if(q->xsk)
		xsk_socket__delete(q->xsk);
	if(q->umem)
		(void)xsk_umem__delete(q->umem);
	if(q->area)
		munmap(q->area, q->area_len);
	if(q->free)
		munmap(q->free, q->area_len / XDP_FRAME_SIZE *
			sizeof(uint64_t));
	q->xsk = NULL;
	q->umem = NULL;
	q->area = NULL;
	q->free = NULL;
}

/**
 * Attach the program to the interface: native mode first, generic where
 * the driver has none. Through a BPF link where the kernel has them
 * (5.9): the link goes away with the last process that holds it, so a
 * daemon that dies (or cannot detach after dropping privileges) leaves
 * no program behind; else the older netlink attach, detached by
 * xdp_set_close. @return 0 or -1 (*err set).
 */
static int
xdp_attach(struct xdp_set *s, int prog_fd, int *err)
{
	static const uint32_t modes[2] = { XDP_FLAGS_DRV_MODE,
		XDP_FLAGS_SKB_MODE };
	struct bpf_link_create_opts lo;
	int i, rc;
	s->link_fd = -1;
	for(i = 0; i < 2; i++) {
		memset(&lo, 0, sizeof(lo));
		lo.sz = sizeof(lo);
		lo.flags = modes[i];
		rc = bpf_link_create(prog_fd, s->ifindex, BPF_XDP, &lo);
		if(rc >= 0) {
			s->link_fd = rc;
			s->mode = modes[i];
			return 0;
		}
		*err = errno;
	}
	for(i = 0; i < 2; i++) {
		rc = bpf_xdp_attach(s->ifindex, prog_fd, modes[i], NULL);
		if(rc == 0) {
			s->xdp_flags = modes[i];
			s->mode = modes[i];
			return 0;
		}
		*err = -rc;
	}
	return -1;
}

struct xdp_set *
xdp_set_open(const struct xdp_set_opts *o)
{
	struct xdp_set *s;
	struct bpf_program *prog;
	struct bpf_object_open_opts oo;
	int i, rc, dests_fd, xsks_fd, err = 0;
	const char *what = "";
	s = calloc(1, sizeof(*s));
	if(!s) {
		log_err("xdp-interface %s: out of memory", o->ifname);
		return NULL;
	}
	snprintf(s->ifname, sizeof(s->ifname), "%s", o->ifname);
	s->owner = getpid();
	s->link_fd = -1;
	s->num_workers = o->num_workers > 0 ? o->num_workers : 1;
	s->batch = o->batch > 0 ? o->batch : 64;
	s->ring = o->ring > 0 ? o->ring : 2048;
	if(s->batch > s->ring)
		s->batch = s->ring;
	s->num_points = o->num_points < XDP_MAX_POINTS ? o->num_points :
		XDP_MAX_POINTS;
	memcpy(s->points, o->points, (size_t)s->num_points *
		sizeof(*s->points));
	s->ifindex = (int)if_nametoindex(o->ifname);
	if(s->ifindex == 0) {
		log_warnx("xdp-interface %s: no such interface; answering "
			"through the kernel's UDP sockets", o->ifname);
		free(s);
		return NULL;
	}
	s->mtu = read_mtu(s->ifname);
	libbpf_set_print(xdp_libbpf_print);
	memset(&oo, 0, sizeof(oo));
	oo.sz = sizeof(oo);
	oo.object_name = "petrel_xdp";
	s->obj = bpf_object__open_mem(xdp_kern_obj, xdp_kern_obj_len, &oo);
	if(!s->obj) {
		err = errno;
		s->obj = NULL;
		what = "cannot open the XDP program";
		goto fail;
	}
	if((rc = bpf_object__load(s->obj)) != 0) {
		err = -rc;
		what = "cannot load the XDP program (privilege, or a kernel "
			"without BPF)";
		goto fail;
	}
	prog = bpf_object__find_program_by_name(s->obj, "petrel_xdp");
	dests_fd = bpf_object__find_map_fd_by_name(s->obj, "petrel_dests");
	xsks_fd = bpf_object__find_map_fd_by_name(s->obj, "petrel_xsks");
	if(!prog || dests_fd < 0 || xsks_fd < 0) {
		what = "the XDP program lacks its maps";
		goto fail;
	}
	for(i = 0; i < s->num_points; i++) {
		uint32_t v = (uint32_t)i;
		if(!point_used(&s->points[i]))
			continue;
		point_key(&s->points[i], &s->keys[i]);
		if(bpf_map_update_elem(dests_fd, &s->keys[i], &v, BPF_ANY)
			!= 0) {
			err = errno;
			what = "cannot fill the XDP program's address map";
			goto fail;
		}
	}
	s->nq = count_rx_queues(s->ifname);
	if(s->nq > XDP_MAX_QUEUES)
		s->nq = XDP_MAX_QUEUES;
	s->q = mmap(NULL, (size_t)s->nq * sizeof(*s->q), PROT_READ |
		PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if(s->q == MAP_FAILED) {
		s->q = NULL;
		err = errno;
		what = "out of memory";
		goto fail;
	}
	memset(s->q, 0, (size_t)s->nq * sizeof(*s->q));
	if(xdp_attach(s, bpf_program__fd(prog), &err) != 0) {
		what = "cannot attach the XDP program (privilege, no driver "
			"support, or another program on the interface)";
		goto fail;
	}
	for(i = 0; i < s->nq; i++) {
		struct xdp_queue *q = &s->q[i];
		int fd;
		if(queue_open(s, q, (uint32_t)i, &err) != 0) {
			what = "cannot bind an AF_XDP socket";
			goto fail;
		}
		fd = q->fd;
		if(bpf_map_update_elem(xsks_fd, &q->qid, &fd, BPF_ANY) != 0) {
			err = errno;
			what = "cannot put the socket in the XDP program's map";
			goto fail;
		}
	}
	snprintf(s->desc, sizeof(s->desc), "%s: %s XDP, %d queue%s, %s, "
		"batch %d, rings %d", s->ifname,
		s->mode == XDP_FLAGS_DRV_MODE ? "native" : "generic",
		s->nq, s->nq == 1 ? "" : "s", s->q[0].zerocopy ? "zero-copy" :
		"copy mode", s->batch, s->ring);
	return s;
fail:
	log_warnx("xdp-interface %s: %s%s%s; answering through the kernel's "
		"UDP sockets", o->ifname, what, err ? ": " : "",
		err ? strerror(err) : "");
	xdp_set_close(s);
	return NULL;
}

void
xdp_set_close(struct xdp_set *s)
{
	int i;
	if(!s)
		return;
	if(s->owner != getpid()) {
		/* a fork child: the parent's sockets and program */
		free(s);
		return;
	}
	if(s->q) {
		for(i = 0; i < s->nq; i++)
			queue_close(&s->q[i]);
		munmap(s->q, (size_t)s->nq * sizeof(*s->q));
	}
	if(s->link_fd != -1)
		close(s->link_fd);
	if(s->xdp_flags)
		(void)bpf_xdp_detach(s->ifindex, s->xdp_flags, NULL);
	if(s->obj)
		bpf_object__close(s->obj);
	free(s);
}

const char *
xdp_set_describe(const struct xdp_set *s)
{
	return s ? s->desc : "off";
}

struct xdp_worker *
xdp_worker_start(struct xdp_set *s, int index, struct comm_base *base,
	xdp_answer_cb_type cb, void *arg)
{
	struct xdp_worker *xw;
	int i;
	if(!s)
		return NULL;
	xw = calloc(1, sizeof(*xw));
	if(!xw || !(xw->qidx = calloc((size_t)s->nq, sizeof(int))) ||
		!(xw->watch = calloc((size_t)s->nq, sizeof(*xw->watch)))) {
		log_err("xdp: out of memory");
		goto fail;
	}
	xw->s = s;
	xw->cb = cb;
	xw->arg = arg;
	for(i = 0; i < s->nq; i++) {
		if(i % s->num_workers != index)
			continue;
		xw->qidx[xw->n] = i;
		xw->watch[xw->n] = comm_watch_create(base, s->q[i].fd,
			xdp_readable, xw);
		if(!xw->watch[xw->n])
			goto fail;
		xw->n++;
	}
	if(xw->n == 0) {
		xdp_worker_stop(xw);
		return NULL;
	}
	return xw;
fail:
	xdp_worker_stop(xw);
	return NULL;
}

void
xdp_worker_stop(struct xdp_worker *xw)
{
	int i;
	if(!xw)
		return;
	for(i = 0; i < xw->n; i++)
		comm_watch_delete(xw->watch[i]);
	free(xw->watch);
	free(xw->qidx);
	free(xw);
}

void
xdp_worker_stats(struct xdp_worker *xw, struct xdp_stats *out, int reset)
{
	int i;
	if(!xw)
		return;
	for(i = 0; i < xw->n; i++) {
		struct xdp_stats *st = &xw->s->q[xw->qidx[i]].stats;
		out->answers += st->answers;
		out->passed += st->passed;
		out->invalid += st->invalid;
		out->tx_full += st->tx_full;
		if(reset)
			memset(st, 0, sizeof(*st));
	}
}

#else /* !HAVE_LIBXDP */

struct xdp_set *
xdp_set_open(const struct xdp_set_opts *o)
{
	log_warnx("xdp-interface %s: this petrel was built without libxdp "
		"(configure --with-libxdp); answering through the kernel's "
		"UDP sockets", o->ifname);
	return NULL;
}

void
xdp_set_close(struct xdp_set *s)
{
	(void)s;
}

const char *
xdp_set_describe(const struct xdp_set *s)
{
	(void)s;
	return "off";
}

struct xdp_worker *
xdp_worker_start(struct xdp_set *s, int index, struct comm_base *base,
	xdp_answer_cb_type cb, void *arg)
{
	(void)s; (void)index; (void)base; (void)cb; (void)arg;
	return NULL;
}

void
xdp_worker_stop(struct xdp_worker *xw)
{
	(void)xw;
}

void
xdp_worker_stats(struct xdp_worker *xw, struct xdp_stats *out, int reset)
{
	(void)xw; (void)out; (void)reset;
}

#endif /* HAVE_LIBXDP */
