// SPDX-License-Identifier: GPL-2.0
/*
 * ctxstat: perf stat for ctxcount. main() alone, as perf.c: it picks the
 * subcommand, whose cmd_<name>() in builtin-<name>.c does the work. A
 * first argument naming one runs it, anything else is `ctxstat
 * [<options>] <command>` (so a workload named like a subcommand needs
 * "--" first).
 * A first "stat" is perf's word order, `perf stat ...` with "perf"
 * replaced: skipped, the rest is perf stat's arguments. "record", as in
 * perf, is a word of stat's command line (builtin-record.c).
 */
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "util/util.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
} subcommands[] = {
	{ "compare", cmd_compare,
	  "run two commands alternately and compare their counts" },
	/* perf's word, taken by stat's parser after stat's options too */
	{ "record", NULL,
	  "count as stat does and write perf stat record's data (-o file)" },
	{ "report", cmd_report,
	  "tabulate results saved with --save; -i: perf stat record's data" },
	{ "quiesce", cmd_quiesce,
	  "run a command on a machine set up for quiet measurements" },
};

static void subcommands_usage(FILE *f)
{
	size_t i;

	fputs("\nSubcommands (`ctxstat <subcommand> -h` for their options):\n", f);
	for (i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(f, "    %-8s  %s\n", subcommands[i].name,
			subcommands[i].help);
}

int main(int argc, char **argv)
{
	size_t i;

	/* perf groups thousands per the locale ("%'"); so do we. */
	setlocale(LC_ALL, "");
	if (argc > 1 && !strcmp(argv[1], "stat"))
		return cmd_stat(argc - 1, argv + 1, subcommands_usage);
	for (i = 0; argc > 1 && i < ARRAY_SIZE(subcommands); i++)
		if (subcommands[i].fn && !strcmp(argv[1], subcommands[i].name))
			return subcommands[i].fn(argc - 1, argv + 1);
	return cmd_stat(argc, argv, subcommands_usage);
}
