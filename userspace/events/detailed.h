/* SPDX-License-Identifier: GPL-2.0 */
/*
 * detailed: perf stat's -d, -dd and -ddd, the hardware cache events
 * perf 6.1 appends to the event list (builtin-stat.c,
 * add_default_attributes(): detailed_attrs, very_detailed_attrs,
 * very_very_detailed_attrs), after -e's events or the default ones.
 */
#ifndef CTXSTAT_EVENTS_DETAILED_H
#define CTXSTAT_EVENTS_DETAILED_H

#include <stdbool.h>
#include <stddef.h>

#include "events/events.h"
#include "events/proof.h"

/* -d's levels: perf counts -dddd as -ddd. */
#define CXS_DETAILED_MAX	3

/*
 * perf's events of -d levels 1 to @level, in its order: their number,
 * with @names (if not NULL) pointing at their names.
 */
size_t cxs_detailed_events(int level, const char *const **names);

/*
 * Append the events of -d levels 1 to @level to @l, each with its :t
 * twin when @twins. Each is first opened with @open on ctxstat itself:
 * those the PMU has not got (perf's "not supported") share one counter,
 * never asked of the module and printed <not supported> as perf prints
 * them (with @verbose perf -v's warning), so that a machine without
 * them spends none of the module's counters on them. 0, or -1 with a
 * message in @err (@l unchanged).
 */
int cxs_events_add_detailed(struct cxs_event_list *l, int level, bool twins,
			    bool verbose, cxs_perf_open_fn open,
			    char *err, size_t errlen);

#endif
