// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-report: ctxstat report: load the saved files (results/results.c)
 * and print their table (output/results-table.c); with -i, perf stat
 * report's job: perf stat record's data (perfdata/stat-read.c) printed as
 * stat prints counts (output/stat-report.c).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "builtin.h"
#include "options/args.h"
#include "output/outfile.h"
#include "output/results-table.h"
#include "output/stat-report.h"
#include "perfdata/stat-data.h"
#include "stats/ab-test.h"
#include "util/util.h"

static const char report_help[] =
"Usage: ctxstat report [<options>] <file.json>...\n"
"   or: ctxstat report -i <file>\n"
"\n"
"Tabulate results saved with `ctxstat --save` or `ctxstat compare --save`:\n"
"a row per benchmark and event, a column per configuration, cells\n"
"'mean ± se' (the standard error of the mean, perf's +-); columns after\n"
"the first show the change against the first and compare's verdict\n"
"(Welch, Holm's correction over a benchmark's events, the threshold).\n"
"\n"
"    -x, --field-separator <sep>\n"
"                          CSV with this separator\n"
"        --markdown        a Markdown table\n"
"        --threshold <rel>%\n"
"                          a smaller change is not called one (default 1%)\n"
"    -o, --output <file>   write the table to <file> instead of stdout\n"
"    -i, --input <file>    perf stat report's: print the counts of perf stat\n"
"                          record's data (ctxstat record's too) as stat prints\n"
"                          them, to stderr; - reads standard input\n"
"    -h, --help            this text\n";

static void report_usage(FILE *f)
{
	fputs(report_help, f);
}

/* @msg, then the usage lines of @option (a long name) or of those @msg names. */
static int report_usage_error(const char *msg, const char *option)
{
	cxs_usage_error(stderr, report_help, msg, option);
	return CXS_EXIT_USAGE;
}

/*
 * perf stat report -i: perf stat record's data printed to stderr as
 * perf prints it, a table per round. "-" is standard input.
 */
static int report_perf_data(const char *input)
{
	struct cxs_stat_data d;
	char err[512];
	int ret = 0;

	if (cxs_stat_read(input, &d, err, sizeof(err))) {
		fprintf(stderr, "ctxstat report: %s\n", err);
		return 1;
	}
	if (cxs_stat_report(stderr, &d, err, sizeof(err))) {
		fprintf(stderr, "ctxstat report: %s\n", err);
		ret = 1;
	}
	cxs_stat_data_free(&d);
	if (cxs_outfile_close(stderr, NULL, "ctxstat report"))
		ret = 1;
	return ret;
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "field-separator",	required_argument,	NULL, 'x' },
		{ "markdown",		no_argument,		NULL, 'm' },
		{ "output",		required_argument,	NULL, 'o' },
		{ "threshold",		required_argument,	NULL, 't' },
		{ "help",		no_argument,		NULL, 'h' },
		/* perf stat report's, named as such */
		{ "input",		required_argument,	NULL, 'i' },
		{ "no-aggr",		no_argument,		NULL, 'A' },
		{ "per-thread",		no_argument,		NULL, 'P' },
		{ "per-socket",		no_argument,		NULL, 'P' },
		{ "per-die",		no_argument,		NULL, 'P' },
		{ "per-cluster",	no_argument,		NULL, 'P' },
		{ "per-cache",		optional_argument,	NULL, 'P' },
		{ "per-core",		no_argument,		NULL, 'P' },
		{ "per-node",		no_argument,		NULL, 'P' },
		{ NULL, 0, NULL, 0 }
	};
	enum cxs_table_format fmt = CXS_TABLE_TEXT;
	struct cxs_result_set set = { 0 };
	const char *sep = NULL, *output = NULL, *input = NULL;
	double threshold = CXS_THRESHOLD_PCT;
	char *end;
	FILE *out = stdout;
	char err[256];
	bool markdown = false;
	int c, i, ret = 0;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:x:o:hi:A", opts, NULL)) != -1) {
		switch (c) {
		case 'A':
		case 'P':
			fprintf(stderr, "ctxstat report: perf stat report option not supported by ctxstat: %s (report -i prints a recording's own aggregation: per CPU for ctxstat record -A or perf stat record -A, else the totals)\n",
				c == 'A' ? "-A" : argv[optind - 1]);
			return CXS_EXIT_USAGE;
		case 'i':
			input = optarg;
			break;
		case 'x':
			if (!*optarg)
				return report_usage_error("empty field separator",
							  "field-separator");
			fmt = CXS_TABLE_CSV;
			sep = optarg;
			break;
		case 'm':
			markdown = true;
			break;
		case 'o':
			output = optarg;
			break;
		case 't':
			/* "1%" or "1", read whatever LC_NUMERIC says */
			threshold = strtod_l(optarg, &end, cxs_c_locale() ?: LC_GLOBAL_LOCALE);
			end += *end == '%';
			if (end == optarg || *end || !(threshold >= 0 && threshold < 100))
				return report_usage_error("bad --threshold (a percentage from 0, e.g. 1%)",
							  NULL);
			break;
		case 'h':
			report_usage(stdout);
			return cxs_outfile_close(stdout, NULL, "ctxstat report") ? 1 : 0;
		default:
			snprintf(err, sizeof(err), "unknown or incomplete option `%s'",
				 argv[optind - 1]);
			return report_usage_error(err, NULL);
		}
	}
	if (fmt == CXS_TABLE_CSV && markdown)
		return report_usage_error("--markdown and -x are two formats: choose one",
					  NULL);
	if (markdown)
		fmt = CXS_TABLE_MARKDOWN;
	if (input) {
		if (optind < argc || fmt != CXS_TABLE_TEXT || output ||
		    threshold != CXS_THRESHOLD_PCT)
			return report_usage_error("-i reads perf stat record's data: no results file, -x, --markdown, -o or --threshold with it",
						  NULL);
		return report_perf_data(input);
	}
	if (optind >= argc)
		return report_usage_error("no results file given", NULL);
	for (i = optind; i < argc; i++) {
		if (cxs_results_load(&set, argv[i], err, sizeof(err))) {
			fprintf(stderr, "ctxstat report: %s\n", err);
			cxs_results_free(&set);
			return 1;
		}
	}
	if (cxs_results_check_unique(&set, err, sizeof(err))) {
		fprintf(stderr, "ctxstat report: %s\n", err);
		cxs_results_free(&set);
		return 1;
	}
	if (output && !(out = cxs_outfile_open(output, false, false))) {
		cxs_results_free(&set);
		return 1;
	}
	if (cxs_results_table(out, fmt, sep, threshold, &set)) {
		fprintf(stderr, "ctxstat report: the files hold no results\n");
		ret = 1;
	}
	if (cxs_outfile_close(out, output, "ctxstat report"))
		ret = 1;
	cxs_results_free(&set);
	return ret;
}
