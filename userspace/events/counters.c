// SPDX-License-Identifier: GPL-2.0
/*
 * counters: the kernel counters behind the events (events/events.h):
 * one per distinct type/config/flags, which the events differing only
 * in :t share; and a counter of its own for an event perf opens apart
 * from the others (events/group.c).
 */
#include "events/events.h"
#include "util/util.h"

/* A new counter, a copy of @c: its index, or -1 with a message when full. */
static int add_counter(struct cxs_event_list *l, const struct cxs_counter *c,
		       char *err, size_t errlen)
{
	if (l->nr_counters == CTXCOUNT_MAX_EVENTS)
		return cxs_err(err, errlen,
			       "too many distinct events: at most %d counters",
			       CTXCOUNT_MAX_EVENTS);
	l->counters[l->nr_counters] = *c;
	return l->nr_counters++;
}

static void counter_of(const struct cxs_event *ev, struct cxs_counter *c)
{
	*c = (struct cxs_counter){
		.type = ev->type, .config = ev->config, .flags = ev->flags,
		.tool = ev->tool,
	};
}

int cxs_events_new_counter(struct cxs_event_list *l, const struct cxs_event *ev,
			   char *err, size_t errlen)
{
	struct cxs_counter c;

	counter_of(ev, &c);
	return add_counter(l, &c, err, errlen);
}

int cxs_events_assign_counter(struct cxs_event_list *l, struct cxs_event *ev,
			      char *err, size_t errlen)
{
	struct cxs_counter c;
	int i;

	counter_of(ev, &c);
	for (i = 0; i < l->nr_counters; i++) {
		if (l->counters[i].type == c.type &&
		    l->counters[i].config == c.config &&
		    l->counters[i].flags == c.flags &&
		    l->counters[i].tool == c.tool) {
			ev->counter = i;
			return 0;
		}
	}
	ev->counter = add_counter(l, &c, err, errlen);
	return ev->counter < 0 ? -1 : 0;
}

int cxs_events_own_counter(struct cxs_event_list *l, int i,
			   char *err, size_t errlen)
{
	struct cxs_event *ev = &l->ev[i];
	int j, c;

	for (j = 0; j < l->nr; j++)
		if (j != i && l->ev[j].counter == ev->counter)
			break;
	if (j == l->nr)
		return ev->counter;
	c = add_counter(l, &l->counters[ev->counter], err, errlen);
	if (c >= 0)
		ev->counter = c;
	return c;
}
