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
#define CXS_MAD_SCALE		1.4826
/* A value is an outlier when |x - median| > 3 scaled MADs (Leys et al. 2013). */
#define CXS_OUTLIER_MADS	3.0

struct cxs_sample {
	double *v;
	int n;
	int cap;
};

void cxs_sample_init(struct cxs_sample *s);
void cxs_sample_free(struct cxs_sample *s);
/* No values, the room kept. */
void cxs_sample_clear(struct cxs_sample *s);
/* Room for @n values: 0, or -ENOMEM with @s unchanged. */
int cxs_sample_reserve(struct cxs_sample *s, int n);
/* 0, or -ENOMEM; never fails after cxs_sample_reserve() made room. */
int cxs_sample_add(struct cxs_sample *s, double x);
/* Remove value @i (0-based) of @s; nothing if there is none. */
void cxs_sample_remove(struct cxs_sample *s, int i);
/* A sample of the first @n values of @v (not copied; never add to it). */
struct cxs_sample cxs_sample_view(const double *v, int n);

double cxs_sample_mean(const struct cxs_sample *s);
/* Sample (n - 1) standard deviation, two-pass; 0 for n < 2. */
double cxs_sample_sd(const struct cxs_sample *s);
/* sd / sqrt(n); 0 for n < 2. */
double cxs_sample_se(const struct cxs_sample *s);
/* 100 * se / |mean|: relative standard error in percent; 0 if mean is 0. */
double cxs_sample_rse_pct(const struct cxs_sample *s);
double cxs_sample_median(const struct cxs_sample *s);
/* CXS_MAD_SCALE * median(|x - median|) */
double cxs_sample_mad(const struct cxs_sample *s);
/*
 * Half-width of the two-sided 95 % confidence interval of the mean,
 * t(0.975, n - 1) * se; 0 for n < 2.
 */
double cxs_sample_ci95(const struct cxs_sample *s);

/*
 * Mark outliers: is_out[i] for |v[i] - median| > CXS_OUTLIER_MADS * MAD.
 * With MAD 0 (more than half the values equal), every value that differs
 * from the median is one. Returns how many (none for n < 3), or -ENOMEM.
 */
int cxs_sample_outliers(const struct cxs_sample *s, bool *is_out);

#endif
