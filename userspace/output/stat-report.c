// SPDX-License-Identifier: GPL-2.0
/*
 * stat-report: a stat record's rounds as stat's tables. Each recorded
 * event becomes a displayed event of its own counter; a :t event (named
 * so: ctxstat record writes its :t events under their names) shows as
 * the task bucket of the counter of its full twin when the file has
 * one, so that its "% of all" is the same as when ctxstat counted it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "output/display.h"
#include "output/stat-report.h"
#include "perfdata/format.h"
#include "run/interval.h"
#include "run/per-thread.h"
#include "stats/counts.h"
#include "util/util.h"

/*
 * perf's name of an event the file does not name (a pipe names only the
 * events perf could open): evsel__hw_names[] and evsel__sw_names[].
 */
static void perf_name(const struct perf_event_attr *attr, char *buf, size_t len)
{
	static const char *const hw[] = {
		"cycles", "instructions", "cache-references", "cache-misses",
		"branches", "branch-misses", "bus-cycles",
		"stalled-cycles-frontend", "stalled-cycles-backend", "ref-cycles",
	};
	static const char *const sw[] = {
		"cpu-clock", "task-clock", "page-faults", "context-switches",
		"cpu-migrations", "minor-faults", "major-faults",
		"alignment-faults", "emulation-faults", "dummy",
	};

	if (attr->type == PERF_TYPE_HARDWARE && attr->config < ARRAY_SIZE(hw))
		snprintf(buf, len, "%s", hw[attr->config]);
	else if (attr->type == PERF_TYPE_SOFTWARE && attr->config < ARRAY_SIZE(sw))
		snprintf(buf, len, "%s", sw[attr->config]);
	else if (attr->type == PERF_TYPE_RAW)
		snprintf(buf, len, "raw 0x%llx", (unsigned long long)attr->config);
	else
		snprintf(buf, len, "%u:0x%llx", attr->type,
			 (unsigned long long)attr->config);
}

/* The recorded event @e as ctxstat's event (not yet given a counter). */
static void event_of(const struct cxs_stat_event *se, struct cxs_event *ev)
{
	char err[128];

	memset(ev, 0, sizeof(*ev));
	/* a name ctxstat parses tells :t; any other keeps perf's attr */
	if (se->name[0] && !cxs_event_parse(se->name, ev, err, sizeof(err)) &&
	    cxs_event_is(ev, se->attr.type, se->attr.config)) {
		ev->group = -1;
		return;
	}
	memset(ev, 0, sizeof(*ev));
	if (se->name[0])
		snprintf(ev->name, sizeof(ev->name), "%.*s",
			 (int)sizeof(ev->name) - 1, se->name);
	else
		perf_name(&se->attr, ev->name, sizeof(ev->name));
	ev->type = se->attr.type;
	ev->config = se->attr.config;
	ev->flags = (se->attr.exclude_user ? CTXCOUNT_EVENT_F_EXCLUDE_USER : 0) |
		    (se->attr.exclude_kernel ? CTXCOUNT_EVENT_F_EXCLUDE_KERNEL : 0) |
		    (se->attr.exclude_hv ? CTXCOUNT_EVENT_F_EXCLUDE_HV : 0);
	ev->group = -1;
}

/*
 * The events of @d into @l, in the file's order: the full ones each on a
 * counter of its own, then the :t ones on their twin's counter, or one
 * of their own. 0, or -1 when they do not fit.
 */
static int events_of(const struct cxs_stat_data *d, struct cxs_event_list *l)
{
	struct cxs_event *ev;
	int pass, e, j;

	memset(l, 0, sizeof(*l));
	if (d->nr_events > CXS_MAX_EVENTS)
		return -1;
	for (e = 0; e < d->nr_events; e++)
		event_of(&d->ev[e], &l->ev[e]);
	l->nr = d->nr_events;
	for (pass = 0; pass < 2; pass++)
		for (e = 0; e < l->nr; e++) {
			ev = &l->ev[e];
			if (ev->task_only != pass)
				continue;
			ev->counter = -1;
			for (j = 0; pass && j < l->nr; j++)
				if (!l->ev[j].task_only &&
				    cxs_event_is(&l->ev[j], ev->type, ev->config) &&
				    l->ev[j].flags == ev->flags)
					ev->counter = l->ev[j].counter;
			if (ev->counter >= 0)
				continue;
			if (l->nr_counters == CTXCOUNT_MAX_EVENTS)
				return -1;
			ev->counter = l->nr_counters++;
			l->counters[ev->counter] = (struct cxs_counter){
				.type = ev->type, .config = ev->config,
				.flags = ev->flags, .tool = ev->tool,
			};
		}
	return 0;
}

/*
 * Recorded event @e's readings in round @r on CPU index @cpu and thread
 * index @thread (-1: all), summed, then scaled, as perf's AGGR_GLOBAL,
 * AGGR_NONE and AGGR_THREAD: false when none was recorded.
 */
static bool sum_of(const struct cxs_stat_data *d, const struct cxs_stat_round *r,
		   int e, int cpu, int thread, double *count, double *ena, double *run)
{
	const struct cxs_stat_value *v;
	uint64_t val = 0, en = 0, ru = 0;
	bool any = false;
	int c, t;

	for (c = cpu < 0 ? 0 : cpu; c < (cpu < 0 ? d->nr_cpus : cpu + 1); c++)
		for (t = thread < 0 ? 0 : thread;
		     t < (thread < 0 ? d->nr_threads : thread + 1); t++) {
			v = cxs_stat_value_at(d, r->v, e, c, t);
			if (!v->set)
				continue;
			any = true;
			val += v->val;
			en += v->ena;
			ru += v->run;
		}
	*count = val;
	if (!d->no_scale && ru && ru < en)
		*count = (uint64_t)((double)val * en / ru);
	*ena = en;
	*run = ru;
	return any;
}

static int fill_round(const struct cxs_stat_data *d, const struct cxs_stat_round *r,
		      int cpu, int thread, const struct cxs_event_list *l,
		      struct cxs_counter_values *counters)
{
	struct cxs_counter_values *c;
	const struct cxs_event *ev;
	double count, ena, run;
	int e, k;

	for (k = 0; k < l->nr_counters; k++)
		if (cxs_counter_reserve(&counters[k], 1))
			return -ENOMEM;
	for (e = 0; e < d->nr_events; e++) {
		ev = &l->ev[e];
		c = &counters[ev->counter];
		if (!sum_of(d, r, e, cpu, thread, &count, &ena, &run)) {
			if (!c->enabled.n)
				c->error = -ENODATA;
			continue;
		}
		c->error = 0;
		c->counted = run > 0;
		cxs_sample_add(ev->task_only ? &c->bucket[CTXCOUNT_BUCKET_TASK] : &c->full,
			       count);
		/* a :t alone, or its twin's: one time enabled and running */
		if (!c->enabled.n) {
			cxs_sample_add(&c->enabled, ena);
			cxs_sample_add(&c->running, run);
		}
	}
	/* a counter of :t events alone has no full count: 0, no share */
	for (k = 0; k < l->nr_counters; k++)
		if (!counters[k].full.n && counters[k].enabled.n)
			cxs_sample_add(&counters[k].full, 0);
	return 0;
}

/* The header's command: the recorded command line, or perf's "pipe". */
static char **command_of(const struct cxs_stat_data *d)
{
	static char *pipe_cmd[] = { "pipe", NULL };
	char **cmd;

	if (d->pipe || !d->nr_cmdline)
		return pipe_cmd;
	cmd = calloc(d->nr_cmdline + 1, sizeof(*cmd));
	if (cmd)
		memcpy(cmd, d->cmdline, d->nr_cmdline * sizeof(*cmd));
	return cmd;
}

/* perf's AGGR_NONE, a task's "any CPU" aside: a row per CPU (-A). */
static bool per_cpu(const struct cxs_stat_data *d)
{
	return d->aggr_mode == CXS_PERF_AGGR_NONE && d->nr_cpus &&
	       d->cpus[0] >= 0;
}

/*
 * A per-thread recording: its threads, a task's ("any CPU"). perf 6.1
 * numbers per-thread aggregation 5 and later perfs 7 (5 being per-cache
 * there, which is system wide: one dummy thread).
 */
static bool per_thread(const struct cxs_stat_data *d)
{
	return d->nr_threads > 1 && d->nr_cpus == 1 && d->cpus[0] < 0 &&
	       (d->aggr_mode == 5 || d->aggr_mode == 7);
}

static void free_counters(struct cxs_counter_values *c, int n)
{
	int k;

	for (k = 0; k < n; k++)
		cxs_counter_free(&c[k]);
}

/* Round @i as one table: its totals, and per CPU for per_cpu(). */
static int print_round(FILE *f, const struct cxs_stat_data *d, int i,
		       const struct cxs_event_list *l, char **cmd)
{
	struct cxs_counter_values counters[CTXCOUNT_MAX_EVENTS] = { 0 };
	struct cxs_output_opts o = { .f = f, .format = CXS_OUTPUT_STD,
				     .dialect = cxs_perf_dialect_default() };
	struct cxs_counter_values *cpu_counters = NULL;
	int k, nr_cpus = per_cpu(d) ? d->nr_cpus : 0, ret = -ENOMEM;
	int nr_threads = per_thread(d) ? d->nr_threads : 0;
	struct cxs_thread_rows threads = { .nr_counters = l->nr_counters };
	struct cxs_sample elapsed;
	struct cxs_series s;

	cxs_sample_init(&elapsed);
	if (nr_cpus)
		cpu_counters = calloc((size_t)nr_cpus * CTXCOUNT_MAX_EVENTS,
				      sizeof(*cpu_counters));
	/* perf's wall time is the FINAL rounds' (no "CPUs utilized" per -I row) */
	if ((nr_cpus && !cpu_counters) ||
	    cxs_sample_add(&elapsed, d->rounds[i].type == CXS_PERF_STAT_ROUND_FINAL ?
			   d->rounds[i].time : 0) ||
	    fill_round(d, &d->rounds[i], -1, -1, l, counters))
		goto out;
	for (k = 0; k < nr_cpus; k++)
		if (fill_round(d, &d->rounds[i], k, -1, l,
			       &cpu_counters[k * CTXCOUNT_MAX_EVENTS]))
			goto out;
	for (k = 0; k < nr_threads; k++) {
		struct cxs_counter_values tc[CTXCOUNT_MAX_EVENTS] = { 0 };
		int err = fill_round(d, &d->rounds[i], -1, k, l, tc) ||
			  cxs_thread_rows_add(&threads, d->pids[k],
					      d->comms ? d->comms[k] : "", tc);

		free_counters(tc, CTXCOUNT_MAX_EVENTS);
		if (err)
			goto out;
	}
	for (k = 0; k < l->nr_counters; k++)
		threads.error[k] = counters[k].error;
	s = (struct cxs_series){
		.events = l,
		.counters = counters,
		.runs = 1,
		.elapsed_ns = &elapsed,
		.target = CXS_TARGET_COMMAND,
		.cmd = cmd,
		.nr_cpus = nr_cpus,
		.cpu_ids = nr_cpus ? d->cpus : NULL,
		.cpu_counters = cpu_counters,
		.aggr = nr_cpus ? CXS_AGGR_NONE : nr_threads ? CXS_AGGR_THREAD :
			CXS_AGGR_GLOBAL,
		.threads = nr_threads ? &threads : NULL,
	};
	/* -I's rounds: perf's interval rows, the time first, one header */
	if (d->interval_ms && d->rounds[i].type == CXS_PERF_STAT_ROUND_INTERVAL) {
		o.interval = true;
		o.interval_ns = d->rounds[i].time;
		o.interval_header = i % CXS_INTERVAL_HEADER_EVERY == 0;
	}
	cxs_output_series(&o, &s);
	ret = 0;
out:
	free_counters(counters, CTXCOUNT_MAX_EVENTS);
	for (k = 0; cpu_counters && k < nr_cpus; k++)
		free_counters(&cpu_counters[k * CTXCOUNT_MAX_EVENTS], CTXCOUNT_MAX_EVENTS);
	free(cpu_counters);
	cxs_thread_rows_free(&threads);
	cxs_sample_free(&elapsed);
	return ret;
}

int cxs_stat_report(FILE *f, const struct cxs_stat_data *d,
		    char *err, size_t errlen)
{
	struct cxs_event_list *l = calloc(1, sizeof(*l));
	char **cmd = command_of(d);
	int i, ret = 0;

	if (!l || !cmd) {
		snprintf(err, errlen, "out of memory");
		ret = -1;
		goto out;
	}
	if (events_of(d, l)) {
		snprintf(err, errlen, "%d events: more than ctxstat shows (%d counters at most)",
			 d->nr_events, CTXCOUNT_MAX_EVENTS);
		ret = -1;
		goto out;
	}
	for (i = 0; i < d->nr_rounds && !ret; i++) {
		ret = print_round(f, d, i, l, cmd);
		if (ret)
			snprintf(err, errlen, "out of memory");
	}
out:
	if (cmd && !(d->pipe || !d->nr_cmdline))
		free(cmd);
	free(l);
	return ret;
}
