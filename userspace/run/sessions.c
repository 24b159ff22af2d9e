// SPDX-License-Identifier: GPL-2.0
/*
 * sessions: see run/sessions.h. The session's events are the counters
 * perf gave a proof for (r->req_counter); replies are put back in counter
 * order, the others <not supported>. Several pids' replies add up field
 * by field: counts, contexts, enabled and running times (perf sums ena
 * and run of an event's threads too), tasks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "events/group.h"
#include "events/proof.h"
#include "output/est-notes.h"
#include "run/runner.h"
#include "run/signals.h"
#include "run/sessions.h"

static void report_nl_error(const struct cxs_runner *r, const char *what,
			    int err)
{
	fprintf(stderr, "ctxstat: %s: %s", what, strerror(-err));
	if (r->nl.extack[0])
		fprintf(stderr, ": %s", r->nl.extack);
	fputc('\n', stderr);
}

/*
 * Where the proofs go and what the session monitors. A workload ctxstat
 * starts is counted from its exec on, as perf stat counts it.
 */
static void session_target(const struct cxs_runner *r, pid_t pid,
			   struct ctxc_target *target,
			   struct cxs_proof_target *pt)
{
	memset(target, 0, sizeof(*target));
	if (r->args->no_irq_estimate)
		target->session_flags = CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE;
	if (r->args->irq_sources) {
		target->session_flags |= CTXCOUNT_SESSION_F_IRQ_SOURCES;
		target->max_sources = r->args->max_sources;
	}
	if (cxs_args_per_thread(r->args))
		target->session_flags |= CTXCOUNT_SESSION_F_PER_THREAD;
	/*
	 * perf -a --per-thread opens task events on every thread, none on a
	 * CPU: the module does the same, with proofs on ctxstat's own thread.
	 */
	if (r->args->system_wide && cxs_args_per_thread(r->args)) {
		target->flags = CTXCOUNT_TARGET_F_ALL_THREADS |
				(r->args->no_inherit ? 0 : CTXCOUNT_TARGET_F_INHERIT);
		*pt = (struct cxs_proof_target){ .pid = 0, .cpu = -1,
						 .inherit = !r->args->no_inherit };
		return;
	}
	if (r->args->system_wide) {
		target->flags = CTXCOUNT_TARGET_F_SYSTEM_WIDE;
		*pt = (struct cxs_proof_target){ .pid = -1,
						 .cpu = cxs_proof_any_cpu() };
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
	/*
	 * With -D, START comes after the delay, long after the exec: the
	 * session monitors the command (and what it forks) from now all
	 * the same, and counts from START.
	 */
	if (r->args->cmd && !r->args->nr_pids && !r->args->delay_ms)
		target->flags |= CTXCOUNT_TARGET_F_ENABLE_ON_EXEC;
	*pt = (struct cxs_proof_target){ .pid = pid, .cpu = -1,
					 .inherit = !r->args->no_inherit };
}

/*
 * The request: one event per counter that perf gave a proof for; the
 * others are <not supported> and not asked for (-v says why: ENOENT, or
 * what perf_event_open() said of the event before), but for the
 * tool events, which the runner measures (run/runner.c).
 */
static int session_events(struct cxs_runner *r, const int *fds,
			  struct ctxc_event_req *req)
{
	const struct cxs_event_list *l = r->events;
	int i, k = 0;

	for (i = 0; i < l->nr_counters; i++) {
		r->counters[i].error = fds[i] >= 0 || l->counters[i].tool ? 0 :
				       -(l->counters[i].open_err ?: ENOENT);
		if (fds[i] < 0)
			continue;
		r->req_counter[k] = i;
		req[k++] = (struct ctxc_event_req){
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

/*
 * SESSION_NEW, again while the module gave up waiting for the target
 * (-EAGAIN: another perf reader or an exec held the target's perf context
 * for seconds). Each given-up request holds one of the user's sessions
 * until the target lets go, so only a few.
 */
#define NEW_TRIES	3

static int new_session(struct cxs_runner *r, const struct ctxc_target *target,
		       const struct ctxc_event_req *req,
		       struct ctxc_reply *reply)
{
	int err, try;

	for (try = 1;; try++) {
		err = ctxc_session_new(&r->nl, target, req, r->nr_req, reply);
		if (err != -EAGAIN || try == NEW_TRIES)
			return err;
		if (r->args->verbose)
			fprintf(stderr, "ctxstat: %s: trying again (%d of %d)\n",
				r->nl.extack[0] ? r->nl.extack : strerror(-err),
				try + 1, NEW_TRIES);
		sleep(1);
	}
}

static int create_session(struct cxs_runner *r, pid_t pid, uint32_t *id)
{
	struct ctxc_event_req req[CTXCOUNT_MAX_EVENTS];
	int fds[CTXCOUNT_MAX_EVENTS];
	struct ctxc_target target;
	struct cxs_proof_target pt;
	struct ctxc_reply *reply;
	int k, err;

	session_target(r, pid, &target, &pt);
	err = cxs_groups_proofs_open(r->events, &pt, r->args->verbose, fds);
	if (err)
		return err;
	/* Nothing perf supports here: no session, every event <not supported>. */
	if (!session_events(r, fds, req))
		return 1;
	reply = calloc(1, sizeof(*reply));
	err = reply ? new_session(r, &target, req, reply) : -ENOMEM;
	cxs_proofs_close(fds, r->events->nr_counters);
	if (err) {
		report_nl_error(r, "cannot create a counting session", err);
		if (err == -ESRCH && !r->nl.extack[0])
			fprintf(stderr, "ctxstat: no process %d\n", (int)pid);
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
static void events_by_counter(const struct cxs_runner *r,
			      struct ctxc_event_val *by_req)
{
	struct ctxc_event_val ev[CTXCOUNT_MAX_EVENTS];
	int i, k;

	for (i = 0; i < r->events->nr_counters; i++)
		ev[i] = (struct ctxc_event_val){
			.present = true, .error = r->counters[i].error ?: -ENOENT,
		};
	for (k = 0; k < r->nr_req; k++)
		ev[r->req_counter[k]] = by_req[k];
	memcpy(by_req, ev, sizeof(ev));
}

void cxs_reply_by_counter(const struct cxs_runner *r, struct ctxc_reply *reply,
			  struct ctxc_cpus *cpus)
{
	int k;

	events_by_counter(r, reply->ev);
	reply->nr_events = r->events->nr_counters;
	for (k = 0; cpus && k < cpus->nr; k++)
		events_by_counter(r, cpus->v[k].ev);
}

/* A READ's thread row, its events in request order: kept by counter. */
static int keep_thread_row(const struct ctxc_thread_val *row, void *arg)
{
	struct cxs_runner *r = arg;

	return cxs_perthread_add(&r->pt, row, r->req_counter, r->nr_req);
}

/*
 * READ, per CPU with -A (into r->pc.cpus), per thread with --per-thread
 * (added to r->pt's rows); its sources' rows learnt.
 */
static int read_session(struct cxs_runner *r, uint32_t id,
			struct ctxc_reply *rp)
{
	int rows = r->pt.rows.nr, err;

	if (r->args->no_aggr) {
		err = ctxc_session_read_cpus(&r->nl, id, rp, &r->pc.cpus);
	} else if (cxs_args_per_thread(r->args)) {
		err = ctxc_session_read_threads(&r->nl, id, rp,
						keep_thread_row, r);
		/* A failed READ's rows are not its answer; asked again, they come anew. */
		if (err)
			r->pt.rows.nr = rows;
	} else {
		err = ctxc_session_read(&r->nl, id, rp);
	}
	if (!err && r->args->irq_sources)
		cxs_sources_learn(&r->sources, rp);
	return err;
}

/*
 * The module gave up waiting for the target (-EAGAIN: another perf reader
 * or an exec held its perf context for seconds) and goes on with the
 * request: ask again, as long as perf stat's own read() would wait for
 * that context, until interrupted.
 */
static bool ask_again(struct cxs_runner *r, int err, int try)
{
	if (err != -EAGAIN || cxs_interrupted())
		return false;
	if (r->args->verbose)
		fprintf(stderr, "ctxstat: %s: trying again (%d)\n",
			r->nl.extack[0] ? r->nl.extack : strerror(-err), try + 1);
	return true;
}

/*
 * START or STOP, asked again while the target is held. One that the
 * module went on with was done: the next one's -EALREADY says so.
 */
static int session_cmd(struct cxs_runner *r, uint8_t cmd, uint32_t id)
{
	int err, try;

	for (try = 1;; try++) {
		err = ctxc_session_cmd(&r->nl, cmd, id);
		if (err == -EALREADY && try > 1)
			return 0;
		if (!ask_again(r, err, try))
			return err;
	}
}

/* READ, asked again while the target is held. */
static int read_session_held(struct cxs_runner *r, uint32_t id,
			     struct ctxc_reply *rp)
{
	int err, try;

	for (try = 1;; try++) {
		err = read_session(r, id, rp);
		if (!ask_again(r, err, try))
			return err;
	}
}

static void warn_lost(const struct cxs_runner *r, const struct ctxc_reply *rp)
{
	if (rp->tasks_lost)
		fprintf(stderr,
			"ctxstat: warning: %llu tasks could not be monitored; counts are short\n",
			(unsigned long long)rp->tasks_lost);
	if (rp->cpus_lost)
		fprintf(stderr,
			"ctxstat: warning: %u CPUs came online without counters; counts are short\n",
			rp->cpus_lost);
	if (r->args->verbose) {
		fprintf(stderr, "ctxstat: session %u: %llu tasks monitored\n",
			rp->session_id, (unsigned long long)rp->tasks_seen);
		cxs_est_notes(stderr, r->events, rp, r->features);
	}
}

/* @sum += @v; an error or an absent event in either stays. */
static void add_event(struct ctxc_event_val *sum, const struct ctxc_event_val *v)
{
	int b;

	sum->present = sum->present && v->present;
	sum->error = sum->error ?: v->error;
	sum->full += v->full;
	sum->time_enabled += v->time_enabled;
	sum->time_running += v->time_running;
	for (b = 0; b <= CTXCOUNT_BUCKET_MAX; b++)
		sum->bucket[b] += v->bucket[b];
}

static void add_reply(struct ctxc_reply *sum, const struct ctxc_reply *rp)
{
	int i;

	for (i = 0; i < CTXCOUNT_MAX_EVENTS; i++)
		add_event(&sum->ev[i], &rp->ev[i]);
	sum->tasks_seen += rp->tasks_seen;
	sum->tasks_lost += rp->tasks_lost;
	sum->tasks_now += rp->tasks_now;
	if (rp->cpus_lost > sum->cpus_lost)
		sum->cpus_lost = rp->cpus_lost;
}

int cxs_sessions_create(struct cxs_runner *r, pid_t workload,
			struct cxs_run_sessions *s)
{
	const struct cxs_args *a = r->args;
	int k, n = a->nr_pids ?: 1, err = 0;

	s->nr = 0;
	for (k = 0; k < n && !err; k++) {
		err = create_session(r, a->nr_pids ? a->pids[k] : workload,
				     &s->id[s->nr]);
		if (!err)
			s->nr++;
	}
	if (err < 0) {
		cxs_sessions_delete(r, s);
		s->nr = 0;
		return err;
	}
	return 0;
}

int cxs_sessions_start(struct cxs_runner *r, const struct cxs_run_sessions *s)
{
	int k, err;

	for (k = 0; k < s->nr; k++) {
		err = session_cmd(r, CTXCOUNT_CMD_SESSION_START, s->id[k]);
		if (err) {
			report_nl_error(r, "cannot start counting", err);
			return err;
		}
	}
	return 0;
}

int cxs_sessions_read(struct cxs_runner *r, const struct cxs_run_sessions *s,
		      struct ctxc_reply *rp, bool stop)
{
	struct ctxc_reply *more = s->nr > 1 ? calloc(1, sizeof(*more)) : NULL;
	int k, err = s->nr > 1 && !more ? -ENOMEM : 0;

	memset(rp, 0, sizeof(*rp));
	r->pc.cpus.nr = 0;
	r->pt.rows.nr = 0;
	if (!s->nr && r->args->no_aggr)
		err = cxs_percpu_rows_unsupported(&r->pc);
	for (k = 0; k < s->nr && !err; k++) {
		if (stop) {
			err = session_cmd(r, CTXCOUNT_CMD_SESSION_STOP, s->id[k]);
			if (err) {
				report_nl_error(r, "cannot stop the session", err);
				break;
			}
		}
		err = read_session_held(r, s->id[k], k ? more : rp);
		if (err) {
			report_nl_error(r, "cannot read the session", err);
			break;
		}
		if (stop)
			warn_lost(r, k ? more : rp);
		if (k)
			add_reply(rp, more);
	}
	free(more);
	if (!err)
		cxs_reply_by_counter(r, rp, &r->pc.cpus);
	return err;
}

void cxs_sessions_delete(struct cxs_runner *r, const struct cxs_run_sessions *s)
{
	int k;

	for (k = 0; k < s->nr; k++)
		ctxc_session_cmd(&r->nl, CTXCOUNT_CMD_SESSION_DEL, s->id[k]);
}
