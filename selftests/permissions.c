// SPDX-License-Identifier: GPL-2.0
/*
 * Who may count what (docs/design/permissions.md): perf_event_open(2)
 * decides, on the proofs the client opens itself, and the module never
 * allows more. As uid/gid 65534, at kernel.perf_event_paranoid 3 to -1:
 * for each target (own process, a non-dumpable own process, root's
 * process, system wide) and each event (all modes, user only), the
 * session is created exactly when perf_event_open() gives the proof, and
 * counts; when perf refuses, every proof the user can get instead (of its
 * own process, of the user-mode event, none at all) is refused by the
 * module with -EACCES and a message. Root counts whatever paranoid says;
 * tracepoint and breakpoint events count for 65534 exactly when perf
 * gives their proofs. The differential test against perf stat itself is
 * perm_diff.
 *
 * Also: ctxstat as 65534 counts task-clock:u at paranoid 2, is refused -a
 * at 2 and everything at 3 with perf's message (the setting, CAP_PERFMON);
 * a thread that took other credentials (raw setresuid) is left out of its
 * process's set (TASKS_NOW 1).
 */
#include <errno.h>
#include <stdio.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534

static const struct cst_ev ev_full = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
static const struct cst_ev ev_user = CST_EV_SW(TASK_CLOCK, CST_F_USER_ONLY,
					       "task-clock:u");

enum target {
	OWN,		/* the unprivileged process itself */
	OWN_NOT_DUMPABLE,	/* another of its processes, not dumpable */
	ROOT_PROCESS,	/* pid 1 */
	SYSTEM_WIDE,
};

/* What the unprivileged child saw, in shared memory. */
struct outcome {
	int perf_fd_err;	/* perf_event_open() of the real proof: 0 or -errno */
	int ret;		/* SESSION_NEW with it */
	int start_ret;
	int ev_error;		/* the event's CTXCOUNT_EVENT_A_ERROR */
	uint64_t full;		/* after START and 50 ms of spinning */
	struct cst_ack ack;
	/* when perf refused: the stand-ins the module must refuse */
	int nr_cheats;
	int cheat_ret[3];
	bool cheat_msg[3];
	char cheat_what[3][48];
};

struct req {
	enum target target;
	const struct cst_ev *ev;
	struct outcome *o;
	pid_t other;		/* OWN_NOT_DUMPABLE's process */
};

static int target_pid(const struct req *q)
{
	switch (q->target) {
	case SYSTEM_WIDE:
		return -1;
	case ROOT_PROCESS:
		return 1;
	case OWN_NOT_DUMPABLE:
		return q->other;
	default:
		return getpid();
	}
}

static uint32_t target_flags(enum target t)
{
	return t == SYSTEM_WIDE ? CTXCOUNT_TARGET_F_SYSTEM_WIDE : 0;
}

/* The real proof was given: the session must be created and count. */
static void counted(struct cst_sock *s, const struct req *q, int fd,
		    struct cst_res *r)
{
	struct outcome *o = q->o;

	o->ret = cst_new_fds(s, target_pid(q), target_flags(q->target),
			     q->ev, 1, &fd, r, &o->ack);
	if (o->ret)
		return;
	o->ev_error = r->nev == 1 ? r->ev[0].error : -EPROTO;
	o->start_ret = cst_cmd(s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL);
	cst_spin_ms(50);
	if (!cst_cmd(s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL) && r->nev == 1)
		o->full = r->ev[0].full;
}

static void cheat(struct cst_sock *s, const struct req *q, int fd,
		  const char *what)
{
	struct outcome *o = q->o;
	int i = o->nr_cheats++;
	struct cst_ack ack;

	snprintf(o->cheat_what[i], sizeof(o->cheat_what[i]), "%s", what);
	o->cheat_ret[i] = cst_new_fds(s, target_pid(q),
				      target_flags(q->target), q->ev, 1, &fd,
				      NULL, &ack);
	o->cheat_msg[i] = ack.from_kernel && ack.has_msg;
	if (fd >= 0)
		close(fd);
}

/* perf refused: what else could the user show the module? */
static void cheats(struct cst_sock *s, const struct req *q)
{
	cheat(s, q, -1, "no proof");
	/* its own process's proof, for another target */
	if (q->target != OWN)
		cheat(s, q, cst_proof_open(getpid(), 0, q->ev),
		      "a proof of its own process");
	/* the user-mode event's proof, for counting the kernel too */
	if (q->ev != &ev_user)
		cheat(s, q, cst_proof_open(target_pid(q),
					   target_flags(q->target), &ev_user),
		      "the user-mode event's proof");
}

/* Another process of the user that is not dumpable (ptrace refuses it). */
static pid_t not_dumpable_child(int *hold)
{
	int p[2], ready[2];
	pid_t pid;
	char c;

	if (pipe(p) || pipe(ready))
		return -1;
	pid = fork();
	if (pid == 0) {
		close(p[1]);
		close(ready[0]);
		prctl(PR_SET_DUMPABLE, 0);
		write(ready[1], "x", 1);
		read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	close(ready[1]);
	if (pid < 0 || read(ready[0], &c, 1) != 1)
		pid = -1;
	close(ready[0]);
	*hold = p[1];
	return pid;
}

static int try_session(void *arg)
{
	struct req *q = arg;
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	int fd, hold = -1;

	if (!r || cst_open(&s))
		return 1;
	if (q->target == OWN_NOT_DUMPABLE) {
		q->other = not_dumpable_child(&hold);
		if (q->other < 0)
			return 2;
	}
	fd = cst_proof_open(target_pid(q), target_flags(q->target), q->ev);
	q->o->perf_fd_err = fd < 0 ? fd : 0;
	if (fd >= 0) {
		counted(&s, q, fd, r);
		close(fd);
	} else {
		cheats(&s, q);
	}
	if (hold >= 0) {
		close(hold);
		waitpid(q->other, NULL, 0);
	}
	cst_close(&s);
	free(r);
	return 0;
}

FIXTURE(perm) {
	long saved_paranoid;
	struct outcome *o;
	int kmsg;
};

FIXTURE_SETUP(perm)
{
	self->kmsg = cst_kmsg_open();
	self->o = mmap(NULL, sizeof(*self->o), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->o);
	ASSERT_EQ(0, cst_paranoid_get(&self->saved_paranoid));
}

FIXTURE_TEARDOWN(perm)
{
	EXPECT_EQ(0, cst_paranoid_set(self->saved_paranoid));
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

FIXTURE_VARIANT(perm) {
	int paranoid;
	enum target target;
	bool user_only;
};

#define PERM_CASES(p, pn)						\
FIXTURE_VARIANT_ADD(perm, own_user_##pn) {				\
	.paranoid = p, .target = OWN, .user_only = true };		\
FIXTURE_VARIANT_ADD(perm, own_all_##pn) {				\
	.paranoid = p, .target = OWN };					\
FIXTURE_VARIANT_ADD(perm, own_not_dumpable_##pn) {			\
	.paranoid = p, .target = OWN_NOT_DUMPABLE, .user_only = true };	\
FIXTURE_VARIANT_ADD(perm, root_process_##pn) {				\
	.paranoid = p, .target = ROOT_PROCESS, .user_only = true };	\
FIXTURE_VARIANT_ADD(perm, system_wide_user_##pn) {			\
	.paranoid = p, .target = SYSTEM_WIDE, .user_only = true };	\
FIXTURE_VARIANT_ADD(perm, system_wide_all_##pn) {			\
	.paranoid = p, .target = SYSTEM_WIDE }

PERM_CASES(3, paranoid3);
PERM_CASES(2, paranoid2);
PERM_CASES(1, paranoid1);
PERM_CASES(0, paranoid0);
PERM_CASES(-1, paranoid_minus1);

static const char *const target_names[] = {
	"own process", "another own, non-dumpable process", "pid 1 (root's)",
	"system wide",
};

TEST_F(perm, unprivileged)
{
	struct req q = {
		.target = variant->target,
		.ev = variant->user_only ? &ev_user : &ev_full,
		.o = self->o,
	};
	struct outcome *o = self->o;
	int i;

	memset(o, 0, sizeof(*o));
	ASSERT_EQ(0, cst_paranoid_set(variant->paranoid));
	ASSERT_EQ(0, cst_call_as(NOBODY, NOBODY, try_session, &q));
	TH_LOG("uid 65534, paranoid %d, %s, %s: perf_event_open %s, session %d%s%s",
	       variant->paranoid, target_names[variant->target], q.ev->name,
	       o->perf_fd_err ? strerror(-o->perf_fd_err) : "gives the proof",
	       o->ret, o->ack.has_msg ? ": " : "", o->ack.msg);
	if (!o->perf_fd_err) {
		/* perf allows it: so does the module, and it counts */
		EXPECT_EQ(0, o->ret);
		EXPECT_EQ(0, o->start_ret);
		EXPECT_EQ(0, o->ev_error) TH_LOG("the event failed: %s",
						 strerror(-o->ev_error));
		EXPECT_LT(0, o->full);
		return;
	}
	EXPECT_TRUE(o->perf_fd_err == -EACCES || o->perf_fd_err == -EPERM);
	for (i = 0; i < o->nr_cheats; i++) {
		TH_LOG("  with %s instead: %d", o->cheat_what[i],
		       o->cheat_ret[i]);
		EXPECT_EQ(-EACCES, o->cheat_ret[i]);
		EXPECT_TRUE(o->cheat_msg[i]) TH_LOG("refused without a message");
	}
}

/* Cases that do not depend on a variant. */
FIXTURE(perm_misc) {
	long saved_paranoid;
	int kmsg;
};

FIXTURE_SETUP(perm_misc)
{
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_paranoid_get(&self->saved_paranoid));
}

FIXTURE_TEARDOWN(perm_misc)
{
	EXPECT_EQ(0, cst_paranoid_set(self->saved_paranoid));
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* Root has CAP_PERFMON: perf, and so the module, ignore paranoid 3. */
TEST_F(perm_misc, root_ignores_paranoid)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack;
	struct cst_sock s;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_paranoid_set(3));
	ASSERT_EQ(0, cst_open(&s));
	EXPECT_EQ(0, cst_new(&s, 1, 0, &ev_full, 1, r, &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, cst_new(&s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, &ev_full, 1,
			     r, &ack)) TH_LOG("%s", ack.msg);
	cst_close(&s);
	free(r);
}

/* ctxstat run by an unprivileged user, at paranoid 2 and 3. */
TEST_F(perm_misc, ctxstat_unprivileged)
{
	char *ok_argv[] = { (char *)cst_ctxstat_path(), "-x,", "-e", "task-clock:u",
			    "--", (char *)cst_workload_path(), "spin", "50", NULL };
	char *sw_argv[] = { (char *)cst_ctxstat_path(), "-a", "-e", "cpu-clock",
			    "--", "/bin/true", NULL };
	struct cst_run *run = calloc(1, sizeof(*run));
	struct cst_csv_row row;

	ASSERT_NE(NULL, run);
	if (access(ok_argv[0], X_OK))
		SKIP(return, "ctxstat not found at %s", ok_argv[0]);
	ASSERT_EQ(0, cst_paranoid_set(2));
	cst_run_as(run, ok_argv, 60, NOBODY, NOBODY);
	EXPECT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("ctxstat -e task-clock:u as uid 65534: 0x%x\n%s",
		       run->status, run->err);
	EXPECT_EQ(0, cst_csv_find(run->err, ',', "task-clock:u", &row))
		TH_LOG("%s", run->err);
	EXPECT_TRUE(row.numeric && row.value > 0) TH_LOG("value '%s'", row.f[0]);

	cst_run_as(run, sw_argv, 60, NOBODY, NOBODY);
	EXPECT_FALSE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("ctxstat -a as uid 65534 succeeded");
	EXPECT_NE(NULL, strstr(run->err, "perf_event_paranoid setting is 2"))
		TH_LOG("stderr:\n%s", run->err);
	EXPECT_NE(NULL, strstr(run->err, "CAP_PERFMON")) TH_LOG("stderr:\n%s", run->err);
	TH_LOG("ctxstat -a as uid 65534: %.*s", (int)strcspn(run->err, "\n"),
	       run->err);

	/* Debian's default: refused, and told which sysctl would allow it */
	ASSERT_EQ(0, cst_paranoid_set(3));
	cst_run_as(run, ok_argv, 60, NOBODY, NOBODY);
	EXPECT_FALSE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0);
	EXPECT_NE(NULL, strstr(run->err, "perf_event_paranoid setting is 3"))
		TH_LOG("stderr:\n%s", run->err);
	free(run);
}

static volatile int thread_ready;

/* A thread that takes other credentials than its process's leader. */
static void *other_creds_thread(void *arg)
{
	/* the raw syscall: glibc's setresuid() would change every thread */
	if (syscall(SYS_setresuid, NOBODY, NOBODY, NOBODY))
		return NULL;
	thread_ready = 1;
	while (thread_ready != 2)
		usleep(1000);
	return arg;
}

/*
 * perf stat -p opens an event per thread, each checked for access: a
 * thread whose credentials differ from the proven one's is not covered by
 * its proof and is left out of the set (TASKS_NOW).
 */
TEST_F(perm_misc, thread_with_other_credentials_left_out)
{
	const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	pthread_t t;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, pthread_create(&t, NULL, other_creds_thread, NULL));
	while (!thread_ready)
		usleep(1000);
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_new(&s, getpid(), 0, &ev, 1, r, NULL));
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL));
	EXPECT_TRUE(r->has_now);
	EXPECT_EQ(1, r->tasks_now) TH_LOG("the thread running as 65534 was added");
	thread_ready = 2;
	pthread_join(t, NULL);
	cst_close(&s);
	free(r);
}

/* What uid 65534's STATS says: sessions before and after one of its own. */
struct stats_as_user {
	long before, own;
};

static int stats_as_user(void *arg)
{
	const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
	struct stats_as_user *o = arg;
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;

	if (!r || cst_open(&s))
		return 1;
	o->before = cst_live_sessions();
	if (cst_new(&s, getpid(), 0, &ev, 1, r, NULL))
		return 2;
	o->own = cst_live_sessions();
	cst_close(&s);
	return 0;
}

/*
 * STATS tells a user the sessions it has, not how many everyone has (as
 * perf tells nobody of other users' events); root, every session.
 */
TEST_F(perm_misc, stats_counts_a_users_own_sessions)
{
	const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
	struct stats_as_user *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct cst_res *r = calloc(1, sizeof(*r));
	long base = cst_live_sessions();
	struct cst_sock s;

	ASSERT_NE(MAP_FAILED, o);
	ASSERT_NE(NULL, r);
	ASSERT_LE(0, base);
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_new(&s, getpid(), 0, &ev, 1, r, NULL));
	EXPECT_EQ(base + 1, cst_live_sessions());
	/* At 1 perf gives the user its own process. */
	ASSERT_EQ(0, cst_paranoid_set(1));
	ASSERT_EQ(0, cst_call_as(65534, 65534, stats_as_user, o));
	EXPECT_EQ(0, o->before) TH_LOG("uid 65534 was told of root's sessions");
	EXPECT_EQ(1, o->own);
	cst_close(&s);
	munmap(o, sizeof(*o));
	free(r);
}

struct tp_outcome {
	int proof_err, ret, ev_error;
	bool msg;
};

static int try_event(void *arg)
{
	const struct cst_ev *ev = arg;
	struct tp_outcome *o = (void *)((char *)arg + sizeof(*ev));
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack;
	struct cst_sock s;
	int fd;

	if (!r || cst_open(&s))
		return 1;
	fd = cst_proof_open(getpid(), 0, ev);
	o->proof_err = fd < 0 ? fd : 0;
	if (fd < 0)
		fd = -1;
	o->ret = cst_new_fds(&s, getpid(), 0, ev, 1, &fd, r, &ack);
	o->msg = ack.from_kernel && ack.has_msg;
	if (!o->ret)
		o->ev_error = r->nev == 1 ? r->ev[0].error : -EPROTO;
	if (fd >= 0)
		close(fd);
	cst_close(&s);
	free(r);
	return 0;
}

/*
 * Tracepoint events (ftrace:function among them) and breakpoints: the
 * perf core checks them against the task that opens them, which is the
 * user for the proof (the module's counters come from a kernel thread).
 * 65534 gets them exactly when perf gives the proof; root gets the
 * tracepoint.
 */
TEST_F(perm_misc, tracepoint_events_unprivileged)
{
	long id = cst_tracepoint_id("sched/sched_switch");
	struct {
		struct cst_ev ev;
		struct tp_outcome o;
	} *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
		     MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	const struct cst_ev tp = { PERF_TYPE_TRACEPOINT, 0, CST_F_USER_ONLY,
				   "sched:sched_switch:u" };
	const struct cst_ev bp = { PERF_TYPE_BREAKPOINT, 0, CST_F_USER_ONLY,
				   "breakpoint:u" };
	int i;

	ASSERT_NE(MAP_FAILED, sh);
	if (id < 0)
		SKIP(return, "no tracefs: sched/sched_switch/id not found");
	sh->ev = tp;
	sh->ev.config = id;
	/* root: the tracepoint counts */
	EXPECT_EQ(0, cst_event_error(&sh->ev));
	ASSERT_EQ(0, cst_paranoid_set(1));
	for (i = 0; i < 2; i++) {
		if (i)
			sh->ev = bp;
		memset(&sh->o, 0, sizeof(sh->o));
		ASSERT_EQ(0, cst_call_as(NOBODY, NOBODY, try_event, sh));
		TH_LOG("%s as 65534: perf_event_open %d, session %d, event %d",
		       sh->ev.name, sh->o.proof_err, sh->o.ret, sh->o.ev_error);
		if (!sh->o.proof_err) {
			EXPECT_EQ(0, sh->o.ret);
			EXPECT_EQ(0, sh->o.ev_error);
		} else {
			EXPECT_EQ(-EACCES, sh->o.ret);
			EXPECT_TRUE(sh->o.msg);
		}
	}
	munmap(sh, sizeof(*sh));
}

CST_TEST_MAIN
