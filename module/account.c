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
#include <linux/mutex.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "account.h"
#include "compat.h"
#include "counters.h"
#include "cpustate.h"
#include "sources.h"

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

/* Started system-wide sessions; written under ctx_live_lock, read under RCU. */
static LIST_HEAD(ctx_sw_running);
/* Users of the hooks (started or armed sessions, probes). */
static DEFINE_MUTEX(ctx_live_lock);
static unsigned int ctx_nr_live;

/* The counters of @ac but those in @skip, read through perf, to @bucket. */
static void ctx_attribute_read(struct ctx_acct_cpu *ac, unsigned int bucket,
			       unsigned long skip)
{
	u64 *b = ac->sum.buckets[bucket];
	struct ctx_acct_slot *sl;
	unsigned int i;
	u64 now;

	for (i = 0; i < ac->nr_events; i++) {
		sl = &ac->slot[i];
		if (!sl->event || (skip & BIT(i)))
			continue;
		now = ctx_counter_read(sl->event, ac->direct & BIT(i));
		b[i] += now - sl->last;
		sl->last = now;
	}
}

/**
 * ctx_attribute_any() - ctx_attribute() with counters read through perf
 * @ac: this CPU's accounting of a session
 * @bucket: the context the counts since the last boundary belong to
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_attribute_any(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute_read(ac, bucket, 0);
}

/**
 * ctx_attribute_driver() - the counters of @ac read through their driver
 * @ac: this CPU's accounting of a session
 * @bucket: the context the counts since the last boundary belong to
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_attribute_driver(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute_read(ac, bucket, ac->direct);
}

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
}

/* Start counting from the counters' current values. */
static void ctx_restart(struct ctx_acct_cpu *ac)
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
 * @seq is odd from the open to the close of an interval (and while an idle
 * CPU's counters change): ctx_account_read() reads the sums of a CPU
 * whose @seq is even and does not move without an IPI.
 */
static void ctx_seq_begin(struct ctx_acct_cpu *ac)
{
	WRITE_ONCE(ac->seq, ac->seq + 1);
	/* @seq odd before the state changes; pairs with ctx_read_idle_cpu() */
	smp_wmb();
}

static void ctx_seq_end(struct ctx_acct_cpu *ac)
{
	/* The state changed before @seq is even; pairs with ctx_read_idle_cpu() */
	smp_wmb();
	WRITE_ONCE(ac->seq, ac->seq + 1);
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
static void ctx_fast_update(struct ctx_acct_cpu *ac)
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
static void ctx_direct_decide(struct ctx_acct_cpu *ac)
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

static void ctx_open(struct ctx_acct_cpu *ac)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);

	/* Linked twice, this CPU's list would loop (ctx_account_cpu_dead()). */
	if (ac->active)
		return;
	ctx_seq_begin(ac);
	ctx_direct_decide(ac);
	ctx_fast_update(ac);
	/*
	 * A task resuming the softirq vector it was switched out in
	 * continues from its last reads: what its events counted since
	 * (perf's switch-out, its switch back in) was done in that vector.
	 */
	if (!ac->carry || ac->carry_task != current)
		ctx_restart(ac);
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
static void ctx_close(struct ctx_acct_cpu *ac, unsigned int bucket)
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
	ctx_open(ac);
	/* The open before @started; pairs with ctx_account_halt()'s. */
	smp_mb();
	if (unlikely(!READ_ONCE(a->started)))
		ctx_close(ac, CTXCOUNT_BUCKET_TASK);
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
		ctx_close(ac, bucket);
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
	st->noresolve = NULL;
	st->switched_in = next;
	/* The stack was emptied by the switch: a pending reset is done. */
	atomic_long_andnot(CTX_WALK_RESET, &st->walk);
	atomic_long_or(CTX_WALK_RESOLVE, &st->walk);
}

/* A task event of a started session: stage its interval on this CPU. */
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
		ac->found = 0;
		hlist_add_head(&ac->stage_node, stage);
	}
	/* An event of a thread that execs with the proof's rights only. */
	if (ac->found & BIT(tag->index))
		return;
	ac->found |= BIT(tag->index);
	/* Its events changed (a context swap): it cannot continue. */
	if (ac->slot[tag->index].event != ev)
		ac->carry = false;
	ac->slot[tag->index].event = ev;
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
	if ((current != st->noresolve ||
	     current->start_time != st->noresolve_start) &&
	    !is_idle_task(current))
		ctx_resolve_task(&stage);
	hlist_for_each_entry_safe(ac, tmp, &stage, stage_node) {
		hlist_del_init(&ac->stage_node);
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
 * ctx_account_mark_all() - make every CPU look at its intervals again
 * @bits: CTX_WALK_RESOLVE, and CTX_WALK_RESET when the hooks come on
 *
 * No interrupt: each CPU resolves at its next boundary (the first
 * interrupt of a task already running there is one), and perf counts the
 * task meanwhile.
 *
 * Context: any but NMI.
 */
void ctx_account_mark_all(unsigned long bits)
{
	int cpu;

	/* What START published before the bits; pairs with the resolution. */
	smp_mb__before_atomic();
	for_each_possible_cpu(cpu)
		atomic_long_or(bits, &per_cpu_ptr(&ctx_cpu_state, cpu)->walk);
}

/**
 * ctx_account_live_get() - the hooks are needed (a start, an arm, a probe)
 *
 * The first user turns them on. While they were off no CPU kept its
 * context stack: each rebuilds its own at its next hook (CTX_WALK_RESET),
 * whoever turned them on, so that a probe on one CPU leaves no stale
 * stack on another for a START that comes while it runs.
 *
 * Context: process context, may sleep; not with the CPU hotplug lock.
 */
void ctx_account_live_get(void)
{
	mutex_lock(&ctx_live_lock);
	if (!ctx_nr_live++) {
		ctx_account_mark_all(CTX_WALK_RESET | CTX_WALK_RESOLVE);
		static_branch_enable(&ctx_acct_live);
	}
	mutex_unlock(&ctx_live_lock);
}

/**
 * ctx_account_live_put() - what ctx_account_live_get() took
 *
 * Context: process context, may sleep; not with the CPU hotplug lock.
 */
void ctx_account_live_put(void)
{
	mutex_lock(&ctx_live_lock);
	if (!--ctx_nr_live)
		static_branch_disable(&ctx_acct_live);
	mutex_unlock(&ctx_live_lock);
}

/**
 * ctx_account_init() - set up a session's accounting
 * @a: the accounting state, zeroed
 * @nr_events: number of events, 1 to CTXCOUNT_MAX_EVENTS
 * @spec: the events (kept by the caller for @a's life)
 * @system_wide: per-CPU counters, every task is counted
 * @cpus: with @system_wide, the CPUs to count on; NULL: every CPU
 * @estimate: move the estimate of what interrupts leave on the task's side
 *	out of the task bucket (where calib.c has measured it)
 * @max_sources: 0, or split the hardirq bucket into this many handler
 *	rows and OTHER (sources.h)
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ctx_account_init(struct ctx_acct *a, unsigned int nr_events,
		     const struct ctx_event_spec *spec, bool system_wide,
		     const struct cpumask *cpus, bool estimate,
		     unsigned int max_sources)
{
	struct ctx_acct_cpu *ac;
	unsigned int i;
	int cpu;

	if (!alloc_cpumask_var(&a->cpus, GFP_KERNEL_ACCOUNT))
		return -ENOMEM;
	cpumask_copy(a->cpus, cpus ?: cpu_possible_mask);
	/* Charged to the caller's memory cgroup, as the session is. */
	a->cpu = alloc_percpu_gfp(struct ctx_acct_cpu, GFP_KERNEL_ACCOUNT);
	if (!a->cpu)
		goto err_cpus;
	/* READ's copies: allocating them per READ would IPI (percpu unmap). */
	a->snap = alloc_percpu_gfp(struct ctx_snap, GFP_KERNEL_ACCOUNT);
	if (!a->snap)
		goto err_cpu;
	if (max_sources) {
		a->src = ctx_src_alloc(max_sources, nr_events);
		if (!a->src)
			goto err_snap;
	}
	for_each_possible_cpu(cpu) {
		ac = per_cpu_ptr(a->cpu, cpu);
		ac->acct = a;
		ac->nr_events = nr_events;
		ac->slot_end = ac->slot + nr_events;
		INIT_HLIST_NODE(&ac->active_node);
		INIT_HLIST_NODE(&ac->stage_node);
		ctx_src_bind(a->src, ac, cpu);
		if (a->src)
			per_cpu_ptr(a->snap, cpu)->src_rows =
				ctx_src_snap(a->src, cpu);
	}
	for (i = 0; i < nr_events; i++) {
		a->tag[i].acct = a;
		a->tag[i].index = i;
	}
	a->nr_events = nr_events;
	a->spec = spec;
	a->system_wide = system_wide;
	a->estimate = estimate;
	INIT_LIST_HEAD(&a->run_node);
	raw_spin_lock_init(&a->state_lock);
	a->halt_gp = get_completed_synchronize_rcu();
	return 0;

err_snap:
	free_percpu(a->snap);
	a->snap = NULL;
err_cpu:
	free_percpu(a->cpu);
	a->cpu = NULL;
err_cpus:
	free_cpumask_var(a->cpus);
	return -ENOMEM;
}

/**
 * ctx_account_cpu_listed() - does @a count on @cpu
 * @a: the accounting state
 * @cpu: a CPU
 *
 * Return: false for a CPU a system-wide session's CPU list leaves out.
 */
bool ctx_account_cpu_listed(const struct ctx_acct *a, unsigned int cpu)
{
	return cpumask_test_cpu(cpu, a->cpus);
}

/**
 * ctx_account_release_counters() - release every per-CPU counter of @a
 * @a: the accounting state, halted (or never started), no hook looking at
 *	it (an RCU grace period after the halt), no fill running
 *
 * Task sessions have none here (perfvals.c owns their events).
 *
 * Context: process context, may sleep.
 */
void ctx_account_release_counters(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac;
	unsigned int i;
	int cpu;

	if (!a->cpu || !a->system_wide)
		return;
	for_each_possible_cpu(cpu) {
		ac = per_cpu_ptr(a->cpu, cpu);
		for (i = 0; i < a->nr_events; i++) {
			ctx_counter_release(ac->slot[i].event);
			ctx_counter_release(ac->retired[i]);
			ac->slot[i].event = NULL;
			ac->retired[i] = NULL;
		}
	}
}

/**
 * ctx_account_destroy() - release a session's counters and state
 * @a: as for ctx_account_release_counters()
 *
 * Context: process context, may sleep.
 */
void ctx_account_destroy(struct ctx_acct *a)
{
	int cpu;

	if (!a->cpu)
		return;
	/* A CPU's list of open intervals must not keep freed memory. */
	for_each_possible_cpu(cpu)
		WARN_ON_ONCE(per_cpu_ptr(a->cpu, cpu)->active);
	ctx_account_release_counters(a);
	free_percpu(a->cpu);
	a->cpu = NULL;
	free_percpu(a->snap);
	a->snap = NULL;
	ctx_src_free(a->src);
	a->src = NULL;
	free_cpumask_var(a->cpus);
}

/**
 * ctx_account_first_counter() - one of @a's per-CPU counters for event @i
 * @a: a system-wide session, not started
 * @i: the event
 *
 * Context: process context, CPU hotplug locked (cpus_read_lock()).
 * Return: a counter, or NULL when no online CPU has one.
 */
struct perf_event *ctx_account_first_counter(struct ctx_acct *a,
					     unsigned int i)
{
	struct perf_event *event;
	int cpu;

	for_each_online_cpu(cpu) {
		event = per_cpu_ptr(a->cpu, cpu)->slot[i].event;
		if (event)
			return event;
	}
	return NULL;
}

/**
 * ctx_account_running() - is @a started, or armed to start at an exec
 * @a: the accounting state
 *
 * Context: session mutex held (nothing but the exec hook changes it).
 * Return: true between START and STOP.
 */
bool ctx_account_running(struct ctx_acct *a)
{
	unsigned long flags;
	bool running;

	raw_spin_lock_irqsave(&a->state_lock, flags);
	running = a->started || a->armed;
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	return running;
}

/**
 * ctx_account_cpu_filled() - does @cpu have counters for its online period
 * @a: the accounting state
 * @cpu: the CPU
 * @gen: set to @cpu's generation, for ctx_account_swap_events()
 *
 * Return: true if it has; then there is nothing to swap in.
 */
bool ctx_account_cpu_filled(struct ctx_acct *a, unsigned int cpu,
			    unsigned int *gen)
{
	struct ctx_acct_cpu *ac = per_cpu_ptr(a->cpu, cpu);

	*gen = READ_ONCE(ac->gen);
	return READ_ONCE(ac->filled);
}

/* Put @a where the hooks see it; @a may have been halted a moment ago. */
static void ctx_account_publish(struct ctx_acct *a)
{
	ctx_src_started(a->src, true);
	ctx_account_live_get();
	if (a->system_wide) {
		/*
		 * If @a was halted less than a grace period ago, hooks may
		 * still be walking past its old place in the list: wait for
		 * them. Waiting here rather than in ctx_account_halt() keeps
		 * STOP short; a session is rarely restarted that soon.
		 */
		cond_synchronize_rcu(a->halt_gp);
		mutex_lock(&ctx_live_lock);
		list_add_rcu(&a->run_node, &ctx_sw_running);
		mutex_unlock(&ctx_live_lock);
	}
}

/**
 * ctx_account_start() - start attributing counts for @a
 * @a: stopped
 *
 * No interrupt: every CPU finds @a's intervals at its next boundary (a
 * monitored task already running is counted by perf meanwhile, and its
 * next interrupt is that boundary).
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_start(struct ctx_acct *a)
{
	unsigned long flags;

	ctx_account_publish(a);
	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->started, true);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	ctx_account_mark_all(CTX_WALK_RESOLVE);
}

/**
 * ctx_account_arm() - start @a when a task it monitors execs
 * @a: stopped, a task session
 *
 * The hooks are on, but @a opens no interval until
 * ctx_account_exec_start().
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_arm(struct ctx_acct *a)
{
	unsigned long flags;

	ctx_account_publish(a);
	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->armed, true);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
}

/**
 * ctx_account_exec_start() - a task @a monitors execs: start counting
 * @a: armed or not
 *
 * If @a was armed it is started now; every CPU finds its intervals at its
 * next boundary.
 *
 * Context: the exec'ing task, process context, no sleeping.
 * Return: true if @a was started here.
 */
bool ctx_account_exec_start(struct ctx_acct *a)
{
	unsigned long flags;
	bool start;

	raw_spin_lock_irqsave(&a->state_lock, flags);
	start = a->armed;
	if (start) {
		WRITE_ONCE(a->armed, false);
		WRITE_ONCE(a->started, true);
	}
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	if (start)
		ctx_account_mark_all(CTX_WALK_RESOLVE);
	return start;
}

/**
 * ctx_account_drop_current() - perf detaches the current task's events
 *
 * Closes the task's intervals on this CPU and opens none for it again
 * until it is switched out: perf frees its events once this returns (in
 * perf_event_exit_task(): its exit, or an exec of a non-dumpable image).
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
		st->noresolve = current;
		st->noresolve_start = current->start_time;
		ctx_close_task(st, ctx_cpu_context(), false);
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}

/* IPI: close this CPU's interval, the session is stopping. */
static void ctx_halt_cpu(void *info)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(((struct ctx_acct *)info)->cpu);

	if (!ctx_cpu_claim())
		return;
	if (ac->active)
		ctx_close(ac, ctx_cpu_context());
	ctx_cpu_release();
}

/**
 * ctx_account_halt() - stop attributing counts for @a
 * @a: started or armed
 *
 * When this returns no CPU has an open interval for @a and none will open
 * one, so its sums no longer change. Hooks may still be walking past @a
 * until an RCU grace period has passed: ctx_account_start() waits for it,
 * the caller must before releasing @a's events or freeing @a.
 *
 * Context: process context, session mutex held.
 */
void ctx_account_halt(struct ctx_acct *a)
{
	unsigned long flags;
	cpumask_var_t cpus;
	int cpu;

	/* No new intervals: the resolution checks @started after opening. */
	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->armed, false);
	WRITE_ONCE(a->started, false);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	/* Pairs with ctx_open_started()'s: see it. */
	smp_mb();
	cpus_read_lock();
	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		on_each_cpu(ctx_halt_cpu, a, 1);
	} else {
		/* Only the CPUs with an interval open have one to close. */
		for_each_online_cpu(cpu)
			if (READ_ONCE(per_cpu_ptr(a->cpu, cpu)->active))
				cpumask_set_cpu(cpu, cpus);
		on_each_cpu_mask(cpus, ctx_halt_cpu, a, 1);
		free_cpumask_var(cpus);
	}
	cpus_read_unlock();
	if (a->system_wide) {
		mutex_lock(&ctx_live_lock);
		list_del_rcu(&a->run_node);
		mutex_unlock(&ctx_live_lock);
	}
	a->halt_gp = get_state_synchronize_rcu();
	ctx_account_live_put();
	ctx_src_started(a->src, false);
}

struct ctx_swap_info {
	struct ctx_acct *a;
	struct perf_event **event;
	struct perf_event **old;
	unsigned int gen;
	int err;
};

/*
 * IPI: attribute what the current counters counted up to now, then put in
 * the new ones (an open interval continues from their current value), if
 * the CPU did not go down since the caller read @gen. Each new counter is
 * checked for direct reads when its interval opens.
 */
static void ctx_swap_cpu(void *info)
{
	struct ctx_swap_info *si = info;
	struct ctx_acct_cpu *ac = this_cpu_ptr(si->a->cpu);
	unsigned int i;

	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (!ctx_cpu_claim())
		return;
	if (ac->gen != si->gen) {
		si->err = -EAGAIN;
		goto out;
	}
	if (ac->active) {
		ctx_attribute(ac, ctx_cpu_context());
		ctx_account_settle(ac);
	} else {
		/* READ copies an idle CPU's state without an IPI */
		ctx_seq_begin(ac);
	}
	ac->direct = 0;
	ac->checked = 0;
	for (i = 0; i < ac->nr_events; i++) {
		si->old[i] = ac->slot[i].event;
		si->old[CTXCOUNT_MAX_EVENTS + i] = ac->retired[i];
		ac->retired[i] = NULL;
		ac->slot[i].event = si->event[i];
	}
	ctx_direct_decide(ac);
	ctx_fast_update(ac);
	if (ac->active)
		ctx_restart(ac);
	else
		ctx_seq_end(ac);
	ac->filled = true;
	si->err = 0;
out:
	ctx_cpu_release();
}

/**
 * ctx_account_swap_events() - put new counters in for @a on @cpu
 * @a: a system-wide session's accounting state
 * @cpu: the CPU
 * @event: the new counters (NULL for none), one per event of @a
 * @old: filled with the counters to release (2 * CTXCOUNT_MAX_EVENTS:
 *	those replaced and those ctx_account_cpu_down() took out), all
 *	NULL when nothing was swapped
 * @gen: @cpu's generation (ctx_account_cpu_filled()) read before the new
 *	counters were created
 *
 * Context: process context, no locks needed: the callers of one session
 * are serialized (its fill work), ctx_account_cpu_down() runs on @cpu too.
 * Return: 0; -EAGAIN if @cpu went down since @gen was read, -ENXIO if it
 * is offline: nothing was swapped then, the caller releases @event.
 */
int ctx_account_swap_events(struct ctx_acct *a, unsigned int cpu,
			    struct perf_event **event, struct perf_event **old,
			    unsigned int gen)
{
	struct ctx_swap_info si = {
		.a = a, .event = event, .old = old, .gen = gen, .err = -ENXIO,
	};
	int err;

	err = smp_call_function_single(cpu, ctx_swap_cpu, &si, 1);
	if (!err && !si.err)
		/* A started session opens the new CPU's interval there. */
		atomic_long_or(CTX_WALK_RESOLVE,
			       &per_cpu_ptr(&ctx_cpu_state, cpu)->walk);
	return err ?: si.err;
}

/* IPI: this CPU is going down; see ctx_account_cpu_down(). */
static void ctx_down_cpu(void *info)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(((struct ctx_acct *)info)->cpu);
	unsigned int i;

	if (!ctx_cpu_claim())
		return;
	if (ac->active)
		ctx_close(ac, ctx_cpu_context());
	ctx_seq_begin(ac);
	for (i = 0; i < ac->nr_events; i++) {
		if (!ac->slot[i].event)
			continue;
		/* Empty: ctx_swap_cpu() emptied it when it put @event in. */
		ac->retired[i] = ac->slot[i].event;
		ac->slot[i].event = NULL;
	}
	ac->fast = false;
	ac->filled = false;
	ac->gen++;
	ctx_seq_end(ac);
	ctx_cpu_release();
}

/**
 * ctx_account_cpu_dead() - forget the intervals left open on a dead CPU
 * @cpu: the CPU, dead
 *
 * A CPU going down runs its last tasks (the stopper that takes it down)
 * after it is marked offline, and the sched_switch tracepoint does not
 * fire on an offline CPU: an interval opened after ctx_account_cpu_down()
 * is never closed there. Nothing is lost by dropping it. Left linked, the
 * list would keep the intervals of sessions freed meanwhile, and loop
 * once the same one opens again; its sequence count is ended, or READ
 * would take the CPU's state for settled whenever an interval is open
 * there, and open when it is not.
 *
 * Context: CPU hotplug, on another CPU after @cpu died (nothing runs on
 * @cpu, nothing else touches its list).
 */
void ctx_account_cpu_dead(unsigned int cpu)
{
	struct ctx_cpu_state *st = per_cpu_ptr(&ctx_cpu_state, cpu);
	struct ctx_acct_cpu *ac;
	struct hlist_node *tmp;

	hlist_for_each_entry_safe(ac, tmp, &st->active, active_node) {
		ac->active = false;
		hlist_del_init(&ac->active_node);
		ctx_seq_end(ac);
	}
	st->others = 0;
	atomic_long_set(&st->walk, CTX_WALK_RESOLVE);
}

/**
 * ctx_account_cpu_down() - @cpu is going offline: stop counting there
 * @a: the accounting state
 * @cpu: the CPU, still online
 *
 * Attributes what is pending on @cpu and takes its counters out of use
 * (the perf core is about to detach them for good): they wait in
 * &struct ctx_acct_cpu.retired until the next swap or the session's end
 * releases them. Releasing, like creating, may take the CPU hotplug lock
 * (static keys), which the caller's hotplug callback cannot.
 *
 * Context: CPU hotplug teardown callback of @cpu.
 */
void ctx_account_cpu_down(struct ctx_acct *a, unsigned int cpu)
{
	smp_call_function_single(cpu, ctx_down_cpu, a, 1);
}

/*
 * Probing (calib.c): count the current task on one CPU for @a, whose
 * counters are this CPU's own (no session has them), then put @a's sums
 * back as they were. The hooks are on meanwhile.
 */

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
		ctx_open(ac);
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
		ctx_close(ac, ctx_cpu_context());
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
