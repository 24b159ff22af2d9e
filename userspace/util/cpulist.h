/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpulist: CPU lists in perf's and the kernel's syntax ("0,2-3"), as -C
 * takes them and /sys/devices/system/cpu/{online,possible} hold them.
 */
#ifndef CTXSTAT_UTIL_CPULIST_H
#define CTXSTAT_UTIL_CPULIST_H

#include <stdbool.h>
#include <stddef.h>

/* The highest CPU number + 1 ctxstat takes; perf's MAX_NR_CPUS is 2048. */
#define CXS_MAX_CPUS	4096

/* A set of CPUs, in increasing order, each once. */
struct cxs_cpulist {
	int nr;
	int cpu[CXS_MAX_CPUS];
};

/*
 * Parse @s ("0,2-3", ranges ascending) into @l, sorted, duplicates
 * merged as perf merges them. 0, or -1 with the reason in @err.
 */
int cxs_cpulist_parse(struct cxs_cpulist *l, const char *s,
		      char *err, size_t errlen);

/* Read a list file such as /sys/devices/system/cpu/online: 0 or -errno. */
int cxs_cpulist_read(struct cxs_cpulist *l, const char *path);
/* The same, the file's list also kept as text in @text (@len bytes) */
int cxs_cpulist_read_text(struct cxs_cpulist *l, const char *path,
			  char *text, size_t len);

bool cxs_cpulist_has(const struct cxs_cpulist *l, int cpu);

#endif
