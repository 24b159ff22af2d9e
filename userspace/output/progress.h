/* SPDX-License-Identifier: GPL-2.0 */
/*
 * progress: which run of a series is going on, on stderr: with -v one
 * line per run, perf's "[ perf stat: executing run #N ... ]"; else, when
 * stderr is a terminal, one line rewritten in place and cleared before
 * anything else is printed. Nothing for a single run.
 */
#ifndef CTXSTAT_OUTPUT_PROGRESS_H
#define CTXSTAT_OUTPUT_PROGRESS_H

#include <stdbool.h>
#include <stdio.h>

struct cxs_progress {
	FILE *f;
	const char *who;	/* "ctxstat", "ctxstat compare" */
	int max;		/* runs at most; 1: say nothing */
	bool until;		/* --repeat-until: max is a bound */
	bool lines;		/* -v: a line per run */
	bool tty;		/* a line rewritten in place */
	int width;		/* of the line shown, to clear it */
};

void cxs_progress_init(struct cxs_progress *p, FILE *f, const char *who,
		       int max, bool until, int verbose);
/* Run @run (from 1) starts; @side "A", "B" or NULL. */
void cxs_progress_run(struct cxs_progress *p, int run, const char *side);
/* The series is over: clear the line on a terminal. */
void cxs_progress_done(struct cxs_progress *p);

#endif
