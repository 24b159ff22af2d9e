// SPDX-License-Identifier: GPL-2.0
/*
 * workload: fork the command blocked on a pipe, release it to exec once the
 * counters are set up, reap it, and turn its status into an exit code.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "run/signals.h"
#include "run/workload.h"

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/* In the child: wait for the go byte, then become the command. */
static void __attribute__((noreturn)) run_child(int go_rd, int err_wr,
						 char **argv)
{
	char c;
	int e;

	/* No go byte (ctxstat failed or died before release): do not run. */
	while (read(go_rd, &c, 1) != 1) {
		if (errno != EINTR)
			_exit(127);
	}
	close(go_rd);
	execvp(argv[0], argv);
	e = errno;
	if (write(err_wr, &e, sizeof(e)) != sizeof(e))
		_exit(127);
	_exit(127);
}

int cxs_workload_prepare(struct cxs_workload *w, char **argv)
{
	int go[2], err[2];
	pid_t pid;

	w->pid = 0;
	w->go_fd = w->err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(err, O_CLOEXEC)) {
		int e = -errno;

		close(go[0]);
		close(go[1]);
		return e;
	}
	pid = fork();
	if (pid < 0) {
		int e = -errno;

		close(go[0]); close(go[1]); close(err[0]); close(err[1]);
		return e;
	}
	if (pid == 0) {
		close(go[1]);
		close(err[0]);
		run_child(go[0], err[1], argv);
	}
	close(go[0]);
	close(err[1]);
	w->pid = pid;
	w->go_fd = go[1];
	w->err_fd = err[0];
	return 0;
}

int cxs_workload_start(struct cxs_workload *w)
{
	char go = 1;
	int e = 0;
	ssize_t n;

	if (write(w->go_fd, &go, 1) != 1) {
		e = -errno;
		close_fd(&w->go_fd);
		return e;
	}
	close_fd(&w->go_fd);
	/* The error pipe is close-on-exec: EOF means exec succeeded. */
	do {
		n = read(w->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close_fd(&w->err_fd);
	if (n == sizeof(e))
		return -e;
	return 0;
}

int cxs_workload_wait(struct cxs_workload *w, int *status, struct rusage *ru)
{
	pid_t r;

	do {
		r = wait4(w->pid, status, 0, ru);
	} while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	w->pid = 0;
	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	return 0;
}

void cxs_workload_kill(struct cxs_workload *w)
{
	int status;

	close_fd(&w->go_fd);
	close_fd(&w->err_fd);
	if (w->pid <= 0)
		return;
	kill(w->pid, SIGKILL);
	while (waitpid(w->pid, &status, 0) < 0 && errno == EINTR)
		;
	w->pid = 0;
}

int cxs_exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

void cxs_status_text(int status, char *buf, size_t len)
{
	if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by %s%s",
			 cxs_signal_name(WTERMSIG(status)),
			 WCOREDUMP(status) ? " (core dumped)" : "");
	else
		snprintf(buf, len, "exited with status %d", cxs_exit_code(status));
}
