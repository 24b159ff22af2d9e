// SPDX-License-Identifier: GPL-2.0
/*
 * abprint: numbers with thousands grouped per the locale for people; CSV
 * with every digit %.17g keeps.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "abprint.h"
#include "util.h"

static double shown(const struct ctx_compare_row *r, double v)
{
	return r->clock ? v / 1e6 : v;
}

static void fmt_value(const struct ctx_compare_row *r, double v,
		      char *buf, size_t len)
{
	if (r->clock)
		snprintf(buf, len, "%'.2f", shown(r, v));
	else
		snprintf(buf, len, "%'.0f", v);
}

static void fmt_signed(const struct ctx_compare_row *r, double v,
		       char *buf, size_t len)
{
	if (r->clock)
		snprintf(buf, len, "%'+.2f", shown(r, v));
	else
		snprintf(buf, len, "%'+.0f", v);
}

/* Percent of A's mean, or "" when A's mean is 0. */
static void fmt_pct(double v, double base, char *buf, size_t len)
{
	if (base == 0)
		buf[0] = '\0';
	else
		snprintf(buf, len, "%+.2f%%", 100.0 * v / fabs(base));
}

static void fmt_p(double p, char *buf, size_t len)
{
	if (p == 0)
		snprintf(buf, len, "0");
	else if (p < 0.0001)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

static void print_cmd(FILE *f, const char *label, char **cmd)
{
	int i;

	fprintf(f, "   %s: '", label);
	for (i = 0; cmd && cmd[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", cmd[i]);
	fputs("'\n", f);
}

static void print_table_row(FILE *f, const struct ctx_compare_row *r)
{
	char a[32], b[32], d[32], dp[16], lo[16], hi[16], p[16], ci[40];

	if (r->verdict == CTX_VERDICT_TOO_FEW) {
		fprintf(f, " %-24s %s\n", r->name,
			r->error ? r->error : "too few runs");
		return;
	}
	fmt_value(r, r->w.mean_a, a, sizeof(a));
	fmt_value(r, r->w.mean_b, b, sizeof(b));
	fmt_signed(r, r->w.diff, d, sizeof(d));
	fmt_pct(r->w.diff, r->w.mean_a, dp, sizeof(dp));
	fmt_pct(r->w.ci_lo, r->w.mean_a, lo, sizeof(lo));
	fmt_pct(r->w.ci_hi, r->w.mean_a, hi, sizeof(hi));
	if (r->w.mean_a == 0) {
		fmt_signed(r, r->w.ci_lo, lo, sizeof(lo));
		fmt_signed(r, r->w.ci_hi, hi, sizeof(hi));
	}
	snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
	fmt_p(r->w.p, p, sizeof(p));
	fprintf(f, " %-24s %16s %16s %14s %8s  %-20s %8s  %s\n", r->name, a, b,
		d, dp, ci, p, ctx_verdict_name(r->verdict));
}

static void print_csv_row(FILE *f, const char *s, const struct ctx_compare_row *r)
{
	int i;

	if (r->verdict == CTX_VERDICT_TOO_FEW) {
		/* 7 empty numbers, the verdict, no run count */
		fputs(r->name, f);
		for (i = 0; i < 7; i++)
			fputs(s, f);
		fprintf(f, "%s%s%s%s%d%s%d\n", s, ctx_verdict_name(r->verdict),
			s, s, r->a->n, s, r->b->n);
		return;
	}
	fprintf(f, "%s%s%.17g%s%.17g%s%.17g%s%.17g%s%.17g%s%.6g%s%.6g%s%s%s%d%s%d%s%d\n",
		r->name, s, shown(r, r->w.mean_a), s, shown(r, r->w.mean_b), s,
		shown(r, r->w.diff), s, shown(r, r->w.ci_lo), s,
		shown(r, r->w.ci_hi), s, r->w.p, s, r->w.df, s,
		ctx_verdict_name(r->verdict), s, r->runs_to_separate, s,
		r->a->n, s, r->b->n);
}

static void print_separation(FILE *f, const struct ctx_compare_row *t,
			     const struct ctx_compare_row *full, int runs)
{
	int nt = t->runs_to_separate, nf = full->runs_to_separate;

	if (t->verdict == CTX_VERDICT_TOO_FEW ||
	    full->verdict == CTX_VERDICT_TOO_FEW)
		return;
	if (!nt && !nf) {
		fprintf(f, " Neither %s nor %s separates A from B in %d runs each.\n",
			t->name, full->name, runs);
		return;
	}
	if (nt && nf && nt == nf) {
		fprintf(f, " %s and %s both separate A from B after %d runs each.\n",
			t->name, full->name, nt);
		return;
	}
	if (nt && nf) {
		fprintf(f, " %s separates A from B after %d runs each, %s after %d: %s needs fewer runs.\n",
			t->name, nt, full->name, nf, nt < nf ? t->name : full->name);
		return;
	}
	fprintf(f, " %s separates A from B after %d runs each; %s does not in %d.\n",
		nt ? t->name : full->name, nt ? nt : nf,
		nt ? full->name : t->name, runs);
}

static void print_twins(FILE *f, const struct ctx_compare_row *rows, int nr,
			int runs)
{
	int i, j;

	for (i = 0; i < nr; i++) {
		if (!rows[i].task_only)
			continue;
		for (j = 0; j < nr; j++)
			if (!rows[j].task_only &&
			    rows[j].counter == rows[i].counter)
				print_separation(f, &rows[i], &rows[j], runs);
	}
}

void ctx_compare_print(const struct ctx_compare_print *p,
		       const struct ctx_compare_row *rows, int nr)
{
	FILE *f = p->f;
	int i;

	if (p->sep) {
		locale_t old = uselocale(ctx_c_locale());

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
	fprintf(f, "\n %-24s %16s %16s %14s %8s  %-20s %8s  %s\n", "event",
		"A mean", "B mean", "B - A", "", "95% CI of B - A", "p",
		"verdict (B vs A)");
	for (i = 0; i < nr; i++)
		print_table_row(f, &rows[i]);
	fputc('\n', f);
	print_twins(f, rows, nr, p->runs);
	fputs(" More counts = slower. Clocks in msec. Welch's t-test; runs to separate:\n"
	      " the fewest runs per side from which on p < 0.05 (see ctxstat(1)).\n\n", f);
}
