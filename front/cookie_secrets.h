/*
 * front/cookie_secrets.h - the server secrets of DNS Cookies, shared by
 * the workers and changed by the control commands.
 *
 * The secrets in use are an immutable snapshot (struct cookie_set): the
 * active secret first (it makes the cookies), then the staging one (it
 * only validates). Workers load the current snapshot with one atomic
 * acquire load and read it without a lock; a control command builds a
 * new snapshot, swaps it in with one atomic store, and retires the old
 * one with a QSBR tag (util/storage/qsbr.h): it is freed once every
 * worker has passed a quiescent state, as the RPZ snapshots are. Only
 * one thread changes the secrets at a time (the control thread, or a
 * forked worker's own loop).
 *
 * Where the secrets come from, at load: the lines of cookie-secret-file
 * (Unbound 1.22's format: one secret of 32 hex digits a line, the first
 * active, the second staging; '#' comments and empty lines skipped),
 * when that file names at least one secret; else cookie-secret; else a
 * random secret made at start-up. add_cookie_secret, activate and drop
 * need cookie-secret-file and write the new set back to it.
 */
#ifndef FRONT_COOKIE_SECRETS_H
#define FRONT_COOKIE_SECRETS_H

#include <stddef.h>
#include <stdint.h>
#include "dns/cookie.h"

struct config_file;

/** most secrets kept: active and staging (as Unbound 1.22) */
#define COOKIE_SECRETS_MAX 2

/** an immutable set of secrets */
struct cookie_set {
	/** number of secrets, 1..COOKIE_SECRETS_MAX (0 only for a file set
	 * that was emptied, which cannot happen: the active one stays) */
	size_t n;
	/** the secrets, one after the other, the active one first */
	uint8_t s[COOKIE_SECRETS_MAX * COOKIE_SECRET_LEN];
	/** 1 when the set is the file's (print_cookie_secrets shows it) */
	int from_file;
	/** 1 when the secret was made at random (no file, no
	 * cookie-secret) */
	int random;
	/** the QSBR tag it was retired with */
	uint64_t retired;
	/** next on the retired list */
	struct cookie_set *next_retired;
};

/** the holder (opaque) */
struct cookie_secrets;

/**
 * Make the holder from a config: cookie-secret-file, cookie-secret, or a
 * random secret.
 * @param cfg: the config (cookie_secret_file is copied).
 * @param err: filled on failure (names the file and line).
 * @return the holder, or NULL on failure (bad file line, bad hex, out of
 *	memory).
 */
struct cookie_secrets *cookie_secrets_create(const struct config_file *cfg,
	char *err, size_t errlen);

/**
 * A reload: when the new holder's secret was made at random, take the
 * old holder's secrets instead, so that the cookies given out stay valid
 * and every worker process keeps the same secret (with fork, each worker
 * reloads on its own). Call before the new holder is given to a worker.
 * @param cs: the new holder.
 * @param old: the old one, or NULL.
 */
void cookie_secrets_keep(struct cookie_secrets *cs,
	const struct cookie_secrets *old);

/** Free the holder, its set and the retired sets (no reader may be left).
 * NULL is fine. */
void cookie_secrets_delete(struct cookie_secrets *cs);

/**
 * The current set, for a worker (a registered QSBR reader): valid until
 * its next quiescent state. No lock, one atomic load.
 */
const struct cookie_set *cookie_secrets_get(const struct cookie_secrets *cs);

/** the commands that change the set */
enum cookie_secrets_op {
	/** add a secret: active when there is none, else as the staging
	 * one (replacing the staging one) */
	COOKIE_OP_ADD = 0,
	/** the staging secret becomes active, the active one staging */
	COOKIE_OP_ACTIVATE,
	/** drop the staging secret */
	COOKIE_OP_DROP
};

/**
 * Change the set (add_cookie_secret, activate_cookie_secret,
 * drop_cookie_secret). Needs cookie-secret-file. The new set is written
 * to the file first (when write_file), then swapped in.
 * @param cs: the holder.
 * @param op: what to do.
 * @param secret: the secret to add (COOKIE_OP_ADD), else NULL.
 * @param write_file: 1 to write the file (the supervisor or the only
 *	process), 0 to change only this process's copy (a forked worker).
 * @param err: on failure, the message (in Unbound's words).
 * @return 0, or -1 with err set.
 */
int cookie_secrets_change(struct cookie_secrets *cs,
	enum cookie_secrets_op op, const uint8_t *secret, int write_file,
	char *err, size_t errlen);

/** Free the retired sets that no reader can see any more (called by the
 * writer; cookie_secrets_change calls it too). */
void cookie_secrets_reclaim(struct cookie_secrets *cs);

/**
 * Read a cookie-secret-file.
 * @param path: the file.
 * @param out: COOKIE_SECRETS_MAX secrets.
 * @param n: set to the number read (0 when the file does not exist).
 * @return 0, or -1 with err set (unreadable, a bad line; names file:line).
 */
int cookie_secrets_read_file(const char *path, uint8_t *out, size_t *n,
	char *err, size_t errlen);

#endif /* FRONT_COOKIE_SECRETS_H */
