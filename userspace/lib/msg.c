// SPDX-License-Identifier: GPL-2.0
/*
 * msg: the requests to the module, built as libnl messages: functions of
 * their arguments alone (see internal.h).
 */
#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "internal.h"

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

static int put_target(struct nl_msg *msg, const struct ctxc_target *t)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_A_TARGET);

	if (!nest)
		return -1;
	/* System-wide and all threads have no pid: the header says absent. */
	if (!(t->flags & (CTXCOUNT_TARGET_F_SYSTEM_WIDE |
			  CTXCOUNT_TARGET_F_ALL_THREADS)) &&
	    nla_put_u32(msg, CTXCOUNT_TARGET_A_PID, t->pid))
		return -1;
	if (nla_put_u32(msg, CTXCOUNT_TARGET_A_FLAGS, t->flags))
		return -1;
	if (t->nr_cpus && put_cpus(msg, t->cpus, t->nr_cpus) < 0)
		return -1;
	return nla_nest_end(msg, nest);
}

static int put_events(struct nl_msg *msg, const struct ctxc_event_req *ev,
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

struct nl_msg *ctxc_build_session_new(int family,
				      const struct ctxc_target *target,
				      const struct ctxc_event_req *ev,
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

struct nl_msg *ctxc_build_session_cmd(int family, uint8_t cmd,
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

struct nl_msg *ctxc_build_session_read(int family, uint32_t session_id,
				       uint32_t flags)
{
	struct nl_msg *msg = ctxc_build_session_cmd(family,
						    CTXCOUNT_CMD_SESSION_READ,
						    session_id);

	if (msg && flags && nla_put_u32(msg, CTXCOUNT_A_READ_FLAGS, flags)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

struct nl_msg *ctxc_build_session_read_dump(int family, uint32_t session_id,
					    uint32_t flags)
{
	struct nl_msg *msg = ctxc_build_session_read(family, session_id,
						     flags);

	/* Answered by messages and NLMSG_DONE: no ack is asked for. */
	if (msg)
		nlmsg_hdr(msg)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	return msg;
}

struct nl_msg *ctxc_build_stats(int family)
{
	return new_request(family, CTXCOUNT_CMD_STATS);
}

struct nl_msg *ctxc_build_calibrate(int family, uint32_t step)
{
	struct nl_msg *msg = new_request(family, CTXCOUNT_CMD_SESSION_CALIBRATE);

	if (msg && nla_put_u32(msg, CTXCOUNT_A_CALIBRATE, step)) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}
