/*
 * util/storage/shmarena.c - the shared mapping, its QSBR domain and its
 * block arenas. See shmarena.h.
 *
 * Store order in the arena operations (so a process killed between any
 * two stores leaves the headers true; lists and counters are rebuilt):
 *   carve:   write the new header, then advance bump;
 *   alloc:   pop the free list head, then mark the block USED;
 *   free:    link the block to the old head, mark it FREE, then make it
 *            the head;
 *   retire:  mark LIMBO, then push on the pending list;
 *   commit:  tag each pending block, then append the chain to the limbo;
 *   reclaim: pop from the limbo, then free.
 */
#include "config.h"
#include "util/storage/shmarena.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/** mapping magic */
#define SHM_MAGIC 0x70657472656c3031ull

/** a reader slot, alone on its cache line */
struct shm_slot {
	/** last epoch seen; 0 while offline */
	_Atomic uint64_t seen;
	/** owner pid; 0 when free */
	_Atomic int32_t pid;
	/** fill the line */
	char pad[64 - sizeof(uint64_t) - sizeof(int32_t)];
};

/** the mapping header, at offset 0 */
struct shm_header {
	/** SHM_MAGIC */
	uint64_t magic;
	/** mapping size */
	uint64_t size;
	/** set-up bump pointer */
	uint64_t carve;
	/** named roots */
	uint64_t roots[SHMARENA_ROOTS];
	/** one past the highest slot ever used */
	_Atomic int32_t hiwater;
	/** keep the epoch on its own line */
	char pad0[64];
	/** the epoch counter */
	_Atomic uint64_t g;
	/** fill the line */
	char pad1[64 - sizeof(uint64_t)];
	/** the reader slots */
	struct shm_slot slots[SHMARENA_READERS];
};

/** a block header (SHMARENA_HDR bytes) */
struct shm_block {
	/** SHMARENA_FREE, SHMARENA_USED or SHMARENA_LIMBO */
	uint32_t state;
	/** size class */
	uint16_t cls;
	/** owner's kind */
	uint16_t kind;
	/** free list, pending or limbo link (block header offset) */
	uint64_t link;
	/** QSBR tag while in limbo */
	uint64_t tag;
	/** pad to 32 */
	uint64_t spare;
};

/** countdown of the fault injection hook */
static unsigned long shm_crash_countdown;

void
shmarena_crash_set(unsigned long n)
{
	shm_crash_countdown = n;
}

void
shmarena_crash_point(void)
{
	if(shm_crash_countdown && --shm_crash_countdown == 0)
		raise(SIGKILL);
}

/** the header of a mapping */
static inline struct shm_header *
hdr(const void *base)
{
	return (struct shm_header *)base;
}

void *
shmarena_map_create(size_t size)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *base;
	struct shm_header *h;
	int i;
	if(pg <= 0)
		pg = 4096;
	/* the header (the reader slots) comes on top of what was asked */
	size += (sizeof(struct shm_header) + 63) & ~(size_t)63;
	size = (size + (size_t)pg - 1) & ~((size_t)pg - 1);
	base = mmap(NULL, size, PROT_READ | PROT_WRITE,
		MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if(base == MAP_FAILED)
		return NULL;
	h = hdr(base);
	h->magic = SHM_MAGIC;
	h->size = size;
	h->carve = (sizeof(*h) + 63) & ~(uint64_t)63;
	atomic_init(&h->g, 1);
	atomic_init(&h->hiwater, 0);
	for(i = 0; i < SHMARENA_READERS; i++) {
		atomic_init(&h->slots[i].seen, 0);
		atomic_init(&h->slots[i].pid, 0);
	}
	return base;
}

void
shmarena_map_delete(void *base)
{
	if(base)
		munmap(base, (size_t)hdr(base)->size);
}

size_t
shmarena_map_size(const void *base)
{
	return (size_t)hdr(base)->size;
}

uint64_t
shmarena_carve(void *base, size_t n)
{
	struct shm_header *h = hdr(base);
	uint64_t off = h->carve;
	n = (n + 63) & ~(size_t)63;
	if(n > h->size || off > h->size - n)
		return 0;
	h->carve = off + n;
	return off;
}

uint64_t
shmarena_root_get(const void *base, int i)
{
	return hdr(base)->roots[i];
}

void
shmarena_root_set(void *base, int i, uint64_t off)
{
	hdr(base)->roots[i] = off;
}

/* ---- QSBR ---- */

int
shmarena_qsbr_register(void *base, pid_t pid)
{
	struct shm_header *h = hdr(base);
	int i;
	for(i = 0; i < SHMARENA_READERS; i++) {
		int32_t expect = 0;
		if(atomic_compare_exchange_strong(&h->slots[i].pid, &expect,
			(int32_t)pid)) {
			int32_t hw = atomic_load(&h->hiwater);
			while(hw < i+1 && !atomic_compare_exchange_weak(
				&h->hiwater, &hw, i+1))
				;
			shmarena_qsbr_online(base, i);
			return i;
		}
	}
	return -1;
}

void
shmarena_qsbr_unregister(void *base, int slot)
{
	if(slot < 0)
		return;
	shmarena_qsbr_offline(base, slot);
	atomic_store(&hdr(base)->slots[slot].pid, 0);
}

void
shmarena_qsbr_quiescent(void *base, int slot)
{
	struct shm_header *h = hdr(base);
	uint64_t g = atomic_load_explicit(&h->g, memory_order_acquire);
	if(atomic_load_explicit(&h->slots[slot].seen, memory_order_relaxed)
		!= g)
		atomic_store_explicit(&h->slots[slot].seen, g,
			memory_order_release);
}

void
shmarena_qsbr_offline(void *base, int slot)
{
	atomic_store_explicit(&hdr(base)->slots[slot].seen, 0,
		memory_order_release);
}

void
shmarena_qsbr_online(void *base, int slot)
{
	struct shm_header *h = hdr(base);
	uint64_t g = atomic_load_explicit(&h->g, memory_order_acquire);
	(void)atomic_exchange_explicit(&h->slots[slot].seen, g,
		memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

uint64_t
shmarena_qsbr_retire_tag(void *base)
{
	return atomic_fetch_add_explicit(&hdr(base)->g, 1,
		memory_order_seq_cst) + 1;
}

uint64_t
shmarena_qsbr_safe_tag(void *base)
{
	struct shm_header *h = hdr(base);
	uint64_t safe;
	int i, hw;
	/* pairs with the fence in shmarena_qsbr_online, as in qsbr.c */
	atomic_thread_fence(memory_order_seq_cst);
	safe = atomic_load_explicit(&h->g, memory_order_seq_cst);
	hw = atomic_load_explicit(&h->hiwater, memory_order_acquire);
	for(i = 0; i < hw; i++) {
		uint64_t s = atomic_load_explicit(&h->slots[i].seen,
			memory_order_seq_cst);
		if(s != 0 && s < safe)
			safe = s;
	}
	return safe;
}

int
shmarena_qsbr_release_pid(void *base, pid_t pid)
{
	struct shm_header *h = hdr(base);
	int i, n = 0, hw = atomic_load(&h->hiwater);
	if(pid <= 0)
		return 0;
	for(i = 0; i < hw; i++) {
		if(atomic_load(&h->slots[i].pid) == (int32_t)pid) {
			atomic_store(&h->slots[i].seen, 0);
			atomic_store(&h->slots[i].pid, 0);
			n++;
		}
	}
	return n;
}

int
shmarena_qsbr_num_readers(const void *base)
{
	struct shm_header *h = hdr(base);
	int i, n = 0, hw = atomic_load(&h->hiwater);
	for(i = 0; i < hw; i++)
		if(atomic_load(&h->slots[i].pid) != 0)
			n++;
	return n;
}

/* ---- arenas ---- */

/** bytes of size class c: 64, 80, 96, 112, 128, 160, ... */
static inline uint64_t
class_size(unsigned c)
{
	return (uint64_t)(4 + (c & 3)) << (4 + (c >> 2));
}

/** @return the smallest class holding n bytes, or SHMARENA_CLASSES */
static unsigned
class_of(uint64_t n)
{
	unsigned c = 0;
	/* skip whole powers of two first */
	while(c + 4 < SHMARENA_CLASSES && class_size(c + 4) <= n)
		c += 4;
	while(c < SHMARENA_CLASSES && class_size(c) < n)
		c++;
	return c;
}

/** the block header at header offset b */
static inline struct shm_block *
blk(const void *base, uint64_t b)
{
	return (struct shm_block *)((uint8_t *)(uintptr_t)base + b);
}

void
shmarena_init(void *base, struct shmarena *a, uint64_t start, uint64_t len)
{
	(void)base;
	memset(a, 0, sizeof(*a));
	a->start = (start + 15) & ~(uint64_t)15;
	a->end = start + len;
	if(a->end < a->start)
		a->end = a->start;
	a->bump = a->start;
}

size_t
shmarena_block_size(size_t n)
{
	unsigned c = class_of((uint64_t)n + SHMARENA_HDR);
	return c < SHMARENA_CLASSES ? (size_t)class_size(c) : (size_t)-1;
}

/** pop a block of class c from its (non-empty) free list */
static uint64_t
shmarena_alloc_class(void *base, struct shmarena *a, unsigned c, int kind)
{
	uint64_t b = a->free_head[c], sz = class_size(c);
	struct shm_block *k = blk(base, b);
	a->free_head[c] = k->link;
	shmarena_crash_point();
	k->link = 0;
	k->kind = (uint16_t)kind;
	k->state = SHMARENA_USED;
	a->free_bytes -= sz;
	a->used_bytes += sz;
	return b + SHMARENA_HDR;
}

uint64_t
shmarena_alloc(void *base, struct shmarena *a, size_t n, int kind)
{
	unsigned c = class_of((uint64_t)n + SHMARENA_HDR);
	uint64_t b, sz;
	struct shm_block *k;
	if(c >= SHMARENA_CLASSES)
		return 0;
	sz = class_size(c);
	if(a->free_head[c])
		return shmarena_alloc_class(base, a, c, kind);
	if(a->end - a->bump < sz) {
		/* the range is carved out: take a free block of a larger
		 * class (a little waste, counted: the block keeps its size) */
		unsigned d;
		for(d = c + 1; d < SHMARENA_CLASSES && d <= c + 12; d++)
			if(a->free_head[d])
				return shmarena_alloc_class(base, a, d, kind);
		return 0;
	}
	b = a->bump;
	k = blk(base, b);
	k->cls = (uint16_t)c;
	k->kind = (uint16_t)kind;
	k->link = 0;
	k->tag = 0;
	k->state = SHMARENA_USED;
	shmarena_crash_point();
	a->bump = b + sz;
	a->used_bytes += sz;
	return b + SHMARENA_HDR;
}

void
shmarena_free(void *base, struct shmarena *a, uint64_t off)
{
	uint64_t b = off - SHMARENA_HDR, sz;
	struct shm_block *k = blk(base, b);
	uint32_t was = k->state;
	sz = class_size(k->cls);
	k->link = a->free_head[k->cls];
	k->state = SHMARENA_FREE;
	shmarena_crash_point();
	a->free_head[k->cls] = b;
	a->free_bytes += sz;
	if(was == SHMARENA_LIMBO)
		a->limbo_bytes -= sz;
	else	a->used_bytes -= sz;
}

void
shmarena_retire(void *base, struct shmarena *a, uint64_t off)
{
	uint64_t b = off - SHMARENA_HDR;
	struct shm_block *k = blk(base, b);
	k->tag = UINT64_MAX;
	k->state = SHMARENA_LIMBO;
	shmarena_crash_point();
	k->link = a->pending;
	a->pending = b;
	a->used_bytes -= class_size(k->cls);
	a->limbo_bytes += class_size(k->cls);
	if(k->kind < 4)
		a->limbo_kind_count[k->kind]++;
}

/** append block b (LIMBO, tagged) to the limbo list */
static void
limbo_append(void *base, struct shmarena *a, uint64_t b)
{
	blk(base, b)->link = 0;
	if(a->limbo_tail)
		blk(base, a->limbo_tail)->link = b;
	else	a->limbo_head = b;
	a->limbo_tail = b;
}

void
shmarena_retire_commit(void *base, struct shmarena *a, uint64_t tag)
{
	uint64_t b = a->pending, n;
	/* all get the same tag, so the order of appending does not matter */
	for(; b; b = n) {
		struct shm_block *k = blk(base, b);
		n = k->link;
		k->tag = tag;
		a->pending = n;
		limbo_append(base, a, b);
		shmarena_crash_point();
	}
}

size_t
shmarena_reclaim(void *base, struct shmarena *a, uint64_t safe)
{
	size_t n = 0;
	while(a->limbo_head && blk(base, a->limbo_head)->tag <= safe) {
		uint64_t b = a->limbo_head;
		struct shm_block *k = blk(base, b);
		a->limbo_head = k->link;
		if(!a->limbo_head)
			a->limbo_tail = 0;
		shmarena_crash_point();
		if(k->kind < 4 && a->limbo_kind_count[k->kind] > 0)
			a->limbo_kind_count[k->kind]--;
		shmarena_free(base, a, b + SHMARENA_HDR);
		n++;
	}
	return n;
}

size_t
shmarena_size_of(const void *base, uint64_t off)
{
	return (size_t)class_size(blk(base, off - SHMARENA_HDR)->cls);
}

int
shmarena_kind_of(const void *base, uint64_t off)
{
	return blk(base, off - SHMARENA_HDR)->kind;
}

int
shmarena_is_used_block(const void *base, const struct shmarena *a,
	uint64_t off, int kind)
{
	const struct shm_block *k;
	if(off < a->start + SHMARENA_HDR || off >= a->bump || (off & 15) != 0)
		return 0;
	k = blk(base, off - SHMARENA_HDR);
	if(k->state != SHMARENA_USED || k->cls >= SHMARENA_CLASSES ||
		off - SHMARENA_HDR + class_size(k->cls) > a->bump)
		return 0;
	return kind < 0 || k->kind == (uint16_t)kind;
}

size_t
shmarena_map_bits(const struct shmarena *a)
{
	return (size_t)((a->end - a->start) / 16 + 1);
}

int
shmarena_rebuild(void *base, struct shmarena *a, uint64_t tag,
	int (*referenced)(uint64_t off, void *arg), void *arg)
{
	uint64_t b;
	unsigned c;
	for(c = 0; c < SHMARENA_CLASSES; c++)
		a->free_head[c] = 0;
	a->limbo_head = a->limbo_tail = a->pending = 0;
	a->used_bytes = a->free_bytes = a->limbo_bytes = 0;
	memset(a->limbo_kind_count, 0, sizeof(a->limbo_kind_count));
	/* a block carved but not yet counted in bump is simply not there */
	for(b = a->start; b < a->bump; ) {
		struct shm_block *k = blk(base, b);
		uint64_t sz;
		if(k->cls >= SHMARENA_CLASSES)
			return -1;
		sz = class_size(k->cls);
		if(b + sz > a->bump)
			return -1;
		switch(k->state) {
		case SHMARENA_FREE:
			k->link = a->free_head[k->cls];
			a->free_head[k->cls] = b;
			a->free_bytes += sz;
			break;
		case SHMARENA_USED:
			if(referenced(b + SHMARENA_HDR, arg)) {
				a->used_bytes += sz;
				break;
			}
			k->state = SHMARENA_LIMBO;
			/* fall through */
		case SHMARENA_LIMBO:
			k->tag = tag;
			limbo_append(base, a, b);
			a->limbo_bytes += sz;
			if(k->kind < 4)
				a->limbo_kind_count[k->kind]++;
			break;
		default:
			return -1;
		}
		b += sz;
	}
	return 0;
}

/** fill err and return -1 */
static int
arena_err(char *err, size_t errlen, const char *what, uint64_t off)
{
	snprintf(err, errlen, "arena: %s (block at offset %llu)", what,
		(unsigned long long)off);
	return -1;
}

/** is b the header offset of a block inside [start, bump)? */
static int
in_range(const struct shmarena *a, uint64_t b)
{
	return b >= a->start && b < a->bump && ((b - a->start) & 15) == 0;
}

int
shmarena_check(const void *base, const struct shmarena *a,
	uint8_t *usedmap, char *err, size_t errlen)
{
	uint64_t b, used = 0, fr = 0, lim = 0, nfree = 0, nlimbo = 0, n;
	uint64_t kinds[4] = {0, 0, 0, 0}, prev_tag = 0;
	unsigned c;
	if(a->start > a->bump || a->bump > a->end)
		return arena_err(err, errlen, "bump outside the range", a->bump);
	for(b = a->start; b < a->bump; ) {
		const struct shm_block *k = blk(base, b);
		uint64_t sz;
		if(k->cls >= SHMARENA_CLASSES)
			return arena_err(err, errlen, "bad size class", b);
		sz = class_size(k->cls);
		if(b + sz > a->bump)
			return arena_err(err, errlen, "block past bump", b);
		if(k->state == SHMARENA_FREE) {
			fr += sz;
			nfree++;
		} else if(k->state == SHMARENA_USED) {
			used += sz;
			if(usedmap) {
				uint64_t bit = SHMARENA_BIT(a, b + SHMARENA_HDR);
				usedmap[bit / 8] |= (uint8_t)(1u << (bit % 8));
			}
		} else if(k->state == SHMARENA_LIMBO) {
			lim += sz;
			nlimbo++;
			if(k->kind < 4)
				kinds[k->kind]++;
		} else
			return arena_err(err, errlen, "bad block state", b);
		b += sz;
	}
	if(used != a->used_bytes || fr != a->free_bytes ||
		lim != a->limbo_bytes) {
		snprintf(err, errlen, "arena: counters used %llu free %llu limbo "
			"%llu, blocks say %llu %llu %llu",
			(unsigned long long)a->used_bytes,
			(unsigned long long)a->free_bytes,
			(unsigned long long)a->limbo_bytes, (unsigned long long)used,
			(unsigned long long)fr, (unsigned long long)lim);
		return -1;
	}
	for(c = 0; c < 4; c++)
		if(kinds[c] != a->limbo_kind_count[c])
			return arena_err(err, errlen, "limbo kind count wrong",
				c);
	/* the free lists: each block FREE, of its class, counted once (the
	 * count bound also stops a loop) */
	n = 0;
	for(c = 0; c < SHMARENA_CLASSES; c++) {
		for(b = a->free_head[c]; b; b = blk(base, b)->link) {
			if(!in_range(a, b))
				return arena_err(err, errlen,
					"free list leaves the range", b);
			if(blk(base, b)->state != SHMARENA_FREE ||
				blk(base, b)->cls != c)
				return arena_err(err, errlen,
					"free list holds a wrong block", b);
			if(++n > nfree)
				return arena_err(err, errlen,
					"free list loops or repeats", b);
		}
	}
	if(n != nfree)
		return arena_err(err, errlen, "free block not on a free list",
			nfree - n);
	/* the pending list and the limbo (tags never decrease) */
	n = 0;
	for(b = a->pending; b; b = blk(base, b)->link) {
		if(!in_range(a, b) || blk(base, b)->state != SHMARENA_LIMBO)
			return arena_err(err, errlen, "pending list broken", b);
		if(++n > nlimbo)
			return arena_err(err, errlen, "pending list loops", b);
	}
	for(b = a->limbo_head; b; b = blk(base, b)->link) {
		if(!in_range(a, b) || blk(base, b)->state != SHMARENA_LIMBO)
			return arena_err(err, errlen, "limbo list broken", b);
		if(blk(base, b)->tag < prev_tag)
			return arena_err(err, errlen, "limbo tags out of order",
				b);
		prev_tag = blk(base, b)->tag;
		if(++n > nlimbo)
			return arena_err(err, errlen, "limbo list loops", b);
		if(!blk(base, b)->link && a->limbo_tail != b)
			return arena_err(err, errlen, "limbo tail wrong", b);
	}
	if(n != nlimbo)
		return arena_err(err, errlen, "limbo block on no list",
			nlimbo - n);
	return 0;
}
