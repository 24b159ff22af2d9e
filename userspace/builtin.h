/* SPDX-License-Identifier: GPL-2.0 */
/*
 * builtin: ctxstat's subcommands, a file each (builtin-<name>.c, as
 * perf's builtin-*.c), entered through cmd_<name>() from main() in
 * ctxstat.c. argv[0] is the subcommand's name ("ctxstat" or "stat" for
 * stat); each returns ctxstat's exit code.
 */
#ifndef CTXSTAT_BUILTIN_H
#define CTXSTAT_BUILTIN_H

#include <stdbool.h>
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

/*
 * `ctxstat report <file.json>...`: the table of saved results; `ctxstat
 * report -i FILE` (perf stat report's): perf stat record's data, printed
 * as stat prints counts.
 */
int cmd_report(int argc, char **argv);

/*
 * stat record (builtin-record.c): the parser's record word makes
 * cmd_stat() open the data file before the runs and write the runs to it
 * after them. @argc/@argv: the builtin's, for HEADER_CMDLINE.
 */
struct cxs_args;
struct cxs_runner;
struct cxs_recording {
	int fd;
	bool pipe;
	const char *path;	/* the file's, NULL for the pipe */
	bool written;		/* a file no run was written to is removed */
	int argc;
	char **argv;
};
void cxs_record_usage(FILE *f);
/* 0, or -1 after printing why */
int cxs_record_open(const struct cxs_args *a, int argc, char **argv,
		    struct cxs_recording *rec);
int cxs_record_write(struct cxs_recording *rec, const struct cxs_runner *r);
int cxs_record_close(struct cxs_recording *rec);

/*
 * `ctxstat quiesce [--cpus LIST] [--] <command>`: run the command on a
 * machine set up for quiet measurements (scripts/quiesce, a shell
 * script: it only writes sysfs and procfs files). Returns only when the
 * script cannot be run.
 */
int cmd_quiesce(int argc, char **argv);

#endif
