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
 * where the kernel has none (the debug kernel), saying so.
 *
 * In detail: the stuck READ waits in state D; the test waits until
 * modprobe's kernel stack is in genl_register_family, and the registration
 * completes too; once the page is filled the given-up NEW's worker lets go
 * of the module and leaves no session (skipped when wireguard is loaded and
 * in use, or when looking it up loads nothing).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <linux/perf_event.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <linux/userfaultfd.h>

#include "kselftest_harness.h"
#include "cst.h"

#define WAIT_S	10

static const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");

static void idle_fn(void *arg)
{
	for (;;)
		pause();
}

/* A request made from a thread of its own, with a socket of its own. */
struct req {
	pthread_t thread;
	int (*fn)(struct req *q);
	struct cst_sock *s;	/* READ: the session's own socket */
	uint32_t id;		/* the session READ asks for */
	pid_t pid;		/* the target NEW asks for */
	int proof_fd;		/* NEW's proof (do_new_proof()) */
	const char *family;	/* GETFAMILY's (do_getfamily()) */
	uint8_t cmd;		/* do_cmd()'s command */
	int ret;
	volatile pid_t tid;
	volatile int done;
};

/* Through the session's socket, which no other thread uses meanwhile. */
static int do_read(struct req *q)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = cst_read(q->s, q->id, 0, r, NULL);
	free(r);
	return ret;
}

static int do_stats(struct req *q)
{
	return cst_live_sessions() < 0;
}

static int do_new(struct req *q)
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

/* SESSION_NEW on the target with the fixture's proof, opened before the hold. */
static int do_new_proof(struct req *q)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	ret = cst_new_proof(q->s, q->pid, 0, &ev, q->proof_fd, r, NULL);
	free(r);
	return ret;
}

/* A generic netlink request of the controller's: look up @q->family. */
static int do_getfamily(struct req *q)
{
	struct nl_sock *sk = nl_socket_alloc();
	int ret;

	if (!sk)
		return -ENOMEM;
	ret = genl_connect(sk);
	if (!ret)
		ret = genl_ctrl_resolve(sk, q->family);
	nl_socket_free(sk);
	return ret;
}

/* A generic netlink socket with no session, opened and closed. */
static int do_close_fresh(struct req *q)
{
	struct cst_sock s;

	if (cst_open(&s))
		return -ENOMEM;
	cst_close(&s);
	return 0;
}

/* Close @q->s, whose session is on another target: NETLINK_URELEASE. */
static int do_close(struct req *q)
{
	cst_close(q->s);
	return 0;
}

static void *req_thread(void *arg)
{
	struct req *q = arg;

	q->tid = syscall(SYS_gettid);
	q->ret = q->fn(q);
	q->done = 1;
	return NULL;
}

/* Start @q; wait up to @s seconds for it to finish. True if it did. */
static bool req_within(struct req *q, int s)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	int i;

	if (pthread_create(&q->thread, NULL, req_thread, q))
		return false;
	for (i = 0; i < s * 100 && !q->done; i++)
		nanosleep(&ts, NULL);
	return q->done;
}

/* @q's thread in state D (waiting on a mutex) within 5 s. */
static bool thread_blocked(struct req *q)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	char path[64], buf[256], *p;
	int i, fd;
	ssize_t n;

	for (i = 0; i < 500 && !q->tid; i++)
		nanosleep(&ts, NULL);
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", q->tid);
	for (i = 0; i < 500; i++) {
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n > 0) {
			buf[n] = 0;
			p = strrchr(buf, ')');
			if (p && p[1] == ' ' && p[2] == 'D')
				return true;
		}
		nanosleep(&ts, NULL);
	}
	return false;
}

/* The holder: reads @fd into the userfaultfd page, so it waits holding ctx->mutex. */
struct holder {
	pthread_t thread;
	int fd;
	void *page;
	ssize_t ret;
};

static void *holder_thread(void *arg)
{
	struct holder *h = arg;

	h->ret = read(h->fd, h->page, sizeof(uint64_t));
	return NULL;
}

FIXTURE(stall) {
	int kmsg, uffd, perf_fd;
	void *page;
	long psz;
	struct cst_child target, other;
	struct cst_sock s1, s2;
	bool open1, open2;
};

FIXTURE_SETUP(stall)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg = { };
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};

	self->kmsg = cst_kmsg_open();
	self->open1 = self->open2 = false;
	self->target.pid = self->other.pid = 0;
	self->perf_fd = -1;
	self->uffd = syscall(SYS_userfaultfd, O_CLOEXEC);
	if (self->uffd < 0)
		SKIP(return, "no userfaultfd here (%s): nothing holds a target's perf mutex on request",
		     strerror(errno));
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_API, &api));
	self->psz = sysconf(_SC_PAGESIZE);
	self->page = mmap(NULL, self->psz, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->page);
	reg.range.start = (unsigned long)self->page;
	reg.range.len = self->psz;
	reg.mode = UFFDIO_REGISTER_MODE_MISSING;
	ASSERT_EQ(0, ioctl(self->uffd, UFFDIO_REGISTER, &reg)) TH_LOG("%s", strerror(errno));
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
	struct holder h = { .fd = self->perf_fd, .page = self->page };
	struct req stuck = { .fn = do_read }, other = { .fn = do_read };
	struct req stats = { .fn = do_stats }, fresh = { .fn = do_new };
	struct req bare = { .fn = do_close_fresh };
	struct req closing = { .fn = do_close, .s = &self->s2 };
	struct uffdio_zeropage zero = { };
	struct pollfd pfd = { .fd = self->uffd, .events = POLLIN };
	struct uffd_msg msg;
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
	ASSERT_EQ(0, pthread_create(&h.thread, NULL, holder_thread, &h));
	ASSERT_EQ(1, poll(&pfd, 1, 5000)) TH_LOG("the holder's read did not fault");
	ASSERT_EQ(sizeof(msg), read(self->uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* A READ of the target's session waits for that mutex. */
	EXPECT_FALSE(req_within(&stuck, 0));
	EXPECT_TRUE(thread_blocked(&stuck)) TH_LOG("the READ of the target's session is not waiting");

	other_done = req_within(&other, WAIT_S);
	stats_done = req_within(&stats, WAIT_S);
	fresh_done = req_within(&fresh, WAIT_S);
	/* Socket releases: the notifier runs for every genl socket. */
	bare_done = req_within(&bare, WAIT_S);
	/* s2 is other's: closed once other is done with it. */
	close_done = other_done && req_within(&closing, WAIT_S);

	/* Let the holder go: the stuck READ completes. */
	zero.range.start = (unsigned long)self->page;
	zero.range.len = self->psz;
	EXPECT_EQ(0, ioctl(self->uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(h.thread, NULL);
	EXPECT_EQ(sizeof(uint64_t), h.ret);
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

/* Is a modprobe waiting in genl_register_family() (its kernel stack, which root may read)? */
static bool registration_waits(void)
{
	char path[300], buf[4096];
	struct dirent *d;
	bool found = false;
	ssize_t n;
	DIR *proc;
	int fd;

	proc = opendir("/proc");
	if (!proc)
		return false;
	while (!found && (d = readdir(proc))) {
		if (d->d_name[0] < '1' || d->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n <= 0 || strncmp(buf, "modprobe\n", 9))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stack", d->d_name);
		fd = open(path, O_RDONLY);
		n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);
		if (fd >= 0)
			close(fd);
		if (n < 0)
			continue;
		buf[n] = 0;
		found = strstr(buf, "genl_register_family");
	}
	closedir(proc);
	return found;
}

#define FAMILY	"wireguard"

/* The module's references: a SESSION_NEW's worker holds one. */
static long module_refs(void)
{
	FILE *f = fopen("/sys/module/ctxcount/refcnt", "r");
	long n = -1;

	if (f) {
		if (fscanf(f, "%ld", &n) != 1)
			n = -1;
		fclose(f);
	}
	return n;
}

/* A command of the session's, through its socket: q->cmd on q->id. */
static int do_cmd(struct req *q)
{
	return cst_cmd(q->s, q->cmd, q->id, NULL, NULL);
}

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
			 FIXTURE_DATA(stall) *self, struct req *stuck,
			 int want, long ref0, long live_after)
{
	struct holder h = { .fd = self->perf_fd, .page = self->page };
	struct req reg = { .fn = do_getfamily, .family = FAMILY };
	struct req other = { .fn = do_getfamily, .family = "nlctrl" };
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct uffdio_zeropage zero = { };
	struct pollfd pfd = { .fd = self->uffd, .events = POLLIN };
	bool other_done, reg_done, stuck_done, reg_waits = false;
	struct uffd_msg msg;
	long live, ref = -1;
	int i;

	ASSERT_EQ(0, pthread_create(&h.thread, NULL, holder_thread, &h));
	ASSERT_EQ(1, poll(&pfd, 1, 5000)) TH_LOG("the holder's read did not fault");
	ASSERT_EQ(sizeof(msg), read(self->uffd, &msg, sizeof(msg)));
	ASSERT_EQ(UFFD_EVENT_PAGEFAULT, msg.event);

	/* The request on the held target, then a registration behind it. */
	EXPECT_FALSE(req_within(stuck, 0));
	EXPECT_TRUE(thread_blocked(stuck)) TH_LOG("the request on the held target is not waiting");
	EXPECT_FALSE(req_within(&reg, 0));
	/* Until the registration waits behind the request (or got through). */
	for (i = 0; i < 3000 && !reg.done && !reg_waits; i++) {
		reg_waits = registration_waits();
		nanosleep(&ts, NULL);
	}
	other_done = req_within(&other, WAIT_S);
	for (i = 0; i < WAIT_S * 100 && !(reg.done && stuck->done); i++)
		nanosleep(&ts, NULL);
	reg_done = reg.done;
	/* Before the page is filled: what it returned while held. */
	stuck_done = stuck->done;

	zero.range.start = (unsigned long)self->page;
	zero.range.len = self->psz;
	EXPECT_EQ(0, ioctl(self->uffd, UFFDIO_ZEROPAGE, &zero));
	pthread_join(h.thread, NULL);
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
	for (i = 0; i < 500 && (ref = module_refs()) != ref0; i++)
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
	struct req stuck = { .fn = do_new_proof, .s = &self->s1 };
	long live0, ref0;

	if (!family_unloaded(_metadata))
		return;
	live0 = cst_live_sessions();
	ASSERT_LE(0, live0);
	ref0 = module_refs();
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
	struct req stuck = { .fn = do_cmd, .s = &self->s1, .cmd = cmd };
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
	ref0 = module_refs();
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
