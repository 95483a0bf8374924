/*
 * util/log_limit.h - a rate limit for repeated warnings.
 *
 * A warning that a client can cause at will (a bad control connection, a
 * failed TLS handshake) must not let that client fill the log. A
 * struct log_limit lets at most max such warnings through per interval of
 * seconds; the rest are counted, and the first call after the interval
 * (log_limit_allow or log_limit_flush) logs one line saying how many were
 * suppressed, then a new interval starts. The caller passes the time, so
 * the limiter reads no clock and a test can drive it.
 *
 * Not locked: one limiter belongs to one thread (the control server runs
 * in the supervisor only). Nothing here allocates.
 */
#ifndef UTIL_LOG_LIMIT_H
#define UTIL_LOG_LIMIT_H

#include <time.h>

/** a warning rate limit; set it up with LOG_LIMIT_INIT or log_limit_init */
struct log_limit {
	/** warnings let through per interval */
	int max;
	/** the interval, seconds */
	int interval;
	/** start of the current interval; 0 before the first warning */
	time_t start;
	/** warnings let through in the current interval */
	int count;
	/** warnings suppressed in the current interval */
	unsigned long suppressed;
	/** what the warnings are about, for the summary line */
	const char *what;
};

/** a static initialiser: at most max warnings per secs seconds */
#define LOG_LIMIT_INIT(max, secs, what) { (max), (secs), 0, 0, 0, (what) }

/** Set up a limiter: at most max warnings per secs seconds, about what. */
void log_limit_init(struct log_limit *l, int max, int secs, const char *what);

/**
 * May one more warning be logged now? Logs the summary of the previous
 * interval first when it is over and suppressed some.
 * @param l: the limiter.
 * @param now: the time, seconds.
 * @return 1 to log the warning, 0 to drop it (it is counted).
 */
int log_limit_allow(struct log_limit *l, time_t now);

/**
 * Log the summary line of the interval when it is over and suppressed
 * some (for a caller that wants it without waiting for the next warning).
 * @param l: the limiter.
 * @param now: the time, seconds.
 */
void log_limit_flush(struct log_limit *l, time_t now);

#endif /* UTIL_LOG_LIMIT_H */
