// SPDX-License-Identifier: GPL-2.0
/*
 * --per-thread's protocol (version 6), no kernel needed: SESSION_NEW for
 * -a --per-thread (ALL_THREADS, no PID) and -p --per-thread, READ's flag,
 * and the CTXCOUNT_A_THREAD nests of a dump as the header lays them out:
 * a thread's nest split over consecutive nests (and messages) of the same
 * TID, the first with PID, COMM and EXCURSIONS, each with some events.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>

#include "kselftest_harness.h"
#include "lib/internal.h"
#include "run/per-thread.h"

#define FAMILY 0x1c

static struct nl_msg *new_part(void)
{
	struct nl_msg *msg = nlmsg_alloc_size(16384);

	genlmsg_put(msg, 0, 1, FAMILY, 0, NLM_F_MULTI, CTXCOUNT_CMD_SESSION_READ,
		    CTXCOUNT_GENL_VERSION);
	nla_put_u32(msg, CTXCOUNT_A_SESSION_ID, 5);
	return msg;
}

/* What thread @tid counted for event @i. */
static uint64_t val(uint32_t tid, int i)
{
	return 1000ULL * tid + i;
}

/*
 * Part of thread @tid's row with events [@from, @to); the first part
 * (@first) names it, unless @nameless (a module bug).
 */
static void put_thread(struct nl_msg *msg, uint32_t tid, const char *comm,
		       bool first, int from, int to)
{
	struct nlattr *nest = nla_nest_start(msg, CTXCOUNT_A_THREAD);
	struct nlattr *events, *ev, *b, *exc;
	int i;

	nla_put_u32(msg, CTXCOUNT_THREAD_A_TID, tid);
	if (first) {
		nla_put_u32(msg, CTXCOUNT_THREAD_A_PID, 100);
		if (comm)
			nla_put_string(msg, CTXCOUNT_THREAD_A_COMM, comm);
		exc = nla_nest_start(msg, CTXCOUNT_THREAD_A_EXCURSIONS);
		nla_put_u64(msg, CTXCOUNT_EXCURSION_HARDIRQ, 3);
		nla_nest_end(msg, exc);
	}
	events = nla_nest_start(msg, CTXCOUNT_THREAD_A_EVENTS);
	for (i = from; i < to; i++) {
		ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
		nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, i);
		nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, val(tid, i));
		b = nla_nest_start(msg, CTXCOUNT_EVENT_A_BUCKETS);
		nla_put_u64(msg, CTXCOUNT_BUCKET_TASK, val(tid, i) - 1);
		nla_put_u64(msg, CTXCOUNT_BUCKET_HARDIRQ, 1);
		nla_nest_end(msg, b);
		nla_nest_end(msg, ev);
	}
	nla_nest_end(msg, events);
	nla_nest_end(msg, nest);
}

/* The rows a READ handed over, every one kept whole for the checks. */
struct collected {
	int nr, cap;
	struct ctxc_thread_val *v;
	int fail_at;		/* the row (1-based) whose hand-over fails */
};

static int collect(const struct ctxc_thread_val *row, void *arg)
{
	struct collected *t = arg;
	struct ctxc_thread_val *v;

	if (t->nr + 1 == t->fail_at)
		return -ENOMEM;
	if (t->nr == t->cap) {
		v = realloc(t->v, (t->cap ? 2 * t->cap : 4) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		t->v = v;
		t->cap = t->cap ? 2 * t->cap : 4;
	}
	t->v[t->nr++] = *row;
	return 0;
}

/* A reader of rows into @t (large: static, one test at a time). */
static struct ctxc_thread_reader *reader(struct collected *t)
{
	static struct ctxc_thread_reader rd;

	memset(&rd, 0, sizeof(rd));
	rd.fn = collect;
	rd.arg = t;
	return &rd;
}

static int parse(struct nl_msg *msg, struct ctxc_thread_reader *rd)
{
	int err = ctxc_parse_thread_part(nlmsg_hdr(msg), rd);

	nlmsg_free(msg);
	return err;
}

/*
 * Thread 7's row in three nests over two messages, thread 8's whole
 * after it in the second: two rows, each with every event once.
 */
TEST(split_thread_nests)
{
	struct collected t = { 0 };
	struct ctxc_thread_reader *rd = reader(&t);
	struct nl_msg *msg;
	int i;

	msg = new_part();
	put_thread(msg, 7, "worker", true, 0, 2);
	put_thread(msg, 7, NULL, false, 2, 3);
	ASSERT_EQ(0, parse(msg, rd));
	/* a row is whole only once the next one begins */
	EXPECT_EQ(0, t.nr);
	msg = new_part();
	put_thread(msg, 7, NULL, false, 3, 4);
	put_thread(msg, 8, "main", true, 0, 4);
	ASSERT_EQ(0, parse(msg, rd));
	EXPECT_EQ(1, t.nr);
	ASSERT_EQ(0, ctxc_thread_reader_end(rd));
	ASSERT_EQ(2, t.nr);
	EXPECT_EQ(7, t.v[0].tid);
	EXPECT_EQ(100, t.v[0].pid);
	EXPECT_STREQ("worker", t.v[0].comm);
	EXPECT_EQ(8, t.v[1].tid);
	EXPECT_STREQ("main", t.v[1].comm);
	for (i = 0; i < 4; i++) {
		EXPECT_TRUE(t.v[0].ev[i].present);
		EXPECT_EQ(val(7, i), t.v[0].ev[i].full);
		EXPECT_EQ(val(7, i) - 1, t.v[0].ev[i].bucket[CTXCOUNT_BUCKET_TASK]);
		EXPECT_EQ(val(8, i), t.v[1].ev[i].full);
	}
	EXPECT_FALSE(t.v[0].ev[4].present);
	free(t.v);
}

/* A comm of 15 characters, the most a task has, is kept whole. */
TEST(full_comm)
{
	struct collected t = { 0 };
	struct ctxc_thread_reader *rd = reader(&t);
	struct nl_msg *msg = new_part();

	put_thread(msg, 9, "fifteen-chars-x", true, 0, 1);
	ASSERT_EQ(0, parse(msg, rd));
	ASSERT_EQ(0, ctxc_thread_reader_end(rd));
	ASSERT_EQ(1, t.nr);
	EXPECT_STREQ("fifteen-chars-x", t.v[0].comm);
	free(t.v);
}

/* Many rows, each split over two nests: every one handed over in order. */
TEST(many_threads)
{
	struct collected t = { 0 };
	struct ctxc_thread_reader *rd = reader(&t);
	struct nl_msg *msg;
	uint32_t tid;
	int bad = 0;

	for (tid = 1; tid <= 1000; tid++) {
		msg = new_part();
		put_thread(msg, tid, "t", true, 0, 1);
		put_thread(msg, tid, NULL, false, 1, 2);
		ASSERT_EQ(0, parse(msg, rd));
	}
	ASSERT_EQ(0, ctxc_thread_reader_end(rd));
	ASSERT_EQ(1000, t.nr);
	for (tid = 1; tid <= 1000; tid++)
		bad += t.v[tid - 1].tid != tid || t.v[tid - 1].ev[1].full != val(tid, 1);
	EXPECT_EQ(0, bad);
	free(t.v);
}

/* A row that does not say whose it is, or a comm over 16 bytes: refused. */
TEST(bad_nests)
{
	struct collected t = { 0 };
	struct nl_msg *msg;

	msg = new_part();
	put_thread(msg, 7, NULL, true, 0, 1);
	EXPECT_EQ(-EINVAL, parse(msg, reader(&t)));
	/* a continuation of a row that is not the last one is a new row */
	msg = new_part();
	put_thread(msg, 7, "a", true, 0, 1);
	put_thread(msg, 8, "b", true, 0, 1);
	put_thread(msg, 7, NULL, false, 1, 2);
	EXPECT_EQ(-EINVAL, parse(msg, reader(&t)));
	msg = new_part();
	put_thread(msg, 9, "sixteen-chars-xy", true, 0, 1);
	EXPECT_EQ(-EINVAL, parse(msg, reader(&t)));
	free(t.v);
}

/* The function's error ends the rows: no row after it, the error stays. */
TEST(function_error_ends_rows)
{
	struct collected t = { .fail_at = 2 };
	struct ctxc_thread_reader *rd = reader(&t);
	struct nl_msg *msg = new_part();

	put_thread(msg, 7, "a", true, 0, 1);
	put_thread(msg, 8, "b", true, 0, 1);
	put_thread(msg, 9, "c", true, 0, 1);
	put_thread(msg, 10, "d", true, 0, 1);
	EXPECT_EQ(-ENOMEM, parse(msg, rd));
	msg = new_part();
	put_thread(msg, 11, "e", true, 0, 1);
	EXPECT_EQ(-ENOMEM, parse(msg, rd));
	EXPECT_EQ(-ENOMEM, ctxc_thread_reader_end(rd));
	EXPECT_EQ(1, t.nr);
	free(t.v);
}

/* CPU nests in the same message are not threads, and the other way round. */
TEST(kinds_apart)
{
	struct collected t = { 0 };
	struct ctxc_thread_reader *rd = reader(&t);
	struct ctxc_cpu_val rows[2];
	struct ctxc_cpus cpus = { .cap = 2, .v = rows };
	struct ctxc_reply *r = calloc(1, sizeof(*r));
	struct nl_msg *msg = new_part();
	struct nlattr *nest, *events, *ev;

	ASSERT_NE(NULL, r);
	put_thread(msg, 7, "w", true, 0, 1);
	nest = nla_nest_start(msg, CTXCOUNT_A_CPU);
	nla_put_u32(msg, CTXCOUNT_CPU_A_CPU, 1);
	events = nla_nest_start(msg, CTXCOUNT_CPU_A_EVENTS);
	ev = nla_nest_start(msg, CTXCOUNT_EVENTS_A_EVENT);
	nla_put_u32(msg, CTXCOUNT_EVENT_A_INDEX, 0);
	nla_put_u64(msg, CTXCOUNT_EVENT_A_FULL, 42);
	nla_nest_end(msg, ev);
	nla_nest_end(msg, events);
	nla_nest_end(msg, nest);
	ASSERT_EQ(0, ctxc_parse_reply_cpus(nlmsg_hdr(msg), r, &cpus));
	EXPECT_EQ(1, cpus.nr);
	EXPECT_EQ(1, rows[0].cpu);
	EXPECT_EQ(42, rows[0].ev[0].full);
	ASSERT_EQ(0, parse(msg, rd));
	ASSERT_EQ(0, ctxc_thread_reader_end(rd));
	ASSERT_EQ(1, t.nr);
	EXPECT_EQ(val(7, 0), t.v[0].ev[0].full);
	free(t.v);
	free(r);
}

TEST(session_new_all_threads)
{
	const struct ctxc_event_req ev = { .type = 0, .config = 1 };
	const struct ctxc_target target = {
		.flags = CTXCOUNT_TARGET_F_ALL_THREADS | CTXCOUNT_TARGET_F_INHERIT,
		.session_flags = CTXCOUNT_SESSION_F_PER_THREAD,
	};
	struct nlattr *tb[CTXCOUNT_A_MAX + 1], *tt[CTXCOUNT_TARGET_A_MAX + 1];
	struct nl_msg *msg = ctxc_build_session_new(FAMILY, &target, &ev, 1);

	ASSERT_NE(NULL, msg);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	ASSERT_EQ(0, nla_parse_nested(tt, CTXCOUNT_TARGET_A_MAX,
				      tb[CTXCOUNT_A_TARGET], NULL));
	/* the header: no PID with ALL_THREADS */
	EXPECT_EQ(NULL, tt[CTXCOUNT_TARGET_A_PID]);
	EXPECT_EQ(CTXCOUNT_TARGET_F_ALL_THREADS | CTXCOUNT_TARGET_F_INHERIT,
		  nla_get_u32(tt[CTXCOUNT_TARGET_A_FLAGS]));
	EXPECT_EQ(CTXCOUNT_SESSION_F_PER_THREAD,
		  nla_get_u32(tb[CTXCOUNT_A_SESSION_FLAGS]));
	nlmsg_free(msg);
}

TEST(read_dump_request)
{
	struct nlattr *tb[CTXCOUNT_A_MAX + 1];
	struct nl_msg *msg;

	msg = ctxc_build_session_read_dump(FAMILY, 4, CTXCOUNT_READ_F_PER_THREAD);
	ASSERT_NE(NULL, msg);
	EXPECT_TRUE(nlmsg_hdr(msg)->nlmsg_flags & NLM_F_DUMP);
	ASSERT_EQ(0, genlmsg_parse(nlmsg_hdr(msg), 0, tb, CTXCOUNT_A_MAX, NULL));
	EXPECT_EQ(CTXCOUNT_READ_F_PER_THREAD,
		  nla_get_u32(tb[CTXCOUNT_A_READ_FLAGS]));
	nlmsg_free(msg);
}

/*
 * -a --per-thread -- cmd: the workload is forked (comm "ctxstat") before
 * SESSION_NEW and execs after it: its row is named as exec names it (the
 * path's last part, 15 bytes at most), every other row keeps its comm.
 */
TEST(workload_row_named_after_its_program)
{
	char *argv[] = { "/usr/bin/a-very-long-program-name", "x", NULL };
	struct ctxc_thread_val *row = calloc(1, sizeof(*row));
	struct cxs_counter_values counters[1] = {};
	static const int counter_of[] = { 0 };
	struct cxs_args a = { .system_wide = true };
	struct cxs_perthread pt;
	char comm[16];

	ASSERT_NE(NULL, row);
	cxs_exec_comm(comm, sizeof(comm), (char *[]){ "sleep", NULL });
	EXPECT_STREQ("sleep", comm);
	cxs_perthread_init(&pt, &a, 1);
	strcpy(row->comm, "ctxstat");
	row->tid = 41;
	ASSERT_EQ(0, cxs_perthread_add(&pt, row, counter_of, 1));
	row->tid = 42;
	ASSERT_EQ(0, cxs_perthread_add(&pt, row, counter_of, 1));
	pt.workload = 42;
	pt.workload_argv = argv;
	cxs_perthread_keep(&pt, counters);
	EXPECT_STREQ("ctxstat", pt.rows.row[0].comm);
	EXPECT_STREQ("a-very-long-pro", pt.rows.row[1].comm);
	cxs_perthread_free(&pt);
	free(row);
}

TEST_HARNESS_MAIN
