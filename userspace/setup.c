// SPDX-License-Identifier: GPL-2.0
/*
 * setup: what stat and compare do before their first run (see setup.h).
 */
#include <stdio.h>
#include <string.h>

#include "events/detailed.h"
#include "output/outfile.h"
#include "results/save.h"
#include "run/repeat.h"
#include "setup.h"

/*
 * A tool event is one value of the run: it has none per CPU or per
 * thread (perf 6.1 prints duration_time on CPU0's row alone, and the
 * same on every thread's).
 */
static int check_tools(const struct cxs_args *a, const struct cxs_event_list *l)
{
	int i;

	if (!a->no_aggr && !cxs_args_per_thread(a))
		return 0;
	for (i = 0; i < l->nr; i++) {
		if (!cxs_event_is_tool(&l->ev[i]))
			continue;
		fprintf(stderr, "ctxstat: %s is the run's wall-clock time, one value: not with %s\n",
			l->ev[i].name, cxs_aggr_option(a->aggr));
		return -1;
	}
	return 0;
}

static int add_events(const struct cxs_args *a, struct cxs_event_list *l)
{
	char err[256];
	int i;

	if (a->null_run)
		return 0;
	for (i = 0; i < a->nr_event_specs; i++) {
		if (cxs_events_add(l, a->event_specs[i], err, sizeof(err)))
			goto bad;
	}
	if (!a->nr_event_specs &&
	    cxs_events_add_defaults(l, a->system_wide, !a->no_twins, err,
				    sizeof(err)))
		goto bad;
	/*
	 * perf 6.1 appends -d's events to -e's too; their :t twins come as
	 * the default events' do, without -e and --no-twins
	 */
	if (a->detailed &&
	    cxs_events_add_detailed(l, a->detailed,
				    !a->nr_event_specs && !a->no_twins,
				    a->verbose, cxs_perf_event_open, err,
				    sizeof(err)))
		goto bad;
	return check_tools(a, l);
bad:
	fprintf(stderr, "ctxstat: %s\n", err);
	return -1;
}

const char *cxs_stat_output(const struct cxs_args *a)
{
	return a->output && strcmp(a->output, "-") ? a->output : NULL;
}

int cxs_stat_prepare(const struct cxs_args *a, struct cxs_event_list *l,
		     FILE *dflt, FILE **out)
{
	if (add_events(a, l))
		return CXS_EXIT_USAGE;
	if (cxs_until_event(a, l) < 0) {
		fprintf(stderr, "ctxstat: --repeat-event %s: not one of the counted events\n",
			a->repeat_event);
		return CXS_EXIT_USAGE;
	}
	if (a->save && cxs_save_check(a->save))
		return 1;
	*out = dflt;
	/*
	 * perf: "-" is the default stream, without the started-on line; so
	 * is JSON in newer perf (7.2; 6.1 still wrote it): the file holds
	 * JSON lines only
	 */
	if (cxs_stat_output(a)) {
		*out = cxs_outfile_open(a->output, a->append,
					!a->compare && !a->json);
		if (!*out)
			return 1;
	}
	return 0;
}
