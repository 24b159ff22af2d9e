/* SPDX-License-Identifier: GPL-2.0 */
/*
 * values: an option's value checked and stored into struct cxs_args.
 * Each returns 0, or -1 with the message (perf's words where perf has
 * them) in @err, as cxs_args_read().
 */
#ifndef CTXSTAT_OPTIONS_VALUES_H
#define CTXSTAT_OPTIONS_VALUES_H

#include <stdbool.h>
#include <stddef.h>

#include "options/args.h"

/* "0.5%" or "0.5" into @out: above @min (or equal with @min_ok), below 100 */
int cxs_opt_pct(const char *s, double min, bool min_ok, double *out);
/* a percentage above 0 and below 100 */
int cxs_opt_percent(const char *s, double *out);
/* 1 to @max */
int cxs_opt_positive(const char *s, long max, long *out);

/* -A and --per-*: the aggregation mode, the last given wins (perf's) */
int cxs_opt_aggr(struct cxs_args *a, enum cxs_aggr mode);

/* -r, -p, -I, -D, -x, --per-cache[=L<n>], -C, --irq-sources[=N], --perf-dialect */
int cxs_opt_repeat(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_pids(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_interval(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_delay(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_separator(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_cache_level(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_cpu_list(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_irq_sources(struct cxs_args *a, const char *arg, char *err, size_t errlen);
int cxs_opt_dialect(struct cxs_args *a, const char *arg, char *err, size_t errlen);

#endif
