/*
 * daemon/sdnotify.h - systemd's notify protocol without libsystemd.
 *
 * When the service manager sets NOTIFY_SOCKET, the daemon sends it
 * "READY=1" once every worker answers, "RELOADING=1" when a SIGHUP
 * arrives (followed by READY=1 when the reload is done) and
 * "STOPPING=1" on shutdown. The message is one datagram to a unix socket
 * (an abstract one when the path starts with '@'). Without NOTIFY_SOCKET
 * every call does nothing.
 */
#ifndef DAEMON_SDNOTIFY_H
#define DAEMON_SDNOTIFY_H

/**
 * Send a state string such as "READY=1" to the service manager.
 * @return 1 if sent, 0 if NOTIFY_SOCKET is not set, -1 on error (logged
 *	at verbose level).
 */
int sdnotify_send(const char *state);

#endif /* DAEMON_SDNOTIFY_H */
