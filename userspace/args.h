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
	pid_t pid;		/* 0: none */
	bool system_wide;
	int verbose;
	bool breakdown;
	bool help;
	bool list;
	char **cmd;		/* workload argv, NULL-terminated; NULL if none */
	int cmd_argc;
};

/*
 * Parse argv into @a. Returns 0, or -1 for a usage error with a message
 * (without the "ctxstat: " prefix) in @err.
 */
int ctx_args_parse(struct ctx_args *a, int argc, char **argv,
		   char *err, size_t errlen);

void ctx_args_usage(FILE *f);

#endif
