/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribution of counter deltas to contexts: the accounting state of a
 * session, and the boundary code the hooks inline (what runs before the
 * counter read at an entry and after it at an exit is counted outside the
 * boundary, so it is kept short and free of calls); account.c's side of
 * it. What sessions do with that state is in the headers of the layer
 * above: account_ctl.h (set-up, START, STOP), account_cpu.h (counters
 * swapped, CPUs going down), account_probe.h (calibration's probe),
 * account_read.h (READ).
 */
#ifndef _CTXCOUNT_ACCOUNT_H
#define _CTXCOUNT_ACCOUNT_H

#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/jump_label.h>
#include <linux/list.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>

#include "attribute.h"
#include "counters.h"
#include "cpustate.h"

struct ctx_snap;
struct ctx_srctab;
struct ctx_threads;
struct ctx_taskset;

/**
 * struct ctx_acct - a session's accounting
 * @nr_events: number of events
 * @started: counting (between START and STOP); hooks read it locklessly
 * @armed: started with CTXCOUNT_TARGET_F_ENABLE_ON_EXEC and waiting for a
 *	monitored task's exec, which sets @started
 * @state_lock: serializes @armed and @started between the exec hook and
 *	STOP
 * @system_wide: per-CPU counters, every task is counted
 * @cpus: with @system_wide, where: counters exist and intervals open on
 *	these CPUs only (every possible CPU unless the session has a list)
 * @tag: per event, what the session's task events carry (counters.h)
 * @spec: the events
 * @cpu: per-CPU state
 * @snap: per CPU, READ's copy of @cpu's sums (READs are serialized)
 * @run_node: in the list of started system-wide sessions (RCU)
 * @probe_save: this CPU's state while calib.c probes it
 * @probe_was_open: the probe's interval was still open when closed
 * @probe_cpu: the CPU being probed
 * @halt_gp: RCU grace-period cookie of @run_node's last removal: hooks may
 *	be walking past it until that grace period ends
 * @estimate: move the estimate of what interrupts leave on the task's
 *	side out of the task bucket (CTXCOUNT_BUCKET_IRQ_ENTRY_EST)
 * @src: the source table, NULL without CTXCOUNT_SESSION_F_IRQ_SOURCES
 * @thr: the thread rows, NULL without CTXCOUNT_SESSION_F_PER_THREAD
 * @tasks: a task session's monitored tasks (NULL for system-wide ones):
 *	only their events open intervals (ctx_resolve_event())
 */
struct ctx_acct {
	unsigned int nr_events;
	bool started;
	bool armed;
	raw_spinlock_t state_lock;
	bool estimate;
	bool system_wide;
	cpumask_var_t cpus;
	struct ctx_counter_tag tag[CTXCOUNT_MAX_EVENTS];
	const struct ctx_event_spec *spec;
	struct ctx_acct_cpu __percpu *cpu;
	struct ctx_snap __percpu *snap;
	struct list_head run_node;
	struct ctx_acct_sums *probe_save;
	bool probe_was_open;
	int probe_cpu;
	unsigned long halt_gp;
	struct ctx_srctab *src;
	struct ctx_threads *thr;
	struct ctx_taskset *tasks;
};

/* On while at least one session is started: the hooks return at once else. */
DECLARE_STATIC_KEY_FALSE(ctx_acct_live);

/**
 * ctx_account_live() - is any session started
 *
 * Return: false if the hooks have nothing to do (a patched-out branch).
 */
static __always_inline bool ctx_account_live(void)
{
	return static_branch_unlikely(&ctx_acct_live);
}

/*
 * The out-of-line boundary: the registers first at an entry from the
 * task and last at an exit back to it, the reads through a driver in
 * between, so that what lies on the task's side of a register read does
 * not depend on which other events are read (calib.c's model).
 */
static __always_inline void ctx_account_boundary_slow(struct ctx_cpu_state *st,
						      unsigned int bucket,
						      bool entering)
{
	struct ctx_acct_cpu *ac;

	if (!entering) {
		hlist_for_each_entry(ac, &st->active, active_node)
			if (!ac->fast)
				ctx_attribute_driver(ac, bucket);
	}
	hlist_for_each_entry(ac, &st->active, active_node)
		ctx_attribute_direct(ac, bucket);
	if (entering) {
		hlist_for_each_entry(ac, &st->active, active_node)
			if (!ac->fast)
				ctx_attribute_driver(ac, bucket);
	}
}

/**
 * ctx_account_boundary() - a context boundary on this CPU
 * @st: this CPU's state
 * @bucket: the context the counts since the last boundary belong to
 *	(enum ctxcount_bucket < CTX_NR_CONTEXTS, or CTX_SRC)
 * @fast: @walk is clear of CTX_WALK_BITS: every interval is read
 *	inline, no call
 * @entering: a context is entered (else one is left)
 * @walk: with @fast, the walk word the caller loaded (another CPU may set
 *	bits in it since: START), else unused
 *
 * Inline: a call and its frame around the reads would be counted outside
 * the boundary.
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
static __always_inline void ctx_account_boundary(struct ctx_cpu_state *st,
						 unsigned int bucket,
						 bool fast, bool entering,
						 unsigned long walk)
{
	struct ctx_acct_cpu *ac;
	struct hlist_node *n;

	if (!fast) {
		ctx_account_boundary_slow(st, bucket, entering);
		return;
	}
	for (n = (struct hlist_node *)walk; n; n = n->next) {
		ac = hlist_entry(n, struct ctx_acct_cpu, active_node);
		ctx_attribute_fast(ac, bucket);
	}
}

void ctx_account_boundary_nmi(struct ctx_cpu_state *st, unsigned int bucket);
void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket);
void ctx_account_resolve(struct ctx_cpu_state *st);
void ctx_account_resolve_nmi(struct ctx_cpu_state *st);
void ctx_account_drop_current(void);
void ctx_account_settle(struct ctx_acct_cpu *ac);

#endif /* _CTXCOUNT_ACCOUNT_H */
