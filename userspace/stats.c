// SPDX-License-Identifier: GPL-2.0
/*
 * stats: Welford's running mean/variance, and perf stat's derived numbers
 * (tools/perf/util/stat.c: update_stats, stddev_stats, rel_stddev_stats;
 * the scaling in perf_counts_values__scale), so -r output matches perf's.
 */
#include <math.h>

#include "stats.h"

void ctx_stats_init(struct ctx_stats *s)
{
	s->n = 0;
	s->mean = 0;
	s->m2 = 0;
}

/* Welford: numerically stable even for large counts with small spread. */
void ctx_stats_update(struct ctx_stats *s, double val)
{
	double delta;

	s->n++;
	delta = val - s->mean;
	s->mean += delta / s->n;
	s->m2 += delta * (val - s->mean);
}

double ctx_stats_avg(const struct ctx_stats *s)
{
	return s->mean;
}

double ctx_stats_variance(const struct ctx_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return s->m2 / (s->n - 1);
}

double ctx_stats_stddev_mean(const struct ctx_stats *s)
{
	if (s->n < 2)
		return 0.0;
	return sqrt(ctx_stats_variance(s) / s->n);
}

double ctx_rel_stddev(double stddev, double avg)
{
	if (avg == 0.0)
		return 0.0;
	return 100.0 * stddev / avg;
}

double ctx_stats_noise_pct(const struct ctx_stats *s)
{
	return ctx_rel_stddev(ctx_stats_stddev_mean(s), ctx_stats_avg(s));
}

uint64_t ctx_scale_count(uint64_t val, uint64_t enabled, uint64_t running)
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
int ctx_stats_precision(double sd)
{
	long digits;

	if (sd > 1)
		return 2;
	if (sd <= 0)
		return 9;
	digits = lround(ceil(-log10(sd))) + 2;
	return digits > 9 ? 9 : (int)digits;
}
