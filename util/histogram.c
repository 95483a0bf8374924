/*
 * util/histogram.c - the recursion time histogram's buckets and reading.
 * See histogram.h.
 */
#include "config.h"
#include "util/histogram.h"

/** the last bucket of powers of two in microseconds (from 524288 us) */
#define HIST_US_LAST 20
/** the first bucket of whole seconds */
#define HIST_SEC_FIRST (HIST_US_LAST + 1)

uint64_t
hist_lower_us(int i)
{
	if(i <= 0)
		return 0;
	if(i <= HIST_US_LAST)	/* 1 us .. 524288 us */
		return (uint64_t)1 << (i - 1);
	/* 1 s, 2 s, 4 s, ... */
	return (uint64_t)1000000 << (i - HIST_SEC_FIRST);
}

/** @return the number of bits of v (0 for 0) */
static int
hist_bits(uint64_t v)
{
	int n = 0;
	while(v) {
		v >>= 1;
		n++;
	}
	return n;
}

int
hist_bucket(uint64_t us)
{
	int b;
	if(us < hist_lower_us(HIST_US_LAST))
		return hist_bits(us);	/* 0 for 0, i for [2^(i-1), 2^i) */
	if(us < hist_lower_us(HIST_SEC_FIRST))
		return HIST_US_LAST;	/* [524288 us, 1 s) */
	b = HIST_SEC_FIRST - 1 + hist_bits(us / 1000000);
	return b < HIST_BUCKETS - 1 ? b : HIST_BUCKETS - 1;
}

uint64_t
hist_count(const uint64_t *hist)
{
	uint64_t n = 0;
	int i;
	for(i = 0; i < HIST_BUCKETS; i++)
		n += hist[i];
	return n;
}

double
hist_quantile(const uint64_t *hist, double q)
{
	uint64_t total = hist_count(hist), passed = 0;
	double want;
	int i;
	if(total == 0)
		return 0.0;
	want = q * (double)total;
	for(i = 0; i < HIST_BUCKETS; i++) {
		if(hist[i] > 0 && (double)(passed + hist[i]) >= want) {
			double lo = (double)hist_lower_us(i);
			double hi = (double)hist_lower_us(i + 1);
			double frac = (want - (double)passed) / (double)hist[i];
			return (lo + frac * (hi - lo)) / 1e6;
		}
		passed += hist[i];
	}
	return (double)hist_lower_us(HIST_BUCKETS) / 1e6;
}
