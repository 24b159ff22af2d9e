// SPDX-License-Identifier: GPL-2.0
/*
 * compare tests: the ABBA order, verdicts, "runs to separate" and the
 * printed comparison (CSV fields and the table's :t-twin sentence).
 * Welch's numbers themselves are checked against SciPy in stats_ref_test.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "../abprint.h"
#include "../abtest.h"

TEST(abba_order)
{
	static const char want[] = "ABBAABBAABBA";
	int i, nb = 0;

	for (i = 0; want[i]; i++) {
		EXPECT_EQ(want[i] == 'B', ctx_abba_is_b(i)) TH_LOG("run %d", i);
		nb += ctx_abba_is_b(i);
	}
	/* any even number of runs is balanced */
	EXPECT_EQ(6, nb);
	/* a linear drift d*i adds the same to A and B over each ABBA block */
	for (i = 0, nb = 0; i < 8; i++)
		nb += ctx_abba_is_b(i) ? i : -i;
	EXPECT_EQ(0, nb);
}

TEST(verdicts)
{
	struct ctx_welch w = { .diff = 5, .p = 0.01 };

	EXPECT_EQ(CTX_VERDICT_SLOWER, ctx_verdict_of(&w, 0.05));
	w.diff = -5;
	EXPECT_EQ(CTX_VERDICT_FASTER, ctx_verdict_of(&w, 0.05));
	w.p = 0.05;	/* not below alpha */
	EXPECT_EQ(CTX_VERDICT_SAME, ctx_verdict_of(&w, 0.05));
	w.p = NAN;
	EXPECT_EQ(CTX_VERDICT_SAME, ctx_verdict_of(&w, 0.05));
	EXPECT_STREQ("slower", ctx_verdict_name(CTX_VERDICT_SLOWER));
	EXPECT_STREQ("faster", ctx_verdict_name(CTX_VERDICT_FASTER));
	EXPECT_STREQ("no significant change", ctx_verdict_name(CTX_VERDICT_SAME));
}

/*
 * A: 10 11 9 10 10 11 9 10, B: 10 10 12 13 12 13 12 13. By hand for
 * k = 3: A 10 11 9, B 10 10 12: means 10 and 10.67, se 0.88, t 0.76,
 * p about 0.5, so at least 4 runs are needed; the loop checks the
 * definition (p < 0.05 from n on, not at n - 1) for whatever n it gives.
 */
TEST(runs_to_separate)
{
	double av[] = { 10, 11, 9, 10, 10, 11, 9, 10 };
	double bv[] = { 10, 10, 12, 13, 12, 13, 12, 13 };
	struct ctx_sample a = ctx_sample_view(av, 8), b = ctx_sample_view(bv, 8);
	struct ctx_sample a2 = ctx_sample_view(av, 2), b2 = ctx_sample_view(bv, 2);
	struct ctx_welch w;
	int k, n;

	n = ctx_runs_to_separate(&a, &b, 0.05);
	ASSERT_GE(n, 4);
	/* the definition: p < alpha from n on, and not at n - 1 */
	for (k = n; k <= 8; k++) {
		struct ctx_sample ka = ctx_sample_view(av, k), kb = ctx_sample_view(bv, k);

		ASSERT_EQ(0, ctx_welch(&ka, &kb, 0.95, &w));
		EXPECT_LT(w.p, 0.05) TH_LOG("k %d", k);
	}
	{
		struct ctx_sample ka = ctx_sample_view(av, n - 1);
		struct ctx_sample kb = ctx_sample_view(bv, n - 1);

		ASSERT_EQ(0, ctx_welch(&ka, &kb, 0.95, &w));
		EXPECT_GE(w.p, 0.05);
	}
	/* the same values: never */
	EXPECT_EQ(0, ctx_runs_to_separate(&a, &a, 0.05));
	/* two runs each that do not separate */
	EXPECT_EQ(0, ctx_runs_to_separate(&a2, &b2, 0.05));
}

/* Deterministic counts: 2 runs separate exactly when the values differ. */
TEST(runs_to_separate_exact_counts)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105, 105, 105, 105 };
	struct ctx_sample a = ctx_sample_view(av, 4), b = ctx_sample_view(bv, 4);

	EXPECT_EQ(2, ctx_runs_to_separate(&a, &b, 0.05));
}

static char *print_rows(struct ctx_compare_row *rows, int nr, const char *sep)
{
	static char *argv_a[] = { "./loop", "100", NULL };
	static char *argv_b[] = { "./loop", "105", NULL };
	struct ctx_compare_print p = {
		.sep = sep, .cmd_a = argv_a, .cmd_b = argv_b, .runs = 4,
	};
	char *buf = NULL;
	size_t len = 0;
	int i;

	p.f = open_memstream(&buf, &len);
	for (i = 0; i < nr; i++)
		ctx_compare_row_eval(&rows[i]);
	ctx_compare_print(&p, rows, nr);
	fclose(p.f);
	return buf;
}

TEST(csv_fields)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105, 105, 105, 105 };
	struct ctx_sample a = ctx_sample_view(av, 4), b = ctx_sample_view(bv, 4);
	struct ctx_sample one = ctx_sample_view(av, 1);
	struct ctx_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
		{ .name = "instructions", .counter = 0, .a = &a, .b = &a },
		{ .name = "cycles", .counter = 1, .a = &one, .b = &one },
		{ .name = "branches", .counter = 2, .error = "<not supported>", .a = &a, .b = &b },
	};
	char *out = print_rows(rows, 4, ",");

	EXPECT_STREQ("instructions:t,100,105,5,5,5,0,6,slower,2,4,4\n"
		     "instructions,100,100,0,0,0,1,6,no significant change,0,4,4\n"
		     "cycles,,,,,,,,too few runs,,1,1\n"
		     "branches,,,,,,,,too few runs,,4,4\n", out);
	free(out);
}

TEST(table_and_twin_sentence)
{
	double av[] = { 100, 101, 99, 100 }, bv[] = { 105, 106, 104, 105 };
	double fa[] = { 100, 140, 90, 120 }, fb[] = { 105, 150, 95, 118 };
	double ns_a[] = { 2e6, 2.1e6, 1.9e6, 2e6 };
	struct ctx_sample a = ctx_sample_view(av, 4), b = ctx_sample_view(bv, 4);
	struct ctx_sample xa = ctx_sample_view(fa, 4), xb = ctx_sample_view(fb, 4);
	struct ctx_sample ca = ctx_sample_view(ns_a, 4);
	struct ctx_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
		{ .name = "instructions", .counter = 0, .a = &xa, .b = &xb },
		{ .name = "task-clock", .counter = 1, .clock = true, .a = &ca, .b = &ca },
	};
	char *out = print_rows(rows, 3, NULL);

	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "A: './loop 100'"));
	EXPECT_NE(NULL, strstr(out, "B: './loop 105'"));
	EXPECT_NE(NULL, strstr(out, "+5.00%"));
	EXPECT_NE(NULL, strstr(out, "slower\n"));
	/* task-clock in msec: 2,000,000 ns = 2.00 */
	EXPECT_NE(NULL, strstr(out, "2.00"));
	EXPECT_NE(NULL, strstr(out, "no significant change\n"));
	EXPECT_NE(NULL, strstr(out, "instructions:t separates A from B after 2 runs each; instructions does not in 4."));
	free(out);
}

TEST(comma_locale_csv)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105.5, 105.5, 105.5, 105.5 };
	struct ctx_sample a = ctx_sample_view(av, 4), b = ctx_sample_view(bv, 4);
	struct ctx_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
	};
	const char *why = comma_locale();
	char *out;

	if (why)
		SKIP(return, "%s", why);
	out = print_rows(rows, 1, ";");
	EXPECT_EQ(0, strncmp(out, "instructions:t;100;105.5;5.5;5.5;5.5;0;6;slower;2;4;4", 53))
		TH_LOG("%s", out);
	free(out);
}

TEST_HARNESS_MAIN
