/*
 * front/cookie_secrets.c - DNS Cookie server secrets: load, snapshot
 * swap, control-command changes, the secret file.
 *
 * See cookie_secrets.h for the protocol between the workers (readers)
 * and the control commands (the one writer).
 */
#include "config.h"
#include "front/cookie_secrets.h"
#include "util/config_file.h"
#include "util/random.h"
#include "util/storage/qsbr.h"
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

/** the holder */
struct cookie_secrets {
	/** the current set (atomic pointer swap) */
	_Atomic(struct cookie_set *) cur;
	/** sets swapped out and not yet freed (writer side) */
	struct cookie_set *retired;
	/** cookie-secret-file, or NULL when none is configured */
	char *file;
};

/** wipe and free a set */
static void
set_free(struct cookie_set *s)
{
	if(!s)
		return;
	memset(s->s, 0, sizeof(s->s));
	free(s);
}

int
cookie_secrets_read_file(const char *path, uint8_t *out, size_t *n,
	char *err, size_t errlen)
{
	char line[256];
	int lineno = 0;
	FILE *f = fopen(path, "r");
	*n = 0;
	if(!f) {
		if(errno == ENOENT)
			return 0; /* made by the first add_cookie_secret */
		snprintf(err, errlen, "%s: cannot read: %s", path,
			strerror(errno));
		return -1;
	}
	while(fgets(line, sizeof(line), f)) {
		char *s = line, *e;
		lineno++;
		while(isspace((unsigned char)*s))
			s++;
		e = s + strlen(s);
		while(e > s && isspace((unsigned char)e[-1]))
			*--e = 0;
		if(*s == 0 || *s == '#')
			continue;
		if(*n >= COOKIE_SECRETS_MAX)
			continue; /* only active and staging are kept */
		if(cookie_secret_parse(s, out + *n * COOKIE_SECRET_LEN) != 0) {
			snprintf(err, errlen, "%s:%d: expected a cookie secret "
				"of 32 hex digits (128 bits)", path, lineno);
			fclose(f);
			memset(line, 0, sizeof(line));
			return -1;
		}
		(*n)++;
	}
	memset(line, 0, sizeof(line));
	fclose(f);
	return 0;
}

/** write a set to the file; @return 0 or -1 with err */
static int
write_file(const char *path, const struct cookie_set *s, char *err,
	size_t errlen)
{
	char hex[2 * COOKIE_SECRET_LEN + 1];
	size_t i;
	FILE *f = fopen(path, "w");
	if(!f) {
		snprintf(err, errlen, "error: writing to cookie secret file: "
			"\"%s\"", path);
		return -1;
	}
	for(i = 0; i < s->n; i++) {
		cookie_secret_hex(s->s + i * COOKIE_SECRET_LEN, hex);
		fprintf(f, "%s\n", hex);
	}
	memset(hex, 0, sizeof(hex));
	if(fclose(f) != 0) {
		snprintf(err, errlen, "error: writing to cookie secret file: "
			"\"%s\"", path);
		return -1;
	}
	return 0;
}

struct cookie_secrets *
cookie_secrets_create(const struct config_file *cfg, char *err,
	size_t errlen)
{
	struct cookie_secrets *cs = calloc(1, sizeof(*cs));
	struct cookie_set *s = calloc(1, sizeof(*s));
	if(!cs || !s) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if(cfg && cfg->cookie_secret_file && cfg->cookie_secret_file[0]) {
		if(!(cs->file = strdup(cfg->cookie_secret_file))) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		if(cookie_secrets_read_file(cs->file, s->s, &s->n, err,
			errlen) != 0)
			goto fail;
		s->from_file = 1;
	}
	if(s->n == 0) {
		s->from_file = 0;
		if(cfg && cfg->cookie_secret && cfg->cookie_secret[0]) {
			if(cookie_secret_parse(cfg->cookie_secret, s->s) != 0) {
				snprintf(err, errlen, "cookie-secret: expected "
					"32 hex digits (128 bits)");
				goto fail;
			}
		} else if(random_os_bytes(s->s, COOKIE_SECRET_LEN) != 0) {
			snprintf(err, errlen, "cookie secret: no random "
				"bytes from the system");
			goto fail;
		} else
			s->random = 1;
		s->n = 1;
	}
	atomic_init(&cs->cur, s);
	return cs;
fail:
	set_free(s);
	if(cs)
		free(cs->file);
	free(cs);
	return NULL;
}

void
cookie_secrets_keep(struct cookie_secrets *cs,
	const struct cookie_secrets *old)
{
	struct cookie_set *s;
	const struct cookie_set *o;
	if(!cs || !old)
		return;
	/* (cs is not shared yet: its set may change in place) */
	s = atomic_load(&cs->cur);
	o = cookie_secrets_get(old);
	if(!s->random || !o->random)
		return;
	memcpy(s->s, o->s, sizeof(s->s));
	s->n = o->n;
}

void
cookie_secrets_delete(struct cookie_secrets *cs)
{
	if(!cs)
		return;
	set_free(atomic_load(&cs->cur));
	while(cs->retired) {
		struct cookie_set *n = cs->retired->next_retired;
		set_free(cs->retired);
		cs->retired = n;
	}
	free(cs->file);
	free(cs);
}

const struct cookie_set *
cookie_secrets_get(const struct cookie_secrets *cs)
{
	return atomic_load_explicit(&((struct cookie_secrets *)cs)->cur,
		memory_order_acquire);
}

void
cookie_secrets_reclaim(struct cookie_secrets *cs)
{
	struct cookie_set **p = &cs->retired;
	uint64_t safe = qsbr_safe_tag();
	while(*p) {
		if(safe >= (*p)->retired) {
			struct cookie_set *d = *p;
			*p = d->next_retired;
			set_free(d);
		} else
			p = &(*p)->next_retired;
	}
}

int
cookie_secrets_change(struct cookie_secrets *cs, enum cookie_secrets_op op,
	const uint8_t *secret, int write, char *err, size_t errlen)
{
	const struct cookie_set *old = cookie_secrets_get(cs);
	struct cookie_set *s, *prev;
	uint8_t tmp[COOKIE_SECRET_LEN];
	if(!cs->file) {
		snprintf(err, errlen, "error: no cookie secret file configured");
		return -1;
	}
	if(!(s = calloc(1, sizeof(*s)))) {
		snprintf(err, errlen, "error: out of memory");
		return -1;
	}
	s->from_file = 1;
	/* a set from cookie-secret or random is not the file's: the file
	 * starts empty */
	if(old->from_file) {
		s->n = old->n;
		memcpy(s->s, old->s, sizeof(s->s));
	}
	switch(op) {
	case COOKIE_OP_ADD:
		if(s->n == 0) {
			memcpy(s->s, secret, COOKIE_SECRET_LEN);
			s->n = 1;
		} else {
			memcpy(s->s + COOKIE_SECRET_LEN, secret,
				COOKIE_SECRET_LEN);
			s->n = 2;
		}
		break;
	case COOKIE_OP_ACTIVATE:
		if(s->n <= 1) {
			snprintf(err, errlen, "error: no staging cookie secret "
				"to activate");
			set_free(s);
			return -1;
		}
		memcpy(tmp, s->s, COOKIE_SECRET_LEN);
		memcpy(s->s, s->s + COOKIE_SECRET_LEN, COOKIE_SECRET_LEN);
		memcpy(s->s + COOKIE_SECRET_LEN, tmp, COOKIE_SECRET_LEN);
		memset(tmp, 0, sizeof(tmp));
		break;
	case COOKIE_OP_DROP:
	default:
		if(s->n <= 1) {
			snprintf(err, errlen, "error: can not drop the "
				"currently active cookie secret");
			set_free(s);
			return -1;
		}
		s->n = 1;
		memset(s->s + COOKIE_SECRET_LEN, 0, COOKIE_SECRET_LEN);
		break;
	}
	if(write && write_file(cs->file, s, err, errlen) != 0) {
		set_free(s);
		return -1;
	}
	prev = atomic_exchange_explicit(&cs->cur, s, memory_order_acq_rel);
	cookie_secrets_reclaim(cs);
	prev->retired = qsbr_retire_tag();
	prev->next_retired = cs->retired;
	cs->retired = prev;
	return 0;
}
