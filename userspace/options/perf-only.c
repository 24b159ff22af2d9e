// SPDX-License-Identifier: GPL-2.0
/*
 * perf-only: the table is perf 6.1's stat_options (tools/perf/builtin-stat.c)
 * less what ctxstat does (tests/perfonly_test.c checks both), with what to
 * use instead; ctxstat(1) lists it (make -C userspace man).
 */
#include <string.h>

#include "options/perf-only.h"
#include "util/util.h"

/*
 * What each option is not is said by its "instead": ctxstat's nearest
 * option or event syntax, checked against ctxstat(1)'s OPTIONS and
 * EVENTS, or that there is none and why. Entries with the same text share
 * one paragraph in ctxstat(1).
 */
#define NO_CGROUPS \
	"no cgroups: the ctxcount module counts processes; -p takes up to 8, -a every task"
#define NO_HOOKS \
	"no run hooks: run the command before or after ctxstat, or inside the measured command, where it is counted"
#define NO_METRICS \
	"no metrics: ctxstat prints counts and perf's ratios of two events, such as insn per cycle, not metric groups; count a metric's events with -e"

const struct cxs_perf_only cxs_perf_only[] = {
	{ "transaction",	'T', no_argument,
	  "no transaction metrics; count the TSX events by name where the CPU has them, as perf list shows them: -e cpu/tx-start/,cpu/cycles-t/" },
	{ "filter",		0, required_argument,
	  "no event filters: the ctxcount module takes an event's type and config only" },
	{ "tid",		't', required_argument,
	  "use -p pid --per-thread, a row per thread: the ctxcount module counts a process with all its threads" },
	{ "bpf-prog",		'b', required_argument,
	  "no BPF programs: ctxstat counts tasks and CPUs, not a program's runs" },
	{ "bpf-counters",	0, no_argument,
	  "leave it out: ctxstat's counters are the ctxcount module's, not shared through BPF" },
	{ "bpf-attr-map",	0, required_argument,
	  "leave it out: it is the map of --bpf-counters, which ctxstat has no use for" },
	{ "no-scale",		0, no_argument,
	  "no unscaled counts: a multiplexed counter's count is always scaled to the whole run, as perf scales it by default" },
	{ "table",		0, no_argument,
	  "use --save file.json: it keeps every run's wall time and counts" },
	{ "cgroup",		'G', required_argument, NO_CGROUPS },
	{ "for-each-cgroup",	0, required_argument, NO_CGROUPS },
	{ "log-fd",		0, required_argument,
	  "use -o file, with --append to add to it" },
	{ "pre",		0, required_argument, NO_HOOKS },
	{ "post",		0, required_argument, NO_HOOKS },
	{ "interval-clear",	0, no_argument,
	  "no screen clearing: -I prints each interval below the last" },
	{ "timeout",		0, required_argument,
	  "use timeout(1) as the command: ctxstat -- timeout 2 cmd; with -a or -p, sleep 2 as the command" },
	{ "metric-only",	0, no_argument, NO_METRICS },
	{ "metric-no-group",	0, no_argument, NO_METRICS },
	{ "metric-no-merge",	0, no_argument, NO_METRICS },
	{ "topdown",		0, no_argument, NO_METRICS },
	{ "td-level",		0, required_argument, NO_METRICS },
	{ "smi-cost",		0, no_argument,
	  "no SMI cost metric; on x86, -e msr/smi/ counts the SMIs" },
	{ "metrics",		'M', required_argument, NO_METRICS },
	{ "all-kernel",		0, no_argument,
	  "use :k on each event: -e cycles:k,instructions:k" },
	{ "all-user",		0, no_argument,
	  "use :u on each event: -e cycles:u,instructions:u" },
	{ "percore-show-thread", 0, no_argument,
	  "no percore term; --per-core prints a row per core, with -a or -C" },
	{ "cputype",		0, required_argument,
	  "name the PMU in the event, as perf list shows it: -e cpu_atom/instructions/" },
	{ "pfm-events",		0, required_argument,
	  "use perf list's event names, raw codes rNNNN or pmu/term=value/" },
	{ "control",		0, required_argument,
	  "no enable or disable commands: start ctxstat -p pid when the phase begins and send it SIGINT when it ends; it prints the counts" },
	{ "iostat",		0, optional_argument,
	  "no I/O metrics: perf's come from the x86 uncore's IIO counters" },
	{ "hybrid-merge",	0, no_argument,
	  "no merging: count cpu_core/instructions/ and cpu_atom/instructions/ apart and add the two rows" },
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

bool cxs_perf_only_selects_target(const struct cxs_perf_only *p)
{
	static const char *const targets[] = { "tid", "cgroup", "for-each-cgroup" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(targets); i++)
		if (!strcmp(p->name, targets[i]))
			return true;
	return false;
}

int cxs_perf_only_err(const struct cxs_perf_only *p, char *err, size_t len)
{
	return cxs_err(err, len, "perf option not supported by ctxstat: --%s (%s)",
		       p->name, p->instead);
}
