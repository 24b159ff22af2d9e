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
 * A counter's values in a row, a double each; with --breakdown, the
 * buckets after the task's that are not 0 are in cxs_thread_rows.other.
 */
enum { KEPT_FULL, KEPT_ENABLED, KEPT_RUNNING, KEPT_TASK, KEPT_PER_COUNTER };

/* The buckets after the task's, each a bit of cxs_thread_rows.other_set. */
#define OTHER_BUCKETS	(CTXCOUNT_BUCKET_MAX - CTXCOUNT_BUCKET_TASK)

/* A bit of cxs_thread_row.valued for each counter a session can have. */
_Static_assert(CTXCOUNT_MAX_EVENTS <= 16, "cxs_thread_row.valued too narrow");
_Static_assert(OTHER_BUCKETS <= 16, "cxs_thread_rows.other_set too narrow");

/* The buckets a row shows, from CTXCOUNT_BUCKET_TASK on. */
static int kept_buckets(const struct cxs_thread_rows *t)
{
	return t->all_buckets ? OTHER_BUCKETS + 1 : 1;
}

static double *kept(const struct cxs_thread_rows *t, int k, int counter)
{
	return t->val + ((size_t)k * t->nr_counters + counter) *
			KEPT_PER_COUNTER;
}

static uint16_t *other_set(const struct cxs_thread_rows *t, int k)
{
	return t->other_set + (size_t)k * t->nr_counters;
}

/*
 * Keep row @k's buckets after the task's, @b[i][b - 1] for counter i and
 * bucket TASK + b, the ones not 0: the row's last, added in order.
 */
static int keep_other(struct cxs_thread_rows *t, int k,
		      const double (*b)[OTHER_BUCKETS])
{
	uint16_t *set = other_set(t, k);
	int i, j;

	t->other_at[k] = t->other.n;
	if (cxs_sample_reserve(&t->other,
			       t->other.n + t->nr_counters * OTHER_BUCKETS))
		return -ENOMEM;
	for (i = 0; i < t->nr_counters; i++) {
		set[i] = 0;
		for (j = 0; j < OTHER_BUCKETS; j++) {
			if (b[i][j] == 0)
				continue;
			set[i] |= 1U << j;
			t->other.v[t->other.n++] = b[i][j];
		}
	}
	return 0;
}

/* Where row @k keeps counter @i's bucket TASK + 1 + @j, or NULL (0). */
static const double *other_value(const struct cxs_thread_rows *t, int k,
				 int i, int j)
{
	const uint16_t *set = other_set(t, k);
	int at = t->other_at[k];
	int c;

	if (!(set[i] & (1U << j)))
		return NULL;
	for (c = 0; c < i; c++)
		at += __builtin_popcount(set[c]);
	return &t->other.v[at + __builtin_popcount(set[i] & ((1U << j) - 1))];
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
	size_t vals = (size_t)cap * t->nr_counters * KEPT_PER_COUNTER;
	struct cxs_thread_row *row;
	uint16_t *set;
	int *at;
	double *val;

	row = realloc(t->row, cap * sizeof(*row));
	if (!row)
		return -ENOMEM;
	t->row = row;
	val = realloc(t->val, (vals ?: 1) * sizeof(*val));
	if (!val)
		return -ENOMEM;
	t->val = val;
	if (t->all_buckets) {
		set = realloc(t->other_set,
			      ((size_t)cap * t->nr_counters ?: 1) * sizeof(*set));
		if (!set)
			return -ENOMEM;
		t->other_set = set;
		at = realloc(t->other_at, cap * sizeof(*at));
		if (!at)
			return -ENOMEM;
		t->other_at = at;
	}
	t->cap = cap;
	return 0;
}

/*
 * What cxs_counter_add() keeps of a reading, scaled as perf scales: into
 * @v, and the buckets after the task's into @other (NULL: not kept).
 */
static void keep_values(double *v, double *other,
			const struct ctxc_event_val *ev)
{
	uint64_t ena = ev->time_enabled, run = ev->time_running;
	int j;

	v[KEPT_FULL] = cxs_scale_count(ev->full, ena, run);
	v[KEPT_ENABLED] = ena;
	v[KEPT_RUNNING] = run;
	v[KEPT_TASK] = cxs_scale_count(ev->bucket[CTXCOUNT_BUCKET_TASK], ena,
				       run);
	for (j = 0; other && j < OTHER_BUCKETS; j++)
		other[j] = cxs_scale_count(
			ev->bucket[CTXCOUNT_BUCKET_TASK + 1 + j], ena, run);
}

int cxs_perthread_add(struct cxs_perthread *pt, const struct ctxc_thread_val *in,
		      const int *counter_of, int nr_events)
{
	struct cxs_thread_rows *t = &pt->rows;
	double other[CTXCOUNT_MAX_EVENTS][OTHER_BUCKETS] = { { 0 } };
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
		keep_values(kept(t, t->nr, i), t->all_buckets ? other[i] : NULL,
			    ev);
		row->valued |= 1U << i;
	}
	if (t->all_buckets && keep_other(t, t->nr, other))
		return -ENOMEM;
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
	double other[CTXCOUNT_MAX_EVENTS][OTHER_BUCKETS] = { { 0 } };
	struct cxs_thread_row *row;
	double *v;
	int i, j;

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
		v[KEPT_TASK] = last_value(&c[i].bucket[CTXCOUNT_BUCKET_TASK]);
		for (j = 0; t->all_buckets && j < OTHER_BUCKETS; j++)
			other[i][j] = last_value(
				&c[i].bucket[CTXCOUNT_BUCKET_TASK + 1 + j]);
		row->valued |= 1U << i;
	}
	if (t->all_buckets && keep_other(t, t->nr, other))
		return -ENOMEM;
	t->nr++;
	return 0;
}

void cxs_thread_rows_free(struct cxs_thread_rows *t)
{
	free(t->row);
	free(t->val);
	free(t->other_set);
	free(t->other_at);
	cxs_sample_free(&t->other);
	t->row = NULL;
	t->val = NULL;
	t->other_set = NULL;
	t->other_at = NULL;
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
	static const double zero;
	const double *v, *o;
	int i, j, n;

	for (i = 0; i < t->nr_counters; i++) {
		memset(&c[i], 0, sizeof(c[i]));
		/* An error stays on every row; its values are not shown. */
		c[i].error = t->error[i];
		n = !t->error[i] && (t->row[k].valued & (1U << i));
		v = kept(t, k, i);
		c[i].full = cxs_sample_view(&v[KEPT_FULL], n);
		c[i].enabled = cxs_sample_view(&v[KEPT_ENABLED], n);
		c[i].running = cxs_sample_view(&v[KEPT_RUNNING], n);
		c[i].bucket[CTXCOUNT_BUCKET_TASK] =
			cxs_sample_view(&v[KEPT_TASK], n);
		for (j = 0; j + 1 < kept_buckets(t); j++) {
			o = other_value(t, k, i, j);
			c[i].bucket[CTXCOUNT_BUCKET_TASK + 1 + j] =
				cxs_sample_view(o ?: &zero, n);
		}
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
	return kept(t, k, i)[ev->task_only ? KEPT_TASK : KEPT_FULL];
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
