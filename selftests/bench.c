// SPDX-License-Identifier: GPL-2.0
/*
 * ctxcount benchmark (prints figures, never pass/fail):
 *
 *   bench [-r ROUNDS] [-n LOOP_ITERS] [-l HACKBENCH_LOOPS] [--no-hackbench]
 *         [--only SECTION]
 *
 * 1. and 2. need a PMU that counts instructions exactly: the arm64 guest
 * under QEMU -icount with one vCPU (scripts/vm --smp 1; with two, each
 * vCPU's counter follows the global instruction count), and the test bed's
 * oracle module (cst_oracle.h). Independent of ctxcount's own numbers, two
 * perf_event_open() counters on a child (as perf stat opens them) count
 * its instructions and instructions:u; kernel = all - user.
 *
 * 1. Cost per excursion from task context, exact: the child asks the
 *    oracle for N interrupts of each kind (a hardirq; a hardirq that runs
 *    a tasklet on its way out; a tasklet from the child's own
 *    local_bh_enable()), each doing one loop iteration, and for none; a
 *    command is repeated while any other interrupt landed on the CPU, and
 *    the least of ROUNDS is kept (what varies is the child's own task
 *    context, upwards). Per excursion: kernel instructions with the module
 *    unloaded, loaded with no session started, and with a session of 1
 *    and of 4 events on the child (the hooks' cost is the difference to
 *    "no session"), also with CTXCOUNT_SESSION_F_IRQ_SOURCES (arm64's
 *    irq_work interrupt is a handler, IPI 5: two more boundaries); with a
 *    session, what each event's :t grew by (with
 *    the oracle's own code that raises and awaits each interrupt in the
 *    child's syscall) and what the estimate moved out of :t. Then with
 *    no session and the oracle's empty probe on irq_handler_exit ("empty
 *    probe"): what the kernel's dispatch of a handler window costs before
 *    ctxcount's probe runs.
 * 2. Bare hardirqs on a loop: the oracle's hrtimer storm (20,000/s,
 *    waking nobody) on the CPU while the child runs LOOP_ITERS iterations
 *    in user space, and in kernel mode (the oracle's kloop), against the
 *    same loop without it: per storm interrupt,
 *    kernel instructions and what :t kept (mean over ROUNDS pairs; the
 *    4 ms tick lands on both alike).
 * 3. ctxstat against perf stat, count and wall time, each tool with -r
 *    ROUNDS: the known loop (a deterministic program; both count from the
 *    exec) and `hackbench -g 2 -l HACKBENCH_LOOPS` (instructions with a
 *    PMU, task-clock without), plus hackbench alone.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cst.h"

static int runs = 5;
static uint64_t iters = 10000000;	/* 20M instructions */
static const char *hb_loops = "50";

#define BENCH_N		50	/* interrupts per oracle command */
#define BENCH_STORM_HZ	"20000"

/* Seconds from the hooks' detaching to the idle module's figures. */
#define BENCH_IDLE_SETTLE_S	10

/*
 * The 4-event session (the figures used these); with shift=0
 * QEMU's cycles count instructions.
 */
static const struct cst_ev bench_events[4] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
	CST_EV_HW(INSTRUCTIONS, CST_F_USER_ONLY, "instructions:u"),
	CST_EV_HW(CPU_CYCLES, CST_F_USER_ONLY, "cycles:u"),
};

/* Independent of ctxcount: kernel = [0] - [1]. */
static const struct cst_ev perf_events[2] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(INSTRUCTIONS, CST_F_USER_ONLY, "instructions:u"),
};

struct stat_acc {
	int n;
	double sum, sq;
};

static void acc(struct stat_acc *a, double v)
{
	a->n++;
	a->sum += v;
	a->sq += v * v;
}

static double mean(const struct stat_acc *a)
{
	return a->n ? a->sum / a->n : 0;
}

static double sd(const struct stat_acc *a)
{
	double m = mean(a);

	if (a->n < 2)
		return 0;
	return sqrt(fmax(0, (a->sq - a->n * m * m) / (a->n - 1)));
}

/* Why sections 1 and 2 cannot run here, or NULL. */
static const char *exact_cannot_run(void)
{
	static char why[160];
	int err;

	if (cst_no_insn_reason(why, sizeof(why)))
		return why;
	if (sysconf(_SC_NPROCESSORS_ONLN) != 1)
		return "more than one CPU (run with scripts/vm --smp 1)";
	err = cst_oracle_load();
	if (err) {
		snprintf(why, sizeof(why), "oracle module %s: %s",
			 cst_oracle_ko_path(), strerror(-err));
		return why;
	}
	return NULL;
}

/*
 * The last: no session, and the oracle's empty probe on irq_handler_exit,
 * the kernel's share of a handler window's cost.
 */
enum {
	CFG_UNLOADED, CFG_NONE, CFG_ONE, CFG_FOUR, CFG_ONE_SRC, CFG_FOUR_SRC,
	CFG_EMPTY_PROBE, NR_CFG
};
static const char *const cfg_name[NR_CFG] = {
	"module unloaded", "no session", "1-event session", "4-event session",
	"1 event, sources", "4 events, sources", "empty probe",
};
static const int cfg_events[NR_CFG] = { 0, 0, 1, 4, 1, 4, 0 };
/* Section 2 runs the configs before the empty probe. */
#define NR_STORM_CFG	CFG_EMPTY_PROBE

/* The worker's session, with irq sources for the last two configs. */
static int bench_worker_start(struct cst_worker *w, int cfg, struct cst_res *r)
{
	int err;

	cst_new_session_flags = cfg == CFG_ONE_SRC || cfg == CFG_FOUR_SRC ?
				CTXCOUNT_SESSION_F_IRQ_SOURCES : 0;
	err = cst_worker_start(w, bench_events, cfg_events[cfg], perf_events, 2, r);
	cst_new_session_flags = 0;
	return err;
}

enum { KIND_HARDIRQ, KIND_HARDIRQ_TASKLET, KIND_TASKLET, KIND_NONE, NR_KIND };
static const char *const kind_name[NR_KIND] = {
	"hardirq", "hardirq + tasklet", "tasklet from task", "none",
};

/* Per config and kind, the least over the rounds. */
struct excursion_cost {
	double kernel[NR_CFG][NR_KIND];
	double task[NR_CFG][4][NR_KIND];	/* per event: :t */
	double est[NR_CFG][4][NR_KIND];		/* per event: estimate bucket */
};

static void keep_min(double *slot, double v, int round)
{
	if (!round || v < *slot)
		*slot = v;
}

static int excursion_config(int cfg, struct excursion_cost *c)
{
	struct cst_worker_delta *d = calloc(1, sizeof(*d));
	char cmd[NR_KIND][48];
	struct cst_worker w;
	int k, e, i, err;

	if (!d)
		return -ENOMEM;
	snprintf(cmd[KIND_HARDIRQ], 48, "hardirq %d 1 0", BENCH_N);
	snprintf(cmd[KIND_HARDIRQ_TASKLET], 48, "hardirq %d 1 1", BENCH_N);
	snprintf(cmd[KIND_TASKLET], 48, "softirq %d 1", BENCH_N);
	snprintf(cmd[KIND_NONE], 48, "hardirq 0 0 0");
	err = bench_worker_start(&w, cfg, &d->before);
	if (err)
		goto out;
	/* A warm-up round, then the measured ones. */
	for (i = -1; i < runs && !err; i++) {
		for (k = 0; k < NR_KIND && !err; k++) {
			err = cst_worker_run(&w, cmd[k], d, true);
			if (err || i < 0)
				continue;
			keep_min(&c->kernel[cfg][k], d->perf[0] - d->perf[1], i);
			for (e = 0; e < cfg_events[cfg]; e++) {
				keep_min(&c->task[cfg][e][k],
					 cst_worker_bucket(d, e, CTXCOUNT_BUCKET_TASK), i);
				keep_min(&c->est[cfg][e][k],
					 cst_worker_bucket(d, e, CTXCOUNT_BUCKET_IRQ_ENTRY_EST), i);
			}
		}
	}
	cst_worker_stop(&w);
out:
	free(d);
	return err;
}

static double per_exc(const double *v, int k)
{
	return (v[k] - v[KIND_NONE]) / BENCH_N;
}

static void excursion_costs(void)
{
	struct excursion_cost *c = calloc(1, sizeof(*c));
	char params[256];
	int cfg, k, e, err = 0, idle_hooked = -1;

	printf("== 1. cost per excursion from task context (instructions, exact) ==\n");
	if (!c)
		return;
	cst_current_params(params, sizeof(params));
	for (cfg = 0; cfg < NR_CFG && !err; cfg++) {
		if (cfg == CFG_UNLOADED)
			err = cst_rmmod();
		/*
		 * The hooks the load's calibration (or the sessions before)
		 * used linger 10 s, and what detaching them starts in the
		 * kernel (RCU-tasks grace periods) costs hardirqs another few
		 * seconds: 150 to 200 instructions each right after, none
		 * 10 s later (arm64 6.1).
		 */
		if (cfg == CFG_NONE || cfg == CFG_EMPTY_PROBE) {
			int hooked = cst_irq_hooked_wait(0, 15000);

			if (cfg == CFG_NONE)
				idle_hooked = hooked;
			sleep(BENCH_IDLE_SETTLE_S);
		}
		if (!err && cfg == CFG_EMPTY_PROBE)
			err = cst_oracle_cmd("tpprobe 1");
		if (!err)
			err = excursion_config(cfg, c);
		if (cfg == CFG_EMPTY_PROBE)
			cst_oracle_cmd("tpprobe 0");
		if (cfg == CFG_UNLOADED && (cst_insmod(params) || !cst_module_loaded()))
			err = err ?: -ENOENT;
		if (err)
			printf("%s: failed: %s\n", cfg_name[cfg], strerror(-err));
	}
	if (err)
		goto out;
	printf("%d per command, each doing 1 loop iteration; kernel instructions per excursion\n"
	       "(perf_event_open counters on the child; least of %d rounds):\n", BENCH_N, runs);
	printf("%-18s", "");
	for (k = 0; k < KIND_NONE; k++)
		printf(" %20s", kind_name[k]);
	printf("\n");
	for (cfg = 0; cfg < NR_CFG; cfg++) {
		printf("%-18s", cfg_name[cfg]);
		for (k = 0; k < KIND_NONE; k++)
			printf(" %20.1f", per_exc(c->kernel[cfg], k));
		printf("\n");
	}
	for (cfg = CFG_ONE; cfg <= CFG_FOUR_SRC; cfg++) {
		printf("hooks' cost, %s:", cfg_name[cfg]);
		for (k = 0; k < KIND_NONE; k++)
			printf(" %s %+.1f;", kind_name[k],
			       per_exc(c->kernel[cfg], k) - per_exc(c->kernel[CFG_NONE], k));
		printf("\n");
	}
	printf("with the module loaded and no session started: %+.1f per hardirq against unloaded (irq_enter_rcu %s)\n",
	       per_exc(c->kernel[CFG_NONE], KIND_HARDIRQ) -
	       per_exc(c->kernel[CFG_UNLOADED], KIND_HARDIRQ),
	       idle_hooked < 0 ? "hooked: unknown" : idle_hooked ? "hooked" : "not hooked");
	printf("an empty probe on irq_handler_exit: %+.1f per hardirq against unloaded\n"
	       "(the kernel's dispatch of a handler window, before ctxcount's probe runs)\n",
	       per_exc(c->kernel[CFG_EMPTY_PROBE], KIND_HARDIRQ) -
	       per_exc(c->kernel[CFG_UNLOADED], KIND_HARDIRQ));
	printf(":t per excursion, after the estimate was moved out (the estimate in brackets);\n"
	       "it includes the oracle's own task-context code that raises and awaits each\n"
	       "interrupt (section 2 has interrupts that need none):\n");
	for (cfg = CFG_ONE; cfg <= CFG_FOUR_SRC; cfg++) {
		for (e = 0; e < cfg_events[cfg]; e++) {
			printf("  %-16s %-14s", cfg_name[cfg], bench_events[e].name);
			for (k = 0; k < KIND_NONE; k++)
				printf(" %s %.1f (%.1f);", kind_name[k],
				       per_exc(c->task[cfg][e], k), per_exc(c->est[cfg][e], k));
			printf("\n");
		}
	}
	printf("\n");
out:
	free(c);
}

static void storm(void)
{
	struct cst_worker_delta *d = calloc(1, sizeof(*d));
	char loop[48];
	int cfg, i, err = 0;

	printf("== 2. bare hardirqs on a loop (oracle hrtimer at %s/s) ==\n", BENCH_STORM_HZ);
	if (!d)
		return;
	printf("%llu-iteration loop; per storm interrupt (mean +- sd over %d pairs):\n",
	       (unsigned long long)iters, runs);
	for (cfg = CFG_NONE; cfg < 2 * NR_STORM_CFG && !err; cfg++) {
		struct stat_acc kern = { 0 }, task[4] = { { 0 } }, fires = { 0 };
		double k0 = 0, t0[4] = { 0 };
		bool kernel = cfg >= NR_STORM_CFG;
		struct cst_worker w;
		int e, on;

		if (cfg == NR_STORM_CFG)
			cfg += CFG_NONE;
		snprintf(loop, sizeof(loop), "%s %llu", kernel ? "kloop" : "loop",
			 (unsigned long long)iters);
		/* As in section 1: the last session's hooks gone, and settled. */
		if (cfg % NR_STORM_CFG == CFG_NONE) {
			cst_irq_hooked_wait(0, 15000);
			sleep(BENCH_IDLE_SETTLE_S);
		}
		err = bench_worker_start(&w, cfg % NR_STORM_CFG, &d->before);
		if (err)
			break;
		for (i = -1; i < runs && !err; i++) {
			for (on = 0; on < 2 && !err; on++) {
				err = cst_oracle_cmd(on ? "storm " BENCH_STORM_HZ : "storm 0") ?:
				      cst_worker_run(&w, loop, d, false);
				cst_oracle_cmd("storm 0");
				if (err || i < 0)
					continue;
				if (!on) {
					k0 = d->perf[0] - d->perf[1];
					for (e = 0; e < cfg_events[cfg % NR_STORM_CFG]; e++)
						t0[e] = cst_worker_bucket(d, e, CTXCOUNT_BUCKET_TASK);
					continue;
				}
				if (!d->oracle.storm)
					continue;
				acc(&fires, d->oracle.storm);
				acc(&kern, (d->perf[0] - d->perf[1] - k0) / d->oracle.storm);
				for (e = 0; e < cfg_events[cfg % NR_STORM_CFG]; e++)
					acc(&task[e], (cst_worker_bucket(d, e, CTXCOUNT_BUCKET_TASK) -
						       t0[e]) / d->oracle.storm);
			}
		}
		cst_worker_stop(&w);
		if (err)
			break;
		printf("  %s %-16s %.0f storm interrupts a run; kernel %.1f +- %.1f",
		       kernel ? "kernel loop" : "user loop  ", cfg_name[cfg % NR_STORM_CFG],
		       mean(&fires), mean(&kern), sd(&kern));
		for (e = 0; e < cfg_events[cfg % NR_STORM_CFG]; e++)
			printf("; %s :t %+.1f +- %.1f", bench_events[e].name, mean(&task[e]),
			       sd(&task[e]));
		printf("\n");
	}
	if (err)
		printf("failed: %s\n", strerror(-err));
	printf("\n");
	free(d);
}

struct tool_result {
	struct stat_acc wall;
	double count, switches;
	bool have_count;
};

static void run_tool(const char *name, char *const argv[], const char *event,
		     struct tool_result *t)
{
	struct cst_run *r = calloc(1, sizeof(*r));
	struct cst_csv_row row;
	double t0 = cst_now();

	memset(t, 0, sizeof(*t));
	if (!r)
		return;
	cst_run(r, argv, 1800);
	acc(&t->wall, cst_now() - t0);
	if (!WIFEXITED(r->status) || WEXITSTATUS(r->status)) {
		printf("%s failed (status 0x%x): %.*s\n", name, r->status,
		       (int)strcspn(r->err, "\n"), r->err);
	} else if (event && !cst_csv_find(r->err, ',', event, &row) && row.numeric) {
		t->count = row.value;
		t->have_count = true;
		if (!cst_csv_find(r->err, ',', "context-switches", &row) && row.numeric)
			t->switches = row.value;
	}
	free(r);
}

static void hackbench(void)
{
	const char *hb = !access("/usr/bin/hackbench", X_OK) ? "/usr/bin/hackbench" :
			 !access("/usr/local/bin/hackbench", X_OK) ? "/usr/local/bin/hackbench" : NULL;
	const struct cst_ev ev = bench_events[0];
	const char *event = cst_event_error(&ev) ? "task-clock" : "instructions";
	char events[64];
	const char *perf = cst_perf_path(), *ctxstat = cst_ctxstat_path();
	char r[16];
	struct tool_result alone = { 0 }, tp = { 0 }, tc = { 0 };
	int i;

	printf("== 3. ctxstat vs perf stat: hackbench -g 2 -l %s ==\n", hb_loops);
	if (!hb) {
		printf("not measured: hackbench (rt-tests) not installed\n\n");
		return;
	}
	snprintf(r, sizeof(r), "%d", runs);
	snprintf(events, sizeof(events), "%s,context-switches", event);
	{
		char *a[] = { (char *)hb, "-g", "2", "-l", (char *)hb_loops, NULL };
		struct tool_result one;

		for (i = 0; i < runs; i++) {
			run_tool("hackbench", a, NULL, &one);
			acc(&alone.wall, mean(&one.wall));
		}
	}
	if (perf) {
		char *a[] = { (char *)perf, "stat", "-x,", "-r", r, "-e", events,
			      "--", (char *)hb, "-g", "2", "-l", (char *)hb_loops, NULL };

		run_tool("perf stat", a, event, &tp);
	}
	if (!access(ctxstat, X_OK)) {
		char *a[] = { (char *)ctxstat, "-x,", "-r", r, "-e", events,
			      "--", (char *)hb, "-g", "2", "-l", (char *)hb_loops, NULL };

		run_tool("ctxstat", a, event, &tc);
	}
	printf("event: %s; each tool runs hackbench %d times (-r %d); wall time per hackbench run:\n",
	       event, runs, runs);
	printf("  hackbench alone : %.3f s +- %.3f (mean of %d)\n", mean(&alone.wall),
	       sd(&alone.wall), alone.wall.n);
	if (perf)
		printf("  perf stat       : %.3f s per run, %s %.0f, context-switches %.0f (%s)\n",
		       mean(&tp.wall) / runs, event, tp.count, tp.switches, perf);
	else
		printf("  perf stat       : not installed\n");
	if (!access(ctxstat, X_OK))
		printf("  ctxstat         : %.3f s per run, %s %.0f, context-switches %.0f\n",
		       mean(&tc.wall) / runs, event, tc.count, tc.switches);
	else
		printf("  ctxstat         : not found at %s\n", ctxstat);
	if (perf && tp.have_count && tc.have_count && tp.count)
		printf("  ctxstat vs perf : wall %+.1f %%, %s %+.1f %%\n",
		       100 * (mean(&tc.wall) - mean(&tp.wall)) / mean(&tp.wall), event,
		       100 * (tc.count - tp.count) / tp.count);
	if (perf && tp.have_count && tc.have_count && tc.switches)
		printf("  extra %s in ctxstat's count per context switch: %.0f\n"
		       "  (the sched_switch hook runs while the monitored task's counters count;\n"
		       "  plus the workload's execve, which ctxstat counts and perf does not)\n",
		       event, (tc.count - tp.count) / tc.switches);
	printf("\n");
}

/*
 * The known loop, a deterministic program: what the two tools count and
 * how long each takes (ctxstat counts from before the exec, perf from it).
 */
static void loop_vs_perf(void)
{
	const struct cst_ev ev = bench_events[0];
	const char *event = cst_event_error(&ev) ? "task-clock" : "instructions";
	const char *perf = cst_perf_path(), *ctxstat = cst_ctxstat_path();
	const char *wl = cst_workload_copy();
	char r[16], n[24];
	struct tool_result tp = { 0 }, tc = { 0 };

	printf("== 3. ctxstat vs perf stat: the known loop ==\n");
	if (!wl || !perf || access(ctxstat, X_OK)) {
		printf("not measured: %s\n\n", !wl ? "cannot copy the workload" :
		       !perf ? "perf not installed" : "no ctxstat");
		cst_workload_copy_remove(wl);
		return;
	}
	snprintf(r, sizeof(r), "%d", runs);
	snprintf(n, sizeof(n), "%llu", (unsigned long long)iters);
	{
		char *a[] = { (char *)perf, "stat", "-x,", "-r", r, "-e", (char *)event,
			      "--", (char *)wl, "loop", n, NULL };

		run_tool("perf stat", a, event, &tp);
	}
	{
		char *a[] = { (char *)ctxstat, "-x,", "-r", r, "-e", (char *)event,
			      "--", (char *)wl, "loop", n, NULL };

		run_tool("ctxstat", a, event, &tc);
	}
	printf("%s loop %s, -r %d: perf stat %.0f, %.3f s per run; ctxstat %.0f, %.3f s per run",
	       wl, n, runs, tp.count, mean(&tp.wall) / runs, tc.count, mean(&tc.wall) / runs);
	if (tp.have_count && tc.have_count && tp.count)
		printf("; ctxstat %+.3f %% (%+.0f)", 100 * (tc.count - tp.count) / tp.count,
		       tc.count - tp.count);
	printf("\n\n");
	cst_workload_copy_remove(wl);
}

int main(int argc, char **argv)
{
	bool do_hb = true;
	const char *why;
	int i, only = 0;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			iters = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			hb_loops = argv[++i];
		else if (!strcmp(argv[i], "--no-hackbench"))
			do_hb = false;
		else if (!strcmp(argv[i], "--only") && i + 1 < argc)
			only = atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench [-r ROUNDS] [-n LOOP_ITERS] [-l HACKBENCH_LOOPS] [--no-hackbench] [--only SECTION]\n");
			return 2;
		}
	}
	if (runs < 1)
		runs = 1;
	if (!cst_module_loaded() && !access(cst_ko_path(), R_OK))
		cst_insmod("");
	why = cst_cannot_run();
	if (why) {
		printf("bench: cannot run: %s", why);
		return 4;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("ctxcount bench on %ld CPUs\n\n", sysconf(_SC_NPROCESSORS_ONLN));
	why = only > 2 ? NULL : exact_cannot_run();
	if (why) {
		printf("== 1. and 2. not measured: %s ==\n\n", why);
	} else {
		if (!only || only == 1)
			excursion_costs();
		if (!only || only == 2)
			storm();
	}
	if (!only || only == 3)
		loop_vs_perf();
	if (do_hb && (!only || only == 3))
		hackbench();
	return 0;
}
