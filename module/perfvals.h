/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What perf counted for a session: its root events (a task event per
 * thread of the target, inherited by perf to the target's children; or a
 * counter per CPU) and their values as perf stat reads them, between
 * START and STOP.
 */
#ifndef _CTXCOUNT_PERFVALS_H
#define _CTXCOUNT_PERFVALS_H

#include <linux/atomic.h>
#include <linux/ctxcount.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "account.h"
#include "counters.h"
#include "threads.h"
#include "totals.h"

struct task_struct;

/**
 * struct ctx_pv_val - an event's value as perf reports it
 * @count: the count
 * @enabled: time enabled (ns)
 * @running: time running (ns)
 */
struct ctx_pv_val {
	u64 count;
	u64 enabled;
	u64 running;
};

/**
 * struct ctx_pv_root - one root event
 * @event: the event, NULL when there is none (yet, or any more)
 * @base: its value when counting last began (START, or its creation)
 * @acc: what it and the events it replaced counted in earlier periods
 */
struct ctx_pv_root {
	struct perf_event *event;
	struct ctx_pv_val base;
	struct ctx_pv_val acc;
};

/**
 * struct ctx_perfvals - a session's root events and their values
 * @lock: serializes everything here (START, STOP, READ, the fill work)
 * @nr_events: events per thread or CPU
 * @system_wide: the roots are per CPU (else per thread)
 * @counting: between START (or an arm) and STOP
 * @nr_threads: task sessions: threads with roots
 * @max_threads: room in @root for so many threads
 * @root: [thread or CPU][event]
 * @progress: root events read or released so far: a request that waits
 *	for the session's worker waits for as long as this grows (a target's
 *	owner can hold each read up for as long as it likes)
 */
struct ctx_perfvals {
	struct mutex lock;	/* see above */
	unsigned int nr_events;
	bool system_wide;
	bool counting;
	unsigned int nr_threads;
	unsigned int max_threads;
	struct ctx_pv_root *root;
	atomic_t progress;
};

int ctx_pv_init(struct ctx_perfvals *pv, unsigned int nr_events,
		bool system_wide, unsigned int max_threads);
int ctx_pv_add_thread(struct ctx_perfvals *pv, struct task_struct *t,
		      const struct ctx_event_spec *spec, unsigned int flags,
		      struct ctx_counter_tag *tag, int *error);
struct perf_event *ctx_pv_first_event(struct ctx_perfvals *pv,
				      unsigned int i);
void ctx_pv_cpu_install(struct ctx_perfvals *pv, unsigned int cpu,
			struct perf_event **event);
void ctx_pv_start(struct ctx_perfvals *pv);
void ctx_pv_stop(struct ctx_perfvals *pv);
void ctx_pv_read(struct ctx_perfvals *pv, struct ctx_totals *tot,
		 struct ctx_cpu_totals *rows, unsigned int nr_rows,
		 struct ctx_thread_totals *thr);
bool ctx_pv_thread_counted(struct ctx_perfvals *pv, unsigned int n);
void ctx_pv_release(struct ctx_perfvals *pv);
void ctx_pv_destroy(struct ctx_perfvals *pv);

#endif /* _CTXCOUNT_PERFVALS_H */
