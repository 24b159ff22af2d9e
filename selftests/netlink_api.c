// SPDX-License-Identifier: GPL-2.0
/*
 * The ctxcount generic netlink API: the family, each command's happy path,
 * malformed and refused requests. A client learns why it was refused only
 * from the extended ack, so each refusal must come from the kernel with an
 * extended ack message; and no request, however malformed, may leave a
 * kernel report. The proofs SESSION_NEW needs are tested in proofs.c,
 * what a session may take in resources.c.
 *
 * Also:
 * - a PMU without a task context (the oracle module's ctxoracle_uncore,
 *   standing in for uncore and RAPL PMUs) is refused per event with
 *   -EOPNOTSUPP in a system-wide session perf gives root;
 * - irq sources (where STATS has the feature): MAX_SOURCES 0 and 65 refused
 *   by the policy (-ERANGE), MAX_SOURCES without the flag (-EINVAL), each
 *   naming the attribute; a session with sources reports OUTSIDE, OTHER and
 *   its handlers (ids in order, kinds, irq numbers, names, runs), every
 *   event's and every CPU nest's values adding up to the hardirq bucket
 *   exactly, the same as a reply and as a dump; a session without the flag
 *   has none of them;
 * - a READ dump refuses another socket's session (-ENOENT), unknown read
 *   flags (-EOPNOTSUPP) and a missing id (-EINVAL) in NLMSG_DONE, with a
 *   message;
 * - a single READ reply that leaves its ack no room in the requester's
 *   receive buffer (the least the kernel allows, 16 events per CPU) is
 *   refused (-EMSGSIZE, with a message), the socket still answers, and the
 *   same READ as a dump comes through that buffer.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
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
	EXPECT_EQ(0, self->res->features &
		  ~(uint32_t)(CTXCOUNT_FEATURE_NMI | CTXCOUNT_FEATURE_IRQ_SOURCES |
			      CTXCOUNT_FEATURE_IRQ_VECTORS |
			      CTXCOUNT_FEATURE_EST_KERNEL |
			      CTXCOUNT_FEATURE_EST_USER));
	/* User mode is measured only where kernel mode is. */
	if (self->res->features & CTXCOUNT_FEATURE_EST_USER)
		EXPECT_TRUE(self->res->features & CTXCOUNT_FEATURE_EST_KERNEL);
	/* Vectors are split only where handlers are. */
	if (self->res->features & CTXCOUNT_FEATURE_IRQ_VECTORS)
		EXPECT_TRUE(self->res->features & CTXCOUNT_FEATURE_IRQ_SOURCES);
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
	/* the test runs in a single-threaded process */
	EXPECT_TRUE(r->has_now);
	EXPECT_EQ(1, r->tasks_now);
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

/*
 * An event perf_event_open() refuses here has no proof, so it cannot be
 * asked for: with another event's proof the request is refused, naming
 * the event. (An event whose proof perf gives but whose per-CPU counter
 * the perf core refuses is still reported per event.)
 */
TEST_F(nl, unsupported_event_has_no_proof)
{
	const struct cst_ev bad = { PERF_TYPE_HARDWARE, 0xfffff, 0,
				    "hw config 0xfffff" };
	int fd = cst_proof_open(getpid(), 0, &bad);
	int ret;

	EXPECT_GT(0, fd) TH_LOG("perf_event_open gave hw config 0xfffff");
	if (fd >= 0)
		close(fd);
	TH_LOG("perf_event_open: %s", strerror(-fd));
	fd = cst_proof_open(getpid(), 0, &ev_cpu_clock);
	ASSERT_LE(0, fd);
	ret = cst_new_proof(&self->s, getpid(), 0, &bad, fd, NULL,
			     &self->ack);
	close(fd);
	EXPECT_EQ(-EACCES, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
	EXPECT_TRUE(self->ack.has_off) TH_LOG("the extack names no attribute");
}

TEST_F(nl, new_missing_target)
{
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	int ret;

	ASSERT_EQ(0, cst_put_events(m, &ev_cpu_clock, 1));
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	CST_EXPECT_REFUSED(ret, self->ack);
	if (self->ack.has_miss)
		EXPECT_EQ(CTXCOUNT_A_TARGET, self->ack.miss_type);
}

TEST_F(nl, new_missing_events)
{
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	int ret;

	ASSERT_EQ(0, cst_put_target(m, getpid(), 0));
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	CST_EXPECT_REFUSED(ret, self->ack);
	if (self->ack.has_miss)
		EXPECT_EQ(CTXCOUNT_A_EVENTS, self->ack.miss_type);
}

TEST_F(nl, new_zero_events)
{
	int ret = cst_new(&self->s, getpid(), 0, NULL, 0, NULL, &self->ack);

	CST_EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, new_missing_pid)
{
	/* no PID and no SYSTEM_WIDE: nothing to monitor */
	int fd = cst_proof_open(getpid(), 0, &ev_cpu_clock);
	int ret;

	ASSERT_LE(0, fd);
	ret = cst_new_proof(&self->s, -1, 0, &ev_cpu_clock, fd, NULL,
			     &self->ack);
	close(fd);
	CST_EXPECT_REFUSED(ret, self->ack);
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
	CST_EXPECT_REFUSED(ret, self->ack);
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
	CST_EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, unknown_target_flags)
{
	int ret = cst_new(&self->s, getpid(), 1U << 7, &ev_cpu_clock, 1, NULL,
			  &self->ack);

	EXPECT_EQ(-EOPNOTSUPP, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, unknown_event_flags)
{
	struct cst_ev ev = ev_cpu_clock;
	int ret;

	ev.flags = 1U << 5;
	ret = cst_new(&self->s, getpid(), 0, &ev, 1, NULL, &self->ack);
	EXPECT_EQ(-EOPNOTSUPP, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
}

/* CTXCOUNT_A_MAX_SOURCES out of its range, or without IRQ_SOURCES. */
static void max_sources_refused(struct __test_metadata *_metadata,
				FIXTURE_DATA(nl) *self, uint32_t flags,
				long long max, int err, const char *what)
{
	int ret;

	cst_new_session_flags = flags;
	cst_new_max_sources = max;
	ret = new_session(&self->s, self->res, &self->ack);
	cst_new_session_flags = 0;
	cst_new_max_sources = -1;
	EXPECT_EQ(err, ret) TH_LOG("%s", what);
	CST_EXPECT_REFUSED(ret, self->ack);
	/* The policy or the parser names the attribute. */
	EXPECT_TRUE(self->ack.has_off) TH_LOG("%s: no offset", what);
}

TEST_F(nl, max_sources_refused)
{
	if (!(cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES))
		SKIP(return, "no irq sources here (STATS' features)");
	/* The policy's range: -ERANGE, as for every range policy. */
	max_sources_refused(_metadata, self, CTXCOUNT_SESSION_F_IRQ_SOURCES,
			    0, -ERANGE, "MAX_SOURCES 0");
	max_sources_refused(_metadata, self, CTXCOUNT_SESSION_F_IRQ_SOURCES,
			    CTXCOUNT_MAX_SOURCES + 1, -ERANGE, "MAX_SOURCES 65");
	max_sources_refused(_metadata, self, 0, 4, -EINVAL,
			    "MAX_SOURCES without IRQ_SOURCES");
	EXPECT_EQ(0, cst_wait_live_sessions(0, 2000));
}

/* Busy, so that interrupts land while the session counts (x86: the tick). */
static void spin_ms(int ms)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000 +
		 (t.tv_nsec - t0.tv_nsec) / 1000000 < ms);
}

/* Every event: EVENT_A_SOURCES, well formed, adding up to HARDIRQ. */
static void sources_add_up(struct __test_metadata *_metadata,
			   const struct cst_ev_res *e, int nev,
			   const struct cst_res *top, const char *where)
{
	int i, t;

	for (i = 0; i < nev; i++) {
		EXPECT_TRUE(e[i].has_sources) TH_LOG("%s: event %d", where, i);
		EXPECT_EQ(0, e[i].bad_src) TH_LOG("%s: event %d", where, i);
		EXPECT_TRUE(e[i].has_src[CTXCOUNT_SOURCE_ID_OUTSIDE]);
		EXPECT_EQ(e[i].b[CTXCOUNT_BUCKET_HARDIRQ], cst_sources_sum(&e[i]))
			TH_LOG("%s: event %d: sources do not add up to hardirq",
			       where, i);
		for (t = 1; t <= CTXCOUNT_SOURCE_ID_MAX; t++)
			if (e[i].has_src[t])
				EXPECT_NE(NULL, cst_source_id(top, t))
					TH_LOG("%s: id %d has no source", where, t);
	}
}

/*
 * A session with sources: READ has CTXCOUNT_A_SOURCES (OUTSIDE and
 * OTHER first, then handlers with names and irq numbers) and each
 * event's EVENT_A_SOURCES adding up to its hardirq bucket exactly; per
 * CPU the same, with the CPU's runs. Without the flag, none of them.
 */
TEST_F(nl, sources_reply)
{
	struct cst_res *d;
	uint32_t id, plain;
	char what[256];
	int k, i, ret;

	if (!(cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES))
		SKIP(return, "no irq sources here (STATS' features)");
	ASSERT_EQ(0, new_session(&self->s, self->res, &self->ack));
	plain = self->res->id;
	cst_new_session_flags = CTXCOUNT_SESSION_F_IRQ_SOURCES;
	ret = cst_new_cpus(&self->s, &ev_cpu_clock, 1, NULL, -1, self->res,
			   &self->ack);
	cst_new_session_flags = 0;
	ASSERT_EQ(0, ret) TH_LOG("%s", self->ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, plain,
			     NULL, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL,
			     NULL));
	spin_ms(300);
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU,
			      self->res, &self->ack));
	EXPECT_TRUE(self->res->has_sources);
	EXPECT_EQ(0, self->res->bad_sources);
	ASSERT_LE(2, self->res->nsources);
	EXPECT_EQ(CTXCOUNT_SOURCE_ID_OUTSIDE, self->res->sources[0].id);
	EXPECT_EQ(CTXCOUNT_SOURCE_KIND_OUTSIDE, self->res->sources[0].kind);
	EXPECT_EQ(CTXCOUNT_SOURCE_ID_OTHER, self->res->sources[1].id);
	EXPECT_EQ(CTXCOUNT_SOURCE_KIND_OTHER, self->res->sources[1].kind);
	for (i = 2; i < self->res->nsources; i++) {
		const struct cst_source *s = &self->res->sources[i];

		EXPECT_EQ(CTXCOUNT_SOURCE_ID_FIRST + i - 2, s->id);
		EXPECT_TRUE(s->kind == CTXCOUNT_SOURCE_KIND_IRQ ||
			    s->kind == CTXCOUNT_SOURCE_KIND_VECTOR);
		EXPECT_TRUE(s->has_irq && s->has_name && s->has_count);
		TH_LOG("source %u: kind %u irq %u hwirq %lld \"%s\" runs %llu",
		       s->id, s->kind, s->irq,
		       s->has_hwirq ? (long long)s->hwirq : -1LL, s->name,
		       (unsigned long long)s->count);
	}
	/* The tick at least: a 300 ms busy loop is interrupted. */
	EXPECT_LT(2, self->res->nsources);
	sources_add_up(_metadata, self->res->ev, 1, self->res, "total");
	ASSERT_LE(1, self->res->ncpu);
	for (k = 0; k < self->res->ncpu; k++) {
		EXPECT_TRUE(self->res->cpu[k].has_src_counts);
		sources_add_up(_metadata, self->res->cpu[k].ev, 1, self->res,
			       "per CPU");
	}
	/* Stopped, as a dump: the same values, sources and all. */
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL,
			     NULL));
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU,
			      self->res, &self->ack));
	d = calloc(1, sizeof(*d));
	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, cst_read_dump(&self->s, id, CTXCOUNT_READ_F_PER_CPU, d,
				   &self->ack)) TH_LOG("%s", self->ack.msg);
	EXPECT_EQ(0, cst_res_diff(self->res, d, what, sizeof(what)))
		TH_LOG("the dump differs in %s", what);
	EXPECT_LE(d->max_msg_len, sysconf(_SC_PAGESIZE));
	free(d);
	/*
	 * The session without the flag: the reply of version 3. It is a
	 * task session: per-CPU totals are refused (perf has no per-CPU
	 * value of a task event), with a message.
	 */
	EXPECT_EQ(-EINVAL, cst_read(&self->s, plain, CTXCOUNT_READ_F_PER_CPU,
				    self->res, &self->ack));
	EXPECT_NE(NULL, strstr(self->ack.msg, "system-wide"));
	ASSERT_EQ(0, cst_read(&self->s, plain, 0, self->res, &self->ack));
	EXPECT_FALSE(self->res->attr_seen & (1ULL << CTXCOUNT_A_SOURCES));
	EXPECT_FALSE(self->res->ev[0].has_sources);
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, plain, NULL,
			     NULL));
}

/*
 * A PMU without a task context (uncore, RAPL, the test bed oracle's
 * stand-in for them) counts a package, not a CPU's contexts, and moves a
 * CPU event to its package's CPU; some of their reads take locks no hook
 * may. perf gives root the CPU event; the module refuses it per event
 * (the session is created, the event reports -EOPNOTSUPP), where before
 * issue 21 it counted the package in a "per-CPU" row.
 */
TEST_F(nl, uncore_pmu_refused)
{
	struct cst_ev ev = { .name = "ctxoracle_uncore" };
	FILE *f;
	int err;

	err = cst_oracle_load();
	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(),
		     strerror(-err));
	f = fopen("/sys/bus/event_source/devices/ctxoracle_uncore/type", "r");
	ASSERT_NE(NULL, f);
	ASSERT_EQ(1, fscanf(f, "%u", &ev.type));
	fclose(f);
	err = cst_new_cpus(&self->s, &ev, 1, NULL, -1, self->res, &self->ack);
	ASSERT_EQ(0, err) TH_LOG("%s", self->ack.msg);
	ASSERT_EQ(1, self->res->nev);
	EXPECT_EQ(-EOPNOTSUPP, self->res->ev[0].error);
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, self->res->id,
			     NULL, NULL));
}

TEST_F(nl, nonexistent_pid)
{
	pid_t pid = fork();
	int fd, ret;

	ASSERT_LE(0, pid);
	if (pid == 0)
		_exit(0);
	ASSERT_EQ(pid, waitpid(pid, NULL, 0));
	/* reaped: the pid is free (reuse within this test is unlikely) */
	ASSERT_EQ(-1, kill(pid, 0));
	fd = cst_proof_open(getpid(), 0, &ev_cpu_clock);
	ASSERT_LE(0, fd);
	ret = cst_new_proof(&self->s, pid, 0, &ev_cpu_clock, fd, NULL,
			     &self->ack);
	close(fd);
	EXPECT_EQ(-ESRCH, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
}

TEST_F(nl, nonexistent_session)
{
	int ret = cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, 0x7ffffff0,
			  NULL, &self->ack);

	EXPECT_EQ(-ENOENT, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
}

/* READ as a dump refuses what READ refuses, before any message. */
TEST_F(nl, read_dump_refused)
{
	struct nl_msg *m;
	uint32_t id;
	int ret;

	ret = cst_read_dump(&self->s, 0x7ffffff0, 0, self->res, &self->ack);
	EXPECT_EQ(-ENOENT, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
	EXPECT_EQ(0, self->res->nmsg);
	ASSERT_EQ(0, new_session(&self->s, self->res, &self->ack));
	id = self->res->id;
	ret = cst_read_dump(&self->s, id, 0x80, self->res, &self->ack);
	EXPECT_EQ(-EOPNOTSUPP, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
	m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_READ);
	ASSERT_NE(NULL, m);
	nlmsg_hdr(m)->nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	ret = cst_xfer(&self->s, m, self->res, &self->ack);
	EXPECT_EQ(-EINVAL, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
	/* and reads: one message for one event */
	ASSERT_EQ(0, cst_read_dump(&self->s, id, 0, self->res, &self->ack));
	EXPECT_EQ(1, self->res->nmsg);
	EXPECT_EQ(1, self->res->nev);
	EXPECT_EQ(id, self->res->id);
	EXPECT_TRUE(self->res->has_seen && self->res->has_excursions);
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
}

/*
 * A single READ reply that leaves its ack no room in the receive buffer
 * is refused (before, the ack was dropped and the client waited for it
 * for good: issue 24), and the socket goes on working; the same READ as
 * a dump comes through that buffer.
 */
TEST_F(nl, reply_too_large_for_the_socket)
{
	struct cst_ev ev[CTXCOUNT_MAX_EVENTS];
	int n = cst_sixteen_events(ev), one = 1;
	struct cst_sock small;
	uint32_t id;
	int ret;

	ASSERT_EQ(0, cst_open(&small));
	/* The least the kernel allows: about 2 KiB. */
	ASSERT_EQ(0, setsockopt(cst_fd(&small), SOL_SOCKET, SO_RCVBUF, &one,
				sizeof(one)));
	ASSERT_EQ(0, cst_new(&small, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, ev, n,
			     self->res, &self->ack)) TH_LOG("%s", self->ack.msg);
	id = self->res->id;
	ret = cst_read(&small, id, CTXCOUNT_READ_F_PER_CPU, self->res,
		       &self->ack);
	EXPECT_EQ(-EMSGSIZE, ret);
	CST_EXPECT_REFUSED(ret, self->ack);
	EXPECT_FALSE(self->res->replied);
	ASSERT_EQ(0, cst_cmd(&small, CTXCOUNT_CMD_STATS, 0, self->res,
			     &self->ack)) TH_LOG("the socket no longer answers");
	ASSERT_EQ(0, cst_read_dump(&small, id, CTXCOUNT_READ_F_PER_CPU,
				   self->res, &self->ack)) TH_LOG("%s", self->ack.msg);
	EXPECT_EQ(n, self->res->nev);
	EXPECT_EQ(sysconf(_SC_NPROCESSORS_ONLN), self->res->ncpu);
	TH_LOG("dump through the least receive buffer: %d messages",
	       self->res->nmsg);
	EXPECT_EQ(0, cst_cmd(&small, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
	cst_close(&small);
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
		CST_EXPECT_REFUSED(ret, self->ack);
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

	CST_EXPECT_REFUSED(ret, self->ack);
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
	FD_NEGATIVE,	/* EVENT_A_PERF_FD below 0 */
	FD_U64,		/* EVENT_A_PERF_FD as a u64 */
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
FIXTURE_VARIANT_ADD(malformed, perf_fd_negative) { .kind = FD_NEGATIVE };
FIXTURE_VARIANT_ADD(malformed, perf_fd_u64) { .kind = FD_U64 };

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
		if (variant->kind == FD_NEGATIVE)
			nla_put_s32(m, CTXCOUNT_EVENT_A_PERF_FD, -1);
		if (variant->kind == FD_U64)
			nla_put_u64(m, CTXCOUNT_EVENT_A_PERF_FD, 0);
		nla_nest_end(m, e);
		nla_nest_end(m, all);
		break;
	}
	ret = cst_xfer(&self->s, m, NULL, &self->ack);
	CST_EXPECT_REFUSED(ret, self->ack);
	/* the valid session is unharmed */
	EXPECT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, self->id,
			     NULL, NULL));
}

CST_TEST_MAIN
