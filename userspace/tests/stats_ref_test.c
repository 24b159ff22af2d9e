// SPDX-License-Identifier: GPL-2.0
/*
 * tdist, sample and welch against reference values computed once by SciPy
 * (tests/fixtures/gen_stats.py, output committed as stats_fixtures.h),
 * plus the degenerate cases SciPy has no answer for (NaN), worked out by
 * hand below.
 */
#include <math.h>
#include <string.h>

#include "kselftest_harness.h"
#include "stats/sample.h"
#include "stats/t-dist.h"
#include "stats/welch.h"
#include "fixtures/stats_fixtures.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* |seen - want| within @rel of |want| (or @rel absolute near 0) */
static int close_to(double want, double seen, double rel)
{
	double tol = rel * (fabs(want) > 1 ? fabs(want) : 1);

	if (isinf(want))
		return want == seen;
	return fabs(seen - want) <= tol;
}

#define CLOSE(want, seen, rel) do {					\
	double w_ = (want), s_ = (seen);				\
	if (!close_to(w_, s_, rel))					\
		TH_LOG("%s: want %.17g, got %.17g", #seen, w_, s_);	\
	EXPECT_TRUE(close_to(w_, s_, rel));				\
} while (0)

static const struct fx_sample *fx_find(const char *name)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_samples); i++)
		if (!strcmp(fx_samples[i].name, name))
			return &fx_samples[i];
	return NULL;
}

static struct cxs_sample fx_view(const struct fx_sample *f)
{
	return cxs_sample_view(f->v, f->n);
}

TEST(betainc)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_beta); i++) {
		const struct fx_beta *f = &fx_beta[i];

		CLOSE(f->i, cxs_betainc(f->a, f->b, f->x), 1e-12);
	}
	EXPECT_EQ(0.0, cxs_betainc(2, 3, 0));
	EXPECT_EQ(1.0, cxs_betainc(2, 3, 1));
	EXPECT_TRUE(isnan(cxs_betainc(2, 3, 1.5)));
	EXPECT_TRUE(isnan(cxs_betainc(0, 3, 0.5)));
}

TEST(t_cdf_and_two_sided_p)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_tcdf); i++) {
		const struct fx_tcdf *f = &fx_tcdf[i];

		CLOSE(f->cdf, cxs_t_cdf(f->t, f->df), 1e-13);
		/* tails as small as 1e-60: relative accuracy matters */
		EXPECT_TRUE(fabs(cxs_t_p2(f->t, f->df) - f->p2) <=
			    1e-9 * f->p2 + 1e-300);
	}
}

TEST(t_quantiles)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_tq); i++) {
		const struct fx_tq *f = &fx_tq[i];

		CLOSE(f->q, cxs_t_quantile(f->p, f->df), 1e-12);
	}
	EXPECT_EQ(0.0, cxs_t_quantile(0.5, 3));
	EXPECT_TRUE(isnan(cxs_t_quantile(0, 3)));
	EXPECT_TRUE(isnan(cxs_t_quantile(1, 3)));
	EXPECT_TRUE(isnan(cxs_t_quantile(0.9, 0)));
}

TEST(sample_descriptives)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_samples); i++) {
		const struct fx_sample *f = &fx_samples[i];
		struct cxs_sample s = fx_view(f);

		TH_LOG("sample %s", f->name);
		CLOSE(f->mean, cxs_sample_mean(&s), 1e-15);
		CLOSE(f->sd, cxs_sample_sd(&s), 1e-9);
		CLOSE(f->se, cxs_sample_se(&s), 1e-9);
		CLOSE(f->ci95, cxs_sample_ci95(&s), 1e-9);
		CLOSE(f->median, cxs_sample_median(&s), 1e-15);
		CLOSE(f->mad, cxs_sample_mad(&s), 1e-12);
	}
}

/* |x - median| > 3 x 1.4826 x MAD, as computed by NumPy/SciPy */
TEST(mad_outlier_rule)
{
	unsigned int i;
	int j;

	for (i = 0; i < ARRAY_LEN(fx_samples); i++) {
		const struct fx_sample *f = &fx_samples[i];
		struct cxs_sample s = fx_view(f);
		bool out[16];

		EXPECT_EQ(f->nr_out, cxs_sample_outliers(&s, out));
		for (j = 0; j < f->n; j++)
			EXPECT_EQ(f->out[j], out[j]);
	}
}

TEST(welch_against_scipy)
{
	unsigned int i;

	for (i = 0; i < ARRAY_LEN(fx_welch); i++) {
		const struct fx_welch *f = &fx_welch[i];
		struct cxs_sample a = fx_view(fx_find(f->a));
		struct cxs_sample b = fx_view(fx_find(f->b));
		struct cxs_welch w;

		TH_LOG("%s vs %s", f->a, f->b);
		ASSERT_EQ(0, cxs_welch(&a, &b, 0.95, &w));
		CLOSE(f->diff, w.diff, 1e-12);
		CLOSE(f->t, w.t, 1e-9);
		CLOSE(f->df, w.df, 1e-9);
		EXPECT_TRUE(fabs(w.p - f->p) <= 1e-9 * f->p + 1e-300);
		CLOSE(f->ci_lo, w.ci_lo, 1e-9);
		CLOSE(f->ci_hi, w.ci_hi, 1e-9);
	}
}

/*
 * Identical instruction counts in every run (what -icount gives): both
 * spreads are 0, so the difference is known exactly. Equal means: t 0,
 * p 1, CI [0, 0]. 5 % more: p 0, CI [diff, diff]. df = 4 + 3 - 2 = 5.
 */
TEST(zero_spread_both)
{
	const double a4[] = { 1000, 1000, 1000, 1000 };
	const double b3[] = { 1000, 1000, 1000 };
	const double c3[] = { 1050, 1050, 1050 };
	struct cxs_sample a = cxs_sample_view(a4, 4);
	struct cxs_sample b = cxs_sample_view(b3, 3);
	struct cxs_sample c = cxs_sample_view(c3, 3);
	struct cxs_welch w;
	bool out[4];

	ASSERT_EQ(0, cxs_welch(&a, &b, 0.95, &w));
	EXPECT_EQ(0.0, w.diff);
	EXPECT_EQ(0.0, w.t);
	EXPECT_EQ(1.0, w.p);
	EXPECT_EQ(5.0, w.df);
	EXPECT_EQ(0.0, w.ci_lo);
	EXPECT_EQ(0.0, w.ci_hi);

	ASSERT_EQ(0, cxs_welch(&a, &c, 0.95, &w));
	EXPECT_EQ(50.0, w.diff);
	EXPECT_TRUE(isinf(w.t) && w.t > 0);
	EXPECT_EQ(0.0, w.p);
	EXPECT_EQ(50.0, w.ci_lo);
	EXPECT_EQ(50.0, w.ci_hi);

	ASSERT_EQ(0, cxs_welch(&c, &a, 0.95, &w));
	EXPECT_TRUE(isinf(w.t) && w.t < 0);
	EXPECT_EQ(-50.0, w.ci_hi);

	/* No spread: no outliers, rse 0 (what --repeat-until stops on). */
	EXPECT_EQ(0, cxs_sample_outliers(&a, out));
	EXPECT_EQ(0.0, cxs_sample_rse_pct(&a));
	EXPECT_EQ(0.0, cxs_sample_ci95(&a));
}

/* One run per side: no variance estimate, no test. */
TEST(too_few_runs)
{
	const double one[] = { 5 }, two[] = { 5, 6 };
	struct cxs_sample a = cxs_sample_view(one, 1);
	struct cxs_sample b = cxs_sample_view(two, 2);
	struct cxs_welch w;
	bool out[2];

	EXPECT_EQ(-EINVAL, cxs_welch(&a, &b, 0.95, &w));
	EXPECT_EQ(-EINVAL, cxs_welch(&b, &a, 0.95, &w));
	EXPECT_EQ(0.0, cxs_sample_sd(&a));
	EXPECT_EQ(0.0, cxs_sample_se(&a));
	EXPECT_EQ(0, cxs_sample_outliers(&b, out));
}

/*
 * MAD 0 with one differing value: more than half the runs are identical
 * (median 7, |x - 7| = 0 0 0 0 2 -> MAD 0), so the odd one out is reported.
 */
TEST(mad_zero_reports_the_odd_one)
{
	const double v[] = { 7, 7, 9, 7, 7 };
	struct cxs_sample s = cxs_sample_view(v, 5);
	bool out[5];

	EXPECT_EQ(0.0, cxs_sample_mad(&s));
	EXPECT_EQ(1, cxs_sample_outliers(&s, out));
	EXPECT_TRUE(out[2]);
}

TEST(sample_grows)
{
	struct cxs_sample s;
	int i;

	cxs_sample_init(&s);
	for (i = 1; i <= 100; i++)
		ASSERT_EQ(0, cxs_sample_add(&s, i));
	EXPECT_EQ(100, s.n);
	EXPECT_EQ(50.5, cxs_sample_mean(&s));
	EXPECT_EQ(50.5, cxs_sample_median(&s));
	cxs_sample_free(&s);
	EXPECT_EQ(0, s.n);
}

TEST_HARNESS_MAIN
