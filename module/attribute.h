/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attribution of one interval's counter deltas to a context: a
 * session's per-CPU state (struct ctx_acct_cpu) and the reads that add
 * what its counters counted since the last boundary to one bucket. The
 * lowest part of the hot path above the counters: the boundary code
 * (account.c) and the handler windows (sources.h) both use it.
 */
#ifndef _CTXCOUNT_ATTRIBUTE_H
#define _CTXCOUNT_ATTRIBUTE_H

#include <linux/bitops.h>
#include <linux/ctxcount.h>
#include <linux/list.h>
#include <linux/types.h>

#include "counters.h"
#include "cpustate.h"

struct ctx_acct;
struct ctx_srctab;
struct perf_event;
struct task_struct;

/* Contexts that have a bucket of their own on the hot path. */
#define CTX_NR_CONTEXTS	(CTXCOUNT_BUCKET_SOFTIRQ_RCU + 1)
/* ... and the rows of a session's sums: those, and CTX_SRC's. */
#define CTX_NR_ROWS	(CTX_SRC + 1)

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

#endif /* _CTXCOUNT_ATTRIBUTE_H */
