// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread rows of a task session (threads.h).
 *
 * A row's full count is perf's value of its root events (perfvals.c); its
 * measured buckets and excursions come from the CPUs' sums: at each
 * settle of an interval, what the CPU's sums grew by since the last one
 * goes to the interval's row. The CPU's sums only grow while an interval
 * is open and every close settles, so each delta is the current row's.
 * Children of one root may run on several CPUs at once: rows are added
 * to atomically.
 *
 * ctx_threads_flush() runs where account.c does (interrupts disabled,
 * the CPU claimed, possibly in NMI): this file is built without ftrace
 * instrumentation.
 */
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "threads.h"

static unsigned int max_threads = 4096;
module_param(max_threads, uint, 0644);
MODULE_PARM_DESC(max_threads,
		 "Most threads an ALL_THREADS session may count (default 4096)");

/**
 * ctx_threads_max() - the most threads an ALL_THREADS session may have
 *
 * Return: the module parameter max_threads.
 */
unsigned int ctx_threads_max(void)
{
	return READ_ONCE(max_threads);
}

/**
 * ctx_threads_alloc() - room for a session's thread rows
 * @a: the session's accounting (initialised), whose events the tags name
 * @max_rows: the most root threads the session may get
 *
 * Charged to the caller's memory cgroup, as the session is.
 *
 * Context: process context, may sleep.
 * Return: the rows, or NULL without memory.
 */
struct ctx_threads *ctx_threads_alloc(struct ctx_acct *a,
				      unsigned int max_rows)
{
	struct ctx_counter_tag *tag;
	struct ctx_threads *th;
	unsigned int r, i;

	th = kzalloc(sizeof(*th), GFP_KERNEL_ACCOUNT);
	if (!th)
		return NULL;
	th->max_rows = max_rows;
	th->nr_events = a->nr_events;
	th->tag = kvcalloc((size_t)max_rows * a->nr_events, sizeof(*th->tag),
			   GFP_KERNEL_ACCOUNT);
	th->row = kvcalloc(max_rows, sizeof(*th->row), GFP_KERNEL_ACCOUNT);
	th->mark = alloc_percpu_gfp(struct ctx_thr_mark, GFP_KERNEL_ACCOUNT);
	if (!th->tag || !th->row || !th->mark) {
		ctx_threads_free(th);
		return NULL;
	}
	for (r = 0; r < max_rows; r++) {
		for (i = 0; i < a->nr_events; i++) {
			tag = &th->tag[(size_t)r * a->nr_events + i];
			tag->acct = a;
			tag->index = i;
			tag->row = r;
		}
	}
	return th;
}

/**
 * ctx_threads_row_tags() - name row @row after @t, for @t's root events
 * @th: the session's rows
 * @row: the row @t's root events will be (perfvals.c's thread index)
 * @t: the thread
 *
 * Context: process context, the session not yet published.
 * Return: the tags @t's root events carry, one per event.
 */
struct ctx_counter_tag *ctx_threads_row_tags(struct ctx_threads *th,
					     unsigned int row,
					     struct task_struct *t)
{
	struct ctx_thr_row *r = &th->row[row];

	r->tid = task_pid_vnr(t);
	r->pid = task_tgid_vnr(t);
	get_task_comm(r->comm, t);
	return &th->tag[(size_t)row * th->nr_events];
}

/**
 * ctx_threads_flush() - what @ac counted since its last flush, to its row
 * @th: the session's rows
 * @ac: this CPU's accounting of the session, just settled
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_threads_flush(struct ctx_threads *th, const struct ctx_acct_cpu *ac)
{
	struct ctx_thr_mark *m = this_cpu_ptr(th->mark);
	int slot = ctx_calib_cpu_type(smp_processor_id()) + 1;
	struct ctx_thr_row *r;
	unsigned int b, i, k;
	u32 drv;
	u64 d;

	if (WARN_ON_ONCE(ac->thr_row >= th->max_rows))
		return;
	r = &th->row[ac->thr_row];
	for (b = 0; b < CTX_THR_CTXS; b++) {
		for (i = 0; i < ac->nr_events; i++) {
			d = ac->sum.buckets[CTX_THR_FIRST + b][i] -
			    m->buckets[b][i];
			if (!d)
				continue;
			atomic64_add(d, &r->buckets[b][i]);
			m->buckets[b][i] += d;
		}
	}
	for (k = 0; k < CTX_NR_EXC_ALL; k++) {
		d = ac->sum.excursions[k] - m->excursions[k];
		if (d) {
			atomic64_add(d, &r->excursions[slot][k]);
			m->excursions[k] += d;
		}
		d = ac->sum.exc_reads[k] - m->exc_reads[k];
		if (d) {
			atomic64_add(d, &r->exc_reads[slot][k]);
			m->exc_reads[k] += d;
		}
	}
	/* As READ's per-CPU copies: direct only once checked so. */
	drv = ~(u32)(ac->checked & ac->direct) & (BIT(ac->nr_events) - 1);
	if (drv & ~(u32)atomic_read(&r->driver_read))
		atomic_or(drv, &r->driver_read);
}

/**
 * ctx_threads_free() - free what ctx_threads_alloc() made
 * @th: the rows, or NULL; no event may carry their tags any more (an RCU
 *	grace period after the session's events were released)
 */
void ctx_threads_free(struct ctx_threads *th)
{
	if (!th)
		return;
	free_percpu(th->mark);
	kvfree(th->row);
	kvfree(th->tag);
	kfree(th);
}
