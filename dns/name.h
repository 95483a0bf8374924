/*
 * dns/name.h - domain names in wire format.
 *
 * A "dname" here is an uncompressed wire-format name: length-prefixed
 * labels ending in the zero-length root label, at most 255 octets, no
 * label over 63 octets. Functions taking a const uint8_t *dname expect a
 * name already validated (by dname_valid or a packet parse); they do not
 * re-check bounds. Functions taking a packet and an offset read a name that
 * may be compressed (RFC 1035 4.1.4) and check everything:
 *  - every pointer must point strictly before the start of the run of labels
 *    it appears in (so pointers only go backwards and a loop is impossible),
 *    a pointer into the current run is reported as DNS_ERR_POINTER_LOOP, one
 *    that goes forward or past the end as DNS_ERR_BAD_POINTER;
 *  - at most DNAME_MAX_POINTERS pointers per name;
 *  - label types 0x40 and 0x80 are rejected (DNS_ERR_BAD_LABEL);
 *  - the decompressed name must fit in 255 octets.
 *
 * Label counts in this module do not count the root label: "." has 0
 * labels, "example.com." has 2.
 *
 * Nothing here allocates; output goes to caller buffers.
 */
#ifndef DNS_NAME_H
#define DNS_NAME_H

#include <stdint.h>
#include <stddef.h>

/** most compression pointers followed in one name */
#define DNAME_MAX_POINTERS	64

/** the 256-byte ASCII lower-case table (only A-Z change) */
extern const uint8_t dname_lower_table[256];

/**
 * Check an uncompressed wire name.
 * @param d: the name.
 * @param maxlen: bytes available at d.
 * @return the length of the name including the root label, or 0 when it
 *	is invalid (runs past maxlen, has a pointer or bad label type, or is
 *	longer than 255).
 */
size_t dname_valid(const uint8_t *d, size_t maxlen);

/** @return length of a valid uncompressed name (root label included) */
size_t dname_len(const uint8_t *d);

/** Lower-case a valid uncompressed name in place (ASCII A-Z only). */
void dname_tolower(uint8_t *d);

/**
 * Copy a valid name to dst, lower-cased.
 * @return the length copied.
 */
size_t dname_copy_lower(uint8_t *dst, const uint8_t *src);

/** @return 1 when two valid names are equal ignoring ASCII case, else 0 */
int dname_equal(const uint8_t *a, const uint8_t *b);

/**
 * Canonical DNS name order (RFC 4034 section 6.1): compare label by label
 * from the root, each label as a lower-cased octet string, a shorter label
 * (a prefix) first; a name sorts after its ancestors.
 * @return <0, 0 or >0 as a sorts before, equal to, or after b.
 */
int dname_canon_cmp(const uint8_t *a, const uint8_t *b);

/** @return number of labels in a valid name, root not counted */
int dname_count_labels(const uint8_t *d);

/**
 * @return 1 when d equals zone or is below it (case-insensitive), else 0.
 *	Every name is a subdomain of ".".
 */
int dname_is_subdomain(const uint8_t *d, const uint8_t *zone);

/** @return 1 when d is below zone and not equal to it, else 0 */
int dname_is_strict_subdomain(const uint8_t *d, const uint8_t *zone);

/**
 * Number of labels two names have in common, counted from the root
 * (case-insensitive). "a.example.com." and "b.example.com." have 2.
 */
int dname_common_labels(const uint8_t *a, const uint8_t *b);

/**
 * Strip the leftmost label. The root stays the root.
 * @return pointer into d at the parent name (no copy).
 */
const uint8_t *dname_strip_label(const uint8_t *d);

/**
 * Remove labels from the left until n labels remain.
 * @return pointer into d at the suffix with n labels (d itself when it
 *	has n or fewer).
 */
const uint8_t *dname_suffix_labels(const uint8_t *d, int n);

/**
 * Write a valid name in presentation format, absolute (trailing dot).
 * Octets other than letters, digits, '-', '_', '*' are escaped: '.', '\\',
 * '"', '(', ')', ';', '@', '$' and space as \X, other non-printables as \DDD.
 * @param d: the name.
 * @param buf: output, DNS_MAX_NAME_STR bytes always suffice.
 * @param buflen: size of buf.
 * @return length of the string (without NUL), or -1 when buf is too small.
 */
int dname_to_str(const uint8_t *d, char *buf, size_t buflen);

/**
 * Parse a presentation-format name with \DDD and \X escapes. The name is
 * taken as absolute whether or not it ends in a dot; "." and "" are the root.
 * @param s: NUL-terminated string.
 * @param out: output buffer, DNS_MAX_NAME bytes always suffice.
 * @param outlen: in: size of out; out: length of the wire name.
 * @return 0 or DNS_ERR_SYNTAX (bad escape, empty label),
 *	DNS_ERR_LABEL_TOO_LONG, DNS_ERR_NAME_TOO_LONG, DNS_ERR_NOSPACE.
 */
int dname_from_str(const char *s, uint8_t *out, size_t *outlen);

/**
 * Read a possibly compressed name from a packet.
 * @param pkt: the whole message (pointers are offsets into it).
 * @param len: its length.
 * @param pos: in: offset of the name; out: offset just past the name as it
 *	sits at that place (after the first pointer, if any).
 * @param out: where to write the uncompressed name (case kept), at least
 *	DNS_MAX_NAME bytes; NULL to only check and skip it.
 * @param outlen: the length of the uncompressed name; may be NULL.
 * @return 0 or a dns_parse_err.
 */
int dname_pkt_read(const uint8_t *pkt, size_t len, size_t *pos,
	uint8_t *out, size_t *outlen);

/**
 * As dname_pkt_read, but write the name lower-cased.
 */
int dname_pkt_read_lower(const uint8_t *pkt, size_t len, size_t *pos,
	uint8_t *out, size_t *outlen);

/**
 * Compare two names in the same packet, either or both possibly
 * compressed, without copying. The names must already have been checked
 * (by dname_pkt_read or a message parse).
 * @return 1 when equal ignoring case, else 0.
 */
int dname_pkt_equal(const uint8_t *pkt, size_t len, size_t a, size_t b);

/**
 * Compare a name in a packet (possibly compressed, already checked) with
 * an uncompressed name.
 * @return 1 when equal ignoring case, else 0.
 */
int dname_pkt_equal_wire(const uint8_t *pkt, size_t len, size_t off,
	const uint8_t *d);

#endif /* DNS_NAME_H */
