// SPDX-License-Identifier: GPL-2.0
/*
 * ab-test: from two kept samples per event to a verdict. B is compared
 * against A; only a clock's change is a matter of time (slower, faster):
 * more instructions or page faults are more, not slower.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats/ab-test.h"
#include "stats/t-dist.h"

bool cxs_abba_is_b(int i)
{
	return ((i / 2) & 1) ^ (i & 1);
}

enum cxs_verdict cxs_verdict_of(double diff, double p, double alpha,
				double ratio, double threshold_pct)
{
	if (!(p < alpha))
		return CXS_VERDICT_SAME;
	if (!isnan(ratio) && fabs(ratio - 1) * 100 < threshold_pct)
		return CXS_VERDICT_SMALL;
	return diff > 0 ? CXS_VERDICT_MORE : CXS_VERDICT_LESS;
}

const char *cxs_verdict_name(enum cxs_verdict v, bool clock,
			     double threshold_pct)
{
	static char small[32];

	switch (v) {
	case CXS_VERDICT_SAME:
		return "no significant change";
	case CXS_VERDICT_SMALL:
		snprintf(small, sizeof(small), "changed < %g%%", threshold_pct);
		return small;
	case CXS_VERDICT_MORE:
		return clock ? "slower" : "more";
	case CXS_VERDICT_LESS:
		return clock ? "faster" : "fewer";
	default:
		return "too few runs";
	}
}

static bool separated(const struct cxs_sample *a, const struct cxs_sample *b,
		      int k, double alpha)
{
	struct cxs_sample ka = cxs_sample_view(a->v, k);
	struct cxs_sample kb = cxs_sample_view(b->v, k);
	struct cxs_welch w;

	return !cxs_welch(&ka, &kb, 1 - alpha, &w) && w.p < alpha;
}

int cxs_runs_to_separate(const struct cxs_sample *a,
			 const struct cxs_sample *b, double alpha)
{
	int n = a->n < b->n ? a->n : b->n, k, first = 0;

	for (k = n; k >= 2 && separated(a, b, k, alpha); k--)
		first = k;
	return first;
}

static int cmp_p(const void *x, const void *y)
{
	double a = **(const double *const *)x, b = **(const double *const *)y;

	return a < b ? -1 : a > b;
}

void cxs_holm(const double *p, double *adj, int n)
{
	const double **order = calloc(n ? n : 1, sizeof(*order));
	double running = 0, v;
	int i, m = 0;

	for (i = 0; i < n; i++) {
		adj[i] = p[i];
		if (!isnan(p[i]) && order)
			order[m++] = &p[i];
	}
	if (!order) {
		/* no memory: Bonferroni, stricter everywhere than Holm */
		for (i = 0; i < n; i++)
			adj[i] = fmin(1, p[i] * n);
		return;
	}
	qsort(order, m, sizeof(*order), cmp_p);
	for (i = 0; i < m; i++) {
		v = fmin(1, (m - i) * *order[i]);
		running = fmax(running, v);
		adj[order[i] - p] = running;
	}
	free(order);
}

int cxs_ratio_ci(const struct cxs_sample *a, const struct cxs_sample *b,
		 const struct cxs_welch *w, double conf,
		 double *ratio, double *lo, double *hi)
{
	double ma = w->mean_a, mb = w->mean_b, sa = cxs_sample_sd(a);
	double sb = cxs_sample_sd(b), va = sa * sa / a->n, vb = sb * sb / b->n;
	double t = w->se ? cxs_t_quantile(0.5 + conf / 2, w->df) : 0;
	double q = ma * ma - t * t * va, d;

	*ratio = *lo = *hi = NAN;
	if (!(q > 0))
		return -1;
	*ratio = mb / ma;
	d = t * sqrt(ma * ma * vb + mb * mb * va - t * t * va * vb);
	*lo = (ma * mb - d) / q;
	*hi = (ma * mb + d) / q;
	if (*lo > *hi) {	/* A's mean negative */
		d = *lo;
		*lo = *hi;
		*hi = d;
	}
	return 0;
}

/* Welch's test and B/A of one row; false when it cannot be tested. */
static bool test_row(struct cxs_compare_row *r)
{
	memset(&r->w, 0, sizeof(r->w));
	r->w.p = NAN;
	r->ratio = r->ratio_lo = r->ratio_hi = NAN;
	r->p_holm = NAN;
	r->sd_a = r->sd_b = 0;
	r->runs_to_separate = 0;
	r->verdict = CXS_VERDICT_TOO_FEW;
	if (r->error || cxs_welch(r->a, r->b, 1 - CXS_COMPARE_ALPHA, &r->w)) {
		r->w.p = NAN;
		return false;
	}
	r->sd_a = cxs_sample_sd(r->a);
	r->sd_b = cxs_sample_sd(r->b);
	cxs_ratio_ci(r->a, r->b, &r->w, 1 - CXS_COMPARE_ALPHA, &r->ratio,
		     &r->ratio_lo, &r->ratio_hi);
	return true;
}

void cxs_compare_eval(struct cxs_compare_row *rows, int nr,
		      double threshold_pct)
{
	double *p = calloc(nr ? nr : 1, sizeof(*p));
	double *adj = calloc(nr ? nr : 1, sizeof(*adj));
	int i, m = 0;

	for (i = 0; i < nr; i++)
		m += test_row(&rows[i]);
	for (i = 0; p && i < nr; i++)
		p[i] = rows[i].w.p;
	if (p && adj)
		cxs_holm(p, adj, nr);
	for (i = 0; i < nr; i++) {
		struct cxs_compare_row *r = &rows[i];

		if (isnan(r->w.p))	/* not tested */
			continue;
		/* no memory for Holm: Bonferroni */
		r->p_holm = p && adj ? adj[i] : fmin(1, r->w.p * m);
		r->verdict = cxs_verdict_of(r->w.diff, r->p_holm, CXS_COMPARE_ALPHA,
					    r->w.mean_a ? r->w.mean_b / r->w.mean_a : NAN,
					    threshold_pct);
		r->threshold_pct = threshold_pct;
		r->runs_to_separate = cxs_runs_to_separate(r->a, r->b,
							   CXS_COMPARE_ALPHA / m);
	}
	free(p);
	free(adj);
}
