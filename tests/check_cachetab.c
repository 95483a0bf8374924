/*
 * tests/check_cachetab.c - the one interface on the caches' two tables
 * (util/storage/cachetab.h).
 *
 * One script of operations (insert, replace, the insert policy, lookup,
 * remove, remove-if, traverse, the figures, a smaller budget, clear,
 * reclaim) runs through the interface on a per-process table and on a
 * shared one. Every step asserts what it must return, and each run writes
 * down what it saw; the two transcripts must be the same. So a backend
 * whose dispatch is wrong (an operation that goes nowhere, a callback
 * given the header instead of the entry's bytes) fails here, whichever
 * of the two it is. Then what only one kind does: the shared table
 * refuses an entry larger than its slab and counts it, the local one
 * answers 0 for the shared-only figures.
 */
#include "config.h"
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include "util/storage/cachetab.h"
#include "util/storage/shmarena.h"
#include "util/storage/shmhash.h"

/** a test entry: key, version, what the insert policy saw, payload */
struct tent {
	/** the key */
	uint32_t key;
	/** version */
	uint32_t version;
	/** set by the insert policy: the version it replaced (0: none) */
	uint32_t replaced;
	/** payload length */
	uint32_t plen;
	/** payload: (key + i) & 0xff */
	uint8_t p[];
};

/** match a tent against a uint32 key (its first field) */
static int
tmatch(const void *data, const void *key)
{
	return memcmp(data, key, sizeof(uint32_t)) == 0;
}

CACHETAB_TYPE(ttype, tmatch);

/** the hash of a key: Fibonacci hashing, so that the top bits (the
 * slab) and the low bits (the bucket) both vary */
static uint32_t
thash(uint32_t k)
{
	uint32_t h = k * 0x9e3779b1u;
	return h ^ (h >> 15);
}

/** the insert policy: keep a newer entry; note what is replaced; arg
 * counts the calls */
static int
tdecide(const void *old, void *data, void *arg)
{
	const struct tent *o = old;
	struct tent *e = data;
	(*(int *)arg)++;
	if(e->version < o->version)
		return 0;
	e->replaced = o->version;
	return 1;
}

/** remove-if: even keys */
static int
tpred_even(const void *data, void *arg)
{
	(void)arg;
	return (((const struct tent *)data)->key & 1) == 0;
}

/** traversal state */
struct twalk {
	/** entries seen */
	size_t n;
	/** sum of their keys */
	uint64_t keysum;
	/** entries whose payload was not whole */
	size_t bad;
};

/** traversal: count, sum, check the payload */
static void
twalk_fn(const void *data, void *arg)
{
	const struct tent *e = data;
	struct twalk *w = arg;
	uint32_t i;
	w->n++;
	w->keysum += e->key;
	for(i = 0; i < e->plen; i++)
		if(e->p[i] != (uint8_t)(e->key + i))
			w->bad++;
}

/** insert key with a payload; @return the insert's result */
static int
tput(struct cachetab *t, uint32_t key, uint32_t version, uint32_t plen,
	cachetab_decide_func decide, void *arg)
{
	size_t len = sizeof(struct tent) + plen;
	struct tent *e = cachetab_alloc(t, len);
	uint32_t i;
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq((uintptr_t)e % 16, 0);
	e->key = key;
	e->version = version;
	e->plen = plen;
	for(i = 0; i < plen; i++)
		e->p[i] = (uint8_t)(key + i);
	return cachetab_insert(t, thash(key), &key, e, len, decide, arg);
}

/** look a key up (after the two prefetch stages a receiver runs) */
static const struct tent *
tget(struct cachetab *t, uint32_t key)
{
	cachetab_prefetch(t, thash(key), 0);
	cachetab_prefetch(t, thash(key), 1);
	return cachetab_lookup(t, thash(key), &key);
}

/** a transcript of what one run saw */
struct trec {
	/** the values */
	long v[64];
	/** how many */
	size_t n;
};

/** write a value down */
static void
rec(struct trec *r, long v)
{
	ck_assert_uint_lt(r->n, sizeof(r->v) / sizeof(r->v[0]));
	r->v[r->n++] = v;
}

/** the budget of the script's tables */
#define TMAXMEM (1024 * 1024)

/** @return one of the table's figures (by its offset in the struct) */
static size_t
fig(struct cachetab *t, size_t which)
{
	struct cachetab_figures f;
	memset(&f, 0xff, sizeof(f));
	cachetab_figures(t, &f);
	return *(size_t *)(void *)((char *)&f + which);
}

/** the live entries */
#define COUNT(t) fig(t, offsetof(struct cachetab_figures, count))
/** the bytes in use */
#define MEM(t) fig(t, offsetof(struct cachetab_figures, mem))
/** the byte budget */
#define MAXMEM(t) fig(t, offsetof(struct cachetab_figures, maxmem))
/** the bytes in limbo */
#define LIMBO(t) fig(t, offsetof(struct cachetab_figures, limbo_mem))
/** the refused inserts */
#define NOMEM(t) fig(t, offsetof(struct cachetab_figures, nomem))
/** the repaired slabs */
#define REPAIRS(t) fig(t, offsetof(struct cachetab_figures, repairs))

/** the script: run on t, assert each step, write down what it saw */
static void
script(struct cachetab *t, struct trec *r)
{
	const struct tent *e;
	struct twalk w;
	int calls = 0, res;
	uint32_t k;
	size_t mem_full, n;

	/* insert 1..100, each once */
	for(k = 1; k <= 100; k++) {
		res = tput(t, k, 1, k % 40, NULL, NULL);
		ck_assert_int_eq(res, CACHETAB_INSERTED);
	}
	rec(r, (long)COUNT(t));
	ck_assert_uint_eq(COUNT(t), 100);
	for(k = 1; k <= 100; k++) {
		e = tget(t, k);
		ck_assert_ptr_nonnull(e);
		ck_assert_uint_eq(e->key, k);
		ck_assert_uint_eq(e->plen, k % 40);
	}
	k = 1000;
	ck_assert_ptr_null(tget(t, k));

	/* replace without a policy */
	res = tput(t, 5, 2, 3, NULL, NULL);
	rec(r, res);
	ck_assert_int_eq(res, CACHETAB_REPLACED);
	e = tget(t, 5);
	ck_assert_ptr_nonnull(e);
	rec(r, e->version);
	ck_assert_uint_eq(e->version, 2);

	/* the policy: an older version is kept out, a newer goes in and
	 * sees the one it replaces; a new key does not ask it */
	res = tput(t, 5, 1, 3, tdecide, &calls);
	rec(r, res);
	ck_assert_int_eq(res, CACHETAB_KEPT);
	ck_assert_uint_eq(tget(t, 5)->version, 2);
	res = tput(t, 5, 7, 3, tdecide, &calls);
	rec(r, res);
	ck_assert_int_eq(res, CACHETAB_REPLACED);
	e = tget(t, 5);
	rec(r, e->version);
	rec(r, e->replaced);
	ck_assert_uint_eq(e->version, 7);
	ck_assert_uint_eq(e->replaced, 2);
	res = tput(t, 101, 1, 0, tdecide, &calls);
	rec(r, res);
	ck_assert_int_eq(res, CACHETAB_INSERTED);
	rec(r, calls);
	ck_assert_int_eq(calls, 2);
	rec(r, (long)COUNT(t));
	ck_assert_uint_eq(COUNT(t), 101);

	/* remove */
	k = 7;
	res = cachetab_remove(t, thash(k), &k);
	rec(r, res);
	ck_assert_int_eq(res, 1);
	res = cachetab_remove(t, thash(k), &k);
	rec(r, res);
	ck_assert_int_eq(res, 0);
	ck_assert_ptr_null(tget(t, 7));
	rec(r, (long)COUNT(t));
	ck_assert_uint_eq(COUNT(t), 100);

	/* traverse: 1..101 less 7 */
	memset(&w, 0, sizeof(w));
	cachetab_traverse(t, twalk_fn, &w);
	rec(r, (long)w.n);
	rec(r, (long)w.keysum);
	rec(r, (long)w.bad);
	ck_assert_uint_eq(w.n, 100);
	ck_assert_uint_eq(w.keysum, 101 * 102 / 2 - 7);
	ck_assert_uint_eq(w.bad, 0);

	/* remove-if: the 50 even keys of 1..101 */
	n = cachetab_remove_if(t, tpred_even, NULL);
	rec(r, (long)n);
	ck_assert_uint_eq(n, 50);
	rec(r, (long)COUNT(t));
	ck_assert_uint_eq(COUNT(t), 50);
	ck_assert_ptr_null(tget(t, 2));
	ck_assert_ptr_nonnull(tget(t, 3));
	ck_assert_ptr_nonnull(tget(t, 5));
	memset(&w, 0, sizeof(w));
	cachetab_traverse(t, twalk_fn, &w);
	rec(r, (long)w.n);
	rec(r, (long)w.keysum);
	ck_assert_uint_eq(w.n, 50);
	ck_assert_uint_eq(w.keysum, 51 * 51 - 7); /* odd keys 1..101 */

	/* the figures */
	rec(r, (long)MAXMEM(t));
	ck_assert_uint_eq(MAXMEM(t), TMAXMEM);
	mem_full = MEM(t);
	ck_assert_uint_gt(mem_full, 50 * sizeof(struct tent));
	ck_assert_uint_le(mem_full, TMAXMEM);
	rec(r, (long)REPAIRS(t));
	rec(r, (long)NOMEM(t));
	ck_assert_uint_eq(REPAIRS(t), 0);
	ck_assert_uint_eq(NOMEM(t), 0);
	/* no reader holds back the grace period: reclaim drains it */
	cachetab_reclaim(t);
	rec(r, (long)LIMBO(t));
	ck_assert_uint_eq(LIMBO(t), 0);

	/* a buffer dropped unused (a leak or a bad free shows in ASan) */
	cachetab_free_new(t, cachetab_alloc(t, 100));
	cachetab_free_new(t, NULL);

	/* a smaller budget evicts (how much depends on the kind's byte
	 * counts: only the direction is written down) */
	cachetab_set_maxmem(t, TMAXMEM / 64);
	rec(r, (long)MAXMEM(t));
	ck_assert_uint_eq(MAXMEM(t), TMAXMEM / 64);
	for(k = 200; k < 600; k++)
		(void)tput(t, k, 1, 64, NULL, NULL);
	rec(r, COUNT(t) < 450);
	ck_assert_uint_lt(COUNT(t), 450);
	ck_assert_uint_le(MEM(t), TMAXMEM / 64);

	/* clear */
	cachetab_clear(t);
	rec(r, (long)COUNT(t));
	ck_assert_uint_eq(COUNT(t), 0);
	ck_assert_ptr_null(tget(t, 5));
	ck_assert_ptr_null(tget(t, 599));
	cachetab_reclaim(t);
	rec(r, (long)LIMBO(t));
	ck_assert_uint_eq(LIMBO(t), 0);
	/* and usable again */
	res = tput(t, 5, 1, 0, NULL, NULL);
	rec(r, res);
	ck_assert_int_eq(res, CACHETAB_INSERTED);
}

/** a shared table in a fresh mapping (goes with the test's process) */
static void
shared_setup(struct cachetab *t, size_t slabs, size_t maxmem)
{
	void *base = shmarena_map_create(65536 + shmhash_space(slabs,
		maxmem));
	uint64_t off;
	ck_assert_ptr_nonnull(base);
	off = shmhash_create(base, slabs, maxmem);
	ck_assert_uint_ne(off, 0);
	ck_assert_int_eq(cachetab_init(t, &ttype, 0, 0, base, off), 0);
}

START_TEST(test_same_script)
{
	struct cachetab local, shared;
	struct trec rl, rs;
	size_t i;
	memset(&rl, 0, sizeof(rl));
	memset(&rs, 0, sizeof(rs));
	/* the one-stop set-up: the kind follows from the mapping */
	ck_assert_int_eq(cachetab_init(&local, &ttype, 4, TMAXMEM, NULL, 0),
		0);
	shared_setup(&shared, 4, TMAXMEM);
	ck_assert_str_eq(local.ops->name, "local");
	ck_assert_str_eq(shared.ops->name, "shared");
	ck_assert_ptr_nonnull(cachetab_local_table(&local));
	ck_assert_ptr_null(cachetab_shared_table(&local));
	ck_assert_ptr_nonnull(cachetab_shared_table(&shared));
	ck_assert_ptr_null(cachetab_local_table(&shared));
	script(&local, &rl);
	script(&shared, &rs);
	ck_assert_uint_eq(rl.n, rs.n);
	for(i = 0; i < rl.n; i++)
		ck_assert_msg(rl.v[i] == rs.v[i], "step %zu: local %ld, "
			"shared %ld", i, rl.v[i], rs.v[i]);
	cachetab_destroy(&local);
	cachetab_destroy(&shared);
	/* twice is harmless */
	cachetab_destroy(&local);
}
END_TEST

START_TEST(test_too_large)
{
	/* an entry larger than a slab's budget: the shared table refuses
	 * it and counts it, the local one takes it and evicts it at once;
	 * neither keeps it, and the interface reports each as it is */
	struct cachetab local, shared;
	int r;
	ck_assert_int_eq(cachetab_init_local(&local, &ttype, 1, 4096), 0);
	shared_setup(&shared, 1, 4096);
	r = tput(&shared, 9, 1, 8192, NULL, NULL);
	ck_assert_int_eq(r, CACHETAB_NOMEM);
	ck_assert_uint_eq(NOMEM(&shared), 1);
	ck_assert_ptr_null(tget(&shared, 9));
	r = tput(&local, 9, 1, 8192, NULL, NULL);
	ck_assert_int_eq(r, CACHETAB_INSERTED);
	ck_assert_uint_eq(NOMEM(&local), 0);
	ck_assert_ptr_null(tget(&local, 9));
	ck_assert_uint_eq(COUNT(&local), 0);
	cachetab_destroy(&local);
	cachetab_destroy(&shared);
}
END_TEST

START_TEST(test_entry_mem)
{
	/* a local entry costs its bytes, the header and malloc's share */
	struct cachetab t;
	uint32_t k = 1;
	ck_assert_uint_eq(cachetab_local_entry_mem(100),
		slabhash_malloc_size(CACHETAB_LOCAL_HDR + 100));
	ck_assert_uint_ge(CACHETAB_LOCAL_HDR, sizeof(struct slabhash_entry));
	ck_assert_uint_eq(CACHETAB_LOCAL_HDR % 16, 0);
	ck_assert_int_eq(cachetab_init_local(&t, &ttype, 1, TMAXMEM), 0);
	{
		size_t before = MEM(&t);
		ck_assert_int_eq(tput(&t, k, 1, 100, NULL, NULL),
			CACHETAB_INSERTED);
		ck_assert_uint_eq(MEM(&t) - before,
			cachetab_local_entry_mem(sizeof(struct tent) + 100));
	}
	cachetab_destroy(&t);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("cachetab");
	TCase *tc = tcase_create("core");
	SRunner *sr;
	int failed;
	tcase_add_test(tc, test_same_script);
	tcase_add_test(tc, test_too_large);
	tcase_add_test(tc, test_entry_mem);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
