// SPDX-License-Identifier: GPL-2.0
/*
 * SESSION_NEW's request: the policies of its attributes and nests, and
 * their parsing into a struct ctx_new_req (session.h). What a policy
 * cannot say (unknown flag bits, CPUs present and online, a pid or
 * SYSTEM_WIDE) is checked here, each with an extack message.
 */
#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <linux/threads.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include "compat.h"
#include "irqsrc.h"
#include "nlrequest.h"
#include "session.h"
#include "sources.h"

static const struct nla_policy ctx_nl_event_policy[CTXCOUNT_EVENT_A_MAX + 1] = {
	[CTXCOUNT_EVENT_A_TYPE]		= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_CONFIG]	= { .type = NLA_U64 },
	/* Checked in ctx_nl_parse_event(): unknown bits are -EOPNOTSUPP. */
	[CTXCOUNT_EVENT_A_FLAGS]	= { .type = NLA_U32 },
	[CTXCOUNT_EVENT_A_PERF_FD]	= NLA_POLICY_MIN(NLA_S32, 0),
};

static const struct nla_policy ctx_nl_events_policy[CTXCOUNT_EVENTS_A_MAX + 1] = {
	[CTXCOUNT_EVENTS_A_EVENT] = NLA_POLICY_NESTED(ctx_nl_event_policy),
};

static ctx_nla_range_const struct netlink_range_validation ctx_nl_pid_range = {
	.min = 1,
	.max = PID_MAX_LIMIT,
};

/* Checked against nr_cpu_ids and cpu_online() in ctx_nl_parse_cpus(). */
static const struct nla_policy ctx_nl_cpus_policy[CTXCOUNT_CPUS_A_MAX + 1] = {
	[CTXCOUNT_CPUS_A_CPU] = { .type = NLA_U32 },
};

static const struct nla_policy ctx_nl_target_policy[CTXCOUNT_TARGET_A_MAX + 1] = {
	[CTXCOUNT_TARGET_A_PID] = NLA_POLICY_FULL_RANGE(NLA_U32, &ctx_nl_pid_range),
	/* Checked in ctx_nl_parse_target(): unknown bits are -EOPNOTSUPP. */
	[CTXCOUNT_TARGET_A_FLAGS] = { .type = NLA_U32 },
	[CTXCOUNT_TARGET_A_CPUS] = NLA_POLICY_NESTED(ctx_nl_cpus_policy),
};

const struct nla_policy ctx_nl_new_policy[CTXCOUNT_A_MAX + 1] = {
	[CTXCOUNT_A_TARGET] = NLA_POLICY_NESTED(ctx_nl_target_policy),
	[CTXCOUNT_A_EVENTS] = NLA_POLICY_NESTED(ctx_nl_events_policy),
	/* Checked in ctx_nl_parse_new(): unknown bits are -EOPNOTSUPP. */
	[CTXCOUNT_A_SESSION_FLAGS] = { .type = NLA_U32 },
	[CTXCOUNT_A_MAX_SOURCES] = NLA_POLICY_RANGE(NLA_U32, 1,
						    CTXCOUNT_MAX_SOURCES),
};

/*
 * The CPU list of a system-wide target: each CPU present and online (the
 * counters are created now), none twice, at least one. perf_event_open()
 * refuses a CPU event on an offline CPU as well.
 */
static int ctx_nl_parse_cpus(const struct nlattr *nest, struct cpumask *cpus,
			     struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem;
	u32 cpu;

	cpumask_clear(cpus);
	/* The policy admits only CTXCOUNT_CPUS_A_CPU in this nest. */
	nla_for_each_nested(a, nest, rem) {
		cpu = nla_get_u32(a);
		if (cpu >= nr_cpu_ids || !cpu_present(cpu)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "no such CPU");
			return -EINVAL;
		}
		if (!cpu_online(cpu)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "CPU is offline");
			return -ENODEV;
		}
		if (cpumask_test_and_set_cpu(cpu, cpus)) {
			NL_SET_ERR_MSG_ATTR(extack, a, "CPU listed twice");
			return -EINVAL;
		}
	}
	if (cpumask_empty(cpus)) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "empty CPU list");
		return -EINVAL;
	}
	return 0;
}

/* @target->cpus: allocated here if the target has a CPU list. */
static int ctx_nl_parse_target_cpus(struct nlattr **tb,
				    struct ctx_target *target,
				    struct netlink_ext_ack *extack)
{
	const struct nlattr *nest = tb[CTXCOUNT_TARGET_A_CPUS];

	if (!nest)
		return 0;
	if (!(target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE)) {
		NL_SET_ERR_MSG_ATTR(extack, nest,
				    "a CPU list needs SYSTEM_WIDE");
		return -EINVAL;
	}
	target->cpus = kmalloc(cpumask_size(), GFP_KERNEL);
	if (!target->cpus)
		return -ENOMEM;
	return ctx_nl_parse_cpus(nest, target->cpus, extack);
}

/* Every thread: a task session over threads the module finds itself. */
static int ctx_nl_parse_all_threads(struct nlattr **tb,
				    struct ctx_target *target,
				    struct netlink_ext_ack *extack)
{
	const struct nlattr *flags = tb[CTXCOUNT_TARGET_A_FLAGS];

	if (tb[CTXCOUNT_TARGET_A_PID]) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_TARGET_A_PID],
				    "a pid and ALL_THREADS exclude each other");
		return -EINVAL;
	}
	if (target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) {
		NL_SET_ERR_MSG_ATTR(extack, flags,
				    "ALL_THREADS and SYSTEM_WIDE exclude each other (perf has no per-thread value of a CPU event)");
		return -EINVAL;
	}
	if (target->flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC) {
		NL_SET_ERR_MSG_ATTR(extack, flags,
				    "ENABLE_ON_EXEC needs a process target, not ALL_THREADS");
		return -EINVAL;
	}
	target->pid = 0;
	return 0;
}

static int ctx_nl_parse_target(const struct nlattr *nest,
			       struct ctx_target *target,
			       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CTXCOUNT_TARGET_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, CTXCOUNT_TARGET_A_MAX, nest,
			       ctx_nl_target_policy, extack);
	if (err)
		return err;
	target->flags = ctx_nla_get_u32_or_0(tb[CTXCOUNT_TARGET_A_FLAGS]);
	if (target->flags & ~__CTXCOUNT_TARGET_F_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_TARGET_A_FLAGS],
				    "unknown target flags");
		return -EOPNOTSUPP;
	}
	err = ctx_nl_parse_target_cpus(tb, target, extack);
	if (err)
		return err;
	if (target->flags & CTXCOUNT_TARGET_F_ALL_THREADS)
		return ctx_nl_parse_all_threads(tb, target, extack);
	if (target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) {
		if (tb[CTXCOUNT_TARGET_A_PID]) {
			NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_TARGET_A_PID],
					    "a pid and SYSTEM_WIDE exclude each other");
			return -EINVAL;
		}
		if (target->flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC) {
			NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_TARGET_A_FLAGS],
					    "ENABLE_ON_EXEC needs a process target, not SYSTEM_WIDE");
			return -EINVAL;
		}
		target->pid = 0;
		return 0;
	}
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CTXCOUNT_TARGET_A_PID)) {
		NL_SET_ERR_MSG_MOD(extack, "target needs a pid or SYSTEM_WIDE");
		return -EINVAL;
	}
	target->pid = nla_get_u32(tb[CTXCOUNT_TARGET_A_PID]);
	return 0;
}

static int ctx_nl_parse_event(const struct nlattr *nest,
			      struct ctx_event_req *req,
			      struct netlink_ext_ack *extack)
{
	struct nlattr *tb[CTXCOUNT_EVENT_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, CTXCOUNT_EVENT_A_MAX, nest,
			       ctx_nl_event_policy, extack);
	if (err)
		return err;
	if (NL_REQ_ATTR_CHECK(extack, nest, tb, CTXCOUNT_EVENT_A_TYPE) ||
	    NL_REQ_ATTR_CHECK(extack, nest, tb, CTXCOUNT_EVENT_A_CONFIG)) {
		NL_SET_ERR_MSG_MOD(extack, "event needs a type and a config");
		return -EINVAL;
	}
	req->attr = nest;
	req->fd_attr = tb[CTXCOUNT_EVENT_A_PERF_FD];
	req->perf_fd = req->fd_attr ? nla_get_s32(req->fd_attr) : -1;
	req->spec.type = nla_get_u32(tb[CTXCOUNT_EVENT_A_TYPE]);
	req->spec.config = nla_get_u64(tb[CTXCOUNT_EVENT_A_CONFIG]);
	req->spec.flags = ctx_nla_get_u32_or_0(tb[CTXCOUNT_EVENT_A_FLAGS]);
	if (req->spec.flags & ~__CTXCOUNT_EVENT_F_ALL) {
		NL_SET_ERR_MSG_ATTR(extack, tb[CTXCOUNT_EVENT_A_FLAGS],
				    "unknown event flags");
		return -EOPNOTSUPP;
	}
	return 0;
}

/* Return: the number of events parsed, or a negative errno. */
static int ctx_nl_parse_events(const struct nlattr *nest,
			       struct ctx_event_req *req,
			       struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int nr = 0;
	int rem, err;

	/* The policy admits only CTXCOUNT_EVENTS_A_EVENT in this nest. */
	nla_for_each_nested(a, nest, rem) {
		if (nr == CTXCOUNT_MAX_EVENTS) {
			NL_SET_ERR_MSG_ATTR(extack, a,
					    "too many events (CTXCOUNT_MAX_EVENTS)");
			return -E2BIG;
		}
		err = ctx_nl_parse_event(a, &req[nr], extack);
		if (err)
			return err;
		nr++;
	}
	if (!nr) {
		NL_SET_ERR_MSG_ATTR(extack, nest, "no events");
		return -EINVAL;
	}
	return nr;
}

/* IRQ_SOURCES and MAX_SOURCES: @nreq->max_sources, 0 without sources. */
static int ctx_nl_parse_sources(struct genl_info *info,
				struct ctx_new_req *nreq)
{
	const struct nlattr *max = info->attrs[CTXCOUNT_A_MAX_SOURCES];

	if (!(nreq->flags & CTXCOUNT_SESSION_F_IRQ_SOURCES)) {
		if (max) {
			NL_SET_ERR_MSG_ATTR(info->extack, max,
					    "MAX_SOURCES needs the IRQ_SOURCES session flag");
			return -EINVAL;
		}
		return 0;
	}
	if (!(ctx_irqsrc_features() & CTXCOUNT_FEATURE_IRQ_SOURCES)) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[CTXCOUNT_A_SESSION_FLAGS],
				    "irq sources: this kernel has no irq_handler_entry/exit tracepoints");
		return -EOPNOTSUPP;
	}
	nreq->max_sources = max ? nla_get_u32(max) : ctx_src_default_max();
	return 0;
}

/* PER_THREAD rows: of task events, without sources; ALL_THREADS needs them. */
static int ctx_nl_check_per_thread(struct genl_info *info,
				   const struct ctx_new_req *nreq)
{
	const struct nlattr *flags = info->attrs[CTXCOUNT_A_SESSION_FLAGS];
	u32 target = nreq->target.flags;

	if (!(nreq->flags & CTXCOUNT_SESSION_F_PER_THREAD)) {
		if (target & CTXCOUNT_TARGET_F_ALL_THREADS) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    info->attrs[CTXCOUNT_A_TARGET],
					    "ALL_THREADS needs the PER_THREAD session flag");
			return -EINVAL;
		}
		return 0;
	}
	if (target & CTXCOUNT_TARGET_F_SYSTEM_WIDE) {
		NL_SET_ERR_MSG_ATTR(info->extack, flags,
				    "PER_THREAD needs a task session, not SYSTEM_WIDE (perf has no per-thread value of a CPU event)");
		return -EINVAL;
	}
	if (nreq->flags & CTXCOUNT_SESSION_F_IRQ_SOURCES) {
		NL_SET_ERR_MSG_ATTR(info->extack, flags,
				    "PER_THREAD and IRQ_SOURCES together are not supported");
		return -EINVAL;
	}
	return 0;
}

/**
 * ctx_nl_parse_new() - a SESSION_NEW request's target, flags and events
 * @info: the request
 * @nreq: filled in; its target's CPU list is allocated here (the caller
 *	frees @nreq->target.cpus, also on error)
 *
 * The sender (owner, privilege) is the handler's to fill in.
 *
 * Return: 0, or a negative errno with an extack message naming the
 * attribute.
 */
int ctx_nl_parse_new(struct genl_info *info, struct ctx_new_req *nreq)
{
	int nr, err;

	if (GENL_REQ_ATTR_CHECK(info, CTXCOUNT_A_TARGET)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing target");
		return -EINVAL;
	}
	if (GENL_REQ_ATTR_CHECK(info, CTXCOUNT_A_EVENTS)) {
		NL_SET_ERR_MSG_MOD(info->extack, "missing events");
		return -EINVAL;
	}
	err = ctx_nl_parse_target(info->attrs[CTXCOUNT_A_TARGET],
				  &nreq->target, info->extack);
	if (err)
		return err;
	nreq->flags = ctx_nla_get_u32_or_0(info->attrs[CTXCOUNT_A_SESSION_FLAGS]);
	if (nreq->flags & ~__CTXCOUNT_SESSION_F_ALL) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[CTXCOUNT_A_SESSION_FLAGS],
				    "unknown session flags");
		return -EOPNOTSUPP;
	}
	err = ctx_nl_parse_sources(info, nreq);
	if (err)
		return err;
	err = ctx_nl_check_per_thread(info, nreq);
	if (err)
		return err;
	nr = ctx_nl_parse_events(info->attrs[CTXCOUNT_A_EVENTS], nreq->req,
				 info->extack);
	if (nr < 0)
		return nr;
	nreq->nr_events = nr;
	return 0;
}
