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

#include "counters.h"
#include "cpustate.h"

/* Contexts that have a bucket of their own on the hot path. */
#define CTX_NR_CONTEXTS	(CTXCOUNT_BUCKET_SOFTIRQ_RCU + 1)
/* ... and the rows of a session's sums: those, and CTX_SRC's. */
#define CTX_NR_ROWS	(CTX_SRC + 1)

struct ctx_snap;
struct ctx_srctab;
struct ctx_threads;
struct ctx_taskset;

/**
 * struct ctx_acct_slot - one event of a session on one CPU
 * @event: the counter read at this CPU's boundaries: the current task's
 *	event (task sessions, while an interval is open), or the CPU's
 *	counter (system-wide sessions); NULL when there is none
 * @last: its value at the last context boundary
 */
struct ctx_acct_slot {
	struct perf_event *event;
	u64 last;
};

/**
 * struct ctx_acct_sums - what a session counted on one CPU
 * @buckets: per context and event, what was counted; context-major, so
 *	that one boundary touches one cache line for up to 8 events. Row
 *	CTX_SRC holds what the current handler window counted so far; it is
 *	moved out at the window's exit and whenever an interval is settled
 *	(sources.h), so it is empty in every copy READ takes. The task row
 *	is counted too (calib.c's probe reads it) but READ derives the task
 *	bucket from perf's count.
 * @excursions: per kind and path, excursions from the monitored tasks'
 *	context (&struct ctx_cpu_state.excursions)
 * @exc_reads: the same excursions' other register reads
 *	(&struct ctx_cpu_state.exc_reads)
 */
struct ctx_acct_sums {
	u64 buckets[CTX_NR_ROWS][CTXCOUNT_MAX_EVENTS];
	u64 excursions[CTX_NR_EXC_ALL];
	u64 exc_reads[CTX_NR_EXC_ALL];
};

/**
 * struct ctx_acct_cpu - a session's accounting on one CPU
 * @active_node: in this CPU's list of open intervals (&struct
 *	ctx_cpu_state.active)
 * @acct: the session's accounting
 * @nr_events: the session's number of events
 * @direct: bit i: event i is read from the PMU's registers on this CPU
 *	(ctx_counter_read()); checked against the driver's read the first
 *	time its counter was live at an open here
 * @checked: bit i: @direct's bit i is decided
 * @fast: every event has a counter, read from its register: the hooks'
 *	fast path (&struct ctx_cpu_state.walk) can take this CPU's intervals
 * @active: an interval is open on this CPU: counts are being attributed
 * @task: the interval is the current task's (closed at a switch), not a
 *	system-wide session's (open from START to STOP)
 * @found: resolution: bit i: the current task's event i was found
 * @carry: the task interval was closed with its task inside a softirq
 *	vector it resumes later (PREEMPT_RT): reopened for that task with
 *	the same events, it continues from its last reads
 * @carry_task: that task (compared, never dereferenced)
 * @stage_node: resolution: in the CPU's list of intervals being found
 * @slot: per event, the counter and its last value
 * @slot_end: the end of @slot's events
 * @sum: what was counted
 * @exc_in: this CPU's excursion counts (cpustate.h) when @sum was last
 *	settled
 * @reads_in: the same for their reads
 * @retired: counters taken out of use when the CPU went down, to be
 *	released (not from the hotplug callback: see ctx_account_cpu_down())
 * @gen: how many times the CPU went down during the session
 * @filled: @slot's counters were created for the CPU's current online
 *	period (system-wide sessions)
 * @seq: odd while an interval is open or @slot changes: READ copies the
 *	state of a CPU whose @seq is even and did not move without an IPI
 * @src: the session's source table, NULL without sources (sources.h)
 * @src_rows: with @src, this CPU's source rows (sources.h)
 * @src_key: the source whose row this CPU looked up last (0: none)
 * @src_row: that row
 * @thr_row: with per-thread rows, the open interval's row (threads.h)
 *
 * Only the CPU itself writes this, with interrupts disabled and the CPU
 * claimed (ctx_cpu_claim()), so NMIs cannot interleave.
 */
struct ctx_acct_cpu {
	struct hlist_node active_node;
	struct ctx_acct *acct;
	u8 nr_events;
	u16 direct;
	u16 checked;
	bool fast;
	bool active;
	bool task;
	u16 found;
	bool carry;
	const struct task_struct *carry_task;
	struct hlist_node stage_node;
	struct ctx_acct_slot slot[CTXCOUNT_MAX_EVENTS];
	struct ctx_acct_slot *slot_end;
	struct ctx_acct_sums sum;
	u64 exc_in[CTX_NR_EXC_ALL];
	u64 reads_in[CTX_NR_EXC_ALL];
	struct perf_event *retired[CTXCOUNT_MAX_EVENTS];
	unsigned int gen;
	bool filled;
	unsigned int seq;
	struct ctx_srctab *src;
	u64 *src_rows;
	u32 src_key;
	u32 src_row;
	u32 thr_row;
};

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

void ctx_attribute_any(struct ctx_acct_cpu *ac, unsigned int bucket);
void ctx_attribute_driver(struct ctx_acct_cpu *ac, unsigned int bucket);

/*
 * ctx_attribute() of an interval whose counters are all there and read
 * from their registers (@ac->fast): no call, so that a hook that only
 * meets such intervals is a leaf function without a frame (what runs
 * before the read at an entry and after it at an exit is counted outside
 * the boundary).
 */
static __always_inline void ctx_attribute_fast(struct ctx_acct_cpu *ac,
					       unsigned int bucket)
{
	struct ctx_acct_slot *sl = ac->slot, *end = ac->slot_end;
	u64 *b = ac->sum.buckets[bucket];
	u64 now;

	do {
		now = ctx_counter_read_direct(sl->event);
		*b++ += now - sl->last;
		sl->last = now;
	} while (++sl < end);
}

/* The counters of @ac read from their registers, inline. */
static __always_inline void ctx_attribute_direct(struct ctx_acct_cpu *ac,
						 unsigned int bucket)
{
	u64 *b = ac->sum.buckets[bucket];
	struct ctx_acct_slot *sl;
	unsigned long m;
	unsigned int i;
	u64 now;

	if (likely(ac->fast)) {
		ctx_attribute_fast(ac, bucket);
		return;
	}
	for (m = ac->direct; m; m &= m - 1) {
		i = __ffs(m);
		sl = &ac->slot[i];
		if (!sl->event)
			continue;
		now = ctx_counter_read_direct(sl->event);
		b[i] += now - sl->last;
		sl->last = now;
	}
}

/*
 * Attribute the counts since the last boundary to @bucket, for one
 * interval: outside the hooks' path (account.c).
 */
static __always_inline void ctx_attribute(struct ctx_acct_cpu *ac,
					  unsigned int bucket)
{
	if (likely(ac->fast))
		ctx_attribute_fast(ac, bucket);
	else
		ctx_attribute_any(ac, bucket);
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
