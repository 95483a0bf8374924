/*
 * daemon/petrel.c - the petrel daemon: command line and start-up.
 */
#include "config.h"
#include "util/log.h"
#include "util/version.h"
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/** print usage */
static void
usage(FILE *out)
{
	fprintf(out, "usage: petrel [-c file] [-d] [-v...] [-V] [-h]\n"
		"  -c file  config file (default %s)\n"
		"  -d       do not daemonize, stay in the foreground\n"
		"  -v       more verbose (repeat for more)\n"
		"  -V       print version, build options and libraries\n"
		"  -h       this help\n", "/etc/petrel/petrel.conf");
}

int
main(int argc, char *argv[])
{
	int c;
	while((c = getopt(argc, argv, "c:dvVh")) != -1) {
		switch(c) {
		case 'V':
			version_print(stdout, "petrel");
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		case 'c': case 'd': case 'v':
			break;
		default:
			usage(stderr);
			return 1;
		}
	}
	log_err("the resolver core is not built yet");
	return 1;
}
