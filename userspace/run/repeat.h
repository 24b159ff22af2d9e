/* SPDX-License-Identifier: GPL-2.0 */
/*
 * repeat: how long a series of runs goes on (-r, --repeat-until and its
 * stopping rule) and what is said about it afterwards on stderr: whether
 * --repeat-until's target was reached, and the outlier runs.
 */
#ifndef CTXSTAT_RUN_REPEAT_H
#define CTXSTAT_RUN_REPEAT_H

#include <stdbool.h>
#include <stdio.h>

#include "events/events.h"
#include "options/args.h"
#include "run/runner.h"

/* The most runs (per command for compare) -r and --repeat-until allow. */
int cxs_max_runs(const struct cxs_args *a);

/*
 * The displayed event --repeat-until watches: --repeat-event's, else the
 * first; -1 when --repeat-event names none of @l's.
 */
int cxs_until_event(const struct cxs_args *a, const struct cxs_event_list *l);

/*
 * The relative standard error of @v's mean (percent) is below this with
 * CXS_REPEAT_UNTIL_CONF confidence: the RSE with the standard deviation
 * at its one-sided upper confidence bound, s sqrt((n - 1) / chi2(1 -
 * conf, n - 1)). Infinite below 2 values.
 */
double cxs_rse_upper_pct(const struct cxs_sample *v);

/*
 * --repeat-until's stopping rule: at least CXS_REPEAT_UNTIL_MIN_RUNS
 * values, and cxs_rse_upper_pct() below @target_pct. Looking after every
 * run lets a series stop early more often than once per look: at 99 %
 * per look, simulated series (tests/repeat_test.c) stop with their true
 * RSE above the target in under 2 % of cases, where stopping on the
 * observed RSE from 3 runs on did in 55 to 65 %.
 */
bool cxs_rse_holds(const struct cxs_sample *v, double target_pct);

/*
 * The rule on event @ev of @r's runs. An event that is not counted at
 * all has nothing to wait for.
 */
bool cxs_precise_enough(const struct cxs_runner *r, int ev);

/* "ctxstat: <who><event>: relative standard error ... after N runs" */
void cxs_print_until(const struct cxs_runner *r, int ev, const char *who);

/*
 * Before the runs, on @f: with -r below CXS_REPEAT_UNTIL_MIN_RUNS,
 * --repeat-until can stop nothing; the series is -r runs, said so.
 */
void cxs_say_until_capped(FILE *f, const struct cxs_args *a);

/* Outlier runs by the MAD rule, one line per event; @who prefixes it. */
void cxs_print_outliers(const struct cxs_runner *r, const char *who);

/* Whether to warn about a noisy setup before the runs: repeated runs. */
bool cxs_noise_check_wanted(const struct cxs_args *a);

#endif
