// SPDX-License-Identifier: GPL-2.0
/*
 * cst_race: perf's teardown of a monitored task's events raced against
 * the module (see cst_race.h; why each part is there: teardown.c).
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "cst_kern.h"
#include "cst_race.h"
#include "cst_sys.h"

#define NOBODY		65534
#define PREEMPT_KNOB	"/sys/kernel/debug/sched/preempt"
/* The FIFO task's delays after the wake-up: 0 to 3.75 ms. */
#define DELAY_STEP_US	250
#define DELAY_STEPS	16

const struct cst_ev cst_race_events[CST_RACE_NEV] = {
	CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
	CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
	CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
	CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
};

/* The current mode of PREEMPT_KNOB ("none voluntary (full)") into @mode. */
static int preempt_mode(char *mode, size_t len)
{
	char buf[128], *lp, *rp;

	errno = 0;
	if (cst_read_text(PREEMPT_KNOB, buf, sizeof(buf)) <= 0)
		return errno ? -errno : -EIO;
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

	return cst_read_text("/proc/cmdline", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "preempt=full");
}

int cst_preempt_full(char *saved, size_t len)
{
	char mode[16];
	int err;

	saved[0] = 0;
	/*
	 * PREEMPT_RT kernels are preemptible everywhere already; the knob
	 * needs SCHED_DEBUG too, which a kernel may not have: boot it with
	 * preempt=full then (the debug kernel's suite does).
	 */
	if (cst_kernel_is_rt() || booted_preempt_full())
		return 0;
	err = preempt_mode(mode, sizeof(mode));
	if (!err)
		err = preempt_set("full");
	if (!err)
		snprintf(saved, len, "%s", mode);
	return err;
}

int cst_preempt_restore(const char *saved)
{
	return saved[0] ? preempt_set(saved) : 0;
}

int cst_pin_cpu(int cpu)
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

/*
 * One task of the session's tree whose teardown races: it owns
 * @a->owned_events events, wakes the FIFO poker, and execs the unreadable
 * workload as nobody (or exits). Exit codes 20 and up: setup failed.
 */
static void race_task(const struct cst_race *a, unsigned int round)
{
	rlim_t nofile = a->owned_events + 256;
	struct rlimit rl = { nofile, nofile };
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
	for (i = 0; i < a->owned_events; i++)
		if (own_event() >= 0)
			opened++;
	if (opened < a->owned_events / 2)
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

int cst_race_round(const struct cst_race *a, unsigned int round)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid)
		race_task(a, round);
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : status;
}
