/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_race: perf's teardown of a monitored task's events raced against
 * the module (issue 31, finding 1), for teardown.c and soak.c. A task of
 * the session's tree owns many disabled perf events (perf_event_exit_task()
 * walks them first), wakes a SCHED_FIFO task that preempts it after a
 * delay that changes from round to round, and then execs an image it may
 * not read as nobody (the exec runs perf_event_exit_task()) or exits.
 * teardown.c's header says why each part is there.
 */
#ifndef CST_RACE_H
#define CST_RACE_H

#include <stdbool.h>
#include <stddef.h>

#include "cst_nl.h"

/*
 * The session's events (software: they count everywhere), and the rate
 * of the oracle module's hrtimer storm on the racing CPU, which gives the
 * task a boundary every 200 us.
 */
#define CST_RACE_NEV		4
#define CST_RACE_STORM_HZ	"5000"
extern const struct cst_ev cst_race_events[CST_RACE_NEV];

/*
 * Run-time preemption "full" for the races: 0 with @saved the mode to put
 * back ("" when nothing was changed: booted with preempt=full, or
 * PREEMPT_RT), or -errno when this kernel has no run-time preemption
 * model (no PREEMPT_DYNAMIC, or no SCHED_DEBUG knob).
 */
int cst_preempt_full(char *saved, size_t len);
/* Put back what cst_preempt_full() saved ("": nothing); 0 or -errno. */
int cst_preempt_restore(const char *saved);
/* Pin the calling thread to @cpu: 0 or -1 (errno). */
int cst_pin_cpu(int cpu);

struct cst_race {
	const char *wl;		/* ctx_workload's copy, mode 0111 for exec */
	bool exec;		/* exec @wl as nobody, else exit */
	int owned_events;	/* disabled perf events the task owns */
};

/*
 * One race, numbered @round (which picks the FIFO task's delay): forks
 * the racing task and waits for it. 0, or its wait status (exit codes 20
 * and up: its setup failed; see cst_race.c).
 */
int cst_race_round(const struct cst_race *a, unsigned int round);

#endif /* CST_RACE_H */
