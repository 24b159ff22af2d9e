// SPDX-License-Identifier: GPL-2.0
/* errors: see options/errors.h. */
#include <stdio.h>
#include <string.h>

#include "options/errors.h"
#include "util/util.h"

const char *cxs_option_long_name(const struct option *opts, int val)
{
	for (; opts->name; opts++)
		if (opts->val == val)
			return opts->name;
	return NULL;
}

/*
 * getopt_long calls a prefix of several options unknown; perf's parser
 * names them: "Ambiguous option: per (could be --per-node or
 * --percore-show-thread)". All of them here, where perf names the last
 * two it meets. -1 with that message, 0 when @name (@len characters)
 * begins fewer than two options.
 */
static int ambiguous(const struct option *opts, const char *name, size_t len,
		     char *err, size_t errlen)
{
	const struct option *o, *first = NULL, *last = NULL;
	size_t used;

	for (o = opts; o->name; o++) {
		if (strncmp(o->name, name, len))
			continue;
		first = first ?: o;
		last = o;
	}
	if (first == last)
		return 0;
	used = snprintf(err, errlen, "Ambiguous option: %.*s (could be",
			(int)len, name);
	for (o = first; o <= last && used < errlen; o++)
		if (!strncmp(o->name, name, len))
			used += snprintf(err + used, errlen - used, "%s--%s",
					 o == first ? " " : o == last ? " or " : ", ",
					 o->name);
	if (used < errlen)
		snprintf(err + used, errlen - used, ")");
	return -1;
}

int cxs_args_bad_option(struct cxs_args *a, const struct option *opts, int c,
			char **argv, char *err, size_t errlen)
{
	const char *arg = argv[optind - 1];
	size_t len;

	/* getopt_long: optopt is the option's val, for a long one too */
	if (c == ':')
		a->err_option = cxs_option_long_name(opts, optopt);
	if (!strncmp(arg, "--", 2)) {
		arg += 2;
		len = strcspn(arg, "=");
		if (c == ':')
			return cxs_err(err, errlen,
				       "option `%.*s' requires a value",
				       (int)len, arg);
		if (ambiguous(opts, arg, len, err, errlen))
			return -1;
		return cxs_err(err, errlen, "unknown option `%.*s'",
			       (int)len, arg);
	}
	if (c == ':')
		return cxs_err(err, errlen, "switch `%c' requires a value",
			       optopt);
	return cxs_err(err, errlen, "unknown switch `%c'", optopt);
}

enum cxs_perf_sub cxs_args_perf_subcommand(const struct cxs_args *a)
{
	const char *w = a->cmd ? a->cmd[0] : "";
	size_t n = strlen(w);

	if (n < 3)
		return CXS_PERF_SUB_NONE;
	if (!strncmp("record", w, n))
		return CXS_PERF_SUB_RECORD;
	if (!strncmp("report", w, n))
		return CXS_PERF_SUB_REPORT;
	return CXS_PERF_SUB_NONE;
}
