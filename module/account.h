/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_ACCOUNT_H
#define _CTXCOUNT_ACCOUNT_H

#include <linux/percpu.h>
#include <linux/types.h>

struct ctx_session;
struct perf_event;
struct ctx_totals;
struct task_struct;

DECLARE_PER_CPU(unsigned int, ctx_nr_active);

/**
 * ctx_account_cpu_active() - does this CPU run a monitored task
 *
 * The context hooks return early when it does not, so CPUs that run no
 * monitored task pay only the hook entry.
 *
 * Return: true if a started session has an open interval on this CPU.
 */
static __always_inline bool ctx_account_cpu_active(void)
{
	return __this_cpu_read(ctx_nr_active);
}

void ctx_account_boundary(unsigned int bucket);
void ctx_account_switch(struct task_struct *prev, struct task_struct *next,
			unsigned int bucket);

bool ctx_account_running(struct ctx_session *s);
void ctx_account_start(struct ctx_session *s);
void ctx_account_arm(struct ctx_session *s);
void ctx_account_exec_start(struct ctx_session *s);
void ctx_account_drop_current(struct ctx_session *s);
void ctx_account_halt(struct ctx_session *s);
void ctx_account_read(struct ctx_session *s, struct ctx_totals *sum);
int ctx_account_swap_events(struct ctx_session *s, unsigned int cpu,
			    struct perf_event **event, struct perf_event **old,
			    unsigned int gen);
void ctx_account_cpu_down(struct ctx_session *s, unsigned int cpu);

#endif /* _CTXCOUNT_ACCOUNT_H */
