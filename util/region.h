/*
 * util/region.h - the region (arena) allocator for per-query memory.
 *
 * A region hands out memory by bumping a pointer through fixed-size chunks
 * (8-byte aligned). Objects larger than a quarter chunk get their own
 * malloc and sit on a separate list. Nothing is freed one by one:
 * region_free_all() releases every chunk but the first and every large
 * object, in O(chunks), and leaves the region ready for the next query.
 * A region is owned by one thread (a worker, or one query's state) and
 * takes no locks.
 */
#ifndef UTIL_REGION_H
#define UTIL_REGION_H

#include <stddef.h>

struct region;

/** default chunk size */
#define REGION_CHUNK_SIZE 8192

/**
 * Create a region.
 * @param chunk_size: bytes per chunk; 0 for REGION_CHUNK_SIZE.
 * @return the region or NULL when out of memory. Free with region_destroy.
 */
struct region *region_create(size_t chunk_size);

/** Destroy a region and everything allocated in it. NULL is allowed. */
void region_destroy(struct region *r);

/**
 * Allocate size bytes, 8-byte aligned.
 * @return memory owned by the region, or NULL when out of memory.
 */
void *region_alloc(struct region *r, size_t size);

/** As region_alloc, zeroed. */
void *region_alloc_zero(struct region *r, size_t size);

/** Copy size bytes into the region. @return copy or NULL. */
void *region_memdup(struct region *r, const void *src, size_t size);

/** Copy a NUL-terminated string into the region. @return copy or NULL. */
char *region_strdup(struct region *r, const char *s);

/** Free everything allocated; the region stays usable. */
void region_free_all(struct region *r);

/** @return bytes currently in use by the region (chunks and large objects). */
size_t region_get_mem(struct region *r);

/** @return number of chunks in use (for tests). */
size_t region_num_chunks(struct region *r);

/** @return number of large objects in use (for tests). */
size_t region_num_large(struct region *r);

#endif /* UTIL_REGION_H */
