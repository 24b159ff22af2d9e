/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf_only_man: ctxstat(1)'s section PERF OPTIONS NOT SUPPORTED, from
 * options/perf-only.c's table, the one the parser names the options
 * from. Its text sits in ctxstat.1 between two roff comments,
 * CXS_PERF_ONLY_BEGIN and CXS_PERF_ONLY_END; `make -C userspace man`
 * rewrites it there (tests/perf_only_man_gen.c), and tests/perfonly_test.c
 * fails when the committed page differs. Not part of ctxstat itself.
 */
#ifndef CTXSTAT_TESTS_PERF_ONLY_MAN_H
#define CTXSTAT_TESTS_PERF_ONLY_MAN_H

#include <stddef.h>
#include <stdio.h>

#define CXS_PERF_ONLY_BEGIN \
	".\\\" BEGIN perf-only (generated from options/perf-only.c: make -C userspace man)"
#define CXS_PERF_ONLY_END	".\\\" END perf-only"

/* The roff between the two markers: an introduction, a .TP per text. */
int cxs_perf_only_roff(FILE *f);

/*
 * @page (@len bytes, a man page) with the text between its markers
 * replaced by cxs_perf_only_roff()'s, to @out. -1 with @err when the
 * markers are not there, each once and in order, on lines of their own.
 */
int cxs_perf_only_splice(const char *page, size_t len, FILE *out,
			 char *err, size_t errlen);

#endif
