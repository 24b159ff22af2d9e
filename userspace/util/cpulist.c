// SPDX-License-Identifier: GPL-2.0
/*
 * cpulist: "0,2-3" lists. The syntax is libperf's perf_cpu_map__new():
 * numbers and ascending ranges separated by commas; perf reports any
 * other text as "failed to parse CPUs map".
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/cpulist.h"
#include "util/util.h"

static int parse_cpu(const char **p, int *cpu, char *err, size_t errlen)
{
	char *end;
	long v;

	if (!isdigit((unsigned char)**p))
		return cxs_err(err, errlen, "failed to parse CPUs map");
	errno = 0;
	v = strtol(*p, &end, 10);
	if (errno || v >= CXS_MAX_CPUS)
		return cxs_err(err, errlen,
			       "Requested CPU %.*s too large (ctxstat takes CPUs below %d)",
			       (int)(end - *p), *p, CXS_MAX_CPUS);
	*p = end;
	*cpu = v;
	return 0;
}

int cxs_cpulist_parse(struct cxs_cpulist *l, const char *s,
		      char *err, size_t errlen)
{
	char seen[CXS_MAX_CPUS];
	const char *p = s;
	int lo, hi, c;

	memset(seen, 0, sizeof(seen));
	l->nr = 0;
	for (;;) {
		if (parse_cpu(&p, &lo, err, errlen))
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi, err, errlen))
				return -1;
			if (hi < lo)
				return cxs_err(err, errlen, "failed to parse CPUs map");
		}
		for (c = lo; c <= hi; c++)
			seen[c] = 1;
		if (!*p)
			break;
		if (*p++ != ',')
			return cxs_err(err, errlen, "failed to parse CPUs map");
	}
	for (c = 0; c < CXS_MAX_CPUS; c++)
		if (seen[c])
			l->cpu[l->nr++] = c;
	return 0;
}

int cxs_cpulist_read_text(struct cxs_cpulist *l, const char *path,
			  char *text, size_t len)
{
	FILE *f = fopen(path, "r");
	char err[64];
	size_t n;

	if (!f)
		return -errno;
	n = fread(text, 1, len - 1, f);
	fclose(f);
	text[n] = '\0';
	text[strcspn(text, "\n")] = '\0';
	return cxs_cpulist_parse(l, text, err, sizeof(err)) ? -EINVAL : 0;
}

int cxs_cpulist_read(struct cxs_cpulist *l, const char *path)
{
	char buf[4096];

	return cxs_cpulist_read_text(l, path, buf, sizeof(buf));
}

bool cxs_cpulist_has(const struct cxs_cpulist *l, int cpu)
{
	int i;

	for (i = 0; i < l->nr; i++)
		if (l->cpu[i] == cpu)
			return true;
	return false;
}
