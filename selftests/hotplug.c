// SPDX-License-Identifier: GPL-2.0
/*
 * CPU hotplug during a session: a CPU taken offline and brought back
 * online (through /sys/devices/system/cpu/cpuN/online) while a per-task or
 * a system-wide session counts, and a CPU that was offline when the
 * session was created coming online later. The module gives every session
 * a fresh counter on a CPU that comes online (a CPU hotplug state and a
 * worker, within milliseconds), so the counts stay complete: a task that
 * runs on that CPU afterwards is counted in full, and the counter ran all
 * the time the task was monitored (time_running == time_enabled).
 *
 * The CPU is CTX_HOTPLUG_CPU (default the last one); skipped when it
 * cannot be taken offline here.
 *
 * In detail: also three started system-wide sessions each deleted while the
 * CPU is offline, then a new one counting there; a process on that CPU is
 * counted within 10 % of its own CPU time (which lies between the task
 * bucket and the full count: kernels with IRQ_TIME_ACCOUNTING leave
 * interrupt time out of it), and the buckets sum to full; after the cycle,
 * 10 READs of a started system-wide session from CPU 0 interrupt the CPU
 * that came back at least 20 times (the module's settling IPI and perf's
 * read each time: the dead CPU's sequence count left odd made READ skip the
 * first); sessions created and closed while the CPU goes up and down leave
 * nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

/*
 * The counters of a CPU that came online are created by a kernel worker
 * right after (not in the hotplug callback: see docs/design/hotplug.md);
 * what runs on the CPU before is not counted. The checks start this much later.
 */
#define SETTLE_MS 200

static int hp_cpu(void)
{
	const char *env = getenv("CTX_HOTPLUG_CPU");
	long n = sysconf(_SC_NPROCESSORS_CONF);

	if (env && *env)
		return atoi(env);
	return n > 1 ? (int)n - 1 : -1;
}

/*
 * A child that waits for a byte on its pipe, optionally pins itself to
 * cpu, spins for ms milliseconds, writes its own CPU time (ns) back and
 * exits once its pipe is closed: the session is read before then, as
 * exiting costs task-context time its CPU time was read too early to
 * include (about 80 ms on the debug kernel).
 */
struct spinner {
	pid_t pid;
	int go, back;
};

static int spinner_fork(struct spinner *sp, int cpu, unsigned int ms)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC))
		return -errno;
	fflush(stdout);
	fflush(stderr);
	sp->pid = fork();
	if (sp->pid < 0)
		return -errno;
	if (sp->pid == 0) {
		struct timespec ts;
		uint64_t ns;
		char c;

		/* its own copy of the write end would keep EOF from coming */
		close(in[1]);
		close(out[0]);
		if (read(in[0], &c, 1) != 1)
			_exit(3);
		if (cpu >= 0) {
			cpu_set_t set;

			CPU_ZERO(&set);
			CPU_SET(cpu, &set);
			if (sched_setaffinity(0, sizeof(set), &set))
				_exit(4);
		}
		cst_spin_ms(ms);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
		ns = ts.tv_sec * 1000000000ULL + ts.tv_nsec;
		if (write(out[1], &ns, sizeof(ns)) != sizeof(ns))
			_exit(5);
		while (read(in[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(in[0]);
	close(out[1]);
	sp->go = in[1];
	sp->back = out[0];
	return 0;
}

static int spinner_go(struct spinner *sp)
{
	return write(sp->go, "g", 1) == 1 ? 0 : -errno;
}

/* Its CPU time in ns once it has spun, 0 if it failed. */
static uint64_t spinner_cpu_time(struct spinner *sp)
{
	uint64_t ns = 0;

	if (read(sp->back, &ns, sizeof(ns)) != sizeof(ns))
		ns = 0;
	return ns;
}

/* Let it exit and reap it; 0 when it ended well. */
static int spinner_reap(struct spinner *sp)
{
	int status;

	close(sp->go);
	close(sp->back);
	if (waitpid(sp->pid, &status, 0) != sp->pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -ECHILD;
}

static int pin(pid_t pid, int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(pid, sizeof(set), &set) ? -errno : 0;
}

static void log_event(struct __test_metadata *_metadata, const char *what,
		      const struct cst_ev_res *e)
{
	char buf[512];

	cst_fmt_event(e, buf, sizeof(buf));
	TH_LOG("%s: %s", what, buf);
}

FIXTURE(hp) {
	int kmsg;
	int cpu;
	long base;
	struct cst_sock s;
	struct cst_res *res;
	const char *skip;
};

FIXTURE_SETUP(hp)
{
	self->kmsg = cst_kmsg_open();
	self->base = cst_live_sessions();
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->res);
	ASSERT_EQ(0, cst_open(&self->s));
	self->cpu = hp_cpu();
	self->skip = NULL;
	if (self->cpu <= 0)
		self->skip = "needs a second CPU to take offline";
	else if (cst_cpu_is_online(self->cpu) != 1)
		self->skip = "the CPU to take offline is not online";
	else if (access("/sys/devices/system/cpu/cpu1/online", W_OK))
		self->skip = "CPU hotplug not available (no writable cpuN/online)";
}

FIXTURE_TEARDOWN(hp)
{
	if (self->cpu > 0 && cst_cpu_is_online(self->cpu) == 0)
		cst_cpu_set_online(self->cpu, 1);
	cst_close(&self->s);
	EXPECT_EQ(self->base, cst_live_sessions());
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->res);
}

/* Offline then online again, checking each step. */
static int cycle_cpu(struct __test_metadata *_metadata, int cpu, int ms)
{
	int ret = cst_cpu_set_online(cpu, 0);

	if (ret) {
		TH_LOG("offlining cpu%d: %s", cpu, strerror(-ret));
		return ret;
	}
	usleep(ms * 1000);
	ret = cst_cpu_set_online(cpu, 1);
	if (ret)
		TH_LOG("onlining cpu%d: %s", cpu, strerror(-ret));
	/* a kernel worker creates the new counters right after */
	usleep(SETTLE_MS * 1000);
	return ret;
}

/*
 * A process spins while its CPU is taken away and brought back, then runs
 * pinned to that CPU: it is counted in full, by a counter that never
 * stopped.
 */
TEST_F_TIMEOUT(hp, per_task, 240)
{
	struct cst_ev_res *e = &self->res->ev[0];
	struct spinner sp;
	uint64_t cpu_ns;
	uint32_t id;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, spinner_fork(&sp, -1, 1500));
	ASSERT_EQ(0, cst_new(&self->s, sp.pid, 0, &ev_cpu_clock, 1, self->res, NULL));
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	ASSERT_EQ(0, spinner_go(&sp));
	usleep(200000);
	ASSERT_EQ(0, cycle_cpu(_metadata, self->cpu, 200));
	/* the rest of its run on the CPU that came back */
	ASSERT_EQ(0, pin(sp.pid, self->cpu));
	cpu_ns = spinner_cpu_time(&sp);
	ASSERT_LT(0, cpu_ns);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, self->res, NULL));
	EXPECT_EQ(0, spinner_reap(&sp));
	ASSERT_EQ(1, self->res->nev);
	log_event(_metadata, "cpu-clock", e);
	TH_LOG("spinner's own CPU time %llu ns", (unsigned long long)cpu_ns);
	EXPECT_EQ(0, e->error);
	EXPECT_EQ(e->full, cst_bucket_sum(e));
	EXPECT_EQ(e->enabled, e->running) TH_LOG("the counter stopped for %llu of %llu ns",
		(unsigned long long)(e->enabled - e->running),
		(unsigned long long)e->enabled);
	CST_EXPECT_CPU_TIME_COUNTED(e, cpu_ns, cpu_ns);
}

/*
 * System wide: after the CPU came back, a process pinned to it adds at
 * least its own CPU time to the session's count.
 */
TEST_F_TIMEOUT(hp, system_wide, 240)
{
	struct cst_ev_res before, *e = &self->res->ev[0];
	struct spinner sp;
	uint64_t cpu_ns;
	uint32_t id;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     &ev_cpu_clock, 1, self->res, NULL));
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	usleep(100000);
	ASSERT_EQ(0, cycle_cpu(_metadata, self->cpu, 200));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, self->res, NULL));
	before = *e;
	log_event(_metadata, "after the cycle", &before);
	ASSERT_EQ(0, spinner_fork(&sp, self->cpu, 400));
	ASSERT_EQ(0, spinner_go(&sp));
	cpu_ns = spinner_cpu_time(&sp);
	ASSERT_LT(0, cpu_ns);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, self->res, NULL));
	EXPECT_EQ(0, spinner_reap(&sp));
	log_event(_metadata, "after the pinned spinner", e);
	TH_LOG("spinner on cpu%d: %llu ns of CPU time, session count grew %llu ns",
	       self->cpu, (unsigned long long)cpu_ns,
	       (unsigned long long)(e->full - before.full));
	EXPECT_EQ(e->full, cst_bucket_sum(e));
	/* no time without a counter: not while the CPU went or came back */
	EXPECT_EQ(e->enabled, e->running);
	EXPECT_LT(cpu_ns * 0.9, (double)(e->full - before.full));
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
}

/*
 * After the CPU went down and came back, a READ still settles a CPU that
 * counts in an IPI there, not from a copy taken while its hooks write.
 * Before issue 21 the dead CPU's last interval (the stopper's) was dropped
 * with its sequence count odd: parity inverted for good, READ took the
 * counting CPU for idle and sent it nothing. Each READ of a started
 * system-wide session of one event, from another CPU, interrupts the
 * counting CPU twice: the module's settling IPI and perf's read of the
 * CPU's counter (perf_event_read_value()); with the parity inverted only
 * perf's remained.
 */
#define HP_READS 10

TEST_F_TIMEOUT(hp, read_interrupts_a_counting_cpu, 240)
{
	const char *line = "Function call interrupts";
	struct spinner sp;
	long long i0, i1;
	uint32_t id;
	int i;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	if (cst_cpu_interrupts(line, self->cpu) < 0)
		SKIP(return, "no \"%s\" line in /proc/interrupts", line);
	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     &ev_cpu_clock, 1, self->res, NULL));
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	usleep(100000);
	ASSERT_EQ(0, cycle_cpu(_metadata, self->cpu, 200));
	ASSERT_EQ(0, spinner_fork(&sp, self->cpu, 1500));
	ASSERT_EQ(0, spinner_go(&sp));
	/* The reader on CPU 0, the spinner on the CPU that came back. */
	ASSERT_EQ(0, pin(0, 0));
	usleep(200000);
	i0 = cst_cpu_interrupts(line, self->cpu);
	for (i = 0; i < HP_READS; i++)
		ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id,
				     self->res, NULL));
	i1 = cst_cpu_interrupts(line, self->cpu);
	spinner_cpu_time(&sp);
	EXPECT_EQ(0, spinner_reap(&sp));
	TH_LOG("%d READs: %lld function-call interrupts on cpu%d", HP_READS,
	       i1 - i0, self->cpu);
	EXPECT_LE(2 * HP_READS, i1 - i0);
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
}

/* A CPU that is offline when the session is created counts once it is up. */
TEST_F_TIMEOUT(hp, offline_at_creation, 240)
{
	struct cst_ev_res *e = &self->res->ev[0];
	struct spinner sp;
	uint64_t cpu_ns;
	uint32_t id;
	int ret;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, spinner_fork(&sp, self->cpu, 400));
	ret = cst_cpu_set_online(self->cpu, 0);
	ASSERT_EQ(0, ret) TH_LOG("offlining cpu%d: %s", self->cpu, strerror(-ret));
	ASSERT_EQ(0, cst_new(&self->s, sp.pid, 0, &ev_cpu_clock, 1, self->res, NULL));
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	ret = cst_cpu_set_online(self->cpu, 1);
	ASSERT_EQ(0, ret) TH_LOG("onlining cpu%d: %s", self->cpu, strerror(-ret));
	usleep(SETTLE_MS * 1000);
	ASSERT_EQ(0, spinner_go(&sp));
	cpu_ns = spinner_cpu_time(&sp);
	ASSERT_LT(0, cpu_ns);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, self->res, NULL));
	EXPECT_EQ(0, spinner_reap(&sp));
	log_event(_metadata, "cpu-clock", e);
	TH_LOG("spinner pinned to cpu%d: %llu ns of CPU time", self->cpu,
	       (unsigned long long)cpu_ns);
	EXPECT_EQ(e->full, cst_bucket_sum(e));
	EXPECT_EQ(e->enabled, e->running);
	CST_EXPECT_CPU_TIME_COUNTED(e, cpu_ns, cpu_ns);
}

/*
 * The last task a CPU runs on its way down (the stopper, counted system
 * wide) runs after the CPU is marked offline, where sched_switch does not
 * fire: the module must forget that interval once the CPU is dead. A
 * session deleted while its CPU is down, and a new one whose per-CPU
 * memory may be the old one's, then count on that CPU without a kernel
 * report (before the fix: a freed interval still linked on the CPU, the
 * next switch there looping in the list).
 */
TEST_F_TIMEOUT(hp, deleted_while_offline, 240)
{
	struct cst_ev_res *e = &self->res->ev[0];
	struct spinner sp;
	uint64_t cpu_ns;
	int i, ret;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
				     &ev_cpu_clock, 1, self->res, NULL));
		ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START,
				     self->res->id, NULL, NULL));
		ret = cst_cpu_set_online(self->cpu, 0);
		ASSERT_EQ(0, ret) TH_LOG("offlining cpu%d: %s", self->cpu, strerror(-ret));
		ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL,
				     self->res->id, NULL, NULL));
		ret = cst_cpu_set_online(self->cpu, 1);
		ASSERT_EQ(0, ret) TH_LOG("onlining cpu%d: %s", self->cpu, strerror(-ret));
	}
	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     &ev_cpu_clock, 1, self->res, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, self->res->id,
			     NULL, NULL));
	ASSERT_EQ(0, spinner_fork(&sp, self->cpu, 200));
	ASSERT_EQ(0, spinner_go(&sp));
	cpu_ns = spinner_cpu_time(&sp);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, self->res->id,
			     self->res, NULL));
	EXPECT_EQ(0, spinner_reap(&sp));
	log_event(_metadata, "cpu-clock", e);
	EXPECT_LT(cpu_ns * 0.9, (double)e->full);
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, self->res->id,
			     NULL, NULL));
}

/* Sessions come and go while the CPU does: nothing is left behind. */
TEST_F_TIMEOUT(hp, churn, 300)
{
	struct cst_sock s2;
	int i, ret;

	if (self->skip)
		SKIP(return, "%s", self->skip);
	ASSERT_EQ(0, cst_open(&s2));
	for (i = 0; i < 6; i++) {
		ASSERT_EQ(0, cst_new(&s2, i & 1 ? -1 : getpid(),
				     i & 1 ? CTXCOUNT_TARGET_F_SYSTEM_WIDE : 0,
				     &ev_cpu_clock, 1, self->res, NULL));
		ASSERT_EQ(0, cst_cmd(&s2, CTXCOUNT_CMD_SESSION_START,
				     self->res->id, NULL, NULL));
		ret = cst_cpu_set_online(self->cpu, i & 1);
		ASSERT_EQ(0, ret) TH_LOG("cpu%d online=%d: %s", self->cpu, i & 1,
					 strerror(-ret));
		cst_spin_ms(20);
		if (i == 3) {
			/* the socket closes with its sessions while the CPU is down */
			cst_close(&s2);
			ASSERT_EQ(0, cst_open(&s2));
		}
	}
	cst_close(&s2);
	EXPECT_EQ(1, cst_cpu_is_online(self->cpu));
	EXPECT_EQ(self->base, cst_live_sessions());
}

CST_TEST_MAIN
