/*
 * validator/val_pres.h - presentation format of trust anchor records.
 *
 * Trust anchors arrive as text (config lines, zone files, BIND key files,
 * auto-trust-anchor files) and the autotrust state is written back as
 * text. These two functions turn one RR between its text form and the
 * wire form validator/ works on. They use ldns, which DESIGN.md allows
 * for presentation format off the query path; nothing else in
 * validator/ uses it.
 */
#ifndef VALIDATOR_VAL_PRES_H
#define VALIDATOR_VAL_PRES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** one RR in wire form, as parsed */
struct val_pres_rr {
	/** owner, wire */
	uint8_t owner[256];
	/** type */
	uint16_t type;
	/** class */
	uint16_t rrclass;
	/** TTL */
	uint32_t ttl;
	/** RDATA, uncompressed */
	uint8_t rdata[65535];
	/** RDATA length */
	size_t rdlen;
};

/**
 * Parse one RR in presentation format.
 * @param text: the RR (no comment; one line, or several joined).
 * @param default_ttl: TTL when the text has none.
 * @param origin: wire origin for relative names, or NULL (then names
 *	must be absolute; "example.com" is taken as absolute).
 * @param prev: wire owner of the previous RR for a blank owner, or NULL.
 * @param out: the result.
 * @param err: the parser's error text on failure; errlen its size.
 * @return 0 or -1.
 */
int val_pres_parse_rr(const char *text, uint32_t default_ttl,
	const uint8_t *origin, const uint8_t *prev, struct val_pres_rr *out,
	char *err, size_t errlen);

/**
 * Print one RR in presentation format, one line without comment or
 * newline.
 * @return a malloc'd string, or NULL (out of memory or bad RDATA).
 */
char *val_pres_rr_str(const uint8_t *owner, uint16_t type, uint16_t rrclass,
	uint32_t ttl, const uint8_t *rdata, size_t rdlen);

/** a logical line of a zone-style file */
struct val_pres_line {
	/** the text: the lines of a multi-line RR joined, the parentheses
	 *  blanked out */
	char buf[8192];
	/** number of its first line in the file */
	int lineno;
};

/**
 * Read the next logical line of a zone-style file: a line, or the lines
 * of an RR written in parentheses, joined.
 * @param f: the file.
 * @param l: the result.
 * @param lineno: in/out: lines read so far.
 * @return 1 when a line was read, 0 at the end, -1 when it is too long.
 */
int val_pres_read_line(FILE *f, struct val_pres_line *l, int *lineno);

/** @return the ';' that starts the comment of a line (outside quotes),
 *	or NULL */
char *val_pres_comment(char *s);

/**
 * Handle a $ORIGIN or $TTL line.
 * @param s: the line, leading white space skipped.
 * @param origin: set by $ORIGIN (DNS_MAX_NAME bytes); have_origin set.
 * @param ttl: set by $TTL.
 * @return 1 when handled, 0 when s is no directive, -1 when malformed.
 */
int val_pres_directive(const char *s, uint8_t *origin, int *have_origin,
	uint32_t *ttl);

#endif /* VALIDATOR_VAL_PRES_H */
