/* SPDX-License-Identifier: GPL-2.0 */
/*
 * runs_fixture: a subcommand run in-process with stdout and stderr
 * captured, and readers of its CSV rows, for the tests that run ctxstat
 * against tests/fake_nl.c. Include after kselftest_harness.h.
 */
#ifndef CTXSTAT_RUNS_FIXTURE_H
#define CTXSTAT_RUNS_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builtin.h"

static inline void no_usage(FILE *f)
{
	(void)f;
}

static inline int stat_main(int argc, char **argv)
{
	return cmd_stat(argc, argv, no_usage);
}

static inline char *slurp(FILE *f)
{
	char *buf;
	long n;

	fflush(f);
	n = ftell(f);
	buf = calloc(1, n + 1);
	rewind(f);
	if (buf && fread(buf, 1, n, f) != (size_t)n)
		buf[0] = '\0';
	fclose(f);
	return buf;
}

static inline char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");

	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	return slurp(f);
}

struct outcome {
	int code;
	char *out, *err;
};

/*
 * fn(argv) with stderr captured, and stdout too, or into the file
 * @out_path when not NULL (binary data: o->out is then "").
 */
static inline void run_to(int (*fn)(int, char **), char **argv,
			  const char *out_path, struct outcome *o)
{
	FILE *fo = out_path ? fopen(out_path, "w") : tmpfile(), *fe = tmpfile();
	int saved_out = dup(1), saved_err = dup(2), argc = 0;

	while (argv[argc])
		argc++;
	fflush(stdout);
	fflush(stderr);
	dup2(fileno(fo), 1);
	dup2(fileno(fe), 2);
	o->code = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(saved_out, 1);
	dup2(saved_err, 2);
	close(saved_out);
	close(saved_err);
	if (out_path) {
		fclose(fo);
		o->out = calloc(1, 1);
	} else {
		o->out = slurp(fo);
	}
	o->err = slurp(fe);
}

/* fn(argv) with stdout and stderr captured. */
static inline void run(int (*fn)(int, char **), char **argv, struct outcome *o)
{
	run_to(fn, argv, NULL, o);
}

static inline void done(struct outcome *o)
{
	free(o->out);
	free(o->err);
}

#define ARGV(...) ((char *[]){ __VA_ARGS__, NULL })

/* Lines of @text that contain @needle. */
static inline int count_lines(const char *text, const char *needle)
{
	const char *p = text, *nl;
	int n = 0;

	for (; *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			nl = p + strlen(p);
		if (memmem(p, nl - p, needle, strlen(needle)))
			n++;
		if (!*nl)
			break;
	}
	return n;
}

/*
 * Sum the values of @event's CSV rows in @text: those that begin with the
 * -I time column into @sum (their count in @n, times non-decreasing), the
 * --summary row's into @total.
 */
static inline void csv_intervals(const char *text, const char *event, double *sum,
			  int *n, double *total)
{
	char name[64], prefix[32];
	double t, last = 0, v;
	const char *p;

	*sum = 0;
	*n = 0;
	*total = -1;
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		if (sscanf(p, "%31[^,],%lf,,%63[^,\n]", prefix, &v, name) == 3 &&
		    !strcmp(name, event)) {
			if (strstr(prefix, "summary")) {
				*total = v;
			} else if (sscanf(prefix, "%lf", &t) == 1) {
				*sum += v;
				(*n)++;
				if (t < last)
					*total = -2;	/* time went back */
				last = t;
			}
		}
		if (!strchr(p, '\n'))
			break;
	}
}

/*
 * Sum @event's -A CSV rows of CPU @cpu in @text ("[time,]CPUn,value,,event"):
 * the interval rows into @sum (counted in @n), the --summary row (or
 * without -I the only one) into @total.
 */
static inline void csv_cpu_rows(const char *text, const char *event, int cpu,
			 double *sum, int *n, double *total)
{
	char name[64], first[32], want[16];
	const char *p, *row;
	double v;
	bool timed;

	snprintf(want, sizeof(want), "CPU%d", cpu);
	*sum = 0;
	*n = 0;
	*total = -1;
	for (p = text; *p; p = strchr(p, '\n') + 1) {
		timed = sscanf(p, "%31[^,],", first) == 1 && strncmp(first, "CPU", 3) &&
			!strstr(first, "summary");
		row = timed || strstr(first, "summary") ? strchr(p, ',') + 1 : p;
		if (sscanf(row, "%31[^,],%lf,,%63[^,\n]", first, &v, name) == 3 &&
		    !strcmp(first, want) && !strcmp(name, event)) {
			if (timed) {
				*sum += v;
				(*n)++;
			} else {
				*total = v;
			}
		}
		if (!strchr(p, '\n'))
			break;
	}
}

/* The count of @event's CSV row ("N,unit,event,..."), -1 if none. */
static inline double csv_count(const char *text, const char *event)
{
	char unit[16], name[64];
	const char *p;
	double v;

	for (p = text; *p; p = strchr(p, '\n') + 1) {
		if (sscanf(p, "%lf,%15[^,],%63[^,\n]", &v, unit, name) == 3 &&
		    !strcmp(name, event))
			return v;
		if (!strchr(p, '\n'))
			break;
	}
	return -1;
}

#endif
