// SPDX-License-Identifier: GPL-2.0
/*
 * A system-wide session's counters change under its intervals: new ones
 * swapped in on a CPU, a CPU going down and a dead one's intervals
 * forgotten. Each change runs on the CPU it concerns (an IPI), the CPU
 * claimed, so that the hooks there never see half of it.
 *
 * Built without ftrace instrumentation, as account.c.
 */
#include <linux/atomic.h>
#include <linux/errno.h>
#include <linux/smp.h>

#include "account.h"
#include "account_cpu.h"
#include "cpustate.h"
#include "interval.h"

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
	ctx_interval_direct_decide(ac);
	ctx_interval_fast_update(ac);
	if (ac->active)
		ctx_interval_restart(ac);
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
		ctx_interval_close(ac, ctx_cpu_context());
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
 * is never closed there. Nothing is lost by dropping it: what its
 * boundaries attributed is in the sums, and in its thread's row too (each
 * boundary's ctx_account_settle() flushes to the row, and the CPU's mark
 * keeps up with the sums), so no row gets another's part when the CPU
 * returns; task context is perf's count less those. Left linked, the
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
