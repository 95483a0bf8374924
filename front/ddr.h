/*
 * front/ddr.h - Discovery of Designated Resolvers (RFC 9462): the
 * answer to _dns.resolver.arpa SVCB that tells a client where this
 * resolver speaks DNS over TLS and DNS over HTTPS.
 *
 * The records are made once, at load, from the listening config (every
 * interface on tls-port with the TLS key is a DoT endpoint, every one on
 * https-port with TLS a DoH endpoint; h2c behind a proxy is not
 * advertised, the proxy's own address and port are not known) and given
 * to the local zones as a static zone _dns.resolver.arpa with local data,
 * so the answer path is the local zones' one (access control, EDNS,
 * truncation) and other types get NODATA. One SVCB per protocol: DoH
 * first (priority 1: alpn h2, port, the interfaces' addresses as
 * ipv4hint/ipv6hint when they are not wildcards, dohpath
 * http-endpoint{?dns}), then DoT (alpn dot). The TargetName is
 * ddr-target-name, or else the first DNS name of tls-service-pem's
 * certificate, which is what a client verifies (RFC 9462 section 4.2).
 */
#ifndef FRONT_DDR_H
#define FRONT_DDR_H

#include <stddef.h>

struct local_zones;
struct config_file;

/**
 * Add the DDR zone and records to local zones (before local_zones_finish)
 * when ddr is on and DoT or DoH is served; nothing otherwise, or when the
 * config has its own local-zone or local-data at _dns.resolver.arpa.
 * Without ddr-target-name and without a DNS name in the certificate,
 * DDR is left out with a warning (it is on by default).
 * @return 0, or -1 with err set (a record does not parse).
 */
int ddr_add_local(struct local_zones *lz, const struct config_file *cfg,
	char *err, size_t errlen);

#endif /* FRONT_DDR_H */
