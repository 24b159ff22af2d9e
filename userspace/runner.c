// SPDX-License-Identifier: GPL-2.0
/*
 * runner: the measured-run machinery. The workload is forked blocked so
 * that the session names its pid before it runs a single instruction of
 * the command (workload.c); the session counts it and every task it forks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "calibrate.h"
#include "interval.h"
#include "modcheck.h"
#include "proof.h"
#include "runner.h"
#include "workload.h"
#include "signals.h"
#include "targetwait.h"
#include "workload.h"

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void report_nl_error(const struct ctx_runner *r, const char *what,
			    int err)
{
	bool kernel_said = r->nl.extack[0];

	fprintf(stderr, "ctxstat: %s: %s", what, strerror(-err));
	if (kernel_said)
		fprintf(stderr, ": %s", r->nl.extack);
	fputc('\n', stderr);
	if (err == -ESRCH && !kernel_said)
		fprintf(stderr, "ctxstat: no process %d\n", (int)r->args->pid);
}

/*
 * Where the proofs go and what the session monitors. A workload ctxstat
 * starts is counted from its exec on, as perf stat counts it.
 */
static void session_target(const struct ctx_runner *r, pid_t pid,
			   struct ctx_nl_target *target,
			   struct ctx_proof_target *pt)
{
	memset(target, 0, sizeof(*target));
	if (r->args->no_irq_estimate)
		target->session_flags = CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE;
	if (r->args->irq_sources) {
		target->session_flags |= CTXCOUNT_SESSION_F_IRQ_SOURCES;
		target->max_sources = r->args->max_sources;
	}
	if (r->args->system_wide) {
		target->flags = CTXCOUNT_TARGET_F_SYSTEM_WIDE;
		*pt = (struct ctx_proof_target){ .pid = -1,
						 .cpu = ctx_proof_any_cpu() };
		/* perf opens -C's events on the CPUs listed: one proves all. */
		if (r->pc.cpu_list) {
			target->cpus = r->pc.cpu_list->cpu;
			target->nr_cpus = r->pc.cpu_list->nr;
			pt->cpu = r->pc.cpu_list->cpu[0];
		}
		return;
	}
	target->pid = pid;
	/* -i: perf's no_inherit, the forked tasks are not counted */
	target->flags = r->args->no_inherit ? 0 : CTXCOUNT_TARGET_F_INHERIT;
	if (r->args->cmd && !r->args->pid)
		target->flags |= CTXCOUNT_TARGET_F_ENABLE_ON_EXEC;
	*pt = (struct ctx_proof_target){ .pid = pid, .cpu = -1,
					 .inherit = !r->args->no_inherit };
}

/*
 * The request: one event per counter that perf gave a proof for; the
 * others are <not supported> and not asked for.
 */
static int session_events(struct ctx_runner *r, const int *fds,
			  struct ctx_nl_event_req *req)
{
	const struct ctx_event_list *l = r->events;
	int i, k = 0;

	for (i = 0; i < l->nr_counters; i++) {
		r->counters[i].error = fds[i] < 0 ? -ENOENT : 0;
		if (fds[i] < 0)
			continue;
		r->req_counter[k] = i;
		req[k++] = (struct ctx_nl_event_req){
			.type = l->counters[i].type,
			.config = l->counters[i].config,
			.flags = l->counters[i].flags,
			.has_perf_fd = true,
			.perf_fd = fds[i],
		};
	}
	r->nr_req = k;
	return k;
}

static int create_session(struct ctx_runner *r, pid_t pid, uint32_t *id)
{
	struct ctx_nl_event_req req[CTXCOUNT_MAX_EVENTS];
	int fds[CTXCOUNT_MAX_EVENTS];
	struct ctx_nl_target target;
	struct ctx_proof_target pt;
	struct ctx_nl_reply *reply;
	int k, err;

	session_target(r, pid, &target, &pt);
	err = ctx_proofs_open(r->events, &pt, r->args->verbose, fds);
	if (err)
		return err;
	/* Nothing perf supports here: no session, every event <not supported>. */
	if (!session_events(r, fds, req))
		return 1;
	reply = calloc(1, sizeof(*reply));
	err = reply ? ctx_nl_session_new(&r->nl, &target, req, r->nr_req, reply) :
		      -ENOMEM;
	ctx_proofs_close(fds, r->events->nr_counters);
	if (err) {
		report_nl_error(r, "cannot create a counting session", err);
		free(reply);
		return err;
	}
	*id = reply->session_id;
	for (k = 0; k < r->nr_req; k++)
		r->counters[r->req_counter[k]].error = reply->ev[k].error;
	free(reply);
	return 0;
}

/*
 * The reply in counter order: the session had one event per counter perf
 * gave a proof for (r->req_counter); the others are <not supported>.
 */
static void events_by_counter(const struct ctx_runner *r,
			      struct ctx_nl_event_val *by_req)
{
	struct ctx_nl_event_val ev[CTXCOUNT_MAX_EVENTS];
	int i, k;

	for (i = 0; i < r->events->nr_counters; i++)
		ev[i] = (struct ctx_nl_event_val){ .present = true,
						   .error = -ENOENT };
	for (k = 0; k < r->nr_req; k++)
		ev[r->req_counter[k]] = by_req[k];
	memcpy(by_req, ev, sizeof(ev));
}

static void reply_by_counter(const struct ctx_runner *r,
			     struct ctx_nl_reply *reply,
			     struct ctx_nl_cpus *cpus)
{
	int k;

	events_by_counter(r, reply->ev);
	reply->nr_events = r->events->nr_counters;
	for (k = 0; cpus && k < cpus->nr; k++)
		events_by_counter(r, cpus->v[k].ev);
}

/* READ, per CPU with -A (into r->pc.cpus); its sources' rows learnt. */
static int read_session(struct ctx_runner *r, uint32_t id,
			struct ctx_nl_reply *rp)
{
	int err;

	if (r->args->no_aggr)
		err = ctx_nl_session_read_cpus(&r->nl, id, rp, &r->pc.cpus);
	else
		err = ctx_nl_session_read(&r->nl, id, rp);
	if (!err && r->args->irq_sources)
		ctx_sources_learn(&r->sources, rp);
	return err;
}

/* --irq-sources' rows, or NULL without. */
static const struct ctx_sources *sources_of(const struct ctx_runner *r)
{
	return r->args->irq_sources ? &r->sources : NULL;
}

/* What ctxstat -I's loop waits on and reads, for one run. */
struct interval_run {
	struct ctx_runner *r;
	struct ctx_target_wait tw;
	uint32_t id;
	bool have_session;
};

static bool interval_wait(void *arg, double deadline_ns)
{
	struct interval_run *ir = arg;

	return ctx_target_wait_until(&ir->tw, deadline_ns);
}

/* Without a session (nothing supported) every counter is <not supported>. */
static int interval_read(void *arg, struct ctx_nl_reply *rp,
			 const struct ctx_nl_cpus **cpus)
{
	struct interval_run *ir = arg;
	struct ctx_runner *r = ir->r;
	int err = 0;

	memset(rp, 0, sizeof(*rp));
	r->pc.cpus.nr = 0;
	if (ir->have_session)
		err = read_session(r, ir->id, rp);
	if (err) {
		report_nl_error(r, "cannot read the session", err);
		return err;
	}
	reply_by_counter(r, rp, &r->pc.cpus);
	*cpus = r->args->no_aggr ? &r->pc.cpus : NULL;
	return 0;
}

/* -I: print the intervals while the target runs; the run goes on after. */
static int print_intervals(struct ctx_runner *r, pid_t pid, bool child,
			   uint32_t id, bool have_session)
{
	struct interval_run ir = { .r = r, .id = id,
				   .have_session = have_session };
	struct ctx_interval_source src = {
		.wait = interval_wait, .read = interval_read, .arg = &ir,
	};
	int err;

	ctx_target_wait_open(&ir.tw, pid, child);
	err = ctx_interval_loop(r->interval, &src);
	ctx_target_wait_close(&ir.tw);
	return err;
}

/*
 * Run the workload (or wait for the target) between START and STOP;
 * @elapsed_ns is how long that took. With -I, session @id (if
 * @have_session) is read every interval meanwhile.
 */
static int measure(struct ctx_runner *r, struct ctx_workload *w,
		   uint32_t id, bool have_session, double *elapsed_ns)
{
	const struct ctx_args *a = r->args;
	pid_t pid = a->cmd ? w->pid : a->pid;
	struct ctx_target_wait tw;
	double t0;
	int err;

	/* Ctrl-C before the exec: the command never runs. */
	if (a->cmd && ctx_interrupted())
		return -EINTR;
	t0 = now_ns();
	if (a->cmd) {
		err = ctx_workload_start(w);
		if (err) {
			fprintf(stderr, "ctxstat: cannot run '%s': %s\n",
				a->cmd[0], strerror(-err));
			r->exec_failed = true;
			ctx_workload_wait(w, &r->status, &r->rusage);
			return err;
		}
	}
	if (r->interval) {
		r->interval->t0_ns = t0;
		err = print_intervals(r, pid, a->cmd, id, have_session);
		if (err)
			return err;
	}
	if (a->cmd) {
		err = ctx_workload_wait(w, &r->status, &r->rusage);
		if (err) {
			fprintf(stderr, "ctxstat: wait: %s\n", strerror(-err));
			return err;
		}
	} else if (!r->interval || !ctx_interval_done(r->interval)) {
		ctx_target_wait_open(&tw, pid, false);
		ctx_target_wait_until(&tw, -1);
		ctx_target_wait_close(&tw);
	}
	*elapsed_ns = now_ns() - t0;
	return 0;
}

/* -v: a reply whose parts do not add up is the module's bug: say so. */
static void warn_bucket_sum(const struct ctx_event_list *l, int i,
			    const struct ctx_nl_event_val *v, bool sources)
{
	uint64_t sum = 0, src = 0;
	int b, j;

	for (b = CTXCOUNT_BUCKET_TASK; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum += v->bucket[b];
	for (j = 0; j < CTX_NL_SOURCE_IDS; j++)
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

static void warn_lost(const struct ctx_runner *r, const struct ctx_nl_reply *rp)
{
	if (rp->tasks_lost)
		fprintf(stderr,
			"ctxstat: warning: %llu tasks could not be monitored; counts are short\n",
			(unsigned long long)rp->tasks_lost);
	if (rp->cpus_lost)
		fprintf(stderr,
			"ctxstat: warning: %u CPUs came online without counters; counts are short\n",
			rp->cpus_lost);
	if (r->args->verbose)
		fprintf(stderr, "ctxstat: session %u: %llu tasks monitored\n",
			rp->session_id, (unsigned long long)rp->tasks_seen);
}

/* Whether the reply has a count for counter @i; notes why not. */
static bool counted(struct ctx_runner *r, const struct ctx_nl_reply *rp, int i)
{
	const struct ctx_nl_event_val *v = &rp->ev[i];
	struct ctx_counter_values *c = &r->counters[i];

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
static int keep(struct ctx_runner *r, const struct ctx_nl_reply *rp,
		double elapsed_ns, bool cut_short)
{
	int i, n = r->runs_done + 1, code = ctx_exit_code(r->status);
	bool *failed = realloc(r->failed, n * sizeof(*failed));
	uint64_t rows[CTX_SOURCE_ROWS];
	const struct ctx_nl_event_val *v;
	struct ctx_counter_reading rd;

	if (!failed)
		goto oom;
	r->failed = failed;
	if (ctx_sample_reserve(&r->elapsed_ns, n))
		goto oom;
	for (i = 0; rp && i < r->events->nr_counters; i++)
		if (counted(r, rp, i) &&
		    (ctx_counter_reserve(&r->counters[i], n) ||
		     ctx_counter_reserve_src(&r->counters[i], r->sources.nr, n)))
			goto oom;
	ctx_sample_add(&r->elapsed_ns, elapsed_ns);
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
		if (r->args->verbose)
			warn_bucket_sum(r->events, i, v, r->args->irq_sources);
		ctx_sources_reading(sources_of(r), v, rows, &rd);
		ctx_counter_add(&r->counters[i], &rd);
	}
	return 0;
oom:
	fprintf(stderr, "ctxstat: out of memory keeping the values of run %d\n", n);
	return -ENOMEM;
}

static int stop_and_read(struct ctx_runner *r, uint32_t id,
			 struct ctx_nl_reply *reply)
{
	int err = ctx_nl_session_cmd(&r->nl, CTXCOUNT_CMD_SESSION_STOP, id);

	if (err) {
		report_nl_error(r, "cannot stop the session", err);
		return err;
	}
	err = read_session(r, id, reply);
	if (err) {
		report_nl_error(r, "cannot read the session", err);
		return err;
	}
	warn_lost(r, reply);
	return 0;
}

int ctx_runner_run(struct ctx_runner *r)
{
	const struct ctx_args *a = r->args;
	struct ctx_workload w = { .go_fd = -1, .err_fd = -1 };
	struct ctx_nl_reply *reply = NULL;
	bool have_session = false, cut_short = false;
	double elapsed_ns;
	uint32_t id = 0;
	int err;

	if (!a->null_run && !(reply = calloc(1, sizeof(*reply))))
		return -ENOMEM;
	if (a->sync)
		sync();
	if (a->cmd) {
		err = ctx_workload_prepare(&w, a->cmd);
		if (err) {
			fprintf(stderr, "ctxstat: fork: %s\n", strerror(-err));
			free(reply);
			return err;
		}
	}
	if (!a->null_run) {
		/* With -p, a command only sets how long to count the pid. */
		err = create_session(r, a->pid ? a->pid : w.pid, &id);
		if (err < 0)
			goto out;
		have_session = !err;
	}
	if (have_session) {
		if (!a->no_irq_estimate)
			ctx_calibrate(&r->nl, id,
				      r->pc.cpu_list ? r->pc.cpu_list->cpu[0] : -1);
		err = ctx_nl_session_cmd(&r->nl, CTXCOUNT_CMD_SESSION_START, id);
		if (err) {
			report_nl_error(r, "cannot start counting", err);
			goto out;
		}
	}
	err = measure(r, &w, id, have_session, &elapsed_ns);
	/* Without a command, Ctrl-C is how -p and -a end: nothing is cut. */
	cut_short = a->cmd && (err == -EINTR || ctx_interrupted());
	if (!err && have_session)
		err = stop_and_read(r, id, reply);
	if (!err && reply)
		reply_by_counter(r, reply, &r->pc.cpus);
	/* The last interval: from the last READ to the end. */
	if (!err && r->interval && !ctx_interval_done(r->interval))
		err = ctx_interval_print(r->interval, reply,
					 a->no_aggr ? &r->pc.cpus : NULL,
					 r->interval->t0_ns + elapsed_ns);
	if (!err && cut_short && !r->keep_cut_short)
		err = -EINTR;
	if (!err)
		err = keep(r, reply, elapsed_ns, cut_short);
	if (!err && a->no_aggr &&
	    ctx_percpu_keep(&r->pc, r->events->nr_counters, r->counters,
			    sources_of(r))) {
		fprintf(stderr, "ctxstat: out of memory keeping the CPUs' values\n");
		err = -ENOMEM;
	}
out:
	/* Never leave the workload behind when counting failed. */
	ctx_workload_kill(&w);
	if (have_session)
		ctx_nl_session_cmd(&r->nl, CTXCOUNT_CMD_SESSION_DEL, id);
	if (!err) {
		r->runs_done++;
		r->cut_short = cut_short;
	}
	free(reply);
	return err;
}

int ctx_runner_warmup(struct ctx_runner *r, int run, const char *who)
{
	struct ctx_workload w = { .go_fd = -1, .err_fd = -1 };
	struct rusage ru;
	char what[64];
	int err, status = 0;

	if (r->args->verbose)
		fprintf(stderr, "[ %s: warm-up run #%d ... ]\n", who, run);
	if (r->args->sync)
		sync();
	err = ctx_workload_prepare(&w, r->args->cmd);
	if (err) {
		fprintf(stderr, "ctxstat: fork: %s\n", strerror(-err));
		return err;
	}
	err = ctx_interrupted() ? -EINTR : ctx_workload_start(&w);
	if (err && err != -EINTR) {
		fprintf(stderr, "ctxstat: cannot run '%s': %s\n", r->args->cmd[0],
			strerror(-err));
		r->exec_failed = true;
	}
	if (!err)
		err = ctx_workload_wait(&w, &status, &ru);
	ctx_workload_kill(&w);
	if (!err && ctx_exit_code(status) && !ctx_interrupted()) {
		ctx_status_text(status, what, sizeof(what));
		fprintf(stderr, "%s: warm-up run %d: '%s' %s\n", who, run,
			r->args->cmd[0], what);
	}
	return ctx_interrupted() ? -EINTR : err;
}

void ctx_runner_clear(struct ctx_runner *r)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		ctx_counter_clear(&r->counters[i]);
	ctx_sample_clear(&r->elapsed_ns);
	r->runs_done = r->runs_failed = 0;
}

void ctx_runner_drop_failed(struct ctx_runner *r)
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
				ctx_counter_remove(&r->counters[i], k);
		ctx_sample_remove(&r->elapsed_ns, k);
		memmove(&r->failed[k], &r->failed[k + 1],
			(r->runs_done - k - 1) * sizeof(*r->failed));
		r->runs_done--;
		r->runs_failed--;
	}
}

const struct ctx_sample *ctx_runner_values(const struct ctx_runner *r, int i)
{
	return ctx_event_values(&r->events->ev[i], r->counters);
}

int ctx_runner_exit_code(const struct ctx_runner *r, int err)
{
	/*
	 * 127 only for a command that does not exist: -ENOENT from the
	 * kernel (the module unloaded mid-run) is a counting failure.
	 */
	if (err)
		return r->exec_failed && err == -ENOENT ? 127 : 1;
	return r->args->cmd ? r->fail_code : 0;
}

struct ctx_runner *ctx_runner_new(const struct ctx_args *a,
				  struct ctx_event_list *l)
{
	struct ctx_runner *r = calloc(1, sizeof(*r));

	if (!r) {
		fprintf(stderr, "ctxstat: out of memory\n");
		return NULL;
	}
	r->args = a;
	r->events = l;
	ctx_sources_init(&r->sources, "/proc/interrupts");
	if (ctx_percpu_setup(&r->pc, a) ||
	    (!a->null_run && ctx_module_connect(&r->nl, a, &r->features))) {
		ctx_runner_free(r);
		return NULL;
	}
	r->no_nmi_bucket = !a->null_run && !(r->features & CTXCOUNT_FEATURE_NMI);
	return r;
}

void ctx_runner_free(struct ctx_runner *r)
{
	int i;

	if (!r)
		return;
	ctx_nl_close(&r->nl);
	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		ctx_counter_free(&r->counters[i]);
	ctx_percpu_free(&r->pc);
	ctx_sample_free(&r->elapsed_ns);
	free(r->failed);
	free(r);
}
