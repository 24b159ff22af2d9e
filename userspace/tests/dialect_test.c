// SPDX-License-Identifier: GPL-2.0
/*
 * dialect tests: --perf-dialect 7.2's rows against real `perf stat` 7.2.13
 * output (Debian sid's linux-perf, run on the development host, no PMU:
 * cycles unsupported), quoted above each test; the inputs are the numbers
 * that output implies. perf 7.2 prints NaN for CPUs_utilized of a command
 * (it does not read duration_time there): these series have no elapsed
 * time, so ctxstat's is NaN too and the rows match byte for byte.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "series_fixture.h"

static char *cmd_true[] = { "true", NULL };

/* A 7.2 series of @specs, perf's default events if @perf_default. */
static void setup_7_2(struct fixture_data *d, const char *specs, int runs,
		      bool perf_default)
{
	int i;

	setup(d, specs, runs);
	d->dialect = CXS_PERF_7_2;
	for (i = 0; i < d->events.nr; i++)
		d->events.ev[i].perf_default = perf_default;
}

/*
 * $ perf stat true (perf 7.2's default events; ctxstat names cycles as
 * it was asked, perf's default is "cpu-cycles")
 *                  1      context-switches                 #   1265.1 cs/sec  cs_per_second
 *                  0      cpu-migrations                   #      0.0 migrations/sec  migrations_per_second
 *                 51      page-faults                      #  64517.8 faults/sec  page_faults_per_second
 *               0.79 msec task-clock                       #      nan CPUs  CPUs_utilized
 *    <not supported>      cpu-cycles                       #      nan GHz  cycles_frequency
 * task-clock = 51 * 1e9 / 64517.8 = 790479 ns (1e9 / 790479 = 1265.1).
 */
static void default_series(struct fixture_data *d)
{
	setup_7_2(d, "context-switches,cpu-migrations,page-faults,task-clock,cpu-cycles", 1,
		  true);
	d->series.cmd = cmd_true;
	run_counter(d, 0, 1, 790479, 790479);
	run_counter(d, 1, 0, 790479, 790479);
	run_counter(d, 2, 51, 790479, 790479);
	run_counter(d, 3, 790479, 790479, 790479);
	d->res[4].error = -ENOENT;
}

TEST(std_default_metrics_match_perf)
{
	struct fixture_data d;
	char *out;

	default_series(&d);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"                 1      context-switches                 #   1265.1 cs/sec  cs_per_second     \n"
"                 0      cpu-migrations                   #      0.0 migrations/sec  migrations_per_second\n"
"                51      page-faults                      #  64517.8 faults/sec  page_faults_per_second\n"
"              0.79 msec task-clock                       #      nan CPUs  CPUs_utilized       \n"
"   <not supported>      cpu-cycles                       #      nan GHz  cycles_frequency     \n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

/*
 * $ perf stat -x, true
 * 0,,context-switches,683819,100.00,0.0,cs/sec  cs_per_second
 * 50,,page-faults,683819,100.00,73118.8,faults/sec  page_faults_per_second
 * 0.68,msec,task-clock,683819,100.00,,CPUs  CPUs_utilized
 * <not supported>,,cpu-cycles,0,100.00,,GHz  cycles_frequency
 * $ perf stat -j true
 * {"counter-value" : "0.000000", "unit" : "", "event" : "cpu-migrations", "event-runtime" : 622639, "pcnt-running" : 100.00, "metric-value" : "0.000000", "metric-unit" : "migrations/sec  migrations_per_second"}
 * {"counter-value" : "<not supported>", "unit" : "", "event" : "cpu-cycles", "event-runtime" : 0, "pcnt-running" : 100.00, "metric-value" : "nan", "metric-unit" : "GHz  cycles_frequency"}
 */
TEST(csv_json_default_metrics_match_perf)
{
	struct fixture_data d;
	char *out;

	setup_7_2(&d, "context-switches,page-faults,task-clock,cpu-cycles", 1, true);
	run_counter(&d, 0, 0, 683819, 683819);
	run_counter(&d, 1, 50, 683819, 683819);
	run_counter(&d, 2, 683819, 683819, 683819);
	d.res[3].error = -ENOENT;
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("0,,context-switches,683819,100.00,0.0,cs/sec  cs_per_second\n"
		     "50,,page-faults,683819,100.00,73118.8,faults/sec  page_faults_per_second\n"
		     "0.68,msec,task-clock,683819,100.00,,CPUs  CPUs_utilized\n"
		     "<not supported>,,cpu-cycles,0,100.00,,GHz  cycles_frequency\n", out);
	free(out);
	release(&d);

	setup_7_2(&d, "cpu-migrations,task-clock,cpu-cycles", 1, true);
	run_counter(&d, 0, 0, 622639, 622639);
	run_counter(&d, 1, 622639, 622639, 622639);
	d.res[2].error = -ENOENT;
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"{\"counter-value\" : \"0.000000\", \"unit\" : \"\", \"event\" : \"cpu-migrations\", \"event-runtime\" : 622639, \"pcnt-running\" : 100.00, \"metric-value\" : \"0.000000\", \"metric-unit\" : \"migrations/sec  migrations_per_second\"}\n"))
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out,
"{\"counter-value\" : \"<not supported>\", \"unit\" : \"\", \"event\" : \"cpu-cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, \"metric-value\" : \"nan\", \"metric-unit\" : \"GHz  cycles_frequency\"}\n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

/*
 * perf 7.x prints no metric for events named with -e:
 * $ perf stat -e cycles,task-clock true
 *    <not supported>      cycles                                                                (to column 94)
 *               0.73 msec task-clock                                                            (to column 94)
 * $ perf stat -e cycles,task-clock -x, true
 * <not supported>,,cycles,0,100.00,,
 * 0.79,msec,task-clock,791190,100.00,,
 * $ perf stat -j -e task-clock true
 * {"counter-value" : "0.527036", "unit" : "msec", "event" : "task-clock", "event-runtime" : 527036, "pcnt-running" : 100.00}
 * $ perf stat -r 3 -e task-clock,page-faults true
 *               0.81 msec task-clock                                                              ( +-  2.27% )
 */
TEST(named_events_have_no_metric)
{
	struct fixture_data d;
	char *out;

	setup_7_2(&d, "cycles,task-clock", 1, false);
	d.res[0].error = -ENOENT;
	run_counter(&d, 1, 730000, 730000, 730000);
	cxs_sample_add(&d.elapsed, 2000000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"   <not supported>      cycles                                                                \n"
"              0.73 msec task-clock                                                            \n"))
		TH_LOG("%s", out);
	free(out);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("<not supported>,,cycles,0,100.00,,\n"
		     "0.73,msec,task-clock,730000,100.00,,\n", out);
	free(out);
	release(&d);

	setup_7_2(&d, "task-clock", 1, false);
	run_counter(&d, 0, 527036, 527036, 527036);
	out = render(&d, CXS_OUTPUT_JSON, NULL, false, 0);
	EXPECT_STREQ("{\"counter-value\" : \"0.527036\", \"unit\" : \"msec\", \"event\" : \"task-clock\", \"event-runtime\" : 527036, \"pcnt-running\" : 100.00}\n",
		     out);
	free(out);
	release(&d);

	/* -r: the noise after the blank metric column; 1.0 +- 2.27% */
	setup_7_2(&d, "task-clock", 3, false);
	run_counter(&d, 0, 790000, 790000, 790000);
	run_counter(&d, 0, 810000, 810000, 810000);
	run_counter(&d, 0, 830000, 830000, 830000);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	/* mean 810000, sd 20000, rse 20000 / sqrt(3) / 810000 = 1.43% */
	EXPECT_NE(NULL, strstr(out,
"              0.81 msec task-clock                                                              ( +-  1.43% )\n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

/*
 * ctxstat's own: a default :t row's metric is of task-context counts
 * (cycles:t over task-clock:t, as perf's metric of cycles:u is of user
 * counts) and its share of the full count follows on a line of its own,
 * blank up to the metric column, as perf 7.x prints an event's second
 * metric. task-clock 2 ms, 1.5 ms of it in task context; cycles 4e6,
 * 3e6 in task: 4e6 / 2e6 ns = 2.0 GHz, 3e6 / 1.5e6 = 2.0, share 75.00 %.
 */
TEST(task_twin_metric_and_share)
{
	struct fixture_data d;
	struct cxs_counter_reading rd = { .time_enabled = 2e6, .time_running = 2e6 };
	char *out;

	setup_7_2(&d, "task-clock,task-clock:t,cycles,cycles:t", 1, true);
	rd.full = 2e6;
	rd.bucket[CTXCOUNT_BUCKET_TASK] = 1.5e6;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = 0.5e6;
	ASSERT_EQ(0, cxs_counter_add(&d.res[0], &rd));
	rd.full = 4e6;
	rd.bucket[CTXCOUNT_BUCKET_TASK] = 3e6;
	rd.bucket[CTXCOUNT_BUCKET_HARDIRQ] = 1e6;
	ASSERT_EQ(0, cxs_counter_add(&d.res[1], &rd));
	cxs_sample_add(&d.elapsed, 4e6);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"              2.00 msec task-clock                       #      0.5 CPUs  CPUs_utilized       \n"
"              1.50 msec task-clock:t                     #      0.4 CPUs  CPUs_utilized       \n"
"                                                         #    75.00 %  of_all                 \n"
"           4000000      cycles                           #      2.0 GHz  cycles_frequency     \n"
"           3000000      cycles:t                         #      2.0 GHz  cycles_frequency     \n"
"                                                         #    75.00 %  of_all                 \n"))
		TH_LOG("%s", out);
	free(out);
	/* CSV and JSON: one metric per row, the :t row's own */
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_NE(NULL, strstr(out, "3000000,,cycles:t,2000000,100.00,2.0,GHz  cycles_frequency\n"))
		TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, "of_all")) TH_LOG("%s", out);
	free(out);
	/* --breakdown rows: the share only */
	out = render(&d, CXS_OUTPUT_STD, NULL, true, 0);
	EXPECT_NE(NULL, strstr(out,
"           1000000      cycles [hardirq]                 #    25.00 %  of_all                 \n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

/* 6.1 stays as it was: "CPUs utilized", and ":t" rows' share alone */
TEST(dialect_6_1_unchanged)
{
	struct fixture_data d;
	char *out;

	setup(&d, "task-clock,task-clock:t", 1);
	d.events.ev[0].perf_default = true;
	d.events.ev[1].perf_default = true;
	run_counter(&d, 0, 2e6, 2e6, 2e6);
	cxs_sample_add(&d.elapsed, 4e6);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out,
"              2.00 msec task-clock                       #    0.500 CPUs utilized          \n"
"              2.00 msec task-clock:t                     #  100.00% of all                 \n"))
		TH_LOG("%s", out);
	free(out);
	release(&d);
}

TEST_HARNESS_MAIN
