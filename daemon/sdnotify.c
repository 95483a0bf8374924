/*
 * daemon/sdnotify.c - systemd's notify protocol. See sdnotify.h.
 */
#include "config.h"
#include "daemon/sdnotify.h"
#include "util/log.h"
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

int
sdnotify_send(const char *state)
{
	const char *path = getenv("NOTIFY_SOCKET");
	struct sockaddr_un sun;
	socklen_t len;
	size_t plen;
	int fd;
	if(!path || !path[0])
		return 0;
	plen = strlen(path);
	if((path[0] != '/' && path[0] != '@') || plen >= sizeof(sun.sun_path)) {
		verbose(VERB_OPS, "NOTIFY_SOCKET '%s' is not a unix socket path",
			path);
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, plen);
	if(path[0] == '@')
		sun.sun_path[0] = 0; /* abstract namespace */
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + plen);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if(fd == -1) {
		verbose(VERB_OPS, "sdnotify: socket: %s", strerror(errno));
		return -1;
	}
	if(sendto(fd, state, strlen(state), 0, (struct sockaddr *)&sun, len) < 0) {
		verbose(VERB_OPS, "sdnotify: send to %s: %s", path,
			strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	return 1;
}
