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
#include "output/compare-table.h"
#include "stats/ab-test.h"

/* Equal but for the last few of 15 digits. */
#define EXPECT_DOUBLE_NEAR(want, seen) \
	EXPECT_LT(fabs((want) - (seen)), 1e-12 * (1 + fabs(want)))

TEST(abba_order)
{
	static const char want[] = "ABBAABBAABBA";
	int i, nb = 0;

	for (i = 0; want[i]; i++) {
		EXPECT_EQ(want[i] == 'B', cxs_abba_is_b(i)) TH_LOG("run %d", i);
		nb += cxs_abba_is_b(i);
	}
	/* any even number of runs is balanced */
	EXPECT_EQ(6, nb);
	/* a linear drift d*i adds the same to A and B over each ABBA block */
	for (i = 0, nb = 0; i < 8; i++)
		nb += cxs_abba_is_b(i) ? i : -i;
	EXPECT_EQ(0, nb);
}

/*
 * A change needs significance and the threshold (the 5 ns on
 * 1 ms, significant, was "slower"); only clocks are slower or faster,
 * counts are more or fewer (more page faults were "slower").
 */
TEST(verdicts)
{
	EXPECT_EQ(CXS_VERDICT_MORE, cxs_verdict_of(5, 0.01, 0.05, 1.05, 1));
	EXPECT_EQ(CXS_VERDICT_LESS, cxs_verdict_of(-5, 0.01, 0.05, 0.95, 1));
	EXPECT_EQ(CXS_VERDICT_SMALL, cxs_verdict_of(5, 1e-9, 0.05, 1.000005, 1));
	EXPECT_EQ(CXS_VERDICT_SMALL, cxs_verdict_of(-5, 0.01, 0.05, 0.9901, 1));
	EXPECT_EQ(CXS_VERDICT_LESS, cxs_verdict_of(-5, 0.01, 0.05, 0.99, 1));
	/* --threshold 0: every significant change is one */
	EXPECT_EQ(CXS_VERDICT_MORE, cxs_verdict_of(5, 1e-9, 0.05, 1.000005, 0));
	/* from a mean of 0 any change is large */
	EXPECT_EQ(CXS_VERDICT_MORE, cxs_verdict_of(5, 0.01, 0.05, NAN, 1));
	/* not below alpha */
	EXPECT_EQ(CXS_VERDICT_SAME, cxs_verdict_of(-5, 0.05, 0.05, 0.5, 1));
	EXPECT_EQ(CXS_VERDICT_SAME, cxs_verdict_of(-5, NAN, 0.05, 0.5, 1));
	EXPECT_STREQ("more", cxs_verdict_name(CXS_VERDICT_MORE, false, 1));
	EXPECT_STREQ("fewer", cxs_verdict_name(CXS_VERDICT_LESS, false, 1));
	EXPECT_STREQ("slower", cxs_verdict_name(CXS_VERDICT_MORE, true, 1));
	EXPECT_STREQ("faster", cxs_verdict_name(CXS_VERDICT_LESS, true, 1));
	EXPECT_STREQ("changed < 2.5%", cxs_verdict_name(CXS_VERDICT_SMALL, true, 2.5));
	EXPECT_STREQ("no significant change", cxs_verdict_name(CXS_VERDICT_SAME, false, 1));
}

/*
 * task-clock of 1 ms against 1 ms + 5 ns, no spread (the issue): it
 * printed "1.0000 [1.0000,1.0000] slower"; now a change below 1 %.
 */
TEST(practical_threshold)
{
	double av[] = { 1e6, 1e6, 1e6, 1e6 }, bv[] = { 1e6 + 5, 1e6 + 5, 1e6 + 5, 1e6 + 5 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_compare_row row = { .name = "task-clock", .clock = true, .a = &a, .b = &b };

	cxs_compare_eval(&row, 1, CXS_THRESHOLD_PCT);
	EXPECT_EQ(0, row.p_holm);
	EXPECT_EQ(CXS_VERDICT_SMALL, row.verdict);
	cxs_compare_eval(&row, 1, 0);
	EXPECT_EQ(CXS_VERDICT_MORE, row.verdict);
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
	struct cxs_sample a = cxs_sample_view(av, 8), b = cxs_sample_view(bv, 8);
	struct cxs_sample a2 = cxs_sample_view(av, 2), b2 = cxs_sample_view(bv, 2);
	struct cxs_welch w;
	int k, n;

	n = cxs_runs_to_separate(&a, &b, 0.05);
	ASSERT_GE(n, 4);
	/* the definition: p < alpha from n on, and not at n - 1 */
	for (k = n; k <= 8; k++) {
		struct cxs_sample ka = cxs_sample_view(av, k), kb = cxs_sample_view(bv, k);

		ASSERT_EQ(0, cxs_welch(&ka, &kb, 0.95, &w));
		EXPECT_LT(w.p, 0.05) TH_LOG("k %d", k);
	}
	{
		struct cxs_sample ka = cxs_sample_view(av, n - 1);
		struct cxs_sample kb = cxs_sample_view(bv, n - 1);

		ASSERT_EQ(0, cxs_welch(&ka, &kb, 0.95, &w));
		EXPECT_GE(w.p, 0.05);
	}
	/* the same values: never */
	EXPECT_EQ(0, cxs_runs_to_separate(&a, &a, 0.05));
	/* two runs each that do not separate */
	EXPECT_EQ(0, cxs_runs_to_separate(&a2, &b2, 0.05));
}

/* Deterministic counts: 2 runs separate exactly when the values differ. */
TEST(runs_to_separate_exact_counts)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105, 105, 105, 105 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);

	EXPECT_EQ(2, cxs_runs_to_separate(&a, &b, 0.05));
}

/*
 * Holm by hand: p 0.01 0.04 0.03 0.005, sorted 0.005 0.01 0.03 0.04, times
 * 4 3 2 1: 0.02 0.03 0.06 0.04, made non-decreasing: 0.02 0.03 0.06
 * 0.06. NAN (not tested) stays and does not count.
 */
TEST(holm)
{
	double p[] = { 0.01, 0.04, NAN, 0.03, 0.005 }, adj[5];
	double big[] = { 0.5, 0.9 };

	cxs_holm(p, adj, 5);
	EXPECT_DOUBLE_NEAR(0.03, adj[0]);
	EXPECT_DOUBLE_NEAR(0.06, adj[1]);
	EXPECT_TRUE(isnan(adj[2]));
	EXPECT_DOUBLE_NEAR(0.06, adj[3]);
	EXPECT_DOUBLE_NEAR(0.02, adj[4]);
	/* 0.5 x 2 = 1, and never above 1 */
	cxs_holm(big, adj, 2);
	EXPECT_DOUBLE_NEAR(1.0, adj[0]);
	EXPECT_DOUBLE_NEAR(1.0, adj[1]);
}

/*
 * Fieller by hand: A 99 101 99 101, B 109 111 109 111: means 100 and 110,
 * both variances 4/3, squared standard errors v = 1/3, Welch df
 * (2v)^2 / (2 v^2 / 3) = 6 exactly, t(0.975, 6) = 2.446912 (tables).
 * q = 100^2 - t^2 v = 9998.004207, root t sqrt(100^2 v + 110^2 v - t^2
 * v^2) = t sqrt(7366.001402); (11000 -+ root) / q = [1.0792147,
 * 1.1212245] around 1.1 (the delta method gives 1.1 -+ 0.0210).
 */
TEST(ratio_fieller)
{
	double av[] = { 99, 101, 99, 101 }, bv[] = { 109, 111, 109, 111 };
	double zv[] = { -1, 1, -1, 1 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_sample z = cxs_sample_view(zv, 4);
	double r, lo, hi;
	struct cxs_welch w;

	ASSERT_EQ(0, cxs_welch(&a, &b, 0.95, &w));
	EXPECT_DOUBLE_NEAR(6.0, w.df);
	ASSERT_EQ(0, cxs_ratio_ci(&a, &b, &w, 0.95, &r, &lo, &hi));
	EXPECT_DOUBLE_NEAR(1.1, r);
	EXPECT_LT(fabs(lo - 1.0792147), 1e-6) TH_LOG("%.9f", lo);
	EXPECT_LT(fabs(hi - 1.1212245), 1e-6) TH_LOG("%.9f", hi);
	/* no spread: the ratio is known exactly */
	ASSERT_EQ(0, cxs_welch(&b, &b, 0.95, &w));
	/* A's mean 0: no ratio */
	ASSERT_EQ(0, cxs_welch(&z, &b, 0.95, &w));
	EXPECT_EQ(-1, cxs_ratio_ci(&z, &b, &w, 0.95, &r, &lo, &hi));
	EXPECT_TRUE(isnan(r));
}

/*
 * A shift of 0.9 on A = 10 11 9 10 10 11 9 10 gives Welch's p 0.032: one
 * such event alone is slower; two of them, each p 0.032, are not, after
 * Holm (0.032 x 2 = 0.064): 2 events tested at 5 % each would call one
 * of two unchanged events changed almost 10 % of the time.
 */
TEST(holm_verdicts)
{
	double av[] = { 10, 11, 9, 10, 10, 11, 9, 10 }, bv[8];
	struct cxs_sample a = cxs_sample_view(av, 8), b;
	struct cxs_compare_row rows[2];
	int i;

	for (i = 0; i < 8; i++)
		bv[i] = av[i] + 0.9;
	b = cxs_sample_view(bv, 8);
	memset(rows, 0, sizeof(rows));
	rows[0].name = "cs";
	rows[0].a = &a;
	rows[0].b = &b;
	rows[1] = rows[0];
	rows[1].name = "cs:t";
	cxs_compare_eval(rows, 1, CXS_THRESHOLD_PCT);
	EXPECT_GT(rows[0].w.p, 0.025);
	EXPECT_LT(rows[0].w.p, 0.05);
	EXPECT_EQ(CXS_VERDICT_MORE, rows[0].verdict);
	cxs_compare_eval(rows, 2, CXS_THRESHOLD_PCT);
	EXPECT_DOUBLE_NEAR(2 * rows[0].w.p, rows[0].p_holm);
	EXPECT_EQ(CXS_VERDICT_SAME, rows[0].verdict);
	EXPECT_EQ(CXS_VERDICT_SAME, rows[1].verdict);
	/* a row that cannot be tested does not count */
	rows[1].error = "<not supported>";
	cxs_compare_eval(rows, 2, CXS_THRESHOLD_PCT);
	EXPECT_EQ(CXS_VERDICT_MORE, rows[0].verdict);
	EXPECT_EQ(CXS_VERDICT_TOO_FEW, rows[1].verdict);
}

static char *print_rows(struct cxs_compare_row *rows, int nr, const char *sep)
{
	static char *argv_a[] = { "./loop", "100", NULL };
	static char *argv_b[] = { "./loop", "105", NULL };
	struct cxs_compare_print p = {
		.sep = sep, .cmd_a = argv_a, .cmd_b = argv_b, .runs = 4,
	};
	char *buf = NULL;
	size_t len = 0;

	p.f = open_memstream(&buf, &len);
	cxs_compare_eval(rows, nr, CXS_THRESHOLD_PCT);
	cxs_compare_print(&p, rows, nr);
	fclose(p.f);
	return buf;
}

/* The :t sentence with long names: wrapped within 100 columns. */
TEST(twin_sentence_wrapped)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105, 105, 106, 105 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_compare_row rows[] = {
		{ .name = "L1-dcache-prefetch-misses:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
		{ .name = "L1-dcache-prefetch-misses", .counter = 0, .a = &a, .b = &a },
	};
	char *out = print_rows(rows, 2, NULL), *first, *second;
	size_t n;

	first = strstr(out, "\n L1-dcache-prefetch-misses:t separates A from B after 2 runs each;");
	ASSERT_NE(NULL, first) TH_LOG("%s", out);
	first++;
	n = strcspn(first, "\n");
	EXPECT_LE(n, 100);
	second = first + n + 1;
	EXPECT_EQ(0, strncmp(second, " not in 4.\n", 11)) TH_LOG("%s", out);
	free(out);
}

TEST(csv_fields)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105, 105, 105, 105 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_sample one = cxs_sample_view(av, 1);
	struct cxs_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
		{ .name = "instructions", .counter = 0, .a = &a, .b = &a },
		{ .name = "cycles", .counter = 1, .a = &one, .b = &one },
		{ .name = "branches", .counter = 2, .error = "<not supported>", .a = &a, .b = &b },
	};
	char *out = print_rows(rows, 4, ",");

	/*
	 * ... A runs, B runs, then A sd, B sd, B/A, its CI, p (Holm): two
	 * events tested, exact counts: p 0 and 1 either way.
	 */
	EXPECT_STREQ("instructions:t,100,105,5,5,5,0,6,more,2,4,4,0,0,1.05,1.05,1.05,0\n"
		     "instructions,100,100,0,0,0,1,6,no significant change,0,4,4,0,0,1,1,1,1\n"
		     "cycles,,,,,,,,too few runs,,1,1,,,,,,\n"
		     "branches,,,,,,,,<not supported>,,4,4,,,,,,\n", out);
	free(out);
}

/*
 * instructions:t: A 100 101 99 100, B 105 106 104 105: B/A 1.05, p 0.0001
 * (x 3 events by Holm: 0.0004), separated from 3 runs on at 0.05 / 3;
 * instructions: A 100 140 90 120, B 105 150 95 118: no change; task-clock
 * the same 2 ms on both sides, in ms. Summary first, then the table.
 */
TEST(table_and_twin_sentence)
{
	double av[] = { 100, 101, 99, 100 }, bv[] = { 105, 106, 104, 105 };
	double fa[] = { 100, 140, 90, 120 }, fb[] = { 105, 150, 95, 118 };
	double ns_a[] = { 2e6, 2.1e6, 1.9e6, 2e6 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_sample xa = cxs_sample_view(fa, 4), xb = cxs_sample_view(fb, 4);
	struct cxs_sample ca = cxs_sample_view(ns_a, 4);
	struct cxs_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
		{ .name = "instructions", .counter = 0, .a = &xa, .b = &xb },
		{ .name = "task-clock", .counter = 1, .clock = true, .a = &ca, .b = &ca },
	};
	char *out = print_rows(rows, 3, NULL), *summary, *table;

	TH_LOG("\n%s", out);
	EXPECT_NE(NULL, strstr(out, "A: './loop 100'"));
	EXPECT_NE(NULL, strstr(out, "B: './loop 105'"));
	summary = strstr(out, "\n event ");
	ASSERT_NE(NULL, summary);
	table = strstr(summary + 1, "\n event ");
	ASSERT_NE(NULL, table);
	/* ±: the standard error (sd 0.816 / sqrt(4)), perf's +- */
	EXPECT_NE(NULL, strstr(summary, " instructions:t     100.0 ± 0.408     105.0 ± 0.408  1.0500 [1.0356, 1.0646]  more\n"));
	/* clocks each in its unit; se with 3 digits */
	EXPECT_NE(NULL, strstr(summary, " task-clock      2.000ms ± 40.8us  2.000ms ± 40.8us  1.0000 [0.9317, 1.0733]  no significant change\n"));
	/* a mean of few counts keeps its fraction */
	EXPECT_NE(NULL, strstr(table, " instructions    112.50     117  +4.50  [-31.53%, +39.53%]    1.0000     -\n"));
	EXPECT_NE(NULL, strstr(table, " instructions:t     100     105     +5    [+3.59%, +6.41%]    0.0004     3\n"));
	/* not separated: no run count */
	EXPECT_NE(NULL, strstr(table, "    1.0000     -\n"));
	EXPECT_NE(NULL, strstr(table, "instructions:t separates A from B after 3 runs each; instructions does not in 4."));
	EXPECT_NE(NULL, strstr(table, "Holm"));
	free(out);
}

TEST(comma_locale_csv)
{
	double av[] = { 100, 100, 100, 100 }, bv[] = { 105.5, 105.5, 105.5, 105.5 };
	struct cxs_sample a = cxs_sample_view(av, 4), b = cxs_sample_view(bv, 4);
	struct cxs_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &b },
	};
	const char *why = comma_locale();
	char *out;

	if (why)
		SKIP(return, "%s", why);
	out = print_rows(rows, 1, ";");
	EXPECT_EQ(0, strncmp(out, "instructions:t;100;105.5;5.5;5.5;5.5;0;6;more;2;4;4", 51))
		TH_LOG("%s", out);
	free(out);
}

/*
 * RFC 4180: a field holding the separator is quoted ("instructions:t"
 * with -x:), and a row that was not compared gives the table's reason as
 * its verdict.
 */
TEST(csv_quoting_and_errors)
{
	double av[] = { 100, 100, 100, 100 };
	struct cxs_sample a = cxs_sample_view(av, 4);
	struct cxs_compare_row rows[] = {
		{ .name = "instructions:t", .counter = 0, .task_only = true, .a = &a, .b = &a },
		{ .name = "branches", .counter = 2, .error = "<not supported>", .a = &a, .b = &a },
	};
	char *out = print_rows(rows, 2, ":");

	EXPECT_EQ(0, strncmp(out, "\"instructions:t\":100:100:0:", 27)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\nbranches::::::::<not supported>::4:4::::::\n")) TH_LOG("%s", out);
	free(out);
}

TEST_HARNESS_MAIN
