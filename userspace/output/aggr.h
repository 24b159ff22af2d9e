/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aggr: perf stat's --per-core, --per-die, --per-socket and --per-node:
 * a run's per-CPU values (-A's) summed into one row per core, die,
 * socket or NUMA node, each named by its ids and the number of CPUs in
 * it, in perf 6.1's order. The CPUs' ids come from sysfs as perf reads
 * them ($CTX_SYSFS_ROOT replaces /sys).
 */
#ifndef CTXSTAT_OUTPUT_AGGR_H
#define CTXSTAT_OUTPUT_AGGR_H

#include "options/args.h"
#include "stats/counts.h"

/* perf's aggr_cpu_id, the fields ctxstat has: -1 where sysfs has none. */
struct cxs_aggr_id {
	int socket, die, core, node;
};

/* CPU @cpu's ids: die 0 without die_id (as perf), node -1 without NUMA. */
void cxs_aggr_cpu_id(int cpu, struct cxs_aggr_id *id);

struct cxs_aggr_rows {
	int nr;
	struct cxs_aggr_id *id;		/* per row, only @mode's fields set */
	int *nr_cpus;			/* CPUs summed in each row */
	/* row k's counters at counters[k * CTXCOUNT_MAX_EVENTS] */
	struct cxs_counter_values *counters;
};

/*
 * The rows of @mode from the values of @nr_cpus CPUs (@cpu_ids[k]'s at
 * @cpu_counters[k * CTXCOUNT_MAX_EVENTS], @nr_counters of them). 0, or
 * -ENOMEM with @rows empty.
 */
int cxs_aggr_rows_build(struct cxs_aggr_rows *rows, enum cxs_aggr mode,
			int nr_cpus, const int *cpu_ids,
			const struct cxs_counter_values *cpu_counters,
			int nr_counters);
void cxs_aggr_rows_free(struct cxs_aggr_rows *rows);

#endif
