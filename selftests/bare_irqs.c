// SPDX-License-Identifier: GPL-2.0
/*
 * Interrupts that wake nobody, end to end: a deterministic program under
 * ctxstat (the module's estimate, measured at load; user mode by the
 * first privileged ctxstat), quiet and with the test bed oracle's hrtimer
 * storm (cst_oracle.h) firing at its CPU 20,000 times a second, with two
 * events and with ctxstat's default set (issue 21: a counter read through
 * its driver, task-clock, is then read with the others). The full count
 * grows by every interrupt's work; :t must not move by more than
 * STORM_MAX_TASK_SHIFT (issue #14: 0.1 %). Medians over STORM_RUNS
 * pairs, not means: once (CI, arm64 7.2, a quiet run) the program did
 * ~170 k more instructions in both counts, task-context work that perf
 * counts as well (cause not found; transparent huge pages are "always"
 * there), and that one run moved the mean of six by 0.2 %. The program is
 * a static copy in tmpfs so that its exec does not sleep on the guest's
 * 9p root.
 *
 * arm64 under QEMU -icount with one vCPU only (exact instruction counts;
 * run with scripts/vm --smp 1): skipped elsewhere, saying why.
 *
 * The full count must grow by at least 1 % (the storm landed).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cst.h"

#define STORM_RUNS		6
#define STORM_ITERS		"7000000"	/* 14 M instructions */
#define STORM_MAX_TASK_SHIFT	0.1		/* percent */
#define STORM_MIN_FULL_SHIFT	1.0		/* percent: the storm did land */

FIXTURE(storm) {
	int kmsg;
	const char *workload;
};

FIXTURE_VARIANT(storm) {
	bool defaults;	/* ctxstat's default events, else two */
};

FIXTURE_VARIANT_ADD(storm, two_events) { .defaults = false };
FIXTURE_VARIANT_ADD(storm, default_events) { .defaults = true };

FIXTURE_SETUP(storm)
{
	static char why[128];
	int err;

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP(return, "more than one CPU: under -icount each vCPU counts the others (run with scripts/vm --smp 1)");
	err = cst_oracle_load();
	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->workload = cst_workload_copy();
	ASSERT_NE(NULL, self->workload) TH_LOG("cannot copy the workload to /tmp: %m");
}

FIXTURE_TEARDOWN(storm)
{
	cst_oracle_cmd("storm 0");
	cst_workload_copy_remove(self->workload);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

struct storm_counts {
	double full, task, faults;
};

static void storm_run(struct __test_metadata *_metadata, const char *workload,
		      bool defaults, bool storm, struct storm_counts *c)
{
	char *two[] = {
		(char *)cst_ctxstat_path(), "-x,", "-e", "instructions,instructions:t",
		"--", (char *)workload, "loop", STORM_ITERS, NULL
	};
	char *all[] = {
		(char *)cst_ctxstat_path(), "-x,", "--", (char *)workload,
		"loop", STORM_ITERS, NULL
	};
	char **argv = defaults ? all : two;
	static struct cst_run r;
	struct cst_csv_row row;

	ASSERT_EQ(0, cst_oracle_cmd(storm ? "storm 20000" : "storm 0"));
	cst_run(&r, argv, 300);
	cst_oracle_cmd("storm 0");
	ASSERT_EQ(0, r.status) TH_LOG("ctxstat failed: %s", r.err);
	ASSERT_EQ(0, cst_csv_find(r.err, ',', "instructions", &row)) TH_LOG("%s", r.err);
	c->full = row.value;
	ASSERT_EQ(0, cst_csv_find(r.err, ',', "instructions:t", &row)) TH_LOG("%s", r.err);
	c->task = row.value;
	/* Only the default set has it: the other variant is two events. */
	c->faults = cst_csv_find(r.err, ',', "page-faults", &row) ? NAN : row.value;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(const double *v, int n)
{
	double s[STORM_RUNS];

	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

TEST_F_TIMEOUT(storm, bare_hardirqs_leave_task_count, 600)
{
	double qf[STORM_RUNS], qt[STORM_RUNS], sf[STORM_RUNS], st[STORM_RUNS];
	double task_shift, full_shift;
	struct cst_oracle_stats s0, s1;
	struct storm_counts q, s;
	int i;

	/* Quiet first: a first run warms up (and calibrates user mode). */
	storm_run(_metadata, self->workload, variant->defaults, false, &q);
	ASSERT_EQ(0, cst_oracle_stats(&s0));
	for (i = 0; i < STORM_RUNS; i++) {
		storm_run(_metadata, self->workload, variant->defaults, false, &q);
		storm_run(_metadata, self->workload, variant->defaults, true, &s);
		qf[i] = q.full;
		qt[i] = q.task;
		sf[i] = s.full;
		st[i] = s.task;
		ksft_print_msg("run %d: full %.0f :t %.0f faults %.0f quiet, full %.0f :t %.0f faults %.0f under the storm\n",
			       i + 1, q.full, q.task, q.faults, s.full, s.task, s.faults);
	}
	ASSERT_EQ(0, cst_oracle_stats(&s1));
	task_shift = (median(st, STORM_RUNS) - median(qt, STORM_RUNS)) /
		     median(qt, STORM_RUNS) * 100;
	full_shift = (median(sf, STORM_RUNS) - median(qf, STORM_RUNS)) /
		     median(qf, STORM_RUNS) * 100;
	ksft_print_msg("medians: full %+.3f %%, :t %+.4f %% under %ld storm interrupts in all\n",
		       full_shift, task_shift, s1.storm - s0.storm);
	EXPECT_GT(full_shift, STORM_MIN_FULL_SHIFT)
		TH_LOG("the storm moved the full count by %+.3f %% only", full_shift);
	EXPECT_LE(fabs(task_shift), STORM_MAX_TASK_SHIFT)
		TH_LOG(":t moved %+.4f %% under the storm", task_shift);
}

CST_TEST_MAIN
