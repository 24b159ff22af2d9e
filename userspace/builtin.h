/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin: ctxstat's subcommands, a file each (builtin-<name>.c, as
 * perf's builtin-*.c), entered through cmd_<name>() from main() in
 * ctxstat.c. argv[0] is the subcommand's name ("ctxstat" or "stat" for
 * stat); each returns ctxstat's exit code.
 */
#ifndef CTXSTAT_BUILTIN_H
#define CTXSTAT_BUILTIN_H

#include <stdio.h>

/*
 * `ctxstat [<options>] <command>`, perf stat's job: count a workload (or
 * -p/-a target) over one or more runs and print the counts.
 * @subcommands_usage prints the list of subcommands after the usage.
 */
int cmd_stat(int argc, char **argv, void (*subcommands_usage)(FILE *f));

/*
 * `ctxstat compare <command A> --- <command B>`: run A and B
 * alternately, then print per event whether B counts significantly more
 * or less than A.
 */
int cmd_compare(int argc, char **argv);

/* `ctxstat report <file.json>...`: the table of saved results. */
int cmd_report(int argc, char **argv);

/*
 * `ctxstat quiesce [--cpus LIST] [--] <command>`: run the command on a
 * machine set up for quiet measurements (scripts/quiesce, a shell
 * script: it only writes sysfs and procfs files). Returns only when the
 * script cannot be run.
 */
int cmd_quiesce(int argc, char **argv);

#endif
