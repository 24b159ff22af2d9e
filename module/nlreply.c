// SPDX-License-Identifier: GPL-2.0
/*
 * The replies of the "ctxcount" family (include/uapi/linux/ctxcount.h):
 * SESSION_NEW's per-event errors and SESSION_READ's totals, with one
 * nest per CPU when the READ asked for them, and a session's sources.
 * Each fill function has a size function that bounds what it puts.
 */
#include <linux/ctxcount.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "nlreply.h"
#include "session.h"

static int ctx_nl_put_new(struct sk_buff *msg,
			  const struct ctx_session_report *rep)
{
	struct nlattr *events, *event;
	unsigned int i;

	if (nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, rep->id))
		return -EMSGSIZE;
	events = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	if (!events)
		return -EMSGSIZE;
	for (i = 0; i < rep->nr_events; i++) {
		event = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
		if (!event ||
		    nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, i) ||
		    nla_put_s32(msg, CTXCOUNT_EVENT_A_ERROR, rep->error[i]))
			return -EMSGSIZE;
		nla_nest_end(msg, event);
	}
	nla_nest_end(msg, events);
	return 0;
}

/**
 * ctx_nl_new_size() - room for a SESSION_NEW reply
 * @nr_events: the session's events
 *
 * Return: the attributes' size.
 */
size_t ctx_nl_new_size(unsigned int nr_events)
{
	size_t event = nla_total_size(0) + 2 * nla_total_size(sizeof(u32));

	return nla_total_size(sizeof(u32)) + nla_total_size(0) +
	       nr_events * event;
}

/**
 * ctx_nl_fill_new() - put a SESSION_NEW reply's attributes
 * @msg: the reply
 * @data: the struct ctx_session_report of the new session
 *
 * Return: 0 or -EMSGSIZE.
 */
int ctx_nl_fill_new(struct sk_buff *msg, const void *data)
{
	return ctx_nl_put_new(msg, data);
}

static int ctx_nl_put_u64(struct sk_buff *msg, int type, u64 value, int pad)
{
	return nla_put_u64_64bit(msg, type, value, pad);
}

/*
 * Inside CTXCOUNT_EVENT_A_BUCKETS the attribute types are buckets, so the
 * padding type there is CTXCOUNT_BUCKET_UNSPEC.
 */
static int ctx_nl_put_buckets(struct sk_buff *msg, const u64 *buckets)
{
	struct nlattr *nest;
	int b;

	nest = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
	if (!nest)
		return -EMSGSIZE;
	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++) {
		if (ctx_nl_put_u64(msg, b, buckets[b], CTXCOUNT_BUCKET_UNSPEC))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Excursion kinds: enum ctx_excursion + 1 is enum ctxcount_excursion. */
static int ctx_nl_put_excursions(struct sk_buff *msg, int type, const u64 *exc)
{
	struct nlattr *nest;
	int k;

	BUILD_BUG_ON(CTX_NR_EXC != CTXCOUNT_EXCURSION_MAX);
	BUILD_BUG_ON(CTX_EXC_USER + CTX_EXC_HARDIRQ_THEN_SOFTIRQ + 1 !=
		     CTXCOUNT_EXCURSION_USER_HARDIRQ_THEN_SOFTIRQ);
	nest = nla_nest_start(msg, type);
	if (!nest)
		return -EMSGSIZE;
	for (k = 0; k < CTX_NR_EXC; k++) {
		if (ctx_nl_put_u64(msg, k + 1, exc[k], CTXCOUNT_EXCURSION_UNSPEC))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/* Source ids: OUTSIDE, OTHER (row max), then row k is FIRST + k. */
static unsigned int ctx_nl_src_id(const struct ctx_src_report *r,
				  unsigned int row)
{
	return row == r->max ? CTXCOUNT_SOURCE_ID_OTHER :
	       CTXCOUNT_SOURCE_ID_FIRST + row;
}

/*
 * EVENT_A_SOURCES of event @i: the hardirq bucket split by source, from
 * @block's rows (the totals' or a CPU's), the rest OUTSIDE. With @all
 * every source the session saw, else those that counted here.
 */
static int ctx_nl_put_event_sources(struct sk_buff *msg,
				    const struct ctx_src_report *r,
				    u64 *block, u64 hardirq, unsigned int i,
				    bool all)
{
	struct nlattr *nest;
	unsigned int row;
	u64 v, outside = hardirq;

	for (row = 0; row <= r->max; row++)
		outside -= *ctx_src_val(block, r->max, r->nr_events, row, i);
	nest = nla_nest_start(msg, CTXCOUNT_EVENT_A_SOURCES);
	if (!nest ||
	    ctx_nl_put_u64(msg, CTXCOUNT_SOURCE_ID_OUTSIDE, outside,
			   CTXCOUNT_SOURCE_ID_UNSPEC))
		return -EMSGSIZE;
	for (row = 0; row <= r->max; row++) {
		if (row >= r->nr && row != r->max)
			continue;
		v = *ctx_src_val(block, r->max, r->nr_events, row, i);
		if (!all && !v && !*ctx_src_count(block, row))
			continue;
		if (ctx_nl_put_u64(msg, ctx_nl_src_id(r, row), v,
				   CTXCOUNT_SOURCE_ID_UNSPEC))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ctx_nl_put_event(struct sk_buff *msg,
			    const struct ctx_session_report *rep,
			    const struct ctx_totals *t, u64 *src,
			    unsigned int i)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	if (!nest ||
	    nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, i) ||
	    nla_put_s32(msg, CTXCOUNT_EVENT_A_ERROR, rep->error[i]) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_EVENT_A_FULL, t->full[i],
			   CTXCOUNT_EVENT_A_PAD) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_EVENT_A_TIME_ENABLED, t->enabled[i],
			   CTXCOUNT_EVENT_A_PAD) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_EVENT_A_TIME_RUNNING, t->running[i],
			   CTXCOUNT_EVENT_A_PAD) ||
	    ctx_nl_put_buckets(msg, t->buckets[i]) ||
	    nla_put_u32(msg, CTXCOUNT_EVENT_A_DIRECT_CPUS, t->direct_cpus[i]) ||
	    nla_put_u32(msg, CTXCOUNT_EVENT_A_EST_STATE, t->est_state[i]) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_EVENT_A_EST_ERROR, t->est_error[i],
			   CTXCOUNT_EVENT_A_PAD))
		return -EMSGSIZE;
	if (src &&
	    ctx_nl_put_event_sources(msg, &rep->src, src,
				     t->buckets[i][CTXCOUNT_BUCKET_HARDIRQ], i,
				     src == rep->src.tot))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/* @src: with sources, the rows of @t (the totals' or a CPU's), else NULL */
static int ctx_nl_put_events(struct sk_buff *msg, int type,
			     const struct ctx_session_report *rep,
			     const struct ctx_totals *t, u64 *src)
{
	struct nlattr *events;
	unsigned int i;

	events = nla_nest_start(msg, type);
	if (!events)
		return -EMSGSIZE;
	for (i = 0; i < rep->nr_events; i++) {
		if (ctx_nl_put_event(msg, rep, t, src, i))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, events);
	return 0;
}

/* CPU_A_SOURCE_COUNTS: the runs of each source that ran on the CPU. */
static int ctx_nl_put_source_counts(struct sk_buff *msg,
				    const struct ctx_src_report *r, u64 *block)
{
	struct nlattr *nest;
	unsigned int row;
	u64 n;

	nest = nla_nest_start(msg, CTXCOUNT_CPU_A_SOURCE_COUNTS);
	if (!nest)
		return -EMSGSIZE;
	for (row = 0; row <= r->max; row++) {
		n = *ctx_src_count(block, row);
		if (n && ctx_nl_put_u64(msg, ctx_nl_src_id(r, row), n,
					CTXCOUNT_SOURCE_ID_UNSPEC))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

static int ctx_nl_put_source(struct sk_buff *msg, unsigned int id, u32 kind,
			     const struct ctx_src_info *in, u64 count)
{
	struct nlattr *nest;

	nest = nla_nest_start(msg, CTXCOUNT_SOURCES_A_SOURCE);
	if (!nest ||
	    nla_put_u32(msg, CTXCOUNT_SOURCE_A_ID, id) ||
	    nla_put_u32(msg, CTXCOUNT_SOURCE_A_KIND, kind))
		return -EMSGSIZE;
	if (in &&
	    (nla_put_u32(msg, CTXCOUNT_SOURCE_A_IRQ, in->irq) ||
	     (in->has_hwirq &&
	      ctx_nl_put_u64(msg, CTXCOUNT_SOURCE_A_HWIRQ, in->hwirq,
			     CTXCOUNT_SOURCE_A_PAD)) ||
	     nla_put_string(msg, CTXCOUNT_SOURCE_A_NAME, in->name)))
		return -EMSGSIZE;
	if (ctx_nl_put_u64(msg, CTXCOUNT_SOURCE_A_COUNT, count,
			   CTXCOUNT_SOURCE_A_PAD))
		return -EMSGSIZE;
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * CTXCOUNT_A_SOURCES: OUTSIDE (no handler: its count is 0), OTHER, then
 * every source the session has a row for, in the order it saw them.
 */
static int ctx_nl_put_sources(struct sk_buff *msg,
			      const struct ctx_src_report *r)
{
	struct nlattr *nest;
	unsigned int row;

	nest = nla_nest_start(msg, CTXCOUNT_A_SOURCES);
	if (!nest ||
	    ctx_nl_put_source(msg, CTXCOUNT_SOURCE_ID_OUTSIDE,
			      CTXCOUNT_SOURCE_KIND_OUTSIDE, NULL, 0) ||
	    ctx_nl_put_source(msg, CTXCOUNT_SOURCE_ID_OTHER,
			      CTXCOUNT_SOURCE_KIND_OTHER, NULL,
			      *ctx_src_count(r->tot, r->max)))
		return -EMSGSIZE;
	for (row = 0; row < r->nr; row++) {
		if (ctx_nl_put_source(msg, ctx_nl_src_id(r, row),
				      r->info[row].kind, &r->info[row],
				      *ctx_src_count(r->tot, row)))
			return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return 0;
}

/*
 * One nest per CPU at the top level, not one nest of them all: a nest is
 * at most 64 KiB (nla_len), a CPU's is a few KiB.
 */
static int ctx_nl_put_cpus(struct sk_buff *msg,
			   const struct ctx_session_report *rep)
{
	const struct ctx_cpu_totals *row;
	struct nlattr *nest;
	unsigned int k;

	for (k = 0; k < rep->nr_cpus; k++) {
		row = &rep->cpu[k];
		nest = nla_nest_start(msg, CTXCOUNT_A_CPU);
		if (!nest ||
		    nla_put_u32(msg, CTXCOUNT_CPU_A_CPU, row->cpu) ||
		    ctx_nl_put_excursions(msg, CTXCOUNT_CPU_A_EXCURSIONS,
					  row->tot.excursions) ||
		    ctx_nl_put_events(msg, CTXCOUNT_CPU_A_EVENTS, rep,
				      &row->tot, row->src) ||
		    (row->src &&
		     ctx_nl_put_source_counts(msg, &rep->src, row->src)))
			return -EMSGSIZE;
		nla_nest_end(msg, nest);
	}
	return 0;
}

/**
 * ctx_nl_fill_read() - put a SESSION_READ reply's attributes
 * @msg: the reply
 * @data: the struct ctx_session_report READ filled
 *
 * Return: 0 or -EMSGSIZE.
 */
int ctx_nl_fill_read(struct sk_buff *msg, const void *data)
{
	const struct ctx_session_report *rep = data;

	if (nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, rep->id) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_A_TASKS_SEEN, rep->tasks_seen,
			   CTXCOUNT_A_PAD) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_A_TASKS_LOST, rep->tasks_lost,
			   CTXCOUNT_A_PAD) ||
	    nla_put_u32(msg, CTXCOUNT_A_TASKS_NOW, rep->tasks_now) ||
	    nla_put_u32(msg, CTXCOUNT_A_CPUS_LOST, rep->cpus_lost) ||
	    ctx_nl_put_excursions(msg, CTXCOUNT_A_EXCURSIONS,
				  rep->tot.excursions) ||
	    ctx_nl_put_events(msg, CTXCOUNT_A_EVENTS, rep, &rep->tot,
			      rep->src.tot) ||
	    (rep->src.tot && ctx_nl_put_sources(msg, &rep->src)) ||
	    ctx_nl_put_cpus(msg, rep))
		return -EMSGSIZE;
	return 0;
}

static size_t ctx_nl_excursions_size(void)
{
	return nla_total_size(0) +
	       CTXCOUNT_EXCURSION_MAX * nla_total_size_64bit(sizeof(u64));
}

/* @rows: 0, or the source rows each event's EVENT_A_SOURCES may have */
static size_t ctx_nl_events_size(unsigned int nr_events, unsigned int rows)
{
	size_t u64_attr = nla_total_size_64bit(sizeof(u64));
	size_t buckets = nla_total_size(0) + CTXCOUNT_BUCKET_MAX * u64_attr;
	size_t event = nla_total_size(0) + 4 * nla_total_size(sizeof(u32)) +
		       4 * u64_attr + buckets;

	if (rows)
		event += nla_total_size(0) + rows * u64_attr;
	return nla_total_size(0) + nr_events * event;
}

/* CTXCOUNT_A_SOURCES, and per CPU CTXCOUNT_CPU_A_SOURCE_COUNTS. */
static size_t ctx_nl_sources_size(unsigned int rows, bool per_cpu)
{
	size_t u64_attr = nla_total_size_64bit(sizeof(u64));
	size_t source = nla_total_size(0) + 3 * nla_total_size(sizeof(u32)) +
			2 * u64_attr +
			nla_total_size(CTXCOUNT_SOURCE_NAME_LEN);

	if (per_cpu)
		return nla_total_size(0) + rows * u64_attr;
	return nla_total_size(0) + rows * source;
}

/**
 * ctx_nl_read_size() - room for a SESSION_READ reply
 * @rep: what READ filled
 *
 * Return: the attributes' size.
 */
size_t ctx_nl_read_size(const struct ctx_session_report *rep)
{
	/* OUTSIDE, OTHER and the handler rows. */
	unsigned int rows = rep->src.tot ? rep->src.nr + 2 : 0;
	size_t events = ctx_nl_events_size(rep->nr_events, rows);
	size_t cpu = nla_total_size(0) + nla_total_size(sizeof(u32)) +
		     ctx_nl_excursions_size() + events;

	if (rows) {
		cpu += ctx_nl_sources_size(rows, true);
		events += ctx_nl_sources_size(rows, false);
	}
	return 3 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64)) +
	       ctx_nl_excursions_size() + events + rep->nr_cpus * cpu;
}
