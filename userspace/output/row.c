// SPDX-License-Identifier: GPL-2.0
/*
 * row: one row of perf stat's output, byte for byte where perf defines
 * it (perf 6.1 tools/perf/util/stat-display.c, checked against real
 * `perf stat` output; perf 7.2's where its dialect differs).
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "output/csv.h"
#include "output/row.h"
#include "stats/perf-stat.h"
#include "util/json.h"

#define EVNAME_LEN	32
#define BAD_EVNAME_LEN	25	/* perf pads failed rows' names less */
#define METRIC_LEN	35
#define METRIC_LEN_7_2	38
#define SUMMARY_LEN	16

#define CNTR_NOT_SUPPORTED	"<not supported>"
#define CNTR_NOT_COUNTED	"<not counted>"

/*
 * Clocks count ns and print msec, as perf's task-clock/cpu-clock;
 * duration_time prints its ns, with perf's unit.
 */
static double display_scale(const struct cxs_event *ev)
{
	return cxs_event_is_clock(ev) ? 1e-6 : 1.0;
}

static const char *display_unit(const struct cxs_event *ev)
{
	if (ev->tool == CXS_TOOL_DURATION_TIME)
		return "ns";
	return cxs_event_is_clock(ev) ? "msec" : "";
}

static bool row_ok(const struct cxs_row *row)
{
	return cxs_counter_ok(row->c);
}

static double row_noise(const struct cxs_printer *p, const struct cxs_row *row)
{
	if (p->r->runs <= 1)
		return 0;
	return cxs_sample_rse_pct(row->val);
}

/*
 * A counter the kernel could not create never ran: perf shows it with run
 * and enabled 0 (no percentage), even though the session had time enabled.
 */
static uint64_t row_run(const struct cxs_row *row)
{
	if (row->c->error)
		return 0;
	return (uint64_t)llround(cxs_sample_mean(&row->c->running));
}

static uint64_t row_ena(const struct cxs_row *row)
{
	if (row->c->error)
		return 0;
	return (uint64_t)llround(cxs_sample_mean(&row->c->enabled));
}

static const char *bad_count(const struct cxs_row *row)
{
	return row->c->error ? CNTR_NOT_SUPPORTED : CNTR_NOT_COUNTED;
}

static int metric_len(const struct cxs_output_opts *o)
{
	return o->dialect == CXS_PERF_7_2 ? METRIC_LEN_7_2 : METRIC_LEN;
}

static void print_std_metric(FILE *f, const struct cxs_metric *m, int len)
{
	int n;

	if (!m->fmt) {
		fprintf(f, "%-*s", len, "");
		return;
	}
	n = fprintf(f, " # ");
	n += fprintf(f, m->fmt, m->val);
	fprintf(f, " %-*s", len - n - 1, m->unit);
}

/* perf's JSON key of a --per-* row's ids */
static const char *aggr_json_key(enum cxs_aggr mode)
{
	switch (mode) {
	case CXS_AGGR_CORE:
		return "core";
	case CXS_AGGR_DIE:
		return "die";
	case CXS_AGGR_SOCKET:
		return "socket";
	case CXS_AGGR_CLUSTER:
		return "cluster";
	case CXS_AGGR_CACHE:
		return "cache";
	default:
		return "node";
	}
}

/*
 * perf 6.1's aggr_printout() for --per-core/die/socket/node, perf 7.2's
 * for --per-cluster/cache (the whole id padded): the row's ids, then how
 * many CPUs it sums; in the standard format the fields are padded and
 * the separator is a blank.
 */
static void print_aggr_prefix(const struct cxs_printer *p)
{
	const struct cxs_aggr_id *id = p->aggr_id;
	const struct cxs_output_opts *o = p->o;
	bool csv = o->format == CXS_OUTPUT_CSV;
	const char *sep = csv ? o->sep : " ";
	char label[64], ids[56];

	switch (p->r->aggr) {
	case CXS_AGGR_CORE:
		snprintf(label, sizeof(label), "S%d-D%d-C%*d", id->socket, id->die,
			 csv ? 0 : -8, id->core);
		break;
	case CXS_AGGR_DIE:
		snprintf(label, sizeof(label), "S%d-D%*d", id->socket,
			 csv ? 0 : -8, id->die);
		break;
	case CXS_AGGR_SOCKET:
		snprintf(label, sizeof(label), "S%*d", csv ? 0 : -5, id->socket);
		break;
	case CXS_AGGR_CLUSTER:
		snprintf(ids, sizeof(ids), "S%d-D%d-CLS%d", id->socket, id->die,
			 id->cluster);
		snprintf(label, sizeof(label), "%-*s", csv ? 0 : 20, ids);
		break;
	case CXS_AGGR_CACHE:
		snprintf(ids, sizeof(ids), "S%d-D%d-L%d-ID%d", id->socket, id->die,
			 id->cache_lvl, id->cache);
		snprintf(label, sizeof(label), "%-*s", csv ? 0 : 22, ids);
		break;
	default:
		snprintf(label, sizeof(label), "N%*d", csv ? 0 : -5, id->node);
		break;
	}
	if (o->format != CXS_OUTPUT_JSON) {
		fprintf(o->f, "%s%s%*d%s", label, sep, csv ? 0 : 4, p->aggr_nr, sep);
		return;
	}
	/* JSON: the same ids without padding, under perf's keys */
	label[strcspn(label, " ")] = '\0';
	fprintf(o->f, "\"%s\" : \"%s\", \"%s\" : %d, ",
		aggr_json_key(p->r->aggr), label,
		o->dialect == CXS_PERF_7_2 ? "counters" : "aggregate-number",
		p->aggr_nr);
}

/*
 * perf 6.1's aggr_printout() for AGGR_THREAD: "comm-tid", padded and
 * followed by a blank in the standard format. perf does not quote a comm
 * that holds the CSV separator (its field count then breaks): ctxstat
 * does, and escapes it in JSON.
 */
static void print_thread_prefix(const struct cxs_printer *p)
{
	const struct cxs_output_opts *o = p->o;
	char label[CTXCOUNT_THREAD_COMM_LEN + 16];

	snprintf(label, sizeof(label), "%s-%d", p->thread->comm,
		 (int)p->thread->tid);
	switch (o->format) {
	case CXS_OUTPUT_STD:
		fprintf(o->f, "%16s-%-8d ", p->thread->comm, (int)p->thread->tid);
		break;
	case CXS_OUTPUT_CSV:
		cxs_csv_field(o->f, o->sep, label, 1);
		fputs(o->sep, o->f);
		break;
	case CXS_OUTPUT_JSON:
		fputs("\"thread\" : ", o->f);
		cxs_json_write_string(o->f, label);
		fputs(", ", o->f);
		break;
	}
}

/*
 * What begins a row: with -I the time column ("%6lu.%09lu", perf's
 * prepare_interval()), after --summary "summary" in CSV; JSON opens the
 * row's object here.
 */
static void print_row_prefix(const struct cxs_printer *p)
{
	const struct cxs_output_opts *o = p->o;
	unsigned long s = o->interval_ns / 1000000000;
	unsigned long ns = o->interval_ns % 1000000000;

	switch (o->format) {
	case CXS_OUTPUT_STD:
		if (o->interval)
			fprintf(o->f, "%6lu.%09lu ", s, ns);
		/* perf 6.1's aggr_printout(): "CPU%*d%s", -7, csv_sep */
		if (p->cpu >= 0)
			fprintf(o->f, "CPU%-7d ", p->cpu);
		break;
	case CXS_OUTPUT_CSV:
		if (o->interval)
			fprintf(o->f, "%6lu.%09lu%s", s, ns, o->sep);
		else if (o->summary && !o->no_csv_summary)
			fprintf(o->f, "%*s%s", SUMMARY_LEN, "summary", o->sep);
		if (p->cpu >= 0)
			fprintf(o->f, "CPU%d%s", p->cpu, o->sep);
		break;
	case CXS_OUTPUT_JSON:
		if (o->interval)
			fprintf(o->f, "{\"interval\" : %lu.%09lu, ", s, ns);
		else
			fputc('{', o->f);
		if (p->cpu >= 0)
			fprintf(o->f, "\"cpu\" : \"%d\", ", p->cpu);
		break;
	}
	if (p->aggr_id)
		print_aggr_prefix(p);
	if (p->thread)
		print_thread_prefix(p);
}

/*
 * perf 7.x's line of an event's second metric: the row's prefix, blanks
 * up to the metric column, the metric.
 */
static void print_std_metric_line(const struct cxs_printer *p,
				  const struct cxs_metric *m)
{
	print_row_prefix(p);
	fprintf(p->o->f, "%*s", COUNTS_LEN + 1 + UNIT_LEN + 1 + EVNAME_LEN, "");
	print_std_metric(p->o->f, m, metric_len(p->o));
	fputc('\n', p->o->f);
}

static void print_std_row(const struct cxs_printer *p, const struct cxs_row *row)
{
	FILE *f = p->o->f;
	double scale = display_scale(row->ev), noise = row_noise(p, row);
	uint64_t run = row_run(row), ena = row_ena(row);
	/* perf 6.1 pads a failed row's name less, and gives it no metric */
	bool bad_6_1 = !row_ok(row) && p->o->dialect != CXS_PERF_7_2;

	if (!row_ok(row))
		fprintf(f, "%*s ", COUNTS_LEN, bad_count(row));
	/* %' groups thousands per LC_NUMERIC, as perf's big_num. */
	else if (!p->o->no_big_num)
		fprintf(f, scale != 1.0 ? "%'*.2f " : "%'*.0f ",
			COUNTS_LEN, cxs_sample_mean(row->val) * scale);
	else
		fprintf(f, scale != 1.0 ? "%*.2f " : "%*.0f ",
			COUNTS_LEN, cxs_sample_mean(row->val) * scale);
	fprintf(f, "%-*s ", UNIT_LEN, display_unit(row->ev));
	fprintf(f, "%-*s", bad_6_1 ? BAD_EVNAME_LEN : EVNAME_LEN, row->name);
	if (bad_6_1)
		fprintf(f, "%-*s", METRIC_LEN, "");
	else
		print_std_metric(f, &row->metric, metric_len(p->o));
	if (noise)
		fprintf(f, "  ( +-%6.2f%% )", noise);
	if (run != ena)
		fprintf(f, "  (%.2f%%)", 100.0 * run / ena);
	fputc('\n', f);
	if (row->share.fmt)
		print_std_metric_line(p, &row->share);
}

/* perf's CSV metric value: the formatted number without padding or '%'. */
static void csv_metric_value(const struct cxs_metric *m, char *buf, size_t len)
{
	char *start, *end;

	snprintf(buf, len, m->fmt, m->val);
	start = buf + strspn(buf, " ");
	for (end = start; (*end >= '0' && *end <= '9') || *end == '.'; end++)
		;
	*end = '\0';
	memmove(buf, start, end - start + 1);
}

static void print_csv_row(const struct cxs_printer *p, const struct cxs_row *row)
{
	FILE *f = p->o->f;
	const char *sep = p->o->sep;
	double scale = display_scale(row->ev);
	uint64_t run = row_run(row), ena = row_ena(row);
	char mval[64];

	if (row_ok(row))
		fprintf(f, scale != 1.0 ? "%.2f%s" : "%.0f%s",
			cxs_sample_mean(row->val) * scale, sep);
	else
		fprintf(f, "%s%s", bad_count(row), sep);
	fprintf(f, "%s%s", display_unit(row->ev), sep);
	if (row->quote)
		cxs_csv_field(f, sep, row->name, 1);
	else
		fputs(row->name, f);
	if (p->r->runs > 1)
		fprintf(f, "%s%.2f%%", sep, row_noise(p, row));
	/* perf computes this percentage in integers: 99.6% prints 99.00. */
	fprintf(f, "%s%" PRIu64 "%s%.2f", sep, run, sep,
		run != ena && ena ? (double)(100 * run / ena) : 100.0);
	/* 7.x: a metric of what was not counted, NaN, is an empty value */
	if (row->metric.fmt && (row_ok(row) || p->o->dialect == CXS_PERF_7_2)) {
		csv_metric_value(&row->metric, mval, sizeof(mval));
		fprintf(f, "%s%s%s%s", sep, mval, sep, row->metric.unit);
	} else {
		fprintf(f, "%s%s", sep, sep);
	}
	fputc('\n', f);
}

static void print_json_row(const struct cxs_printer *p, const struct cxs_row *row)
{
	FILE *f = p->o->f;
	uint64_t run = row_run(row), ena = row_ena(row);
	bool ok = row_ok(row);

	if (ok)
		fprintf(f, "\"counter-value\" : \"%f\", ",
			cxs_sample_mean(row->val) * display_scale(row->ev));
	else
		fprintf(f, "\"counter-value\" : \"%s\", ", bad_count(row));
	fprintf(f, "\"unit\" : \"%s\", \"event\" : ", display_unit(row->ev));
	cxs_json_write_string(f, row->name);
	fputs(", ", f);
	if (p->r->runs > 1)
		fprintf(f, "\"variance\" : %.2f, ", row_noise(p, row));
	fprintf(f, "\"event-runtime\" : %" PRIu64 ", \"pcnt-running\" : %.2f",
		run, run != ena && ena ? (double)(100 * run / ena) : 100.0);
	if (p->o->dialect == CXS_PERF_7_2) {
		/* 7.x: the value as a string ("nan" too), no keys without one */
		if (row->metric.fmt)
			fprintf(f, ", \"metric-value\" : \"%f\", \"metric-unit\" : \"%s\"",
				row->metric.val, row->metric.unit);
		fputs("}\n", f);
		return;
	}
	fputs(", ", f);
	if (ok && row->metric.fmt)
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : \"%s\"}\n",
			row->metric.val, row->metric.unit);
	else
		fprintf(f, "\"metric-value\" : %f, \"metric-unit\" : \"\"}\n",
			0.0);
}

/* @s's lines without their trailing blanks */
static void fputs_trimmed(const char *s, FILE *f)
{
	const char *end;
	size_t n;

	while (*s) {
		end = strchrnul(s, '\n');
		for (n = end - s; n && s[n - 1] == ' '; n--)
			;
		fwrite(s, 1, n, f);
		if (!*end)
			break;
		fputc('\n', f);
		s = end + 1;
	}
}

/*
 * @o->trim: the row without its trailing blanks. perf pads the metric
 * column even when nothing follows it; on a terminal that padding wraps
 * -A's rows (CPU column, time column) in 100 columns.
 */
static void print_std_row_trimmed(const struct cxs_printer *p,
				  const struct cxs_row *row)
{
	struct cxs_output_opts o = *p->o;
	struct cxs_printer tp = *p;
	char *buf = NULL;
	size_t len = 0;

	o.f = open_memstream(&buf, &len);
	if (!o.f) {
		print_std_row(p, row);
		return;
	}
	tp.o = &o;
	print_std_row(&tp, row);
	fclose(o.f);
	fputs_trimmed(buf, p->o->f);
	free(buf);
}

/**
 * cxs_print_row() - one row in the printer's format, with -I's time
 * column and -A's CPU column first
 */
void cxs_print_row(const struct cxs_printer *p, const struct cxs_row *row)
{
	print_row_prefix(p);
	switch (p->o->format) {
	case CXS_OUTPUT_STD:
		if (p->o->trim)
			print_std_row_trimmed(p, row);
		else
			print_std_row(p, row);
		break;
	case CXS_OUTPUT_CSV:
		print_csv_row(p, row);
		break;
	case CXS_OUTPUT_JSON:
		print_json_row(p, row);
		break;
	}
}
