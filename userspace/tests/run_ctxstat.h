/* SPDX-License-Identifier: GPL-2.0 */
/* The built ctxstat binary, run end to end by a test (run_ctxstat.c). */
#ifndef _CTX_TESTS_RUN_CTXSTAT_H
#define _CTX_TESTS_RUN_CTXSTAT_H

#include <stddef.h>

/*
 * Run ctxstat with @argv, its stderr into @out (at most @len bytes with
 * the NUL) and its stdout too, or to @stdout_path when not NULL. Returns
 * the exit status, 128 + N for signal N, -1 when it could not start.
 */
int run_ctxstat(char *const argv[], const char *stdout_path, char *out,
		size_t len);

#endif
