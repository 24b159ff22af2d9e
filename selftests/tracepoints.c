// SPDX-License-Identifier: GPL-2.0
/*
 * Tracepoint events (perf's sys:event), counted per context, named and
 * permitted as perf does:
 *
 *  - oracle (the protocol, on the oracle module's worker, each run
 *    strict: repeated while an interrupt other than the oracle's landed;
 *    up to ORACLE_TRIES times while a count is off; skipped, saying so,
 *    when no try ran without one, as on a busy host's 2-vCPU guest; the
 *    one-vCPU arm64 boots run it too): "softirq N 1" (N
 *    tasklets run by the worker's own local_bh_enable()) adds exactly N
 *    irq:softirq_raise to the task bucket and N irq:softirq_entry to
 *    softirq:TASKLET, none to task or hardirq; "hardirq N 1 1" (N
 *    hardirqs, each scheduling a tasklet that runs on its way out) adds
 *    exactly N softirq_raise to hardirq and, where softirqs run on a
 *    hardirq's way out (not PREEMPT_RT), N softirq_entry to TASKLET. The
 *    full counts equal perf_event_open() counters of the same tracepoints
 *    on the worker, exactly.
 *  - ctxstat end to end: N getppid() calls count exactly N
 *    syscalls:sys_enter_getppid, all of them in task context (:t = full,
 *    --breakdown's hardirq row 0); C forks count exactly C
 *    sched:sched_process_fork; perf stat prints the same counts under the
 *    same names; 'irq:softirq_*' gives perf's events in perf's order.
 *  - permissions, beside perf stat as uid 65534 at paranoid 2, 1, 0 and
 *    -1, on its own command and system wide, with tracefs readable to it
 *    (remounted gid=65534): ctxstat counts exactly when perf stat does,
 *    under the same name (perf's fallback renames sys:event to
 *    sys:eventu), the same count for getppid; with tracefs root's alone,
 *    both refuse and ctxstat says it cannot read the trace events.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY		65534
#define ORACLE_N	50
#define ORACLE_TRIES	5
#define GETPPIDS	1000
#define FORKS		5
#define TRACEFS		"/sys/kernel/tracing"

FIXTURE(oracle) {
	int kmsg;
	struct cst_ev ev[2];
};

FIXTURE_SETUP(oracle)
{
	long entry = cst_tracepoint_id("irq/softirq_entry");
	long raise = cst_tracepoint_id("irq/softirq_raise");
	int err = cst_oracle_load();

	self->kmsg = cst_kmsg_open();
	if (err)
		SKIP(return, "oracle module %s: %s", cst_oracle_ko_path(), strerror(-err));
	if (entry < 0 || raise < 0)
		SKIP(return, "no irq:softirq_entry/raise ids in tracefs");
	self->ev[0] = (struct cst_ev){ PERF_TYPE_TRACEPOINT, entry, 0,
				       "irq:softirq_entry" };
	self->ev[1] = (struct cst_ev){ PERF_TYPE_TRACEPOINT, raise, 0,
				       "irq:softirq_raise" };
}

FIXTURE_TEARDOWN(oracle)
{
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

#define TASKLET_BUCKET	CTXCOUNT_BUCKET_SOFTIRQ_TASKLET

/* What one command added, by event and bucket. */
struct tp_counts {
	long long entry_task, entry_hardirq, entry_tasklet, raise_task,
		  raise_hardirq, n;
};

static void tp_counts_of(const struct cst_worker_delta *d, long long n,
			 struct tp_counts *c)
{
	c->entry_task = cst_worker_bucket(d, 0, CTXCOUNT_BUCKET_TASK);
	c->entry_hardirq = cst_worker_bucket(d, 0, CTXCOUNT_BUCKET_HARDIRQ);
	c->entry_tasklet = cst_worker_bucket(d, 0, TASKLET_BUCKET);
	c->raise_task = cst_worker_bucket(d, 1, CTXCOUNT_BUCKET_TASK);
	c->raise_hardirq = cst_worker_bucket(d, 1, CTXCOUNT_BUCKET_HARDIRQ);
	c->n = n;
}

TEST_F_TIMEOUT(oracle, softirq_events_by_context, 300)
{
	static const char *const cmds[] = { "softirq 50 1", "hardirq 50 1 1" };
	bool inline_softirqs = !cst_kernel_is_rt();
	struct cst_worker_delta *d;
	struct cst_worker w;
	struct tp_counts c;
	unsigned int i;
	int try, err, strict;
	bool exact;

	d = calloc(1, sizeof(*d));
	ASSERT_NE(NULL, d);
	err = cst_worker_start(&w, self->ev, 2, self->ev, 2, &d->before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the worker: %s", strerror(-err));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		for (try = 0, strict = 0; try < ORACLE_TRIES; try++) {
			err = cst_worker_run(&w, cmds[i], d, true);
			if (err == -EAGAIN)
				continue;
			strict++;
			ASSERT_EQ(0, err) TH_LOG("%s: %s", cmds[i], strerror(-err));
			tp_counts_of(d, i ? d->oracle.hardirqs : d->oracle.tasklets, &c);
			TH_LOG("%s, try %d: softirq_entry task %lld hardirq %lld TASKLET %lld; softirq_raise task %lld hardirq %lld; oracle %lld",
			       cmds[i], try, c.entry_task, c.entry_hardirq,
			       c.entry_tasklet, c.raise_task, c.raise_hardirq, c.n);
			exact = c.n == ORACLE_N && !c.entry_task && !c.entry_hardirq;
			if (!i)
				exact &= c.raise_task == c.n && c.entry_tasklet == c.n;
			else
				exact &= c.raise_hardirq == c.n &&
					 (!inline_softirqs || c.entry_tasklet == c.n);
			if (exact)
				break;
		}
		/*
		 * Another CPU's or a device's interrupt in every try (a busy
		 * host's 2-vCPU guest): nothing was measured, which is not a
		 * miscount; the one-vCPU boots measure it.
		 */
		if (!strict) {
			cst_worker_stop(&w);
			free(d);
			SKIP(return, "%s: an interrupt not the oracle's landed in each of %d strict tries (%ld CPUs online)",
			     cmds[i], ORACLE_TRIES,
			     sysconf(_SC_NPROCESSORS_ONLN));
		}
		EXPECT_LT(try, ORACLE_TRIES) TH_LOG("%s: no try counted exactly", cmds[i]);
		/* the module's full count is perf's own, to the event */
		EXPECT_EQ(d->perf[0], cst_worker_full(d, 0));
		EXPECT_EQ(d->perf[1], cst_worker_full(d, 1));
	}
	cst_worker_stop(&w);
	free(d);
}

FIXTURE(cli) {
	int kmsg;
	const char *wl;
	struct cst_run *run;
};

FIXTURE_SETUP(cli)
{
	self->kmsg = cst_kmsg_open();
	self->wl = cst_workload_path();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	if (access(cst_ctxstat_path(), X_OK))
		SKIP(return, "ctxstat not found at %s", cst_ctxstat_path());
}

FIXTURE_TEARDOWN(cli)
{
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The value of @event's CSV row in @r's stderr; -1 when none or no number. */
static double csv_value(const struct cst_run *r, const char *event)
{
	struct cst_csv_row row;

	if (cst_csv_find(r->err, ',', event, &row) || !row.numeric)
		return -1;
	return row.value;
}

static bool exited_0(const struct cst_run *r)
{
	return WIFEXITED(r->status) && !WEXITSTATUS(r->status);
}

/* Known work, in task context only: exact counts, and perf's the same. */
TEST_F_TIMEOUT(cli, exact_counts_beside_perf, 300)
{
	char nr[16], forks[16];
	char *count_getppid[] = { (char *)cst_ctxstat_path(), "-x,", "--breakdown",
		"-e", "syscalls:sys_enter_getppid,syscalls:sys_enter_getppid:t",
		"--", (char *)self->wl, "getppid", nr, NULL };
	char *count_forks[] = { (char *)cst_ctxstat_path(), "-x,", "--breakdown", "-e",
		"sched:sched_process_fork,sched:sched_process_fork:t", "--",
		(char *)self->wl, "fork", forks, "1000", NULL };
	char *perf_forks[] = { (char *)cst_perf_path(), "stat", "-x,", "-e",
		"sched:sched_process_fork", "--", (char *)self->wl, "fork", forks,
		"1000", NULL };

	snprintf(nr, sizeof(nr), "%d", GETPPIDS);
	snprintf(forks, sizeof(forks), "%d", FORKS);
	if (cst_tracepoint_id("syscalls/sys_enter_getppid") < 0) {
		TH_LOG("no syscalls:sys_enter_getppid (CONFIG_FTRACE_SYSCALLS): not counted");
	} else {
		cst_run(self->run, count_getppid, 120);
		ASSERT_TRUE(exited_0(self->run)) TH_LOG("%s", self->run->err);
		EXPECT_EQ(GETPPIDS, csv_value(self->run, "syscalls:sys_enter_getppid"));
		EXPECT_EQ(GETPPIDS, csv_value(self->run, "syscalls:sys_enter_getppid:t"));
		EXPECT_EQ(GETPPIDS, csv_value(self->run, "syscalls:sys_enter_getppid [task]"));
		EXPECT_EQ(0, csv_value(self->run, "syscalls:sys_enter_getppid [hardirq]"))
			TH_LOG("%s", self->run->err);
	}
	cst_run(self->run, count_forks, 120);
	ASSERT_TRUE(exited_0(self->run)) TH_LOG("%s", self->run->err);
	EXPECT_EQ(FORKS, csv_value(self->run, "sched:sched_process_fork"));
	EXPECT_EQ(FORKS, csv_value(self->run, "sched:sched_process_fork:t"));
	EXPECT_EQ(0, csv_value(self->run, "sched:sched_process_fork [hardirq]"));
	if (!perf_forks[0]) {
		TH_LOG("no perf binary in the guest: ctxstat's counts alone");
		return;
	}
	cst_run(self->run, perf_forks, 120);
	ASSERT_TRUE(exited_0(self->run)) TH_LOG("%s", self->run->err);
	EXPECT_EQ(FORKS, csv_value(self->run, "sched:sched_process_fork"))
		TH_LOG("perf stat:\n%s", self->run->err);
}

/* The event names of @text's CSV rows, in order, joined by spaces. */
static void csv_names(const char *text, char *out, size_t len)
{
	const char *line = text, *end, *f2, *f3;
	size_t n = 0;

	out[0] = '\0';
	for (; *line; line = *end ? end + 1 : end) {
		end = strchrnul(line, '\n');
		f2 = memchr(line, ',', end - line);
		f3 = f2 ? memchr(f2 + 1, ',', end - f2 - 1) : NULL;
		if (f3 && n < len)
			n += snprintf(out + n, len - n, "%s%.*s", n ? " " : "",
				      (int)strcspn(f3 + 1, ",\n"), f3 + 1);
	}
}

TEST_F_TIMEOUT(cli, glob_as_perf_expands_it, 300)
{
	char *ctx_glob[] = { (char *)cst_ctxstat_path(), "-x,", "-e", "irq:softirq_*",
			"--", "/bin/true", NULL };
	char *perf_glob[] = { (char *)cst_perf_path(), "stat", "-x,", "-e",
			 "irq:softirq_*", "--", "/bin/true", NULL };
	char want[512], got[512];

	if (!perf_glob[0])
		SKIP(return, "no perf binary in the guest");
	cst_run(self->run, perf_glob, 120);
	ASSERT_TRUE(exited_0(self->run)) TH_LOG("%s", self->run->err);
	csv_names(self->run->err, want, sizeof(want));
	cst_run(self->run, ctx_glob, 120);
	ASSERT_TRUE(exited_0(self->run)) TH_LOG("%s", self->run->err);
	csv_names(self->run->err, got, sizeof(got));
	TH_LOG("perf: %s", want);
	EXPECT_NE(NULL, strstr(want, "irq:softirq_entry"));
	EXPECT_STREQ(want, got);
}

enum target { OWN, SYSTEM_WIDE };

FIXTURE(perm) {
	long paranoid;
	const char *wl;
	struct cst_run *run;
	int kmsg;
	bool remounted;
};

FIXTURE_VARIANT(perm) {
	int paranoid;
	enum target target;
	const char *event;
};

#define PERM_CASE(p, pn, t, tn, e, en)					\
FIXTURE_VARIANT_ADD(perm, pn##_##tn##_##en) {				\
	.paranoid = p, .target = t, .event = e }
#define PERM_EVENTS(p, pn, t, tn)					\
	PERM_CASE(p, pn, t, tn, "syscalls:sys_enter_getppid", getppid);	\
	PERM_CASE(p, pn, t, tn, "sched:sched_switch", sched_switch)
#define PERM_TARGETS(p, pn)						\
	PERM_EVENTS(p, pn, OWN, own);					\
	PERM_EVENTS(p, pn, SYSTEM_WIDE, all)

PERM_TARGETS(2, p2);
PERM_TARGETS(1, p1);
PERM_TARGETS(0, p0);
PERM_TARGETS(-1, pm1);

FIXTURE_SETUP(perm)
{
	self->kmsg = cst_kmsg_open();
	self->wl = cst_workload_path();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	/* tracefs's files are 0440 root:root: the group lets uid 65534 in */
	self->remounted = !mount(NULL, TRACEFS, NULL, MS_REMOUNT,
				 "gid=65534,mode=0750");
}

FIXTURE_TEARDOWN(perm)
{
	if (self->remounted)
		EXPECT_EQ(0, mount(NULL, TRACEFS, NULL, MS_REMOUNT, "gid=0,mode=0700"));
	EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

struct answer {
	bool counted;
	char name[72];
	double value;
};

/* One tool as uid 65534: counted or not, under which name, how much. */
static void ask(struct cst_run *run, bool perf, enum target target,
		const char *event, const char *wl, struct answer *a)
{
	struct cst_csv_row row = { 0 };
	char *argv[16], renamed[72];
	int n;

	memset(a, 0, sizeof(*a));
	n = cst_stat_argv(argv, perf, event);
	if (target == SYSTEM_WIDE)
		argv[n++] = "-a";
	argv[n++] = "--";
	if (target == OWN) {
		argv[n++] = (char *)wl;
		argv[n++] = "getppid";
		argv[n++] = "100";
	} else {
		argv[n++] = "/bin/sleep";
		argv[n++] = "0.2";
	}
	argv[n] = NULL;
	cst_run_as(run, argv, 120, NOBODY, NOBODY);
	snprintf(renamed, sizeof(renamed), "%su", event);
	if (!cst_csv_find(run->err, ',', event, &row) ||
	    !cst_csv_find(run->err, ',', renamed, &row)) {
		snprintf(a->name, sizeof(a->name), "%.71s", row.f[2]);
		a->value = row.value;
	}
	a->counted = exited_0(run) && a->name[0] && row.numeric;
}

TEST_F_TIMEOUT(perm, ctxstat_allowed_exactly_when_perf_is, 300)
{
	char id[64];
	struct answer p, c;

	if (!cst_perf_path())
		SKIP(return, "no perf binary in the guest");
	if (!self->remounted)
		SKIP(return, "cannot remount %s with gid=65534: %s", TRACEFS, strerror(errno));
	snprintf(id, sizeof(id), "%s", variant->event);
	*strchr(id, ':') = '/';
	if (cst_tracepoint_id(id) < 0)
		SKIP(return, "no %s here", variant->event);
	ASSERT_EQ(0, cst_paranoid_set(variant->paranoid));
	ask(self->run, true, variant->target, variant->event, self->wl, &p);
	ask(self->run, false, variant->target, variant->event, self->wl, &c);
	TH_LOG("paranoid %d, %s, %s: perf %s %s, ctxstat %s %s", variant->paranoid,
	       variant->target == OWN ? "own command" : "-a", variant->event,
	       p.counted ? "counts" : "refuses", p.name,
	       c.counted ? "counts" : "refuses", c.name);
	EXPECT_EQ(p.counted, c.counted) TH_LOG("ctxstat's stderr:\n%s", self->run->err);
	if (p.counted && c.counted) {
		EXPECT_STREQ(p.name, c.name);
		if (variant->target == OWN && strstr(variant->event, "getppid"))
			EXPECT_EQ(p.value, c.value);
	}
}

/* tracefs as the kernel mounts it, root's alone: neither tool can read it. */
FIXTURE(root_tracefs) {
	long paranoid;
	struct cst_run *run;
	int kmsg;
};

FIXTURE_SETUP(root_tracefs)
{
	self->kmsg = cst_kmsg_open();
	self->run = calloc(1, sizeof(*self->run));
	ASSERT_NE(NULL, self->run);
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
}

FIXTURE_TEARDOWN(root_tracefs)
{
	EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	free(self->run);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

static int can_read(void *path)
{
	return !access(path, R_OK);
}

TEST_F_TIMEOUT(root_tracefs, refused_as_perf_refuses, 300)
{
	const char *id = TRACEFS "/events/sched/sched_switch/id";
	struct answer p, c;

	if (access(id, F_OK))
		SKIP(return, "no %s", id);
	if (cst_call_as(NOBODY, NOBODY, can_read, (void *)id) == 1)
		SKIP(return, "%s is readable by uid 65534 here", id);
	ASSERT_EQ(0, cst_paranoid_set(-1));
	ask(self->run, false, OWN, "sched:sched_switch", cst_workload_path(), &c);
	EXPECT_FALSE(c.counted);
	EXPECT_NE(NULL, strstr(self->run->err, "can't access trace events"))
		TH_LOG("ctxstat's stderr:\n%s", self->run->err);
	if (!cst_perf_path())
		return;
	ask(self->run, true, OWN, "sched:sched_switch", cst_workload_path(), &p);
	EXPECT_FALSE(p.counted) TH_LOG("perf's stderr:\n%s", self->run->err);
}

CST_TEST_MAIN
