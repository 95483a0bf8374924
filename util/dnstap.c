/*
 * util/dnstap.c - dnstap logging through libfstrm's I/O thread, messages
 * encoded with protobuf-c from util/dnstap.proto. See util/dnstap.h for
 * the design; this file is the encoding and the writer set-up.
 *
 * A message is encoded into one heap buffer sized by protobuf-c and handed
 * to the queue, which frees it after writing (fstrm_free_wrapper). That
 * allocation is per logged message only: with dnstap off nothing here
 * runs.
 */
#include "config.h"
#include "util/dnstap.h"
#include "util/config_file.h"
#include "util/netaddr.h"
#include "util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#ifdef USE_DNSTAP
#include <fstrm.h>
#include <protobuf-c/protobuf-c.h>
#include "util/dnstap.pb-c.h"

/** the content type of the frames, as dnstap readers expect it */
#define DT_CONTENT_TYPE "protobuf:dnstap.Dnstap"
/** messages queued per worker before new ones are dropped (a power of 2) */
#define DT_QUEUE_SIZE 4096

/** message types a writer tells apart, for the switches and sampling */
enum dt_kind {
	DTK_CLIENT_QUERY = 0,
	DTK_CLIENT_RESPONSE,
	DTK_RESOLVER_QUERY,
	DTK_RESOLVER_RESPONSE,
	DTK_FORWARDER_QUERY,
	DTK_FORWARDER_RESPONSE,
	DTK_NUM
};

struct dt_io {
	/** libfstrm's I/O thread (owns the writer) */
	struct fstrm_iothr *iothr;
	/** this worker's queue into it */
	struct fstrm_iothr_queue *queue;
	/** per kind: logged at all */
	int want[DTK_NUM];
	/** per kind: messages seen, for the sampling */
	uint64_t seen[DTK_NUM];
	/** log one in this many (1 = all) */
	uint64_t sample;
	/** identity to send (malloced), or NULL */
	char *identity;
	/** version to send (malloced), or NULL */
	char *version;
	/** messages queued */
	uint64_t sent;
	/** messages dropped */
	uint64_t dropped;
};

/** the dnstap Message.Type of each kind */
static const int kind_type[DTK_NUM] = {
	DNSTAP__MESSAGE__TYPE__CLIENT_QUERY,
	DNSTAP__MESSAGE__TYPE__CLIENT_RESPONSE,
	DNSTAP__MESSAGE__TYPE__RESOLVER_QUERY,
	DNSTAP__MESSAGE__TYPE__RESOLVER_RESPONSE,
	DNSTAP__MESSAGE__TYPE__FORWARDER_QUERY,
	DNSTAP__MESSAGE__TYPE__FORWARDER_RESPONSE
};

/** make the Frame Streams writer for the configured collector: TLS
 * (the maker tls, with tls_arg) or plain TCP to dnstap-ip, or the unix
 * socket */
static struct fstrm_writer *
make_writer(const struct config_file *cfg, dt_writer_maker_func tls,
	void *tls_arg, char *err, size_t errlen)
{
	struct fstrm_writer_options *wopt = fstrm_writer_options_init();
	struct fstrm_writer *w = NULL;
	if(!wopt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	fstrm_writer_options_add_content_type(wopt, DT_CONTENT_TYPE,
		strlen(DT_CONTENT_TYPE));
	if(cfg->dnstap_ip && cfg->dnstap_ip[0] && cfg->dnstap_tls) {
		/* errors are set by it, with the file they concern */
		if(tls)
			w = (*tls)(cfg, tls_arg, wopt, err, errlen);
		else	snprintf(err, errlen, "dnstap-tls: no TLS transport");
		fstrm_writer_options_destroy(&wopt);
		return w;
	} else if(cfg->dnstap_ip && cfg->dnstap_ip[0]) {
		struct fstrm_tcp_writer_options *topt;
		struct netaddr a;
		const char *why = NULL;
		char host[NETADDR_STRLEN], port[8];
		const uint8_t *b;
		size_t n;
		if(netaddr_parse(cfg->dnstap_ip, 6000, &a, &why) != 0) {
			snprintf(err, errlen, "dnstap-ip '%s': %s",
				cfg->dnstap_ip, why ? why : "not an address");
			goto done;
		}
		b = netaddr_bytes(&a, &n);
		if(!b || !inet_ntop(netaddr_family(&a), b, host,
			sizeof(host))) {
			snprintf(err, errlen, "dnstap-ip '%s': not an address",
				cfg->dnstap_ip);
			goto done;
		}
		snprintf(port, sizeof(port), "%d", netaddr_port(&a));
		topt = fstrm_tcp_writer_options_init();
		if(!topt) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		fstrm_tcp_writer_options_set_socket_address(topt, host);
		fstrm_tcp_writer_options_set_socket_port(topt, port);
		w = fstrm_tcp_writer_init(topt, wopt);
		fstrm_tcp_writer_options_destroy(&topt);
	} else {
		struct fstrm_unix_writer_options *uopt =
			fstrm_unix_writer_options_init();
		if(!uopt) {
			snprintf(err, errlen, "out of memory");
			goto done;
		}
		fstrm_unix_writer_options_set_socket_path(uopt,
			cfg->dnstap_socket_path);
		w = fstrm_unix_writer_init(uopt, wopt);
		fstrm_unix_writer_options_destroy(&uopt);
	}
	if(!w)
		snprintf(err, errlen, "cannot make the Frame Streams writer");
done:
	fstrm_writer_options_destroy(&wopt);
	return w;
}

struct dt_io *
dt_io_create(const struct config_file *cfg, dt_writer_maker_func tls,
	void *tls_arg, char *err, size_t errlen)
{
	struct dt_io *io = calloc(1, sizeof(*io));
	struct fstrm_iothr_options *iopt = NULL;
	struct fstrm_writer *w;
	if(!io) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	io->want[DTK_CLIENT_QUERY] = cfg->dnstap_log_client_query;
	io->want[DTK_CLIENT_RESPONSE] = cfg->dnstap_log_client_response;
	io->want[DTK_RESOLVER_QUERY] = cfg->dnstap_log_resolver_query;
	io->want[DTK_RESOLVER_RESPONSE] = cfg->dnstap_log_resolver_response;
	io->want[DTK_FORWARDER_QUERY] = cfg->dnstap_log_forwarder_query;
	io->want[DTK_FORWARDER_RESPONSE] = cfg->dnstap_log_forwarder_response;
	io->sample = cfg->dnstap_sample_rate > 0 ?
		(uint64_t)cfg->dnstap_sample_rate : 1;
	if(cfg->dnstap_send_identity) {
		char host[256];
		const char *id = cfg->dnstap_identity;
		if(!id || !id[0]) {
			if(gethostname(host, sizeof(host)) != 0)
				snprintf(host, sizeof(host), "petrel");
			host[sizeof(host) - 1] = 0;
			id = host;
		}
		if(!(io->identity = strdup(id)))
			goto oom;
	}
	if(cfg->dnstap_send_version) {
		const char *v = cfg->dnstap_version;
		if(!v || !v[0])
			v = "petrel " PACKAGE_VERSION;
		if(!(io->version = strdup(v)))
			goto oom;
	}
	if(!(w = make_writer(cfg, tls, tls_arg, err, errlen)))
		goto fail;
	if(!(iopt = fstrm_iothr_options_init())) {
		fstrm_writer_destroy(&w);
		goto oom;
	}
	fstrm_iothr_options_set_num_input_queues(iopt, 1);
	fstrm_iothr_options_set_queue_model(iopt,
		FSTRM_IOTHR_QUEUE_MODEL_SPSC);
	fstrm_iothr_options_set_input_queue_size(iopt, DT_QUEUE_SIZE);
	/* a collector that is away (or not listening yet) is tried again
	 * every second, not every 5 (libfstrm's default): less is lost */
	fstrm_iothr_options_set_reopen_interval(iopt, 1);
	/* the I/O thread takes the writer, also when it fails */
	io->iothr = fstrm_iothr_init(iopt, &w);
	fstrm_iothr_options_destroy(&iopt);
	if(!io->iothr) {
		snprintf(err, errlen, "cannot start the dnstap I/O thread");
		goto fail;
	}
	io->queue = fstrm_iothr_get_input_queue(io->iothr);
	if(!io->queue) {
		snprintf(err, errlen, "no dnstap input queue");
		goto fail;
	}
	return io;
oom:
	snprintf(err, errlen, "out of memory");
fail:
	dt_io_delete(io);
	return NULL;
}

void
dt_io_delete(struct dt_io *io)
{
	if(!io)
		return;
	if(io->iothr)
		fstrm_iothr_destroy(&io->iothr);
	free(io->identity);
	free(io->version);
	free(io);
}

void
dt_io_counts(const struct dt_io *io, uint64_t *sent, uint64_t *dropped)
{
	*sent = io->sent;
	*dropped = io->dropped;
}

/** whether to log a message of this kind now (switch and sampling) */
static int
dt_take(struct dt_io *io, int kind)
{
	if(!io->want[kind])
		return 0;
	return io->seen[kind]++ % io->sample == 0;
}

/** fill an address and port pair of m, and the family, from a */
static void
dt_set_addr(Dnstap__Message *m, const struct netaddr *a, int query_side)
{
	const uint8_t *b;
	size_t n;
	if(!a || !(b = netaddr_bytes(a, &n)))
		return;
	m->has_socket_family = 1;
	m->socket_family = netaddr_family(a) == AF_INET6 ?
		DNSTAP__SOCKET_FAMILY__INET6 : DNSTAP__SOCKET_FAMILY__INET;
	if(query_side) {
		m->has_query_address = 1;
		m->query_address.data = (uint8_t *)b;
		m->query_address.len = n;
		m->has_query_port = 1;
		m->query_port = (uint32_t)netaddr_port(a);
	} else {
		m->has_response_address = 1;
		m->response_address.data = (uint8_t *)b;
		m->response_address.len = n;
		m->has_response_port = 1;
		m->response_port = (uint32_t)netaddr_port(a);
	}
}

/** encode m in a frame and queue it; counts the outcome */
static void
dt_submit(struct dt_io *io, Dnstap__Message *m)
{
	Dnstap__Dnstap d = DNSTAP__DNSTAP__INIT;
	size_t len;
	uint8_t *buf;
	d.type = DNSTAP__DNSTAP__TYPE__MESSAGE;
	d.message = m;
	if(io->identity) {
		d.has_identity = 1;
		d.identity.data = (uint8_t *)io->identity;
		d.identity.len = strlen(io->identity);
	}
	if(io->version) {
		d.has_version = 1;
		d.version.data = (uint8_t *)io->version;
		d.version.len = strlen(io->version);
	}
	len = dnstap__dnstap__get_packed_size(&d);
	if(!(buf = malloc(len))) {
		io->dropped++;
		return;
	}
	dnstap__dnstap__pack(&d, buf);
	if(fstrm_iothr_submit(io->iothr, io->queue, buf, len,
		fstrm_free_wrapper, NULL) != fstrm_res_success) {
		free(buf);
		io->dropped++;
		return;
	}
	io->sent++;
}

/** the time now, for a message's time fields */
static void
dt_now(uint64_t *sec, uint32_t *nsec)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	*sec = (uint64_t)ts.tv_sec;
	*nsec = (uint32_t)ts.tv_nsec;
}

void
dt_log(struct dt_io *io, int what, const struct netaddr *peer, int proto,
	const struct timeval *qtime, const uint8_t *qpkt, size_t qlen,
	const uint8_t *rpkt, size_t rlen)
{
	Dnstap__Message m = DNSTAP__MESSAGE__INIT;
	int kind;
	/* RD in the query: a forward-zone's server, else an authority */
	int rd = qpkt && qlen >= 3 && (qpkt[2] & 0x01);
	switch(what) {
	case DT_CLIENT_QUERY: kind = DTK_CLIENT_QUERY; break;
	case DT_CLIENT_RESPONSE: kind = DTK_CLIENT_RESPONSE; break;
	case DT_UPSTREAM_QUERY:
		kind = rd ? DTK_FORWARDER_QUERY : DTK_RESOLVER_QUERY;
		break;
	default:
		kind = rd ? DTK_FORWARDER_RESPONSE : DTK_RESOLVER_RESPONSE;
		break;
	}
	if(!dt_take(io, kind))
		return;
	m.type = kind_type[kind];
	m.has_socket_protocol = 1;
	m.socket_protocol = proto;
	/* the client asked (query side); a server answered (response side) */
	dt_set_addr(&m, peer, what == DT_CLIENT_QUERY ||
		what == DT_CLIENT_RESPONSE);
	/* a client's query is logged with its message, an upstream reply
	 * with the reply only (the query went in its own message) */
	if(qpkt && what != DT_UPSTREAM_RESPONSE) {
		m.has_query_message = 1;
		m.query_message.data = (uint8_t *)qpkt;
		m.query_message.len = qlen;
	}
	if(qtime || what == DT_CLIENT_QUERY) {
		m.has_query_time_sec = m.has_query_time_nsec = 1;
		if(qtime) {
			m.query_time_sec = (uint64_t)qtime->tv_sec;
			m.query_time_nsec = (uint32_t)qtime->tv_usec * 1000;
		} else	dt_now(&m.query_time_sec, &m.query_time_nsec);
	}
	if(rpkt) {
		m.has_response_message = 1;
		m.response_message.data = (uint8_t *)rpkt;
		m.response_message.len = rlen;
		m.has_response_time_sec = m.has_response_time_nsec = 1;
		dt_now(&m.response_time_sec, &m.response_time_nsec);
	}
	dt_submit(io, &m);
}

#else /* !USE_DNSTAP */

/* A build without libfstrm and protobuf-c: the config refuses
 * dnstap-enable: yes, so no writer is ever asked for; should one be, it
 * fails with the reason. dt_log is never reached (its callers hold no
 * writer). */

struct dt_io *
dt_io_create(const struct config_file *cfg, dt_writer_maker_func tls,
	void *tls_arg, char *err, size_t errlen)
{
	(void)cfg;
	(void)tls;
	(void)tls_arg;
	snprintf(err, errlen, "this petrel is built without dnstap");
	return NULL;
}

void
dt_io_delete(struct dt_io *io)
{
	(void)io;
}

void
dt_log(struct dt_io *io, int what, const struct netaddr *peer, int proto,
	const struct timeval *qtime, const uint8_t *qpkt, size_t qlen,
	const uint8_t *rpkt, size_t rlen)
{
	(void)io; (void)what; (void)peer; (void)proto; (void)qtime;
	(void)qpkt; (void)qlen; (void)rpkt; (void)rlen;
}

void
dt_io_counts(const struct dt_io *io, uint64_t *sent, uint64_t *dropped)
{
	(void)io;
	*sent = 0;
	*dropped = 0;
}

#endif /* USE_DNSTAP */
