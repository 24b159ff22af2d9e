/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aggr: perf stat's --per-core, --per-die, --per-socket, --per-node,
 * --per-cluster and --per-cache: a run's per-CPU values (-A's) summed
 * into one row per core, die, socket, NUMA node, cluster or cache
 * instance, each named by its ids and the number of CPUs in it, in
 * perf's order. The CPUs' ids come from sysfs as perf reads them
 * ($CTX_SYSFS_ROOT replaces /sys).
 */
#ifndef CTXSTAT_OUTPUT_AGGR_H
#define CTXSTAT_OUTPUT_AGGR_H

#include "options/args.h"
#include "stats/counts.h"

/*
 * perf's aggr_cpu_id, the fields ctxstat has: -1 where sysfs has none.
 * A cache instance is named by its level (cache_lvl) and its first CPU
 * (cache).
 */
struct cxs_aggr_id {
	int socket, die, cluster, cache_lvl, cache, core, node;
};

/*
 * CPU @cpu's topology ids: die and cluster 0 without die_id or
 * cluster_id (as perf), node -1 without NUMA; no cache (-1).
 */
void cxs_aggr_cpu_id(int cpu, struct cxs_aggr_id *id);

/*
 * CPU @cpu's cache instance of @level (0: the CPU's highest level), as
 * perf's --per-cache names it: the level and the first CPU sharing it.
 * A CPU without that level: @level and id -1; one whose caches perf
 * cannot read: -1 and -1.
 */
void cxs_aggr_cpu_cache(int cpu, int level, struct cxs_aggr_id *id);

struct cxs_aggr_rows {
	int nr;
	struct cxs_aggr_id *id;		/* per row, only @mode's fields set */
	int *nr_cpus;			/* CPUs summed in each row */
	/* row k's counters at counters[k * CTXCOUNT_MAX_EVENTS] */
	struct cxs_counter_values *counters;
};

/*
 * The rows of @mode (for CXS_AGGR_CACHE, of @cache_level's caches) from
 * the values of @nr_cpus CPUs (@cpu_ids[k]'s at
 * @cpu_counters[k * CTXCOUNT_MAX_EVENTS], @nr_counters of them). 0, or
 * -ENOMEM with @rows empty.
 */
int cxs_aggr_rows_build(struct cxs_aggr_rows *rows, enum cxs_aggr mode,
			int cache_level, int nr_cpus, const int *cpu_ids,
			const struct cxs_counter_values *cpu_counters,
			int nr_counters);
void cxs_aggr_rows_free(struct cxs_aggr_rows *rows);

#endif
