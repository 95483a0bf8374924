/*
 * tests/fuzz/fuzz_control.c - libFuzzer target for the control protocol
 * (what petrel-control's requests reach in daemon/remote.c), as far as
 * it runs without sockets or a daemon.
 *
 * Input: a request as it comes on a control connection: the request line
 * ("PETREL1 command args", or Unbound's "UBCT1 ..."), then, for the bulk
 * commands (local_zones, local_datas, ...), the payload lines, up to a
 * line holding the byte 0x04 (as petrel-control ends them). The target
 * splits the line with remote_parse_request, the parser serve_control
 * uses; the arguments go to remote_parse_name (the name argument of the
 * flush and lookup commands); a configuration command (local_zone,
 * local_data, forward_add, stub_add, view_local_zone, set_option, ...,
 * and the bulk ones) is applied by remote_cfg_change or
 * remote_cfg_change_bulk to a copy of a small running config with a few
 * zones and a view, as the supervisor does before its reload. Checked: a
 * refused change says why; a changed config still prints every option
 * and copies (what the reload does next). A broken invariant calls
 * abort(); memory errors and leaks are caught by ASan.
 *
 * Built with libFuzzer under --enable-fuzzing (tests/fuzz/fuzz_control);
 * linked with replay_main.c it replays tests/fuzz/corpus/control/ (made
 * by tests/fuzz/gen_corpus.py) in make check.
 */
#include "config.h"
#include "daemon/remote.h"
#include "daemon/remote_cfg.h"
#include "daemon/stats.h"
#include "dns/dns.h"
#include "dns/name.h"
#include "util/config_file.h"
#include "util/config_options.h"
#include "util/log.h"
#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/** abort when cond is false (kept in release builds, unlike assert) */
#define CHECK(cond) do { if(!(cond)) abort(); } while(0)

/** the running config the commands change (a copy each time) */
static const char base_conf[] =
	"server:\n"
	"  local-zone: \"example.\" static\n"
	"  local-zone: \"block.test.\" refuse\n"
	"  local-data: \"www.example. 3600 IN A 192.0.2.1\"\n"
	"  local-data: \"example. 3600 IN TXT \\\"hello\\\"\"\n"
	"  access-control-view: 127.0.0.0/8 v1\n"
	"view:\n"
	"  name: \"v1\"\n"
	"  local-zone: \"view.test.\" static\n"
	"  local-data: \"a.view.test. A 192.0.2.2\"\n"
	"forward-zone:\n"
	"  name: \"fwd.test.\"\n"
	"  forward-addr: 127.0.0.1@5353\n"
	"stub-zone:\n"
	"  name: \"stub.test.\"\n"
	"  stub-addr: 127.0.0.1@5354\n";

/** the config built from base_conf, once */
static struct config_file *
base(void)
{
	static struct config_file *cfg;
	char err[512];
	if(cfg)
		return cfg;
	cfg = config_create();
	CHECK(cfg != NULL);
	if(config_read_mem(cfg, "base.conf", base_conf, sizeof(base_conf) - 1,
		err, sizeof(err)) != 0)
		abort(); /* the base config above must load */
	return cfg;
}

/** a changed config prints and copies */
static void
check_config(const struct config_file *cfg)
{
	static char val[65536];
	struct config_file *copy;
	size_t i;
	for(i = 0; i < config_option_count; i++)
		CHECK(config_get_option_str(cfg, config_option_at(i)->name,
			val, sizeof(val)) == 0);
	copy = config_dup(cfg);
	CHECK(copy != NULL);
	config_delete(copy);
}

/** the fuzz entry point: one control request */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char logbuf[4096];
	char line[REMOTE_LINE_MAX], err[512], *cmd, *args, *payload;
	const char *nl, *one;
	struct config_file *cfg;
	size_t l;
	uint8_t nm[DNS_MAX_NAME + 1];
	size_t nmlen;
	int r;
	if(size > 65536)
		return 0;
	/* the request line, cut as conn_readline does */
	nl = memchr(data, '\n', size);
	l = nl ? (size_t)(nl - (const char *)data) : size;
	if(l >= sizeof(line) || memchr(data, 0, l))
		return 0; /* too long: refused before parsing */
	memcpy(line, data, l);
	line[l] = 0;
	if(l > 0 && line[l - 1] == '\r')
		line[l - 1] = 0;
	r = remote_parse_request(line, &cmd, &args);
	CHECK(r >= -1 && r <= 1);
	if(r < 0)
		return 0;
	/* the arguments come with no blank at either end */
	CHECK(strlen(args) == 0 || (!isspace((unsigned char)args[0]) &&
		!isspace((unsigned char)args[strlen(args) - 1])));
	/* a name argument, as flush, flush_zone and lookup take it */
	if(remote_parse_name(args, nm, &nmlen) == 0)
		CHECK(nmlen > 0 && dname_valid(nm, nmlen) == nmlen);
	/* the payload, NUL-terminated */
	payload = malloc(size - l + 1);
	CHECK(payload != NULL);
	if(nl)
		memcpy(payload, nl + 1, size - l - 1);
	payload[nl ? size - l - 1 : 0] = 0;
	/* the payload ends at a line holding the byte 0x04 (cmd_bulk) */
	{
		char *p = payload;
		while(p && *p) {
			if(p[0] == 0x04 && (p[1] == '\n' || p[1] == 0 ||
				(p[1] == '\r' && (p[2] == '\n' || !p[2])))) {
				*p = 0;
				break;
			}
			if((p = strchr(p, '\n')) != NULL)
				p++;
		}
	}
	log_capture(logbuf, sizeof(logbuf));
	cfg = config_dup(base());
	CHECK(cfg != NULL);
	if((one = remote_cfg_bulk_single(cmd)) != NULL) {
		struct stats_buf report;
		memset(&report, 0, sizeof(report));
		r = remote_cfg_change_bulk(cfg, one, payload, &report);
		CHECK(r >= 0);
		stats_buf_free(&report);
		check_config(cfg);
	} else {
		err[0] = 0;
		r = remote_cfg_change(cfg, cmd, args, err, sizeof(err));
		CHECK(r >= -1 && r <= 1);
		if(r == -1)
			CHECK(err[0] != 0); /* a refused change says why */
		if(r == 0)
			check_config(cfg);
	}
	config_delete(cfg);
	free(payload);
	log_capture(NULL, 0);
	return 0;
}
