// SPDX-License-Identifier: GPL-2.0
/*
 * counts: a run is appended to every sample of a counter or to none, so
 * that every sample of a counter holds one value per run it counted.
 */
#include <errno.h>

#include "counts.h"
#include "stats.h"

#define NR_SAMPLES (CTXCOUNT_BUCKET_MAX + 4)

/* Every sample of @c, in one array, for reserve-then-append. */
static void samples_of(struct ctx_counter_values *c, struct ctx_sample **s)
{
	int b, i = 0;

	s[i++] = &c->full;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		s[i++] = &c->bucket[b];
	s[i++] = &c->enabled;
	s[i++] = &c->running;
}

int ctx_counter_reserve(struct ctx_counter_values *c, int n)
{
	struct ctx_sample *s[NR_SAMPLES];
	int i;

	samples_of(c, s);
	for (i = 0; i < NR_SAMPLES; i++)
		if (ctx_sample_reserve(s[i], n))
			return -ENOMEM;
	return 0;
}

int ctx_counter_add(struct ctx_counter_values *c,
		    const struct ctx_counter_reading *rd)
{
	uint64_t ena = rd->time_enabled, run = rd->time_running;
	int b;

	if (ctx_counter_reserve(c, c->full.n + 1))
		return -ENOMEM;
	ctx_sample_add(&c->full, ctx_scale_count(rd->full, ena, run));
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		ctx_sample_add(&c->bucket[b],
			       ctx_scale_count(rd->bucket[b], ena, run));
	ctx_sample_add(&c->enabled, ena);
	ctx_sample_add(&c->running, run);
	c->counted = run > 0;
	return 0;
}

static void each_sample(struct ctx_counter_values *c,
			void (*fn)(struct ctx_sample *s))
{
	struct ctx_sample *s[NR_SAMPLES];
	int i;

	samples_of(c, s);
	for (i = 0; i < NR_SAMPLES; i++)
		fn(s[i]);
}

void ctx_counter_free(struct ctx_counter_values *c)
{
	each_sample(c, ctx_sample_free);
}

void ctx_counter_clear(struct ctx_counter_values *c)
{
	each_sample(c, ctx_sample_clear);
}

const struct ctx_sample *ctx_event_values(const struct ctx_event *ev,
					  const struct ctx_counter_values *counters)
{
	const struct ctx_counter_values *c = &counters[ev->counter];

	return ev->task_only ? &c->bucket[CTXCOUNT_BUCKET_TASK] : &c->full;
}
