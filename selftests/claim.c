// SPDX-License-Identifier: GPL-2.0
/*
 * The claim ctxcount exists for, on a deterministic workload: network
 * interrupts move the full instruction count of a program, not its
 * task-context count.
 *
 * Runs alternate quiet and under host NIC load (ctxload, which proves the
 * load arrived): the known-length loop under ctxstat -e
 * instructions,instructions:t. Asserted:
 *   - every loaded run took NIC interrupts;
 *   - the mean of full instructions moves by more than its own quiet
 *     spread (the standard deviation of the quiet runs);
 *   - the mean of :t moves by less than 0.5 % (issue #4);
 *   - the relative standard deviation of :t under load is at most a
 *     quarter of full's (issue #4);
 *   - :t keeps less than a quarter of what load added to the full count.
 *
 * Needs a PMU that counts instructions, the test bed's ctxload, and one
 * CPU: under QEMU -icount every vCPU's counter follows the global
 * instruction count, so a second vCPU would count the load's receiver as
 * the workload (run with scripts/vm --smp 1; scripts/check does).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cst.h"

/*
 * 20 pairs of 500M-instruction runs (about 5 minutes of host time per
 * target); 20 runs keep the estimate of each standard deviation within
 * about 16 %. What varies in a run's task-context count without load is
 * the scheduler code on the workload's side of its context switches, a
 * few thousand instructions each: the workload is static and runs from
 * tmpfs, so its exec does not sleep on the guest's 9p root (a dynamic one
 * from /ctx switched out 50 to 60 times per run, and :t's quiet spread
 * was 30k instructions; now 4 to 14 switches and 4k to 9k). :t's spread
 * under load is then 0.10 to 0.17 of full's, what is left being mostly the
 * switches the load causes; with the dynamic workload it was 0.07 to 0.36,
 * above the bound of a quarter twice.
 */
#define CLAIM_RUNS		20
#define CLAIM_ITERS		"250000000"	/* CTX_CLAIM_ITERS overrides */
#define CLAIM_MAX_TASK_SHIFT	0.5		/* percent, issue #4 */
#define CLAIM_MAX_SPREAD_RATIO	0.25		/* :t's relative stddev / full's */
/*
 * Datagrams/s sent by the host. What the task bucket keeps of an interrupt
 * is a fixed cost per interrupt (the architecture's entry and exit code,
 * which cannot be hooked, ftrace's dispatch and the hooks' own code on
 * either side of the counter read, the code between the hardirq's exit
 * and the softirq's entry; printed per NIC interrupt: 380 to 850
 * instructions on arm64, including the scheduler work the load causes),
 * while what an interrupt costs in all grows with the datagrams NAPI takes
 * per interrupt. So :t moves with the interrupt rate, not the load's
 * size: at 1500/s on 20M-instruction runs the full count moved by 11 to
 * 13 % and :t by 0.58 to 0.78 %; at 400/s on 250M to 500M instructions
 * full moved by 1.7 to 2.3 % (50 to 200 times its quiet spread) and :t by
 * 0.19 to 0.26 %.
 */
#define CLAIM_RATE		"400"	/* CTX_CLAIM_RATE overrides */
#define CLAIM_MAX_KEPT		25.0		/* percent of the inflation */

struct claim_sample {
	double full[CLAIM_RUNS];
	double task[CLAIM_RUNS];
};

static double mean_of(const double *v, int n)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++)
		sum += v[i];
	return sum / n;
}

/* Sample standard deviation. */
static double stddev_of(const double *v, int n)
{
	double m = mean_of(v, n), ss = 0;
	int i;

	for (i = 0; i < n; i++)
		ss += (v[i] - m) * (v[i] - m);
	return sqrt(ss / (n - 1));
}

/* Why this test cannot run here, or NULL. */
static const char *claim_cannot_run(void)
{
	static char why[128];

	if (cst_no_insn_reason(why, sizeof(why)))
		return why;
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		return "more than one CPU: under -icount each vCPU counts the others (run with scripts/vm --smp 1)";
	if (access(cst_ctxload_path(), X_OK) || !getenv("CTX_LOAD_HOST"))
		return "no host network load (ctxload under scripts/vm)";
	return NULL;
}

/* One run; with @loaded under ctxload. Returns the NIC interrupts taken. */
static long claim_run(struct __test_metadata *_metadata, const char *workload,
		      bool loaded, double *full, double *task)
{
	const char *iters = getenv("CTX_CLAIM_ITERS") ?: CLAIM_ITERS;
	const char *rate = getenv("CTX_CLAIM_RATE") ?: CLAIM_RATE;
	char *quiet_argv[] = {
		(char *)cst_ctxstat_path(), "-x,", "-e", "instructions,instructions:t",
		"--", (char *)workload, "loop", (char *)iters, NULL
	};
	char *loaded_argv[] = {
		(char *)cst_ctxload_path(), "--idle-sink", "--rate", (char *)rate,
		"--seconds", "120", "--",
		(char *)cst_ctxstat_path(), "-x,", "-e", "instructions,instructions:t",
		"--", (char *)workload, "loop", (char *)iters, NULL
	};
	static struct cst_run r;
	struct cst_csv_row row;
	const char *irqs;

	cst_run(&r, loaded ? loaded_argv : quiet_argv, 600);
	ASSERT_EQ(0, r.status) TH_LOG("run failed: %s", r.err);
	ASSERT_EQ(0, cst_csv_find(r.err, ',', "instructions", &row)) TH_LOG("%s", r.err);
	ASSERT_TRUE(row.numeric);
	*full = row.value;
	ASSERT_EQ(0, cst_csv_find(r.err, ',', "instructions:t", &row)) TH_LOG("%s", r.err);
	ASSERT_TRUE(row.numeric);
	*task = row.value;
	if (!loaded)
		return 0;
	irqs = strstr(r.err, "virtio_irqs=");
	ASSERT_NE(NULL, irqs) TH_LOG("no load report: %s", r.err);
	return atol(irqs + strlen("virtio_irqs="));
}

FIXTURE(claim) {
	int kmsg;
	const char *workload;
};

FIXTURE_SETUP(claim)
{
	const char *why = claim_cannot_run();

	if (why)
		SKIP(return, "%s", why);
	self->kmsg = cst_kmsg_open();
	self->workload = cst_workload_copy();
	ASSERT_NE(NULL, self->workload) TH_LOG("cannot copy the workload to /tmp: %m");
}

FIXTURE_TEARDOWN(claim)
{
	cst_workload_copy_remove(self->workload);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* Guest time under -icount runs slower than the host's: 5 min host, ~60 s. */
TEST_F_TIMEOUT(claim, task_count_sheds_network_interrupts, 600)
{
	struct claim_sample quiet, load;
	double qf, qt, lf, lt, qf_sd, rsd_full, rsd_task, task_shift, kept;
	long irqs, total_irqs = 0;
	int i;

	/* The first exec of the fresh copy faults more pages in than the rest. */
	claim_run(_metadata, self->workload, false, &quiet.full[0], &quiet.task[0]);
	for (i = 0; i < CLAIM_RUNS; i++) {
		claim_run(_metadata, self->workload, false, &quiet.full[i], &quiet.task[i]);
		irqs = claim_run(_metadata, self->workload, true, &load.full[i], &load.task[i]);
		ksft_print_msg("run %d: quiet full %.0f :t %.0f; loaded full %.0f :t %.0f, %ld NIC interrupts\n",
			       i + 1, quiet.full[i], quiet.task[i],
			       load.full[i], load.task[i], irqs);
		ASSERT_GT(irqs, 0) TH_LOG("loaded run %d got no NIC interrupt", i + 1);
		total_irqs += irqs;
	}

	qf = mean_of(quiet.full, CLAIM_RUNS);
	qt = mean_of(quiet.task, CLAIM_RUNS);
	lf = mean_of(load.full, CLAIM_RUNS);
	lt = mean_of(load.task, CLAIM_RUNS);
	qf_sd = stddev_of(quiet.full, CLAIM_RUNS);
	rsd_full = stddev_of(load.full, CLAIM_RUNS) / lf * 100;
	rsd_task = stddev_of(load.task, CLAIM_RUNS) / lt * 100;
	task_shift = (lt - qt) / qt * 100;

	ksft_print_msg("means: quiet full %.0f :t %.0f; loaded full %.0f (%+.2f %%) :t %.0f (%+.3f %%)\n",
		       qf, qt, lf, (lf - qf) / qf * 100, lt, task_shift);
	ksft_print_msg("quiet full stddev %.0f; loaded relative stddev: full %.3f %%, :t %.3f %%\n",
		       qf_sd, rsd_full, rsd_task);
	kept = lf > qf ? (lt - qt) / (lf - qf) * 100 : 100;
	ksft_print_msg("per NIC interrupt: full +%.0f, :t %+.0f instructions; :t kept %.1f %% of the inflation\n",
		       (lf - qf) * CLAIM_RUNS / total_irqs,
		       (lt - qt) * CLAIM_RUNS / total_irqs, kept);
	ksft_print_msg(":t moved %+.3f %% under load (issue #4 asks for less than 0.5 %%)\n",
		       task_shift);
	ksft_print_msg(":t spread %.3f %% is %s a quarter of full's %.3f %% (issue #4 asks for at most)\n",
		       rsd_task, rsd_task <= rsd_full / 4 ? "at most" : "MORE than",
		       rsd_full);

	EXPECT_GT(lf - qf, qf_sd)
		TH_LOG("full moved %.0f, no more than its quiet spread %.0f", lf - qf, qf_sd);
	EXPECT_LT(kept, CLAIM_MAX_KEPT)
		TH_LOG(":t kept %.1f %% of what load added to the full count", kept);
	EXPECT_LT(fabs(task_shift), CLAIM_MAX_TASK_SHIFT)
		TH_LOG(":t moved %+.3f %% under load", task_shift);
	EXPECT_LE(rsd_task, rsd_full * CLAIM_MAX_SPREAD_RATIO)
		TH_LOG(":t spread %.3f %%, full's %.3f %%", rsd_task, rsd_full);
}

CST_TEST_MAIN
