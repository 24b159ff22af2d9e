// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of counter deltas to contexts: read-and-subtract.
 *
 * Counters are never stopped. On a CPU running a task with a session's
 * events (or counted by a system-wide session), each context boundary
 * reads every counter of every interval open on that CPU (its context
 * state's list, cpustate.h) and adds the delta since the previous
 * boundary to the bucket of the context being left (account.h). What perf
 * counted in all is perf's own value (perfvals.c): the buckets of the
 * excursions are measured here, the task's is what they leave of it.
 *
 * A task session's interval is the current task's: it opens at the first
 * boundary after the task is switched in, when the hooks find its events
 * in its perf context (ctx_account_resolve()), and closes when it is
 * switched out. It cannot open at the switch: perf may swap the contexts
 * of two clone tasks after the sched_switch tracepoint. A system-wide
 * session's interval opens at the first boundary after START on each CPU
 * it counts and stays open until STOP.
 *
 * Everything here that touches struct ctx_acct_cpu runs on the CPU it
 * belongs to, with interrupts disabled and the CPU claimed against NMIs
 * (ctx_cpu_claim()). This file is built without ftrace instrumentation: it
 * runs inside ftrace callbacks, tracepoints and NMI handlers.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/moduleparam.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "account.h"
#include "attribute.h"
#include "compat.h"
#include "counters.h"
#include "cpustate.h"
#include "interval.h"
#include "sources.h"
#include "taskset.h"
#include "threads.h"

DEFINE_STATIC_KEY_FALSE(ctx_acct_live);

/*
 * For the test of ctx_account_boundary_nmi(): so many of the next NMI
 * reads come out 1,000,000 below the true value, as a read in
 * x86_pmu_stop()'s window does (which no emulator here can produce).
 */
static unsigned int fault_nmi_backwards;
module_param(fault_nmi_backwards, uint, 0600);
MODULE_PARM_DESC(fault_nmi_backwards,
		 "Testing: make this many NMI counter reads go backwards");

static u64 ctx_fault_backwards(u64 now)
{
	unsigned int n = READ_ONCE(fault_nmi_backwards);

	if (likely(!n))
		return now;
	WRITE_ONCE(fault_nmi_backwards, n - 1);
	return now - 1000000;
}

/* Started system-wide sessions (interval.h). */
LIST_HEAD(ctx_sw_running);

/**
 * ctx_account_boundary_nmi() - a boundary of an NMI
 * @st: this CPU's state
 * @bucket: the context the counts since the last boundary belong to
 *
 * An NMI can land in x86_pmu_stop() between PERF_HES_STOPPED and the
 * update of the count, and read a count below the last one: that read is
 * not taken (@last stays), so the next one, in or after the NMI, counts
 * from the true value. An unsigned delta of about 1.8e19 would otherwise
 * land in a bucket. Interrupts are excluded while the driver is in there:
 * only the NMI's reads need this.
 *
 * Context: NMI, CPU claimed.
 */
void ctx_account_boundary_nmi(struct ctx_cpu_state *st, unsigned int bucket)
{
	struct ctx_acct_slot *sl;
	struct ctx_acct_cpu *ac;
	unsigned int i;
	u64 now;

	hlist_for_each_entry(ac, &st->active, active_node) {
		for (i = 0; i < ac->nr_events; i++) {
			sl = &ac->slot[i];
			if (!sl->event)
				continue;
			now = ctx_counter_read(sl->event, ac->direct & BIT(i));
			now = ctx_fault_backwards(now);
			if ((s64)(now - sl->last) < 0)
				continue;
			ac->sum.buckets[bucket][i] += now - sl->last;
			sl->last = now;
		}
	}
}

/**
 * ctx_account_settle() - bring @ac's excursion counts up to now
 * @ac: this CPU's accounting of a session, with an interval open
 *
 * Must directly follow ctx_attribute() (the handler window's row is
 * moved out with what the last read put there).
 *
 * Context: interrupts disabled, CPU claimed.
 */
void ctx_account_settle(struct ctx_acct_cpu *ac)
{
	const struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	unsigned int i;

	ctx_src_settle(ac);
	for (i = 0; i < CTX_NR_EXC_ALL; i++) {
		ac->sum.excursions[i] += st->excursions[i] - ac->exc_in[i];
		ac->exc_in[i] = st->excursions[i];
		ac->sum.exc_reads[i] += st->exc_reads[i] - ac->reads_in[i];
		ac->reads_in[i] = st->exc_reads[i];
	}
	if (unlikely(ac->acct->thr))
		ctx_threads_flush(ac->acct->thr, ac);
}

/* Start counting from the counters' current values. */
void ctx_interval_restart(struct ctx_acct_cpu *ac)
{
	struct perf_event *event;
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		event = ac->slot[i].event;
		if (event)
			ac->slot[i].last = ctx_counter_read(event,
							    ac->direct & BIT(i));
	}
}

/*
 * The irq callbacks read every interval of this CPU inline unless one of
 * them is not @fast (cpustate.h): redone whenever the list or an
 * interval's counters change. START sets other bits of the word from
 * other CPUs: they are kept.
 */
static void ctx_walk_update(struct ctx_cpu_state *st)
{
	unsigned long base = (unsigned long)st->active.first;
	long old = atomic_long_read(&st->walk);
	unsigned int reads = 0;
	struct ctx_acct_cpu *ac;

	unsigned int i;

	hlist_for_each_entry(ac, &st->active, active_node) {
		if (!ac->fast)
			base |= CTX_WALK_SLOW;
		for (i = 0; i < ac->nr_events; i++)
			if ((ac->direct & BIT(i)) && ac->slot[i].event)
				reads++;
	}
	st->others = reads ? reads - 1 : 0;
	do {
		/* Only RESOLVE and RESET come from elsewhere. */
	} while (!atomic_long_try_cmpxchg(&st->walk, &old,
					  base | (old & (CTX_WALK_RESOLVE |
							 CTX_WALK_RESET))));
}

/* @ac's counters changed: who reads them, and how. */
void ctx_interval_fast_update(struct ctx_acct_cpu *ac)
{
	unsigned int i;

	ac->fast = true;
	for (i = 0; i < ac->nr_events; i++)
		if (!ac->slot[i].event || !(ac->direct & BIT(i)))
			ac->fast = false;
	if (ac->active)
		ctx_walk_update(this_cpu_ptr(&ctx_cpu_state));
}

/*
 * Which counters are read from their registers here: decided once per
 * event and CPU, the first time its counter is live at an open (a task's
 * event that is not scheduled in, or is multiplexed out, cannot be
 * checked).
 */
void ctx_interval_direct_decide(struct ctx_acct_cpu *ac)
{
	struct perf_event *event;
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		event = ac->slot[i].event;
		if (!event || (ac->checked & BIT(i)) || !ctx_counter_live(event))
			continue;
		ac->checked |= BIT(i);
		if (ctx_counter_direct_check(event))
			ac->direct |= BIT(i);
	}
}

void ctx_interval_open(struct ctx_acct_cpu *ac)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);

	/* Linked twice, this CPU's list would loop (ctx_account_cpu_dead()). */
	if (ac->active)
		return;
	ctx_seq_begin(ac);
	ctx_interval_direct_decide(ac);
	ctx_interval_fast_update(ac);
	/*
	 * A task resuming the softirq vector it was switched out in
	 * continues from its last reads: what its events counted since
	 * (perf's switch-out, its switch back in) was done in that vector.
	 */
	if (!ac->carry || ac->carry_task != current)
		ctx_interval_restart(ac);
	ac->carry = false;
	memcpy(ac->exc_in, st->excursions, sizeof(ac->exc_in));
	memcpy(ac->reads_in, st->exc_reads, sizeof(ac->reads_in));
	WRITE_ONCE(ac->active, true);
	hlist_add_head(&ac->active_node, &st->active);
	ctx_walk_update(st);
}

/*
 * A task interval's slots keep the task's events after the close; nothing
 * reads them before the next open replaces them.
 */
void ctx_interval_close(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute(ac, bucket);
	ctx_account_settle(ac);
	WRITE_ONCE(ac->active, false);
	hlist_del_init(&ac->active_node);
	ctx_walk_update(this_cpu_ptr(&ctx_cpu_state));
	ctx_seq_end(ac);
}

/*
 * STOP clears @started, then IPIs only the CPUs it sees with an interval
 * open: either it sees this one, or this sees @started clear and closes
 * at once.
 */
static void ctx_open_started(struct ctx_acct *a, struct ctx_acct_cpu *ac)
{
	ctx_interval_open(ac);
	/* The open before @started; pairs with ctx_account_halt()'s. */
	smp_mb();
	if (unlikely(!READ_ONCE(a->started)))
		ctx_interval_close(ac, CTXCOUNT_BUCKET_TASK);
}

/*
 * perf frees the events it inherited into a task a grace period after
 * perf_event_exit_task() tore them down (state EXIT): an open interval
 * must never hold one, or its boundaries read freed memory. Checked where
 * a task's intervals close, on kernels without KASAN too.
 */
static void ctx_check_not_torn_down(const struct ctx_acct_cpu *ac)
{
	const struct perf_event *ev;
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		ev = ac->slot[i].event;
		if (WARN_ONCE(ev && ev->parent &&
			      READ_ONCE(ev->state) <= PERF_EVENT_STATE_EXIT,
			      "ctxcount: an open interval holds event %u, which perf tore down\n",
			      i))
			return;
	}
}

/*
 * Close the current task's intervals; the last stretch goes to @bucket.
 * @carry: the task leaves inside that softirq vector (PREEMPT_RT) and
 * resumes it later: its intervals will continue from these reads.
 */
static void ctx_close_task(struct ctx_cpu_state *st, unsigned int bucket,
			   bool carry)
{
	struct ctx_acct_cpu *ac;
	struct hlist_node *tmp;

	hlist_for_each_entry_safe(ac, tmp, &st->active, active_node) {
		if (!ac->task)
			continue;
		ctx_check_not_torn_down(ac);
		ctx_interval_close(ac, bucket);
		ac->carry = carry;
		ac->carry_task = current;
	}
}

/**
 * ctx_account_switch() - @prev leaves this CPU, @next comes
 * @prev: the task switched out
 * @next: the task switched in
 * @bucket: the context @prev was in: task context, or on PREEMPT_RT the
 *	softirq vector it was preempted in
 *
 * Closes @prev's intervals (their last stretch goes to @bucket); the next
 * task's are found at its first boundary.
 *
 * Context: sched_switch tracepoint: interrupts disabled, CPU claimed.
 */
void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);
	bool in_softirq = bucket >= CTXCOUNT_BUCKET_SOFTIRQ_FIRST &&
			  bucket <= CTXCOUNT_BUCKET_SOFTIRQ_RCU;

	ctx_close_task(st, bucket, in_softirq);
	st->switched_in = next;
	/* The stack was emptied by the switch: a pending reset is done. */
	atomic_long_andnot(CTX_WALK_RESET, &st->walk);
	atomic_long_or(CTX_WALK_RESOLVE, &st->walk);
}

/*
 * A task event of a started session: stage its interval on this CPU.
 *
 * Only for a task the session monitors: perf_event_exit_task() takes the
 * task out of every set (ctx_session_perf_exit()) before it may sleep,
 * and the events perf inherited into the task are freed once it returns.
 * Whatever runs meanwhile (a switch out and back in, on any CPU), the
 * task's events are never staged again. The set is the session's, so
 * this holds for a task whatever perf context it holds (perf swaps clone
 * contexts between tasks at a switch).
 */
static void ctx_resolve_event(struct hlist_head *stage, struct perf_event *ev,
			      const struct ctx_counter_tag *tag)
{
	struct ctx_acct *a = tag->acct;
	struct ctx_acct_cpu *ac;

	if (!READ_ONCE(a->started) || tag->index >= a->nr_events)
		return;
	ac = this_cpu_ptr(a->cpu);
	if (ac->active)
		return;
	if (hlist_unhashed(&ac->stage_node)) {
		if (!a->tasks || !ctx_taskset_has(a->tasks, current))
			return;
		ac->found = 0;
		hlist_add_head(&ac->stage_node, stage);
	}
	/* An event of a thread that execs with the proof's rights only. */
	if (ac->found & BIT(tag->index))
		return;
	ac->found |= BIT(tag->index);
	ac->thr_row = tag->row;
	/* Its events changed (a context swap): it cannot continue. */
	if (ac->slot[tag->index].event != ev)
		ac->carry = false;
	ac->slot[tag->index].event = ev;
}

/*
 * A slot whose event the resolution did not find (a thread that got no
 * such event) must not keep the previous task's: open, restart and the
 * boundaries would read it, and it may be freed.
 */
static void ctx_resolve_forget_missing(struct ctx_acct_cpu *ac)
{
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		if ((ac->found & BIT(i)) || !ac->slot[i].event)
			continue;
		ac->slot[i].event = NULL;
		ac->carry = false;
	}
}

/* The current task's events: stage an interval per session found. */
static void ctx_resolve_task(struct hlist_head *stage)
{
	struct perf_event_context *pctx;
	struct ctx_counter_tag *tag;
	struct perf_event *ev;
	unsigned int n;

	for (n = 0; n < CTX_NR_TASK_PERF_CTX; n++) {
		pctx = ctx_task_perf_ctx(current, n);
		if (!pctx)
			continue;
		list_for_each_entry_rcu(ev, &pctx->event_list, event_entry) {
			tag = ctx_counter_tag_of(ev);
			if (tag)
				ctx_resolve_event(stage, ev, tag);
		}
	}
}

/**
 * ctx_account_resolve() - find what this CPU's boundaries are to read
 * @st: this CPU's state, with CTX_WALK_RESOLVE or CTX_WALK_RESET set
 *
 * Rebuilds the context stack if the hooks were off; opens the current
 * task's intervals (its events in its perf context(s): perf swaps clone
 * contexts after the sched_switch tracepoint, so not before now) and
 * those of system-wide sessions started since.
 *
 * Context: a hook, interrupts disabled, CPU claimed; in NMI only through
 * ctx_account_resolve_nmi().
 */
void ctx_account_resolve(struct ctx_cpu_state *st)
{
	long bits = atomic_long_fetch_andnot(CTX_WALK_RESOLVE | CTX_WALK_RESET,
					     &st->walk);
	int cpu = smp_processor_id();
	struct ctx_acct_cpu *ac;
	struct hlist_node *tmp;
	HLIST_HEAD(stage);
	struct ctx_acct *a;

	if (bits & CTX_WALK_RESET)
		ctx_cpu_reset();
	/* Cleared before @started is read; pairs with ctx_account_start(). */
	smp_mb__after_atomic();
	rcu_read_lock();
	list_for_each_entry_rcu(a, &ctx_sw_running, run_node) {
		ac = this_cpu_ptr(a->cpu);
		if (READ_ONCE(a->started) && !ac->active && ac->filled &&
		    cpumask_test_cpu(cpu, a->cpus))
			ctx_open_started(a, ac);
	}
	if (!is_idle_task(current))
		ctx_resolve_task(&stage);
	hlist_for_each_entry_safe(ac, tmp, &stage, stage_node) {
		hlist_del_init(&ac->stage_node);
		ctx_resolve_forget_missing(ac);
		ac->task = true;
		ctx_open_started(ac->acct, ac);
	}
	rcu_read_unlock();
}

/**
 * ctx_account_resolve_nmi() - ctx_account_resolve() where an NMI may
 * @st: this CPU's state
 *
 * An NMI can be the first boundary after a switch-in (a task that sends
 * itself NMIs right after it is scheduled): unresolved, its counts would
 * stay in the task's. It may resolve once the switch to the current task
 * is done (perf's clone contexts are swapped before it; the task's event
 * list is RCU-protected and its events are freed after a grace period),
 * and not when the stack is to be rebuilt: an NMI nests anywhere.
 *
 * Context: NMI, CPU claimed.
 */
void ctx_account_resolve_nmi(struct ctx_cpu_state *st)
{
	long walk = atomic_long_read(&st->walk);

	if (!(walk & CTX_WALK_RESOLVE) || (walk & CTX_WALK_RESET) ||
	    current != st->switched_in)
		return;
	ctx_account_resolve(st);
}

/**
 * ctx_account_drop_current() - perf detaches the current task's events
 *
 * Closes the task's intervals on this CPU: perf frees its inherited events
 * once perf_event_exit_task() (its exit, or an exec of a non-dumpable
 * image) returns. The caller has taken the task out of every session's
 * set first, so that no boundary opens them again (ctx_resolve_event()).
 *
 * Context: the task itself, process context, no sleeping.
 */
void ctx_account_drop_current(void)
{
	struct ctx_cpu_state *st;
	unsigned long flags;

	local_irq_save(flags);
	st = this_cpu_ptr(&ctx_cpu_state);
	if (ctx_cpu_claim()) {
		ctx_close_task(st, ctx_cpu_context(), false);
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}
