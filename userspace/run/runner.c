// SPDX-License-Identifier: GPL-2.0
/*
 * runner: the measured-run machinery. The workload is forked blocked so
 * that the session names its pid before it runs a single instruction of
 * the command (run/workload.c); the session counts it and every task it forks
 * (run/sessions.c makes, reads and ends the sessions).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "run/calibrate.h"
#include "run/interval.h"
#include "run/module.h"
#include "run/runner.h"
#include "run/sessions.h"
#include "run/signals.h"
#include "run/target-wait.h"
#include "run/workload.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/*
 * The tool events' values in @rp, which the module was not asked for:
 * duration_time is the run's time so far (to its end once it ended, as
 * the elapsed time; to now for an interval's READ), perf's wall-clock
 * time from the start of counting.
 */
static void fill_tools(const struct cxs_runner *r, struct ctxc_reply *rp)
{
	double end = r->t1_ns ?: now_ns();
	struct ctxc_event_val *v;
	int i;

	for (i = 0; i < r->events->nr_counters; i++) {
		if (r->events->counters[i].tool != CXS_TOOL_DURATION_TIME)
			continue;
		v = &rp->ev[i];
		memset(v, 0, sizeof(*v));
		v->present = true;
		v->full = llround(end - r->t0_ns);
		v->time_enabled = v->time_running = v->full;
	}
}

/* --irq-sources' rows, or NULL without. */
static const struct cxs_sources *sources_of(const struct cxs_runner *r)
{
	return r->args->irq_sources ? &r->sources : NULL;
}

/*
 * What a run waits for: the command; else the -p pids, all of them (one
 * wait each, in turn: the measurement ends when the last is gone), or
 * for -a Ctrl-C.
 */
struct run_wait {
	struct cxs_target_wait tw[CXS_MAX_PIDS];
	int nr;
};

static void run_wait_open(struct run_wait *rw, const struct cxs_runner *r,
			  const struct cxs_workload *w)
{
	const struct cxs_args *a = r->args;
	int k;

	rw->nr = a->cmd || !a->nr_pids ? 1 : a->nr_pids;
	for (k = 0; k < rw->nr; k++)
		cxs_target_wait_open(&rw->tw[k], a->cmd ? w->pid : a->pids[k],
				     a->cmd);
}

static bool run_wait_until(struct run_wait *rw, double deadline_ns)
{
	int k;

	for (k = 0; k < rw->nr; k++)
		if (!cxs_target_wait_until(&rw->tw[k], deadline_ns))
			return false;
	return true;
}

static void run_wait_close(struct run_wait *rw)
{
	int k;

	for (k = 0; k < rw->nr; k++)
		cxs_target_wait_close(&rw->tw[k]);
}

/* What ctxstat -I's loop waits on and reads, for one run. */
struct interval_run {
	struct cxs_runner *r;
	struct run_wait rw;
	const struct cxs_run_sessions *s;
};

static bool interval_wait(void *arg, double deadline_ns)
{
	struct interval_run *ir = arg;

	return run_wait_until(&ir->rw, deadline_ns);
}

/* Without a session (nothing supported) every counter is <not supported>. */
static int interval_read(void *arg, struct ctxc_reply *rp,
			 const struct ctxc_cpus **cpus)
{
	struct interval_run *ir = arg;
	struct cxs_runner *r = ir->r;
	int err = cxs_sessions_read(r, ir->s, rp, false);

	if (!err)
		fill_tools(r, rp);
	*cpus = r->args->no_aggr ? &r->pc.cpus : NULL;
	return err;
}

/* -I: print the intervals while the target runs; the run goes on after. */
static int print_intervals(struct cxs_runner *r, const struct cxs_workload *w,
			   const struct cxs_run_sessions *s)
{
	struct interval_run ir = { .r = r, .s = s };
	struct cxs_interval_source src = {
		.wait = interval_wait, .read = interval_read, .arg = &ir,
	};
	int err;

	run_wait_open(&ir.rw, r, w);
	err = cxs_interval_loop(r->interval, &src);
	run_wait_close(&ir.rw);
	return err;
}

/*
 * -D: START the sessions the delay after the command started, or
 * earlier once it (or -p's processes) ended or on Ctrl-C, as perf's
 * usleep() ends on SIGCHLD and SIGINT. The sessions were made before the
 * command's exec, without ENABLE_ON_EXEC (run/sessions.c): they monitor
 * it and every task it forks during the delay, and count nothing of
 * them before START. perf's messages, on stderr as its pr_info().
 */
static int start_after_delay(struct cxs_runner *r, const struct cxs_workload *w,
			     const struct cxs_run_sessions *s)
{
	struct run_wait rw;
	int err;

	run_wait_open(&rw, r, w);
	run_wait_until(&rw, now_ns() + r->args->delay_ms * 1e6);
	run_wait_close(&rw);
	err = cxs_sessions_start(r, s);
	if (!err)
		fputs("Events enabled\n", stderr);
	return err;
}

/*
 * Run the workload (or wait for the target) between START and STOP;
 * @elapsed_ns is how long that took. With -D the sessions are started
 * here, after the delay, and the time counts from there. With -I,
 * sessions @s are read every interval meanwhile.
 */
static int measure(struct cxs_runner *r, struct cxs_workload *w,
		   const struct cxs_run_sessions *s, double *elapsed_ns)
{
	const struct cxs_args *a = r->args;
	struct run_wait rw;
	double t0;
	int err;

	/* Ctrl-C before the exec: the command never runs. */
	if (a->cmd && cxs_interrupted())
		return -EINTR;
	t0 = now_ns();
	if (a->cmd) {
		err = cxs_workload_start(w);
		if (err) {
			fprintf(stderr, "ctxstat: cannot run '%s': %s\n",
				a->cmd[0], strerror(-err));
			r->exec_failed = true;
			cxs_workload_wait(w, &r->status, &r->rusage);
			return err;
		}
	}
	if (a->delay_ms) {
		err = start_after_delay(r, w, s);
		if (err)
			return err;
		t0 = now_ns();
	}
	r->t0_ns = t0;
	r->t1_ns = 0;
	if (r->interval) {
		r->interval->t0_ns = t0;
		err = print_intervals(r, w, s);
		if (err)
			return err;
	}
	if (a->cmd) {
		err = cxs_workload_wait(w, &r->status, &r->rusage);
		if (err) {
			fprintf(stderr, "ctxstat: wait: %s\n", strerror(-err));
			return err;
		}
	} else if (!r->interval || !cxs_interval_done(r->interval)) {
		run_wait_open(&rw, r, w);
		run_wait_until(&rw, -1);
		run_wait_close(&rw);
	}
	r->t1_ns = now_ns();
	*elapsed_ns = r->t1_ns - t0;
	return 0;
}

/* -v: a reply whose parts do not add up is the module's bug: say so. */
static void warn_bucket_sum(const struct cxs_event_list *l, int i,
			    const struct ctxc_event_val *v, bool sources)
{
	uint64_t sum = 0, src = 0;
	int b, j;

	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += v->bucket[b];
	for (j = 0; j < CTXC_SOURCE_IDS; j++)
		src += v->src[j];
	for (j = 0; j < l->nr && l->ev[j].counter != i; j++)
		;
	if (sum != v->full)
		fprintf(stderr, "ctxstat: %s: contexts sum to %llu, full count is %llu\n",
			j < l->nr ? l->ev[j].name : "?", (unsigned long long)sum,
			(unsigned long long)v->full);
	if (sources && src != v->bucket[CTXCOUNT_BUCKET_HARDIRQ])
		fprintf(stderr, "ctxstat: %s: hardirq sources sum to %llu, hardirq is %llu\n",
			j < l->nr ? l->ev[j].name : "?", (unsigned long long)src,
			(unsigned long long)v->bucket[CTXCOUNT_BUCKET_HARDIRQ]);
}

/* Whether the reply has a count for counter @i; notes why not. */
static bool counted(struct cxs_runner *r, const struct ctxc_reply *rp, int i)
{
	const struct ctxc_event_val *v = &rp->ev[i];
	struct cxs_counter_values *c = &r->counters[i];

	if (!v->present)
		c->error = c->error ?: -EBADMSG;
	else if (v->error)
		c->error = v->error;
	return v->present && !v->error;
}

/*
 * Keep one run: its elapsed time and, unless a null run, the counts of
 * the READ reply @rp. All of it or nothing, so that every kept sample has
 * one value per run kept: room first, then values.
 */
static int keep(struct cxs_runner *r, const struct ctxc_reply *rp,
		double elapsed_ns, bool cut_short)
{
	int i, n = r->runs_done + 1, code = cxs_exit_code(r->status);
	bool *failed = realloc(r->failed, n * sizeof(*failed));
	uint64_t rows[CXS_SOURCE_ROWS];
	const struct ctxc_event_val *v;
	struct cxs_counter_reading rd;

	if (!failed)
		goto oom;
	r->failed = failed;
	if (cxs_sample_reserve(&r->elapsed_ns, n))
		goto oom;
	for (i = 0; rp && i < r->events->nr_counters; i++)
		if (counted(r, rp, i) &&
		    (cxs_counter_reserve(&r->counters[i], n) ||
		     cxs_counter_reserve_src(&r->counters[i], r->sources.nr, n)))
			goto oom;
	cxs_sample_add(&r->elapsed_ns, elapsed_ns);
	/* killed by Ctrl-C is not a failure of the command */
	r->failed[n - 1] = r->args->cmd && !cut_short && code;
	if (r->failed[n - 1]) {
		r->runs_failed++;
		r->fail_code = code;
	}
	for (i = 0; rp && i < r->events->nr_counters; i++) {
		v = &rp->ev[i];
		if (!counted(r, rp, i))
			continue;
		/* a tool event has no contexts to sum */
		if (r->args->verbose && !r->events->counters[i].tool)
			warn_bucket_sum(r->events, i, v, r->args->irq_sources);
		cxs_sources_reading(sources_of(r), v, rows, &rd);
		cxs_counter_add(&r->counters[i], &rd);
	}
	return 0;
oom:
	fprintf(stderr, "ctxstat: out of memory keeping the values of run %d\n", n);
	return -ENOMEM;
}

int cxs_runner_run(struct cxs_runner *r)
{
	const struct cxs_args *a = r->args;
	struct cxs_workload w = { .go_fd = -1, .err_fd = -1 };
	struct cxs_run_sessions s = { .nr = 0 };
	struct ctxc_reply *reply = NULL;
	bool cut_short = false;
	double elapsed_ns;
	int err;

	if (!a->null_run && !(reply = calloc(1, sizeof(*reply))))
		return -ENOMEM;
	if (a->sync)
		sync();
	if (a->cmd) {
		err = cxs_workload_prepare(&w, a->cmd);
		if (err) {
			fprintf(stderr, "ctxstat: fork: %s\n", strerror(-err));
			free(reply);
			return err;
		}
	}
	/* With -p, a command only sets how long to count the pids. */
	r->pt.workload = w.pid;
	r->pt.workload_argv = a->cmd;
	err = a->null_run ? 0 : cxs_sessions_create(r, w.pid, &s);
	/* -D: started after the delay, in measure() */
	if (!err && a->delay_ms)
		fputs("Events disabled\n", stderr);
	else
		err = err ?: cxs_sessions_start(r, &s);
	if (err)
		goto out;
	err = measure(r, &w, &s, &elapsed_ns);
	/* Without a command, Ctrl-C is how -p and -a end: nothing is cut. */
	cut_short = a->cmd && (err == -EINTR || cxs_interrupted());
	if (!err && reply) {
		err = cxs_sessions_read(r, &s, reply, true);
		if (!err)
			fill_tools(r, reply);
	}
	/* The last interval: from the last READ to the end. */
	if (!err && r->interval && !cxs_interval_done(r->interval))
		err = cxs_interval_print(r->interval, reply,
					 a->no_aggr ? &r->pc.cpus : NULL,
					 r->interval->t0_ns + elapsed_ns);
	if (!err && cut_short && !r->keep_cut_short)
		err = -EINTR;
	if (!err)
		err = keep(r, reply, elapsed_ns, cut_short);
	if (!err && a->no_aggr &&
	    cxs_percpu_keep(&r->pc, r->events->nr_counters, r->counters,
			    sources_of(r))) {
		fprintf(stderr, "ctxstat: out of memory keeping the CPUs' values\n");
		err = -ENOMEM;
	}
	if (!err && cxs_args_per_thread(a))
		cxs_perthread_keep(&r->pt, r->counters);
out:
	/* Never leave the workload behind when counting failed. */
	cxs_workload_kill(&w);
	cxs_sessions_delete(r, &s);
	if (!err) {
		r->runs_done++;
		r->cut_short = cut_short;
	}
	free(reply);
	return err;
}

int cxs_runner_warmup(struct cxs_runner *r, int run, const char *who)
{
	struct cxs_workload w = { .go_fd = -1, .err_fd = -1 };
	struct rusage ru;
	char what[64];
	int err, status = 0;

	if (r->args->verbose)
		fprintf(stderr, "[ %s: warm-up run #%d ... ]\n", who, run);
	if (r->args->sync)
		sync();
	err = cxs_workload_prepare(&w, r->args->cmd);
	if (err) {
		fprintf(stderr, "ctxstat: fork: %s\n", strerror(-err));
		return err;
	}
	err = cxs_interrupted() ? -EINTR : cxs_workload_start(&w);
	if (err && err != -EINTR) {
		fprintf(stderr, "ctxstat: cannot run '%s': %s\n", r->args->cmd[0],
			strerror(-err));
		r->exec_failed = true;
	}
	if (!err)
		err = cxs_workload_wait(&w, &status, &ru);
	cxs_workload_kill(&w);
	if (!err && cxs_exit_code(status) && !cxs_interrupted()) {
		cxs_status_text(status, what, sizeof(what));
		fprintf(stderr, "%s: warm-up run %d: '%s' %s\n", who, run,
			r->args->cmd[0], what);
	}
	return cxs_interrupted() ? -EINTR : err;
}

void cxs_runner_clear(struct cxs_runner *r)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_clear(&r->counters[i]);
	cxs_sample_clear(&r->elapsed_ns);
	r->runs_done = r->runs_failed = 0;
}

void cxs_runner_drop_failed(struct cxs_runner *r)
{
	int k, i;

	if (r->runs_failed == r->runs_done)
		return;
	for (k = r->runs_done - 1; k >= 0; k--) {
		if (!r->failed[k])
			continue;
		/* a counter that missed a run shows its error, not values */
		for (i = 0; i < r->events->nr_counters; i++)
			if (r->counters[i].full.n == r->runs_done)
				cxs_counter_remove(&r->counters[i], k);
		cxs_sample_remove(&r->elapsed_ns, k);
		memmove(&r->failed[k], &r->failed[k + 1],
			(r->runs_done - k - 1) * sizeof(*r->failed));
		r->runs_done--;
		r->runs_failed--;
	}
}

const struct cxs_sample *cxs_runner_values(const struct cxs_runner *r, int i)
{
	return cxs_event_values(&r->events->ev[i], r->counters);
}

int cxs_runner_exit_code(const struct cxs_runner *r, int err)
{
	/*
	 * 127 only for a command that does not exist: -ENOENT from the
	 * kernel (the module unloaded mid-run) is a counting failure.
	 */
	if (err)
		return r->exec_failed && err == -ENOENT ? 127 : 1;
	return r->args->cmd ? r->fail_code : 0;
}

struct cxs_runner *cxs_runner_new(const struct cxs_args *a,
				  struct cxs_event_list *l)
{
	struct cxs_runner *r = calloc(1, sizeof(*r));

	if (!r) {
		fprintf(stderr, "ctxstat: out of memory\n");
		return NULL;
	}
	r->args = a;
	r->events = l;
	cxs_sources_init(&r->sources, "/proc/interrupts");
	cxs_perthread_init(&r->pt, a, l->nr_counters);
	if (cxs_percpu_setup(&r->pc, a) ||
	    (!a->null_run && cxs_module_connect(&r->nl, a, &r->features))) {
		cxs_runner_free(r);
		return NULL;
	}
	r->no_nmi_bucket = !a->null_run && !(r->features & CTXCOUNT_FEATURE_NMI);
	/* Once, before anything is measured, and only where it is missing. */
	if (!a->null_run && !a->no_irq_estimate)
		cxs_calibrate(&r->nl, r->features);
	return r;
}

void cxs_runner_free(struct cxs_runner *r)
{
	int i;

	if (!r)
		return;
	ctxc_close(&r->nl);
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		cxs_counter_free(&r->counters[i]);
	cxs_percpu_free(&r->pc);
	cxs_perthread_free(&r->pt);
	cxs_sample_free(&r->elapsed_ns);
	free(r->failed);
	free(r);
}
