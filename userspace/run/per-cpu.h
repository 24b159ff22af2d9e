/* SPDX-License-Identifier: GPL-2.0 */
/*
 * per-cpu: what -C and -A add to a run: the CPU list (checked against the
 * online CPUs), room for a READ's per-CPU rows, and the run's values per
 * CPU once it was read.
 */
#ifndef CTXSTAT_RUN_PER_CPU_H
#define CTXSTAT_RUN_PER_CPU_H

#include <ctxcount/ctxcount.h>

#include "options/args.h"
#include "run/irq-sources.h"
#include "stats/counts.h"
#include "util/cpulist.h"

struct cxs_percpu {
	struct cxs_cpulist *cpu_list;	/* -C, in increasing order; NULL: all */
	struct ctxc_cpus cpus;	/* -A: a READ's rows, counter order */
	/* -A: the run's values, cpu_ids[k]'s at cpu_counters[k * MAX_EVENTS] */
	int nr_cpus;
	int *cpu_ids;
	struct cxs_counter_values *cpu_counters;
};

/*
 * -C's list (its syntax was checked with the arguments), each CPU
 * online; room for -A's rows. 0, or -1 after saying why.
 */
int cxs_percpu_setup(struct cxs_percpu *pc, const struct cxs_args *a);

/*
 * -A without a session (no event perf supports here): in @pc->cpus a
 * row per CPU perf would have opened its events on, -C's or the online
 * ones, so that every event is <not supported> on each, as perf prints
 * them; the rows' events are the caller's to fill. 0, or -errno after
 * saying why.
 */
int cxs_percpu_rows_unsupported(struct cxs_percpu *pc);

/*
 * Keep the last READ's rows (@pc->cpus, counter order) as the run's
 * values per CPU; a counter with an error in @counters has it on every
 * CPU; with @src (--irq-sources) each CPU's hardirq sources too.
 * Nothing without rows. 0 or -ENOMEM.
 */
int cxs_percpu_keep(struct cxs_percpu *pc, int nr_counters,
		    const struct cxs_counter_values *counters,
		    const struct cxs_sources *src);

void cxs_percpu_free(struct cxs_percpu *pc);

/*
 * One CPU's values of a counter from the READ's @v into @c; @error, the
 * counter's, stays on every row. 0 or -ENOMEM.
 */
int cxs_row_keep(struct cxs_counter_values *c, const struct ctxc_event_val *v,
		 int error, const struct cxs_sources *src);

#endif
