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

#include "options/args.h"
#include "options/errors.h"
#include "options/perf-only.h"
#include "options/values.h"
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
		return cxs_opt_repeat(a, arg, err, errlen);
	case 'n':
		a->null_run = true;
		return 0;
	case 'x':
		return cxs_opt_separator(a, arg, err, errlen);
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
		return cxs_opt_pids(a, arg, err, errlen);
	case 'a':
		a->system_wide = true;
		a->all_cpus = true;
		return 0;
	case 'C':
		return cxs_opt_cpu_list(a, arg, err, errlen);
	case 'A':
		return cxs_opt_aggr(a, CXS_AGGR_NONE);
	case OPT_PER_CORE:
		return cxs_opt_aggr(a, CXS_AGGR_CORE);
	case OPT_PER_DIE:
		return cxs_opt_aggr(a, CXS_AGGR_DIE);
	case OPT_PER_SOCKET:
		return cxs_opt_aggr(a, CXS_AGGR_SOCKET);
	case OPT_PER_NODE:
		return cxs_opt_aggr(a, CXS_AGGR_NODE);
	case OPT_PER_CLUSTER:
		return cxs_opt_aggr(a, CXS_AGGR_CLUSTER);
	case OPT_PER_CACHE:
		return cxs_opt_cache_level(a, arg, err, errlen);
	case OPT_PER_THREAD:
		return cxs_opt_aggr(a, CXS_AGGR_THREAD);
	case 'I':
		return cxs_opt_interval(a, arg, err, errlen);
	case OPT_INTERVAL_COUNT:
		if (cxs_opt_positive(arg, INT_MAX, &v))
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
		return cxs_opt_delay(a, arg, err, errlen);
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
		return cxs_opt_dialect(a, arg, err, errlen);
	case OPT_THRESHOLD:
		if (cxs_opt_pct(arg, 0, true, &a->threshold))
			return cxs_err(err, errlen,
				       "bad --threshold '%s' (a percentage from 0, e.g. 1%%)",
				       arg);
		return 0;
	case OPT_WARMUP:
		if (strcmp(arg, "0") && cxs_opt_positive(arg, CXS_MAX_RUNS, &v))
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
		if (cxs_opt_percent(arg, &a->repeat_until))
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
		return cxs_opt_irq_sources(a, arg, err, errlen);
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
