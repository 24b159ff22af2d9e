// SPDX-License-Identifier: GPL-2.0
/*
 * values: the values of ctxstat's options, checked and stored into
 * struct cxs_args (options/values.h); options/args.c maps each option to
 * one of these.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ctxcount.h>
#include <linux/version.h>

#include "options/args.h"
#include "options/errors.h"
#include "options/values.h"
#include "util/cpulist.h"
#include "util/util.h"

/* "0.5%" or "0.5", above @min (or equal with @min_ok), below 100. */
int cxs_opt_pct(const char *s, double min, bool min_ok, double *out)
{
	char *end;
	double v;

	errno = 0;
	/* 0.5% whatever LC_NUMERIC says, as in the examples */
	v = strtod_l(s, &end, cxs_c_locale() ?: LC_GLOBAL_LOCALE);
	if (end != s && *end == '%')
		end++;
	if (errno || end == s || *end || !(v < 100) ||
	    !(v > min || (min_ok && v == min)))
		return -1;
	*out = v;
	return 0;
}

int cxs_opt_percent(const char *s, double *out)
{
	return cxs_opt_pct(s, 0, false, out);
}

int cxs_opt_positive(const char *s, long max, long *out)
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

/* -r: 1 to CXS_MAX_RUNS, or 0 for perf's "forever". */
int cxs_opt_repeat(struct cxs_args *a, const char *arg,
		   char *err, size_t errlen)
{
	long v;

	if (!strcmp(arg, "0")) {
		a->forever = true;
		a->repeat = 1;
	} else if (cxs_opt_positive(arg, CXS_MAX_RUNS, &v)) {
		return cxs_err(err, errlen,
			       "bad repeat count '%s' (1 to %d, or 0: until Ctrl-C)",
			       arg, CXS_MAX_RUNS);
	} else {
		a->repeat = v;
		a->forever = false;
	}
	a->repeat_set = true;
	return 0;
}

/*
 * -p: perf's list of pids, "1,2,3" (each counted with what it forks and
 * all its threads; a session each, so at most CXS_MAX_PIDS).
 */
int cxs_opt_pids(struct cxs_args *a, const char *arg,
		 char *err, size_t errlen)
{
	char *copy = strdup(arg), *tok, *save = NULL;
	int ret = 0, k;
	long v;

	if (!copy)
		return cxs_err(err, errlen, "out of memory");
	a->nr_pids = 0;
	for (tok = strtok_r(copy, ",", &save); tok && !ret;
	     tok = strtok_r(NULL, ",", &save)) {
		if (cxs_opt_positive(tok, CXS_PID_MAX, &v))
			ret = cxs_err(err, errlen, "bad pid '%s' in '%s'", tok, arg);
		else if (a->nr_pids == CXS_MAX_PIDS)
			ret = cxs_err(err, errlen,
				      "-p: at most %d pids (a counting session each)",
				      CXS_MAX_PIDS);
		for (k = 0; !ret && k < a->nr_pids; k++)
			if (a->pids[k] == v)
				ret = cxs_err(err, errlen, "-p: pid %ld twice in '%s'", v, arg);
		if (!ret)
			a->pids[a->nr_pids++] = v;
	}
	free(copy);
	if (!ret && (!a->nr_pids || arg[strlen(arg) - 1] == ',' || *arg == ',' ||
		     strstr(arg, ",,")))
		ret = cxs_err(err, errlen, "bad pid list '%s'", arg);
	if (ret) {
		a->nr_pids = 0;
		return ret;
	}
	a->pid = a->pids[0];
	a->pid_list = arg;
	return 0;
}

/* -I: 0 is off, as in perf 6.1; below 10 ms refused (perf 5.x's words). */
int cxs_opt_interval(struct cxs_args *a, const char *arg,
		     char *err, size_t errlen)
{
	long v = 0;

	if (strcmp(arg, "0") && cxs_opt_positive(arg, CXS_INTERVAL_MAX_MS, &v))
		return cxs_err(err, errlen, "bad interval '%s' (milliseconds, at most %d)",
			       arg, CXS_INTERVAL_MAX_MS);
	if (v && v < CXS_INTERVAL_MIN_MS)
		return cxs_err(err, errlen, "print interval must be >= %dms",
			       CXS_INTERVAL_MIN_MS);
	a->interval_ms = v;
	return 0;
}

/*
 * -D: milliseconds, as perf's OPT_INTEGER. perf takes -1 (and any
 * negative) for "start disabled": its counters then wait for --control's
 * enable command, which ctxstat has not got.
 */
int cxs_opt_delay(struct cxs_args *a, const char *arg,
		  char *err, size_t errlen)
{
	long v = 0;

	if (arg[0] == '-' && !cxs_opt_positive(arg + 1, LONG_MAX, &v))
		return cxs_err(err, errlen,
			       "-D %s: perf's negative delay waits for --control to enable counting, which ctxstat does not have",
			       arg);
	if (strcmp(arg, "0") && cxs_opt_positive(arg, CXS_INTERVAL_MAX_MS, &v))
		return cxs_err(err, errlen, "bad delay '%s' (milliseconds, 0 to %d)",
			       arg, CXS_INTERVAL_MAX_MS);
	a->delay_ms = v;
	return 0;
}

/* -x: perf takes "\\t" for a tab. */
int cxs_opt_separator(struct cxs_args *a, const char *arg,
		      char *err, size_t errlen)
{
	if (!*arg)
		return cxs_err(err, errlen, "empty field separator");
	a->field_sep = strcmp(arg, "\\t") ? arg : "\t";
	return 0;
}

/*
 * --per-cache[=L<n>]: perf's parse_cache_level() and its words, "L" or
 * "l" and one digit; without a level, each CPU's highest (perf's LLC).
 */
int cxs_opt_cache_level(struct cxs_args *a, const char *arg,
			char *err, size_t errlen)
{
	int level = 0;

	if (arg) {
		if (strlen(arg) != 2 || (arg[0] != 'L' && arg[0] != 'l') ||
		    (level = atoi(arg + 1)) < 1)
			return cxs_err(err, errlen,
				       "Cache level must be of form L[1-%d], or l[1-%d]",
				       CXS_MAX_CACHE_LEVEL, CXS_MAX_CACHE_LEVEL);
		if (level > CXS_MAX_CACHE_LEVEL)
			return cxs_err(err, errlen,
				       "ctxstat only supports max cache level of %d, as perf",
				       CXS_MAX_CACHE_LEVEL);
	}
	a->cache_level = level;
	return cxs_opt_aggr(a, CXS_AGGR_CACHE);
}

/*
 * perf's OPT_SET_UINT on one aggr_mode: the last of -A, --per-* wins.
 * Only the CPU modes read the CPUs' rows.
 */
int cxs_opt_aggr(struct cxs_args *a, enum cxs_aggr mode)
{
	a->aggr = mode;
	a->no_aggr = mode != CXS_AGGR_THREAD;
	return 0;
}

/* -C: system wide on a CPU list, as perf's -C (checked for syntax here). */
int cxs_opt_cpu_list(struct cxs_args *a, const char *arg,
		     char *err, size_t errlen)
{
	struct cxs_cpulist *l = malloc(sizeof(*l));
	int ret;

	if (!l)
		return cxs_err(err, errlen, "out of memory");
	ret = cxs_cpulist_parse(l, arg, err, errlen);
	free(l);
	if (ret)
		return ret;
	a->cpu_list = arg;
	a->system_wide = true;
	return 0;
}

/* --irq-sources[=N]: a breakdown with the hardirq row split by source. */
int cxs_opt_irq_sources(struct cxs_args *a, const char *arg,
			char *err, size_t errlen)
{
	long v = 0;

	if (arg && cxs_opt_positive(arg, CTXCOUNT_MAX_SOURCES, &v))
		return cxs_err(err, errlen,
			       "bad --irq-sources '%s' (1 to %d sources)", arg,
			       CTXCOUNT_MAX_SOURCES);
	a->irq_sources = true;
	a->max_sources = v;
	a->breakdown = true;
	return 0;
}

/* "6.1" or "7.2" into @d; -1 for anything else */
static int dialect_of(const char *s, enum cxs_perf_dialect *d)
{
	if (!strcmp(s, "6.1"))
		*d = CXS_PERF_6_1;
	else if (!strcmp(s, "7.2"))
		*d = CXS_PERF_7_2;
	else
		return -1;
	return 0;
}

enum cxs_perf_dialect cxs_perf_dialect_default(void)
{
	const char *env = getenv("CTXSTAT_PERF_DIALECT");
	enum cxs_perf_dialect d;

	if (env && !dialect_of(env, &d))
		return d;
	return LINUX_VERSION_CODE >= KERNEL_VERSION(7, 0, 0) ? CXS_PERF_7_2 :
							      CXS_PERF_6_1;
}

/* --perf-dialect=6.1|7.2: the perf versions whose output ctxstat prints */
int cxs_opt_dialect(struct cxs_args *a, const char *arg,
		    char *err, size_t errlen)
{
	if (dialect_of(arg, &a->dialect))
		return cxs_err(err, errlen,
			       "bad --perf-dialect '%s' (6.1 or 7.2: the perf whose output to print)",
			       arg);
	return 0;
}
