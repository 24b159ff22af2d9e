/* SPDX-License-Identifier: GPL-2.0 */
/*
 * stat: `ctxstat [<options>] <command>`, perf stat's job: count a
 * workload (or -p/-a target) over one or more runs and print the counts.
 */
#ifndef CTXSTAT_STAT_H
#define CTXSTAT_STAT_H

#include <stdio.h>

#include "args.h"
#include "events.h"

/*
 * ctxstat without a subcommand. @subcommands_usage prints the list of
 * subcommands after the usage. Returns the exit code.
 */
int ctx_stat_main(int argc, char **argv, void (*subcommands_usage)(FILE *f));

/*
 * What stat and compare set up before the first run: the events of @a
 * into @l, and the -o file (else @dflt) into @out. 0, or the exit code
 * after printing why.
 */
int ctx_stat_prepare(const struct ctx_args *a, struct ctx_event_list *l,
		     FILE *dflt, FILE **out);

/* -o's file, NULL for the default stream (no -o, or perf's "-o -"). */
const char *ctx_stat_output(const struct ctx_args *a);

#endif
