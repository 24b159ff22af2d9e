// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution proved with oracles: interrupts that do known work, made by
 * the test bed's oracle module (module/tests/oracle_mod.c) on the CPU of
 * a monitored child, on that child's request.
 *
 * Under QEMU -icount (arm64) with one vCPU the instruction counter is exact
 * and deterministic, so:
 *   - N hardirqs of K loop iterations (2 instructions each) put
 *     N * 2K + N * c in [hardirq], where c is the fixed cost of one
 *     interrupt inside the bucket. Two runs with K1 and K2 cancel c
 *     exactly: H(K2) - H(K1) == N * 2 * (K2 - K1), and :t does not move.
 *     c is printed, and so is what one interrupt leaves in :t (the
 *     residual: :t of N interrupts minus :t of none, over N);
 *   - tasklets of M iterations scheduled by those hardirqs (the softirq
 *     runs on the way out of the hardirq), and tasklets the child runs
 *     itself from local_bh_enable(), land in [softirq:TASKLET] the same
 *     way: S(M2) - S(M1) == N * 2 * (M2 - M1);
 *   - the session's full count agrees with a perf_event_open() counter on
 *     the same child: an independent count, not the buckets' own sum.
 * A run in which any interrupt other than the oracle's landed on the CPU
 * (the timer tick) is repeated: the check is about the oracle's work.
 *
 * On x86 (no PMU under TCG) NMIs sent to the child's CPU, each spinning a
 * known time, must land in [nmi] for cpu-clock, as many as were sent.
 *
 * In detail:
 * - sessions of 1 and 4 events, 5 rounds after a warm-up, a round repeated
 *   while any other interrupt landed and up to 5 times while it was not
 *   exact (7.2's preemptible RCU runs an irq_work of its own in the
 *   oracle's IPI now and then); :t moves by at most 0.5 % of the known
 *   work; the full count agrees with the perf_event_open() counter within
 *   2,000 instructions per command. The estimate
 *   (estimate_leaves_little_in_task): under the oracle's hrtimer storm
 *   (20,000/s) on an 8 M-iteration loop in user and in kernel mode, bare
 *   and scheduling a tasklet, :t keeps at most 30 instructions per storm
 *   interrupt (50 with the tasklet), every event, and the hooks counted the
 *   storm's interrupts as excursions of the loop's mode.
 * - x86: ctxcount is reloaded after the oracle so that its NMI handlers
 *   bracket the oracle's; 20 NMIs of 200 us of local_clock() each put at
 *   least what the oracle's handlers spun in [nmi], the oracle handled 20
 *   and /proc/interrupts counted 20; without NMIs [nmi] stays 0; NMI reads
 *   made to go backwards by 1,000,000 (module parameter
 *   fault_nmi_backwards, as a read in x86_pmu_stop()'s window would) leave
 *   no bucket near 2^64.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cst.h"

#define ORACLE_N	50	/* interrupts per run */
#define ORACLE_K1	200	/* loop iterations, first run */
#define ORACLE_K2	2200	/* loop iterations, second run */
#define ORACLE_PERF_SLACK	CST_ORACLE_PERF_SLACK

#define ORACLE_NMIS	20	/* NMIs per run */
#define ORACLE_NMI_NS	200000	/* each spinning this long */

#define one_event cst_oracle_events		/* its first */
#define four_events cst_oracle_events

FIXTURE(oracle) {
	int kmsg;
	struct cst_worker_delta *d;
};

FIXTURE_VARIANT(oracle) {
	const struct cst_ev *ev;
	int nev;
};

FIXTURE_VARIANT_ADD(oracle, one_event) {
	.ev = one_event,
	.nev = 1,
};

FIXTURE_VARIANT_ADD(oracle, four_events) {
	.ev = four_events,
	.nev = 4,
};

#define oracle_exact_cannot_run cst_oracle_exact_cannot_run

#define ORACLE_ROUNDS	5	/* rounds of the three commands */
/*
 * A round run again when some event's bucket did not grow by exactly the
 * work: the kernel may run work of its own in the oracle's interrupt (7.2,
 * preemptible RCU: a deferred quiescent state reported from an irq_work
 * that the oracle's irq_work IPI runs too, 450 to 700 instructions now
 * and then). A misattribution shows in every try.
 */
#define ORACLE_TRIES	5

FIXTURE_SETUP(oracle)
{
	int err = cst_oracle_load();

	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->d = calloc(3 * ORACLE_ROUNDS, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
}

FIXTURE_TEARDOWN(oracle)
{
	free(self->d);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The least :t of event @e over the rounds of command @c. */
static long long oracle_min_task(FIXTURE_DATA(oracle) *self, int c, int e)
{
	long long t, min = LLONG_MAX;
	int i;

	for (i = 0; i < ORACLE_ROUNDS; i++) {
		t = cst_worker_bucket(&self->d[3 * i + c], e, CTXCOUNT_BUCKET_TASK);
		if (t < min)
			min = t;
	}
	return min;
}

/* Did every event's @bucket grow by exactly @want from @a to @a + 1. */
static bool oracle_exact(const struct cst_worker_delta *a, int nev,
			 int bucket, long long want)
{
	int e;

	for (e = 0; e < nev; e++)
		if (cst_worker_bucket(a + 1, e, bucket) -
		    cst_worker_bucket(a, e, bucket) != want)
			return false;
	return true;
}

/*
 * A warm-up round, then ORACLE_ROUNDS rounds of the commands @cmd[0..2]
 * (work a, work b, no interrupt) in one child, a round run again (up to
 * ORACLE_TRIES) where it was not exact or the child was preempted. The
 * test and the child run at SCHED_BATCH: woken by the child's ack, the
 * test preempted it before it was back asleep now and then, the same
 * command in round after round, and the scheduler's side of that switch
 * is 3,000 to 3,500 instructions of the child's task context (+2,800 in
 * :t from a to b in make check, 2026-12-07; per_thread_oracle.c's
 * "Steady" has the figures). Per round and event:
 * @bucket grows by exactly @want from a to b, and the session's full
 * count agrees with perf's. Per event: :t does not move with the work (the
 * least :t of each command over the rounds: what the child's own task
 * context costs varies upwards now and then, by a few thousand
 * instructions, when a pipe or scheduler path takes a slow branch). The
 * fixed cost per interrupt inside the bucket and what one interrupt leaves
 * in :t are printed.
 */
static void oracle_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(oracle) *self,
			 const FIXTURE_VARIANT(oracle) *variant,
			 char cmd[3][64], int bucket, long long work_a,
			 long long want)
{
	struct cst_worker_delta *a, *b, *z;
	struct cst_worker w;
	int i, c, e, err = 0, tries, again = 0, preempted = 0;
	long long db, dt, full;

	err = cst_worker_no_wakeup_preemption();
	ASSERT_EQ(0, err) TH_LOG("SCHED_BATCH: %s", strerror(-err));
	err = cst_worker_start(&w, variant->ev, variant->nev, variant->ev, 1, &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	for (i = -1; i < ORACLE_ROUNDS && !err; i++) {
		a = &self->d[3 * (i < 0 ? 0 : i)];
		for (tries = 0; tries < ORACLE_TRIES && !err; tries++) {
			for (c = 0; c < 3 && !err; c++)
				err = cst_worker_run(&w, cmd[c], a + c, true);
			if (err || i < 0)
				break;
			if (cst_worker_preempted(a, 3)) {
				preempted++;
				continue;
			}
			if (oracle_exact(a, variant->nev, bucket, want))
				break;
			again++;
		}
	}
	cst_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
	if (again || preempted)
		ksft_print_msg("rounds run again: %d not exact, %d with the child preempted\n",
			       again, preempted);
	for (i = 0; i < 3 * ORACLE_ROUNDS; i++) {
		full = cst_worker_full(&self->d[i], 0);
		EXPECT_LE(llabs(full - self->d[i].perf[0]), ORACLE_PERF_SLACK)
			TH_LOG("'%s': full %lld, perf_event_open %lld", cmd[i % 3], full, self->d[i].perf[0]);
	}
	for (i = 0; i < ORACLE_ROUNDS; i++) {
		a = &self->d[3 * i];
		b = a + 1;
		z = a + 2;
		for (e = 0; e < variant->nev; e++) {
			ASSERT_EQ(0, a->after.ev[e].error);
			db = cst_worker_bucket(b, e, bucket) - cst_worker_bucket(a, e, bucket);
			EXPECT_EQ(want, db) TH_LOG("round %d event %d: %s %+lld", i, e,
						   cst_bucket_name(bucket), db);
			if (e || i)
				continue;
			ksft_print_msg("%s: %s grows by %lld for %lld more instructions of work; "
				       "full %lld, perf_event_open %lld\n", cmd[0],
				       cst_bucket_name(bucket), db, want,
				       cst_worker_full(a, e), a->perf[0]);
		}
	}
	for (e = 0; e < variant->nev; e++) {
		a = &self->d[0];
		z = &self->d[2];
		dt = oracle_min_task(self, 1, e) - oracle_min_task(self, 0, e);
		ksft_print_msg("event %d (%s): :t %+lld from a to b; per interrupt: %.1f in %s "
			       "besides the work, %.1f left in :t\n", e, variant->ev[e].name, dt,
			       (double)(cst_worker_bucket(a, e, bucket) - cst_worker_bucket(z, e, bucket) -
					work_a) / ORACLE_N, cst_bucket_name(bucket),
			       (double)(oracle_min_task(self, 0, e) - oracle_min_task(self, 2, e)) /
			       ORACLE_N);
		EXPECT_LE(llabs(dt), want / 200)
			TH_LOG("event %d: :t moved %+lld with %lld instructions of interrupt work",
			       e, dt, want);
	}
}

TEST_F_TIMEOUT(oracle, hardirq_work_lands_in_hardirq, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "hardirq %d %d 0", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "hardirq %d %d 0", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "hardirq 0 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_HARDIRQ,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

TEST_F_TIMEOUT(oracle, tasklet_after_hardirq_lands_in_tasklet, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "hardirq %d 1 %d", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "hardirq %d 1 %d", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "hardirq 0 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

TEST_F_TIMEOUT(oracle, tasklet_from_task_lands_in_tasklet, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "softirq %d %d", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "softirq %d %d", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "softirq 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

/*
 * The estimate (CTXCOUNT_BUCKET_IRQ_ENTRY_EST, calibrated when the
 * worker's session was created, the user-mode part as ctxstat does it):
 * the oracle's hrtimer storm fires at the child while it runs a loop in
 * user mode or in kernel mode, bare or scheduling a tasklet each time.
 * Per storm interrupt, what :t keeps against the same loop without the
 * storm is within the case's slack for every event: the goal of
 * 30 net for bare hardirqs; 50 for hardirqs that run a tasklet on their
 * way out, which the estimate leaves short (measured on arm64 6.1 and
 * 6.12: +6 to +30, user mode the most; the calibration's own runs of
 * that kind do not show it, the cause is not established). Bare ones
 * measured -17 to +3. The loop is long (about
 * 330 storm interrupts) because the child's syscalls around it vary by a
 * few thousand from run to run. The hooks took the interrupts for what
 * they were, in the run kept: hardirq excursions from the loop's mode
 * (with softirqs, if the storm schedules a tasklet) are as many as the
 * storm's interrupts, less two that may land in the syscalls around the
 * loop, less one per tick (a tick's softirqs may take a storm interrupt
 * in, which is then no excursion from the task); from the other mode,
 * at most two more than without the storm.
 */
#define ORACLE_EST_LOOP		"8000000"
#define ORACLE_EST_ROUNDS	5

struct oracle_est_case {
	const char *quiet;	/* the child's commands (cst_oracle.h) */
	const char *storm;
	int mode;		/* CTXCOUNT_EXCURSION_{USER_,}HARDIRQ */
	bool tasklet;		/* the storm schedules one */
	int slack;		/* instructions per interrupt */
};

static const struct oracle_est_case oracle_est_cases[] = {
	{ "storm-1 0 loop " ORACLE_EST_LOOP, "storm-20000 0 loop " ORACLE_EST_LOOP,
	  CTXCOUNT_EXCURSION_USER_HARDIRQ, false, 30 },
	{ "storm-1 1 loop " ORACLE_EST_LOOP, "storm-20000 1 loop " ORACLE_EST_LOOP,
	  CTXCOUNT_EXCURSION_USER_HARDIRQ, true, 50 },
	{ "storm-1 0 kloop " ORACLE_EST_LOOP, "storm-20000 0 kloop " ORACLE_EST_LOOP,
	  CTXCOUNT_EXCURSION_HARDIRQ, false, 30 },
	{ "storm-1 1 kloop " ORACLE_EST_LOOP, "storm-20000 1 kloop " ORACLE_EST_LOOP,
	  CTXCOUNT_EXCURSION_HARDIRQ, true, 50 },
};

static long long oracle_exc(const struct cst_worker_delta *d, int kind)
{
	return (long long)(d->after.exc[kind] - d->before.exc[kind]);
}

/*
 * @d's hardirq excursions from @mode's context (CTXCOUNT_EXCURSION_
 * {USER_,}HARDIRQ and the two kinds after it), only those with softirqs
 * if @softirq.
 */
static long long oracle_est_hardirqs(const struct cst_worker_delta *d, int mode,
				     bool softirq)
{
	long long n = 0;
	int k;

	for (k = mode + softirq; k <= mode + 2; k++)
		n += oracle_exc(d, k);
	return n;
}

static long long oracle_est_all(const struct cst_worker_delta *d)
{
	long long n = 0;
	int k;

	for (k = 1; k <= CTXCOUNT_EXCURSION_MAX; k++)
		n += oracle_exc(d, k);
	return n;
}

TEST_F_TIMEOUT(oracle, estimate_leaves_little_in_task, 900)
{
	const char *why = oracle_exact_cannot_run();
	const struct oracle_est_case *c;
	struct cst_worker_delta *q = &self->d[0], *st = &self->d[1];
	long long tq[CTXCOUNT_MAX_EVENTS], ts[CTXCOUNT_MAX_EVENTS], t;
	long long est[CTXCOUNT_MAX_EVENTS];
	long fires[CTXCOUNT_MAX_EVENTS];
	long long kinds[CTXCOUNT_EXCURSION_MAX + 1], seen = 0, ticks = 0, wrong = 0;
	int other;
	struct cst_worker w;
	int i, r, e, err;
	double kept;

	if (why)
		SKIP(return, "%s", why);
	err = cst_worker_start(&w, variant->ev, variant->nev, NULL, 0, &q->before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	for (i = 0; i < (int)(sizeof(oracle_est_cases) / sizeof(oracle_est_cases[0])); i++) {
		c = &oracle_est_cases[i];
		for (e = 0; e < variant->nev; e++)
			tq[e] = ts[e] = LLONG_MAX;
		/* A warm-up pair: the first commands page the child's code in. */
		for (r = -1; r < ORACLE_EST_ROUNDS && !err; r++) {
			err = cst_worker_run(&w, c->quiet, q, false) ?:
			      cst_worker_run(&w, c->storm, st, false);
			if (err || r < 0)
				continue;
			ASSERT_GT(st->oracle.storm, 0) TH_LOG("'%s': the storm never fired", c->storm);
			if (cst_worker_bucket(st, 0, CTXCOUNT_BUCKET_TASK) < ts[0]) {
				other = c->mode == CTXCOUNT_EXCURSION_HARDIRQ ?
					CTXCOUNT_EXCURSION_USER_HARDIRQ : CTXCOUNT_EXCURSION_HARDIRQ;
				seen = oracle_est_hardirqs(st, c->mode, c->tasklet);
				ticks = oracle_est_all(q);
				wrong = oracle_est_hardirqs(st, other, false) -
					oracle_est_hardirqs(q, other, false);
				for (e = 0; e <= CTXCOUNT_EXCURSION_MAX; e++)
					kinds[e] = oracle_exc(st, e);
			}
			/*
			 * The least :t of each command: a context switch in a
			 * run (a kworker woken meanwhile) adds thousands.
			 */
			for (e = 0; e < variant->nev; e++) {
				t = cst_worker_bucket(q, e, CTXCOUNT_BUCKET_TASK);
				tq[e] = t < tq[e] ? t : tq[e];
				t = cst_worker_bucket(st, e, CTXCOUNT_BUCKET_TASK);
				if (t < ts[e]) {
					ts[e] = t;
					fires[e] = st->oracle.storm;
					est[e] = cst_worker_bucket(st, e, CTXCOUNT_BUCKET_IRQ_ENTRY_EST) -
						 cst_worker_bucket(q, e, CTXCOUNT_BUCKET_IRQ_ENTRY_EST);
				}
			}
		}
		if (err)
			break;
		EXPECT_GE(seen, fires[0] - 2 - ticks)
			TH_LOG("'%s': %ld storm interrupts, %lld excursions of theirs, "
			       "%lld without the storm (by kind 1-7: %lld %lld %lld %lld %lld %lld %lld)",
			       c->storm, fires[0], seen, ticks, kinds[1], kinds[2],
			       kinds[3], kinds[4], kinds[5], kinds[6], kinds[7]);
		/*
		 * Told apart wrongly, nearly every storm interrupt would be
		 * here; a few land where the loop is in the other mode (5 in
		 * one run on arm64 7.3-rc, 2 at most before): a fiftieth.
		 */
		EXPECT_LE(wrong, 2 + fires[0] / 50)
			TH_LOG("'%s': %lld more hardirqs from the other mode under the storm (%ld storm interrupts)",
			       c->storm, wrong, fires[0]);
		for (e = 0; e < variant->nev; e++) {
			kept = (double)(ts[e] - tq[e]) / fires[e];
			ksft_print_msg("'%s': event %d (%s) :t keeps %+.1f per storm interrupt "
				       "(estimate %.1f moved out)\n", c->storm, e,
				       variant->ev[e].name, kept, (double)est[e] / fires[e]);
			EXPECT_LE(fabs(kept), c->slack)
				TH_LOG("event %d: :t keeps %+.1f per interrupt", e, kept);
		}
	}
	cst_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
}

/*
 * NMIs sent to the child's CPU (x86; no hardware counter under TCG, so
 * cpu-clock): each spins ORACLE_NMI_NS ns of local_clock(), the clock
 * cpu-clock counts, between ctxcount's first and last NMI handler, so
 * [nmi] holds at least what the oracle spun (its own figure: on a busy
 * host local_clock() may stand still inside an NMI, and the spin is
 * bounded); none without NMIs; and exactly the NMIs sent were taken.
 */
FIXTURE(nmi) {
	int kmsg;
	struct cst_worker_delta *d;
};

FIXTURE_SETUP(nmi)
{
	int err;

	if (!(cst_features() & CTXCOUNT_FEATURE_NMI))
		SKIP(return, "no NMI bucket on this architecture (CTXCOUNT_FEATURE_NMI clear)");
	err = cst_oracle_load();
	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->d = calloc(4, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
}

FIXTURE_TEARDOWN(nmi)
{
	free(self->d);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

TEST_F_TIMEOUT(nmi, lands_in_nmi, 300)
{
	static const struct cst_ev clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	const int N = CTXCOUNT_BUCKET_NMI;
	struct cst_worker w;
	char cmd[64];
	long long nmi;
	int i, err;

	/*
	 * ctxcount's NMI handlers bracket the NMI_LOCAL handlers registered
	 * before it: loaded after the oracle, it brackets the oracle's too.
	 */
	err = cst_reload(-1);
	ASSERT_EQ(0, err) TH_LOG("reloading ctxcount: %s", strerror(-err));
	err = cst_worker_start(&w, &clock, 1, NULL, 0, &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	snprintf(cmd, sizeof(cmd), "nmi %d %d", ORACLE_NMIS, ORACLE_NMI_NS);
	for (i = 0; i < 4 && !err; i++)
		err = cst_worker_run(&w, i % 2 ? cmd : "nmi 0 0", &self->d[i], false);
	cst_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
	for (i = 0; i < 4; i++) {
		nmi = cst_worker_bucket(&self->d[i], 0, N);
		ksft_print_msg("%s: %ld NMIs handled by the oracle (spinning %lld ns of local_clock()), %lld in /proc/interrupts; "
			       "[nmi] %lld ns of cpu-clock, :t %lld ns\n",
			       i % 2 ? cmd : "nmi 0 0", self->d[i].oracle.nmis,
			       self->d[i].oracle.nmi_ns, self->d[i].proc_nmis, nmi,
			       cst_worker_bucket(&self->d[i], 0, CTXCOUNT_BUCKET_TASK));
		if (i % 2) {
			EXPECT_EQ(ORACLE_NMIS, self->d[i].oracle.nmis);
			EXPECT_EQ(ORACLE_NMIS, self->d[i].proc_nmis);
			/*
			 * cpu-clock and the oracle's spin both read
			 * local_clock(), which a busy host can stop inside an
			 * NMI (TSC unstable: jiffies), so the spin is bounded
			 * and what it took is the oracle's own figure.
			 */
			EXPECT_GE(nmi, self->d[i].oracle.nmi_ns);
			if (self->d[i].oracle.nmi_ns > 0)
				EXPECT_LT(0, nmi);
		} else {
			EXPECT_EQ(0, self->d[i].oracle.nmis);
			EXPECT_EQ(0, self->d[i].proc_nmis);
			EXPECT_EQ(0, nmi);
		}
	}
}

/*
 * An NMI that lands in x86_pmu_stop() between PERF_HES_STOPPED and the
 * count's update reads a count below the last one, which no emulator
 * here produces: the module parameter fault_nmi_backwards makes that
 * many NMI reads come out 1,000,000 low. The NMI hooks must not take
 * them: no bucket near 2^64 (an unsigned delta of a read going back), the
 * buckets within the full count. Before issue 21 each such read put about
 * 1.8e19 in [nmi] and the next took it back from :t.
 */
TEST_F_TIMEOUT(nmi, backward_reads_not_taken, 300)
{
	static const struct cst_ev clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	struct cst_worker w;
	long long nmi, task;
	char cmd[64];
	int err;

	err = cst_reload(-1);	/* after the oracle, as above */
	ASSERT_EQ(0, err) TH_LOG("reloading ctxcount: %s", strerror(-err));
	err = cst_worker_start(&w, &clock, 1, NULL, 0, &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	/* Both reads of every NMI: its entry's and its exit's. */
	ASSERT_EQ(0, cst_param_set("fault_nmi_backwards", 2 * ORACLE_NMIS));
	snprintf(cmd, sizeof(cmd), "nmi %d %d", ORACLE_NMIS, ORACLE_NMI_NS);
	err = cst_worker_run(&w, cmd, &self->d[0], false);
	cst_param_set("fault_nmi_backwards", 0);
	cst_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
	nmi = cst_worker_bucket(&self->d[0], 0, CTXCOUNT_BUCKET_NMI);
	task = cst_worker_bucket(&self->d[0], 0, CTXCOUNT_BUCKET_TASK);
	ksft_print_msg("%ld NMIs, their reads going back: [nmi] %lld ns, :t %lld ns\n",
		       self->d[0].oracle.nmis, nmi, task);
	EXPECT_EQ(ORACLE_NMIS, self->d[0].oracle.nmis);
	EXPECT_LE(0, nmi);
	EXPECT_LE(0, task);
	EXPECT_GT(1LL << 40, nmi);
	EXPECT_GT(1LL << 40, task);
}

CST_TEST_MAIN
