/* SPDX-License-Identifier: GPL-2.0 */
/* metric: what perf stat prints after '#' on a row. */
#ifndef CTXSTAT_OUTPUT_METRIC_H
#define CTXSTAT_OUTPUT_METRIC_H

#include "output/display.h"

/*
 * A metric beside a count: perf's " # fmt unit"; fmt NULL = none. perf
 * 7.x's unit is its metric file's unit and the metric's name:
 * "CPUs  CPUs_utilized".
 */
struct cxs_metric {
	const char *fmt;
	char unit[48];
	double val;
};

/* perf stat's metric for event @ev's full count @avg in series @s. */
void cxs_full_metric(const struct cxs_series *s, const struct cxs_event *ev,
		     double avg, struct cxs_metric *m);

/*
 * perf 7.x's metric of @ev, one of its default events (NaN where an
 * input was not counted, as perf), from the task-context counts of @s
 * for a ":t" row: none for the other events.
 */
void cxs_default_metric(const struct cxs_series *s, const struct cxs_event *ev,
			struct cxs_metric *m);

/* The share of a full count: ":t" rows and breakdown rows ("of all"). */
void cxs_share_metric(enum cxs_perf_dialect dialect, double part, double full,
		      struct cxs_metric *m);

#endif
