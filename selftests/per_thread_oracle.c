// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread rows against oracles (version 6: CTXCOUNT_SESSION_F_PER_THREAD,
 * CTXCOUNT_TARGET_F_ALL_THREADS; docs/design/per-thread.md); the
 * protocol's side is per_thread.c.
 *
 * arm64 -icount, one vCPU; skipped elsewhere as oracle.c is. The worker's
 * threads M and S, both there before NEW, so both rows of a session on the
 * worker (INHERIT), or of one on every thread (ALL_THREADS), READs around
 * each command, each run again while a foreign interrupt landed
 * (cst_worker_run()'s strict mode). The test and the worker run at
 * SCHED_BATCH, and a round in which the running thread was preempted is
 * run again (below, "Steady"):
 *   - S runs loop L1, then loop L2: S's :t grows by 2 (L2 - L1) more, to
 *     oracle.c's 0.5 % (the least of each loop over the rounds: the
 *     kernel's work around the wake-up varies), and equals a
 *     perf_event_open() counter on S when no interrupt landed; M,
 *     blocked, has a row that does not move in any value (a delta put in
 *     the wrong row shows here);
 *   - M runs the oracle's hardirq N K1 0, then N K2 0: M's [hardirq] grows
 *     by exactly 2N (K2 - K1) more; M's :t moves, in every round, as a
 *     perf_event_open() counter on M alone less that work, to oracle.c's
 *     0.5 % of it; S's row does not move;
 *   - S makes a thread that runs a loop and ends: no new row, S's row
 *     grows by the loop beyond what a perf counter on S alone sees;
 *   - each row's FULL moves as a perf_event_open() counter on that thread
 *     alone (pid = tid, no inherit), within oracle.c's slack;
 *   - the rows add up to the totals exactly (FULL, every bucket, the
 *     excursions) at every READ of the worker's session, where nothing
 *     monitored runs during the READ; an ALL_THREADS session's reader is
 *     monitored itself, so there after STOP.
 *
 * Figures: L1 100,000 and L2 300,000; M's hardirq 50 200 0, then 50 2200 0
 * (2 x 50 x 2,000 more; 5 rounds, as oracle.c); S's extra thread runs
 * 300,000 iterations and S's full count exceeds a counter on S alone by at
 * least 600,000 less 2,000.
 *
 * Steady: what a thread's own task context costs around a command varies
 * from one command to the next, and a perf_event_open() counter on the
 * thread sees the same (arm64 6.12, 2026-12-07: every command's row FULL
 * equal to it, [hardirq] exact, the estimate the same). The most of it:
 * woken by the worker's ack, the test preempted the worker before it was
 * back asleep in read() (a nonvoluntary switch: 3,000 to 3,500 more in
 * that command), in the same commands of a fixture again and again (all
 * three K1 commands of one run, none of the K2 ones). At SCHED_BATCH
 * neither side preempts the other at a wake-up (check_preempt_wakeup_fair()),
 * so each command ends in the worker's own sleep; a round with a
 * preemption left (a slice used up) is run again. What still varies, 700
 * to 1,500 between runs of one command and now and then 3,000, none of it
 * preemption and not explained, is why M's :t is held against M's own
 * counter round by round rather than K1's least :t against K2's: the
 * least of 3 rounds failed 0.5 % in CI (1,363; with a loop, 2,908); at
 * SCHED_BATCH the least of 5 still moved by -1,017 to +1,059 in 3 of 28
 * fixtures (7 runs), while M's :t less its counter's move was 0 in each
 * of their 140 rounds. A loop's 0.5 % is 2,000: its least :t holds it.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define M 0			/* the worker's threads */
#define S 1
#define PT_N	50		/* oracle.c's interrupts and work per run */
#define PT_K1	200
#define PT_K2	2200
/*
 * S's loops: as many digits, so that S parses both commands alike and
 * its :t differs by the loop alone (the oracle's K1 and K2 do not: M's
 * :t is held to oracle.c's bound, not to equality).
 */
#define PT_L1	100000
#define PT_L2	300000
#define PT_ROUNDS	5	/* after a warm-up: oracle.c's ORACLE_ROUNDS */
#define PT_TRIES	5	/* oracle.c's ORACLE_TRIES */
#define PT_DELTAS	(2 * PT_ROUNDS)
#define PER_THREAD	CTXCOUNT_READ_F_PER_THREAD

FIXTURE(pt_oracle) {
	int kmsg;
	struct cst_worker w;
	bool started;
	struct cst_worker_delta *d;
};

FIXTURE_VARIANT(pt_oracle) {
	const struct cst_ev *ev;
	int nev;
	bool all_threads;
};

/* oracle.c's sessions: instructions, or instructions and cycles twice */
FIXTURE_VARIANT_ADD(pt_oracle, one_event) { .ev = cst_oracle_events, .nev = 1 };
FIXTURE_VARIANT_ADD(pt_oracle, four_events) { .ev = cst_oracle_events, .nev = 4 };
FIXTURE_VARIANT_ADD(pt_oracle, all_threads_one_event) {
	.ev = cst_oracle_events, .nev = 1, .all_threads = true };
FIXTURE_VARIANT_ADD(pt_oracle, all_threads_four_events) {
	.ev = cst_oracle_events, .nev = 4, .all_threads = true };

FIXTURE_SETUP(pt_oracle)
{
	struct cst_worker_cfg cfg = {
		.second_thread = true,
		.tflags = CTXCOUNT_TARGET_F_INHERIT |
			  (variant->all_threads ? CTXCOUNT_TARGET_F_ALL_THREADS : 0),
		.read_flags = PER_THREAD,
		/* hundreds of rows: no single reply holds them */
		.read_dump = variant->all_threads,
	};
	/* Each thread's own perf counter: perf[i] is opened on thread i. */
	const struct cst_ev perf[2] = { variant->ev[0], variant->ev[0] };
	const char *why = cst_oracle_exact_cannot_run() ?: cst_per_thread_cannot_run();
	int i, err;

	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	err = cst_oracle_load();
	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->d = calloc(PT_DELTAS, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
	for (i = 0; i < 2 * PT_DELTAS; i++) {
		struct cst_res *r = i % 2 ? &self->d[i / 2].after : &self->d[i / 2].before;

		/* room for every thread there is, or for M, S and a stray one */
		r->thr = variant->all_threads ? cst_threads_for_all(256) : cst_threads_alloc(4);
		ASSERT_NE(NULL, r->thr);
	}
	cst_new_session_flags = CTXCOUNT_SESSION_F_PER_THREAD;
	err = cst_worker_no_wakeup_preemption();
	ASSERT_EQ(0, err) TH_LOG("SCHED_BATCH: %s", strerror(-err));
	err = cst_worker_start_cfg(&self->w, &cfg, variant->ev, variant->nev, perf, 2,
				   &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the worker: %s", strerror(-err));
	self->started = true;
}

FIXTURE_TEARDOWN(pt_oracle)
{
	int i;

	if (self->started)
		cst_worker_stop(&self->w);
	for (i = 0; self->d && i < PT_DELTAS; i++) {
		free(self->d[i].before.thr);
		free(self->d[i].after.thr);
	}
	free(self->d);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* Did thread @tid's @bucket grow by exactly @want more from @a to @a + 1. */
static bool pt_exact(const struct cst_worker_delta *a, int nev, pid_t tid,
		     int bucket, long long want, long long slack)
{
	int e;

	for (e = 0; e < nev; e++)
		if (llabs(cst_row_delta(a + 1, tid, e, bucket) -
			  cst_row_delta(a, tid, e, bucket) - want) > slack)
			return false;
	return true;
}

/*
 * What holds over every command, in @d: the idle thread's row did not
 * move; no row came; the rows add up to the totals (a pid session); the
 * running thread's FULL moved as its perf counter (unless @children: a
 * thread it made counts in its row, not in the counter).
 */
static void pt_check_delta(struct __test_metadata *_metadata,
			   FIXTURE_DATA(pt_oracle) *self,
			   const FIXTURE_VARIANT(pt_oracle) *variant,
			   const struct cst_worker_delta *d, int t, const char *cmd,
			   bool children)
{
	pid_t run = self->w.tid[t], idle = self->w.tid[!t];
	const struct cst_thread_res *i0 = cst_thread_row(&d->before, idle);
	const struct cst_thread_res *i1 = cst_thread_row(&d->after, idle);
	long long full, perf = d->perf[t];
	char what[256];

	ASSERT_TRUE(i0 && i1 && cst_thread_row(&d->before, run) && cst_thread_row(&d->after, run))
		TH_LOG("'%s': the rows of M (tid %d) and S (tid %d) are not all there",
		       cmd, self->w.tid[M], self->w.tid[S]);
	EXPECT_EQ(0, cst_row_diff(i0, i1, what, sizeof(what)))
		TH_LOG("'%s' on %s: the idle thread's row moved: %s", cmd, t ? "S" : "M", what);
	EXPECT_EQ(d->before.thr->n, d->after.thr->n)
		TH_LOG("'%s': %d rows, then %d", cmd, d->before.thr->n, d->after.thr->n);
	if (!variant->all_threads) {
		EXPECT_EQ(2, d->after.thr->n);
		EXPECT_EQ(0, cst_rows_sum_diff(&d->before, false, what, sizeof(what)))
			TH_LOG("before '%s': %s", cmd, what);
		EXPECT_EQ(0, cst_rows_sum_diff(&d->after, false, what, sizeof(what)))
			TH_LOG("after '%s': %s", cmd, what);
	}
	full = cst_row_delta(d, run, 0, CST_ROW_FULL);
	if (!children)
		EXPECT_LE(llabs(full - perf), CST_ORACLE_PERF_SLACK)
			TH_LOG("'%s': the row's full %lld, perf_event_open on the thread %lld",
			       cmd, full, perf);
	full = cst_row_delta(d, idle, 0, CST_ROW_FULL);
	perf = d->perf[!t];
	EXPECT_LE(llabs(full - perf), CST_ORACLE_PERF_SLACK)
		TH_LOG("'%s': the idle row's full %lld, perf_event_open on it %lld", cmd, full, perf);
}

/*
 * A warm-up, then PT_ROUNDS rounds of @cmd[0] and @cmd[1] on thread @t,
 * a round run again (up to PT_TRIES, as oracle.c) while @t's @bucket did
 * not grow by @want more, give or take @slack, or @t was preempted in a
 * command. With @each, each round must hold in the end; pt_check_delta()
 * holds for every command. Each round's :t of both commands, and the
 * counter's on @t, are printed.
 */
static void pt_rounds(struct __test_metadata *_metadata,
		      FIXTURE_DATA(pt_oracle) *self,
		      const FIXTURE_VARIANT(pt_oracle) *variant, int t,
		      char cmd[2][64], int bucket, long long want,
		      long long slack, bool each)
{
	pid_t tid = self->w.tid[t];
	struct cst_worker_delta *a;
	int i, c, e, tries, err = 0, again = 0, preempted = 0;
	long long db;

	for (i = -1; i < PT_ROUNDS && !err; i++) {
		a = &self->d[2 * (i < 0 ? 0 : i)];
		for (tries = 0; tries < PT_TRIES && !err; tries++) {
			for (c = 0; c < 2 && !err; c++)
				err = cst_worker_run_on(&self->w, t, cmd[c], a + c, true);
			if (err || i < 0)
				break;
			if (cst_worker_preempted(a, 2)) {
				preempted++;
				continue;
			}
			if (pt_exact(a, variant->nev, tid, bucket, want, slack))
				break;
			again++;
		}
	}
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
	if (again || preempted)
		ksft_print_msg("rounds run again: %d not exact, %d with %s preempted\n", again,
			       preempted, t ? "S" : "M");
	for (i = 0; i < PT_DELTAS; i++)
		pt_check_delta(_metadata, self, variant, &self->d[i], t, cmd[i % 2], false);
	for (i = 0; i < PT_ROUNDS; i++) {
		a = &self->d[2 * i];
		ksft_print_msg("round %d: %s's :t %lld then %lld, perf_event_open on it %lld then %lld%s\n",
			       i, t ? "S" : "M", cst_row_delta(a, tid, 0, CTXCOUNT_BUCKET_TASK),
			       cst_row_delta(a + 1, tid, 0, CTXCOUNT_BUCKET_TASK), a[0].perf[t],
			       a[1].perf[t], cst_worker_preempted(a, 2) ? " (preempted)" : "");
		for (e = 0; e < variant->nev && each; e++) {
			db = cst_row_delta(a + 1, tid, e, bucket) - cst_row_delta(a, tid, e, bucket);
			EXPECT_LE(llabs(db - want), slack)
				TH_LOG("round %d event %d: %s's %s %+lld, want %+lld", i, e,
				       t ? "S" : "M", cst_bucket_name(bucket), db, want);
		}
	}
	ksft_print_msg("'%s' then '%s' on %s: %s %+lld, full %lld (perf %lld)\n", cmd[0],
		       cmd[1], t ? "S" : "M", cst_bucket_name(bucket),
		       cst_row_delta(&self->d[1], tid, 0, bucket) -
		       cst_row_delta(&self->d[0], tid, 0, bucket),
		       cst_row_delta(&self->d[1], tid, 0, CST_ROW_FULL), self->d[1].perf[t]);
}

/*
 * STOP, then READ: nothing counts any more, so the rows add up to the
 * totals whoever ran during the READ (an ALL_THREADS session's reader).
 */
static void pt_check_stopped(struct __test_metadata *_metadata,
			     FIXTURE_DATA(pt_oracle) *self)
{
	struct cst_res *r = &self->d[0].after;
	char what[256];

	ASSERT_EQ(0, cst_cmd(&self->w.s, CTXCOUNT_CMD_SESSION_STOP, self->w.id, NULL, NULL));
	ASSERT_EQ(0, cst_read_dump(&self->w.s, self->w.id, PER_THREAD, r, NULL));
	EXPECT_EQ(0, cst_rows_sum_diff(r, false, what, sizeof(what)))
		TH_LOG("stopped, %d rows: %s", r->thr->n, what);
}

/* Thread @t's :t: the least of command @c over the rounds, as oracle.c. */
static long long pt_min_task(FIXTURE_DATA(pt_oracle) *self, int t, int c, int e)
{
	long long v, min = LLONG_MAX;
	int i;

	for (i = 0; i < PT_ROUNDS; i++) {
		v = cst_row_delta(&self->d[2 * i + c], self->w.tid[t], e, CTXCOUNT_BUCKET_TASK);
		min = v < min ? v : min;
	}
	return min;
}

TEST_F_TIMEOUT(pt_oracle, loop_in_s_lands_in_s, 900)
{
	char cmd[2][64];

	const long long want = 2LL * (PT_L2 - PT_L1);
	struct cst_worker_delta *d;
	long long task;
	int i, e;

	snprintf(cmd[0], 64, "loop %d", PT_L1);
	snprintf(cmd[1], 64, "loop %d", PT_L2);
	/*
	 * The loops' difference is known to within the kernel's own work
	 * around the wake-up (the scheduler, perf's switch), which varies
	 * by hundreds of instructions from one command to the next, now and
	 * then by 3,000 (the head comment), and is task context in both
	 * counts: oracle.c's 0.5 % on the least :t of each loop.
	 */
	pt_rounds(_metadata, self, variant, S, cmd, CTXCOUNT_BUCKET_TASK, want,
		  want / 200, false);
	for (e = 0; e < variant->nev; e++) {
		task = pt_min_task(self, S, 1, e) - pt_min_task(self, S, 0, e);
		EXPECT_LE(llabs(task - want), want / 200)
			TH_LOG("event %d: S's least :t %+lld from L1 to L2, want %+lld", e, task,
			       want);
	}
	/*
	 * Exact, against an independent counter: with no interrupt anywhere
	 * during a command (strict), S's :t is all of S's count, which a
	 * perf_event_open() counter on S alone counts too.
	 */
	for (i = 0; i < PT_DELTAS; i++) {
		d = &self->d[i];
		if (d->interrupts)
			continue;
		task = cst_row_delta(d, self->w.tid[S], 0, CTXCOUNT_BUCKET_TASK);
		EXPECT_EQ(d->perf[S], task)
			TH_LOG("'%s': S's :t %lld, perf_event_open on S %lld", cmd[i % 2],
			       task, d->perf[S]);
	}
	pt_check_stopped(_metadata, self);
}

/*
 * M's :t in each round against the counter on M alone: from K1 to K2 it
 * moves as the counter less the interrupt work. What M's own task context
 * did differently in the two commands is in both and cancels; interrupt
 * work taken for task context (or task context for interrupt work) does
 * not. The counter counts instructions; the sessions' cycles are
 * instructions too under -icount shift=0. oracle.c's figure, the least :t
 * of each command over the rounds, is printed.
 */
TEST_F_TIMEOUT(pt_oracle, hardirq_in_m_lands_in_m, 900)
{
	const long long want = 2LL * PT_N * (PT_K2 - PT_K1);
	pid_t tid = self->w.tid[M];
	struct cst_worker_delta *a;
	long long dt, own;
	char cmd[2][64];
	int i, e;

	snprintf(cmd[0], 64, "hardirq %d %d 0", PT_N, PT_K1);
	snprintf(cmd[1], 64, "hardirq %d %d 0", PT_N, PT_K2);
	pt_rounds(_metadata, self, variant, M, cmd, CTXCOUNT_BUCKET_HARDIRQ, want, 0, true);
	for (i = 0; i < PT_ROUNDS; i++) {
		a = &self->d[2 * i];
		own = a[1].perf[M] - a[0].perf[M] - want;
		for (e = 0; e < variant->nev; e++) {
			dt = cst_row_delta(a + 1, tid, e, CTXCOUNT_BUCKET_TASK) -
			     cst_row_delta(a, tid, e, CTXCOUNT_BUCKET_TASK);
			EXPECT_LE(llabs(dt - own), want / 200)
				TH_LOG("round %d event %d: M's :t %+lld from K1 to K2, the counter on M %+lld less the work (%lld)",
				       i, e, dt, own, want);
		}
	}
	for (e = 0; e < variant->nev; e++)
		ksft_print_msg("event %d: M's least :t %+lld from K1 to K2\n", e,
			       pt_min_task(self, M, 1, e) - pt_min_task(self, M, 0, e));
	pt_check_stopped(_metadata, self);
}

TEST_F_TIMEOUT(pt_oracle, new_thread_counts_in_its_creator, 600)
{
	struct cst_worker_delta *d = &self->d[0];
	long long task, full;
	char cmd[64];
	int i, e;

	snprintf(cmd, sizeof(cmd), "thread %d", PT_L2);
	/* the first pages the thread's stack in */
	for (i = 0; i < 2; i++)
		ASSERT_EQ(0, cst_worker_run_on(&self->w, S, cmd, d, false));
	pt_check_delta(_metadata, self, variant, d, S, cmd, true);
	for (e = 0; e < variant->nev; e++) {
		task = cst_row_delta(d, self->w.tid[S], e, CTXCOUNT_BUCKET_TASK);
		EXPECT_LE(2LL * PT_L2, task) TH_LOG("event %d: S's :t %+lld", e, task);
	}
	full = cst_row_delta(d, self->w.tid[S], 0, CST_ROW_FULL);
	ksft_print_msg("'%s': S's row %+lld, perf_event_open on S alone %+lld\n", cmd, full,
		       d->perf[S]);
	EXPECT_LE(d->perf[S] + 2LL * PT_L2 - CST_ORACLE_PERF_SLACK, full);
	pt_check_stopped(_metadata, self);
}

CST_TEST_MAIN
