/*
 * tests/fuzz/fuzz_config.c - libFuzzer target for the config parser.
 *
 * The input is a config file's text, loaded with config_read_mem() into a
 * fresh config (and, when it loads, printed back through every option of
 * the table, and copied with config_dup()); its first line is also given
 * to config_set_option() as "name: value". Inputs that contain
 * "include" are skipped: an include reads files from disk (it could name
 * /dev/stdin and block), which is not what this target tests; the include
 * code is covered by tests/check_config.c.
 *
 * Built with -fsanitize=fuzzer when configure has --enable-fuzzing; linked
 * with tests/fuzz/replay_main.c it replays the seed corpus
 * (tests/fuzz/corpus/config/) in make check.
 */
#include "config.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** the fuzz entry point: parse one config text */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char logbuf[4096];
	char err[512], val[4096];
	struct config_file *cfg, *copy;
	size_t i;
	if(size > 65536 || memmem(data, size, "include", 7) != NULL)
		return 0;
	/* warnings are expected; keep them off stderr */
	log_capture(logbuf, sizeof(logbuf));
	cfg = config_create();
	if(!cfg)
		abort();
	if(config_read_mem(cfg, "fuzz.conf", (const char *)data, size, err,
		sizeof(err)) == 0) {
		for(i = 0; i < config_option_count; i++) {
			if(config_get_option_str(cfg, config_option_at(i)->name,
				val, sizeof(val)) != 0)
				abort();
		}
		copy = config_dup(cfg);
		if(!copy)
			abort();
		config_delete(copy);
	} else if(err[0] == 0) {
		abort(); /* a failed load must say why */
	}
	/* the runtime path (petrel-control set_option): "name: value" */
	{
		char line[512];
		size_t n = size < sizeof(line) - 1 ? size : sizeof(line) - 1;
		char *colon;
		memcpy(line, data, n);
		line[n] = 0;
		colon = strchr(line, ':');
		if(colon) {
			*colon = 0;
			if(config_set_option(cfg, line, colon + 1, err,
				sizeof(err)) != 0 && err[0] == 0)
				abort();
			if(config_get_option_str(cfg, line, val, sizeof(val))
				!= 0 && config_option_find(line, -1))
				abort();
		}
	}
	config_delete(cfg);
	log_capture(NULL, 0);
	return 0;
}
