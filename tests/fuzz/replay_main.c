/*
 * tests/fuzz/replay_main.c - run a libFuzzer target over files, without
 * libFuzzer.
 *
 * Linked with any fuzz target (a file defining LLVMFuzzerTestOneInput),
 * this main() feeds it every regular file named on the command line or
 * found (non-recursively, in sorted order) in a directory named there, so
 * `make check` replays the seed corpora on every build, with any compiler.
 * Each input is copied into a malloc'd buffer of exactly its size, so an
 * ASan build catches a read one byte past the end.
 *
 * With no arguments it replays the paths compiled in as
 * REPLAY_DEFAULT_PATHS, a ':'-separated list; that lets a TESTS entry (which
 * cannot take arguments) replay a corpus. Give it per program, e.g.
 *   tests_fuzz_replay_X_CPPFLAGS = $(AM_CPPFLAGS) \
 *     -DREPLAY_DEFAULT_PATHS='"$(abs_top_srcdir)/tests/fuzz/corpus/X"'
 *
 * If the target defines LLVMFuzzerInitialize it is called first (weak
 * symbol, GCC and clang).
 *
 * Exit status: 0 when every input ran (a crash or abort in the target ends
 * the process, which is the failure), 1 when a path cannot be read or no
 * input was found.
 */
#include "config.h"
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
#ifdef __GNUC__
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));
#endif

/** inputs run */
static size_t replayed;

/** run one file; return 0 or -1 */
static int
run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long len;
	if(!f) {
		perror(path);
		return -1;
	}
	if(fseek(f, 0, SEEK_END) != 0 || (len = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0) {
		perror(path);
		fclose(f);
		return -1;
	}
	buf = malloc(len ? (size_t)len : 1);
	if(!buf || (len && fread(buf, 1, (size_t)len, f) != (size_t)len)) {
		fprintf(stderr, "%s: read failed\n", path);
		free(buf);
		fclose(f);
		return -1;
	}
	fclose(f);
	(void)LLVMFuzzerTestOneInput(buf, (size_t)len);
	free(buf);
	replayed++;
	return 0;
}

/** sort helper for directory entries */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/** run a file or every regular file in a directory */
static int
run_path(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int ret = 0;
	if(stat(path, &st) != 0) {
		perror(path);
		return -1;
	}
	if(!S_ISDIR(st.st_mode))
		return run_file(path);
	if(!(d = opendir(path))) {
		perror(path);
		return -1;
	}
	while((e = readdir(d)) != NULL) {
		if(e->d_name[0] == '.')
			continue;
		if(n == cap) {
			char **nn;
			cap = cap ? cap * 2 : 64;
			nn = realloc(names, cap * sizeof(*names));
			if(!nn) {
				ret = -1;
				break;
			}
			names = nn;
		}
		names[n] = malloc(strlen(path) + strlen(e->d_name) + 2);
		if(!names[n]) {
			ret = -1;
			break;
		}
		sprintf(names[n], "%s/%s", path, e->d_name);
		n++;
	}
	closedir(d);
	if(n)
		qsort(names, n, sizeof(*names), cmp_str);
	for(i = 0; i < n; i++) {
		if(ret == 0 && stat(names[i], &st) == 0 && S_ISREG(st.st_mode))
			if(run_file(names[i]) != 0)
				ret = -1;
		free(names[i]);
	}
	free(names);
	return ret;
}

int
main(int argc, char **argv)
{
	int i, ret = 0;
#ifdef __GNUC__
	if(LLVMFuzzerInitialize)
		LLVMFuzzerInitialize(&argc, &argv);
#endif
	if(argc > 1) {
		for(i = 1; i < argc; i++)
			if(run_path(argv[i]) != 0)
				ret = 1;
	} else {
#ifdef REPLAY_DEFAULT_PATHS
		char *paths = strdup(REPLAY_DEFAULT_PATHS), *p, *save = NULL;
		if(!paths)
			return 1;
		for(p = strtok_r(paths, ":", &save); p;
			p = strtok_r(NULL, ":", &save))
			if(run_path(p) != 0)
				ret = 1;
		free(paths);
#else
		fprintf(stderr, "usage: %s file-or-directory ...\n", argv[0]);
		return 1;
#endif
	}
	printf("%s: replayed %u inputs\n", argv[0], (unsigned)replayed);
	if(replayed == 0)
		ret = 1;
	return ret;
}
