/* SPDX-License-Identifier: GPL-2.0 */
/*
 * errors: what options/args.c says about a command line it cannot take, in
 * perf's parse-options words: an unknown or ambiguous option, a missing
 * value, perf stat's own subcommands.
 */
#ifndef CTXSTAT_OPTIONS_ERRORS_H
#define CTXSTAT_OPTIONS_ERRORS_H

#include <getopt.h>
#include <stddef.h>

#include "options/args.h"

/* The long name of the option getopt_long returns as @val, or NULL. */
const char *cxs_option_long_name(const struct option *opts, int val);

/*
 * getopt_long returned @c, '?' or ':', for argv[optind - 1]: -1 with
 * "unknown option `name'", "Ambiguous option: ...", "switch `c'
 * requires a value" and the like in @err; an option without its value
 * is @a->err_option.
 */
int cxs_args_bad_option(struct cxs_args *a, const struct option *opts, int c,
			char **argv, char *err, size_t errlen);

/*
 * perf stat's own subcommands: a first non-option of 3 letters or more
 * that begins "record" or "report" (perf's strstarts() test) is that
 * subcommand ('-- record' runs a command of that name).
 */
enum cxs_perf_sub {
	CXS_PERF_SUB_NONE,
	CXS_PERF_SUB_RECORD,
	CXS_PERF_SUB_REPORT,
};
enum cxs_perf_sub cxs_args_perf_subcommand(const struct cxs_args *a);

#endif
