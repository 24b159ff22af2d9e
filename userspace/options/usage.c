// SPDX-License-Identifier: GPL-2.0
/*
 * usage: the --help texts of ctxstat and ctxstat compare, and a usage
 * error's lines taken from them. Their option column is what ctxstat.1
 * (tests/man_test.sh) and the bash completion read: "    -e, --event
 * <event>   text", a value in <>, the text from column 26 on.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "options/args.h"

const char cxs_args_help[] =
"Usage: ctxstat [<options>] [--] <command> [<args>]\n"
"       ctxstat [<options>] [-p <pid> | -a | -C <cpus>] [-A] [<command>]\n"
"       ctxstat compare [<options>] [--] <command A> --- <command B>\n"
"       ctxstat [<options>] record [-o <file>] [<options>] [--] <command>\n"
"       ctxstat report [<options>] <file.json>...  |  ctxstat report -i <file>\n"
"\n"
"Count perf events of a workload like perf stat, and split every count\n"
"into the contexts it happened in: task, hardirq, softirq (per vector), NMI.\n"
"\n"
"    -e, --event <event>   event to count; repeatable, or a comma list\n"
"        --no-twins        without -e, perf's default events only (no :t)\n"
"    -d, --detailed        add perf's detailed events: L1-dcache and LLC loads\n"
"                          and misses; -dd also L1-icache and TLBs; -ddd also\n"
"                          L1-dcache prefetches\n"
"    -r, --repeat <n>      run the command n times, print mean and stddev;\n"
"                          0: print each run, until Ctrl-C\n"
"    -n, --null            null run: count nothing, time the command only\n"
"    -x, --field-separator <sep>\n"
"                          CSV output with this separator (perf's fields)\n"
"    -j, --json-output     JSON output, one object per line\n"
"    -B, --big-num         thousands grouped per the locale (the default)\n"
"        --no-big-num      counts without thousands separators\n"
"        --quiet           print no counts (the exit status only)\n"
"        --perf-dialect <6.1|7.2>\n"
"                          print as this perf version prints (default:\n"
"                          $CTXSTAT_PERF_DIALECT, else the release of the\n"
"                          kernel headers ctxstat was built with, as\n"
"                          --version says)\n"
"    -o, --output <file>   write the counts to <file> instead of stderr, after\n"
"                          perf's '# started on <date>' line (not with -j)\n"
"        --append          append to the -o file instead of replacing it\n"
"    -p, --pid <pid>       count an existing process (and children it forks)\n"
"                          until it exits or Ctrl-C, or while <command> runs;\n"
"                          a list (1,2) sums up to 8 of them\n"
"    -i, --no-inherit      the tasks the command or <pid> forks are not counted\n"
"    -a, --all-cpus        count every task (system wide; the default without\n"
"                          a command or -p); needs CAP_PERFMON\n"
"    -C, --cpu <cpus>      system wide on these CPUs only: perf's list\n"
"                          syntax, e.g. 0,2-3\n"
"    -A, --no-aggr         with -a or -C, a row per CPU (perf's CPU<n>)\n"
"        --per-core        with -a or -C, a row per core (S0-D0-C1)\n"
"        --per-die         with -a or -C, a row per die (S0-D0)\n"
"        --per-socket      with -a or -C, a row per socket (S0)\n"
"        --per-node        with -a or -C, a row per NUMA node (N0)\n"
"        --per-cluster     with -a or -C, a row per CPU cluster (S0-D0-CLS0)\n"
"        --per-cache[=L]   with -a or -C, a row per level-L cache (S0-D0-L3-ID0);\n"
"                          L1 to L4, default: each CPU's highest level\n"
"        --per-thread      with -p or -a, a row per thread (comm-tid)\n"
"        --no-merge        accepted for perf's sake: ctxstat never merges\n"
"                          events\n"
"        --scale           accepted for perf's sake: counts are scaled, as\n"
"                          perf's are by default\n"
"    -g, --group           accepted and ignored: each event is a counter of\n"
"                          its own\n"
"    -I, --interval-print <ms>\n"
"                          print the counts of every <ms> milliseconds (at\n"
"                          least 10) as they go, perf's interval format\n"
"        --interval-count <n>\n"
"                          with -I, stop after <n> intervals\n"
"        --summary         with -I, the whole run's counts after the intervals\n"
"        --no-csv-summary  with --summary and -x, no 'summary' first field\n"
"    -S, --sync            sync() before each run\n"
"    -D, --delay <ms>      count from <ms> milliseconds after the command starts\n"
"                          (perf's -D); the time elapsed is from then too\n"
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
"        --version         ctxstat's version\n"
"        --repeat-until <rel>%\n"
"                          repeat until the relative standard error of the\n"
"                          mean of one event is below <rel>% with 99%\n"
"                          confidence; at least 5 runs, at most -r (100)\n"
"        --repeat-event <event>\n"
"                          the event --repeat-until watches (default: the\n"
"                          first one)\n"
"        --warmup <n>      run the command n times first, uncounted\n"
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
"L1-dcache-load-misses, ..., rNNNN raw, pmu/event=0x3c/ as perf list shows\n"
"them), groups {a,b}, with modifiers after ':':\n"
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
"System wide, cpu-clock in task-clock's place, as perf; --no-twins: without\n"
"the :t ones.\n"
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
"Exit status: the command's (128+N if killed by signal N; with -r, the\n"
"last failed run's), 129 for a usage error or a perf option ctxstat lacks,\n"
"1 if counting failed or the output could not be written. Ctrl-C: the\n"
"counts so far (the run it cut short left out), then ctxstat dies by it.\n";

const char cxs_args_compare_help[] =
"Usage: ctxstat compare [<options>] [--] <command A> [<args>] --- <command B> [<args>]\n"
"\n"
"Run A and B alternately in ABBA order (A B B A A B B A ...), -r times\n"
"each (default 10), and print on stdout a summary, per event A's and B's\n"
"mean +- its standard error (perf's +-), B/A with its 95% confidence\n"
"interval and a verdict, then the full table: means, B - A with its 95%\n"
"confidence interval, p. A change needs Welch's t-test with Holm's\n"
"correction for the number of events compared, and at least --threshold:\n"
"clocks are slower or faster, counts more or fewer; 'changed < 1%' is\n"
"significant but smaller; else 'no significant change'. For an event and\n"
"its :t twin it says which one separates A from B with fewer runs.\n"
"\n"
"    -e, --event <event>   event to compare; repeatable, or a comma list\n"
"    -r, --repeat <n>      runs per command (default 10; with\n"
"                          --repeat-until the most it makes)\n"
"        --repeat-until <rel>%\n"
"                          stop once A and B both have a relative standard\n"
"                          error below <rel>% on --repeat-event with 99%\n"
"                          confidence (at least 5 runs each)\n"
"        --repeat-event <event>\n"
"                          the event --repeat-until watches (default: first)\n"
"    -x, --field-separator <sep>\n"
"                          CSV, a line per event: event, A mean, B mean,\n"
"                          B - A, CI low, CI high, p, df, verdict, runs to\n"
"                          separate, A runs, B runs, A sd, B sd, B/A, B/A\n"
"                          CI low, B/A CI high, p (Holm); clocks in msec\n"
"        --threshold <rel>%\n"
"                          a smaller change is not called one (default 1%)\n"
"        --warmup <n>      run each command n times first, uncounted\n"
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
"Runs to separate: the fewest runs per side from which on Welch's p stays\n"
"below 0.05 / the number of events compared (Holm's first step).\n";

void cxs_args_usage(FILE *f)
{
	fputs(cxs_args_help, f);
}

void cxs_args_compare_usage(FILE *f)
{
	fputs(cxs_args_compare_help, f);
}

/* The column of a help text's option texts, and of their wrapped lines. */
#define HELP_TEXT_COLUMN 26

/* "    -e, --event ..." or "        --list ...": an option's first line. */
static bool is_option_line(const char *line)
{
	return !strncmp(line, "    -", 5) || !strncmp(line, "        --", 10);
}

/* A character that continues an option's name ("-C" in "Ctrl-C" is none). */
static bool in_name(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '-';
}

/* Whether @text names option @opt (@len characters) as a word of its own. */
static bool names(const char *text, const char *opt, size_t len)
{
	const char *p;

	for (p = text; (p = strchr(p, '-')); p++)
		if ((p == text || !in_name(p[-1])) && !strncmp(p, opt, len) &&
		    !in_name(p[len]))
			return true;
	return false;
}

/*
 * Whether the option column of @line ("    -x, --field-separator <sep>"),
 * up to its text, has a spelling (-x, --field-separator) that @text names.
 */
static bool line_named_in(const char *line, const char *text)
{
	const char *p = line + strspn(line, " ");
	const char *end = strstr(p, "  "), *eol = strchr(p, '\n');
	size_t len;

	if (!end || (eol && eol < end))
		end = eol ?: line + strlen(line);
	while (p < end) {
		p += strspn(p, " ,");
		len = strcspn(p, " ,[=");
		if (p + len > end)
			len = end - p;
		if (*p == '-' && len > 1 && names(text, p, len))
			return true;
		p += len ?: 1;
	}
	return false;
}

/* The length of @line with its newline (or of the rest of the text). */
static size_t line_len(const char *line)
{
	return strcspn(line, "\n") + (line[strcspn(line, "\n")] == '\n');
}

void cxs_usage_error(FILE *f, const char *help, const char *err,
		     const char *option)
{
	char named[64];
	const char *line, *text = err;
	bool any = false, print = false;
	size_t len;

	if (option) {
		snprintf(named, sizeof(named), "--%s", option);
		text = named;
	}
	fprintf(f, "  Error: %s\n\n", err);
	/* the usage lines: the help's first paragraph */
	for (line = help; *line && *line != '\n'; line += len) {
		len = line_len(line);
		fwrite(line, 1, len, f);
	}
	for (line = help; *line; line += len) {
		len = line_len(line);
		if (is_option_line(line))
			print = line_named_in(line, text);
		else if (strspn(line, " ") < HELP_TEXT_COLUMN)
			print = false;
		if (!print)
			continue;
		if (!any)
			fputc('\n', f);
		any = true;
		fwrite(line, 1, len, f);
	}
}
