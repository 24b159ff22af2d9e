/* SPDX-License-Identifier: GPL-2.0 */
/*
 * counts: every run's value of every kernel counter, kept: the one store
 * that the printed means, spreads, tests and saved files all derive from.
 */
#ifndef CTXSTAT_STATS_COUNTS_H
#define CTXSTAT_STATS_COUNTS_H

#include <stdbool.h>
#include <stdint.h>

#include "events/events.h"
#include "stats/sample.h"

/* One kernel counter over all runs; counts already scaled per run. */
struct cxs_counter_values {
	int error;		/* non-zero: the kernel could not count it */
	bool counted;		/* time_running > 0 in the last run */
	struct cxs_sample full;
	struct cxs_sample bucket[CTXCOUNT_BUCKET_MAX + 1];
	struct cxs_sample enabled;	/* ns */
	struct cxs_sample running;	/* ns */
	/*
	 * --irq-sources: the hardirq bucket by the series' source rows
	 * (run/irq-sources.h); a row first seen in a later run has 0 in the
	 * runs before it, so every sample has one value per run.
	 */
	int nr_src;
	struct cxs_sample *src;
};

/* One run's reading of one counter, before scaling. */
struct cxs_counter_reading {
	uint64_t full;
	uint64_t bucket[CTXCOUNT_BUCKET_MAX + 1];
	uint64_t time_enabled, time_running;
	/* --irq-sources: the value of each source row, NULL without */
	const uint64_t *src;
	int nr_src;
};

/* Room for @n runs in every sample of @c: 0, or -ENOMEM. */
int cxs_counter_reserve(struct cxs_counter_values *c, int n);
/*
 * Room for @nr_src source rows of @n runs (the rows @c has not got yet
 * start with a 0 for every run before): 0, or -ENOMEM without new rows.
 */
int cxs_counter_reserve_src(struct cxs_counter_values *c, int nr_src, int n);
/*
 * Append one run's reading, scaled as perf scales a multiplexed counter.
 * All of it or nothing: 0, or -ENOMEM with @c unchanged; never fails
 * after cxs_counter_reserve() made room.
 */
int cxs_counter_add(struct cxs_counter_values *c,
		    const struct cxs_counter_reading *rd);
void cxs_counter_free(struct cxs_counter_values *c);
/*
 * Add @src's values to @dst's, run by run (a CPU's to its core's, as
 * perf sums count, enabled and running); an empty @dst takes @src's.
 * An error of either stays. 0, or -ENOMEM (@dst then partly summed).
 */
int cxs_counter_accumulate(struct cxs_counter_values *dst,
			   const struct cxs_counter_values *src);

/* Remove run @i's values from every sample of @c. */
void cxs_counter_remove(struct cxs_counter_values *c, int i);
/* No runs, the room kept (-I reuses one set of samples per interval). */
void cxs_counter_clear(struct cxs_counter_values *c);

/* Counted, in the last run at least: its values mean something. */
static inline bool cxs_counter_ok(const struct cxs_counter_values *c)
{
	return !c->error && c->counted;
}

/* The values a displayed event shows: the task bucket for :t, else full. */
const struct cxs_sample *cxs_event_values(const struct cxs_event *ev,
					  const struct cxs_counter_values *counters);

#endif
