/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sample: every value of a repeated measurement, kept (nothing is ever
 * dropped), and what is computed from all of them: mean, sample standard
 * deviation, standard error of the mean, median, MAD and outliers.
 */
#ifndef CTXSTAT_STATS_SAMPLE_H
#define CTXSTAT_STATS_SAMPLE_H

#include <stdbool.h>

/* MAD scale: makes the MAD estimate the stddev of normal data (as R's mad). */
#define CTX_MAD_SCALE		1.4826
/* A value is an outlier when |x - median| > 3 scaled MADs (Leys et al. 2013). */
#define CTX_OUTLIER_MADS	3.0

struct ctx_sample {
	double *v;
	int n;
	int cap;
};

void ctx_sample_init(struct ctx_sample *s);
void ctx_sample_free(struct ctx_sample *s);
/* No values, the room kept. */
void ctx_sample_clear(struct ctx_sample *s);
/* Room for @n values: 0, or -ENOMEM with @s unchanged. */
int ctx_sample_reserve(struct ctx_sample *s, int n);
/* 0, or -ENOMEM; never fails after ctx_sample_reserve() made room. */
int ctx_sample_add(struct ctx_sample *s, double x);
/* Remove value @i (0-based) of @s; nothing if there is none. */
void ctx_sample_remove(struct ctx_sample *s, int i);
/* A sample of the first @n values of @v (not copied; never add to it). */
struct ctx_sample ctx_sample_view(const double *v, int n);

double ctx_sample_mean(const struct ctx_sample *s);
/* Sample (n - 1) standard deviation, two-pass; 0 for n < 2. */
double ctx_sample_sd(const struct ctx_sample *s);
/* sd / sqrt(n); 0 for n < 2. */
double ctx_sample_se(const struct ctx_sample *s);
/* 100 * se / |mean|: relative standard error in percent; 0 if mean is 0. */
double ctx_sample_rse_pct(const struct ctx_sample *s);
double ctx_sample_median(const struct ctx_sample *s);
/* CTX_MAD_SCALE * median(|x - median|) */
double ctx_sample_mad(const struct ctx_sample *s);
/*
 * Half-width of the two-sided 95 % confidence interval of the mean,
 * t(0.975, n - 1) * se; 0 for n < 2.
 */
double ctx_sample_ci95(const struct ctx_sample *s);

/*
 * Mark outliers: is_out[i] for |v[i] - median| > CTX_OUTLIER_MADS * MAD.
 * With MAD 0 (more than half the values equal), every value that differs
 * from the median is one. Returns how many (none for n < 3), or -ENOMEM.
 */
int ctx_sample_outliers(const struct ctx_sample *s, bool *is_out);

#endif
