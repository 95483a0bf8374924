/*
 * iterator/iter_ratelimit.c - the zone rate limits of the iterator.
 *
 * See iter_ratelimit.h. The per-domain lines are few (config lines), kept
 * in two arrays and searched by label: at most one scan per label of the
 * zone name, once per upstream query.
 */
#include "config.h"
#include "iterator/iter_ratelimit.h"
#include "util/ratelimit.h"
#include "util/config_file.h"
#include "util/random.h"
#include "dns/name.h"
#include "dns/dns.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** one ratelimit-for-domain or -below-domain line */
struct rl_domain {
	/** the name (wire, lower case) */
	uint8_t name[DNS_MAX_NAME];
	/** its limit */
	int limit;
};

struct iter_ratelimit {
	/** the rates */
	struct rate_table *table;
	/** ratelimit */
	int limit;
	/** ratelimit-factor */
	int factor;
	/** ratelimit-backoff */
	int backoff;
	/** ratelimit-for-domain lines, and their number */
	struct rl_domain *exact;
	size_t nexact;
	/** ratelimit-below-domain lines, and their number */
	struct rl_domain *below;
	size_t nbelow;
};

/** parse "name. number" lines into an array. @return 0 or -1 */
static int
rl_domains(const struct config_strlist *l, struct rl_domain **out,
	size_t *n, const char *opt, char *err, size_t errlen)
{
	const struct config_strlist *s;
	size_t cnt = 0, i = 0;
	for(s = l; s; s = s->next)
		cnt++;
	*n = 0;
	*out = NULL;
	if(cnt == 0)
		return 0;
	if(!(*out = calloc(cnt, sizeof(**out)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for(s = l; s; s = s->next, i++) {
		char nm[1100];
		size_t len = sizeof((*out)[i].name);
		long lim;
		if(sscanf(s->str, "%1023s %ld", nm, &lim) != 2 ||
			dname_from_str(nm, (*out)[i].name, &len) != 0 ||
			lim < 0 || lim > 2147483647L) {
			snprintf(err, errlen, "%s: expected <domain> <number>, "
				"got '%s'", opt, s->str);
			return -1;
		}
		dname_tolower((*out)[i].name);
		(*out)[i].limit = (int)lim;
	}
	*n = cnt;
	return 0;
}

int
iter_ratelimit_create(const struct config_file *cfg,
	struct iter_ratelimit **out, char *err, size_t errlen)
{
	struct iter_ratelimit *rl;
	*out = NULL;
	if(!cfg || cfg->ratelimit <= 0)
		return 0;
	if(!(rl = calloc(1, sizeof(*rl)))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	rl->limit = cfg->ratelimit;
	rl->factor = cfg->ratelimit_factor;
	rl->backoff = cfg->ratelimit_backoff;
	if(rl_domains(cfg->ratelimit_for_domain, &rl->exact, &rl->nexact,
		"ratelimit-for-domain", err, errlen) != 0 ||
		rl_domains(cfg->ratelimit_below_domain, &rl->below,
		&rl->nbelow, "ratelimit-below-domain", err, errlen) != 0)
		goto fail;
	rl->table = rate_table_create(cfg->ratelimit_size,
		cfg->ratelimit_slabs, DNS_MAX_NAME);
	if(!rl->table) {
		snprintf(err, errlen, "out of memory (ratelimit-size)");
		goto fail;
	}
	*out = rl;
	return 0;
fail:
	iter_ratelimit_delete(rl);
	return -1;
}

void
iter_ratelimit_delete(struct iter_ratelimit *rl)
{
	if(!rl)
		return;
	rate_table_delete(rl->table);
	free(rl->exact);
	free(rl->below);
	free(rl);
}

int
iter_ratelimit_limit(const struct iter_ratelimit *rl, const uint8_t *zone)
{
	const uint8_t *p;
	size_t i;
	for(i = 0; i < rl->nexact; i++)
		if(dname_equal(rl->exact[i].name, zone))
			return rl->exact[i].limit;
	if(rl->nbelow == 0)
		return rl->limit;
	/* the closest strict ancestor with a -below-domain line */
	p = zone;
	while(p[0] != 0) {
		p = dname_strip_label(p);
		for(i = 0; i < rl->nbelow; i++)
			if(dname_equal(rl->below[i].name, p))
				return rl->below[i].limit;
	}
	return rl->limit;
}

int
iter_ratelimit_ok(struct iter_ratelimit *rl, const uint8_t *zone,
	time_t now, struct petrel_random *rnd)
{
	int lim = iter_ratelimit_limit(rl, zone);
	if(lim <= 0)
		return 1;
	if(rate_table_inc(rl->table, zone, dname_len(zone), now,
		rl->backoff) <= lim)
		return 1;
	if(rl->factor > 0 && rnd &&
		random_uniform(rnd, (uint32_t)rl->factor) == 0)
		return 1;
	return 0;
}

/** what iter_ratelimit_walk passes through the table walk */
struct rl_walk {
	/** the limits */
	struct iter_ratelimit *rl;
	/** all zones, or only those over their limit */
	int all;
	/** the caller's callback and argument */
	iter_ratelimit_cb cb;
	void *arg;
};

/** one table entry */
static void
rl_walk_cb(const uint8_t *key, size_t keylen, int rate, void *arg)
{
	struct rl_walk *w = (struct rl_walk *)arg;
	char nm[DNS_MAX_NAME_STR];
	int lim;
	if(keylen == 0 || dname_valid(key, keylen) != keylen)
		return;
	lim = iter_ratelimit_limit(w->rl, key);
	if(!w->all && (lim <= 0 || rate <= lim))
		return;
	if(dname_to_str(key, nm, sizeof(nm)) < 0)
		return;
	w->cb(nm, rate, lim, w->arg);
}

void
iter_ratelimit_walk(struct iter_ratelimit *rl, time_t now, int all,
	iter_ratelimit_cb cb, void *arg)
{
	struct rl_walk w;
	w.rl = rl;
	w.all = all;
	w.cb = cb;
	w.arg = arg;
	rate_table_walk(rl->table, now, rl->backoff, rl_walk_cb, &w);
}

size_t
iter_ratelimit_mem(const struct iter_ratelimit *rl)
{
	return rl ? sizeof(*rl) + rate_table_mem(rl->table) +
		(rl->nexact + rl->nbelow) * sizeof(struct rl_domain) : 0;
}
