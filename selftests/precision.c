// SPDX-License-Identifier: GPL-2.0
/*
 * :t never less precise than the full count on a quiet machine (issue 21):
 * PRECISION_ROUNDS rounds of a deterministic program (14 M instructions, a
 * static copy in tmpfs), alternating event sets as a user comparing does:
 * ctxstat -e instructions:t -e instructions, ctxstat with its default
 * events, perf stat. Over the rounds, no set's instructions:t varies more
 * than its instructions (perf's spread is printed beside them), and no
 * round's [hardirq] holds more than the timer ticks that round took
 * explain: at most PRECISION_TICK_COST instructions per tick the CPU took
 * during the whole ctxstat run, three more ticks granted.
 *
 * "Varies more" is decided by the Pitman-Morgan test for paired variances,
 * one-sided: :t and the full count of a round come from the same run, and
 * most of what varies between rounds (the scheduler code on the program's
 * side of its context switches, a few thousand instructions) is in both.
 * On a quiet host the ticks are the same in every round, so the two
 * spreads are equal but for what chance puts in 12 rounds, and comparing
 * them as plain numbers failed one run in a few (0.0343 % against
 * 0.0330 %, t = 0.34). The test's question is whether :t's variance is
 * larger than the full count's: the correlation of the rounds' sums and
 * differences, which is zero when the two variances are equal. It fails at
 * 0.5 %: issue 21's defect, :t's spread three times the full count's (an
 * excess independent of the full count), gives t of about 4.5 at 12
 * rounds, against 3.17 to fail.
 *
 * Issue 21 saw a first round's [hardirq] of 11,025 instructions and the
 * next seven of 59,000 to 90,000, with :t's spread three times the full
 * count's (ctxstat then calibrated user mode, a 200 kHz storm, before
 * every START).
 *
 * arm64 under QEMU -icount with one vCPU only (exact instruction counts;
 * run with scripts/vm --smp 1): skipped elsewhere, saying why.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cst.h"

#define PRECISION_ROUNDS	12
/* Student's t, 10 degrees of freedom (12 rounds - 2), one-sided 0.5 %. */
#define PRECISION_T_FAIL	3.169
#define PRECISION_ITERS		"7000000"	/* 14 M instructions */
/* A tick's hardirq on these guests with the hooks: 800 to 1,600. */
#define PRECISION_TICK_COST	2500

FIXTURE(quiet) {
	int kmsg;
	const char *workload;
};

FIXTURE_SETUP(quiet)
{
	static char why[128];

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		SKIP(return, "more than one CPU: under -icount each vCPU counts the others (run with scripts/vm --smp 1)");
	self->kmsg = cst_kmsg_open();
	self->workload = cst_workload_copy();
	ASSERT_NE(NULL, self->workload) TH_LOG("cannot copy the workload to /tmp: %m");
}

FIXTURE_TEARDOWN(quiet)
{
	cst_workload_copy_remove(self->workload);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* One set's values over the rounds. */
struct series {
	double full[PRECISION_ROUNDS];
	double task[PRECISION_ROUNDS];
	double hardirq[PRECISION_ROUNDS];
	long long ticks[PRECISION_ROUNDS];
};

static double rsd(const double *v, int n)
{
	double mean = 0, ss = 0;
	int i;

	for (i = 0; i < n; i++)
		mean += v[i] / n;
	for (i = 0; i < n; i++)
		ss += (v[i] - mean) * (v[i] - mean);
	return sqrt(ss / (n - 1)) / mean * 100;
}

/*
 * Pitman-Morgan: t of the correlation between @a + @b and @a - @b over
 * paired samples; positive when @a varies more than @b, with n - 2 degrees
 * of freedom.
 */
static double paired_variance_t(const double *a, const double *b, int n)
{
	double ms = 0, md = 0, ss = 0, dd = 0, sd = 0, r;
	int i;

	for (i = 0; i < n; i++) {
		ms += (a[i] + b[i]) / n;
		md += (a[i] - b[i]) / n;
	}
	for (i = 0; i < n; i++) {
		double s = a[i] + b[i] - ms, d = a[i] - b[i] - md;

		ss += s * s;
		dd += d * d;
		sd += s * d;
	}
	if (ss == 0 || dd == 0)
		return 0;
	r = sd / sqrt(ss * dd);
	if (r >= 1)
		return INFINITY;
	return r * sqrt(n - 2) / sqrt(1 - r * r);
}

/* A row's value of the CSV text, by event name; NAN without one. */
static double csv_value(const char *text, const char *event)
{
	struct cst_csv_row row;

	if (cst_csv_find(text, ',', event, &row) || !row.numeric)
		return NAN;
	return row.value;
}

static void ctxstat_round(struct __test_metadata *_metadata,
			  const char *workload, bool defaults,
			  struct series *s, int i)
{
	char *two[] = {
		(char *)cst_ctxstat_path(), "-x,", "--breakdown", "-e",
		"instructions:t", "-e", "instructions", "--",
		(char *)workload, "loop", PRECISION_ITERS, NULL
	};
	char *all[] = {
		(char *)cst_ctxstat_path(), "-x,", "--breakdown", "--",
		(char *)workload, "loop", PRECISION_ITERS, NULL
	};
	static struct cst_run r;
	long long t0 = cst_cpu_interrupts("arch_timer", 0);

	cst_run(&r, defaults ? all : two, 300);
	s->ticks[i] = cst_cpu_interrupts("arch_timer", 0) - t0;
	ASSERT_EQ(0, r.status) TH_LOG("ctxstat failed: %s", r.err);
	s->full[i] = csv_value(r.err, "instructions");
	s->task[i] = csv_value(r.err, "instructions:t");
	s->hardirq[i] = csv_value(r.err, "instructions [hardirq]");
	ASSERT_FALSE(isnan(s->full[i]) || isnan(s->task[i]) ||
		     isnan(s->hardirq[i])) TH_LOG("%s", r.err);
}

static double perf_round(struct __test_metadata *_metadata,
			 const char *workload)
{
	char *argv[] = {
		(char *)cst_perf_path(), "stat", "-x,", "-e", "instructions",
		"--", (char *)workload, "loop", PRECISION_ITERS, NULL
	};
	static struct cst_run r;

	if (!cst_perf_path())
		return NAN;
	cst_run(&r, argv, 300);
	return r.status ? NAN : csv_value(r.err, "instructions");
}

/* No round's [hardirq] beyond what the ticks of its ctxstat run explain. */
static void check_ticks(struct __test_metadata *_metadata,
			const struct series *s, const char *name)
{
	double per, least = INFINITY, most = 0;
	int i;

	for (i = 0; i < PRECISION_ROUNDS; i++) {
		per = s->hardirq[i] / (s->ticks[i] > 0 ? s->ticks[i] : 1);
		least = fmin(least, per);
		most = fmax(most, per);
		EXPECT_LE(s->hardirq[i],
			  (double)(s->ticks[i] + 3) * PRECISION_TICK_COST)
			TH_LOG("%s: round %d took more [hardirq] than its %lld ticks explain",
			       name, i + 1, s->ticks[i]);
	}
	ksft_print_msg("%s: [hardirq] per timer tick %.0f to %.0f\n", name,
		       least, most);
}

TEST_F_TIMEOUT(quiet, task_count_no_less_precise, 1200)
{
	static struct series two, all;
	double perf[PRECISION_ROUNDS], t_two, t_all;
	int i, n = 0;

	/* A first round of each warms up (and calibrates user mode). */
	ctxstat_round(_metadata, self->workload, false, &two, 0);
	ctxstat_round(_metadata, self->workload, true, &all, 0);
	for (i = 0; i < PRECISION_ROUNDS; i++) {
		ctxstat_round(_metadata, self->workload, false, &two, i);
		ctxstat_round(_metadata, self->workload, true, &all, i);
		perf[i] = perf_round(_metadata, self->workload);
		if (!isnan(perf[i]))
			n++;
		ksft_print_msg("round %d: full %.0f :t %.0f [hardirq] %.0f (%lld ticks); default set full %.0f :t %.0f [hardirq] %.0f (%lld ticks); perf %.0f\n",
			       i + 1, two.full[i], two.task[i], two.hardirq[i],
			       two.ticks[i], all.full[i], all.task[i],
			       all.hardirq[i], all.ticks[i], perf[i]);
	}
	t_two = paired_variance_t(two.task, two.full, PRECISION_ROUNDS);
	t_all = paired_variance_t(all.task, all.full, PRECISION_ROUNDS);
	ksft_print_msg("relative stddev: instructions %.4f %%, instructions:t %.4f %% (t %+.2f); default set %.4f %%, %.4f %% (t %+.2f); perf stat %.4f %%\n",
		       rsd(two.full, PRECISION_ROUNDS),
		       rsd(two.task, PRECISION_ROUNDS), t_two,
		       rsd(all.full, PRECISION_ROUNDS),
		       rsd(all.task, PRECISION_ROUNDS), t_all,
		       n == PRECISION_ROUNDS ? rsd(perf, n) : NAN);
	EXPECT_LT(t_two, PRECISION_T_FAIL)
		TH_LOG("two events: instructions:t varies more than instructions");
	EXPECT_LT(t_all, PRECISION_T_FAIL)
		TH_LOG("default set: instructions:t varies more than instructions");
	check_ticks(_metadata, &two, "two events");
	check_ticks(_metadata, &all, "default set");
}

CST_TEST_MAIN
