// SPDX-License-Identifier: GPL-2.0
/*
 * perf-stat: perf stat's scaling (perf_counts_values__scale) and the
 * precision of its elapsed-time line (tools/perf/util/stat.c,
 * stat-display.c), so that -r output matches perf's. perf's noise
 * column, rel_stddev_stats(stddev_stats()), is stats/sample.h's relative
 * standard error.
 */
#include <math.h>

#include "stats/perf-stat.h"

uint64_t cxs_scale_count(uint64_t val, uint64_t enabled, uint64_t running)
{
	if (!running)
		return 0;
	if (running >= enabled)
		return val;
	return (uint64_t)((double)val * enabled / running);
}

/*
 * perf's get_precision() + 2. A zero spread (perf would take log10(0))
 * gets nanosecond precision, and nothing finer than ns is meaningful.
 */
int cxs_stats_precision(double sd)
{
	long digits;

	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	digits = lround(ceil(-log10(sd))) + 2;
	return digits > 9 ? 9 : (int)digits;
}
