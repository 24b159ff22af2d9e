// SPDX-License-Identifier: GPL-2.0
/*
 * noise: the checks behind ctxstat's noisy-setup warnings. Each names the
 * file it read and what the quiet value would be, so the reader can fix
 * it by hand or with ctxstat quiesce (scripts/quiesce).
 */
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/noise.h"

/* First line of @root/@rel into @buf, newline stripped; -1 if unreadable. */
static int read_setting(const char *root, const char *rel, char *buf,
			size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, len, f)) {
		fclose(f);
		return -1;
	}
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int check_governors(FILE *f, const char *sys)
{
	char pattern[4096], gov[64], first_bad[64] = "";
	int nr_bad = 0;
	size_t i;
	glob_t g;

	snprintf(pattern, sizeof(pattern),
		 "%s/devices/system/cpu/cpu[0-9]*/cpufreq/scaling_governor", sys);
	if (glob(pattern, 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc; i++) {
		FILE *gf = fopen(g.gl_pathv[i], "r");

		if (!gf)
			continue;
		if (fgets(gov, sizeof(gov), gf)) {
			gov[strcspn(gov, "\n")] = '\0';
			if (strcmp(gov, "performance")) {
				if (!nr_bad++)
					snprintf(first_bad, sizeof(first_bad),
						 "%s", gov);
			}
		}
		fclose(gf);
	}
	if (nr_bad)
		fprintf(f, "ctxstat: warning: cpufreq governor '%s', not 'performance', on %d of %zu CPUs: clock changes add noise (ctxstat quiesce sets it)\n",
			first_bad, nr_bad, g.gl_pathc);
	globfree(&g);
	return !!nr_bad;
}

static int check_turbo(FILE *f, const char *sys)
{
	char v[64];

	if (!read_setting(sys, "devices/system/cpu/intel_pstate/no_turbo",
			  v, sizeof(v)) && !strcmp(v, "0")) {
		fprintf(f, "ctxstat: warning: turbo is on (intel_pstate/no_turbo is 0): the clock follows temperature (ctxstat quiesce turns it off)\n");
		return 1;
	}
	if (!read_setting(sys, "devices/system/cpu/cpufreq/boost", v,
			  sizeof(v)) && !strcmp(v, "1")) {
		fprintf(f, "ctxstat: warning: turbo is on (cpufreq/boost is 1): the clock follows temperature (ctxstat quiesce turns it off)\n");
		return 1;
	}
	return 0;
}

static int check_nmi_watchdog(FILE *f, const char *proc)
{
	char v[64];

	if (read_setting(proc, "sys/kernel/nmi_watchdog", v, sizeof(v)) ||
	    !strcmp(v, "0"))
		return 0;
	fprintf(f, "ctxstat: warning: the NMI watchdog is on (kernel.nmi_watchdog is %s): it holds a counter and interrupts the workload (ctxstat quiesce turns it off)\n",
		v);
	return 1;
}

int cxs_noise_check(FILE *f, const char *sysfs, const char *procfs)
{
	return check_governors(f, sysfs) + check_turbo(f, sysfs) +
	       check_nmi_watchdog(f, procfs);
}

int cxs_noise_check_env(FILE *f)
{
	const char *sys = getenv("CTX_SYSFS_ROOT");
	const char *proc = getenv("CTX_PROCFS_ROOT");

	return cxs_noise_check(f, sys && *sys ? sys : "/sys",
			       proc && *proc ? proc : "/proc");
}
