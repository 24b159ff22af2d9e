// SPDX-License-Identifier: GPL-2.0
/*
 * check: which options go together (perf's refusals and ctxstat's
 * own), the defaults that depend on others (no target: system wide), and
 * compare's two commands. The options themselves are read by options/args.c.
 */
#include <stdbool.h>
#include <string.h>

#include "options/args.h"
#include "options/perf-only.h"
#include "stats/ab-test.h"
#include "util/util.h"

/*
 * -I prints one run as it goes: several runs would print their intervals
 * one after the other with nothing to average.
 */
static int check_interval(struct cxs_args *a, char *err, size_t errlen)
{
	if (a->summary && !a->interval_ms)
		return cxs_err(err, errlen, "--summary needs -I");
	/* perf's words */
	if (a->interval_count && !a->interval_ms)
		return cxs_err(err, errlen,
			       "interval-count option should be used together with interval-print.");
	if (!a->interval_ms)
		return 0;
	if (a->repeat > 1 || a->repeat_until || a->forever)
		return cxs_err(err, errlen,
			       "-I prints the intervals of one run: -r and --repeat-until do not apply");
	if (a->null_run)
		return cxs_err(err, errlen, "-n counts nothing to print every interval");
	if (a->save)
		return cxs_err(err, errlen, "--save keeps whole runs: not with -I");
	return 0;
}

/*
 * -A: perf's refusal without -a/-C. One run's CPUs: nothing to average
 * or save per CPU (ctxstat's choice; perf prints per-CPU means).
 */
static int check_no_aggr(struct cxs_args *a, char *err, size_t errlen)
{
	if (!a->no_aggr)
		return 0;
	if (!a->system_wide)
		return cxs_err(err, errlen,
			       "both cgroup and no-aggregation modes only available in system-wide mode");
	if (a->repeat > 1 || a->repeat_until || a->forever)
		return cxs_err(err, errlen,
			       "%s prints the CPUs of one run: -r and --repeat-until do not apply",
			       cxs_aggr_option(a->aggr));
	if (a->save)
		return cxs_err(err, errlen, "--save keeps whole runs' totals: not with %s",
			       cxs_aggr_option(a->aggr));
	return 0;
}

/*
 * --per-thread: perf's rule (builtin-stat.c: task events of -p's or every
 * thread, none of -C's CPUs nor of a workload alone), then what ctxstat
 * has not got with threads' rows yet.
 */
static int check_per_thread(struct cxs_args *a, char *err, size_t errlen)
{
	if (!cxs_args_per_thread(a))
		return 0;
	if (a->cpu_list)
		return cxs_err(err, errlen,
			       "--per-thread and -C are exclusive: --per-thread needs -p or -a, as in perf (task events, not CPU counters)");
	if (!a->pid && !a->system_wide)
		return cxs_err(err, errlen,
			       "--per-thread needs -p or -a, as in perf: not a command alone (-a --per-thread -- <command>)");
	if (a->interval_ms)
		return cxs_err(err, errlen, "--per-thread and -I are exclusive (not yet supported)");
	if (a->repeat > 1 || a->repeat_until || a->forever)
		return cxs_err(err, errlen,
			       "--per-thread prints the threads of one run: -r and --repeat-until do not apply");
	if (a->irq_sources)
		return cxs_err(err, errlen,
			       "--per-thread and --irq-sources are exclusive: the module has no sources per thread");
	if (a->save)
		return cxs_err(err, errlen, "--save keeps whole runs' totals: not with --per-thread");
	return 0;
}

double cxs_args_threshold(const struct cxs_args *a)
{
	return a->threshold >= 0 ? a->threshold : CXS_THRESHOLD_PCT;
}

const char *cxs_aggr_option(enum cxs_aggr mode)
{
	static const char *const names[] = {
		[CXS_AGGR_NONE] = "-A", [CXS_AGGR_CORE] = "--per-core",
		[CXS_AGGR_DIE] = "--per-die", [CXS_AGGR_SOCKET] = "--per-socket",
		[CXS_AGGR_NODE] = "--per-node", [CXS_AGGR_CLUSTER] = "--per-cluster",
		[CXS_AGGR_CACHE] = "--per-cache", [CXS_AGGR_THREAD] = "--per-thread",
	};

	return mode < ARRAY_SIZE(names) && names[mode] ? names[mode] : "";
}

/* Combinations that perf rejects too, or that would leave nothing to count. */
static int check_combinations(struct cxs_args *a, char *err, size_t errlen)
{
	if (a->help || a->list || a->version)
		return 0;
	if (a->field_sep && a->json)
		return cxs_err(err, errlen, "-x and -j are exclusive");
	if (a->pid && a->system_wide)
		return cxs_err(err, errlen, a->cpu_list ? "-p and -C are exclusive" :
				       "-p and -a are exclusive");
	/* perf: no command and no target is system wide, until Ctrl-C */
	if (!a->cmd && !a->pid && !a->system_wide && !a->null_run)
		a->system_wide = a->all_cpus = a->implied_all = true;
	if (!a->cmd && !a->pid && !a->system_wide)
		return cxs_err(err, errlen,
			       "a command, -p <pid> or -a is required");
	if ((a->repeat > 1 || a->forever) && !a->cmd)
		return cxs_err(err, errlen,
			       "--repeat needs a command to repeat");
	if (a->threshold >= 0)
		return cxs_err(err, errlen,
			       "--threshold is compare's and report's: a single series has no verdict");
	if (a->warmup && !a->cmd)
		return cxs_err(err, errlen, "--warmup needs a command to run");
	if (a->forever && (a->repeat_until || a->save))
		return cxs_err(err, errlen,
			       "-r 0 repeats until Ctrl-C, printing each run: --repeat-until and --save do not apply");
	if (a->null_run && a->nr_event_specs)
		return cxs_err(err, errlen, "-n and -e are exclusive");
	if (a->repeat_until && !a->cmd)
		return cxs_err(err, errlen,
			       "--repeat-until needs a command to repeat");
	if (a->repeat_event && !a->repeat_until)
		return cxs_err(err, errlen,
			       "--repeat-event needs --repeat-until");
	if (a->null_run && (a->repeat_until || a->save))
		return cxs_err(err, errlen,
			       "-n counts nothing to repeat on or save");
	if (a->nr_pids > 1 && a->irq_sources)
		return cxs_err(err, errlen,
			       "--irq-sources with several pids: each session numbers its sources apart");
	if (a->null_run && a->irq_sources)
		return cxs_err(err, errlen,
			       "-n counts nothing to split by interrupt source");
	if (check_per_thread(a, err, errlen) || check_no_aggr(a, err, errlen))
		return -1;
	return check_interval(a, err, errlen);
}

/*
 * perf stat record: -o is the data file (perf.data by default), the
 * counts still print to stderr, but for "-o -" (perf's pipe mode). A round per run: -r's runs are kept,
 * but not -r 0's endless ones (perf refuses -r with record altogether),
 * and -I's intervals are not recorded.
 */
static int check_record(struct cxs_args *a, char *err, size_t errlen)
{
	a->record_file = a->output ?: "perf.data";
	a->output = NULL;
	/* perf prints nothing when it records to the pipe */
	if (!strcmp(a->record_file, "-"))
		a->quiet = true;
	if (a->append)
		return cxs_err(err, errlen,
			       "--append: record writes its data file whole");
	if (a->forever)
		return cxs_err(err, errlen,
			       "Cannot use -r 0 with stat record: the file would never be complete");
	if (a->interval_ms)
		return cxs_err(err, errlen,
			       "-I with stat record is not supported by ctxstat: it records whole runs");
	if (a->null_run)
		return cxs_err(err, errlen, "-n counts nothing to record");
	return 0;
}

int cxs_args_parse(struct cxs_args *a, int argc, char **argv,
		   char *err, size_t errlen)
{
	if (cxs_args_read(a, argc, argv, err, errlen))
		return -1;
	/* its own options, read by ctxstat report */
	if (a->report)
		return 0;
	if (a->record && !a->help && !a->list && !a->version &&
	    check_record(a, err, errlen))
		return -1;
	return check_combinations(a, err, errlen);
}

/* The first option given that compare has no use for, or NULL. */
static const char *compare_refuses(const struct cxs_args *a)
{
	const struct { bool given; const char *name; } opts[] = {
		{ a->pid, "-p" }, { a->cpu_list, "-C" },
		{ a->system_wide, "-a" },
		{ a->no_aggr || cxs_args_per_thread(a), cxs_aggr_option(a->aggr) },
		{ a->null_run, "-n" }, { a->json, "-j" },
		{ a->interval_ms, "-I" }, { a->interval_count, "--interval-count" },
		{ a->summary, "--summary" }, { a->no_csv_summary, "--no-csv-summary" },
		{ a->forever, "-r 0" }, { a->no_inherit, "-i" },
		{ a->quiet, "--quiet" }, { a->list, "--list" },
		{ a->irq_sources, "--irq-sources" }, { a->breakdown, "--breakdown" },
		{ a->record, "stat record" }, { a->report, "stat report" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(opts); i++)
		if (opts[i].given)
			return opts[i].name;
	return NULL;
}

static int split_commands(struct cxs_args *a, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < a->cmd_argc && strcmp(a->cmd[i], "---"); i++)
		;
	if (i == a->cmd_argc)
		return cxs_err(err, errlen,
			       "two commands are needed: <command A> --- <command B>");
	if (i == 0 || i == a->cmd_argc - 1)
		return cxs_err(err, errlen, "empty command %s around '---'",
			       i ? "B" : "A");
	a->cmd[i] = NULL;
	a->cmd_b = &a->cmd[i + 1];
	a->cmd_b_argc = a->cmd_argc - i - 1;
	a->cmd_argc = i;
	return 0;
}

/* "a,b" with a and b different (report keeps a configuration once). */
static bool two_labels(const char *label)
{
	const char *comma = strchr(label, ',');

	return comma && (strlen(comma + 1) != (size_t)(comma - label) ||
			 strncmp(label, comma + 1, comma - label));
}

int cxs_args_parse_compare(struct cxs_args *a, int argc, char **argv,
			   char *err, size_t errlen)
{
	if (cxs_args_read(a, argc, argv, err, errlen)) {
		if (a->perf_only_option && cxs_perf_only_selects_target(a->perf_only_option))
			return cxs_err(err, errlen,
				       "compare runs two commands: --%s does not apply",
				       a->perf_only_option->name);
		return -1;
	}
	a->compare = true;
	if (a->help)
		return 0;
	if (compare_refuses(a))
		return cxs_err(err, errlen, "compare runs two commands: %s does not apply",
			       compare_refuses(a));
	if (!a->cmd)
		return cxs_err(err, errlen,
			       "two commands are needed: <command A> --- <command B>");
	if (split_commands(a, err, errlen))
		return -1;
	if (!a->repeat_set)
		a->repeat = CXS_COMPARE_DEFAULT_RUNS;
	if (a->repeat < 2)
		return cxs_err(err, errlen,
			       "compare needs at least 2 runs of each command");
	if (a->repeat_event && !a->repeat_until)
		return cxs_err(err, errlen,
			       "--repeat-event needs --repeat-until");
	if (a->label && !two_labels(a->label))
		return cxs_err(err, errlen,
			       "--label for compare is '<A label>,<B label>', two different names");
	return 0;
}
