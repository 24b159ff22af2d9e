// SPDX-License-Identifier: GPL-2.0
/*
 * Attribution proved with oracles: interrupts that do known work, made by
 * the test bed's oracle module (scripts/testbed/oracle_mod.c) on the CPU of
 * a monitored child, on that child's request.
 *
 * Under QEMU -icount (arm64) with one vCPU the instruction counter is exact
 * and deterministic, so:
 *   - N hardirqs of K loop iterations (2 instructions each) put
 *     N * 2K + N * c in [hardirq], where c is the fixed cost of one
 *     interrupt inside the bucket. Two runs with K1 and K2 cancel c
 *     exactly: H(K2) - H(K1) == N * 2 * (K2 - K1), and :t does not move.
 *     c is printed, and so is what one interrupt leaves in :t (the
 *     residual: :t of N interrupts minus :t of none, over N);
 *   - tasklets of M iterations scheduled by those hardirqs (the softirq
 *     runs on the way out of the hardirq), and tasklets the child runs
 *     itself from local_bh_enable(), land in [softirq:TASKLET] the same
 *     way: S(M2) - S(M1) == N * 2 * (M2 - M1);
 *   - the session's full count agrees with a perf_event_open() counter on
 *     the same child: an independent count, not the buckets' own sum.
 * A run in which any interrupt other than the oracle's landed on the CPU
 * (the timer tick) is repeated: the check is about the oracle's work.
 *
 * On x86 (no PMU under TCG) NMIs sent to the child's CPU, each spinning a
 * known time, must land in [nmi] for cpu-clock, as many as were sent.
 */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

#include "kselftest_harness.h"
#include "cst.h"

#define ORACLE_RUN	"/sys/kernel/debug/ctxoracle/run"
#define ORACLE_STATS	"/sys/kernel/debug/ctxoracle/stats"
/* Runs with a foreign interrupt (mostly the 4 ms tick) are repeated. */
#define ORACLE_TRIES	20

#define ORACLE_N	50	/* interrupts per run */
#define ORACLE_K1	200	/* loop iterations, first run */
#define ORACLE_K2	2200	/* loop iterations, second run */
/*
 * |full - perf_event_open| per command, in instructions. The child switches
 * in and out about twice per command, and the two count from different
 * points of a context switch (the sched_switch tracepoint; perf's
 * sched_in/sched_out), a few hundred instructions apart: measured 400 to
 * 510 on arm64 6.1.
 */
#define ORACLE_PERF_SLACK	2000

#define ORACLE_NMIS	20	/* NMIs per run */
#define ORACLE_NMI_NS	200000	/* each spinning this long */

struct oracle_stats {
	long hardirqs, tasklets, nmis, storm;
};

static int oracle_stats_read(struct oracle_stats *st)
{
	FILE *f = fopen(ORACLE_STATS, "r");
	int n;

	if (!f)
		return -errno;
	n = fscanf(f, "hardirqs %ld tasklets %ld nmis %ld storm %ld",
		   &st->hardirqs, &st->tasklets, &st->nmis, &st->storm);
	fclose(f);
	return n == 4 ? 0 : -EPROTO;
}

/* The NMI row of /proc/interrupts, all CPUs (0 where there is none). */
static long long oracle_proc_nmis(void)
{
	FILE *f = fopen("/proc/interrupts", "r");
	long long total = 0;
	char line[4096], *p, *end;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		p = line + strspn(line, " ");
		if (strncmp(p, "NMI:", 4))
			continue;
		for (p += 4;; p = end) {
			long long v = strtoll(p, &end, 10);

			if (end == p)
				break;
			total += v;
		}
	}
	fclose(f);
	return total;
}

static const char *oracle_ko_path(void)
{
	static char path[512];
	const char *env = getenv("CTX_ORACLE_KO");

	if (env)
		return env;
	snprintf(path, sizeof(path), "%s/../testbed/oracle_mod.ko", cst_self_dir());
	return path;
}

/* Load the oracle module unless it is loaded; 0 or -errno. */
static int oracle_load(void)
{
	int fd, ret = 0;

	if (!access(ORACLE_RUN, W_OK))
		return 0;
	fd = open(oracle_ko_path(), O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (syscall(SYS_finit_module, fd, "", 0) && errno != EEXIST)
		ret = -errno;
	close(fd);
	return ret;
}

/* Write one command; in the child, whose counts are being checked. */
static int oracle_cmd(const char *cmd)
{
	int fd = open(ORACLE_RUN, O_WRONLY | O_CLOEXEC);
	int ret = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd))
		ret = -errno;
	close(fd);
	return ret;
}

/*
 * The monitored child: runs each command it reads from @cmd_fd, answers
 * on @ack_fd, exits at end of file. One long-lived process, so that what
 * its own task context costs from one command to the next (pipe, syscall
 * and scheduler paths, all warm) hardly varies; a new process per command
 * varied by thousands of instructions (page faults, exit).
 */
struct oracle_worker {
	struct cst_child c;
	int cmd_fd, ack_fd;
	struct cst_sock s;
	uint32_t id;
	int pfd;
};

static void oracle_worker_loop(int cmd_fd, int ack_fd)
{
	char buf[64];
	ssize_t n;

	unsigned long long iters;
	int err;

	while ((n = read(cmd_fd, buf, sizeof(buf) - 1)) > 0) {
		buf[n] = 0;
		err = 0;
		if (sscanf(buf, "loop %llu", &iters) == 1)
			cst_loop(iters);
		else
			err = oracle_cmd(buf);
		if (write(ack_fd, err ? "e" : "k", 1) != 1)
			_exit(2);
	}
	_exit(n ? 1 : 0);
}

/* A per-task counter on @pid, as perf stat opens it. */
static int oracle_perf_open(pid_t pid, uint32_t type, uint64_t config)
{
	struct perf_event_attr pa = {
		.size = sizeof(pa),
		.type = type,
		.config = config,
	};

	return syscall(SYS_perf_event_open, &pa, pid, -1, -1, 0);
}

/*
 * Start the child with a started session of @nev events on it and, with
 * @perf, a perf_event_open() counter of @ev[0] on it too.
 */
static int oracle_worker_start(struct oracle_worker *w, const struct cst_ev *ev,
			       int nev, bool perf, struct cst_res *r)
{
	int cmd[2], ack[2], ret;

	w->pfd = -1;
	if (pipe2(cmd, O_CLOEXEC))
		return -errno;
	if (pipe2(ack, O_CLOEXEC)) {
		ret = -errno;
		goto close_cmd;
	}
	fflush(stdout);
	fflush(stderr);
	w->c.pid = fork();
	if (w->c.pid < 0) {
		ret = -errno;
		goto close_ack;
	}
	if (!w->c.pid) {
		close(cmd[1]);
		close(ack[0]);
		oracle_worker_loop(cmd[0], ack[1]);
	}
	close(cmd[0]);
	close(ack[1]);
	w->cmd_fd = cmd[1];
	w->ack_fd = ack[0];
	ret = cst_open(&w->s);
	if (ret)
		goto stop;
	ret = cst_new(&w->s, w->c.pid, 0, ev, nev, r, NULL) ?:
	      cst_cmd(&w->s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL);
	w->id = r->id;
	if (!ret && perf) {
		w->pfd = oracle_perf_open(w->c.pid, ev[0].type, ev[0].config);
		if (w->pfd < 0)
			ret = -errno;
	}
	if (!ret)
		return 0;
	cst_close(&w->s);
stop:
	close(w->cmd_fd);
	close(w->ack_fd);
	cst_child_wait(&w->c);
	return ret;

close_ack:
	close(ack[0]);
	close(ack[1]);
close_cmd:
	close(cmd[0]);
	close(cmd[1]);
	return ret;
}

static void oracle_worker_stop(struct oracle_worker *w)
{
	if (w->pfd >= 0)
		close(w->pfd);
	cst_close(&w->s);
	close(w->cmd_fd);
	close(w->ack_fd);
	cst_child_wait(&w->c);
}

/* What one command added: the session's counts and perf's. */
struct oracle_delta {
	struct cst_res before, after;
	long long perf;
	long nmis;		/* the oracle's NMI handler ran */
	long long proc_nmis;	/* NMIs in /proc/interrupts */
};

/*
 * Run @cmd in the child; fill @d with the session before and after it.
 * With @strict, repeated while an interrupt other than the oracle's landed
 * meanwhile. Returns 0, -EAGAIN when every try had a foreign interrupt, or another
 * negative errno.
 */
static int oracle_run(struct oracle_worker *w, const char *cmd,
		      struct oracle_delta *d, bool strict)
{
	struct oracle_stats s0, s1;
	unsigned long long i0, i1;
	long long p0 = 0, p1 = 0, n0, n1;
	int try, ret;
	char ack;

	for (try = 0; try < ORACLE_TRIES; try++) {
		ret = cst_cmd(&w->s, CTXCOUNT_CMD_SESSION_READ, w->id, &d->before, NULL) ?:
		      oracle_stats_read(&s0);
		if (ret)
			return ret;
		if (w->pfd >= 0 && read(w->pfd, &p0, sizeof(p0)) != sizeof(p0))
			return -EIO;
		n0 = oracle_proc_nmis();
		i0 = cst_total_interrupts();
		if (write(w->cmd_fd, cmd, strlen(cmd)) != (ssize_t)strlen(cmd) ||
		    read(w->ack_fd, &ack, 1) != 1)
			return -EPIPE;
		i1 = cst_total_interrupts();
		n1 = oracle_proc_nmis();
		if (ack != 'k')
			return -EIO;
		ret = oracle_stats_read(&s1) ?:
		      cst_cmd(&w->s, CTXCOUNT_CMD_SESSION_READ, w->id, &d->after, NULL);
		if (ret)
			return ret;
		if (w->pfd >= 0 && read(w->pfd, &p1, sizeof(p1)) != sizeof(p1))
			return -EIO;
		d->perf = p1 - p0;
		d->nmis = s1.nmis - s0.nmis;
		d->proc_nmis = n1 - n0;
		/* The oracle's own hardirqs show in /proc/interrupts too. */
		if (!strict || i1 - i0 == (unsigned long long)(s1.hardirqs - s0.hardirqs) +
				d->nmis)
			return 0;
	}
	return -EAGAIN;
}

static long long oracle_bucket(const struct oracle_delta *d, int e, int b)
{
	return (long long)(d->after.ev[e].b[b] - d->before.ev[e].b[b]);
}

static const struct cst_ev one_event[] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
};

/* With shift=0 QEMU's cycle counter counts instructions too. */
static const struct cst_ev four_events[] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
};

FIXTURE(oracle) {
	int kmsg;
	struct oracle_delta *d;
};

FIXTURE_VARIANT(oracle) {
	const struct cst_ev *ev;
	int nev;
};

FIXTURE_VARIANT_ADD(oracle, one_event) {
	.ev = one_event,
	.nev = 1,
};

FIXTURE_VARIANT_ADD(oracle, four_events) {
	.ev = four_events,
	.nev = 4,
};

/* Why the exact-count oracles cannot run here, or NULL. */
static const char *oracle_exact_cannot_run(void)
{
	static char why[128];

	if (cst_no_insn_reason(why, sizeof(why)))
		return why;
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		return "more than one CPU: under -icount each vCPU counts the others (run with scripts/vm --smp 1)";
	return NULL;
}

#define ORACLE_ROUNDS	5	/* rounds of the three commands */

FIXTURE_SETUP(oracle)
{
	int err = oracle_load();

	if (err)
		SKIP(return, "oracle module %s: %s", oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->d = calloc(3 * ORACLE_ROUNDS, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
}

FIXTURE_TEARDOWN(oracle)
{
	free(self->d);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

static long long oracle_full(const struct oracle_delta *d, int e)
{
	return (long long)(d->after.ev[e].full - d->before.ev[e].full);
}

/* The least :t of event @e over the rounds of command @c. */
static long long oracle_min_task(FIXTURE_DATA(oracle) *self, int c, int e)
{
	long long t, min = LLONG_MAX;
	int i;

	for (i = 0; i < ORACLE_ROUNDS; i++) {
		t = oracle_bucket(&self->d[3 * i + c], e, CTXCOUNT_BUCKET_TASK);
		if (t < min)
			min = t;
	}
	return min;
}

/*
 * A warm-up round, then ORACLE_ROUNDS rounds of the commands @cmd[0..2]
 * (work a, work b, no interrupt) in one child. Per round and event:
 * @bucket grows by exactly @want from a to b, and the session's full
 * count agrees with perf's. Per event: :t does not move with the work (the
 * least :t of each command over the rounds: what the child's own task
 * context costs varies upwards now and then, by a few thousand
 * instructions, when a pipe or scheduler path takes a slow branch). The
 * fixed cost per interrupt inside the bucket and what one interrupt leaves
 * in :t are printed.
 */
static void oracle_check(struct __test_metadata *_metadata,
			 FIXTURE_DATA(oracle) *self,
			 const FIXTURE_VARIANT(oracle) *variant,
			 char cmd[3][64], int bucket, long long work_a,
			 long long want)
{
	struct oracle_delta *a, *b, *z;
	struct oracle_worker w;
	long long db, dt, full;
	int i, e, err;

	err = oracle_worker_start(&w, variant->ev, variant->nev, true, &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	for (i = -3; i < 3 * ORACLE_ROUNDS; i++) {
		err = oracle_run(&w, cmd[(i + 3) % 3], &self->d[i < 0 ? 0 : i], true);
		if (err)
			break;
	}
	oracle_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("'%s': %s", cmd[(i + 3) % 3], strerror(-err));
	for (i = 0; i < 3 * ORACLE_ROUNDS; i++) {
		full = oracle_full(&self->d[i], 0);
		EXPECT_LE(llabs(full - self->d[i].perf), ORACLE_PERF_SLACK)
			TH_LOG("'%s': full %lld, perf_event_open %lld", cmd[i % 3], full, self->d[i].perf);
	}
	for (i = 0; i < ORACLE_ROUNDS; i++) {
		a = &self->d[3 * i];
		b = a + 1;
		z = a + 2;
		for (e = 0; e < variant->nev; e++) {
			ASSERT_EQ(0, a->after.ev[e].error);
			db = oracle_bucket(b, e, bucket) - oracle_bucket(a, e, bucket);
			EXPECT_EQ(want, db) TH_LOG("round %d event %d: %s %+lld", i, e,
						   cst_bucket_name(bucket), db);
			if (e || i)
				continue;
			ksft_print_msg("%s: %s grows by %lld for %lld more instructions of work; "
				       "full %lld, perf_event_open %lld\n", cmd[0],
				       cst_bucket_name(bucket), db, want,
				       oracle_full(a, e), a->perf);
		}
	}
	for (e = 0; e < variant->nev; e++) {
		a = &self->d[0];
		z = &self->d[2];
		dt = oracle_min_task(self, 1, e) - oracle_min_task(self, 0, e);
		ksft_print_msg("event %d (%s): :t %+lld from a to b; per interrupt: %.1f in %s "
			       "besides the work, %.1f left in :t\n", e, variant->ev[e].name, dt,
			       (double)(oracle_bucket(a, e, bucket) - oracle_bucket(z, e, bucket) -
					work_a) / ORACLE_N, cst_bucket_name(bucket),
			       (double)(oracle_min_task(self, 0, e) - oracle_min_task(self, 2, e)) /
			       ORACLE_N);
		EXPECT_LE(llabs(dt), want / 200)
			TH_LOG("event %d: :t moved %+lld with %lld instructions of interrupt work",
			       e, dt, want);
	}
}

TEST_F_TIMEOUT(oracle, hardirq_work_lands_in_hardirq, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "hardirq %d %d 0", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "hardirq %d %d 0", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "hardirq 0 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_HARDIRQ,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

TEST_F_TIMEOUT(oracle, tasklet_after_hardirq_lands_in_tasklet, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "hardirq %d 1 %d", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "hardirq %d 1 %d", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "hardirq 0 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

TEST_F_TIMEOUT(oracle, tasklet_from_task_lands_in_tasklet, 600)
{
	const char *why = oracle_exact_cannot_run();
	char cmd[3][64];

	if (why)
		SKIP(return, "%s", why);
	snprintf(cmd[0], 64, "softirq %d %d", ORACLE_N, ORACLE_K1);
	snprintf(cmd[1], 64, "softirq %d %d", ORACLE_N, ORACLE_K2);
	snprintf(cmd[2], 64, "softirq 0 0");
	oracle_check(_metadata, self, variant, cmd, CTXCOUNT_BUCKET_SOFTIRQ_TASKLET,
		     2LL * ORACLE_N * ORACLE_K1,
		     2LL * ORACLE_N * (ORACLE_K2 - ORACLE_K1));
}

static bool oracle_has_nmi_bucket(void)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct cst_sock s;
	bool has = false;

	if (r && !cst_open(&s)) {
		has = !cst_cmd(&s, CTXCOUNT_CMD_STATS, 0, r, NULL) &&
		      (r->features & CTXCOUNT_FEATURE_NMI);
		cst_close(&s);
	}
	free(r);
	return has;
}

/*
 * ctxcount's NMI handlers bracket the NMI_LOCAL handlers registered before
 * it: loaded after the oracle, ctxcount brackets the oracle's too.
 */
static int oracle_reload_ctxcount(void)
{
	char params[256];

	cst_current_params(params, sizeof(params));
	return cst_rmmod() ?: cst_insmod(params);
}

/*
 * NMIs sent to the child's CPU (x86; no hardware counter under TCG, so
 * cpu-clock): each spins ORACLE_NMI_NS ns of local_clock(), the clock
 * cpu-clock counts, between ctxcount's first and last NMI handler, so
 * [nmi] holds at least ORACLE_NMIS times that; none without NMIs; and
 * exactly the NMIs sent were taken.
 */
FIXTURE(nmi) {
	int kmsg;
	struct oracle_delta *d;
};

FIXTURE_SETUP(nmi)
{
	int err;

	if (!oracle_has_nmi_bucket())
		SKIP(return, "no NMI bucket on this architecture (CTXCOUNT_FEATURE_NMI clear)");
	err = oracle_load();
	if (err)
		SKIP(return, "oracle module %s: %s", oracle_ko_path(), strerror(-err));
	self->kmsg = cst_kmsg_open();
	self->d = calloc(4, sizeof(*self->d));
	ASSERT_NE(NULL, self->d);
}

FIXTURE_TEARDOWN(nmi)
{
	free(self->d);
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

TEST_F_TIMEOUT(nmi, lands_in_nmi, 300)
{
	static const struct cst_ev clock = CST_EV_SW(CPU_CLOCK, 0, "cpu-clock");
	const int N = CTXCOUNT_BUCKET_NMI;
	struct oracle_worker w;
	char cmd[64];
	long long nmi;
	int i, err;

	err = oracle_reload_ctxcount();
	ASSERT_EQ(0, err) TH_LOG("reloading ctxcount: %s", strerror(-err));
	err = oracle_worker_start(&w, &clock, 1, false, &self->d[0].before);
	ASSERT_EQ(0, err) TH_LOG("cannot start the child: %s", strerror(-err));
	snprintf(cmd, sizeof(cmd), "nmi %d %d", ORACLE_NMIS, ORACLE_NMI_NS);
	for (i = 0; i < 4 && !err; i++)
		err = oracle_run(&w, i % 2 ? cmd : "nmi 0 0", &self->d[i], false);
	oracle_worker_stop(&w);
	ASSERT_EQ(0, err) TH_LOG("%s", strerror(-err));
	for (i = 0; i < 4; i++) {
		nmi = oracle_bucket(&self->d[i], 0, N);
		ksft_print_msg("%s: %ld NMIs handled by the oracle, %lld in /proc/interrupts; "
			       "[nmi] %lld ns of cpu-clock, :t %lld ns\n",
			       i % 2 ? cmd : "nmi 0 0", self->d[i].nmis, self->d[i].proc_nmis, nmi,
			       oracle_bucket(&self->d[i], 0, CTXCOUNT_BUCKET_TASK));
		if (i % 2) {
			EXPECT_EQ(ORACLE_NMIS, self->d[i].nmis);
			EXPECT_EQ(ORACLE_NMIS, self->d[i].proc_nmis);
			EXPECT_GE(nmi, (long long)ORACLE_NMIS * ORACLE_NMI_NS);
		} else {
			EXPECT_EQ(0, self->d[i].nmis);
			EXPECT_EQ(0, self->d[i].proc_nmis);
			EXPECT_EQ(0, nmi);
		}
	}
}

CST_TEST_MAIN
