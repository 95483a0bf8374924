/*
 * util/version.h - what this build is: version, configure line, event
 * backends and thread models compiled in, library versions at run time.
 */
#ifndef UTIL_VERSION_H
#define UTIL_VERSION_H

#include <stdio.h>

/** Print the `petrel -V` report to out. */
void version_print(FILE *out, const char *progname);

/** @return the thread models this build can run, e.g. "pthreads fork". */
const char *version_thread_models(void);

#endif /* UTIL_VERSION_H */
