/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-thread rows (CTXCOUNT_SESSION_F_PER_THREAD): what the hooks counted
 * outside task context while each of a task session's root threads (or a
 * child perf inherited from it) ran. A row is found through the tag its
 * root's events carry (perf copies the tag to every child), so a task's
 * interval knows its row when it opens; what the interval counted goes to
 * the row whenever it is settled (switch-out, exit, STOP, READ's IPI),
 * never per interrupt.
 */
#ifndef _CTXCOUNT_THREADS_H
#define _CTXCOUNT_THREADS_H

#include <linux/atomic.h>
#include <linux/ctxcount.h>
#include <linux/sched.h>
#include <linux/types.h>

#include "account.h"
#include "counters.h"
#include "cpustate.h"
#include "totals.h"

/* A row keeps the measured contexts: hardirq, NMI and the softirqs. */
#define CTX_THR_FIRST	CTXCOUNT_BUCKET_HARDIRQ
#define CTX_THR_CTXS	(CTX_NR_CONTEXTS - CTX_THR_FIRST)
/* Excursions per CPU type (and one slot for CPUs not seen at load). */
#define CTX_THR_SLOTS	(CTX_CALIB_CPU_TYPES + 1)

/**
 * struct ctx_thr_row - one thread's row
 * @tid: the thread, in the session creator's pid namespace
 * @pid: its process
 * @comm: its comm when the row was made
 * @driver_read: bit i: event i was read through its driver on some CPU
 *	where the row counted (its estimate is not applied)
 * @buckets: per measured context and event (CPUs add concurrently)
 * @excursions: per CPU type slot, excursions by kind and path
 * @exc_reads: the same excursions' other register reads
 */
struct ctx_thr_row {
	pid_t tid;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	atomic_t driver_read;
	atomic64_t buckets[CTX_THR_CTXS][CTXCOUNT_MAX_EVENTS];
	atomic64_t excursions[CTX_THR_SLOTS][CTX_NR_EXC_ALL];
	atomic64_t exc_reads[CTX_THR_SLOTS][CTX_NR_EXC_ALL];
};

/**
 * struct ctx_thr_mark - a CPU's sums when they last went to a row
 * @buckets: the measured contexts' sums
 * @excursions: the excursion counts
 * @exc_reads: their reads
 */
struct ctx_thr_mark {
	u64 buckets[CTX_THR_CTXS][CTXCOUNT_MAX_EVENTS];
	u64 excursions[CTX_NR_EXC_ALL];
	u64 exc_reads[CTX_NR_EXC_ALL];
};

/**
 * struct ctx_threads - a session's thread rows
 * @max_rows: room for so many rows (the session's root threads)
 * @nr_events: the session's events
 * @tag: [row][event], what row's root events carry
 * @row: the rows
 * @mark: per CPU, what of its sums the rows already have
 */
struct ctx_threads {
	unsigned int max_rows;
	unsigned int nr_events;
	struct ctx_counter_tag *tag;
	struct ctx_thr_row *row;
	struct ctx_thr_mark __percpu *mark;
};

/**
 * struct ctx_thread_totals - one thread row, for READ
 * @tid: see &struct ctx_thr_row
 * @pid: see &struct ctx_thr_row
 * @comm: see &struct ctx_thr_row
 * @tot: its totals (perf's value of its root events, and its buckets)
 */
struct ctx_thread_totals {
	pid_t tid;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	struct ctx_totals tot;
};

struct ctx_threads *ctx_threads_alloc(struct ctx_acct *a,
				      unsigned int max_rows);
struct ctx_counter_tag *ctx_threads_row_tags(struct ctx_threads *th,
					     unsigned int row,
					     struct task_struct *t);
void ctx_threads_flush(struct ctx_threads *th, const struct ctx_acct_cpu *ac);
void ctx_threads_free(struct ctx_threads *th);
unsigned int ctx_threads_max(void);

#endif /* _CTXCOUNT_THREADS_H */
