// SPDX-License-Identifier: GPL-2.0
/* run_ctxstat: see run_ctxstat.h. */
#include <fcntl.h>
#include <unistd.h>
#include <sys/wait.h>

#include "run_ctxstat.h"

#ifndef CTXSTAT_BIN
#define CTXSTAT_BIN "./ctxstat"
#endif

int run_ctxstat(char *const argv[], const char *stdout_path, char *out,
		size_t len)
{
	int pfd[2], status, fd;
	char drain[4096];
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		fd = stdout_path ? open(stdout_path, O_WRONLY) : pfd[1];
		if (fd < 0)
			_exit(201);
		dup2(fd, 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(CTXSTAT_BIN, argv);
		_exit(200);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		return -1;
	}
	while (got + 1 < len && (n = read(pfd[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	/*
	 * The rest unread, drained: closing the pipe early would kill a
	 * longer output with SIGPIPE (--help outgrew a test's buffer once)
	 */
	while ((n = read(pfd[0], drain, sizeof(drain))) > 0)
		;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
