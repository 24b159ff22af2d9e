// SPDX-License-Identifier: GPL-2.0
/*
 * The replies of the "ctxcount" family (include/uapi/linux/ctxcount.h):
 * SESSION_NEW's per-event errors and SESSION_READ's totals, with one
 * nest per CPU when the READ asked for them, and a session's sources.
 *
 * A READ is a series of items (the header, each event's totals, each
 * source, each CPU's header and events), put in order into one message
 * (the reply of a plain READ: ctx_nl_read_size() bounds it) or into as
 * many messages of a dump as it takes, none of them over a page
 * (ctx_nl_fill_read_part()): a CPU's nest may then come in parts.
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
 * Source @item of CTXCOUNT_A_SOURCES: OUTSIDE (no handler: its count is
 * 0), OTHER, then every source the session has a row for, in the order
 * it saw them.
 */
static int ctx_nl_put_source_item(struct sk_buff *msg,
				  const struct ctx_src_report *r,
				  unsigned int item)
{
	unsigned int row = item - 2;

	if (item == 0)
		return ctx_nl_put_source(msg, CTXCOUNT_SOURCE_ID_OUTSIDE,
					 CTXCOUNT_SOURCE_KIND_OUTSIDE, NULL, 0);
	if (item == 1)
		return ctx_nl_put_source(msg, CTXCOUNT_SOURCE_ID_OTHER,
					 CTXCOUNT_SOURCE_KIND_OTHER, NULL,
					 *ctx_src_count(r->tot, r->max));
	return ctx_nl_put_source(msg, ctx_nl_src_id(r, row), r->info[row].kind,
				 &r->info[row], *ctx_src_count(r->tot, row));
}

static int ctx_nl_put_head(struct sk_buff *msg,
			   const struct ctx_session_report *rep)
{
	if (ctx_nl_put_u64(msg, CTXCOUNT_A_TASKS_SEEN, rep->tasks_seen,
			   CTXCOUNT_A_PAD) ||
	    ctx_nl_put_u64(msg, CTXCOUNT_A_TASKS_LOST, rep->tasks_lost,
			   CTXCOUNT_A_PAD) ||
	    nla_put_u32(msg, CTXCOUNT_A_TASKS_NOW, rep->tasks_now) ||
	    nla_put_u32(msg, CTXCOUNT_A_CPUS_LOST, rep->cpus_lost))
		return -EMSGSIZE;
	return ctx_nl_put_excursions(msg, CTXCOUNT_A_EXCURSIONS,
				     rep->tot.excursions);
}

/* What opens a CPU's nest: its number and, in its first part, the rest. */
static int ctx_nl_put_cpu_head(struct sk_buff *msg,
			       const struct ctx_session_report *rep,
			       const struct ctx_cpu_totals *row, bool first)
{
	if (nla_put_u32(msg, CTXCOUNT_CPU_A_CPU, row->cpu))
		return -EMSGSIZE;
	if (!first)
		return 0;
	if (ctx_nl_put_excursions(msg, CTXCOUNT_CPU_A_EXCURSIONS,
				  row->tot.excursions) ||
	    (row->src && ctx_nl_put_source_counts(msg, &rep->src, row->src)))
		return -EMSGSIZE;
	return 0;
}

/*
 * Did what was put since @mark fit (no error, the message within
 * @limit)? If not, take it back.
 */
static bool ctx_nl_kept(struct sk_buff *msg, int err, const void *mark,
			unsigned int limit)
{
	if (!err && msg->len <= limit)
		return true;
	nlmsg_trim(msg, mark);
	return false;
}

/*
 * A nest of @type holding items @pos->item on, as many as fit; @nr
 * items in all. Return: 1 when the last one is in, 0 when the message
 * is full after at least one, -EMSGSIZE when not even one fit.
 */
static int ctx_nl_put_items(struct sk_buff *msg, int type,
			    const struct ctx_session_report *rep,
			    struct ctx_nl_read_pos *pos, unsigned int nr,
			    unsigned int limit)
{
	unsigned int first = pos->item;
	struct nlattr *nest;
	void *mark;
	int err;

	nest = nla_nest_start(msg, type);
	if (!ctx_nl_kept(msg, nest ? 0 : -EMSGSIZE, nest, limit))
		return -EMSGSIZE;
	for (; pos->item < nr; pos->item++) {
		mark = skb_tail_pointer(msg);
		if (pos->part == CTX_NL_PART_EVENTS)
			err = ctx_nl_put_event(msg, rep, &rep->tot,
					       rep->src.tot, pos->item);
		else if (pos->part == CTX_NL_PART_SOURCES)
			err = ctx_nl_put_source_item(msg, &rep->src, pos->item);
		else if (pos->part == CTX_NL_PART_THREADS)
			err = ctx_nl_put_event(msg, rep, &rep->thr[pos->row].tot,
					       NULL, pos->item);
		else
			err = ctx_nl_put_event(msg, rep, &rep->cpu[pos->row].tot,
					       rep->cpu[pos->row].src,
					       pos->item);
		if (!ctx_nl_kept(msg, err, mark, limit))
			break;
	}
	if (pos->item == first) {
		nla_nest_cancel(msg, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(msg, nest);
	return pos->item == nr;
}

/* What opens a thread's nest: its id and, in its first part, the rest. */
static int ctx_nl_put_thread_head(struct sk_buff *msg,
				  const struct ctx_thread_totals *row,
				  bool first)
{
	if (nla_put_u32(msg, CTXCOUNT_THREAD_A_TID, row->tid))
		return -EMSGSIZE;
	if (!first)
		return 0;
	if (nla_put_u32(msg, CTXCOUNT_THREAD_A_PID, row->pid) ||
	    nla_put_string(msg, CTXCOUNT_THREAD_A_COMM, row->comm) ||
	    ctx_nl_put_excursions(msg, CTXCOUNT_THREAD_A_EXCURSIONS,
				  row->tot.excursions))
		return -EMSGSIZE;
	return 0;
}

/*
 * CPU or thread row @pos->row (as @pos->part says) from event @pos->item
 * on (0: with its header).
 */
static int ctx_nl_put_row_part(struct sk_buff *msg,
			       const struct ctx_session_report *rep,
			       struct ctx_nl_read_pos *pos, unsigned int limit)
{
	bool cpus = pos->part == CTX_NL_PART_CPUS;
	struct nlattr *nest;
	int err;

	nest = nla_nest_start(msg, cpus ? CTXCOUNT_A_CPU : CTXCOUNT_A_THREAD);
	if (!nest)
		err = -EMSGSIZE;
	else if (cpus)
		err = ctx_nl_put_cpu_head(msg, rep, &rep->cpu[pos->row],
					  !pos->item);
	else
		err = ctx_nl_put_thread_head(msg, &rep->thr[pos->row],
					     !pos->item);
	if (!ctx_nl_kept(msg, err, nest, limit))
		return -EMSGSIZE;
	err = ctx_nl_put_items(msg, cpus ? CTXCOUNT_CPU_A_EVENTS :
			       CTXCOUNT_THREAD_A_EVENTS, rep, pos,
			       rep->nr_events, limit);
	if (err < 0) {
		nla_nest_cancel(msg, nest);
		return err;
	}
	nla_nest_end(msg, nest);
	return err;
}

/* Items of the current part: 1 when the part is done, 0 when full. */
static int ctx_nl_put_part(struct sk_buff *msg,
			   const struct ctx_session_report *rep,
			   struct ctx_nl_read_pos *pos, unsigned int limit)
{
	void *mark = skb_tail_pointer(msg);
	/* OUTSIDE, OTHER and the handler rows. */
	unsigned int sources = rep->src.tot ? rep->src.nr + 2 : 0;
	int err;

	switch (pos->part) {
	case CTX_NL_PART_HEAD:
		err = ctx_nl_put_head(msg, rep);
		return ctx_nl_kept(msg, err, mark, limit) ? 1 : -EMSGSIZE;
	case CTX_NL_PART_EVENTS:
		return ctx_nl_put_items(msg, CTXCOUNT_A_EVENTS, rep, pos,
					rep->nr_events, limit);
	case CTX_NL_PART_SOURCES:
		if (!sources)
			return 1;
		return ctx_nl_put_items(msg, CTXCOUNT_A_SOURCES, rep, pos,
					sources, limit);
	default:
		while (pos->row < (pos->part == CTX_NL_PART_CPUS ?
				   rep->nr_cpus : rep->nr_threads)) {
			err = ctx_nl_put_row_part(msg, rep, pos, limit);
			if (err < 0)
				return mark == skb_tail_pointer(msg) ? err : 0;
			if (!err)
				return 0;
			pos->row++;
			pos->item = 0;
		}
		pos->row = 0;
		return 1;
	}
}

/**
 * ctx_nl_fill_read_part() - put the next items of a SESSION_READ
 * @msg: the message, its genl header put
 * @rep: what READ filled
 * @pos: where the READ is: zeroed at first, advanced past what was put
 * @limit: the length @msg may grow to (this message's end)
 *
 * Each message names the session; the header goes in the first one. A
 * CPU's nest split over messages is in consecutive parts with its
 * number: the first with its excursions and source counts, each with
 * some of its events; a thread's likewise with its id.
 *
 * Return: 0 when items were put (@pos->part is CTX_NL_PART_DONE after
 * the last), -EMSGSIZE when not even the next item fitted.
 */
int ctx_nl_fill_read_part(struct sk_buff *msg,
			  const struct ctx_session_report *rep,
			  struct ctx_nl_read_pos *pos, unsigned int limit)
{
	void *start = skb_tail_pointer(msg);
	bool put = false;
	int err;

	if (!ctx_nl_kept(msg, nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, rep->id),
			 start, limit))
		return -EMSGSIZE;
	while (pos->part != CTX_NL_PART_DONE) {
		err = ctx_nl_put_part(msg, rep, pos, limit);
		if (err < 0)
			break;
		put = true;
		if (!err)
			return 0;
		pos->part++;
		pos->item = 0;
	}
	if (pos->part == CTX_NL_PART_DONE || put)
		return 0;
	nlmsg_trim(msg, start);
	return -EMSGSIZE;
}

/**
 * ctx_nl_fill_read() - put a SESSION_READ reply's attributes
 * @msg: the reply, sized with ctx_nl_read_size()
 * @data: the struct ctx_session_report READ filled
 *
 * Return: 0 or -EMSGSIZE.
 */
int ctx_nl_fill_read(struct sk_buff *msg, const void *data)
{
	struct ctx_nl_read_pos pos = {};
	int err;

	err = ctx_nl_fill_read_part(msg, data, &pos, UINT_MAX);
	return err ?: pos.part == CTX_NL_PART_DONE ? 0 : -EMSGSIZE;
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
	size_t thread = nla_total_size(0) + 2 * nla_total_size(sizeof(u32)) +
			nla_total_size(TASK_COMM_LEN) +
			ctx_nl_excursions_size() +
			ctx_nl_events_size(rep->nr_events, 0);

	if (rows) {
		cpu += ctx_nl_sources_size(rows, true);
		events += ctx_nl_sources_size(rows, false);
	}
	return 3 * nla_total_size(sizeof(u32)) +
	       2 * nla_total_size_64bit(sizeof(u64)) +
	       ctx_nl_excursions_size() + events + rep->nr_cpus * cpu +
	       rep->nr_threads * thread;
}
