/* SPDX-License-Identifier: GPL-2.0 */
/*
 * t-dist: Student's t distribution for non-integer degrees of freedom
 * (Welch's test has them), through the regularized incomplete beta
 * function. No tables: every value is computed.
 */
#ifndef CTXSTAT_STATS_T_DIST_H
#define CTXSTAT_STATS_T_DIST_H

/* Regularized incomplete beta I_x(a, b), a > 0, b > 0, 0 <= x <= 1. */
double cxs_betainc(double a, double b, double x);

/* P(T <= t) for T ~ Student t with @df > 0 degrees of freedom. */
double cxs_t_cdf(double t, double df);

/* Two-sided tail P(|T| >= |t|), computed without 1 - cdf cancellation. */
double cxs_t_p2(double t, double df);

/* The t with P(T <= t) = @p, 0 < p < 1 (NAN outside). */
double cxs_t_quantile(double p, double df);

#endif
