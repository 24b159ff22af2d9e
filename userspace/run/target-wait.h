/* SPDX-License-Identifier: GPL-2.0 */
/*
 * target-wait: wait for the end of what a run measures: the workload's
 * exit, the -p process's exit or, for -p and -a, Ctrl-C; without a
 * deadline, or until one (ctxstat -I reads the session in between).
 */
#ifndef CTXSTAT_RUN_TARGET_WAIT_H
#define CTXSTAT_RUN_TARGET_WAIT_H

#include <stdbool.h>
#include <sys/types.h>

struct cxs_target_wait {
	pid_t pid;	/* 0: until Ctrl-C */
	bool child;	/* the workload: ends when it exits, not on Ctrl-C */
	int pidfd;	/* -1: none (kernels before 5.3) */
};

/* What to wait for: process @pid (0: none), ctxstat's own @child or not. */
void cxs_target_wait_open(struct cxs_target_wait *tw, pid_t pid, bool child);
void cxs_target_wait_close(struct cxs_target_wait *tw);

/*
 * Wait until the end, or until @deadline_ns of CLOCK_MONOTONIC (negative:
 * none). True at the end. A child that exited is left to be reaped.
 */
bool cxs_target_wait_until(struct cxs_target_wait *tw, double deadline_ns);

#endif
