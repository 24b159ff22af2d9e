// SPDX-License-Identifier: GPL-2.0
/*
 * Per-thread rows, the protocol (version 6: CTXCOUNT_SESSION_F_PER_THREAD,
 * CTXCOUNT_TARGET_F_ALL_THREADS, CTXCOUNT_READ_F_PER_THREAD), on every
 * target with software events; the oracles are per_thread_oracle.c.
 *
 * Rows name the threads and carry what the totals carry; they add up to
 * the totals after STOP, times too, as a reply and as a dump, which agree;
 * 40 threads of 16 events come in a dump of messages of at most a page,
 * rows split and merged; ALL_THREADS has a row for this thread and for
 * pid 1; each refusal with its errno and an extack message, ALL_THREADS
 * refused to uid 65534 and beyond max_threads.
 *
 * In detail: family version 6, skipped before; each row names its thread
 * (tid, pid, comm as /proc has it) and carries the totals' attributes
 * (index, full, times, every bucket once adding up to full, the estimate's
 * state and error, DIRECT_CPUS 0, no sources); a READ without the flag has
 * no rows. Refused with an extack message: PER_THREAD system wide or with
 * IRQ_SOURCES (-EINVAL); ALL_THREADS without PER_THREAD, with a pid,
 * SYSTEM_WIDE, CPUS or ENABLE_ON_EXEC (-EINVAL); READ_F_PER_THREAD of a
 * session without rows (-EINVAL, as a reply and in a dump's NLMSG_DONE);
 * ALL_THREADS for uid 65534 at paranoid 1 (-EPERM) and beyond max_threads 2
 * (-ENOSPC).
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define M 0			/* the worker's threads */
#define S 1
#define PER_THREAD	CTXCOUNT_READ_F_PER_THREAD

/* Software events: they count on every target (x86's TCG has no PMU). */
static const struct cst_ev sw_events[] = {
	CST_EV_SW(TASK_CLOCK, 0, "task-clock"),
	CST_EV_SW(CONTEXT_SWITCHES, 0, "context-switches"),
};
static const struct cst_ev ev_user = CST_EV_SW(TASK_CLOCK, CST_F_USER_ONLY,
					       "task-clock:u");

FIXTURE(pt) {
	int kmsg;
	struct cst_sock s;
	struct cst_res *r, *r2;
	struct cst_worker w;
	bool worker;
	long paranoid, max_threads;	/* to restore; LONG_MIN: untouched */
};

FIXTURE_SETUP(pt)
{
	const char *why = cst_per_thread_cannot_run();

	self->kmsg = -1;
	if (why)
		SKIP(return, "%s", why);
	self->paranoid = self->max_threads = LONG_MIN;
	self->kmsg = cst_kmsg_open();
	self->r = calloc(1, sizeof(*self->r));
	self->r2 = calloc(1, sizeof(*self->r2));
	ASSERT_TRUE(self->r && self->r2);
	self->r->thr = cst_threads_for_all(256);
	self->r2->thr = cst_threads_for_all(256);
	ASSERT_TRUE(self->r->thr && self->r2->thr);
	ASSERT_EQ(0, cst_open(&self->s));
	cst_new_session_flags = CTXCOUNT_SESSION_F_PER_THREAD;
}

FIXTURE_TEARDOWN(pt)
{
	if (self->worker)
		cst_worker_stop(&self->w);
	if (self->paranoid != LONG_MIN)
		EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	if (self->max_threads != LONG_MIN)
		EXPECT_EQ(0, cst_param_set("max_threads", self->max_threads));
	cst_close(&self->s);
	free(self->r->thr);
	free(self->r2->thr);
	free(self->r);
	free(self->r2);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The worker (M and S) with a started session of @nev software events. */
static void pt_start(struct __test_metadata *_metadata, FIXTURE_DATA(pt) *self,
		     const struct cst_ev *ev, int nev)
{
	struct cst_worker_cfg cfg = {
		.second_thread = true, .tflags = CTXCOUNT_TARGET_F_INHERIT,
	};
	int err = cst_worker_start_cfg(&self->w, &cfg, ev, nev, NULL, 0, self->r);

	ASSERT_EQ(0, err) TH_LOG("cannot start the worker: %s", strerror(-err));
	self->worker = true;
}

/* A row carries what a total carries, but DIRECT_CPUS and SOURCES. */
#define PT_EXPECT_ROW_SHAPE(t, nev) do {				\
	char what_[160];						\
									\
	EXPECT_EQ(0, cst_row_shape((t), (nev), what_, sizeof(what_)))	\
		TH_LOG("%s", what_);					\
} while (0)

TEST_F(pt, rows_name_the_threads)
{
	char comm[32];
	const struct cst_thread_res *t;
	int i;

	pt_start(_metadata, self, sw_events, 2);
	ASSERT_EQ(0, cst_worker_tell(&self->w, M, "loop 1000000"));
	ASSERT_EQ(0, cst_worker_tell(&self->w, S, "loop 1000000"));
	ASSERT_EQ(0, cst_read(&self->w.s, self->w.id, PER_THREAD, self->r, NULL));
	EXPECT_EQ(2, self->r->thr->n);
	for (i = 0; i < 2; i++) {
		t = cst_thread_row(self->r, self->w.tid[i]);
		ASSERT_NE(NULL, t) TH_LOG("no row for tid %d", self->w.tid[i]);
		ASSERT_EQ(0, cst_proc_comm(self->w.c.pid, self->w.tid[i], comm, sizeof(comm)));
		EXPECT_EQ(self->w.c.pid, (pid_t)t->pid);
		EXPECT_STREQ(comm, t->comm);
		PT_EXPECT_ROW_SHAPE(t, 2);
		EXPECT_LT(0, t->ev[0].full) TH_LOG("%s: no task-clock", comm);
	}
	/* Without the flag a READ is what it was before version 6. */
	ASSERT_EQ(0, cst_read(&self->w.s, self->w.id, 0, self->r, NULL));
	EXPECT_EQ(0, self->r->thread_nests);
	ASSERT_EQ(0, cst_read_dump(&self->w.s, self->w.id, 0, self->r, NULL));
	EXPECT_EQ(0, self->r->thread_nests);
}

TEST_F(pt, rows_add_up_after_stop)
{
	struct cst_ev ev[CTXCOUNT_MAX_EVENTS];
	int n = cst_sixteen_events(ev);
	char what[256];

	pt_start(_metadata, self, ev, n);
	ASSERT_EQ(0, cst_worker_tell(&self->w, M, "loop 2000000"));
	ASSERT_EQ(0, cst_worker_tell(&self->w, S, "loop 2000000"));
	ASSERT_EQ(0, cst_worker_tell(&self->w, S, "thread 1000000"));
	ASSERT_EQ(0, cst_cmd(&self->w.s, CTXCOUNT_CMD_SESSION_STOP, self->w.id, NULL, NULL));
	ASSERT_EQ(0, cst_read(&self->w.s, self->w.id, PER_THREAD, self->r, NULL));
	ASSERT_EQ(0, cst_read_dump(&self->w.s, self->w.id, PER_THREAD, self->r2, NULL));
	EXPECT_EQ(2, self->r->thr->n);
	EXPECT_EQ(0, cst_rows_sum_diff(self->r, true, what, sizeof(what))) TH_LOG("reply: %s", what);
	EXPECT_EQ(0, cst_rows_sum_diff(self->r2, true, what, sizeof(what))) TH_LOG("dump: %s", what);
	EXPECT_EQ(0, cst_res_diff(self->r, self->r2, what, sizeof(what)))
		TH_LOG("the dump differs from the reply in %s", what);
	PT_EXPECT_ROW_SHAPE(&self->r->thr->row[0], n);
	PT_EXPECT_ROW_SHAPE(&self->r->thr->row[1], n);
}

#define PT_MANY	40

/*
 * 40 rows of 16 events (3.7 KiB or more each, as a CPU's in percpu: about
 * what a message holds) in a dump: no message over a page, rows split
 * over messages merged whole, each with its 16 events in order, adding
 * up to the totals.
 */
TEST_F_TIMEOUT(pt, dump_splits_and_merges_rows, 120)
{
	struct cst_ev ev[CTXCOUNT_MAX_EVENTS];
	int n = cst_sixteen_events(ev), i, j, err;
	const struct cst_threads *thr = self->r->thr;
	struct cst_ack ack = { .msg = "" };
	struct cst_many m;
	char what[256];
	uint32_t id = 0;

	err = cst_many_fork(&m, PT_MANY, 200000) ?:
	      cst_new(&self->s, m.pid, 0, ev, n, self->r, &ack);
	id = err ? 0 : self->r->id;
	err = err ?: cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL) ?:
	      cst_many_go(&m) ?:
	      cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL) ?:
	      cst_read_dump(&self->s, id, PER_THREAD, self->r, &ack);
	cst_many_end(&m);
	ASSERT_EQ(0, err) TH_LOG("%s (%s)", strerror(-err), ack.msg);
	TH_LOG("%d rows in %d nests (%d continuing a row), %d messages up to %u bytes",
	       thr->n, self->r->thread_nests, thr->parts, self->r->nmsg, self->r->max_msg_len);
	EXPECT_EQ(PT_MANY, thr->n);
	EXPECT_EQ(thr->n + thr->parts, self->r->thread_nests);
	EXPECT_LT(0, thr->parts) TH_LOG("no row was split: 16 events fill most of a message");
	EXPECT_LE(self->r->max_msg_len, sysconf(_SC_PAGESIZE));
	for (i = 0; i < thr->n; i++) {
		EXPECT_EQ(m.pid, (pid_t)thr->row[i].pid);
		PT_EXPECT_ROW_SHAPE(&thr->row[i], n);
		for (j = 0; j < i; j++)
			EXPECT_NE(thr->row[i].tid, thr->row[j].tid);
	}
	EXPECT_EQ(0, cst_rows_sum_diff(self->r, true, what, sizeof(what))) TH_LOG("%s", what);
}

/* ALL_THREADS as root: a row per thread, this one's and pid 1's among them. */
TEST_F(pt, all_threads_has_every_thread)
{
	const struct cst_threads *thr = self->r->thr;
	const struct cst_thread_res *me, *init;
	struct cst_ack ack;
	char what[256];
	uint32_t id;
	int i, j, dup = 0;

	ASSERT_EQ(0, cst_new_all_threads(&self->s, -1, CTXCOUNT_TARGET_F_INHERIT, NULL, -1,
					 sw_events, 2, self->r, &ack)) TH_LOG("%s", ack.msg);
	id = self->r->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	cst_spin_ms(20);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
	ASSERT_EQ(0, cst_read_dump(&self->s, id, PER_THREAD, self->r, &ack)) TH_LOG("%s", ack.msg);
	TH_LOG("%d rows", thr->n);
	EXPECT_EQ(0, thr->overflow);
	me = cst_thread_row(self->r, syscall(SYS_gettid));
	init = cst_thread_row(self->r, 1);
	ASSERT_NE(NULL, me);
	ASSERT_NE(NULL, init);
	EXPECT_EQ(getpid(), (pid_t)me->pid);
	EXPECT_EQ(1, init->pid);
	EXPECT_LT(0, me->ev[0].full) TH_LOG("this thread spun 20 ms");
	PT_EXPECT_ROW_SHAPE(me, 2);
	PT_EXPECT_ROW_SHAPE(init, 2);
	for (i = 0; i < thr->n; i++)
		for (j = 0; j < i; j++)
			dup += thr->row[i].tid == thr->row[j].tid;
	EXPECT_EQ(0, dup);
	EXPECT_EQ(0, cst_rows_sum_diff(self->r, true, what, sizeof(what))) TH_LOG("%s", what);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

/* A refusal by the module: @want, with an extack message. */
static void pt_refused(struct __test_metadata *_metadata, int ret,
		       const struct cst_ack *ack, int want, const char *what)
{
	EXPECT_EQ(want, ret) TH_LOG("%s: %d (%s)", what, ret, ack->msg);
	CST_EXPECT_REFUSED(ret, *ack);
}

TEST_F(pt, per_thread_refused_system_wide)
{
	struct cst_ack ack;
	int ret = cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, sw_events, 1, NULL, &ack);

	pt_refused(_metadata, ret, &ack, -EINVAL, "PER_THREAD, SYSTEM_WIDE");
}

TEST_F(pt, per_thread_refused_with_irq_sources)
{
	struct cst_ack ack;
	int ret;

	cst_new_session_flags |= CTXCOUNT_SESSION_F_IRQ_SOURCES;
	ret = cst_new(&self->s, getpid(), 0, sw_events, 1, NULL, &ack);
	if (cst_features() & CTXCOUNT_FEATURE_IRQ_SOURCES) {
		pt_refused(_metadata, ret, &ack, -EINVAL, "PER_THREAD, IRQ_SOURCES");
		return;
	}
	/* Without the feature IRQ_SOURCES alone is refused (-EOPNOTSUPP). */
	EXPECT_TRUE(ret == -EINVAL || ret == -EOPNOTSUPP) TH_LOG("%d (%s)", ret, ack.msg);
	CST_EXPECT_REFUSED(ret, ack);
}

TEST_F(pt, all_threads_refused_with_other_targets)
{
	static const struct {
		bool pid;
		uint32_t sflags, tflags;
		int ncpu;
		const char *what;
	} c[] = {
		{ false, 0, 0, -1, "ALL_THREADS without PER_THREAD" },
		{ true, CTXCOUNT_SESSION_F_PER_THREAD, 0, -1, "ALL_THREADS with a PID" },
		{ false, CTXCOUNT_SESSION_F_PER_THREAD, CTXCOUNT_TARGET_F_SYSTEM_WIDE, -1,
		  "ALL_THREADS with SYSTEM_WIDE" },
		{ false, CTXCOUNT_SESSION_F_PER_THREAD, 0, 1, "ALL_THREADS with CPUS" },
		{ false, CTXCOUNT_SESSION_F_PER_THREAD, CTXCOUNT_TARGET_F_ENABLE_ON_EXEC, -1,
		  "ALL_THREADS with ENABLE_ON_EXEC" },
	};
	const int cpu0 = 0;
	struct cst_ack ack;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(c); i++) {
		cst_new_session_flags = c[i].sflags;
		ret = cst_new_all_threads(&self->s, c[i].pid ? getpid() : -1, c[i].tflags,
					  &cpu0, c[i].ncpu, sw_events, 1, NULL, &ack);
		pt_refused(_metadata, ret, &ack, -EINVAL, c[i].what);
	}
}

TEST_F(pt, read_per_thread_refused_without_rows)
{
	struct cst_ack ack;
	uint32_t id;
	int ret;

	cst_new_session_flags = 0;
	ASSERT_EQ(0, cst_new(&self->s, getpid(), 0, sw_events, 1, self->r, &ack)) TH_LOG("%s", ack.msg);
	id = self->r->id;
	ret = cst_read(&self->s, id, PER_THREAD, self->r, &ack);
	pt_refused(_metadata, ret, &ack, -EINVAL, "READ_F_PER_THREAD");
	ret = cst_read_dump(&self->s, id, PER_THREAD, self->r, &ack);
	pt_refused(_metadata, ret, &ack, -EINVAL, "READ_F_PER_THREAD, dump");
	EXPECT_FALSE(self->r->replied) TH_LOG("a refused dump has no message before NLMSG_DONE");
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

/* What uid 65534's ALL_THREADS NEW got, in shared memory. */
struct pt_user {
	int ret;
	struct cst_ack ack;
	int rows;
};

static int pt_all_threads_as_user(void *arg)
{
	struct pt_user *o = arg;
	struct cst_sock s;

	if (cst_open(&s))
		return 1;
	o->ret = cst_new_all_threads(&s, -1, 0, NULL, -1, &ev_user, 1, NULL, &o->ack);
	cst_close(&s);
	return 0;
}

TEST_F(pt, all_threads_refused_to_a_user)
{
	struct pt_user *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	ASSERT_NE(MAP_FAILED, o);
	/* At 1 perf gives the user its proof: the refusal is the module's. */
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	ASSERT_EQ(0, cst_paranoid_set(1));
	ASSERT_EQ(0, cst_call_as(65534, 65534, pt_all_threads_as_user, o));
	pt_refused(_metadata, o->ret, &o->ack, -EPERM, "ALL_THREADS as uid 65534");
	munmap(o, sizeof(*o));
}

/* max_threads set to @n, the old value restored at teardown. */
static void pt_max_threads(struct __test_metadata *_metadata,
			   FIXTURE_DATA(pt) *self, long n)
{
	long old;

	ASSERT_EQ(0, cst_param_get("max_threads", &old)) TH_LOG("no module parameter max_threads");
	if (self->max_threads == LONG_MIN)
		self->max_threads = old;
	ASSERT_EQ(0, cst_param_set("max_threads", n));
}

TEST_F(pt, all_threads_refused_beyond_max_threads)
{
	struct cst_ack ack;
	int ret;

	pt_max_threads(_metadata, self, 2);
	ret = cst_new_all_threads(&self->s, -1, 0, NULL, -1, sw_events, 1, NULL, &ack);
	pt_refused(_metadata, ret, &ack, -ENOSPC, "ALL_THREADS, max_threads 2");
}

/*
 * The first process of a new pid namespace: its ALL_THREADS NEW, then
 * READ's rows into @arg (struct pt_user, shared). Exit 0, or where it
 * failed.
 */
static int pt_all_threads_in_new_ns(void *arg)
{
	struct pt_user *o = arg;
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	int err;

	if (!r || cst_open(&s))
		return 1;
	r->thr = cst_threads_alloc(16);
	if (!r->thr)
		return 2;
	o->ret = cst_new_all_threads(&s, -1, 0, NULL, -1, sw_events, 1, r, &o->ack);
	if (o->ret)
		return 0;
	err = cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL);
	cst_spin_ms(5);
	err = err ?: cst_cmd(&s, CTXCOUNT_CMD_SESSION_STOP, r->id, NULL, NULL);
	err = err ?: cst_read_dump(&s, r->id, PER_THREAD, r, &o->ack);
	if (err)
		return 3;
	o->rows = r->thr->n;
	cst_close(&s);
	return 0;
}

/*
 * max_threads bounds what ALL_THREADS takes, the threads the sender's pid
 * namespace sees: the first process of a new one (seeing itself only)
 * may, though the machine has more threads than that.
 */
TEST_F(pt, all_threads_max_in_the_senders_pid_ns)
{
	struct pt_user *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	int status;
	pid_t pid;

	ASSERT_NE(MAP_FAILED, o);
	pt_max_threads(_metadata, self, 2);
	o->ret = -1;
	ASSERT_EQ(0, unshare(CLONE_NEWPID)) TH_LOG("unshare: %s", strerror(errno));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(pt_all_threads_in_new_ns(o));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("status %#x", status);
	EXPECT_EQ(0, o->ret) TH_LOG("%s", o->ack.msg);
	EXPECT_EQ(1, o->rows) TH_LOG("rows of the namespace's one thread");
	munmap(o, sizeof(*o));
}

CST_TEST_MAIN
