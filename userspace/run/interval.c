// SPDX-License-Identifier: GPL-2.0
/*
 * interval: every interval is printed as a series of one run whose values are
 * the differences of two READs, so that output/display.c prints it in perf's
 * layout with the time column, metrics included. Differences are signed: the
 * task bucket gives back what the irq entry/exit estimate takes from it, which
 * an interval may see grow by more than the task counted.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "run/interval.h"
#include "stats/perf-stat.h"

int cxs_interval_init(struct cxs_interval *iv, const struct cxs_output_opts *o,
		      const struct cxs_series *s, unsigned int ms,
		      int cpu_rows, int count)
{
	memset(iv, 0, sizeof(*iv));
	if (cpu_rows) {
		iv->prev_cpus.cap = cpu_rows;
		iv->prev_cpus.v = calloc(cpu_rows, sizeof(*iv->prev_cpus.v));
		iv->cpu_ids = calloc(cpu_rows, sizeof(*iv->cpu_ids));
		iv->cpu_delta = calloc((size_t)cpu_rows * CTXCOUNT_MAX_EVENTS,
				       sizeof(*iv->cpu_delta));
		if (!iv->prev_cpus.v || !iv->cpu_ids || !iv->cpu_delta) {
			cxs_interval_free(iv);
			return -ENOMEM;
		}
	}
	iv->o = *o;
	iv->o.interval = true;
	iv->s = *s;
	iv->s.counters = iv->delta;
	iv->s.runs = 1;
	iv->s.elapsed_ns = &iv->wall;
	iv->s.show_rusage = false;
	iv->s.cpu_ids = iv->cpu_ids;
	iv->s.cpu_counters = iv->cpu_delta;
	iv->ms = ms;
	iv->count = count;
	return 0;
}

void cxs_interval_free(struct cxs_interval *iv)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&iv->delta[i]);
	for (i = 0; iv->cpu_delta && i < iv->prev_cpus.cap * CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&iv->cpu_delta[i]);
	free(iv->cpu_delta);
	free(iv->cpu_ids);
	free(iv->prev_cpus.v);
	memset(&iv->prev_cpus, 0, sizeof(iv->prev_cpus));
	iv->cpu_delta = NULL;
	iv->cpu_ids = NULL;
	cxs_sample_free(&iv->wall);
}

/* @now - @then, scaled as perf scales an interval's multiplexed delta. */
static double scaled_delta(uint64_t now, uint64_t then, uint64_t ena,
			   uint64_t run)
{
	if (now >= then)
		return cxs_scale_count(now - then, ena, run);
	return -(double)cxs_scale_count(then - now, ena, run);
}

/* --irq-sources: the rows' differences (ids are the session's, stable). */
static int set_src_delta(struct cxs_counter_values *c,
			 const struct cxs_sources *t,
			 const struct ctxc_event_val *v,
			 const struct ctxc_event_val *p,
			 uint64_t ena, uint64_t run)
{
	uint64_t now[CXS_SOURCE_ROWS], then[CXS_SOURCE_ROWS];
	int j;

	if (!t)
		return 0;
	if (cxs_counter_reserve_src(c, t->nr, 1))
		return -ENOMEM;
	cxs_sources_by_row(t, v->src, now);
	cxs_sources_by_row(t, p->src, then);
	for (j = 0; j < c->nr_src; j++)
		cxs_sample_add(&c->src[j], j < t->nr ?
			       scaled_delta(now[j], then[j], ena, run) : 0);
	return 0;
}

static int set_delta(struct cxs_counter_values *c,
		     const struct cxs_sources *t,
		     const struct ctxc_event_val *v,
		     const struct ctxc_event_val *p)
{
	uint64_t ena = v->time_enabled - p->time_enabled;
	uint64_t run = v->time_running - p->time_running;
	int b, err;

	cxs_counter_clear(c);
	c->error = v->present ? v->error : -EBADMSG;
	if (c->error)
		return 0;
	/* Rows first: a new one gets a 0 per value full already has. */
	err = set_src_delta(c, t, v, p, ena, run);
	err = err ?: cxs_sample_add(&c->full, scaled_delta(v->full, p->full, ena, run));
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX && !err; b++)
		err = cxs_sample_add(&c->bucket[b],
				     scaled_delta(v->bucket[b], p->bucket[b],
						  ena, run));
	err = err ?: cxs_sample_add(&c->enabled, ena);
	err = err ?: cxs_sample_add(&c->running, run);
	c->counted = run > 0;
	return err;
}

/* The previous READ's values of @cpu, or NULL when it had none. */
static const struct ctxc_cpu_val *prev_cpu(const struct cxs_interval *iv,
					   int cpu)
{
	int k;

	for (k = 0; k < iv->prev_cpus.nr; k++)
		if (iv->prev_cpus.v[k].cpu == cpu)
			return &iv->prev_cpus.v[k];
	return NULL;
}

/* -A: each CPU's deltas; @cpus becomes the previous READ's. */
static int set_cpu_deltas(struct cxs_interval *iv,
			  const struct ctxc_cpus *cpus)
{
	static const struct ctxc_cpu_val zero;
	const struct ctxc_cpu_val *v, *p;
	int k, i, err = 0;

	if (cpus->nr > iv->prev_cpus.cap)
		return -E2BIG;
	for (k = 0; k < cpus->nr && !err; k++) {
		v = &cpus->v[k];
		p = prev_cpu(iv, v->cpu) ?: &zero;
		iv->cpu_ids[k] = v->cpu;
		for (i = 0; i < iv->s.events->nr_counters && !err; i++)
			err = set_delta(&iv->cpu_delta[k * CTXCOUNT_MAX_EVENTS + i],
					iv->s.sources, &v->ev[i], &p->ev[i]);
	}
	iv->s.nr_cpus = cpus->nr;
	/* No rows (no session: nothing supported): the totals' rows say so. */
	iv->s.cpu_ids = cpus->nr ? iv->cpu_ids : NULL;
	memcpy(iv->prev_cpus.v, cpus->v, cpus->nr * sizeof(*cpus->v));
	iv->prev_cpus.nr = cpus->nr;
	return err;
}

int cxs_interval_print(struct cxs_interval *iv, const struct ctxc_reply *rp,
		       const struct ctxc_cpus *cpus, double now_ns)
{
	int i, err = 0;

	for (i = 0; i < iv->s.events->nr_counters && !err; i++)
		err = set_delta(&iv->delta[i], iv->s.sources, &rp->ev[i],
				&iv->prev.ev[i]);
	if (!err && iv->cpu_delta && cpus)
		err = set_cpu_deltas(iv, cpus);
	cxs_sample_clear(&iv->wall);
	err = err ?: cxs_sample_add(&iv->wall, iv->ms * 1e6);
	if (err)
		return -ENOMEM;
	iv->o.interval_ns = now_ns > iv->t0_ns ? llround(now_ns - iv->t0_ns) : 0;
	iv->o.interval_header = iv->printed % CXS_INTERVAL_HEADER_EVERY == 0;
	cxs_output_series(&iv->o, &iv->s);
	iv->printed++;
	iv->prev = *rp;
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

int cxs_interval_loop(struct cxs_interval *iv,
		      const struct cxs_interval_source *src)
{
	double step = iv->ms * 1e6, deadline = iv->t0_ns + step, now;
	struct ctxc_reply *rp = calloc(1, sizeof(*rp));
	int err = rp ? 0 : -ENOMEM;

	const struct ctxc_cpus *cpus = NULL;

	while (!err && !cxs_interval_done(iv) && !src->wait(src->arg, deadline)) {
		err = src->read(src->arg, rp, &cpus);
		now = now_ns();
		err = err ?: cxs_interval_print(iv, rp, cpus, now);
		while (deadline <= now)
			deadline += step;
	}
	free(rp);
	return err;
}
