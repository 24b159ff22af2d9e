// SPDX-License-Identifier: GPL-2.0
/*
 * results-table: rows are (benchmark, event) in the order they first appear in
 * the files, columns the configurations likewise. A configuration that has
 * no result for a row gets an empty cell. Each column after the first is
 * compared with the first as `ctxstat compare` compares B with A, with its
 * code (stats/ab-test.c): per benchmark, its events tested together (Welch,
 * Holm's correction over them, the threshold), so that a file saved by
 * compare reads here with compare's verdicts. "±" is the standard error
 * of the mean, perf's "+-", as in compare.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "events/events.h"
#include "output/csv.h"
#include "output/figure.h"
#include "output/results-table.h"
#include "stats/ab-test.h"
#include "util/util.h"

struct row {
	const char *bench, *event;
	bool clock;	/* ns saved; a time, as compare says */
};

struct table {
	struct row *rows;
	int nr_rows;
	const char **cfgs;
	int nr_cfgs;
	const struct cxs_result_set *set;
	/* [row * nr_cfgs + cfg]: the comparison with the first column */
	struct cxs_compare_row *cmp;
};

static const struct cxs_result_event *find(const struct table *t,
					   const struct row *row,
					   const char *cfg)
{
	const struct cxs_result_set *s = t->set;
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

static bool counted(const struct cxs_result_event *e)
{
	return e && !e->error && e->values.n;
}

static int build(struct table *t, const struct cxs_result_set *s)
{
	size_t nr_ev = 0;
	int i, e, j;

	for (i = 0; i < s->nr; i++)
		nr_ev += (unsigned int)s->r[i].nr_ev;
	t->set = s;
	t->rows = calloc(nr_ev + 1, sizeof(*t->rows));
	t->cfgs = calloc((unsigned int)s->nr + 1, sizeof(*t->cfgs));
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
				t->rows[j].clock = cxs_event_name_is_clock(t->rows[j].event);
				t->nr_rows++;
			}
		}
	}
	return 0;
}

/*
 * Column @j against the first, benchmark @bench: the rows of its events
 * that both have counted, tested together as compare tests them.
 */
static int compare_column(struct table *t, int j, const char *bench,
			  double threshold_pct)
{
	struct cxs_compare_row *rows = calloc(t->nr_rows + 1, sizeof(*rows));
	const struct cxs_result_event *a, *b;
	int *at = calloc(t->nr_rows + 1, sizeof(*at));
	int i, n = 0;

	if (!rows || !at) {
		free(rows);
		free(at);
		return -1;
	}
	for (i = 0; i < t->nr_rows; i++) {
		if (strcmp(t->rows[i].bench, bench))
			continue;
		a = find(t, &t->rows[i], t->cfgs[0]);
		b = find(t, &t->rows[i], t->cfgs[j]);
		if (!counted(a) || !counted(b))
			continue;
		rows[n] = (struct cxs_compare_row){
			.name = t->rows[i].event, .counter = i,
			.clock = t->rows[i].clock,
			.a = &a->values, .b = &b->values,
		};
		at[n++] = i;
	}
	cxs_compare_eval(rows, n, threshold_pct);
	for (i = 0; i < n; i++)
		t->cmp[at[i] * t->nr_cfgs + j] = rows[i];
	free(rows);
	free(at);
	return 0;
}

/* Every column after the first against it, benchmark by benchmark. */
static int compare_all(struct table *t, double threshold_pct)
{
	int i, j, k;

	t->cmp = calloc((size_t)t->nr_rows * t->nr_cfgs + 1, sizeof(*t->cmp));
	if (!t->cmp)
		return -1;
	for (j = 1; j < t->nr_cfgs; j++)
		for (i = 0; i < t->nr_rows; i++) {
			/* each benchmark once, at its first row */
			for (k = 0; k < i && strcmp(t->rows[k].bench, t->rows[i].bench); k++)
				;
			if (k == i && compare_column(t, j, t->rows[i].bench, threshold_pct))
				return -1;
		}
	return 0;
}

/* A tested cell's comparison with the first column, or NULL. */
static const struct cxs_compare_row *cmp_of(const struct table *t, int i, int j)
{
	const struct cxs_compare_row *c = &t->cmp[i * t->nr_cfgs + j];

	return j && c->a ? c : NULL;
}

/*
 * A change in percent with two decimals, or with three or four where two
 * would round it onto the other side of @threshold_pct than the verdict
 * put it: 0.995 % against 1 % is "+0.995%", not "+1.00%".
 */
static void change_text(char *buf, size_t len, double pct, double threshold_pct)
{
	double scale = 100;
	int d;

	for (d = 2; d < 4; d++, scale *= 10)
		if ((round(fabs(pct) * scale) / scale < threshold_pct) ==
		    (fabs(pct) < threshold_pct))
			break;
	snprintf(buf, len, "%+.*f%%", d, pct);
}

/*
 * "mean ± se" ("mean (1 run)": one run has no spread) and, against the
 * first column, " (+1.23% more)": the change and compare's verdict, no
 * word for no significant change.
 */
static void cell(const struct table *t, int i, int j, char *buf, size_t len)
{
	const struct cxs_result_event *e = find(t, &t->rows[i], t->cfgs[j]);
	const struct cxs_compare_row *c = cmp_of(t, i, j);
	bool clock = t->rows[i].clock;
	char m[40], change[24];
	size_t n;

	if (!e) {
		buf[0] = '\0';
		return;
	}
	if (!counted(e)) {
		snprintf(buf, len, "<not counted>");
		return;
	}
	if (e->values.n < 2) {
		cxs_figure(cxs_sample_mean(&e->values), 4, clock, m, sizeof(m));
		n = snprintf(buf, len, "%s (1 run)", m);
	} else {
		cxs_figure_mean_se(cxs_sample_mean(&e->values),
				   cxs_sample_se(&e->values), clock, buf, len);
		n = strlen(buf);
	}
	if (!c || n >= len || c->verdict == CXS_VERDICT_TOO_FEW || !c->w.mean_a)
		return;
	change_text(change, sizeof(change), 100.0 * c->w.diff / fabs(c->w.mean_a),
		    c->threshold_pct);
	snprintf(buf + n, len - n, " (%s%s%s)", change,
		 c->verdict == CXS_VERDICT_SAME ? "" : " ",
		 c->verdict == CXS_VERDICT_SAME ? "" :
		 cxs_verdict_name(c->verdict, c->clock, c->threshold_pct));
}

/*
 * Markdown (CommonMark, GitHub's tables): a "|" would split the row,
 * "<not counted>" is raw HTML that renderers hide, a newline ends the row
 * and a tab moves the cell: @c written as @buf says, or NULL as itself.
 */
static const char *md_escape(unsigned char c, char buf[5])
{
	if (c && strchr("|<>\\", c))
		snprintf(buf, 5, "\\%c", c);
	else if (c == '\n')
		return "\\n";
	else if (c == '\t')
		return "\\t";
	else if (c < 0x20 || c == 0x7f)
		snprintf(buf, 5, "\\x%02x", c);
	else
		return NULL;
	return buf;
}

/* Columns @s takes: "±" is two bytes, one column; md escapes are ASCII. */
static int width(const char *s, bool md)
{
	const char *e;
	char buf[5];
	int n = 0;

	for (; *s; s++) {
		e = md ? md_escape(*s, buf) : NULL;
		n += e ? (int)strlen(e) : (((unsigned char)*s & 0xc0) != 0x80);
	}
	return n;
}

static void md_text(FILE *f, const char *s, int w, bool right)
{
	int pad = w - width(s, true);
	const char *e;
	char buf[5];

	if (right && pad > 0)
		fprintf(f, "%*s", pad, "");
	for (; *s; s++) {
		e = md_escape(*s, buf);
		if (e)
			fputs(e, f);
		else
			fputc(*s, f);
	}
	if (!right && pad > 0)
		fprintf(f, "%*s", pad, "");
}

#define CELL_MAX 128

static void dashes(FILE *f, int n, const char *end)
{
	while (n-- > 0)
		fputc('-', f);
	fputs(end, f);
}

static void text_cell(FILE *f, const char *s, int w, bool md, bool right)
{
	if (md) {
		fputc(' ', f);
		md_text(f, s, w, right);
		fputs(" |", f);
	} else {
		fprintf(f, "  %*s", w + (int)strlen(s) - width(s, false), s);
	}
}

static void legend(FILE *f, const struct table *t, double threshold_pct)
{
	fprintf(f, "\nmean ± standard error of the mean (perf's +-); against %s: the change and, when\n"
		"significant, the verdict: Welch's t-test with Holm's correction over a benchmark's\n"
		"events, and a change of %g%% at least (--threshold): clocks slower or faster, counts\n"
		"more or fewer; \"changed < %g%%\" when significant but smaller. As ctxstat compare.\n",
		t->cfgs[0], threshold_pct, threshold_pct);
}

static void text_or_md(FILE *f, const struct table *t, bool md,
		       double threshold_pct)
{
	int wb = 9, we = 5, *wc, i, j;
	char buf[CELL_MAX];

	wc = calloc(t->nr_cfgs, sizeof(*wc));
	if (!wc)
		return;
	for (j = 0; j < t->nr_cfgs; j++)
		wc[j] = width(t->cfgs[j], md);
	for (i = 0; i < t->nr_rows; i++) {
		if (width(t->rows[i].bench, md) > wb)
			wb = width(t->rows[i].bench, md);
		if (width(t->rows[i].event, md) > we)
			we = width(t->rows[i].event, md);
		for (j = 0; j < t->nr_cfgs; j++) {
			cell(t, i, j, buf, sizeof(buf));
			if (width(buf, md) > wc[j])
				wc[j] = width(buf, md);
		}
	}
	if (md) {
		fputs("| ", f);
		md_text(f, "benchmark", wb, false);
		fputs(" | ", f);
		md_text(f, "event", we, false);
		fputs(" |", f);
	} else {
		fprintf(f, "%-*s  %-*s", wb, "benchmark", we, "event");
	}
	for (j = 0; j < t->nr_cfgs; j++)
		text_cell(f, t->cfgs[j], wc[j], md, true);
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
		if (md) {
			fputs("| ", f);
			md_text(f, t->rows[i].bench, wb, false);
			fputs(" | ", f);
			md_text(f, t->rows[i].event, we, false);
			fputs(" |", f);
		} else {
			fprintf(f, "%-*s  %-*s", wb, t->rows[i].bench, we,
				t->rows[i].event);
		}
		for (j = 0; j < t->nr_cfgs; j++) {
			cell(t, i, j, buf, sizeof(buf));
			text_cell(f, buf, wc[j], md, true);
		}
		fputc('\n', f);
	}
	legend(f, t, threshold_pct);
	free(wc);
}

/* "<configuration> <what>", one header field */
static void csv_head(FILE *f, const char *s, const char *cfg,
		     const char *what)
{
	char name[256];

	snprintf(name, sizeof(name), "%s %s", cfg, what);
	cxs_csv_field(f, s, name, 0);
}

/* Configuration @j's fields of row @i. */
static void csv_cells(FILE *f, const char *s, const struct table *t, int i,
		      int j)
{
	const struct cxs_result_event *e = find(t, &t->rows[i], t->cfgs[j]);
	const struct cxs_compare_row *c = cmp_of(t, i, j);
	bool clock = t->rows[i].clock;

	if (counted(e)) {
		cxs_csv_figure(f, s, cxs_sample_mean(&e->values), clock);
		if (e->values.n > 1)
			cxs_csv_figure(f, s, cxs_sample_se(&e->values), clock);
		else
			fputs(s, f);
		cxs_csv_num(f, s, "%.0f", e->values.n);
	} else {
		fprintf(f, "%s%s%s", s, s, s);
	}
	if (!j)
		return;
	if (c && c->verdict != CXS_VERDICT_TOO_FEW && c->w.mean_a) {
		cxs_csv_num(f, s, "%.4f", 100.0 * c->w.diff / fabs(c->w.mean_a));
		cxs_csv_num(f, s, "%.6g", c->p_holm);
		cxs_csv_field(f, s, cxs_verdict_name(c->verdict, c->clock,
						     c->threshold_pct), 0);
	} else {
		fprintf(f, "%s%s%s", s, s, s);
	}
}

static void csv(FILE *f, const struct table *t, const char *s)
{
	int i, j;

	cxs_csv_field(f, s, "benchmark", 1);
	cxs_csv_field(f, s, "event", 0);
	for (j = 0; j < t->nr_cfgs; j++) {
		csv_head(f, s, t->cfgs[j], "mean");
		csv_head(f, s, t->cfgs[j], "se");
		csv_head(f, s, t->cfgs[j], "runs");
		if (j) {
			csv_head(f, s, t->cfgs[j], "change%");
			csv_head(f, s, t->cfgs[j], "p (Holm)");
			csv_head(f, s, t->cfgs[j], "verdict");
		}
	}
	fputc('\n', f);
	for (i = 0; i < t->nr_rows; i++) {
		cxs_csv_field(f, s, t->rows[i].bench, 1);
		cxs_csv_field(f, s, t->rows[i].event, 0);
		for (j = 0; j < t->nr_cfgs; j++)
			csv_cells(f, s, t, i, j);
		fputc('\n', f);
	}
}

int cxs_results_table(FILE *f, enum cxs_table_format fmt, const char *sep,
		      double threshold_pct, const struct cxs_result_set *set)
{
	struct table t = { 0 };
	int ret = 0;

	if (!set->nr || build(&t, set) || compare_all(&t, threshold_pct)) {
		ret = -1;
	} else if (fmt == CXS_TABLE_CSV) {
		locale_t old = uselocale(cxs_c_locale());

		csv(f, &t, sep ? sep : ",");
		if (old)
			uselocale(old);
	} else {
		text_or_md(f, &t, fmt == CXS_TABLE_MARKDOWN, threshold_pct);
	}
	free(t.rows);
	free(t.cfgs);
	free(t.cmp);
	return ret;
}
