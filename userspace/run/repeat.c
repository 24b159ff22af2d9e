// SPDX-License-Identifier: GPL-2.0
/* repeat: see run/repeat.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/repeat.h"
#include "stats/chi-square.h"

int cxs_max_runs(const struct cxs_args *a)
{
	if (a->repeat_until && !a->repeat_set)
		return CXS_REPEAT_UNTIL_MAX_RUNS;
	return a->repeat;
}

int cxs_until_event(const struct cxs_args *a, const struct cxs_event_list *l)
{
	int i;

	if (!a->repeat_event)
		return 0;
	for (i = 0; i < l->nr; i++)
		if (!strcmp(l->ev[i].name, a->repeat_event))
			return i;
	return -1;
}

/* chi-square's (1 - conf) quantile for k degrees of freedom, kept. */
static double chisq_low(int k)
{
	static double q[1024];

	if (k >= (int)(sizeof(q) / sizeof(q[0])))
		return cxs_chisq_quantile(1 - CXS_REPEAT_UNTIL_CONF, k);
	if (!q[k])
		q[k] = cxs_chisq_quantile(1 - CXS_REPEAT_UNTIL_CONF, k);
	return q[k];
}

double cxs_rse_upper_pct(const struct cxs_sample *v)
{
	if (v->n < 2)
		return INFINITY;
	return cxs_sample_rse_pct(v) * sqrt((v->n - 1) / chisq_low(v->n - 1));
}

bool cxs_rse_holds(const struct cxs_sample *v, double target_pct)
{
	return v->n >= CXS_REPEAT_UNTIL_MIN_RUNS &&
	       cxs_rse_upper_pct(v) < target_pct;
}

bool cxs_precise_enough(const struct cxs_runner *r, int ev)
{
	const struct cxs_sample *v = cxs_runner_values(r, ev);

	if (r->runs_done < CXS_REPEAT_UNTIL_MIN_RUNS)
		return false;
	if (!v->n)
		return true;
	return cxs_rse_holds(v, r->args->repeat_until);
}

void cxs_print_until(const struct cxs_runner *r, int ev, const char *who)
{
	const struct cxs_sample *v = cxs_runner_values(r, ev);
	const char *name = r->events->ev[ev].name;
	double target = r->args->repeat_until;

	if (!v->n) {
		fprintf(stderr, "ctxstat: %s%s: not counted, --repeat-until has nothing to watch\n",
			who, name);
		return;
	}
	fprintf(stderr, "ctxstat: %s%s: relative standard error %.3f%% after %d runs, at most %.3f%% with %g%% confidence (target %g%%%s)\n",
		who, name, cxs_sample_rse_pct(v), v->n, cxs_rse_upper_pct(v),
		100 * CXS_REPEAT_UNTIL_CONF, target,
		cxs_rse_holds(v, target) ? "" : ", not reached");
}

void cxs_say_until_capped(FILE *f, const struct cxs_args *a)
{
	if (!a->repeat_until || cxs_max_runs(a) >= CXS_REPEAT_UNTIL_MIN_RUNS)
		return;
	fprintf(f, "ctxstat: --repeat-until stops no series before %d runs: -r %d makes it %d run%s%s, its target not reached\n",
		CXS_REPEAT_UNTIL_MIN_RUNS, a->repeat, a->repeat,
		a->repeat == 1 ? "" : "s", a->compare ? " of each command" : "");
}

/* Plain numbers (no grouping): the line must not look like a CSV row. */
static void print_event_outliers(const struct cxs_sample *v, const char *who,
				 const char *name, const bool *o)
{
	double mad = cxs_sample_mad(v), med = cxs_sample_median(v);
	int j, first = 1;

	fprintf(stderr, "ctxstat: %s%s: outlier runs (more than %g x MAD %.*f from the median %.*f, kept in the mean):",
		who, name, CXS_OUTLIER_MADS, mad < 10 ? 3 : 0, mad,
		med < 10 ? 3 : 0, med);
	for (j = 0; j < v->n; j++) {
		if (!o[j])
			continue;
		fprintf(stderr, "%s run %d (%.*f)", first ? "" : ",", j + 1,
			fabs(v->v[j]) < 10 ? 3 : 0, v->v[j]);
		first = 0;
	}
	fputc('\n', stderr);
}

void cxs_print_outliers(const struct cxs_runner *r, const char *who)
{
	const struct cxs_event_list *l = r->events;
	bool *o;
	int i;

	for (i = 0; i < l->nr; i++) {
		const struct cxs_sample *v = cxs_runner_values(r, i);

		o = calloc(v->n ? v->n : 1, sizeof(*o));
		if (o && cxs_sample_outliers(v, o) > 0)
			print_event_outliers(v, who, l->ev[i].name, o);
		free(o);
	}
}

bool cxs_noise_check_wanted(const struct cxs_args *a)
{
	return !a->no_noise_check &&
	       (a->compare || a->repeat > 1 || a->repeat_until);
}
