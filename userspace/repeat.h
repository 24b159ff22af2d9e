/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repeat: how long a series of runs goes on (-r, --repeat-until and its
 * stopping rule) and what is said about it afterwards on stderr: whether
 * --repeat-until's target was reached, and the outlier runs.
 */
#ifndef CTXSTAT_REPEAT_H
#define CTXSTAT_REPEAT_H

#include <stdbool.h>

#include "args.h"
#include "events.h"
#include "runner.h"

/* The most runs (per command for compare) -r and --repeat-until allow. */
int ctx_max_runs(const struct ctx_args *a);

/*
 * The displayed event --repeat-until watches: --repeat-event's, else the
 * first; -1 when --repeat-event names none of @l's.
 */
int ctx_until_event(const struct ctx_args *a, const struct ctx_event_list *l);

/*
 * --repeat-until's stopping rule: at least CTX_REPEAT_UNTIL_MIN_RUNS
 * runs, and event @ev's relative standard error of the mean below the
 * target. An event that is not counted at all has nothing to wait for.
 */
bool ctx_precise_enough(const struct ctx_runner *r, int ev);

/* "ctxstat: <who><event>: relative standard error ... after N runs" */
void ctx_print_until(const struct ctx_runner *r, int ev, const char *who);

/* Outlier runs by the MAD rule, one line per event; @who prefixes it. */
void ctx_print_outliers(const struct ctx_runner *r, const char *who);

/* Whether to warn about a noisy setup before the runs: repeated runs. */
bool ctx_noise_check_wanted(const struct ctx_args *a);

#endif
