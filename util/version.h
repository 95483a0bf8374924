/*
 * util/version.h - what this build is: version, configure line, event
 * backends and thread models compiled in, library versions at run time.
 */
#ifndef UTIL_VERSION_H
#define UTIL_VERSION_H

#include <stdio.h>

/**
 * Print the `petrel -V` report to out.
 * @param progname: the program's name, the report's first word.
 * @param events: prints the event layer's lines (the backends compiled
 *	in and, in a build with io_uring, whether this kernel runs it). The
 *	caller passes netevent_version_print() (util/netevent/netevent.h):
 *	the event layer sits above util/, which does not call into it. NULL
 *	prints the backends configure found, without the run-time probe,
 *	for a program that does not link the event layer (petrel-control).
 */
void version_print(FILE *out, const char *progname,
	void (*events)(FILE *out));

/** @return the thread models this build can run, e.g. "pthreads fork". */
const char *version_thread_models(void);

#endif /* UTIL_VERSION_H */
