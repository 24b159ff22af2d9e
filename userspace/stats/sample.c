// SPDX-License-Identifier: GPL-2.0
/*
 * sample: statistics over all kept values of a measurement. Two-pass
 * mean/variance: exact for the deterministic counts an emulated PMU gives
 * (identical values have exactly zero spread, which Welch's test then
 * treats as such), and stable for counts near 1e9 with a spread of units.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stats/sample.h"
#include "stats/t-dist.h"

void cxs_sample_init(struct cxs_sample *s)
{
	memset(s, 0, sizeof(*s));
}

void cxs_sample_free(struct cxs_sample *s)
{
	free(s->v);
	cxs_sample_init(s);
}

void cxs_sample_clear(struct cxs_sample *s)
{
	s->n = 0;
}

int cxs_sample_reserve(struct cxs_sample *s, int n)
{
	int cap = s->cap ? s->cap : 16;
	double *v;

	if (n <= s->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	v = realloc(s->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->v = v;
	s->cap = cap;
	return 0;
}

int cxs_sample_add(struct cxs_sample *s, double x)
{
	if (cxs_sample_reserve(s, s->n + 1))
		return -ENOMEM;
	s->v[s->n++] = x;
	return 0;
}

void cxs_sample_remove(struct cxs_sample *s, int i)
{
	if (i < 0 || i >= s->n)
		return;
	memmove(&s->v[i], &s->v[i + 1], (s->n - i - 1) * sizeof(*s->v));
	s->n--;
}

struct cxs_sample cxs_sample_view(const double *v, int n)
{
	struct cxs_sample s = { .v = (double *)v, .n = n, .cap = n };

	return s;
}

double cxs_sample_mean(const struct cxs_sample *s)
{
	double sum = 0;
	int i;

	if (!s->n)
		return 0;
	for (i = 0; i < s->n; i++)
		sum += s->v[i];
	return sum / s->n;
}

double cxs_sample_sd(const struct cxs_sample *s)
{
	double mean = cxs_sample_mean(s), ss = 0;
	int i;

	if (s->n < 2)
		return 0;
	for (i = 0; i < s->n; i++)
		ss += (s->v[i] - mean) * (s->v[i] - mean);
	return sqrt(ss / (s->n - 1));
}

double cxs_sample_se(const struct cxs_sample *s)
{
	if (s->n < 2)
		return 0;
	return cxs_sample_sd(s) / sqrt(s->n);
}

double cxs_sample_rse_pct(const struct cxs_sample *s)
{
	double mean = cxs_sample_mean(s);

	if (mean == 0)
		return 0;
	return 100.0 * cxs_sample_se(s) / fabs(mean);
}

double cxs_sample_ci95(const struct cxs_sample *s)
{
	if (s->n < 2)
		return 0;
	return cxs_t_quantile(0.975, s->n - 1) * cxs_sample_se(s);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median of @n values in @tmp, which it sorts. */
static double median_of(double *tmp, int n)
{
	qsort(tmp, n, sizeof(*tmp), cmp_double);
	if (n & 1)
		return tmp[n / 2];
	return (tmp[n / 2 - 1] + tmp[n / 2]) / 2.0;
}

double cxs_sample_median(const struct cxs_sample *s)
{
	double *tmp, m;

	if (!s->n)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	memcpy(tmp, s->v, s->n * sizeof(*tmp));
	m = median_of(tmp, s->n);
	free(tmp);
	return m;
}

double cxs_sample_mad(const struct cxs_sample *s)
{
	double med = cxs_sample_median(s), *tmp, mad;
	int i;

	if (!s->n)
		return 0;
	tmp = malloc(s->n * sizeof(*tmp));
	if (!tmp)
		return NAN;
	for (i = 0; i < s->n; i++)
		tmp[i] = fabs(s->v[i] - med);
	mad = CXS_MAD_SCALE * median_of(tmp, s->n);
	free(tmp);
	return mad;
}

int cxs_sample_outliers(const struct cxs_sample *s, bool *is_out)
{
	double med, limit;
	int i, nr = 0;

	for (i = 0; i < s->n; i++)
		is_out[i] = false;
	if (s->n < 3)
		return 0;
	med = cxs_sample_median(s);
	limit = CXS_OUTLIER_MADS * cxs_sample_mad(s);
	/* NAN: no memory for the sorted copies */
	if (isnan(med) || isnan(limit))
		return -ENOMEM;
	for (i = 0; i < s->n; i++) {
		is_out[i] = fabs(s->v[i] - med) > limit;
		nr += is_out[i];
	}
	return nr;
}
