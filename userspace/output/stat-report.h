/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat-report: perf stat record's data (perfdata/stat-data.h) printed as
 * stat prints its counts (output/display.c), a table per round as perf
 * stat report prints one at every PERF_RECORD_STAT_ROUND: the counts
 * summed over the CPUs and threads, then scaled, as perf's AGGR_GLOBAL,
 * or per CPU or thread where the recording is.
 */
#ifndef CTXSTAT_OUTPUT_STAT_REPORT_H
#define CTXSTAT_OUTPUT_STAT_REPORT_H

#include <stdio.h>

#include "perfdata/stat-data.h"

/* 0, or -1 with a message in @err (no event ctxstat can show). */
int cxs_stat_report(FILE *f, const struct cxs_stat_data *d,
		    char *err, size_t errlen);

#endif
