// SPDX-License-Identifier: GPL-2.0
/*
 * nlclient: talk to the ctxcount module over generic netlink (libnl-genl).
 * Builders and parsers are pure functions of their arguments; the
 * transaction layer sends one request and collects reply, ack or error
 * (with the kernel's extended ack message).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/family.h>

#include "nlclient.h"
#include "nlsources.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static struct nl_msg *new_request(int family, uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (!msg)
		return NULL;
	if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
			 NLM_F_REQUEST | NLM_F_ACK, cmd,
			 CTXCOUNT_GENL_VERSION)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static int put_cpus(struct nl_msg *msg, const int *cpus, int nr)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_TARGET_A_CPUS);
	int i;

	if (!nest)
		return -1;
	for (i = 0; i < nr; i++)
		if (nla_put_u32(msg, CTXCOUNT_CPUS_A_CPU, cpus[i]))
			return -1;
	return nla_nest_end(msg, nest);
}

static int put_target(struct nl_msg *msg, const struct ctx_nl_target *t)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_A_TARGET);

	if (!nest)
		return -1;
	/* System-wide has no pid: the header says the attribute is absent. */
	if (!(t->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) &&
	    nla_put_u32(msg, CTXCOUNT_TARGET_A_PID, t->pid))
		return -1;
	if (nla_put_u32(msg, CTXCOUNT_TARGET_A_FLAGS, t->flags))
		return -1;
	if (t->nr_cpus && put_cpus(msg, t->cpus, t->nr_cpus) < 0)
		return -1;
	return nla_nest_end(msg, nest);
}

static int put_events(struct nl_msg *msg, const struct ctx_nl_event_req *ev,
		      int nr)
{
	struct nlattr *list, *one;
	int i;

	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	if (!list)
		return -1;
	for (i = 0; i < nr; i++) {
		one = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
		if (!one ||
		    nla_put_u32(msg, CTXCOUNT_EVENT_A_TYPE, ev[i].type) ||
		    nla_put_u64(msg, CTXCOUNT_EVENT_A_CONFIG, ev[i].config) ||
		    nla_put_u32(msg, CTXCOUNT_EVENT_A_FLAGS, ev[i].flags))
			return -1;
		if (ev[i].has_perf_fd &&
		    nla_put_s32(msg, CTXCOUNT_EVENT_A_PERF_FD, ev[i].perf_fd))
			return -1;
		nla_nest_end(msg, one);
	}
	return nla_nest_end(msg, list);
}

struct nl_msg *ctx_nl_build_session_new(int family,
					const struct ctx_nl_target *target,
					const struct ctx_nl_event_req *ev,
					int nr_events)
{
	struct nl_msg *msg = new_request(family, CTXCOUNT_CMD_SESSION_NEW);

	if (!msg)
		return NULL;
	if (put_target(msg, target) < 0 || put_events(msg, ev, nr_events) < 0 ||
	    (target->session_flags &&
	     nla_put_u32(msg, CTXCOUNT_A_SESSION_FLAGS, target->session_flags)) ||
	    (target->max_sources &&
	     nla_put_u32(msg, CTXCOUNT_A_MAX_SOURCES, target->max_sources))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_session_cmd(int family, uint8_t cmd,
					uint32_t session_id)
{
	struct nl_msg *msg = new_request(family, cmd);

	if (!msg)
		return NULL;
	if (nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, session_id)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_session_read(int family, uint32_t session_id,
					 uint32_t flags)
{
	struct nl_msg *msg = ctx_nl_build_session_cmd(family,
						      CTXCOUNT_CMD_SESSION_READ,
						      session_id);

	if (msg && flags && nla_put_u32(msg, CTXCOUNT_A_READ_FLAGS, flags)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctx_nl_build_stats(int family)
{
	return new_request(family, CTXCOUNT_CMD_STATS);
}

struct nl_msg *ctx_nl_build_session_calibrate(int family, uint32_t session_id,
					      uint32_t step)
{
	struct nl_msg *msg = ctx_nl_build_session_cmd(family,
						      CTXCOUNT_CMD_SESSION_CALIBRATE,
						      session_id);

	if (msg && nla_put_u32(msg, CTXCOUNT_A_CALIBRATE, step)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

static struct nla_policy event_policy[CTXCOUNT_EVENT_A_MAX + 1] = {
	[CTXCOUNT_EVENT_A_INDEX]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_ERROR]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_FULL]		= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_TIME_ENABLED]	= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_TIME_RUNNING]	= { .type = NLA_U64 },
	[CTXCOUNT_EVENT_A_BUCKETS]	= { .type = NLA_NESTED },
	[CTXCOUNT_EVENT_A_SOURCES]	= { .type = NLA_NESTED },
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

static int parse_buckets(struct nlattr *nest, struct ctx_nl_event_val *v)
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

static int parse_event(struct nlattr *attr, struct ctx_nl_event_val *ev,
		       int *nr_events)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1];
	struct ctx_nl_event_val *v;
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
	if (tb[CTXCOUNT_EVENT_A_BUCKETS] &&
	    parse_buckets(tb[CTXCOUNT_EVENT_A_BUCKETS], v))
		return -EINVAL;
	if (tb[CTXCOUNT_EVENT_A_SOURCES] &&
	    ctx_nl_parse_source_values(tb[CTXCOUNT_EVENT_A_SOURCES], v->src))
		return -EINVAL;
	if ((int)index + 1 > *nr_events)
		*nr_events = index + 1;
	return 0;
}

static int parse_events(struct nlattr *list, struct ctx_nl_event_val *ev,
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

static struct nla_policy cpu_policy[CTXCOUNT_CPU_A_MAX + 1] = {
	[CTXCOUNT_CPU_A_CPU]		= { .type = NLA_U32 },
	[CTXCOUNT_CPU_A_EVENTS]		= { .type = NLA_NESTED },
	[CTXCOUNT_CPU_A_SOURCE_COUNTS]	= { .type = NLA_NESTED },
};

/* One CTXCOUNT_A_CPU nest into the next free row of @cpus. */
static int parse_cpu(struct nlattr *attr, struct ctx_nl_cpus *cpus)
{
	struct nlattr *tb[CTXCOUNT_CPU_A_MAX + 1];
	struct ctx_nl_cpu_val *v;
	int nr = 0;

	if (cpus->nr == cpus->cap)
		return -E2BIG;
	if (nla_parse_nested(tb, CTXCOUNT_CPU_A_MAX, attr, cpu_policy) ||
	    !tb[CTXCOUNT_CPU_A_CPU] || !tb[CTXCOUNT_CPU_A_EVENTS])
		return -EINVAL;
	v = &cpus->v[cpus->nr];
	memset(v, 0, sizeof(*v));
	v->cpu = nla_get_u32(tb[CTXCOUNT_CPU_A_CPU]);
	if (parse_events(tb[CTXCOUNT_CPU_A_EVENTS], v->ev, &nr))
		return -EINVAL;
	if (tb[CTXCOUNT_CPU_A_SOURCE_COUNTS] &&
	    ctx_nl_parse_source_values(tb[CTXCOUNT_CPU_A_SOURCE_COUNTS],
				       v->src_count))
		return -EINVAL;
	cpus->nr++;
	return 0;
}

/* The CTXCOUNT_A_CPU nests are top-level attributes, one per CPU. */
static int parse_cpus(struct nlmsghdr *nlh, struct ctx_nl_cpus *cpus)
{
	struct nlattr *attr;
	int rem, err;

	cpus->nr = 0;
	nla_for_each_attr(attr, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(attr) != CTXCOUNT_A_CPU)
			continue;
		err = parse_cpu(attr, cpus);
		if (err)
			return err;
	}
	return 0;
}

int ctx_nl_parse_reply(struct nlmsghdr *nlh, struct ctx_nl_reply *r)
{
	return ctx_nl_parse_reply_cpus(nlh, r, NULL);
}

int ctx_nl_parse_reply_cpus(struct nlmsghdr *nlh, struct ctx_nl_reply *r,
			    struct ctx_nl_cpus *cpus)
{
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	int err;

	memset(r, 0, sizeof(*r));
	if (genlmsg_parse(nlh, 0, tb, CTXCOUNT_A_MAX, reply_policy))
		return -EINVAL;
	if (cpus) {
		err = parse_cpus(nlh, cpus);
		if (err)
			return err;
	}
	if (tb[CTXCOUNT_A_SESSION_ID])
		r->session_id = nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]);
	r->tasks_seen = get_u64_or_0(tb[CTXCOUNT_A_TASKS_SEEN]);
	r->tasks_lost = get_u64_or_0(tb[CTXCOUNT_A_TASKS_LOST]);
	if (tb[CTXCOUNT_A_CPUS_LOST])
		r->cpus_lost = nla_get_u32(tb[CTXCOUNT_A_CPUS_LOST]);
	if (tb[CTXCOUNT_A_TASKS_NOW])
		r->tasks_now = nla_get_u32(tb[CTXCOUNT_A_TASKS_NOW]);
	if (tb[CTXCOUNT_A_STATS_SESSIONS])
		r->stats_sessions = nla_get_u32(tb[CTXCOUNT_A_STATS_SESSIONS]);
	if (tb[CTXCOUNT_A_STATS_FEATURES])
		r->stats_features = nla_get_u32(tb[CTXCOUNT_A_STATS_FEATURES]);
	if (tb[CTXCOUNT_A_SOURCES]) {
		r->has_sources = true;
		if (ctx_nl_parse_sources(tb[CTXCOUNT_A_SOURCES], r->src))
			return -EINVAL;
	}
	if (tb[CTXCOUNT_A_EVENTS])
		return parse_events(tb[CTXCOUNT_A_EVENTS], r->ev, &r->nr_events);
	return 0;
}

int ctx_nl_extack_msg(const struct nlmsghdr *nlh, char *buf, size_t len)
{
	const struct nlmsgerr *err = NLMSG_DATA(nlh);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t offset = sizeof(*err);
	int payload;

	if (len)
		buf[0] = '\0';
	if (nlh->nlmsg_type != NLMSG_ERROR || !(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return 0;
	if (nlh->nlmsg_len < NLMSG_HDRLEN + offset)
		return 0;
	/* Unless capped, the kernel echoes our whole request before the TLVs. */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
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

int ctx_nl_open(struct ctx_nl *nl)
{
	int one = 1, family;

	memset(nl, 0, sizeof(*nl));
	nl->sk = nl_socket_alloc();
	if (!nl->sk)
		return -ENOMEM;
	if (genl_connect(nl->sk)) {
		ctx_nl_close(nl);
		return -EPROTONOSUPPORT;
	}
	/* A READ with a row per CPU is larger than a page. */
	nl_socket_enable_msg_peek(nl->sk);
	/* Best effort: kernels before 4.12 have no extended acks. */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	family = genl_ctrl_resolve(nl->sk, CTXCOUNT_GENL_NAME);
	if (family < 0) {
		ctx_nl_close(nl);
		return family == -NLE_OBJ_NOTFOUND ? -ENOENT : -EIO;
	}
	nl->family = family;
	return 0;
}

void ctx_nl_close(struct ctx_nl *nl)
{
	if (nl->sk)
		nl_socket_free(nl->sk);
	nl->sk = NULL;
}

/* State of one request/response exchange. */
struct exchange {
	struct ctx_nl *nl;
	struct ctx_nl_reply *reply;
	struct ctx_nl_cpus *cpus;	/* a READ's per-CPU rows, or NULL */
	int error;		/* kernel errno (negative) or parse failure */
	bool done;
};

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;
	int err;

	if (!x->reply)
		return NL_OK;
	err = ctx_nl_parse_reply_cpus(nlmsg_hdr(msg), x->reply, x->cpus);
	if (err)
		x->error = err == -E2BIG ? err : -EBADMSG;
	return NL_OK;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	(void)msg;
	x->done = true;
	return NL_STOP;
}

static int on_error(struct sockaddr_nl *nla, struct nlmsgerr *err, void *arg)
{
	struct exchange *x = arg;
	/* libnl hands us the payload; the header sits right before it. */
	const struct nlmsghdr *nlh =
		(const struct nlmsghdr *)((char *)err - NLMSG_HDRLEN);

	(void)nla;
	ctx_nl_extack_msg(nlh, x->nl->extack, sizeof(x->nl->extack));
	x->error = err->error ? err->error : -EIO;
	x->done = true;
	return NL_STOP;
}

static int transact_cpus(struct ctx_nl *nl, struct nl_msg *msg,
			 struct ctx_nl_reply *reply, struct ctx_nl_cpus *cpus)
{
	struct exchange x = { .nl = nl, .reply = reply, .cpus = cpus };
	struct nl_cb *cb;
	int ret;

	nl->extack[0] = '\0';
	if (!msg)
		return -ENOMEM;
	if (nl->broken) {
		nlmsg_free(msg);
		snprintf(nl->extack, sizeof(nl->extack),
			 "an earlier answer of the module was lost");
		return -EIO;
	}
	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &x);
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &x);
	ret = nl_send_auto(nl->sk, msg);
	nlmsg_free(msg);
	if (ret < 0)
		x.error = -EIO;
	while (ret >= 0 && !x.done) {
		ret = nl_recvmsgs(nl->sk, cb);
		/*
		 * Lost (ENOBUFS: the socket's buffer overflowed and the
		 * kernel dropped a message), out of order or unreadable:
		 * whatever was left unread may be all that ever comes.
		 */
		if (ret < 0 && !x.done) {
			x.error = -EIO;
			nl->broken = true;
			snprintf(nl->extack, sizeof(nl->extack),
				 "the module's answer could not be read whole");
		}
	}
	nl_cb_put(cb);
	return x.error;
}

int ctx_nl_transact(struct ctx_nl *nl, struct nl_msg *msg,
		    struct ctx_nl_reply *reply)
{
	return transact_cpus(nl, msg, reply, NULL);
}

int ctx_nl_session_new(struct ctx_nl *nl, const struct ctx_nl_target *target,
		       const struct ctx_nl_event_req *ev, int nr_events,
		       struct ctx_nl_reply *reply)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_new(nl->family, target, ev,
						     nr_events), reply);
}

int ctx_nl_session_cmd(struct ctx_nl *nl, uint8_t cmd, uint32_t session_id)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_cmd(nl->family, cmd,
						     session_id), NULL);
}

int ctx_nl_session_calibrate(struct ctx_nl *nl, uint32_t session_id,
			     uint32_t step)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_calibrate(nl->family,
							   session_id, step),
			NULL);
}

int ctx_nl_session_read(struct ctx_nl *nl, uint32_t session_id,
			struct ctx_nl_reply *reply)
{
	return ctx_nl_transact(nl, ctx_nl_build_session_cmd(nl->family,
						     CTXCOUNT_CMD_SESSION_READ,
						     session_id), reply);
}

int ctx_nl_stats(struct ctx_nl *nl, struct ctx_nl_reply *reply)
{
	return ctx_nl_transact(nl, ctx_nl_build_stats(nl->family), reply);
}

int ctx_nl_session_read_cpus(struct ctx_nl *nl, uint32_t session_id,
			     struct ctx_nl_reply *reply,
			     struct ctx_nl_cpus *cpus)
{
	return transact_cpus(nl, ctx_nl_build_session_read(nl->family,
							   session_id,
							   CTXCOUNT_READ_F_PER_CPU),
			     reply, cpus);
}

int ctx_nl_family_version(struct ctx_nl *nl)
{
	struct genl_family *f;
	struct nl_cache *cache;
	int version;

	if (genl_ctrl_alloc_cache(nl->sk, &cache))
		return -EIO;
	f = genl_ctrl_search_by_name(cache, CTXCOUNT_GENL_NAME);
	version = f ? (int)genl_family_get_version(f) : -ENOENT;
	if (f)
		genl_family_put(f);
	nl_cache_free(cache);
	return version;
}
