/* SPDX-License-Identifier: GPL-2.0 */
/*
 * results: ctxstat's saved results (--save FILE.json), written and read
 * back for `ctxstat report`. The format is documented in ctxstat-report(1)
 * (SAVED RESULTS) and versioned by CXS_RESULTS_VERSION; a reader refuses
 * a version it does not know rather than guess.
 */
#ifndef CTXSTAT_RESULTS_RESULTS_H
#define CTXSTAT_RESULTS_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#include "stats/sample.h"

#define CXS_RESULTS_FORMAT	"ctxstat-results"
#define CXS_RESULTS_VERSION	1

struct cxs_result_event {
	char *name;			/* "instructions:t" */
	struct cxs_sample values;	/* one per run: counts, clocks in ns */
	char *error;			/* not counted: why; NULL if counted */
};

/* One configuration of one benchmark: every run of one command. */
struct cxs_result {
	char *benchmark;
	char *config;
	char **command;			/* NULL-terminated */
	struct cxs_sample elapsed_ns;
	struct cxs_result_event *ev;
	int nr_ev;
	const char *source;		/* the file it was read from; not owned */
};

struct cxs_result_set {
	struct cxs_result *r;
	int nr;
};

/*
 * Write a results document with @nr results. 0, or -errno of the stream,
 * or -ENOMEM (the document is then incomplete).
 */
int cxs_results_write(FILE *f, const struct cxs_result *r, int nr);

/*
 * Read the results document @text (from @name, for messages; it must
 * outlive @set) and append its results to @set. 0, or -1 with the reason
 * in @err.
 */
int cxs_results_parse(struct cxs_result_set *set, const char *name,
		      const char *text, size_t len, char *err, size_t errlen);
/* The same from a file. */
int cxs_results_load(struct cxs_result_set *set, const char *path,
		     char *err, size_t errlen);

/*
 * Whether every (benchmark, configuration) pair of @set is there once: a
 * table cell holds one. 0, or -1 naming the pair and its files in @err.
 */
int cxs_results_check_unique(const struct cxs_result_set *set,
			     char *err, size_t errlen);

void cxs_result_free(struct cxs_result *r);
void cxs_results_free(struct cxs_result_set *set);

#endif
