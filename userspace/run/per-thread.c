// SPDX-License-Identifier: GPL-2.0
/*
 * per-thread: --per-thread's rows and values (see run/per-thread.h). The module
 * gives a row per thread that got task events at SESSION_NEW; each row's
 * FULL is perf's value of that thread's events, children included.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/per-cpu.h"
#include "run/per-thread.h"

void cxs_perthread_init(struct cxs_perthread *pt, const struct cxs_args *a)
{
	memset(pt, 0, sizeof(*pt));
	/* perf: target__has_per_thread(), i.e. -a --per-thread only */
	pt->rows.skip_zero = a->system_wide;
}

int cxs_perthread_keep(struct cxs_perthread *pt, int nr_counters,
		       const struct cxs_counter_values *counters)
{
	struct ctxc_threads *t = &pt->threads;
	struct cxs_thread_row *row;
	int k, i;

	pt->nr_counters = nr_counters;
	pt->rows.row = calloc(t->nr ?: 1, sizeof(*pt->rows.row));
	if (!pt->rows.row)
		return -ENOMEM;
	for (k = 0; k < t->nr; k++) {
		row = &pt->rows.row[k];
		row->tid = t->v[k].tid;
		memcpy(row->comm, t->v[k].comm, sizeof(row->comm));
		if (pt->workload && row->tid == pt->workload && pt->workload_argv)
			cxs_exec_comm(row->comm, sizeof(row->comm),
				      pt->workload_argv);
		row->counters = calloc(nr_counters ?: 1, sizeof(*row->counters));
		/* from here on, cxs_perthread_free() frees this row too */
		pt->rows.nr = k + 1;
		if (!row->counters)
			return -ENOMEM;
		for (i = 0; i < nr_counters; i++)
			if (cxs_row_keep(&row->counters[i], &t->v[k].ev[i],
					 counters[i].error, NULL))
				return -ENOMEM;
	}
	/* A READ of every thread of the system is large: nothing reads it again. */
	free(t->v);
	memset(t, 0, sizeof(*t));
	return 0;
}

void cxs_exec_comm(char *comm, size_t size, char *const *argv)
{
	const char *base = strrchr(argv[0], '/');

	/* exec sets the comm from the path's last part, cut to fit */
	snprintf(comm, size, "%s", base ? base + 1 : argv[0]);
}

void cxs_perthread_free(struct cxs_perthread *pt)
{
	int k, i;

	for (k = 0; k < pt->rows.nr; k++) {
		for (i = 0; pt->rows.row[k].counters && i < pt->nr_counters; i++)
			cxs_counter_free(&pt->rows.row[k].counters[i]);
		free(pt->rows.row[k].counters);
	}
	free(pt->rows.row);
	free(pt->threads.v);
	memset(pt, 0, sizeof(*pt));
}

struct sort_key {
	double val;
	pid_t tid;
	int row;
};

static int by_value(const void *pa, const void *pb)
{
	const struct sort_key *a = pa, *b = pb;

	if (a->val != b->val)
		return a->val > b->val ? -1 : 1;
	return (a->tid > b->tid) - (a->tid < b->tid);
}

int cxs_thread_order(const struct cxs_thread_rows *t, const struct cxs_event *ev,
		     int *order)
{
	struct sort_key *key = calloc(t->nr ?: 1, sizeof(*key));
	int k, n = 0;

	if (!key)
		return -ENOMEM;
	for (k = 0; k < t->nr; k++) {
		key[n] = (struct sort_key){
			.val = cxs_sample_mean(cxs_event_values(ev, t->row[k].counters)),
			.tid = t->row[k].tid,
			.row = k,
		};
		if (key[n].val != 0 || !t->skip_zero)
			n++;
	}
	qsort(key, n, sizeof(*key), by_value);
	for (k = 0; k < n; k++)
		order[k] = key[k].row;
	free(key);
	return n;
}
