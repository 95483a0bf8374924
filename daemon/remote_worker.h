/*
 * daemon/remote_worker.h - the control commands a worker runs, and the
 * pipe protocol that carries them.
 *
 * Whatever touches a cache or a mesh runs inside a worker, in its own
 * thread or process: statistics (stats_get), flushes, dump_cache,
 * load_cache, lookup, dump_requestlist, dump_infra, verbosity, and with
 * fork the config edits ("cfg ..."). The supervisor writes the byte 'C'
 * to the worker's command pipe, then a 32-bit length and "command
 * args\0payload"; the worker answers on its statistics pipe with a frame
 * (REMOTE_MAGIC, a 32-bit length, the bytes). The pipe helpers below are
 * shared by both ends.
 */
#ifndef DAEMON_REMOTE_WORKER_H
#define DAEMON_REMOTE_WORKER_H

#include <stddef.h>

struct worker;

/** the reply frame magic ("PTRL") */
#define REMOTE_MAGIC 0x5054524cU
/** largest frame accepted from a pipe */
#define REMOTE_FRAME_MAX (256U * 1024U * 1024U)
/** how long the supervisor waits for a worker's reply, ms (inactivity) */
#define REMOTE_WORKER_TIMEOUT_MS 5000

/** stats_get modes: the counters since the last reset, the same and
 * reset them (Unbound's stats), or everything since start, resets
 * included (the Prometheus counters, which never go down) */
enum { STATS_GET_NORESET = 0, STATS_GET_RESET = 1, STATS_GET_MONOTONIC = 2 };

/**
 * Worker side: read a 'C' command's frame from the command pipe (the 'C'
 * byte was read), run it, and write the reply frame to the worker's
 * statistics pipe.
 * @param w: the worker (in its own thread or process).
 * @param fd: the command pipe's read end.
 */
void remote_worker_cmd(struct worker *w, int fd);

/**
 * Wait until fd is ready.
 * @param ev: POLLIN or POLLOUT.
 * @param ms: the most to wait.
 * @return > 0 when ready, 0 on timeout, -1 on error.
 */
int remote_fd_wait(int fd, short ev, int ms);

/**
 * Write all of buf to a (possibly non-blocking) fd, waiting at most ms
 * for each step. @return 0 or -1.
 */
int remote_fd_write_all(int fd, const void *buf, size_t len, int ms);

/**
 * Read exactly len bytes from a (possibly non-blocking) fd, waiting at
 * most ms for each step. @return 0, or -1 on error, end or timeout.
 */
int remote_fd_read_all(int fd, void *buf, size_t len, int ms);

/** Set or clear O_NONBLOCK. @return the old flags, or -1. */
int remote_fd_nonblock(int fd, int on);

#endif /* DAEMON_REMOTE_WORKER_H */
