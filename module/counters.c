// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU kernel counters: creation and release. The read is inline in
 * counters.h because the hooks call it at every context boundary.
 */
#include <linux/ctxcount.h>
#include <linux/perf_event.h>

#include "counters.h"

/**
 * ctx_counter_create() - create one pinned counting event on a CPU
 * @spec: what to count
 * @cpu: an online CPU
 *
 * The counter is pinned so that it is never multiplexed: it either holds a
 * hardware counter for its whole life or goes to ERROR state, and then
 * time_running stops growing instead of a silently scaled count. It has no
 * sample period and no overflow handler: counting only.
 *
 * Context: process context, may sleep.
 * Return: the event, or an ERR_PTR() with the perf core's error (e.g.
 * -ENOENT when this PMU does not have the event).
 */
struct perf_event *ctx_counter_create(const struct ctx_event_spec *spec,
				      int cpu)
{
	struct perf_event_attr attr = {
		.type		= spec->type,
		.size		= sizeof(attr),
		.config		= spec->config,
		.pinned		= 1,
		.exclude_user	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv	= !!(spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
	};

	return perf_event_create_kernel_counter(&attr, cpu, NULL, NULL, NULL);
}

/**
 * ctx_counter_release() - release a counter from ctx_counter_create()
 * @event: the counter, or NULL
 *
 * Context: process context, may sleep; no hook may still read @event (the
 * caller waits for an RCU grace period after unpublishing it).
 */
void ctx_counter_release(struct perf_event *event)
{
	if (event)
		perf_event_release_kernel(event);
}
