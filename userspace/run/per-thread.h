/* SPDX-License-Identifier: GPL-2.0 */
/*
 * per-thread: what --per-thread adds to a run: room for a READ's thread
 * rows, the run's values per thread once it was read, and the order in
 * which perf prints them.
 */
#ifndef CTXSTAT_RUN_PER_THREAD_H
#define CTXSTAT_RUN_PER_THREAD_H

#include <stdbool.h>
#include <sys/types.h>
#include <ctxcount/ctxcount.h>

#include "events/events.h"
#include "options/args.h"
#include "stats/counts.h"

/* One thread's values, as a series prints them. */
struct cxs_thread_row {
	pid_t tid;
	char comm[CTXCOUNT_THREAD_COMM_LEN];	/* at SESSION_NEW, as perf's */
	struct cxs_counter_values *counters;	/* by counter */
};

/* A run's thread rows, in the module's order. */
struct cxs_thread_rows {
	int nr;
	struct cxs_thread_row *row;
	/* -a: perf leaves out the rows of 0 (too many threads count none) */
	bool skip_zero;
};

struct cxs_perthread {
	struct ctxc_threads threads;	/* the READs' rows, counter order */
	struct cxs_thread_rows rows;	/* the run's values, once kept */
	int nr_counters;
	/*
	 * -a --per-thread -- cmd: the workload, forked (comm "ctxstat")
	 * before SESSION_NEW and exec'd after: its row is named after what
	 * it ran, as its comm became
	 */
	pid_t workload;
	char *const *workload_argv;
};

void cxs_perthread_init(struct cxs_perthread *pt, const struct cxs_args *a);

/*
 * Keep the READs' rows (@pt->threads, counter order) as the run's values
 * per thread, then let the rows go; a counter with an error in
 * @counters has it on every thread. One run only (options/check.c). 0 or
 * -ENOMEM.
 */
int cxs_perthread_keep(struct cxs_perthread *pt, int nr_counters,
		       const struct cxs_counter_values *counters);

void cxs_perthread_free(struct cxs_perthread *pt);

/* The comm exec gives @argv's program (the kernel's, at most 15 bytes). */
void cxs_exec_comm(char *comm, size_t size, char *const *argv);

/*
 * The rows displayed event @ev prints, into @order (room for @t->nr):
 * largest value first, as perf's sort_aggr_thread(), the lower tid first
 * among equals (perf's qsort leaves them in any order); rows of 0 left
 * out with @t->skip_zero. Returns how many, or -ENOMEM.
 */
int cxs_thread_order(const struct cxs_thread_rows *t, const struct cxs_event *ev,
		     int *order);

#endif
