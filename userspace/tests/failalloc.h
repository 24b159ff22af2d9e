/* SPDX-License-Identifier: GPL-2.0 */
/*
 * failalloc: an allocation-failure hook. Linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=strdup, every such
 * call the code under test makes goes through a counter, and the
 * failalloc_at-th one (1-based; 0: none) returns NULL. Allocations inside
 * the C library itself (fopen, ...) are not wrapped.
 */
#ifndef CTXSTAT_FAILALLOC_H
#define CTXSTAT_FAILALLOC_H

extern int failalloc_at;	/* the call that fails; 0: none */
extern int failalloc_calls;	/* wrapped calls so far */

#endif
