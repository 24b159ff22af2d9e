/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A system-wide session's per-CPU counters swapped in and CPUs going
 * down (account_cpu.c), for CPU hotplug and calibration.
 */
#ifndef _CTXCOUNT_ACCOUNT_CPU_H
#define _CTXCOUNT_ACCOUNT_CPU_H

#include <linux/types.h>

#include "account.h"

int ctx_account_swap_events(struct ctx_acct *a, unsigned int cpu,
			    struct perf_event **event, struct perf_event **old,
			    unsigned int gen);
void ctx_account_cpu_down(struct ctx_acct *a, unsigned int cpu);
void ctx_account_cpu_dead(unsigned int cpu);

#endif /* _CTXCOUNT_ACCOUNT_CPU_H */
