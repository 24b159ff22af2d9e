/* SPDX-License-Identifier: GPL-2.0 */
/*
 * signals: what ctxstat does with Ctrl-C (SIGINT) and SIGTERM. They end
 * a -p/-a measurement; a workload gets them from the terminal itself
 * (same process group) while ctxstat lives on to print what it has.
 * Afterwards ctxstat dies by the same signal, with its default action,
 * as perf stat does: a shell loop or make around it then stops too.
 */
#ifndef CTXSTAT_RUN_SIGNALS_H
#define CTXSTAT_RUN_SIGNALS_H

#include <stdbool.h>

/*
 * Catch SIGINT and SIGTERM (without SA_RESTART: a wait returns). One
 * that ctxstat was started with ignored (a background job of a script)
 * stays ignored, and so does it for the workload.
 */
void cxs_signals_install(void);

/* Whether one came, and which (0: none). */
bool cxs_interrupted(void);
int cxs_interrupt_signal(void);

/*
 * After the output is written: die by the signal that came, if one did.
 * Returns only when none came.
 */
void cxs_signals_reraise(void);

/* "SIGSEGV" for SIGSEGV, in a static buffer. */
const char *cxs_signal_name(int sig);

#endif
