/* SPDX-License-Identifier: GPL-2.0 */
/*
 * output: print the counts in perf stat's layout (normal, CSV -x, JSON -j),
 * plus ctxstat's :t rows and --breakdown rows. Pure formatting: it reads
 * a finished report and writes to a FILE.
 */
#ifndef CTXSTAT_OUTPUT_H
#define CTXSTAT_OUTPUT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "events.h"
#include "stats.h"

/* One kernel counter over all runs; values already scaled per run. */
struct ctx_counter_result {
	int error;		/* non-zero: the kernel could not count it */
	bool counted;		/* time_running > 0 in the last run */
	struct ctx_stats full;
	struct ctx_stats bucket[CTXCOUNT_BUCKET_MAX + 1];
	struct ctx_stats enabled;	/* ns */
	struct ctx_stats running;	/* ns */
};

enum ctx_target_kind {
	CTX_TARGET_COMMAND,
	CTX_TARGET_PID,
	CTX_TARGET_SYSTEM_WIDE,
};

struct ctx_report {
	const struct ctx_event_list *events;
	const struct ctx_counter_result *counters;	/* events->nr_counters */
	int runs;
	bool null_run;
	struct ctx_stats walltime_ns;
	bool show_rusage;
	double user_s, sys_s;
	enum ctx_target_kind target;
	/* The module has no NMI bucket here (no CTXCOUNT_FEATURE_NMI). */
	bool no_nmi_bucket;
	char **cmd;		/* NULL-terminated argv, may be NULL */
	pid_t pid;
};

enum ctx_output_format {
	CTX_OUTPUT_STD,
	CTX_OUTPUT_CSV,
	CTX_OUTPUT_JSON,
};

struct ctx_output_opts {
	FILE *f;
	enum ctx_output_format format;
	const char *sep;	/* CSV separator */
	bool breakdown;
	int verbose;
};

void ctx_output_report(const struct ctx_output_opts *o,
		       const struct ctx_report *r);

/* "NET_RX" for CTXCOUNT_BUCKET_SOFTIRQ_NET_RX; the kernel's names. */
const char *ctx_softirq_name(int bucket);
/* "task", "hardirq", "softirq:NET_RX", "nmi" */
void ctx_bucket_label(int bucket, char *buf, size_t len);

#endif
