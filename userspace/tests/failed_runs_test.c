// SPDX-License-Identifier: GPL-2.0
/*
 * failed runs tests: a command that exits non-zero or dies by a signal
 * is named as its run ends, a series says how many failed and leaves
 * them out of its counts and --save (unless every run failed), and the
 * exit status says so. Against tests/fake_nl.c; the workloads are real.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "builtin.h"
#include "results/results.h"

FIXTURE(scratch) {
	char dir[64], out[96], save[96], first_fails[256];
};

FIXTURE_SETUP(scratch)
{
	snprintf(self->dir, sizeof(self->dir), "/tmp/ctxstat-fail-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->dir));
	snprintf(self->out, sizeof(self->out), "%s/out", self->dir);
	snprintf(self->save, sizeof(self->save), "%s/s.json", self->dir);
	/* the first run exits 1, the others 0 */
	snprintf(self->first_fails, sizeof(self->first_fails),
		 "test -e %s/ran || { : > %s/ran; exit 1; }", self->dir, self->dir);
	fake_nl_reset();
}

FIXTURE_TEARDOWN(scratch)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->dir);
	if (system(cmd))
		TH_LOG("%s failed", cmd);
}

/*
 * -r 3 whose first run exits 1: named, left out of the means and of
 * --save, and ctxstat exits 1 (it averaged all three and exited 0).
 */
TEST_F(scratch, one_failed_run_left_out)
{
	struct cxs_result_set set = { 0 };
	char msg[256], *text;
	struct outcome o;

	run(stat_main, ARGV("ctxstat", "-r", "3", "-e", "instructions", "--no-noise-check",
			    "-x,", "-o", self->out, "--save", self->save,
			    "sh", "-c", self->first_fails), &o);
	EXPECT_EQ(1, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: run 1 of 3: 'sh' exited with status 1\n")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: 1 of 3 runs failed: left out of the counts and of "))
		TH_LOG("%s", o.err);
	ASSERT_EQ(0, cxs_results_load(&set, self->save, msg, sizeof(msg))) TH_LOG("%s", msg);
	EXPECT_EQ(2, set.r[0].elapsed_ns.n);
	/* the fake counts base + run: runs 2 and 3 are 1000001 and 1000002 */
	ASSERT_EQ(2, set.r[0].ev[0].values.n);
	EXPECT_EQ(1000001, set.r[0].ev[0].values.v[0]);
	EXPECT_EQ(1000002, set.r[0].ev[0].values.v[1]);
	cxs_results_free(&set);
	text = read_file(self->out);
	ASSERT_NE(NULL, text);
	/* mean 1000001.5 printed as perf rounds it; all three: 1000001 */
	EXPECT_NE(NULL, strstr(text, "1000002,,instructions,")) TH_LOG("%s", text);
	free(text);
	done(&o);
}

/* Every run failed: nothing else to show, so their counts are printed. */
TEST_F(scratch, every_run_failed)
{
	struct outcome o;

	run(stat_main, ARGV("ctxstat", "-r", "3", "-e", "instructions", "--no-noise-check",
			    "-x,", "sh", "-c", "exit 3"), &o);
	EXPECT_EQ(3, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: run 3 of 3: 'sh' exited with status 3\n")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: all 3 runs failed: the counts are theirs\n")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "1000001,,instructions,")) TH_LOG("%s", o.err);
	done(&o);
}

/* A single run killed by a signal: named, its counts printed, 128 + N. */
TEST_F(scratch, killed_by_signal)
{
	struct outcome o;

	run(stat_main, ARGV("ctxstat", "-e", "instructions", "sh", "-c", "kill -SEGV $$"), &o);
	EXPECT_EQ(128 + 11, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: 'sh' killed by SIGSEGV")) TH_LOG("%s", o.err);
	EXPECT_NE(NULL, strstr(o.err, "instructions")) TH_LOG("%s", o.err);
	done(&o);
}

/* compare stops at a failing command, naming the run and how it failed. */
TEST_F(scratch, compare_stops)
{
	struct outcome o;

	run(cmd_compare, ARGV("compare", "-r", "3", "-e", "instructions",
				   "--no-noise-check", "true", "---", "sh", "-c", "kill -SEGV $$"),
	    &o);
	EXPECT_EQ(128 + 11, o.code);
	EXPECT_NE(NULL, strstr(o.err, "ctxstat: run 2 (B): 'sh' killed by SIGSEGV; comparison stopped\n"))
		TH_LOG("%s", o.err);
	done(&o);
}

TEST_HARNESS_MAIN
