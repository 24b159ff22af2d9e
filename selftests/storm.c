// SPDX-License-Identifier: GPL-2.0
/*
 * Storms: what users and administrators do to a module in anger.
 *
 * kills: CTX_STORM_KILLS (default 1000, 150 on arm64) ctxstat runs,
 * CTX_STORM_PARALLEL (default 8) at a time, each SIGKILLed at a random
 * moment: some right
 * after fork/exec (before ctxstat could open its socket), some while it
 * sets up, most while its workload runs (a busy loop or sleeps). Then the
 * module must have no live session left and no kernel report.
 *
 * reload: CTX_STORM_CYCLES (default 10) rmmod/insmod cycles of ctxcount.ko
 * while ctxstat runs back to back, a process holds started sessions
 * (re-created after every load) and loopback NIC load runs (ctxload
 * --loopback, when there). rmmod is never refused for live sessions: the
 * module destroys them (their sockets stop getting answers) and unloads.
 * Every ctxstat run must end (counted: completed, or failed because the
 * module went away), the module is loaded again with the same parameters
 * at the end, and no session is left.
 *
 * calibration_client_stops: a client that stops (here: sleeps) between
 * CALIBRATE's STORM_BEGIN and END leaves its CPU the module's 200 kHz
 * timer for at most the calibration's budget (before 7940596 it fired
 * until END, livelocking a CPU where one interrupt outlasts the period).
 * Counted, not timed: the CPU's timer interrupts over a second's sleep
 * (/proc/interrupts) stay within the budget's worth of the storm, the tick
 * and what the CPU took over an equal quiet sleep.
 *
 * kills: CTX_STORM_SECONDS (default 120; 0: no limit) stops starting runs.
 * reload: every ctxstat run ends with 0 or 1 (a run still going after
 * CTX_STORM_HANG_S, default 60 s, is killed and counted as hung, once the
 * state, wchan and kernel stack of each process of its group are printed).
 * calibration_client_stops: the bound is the budget's worth of the storm
 * (100 ms at 200 kHz: 20,000) plus 1,000 ticks plus the quiet sleep's
 * count, and the count must exceed the quiet one by 100 (the storm fired);
 * skipped where the module's kernel-mode calibration measured nothing (the
 * x86 TCG guests). Measured on arm64-6.1: 18,581 (one vCPU) and 18,881
 * (two); with 7940596^'s calib.c 183,463 and 184,973, which fails. Since
 * issue 21 only a privileged client may send CALIBRATE (the test runs as
 * root; fairness checks that an unprivileged one is refused).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

static uint64_t rng_state;

static uint32_t rn(uint32_t n)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return n ? (rng_state * 0x2545F4914F6CDD1DULL) % n : 0;
}

/*
 * ctxstat -e cpu-clock -- ctx_workload ..., in its own process group;
 * the workload sleeping 100 times 10 ms (3 times in 4) or busy for 300
 * ms, or exiting at once with quick. Mostly sleeping: under -icount
 * (arm64) a busy guest's clock runs about 20 times slower than the host's,
 * an idle one's does not. Sleeps of 10 ms, not 1: eight runs of 1 ms
 * sleeps kept a TCG guest on a loaded host taking timer interrupts it was
 * always late for, and a page clear then took long enough for the soft
 * lockup detector (scripts/vm, -erms).
 */
static pid_t spawn_ctxstat(bool quiet, bool quick)
{
	static char spin[] = "spin", sleeps[] = "sleeps", ms[] = "300", n[] = "100";
	static char ex[] = "exit", zero[] = "0", ten[] = "10";
	char *argv[] = { (char *)cst_ctxstat_path(), "-e", "cpu-clock,task-clock:t",
			 "--", (char *)cst_workload_path(), sleeps, n, ten, NULL };
	pid_t pid;

	if (quick) {
		argv[5] = ex;
		argv[6] = zero;
		argv[7] = NULL;
	} else if (!rn(4)) {
		argv[5] = spin;
		argv[6] = ms;
		argv[7] = NULL;
	}
	pid = fork();
	if (pid == 0) {
		setpgid(0, 0);
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);

			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

FIXTURE(storm) {
	int kmsg;
	long base;
};

FIXTURE_SETUP(storm)
{
	self->kmsg = cst_kmsg_open();
	self->base = cst_live_sessions();
	ASSERT_LE(0, self->base);
	rng_state = env_long("CTX_STORM_SEED", 0);
	if (!rng_state)
		rng_state = time(NULL) ^ ((uint64_t)getpid() << 20);
}

FIXTURE_TEARDOWN(storm)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

struct slot {
	pid_t pid;
	double kill_at;
};

/*
 * Random delay, from the time setup takes here (setup s: ctxstat with a
 * workload that exits at once): 20 % at once (before ctxstat could open its
 * socket), 30 % while it sets up, 50 % while the workload runs.
 */
static double kill_delay(double setup)
{
	uint32_t r = rn(100);

	if (r < 20)
		return 0;
	if (r < 50)
		return setup * rn(1000) / 1000;
	return setup + rn(600000) / 1e6;
}

/* Wall time of a whole ctxstat run whose workload exits at once. */
static double setup_time(void)
{
	double t = cst_now();
	pid_t pid = spawn_ctxstat(true, true);

	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		return 0.1;
	return cst_now() - t;
}

/*
 * The arm64 test-bed guest runs under -icount, where a busy guest's clock
 * runs about 20 times slower than the host's: a ctxstat run there costs
 * about a second of host time, so 1,000 would take 15 minutes of make
 * check. 150 there; CTX_STORM_KILLS=1000 for the full count.
 */
#ifdef __aarch64__
#define STORM_KILLS 150
#else
#define STORM_KILLS 1000
#endif

/*
 * CTX_STORM_SECONDS (default 120, 0: no limit) stops starting runs, for a
 * loaded machine.
 */
TEST_F_TIMEOUT(storm, kills, 3600)
{
	long total = env_long("CTX_STORM_KILLS", STORM_KILLS);
	long budget = env_long("CTX_STORM_SECONDS", 120);
	int par = env_long("CTX_STORM_PARALLEL", 8);
	long started = 0, done = 0, by_kill = 0, exited = 0, max_live = 0;
	struct slot slots[32];
	double t0 = cst_now(), next_poll = 0, setup, next_report = t0 + 30;
	bool cut = false;
	int i, status;
	long live;
	/*
	 * setup is one run's alone; eight at a time on a busy host take far
	 * longer (x86_64-7.2 beside three other guests: 622 runs, every one
	 * killed before its session existed). While no kill has caught a
	 * session alive, every 16 runs the delays double, to 32 times.
	 */
	double stretch = 1;

	if (access(cst_ctxstat_path(), X_OK))
		SKIP(return, "ctxstat not found at %s", cst_ctxstat_path());
	setup = setup_time();
	if (par < 1)
		par = 1;
	if (par > 32)
		par = 32;
	memset(slots, 0, sizeof(slots));
	fflush(stdout);
	fflush(stderr);
	while (done < started || started < total) {
		double now = cst_now();

		if (!cut && budget > 0 && now - t0 > budget && started < total) {
			cut = true;
			total = started;
		}

		for (i = 0; i < par; i++) {
			struct slot *sl = &slots[i];

			if (!sl->pid && started < total) {
				sl->pid = spawn_ctxstat(true, false);
				ASSERT_LT(0, sl->pid);
				sl->kill_at = cst_now() + kill_delay(setup * stretch);
				started++;
				if (!max_live && !(started % 16) && stretch < 32)
					stretch *= 2;
				if (sl->kill_at <= cst_now())
					kill(sl->pid, SIGKILL);
			} else if (sl->pid && now >= sl->kill_at) {
				kill(sl->pid, SIGKILL);
			}
			if (sl->pid && waitpid(sl->pid, &status, WNOHANG) == sl->pid) {
				/* its workload must not outlive the storm */
				kill(-sl->pid, SIGKILL);
				if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
					by_kill++;
				else
					exited++;
				sl->pid = 0;
				done++;
			}
		}
		if (now >= next_poll) {
			live = cst_live_sessions();
			if (live - self->base > max_live)
				max_live = live - self->base;
			next_poll = now + 0.25;
		}
		if (now >= next_report) {
			ksft_print_msg("storm: %.0f s: %ld runs started, %ld ended\n",
				       now - t0, started, done);
			next_report = now + 30;
		}
		usleep(1000);
	}
	/* reap the workloads that were killed with their groups */
	while (waitpid(-1, NULL, WNOHANG) > 0)
		;
	live = cst_wait_live_sessions(self->base, 5000);
	ksft_print_msg("storm: %ld ctxstat runs in %.1f s (%d at a time, a run's setup %.0f ms, delays x%.0f)%s: %ld SIGKILLed, %ld ended before the kill; up to %ld live sessions seen; %ld left at the end\n",
		       total, cst_now() - t0, par, setup * 1000, stretch,
		       cut ? " (cut short by CTX_STORM_SECONDS)" : "",
		       by_kill, exited, max_live, live - self->base);
	EXPECT_EQ(self->base, live);
	EXPECT_LT(0, by_kill);
	/* some kills must have caught a session alive, or nothing was tested */
	EXPECT_LT(0, max_live);
}

/* Holds n started sessions on itself, re-creating them whenever the module
 * comes back; exits when killed. */
static pid_t spawn_holder(int n)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	for (;;) {
		struct cst_res *r = calloc(1, sizeof(*r));
		struct cst_sock s;
		int i;

		if (!r)
			_exit(1);
		if (cst_open(&s)) {
			free(r);
			usleep(50000);
			continue;
		}
		for (i = 0; i < n; i++) {
			if (cst_new(&s, getpid(), 0, &ev_cpu_clock, 1, r, NULL))
				break;
			cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL);
		}
		/* count until the module goes away, then start over */
		while (!cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, r, NULL)) {
			cst_spin_ms(5);
			usleep(20000);
		}
		cst_close(&s);
		free(r);
	}
}


struct runner_stats {
	long runs, ok, failed, other, hung;
	int last_other;			/* wait status of the last "other" */
};

/* Runs ctxstat back to back until *stop; counts the outcomes. */
static pid_t spawn_runner(struct runner_stats *st, volatile int *stop)
{
	/* Seconds after which a run counts as hung; small to try the report. */
	long hang_s = env_long("CTX_STORM_HANG_S", 60);
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid)
		return pid;
	while (!*stop) {
		double end = cst_now() + hang_s;
		pid_t c = spawn_ctxstat(true, true);
		int status = 0;

		if (c < 0)
			_exit(1);
		while (waitpid(c, &status, WNOHANG) != c) {
			if (cst_now() > end) {
				cst_report_hung("storm", c);
				kill(-c, SIGKILL);
				waitpid(c, &status, 0);
				st->hung++;
				break;
			}
			usleep(5000);
		}
		kill(-c, SIGKILL);
		st->runs++;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			st->ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			st->failed++;
		else {
			st->other++;
			st->last_other = status;
		}
	}
	_exit(0);
}

TEST_F_TIMEOUT(storm, reload, 1200)
{
	long cycles = env_long("CTX_STORM_CYCLES", 10);
	const char *ctxload = cst_ctxload_path();
	struct runner_stats *st;
	volatile int *stop;
	char params[256], first[512];
	pid_t holder, runner, load = 0;
	long c, busy = 0;
	double t0;
	int ret, status;

	if (access(cst_ko_path(), R_OK))
		SKIP(return, "%s not readable: could not load the module again",
		     cst_ko_path());
	if (access(cst_ctxstat_path(), X_OK))
		SKIP(return, "ctxstat not found at %s", cst_ctxstat_path());
	cst_current_params(params, sizeof(params));
	st = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, st);
	memset(st, 0, 4096);
	stop = (volatile int *)(st + 1);

	if (!access(ctxload, X_OK)) {
		char *argv[] = { (char *)ctxload, "--loopback", "--rate", "2000",
				 "--seconds", "900", "--allow-no-load", "--",
				 "/bin/sleep", "900", NULL };

		fflush(stdout);
		load = fork();
		if (load == 0) {
			int fd = open("/dev/null", O_WRONLY);

			setpgid(0, 0);
			dup2(fd, 1);
			dup2(fd, 2);
			execv(argv[0], argv);
			_exit(127);
		}
		ASSERT_LT(0, load);
		setpgid(load, load);
	} else {
		TH_LOG("no %s: reloading without NIC load", ctxload);
	}
	holder = spawn_holder(3);
	ASSERT_LT(0, holder);
	runner = spawn_runner(st, stop);
	ASSERT_LT(0, runner);
	usleep(500000);

	t0 = cst_now();
	for (c = 0; c < cycles; c++) {
		/* let sessions appear on the fresh module */
		usleep(100000 + rn(400000));
		ret = cst_rmmod();
		if (ret == -EBUSY || ret == -EAGAIN) {
			busy++;
			continue;
		}
		ASSERT_EQ(0, ret) TH_LOG("cycle %ld: rmmod ctxcount: %s", c, strerror(-ret));
		usleep(rn(200000));
		ret = cst_insmod(params);
		ASSERT_EQ(0, ret) TH_LOG("cycle %ld: insmod %s %s: %s", c,
					 cst_ko_path(), params, strerror(-ret));
		EXPECT_EQ(0, cst_kmsg_reports(self->kmsg, first, sizeof(first)))
			TH_LOG("cycle %ld: kernel report: %s", c, first);
	}
	*stop = 1;
	ASSERT_EQ(runner, waitpid(runner, &status, 0));
	kill(holder, SIGKILL);
	waitpid(holder, NULL, 0);
	if (load > 0) {
		kill(-load, SIGKILL);
		waitpid(load, NULL, 0);
	}
	if (!cst_module_loaded())
		ASSERT_EQ(0, cst_insmod(params));
	ksft_print_msg("storm: %ld rmmod/insmod cycles in %.1f s (%ld rmmod refused busy)%s; ctxstat runs meanwhile: %ld (%ld completed, %ld failed with the module gone, %ld other, %ld hung)\n",
		       cycles - busy, cst_now() - t0, busy,
		       load > 0 ? " under loopback NIC load" : "",
		       st->runs, st->ok, st->failed, st->other, st->hung);
	EXPECT_EQ(0, st->hung);
	EXPECT_EQ(0, st->other) TH_LOG("ctxstat ended neither with 0 nor with 1: wait status 0x%x",
				       st->last_other);
	EXPECT_LT(0, cycles - busy);
	EXPECT_EQ(0, cst_wait_live_sessions(0, 5000));
	munmap(st, 4096);
}

/* module/calib.c: the user-mode storm's period and deadline */
#define CALIB_PERIOD_NS		5000
#define CALIB_BUDGET_NS		100000000LL
/* the tick, at most HZ 1000, per second */
#define TICKS_PER_S		1000

#if defined(__aarch64__)
#define TIMER_ROW "arch_timer"
#else
#define TIMER_ROW "LOC:"
#endif

/* @cpu's timer interrupts over a second's sleep of the caller. */
static long long timer_irqs_over_sleep(int cpu)
{
	struct timespec ts = { .tv_sec = 1 };
	long long n0 = cst_cpu_interrupts(TIMER_ROW, cpu);

	while (nanosleep(&ts, &ts) && errno == EINTR)
		;
	return cst_cpu_interrupts(TIMER_ROW, cpu) - n0;
}

/*
 * A session of the caller with a quiet calibration run done, as a
 * privileged ctxstat does once; its id, 0 when the test cannot go on
 * (logged, or @why set). User mode is measured once per module load
 * (-EEXIST: a module loaded again has not).
 */
static uint32_t quiet_calibrated(struct __test_metadata *_metadata,
				 struct cst_sock *s, struct cst_res *r,
				 const char **why)
{
	static const struct cst_ev ev[] = {
		CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
		CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
	};
	char params[256];
	int err = -EAGAIN, tries;

	for (tries = 0; tries < 5 && err; tries++) {
		if (err == -EEXIST) {
			cst_close(s);
			cst_current_params(params, sizeof(params));
			if (cst_rmmod() || cst_insmod(params) || cst_open(s))
				return 0;
		}
		if (cst_new(s, getpid(), 0, ev, 2, r, NULL))
			return 0;
		err = cst_calibrate_step(s, r->id, CTXCOUNT_CALIBRATE_QUIET_BEGIN);
		if (!err) {
			cst_loop(200000);
			err = cst_calibrate_step(s, r->id, CTXCOUNT_CALIBRATE_END);
		}
		if (err)
			cst_cmd(s, CTXCOUNT_CMD_SESSION_DEL, r->id, NULL, NULL);
	}
	TH_LOG("quiet calibration run: %s", err ? strerror(-err) : "done");
	/*
	 * The module measures kernel mode at load; where it measured nothing
	 * (no PMU: x86 TCG; a load under heavy load) CALIBRATE starts no
	 * storm.
	 */
	if (err == -ENODEV)
		*why = "the module measured no event at load here (ENODEV): CALIBRATE starts no storm";
	return err ? 0 : r->id;
}

TEST_F_TIMEOUT(storm, calibration_client_stops, 600)
{
	const long long budget = CALIB_BUDGET_NS / CALIB_PERIOD_NS;
	struct cst_res *r = calloc(1, sizeof(*r));
	int cpu = sched_getcpu(), err;
	long long quiet, storm, limit;
	const char *why = NULL;
	cpu_set_t old, one;
	struct cst_sock s;
	uint32_t id;

	ASSERT_NE(NULL, r);
	if (cst_cpu_interrupts(TIMER_ROW, cpu) < 0)
		SKIP(free(r); return, "no %s line in /proc/interrupts", TIMER_ROW);
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(old), &old));
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(one), &one));
	ASSERT_EQ(0, cst_open(&s));
	id = quiet_calibrated(_metadata, &s, r, &why);
	if (!id) {
		cst_close(&s);
		sched_setaffinity(0, sizeof(old), &old);
		free(r);
		if (why)
			SKIP(return, "%s", why);
		ASSERT_NE(0, id);
	}
	quiet = timer_irqs_over_sleep(cpu);
	ASSERT_EQ(0, cst_calibrate_step(&s, id, CTXCOUNT_CALIBRATE_STORM_BEGIN));
	storm = timer_irqs_over_sleep(cpu);
	/* switched out meanwhile: -EAGAIN, the run does not count */
	err = cst_calibrate_step(&s, id, CTXCOUNT_CALIBRATE_END);
	cst_close(&s);
	sched_setaffinity(0, sizeof(old), &old);
	limit = budget + TICKS_PER_S + quiet;
	ksft_print_msg("storm: CPU %d's timer interrupts over 1 s of sleep: %lld quiet, %lld after STORM_BEGIN (limit %lld: %lld of the storm's budget, %d ticks, the quiet count); END: %s\n",
		       cpu, quiet, storm, limit, budget, TICKS_PER_S,
		       err ? strerror(-err) : "ok");
	EXPECT_GE(limit, storm);
	/* and the storm did fire: at least 100 in its 100 ms */
	EXPECT_LT(quiet + 100, storm);
	free(r);
}

CST_TEST_MAIN
