// SPDX-License-Identifier: GPL-2.0
/*
 * counts: a run is appended to every sample of a counter or to none, so
 * that every sample of a counter holds one value per run it counted.
 */
#include <errno.h>
#include <stdlib.h>

#include "stats/counts.h"
#include "stats/perf-stat.h"

#define NR_SAMPLES (CTXCOUNT_BUCKET_MAX + 4)

/* Every sample of @c, in one array, for reserve-then-append. */
static void samples_of(struct cxs_counter_values *c, struct cxs_sample **s)
{
	int b, i = 0;

	s[i++] = &c->full;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		s[i++] = &c->bucket[b];
	s[i++] = &c->enabled;
	s[i++] = &c->running;
}

int cxs_counter_reserve(struct cxs_counter_values *c, int n)
{
	struct cxs_sample *s[NR_SAMPLES];
	int i;

	samples_of(c, s);
	for (i = 0; i < NR_SAMPLES; i++)
		if (cxs_sample_reserve(s[i], n))
			return -ENOMEM;
	return 0;
}

/*
 * New rows get a 0 for each run so far, with room for @n; all of them or
 * none (@c as before).
 */
static int add_src_rows(struct cxs_counter_values *c, int nr_src, int n)
{
	struct cxs_sample *s;
	int j, k, runs = c->full.n;

	if (nr_src <= c->nr_src)
		return 0;
	s = realloc(c->src, nr_src * sizeof(*s));
	if (!s)
		return -ENOMEM;
	c->src = s;
	for (j = c->nr_src; j < nr_src; j++) {
		cxs_sample_init(&s[j]);
		if (cxs_sample_reserve(&s[j], n > runs ? n : runs))
			goto undo;
		for (k = 0; k < runs; k++)
			cxs_sample_add(&s[j], 0);
	}
	c->nr_src = nr_src;
	return 0;
undo:
	while (j-- > c->nr_src)
		cxs_sample_free(&s[j]);
	return -ENOMEM;
}

int cxs_counter_reserve_src(struct cxs_counter_values *c, int nr_src, int n)
{
	int j;

	for (j = 0; j < c->nr_src; j++)
		if (cxs_sample_reserve(&c->src[j], n))
			return -ENOMEM;
	return add_src_rows(c, nr_src, n);
}

/* Every row gets this run's value: 0 where the reading has none. */
static void add_src(struct cxs_counter_values *c,
		    const struct cxs_counter_reading *rd)
{
	uint64_t v;
	int j;

	for (j = 0; j < c->nr_src; j++) {
		v = rd->src && j < rd->nr_src ? rd->src[j] : 0;
		cxs_sample_add(&c->src[j],
			       cxs_scale_count(v, rd->time_enabled,
					       rd->time_running));
	}
}

int cxs_counter_add(struct cxs_counter_values *c,
		    const struct cxs_counter_reading *rd)
{
	uint64_t ena = rd->time_enabled, run = rd->time_running;
	int b;

	if (cxs_counter_reserve(c, c->full.n + 1) ||
	    cxs_counter_reserve_src(c, rd->src ? rd->nr_src : 0, c->full.n + 1))
		return -ENOMEM;
	add_src(c, rd);
	cxs_sample_add(&c->full, cxs_scale_count(rd->full, ena, run));
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		cxs_sample_add(&c->bucket[b],
			       cxs_scale_count(rd->bucket[b], ena, run));
	cxs_sample_add(&c->enabled, ena);
	cxs_sample_add(&c->running, run);
	c->counted = run > 0;
	return 0;
}

static void each_sample(struct cxs_counter_values *c,
			void (*fn)(struct cxs_sample *s))
{
	struct cxs_sample *s[NR_SAMPLES];
	int i;

	samples_of(c, s);
	for (i = 0; i < NR_SAMPLES; i++)
		fn(s[i]);
	for (i = 0; i < c->nr_src; i++)
		fn(&c->src[i]);
}

/* @dst += @src value by value; values @dst lacks are taken as 0. */
static int sample_accumulate(struct cxs_sample *dst, const struct cxs_sample *src)
{
	int j;

	if (cxs_sample_reserve(dst, src->n))
		return -ENOMEM;
	for (j = 0; j < src->n; j++) {
		if (j < dst->n)
			dst->v[j] += src->v[j];
		else
			cxs_sample_add(dst, src->v[j]);
	}
	return 0;
}

int cxs_counter_accumulate(struct cxs_counter_values *dst,
			   const struct cxs_counter_values *src)
{
	struct cxs_sample *d[NR_SAMPLES], *s[NR_SAMPLES];
	int j, err;

	dst->error = dst->error ?: src->error;
	dst->counted |= src->counted;
	samples_of(dst, d);
	samples_of((struct cxs_counter_values *)src, s);
	err = cxs_counter_reserve_src(dst, src->nr_src, src->full.n);
	for (j = 0; j < NR_SAMPLES && !err; j++)
		err = sample_accumulate(d[j], s[j]);
	for (j = 0; j < src->nr_src && !err; j++)
		err = sample_accumulate(&dst->src[j], &src->src[j]);
	return err;
}

void cxs_counter_remove(struct cxs_counter_values *c, int i)
{
	struct cxs_sample *s[NR_SAMPLES];
	int j;

	samples_of(c, s);
	for (j = 0; j < NR_SAMPLES; j++)
		cxs_sample_remove(s[j], i);
	for (j = 0; j < c->nr_src; j++)
		cxs_sample_remove(&c->src[j], i);
}

void cxs_counter_free(struct cxs_counter_values *c)
{
	each_sample(c, cxs_sample_free);
	free(c->src);
	c->src = NULL;
	c->nr_src = 0;
}

void cxs_counter_clear(struct cxs_counter_values *c)
{
	each_sample(c, cxs_sample_clear);
}

const struct cxs_sample *cxs_event_values(const struct cxs_event *ev,
					  const struct cxs_counter_values *counters)
{
	const struct cxs_counter_values *c = &counters[ev->counter];

	return ev->task_only ? &c->bucket[CTXCOUNT_BUCKET_TASK] : &c->full;
}
