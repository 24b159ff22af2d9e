// SPDX-License-Identifier: GPL-2.0
/*
 * runs tests: ctxstat's subcommands end to end on the host, the module
 * replaced by tests/fake_nl.c (which also makes kernel errors happen at a
 * chosen request). The workload is a real command (true).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "comma_locale.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "builtin.h"
#include "results/results.h"

static char *temp_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/tmp/ctxstat-runs-%d-%s", (int)getpid(), name);
	unlink(buf);
	return buf;
}

/* An unwritable --save path is an error before any session is made. */
TEST(save_path_checked_before_first_run)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-r", "3", "-e", "instructions",
			    "--save", "/nonexistent-dir/x.json", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_EQ(0, fake_nl.sessions) TH_LOG("%d runs before the error", fake_nl.sessions);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot save to /nonexistent-dir/x.json: No such file or directory"))
		TH_LOG("%s", o.err);
	done(&o);
}

/* compare's --label needs two names: a usage error before any run. */
TEST(compare_label_checked_before_first_run)
{
	char save[96];
	struct outcome o;

	fake_nl_reset();
	run(cmd_compare, ARGV("compare", "-r", "2", "--label", "nocomma",
				   "--save", temp_path(save, sizeof(save), "l.json"),
				   "true", "---", "true"), &o);
	EXPECT_EQ(129, o.code);
	EXPECT_EQ(0, fake_nl.sessions);
	EXPECT_NE(NULL, strstr(o.err, "--label for compare is '<A label>,<B label>'"))
		TH_LOG("%s", o.err);
	EXPECT_NE(0, access(save, F_OK));
	done(&o);
}

/*
 * The third read fails: the runs before it are saved, one elapsed time
 * per kept value, and the file reads back; the output says 2 runs.
 */
TEST(failed_run_leaves_consistent_file)
{
	char save[96], out[96], err[256], *text;
	struct cxs_result_set set = { 0 };
	struct outcome o;
	int i;

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_READ;
	fake_nl.fail_at = 3;
	fake_nl.fail_err = -EIO;
	run(stat_main, ARGV("ctxstat", "-r", "5", "-e", "instructions,instructions:t",
			    "--no-noise-check", "-o", temp_path(out, sizeof(out), "out"),
			    "--save", temp_path(save, sizeof(save), "f.json"), "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot read the session: Input/output error"));
	ASSERT_EQ(0, cxs_results_load(&set, save, err, sizeof(err))) TH_LOG("%s", err);
	ASSERT_EQ(1, set.nr);
	EXPECT_EQ(2, set.r[0].elapsed_ns.n);
	for (i = 0; i < set.r[0].nr_ev; i++)
		EXPECT_EQ(2, set.r[0].ev[i].values.n);
	cxs_results_free(&set);
	done(&o);
	text = read_file(out);
	ASSERT_NE(NULL, text);
	EXPECT_NE(NULL, strstr(text, "Performance counter stats for 'true' (2 runs):"))
		TH_LOG("%s", text);
	free(text);
	unlink(save);
	unlink(out);
}

/* Columns of every line of @text, at most: UTF-8 continuations take none. */
static int widest_line(const char *text)
{
	int w = 0, max = 0;

	for (; *text; text++) {
		if (*text == '\n') {
			w = 0;
			continue;
		}
		w += ((unsigned char)*text & 0xc0) != 0x80;
		if (w > max)
			max = w;
	}
	return max;
}

/*
 * compare prints its results on stdout, as report does: a summary first
 * (per event both means with their spread, B/A with its interval, the
 * verdict), then the full table, every line within 100 columns with
 * perf's 13 default events and billions counted.
 */
/* true against true, counting 1e9 (A) and 5 % more (B), default events. */
static void compare_billions(struct outcome *o)
{
	fake_nl_reset();
	fake_nl.base[0] = 1000000000;
	fake_nl.base[1] = 1050000000;
	run(cmd_compare, ARGV("compare", "-r", "4", "--no-noise-check",
				   "true", "---", "true"), o);
}

TEST(compare_on_stdout_within_100_columns)
{
	struct outcome o;
	char *summary, *table;

	compare_billions(&o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	TH_LOG("stdout:\n%s", o.out);
	EXPECT_EQ(NULL, strstr(o.err, "Performance counter comparison"));
	summary = strstr(o.out, "B/A [95% CI]");
	ASSERT_NE(NULL, summary);
	table = strstr(summary, "p (Holm)");
	ASSERT_NE(NULL, table);
	/* instructions: A 1,000,000,100 + run, B 5 % more */
	EXPECT_NE(NULL, strstr(summary, "1.000G ± 0.645  ")) TH_LOG("%s", summary);
	/* exactly 5 % more in every run: the interval has one point */
	EXPECT_NE(NULL, strstr(summary, "1.050G ± 0.645  1.0500 [1.0500, 1.0500]  more\n"))
		TH_LOG("%s", summary);
	EXPECT_NE(NULL, strstr(table, " instructions      1000000502  1050000502  +50000000  [+5.00%, +5.00%]   <0.0001     2\n"))
		TH_LOG("%s", table);
	/* task-clock: 1e9 ns and its spread, each in its unit */
	EXPECT_NE(NULL, strstr(summary, "1.000s ± 0.645ns")) TH_LOG("%s", summary);
	EXPECT_LE(widest_line(o.out), 100);
	done(&o);
}

/* Thousands grouped (de_DE groups with dots), still within 100 columns. */
TEST(compare_grouped_within_100_columns)
{
	const char *why = comma_locale();
	struct outcome o;

	if (why)
		SKIP(return, "%s", why);
	compare_billions(&o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	TH_LOG("stdout:\n%s", o.out);
	EXPECT_NE(NULL, strstr(o.out, " 1.000.000.502 ")) TH_LOG("%s", o.out);
	EXPECT_LE(widest_line(o.out), 100);
	done(&o);
}

/*
 * The module going away mid-run (-ENOENT from the kernel) is a counting
 * failure, said as such, not "command not found" (127).
 */
TEST(compare_module_error_is_not_127)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_READ;
	fake_nl.fail_at = 2;
	fake_nl.fail_err = -ENOENT;
	run(cmd_compare, ARGV("compare", "-r", "2", "--no-noise-check",
				   "-e", "cycles", "true", "---", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot read the session: No such file or directory"))
		TH_LOG("%s", o.err);
	done(&o);
	/* a command that does not exist still is */
	fake_nl_reset();
	run(cmd_compare, ARGV("compare", "-r", "2", "--no-noise-check",
				   "-e", "cycles", "/nonexistent/cmd", "---", "true"), &o);
	EXPECT_EQ(127, o.code);
	done(&o);
}

/* -v: perf's "[ perf stat: executing run #N ... ]", one line per run. */
TEST(verbose_progress)
{
	char out[96];
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-v", "-r", "3", "-e", "cycles",
			    "--no-noise-check", "-o", temp_path(out, sizeof(out), "o"),
			    "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_NE(NULL, strstr(o.err, "[ ctxstat: executing run #1 ... ]\n")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "[ ctxstat: executing run #3 ... ]\n"));
	EXPECT_EQ(NULL, strstr(o.err, "run #4"));
	done(&o);
	/* compare: which command, too */
	fake_nl_reset();
	run(cmd_compare, ARGV("compare", "-v", "-r", "2", "-e", "cycles",
				   "--no-noise-check", "-o", out, "true", "---", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_NE(NULL, strstr(o.err, "[ ctxstat compare: executing run #1 (A) ... ]\n")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "[ ctxstat compare: executing run #2 (B) ... ]\n"));
	EXPECT_NE(NULL, strstr(o.err, "[ ctxstat compare: executing run #4 (A) ... ]\n"));
	done(&o);
	/* one run: nothing, as perf */
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-v", "-e", "cycles", "-o", out, "true"), &o);
	EXPECT_EQ(NULL, strstr(o.err, "executing run")) TH_LOG("%s", o.err);
	done(&o);
	unlink(out);
}

/*
 * -I against the fake module: one interval per READ (the last one the READ
 * after STOP), and the intervals' deltas add up to the whole run's count,
 * which --summary prints as the last READ. How many intervals fit in the
 * command depends on the host's load; the sum does not.
 */
TEST(interval_deltas_sum_to_summary)
{
	struct outcome o;
	double sum, total;
	int n;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-I", "10", "--summary", "-x,",
			    "-e", "instructions,cycles:t", "sleep", "0.1"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	csv_intervals(o.err, "instructions", &sum, &n, &total);
	EXPECT_EQ(fake_nl.reads, n) TH_LOG("%s", o.err);
	EXPECT_LE(1, n);
	/* the fake's last READ: base + its number, counter 0 */
	EXPECT_EQ(fake_nl.base[0] + fake_nl.reads - 1, total) TH_LOG("%s", o.err);
	EXPECT_EQ(total, sum);
	/* :t is the task bucket: 10 less than full, in the first interval */
	csv_intervals(o.err, "cycles:t", &sum, &n, &total);
	EXPECT_EQ(fake_nl.base[0] + 100 + fake_nl.reads - 1 - 10, total);
	EXPECT_EQ(total, sum);
	EXPECT_EQ(1, fake_nl.sessions);
	EXPECT_EQ(0, fake_nl.live);
	done(&o);
}

/* Without --summary the intervals are all: no total, no header, as perf. */
TEST(interval_std_without_summary)
{
	struct outcome o;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-I", "10", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code);
	EXPECT_EQ(0, strncmp(o.err, "#           time             counts unit events\n", 48))
		TH_LOG("%s", o.err);
	EXPECT_EQ(NULL, strstr(o.err, "Performance counter stats"));
	EXPECT_EQ(NULL, strstr(o.err, "seconds time elapsed"));
	done(&o);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-I", "10", "--summary", "-e", "instructions",
			    "true"), &o);
	EXPECT_NE(NULL, strstr(o.err, "Performance counter stats for 'true'"));
	done(&o);
}

/* -p: the intervals go on until the process exits. */
TEST(interval_pid)
{
	char pid[16];
	struct outcome o;
	double sum, total;
	int n, status;
	pid_t child = fork();

	ASSERT_LE(0, child);
	if (!child) {
		usleep(50000);
		_exit(0);
	}
	snprintf(pid, sizeof(pid), "%d", (int)child);
	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-I", "10", "--summary", "-x,",
			    "-e", "instructions", "-p", pid), &o);
	waitpid(child, &status, 0);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	csv_intervals(o.err, "instructions", &sum, &n, &total);
	EXPECT_EQ(fake_nl.reads, n) TH_LOG("%s", o.err);
	EXPECT_EQ(fake_nl.base[0] + fake_nl.reads - 1, total) TH_LOG("%s", o.err);
	EXPECT_EQ(total, sum);
	done(&o);
}

/* A READ that fails mid-run ends it as a counting failure. */
TEST(interval_read_error)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.fail_cmd = CTXCOUNT_CMD_SESSION_READ;
	fake_nl.fail_at = 1;
	fake_nl.fail_err = -EIO;
	run(stat_main, ARGV("ctxstat", "-I", "10", "-e", "instructions",
			    "sleep", "0.1"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: cannot read the session: Input/output error"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.live);
	done(&o);
}

/*
 * -a -A against the fake module, which splits every value between CPUs
 * 0 and 1: each row is that CPU's share, and the two add up to the
 * aggregate the fake counted (counter 0: base + READ number; 10 of it
 * in hardirq).
 */
TEST(no_aggr_rows_sum_to_total)
{
	struct outcome o;
	double c0, c1, sum;
	int n;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-x,", "--breakdown",
			    "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	csv_cpu_rows(o.err, "instructions", 0, &sum, &n, &c0);
	csv_cpu_rows(o.err, "instructions", 1, &sum, &n, &c1);
	EXPECT_EQ(fake_nl.base[0], c0 + c1) TH_LOG("%s", o.err);
	EXPECT_EQ((long)fake_nl.base[0] / 4, c1);
	csv_cpu_rows(o.err, "instructions [hardirq]", 0, &sum, &n, &c0);
	csv_cpu_rows(o.err, "instructions [hardirq]", 1, &sum, &n, &c1);
	EXPECT_EQ(8, c0) TH_LOG("%s", o.err);
	EXPECT_EQ(2, c1);
	EXPECT_EQ(NULL, strstr(o.err, "CPU2"));
	done(&o);
}

/* -A -I: each CPU's intervals add up to its --summary row. */
TEST(no_aggr_intervals_sum_per_cpu)
{
	struct outcome o;
	double sum, total;
	int n, cpu;

	fake_nl_reset();
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-I", "10", "--summary", "-x,",
			    "-e", "instructions", "sleep", "0.05"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	for (cpu = 0; cpu < 2; cpu++) {
		csv_cpu_rows(o.err, "instructions", cpu, &sum, &n, &total);
		EXPECT_EQ(fake_nl.reads, n) TH_LOG("%s", o.err);
		EXPECT_LT(0, total);
		EXPECT_EQ(total, sum) TH_LOG("cpu %d: %s", cpu, o.err);
	}
	done(&o);
}

/*
 * -A needs a module of protocol version 5 (its rows come as a dump), -C
 * version 3: said before counting; older modules still count the rest.
 */
TEST(no_aggr_needs_version_5)
{
	struct outcome o;

	fake_nl_reset();
	fake_nl.version = 4;
	run(stat_main, ARGV("ctxstat", "-a", "-A", "-e", "instructions", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "protocol version is 4, -A needs 5"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	fake_nl_reset();
	fake_nl.version = 2;
	run(stat_main, ARGV("ctxstat", "-C", "0", "-e", "instructions", "true"), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "protocol version is 2, they need 3"))
		TH_LOG("%s", o.err);
	EXPECT_EQ(0, fake_nl.sessions);
	done(&o);
	fake_nl_reset();
	fake_nl.version = 4;
	run(stat_main, ARGV("ctxstat", "-C", "0", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
	fake_nl_reset();
	fake_nl.version = 2;
	run(stat_main, ARGV("ctxstat", "-a", "-e", "instructions", "true"), &o);
	EXPECT_EQ(0, o.code) TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
