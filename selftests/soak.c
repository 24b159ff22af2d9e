// SPDX-License-Identifier: GPL-2.0
/*
 * The soak of issue 31 (item 5): the reproducers of its findings in a
 * loop, with a CPU going offline and online meanwhile, for the debug
 * kernel (KASAN, lockdep, KFENCE, hung-task and RCU stall detection),
 * where `make check-debug` runs it with the big figures below. Any kernel
 * report during a test fails it, as everywhere (cst.h).
 *
 * - exec_exit_races: CTX_SOAK_RACES exec/exit races (cst_race.c, the
 *   reproducer of finding 1 in teardown.c: a task owning
 *   CTX_SOAK_OWNED_EVENTS disabled perf events, preempted by a SCHED_FIFO
 *   task, under the oracle module's 5 kHz hrtimer storm on its CPU),
 *   alternately an exec of an unreadable image as nobody and an exit, all
 *   under one INHERIT session that is READ every 250 ms meanwhile (READ's
 *   IPI reads the same intervals). Every race must run (the count is
 *   printed), and the session read back whole (no task lost).
 * - held_target_rounds: CTX_SOAK_STALLS rounds of findings 3 and 4
 *   (cst_hold.c, stall.c's reproducer): a target's ctx->mutex held through
 *   a userfaultfd page while a READ, START, STOP and DEL of four sessions on
 *   it and a SESSION_NEW on it are asked at once: READ, START, STOP and
 *   NEW give up with -EAGAIN, DEL returns 0, and a generic netlink lookup
 *   completes within 10 s meanwhile; once the page is filled, START and
 *   STOP were carried out (-EALREADY), the READ session answers, DEL's is
 *   gone, the module's references and the live sessions are back where
 *   they were.
 * - fairness_under_a_big_tree: user A (uid 65534) has an INHERIT session
 *   on a fork tree of CTX_SOAK_TREE tasks (processes of
 *   CTX_SOAK_TREE_THREADS threads each, all asleep) and READs it in a
 *   loop; user B (uid 65533) READs a session of one sleeping process of
 *   its own CTX_SOAK_READS times before A starts (idle) and again while A
 *   reads (loaded). B's loaded median must be within 2x its idle median
 *   (on 2 CPUs or more: on one, B waits for the CPU behind A's loop,
 *   which perf would not spare it either). Every figure is printed
 *   ("soak: fairness: ..."), for docs/TESTING.md.
 * - rmmod_clean: last, with no session left: the module's references at
 *   0, rmmod succeeds within 5 s and logs no report; the module is loaded
 *   again with its parameters for what runs after.
 *
 * CPU hotplug: during the first three, the last CPU goes offline and
 * online every 0.3 to 0.7 s where the guest has more than one and it may
 * be taken offline (CTX_SOAK_HOTPLUG=0: not). The fairness test holds it
 * online while B's READs are timed: a CPU that goes away changes the
 * machine between the idle and the loaded figures.
 *
 * Defaults (about a minute on an x86_64 TCG guest, so that a run by hand
 * is quick): 40 races owning 1,000 events each, 2 held rounds, a tree of
 * 200 tasks in threads of 50, 50 timed READs. make check-debug: 10,000
 * races, 100 held rounds, a tree of 2,000, 500 READs. Not in run_tests'
 * default list (make check): its parts run there once each, as teardown,
 * stall, hotplug and fuzz, and a 2x timing bound is not one to hold on
 * two loaded TCG guests at a time. The netlink messages this program
 * sent are printed too; the fuzzer's million are fuzz's (CTX_FUZZ_MESSAGES).
 *
 * Skips (saying so): the races where teardown skips them (no oracle
 * module, no run-time preemption model, PREEMPT_RT), the held rounds
 * without userfaultfd.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <libgen.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/perf_event.h>

#include "kselftest_harness.h"
#include "cst.h"

#define USER_A		65534
#define USER_B		65533
#define FAIR_FACTOR	2.0
#define WAIT_S		10
#define READ_EVERY_MS	250

static struct {
	long races, owned, stalls, tree, tree_threads, reads;
	bool hotplug;
} cfg;

static const struct cst_ev ev = CST_EV_SW(TASK_CLOCK, 0, "task-clock");

static long env_long(const char *name, long def)
{
	const char *v = getenv(name);

	return v && *v ? strtol(v, NULL, 0) : def;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- the last CPU offline and online meanwhile -------------------------- */

struct hotplug {
	pthread_t th;
	int cpu;		/* -1: none */
	atomic_int run, hold_online;
	atomic_long toggles;
};

static void *hotplug_fn(void *arg)
{
	struct hotplug *hp = arg;
	int on = 0;

	while (atomic_load(&hp->run)) {
		if (atomic_load(&hp->hold_online)) {
			/* on: what the next toggle sets, so 1 while offline */
			if (on && !cst_cpu_set_online(hp->cpu, 1))
				on = 0;
			sleep_ms(20);
			continue;
		}
		if (cst_cpu_set_online(hp->cpu, on))
			break;
		atomic_fetch_add(&hp->toggles, 1);
		on = !on;
		sleep_ms(300 + rand() % 400);
	}
	cst_cpu_set_online(hp->cpu, 1);
	return NULL;
}

static void hotplug_start(struct hotplug *hp)
{
	long n = sysconf(_SC_NPROCESSORS_CONF);
	char path[128];

	hp->cpu = -1;
	atomic_store(&hp->toggles, 0);
	if (!cfg.hotplug || n < 2)
		return;
	snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%ld/online", n - 1);
	if (access(path, W_OK))
		return;
	hp->cpu = n - 1;
	atomic_store(&hp->run, 1);
	atomic_store(&hp->hold_online, 0);
	if (pthread_create(&hp->th, NULL, hotplug_fn, hp))
		hp->cpu = -1;
}

/* Hold the CPU online (@hold) until released; waits until it is. */
static void hotplug_hold(struct hotplug *hp, bool hold)
{
	int i;

	if (hp->cpu < 0)
		return;
	atomic_store(&hp->hold_online, hold);
	for (i = 0; hold && i < 500 && cst_cpu_is_online(hp->cpu) != 1; i++)
		sleep_ms(10);
}

/* Stop, with the CPU online: how many times it went off or on. */
static long hotplug_stop(struct hotplug *hp)
{
	if (hp->cpu < 0)
		return 0;
	atomic_store(&hp->run, 0);
	pthread_join(hp->th, NULL);
	hp->cpu = -1;
	return atomic_load(&hp->toggles);
}

static const char *hotplug_said(const struct hotplug *hp, long toggles,
				char *buf, size_t len)
{
	if (toggles || hp->cpu >= 0)
		snprintf(buf, len, "the last CPU offline/online %ld times", toggles);
	else
		snprintf(buf, len, "no CPU hotplug");
	return buf;
}

/* ---- the fixture ---------------------------------------------------------- */

FIXTURE(soak) {
	int kmsg;
	long live0;
	struct hotplug hp;
	char preempt[16];	/* the mode to put back, "" when unchanged */
	const char *wl;
	bool storm;
	long paranoid;		/* to put back, -1 when unchanged */
};

FIXTURE_SETUP(soak)
{
	self->kmsg = cst_kmsg_open();
	self->hp.cpu = -1;
	self->preempt[0] = 0;
	self->wl = NULL;
	self->storm = false;
	self->paranoid = -1;
	self->live0 = cst_live_sessions();
	ASSERT_LE(0, self->live0);
}

FIXTURE_TEARDOWN(soak)
{
	hotplug_stop(&self->hp);
	if (self->storm)
		EXPECT_EQ(0, cst_oracle_cmd("storm 0"));
	EXPECT_EQ(0, cst_preempt_restore(self->preempt));
	if (self->wl)
		cst_workload_copy_remove(self->wl);
	if (self->paranoid >= 0)
		EXPECT_EQ(0, cst_paranoid_set(self->paranoid));
	EXPECT_EQ(self->live0, cst_wait_live_sessions(self->live0, 5000))
		TH_LOG("sessions left behind");
	CST_EXPECT_NO_KERNEL_REPORT(self->kmsg);
}

/* ---- 1. exec/exit races ----------------------------------------------------- */

/* In memory shared with the monitored process. */
struct race_count {
	atomic_long exec, exit;
	atomic_long failed_round;	/* -1: none */
	atomic_int failed_status;
};

struct race_loop {
	struct cst_race race;
	struct race_count *count;
};

/* The monitored process: cfg.races races in turn, exec and exit alternately. */
static void race_loop(void *arg)
{
	struct race_loop *l = arg;
	struct cst_race a = l->race;
	long round;
	int status;

	for (round = 0; round < cfg.races; round++) {
		a.exec = round & 1;
		status = cst_race_round(&a, round);
		if (status) {
			atomic_store(&l->count->failed_status, status);
			atomic_store(&l->count->failed_round, round);
			_exit(32);
		}
		atomic_fetch_add(a.exec ? &l->count->exec : &l->count->exit, 1);
	}
	_exit(0);
}

TEST_F_TIMEOUT(soak, exec_exit_races, 300)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct race_loop l = { .race.owned_events = cfg.owned };
	long reads = 0, read_err = 0, first_err = 0, toggles, done;
	struct cst_ack ack = { };
	double t0, last;
	struct cst_child m;
	struct cst_sock s;
	char dir[128], hp[64];
	int status = -1, err;
	uint32_t id;
	pid_t w;

	ASSERT_NE(NULL, r);
	if (cst_kernel_is_rt())
		SKIP(goto out, "PREEMPT_RT: teardown's races outran the guest's time there (teardown.c)");
	err = cst_oracle_load();
	if (err)
		SKIP(goto out, "the oracle module (its hrtimer storm) does not load: %s",
		     strerror(-err));
	err = cst_preempt_full(self->preempt, sizeof(self->preempt));
	if (err)
		SKIP(goto out, "no run-time preemption model and not booted with preempt=full: %s",
		     strerror(-err));
	self->wl = cst_workload_copy();
	ASSERT_NE(NULL, self->wl) TH_LOG("copy to /tmp: %s", strerror(errno));
	snprintf(dir, sizeof(dir), "%s", self->wl);
	ASSERT_EQ(0, chmod(dirname(dir), 0755));
	/* Executable, not readable: the exec makes the task non-dumpable. */
	ASSERT_EQ(0, chmod(self->wl, 0111));
	l.race.wl = self->wl;
	l.count = mmap(NULL, sizeof(*l.count), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, l.count);
	atomic_store(&l.count->failed_round, -1);

	ASSERT_EQ(0, cst_pin_cpu(0));
	ASSERT_EQ(0, cst_oracle_cmd("storm " CST_RACE_STORM_HZ));
	self->storm = true;
	hotplug_start(&self->hp);
	ASSERT_EQ(0, cst_child_fork(&m, race_loop, &l));
	ASSERT_EQ(0, cst_open(&s));
	ASSERT_EQ(0, cst_new(&s, m.pid, CTXCOUNT_TARGET_F_INHERIT,
			     cst_race_events, CST_RACE_NEV, r, &ack))
		TH_LOG("%s", ack.msg);
	id = r->id;
	ASSERT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL));
	t0 = last = cst_now();
	ASSERT_EQ(0, cst_child_go(&m));
	/* READ meanwhile: its IPI reads the intervals the races open and close. */
	while ((w = waitpid(m.pid, &status, WNOHANG)) == 0) {
		sleep_ms(READ_EVERY_MS);
		err = cst_read(&s, id, 0, r, &ack);
		reads++;
		if (err && err != -EAGAIN && !read_err++)
			first_err = err;
		if (cst_now() - last >= 60) {
			last = cst_now();
			ksft_print_msg("soak: races: %.0f s: %ld exec, %ld exit\n",
				       last - t0, atomic_load(&l.count->exec),
				       atomic_load(&l.count->exit));
		}
	}
	toggles = hotplug_stop(&self->hp);
	done = atomic_load(&l.count->exec) + atomic_load(&l.count->exit);
	ksft_print_msg("soak: %ld exec/exit races (%ld exec of an unreadable image, %ld exit) of %ld in %.1f s, each task owning %ld perf events; %ld READs meanwhile; %s\n",
		       done, atomic_load(&l.count->exec), atomic_load(&l.count->exit),
		       cfg.races, cst_now() - t0, cfg.owned, reads,
		       hotplug_said(&self->hp, toggles, hp, sizeof(hp)));
	EXPECT_EQ(m.pid, w);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("the monitored process ended with status 0x%x; race %ld's task with 0x%x",
		       status, atomic_load(&l.count->failed_round),
		       atomic_load(&l.count->failed_status));
	EXPECT_EQ(cfg.races, done);
	EXPECT_EQ(0, read_err) TH_LOG("%ld READs failed, the first with %d", read_err, (int)first_err);
	EXPECT_EQ(0, cst_read(&s, id, 0, r, &ack)) TH_LOG("%s", ack.msg);
	EXPECT_EQ(0, r->tasks_lost);
	/* Each race's task and its FIFO task, and the monitored process. */
	EXPECT_LE(1 + 2 * done, (long)r->tasks_seen);
	EXPECT_EQ(0, cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL));
	cst_close(&s);
	munmap(l.count, sizeof(*l.count));
out:
	free(r);
}

/* ---- 2. a held target, round after round -------------------------------- */

static void idle_fn(void *arg)
{
	for (;;)
		pause();
}

/* The four session commands of a round, and what each must answer while held. */
static const struct {
	uint8_t cmd;
	bool started;
	int held;	/* while the target is held */
	int after;	/* asked again once it let go */
	const char *name;
} held_cmds[] = {
	{ CTXCOUNT_CMD_SESSION_READ, true, -EAGAIN, 0, "READ" },
	{ CTXCOUNT_CMD_SESSION_START, false, -EAGAIN, -EALREADY, "START" },
	{ CTXCOUNT_CMD_SESSION_STOP, true, -EAGAIN, -EALREADY, "STOP" },
	{ CTXCOUNT_CMD_SESSION_DEL, true, 0, -ENOENT, "DEL" },
};
#define NCMD	ARRAY_SIZE(held_cmds)

struct held_round {
	struct cst_sock s[NCMD + 1];	/* the last: NEW's */
	struct cst_req q[NCMD + 1];
	struct cst_req lookup;
	int after[NCMD];
	bool lookup_in_time, all_done;
	long refs, live;
};

/*
 * One round: the sessions, the hold, the five requests at once and a
 * genl lookup meanwhile, the page filled, each command asked again, the
 * sockets closed. 0, or -errno when the round could not be set up.
 */
static int held_round(struct held_round *h, struct cst_hold *hold,
		      int perf_fd, pid_t target, long ref0, long live0)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	unsigned int i;
	int err = 0, k;

	if (!r)
		return -ENOMEM;
	memset(h, 0, sizeof(*h));
	for (i = 0; i <= NCMD && !err; i++)
		err = cst_open(&h->s[i]);
	for (i = 0; i < NCMD && !err; i++) {
		err = cst_new(&h->s[i], target, 0, &ev, 1, r, NULL);
		h->q[i] = (struct cst_req){ .fn = cst_req_cmd, .s = &h->s[i],
					    .id = r->id, .cmd = held_cmds[i].cmd };
		if (!err && held_cmds[i].started)
			err = cst_cmd(&h->s[i], CTXCOUNT_CMD_SESSION_START,
				      r->id, NULL, NULL);
	}
	h->q[NCMD] = (struct cst_req){ .fn = cst_req_new_proof, .s = &h->s[NCMD],
				       .pid = target, .ev = &ev,
				       .proof_fd = perf_fd };
	h->lookup = (struct cst_req){ .fn = cst_req_getfamily, .family = "nlctrl" };
	if (!err)
		err = cst_hold_begin(hold, perf_fd);
	if (err)
		goto out;
	for (i = 0; i <= NCMD; i++)
		cst_req_within(&h->q[i], 0);
	h->lookup_in_time = cst_req_within(&h->lookup, WAIT_S);
	/* Each gives up after three 1 s slices without progress. */
	for (k = 0; k < 30 * 100; k++) {
		for (i = 0; i <= NCMD && h->q[i].done; i++)
			;
		if (i > NCMD)
			break;
		sleep_ms(10);
	}
	h->all_done = i > NCMD;
	err = cst_hold_end(hold);
	for (i = 0; i <= NCMD; i++)
		pthread_join(h->q[i].thread, NULL);
	pthread_join(h->lookup.thread, NULL);
	for (i = 0; i < NCMD; i++)
		h->after[i] = cst_cmd(&h->s[i], held_cmds[i].cmd, h->q[i].id, r, NULL);
out:
	for (i = 0; i <= NCMD; i++)
		if (h->s[i].sk)
			cst_close(&h->s[i]);
	h->live = cst_wait_live_sessions(live0, 5000);
	/* What a given-up request left to a worker lets go of the module. */
	for (k = 0; k < 500 && (h->refs = cst_module_refs()) != ref0; k++)
		sleep_ms(10);
	free(r);
	return err;
}

TEST_F_TIMEOUT(soak, held_target_rounds, 300)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_TASK_CLOCK,
	};
	struct held_round *h = calloc(1, sizeof(*h));
	long ref0, round, gave_up[NCMD + 1] = { 0 }, lookups = 0, toggles;
	long bad = 0;
	struct cst_hold hold;
	struct cst_child target;
	unsigned int i;
	int perf_fd = -1, err;
	char hp[64];
	double t0;

	ASSERT_NE(NULL, h);
	err = cst_hold_setup(&hold);
	if (hold.uffd < 0)
		SKIP(goto out, "no userfaultfd here (%s): nothing holds a target's perf mutex on request",
		     strerror(-err));
	ASSERT_EQ(0, err) TH_LOG("userfaultfd: %s", strerror(-err));
	ASSERT_EQ(0, cst_child_fork(&target, idle_fn, NULL));
	perf_fd = syscall(SYS_perf_event_open, &attr, target.pid, -1, -1, 0);
	ASSERT_LE(0, perf_fd) TH_LOG("perf_event_open: %s", strerror(errno));
	ref0 = cst_module_refs();
	ASSERT_LE(0, ref0);
	hotplug_start(&self->hp);
	t0 = cst_now();
	for (round = 0; round < cfg.stalls; round++) {
		err = held_round(h, &hold, perf_fd, target.pid, ref0, self->live0);
		ASSERT_EQ(0, err) TH_LOG("round %ld: %s", round, strerror(-err));
		lookups += h->lookup_in_time && h->lookup.ret >= 0;
		for (i = 0; i <= NCMD; i++) {
			int want = i < NCMD ? held_cmds[i].held : -EAGAIN;

			gave_up[i] += h->q[i].done && h->q[i].ret == want;
		}
		for (i = 0; i < NCMD; i++)
			bad += h->after[i] != held_cmds[i].after;
		bad += !h->all_done || h->refs != ref0 || h->live != self->live0;
		if (bad) {
			TH_LOG("round %ld: all requests answered %d, refs %ld (want %ld), live %ld (want %ld)",
			       round, h->all_done, h->refs, ref0, h->live, self->live0);
			for (i = 0; i <= NCMD; i++)
				TH_LOG("round %ld: %s while held: %s %d; asked again: %d",
				       round, i < NCMD ? held_cmds[i].name : "NEW",
				       h->q[i].done ? "answered" : "no answer",
				       h->q[i].ret, i < NCMD ? h->after[i] : 0);
			break;
		}
	}
	toggles = hotplug_stop(&self->hp);
	ksft_print_msg("soak: %ld rounds of a held target in %.1f s: while held, READ -EAGAIN %ld, START -EAGAIN %ld, STOP -EAGAIN %ld, DEL 0 %ld, NEW -EAGAIN %ld times; a genl lookup within %d s %ld times; %s\n",
		       round, cst_now() - t0, gave_up[0], gave_up[1], gave_up[2],
		       gave_up[3], gave_up[4], WAIT_S, lookups,
		       hotplug_said(&self->hp, toggles, hp, sizeof(hp)));
	EXPECT_EQ(0, bad);
	EXPECT_EQ(cfg.stalls, round);
	for (i = 0; i <= NCMD; i++) {
		const char *name = i < NCMD ? held_cmds[i].name : "NEW";
		long n = gave_up[i];

		EXPECT_EQ(round, n)
			TH_LOG("%s: the expected answer while held in %ld of %ld rounds",
			       name, n, round);
	}
	EXPECT_EQ(round, lookups) TH_LOG("a genl lookup waited for the held target");
	close(perf_fd);
	kill(target.pid, SIGKILL);
	cst_child_wait(&target);
out:
	cst_hold_cleanup(&hold);
	free(h);
}

/* ---- 3. another user's READ while one user's big tree is read ----------- */

/* In memory shared with both users' processes and A's tree. */
struct fair {
	atomic_int b_ready, b_go, b_done, a_ready, a_stop;
	atomic_long tree_up;	/* tasks of A's tree up */
	atomic_long a_reads, a_errs, a_seen, b_errs;
	double a_read_s;	/* A's READs, summed */
	double t_idle[];	/* then t_loaded, cfg.reads each */
};

static size_t fair_size(void)
{
	return sizeof(struct fair) + 2 * cfg.reads * sizeof(double);
}

/* Wait up to @s seconds for *@v to reach @want. */
static bool wait_for(atomic_int *v, int want, double s)
{
	double end = cst_now() + s;

	while (atomic_load(v) < want && cst_now() < end)
		sleep_ms(5);
	return atomic_load(v) >= want;
}

static void *tree_thread(void *arg)
{
	struct fair *f = arg;

	atomic_fetch_add(&f->tree_up, 1);
	for (;;)
		pause();
	return NULL;
}

/* A process of A's tree: itself and cfg.tree_threads - 1 threads, asleep. */
static void tree_process(struct fair *f, long threads)
{
	pthread_attr_t at;
	pthread_t th;
	long i;

	prctl(PR_SET_PDEATHSIG, SIGKILL);
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 64 << 10);
	for (i = 1; i < threads; i++)
		if (pthread_create(&th, &at, tree_thread, f))
			break;
	tree_thread(f);
}

/* The root of A's tree (the session's target): forks the processes, sleeps. */
static void tree_root(void *arg)
{
	struct fair *f = arg;
	long left = cfg.tree - 1, n;
	pid_t pid;

	setpgid(0, 0);
	atomic_fetch_add(&f->tree_up, 1);
	while (left > 0) {
		n = left < cfg.tree_threads ? left : cfg.tree_threads;
		pid = fork();
		if (pid < 0)
			break;
		if (!pid)
			tree_process(f, n);
		left -= n;
	}
	for (;;)
		pause();
}

/* User A: the tree, its session, READs until told to stop. */
static int user_a(void *arg)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct fair *f = arg;
	struct cst_child root;
	struct cst_sock s;
	double end, t;
	uint32_t id = 0;
	int ret = 0;

	if (!r || cst_open(&s))
		return 1;
	if (cst_child_fork(&root, tree_root, f))
		return 2;
	if (!cst_new(&s, root.pid, CTXCOUNT_TARGET_F_INHERIT, &ev, 1, r, NULL))
		id = r->id;
	if (!id || cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL)) {
		ret = 3;
		goto out;
	}
	cst_child_go(&root);
	end = cst_now() + 600;
	while (atomic_load(&f->tree_up) < cfg.tree && cst_now() < end)
		sleep_ms(20);
	if (atomic_load(&f->tree_up) < cfg.tree) {
		ret = 4;
		goto out;
	}
	atomic_store(&f->a_ready, 1);
	while (!atomic_load(&f->a_stop)) {
		t = cst_now();
		if (cst_read(&s, id, 0, r, NULL))
			atomic_fetch_add(&f->a_errs, 1);
		else
			atomic_store(&f->a_seen, r->tasks_seen);
		f->a_read_s += cst_now() - t;
		atomic_fetch_add(&f->a_reads, 1);
	}
	cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
out:
	cst_close(&s);
	kill(-root.pid, SIGKILL);
	kill(root.pid, SIGKILL);
	cst_child_wait(&root);
	free(r);
	return ret;
}

/* @n READs of session @id, each timed into @t. */
static void timed_reads(struct fair *f, struct cst_sock *s, uint32_t id,
			struct cst_res *r, double *t, long n)
{
	double t0;
	long i;

	for (i = 0; i < n; i++) {
		t0 = cst_now();
		if (cst_read(s, id, 0, r, NULL))
			atomic_fetch_add(&f->b_errs, 1);
		t[i] = cst_now() - t0;
	}
}

/* User B: a session of one sleeping process; timed READs when told. */
static int user_b(void *arg)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	struct fair *f = arg;
	struct cst_child c;
	struct cst_sock s;
	uint32_t id = 0;
	int ret = 0;

	if (!r || cst_open(&s))
		return 1;
	if (cst_child_fork(&c, idle_fn, NULL) || cst_child_go(&c))
		return 2;
	if (!cst_new(&s, c.pid, 0, &ev, 1, r, NULL))
		id = r->id;
	if (!id || cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, id, NULL, NULL)) {
		ret = 3;
		goto out;
	}
	atomic_store(&f->b_ready, 1);
	if (!wait_for(&f->b_go, 1, 600)) {
		ret = 4;
		goto out;
	}
	timed_reads(f, &s, id, r, f->t_idle, cfg.reads);
	atomic_store(&f->b_done, 1);
	if (!wait_for(&f->b_go, 2, 1200)) {
		ret = 5;
		goto out;
	}
	timed_reads(f, &s, id, r, f->t_idle + cfg.reads, cfg.reads);
	atomic_store(&f->b_done, 2);
	cst_cmd(&s, CTXCOUNT_CMD_SESSION_DEL, id, NULL, NULL);
out:
	cst_close(&s);
	kill(c.pid, SIGKILL);
	cst_child_wait(&c);
	free(r);
	return ret;
}

struct as_user {
	pthread_t th;
	int uid;
	int (*fn)(void *);
	void *arg;
	int ret;
};

static void *as_user_fn(void *arg)
{
	struct as_user *u = arg;

	u->ret = cst_call_as(u->uid, u->uid, u->fn, u->arg);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @t; its median. */
static double median(double *t, long n)
{
	qsort(t, n, sizeof(*t), cmp_double);
	return n % 2 ? t[n / 2] : (t[n / 2 - 1] + t[n / 2]) / 2;
}

TEST_F_TIMEOUT(soak, fairness_under_a_big_tree, 1200)
{
	struct as_user a = { .uid = USER_A, .fn = user_a };
	struct as_user b = { .uid = USER_B, .fn = user_b };
	double idle_med, load_med, *idle, *load, t0;
	long toggles, a_reads;
	bool a_ready;
	struct fair *f;
	char hp[64];

	f = mmap(NULL, fair_size(), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, f);
	idle = f->t_idle;
	load = f->t_idle + cfg.reads;
	a.arg = b.arg = f;
	ASSERT_EQ(0, cst_paranoid_get(&self->paranoid));
	/* perf lets a user count its own tasks, not CPUs. */
	ASSERT_EQ(0, cst_paranoid_set(1));
	hotplug_start(&self->hp);

	t0 = cst_now();
	ASSERT_EQ(0, pthread_create(&b.th, NULL, as_user_fn, &b));
	ASSERT_TRUE(wait_for(&f->b_ready, 1, 60)) TH_LOG("user B's session is not there");
	hotplug_hold(&self->hp, true);
	atomic_store(&f->b_go, 1);
	ASSERT_TRUE(wait_for(&f->b_done, 1, 600));
	hotplug_hold(&self->hp, false);

	ASSERT_EQ(0, pthread_create(&a.th, NULL, as_user_fn, &a));
	a_ready = wait_for(&f->a_ready, 1, 900);
	/* A's READs go on while B's are timed. */
	while (a_ready && atomic_load(&f->a_reads) < 3)
		sleep_ms(10);
	if (a_ready) {
		hotplug_hold(&self->hp, true);
		atomic_store(&f->b_go, 2);
		wait_for(&f->b_done, 2, 1200);
		hotplug_hold(&self->hp, false);
	}
	atomic_store(&f->b_go, 2);
	atomic_store(&f->a_stop, 1);
	pthread_join(a.th, NULL);
	pthread_join(b.th, NULL);
	toggles = hotplug_stop(&self->hp);
	ASSERT_TRUE(a_ready) TH_LOG("user A's tree of %ld tasks did not come up (%ld did; user A's exit %d)",
				    cfg.tree, atomic_load(&f->tree_up), a.ret);
	EXPECT_EQ(0, a.ret) TH_LOG("user A's part failed (exit %d)", a.ret);
	EXPECT_EQ(0, b.ret) TH_LOG("user B's part failed (exit %d)", b.ret);
	ASSERT_EQ(2, atomic_load(&f->b_done));

	a_reads = atomic_load(&f->a_reads);
	idle_med = median(idle, cfg.reads);
	load_med = median(load, cfg.reads);
	ksft_print_msg("soak: fairness: user A's tree of %ld tasks (%ld threads a process), its session's tasks seen %ld; %ld READs by A in all, %.2f ms each on average, %ld failed\n",
		       cfg.tree, cfg.tree_threads, atomic_load(&f->a_seen), a_reads,
		       a_reads ? f->a_read_s * 1e3 / a_reads : 0.0,
		       atomic_load(&f->a_errs));
	ksft_print_msg("soak: fairness: user B's READ over %ld each: idle median %.3f ms, max %.3f ms; while A reads: median %.3f ms, max %.3f ms (%.2fx idle; bound %.0fx); %ld failed\n",
		       cfg.reads, idle_med * 1e3, idle[cfg.reads - 1] * 1e3,
		       load_med * 1e3, load[cfg.reads - 1] * 1e3,
		       load_med / idle_med, FAIR_FACTOR, atomic_load(&f->b_errs));
	ksft_print_msg("soak: fairness: %.1f s; %s\n", cst_now() - t0,
		       hotplug_said(&self->hp, toggles, hp, sizeof(hp)));
	EXPECT_LE(cfg.tree, atomic_load(&f->a_seen));
	EXPECT_EQ(0, atomic_load(&f->a_errs));
	EXPECT_EQ(0, atomic_load(&f->b_errs));
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		SKIP(goto out, "one CPU: B's READ waits for the CPU behind A's loop (median %.2fx idle, printed above)",
		     load_med / idle_med);
	EXPECT_GE(FAIR_FACTOR * idle_med, load_med)
		TH_LOG("user B's READ median %.3f ms while A reads its tree, %.3f ms idle",
		       load_med * 1e3, idle_med * 1e3);
out:
	munmap(f, fair_size());
}

/* ---- 4. rmmod at the end ------------------------------------------------- */

TEST_F_TIMEOUT(soak, rmmod_clean, 120)
{
	char params[512];
	long refs = -1;
	double t0;
	int i;

	ASSERT_EQ(0, cst_wait_live_sessions(0, 10000))
		TH_LOG("sessions still live: rmmod would not be the clean one this checks");
	for (i = 0; i < 500 && (refs = cst_module_refs()) != 0; i++)
		sleep_ms(10);
	EXPECT_EQ(0, refs) TH_LOG("the module still has references with no session");
	cst_current_params(params, sizeof(params));
	t0 = cst_now();
	ASSERT_EQ(0, cst_rmmod());
	ksft_print_msg("soak: rmmod ctxcount: %.2f s\n", cst_now() - t0);
	EXPECT_FALSE(cst_module_loaded());
	ASSERT_EQ(0, cst_insmod(params)) TH_LOG("insmod %s %s", cst_ko_path(), params);
}

int main(int argc, char **argv)
{
	const char *why = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);	/* see CST_TEST_MAIN */
	cfg.races = env_long("CTX_SOAK_RACES", 40);
	cfg.owned = env_long("CTX_SOAK_OWNED_EVENTS", 1000);
	cfg.stalls = env_long("CTX_SOAK_STALLS", 2);
	cfg.tree = env_long("CTX_SOAK_TREE", 200);
	cfg.tree_threads = env_long("CTX_SOAK_TREE_THREADS", 50);
	cfg.reads = env_long("CTX_SOAK_READS", 50);
	cfg.hotplug = env_long("CTX_SOAK_HOTPLUG", 1);
	if (cfg.tree < 1)
		cfg.tree = 1;
	if (cfg.tree_threads < 1)
		cfg.tree_threads = 1;
	if (cfg.reads < 1)
		cfg.reads = 1;
	/* Room for the figures asked: about 100 ms a race, 10 s a round. */
	_soak_exec_exit_races_object->timeout = 300 + 2 * cfg.races;
	_soak_held_target_rounds_object->timeout = 300 + 15 * cfg.stalls;
	if (!(argc > 1 && (!strcmp(argv[1], "-l") || !strcmp(argv[1], "-h")))) {
		why = cst_cannot_run();
		if (why)
			ksft_exit_skip("%s", why);
		ksft_print_msg("soak: CTX_SOAK_RACES=%ld CTX_SOAK_OWNED_EVENTS=%ld CTX_SOAK_STALLS=%ld CTX_SOAK_TREE=%ld CTX_SOAK_TREE_THREADS=%ld CTX_SOAK_READS=%ld CTX_SOAK_HOTPLUG=%d\n",
			       cfg.races, cfg.owned, cfg.stalls, cfg.tree,
			       cfg.tree_threads, cfg.reads, cfg.hotplug);
	}
	CST_SCALE_TIMEOUTS();
	return test_harness_run(argc, argv);
}
