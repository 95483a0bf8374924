/*
 * util/version.c - the `petrel -V` report.
 */
#include "config.h"
#ifdef HAVE_HIREDIS
#include <hiredis/hiredis.h>
#endif
#include "util/version.h"
#include "util/thread.h"
#include <openssl/crypto.h>
#include <ldns/ldns.h>
#ifdef USE_DNSTAP
#include <protobuf-c/protobuf-c.h>
#endif
#ifdef HAVE_LIBEVENT
#include <event2/event.h>
#endif
#ifdef HAVE_NGHTTP2
#include <nghttp2/nghttp2.h>
#endif
#ifdef HAVE_LIBXDP
#include <bpf/libbpf.h>
#endif

const char *
version_thread_models(void)
{
#if defined(HAVE_SOLARIS_THREADS)
	return "solaris fork";
#elif defined(HAVE_PTHREAD)
	return "pthreads fork";
#else
	return "fork";
#endif
}

void
version_print(FILE *out, const char *progname, void (*events)(FILE *out))
{
	fprintf(out, "%s %s\n", progname, PACKAGE_VERSION);
	fprintf(out, "configure line: %s\n", CONFIGURE_LINE);
	if(events)
		(*events)(out);
	else
#ifdef HAVE_LIBEVENT
		fprintf(out, "event backends: select libevent\n");
#else
		fprintf(out, "event backends: select\n");
#endif
	fprintf(out, "thread models: %s\n", version_thread_models());
	fprintf(out, "thread library: %s\n", thread_lib_name());
#ifdef HAVE_LIBEVENT
	fprintf(out, "libevent: %s (method %s)\n", event_get_version(),
		"chosen per event base");
#else
	fprintf(out, "libevent: not compiled in\n");
#endif
#ifdef HAVE_HIREDIS
	fprintf(out, "hiredis: %d.%d.%d (cachedb backend redis)\n",
		HIREDIS_MAJOR, HIREDIS_MINOR, HIREDIS_PATCH);
#else
	fprintf(out, "hiredis: not compiled in (no cachedb backend)\n");
#endif
	fprintf(out, "OpenSSL: %s\n", OpenSSL_version(OPENSSL_VERSION));
	fprintf(out, "ldns: %s\n", ldns_version());
#ifdef USE_DNSTAP
	fprintf(out, "dnstap: yes (libfstrm, protobuf-c %s)\n",
		protobuf_c_version());
#else
	fprintf(out, "dnstap: not compiled in\n");
#endif
#ifdef HAVE_NGHTTP2
	fprintf(out, "nghttp2: %s (DNS over HTTPS)\n",
		nghttp2_version(0)->version_str);
#else
	fprintf(out, "nghttp2: not compiled in (no DNS over HTTPS)\n");
#endif
#ifdef HAVE_LIBXDP
	fprintf(out, "libxdp: yes, libbpf %s (AF_XDP fast path, "
		"xdp-interface)\n", libbpf_version_string());
#else
	fprintf(out, "libxdp: not compiled in (no xdp-interface)\n");
#endif
}
