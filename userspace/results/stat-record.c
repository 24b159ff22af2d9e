// SPDX-License-Identifier: GPL-2.0
/*
 * stat-record: a series of runs as perf stat record's data. perf stores
 * each counter's raw reading (val, ena, run) and scales it when it
 * prints; ctxstat keeps counts already scaled, so the reading written is
 * the count brought back to the time the counter ran, and perf's scaling
 * gives the count again (to the unit, rounding aside, when multiplexed).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "results/stat-record.h"
#include "perfdata/format.h"

/* perf stat's attr (util/stat.c, create_perf_stat_counter()) */
static void attr_of(const struct cxs_args *a, const struct cxs_event *ev,
		    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->type = ev->type;
	attr->size = sizeof(*attr);
	attr->config = ev->config;
	/*
	 * perf: "stat_config.identifier = !(STAT_RECORD && is_pipe)". perf
	 * script checks the sample fields of a piped attr that has any, and
	 * refuses one without IP ("Display of symbols requested...").
	 */
	if (!a->record_file || strcmp(a->record_file, "-"))
		attr->sample_type = PERF_SAMPLE_IDENTIFIER;
	attr->read_format = PERF_FORMAT_TOTAL_TIME_ENABLED |
			    PERF_FORMAT_TOTAL_TIME_RUNNING;
	attr->disabled = 1;
	attr->inherit = !a->no_inherit;
	/* perf's -D enables the counters itself, after the delay */
	attr->enable_on_exec = a->cmd && !a->pid && !a->system_wide &&
			       !a->delay_ms;
	attr->exclude_user = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER);
	attr->exclude_kernel = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL);
	attr->exclude_hv = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV);
}

/* The reading perf scales back to @count: val * ena / run. */
static struct cxs_stat_value reading_of(double count, double ena, double run)
{
	struct cxs_stat_value v = { .ena = llround(ena), .run = llround(run), .set = true };

	if (run > 0 && ena > run)
		v.val = llround(count * run / ena);
	else
		v.val = llround(count);
	return v;
}

/* Run @run's values of displayed event @e from @counters into @v. */
static void put_values(const struct cxs_event *ev,
		       const struct cxs_counter_values *counters, int run,
		       struct cxs_stat_value *v)
{
	const struct cxs_counter_values *c = &counters[ev->counter];
	const struct cxs_sample *s = cxs_event_values(ev, counters);

	/* not counted (an error): no reading, perf's <not counted> */
	if (c->error || run >= s->n || run >= c->enabled.n)
		return;
	*v = reading_of(s->v[run], c->enabled.v[run], c->running.v[run]);
}

static int copy_cmdline(struct cxs_stat_data *d, char **cmdline, int nr)
{
	int i;

	d->cmdline = calloc(nr ?: 1, sizeof(*d->cmdline));
	if (!d->cmdline)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		d->cmdline[i] = strdup(cmdline[i]);
		if (!d->cmdline[i])
			return -ENOMEM;
		d->nr_cmdline++;
	}
	return 0;
}

/*
 * The maps: -A's CPUs (else "any CPU", -1, as a task's counters are),
 * and --per-thread's threads with their comms (else -p's pid or perf's
 * dummy -1).
 */
static int set_maps(const struct cxs_runner *r, struct cxs_stat_data *d,
		    bool per_cpu, bool per_thread)
{
	const struct cxs_thread_rows *rows = &r->pt.rows;
	int k;

	d->nr_cpus = per_cpu ? r->pc.nr_cpus : 1;
	d->nr_threads = per_thread ? rows->nr : 1;
	d->cpus = calloc(d->nr_cpus, sizeof(*d->cpus));
	d->pids = calloc(d->nr_threads, sizeof(*d->pids));
	d->comms = calloc(d->nr_threads, sizeof(*d->comms));
	if (!d->cpus || !d->pids || !d->comms)
		return -ENOMEM;
	for (k = 0; k < d->nr_cpus; k++)
		d->cpus[k] = per_cpu ? r->pc.cpu_ids[k] : -1;
	d->pids[0] = r->args->pid ?: -1;
	for (k = 0; per_thread && k < d->nr_threads; k++) {
		d->pids[k] = rows->row[k].tid;
		snprintf(d->comms[k], sizeof(d->comms[k]), "%s", rows->row[k].comm);
	}
	return 0;
}

static int set_events(const struct cxs_runner *r, struct cxs_stat_data *d)
{
	const struct cxs_event_list *l = r->events;
	struct cxs_stat_event *ev;
	int e, k, inst = d->nr_cpus * d->nr_threads;

	d->ev = calloc(l->nr ?: 1, sizeof(*d->ev));
	if (!d->ev)
		return -ENOMEM;
	for (e = 0; e < l->nr; e++) {
		ev = &d->ev[d->nr_events++];
		attr_of(r->args, &l->ev[e], &ev->attr);
		cxs_stat_set_name(d, e, l->ev[e].name);
		ev->scale = 1;
		/* perf's unit and scale for its clocks: msec from ns */
		if (cxs_event_is_clock(&l->ev[e])) {
			strcpy(ev->unit, "msec");
			ev->scale = 1e-6;
		} else if (l->ev[e].tool == CXS_TOOL_DURATION_TIME) {
			strcpy(ev->unit, "ns");
		}
		ev->ids = calloc(inst, sizeof(*ev->ids));
		if (!ev->ids)
			return -ENOMEM;
		/* any id unique in the file will do: perf's are the kernel's */
		for (k = 0; k < inst; k++)
			ev->ids[k] = 1 + (uint64_t)e * inst + k;
		ev->nr_ids = inst;
	}
	return 0;
}

/*
 * The counters' values of CPU index @k (-A), of thread row @t (their
 * views, in @row) or of the whole run.
 */
static const struct cxs_counter_values *
values_of(const struct cxs_runner *r, bool per_cpu, bool per_thread, int k,
	  int t, struct cxs_counter_values *row)
{
	if (per_cpu)
		return &r->pc.cpu_counters[k * CTXCOUNT_MAX_EVENTS];
	if (!per_thread)
		return r->counters;
	cxs_thread_counters(&r->pt.rows, t, row);
	return row;
}

/* A round per run: each event's values per CPU or per thread, or in all. */
static int add_rounds(const struct cxs_runner *r, struct cxs_stat_data *d,
		      bool per_cpu, bool per_thread)
{
	const struct cxs_event_list *l = r->events;
	struct cxs_counter_values row[CTXCOUNT_MAX_EVENTS];
	const struct cxs_counter_values *counters;
	struct cxs_stat_round *round;
	int i, e, k, t;

	for (i = 0; i < r->runs_done; i++) {
		if (cxs_stat_add_round(d, CXS_PERF_STAT_ROUND_FINAL,
				       llround(r->elapsed_ns.v[i])))
			return -ENOMEM;
		round = &d->rounds[d->nr_rounds - 1];
		for (e = 0; e < l->nr; e++)
			for (k = 0; k < d->nr_cpus; k++)
				for (t = 0; t < d->nr_threads; t++) {
					counters = values_of(r, per_cpu, per_thread,
							     k, t, row);
					put_values(&l->ev[e], counters, i,
						   cxs_stat_value_at(d, round->v, e, k, t));
				}
	}
	return 0;
}

int cxs_stat_record_of_runs(const struct cxs_runner *r, char **cmdline,
			    int nr, struct cxs_stat_data *d)
{
	/*
	 * -A's and --per-thread's rows are one run's, per CPU or thread:
	 * perf's own layout, and its aggregation (per thread: perf 6.1's
	 * number, format.h).
	 */
	bool per_cpu = r->pc.nr_cpus && r->pc.cpu_counters && r->runs_done == 1;
	bool per_thread = !per_cpu && cxs_args_per_thread(r->args) &&
			  r->pt.rows.nr && r->runs_done == 1;

	memset(d, 0, sizeof(*d));
	d->aggr_mode = per_cpu && r->args->aggr == CXS_AGGR_NONE ? CXS_PERF_AGGR_NONE :
		       per_thread ? CXS_PERF_6_1_AGGR_THREAD : CXS_PERF_AGGR_GLOBAL;
	if (copy_cmdline(d, cmdline, nr) || set_maps(r, d, per_cpu, per_thread) ||
	    set_events(r, d) || add_rounds(r, d, per_cpu, per_thread)) {
		cxs_stat_data_free(d);
		return -ENOMEM;
	}
	return 0;
}
