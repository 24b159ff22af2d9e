// SPDX-License-Identifier: GPL-2.0
/*
 * noise tests: the noisy-setup warnings against a fake sysfs/procfs tree
 * (the same layout the kernel has), one line per finding, nothing for a
 * quiet setup or for settings that do not exist (a VM).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kselftest_harness.h"
#include "run/noise.h"

FIXTURE(tree) {
	char root[64];
	char sys[96], proc[96];
};

static void put(const char *root, const char *rel, const char *val)
{
	char path[512], cmd[600];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", path);
	if (system(cmd))
		abort();
	f = fopen(path, "w");
	if (!f)
		abort();
	fprintf(f, "%s\n", val);
	fclose(f);
}

FIXTURE_SETUP(tree)
{
	strcpy(self->root, "/tmp/ctxstat-noise-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	snprintf(self->sys, sizeof(self->sys), "%s/sys", self->root);
	snprintf(self->proc, sizeof(self->proc), "%s/proc", self->root);
	mkdir(self->sys, 0755);
	mkdir(self->proc, 0755);
}

FIXTURE_TEARDOWN(tree)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	system(cmd);
}

static int check(FIXTURE_DATA(tree) *self, char **out)
{
	size_t len = 0;
	FILE *f = open_memstream(out, &len);
	int n = cxs_noise_check(f, self->sys, self->proc);

	fclose(f);
	return n;
}

static int lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/* A VM: no cpufreq, no intel_pstate, no nmi_watchdog file: nothing to say. */
TEST_F(tree, nothing_there)
{
	char *out;

	EXPECT_EQ(0, check(self, &out));
	EXPECT_STREQ("", out);
	free(out);
}

TEST_F(tree, noisy_laptop)
{
	char *out;

	put(self->sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "powersave");
	put(self->sys, "devices/system/cpu/cpu1/cpufreq/scaling_governor", "performance");
	put(self->sys, "devices/system/cpu/cpu2/cpufreq/scaling_governor", "powersave");
	put(self->sys, "devices/system/cpu/intel_pstate/no_turbo", "0");
	put(self->proc, "sys/kernel/nmi_watchdog", "1");
	EXPECT_EQ(3, check(self, &out));
	EXPECT_EQ(3, lines(out)) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "ctxstat: warning: cpufreq governor 'powersave', not 'performance', on 2 of 3 CPUs"));
	EXPECT_NE(NULL, strstr(out, "ctxstat: warning: turbo is on (intel_pstate/no_turbo is 0)"));
	EXPECT_NE(NULL, strstr(out, "ctxstat: warning: the NMI watchdog is on (kernel.nmi_watchdog is 1)"));
	free(out);
}

/* acpi-cpufreq: turbo is cpufreq/boost */
TEST_F(tree, boost)
{
	char *out;

	put(self->sys, "devices/system/cpu/cpufreq/boost", "1");
	EXPECT_EQ(1, check(self, &out));
	EXPECT_NE(NULL, strstr(out, "turbo is on (cpufreq/boost is 1)"));
	free(out);
}

/* What scripts/quiesce leaves: nothing to warn about. */
TEST_F(tree, quiet)
{
	char *out;

	put(self->sys, "devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance");
	put(self->sys, "devices/system/cpu/intel_pstate/no_turbo", "1");
	put(self->sys, "devices/system/cpu/cpufreq/boost", "0");
	put(self->proc, "sys/kernel/nmi_watchdog", "0");
	EXPECT_EQ(0, check(self, &out));
	EXPECT_STREQ("", out);
	free(out);
}

/* The environment override the rest of ctxstat uses. */
TEST_F(tree, env_roots)
{
	size_t len = 0;
	char *out;
	FILE *f;

	put(self->proc, "sys/kernel/nmi_watchdog", "1");
	setenv("CTX_SYSFS_ROOT", self->sys, 1);
	setenv("CTX_PROCFS_ROOT", self->proc, 1);
	f = open_memstream(&out, &len);
	EXPECT_EQ(1, cxs_noise_check_env(f));
	fclose(f);
	EXPECT_NE(NULL, strstr(out, "NMI watchdog is on"));
	free(out);
	unsetenv("CTX_SYSFS_ROOT");
	unsetenv("CTX_PROCFS_ROOT");
}

TEST_HARNESS_MAIN
