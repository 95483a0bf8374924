/*
 * tests/check_shmhash.c - the shared mapping, its arenas and QSBR domain,
 * and the shared hash table, with forked processes.
 *
 * Single-process tests: insert/lookup/replace/remove, the byte budget,
 * growth, the arena checker catching a broken free list and the rebuild
 * mending it. Multi-process tests: forked readers and writers on one
 * table, every entry a reader sees checked whole. Kill tests: children
 * inserting and removing on a small table (evictions never stop) kill
 * themselves with SIGKILL at the n-th crash point of the write paths (n
 * from a fixed list, so every run kills at the same stores), or are
 * killed by the parent after a reported number of operations; the parent
 * then releases the child's reader slot, recovers the table, checks it
 * with the consistency checker and keeps using it. Nothing depends on
 * timing: every assertion holds wherever a kill lands.
 */
#include "config.h"
#include <check.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "util/storage/shmarena.h"
#include "util/storage/shmhash.h"

/** a test entry's user bytes: key, version, payload derived from both */
struct tdata {
	/** the key */
	uint32_t key;
	/** version */
	uint32_t version;
	/** payload length */
	uint32_t plen;
	/** payload: (key + version + i) & 0xff */
	uint8_t p[];
};

/** match a tdata against a uint32 key */
static int
tmatch(const void *data, const void *key)
{
	return ((const struct tdata *)data)->key == *(const uint32_t *)key;
}

/** the hash of a key */
static uint32_t
thash(uint32_t k)
{
	k ^= k >> 16;
	k *= 0x7feb352du;
	k ^= k >> 15;
	k *= 0x846ca68bu;
	k ^= k >> 16;
	return k;
}

/** build a tdata in buf; @return its length */
static size_t
tmake(uint8_t *buf, uint32_t key, uint32_t version, uint32_t plen)
{
	struct tdata *d = (struct tdata *)buf;
	uint32_t i;
	d->key = key;
	d->version = version;
	d->plen = plen;
	for(i = 0; i < plen; i++)
		d->p[i] = (uint8_t)(key + version + i);
	return sizeof(*d) + plen;
}

/** @return 1 if a tdata seen by a reader is whole */
static int
tvalid(const struct tdata *d, uint32_t key)
{
	uint32_t i;
	if(d->key != key || d->plen > 4096)
		return 0;
	for(i = 0; i < d->plen; i++)
		if(d->p[i] != (uint8_t)(key + d->version + i))
			return 0;
	return 1;
}

/** insert key with a payload; @return the shmhash_insert result */
static int
tinsert(struct shmhash *t, uint32_t key, uint32_t version, uint32_t plen)
{
	uint8_t buf[sizeof(struct tdata) + 4096];
	size_t len = tmake(buf, key, version, plen);
	return shmhash_insert(t, thash(key), &key, buf, len);
}

/** look a key up */
static const struct tdata *
tlookup(struct shmhash *t, uint32_t key)
{
	return shmhash_lookup(t, thash(key), &key);
}

/** check the table, failing the test with the checker's message */
static void
tcheck(struct shmhash *t)
{
	char err[512];
	int r = shmhash_check(t, err, sizeof(err));
	ck_assert_msg(r == 0, "consistency: %s", err);
}

/** a mapping with one table */
static struct shmhash *
tsetup(void **basep, size_t slabs, size_t maxmem)
{
	size_t sz = 65536 + shmhash_space(slabs, maxmem);
	void *base = shmarena_map_create(sz);
	uint64_t off;
	struct shmhash *t;
	ck_assert_ptr_nonnull(base);
	off = shmhash_create(base, slabs, maxmem);
	ck_assert_uint_ne(off, 0);
	t = shmhash_attach(base, off, tmatch);
	ck_assert_ptr_nonnull(t);
	*basep = base;
	return t;
}

START_TEST(test_basic)
{
	void *base;
	struct shmhash *t = tsetup(&base, 4, 1 << 20);
	const struct tdata *d;
	uint32_t k;
	for(k = 1; k <= 200; k++)
		ck_assert_int_eq(tinsert(t, k, 1, k % 100), SHMHASH_INSERTED);
	ck_assert_uint_eq(shmhash_get_count(t), 200);
	for(k = 1; k <= 200; k++) {
		d = tlookup(t, k);
		ck_assert_ptr_nonnull(d);
		ck_assert(tvalid(d, k));
		ck_assert_uint_eq(d->version, 1);
	}
	ck_assert_ptr_null(tlookup(t, 1000));
	ck_assert_int_eq(tinsert(t, 7, 2, 50), SHMHASH_REPLACED);
	d = tlookup(t, 7);
	ck_assert_uint_eq(d->version, 2);
	ck_assert_uint_eq(shmhash_get_count(t), 200);
	ck_assert_int_eq(shmhash_remove(t, thash(8), &(uint32_t){8}), 1);
	ck_assert_int_eq(shmhash_remove(t, thash(8), &(uint32_t){8}), 0);
	ck_assert_ptr_null(tlookup(t, 8));
	ck_assert_uint_eq(shmhash_get_count(t), 199);
	tcheck(t);
	/* no reader registered: everything unlinked is freed at once */
	shmhash_reclaim(t);
	ck_assert_uint_eq(shmhash_get_limbo_mem(t), 0);
	shmhash_clear(t);
	ck_assert_uint_eq(shmhash_get_count(t), 0);
	tcheck(t);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

START_TEST(test_budget_growth)
{
	void *base;
	struct shmhash *t = tsetup(&base, 2, 64 * 1024);
	uint32_t k, found = 0;
	for(k = 1; k <= 5000; k++) {
		int r = tinsert(t, k, 1, 40 + k % 200);
		ck_assert_int_ne(r, SHMHASH_NOMEM);
		ck_assert_uint_le(shmhash_get_mem(t), 64 * 1024);
	}
	ck_assert_uint_lt(shmhash_get_count(t), 5000);
	ck_assert_uint_gt(shmhash_get_count(t), 100);
	for(k = 1; k <= 5000; k++) {
		const struct tdata *d = tlookup(t, k);
		if(d) {
			ck_assert(tvalid(d, k));
			found++;
		}
	}
	ck_assert_uint_eq(found, shmhash_get_count(t));
	tcheck(t);
	/* a budget cut evicts down to it */
	shmhash_set_maxmem(t, 16 * 1024);
	ck_assert_uint_le(shmhash_get_mem(t), 16 * 1024);
	tcheck(t);
	/* an entry larger than a slab's budget does not go in */
	ck_assert_int_eq(tinsert(t, 99999, 1, 4096), SHMHASH_INSERTED);
	shmhash_set_maxmem(t, 4 * 1024);
	ck_assert_int_eq(tinsert(t, 99998, 1, 4096), SHMHASH_NOMEM);
	tcheck(t);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

START_TEST(test_growth_keeps_old_array)
{
	void *base;
	struct shmhash *t = tsetup(&base, 1, 4 << 20);
	int slot = shmarena_qsbr_register(base, getpid());
	uint32_t k;
	size_t limbo;
	ck_assert_int_ge(slot, 0);
	/* an online reader that never passes a quiescent state: the
	 * retired arrays wait; growth goes on once, then waits */
	for(k = 1; k <= 2000; k++)
		ck_assert_int_eq(tinsert(t, k, 1, 8), SHMHASH_INSERTED);
	limbo = shmhash_get_limbo_mem(t);
	ck_assert_uint_gt(limbo, 0);
	for(k = 1; k <= 2000; k++)
		ck_assert_ptr_nonnull(tlookup(t, k));
	tcheck(t);
	shmarena_qsbr_quiescent(base, slot);
	shmhash_reclaim(t);
	ck_assert_uint_eq(shmhash_get_limbo_mem(t), 0);
	for(k = 2001; k <= 8000; k++)
		ck_assert_int_eq(tinsert(t, k, 1, 8), SHMHASH_INSERTED);
	shmarena_qsbr_quiescent(base, slot);
	shmhash_reclaim(t);
	for(k = 1; k <= 8000; k++)
		ck_assert_ptr_nonnull(tlookup(t, k));
	tcheck(t);
	/* a dead reader's slot released by pid */
	ck_assert_int_eq(shmarena_qsbr_release_pid(base, getpid()), 1);
	ck_assert_int_eq(shmarena_qsbr_num_readers(base), 0);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

START_TEST(test_checker_catches)
{
	/* white-box: the entry header (struct sh_entry in shmhash.c: two
	 * 8-byte links, then the 32-bit hash) is the 48 bytes before the
	 * user's bytes; break it and the checker must say so */
	void *base;
	struct shmhash *t = tsetup(&base, 1, 1 << 20);
	uint8_t *d, *hdr, save[48];
	uint64_t self;
	char err[512];
	uint32_t k;
	for(k = 1; k <= 100; k++)
		ck_assert_int_eq(tinsert(t, k, 1, 20), SHMHASH_INSERTED);
	tcheck(t);
	d = (uint8_t *)(uintptr_t)tlookup(t, 42);
	ck_assert_ptr_nonnull(d);
	hdr = d - 48;
	memcpy(save, hdr, sizeof(save));
	/* a loop: the entry links to itself */
	self = (uint64_t)(hdr - (uint8_t *)base);
	memcpy(hdr, &self, 8);
	memcpy(hdr + 8, &self, 8);
	ck_assert_int_eq(shmhash_check(t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "reachable twice") != NULL, "%s", err);
	memcpy(hdr, save, sizeof(save));
	tcheck(t);
	/* an entry in the wrong bucket */
	hdr[16] ^= 1;
	ck_assert_int_eq(shmhash_check(t, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "wrong bucket") != NULL, "%s", err);
	memcpy(hdr, save, sizeof(save));
	/* a chain cut short (an entry that has a successor loses its link):
	 * the rest is leaked */
	for(k = 1; k <= 100; k++) {
		int r;
		hdr = (uint8_t *)(uintptr_t)tlookup(t, k) - 48;
		memcpy(save, hdr, sizeof(save));
		memset(hdr, 0, 16);
		r = shmhash_check(t, err, sizeof(err));
		memcpy(hdr, save, sizeof(save));
		if(r != 0) {
			ck_assert_msg(strstr(err, "leak") != NULL ||
				strstr(err, "chains hold") != NULL, "%s", err);
			break;
		}
	}
	ck_assert_uint_le(k, 100);
	tcheck(t);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

/** rebuild callback: every USED block is referenced */
static int
all_referenced(uint64_t off, void *arg)
{
	(void)off; (void)arg;
	return 1;
}

START_TEST(test_arena_check_rebuild)
{
	void *base = shmarena_map_create(1 << 20);
	uint64_t off = shmarena_carve(base, sizeof(struct shmarena));
	uint64_t r = shmarena_carve(base, 256 * 1024), x[64];
	struct shmarena *a = (struct shmarena *)((uint8_t *)base + off);
	char err[256];
	int i;
	ck_assert_uint_ne(r, 0);
	shmarena_init(base, a, r, 256 * 1024);
	for(i = 0; i < 64; i++) {
		x[i] = shmarena_alloc(base, a, (size_t)(10 + i * 37), 1);
		ck_assert_uint_ne(x[i], 0);
		ck_assert_uint_eq(x[i] % 16, 0);
	}
	for(i = 0; i < 64; i += 2)
		shmarena_free(base, a, x[i]);
	ck_assert_int_eq(shmarena_check(base, a, NULL, err, sizeof(err)), 0);
	/* reuse from the free lists */
	ck_assert_uint_eq(shmarena_alloc(base, a, 10, 1), x[0]);
	shmarena_retire(base, a, x[1]);
	shmarena_retire_commit(base, a, 5);
	ck_assert_uint_eq(shmarena_reclaim(base, a, 4), 0);
	ck_assert_int_eq(shmarena_check(base, a, NULL, err, sizeof(err)), 0);
	ck_assert_uint_eq(shmarena_reclaim(base, a, 5), 1);
	ck_assert_int_eq(shmarena_check(base, a, NULL, err, sizeof(err)), 0);
	/* a dead process popped a free list head and never marked it */
	for(i = 0; i < SHMARENA_CLASSES; i++)
		if(a->free_head[i]) {
			uint64_t b = a->free_head[i];
			a->free_head[i] = *(uint64_t *)((uint8_t *)base + b + 8);
			break;
		}
	ck_assert_int_eq(shmarena_check(base, a, NULL, err, sizeof(err)), -1);
	ck_assert_int_eq(shmarena_rebuild(base, a, 9, all_referenced, NULL), 0);
	ck_assert_int_eq(shmarena_check(base, a, NULL, err, sizeof(err)), 0);
	/* bounded: an allocation larger than the range fails */
	ck_assert_uint_eq(shmarena_alloc(base, a, 512 * 1024, 1), 0);
	shmarena_map_delete(base);
}
END_TEST

/** number of reader/writer children */
#define NCHILD 4
/** operations per child in the concurrent test */
#define NOPS 20000
/** keys in the kill tests (with a small budget: evictions never stop) */
#define NKEYS 3000

/** child body: mixed inserts, removes, lookups; exits 0 or 1 */
static void
child_work(void *base, uint64_t off, unsigned seed, long ops, int report_fd)
{
	struct shmhash *t = shmhash_attach(base, off, tmatch);
	int slot = shmarena_qsbr_register(base, getpid());
	long i;
	if(!t || slot < 0)
		_exit(2);
	for(i = 0; ops < 0 || i < ops; i++) {
		uint32_t k;
		unsigned op;
		const struct tdata *d;
		seed = seed * 1103515245u + 12345u;
		k = 1 + (seed >> 8) % NKEYS;
		op = (seed >> 4) % 10;
		if(op < 5) {
			/* SHMHASH_NOMEM is allowed (a bounded arena) */
			(void)tinsert(t, k, (seed >> 20) & 0xff, 16 + (seed >> 3)
				% 300);
		} else if(op < 6) {
			(void)shmhash_remove(t, thash(k), &k);
		} else {
			d = tlookup(t, k);
			if(d && !tvalid(d, k))
				_exit(1);
		}
		if(i % 16 == 0)
			shmarena_qsbr_quiescent(base, slot);
		if(report_fd >= 0 && i == 200) {
			if(write(report_fd, "r", 1) != 1)
				_exit(4);
		}
	}
	shmarena_qsbr_unregister(base, slot);
	_exit(0);
}

/** a mapping with one table whose offset is root 0 */
static struct shmhash *
tsetup_root(void **basep, size_t slabs, size_t maxmem)
{
	struct shmhash *t = tsetup(basep, slabs, maxmem);
	/* tsetup's table is the first thing carved: find it again */
	shmarena_root_set(*basep, 0, shmhash_table_offset(t));
	return t;
}

/** fork a worker child; @return its pid */
static pid_t
spawn(void *base, unsigned seed, long ops, unsigned long crash_at,
	int report_fd)
{
	pid_t pid = fork();
	ck_assert_int_ne(pid, -1);
	if(pid == 0) {
		shmarena_crash_set(crash_at);
		child_work(base, shmarena_root_get(base, 0), seed, ops,
			report_fd);
	}
	return pid;
}

START_TEST(test_processes)
{
	void *base;
	struct shmhash *t = tsetup_root(&base, 4, 256 * 1024);
	pid_t pids[NCHILD];
	int i, st;
	for(i = 0; i < NCHILD; i++)
		pids[i] = spawn(base, 1000u + (unsigned)i, NOPS, 0, -1);
	for(i = 0; i < NCHILD; i++) {
		ck_assert_int_eq(waitpid(pids[i], &st, 0), pids[i]);
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
			"child %d: status %d", i, st);
	}
	ck_assert_int_eq(shmarena_qsbr_num_readers(base), 0);
	tcheck(t);
	ck_assert_uint_le(shmhash_get_mem(t), 256 * 1024);
	ck_assert_uint_eq(shmhash_get_repairs(t), 0);
	shmhash_reclaim(t);
	ck_assert_uint_eq(shmhash_get_limbo_mem(t), 0);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

/** after a child died: release its slot, recover, check, keep using */
static size_t
after_death(void *base, struct shmhash *t, pid_t pid)
{
	size_t rep;
	uint32_t k;
	(void)shmarena_qsbr_release_pid(base, pid);
	rep = shmhash_recover(t);
	tcheck(t);
	for(k = 1; k <= 50; k++)
		(void)tinsert(t, k, 7, 100);
	ck_assert_msg(tlookup(t, 50) != NULL, "readers %d safe %llu nomem %zu mem %zu limbo %zu count %zu", shmarena_qsbr_num_readers(base), (unsigned long long)shmarena_qsbr_safe_tag(base), shmhash_get_nomem(t), shmhash_get_mem(t), shmhash_get_limbo_mem(t), shmhash_get_count(t));
	for(k = 1; k <= 50; k++) {
		const struct tdata *d = tlookup(t, k);
		if(d)
			ck_assert(tvalid(d, k));
	}
	tcheck(t);
	return rep;
}

START_TEST(test_kill_crash_points)
{
	/* children kill themselves at fixed crash points inside writes:
	 * each death leaves a slab lock held and the slab dirty */
	void *base;
	struct shmhash *t = tsetup_root(&base, 2, 48 * 1024);
	unsigned long n = 1;
	size_t repairs = 0;
	int round, st;
	for(round = 0; round < 60; round++) {
		pid_t pid;
		n = n * 6364136223846793005ul + 1442695040888963407ul;
		pid = spawn(base, 77u + (unsigned)round, -1,
			1 + (n >> 33) % 4000, -1);
		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
			"round %d: child status %d", round, st);
		repairs += after_death(base, t, pid);
	}
	/* every crash point is inside a locked write */
	ck_assert_uint_eq(repairs, 60);
	ck_assert_uint_eq(shmhash_get_repairs(t), 60);
	ck_assert_int_eq(shmarena_qsbr_num_readers(base), 0);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

START_TEST(test_kill_external)
{
	/* the parent kills children running side by side, after each
	 * reported 200 operations; wherever the kill lands, the table must
	 * recover and check */
	void *base;
	struct shmhash *t = tsetup_root(&base, 4, 64 * 1024);
	int round, i, st, fds[2];
	char c;
	ck_assert_int_eq(pipe(fds), 0);
	for(round = 0; round < 15; round++) {
		pid_t pids[3];
		for(i = 0; i < 3; i++)
			pids[i] = spawn(base, 500u + (unsigned)(round * 3 + i),
				-1, 0, fds[1]);
		for(i = 0; i < 3; i++)
			ck_assert_int_eq(read(fds[0], &c, 1), 1);
		for(i = 0; i < 3; i++) {
			kill(pids[i], SIGKILL);
			ck_assert_int_eq(waitpid(pids[i], &st, 0), pids[i]);
			ck_assert(WIFSIGNALED(st));
			/* as the supervisor does when it reaps a worker */
			(void)shmarena_qsbr_release_pid(base, pids[i]);
		}
		for(i = 0; i < 3; i++)
			(void)after_death(base, t, pids[i]);
	}
	close(fds[0]);
	close(fds[1]);
	ck_assert_int_eq(shmarena_qsbr_num_readers(base), 0);
	shmhash_reclaim(t);
	ck_assert_uint_eq(shmhash_get_limbo_mem(t), 0);
	tcheck(t);
	shmhash_detach(t);
	shmarena_map_delete(base);
}
END_TEST

static Suite *
shmhash_suite(void)
{
	Suite *s = suite_create("shmhash");
	TCase *tc = tcase_create("single");
	/* generous: a loaded machine must not fail these by time */
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_budget_growth);
	tcase_add_test(tc, test_growth_keeps_old_array);
	tcase_add_test(tc, test_arena_check_rebuild);
	tcase_add_test(tc, test_checker_catches);
	suite_add_tcase(s, tc);
	tc = tcase_create("processes");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_processes);
	tcase_add_test(tc, test_kill_crash_points);
	tcase_add_test(tc, test_kill_external);
	suite_add_tcase(s, tc);
	return s;
}

int
main(int argc, char *argv[])
{
	SRunner *sr = srunner_create(shmhash_suite());
	int failed;
	if(argc > 1)
		srunner_run(sr, NULL, argv[1], CK_NORMAL);
	else	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? 0 : 1;
}
