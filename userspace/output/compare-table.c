// SPDX-License-Identifier: GPL-2.0
/*
 * compare-table: for people, a summary to read first (per event A's and B's
 * mean and its standard error, perf's "+-", in output/figure.c's words,
 * as report's cells; B/A with its interval, the verdict), then the full
 * table with every digit, thousands grouped per the locale, within 100
 * columns; for programs, CSV in the C locale.
 */
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/compare-table.h"
#include "output/csv.h"
#include "output/figure.h"
#include "util/util.h"

#define TWO_SPACES "  "

/* Columns @s takes on a terminal: UTF-8 continuation bytes take none. */
static int columns(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

/* @s in @width columns, left- or right-aligned, after two spaces. */
static void cell(FILE *f, const char *s, int width, bool right)
{
	int pad = width - columns(s);

	fputs(TWO_SPACES, f);
	if (right)
		fprintf(f, "%*s%s", pad > 0 ? pad : 0, "", s);
	else
		fprintf(f, "%s%*s", s, pad > 0 ? pad : 0, "");
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/* ---------------------------------------------------------- summary -- */

/*
 * What separates an interval's ends: "; " where the locale's decimal
 * point is a comma (de_DE's "1,0500 [1,0500,1,0500]" read as four
 * numbers), ", " elsewhere.
 */
static const char *interval_sep(void)
{
	return strchr(localeconv()->decimal_point, ',') ? "; " : ", ";
}

static void ratio(const struct cxs_compare_row *r, char *buf, size_t len)
{
	if (isnan(r->ratio))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.4f [%.4f%s%.4f]", r->ratio, r->ratio_lo,
			 interval_sep(), r->ratio_hi);
}

static const char *verdict(const struct cxs_compare_row *r)
{
	if (r->verdict == CXS_VERDICT_TOO_FEW && r->error)
		return r->error;
	return cxs_verdict_name(r->verdict, r->clock, r->threshold_pct);
}

struct summary_cells {
	char a[64], b[64], ratio[64];
};

static void summary_cells(const struct cxs_compare_row *r,
			  struct summary_cells *c)
{
	memset(c, 0, sizeof(*c));
	if (r->verdict == CXS_VERDICT_TOO_FEW)
		return;
	cxs_figure_mean_se(r->w.mean_a, cxs_sample_se(r->a), r->clock, c->a,
			   sizeof(c->a));
	cxs_figure_mean_se(r->w.mean_b, cxs_sample_se(r->b), r->clock, c->b,
			   sizeof(c->b));
	ratio(r, c->ratio, sizeof(c->ratio));
}

static void print_summary(FILE *f, const struct cxs_compare_row *rows, int nr)
{
	int wn = 5, wa = 12, wb = 12, wr = 12, i;
	struct summary_cells c;

	for (i = 0; i < nr; i++) {
		summary_cells(&rows[i], &c);
		wn = max_int(wn, columns(rows[i].name));
		wa = max_int(wa, columns(c.a));
		wb = max_int(wb, columns(c.b));
		wr = max_int(wr, columns(c.ratio));
	}
	fprintf(f, "\n%-*s", wn + 1, " event");
	cell(f, "A: mean ± se", wa, true);
	cell(f, "B: mean ± se", wb, true);
	cell(f, "B/A [95% CI]", wr, false);
	cell(f, "verdict", 0, false);
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		summary_cells(&rows[i], &c);
		fprintf(f, " %-*s", wn, rows[i].name);
		cell(f, c.a, wa, true);
		cell(f, c.b, wb, true);
		cell(f, c.ratio, wr, false);
		cell(f, verdict(&rows[i]), 0, false);
		fputc('\n', f);
	}
}

/* ------------------------------------------------------- full table -- */

/*
 * Grouped per the locale, as perf's counts; clocks in msec; a mean of
 * few counts (context switches: 4.25) with its fraction.
 */
static void grouped(const struct cxs_compare_row *r, double v, bool sign,
		    char *buf, size_t len)
{
	int d = r->clock || (fabs(v) < 1000 && v != floor(v)) ? 2 : 0;

	snprintf(buf, len, sign ? "%'+.*f" : "%'.*f", d, r->clock ? v / 1e6 : v);
}

/* Percent of A's mean, or the value itself when A's mean is 0. */
static void pct(const struct cxs_compare_row *r, double v, char *buf,
		size_t len)
{
	if (r->w.mean_a == 0)
		grouped(r, v, true, buf, len);
	else
		snprintf(buf, len, "%+.2f%%", 100.0 * v / fabs(r->w.mean_a));
}

static void fmt_p(double p, char *buf, size_t len)
{
	if (p == 0)
		snprintf(buf, len, "0");
	else if (p < 0.0001)
		snprintf(buf, len, "<%.4f", 0.0001);
	else
		snprintf(buf, len, "%.4f", p);
}

struct table_cells {
	char a[32], b[32], d[32], ci[48], p[16], runs[16];
};

static void table_cells(const struct cxs_compare_row *r,
			struct table_cells *c)
{
	char lo[20], hi[20];

	memset(c, 0, sizeof(*c));
	if (r->verdict == CXS_VERDICT_TOO_FEW)
		return;
	grouped(r, r->w.mean_a, false, c->a, sizeof(c->a));
	grouped(r, r->w.mean_b, false, c->b, sizeof(c->b));
	grouped(r, r->w.diff, true, c->d, sizeof(c->d));
	pct(r, r->w.ci_lo, lo, sizeof(lo));
	pct(r, r->w.ci_hi, hi, sizeof(hi));
	snprintf(c->ci, sizeof(c->ci), "[%s%s%s]", lo, interval_sep(), hi);
	fmt_p(r->p_holm, c->p, sizeof(c->p));
	if (r->runs_to_separate)
		snprintf(c->runs, sizeof(c->runs), "%d", r->runs_to_separate);
	else
		snprintf(c->runs, sizeof(c->runs), "-");
}

static void print_table(FILE *f, const struct cxs_compare_row *rows, int nr)
{
	int wn = 5, wa = 6, wb = 6, wd = 5, wc = 14, wp = 8, i;
	struct table_cells c;

	for (i = 0; i < nr; i++) {
		table_cells(&rows[i], &c);
		wn = max_int(wn, columns(rows[i].name));
		wa = max_int(wa, columns(c.a));
		wb = max_int(wb, columns(c.b));
		wd = max_int(wd, columns(c.d));
		wc = max_int(wc, columns(c.ci));
	}
	fprintf(f, "\n%-*s", wn + 1, " event");
	cell(f, "A mean", wa, true);
	cell(f, "B mean", wb, true);
	cell(f, "B - A", wd, true);
	cell(f, "95% CI, % of A", wc, true);
	cell(f, "p (Holm)", wp, true);
	cell(f, "runs", 4, true);
	fputc('\n', f);
	for (i = 0; i < nr; i++) {
		fprintf(f, " %-*s", wn, rows[i].name);
		if (rows[i].verdict == CXS_VERDICT_TOO_FEW) {
			cell(f, verdict(&rows[i]), 0, false);
			fputc('\n', f);
			continue;
		}
		table_cells(&rows[i], &c);
		cell(f, c.a, wa, true);
		cell(f, c.b, wb, true);
		cell(f, c.d, wd, true);
		cell(f, c.ci, wc, true);
		cell(f, c.p, wp, true);
		cell(f, c.runs, 4, true);
		fputc('\n', f);
	}
}

/* @text after a space, words wrapped to stay within 100 columns. */
static void print_wrapped(FILE *f, const char *text)
{
	int col = 0, w;

	while (*text) {
		w = strcspn(text, " ");
		if (col && col + 1 + w > 100) {
			fputc('\n', f);
			col = 0;
		}
		col += fprintf(f, " %.*s", w, text);
		text += w + (text[w] == ' ');
	}
	fputc('\n', f);
}

static void print_separation(FILE *f, const struct cxs_compare_row *t,
			     const struct cxs_compare_row *full, int runs)
{
	int nt = t->runs_to_separate, nf = full->runs_to_separate;
	char s[512];

	if (t->verdict == CXS_VERDICT_TOO_FEW ||
	    full->verdict == CXS_VERDICT_TOO_FEW)
		return;
	if (!nt && !nf)
		snprintf(s, sizeof(s), "Neither %s nor %s separates A from B in %d runs each.",
			 t->name, full->name, runs);
	else if (nt && nf && nt == nf)
		snprintf(s, sizeof(s), "%s and %s both separate A from B after %d runs each.",
			 t->name, full->name, nt);
	else if (nt && nf)
		snprintf(s, sizeof(s), "%s separates A from B after %d runs each, %s after %d: %s needs fewer runs.",
			 t->name, nt, full->name, nf,
			 nt < nf ? t->name : full->name);
	else
		snprintf(s, sizeof(s), "%s separates A from B after %d runs each; %s does not in %d.",
			 nt ? t->name : full->name, nt ? nt : nf,
			 nt ? full->name : t->name, runs);
	print_wrapped(f, s);
}

static void print_twins(FILE *f, const struct cxs_compare_row *rows, int nr,
			int runs)
{
	bool any = false;
	int i, j;

	for (i = 0; i < nr; i++) {
		if (!rows[i].task_only)
			continue;
		for (j = 0; j < nr; j++)
			if (!rows[j].task_only &&
			    rows[j].counter == rows[i].counter) {
				if (!any)
					fputc('\n', f);
				any = true;
				print_separation(f, &rows[i], &rows[j], runs);
			}
	}
}

static void print_cmd(FILE *f, const char *label, char **cmd)
{
	int i;

	fprintf(f, "   %s: '", label);
	for (i = 0; cmd && cmd[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd[i]);
	fputs("'\n", f);
}

static int tested(const struct cxs_compare_row *rows, int nr)
{
	int i, m = 0;

	for (i = 0; i < nr; i++)
		m += rows[i].verdict != CXS_VERDICT_TOO_FEW;
	return m;
}

/* --------------------------------------------------------------- CSV -- */

/* Not a measured figure: as many digits as a test's statistic needs. */
static void csv_num(FILE *f, const char *s, double v, const char *fmt)
{
	if (isnan(v))
		fputs(s, f);
	else
		cxs_csv_num(f, s, fmt, v);
}

static void print_csv_row(FILE *f, const char *s,
			  const struct cxs_compare_row *r)
{
	int i;

	cxs_csv_field(f, s, r->name, 1);
	if (r->verdict == CXS_VERDICT_TOO_FEW) {
		for (i = 0; i < 7; i++)
			fputs(s, f);
		cxs_csv_field(f, s, verdict(r), 0);
		fputs(s, f);
		fprintf(f, "%s%d%s%d", s, r->a->n, s, r->b->n);
		for (i = 0; i < 6; i++)
			fputs(s, f);
		fputc('\n', f);
		return;
	}
	cxs_csv_figure(f, s, r->w.mean_a, r->clock);
	cxs_csv_figure(f, s, r->w.mean_b, r->clock);
	cxs_csv_figure(f, s, r->w.diff, r->clock);
	cxs_csv_figure(f, s, r->w.ci_lo, r->clock);
	cxs_csv_figure(f, s, r->w.ci_hi, r->clock);
	csv_num(f, s, r->w.p, "%.6g");
	csv_num(f, s, r->w.df, "%.6g");
	cxs_csv_field(f, s, verdict(r), 0);
	fprintf(f, "%s%d%s%d%s%d", s, r->runs_to_separate, s, r->a->n, s,
		r->b->n);
	cxs_csv_figure(f, s, r->sd_a, r->clock);
	cxs_csv_figure(f, s, r->sd_b, r->clock);
	cxs_csv_figure(f, s, r->ratio, false);
	cxs_csv_figure(f, s, r->ratio_lo, false);
	cxs_csv_figure(f, s, r->ratio_hi, false);
	csv_num(f, s, r->p_holm, "%.6g");
	fputc('\n', f);
}

void cxs_compare_print(const struct cxs_compare_print *p,
		       const struct cxs_compare_row *rows, int nr)
{
	FILE *f = p->f;
	int i;

	if (p->sep) {
		locale_t old = uselocale(cxs_c_locale());

		for (i = 0; i < nr; i++)
			print_csv_row(f, p->sep, &rows[i]);
		if (old)
			uselocale(old);
		return;
	}
	fprintf(f, "\n Performance counter comparison, %d runs each in ABBA order:\n",
		p->runs);
	print_cmd(f, "A", p->cmd_a);
	print_cmd(f, "B", p->cmd_b);
	print_summary(f, rows, nr);
	print_table(f, rows, nr);
	print_twins(f, rows, nr, p->runs);
	fprintf(f, "\n ±: standard error of the mean (perf's +-). B/A: 95%% interval (Fieller).\n"
		" Verdict: Welch's t-test with Holm's correction for the %d events tested (p), and\n"
		" a change of %g%% at least (--threshold): clocks slower or faster, counts more or\n"
		" fewer. Runs: the fewest per side from which on p < 0.05/%d. Clocks in msec.\n"
		" See ctxstat-compare(1).\n\n",
		tested(rows, nr), nr ? rows[0].threshold_pct : CXS_THRESHOLD_PCT,
		tested(rows, nr) ? tested(rows, nr) : 1);
}
