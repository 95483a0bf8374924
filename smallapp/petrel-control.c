/*
 * smallapp/petrel-control.c - talk to a running petrel's control server.
 *
 *	petrel-control [-c file] [-s addr[@port]] command [args]
 *
 * Reads the remote-control: clause of the config (control-interface,
 * control-port, control-use-cert and the key files), connects to the
 * first control interface (a unix socket when it starts with '/', else
 * TCP, with TLS and our client certificate when control-use-cert is yes;
 * the server's certificate is checked against server-cert-file), sends
 * "PETREL1 command args\n" and prints the answer. load_cache sends its
 * standard input after the command line. Exit status: 0, or 1 when the
 * answer starts with "error" or the server cannot be reached.
 */
#include "config.h"
#include "daemon/remote.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/netaddr.h"
#include "util/version.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/un.h>
#include <openssl/ssl.h>
#include <openssl/err.h>

/** socket timeout, seconds (dumps of a large cache take a while) */
#define CONTROL_TIMEOUT 60

static void
usage(FILE *f)
{
	fprintf(f, "usage: petrel-control [-c file] [-s addr[@port]] command "
		"[args]\n"
		"  -c file   config file (default %s)\n"
		"  -s addr   server address (or /path of a unix socket)\n"
		"  -h        this help; -V version\n"
		"commands: status, stats, stats_noreset, flush_stats, reload,\n"
		"  reload_keep_cache, stop, verbosity N, log_reopen,\n"
		"  flush NAME, flush_zone NAME, flush_type NAME TYPE,\n"
		"  flush_negative, flush_bogus, "
		"flush_infra all|IP, flush_requestlist,\n  dump_cache, "
		"load_cache (from stdin), lookup NAME, dump_requestlist,\n"
		"  list_forwards, list_stubs, list_local_zones, "
		"list_local_data,\n  forward_add NAME ADDR.., forward_remove "
		"NAME, stub_add NAME ADDR.., stub_remove NAME,\n  local_zone "
		"NAME TYPE, local_zone_remove NAME, local_data RR,\n  "
		"local_data_remove NAME, get_option NAME, set_option NAME: "
		"VALUE,\n  insecure_add NAME, insecure_remove NAME, "
		"list_insecure,\n  list_auth_zones, auth_zone_reload NAME, "
		"auth_zone_transfer NAME,\n  rpz_enable ZONE, rpz_disable ZONE, "
		"view_list_local_zones VIEW,\n  view_list_local_data VIEW, "
		"view_local_zone VIEW NAME TYPE,\n  view_local_zone_remove "
		"VIEW NAME, view_local_data VIEW RR,\n  "
		"view_local_data_remove VIEW NAME,\n  add_cookie_secret HEX, "
		"activate_cookie_secret, drop_cookie_secret,\n  "
		"print_cookie_secrets\n", config_default_file());
}

/** print the OpenSSL errors */
static void
ssl_err(const char *what)
{
	unsigned long e;
	char buf[256];
	fprintf(stderr, "petrel-control: error %s", what);
	while((e = ERR_get_error()) != 0) {
		ERR_error_string_n(e, buf, sizeof(buf));
		fprintf(stderr, ": %s", buf);
	}
	fprintf(stderr, "\n");
}

/** connect; @return the socket or -1 (printed) */
static int
connect_to(const char *where, int port)
{
	struct timeval tv;
	int s;
	tv.tv_sec = CONTROL_TIMEOUT;
	tv.tv_usec = 0;
	if(where[0] == '/') {
		struct sockaddr_un sun;
		if(strlen(where) >= sizeof(sun.sun_path)) {
			fprintf(stderr, "petrel-control: error path too long: "
				"%s\n", where);
			return -1;
		}
		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		memcpy(sun.sun_path, where, strlen(where) + 1);
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		if(s == -1 || connect(s, (struct sockaddr *)&sun,
			sizeof(sun)) != 0) {
			fprintf(stderr, "petrel-control: error cannot connect to "
				"%s: %s\n", where, strerror(errno));
			if(s != -1)
				close(s);
			return -1;
		}
	} else {
		struct netaddr a;
		const char *e = NULL;
		if(netaddr_parse(where, port, &a, &e) != 0) {
			fprintf(stderr, "petrel-control: error bad address %s: "
				"%s\n", where, e ? e : "");
			return -1;
		}
		s = socket(a.addr.ss_family, SOCK_STREAM, 0);
		if(s == -1 || connect(s, (struct sockaddr *)&a.addr, a.len)
			!= 0) {
			fprintf(stderr, "petrel-control: error cannot connect to "
				"%s port %d: %s\n", where, netaddr_port(&a),
				strerror(errno));
			if(s != -1)
				close(s);
			return -1;
		}
	}
	(void)setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(s, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return s;
}

/** write all; @return 0 or -1 */
static int
send_all(int s, SSL *ssl, const char *p, size_t len)
{
	while(len > 0) {
		long r;
		if(ssl)
			r = SSL_write(ssl, p, (int)(len > 65536 ? 65536 : len));
		else	r = write(s, p, len);
		if(r <= 0) {
			if(!ssl && r < 0 && errno == EINTR)
				continue;
			return -1;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	const char *cfgfile = NULL, *server = NULL;
	struct config_file *cfg;
	char err[1024], buf[16384], *line;
	size_t llen, first_len = 0;
	char first[6];
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	int c, i, s, rc = 0, use_tls, clean = 0;
	log_ident_set("petrel-control");
	/* a server that closes early is an error to report, not a signal */
	signal(SIGPIPE, SIG_IGN);
	while((c = getopt(argc, argv, "c:s:hV")) != -1) {
		switch(c) {
		case 'c':
			cfgfile = optarg;
			break;
		case 's':
			server = optarg;
			break;
		case 'V':
			version_print(stdout, "petrel-control", NULL);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	argc -= optind;
	argv += optind;
	if(argc < 1) {
		usage(stderr);
		return 1;
	}
	if(!cfgfile)
		cfgfile = config_default_file();
	cfg = config_create();
	if(!cfg || config_read(cfg, cfgfile, err, sizeof(err)) != 0) {
		fprintf(stderr, "petrel-control: error %s\n", cfg ? err :
			"out of memory");
		return 1;
	}
	if(!server)
		server = config_control_interfaces(cfg)->str;
	use_tls = server[0] != '/' && cfg->control_use_cert;
	s = connect_to(server, cfg->control_port);
	if(s == -1) {
		config_delete(cfg);
		return 1;
	}
	if(use_tls) {
		ctx = SSL_CTX_new(TLS_client_method());
		if(!ctx) {
			ssl_err("SSL_CTX_new");
			rc = 1;
			goto out;
		}
		(void)SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
		if(SSL_CTX_use_certificate_chain_file(ctx,
			cfg->control_cert_file) != 1 ||
			SSL_CTX_use_PrivateKey_file(ctx, cfg->control_key_file,
			SSL_FILETYPE_PEM) != 1 ||
			SSL_CTX_check_private_key(ctx) != 1) {
			ssl_err("cannot use control-cert-file/control-key-file "
				"(run petrel-control-setup)");
			rc = 1;
			goto out;
		}
		if(SSL_CTX_load_verify_locations(ctx, cfg->server_cert_file,
			NULL) != 1) {
			ssl_err("cannot read server-cert-file");
			rc = 1;
			goto out;
		}
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		ssl = SSL_new(ctx);
		if(!ssl || !SSL_set_fd(ssl, s) || SSL_connect(ssl) != 1) {
			ssl_err("TLS handshake failed (wrong certificate?)");
			rc = 1;
			goto out;
		}
	}
	/* the command line */
	llen = strlen(REMOTE_PROTO) + 2;
	for(i = 0; i < argc; i++)
		llen += strlen(argv[i]) + 1;
	line = malloc(llen);
	if(!line) {
		rc = 1;
		goto out;
	}
	snprintf(line, llen, "%s", REMOTE_PROTO);
	for(i = 0; i < argc; i++) {
		strcat(line, " ");
		strcat(line, argv[i]);
	}
	strcat(line, "\n");
	if(send_all(s, ssl, line, strlen(line)) != 0) {
		free(line);
		if(ssl)
			ssl_err("TLS: the server closed the connection (did "
				"it refuse our certificate?)");
		else	fprintf(stderr, "petrel-control: error cannot send "
				"the command\n");
		rc = 1;
		goto out;
	}
	free(line);
	if(strcmp(argv[0], "load_cache") == 0) {
		size_t n;
		int saw_eof = 0;
		char last[4] = "";
		while((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
			if(send_all(s, ssl, buf, n) != 0) {
				rc = 1;
				goto out;
			}
			/* remember whether the input ended with "EOF\n" */
			if(n >= 4)
				memcpy(last, buf + n - 4, 4);
			saw_eof = n >= 4 && memcmp(last, "EOF\n", 4) == 0;
		}
		if(!saw_eof && send_all(s, ssl, "\nEOF\n", 5) != 0) {
			rc = 1;
			goto out;
		}
	}
	if(strcmp(argv[0], "local_zones") == 0 ||
		strcmp(argv[0], "local_zones_remove") == 0 ||
		strcmp(argv[0], "local_datas") == 0 ||
		strcmp(argv[0], "local_datas_remove") == 0) {
		/* the lines from stdin, then a line with the byte 0x04 */
		size_t n;
		int nl = 1;
		while((n = fread(buf, 1, sizeof(buf), stdin)) > 0) {
			if(send_all(s, ssl, buf, n) != 0) {
				rc = 1;
				goto out;
			}
			nl = buf[n - 1] == '\n';
		}
		if((!nl && send_all(s, ssl, "\n", 1) != 0) ||
			send_all(s, ssl, "\004\n", 2) != 0) {
			rc = 1;
			goto out;
		}
	}
	/* the answer, until the server closes (cleanly: an empty answer
	 * is fine, e.g. an empty list) */
	for(;;) {
		long n;
		if(ssl) {
			n = SSL_read(ssl, buf, sizeof(buf));
			if(n <= 0) {
				clean = SSL_get_error(ssl, (int)n) ==
					SSL_ERROR_ZERO_RETURN;
				break;
			}
		} else {
			n = read(s, buf, sizeof(buf));
			if(n <= 0) {
				clean = n == 0;
				break;
			}
		}
		if(first_len < 5) {
			size_t k = (size_t)n < 5 - first_len ? (size_t)n :
				5 - first_len;
			memcpy(first + first_len, buf, k);
			first_len += k;
		}
		fwrite(buf, 1, (size_t)n, stdout);
	}
	fflush(stdout);
	if(first_len == 0 && clean) {
		/* an empty answer */
	} else if(first_len == 0 && ssl) {
		ssl_err("TLS: no answer (did the server refuse our "
			"certificate?)");
		rc = 1;
	} else if(first_len == 0) {
		fprintf(stderr, "petrel-control: error no answer from the "
			"server\n");
		rc = 1;
	} else if(first_len >= 5 && memcmp(first, "error", 5) == 0)
		rc = 1;
out:
	if(ssl) {
		(void)SSL_shutdown(ssl);
		SSL_free(ssl);
	}
	if(ctx)
		SSL_CTX_free(ctx);
	close(s);
	config_delete(cfg);
	return rc;
}
