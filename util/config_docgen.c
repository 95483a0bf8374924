/*
 * util/config_docgen.c - print example.conf or petrel.conf(5) from the
 * option table. Used by 'make config-docs'; not installed.
 *
 *	config_docgen example > example.conf
 *	config_docgen man > doc/petrel.conf.5
 */
#include "config.h"
#include "util/config_doc.h"
#include <stdio.h>
#include <string.h>

/** main: print the document named by argv[1] */
int
main(int argc, char *argv[])
{
	int r;
	if(argc != 2 || (strcmp(argv[1], "example") != 0 &&
		strcmp(argv[1], "man") != 0)) {
		fprintf(stderr, "usage: config_docgen example|man\n");
		return 1;
	}
	if(strcmp(argv[1], "example") == 0)
		r = config_doc_example(stdout);
	else
		r = config_doc_manpage(stdout);
	if(r != 0 || fflush(stdout) != 0) {
		perror("config_docgen: write");
		return 1;
	}
	return 0;
}
