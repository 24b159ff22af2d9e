// SPDX-License-Identifier: GPL-2.0
/*
 * not-supported tests: what perf 6.1 prints and does for events the
 * kernel refuses, end to end against tests/fake_nl.c, whose
 * perf_event_open() refuses hardware events as a machine without them
 * does (ENOENT), or a group larger than a PMU of a few counters (EINVAL,
 * x86's and arm's validate_group()). The expected rows are written out
 * by hand from perf 6.1's stat-display.c (printout(), aggr_printout()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"

/*
 * perf stat -a -A --no-big-num -e cycles,instructions on a machine
 * without them: every event, on every CPU in turn, a "CPU<n>" row of
 * <not supported> (perf's print_counter() walks the event's CPUs
 * whether it counted or not), in each format. ctxstat printed one row
 * per event, without a CPU: with nothing supported it makes no session,
 * and had no CPU rows.
 */
TEST(per_cpu_rows_not_supported)
{
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	struct outcome o;

	fake_nl_reset();
	fake_nl.hw_err = ENOENT;
	run(stat_main, ARGV("ctxstat", "-a", "-A", "--no-big-num", "-e", "cycles,instructions",
			    "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	/* "CPU%-7d ", "%18s ", the unit's 4 columns and a blank, the name */
	EXPECT_NE(NULL, strstr(o.err, "\nCPU0          <not supported>      cycles  "))
		TH_LOG("%s", o.err);
	EXPECT_EQ(online, count_lines(o.err, "<not supported>      cycles")) TH_LOG("%s", o.err);
	EXPECT_EQ(online, count_lines(o.err, "<not supported>      instructions"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(2 * online, count_lines(o.err, "CPU")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-C", "0", "-x,", "-e", "cycles,instructions",
			    "true"), &o);
	EXPECT_STREQ("CPU0,<not supported>,,cycles,0,100.00,,\n"
		     "CPU0,<not supported>,,instructions,0,100.00,,\n", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-C", "0", "-j", "-e", "cycles", "true"), &o);
	EXPECT_STREQ("{\"cpu\" : \"0\", \"counter-value\" : \"<not supported>\", \"unit\" : \"\", "
		     "\"event\" : \"cycles\", \"event-runtime\" : 0, \"pcnt-running\" : 100.00, "
		     "\"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n", o.err);
	done(&o);
	/* and in every interval of -I, after the time */
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-C", "0", "-x,", "-e", "cycles", "-I", "20",
			    "--interval-count", "2"), &o);
	EXPECT_EQ(2, count_lines(o.err, ",CPU0,<not supported>,,cycles,0,100.00,,")) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
