/*
 * tests/check_slabhash.c - the slabbed hash table and QSBR reclamation.
 *
 * Single-threaded tests of insert/lookup/replace/remove, the byte budget
 * and CLOCK eviction, growth, traversal, deferred freeing, and memory
 * accounting against mallinfo2; and a multi-threaded stress test (readers
 * and writers for PETREL_STRESS_SECONDS seconds, default 1) that checks
 * every entry a reader sees is whole and never freed under it. The
 * check-tsan target runs this same program under ThreadSanitizer for 10 s.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <unistd.h>
#ifdef HAVE_MALLOC_H
#include <malloc.h>
#endif
#include "util/storage/slabhash.h"
#include "util/storage/qsbr.h"
#include "util/thread.h"

/** live pattern in a test entry */
#define T_MAGIC 0x5ab1e5u
/** pattern written into a test entry just before it is freed */
#define T_DEAD 0xdeadu

/** a test entry: key, payload filled with a byte derived from the key */
struct tentry {
	/** table part */
	struct slabhash_entry h;
	/** T_MAGIC while alive */
	_Atomic unsigned magic;
	/** the key */
	uint32_t key;
	/** version (replacement counter) */
	uint32_t version;
	/** payload length */
	size_t plen;
	/** payload: plen bytes of (key + version) & 0xff */
	unsigned char payload[];
};

/** entries deleted so far */
static _Atomic long t_deleted;

static uint32_t
t_hash(uint32_t key)
{
	return slabhash_hash_bytes(&key, sizeof(key), 0);
}

static int
t_match(const struct slabhash_entry *e, const void *key)
{
	return ((const struct tentry *)e)->key == *(const uint32_t *)key;
}

static void
t_del(struct slabhash_entry *e, void *arg)
{
	struct tentry *te = (struct tentry *)e;
	(void)arg;
	atomic_store(&te->magic, T_DEAD);
	atomic_fetch_add(&t_deleted, 1);
	free(te);
}

static struct tentry *
t_new(uint32_t key, uint32_t version, size_t plen)
{
	struct tentry *e = malloc(sizeof(*e) + plen);
	if(!e)
		return NULL;
	memset(&e->h, 0, sizeof(e->h));
	atomic_init(&e->magic, T_MAGIC);
	e->key = key;
	e->version = version;
	e->plen = plen;
	memset(e->payload, (int)((key + version) & 0xff), plen);
	e->h.hash = t_hash(key);
	e->h.mem = slabhash_malloc_size(sizeof(*e) + plen);
	return e;
}

static struct tentry *
t_get(struct slabhash *t, uint32_t key)
{
	return (struct tentry *)slabhash_lookup(t, t_hash(key), &key);
}

static int
t_put(struct slabhash *t, uint32_t key, uint32_t version, size_t plen)
{
	struct tentry *e = t_new(key, version, plen);
	ck_assert_ptr_nonnull(e);
	return slabhash_insert(t, &e->h, &key, NULL, NULL);
}

START_TEST(test_basic)
{
	struct slabhash *t = slabhash_create(4, 1 << 20, t_match, t_del, NULL);
	uint32_t k;
	ck_assert_ptr_nonnull(t);
	ck_assert_uint_eq(slabhash_get_num_slabs(t), 4);
	for(k = 0; k < 100; k++)
		ck_assert_int_eq(t_put(t, k, 0, 10), SLABHASH_INSERTED);
	ck_assert_uint_eq(slabhash_get_count(t), 100);
	for(k = 0; k < 100; k++) {
		struct tentry *e = t_get(t, k);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->key, k);
	}
	k = 100;
	ck_assert_ptr_null(t_get(t, k));
	/* replace */
	ck_assert_int_eq(t_put(t, 7, 1, 10), SLABHASH_REPLACED);
	ck_assert_uint_eq(t_get(t, 7)->version, 1);
	ck_assert_uint_eq(slabhash_get_count(t), 100);
	/* remove */
	k = 7;
	ck_assert_int_eq(slabhash_remove(t, t_hash(k), &k), 1);
	ck_assert_int_eq(slabhash_remove(t, t_hash(k), &k), 0);
	ck_assert_ptr_null(t_get(t, 7));
	ck_assert_uint_eq(slabhash_get_count(t), 99);
	slabhash_clear(t);
	ck_assert_uint_eq(slabhash_get_count(t), 0);
	ck_assert_ptr_null(t_get(t, 8));
	slabhash_delete(t);
}
END_TEST

/* prefetch is a hint: on absent and present keys, both stages, through
 * growth, it finds and changes nothing (not even the CLOCK bits) */
START_TEST(test_prefetch_hint)
{
	struct slabhash *t = slabhash_create(4, 1 << 22, t_match, t_del, NULL);
	uint32_t k;
	unsigned char refs[1000];
	int stage;
	for(stage = 0; stage < 2; stage++)
		for(k = 0; k < 100; k++)
			slabhash_prefetch(t, t_hash(k), stage);
	for(k = 0; k < 1000; k++)
		ck_assert_int_eq(t_put(t, k, 0, 10), SLABHASH_INSERTED);
	for(k = 0; k < 1000; k++)
		refs[k] = atomic_load(&t_get(t, k)->h.ref);
	for(stage = 0; stage < 2; stage++)
		for(k = 0; k < 2000; k++)
			slabhash_prefetch(t, t_hash(k), stage);
	ck_assert_uint_eq(slabhash_get_count(t), 1000);
	for(k = 0; k < 1000; k++) {
		struct tentry *e = (struct tentry *)slabhash_lookup(t,
			t_hash(k), &k);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(atomic_load(&e->h.ref), refs[k]);
	}
	for(k = 1000; k < 2000; k++)
		ck_assert_ptr_null(t_get(t, k));
	slabhash_delete(t);
}
END_TEST

/** decide: keep the older entry when its version is higher */
static int
t_decide(const struct slabhash_entry *old, struct slabhash_entry *e,
	void *arg)
{
	(void)arg;
	return ((const struct tentry *)e)->version >=
		((const struct tentry *)old)->version;
}

START_TEST(test_decide)
{
	struct slabhash *t = slabhash_create(1, 1 << 20, t_match, t_del, NULL);
	struct tentry *e;
	uint32_t k = 5;
	long before;
	e = t_new(k, 5, 8);
	ck_assert_int_eq(slabhash_insert(t, &e->h, &k, t_decide, NULL),
		SLABHASH_INSERTED);
	before = atomic_load(&t_deleted);
	e = t_new(k, 3, 8);
	ck_assert_int_eq(slabhash_insert(t, &e->h, &k, t_decide, NULL),
		SLABHASH_KEPT);
	ck_assert_int_eq(atomic_load(&t_deleted), before + 1);
	ck_assert_uint_eq(t_get(t, k)->version, 5);
	e = t_new(k, 9, 8);
	ck_assert_int_eq(slabhash_insert(t, &e->h, &k, t_decide, NULL),
		SLABHASH_REPLACED);
	ck_assert_uint_eq(t_get(t, k)->version, 9);
	slabhash_delete(t);
}
END_TEST

START_TEST(test_budget)
{
	size_t budget = 64 * 1024;
	struct slabhash *t = slabhash_create(4, budget, t_match, t_del, NULL);
	uint32_t k;
	for(k = 0; k < 20000; k++) {
		t_put(t, k, 0, 50 + (k % 200));
		ck_assert_uint_le(slabhash_get_mem(t), budget);
	}
	/* the table is full-ish, not emptied by over-eager eviction */
	ck_assert_uint_ge(slabhash_get_mem(t), budget / 2);
	ck_assert_uint_gt(slabhash_get_count(t), 100);
	/* the most recent entry is present */
	ck_assert_ptr_nonnull(t_get(t, 19999));
	/* shrink the budget */
	slabhash_set_maxmem(t, budget / 4);
	ck_assert_uint_le(slabhash_get_mem(t), budget / 4);
	slabhash_delete(t);
}
END_TEST

START_TEST(test_clock)
{
	/* one slab, room for about 100 entries; 10 hot entries looked up
	 * after every insert must survive 2000 cold inserts */
	size_t per = slabhash_malloc_size(sizeof(struct tentry) + 64);
	struct slabhash *t = slabhash_create(1, 100 * per + 4096, t_match,
		t_del, NULL);
	uint32_t k, h;
	for(k = 0; k < 2000; k++) {
		t_put(t, k, 0, 64);
		for(h = 0; h < 10 && h <= k; h++)
			ck_assert_ptr_nonnull(t_get(t, h));
	}
	for(h = 0; h < 10; h++)
		ck_assert_ptr_nonnull(t_get(t, h));
	/* cold early entries were evicted */
	ck_assert_ptr_null(t_get(t, 500));
	slabhash_delete(t);
}
END_TEST

START_TEST(test_growth)
{
	struct slabhash *t = slabhash_create(2, (size_t)64 << 20, t_match,
		t_del, NULL);
	uint32_t k;
	for(k = 0; k < 50000; k++)
		t_put(t, k, 0, 4);
	ck_assert_uint_eq(slabhash_get_count(t), 50000);
	ck_assert_uint_ge(slabhash_get_num_buckets(t), 50000);
	for(k = 0; k < 50000; k++) {
		struct tentry *e = t_get(t, k);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->key, k);
	}
	slabhash_delete(t);
}
END_TEST

static void
t_count_fn(const struct slabhash_entry *e, void *arg)
{
	(void)e;
	(*(size_t *)arg)++;
}

static int
t_even(const struct slabhash_entry *e, void *arg)
{
	(void)arg;
	return ((const struct tentry *)e)->key % 2 == 0;
}

START_TEST(test_traverse_remove_if)
{
	struct slabhash *t = slabhash_create(8, 1 << 22, t_match, t_del, NULL);
	uint32_t k;
	size_t n = 0;
	for(k = 0; k < 1000; k++)
		t_put(t, k, 0, 4);
	slabhash_traverse(t, t_count_fn, &n);
	ck_assert_uint_eq(n, 1000);
	ck_assert_uint_eq(slabhash_remove_if(t, t_even, NULL), 500);
	n = 0;
	slabhash_traverse(t, t_count_fn, &n);
	ck_assert_uint_eq(n, 500);
	ck_assert_ptr_null(t_get(t, 2));
	ck_assert_ptr_nonnull(t_get(t, 3));
	slabhash_delete(t);
}
END_TEST

START_TEST(test_qsbr_defer)
{
	struct slabhash *t = slabhash_create(1, 1 << 20, t_match, t_del, NULL);
	struct qsbr_reader *r;
	struct tentry *e;
	uint32_t k = 42;
	long before;
	t_put(t, k, 0, 16);
	r = qsbr_register();
	ck_assert_ptr_nonnull(r);
	ck_assert(qsbr_is_online(r));
	e = t_get(t, k);
	ck_assert_ptr_nonnull(e);
	before = atomic_load(&t_deleted);
	/* replace while this online reader holds e: e must not be freed */
	t_put(t, k, 1, 16);
	ck_assert_int_eq(atomic_load(&t_deleted), before);
	ck_assert_uint_eq(atomic_load(&e->magic), T_MAGIC);
	ck_assert_uint_gt(slabhash_get_limbo_mem(t), 0);
	slabhash_reclaim(t);
	ck_assert_int_eq(atomic_load(&t_deleted), before);
	/* quiescent: now it can go */
	qsbr_quiescent(r);
	slabhash_reclaim(t);
	ck_assert_int_eq(atomic_load(&t_deleted), before + 1);
	ck_assert_uint_eq(slabhash_get_limbo_mem(t), 0);
	/* offline: frees are immediate */
	qsbr_offline(r);
	ck_assert(!qsbr_is_online(r));
	t_put(t, k, 2, 16);
	ck_assert_int_eq(atomic_load(&t_deleted), before + 2);
	qsbr_online(r);
	e = t_get(t, k);
	ck_assert_uint_eq(e->version, 2);
	qsbr_unregister(r);
	slabhash_delete(t);
}
END_TEST

START_TEST(test_qsbr_fork_reset)
{
	/* a reader slot inherited over fork() must not hold back frees */
	struct slabhash *t = slabhash_create(1, 1 << 20, t_match, t_del, NULL);
	struct qsbr_reader *r;
	uint32_t k = 1;
	long before;
	t_put(t, k, 0, 16);
	r = qsbr_register();
	ck_assert_ptr_nonnull(r);
	ck_assert_int_ge(qsbr_num_readers(), 1);
	before = atomic_load(&t_deleted);
	t_put(t, k, 1, 16);
	ck_assert_int_eq(atomic_load(&t_deleted), before);
	qsbr_reset_after_fork();
	ck_assert_int_eq(qsbr_num_readers(), 0);
	slabhash_reclaim(t);
	ck_assert_int_eq(atomic_load(&t_deleted), before + 1);
	slabhash_delete(t);
}
END_TEST

/* (ASan's allocator does not report through mallinfo2) */
#if defined(HAVE_MALLINFO2) && !defined(PETREL_SANITIZERS)
START_TEST(test_mallinfo)
{
	/* memory accounting agrees with what malloc reports, within 10% */
	struct mallinfo2 m0, m1;
	struct slabhash *t;
	size_t budget = 8 << 20, used, counted;
	uint32_t k;
	m0 = mallinfo2();
	t = slabhash_create(16, budget, t_match, t_del, NULL);
	for(k = 0; k < 200000; k++)
		t_put(t, k, 0, 20 + (k * 7) % 300);
	m1 = mallinfo2();
	used = m1.uordblks - m0.uordblks;
	counted = slabhash_get_mem(t) + slabhash_get_limbo_mem(t) +
		slabhash_overhead(t);
	ck_assert_uint_le(counted, budget + slabhash_overhead(t));
	ck_assert_msg(counted * 10 >= used * 9 && counted * 10 <= used * 11,
		"counted %zu, malloc says %zu", counted, used);
	slabhash_delete(t);
}
END_TEST
#endif

/* ---------------- concurrent stress ---------------- */
#ifdef PETREL_HAVE_THREADS

/** keys in the stress test */
#define S_KEYS 4096
/** the shared table */
static struct slabhash *s_table;
/** stop flag */
static atomic_int s_stop;
/** errors seen by the threads */
static atomic_int s_errors;
/** reads done */
static _Atomic long s_reads, s_hits, s_writes;

static void *
s_reader(void *arg)
{
	struct qsbr_reader *r = qsbr_register();
	uint32_t x = (uint32_t)(uintptr_t)arg * 2654435761u + 1;
	long n = 0, hits = 0;
	if(!r) {
		atomic_fetch_add(&s_errors, 1);
		return NULL;
	}
	while(!atomic_load_explicit(&s_stop, memory_order_relaxed)) {
		uint32_t key;
		struct tentry *e;
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		key = x % S_KEYS;
		e = t_get(s_table, key);
		if(e) {
			size_t i;
			unsigned char want = (unsigned char)(e->key +
				e->version);
			hits++;
			if(atomic_load(&e->magic) != T_MAGIC || e->key != key)
				atomic_fetch_add(&s_errors, 1);
			for(i = 0; i < e->plen; i++)
				if(e->payload[i] != want) {
					atomic_fetch_add(&s_errors, 1);
					break;
				}
		}
		if(++n % 64 == 0)
			qsbr_quiescent(r);
		if(n % 4096 == 0) {
			/* as the event loop does around a blocking wait */
			qsbr_offline(r);
			qsbr_online(r);
		}
	}
	atomic_fetch_add(&s_reads, n);
	atomic_fetch_add(&s_hits, hits);
	qsbr_unregister(r);
	return NULL;
}

static void *
s_writer(void *arg)
{
	uint32_t x = (uint32_t)(uintptr_t)arg * 40503u + 7;
	long n = 0;
	while(!atomic_load_explicit(&s_stop, memory_order_relaxed)) {
		uint32_t key;
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		key = x % S_KEYS;
		if(x % 16 == 0) {
			slabhash_remove(s_table, t_hash(key), &key);
		} else {
			struct tentry *e = t_new(key, x >> 8, 16 + x % 200);
			if(!e) {
				atomic_fetch_add(&s_errors, 1);
				break;
			}
			slabhash_insert(s_table, &e->h, &key, NULL, NULL);
		}
		n++;
	}
	atomic_fetch_add(&s_writes, n);
	return NULL;
}

/** readers of the growth test: every permanent key must always be found */
static void *
g_reader(void *arg)
{
	struct qsbr_reader *r = qsbr_register();
	uint32_t x = (uint32_t)(uintptr_t)arg * 2654435761u + 3;
	long n = 0;
	(void)arg;
	if(!r) {
		atomic_fetch_add(&s_errors, 1);
		return NULL;
	}
	while(!atomic_load_explicit(&s_stop, memory_order_relaxed)) {
		uint32_t key;
		x ^= x << 13; x ^= x >> 17; x ^= x << 5;
		key = x % 1000;
		if(!t_get(s_table, key))
			atomic_fetch_add(&s_errors, 1);
		if(++n % 64 == 0)
			qsbr_quiescent(r);
	}
	atomic_fetch_add(&s_reads, n);
	qsbr_unregister(r);
	return NULL;
}

/** the writer of the growth test: many new keys, the table keeps growing */
static void *
g_writer(void *arg)
{
	uint32_t k;
	(void)arg;
	for(k = 1000; k < 150000 &&
		!atomic_load_explicit(&s_stop, memory_order_relaxed); k++)
		t_put(s_table, k, 0, 8);
	atomic_store(&s_writes, (long)k);
	return NULL;
}

START_TEST(test_growth_concurrent)
{
	/* growth relinks chains under the readers' feet: a reader must
	 * never miss a key that is in the table all along */
	thread_type th[3];
	uint32_t k;
	int i;
	s_table = slabhash_create(2, (size_t)1 << 30, t_match, t_del, NULL);
	ck_assert_ptr_nonnull(s_table);
	for(k = 0; k < 1000; k++)
		t_put(s_table, k, 0, 8);
	atomic_store(&s_stop, 0);
	atomic_store(&s_errors, 0);
	atomic_store(&s_reads, 0);
	for(i = 0; i < 2; i++)
		ck_assert_int_eq(thread_create(&th[i], g_reader,
			(void *)(uintptr_t)(i + 1)), 0);
	ck_assert_int_eq(thread_create(&th[2], g_writer, NULL), 0);
	ck_assert_int_eq(thread_join(th[2]), 0);
	atomic_store(&s_stop, 1);
	for(i = 0; i < 2; i++)
		ck_assert_int_eq(thread_join(th[i]), 0);
	ck_assert_int_gt(atomic_load(&s_reads), 0);
	ck_assert_int_eq(atomic_load(&s_errors), 0);
	/* the table did grow while the readers ran (from 2 x 16 buckets) */
	ck_assert_uint_ge(slabhash_get_num_buckets(s_table) * 4,
		slabhash_get_count(s_table));
	slabhash_delete(s_table);
}
END_TEST

START_TEST(test_concurrent)
{
	thread_type th[8];
	int nreaders, nwriters, i, seconds = 1;
	const char *env = getenv("PETREL_STRESS_SECONDS");
	const char *envt = getenv("PETREL_STRESS_THREADS");
	int total = 4;
	if(env)
		seconds = atoi(env);
	if(envt)
		total = atoi(envt);
	if(total < 2)
		total = 2;
	if(total > 8)
		total = 8;
	nwriters = total / 2;
	nreaders = total - nwriters;
	/* small budget: constant eviction; few buckets: constant growth
	 * early on */
	s_table = slabhash_create(4, 256 * 1024, t_match, t_del, NULL);
	ck_assert_ptr_nonnull(s_table);
	atomic_store(&s_stop, 0);
	for(i = 0; i < nreaders; i++)
		ck_assert_int_eq(thread_create(&th[i], s_reader,
			(void *)(uintptr_t)(i + 1)), 0);
	for(i = 0; i < nwriters; i++)
		ck_assert_int_eq(thread_create(&th[nreaders + i], s_writer,
			(void *)(uintptr_t)(i + 1)), 0);
	sleep((unsigned)seconds);
	atomic_store(&s_stop, 1);
	for(i = 0; i < nreaders + nwriters; i++)
		ck_assert_int_eq(thread_join(th[i]), 0);
	ck_assert_int_eq(atomic_load(&s_errors), 0);
	ck_assert_int_gt(atomic_load(&s_reads), 0);
	ck_assert_int_gt(atomic_load(&s_hits), 0);
	ck_assert_int_gt(atomic_load(&s_writes), 0);
	ck_assert_uint_le(slabhash_get_mem(s_table), 256 * 1024);
	/* every reader is gone: the limbo drains */
	slabhash_reclaim(s_table);
	ck_assert_uint_eq(slabhash_get_limbo_mem(s_table), 0);
	printf("slabhash stress: %d readers %d writers %ds: %ld reads "
		"(%ld hits), %ld writes\n", nreaders, nwriters, seconds,
		(long)atomic_load(&s_reads), (long)atomic_load(&s_hits),
		(long)atomic_load(&s_writes));
	slabhash_delete(s_table);
}
END_TEST
#endif /* PETREL_HAVE_THREADS */

static Suite *
slabhash_suite(void)
{
	Suite *s = suite_create("slabhash");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_basic);
	tcase_add_test(tc, test_prefetch_hint);
	tcase_add_test(tc, test_decide);
	tcase_add_test(tc, test_budget);
	tcase_add_test(tc, test_clock);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_traverse_remove_if);
	tcase_add_test(tc, test_qsbr_defer);
	tcase_add_test(tc, test_qsbr_fork_reset);
#if defined(HAVE_MALLINFO2) && !defined(PETREL_SANITIZERS)
	tcase_add_test(tc, test_mallinfo);
#endif
	suite_add_tcase(s, tc);
#ifdef PETREL_HAVE_THREADS
	/* without a thread library there is nothing concurrent to test */
	tc = tcase_create("concurrent");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_concurrent);
	tcase_add_test(tc, test_growth_concurrent);
	suite_add_tcase(s, tc);
#endif
	return s;
}

int
main(int argc, char *argv[])
{
	SRunner *sr = srunner_create(slabhash_suite());
	int failed;
	/* "concurrent" alone runs only the stress test (check-tsan) */
	if(argc > 1)
		srunner_run(sr, NULL, argv[1], CK_NORMAL);
	else	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
