/* SPDX-License-Identifier: GPL-2.0 */
/*
 * per-thread: what --per-thread adds to a run: the run's values per
 * thread, kept as a READ hands each thread's row over, and the order in
 * which perf prints them.
 */
#ifndef CTXSTAT_RUN_PER_THREAD_H
#define CTXSTAT_RUN_PER_THREAD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <ctxcount/ctxcount.h>

#include "events/events.h"
#include "options/args.h"
#include "stats/counts.h"
#include "stats/sample.h"

/* One thread's row: whose it is; its values are in its cxs_thread_rows. */
struct cxs_thread_row {
	pid_t tid;
	char comm[CTXCOUNT_THREAD_COMM_LEN];	/* at SESSION_NEW, as perf's */
	/* the counters the module gave this thread a value of, a bit each */
	uint16_t valued;
};

/*
 * A run's thread rows, in the module's order, and of each row's counters
 * what per-thread output prints and no more: perf's scaled full count,
 * the times enabled and running and the task bucket, in one array for all
 * rows; with --breakdown, the other buckets that are not 0, in another
 * (a thread's counters have a few of them: its timer's, RCU's). A machine
 * has thousands of threads: what a row costs is in
 * docs/design/per-thread.md.
 */
struct cxs_thread_rows {
	int nr;
	int cap;
	struct cxs_thread_row *row;
	double *val;		/* row k's from k * nr_counters counters on */
	int nr_counters;
	bool all_buckets;	/* --breakdown */
	/*
	 * --breakdown: per row and counter, which buckets after the task's
	 * are not 0 (bit b - 1 for bucket TASK + b); per row, where its
	 * values of them start in @other, counter by counter, bucket by
	 * bucket
	 */
	uint16_t *other_set;
	int *other_at;
	struct cxs_sample other;
	/* each counter's error, the session's: every row has it */
	int error[CTXCOUNT_MAX_EVENTS];
	/* -a: perf leaves out the rows of 0 (too many threads count none) */
	bool skip_zero;
};

struct cxs_perthread {
	struct cxs_thread_rows rows;	/* the READs' rows, as they came */
	/*
	 * -a --per-thread -- cmd: the workload, forked (comm "ctxstat")
	 * before SESSION_NEW and exec'd after: its row is named after what
	 * it ran, as its comm became
	 */
	pid_t workload;
	char *const *workload_argv;
};

/* Rows of @nr_counters counters each, for the options @a. */
void cxs_perthread_init(struct cxs_perthread *pt, const struct cxs_args *a,
			int nr_counters);

/*
 * Add a READ's row to the run's rows: its event e is counter
 * @counter_of[e] (of @nr_events); a counter without an event, or whose
 * event the row has not or has with an error, has no value in the row.
 * 0 or -ENOMEM.
 */
int cxs_perthread_add(struct cxs_perthread *pt, const struct ctxc_thread_val *row,
		      const int *counter_of, int nr_events);

/*
 * Add a row of values already counted (perf stat report's, from a
 * recording): counter i's last value of each sample in @c (room for
 * @t->nr_counters); a counter with an error or never enabled has none.
 * 0 or -ENOMEM.
 */
int cxs_thread_rows_add(struct cxs_thread_rows *t, pid_t tid, const char *comm,
			const struct cxs_counter_values *c);
void cxs_thread_rows_free(struct cxs_thread_rows *t);

/*
 * Keep the rows added as the run's values per thread: a counter with an
 * error in @counters has it on every thread, the workload's row is named
 * after its program. One run only (options/check.c).
 */
void cxs_perthread_keep(struct cxs_perthread *pt,
			const struct cxs_counter_values *counters);

/*
 * Row @k's counters as output reads a counter's values, into @c (room
 * for @t->nr_counters): samples that view the row's values, valid while
 * @t is (never add to them); a bucket not kept is empty.
 */
void cxs_thread_counters(const struct cxs_thread_rows *t, int k,
			 struct cxs_counter_values *c);

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
