/* SPDX-License-Identifier: GPL-2.0 */
/*
 * events: event names with modifiers ("cycles:tu") to perf type/config and
 * ctxcount flags, and the dedupe of events into kernel counters.
 */
#ifndef CTXSTAT_EVENTS_EVENTS_H
#define CTXSTAT_EVENTS_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <linux/ctxcount.h>
#include <linux/perf_event.h>

#define CXS_EVENT_NAME_MAX	64
#define CXS_MAX_EVENTS		64	/* displayed events; counters are fewer */

/*
 * perf's tool events: what perf stat measures itself, not the kernel.
 * Their counter is never asked of the module; the runner fills it.
 */
enum cxs_tool {
	CXS_TOOL_NONE,
	CXS_TOOL_DURATION_TIME,	/* the run's wall-clock time, ns */
};

struct cxs_event {
	char name[CXS_EVENT_NAME_MAX];	/* as the user wrote it */
	uint32_t type;			/* PERF_TYPE_* */
	uint64_t config;
	uint32_t flags;			/* CTXCOUNT_EVENT_F_* */
	bool task_only;			/* :t */
	enum cxs_tool tool;
	int counter;			/* index in cxs_event_list.counters */
	/*
	 * perf's group ("{a,b}"): the index in the list of its first event
	 * when the group has two events or more, else -1; @weak_group: its
	 * :W (events/group.c).
	 */
	int group;
	bool weak_group;
	/* one of perf stat's default events: perf 7.x prints its metric */
	bool perf_default;
};

/* What the kernel counts: events differing only in :t share one. */
struct cxs_counter {
	uint32_t type;
	uint64_t config;
	uint32_t flags;
	enum cxs_tool tool;	/* never asked of the module when set */
	/*
	 * The errno perf_event_open(2) gave its event before the runs: as
	 * perf opens its group (events/group.c), or -d's check that the
	 * PMU has it (events/detailed.c): never asked for, <not supported>.
	 */
	int open_err;
};

struct cxs_event_list {
	struct cxs_event ev[CXS_MAX_EVENTS];
	int nr;
	struct cxs_counter counters[CTXCOUNT_MAX_EVENTS];
	int nr_counters;
};

/* Parse one "name[:modifiers]". Returns 0 or -1 with a message in @err. */
int cxs_event_parse(const char *spec, struct cxs_event *ev,
		    char *err, size_t errlen);

/* Is @name (no modifiers) an event ctxstat knows: named, cache or raw. */
bool cxs_event_known(const char *name);

/* Apply modifiers @mods ("tu") to @ev (perf's rule); 0 or -1 and @err. */
int cxs_event_modifiers(const char *mods, struct cxs_event *ev,
			char *err, size_t errlen);

/* Whether @mods are modifiers ctxstat takes (@what names them in @err). */
int cxs_modifiers_check(const char *what, const char *mods,
			char *err, size_t errlen);

/* Add parsed event @ev to @l, sharing a counter where one counts it. */
int cxs_events_append(struct cxs_event_list *l, const struct cxs_event *ev,
		      char *err, size_t errlen);

/* Add one event spec to @l, sharing a counter where one counts it. */
int cxs_events_add_one(struct cxs_event_list *l, const char *spec,
		       char *err, size_t errlen);

/*
 * The counter of @ev (not yet in @l): the one that counts its type,
 * config and flags, or a new one. 0, or -1 with a message in @err when
 * there is no room for one more (events/counters.c).
 */
int cxs_events_assign_counter(struct cxs_event_list *l, struct cxs_event *ev,
			      char *err, size_t errlen);

/*
 * A new counter for @ev (not yet in @l), whatever counts it already: its
 * index, or -1 with a message in @err when there is no room for one more.
 */
int cxs_events_new_counter(struct cxs_event_list *l, const struct cxs_event *ev,
			   char *err, size_t errlen);

/*
 * A counter of its own for event @i, shared with no other event (a copy
 * of its counter's when it shares that one): its index, or -1 with a
 * message in @err when there is no room for one more
 * (events/counters.c).
 */
int cxs_events_own_counter(struct cxs_event_list *l, int i,
			   char *err, size_t errlen);

/*
 * Add perf's event list syntax (events/evlist.c): events separated by commas,
 * groups "{a,b}" with modifiers for all ("{a,b}:u"), PMU events
 * "pmu/a=1,b=2/" whose commas are theirs.
 */
int cxs_events_add(struct cxs_event_list *l, const char *specs,
		   char *err, size_t errlen);

/*
 * perf stat's default events (cpu-clock instead of task-clock
 * @system_wide, as perf 6.1), with @twins a :t twin beside those that
 * interrupts inflate.
 */
int cxs_events_add_defaults(struct cxs_event_list *l, bool system_wide,
			    bool twins, char *err, size_t errlen);

/* The closest known event name to @name, or NULL if none is close. */
const char *cxs_event_suggest(const char *name);

void cxs_events_print_known(FILE *f);

/* Is @ev the perf event (@type, @config)? */
static inline bool cxs_event_is(const struct cxs_event *ev, uint32_t type,
				uint64_t config)
{
	return ev->type == type && ev->config == config;
}

/* A tool event: ctxstat measures it, the module does not count it. */
static inline bool cxs_event_is_tool(const struct cxs_event *ev)
{
	return ev->tool != CXS_TOOL_NONE;
}

/* task-clock and cpu-clock count ns; perf prints them in msec. */
static inline bool cxs_event_is_clock(const struct cxs_event *ev)
{
	return cxs_event_is(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       cxs_event_is(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

/*
 * Is the event named @name ("task-clock:t", "software/config=1/") a
 * clock, as cxs_event_is_clock() says of it once parsed? false for a
 * name that does not parse here.
 */
bool cxs_event_name_is_clock(const char *name);

#endif
