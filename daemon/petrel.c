/*
 * daemon/petrel.c - the petrel daemon: command line and start-up.
 *
 *	petrel [-c file] [-d] [-p] [-v...] [-V] [-h]
 *
 * Reads the config (all or nothing; a bad line names file and line),
 * opens the log, checks the descriptor budget, binds every listening
 * socket, daemonizes unless -d or do-daemonize: no, writes the pidfile,
 * chroots and changes user, then runs the workers (daemon/daemon.c).
 */
#include "config.h"
#include "daemon/daemon.h"
#include "front/modstack.h"
#include "util/config_file.h"
#include "util/log.h"
#include "util/netevent/netevent.h"
#include "util/version.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** print usage */
static void
usage(FILE *out)
{
	fprintf(out, "usage: petrel [-c file] [-d] [-p] [-v...] [-V] [-h]\n"
		"  -c file  config file (default %s)\n"
		"  -d       do not daemonize, stay in the foreground\n"
		"  -p       do not write a pidfile (as unbound -p; for systemd)\n"
		"  -v       more verbose (repeat for more)\n"
		"  -V       print version, build options and libraries\n"
		"  -h       this help\n", config_default_file());
}

int
main(int argc, char *argv[])
{
	const char *cfgfile = NULL;
	struct config_file *cfg;
	struct daemon *d;
	char err[1024];
	int c, vcount = 0, foreground = 0, nopidfile = 0, rc;
	log_ident_set("petrel");
	/* module-config is checked against this build's modules */
	modstack_config_register();
	while((c = getopt(argc, argv, "c:dpvVh")) != -1) {
		switch(c) {
		case 'c':
			cfgfile = optarg;
			break;
		case 'd':
			foreground = 1;
			break;
		case 'p':
			nopidfile = 1;
			break;
		case 'v':
			vcount++;
			break;
		case 'V':
			version_print(stdout, "petrel", netevent_version_print);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if(optind != argc) {
		usage(stderr);
		return 1;
	}
	if(!cfgfile)
		cfgfile = config_default_file();
	cfg = config_create();
	if(!cfg) {
		fprintf(stderr, "petrel: out of memory\n");
		return 1;
	}
	if(config_read(cfg, cfgfile, err, sizeof(err)) != 0) {
		fprintf(stderr, "petrel: %s\n", err);
		config_delete(cfg);
		return 1;
	}
	if(foreground)
		cfg->do_daemonize = 0;
	if(nopidfile && config_set_option(cfg, "pidfile", "\"\"", err,
		sizeof(err)) != 0) {
		fprintf(stderr, "petrel: -p: %s\n", err);
		config_delete(cfg);
		return 1;
	}
	log_set_verbosity(cfg->verbosity + vcount);
	log_set_format(cfg->log_time_ascii, cfg->log_time_iso,
		cfg->log_thread_id);
	log_ident_set(cfg->log_identity[0] ? cfg->log_identity : "petrel");
	if((cfg->logfile[0] || cfg->use_syslog) &&
		log_init(cfg->logfile, cfg->use_syslog, NULL) != 0) {
		fprintf(stderr, "petrel: cannot open logfile %s: %s\n",
			cfg->logfile, strerror(errno));
		config_delete(cfg);
		return 1;
	}
	d = daemon_create(cfgfile, cfg);
	if(!d)
		return 1;
	d->cmdline_verbose = vcount;
	d->cmdline_foreground = foreground;
	if(daemon_check_fds(d) != 0 ||
		!(d->ls = listen_set_open(cfg, d->num_workers)) ||
		daemon_detach_and_drop(d) != 0) {
		log_err("petrel stops: it cannot start with %s (the error "
			"above says what to change)", cfgfile);
		daemon_delete(d);
		return 1;
	}
	rc = daemon_run(d);
	daemon_delete(d);
	log_close();
	return rc;
}
