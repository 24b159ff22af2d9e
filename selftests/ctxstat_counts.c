// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat's numbers against independent references:
 *  - full `instructions` agrees with `perf stat -e instructions` within 2 %
 *    (means of 3 runs of the same deterministic loop; needs a PMU);
 *  - `instructions:u` of a loop of known length is within 1 % of it
 *    (difference of a long and an empty run, so process start-up cancels);
 *  - `task-clock:t` <= `task-clock` (any arch; software event);
 *  - `cycles` is printed as `<not supported>` exactly when the module says
 *    the event cannot be created here (x86_64 under TCG), else as a number;
 *  - while packets arrive the hardirq and softirq:NET_RX breakdown rows are
 *    non-zero: loopback UDP in the guest (NET_RX raised by the loopback
 *    device), and NIC traffic from the host with /ctx/bin/ctxload.
 *
 * Also: `instructions:u` within 0.2 % of perf stat's (both means of -r 3);
 * `context-switches` added by 2000 sleeps and by 2000 pipe round trips
 * agree with perf's within 5 %; under the host's NIC load (ctxload) the
 * traffic lands in the hardirq bucket of busy processes and in NET_RX
 * buckets (theirs, or ksoftirqd's when softirqs are deferred: sessions on
 * the ksoftirqd threads count it too); where the NIC's handler runs in a
 * thread (PREEMPT_RT) a session on that thread gets the NET_RX, and the
 * busy processes get hardirq counts and no softirq at all.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define CMP_ITERS "40000000"		/* 80M instructions per run */
#define KNOWN_ITERS 5000000ULL		/* 10M instructions */


FIXTURE(cs) {
	const char *ctxstat;
	char *wl;
	int kmsg;
	struct cst_run *run;
};

FIXTURE_SETUP(cs)
{
	self->kmsg = cst_kmsg_open();
	self->ctxstat = cst_ctxstat_path();
	self->wl = (char *)cst_workload_path();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	if (access(self->ctxstat, X_OK))
		SKIP(return, "ctxstat not found at %s", self->ctxstat);
	ASSERT_EQ(0, access(self->wl, X_OK));
}

FIXTURE_TEARDOWN(cs)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->run);
}

/* Run argv, require exit 0, find event's CSV row in stderr. */
static bool run_csv(struct __test_metadata *_metadata, struct cst_run *r,
		    char *const argv[], const char *event,
		    struct cst_csv_row *row)
{
	cst_run(r, argv, 300);
	EXPECT_FALSE(r->timed_out);
	EXPECT_TRUE(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0)
		TH_LOG("%s exited with status 0x%x; stderr:\n%s", argv[0],
		       r->status, r->err);
	if (cst_csv_find(r->err, ',', event, row)) {
		TH_LOG("no '%s' row in the output of %s:\n%s", event, argv[0], r->err);
		return false;
	}
	if (!row->numeric) {
		TH_LOG("%s: '%s' is not a count", event, row->f[0]);
		return false;
	}
	return true;
}

/*
 * Both tools count from the workload's exec to its exit
 * (docs/design/tasks.md, "Exec and exit"). With two vCPUs under -icount the other vCPU's work leaks
 * into either count, so the full counts get 2 %; the exact 0.1 % check
 * runs on one vCPU (selftest exec). User-mode counts must agree closely.
 */
TEST_F_TIMEOUT(cs, instructions_match_perf, 600)
{
	char *cargv[] = { (char *)self->ctxstat, "-x,", "-r", "3", "-e",
			  "instructions,instructions:u", "--", self->wl, "loop",
			  CMP_ITERS, NULL };
	char *pargv[] = { NULL, "stat", "-x,", "-r", "3", "-e",
			  "instructions,instructions:u", "--", self->wl, "loop",
			  CMP_ITERS, NULL };
	struct cst_csv_row crow, prow, curow, purow;
	char why[256];
	double dev, udev;

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	pargv[0] = (char *)cst_perf_path();
	if (!pargv[0])
		SKIP(return, "no perf binary in the guest");
	ASSERT_TRUE(run_csv(_metadata, self->run, cargv, "instructions", &crow));
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "instructions:u", &curow));
	ASSERT_TRUE(run_csv(_metadata, self->run, pargv, "instructions", &prow));
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "instructions:u", &purow));
	TH_LOG("ctxstat: instructions %s, instructions:u %s", crow.f[0], curow.f[0]);
	TH_LOG("perf:    instructions %s, instructions:u %s (%s)", prow.f[0],
	       purow.f[0], pargv[0]);
	ASSERT_LT(0, prow.value);
	ASSERT_LT(0, purow.value);
	dev = (crow.value - prow.value) / prow.value;
	udev = (curow.value - purow.value) / purow.value;
	TH_LOG("ctxstat - perf: instructions %+.0f (%+.3f %%), instructions:u %+.0f (%+.3f %%); means of 3 runs of a %s-iteration loop",
	       crow.value - prow.value, dev * 100, curow.value - purow.value,
	       udev * 100, CMP_ITERS);
	EXPECT_GE(0.02, dev < 0 ? -dev : dev);
	EXPECT_GE(0.002, udev < 0 ? -udev : udev);
}

/*
 * Software events raised in the scheduler's switch path (context-switches)
 * must be counted like perf stat counts them: once per switch of a
 * monitored task, whether the other side is monitored (pingpong: parent
 * and child) or not (sleeps: the idle task). Start-up (exec, loading over
 * 9p) switches a varying number of times, so both tools are compared on
 * the difference between N and 0
 * iterations. Each is the least of 3 single runs, not their mean: a
 * start-up now and then blocks on the 9p root many times (arm64-6.12:
 * means of 3 empty runs from 4 to 60 switches, single runs up to 150),
 * which the minimum leaves out. Even the minimum is bimodal (arm64-6.12:
 * 3 to 8 or 43 to 50 switches for an empty run, for either tool), so N is
 * large enough that one tool's baseline in the upper mode and the other's
 * in the lower one move the difference by about 2 %, not 9 %.
 */
#define SWITCH_ITERS 2000
static bool switches(struct __test_metadata *_metadata, struct cst_run *run,
		     char *tool, char *wl, const char *mode, const char *n,
		     double *val)
{
	char *cargv[] = { tool, "-x,", "-e", "context-switches", "--",
			  wl, (char *)mode, (char *)n, NULL };
	char *pargv[] = { tool, "stat", "-x,", "-e", "context-switches",
			  "--", wl, (char *)mode, (char *)n, NULL };
	struct cst_csv_row row;
	bool is_perf = strstr(tool, "perf") != NULL;
	int i;

	for (i = 0; i < 3; i++) {
		if (!run_csv(_metadata, run, is_perf ? pargv : cargv,
			     "context-switches", &row))
			return false;
		if (!i || row.value < *val)
			*val = row.value;
	}
	return true;
}

TEST_F_TIMEOUT(cs, context_switches_match_perf, 600)
{
	static const char *const modes[] = { "sleeps", "pingpong" };
	/*
	 * Under TCG a 1 ms sleep sometimes expires before the task switches
	 * out (perf: 478 switches for 500 sleeps), and a pipe round trip
	 * between two CPUs switches once or twice depending on timing; each
	 * tool sees different runs. Measured with 2000 iterations: within
	 * 1.7 % on arm64-6.12 and x86_64-6.1, hence 5 %. On a busy host
	 * the empty runs differ too (x86_64-6.1: perf's least of three 60,
	 * ctxstat's 12), which is start-up noise, not the loop's switches:
	 * what the two baselines differ by is allowed on top. A module that
	 * lost or doubled the switch-path events would be off by far more.
	 */
	static const double tol[] = { 0.05, 0.05 };
	char *perf = (char *)cst_perf_path();
	char iters[16];
	unsigned int i;

	snprintf(iters, sizeof(iters), "%d", SWITCH_ITERS);
	if (!perf)
		SKIP(return, "no perf binary in the guest");
	for (i = 0; i < 2; i++) {
		double c0, cn, p0, pn, dc, dp, dev;

		ASSERT_TRUE(switches(_metadata, self->run, (char *)self->ctxstat,
				     self->wl, modes[i], "0", &c0));
		ASSERT_TRUE(switches(_metadata, self->run, (char *)self->ctxstat,
				     self->wl, modes[i], iters, &cn));
		ASSERT_TRUE(switches(_metadata, self->run, perf, self->wl, modes[i],
				     "0", &p0));
		ASSERT_TRUE(switches(_metadata, self->run, perf, self->wl, modes[i],
				     iters, &pn));
		dc = cn - c0;
		dp = pn - p0;
		dev = dp ? (dc - dp) / dp : 1;
		TH_LOG("%s %s - %s 0: context-switches ctxstat %.1f - %.1f = %.1f, perf %.1f - %.1f = %.1f (%+.1f %%)",
		       modes[i], iters, modes[i], cn, c0, dc, pn, p0, dp, dev * 100);
		/* about one switch per sleep / round trip at least */
		EXPECT_LE(0.9 * SWITCH_ITERS, dp);
		EXPECT_GE(tol[i] * dp + fabs(c0 - p0), fabs(dc - dp));
	}
}

TEST_F_TIMEOUT(cs, instructions_u_known_loop, 300)
{
	char iters[32];
	char *argv0[] = { (char *)self->ctxstat, "-x,", "-e", "instructions:u", "--",
			  self->wl, "loop", "0", NULL };
	char *argvn[] = { (char *)self->ctxstat, "-x,", "-e", "instructions:u", "--",
			  self->wl, "loop", iters, NULL };
	struct cst_csv_row r0, rn;
	double want = 2.0 * KNOWN_ITERS, got, dev;
	char why[256];

	if (cst_no_insn_reason(why, sizeof(why)))
		SKIP(return, "%s", why);
	snprintf(iters, sizeof(iters), "%llu", KNOWN_ITERS);
	ASSERT_TRUE(run_csv(_metadata, self->run, argv0, "instructions:u", &r0));
	ASSERT_TRUE(run_csv(_metadata, self->run, argvn, "instructions:u", &rn));
	got = rn.value - r0.value;
	dev = (got - want) / want;
	TH_LOG("instructions:u: empty run %.0f, %s iterations %.0f, difference %.0f, loop %.0f: %+.3f %%",
	       r0.value, iters, rn.value, got, want, dev * 100);
	EXPECT_GE(0.01, dev < 0 ? -dev : dev);
}

TEST_F_TIMEOUT(cs, task_clock_t_le_full, 120)
{
	char *argv[] = { (char *)self->ctxstat, "-x,", "-e", "task-clock,task-clock:t",
			 "--", self->wl, "spin", "300", NULL };
	struct cst_csv_row full, task;

	ASSERT_TRUE(run_csv(_metadata, self->run, argv, "task-clock", &full));
	ASSERT_EQ(0, cst_csv_find(self->run->err, ',', "task-clock:t", &task))
		TH_LOG("no task-clock:t row:\n%s", self->run->err);
	ASSERT_TRUE(task.numeric);
	TH_LOG("task-clock %s, task-clock:t %s (msec)", full.f[0], task.f[0]);
	EXPECT_LE(task.value, full.value);
	/* 300 ms of spinning */
	EXPECT_LT(150.0, task.value);
}

TEST_F_TIMEOUT(cs, cycles_support_shown, 120)
{
	const struct cst_ev cyc = CST_EV_HW(CPU_CYCLES, 0, "cycles");
	char *argv[] = { (char *)self->ctxstat, "-e", "cycles", "--", self->wl,
			 "loop", "1000", NULL };
	int err = cst_event_error(&cyc);
	const char *line;

	cst_run(self->run, argv, 120);
	EXPECT_TRUE(WIFEXITED(self->run->status) &&
		    WEXITSTATUS(self->run->status) == 0)
		TH_LOG("status 0x%x:\n%s", self->run->status, self->run->err);
	line = strstr(self->run->err, "cycles");
	ASSERT_NE(NULL, line) TH_LOG("no cycles row:\n%s", self->run->err);
	/* the row: value column then the name */
	while (line > self->run->err && line[-1] != '\n')
		line--;
	TH_LOG("module: cycles %s; ctxstat row: %.*s",
	       err ? strerror(-err) : "supported",
	       (int)strcspn(line, "\n"), line);
	if (err) {
		EXPECT_EQ(0, strncmp(line + strspn(line, " "), "<not supported>", 15));
	} else {
		EXPECT_TRUE(line[strspn(line, " ")] >= '0' &&
			    line[strspn(line, " ")] <= '9');
	}
}

static double breakdown_value(struct __test_metadata *_metadata,
			      const char *text, const char *row_name)
{
	struct cst_csv_row row;

	if (cst_csv_find(text, ',', row_name, &row)) {
		TH_LOG("no '%s' row", row_name);
		return -1;
	}
	return row.numeric ? row.value : -1;
}

TEST_F_TIMEOUT(cs, netrx_loopback_breakdown, 300)
{
	/* ~0.5 s in either guest: a round trip costs far more under -icount */
#ifdef __aarch64__
	char count[] = "1500";
#else
	char count[] = "10000";
#endif
	char *argv[] = { (char *)self->ctxstat, "-x,", "-v", "--breakdown", "-e",
			 "task-clock", "--", self->wl, "udp", count, NULL };
	unsigned long long rx0 = cst_softirq_total("NET_RX");
	double hard, netrx, task;

	cst_run(self->run, argv, 300);
	ASSERT_TRUE(WIFEXITED(self->run->status) &&
		    WEXITSTATUS(self->run->status) == 0)
		TH_LOG("status 0x%x:\n%s", self->run->status, self->run->err);
	TH_LOG("NET_RX softirqs on all CPUs during the run: %llu",
	       cst_softirq_total("NET_RX") - rx0);
	task = breakdown_value(_metadata, self->run->err, "task-clock [task]");
	hard = breakdown_value(_metadata, self->run->err, "task-clock [hardirq]");
	netrx = breakdown_value(_metadata, self->run->err,
				"task-clock [softirq:NET_RX]");
	TH_LOG("%s UDP datagrams over lo: task %.3f, hardirq %.3f, softirq:NET_RX %.3f msec",
	       count, task, hard, netrx);
	EXPECT_LT(0, task);
	EXPECT_LT(0, hard);
	EXPECT_LT(0, netrx);
}

/*
 * NIC traffic from the host: a busy process on every CPU gets the irqs.
 * Where the handlers run depends on the kernel:
 *  - hard interrupt context (default): the busy processes get the NIC's
 *    hardirq and the NET_RX softirqs that run on its exit;
 *  - threaded (PREEMPT_RT, or threadirqs): the hardirq part is the
 *    primary handler that wakes irq/N-virtio0-input.0, a task of its own.
 *    NET_RX runs in that thread when it re-enables BHs: a session on the
 *    thread itself gets it. On PREEMPT_RT the busy processes get hardirq
 *    counts and no softirq at all: only a task that re-enables BHs runs
 *    softirqs there (with threadirqs on other kernels, softirqs still run
 *    on any interrupt's exit, so that is not asserted).
 */
static void spinners_fn(void *n)
{
	long i;

	for (i = 1; i < (long)(uintptr_t)n; i++)
		if (fork() == 0) {
			cst_spin_ms(2000);
			_exit(0);
		}
	cst_spin_ms(2000);
	while (wait(NULL) > 0)
		;
}

TEST_F_TIMEOUT(cs, netrx_nic_buckets, 300)
{
	const char *ctxload = cst_ctxload_path();
	const struct cst_ev ev = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	char *argv[] = { (char *)ctxload, "--rate", "5000", "--seconds",
			 "3", "--", "/bin/sleep", "3", NULL };
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_res *ri = calloc(1, sizeof(*ri));
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	bool rt = cst_kernel_is_rt();
	pid_t irqt[4], ksoft[8];
	uint32_t iid[4], kid[8];
	uint64_t irqt_rx = 0, ksoft_rx = 0;
	int nirqt, nksoft, i;
	unsigned long long rx0;
	struct cst_child c;
	struct cst_sock s;
	int status;
	pid_t load;
	char txt[512];

	ASSERT_NE(NULL, r);
	ASSERT_NE(NULL, ri);
	if (access(ctxload, X_OK))
		SKIP(return, "%s not available (host NIC load helper)", ctxload);
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_child_fork(&c, spinners_fn, (void *)(uintptr_t)ncpu));
	ASSERT_EQ(0, cst_new(&s, c.pid, CTXCOUNT_TARGET_F_INHERIT, &ev, 1, r, NULL));
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	/* The receive queue's handler threads, each in a session of its own */
	nirqt = cst_irq_threads("-input", irqt, 4);
	for (i = 0; i < nirqt; i++) {
		ASSERT_EQ(0, cst_new(&s, irqt[i], 0, &ev, 1, ri, NULL));
		iid[i] = ri->id;
		ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, iid[i],
				     NULL, NULL));
	}
	/*
	 * Softirqs the interrupted task could not finish in time go to
	 * ksoftirqd (2 ms of guest time: a few packets' worth under -icount
	 * with busy vCPUs): its NET_RX counts too, in sessions of its own.
	 */
	nksoft = cst_ksoftirqd_threads(ksoft, 8);
	for (i = 0; i < nksoft; i++) {
		ASSERT_EQ(0, cst_new(&s, ksoft[i], 0, &ev, 1, ri, NULL));
		kid[i] = ri->id;
		ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, kid[i],
				     NULL, NULL));
	}
	TH_LOG("%s kernel, %d virtio input handler thread(s), %d ksoftirqd",
	       rt ? "PREEMPT_RT" : "non-RT", nirqt, nksoft);
	fflush(stdout);
	load = fork();
	ASSERT_LE(0, load);
	if (load == 0) {
		execv(argv[0], argv);
		_exit(127);
	}
	usleep(500000);
	rx0 = cst_softirq_total("NET_RX");
	cst_child_go(&c);
	cst_child_wait(&c);
	rx0 = cst_softirq_total("NET_RX") - rx0;
	TH_LOG("NET_RX softirqs (all CPUs) while %ld processes spun: %llu", ncpu, rx0);
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	waitpid(load, &status, 0);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("ctxload exited with 0x%x", status);
	/*
	 * The kernel's own NET_RX count is the precondition: under -icount
	 * with every vCPU busy (arm64, two vCPUs) QEMU delivered no packet
	 * during the spin, only before and after it. No load in the
	 * interval says nothing about the buckets.
	 */
	if (!rx0) {
		cst_close(&s);
		free(r);
		free(ri);
		SKIP(return, "the NIC load did not reach the guest while the processes spun (0 NET_RX softirqs; seen under -icount with every vCPU busy)");
	}
	cst_fmt_event(&r->ev[0], txt, sizeof(txt));
	TH_LOG("cpu-clock: %s", txt);
	EXPECT_LT(0, r->ev[0].b[CTXCOUNT_BUCKET_HARDIRQ]);
	EXPECT_EQ(r->ev[0].full, cst_bucket_sum(&r->ev[0]));
	for (i = 0; i < nirqt; i++) {
		ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, iid[i], ri, NULL));
		cst_fmt_event(&ri->ev[0], txt, sizeof(txt));
		TH_LOG("handler thread %d, cpu-clock: %s", irqt[i], txt);
		EXPECT_EQ(ri->ev[0].full, cst_bucket_sum(&ri->ev[0]));
		irqt_rx += ri->ev[0].b[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX];
	}
	for (i = 0; i < nksoft; i++) {
		ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, kid[i], ri, NULL));
		EXPECT_EQ(ri->ev[0].full, cst_bucket_sum(&ri->ev[0]));
		ksoft_rx += ri->ev[0].b[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX];
	}
	TH_LOG("NET_RX: %llu ns in the spinners, %llu ns in ksoftirqd",
	       (unsigned long long)r->ev[0].b[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX],
	       (unsigned long long)ksoft_rx);
	if (!nirqt) {
		EXPECT_LT(0, r->ev[0].b[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX] + ksoft_rx);
	} else {
		EXPECT_LT(0, irqt_rx);
	}
	/* the threads' work is theirs, not the busy processes' */
	if (rt)
		EXPECT_EQ(0, cst_softirq_sum(&r->ev[0]));
	cst_close(&s);
	free(r);
	free(ri);
}

CST_TEST_MAIN
