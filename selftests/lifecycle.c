// SPDX-License-Identifier: GPL-2.0
/*
 * Session lifetime: sessions die with their socket (close, SIGKILL of the
 * owner, SIGKILL of ctxstat mid-run), the interrupt hooks are attached
 * only while a session exists (issue 24: a module loaded and idle costs
 * interrupts nothing), and the module unloads cleanly while sessions are
 * live, then loads again for the tests that follow.
 *
 * Also: a target that exits leaves a readable session; the hooks (tracefs'
 * enabled_functions: irq_enter_rcu) are gone within 15 s of the last
 * session, and a session after that counts its task and the hardirqs it
 * takes.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

static void spin_fn(void *ms)
{
	cst_spin_ms((uintptr_t)ms);
}

FIXTURE(life) {
	long base;
	int kmsg;
	pid_t holder;
};

FIXTURE_SETUP(life)
{
	self->kmsg = cst_kmsg_open();
	self->base = cst_live_sessions();
	self->holder = 0;
	ASSERT_LE(0, self->base);
}

FIXTURE_TEARDOWN(life)
{
	if (self->holder > 0) {
		kill(self->holder, SIGKILL);
		waitpid(self->holder, NULL, 0);
	}
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/*
 * Fork a process that opens a socket, creates n sessions on itself (started
 * if start), writes one byte to the returned pipe and sleeps until killed.
 */
static pid_t spawn_holder(int n, bool start, int *ready_fd)
{
	int p[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid != 0) {
		close(p[1]);
		*ready_fd = p[0];
		return pid;
	}
	close(p[0]);
	{
		struct cst_res *r = calloc(1, sizeof(*r));
		struct cst_sock s;
		int i;

		if (!r || cst_open(&s))
			_exit(1);
		for (i = 0; i < n; i++) {
			if (cst_new(&s, getpid(), 0, &ev_cpu_clock, 1, r, NULL))
				_exit(2);
			if (start && cst_cmd(&s, CTXCOUNT_CMD_SESSION_START,
					     r->id, NULL, NULL))
				_exit(3);
		}
		if (write(p[1], "r", 1) != 1)
			_exit(4);
		/* keep the hooks busy: a monitored task that runs */
		for (;;)
			cst_spin_ms(5), usleep(5000);
	}
}

static int wait_ready(int fd)
{
	char c;
	int ok = read(fd, &c, 1) == 1;

	close(fd);
	return ok;
}

TEST_F(life, close_frees_sessions)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	int i;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_open(&s));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, cst_new(&s, getpid(), 0, &ev_cpu_clock, 1, r, NULL));
		if (i < 2)
			ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START,
					     r->id, NULL, NULL));
	}
	cst_spin_ms(20);
	EXPECT_EQ(self->base + 3, cst_live_sessions());
	cst_close(&s);
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 2000));
	free(r);
}

TEST_F(life, sigkilled_owner_frees_sessions)
{
	int fd, status;

	self->holder = spawn_holder(4, true, &fd);
	ASSERT_LT(0, self->holder);
	ASSERT_TRUE(wait_ready(fd)) TH_LOG("holder could not create its sessions");
	EXPECT_EQ(self->base + 4, cst_live_sessions());
	ASSERT_EQ(0, kill(self->holder, SIGKILL));
	ASSERT_EQ(self->holder, waitpid(self->holder, &status, 0));
	self->holder = 0;
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 2000));
}

/* A monitored task that exits leaves a readable, deletable session. */
TEST_F(life, target_exit_keeps_session)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_child c;
	struct cst_sock s;
	uint32_t id;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_child_fork(&c, spin_fn, (void *)(uintptr_t)50));
	ASSERT_EQ(0, cst_new(&s, c.pid, 0, &ev_cpu_clock, 1, r, NULL));
	id = r->id;
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	ASSERT_EQ(0, cst_child_go(&c));
	ASSERT_LE(0, cst_child_wait(&c));
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL));
	ASSERT_EQ(1, r->nev);
	EXPECT_LT(10000000ULL, r->ev[0].full) TH_LOG("50 ms child counted %llu ns",
		(unsigned long long)r->ev[0].full);
	EXPECT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
	EXPECT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
	cst_close(&s);
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 2000));
	free(r);
}

TEST_F_TIMEOUT(life, ctxstat_sigkill_frees_session, 120)
{
	char spin[] = "20000";
	char *argv[] = { (char *)cst_ctxstat_path(), "-e", "cpu-clock", "--",
			 (char *)cst_workload_path(), "spin", spin, NULL };
	long live;
	pid_t pid;
	int status, i;

	if (access(argv[0], X_OK))
		SKIP(return, "ctxstat not found at %s", argv[0]);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		setpgid(0, 0);
		execv(argv[0], argv);
		_exit(127);
	}
	self->holder = pid;
	/* ctxstat's session appears once the workload was started */
	for (i = 0, live = self->base; i < 500 && live == self->base; i++) {
		usleep(20000);
		live = cst_live_sessions();
	}
	ASSERT_EQ(self->base + 1, live) TH_LOG("ctxstat never created its session");
	usleep(200000);
	ASSERT_EQ(0, kill(pid, SIGKILL));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	self->holder = 0;
	EXPECT_EQ(self->base, cst_wait_live_sessions(self->base, 3000));
	/* the orphaned workload is not ours to keep */
	kill(-pid, SIGKILL);
}

/*
 * The kernel's own view (enabled_functions): irq_enter_rcu has no ftrace
 * callback while no session exists (10 s after the last one, the
 * hooks' linger), has one while a session exists, started or not, and a
 * session created after the hooks went still counts its task and the
 * interrupts it takes (the hooks attached again work).
 */
/* Excursions of any kind the session counted. */
static uint64_t excursions(const struct cst_res *r)
{
	uint64_t n = 0;
	int k;

	for (k = CTXCOUNT_EXCURSION_HARDIRQ; k <= CTXCOUNT_EXCURSION_MAX; k++)
		n += r->exc[k];
	return n;
}

/* A session on this process counts a 100 ms spin: task time, interrupts. */
static void counts_a_spin(struct __test_metadata *_metadata,
			  struct cst_sock *s, struct cst_res *r)
{
	ASSERT_EQ(0, cst_new(s, getpid(), 0, &ev_cpu_clock, 1, r, NULL));
	EXPECT_EQ(1, cst_irq_hooked()) TH_LOG("not hooked with a session");
	ASSERT_EQ(0, cst_cmd(s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	/* Wall time, about 25 ticks: some land while it runs, whatever else does. */
	cst_spin_ms(100);
	ASSERT_EQ(0, cst_read(s, r->id, 0, r, NULL));
	TH_LOG("task bucket %llu ns, %llu excursions",
	       (unsigned long long)r->ev[0].b[CTXCOUNT_BUCKET_TASK],
	       (unsigned long long)excursions(r));
	EXPECT_LT(0, r->ev[0].b[CTXCOUNT_BUCKET_TASK]);
	EXPECT_LT(0, excursions(r));
	ASSERT_EQ(0, cst_cmd(s, CTXCOUNT_CMD_SESSION_DEL, r->id, NULL, NULL));
}

TEST_F_TIMEOUT(life, hooks_only_while_sessions, 120)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	int hooked;

	ASSERT_NE(NULL, r);
	if (self->base)
		SKIP(return, "%ld sessions of others exist", self->base);
	hooked = cst_irq_hooked_wait(0, 15000);
	if (hooked < 0)
		SKIP(return, "tracefs' enabled_functions: %s", strerror(-hooked));
	EXPECT_EQ(0, hooked) TH_LOG("hooked 15 s after the last session");
	ASSERT_EQ(0, cst_open(&s));
	counts_a_spin(_metadata, &s, r);
	EXPECT_EQ(0, cst_irq_hooked_wait(0, 15000))
		TH_LOG("still hooked 15 s after the last session");
	/* Attached again for the next session, which counts as the first. */
	counts_a_spin(_metadata, &s, r);
	cst_close(&s);
	EXPECT_EQ(0, cst_irq_hooked_wait(0, 15000));
	free(r);
}

/*
 * Last: the module goes away under live, started sessions whose owner is
 * still alive, and comes back with the same parameters.
 */
TEST_F_TIMEOUT(life, rmmod_with_live_sessions, 120)
{
	char params[256], first[512];
	struct cst_sock s;
	int fd, ret;

	if (access(cst_ko_path(), R_OK))
		SKIP(return, "%s not readable: could not load the module again",
		     cst_ko_path());
	cst_current_params(params, sizeof(params));
	self->holder = spawn_holder(3, true, &fd);
	ASSERT_LT(0, self->holder);
	ASSERT_TRUE(wait_ready(fd));
	EXPECT_EQ(self->base + 3, cst_live_sessions());

	ret = cst_rmmod();
	EXPECT_EQ(0, ret) TH_LOG("rmmod ctxcount: %s", strerror(-ret));
	if (!ret) {
		EXPECT_FALSE(cst_module_loaded());
		/* the family is gone; the holder's socket simply stops working */
		EXPECT_EQ(-ENOENT, cst_open(&s));
		usleep(100000);
		EXPECT_EQ(0, kill(self->holder, 0)) TH_LOG("session owner died with the module");
	}
	kill(self->holder, SIGKILL);
	waitpid(self->holder, NULL, 0);
	self->holder = 0;
	EXPECT_EQ(0, cst_kmsg_reports(self->kmsg, first, sizeof(first)))
		TH_LOG("kernel report at rmmod: %s", first);

	if (!cst_module_loaded()) {
		ret = cst_insmod(params);
		ASSERT_EQ(0, ret) TH_LOG("insmod %s %s: %s", cst_ko_path(),
					 params, strerror(-ret));
	}
	ASSERT_EQ(0, cst_open(&s));
	cst_close(&s);
	EXPECT_EQ(0, cst_live_sessions());
}

CST_TEST_MAIN
