// SPDX-License-Identifier: GPL-2.0
/*
 * READ: a session's totals, per CPU and summed, from a copy of each CPU's
 * sums taken while nothing can change them (account.c keeps the sums).
 * The estimate of what interrupts left on the task's side is applied per
 * CPU here, so the CPUs' rows add up to the totals exactly.
 *
 * Built without ftrace instrumentation: ctx_read_cpu() runs in an IPI
 * with the CPU claimed, as the hooks do.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "account.h"
#include "cpustate.h"
#include "sources.h"

static void ctx_snap_take(struct ctx_snap *sn, const struct ctx_acct_cpu *ac)
{
	unsigned int i;

	memcpy(&sn->sum, &ac->sum, sizeof(sn->sum));
	if (ac->src)
		ctx_src_rows_copy(ac->src, sn->src_rows, ac->src_rows);
	sn->direct = 0;
	for (i = 0; i < ac->nr_events; i++)
		if (ac->slot[i].event && (ac->direct & BIT(i)))
			sn->direct |= BIT(i);
}

/* @src_sum: NULL, or the sum's source rows (with @a's sources). */
static void ctx_totals_add(const struct ctx_acct *a, struct ctx_totals *sum,
			   u64 *src_sum, const struct ctx_snap *sn)
{
	unsigned int nr_events = a->nr_events;
	unsigned int i, b;

	sum->enabled += sn->sum.enabled;
	for (i = 0; i < CTX_NR_EXC; i++)
		sum->excursions[i] += sn->sum.excursions[i];
	for (i = 0; i < nr_events; i++) {
		sum->full[i] += sn->sum.full[i];
		sum->running[i] += sn->sum.running[i];
		for (b = 0; b < CTX_NR_CONTEXTS; b++)
			sum->buckets[i][b] += sn->sum.buckets[b][i];
		sum->buckets[i][CTXCOUNT_BUCKET_TASK] -= sn->est[i];
		sum->buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST] += sn->est[i];
		if (sn->direct & BIT(i))
			sum->direct_cpus[i]++;
	}
	if (a->src)
		ctx_src_sum(a->src, src_sum, sn->src_rows, sum);
}

/*
 * IPI: attribute this CPU's pending deltas, then copy its sums while
 * nothing can change them. Each CPU writes its own copy: no lock shared
 * between CPUs with interrupts off.
 */
static void ctx_read_cpu(void *info)
{
	struct ctx_acct *a = info;
	struct ctx_acct_cpu *ac = this_cpu_ptr(a->cpu);

	if (!ctx_cpu_claim())
		return;
	if (ac->active) {
		ctx_attribute(ac, ctx_cpu_context());
		ctx_account_settle(ac);
	}
	ctx_snap_take(this_cpu_ptr(a->snap), ac);
	ctx_cpu_release();
}

/*
 * Copy @cpu's state without an IPI if it has no interval open and none
 * opened meanwhile (@seq even and unchanged); else say it needs one.
 */
static bool ctx_read_idle_cpu(struct ctx_acct *a, int cpu, struct ctx_snap *sn)
{
	const struct ctx_acct_cpu *ac = per_cpu_ptr(a->cpu, cpu);
	unsigned int seq = READ_ONCE(ac->seq);

	/* @seq before the state; pairs with ctx_seq_end() */
	smp_rmb();
	if (seq & 1)
		return false;
	ctx_snap_take(sn, ac);
	/* The state before @seq again; pairs with ctx_seq_begin() */
	smp_rmb();
	return READ_ONCE(ac->seq) == seq;
}

/*
 * Per CPU, what its excursions are estimated to have left on the task's
 * side of its task bucket, never more than is there: each CPU's buckets
 * still add up to its full count, and the totals are the CPUs' sums.
 */
static void ctx_estimate(struct ctx_acct *a, struct ctx_snap *sn)
{
	unsigned int i, k;
	u64 est;

	for (i = 0; i < a->nr_events; i++) {
		est = 0;
		if (a->estimate)
			for (k = 0; k < CTX_NR_EXC; k++)
				est += sn->sum.excursions[k] * a->residual[k][i];
		sn->est[i] = min(est, sn->sum.buckets[CTXCOUNT_BUCKET_TASK][i]);
	}
}

/*
 * A row for @cpu if the session counts there and it is online or counted
 * something: an offline CPU keeps what it counted before it went down.
 */
static void ctx_add_row(struct ctx_acct *a, int cpu, const struct ctx_snap *sn,
			struct ctx_cpu_totals *rows, unsigned int *nr_rows)
{
	struct ctx_cpu_totals *row;

	if (!rows || !cpumask_test_cpu(cpu, a->cpus) ||
	    (!cpu_online(cpu) && !sn->sum.enabled))
		return;
	row = &rows[(*nr_rows)++];
	row->cpu = cpu;
	memset(&row->tot, 0, sizeof(row->tot));
	ctx_totals_add(a, &row->tot, row->src, sn);
}

/**
 * ctx_account_read() - add up @a's totals over all CPUs
 * @a: the accounting state
 * @sum: zeroed totals to add to
 * @src_sum: with sources, zeroed rows (sources.h) to add to, else NULL
 * @rows: NULL, or room for a row per possible CPU: filled with the
 *	totals of each CPU @a counts on that is online or counted something,
 *	in CPU order; @sum is their sum
 * @nr_rows: set to the number of @rows filled
 *
 * For a started session, each CPU with an interval open first attributes
 * what is pending on it (a task running without interrupts would
 * otherwise show nothing), in an IPI that copies its sums; the other CPUs'
 * are copied from here, and get an IPI only if an interval opened
 * meanwhile. CPUs that are offline keep what they counted before they went
 * down.
 *
 * Context: process context, session mutex held.
 * Return: 0 or -ENOMEM.
 */
int ctx_account_read(struct ctx_acct *a, struct ctx_totals *sum,
		     u64 *src_sum, struct ctx_cpu_totals *rows,
		     unsigned int *nr_rows)
{
	/* An armed session may start meanwhile: read it as a started one. */
	bool running = ctx_account_running(a);
	struct ctx_snap *sn;
	cpumask_var_t ipi;
	int cpu;

	if (!zalloc_cpumask_var(&ipi, GFP_KERNEL))
		return -ENOMEM;
	*nr_rows = 0;
	cpus_read_lock();
	for_each_possible_cpu(cpu) {
		sn = per_cpu_ptr(a->snap, cpu);
		/* Stopped, or offline: nothing changes there. */
		if (!running || !cpu_online(cpu))
			ctx_snap_take(sn, per_cpu_ptr(a->cpu, cpu));
		else if (!ctx_read_idle_cpu(a, cpu, sn))
			cpumask_set_cpu(cpu, ipi);
	}
	on_each_cpu_mask(ipi, ctx_read_cpu, a, 1);
	for_each_possible_cpu(cpu) {
		sn = per_cpu_ptr(a->snap, cpu);
		ctx_estimate(a, sn);
		ctx_totals_add(a, sum, src_sum, sn);
		ctx_add_row(a, cpu, sn, rows, nr_rows);
	}
	cpus_read_unlock();
	free_cpumask_var(ipi);
	return 0;
}
