/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribution of counter deltas to contexts: the accounting state of a
 * session, and the boundary code the hooks inline (what runs before the
 * counter read at an entry and after it at an exit is counted outside the
 * boundary, so it is kept short and free of calls).
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
#include "taskset.h"

/* Contexts that have a bucket of their own on the hot path. */
#define CTX_NR_CONTEXTS	(CTXCOUNT_BUCKET_SOFTIRQ_RCU + 1)
/* ... and the rows of a session's sums: those, and CTX_SRC's. */
#define CTX_NR_ROWS	(CTX_SRC + 1)

struct ctx_srctab;

/**
 * struct ctx_totals - what a session has counted (summed over CPUs)
 * @enabled: ns monitored tasks were on a CPU (same for every event)
 * @full: per event, everything counted while a monitored task was on a CPU
 * @running: per event, ns of @enabled the counter was running
 * @buckets: per event, @full split by context (enum ctxcount_bucket)
 * @direct_cpus: per event, CPUs that read its counter from the PMU's
 *	registers (the others go through the driver's read)
 * @excursions: interrupts the monitored tasks took, by kind (enum
 *	ctx_excursion)
 */
struct ctx_totals {
	u64 enabled;
	u64 full[CTXCOUNT_MAX_EVENTS];
	u64 running[CTXCOUNT_MAX_EVENTS];
	u64 buckets[CTXCOUNT_MAX_EVENTS][__CTXCOUNT_BUCKET_LAST];
	u32 direct_cpus[CTXCOUNT_MAX_EVENTS];
	u64 excursions[CTX_NR_EXC];
};

/**
 * struct ctx_acct_slot - one event of a session on one CPU
 * @event: the counter; NULL when the event failed, while the CPU is
 *	offline, or when a CPU that came online could not get one
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
 *	moved out at the window's exit and whenever @full is brought up to
 *	date (sources.h), so it is empty in every copy READ takes.
 * @enabled: ns monitored tasks were on this CPU with counters
 * @full: per event, everything counted on this CPU
 * @running: per event, ns of @enabled the counter was running
 * @excursions: per kind, excursions from the monitored tasks' context
 */
struct ctx_acct_sums {
	u64 buckets[CTX_NR_ROWS][CTXCOUNT_MAX_EVENTS];
	u64 enabled;
	u64 full[CTXCOUNT_MAX_EVENTS];
	u64 running[CTXCOUNT_MAX_EVENTS];
	u64 excursions[CTX_NR_EXC];
};

/**
 * struct ctx_acct_cpu - a session's accounting on one CPU
 * @active_node: in this CPU's list of open intervals (&struct
 *	ctx_cpu_state.active)
 * @nr_events: the session's number of events
 * @direct: bit i: event i is read from the PMU's registers on this CPU
 *	(ctx_counter_read()); checked against the driver's read when the
 *	counter came into use here
 * @fast: every event has a counter, read from its register: the hooks'
 *	fast path (&struct ctx_cpu_state.walk) can take this CPU's intervals
 * @active: an interval is open on this CPU: counts are being attributed
 * @slot: per event, the counter and its last value
 * @slot_end: the end of @slot's events
 * @sum: what was counted
 * @in: per event, the counter value when @sum.full was last brought up to
 *	date
 * @clock_in: local_clock() when @sum.enabled was last brought up to date
 * @exc_in: this CPU's excursion counts (cpustate.h) at the same moment
 * @retired: counters taken out of use when the CPU went down, to be
 *	released (not from the hotplug callback: see ctx_account_cpu_down())
 * @gen: how many times the CPU went down during the session
 * @filled: @slot's counters were created for the CPU's current online period
 * @has_counters: at least one counter is there; time spent without any
 *	(the CPU going down or coming up) is not @sum.enabled
 * @seq: odd while an interval is open or @slot changes: READ copies the
 *	state of a CPU whose @seq is even and did not move without an IPI
 * @src: the session's source table, NULL without sources (sources.h)
 * @src_rows: with @src, this CPU's source rows (sources.h)
 * @src_key: the source whose row this CPU looked up last (0: none)
 * @src_row: that row
 *
 * Only the CPU itself writes this, with interrupts disabled and the CPU
 * claimed (ctx_cpu_claim()), so NMIs cannot interleave.
 */
struct ctx_acct_cpu {
	struct hlist_node active_node;
	u8 nr_events;
	u16 direct;
	bool fast;
	bool active;
	struct ctx_acct_slot slot[CTXCOUNT_MAX_EVENTS];
	struct ctx_acct_slot *slot_end;
	struct ctx_acct_sums sum;
	u64 in[CTXCOUNT_MAX_EVENTS];
	u64 clock_in;
	u64 exc_in[CTX_NR_EXC];
	struct perf_event *retired[CTXCOUNT_MAX_EVENTS];
	unsigned int gen;
	bool filled;
	bool has_counters;
	unsigned int seq;
	struct ctx_srctab *src;
	u64 *src_rows;
	u32 src_key;
	u32 src_row;
};

/**
 * struct ctx_snap - what one CPU counted for a session, copied at READ
 * @sum: its sums
 * @est: per event, the part of @sum's task bucket estimated to be what
 *	this CPU's excursions left there (CTXCOUNT_BUCKET_IRQ_ENTRY_EST)
 * @direct: bit i: event i has a counter there, read from the registers
 * @src_rows: with sources, the copy of that CPU's source rows
 */
struct ctx_snap {
	struct ctx_acct_sums sum;
	u64 est[CTXCOUNT_MAX_EVENTS];
	u16 direct;
	u64 *src_rows;
};

/**
 * struct ctx_cpu_totals - what a session counted on one CPU, for READ
 * @cpu: the CPU
 * @tot: its totals (@direct_cpus: 0 or 1)
 * @src: with sources, room for its source rows (sources.h), else NULL
 */
struct ctx_cpu_totals {
	unsigned int cpu;
	struct ctx_totals tot;
	u64 *src;
};

/**
 * struct ctx_acct - a session's accounting
 * @nr_events: number of events
 * @started: counting (between START and STOP); hooks read it locklessly
 * @armed: started with CTXCOUNT_TARGET_F_ENABLE_ON_EXEC and waiting for a
 *	monitored task's exec, which sets @started
 * @state_lock: serializes @armed and @started between the exec hook and
 *	STOP
 * @system_wide: every task but the idle tasks is monitored
 * @cpus: with @system_wide, where: counters exist and intervals open on
 *	these CPUs only (every possible CPU unless the session has a list)
 * @tasks: else the monitored tasks
 * @cpu: per-CPU state
 * @snap: per CPU, READ's copy of @cpu's sums (READs are serialized)
 * @run_node: in the list of started sessions (RCU, for sched_switch)
 * @probe_save: this CPU's state while calib.c probes it
 * @probe_reset: the probe turned the hooks on: this CPU's context stack
 *	is to be rebuilt
 * @probe_was_open: the probe's interval was still open when closed
 * @probe_cpu: the CPU being probed
 * @halt_gp: RCU grace-period cookie of @run_node's last removal: hooks may
 *	be walking past it until that grace period ends
 * @estimate: move the estimate of what interrupts leave on the task's
 *	side out of the task bucket (CTXCOUNT_BUCKET_IRQ_ENTRY_EST)
 * @residual: per excursion kind and event, what one excursion leaves
 *	there (calib.c)
 * @src: the source table, NULL without CTXCOUNT_SESSION_F_IRQ_SOURCES
 */
struct ctx_acct {
	unsigned int nr_events;
	bool started;
	bool armed;
	raw_spinlock_t state_lock;
	bool estimate;
	bool system_wide;
	cpumask_var_t cpus;
	struct ctx_taskset *tasks;
	struct ctx_acct_cpu __percpu *cpu;
	struct ctx_snap __percpu *snap;
	struct list_head run_node;
	struct ctx_acct_sums *probe_save;
	bool probe_reset;
	bool probe_was_open;
	int probe_cpu;
	unsigned long halt_gp;
	u64 residual[CTX_NR_EXC][CTXCOUNT_MAX_EVENTS];
	struct ctx_srctab *src;
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

/**
 * ctx_account_boundary() - a context boundary on this CPU
 * @st: this CPU's state
 * @bucket: the context the counts since the last boundary belong to
 *	(enum ctxcount_bucket < CTX_NR_CONTEXTS, or CTX_SRC)
 * @fast: @st->walk is clear of CTX_WALK_SLOW: every interval is read
 *	inline, no call
 *
 * Inline: a call and its frame around the reads would be counted outside
 * the boundary.
 *
 * Context: interrupts disabled or NMI, CPU claimed.
 */
static __always_inline void ctx_account_boundary(struct ctx_cpu_state *st,
						 unsigned int bucket,
						 bool fast)
{
	struct ctx_acct_cpu *ac;
	struct hlist_node *n;

	if (!fast) {
		hlist_for_each_entry(ac, &st->active, active_node)
			ctx_attribute(ac, bucket);
		return;
	}
	for (n = (struct hlist_node *)st->walk; n; n = n->next) {
		ac = hlist_entry(n, struct ctx_acct_cpu, active_node);
		ctx_attribute_fast(ac, bucket);
	}
}

/**
 * ctx_account_monitors() - does @a count @task on this CPU
 * @a: the accounting state
 * @task: a task
 *
 * The set stores task_struct pointers, so a recycled pid never matches.
 * Idle tasks never match, nor does any task on a CPU a system-wide
 * session does not count.
 *
 * Context: any context but NMI, preemption disabled.
 * Return: true if @a monitors @task here.
 */
static inline bool ctx_account_monitors(struct ctx_acct *a,
					struct task_struct *task)
{
	if (a->system_wide)
		return !is_idle_task(task) &&
		       cpumask_test_cpu(raw_smp_processor_id(), a->cpus);
	return ctx_taskset_has(a->tasks, task);
}

/**
 * ctx_account_armed() - is @a waiting for a monitored task's exec
 * @a: the accounting state
 *
 * Context: any; a hint without @a's state lock.
 * Return: true if ctx_account_arm() armed it and no exec started it yet.
 */
static inline bool ctx_account_armed(const struct ctx_acct *a)
{
	return READ_ONCE(a->armed);
}

void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket);

int ctx_account_init(struct ctx_acct *a, unsigned int nr_events,
		     struct ctx_taskset *tasks, bool system_wide,
		     const struct cpumask *cpus, bool estimate,
		     unsigned int max_sources);
bool ctx_account_cpu_listed(const struct ctx_acct *a, unsigned int cpu);
void ctx_account_release_counters(struct ctx_acct *a);
void ctx_account_destroy(struct ctx_acct *a);
struct perf_event *ctx_account_first_counter(struct ctx_acct *a,
					     unsigned int i);
bool ctx_account_running(struct ctx_acct *a);
bool ctx_account_cpu_filled(struct ctx_acct *a, unsigned int cpu,
			    unsigned int *gen);
void ctx_account_start(struct ctx_acct *a);
void ctx_account_arm(struct ctx_acct *a);
void ctx_account_exec_start(struct ctx_acct *a);
void ctx_account_drop_current(struct ctx_acct *a);
void ctx_account_halt(struct ctx_acct *a);
void ctx_account_settle(struct ctx_acct_cpu *ac);
int ctx_account_read(struct ctx_acct *a, struct ctx_totals *sum,
		     u64 *src_sum, struct ctx_cpu_totals *rows,
		     unsigned int *nr_rows);
int ctx_account_swap_events(struct ctx_acct *a, unsigned int cpu,
			    struct perf_event **event, struct perf_event **old,
			    unsigned int gen);
void ctx_account_cpu_down(struct ctx_acct *a, unsigned int cpu);
void ctx_account_cpu_dead(unsigned int cpu);

int ctx_account_probe_begin(struct ctx_acct *a);
void ctx_account_probe_open(struct ctx_acct *a);
void ctx_account_probe_sample(struct ctx_acct *a, u64 *task, u64 *exc);
bool ctx_account_probe_close(struct ctx_acct *a);
void ctx_account_probe_end(struct ctx_acct *a);

#endif /* _CTXCOUNT_ACCOUNT_H */
