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

struct perf_event *ctx_counter_create(const struct ctx_event_spec *spec,
				      int cpu);
void ctx_counter_release(struct perf_event *event);

/**
 * ctx_counter_running() - is @event counting on this CPU right now
 * @event: a per-CPU counter of the current CPU
 *
 * A pinned counter that lost its hardware counter goes to ERROR state and
 * a counter whose CPU went offline to OFF; neither counts any more.
 *
 * Return: true if @event is ACTIVE on the current CPU.
 */
static __always_inline bool ctx_counter_running(struct perf_event *event)
{
	return READ_ONCE(event->state) == PERF_EVENT_STATE_ACTIVE &&
	       READ_ONCE(event->oncpu) == smp_processor_id();
}

/**
 * ctx_counter_per_task() - can perf count @event's PMU per task
 * @event: a counter
 *
 * PMUs without a task context (uncore, RAPL, ...) count for a whole CPU or
 * package, whatever runs there: perf gives them only to users allowed
 * CPU-wide events, so the module does the same.
 *
 * Return: true if @event's PMU has a task context.
 */
static inline bool ctx_counter_per_task(const struct perf_event *event)
{
	return event->pmu->task_ctx_nr != perf_invalid_context;
}

/**
 * ctx_counter_type_unprivileged() - may a caller without CAP_PERFMON ask
 * for this event type
 * @type: perf_event_attr.type
 *
 * The perf core's own checks for tracepoint (including ftrace:function,
 * which traces every kernel function), kprobe, uprobe and breakpoint
 * events look at the current task, and the module creates its counters
 * from a kernel thread that has every capability. Those types are
 * refused before anything is created; a dynamic type is checked once its
 * PMU is known (ctx_counter_unprivileged()).
 *
 * Return: true if the type may be tried.
 */
static inline bool ctx_counter_type_unprivileged(u32 type)
{
	return type != PERF_TYPE_TRACEPOINT && type != PERF_TYPE_BREAKPOINT;
}

/**
 * ctx_counter_unprivileged() - may a caller without CAP_PERFMON have @event
 * @event: a counter
 * @type: the type that was asked for (the perf core may rewrite
 *	@event->attr.type: in 6.12 a task-clock event reports its PMU's
 *	dynamic type)
 *
 * The generic types (hardware, software, cache, raw) on a PMU with a task
 * context, and dynamic types only on a CPU's own hardware PMU: never
 * uncore-like PMUs (see ctx_counter_per_task()) or the software PMUs that
 * come with kprobes and uprobes.
 *
 * Return: true if an unprivileged caller may count @event.
 */
static inline bool ctx_counter_unprivileged(const struct perf_event *event,
					    u32 type)
{
	if (!ctx_counter_per_task(event))
		return false;
	if (type >= PERF_TYPE_MAX)
		return event->pmu->task_ctx_nr == perf_hw_context;
	return ctx_counter_type_unprivileged(type);
}

/**
 * ctx_counter_live() - is @event's count moving on this CPU
 * @event: a per-CPU counter of the current CPU
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
	if (!ctx_counter_live(event))
		return local64_read(&event->count);
	return ctx_pmu_read_direct(event);
}

/**
 * ctx_counter_read() - current value of a counter of this CPU
 * @event: a per-CPU counter created for the current CPU
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
