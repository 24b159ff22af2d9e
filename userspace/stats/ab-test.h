/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ab-test: ctxstat compare's statistics: the ABBA run order, per event
 * Welch's test of B against A and B/A with its confidence interval, the
 * verdicts corrected for the number of events tested (Holm), and the
 * number of runs each event needed to separate A from B. No counting and
 * no printing here.
 */
#ifndef CTXSTAT_STATS_AB_TEST_H
#define CTXSTAT_STATS_AB_TEST_H

#include <stdbool.h>

#include "stats/sample.h"
#include "stats/welch.h"

#define CXS_COMPARE_ALPHA	0.05	/* 95 % confidence */
/* --threshold's default: a smaller change is not called one, in percent */
#define CXS_THRESHOLD_PCT	1.0

/*
 * What compare and report say of B against A, in the same words: a
 * change needs Welch's test, corrected for the events tested (Holm),
 * and at least the threshold; clocks are slower or faster, counts more
 * or fewer.
 */
enum cxs_verdict {
	CXS_VERDICT_TOO_FEW,	/* fewer than 2 runs on a side */
	CXS_VERDICT_SAME,	/* no significant change */
	CXS_VERDICT_SMALL,	/* significant, but less than the threshold */
	CXS_VERDICT_MORE,	/* B significantly more: slower for a clock */
	CXS_VERDICT_LESS,	/* B significantly less: faster for a clock */
};

/*
 * Run @i (0-based) of an A/B series: A B B A  A B B A ...: every pair of
 * pairs is balanced, so a linear drift adds the same to A and B.
 */
bool cxs_abba_is_b(int i);

/*
 * More or less when @p < @alpha, by the sign of B - A (@diff), and B/A
 * (@ratio; NAN when A's mean is 0: any change is large) is at least
 * @threshold_pct percent from 1; else small or the same.
 */
enum cxs_verdict cxs_verdict_of(double diff, double p, double alpha,
				double ratio, double threshold_pct);

/*
 * "more", "fewer" (counts); "slower", "faster" (@clock); "no significant
 * change", "changed < 1%" (@threshold_pct), "too few runs". Static or
 * in a static buffer.
 */
const char *cxs_verdict_name(enum cxs_verdict v, bool clock,
			     double threshold_pct);

/*
 * Holm's step-down adjustment of @n p-values (S. Holm, Scand. J. Statist.
 * 6, 1979): sorted ascending, the i-th (from 0) is multiplied by n - i,
 * then made no smaller than the one before, at most 1. Rejecting where
 * adj[i] < alpha keeps the chance of any false "slower" or "faster"
 * among the n at most alpha, whatever their dependence. NAN stays NAN
 * and does not count in n.
 */
void cxs_holm(const double *p, double *adj, int n);

/*
 * B's mean over A's, and Fieller's interval for it at @conf: the r with
 * (mean_b - r mean_a)^2 <= t^2 (var_b + r^2 var_a), var the squared
 * standard errors, t at Welch's degrees of freedom; it excludes 1 exactly
 * when Welch's test gives p < 1 - @conf. 0, or -1 when A's mean is not
 * clearly apart from 0 (the interval is then unbounded).
 */
int cxs_ratio_ci(const struct cxs_sample *a, const struct cxs_sample *b,
		 const struct cxs_welch *w, double conf,
		 double *ratio, double *lo, double *hi);

/*
 * The fewest runs per side that separate A from B: the smallest k >= 2
 * such that Welch's test on the first k values of each side gives
 * p < @alpha, and so does every larger k up to the values there are.
 * 0 when even all of them do not.
 */
int cxs_runs_to_separate(const struct cxs_sample *a,
			 const struct cxs_sample *b, double alpha);

struct cxs_compare_row {
	const char *name;
	double threshold_pct;	/* --threshold: said with the verdict */
	int counter;		/* rows with the same counter are :t twins */
	bool task_only;
	bool clock;		/* values in ns, shown in msec */
	const char *error;	/* not counted on a side: why */
	const struct cxs_sample *a, *b;
	/* filled by cxs_compare_eval() */
	struct cxs_welch w;
	double sd_a, sd_b;
	double ratio, ratio_lo, ratio_hi;	/* B / A; NAN: none */
	double p_holm;		/* w.p adjusted over the rows tested */
	enum cxs_verdict verdict;	/* from p_holm and the threshold */
	int runs_to_separate;	/* at alpha / rows tested; 0: not */
};

/*
 * Test every row, then correct over the rows tested (those with two runs
 * a side and no error): verdicts from Holm's adjusted p at
 * CXS_COMPARE_ALPHA and @threshold_pct; runs to separate at Holm's
 * strictest level, alpha / rows tested, so that a row that separates is
 * significant.
 */
void cxs_compare_eval(struct cxs_compare_row *rows, int nr,
		      double threshold_pct);

#endif
