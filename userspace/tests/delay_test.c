// SPDX-License-Identifier: GPL-2.0
/*
 * -D tests: perf's delay end to end against tests/fake_nl.c, which
 * notes when each session was made and started. The session is made
 * before the command's exec, without ENABLE_ON_EXEC, and started only
 * after the delay; the time elapsed (and duration_time) counts from
 * there; a command that ends during the delay ends it, as perf's sleep
 * ends on SIGCHLD.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * perf stat -D 200 sleep 0.5: START 200 ms after the session was made
 * (before the exec), perf's two messages around the delay, and the run's
 * time (duration_time, what elapsed says) the 300 ms after it.
 */
TEST(start_after_the_delay)
{
	struct outcome o;
	double d;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-D", "200", "-x,", "-e", "duration_time,task-clock",
			    "sleep", "0.5"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.sessions);
	EXPECT_FALSE(fake_nl.target.flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_INHERIT);
	EXPECT_LE(200e6, fake_nl.start_ns - fake_nl.new_ns);
	EXPECT_GT(450e6, fake_nl.start_ns - fake_nl.new_ns);
	EXPECT_EQ(0, strncmp(o.err, "Events disabled\nEvents enabled\n", 31)) TH_LOG("%s", o.err);
	d = csv_count(o.err, "duration_time");
	EXPECT_LE(200e6, d) TH_LOG("%s", o.err);
	EXPECT_GT(300e6 + 150e6, d) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * Without -D, as before: counting from the exec (ENABLE_ON_EXEC), the
 * session started at once, no messages.
 */
TEST(no_delay_counts_from_the_exec)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-x,", "-e", "task-clock", "sleep", "0.2"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC);
	EXPECT_GT(100e6, fake_nl.start_ns - fake_nl.new_ns);
	EXPECT_EQ(NULL, strstr(o.err, "Events")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-D", "0", "-x,", "-e", "task-clock", "true"), &o);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC);
	EXPECT_EQ(NULL, strstr(o.err, "Events")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * A command that ends during the delay ends it (perf's usleep() ends on
 * SIGCHLD): counting starts then, on nothing, and ctxstat does not sit
 * out the rest of the 5 s.
 */
TEST(command_ending_during_the_delay)
{
	double t0 = now_ns();
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-D", "5000", "-x,", "-e", "duration_time,task-clock",
			    "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_GT(2e9, now_ns() - t0);
	EXPECT_NE(NULL, strstr(o.err, "Events enabled\n")) TH_LOG("%s", o.err);
	EXPECT_GT(100e6, csv_count(o.err, "duration_time")) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * -p and -a have no command to start: the delay runs from the session's
 * making, -I's intervals from the START after it; -r delays each run.
 */
TEST(delay_with_targets_intervals_and_runs)
{
	double first = -1, t, v, sum = 0;
	struct outcome o;
	const char *p;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "-D", "150", "-x,", "-e", "cpu-clock",
			    "sleep", "0.3"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_TRUE(fake_nl.target.flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE);
	EXPECT_LE(150e6, fake_nl.start_ns - fake_nl.new_ns);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-D", "150", "-I", "100", "-x,", "-e",
			    "duration_time", "sleep", "0.4"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	p = strstr(o.err, ",ns,duration_time,");
	ASSERT_NE(NULL, p) TH_LOG("%s", o.err);
	while (p > o.err && p[-1] != '\n')
		p--;
	ASSERT_EQ(1, sscanf(p, "%lf,", &first)) TH_LOG("%s", o.err);
	/* the first interval ends 100 ms after START, not after the exec */
	EXPECT_LE(0.1, first) TH_LOG("%s", o.err);
	EXPECT_GT(0.15, first) TH_LOG("%s", o.err);
	/* and they add up to the 250 ms after the delay, not the 400 of sleep */
	for (p = o.err; *p; p = strchr(p, '\n') + 1) {
		if (sscanf(p, "%lf,%lf,ns,duration_time,", &t, &v) == 2)
			sum += v;
		if (!strchr(p, '\n'))
			break;
	}
	EXPECT_LE(200e6, sum) TH_LOG("%s", o.err);
	EXPECT_GT(330e6, sum) TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-r", "2", "-D", "50", "-x,", "-e", "task-clock",
			    "true"), &o);
	ASSERT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(2, fake_nl.sessions);
	EXPECT_EQ(2, count_lines(o.err, "Events disabled")) TH_LOG("%s", o.err);
	EXPECT_EQ(2, count_lines(o.err, "Events enabled")) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
