/*
 * smallapp/petrel-checkconf.c - check a petrel config file.
 *
 *	petrel-checkconf [-f] [-o option] [file]
 *
 * Loads the file (default /etc/petrel/petrel.conf) with the daemon's own
 * loader, then makes the daemon's start-up checks of what is built from
 * it (env_check: zone files, views, RPZ, cookie secrets, and each module
 * of module-config, so a missing auto-trust-anchor-file or
 * trusted-keys-file fails here as it fails the start, as
 * unbound-checkconf does), and prints "petrel-checkconf: no errors in
 * FILE" (exit 0), or the error: "file:line: what was expected" (exit 1). Options petrel
 * ignores are reported as warnings on stderr and do not fail the check.
 * -o prints one option's value instead (init scripts read the pidfile this
 * way); -f prints the full path of the file.
 */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include "daemon/env.h"
#include "front/modstack.h"
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/** room for the warnings of one load (one line per ignored option) */
#define WARN_BUF (256 * 1024)

/** print usage and exit 1 */
static void
usage(void)
{
	fprintf(stderr, "usage: petrel-checkconf [-h] [-f] [-o option] "
		"[file]\n");
	fprintf(stderr, "	Checks a petrel configuration file.\n");
	fprintf(stderr, "	file	the config file (default %s)\n",
		config_default_file());
	fprintf(stderr, "	-o opt	print the value of one option\n");
	fprintf(stderr, "	-f	print the full path of the file\n");
	fprintf(stderr, "	-h	this help\n");
	exit(1);
}

/**
 * Go where the daemon is when it reads its files: into chroot: (only
 * as root; otherwise say so, and check the paths as they are) and to
 * directory: when it exists, so that relative paths resolve as in the
 * daemon.
 * @return 0, or -1 with err set.
 */
static int
enter_dirs(const struct config_file *cfg, char *err, size_t errlen)
{
	const char *dir = cfg->directory;
	int rooted = 0;
	if(cfg->chroot[0]) {
		if(geteuid() == 0) {
			if(chroot(cfg->chroot) != 0 || chdir("/") != 0) {
				snprintf(err, errlen, "chroot: cannot change "
					"root to %s: %s", cfg->chroot,
					strerror(errno));
				return -1;
			}
			rooted = 1;
		} else	fprintf(stderr, "petrel-checkconf: not root: the "
				"files are checked outside chroot: %s\n",
				cfg->chroot);
	}
	if(rooted && strncmp(dir, cfg->chroot, strlen(cfg->chroot)) == 0)
		dir += strlen(cfg->chroot);
	/* a directory: that does not exist here (a config checked on
	 * another machine than it runs on) is not this check's business:
	 * the paths are then taken from the current directory */
	if(dir[0] && chdir(dir) != 0)
		verbose(VERB_ALGO, "directory: %s: %s", dir, strerror(errno));
	return 0;
}

/** main: check the file, or print one option */
int
main(int argc, char *argv[])
{
	const char *file, *opt = NULL;
	int c, r, fullpath = 0, ret = 0;
	char *warnings;
	char err[1024];
	struct config_file *cfg;

	while((c = getopt(argc, argv, "fho:")) != -1) {
		switch(c) {
		case 'f':
			fullpath = 1;
			break;
		case 'o':
			opt = optarg;
			break;
		case 'h':
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if(argc > 1)
		usage();
	file = argc == 1 ? argv[0] : config_default_file();
	log_ident_set("petrel-checkconf");
	modstack_config_register();

	if(fullpath) {
		char real[PATH_MAX];
		if(!realpath(file, real)) {
			fprintf(stderr, "petrel-checkconf: %s: cannot resolve "
				"the path\n", file);
			return 1;
		}
		printf("%s\n", real);
		return 0;
	}
	if(opt && !config_option_find(opt, -1)) {
		fprintf(stderr, "petrel-checkconf: unknown option '%s', did "
			"you mean '%s'?\n", opt, config_option_nearest(opt));
		return 1;
	}
	cfg = config_create();
	if(!cfg) {
		fprintf(stderr, "petrel-checkconf: out of memory\n");
		return 1;
	}
	/* collect the warnings, to print them without the log's time and
	 * pid prefix: "warning: file:line: x: not implemented ..." */
	warnings = calloc(1, WARN_BUF);
	if(warnings)
		log_capture(warnings, WARN_BUF);
	r = config_read(cfg, file, err, sizeof(err));
	log_capture(NULL, 0);
	if(warnings) {
		fputs(warnings, stderr);
		free(warnings);
	}
	if(r != 0) {
		fprintf(stderr, "%s\n", err);
		config_delete(cfg);
		return 1;
	}
	if(!opt) {
		/* what the daemon builds from the config at start-up (zone
		 * files read, trust anchors loaded), built and freed; no
		 * caches, no sockets, no network; from where the daemon
		 * reads them */
		if(enter_dirs(cfg, err, sizeof(err)) != 0 ||
			env_check(cfg, err, sizeof(err)) != 0) {
			fprintf(stderr, "%s\n", err);
			config_delete(cfg);
			return 1;
		}
		/* the user the daemon changes to must exist, as at start-up
		 * (unbound-checkconf checks it too) */
		if(cfg->username[0] && !getpwnam(cfg->username)) {
			fprintf(stderr, "%s: username: user '%s' does not "
				"exist: create it (adduser --system --group "
				"%s, as petrel's package does), or name another "
				"user in username:\n", file, cfg->username,
				cfg->username);
			config_delete(cfg);
			return 1;
		}
	}
	if(opt) {
		/* an option petrel accepts and ignores has no value: say so
		 * (and why) on stderr, stdout stays the value's */
		const struct config_option *io = config_option_find(opt, -1);
		if(io && io->type == OPT_IGNORED)
			fprintf(stderr, "petrel-checkconf: %s: ignored: %s\n",
				io->name, io->desc ? io->desc :
				"not implemented by petrel");
	}
	if(opt) {
		/* grow the buffer until the value fits (a block list of
		 * local-zone: lines can be many megabytes) */
		size_t len = 64 * 1024;
		char *buf = NULL;
		for(;;) {
			char *nb = realloc(buf, len);
			if(!nb || config_get_option_str(cfg, opt, nb, len)
				!= 0) {
				free(nb ? nb : buf);
				buf = NULL;
				break;
			}
			buf = nb;
			if(strlen(buf) < len - 1 || len >= ((size_t)1 << 31))
				break;
			len *= 2;
		}
		if(!buf) {
			fprintf(stderr, "petrel-checkconf: cannot print '%s'\n",
				opt);
			ret = 1;
		} else if(buf[0]) {
			printf("%s\n", buf);
		}
		free(buf);
	} else {
		printf("petrel-checkconf: no errors in %s\n", file);
	}
	config_delete(cfg);
	return ret;
}
