// SPDX-License-Identifier: GPL-2.0
/*
 * workload tests with real processes: the child must not run before it is
 * released, exit codes and signals map as the shell (and perf) do, and a
 * failed exec or a kill leaves nothing behind.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "run/workload.h"

static int run(char **argv, int *status)
{
	struct cxs_workload w;
	struct rusage ru;
	int err;

	err = cxs_workload_prepare(&w, argv);
	if (err)
		return err;
	err = cxs_workload_start(&w);
	if (cxs_workload_wait(&w, status, &ru))
		return -ECHILD;
	return err;
}

TEST(exit_codes)
{
	char *ok[] = { "true", NULL };
	char *three[] = { "sh", "-c", "exit 3", NULL };
	int status;

	ASSERT_EQ(0, run(ok, &status));
	EXPECT_EQ(0, cxs_exit_code(status));
	ASSERT_EQ(0, run(three, &status));
	EXPECT_EQ(3, cxs_exit_code(status));
}

TEST(killed_by_signal_is_128_plus_sig)
{
	char *term[] = { "sh", "-c", "kill -TERM $$", NULL };
	char *segv[] = { "sh", "-c", "kill -SEGV $$", NULL };
	int status;

	ASSERT_EQ(0, run(term, &status));
	EXPECT_TRUE(WIFSIGNALED(status));
	EXPECT_EQ(128 + SIGTERM, cxs_exit_code(status));
	ASSERT_EQ(0, run(segv, &status));
	EXPECT_EQ(128 + SIGSEGV, cxs_exit_code(status));
}

TEST(blocked_until_released)
{
	char path[] = "/tmp/ctxstat-workload-XXXXXX";
	char script[128];
	char *argv[] = { "sh", "-c", script, NULL };
	struct cxs_workload w;
	struct rusage ru;
	struct stat st;
	int fd, status;

	fd = mkstemp(path);
	ASSERT_GE(fd, 0);
	close(fd);
	unlink(path);
	snprintf(script, sizeof(script), "echo ran > %s", path);
	ASSERT_EQ(0, cxs_workload_prepare(&w, argv));
	ASSERT_GT(w.pid, 0);
	usleep(200 * 1000);
	/* Forked but held: the command has not run. */
	EXPECT_EQ(-1, stat(path, &st));
	EXPECT_EQ(0, kill(w.pid, 0));
	ASSERT_EQ(0, cxs_workload_start(&w));
	ASSERT_EQ(0, cxs_workload_wait(&w, &status, &ru));
	EXPECT_EQ(0, cxs_exit_code(status));
	EXPECT_EQ(0, stat(path, &st));
	unlink(path);
}

TEST(exec_failure_is_reported)
{
	char *argv[] = { "/nonexistent/ctxstat-test", NULL };
	int status;

	EXPECT_EQ(-ENOENT, run(argv, &status));
	EXPECT_EQ(127, cxs_exit_code(status));
}

TEST(kill_reaps_child)
{
	char *argv[] = { "sleep", "10", NULL };
	struct cxs_workload w;
	pid_t pid;

	ASSERT_EQ(0, cxs_workload_prepare(&w, argv));
	pid = w.pid;
	cxs_workload_kill(&w);
	EXPECT_EQ(0, w.pid);
	/* Reaped: no zombie left to wait for. */
	EXPECT_EQ(-1, waitpid(pid, NULL, WNOHANG));
	EXPECT_EQ(ECHILD, errno);

	/* Also after release, while it runs. */
	ASSERT_EQ(0, cxs_workload_prepare(&w, argv));
	pid = w.pid;
	ASSERT_EQ(0, cxs_workload_start(&w));
	cxs_workload_kill(&w);
	EXPECT_EQ(-1, waitpid(pid, NULL, WNOHANG));
}

TEST_HARNESS_MAIN
