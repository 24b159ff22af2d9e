/* SPDX-License-Identifier: GPL-2.0 */
/*
 * display: print the counts in perf stat's layout (normal, CSV -x, JSON -j),
 * plus ctxstat's :t rows and --breakdown rows. Pure formatting: it reads
 * a finished series and writes to a FILE.
 */
#ifndef CTXSTAT_OUTPUT_DISPLAY_H
#define CTXSTAT_OUTPUT_DISPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "events/events.h"
#include "options/args.h"
#include "run/irq-sources.h"
#include "run/per-thread.h"
#include "stats/counts.h"

enum cxs_target_kind {
	CXS_TARGET_COMMAND,
	CXS_TARGET_PID,
	CXS_TARGET_SYSTEM_WIDE,
};

/* A series of runs of one target and what they counted. */
struct cxs_series {
	const struct cxs_event_list *events;
	const struct cxs_counter_values *counters;	/* events->nr_counters */
	int runs;
	bool null_run;
	const struct cxs_sample *elapsed_ns;	/* one per run */
	bool show_rusage;
	double user_s, sys_s;
	enum cxs_target_kind target;
	/* The module has no NMI bucket here (no CTXCOUNT_FEATURE_NMI). */
	bool no_nmi_bucket;
	char **cmd;		/* NULL-terminated argv, may be NULL */
	pid_t pid;
	const char *pid_list;	/* -p as given: "1,2" */
	/*
	 * -A: each event's rows for CPU cpu_ids[k] (k < nr_cpus) instead of
	 * the aggregate, from cpu_counters[k * CTXCOUNT_MAX_EVENTS + counter]
	 */
	int nr_cpus;
	const int *cpu_ids;
	/*
	 * --per-core/die/socket/node/cluster/cache: the CPUs' rows summed
	 * per core, die, socket, node, cluster or cache instance
	 * (output/aggr.h); CXS_AGGR_NONE: a row per CPU (-A)
	 */
	enum cxs_aggr aggr;
	int cache_level;	/* --per-cache's (0: each CPU's highest) */
	/* -C without -a: the header names the list, as perf's */
	const char *cpu_list;
	const struct cxs_counter_values *cpu_counters;
	/* --irq-sources: the rows of counters' src samples, else NULL */
	const struct cxs_sources *sources;
	/* --per-thread: each event's rows for these threads, else NULL */
	const struct cxs_thread_rows *threads;
};

enum cxs_output_format {
	CXS_OUTPUT_STD,
	CXS_OUTPUT_CSV,
	CXS_OUTPUT_JSON,
};

struct cxs_output_opts {
	FILE *f;
	enum cxs_output_format format;
	const char *sep;	/* CSV separator */
	bool breakdown;
	int verbose;
	/*
	 * -I: @r is one interval: no header or footer, every row begins with
	 * the time since the start (perf's time column, or "interval" in
	 * JSON); @interval_header prints perf's "#  time  counts unit events"
	 * line first (standard format only).
	 */
	bool interval;
	uint64_t interval_ns;
	bool interval_header;
	/* --summary after the intervals: CSV rows begin with "summary". */
	bool summary;
	/* --no-csv-summary: CSV --summary rows without that first field */
	bool no_csv_summary;
	/* --no-big-num: no thousands grouped (perf's -B is the default) */
	bool no_big_num;
	/* --quiet: print nothing */
	bool quiet;
	/* Standard rows without trailing blanks (a terminal: no wrapping). */
	bool trim;
	enum cxs_perf_dialect dialect;
};

void cxs_output_series(const struct cxs_output_opts *o,
		       const struct cxs_series *r);

/* "NET_RX" for CTXCOUNT_BUCKET_SOFTIRQ_NET_RX; the kernel's names. */
const char *cxs_softirq_name(int bucket);
/* "task", "hardirq", "softirq:NET_RX", "nmi" */
void cxs_bucket_label(int bucket, char *buf, size_t len);

#endif
