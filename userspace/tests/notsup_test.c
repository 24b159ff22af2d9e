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

/*
 * perf 7.2's stat.sh, "Offline CPU stat command test": -C on a CPU that
 * is not there. perf 7.2 drops the CPUs of -C its PMU has not, after a
 * warning, and fails when none is left:
 *   $ perf stat -C5 -e task-clock true   (2 CPUs)
 *   WARNING: A requested CPU in '5' is not supported by PMU 'software' (CPUs 0-1) for event 'task-clock'
 *   Error:
 *   No supported events found.
 * ctxstat's 7.2 dialect does so with the online CPUs; 6.1's refuses any.
 * CPU 4095 is not online on a machine that runs these tests.
 */
TEST(offline_cpu_list)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "--perf-dialect", "7.2", "-C", "4095", "-x,", "-e",
			    "task-clock", "true"), &o);
	EXPECT_EQ(1, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "WARNING: A requested CPU in '4095' is not online (CPUs 0"))
		TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "\nError:\nNo supported events found.\n")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	run(stat_main, ARGV("ctxstat", "--perf-dialect", "7.2", "-C", "0,4095", "-x,", "-e",
			    "task-clock", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "WARNING: A requested CPU in '0,4095' is not online"))
		TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, ",msec,task-clock,")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.sessions);
	done(&o);
	run(stat_main, ARGV("ctxstat", "--perf-dialect", "6.1", "-C", "0,4095", "-e", "task-clock",
			    "true"), &o);
	EXPECT_NE(0, o.code) TH_LOG("%s", o.err);
	EXPECT_STREQ("ctxstat: -C: CPU 4095 is not online\n", o.err);
	done(&o);
}

#define TEN_CYCLES "{cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles,cycles}"

/*
 * perf stat -e '{cycles x 10}' where cycles is not supported (perf
 * 6.1's stat.sh, "stat repeat weak groups test"): the group's leader
 * cannot be opened, and perf stops there (stat_handle_error():
 * COUNTER_FATAL for a leader of two events or more) with
 * evsel__open_strerror()'s words, counting nothing. ctxstat printed ten
 * <not supported> rows and the time elapsed. A list without braces, and
 * a group of one, stay perf's <not supported> rows; a group whose
 * leader counts has its other members <not supported>.
 */
TEST(group_leader_not_supported)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.hw_err = ENOENT;
	run(stat_main, ARGV("ctxstat", "-e", TEN_CYCLES, "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_STREQ("Error:\nThe cycles event is not supported.\n", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-e", "{instructions,cycles}", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_STREQ("Error:\nThe instructions event is not supported.\n", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-x,", "-e", "cycles,cycles,{cycles}", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(3, count_lines(o.err, "<not supported>,,cycles,0,100.00,,")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-x,", "-e", "{task-clock,cycles}", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "\n<not supported>,,cycles,0,100.00,,\n")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, strncmp(o.err, "1.00,msec,task-clock,", 21)) TH_LOG("%s", o.err);
	done(&o);
}

/*
 * perf stat -e '{cycles x 10}' on a PMU with room for 7 (arm64 under
 * QEMU: 6 counters and the cycle counter): the driver refuses the 8th
 * member with EINVAL (validate_group()), and the 9th and 10th, which
 * perf skips as not supported (COUNTER_SKIP): seven counts, three
 * <not supported>. ctxstat counted all ten (one counter, which
 * the module is still asked for once). The same in every run of -r.
 * With :W (weak) perf opens them apart after the EINVAL, and all ten
 * count: so does ctxstat.
 */
TEST(group_larger_than_the_pmu)
{
	const char *counted = "\n1000000,,cycles,1000000,100.00,,\n";
	struct outcome o;
	int r;

	fake_nl_reset();
	fake_nl.pmu_counters = 7;
	run(stat_main, ARGV("ctxstat", "-x,", "-e", TEN_CYCLES, "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(7, count_lines(o.err, "1000000,,cycles,1000000,100.00,,")) TH_LOG("%s", o.err);
	EXPECT_EQ(3, count_lines(o.err, "<not supported>,,cycles,0,100.00,,")) TH_LOG("%s", o.err);
	/* in the group's order: the first seven counted */
	EXPECT_NE(NULL, strstr(o.err, counted));
	EXPECT_EQ(0, strncmp(strstr(o.err, "<not supported>"), "<not supported>,,cycles,0,100.00,,\n"
			     "<not supported>,,cycles,0,100.00,,\n<not supported>,,cycles,0,100.00,,\n",
			     3 * 36)) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.nr_events);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-r", "2", "--no-noise-check", "-x,", "-e", TEN_CYCLES, "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(3, count_lines(o.err, "<not supported>,,cycles,")) TH_LOG("%s", o.err);
	EXPECT_EQ(10, count_lines(o.err, ",,cycles,")) TH_LOG("%s", o.err);
	done(&o);
	for (r = 1; r <= 2; r++) {
		run(stat_main, ARGV("ctxstat", "-r", r == 1 ? "1" : "2", "--no-noise-check", "-x,",
				    "-e", TEN_CYCLES ":W", "true"), &o);
		EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
		EXPECT_EQ(0, count_lines(o.err, "<not supported>")) TH_LOG("%s", o.err);
		EXPECT_EQ(10, count_lines(o.err, ",,cycles,")) TH_LOG("%s", o.err);
		done(&o);
	}
}

/*
 * perf 6.1's stat.sh runs perf stat -d, -dd and -ddd true, which on a
 * machine without a PMU (a VM) prints each detailed event
 * <not supported> and exits 0: after the default rows, in perf's order,
 * each with its :t twin as the default events have one (--no-twins:
 * perf's rows exactly); the module is asked for the software events only.
 */
TEST(detailed_without_a_pmu)
{
	static const char perf_ddd[] =
		"<not supported>,,branch-misses,0,100.00,,\n"
		"<not supported>,,L1-dcache-loads,0,100.00,,\n"
		"<not supported>,,L1-dcache-load-misses,0,100.00,,\n"
		"<not supported>,,LLC-loads,0,100.00,,\n"
		"<not supported>,,LLC-load-misses,0,100.00,,\n"
		"<not supported>,,L1-icache-loads,0,100.00,,\n"
		"<not supported>,,L1-icache-load-misses,0,100.00,,\n"
		"<not supported>,,dTLB-loads,0,100.00,,\n"
		"<not supported>,,dTLB-load-misses,0,100.00,,\n"
		"<not supported>,,iTLB-loads,0,100.00,,\n"
		"<not supported>,,iTLB-load-misses,0,100.00,,\n"
		"<not supported>,,L1-dcache-prefetches,0,100.00,,\n"
		"<not supported>,,L1-dcache-prefetch-misses,0,100.00,,\n";
	struct outcome o;

	fake_nl_reset();
	fake_nl.hw_err = ENOENT;
	fake_nl.cache_err = ENOENT;
	run(stat_main, ARGV("ctxstat", "-d", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "Performance counter stats for 'true'")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "<not supported>      LLC-load-misses:t")) TH_LOG("%s", o.err);
	EXPECT_EQ(4, fake_nl.nr_events) TH_LOG("the default set's software events");
	done(&o);
	run(stat_main, ARGV("ctxstat", "-ddd", "--no-twins", "-x,", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, perf_ddd)) TH_LOG("%s", o.err);
	EXPECT_EQ(8 + 12, count_lines(o.err, ",100.00,")) TH_LOG("%s", o.err);
	done(&o);
	run(stat_main, ARGV("ctxstat", "-dd", "-x,", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(13 + 20, count_lines(o.err, ",100.00,")) TH_LOG("%s", o.err);
	EXPECT_EQ(1, count_lines(o.err, ",iTLB-load-misses:t,")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, count_lines(o.err, "L1-dcache-prefetches")) TH_LOG("%s", o.err);
	done(&o);
	/* perf 6.1 appends them to -e's events too, without twins there */
	run(stat_main, ARGV("ctxstat", "-d", "-x,", "-e", "task-clock", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, strncmp(strchr(o.err, '\n') + 1,
			     "<not supported>,,L1-dcache-loads,0,100.00,,\n", 44)) TH_LOG("%s", o.err);
	EXPECT_EQ(5, count_lines(o.err, ",100.00,")) TH_LOG("%s", o.err);
	EXPECT_EQ(0, count_lines(o.err, ":t,")) TH_LOG("%s", o.err);
	done(&o);
	/* -v: perf's warning for each as it leaves it out */
	run(stat_main, ARGV("ctxstat", "-v", "-d", "-e", "task-clock", "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "Warning:\nLLC-loads event is not supported by the kernel.\n"))
		TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
