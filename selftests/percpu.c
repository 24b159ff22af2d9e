// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU totals (CTXCOUNT_READ_F_PER_CPU) and CPU lists of system-wide
 * sessions (CTXCOUNT_TARGET_A_CPUS), through the raw protocol and through
 * ctxstat -A / -C:
 *
 * - a READ without the flag gets exactly the attributes it got before
 *   the flag existed (an older ctxstat keeps working);
 * - the per-CPU rows add up exactly to the totals: every event's full
 *   count, times and buckets, and the excursions, for a started and a
 *   stopped system-wide session; a task session's per-CPU READ is refused
 *   (perf has no per-CPU value of a task event);
 * - a session on CPU 1 does not count a process pinned to CPU 0 (its
 *   page faults, as many as it touched pages, are the oracle), while a
 *   session on CPU 0 does; ctxstat -C 1 -A prints CPU 1's row only;
 * - READ as a dump (NLM_F_DUMP) of a stopped session carries what the
 *   single reply does, value for value, in messages of at most a page,
 *   16 events splitting each CPU's nest over several;
 * - bad CPU lists and read flags are refused with an extack message;
 * - as uid 65534 at paranoid 1, where perf refuses CPU events, the
 *   module refuses a CPU list session and ctxstat -C 1 fails as perf does.
 *
 * In detail: one nest per online CPU in increasing order, for a started
 * (IPI read) and a stopped session, each CPU's buckets summing to its full
 * count; refused with an extack message: an empty list, a CPU twice, an
 * absent CPU (EINVAL), a list without SYSTEM_WIDE, an offline CPU (ENODEV),
 * unknown read flags (EOPNOTSUPP); a CPU that counted and went offline
 * keeps its row in an exact sum, and counts again back online; ctxstat -a
 * -A -x, --breakdown prints one CPU<n> row per online CPU, its context rows
 * summed over the CPUs equal to the CPU rows summed; ctxstat -a -A -I 100
 * --summary --breakdown: each CPU's intervals add up exactly to its summary
 * row.
 */
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include "kselftest_harness.h"
#include "cst.h"

#define NOBODY 65534

static const struct cst_ev ev_cpu_clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
static const struct cst_ev ev_faults = CST_EV_SW(PAGE_FAULTS, 0, "page-faults");
static const struct cst_ev ev_cs = CST_EV_SW(CONTEXT_SWITCHES, 0,
					     "context-switches");
static const struct cst_ev ev_insn = CST_EV_HW(INSTRUCTIONS, 0, "instructions");

/* cpu-clock and context-switches everywhere; instructions where it counts. */
static int events(struct cst_ev *ev)
{
	int n = 0;

	ev[n++] = ev_cpu_clock;
	ev[n++] = ev_cs;
	if (!cst_event_error(&ev_insn))
		ev[n++] = ev_insn;
	return n;
}

FIXTURE(pc) {
	struct cst_sock s;
	struct cst_res *res;
	int kmsg;
};

FIXTURE_SETUP(pc)
{
	self->kmsg = cst_kmsg_open();
	self->res = calloc(1, sizeof(*self->res));
	ASSERT_NE(NULL, self->res);
	ASSERT_EQ(0, cst_open(&self->s));
}

FIXTURE_TEARDOWN(pc)
{
	cst_close(&self->s);
	free(self->res);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* The top-level attributes of a READ reply before per-CPU rows existed. */
static const uint64_t old_read_attrs =
	1ULL << CTXCOUNT_A_PAD | 1ULL << CTXCOUNT_A_SESSION_ID |
	1ULL << CTXCOUNT_A_TASKS_SEEN | 1ULL << CTXCOUNT_A_TASKS_LOST |
	1ULL << CTXCOUNT_A_TASKS_NOW | 1ULL << CTXCOUNT_A_CPUS_LOST |
	1ULL << CTXCOUNT_A_EXCURSIONS | 1ULL << CTXCOUNT_A_EVENTS;

TEST_F(pc, read_without_flag_is_the_old_reply)
{
	struct cst_ev ev[3];
	struct cst_ack ack;
	int n = events(ev);
	uint32_t id;

	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, ev, n,
			     self->res, &ack)) TH_LOG("%s", ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	cst_spin_ms(20);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_READ, id, self->res,
			     &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, self->res->attr_seen & ~old_read_attrs)
		TH_LOG("new attributes 0x%llx",
		       (unsigned long long)(self->res->attr_seen & ~old_read_attrs));
	/* everything the old reply had is still there */
	EXPECT_EQ(old_read_attrs & ~(1ULL << CTXCOUNT_A_PAD),
		  self->res->attr_seen & ~(1ULL << CTXCOUNT_A_PAD));
	EXPECT_EQ(0, self->res->ncpu);
	EXPECT_EQ(n, self->res->nev);
	/* READ_FLAGS 0 is the same request */
	ASSERT_EQ(0, cst_read(&self->s, id, 0, self->res, &ack));
	EXPECT_EQ(0, self->res->ncpu);
	EXPECT_EQ(0, self->res->attr_seen & ~old_read_attrs);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

/*
 * Every value of the reply is the sum of its CPU rows' values, exactly;
 * the rows are online CPUs (or, @offline_ok, CPUs that counted and went
 * offline), in increasing order.
 */
static void check_rows(struct __test_metadata *_metadata,
		       const struct cst_res *r, int nev, bool offline_ok)
{
	uint64_t full, ena, run, b[CTXCOUNT_BUCKET_MAX + 1], exc;
	const struct cst_cpu_res *c;
	int i, k, t;

	ASSERT_EQ(0, r->cpu_overflow);
	ASSERT_LT(0, r->ncpu);
	for (k = 0; k < r->ncpu; k++) {
		c = &r->cpu[k];
		ASSERT_TRUE(c->has_cpu && c->has_events && c->has_excursions);
		ASSERT_EQ(nev, c->nev);
		/* no online file: a CPU that cannot go offline (x86's cpu0) */
		if (!offline_ok)
			EXPECT_NE(0, cst_cpu_is_online(c->cpu)) TH_LOG("cpu %u", c->cpu);
		if (k)
			EXPECT_LT(r->cpu[k - 1].cpu, c->cpu);
	}
	for (i = 0; i < nev; i++) {
		full = ena = run = 0;
		memset(b, 0, sizeof(b));
		for (k = 0; k < r->ncpu; k++) {
			const struct cst_ev_res *e = &r->cpu[k].ev[i];

			EXPECT_EQ(i, e->index);
			EXPECT_EQ(r->ev[i].error, e->error);
			EXPECT_EQ(cst_bucket_sum(e), e->full)
				TH_LOG("cpu %u event %d", r->cpu[k].cpu, i);
			EXPECT_LE(e->direct_cpus, 1);
			full += e->full;
			ena += e->enabled;
			run += e->running;
			for (t = CTXCOUNT_BUCKET_TASK; t <= CTXCOUNT_BUCKET_MAX; t++)
				b[t] += e->b[t];
		}
		EXPECT_EQ(r->ev[i].full, full) TH_LOG("event %d", i);
		EXPECT_EQ(r->ev[i].enabled, ena) TH_LOG("event %d", i);
		EXPECT_EQ(r->ev[i].running, run) TH_LOG("event %d", i);
		for (t = CTXCOUNT_BUCKET_TASK; t <= CTXCOUNT_BUCKET_MAX; t++)
			EXPECT_EQ(r->ev[i].b[t], b[t])
				TH_LOG("event %d bucket %s", i, cst_bucket_name(t));
	}
	for (t = CTXCOUNT_EXCURSION_UNSPEC + 1; t <= CTXCOUNT_EXCURSION_MAX; t++) {
		exc = 0;
		for (k = 0; k < r->ncpu; k++)
			exc += r->cpu[k].exc[t];
		EXPECT_EQ(r->exc[t], exc) TH_LOG("excursion kind %d", t);
	}
}

/* Work in task context and interrupts: spin, sleep, loopback syscalls. */
static void some_work(void)
{
	int i;

	for (i = 0; i < 5; i++) {
		cst_spin_ms(10);
		usleep(2000);
	}
}

static void rows_sum(struct __test_metadata *_metadata, FIXTURE_DATA(pc) *self,
		     int pid, uint32_t tflags)
{
	struct cst_ev ev[3];
	struct cst_ack ack;
	int n = events(ev);
	uint32_t id;

	ASSERT_EQ(0, cst_new(&self->s, pid, tflags, ev, n, self->res, &ack))
		TH_LOG("%s", ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	some_work();
	/* started: the CPUs running something are read by IPI */
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res,
			      &ack)) TH_LOG("%s", ack.msg);
	check_rows(_metadata, self->res, n, false);
	EXPECT_LT(0, self->res->ev[0].full);
	some_work();
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res,
			      &ack)) TH_LOG("%s", ack.msg);
	check_rows(_metadata, self->res, n, false);
	TH_LOG("%d CPU rows; cpu-clock %llu ns = %llu on cpu%u + ...",
	       self->res->ncpu, (unsigned long long)self->res->ev[0].full,
	       (unsigned long long)self->res->cpu[0].ev[0].full,
	       self->res->cpu[0].cpu);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

TEST_F(pc, rows_sum_to_totals_system_wide)
{
	rows_sum(_metadata, self, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE);
}

/*
 * perf has no per-CPU value of a task event (its events follow the task):
 * a task session's per-CPU READ is refused, with a message.
 */
TEST_F(pc, per_cpu_read_of_a_task_session_refused)
{
	struct cst_ack ack;
	uint32_t id;

	ASSERT_EQ(0, cst_new(&self->s, getpid(), 0, &ev_cpu_clock, 1, self->res,
			     &ack)) TH_LOG("%s", ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	some_work();
	EXPECT_EQ(-EINVAL, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU,
				    self->res, &ack));
	EXPECT_NE(NULL, strstr(ack.msg, "system-wide")) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, cst_read(&self->s, id, 0, self->res, &ack));
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

/*
 * The same READ as one reply and as a dump, of a stopped session (its
 * values no longer change): the dump's messages, merged, are the reply,
 * value for value; none is over a page. With 16 events a CPU's nest
 * (about 3.8 KiB) does not fit in one message: its parts are merged.
 */
TEST_F(pc, dump_is_the_reply)
{
	struct cst_res *d = calloc(1, sizeof(*d));
	long page = sysconf(_SC_PAGESIZE);
	struct cst_ev ev[CTXCOUNT_MAX_EVENTS];
	int n = cst_sixteen_events(ev);
	struct cst_ack ack;
	char what[256];
	uint32_t id;

	ASSERT_NE(NULL, d);
	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, ev, n,
			     self->res, &ack)) TH_LOG("%s", ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	some_work();
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
	ASSERT_EQ(0, cst_read(&self->s, id, 0, self->res, &ack)) TH_LOG("%s", ack.msg);
	ASSERT_EQ(0, cst_read_dump(&self->s, id, 0, d, &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, cst_res_diff(self->res, d, what, sizeof(what)))
		TH_LOG("totals: the dump differs in %s", what);
	EXPECT_EQ(self->res->attr_seen, d->attr_seen);
	EXPECT_EQ(0, d->ncpu);
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res,
			      &ack)) TH_LOG("%s", ack.msg);
	ASSERT_EQ(0, cst_read_dump(&self->s, id, CTXCOUNT_READ_F_PER_CPU, d,
				   &ack)) TH_LOG("%s", ack.msg);
	check_rows(_metadata, d, n, false);
	EXPECT_EQ(0, cst_res_diff(self->res, d, what, sizeof(what)))
		TH_LOG("per CPU: the dump differs in %s", what);
	TH_LOG("%d CPUs: reply of %u bytes; dump of %d messages up to %u bytes, the CPUs in %d nests",
	       d->ncpu, self->res->max_msg_len, d->nmsg, d->max_msg_len,
	       d->cpu_nests);
	EXPECT_LE(d->max_msg_len, page);
	EXPECT_EQ(d->ncpu + d->cpu_parts, d->cpu_nests);
	EXPECT_LE(d->ncpu, d->cpu_parts) TH_LOG("every CPU's nest is split");
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
	free(d);
}

/* Pin the caller to @cpu; 0 or -errno. */
static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static int cpu_of_row(const struct cst_res *r, int k)
{
	return r->cpu[k].has_cpu ? (int)r->cpu[k].cpu : -1;
}

/* Touch @pages fresh pages; the page faults taken, by getrusage(). */
static long fault_pages(int pages)
{
	long sz = sysconf(_SC_PAGESIZE);
	struct rusage r0, r1;
	char *p;
	int i;

	getrusage(RUSAGE_SELF, &r0);
	p = mmap(NULL, pages * sz, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 0;
	/* A fault per page: a huge page would take 512 in one. */
	madvise(p, pages * sz, MADV_NOHUGEPAGE);
	for (i = 0; i < pages; i++)
		p[i * sz] = 1;
	munmap(p, pages * sz);
	getrusage(RUSAGE_SELF, &r1);
	return r1.ru_minflt - r0.ru_minflt + r1.ru_majflt - r0.ru_majflt;
}

#define PC_PAGES 2000

/*
 * Sessions on CPU 0 and on CPU 1 while this process, pinned to CPU 0,
 * touches PC_PAGES fresh pages, without huge pages (the faults
 * getrusage() counts are the oracle; with THP, 8 MiB once took 5): CPU 1's session has CPU 1's
 * row only and far fewer faults (only what else ran there), CPU 0's has
 * CPU 0's row only and at least the faults. (Not cpu-clock: as perf's CPU events,
 * theirs count the CPU's whole time, idle or not.)
 */
TEST_F(pc, cpu_list_counts_only_its_cpus)
{
	const int cpu0 = 0, cpu1 = 1;
	struct cst_res *r0 = calloc(1, sizeof(*r0));
	struct cst_ack ack;
	uint32_t id0, id1;
	cpu_set_t saved;
	long faults;

	ASSERT_NE(NULL, r0);
	if (cst_cpu_is_online(1) != 1)
		SKIP(free(r0); return, "needs CPUs 0 and 1 online (run with --smp 2)");
	ASSERT_EQ(0, sched_getaffinity(0, sizeof(saved), &saved));
	ASSERT_EQ(0, cst_new_cpus(&self->s, &ev_faults, 1, &cpu1, 1,
				  self->res, &ack)) TH_LOG("%s", ack.msg);
	id1 = self->res->id;
	ASSERT_EQ(0, cst_new_cpus(&self->s, &ev_faults, 1, &cpu0, 1, r0, &ack))
		TH_LOG("%s", ack.msg);
	id0 = r0->id;
	ASSERT_EQ(0, pin(0));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id0, NULL, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id1, NULL, NULL));
	faults = fault_pages(PC_PAGES);
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id1, NULL, NULL));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id0, NULL, NULL));
	sched_setaffinity(0, sizeof(saved), &saved);
	ASSERT_EQ(0, cst_read(&self->s, id1, CTXCOUNT_READ_F_PER_CPU, self->res,
			      &ack)) TH_LOG("%s", ack.msg);
	ASSERT_EQ(0, cst_read(&self->s, id0, CTXCOUNT_READ_F_PER_CPU, r0, &ack))
		TH_LOG("%s", ack.msg);
	TH_LOG("%ld page faults on cpu0; session on cpu1: %llu, on cpu0: %llu",
	       faults, (unsigned long long)self->res->ev[0].full,
	       (unsigned long long)r0->ev[0].full);
	ASSERT_EQ(1, self->res->ncpu);
	EXPECT_EQ(1, cpu_of_row(self->res, 0));
	EXPECT_EQ(self->res->ev[0].full, self->res->cpu[0].ev[0].full);
	ASSERT_LT(10, faults);
	EXPECT_LT(self->res->ev[0].full, faults / 2);
	ASSERT_EQ(1, r0->ncpu);
	EXPECT_EQ(0, cpu_of_row(r0, 0));
	EXPECT_EQ(r0->ev[0].full, r0->cpu[0].ev[0].full);
	EXPECT_GE(r0->ev[0].full, faults);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id0, NULL, NULL);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id1, NULL, NULL);
	free(r0);
}

/* NEW with a raw CPU list nest; the ack (the session deleted if made). */
static int new_with_list(FIXTURE_DATA(pc) *self, uint32_t tflags, int pid,
			 const int *cpus, int n, struct cst_ack *ack)
{
	int fd = cst_proof_open(pid, tflags, &ev_cpu_clock);
	struct nl_msg *m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_NEW);
	int ret;

	if (fd < 0 || !m)
		return -ENOMEM;
	cst_put_target_cpus(m, pid, tflags, cpus, n);
	cst_put_events_fds(m, &ev_cpu_clock, 1, &fd);
	ret = cst_xfer(&self->s, m, self->res, ack);
	close(fd);
	if (!ret)
		cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, self->res->id, NULL, NULL);
	return ret;
}

TEST_F(pc, bad_cpu_lists)
{
	const int sw = CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	const int twice[] = { 0, 0 }, absent[] = { 0, 4095 }, zero = 0;
	struct cst_ack ack;

	EXPECT_EQ(-EINVAL, new_with_list(self, sw, -1, NULL, 0, &ack));
	EXPECT_STREQ("empty CPU list", ack.msg);
	EXPECT_EQ(-EINVAL, new_with_list(self, sw, -1, twice, 2, &ack));
	EXPECT_STREQ("CPU listed twice", ack.msg);
	EXPECT_TRUE(ack.has_off);
	EXPECT_EQ(-EINVAL, new_with_list(self, sw, -1, absent, 2, &ack));
	EXPECT_STREQ("no such CPU", ack.msg);
	EXPECT_TRUE(ack.has_off);
	EXPECT_EQ(-EINVAL, new_with_list(self, 0, getpid(), &zero, 1, &ack));
	EXPECT_STREQ("a CPU list needs SYSTEM_WIDE", ack.msg);
	EXPECT_EQ(0, new_with_list(self, sw, -1, &zero, 1, &ack)) TH_LOG("%s", ack.msg);
}

/* A listed CPU must be online: perf_event_open() wants it online too. */
TEST_F(pc, offline_cpu_refused)
{
	const int last = sysconf(_SC_NPROCESSORS_CONF) - 1;
	struct cst_ack ack;
	int ret;

	if (last < 1 || cst_cpu_set_online(last, 0))
		SKIP(return, "no CPU can be taken offline here");
	ret = new_with_list(self, CTXCOUNT_TARGET_F_SYSTEM_WIDE, -1, &last, 1, &ack);
	ASSERT_EQ(0, cst_cpu_set_online(last, 1));
	EXPECT_EQ(-ENODEV, ret);
	EXPECT_STREQ("CPU is offline", ack.msg);
}

/* Spin 100 ms pinned to @cpu (in a child: the caller keeps its affinity). */
static int spin_on(int cpu)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid)
		_exit(pin(cpu) ? 1 : (cst_spin_ms(100), 0));
	if (waitpid(pid, &status, 0) != pid)
		return -errno;
	return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : -EIO;
}

/*
 * A CPU that counted and went offline keeps its row (and its counts in
 * the totals); back online, it counts on.
 */
TEST_F(pc, offline_cpu_keeps_its_row)
{
	const int last = sysconf(_SC_NPROCESSORS_CONF) - 1;
	uint64_t before = 0;
	struct cst_ack ack;
	uint32_t id;
	int k, found = 0;

	if (last < 1 || cst_cpu_is_online(last) != 1)
		SKIP(return, "no CPU can be taken offline here");
	ASSERT_EQ(0, cst_new(&self->s, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     &ev_cpu_clock, 1, self->res, &ack)) TH_LOG("%s", ack.msg);
	id = self->res->id;
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	ASSERT_EQ(0, spin_on(last));
	if (cst_cpu_set_online(last, 0))
		SKIP(return, "cpu%d cannot be taken offline here", last);
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res, &ack));
	EXPECT_EQ(0, cst_cpu_set_online(last, 1));
	check_rows(_metadata, self->res, 1, true);
	for (k = 0; k < self->res->ncpu; k++) {
		if (self->res->cpu[k].cpu != (uint32_t)last)
			continue;
		found = 1;
		before = self->res->cpu[k].ev[0].full;
	}
	EXPECT_TRUE(found) TH_LOG("no row for offline cpu%d", last);
	EXPECT_LT(50000000, before) TH_LOG("cpu%d counted %llu ns of a 100 ms spin",
					   last, (unsigned long long)before);
	/* online again: a fresh counter (the fill work) counts on */
	usleep(200000);
	ASSERT_EQ(0, spin_on(last));
	ASSERT_EQ(0, cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_STOP, id, NULL, NULL));
	ASSERT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res, &ack));
	check_rows(_metadata, self->res, 1, false);
	for (k = 0; k < self->res->ncpu; k++)
		if (self->res->cpu[k].cpu == (uint32_t)last)
			EXPECT_LT(before + 50000000, self->res->cpu[k].ev[0].full);
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

TEST_F(pc, bad_read_flags)
{
	struct cst_ack ack;
	struct nl_msg *m;
	uint32_t id;

	ASSERT_EQ(0, cst_new_cpus(&self->s, &ev_cpu_clock, 1, NULL, -1,
				  self->res, &ack)) TH_LOG("%s", ack.msg);
	id = self->res->id;
	EXPECT_EQ(-EOPNOTSUPP, cst_read(&self->s, id, 1U << 31, self->res, &ack));
	EXPECT_STREQ("unknown read flags", ack.msg);
	EXPECT_TRUE(ack.has_off);
	/* a u64 where the policy says u32 */
	m = cst_msg(&self->s, CTXCOUNT_CMD_SESSION_READ);
	ASSERT_NE(NULL, m);
	nla_put_u32(m, CTXCOUNT_A_SESSION_ID, id);
	nla_put_u64(m, CTXCOUNT_A_READ_FLAGS, CTXCOUNT_READ_F_PER_CPU);
	EXPECT_EQ(-EINVAL, cst_xfer(&self->s, m, self->res, &ack));
	EXPECT_TRUE(ack.has_msg);
	EXPECT_EQ(0, cst_read(&self->s, id, CTXCOUNT_READ_F_PER_CPU, self->res, &ack));
	cst_cmd(&self->s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
}

/* What uid 65534 saw, in shared memory. */
struct unpriv {
	int perf_err;		/* perf_event_open(pid -1, cpu 1): 0 or -errno */
	int no_proof, own_proof;	/* NEW on CPU 1 without and with a stand-in */
	bool no_proof_msg, own_proof_msg;
};

static int try_cpu_list(void *arg)
{
	struct unpriv *u = arg;
	const int cpu = 1;
	struct cst_ack ack;
	struct cst_sock s;
	struct nl_msg *m;
	int fd;

	if (cst_open(&s))
		return 1;
	fd = cst_proof_open(-1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, &ev_cpu_clock);
	u->perf_err = fd < 0 ? fd : 0;
	if (fd >= 0)
		close(fd);
	fd = -1;
	m = cst_msg(&s, CTXCOUNT_CMD_SESSION_NEW);
	cst_put_target_cpus(m, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, &cpu, 1);
	cst_put_events_fds(m, &ev_cpu_clock, 1, &fd);
	u->no_proof = cst_xfer(&s, m, NULL, &ack);
	u->no_proof_msg = ack.has_msg;
	/* its own process's cpu-clock: all perf gives it at paranoid 1 */
	fd = cst_proof_open(getpid(), 0, &ev_cpu_clock);
	m = cst_msg(&s, CTXCOUNT_CMD_SESSION_NEW);
	cst_put_target_cpus(m, -1, CTXCOUNT_TARGET_F_SYSTEM_WIDE, &cpu, 1);
	cst_put_events_fds(m, &ev_cpu_clock, 1, &fd);
	u->own_proof = cst_xfer(&s, m, NULL, &ack);
	u->own_proof_msg = ack.has_msg;
	if (fd >= 0)
		close(fd);
	cst_close(&s);
	return 0;
}

/*
 * perf stat -a -C needs CPU events: paranoid <= 0 or CAP_PERFMON. At
 * paranoid 1, uid 65534 is refused them by perf, so by the module (with
 * no proof or its own process's) and by ctxstat -C, in perf's words.
 */
TEST_F(pc, unprivileged_cpu_list_refused)
{
	char *argv[] = { (char *)cst_ctxstat_path(), "-C", "1", "-A", "-e",
			 "cpu-clock", "--", "/bin/true", NULL };
	struct unpriv *u = mmap(NULL, sizeof(*u), PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct cst_run *run = calloc(1, sizeof(*run));
	long saved;

	ASSERT_NE(MAP_FAILED, u);
	ASSERT_NE(NULL, run);
	if (cst_cpu_is_online(1) != 1)
		SKIP(return, "needs CPU 1 online (run with --smp 2)");
	ASSERT_EQ(0, cst_paranoid_get(&saved));
	ASSERT_EQ(0, cst_paranoid_set(1));
	memset(u, 0, sizeof(*u));
	ASSERT_EQ(0, cst_call_as(NOBODY, NOBODY, try_cpu_list, u));
	if (!access(argv[0], X_OK))
		cst_run_as(run, argv, 60, NOBODY, NOBODY);
	EXPECT_EQ(0, cst_paranoid_set(saved));
	EXPECT_TRUE(u->perf_err == -EACCES || u->perf_err == -EPERM)
		TH_LOG("perf_event_open of a CPU event as 65534 at paranoid 1: %d",
		       u->perf_err);
	EXPECT_EQ(-EACCES, u->no_proof);
	EXPECT_TRUE(u->no_proof_msg);
	EXPECT_EQ(-EACCES, u->own_proof);
	EXPECT_TRUE(u->own_proof_msg);
	if (access(argv[0], X_OK)) {
		munmap(u, sizeof(*u));
		free(run);
		SKIP(return, "ctxstat not found at %s", argv[0]);
	}
	EXPECT_FALSE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("ctxstat -C 1 as uid 65534 succeeded");
	EXPECT_NE(NULL, strstr(run->err, "perf_event_paranoid setting is 1"))
		TH_LOG("stderr:\n%s", run->err);
	EXPECT_NE(NULL, strstr(run->err, "CAP_PERFMON")) TH_LOG("stderr:\n%s", run->err);
	munmap(u, sizeof(*u));
	free(run);
}

/*
 * Sum of @event's -A CSV rows ("CPUn,value,,event,...") and their CPUs.
 * A CPU where no counted task ran (an idle vCPU of a bigger guest) has a
 * <not counted> row and no context rows: 0.
 */
static double csv_cpu_sum(const char *text, const char *event, int *ncpu,
			  int *cpus)
{
	char name[96];
	double v, sum = 0;
	const char *p;
	int cpu;

	*ncpu = 0;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		v = 0;
		if ((sscanf(p, "CPU%d,%lf,,%95[^,\n]", &cpu, &v, name) != 3 &&
		     sscanf(p, "CPU%d,<not counted>,,%95[^,\n]", &cpu, name) != 2) ||
		    strcmp(name, event))
			continue;
		cpus[(*ncpu)++ % 8] = cpu;
		sum += v;
	}
	return sum;
}

/* The sum of @event's context rows ("@event [context]") over the CPUs. */
static double context_rows_sum(const char *text, const char *event)
{
	static const char *const ctx[] = {
		"task", "irq entry/exit estimate", "hardirq", "nmi",
		"softirq:HI", "softirq:TIMER", "softirq:NET_TX", "softirq:NET_RX",
		"softirq:BLOCK", "softirq:IRQ_POLL", "softirq:TASKLET",
		"softirq:SCHED", "softirq:HRTIMER", "softirq:RCU",
	};
	char name[96];
	double sum = 0;
	int ncpu, cpus[8];
	size_t i;

	for (i = 0; i < sizeof(ctx) / sizeof(ctx[0]); i++) {
		snprintf(name, sizeof(name), "%s [%s]", event, ctx[i]);
		sum += csv_cpu_sum(text, name, &ncpu, cpus);
	}
	return sum;
}

/*
 * ctxstat -a -A: one row per online CPU for each event; -C 1 -A: CPU 1's
 * only. context-switches are counted, not timed: the rows are integers.
 * The harness's bound is past its runs' own (60 s each), which say where
 * a run that does not end waits; 64 vCPUs of a busy 2-core host need more
 * than the harness's default 30 s.
 */
TEST_F_TIMEOUT(pc, ctxstat_no_aggr_rows, 150)
{
	char *all[] = { (char *)cst_ctxstat_path(), "-a", "-A", "-x,", "--breakdown",
			"-e", "context-switches", "--", (char *)cst_workload_path(),
			"spin", "100", NULL };
	char *one[] = { (char *)cst_ctxstat_path(), "-C", "1", "-A", "-x,",
			"-e", "context-switches", "--", "/bin/true", NULL };
	struct cst_run *run = calloc(1, sizeof(*run));
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	int ncpu, cpus[8];
	double sum;

	ASSERT_NE(NULL, run);
	if (access(all[0], X_OK))
		SKIP(free(run); return, "ctxstat not found at %s", all[0]);
	cst_run(run, all, 60);
	ASSERT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("%s", run->err);
	sum = csv_cpu_sum(run->err, "context-switches", &ncpu, cpus);
	EXPECT_EQ(online, ncpu) TH_LOG("%s", run->err);
	EXPECT_LT(0, sum);
	/* each CPU's context rows sum to its row */
	EXPECT_EQ(sum, context_rows_sum(run->err, "context-switches"))
		TH_LOG("%s", run->err);
	if (online < 2) {
		free(run);
		SKIP(return, "-C 1 needs a second CPU (run with --smp 2)");
	}
	cst_run(run, one, 60);
	ASSERT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("%s", run->err);
	csv_cpu_sum(run->err, "context-switches", &ncpu, cpus);
	EXPECT_EQ(1, ncpu) TH_LOG("%s", run->err);
	EXPECT_EQ(1, cpus[0]);
	free(run);
}

/*
 * Sum of @event's -A -I CSV rows of CPU @cpu ("time,CPUn,value,,event"),
 * and its --summary row ("summary,CPUn,...") in @total (-1: none).
 */
static double csv_cpu_intervals(const char *text, const char *event, int cpu,
				int *n, double *total)
{
	char name[96], first[32];
	double v, sum = 0;
	const char *p;
	int c;

	*n = 0;
	*total = -1;
	for (p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		v = 0;
		if ((sscanf(p, " %31[^,],CPU%d,%lf,,%95[^,\n]", first, &c, &v,
			    name) != 4 &&
		     sscanf(p, " %31[^,],CPU%d,<not counted>,,%95[^,\n]", first,
			    &c, name) != 3) ||
		    c != cpu || strcmp(name, event))
			continue;
		if (!strcmp(first, "summary")) {
			*total = v;
		} else {
			sum += v;
			(*n)++;
		}
	}
	return sum;
}

/*
 * ctxstat -a -A -I: each CPU's intervals add up exactly to its --summary
 * row (the READ after STOP), for a count (context-switches) and its
 * context rows. An interval in which nothing ran on a CPU is
 * <not counted> there (and its difference 0); a CPU where nothing ran
 * all along (idle vCPUs of a 16-vCPU guest) has no context rows.
 */
TEST_F_TIMEOUT(pc, ctxstat_no_aggr_intervals_sum, 150)	/* run: 120 s */
{
	char *argv[] = { (char *)cst_ctxstat_path(), "-a", "-A", "-I", "100",
			 "--summary", "--breakdown", "-x,", "-e", "context-switches",
			 "--", (char *)cst_workload_path(), "spin", "350", NULL };
	static const char *const rows[] = {
		"context-switches", "context-switches [task]",
		"context-switches [hardirq]",
	};
	struct cst_run *run = calloc(1, sizeof(*run));
	long online = sysconf(_SC_NPROCESSORS_ONLN);
	double sum, total, total0;
	unsigned int i;
	int cpu, n, n0;

	ASSERT_NE(NULL, run);
	if (access(argv[0], X_OK))
		SKIP(free(run); return, "ctxstat not found at %s", argv[0]);
	cst_run(run, argv, 120);
	ASSERT_TRUE(WIFEXITED(run->status) && WEXITSTATUS(run->status) == 0)
		TH_LOG("%s", run->err);
	for (cpu = 0; cpu < online; cpu++) {
		for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
			sum = csv_cpu_intervals(run->err, rows[i], cpu, &n, &total);
			/* nothing counted there all along: no context rows */
			if (i && !n && csv_cpu_intervals(run->err, rows[0], cpu,
							 &n0, &total0) == 0 &&
			    !total0)
				continue;
			EXPECT_LE(1, n) TH_LOG("cpu %d %s:\n%s", cpu, rows[i], run->err);
			EXPECT_LE(0, total) TH_LOG("cpu %d %s: no summary", cpu, rows[i]);
			EXPECT_EQ(total, sum) TH_LOG("cpu %d %s", cpu, rows[i]);
		}
	}
	csv_cpu_intervals(run->err, "context-switches", 0, &n, &total);
	TH_LOG("%d intervals; cpu0's context-switches %.0f", n, total);
	free(run);
}

CST_TEST_MAIN
