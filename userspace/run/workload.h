/* SPDX-License-Identifier: GPL-2.0 */
/*
 * workload: the measured command. It is forked first and held blocked on a
 * pipe, so that the session can name its pid before it runs a single
 * instruction of the command; then released to exec, then reaped.
 */
#ifndef CTXSTAT_RUN_WORKLOAD_H
#define CTXSTAT_RUN_WORKLOAD_H

#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

struct cxs_workload {
	pid_t pid;	/* 0 when there is no child */
	int go_fd;	/* write end: one byte releases the child */
	int err_fd;	/* read end: errno of a failed exec, EOF on success */
};

/* Fork a child that waits, then execs @argv. 0 or -errno. */
int cxs_workload_prepare(struct cxs_workload *w, char **argv);

/* Let the child exec. 0, or -errno of a failed exec (child then exits). */
int cxs_workload_start(struct cxs_workload *w);

/*
 * Wait for the child, retrying on EINTR. Fills the wait status and the
 * child's resource usage. 0 or -errno.
 */
int cxs_workload_wait(struct cxs_workload *w, int *status, struct rusage *ru);

/* Kill and reap the child if it is still there (error paths). */
void cxs_workload_kill(struct cxs_workload *w);

/*
 * The shell's convention: the exit code, or 128 + the signal's number
 * (perf 6.1 exits 0 for a command killed by a signal).
 */
int cxs_exit_code(int status);

/* "exited with status 1", "killed by SIGSEGV (core dumped)" */
void cxs_status_text(int status, char *buf, size_t len);

#endif
