/*
 * bench/malloc_count.c - an LD_PRELOAD shim that counts a process's heap
 * calls, for bench/miss (allocations per cache miss, petrel and Unbound).
 *
 * It defines malloc, calloc, realloc, free, posix_memalign, aligned_alloc,
 * memalign and valloc, counts each call, and hands it on to glibc's own
 * allocator through its exported __libc_* entry points (no dlsym: dlsym
 * itself allocates, which would recurse). glibc only.
 *
 * The counters live in a file mapped shared (MALLOC_COUNT_FILE=path, made
 * and sized by the shim's constructor), so the benchmark reads them at any
 * moment without signalling the process (a signal handler of the shim
 * would be replaced by the server's own), forked workers count into the
 * same mapping, and the figures survive the process. The file is an array
 * of little-endian uint64 (struct mc_shared below): `od -An -t u8 -N 64`
 * prints the header. Without MALLOC_COUNT_FILE the shim counts in memory
 * only and is otherwise a pass-through.
 *
 * With MALLOC_COUNT_SITES=1 each allocating call (not free) also records
 * its call stack (glibc backtrace(), the MC_DEPTH frames above the shim)
 * in an open-addressed table in the same file: count per distinct stack.
 * bench/miss turns the addresses into function names with the process's
 * /proc/PID/maps and addr2line. A stack walk per call is slow: the sites
 * run is for where, never for how much CPU.
 *
 * Thread-safe: counters are atomic adds; a table slot is claimed with a
 * compare-and-swap on its key (a hash of the frames), its frames written
 * by the claimer. A call made while the shim itself is inside backtrace()
 * (the unwinder loads libgcc_s on first use, which allocates) is counted
 * but not recorded (a per-thread flag).
 */
#include "config.h"
#include <sys/types.h>
#include <sys/mman.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** glibc's allocator, under the names it exports for interposers */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t size);
extern void __libc_free(void *p);
extern void *__libc_memalign(size_t align, size_t size);

/* the functions this shim interposes; glibc declares memalign and valloc
 * only in <malloc.h> under conditions, so they get a prototype here */
void *memalign(size_t align, size_t size);
void *valloc(size_t size);

/** which call a counter counts */
enum mc_kind {
	MC_MALLOC = 0,
	MC_CALLOC,
	MC_REALLOC,
	MC_FREE,	/* free of a non-NULL pointer (and realloc to 0) */
	MC_ALIGNED,	/* posix_memalign, aligned_alloc, memalign, valloc */
	MC_BYTES,	/* bytes asked for by the allocating calls */
	MC_SITES_LOST,	/* stacks not recorded: the table was full */
	MC_NKIND
};

/** frames recorded per call site */
#define MC_DEPTH 6
/** call-site table slots (a power of two) */
#define MC_NSITES 16384
/** first word of the file */
#define MC_MAGIC 0x31746e636c6c616dULL /* "mallcnt1" */

/** one distinct call stack */
struct mc_site {
	/** hash of pc[], 0 = free slot */
	uint64_t key;
	/** calls seen with this stack */
	uint64_t count;
	/** return addresses, innermost first; 0 past the end */
	uint64_t pc[MC_DEPTH];
};

/** the shared file */
struct mc_shared {
	/** MC_MAGIC */
	uint64_t magic;
	/** counters by enum mc_kind */
	uint64_t n[MC_NKIND];
	/** MC_DEPTH, for the reader */
	uint64_t depth;
	/** the call-site table, all zero unless MALLOC_COUNT_SITES=1 */
	struct mc_site site[MC_NSITES];
};

/** counters until (or unless) the file is mapped */
static struct mc_shared *mc;
/** the in-memory header used before the mapping exists */
static uint64_t mc_early[MC_NKIND];
/** record call stacks */
static int mc_sites;
/** set while this thread walks its stack: its allocations are not recorded */
static __thread int mc_busy __attribute__((tls_model("initial-exec")));

/**
 * Add to a counter.
 * @param k: which one.
 * @param v: how much.
 */
static void
mc_add(enum mc_kind k, uint64_t v)
{
	uint64_t *n = mc ? &mc->n[k] : &mc_early[k];
	__atomic_fetch_add(n, v, __ATOMIC_RELAXED);
}

/**
 * Record the caller's stack in the site table. Not inlined, so that the
 * frames to skip are always this function and the interposed call.
 */
static void __attribute__((noinline))
mc_record(void)
{
	void *f[MC_DEPTH + 2];
	uint64_t pc[MC_DEPTH], h = 1469598103934665603ULL, zero = 0;
	int got, i;
	size_t slot, probe;

	if (!mc || mc_busy)
		return;
	mc_busy = 1;
	got = backtrace(f, MC_DEPTH + 2);
	mc_busy = 0;
	for (i = 0; i < MC_DEPTH; i++) {
		pc[i] = i + 2 < got ? (uint64_t)(uintptr_t)f[i + 2] : 0;
		h = (h ^ pc[i]) * 1099511628211ULL;
	}
	if (h == 0)
		h = 1;
	slot = (size_t)(h ^ (h >> 29)) & (MC_NSITES - 1);
	for (probe = 0; probe < MC_NSITES / 4; probe++) {
		struct mc_site *s = &mc->site[(slot + probe) & (MC_NSITES - 1)];
		uint64_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
		if (k == 0) {
			zero = 0;
			if (__atomic_compare_exchange_n(&s->key, &zero, h, 0,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				memcpy(s->pc, pc, sizeof(pc));
				k = h;
			} else
				k = zero;
		}
		if (k == h) {
			__atomic_fetch_add(&s->count, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	mc_add(MC_SITES_LOST, 1);
}

/**
 * Count one allocating call.
 * @param k: its kind.
 * @param size: bytes asked for.
 */
static inline __attribute__((always_inline)) void
mc_alloc(enum mc_kind k, size_t size)
{
	mc_add(k, 1);
	mc_add(MC_BYTES, size);
	if (mc_sites)
		mc_record();
}

/** Map the counter file named by MALLOC_COUNT_FILE (at load time). */
static void __attribute__((constructor))
mc_init(void)
{
	const char *path = getenv("MALLOC_COUNT_FILE");
	const char *sites = getenv("MALLOC_COUNT_SITES");
	struct mc_shared *m;
	int fd, k;

	if (!path || !*path)
		return;
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	if (ftruncate(fd, (off_t)sizeof(*m)) != 0) {
		close(fd);
		return;
	}
	m = mmap(NULL, sizeof(*m), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return;
	m->magic = MC_MAGIC;
	m->depth = MC_DEPTH;
	for (k = 0; k < MC_NKIND; k++)
		m->n[k] = __atomic_load_n(&mc_early[k], __ATOMIC_RELAXED);
	mc_sites = sites && strcmp(sites, "1") == 0;
	__atomic_store_n(&mc, m, __ATOMIC_RELEASE);
}

/** Interposed malloc: count, then glibc's. */
void *
malloc(size_t size)
{
	mc_alloc(MC_MALLOC, size);
	return __libc_malloc(size);
}

/** Interposed calloc: count, then glibc's. */
void *
calloc(size_t n, size_t size)
{
	mc_alloc(MC_CALLOC, n * size);
	return __libc_calloc(n, size);
}

/** Interposed realloc: count (a realloc to 0 of a block is a free). */
void *
realloc(void *p, size_t size)
{
	if (p && size == 0)
		mc_add(MC_FREE, 1);
	else
		mc_alloc(MC_REALLOC, size);
	return __libc_realloc(p, size);
}

/** Interposed free: count a non-NULL pointer, then glibc's. */
void
free(void *p)
{
	if (p)
		mc_add(MC_FREE, 1);
	__libc_free(p);
}

/** Interposed posix_memalign: count, glibc's memalign. */
int
posix_memalign(void **out, size_t align, size_t size)
{
	void *p;

	if (align < sizeof(void *) || (align & (align - 1)) != 0)
		return 22; /* EINVAL */
	mc_alloc(MC_ALIGNED, size);
	p = __libc_memalign(align, size);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

/** Interposed aligned_alloc: count, glibc's memalign. */
void *
aligned_alloc(size_t align, size_t size)
{
	mc_alloc(MC_ALIGNED, size);
	return __libc_memalign(align, size);
}

/** Interposed memalign: count, glibc's. */
void *
memalign(size_t align, size_t size)
{
	mc_alloc(MC_ALIGNED, size);
	return __libc_memalign(align, size);
}

/** Interposed valloc: count, a page-aligned glibc memalign. */
void *
valloc(size_t size)
{
	mc_alloc(MC_ALIGNED, size);
	return __libc_memalign((size_t)sysconf(_SC_PAGESIZE), size);
}
