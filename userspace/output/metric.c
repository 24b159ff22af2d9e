// SPDX-License-Identifier: GPL-2.0
/*
 * metric: perf stat's metrics (tools/perf/util/stat-shadow.c, simplified
 * to the events ctxstat names): a count over task-clock (GHz, K/sec), over
 * cycles (insn per cycle), a miss count over its base (of all branches),
 * a clock over the elapsed time (CPUs utilized).
 */
#include <math.h>
#include <string.h>
#include <linux/perf_event.h>

#include "output/metric.h"
#include "util/util.h"

/*
 * Mean count of the counter for (type, config, flags), if counted: the
 * full count, or with @task_only its task-context bucket (a ":t" row's
 * 7.x metric is of task-context counts, as a :u row's is of user counts
 * in perf).
 */
static bool find_count(const struct cxs_series *s, uint32_t type, uint64_t config,
		       uint32_t flags, bool task_only, double *avg)
{
	const struct cxs_event_list *l = s->events;
	const struct cxs_counter_values *v;
	const struct cxs_counter *c;
	int i;

	for (i = 0; i < l->nr_counters; i++) {
		c = &l->counters[i];
		if (c->type != type || c->config != config || c->flags != flags)
			continue;
		v = &s->counters[i];
		if (!cxs_counter_ok(v))
			return false;
		*avg = cxs_sample_mean(task_only ? &v->bucket[CTXCOUNT_BUCKET_TASK] :
					&v->full);
		return true;
	}
	return false;
}

static bool find_full(const struct cxs_series *s, uint32_t type, uint64_t config,
		      uint32_t flags, double *avg)
{
	return find_count(s, type, config, flags, false, avg);
}

/* perf's STAT_NSECS: task-clock, else cpu-clock, of the same modifiers. */
static bool find_nsecs(const struct cxs_series *s, uint32_t flags,
		       bool task_only, double *ns)
{
	return find_count(s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK,
			  flags, task_only, ns) ||
	       find_count(s, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK,
			  flags, task_only, ns);
}

static void set_metric(struct cxs_metric *m, const char *fmt, const char *unit,
		       double val)
{
	m->fmt = fmt;
	snprintf(m->unit, sizeof(m->unit), "%s", unit);
	m->val = val;
}

static void ratio_metric(struct cxs_metric *m, double num, double den,
			 const char *fmt, const char *unit, double factor)
{
	if (den)
		set_metric(m, fmt, unit, factor * num / den);
}

/* perf's convert_unit_double + "/sec": events per second of task-clock. */
static void rate_metric(struct cxs_metric *m, double avg, double nsecs)
{
	double ratio = nsecs ? 1e9 * avg / nsecs : 0;
	const char *unit = "/sec";

	if (ratio >= 1e9) {
		ratio /= 1e9;
		unit = "G/sec";
	} else if (ratio >= 1e6) {
		ratio /= 1e6;
		unit = "M/sec";
	} else if (ratio >= 1e3) {
		ratio /= 1e3;
		unit = "K/sec";
	}
	set_metric(m, "%8.3f", unit, ratio);
}

struct miss_ratio {
	uint32_t type;
	uint64_t miss, base;
	const char *unit;
};

#define HW_CACHE(cache, op, res) \
	(PERF_COUNT_HW_CACHE_##cache | PERF_COUNT_HW_CACHE_OP_##op << 8 | \
	 PERF_COUNT_HW_CACHE_RESULT_##res << 16)

/* perf's "% of all X" metrics: a miss count over its base event. */
static const struct miss_ratio miss_ratios[] = {
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES,
	  PERF_COUNT_HW_BRANCH_INSTRUCTIONS, "of all branches" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES,
	  PERF_COUNT_HW_CACHE_REFERENCES, "of all cache refs" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND,
	  PERF_COUNT_HW_CPU_CYCLES, "frontend cycles idle" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND,
	  PERF_COUNT_HW_CPU_CYCLES, "backend cycles idle" },
	{ PERF_TYPE_HW_CACHE, HW_CACHE(L1D, READ, MISS),
	  HW_CACHE(L1D, READ, ACCESS), "of all L1-dcache accesses" },
	{ PERF_TYPE_HW_CACHE, HW_CACHE(L1I, READ, MISS),
	  HW_CACHE(L1I, READ, ACCESS), "of all L1-icache accesses" },
	{ PERF_TYPE_HW_CACHE, HW_CACHE(LL, READ, MISS),
	  HW_CACHE(LL, READ, ACCESS), "of all LL-cache accesses" },
	{ PERF_TYPE_HW_CACHE, HW_CACHE(DTLB, READ, MISS),
	  HW_CACHE(DTLB, READ, ACCESS), "of all dTLB cache accesses" },
	{ PERF_TYPE_HW_CACHE, HW_CACHE(ITLB, READ, MISS),
	  HW_CACHE(ITLB, READ, ACCESS), "of all iTLB cache accesses" },
};

static bool miss_metric(const struct cxs_series *s, const struct cxs_event *ev,
			double avg, struct cxs_metric *m)
{
	const struct miss_ratio *mr;
	double base;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(miss_ratios); i++) {
		mr = &miss_ratios[i];
		if (!cxs_event_is(ev, mr->type, mr->miss))
			continue;
		if (find_full(s, mr->type, mr->base, ev->flags, &base))
			ratio_metric(m, avg, base, "%7.2f%%", mr->unit, 100.0);
		return true;
	}
	return false;
}

void cxs_full_metric(const struct cxs_series *s, const struct cxs_event *ev,
		     double avg, struct cxs_metric *m)
{
	double nsecs, cycles, wall = cxs_sample_mean(s->elapsed_ns);
	bool have_nsecs = find_nsecs(s, ev->flags, false, &nsecs);

	if (cxs_event_is_clock(ev)) {
		ratio_metric(m, avg, wall, "%8.3f", "CPUs utilized", 1.0);
	} else if (cxs_event_is(ev, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_CPU_CYCLES)) {
		if (have_nsecs)
			ratio_metric(m, avg, nsecs, "%8.3f", "GHz", 1.0);
	} else if (cxs_event_is(ev, PERF_TYPE_HARDWARE,
				PERF_COUNT_HW_INSTRUCTIONS)) {
		if (find_full(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			      ev->flags, &cycles))
			ratio_metric(m, avg, cycles, "%7.2f ",
				     "insn per cycle", 1.0);
	} else if (!miss_metric(s, ev, avg, m) && have_nsecs) {
		rate_metric(m, avg, nsecs);
	}
}

/* What a perf 7.x default metric divides its event's count by. */
enum default_base {
	PER_WALL_NS,	/* the elapsed time */
	PER_CLOCK_NS,	/* task-clock, or cpu-clock system wide */
	PER_CYCLE,
	PER_BRANCH,
};

struct default_metric {
	uint32_t type;
	uint64_t config;
	enum default_base base;
	double scale;
	const char *unit;	/* metrics.json's ScaleUnit unit, its MetricName */
};

/*
 * perf 7.x's Default metric group (pmu-events/arch/common/common/
 * metrics.json) on ctxstat's default events. perf 7.2 prints NaN for
 * CPUs_utilized of a command (its duration_time is not read there):
 * ctxstat divides by the elapsed time it measured, as perf 6.1 did.
 */
static const struct default_metric default_metrics[] = {
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, PER_WALL_NS, 1,
	  "CPUs  CPUs_utilized" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, PER_WALL_NS, 1,
	  "CPUs  CPUs_utilized" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, PER_CLOCK_NS, 1e9,
	  "cs/sec  cs_per_second" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, PER_CLOCK_NS, 1e9,
	  "migrations/sec  migrations_per_second" },
	{ PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, PER_CLOCK_NS, 1e9,
	  "faults/sec  page_faults_per_second" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, PER_CLOCK_NS, 1,
	  "GHz  cycles_frequency" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, PER_CYCLE, 1,
	  "instructions  insn_per_cycle" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, PER_CLOCK_NS, 1e3,
	  "M/sec  branch_frequency" },
	{ PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, PER_BRANCH, 100,
	  "%  branch_miss_rate" },
};

/* The denominator of @dm for event @ev, NaN when it was not counted. */
static double default_base(const struct cxs_series *s, const struct cxs_event *ev,
			   const struct default_metric *dm)
{
	bool t = ev->task_only;
	double v;

	switch (dm->base) {
	case PER_WALL_NS:
		return cxs_sample_mean(s->elapsed_ns);
	case PER_CLOCK_NS:
		if (find_nsecs(s, ev->flags, t, &v))
			return v;
		break;
	case PER_CYCLE:
		if (find_count(s, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES,
			       ev->flags, t, &v))
			return v;
		break;
	case PER_BRANCH:
		if (find_count(s, PERF_TYPE_HARDWARE,
			       PERF_COUNT_HW_BRANCH_INSTRUCTIONS, ev->flags, t, &v))
			return v;
		break;
	}
	return NAN;
}

void cxs_default_metric(const struct cxs_series *s, const struct cxs_event *ev,
			struct cxs_metric *m)
{
	const struct default_metric *dm;
	double count, base;
	size_t i;

	if (!ev->perf_default)
		return;
	for (i = 0; i < ARRAY_SIZE(default_metrics); i++) {
		dm = &default_metrics[i];
		if (!cxs_event_is(ev, dm->type, dm->config))
			continue;
		base = default_base(s, ev, dm);
		if (!find_count(s, ev->type, ev->config, ev->flags,
				ev->task_only, &count))
			count = NAN;
		/* perf: a zero base is NaN too (0 / 0 or x / 0 is no rate) */
		set_metric(m, "%8.1f", dm->unit,
			   base ? dm->scale * count / base : NAN);
		return;
	}
}

void cxs_share_metric(enum cxs_perf_dialect dialect, double part, double full,
		      struct cxs_metric *m)
{
	/* ctxstat's own metric; in 7.x's shape, a unit and a name */
	if (dialect == CXS_PERF_7_2)
		ratio_metric(m, part, full, "%8.2f", "%  of_all", 100.0);
	else
		ratio_metric(m, part, full, "%7.2f%%", "of all", 100.0);
}
