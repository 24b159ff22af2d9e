// SPDX-License-Identifier: GPL-2.0
/*
 * The ctxcount generic netlink API: the family, each command's happy path,
 * malformed and refused requests (each must fail with an extended ack
 * message and leave no kernel report), and the session limits.
 */
#include <errno.h>
#include <stdio.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <netlink/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "kselftest_harness.h"
#include "cst.h"

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");

FIXTURE(nl) {
	struct cst_sock s;
	struct cst_res *res;
	struct cst_ack ack;
	int kmsg;
};

FIXTURE_SETUP(nl)
{
	self->kmsg = cst_kmsg_open();
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->res);
	ASSERT_EQ(0, cst_open(&self->s));
}

FIXTURE_TEARDOWN(nl)
{
	char first[512];
	int n;

	cst_close(&self->s);
	n = cst_kmsg_reports(self->kmsg, first, sizeof(first));
	EXPECT_EQ(0, n) TH_LOG("kernel report: %s", first);
	if (self->kmsg >= 0)
		close(self->kmsg);
	free(self->res);
}

/* The request must fail and say why in an extended ack message. */
#define EXPECT_REFUSED(ret, ack) do {					\
	EXPECT_GT(0, (ret));						\
	EXPECT_TRUE((ack).has_msg) TH_LOG("error %d (%s) has no extack message%s", \
		(ret), strerror(-(ret)),				\
		(ack).has_miss ? " (only NLMSGERR_ATTR_MISS_TYPE)" : ""); \
	if ((ack).has_msg)						\
		TH_LOG("refused as expected: %d (%s): \"%s\"", (ret),	\
		       strerror(-(ret)), (ack).msg);			\
} while (0)

static int new_session(struct cst_sock *s, struct cst_res *res,
		       struct cst_ack *ack)
{
	return cst_new(s, getpid(), 0, &ev_cpu_clock, 1, res, ack);
}

TEST_F(nl, family_version)
{
	EXPECT_EQ(CTXCOUNT_GENL_VERSION, self->s.version);
	EXPECT_EQ(CTXCOUNT_A_MAX, self->s.maxattr);
}

TEST_F(nl, stats)
{
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_STATS, 0, self->res,
			     &self->ack));
	ASSERT_TRUE(self->res->replied);
	EXPECT_TRUE(self->res->has_sessions);
	EXPECT_TRUE(self->res->has_features);
	EXPECT_EQ(0, self->res->features & ~(uint32_t)CTXCOUNT_FEATURE_NMI);
	TH_LOG("live sessions %u, features 0x%x", self->res->sessions,
	       self->res->features);
}

TEST_F(nl, session_happy_path)
{
	const struct cst_ev ev[2] = {
		CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
		CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
	};
	struct cst_res *r = self->res;
	uint64_t full_stopped;
	long base, live;
	uint32_t id;
	int i, b;
	char txt[512];

	base = cst_live_sessions();
	ASSERT_LE(0, base);

	ASSERT_EQ(0, cst_new(&self->s, getpid(), 0, ev, 2, r, &self->ack))
		TH_LOG("SESSION_NEW: %s", self->ack.msg);
	ASSERT_TRUE(r->has_id);
	id = r->id;
	ASSERT_EQ(2, r->nev);
	for (i = 0; i < 2; i++) {
		EXPECT_TRUE(r->ev[i].has_index);
		EXPECT_EQ(i, r->ev[i].index);
		EXPECT_TRUE(r->ev[i].has_error);
	}
	EXPECT_EQ(0, r->ev[0].error) TH_LOG("cpu-clock must count everywhere");
	live = cst_live_sessions();
	EXPECT_EQ(base + 1, live);

	/* created, not started: nothing counted */
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL));
	ASSERT_EQ(1, r->nev >= 1);
	EXPECT_EQ(0, r->ev[0].full);

	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL,
			     &self->ack)) TH_LOG("START: %s", self->ack.msg);
	cst_spin_ms(100);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, r,
			     &self->ack)) TH_LOG("READ: %s", self->ack.msg);
	ASSERT_TRUE(r->replied);
	EXPECT_TRUE(r->has_id);
	EXPECT_EQ(id, r->id);
	EXPECT_TRUE(r->has_seen);
	EXPECT_LE(1, r->tasks_seen);
	EXPECT_TRUE(r->has_lost);
	EXPECT_EQ(0, r->tasks_lost);
	ASSERT_EQ(2, r->nev);
	for (i = 0; i < 2; i++) {
		struct cst_ev_res *e = &r->ev[i];

		cst_fmt_event(e, txt, sizeof(txt));
		TH_LOG("%s: %s", ev[i].name, txt);
		EXPECT_EQ(i, e->index);
		EXPECT_TRUE(e->has_full);
		EXPECT_TRUE(e->has_enabled);
		EXPECT_TRUE(e->has_running);
		EXPECT_TRUE(e->has_buckets);
		EXPECT_EQ(0, e->dup_buckets);
		EXPECT_EQ(0, e->bad_buckets);
		for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
			EXPECT_TRUE(e->has_b[b])
				TH_LOG("%s: bucket %s missing", ev[i].name,
				       cst_bucket_name(b));
		if (e->error)
			continue;
		/* 100 ms of spinning: cpu-clock (ns) far above 10 ms */
		EXPECT_LT(10000000ULL, e->full);
		EXPECT_LT(0, e->b[CTXCOUNT_BUCKET_TASK]);
		EXPECT_LT(10000000ULL, e->enabled);
		EXPECT_LE(e->running, e->enabled);
	}

	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL,
			     &self->ack)) TH_LOG("STOP: %s", self->ack.msg);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL));
	full_stopped = r->ev[0].full;
	cst_spin_ms(50);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL));
	EXPECT_EQ(full_stopped, r->ev[0].full) TH_LOG("a stopped session counted");

	/* a stopped session starts again */
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL,
			     &self->ack)) TH_LOG("restart: %s", self->ack.msg);
	cst_spin_ms(50);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL));
	EXPECT_LT(full_stopped + 5000000ULL, r->ev[0].full);

	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL,
			     &self->ack)) TH_LOG("DEL: %s", self->ack.msg);
	EXPECT_EQ(base, cst_live_sessions());
	/* gone */
	EXPECT_EQ(-ENOENT, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id,
				   NULL, &self->ack));
	EXPECT_TRUE(self->ack.has_msg);
}

/* An event the perf core refuses is reported per event, not fatal. */
TEST_F(nl, unsupported_event_reported)
{
	const struct cst_ev ev[2] = {
		{ PERF_TYPE_HARDWARE, 0xfffff, 0, "hw config 0xfffff" },
		CST_EV_SW(CPU_CLOCK, 0, "cpu-clock"),
	};
	struct cst_res *r = self->res;

	ASSERT_EQ(0, cst_new(&self->s, getpid(), 0, ev, 2, r, &self->ack))
		TH_LOG("SESSION_NEW: %s", self->ack.msg);
	ASSERT_EQ(2, r->nev);
	EXPECT_TRUE(r->ev[0].has_error);
	EXPECT_GT(0, r->ev[0].error);
	EXPECT_EQ(0, r->ev[1].error);
	TH_LOG("hw config 0xfffff: error %d", r->ev[0].error);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, r->id, NULL,
			     NULL));
	cst_spin_ms(20);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, r->id, r,
			     NULL));
	ASSERT_EQ(2, r->nev);
	EXPECT_GT(0, r->ev[0].error);
	EXPECT_EQ(0, r->ev[0].full);
	EXPECT_EQ(0, cst_bucket_sum(&r->ev[0]));
	EXPECT_LT(0, r->ev[1].full);
}

TEST_F(nl, new_missing_target)
{
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	int ret;

	ASSERT_EQ(0, cst_put_events(m, &ev_cpu_clock, 1));
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	EXPECT_REFUSED(ret, self->ack);
	if (self->ack.has_miss)
		EXPECT_EQ(CTXCOUNT_A_TARGET, self->ack.miss_type);
}

TEST_F(nl, new_missing_events)
{
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	int ret;

	ASSERT_EQ(0, cst_put_target(m, getpid(), 0));
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	EXPECT_REFUSED(ret, self->ack);
	if (self->ack.has_miss)
		EXPECT_EQ(CTXCOUNT_A_EVENTS, self->ack.miss_type);
}

TEST_F(nl, new_zero_events)
{
	int ret = cst_new(&self->s, getpid(), 0, NULL, 0, NULL, &self->ack);

	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, new_missing_pid)
{
	/* no PID and no SYSTEM_WIDE: nothing to monitor */
	int ret = cst_new(&self->s, -1, 0, &ev_cpu_clock, 1, NULL, &self->ack);

	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, new_event_missing_type)
{
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	struct nlattr *all, *e;
	int ret;

	ASSERT_EQ(0, cst_put_target(m, getpid(), 0));
	all = nla_nest_start(m, CTXCOUNT_A_EVENTS | NLA_F_NESTED);
	e = nla_nest_start(m, CTXCOUNT_EVENTS_A_EVENT | NLA_F_NESTED);
	nla_put_u64(m, CTXCOUNT_EVENT_A_CONFIG, PERF_COUNT_SW_CPU_CLOCK);
	nla_nest_end(m, e);
	nla_nest_end(m, all);
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, too_many_events)
{
	struct cst_ev ev[CTXCOUNT_MAX_EVENTS + 1];
	int i, ret;

	for (i = 0; i <= CTXCOUNT_MAX_EVENTS; i++)
		ev[i] = ev_cpu_clock;
	/* the protocol limit itself is accepted */
	ret = cst_new(&self->s, getpid(), 0, ev, CTXCOUNT_MAX_EVENTS,
		      self->res, &self->ack);
	EXPECT_EQ(0, ret) TH_LOG("%d events refused: %s", CTXCOUNT_MAX_EVENTS,
				 self->ack.msg);
	if (!ret) {
		EXPECT_EQ(CTXCOUNT_MAX_EVENTS, self->res->nev);
		cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, self->res->id,
			NULL, NULL);
	}
	ret = cst_new(&self->s, getpid(), 0, ev, CTXCOUNT_MAX_EVENTS + 1,
		      NULL, &self->ack);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, unknown_target_flags)
{
	int ret = cst_new(&self->s, getpid(), 1U << 7, &ev_cpu_clock, 1, NULL,
			  &self->ack);

	EXPECT_EQ(-EOPNOTSUPP, ret);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, unknown_event_flags)
{
	struct cst_ev ev = ev_cpu_clock;
	int ret;

	ev.flags = 1U << 5;
	ret = cst_new(&self->s, getpid(), 0, &ev, 1, NULL, &self->ack);
	EXPECT_EQ(-EOPNOTSUPP, ret);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, nonexistent_pid)
{
	pid_t pid = fork();
	int ret;

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/* reaped: the pid is free (reuse within this test is unlikely) */
	ASSERT_EQ(-1, kill(pid, 0));
	ret = cst_new(&self->s, pid, 0, &ev_cpu_clock, 1, NULL, &self->ack);
	EXPECT_EQ(-ESRCH, ret);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, nonexistent_session)
{
	int ret = cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, 0x7ffffff0,
			  NULL, &self->ack);

	EXPECT_EQ(-ENOENT, ret);
	EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, other_sockets_session)
{
	static const uint8_t cmds[] = {
		CTXCOUNT_CMD_SESSION_START, CTXCOUNT_CMD_SESSION_STOP,
		CTXCOUNT_CMD_SESSION_READ, CTXCOUNT_CMD_SESSION_DEL,
	};
	struct cst_sock other;
	unsigned int i;
	uint32_t id;
	int ret;

	ASSERT_EQ(0, new_session(&self->s, self->res, &self->ack));
	id = self->res->id;
	ASSERT_EQ(0, cst_open(&other));
	for (i = 0; i < sizeof(cmds); i++) {
		ret = cst_cmd(&other, cmds[i], id, NULL, &self->ack);
		EXPECT_EQ(-ENOENT, ret) TH_LOG("command %u on another socket's session", cmds[i]);
		EXPECT_REFUSED(ret, self->ack);
	}
	cst_close(&other);
	/* still there for its owner */
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, NULL, NULL));
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
}

/*
 * Unknown commands are refused by the genl core before the family sees
 * them (genl_family_rcv_msg(): -EOPNOTSUPP, no extack in 6.1 or 6.12), so
 * only the error is checked here.
 */
TEST_F(nl, unknown_command)
{
	static const uint8_t cmds[] = { CTXCOUNT_CMD_UNSPEC, CTXCOUNT_CMD_MAX + 1, 200 };
	unsigned int i;

	for (i = 0; i < sizeof(cmds); i++) {
		struct nl_msg *m = cst_msg(&self->s, cmds[i]);
		int ret;

		nla_put_u32(m, CTXCOUNT_A_SESSION_ID, 1);
		ret = cst_xfer(&self->s, m, NULL, &self->ack);
		EXPECT_EQ(-EOPNOTSUPP, ret) TH_LOG("command %u", cmds[i]);
		if (self->ack.has_msg)
			TH_LOG("command %u: \"%s\"", cmds[i], self->ack.msg);
	}
}

/* Each command that takes a SESSION_ID, sent without one. */
FIXTURE(missing_id) {
	struct cst_sock s;
	struct cst_ack ack;
	int kmsg;
};

FIXTURE_VARIANT(missing_id) {
	uint8_t cmd;
};

FIXTURE_VARIANT_ADD(missing_id, start) { .cmd = CTXCOUNT_CMD_SESSION_START };
FIXTURE_VARIANT_ADD(missing_id, stop) { .cmd = CTXCOUNT_CMD_SESSION_STOP };
FIXTURE_VARIANT_ADD(missing_id, read) { .cmd = CTXCOUNT_CMD_SESSION_READ };
FIXTURE_VARIANT_ADD(missing_id, del) { .cmd = CTXCOUNT_CMD_SESSION_DEL };

FIXTURE_SETUP(missing_id)
{
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_open(&self->s));
}

FIXTURE_TEARDOWN(missing_id)
{
	cst_close(&self->s);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

TEST_F(missing_id, refused)
{
	int ret = cst_xfer(&self->s, cst_msg(&self->s, variant->cmd), NULL,
			   &self->ack);

	EXPECT_REFUSED(ret, self->ack);
	if (self->ack.has_miss)
		EXPECT_EQ(CTXCOUNT_A_SESSION_ID, self->ack.miss_type);
}

/* Attributes of the wrong size or type, and unknown attributes. */
FIXTURE(malformed) {
	struct cst_sock s;
	struct cst_ack ack;
	uint32_t id;
	int kmsg;
};

enum malformed_kind {
	ID_U16,		/* SESSION_ID as a u16 where a u32 is expected */
	ID_U64,		/* SESSION_ID oversized: 8 bytes */
	ID_HUGE,	/* SESSION_ID of 1024 bytes */
	UNKNOWN_ATTR,	/* an attribute type above CTXCOUNT_A_MAX */
	PID_U16,	/* TARGET_A_PID as a u16 */
	TFLAGS_U64,	/* TARGET_A_FLAGS oversized */
	TARGET_FLAT,	/* TARGET as a u32 instead of a nest */
	EVENTS_FLAT,	/* EVENTS as a u32 instead of a nest */
	CONFIG_U32,	/* EVENT_A_CONFIG as a u32 where a u64 is expected */
	TYPE_U8,	/* EVENT_A_TYPE as a u8 */
	EV_UNKNOWN,	/* an event attribute type above CTXCOUNT_EVENT_A_MAX */
};

FIXTURE_VARIANT(malformed) {
	enum malformed_kind kind;
};

FIXTURE_VARIANT_ADD(malformed, session_id_u16) { .kind = ID_U16 };
FIXTURE_VARIANT_ADD(malformed, session_id_u64) { .kind = ID_U64 };
FIXTURE_VARIANT_ADD(malformed, session_id_1k) { .kind = ID_HUGE };
FIXTURE_VARIANT_ADD(malformed, unknown_attr) { .kind = UNKNOWN_ATTR };
FIXTURE_VARIANT_ADD(malformed, target_pid_u16) { .kind = PID_U16 };
FIXTURE_VARIANT_ADD(malformed, target_flags_u64) { .kind = TFLAGS_U64 };
FIXTURE_VARIANT_ADD(malformed, target_not_nested) { .kind = TARGET_FLAT };
FIXTURE_VARIANT_ADD(malformed, events_not_nested) { .kind = EVENTS_FLAT };
FIXTURE_VARIANT_ADD(malformed, event_config_u32) { .kind = CONFIG_U32 };
FIXTURE_VARIANT_ADD(malformed, event_type_u8) { .kind = TYPE_U8 };
FIXTURE_VARIANT_ADD(malformed, event_unknown_attr) { .kind = EV_UNKNOWN };

FIXTURE_SETUP(malformed)
{
	struct cst_res *r = calloc(1, sizeof(*r));

	ASSERT_NE(NULL, r);
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_open(&self->s));
	/* a valid session, so that only the malformation can be at fault */
	ASSERT_EQ(0, new_session(&self->s, r, NULL));
	self->id = r->id;
	free(r);
}

FIXTURE_TEARDOWN(malformed)
{
	cst_close(&self->s);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

TEST_F(malformed, refused)
{
	static char big[1024];
	struct nl_msg *m;
	struct nlattr *t, *all, *e;
	uint64_t id64 = self->id;
	int ret;

	switch (variant->kind) {
	case ID_U16:
	case ID_U64:
	case ID_HUGE:
	case UNKNOWN_ATTR:
		m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_READ);
		if (variant->kind == ID_U16)
			nla_put_u16(m, CTXCOUNT_A_SESSION_ID, self->id);
		else if (variant->kind == ID_U64)
			nla_put(m, CTXCOUNT_A_SESSION_ID, 8, &id64);
		else if (variant->kind == ID_HUGE)
			nla_put(m, CTXCOUNT_A_SESSION_ID, sizeof(big), big);
		else {
			nla_put_u32(m, CTXCOUNT_A_SESSION_ID, self->id);
			nla_put_u32(m, CTXCOUNT_A_MAX + 1, 0);
		}
		break;
	case PID_U16:
	case TFLAGS_U64:
		m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
		t = nla_nest_start(m, CTXCOUNT_A_TARGET | NLA_F_NESTED);
		if (variant->kind == PID_U16) {
			nla_put_u16(m, CTXCOUNT_TARGET_A_PID, getpid());
		} else {
			nla_put_u32(m, CTXCOUNT_TARGET_A_PID, getpid());
			nla_put_u64(m, CTXCOUNT_TARGET_A_FLAGS, 0);
		}
		nla_nest_end(m, t);
		cst_put_events(m, &ev_cpu_clock, 1);
		break;
	case TARGET_FLAT:
		m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
		nla_put_u32(m, CTXCOUNT_A_TARGET, getpid());
		cst_put_events(m, &ev_cpu_clock, 1);
		break;
	case EVENTS_FLAT:
		m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
		cst_put_target(m, getpid(), 0);
		nla_put_u32(m, CTXCOUNT_A_EVENTS, PERF_COUNT_SW_CPU_CLOCK);
		break;
	case CONFIG_U32:
	case TYPE_U8:
	case EV_UNKNOWN:
	default:
		m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
		cst_put_target(m, getpid(), 0);
		all = nla_nest_start(m, CTXCOUNT_A_EVENTS | NLA_F_NESTED);
		e = nla_nest_start(m, CTXCOUNT_EVENTS_A_EVENT | NLA_F_NESTED);
		if (variant->kind == TYPE_U8)
			nla_put_u8(m, CTXCOUNT_EVENT_A_TYPE, PERF_TYPE_SOFTWARE);
		else
			nla_put_u32(m, CTXCOUNT_EVENT_A_TYPE, PERF_TYPE_SOFTWARE);
		if (variant->kind == CONFIG_U32)
			nla_put_u32(m, CTXCOUNT_EVENT_A_CONFIG, PERF_COUNT_SW_CPU_CLOCK);
		else
			nla_put_u64(m, CTXCOUNT_EVENT_A_CONFIG, PERF_COUNT_SW_CPU_CLOCK);
		if (variant->kind == EV_UNKNOWN)
			nla_put_u32(m, CTXCOUNT_EVENT_A_MAX + 1, 0);
		nla_nest_end(m, e);
		nla_nest_end(m, all);
		break;
	}
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	EXPECT_REFUSED(ret, self->ack);
	/* the valid session is unharmed */
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, self->id,
			     NULL, NULL));
}

/* Session limits, from the module's parameters. */
FIXTURE(limits) {
	long max_sessions, per_socket, base;
	int nsock;
	struct cst_sock socks[256];
	struct cst_res *res;
	int kmsg;
};

FIXTURE_SETUP(limits)
{
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_param_get("max_sessions", &self->max_sessions))
		TH_LOG("/sys/module/ctxcount/parameters/max_sessions unreadable");
	ASSERT_EQ(0, cst_param_get("max_sessions_per_socket", &self->per_socket))
		TH_LOG("/sys/module/ctxcount/parameters/max_sessions_per_socket unreadable");
	self->base = cst_live_sessions();
	ASSERT_LE(0, self->base);
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->res);
	TH_LOG("max_sessions %ld, max_sessions_per_socket %ld, live %ld",
	       self->max_sessions, self->per_socket, self->base);
}

FIXTURE_TEARDOWN(limits)
{
	int i;

	for (i = 0; i < self->nsock; i++)
		cst_close(&self->socks[i]);
	EXPECT_EQ(self->base, cst_live_sessions());
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
	free(self->res);
}

TEST_F(limits, per_socket)
{
	struct cst_sock *s = &self->socks[0];
	uint32_t first_id = 0;
	struct cst_ack ack;
	long i;
	int ret;

	if (self->max_sessions - self->base <= self->per_socket)
		SKIP(return, "max_sessions %ld leaves no room above max_sessions_per_socket %ld",
		     self->max_sessions, self->per_socket);
	ASSERT_EQ(0, cst_open(s));
	self->nsock = 1;
	for (i = 0; i < self->per_socket; i++) {
		ret = new_session(s, self->res, &ack);
		ASSERT_EQ(0, ret) TH_LOG("session %ld of %ld refused: %s", i + 1,
					 self->per_socket, ack.msg);
		if (!i)
			first_id = self->res->id;
	}
	EXPECT_EQ(self->base + self->per_socket, cst_live_sessions());
	ret = new_session(s, self->res, &ack);
	EXPECT_REFUSED(ret, ack);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_NE(NULL, strstr(ack.msg, "max_sessions_per_socket"))
		TH_LOG("the message does not name the limit: \"%s\"", ack.msg);
	/* another socket is not affected */
	ASSERT_EQ(0, cst_open(&self->socks[1]));
	self->nsock = 2;
	EXPECT_EQ(0, new_session(&self->socks[1], self->res, NULL));
	/* freeing one makes room again */
	ASSERT_EQ(0, cst_cmd(s, CTXCOUNT_CMD_SESSION_DEL, first_id, NULL, NULL));
	EXPECT_EQ(0, new_session(s, self->res, &ack)) TH_LOG("%s", ack.msg);
}

TEST_F(limits, overall)
{
	long created = 0, room = self->max_sessions - self->base;
	struct cst_ack ack;
	int ret = 0;

	ASSERT_LT(0, self->per_socket);
	if (room / self->per_socket + 2 > 256)
		SKIP(return, "max_sessions %ld needs too many sockets", self->max_sessions);
	while (created < room) {
		struct cst_sock *s = &self->socks[self->nsock];
		long i;

		ASSERT_EQ(0, cst_open(s));
		self->nsock++;
		for (i = 0; i < self->per_socket && created < room; i++) {
			ret = new_session(s, self->res, &ack);
			ASSERT_EQ(0, ret) TH_LOG("session %ld (live before: %ld) refused below max_sessions %ld: %s",
						 created + 1, self->base,
						 self->max_sessions, ack.msg);
			created++;
		}
	}
	EXPECT_EQ(self->max_sessions, cst_live_sessions());
	/* on a socket below its own limit */
	ASSERT_EQ(0, cst_open(&self->socks[self->nsock]));
	ret = new_session(&self->socks[self->nsock++], self->res, &ack);
	EXPECT_REFUSED(ret, ack);
	EXPECT_EQ(-ENOSPC, ret);
	EXPECT_NE(NULL, strstr(ack.msg, "parameter max_sessions)"))
		TH_LOG("the message does not name max_sessions: \"%s\"", ack.msg);
	EXPECT_EQ(self->max_sessions, cst_live_sessions());
}

/* Slab + Percpu from /proc/meminfo, in KiB. */
static long kernel_mem_kb(void)
{
	char line[256];
	long v, sum = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "Slab: %ld", &v) == 1 ||
		    sscanf(line, "Percpu: %ld", &v) == 1)
			sum += v;
	}
	fclose(f);
	return sum;
}

/*
 * A process that opens sessions until it is refused, without knowing the
 * limits: a new socket whenever the per-socket limit is named, until the
 * global one is. It gets exactly max_sessions, and 2,000 more attempts
 * (on a socket below its own limit) cost no kernel memory: under
 * 1 MiB of Slab + Percpu growth, i.e. a leak of 512 bytes per refused
 * request would show (smaller ones are kmemleak's, on the debug kernel).
 */
TEST_F(limits, until_refused_memory_bounded)
{
	long created = 0, m0, m1, m2;
	struct cst_ack ack;
	int ret, i;

	if (self->max_sessions / (self->per_socket ? self->per_socket : 1) + 3 > 256)
		SKIP(return, "max_sessions %ld needs too many sockets", self->max_sessions);
	m0 = kernel_mem_kb();
	ASSERT_LT(0, m0);
	ASSERT_EQ(0, cst_open(&self->socks[self->nsock++]));
	for (;;) {
		ret = new_session(&self->socks[self->nsock - 1], self->res, &ack);
		if (!ret) {
			created++;
			continue;
		}
		ASSERT_EQ(-ENOSPC, ret) TH_LOG("refused with %s: %s", strerror(-ret), ack.msg);
		if (strstr(ack.msg, "max_sessions_per_socket")) {
			ASSERT_GT(256, self->nsock);
			ASSERT_EQ(0, cst_open(&self->socks[self->nsock++]));
			continue;
		}
		ASSERT_NE(NULL, strstr(ack.msg, "max_sessions"))
			TH_LOG("the refusal names no limit: \"%s\"", ack.msg);
		break;
	}
	TH_LOG("%ld sessions on %d sockets until refused: \"%s\"", created,
	       self->nsock, ack.msg);
	EXPECT_EQ(self->max_sessions - self->base, created);
	/* on a socket of its own, below its per-socket limit */
	ASSERT_EQ(0, cst_open(&self->socks[self->nsock++]));
	m1 = kernel_mem_kb();
	for (i = 0; i < 2000; i++) {
		ret = new_session(&self->socks[self->nsock - 1], self->res, &ack);
		ASSERT_EQ(-ENOSPC, ret);
	}
	m2 = kernel_mem_kb();
	/* slab reclaim moves these by hundreds of KiB: no per-session figure */
	TH_LOG("kernel Slab+Percpu: %ld KiB before, %ld with %ld sessions, %ld after 2000 refused attempts",
	       m0, m1, created, m2);
	EXPECT_EQ(self->max_sessions, cst_live_sessions());
	/*
	 * KASAN keeps freed objects in its quarantine (seen: +4288 KiB after
	 * the 2000 refusals), so Slab measures nothing there; kmemleak, on
	 * the same debug kernel, is what finds leaks. (A SKIP would hide
	 * the checks above if one had failed, hence __test_passed().)
	 */
	if (cst_kernel_has_symbol("kasan_quarantine_reduce") && __test_passed(_metadata))
		SKIP(return, "KASAN quarantine holds freed memory: Slab+Percpu bound not checked (kmemleak checks leaks on this kernel)");
	/* a leak of even 512 bytes per refused attempt would show as 1000 KiB */
	EXPECT_GT(1024, m2 - m1);
}

CST_TEST_MAIN
