/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_run: processes the selftests start: a forked function held until
 * released (so that a session can name its pid first), and programs
 * (ctxstat, perf, ctxload) run with their output captured.
 */
#ifndef CST_RUN_H
#define CST_RUN_H

#include <stdbool.h>
#include <sys/types.h>

#include "cst_work.h"

/* cst_loop(*(uint64_t *)iters), for cst_child_fork() and cst_perf_count(). */
void cst_loop_fn(void *iters);
/* dd's kernel-mode copies (/dev/zero to /dev/null, 1 GiB), for cst_child_fork(). */
void cst_dd_fn(void *arg);

struct cst_child {
	pid_t pid;
	int go_fd;
};

/* Fork a child that waits for cst_child_go() then runs fn(arg) and exits 0. */
int cst_child_fork(struct cst_child *c, void (*fn)(void *), void *arg);
int cst_child_go(struct cst_child *c);
/* waitpid; returns the wait status or -1 */
int cst_child_wait(struct cst_child *c);

/* 2 MiB: allocate it (a -A run on 64 CPUs prints hundreds of KiB). */
struct cst_run {
	int status;		/* wait status; -1 if it could not run */
	bool timed_out;
	char out[1 << 20];	/* stdout */
	char err[1 << 20];	/* stderr */
};

/*
 * A run that does not end: say where each process of group @pgid waits
 * (state, wchan, kernel stack) before it is killed, so that a hang seen
 * once names its place. Lines start with "# @who: ".
 */
void cst_report_hung(const char *who, pid_t pgid);

/*
 * Run argv (argv[0] a path), capture output, kill after timeout_s (and
 * say first where its processes wait: cst_report_hung()).
 */
int cst_run(struct cst_run *r, char *const argv[], int timeout_s);
/* Same, dropping to uid/gid first (uid < 0: stay root). */
int cst_run_as(struct cst_run *r, char *const argv[], int timeout_s,
	       int uid, int gid);

/*
 * Run fn(arg) in a child as uid/gid (no supplementary groups, dumpable);
 * its result (0..125) comes back, or -errno (-EPERM: could not drop
 * privileges, -ECHILD: killed). Results beyond a number go through
 * MAP_SHARED memory.
 */
int cst_call_as(int uid, int gid, int (*fn)(void *), void *arg);
/*
 * Become uid/gid in this process: no supplementary groups, dumpable as a
 * user's own process is. 0 or -errno.
 */
int cst_become(int uid, int gid);

/* A row of perf stat's or ctxstat's CSV output (-x SEP). */
struct cst_csv_row {
	int nfields;
	char f[12][160];	/* fields as printed */
	bool numeric;		/* f[0] is a number */
	double value;		/* f[0] when numeric */
};

/* Find the row whose event field (the 3rd) is event; 0 or -ENOENT. */
int cst_csv_find(const char *text, char sep, const char *event,
		 struct cst_csv_row *row);

#endif /* CST_RUN_H */
