/* SPDX-License-Identifier: GPL-2.0 */
/*
 * tracepoint: perf's tracepoint events, "sys:event[:modifiers]", either
 * part a glob ("irq:*", "sched:sched_wakeup*", "*:softirq_entry"), their
 * ids from tracefs (events/<sys>/<event>/id) where perf reads them, and
 * perf list's lines for them. $CTX_SYSFS_ROOT replaces /sys (tests).
 */
#ifndef CTXSTAT_EVENTS_TRACEPOINT_H
#define CTXSTAT_EVENTS_TRACEPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "events/events.h"

/*
 * Is @spec a tracepoint's: "a:b" or "a:b:mods" with no '/', where a is
 * not an event ctxstat knows by name ("cycles:u" has modifiers, not an
 * event, after its colon).
 */
bool cxs_tracepoint_syntax(const char *spec);

/*
 * Add the tracepoints @spec names to @l, a glob's in the order tracefs
 * lists them (as perf adds them), each named as perf prints it:
 * "sys:event", and ":t" after it for ctxstat's modifier (perf drops a
 * tracepoint's modifiers from its name). 0, or -1 with perf's reason in
 * @err (unknown tracepoint, no access to tracefs, no tracefs).
 */
int cxs_tracepoint_add(struct cxs_event_list *l, const char *spec,
		       char *err, size_t errlen);

/*
 * perf list's tracepoint lines ("  sched:sched_switch ... [Tracepoint
 * event]"), sorted, those with an id only; a line saying why when
 * tracefs cannot be read.
 */
void cxs_tracepoints_print(FILE *f);

#endif
