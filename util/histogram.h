/*
 * util/histogram.h - the recursion time histogram: its buckets (Unbound's,
 * util/timehist.c, so that unbound-control and its shared memory layout
 * read petrel's counts bucket for bucket), which bucket a time falls in,
 * and what the counts say (their number, a quantile).
 *
 * A histogram is a plain array of HIST_BUCKETS counters that its owner
 * keeps (the front end's per-worker statistics count into it, the daemon
 * sums and prints it); nothing here allocates, locks or logs.
 *
 * Bucket i holds the times from hist_lower_us(i) up to, not including,
 * hist_lower_us(i + 1): bucket 0 is [0, 1 us), buckets 1 to 19 are powers
 * of two from 1 us, bucket 20 is [524288 us, 1 s), then whole seconds,
 * powers of two from 1 s; the last bucket (39, from 262144 s) is open.
 */
#ifndef UTIL_HISTOGRAM_H
#define UTIL_HISTOGRAM_H

#include <stdint.h>

/** buckets of a histogram (as Unbound's) */
#define HIST_BUCKETS 40

/**
 * The lower bound of bucket i, in microseconds.
 * @param i: 0 to HIST_BUCKETS (HIST_BUCKETS gives the upper bound of the
 *	last bucket, 524288 s, which prints as its end); below 0 gives 0.
 * @return microseconds.
 */
uint64_t hist_lower_us(int i);

/**
 * The bucket a time falls in.
 * @param us: the time in microseconds.
 * @return 0 to HIST_BUCKETS - 1 (a time past the last bound counts in the
 *	last, open, bucket).
 */
int hist_bucket(uint64_t us);

/**
 * The number of times counted.
 * @param hist: HIST_BUCKETS counters.
 * @return their sum.
 */
uint64_t hist_count(const uint64_t *hist);

/**
 * The time at fraction q (0.5: median) of the counts, interpolated within
 * its bucket (as Unbound does).
 * @param hist: HIST_BUCKETS counters.
 * @param q: the fraction, 0 to 1.
 * @return seconds, 0 when the histogram is empty.
 */
double hist_quantile(const uint64_t *hist, double q);

#endif /* UTIL_HISTOGRAM_H */
