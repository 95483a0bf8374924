/*
 * util/netevent/timer_heap.c - the timer min-heap of the select and
 * io_uring backends (see timer_heap.h for the ordering rules).
 */
#include "config.h"
#include "util/netevent/timer_heap.h"
#include "util/log.h"
#include <stdlib.h>

/** heap order: a before b? */
static int
th_less(const struct nev_theap_timer *a, const struct nev_theap_timer *b)
{
	if(a->when.tv_sec != b->when.tv_sec)
		return a->when.tv_sec < b->when.tv_sec;
	if(a->when.tv_usec != b->when.tv_usec)
		return a->when.tv_usec < b->when.tv_usec;
	return a->seq < b->seq;
}

/** put t at index i and record it */
static void
th_place(struct nev_theap *h, int i, struct nev_theap_timer *t)
{
	h->heap[i] = t;
	t->idx = i;
}

/** move the timer at i towards the root */
static void
th_up(struct nev_theap *h, int i)
{
	struct nev_theap_timer *t = h->heap[i];
	while(i > 0) {
		int p = (i - 1) / 2;
		if(!th_less(t, h->heap[p]))
			break;
		th_place(h, i, h->heap[p]);
		i = p;
	}
	th_place(h, i, t);
}

/** move the timer at i towards the leaves */
static void
th_down(struct nev_theap *h, int i)
{
	struct nev_theap_timer *t = h->heap[i];
	for(;;) {
		int c = 2 * i + 1;
		if(c >= h->num)
			break;
		if(c + 1 < h->num && th_less(h->heap[c + 1], h->heap[c]))
			c++;
		if(!th_less(h->heap[c], t))
			break;
		th_place(h, i, h->heap[c]);
		i = c;
	}
	th_place(h, i, t);
}

struct nev_theap_timer *
nev_theap_timer_new(const char *who, nev_timer_cb_type cb, void *arg)
{
	struct nev_theap_timer *t = calloc(1, sizeof(*t));
	if(!t) {
		log_err("%s backend: out of memory", who);
		return NULL;
	}
	t->idx = -1;
	t->cb = cb;
	t->arg = arg;
	return t;
}

void
nev_theap_remove(struct nev_theap *h, struct nev_theap_timer *t)
{
	int i = t->idx;
	struct nev_theap_timer *last;
	if(i < 0)
		return;
	t->idx = -1;
	last = h->heap[--h->num];
	if(i == h->num)
		return;
	th_place(h, i, last);
	if(i > 0 && th_less(last, h->heap[(i - 1) / 2]))
		th_up(h, i);
	else	th_down(h, i);
}

int
nev_theap_set(struct nev_theap *h, struct nev_theap_timer *t,
	const struct timeval *now, const struct timeval *rel)
{
	nev_theap_remove(h, t);
	if(h->num == h->cap) {
		int ncap = h->cap ? h->cap * 2 : 64;
		struct nev_theap_timer **n = realloc(h->heap,
			sizeof(*n) * (size_t)ncap);
		if(!n) {
			log_err("timer heap: out of memory");
			return -1;
		}
		h->heap = n;
		h->cap = ncap;
	}
	timeradd(now, rel, &t->when);
	t->seq = h->seq++;
	th_place(h, h->num++, t);
	th_up(h, t->idx);
	return 0;
}

void
nev_theap_clear(struct nev_theap *h)
{
	free(h->heap);
	h->heap = NULL;
	h->num = h->cap = 0;
}

struct timeval *
nev_theap_wait(struct nev_theap *h, const struct timeval *now,
	const struct timeval *max_wait, struct timeval *out)
{
	struct timeval *wp = NULL;
	if(h->num > 0) {
		if(timercmp(&h->heap[0]->when, now, >))
			timersub(&h->heap[0]->when, now, out);
		else	timerclear(out);
		wp = out;
	}
	if(max_wait && (!wp || timercmp(max_wait, wp, <))) {
		*out = *max_wait;
		wp = out;
	}
	return wp;
}

void
nev_theap_run(struct nev_theap *h, const struct timeval *now)
{
	uint64_t seq_limit = h->seq;
	while(h->num > 0) {
		struct nev_theap_timer *t = h->heap[0];
		if(timercmp(&t->when, now, >) || t->seq >= seq_limit)
			break;
		nev_theap_remove(h, t);
		t->cb(t->arg);
	}
}
