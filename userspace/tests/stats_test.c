// SPDX-License-Identifier: GPL-2.0
/*
 * perf stat's numbers (noise column, scaling, elapsed precision) against
 * values worked out by hand (shown), and perf's own printed numbers where
 * it shows them.
 */
#include <math.h>

#include "kselftest_harness.h"
#include "stats/perf-stat.h"
#include "stats/sample.h"

#define NEAR(expected, seen, tol) EXPECT_LT(fabs((expected) - (seen)), (tol))

/*
 * 2 4 4 4 5 5 7 9: mean 5; squared deviations 9+1+1+1+0+0+4+16 = 32;
 * sample variance 32/7 = 4.5714286; stddev of the mean
 * sqrt(4.5714286/8) = sqrt(0.5714286) = 0.7559289; relative 0.7559289/5
 * = 15.118579% (perf's noise column).
 */
TEST(textbook_sample)
{
	double v[] = { 2, 4, 4, 4, 5, 5, 7, 9 };
	struct cxs_sample s = cxs_sample_view(v, 8);

	NEAR(5.0, cxs_sample_mean(&s), 1e-12);
	NEAR(4.5714286, cxs_sample_sd(&s) * cxs_sample_sd(&s), 1e-6);
	NEAR(0.7559289, cxs_sample_se(&s), 1e-6);
	NEAR(15.118579, cxs_sample_rse_pct(&s), 1e-5);
}

TEST(single_run_has_no_noise)
{
	double v[] = { 12345 };
	struct cxs_sample s = cxs_sample_view(v, 1);

	NEAR(12345.0, cxs_sample_mean(&s), 1e-9);
	EXPECT_EQ(0.0, cxs_sample_sd(&s));
	EXPECT_EQ(0.0, cxs_sample_rse_pct(&s));
}

/*
 * Counts near 1e9 with a spread of a few units: deviations -6 -3 3 6 from
 * 1e9+10, squares sum 90, variance 30, stddev of the mean sqrt(30/4) =
 * 2.7386128. Summing squares of 1e9-sized values in doubles would lose
 * this; two passes keep it.
 */
TEST(large_values_small_spread)
{
	double v[] = { 1e9 + 4, 1e9 + 7, 1e9 + 13, 1e9 + 16 };
	struct cxs_sample s = cxs_sample_view(v, 4);

	NEAR(1e9 + 10, cxs_sample_mean(&s), 1e-6);
	NEAR(30.0, cxs_sample_sd(&s) * cxs_sample_sd(&s), 1e-6);
	NEAR(2.7386128, cxs_sample_se(&s), 1e-6);
}

/* val * enabled / running, truncated, as perf_counts_values__scale. */
TEST(scaling)
{
	EXPECT_EQ(2000, cxs_scale_count(1000, 200, 100));
	EXPECT_EQ(1000, cxs_scale_count(1000, 200, 200));
	EXPECT_EQ(0, cxs_scale_count(1000, 200, 0));
	EXPECT_EQ(10, cxs_scale_count(7, 3, 2));	/* 10.5 */
	EXPECT_EQ(15, cxs_scale_count(10, 3, 2));
}

/*
 * Digits perf prints for "avg +- sd seconds time elapsed", from real perf:
 * "0.001523 +- 0.000262" (6) and "0.000003106 +- 0.000000721" (9).
 */
TEST(elapsed_precision)
{
	EXPECT_EQ(6, cxs_stats_precision(0.000262));
	EXPECT_EQ(9, cxs_stats_precision(0.000000721));
	EXPECT_EQ(3, cxs_stats_precision(0.5));
	EXPECT_EQ(2, cxs_stats_precision(1.5));
	EXPECT_EQ(9, cxs_stats_precision(0.0));
}

TEST_HARNESS_MAIN
