// SPDX-License-Identifier: GPL-2.0
/*
 * Probing (calib.c): count the current task on one CPU for @a, whose
 * counters are this CPU's own (no session has them), then put @a's sums
 * back as they were. The hooks are on meanwhile.
 *
 * Built without ftrace instrumentation, as account.c.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/slab.h>
#include <linux/smp.h>

#include "account.h"
#include "account_ctl.h"
#include "account_probe.h"
#include "cpustate.h"
#include "interval.h"
#include "sources.h"

/**
 * ctx_account_probe_begin() - prepare to probe @a on this CPU
 * @a: halted (or never started), not being probed, with counters here
 *
 * Context: process context, may sleep, migration disabled.
 * Return: 0, -ENODEV (@a has no counter on this CPU) or -ENOMEM.
 */
int ctx_account_probe_begin(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);

	/* No counters here: a probe would measure nothing, and be kept. */
	if (!cpumask_test_cpu(smp_processor_id(), a->cpus) || !ac->filled)
		return -ENODEV;
	/* With sources, their rows after the sums: the probe moves them too. */
	a->probe_save = kmalloc(sizeof(*a->probe_save) +
				(a->src ? ctx_src_rows_size(a->src) : 0),
				GFP_KERNEL_ACCOUNT);
	if (!a->probe_save)
		return -ENOMEM;
	a->probe_cpu = smp_processor_id();
	memcpy(a->probe_save, &ac->sum, sizeof(*a->probe_save));
	if (a->src)
		ctx_src_rows_copy(a->src, (u64 *)(a->probe_save + 1),
				  ac->src_rows);
	ctx_account_live_get();
	return 0;
}

/**
 * ctx_account_probe_open() - open an interval for the current task
 * @a: after ctx_account_probe_begin(), on its CPU
 *
 * Context: migration disabled (a context switch closes the interval).
 */
void ctx_account_probe_open(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);
	unsigned long flags;

	local_irq_save(flags);
	if (ctx_cpu_claim()) {
		if (atomic_long_read(&this_cpu_ptr(&ctx_cpu_state)->walk) &
		    CTX_WALK_RESET)
			ctx_account_resolve(this_cpu_ptr(&ctx_cpu_state));
		ac->task = true;
		ctx_interval_open(ac);
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}

/**
 * ctx_account_probe_sample() - the task bucket and excursion counts now
 * @a: with an interval open on this CPU
 * @task: filled with the task bucket, per event
 * @exc: filled with this CPU's excursion counts (CTX_NR_EXC_ALL) and
 *	then their reads (CTX_NR_EXC_ALL more)
 *
 * Context: migration disabled.
 */
void ctx_account_probe_sample(struct ctx_acct *a, u64 *task, u64 *exc)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);
	unsigned long flags;
	unsigned int i;

	local_irq_save(flags);
	if (ctx_cpu_claim()) {
		if (ac->active)
			ctx_attribute(ac, ctx_cpu_context());
		ctx_cpu_release();
	}
	for (i = 0; i < a->nr_events; i++)
		task[i] = ac->sum.buckets[CTXCOUNT_BUCKET_TASK][i];
	memcpy(exc, st->excursions, sizeof(st->excursions));
	memcpy(exc + CTX_NR_EXC_ALL, st->exc_reads, sizeof(st->exc_reads));
	local_irq_restore(flags);
}

/* On the probed CPU: close the interval if it is still open. */
static void ctx_probe_close_cpu(void *info)
{
	struct ctx_acct *a = info;
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);

	a->probe_was_open = false;
	if (!ctx_cpu_claim())
		return;
	a->probe_was_open = ac->active;
	if (ac->active)
		ctx_interval_close(ac, ctx_cpu_context());
	ctx_cpu_release();
}

/**
 * ctx_account_probe_close() - close the current task's interval
 * @a: after ctx_account_probe_open(), on its CPU
 *
 * Context: migration disabled.
 * Return: false if it had been closed already (by a context switch).
 */
bool ctx_account_probe_close(struct ctx_acct *a)
{
	unsigned long flags;

	local_irq_save(flags);
	ctx_probe_close_cpu(a);
	local_irq_restore(flags);
	return a->probe_was_open;
}

/**
 * ctx_account_probe_end() - put @a's sums on the probed CPU back
 * @a: after ctx_account_probe_begin(); from any CPU: the interval is
 *	closed here first if it is still open
 *
 * Context: process context, may sleep.
 */
void ctx_account_probe_end(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac = per_cpu_ptr(a->cpu, a->probe_cpu);

	cpus_read_lock();
	if (cpu_online(a->probe_cpu))
		smp_call_function_single(a->probe_cpu, ctx_probe_close_cpu,
					 a, 1);
	cpus_read_unlock();
	/* Closed: no hook touches @ac's sums now. */
	memcpy(&ac->sum, a->probe_save, sizeof(ac->sum));
	if (a->src)
		ctx_src_rows_copy(a->src, ac->src_rows,
				  (u64 *)(a->probe_save + 1));
	ac->task = false;
	ctx_account_live_put();
	kfree(a->probe_save);
	a->probe_save = NULL;
}
