/* SPDX-License-Identifier: GPL-2.0 */
/*
 * countalloc: how much heap the code under test holds. Linked with
 * -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free,--wrap=strdup,
 * every block the code under test allocates is counted while it lives,
 * at what glibc's malloc takes for it on a 64-bit machine (its chunk:
 * the size asked for and an 8-byte header, rounded up to 16, at least
 * 32), so that many small blocks cost what they cost. Blocks that the C
 * library or libnl allocate inside themselves are not counted, even
 * when the code under test frees them.
 */
#ifndef CTXSTAT_COUNTALLOC_H
#define CTXSTAT_COUNTALLOC_H

#include <stddef.h>

extern size_t countalloc_live;	/* bytes of the blocks alive now */
extern size_t countalloc_peak;	/* the most alive at once since the reset */

/* Start a new peak from what is alive now. */
static inline void countalloc_reset_peak(void)
{
	countalloc_peak = countalloc_live;
}

#endif
