// SPDX-License-Identifier: GPL-2.0
/*
 * cst_nl: the selftests' own generic netlink client (see cst_nl.h). libnl
 * builds and parses the messages; the ack and its extended-ack TLVs are
 * parsed here, so that a test can check the kernel's error message.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/netlink.h>
#include <linux/genetlink.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>
#include <netlink/socket.h>
#include <netlink/genl/genl.h>

#include "cst_nl.h"
#include "cst_work.h"

#ifndef NETLINK_EXT_ACK
#define NETLINK_EXT_ACK 11
#endif
#ifndef NETLINK_CAP_ACK
#define NETLINK_CAP_ACK 10
#endif
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

int cst_fd(struct cst_sock *s)
{
	return nl_socket_get_fd(s->sk);
}

static void parse_ack(struct nlmsghdr *nlh, struct cst_ack *ack)
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
static void parse_done(struct nlmsghdr *nlh, struct cst_ack *ack)
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

int cst_sixteen_events(struct cst_ev *ev)
{
	static const struct cst_ev sw[] = {
		CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
		CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
		CST_EV_SW(PAGE_FAULTS, 0, "page-faults"),
		CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
		CST_EV_SW(CPU_MIGRATIONS, 0, "cpu-migrations"),
		CST_EV_SW(PAGE_FAULTS_MIN, 0, "minor-faults"),
		CST_EV_SW(PAGE_FAULTS_MAJ, 0, "major-faults"),
		CST_EV_SW(ALIGNMENT_FAULTS, 0, "alignment-faults"),
	};
	int i, n = 0;

	for (i = 0; i < 8; i++) {
		ev[n++] = sw[i];
		ev[n] = sw[i];
		ev[n++].flags = CST_F_USER_ONLY;
	}
	return n;
}

int cst_res_diff(const struct cst_res *a, const struct cst_res *b,
		 char *what, size_t len)
{
	int i;

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
		CST_DIFF(memcmp(&a->ev[i], &b->ev[i], sizeof(a->ev[i])),
			 "event %d", i);
	CST_DIFF(a->has_sources != b->has_sources ||
		 a->nsources != b->nsources || a->bad_sources != b->bad_sources,
		 "sources: %d and %d", a->nsources, b->nsources);
	for (i = 0; i < a->nsources; i++)
		CST_DIFF(memcmp(&a->sources[i], &b->sources[i],
				sizeof(a->sources[i])), "source %d", i);
	CST_DIFF(a->ncpu != b->ncpu || a->cpu_overflow != b->cpu_overflow,
		 "CPU rows: %d and %d", a->ncpu, b->ncpu);
	for (i = 0; i < a->ncpu; i++)
		CST_DIFF(memcmp(&a->cpu[i], &b->cpu[i], sizeof(a->cpu[i])),
			 "CPU row %d (cpu %u)", i, a->cpu[i].cpu);
#undef CST_DIFF
	return 0;
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

/* A CPU nest into @c, added to what an earlier part of it left there. */
static void parse_cpu(struct nlattr *nest, struct cst_cpu_res *c)
{
	struct nlattr *tb[CTXCOUNT_CPU_A_MAX + 1];
	struct nlattr *ev;
	int rem;

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
	nla_for_each_nested(ev, tb[CTXCOUNT_CPU_A_EVENTS], rem) {
		if (nla_type(ev) != CTXCOUNT_EVENTS_A_EVENT ||
		    c->nev == CTXCOUNT_MAX_EVENTS)
			continue;
		parse_event(ev, &c->ev[c->nev++]);
	}
}

/* Set while a READ dump is read: a CPU nest may continue the last one. */
static bool cst_dumping;

/* The CPU number of a CTXCOUNT_A_CPU nest, or -1. */
static long cpu_of_nest(struct nlattr *nest)
{
	struct nlattr *a;
	int rem;

	nla_for_each_nested(a, nest, rem)
		if (nla_type(a) == CTXCOUNT_CPU_A_CPU && nla_len(a) == 4)
			return nla_get_u32(a);
	return -1;
}

static void parse_cpu_nest(struct nlattr *nest, struct cst_res *res)
{
	struct cst_cpu_res *last = res->ncpu ? &res->cpu[res->ncpu - 1] : NULL;

	res->cpu_nests++;
	if (cst_dumping && last && !res->cpu_overflow && last->has_cpu &&
	    cpu_of_nest(nest) == last->cpu) {
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

static void parse_events(struct nlattr *nest, struct cst_res *res)
{
	struct nlattr *ev;
	int rem;

	nla_for_each_nested(ev, nest, rem) {
		if (nla_type(ev) != CTXCOUNT_EVENTS_A_EVENT)
			continue;
		if (res->nev >= (int)(sizeof(res->ev) / sizeof(res->ev[0])))
			break;
		parse_event(ev, &res->ev[res->nev++]);
	}
}

/* What the per-attribute parse cannot see: repeated and unknown types. */
static void parse_top_level(struct genlmsghdr *g, struct cst_res *res)
{
	struct nlattr *a;
	int rem;

	nla_for_each_attr(a, genlmsg_attrdata(g, 0), genlmsg_attrlen(g, 0), rem) {
		if (nla_type(a) < 64)
			res->attr_seen |= 1ULL << nla_type(a);
		if (nla_type(a) == CTXCOUNT_A_CPU)
			parse_cpu_nest(a, res);
		/* Repeated in a dump: each carries some of them. */
		if (nla_type(a) == CTXCOUNT_A_SOURCES)
			parse_sources(a, res);
		if (nla_type(a) == CTXCOUNT_A_EVENTS)
			parse_events(a, res);
	}
}

static void parse_reply(struct nlmsghdr *nlh, struct cst_res *res)
{
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];

	res->replied = true;
	parse_top_level(g, res);
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

/* Generic request/ack on any genl family; ctrl replies go to ctrl_cb. */
static int xfer(struct nl_sock *sk, struct nl_msg *msg, int family,
		struct cst_res *res, struct cst_ack *ack,
		void (*ctrl_cb)(struct nlmsghdr *, void *), void *cb_arg)
{
	struct cst_ack local;
	uint32_t seq;
	int ret;

	if (!ack)
		ack = &local;
	memset(ack, 0, sizeof(*ack));
	if (res)
		memset(res, 0, sizeof(*res));
	ret = nl_send_auto(sk, msg);
	seq = nlmsg_hdr(msg)->nlmsg_seq;
	nlmsg_free(msg);
	if (ret < 0) {
		ack->err = -EIO;
		return ack->err;
	}
	for (;;) {
		struct sockaddr_nl peer;
		unsigned char *buf = NULL;
		struct nlmsghdr *nlh;
		int len, done = 0;

		len = nl_recv(sk, &peer, &buf, NULL);
		if (len <= 0) {
			free(buf);
			ack->err = len == -NLE_AGAIN ? -ETIMEDOUT : -EIO;
			return ack->err;
		}
		for (nlh = (struct nlmsghdr *)buf; nlmsg_ok(nlh, len);
		     nlh = nlmsg_next(nlh, &len)) {
			if (nlh->nlmsg_seq != seq)
				continue;
			if (nlh->nlmsg_type == NLMSG_ERROR) {
				parse_ack(nlh, ack);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == NLMSG_DONE) {
				parse_done(nlh, ack);
				done = 1;
				break;
			}
			if (nlh->nlmsg_type == family) {
				if (ctrl_cb)
					ctrl_cb(nlh, cb_arg);
				else if (res)
					parse_reply(nlh, res);
				if (res) {
					res->nmsg++;
					if (nlh->nlmsg_len > res->max_msg_len)
						res->max_msg_len = nlh->nlmsg_len;
				}
			}
		}
		free(buf);
		if (done)
			return ack->err;
	}
}

struct family_info {
	bool found;
	int id;
	unsigned int version, maxattr;
};

static void family_cb(struct nlmsghdr *nlh, void *arg)
{
	struct family_info *fi = arg;
	struct genlmsghdr *g = NLMSG_DATA(nlh);
	struct nlattr *tb[CTRL_ATTR_MAX + 1];

	memset(tb, 0, sizeof(tb));
	if (nla_parse(tb, CTRL_ATTR_MAX, genlmsg_attrdata(g, 0),
		      genlmsg_attrlen(g, 0), NULL))
		return;
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return;
	fi->found = true;
	fi->id = nla_get_u16(tb[CTRL_ATTR_FAMILY_ID]);
	if (tb[CTRL_ATTR_VERSION])
		fi->version = nla_get_u32(tb[CTRL_ATTR_VERSION]);
	if (tb[CTRL_ATTR_MAXATTR])
		fi->maxattr = nla_get_u32(tb[CTRL_ATTR_MAXATTR]);
}

int cst_open(struct cst_sock *s)
{
	struct family_info fi = { 0 };
	struct timeval tv = { .tv_sec = 20 };
	int one = 1, ret, rcvbuf = 8 << 20;
	struct nl_msg *m;

	memset(s, 0, sizeof(*s));
	s->sk = nl_socket_alloc();
	if (!s->sk)
		return -ENOMEM;
	if (genl_connect(s->sk)) {
		nl_socket_free(s->sk);
		s->sk = NULL;
		return -EIO;
	}
	nl_socket_enable_msg_peek(s->sk);
	nl_socket_set_msg_buf_size(s->sk, 65536);
	/*
	 * Room for a single READ reply with a row per CPU (and its ack) on
	 * the 64-vCPU guests, so that it can be compared with the dump: the
	 * module refuses a reply that would leave its ack no room.
	 */
	setsockopt(cst_fd(s), SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
		   sizeof(rcvbuf));
	setsockopt(cst_fd(s), SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(cst_fd(s), SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(cst_fd(s), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));

	m = nlmsg_alloc();
	if (!m) {
		cst_close(s);
		return -ENOMEM;
	}
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
		    NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY, 1);
	nla_put_string(m, CTRL_ATTR_FAMILY_NAME, CTXCOUNT_GENL_NAME);
	ret = xfer(s->sk, m, GENL_ID_CTRL, NULL, NULL, family_cb, &fi);
	if (ret || !fi.found) {
		cst_close(s);
		return ret ? ret : -ENOENT;
	}
	s->family = fi.id;
	s->version = fi.version;
	s->maxattr = fi.maxattr;
	return 0;
}

void cst_close(struct cst_sock *s)
{
	if (s->sk)
		nl_socket_free(s->sk);
	s->sk = NULL;
}

struct nl_msg *cst_msg(struct cst_sock *s, uint8_t cmd)
{
	struct nl_msg *m = nlmsg_alloc_size(32768);

	if (!m)
		return NULL;
	genlmsg_put(m, NL_AUTO_PORT, NL_AUTO_SEQ, s->family, 0,
		    NLM_F_REQUEST | NLM_F_ACK, cmd, CTXCOUNT_GENL_VERSION);
	return m;
}

int cst_put_target_cpus(struct nl_msg *m, int pid, uint32_t flags,
			const int *cpus, int n)
{
	struct nlattr *t = nla_nest_start(m, CTXCOUNT_A_TARGET | NLA_F_NESTED);
	struct nlattr *list;
	int i;

	if (!t)
		return -EMSGSIZE;
	if (pid >= 0 && nla_put_u32(m, CTXCOUNT_TARGET_A_PID, pid))
		return -EMSGSIZE;
	if (nla_put_u32(m, CTXCOUNT_TARGET_A_FLAGS, flags))
		return -EMSGSIZE;
	/* libnl's nla_nest_end() drops an empty nest: put it by hand. */
	if (n == 0 && nla_put(m, CTXCOUNT_TARGET_A_CPUS | NLA_F_NESTED, 0, NULL))
		return -EMSGSIZE;
	if (n > 0) {
		list = nla_nest_start(m, CTXCOUNT_TARGET_A_CPUS | NLA_F_NESTED);
		if (!list)
			return -EMSGSIZE;
		for (i = 0; i < n; i++)
			if (nla_put_u32(m, CTXCOUNT_CPUS_A_CPU, cpus[i]))
				return -EMSGSIZE;
		nla_nest_end(m, list);
	}
	nla_nest_end(m, t);
	return 0;
}

int cst_put_target(struct nl_msg *m, int pid, uint32_t flags)
{
	return cst_put_target_cpus(m, pid, flags, NULL, -1);
}

int cst_put_events_fds(struct nl_msg *m, const struct cst_ev *ev, int n,
		       const int *fds)
{
	struct nlattr *all = nla_nest_start(m, CTXCOUNT_A_EVENTS | NLA_F_NESTED);
	int i;

	if (!all)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		struct nlattr *e = nla_nest_start(m, CTXCOUNT_EVENTS_A_EVENT |
						     NLA_F_NESTED);

		if (!e || nla_put_u32(m, CTXCOUNT_EVENT_A_TYPE, ev[i].type) ||
		    nla_put_u64(m, CTXCOUNT_EVENT_A_CONFIG, ev[i].config) ||
		    nla_put_u32(m, CTXCOUNT_EVENT_A_FLAGS, ev[i].flags))
			return -EMSGSIZE;
		if (fds && fds[i] >= 0 &&
		    nla_put_s32(m, CTXCOUNT_EVENT_A_PERF_FD, fds[i]))
			return -EMSGSIZE;
		nla_nest_end(m, e);
	}
	/* libnl drops an empty nest; n == 0 must send one */
	nla_nest_end_keep_empty(m, all);
	return 0;
}

int cst_put_events(struct nl_msg *m, const struct cst_ev *ev, int n)
{
	return cst_put_events_fds(m, ev, n, NULL);
}

int cst_proof_open(int pid, uint32_t tflags, const struct cst_ev *ev)
{
	struct perf_event_attr attr = {
		.type = ev->type,
		.size = sizeof(attr),
		.config = ev->config,
		.disabled = 1,
		.exclude_user = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_USER),
		.exclude_kernel = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL),
		.exclude_hv = !!(ev->flags & CTXCOUNT_EVENT_F_EXCLUDE_HV),
	};
	bool system_wide = tflags & CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	long fd;

	if (!system_wide)
		attr.inherit = !!(tflags & CTXCOUNT_TARGET_F_INHERIT);
	fd = syscall(SYS_perf_event_open, &attr, system_wide ? -1 : pid,
		     system_wide ? 0 : -1, -1, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

int cst_proofs_open(int pid, uint32_t tflags, const struct cst_ev *ev, int n,
		    int *fds, struct cst_ack *ack)
{
	int i, err;

	for (i = 0; i < n; i++) {
		fds[i] = cst_proof_open(pid, tflags, &ev[i]);
		if (fds[i] >= 0)
			continue;
		err = fds[i];
		if (ack) {
			memset(ack, 0, sizeof(*ack));
			ack->err = err;
			ack->has_msg = true;
			snprintf(ack->msg, sizeof(ack->msg),
				 "proof of %s: perf_event_open: %s",
				 ev[i].name ? ev[i].name : "event",
				 strerror(-err));
		}
		cst_proofs_close(fds, i);
		return err;
	}
	return 0;
}

void cst_proofs_close(int *fds, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
	}
}

int cst_xfer(struct cst_sock *s, struct nl_msg *msg, struct cst_res *res,
	     struct cst_ack *ack)
{
	return xfer(s->sk, msg, s->family, res, ack, NULL, NULL);
}

uint32_t cst_new_session_flags;
long long cst_new_max_sources = -1;

static int put_new_opts(struct nl_msg *m)
{
	if (cst_new_session_flags &&
	    nla_put_u32(m, CTXCOUNT_A_SESSION_FLAGS, cst_new_session_flags))
		return -EMSGSIZE;
	if (cst_new_max_sources >= 0 &&
	    nla_put_u32(m, CTXCOUNT_A_MAX_SOURCES, cst_new_max_sources))
		return -EMSGSIZE;
	return 0;
}

int cst_new_fds(struct cst_sock *s, int pid, uint32_t tflags,
		const struct cst_ev *ev, int n, const int *fds,
		struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_NEW);

	if (!m)
		return -ENOMEM;
	if (cst_put_target(m, pid, tflags) ||
	    cst_put_events_fds(m, ev, n, fds) || put_new_opts(m)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_new(struct cst_sock *s, int pid, uint32_t tflags,
	    const struct cst_ev *ev, int n, struct cst_res *res,
	    struct cst_ack *ack)
{
	int fds[CTXCOUNT_MAX_EVENTS + 8];
	int ret;

	if (n < 0 || n > (int)(sizeof(fds) / sizeof(fds[0])))
		return -E2BIG;
	ret = cst_proofs_open(pid, tflags, ev, n, fds, ack);
	if (ret)
		return ret;
	ret = cst_new_fds(s, pid, tflags, ev, n, fds, res, ack);
	cst_proofs_close(fds, n);
	return ret;
}

int cst_new_cpus(struct cst_sock *s, const struct cst_ev *ev, int n,
		 const int *cpus, int ncpu, struct cst_res *res,
		 struct cst_ack *ack)
{
	const uint32_t tflags = CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	int fds[CTXCOUNT_MAX_EVENTS + 8];
	struct nl_msg *m;
	int ret;

	if (n < 0 || n > (int)(sizeof(fds) / sizeof(fds[0])))
		return -E2BIG;
	ret = cst_proofs_open(-1, tflags, ev, n, fds, ack);
	if (ret)
		return ret;
	m = cst_msg(s, CTXCOUNT_CMD_SESSION_NEW);
	if (!m) {
		ret = -ENOMEM;
	} else if (cst_put_target_cpus(m, -1, tflags, cpus, ncpu) ||
		   cst_put_events_fds(m, ev, n, fds) || put_new_opts(m)) {
		nlmsg_free(m);
		ret = -EMSGSIZE;
	} else {
		ret = cst_xfer(s, m, res, ack);
	}
	cst_proofs_close(fds, n);
	return ret;
}

int cst_read(struct cst_sock *s, uint32_t id, uint32_t flags,
	     struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_READ);

	if (!m)
		return -ENOMEM;
	if (nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id) ||
	    (flags && nla_put_u32(m, CTXCOUNT_A_READ_FLAGS, flags))) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_read_dump(struct cst_sock *s, uint32_t id, uint32_t flags,
		  struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_READ);
	int ret;

	if (!m)
		return -ENOMEM;
	nlmsg_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	if (nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id) ||
	    (flags && nla_put_u32(m, CTXCOUNT_A_READ_FLAGS, flags))) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	cst_dumping = true;
	ret = cst_xfer(s, m, res, ack);
	cst_dumping = false;
	return ret;
}

int cst_cmd(struct cst_sock *s, uint8_t cmd, uint32_t id,
	    struct cst_res *res, struct cst_ack *ack)
{
	struct nl_msg *m = cst_msg(s, cmd);

	if (!m)
		return -ENOMEM;
	if (cmd != CTXCOUNT_CMD_STATS &&
	    nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, res, ack);
}

int cst_calibrate_step(struct cst_sock *s, uint32_t id, uint32_t step)
{
	struct nl_msg *m = cst_msg(s, CTXCOUNT_CMD_SESSION_CALIBRATE);

	if (!m)
		return -ENOMEM;
	/* Module-wide since version 5: older modules wanted a session. */
	if ((id && nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id)) ||
	    nla_put_u32(m, CTXCOUNT_A_CALIBRATE, step)) {
		nlmsg_free(m);
		return -EMSGSIZE;
	}
	return cst_xfer(s, m, NULL, NULL);
}

int cst_calibrate(struct cst_sock *s, uint32_t id)
{
	/* As ctxstat does: a first quiet run warms up, the second counts. */
	static const uint32_t begin[3] = {
		CTXCOUNT_CALIBRATE_QUIET_BEGIN, CTXCOUNT_CALIBRATE_QUIET_BEGIN,
		CTXCOUNT_CALIBRATE_STORM_BEGIN,
	};
	cpu_set_t old, one;
	int i, tries, err = -EAGAIN;

	if (sched_getaffinity(0, sizeof(old), &old))
		return -errno;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	for (tries = 0; tries < 5 && err == -EAGAIN; tries++) {
		for (i = 0, err = 0; i < 3 && !err; i++) {
			err = cst_calibrate_step(s, id, begin[i]);
			if (err)
				break;
			cst_loop(200000);
			err = cst_calibrate_step(s, id, CTXCOUNT_CALIBRATE_END);
		}
	}
	sched_setaffinity(0, sizeof(old), &old);
	return err == -EEXIST ? 0 : err;
}

uint32_t cst_features(void)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	uint32_t f = 0;

	if (r && !cst_open(&s)) {
		if (!cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, r, NULL))
			f = r->features;
		cst_close(&s);
	}
	free(r);
	return f;
}

long cst_live_sessions(void)
{
	struct cst_sock s;
	struct cst_res *res = calloc(1, sizeof(*res));
	long ret;

	if (!res)
		return -ENOMEM;
	ret = cst_open(&s);
	if (!ret) {
		ret = cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, res, NULL);
		if (!ret)
			ret = res->has_sessions ? (long)res->sessions : -EPROTO;
		cst_close(&s);
	}
	free(res);
	return ret;
}

long cst_wait_live_sessions(long want, int ms)
{
	long live = cst_live_sessions();

	while (live != want && ms > 0) {
		usleep(20000);
		ms -= 20;
		live = cst_live_sessions();
	}
	return live;
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

int cst_event_error(const struct cst_ev *ev)
{
	struct cst_sock s;
	struct cst_res *res = calloc(1, sizeof(*res));
	int ret;

	if (!res)
		return -ENOMEM;
	ret = cst_open(&s);
	if (ret) {
		free(res);
		return ret;
	}
	/* An event perf refuses here has no proof: its errno is the answer. */
	ret = cst_new(&s, getpid(), 0, ev, 1, res, NULL);
	if (!ret) {
		if (res->nev == 1 && res->ev[0].has_error)
			ret = res->ev[0].error;
		else
			ret = -EPROTO;
		cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, res->id, NULL, NULL);
	}
	cst_close(&s);
	free(res);
	return ret;
}
