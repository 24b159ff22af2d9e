// SPDX-License-Identifier: GPL-2.0
/*
 * cst_kern: what the running kernel reports about itself (see
 * cst_kern.h): its log, interrupt counts, kind, symbols and irq threads.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "cst_kern.h"

long cst_tracepoint_id(const char *event)
{
	static const char *const roots[] = {
		"/sys/kernel/tracing/events", "/sys/kernel/debug/tracing/events",
	};
	char path[256];
	unsigned int i;
	long id = -1;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s/id", roots[i], event);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%ld", &id) != 1)
			id = -1;
		fclose(f);
	}
	return id;
}

int cst_kmsg_open(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return -1;
	lseek(fd, 0, SEEK_END);
	return fd;
}

int cst_kmsg_reports(int fd, char *first, size_t len)
{
	static const char *const pats[] = {
		"WARNING:", "BUG:", "Oops", "kernel BUG", "general protection",
		"Call trace:", "Call Trace:", "UBSAN:", "KASAN:",
		"possible circular locking", "possible recursive locking",
		"suspicious RCU usage", "inconsistent lock state",
		"scheduling while atomic", "sleeping function called",
		"refcount_t:", "list_add corruption", "list_del corruption",
		"kmemleak:", "INFO: task",
	};
	char rec[8192];
	int found = 0;
	unsigned int i;

	if (first && len)
		first[0] = 0;
	if (fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(fd, rec, sizeof(rec) - 1);
		char *msg;

		if (n < 0) {
			if (errno == EPIPE)	/* overwritten records */
				continue;
			break;
		}
		if (n == 0)
			break;
		rec[n] = 0;
		msg = strchr(rec, ';');
		msg = msg ? msg + 1 : rec;
		for (i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
			if (strstr(msg, pats[i])) {
				if (!found && first && len)
					snprintf(first, len, "%s", msg);
				found++;
				break;
			}
		}
	}
	return found;
}

/* The number of CPU columns in /proc/interrupts' header @line. */
static int header_cpus(const char *line)
{
	const char *p = line;
	int ncpu = 0;

	while ((p = strstr(p, "CPU"))) {
		ncpu++;
		p += 3;
	}
	return ncpu;
}

/*
 * The count of CPU column @cpu of a /proc/interrupts @line, or the sum of
 * its @ncpu columns when @cpu < 0; -1 when the line has no such column.
 */
static long long row_count(const char *line, int ncpu, int cpu)
{
	const char *p = strchr(line, ':');
	long long sum = 0;
	int i;

	if (!p)
		return -1;
	p++;
	for (i = 0; i < ncpu; i++) {
		char *end;
		unsigned long long v = strtoull(p, &end, 10);

		if (end == p)
			break;
		if (i == cpu)
			return v;
		sum += v;
		p = end;
	}
	return cpu < 0 ? sum : -1;
}

unsigned long long cst_total_interrupts(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	unsigned long long total = 0;
	char line[4096];
	long long v;
	int ncpu = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f))
		ncpu = header_cpus(line);
	while (fgets(line, sizeof(line), f)) {
		/* ERR: and MIS: are not per-CPU counts of delivered irqs */
		if (strstr(line, "ERR:") || strstr(line, "MIS:"))
			continue;
		v = row_count(line, ncpu, -1);
		if (v > 0)
			total += v;
	}
	fclose(f);
	return total;
}

long long cst_cpu_interrupts(const char *name, int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	long long n = -1, v;
	char line[4096];
	int ncpu = 0;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		ncpu = header_cpus(line);
	while (fgets(line, sizeof(line), f)) {
		if (!strstr(line, name))
			continue;
		v = row_count(line, ncpu, cpu);
		if (v >= 0)
			n = (n < 0 ? 0 : n) + v;
	}
	fclose(f);
	return n;
}

int cst_irq_number(const char *name)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	int irq = -1;

	if (!f)
		return -1;
	while (irq < 0 && fgets(line, sizeof(line), f))
		if (strstr(line, name) && sscanf(line, " %d:", &irq) != 1)
			irq = -1;
	fclose(f);
	return irq;
}

long long cst_irq_cpu_count(int irq, int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096];
	long long n = -1;
	int ncpu = 0, i;

	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f))
		ncpu = header_cpus(line);
	while (n < 0 && fgets(line, sizeof(line), f))
		if (sscanf(line, " %d:", &i) == 1 && i == irq)
			n = row_count(line, ncpu, cpu);
	fclose(f);
	return n;
}

unsigned long long cst_softirq_total(const char *name)
{
	FILE *f = fopen("/proc/softirqs", "r");
	unsigned long long total = 0;
	char line[4096];

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char *p = line, *colon = strchr(line, ':');

		while (*p == ' ')
			p++;
		if (!colon || strncmp(p, name, strlen(name)) ||
		    p + strlen(name) != colon)
			continue;
		p = colon + 1;
		for (;;) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

bool cst_kernel_is_rt(void)
{
	struct utsname u;

	return !uname(&u) && strstr(u.version, "PREEMPT_RT");
}

/*
 * Whether the running kernel has a function of this name: /proc/kallsyms
 * lists names even where kptr_restrict hides the addresses.
 */
bool cst_kernel_has_symbol(const char *name)
{
	char line[512], sym[256];
	bool found = false;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %255s", sym) == 1 && !strcmp(sym, name);
	fclose(f);
	return found;
}

/* The pids (up to max) of the processes whose comm starts with prefix. */
static int find_comm_prefix(const char *prefix, pid_t *pids, int max)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return 0;
	while (n < max && (de = readdir(d))) {
		char path[300], comm[64] = "";
		FILE *f;

		if (de->d_name[0] < '1' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) &&
		    !strncmp(comm, prefix, strlen(prefix)))
			pids[n++] = atoi(de->d_name);
		fclose(f);
	}
	closedir(d);
	return n;
}

int cst_irq_threads(const char *name, pid_t *pids, int max)
{
	FILE *f = fopen("/proc/interrupts", "r");
	char line[4096], prefix[32];
	int n = 0;

	if (!f)
		return 0;
	while (n < max && fgets(line, sizeof(line), f)) {
		char *p = line;

		while (*p == ' ')
			p++;
		if (*p < '0' || *p > '9' || !strstr(line, name))
			continue;
		/* comm is "irq/N-<name>", cut to 15 characters */
		snprintf(prefix, sizeof(prefix), "irq/%d-", atoi(p));
		n += find_comm_prefix(prefix, pids + n, max - n);
	}
	fclose(f);
	return n;
}

int cst_ksoftirqd_threads(pid_t *pids, int max)
{
	return find_comm_prefix("ksoftirqd/", pids, max);
}
