/*
 * services/deadline_io.h - blocking socket I/O with deadlines, for the
 * transfer thread (zone transfers in services/xfr.c, downloads in
 * services/http_fetch.c).
 *
 * These run on the transfer thread, never on a worker: each call may
 * block, but never past its deadline, and never longer than 200 ms
 * without looking at the caller's stop flag, so that a daemon shutting
 * down does not wait for a slow server. Sockets are non-blocking; a wait
 * is a poll(2).
 */
#ifndef SERVICES_DEADLINE_IO_H
#define SERVICES_DEADLINE_IO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include "util/netaddr.h"

/** Set *d to ms milliseconds from now. */
void dio_deadline_in(struct timeval *d, int ms);

/**
 * Wait until fd is ready for ev (POLLIN, POLLOUT).
 * @param stop: set to stop waiting (may be NULL).
 * @return 0 ready, -1 at the deadline, on stop or on error.
 */
int dio_wait_fd(int fd, short ev, const struct timeval *deadline,
	volatile int *stop);

/** Read exactly n bytes into buf. @return 0, or -1 (EOF, error,
 * deadline, stop). */
int dio_read_full(int fd, uint8_t *buf, size_t n,
	const struct timeval *deadline, volatile int *stop);

/** Write exactly n bytes of buf. @return 0, or -1 (error, deadline,
 * stop). */
int dio_write_full(int fd, const uint8_t *buf, size_t n,
	const struct timeval *deadline, volatile int *stop);

/**
 * Connect over TCP, waiting at most timeout_ms.
 * @return a connected non-blocking socket, or -1 (errno set; ETIMEDOUT
 *	when the connect did not finish in time).
 */
int dio_tcp_connect(const struct netaddr *a, int timeout_ms,
	volatile int *stop);

#endif /* SERVICES_DEADLINE_IO_H */
