// SPDX-License-Identifier: GPL-2.0
/*
 * builtin-record: `ctxstat record [<options>] [--] <command>` (and perf's
 * `ctxstat stat record ...`): stat's runs, printed as stat prints them,
 * and written as perf stat record's data (results/stat-record.c,
 * perfdata/stat-write.c) to -o's file, perf.data by default, or with
 * "-o -" to standard output in perf's pipe mode. Opened before the first
 * run, so that a path that cannot be written costs no run, as perf;
 * written after the last, and removed when no run was.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"
#include "perfdata/stat-data.h"
#include "results/stat-record.h"

static const char record_help[] =
"Usage: ctxstat [<options>] record [-o <file>] [<options>] [--] <command>\n"
"\n"
"Count as ctxstat does, print the counts, and write them as perf stat\n"
"record does, for perf stat report -i (and ctxstat report -i).\n"
"\n"
"    -o, --output <file>   the data file (default perf.data); - is standard\n"
"                          output, perf's pipe mode\n"
"    -h, --help            this text\n"
"\n"
"Every other option is ctxstat's (ctxstat --help).\n";

void cxs_record_usage(FILE *f)
{
	fputs(record_help, f);
}

int cxs_record_open(const struct cxs_args *a, int argc, char **argv,
		    struct cxs_recording *rec)
{
	*rec = (struct cxs_recording){ .fd = -1, .argc = argc, .argv = argv };
	if (!strcmp(a->record_file, "-")) {
		/*
		 * perf's pipe mode: the data is standard output, so the
		 * workload's output (and anything else's) goes to stderr,
		 * as perf's evlist__prepare_workload() sends it.
		 */
		rec->pipe = true;
		rec->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
		if (rec->fd < 0 || dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
			fprintf(stderr, "ctxstat: stat record to standard output: %s\n",
				strerror(errno));
			return -1;
		}
		return 0;
	}
	rec->path = a->record_file;
	rec->fd = open(a->record_file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (rec->fd < 0) {
		fprintf(stderr, "ctxstat: stat record: %s: %s\n", a->record_file,
			strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * HEADER_CMDLINE as perf's: the binary's path, then the arguments after
 * it (perf's start at "stat": ours at the subcommand's word).
 */
static int cmdline_of(const struct cxs_recording *rec, char ***out)
{
	static char exe[4096];
	char **v;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	int i, skip = rec->argc && !strchr(rec->argv[0], '/') &&
		      strcmp(rec->argv[0], "ctxstat") ? 0 : 1;

	exe[n > 0 ? n : 0] = '\0';
	v = calloc(rec->argc + 1, sizeof(*v));
	if (!v)
		return -1;
	v[0] = n > 0 ? exe : "ctxstat";
	for (i = skip; i < rec->argc; i++)
		v[1 + i - skip] = rec->argv[i];
	*out = v;
	/* the strings are copied at once, exe's too */
	return 1 + rec->argc - skip;
}

int cxs_record_write(struct cxs_recording *rec, const struct cxs_runner *r)
{
	struct cxs_stat_data d;
	char err[256], **cmdline = NULL;
	int nr, ret = 0;

	nr = cmdline_of(rec, &cmdline);
	if (nr < 0 || cxs_stat_record_of_runs(r, cmdline, nr, &d)) {
		free(cmdline);
		fprintf(stderr, "ctxstat: stat record: out of memory\n");
		return -1;
	}
	free(cmdline);
	d.pipe = rec->pipe;
	if (cxs_stat_write(rec->fd, &d, err, sizeof(err))) {
		fprintf(stderr, "ctxstat: stat record: %s: %s\n",
			rec->pipe ? "standard output" : r->args->record_file, err);
		ret = -1;
	}
	rec->written = !ret;
	cxs_stat_data_free(&d);
	return ret;
}

int cxs_record_close(struct cxs_recording *rec)
{
	int ret = 0;

	if (rec->fd >= 0 && close(rec->fd) && errno != EINTR) {
		fprintf(stderr, "ctxstat: stat record: %s\n", strerror(errno));
		ret = -1;
	}
	rec->fd = -1;
	/* no run counted (the module missing, the command not found) */
	if (rec->path && !rec->written)
		unlink(rec->path);
	return ret;
}
