/* SPDX-License-Identifier: GPL-2.0 */
/*
 * abtest: ctxstat compare's statistics: the ABBA run order, the verdict
 * from Welch's test, and the number of runs each event needed to
 * separate A from B. No counting and no printing here.
 */
#ifndef CTXSTAT_ABTEST_H
#define CTXSTAT_ABTEST_H

#include <stdbool.h>

#include "sample.h"
#include "welch.h"

#define CTX_COMPARE_ALPHA	0.05	/* 95 % confidence */

enum ctx_verdict {
	CTX_VERDICT_TOO_FEW,	/* fewer than 2 runs on a side */
	CTX_VERDICT_SAME,	/* no significant change */
	CTX_VERDICT_SLOWER,	/* B counts significantly more than A */
	CTX_VERDICT_FASTER,	/* B counts significantly less than A */
};

/*
 * Run @i (0-based) of an A/B series: A B B A  A B B A ...: every pair of
 * pairs is balanced, so a linear drift adds the same to A and B.
 */
bool ctx_abba_is_b(int i);

enum ctx_verdict ctx_verdict_of(const struct ctx_welch *w, double alpha);
const char *ctx_verdict_name(enum ctx_verdict v);

/*
 * The fewest runs per side that separate A from B: the smallest k >= 2
 * such that Welch's test on the first k values of each side gives
 * p < @alpha, and so does every larger k up to the values there are.
 * 0 when even all of them do not.
 */
int ctx_runs_to_separate(const struct ctx_sample *a,
			 const struct ctx_sample *b, double alpha);

struct ctx_compare_row {
	const char *name;
	int counter;		/* rows with the same counter are :t twins */
	bool task_only;
	bool clock;		/* values in ns, shown in msec */
	const char *error;	/* not counted on a side: why */
	const struct ctx_sample *a, *b;
	/* filled by ctx_compare_row_eval() */
	struct ctx_welch w;
	enum ctx_verdict verdict;
	int runs_to_separate;
};

void ctx_compare_row_eval(struct ctx_compare_row *r);

#endif
