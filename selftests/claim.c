// SPDX-License-Identifier: GPL-2.0
/*
 * The claim ctxcount exists for, on a deterministic workload: network
 * interrupts move the full instruction count of a program, not its
 * task-context count.
 *
 * Runs alternate quiet and under host NIC load (ctxload, which proves the
 * load arrived): the known-length loop under ctxstat -e
 * instructions,instructions:t. ctxload's sink reads the datagrams only
 * after the loop has ended (--late-sink), so that no task the load wakes
 * runs on the loop's CPU meanwhile: the load reaches the loop as hardirqs
 * and softirqs only, and :t must not see it. Asserted:
 *   - every loaded run took NIC interrupts;
 *   - the mean of full instructions moves by more than its own quiet
 *     spread (the standard deviation of the quiet runs);
 *   - the mean of :t moves by at most 0.5 % at 400 datagrams/s (issue #4)
 *     and by at most 0.2 % at 2,000/s (issue #14);
 *   - per NIC interrupt, :t moves by at most CLAIM_MAX_TASK_PER_IRQ
 *     instructions either way, where the full count takes 6,000 to 12,000;
 *   - the relative standard deviation of :t under load is at most a
 *     quarter of full's (issue #4);
 *   - :t keeps less than a quarter of what load added to the full count.
 *
 * Needs a PMU that counts instructions, the test bed's ctxload, and one
 * CPU: under QEMU -icount every vCPU's counter follows the global
 * instruction count, so a second vCPU would count the load's receiver as
 * the workload (run with scripts/vm --smp 1; scripts/check does).
 *
 * Variants: rate_400, 20 quiet and 20 loaded runs at 400 datagrams/s;
 * rate_2000, 10 and 10 at 2,000/s; a 500 M-instruction loop
 * (CTX_CLAIM_ITERS). CTX_CLAIM_RATE overrides both rates, CTX_CLAIM_EVENTS
 * the events (`default`: ctxstat's default set; instructions,instructions:t
 * otherwise).
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
 * was 30k instructions; now 4 to 14 switches and 4k to 9k).
 */
#define CLAIM_RUNS		20		/* pairs at most */
#define CLAIM_ITERS		"250000000"	/* CTX_CLAIM_ITERS overrides */
#define CLAIM_MAX_SPREAD_RATIO	0.25		/* :t's relative stddev / full's */
/*
 * Per NIC interrupt, :t moved by -21 to +14 instructions (arm64 6.1, 6.12
 * and 7.2, 400 and 2,000 datagrams/s), about what the runs' own spread
 * allows (7.2's runs spread the most). While ctxload's sink still read
 * during the run (at SCHED_IDLE) it preempted the loop 68 to 79 times a
 * run, and :t moved by +380 to +850 a NIC interrupt: scheduler work in
 * the loop's own task context, which :t keeps as perf does, and which
 * made :t's spread under a steady load a third of full's.
 */
#define CLAIM_MAX_TASK_PER_IRQ	50.0
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
		      const char *rate, bool loaded, double *full, double *task)
{
	const char *iters = getenv("CTX_CLAIM_ITERS") ?: CLAIM_ITERS;
	const char *events = getenv("CTX_CLAIM_EVENTS") ?: "instructions,instructions:t";
	bool dflt = !strcmp(events, "default");
	char *quiet_argv[] = {
		(char *)cst_ctxstat_path(), "-x,", "-e", (char *)events,
		"--", (char *)workload, "loop", (char *)iters, NULL
	};
	char *loaded_argv[] = {
		(char *)cst_ctxload_path(), "--late-sink", "--rate", (char *)rate,
		"--seconds", "120", "--",
		(char *)cst_ctxstat_path(), "-x,", "-e", (char *)events,
		"--", (char *)workload, "loop", (char *)iters, NULL
	};

	/* Without -e: ctxstat's default events. */
	if (dflt) {
		memmove(quiet_argv + 2, quiet_argv + 4, 5 * sizeof(char *));
		memmove(loaded_argv + 9, loaded_argv + 11, 5 * sizeof(char *));
	}
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

/*
 * The issue #4 rate, and five times it (issue #14): :t is estimated free
 * of what each interrupt leaves on its side of the counter reads
 * (CTXCOUNT_BUCKET_IRQ_ENTRY_EST), so it must hold at the higher rate
 * too, to 0.2 %. CTX_CLAIM_RATE overrides both rates, CTX_CLAIM_EVENTS the
 * event list ("default": ctxstat's default set, whose rows include
 * instructions and instructions:t).
 */
FIXTURE_VARIANT(claim) {
	const char *rate;
	int runs;
	double max_task_shift;	/* percent */
};

FIXTURE_VARIANT_ADD(claim, rate_400) {
	.rate = "400",
	.runs = 20,
	.max_task_shift = 0.5,
};

FIXTURE_VARIANT_ADD(claim, rate_2000) {
	.rate = "2000",
	.runs = 10,
	.max_task_shift = 0.2,
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
TEST_F_TIMEOUT(claim, task_count_sheds_network_interrupts, 900)
{
	const char *rate = getenv("CTX_CLAIM_RATE") ?: variant->rate;
	double qf, qt, lf, lt, qf_sd, rsd_full, rsd_task, task_shift, kept;
	double task_per_irq;
	struct claim_sample quiet = { 0 }, load = { 0 };
	long irqs, total_irqs = 0;
	int i, n = variant->runs;

	/* The first exec of the fresh copy faults more pages in than the rest. */
	claim_run(_metadata, self->workload, rate, false, &quiet.full[0], &quiet.task[0]);
	for (i = 0; i < n; i++) {
		claim_run(_metadata, self->workload, rate, false, &quiet.full[i],
			  &quiet.task[i]);
		irqs = claim_run(_metadata, self->workload, rate, true, &load.full[i],
				 &load.task[i]);
		ksft_print_msg("run %d: quiet full %.0f :t %.0f; loaded full %.0f :t %.0f, %ld NIC interrupts\n",
			       i + 1, quiet.full[i], quiet.task[i],
			       load.full[i], load.task[i], irqs);
		ASSERT_GT(irqs, 0) TH_LOG("loaded run %d got no NIC interrupt", i + 1);
		total_irqs += irqs;
	}

	qf = mean_of(quiet.full, n);
	qt = mean_of(quiet.task, n);
	lf = mean_of(load.full, n);
	lt = mean_of(load.task, n);
	qf_sd = stddev_of(quiet.full, n);
	rsd_full = stddev_of(load.full, n) / lf * 100;
	rsd_task = stddev_of(load.task, n) / lt * 100;
	task_shift = (lt - qt) / qt * 100;

	ksft_print_msg("means: quiet full %.0f :t %.0f; loaded full %.0f (%+.2f %%) :t %.0f (%+.3f %%)\n",
		       qf, qt, lf, (lf - qf) / qf * 100, lt, task_shift);
	ksft_print_msg("quiet full stddev %.0f; loaded relative stddev: full %.3f %%, :t %.3f %%\n",
		       qf_sd, rsd_full, rsd_task);
	kept = lf > qf ? (lt - qt) / (lf - qf) * 100 : 100;
	task_per_irq = (lt - qt) * n / total_irqs;
	ksft_print_msg("per NIC interrupt: full +%.0f, :t %+.0f instructions; :t kept %.1f %% of the inflation\n",
		       (lf - qf) * n / total_irqs, task_per_irq, kept);
	ksft_print_msg(":t moved %+.3f %% under %s datagrams/s (at most %.1f %% asked)\n",
		       task_shift, rate, variant->max_task_shift);
	ksft_print_msg(":t spread %.3f %% is %s a quarter of full's %.3f %% (issue #4 asks for at most)\n",
		       rsd_task, rsd_task <= rsd_full / 4 ? "at most" : "MORE than",
		       rsd_full);

	EXPECT_GT(lf - qf, qf_sd)
		TH_LOG("full moved %.0f, no more than its quiet spread %.0f", lf - qf, qf_sd);
	EXPECT_LT(kept, CLAIM_MAX_KEPT)
		TH_LOG(":t kept %.1f %% of what load added to the full count", kept);
	EXPECT_LE(fabs(task_shift), variant->max_task_shift)
		TH_LOG(":t moved %+.3f %% under load", task_shift);
	EXPECT_LE(fabs(task_per_irq), CLAIM_MAX_TASK_PER_IRQ)
		TH_LOG(":t moved %+.0f instructions per NIC interrupt", task_per_irq);
	EXPECT_LE(rsd_task, rsd_full * CLAIM_MAX_SPREAD_RATIO)
		TH_LOG(":t spread %.3f %%, full's %.3f %%", rsd_task, rsd_full);
}

CST_TEST_MAIN
