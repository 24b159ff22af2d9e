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

#include "run/per-thread.h"
#include "stats/perf-stat.h"

/*
 * A counter's values in a row, a double each: the buckets last, from
 * CTXCOUNT_BUCKET_TASK on, the task bucket alone without --breakdown.
 */
enum { KEPT_FULL, KEPT_ENABLED, KEPT_RUNNING, KEPT_BUCKETS };

/* A bit of cxs_thread_row.valued for each counter a session can have. */
_Static_assert(CTXCOUNT_MAX_EVENTS <= 16, "cxs_thread_row.valued too narrow");

static int kept_buckets(const struct cxs_thread_rows *t)
{
	return t->all_buckets ? CTXCOUNT_BUCKET_MAX - CTXCOUNT_BUCKET_TASK + 1 : 1;
}

static size_t kept_per_counter(const struct cxs_thread_rows *t)
{
	return KEPT_BUCKETS + kept_buckets(t);
}

static double *kept(const struct cxs_thread_rows *t, int k, int counter)
{
	return t->val + ((size_t)k * t->nr_counters + counter) *
			kept_per_counter(t);
}

void cxs_perthread_init(struct cxs_perthread *pt, const struct cxs_args *a,
			int nr_counters)
{
	memset(pt, 0, sizeof(*pt));
	pt->rows.nr_counters = nr_counters;
	pt->rows.all_buckets = a->breakdown;
	/* perf: target__has_per_thread(), i.e. -a --per-thread only */
	pt->rows.skip_zero = a->system_wide;
}

/* Room for one row more, by doubling: rows come without a count. */
static int grow_rows(struct cxs_thread_rows *t)
{
	int cap = t->cap ? 2 * t->cap : 64;
	size_t vals = (size_t)cap * t->nr_counters * kept_per_counter(t);
	struct cxs_thread_row *row;
	double *val;

	row = realloc(t->row, cap * sizeof(*row));
	if (!row)
		return -ENOMEM;
	t->row = row;
	val = realloc(t->val, (vals ?: 1) * sizeof(*val));
	if (!val)
		return -ENOMEM;
	t->val = val;
	t->cap = cap;
	return 0;
}

/* What cxs_counter_add() keeps of a reading, scaled as perf scales. */
static void keep_values(const struct cxs_thread_rows *t, double *v,
			const struct ctxc_event_val *ev)
{
	uint64_t ena = ev->time_enabled, run = ev->time_running;
	int b;

	v[KEPT_FULL] = cxs_scale_count(ev->full, ena, run);
	v[KEPT_ENABLED] = ena;
	v[KEPT_RUNNING] = run;
	for (b = 0; b < kept_buckets(t); b++)
		v[KEPT_BUCKETS + b] = cxs_scale_count(
			ev->bucket[CTXCOUNT_BUCKET_TASK + b], ena, run);
}

int cxs_perthread_add(struct cxs_perthread *pt, const struct ctxc_thread_val *in,
		      const int *counter_of, int nr_events)
{
	struct cxs_thread_rows *t = &pt->rows;
	const struct ctxc_event_val *ev;
	struct cxs_thread_row *row;
	int e, i;

	if (t->nr == t->cap && grow_rows(t))
		return -ENOMEM;
	row = &t->row[t->nr];
	memset(row, 0, sizeof(*row));
	row->tid = in->tid;
	memcpy(row->comm, in->comm, sizeof(row->comm));
	for (e = 0; e < nr_events; e++) {
		ev = &in->ev[e];
		i = counter_of[e];
		if (i < 0 || i >= t->nr_counters || !ev->present || ev->error)
			continue;
		keep_values(t, kept(t, t->nr, i), ev);
		row->valued |= 1U << i;
	}
	t->nr++;
	return 0;
}

static double last_value(const struct cxs_sample *s)
{
	return s->n ? s->v[s->n - 1] : 0;
}

int cxs_thread_rows_add(struct cxs_thread_rows *t, pid_t tid, const char *comm,
			const struct cxs_counter_values *c)
{
	struct cxs_thread_row *row;
	double *v;
	int i, b;

	if (t->nr == t->cap && grow_rows(t))
		return -ENOMEM;
	row = &t->row[t->nr];
	memset(row, 0, sizeof(*row));
	row->tid = tid;
	snprintf(row->comm, sizeof(row->comm), "%s", comm);
	for (i = 0; i < t->nr_counters; i++) {
		if (c[i].error || !c[i].enabled.n)
			continue;
		v = kept(t, t->nr, i);
		v[KEPT_FULL] = last_value(&c[i].full);
		v[KEPT_ENABLED] = last_value(&c[i].enabled);
		v[KEPT_RUNNING] = last_value(&c[i].running);
		for (b = 0; b < kept_buckets(t); b++)
			v[KEPT_BUCKETS + b] =
				last_value(&c[i].bucket[CTXCOUNT_BUCKET_TASK + b]);
		row->valued |= 1U << i;
	}
	t->nr++;
	return 0;
}

void cxs_thread_rows_free(struct cxs_thread_rows *t)
{
	free(t->row);
	free(t->val);
	t->row = NULL;
	t->val = NULL;
	t->nr = t->cap = 0;
}

void cxs_perthread_keep(struct cxs_perthread *pt,
			const struct cxs_counter_values *counters)
{
	struct cxs_thread_rows *rows = &pt->rows;
	struct cxs_thread_row *row;
	int k, i;

	for (i = 0; i < rows->nr_counters; i++)
		rows->error[i] = counters[i].error;
	for (k = 0; k < rows->nr; k++) {
		row = &rows->row[k];
		if (pt->workload && row->tid == pt->workload && pt->workload_argv)
			cxs_exec_comm(row->comm, sizeof(row->comm),
				      pt->workload_argv);
	}
}

void cxs_thread_counters(const struct cxs_thread_rows *t, int k,
			 struct cxs_counter_values *c)
{
	const double *v;
	int i, b, n;

	for (i = 0; i < t->nr_counters; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		/* An error stays on every row; its values are not shown. */
		c[i].error = t->error[i];
		n = !t->error[i] && (t->row[k].valued & (1U << i));
		v = kept(t, k, i);
		c[i].full = cxs_sample_view(&v[KEPT_FULL], n);
		c[i].enabled = cxs_sample_view(&v[KEPT_ENABLED], n);
		c[i].running = cxs_sample_view(&v[KEPT_RUNNING], n);
		for (b = 0; b < kept_buckets(t); b++)
			c[i].bucket[CTXCOUNT_BUCKET_TASK + b] =
				cxs_sample_view(&v[KEPT_BUCKETS + b], n);
		c[i].counted = n && v[KEPT_RUNNING] > 0;
	}
}

void cxs_exec_comm(char *comm, size_t size, char *const *argv)
{
	const char *base = strrchr(argv[0], '/');

	/* exec sets the comm from the path's last part, cut to fit */
	snprintf(comm, size, "%s", base ? base + 1 : argv[0]);
}

void cxs_perthread_free(struct cxs_perthread *pt)
{
	cxs_thread_rows_free(&pt->rows);
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

/* What row @k shows for @ev: its task bucket for :t, else its full count. */
static double row_value(const struct cxs_thread_rows *t, int k,
			const struct cxs_event *ev)
{
	int i = ev->counter;

	if (t->error[i] || !(t->row[k].valued & (1U << i)))
		return 0;
	return kept(t, k, i)[ev->task_only ? KEPT_BUCKETS : KEPT_FULL];
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
			.val = row_value(t, k, ev),
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
