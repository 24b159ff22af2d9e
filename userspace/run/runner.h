/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runner: one measured run after another. Each run gets its own ctxcount
 * session: created for the workload (forked, held before exec) or the
 * -p/-a target, started, the workload released and reaped (or the target
 * waited for), stopped, read, deleted. What a run read is kept in the
 * runner's counts. Errors are printed here, as they happen.
 */
#ifndef CTXSTAT_RUN_RUNNER_H
#define CTXSTAT_RUN_RUNNER_H

#include <stdbool.h>
#include <sys/resource.h>
#include <ctxcount/ctxcount.h>

#include "events/events.h"
#include "options/args.h"
#include "run/interval.h"
#include "run/irq-sources.h"
#include "run/per-cpu.h"
#include "run/per-thread.h"
#include "stats/counts.h"
#include "stats/sample.h"

struct cxs_runner {
	const struct cxs_args *args;
	/*
	 * perf's fallback (events/proof.h) may rename events and change
	 * counters.
	 */
	struct cxs_event_list *events;
	struct ctxc_sock nl;
	/* The module has no NMI bucket here (no CTXCOUNT_FEATURE_NMI). */
	bool no_nmi_bucket;
	uint32_t features;	/* CTXCOUNT_FEATURE_*, 0 without STATS */
	struct cxs_counter_values counters[CTXCOUNT_MAX_EVENTS];
	/* The session's events: counter of each, in request order. */
	int req_counter[CTXCOUNT_MAX_EVENTS];
	int nr_req;
	struct cxs_sample elapsed_ns;	/* one per run */
	/*
	 * The run's measured time on CLOCK_MONOTONIC: from the start of
	 * counting to the end of the run (0 while it goes on), which the
	 * tool events report.
	 */
	double t0_ns, t1_ns;
	struct rusage rusage;	/* the workload's, last run */
	int status;		/* workload wait status of the last run */
	int runs_done;
	/*
	 * Runs whose command exited non-zero or was killed (never one cut
	 * short): failed[k] for run k kept, how many, the last one's exit code.
	 */
	bool *failed;
	int runs_failed;
	int fail_code;
	bool exec_failed;	/* the workload could not be executed */
	/*
	 * A run with a command during which SIGINT or SIGTERM came was cut
	 * short: kept only with keep_cut_short (set by the caller: a single
	 * run, whose counts perf prints), then cut_short says so.
	 */
	bool keep_cut_short;
	bool cut_short;
	/* -I: set by the caller, the run prints its intervals through it */
	struct cxs_interval *interval;
	/* -C's CPUs, -A's rows and values */
	struct cxs_percpu pc;
	/* --per-thread's rows and values */
	struct cxs_perthread pt;
	/* --irq-sources: the hardirq source rows of all runs */
	struct cxs_sources sources;
};

/*
 * A runner for the target and workload of @a counting @l; connects to the
 * module unless @a is a null run. NULL after printing why.
 */
struct cxs_runner *cxs_runner_new(const struct cxs_args *a,
				  struct cxs_event_list *l);
void cxs_runner_free(struct cxs_runner *r);

/*
 * One run: 0 (runs_done counts it), -EINTR when it was cut short and not
 * kept (nothing printed), or -errno after printing why.
 */
int cxs_runner_run(struct cxs_runner *r);

/*
 * A warm-up run (--warmup): the command run as a measured run runs it,
 * nothing counted or kept. A command that fails is said, not fatal
 * (@who: "ctxstat", "ctxstat compare (A)"). 0, or -EINTR, or -errno
 * after saying why it could not run.
 */
int cxs_runner_warmup(struct cxs_runner *r, int run, const char *who);

/* Forget the runs kept so far (-r 0 prints each and starts anew). */
void cxs_runner_clear(struct cxs_runner *r);

/*
 * Leave the failed runs out of every kept value (when others succeeded:
 * a command that fails every time still has its counts printed).
 */
void cxs_runner_drop_failed(struct cxs_runner *r);

/* The values of displayed event @i over the runs done. */
const struct cxs_sample *cxs_runner_values(const struct cxs_runner *r, int i);

/*
 * ctxstat's exit code after the runs, @err the failure that ended them
 * (0: none): 127 for a command that does not exist, 1 for a counting
 * failure, else the last failed run's (0 without a command or failure).
 */
int cxs_runner_exit_code(const struct cxs_runner *r, int err);

#endif
