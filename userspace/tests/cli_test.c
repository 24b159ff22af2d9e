// SPDX-License-Identifier: GPL-2.0
/*
 * cli tests: the built ctxstat binary, end to end, for everything that
 * needs no kernel module: usage errors, event errors, the module-missing
 * message, and exit status pass-through with -n (null run).
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "run_ctxstat.h"
#include "comma_locale.h"
#include "run/module.h"


#define RUN(...) run_ctxstat((char *const[]){ "ctxstat", __VA_ARGS__, NULL }, \
			     NULL, out, sizeof(out))

TEST(usage_error_exits_129)
{
	char out[8192];

	EXPECT_EQ(129, RUN("--bogus", "true"));
	EXPECT_NE(NULL, strstr(out, "Error: unknown option `bogus'"));
	EXPECT_NE(NULL, strstr(out, "Usage: ctxstat"));
	EXPECT_EQ(129, RUN("-r", "x", "true"));
	EXPECT_EQ(129, RUN("-n"));
	/* a perf option ctxstat lacks: named with what to use instead, no usage */
	EXPECT_EQ(129, RUN("--no-scale", "-a"));
	EXPECT_STREQ("ctxstat: perf option not supported by ctxstat: --no-scale (no unscaled counts: a multiplexed counter's count is always scaled to the whole run, as perf scales it by default)\n",
		     out);
	EXPECT_EQ(129, RUN("-G", "foo", "-a"));
	EXPECT_STREQ("ctxstat: perf option not supported by ctxstat: --cgroup (no cgroups: the ctxcount module counts processes; -p takes up to 8, -a every task)\n",
		     out);
	/* a refused combination: the same status, with the usage */
	EXPECT_EQ(129, RUN("--per-thread", "true"));
	EXPECT_NE(NULL, strstr(out, "  Error: --per-thread needs -p or -a, as in perf: not a command alone (-a --per-thread -- <command>)\n"));
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
	EXPECT_EQ(0, RUN("--version"));
	EXPECT_EQ(0, strncmp(out, "ctxstat version ", 16)) TH_LOG("%s", out);
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
	/*
	 * modprobe, or insmod of module/ctxcount.ko beside this build when
	 * the tree has one (a make check run before this one built it).
	 */
	if (strstr(out, "/module/ctxcount.ko`")) {
		EXPECT_NE(NULL, strstr(out, "ctxstat: kernel module not loaded; load it with `sudo insmod /"))
			TH_LOG("%s", out);
	} else {
		EXPECT_NE(NULL, strstr(out, "ctxstat: kernel module not loaded; load it with `sudo modprobe ctxcount`\n"))
			TH_LOG("%s", out);
	}
}

/*
 * Installed, module/ctxcount.ko is no path to load from: modprobe; in a
 * source tree with the module built, insmod of that file, by its path.
 */
TEST(module_load_hint)
{
	char dir[] = "/tmp/ctxstat-tree-XXXXXX", path[128], hint[PATH_MAX + 32];
	FILE *f;

	ASSERT_NE(NULL, mkdtemp(dir));
	cxs_module_load_hint("/usr/local/bin/ctxstat", hint, sizeof(hint));
	EXPECT_STREQ("sudo modprobe ctxcount", hint);
	snprintf(path, sizeof(path), "%s/userspace", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/userspace/build", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/module", dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/userspace/build/ctxstat", dir);
	cxs_module_load_hint(path, hint, sizeof(hint));
	EXPECT_STREQ("sudo modprobe ctxcount", hint);
	snprintf(path, sizeof(path), "%s/module/ctxcount.ko", dir);
	f = fopen(path, "w");
	fclose(f);
	snprintf(path, sizeof(path), "%s/userspace/build/ctxstat", dir);
	cxs_module_load_hint(path, hint, sizeof(hint));
	snprintf(path, sizeof(path), "sudo insmod %s/module/ctxcount.ko", dir);
	EXPECT_STREQ(path, hint);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	if (system(path))
		TH_LOG("%s failed", path);
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

TEST(compare_usage)
{
	char out[16384];

	EXPECT_EQ(129, RUN("compare", "-e", "cpu-clock", "true"));
	EXPECT_NE(NULL, strstr(out, "Error: two commands are needed: <command A> --- <command B>"));
	EXPECT_NE(NULL, strstr(out, "Usage: ctxstat compare [<options>]"));
	EXPECT_EQ(129, RUN("compare", "-p", "1", "true", "---", "true"));
	EXPECT_EQ(0, RUN("compare", "-h"));
	EXPECT_NE(NULL, strstr(out, "ABBA order"));
	EXPECT_NE(NULL, strstr(out, "clocks are slower or faster, counts more or fewer"));
	/* the main help points to the subcommands */
	EXPECT_EQ(0, RUN("-h"));
	EXPECT_NE(NULL, strstr(out, "ctxstat compare [<options>] [--] <command A> --- <command B>"));
	EXPECT_NE(NULL, strstr(out, "--repeat-until <rel>%"));
}

TEST(repeat_event_must_be_counted)
{
	char out[8192];

	EXPECT_EQ(129, RUN("-e", "cpu-clock", "--repeat-until", "1%",
			   "--repeat-event", "cycles", "true"));
	EXPECT_NE(NULL, strstr(out, "--repeat-event cycles: not one of the counted events"));
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	fputs(text, f);
	fclose(f);
}

/* A saved results document with @results ("{...}, {...}"), in @path. */
static void write_results(char *path, size_t len, const char *results)
{
	FILE *f;

	snprintf(path, len, "/tmp/ctxstat-report-%d.json", (int)getpid());
	f = fopen(path, "w");
	fprintf(f, "{\"format\": \"ctxstat-results\", \"version\": 1, \"results\": [\n%s]}\n",
		results);
	fclose(f);
}

TEST(report_files)
{
	char out[16384], path[64];

	write_results(path, sizeof(path),
		" {\"benchmark\": \"hackbench\", \"config\": \"6.1\", \"command\": [\"hackbench\"],"
		"  \"runs\": 3, \"elapsed_ns\": [1, 1, 1],"
		"  \"events\": [{\"name\": \"instructions:t\", \"values\": [100, 102, 98]}]},\n"
		" {\"benchmark\": \"hackbench\", \"config\": \"6.12\", \"command\": [\"hackbench\"],"
		"  \"runs\": 3, \"elapsed_ns\": [1, 1, 1],"
		"  \"events\": [{\"name\": \"instructions:t\", \"values\": [110, 112, 108]}]}\n");
	/* mean 100, sd 2, se 1.1547 (perf's +-), as compare writes them; +10 %: more */
	EXPECT_EQ(0, RUN("report", path));
	EXPECT_NE(NULL, strstr(out, "benchmark  event                    6.1                         6.12\n")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "hackbench  instructions:t  100.0 ± 1.15  110.0 ± 1.15 (+10.00% more)\n")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN("report", "-x,", path));
	EXPECT_NE(NULL, strstr(out, "benchmark,event,6.1 mean,6.1 se,6.1 runs,6.12 mean"));
	EXPECT_EQ(0, RUN("report", "--markdown", path));
	EXPECT_NE(NULL, strstr(out, "| hackbench | instructions:t |"));
	EXPECT_EQ(1, RUN("report", "/nonexistent.json"));
	EXPECT_NE(NULL, strstr(out, "ctxstat report: /nonexistent.json: No such file or directory"));
	EXPECT_EQ(129, RUN("report"));
	EXPECT_NE(NULL, strstr(out, "no results file given"));
	/* -i is perf stat report's: perf's data, not saved results */
	EXPECT_EQ(1, RUN("report", "-i", path));
	EXPECT_NE(NULL, strstr(out, "not perf's data (no PERFILE2 magic)")) TH_LOG("%s", out);
	EXPECT_EQ(129, RUN("report", "-i", path, path));
	EXPECT_NE(NULL, strstr(out, "-i reads perf stat record's data")) TH_LOG("%s", out);
	/* the same (benchmark, configuration) twice: refused, not dropped */
	EXPECT_EQ(1, RUN("report", path, path));
	EXPECT_NE(NULL, strstr(out, "ctxstat report: benchmark 'hackbench', configuration '6.1': in ")) TH_LOG("%s", out);
	write_file(path, "{\"format\": \"ctxstat-results\", \"version\": 7}");
	EXPECT_EQ(1, RUN("report", path));
	EXPECT_NE(NULL, strstr(out, "results format version 7, this ctxstat reads 1"));
	unlink(path);
}

/* Noisy-setup warnings read $CTX_PROCFS_ROOT; -n -r 2 needs no module. */
TEST(noise_warning)
{
	char root[] = "/tmp/ctxstat-proc-XXXXXX", out[8192], path[128];

	ASSERT_NE(NULL, mkdtemp(root));
	snprintf(path, sizeof(path), "%s/sys", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/kernel/nmi_watchdog", root);
	write_file(path, "1\n");
	setenv("CTX_PROCFS_ROOT", root, 1);
	setenv("CTX_SYSFS_ROOT", root, 1);	/* no cpufreq there */
	EXPECT_EQ(0, RUN("-n", "-r", "2", "true"));
	EXPECT_NE(NULL, strstr(out, "ctxstat: warning: the NMI watchdog is on (kernel.nmi_watchdog is 1)"));
	EXPECT_EQ(0, RUN("-n", "-r", "2", "--no-noise-check", "true"));
	EXPECT_EQ(NULL, strstr(out, "warning"));
	/* one run compares nothing: no check */
	EXPECT_EQ(0, RUN("-n", "true"));
	EXPECT_EQ(NULL, strstr(out, "warning"));
	unsetenv("CTX_PROCFS_ROOT");
	unsetenv("CTX_SYSFS_ROOT");
	unlink(path);
	snprintf(path, sizeof(path), "rm -rf '%s'", root);
	system(path);
}

/* ctxstat report under de_DE: the 1004.00 +- 14.16 read as 1. */
TEST(report_comma_locale)
{
	const char *why = comma_locale();
	char out[16384], path[64];

	if (why)
		SKIP(return, "%s", why);
	write_results(path, sizeof(path),
		" {\"benchmark\": \"hackbench\", \"config\": \"6.1\", \"command\": [\"hackbench\"],"
		"  \"runs\": 3, \"elapsed_ns\": [1, 1, 1],"
		"  \"events\": [{\"name\": \"task-clock\", \"values\": [1.01e9, 1.004e9, 0.998e9]}]}\n");
	EXPECT_EQ(0, RUN("report", "-x,", path));
	/* msec as the tables (1.004e9 ns; se 6e6 / sqrt(3) ns), with a point */
	EXPECT_NE(NULL, strstr(out, "\nhackbench,task-clock,1004,3.46410161513775,3\n")) TH_LOG("%s", out);
	EXPECT_EQ(0, RUN("report", path));
	/* the table for people: each figure in its unit, a comma per locale */
	EXPECT_NE(NULL, strstr(out, "1,004s ± 3,46ms")) TH_LOG("%s", out);
	unlink(path);
}

/*
 * On a terminal, repeated runs show which run is going on, on one line
 * rewritten in place and cleared before the counts (-n needs no module).
 */
TEST(progress_on_a_terminal)
{
	char out[8192], *pts;
	int master, status, n, got = 0;
	pid_t pid;

	master = posix_openpt(O_RDWR | O_NOCTTY);
	ASSERT_GE(master, 0);
	ASSERT_EQ(0, grantpt(master));
	ASSERT_EQ(0, unlockpt(master));
	pts = ptsname(master);
	ASSERT_NE(NULL, pts);
	pid = fork();
	if (pid == 0) {
		int slave = open(pts, O_RDWR | O_NOCTTY);

		dup2(slave, 2);
		execl(CTXSTAT_BIN, "ctxstat", "-n", "-r", "3", "-o", "/dev/null",
		      "true", (char *)NULL);
		_exit(200);
	}
	/* read until the child is gone and the terminal has nothing left */
	for (;;) {
		struct pollfd p = { .fd = master, .events = POLLIN };

		if (poll(&p, 1, 2000) <= 0)
			break;
		n = read(master, out + got, sizeof(out) - 1 - got);
		if (n <= 0)
			break;
		got += n;
	}
	out[got] = '\0';
	waitpid(pid, &status, 0);
	close(master);
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status));
	EXPECT_NE(NULL, strstr(out, "[ ctxstat: run 1 of 3 ]\r")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "[ ctxstat: run 2 of 3 ]\r[ ctxstat: run 3 of 3 ]\r"));
	/* cleared: spaces over it, back to the line's start */
	ASSERT_GT(got, 24);
	EXPECT_STREQ("                       \r", out + got - 24);
}

/*
 * ctxstat quiesce runs scripts/quiesce (installed beside ctxstat as
 * libexec/ctxstat/quiesce); here on an empty fake sysfs/procfs, where it
 * finds nothing to change.
 */
TEST(quiesce_subcommand)
{
	char root[] = "/tmp/ctxstat-quiesce-XXXXXX", out[8192], cmd[96];

	ASSERT_NE(NULL, mkdtemp(root));
	setenv("CTX_PROCFS_ROOT", root, 1);
	setenv("CTX_SYSFS_ROOT", root, 1);
	EXPECT_EQ(3, RUN("quiesce", "--", "sh", "-c", "exit 3"));
	EXPECT_NE(NULL, strstr(out, "quiesce: not changed: ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "/kernel/nmi_watchdog: absent")) TH_LOG("%s", out);
	EXPECT_EQ(129, RUN("quiesce", "--bogus"));
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	system(cmd);
}

TEST_HARNESS_MAIN
