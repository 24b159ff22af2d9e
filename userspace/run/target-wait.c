// SPDX-License-Identifier: GPL-2.0
/*
 * target-wait: a pidfd says when a process exits without reaping it, so
 * the workload's wait status and rusage are still there for
 * cxs_workload_wait(); poll() on it (or on nothing, for -a) returns early
 * on the signals that run/signals.c catches.
 */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "run/signals.h"
#include "run/target-wait.h"

/* Without a pidfd, how often to look whether the process is still there. */
#define POLL_STEP_MS	100

void cxs_target_wait_open(struct cxs_target_wait *tw, pid_t pid, bool child)
{
	tw->pid = pid;
	tw->child = child;
	tw->pidfd = -1;
#ifdef SYS_pidfd_open
	if (pid)
		tw->pidfd = syscall(SYS_pidfd_open, pid, 0);
#endif
}

void cxs_target_wait_close(struct cxs_target_wait *tw)
{
	if (tw->pidfd >= 0)
		close(tw->pidfd);
	tw->pidfd = -1;
}

/*
 * An exited process its parent has not reaped yet is a zombie: state 'Z'
 * after the last ')' of /proc/PID/stat (the name may hold one).
 */
static bool zombie(pid_t pid)
{
	char path[32], line[512], *p = NULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f))
		p = strrchr(line, ')');
	fclose(f);
	return p && p[1] == ' ' && p[2] == 'Z';
}

static bool process_gone(const struct cxs_target_wait *tw)
{
	struct pollfd pfd = { .fd = tw->pidfd, .events = POLLIN };
	siginfo_t si;

	if (tw->pidfd >= 0)
		return poll(&pfd, 1, 0) > 0;
	if (tw->child) {
		si.si_pid = 0;
		return !waitid(P_PID, tw->pid, &si, WEXITED | WNOHANG | WNOWAIT) &&
		       si.si_pid == tw->pid;
	}
	if (kill(tw->pid, 0))
		return errno != EPERM;
	return zombie(tw->pid);
}

static bool ended(const struct cxs_target_wait *tw)
{
	if (!tw->child && cxs_interrupted())
		return true;
	return tw->pid && process_gone(tw);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Milliseconds to sleep at most: -1 forever, 0 when the deadline passed. */
static int timeout_ms(const struct cxs_target_wait *tw, double deadline_ns)
{
	double left;

	if (deadline_ns < 0)
		return tw->pid && tw->pidfd < 0 ? POLL_STEP_MS : -1;
	left = ceil((deadline_ns - now_ns()) / 1e6);
	if (left <= 0)
		return 0;
	if (tw->pid && tw->pidfd < 0 && left > POLL_STEP_MS)
		return POLL_STEP_MS;
	return left;
}

bool cxs_target_wait_until(struct cxs_target_wait *tw, double deadline_ns)
{
	struct pollfd pfd = { .fd = tw->pidfd, .events = POLLIN };
	int ms;

	while (!ended(tw)) {
		ms = timeout_ms(tw, deadline_ns);
		if (!ms)
			return false;
		/* An fd of -1 is ignored: a sleep that a signal ends. */
		poll(&pfd, 1, ms);
	}
	return true;
}
