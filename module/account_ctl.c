// SPDX-License-Identifier: GPL-2.0
/*
 * A session's accounting state from process context: set up and torn
 * down, started, armed for an exec, halted; and the users of the hooks,
 * which are on only while one exists. The hooks' side is account.c.
 *
 * Built without ftrace instrumentation, as account.c: the IPI that halts
 * a CPU's interval runs with the CPU claimed.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/rculist.h>
#include <linux/rcupdate.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "account.h"
#include "account_ctl.h"
#include "account_read.h"
#include "counters.h"
#include "cpustate.h"
#include "interval.h"
#include "sources.h"

/* Users of the hooks (started or armed sessions, probes). */
static DEFINE_MUTEX(ctx_live_lock);
static unsigned int ctx_nr_live;

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

/* IPI: close this CPU's interval, the session is stopping. */
static void ctx_halt_cpu(void *info)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(((struct ctx_acct *)info)->cpu);

	if (!ctx_cpu_claim())
		return;
	if (ac->active)
		ctx_interval_close(ac, ctx_cpu_context());
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
