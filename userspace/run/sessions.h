/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sessions: a run's counting sessions, as the runner uses them: made
 * with their proofs, calibrated and started, read, stopped, deleted. One
 * session, or with -p and a list of pids one per pid (the ctxcount
 * module counts one process, with what it forks, per session), read as
 * one: their counts summed, as perf sums a list of pids.
 */
#ifndef CTXSTAT_RUN_SESSIONS_H
#define CTXSTAT_RUN_SESSIONS_H

#include <stdint.h>
#include <sys/types.h>
#include <ctxcount/ctxcount.h>

#include "options/args.h"

struct cxs_runner;

struct cxs_run_sessions {
	uint32_t id[CXS_MAX_PIDS];
	int nr;		/* 0: nothing perf supports here, no session */
};

/*
 * The run's sessions, for its target: -a/-C, the -p pids, or @workload
 * (the command's pid). 0 (@s->nr may be 0: every event <not supported>),
 * or -errno after saying why (none left).
 */
int cxs_sessions_create(struct cxs_runner *r, pid_t workload,
			struct cxs_run_sessions *s);

/* Calibrate (unless --no-irq-estimate) and START each: 0 or -errno, said. */
int cxs_sessions_start(struct cxs_runner *r, const struct cxs_run_sessions *s);

/*
 * READ each (with -A per CPU, into r->pc.cpus; with --per-thread per
 * thread, every session's rows added to r->pt's), summed into @rp in
 * counter order: 0 or -errno, said. @stop: STOP each first. Without a
 * session every counter is <not supported>, with -A on every CPU.
 */
int cxs_sessions_read(struct cxs_runner *r, const struct cxs_run_sessions *s,
		      struct ctxc_reply *rp, bool stop);

void cxs_sessions_delete(struct cxs_runner *r, const struct cxs_run_sessions *s);

/*
 * A reply (and its CPUs' rows) from request order
 * into counter order; without session (nothing supported) every counter
 * <not supported>.
 */
void cxs_reply_by_counter(const struct cxs_runner *r, struct ctxc_reply *reply,
			  struct ctxc_cpus *cpus);

#endif
