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
#include <fcntl.h>
#include <libgen.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY		65534
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
/* The FIFO task's delays after the wake-up: 0 to 3.75 ms. */
#define DELAY_STEP_US	250
#define DELAY_STEPS	16
#define STORM_HZ	"5000"

static const struct cst_ev events[] = {
	CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
	CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
	CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
	CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
};

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

/* The current mode of PREEMPT_KNOB ("none voluntary (full)") into @mode. */
static int preempt_mode(char *mode, size_t len)
{
	char buf[128], *lp, *rp;
	int fd = open(PREEMPT_KNOB, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -EIO;
	buf[n] = 0;
	lp = strchr(buf, '(');
	rp = lp ? strchr(lp, ')') : NULL;
	if (!rp)
		return -EINVAL;
	*rp = 0;
	snprintf(mode, len, "%s", lp + 1);
	return 0;
}

static int preempt_set(const char *mode)
{
	int fd = open(PREEMPT_KNOB, O_WRONLY);
	int err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, mode, strlen(mode)) < 0)
		err = -errno;
	close(fd);
	return err;
}

static bool booted_preempt_full(void)
{
	char buf[4096];
	int fd = open("/proc/cmdline", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return strstr(buf, "preempt=full") != NULL;
}

FIXTURE_SETUP(td)
{
	char dir[128], mode[16];
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
	if (!cst_kernel_is_rt() && !booted_preempt_full()) {
		err = preempt_mode(mode, sizeof(mode));
		if (err)
			SKIP(return, "%s: %s, and not booted with preempt=full: no run-time preemption model (PREEMPT_DYNAMIC) to widen the window with",
			     PREEMPT_KNOB, strerror(-err));
		ASSERT_EQ(0, preempt_set("full"));
		snprintf(self->preempt, sizeof(self->preempt), "%s", mode);
	}
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
	if (self->preempt[0])
		EXPECT_EQ(0, preempt_set(self->preempt));
	cst_workload_copy_remove(self->wl);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

/* A disabled event on CPU 0 that the caller owns; root may open it. */
static int own_event(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
	};

	return syscall(SYS_perf_event_open, &attr, -1, 0, -1, 0);
}

/*
 * The FIFO task: waits for @go, sleeps @delay_us, exits. Its wake-up from
 * the sleep preempts the task on its CPU, which then runs again when it
 * exits.
 */
static void poker(int go, unsigned int delay_us)
{
	struct sched_param sp = { .sched_priority = 1 };
	struct timespec ts = {
		.tv_sec = delay_us / 1000000,
		.tv_nsec = (delay_us % 1000000) * 1000L,
	};
	char c;

	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		_exit(10);
	if (read(go, &c, 1) != 1)
		_exit(11);
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	_exit(0);
}

struct round_arg {
	const char *wl;
	bool exec;
};

/*
 * One task of the session's tree whose teardown races: it owns
 * OWNED_EVENTS events, wakes the FIFO poker, and execs the unreadable
 * workload as nobody (or exits). Exit codes 20 and up: setup failed.
 */
static void teardown_task(const struct round_arg *a, unsigned int round)
{
	struct rlimit rl = { OWNED_EVENTS + 256, OWNED_EVENTS + 256 };
	int go[2], i, opened = 0;
	pid_t poke, keeper;

	if (pipe(go))
		_exit(20);
	poke = fork();
	if (poke < 0)
		_exit(21);
	if (!poke) {
		close(go[1]);
		poker(go[0], (round % DELAY_STEPS) * DELAY_STEP_US);
	}
	close(go[0]);
	if (setrlimit(RLIMIT_NOFILE, &rl))
		_exit(22);
	for (i = 0; i < OWNED_EVENTS; i++)
		if (own_event() >= 0)
			opened++;
	if (opened < OWNED_EVENTS / 2)
		_exit(23);
	if (!a->exec) {
		/*
		 * The exit closes the task's files before (until 6.16) or
		 * after perf_event_exit_task(): a copy of the table keeps
		 * the events, and so the walk, until the task is gone.
		 */
		keeper = fork();
		if (keeper < 0)
			_exit(24);
		/* Killed at the task's exit_notify(), after its perf exit. */
		if (!keeper && !prctl(PR_SET_PDEATHSIG, SIGKILL) &&
		    getppid() != 1)
			pause();
		if (!keeper)
			_exit(0);
	}
	if (a->exec && (setgid(NOBODY) || setuid(NOBODY)))
		_exit(25);
	if (write(go[1], "g", 1) != 1)
		_exit(26);
	if (a->exec) {
		execl(a->wl, "ctx_workload", "spin", "40", (char *)NULL);
		_exit(27);
	}
	_exit(0);
}

/*
 * The monitored process: ROUNDS tasks in turn (fewer past the budget),
 * each waited for. Exits 0, or the first round's failure.
 */
static void monitored(void *arg)
{
	const struct round_arg *a = arg;
	const char *scale = getenv("CTX_TIMEOUT_SCALE");
	double budget = BUDGET_S * (scale && atoi(scale) > 1 ? atoi(scale) : 1);
	double start = cst_now();
	unsigned int round;
	int status;
	pid_t pid;

	for (round = 0; round < ROUNDS; round++) {
		if (round >= MIN_ROUNDS && cst_now() - start > budget)
			break;
		pid = fork();
		if (pid < 0)
			_exit(30);
		if (!pid)
			teardown_task(a, round);
		if (waitpid(pid, &status, 0) != pid)
			_exit(31);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
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
	struct round_arg a = { .wl = self->wl, .exec = variant->exec };
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack = { };
	struct cst_child m;
	struct cst_sock s;
	int status;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pin_to(0));
	ASSERT_EQ(0, cst_oracle_cmd("storm " STORM_HZ));
	self->storm = true;
	ASSERT_EQ(0, cst_child_fork(&m, monitored, &a));
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_new(&s, m.pid, CTXCOUNT_TARGET_F_INHERIT, events,
			     ARRAY_SIZE(events), r, &ack)) TH_LOG("%s", ack.msg);
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
