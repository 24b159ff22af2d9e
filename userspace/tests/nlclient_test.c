// SPDX-License-Identifier: GPL-2.0
/*
 * nlclient tests, no kernel needed: requests are built and parsed back
 * attribute by attribute as the module would see them; replies and error
 * messages are built here the way the kernel lays them out and fed to
 * the parsers.
 */
#include <errno.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/genl/ctrl.h>
#include <sys/socket.h>

#include "kselftest_harness.h"
#include "../nlclient.h"

#define FAMILY 0x1c

TEST(session_new_request)
{
	const struct ctx_nl_event_req ev[2] = {
		{ .type = 0, .config = 1, .flags = 0 },
		{ .type = 4, .config = 0x1a2b3c4d5eULL,
		  .flags = CTXCOUNT_EVENT_F_EXCLUDE_KERNEL,
		  .has_perf_fd = true, .perf_fd = 7 },
	};
	const struct ctx_nl_target t = {
		.pid = 4321, .flags = CTXCOUNT_TARGET_F_INHERIT,
	};
	struct nlattr *tb[CTXCOUNT_A_MAX + 1], *tt[CTXCOUNT_TARGET_A_MAX + 1];
	struct nlattr *te[CTXCOUNT_EVENT_A_MAX + 1], *pos;
	struct nl_msg *msg;
	struct nlmsghdr *nlh;
	struct genlmsghdr *gh;
	int rem, n = 0;

	msg = ctx_nl_build_session_new(FAMILY, &t, ev, 2);
	ASSERT_NE(NULL, msg);
	nlh = nlmsg_hdr(msg);
	EXPECT_EQ(FAMILY, nlh->nlmsg_type);
	EXPECT_TRUE(nlh->nlmsg_flags & NLM_F_REQUEST);
	EXPECT_TRUE(nlh->nlmsg_flags & NLM_F_ACK);
	gh = nlmsg_data(nlh);
	EXPECT_EQ(CTXCOUNT_CMD_SESSION_NEW, gh->cmd);
	EXPECT_EQ(CTXCOUNT_GENL_VERSION, gh->version);
	ASSERT_EQ(0, genlmsg_parse(nlh, 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_NE(NULL, tb[CTXCOUNT_A_TARGET]);
	ASSERT_NE(NULL, tb[CTXCOUNT_A_EVENTS]);
	EXPECT_EQ(NULL, tb[CTXCOUNT_A_SESSION_ID]);
	ASSERT_EQ(0, nla_parse_nested(tt, CTXCOUNT_TARGET_A_MAX,
				      tb[CTXCOUNT_A_TARGET], NULL));
	EXPECT_EQ(4321, nla_get_u32(tt[CTXCOUNT_TARGET_A_PID]));
	EXPECT_EQ(CTXCOUNT_TARGET_F_INHERIT,
		  nla_get_u32(tt[CTXCOUNT_TARGET_A_FLAGS]));
	nla_for_each_nested(pos, tb[CTXCOUNT_A_EVENTS], rem) {
		ASSERT_LT(n, 2);
		EXPECT_EQ(CTXCOUNT_EVENTS_A_EVENT, nla_type(pos));
		ASSERT_EQ(0, nla_parse_nested(te, CTXCOUNT_EVENT_A_MAX, pos, NULL));
		EXPECT_EQ(ev[n].type, nla_get_u32(te[CTXCOUNT_EVENT_A_TYPE]));
		EXPECT_EQ(ev[n].config, nla_get_u64(te[CTXCOUNT_EVENT_A_CONFIG]));
		EXPECT_EQ(ev[n].flags, nla_get_u32(te[CTXCOUNT_EVENT_A_FLAGS]));
		EXPECT_EQ(8, nla_len(te[CTXCOUNT_EVENT_A_CONFIG]));
		/* the proof fd only where the caller gave one, as an s32 */
		if (ev[n].has_perf_fd) {
			ASSERT_NE(NULL, te[CTXCOUNT_EVENT_A_PERF_FD]);
			EXPECT_EQ(4, nla_len(te[CTXCOUNT_EVENT_A_PERF_FD]));
			EXPECT_EQ(ev[n].perf_fd,
				  nla_get_s32(te[CTXCOUNT_EVENT_A_PERF_FD]));
		} else {
			EXPECT_EQ(NULL, te[CTXCOUNT_EVENT_A_PERF_FD]);
		}
		n++;
	}
	EXPECT_EQ(2, n);
	nlmsg_free(msg);
}

/* The header: with SYSTEM_WIDE the pid attribute is absent. */
TEST(session_new_system_wide_has_no_pid)
{
	const struct ctx_nl_event_req ev = { .type = 1, .config = 1 };
	const struct ctx_nl_target t = {
		.pid = 99, .flags = CTXCOUNT_TARGET_F_SYSTEM_WIDE,
	};
	struct nlattr *tb[CTXCOUNT_A_MAX + 1], *tt[CTXCOUNT_TARGET_A_MAX + 1];
	struct nl_msg *msg = ctx_nl_build_session_new(FAMILY, &t, &ev, 1);

	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_EQ(0, nla_parse_nested(tt, CTXCOUNT_TARGET_A_MAX,
				      tb[CTXCOUNT_A_TARGET], NULL));
	EXPECT_EQ(NULL, tt[CTXCOUNT_TARGET_A_PID]);
	EXPECT_EQ(CTXCOUNT_TARGET_F_SYSTEM_WIDE,
		  nla_get_u32(tt[CTXCOUNT_TARGET_A_FLAGS]));
	nlmsg_free(msg);
}

/* The session flags ride beside the target, and only when set. */
TEST(session_new_flags)
{
	const struct ctx_nl_event_req ev = { .type = 0, .config = 1 };
	struct ctx_nl_target t = { .pid = 7, .flags = 0 };
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg = ctx_nl_build_session_new(FAMILY, &t, &ev, 1);

	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	EXPECT_EQ(NULL, tb[CTXCOUNT_A_SESSION_FLAGS]);
	nlmsg_free(msg);
	t.session_flags = CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE;
	msg = ctx_nl_build_session_new(FAMILY, &t, &ev, 1);
	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_NE(NULL, tb[CTXCOUNT_A_SESSION_FLAGS]);
	EXPECT_EQ(CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE,
		  nla_get_u32(tb[CTXCOUNT_A_SESSION_FLAGS]));
	nlmsg_free(msg);
}

TEST(session_calibrate_request)
{
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg;

	msg = ctx_nl_build_session_calibrate(FAMILY, 42,
					     CTXCOUNT_CALIBRATE_STORM_BEGIN);
	ASSERT_NE(NULL, msg);
	EXPECT_EQ(CTXCOUNT_CMD_SESSION_CALIBRATE,
		  ((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(msg)))->cmd);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	EXPECT_EQ(42, nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]));
	EXPECT_EQ(CTXCOUNT_CALIBRATE_STORM_BEGIN,
		  nla_get_u32(tb[CTXCOUNT_A_CALIBRATE]));
	nlmsg_free(msg);
}

TEST(session_commands)
{
	const uint8_t cmds[] = {
		CTXCOUNT_CMD_SESSION_START, CTXCOUNT_CMD_SESSION_STOP,
		CTXCOUNT_CMD_SESSION_READ, CTXCOUNT_CMD_SESSION_DEL,
	};
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg;
	unsigned int i;

	for (i = 0; i < sizeof(cmds); i++) {
		msg = ctx_nl_build_session_cmd(FAMILY, cmds[i], 77 + i);
		ASSERT_NE(NULL, msg);
		EXPECT_EQ(cmds[i], ((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(msg)))->cmd);
		ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
		EXPECT_EQ(77 + i, nla_get_u32(tb[CTXCOUNT_A_SESSION_ID]));
		nlmsg_free(msg);
	}
	msg = ctx_nl_build_stats(FAMILY);
	ASSERT_NE(NULL, msg);
	EXPECT_EQ(CTXCOUNT_CMD_STATS, ((struct genlmsghdr *)nlmsg_data(nlmsg_hdr(msg)))->cmd);
	nlmsg_free(msg);
}

static struct nl_msg *new_reply(uint8_t cmd)
{
	struct nl_msg *msg = nlmsg_alloc();

	genlmsg_put(msg, 0, 1, FAMILY, 0, 0, cmd, CTXCOUNT_GENL_VERSION);
	return msg;
}

/* One event of a READ reply, as the module lays it out. */
static void put_read_event(struct nl_msg *msg, uint32_t index, int32_t error,
			   uint64_t full, uint64_t task, uint64_t net_rx)
{
	struct nlattr *ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	struct nlattr *b;

	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, index);
	nla_put_s32(msg, CTXCOUNT_EVENT_A_ERROR, error);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, full);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_ENABLED, 5000);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_TIME_RUNNING, 2500);
	b = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
	nla_put_u64(msg, CTXCOUNT_BUCKET_TASK, task);
	nla_put_u64(msg, CTXCOUNT_BUCKET_HARDIRQ, 0);
	nla_put_u64(msg, CTXCOUNT_BUCKET_SOFTIRQ_NET_RX, net_rx);
	nla_put_u64(msg, CTXCOUNT_BUCKET_MAX + 1, 999);	/* a future bucket */
	nla_nest_end(msg, b);
	nla_nest_end(msg, ev);
}

TEST(parse_read_reply)
{
	struct nl_msg *msg = new_reply(CTXCOUNT_CMD_SESSION_READ);
	struct ctx_nl_reply r;
	struct nlattr *list;

	nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, 12);
	nla_put_u64(msg, CTXCOUNT_A_TASKS_SEEN, 3);
	nla_put_u64(msg, CTXCOUNT_A_TASKS_LOST, 1);
	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	/* Out of order on purpose: the index places it, not the position. */
	put_read_event(msg, 1, -EOPNOTSUPP, 0, 0, 0);
	put_read_event(msg, 0, 0, 10000000000ULL, 9000000000ULL, 7);
	nla_nest_end(msg, list);

	ASSERT_EQ(0, ctx_nl_parse_reply(nlmsg_hdr(msg), &r));
	EXPECT_EQ(12, r.session_id);
	EXPECT_EQ(3, r.tasks_seen);
	EXPECT_EQ(1, r.tasks_lost);
	EXPECT_EQ(2, r.nr_events);
	EXPECT_TRUE(r.ev[0].present);
	EXPECT_EQ(0, r.ev[0].error);
	EXPECT_EQ(10000000000ULL, r.ev[0].full);
	EXPECT_EQ(9000000000ULL, r.ev[0].bucket[CTXCOUNT_BUCKET_TASK]);
	EXPECT_EQ(7, r.ev[0].bucket[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX]);
	EXPECT_EQ(0, r.ev[0].bucket[CTXCOUNT_BUCKET_NMI]);
	EXPECT_EQ(5000, r.ev[0].time_enabled);
	EXPECT_EQ(2500, r.ev[0].time_running);
	EXPECT_EQ(-EOPNOTSUPP, r.ev[1].error);
	EXPECT_FALSE(r.ev[2].present);
	nlmsg_free(msg);
}

TEST(parse_session_new_reply)
{
	struct nl_msg *msg = new_reply(CTXCOUNT_CMD_SESSION_NEW);
	struct ctx_nl_reply r;
	struct nlattr *list, *ev;

	nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, 5);
	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, 0);
	nla_put_s32(msg, CTXCOUNT_EVENT_A_ERROR, -ENOENT);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, list);
	ASSERT_EQ(0, ctx_nl_parse_reply(nlmsg_hdr(msg), &r));
	EXPECT_EQ(5, r.session_id);
	EXPECT_EQ(-ENOENT, r.ev[0].error);
	nlmsg_free(msg);
}

TEST(parse_rejects_bad_index)
{
	struct ctx_nl_reply r;
	struct nl_msg *msg;
	struct nlattr *list, *ev;

	/* Index beyond the protocol's limit. */
	msg = new_reply(CTXCOUNT_CMD_SESSION_READ);
	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, CTXCOUNT_MAX_EVENTS);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, list);
	EXPECT_EQ(-EINVAL, ctx_nl_parse_reply(nlmsg_hdr(msg), &r));
	nlmsg_free(msg);

	/* No index at all. */
	msg = new_reply(CTXCOUNT_CMD_SESSION_READ);
	list = nla_nest_start(msg, CTXCOUNT_A_EVENTS);
	ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, 1);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, list);
	EXPECT_EQ(-EINVAL, ctx_nl_parse_reply(nlmsg_hdr(msg), &r));
	nlmsg_free(msg);
}

TEST(parse_stats_reply)
{
	struct nl_msg *msg = new_reply(CTXCOUNT_CMD_STATS);
	struct ctx_nl_reply r;

	nla_put_u32(msg, CTXCOUNT_A_STATS_SESSIONS, 2);
	nla_put_u32(msg, CTXCOUNT_A_STATS_FEATURES, CTXCOUNT_FEATURE_NMI);
	ASSERT_EQ(0, ctx_nl_parse_reply(nlmsg_hdr(msg), &r));
	EXPECT_EQ(2, r.stats_sessions);
	EXPECT_EQ(CTXCOUNT_FEATURE_NMI, r.stats_features);
	nlmsg_free(msg);
}

/*
 * An NLMSG_ERROR as the kernel sends it with NETLINK_EXT_ACK: header,
 * struct nlmsgerr (error + the request's header), the request's payload
 * unless NLM_F_CAPPED, then NLMSGERR_ATTR_* TLVs.
 */
static size_t build_error(char *buf, int error, bool capped,
			  const char *text)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;
	struct nlmsgerr *e = NLMSG_DATA(nlh);
	size_t len = NLMSG_HDRLEN + sizeof(*e);
	struct nlattr *a;

	memset(buf, 0, 512);
	nlh->nlmsg_type = NLMSG_ERROR;
	nlh->nlmsg_flags = text ? NLM_F_ACK_TLVS : 0;
	if (capped)
		nlh->nlmsg_flags |= NLM_F_CAPPED;
	e->error = error;
	e->msg.nlmsg_len = NLMSG_HDRLEN + 12;	/* request: genl hdr + 8 */
	e->msg.nlmsg_type = FAMILY;
	if (!capped)
		len += 12;	/* echoed request payload (zeros here) */
	if (text) {
		a = (struct nlattr *)(buf + len);
		a->nla_type = NLMSGERR_ATTR_MSG;
		a->nla_len = NLA_HDRLEN + strlen(text) + 1;
		strcpy((char *)a + NLA_HDRLEN, text);
		len += NLA_ALIGN(a->nla_len);
	}
	nlh->nlmsg_len = len;
	return len;
}

TEST(extack_message)
{
	char buf[512] __attribute__((aligned(8)));
	char msg[CTX_NL_EXTACK_MAX];

	build_error(buf, -EPERM, false, "paranoid=2: only :u events");
	EXPECT_EQ(26, ctx_nl_extack_msg((struct nlmsghdr *)buf, msg, sizeof(msg)));
	EXPECT_STREQ("paranoid=2: only :u events", msg);

	build_error(buf, -EINVAL, true, "unknown flag bits");
	ctx_nl_extack_msg((struct nlmsghdr *)buf, msg, sizeof(msg));
	EXPECT_STREQ("unknown flag bits", msg);

	build_error(buf, -EINVAL, false, NULL);
	EXPECT_EQ(0, ctx_nl_extack_msg((struct nlmsghdr *)buf, msg, sizeof(msg)));
	EXPECT_STREQ("", msg);

	/* Truncated to the buffer, still terminated. */
	build_error(buf, -EPERM, false, "a rather long kernel message");
	ctx_nl_extack_msg((struct nlmsghdr *)buf, msg, 7);
	EXPECT_STREQ("a rath", msg);
}

/*
 * A socket whose receive buffer holds the reply but not the ack after it:
 * the kernel drops the ack and flags ENOBUFS, as it did on a 16-CPU
 * guest for a READ with 9 counters' per-CPU rows (issue 24). The
 * generic netlink controller's answer to GETFAMILY of a family with many
 * operations (ethtool's: about 2 KiB; nlctrl's fits with its ack) is
 * such a reply, no module needed. The transaction must fail, and every
 * later one too, at once: ctxstat then waited for the lost ack of its
 * next request for good. (The harness's timeout catches a wait.)
 */
static struct nl_msg *getfamily(const char *name)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg &&
	    (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, GENL_ID_CTRL, 0,
			  NLM_F_REQUEST | NLM_F_ACK, CTRL_CMD_GETFAMILY, 1) ||
	     nla_put_string(msg, CTRL_ATTR_FAMILY_NAME, name))) {
		nlmsg_free(msg);
		return NULL;
	}
	return msg;
}

TEST(lost_ack_ends_every_later_request)
{
	struct ctx_nl nl = { 0 };
	int one = 1, err;

	nl.sk = nl_socket_alloc();
	ASSERT_NE(NULL, nl.sk);
	if (genl_connect(nl.sk)) {
		nl_socket_free(nl.sk);
		SKIP(return, "no generic netlink socket on this host");
	}
	nl.family = GENL_ID_CTRL;
	/* The least buffer the kernel allows: one reply, nothing after. */
	ASSERT_EQ(0, setsockopt(nl_socket_get_fd(nl.sk), SOL_SOCKET, SO_RCVBUF,
				&one, sizeof(one)));
	err = ctx_nl_transact(&nl, getfamily("ethtool"), NULL);
	if (err == -ENOENT || !err) {
		ctx_nl_close(&nl);
		SKIP(return, "%s", err ? "no ethtool family on this host" :
		     "reply and ack both fit in the least buffer here: no loss to provoke");
	}
	EXPECT_EQ(-EIO, err);
	EXPECT_TRUE(nl.broken);
	EXPECT_STREQ("the module's answer could not be read whole", nl.extack);
	/* Sent nothing, waited for nothing. */
	EXPECT_EQ(-EIO, ctx_nl_transact(&nl, getfamily("ethtool"), NULL));
	EXPECT_STREQ("an earlier answer of the module was lost", nl.extack);
	EXPECT_EQ(-EIO, ctx_nl_session_cmd(&nl, CTXCOUNT_CMD_SESSION_DEL, 1));
	ctx_nl_close(&nl);
}

/* The same request with room for its answer: reply and ack arrive. */
TEST(getfamily_with_room_is_answered)
{
	struct ctx_nl nl = { 0 };

	nl.sk = nl_socket_alloc();
	ASSERT_NE(NULL, nl.sk);
	if (genl_connect(nl.sk)) {
		nl_socket_free(nl.sk);
		SKIP(return, "no generic netlink socket on this host");
	}
	nl.family = GENL_ID_CTRL;
	EXPECT_EQ(0, ctx_nl_transact(&nl, getfamily("nlctrl"), NULL));
	EXPECT_FALSE(nl.broken);
	EXPECT_EQ(0, ctx_nl_transact(&nl, getfamily("nlctrl"), NULL));
	ctx_nl_close(&nl);
}

TEST_HARNESS_MAIN
