// SPDX-License-Identifier: GPL-2.0
/*
 * perf's teardown of a monitored task's events (issue 31, finding 1).
 *
 * perf_event_exit_task() detaches every per-task event of a task and frees
 * the ones perf inherited into it (an RCU grace period later): at its exit,
 * and at an exec of an image that is not SUID_DUMP_USER (here: a 0111
 * binary exec'd by a user who may not read it). Before it detaches them it
 * walks the events the task owns and takes perf's mutexes, with
 * interrupts on: the task may be switched out there and back in. The
 * module must open no interval on those events again; one left open is
 * read by every boundary after the free (KASAN on the debug kernel) and
 * at the task's next switch-out (the module's own check of a task
 * interval at its close: an inherited event perf has torn down).
 *
 * The window is widened as the kernel's own regression tests widen
 * theirs: the task owns thousands of disabled perf events (the walk),
 * a SCHED_FIFO task it wakes just before the exec or exit preempts it
 * after a delay that changes from round to round (with preempt=full,
 * which PREEMPT_DYNAMIC kernels switch to at run time), and the oracle
 * module's hrtimer storm on the same CPU gives it a boundary every
 * 200 us, which is where the interval would reopen.
 *
 * Figures: 24 tasks (at least 4, then as many as start within 30 s) under
 * an INHERIT session, each owning 20,000 disabled perf events, preempted
 * after 0 to 3.75 ms, a 5 kHz storm; the session read and deleted after.
 * Skipped where the kernel has no run-time preemption model (Debian's arm64
 * kernels), on PREEMPT_RT (it outran the guest's time on 6.12-rt, not yet
 * understood) or where the oracle module does not load.
 */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define PREEMPT_KNOB	"/sys/kernel/debug/sched/preempt"
/* Events each task owns: the walk perf_event_exit_task() starts with. */
#define OWNED_EVENTS	20000
#define ROUNDS		24
/*
 * Rounds after the first MIN_ROUNDS start only within BUDGET_S seconds
 * (times CTX_TIMEOUT_SCALE): the opens and closes are slow under icount
 * and KASAN. x86 TCG guests ran all 24 in 27 s (x86_64 6.1); a loaded
 * host may cut a few.
 */
#define MIN_ROUNDS	4
#define BUDGET_S	30

FIXTURE(td) {
	int kmsg;
	char preempt[16];	/* the mode to put back, "" when unchanged */
	const char *wl;		/* the workload, 0111 for the exec variant */
	bool storm;
};

FIXTURE_VARIANT(td) {
	bool exec;		/* exec an unreadable image, else exit */
};

FIXTURE_VARIANT_ADD(td, exec_unreadable) { .exec = true };
FIXTURE_VARIANT_ADD(td, exit) { .exec = false };

FIXTURE_SETUP(td)
{
	char dir[128];
	int err;

	self->kmsg = cst_kmsg_open();
	self->preempt[0] = 0;
	self->storm = false;
	/*
	 * On x86_64 6.12-rt the program ran past the guest's 1,800 s (make
	 * check, 2026-12-06): the storm's hrtimer and the FIFO task on one
	 * CPU of a PREEMPT_RT guest, not yet understood.
	 */
	if (cst_kernel_is_rt())
		SKIP(return, "PREEMPT_RT: the 5 kHz storm and the SCHED_FIFO task on one CPU outran the guest's time (to be understood)");
	err = cst_oracle_load();
	if (err)
		SKIP(return, "the oracle module (its hrtimer storm) does not load: %s",
		     strerror(-err));
	/*
	 * PREEMPT_RT kernels are preemptible everywhere already; the knob
	 * needs SCHED_DEBUG too, which the debug kernel has not: it boots
	 * with preempt=full for this test (docs/TESTING.md).
	 */
	err = cst_preempt_full(self->preempt, sizeof(self->preempt));
	if (err)
		SKIP(return, "%s: %s, and not booted with preempt=full: no run-time preemption model (PREEMPT_DYNAMIC) to widen the window with",
		     PREEMPT_KNOB, strerror(-err));
	self->wl = cst_workload_copy();
	ASSERT_NE(NULL, self->wl) TH_LOG("copy to /tmp: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%s", self->wl);
	ASSERT_EQ(0, chmod(dirname(dir), 0755));
	/* Executable, not readable: the exec makes the task non-dumpable. */
	ASSERT_EQ(0, chmod(self->wl, variant->exec ? 0111 : 0755));
}

FIXTURE_TEARDOWN(td)
{
	if (self->storm)
		EXPECT_EQ(0, cst_oracle_cmd("storm 0"));
	EXPECT_EQ(0, cst_preempt_restore(self->preempt));
	cst_workload_copy_remove(self->wl);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/*
 * The monitored process: ROUNDS tasks in turn (fewer past the budget),
 * each waited for. Exits 0, or the first round's failure.
 */
static void monitored(void *arg)
{
	const struct cst_race *a = arg;
	const char *scale = getenv("CTX_TIMEOUT_SCALE");
	double budget = BUDGET_S * (scale && atoi(scale) > 1 ? atoi(scale) : 1);
	double start = cst_now();
	unsigned int round;
	int status;

	for (round = 0; round < ROUNDS; round++) {
		if (round >= MIN_ROUNDS && cst_now() - start > budget)
			break;
		status = cst_race_round(a, round);
		if (status < 0)
			_exit(30);
		if (status) {
			printf("# round %u: task ended with status 0x%x\n",
			       round, status);
			_exit(32);
		}
	}
	printf("# %u rounds in %.1f s\n", round, cst_now() - start);
	_exit(0);
}

/*
 * The rounds under an INHERIT session on the monitored process: every
 * racing task holds inherited children of the session's events. No
 * kernel report (the teardown's check), and the session read back after.
 */
TEST_F_TIMEOUT(td, no_interval_on_torn_down_events, 900)
{
	struct cst_race a = {
		.wl = self->wl,
		.exec = variant->exec,
		.owned_events = OWNED_EVENTS,
	};
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack = { };
	struct cst_child m;
	struct cst_sock s;
	int status;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_pin_cpu(0));
	ASSERT_EQ(0, cst_oracle_cmd("storm " CST_RACE_STORM_HZ));
	self->storm = true;
	ASSERT_EQ(0, cst_child_fork(&m, monitored, &a));
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_new(&s, m.pid, CTXCOUNT_TARGET_F_INHERIT,
			     cst_race_events, CST_RACE_NEV, r, &ack))
		TH_LOG("%s", ack.msg);
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	ASSERT_EQ(0, cst_child_go(&m));
	status = cst_child_wait(&m);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the monitored process ended with status 0x%x", status);
	EXPECT_EQ(0, cst_read(&s, r->id, 0, r, &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, r->tasks_lost);
	/* The process and each round's task and FIFO task, at least. */
	EXPECT_LE(1 + 2 * MIN_ROUNDS, r->tasks_seen);
	EXPECT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, r->id, NULL, NULL));
	cst_close(&s);
	free(r);
}

CST_TEST_MAIN
