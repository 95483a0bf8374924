/*
 * services/deadline_io.c - blocking socket I/O with deadlines, for the
 * transfer thread. See services/deadline_io.h.
 */
#include "config.h"
#include "services/deadline_io.h"
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <unistd.h>
#include <sys/socket.h>

/** the longest one poll waits before the stop flag is looked at, ms */
#define DIO_STOP_CHECK_MS 200

/** milliseconds left until deadline (>= 0) */
static int
ms_left(const struct timeval *deadline)
{
	struct timeval now;
	long ms;
	gettimeofday(&now, NULL);
	ms = (deadline->tv_sec - now.tv_sec) * 1000L +
		(deadline->tv_usec - now.tv_usec) / 1000L;
	return ms < 0 ? 0 : (int)ms;
}

void
dio_deadline_in(struct timeval *d, int ms)
{
	gettimeofday(d, NULL);
	d->tv_sec += ms / 1000;
	d->tv_usec += (ms % 1000) * 1000;
	if(d->tv_usec >= 1000000) {
		d->tv_sec++;
		d->tv_usec -= 1000000;
	}
}

int
dio_wait_fd(int fd, short ev, const struct timeval *deadline,
	volatile int *stop)
{
	for(;;) {
		struct pollfd p;
		int ms = ms_left(deadline), r;
		if(ms == 0 || (stop && *stop))
			return -1;
		p.fd = fd;
		p.events = ev;
		p.revents = 0;
		r = poll(&p, 1, ms > DIO_STOP_CHECK_MS ? DIO_STOP_CHECK_MS : ms);
		if(r > 0)
			return 0;
		if(r < 0 && errno != EINTR && errno != EAGAIN)
			return -1;
	}
}

int
dio_read_full(int fd, uint8_t *buf, size_t n, const struct timeval *deadline,
	volatile int *stop)
{
	size_t got = 0;
	while(got < n) {
		ssize_t r = read(fd, buf + got, n - got);
		if(r > 0) {
			got += (size_t)r;
			continue;
		}
		if(r == 0)
			return -1;
		if(errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
			return -1;
		if(dio_wait_fd(fd, POLLIN, deadline, stop) != 0)
			return -1;
	}
	return 0;
}

int
dio_write_full(int fd, const uint8_t *buf, size_t n,
	const struct timeval *deadline, volatile int *stop)
{
	size_t done = 0;
	while(done < n) {
		ssize_t r = write(fd, buf + done, n - done);
		if(r > 0) {
			done += (size_t)r;
			continue;
		}
		if(r < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
			errno != EINTR)
			return -1;
		if(dio_wait_fd(fd, POLLOUT, deadline, stop) != 0)
			return -1;
	}
	return 0;
}

int
dio_tcp_connect(const struct netaddr *a, int timeout_ms, volatile int *stop)
{
	struct timeval dl;
	int fd = socket(a->addr.ss_family, SOCK_STREAM, 0), e = 0;
	socklen_t el = sizeof(e);
	if(fd < 0)
		return -1;
	if(fcntl(fd, F_SETFL, O_NONBLOCK) < 0)
		goto fail;
	dio_deadline_in(&dl, timeout_ms);
	if(connect(fd, (const struct sockaddr *)&a->addr, a->len) == 0)
		return fd;
	if(errno != EINPROGRESS)
		goto fail;
	if(dio_wait_fd(fd, POLLOUT, &dl, stop) != 0) {
		e = ETIMEDOUT;
		goto fail;
	}
	if(getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &el) != 0 || e != 0)
		goto fail;
	return fd;
fail:
	close(fd);
	if(e)
		errno = e;
	return -1;
}
