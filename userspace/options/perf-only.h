/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perf-only: perf stat's options (perf 6.1) that ctxstat does not have.
 * They are recognized, so that ctxstat can say "perf option not
 * supported by ctxstat: --tid (use ...)", with what to use instead,
 * rather than "unknown option" and its usage. ctxstat(1)'s section PERF
 * OPTIONS NOT SUPPORTED is generated from the same table
 * (tests/perf_only_man.c: make -C userspace man), so the two cannot
 * differ; tests/perfonly_test.c fails when the committed page does.
 */
#ifndef CTXSTAT_OPTIONS_PERF_ONLY_H
#define CTXSTAT_OPTIONS_PERF_ONLY_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

struct cxs_perf_only {
	const char *name;	/* long name, without "--" */
	char letter;		/* short one, 0 if none */
	int has_arg;		/* getopt_long's */
	/*
	 * What to use instead ("use -p ..."), or, where ctxstat has
	 * nothing, that it has not and why ("no cgroups: ..."). Never
	 * NULL; plain text, no final period: it ends the error message in
	 * parentheses and is the entry's paragraph in ctxstat(1).
	 */
	const char *instead;
};

extern const struct cxs_perf_only cxs_perf_only[];
extern const size_t cxs_nr_perf_only;

/* The entry for short option @letter, NULL if it is none of them. */
const struct cxs_perf_only *cxs_perf_only_letter(int letter);

/*
 * Whether @p selects what is counted (a thread, a cgroup), as -p and -a
 * do: compare counts its two commands and says such an option does not
 * apply, rather than offer -p or -a, which it refuses too.
 */
bool cxs_perf_only_selects_target(const struct cxs_perf_only *p);

/* "perf option not supported by ctxstat: --tid (instead)" into @err: -1. */
int cxs_perf_only_err(const struct cxs_perf_only *p, char *err, size_t len);

#endif
