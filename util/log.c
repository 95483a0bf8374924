/*
 * util/log.c - logging for petrel. See log.h.
 */
#include "config.h"
#include "util/log.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#ifdef __linux__
#include <sys/syscall.h>
#endif

int verbosity = VERB_OPS;

/** log destination: -1 means stderr; otherwise a file descriptor */
static int log_fd = -1;
static int log_to_syslog = 0;
static char log_filename[1024];
static char log_identity[64] = "petrel";
static __thread int log_thread_num = -1;
/** log-time-ascii, log-time-iso, log-thread-id (log_set_format) */
static int log_time_ascii = 0, log_time_iso = 0, log_thread_id = 0;
static char *capture_buf = NULL;
static unsigned long capture_len = 0;

int
log_init(const char *filename, int use_syslog, const char *chrootdir)
{
	int saved = errno;
	if(use_syslog) {
		if(log_fd != -1) close(log_fd);
		log_fd = -1;
		log_filename[0] = 0;
		openlog(log_identity, LOG_NDELAY | LOG_PID, LOG_DAEMON);
		log_to_syslog = 1;
		errno = saved;
		return 0;
	}
	if(log_to_syslog) {
		closelog();
		log_to_syslog = 0;
	}
	if(!filename || !filename[0]) {
		if(log_fd != -1) close(log_fd);
		log_fd = -1;
		log_filename[0] = 0;
		errno = saved;
		return 0;
	}
	if(chrootdir && chrootdir[0] && strncmp(filename, chrootdir,
		strlen(chrootdir)) == 0)
		filename += strlen(chrootdir);
	{
		int fd = open(filename, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC,
			0640);
		if(fd == -1)
			return -1;
		if(log_fd != -1) close(log_fd);
		log_fd = fd;
		snprintf(log_filename, sizeof(log_filename), "%s", filename);
	}
	errno = saved;
	return 0;
}

int
log_reopen(void)
{
	char name[sizeof(log_filename)];
	if(log_to_syslog || !log_filename[0])
		return 0;
	memcpy(name, log_filename, sizeof(name));
	return log_init(name, 0, NULL);
}

void
log_ident_set(const char *id)
{
	snprintf(log_identity, sizeof(log_identity), "%s", id);
}

void
log_thread_set(int num)
{
	log_thread_num = num;
}

void
log_set_verbosity(int level)
{
	verbosity = level;
}

void
log_close(void)
{
	if(log_fd != -1) close(log_fd);
	log_fd = -1;
	log_filename[0] = 0;
	if(log_to_syslog) closelog();
	log_to_syslog = 0;
}

void
log_capture(char *buf, unsigned long len)
{
	capture_buf = buf;
	capture_len = len;
	if(buf && len)
		buf[0] = 0;
}

void
log_set_format(int time_ascii, int time_iso, int thread_id)
{
	log_time_ascii = time_ascii;
	log_time_iso = time_iso;
	log_thread_id = thread_id;
}

/** The time a line starts with, into buf: "[seconds]", or readable */
static void
log_stamp(const struct timeval *tv, char *buf, size_t len)
{
	time_t t = (time_t)tv->tv_sec;
	struct tm tm;
	if((log_time_iso || log_time_ascii) && localtime_r(&t, &tm)) {
		if(log_time_iso) {
			char zone[8], day[32];
			strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
			strftime(zone, sizeof(zone), "%z", &tm);
			/* ISO 8601 writes the offset +hh:mm */
			if(strlen(zone) == 5)
				snprintf(buf, len, "%s.%03d%.3s:%s", day,
					(int)(tv->tv_usec / 1000), zone,
					zone + 3);
			else
				snprintf(buf, len, "%s.%03d%s", day,
					(int)(tv->tv_usec / 1000), zone);
		} else
			strftime(buf, len, "%b %d %H:%M:%S", &tm);
		return;
	}
	snprintf(buf, len, "[%lld]", (long long)tv->tv_sec);
}

void
log_vmsg(int pri, const char *type, const char *format, va_list args)
{
	char msg[1024], line[1200];
	int saved = errno, n;
	vsnprintf(msg, sizeof(msg), format, args);
	if(capture_buf) {
		size_t have = strlen(capture_buf);
		if(have + 1 < capture_len)
			snprintf(capture_buf + have, capture_len - have,
				"%s: %s\n", type, msg);
		errno = saved;
		return;
	}
	if(log_to_syslog) {
		syslog(pri, "[%d] %s: %s", log_thread_num < 0 ? 0 :
			log_thread_num, type, msg);
		errno = saved;
		return;
	}
	{
		struct timeval tv;
		char stamp[64];
		long tnum = log_thread_num < 0 ? 0 : log_thread_num;
		gettimeofday(&tv, NULL);
		log_stamp(&tv, stamp, sizeof(stamp));
#if defined(__linux__) && defined(SYS_gettid)
		if(log_thread_id)
			tnum = (long)syscall(SYS_gettid);
#endif
		n = snprintf(line, sizeof(line), "%s %s[%d:%ld] %s: %s\n",
			stamp, log_identity, (int)getpid(), tnum, type, msg);
	}
	if(n < 0) n = 0;
	if(n >= (int)sizeof(line)) {
		n = (int)sizeof(line) - 1;
		line[n - 1] = '\n';
	}
	if(write(log_fd == -1 ? STDERR_FILENO : log_fd, line, (size_t)n) < 0) {
		/* nowhere left to report the failure */
	}
	errno = saved;
}

void
log_err(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_ERR, "error", format, args);
	va_end(args);
}

void
log_warn(const char *format, ...)
{
	char buf[900];
	int saved = errno;
	va_list args;
	va_start(args, format);
	vsnprintf(buf, sizeof(buf), format, args);
	va_end(args);
	errno = saved;
	log_warnx("%s: %s", buf, strerror(saved));
	errno = saved;
}

void
log_warnx(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_WARNING, "warning", format, args);
	va_end(args);
}

void
log_info(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_INFO, "info", format, args);
	va_end(args);
}

void
verbose(enum verbosity_value level, const char *format, ...)
{
	va_list args;
	if(verbosity < (int)level)
		return;
	va_start(args, format);
	if(level == VERB_OPS)
		log_vmsg(LOG_NOTICE, "notice", format, args);
	else	log_vmsg(LOG_DEBUG, "debug", format, args);
	va_end(args);
}

void
fatal_exit(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	log_vmsg(LOG_CRIT, "fatal error", format, args);
	va_end(args);
	exit(1);
}
