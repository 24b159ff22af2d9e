// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of counter deltas to contexts: read-and-subtract.
 *
 * Counters are never stopped. On a CPU running a monitored task, each
 * context boundary reads every counter of every session with an open
 * interval on that CPU (its context state's list, cpustate.h) and adds the delta
 * since the previous boundary to the bucket of the context being left
 * (account.h). @full moves only when an interval is opened, closed or
 * flushed, from the same reads. The buckets telescope over those reads, so
 * "sum of buckets == full" holds whatever bucket a delta went to: it is
 * bookkeeping (no delta lost or counted twice), not a proof of attribution.
 *
 * Everything here that touches struct ctx_acct_cpu runs on the CPU it
 * belongs to, with interrupts disabled and the CPU claimed against NMIs
 * (ctx_cpu_claim()). This file is built without ftrace instrumentation: it
 * runs inside ftrace callbacks, tracepoints and NMI handlers.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "account.h"
#include "counters.h"
#include "cpustate.h"
#include "sources.h"
#include "taskset.h"

DEFINE_STATIC_KEY_FALSE(ctx_acct_live);

/* Started sessions; written under the session mutex, read under RCU. */
static LIST_HEAD(ctx_running);
/* How many; under the session mutex (every caller of start/halt holds it). */
static unsigned int ctx_nr_started;

/**
 * ctx_attribute_any() - ctx_attribute() with counters read through perf
 * @ac: this CPU's accounting of a session
 * @bucket: the context the counts since the last boundary belong to
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_attribute_any(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	u64 *b = ac->sum.buckets[bucket];
	struct ctx_acct_slot *sl;
	unsigned int i;
	u64 now;

	for (i = 0; i < ac->nr_events; i++) {
		sl = &ac->slot[i];
		if (!sl->event)
			continue;
		now = ctx_counter_read(sl->event, ac->direct & BIT(i));
		b[i] += now - sl->last;
		sl->last = now;
	}
}

/**
 * ctx_account_settle() - bring @ac's totals up to its last boundary
 * @ac: this CPU's accounting of a session, with an interval open
 *
 * Brings @full, the times and the excursion counts up to the last
 * boundary, leaving the interval open. Must directly follow
 * ctx_attribute() so that @last is current.
 *
 * Context: interrupts disabled, CPU claimed.
 */
void ctx_account_settle(struct ctx_acct_cpu *ac)
{
	const u64 *exc = ctx_cpu_excursions();
	u64 clock = local_clock();
	u64 delta = clock - ac->clock_in;
	unsigned int i;

	ctx_src_settle(ac);
	/* Kernel threads run on a CPU going down or coming up without one. */
	if (ac->has_counters)
		ac->sum.enabled += delta;
	ac->clock_in = clock;
	for (i = 0; i < CTX_NR_EXC; i++) {
		ac->sum.excursions[i] += exc[i] - ac->exc_in[i];
		ac->exc_in[i] = exc[i];
	}
	for (i = 0; i < ac->nr_events; i++) {
		if (!ac->slot[i].event)
			continue;
		ac->sum.full[i] += ac->slot[i].last - ac->in[i];
		ac->in[i] = ac->slot[i].last;
		if (ctx_counter_running(ac->slot[i].event))
			ac->sum.running[i] += delta;
	}
}

/* Start counting from the counters' current values. */
static void ctx_restart(struct ctx_acct_cpu *ac)
{
	struct perf_event *event;
	unsigned int i;

	for (i = 0; i < ac->nr_events; i++) {
		event = ac->slot[i].event;
		if (!event)
			continue;
		ac->slot[i].last = ctx_counter_read(event, ac->direct & BIT(i));
		ac->in[i] = ac->slot[i].last;
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
 * interval's counters change.
 */
static void ctx_walk_update(struct ctx_cpu_state *st)
{
	unsigned long walk = (unsigned long)st->active.first;
	struct ctx_acct_cpu *ac;

	hlist_for_each_entry(ac, &st->active, active_node)
		if (!ac->fast)
			walk |= CTX_WALK_SLOW;
	st->walk = walk;
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

static void ctx_open(struct ctx_acct_cpu *ac)
{
	struct ctx_cpu_state *st = this_cpu_ptr(&ctx_cpu_state);

	/* Linked twice, this CPU's list would loop (ctx_account_cpu_dead()). */
	if (ac->active)
		return;
	ctx_seq_begin(ac);
	ctx_restart(ac);
	ac->clock_in = local_clock();
	memcpy(ac->exc_in, ctx_cpu_excursions(), sizeof(ac->exc_in));
	WRITE_ONCE(ac->active, true);
	hlist_add_head(&ac->active_node, &st->active);
	ctx_walk_update(st);
}

static void ctx_close(struct ctx_acct_cpu *ac, unsigned int bucket)
{
	ctx_attribute(ac, bucket);
	ctx_account_settle(ac);
	WRITE_ONCE(ac->active, false);
	hlist_del_init(&ac->active_node);
	ctx_walk_update(this_cpu_ptr(&ctx_cpu_state));
	ctx_seq_end(ac);
}

/**
 * ctx_account_switch() - @prev leaves this CPU and @next arrives
 * @prev: the task switched out
 * @next: the task switched in
 * @bucket: the context @prev was in: task context, or on PREEMPT_RT the
 *	softirq vector it was preempted in
 *
 * Closes the open intervals (their last stretch goes to @bucket) and opens
 * one for each started session that monitors @next. Intervals are per CPU,
 * so the interval of a task that already left the monitored set (it is
 * exiting) is still closed here.
 *
 * Context: sched_switch tracepoint: interrupts disabled, CPU claimed.
 */
void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket)
{
	struct ctx_acct_cpu *ac;
	struct hlist_node *tmp;
	struct ctx_acct *a;

	hlist_for_each_entry_safe(ac, tmp, &this_cpu_ptr(&ctx_cpu_state)->active,
				  active_node)
		ctx_close(ac, bucket);
	list_for_each_entry_rcu(a, &ctx_running, run_node) {
		if (!READ_ONCE(a->started) || !ctx_account_monitors(a, next))
			continue;
		ac = this_cpu_ptr(a->cpu);
		ctx_open(ac);
		/*
		 * STOP clears @started, then IPIs only the CPUs it sees with an
		 * interval open: either it sees this one, or this sees
		 * @started clear and closes at once.
		 */
		smp_mb();
		if (unlikely(!READ_ONCE(a->started)))
			ctx_close(ac, CTXCOUNT_BUCKET_TASK);
	}
}

/**
 * ctx_account_init() - set up a session's accounting
 * @a: the accounting state, zeroed
 * @nr_events: number of events, 1 to CTXCOUNT_MAX_EVENTS
 * @tasks: the monitored tasks (unused with @system_wide)
 * @system_wide: every task but the idle tasks is monitored
 * @cpus: with @system_wide, the CPUs to count on; NULL: every CPU
 * @estimate: move the estimate of what interrupts leave on the task's side
 *	out of the task bucket (once calib.c has measured it)
 * @max_sources: 0, or split the hardirq bucket into this many handler
 *	rows and OTHER (sources.h)
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ctx_account_init(struct ctx_acct *a, unsigned int nr_events,
		     struct ctx_taskset *tasks, bool system_wide,
		     const struct cpumask *cpus, bool estimate,
		     unsigned int max_sources)
{
	struct ctx_acct_cpu *ac;
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
		ac->nr_events = nr_events;
		ac->slot_end = ac->slot + nr_events;
		INIT_HLIST_NODE(&ac->active_node);
		ctx_src_bind(a->src, ac, cpu);
		if (a->src)
			per_cpu_ptr(a->snap, cpu)->src_rows =
				ctx_src_snap(a->src, cpu);
	}
	a->nr_events = nr_events;
	a->tasks = tasks;
	a->system_wide = system_wide;
	a->estimate = estimate;
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
 * ctx_account_release_counters() - release every counter of @a
 * @a: the accounting state, halted (or never started), no hook looking at
 *	it (an RCU grace period after the halt), no fill running
 *
 * Context: process context, may sleep.
 */
void ctx_account_release_counters(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac;
	unsigned int i;
	int cpu;

	if (!a->cpu)
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
 * ctx_account_first_counter() - one of @a's counters for event @i
 * @a: not started (its counters stay where they are)
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

struct ctx_start_info {
	struct ctx_acct *a;
	bool reset;
};

/* IPI: pick up a monitored task that is already running on this CPU. */
static void ctx_start_cpu(void *info)
{
	struct ctx_start_info *si = info;
	struct ctx_acct_cpu *ac = this_cpu_ptr(si->a->cpu);

	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (!ctx_cpu_claim())
		return;
	if (si->reset)
		ctx_cpu_reset();
	if (READ_ONCE(si->a->started) && !ac->active &&
	    ctx_account_monitors(si->a, current))
		ctx_open(ac);
	ctx_cpu_release();
}

/* The CPUs that may run a task @a counts: @a published and started. */
static void ctx_account_start_cpus(struct ctx_acct *a, struct cpumask *cpus)
{
	/* Pairs with __schedule()'s smp_mb__after_spinlock(): taskset.c. */
	smp_mb();
	if (a->system_wide)
		cpumask_and(cpus, cpu_online_mask, a->cpus);
	else
		ctx_taskset_cpus(a->tasks, cpus);
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

/*
 * Put @a where the hooks see it (it may have been halted a moment ago)
 * and turn the hooks on; each CPU picks up a task @a counts that is
 * already running there, if @a is started.
 */
static void ctx_account_publish(struct ctx_acct *a)
{
	struct ctx_start_info si = { .a = a };
	cpumask_var_t cpus;

	/*
	 * If @a was halted less than a grace period ago, hooks may still be
	 * walking past its old place in the running list: wait for them.
	 * Waiting here rather than in ctx_account_halt() keeps STOP from
	 * holding the session mutex, and every other client, for a grace
	 * period; a session is rarely restarted that soon.
	 */
	cond_synchronize_rcu(a->halt_gp);
	list_add_rcu(&a->run_node, &ctx_running);
	cpus_read_lock();
	si.reset = !ctx_nr_started++;
	if (si.reset)
		static_branch_enable_cpuslocked(&ctx_acct_live);
	ctx_src_started(a->src, true);
	/*
	 * sched_switch opens intervals from now on; tasks that are already
	 * running are picked up on their CPU. Turning the hooks on needs
	 * every CPU (each rebuilds its context stack); else only the CPUs a
	 * monitored task may run on, and none for an armed session.
	 */
	if (si.reset || !zalloc_cpumask_var(&cpus, GFP_KERNEL)) {
		on_each_cpu(ctx_start_cpu, &si, 1);
	} else {
		if (READ_ONCE(a->started))
			ctx_account_start_cpus(a, cpus);
		on_each_cpu_mask(cpus, ctx_start_cpu, &si, 1);
		free_cpumask_var(cpus);
	}
	cpus_read_unlock();
}

/**
 * ctx_account_start() - start attributing counts for @a
 * @a: stopped, not on the running list
 *
 * The first session started turns the hooks on; while they were off no
 * CPU's context stack was kept, so each CPU rebuilds its own.
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_start(struct ctx_acct *a)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->started, true);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	ctx_account_publish(a);
}

/**
 * ctx_account_arm() - start @a when a task it monitors execs
 * @a: stopped, not on the running list
 *
 * On the running list, with the hooks on, but not started: @a opens no
 * interval until ctx_account_exec_start().
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_arm(struct ctx_acct *a)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->armed, true);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	ctx_account_publish(a);
}

/**
 * ctx_account_exec_start() - a task @a monitors execs: start counting
 * @a: armed or not
 *
 * If @a was armed it is started now, and the exec'ing task's interval
 * opens on this CPU; tasks on other CPUs open theirs at their next
 * switch-in. Under @a's state lock with interrupts off, so a STOP that
 * comes after finds the interval open and closes it.
 *
 * Context: the exec'ing task, process context, no sleeping.
 */
void ctx_account_exec_start(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac;
	unsigned long flags;

	raw_spin_lock_irqsave(&a->state_lock, flags);
	if (!a->armed)
		goto out_unlock;
	WRITE_ONCE(a->armed, false);
	WRITE_ONCE(a->started, true);
	ac = this_cpu_ptr(a->cpu);
	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (ctx_cpu_claim()) {
		if (!ac->active)
			ctx_open(ac);
		ctx_cpu_release();
	}
out_unlock:
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
}

/**
 * ctx_account_drop_current() - stop counting the current task for @a now
 * @a: a session the current task just left (its exec made it
 *	non-dumpable, or it exits)
 *
 * Closes the interval open on this CPU, which is the current task's; the
 * task is no longer in @a's set, so none opens again.
 *
 * Context: the task itself, process context, no sleeping.
 */
void ctx_account_drop_current(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac;
	unsigned long flags;

	local_irq_save(flags);
	ac = this_cpu_ptr(a->cpu);
	if (ctx_cpu_claim()) {
		if (ac->active)
			ctx_close(ac, ctx_cpu_context());
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}

/**
 * ctx_account_halt() - stop attributing counts for @a
 * @a: started or armed
 *
 * When this returns no CPU has an open interval for @a and none will open
 * one, so its totals no longer change. @a is off the running list but
 * hooks may still be walking past it until an RCU grace period has passed:
 * ctx_account_start() waits for it, the caller must before freeing @a.
 *
 * Context: process context, session mutex held.
 */
void ctx_account_halt(struct ctx_acct *a)
{
	unsigned long flags;
	cpumask_var_t cpus;
	int cpu;

	/* No new intervals: sched_switch checks @started before opening. */
	raw_spin_lock_irqsave(&a->state_lock, flags);
	WRITE_ONCE(a->armed, false);
	WRITE_ONCE(a->started, false);
	raw_spin_unlock_irqrestore(&a->state_lock, flags);
	/* Pairs with ctx_account_switch()'s: see it. */
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
	ctx_src_started(a->src, false);
	if (!--ctx_nr_started)
		static_branch_disable_cpuslocked(&ctx_acct_live);
	cpus_read_unlock();
	list_del_rcu(&a->run_node);
	a->halt_gp = get_state_synchronize_rcu();
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
 * read from the PMU's registers from now on if that read agrees with the
 * driver's here.
 */
static void ctx_swap_cpu(void *info)
{
	struct ctx_swap_info *si = info;
	struct ctx_acct_cpu *ac = this_cpu_ptr(si->a->cpu);
	struct perf_event *event;
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
		/* READ copies an idle CPU's counters without an IPI */
		ctx_seq_begin(ac);
	}
	ac->has_counters = false;
	ac->direct = 0;
	for (i = 0; i < ac->nr_events; i++) {
		si->old[i] = ac->slot[i].event;
		si->old[CTXCOUNT_MAX_EVENTS + i] = ac->retired[i];
		ac->retired[i] = NULL;
		event = si->event[i];
		ac->slot[i].event = event;
		if (!event)
			continue;
		ac->has_counters = true;
		if (ctx_counter_direct_check(event))
			ac->direct |= BIT(i);
	}
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
 * @a: the accounting state
 * @cpu: the CPU
 * @event: the new counters (NULL for none), one per event of @a
 * @old: filled with the counters to release (2 * CTXCOUNT_MAX_EVENTS:
 *	those replaced and those ctx_account_cpu_down() took out), all
 *	NULL when nothing was swapped
 * @gen: @cpu's generation (ctx_account_cpu_filled()) read before the new
 *	counters were created
 *
 * What the old counters counted up to the swap stays in @a's totals.
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
	return err ?: si.err;
}

/* IPI: this CPU is going down; see ctx_account_cpu_down(). */
static void ctx_down_cpu(void *info)
{
	struct ctx_acct_cpu *ac = this_cpu_ptr(((struct ctx_acct *)info)->cpu);
	unsigned int i;
	bool idle;

	if (!ctx_cpu_claim())
		return;
	idle = !ac->active;
	if (idle) {
		ctx_seq_begin(ac);
	} else {
		ctx_attribute(ac, ctx_cpu_context());
		ctx_account_settle(ac);
	}
	for (i = 0; i < ac->nr_events; i++) {
		if (!ac->slot[i].event)
			continue;
		/* Empty: ctx_swap_cpu() emptied it when it put @event in. */
		ac->retired[i] = ac->slot[i].event;
		ac->slot[i].event = NULL;
	}
	ctx_fast_update(ac);
	ac->has_counters = false;
	ac->filled = false;
	ac->gen++;
	if (idle)
		ctx_seq_end(ac);
	ctx_cpu_release();
}

/**
 * ctx_account_cpu_dead() - forget the intervals left open on a dead CPU
 * @cpu: the CPU, dead
 *
 * A CPU going down runs its last tasks (the stopper that takes it down,
 * counted by system-wide sessions) after it is marked offline, and the
 * sched_switch tracepoint does not fire on an offline CPU: the interval
 * that task's switch-in opened is never closed there. Nothing is lost by
 * dropping it: ctx_account_cpu_down() attributed what was pending and took
 * the CPU's counters out of use before. Left linked, the list would keep
 * the intervals of sessions freed meanwhile, and loop once the same one
 * opens again.
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
	}
	st->walk = 0;
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
 * Probing (calib.c): count the current task on one CPU for @a, which does
 * not monitor it and is not started, then put @a's sums back as they were.
 * The hooks are on meanwhile.
 */

/**
 * ctx_account_probe_begin() - prepare to probe @a on this CPU
 * @a: halted (or never started), not being probed
 *
 * Context: process context, may sleep, session mutex held, CPU hotplug
 * lock held for read, migration disabled.
 * Return: 0, -ENODEV (@a does not count on this CPU: its CPU list) or
 * -ENOMEM.
 */
int ctx_account_probe_begin(struct ctx_acct *a)
{
	/* No counters here: a probe would measure nothing, and be kept. */
	if (!cpumask_test_cpu(smp_processor_id(), a->cpus))
		return -ENODEV;
	/* With sources, their rows after the sums: the probe moves them too. */
	a->probe_save = kmalloc(sizeof(*a->probe_save) +
				(a->src ? ctx_src_rows_size(a->src) : 0),
				GFP_KERNEL_ACCOUNT);
	if (!a->probe_save)
		return -ENOMEM;
	a->probe_cpu = smp_processor_id();
	memcpy(a->probe_save, &this_cpu_ptr(a->cpu)->sum, sizeof(*a->probe_save));
	if (a->src)
		ctx_src_rows_copy(a->src, (u64 *)(a->probe_save + 1),
				  this_cpu_ptr(a->cpu)->src_rows);
	if (!ctx_nr_started++) {
		static_branch_enable_cpuslocked(&ctx_acct_live);
		/* Only this CPU's stack matters here: rebuilt at the open. */
		a->probe_reset = true;
	}
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
	unsigned long flags;

	local_irq_save(flags);
	if (ctx_cpu_claim()) {
		if (a->probe_reset)
			ctx_cpu_reset();
		a->probe_reset = false;
		ctx_open(this_cpu_ptr(a->cpu));
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}

/**
 * ctx_account_probe_sample() - the task bucket and excursion counts now
 * @a: with an interval open on this CPU
 * @task: filled with the task bucket, per event
 * @exc: filled with this CPU's excursion counts, by kind
 *
 * Context: migration disabled.
 */
void ctx_account_probe_sample(struct ctx_acct *a, u64 *task, u64 *exc)
{
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
	memcpy(exc, ctx_cpu_excursions(), CTX_NR_EXC * sizeof(*exc));
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
 * Context: process context, session mutex held, CPU hotplug lock held for
 * read.
 */
void ctx_account_probe_end(struct ctx_acct *a)
{
	struct ctx_acct_cpu *ac = per_cpu_ptr(a->cpu, a->probe_cpu);

	if (cpu_online(a->probe_cpu))
		smp_call_function_single(a->probe_cpu, ctx_probe_close_cpu,
					 a, 1);
	/* Closed: no hook touches @ac's sums now. */
	memcpy(&ac->sum, a->probe_save, sizeof(ac->sum));
	if (a->src)
		ctx_src_rows_copy(a->src, ac->src_rows,
				  (u64 *)(a->probe_save + 1));
	if (!--ctx_nr_started)
		static_branch_disable_cpuslocked(&ctx_acct_live);
	kfree(a->probe_save);
	a->probe_save = NULL;
}
