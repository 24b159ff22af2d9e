/* SPDX-License-Identifier: GPL-2.0 */
/*
 * welch: Welch's unequal-variance t-test of B against A, the difference
 * B - A with its confidence interval, and the degenerate cases that
 * deterministic counts produce (no spread at all).
 */
#ifndef CTXSTAT_STATS_WELCH_H
#define CTXSTAT_STATS_WELCH_H

#include "stats/sample.h"

struct cxs_welch {
	double mean_a, mean_b;
	double diff;		/* mean_b - mean_a */
	double se;		/* standard error of diff */
	double t;		/* diff / se; +-INFINITY when se is 0 and diff is not */
	double df;		/* Welch-Satterthwaite */
	double p;		/* two-sided */
	double ci_lo, ci_hi;	/* confidence interval of diff */
};

/*
 * Test B against A at confidence @conf (0.95 for 95 %). Returns 0, or
 * -EINVAL when either sample has fewer than two values.
 *
 * Both samples without spread: the difference is known exactly, so equal
 * means give t = 0, p = 1 and a CI of [0, 0], different means p = 0 and a
 * CI of [diff, diff]; df is then n_a + n_b - 2. (SciPy returns NaN there.)
 */
int cxs_welch(const struct cxs_sample *a, const struct cxs_sample *b,
	      double conf, struct cxs_welch *w);

#endif
