/* SPDX-License-Identifier: GPL-2.0 */
/*
 * An interval's life on its CPU, for the files that open, close and
 * change intervals: account.c (the hooks' side), account_ctl.c (sessions
 * starting and stopping), account_cpu.c (counters swapped in, CPUs going
 * down) and account_probe.c (calibration's probe). All of it runs on the
 * interval's CPU with interrupts disabled and the CPU claimed
 * (cpustate.h), and is built without ftrace instrumentation.
 */
#ifndef _CTXCOUNT_INTERVAL_H
#define _CTXCOUNT_INTERVAL_H

#include <linux/compiler.h>
#include <linux/list.h>

#include "account.h"

/*
 * Started system-wide sessions: written under account_ctl.c's lock, read
 * by the hooks under RCU.
 */
extern struct list_head ctx_sw_running;

/*
 * @seq is odd from the open to the close of an interval (and while an idle
 * CPU's counters change): ctx_account_read() reads the sums of a CPU
 * whose @seq is even and does not move without an IPI.
 */
static inline void ctx_seq_begin(struct ctx_acct_cpu *ac)
{
	WRITE_ONCE(ac->seq, ac->seq + 1);
	/* @seq odd before the state changes; pairs with ctx_read_idle_cpu() */
	smp_wmb();
}

static inline void ctx_seq_end(struct ctx_acct_cpu *ac)
{
	/* The state changed before @seq is even; pairs with ctx_read_idle_cpu() */
	smp_wmb();
	WRITE_ONCE(ac->seq, ac->seq + 1);
}

/* Start counting from the counters' current values. */
void ctx_interval_restart(struct ctx_acct_cpu *ac);
/* Which of @ac's counters are read from their registers (account.c). */
void ctx_interval_direct_decide(struct ctx_acct_cpu *ac);
/* @ac's counters changed: who reads them, and how. */
void ctx_interval_fast_update(struct ctx_acct_cpu *ac);
void ctx_interval_open(struct ctx_acct_cpu *ac);
/* Attribute the last stretch to @bucket and close. */
void ctx_interval_close(struct ctx_acct_cpu *ac, unsigned int bucket);

#endif /* _CTXCOUNT_INTERVAL_H */
