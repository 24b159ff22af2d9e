/* SPDX-License-Identifier: GPL-2.0 */
/*
 * chi-square: the chi-square distribution, for a confidence bound on a
 * standard deviation: (n - 1) s^2 / sigma^2 is chi-square with n - 1
 * degrees of freedom for normal data.
 */
#ifndef CTXSTAT_STATS_CHI_SQUARE_H
#define CTXSTAT_STATS_CHI_SQUARE_H

/* P(chi-square with @k degrees of freedom <= @x) (@k > 0, @x >= 0). */
double cxs_chisq_cdf(double x, double k);

/* The @p quantile (0 < @p < 1) of chi-square with @k degrees of freedom. */
double cxs_chisq_quantile(double p, double k);

#endif
