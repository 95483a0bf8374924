/*
 * daemon/remote_cfg.h - the control commands that change the
 * configuration: local_zone(s), local_data(s) and their _remove,
 * forward_add/_remove, stub_add/_remove, forward, set_option.
 *
 * Each works on a copy of the running config (config_dup), which the
 * supervisor then applies as a reload that keeps the caches; with fork,
 * every child gets the same command and applies it to its own copy, so
 * these functions are pure edits of a struct config_file, unit-tested in
 * tests/check_remote.c. Lists are freed with util/config_file.c's own
 * free functions.
 */
#ifndef DAEMON_REMOTE_CFG_H
#define DAEMON_REMOTE_CFG_H

#include <stddef.h>
#include <stdint.h>

struct config_file;
struct stats_buf;

/**
 * Split off the first word of s, in place.
 * @param s: the text; a NUL is written after the word.
 * @param rest: set to the remainder, leading spaces skipped.
 * @return the word ("" when none).
 */
char *remote_next_word(char *s, char **rest);

/**
 * Split a control request line, "PETREL1 command args" (or Unbound's
 * "UBCT1 command args"), in place.
 * @param line: the line without its newline; NULs are written into it.
 * @param cmd: set to the command word ("" when none).
 * @param args: set to the rest, leading and trailing spaces cut.
 * @return 0 for PETREL1, 1 for UBCT1 (unbound-control: answers in its
 *	format), or -1 when the first word is not a protocol petrel speaks.
 */
int remote_parse_request(char *line, char **cmd, char **args);

/**
 * Parse a domain name argument.
 * @param s: the name in presentation format.
 * @param out: wire format, at least DNS_MAX_NAME + 1 bytes.
 * @param len: its length.
 * @return 0 or -1.
 */
int remote_parse_name(const char *s, uint8_t *out, size_t *len);

/**
 * Apply a config-changing command to a config (local_zone,
 * local_zone_remove, local_data, local_data_remove, forward_add,
 * forward_remove, stub_add, stub_remove, forward, set_option; and the
 * bulk local_zones, local_zones_remove, local_datas, local_datas_remove
 * with args holding one line each, bad lines skipped).
 * @param cfg: changed in place (all or nothing for each step).
 * @param cmd: the command word.
 * @param args: its arguments.
 * @param err: the error message.
 * @return 0, 1 when cmd is not a config command, or -1 with err filled.
 */
int remote_cfg_change(struct config_file *cfg, const char *cmd,
	const char *args, char *err, size_t errlen);

/**
 * @return the single command a bulk command applies to each of its lines
 *	("local_zone" for "local_zones"), or NULL when cmd is not bulk.
 */
const char *remote_cfg_bulk_single(const char *cmd);

/**
 * A bulk command: each line of text as the single command one. As
 * Unbound does, a bad line is reported and the others are applied.
 * @param report: "error for input line: ..." lines are appended; NULL
 *	to drop them.
 * @return the number of lines applied.
 */
int remote_cfg_change_bulk(struct config_file *cfg, const char *one,
	const char *text, struct stats_buf *report);

#endif /* DAEMON_REMOTE_CFG_H */
