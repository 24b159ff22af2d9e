// SPDX-License-Identifier: GPL-2.0
/*
 * output tests: golden strings. The first three reproduce, byte for byte,
 * real `perf stat` 6.1 output captured on the development host (quoted
 * above each test); the inputs are the numbers that output implies
 * (e.g. task-clock ns = page-faults * 1e9 / the K/sec rate). The rest use
 * round numbers worked out by hand in the comments.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "series_fixture.h"

static char *cmd_true[] = { "true", NULL };

/*
 * $ perf stat -e task-clock,page-faults,cycles,instructions true
 * (perf 6.1.192, this host; cycles unsupported in this VM)
 * task-clock 615881 ns: 48 * 1e9 / 615881 = 77937.2/s ("77.937 K/sec");
 * elapsed 2755 ns: 615881 / 2755 = 223.550 "CPUs utilized" (sic).
 */
TEST(std_matches_real_perf)
{
	struct fixture_data d;
	char *out;

	setup(&d, "task-clock,page-faults,cycles,instructions", 1);
	d.series.cmd = cmd_true;
	d.series.show_rusage = true;
	run_counter(&d, 0, 615881, 615881, 615881);
	run_counter(&d, 1, 48, 615881, 615881);
	d.res[2].error = -ENOENT;
	d.res[3].error = -ENOENT;
	cxs_sample_add(&d.elapsed, 2755);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_STREQ("\n"
" Performance counter stats for 'true':\n"
"\n"
"              0.62 msec task-clock                       #  223.550 CPUs utilized          \n"
"                48      page-faults                      #   77.937 K/sec                  \n"
"   <not supported>      cycles                                                      \n"
"   <not supported>      instructions                                                \n"
"\n"
"       0.000002755 seconds time elapsed\n"
"\n"
"       0.000000000 seconds user\n"
"       0.000000000 seconds sys\n"
"\n"
"\n", out);
	free(out);
	release(&d);
}

/*
 * $ perf stat -x, -e task-clock,page-faults,cycles true
 * 0.67,msec,task-clock,667205,100.00,0.533,CPUs utilized
 * 48,,page-faults,667205,100.00,71.942,K/sec
 * <not supported>,,cycles,0,100.00,,
 * elapsed is not printed; 1251792 ns gives 667205 / 1251792 = 0.533.
 */
/* The series of the perf -x output quoted above. */
static void csv_series(struct fixture_data *d)
{
	setup(d, "task-clock,page-faults,cycles", 1);
	run_counter(d, 0, 667205, 667205, 667205);
	run_counter(d, 1, 48, 667205, 667205);
	d->res[2].error = -ENOENT;
	cxs_sample_add(&d->elapsed, 1251792);
}

TEST(csv_matches_real_perf)
{
	struct fixture_data d;
	char *out;

	csv_series(&d);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ(
"0.67,msec,task-clock,667205,100.00,0.533,CPUs utilized\n"
"48,,page-faults,667205,100.00,71.942,K/sec\n"
"<not supported>,,cycles,0,100.00,,\n", out);
	free(out);
	release(&d);
}

/*
 * $ perf stat -j -e task-clock,page-faults,cycles true
 * (three lines, quoted in the expectation); elapsed 1487916 ns gives
 * 771169 / 1487916 = 0.518288.
 */
TEST(json_matches_real_perf)
{
	struct fixture_data d;
	char *out;

	setup(&d, "task-clock,page-faults,cycles", 1);
	run_counter(&d, 0, 771169, 771169, 771169);
	run_counter(&d, 1, 47, 771169, 771169);
	d.res[2].error = -ENOENT;
	cxs_sample_add(&d.elapsed, 1487916);
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_STREQ(
"{\"counter-value\" : \"0.771169\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 771169, \"pcnt-running\" : 100.00, \"metric-value\" : 0.518288, \"metric-unit\" : \"CPUs utilized\"}\n"
"{\"counter-value\" : \"47.000000\", \"unit\" : \"\", \"event\" : \"page-faults\", \"event-runtime\" : 771169, \"pcnt-running\" : 100.00, \"metric-value\" : 60.946433, \"metric-unit\" : \"K/sec\"}\n"
"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		out);
	free(out);
	release(&d);
}

/*
 * Three runs, by hand:
 *   task-clock 600000, 700000, 800000 ns: mean 700000 (0.70 msec),
 *     sample variance (1e10 + 0 + 1e10) / 2 = 1e10, stddev of the mean
 *     sqrt(1e10 / 3) = 57735.03, / 700000 = 8.25%
 *   page-faults 48, 49, 50: mean 49, variance 1, sqrt(1/3) / 49 = 1.18%;
 *     rate 49 / 700000 ns = 70000/s = "70.000 K/sec"
 *   elapsed 1.0, 1.5, 2.0 ms: mean 0.0015 s, stddev of the mean
 *     sqrt(0.25e-6 / 3) = 0.000288675 s; perf's precision for it:
 *     ceil(-log10(0.000289)) + 2 = 6 digits; 0.000288675 / 0.0015 = 19.25%
 *   CPUs utilized 700000 / 1500000 = 0.467
 * Layout as perf 6.1 -r 3 (captured):
 *   "              0.64 msec task-clock                       #    0.418 CPUs utilized            ( +- 15.95% )"
 *   "          0.001523 +- 0.000262 seconds time elapsed  ( +- 17.20% )"
 */
TEST(std_repeat_noise)
{
	struct fixture_data d;
	char *out;
	int i;

	setup(&d, "task-clock,page-faults", 3);
	d.series.cmd = cmd_true;
	for (i = 0; i < 3; i++) {
		run_counter(&d, 0, 600000 + i * 100000, 1, 1);
		run_counter(&d, 1, 48 + i, 1, 1);
		cxs_sample_add(&d.elapsed, 1000000 + i * 500000);
	}
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_STREQ("\n"
" Performance counter stats for 'true' (3 runs):\n"
"\n"
"              0.70 msec task-clock                       #    0.467 CPUs utilized            ( +-  8.25% )\n"
"                49      page-faults                      #   70.000 K/sec                    ( +-  1.18% )\n"
"\n"
"          0.001500 +- 0.000289 seconds time elapsed  ( +- 19.25% )\n"
"\n", out);
	free(out);
	release(&d);
}

/* Same numbers: perf puts the variance before run time in CSV and JSON. */
TEST(csv_json_repeat_variance)
{
	struct fixture_data d;
	char *out;
	int i;

	setup(&d, "page-faults", 3);
	for (i = 0; i < 3; i++) {
		run_counter(&d, 0, 48 + i, 1000, 1000);
		cxs_sample_add(&d.elapsed, 1000000);
	}
	out = render(&d, CXS_OUTPUT_CSV, ";", false, 0);
	EXPECT_STREQ("49;;page-faults;1.18%;1000;100.00;;\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_STREQ("{\"counter-value\" : \"49.000000\", \"unit\" : \"\", \"event\" : \"page-faults\", \"variance\" : 1.18, \"event-runtime\" : 1000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		     out);
	free(out);
	release(&d);
}

/*
 * $ perf stat -x, -r 2 -e cycles true   (and -j), perf 6.1 on this host:
 * a failed event still gets a variance field under -r.
 */
TEST(repeat_not_supported_matches_real_perf)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles", 2);
	d.res[0].error = -ENOENT;
	run_counter(&d, 0, 0, 1000, 0);
	run_counter(&d, 0, 0, 1000, 0);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("<not supported>,,cycles,0.00%,0,100.00,,\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_STREQ("{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cycles\", \"variance\" : 0.00, \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, "\n   <not supported>      cycles                                                      \n"));
	free(out);
	release(&d);
}

/*
 * A counter that ran 2/3 of the time: 2000000 counted, scaled to 3000000
 * (perf prints the scaled value); std prints 100.0 * 2 / 3 = 66.67%, CSV and
 * JSON perf's integer 100 * 2 / 3 = 66 -> 66.00.
 * cycles 3000000 over task-clock 1500000 ns = 2.000 GHz.
 */
TEST(multiplexed)
{
	struct fixture_data d;
	char *out;

	setup(&d, "task-clock,cycles", 1);
	d.series.cmd = cmd_true;
	run_counter(&d, 0, 1500000, 1500000, 1500000);
	run_counter(&d, 1, 2000000, 3000, 2000);
	cxs_sample_add(&d.elapsed, 3000000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"           3000000      cycles                           #    2.000 GHz                      (66.67%)\n"));
	free(out);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("1.50,msec,task-clock,1500000,100.00,0.500,CPUs utilized\n"
		     "3000000,,cycles,2000,66.00,2.000,GHz\n", out);
	free(out);
	release(&d);
}

/* Ran for none of its enabled time: <not counted>, (0.00%). */
TEST(not_counted)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles", 1);
	run_counter(&d, 0, 0, 5000, 0);
	cxs_sample_add(&d.elapsed, 1000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"     <not counted>      cycles                                                        (0.00%)\n"));
	free(out);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("<not counted>,,cycles,0,0.00,,\n", out);
	free(out);
	release(&d);
}

/* Seen in a guest: the session's enabled time must not show as (0.00%). */
TEST(not_supported_has_no_running_percentage)
{
	struct fixture_data d;
	char *out;

	setup(&d, "branches", 1);
	run_counter(&d, 0, 0, 5000, 0);
	d.res[0].error = -ENOENT;
	cxs_sample_add(&d.elapsed, 1000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"   <not supported>      branches                                                    \n"));
	free(out);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("<not supported>,,branches,0,100.00,,\n", out);
	free(out);
	release(&d);
}

/* insn per cycle 2000000 / 1000000; branch-misses 50 / 1000 = 5.00%. */
TEST(ratio_metrics)
{
	struct fixture_data d;
	char *out;

	setup(&d, "cycles,instructions,branches,branch-misses", 1);
	run_counter(&d, 0, 1000000, 1, 1);
	run_counter(&d, 1, 2000000, 1, 1);
	run_counter(&d, 2, 1000, 1, 1);
	run_counter(&d, 3, 50, 1, 1);
	cxs_sample_add(&d.elapsed, 1000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"           2000000      instructions                     #    2.00  insn per cycle         \n"));
	EXPECT_NE(NULL, strstr(out,
"                50      branch-misses                    #    5.00% of all branches        \n"));
	/* No task-clock: no GHz and no rate for cycles and branches. */
	EXPECT_NE(NULL, strstr(out,
"           1000000      cycles                                                             \n"));
	free(out);
	release(&d);
}

TEST(header_targets)
{
	struct fixture_data d;
	char *out;
	char *cmd[] = { "sh", "-c", "exit 3", NULL };

	setup(&d, "cycles", 1);
	d.series.null_run = true;
	cxs_sample_add(&d.elapsed, 1000);
	d.series.cmd = cmd;
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	/* -n: no counter rows and no blank line before the time (perf -n). */
	EXPECT_EQ(0, strncmp(out, "\n Performance counter stats for 'sh -c exit 3':\n\n       0.000001000 seconds time elapsed\n", 87));
	free(out);
	d.series.target = CXS_TARGET_SYSTEM_WIDE;
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, " Performance counter stats for 'system wide':\n"));
	free(out);
	d.series.target = CXS_TARGET_PID;
	d.series.pid = 1970;
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, " Performance counter stats for process id '1970':\n"));
	free(out);
	release(&d);
}


/*
 * perf's CSV and JSON are for programs: decimal points whatever the
 * locale (perf itself prints commas there, which no CSV or JSON reader
 * takes). The table for people keeps the locale's grouping, as perf's.
 */
TEST(comma_locale_csv_json)
{
	const char *why = comma_locale();
	struct fixture_data d;
	char *out;

	if (why)
		SKIP(return, "%s", why);
	csv_series(&d);
	out = render(&d, CXS_OUTPUT_CSV, ";", false, 0);
	EXPECT_STREQ(
"0.67;msec;task-clock;667205;100.00;0.533;CPUs utilized\n"
"48;;page-faults;667205;100.00;71.942;K/sec\n"
"<not supported>;;cycles;0;100.00;;\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, "{\"counter-value\" : \"0.667205\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 667205, \"pcnt-running\" : 100.00, \"metric-value\" : 0.533000, "))
		TH_LOG("%s", out);
	free(out);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, "              0,67 msec task-clock                       #    0,533 CPUs utilized          \n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

TEST_HARNESS_MAIN
