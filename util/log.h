/*
 * util/log.h - logging for petrel.
 *
 * Messages go to stderr (the default, and always before log_init), to a
 * log file, or to syslog. Verbosity follows Unbound's levels:
 *   0 (VERB_QUIET)  errors only
 *   1 (VERB_OPS)    operational information
 *   2 (VERB_DETAIL) detailed operational information
 *   3 (VERB_QUERY)  query level information
 *   4 (VERB_ALGO)   algorithm level information
 *   5 (VERB_CLIENT) client level information
 * log_err and log_warn always print; log_info prints at verbosity 1 and up
 * (and at 0 when asked to, as Unbound does for start-up notices).
 *
 * log_warn appends strerror(errno); log_warnx does not (OpenBSD's habit).
 * Every function keeps errno intact, so a caller can log and then still
 * report the error it saw. The module is thread safe: a line is written
 * with one write(2) or one syslog(3) call. Nothing here allocates.
 */
#ifndef UTIL_LOG_H
#define UTIL_LOG_H

#include <stdarg.h>

/** verbosity levels, as in Unbound */
enum verbosity_value {
	NO_VERBOSE = 0,
	VERB_OPS = 1,
	VERB_DETAIL = 2,
	VERB_QUERY = 3,
	VERB_ALGO = 4,
	VERB_CLIENT = 5
};

/** the current verbosity; read freely, set with log_set_verbosity */
extern int verbosity;

#define PETREL_ATTR_FORMAT(f, a) __attribute__((format(printf, f, a)))
#define PETREL_ATTR_NORETURN __attribute__((noreturn))


/**
 * Direct logging. Call before threads start, or between reloads while the
 * workers are paused.
 * @param filename: log file to append to, or NULL or "" for stderr.
 * @param use_syslog: if true, log to syslog and ignore filename.
 * @param chrootdir: if filename starts with this, it is stripped (the file
 *	is reopened from inside the chroot). May be NULL.
 * @return 0 on success, -1 if the file cannot be opened (errno set; the
 *	previous destination stays in use).
 */
int log_init(const char *filename, int use_syslog, const char *chrootdir);

/** Reopen the log file (SIGUSR1, logrotate). @return 0 or -1. */
int log_reopen(void);

/** Set the identity printed in each line (default "petrel"). */
void log_ident_set(const char *id);

/** Set this thread's worker number, printed in each line. */
void log_thread_set(int num);

/** Set verbosity. */
void log_set_verbosity(int level);

/**
 * How log file and stderr lines start (not syslog, which stamps its own).
 * Call as log_init() is called.
 * @param time_ascii: a readable local time ("Nov 24 03:37:58") instead
 *	of seconds since the epoch (log-time-ascii).
 * @param time_iso: an ISO 8601 time with milliseconds and the UTC offset
 *	(log-time-iso); wins over time_ascii.
 * @param thread_id: the system's thread id instead of the worker number
 *	(log-thread-id).
 */
void log_set_format(int time_ascii, int time_iso, int thread_id);

/** Close the log destination. */
void log_close(void);

/** Log an error. */
void log_err(const char *format, ...) PETREL_ATTR_FORMAT(1, 2);
/** Log a warning with strerror(errno) appended. */
void log_warn(const char *format, ...) PETREL_ATTR_FORMAT(1, 2);
/** Log a warning without errno. */
void log_warnx(const char *format, ...) PETREL_ATTR_FORMAT(1, 2);
/** Log an informational notice (always printed). */
void log_info(const char *format, ...) PETREL_ATTR_FORMAT(1, 2);
/** Log if verbosity >= level. */
void verbose(enum verbosity_value level, const char *format, ...) PETREL_ATTR_FORMAT(2, 3);
/** Log an error and exit(1). Only during start-up. */
void fatal_exit(const char *format, ...) PETREL_ATTR_FORMAT(1, 2) PETREL_ATTR_NORETURN;

/** va_list form used by the others. @param pri: syslog priority. */
void log_vmsg(int pri, const char *type, const char *format, va_list args);

/**
 * Capture log lines into a caller's buffer instead of writing them (tests).
 * @param buf: buffer, or NULL to stop capturing.
 * @param len: its size; lines are appended, NUL-terminated, and truncated
 *	when it is full.
 */
void log_capture(char *buf, unsigned long len);

#endif /* UTIL_LOG_H */
