/* SPDX-License-Identifier: GPL-2.0 */
/*
 * series_fixture: a stat series built by hand (counters, runs, elapsed
 * times) and rendered by output/display.c into a string, for output_test and
 * breakdown_test. Include after kselftest_harness.h.
 */
#ifndef CTXSTAT_SERIES_FIXTURE_H
#define CTXSTAT_SERIES_FIXTURE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/display.h"

struct fixture_data {
	struct cxs_event_list events;
	struct cxs_counter_values res[CTXCOUNT_MAX_EVENTS];
	struct cxs_sample elapsed;
	struct cxs_series series;
	enum cxs_perf_dialect dialect;	/* render()'s; 0 is 6.1's */
};

static inline void setup(struct fixture_data *d, const char *specs, int runs)
{
	char err[256];

	memset(d, 0, sizeof(*d));
	if (cxs_events_add(&d->events, specs, err, sizeof(err)))
		abort();
	d->series.events = &d->events;
	d->series.counters = d->res;
	d->series.elapsed_ns = &d->elapsed;
	d->series.runs = runs;
	d->series.target = CXS_TARGET_COMMAND;
}

static inline void release(struct fixture_data *d)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&d->res[i]);
	cxs_sample_free(&d->elapsed);
}

/* One run of counter @i: full count, all of it in task context. */
static inline void run_counter(struct fixture_data *d, int i, double full,
			double ena, double run)
{
	struct cxs_counter_reading rd = {
		.full = full, .time_enabled = ena, .time_running = run,
	};

	rd.bucket[CTXCOUNT_BUCKET_TASK] = full;
	if (cxs_counter_add(&d->res[i], &rd))
		abort();
}

static inline char *render(struct fixture_data *d, enum cxs_output_format fmt,
		    const char *sep, bool breakdown, int verbose)
{
	struct cxs_output_opts o = {
		.format = fmt, .sep = sep, .breakdown = breakdown,
		.verbose = verbose, .dialect = d->dialect,
	};
	char *buf = NULL;
	size_t len = 0;

	o.f = open_memstream(&buf, &len);
	cxs_output_series(&o, &d->series);
	fclose(o.f);
	return buf;
}

#endif
