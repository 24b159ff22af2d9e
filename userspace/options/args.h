/* SPDX-License-Identifier: GPL-2.0 */
/* args: ctxstat's command line, parsed into a plain struct (no side effects). */
#ifndef CTXSTAT_OPTIONS_ARGS_H
#define CTXSTAT_OPTIONS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

struct cxs_perf_only;

#define CXS_ARGS_MAX_EVENT_SPECS 64
/* -p's pids at most: a session each, the module's max_sessions_per_socket */
#define CXS_MAX_PIDS 8

/* Exit status for a bad command line; perf uses 129 as well. */
#define CXS_EXIT_USAGE 129

/* perf's aggregation modes that ctxstat has (perf's AGGR_*) */
enum cxs_aggr {
	CXS_AGGR_GLOBAL,	/* the default: one row per event */
	CXS_AGGR_NONE,		/* -A: per CPU */
	CXS_AGGR_CORE,		/* --per-core */
	CXS_AGGR_DIE,		/* --per-die */
	CXS_AGGR_SOCKET,	/* --per-socket */
	CXS_AGGR_NODE,		/* --per-node */
	CXS_AGGR_CLUSTER,	/* --per-cluster */
	CXS_AGGR_CACHE,		/* --per-cache[=L<n>] */
	CXS_AGGR_THREAD,	/* --per-thread: a row per thread, no CPUs */
};

/*
 * The perf whose output ctxstat prints (--perf-dialect): perf's
 * stat-display.c changed between 6.1 and 7.x. 7.x prints metrics only for
 * its default events, from its metric files ("0.5 CPUs  CPUs_utilized"),
 * and names JSON's count of summed CPUs "counters". docs/design/ctxstat.md.
 */
enum cxs_perf_dialect {
	CXS_PERF_6_1,
	CXS_PERF_7_2,
};

struct cxs_args {
	const char *event_specs[CXS_ARGS_MAX_EVENT_SPECS];
	int nr_event_specs;
	int repeat;
	bool forever;		/* -r 0: run and print until Ctrl-C */
	bool null_run;
	const char *field_sep;	/* non-NULL: CSV output with this separator */
	bool json;
	const char *output;	/* file name, NULL for stderr */
	bool append;		/* --append to -o's file */
	pid_t pid;		/* 0: none; the first of -p's list */
	pid_t pids[CXS_MAX_PIDS];	/* -p 1,2: perf's list, a session each */
	int nr_pids;
	const char *pid_list;	/* -p as given, for the header */
	bool system_wide;	/* -a, or implied by -C */
	bool all_cpus;		/* -a itself, or implied (no command, no -p) */
	bool implied_all;	/* no command and no target: perf's -a */
	const char *cpu_list;	/* -C: "0,2-3", syntax checked; NULL: all */
	bool no_aggr;		/* per-CPU READs: -A or a --per-* mode */
	enum cxs_aggr aggr;	/* how the CPUs' (or threads') rows are printed */
	int cache_level;	/* --per-cache=L<n>: n; 0: each CPU's highest */
	int verbose;
	bool breakdown;
	bool help;
	bool version;		/* --version */
	bool list;
	char **cmd;		/* workload argv, NULL-terminated; NULL if none */
	int cmd_argc;
	bool repeat_set;	/* -r given */
	double repeat_until;	/* --repeat-until: target RSE in %, 0 off */
	const char *repeat_event;	/* --repeat-event, NULL: the first */
	const char *save;	/* --save FILE.json */
	const char *name;	/* --name: benchmark name in saved results */
	const char *label;	/* --label: configuration ("A,B" for compare) */
	bool no_noise_check;	/* --no-noise-check */
	bool no_irq_estimate;	/* --no-irq-estimate */
	bool irq_sources;	/* --irq-sources: hardirq rows per source */
	unsigned int max_sources;	/* --irq-sources=N, 0: the module's */
	unsigned int interval_ms;	/* -I: print every this many ms, 0 off */
	int interval_count;	/* --interval-count: that many, 0 no limit */
	bool summary;		/* --summary: the total after the intervals */
	bool no_csv_summary;	/* --no-csv-summary: no "summary" field */
	int big_num;		/* -B 1, --no-big-num 0, -1 unset */
	bool no_inherit;	/* -i: children are not counted */
	/*
	 * -D: counting starts this many ms after the command (or, without
	 * one, the run) starts; 0: at once
	 */
	int delay_ms;
	bool sync;		/* -S: sync() before each run */
	bool quiet;		/* --quiet: no counts printed */
	bool no_twins;		/* --no-twins: perf's default rows exactly */
	enum cxs_perf_dialect dialect;	/* --perf-dialect, else the build's */
	int detailed;		/* -d given so many times: perf's detailed events */
	/*
	 * perf stat record (the word, then stat's options again): -o names
	 * the data file, record_file ("-": perf's pipe mode on stdout), and
	 * the counts go to stderr; perf stat report: cmd is its argv.
	 */
	bool record;
	const char *record_file;
	bool report;
	bool perf_only;		/* the error is a perf option ctxstat lacks */
	/* which, when it is one of cxs_perf_only[] */
	const struct cxs_perf_only *perf_only_option;
	/*
	 * The error is about this option's value (its long name): its
	 * --help lines follow the error. NULL: the options the error names.
	 */
	const char *err_option;
	double threshold;	/* compare --threshold, percent; < 0 unset */
	int warmup;		/* --warmup: runs before the measured ones */
	bool compare;		/* ctxstat compare */
	char **cmd_b;		/* compare: command B, NULL-terminated */
	int cmd_b_argc;
};

/* -r at most; -p at most (the kernel's PID_MAX_LIMIT); -I and -D at most (a day) */
#define CXS_MAX_RUNS		100000
#define CXS_PID_MAX		4194304
#define CXS_INTERVAL_MAX_MS	86400000

/*
 * --per-cache=L1 to L4: perf reads a CPU's caches from cpuN/cache/index0
 * to index3 only (its MAX_CACHE_LVL).
 */
#define CXS_MAX_CACHE_LEVEL	4

/* Runs without -r: per side for compare, the maximum for --repeat-until. */
#define CXS_COMPARE_DEFAULT_RUNS	10
#define CXS_REPEAT_UNTIL_MAX_RUNS	100
/* -I below this is refused: as perf 5.x, "print interval must be >= 10ms". */
#define CXS_INTERVAL_MIN_MS	10

/*
 * --repeat-until never stops before this many runs, and only once the
 * target holds with this confidence (run/repeat.h).
 */
#define CXS_REPEAT_UNTIL_MIN_RUNS	5
#define CXS_REPEAT_UNTIL_CONF		0.99

/*
 * Read argv's options into @a, as they are (options/args.c); cxs_args_parse()
 * also checks how they combine (options/check.c). Same return convention.
 */
int cxs_args_read(struct cxs_args *a, int argc, char **argv,
		  char *err, size_t errlen);

/*
 * Parse argv into @a. Returns 0, or -1 for a usage error with a message
 * (without the "ctxstat: " prefix) in @err.
 */
int cxs_args_parse(struct cxs_args *a, int argc, char **argv,
		   char *err, size_t errlen);

/*
 * `ctxstat compare [<options>] [--] <command A> --- <command B>`: argv[0]
 * is "compare". Splits the command at "---" (argv is modified: that
 * element becomes NULL). Same return convention.
 */
int cxs_args_parse_compare(struct cxs_args *a, int argc, char **argv,
			   char *err, size_t errlen);

/*
 * $CTXSTAT_PERF_DIALECT ("6.1" or "7.2"), else the dialect of the perf
 * built from the kernel release whose UAPI headers built ctxstat:
 * distributions build perf and those headers from one kernel source
 * (Debian's linux-perf and linux-libc-dev).
 */
enum cxs_perf_dialect cxs_perf_dialect_default(void);

/* compare's --threshold, or its default (CXS_THRESHOLD_PCT). */
double cxs_args_threshold(const struct cxs_args *a);

/* "-A", "--per-core", ...: the option of an aggregation mode. */
const char *cxs_aggr_option(enum cxs_aggr mode);

static inline bool cxs_args_per_thread(const struct cxs_args *a)
{
	return a->aggr == CXS_AGGR_THREAD;
}

/* The --help texts (options/usage.c), and their printers. */
extern const char cxs_args_help[];
extern const char cxs_args_compare_help[];
void cxs_args_usage(FILE *f);
void cxs_args_compare_usage(FILE *f);

/*
 * A usage error as perf's parse-options prints one: "  Error: @err", the
 * usage lines of @help, then its lines for option @option (a long name)
 * or, when NULL, for each option @err names ("-x and -j are
 * exclusive"); not the whole @help, which would scroll the error away.
 */
void cxs_usage_error(FILE *f, const char *help, const char *err,
		     const char *option);

#endif
