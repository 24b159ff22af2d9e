// SPDX-License-Identifier: GPL-2.0
/*
 * display: perf stat's output layout, byte for byte where perf defines it
 * (perf 6.1 tools/perf/util/stat-display.c and stat-shadow.c, checked
 * against real `perf stat` output), extended with ctxcount's rows:
 *
 *   "cycles:t"            the task-context part of the cycles counter,
 *                         metric "xx.xx% of all" (share of full)
 *   "cycles [hardirq]"    --breakdown: one row per context after an event
 *   "cycles [hardirq:24 virtio0-input.0]"
 *                         --irq-sources: the hardirq row's sources after it
 */
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "output/display.h"
#include "output/metric.h"
#include "output/row.h"
#include "stats/perf-stat.h"
#include "util/util.h"

static const char *const softirq_names[CTXCOUNT_NR_SOFTIRQ_BUCKETS] = {
	"HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
	"SCHED", "HRTIMER", "RCU",
};

const char *cxs_softirq_name(int bucket)
{
	int i = bucket - CTXCOUNT_BUCKET_SOFTIRQ_FIRST;

	if (i < 0 || i >= CTXCOUNT_NR_SOFTIRQ_BUCKETS)
		return NULL;
	return softirq_names[i];
}

void cxs_bucket_label(int bucket, char *buf, size_t len)
{
	switch (bucket) {
	case CTXCOUNT_BUCKET_TASK:
		snprintf(buf, len, "task");
		break;
	case CTXCOUNT_BUCKET_HARDIRQ:
		snprintf(buf, len, "hardirq");
		break;
	case CTXCOUNT_BUCKET_NMI:
		snprintf(buf, len, "nmi");
		break;
	case CTXCOUNT_BUCKET_IRQ_ENTRY_EST:
		/* No comma: it would split a CSV row's event field. */
		snprintf(buf, len, "irq entry/exit estimate");
		break;
	default:
		snprintf(buf, len, "softirq:%s",
			 cxs_softirq_name(bucket) ?: "?");
	}
}


/*
 * task, hardirq and nmi always (a zero there is news), softirq vectors when
 * non-zero; everything with -v. Where the module has no NMI bucket, a zero
 * nmi row would claim something nobody measured: left out.
 */
static bool bucket_shown(const struct cxs_printer *p,
			 const struct cxs_counter_values *c, int bucket)
{
	bool zero = cxs_sample_mean(&c->bucket[bucket]) == 0;

	if (p->o->verbose)
		return true;
	if (bucket == CTXCOUNT_BUCKET_NMI)
		return !zero || !p->r->no_nmi_bucket;
	if (bucket == CTXCOUNT_BUCKET_TASK || bucket == CTXCOUNT_BUCKET_HARDIRQ)
		return true;
	return !zero;
}

/*
 * Contexts in reading order: task, the estimate moved out of it, hardirq,
 * softirq vectors, nmi.
 */
static const int breakdown_order[] = {
	CTXCOUNT_BUCKET_TASK,
	CTXCOUNT_BUCKET_IRQ_ENTRY_EST,
	CTXCOUNT_BUCKET_HARDIRQ,
	CTXCOUNT_BUCKET_SOFTIRQ_HI,
	CTXCOUNT_BUCKET_SOFTIRQ_TIMER,
	CTXCOUNT_BUCKET_SOFTIRQ_NET_TX,
	CTXCOUNT_BUCKET_SOFTIRQ_NET_RX,
	CTXCOUNT_BUCKET_SOFTIRQ_BLOCK,
	CTXCOUNT_BUCKET_SOFTIRQ_IRQ_POLL,
	CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
	CTXCOUNT_BUCKET_SOFTIRQ_SCHED,
	CTXCOUNT_BUCKET_SOFTIRQ_HRTIMER,
	CTXCOUNT_BUCKET_SOFTIRQ_RCU,
	CTXCOUNT_BUCKET_NMI,
};

/* A breakdown row of @c: @val as a share of the full count. */
static void print_part(const struct cxs_printer *p, const struct cxs_event *ev,
		       const struct cxs_counter_values *c, const char *name,
		       const struct cxs_sample *val, bool quote)
{
	struct cxs_row row = {
		.name = name, .quote = quote, .ev = ev, .c = c, .val = val,
	};

	cxs_share_metric(p->o->dialect, cxs_sample_mean(val),
			 cxs_sample_mean(&c->full), &row.metric);
	cxs_print_row(p, &row);
}

/*
 * --irq-sources: after the hardirq row, its sources, largest first;
 * those that counted something unless -v, as the softirq vectors.
 */
static void print_sources(const struct cxs_printer *p, const struct cxs_event *ev,
			  const struct cxs_counter_values *c, const char *base)
{
	char name[CXS_EVENT_NAME_MAX + CXS_SOURCE_LABEL_LEN + 4];
	int order[CXS_SOURCE_ROWS], n, j, row;

	if (!p->r->sources)
		return;
	n = cxs_sources_order(c, p->o->verbose, order);
	for (j = 0; j < n; j++) {
		row = order[j];
		snprintf(name, sizeof(name), "%s [%s]", base,
			 p->r->sources->row[row].label);
		print_part(p, ev, c, name, &c->src[row], true);
	}
}

static void print_breakdown(const struct cxs_printer *p, const struct cxs_event *ev,
			    const struct cxs_counter_values *c)
{
	char base[CXS_EVENT_NAME_MAX], label[32];
	char name[CXS_EVENT_NAME_MAX + sizeof(label) + 4];
	char *mods;
	size_t i;
	int b;

	/*
	 * The breakdown is of the counter: name it without :t, the last
	 * colon's ("irq:softirq_entry:t" is a tracepoint's).
	 */
	snprintf(base, sizeof(base), "%s", ev->name);
	mods = strrchr(base, ':');
	if (ev->task_only && mods)
		*mods = '\0';
	for (i = 0; i < ARRAY_SIZE(breakdown_order); i++) {
		b = breakdown_order[i];
		if (!bucket_shown(p, c, b))
			continue;
		cxs_bucket_label(b, label, sizeof(label));
		snprintf(name, sizeof(name), "%s [%s]", base, label);
		print_part(p, ev, c, name, &c->bucket[b], false);
		if (b == CTXCOUNT_BUCKET_HARDIRQ)
			print_sources(p, ev, c, base);
	}
}

static void print_event(const struct cxs_printer *p, const struct cxs_event *ev,
			bool with_breakdown)
{
	const struct cxs_counter_values *c = &p->r->counters[ev->counter];
	struct cxs_row row = {
		.name = ev->name,
		.ev = ev,
		.c = c,
		.val = ev->task_only ? &c->bucket[CTXCOUNT_BUCKET_TASK] : &c->full,
	};

	if (p->o->dialect == CXS_PERF_7_2)
		cxs_default_metric(p->r, ev, &row.metric);
	else if (!ev->task_only)
		cxs_full_metric(p->r, ev, cxs_sample_mean(&c->full), &row.metric);
	/*
	 * A ":t" row's share of the full count: its metric, or after 7.x's
	 * metric on a line of its own (the standard format only)
	 */
	if (ev->task_only)
		cxs_share_metric(p->o->dialect, cxs_sample_mean(row.val),
				 cxs_sample_mean(&c->full),
				 row.metric.fmt ? &row.share : &row.metric);
	cxs_print_row(p, &row);
	/* a tool event's time was counted in no context */
	if (p->o->breakdown && with_breakdown && cxs_counter_ok(c) &&
	    !cxs_event_is_tool(ev))
		print_breakdown(p, ev, c);
}

/*
 * -A: perf 6.1 prints each event for every CPU in turn; here each CPU's
 * row is followed by its context rows, metrics computed from that CPU's
 * counts.
 */
static void print_event_cpus(const struct cxs_printer *p,
			     const struct cxs_event *ev, bool with_breakdown)
{
	struct cxs_series rc = *p->r;
	struct cxs_printer pc = { .o = p->o, .r = &rc };
	int k;

	for (k = 0; k < p->r->nr_cpus; k++) {
		rc.counters = &p->r->cpu_counters[k * CTXCOUNT_MAX_EVENTS];
		pc.cpu = p->r->cpu_ids[k];
		print_event(&pc, ev, with_breakdown);
	}
}

/*
 * --per-thread: perf 6.1's print_aggr_thread(), each event's threads in
 * its own order; each row followed by its context rows, metrics from
 * that thread's counts, as -A's CPUs.
 */
static void print_event_threads(const struct cxs_printer *p,
				const struct cxs_event *ev, bool with_breakdown)
{
	const struct cxs_thread_rows *t = p->r->threads;
	struct cxs_counter_values counters[CTXCOUNT_MAX_EVENTS];
	struct cxs_series rt = *p->r;
	struct cxs_printer pt = { .o = p->o, .r = &rt, .cpu = -1 };
	int *order = calloc(t->nr ?: 1, sizeof(*order));
	int n = order ? cxs_thread_order(t, ev, order) : -1, k;

	if (n < 0)
		fprintf(p->o->f, "ctxstat: out of memory ordering the threads' rows\n");
	rt.counters = counters;
	for (k = 0; k < n; k++) {
		cxs_thread_counters(t, order[k], counters);
		pt.thread = &t->row[order[k]];
		print_event(&pt, ev, with_breakdown);
	}
	free(order);
}

static void print_header(const struct cxs_printer *p)
{
	FILE *f = p->o->f;
	char **arg;

	fprintf(f, "\n Performance counter stats for ");
	switch (p->r->target) {
	case CXS_TARGET_SYSTEM_WIDE:
		if (p->r->cpu_list)
			fprintf(f, "'CPU(s) %s", p->r->cpu_list);
		else
			fprintf(f, "'system wide");
		break;
	case CXS_TARGET_PID:
		if (p->r->pid_list)
			fprintf(f, "process id '%s", p->r->pid_list);
		else
			fprintf(f, "process id '%d", (int)p->r->pid);
		break;
	case CXS_TARGET_COMMAND:
		fputc('\'', f);
		for (arg = p->r->cmd; arg && *arg; arg++)
			fprintf(f, "%s%s", arg == p->r->cmd ? "" : " ", *arg);
		break;
	}
	fputc('\'', f);
	if (p->r->runs > 1)
		fprintf(f, " (%d runs)", p->r->runs);
	fprintf(f, ":\n\n");
}

static void print_footer(const struct cxs_printer *p)
{
	const struct cxs_series *r = p->r;
	FILE *f = p->o->f;
	double avg = cxs_sample_mean(r->elapsed_ns) / 1e9;
	double sd, noise;
	int prec;

	if (!r->null_run)
		fputc('\n', f);
	if (r->runs == 1) {
		fprintf(f, " %17.9f seconds time elapsed", avg);
		if (r->show_rusage) {
			fprintf(f, "\n\n");
			fprintf(f, " %17.9f seconds user\n", r->user_s);
			fprintf(f, " %17.9f seconds sys\n", r->sys_s);
		}
	} else {
		sd = cxs_sample_se(r->elapsed_ns) / 1e9;
		prec = cxs_stats_precision(sd);
		fprintf(f, " %17.*f +- %.*f seconds time elapsed",
			prec, avg, prec, sd);
		noise = cxs_sample_rse_pct(r->elapsed_ns);
		if (noise)
			fprintf(f, "  ( +-%6.2f%% )", noise);
	}
	fprintf(f, "\n\n");
}

/*
 * The breakdown goes under the full row of a counter (cycles rather than
 * cycles:t), or under its first :t row when it has no full one.
 */
static bool breakdown_here(const struct cxs_event_list *l, int i,
			   const bool *done)
{
	const struct cxs_event *ev = &l->ev[i];
	int j;

	if (done[ev->counter])
		return false;
	if (!ev->task_only)
		return true;
	for (j = 0; j < l->nr; j++)
		if (l->ev[j].counter == ev->counter && !l->ev[j].task_only)
			return false;
	return true;
}

/*
 * perf 6.1's print_interval(): the aggregation's columns after the time;
 * perf 7.2's print_header_interval_std() for cluster and cache (their
 * names left-aligned in 20 and 22 columns).
 */
static void print_interval_header(const struct cxs_output_opts *o,
				  const struct cxs_series *r)
{
	static const char *const aggr[] = {
		[CXS_AGGR_CORE] = " core            cpus",
		[CXS_AGGR_DIE] = " die          cpus",
		[CXS_AGGR_SOCKET] = " socket cpus",
		[CXS_AGGR_NODE] = " node   cpus",
		[CXS_AGGR_CLUSTER] = " cluster              cpus",
		[CXS_AGGR_CACHE] = " cache                  cpus",
	};

	if (r->cpu_ids && r->aggr <= CXS_AGGR_NONE)
		fprintf(o->f, "#%*s CPU    %*s %*s events\n", INTERVAL_LEN - 1,
			"time", COUNTS_LEN + 4, "counts", UNIT_LEN, "unit");
	else
		fprintf(o->f, "#%*s%s %*s %*s events\n", INTERVAL_LEN - 1, "time",
			r->cpu_ids ? aggr[r->aggr] : "", COUNTS_LEN, "counts",
			UNIT_LEN, "unit");
}

/*
 * --per-core/die/socket/node/cluster/cache: perf 6.1's print_aggr(), every
 * event of a row, row after row; each row's metrics from its own counts.
 */
static void print_aggr_rows(const struct cxs_printer *p)
{
	const struct cxs_series *r = p->r;
	struct cxs_printer pc = *p;
	struct cxs_aggr_rows rows;
	struct cxs_series rc = *r;
	bool done[CTXCOUNT_MAX_EVENTS];
	int k, i;

	if (cxs_aggr_rows_build(&rows, r->aggr, r->cache_level, r->nr_cpus,
				r->cpu_ids, r->cpu_counters,
				r->events->nr_counters)) {
		fprintf(p->o->f, "ctxstat: out of memory summing the CPUs' rows\n");
		return;
	}
	pc.r = &rc;
	for (k = 0; k < rows.nr; k++) {
		rc.counters = &rows.counters[k * CTXCOUNT_MAX_EVENTS];
		pc.aggr_id = &rows.id[k];
		pc.aggr_nr = rows.nr_cpus[k];
		memset(done, 0, sizeof(done));
		for (i = 0; i < r->events->nr; i++) {
			bool here = breakdown_here(r->events, i, done);

			print_event(&pc, &r->events->ev[i], here);
			if (here)
				done[r->events->ev[i].counter] = true;
		}
	}
	cxs_aggr_rows_free(&rows);
}

void cxs_output_series(const struct cxs_output_opts *o,
		       const struct cxs_series *r)
{
	struct cxs_printer p = { .o = o, .r = r, .cpu = -1 };
	bool done[CTXCOUNT_MAX_EVENTS] = { false };
	const struct cxs_event *ev;
	locale_t old = (locale_t)0;
	bool here;
	int i;

	if (o->quiet)
		return;
	/* CSV and JSON are for programs; perf's table groups per locale. */
	if (o->format != CXS_OUTPUT_STD)
		old = uselocale(cxs_c_locale());
	if (o->format == CXS_OUTPUT_STD && !o->interval)
		print_header(&p);
	if (o->format == CXS_OUTPUT_STD && o->interval && o->interval_header)
		print_interval_header(o, r);
	if (r->cpu_ids && r->aggr > CXS_AGGR_NONE && !r->null_run)
		print_aggr_rows(&p);
	for (i = 0; !r->null_run && !(r->cpu_ids && r->aggr > CXS_AGGR_NONE) &&
	     i < r->events->nr; i++) {
		ev = &r->events->ev[i];
		here = breakdown_here(r->events, i, done);
		if (r->threads)
			print_event_threads(&p, ev, here);
		else if (r->cpu_ids)
			print_event_cpus(&p, ev, here);
		else
			print_event(&p, ev, here);
		if (here)
			done[ev->counter] = true;
	}
	if (o->format == CXS_OUTPUT_STD && !o->interval)
		print_footer(&p);
	if (old)
		uselocale(old);
	fflush(o->f);
}
