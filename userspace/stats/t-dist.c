// SPDX-License-Identifier: GPL-2.0
/*
 * t-dist: the t distribution from the regularized incomplete beta function.
 *
 *   P(|T| >= |t|) = I_x(df/2, 1/2),  x = df / (df + t^2)
 *
 * I_x(a, b) is evaluated with its continued fraction (DLMF 8.17.22) by the
 * modified Lentz method, on the side of x where it converges fast
 * (x < (a + 1) / (a + b + 2)), using I_x(a, b) = 1 - I_{1-x}(b, a) on the
 * other. The quantile inverts the CDF by bisection on a bracket grown
 * until it holds the answer: slower than Newton, but it cannot diverge and
 * ctxstat needs a handful of quantiles per report.
 */
#include <float.h>
#include <math.h>

#include "stats/t-dist.h"

#define CF_EPS		1e-15
#define CF_TINY		1e-300
#define CF_MAX_ITER	100000

/* The continued fraction of I_x(a, b) without its prefactor. */
static double beta_cf(double a, double b, double x)
{
	double c = 1.0, d, f, num, delta;
	int m, i;

	d = 1.0 - (a + b) * x / (a + 1.0);
	if (fabs(d) < CF_TINY)
		d = CF_TINY;
	d = 1.0 / d;
	f = d;
	for (i = 2; i <= CF_MAX_ITER; i++) {	/* d_1 is in d */
		m = i / 2;
		if (i & 1)	/* d_{2m+1} */
			num = -(a + m) * (a + b + m) * x /
			      ((a + 2.0 * m) * (a + 2.0 * m + 1.0));
		else		/* d_{2m} */
			num = m * (b - m) * x /
			      ((a + 2.0 * m - 1.0) * (a + 2.0 * m));
		d = 1.0 + num * d;
		if (fabs(d) < CF_TINY)
			d = CF_TINY;
		c = 1.0 + num / c;
		if (fabs(c) < CF_TINY)
			c = CF_TINY;
		d = 1.0 / d;
		delta = c * d;
		f *= delta;
		if (fabs(delta - 1.0) < CF_EPS)
			break;
	}
	return f;
}

/* Stirling's series of ln Gamma(x) less its leading terms, x >= 10. */
static double lgamma_corr(double x)
{
	double r = 1.0 / (x * x);

	return (1.0 / 12 - r * (1.0 / 360 - r * (1.0 / 1260 -
		r * (1.0 / 1680 - r / 1188)))) / x;
}

/*
 * ln(Gamma(a + b) / Gamma(a)). For large a (large df) lgamma(a + b) and
 * lgamma(a) are both huge and their difference would keep only ~10
 * digits; Stirling's series of the difference keeps them all.
 */
static double lgamma_ratio(double a, double b)
{
	if (a < 20)
		return lgamma(a + b) - lgamma(a);
	return (a - 0.5) * log1p(b / a) + b * log(a + b) - b +
	       lgamma_corr(a + b) - lgamma_corr(a);
}

/* I_x(a, b) with y = 1 - x given exactly by the caller (no cancellation). */
static double betainc_xy(double a, double b, double x, double y)
{
	double lnpre;

	if (x == 0 || y == 0)
		return x == 0 ? 0.0 : 1.0;
	/* x^a y^b / (a B(a, b)), in logs: B(a, b) underflows for large df */
	lnpre = (a >= b ? lgamma_ratio(a, b) - lgamma(b) :
			  lgamma_ratio(b, a) - lgamma(a)) +
		a * (x > 0.5 ? log1p(-y) : log(x)) +
		b * (y > 0.5 ? log1p(-x) : log(y));
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lnpre) * beta_cf(a, b, x) / a;
	return 1.0 - exp(lnpre) * beta_cf(b, a, y) / b;
}

double cxs_betainc(double a, double b, double x)
{
	if (isnan(x) || a <= 0 || b <= 0 || x < 0 || x > 1)
		return NAN;
	return betainc_xy(a, b, x, 1.0 - x);
}

double cxs_t_p2(double t, double df)
{
	if (isnan(t) || !(df > 0))
		return NAN;
	if (isinf(t))
		return 0.0;
	return betainc_xy(df / 2.0, 0.5, df / (df + t * t), t * t / (df + t * t));
}

double cxs_t_cdf(double t, double df)
{
	double tail = cxs_t_p2(t, df) / 2.0;

	if (isnan(tail))
		return NAN;
	return t < 0 ? tail : 1.0 - tail;
}

double cxs_t_quantile(double p, double df)
{
	double lo = 0.0, hi = 1.0, mid, target;
	int i;

	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p == 0.5)
		return 0.0;
	/* Solve on the upper half, where the tail is P(|T| >= t) / 2. */
	target = p < 0.5 ? p : 1.0 - p;
	while (cxs_t_p2(hi, df) / 2.0 > target && hi < 1e300)
		hi *= 2.0;
	for (i = 0; i < 2000 && hi - lo > DBL_EPSILON * hi; i++) {
		mid = (lo + hi) / 2.0;
		if (cxs_t_p2(mid, df) / 2.0 > target)
			lo = mid;
		else
			hi = mid;
	}
	mid = (lo + hi) / 2.0;
	return p < 0.5 ? -mid : mid;
}
