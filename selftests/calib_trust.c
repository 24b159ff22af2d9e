// SPDX-License-Identifier: GPL-2.0
/*
 * What a privileged client's user-mode calibration may make of the
 * estimate every session uses (issue 31, finding 5). The module measures
 * the client's runs with its own counters, but the client chooses what
 * runs between a BEGIN and its END; the figure it leaves holds for every
 * user's session until the module is unloaded. So:
 *
 * - a storm run that spends its time in a system call (a 32 MiB read of
 *   /dev/zero after a few microseconds of loop) is refused with -ERANGE
 *   (-EAGAIN on one vCPU, where so long a run is always switched out),
 *   and user mode stays uncalibrated (STATS' CTXCOUNT_FEATURE_EST_USER);
 * - so is a storm run whose loop is ten times the quiet runs' (every
 *   interrupt in user mode, the figure far beyond what the kernel
 *   measured for kernel mode);
 * - the same loop in every run is still kept (the control);
 * - writing the module parameter calib_user_reset forgets it.
 *
 * Needs the estimate measured for kernel mode at load (a counter read
 * from its register: arm64's emulated PMU), skipped elsewhere with the
 * reason. Each test starts from a freshly loaded module.
 *
 * After the kept calibration a second one is refused with -EEXIST.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "cst.h"

#define LOOP		200000ULL
#define SYSCALL_BYTES	(32 << 20)

FIXTURE(cal) {
	struct cst_sock s;
	bool open;
	cpu_set_t old;
	char *buf;
	int kmsg;
};

FIXTURE_SETUP(cal)
{
	cpu_set_t one;
	uint32_t f;

	self->open = false;
	self->buf = NULL;
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_reload(-1));
	f = cst_features();
	if (!(f & CTXCOUNT_FEATURE_EST_KERNEL))
		SKIP(return, "the estimate is not measured here (no counter read from its register: no hardware PMU)");
	ASSERT_FALSE(f & CTXCOUNT_FEATURE_EST_USER) TH_LOG("user mode measured right after the load");
	ASSERT_EQ(0, cst_open(&self->s));
	self->open = true;
	/* Every run on one CPU: the module's timer is pinned to it. */
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(self->old), &self->old));
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	self->buf = malloc(SYSCALL_BYTES);
	ASSERT_NE(NULL, self->buf);
	memset(self->buf, 1, SYSCALL_BYTES);
}

FIXTURE_TEARDOWN(cal)
{
	sched_setaffinity(0, sizeof(self->old), &self->old);
	if (self->open)
		cst_close(&self->s);
	free(self->buf);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* A kernel-mode stretch: read SYSCALL_BYTES of /dev/zero. */
static void syscall_work(char *buf)
{
	int fd = open("/dev/zero", O_RDONLY);
	ssize_t n, done = 0;

	if (fd < 0)
		return;
	while (done < SYSCALL_BYTES) {
		n = read(fd, buf + done, SYSCALL_BYTES - done);
		if (n <= 0)
			break;
		done += n;
	}
	close(fd);
}

/*
 * One run: BEGIN, @loop iterations (and the system call if @syscall),
 * END. -EAGAIN (switched out, moved) is tried again, five times at most.
 * Returns END's result, or BEGIN's error.
 */
static int run(struct cst_sock *s, uint32_t begin, uint64_t loop,
	       char *syscall_buf)
{
	int tries, err = -EAGAIN;

	for (tries = 0; tries < 5 && err == -EAGAIN; tries++) {
		err = cst_calibrate_step(s, 0, begin);
		if (err)
			return err;
		cst_loop(loop);
		if (syscall_buf)
			syscall_work(syscall_buf);
		err = cst_calibrate_step(s, 0, CTXCOUNT_CALIBRATE_END);
	}
	return err;
}

/* A warm-up and a counted quiet run, as ctxstat does. */
static int quiet_runs(struct cst_sock *s)
{
	return run(s, CTXCOUNT_CALIBRATE_QUIET_BEGIN, LOOP, NULL) ?:
	       run(s, CTXCOUNT_CALIBRATE_QUIET_BEGIN, LOOP, NULL);
}

static bool user_measured(void)
{
	return cst_features() & CTXCOUNT_FEATURE_EST_USER;
}

/*
 * Refused: -ERANGE, or on one vCPU (where a run this long is switched out
 * every time) -EAGAIN after five tries; either way nothing is kept.
 */
#define EXPECT_REFUSED(ret) do {					\
	int ret_ = (ret);						\
									\
	EXPECT_TRUE(ret_ == -ERANGE || ret_ == -EAGAIN)			\
		TH_LOG("END: %d (%s)", ret_, strerror(-ret_));		\
	EXPECT_FALSE(user_measured());					\
} while (0)

TEST_F(cal, storm_run_in_a_syscall_refused)
{
	ASSERT_EQ(0, quiet_runs(&self->s));
	EXPECT_REFUSED(run(&self->s, CTXCOUNT_CALIBRATE_STORM_BEGIN,
			   LOOP / 10, self->buf));
}

TEST_F(cal, longer_storm_loop_refused)
{
	ASSERT_EQ(0, quiet_runs(&self->s));
	EXPECT_REFUSED(run(&self->s, CTXCOUNT_CALIBRATE_STORM_BEGIN,
			   10 * LOOP, NULL));
}

TEST_F(cal, same_loop_kept_then_reset)
{
	ASSERT_EQ(0, quiet_runs(&self->s));
	ASSERT_EQ(0, run(&self->s, CTXCOUNT_CALIBRATE_STORM_BEGIN, LOOP, NULL));
	EXPECT_TRUE(user_measured());
	EXPECT_EQ(-EEXIST, cst_calibrate_step(&self->s, 0,
					      CTXCOUNT_CALIBRATE_QUIET_BEGIN));
	ASSERT_EQ(0, cst_param_set("calib_user_reset", 1));
	EXPECT_FALSE(user_measured());
	/* Measured again, as the next privileged ctxstat would. */
	ASSERT_EQ(0, quiet_runs(&self->s));
	EXPECT_EQ(0, run(&self->s, CTXCOUNT_CALIBRATE_STORM_BEGIN, LOOP, NULL));
	EXPECT_TRUE(user_measured());
}

CST_TEST_MAIN
