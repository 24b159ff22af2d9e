// SPDX-License-Identifier: GPL-2.0
/*
 * scripts/quiesce in a real guest (/ctx/bin/quiesce, or $QUIESCE), on the
 * real sysfs and procfs: the settings it can change here
 * (kernel.randomize_va_space and kernel.perf_event_max_sample_rate in
 * every guest, kernel.nmi_watchdog where it can be turned on) hold the
 * quiet values while the command runs and their old values afterwards,
 * also after SIGINT mid-command; what it cannot change (cpufreq and
 * intel_pstate are absent in these guests, nmi_watchdog in some) is
 * reported. ctxstat's NMI watchdog warning is checked where the watchdog
 * can be on.
 *
 * The exit status is the command's (130 after SIGINT).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NMI_WATCHDOG	"/proc/sys/kernel/nmi_watchdog"
#define ASLR		"/proc/sys/kernel/randomize_va_space"
#define SAMPLE_RATE	"/proc/sys/kernel/perf_event_max_sample_rate"

static const char *quiesce_path(void)
{
	const char *q = getenv("QUIESCE");

	return q && *q ? q : "/ctx/bin/quiesce";
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static int write_long(const char *path, long v)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return -errno;
	fprintf(f, "%ld\n", v);
	return fclose(f) ? -errno : 0;
}

FIXTURE(quiesce) {
	struct cst_run *run;
	int kmsg;
	long aslr, rate, nmi;	/* as the test found them */
	char no_nmi[160];	/* why nmi_watchdog cannot be set to 1, or "" */
};

/*
 * Noisy starting values that differ from the quiet ones, so restoring is
 * visible: ASLR 2, sample rate 10000, watchdog 1 where possible.
 */
FIXTURE_SETUP(quiesce)
{
	self->kmsg = cst_kmsg_open();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	self->aslr = read_long(ASLR);
	self->rate = read_long(SAMPLE_RATE);
	self->nmi = read_long(NMI_WATCHDOG);
	if (access(quiesce_path(), X_OK))
		SKIP(return, "%s not found", quiesce_path());
	if (access("/bin/bash", X_OK))
		SKIP(return, "no bash in this guest");
	ASSERT_EQ(0, write_long(ASLR, 2));
	ASSERT_EQ(0, write_long(SAMPLE_RATE, 10000));
	if (self->nmi < 0)
		snprintf(self->no_nmi, sizeof(self->no_nmi), "%s absent", NMI_WATCHDOG);
	else if (write_long(NMI_WATCHDOG, 1) || read_long(NMI_WATCHDOG) != 1)
		snprintf(self->no_nmi, sizeof(self->no_nmi),
			 "%s cannot be turned on here (no PMU for the hard-lockup detector)",
			 NMI_WATCHDOG);
}

FIXTURE_TEARDOWN(quiesce)
{
	if (self->aslr >= 0)
		write_long(ASLR, self->aslr);
	if (self->rate >= 0)
		write_long(SAMPLE_RATE, self->rate);
	if (self->nmi >= 0)
		write_long(NMI_WATCHDOG, self->nmi);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->run);
}

/* The settings as "aslr rate nmi" */
static void snapshot(char *buf, size_t len)
{
	snprintf(buf, len, "%ld %ld %ld", read_long(ASLR), read_long(SAMPLE_RATE),
		 read_long(NMI_WATCHDOG));
}

TEST_F(quiesce, sets_and_restores)
{
	char *argv[] = { (char *)quiesce_path(), "--", "/bin/cat", ASLR,
			 SAMPLE_RATE, NMI_WATCHDOG, NULL };
	char before[64], after[64], during[64];

	snapshot(before, sizeof(before));
	cst_run(self->run, argv, 60);
	ASSERT_TRUE(WIFEXITED(self->run->status) && !WEXITSTATUS(self->run->status))
		TH_LOG("%s", self->run->err);
	TH_LOG("quiesce said:\n%s", self->run->err);
	snprintf(during, sizeof(during), "0\n1\n%s", self->nmi < 0 ? "" : "0\n");
	EXPECT_STREQ(during, self->run->out);
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
	EXPECT_NE(NULL, strstr(self->run->err, ASLR ": 2 -> 0"));
	EXPECT_NE(NULL, strstr(self->run->err, "restored " ASLR ": 2"));
	EXPECT_NE(NULL, strstr(self->run->err, "restored " SAMPLE_RATE ": 10000"));
}

/*
 * Every setting quiesce knows is either changed or reported as not
 * changed: the ones absent in the guest are named.
 */
TEST_F(quiesce, reports_what_it_cannot_change)
{
	static const char *const sys[] = {
		"cpu0/cpufreq/scaling_governor", "intel_pstate/no_turbo",
		"intel_pstate/min_perf_pct", "cpufreq/boost",
	};
	char *argv[] = { (char *)quiesce_path(), "--", "/bin/true", NULL };
	char path[128], want[160];
	unsigned int i;

	cst_run(self->run, argv, 60);
	ASSERT_TRUE(WIFEXITED(self->run->status) && !WEXITSTATUS(self->run->status))
		TH_LOG("%s", self->run->err);
	for (i = 0; i < sizeof(sys) / sizeof(sys[0]); i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/%s", sys[i]);
		if (!access(path, F_OK))
			continue;
		/* the governors are one line for all CPUs (cpu*)... */
		snprintf(want, sizeof(want), "not changed: /sys/devices/system/cpu/%s",
			 i ? sys[i] : "cpu*/cpufreq/scaling_governor: absent");
		EXPECT_NE(NULL, strstr(self->run->err, want))
			TH_LOG("%s absent, not reported:\n%s", path, self->run->err);
	}
	if (self->nmi < 0) {
		EXPECT_NE(NULL, strstr(self->run->err, "not changed: " NMI_WATCHDOG ": absent"));
	} else if (self->no_nmi[0]) {
		EXPECT_NE(NULL, strstr(self->run->err, NMI_WATCHDOG " is already 0"));
	}
}

TEST_F(quiesce, exit_status_passed_on)
{
	char *argv[] = { (char *)quiesce_path(), "--", "/bin/sh", "-c", "exit 7", NULL };

	cst_run(self->run, argv, 60);
	EXPECT_TRUE(WIFEXITED(self->run->status) && WEXITSTATUS(self->run->status) == 7);
	EXPECT_EQ(2, read_long(ASLR));
}

/* Ctrl-C while the command runs: restored, 130, the command ended. */
TEST_F_TIMEOUT(quiesce, sigint_mid_command, 60)
{
	struct timespec ts = { 0, 50 * 1000 * 1000 };
	char before[64], after[64];
	int status, i, devnull;
	time_t start;
	pid_t pid;

	snapshot(before, sizeof(before));
	pid = fork();
	ASSERT_GE(pid, 0);
	if (pid == 0) {
		devnull = open("/dev/null", O_WRONLY);
		dup2(devnull, 2);
		execl(quiesce_path(), quiesce_path(), "--", "/bin/sleep", "30",
		      (char *)NULL);
		_exit(127);
	}
	/* the sample rate is the last setting written */
	for (i = 0; i < 200 && read_long(SAMPLE_RATE) != 1; i++)
		nanosleep(&ts, NULL);
	ASSERT_EQ(1, read_long(SAMPLE_RATE)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	EXPECT_EQ(0, read_long(ASLR));
	nanosleep(&ts, NULL);
	start = time(NULL);
	ASSERT_EQ(0, kill(pid, SIGINT));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 130)
		TH_LOG("status %#x", status);
	/* Not the command's 30 s: quiesce ended it (a loaded host is slow). */
	EXPECT_LT(time(NULL) - start, 25);
	snapshot(after, sizeof(after));
	EXPECT_STREQ(before, after);
}

/* ctxstat warns about the watchdog, and not under quiesce. */
TEST_F(quiesce, ctxstat_nmi_watchdog_warning)
{
	char *plain[] = { (char *)cst_ctxstat_path(), "-r", "2", "-e", "cpu-clock",
			  "--", "/bin/true", NULL };
	char *quiet[] = { (char *)quiesce_path(), "--", (char *)cst_ctxstat_path(),
			  "-r", "2", "-e", "cpu-clock", "--", "/bin/true", NULL };

	if (self->no_nmi[0])
		SKIP(return, "%s: no watchdog to warn about", self->no_nmi);
	if (access(cst_ctxstat_path(), X_OK))
		SKIP(return, "ctxstat not found at %s", cst_ctxstat_path());
	cst_run(self->run, plain, 60);
	EXPECT_NE(NULL, strstr(self->run->err,
			       "ctxstat: warning: the NMI watchdog is on (kernel.nmi_watchdog is 1)"))
		TH_LOG("%s", self->run->err);
	cst_run(self->run, quiet, 60);
	EXPECT_TRUE(WIFEXITED(self->run->status) && !WEXITSTATUS(self->run->status))
		TH_LOG("%s", self->run->err);
	EXPECT_EQ(NULL, strstr(self->run->err, "NMI watchdog is on"))
		TH_LOG("%s", self->run->err);
	EXPECT_EQ(1, read_long(NMI_WATCHDOG));
}

TEST_HARNESS_MAIN
