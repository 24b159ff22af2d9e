// SPDX-License-Identifier: GPL-2.0
/*
 * parse: the module's replies into plain structs (ctxcount.h). A READ
 * comes as one reply or as the messages of a dump; both go through
 * ctxc_parse_read_part(), which adds what one message carries to what
 * the earlier ones did: a dump's CPU or thread nest may come in parts.
 */
#include <errno.h>
#include <string.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "internal.h"

static struct nla_policy event_policy[CTXCOUNT_EVENT_A_MAX + 1] = {
	[CTXCOUNT_EVENT_A_INDEX]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_ERROR]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_FULL]		= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_TIME_ENABLED]	= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_TIME_RUNNING]	= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_BUCKETS]	= { .type = NLA_NESTED },
	[CTXCOUNT_EVENT_A_SOURCES]	= { .type = NLA_NESTED },
	[CTXCOUNT_EVENT_A_EST_STATE]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_EST_ERROR]	= { .type = NLA_U64 },
};

static struct nla_policy reply_policy[CTXCOUNT_A_MAX + 1] = {
	[CTXCOUNT_A_SESSION_ID]		= { .type = NLA_U32 },
	[CTXCOUNT_A_EVENTS]		= { .type = NLA_NESTED },
	[CTXCOUNT_A_TASKS_SEEN]		= { .type = NLA_U64 },
	[CTXCOUNT_A_TASKS_LOST]		= { .type = NLA_U64 },
	[CTXCOUNT_A_STATS_SESSIONS]	= { .type = NLA_U32 },
	[CTXCOUNT_A_STATS_FEATURES]	= { .type = NLA_U32 },
	[CTXCOUNT_A_CPUS_LOST]		= { .type = NLA_U32 },
	[CTXCOUNT_A_TASKS_NOW]		= { .type = NLA_U32 },
	[CTXCOUNT_A_SOURCES]		= { .type = NLA_NESTED },
};

static uint64_t get_u64_or_0(struct nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

static int parse_buckets(struct nlattr *nest, struct ctxc_event_val *v)
{
	struct nlattr *b;
	int rem, type;

	nla_for_each_nested(b, nest, rem) {
		type = nla_type(b);
		/* Buckets a newer module adds are ignored, not fatal. */
		if (type <= CTXCOUNT_BUCKET_UNSPEC || type > CTXCOUNT_BUCKET_MAX)
			continue;
		if (nla_len(b) < (int)sizeof(uint64_t))
			return -EINVAL;
		v->bucket[type] = nla_get_u64(b);
	}
	return 0;
}

static int parse_event(struct nlattr *attr, struct ctxc_event_val *ev,
		       int *nr_events)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1];
	struct ctxc_event_val *v;
	uint32_t index;

	if (nla_parse_nested(tb, CTXCOUNT_EVENT_A_MAX, attr, event_policy))
		return -EINVAL;
	if (!tb[CTXCOUNT_EVENT_A_INDEX])
		return -EINVAL;
	index = nla_get_u32(tb[CTXCOUNT_EVENT_A_INDEX]);
	if (index >= CTXCOUNT_MAX_EVENTS)
		return -EINVAL;
	v = &ev[index];
	memset(v, 0, sizeof(*v));
	v->present = true;
	if (tb[CTXCOUNT_EVENT_A_ERROR])
		v->error = nla_get_s32(tb[CTXCOUNT_EVENT_A_ERROR]);
	v->full = get_u64_or_0(tb[CTXCOUNT_EVENT_A_FULL]);
	v->time_enabled = get_u64_or_0(tb[CTXCOUNT_EVENT_A_TIME_ENABLED]);
	v->time_running = get_u64_or_0(tb[CTXCOUNT_EVENT_A_TIME_RUNNING]);
	if (tb[CTXCOUNT_EVENT_A_EST_STATE])
		v->est_state = nla_get_u32(tb[CTXCOUNT_EVENT_A_EST_STATE]);
	v->est_error = get_u64_or_0(tb[CTXCOUNT_EVENT_A_EST_ERROR]);
	if (tb[CTXCOUNT_EVENT_A_BUCKETS] &&
	    parse_buckets(tb[CTXCOUNT_EVENT_A_BUCKETS], v))
		return -EINVAL;
	if (tb[CTXCOUNT_EVENT_A_SOURCES] &&
	    ctxc_parse_source_values(tb[CTXCOUNT_EVENT_A_SOURCES], v->src))
		return -EINVAL;
	if ((int)index + 1 > *nr_events)
		*nr_events = index + 1;
	return 0;
}

static int parse_events(struct nlattr *list, struct ctxc_event_val *ev,
			int *nr_events)
{
	struct nlattr *attr;
	int rem;

	nla_for_each_nested(attr, list, rem) {
		if (nla_type(attr) != CTXCOUNT_EVENTS_A_EVENT)
			continue;
		if (parse_event(attr, ev, nr_events))
			return -EINVAL;
	}
	return 0;
}

/*
 * A CPU's or a thread's nest: a key (the CPU, the tid), events, and
 * attributes of the row's own. A dump may split a row over consecutive
 * nests of the same key, each with some of its events.
 */
struct row_kind {
	int attr;		/* CTXCOUNT_A_CPU or CTXCOUNT_A_THREAD */
	int maxtype;
	struct nla_policy *policy;
	int key, events;	/* the key's and the events' attribute types */
	/*
	 * The row a nest of @key goes to, its events into *@ev: the last
	 * one filled when the nest continues it, else a new one, which the
	 * nest's other attributes in @tb fill. 0 or -errno.
	 */
	int (*row)(void *rows, uint32_t key, struct nlattr **tb,
		   struct ctxc_event_val **ev);
};

/* Room for the attributes of either kind's nest. */
#define ROW_A_MAX (CTXCOUNT_CPU_A_MAX > CTXCOUNT_THREAD_A_MAX ? \
		   CTXCOUNT_CPU_A_MAX : CTXCOUNT_THREAD_A_MAX)

static int parse_row(struct nlattr *attr, const struct row_kind *k, void *rows)
{
	struct nlattr *tb[ROW_A_MAX + 1];
	struct ctxc_event_val *ev;
	int nr = 0, err;

	if (nla_parse_nested(tb, k->maxtype, attr, k->policy) ||
	    !tb[k->key] || !tb[k->events])
		return -EINVAL;
	err = k->row(rows, nla_get_u32(tb[k->key]), tb, &ev);
	if (err)
		return err;
	return parse_events(tb[k->events], ev, &nr);
}

/* The kind's nests are top-level attributes, one per row or part of one. */
static int parse_rows(struct nlmsghdr *nlh, const struct row_kind *k, void *rows)
{
	struct nlattr *attr;
	int rem, err;

	nla_for_each_attr(attr, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(attr) != k->attr)
			continue;
		err = parse_row(attr, k, rows);
		if (err)
			return err;
	}
	return 0;
}

static struct nla_policy cpu_policy[CTXCOUNT_CPU_A_MAX + 1] = {
	[CTXCOUNT_CPU_A_CPU]		= { .type = NLA_U32 },
	[CTXCOUNT_CPU_A_EVENTS]		= { .type = NLA_NESTED },
	[CTXCOUNT_CPU_A_SOURCE_COUNTS]	= { .type = NLA_NESTED },
};

/* A fixed room: a READ has a row per possible CPU at most. */
static int cpu_row(void *rows, uint32_t cpu, struct nlattr **tb,
		   struct ctxc_event_val **ev)
{
	struct ctxc_cpus *cpus = rows;
	struct ctxc_cpu_val *v;

	if (cpus->nr && cpus->v[cpus->nr - 1].cpu == (int)cpu) {
		v = &cpus->v[cpus->nr - 1];
	} else {
		if (cpus->nr == cpus->cap)
			return -E2BIG;
		v = &cpus->v[cpus->nr++];
		memset(v, 0, sizeof(*v));
		v->cpu = cpu;
	}
	*ev = v->ev;
	if (tb[CTXCOUNT_CPU_A_SOURCE_COUNTS] &&
	    ctxc_parse_source_values(tb[CTXCOUNT_CPU_A_SOURCE_COUNTS],
				     v->src_count))
		return -EINVAL;
	return 0;
}

static const struct row_kind cpu_kind = {
	.attr = CTXCOUNT_A_CPU, .maxtype = CTXCOUNT_CPU_A_MAX,
	.policy = cpu_policy, .key = CTXCOUNT_CPU_A_CPU,
	.events = CTXCOUNT_CPU_A_EVENTS, .row = cpu_row,
};

static struct nla_policy thread_policy[CTXCOUNT_THREAD_A_MAX + 1] = {
	[CTXCOUNT_THREAD_A_TID]		= { .type = NLA_U32 },
	[CTXCOUNT_THREAD_A_PID]		= { .type = NLA_U32 },
	[CTXCOUNT_THREAD_A_COMM]	= { .type = NLA_STRING,
					    .maxlen = CTXCOUNT_THREAD_COMM_LEN },
	[CTXCOUNT_THREAD_A_EXCURSIONS]	= { .type = NLA_NESTED },
	[CTXCOUNT_THREAD_A_EVENTS]	= { .type = NLA_NESTED },
};

/* The row read so far, whole now, to the reader's function. */
static int hand_over(struct ctxc_thread_reader *rd)
{
	if (!rd->has_row)
		return 0;
	rd->has_row = false;
	rd->error = rd->fn(&rd->row, rd->arg);
	return rd->error;
}

/* A new row must say whose it is: its first part carries PID and COMM. */
static int thread_row(void *rows, uint32_t tid, struct nlattr **tb,
		      struct ctxc_event_val **ev)
{
	struct ctxc_thread_reader *rd = rows;
	struct ctxc_thread_val *v = &rd->row;
	int err;

	if (rd->has_row && v->tid == tid) {
		*ev = v->ev;
		return 0;
	}
	if (!tb[CTXCOUNT_THREAD_A_PID] || !tb[CTXCOUNT_THREAD_A_COMM])
		return -EINVAL;
	err = hand_over(rd);
	if (err)
		return err;
	memset(v, 0, sizeof(*v));
	v->tid = tid;
	v->pid = nla_get_u32(tb[CTXCOUNT_THREAD_A_PID]);
	nla_strlcpy(v->comm, tb[CTXCOUNT_THREAD_A_COMM], sizeof(v->comm));
	rd->has_row = true;
	*ev = v->ev;
	return 0;
}

static const struct row_kind thread_kind = {
	.attr = CTXCOUNT_A_THREAD, .maxtype = CTXCOUNT_THREAD_A_MAX,
	.policy = thread_policy, .key = CTXCOUNT_THREAD_A_TID,
	.events = CTXCOUNT_THREAD_A_EVENTS, .row = thread_row,
};

int ctxc_parse_thread_part(struct nlmsghdr *nlh, struct ctxc_thread_reader *rd)
{
	/* The function failed: the rest of the answer is only read. */
	if (rd->error)
		return rd->error;
	return parse_rows(nlh, &thread_kind, rd);
}

int ctxc_thread_reader_end(struct ctxc_thread_reader *rd)
{
	return rd->error ?: hand_over(rd);
}

/* The same for CTXCOUNT_A_EVENTS: a dump's totals come in several. */
static int parse_top_events(struct nlmsghdr *nlh, struct ctxc_reply *r)
{
	struct nlattr *attr;
	int rem;

	nla_for_each_attr(attr, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(attr) == CTXCOUNT_A_EVENTS &&
		    parse_events(attr, r->ev, &r->nr_events))
			return -EINVAL;
		if (nla_type(attr) == CTXCOUNT_A_SOURCES) {
			r->has_sources = true;
			if (ctxc_parse_sources(attr, r->src))
				return -EINVAL;
		}
	}
	return 0;
}

int ctxc_parse_read_part(struct nlmsghdr *nlh, struct ctxc_reply *r,
			 struct ctxc_cpus *cpus)
{
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	int err;

	/* The policy checks every attribute, the repeated ones too. */
	if (genlmsg_parse(nlh, 0, tb, CTXCOUNT_A_MAX, reply_policy))
		return -EINVAL;
	if (cpus) {
		err = parse_rows(nlh, &cpu_kind, cpus);
		if (err)
			return err;
	}
	if (tb[CTXCOUNT_A_SESSION_ID])
		r->session_id = nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]);
	if (tb[CTXCOUNT_A_TASKS_SEEN])
		r->tasks_seen = nla_get_u64(tb[CTXCOUNT_A_TASKS_SEEN]);
	if (tb[CTXCOUNT_A_TASKS_LOST])
		r->tasks_lost = nla_get_u64(tb[CTXCOUNT_A_TASKS_LOST]);
	if (tb[CTXCOUNT_A_CPUS_LOST])
		r->cpus_lost = nla_get_u32(tb[CTXCOUNT_A_CPUS_LOST]);
	if (tb[CTXCOUNT_A_TASKS_NOW])
		r->tasks_now = nla_get_u32(tb[CTXCOUNT_A_TASKS_NOW]);
	if (tb[CTXCOUNT_A_STATS_SESSIONS])
		r->stats_sessions = nla_get_u32(tb[CTXCOUNT_A_STATS_SESSIONS]);
	if (tb[CTXCOUNT_A_STATS_FEATURES])
		r->stats_features = nla_get_u32(tb[CTXCOUNT_A_STATS_FEATURES]);
	return parse_top_events(nlh, r);
}

int ctxc_parse_reply(struct nlmsghdr *nlh, struct ctxc_reply *r)
{
	return ctxc_parse_reply_cpus(nlh, r, NULL);
}

int ctxc_parse_reply_cpus(struct nlmsghdr *nlh, struct ctxc_reply *r,
			  struct ctxc_cpus *cpus)
{
	memset(r, 0, sizeof(*r));
	if (cpus)
		cpus->nr = 0;
	return ctxc_parse_read_part(nlh, r, cpus);
}

int ctxc_extack_msg(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlmsgerr *err = NLMSG_DATA(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t offset = sizeof(*err);
	int payload;

	if (len)
		buf[0] = '\0';
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	/* A dump's end: its errno, then the TLVs. */
	if (nlh->nlmsg_type == NLMSG_DONE)
		offset = sizeof(int);
	else if (nlh->nlmsg_type != NLMSG_ERROR)
		return 0;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + offset)
		return 0;
	/* Unless capped, the kernel echoes our whole request before the TLVs. */
	if (nlh->nlmsg_type == NLMSG_ERROR && !(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += err->msg.nlmsg_len - NLMSG_HDRLEN;
	payload = (int)nlh->nlmsg_len - NLMSG_HDRLEN - (int)offset;
	if (payload <= 0)
		return 0;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + offset),
		      payload, NULL) || !tb[NLMSGERR_ATTR_MSG] || !len)
		return 0;
	nla_strlcpy(buf, tb[NLMSGERR_ATTR_MSG], len);
	return strlen(buf);
}
