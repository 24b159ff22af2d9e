/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-stat: the numbers perf stat derives beyond the mean and spread that
 * stats/sample.h computes: the multiplexing scale-up of a count and the digits
 * of "+- sd seconds time elapsed".
 */
#ifndef CTXSTAT_STATS_PERF_STAT_H
#define CTXSTAT_STATS_PERF_STAT_H

#include <stdint.h>

/*
 * A count from a counter that ran only @running of @enabled ns, scaled to
 * the whole interval as perf does (truncated); unscaled when it ran all
 * the time, 0 when it never ran.
 */
uint64_t cxs_scale_count(uint64_t val, uint64_t enabled, uint64_t running);

/* Digits after the point perf uses for "+- sd seconds": 2 beyond sd's. */
int cxs_stats_precision(double sd);

#endif
