// SPDX-License-Identifier: GPL-2.0
/*
 * signals tests: Ctrl-C as a terminal sends it, SIGINT to ctxstat's
 * process group (its workload included), at a known point: the workload
 * of the run to be cut short makes a marker file, then sleeps; the test
 * signals once the marker is there. No timing decides a result. ctxstat
 * runs as the built binary (-n needs no module) or, in a child of the
 * test, as its subcommands linked against tests/fake_nl.c.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "fake_nl.h"
#include "runs_fixture.h"
#include "builtin.h"
#include "results/results.h"

#ifndef CTXSTAT_BIN
#define CTXSTAT_BIN "./ctxstat"
#endif

struct scratch {
	char dir[64];
	char marker[96];	/* made by the workload of the run to cut */
	char out[96];		/* -o */
	char err[96];		/* ctxstat's stderr */
	char save[96];		/* --save */
	char script[320];	/* sh -c: run 1 ends, run 2 marks and sleeps */
};

static void scratch_init(struct scratch *s)
{
	snprintf(s->dir, sizeof(s->dir), "/tmp/ctxstat-sig-XXXXXX");
	if (!mkdtemp(s->dir))
		abort();
	snprintf(s->marker, sizeof(s->marker), "%s/m2", s->dir);
	snprintf(s->out, sizeof(s->out), "%s/out", s->dir);
	snprintf(s->err, sizeof(s->err), "%s/err", s->dir);
	snprintf(s->save, sizeof(s->save), "%s/s.json", s->dir);
	snprintf(s->script, sizeof(s->script),
		 "if [ -e %s/m1 ]; then : > %s; exec sleep 60; else : > %s/m1; fi",
		 s->dir, s->marker, s->dir);
}

static void scratch_done(struct scratch *s)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	if (system(cmd))
		return;
}

/* Whether @path exists and, with @nonempty, has something in it. */
static bool there(const char *path, bool nonempty)
{
	struct stat st;

	return !stat(path, &st) && (!nonempty || st.st_size > 0);
}

/*
 * In a child that leads a process group of its own: stderr to @s->err,
 * then @argv through @fn (in-process, the fake module) or, with @fn
 * NULL, the built binary. Once @marker is there (non-empty with
 * @nonempty), SIGINT to the group. The wait status, or -1 if the marker
 * never came (the child is killed then).
 */
static int interrupt_at(const struct scratch *s, int (*fn)(int, char **),
			char **argv, const char *marker, bool nonempty)
{
	int status, argc = 0, i;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		FILE *e = freopen(s->err, "w", stderr);

		setpgid(0, 0);
		if (!e)
			_exit(201);
		/*
		 * A job a non-interactive shell put in the background (make
		 * check &) starts with SIGINT ignored, and exec keeps that:
		 * the workload would outlive the Ctrl-C. A terminal's
		 * foreground job, which these tests play, has it default.
		 */
		signal(SIGINT, SIG_DFL);
		/* The harness's timeout kills the test, not this group. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (!fn) {
			execv(CTXSTAT_BIN, argv);
			_exit(200);
		}
		while (argv[argc])
			argc++;
		fn(argc, argv);
		_exit(202);	/* not reached: it dies by the signal */
	}
	setpgid(pid, pid);
	/*
	 * The marker comes within a second; 20 s means it never will (and
	 * is within the harness's 30 s, so the group is killed here).
	 */
	for (i = 0; i < 2000 && !there(marker, nonempty); i++)
		usleep(10000);
	if (i == 2000) {
		kill(-pid, SIGKILL);
		waitpid(pid, &status, 0);
		return -1;
	}
	kill(-pid, SIGINT);
	waitpid(pid, &status, 0);
	return status;
}

static bool died_by(int status, int sig)
{
	return status != -1 && WIFSIGNALED(status) && WTERMSIG(status) == sig;
}

/*
 * -r 3, Ctrl-C in run 2: run 1's counts are printed (no "(N runs)"),
 * stderr says run 2 was left out, and ctxstat dies by SIGINT so that a
 * shell loop around it stops (it used to exit 130).
 */
TEST(ctrl_c_drops_the_cut_run_and_dies_by_sigint)
{
	struct scratch s;
	char *out, *err;
	int status;

	scratch_init(&s);
	status = interrupt_at(&s, NULL,
			      ARGV("ctxstat", "-n", "-r", "3", "--no-noise-check",
				   "-o", s.out, "sh", "-c", s.script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	err = read_file(s.err);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, err);
	EXPECT_NE(NULL, strstr(out, "Performance counter stats for 'sh -c ")) TH_LOG("%s", out);
	EXPECT_EQ(NULL, strstr(out, " runs):")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, " seconds time elapsed")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(err, "ctxstat: run 2 of 3 cut short by SIGINT: left out of the counts\n"))
		TH_LOG("%s", err);
	free(out);
	free(err);
	scratch_done(&s);
}

/*
 * One run, Ctrl-C: its counts are printed as perf prints them, stderr
 * says they are of a cut-short run, and ctxstat dies by SIGINT.
 */
TEST(ctrl_c_single_run_printed_then_dies)
{
	struct scratch s;
	char *out, *err, script[160];
	int status;

	scratch_init(&s);
	snprintf(script, sizeof(script), ": > %s; exec sleep 60", s.marker);
	status = interrupt_at(&s, NULL,
			      ARGV("ctxstat", "-n", "-o", s.out, "sh", "-c", script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	err = read_file(s.err);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, err);
	EXPECT_NE(NULL, strstr(out, " seconds time elapsed")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(err, "ctxstat: 'sh' cut short by SIGINT: the counts are of the part that ran\n"))
		TH_LOG("%s", err);
	free(out);
	free(err);
	scratch_done(&s);
}

/*
 * With the fake module: --save holds the runs that completed, never the
 * one Ctrl-C cut short (s.json used to hold its 0.294 s beside 1.003 s).
 */
TEST(ctrl_c_run_not_saved)
{
	struct cxs_result_set set = { 0 };
	char msg[256], *err;
	struct scratch s;
	int status;

	fake_nl_reset();
	scratch_init(&s);
	status = interrupt_at(&s, stat_main,
			      ARGV("ctxstat", "-r", "5", "-e", "instructions",
				   "--no-noise-check", "-o", s.out, "--save", s.save,
				   "sh", "-c", s.script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	err = read_file(s.err);
	ASSERT_NE(NULL, err);
	EXPECT_NE(NULL, strstr(err, "ctxstat: run 2 of 5 cut short by SIGINT: left out of the counts and of "))
		TH_LOG("%s", err);
	ASSERT_EQ(0, cxs_results_load(&set, s.save, msg, sizeof(msg))) TH_LOG("%s", msg);
	ASSERT_EQ(1, set.nr);
	EXPECT_EQ(1, set.r[0].elapsed_ns.n);
	EXPECT_EQ(1, set.r[0].ev[0].values.n);
	cxs_results_free(&set);
	free(err);
	scratch_done(&s);
}

/*
 * -a until Ctrl-C (the fake module): the intervals so far and the
 * summary are printed, then ctxstat dies by SIGINT (it used to exit 0).
 */
TEST(ctrl_c_ends_system_wide_then_dies)
{
	struct scratch s;
	char *out;
	int status;

	fake_nl_reset();
	scratch_init(&s);
	status = interrupt_at(&s, stat_main,
			      ARGV("ctxstat", "-a", "-e", "instructions", "-I", "20",
				   "--summary", "-x,", "-o", s.out),
			      s.out, true);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	ASSERT_NE(NULL, out);
	EXPECT_NE(NULL, strstr(out, "summary,")) TH_LOG("%s", out);
	free(out);
	scratch_done(&s);
}

/* compare: the cut run is left out, the comparison of the rest printed. */
TEST(ctrl_c_compare)
{
	struct scratch s;
	char *out, *err, script[320];
	int status;

	fake_nl_reset();
	scratch_init(&s);
	/* A's runs end; B's second run (run 3 of ABBA) marks and sleeps */
	snprintf(script, sizeof(script),
		 "if [ -e %s/b1 ]; then : > %s; exec sleep 60; else : > %s/b1; fi",
		 s.dir, s.marker, s.dir);
	status = interrupt_at(&s, cmd_compare,
			      ARGV("compare", "-r", "4", "-e", "instructions",
				   "--no-noise-check", "-o", s.out, "true", "---",
				   "sh", "-c", script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	err = read_file(s.err);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, err);
	EXPECT_NE(NULL, strstr(err, "ctxstat: run 3 (B) cut short by SIGINT: left out of the comparison\n"))
		TH_LOG("%s", err);
	EXPECT_NE(NULL, strstr(out, "Performance counter comparison, 1 runs each")) TH_LOG("%s", out);
	free(out);
	free(err);
	scratch_done(&s);
}

/*
 * A command for `sh -c` whose first two runs end at once and whose third
 * marks @s->marker and sleeps (for Ctrl-C then).
 */
static void third_run_waits(char *script, size_t len, const struct scratch *s)
{
	snprintf(script, len,
		 "n=$(cat %s/n 2>/dev/null || echo 0); echo $((n + 1)) > %s/n; "
		 "if [ $n -ge 2 ]; then : > %s; exec sleep 60; fi",
		 s->dir, s->dir, s->marker);
}

/*
 * -r 0, perf's forever: each run printed on its own until Ctrl-C, the
 * run it cuts short left out (it was refused as a bad repeat count).
 */
TEST(forever_until_ctrl_c)
{
	char script[512], *out;
	struct scratch s;
	int status;

	fake_nl_reset();
	scratch_init(&s);
	third_run_waits(script, sizeof(script), &s);
	status = interrupt_at(&s, stat_main,
			      ARGV("ctxstat", "-r", "0", "-e", "instructions", "-x,",
				   "-o", s.out, "sh", "-c", script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	ASSERT_NE(NULL, out);
	/* two runs, each its own: one row each, no variance field */
	EXPECT_NE(NULL, strstr(out, "\n1000000,,instructions,1000000,100.00,,\n"
				    "1000001,,instructions,1000001,100.00,,\n")) TH_LOG("%s", out);
	free(out);
	scratch_done(&s);
}

/*
 * -r 0 (the built binary, -n): the run Ctrl-C cuts short is left out,
 * as perf leaves it out (Ctrl-C kills perf before it prints it), and
 * stderr says so; it was printed as if it had run to the end.
 */
TEST(forever_leaves_out_the_cut_run)
{
	char script[512], *out, *err, *third;
	struct scratch s;
	int status;

	scratch_init(&s);
	third_run_waits(script, sizeof(script), &s);
	status = interrupt_at(&s, NULL,
			      ARGV("ctxstat", "-n", "-r", "0", "-o", s.out,
				   "sh", "-c", script),
			      s.marker, false);
	EXPECT_TRUE(died_by(status, SIGINT)) TH_LOG("wait status %#x", status);
	out = read_file(s.out);
	err = read_file(s.err);
	ASSERT_NE(NULL, out);
	ASSERT_NE(NULL, err);
	/* runs 1 and 2, each printed whole; not run 3 */
	third = strstr(out, " seconds time elapsed");
	third = third ? strstr(third + 1, " seconds time elapsed") : NULL;
	EXPECT_NE(NULL, third) TH_LOG("%s", out);
	EXPECT_EQ(NULL, third ? strstr(third + 1, " seconds time elapsed") : NULL)
		TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(err, "ctxstat: run 3 cut short by SIGINT: left out of the counts\n"))
		TH_LOG("%s", err);
	free(out);
	free(err);
	scratch_done(&s);
}

TEST_HARNESS_MAIN
