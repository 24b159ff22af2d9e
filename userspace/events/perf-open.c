// SPDX-License-Identifier: GPL-2.0
/*
 * perf-open: the kernel's perf interface as events/proof.c uses it, in a file
 * of its own so that host tests of the runs link a fake kernel instead
 * (tests/fake_nl.c).
 */
#include <limits.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "events/proof.h"

int cxs_perf_event_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, pid, cpu, group_fd,
			    flags);
}

int cxs_perf_event_paranoid(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
	int v;

	if (!f)
		return INT_MAX;
	if (fscanf(f, "%d", &v) != 1)
		v = INT_MAX;
	fclose(f);
	return v;
}
