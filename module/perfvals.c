// SPDX-License-Identifier: GPL-2.0
/*
 * What perf counted for a session, read as perf stat reads it:
 * perf_event_read_value() of each root event, which adds the children perf
 * inherited from it (live ones, and what exited ones left in its child
 * count). A task session has a task event per event and thread of its
 * target (perf schedules them with the task: they hold a hardware counter
 * only while it runs, and compete for one as perf stat's do); a
 * system-wide session a counter per event and CPU, which the fill work
 * (cpuhp.c) replaces when a CPU comes back online: what the old one
 * counted is kept here.
 *
 * Everything here runs in process context, under the session's @lock.
 */
#include <linux/perf_event.h>
#include <linux/sched.h>
#include <linux/slab.h>

#include "perfvals.h"

/**
 * ctx_pv_init() - set up a session's root events, none yet
 * @pv: zeroed
 * @nr_events: events per thread or CPU
 * @system_wide: a counter per CPU, else a task event per thread
 * @max_threads: task sessions: room for so many threads
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ctx_pv_init(struct ctx_perfvals *pv, unsigned int nr_events,
		bool system_wide, unsigned int max_threads)
{
	unsigned int n = system_wide ? nr_cpu_ids : max_threads;

	mutex_init(&pv->lock);
	pv->nr_events = nr_events;
	pv->system_wide = system_wide;
	pv->max_threads = system_wide ? 0 : max_threads;
	pv->root = kvcalloc((size_t)n * nr_events, sizeof(*pv->root),
			    GFP_KERNEL_ACCOUNT);
	return pv->root ? 0 : -ENOMEM;
}

static struct ctx_pv_root *ctx_pv_row(struct ctx_perfvals *pv, unsigned int n)
{
	return &pv->root[(size_t)n * pv->nr_events];
}

static void ctx_pv_value(struct ctx_perfvals *pv, struct perf_event *event,
			 struct ctx_pv_val *v)
{
	v->enabled = 0;
	v->running = 0;
	v->count = event ? perf_event_read_value(event, &v->enabled,
						 &v->running) : 0;
	atomic_inc(&pv->progress);
}

static void ctx_pv_add(struct ctx_pv_val *acc, const struct ctx_pv_val *now,
		       const struct ctx_pv_val *base)
{
	acc->count += now->count - base->count;
	acc->enabled += now->enabled - base->enabled;
	acc->running += now->running - base->running;
}

/**
 * ctx_pv_add_thread() - task events for one more thread of the target
 * @pv: a task session's
 * @t: the thread
 * @spec: the events
 * @flags: CTX_COUNTER_* (counters.h)
 * @tag: per event, what the events carry
 * @error: per event, 0 or the perf core's error for the first thread (an
 *	event the PMU cannot give fails there); later threads' errors leave
 *	the thread out (it was exiting)
 *
 * Context: process context, may sleep; the target's exec_update_lock
 * held for reading.
 * Return: 0, or -ENOSPC when @pv has no room for another thread.
 */
int ctx_pv_add_thread(struct ctx_perfvals *pv, struct task_struct *t,
		      const struct ctx_event_spec *spec, unsigned int flags,
		      struct ctx_counter_tag *tag, int *error)
{
	struct ctx_pv_root *row;
	struct perf_event *ev;
	bool first = !pv->nr_threads;
	unsigned int i;

	if (pv->nr_threads == pv->max_threads)
		return -ENOSPC;
	row = ctx_pv_row(pv, pv->nr_threads);
	for (i = 0; i < pv->nr_events; i++) {
		if (!first && error[i])
			continue;
		ev = ctx_counter_create(&spec[i], -1, t, flags, &tag[i]);
		if (IS_ERR(ev)) {
			if (first)
				error[i] = PTR_ERR(ev);
			continue;
		}
		row[i].event = ev;
	}
	pv->nr_threads++;
	return 0;
}

/**
 * ctx_pv_first_event() - one root event of event @i
 * @pv: the session's
 * @i: the event
 *
 * What the perf core made of the request, for the comparison with its
 * proof: every root of an event was created from the same attributes.
 *
 * Context: process context; the session is not started.
 * Return: an event, or NULL when there is none.
 */
struct perf_event *ctx_pv_first_event(struct ctx_perfvals *pv, unsigned int i)
{
	unsigned int n, nr = pv->system_wide ? nr_cpu_ids : pv->nr_threads;

	for (n = 0; n < nr; n++)
		if (ctx_pv_row(pv, n)[i].event)
			return ctx_pv_row(pv, n)[i].event;
	return NULL;
}

/**
 * ctx_pv_cpu_install() - @cpu's new counters are in use
 * @pv: a system-wide session's
 * @cpu: the CPU
 * @event: its new counters, one per event (NULL for none)
 *
 * What the counters they replace counted is kept; those are released
 * after this. A new counter counts from its creation.
 *
 * Context: process context, may sleep (the fill work).
 */
void ctx_pv_cpu_install(struct ctx_perfvals *pv, unsigned int cpu,
			struct perf_event **event)
{
	struct ctx_pv_root *row = ctx_pv_row(pv, cpu);
	struct ctx_pv_val now;
	unsigned int i;

	mutex_lock(&pv->lock);
	for (i = 0; i < pv->nr_events; i++) {
		if (pv->counting && row[i].event) {
			ctx_pv_value(pv, row[i].event, &now);
			ctx_pv_add(&row[i].acc, &now, &row[i].base);
		}
		row[i].event = event[i];
		memset(&row[i].base, 0, sizeof(row[i].base));
	}
	mutex_unlock(&pv->lock);
}

static unsigned int ctx_pv_rows(const struct ctx_perfvals *pv)
{
	return pv->system_wide ? nr_cpu_ids : pv->nr_threads;
}

/**
 * ctx_pv_start() - counting begins (START, or an arm for an exec)
 * @pv: the session's
 *
 * Context: process context, may sleep.
 */
void ctx_pv_start(struct ctx_perfvals *pv)
{
	struct ctx_pv_root *r;
	unsigned int n, i;

	mutex_lock(&pv->lock);
	for (n = 0; n < ctx_pv_rows(pv); n++) {
		r = ctx_pv_row(pv, n);
		for (i = 0; i < pv->nr_events; i++)
			ctx_pv_value(pv, r[i].event, &r[i].base);
	}
	pv->counting = true;
	mutex_unlock(&pv->lock);
}

/**
 * ctx_pv_stop() - counting ends: what was counted since START is kept
 * @pv: the session's
 *
 * Context: process context, may sleep.
 */
void ctx_pv_stop(struct ctx_perfvals *pv)
{
	struct ctx_pv_val now;
	struct ctx_pv_root *r;
	unsigned int n, i;

	mutex_lock(&pv->lock);
	for (n = 0; n < ctx_pv_rows(pv); n++) {
		r = ctx_pv_row(pv, n);
		for (i = 0; i < pv->nr_events; i++) {
			if (!r[i].event)
				continue;
			ctx_pv_value(pv, r[i].event, &now);
			ctx_pv_add(&r[i].acc, &now, &r[i].base);
		}
	}
	pv->counting = false;
	mutex_unlock(&pv->lock);
}

/* What root @r counted: earlier periods, and this one if counting. */
static void ctx_pv_total(struct ctx_perfvals *pv, struct ctx_pv_root *r,
			 struct ctx_pv_val *v)
{
	struct ctx_pv_val now;

	*v = r->acc;
	if (pv->counting && r->event) {
		ctx_pv_value(pv, r->event, &now);
		ctx_pv_add(v, &now, &r->base);
	}
}

static void ctx_pv_put(struct ctx_totals *t, unsigned int i,
		       const struct ctx_pv_val *v)
{
	t->full[i] += v->count;
	t->enabled[i] += v->enabled;
	t->running[i] += v->running;
}

/**
 * ctx_pv_read() - add what perf counted to READ's totals
 * @pv: the session's
 * @tot: the totals, their full counts and times zero
 * @rows: a system-wide session's per-CPU rows, or NULL
 * @nr_rows: the rows
 * @thr: a task session's per-thread totals, one per thread, or NULL
 *
 * Task sessions add every thread's, into its @thr too; system-wide
 * sessions every CPU's, into its row too. Each value is read once, so
 * the rows add up to @tot exactly.
 *
 * Context: process context, may sleep.
 */
void ctx_pv_read(struct ctx_perfvals *pv, struct ctx_totals *tot,
		 struct ctx_cpu_totals *rows, unsigned int nr_rows,
		 struct ctx_thread_totals *thr)
{
	struct ctx_pv_root *r;
	unsigned int n, i, k = 0;
	struct ctx_pv_val v;

	mutex_lock(&pv->lock);
	for (n = 0; n < ctx_pv_rows(pv); n++) {
		r = ctx_pv_row(pv, n);
		while (rows && k < nr_rows && rows[k].cpu < n)
			k++;
		for (i = 0; i < pv->nr_events; i++) {
			ctx_pv_total(pv, &r[i], &v);
			ctx_pv_put(tot, i, &v);
			if (rows && k < nr_rows && rows[k].cpu == n)
				ctx_pv_put(&rows[k].tot, i, &v);
			if (thr && !pv->system_wide)
				ctx_pv_put(&thr[n].tot, i, &v);
		}
	}
	mutex_unlock(&pv->lock);
}

/**
 * ctx_pv_thread_counted() - did thread @n of a task session get events
 * @pv: a task session's
 * @n: the thread, below @pv->nr_threads
 *
 * A thread that was exiting when SESSION_NEW made its events got none,
 * as perf stat -p leaves it out.
 *
 * Context: process context; the session's events not yet released.
 * Return: true if it has a root event.
 */
bool ctx_pv_thread_counted(struct ctx_perfvals *pv, unsigned int n)
{
	struct ctx_pv_root *r = ctx_pv_row(pv, n);
	unsigned int i;

	for (i = 0; i < pv->nr_events; i++)
		if (r[i].event)
			return true;
	return false;
}

/**
 * ctx_pv_release() - release the task events
 * @pv: the session's, halted, with no hook reading its events (an RCU
 *	grace period after the halt)
 *
 * A system-wide session's counters are the accounting's (account.c).
 *
 * Context: process context, may sleep.
 */
void ctx_pv_release(struct ctx_perfvals *pv)
{
	struct ctx_pv_root *r;
	unsigned int n, i;

	if (!pv->root || pv->system_wide)
		return;
	for (n = 0; n < pv->nr_threads; n++) {
		r = ctx_pv_row(pv, n);
		for (i = 0; i < pv->nr_events; i++) {
			ctx_counter_release(r[i].event);
			r[i].event = NULL;
			atomic_inc(&pv->progress);
		}
	}
}

/**
 * ctx_pv_destroy() - free what ctx_pv_init() allocated
 * @pv: released
 */
void ctx_pv_destroy(struct ctx_perfvals *pv)
{
	kvfree(pv->root);
	pv->root = NULL;
}
