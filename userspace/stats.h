/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stats: running mean and variance over repeated runs (Welford), and the
 * numbers perf stat prints from them: stddev of the mean, relative stddev,
 * and the multiplexing scale-up of a count.
 */
#ifndef CTXSTAT_STATS_H
#define CTXSTAT_STATS_H

#include <stdint.h>

struct ctx_stats {
	double n;
	double mean;
	double m2;	/* sum of squared differences from the mean */
};

void ctx_stats_init(struct ctx_stats *s);
void ctx_stats_update(struct ctx_stats *s, double val);
double ctx_stats_avg(const struct ctx_stats *s);
/* Sample variance: m2 / (n - 1); 0 for fewer than two values. */
double ctx_stats_variance(const struct ctx_stats *s);
/* Standard deviation of the mean: sqrt(variance / n), as perf's stddev_stats. */
double ctx_stats_stddev_mean(const struct ctx_stats *s);
/* 100 * stddev / avg, 0 when avg is 0: perf's rel_stddev_stats. */
double ctx_rel_stddev(double stddev, double avg);
/* perf's noise column: relative stddev of the mean, in percent. */
double ctx_stats_noise_pct(const struct ctx_stats *s);

/*
 * A count from a counter that ran only @running of @enabled ns, scaled to
 * the whole interval as perf does (truncated); unscaled when it ran all
 * the time, 0 when it never ran.
 */
uint64_t ctx_scale_count(uint64_t val, uint64_t enabled, uint64_t running);

/* Digits after the point perf uses for "+- sd seconds": 2 beyond sd's. */
int ctx_stats_precision(double sd);

#endif
