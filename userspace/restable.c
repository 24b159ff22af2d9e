// SPDX-License-Identifier: GPL-2.0
/*
 * restable: rows are (benchmark, event) in the order they first appear in
 * the files, columns the configurations likewise. A configuration that has
 * no result for a row gets an empty cell. A change is marked significant
 * ('*') when Welch's test gives p < 0.05, as in `ctxstat compare`.
 */
#include <stdlib.h>
#include <string.h>

#include "abtest.h"
#include "csv.h"
#include "restable.h"
#include "util.h"
#include "welch.h"

struct row {
	const char *bench, *event;
};

struct table {
	struct row *rows;
	int nr_rows;
	const char **cfgs;
	int nr_cfgs;
	const struct ctx_result_set *set;
};

static bool is_clock(const char *event)
{
	return !strncmp(event, "task-clock", 10) ||
	       !strncmp(event, "cpu-clock", 9);
}

static const struct ctx_result_event *find(const struct table *t,
					   const struct row *row,
					   const char *cfg)
{
	const struct ctx_result_set *s = t->set;
	int i, e;

	for (i = 0; i < s->nr; i++) {
		if (strcmp(s->r[i].benchmark, row->bench) ||
		    strcmp(s->r[i].config, cfg))
			continue;
		for (e = 0; e < s->r[i].nr_ev; e++)
			if (!strcmp(s->r[i].ev[e].name, row->event))
				return &s->r[i].ev[e];
	}
	return NULL;
}

static int build(struct table *t, const struct ctx_result_set *s)
{
	int i, e, j, nr_ev = 0;

	for (i = 0; i < s->nr; i++)
		nr_ev += s->r[i].nr_ev;
	t->set = s;
	t->rows = calloc(nr_ev + 1, sizeof(*t->rows));
	t->cfgs = calloc(s->nr + 1, sizeof(*t->cfgs));
	if (!t->rows || !t->cfgs)
		return -1;
	for (i = 0; i < s->nr; i++) {
		for (j = 0; j < t->nr_cfgs && strcmp(t->cfgs[j], s->r[i].config); j++)
			;
		if (j == t->nr_cfgs)
			t->cfgs[t->nr_cfgs++] = s->r[i].config;
		for (e = 0; e < s->r[i].nr_ev; e++) {
			for (j = 0; j < t->nr_rows; j++)
				if (!strcmp(t->rows[j].bench, s->r[i].benchmark) &&
				    !strcmp(t->rows[j].event, s->r[i].ev[e].name))
					break;
			if (j == t->nr_rows) {
				t->rows[j].bench = s->r[i].benchmark;
				t->rows[j].event = s->r[i].ev[e].name;
				t->nr_rows++;
			}
		}
	}
	return 0;
}

static void fmt_num(const char *event, double v, char *buf, size_t len)
{
	if (is_clock(event))
		snprintf(buf, len, "%'.2f", v / 1e6);
	else
		snprintf(buf, len, "%'.0f", v);
}

/* "mean ± ci" and, against the base column, " (+1.23% *)" */
static void cell(const struct row *row, const struct ctx_result_event *e,
		 const struct ctx_result_event *base, char *buf, size_t len)
{
	char m[40], c[40];
	struct ctx_welch w;
	size_t n;

	if (!e) {
		buf[0] = '\0';
		return;
	}
	if (e->error || !e->values.n) {
		snprintf(buf, len, "<not counted>");
		return;
	}
	fmt_num(row->event, ctx_sample_mean(&e->values), m, sizeof(m));
	fmt_num(row->event, ctx_sample_ci95(&e->values), c, sizeof(c));
	n = snprintf(buf, len, "%s ± %s", m, c);
	if (!base || base == e || base->error || n >= len ||
	    ctx_welch(&base->values, &e->values, 0.95, &w) || w.mean_a == 0)
		return;
	snprintf(buf + n, len - n, " (%+.2f%%%s)", 100.0 * w.diff / w.mean_a,
		 w.p < CTX_COMPARE_ALPHA ? " *" : "");
}

#define CELL_MAX 96

static void dashes(FILE *f, int n, const char *end)
{
	while (n-- > 0)
		fputc('-', f);
	fputs(end, f);
}

static void text_or_md(FILE *f, const struct table *t, bool md)
{
	int wb = 9, we = 5, *wc, i, j;
	char buf[CELL_MAX];

	wc = calloc(t->nr_cfgs, sizeof(*wc));
	if (!wc)
		return;
	for (j = 0; j < t->nr_cfgs; j++)
		wc[j] = strlen(t->cfgs[j]);
	for (i = 0; i < t->nr_rows; i++) {
		const struct ctx_result_event *base =
			find(t, &t->rows[i], t->cfgs[0]);

		if ((int)strlen(t->rows[i].bench) > wb)
			wb = strlen(t->rows[i].bench);
		if ((int)strlen(t->rows[i].event) > we)
			we = strlen(t->rows[i].event);
		for (j = 0; j < t->nr_cfgs; j++) {
			cell(&t->rows[i], find(t, &t->rows[i], t->cfgs[j]),
			     base, buf, sizeof(buf));
			/* "±" is two bytes, one column */
			if ((int)strlen(buf) - 1 > wc[j])
				wc[j] = strlen(buf) - 1;
		}
	}
	fprintf(f, md ? "| %-*s | %-*s |" : "%-*s  %-*s", wb, "benchmark",
		we, "event");
	for (j = 0; j < t->nr_cfgs; j++)
		fprintf(f, md ? " %*s |" : "  %*s", wc[j], t->cfgs[j]);
	fputc('\n', f);
	if (md) {
		fputc('|', f);
		dashes(f, wb + 2, "|");
		dashes(f, we + 2, "|");
		for (j = 0; j < t->nr_cfgs; j++)
			dashes(f, wc[j] + 1, ":|");	/* right-aligned */
		fputc('\n', f);
	}
	for (i = 0; i < t->nr_rows; i++) {
		const struct ctx_result_event *base =
			find(t, &t->rows[i], t->cfgs[0]);

		fprintf(f, md ? "| %-*s | %-*s |" : "%-*s  %-*s", wb,
			t->rows[i].bench, we, t->rows[i].event);
		for (j = 0; j < t->nr_cfgs; j++) {
			cell(&t->rows[i], find(t, &t->rows[i], t->cfgs[j]),
			     base, buf, sizeof(buf));
			fprintf(f, md ? " %*s |" : "  %*s",
				wc[j] + (strstr(buf, "±") ? 1 : 0), buf);
		}
		fputc('\n', f);
	}
	fprintf(f, "\nmean ± 95%% confidence interval (Student t); (change vs %s, * = p < 0.05, Welch)\n",
		t->cfgs[0]);
	free(wc);
}

/* "<configuration> <what>", one header field */
static void csv_head(FILE *f, const char *s, const char *cfg,
		     const char *what)
{
	char name[256];

	snprintf(name, sizeof(name), "%s %s", cfg, what);
	ctx_csv_field(f, s, name, 0);
}

/* One configuration's fields of a row; @base is the first's cell. */
static void csv_cells(FILE *f, const char *s,
		      const struct ctx_result_event *e,
		      const struct ctx_result_event *base, bool first)
{
	bool ok = e && !e->error && e->values.n;
	struct ctx_welch w;

	if (ok) {
		ctx_csv_num(f, s, "%.17g", ctx_sample_mean(&e->values));
		ctx_csv_num(f, s, "%.17g", ctx_sample_ci95(&e->values));
		ctx_csv_num(f, s, "%.0f", e->values.n);
	} else {
		fprintf(f, "%s%s%s", s, s, s);
	}
	if (first)
		return;
	if (ok && base && !base->error &&
	    !ctx_welch(&base->values, &e->values, 0.95, &w) && w.mean_a != 0) {
		ctx_csv_num(f, s, "%.4f", 100.0 * w.diff / w.mean_a);
		ctx_csv_num(f, s, "%.6g", w.p);
	} else {
		fprintf(f, "%s%s", s, s);
	}
}

static void csv(FILE *f, const struct table *t, const char *s)
{
	int i, j;

	ctx_csv_field(f, s, "benchmark", 1);
	ctx_csv_field(f, s, "event", 0);
	for (j = 0; j < t->nr_cfgs; j++) {
		csv_head(f, s, t->cfgs[j], "mean");
		csv_head(f, s, t->cfgs[j], "ci95");
		csv_head(f, s, t->cfgs[j], "runs");
		if (j) {
			csv_head(f, s, t->cfgs[j], "change%");
			csv_head(f, s, t->cfgs[j], "p");
		}
	}
	fputc('\n', f);
	for (i = 0; i < t->nr_rows; i++) {
		const struct ctx_result_event *base =
			find(t, &t->rows[i], t->cfgs[0]);

		ctx_csv_field(f, s, t->rows[i].bench, 1);
		ctx_csv_field(f, s, t->rows[i].event, 0);
		for (j = 0; j < t->nr_cfgs; j++)
			csv_cells(f, s, find(t, &t->rows[i], t->cfgs[j]), base,
				  !j);
		fputc('\n', f);
	}
}

int ctx_results_table(FILE *f, enum ctx_table_format fmt, const char *sep,
		     const struct ctx_result_set *set)
{
	struct table t = { 0 };

	if (!set->nr || build(&t, set)) {
		free(t.rows);
		free(t.cfgs);
		return -1;
	}
	if (fmt == CTX_TABLE_CSV) {
		locale_t old = uselocale(ctx_c_locale());

		csv(f, &t, sep ? sep : ",");
		if (old)
			uselocale(old);
	} else {
		text_or_md(f, &t, fmt == CTX_TABLE_MARKDOWN);
	}
	free(t.rows);
	free(t.cfgs);
	return 0;
}
