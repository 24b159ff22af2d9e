/* SPDX-License-Identifier: GPL-2.0 */
/*
 * interval: ctxstat -I, perf stat's interval printing. While a run
 * measures, the session is READ every interval and the difference from
 * the previous READ is printed as that interval's counts; the READ after
 * STOP gives the last, partial interval, so the intervals add up to the
 * run's total.
 */
#ifndef CTXSTAT_RUN_INTERVAL_H
#define CTXSTAT_RUN_INTERVAL_H

#include <stdbool.h>
#include <stdint.h>
#include <ctxcount/ctxcount.h>

#include "output/display.h"
#include "stats/counts.h"

/*
 * perf 6.1 prints its "#  time  counts unit events" header before every
 * this many intervals (seen: before the 1st, 26th, 51st).
 */
#define CXS_INTERVAL_HEADER_EVERY	25

struct cxs_interval {
	struct cxs_output_opts o;
	/* events, target, ...: as for the whole run; counters: delta */
	struct cxs_series s;
	unsigned int ms;
	int printed;		/* intervals printed so far */
	int count;		/* --interval-count: at most this many, 0 all */
	double t0_ns;		/* CLOCK_MONOTONIC of the start: the runner's */
	struct ctxc_reply prev;	/* the last READ, in counter order */
	struct cxs_counter_values delta[CTXCOUNT_MAX_EVENTS];
	struct cxs_sample wall;	/* perf's metrics divide by the nominal interval */
	/* -A: the last READ's CPUs, and this interval's per-CPU deltas */
	struct ctxc_cpus prev_cpus;
	int *cpu_ids;
	struct cxs_counter_values *cpu_delta;	/* prev_cpus.cap * MAX_EVENTS */
};

/*
 * Where the loop waits and reads: provided by the runner, which owns the
 * workload, the target and the session.
 */
struct cxs_interval_source {
	/*
	 * Wait until @deadline_ns (CLOCK_MONOTONIC) or the end of the
	 * measurement; true at the end.
	 */
	bool (*wait)(void *arg, double deadline_ns);
	/*
	 * READ the session now, the reply in counter order: 0 or -errno.
	 * With -A @cpus is set to its per-CPU rows (counter order), else NULL.
	 */
	int (*read)(void *arg, struct ctxc_reply *rp,
		    const struct ctxc_cpus **cpus);
	void *arg;
};

/*
 * Start: @o says how to print (the interval fields are set here), @s what
 * the run counts (its counters, runs and elapsed time are replaced per
 * interval), @ms the interval. With @cpu_rows (not 0: -A, room for that
 * many CPUs) every interval prints per CPU; with @count (not 0) the loop
 * stops after that many. 0, or -ENOMEM.
 */
int cxs_interval_init(struct cxs_interval *iv, const struct cxs_output_opts *o,
		      const struct cxs_series *s, unsigned int ms,
		      int cpu_rows, int count);

/* --interval-count's intervals are all printed: nothing more. */
static inline bool cxs_interval_done(const struct cxs_interval *iv)
{
	return iv->count && iv->printed >= iv->count;
}
void cxs_interval_free(struct cxs_interval *iv);

/*
 * Print the interval that ends with READ @rp (in counter order, the
 * counters that have no session event present with their error) at
 * @now_ns: the differences from the previous READ; with -A those of each
 * CPU of @cpus (a CPU the previous READ did not have starts from 0).
 * 0, or -ENOMEM.
 */
int cxs_interval_print(struct cxs_interval *iv, const struct ctxc_reply *rp,
		       const struct ctxc_cpus *cpus, double now_ns);

/*
 * Print every interval until the measurement ends (the last, partial one
 * is the caller's, from its READ after STOP). Deadlines are t0 + k * ms,
 * so that the intervals do not drift; one that passed while ctxstat was
 * not scheduled is not made up. 0, or the -errno of a READ or print.
 */
int cxs_interval_loop(struct cxs_interval *iv,
		      const struct cxs_interval_source *src);

#endif
