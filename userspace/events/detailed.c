// SPDX-License-Identifier: GPL-2.0
/*
 * detailed: see events/detailed.h. perf 6.1 appends these events whether
 * or not -e named others (7.x adds them to its default set only, and
 * leaves out those the PMU has not got); on a machine without them perf
 * prints each <not supported>. Twelve of them beside the default set's
 * eight counters would pass the module's 16 a session even where none
 * counts (a VM without a PMU): those the PMU has not got share one
 * counter that is never asked for.
 */
#include <stdio.h>
#include <unistd.h>

#include "events/detailed.h"
#include "util/util.h"

/* perf's order; each level adds its own after the levels below it. */
static const char *const detailed[] = {
	/* -d: the L1 and last level data caches */
	"L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses",
	/* -dd: the instruction cache and the TLBs */
	"L1-icache-loads", "L1-icache-load-misses", "dTLB-loads", "dTLB-load-misses",
	"iTLB-loads", "iTLB-load-misses",
	/* -ddd: the L1 data cache's prefetches */
	"L1-dcache-prefetches", "L1-dcache-prefetch-misses",
};

/* Where each level's events end in detailed[]. */
static const size_t level_end[CXS_DETAILED_MAX + 1] = { 0, 4, 10, 12 };

size_t cxs_detailed_events(int level, const char *const **names)
{
	if (level < 0)
		level = 0;
	if (level > CXS_DETAILED_MAX)
		level = CXS_DETAILED_MAX;
	if (names)
		*names = detailed;
	return level_end[level];
}

/*
 * Whether the PMU has not got @ev: its proof's attributes opened on
 * ctxstat itself, with perf's fallback. Only perf's "not supported"
 * says so (its errno in @err); a refusal is the run's proof's to
 * explain, on the run's target.
 */
static bool pmu_lacks(const struct cxs_event *ev, cxs_perf_open_fn open,
		      int paranoid, int *err)
{
	struct cxs_counter c = {
		.type = ev->type, .config = ev->config, .flags = ev->flags,
	};
	const struct cxs_proof_target self = { .pid = 0, .cpu = -1 };
	struct cxs_proof p;

	switch (cxs_proof_open(&p, &c, &self, paranoid, open)) {
	case CXS_PROOF_OPEN:
		close(p.fd);
		return false;
	case CXS_PROOF_NOT_SUPPORTED:
		*err = p.err;
		return true;
	default:
		return false;
	}
}

/*
 * Append @ev: on counter @counter when it is one (the shared counter of
 * the events the PMU has not got), else on the counter that counts it.
 */
static int append(struct cxs_event_list *l, const struct cxs_event *ev,
		  int counter, char *err, size_t errlen)
{
	if (counter < 0)
		return cxs_events_append(l, ev, err, errlen);
	if (l->nr == CXS_MAX_EVENTS)
		return cxs_err(err, errlen, "too many events: at most %d",
			       CXS_MAX_EVENTS);
	l->ev[l->nr] = *ev;
	l->ev[l->nr++].counter = counter;
	return 0;
}

/* @ev, and its :t twin when @twins, on @counter (see append()). */
static int add_with_twin(struct cxs_event_list *l, const struct cxs_event *ev,
			 bool twins, int counter, char *err, size_t errlen)
{
	char spec[CXS_EVENT_NAME_MAX];
	struct cxs_event twin;

	if (append(l, ev, counter, err, errlen))
		return -1;
	if (!twins)
		return 0;
	snprintf(spec, sizeof(spec), "%.*s:t", CXS_EVENT_NAME_MAX - 3, ev->name);
	if (cxs_event_parse(spec, &twin, err, errlen))
		return -1;
	return append(l, &twin, l->ev[l->nr - 1].counter, err, errlen);
}

static int add_all(struct cxs_event_list *l, int level, bool twins,
		   bool verbose, cxs_perf_open_fn open, char *err, size_t errlen)
{
	int paranoid = cxs_perf_event_paranoid(), lacking = -1, errnum;
	const char *const *names;
	size_t i, n = cxs_detailed_events(level, &names);
	struct cxs_event ev;

	for (i = 0; i < n; i++) {
		if (cxs_event_parse(names[i], &ev, err, errlen))
			return -1;
		if (!pmu_lacks(&ev, open, paranoid, &errnum)) {
			if (add_with_twin(l, &ev, twins, -1, err, errlen))
				return -1;
			continue;
		}
		/* perf -v's warning as it skips the event */
		if (verbose)
			fprintf(stderr, "Warning:\n%s event is not supported by the kernel.\n",
				ev.name);
		if (lacking < 0) {
			lacking = cxs_events_new_counter(l, &ev, err, errlen);
			if (lacking < 0)
				return -1;
			l->counters[lacking].open_err = errnum;
		}
		if (add_with_twin(l, &ev, twins, lacking, err, errlen))
			return -1;
	}
	return 0;
}

int cxs_events_add_detailed(struct cxs_event_list *l, int level, bool twins,
			    bool verbose, cxs_perf_open_fn open,
			    char *err, size_t errlen)
{
	int nr = l->nr, nr_counters = l->nr_counters;
	char why[160];

	if (!add_all(l, level, twins, verbose, open, why, sizeof(why)))
		return 0;
	l->nr = nr;
	l->nr_counters = nr_counters;
	return cxs_err(err, errlen, "-%.*s adds perf's detailed events: %s",
		       level < CXS_DETAILED_MAX ? level : CXS_DETAILED_MAX, "ddd", why);
}
