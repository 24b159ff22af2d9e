// SPDX-License-Identifier: GPL-2.0
/*
 * perf-only: the table is perf 6.1's stat_options (tools/perf/builtin-stat.c)
 * less what ctxstat does.
 */
#include "options/perf-only.h"
#include "util/util.h"

const struct cxs_perf_only cxs_perf_only[] = {
	{ "transaction",	'T', no_argument, "no transaction events" },
	{ "filter",		0, required_argument, NULL },
	{ "tid",		't', required_argument,
	  "the ctxcount module counts a process with all its threads (-p)" },
	{ "bpf-prog",		'b', required_argument, NULL },
	{ "bpf-counters",	0, no_argument, NULL },
	{ "bpf-attr-map",	0, required_argument, NULL },
	{ "no-scale",		0, no_argument,
	  "counts are always scaled, as perf stat scales them by default" },
	{ "table",		0, no_argument, NULL },
	{ "detailed",		'd', no_argument, NULL },
	{ "cgroup",		'G', required_argument, NULL },
	{ "for-each-cgroup",	0, required_argument, NULL },
	{ "log-fd",		0, required_argument, NULL },
	{ "pre",		0, required_argument, NULL },
	{ "post",		0, required_argument, NULL },
	{ "interval-clear",	0, no_argument, NULL },
	{ "timeout",		0, required_argument, NULL },
	{ "delay",		'D', required_argument, NULL },
	{ "metric-only",	0, no_argument, "no metric groups" },
	{ "metric-no-group",	0, no_argument, "no metric groups" },
	{ "metric-no-merge",	0, no_argument, "no metric groups" },
	{ "topdown",		0, no_argument, "no metric groups" },
	{ "td-level",		0, required_argument, "no metric groups" },
	{ "smi-cost",		0, no_argument, NULL },
	{ "metrics",		'M', required_argument, "no metric groups" },
	{ "all-kernel",		0, no_argument, "use :k on the events" },
	{ "all-user",		0, no_argument, "use :u on the events" },
	{ "percore-show-thread", 0, no_argument, NULL },
	{ "cputype",		0, required_argument, NULL },
	{ "pfm-events",		0, required_argument, NULL },
	{ "control",		0, required_argument, NULL },
	{ "iostat",		0, optional_argument, NULL },
	{ "hybrid-merge",	0, no_argument, NULL },
};

const size_t cxs_nr_perf_only = ARRAY_SIZE(cxs_perf_only);

const struct cxs_perf_only *cxs_perf_only_letter(int letter)
{
	size_t i;

	for (i = 0; letter && i < cxs_nr_perf_only; i++)
		if (cxs_perf_only[i].letter == letter)
			return &cxs_perf_only[i];
	return NULL;
}

int cxs_perf_only_err(const struct cxs_perf_only *p, char *err, size_t len)
{
	return cxs_err(err, len, "perf option not supported by ctxstat: --%s%s%s%s",
		       p->name, p->why ? " (" : "", p->why ?: "",
		       p->why ? ")" : "");
}
