/*
 * util/netevent/backend_uring.c - the io_uring backend (HAVE_LIBURING).
 *
 * One ring per comm_base (so per worker, never shared between threads),
 * set up with IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN
 * where the kernel has them: completions are then posted only when the
 * owning thread waits, with no inter-processor interrupts in between. The
 * ring starts disabled (IORING_SETUP_R_DISABLED) and is enabled on the
 * first submission, so the thread that runs the loop is its issuer even
 * when another thread created the base. Without those flags (older
 * kernels) a plain ring is used.
 *
 * Descriptors (the backend contract). A descriptor with interest has one
 * IORING_OP_POLL_ADD in flight, one-shot, armed with the interest of the
 * moment; its completion runs the callback and the poll is armed again
 * afterwards if there is still interest. A one-shot poll completes at once
 * when the descriptor is ready as it is armed, so a descriptor stays level
 * triggered, as on select and libevent. Changing the interest while a
 * poll is in flight cancels it (IORING_OP_POLL_REMOVE); its completion
 * (-ECANCELED) then arms the new interest. Freeing a descriptor whose poll
 * is in flight marks it dead and cancels: it is freed by that last
 * completion. Every new request is only queued; they all go to the kernel
 * in the io_uring_enter(2) that also waits, one system call per loop
 * iteration however many requests and completions there are.
 *
 * Timers: the min-heap of timer_heap.c; the wait is bounded by the first
 * deadline through the timeout argument of io_uring_enter(2)
 * (IORING_FEAT_EXT_ARG), so timers cost no requests at all.
 *
 * Completion-based UDP (comm_uring.c) uses the calls of backend_uring.h:
 * its requests' user_data is a struct nev_uring_op, its batches are
 * answered from a flush hook run after each iteration's completions.
 *
 * Probe (usable): once per process, cached. It fails when the test hook
 * PETREL_URING_DISABLE is set (non-empty) in the environment (read on
 * every call, so a test can set it late), when the ring cannot be
 * created (ENOSYS: no io_uring in the kernel; EPERM: disabled through
 * /proc/sys/kernel/io_uring_disabled or refused by seccomp), or when the
 * kernel lacks a feature or request this backend needs (the wait timeout
 * argument, poll, cancellation, sendmsg/recvmsg: Linux 5.11 and later).
 * comm_base_create then logs one line and uses the next backend.
 */
#include "config.h"
#ifdef HAVE_LIBURING
#include "util/netevent/backend.h"
#include "util/netevent/backend_uring.h"
#include "util/netevent/timer_heap.h"
#include "util/log.h"
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/** submission queue entries per ring */
#define UR_SQ_ENTRIES 1024
/** completion queue entries per ring */
#define UR_CQ_ENTRIES 8192
/** completions copied out of the ring at a time */
#define UR_CQE_BATCH 256
/** most completion batches handled per iteration (fairness with timers) */
#define UR_CQE_ROUNDS 8

/** a registered descriptor */
struct ur_io {
	/** completion handler of its poll; first member */
	struct nev_uring_op op;
	/** the loop */
	struct ur_state *s;
	/** the descriptor */
	int fd;
	/** interest */
	int mask;
	/** interest of the poll in flight, 0 when none is */
	int armed;
	/** a POLL_REMOVE for the poll in flight was queued */
	int cancelling;
	/** inside its callback */
	int in_cb;
	/** freed by its owner: free it when the poll has completed */
	int dead;
	/** callback */
	nev_io_cb_type cb;
	/** its argument */
	void *arg;
};

/** the loop state */
struct ur_state {
	/** the ring */
	struct io_uring ring;
	/** the ring is enabled (it starts disabled, see the file comment) */
	int enabled;
	/** setup flags the ring was made with */
	unsigned flags;
	/** the timers */
	struct nev_theap timers;
	/** hooks to run after this iteration's completions */
	struct nev_uring_flush *flush;
	/** objects waiting for their last completions (see linger) */
	int lingering;
	/** next buffer group id */
	int next_bgid;
	/** wake-up hook */
	nev_wake_cb_type wake;
	/** its argument */
	void *warg;
};

/** probe result: 0 not probed, 1 usable, -1 not usable */
static int ur_probe_state;
/** the probe's reason when not usable */
static const char *ur_probe_why;

/** enable the ring on first use, from the thread that runs the loop */
static int
ur_enable(struct ur_state *s)
{
	int r;
	if(s->enabled)
		return 0;
	s->enabled = 1;
	if(!(s->flags & IORING_SETUP_R_DISABLED))
		return 0;
	/* (liburing 2.3 declares io_uring_enable_rings but does not
	 * export it: the register call itself) */
	r = (int)syscall(__NR_io_uring_register, s->ring.ring_fd,
		IORING_REGISTER_ENABLE_RINGS, NULL, 0);
	if(r < 0) {
		log_warn("io_uring backend: enable ring");
		return -1;
	}
	return 0;
}

struct io_uring_sqe *
nev_uring_get_sqe(void *st)
{
	struct ur_state *s = st;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ring);
	int r;
	if(sqe)
		return sqe;
	if(ur_enable(s) == -1)
		return NULL;
	r = io_uring_submit(&s->ring);
	if(r < 0) {
		log_err("io_uring backend: submit: %s", strerror(-r));
		return NULL;
	}
	sqe = io_uring_get_sqe(&s->ring);
	if(!sqe)
		log_err("io_uring backend: submission queue full");
	return sqe;
}

void
nev_uring_flush_later(void *st, struct nev_uring_flush *f)
{
	struct ur_state *s = st;
	if(f->queued)
		return;
	f->queued = 1;
	f->next = s->flush;
	s->flush = f;
}

struct io_uring_buf_ring *
nev_uring_buf_ring_new(void *st, unsigned entries, int *bgid)
{
	struct ur_state *s = st;
	struct io_uring_buf_reg reg;
	size_t len = (size_t)entries * sizeof(struct io_uring_buf);
	void *mem;
	int r;
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE,
		MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
	if(mem == MAP_FAILED)
		return NULL;
	io_uring_buf_ring_init((struct io_uring_buf_ring *)mem);
	memset(&reg, 0, sizeof(reg));
	reg.ring_addr = (uint64_t)(uintptr_t)mem;
	reg.ring_entries = entries;
	reg.bgid = (uint16_t)s->next_bgid;
	r = io_uring_register_buf_ring(&s->ring, &reg, 0);
	if(r != 0) {
		verbose(VERB_OPS, "io_uring backend: no buffer rings (%s)",
			strerror(-r));
		munmap(mem, len);
		return NULL;
	}
	*bgid = s->next_bgid++;
	return (struct io_uring_buf_ring *)mem;
}

void
nev_uring_buf_ring_free(void *st, struct io_uring_buf_ring *br,
	unsigned entries, int bgid)
{
	struct ur_state *s = st;
	if(!br)
		return;
	(void)io_uring_unregister_buf_ring(&s->ring, bgid);
	munmap(br, (size_t)entries * sizeof(struct io_uring_buf));
}

void
nev_uring_linger(void *st, int delta)
{
	struct ur_state *s = st;
	s->lingering += delta;
}

/** the probe, run once per process */
static int
ur_usable(const char **why)
{
	struct io_uring ring;
	struct io_uring_probe *p;
	const char *env = getenv("PETREL_URING_DISABLE");
	int r, ok = 1;
	/* the test hook is read on every call, before the cached answer */
	if(env && *env) {
		*why = "disabled by PETREL_URING_DISABLE in the environment "
			"(test hook)";
		return 0;
	}
	if(ur_probe_state != 0) {
		*why = ur_probe_why;
		return ur_probe_state > 0;
	}
	r = io_uring_queue_init(4, &ring, 0);
	if(r < 0) {
		if(r == -ENOSYS)
			ur_probe_why = "the kernel has no io_uring (ENOSYS)";
		else if(r == -EPERM)
			ur_probe_why = "io_uring is not permitted "
				"(/proc/sys/kernel/io_uring_disabled, or "
				"seccomp)";
		else	ur_probe_why = "io_uring_setup failed";
		ok = 0;
		goto done;
	}
	p = io_uring_get_probe_ring(&ring);
	if(!(ring.features & IORING_FEAT_EXT_ARG)) {
		ur_probe_why = "the kernel lacks IORING_FEAT_EXT_ARG (wait "
			"with a timeout; Linux 5.11)";
		ok = 0;
	} else if(!p || !io_uring_opcode_supported(p, IORING_OP_POLL_ADD) ||
		!io_uring_opcode_supported(p, IORING_OP_POLL_REMOVE) ||
		!io_uring_opcode_supported(p, IORING_OP_ASYNC_CANCEL) ||
		!io_uring_opcode_supported(p, IORING_OP_RECVMSG) ||
		!io_uring_opcode_supported(p, IORING_OP_SENDMSG)) {
		ur_probe_why = "the kernel lacks an io_uring request petrel "
			"needs (poll, cancel, sendmsg, recvmsg)";
		ok = 0;
	}
	if(p)
		io_uring_free_probe(p);
	io_uring_queue_exit(&ring);
done:
	/* a race between two threads probing writes the same answer */
	ur_probe_state = ok ? 1 : -1;
	*why = ur_probe_why;
	return ok;
}

static void *
ur_create(nev_wake_cb_type wake, void *warg)
{
	struct ur_state *s = calloc(1, sizeof(*s));
	struct io_uring_params par;
	int r;
	if(!s) {
		log_err("io_uring backend: out of memory");
		return NULL;
	}
	memset(&par, 0, sizeof(par));
	par.flags = IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER |
		IORING_SETUP_DEFER_TASKRUN | IORING_SETUP_R_DISABLED;
	par.cq_entries = UR_CQ_ENTRIES;
	r = io_uring_queue_init_params(UR_SQ_ENTRIES, &s->ring, &par);
	if(r == -EINVAL) {
		/* a kernel before 6.1: a plain ring */
		memset(&par, 0, sizeof(par));
		par.flags = IORING_SETUP_CQSIZE;
		par.cq_entries = UR_CQ_ENTRIES;
		r = io_uring_queue_init_params(UR_SQ_ENTRIES, &s->ring, &par);
	}
	if(r < 0) {
		log_err("io_uring backend: io_uring_setup: %s", strerror(-r));
		free(s);
		return NULL;
	}
	s->flags = par.flags;
	s->wake = wake;
	s->warg = warg;
	return s;
}

/** handle the completions that are in the ring now. @return how many */
static int
ur_reap(struct ur_state *s)
{
	struct {
		/** the op */
		struct nev_uring_op *op;
		/** result */
		int res;
		/** flags */
		unsigned flags;
	} got[UR_CQE_BATCH];
	int total = 0, round;
	for(round = 0; round < UR_CQE_ROUNDS; round++) {
		struct io_uring_cqe *cqe;
		unsigned head;
		int n = 0, i;
		/* copy out first: the handlers queue new requests */
		io_uring_for_each_cqe(&s->ring, head, cqe) {
			got[n].op = (struct nev_uring_op *)(uintptr_t)
				io_uring_cqe_get_data64(cqe);
			got[n].res = cqe->res;
			got[n].flags = cqe->flags;
			if(++n == UR_CQE_BATCH)
				break;
		}
		if(n == 0)
			break;
		io_uring_cq_advance(&s->ring, (unsigned)n);
		for(i = 0; i < n; i++)
			if(got[i].op)
				got[i].op->done(got[i].op, got[i].res,
					got[i].flags);
		total += n;
		if(n < UR_CQE_BATCH)
			break;
	}
	return total;
}

/** run the queued flush hooks */
static void
ur_run_flush(struct ur_state *s)
{
	while(s->flush) {
		struct nev_uring_flush *f = s->flush;
		s->flush = f->next;
		f->next = NULL;
		f->queued = 0;
		f->fn(f);
	}
}

static void
ur_destroy(void *st)
{
	struct ur_state *s = st;
	int rounds;
	if(!s)
		return;
	/* let cancelled requests complete, so that what waits for them
	 * (dead descriptors, deleted UDP rings) is freed */
	for(rounds = 0; s->lingering > 0 && rounds < 100; rounds++) {
		struct io_uring_cqe *cqe;
		struct __kernel_timespec ts = { 0, 20 * 1000 * 1000 };
		if(ur_enable(s) == -1)
			break;
		(void)io_uring_submit_and_wait_timeout(&s->ring, &cqe, 1, &ts,
			NULL);
		(void)ur_reap(s);
		ur_run_flush(s);
	}
	if(s->lingering > 0)
		log_err("io_uring backend: %d objects still wait for "
			"completions at exit", s->lingering);
	io_uring_queue_exit(&s->ring);
	nev_theap_clear(&s->timers);
	free(s);
}

static const char *
ur_method(void *st)
{
	(void)st;
	return "io_uring";
}

/** arm a one-shot poll with the current interest */
static int
ur_io_arm(struct ur_state *s, struct ur_io *io)
{
	struct io_uring_sqe *sqe = nev_uring_get_sqe(s);
	unsigned ev = 0;
	if(!sqe)
		return -1;
	if(io->mask & NEV_READ)
		ev |= POLLIN;
	if(io->mask & NEV_WRITE)
		ev |= POLLOUT;
	io_uring_prep_poll_add(sqe, io->fd, ev);
	io_uring_sqe_set_data(sqe, &io->op);
	io->armed = io->mask;
	return 0;
}

/** cancel the poll in flight */
static int
ur_io_cancel(struct ur_state *s, struct ur_io *io)
{
	struct io_uring_sqe *sqe;
	if(io->cancelling)
		return 0;
	sqe = nev_uring_get_sqe(s);
	if(!sqe)
		return -1;
	io_uring_prep_poll_remove(sqe, (uint64_t)(uintptr_t)&io->op);
	io_uring_sqe_set_data64(sqe, 0);
	io->cancelling = 1;
	return 0;
}

/** the poll of an io completed */
static void
ur_io_done(struct nev_uring_op *op, int res, unsigned flags)
{
	struct ur_io *io = (struct ur_io *)op;
	struct ur_state *s = io->s;
	int ev = 0;
	(void)flags;
	io->armed = 0;
	io->cancelling = 0;
	if(io->dead) {
		s->lingering--;
		free(io);
		return;
	}
	if(res > 0) {
		if(res & (POLLIN | POLLHUP | POLLERR | POLLRDHUP))
			ev |= NEV_READ;
		if(res & (POLLOUT | POLLHUP | POLLERR))
			ev |= NEV_WRITE;
		ev &= io->mask;
	}
	if(ev) {
		io->in_cb = 1;
		io->cb(io->fd, ev, io->arg);
		io->in_cb = 0;
		if(io->dead) {
			/* freed from its own callback */
			if(!io->armed) {
				s->lingering--;
				free(io);
			}
			return;
		}
	}
	if(res < 0 && res != -ECANCELED) {
		/* (EBADF and the like: arming again would only spin) */
		log_err("io_uring backend: poll on fd %d: %s", io->fd,
			strerror(-res));
		return;
	}
	if(io->mask && !io->armed && ur_io_arm(s, io) == -1)
		log_err("io_uring backend: cannot watch fd %d again", io->fd);
}

static void *
ur_io_new(void *st, int fd, nev_io_cb_type cb, void *arg)
{
	struct ur_io *io = calloc(1, sizeof(*io));
	if(!io) {
		log_err("io_uring backend: out of memory");
		return NULL;
	}
	io->op.done = ur_io_done;
	io->s = st;
	io->fd = fd;
	io->cb = cb;
	io->arg = arg;
	return io;
}

static int
ur_io_set(void *st, void *p, int mask)
{
	struct ur_state *s = st;
	struct ur_io *io = p;
	io->mask = mask;
	if(io->armed) {
		/* changed: the completion of the cancel arms the new mask */
		if(io->armed != mask)
			return ur_io_cancel(s, io);
		return 0;
	}
	if(!mask || io->in_cb)
		return 0; /* (armed after the callback returns) */
	return ur_io_arm(s, io);
}

static void
ur_io_free(void *st, void *p)
{
	struct ur_state *s = st;
	struct ur_io *io = p;
	if(!io)
		return;
	if(io->armed) {
		io->dead = 1;
		io->mask = 0;
		s->lingering++;
		(void)ur_io_cancel(s, io);
		return;
	}
	if(io->in_cb) {
		io->dead = 1;
		io->mask = 0;
		s->lingering++;
		return;
	}
	free(io);
}

static int
ur_io_refd(void *st, void *p, int fd)
{
	struct ur_io *io = p;
	(void)st;
	/* a poll still in flight (its cancel not completed): not now. In
	 * its own callback the poll has completed: it may move (ur_io_done
	 * arms the new descriptor after the callback if the interest is
	 * set again) */
	if(io->mask != 0 || io->armed || io->cancelling || io->dead)
		return -1;
	io->fd = fd;
	return 0;
}

static void *
ur_timer_new(void *st, nev_timer_cb_type cb, void *arg)
{
	(void)st;
	return nev_theap_timer_new("io_uring", cb, arg);
}

static int
ur_timer_set(void *st, void *p, const struct timeval *now,
	const struct timeval *rel)
{
	struct ur_state *s = st;
	return nev_theap_set(&s->timers, p, now, rel);
}

static void
ur_timer_clear(void *st, void *p)
{
	struct ur_state *s = st;
	nev_theap_remove(&s->timers, p);
}

static void
ur_timer_free(void *st, void *p)
{
	struct ur_state *s = st;
	if(!p)
		return;
	nev_theap_remove(&s->timers, p);
	free(p);
}

static int
ur_run_once(void *st, const struct timeval *max_wait)
{
	struct ur_state *s = st;
	struct timeval now, wait, *wp;
	struct __kernel_timespec ts;
	struct io_uring_cqe *cqe;
	int r;
	if(ur_enable(s) == -1)
		return -1;
	gettimeofday(&now, NULL);
	wp = nev_theap_wait(&s->timers, &now, max_wait, &wait);
	if(wp) {
		ts.tv_sec = wp->tv_sec;
		ts.tv_nsec = (long long)wp->tv_usec * 1000;
	}
	/* submit what is queued and wait, in one io_uring_enter */
	r = io_uring_submit_and_wait_timeout(&s->ring, &cqe, 1,
		wp ? &ts : NULL, NULL);
	if(r < 0 && r != -ETIME && r != -EINTR && r != -EAGAIN &&
		r != -EBUSY) {
		log_err("io_uring backend: io_uring_enter: %s", strerror(-r));
		return -1;
	}
	/* read before the wake hook reads the cached clock (see
	 * nev_theap_run) */
	gettimeofday(&now, NULL);
	s->wake(s->warg);
	(void)ur_reap(s);
	ur_run_flush(s);
	nev_theap_run(&s->timers, &now);
	return 0;
}

/** the io_uring backend */
const struct nev_backend nev_backend_uring = {
	"io_uring",
	ur_create,
	ur_destroy,
	ur_method,
	ur_io_new,
	ur_io_set,
	ur_io_free,
	ur_timer_new,
	ur_timer_set,
	ur_timer_clear,
	ur_timer_free,
	ur_run_once,
	ur_usable,
	ur_io_refd
};
#endif /* HAVE_LIBURING */
