/*
 * util/storage/qsbr.c - quiescent-state-based reclamation.
 *
 * See qsbr.h for the protocol. Memory orders: the reader publishes its
 * quiescent state with a release store, so that everything it read before
 * happens-before the writer's acquire load of the slot and the free that
 * follows. Coming online is a sequentially consistent exchange followed by
 * a seq_cst fence, against a seq_cst fence in the writer between its
 * unlinks and its loads of the slots (the store-buffering case: a writer
 * must not see the reader offline while the reader already reads the old
 * chain). Only C11 atomics and fences are used; ThreadSanitizer follows
 * the release/acquire pairs (it does not model the fences, nor does it
 * need them: it does not simulate store buffering).
 */
#include "config.h"
#include "util/storage/qsbr.h"
#include <stdatomic.h>
#include <stddef.h>

/** one reader slot, alone on its cache line */
struct qsbr_reader {
	/** last epoch seen; 0 while offline */
	_Atomic uint64_t seen;
	/** 1 while the slot is registered */
	atomic_int used;
	/** fill the cache line */
	char pad[64 - sizeof(uint64_t) - sizeof(int)];
} __attribute__((aligned(64)));

/** the epoch counter, on its own line */
static struct {
	_Atomic uint64_t g;
	char pad[64 - sizeof(uint64_t)];
} qsbr_epoch __attribute__((aligned(64))) = { 1, {0} };

/** the reader slots */
static struct qsbr_reader qsbr_slots[QSBR_MAX_READERS];
/** one past the highest slot ever used: the writer scans up to here */
static atomic_int qsbr_hiwater;

struct qsbr_reader *
qsbr_register(void)
{
	int i;
	for(i = 0; i < QSBR_MAX_READERS; i++) {
		int expect = 0;
		if(atomic_compare_exchange_strong(&qsbr_slots[i].used,
			&expect, 1)) {
			int hw = atomic_load(&qsbr_hiwater);
			while(hw < i+1 && !atomic_compare_exchange_weak(
				&qsbr_hiwater, &hw, i+1))
				;
			qsbr_online(&qsbr_slots[i]);
			return &qsbr_slots[i];
		}
	}
	return NULL;
}

void
qsbr_unregister(struct qsbr_reader *r)
{
	if(!r)
		return;
	qsbr_offline(r);
	atomic_store(&r->used, 0);
}

void
qsbr_quiescent(struct qsbr_reader *r)
{
	uint64_t g = atomic_load_explicit(&qsbr_epoch.g, memory_order_acquire);
	if(atomic_load_explicit(&r->seen, memory_order_relaxed) != g)
		atomic_store_explicit(&r->seen, g, memory_order_release);
}

void
qsbr_offline(struct qsbr_reader *r)
{
	atomic_store_explicit(&r->seen, 0, memory_order_release);
}

void
qsbr_online(struct qsbr_reader *r)
{
	uint64_t g = atomic_load_explicit(&qsbr_epoch.g, memory_order_acquire);
	(void)atomic_exchange_explicit(&r->seen, g, memory_order_seq_cst);
	atomic_thread_fence(memory_order_seq_cst);
}

void
qsbr_hook_before_wait(void *reader)
{
	qsbr_offline((struct qsbr_reader *)reader);
}

void
qsbr_hook_after_wake(void *reader)
{
	qsbr_online((struct qsbr_reader *)reader);
}

int
qsbr_is_online(struct qsbr_reader *r)
{
	return atomic_load_explicit(&r->seen, memory_order_relaxed) != 0;
}

uint64_t
qsbr_retire_tag(void)
{
	return atomic_fetch_add_explicit(&qsbr_epoch.g, 1,
		memory_order_seq_cst) + 1;
}

uint64_t
qsbr_safe_tag(void)
{
	uint64_t safe;
	int i, hw;
	/* Pairs with the fence in qsbr_online (store buffering): either
	 * this fence comes first in the single total order, and the reader,
	 * after its fence, sees every unlink made before this call; or the
	 * reader's fence comes first, and the slot loads below see it
	 * online, with an epoch older than the unlinked objects' tags. */
	atomic_thread_fence(memory_order_seq_cst);
	safe = atomic_load_explicit(&qsbr_epoch.g, memory_order_seq_cst);
	hw = atomic_load_explicit(&qsbr_hiwater, memory_order_acquire);
	for(i = 0; i < hw; i++) {
		uint64_t s = atomic_load_explicit(&qsbr_slots[i].seen,
			memory_order_seq_cst);
		if(s != 0 && s < safe)
			safe = s;
	}
	return safe;
}

void
qsbr_reset_after_fork(void)
{
	int i;
	for(i = 0; i < QSBR_MAX_READERS; i++) {
		atomic_store(&qsbr_slots[i].seen, 0);
		atomic_store(&qsbr_slots[i].used, 0);
	}
	atomic_store(&qsbr_hiwater, 0);
}

int
qsbr_num_readers(void)
{
	int i, n = 0, hw = atomic_load(&qsbr_hiwater);
	for(i = 0; i < hw; i++)
		if(atomic_load(&qsbr_slots[i].used))
			n++;
	return n;
}
