/*
 * util/region.c - the region allocator. See region.h.
 *
 * Layout: each chunk starts with a header that links it to the previous
 * chunk; the first chunk is allocated with the region struct and never
 * freed until region_destroy. Large objects have a header that links them
 * into their own list.
 */
#include "config.h"
#include "util/region.h"
#include <stdlib.h>
#include <string.h>
#include <stdint.h>

#define ALIGNMENT 8
#define ALIGN_UP(x) (((x) + (ALIGNMENT - 1)) & ~(size_t)(ALIGNMENT - 1))

/** a chunk or large object header */
struct region_block {
	/** next in the list */
	struct region_block *next;
	/** size of the usable memory behind the header (large objects) */
	size_t size;
};

#define HDR ALIGN_UP(sizeof(struct region_block))

struct region {
	/** the chunk currently bumped (first chunk follows the struct) */
	char *data;
	/** next free byte offset in the current chunk */
	size_t used;
	/** usable bytes per chunk */
	size_t chunk_size;
	/** chunks allocated after the first */
	struct region_block *chunks;
	size_t num_chunks;
	/** large objects */
	struct region_block *large;
	size_t num_large;
	size_t large_bytes;
	/** the first chunk's data */
	char *first;
};

struct region *
region_create(size_t chunk_size)
{
	struct region *r;
	if(chunk_size == 0)
		chunk_size = REGION_CHUNK_SIZE;
	chunk_size = ALIGN_UP(chunk_size);
	r = malloc(ALIGN_UP(sizeof(*r)) + chunk_size);
	if(!r)
		return NULL;
	memset(r, 0, sizeof(*r));
	r->chunk_size = chunk_size;
	r->first = (char *)r + ALIGN_UP(sizeof(*r));
	r->data = r->first;
	r->used = 0;
	return r;
}

void
region_free_all(struct region *r)
{
	struct region_block *b, *n;
	for(b = r->chunks; b; b = n) {
		n = b->next;
		free(b);
	}
	for(b = r->large; b; b = n) {
		n = b->next;
		free(b);
	}
	r->chunks = NULL;
	r->large = NULL;
	r->num_chunks = 0;
	r->num_large = 0;
	r->large_bytes = 0;
	r->data = r->first;
	r->used = 0;
}

void
region_destroy(struct region *r)
{
	if(!r)
		return;
	region_free_all(r);
	free(r);
}

void *
region_alloc(struct region *r, size_t size)
{
	void *p;
	size_t a = ALIGN_UP(size ? size : 1);
	if(a < size)
		return NULL; /* overflow */
	if(a > r->chunk_size / 4) {
		struct region_block *b;
		if(a > SIZE_MAX - HDR)
			return NULL;
		b = malloc(HDR + a);
		if(!b)
			return NULL;
		b->next = r->large;
		b->size = a;
		r->large = b;
		r->num_large++;
		r->large_bytes += a + HDR;
		return (char *)b + HDR;
	}
	if(r->used + a > r->chunk_size) {
		struct region_block *b = malloc(HDR + r->chunk_size);
		if(!b)
			return NULL;
		b->next = r->chunks;
		b->size = r->chunk_size;
		r->chunks = b;
		r->num_chunks++;
		r->data = (char *)b + HDR;
		r->used = 0;
	}
	p = r->data + r->used;
	r->used += a;
	return p;
}

void *
region_alloc_zero(struct region *r, size_t size)
{
	void *p = region_alloc(r, size);
	if(p)
		memset(p, 0, size);
	return p;
}

void *
region_memdup(struct region *r, const void *src, size_t size)
{
	void *p = region_alloc(r, size);
	if(p && size)
		memcpy(p, src, size);
	return p;
}

char *
region_strdup(struct region *r, const char *s)
{
	return region_memdup(r, s, strlen(s) + 1);
}

size_t
region_get_mem(struct region *r)
{
	return ALIGN_UP(sizeof(*r)) + r->chunk_size +
		r->num_chunks * (HDR + r->chunk_size) + r->large_bytes;
}

size_t
region_num_chunks(struct region *r)
{
	return 1 + r->num_chunks;
}

size_t
region_num_large(struct region *r)
{
	return r->num_large;
}
