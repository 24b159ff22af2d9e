/* SPDX-License-Identifier: GPL-2.0 */
/*
 * row: one row of perf stat's output in its three formats (normal, CSV
 * -x, JSON -j), with -I's time column, -A's CPU column and --per-thread's
 * thread column; output/display.c
 * decides which rows a series prints.
 */
#ifndef CTXSTAT_OUTPUT_ROW_H
#define CTXSTAT_OUTPUT_ROW_H

#include <stdbool.h>

#include "events/events.h"
#include "output/aggr.h"
#include "output/display.h"
#include "output/metric.h"
#include "stats/counts.h"

/* perf's column widths (stat-display.c) that output/display.c shares. */
#define COUNTS_LEN	18
#define UNIT_LEN	4
#define INTERVAL_LEN	16

/* One printed line. */
struct cxs_row {
	const char *name;
	bool quote;	/* a kernel-made name: quoted in CSV as needed */
	const struct cxs_event *ev;
	const struct cxs_counter_values *c;
	const struct cxs_sample *val;	/* full or one bucket */
	struct cxs_metric metric;
	/* perf 7.x: a ":t" row's share, below its metric (standard format) */
	struct cxs_metric share;
};

struct cxs_printer {
	const struct cxs_output_opts *o;
	const struct cxs_series *r;
	int cpu;	/* -A: the CPU of the rows, else -1 */
	/* --per-*: the rows' core, die, socket or node and its CPUs, or NULL */
	const struct cxs_aggr_id *aggr_id;
	int aggr_nr;
	/* --per-thread: the rows' thread, or NULL */
	const struct cxs_thread_row *thread;
};

void cxs_print_row(const struct cxs_printer *p, const struct cxs_row *row);

#endif /* CTXSTAT_OUTPUT_ROW_H */
