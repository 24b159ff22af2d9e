/* SPDX-License-Identifier: GPL-2.0 */
/*
 * setup: what ctxstat and ctxstat compare set up alike before the first
 * run: the events to count, the --save file's check and the -o file.
 * Beside the builtins that share it, above what it uses (events/,
 * run/repeat.c, results/save.c, output/outfile.c).
 */
#ifndef CTXSTAT_SETUP_H
#define CTXSTAT_SETUP_H

#include <stdio.h>

#include "events/events.h"
#include "options/args.h"

/*
 * What stat and compare set up before the first run: the events of @a
 * into @l, and the -o file (else @dflt) into @out. 0, or the exit code
 * after printing why.
 */
int cxs_stat_prepare(const struct cxs_args *a, struct cxs_event_list *l,
		     FILE *dflt, FILE **out);

/* -o's file, NULL for the default stream (no -o, or perf's "-o -"). */
const char *cxs_stat_output(const struct cxs_args *a);

#endif
