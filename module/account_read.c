// SPDX-License-Identifier: GPL-2.0
/*
 * READ: what a session's hooks counted, per CPU and summed, from a copy
 * of each CPU's sums taken while nothing can change them (account.c keeps
 * the sums), with the estimate of what interrupts left on the task's side
 * applied per CPU, so the CPUs' rows add up to the totals exactly. The
 * full counts are perf's (perfvals.c); ctx_totals_finish() derives the
 * task bucket from them. A per-thread row's READ is here too, not in
 * threads.c: it applies the estimate, and threads.c is below the estimate
 * (the hooks flush to the rows at every settle; scripts/layers).
 *
 * Built without ftrace instrumentation: ctx_read_cpu() runs in an IPI
 * with the CPU claimed, as the hooks do.
 */
#include <linux/atomic.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/smp.h>
#include <linux/string.h>

#include "account.h"
#include "account_ctl.h"
#include "account_read.h"
#include "calib_est.h"
#include "cpustate.h"
#include "sources.h"
#include "threads.h"

static void ctx_snap_take(struct ctx_snap *sn, const struct ctx_acct_cpu *ac)
{
	unsigned int i;

	memcpy(&sn->sum, &ac->sum, sizeof(sn->sum));
	if (ac->src)
		ctx_src_rows_copy(ac->src, sn->src_rows, ac->src_rows);
	sn->direct = 0;
	for (i = 0; i < ac->nr_events; i++)
		if ((ac->checked & BIT(i)) && (ac->direct & BIT(i)))
			sn->direct |= BIT(i);
}

/* @src_sum: NULL, or the sum's source rows (with @a's sources). */
static void ctx_totals_add(const struct ctx_acct *a, struct ctx_totals *sum,
			   u64 *src_sum, const struct ctx_snap *sn)
{
	unsigned int nr_events = a->nr_events;
	bool took = false;
	unsigned int i, b;

	for (i = 0; i < CTX_NR_EXC_ALL; i++) {
		sum->excursions[i % CTX_NR_EXC] += sn->sum.excursions[i];
		took |= sn->sum.excursions[i];
	}
	for (i = 0; i < nr_events; i++) {
		/* The task bucket is what the others leave of perf's count. */
		for (b = CTXCOUNT_BUCKET_TASK + 1; b < CTX_NR_CONTEXTS; b++)
			sum->buckets[i][b] += sn->sum.buckets[b][i];
		sum->buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST] += sn->est[i];
		sum->est_error[i] += sn->est_error[i];
		if (took || !sum->est_state[i])
			sum->est_state[i] = ctx_est_state_merge(sum->est_state[i],
								sn->est_state[i]);
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

/* Per event, what @cpu's excursions are estimated to have left in :t. */
static void ctx_estimate(struct ctx_acct *a, int cpu, struct ctx_snap *sn)
{
	unsigned int i;

	for (i = 0; i < a->nr_events; i++)
		ctx_calib_estimate(cpu, &a->spec[i], &sn->sum,
				   sn->direct & BIT(i), a->estimate,
				   &sn->est[i], &sn->est_error[i],
				   &sn->est_state[i]);
}

/*
 * A row for @cpu if the session counts there and it is online or counted
 * something: an offline CPU keeps what it counted before it went down.
 */
static void ctx_add_row(struct ctx_acct *a, int cpu, const struct ctx_snap *sn,
			struct ctx_cpu_totals *rows, unsigned int *nr_rows)
{
	struct ctx_cpu_totals *row;
	bool counted = false;
	unsigned int i;

	if (!rows || !cpumask_test_cpu(cpu, a->cpus))
		return;
	for (i = 0; i < CTX_NR_EXC_ALL; i++)
		counted |= sn->sum.excursions[i];
	if (!cpu_online(cpu) && !counted)
		return;
	row = &rows[(*nr_rows)++];
	row->cpu = cpu;
	memset(&row->tot, 0, sizeof(row->tot));
	ctx_totals_add(a, &row->tot, row->src, sn);
}

/**
 * ctx_account_read() - add up what @a's hooks counted over all CPUs
 * @a: the accounting state
 * @sum: zeroed totals to add to (all but the full counts and times)
 * @src_sum: with sources, zeroed rows (sources.h) to add to, else NULL
 * @rows: NULL, or room for a row per possible CPU: filled with the
 *	totals of each CPU @a counts on that is online or counted something,
 *	in CPU order; @sum is their sum
 * @nr_rows: set to the number of @rows filled
 *
 * For a started session, each CPU with an interval open first attributes
 * what is pending on it, in an IPI that copies its sums; the other CPUs'
 * are copied from here, and get an IPI only if an interval opened
 * meanwhile.
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
		ctx_estimate(a, cpu, sn);
		ctx_totals_add(a, sum, src_sum, sn);
		ctx_add_row(a, cpu, sn, rows, nr_rows);
	}
	cpus_read_unlock();
	free_cpumask_var(ipi);
	return 0;
}

/**
 * ctx_totals_finish() - the task bucket of totals whose full counts are in
 * @t: totals with @full and every bucket but the task's
 * @nr_events: the events
 *
 * The task bucket is what the other buckets and the estimate leave of
 * perf's count. The estimate never takes more than is there, so the
 * buckets add up to @full; measured buckets above @full (a READ that
 * copied the sums a moment after perf's value) leave the task bucket 0.
 */
void ctx_totals_finish(struct ctx_totals *t, unsigned int nr_events)
{
	u64 *b, rest, other;
	unsigned int i, k;

	for (i = 0; i < nr_events; i++) {
		b = t->buckets[i];
		other = 0;
		for (k = CTXCOUNT_BUCKET_TASK + 1; k < __CTXCOUNT_BUCKET_LAST; k++)
			if (k != CTXCOUNT_BUCKET_IRQ_ENTRY_EST)
				other += b[k];
		rest = t->full[i] > other ? t->full[i] - other : 0;
		b[CTXCOUNT_BUCKET_IRQ_ENTRY_EST] =
			min(b[CTXCOUNT_BUCKET_IRQ_ENTRY_EST], rest);
		b[CTXCOUNT_BUCKET_TASK] = rest - b[CTXCOUNT_BUCKET_IRQ_ENTRY_EST];
	}
}

/* Row @r's excursions and the estimate they make, slot by slot. */
static void ctx_threads_estimate(const struct ctx_acct *a,
				 const struct ctx_thr_row *r,
				 struct ctx_totals *t)
{
	u32 drv = atomic_read(&r->driver_read), state;
	u64 exc[CTX_NR_EXC_ALL], reads[CTX_NR_EXC_ALL];
	unsigned int sl, k, i;
	u64 est, err;
	bool took;

	for (sl = 0; sl < CTX_THR_SLOTS; sl++) {
		took = false;
		for (k = 0; k < CTX_NR_EXC_ALL; k++) {
			exc[k] = atomic64_read(&r->excursions[sl][k]);
			reads[k] = atomic64_read(&r->exc_reads[sl][k]);
			t->excursions[k % CTX_NR_EXC] += exc[k];
			took |= exc[k];
		}
		for (i = 0; i < a->nr_events; i++) {
			ctx_calib_estimate_type((int)sl - 1, &a->spec[i], exc,
						reads, !(drv & BIT(i)),
						a->estimate, &est, &err,
						&state);
			t->buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST] += est;
			t->est_error[i] += err;
			if (took || !t->est_state[i])
				t->est_state[i] =
					ctx_est_state_merge(t->est_state[i],
							    state);
		}
	}
}

/**
 * ctx_threads_read() - row @row's measured buckets, excursions, estimate
 * @a: the session's accounting, read (ctx_account_read(): every open
 *	interval was settled, so the rows have all the CPUs counted)
 * @row: the row
 * @out: its identity and totals: all but the full counts, times and
 *	task bucket (ctx_totals_finish()) are added to @out->tot
 *
 * Context: process context, session mutex held.
 */
void ctx_threads_read(const struct ctx_acct *a, unsigned int row,
		      struct ctx_thread_totals *out)
{
	const struct ctx_thr_row *r = &a->thr->row[row];
	unsigned int b, i;

	out->tid = r->tid;
	out->pid = r->pid;
	memcpy(out->comm, r->comm, sizeof(out->comm));
	for (b = 0; b < CTX_THR_CTXS; b++)
		for (i = 0; i < a->nr_events; i++)
			out->tot.buckets[i][CTX_THR_FIRST + b] +=
				atomic64_read(&r->buckets[b][i]);
	ctx_threads_estimate(a, r, &out->tot);
}
