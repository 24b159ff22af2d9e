/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_COUNTERS_H
#define _CTXCOUNT_COUNTERS_H

#include <linux/perf_event.h>
#include <linux/smp.h>
#include <linux/types.h>

#include "pmu_direct.h"

/**
 * struct ctx_event_spec - one requested event
 * @type: perf_event_attr.type (PERF_TYPE_*, or a dynamic PMU type)
 * @config: perf_event_attr.config
 * @flags: enum ctxcount_event_flag bits
 */
struct ctx_event_spec {
	u32 type;
	u64 config;
	u32 flags;
};

struct ctx_acct;

/**
 * struct ctx_counter_tag - what a session's task event is
 * @acct: the session's accounting
 * @index: the event's index in the session
 * @row: with per-thread rows, the row of the root thread (threads.h)
 *
 * A task event of a session, and every event perf inherits from it,
 * carries the module's overflow handler (never called: nothing samples)
 * and this as its context, which is how the hooks find a task's events
 * among the others of its perf context.
 */
struct ctx_counter_tag {
	struct ctx_acct *acct;
	unsigned int index;
	unsigned int row;
};

/* How ctx_counter_create() makes a task event. */
#define CTX_COUNTER_INHERIT		BIT(0)
#define CTX_COUNTER_ENABLE_ON_EXEC	BIT(1)

struct perf_event *ctx_counter_create(const struct ctx_event_spec *spec,
				      int cpu, struct task_struct *task,
				      unsigned int flags,
				      struct ctx_counter_tag *tag);
void ctx_counter_release(struct perf_event *event);
bool ctx_counter_pmu_ok(const struct perf_event *event);
void ctx_counter_mark(struct perf_event *event, struct perf_sample_data *data,
		      struct pt_regs *regs);

/**
 * ctx_counter_tag_of() - the session event @event counts for, if any
 * @event: an event of some perf context
 *
 * Context: under RCU, or with @event's context locked.
 * Return: its tag, or NULL when it is not a session's task event.
 */
static __always_inline struct ctx_counter_tag *
ctx_counter_tag_of(struct perf_event *event)
{
	if (READ_ONCE(event->overflow_handler) != ctx_counter_mark)
		return NULL;
	return READ_ONCE(event->overflow_handler_context);
}

/**
 * ctx_counter_running() - is @event counting on this CPU right now
 * @event: a counter of the current CPU or task
 *
 * A counter perf multiplexed out is INACTIVE, one whose CPU went offline
 * OFF; neither counts then.
 *
 * Return: true if @event is ACTIVE on the current CPU.
 */
static __always_inline bool ctx_counter_running(struct perf_event *event)
{
	return READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	       READ_ONCE(event->oncpu) == smp_processor_id();
}

/**
 * ctx_counter_live() - is @event's count moving on this CPU
 * @event: a counter of the current CPU or task
 *
 * ACTIVE and not stopped: perf stops a counter (PERF_HES_STOPPED, its count
 * brought up to date) while it moves it between hardware counters, e.g.
 * x86_pmu_enable() reassigning, with the event still ACTIVE; an NMI that
 * lands then must not combine the new index with the old prev_count.
 *
 * Return: true if the hardware holds part of the count.
 */
static __always_inline bool ctx_counter_live(struct perf_event *event)
{
	return READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	       !(READ_ONCE(event->hw.state) & PERF_HES_STOPPED);
}

bool ctx_counter_direct_check(struct perf_event *event);

/**
 * ctx_counter_read_direct() - ctx_counter_read() of a direct counter
 * @event: a counter ctx_counter_direct_check() accepted on this CPU
 *
 * Context: interrupts disabled, on the CPU @event belongs to.
 * Return: the counter value.
 */
static __always_inline u64 ctx_counter_read_direct(struct perf_event *event)
{
	if (likely(READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE) &&
	    likely(!(READ_ONCE(event->hw.state) & PERF_HES_STOPPED)))
		return ctx_pmu_read_direct(event);
	return local64_read(&event->count);
}

/**
 * ctx_counter_read() - current value of a counter of this CPU
 * @event: a counter of the current CPU or task
 * @direct: read the PMU's register (ctx_pmu_read_direct()): only for a
 *	counter ctx_counter_direct_check() accepted on this CPU
 *
 * Else perf_event_read_local(), which is not exported, in its core: fold
 * the hardware count into @event->count with the driver's read, then read
 * it. Either is safe with interrupts disabled and in NMI context: the
 * drivers' reads race with their own overflow NMI and update with
 * cmpxchg/xchg, and the direct read writes nothing.
 *
 * Context: interrupts disabled, on the CPU @event belongs to.
 * Return: the counter value; it stops moving when the counter is not
 * running (ctx_counter_running()).
 */
static __always_inline u64 ctx_counter_read(struct perf_event *event,
					    bool direct)
{
	if (!ctx_counter_live(event))
		return local64_read(&event->count);
	if (direct)
		return ctx_pmu_read_direct(event);
	event->pmu->read(event);
	return local64_read(&event->count);
}

#endif /* _CTXCOUNT_COUNTERS_H */
