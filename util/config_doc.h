/*
 * util/config_doc.h - example.conf and petrel.conf(5) from the option table.
 *
 * Both documents are generated from config_option_table, so that they
 * cannot disagree with the parser: `make config-docs` runs
 * util/config_docgen to rewrite them in the source tree, and
 * tests/check_config.c fails when the committed files differ from what
 * these functions print. Edit the table (and the prose in config_doc.c),
 * never the generated files.
 */
#ifndef UTIL_CONFIG_DOC_H
#define UTIL_CONFIG_DOC_H

#include <stdio.h>

/**
 * Print example.conf: every option, commented out with its default and a
 * line on what it does, except the few that make the example run as it is
 * (127.0.0.1 port 5353, foreground, no user change, localhost allowed).
 * @param out: where to write.
 * @return 0, or -1 on a write error.
 */
int config_doc_example(FILE *out);

/**
 * Print the petrel.conf(5) man page (roff).
 * @param out: where to write.
 * @return 0, or -1 on a write error.
 */
int config_doc_manpage(FILE *out);

#endif /* UTIL_CONFIG_DOC_H */
