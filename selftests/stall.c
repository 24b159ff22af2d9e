// SPDX-License-Identifier: GPL-2.0
/*
 * What one request stuck on its target does to the others (issue 31,
 * finding 4). A target's owner can hold its perf context's mutex as long
 * as it likes: a read() of one of its perf events into a page that faults
 * slowly holds ctx->mutex across the copy. Here the page is a
 * userfaultfd page nobody fills until the test says so. A READ of a
 * session on that target then waits for the mutex; while it does:
 *
 * - a READ of another session (another socket, another target),
 * - STATS,
 * - a SESSION_NEW on another target,
 * - closing a generic netlink socket with no session, and the socket of
 *   the session on another target (the NETLINK_URELEASE notifier, which
 *   every genl socket's release runs)
 *
 * each complete within 10 s (they waited on the module's global lock
 * before, for as long as the target's owner liked). Then the page is
 * filled and the stuck READ completes too.
 *
 * And what a SESSION_NEW stuck on that target does to generic netlink
 * (issue 31, finding 3): its handler runs under genetlink's cb_lock, which
 * a family's registration takes for writing, and every genl request
 * waits behind that writer. The registration is one anybody can start:
 * CTRL_CMD_GETFAMILY of an unloaded family (wireguard) loads its module.
 * Another genl request must then complete within 10 s, and the stuck NEW
 * must give up (-EAGAIN) and leave nothing behind. The same for a READ,
 * START or STOP of a session on that target (they give up with -EAGAIN,
 * and a START or STOP is carried out once the target lets go) and a DEL
 * (it returns 0 at once, the session gone; its counters go when the
 * target lets go).
 *
 * Needs userfaultfd (root may take kernel-mode faults through it); skipped
 * where the kernel has none, saying so.
 *
 * In detail: the stuck READ waits in state D; the test waits until
 * modprobe's kernel stack is in genl_register_family, and the registration
 * completes too; once the page is filled the given-up NEW's worker lets go
 * of the module and leaves no session (skipped when wireguard is loaded and
 * in use, or when looking it up loads nothing).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "cst.h"

#define WAIT_S	10

static const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");

static void idle_fn(void *arg)
{
	for (;;)
		pause();
}

/* Through the session's socket, which no other thread uses meanwhile. */
static int do_read(struct cst_req *q)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = cst_read(q->s, q->id, 0, r, NULL);
	free(r);
	return ret;
}

static int do_stats(struct cst_req *q)
{
	return cst_live_sessions() < 0;
}

static int do_new(struct cst_req *q)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	int ret;

	if (!r || cst_open(&s))
		return -ENOMEM;
	ret = cst_new(&s, q->pid, 0, &ev, 1, r, NULL);
	cst_close(&s);
	free(r);
	return ret;
}

/* A generic netlink socket with no session, opened and closed. */
static int do_close_fresh(struct cst_req *q)
{
	struct cst_sock s;

	if (cst_open(&s))
		return -ENOMEM;
	cst_close(&s);
	return 0;
}

/* Close @q->s, whose session is on another target: NETLINK_URELEASE. */
static int do_close(struct cst_req *q)
{
	cst_close(q->s);
	return 0;
}

FIXTURE(stall) {
	int kmsg, perf_fd;
	struct cst_hold hold;
	struct cst_child target, other;
	struct cst_sock s1, s2;
	bool open1, open2;
};

FIXTURE_SETUP(stall)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	int err;

	self->kmsg = cst_kmsg_open();
	self->open1 = self->open2 = false;
	self->target.pid = self->other.pid = 0;
	self->perf_fd = -1;
	err = cst_hold_setup(&self->hold);
	if (self->hold.uffd < 0)
		SKIP(return, "no userfaultfd here (%s): nothing holds a target's perf mutex on request",
		     strerror(-err));
	ASSERT_EQ(0, err) TH_LOG("userfaultfd: %s", strerror(-err));
	ASSERT_EQ(0, cst_child_fork(&self->target, idle_fn, NULL));
	ASSERT_EQ(0, cst_child_fork(&self->other, idle_fn, NULL));
	self->perf_fd = syscall(SYS_perf_event_open, &attr, self->target.pid, -1, -1, 0);
	ASSERT_LE(0, self->perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ASSERT_EQ(0, cst_open(&self->s1));
	self->open1 = true;
	ASSERT_EQ(0, cst_open(&self->s2));
	self->open2 = true;
}

FIXTURE_TEARDOWN(stall)
{
	if (self->open1)
		cst_close(&self->s1);
	if (self->open2)
		cst_close(&self->s2);
	if (self->perf_fd >= 0)
		close(self->perf_fd);
	cst_hold_cleanup(&self->hold);
	if (self->target.pid > 0) {
		kill(self->target.pid, SIGKILL);
		cst_child_wait(&self->target);
	}
	if (self->other.pid > 0) {
		kill(self->other.pid, SIGKILL);
		cst_child_wait(&self->other);
	}
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

TEST_F_TIMEOUT(stall, others_go_on_while_a_read_waits_for_its_target, 120)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_req stuck = { .fn = do_read }, other = { .fn = do_read };
	struct cst_req stats = { .fn = do_stats }, fresh = { .fn = do_new };
	struct cst_req bare = { .fn = do_close_fresh };
	struct cst_req closing = { .fn = do_close, .s = &self->s2 };
	bool other_done, stats_done, fresh_done, bare_done, close_done;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_new(&self->s1, self->target.pid, 0, &ev, 1, r, NULL));
	stuck.id = r->id;
	stuck.s = &self->s1;
	ASSERT_EQ(0, cst_cmd(&self->s1, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	ASSERT_EQ(0, cst_new(&self->s2, self->other.pid, 0, &ev, 1, r, NULL));
	other.id = r->id;
	other.s = &self->s2;
	ASSERT_EQ(0, cst_cmd(&self->s2, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	fresh.pid = self->other.pid;

	/* The target's perf mutex held: the holder waits in the page fault. */
	ASSERT_EQ(0, cst_hold_begin(&self->hold, self->perf_fd))
		TH_LOG("the holder's read did not fault");

	/* A READ of the target's session waits for that mutex. */
	EXPECT_FALSE(cst_req_within(&stuck, 0));
	EXPECT_TRUE(cst_req_blocked(&stuck)) TH_LOG("the READ of the target's session is not waiting");

	other_done = cst_req_within(&other, WAIT_S);
	stats_done = cst_req_within(&stats, WAIT_S);
	fresh_done = cst_req_within(&fresh, WAIT_S);
	/* Socket releases: the notifier runs for every genl socket. */
	bare_done = cst_req_within(&bare, WAIT_S);
	/* s2 is other's: closed once other is done with it. */
	close_done = other_done && cst_req_within(&closing, WAIT_S);

	/* Let the holder go: the stuck READ completes. */
	EXPECT_EQ(0, cst_hold_end(&self->hold));
	pthread_join(stuck.thread, NULL);
	pthread_join(other.thread, NULL);
	pthread_join(stats.thread, NULL);
	pthread_join(fresh.thread, NULL);
	pthread_join(bare.thread, NULL);
	if (other_done) {
		pthread_join(closing.thread, NULL);
		self->open2 = false;
	}

	EXPECT_TRUE(other_done) TH_LOG("another session's READ waited for the stuck one");
	EXPECT_TRUE(bare_done) TH_LOG("closing a genl socket without sessions waited for the stuck READ");
	EXPECT_TRUE(close_done) TH_LOG("closing another session's socket waited for the stuck READ");
	EXPECT_TRUE(stats_done) TH_LOG("STATS waited for the stuck READ");
	EXPECT_TRUE(fresh_done) TH_LOG("a SESSION_NEW on another target waited for the stuck READ");
	EXPECT_EQ(0, other.ret);
	EXPECT_EQ(0, stats.ret);
	EXPECT_EQ(0, fresh.ret);
	free(r);
}

#define FAMILY	"wireguard"

/*
 * @stuck waits for the held target (the fixture's page holds its perf
 * mutex) in a handler under genetlink's cb_lock; a family's registration
 * then waits for cb_lock, and every genl request behind it. Another genl
 * request and the registration must complete within WAIT_S, and @stuck
 * must return @want while the target is still held. Once the page is
 * filled, what @stuck left to a worker finishes: the module's references
 * are back to @ref0, the live sessions to @live_after.
 */
static void genl_goes_on(struct __test_metadata *_metadata,
			 FIXTURE_DATA(stall) *self, struct cst_req *stuck,
			 int want, long ref0, long live_after)
{
	struct cst_req reg = { .fn = cst_req_getfamily, .family = FAMILY };
	struct cst_req other = { .fn = cst_req_getfamily, .family = "nlctrl" };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	bool other_done, reg_done, stuck_done, reg_waits = false;
	long live, ref = -1;
	int i;

	ASSERT_EQ(0, cst_hold_begin(&self->hold, self->perf_fd))
		TH_LOG("the holder's read did not fault");

	/* The request on the held target, then a registration behind it. */
	EXPECT_FALSE(cst_req_within(stuck, 0));
	EXPECT_TRUE(cst_req_blocked(stuck)) TH_LOG("the request on the held target is not waiting");
	EXPECT_FALSE(cst_req_within(&reg, 0));
	/* Until the registration waits behind the request (or got through). */
	for (i = 0; i < 3000 && !reg.done && !reg_waits; i++) {
		reg_waits = cst_registration_waits();
		nanosleep(&ts, NULL);
	}
	other_done = cst_req_within(&other, WAIT_S);
	for (i = 0; i < WAIT_S * 100 && !(reg.done && stuck->done); i++)
		nanosleep(&ts, NULL);
	reg_done = reg.done;
	/* Before the page is filled: what it returned while held. */
	stuck_done = stuck->done;

	EXPECT_EQ(0, cst_hold_end(&self->hold));
	pthread_join(stuck->thread, NULL);
	pthread_join(reg.thread, NULL);
	pthread_join(other.thread, NULL);
	if (reg.ret < 0 && !reg_waits)
		SKIP(return, "looking up %s loaded no module (%d): no registration to wait behind the request",
		     FAMILY, reg.ret);

	EXPECT_TRUE(other_done)
		TH_LOG("a genl request waited %s behind a family's registration, which waited for the request on the held target",
		       reg_waits ? "(modprobe's stack in genl_register_family)" : "");
	EXPECT_TRUE(reg_done) TH_LOG("%s's registration waited for the request on the held target", FAMILY);
	EXPECT_TRUE(stuck_done) TH_LOG("the request on the held target did not give up while it was held");
	EXPECT_EQ(want, stuck->ret) TH_LOG("the request on the held target returned %d", stuck->ret);
	EXPECT_LE(0, reg.ret);
	EXPECT_LE(0, other.ret);
	/* What the request left to a worker lets go once the page is there. */
	for (i = 0; i < 500 && (ref = cst_module_refs()) != ref0; i++)
		nanosleep(&ts, NULL);
	EXPECT_EQ(ref0, ref) TH_LOG("a given-up request's worker still holds the module");
	live = cst_live_sessions();
	EXPECT_EQ(live_after, live) TH_LOG("live sessions after the held target let go");
}

/* The registration must be one this test starts: false (skipped) if not. */
static bool family_unloaded(struct __test_metadata *_metadata)
{
	if (!access("/sys/module/" FAMILY, F_OK) &&
	    syscall(SYS_delete_module, FAMILY, O_NONBLOCK)) {
		SKIP(return false, "%s is loaded and in use: no registration to start (%s)",
		     FAMILY, strerror(errno));
	}
	return true;
}

TEST_F_TIMEOUT(stall, genl_goes_on_while_a_new_waits_for_its_target, 120)
{
	struct cst_req stuck = { .fn = cst_req_new_proof, .s = &self->s1,
				 .ev = &ev };
	long live0, ref0;

	if (!family_unloaded(_metadata))
		return;
	live0 = cst_live_sessions();
	ASSERT_LE(0, live0);
	ref0 = cst_module_refs();
	ASSERT_LE(0, ref0);
	stuck.pid = self->target.pid;
	stuck.proof_fd = self->perf_fd;
	/* It gives up and leaves no session behind. */
	genl_goes_on(_metadata, self, &stuck, -EAGAIN, ref0, live0);
	syscall(SYS_delete_module, FAMILY, O_NONBLOCK);
}

/*
 * A session on the target, started if @started, then @cmd on it while
 * the target is held: it gives up with @want, or for DEL, returns 0 and
 * its session is gone at once. What it left to do is done once the target
 * lets go: a STOP or START asked again finds it done (-EALREADY).
 */
static void session_cmd_held(struct __test_metadata *_metadata,
			     FIXTURE_DATA(stall) *self, uint8_t cmd,
			     bool started, int want)
{
	struct cst_req stuck = { .fn = cst_req_cmd, .s = &self->s1,
				 .cmd = cmd };
	struct cst_res *r = calloc(1, sizeof(*r));
	long live0, ref0;

	ASSERT_NE(NULL, r);
	if (!family_unloaded(_metadata))
		goto out;
	live0 = cst_live_sessions();
	ASSERT_LE(0, live0);
	ASSERT_EQ(0, cst_new(&self->s1, self->target.pid, 0, &ev, 1, r, NULL));
	stuck.id = r->id;
	if (started)
		ASSERT_EQ(0, cst_cmd(&self->s1, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL));
	ref0 = cst_module_refs();
	ASSERT_LE(0, ref0);
	genl_goes_on(_metadata, self, &stuck, want,
		     ref0, cmd == CTXCOUNT_CMD_SESSION_DEL ? live0 : live0 + 1);
	if (cmd == CTXCOUNT_CMD_SESSION_START || cmd == CTXCOUNT_CMD_SESSION_STOP) {
		EXPECT_EQ(-EALREADY, cst_cmd(&self->s1, cmd, r->id, NULL, NULL))
			TH_LOG("the given-up command was not carried out once the target let go");
	}
	/* The session answers again, or is gone. */
	EXPECT_EQ(cmd == CTXCOUNT_CMD_SESSION_DEL ? -ENOENT : 0,
		  cst_cmd(&self->s1, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	syscall(SYS_delete_module, FAMILY, O_NONBLOCK);
out:
	free(r);
}

TEST_F_TIMEOUT(stall, genl_goes_on_while_a_read_waits_for_its_target, 120)
{
	session_cmd_held(_metadata, self, CTXCOUNT_CMD_SESSION_READ, true, -EAGAIN);
}

TEST_F_TIMEOUT(stall, genl_goes_on_while_a_start_waits_for_its_target, 120)
{
	session_cmd_held(_metadata, self, CTXCOUNT_CMD_SESSION_START, false, -EAGAIN);
}

TEST_F_TIMEOUT(stall, genl_goes_on_while_a_stop_waits_for_its_target, 120)
{
	session_cmd_held(_metadata, self, CTXCOUNT_CMD_SESSION_STOP, true, -EAGAIN);
}

TEST_F_TIMEOUT(stall, genl_goes_on_while_a_del_waits_for_its_target, 120)
{
	session_cmd_held(_metadata, self, CTXCOUNT_CMD_SESSION_DEL, true, 0);
}

CST_TEST_MAIN
