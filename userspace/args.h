/* SPDX-License-Identifier: GPL-2.0 */
/* args: ctxstat's command line, parsed into a plain struct (no side effects). */
#ifndef CTXSTAT_ARGS_H
#define CTXSTAT_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define CTX_ARGS_MAX_EVENT_SPECS 64

/* Exit status for a bad command line; perf uses 129 as well. */
#define CTX_EXIT_USAGE 129

struct ctx_args {
	const char *event_specs[CTX_ARGS_MAX_EVENT_SPECS];
	int nr_event_specs;
	int repeat;
	bool null_run;
	const char *field_sep;	/* non-NULL: CSV output with this separator */
	bool json;
	const char *output;	/* file name, NULL for stderr */
	bool append;		/* --append to -o's file */
	pid_t pid;		/* 0: none */
	bool system_wide;	/* -a, or implied by -C */
	bool all_cpus;		/* -a itself */
	const char *cpu_list;	/* -C: "0,2-3", syntax checked; NULL: all */
	bool no_aggr;		/* -A: a row per CPU */
	int verbose;
	bool breakdown;
	bool help;
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
	bool summary;		/* --summary: the total after the intervals */
	bool compare;		/* ctxstat compare */
	char **cmd_b;		/* compare: command B, NULL-terminated */
	int cmd_b_argc;
};

/* Runs without -r: per side for compare, the maximum for --repeat-until. */
#define CTX_COMPARE_DEFAULT_RUNS	10
#define CTX_REPEAT_UNTIL_MAX_RUNS	100
/* -I below this is refused: as perf 5.x, "print interval must be >= 10ms". */
#define CTX_INTERVAL_MIN_MS	10

/* --repeat-until never stops before this many runs. */
#define CTX_REPEAT_UNTIL_MIN_RUNS	3

/*
 * Parse argv into @a. Returns 0, or -1 for a usage error with a message
 * (without the "ctxstat: " prefix) in @err.
 */
int ctx_args_parse(struct ctx_args *a, int argc, char **argv,
		   char *err, size_t errlen);

/*
 * `ctxstat compare [<options>] [--] <command A> --- <command B>`: argv[0]
 * is "compare". Splits the command at "---" (argv is modified: that
 * element becomes NULL). Same return convention.
 */
int ctx_args_parse_compare(struct ctx_args *a, int argc, char **argv,
			   char *err, size_t errlen);

void ctx_args_usage(FILE *f);
void ctx_args_compare_usage(FILE *f);

#endif
