// SPDX-License-Identifier: GPL-2.0
/*
 * countalloc: see countalloc.h. Each counted block carries a header of
 * 16 bytes before what the caller sees (a mark and the size asked for),
 * so that free() knows a counted block from one the C library made
 * (realpath(), open_memstream(), scandir()) and passes the latter on.
 */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <string.h>

#include "countalloc.h"

#define COUNTED_MARK 0x636f756e74656421ULL	/* "counted!" */

struct counted {
	uint64_t mark;
	uint64_t size;		/* what the caller asked for */
};

size_t countalloc_live;
size_t countalloc_peak;

void *__real_malloc(size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);

/* What glibc's malloc takes for a block of @n bytes (64-bit). */
static size_t chunk_size(size_t n)
{
	size_t c = (n + 8 + 15) & ~(size_t)15;

	return c < 32 ? 32 : c;
}

static void count(size_t n)
{
	countalloc_live += chunk_size(n);
	if (countalloc_live > countalloc_peak)
		countalloc_peak = countalloc_live;
}

static struct counted *counted_of(void *p)
{
	struct counted *h = (struct counted *)p - 1;

	return p && h->mark == COUNTED_MARK ? h : NULL;
}

void *__wrap_malloc(size_t n)
{
	struct counted *h;

	if (n > SIZE_MAX - sizeof(*h))
		return NULL;
	h = __real_malloc(sizeof(*h) + n);
	if (!h)
		return NULL;
	*h = (struct counted){ .mark = COUNTED_MARK, .size = n };
	count(n);
	return h + 1;
}

void *__wrap_calloc(size_t n, size_t size)
{
	void *p;

	if (size && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	p = __wrap_malloc(n * size);
	return p ? memset(p, 0, n * size) : NULL;
}

void __wrap_free(void *p)
{
	struct counted *h = counted_of(p);

	if (!h) {
		__real_free(p);
		return;
	}
	countalloc_live -= chunk_size(h->size);
	h->mark = 0;
	__real_free(h);
}

void *__wrap_realloc(void *p, size_t n)
{
	struct counted *h = counted_of(p), *moved;
	size_t old;
	void *fresh;

	if (!p)
		return __wrap_malloc(n);
	if (!h) {
		/* The C library's block: from here on a counted one. */
		old = malloc_usable_size(p);
		fresh = __wrap_malloc(n);
		if (fresh) {
			memcpy(fresh, p, old < n ? old : n);
			__real_free(p);
		}
		return fresh;
	}
	if (n > SIZE_MAX - sizeof(*h))
		return NULL;
	moved = __real_realloc(h, sizeof(*h) + n);
	if (!moved)
		return NULL;
	/* Both blocks may live for a moment inside realloc: not counted. */
	countalloc_live -= chunk_size(moved->size);
	moved->size = n;
	count(n);
	return moved + 1;
}

char *__wrap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = __wrap_malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}
