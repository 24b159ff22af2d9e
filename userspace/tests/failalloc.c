// SPDX-License-Identifier: GPL-2.0
/* failalloc: see failalloc.h. */
#include <stddef.h>
#include <string.h>

#include "failalloc.h"

int failalloc_at;
int failalloc_calls;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t n);

static int fail_now(void)
{
	return ++failalloc_calls == failalloc_at;
}

void *__wrap_malloc(size_t n)
{
	return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
	return fail_now() ? NULL : __real_calloc(n, size);
}

void *__wrap_realloc(void *p, size_t n)
{
	return fail_now() ? NULL : __real_realloc(p, n);
}

/* Through the wrapped malloc, so that it counts (and can fail) too. */
char *__wrap_strdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = __wrap_malloc(n);

	return d ? memcpy(d, s, n) : NULL;
}
