// SPDX-License-Identifier: GPL-2.0
/*
 * chi-square: the CDF is the regularized lower incomplete gamma function
 * P(k/2, x/2): its series where it converges fast (x < a + 1), else
 * Lentz's continued fraction of the upper function (as in Numerical
 * Recipes, 3rd ed., 6.2). The quantile is bisected on the CDF, which is
 * monotone: 200 halvings of [0, k + 40 sqrt(2k) + 100] leave it good to
 * the double's precision.
 */
#include <math.h>

#include "stats/chi-square.h"

#define EPS	1e-16
#define TINY	1e-300

/* P(a, x) by its series: x^a e^-x / Gamma(a + 1) * sum x^n / (a+1)...(a+n) */
static double gamma_p_series(double a, double x)
{
	double sum = 1 / a, term = sum, ap = a;
	int n;

	for (n = 0; n < 10000; n++) {
		ap += 1;
		term *= x / ap;
		sum += term;
		if (fabs(term) < fabs(sum) * EPS)
			break;
	}
	return sum * exp(-x + a * log(x) - lgamma(a));
}

/* Q(a, x) = 1 - P(a, x) by its continued fraction (modified Lentz). */
static double gamma_q_fraction(double a, double x)
{
	double b = x + 1 - a, c = 1 / TINY, d = 1 / b, h = d, an, del;
	int i;

	for (i = 1; i < 10000; i++) {
		an = -i * (i - a);
		b += 2;
		d = an * d + b;
		if (fabs(d) < TINY)
			d = TINY;
		c = b + an / c;
		if (fabs(c) < TINY)
			c = TINY;
		d = 1 / d;
		del = d * c;
		h *= del;
		if (fabs(del - 1) < EPS)
			break;
	}
	return exp(-x + a * log(x) - lgamma(a)) * h;
}

double cxs_chisq_cdf(double x, double k)
{
	double a = k / 2, y = x / 2;

	if (!(x > 0))
		return 0;
	if (y < a + 1)
		return gamma_p_series(a, y);
	return 1 - gamma_q_fraction(a, y);
}

double cxs_chisq_quantile(double p, double k)
{
	double lo = 0, hi = k + 40 * sqrt(2 * k) + 100, mid;
	int i;

	for (i = 0; i < 200 && hi - lo > hi * EPS; i++) {
		mid = (lo + hi) / 2;
		if (cxs_chisq_cdf(mid, k) < p)
			lo = mid;
		else
			hi = mid;
	}
	return (lo + hi) / 2;
}
