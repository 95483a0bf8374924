/*
 * util/dnstap.h - dnstap logging: DNS messages as protobuf frames
 * (util/dnstap.proto) in a Frame Streams stream to a collector.
 *
 * Each worker owns one writer (struct dt_io), made in the worker's own
 * thread or process (so that it works the same for every thread model:
 * a forked child makes its own after the fork). A writer is libfstrm's
 * I/O thread with one single-producer queue of bounded size: the worker
 * encodes a message into a buffer and hands it to the queue without
 * waiting; the I/O thread connects to the collector (a unix socket, TCP,
 * or TLS with the certificate verified: util/netevent/dnstap_tls.h, made
 * through the dt_writer_maker_func the worker gives), reconnects
 * when the collector goes away, and writes. When the
 * queue is full, or no collector is there, a message is dropped and
 * counted: a slow or absent collector never slows a worker.
 *
 * What is logged follows the dnstap-log-* switches; dnstap-sample-rate N
 * logs one message in N of each type. Queries to upstreams that carry RD
 * (forwarding) are FORWARDER_QUERY/RESPONSE, the others RESOLVER_*.
 *
 * Nothing here is on the path of a worker when dnstap-enable is no: the
 * callers hold a NULL writer and test it.
 *
 * Built only with libfstrm and protobuf-c (configure's USE_DNSTAP);
 * without them dt_io_create() fails, and the config refuses
 * dnstap-enable: yes before that (util/config_file.c).
 */
#ifndef UTIL_DNSTAP_H
#define UTIL_DNSTAP_H

#include <stdint.h>
#include <stddef.h>
#include <sys/time.h>

struct config_file;
struct netaddr;
struct dt_io;
struct fstrm_writer;
struct fstrm_writer_options;

/** the transport of a message (dnstap's SocketProtocol) */
enum dt_proto {
	/** plain UDP */
	DT_UDP = 1,
	/** plain TCP */
	DT_TCP = 2,
	/** DNS over TLS */
	DT_DOT = 3,
	/** DNS over HTTPS */
	DT_DOH = 4
};

/**
 * Makes the Frame Streams writer of a transport this layer cannot reach
 * (TLS lives in util/netevent/: dt_tls_writer_create).
 * @param cfg: the config.
 * @param arg: the maker's own argument, given to dt_io_create.
 * @param wopt: the writer options (content type), kept by the caller.
 * @param err: why it failed; errlen its size.
 * @return the writer, or NULL with err set.
 */
typedef struct fstrm_writer *(*dt_writer_maker_func)(
	const struct config_file *cfg, void *arg,
	const struct fstrm_writer_options *wopt, char *err, size_t errlen);

/**
 * Make a worker's writer from the dnstap: settings of cfg.
 * @param cfg: the config (dnstap_enable set, checked at load).
 * @param tls: the maker of the writer for dnstap over TLS (dnstap-ip
 *	with dnstap-tls), or NULL: then such a config fails here.
 * @param tls_arg: its argument.
 * @param err: why it failed; errlen its size.
 * @return the writer, or NULL on failure (or in a build without dnstap).
 */
struct dt_io *dt_io_create(const struct config_file *cfg,
	dt_writer_maker_func tls, void *tls_arg, char *err, size_t errlen);

/**
 * Stop a writer: the I/O thread writes what is queued if it can, closes
 * the stream and ends. NULL is allowed.
 */
void dt_io_delete(struct dt_io *io);

/** what a message is (its dnstap Message.Type is chosen from this and,
 * for upstream messages, the RD bit of the query) */
enum dt_what {
	/** a client's query */
	DT_CLIENT_QUERY = 0,
	/** an answer to a client */
	DT_CLIENT_RESPONSE,
	/** a query to an upstream server: RESOLVER_QUERY, or
	 * FORWARDER_QUERY when RD is set */
	DT_UPSTREAM_QUERY,
	/** an upstream server's reply: RESOLVER_RESPONSE, or
	 * FORWARDER_RESPONSE when the query had RD */
	DT_UPSTREAM_RESPONSE
};

/**
 * Log one message, if messages of its type are logged (and sampled).
 * The wrappers below say which arguments each kind uses.
 * @param io: the worker's writer.
 * @param what: enum dt_what.
 * @param peer: the client (client messages) or the server (upstream).
 * @param proto: enum dt_proto.
 * @param qtime: when the query was sent (upstream messages), or NULL for
 *	now (client query).
 * @param qpkt: the query, or NULL (client response); qlen its length.
 * @param rpkt: the response, or NULL (queries); rlen its length.
 */
void dt_log(struct dt_io *io, int what, const struct netaddr *peer,
	int proto, const struct timeval *qtime, const uint8_t *qpkt,
	size_t qlen, const uint8_t *rpkt, size_t rlen);

/** a client's query (CLIENT_QUERY) */
static inline void
dt_client_query(struct dt_io *io, const struct netaddr *client, int proto,
	const uint8_t *pkt, size_t len)
{
	dt_log(io, DT_CLIENT_QUERY, client, proto, NULL, pkt, len, NULL, 0);
}

/** an answer to a client (CLIENT_RESPONSE) */
static inline void
dt_client_response(struct dt_io *io, const struct netaddr *client,
	int proto, const uint8_t *pkt, size_t len)
{
	dt_log(io, DT_CLIENT_RESPONSE, client, proto, NULL, NULL, 0, pkt,
		len);
}

/** a query sent upstream at when (RESOLVER_ or FORWARDER_QUERY) */
static inline void
dt_upstream_query(struct dt_io *io, const struct netaddr *server,
	int proto, const struct timeval *when, const uint8_t *pkt, size_t len)
{
	dt_log(io, DT_UPSTREAM_QUERY, server, proto, when, pkt, len, NULL, 0);
}

/** the reply to the query qpkt sent at qtime (RESOLVER_ or
 * FORWARDER_RESPONSE) */
static inline void
dt_upstream_response(struct dt_io *io, const struct netaddr *server,
	int proto, const struct timeval *qtime, const uint8_t *qpkt,
	size_t qlen, const uint8_t *pkt, size_t len)
{
	dt_log(io, DT_UPSTREAM_RESPONSE, server, proto, qtime, qpkt, qlen,
		pkt, len);
}

/**
 * The writer's counters.
 * @param io: the writer.
 * @param sent: messages handed to the I/O thread.
 * @param dropped: messages dropped (queue full, out of memory).
 */
void dt_io_counts(const struct dt_io *io, uint64_t *sent, uint64_t *dropped);

#endif /* UTIL_DNSTAP_H */
