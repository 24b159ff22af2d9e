// SPDX-License-Identifier: GPL-2.0
/*
 * What a session monitors:
 *  - INHERIT: children forked and threads created after START are counted;
 *    with a PMU (arm64 -icount) instructions:u == N x the per-child loop
 *    within 2 %; without INHERIT the children are not counted; on any arch
 *    task-clock of N busy threads/children exceeds a single one's;
 *  - an already running process (pid target, ctxstat -p PID);
 *  - system wide (SYSTEM_WIDE, ctxstat -a).
 *
 * Bounds: a running pid's task-clock is at least its own CPU time from
 * START's return to READ and at most that from START's call to READ's
 * return; task-clock of 2 children more than 1.5 x that of 1.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define PER_CHILD_ITERS 2000000ULL	/* 4M instructions each */
#define NCHILD 4

static const struct cst_ev ev_insn_u = CST_EV_HW(INSTRUCTIONS, CST_F_USER_ONLY,
						 "instructions:u");
static const struct cst_ev ev_task_clock = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

struct work {
	int n;			/* children or threads */
	bool threads;
	uint64_t iters;		/* loop iterations each */
};

static void *thread_fn(void *arg)
{
	cst_loop(*(uint64_t *)arg);
	return NULL;
}

/* The parent itself does no loop: all counted work is in children/threads. */
static void work_fn(void *arg)
{
	struct work *w = arg;
	pthread_t t[64];
	int i;

	for (i = 0; i < w->n; i++) {
		if (w->threads) {
			pthread_create(&t[i], NULL, thread_fn, &w->iters);
		} else if (fork() == 0) {
			cst_loop(w->iters);
			_exit(0);
		}
	}
	if (w->threads)
		for (i = 0; i < w->n; i++)
			pthread_join(t[i], NULL);
	else
		while (wait(NULL) > 0)
			;
}

FIXTURE(tg) {
	struct cst_sock s;
	struct cst_res *res;
	int kmsg;
	pid_t bg;
};

FIXTURE_SETUP(tg)
{
	self->kmsg = cst_kmsg_open();
	self->res = calloc(1, sizeof(*self->res));
	self->bg = 0;
	ASSERT_NE(NULL, self->res);
	ASSERT_EQ(0, cst_open(&self->s));
}

FIXTURE_TEARDOWN(tg)
{
	if (self->bg > 0) {
		kill(self->bg, SIGKILL);
		waitpid(self->bg, NULL, 0);
	}
	cst_close(&self->s);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->res);
}

/* Run w in a stopped child monitored with tflags; return ev's result. */
static int count_work(struct __test_metadata *_metadata, struct cst_sock *s,
		      struct cst_res *r, const struct cst_ev *ev,
		      uint32_t tflags, struct work *w)
{
	struct cst_child c;
	char txt[512];

	if (cst_child_fork(&c, work_fn, w))
		return -1;
	if (cst_new(s, c.pid, tflags, ev, 1, r, NULL) ||
	    cst_cmd(s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL)) {
		kill(c.pid, SIGKILL);
		cst_child_wait(&c);
		return -1;
	}
	cst_child_go(&c);
	if (cst_child_wait(&c) != 0)
		return -1;
	if (cst_cmd(s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL) || r->nev != 1)
		return -1;
	cst_fmt_event(&r->ev[0], txt, sizeof(txt));
	TH_LOG("%s, %d %s x %llu iterations, flags 0x%x: tasks seen %llu, %s",
	       ev->name, w->n, w->threads ? "threads" : "children",
	       (unsigned long long)w->iters, tflags,
	       (unsigned long long)r->tasks_seen, txt);
	cst_cmd(s, CTXCOUNT_CMD_SESSION_DEL, r->id, NULL, NULL);
	return r->ev[0].error ? -1 : 0;
}

/* Forked children or threads: same fixture data as tg, with a variant. */
FIXTURE(inherit) {
	struct cst_sock s;
	struct cst_res *res;
	int kmsg;
	pid_t bg;
};

FIXTURE_VARIANT(inherit) {
	bool threads;
};

FIXTURE_VARIANT_ADD(inherit, children) { .threads = false };
FIXTURE_VARIANT_ADD(inherit, threads) { .threads = true };

FIXTURE_SETUP(inherit)
{
	tg_setup(_metadata, (FIXTURE_DATA(tg) *)self, NULL);
}

FIXTURE_TEARDOWN(inherit)
{
	tg_teardown(_metadata, (FIXTURE_DATA(tg) *)self, NULL);
}

TEST_F_TIMEOUT(inherit, instructions_u, 180)
{
	struct work w = { .n = NCHILD, .threads = variant->threads,
			  .iters = PER_CHILD_ITERS };
	double want = 2.0 * NCHILD * PER_CHILD_ITERS, got, dev;
	char why[256];

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	ASSERT_EQ(0, count_work(_metadata, &self->s, self->res, &ev_insn_u,
				CTXCOUNT_TARGET_F_INHERIT, &w));
	got = self->res->ev[0].b[CTXCOUNT_BUCKET_TASK];
	dev = (got - want) / want;
	TH_LOG("with INHERIT: %.0f, %d x loop = %.0f: %+.3f %%", got, NCHILD, want,
	       dev * 100);
	EXPECT_GE(0.02, dev < 0 ? -dev : dev);
	EXPECT_LE(NCHILD + 1, self->res->tasks_seen);

	/* threads of the target pid created after START also need INHERIT */
	ASSERT_EQ(0, count_work(_metadata, &self->s, self->res, &ev_insn_u, 0, &w));
	got = self->res->ev[0].b[CTXCOUNT_BUCKET_TASK];
	TH_LOG("without INHERIT: %.0f (the parent alone)", got);
	EXPECT_GT(want / 10, got);
}

TEST_F_TIMEOUT(inherit, task_clock_scales, 180)
{
	struct work one = { .n = 1, .threads = variant->threads };
	struct work two = { .n = 2, .threads = variant->threads };
	char why[256];
	double t1, t2;

	/* ~200 ms of loop for one: calibrated with task-clock itself */
	one.iters = cst_no_insn_reason(why, sizeof(why)) ? 100000000ULL : 5000000ULL;
	two.iters = one.iters;
	ASSERT_EQ(0, count_work(_metadata, &self->s, self->res, &ev_task_clock,
				CTXCOUNT_TARGET_F_INHERIT, &one));
	t1 = self->res->ev[0].full;
	ASSERT_EQ(0, count_work(_metadata, &self->s, self->res, &ev_task_clock,
				CTXCOUNT_TARGET_F_INHERIT, &two));
	t2 = self->res->ev[0].full;
	TH_LOG("task-clock: 1 x loop %.1f ms, 2 x loop %.1f ms (ratio %.2f)",
	       t1 / 1e6, t2 / 1e6, t2 / t1);
	ASSERT_LT(0, t1);
	EXPECT_LT(1.5 * t1, t2);
}

static void spin_fn(void *ms)
{
	cst_spin_ms((uintptr_t)ms);
}

/* Spins until the fixture's teardown kills it. */
static void spin_until_killed_fn(void *unused)
{
	for (;;)
		cst_loop(1000000);
}

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	if (clock_gettime(clock, &ts))
		return 0;
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * A process already running before the session exists, spinning for as
 * long as it takes (NEW and START may take long: START calibrates, and
 * waits for a grace period since the last session went), is counted for
 * at least its own CPU time from START's return to READ and at most that
 * from START's call to READ's return.
 */
TEST_F_TIMEOUT(tg, attach_running_pid, 120)
{
	struct cst_res *r = self->res;
	uint64_t t[4];
	struct cst_child c;
	clockid_t clock;

	ASSERT_EQ(0, cst_child_fork(&c, spin_until_killed_fn, NULL));
	self->bg = c.pid;
	ASSERT_EQ(0, clock_getcpuclockid(c.pid, &clock));
	cst_child_go(&c);
	usleep(100000);
	ASSERT_EQ(0, cst_new(&self->s, c.pid, 0, &ev_task_clock, 1, r, NULL));
	t[0] = clock_ns(clock);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	t[1] = clock_ns(clock);
	usleep(300000);
	t[2] = clock_ns(clock);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	t[3] = clock_ns(clock);
	TH_LOG("attached for 300 ms: task-clock %.3f ms (task %.3f ms); the spinner's CPU time during START %.3f ms, then until READ %.3f ms, during READ %.3f ms",
	       r->ev[0].full / 1e6, r->ev[0].b[CTXCOUNT_BUCKET_TASK] / 1e6,
	       (t[1] - t[0]) / 1e6, (t[2] - t[1]) / 1e6, (t[3] - t[2]) / 1e6);
	/* it ran: the comparison below means something */
	ASSERT_LT(10000000ULL, t[2] - t[1]);
	CST_EXPECT_CPU_TIME_COUNTED(&r->ev[0], t[2] - t[1], t[3] - t[0]);
	EXPECT_EQ(r->ev[0].full, cst_bucket_sum(&r->ev[0]));
}

TEST_F_TIMEOUT(tg, system_wide, 120)
{
	struct cst_res *r = self->res;
	struct cst_child c;

	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     &ev_cpu_clock, 1, r, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	/* a process the session was not told about */
	ASSERT_EQ(0, cst_child_fork(&c, spin_fn, (void *)(uintptr_t)300));
	cst_child_go(&c);
	ASSERT_EQ(0, cst_child_wait(&c));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, r->id, NULL, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	TH_LOG("system wide: cpu-clock %.1f ms, tasks seen %llu",
	       r->ev[0].full / 1e6, (unsigned long long)r->tasks_seen);
	EXPECT_LT(200000000ULL, r->ev[0].full);
	EXPECT_LE(2, r->tasks_seen);
	EXPECT_EQ(r->ev[0].full, cst_bucket_sum(&r->ev[0]));
}

TEST_F_TIMEOUT(tg, ctxstat_p_pid, 120)
{
	char pid[16];
	char *argv[] = { (char *)cst_ctxstat_path(), "-x,", "-e", "task-clock",
			 "-p", pid, "--", "/bin/sleep", "1", NULL };
	struct cst_run *run = calloc(1, sizeof(*run));
	struct cst_csv_row row;
	struct cst_child c;

	ASSERT_NE(NULL, run);
	if (access(argv[0], X_OK))
		SKIP(return, "ctxstat not found at %s", argv[0]);
	ASSERT_EQ(0, cst_child_fork(&c, spin_fn, (void *)(uintptr_t)20000));
	self->bg = c.pid;
	cst_child_go(&c);
	snprintf(pid, sizeof(pid), "%d", c.pid);
	cst_run(run, argv, 60);
	EXPECT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("status 0x%x:\n%s", run->status, run->err);
	ASSERT_EQ(0, cst_csv_find(run->err, ',', "task-clock", &row))
		TH_LOG("no task-clock row:\n%s", run->err);
	TH_LOG("ctxstat -p %s for 1 s of a spinning process: task-clock %s msec",
	       pid, row.f[0]);
	ASSERT_TRUE(row.numeric);
	EXPECT_LT(300.0, row.value);
	/* the attached process is still running: ctxstat does not kill it */
	EXPECT_EQ(0, kill(c.pid, 0));
	free(run);
}

TEST_F_TIMEOUT(tg, ctxstat_a, 120)
{
	char *argv[] = { (char *)cst_ctxstat_path(), "-x,", "-a", "-e", "cpu-clock",
			 "--", (char *)cst_workload_path(), "spin", "500", NULL };
	struct cst_run *run = calloc(1, sizeof(*run));
	struct cst_csv_row row;

	ASSERT_NE(NULL, run);
	if (access(argv[0], X_OK))
		SKIP(return, "ctxstat not found at %s", argv[0]);
	cst_run(run, argv, 60);
	EXPECT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("status 0x%x:\n%s", run->status, run->err);
	ASSERT_EQ(0, cst_csv_find(run->err, ',', "cpu-clock", &row))
		TH_LOG("no cpu-clock row:\n%s", run->err);
	TH_LOG("ctxstat -a over a 500 ms spin: cpu-clock %s msec", row.f[0]);
	ASSERT_TRUE(row.numeric);
	EXPECT_LT(300.0, row.value);
}

CST_TEST_MAIN
