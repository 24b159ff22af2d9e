// SPDX-License-Identifier: GPL-2.0
/*
 * ctxcount benchmark (prints figures, never pass/fail):
 *
 *   bench [-r RUNS] [-c CPU] [-n LOOP_ITERS] [-l HACKBENCH_LOOPS] [--no-hackbench]
 *
 * Under -icount use scripts/vm --smp 1 (QEMU counts globally across vCPUs).
 *
 * 1. Hook cost per interrupt, in instructions (needs a PMU that counts
 *    instructions: the arm64 guest under QEMU -icount).
 *    A child pinned to the last CPU runs a fixed user-space loop (2
 *    instructions per iteration). Two perf counters on the child task
 *    (perf_event_open, independent of ctxcount, as perf stat counts) count
 *    all and user-mode instructions; kernel = all - user is what ran in the
 *    kernel while the child was on the CPU: the interrupts that landed on
 *    it (plus a constant: the child's wake-up and exit). The CPU's hardirqs
 *    come from its column of /proc/interrupts. This is repeated with no session, a session with 1
 *    event and a session with 4 events on the child:
 *        hook cost per irq = (kernel_k - kernel_0) / irqs
 *    (means over the runs). Second view, from the module's own numbers:
 *    the hardirq bucket of `instructions` per hardirq, for 1 and 4 events
 *    (the part of the hook that runs inside the bucket boundaries, plus
 *    the handlers themselves). Third view, what interrupts leave in the
 *    task bucket: each round also runs the 1-event session on a quarter
 *    of the loop, and (T_long - T_short) / (irqs_long - irqs_short), with
 *    T = task bucket - user instructions, is the kernel work per hardirq
 *    counted as task context (the child's wake-up and exit cancel); mean
 *    and spread over the rounds.
 * 2. ctxstat against perf stat on `hackbench -g 2 -l 50`: wall time and
 *    the full count of the same event (instructions with a PMU, task-clock
 *    without), each tool with -r RUNS, and the wall time of hackbench
 *    alone.
 */
#include <errno.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "cst.h"

static int runs = 5;
static int want_cpu = -1;	/* -c: CPU to pin the loop to (default: last) */
static uint64_t iters = 10000000;	/* 20M instructions */
static const char *hb_loops = "50";

static const struct cst_ev bench_events[4] = {
	CST_EV_HW(INSTRUCTIONS, 0, "instructions"),
	CST_EV_HW(CPU_CYCLES, 0, "cycles"),
	CST_EV_HW(INSTRUCTIONS, CST_F_USER_ONLY, "instructions:u"),
	CST_EV_HW(CPU_CYCLES, CST_F_USER_ONLY, "cycles:u"),
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

/* Hardirqs delivered to cpu: its column of /proc/interrupts. */
static unsigned long long cpu_irqs(int cpu)
{
	FILE *f = fopen("/proc/interrupts", "r");
	unsigned long long total = 0;
	char line[8192];
	int col = -1, ncol = 0;

	if (!f)
		return 0;
	if (fgets(line, sizeof(line), f)) {
		char *tok = strtok(line, " \t\n");

		for (; tok; tok = strtok(NULL, " \t\n"), ncol++)
			if (!strncmp(tok, "CPU", 3) && atoi(tok + 3) == cpu)
				col = ncol;
	}
	while (col >= 0 && fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');
		int i;

		if (!p || strstr(line, "ERR:") || strstr(line, "MIS:"))
			continue;
		p++;
		for (i = 0; i <= col; i++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (i == col)
				total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

/* Softirqs run on cpu: its column of /proc/softirqs, all vectors. */
static unsigned long long cpu_softirqs(int cpu)
{
	FILE *f = fopen("/proc/softirqs", "r");
	unsigned long long total = 0;
	char line[8192];

	if (!f)
		return 0;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, ':');
		int i;

		if (!p)
			continue;
		p++;
		for (i = 0; i <= cpu; i++) {
			char *end;
			unsigned long long v = strtoull(p, &end, 10);

			if (end == p)
				break;
			if (i == cpu)
				total += v;
			p = end;
		}
	}
	fclose(f);
	return total;
}

/* Counter of the child task (inherit off): what perf stat would see. */
static int task_counter(pid_t pid, bool user_only)
{
	struct perf_event_attr pa = {
		.size = sizeof(pa),
		.type = PERF_TYPE_HARDWARE,
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.exclude_kernel = user_only,
		.exclude_hv = user_only,
	};

	return syscall(SYS_perf_event_open, &pa, pid, -1, -1, 0);
}

static int bench_cpu;
static uint64_t loop_iters;	/* this run's loop length */

static void pinned_loop(void *arg)
{
	cst_loop(loop_iters);
}

struct one_run {
	double kernel, user, irqs, softirqs, hardirq_bucket, task_bucket;
};

/* One run of the pinned loop with a session of nev events (0: none). */
static int run_once(int nev, struct one_run *o)
{
	struct cst_res *r = calloc(1, sizeof(*r));
	int fa = -1, fu = -1;
	unsigned long long i0, i1, s0, s1;
	long long all = 0, user = 0;
	struct cst_sock s;
	struct cst_child c;
	cpu_set_t set;
	int ret = -1;

	memset(o, 0, sizeof(*o));
	if (!loop_iters)
		loop_iters = iters;
	if (!r || cst_open(&s))
		goto out;
	CPU_ZERO(&set);
	CPU_SET(bench_cpu, &set);
	/* the child inherits the affinity */
	sched_setaffinity(0, sizeof(set), &set);
	if (cst_child_fork(&c, pinned_loop, NULL))
		goto close;
	fa = task_counter(c.pid, false);
	fu = task_counter(c.pid, true);
	if (fa < 0 || fu < 0) {
		fprintf(stderr, "bench: perf_event_open: %s\n", strerror(errno));
		kill(c.pid, SIGKILL);
		cst_child_wait(&c);
		goto close;
	}
	CPU_ZERO(&set);
	for (int i = 0; i < bench_cpu; i++)
		CPU_SET(i, &set);
	if (bench_cpu > 0)
		sched_setaffinity(0, sizeof(set), &set);
	if (nev && (cst_new(&s, c.pid, 0, bench_events, nev, r, NULL) ||
		    cst_cmd(&s, CTXCOUNT_CMD_SESSION_START, r->id, NULL, NULL))) {
		kill(c.pid, SIGKILL);
		cst_child_wait(&c);
		goto close;
	}
	i0 = cpu_irqs(bench_cpu);
	s0 = cpu_softirqs(bench_cpu);
	ioctl(fa, PERF_EVENT_IOC_ENABLE, 0);
	ioctl(fu, PERF_EVENT_IOC_ENABLE, 0);
	cst_child_go(&c);
	cst_child_wait(&c);
	ioctl(fa, PERF_EVENT_IOC_DISABLE, 0);
	ioctl(fu, PERF_EVENT_IOC_DISABLE, 0);
	i1 = cpu_irqs(bench_cpu);
	s1 = cpu_softirqs(bench_cpu);
	if (read(fa, &all, sizeof(all)) != sizeof(all) ||
	    read(fu, &user, sizeof(user)) != sizeof(user))
		goto close;
	o->kernel = all - user;
	o->user = user;
	o->irqs = i1 - i0;
	o->softirqs = s1 - s0;
	if (nev) {
		if (cst_cmd(&s, CTXCOUNT_CMD_SESSION_READ, r->id, r, NULL) || !r->nev)
			goto close;
		o->hardirq_bucket = r->ev[0].b[CTXCOUNT_BUCKET_HARDIRQ];
		o->task_bucket = r->ev[0].b[CTXCOUNT_BUCKET_TASK];
	}
	ret = 0;
close:
	cst_close(&s);
out:
	if (fa >= 0)
		close(fa);
	if (fu >= 0)
		close(fu);
	free(r);
	return ret;
}

static void hook_cost(void)
{
	static const int configs[] = { 0, 1, 4 };
	struct stat_acc kern[3] = { 0 }, irq[3] = { 0 }, per[3] = { 0 };
	struct stat_acc hb[3] = { 0 }, user[3] = { 0 }, sirq[3] = { 0 };
	struct stat_acc leak = { 0 }, ir_long = { 0 }, ir_short = { 0 };
	double tk_long = 0, il = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	const struct cst_ev ev = bench_events[0];
	int i, k, err = cst_event_error(&ev);
	struct one_run o;

	printf("== hook cost per interrupt (instructions) ==\n");
	if (err) {
		printf("not measured: no hardware PMU here (instructions: %s)\n\n",
		       strerror(-err));
		return;
	}
	bench_cpu = want_cpu >= 0 && want_cpu < ncpu ? want_cpu : ncpu - 1;
	printf("workload: %llu-iteration user loop (2 insns/iter) pinned to CPU %d, %d runs per config,\n"
	       "interleaved; perf counters on the child task (as perf stat) count all and :u\n"
	       "instructions; kernel = all - :u = the interrupts that landed on it (+ wake-up/exit)\n",
	       (unsigned long long)iters, bench_cpu, runs);
	/* warm-up: page cache, first-touch */
	run_once(0, &o);
	for (i = 0; i < runs; i++) {
		for (k = 0; k < 3; k++) {
			if (run_once(configs[k], &o)) {
				printf("run failed (config %d events)\n", configs[k]);
				return;
			}
			acc(&kern[k], o.kernel);
			acc(&user[k], o.user);
			acc(&irq[k], o.irqs);
			acc(&sirq[k], o.softirqs);
			if (o.irqs)
				acc(&per[k], o.kernel / o.irqs);
			if (configs[k] && o.irqs)
				acc(&hb[k], o.hardirq_bucket / o.irqs);
			if (configs[k] == 1) {
				tk_long = o.task_bucket - o.user;
				il = o.irqs;
				acc(&ir_long, o.irqs);
			}
		}
		/* The same with a quarter of the loop: fewer interrupts. */
		loop_iters = iters / 4;
		if (run_once(1, &o)) {
			printf("run failed (short loop)\n");
			return;
		}
		loop_iters = iters;
		acc(&ir_short, o.irqs);
		if (il > o.irqs)
			acc(&leak, (tk_long - (o.task_bucket - o.user)) / (il - o.irqs));
	}
	printf("%-8s %14s %14s %10s %10s %22s %22s\n", "events", "user insns", "kernel insns",
	       "hardirqs", "softirqs", "kernel insns / irq", "hardirq bucket / irq");
	for (k = 0; k < 3; k++) {
		char hbs[64] = "-";

		if (configs[k])
			snprintf(hbs, sizeof(hbs), "%.0f +- %.0f", mean(&hb[k]), sd(&hb[k]));
		printf("%-8d %14.0f %14.0f %10.1f %10.1f %13.0f +- %6.0f %22s\n", configs[k],
		       mean(&user[k]), mean(&kern[k]), mean(&irq[k]), mean(&sirq[k]),
		       mean(&per[k]), sd(&per[k]), hbs);
	}
	for (k = 1; k < 3; k++) {
		double n = (mean(&irq[0]) + mean(&irq[k])) / 2;

		printf("hook cost with %d event%s: %.0f instructions per hardirq "
		       "((kernel_%d - kernel_0) / %.1f irqs; +- %.0f from run-to-run spread)\n",
		       configs[k], configs[k] > 1 ? "s" : "",
		       n ? (mean(&kern[k]) - mean(&kern[0])) / n : 0, configs[k], n,
		       n ? sqrt(sd(&kern[k]) * sd(&kern[k]) + sd(&kern[0]) * sd(&kern[0])) / n : 0);
	}
	if (leak.n)
		printf("left in the task bucket per hardirq (1 event): %.0f +- %.0f kernel instructions\n"
		       "((T_long - T_short) / (irqs_long - irqs_short) per round, T = task bucket - :u,\n"
		       "over %.1f and %.1f hardirqs: the wake-up/exit constant cancels; what interrupts\n"
		       "leave in :t: unhookable entry/exit code and the hooks' code around the reads)\n",
		       mean(&leak), sd(&leak), mean(&ir_long), mean(&ir_short));
	printf("note: the kernel part includes the child's wake-up and exit (same in every\n"
	       "config) and, with a session, its sched_switch/exit hooks (once per run).\n"
	       "Under -icount run with --smp 1: QEMU's PMU counts the global instruction count.\n\n");
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

	printf("== ctxstat vs perf stat: hackbench -g 2 -l %s ==\n", hb_loops);
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

int main(int argc, char **argv)
{
	bool do_hb = true;
	const char *why;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-r") && i + 1 < argc)
			runs = atoi(argv[++i]);
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			iters = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "-l") && i + 1 < argc)
			hb_loops = argv[++i];
		else if (!strcmp(argv[i], "-c") && i + 1 < argc)
			want_cpu = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-hackbench"))
			do_hb = false;
		else {
			fprintf(stderr, "usage: bench [-r RUNS] [-c CPU] [-n LOOP_ITERS] [-l HACKBENCH_LOOPS] [--no-hackbench]\n");
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
	hook_cost();
	if (do_hb)
		hackbench();
	return 0;
}
