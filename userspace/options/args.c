// SPDX-License-Identifier: GPL-2.0
/*
 * args: turn ctxstat's command line into struct cxs_args. Options follow
 * perf stat's names and letters so that muscle memory carries over;
 * parsing stops at the first non-option (the workload) or at "--".
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/ctxcount.h>
#include <linux/version.h>

#include "options/args.h"
#include "options/errors.h"
#include "options/perf-only.h"
#include "util/cpulist.h"
#include "util/util.h"

enum {
	OPT_BREAKDOWN = 256, OPT_LIST, OPT_REPEAT_UNTIL, OPT_REPEAT_EVENT,
	OPT_SAVE, OPT_NAME, OPT_LABEL, OPT_NO_NOISE_CHECK, OPT_NO_IRQ_ESTIMATE,
	OPT_SUMMARY, OPT_IRQ_SOURCES, OPT_APPEND, OPT_NO_BIG_NUM, OPT_NO_MERGE,
	OPT_QUIET, OPT_INTERVAL_COUNT, OPT_NO_CSV_SUMMARY, OPT_NO_TWINS,
	OPT_PER_CORE, OPT_PER_DIE, OPT_PER_SOCKET, OPT_PER_NODE, OPT_THRESHOLD,
	OPT_WARMUP, OPT_VERSION, OPT_PER_THREAD, OPT_SCALE, OPT_PER_CLUSTER,
	OPT_PER_CACHE, OPT_PERF_DIALECT,
	/* + index in cxs_perf_only[] */
	OPT_PERF_ONLY = 1024,
};

/* perf's letters; those of cxs_perf_only[] are added to it */
#define SHORT_OPTIONS "e:r:nx:jo:p:aC:AI:vhBgiSD:d"

static const struct option ctxstat_options[] = {
	{ "event",		required_argument,	NULL, 'e' },
	{ "repeat",		required_argument,	NULL, 'r' },
	{ "null",		no_argument,		NULL, 'n' },
	{ "field-separator",	required_argument,	NULL, 'x' },
	{ "json-output",	no_argument,		NULL, 'j' },
	{ "output",		required_argument,	NULL, 'o' },
	{ "append",		no_argument,		NULL, OPT_APPEND },
	{ "pid",		required_argument,	NULL, 'p' },
	{ "all-cpus",		no_argument,		NULL, 'a' },
	{ "cpu",		required_argument,	NULL, 'C' },
	{ "no-aggr",		no_argument,		NULL, 'A' },
	{ "interval-print",	required_argument,	NULL, 'I' },
	{ "summary",		no_argument,		NULL, OPT_SUMMARY },
	{ "verbose",		no_argument,		NULL, 'v' },
	{ "help",		no_argument,		NULL, 'h' },
	{ "breakdown",		no_argument,		NULL, OPT_BREAKDOWN },
	{ "list",		no_argument,		NULL, OPT_LIST },
	{ "repeat-until",	required_argument,	NULL, OPT_REPEAT_UNTIL },
	{ "repeat-event",	required_argument,	NULL, OPT_REPEAT_EVENT },
	{ "save",		required_argument,	NULL, OPT_SAVE },
	{ "name",		required_argument,	NULL, OPT_NAME },
	{ "label",		required_argument,	NULL, OPT_LABEL },
	{ "no-noise-check",	no_argument,		NULL, OPT_NO_NOISE_CHECK },
	{ "no-irq-estimate",	no_argument,		NULL, OPT_NO_IRQ_ESTIMATE },
	{ "irq-sources",	optional_argument,	NULL, OPT_IRQ_SOURCES },
	{ "big-num",		no_argument,		NULL, 'B' },
	{ "no-big-num",		no_argument,		NULL, OPT_NO_BIG_NUM },
	{ "no-merge",		no_argument,		NULL, OPT_NO_MERGE },
	{ "scale",		no_argument,		NULL, OPT_SCALE },
	{ "group",		no_argument,		NULL, 'g' },
	{ "no-inherit",		no_argument,		NULL, 'i' },
	{ "sync",		no_argument,		NULL, 'S' },
	{ "delay",		required_argument,	NULL, 'D' },
	{ "detailed",		no_argument,		NULL, 'd' },
	{ "quiet",		no_argument,		NULL, OPT_QUIET },
	{ "interval-count",	required_argument,	NULL, OPT_INTERVAL_COUNT },
	{ "no-csv-summary",	no_argument,		NULL, OPT_NO_CSV_SUMMARY },
	{ "no-twins",		no_argument,		NULL, OPT_NO_TWINS },
	{ "per-core",		no_argument,		NULL, OPT_PER_CORE },
	{ "per-die",		no_argument,		NULL, OPT_PER_DIE },
	{ "per-socket",		no_argument,		NULL, OPT_PER_SOCKET },
	{ "per-node",		no_argument,		NULL, OPT_PER_NODE },
	{ "per-cluster",	no_argument,		NULL, OPT_PER_CLUSTER },
	{ "per-cache",		optional_argument,	NULL, OPT_PER_CACHE },
	{ "per-thread",		no_argument,		NULL, OPT_PER_THREAD },
	{ "threshold",		required_argument,	NULL, OPT_THRESHOLD },
	{ "warmup",		required_argument,	NULL, OPT_WARMUP },
	{ "version",		no_argument,		NULL, OPT_VERSION },
	{ "perf-dialect",	required_argument,	NULL, OPT_PERF_DIALECT },
};

/*
 * getopt_long's table and letters: ctxstat's options, then perf's that
 * it lacks (recognized only to be named as such).
 */
static const struct option *options(const char **letters)
{
	static struct option all[ARRAY_SIZE(ctxstat_options) + 64];
	static char short_opts[128];
	size_t i, n = ARRAY_SIZE(ctxstat_options);
	char *p;

	if (all[0].name) {
		*letters = short_opts;
		return all;
	}
	memcpy(all, ctxstat_options, sizeof(ctxstat_options));
	p = short_opts + snprintf(short_opts, sizeof(short_opts), "+:%s",
				  SHORT_OPTIONS);
	for (i = 0; i < cxs_nr_perf_only && n + 1 < ARRAY_SIZE(all); i++) {
		all[n++] = (struct option){ cxs_perf_only[i].name,
					    cxs_perf_only[i].has_arg, NULL,
					    OPT_PERF_ONLY + i };
		if (cxs_perf_only[i].letter) {
			*p++ = cxs_perf_only[i].letter;
			if (cxs_perf_only[i].has_arg == required_argument)
				*p++ = ':';
		}
	}
	*letters = short_opts;
	return all;
}

/* "0.5%" or "0.5", above @min (or equal with @min_ok), below 100. */
static int parse_pct(const char *s, double min, bool min_ok, double *out)
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

static int parse_percent(const char *s, double *out)
{
	return parse_pct(s, 0, false, out);
}

static int parse_positive(const char *s, long max, long *out)
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
static int parse_repeat(struct cxs_args *a, const char *arg,
			char *err, size_t errlen)
{
	long v;

	if (!strcmp(arg, "0")) {
		a->forever = true;
		a->repeat = 1;
	} else if (parse_positive(arg, CXS_MAX_RUNS, &v)) {
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
static int parse_pids(struct cxs_args *a, const char *arg,
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
		if (parse_positive(tok, CXS_PID_MAX, &v))
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
static int parse_interval(struct cxs_args *a, const char *arg,
			  char *err, size_t errlen)
{
	long v = 0;

	if (strcmp(arg, "0") && parse_positive(arg, CXS_INTERVAL_MAX_MS, &v))
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
static int parse_delay(struct cxs_args *a, const char *arg,
		       char *err, size_t errlen)
{
	long v = 0;

	if (arg[0] == '-' && !parse_positive(arg + 1, LONG_MAX, &v))
		return cxs_err(err, errlen,
			       "-D %s: perf's negative delay waits for --control to enable counting, which ctxstat does not have",
			       arg);
	if (strcmp(arg, "0") && parse_positive(arg, CXS_INTERVAL_MAX_MS, &v))
		return cxs_err(err, errlen, "bad delay '%s' (milliseconds, 0 to %d)",
			       arg, CXS_INTERVAL_MAX_MS);
	a->delay_ms = v;
	return 0;
}

/* -x: perf takes "\\t" for a tab. */
static int parse_separator(struct cxs_args *a, const char *arg,
			   char *err, size_t errlen)
{
	if (!*arg)
		return cxs_err(err, errlen, "empty field separator");
	a->field_sep = strcmp(arg, "\\t") ? arg : "\t";
	return 0;
}

/*
 * perf's OPT_SET_UINT on one aggr_mode: the last of -A, --per-* wins.
 * Only the CPU modes read the CPUs' rows.
 */
static int set_aggr(struct cxs_args *a, enum cxs_aggr mode)
{
	a->aggr = mode;
	a->no_aggr = mode != CXS_AGGR_THREAD;
	return 0;
}

/*
 * --per-cache[=L<n>]: perf's parse_cache_level() and its words, "L" or
 * "l" and one digit; without a level, each CPU's highest (perf's LLC).
 */
static int parse_cache_level(struct cxs_args *a, const char *arg,
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
	return set_aggr(a, CXS_AGGR_CACHE);
}

/* -C: system wide on a CPU list, as perf's -C (checked for syntax here). */
static int check_cpu_list(struct cxs_args *a, const char *arg,
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
static int parse_irq_sources(struct cxs_args *a, const char *arg,
			     char *err, size_t errlen)
{
	long v = 0;

	if (arg && parse_positive(arg, CTXCOUNT_MAX_SOURCES, &v))
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
static int parse_dialect(struct cxs_args *a, const char *arg,
			 char *err, size_t errlen)
{
	if (dialect_of(arg, &a->dialect))
		return cxs_err(err, errlen,
			       "bad --perf-dialect '%s' (6.1 or 7.2: the perf whose output to print)",
			       arg);
	return 0;
}

static int handle_option(struct cxs_args *a, int c, const char *arg,
			 char *err, size_t errlen)
{
	long v;

	switch (c) {
	case 'e':
		if (a->nr_event_specs == CXS_ARGS_MAX_EVENT_SPECS)
			return cxs_err(err, errlen, "too many -e options");
		a->event_specs[a->nr_event_specs++] = arg;
		return 0;
	case 'r':
		return parse_repeat(a, arg, err, errlen);
	case 'n':
		a->null_run = true;
		return 0;
	case 'x':
		return parse_separator(a, arg, err, errlen);
	case 'j':
		a->json = true;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case OPT_APPEND:
		a->append = true;
		return 0;
	case 'p':
		return parse_pids(a, arg, err, errlen);
	case 'a':
		a->system_wide = true;
		a->all_cpus = true;
		return 0;
	case 'C':
		return check_cpu_list(a, arg, err, errlen);
	case 'A':
		return set_aggr(a, CXS_AGGR_NONE);
	case OPT_PER_CORE:
		return set_aggr(a, CXS_AGGR_CORE);
	case OPT_PER_DIE:
		return set_aggr(a, CXS_AGGR_DIE);
	case OPT_PER_SOCKET:
		return set_aggr(a, CXS_AGGR_SOCKET);
	case OPT_PER_NODE:
		return set_aggr(a, CXS_AGGR_NODE);
	case OPT_PER_CLUSTER:
		return set_aggr(a, CXS_AGGR_CLUSTER);
	case OPT_PER_CACHE:
		return parse_cache_level(a, arg, err, errlen);
	case OPT_PER_THREAD:
		return set_aggr(a, CXS_AGGR_THREAD);
	case 'I':
		return parse_interval(a, arg, err, errlen);
	case OPT_INTERVAL_COUNT:
		if (parse_positive(arg, INT_MAX, &v))
			return cxs_err(err, errlen, "bad --interval-count '%s'", arg);
		a->interval_count = v;
		return 0;
	case OPT_NO_CSV_SUMMARY:
		a->no_csv_summary = true;
		return 0;
	case 'B':
		a->big_num = 1;
		return 0;
	case OPT_NO_BIG_NUM:
		a->big_num = 0;
		return 0;
	/*
	 * ctxstat never merges events; its counts are scaled as perf's
	 * (--scale is perf's default); -g: each event is a counter of its own
	 */
	case OPT_NO_MERGE:
	case 'g':
	case OPT_SCALE:
		return 0;
	case 'i':
		a->no_inherit = true;
		return 0;
	case 'S':
		a->sync = true;
		return 0;
	case 'D':
		return parse_delay(a, arg, err, errlen);
	case 'd':
		a->detailed++;
		return 0;
	case OPT_QUIET:
		a->quiet = true;
		return 0;
	case OPT_NO_TWINS:
		a->no_twins = true;
		return 0;
	case OPT_PERF_DIALECT:
		return parse_dialect(a, arg, err, errlen);
	case OPT_THRESHOLD:
		if (parse_pct(arg, 0, true, &a->threshold))
			return cxs_err(err, errlen,
				       "bad --threshold '%s' (a percentage from 0, e.g. 1%%)",
				       arg);
		return 0;
	case OPT_WARMUP:
		if (strcmp(arg, "0") && parse_positive(arg, CXS_MAX_RUNS, &v))
			return cxs_err(err, errlen, "bad --warmup '%s' (0 to %d runs)",
				       arg, CXS_MAX_RUNS);
		a->warmup = strcmp(arg, "0") ? v : 0;
		return 0;
	case OPT_SUMMARY:
		a->summary = true;
		return 0;
	case 'v':
		a->verbose++;
		return 0;
	case 'h':
		a->help = true;
		return 0;
	case OPT_BREAKDOWN:
		a->breakdown = true;
		return 0;
	case OPT_LIST:
		a->list = true;
		return 0;
	case OPT_VERSION:
		a->version = true;
		return 0;
	case OPT_REPEAT_UNTIL:
		if (parse_percent(arg, &a->repeat_until))
			return cxs_err(err, errlen,
				       "bad --repeat-until '%s' (a percentage, e.g. 0.5%%)",
				       arg);
		return 0;
	case OPT_REPEAT_EVENT:
		a->repeat_event = arg;
		return 0;
	case OPT_SAVE:
		a->save = arg;
		return 0;
	case OPT_NAME:
		a->name = arg;
		return 0;
	case OPT_LABEL:
		a->label = arg;
		return 0;
	case OPT_NO_NOISE_CHECK:
		a->no_noise_check = true;
		return 0;
	case OPT_NO_IRQ_ESTIMATE:
		a->no_irq_estimate = true;
		return 0;
	case OPT_IRQ_SOURCES:
		return parse_irq_sources(a, arg, err, errlen);
	}
	if (c >= OPT_PERF_ONLY && c < OPT_PERF_ONLY + (int)cxs_nr_perf_only)
		a->perf_only_option = &cxs_perf_only[c - OPT_PERF_ONLY];
	else
		a->perf_only_option = cxs_perf_only_letter(c);
	if (a->perf_only_option) {
		a->perf_only = true;
		return cxs_perf_only_err(a->perf_only_option, err, errlen);
	}
	return cxs_err(err, errlen, "unknown option");
}

int cxs_args_read(struct cxs_args *a, int argc, char **argv,
		  char *err, size_t errlen)
{
	const struct option *opts;
	const char *letters;
	int c, dashdash;

	memset(a, 0, sizeof(*a));
	a->repeat = 1;
	a->big_num = -1;
	a->dialect = cxs_perf_dialect_default();
	a->threshold = -1;
	opts = options(&letters);
	optind = 0;	/* full getopt reset: parse may run more than once */
	opterr = 0;
again:
	while ((c = getopt_long(argc, argv, letters, opts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return cxs_args_bad_option(a, opts, c, argv, err, errlen);
		if (handle_option(a, c, optarg, err, errlen)) {
			a->err_option = cxs_option_long_name(opts, c);
			return -1;
		}
	}
	dashdash = optind > 1 && !strcmp(argv[optind - 1], "--");
	a->cmd = NULL;
	a->cmd_argc = 0;
	if (optind < argc) {
		a->cmd = &argv[optind];
		a->cmd_argc = argc - optind;
	}
	if (dashdash)
		return 0;
	/*
	 * perf stat's "record": stat's options again after it, as perf's
	 * __cmd_record() parses them; "report" is its own subcommand.
	 */
	switch (cxs_args_perf_subcommand(a)) {
	case CXS_PERF_SUB_RECORD:
		if (a->record)
			break;
		a->record = true;
		optind++;
		goto again;
	case CXS_PERF_SUB_REPORT:
		a->report = true;
		break;
	case CXS_PERF_SUB_NONE:
		break;
	}
	return 0;
}
