// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution of counter deltas to contexts: read-and-subtract.
 *
 * Counters are never stopped. On a CPU running a monitored task, each
 * context boundary reads every counter of every started session and adds
 * the delta since the previous boundary to the bucket of the context being
 * left. @full moves only when an interval is opened, closed or flushed, from
 * the same reads. The buckets telescope over those reads, so "sum of buckets
 * == full" holds whatever bucket a delta went to: it is bookkeeping (no
 * delta lost or counted twice), not a proof of attribution.
 *
 * Everything here that touches struct ctx_session_cpu runs on the CPU it
 * belongs to, with interrupts disabled and the CPU claimed against NMIs
 * (ctx_cpu_claim()). This file is built without ftrace instrumentation: it
 * runs inside ftrace callbacks, tracepoints and NMI handlers.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/rculist.h>
#include <linux/sched/clock.h>
#include <linux/smp.h>
#include <linux/spinlock.h>

#include "account.h"
#include "counters.h"
#include "hooks.h"
#include "session.h"

/* Started sessions; written under the session mutex, read under RCU. */
static LIST_HEAD(ctx_running);

/* Number of sessions with an open interval on each CPU. */
DEFINE_PER_CPU(unsigned int, ctx_nr_active);

/*
 * Attribute the counts since the last boundary to @bucket. Inline: a call
 * and its frame around the read would be counted outside the boundary.
 */
static __always_inline void ctx_attribute(struct ctx_session *s,
					  struct ctx_session_cpu *sc,
					  unsigned int bucket)
{
	unsigned int i;
	u64 now;

	for (i = 0; i < s->nr_events; i++) {
		if (!sc->event[i])
			continue;
		now = ctx_counter_read(sc->event[i]);
		sc->tot.buckets[i][bucket] += now - sc->last[i];
		sc->last[i] = now;
	}
}

/*
 * Bring @full and the times up to the last boundary, leaving the interval
 * open. Must directly follow ctx_attribute() so that @last is current.
 */
static void ctx_settle(struct ctx_session *s, struct ctx_session_cpu *sc)
{
	u64 clock = local_clock();
	u64 delta = clock - sc->clock_in;
	unsigned int i;

	/* Kernel threads run on a CPU going down or coming up without one. */
	if (sc->has_counters)
		sc->tot.enabled += delta;
	sc->clock_in = clock;
	for (i = 0; i < s->nr_events; i++) {
		if (!sc->event[i])
			continue;
		sc->tot.full[i] += sc->last[i] - sc->in[i];
		sc->in[i] = sc->last[i];
		if (ctx_counter_running(sc->event[i]))
			sc->tot.running[i] += delta;
	}
}

static void ctx_open(struct ctx_session *s, struct ctx_session_cpu *sc)
{
	unsigned int i;

	for (i = 0; i < s->nr_events; i++) {
		if (!sc->event[i])
			continue;
		sc->last[i] = ctx_counter_read(sc->event[i]);
		sc->in[i] = sc->last[i];
	}
	sc->clock_in = local_clock();
	sc->active = true;
	__this_cpu_inc(ctx_nr_active);
}

static void ctx_close(struct ctx_session *s, struct ctx_session_cpu *sc,
		      unsigned int bucket)
{
	ctx_attribute(s, sc, bucket);
	ctx_settle(s, sc);
	sc->active = false;
	__this_cpu_dec(ctx_nr_active);
}

/**
 * ctx_account_boundary() - a context boundary on this CPU
 * @bucket: the context being left (enum ctxcount_bucket)
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
void ctx_account_boundary(unsigned int bucket)
{
	struct ctx_session_cpu *sc;
	struct ctx_session *s;

	list_for_each_entry_rcu(s, &ctx_running, run_node) {
		sc = this_cpu_ptr(s->cpu);
		if (sc->active)
			ctx_attribute(s, sc, bucket);
	}
}

/**
 * ctx_account_switch() - @prev leaves this CPU and @next arrives
 * @prev: the task switched out
 * @next: the task switched in
 * @bucket: the context @prev was in: task context, or on PREEMPT_RT the
 *	softirq vector it was preempted in
 *
 * Closes the open intervals (their last stretch goes to @bucket) and opens
 * one for each started session that monitors @next. @active is per CPU, so
 * the interval of a task that already left the monitored set (it is
 * exiting) is still closed here.
 *
 * Context: sched_switch tracepoint: interrupts disabled, CPU claimed.
 */
void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket)
{
	struct ctx_session_cpu *sc;
	struct ctx_session *s;

	list_for_each_entry_rcu(s, &ctx_running, run_node) {
		sc = this_cpu_ptr(s->cpu);
		if (sc->active)
			ctx_close(s, sc, bucket);
		if (READ_ONCE(s->started) && ctx_session_monitors(s, next))
			ctx_open(s, sc);
	}
}

/* IPI: pick up a monitored task that is already running on this CPU. */
static void ctx_start_cpu(void *info)
{
	struct ctx_session *s = info;
	struct ctx_session_cpu *sc = this_cpu_ptr(s->cpu);

	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (!ctx_cpu_claim())
		return;
	if (!sc->active && ctx_session_monitors(s, current))
		ctx_open(s, sc);
	ctx_cpu_release();
}

/* IPI: close this CPU's interval, the session is stopping. */
static void ctx_halt_cpu(void *info)
{
	struct ctx_session *s = info;
	struct ctx_session_cpu *sc = this_cpu_ptr(s->cpu);

	if (!ctx_cpu_claim())
		return;
	if (sc->active)
		ctx_close(s, sc, ctx_cpu_context());
	ctx_cpu_release();
}

/**
 * ctx_account_running() - is @s started, or armed to start at an exec
 * @s: the session
 *
 * Context: session mutex held (nothing but the exec hook changes it).
 * Return: true between START and STOP.
 */
bool ctx_account_running(struct ctx_session *s)
{
	unsigned long flags;
	bool running;

	raw_spin_lock_irqsave(&s->state_lock, flags);
	running = s->started || s->armed;
	raw_spin_unlock_irqrestore(&s->state_lock, flags);
	return running;
}

/* Put @s where the hooks see it; it may have been halted a moment ago. */
static void ctx_account_publish(struct ctx_session *s)
{
	/*
	 * If @s was halted less than a grace period ago, hooks may still be
	 * walking past its old place in the running list: wait for them.
	 * Waiting here rather than in ctx_account_halt() keeps STOP from
	 * holding the session mutex, and every other client, for a grace
	 * period; a session is rarely restarted that soon.
	 */
	cond_synchronize_rcu(s->halt_gp);
	list_add_rcu(&s->run_node, &ctx_running);
}

/**
 * ctx_account_start() - start attributing counts for @s
 * @s: a stopped session, not on the running list
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_start(struct ctx_session *s)
{
	unsigned long flags;

	raw_spin_lock_irqsave(&s->state_lock, flags);
	WRITE_ONCE(s->started, true);
	raw_spin_unlock_irqrestore(&s->state_lock, flags);
	ctx_account_publish(s);
	/*
	 * sched_switch opens intervals from now on; tasks that are already
	 * running are picked up on their CPU.
	 */
	cpus_read_lock();
	on_each_cpu(ctx_start_cpu, s, 1);
	cpus_read_unlock();
}

/**
 * ctx_account_arm() - start @s when a task it monitors execs
 * @s: a stopped session, not on the running list
 *
 * On the running list but not started, @s opens no interval until
 * ctx_account_exec_start().
 *
 * Context: process context, may sleep, session mutex held.
 */
void ctx_account_arm(struct ctx_session *s)
{
	unsigned long flags;

	ctx_account_publish(s);
	raw_spin_lock_irqsave(&s->state_lock, flags);
	WRITE_ONCE(s->armed, true);
	raw_spin_unlock_irqrestore(&s->state_lock, flags);
}

/**
 * ctx_account_exec_start() - a task @s monitors execs: start counting
 * @s: a session, armed or not
 *
 * If @s was armed it is started now, and the exec'ing task's interval
 * opens on this CPU; tasks on other CPUs open theirs at their next
 * switch-in. Under @s's state lock with interrupts off, so a STOP that
 * comes after finds the interval open and closes it.
 *
 * Context: the exec'ing task, process context, no sleeping.
 */
void ctx_account_exec_start(struct ctx_session *s)
{
	struct ctx_session_cpu *sc;
	unsigned long flags;

	raw_spin_lock_irqsave(&s->state_lock, flags);
	if (!s->armed)
		goto out_unlock;
	WRITE_ONCE(s->armed, false);
	WRITE_ONCE(s->started, true);
	sc = this_cpu_ptr(s->cpu);
	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (ctx_cpu_claim()) {
		if (!sc->active)
			ctx_open(s, sc);
		ctx_cpu_release();
	}
out_unlock:
	raw_spin_unlock_irqrestore(&s->state_lock, flags);
}

/**
 * ctx_account_drop_current() - stop counting the current task for @s now
 * @s: a session the current task just left (its exec made it
 *	non-dumpable)
 *
 * Closes the interval open on this CPU, which is the current task's; the
 * task is no longer in @s's set, so none opens again.
 *
 * Context: the task itself, process context, no sleeping.
 */
void ctx_account_drop_current(struct ctx_session *s)
{
	struct ctx_session_cpu *sc;
	unsigned long flags;

	local_irq_save(flags);
	sc = this_cpu_ptr(s->cpu);
	if (ctx_cpu_claim()) {
		if (sc->active)
			ctx_close(s, sc, ctx_cpu_context());
		ctx_cpu_release();
	}
	local_irq_restore(flags);
}

/**
 * ctx_account_halt() - stop attributing counts for @s
 * @s: a started or armed session
 *
 * When this returns no CPU has an open interval for @s and none will open
 * one, so @s's totals no longer change. @s is off the running list but
 * hooks may still be walking past it until an RCU grace period has passed:
 * ctx_account_start() waits for it, the caller must before freeing @s.
 *
 * Context: process context, session mutex held.
 */
void ctx_account_halt(struct ctx_session *s)
{
	unsigned long flags;

	/* No new intervals: sched_switch checks @started before opening. */
	raw_spin_lock_irqsave(&s->state_lock, flags);
	WRITE_ONCE(s->armed, false);
	WRITE_ONCE(s->started, false);
	raw_spin_unlock_irqrestore(&s->state_lock, flags);
	cpus_read_lock();
	on_each_cpu(ctx_halt_cpu, s, 1);
	cpus_read_unlock();
	list_del_rcu(&s->run_node);
	s->halt_gp = get_state_synchronize_rcu();
}

static void ctx_totals_add(struct ctx_totals *sum,
			   const struct ctx_totals *t, unsigned int nr_events)
{
	unsigned int i, b;

	sum->enabled += t->enabled;
	for (i = 0; i < nr_events; i++) {
		sum->full[i] += t->full[i];
		sum->running[i] += t->running[i];
		for (b = 0; b < __CTXCOUNT_BUCKET_LAST; b++)
			sum->buckets[i][b] += t->buckets[i][b];
	}
}

struct ctx_read_info {
	struct ctx_session *s;
	struct ctx_totals *sum;
	raw_spinlock_t lock;
};

/*
 * IPI: attribute this CPU's pending deltas, then add its totals to the sum
 * while nothing can change them, so the sum is consistent per CPU.
 */
static void ctx_read_cpu(void *info)
{
	struct ctx_read_info *ri = info;
	struct ctx_session *s = ri->s;
	struct ctx_session_cpu *sc = this_cpu_ptr(s->cpu);

	if (!ctx_cpu_claim())
		return;
	if (sc->active) {
		ctx_attribute(s, sc, ctx_cpu_context());
		ctx_settle(s, sc);
	}
	raw_spin_lock(&ri->lock);
	ctx_totals_add(ri->sum, &sc->tot, s->nr_events);
	raw_spin_unlock(&ri->lock);
	ctx_cpu_release();
}

/**
 * ctx_account_read() - add up @s's totals over all CPUs
 * @s: the session
 * @sum: zeroed totals to add to
 *
 * For a started session, each online CPU first attributes what is pending
 * on it (a task running without interrupts would otherwise show nothing).
 * CPUs that are offline keep what they counted before they went down.
 *
 * Context: process context, session mutex held.
 */
void ctx_account_read(struct ctx_session *s, struct ctx_totals *sum)
{
	struct ctx_read_info ri = { .s = s, .sum = sum };
	/* An armed session may start meanwhile: read it as a started one. */
	bool running = ctx_account_running(s);
	int cpu;

	raw_spin_lock_init(&ri.lock);
	cpus_read_lock();
	if (running)
		on_each_cpu(ctx_read_cpu, &ri, 1);
	for_each_possible_cpu(cpu) {
		if (running && cpu_online(cpu))
			continue;
		ctx_totals_add(sum, &per_cpu_ptr(s->cpu, cpu)->tot,
			       s->nr_events);
	}
	cpus_read_unlock();
}

struct ctx_swap_info {
	struct ctx_session *s;
	struct perf_event **event;
	struct perf_event **old;
	unsigned int gen;
	int err;
};

/*
 * IPI: attribute what the current counters counted up to now, then put in
 * the new ones (an open interval continues from their current value), if
 * the CPU did not go down since the caller read @gen.
 */
static void ctx_swap_cpu(void *info)
{
	struct ctx_swap_info *si = info;
	struct ctx_session *s = si->s;
	struct ctx_session_cpu *sc = this_cpu_ptr(s->cpu);
	unsigned int i;

	/* Cannot fail: only an NMI can find the CPU claimed. */
	if (!ctx_cpu_claim())
		return;
	if (sc->gen != si->gen) {
		si->err = -EAGAIN;
		goto out;
	}
	if (sc->active) {
		ctx_attribute(s, sc, ctx_cpu_context());
		ctx_settle(s, sc);
	}
	sc->has_counters = false;
	for (i = 0; i < s->nr_events; i++) {
		si->old[i] = sc->event[i];
		si->old[CTXCOUNT_MAX_EVENTS + i] = sc->retired[i];
		sc->retired[i] = NULL;
		sc->event[i] = si->event[i];
		if (!sc->event[i])
			continue;
		sc->has_counters = true;
		if (sc->active) {
			sc->last[i] = ctx_counter_read(sc->event[i]);
			sc->in[i] = sc->last[i];
		}
	}
	sc->filled = true;
	si->err = 0;
out:
	ctx_cpu_release();
}

/**
 * ctx_account_swap_events() - put new counters in for @s on @cpu
 * @s: the session
 * @cpu: the CPU
 * @event: the new counters (NULL for none), one per event of @s
 * @old: filled with the counters to release (2 * CTXCOUNT_MAX_EVENTS:
 *	those replaced and those ctx_account_cpu_down() took out), all
 *	NULL when nothing was swapped
 * @gen: @cpu's generation (&struct ctx_session_cpu.gen) read before the new
 *	counters were created
 *
 * What the old counters counted up to the swap stays in @s's totals.
 *
 * Context: process context, no locks needed: the callers of one session
 * are serialized (its fill work), ctx_account_cpu_down() runs on @cpu too.
 * Return: 0; -EAGAIN if @cpu went down since @gen was read, -ENXIO if it
 * is offline: nothing was swapped then, the caller releases @event.
 */
int ctx_account_swap_events(struct ctx_session *s, unsigned int cpu,
			    struct perf_event **event, struct perf_event **old,
			    unsigned int gen)
{
	struct ctx_swap_info si = {
		.s = s, .event = event, .old = old, .gen = gen, .err = -ENXIO,
	};
	int err;

	err = smp_call_function_single(cpu, ctx_swap_cpu, &si, 1);
	return err ?: si.err;
}

/* IPI: this CPU is going down; see ctx_account_cpu_down(). */
static void ctx_down_cpu(void *info)
{
	struct ctx_session *s = info;
	struct ctx_session_cpu *sc = this_cpu_ptr(s->cpu);
	unsigned int i;

	if (!ctx_cpu_claim())
		return;
	if (sc->active) {
		ctx_attribute(s, sc, ctx_cpu_context());
		ctx_settle(s, sc);
	}
	for (i = 0; i < s->nr_events; i++) {
		if (!sc->event[i])
			continue;
		/* Empty: ctx_swap_cpu() emptied it when it put @event in. */
		sc->retired[i] = sc->event[i];
		sc->event[i] = NULL;
	}
	sc->has_counters = false;
	sc->filled = false;
	sc->gen++;
	ctx_cpu_release();
}

/**
 * ctx_account_cpu_down() - @cpu is going offline: stop counting there
 * @s: the session
 * @cpu: the CPU, still online
 *
 * Attributes what is pending on @cpu and takes its counters out of use
 * (the perf core is about to detach them for good): they wait in
 * &struct ctx_session_cpu.retired until the next swap or the session's
 * end releases them. Releasing, like creating, may take the CPU hotplug
 * lock (static keys), which the caller's hotplug callback cannot.
 *
 * Context: CPU hotplug teardown callback of @cpu.
 */
void ctx_account_cpu_down(struct ctx_session *s, unsigned int cpu)
{
	smp_call_function_single(cpu, ctx_down_cpu, s, 1);
}
