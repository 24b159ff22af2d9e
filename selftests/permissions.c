// SPDX-License-Identifier: GPL-2.0
/*
 * Who may count what (DESIGN.md "Permissions"): an unprivileged user
 * (uid/gid 65534) is refused on a root-owned process and system wide, with
 * an extack naming the capability, and allowed on its own dumpable process
 * as far as the module's `paranoid` parameter allows (>= 3 nothing, 2
 * user-space-only events, <= 1 all events). Root is not limited by it.
 */
#include <errno.h>
#include <stdio.h>
#include <grp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534

static const struct cst_ev ev_full = CST_EV_SW(TASK_CLOCK, 0, "task-clock");
static const struct cst_ev ev_user = CST_EV_SW(TASK_CLOCK, CST_F_USER_ONLY,
					       "task-clock:u");

/* What the unprivileged child saw, in shared memory. */
struct outcome {
	int ran;
	int ret;
	int start_ret;
	int ev_error;		/* the event's CTXCOUNT_EVENT_A_ERROR */
	uint64_t full;		/* after START and 50 ms of spinning */
	struct cst_ack ack;
};

struct req {
	int pid;		/* 0: the unprivileged process itself */
	uint32_t tflags;
	const struct cst_ev *ev;
	bool dumpable;
};

static void try_session(const struct req *q, struct outcome *o)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;

	o->ran = 1;
	o->ret = -EPROTO;
	if (!r || cst_open(&s))
		return;
	o->ret = cst_new(&s, q->pid ? q->pid : getpid(), q->tflags, q->ev, 1, r,
			 &o->ack);
	if (!o->ret) {
		uint32_t id = r->id;

		o->ev_error = r->nev == 1 ? r->ev[0].error : -EPROTO;
		o->start_ret = cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id,
				       NULL, NULL);
		cst_spin_ms(50);
		if (!cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, id, r, NULL) &&
		    r->nev == 1)
			o->full = r->ev[0].full;
	}
	cst_close(&s);
	free(r);
}

/* Run q as uid/gid 65534 in a child; the outcome comes back through o. */
static int as_nobody(const struct req *q, struct outcome *o)
{
	pid_t pid;
	int status;

	memset(o, 0, sizeof(*o));
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (setgroups(0, NULL) || setresgid(NOBODY, NOBODY, NOBODY) ||
		    setresuid(NOBODY, NOBODY, NOBODY))
			_exit(1);
		/* changing credentials cleared it; a user's own process has it */
		prctl(PR_SET_DUMPABLE, q->dumpable ? 1 : 0);
		try_session(q, o);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -ECHILD;
	return o->ran ? 0 : -ECHILD;
}

static bool names_capability(const char *msg)
{
	return strstr(msg, "CAP_PERFMON") || strstr(msg, "CAP_SYS_ADMIN");
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
	ASSERT_EQ(0, cst_param_get("paranoid", &self->saved_paranoid))
		TH_LOG("/sys/module/ctxcount/parameters/paranoid missing");
}

FIXTURE_TEARDOWN(perm)
{
	EXPECT_EQ(0, cst_param_set("paranoid", self->saved_paranoid));
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* One case: paranoid level, request, allowed or not. */
FIXTURE_VARIANT(perm) {
	int paranoid;
	int target;		/* 0: own process, 1: pid 1 (root's) */
	bool system_wide;
	bool user_only;
	bool dumpable;
	bool allowed;
	bool cap_named;		/* the refusal must name the capability */
};

FIXTURE_VARIANT_ADD(perm, own_user_only_paranoid2) {
	.paranoid = 2, .user_only = true, .dumpable = true, .allowed = true,
};
FIXTURE_VARIANT_ADD(perm, own_kernel_paranoid2) {
	.paranoid = 2, .user_only = false, .dumpable = true, .allowed = false,
};
FIXTURE_VARIANT_ADD(perm, own_kernel_paranoid1) {
	.paranoid = 1, .user_only = false, .dumpable = true, .allowed = true,
};
FIXTURE_VARIANT_ADD(perm, own_user_only_paranoid3) {
	.paranoid = 3, .user_only = true, .dumpable = true, .allowed = false,
};
FIXTURE_VARIANT_ADD(perm, own_not_dumpable) {
	.paranoid = 1, .user_only = true, .dumpable = false, .allowed = false,
};
FIXTURE_VARIANT_ADD(perm, root_process_paranoid1) {
	.paranoid = 1, .target = 1, .user_only = true, .dumpable = true,
	.allowed = false, .cap_named = true,
};
FIXTURE_VARIANT_ADD(perm, root_process_paranoid2) {
	.paranoid = 2, .target = 1, .user_only = true, .dumpable = true,
	.allowed = false, .cap_named = true,
};
FIXTURE_VARIANT_ADD(perm, system_wide_paranoid1) {
	.paranoid = 1, .system_wide = true, .user_only = true, .dumpable = true,
	.allowed = false, .cap_named = true,
};
FIXTURE_VARIANT_ADD(perm, system_wide_paranoid0) {
	.paranoid = 0, .system_wide = true, .user_only = false, .dumpable = true,
	.allowed = false, .cap_named = true,
};

TEST_F(perm, unprivileged)
{
	struct req q = {
		.pid = variant->system_wide ? -1 : variant->target,
		.tflags = variant->system_wide ? CTXCOUNT_TARGET_F_SYSTEM_WIDE : 0,
		.ev = variant->user_only ? &ev_user : &ev_full,
		.dumpable = variant->dumpable,
	};
	struct outcome *o = self->o;
	int ret;

	ret = cst_param_set("paranoid", variant->paranoid);
	ASSERT_EQ(0, ret) TH_LOG("writing paranoid: %s (the parameter must be 0644)",
				 strerror(-ret));
	ASSERT_EQ(0, as_nobody(&q, o));
	TH_LOG("uid 65534, paranoid %d, %s, %s: %d%s%s%s", variant->paranoid,
	       variant->system_wide ? "system wide" :
	       variant->target ? "pid 1 (root)" : "own process",
	       q.ev->name, o->ret, o->ack.has_msg ? " \"" : "",
	       o->ack.has_msg ? o->ack.msg : "", o->ack.has_msg ? "\"" : "");
	if (variant->allowed) {
		EXPECT_EQ(0, o->ret);
		EXPECT_EQ(0, o->start_ret);
		/* allowed means counted, not a session whose events all fail */
		EXPECT_EQ(0, o->ev_error) TH_LOG("the event failed for the unprivileged caller: %s",
						 strerror(-o->ev_error));
		EXPECT_LT(0, o->full);
		return;
	}
	EXPECT_TRUE(o->ret == -EACCES || o->ret == -EPERM);
	EXPECT_TRUE(o->ack.has_msg);
	if (variant->cap_named)
		EXPECT_TRUE(names_capability(o->ack.msg))
			TH_LOG("refusal does not name CAP_PERFMON/CAP_SYS_ADMIN");
}

/* Cases that do not depend on a variant. */
FIXTURE(perm_misc) {
	long saved_paranoid;
	int kmsg;
};

FIXTURE_SETUP(perm_misc)
{
	self->kmsg = cst_kmsg_open();
	ASSERT_EQ(0, cst_param_get("paranoid", &self->saved_paranoid));
}

FIXTURE_TEARDOWN(perm_misc)
{
	EXPECT_EQ(0, cst_param_set("paranoid", self->saved_paranoid));
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* Root is perfmon_capable(): paranoid does not apply. */
TEST_F(perm_misc, root_ignores_paranoid)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_ack ack;
	struct cst_sock s;

	ASSERT_NE(NULL, r);
	ASSERT_EQ(0, cst_param_set("paranoid", 3));
	ASSERT_EQ(0, cst_open(&s));
	EXPECT_EQ(0, cst_new(&s, 1, 0, &ev_full, 1, r, &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, cst_new(&s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, &ev_full, 1,
			     r, &ack)) TH_LOG("%s", ack.msg);
	cst_close(&s);
	free(r);
}

/* ctxstat run by an unprivileged user, at the default paranoid 2. */
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
	ASSERT_EQ(0, cst_param_set("paranoid", 2));
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
	EXPECT_TRUE(names_capability(run->err)) TH_LOG("stderr:\n%s", run->err);
	TH_LOG("ctxstat -a as uid 65534: %.*s", (int)strcspn(run->err, "\n"),
	       run->err);
	free(run);
}

/*
 * Tracepoint events (ftrace:function among them) and breakpoints: the perf
 * core checks who may have them against the current task, and the module
 * creates its counters from a kernel thread, so the module refuses them to
 * unprivileged callers itself, as a per-event -EACCES, at every paranoid
 * level. Root still gets them.
 */
TEST_F(perm_misc, tracepoint_events_unprivileged)
{
	long id = cst_tracepoint_id("sched/sched_switch");
	struct cst_ev tp = { PERF_TYPE_TRACEPOINT, 0, CST_F_USER_ONLY,
			     "sched:sched_switch:u" };
	struct cst_ev bp = { PERF_TYPE_BREAKPOINT, 0, CST_F_USER_ONLY,
			     "breakpoint:u" };
	struct outcome *o = mmap(NULL, sizeof(*o), PROT_READ | PROT_WRITE,
				 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct req q = { .pid = 0, .ev = &tp, .dumpable = true };

	ASSERT_NE(MAP_FAILED, o);
	if (id < 0)
		SKIP(return, "no tracefs: sched/sched_switch/id not found");
	tp.config = id;
	/* root: the tracepoint counts */
	EXPECT_EQ(0, cst_event_error(&tp));

	ASSERT_EQ(0, cst_param_set("paranoid", 1));
	ASSERT_EQ(0, as_nobody(&q, o));
	EXPECT_EQ(0, o->ret) TH_LOG("the session itself was refused: %s", o->ack.msg);
	EXPECT_EQ(-EACCES, o->ev_error);
	q.ev = &bp;
	ASSERT_EQ(0, as_nobody(&q, o));
	EXPECT_EQ(0, o->ret) TH_LOG("the session itself was refused: %s", o->ack.msg);
	EXPECT_EQ(-EACCES, o->ev_error);
	munmap(o, sizeof(*o));
}

CST_TEST_MAIN
