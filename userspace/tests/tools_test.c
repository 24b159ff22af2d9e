// SPDX-License-Identifier: GPL-2.0
/*
 * tool event tests: perf's duration_time, which ctxstat measures itself
 * (run/runner.c), end to end against tests/fake_nl.c: its value is the
 * elapsed time, the module is asked for the other events only, it has
 * perf's "ns" unit and no contexts, and -I splits it by interval.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"

/*
 * Its value is the run's wall-clock time, what "seconds time elapsed"
 * says to the nanosecond; the module's session counts task-clock alone.
 */
TEST(duration_time_is_the_elapsed_time)
{
	double d, e = -1;
	struct outcome o;
	const char *p;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "--no-big-num", "-e", "duration_time,task-clock",
			    "sleep", "0.2"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.sessions);
	EXPECT_EQ(1, fake_nl.nr_events) TH_LOG("the module is asked for task-clock only");
	/* perf 6.1's row: the count, its unit "ns" in 4 columns, the name */
	p = strstr(o.err, " ns   duration_time");
	ASSERT_NE(NULL, p) TH_LOG("%s", o.err);
	while (p > o.err && p[-1] != ' ')
		p--;
	d = strtod(p, NULL);
	p = strstr(o.err, " seconds time elapsed");
	ASSERT_NE(NULL, p) TH_LOG("%s", o.err);
	while (p > o.err && p[-1] != ' ')
		p--;
	e = strtod(p, NULL);
	EXPECT_LE(0.2e9, d) TH_LOG("%s", o.err);
	EXPECT_GT(0.2e9 + 0.5e9, d) TH_LOG("%s", o.err);
	EXPECT_GT(1.0, fabs(d - e * 1e9)) TH_LOG("duration %.0f ns, elapsed %.9f s", d, e);
	done(&o);
}

/* Alone, nothing for the module to count: no session, still its value. */
TEST(duration_time_alone_makes_no_session)
{
	struct outcome o;
	double d;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-x,", "-e", "duration_time", "sleep", "0.1"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	d = csv_count(o.err, "duration_time");
	EXPECT_LE(0.1e9, d) TH_LOG("%s", o.err);
	EXPECT_GT(0.1e9 + 0.5e9, d) TH_LOG("%s", o.err);
	/* perf's CSV: run time is the value, 100 % running */
	EXPECT_NE(NULL, strstr(o.err, ",ns,duration_time,")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, ",100.00,")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * No context counted it: --breakdown gives it no rows, -v warns of no
 * buckets that do not add up (a tool counter has none).
 */
TEST(duration_time_has_no_contexts)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-v", "--breakdown", "-e", "duration_time,task-clock",
			    "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, count_lines(o.err, "duration_time [")) TH_LOG("%s", o.err);
	EXPECT_LT(0, count_lines(o.err, "task-clock [")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, count_lines(o.err, "contexts sum to")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * -I: each interval's duration_time is that interval's time (the last
 * one's to the end), in ns beside its time stamp in s; they sum to the
 * --summary's, the whole run's.
 */
TEST(duration_time_by_interval)
{
	double t, v, last = 0, sum = 0, total = -1;
	struct outcome o;
	const char *p;
	int n = 0;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-x,", "-I", "100", "--summary", "-e",
			    "duration_time,task-clock", "sleep", "0.35"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	for (p = o.err; (p = strstr(p, ",ns,duration_time,")); p++) {
		const char *row = p;

		while (row > o.err && row[-1] != '\n')
			row--;
		if (sscanf(row, " summary,%lf,", &v) == 1) {
			total = v;
		} else if (sscanf(row, "%lf,%lf,", &t, &v) == 2) {
			EXPECT_GT(2e6, fabs(v - (t - last) * 1e9))
				TH_LOG("interval to %.3f s: %.0f ns", t, v);
			last = t;
			sum += v;
			n++;
		}
	}
	EXPECT_LE(4, n) TH_LOG("%s", o.err);
	EXPECT_LE(0.35e9, sum) TH_LOG("%s", o.err);
	EXPECT_GT(1e3, fabs(sum - total)) TH_LOG("intervals %.0f, summary %.0f", sum, total);
	done(&o);
}

/* One value per run: no CPU's or thread's to print. */
TEST(duration_time_per_cpu_or_thread_refused)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-e", "cpu-clock,duration_time", "true"), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_STREQ("ctxstat: duration_time is the run's wall-clock time, one value: not with -A\n",
		     o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "--per-core", "-e", "duration_time", "true"), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_NE(NULL, strstr(o.err, "not with --per-core")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-p", "1", "--per-thread", "-e", "duration_time", "true"), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_NE(NULL, strstr(o.err, "not with --per-thread")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
}

TEST_HARNESS_MAIN
