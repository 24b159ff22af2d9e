// SPDX-License-Identifier: GPL-2.0
/*
 * tracepoint tests, against a fake tracefs ($CTX_SYSFS_ROOT's
 * kernel/tracing/events, or debugfs's tracing/): "sys:event" and globs
 * to the ids tracefs holds, in tracefs's order, under the names perf
 * prints (modifiers dropped, ctxstat's :t kept); modifiers in groups;
 * names that are not tracepoints ("cycles:u"); perf's errors (unknown
 * tracepoint, no access, no tracefs); perf list's lines; the proof perf
 * stat would open; and the rows, CSV, JSON and --breakdown, by name.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <linux/ctxcount.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "series_fixture.h"
#include "events/proof.h"
#include "events/tracepoint.h"

#define KERNEL_HV (CTXCOUNT_EVENT_F_EXCLUDE_KERNEL | CTXCOUNT_EVENT_F_EXCLUDE_HV)

static const struct { const char *sys, *event; int id; } tps[] = {
	{ "irq", "irq_handler_entry", 33 },
	{ "irq", "softirq_entry", 30 },
	{ "irq", "softirq_exit", 31 },
	{ "irq", "softirq_raise", 32 },
	{ "sched", "sched_switch", 300 },
	{ "sched", "sched_wakeup", 301 },
	{ "syscalls", "sys_enter_getppid", 500 },
};

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	if (!f || fputs(text, f) < 0 || fclose(f))
		abort();
}

static void mkdirs(const char *path)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", path);
	if (system(cmd))
		abort();
}

/*
 * A tracefs under @root/@where: the events above, the files tracefs has
 * beside them (enable, filter, header_page), and an event without an id
 * (perf lists only those with one).
 */
static void make_tracefs(const char *root, const char *where)
{
	char path[512], id[16];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(tps); i++) {
		snprintf(path, sizeof(path), "%s/%s/events/%s/%s", root, where,
			 tps[i].sys, tps[i].event);
		mkdirs(path);
		snprintf(path + strlen(path), sizeof(path) - strlen(path), "/id");
		snprintf(id, sizeof(id), "%d\n", tps[i].id);
		write_file(path, id);
		snprintf(path, sizeof(path), "%s/%s/events/%s/enable", root,
			 where, tps[i].sys);
		write_file(path, "0\n");
		snprintf(path, sizeof(path), "%s/%s/events/%s/filter", root,
			 where, tps[i].sys);
		write_file(path, "none\n");
	}
	snprintf(path, sizeof(path), "%s/%s/events/header_page", root, where);
	write_file(path, "");
	snprintf(path, sizeof(path), "%s/%s/events/enable", root, where);
	write_file(path, "0\n");
	snprintf(path, sizeof(path), "%s/%s/events/noid/event", root, where);
	mkdirs(path);
}

FIXTURE(tracefs) {
	char root[64];
	struct cxs_event_list l;
	char err[512];
};

FIXTURE_SETUP(tracefs)
{
	snprintf(self->root, sizeof(self->root), "/tmp/ctxstat-tracefs-XXXXXX");
	ASSERT_NE(NULL, mkdtemp(self->root));
	make_tracefs(self->root, "kernel/tracing");
	setenv("CTX_SYSFS_ROOT", self->root, 1);
	memset(&self->l, 0, sizeof(self->l));
}

FIXTURE_TEARDOWN(tracefs)
{
	char cmd[96];

	unsetenv("CTX_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", self->root);
	if (system(cmd))
		abort();
}

#define ADD_OK(specs) ASSERT_EQ(0, cxs_events_add(&self->l, specs, self->err, \
						  sizeof(self->err)))	\
	TH_LOG("%s: %s", specs, self->err)
#define ADD_FAILS(specs) ASSERT_EQ(-1, cxs_events_add(&self->l, specs, self->err, \
						      sizeof(self->err)))

TEST_F(tracefs, name_to_id)
{
	ADD_OK("sched:sched_switch");
	ASSERT_EQ(1, self->l.nr);
	EXPECT_EQ(PERF_TYPE_TRACEPOINT, self->l.ev[0].type);
	EXPECT_EQ(300, self->l.ev[0].config);
	EXPECT_EQ(0, self->l.ev[0].flags);
	EXPECT_FALSE(self->l.ev[0].task_only);
	EXPECT_STREQ("sched:sched_switch", self->l.ev[0].name);
	EXPECT_EQ(1, self->l.nr_counters);
}

/* perf names a tracepoint sys:event whatever its modifiers; :t is ours. */
TEST_F(tracefs, perf_names_and_t_twins)
{
	ADD_OK("sched:sched_switch:u,irq:softirq_entry,irq:softirq_entry:t");
	ASSERT_EQ(3, self->l.nr);
	EXPECT_STREQ("sched:sched_switch", self->l.ev[0].name);
	EXPECT_EQ(KERNEL_HV, self->l.ev[0].flags);
	EXPECT_STREQ("irq:softirq_entry", self->l.ev[1].name);
	EXPECT_STREQ("irq:softirq_entry:t", self->l.ev[2].name);
	EXPECT_TRUE(self->l.ev[2].task_only);
	EXPECT_EQ(30, self->l.ev[2].config);
	/* the twin is a view of the same kernel counter */
	EXPECT_EQ(self->l.ev[1].counter, self->l.ev[2].counter);
	EXPECT_EQ(2, self->l.nr_counters);
}

/* The entries of @dir matching @glob, in readdir's order: perf's order. */
static int readdir_order(const char *dir, const char *glob, char names[][64])
{
	struct dirent *de;
	DIR *d = opendir(dir);
	int n = 0;

	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.' && !fnmatch(glob, de->d_name, 0) &&
		    strcmp(de->d_name, "enable") && strcmp(de->d_name, "filter"))
			snprintf(names[n++], 64, "irq:%.59s", de->d_name);
	if (d)
		closedir(d);
	return n;
}

TEST_F(tracefs, globs_in_tracefs_order)
{
	char dir[128], want[8][64];
	int i, n;

	snprintf(dir, sizeof(dir), "%s/kernel/tracing/events/irq", self->root);
	ADD_OK("irq:*");
	n = readdir_order(dir, "*", want);
	ASSERT_EQ(4, n);
	ASSERT_EQ(n, self->l.nr);
	for (i = 0; i < n; i++)
		EXPECT_STREQ(want[i], self->l.ev[i].name);
	memset(&self->l, 0, sizeof(self->l));
	ADD_OK("irq:softirq_*:t");
	n = readdir_order(dir, "softirq_*", want);
	ASSERT_EQ(3, self->l.nr);
	for (i = 0; i < n; i++) {
		strcat(want[i], ":t");
		EXPECT_STREQ(want[i], self->l.ev[i].name);
		EXPECT_TRUE(self->l.ev[i].task_only);
	}
	memset(&self->l, 0, sizeof(self->l));
	ADD_OK("irq:softirq_e?try,sch*:sched_s*");
	ASSERT_EQ(2, self->l.nr);
	EXPECT_STREQ("irq:softirq_entry", self->l.ev[0].name);
	EXPECT_STREQ("sched:sched_switch", self->l.ev[1].name);
	EXPECT_EQ(300, self->l.ev[1].config);
}

/*
 * A system glob stops at the first system without the event, as perf's
 * add_tracepoint_multi_sys() does, and the list is taken whole or not.
 */
TEST_F(tracefs, system_glob_stops_where_perf_does)
{
	ADD_FAILS("cycles,*:sched_switch");
	EXPECT_EQ(0, strncmp(self->err, "unknown tracepoint '", 20)) TH_LOG("%s", self->err);
	EXPECT_EQ(0, self->l.nr);
	EXPECT_EQ(0, self->l.nr_counters);
	ADD_FAILS("nosuch*:*");
	EXPECT_EQ(0, strncmp(self->err, "unknown tracepoint 'nosuch*:*'", 30)) TH_LOG("%s", self->err);
}

TEST_F(tracefs, group_modifiers)
{
	ADD_OK("{irq:softirq_entry,cycles}:t");
	ASSERT_EQ(2, self->l.nr);
	EXPECT_STREQ("irq:softirq_entry:t", self->l.ev[0].name);
	EXPECT_TRUE(self->l.ev[0].task_only);
	EXPECT_STREQ("cycles:t", self->l.ev[1].name);
	memset(&self->l, 0, sizeof(self->l));
	ADD_OK("{irq:softirq_entry:u,sched:sched_*}:tu");
	ASSERT_EQ(3, self->l.nr);
	EXPECT_STREQ("irq:softirq_entry:t", self->l.ev[0].name);
	EXPECT_EQ(KERNEL_HV, self->l.ev[0].flags);
	EXPECT_TRUE(self->l.ev[2].task_only);
	EXPECT_EQ(KERNEL_HV, self->l.ev[2].flags);
}

/* Modifiers after a known event, and unknown events, stay what they were. */
TEST_F(tracefs, not_tracepoints)
{
	EXPECT_FALSE(cxs_tracepoint_syntax("cycles:u"));
	EXPECT_FALSE(cxs_tracepoint_syntax("L1-dcache-loads:k"));
	EXPECT_FALSE(cxs_tracepoint_syntax("r1a8:u"));
	EXPECT_FALSE(cxs_tracepoint_syntax("cpu/event=1/:u"));
	EXPECT_TRUE(cxs_tracepoint_syntax("sched:sched_switch:u"));
	EXPECT_TRUE(cxs_tracepoint_syntax("sdt_libc-x:memory_y"));
	ADD_OK("cycles:u");
	EXPECT_EQ(PERF_TYPE_HARDWARE, self->l.ev[0].type);
	ADD_FAILS("cylces:u");
	EXPECT_STREQ("unknown event 'cylces'; did you mean 'cycles'? (ctxstat --list)",
		     self->err);
	ADD_FAILS("sched:t");
	EXPECT_STREQ("unknown event 'sched' (ctxstat --list shows the known ones)",
		     self->err);
}

TEST_F(tracefs, perf_errors)
{
	char want[256];

	ADD_FAILS("sched:nosuch");
	snprintf(want, sizeof(want),
		 "unknown tracepoint 'sched:nosuch': no %s/kernel/tracing/events/sched/nosuch/id",
		 self->root);
	EXPECT_EQ(0, strncmp(self->err, want, strlen(want))) TH_LOG("%s", self->err);
	ADD_FAILS("noid:event");
	EXPECT_NE(NULL, strstr(self->err, "noid/event/id")) TH_LOG("%s", self->err);
	ADD_FAILS("irq:softirq_entry:x");
	EXPECT_STREQ("unknown modifier 'x' in 'irq:softirq_entry' (known: t, u, k, h)",
		     self->err);
	ADD_FAILS("irq:softirq_entry:uu");
	EXPECT_EQ(0, strncmp(self->err, "bad event modifier 'uu'", 23));
}

/* No tracefs at /sys/kernel/tracing: perf falls back to debugfs's. */
TEST_F(tracefs, debugfs_fallback_and_no_tracefs)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "mv '%s/kernel/tracing' '%s/kernel/t' && mkdir -p '%s/kernel/debug' '%s/kernel/tracing' && mv '%s/kernel/t' '%s/kernel/debug/tracing'",
		 self->root, self->root, self->root, self->root, self->root, self->root);
	ASSERT_EQ(0, system(cmd));
	ADD_OK("sched:sched_wakeup");
	EXPECT_EQ(301, self->l.ev[0].config);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/kernel/debug/tracing'", self->root);
	ASSERT_EQ(0, system(cmd));
	ADD_FAILS("sched:sched_wakeup");
	EXPECT_NE(NULL, strstr(self->err, "no tracefs")) TH_LOG("%s", self->err);
	EXPECT_NE(NULL, strstr(self->err, "mount -t tracefs")) TH_LOG("%s", self->err);
}

/*
 * Tracefs this user may not read: perf's "can't access trace events".
 * As root the tree is made root's only and the parse runs as nobody.
 */
TEST_F(tracefs, no_access)
{
	char dir[128], msg[512] = "";
	int p[2], status;
	ssize_t n;
	pid_t pid;

	snprintf(dir, sizeof(dir), "%s/kernel/tracing", self->root);
	ASSERT_EQ(0, chmod(dir, geteuid() ? 0 : 0700));
	ASSERT_EQ(0, pipe(p));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(p[0]);
		if (!geteuid() && setresuid(65534, 65534, 65534))
			_exit(2);
		if (!cxs_events_add(&self->l, "sched:sched_switch", self->err,
				    sizeof(self->err)))
			_exit(1);
		n = write(p[1], self->err, strlen(self->err));
		_exit(n > 0 ? 0 : 3);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof(msg) - 1);
	close(p[0]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(dir, 0755);
	ASSERT_TRUE(WIFEXITED(status) && !WEXITSTATUS(status)) TH_LOG("status 0x%x", status);
	ASSERT_LT(0, n);
	EXPECT_EQ(0, strncmp(msg, "can't access trace events: no permission to read ", 49))
		TH_LOG("%s", msg);
	EXPECT_NE(NULL, strstr(msg, "sched/sched_switch")) TH_LOG("%s", msg);
}

static char *print_list(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cxs_tracepoints_print(f);
	fclose(f);
	return buf;
}

/* perf 6.1's print_tracepoint_events(): sorted, those with an id only. */
TEST_F(tracefs, listed_as_perf_lists_them)
{
	char *out = print_list();
	char cmd[96];

	EXPECT_STREQ("\nTracepoint events:\n"
"  irq:irq_handler_entry                              [Tracepoint event]\n"
"  irq:softirq_entry                                  [Tracepoint event]\n"
"  irq:softirq_exit                                   [Tracepoint event]\n"
"  irq:softirq_raise                                  [Tracepoint event]\n"
"  sched:sched_switch                                 [Tracepoint event]\n"
"  sched:sched_wakeup                                 [Tracepoint event]\n"
"  syscalls:sys_enter_getppid                         [Tracepoint event]\n",
		     out);
	free(out);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s/kernel'", self->root);
	ASSERT_EQ(0, system(cmd));
	out = print_list();
	EXPECT_STREQ("\nTracepoint events:\n"
		     "  [ Tracepoints not available: No such file or directory ]\n",
		     out);
	free(out);
}

static struct perf_event_attr seen;

static int fake_open(struct perf_event_attr *attr, pid_t pid, int cpu,
		     int group_fd, unsigned long flags)
{
	seen = *attr;
	return 100;
}

/*
 * The proof asks what perf stat asks, raw sample type included, so that
 * the kernel refuses ctxstat where it refuses perf; and perf's fallback
 * renames a tracepoint as perf does (its name has a ':' already).
 */
TEST_F(tracefs, proof_asks_as_perf_stat)
{
	const struct cxs_proof_target t = { .pid = 42, .cpu = -1 };
	struct cxs_proof p;
	char name[64] = "syscalls:sys_enter_getppid";

	ADD_OK("sched:sched_switch,task-clock");
	ASSERT_EQ(CXS_PROOF_OPEN, cxs_proof_open(&p, &self->l.counters[0], &t,
						 2, fake_open));
	EXPECT_EQ(PERF_TYPE_TRACEPOINT, seen.type);
	EXPECT_EQ(300, seen.config);
	/* Counting only: raw data would be refused to more users than perf. */
	EXPECT_EQ(0, seen.sample_type);
	EXPECT_EQ(0, seen.sample_period);
	EXPECT_EQ(1, (int)seen.disabled);
	ASSERT_EQ(CXS_PROOF_OPEN, cxs_proof_open(&p, &self->l.counters[1], &t,
						 2, fake_open));
	EXPECT_EQ(0, seen.sample_type);
	ASSERT_EQ(0, cxs_proof_fallback_name(name, sizeof(name)));
	EXPECT_STREQ("syscalls:sys_enter_getppidu", name);
}

/* The rows under perf's names; the breakdown's named after the counter. */
TEST_F(tracefs, rows_csv_json_breakdown)
{
	struct cxs_counter_reading rd = {
		.full = 10, .time_enabled = 100, .time_running = 100,
	};
	struct fixture_data d;
	char *out;

	setup(&d, "sched:sched_switch,irq:softirq_entry,irq:softirq_entry:t", 1);
	rd.bucket[CTXCOUNT_BUCKET_TASK] = 10;
	ASSERT_EQ(0, cxs_counter_add(&d.res[0], &rd));
	rd.bucket[CTXCOUNT_BUCKET_TASK] = 0;
	rd.bucket[CTXCOUNT_BUCKET_SOFTIRQ_TIMER] = 4;
	rd.bucket[CTXCOUNT_BUCKET_SOFTIRQ_NET_RX] = 6;
	ASSERT_EQ(0, cxs_counter_add(&d.res[1], &rd));
	cxs_sample_add(&d.elapsed, 1000);
	out = render(&d, CXS_OUTPUT_CSV, ",", false, 0);
	EXPECT_STREQ("10,,sched:sched_switch,100,100.00,,\n"
		     "10,,irq:softirq_entry,100,100.00,,\n"
		     "0,,irq:softirq_entry:t,100,100.00,0.00,of all\n", out);
	free(out);
	out = render(&d, CXS_OUTPUT_STD, NULL, false, 0);
	EXPECT_NE(NULL, strstr(out, "      sched:sched_switch ")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "      irq:softirq_entry:t ")) TH_LOG("%s", out);
	free(out);
	out = render(&d, CXS_OUTPUT_JSON, NULL, true, 0);
	EXPECT_NE(NULL, strstr(out, "\"event\" : \"irq:softirq_entry:t\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"event\" : \"irq:softirq_entry [task]\"")) TH_LOG("%s", out);
	EXPECT_NE(NULL, strstr(out, "\"event\" : \"irq:softirq_entry [softirq:NET_RX]\"")) TH_LOG("%s", out);
	free(out);
	release(&d);
}

TEST_HARNESS_MAIN
