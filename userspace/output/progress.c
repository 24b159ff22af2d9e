// SPDX-License-Identifier: GPL-2.0
/* progress: see output/progress.h. */
#include <unistd.h>

#include "output/progress.h"

void cxs_progress_init(struct cxs_progress *p, FILE *f, const char *who,
		       int max, bool until, int verbose)
{
	p->f = f;
	p->who = who;
	p->max = max;
	p->until = until;
	p->lines = max > 1 && verbose;
	p->tty = max > 1 && !verbose && isatty(fileno(f));
	p->width = 0;
}

void cxs_progress_run(struct cxs_progress *p, int run, const char *side)
{
	char s[16] = "";

	if (side)
		snprintf(s, sizeof(s), " (%s)", side);
	if (p->lines)
		fprintf(p->f, "[ %s: executing run #%d%s ... ]\n", p->who, run, s);
	if (!p->tty)
		return;
	/*
	 * The cursor goes back to the line's start: what the workload or an
	 * error prints next overwrites the line rather than trail it.
	 */
	p->width = fprintf(p->f, "[ %s: run %d %s %d%s ]\r", p->who, run,
			   p->until ? "of at most" : "of", p->max, s) - 1;
	fflush(p->f);
}

void cxs_progress_done(struct cxs_progress *p)
{
	if (!p->tty || !p->width)
		return;
	fprintf(p->f, "%*s\r", p->width, "");
	fflush(p->f);
	p->width = 0;
}
