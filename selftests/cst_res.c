// SPDX-License-Identifier: GPL-2.0
/*
 * cst_res: what a reply of the family said, attribute by attribute (see
 * cst_res.h), and the ack's extended-ack TLVs, parsed here rather than by
 * libnl so that a test can check the kernel's error message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/genl/genl.h>

#include "cst_res.h"

#ifndef NLM_F_CAPPED
#define NLM_F_CAPPED 0x100
#endif
#ifndef NLM_F_ACK_TLVS
#define NLM_F_ACK_TLVS 0x200
#endif
#define CST_NLMSGERR_ATTR_MSG 1
#define CST_NLMSGERR_ATTR_OFFS 2
#define CST_NLMSGERR_ATTR_MISS_TYPE 5
#define CST_NLMSGERR_ATTR_MAX 8

void cst_parse_ack(struct nlmsghdr *nlh, struct cst_ack *ack)
{
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	struct nlattr *tb[CST_NLMSGERR_ATTR_MAX + 1];
	size_t off, len;

	ack->err = e->error;
	ack->from_kernel = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	off = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	off = NLMSG_ALIGN(off);
	if (NLMSG_HDRLEN + off >= nlh->nlmsg_len)
		return;
	len = nlh->nlmsg_len - NLMSG_HDRLEN - off;
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CST_NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)e + off), len, NULL))
		return;
	if (tb[CST_NLMSGERR_ATTR_MSG]) {
		ack->has_msg = true;
		snprintf(ack->msg, sizeof(ack->msg), "%.*s",
			 nla_len(tb[CST_NLMSGERR_ATTR_MSG]),
			 (char *)nla_data(tb[CST_NLMSGERR_ATTR_MSG]));
		/* an empty string is not a message */
		if (!ack->msg[0])
			ack->has_msg = false;
	}
	if (tb[CST_NLMSGERR_ATTR_OFFS]) {
		ack->has_off = true;
		ack->off = nla_get_u32(tb[CST_NLMSGERR_ATTR_OFFS]);
	}
	if (tb[CST_NLMSGERR_ATTR_MISS_TYPE]) {
		ack->has_miss = true;
		ack->miss_type = nla_get_u32(tb[CST_NLMSGERR_ATTR_MISS_TYPE]);
	}
}

/* NLMSG_DONE ends a dump: its errno, then (with TLVs) the message. */
void cst_parse_done(struct nlmsghdr *nlh, struct cst_ack *ack)
{
	struct nlattr *tb[CST_NLMSGERR_ATTR_MAX + 1];
	int err;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err)))
		return;
	memcpy(&err, NLMSG_DATA(nlh), sizeof(err));
	ack->err = err;
	ack->from_kernel = true;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) ||
	    nlh->nlmsg_len <= NLMSG_LENGTH(sizeof(err)))
		return;
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CST_NLMSGERR_ATTR_MAX,
		      (struct nlattr *)((char *)NLMSG_DATA(nlh) + sizeof(err)),
		      nlh->nlmsg_len - NLMSG_LENGTH(sizeof(err)), NULL) ||
	    !tb[CST_NLMSGERR_ATTR_MSG])
		return;
	ack->has_msg = true;
	snprintf(ack->msg, sizeof(ack->msg), "%.*s",
		 nla_len(tb[CST_NLMSGERR_ATTR_MSG]),
		 (char *)nla_data(tb[CST_NLMSGERR_ATTR_MSG]));
}

/* A nest of u64 whose types are ids 1..max. */
static void parse_u64_by_type(struct nlattr *nest, int max, bool *has,
			      uint64_t *v, int *n, int *bad, bool *seen)
{
	struct nlattr *a;
	int rem, t;

	*seen = true;
	nla_for_each_nested(a, nest, rem) {
		t = nla_type(a);
		if (t < 1 || t > max || nla_len(a) != 8 || has[t]) {
			(*bad)++;
			continue;
		}
		has[t] = true;
		v[t] = nla_get_u64(a);
		(*n)++;
	}
}

static void parse_source(struct nlattr *nest, struct cst_res *res)
{
	struct nlattr *tb[CTXCOUNT_SOURCE_A_MAX + 1];
	struct cst_source *s;

	memset(tb, 0, sizeof(tb));
	if (nla_parse_nested(tb, CTXCOUNT_SOURCE_A_MAX, nest, NULL) ||
	    !tb[CTXCOUNT_SOURCE_A_ID] || !tb[CTXCOUNT_SOURCE_A_KIND] ||
	    res->nsources == CTXCOUNT_MAX_SOURCES + 2) {
		res->bad_sources++;
		return;
	}
	s = &res->sources[res->nsources++];
	memset(s, 0, sizeof(*s));
	s->id = nla_get_u32(tb[CTXCOUNT_SOURCE_A_ID]);
	s->kind = nla_get_u32(tb[CTXCOUNT_SOURCE_A_KIND]);
	if (s->id < 1 || s->id > CTXCOUNT_SOURCE_ID_MAX)
		res->bad_sources++;
	if (tb[CTXCOUNT_SOURCE_A_IRQ]) {
		s->has_irq = true;
		s->irq = nla_get_u32(tb[CTXCOUNT_SOURCE_A_IRQ]);
	}
	if (tb[CTXCOUNT_SOURCE_A_HWIRQ]) {
		s->has_hwirq = true;
		s->hwirq = nla_get_u64(tb[CTXCOUNT_SOURCE_A_HWIRQ]);
	}
	if (tb[CTXCOUNT_SOURCE_A_NAME]) {
		s->has_name = true;
		snprintf(s->name, sizeof(s->name), "%s",
			 (const char *)nla_data(tb[CTXCOUNT_SOURCE_A_NAME]));
	}
	if (tb[CTXCOUNT_SOURCE_A_COUNT]) {
		s->has_count = true;
		s->count = nla_get_u64(tb[CTXCOUNT_SOURCE_A_COUNT]);
	}
}

const struct cst_source *cst_source_named(const struct cst_res *r,
					  const char *name)
{
	int i;

	for (i = 0; i < r->nsources; i++)
		if (r->sources[i].has_name && !strcmp(r->sources[i].name, name))
			return &r->sources[i];
	return NULL;
}

const struct cst_source *cst_source_id(const struct cst_res *r, uint32_t id)
{
	int i;

	for (i = 0; i < r->nsources; i++)
		if (r->sources[i].id == id)
			return &r->sources[i];
	return NULL;
}

/*
 * Where two events differ, with both values: "event 0" alone does not
 * say whether a bucket, a source or the estimate moved.
 */
static void ev_diff(const struct cst_ev_res *a, const struct cst_ev_res *b,
		    char *what, size_t len, size_t used)
{
	int k;

	what += used;
	len = len > used ? len - used : 0;
	if (!len)
		return;
	for (k = 0; k <= CTXCOUNT_BUCKET_MAX; k++)
		if (a->has_b[k] != b->has_b[k] || a->b[k] != b->b[k]) {
			snprintf(what, len, ": bucket %s %llu and %llu",
				 cst_bucket_name(k), (unsigned long long)a->b[k],
				 (unsigned long long)b->b[k]);
			return;
		}
	for (k = 0; k <= CTXCOUNT_SOURCE_ID_MAX; k++)
		if (a->has_src[k] != b->has_src[k] || a->src[k] != b->src[k]) {
			snprintf(what, len, ": source %d %llu and %llu", k,
				 (unsigned long long)a->src[k],
				 (unsigned long long)b->src[k]);
			return;
		}
	snprintf(what, len,
		 ": full %llu/%llu enabled %llu/%llu running %llu/%llu direct %u/%u est %u/%u err %llu/%llu",
		 (unsigned long long)a->full, (unsigned long long)b->full,
		 (unsigned long long)a->enabled, (unsigned long long)b->enabled,
		 (unsigned long long)a->running, (unsigned long long)b->running,
		 a->direct_cpus, b->direct_cpus, a->est_state, b->est_state,
		 (unsigned long long)a->est_error,
		 (unsigned long long)b->est_error);
}

int cst_res_diff(const struct cst_res *a, const struct cst_res *b,
		 char *what, size_t len)
{
	int i, k, n;

#define CST_DIFF(cond, ...) do {				\
		if (cond) {					\
			snprintf(what, len, __VA_ARGS__);	\
			return 1;				\
		}						\
	} while (0)
	CST_DIFF(a->has_id != b->has_id || a->id != b->id, "session id");
	CST_DIFF(a->has_seen != b->has_seen || a->tasks_seen != b->tasks_seen ||
		 a->has_lost != b->has_lost || a->tasks_lost != b->tasks_lost ||
		 a->has_now != b->has_now || a->tasks_now != b->tasks_now,
		 "task counts");
	CST_DIFF(a->has_excursions != b->has_excursions ||
		 memcmp(a->exc, b->exc, sizeof(a->exc)), "excursions");
	CST_DIFF(a->nev != b->nev, "events: %d and %d", a->nev, b->nev);
	for (i = 0; i < a->nev; i++)
		if (memcmp(&a->ev[i], &b->ev[i], sizeof(a->ev[i]))) {
			n = snprintf(what, len, "event %d", i);
			ev_diff(&a->ev[i], &b->ev[i], what, len, n);
			return 1;
		}
	CST_DIFF(a->has_sources != b->has_sources ||
		 a->nsources != b->nsources || a->bad_sources != b->bad_sources,
		 "sources: %d and %d", a->nsources, b->nsources);
	for (i = 0; i < a->nsources; i++)
		CST_DIFF(memcmp(&a->sources[i], &b->sources[i],
				sizeof(a->sources[i])),
			 "source %d (\"%s\" and \"%s\", runs %llu and %llu)", i,
			 a->sources[i].name, b->sources[i].name,
			 (unsigned long long)a->sources[i].count,
			 (unsigned long long)b->sources[i].count);
	CST_DIFF(a->ncpu != b->ncpu || a->cpu_overflow != b->cpu_overflow,
		 "CPU rows: %d and %d", a->ncpu, b->ncpu);
	for (i = 0; i < a->ncpu; i++) {
		const struct cst_cpu_res *x = &a->cpu[i], *y = &b->cpu[i];

		if (!memcmp(x, y, sizeof(*x)))
			continue;
		n = snprintf(what, len, "CPU row %d (cpu %u)", i, x->cpu);
		if (n < 0 || (size_t)n + 16 > len)
			return 1;
		for (k = 0; k < x->nev && k < y->nev; k++)
			if (memcmp(&x->ev[k], &y->ev[k], sizeof(x->ev[k]))) {
				n += snprintf(what + n, len - n, " event %d", k);
				ev_diff(&x->ev[k], &y->ev[k], what, len, n);
				return 1;
			}
		for (k = 0; k <= CTXCOUNT_SOURCE_ID_MAX; k++)
			if (x->src_count[k] != y->src_count[k]) {
				snprintf(what + n, len - n,
					 ": runs of source %d %llu and %llu", k,
					 (unsigned long long)x->src_count[k],
					 (unsigned long long)y->src_count[k]);
				return 1;
			}
		return 1;
	}
	if (!a->thr || !b->thr)
		return 0;
	CST_DIFF(a->thr->n != b->thr->n || a->thr->overflow != b->thr->overflow,
		 "thread rows: %d and %d", a->thr->n, b->thr->n);
	for (i = 0; i < a->thr->n; i++)
		CST_DIFF(memcmp(&a->thr->row[i], &b->thr->row[i],
				sizeof(a->thr->row[i])),
			 "thread row %d (tid %u)", i, a->thr->row[i].tid);
#undef CST_DIFF
	return 0;
}

struct cst_threads *cst_threads_alloc(int cap)
{
	struct cst_threads *t;

	t = calloc(1, sizeof(*t) + cap * sizeof(t->row[0]));
	if (t)
		t->cap = cap;
	return t;
}

const struct cst_thread_res *cst_thread_row(const struct cst_res *r,
					    uint32_t tid)
{
	int i;

	for (i = 0; r->thr && i < r->thr->n; i++)
		if (r->thr->row[i].has_tid && r->thr->row[i].tid == tid)
			return &r->thr->row[i];
	return NULL;
}

uint64_t cst_sources_sum(const struct cst_ev_res *e)
{
	uint64_t sum = 0;
	int t;

	for (t = 1; t <= CTXCOUNT_SOURCE_ID_MAX; t++)
		if (e->has_src[t])
			sum += e->src[t];
	return sum;
}

static void parse_event(struct nlattr *nest, struct cst_ev_res *r)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1];
	struct nlattr *b;
	int rem;

	memset(r, 0, sizeof(*r));
	memset(tb, 0, sizeof(tb));
	if (nla_parse_nested(tb, CTXCOUNT_EVENT_A_MAX, nest, NULL))
		return;
	if (tb[CTXCOUNT_EVENT_A_INDEX]) {
		r->has_index = true;
		r->index = nla_get_u32(tb[CTXCOUNT_EVENT_A_INDEX]);
	}
	if (tb[CTXCOUNT_EVENT_A_ERROR]) {
		r->has_error = true;
		r->error = nla_get_s32(tb[CTXCOUNT_EVENT_A_ERROR]);
	}
	if (tb[CTXCOUNT_EVENT_A_FULL]) {
		r->has_full = true;
		r->full = nla_get_u64(tb[CTXCOUNT_EVENT_A_FULL]);
	}
	if (tb[CTXCOUNT_EVENT_A_TIME_ENABLED]) {
		r->has_enabled = true;
		r->enabled = nla_get_u64(tb[CTXCOUNT_EVENT_A_TIME_ENABLED]);
	}
	if (tb[CTXCOUNT_EVENT_A_TIME_RUNNING]) {
		r->has_running = true;
		r->running = nla_get_u64(tb[CTXCOUNT_EVENT_A_TIME_RUNNING]);
	}
	if (tb[CTXCOUNT_EVENT_A_DIRECT_CPUS]) {
		r->has_direct_cpus = true;
		r->direct_cpus = nla_get_u32(tb[CTXCOUNT_EVENT_A_DIRECT_CPUS]);
	}
	if (tb[CTXCOUNT_EVENT_A_EST_STATE]) {
		r->has_est_state = true;
		r->est_state = nla_get_u32(tb[CTXCOUNT_EVENT_A_EST_STATE]);
	}
	if (tb[CTXCOUNT_EVENT_A_EST_ERROR]) {
		r->has_est_error = true;
		r->est_error = nla_get_u64(tb[CTXCOUNT_EVENT_A_EST_ERROR]);
	}
	if (tb[CTXCOUNT_EVENT_A_SOURCES])
		parse_u64_by_type(tb[CTXCOUNT_EVENT_A_SOURCES],
				  CTXCOUNT_SOURCE_ID_MAX, r->has_src, r->src,
				  &r->nsrc, &r->bad_src, &r->has_sources);
	if (!tb[CTXCOUNT_EVENT_A_BUCKETS])
		return;
	r->has_buckets = true;
	nla_for_each_nested(b, tb[CTXCOUNT_EVENT_A_BUCKETS], rem) {
		int t = nla_type(b);

		r->nbuckets++;
		if (t <= CTXCOUNT_BUCKET_UNSPEC || t > CTXCOUNT_BUCKET_MAX ||
		    nla_len(b) != 8) {
			r->bad_buckets++;
			continue;
		}
		if (r->has_b[t])
			r->dup_buckets++;
		r->has_b[t] = true;
		r->b[t] = nla_get_u64(b);
	}
}

static void parse_excursions(struct nlattr *nest, uint64_t *exc)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) > CTXCOUNT_EXCURSION_UNSPEC &&
		    nla_type(a) <= CTXCOUNT_EXCURSION_MAX && nla_len(a) == 8)
			exc[nla_type(a)] = nla_get_u64(a);
	}
}

/* An EVENTS nest's events appended to ev[*n..cap). */
static void parse_event_list(struct nlattr *nest, struct cst_ev_res *ev,
			     int *n, int cap)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem) {
		if (nla_type(a) != CTXCOUNT_EVENTS_A_EVENT)
			continue;
		if (*n >= cap)
			break;
		parse_event(a, &ev[(*n)++]);
	}
}

/* A CPU nest into @c, added to what an earlier part of it left there. */
static void parse_cpu(struct nlattr *nest, struct cst_cpu_res *c)
{
	struct nlattr *tb[CTXCOUNT_CPU_A_MAX + 1];

	memset(tb, 0, sizeof(tb));
	if (nla_parse_nested(tb, CTXCOUNT_CPU_A_MAX, nest, NULL))
		return;
	if (tb[CTXCOUNT_CPU_A_CPU]) {
		c->has_cpu = true;
		c->cpu = nla_get_u32(tb[CTXCOUNT_CPU_A_CPU]);
	}
	if (tb[CTXCOUNT_CPU_A_EXCURSIONS]) {
		c->has_excursions = true;
		parse_excursions(tb[CTXCOUNT_CPU_A_EXCURSIONS], c->exc);
	}
	if (tb[CTXCOUNT_CPU_A_SOURCE_COUNTS]) {
		bool has[CTXCOUNT_SOURCE_ID_MAX + 1] = { false };
		int n = 0, bad = 0;

		parse_u64_by_type(tb[CTXCOUNT_CPU_A_SOURCE_COUNTS],
				  CTXCOUNT_SOURCE_ID_MAX, has, c->src_count,
				  &n, &bad, &c->has_src_counts);
	}
	if (!tb[CTXCOUNT_CPU_A_EVENTS])
		return;
	c->has_events = true;
	parse_event_list(tb[CTXCOUNT_CPU_A_EVENTS], c->ev, &c->nev,
			 CTXCOUNT_MAX_EVENTS);
}

/* The u32 of type @type in @nest (a CPU's number, a thread's id), or -1. */
static long u32_of_nest(struct nlattr *nest, int type)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == type && nla_len(a) == 4)
			return nla_get_u32(a);
	return -1;
}

/* In a dump (@dump) a CPU nest may continue the last one. */
static void parse_cpu_nest(struct nlattr *nest, struct cst_res *res, bool dump)
{
	struct cst_cpu_res *last = res->ncpu ? &res->cpu[res->ncpu - 1] : NULL;

	res->cpu_nests++;
	if (dump && last && !res->cpu_overflow && last->has_cpu &&
	    u32_of_nest(nest, CTXCOUNT_CPU_A_CPU) == last->cpu) {
		res->cpu_parts++;
		parse_cpu(nest, last);
		return;
	}
	if (res->ncpu == CST_MAX_CPUS) {
		res->cpu_overflow++;
		return;
	}
	memset(&res->cpu[res->ncpu], 0, sizeof(res->cpu[0]));
	parse_cpu(nest, &res->cpu[res->ncpu++]);
}

static void parse_sources(struct nlattr *nest, struct cst_res *res)
{
	struct nlattr *a;
	int rem;

	res->has_sources = true;
	nla_for_each_nested(a, nest, rem)
		parse_source(a, res);
}

/* A thread nest into @t, after what an earlier part of it left there. */
static void parse_thread(struct nlattr *nest, struct cst_thread_res *t,
			 bool first)
{
	struct nlattr *tb[CTXCOUNT_THREAD_A_MAX + 1];
	struct nlattr *comm;

	memset(tb, 0, sizeof(tb));
	if (nla_parse_nested(tb, CTXCOUNT_THREAD_A_MAX, nest, NULL))
		return;
	if (tb[CTXCOUNT_THREAD_A_TID]) {
		t->has_tid = true;
		t->tid = nla_get_u32(tb[CTXCOUNT_THREAD_A_TID]);
	}
	/* Only a thread's first part carries these. */
	if (!first)
		t->late_attrs += !!tb[CTXCOUNT_THREAD_A_PID] +
				 !!tb[CTXCOUNT_THREAD_A_COMM] +
				 !!tb[CTXCOUNT_THREAD_A_EXCURSIONS];
	if (tb[CTXCOUNT_THREAD_A_PID]) {
		t->has_pid = true;
		t->pid = nla_get_u32(tb[CTXCOUNT_THREAD_A_PID]);
	}
	comm = tb[CTXCOUNT_THREAD_A_COMM];
	if (comm) {
		t->has_comm = true;
		t->comm_bad = nla_len(comm) > CTXCOUNT_THREAD_COMM_LEN ||
			      !memchr(nla_data(comm), 0, nla_len(comm));
		snprintf(t->comm, sizeof(t->comm), "%.*s", nla_len(comm),
			 (const char *)nla_data(comm));
	}
	if (tb[CTXCOUNT_THREAD_A_EXCURSIONS]) {
		t->has_excursions = true;
		parse_excursions(tb[CTXCOUNT_THREAD_A_EXCURSIONS], t->exc);
	}
	if (!tb[CTXCOUNT_THREAD_A_EVENTS])
		return;
	t->has_events = true;
	parse_event_list(tb[CTXCOUNT_THREAD_A_EVENTS], t->ev, &t->nev,
			 CTXCOUNT_MAX_EVENTS);
}

/* As a CPU nest: in a dump a thread's nest may continue the last one. */
static void parse_thread_nest(struct nlattr *nest, struct cst_res *res,
			      bool dump)
{
	struct cst_threads *thr = res->thr;
	struct cst_thread_res *last;

	res->thread_nests++;
	if (!thr)
		return;
	last = thr->n ? &thr->row[thr->n - 1] : NULL;
	if (dump && last && !thr->overflow && last->has_tid &&
	    u32_of_nest(nest, CTXCOUNT_THREAD_A_TID) == last->tid) {
		thr->parts++;
		parse_thread(nest, last, false);
		return;
	}
	if (thr->n == thr->cap) {
		thr->overflow++;
		return;
	}
	memset(&thr->row[thr->n], 0, sizeof(thr->row[0]));
	parse_thread(nest, &thr->row[thr->n++], true);
}

static void parse_events(struct nlattr *nest, struct cst_res *res)
{
	parse_event_list(nest, res->ev, &res->nev,
			 sizeof(res->ev) / sizeof(res->ev[0]));
}

/* What the per-attribute parse cannot see: repeated and unknown types. */
static void parse_top_level(struct genlmsghdr *g, struct cst_res *res,
			    bool dump)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) < 64)
			res->attr_seen |= 1ULL << nla_type(a);
		if (nla_type(a) == CTXCOUNT_A_CPU)
			parse_cpu_nest(a, res, dump);
		if (nla_type(a) == CTXCOUNT_A_THREAD)
			parse_thread_nest(a, res, dump);
		/* Repeated in a dump: each carries some of them. */
		if (nla_type(a) == CTXCOUNT_A_SOURCES)
			parse_sources(a, res);
		if (nla_type(a) == CTXCOUNT_A_EVENTS)
			parse_events(a, res);
	}
}

void cst_parse_reply(struct nlmsghdr *nlh, struct cst_res *res, bool dump)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];

	res->replied = true;
	parse_top_level(g, res, dump);
	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTXCOUNT_A_MAX, genlmsg_attrdata(g, 0),
		      genlmsg_attrlen(g, 0), NULL))
		return;
	if (tb[CTXCOUNT_A_SESSION_ID]) {
		res->has_id = true;
		res->id = nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]);
	}
	if (tb[CTXCOUNT_A_TASKS_SEEN]) {
		res->has_seen = true;
		res->tasks_seen = nla_get_u64(tb[CTXCOUNT_A_TASKS_SEEN]);
	}
	if (tb[CTXCOUNT_A_TASKS_LOST]) {
		res->has_lost = true;
		res->tasks_lost = nla_get_u64(tb[CTXCOUNT_A_TASKS_LOST]);
	}
	if (tb[CTXCOUNT_A_TASKS_NOW]) {
		res->has_now = true;
		res->tasks_now = nla_get_u32(tb[CTXCOUNT_A_TASKS_NOW]);
	}
	if (tb[CTXCOUNT_A_STATS_SESSIONS]) {
		res->has_sessions = true;
		res->sessions = nla_get_u32(tb[CTXCOUNT_A_STATS_SESSIONS]);
	}
	if (tb[CTXCOUNT_A_STATS_FEATURES]) {
		res->has_features = true;
		res->features = nla_get_u32(tb[CTXCOUNT_A_STATS_FEATURES]);
	}
	if (tb[CTXCOUNT_A_EXCURSIONS]) {
		res->has_excursions = true;
		parse_excursions(tb[CTXCOUNT_A_EXCURSIONS], res->exc);
	}
}

uint64_t cst_bucket_sum(const struct cst_ev_res *e)
{
	uint64_t sum = 0;
	int b;

	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += e->b[b];
	return sum;
}

uint64_t cst_softirq_sum(const struct cst_ev_res *e)
{
	uint64_t sum = 0;
	int b;

	/* not the estimate bucket, which follows the vectors */
	for (b = CTXCOUNT_BUCKET_SOFTIRQ_FIRST;
	     b < CTXCOUNT_BUCKET_SOFTIRQ_FIRST + CTXCOUNT_NR_SOFTIRQ_BUCKETS; b++)
		sum += e->b[b];
	return sum;
}

const char *cst_bucket_name(int b)
{
	static const char *const names[CTXCOUNT_BUCKET_MAX + 1] = {
		[CTXCOUNT_BUCKET_TASK] = "task",
		[CTXCOUNT_BUCKET_HARDIRQ] = "hardirq",
		[CTXCOUNT_BUCKET_NMI] = "nmi",
		[CTXCOUNT_BUCKET_SOFTIRQ_HI] = "HI",
		[CTXCOUNT_BUCKET_SOFTIRQ_TIMER] = "TIMER",
		[CTXCOUNT_BUCKET_SOFTIRQ_NET_TX] = "NET_TX",
		[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX] = "NET_RX",
		[CTXCOUNT_BUCKET_SOFTIRQ_BLOCK] = "BLOCK",
		[CTXCOUNT_BUCKET_SOFTIRQ_IRQ_POLL] = "IRQ_POLL",
		[CTXCOUNT_BUCKET_SOFTIRQ_TASKLET] = "TASKLET",
		[CTXCOUNT_BUCKET_SOFTIRQ_SCHED] = "SCHED",
		[CTXCOUNT_BUCKET_SOFTIRQ_HRTIMER] = "HRTIMER",
		[CTXCOUNT_BUCKET_SOFTIRQ_RCU] = "RCU",
		[CTXCOUNT_BUCKET_IRQ_ENTRY_EST] = "irq_entry_est",
	};

	if (b <= 0 || b > CTXCOUNT_BUCKET_MAX || !names[b])
		return "?";
	return names[b];
}

void cst_fmt_event(const struct cst_ev_res *e, char *buf, size_t len)
{
	size_t n;
	int b;

	n = snprintf(buf, len, "err=%d full=%llu sum=%llu en=%llu run=%llu",
		     e->error, (unsigned long long)e->full,
		     (unsigned long long)cst_bucket_sum(e),
		     (unsigned long long)e->enabled,
		     (unsigned long long)e->running);
	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX && n < len; b++)
		if (e->b[b])
			n += snprintf(buf + n, len - n, " %s=%llu",
				      cst_bucket_name(b),
				      (unsigned long long)e->b[b]);
}
