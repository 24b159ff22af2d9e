// SPDX-License-Identifier: GPL-2.0
/*
 * cli tests: the built ctxstat binary, end to end, for everything that
 * needs no kernel module: usage errors, event errors, the module-missing
 * message, and exit status pass-through with -n (null run).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#ifndef CTXSTAT_BIN
#define CTXSTAT_BIN "./ctxstat"
#endif

/* Run ctxstat with @argv; its stderr (and stdout) into @out. */
static int ctxstat(char *const argv[], char *out, size_t len)
{
	int pfd[2], status;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe(pfd))
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(pfd[1], 1);
		dup2(pfd[1], 2);
		close(pfd[0]);
		execv(CTXSTAT_BIN, argv);
		_exit(200);
	}
	close(pfd[1]);
	while (got + 1 < len && (n = read(pfd[0], out + got, len - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	waitpid(pid, &status, 0);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

#define RUN(...) ctxstat((char *const[]){ "ctxstat", __VA_ARGS__, NULL }, \
			 out, sizeof(out))

TEST(usage_error_exits_129)
{
	char out[8192];

	EXPECT_EQ(129, RUN("--bogus", "true"));
	EXPECT_NE(NULL, strstr(out, "Error: unknown option `bogus'"));
	EXPECT_NE(NULL, strstr(out, "Usage: ctxstat"));
	EXPECT_EQ(129, RUN("-r", "0", "true"));
	EXPECT_EQ(129, ctxstat((char *const[]){ "ctxstat", NULL }, out, sizeof(out)));
}

TEST(unknown_event_exits_129)
{
	char out[8192];

	EXPECT_EQ(129, RUN("-e", "cycles,instrucitons:t", "true"));
	EXPECT_NE(NULL, strstr(out, "ctxstat: unknown event 'instrucitons'; did you mean 'instructions'?"));
}

TEST(help_and_list)
{
	char out[16384];

	EXPECT_EQ(0, RUN("--help"));
	EXPECT_NE(NULL, strstr(out, ":tu = task context, user mode"));
	EXPECT_EQ(0, RUN("--list"));
	EXPECT_NE(NULL, strstr(out, "L1-dcache-load-misses"));
}

/* The host cannot load modules; where the family exists, skip. */
TEST(module_not_loaded)
{
	char out[8192];
	int rc = RUN("-e", "cycles", "true");

	if (rc == 0)
		SKIP(return, "ctxcount is loaded here");
	EXPECT_EQ(1, rc);
	EXPECT_NE(NULL, strstr(out, "ctxstat: kernel module not loaded; load it with `sudo insmod module/ctxcount.ko` (or `modprobe ctxcount`)"));
}

TEST(null_run_passes_exit_status)
{
	char out[8192];

	EXPECT_EQ(0, RUN("-n", "true"));
	EXPECT_NE(NULL, strstr(out, " Performance counter stats for 'true':\n\n"));
	EXPECT_NE(NULL, strstr(out, " seconds time elapsed\n\n"));
	EXPECT_NE(NULL, strstr(out, " seconds user\n"));
	EXPECT_EQ(3, RUN("-n", "sh", "-c", "exit 3"));
	EXPECT_EQ(128 + 15, RUN("-n", "sh", "-c", "kill -TERM $$"));
	EXPECT_EQ(127, RUN("-n", "/nonexistent/cmd"));
	EXPECT_NE(NULL, strstr(out, "cannot run '/nonexistent/cmd'"));
}

TEST(null_run_repeat_and_output_file)
{
	char path[] = "/tmp/ctxstat-cli-XXXXXX", out[8192], file[4096];
	int fd = mkstemp(path);
	ssize_t n;

	ASSERT_GE(fd, 0);
	EXPECT_EQ(0, RUN("-n", "-r", "3", "-o", path, "true"));
	n = read(fd, file, sizeof(file) - 1);
	ASSERT_GT(n, 0);
	file[n] = '\0';
	EXPECT_NE(NULL, strstr(file, "Performance counter stats for 'true' (3 runs):"));
	EXPECT_NE(NULL, strstr(file, " seconds time elapsed"));
	EXPECT_NE(NULL, strstr(file, " +- "));
	EXPECT_EQ(NULL, strstr(out, "Performance counter stats"));
	close(fd);
	unlink(path);
}

TEST_HARNESS_MAIN
