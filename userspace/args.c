// SPDX-License-Identifier: GPL-2.0
/*
 * args: turn ctxstat's command line into struct ctx_args. Options follow
 * perf stat's names and letters so that muscle memory carries over;
 * parsing stops at the first non-option (the workload) or at "--".
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ctxcount.h>

#include "args.h"
#include "cpulist.h"
#include "util.h"

enum {
	OPT_BREAKDOWN = 256, OPT_LIST, OPT_REPEAT_UNTIL, OPT_REPEAT_EVENT,
	OPT_SAVE, OPT_NAME, OPT_LABEL, OPT_NO_NOISE_CHECK, OPT_NO_IRQ_ESTIMATE,
	OPT_SUMMARY, OPT_IRQ_SOURCES, OPT_APPEND,
};

static const struct option long_options[] = {
	{ "event",		required_argument,	NULL, 'e' },
	{ "repeat",		required_argument,	NULL, 'r' },
	{ "null",		no_argument,		NULL, 'n' },
	{ "field-separator",	required_argument,	NULL, 'x' },
	{ "json",		no_argument,		NULL, 'j' },
	{ "json-output",	no_argument,		NULL, 'j' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "append",		no_argument,		NULL, OPT_APPEND },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "all-cpus",		no_argument,		NULL, 'a' },
	{ "cpu",		required_argument,	NULL, 'C' },
	{ "no-aggr",		no_argument,		NULL, 'A' },
	{ "interval-print",	required_argument,	NULL, 'I' },
	{ "summary",		no_argument,		NULL, OPT_SUMMARY },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "breakdown",		no_argument,		NULL, OPT_BREAKDOWN },
	{ "list",		no_argument,		NULL, OPT_LIST },
	{ "repeat-until",	required_argument,	NULL, OPT_REPEAT_UNTIL },
	{ "repeat-event",	required_argument,	NULL, OPT_REPEAT_EVENT },
	{ "save",		required_argument,	NULL, OPT_SAVE },
	{ "name",		required_argument,	NULL, OPT_NAME },
	{ "label",		required_argument,	NULL, OPT_LABEL },
	{ "no-noise-check",	no_argument,		NULL, OPT_NO_NOISE_CHECK },
	{ "no-irq-estimate",	no_argument,		NULL, OPT_NO_IRQ_ESTIMATE },
	{ "irq-sources",	optional_argument,	NULL, OPT_IRQ_SOURCES },
	{ NULL, 0, NULL, 0 }
};

void ctx_args_usage(FILE *f)
{
	fputs(
"Usage: ctxstat [<options>] [--] <command> [<args>]\n"
"       ctxstat [<options>] -p <pid> | -a | -C <cpus> [-A] [<command>]\n"
"       ctxstat compare [<options>] [--] <command A> --- <command B>\n"
"       ctxstat report [<options>] <file.json>...\n"
"\n"
"Count perf events of a workload like perf stat, and split every count\n"
"into the contexts it happened in: task, hardirq, softirq (per vector), NMI.\n"
"\n"
"    -e, --event <event>   event to count; repeatable, or a comma list\n"
"    -r, --repeat <n>      run the command n times, print mean and stddev\n"
"    -n, --null            null run: count nothing, time the command only\n"
"    -x, --field-separator <sep>\n"
"                          CSV output with this separator (perf's fields)\n"
"    -j, --json            JSON output, one object per line\n"
"    -o, --output <file>   write the counts to <file> instead of stderr, after\n"
"                          perf's '# started on <date>' line\n"
"        --append          append to the -o file instead of replacing it\n"
"    -p, --pid <pid>       count an existing process (and children it forks)\n"
"                          until it exits or Ctrl-C, or while <command> runs\n"
"    -a, --all-cpus        count every task (system wide); needs CAP_PERFMON\n"
"    -C, --cpu <cpus>      system wide on these CPUs only: perf's list\n"
"                          syntax, e.g. 0,2-3\n"
"    -A, --no-aggr         with -a or -C, a row per CPU (perf's CPU<n>)\n"
"    -I, --interval-print <ms>\n"
"                          print the counts of every <ms> milliseconds (at\n"
"                          least 10) as they go, perf's interval format\n"
"        --summary         with -I, the whole run's counts after the intervals\n"
"    -v, --verbose         more detail: all breakdown rows, kernel errors,\n"
"                          a line per run\n"
"        --breakdown       after each event, one row per context\n"
"        --no-irq-estimate leave in :t what interrupts leave on the task's side\n"
"                          of the counter reads (default: estimated and moved\n"
"                          to an [irq entry/exit estimate] row)\n"
"        --irq-sources[=N] --breakdown with the hardirq row split by interrupt\n"
"                          source, as /proc/interrupts names them (at most N\n"
"                          sources, 1 to 64; default: the module's limit)\n"
"        --list            list the event names ctxstat knows\n"
"        --repeat-until <rel>%\n"
"                          repeat until the relative standard error of the\n"
"                          mean of one event is below <rel>%, at most -r\n"
"                          runs (default 100), at least 3\n"
"        --repeat-event <event>\n"
"                          the event --repeat-until watches (default: the\n"
"                          first one)\n"
"        --save <file.json>\n"
"                          save every run's values (for ctxstat report)\n"
"        --name <name>     benchmark name in the saved file (default: the\n"
"                          command line)\n"
"        --label <label>   configuration name in the saved file (default:\n"
"                          the file name without .json)\n"
"        --no-noise-check  no warnings about a noisy setup (cpufreq\n"
"                          governor, turbo, NMI watchdog) before -r runs\n"
"    -h, --help            this text\n"
"\n"
"Events: perf's names (cycles, instructions, task-clock, page-faults,\n"
"L1-dcache-load-misses, ..., rNNNN raw), with modifiers after ':':\n"
"    t   task context only: leave out everything counted in hardirq,\n"
"        softirq and NMI context (the interrupt handlers that ran while\n"
"        the workload was on the CPU)\n"
"    u   user mode only (as perf's :u: exclude kernel and hypervisor)\n"
"    k   kernel mode only (as perf's :k: exclude user and hypervisor)\n"
"    h   hypervisor (as perf's :h)\n"
"  Combined: :tu = task context, user mode (what the program itself did);\n"
"  :tk = task context, kernel mode (its system calls and page faults, no\n"
"  interrupts); :t = task context, both modes. An event and its :t twin\n"
"  share one counter: the plain row is the full count, the :t row its\n"
"  task-context part.\n"
"\n"
"Without -e: task-clock, task-clock:t, context-switches, cpu-migrations,\n"
"page-faults, cycles, cycles:t, instructions, instructions:t, branches,\n"
"branches:t, branch-misses, branch-misses:t.\n"
"\n"
"--breakdown rows are named '<event> [<context>]', context one of task,\n"
"hardirq, softirq:<VECTOR> (HI, TIMER, NET_TX, NET_RX, BLOCK, IRQ_POLL,\n"
"TASKLET, SCHED, HRTIMER, RCU; only non-zero ones unless -v), nmi (where\n"
"the module has an NMI bucket, or when non-zero). With --irq-sources the\n"
"hardirq row is followed by its sources, largest first, non-zero ones\n"
"unless -v: hardirq:<irq> <name>, hardirq:IPI<n> <description> (arm64),\n"
"hardirq:<vector> (x86, e.g. local_timer), hardirq: outside handlers,\n"
"hardirq: other sources; they add up to the hardirq row.\n"
"\n"
"With -r or --repeat-until, runs whose value is more than 3 scaled MADs\n"
"(1.4826 x median absolute deviation) from the median are reported as\n"
"outliers on stderr; they stay in the mean.\n"
"\n"
"Exit status: the command's (128+N if killed by signal N), 129 for a\n"
"usage error, 1 if counting failed.\n", f);
}

void ctx_args_compare_usage(FILE *f)
{
	fputs(
"Usage: ctxstat compare [<options>] [--] <command A> [<args>] --- <command B> [<args>]\n"
"\n"
"Run A and B alternately in ABBA order (A B B A A B B A ...), -r times\n"
"each (default 10), and print on stdout a summary, per event A's and B's\n"
"mean +- standard deviation, B/A with its 95% confidence interval and a\n"
"verdict, then the full table: means, B - A with its 95% confidence\n"
"interval, p. Verdicts: slower (B counts significantly more), faster\n"
"(less) or no significant change, by Welch's t-test with Holm's correction\n"
"for the number of events compared. For an event and its :t twin it says\n"
"which one separates A from B with fewer runs.\n"
"\n"
"    -e, --event <event>   event to compare; repeatable, or a comma list\n"
"    -r, --repeat <n>      runs per command (default 10; with\n"
"                          --repeat-until the most it makes)\n"
"        --repeat-until <rel>%\n"
"                          stop once A and B both have a relative standard\n"
"                          error below <rel>% on --repeat-event (at least 3\n"
"                          runs each)\n"
"        --repeat-event <event>\n"
"                          the event --repeat-until watches (default: first)\n"
"    -x, --field-separator <sep>\n"
"                          CSV, a line per event: event, A mean, B mean,\n"
"                          B - A, CI low, CI high, p, df, verdict, runs to\n"
"                          separate, A runs, B runs, A sd, B sd, B/A, B/A\n"
"                          CI low, B/A CI high, p (Holm); clocks in msec\n"
"    -o, --output <file>   write the comparison to <file> instead of stdout\n"
"        --append          append to the -o file instead of replacing it\n"
"        --save <file.json>\n"
"                          save every run of A and B (for ctxstat report)\n"
"        --name <name>     benchmark name in the saved file\n"
"        --label <a>,<b>   configuration names in the saved file (A,B)\n"
"        --no-noise-check  no warnings about a noisy setup\n"
"    -v, --verbose         more detail: a line per run\n"
"    -h, --help            this text\n"
"\n"
"More counts are slower, for every event. Runs to separate: the fewest\n"
"runs per side from which on Welch's p stays below 0.05 / the number of\n"
"events compared (Holm's first step).\n", f);
}

static int parse_percent(const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	/* 0.5% whatever LC_NUMERIC says, as in the examples */
	v = strtod_l(s, &end, ctx_c_locale() ?: LC_GLOBAL_LOCALE);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end || !(v > 0 && v < 100))
		return -1;
	*out = v;
	return 0;
}

static int parse_positive(const char *s, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 1 || v > max)
		return -1;
	*out = v;
	return 0;
}

/* -C: system wide on a CPU list, as perf's -C (checked for syntax here). */
static int check_cpu_list(struct ctx_args *a, const char *arg,
			  char *err, size_t errlen)
{
	struct ctx_cpulist *l = malloc(sizeof(*l));
	int ret;

	if (!l)
		return ctx_err(err, errlen, "out of memory");
	ret = ctx_cpulist_parse(l, arg, err, errlen);
	free(l);
	if (ret)
		return ret;
	a->cpu_list = arg;
	a->system_wide = true;
	return 0;
}

/* --irq-sources[=N]: a breakdown with the hardirq row split by source. */
static int parse_irq_sources(struct ctx_args *a, const char *arg,
			     char *err, size_t errlen)
{
	long v = 0;

	if (arg && parse_positive(arg, CTXCOUNT_MAX_SOURCES, &v))
		return ctx_err(err, errlen,
			       "bad --irq-sources '%s' (1 to %d sources)", arg,
			       CTXCOUNT_MAX_SOURCES);
	a->irq_sources = true;
	a->max_sources = v;
	a->breakdown = true;
	return 0;
}

static int handle_option(struct ctx_args *a, int c, const char *arg,
			 char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'e':
		if (a->nr_event_specs == CTX_ARGS_MAX_EVENT_SPECS)
			return ctx_err(err, errlen, "too many -e options");
		a->event_specs[a->nr_event_specs++] = arg;
		return 0;
	case 'r':
		if (parse_positive(arg, INT_MAX, &v))
			return ctx_err(err, errlen,
				       "bad repeat count '%s'", arg);
		a->repeat = v;
		a->repeat_set = true;
		return 0;
	case 'n':
		a->null_run = true;
		return 0;
	case 'x':
		if (!*arg)
			return ctx_err(err, errlen,
				       "empty field separator");
		a->field_sep = arg;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case OPT_APPEND:
		a->append = true;
		return 0;
	case 'p':
		if (parse_positive(arg, INT_MAX, &v))
			return ctx_err(err, errlen, "bad pid '%s'", arg);
		a->pid = v;
		return 0;
	case 'a':
		a->system_wide = true;
		a->all_cpus = true;
		return 0;
	case 'C':
		return check_cpu_list(a, arg, err, errlen);
	case 'A':
		a->no_aggr = true;
		return 0;
	case 'I':
		if (parse_positive(arg, INT_MAX, &v))
			return ctx_err(err, errlen, "bad interval '%s' (milliseconds)",
				       arg);
		if (v < CTX_INTERVAL_MIN_MS)
			return ctx_err(err, errlen, "print interval must be >= %dms",
				       CTX_INTERVAL_MIN_MS);
		a->interval_ms = v;
		return 0;
	case OPT_SUMMARY:
		a->summary = true;
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case 'h':
		a->help = true;
		return 0;
	case OPT_BREAKDOWN:
		a->breakdown = true;
		return 0;
	case OPT_LIST:
		a->list = true;
		return 0;
	case OPT_REPEAT_UNTIL:
		if (parse_percent(arg, &a->repeat_until))
			return ctx_err(err, errlen,
				       "bad --repeat-until '%s' (a percentage, e.g. 0.5%%)",
				       arg);
		return 0;
	case OPT_REPEAT_EVENT:
		a->repeat_event = arg;
		return 0;
	case OPT_SAVE:
		a->save = arg;
		return 0;
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_LABEL:
		a->label = arg;
		return 0;
	case OPT_NO_NOISE_CHECK:
		a->no_noise_check = true;
		return 0;
	case OPT_NO_IRQ_ESTIMATE:
		a->no_irq_estimate = true;
		return 0;
	case OPT_IRQ_SOURCES:
		return parse_irq_sources(a, arg, err, errlen);
	}
	return ctx_err(err, errlen, "unknown option");
}

/* perf's wording: "unknown option `name'", "unknown switch `c'". */
static int bad_option(int c, char **argv, char *err, size_t errlen)
{
	const char *arg = argv[optind - 1];
	size_t len;

	if (!strncmp(arg, "--", 2)) {
		arg += 2;
		len = strcspn(arg, "=");
		if (c == ':')
			return ctx_err(err, errlen,
				       "option `%.*s' requires a value",
				       (int)len, arg);
		return ctx_err(err, errlen, "unknown option `%.*s'",
			       (int)len, arg);
	}
	if (c == ':')
		return ctx_err(err, errlen, "switch `%c' requires a value",
			       optopt);
	return ctx_err(err, errlen, "unknown switch `%c'", optopt);
}

/*
 * -I prints one run as it goes: several runs would print their intervals
 * one after the other with nothing to average.
 */
static int check_interval(struct ctx_args *a, char *err, size_t errlen)
{
	if (a->summary && !a->interval_ms)
		return ctx_err(err, errlen, "--summary needs -I");
	if (!a->interval_ms)
		return 0;
	if (a->repeat > 1 || a->repeat_until)
		return ctx_err(err, errlen,
			       "-I prints the intervals of one run: -r and --repeat-until do not apply");
	if (a->null_run)
		return ctx_err(err, errlen, "-n counts nothing to print every interval");
	if (a->save)
		return ctx_err(err, errlen, "--save keeps whole runs: not with -I");
	return 0;
}

/*
 * -A: perf's refusal without -a/-C. One run's CPUs: nothing to average
 * or save per CPU (ctxstat's choice; perf prints per-CPU means).
 */
static int check_no_aggr(struct ctx_args *a, char *err, size_t errlen)
{
	if (!a->no_aggr)
		return 0;
	if (!a->system_wide)
		return ctx_err(err, errlen,
			       "both cgroup and no-aggregation modes only available in system-wide mode");
	if (a->repeat > 1 || a->repeat_until)
		return ctx_err(err, errlen,
			       "-A prints the CPUs of one run: -r and --repeat-until do not apply");
	if (a->save)
		return ctx_err(err, errlen, "--save keeps whole runs' totals: not with -A");
	return 0;
}

/* Combinations that perf rejects too, or that would leave nothing to count. */
static int check_combinations(struct ctx_args *a, char *err, size_t errlen)
{
	if (a->help || a->list)
		return 0;
	if (a->field_sep && a->json)
		return ctx_err(err, errlen, "-x and -j are exclusive");
	if (a->pid && a->system_wide)
		return ctx_err(err, errlen, a->cpu_list ? "-p and -C are exclusive" :
				       "-p and -a are exclusive");
	if (!a->cmd && !a->pid && !a->system_wide)
		return ctx_err(err, errlen,
			       "a command, -p <pid> or -a is required");
	if (a->repeat > 1 && !a->cmd)
		return ctx_err(err, errlen,
			       "--repeat needs a command to repeat");
	if (a->null_run && a->nr_event_specs)
		return ctx_err(err, errlen, "-n and -e are exclusive");
	if (a->repeat_until && !a->cmd)
		return ctx_err(err, errlen,
			       "--repeat-until needs a command to repeat");
	if (a->repeat_event && !a->repeat_until)
		return ctx_err(err, errlen,
			       "--repeat-event needs --repeat-until");
	if (a->null_run && (a->repeat_until || a->save))
		return ctx_err(err, errlen,
			       "-n counts nothing to repeat on or save");
	if (a->null_run && a->irq_sources)
		return ctx_err(err, errlen,
			       "-n counts nothing to split by interrupt source");
	if (check_no_aggr(a, err, errlen))
		return -1;
	return check_interval(a, err, errlen);
}

static int parse(struct ctx_args *a, int argc, char **argv,
		 char *err, size_t errlen)
{
	int c;

	memset(a, 0, sizeof(*a));
	a->repeat = 1;
	optind = 0;	/* full getopt reset: parse may run more than once */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:e:r:nx:jo:p:aC:AI:vh",
				long_options, NULL)) != -1) {
		if (c == '?' || c == ':')
			return bad_option(c, argv, err, errlen);
		if (handle_option(a, c, optarg, err, errlen))
			return -1;
	}
	if (optind < argc) {
		a->cmd = &argv[optind];
		a->cmd_argc = argc - optind;
	}
	return 0;
}

int ctx_args_parse(struct ctx_args *a, int argc, char **argv,
		   char *err, size_t errlen)
{
	if (parse(a, argc, argv, err, errlen))
		return -1;
	return check_combinations(a, err, errlen);
}

static int split_commands(struct ctx_args *a, char *err, size_t errlen)
{
	int i;

	for (i = 0; i < a->cmd_argc && strcmp(a->cmd[i], "---"); i++)
		;
	if (i == a->cmd_argc)
		return ctx_err(err, errlen,
			       "two commands are needed: <command A> --- <command B>");
	if (i == 0 || i == a->cmd_argc - 1)
		return ctx_err(err, errlen, "empty command %s around '---'",
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

int ctx_args_parse_compare(struct ctx_args *a, int argc, char **argv,
			   char *err, size_t errlen)
{
	if (parse(a, argc, argv, err, errlen))
		return -1;
	a->compare = true;
	if (a->help)
		return 0;
	if (a->pid || a->system_wide || a->null_run || a->list || a->json ||
	    a->breakdown || a->interval_ms || a->summary || a->no_aggr)
		return ctx_err(err, errlen,
			       "compare runs two commands: -p, -a, -C, -A, -n, -j, -I, --summary, --list, --breakdown and --irq-sources do not apply");
	if (!a->cmd)
		return ctx_err(err, errlen,
			       "two commands are needed: <command A> --- <command B>");
	if (split_commands(a, err, errlen))
		return -1;
	if (!a->repeat_set)
		a->repeat = CTX_COMPARE_DEFAULT_RUNS;
	if (a->repeat < 2)
		return ctx_err(err, errlen,
			       "compare needs at least 2 runs of each command");
	if (a->repeat_event && !a->repeat_until)
		return ctx_err(err, errlen,
			       "--repeat-event needs --repeat-until");
	if (a->label && !two_labels(a->label))
		return ctx_err(err, errlen,
			       "--label for compare is '<A label>,<B label>', two different names");
	return 0;
}
