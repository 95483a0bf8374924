/*
 * util/log_limit.c - a rate limit for repeated warnings (see the header).
 */
#include "config.h"
#include "util/log_limit.h"
#include "util/log.h"

void
log_limit_init(struct log_limit *l, int max, int secs, const char *what)
{
	l->max = max;
	l->interval = secs;
	l->start = 0;
	l->count = 0;
	l->suppressed = 0;
	l->what = what;
}

void
log_limit_flush(struct log_limit *l, time_t now)
{
	if(l->start == 0 || now < l->start + l->interval)
		return;
	if(l->suppressed > 0)
		log_warnx("%s: %lu more warnings suppressed in %d s", l->what,
			l->suppressed, l->interval);
	l->start = 0;
	l->count = 0;
	l->suppressed = 0;
}

int
log_limit_allow(struct log_limit *l, time_t now)
{
	log_limit_flush(l, now);
	if(l->start == 0)
		l->start = now > 0 ? now : 1;
	if(l->count < l->max) {
		l->count++;
		return 1;
	}
	l->suppressed++;
	return 0;
}
