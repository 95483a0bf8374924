/*
 * dns/name.c - domain names in wire format.
 *
 * See name.h. Uncompressed names are walked label by label; compressed
 * names in packets are read by one loop that enforces the pointer rules
 * (strictly backwards from the start of the current run of labels, so no
 * loop is possible, plus a hard cap on the number of pointers).
 */
#include "config.h"
#include <string.h>
#include "dns/dns.h"
#include "dns/name.h"

const uint8_t dname_lower_table[256] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
	0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f,
	0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17,
	0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
	0x20, 0x21, 0x22, 0x23, 0x24, 0x25, 0x26, 0x27,
	0x28, 0x29, 0x2a, 0x2b, 0x2c, 0x2d, 0x2e, 0x2f,
	0x30, 0x31, 0x32, 0x33, 0x34, 0x35, 0x36, 0x37,
	0x38, 0x39, 0x3a, 0x3b, 0x3c, 0x3d, 0x3e, 0x3f,
	0x40, 'a', 'b', 'c', 'd', 'e', 'f', 'g',
	'h', 'i', 'j', 'k', 'l', 'm', 'n', 'o',
	'p', 'q', 'r', 's', 't', 'u', 'v', 'w',
	'x', 'y', 'z', 0x5b, 0x5c, 0x5d, 0x5e, 0x5f,
	0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67,
	0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f,
	0x70, 0x71, 0x72, 0x73, 0x74, 0x75, 0x76, 0x77,
	0x78, 0x79, 0x7a, 0x7b, 0x7c, 0x7d, 0x7e, 0x7f,
	0x80, 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87,
	0x88, 0x89, 0x8a, 0x8b, 0x8c, 0x8d, 0x8e, 0x8f,
	0x90, 0x91, 0x92, 0x93, 0x94, 0x95, 0x96, 0x97,
	0x98, 0x99, 0x9a, 0x9b, 0x9c, 0x9d, 0x9e, 0x9f,
	0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7,
	0xa8, 0xa9, 0xaa, 0xab, 0xac, 0xad, 0xae, 0xaf,
	0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5, 0xb6, 0xb7,
	0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf,
	0xc0, 0xc1, 0xc2, 0xc3, 0xc4, 0xc5, 0xc6, 0xc7,
	0xc8, 0xc9, 0xca, 0xcb, 0xcc, 0xcd, 0xce, 0xcf,
	0xd0, 0xd1, 0xd2, 0xd3, 0xd4, 0xd5, 0xd6, 0xd7,
	0xd8, 0xd9, 0xda, 0xdb, 0xdc, 0xdd, 0xde, 0xdf,
	0xe0, 0xe1, 0xe2, 0xe3, 0xe4, 0xe5, 0xe6, 0xe7,
	0xe8, 0xe9, 0xea, 0xeb, 0xec, 0xed, 0xee, 0xef,
	0xf0, 0xf1, 0xf2, 0xf3, 0xf4, 0xf5, 0xf6, 0xf7,
	0xf8, 0xf9, 0xfa, 0xfb, 0xfc, 0xfd, 0xfe, 0xff
};

#define LOWER(c) (dname_lower_table[(uint8_t)(c)])

size_t
dname_valid(const uint8_t *d, size_t maxlen)
{
	size_t n = 0;
	for(;;) {
		uint8_t c;
		if(n >= maxlen)
			return 0;
		c = d[n];
		if(c > DNS_MAX_LABEL)
			return 0;
		n += (size_t)c + 1;
		if(n > DNS_MAX_NAME)
			return 0;
		if(c == 0)
			break;
	}
	return n;
}

size_t
dname_len(const uint8_t *d)
{
	size_t n = 0;
	while(d[n])
		n += (size_t)d[n] + 1;
	return n + 1;
}

void
dname_tolower(uint8_t *d)
{
	while(*d) {
		uint8_t i, c = *d++;
		for(i = 0; i < c; i++, d++)
			*d = LOWER(*d);
	}
}

size_t
dname_copy_lower(uint8_t *dst, const uint8_t *src)
{
	size_t n = 0;
	for(;;) {
		uint8_t i, c = src[n];
		dst[n++] = c;
		if(c == 0)
			break;
		for(i = 0; i < c; i++, n++)
			dst[n] = LOWER(src[n]);
	}
	return n;
}

int
dname_equal(const uint8_t *a, const uint8_t *b)
{
	for(;;) {
		uint8_t i, c = *a;
		if(c != *b)
			return 0;
		if(c == 0)
			return 1;
		a++; b++;
		for(i = 0; i < c; i++, a++, b++)
			if(LOWER(*a) != LOWER(*b))
				return 0;
	}
}

/** collect label start offsets (root excluded); return the count */
static int
label_offsets(const uint8_t *d, uint8_t *offs)
{
	int n = 0;
	size_t p = 0;
	while(d[p]) {
		offs[n++] = (uint8_t)p;
		p += (size_t)d[p] + 1;
	}
	return n;
}

/** compare two labels (length-prefixed) canonically */
static int
label_cmp(const uint8_t *a, const uint8_t *b)
{
	uint8_t la = *a++, lb = *b++, i, m = la < lb ? la : lb;
	for(i = 0; i < m; i++) {
		uint8_t x = LOWER(a[i]), y = LOWER(b[i]);
		if(x != y)
			return (int)x - (int)y;
	}
	return (int)la - (int)lb;
}

int
dname_canon_cmp(const uint8_t *a, const uint8_t *b)
{
	uint8_t oa[DNS_MAX_LABELS], ob[DNS_MAX_LABELS];
	int na = label_offsets(a, oa), nb = label_offsets(b, ob);
	while(na > 0 && nb > 0) {
		int r = label_cmp(a + oa[--na], b + ob[--nb]);
		if(r != 0)
			return r;
	}
	return na - nb;
}

int
dname_count_labels(const uint8_t *d)
{
	int n = 0;
	while(*d) {
		d += (size_t)*d + 1;
		n++;
	}
	return n;
}

const uint8_t *
dname_strip_label(const uint8_t *d)
{
	if(*d == 0)
		return d;
	return d + (size_t)*d + 1;
}

const uint8_t *
dname_suffix_labels(const uint8_t *d, int n)
{
	int have = dname_count_labels(d);
	while(have > n) {
		d += (size_t)*d + 1;
		have--;
	}
	return d;
}

int
dname_is_subdomain(const uint8_t *d, const uint8_t *zone)
{
	int nd = dname_count_labels(d), nz = dname_count_labels(zone);
	if(nd < nz)
		return 0;
	return dname_equal(dname_suffix_labels(d, nz), zone);
}

int
dname_is_strict_subdomain(const uint8_t *d, const uint8_t *zone)
{
	int nd = dname_count_labels(d), nz = dname_count_labels(zone);
	if(nd <= nz)
		return 0;
	return dname_equal(dname_suffix_labels(d, nz), zone);
}

int
dname_common_labels(const uint8_t *a, const uint8_t *b)
{
	uint8_t oa[DNS_MAX_LABELS], ob[DNS_MAX_LABELS];
	int na = label_offsets(a, oa), nb = label_offsets(b, ob), n = 0;
	while(na > 0 && nb > 0) {
		const uint8_t *x = a + oa[--na], *y = b + ob[--nb];
		if(*x != *y || label_cmp(x, y) != 0)
			break;
		n++;
	}
	return n;
}

/** does octet c need an escape in presentation format; 1 = \X, 2 = \DDD */
static int
needs_escape(uint8_t c)
{
	switch(c) {
	case '.': case '\\': case '"': case '(': case ')': case ';':
	case '@': case '$': case ' ':
		return 1;
	default:
		break;
	}
	if(c < 0x21 || c > 0x7e)
		return 2;
	return 0;
}

int
dname_to_str(const uint8_t *d, char *buf, size_t buflen)
{
	size_t o = 0;
	if(*d == 0) {
		if(buflen < 2)
			return -1;
		buf[0] = '.';
		buf[1] = 0;
		return 1;
	}
	while(*d) {
		uint8_t i, c = *d++;
		for(i = 0; i < c; i++, d++) {
			int e = needs_escape(*d);
			size_t need = e == 0 ? 1 : (e == 1 ? 2 : 4);
			if(o + need + 1 > buflen)
				return -1;
			if(e == 0) {
				buf[o++] = (char)*d;
			} else if(e == 1) {
				buf[o++] = '\\';
				buf[o++] = (char)*d;
			} else {
				buf[o++] = '\\';
				buf[o++] = (char)('0' + *d / 100);
				buf[o++] = (char)('0' + (*d / 10) % 10);
				buf[o++] = (char)('0' + *d % 10);
			}
		}
		if(o + 2 > buflen)
			return -1;
		buf[o++] = '.';
	}
	buf[o] = 0;
	return (int)o;
}

int
dname_from_str(const char *s, uint8_t *out, size_t *outlen)
{
	size_t cap = *outlen, o = 0, lab = 0; /* lab: offset of length byte */
	const unsigned char *p = (const unsigned char *)s;
	if(s[0] == 0 || (s[0] == '.' && s[1] == 0)) {
		if(cap < 1)
			return DNS_ERR_NOSPACE;
		out[0] = 0;
		*outlen = 1;
		return 0;
	}
	if(cap < 1)
		return DNS_ERR_NOSPACE;
	out[0] = 0;
	o = 1;
	while(*p) {
		unsigned c = *p++;
		if(c == '.') {
			if(o - lab - 1 == 0)
				return DNS_ERR_SYNTAX; /* empty label */
			if(*p == 0)
				break; /* trailing dot */
			if(o + 3 > DNS_MAX_NAME) /* length, octet, root */
				return DNS_ERR_NAME_TOO_LONG;
			if(o >= cap)
				return DNS_ERR_NOSPACE;
			lab = o;
			out[o++] = 0;
			continue;
		}
		if(c == '\\') {
			if(p[0] >= '0' && p[0] <= '9') {
				unsigned v;
				if(!(p[1] >= '0' && p[1] <= '9') ||
				   !(p[2] >= '0' && p[2] <= '9'))
					return DNS_ERR_SYNTAX;
				v = (unsigned)(p[0] - '0') * 100 +
					(unsigned)(p[1] - '0') * 10 +
					(unsigned)(p[2] - '0');
				if(v > 255)
					return DNS_ERR_SYNTAX;
				c = v;
				p += 3;
			} else if(p[0] == 0) {
				return DNS_ERR_SYNTAX;
			} else {
				c = *p++;
			}
		}
		if(out[lab] >= DNS_MAX_LABEL)
			return DNS_ERR_LABEL_TOO_LONG;
		if(o + 2 > DNS_MAX_NAME) /* this octet and the root label */
			return DNS_ERR_NAME_TOO_LONG;
		if(o >= cap)
			return DNS_ERR_NOSPACE;
		out[o++] = (uint8_t)c;
		out[lab]++;
	}
	/* the root label */
	if(o >= DNS_MAX_NAME)
		return DNS_ERR_NAME_TOO_LONG;
	if(o >= cap)
		return DNS_ERR_NOSPACE;
	out[o++] = 0;
	*outlen = o;
	return 0;
}

/** the packet name reader; lower: 1 to lower-case the output */
static int
pkt_read(const uint8_t *pkt, size_t len, size_t *pos, uint8_t *out,
	size_t *outlen, int lower)
{
	size_t p = *pos, run_start = *pos, n = 0, end = 0;
	int ptrs = 0;
	for(;;) {
		uint8_t c;
		if(p >= len)
			return DNS_ERR_TRUNCATED;
		c = pkt[p];
		if((c & 0xc0) == 0xc0) {
			size_t t;
			if(p + 1 >= len)
				return DNS_ERR_TRUNCATED;
			t = ((size_t)(c & 0x3f) << 8) | pkt[p + 1];
			if(end == 0)
				end = p + 2;
			if(t >= run_start)
				return t <= p ? DNS_ERR_POINTER_LOOP
					: DNS_ERR_BAD_POINTER;
			if(++ptrs > DNAME_MAX_POINTERS)
				return DNS_ERR_TOO_MANY_POINTERS;
			p = t;
			run_start = t;
			continue;
		}
		if(c & 0xc0)
			return DNS_ERR_BAD_LABEL;
		if(n + (size_t)c + 1 > DNS_MAX_NAME)
			return DNS_ERR_NAME_TOO_LONG;
		if(p + (size_t)c + 1 > len)
			return DNS_ERR_TRUNCATED;
		if(out) {
			out[n] = c;
			if(lower) {
				uint8_t i;
				for(i = 1; i <= c; i++)
					out[n + i] = LOWER(pkt[p + i]);
			} else {
				memcpy(out + n + 1, pkt + p + 1, c);
			}
		}
		n += (size_t)c + 1;
		p += (size_t)c + 1;
		if(c == 0)
			break;
	}
	*pos = end ? end : p;
	if(outlen)
		*outlen = n;
	return 0;
}

int
dname_pkt_read(const uint8_t *pkt, size_t len, size_t *pos, uint8_t *out,
	size_t *outlen)
{
	return pkt_read(pkt, len, pos, out, outlen, 0);
}

int
dname_pkt_read_lower(const uint8_t *pkt, size_t len, size_t *pos,
	uint8_t *out, size_t *outlen)
{
	return pkt_read(pkt, len, pos, out, outlen, 1);
}

/** follow pointers at p; return the offset of a length byte, or len when
 * something is wrong (defensive: the names were checked before) */
static size_t
follow(const uint8_t *pkt, size_t len, size_t p, int *ptrs)
{
	while(p + 1 < len && (pkt[p] & 0xc0) == 0xc0) {
		if(++(*ptrs) > DNAME_MAX_POINTERS)
			return len;
		p = ((size_t)(pkt[p] & 0x3f) << 8) | pkt[p + 1];
	}
	if(p >= len || (pkt[p] & 0xc0))
		return len;
	return p;
}

int
dname_pkt_equal(const uint8_t *pkt, size_t len, size_t a, size_t b)
{
	int pa = 0, pb = 0;
	for(;;) {
		uint8_t c, i;
		a = follow(pkt, len, a, &pa);
		b = follow(pkt, len, b, &pb);
		if(a >= len || b >= len)
			return 0;
		if(a == b)
			return 1; /* same suffix in the packet */
		c = pkt[a];
		if(c != pkt[b])
			return 0;
		if(c == 0)
			return 1;
		if(a + c + 1 > len || b + c + 1 > len)
			return 0;
		for(i = 1; i <= c; i++)
			if(LOWER(pkt[a + i]) != LOWER(pkt[b + i]))
				return 0;
		a += (size_t)c + 1;
		b += (size_t)c + 1;
	}
}

int
dname_pkt_equal_wire(const uint8_t *pkt, size_t len, size_t off,
	const uint8_t *d)
{
	int ptrs = 0;
	for(;;) {
		uint8_t c, i;
		off = follow(pkt, len, off, &ptrs);
		if(off >= len)
			return 0;
		c = pkt[off];
		if(c != *d)
			return 0;
		if(c == 0)
			return 1;
		if(off + c + 1 > len)
			return 0;
		for(i = 1; i <= c; i++)
			if(LOWER(pkt[off + i]) != LOWER(d[i]))
				return 0;
		off += (size_t)c + 1;
		d += (size_t)c + 1;
	}
}
