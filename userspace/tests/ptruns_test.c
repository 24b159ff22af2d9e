// SPDX-License-Identifier: GPL-2.0
/*
 * ptruns tests: ctxstat --per-thread end to end on the host against
 * tests/fake_nl.c, whose READs per thread give "main", "worker" and
 * "sleeper" rows (fake_nl.h): the session asked for (-p, -a, -i), the
 * rows in perf 6.1's three layouts (util/stat-display.c, aggr_printout()
 * for AGGR_THREAD: "%*s-%*d%s" with 16 and -8 and a blank outside CSV,
 * "comm-tid" and the separator in CSV, "\"thread\" : \"comm-tid\", " in
 * JSON), their order, -a's zero rows, and a module older than 6.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"

/* Every line of @text has @n of @c (perf's commachecker). */
static bool each_line_has(const char *text, char c, int n)
{
	const char *p, *nl;
	int k;

	for (p = text; *p; p = nl + 1) {
		nl = strchrnul(p, '\n');
		for (k = 0; p < nl; p++)
			k += *p == c;
		if (k != n)
			return false;
		if (!*nl)
			break;
	}
	return true;
}

/* -p: a pid session with PER_THREAD; every thread, sleeper's 0 too. */
TEST(pid_rows)
{
	struct outcome o;
	const char *worker, *main_, *sleeper, *task;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-p", "1", "--per-thread", "-e", "instructions",
			    "-e", "instructions:t", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.target.pid);
	EXPECT_EQ(CTXCOUNT_TARGET_F_INHERIT, fake_nl.target.flags);
	EXPECT_EQ(CTXCOUNT_SESSION_F_PER_THREAD, fake_nl.target.session_flags);
	EXPECT_NE(NULL, strstr(o.err, " Performance counter stats for process id '1':\n"));
	worker = strstr(o.err, "\n          worker-1002                 750000      instructions  ");
	main_ = strstr(o.err, "\n            main-1001                 250000      instructions  ");
	sleeper = strstr(o.err, "\n         sleeper-1003                      0      instructions  ");
	task = strstr(o.err, "\n          worker-1002                 749992      instructions:t  ");
	EXPECT_TRUE(worker && main_ && sleeper && task) TH_LOG("%s", o.err);
	EXPECT_TRUE(worker < main_ && main_ < sleeper && sleeper < task);
	done(&o);
}

/*
 * A READ that failed after handing its rows over (-EAGAIN: the module
 * gave up waiting for the target) is asked again: each row once.
 */
TEST(rows_of_a_failed_read_dropped)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.rows_then_err = -EAGAIN;
	run(stat_main, ARGV("ctxstat", "-p", "1", "--per-thread", "-x", ",",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.rows_then_err);
	/* the second READ's, which ran longer */
	EXPECT_STREQ("worker-1002,750001,,instructions,1000001,100.00,,\n"
		     "main-1001,250000,,instructions,1000001,100.00,,\n"
		     "sleeper-1003,0,,instructions,1000001,100.00,,\n", o.err);
	done(&o);
}

/* -p 1,2: a session each, their rows in one order per event. */
TEST(several_pids)
{
	static const char *const order[] = {
		"worker-2002,750001", "worker-1002,750000", "main-1001,250000",
		"main-2001,250000", "sleeper-1003,0", "sleeper-2003,0",
	};
	struct outcome o;
	const char *p;
	size_t i;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-p", "1,2", "--per-thread", "-x", ",",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(2, fake_nl.sessions);
	for (i = 0, p = o.err; i < sizeof(order) / sizeof(order[0]); i++, p++) {
		p = strstr(p, order[i]);
		ASSERT_NE(NULL, p) TH_LOG("%s not after the rows before it:\n%s", order[i], o.err);
	}
	done(&o);
}

/*
 * -a: every thread with its own task events (ALL_THREADS, INHERIT unless
 * -i), no PID, no SYSTEM_WIDE; rows of 0 left out; CSV with perf's 7
 * separators a line.
 */
TEST(all_threads_csv)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-thread", "-x", ",", "-e", "instructions",
			    "-e", "cycles", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.target.pid);
	EXPECT_EQ(CTXCOUNT_TARGET_F_ALL_THREADS | CTXCOUNT_TARGET_F_INHERIT,
		  fake_nl.target.flags);
	EXPECT_EQ(CTXCOUNT_SESSION_F_PER_THREAD, fake_nl.target.session_flags);
	EXPECT_STREQ("worker-1002,750000,,instructions,1000000,100.00,1.00,insn per cycle\n"
		     "main-1001,250000,,instructions,1000000,100.00,1.00,insn per cycle\n"
		     "worker-1002,750075,,cycles,1000000,100.00,,\n"
		     "main-1001,250025,,cycles,1000000,100.00,,\n", o.err);
	EXPECT_TRUE(each_line_has(o.err, ',', 7));
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "-i", "--per-thread", "-e", "instructions",
			    "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(CTXCOUNT_TARGET_F_ALL_THREADS, fake_nl.target.flags);
	EXPECT_NE(NULL, strstr(o.err, " Performance counter stats for 'system wide':\n"));
	EXPECT_EQ(NULL, strstr(o.err, "sleeper"));
	done(&o);
}

/* JSON: "thread" first, then the 7 keys of a row (perf's lint: 8). */
TEST(all_threads_json)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "--per-thread", "-j", "-e", "instructions",
			    "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_STREQ("{\"thread\" : \"worker-1002\", \"counter-value\" : \"750000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n"
		     "{\"thread\" : \"main-1001\", \"counter-value\" : \"250000.000000\", \"unit\" : \"\", \"event\" : \"instructions\", \"event-runtime\" : 1000000, \"pcnt-running\" : 100.00, \"metric-value\" : 0.000000, \"metric-unit\" : \"\"}\n",
		     o.err);
	EXPECT_TRUE(each_line_has(o.err, ':', 8));
	done(&o);
}

/* --breakdown: each thread's contexts, as -A's per CPU. */
TEST(breakdown)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-p", "1", "--per-thread", "--breakdown", "-x", ",",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "main-1001,250000,,instructions,1000000,100.00,,\n"
				      "main-1001,249998,,instructions [task],1000000,100.00,100.00,of all\n"
				      "main-1001,2,,instructions [hardirq],1000000,100.00,0.00,of all\n"))
		TH_LOG("%s", o.err);
	done(&o);
}

/* An older module serves everything but --per-thread, and says so. */
TEST(old_module)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.version = 5;
	run(stat_main, ARGV("ctxstat", "-a", "--per-thread", "-e", "instructions", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_STREQ("ctxstat: the loaded ctxcount module is too old for --per-thread: its protocol version is 5, --per-thread needs 6; load this ctxstat's module\n",
		     o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	fake_nl_reset();
	fake_nl.version = 5;
	run(stat_main, ARGV("ctxstat", "-a", "-x", ",", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	EXPECT_EQ(1, fake_nl.sessions);
	done(&o);
}

/* The module's refusal of ALL_THREADS is said with its extack. */
TEST(refused_all_threads)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_NEW;
	fake_nl.fail_at = 1;
	fake_nl.fail_err = -EPERM;
	fake_nl.fail_msg = "CTXCOUNT_TARGET_F_ALL_THREADS needs CAP_PERFMON or CAP_SYS_ADMIN";
	run(stat_main, ARGV("ctxstat", "-a", "--per-thread", "-e", "instructions", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot create a counting session: Operation not permitted: CTXCOUNT_TARGET_F_ALL_THREADS needs CAP_PERFMON or CAP_SYS_ADMIN\n"))
		TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
