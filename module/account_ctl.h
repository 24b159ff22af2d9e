/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A session's accounting set up and torn down, started, armed for an
 * exec and stopped (account_ctl.c), for the sessions above it.
 */
#ifndef _CTXCOUNT_ACCOUNT_CTL_H
#define _CTXCOUNT_ACCOUNT_CTL_H

#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/types.h>

#include "account.h"

/**
 * ctx_account_armed() - is @a waiting for a monitored task's exec
 * @a: the accounting state
 *
 * Context: any; a hint without @a's state lock.
 * Return: true if ctx_account_arm() armed it and no exec started it yet.
 */
static inline bool ctx_account_armed(const struct ctx_acct *a)
{
	return READ_ONCE(a->armed);
}

void ctx_account_mark_all(unsigned long bits);
int ctx_account_init(struct ctx_acct *a, unsigned int nr_events,
		     const struct ctx_event_spec *spec, bool system_wide,
		     const struct cpumask *cpus, bool estimate,
		     unsigned int max_sources);
bool ctx_account_cpu_listed(const struct ctx_acct *a, unsigned int cpu);
void ctx_account_release_counters(struct ctx_acct *a);
void ctx_account_destroy(struct ctx_acct *a);
struct perf_event *ctx_account_first_counter(struct ctx_acct *a,
					     unsigned int i);
bool ctx_account_running(struct ctx_acct *a);
bool ctx_account_cpu_filled(struct ctx_acct *a, unsigned int cpu,
			    unsigned int *gen);
void ctx_account_start(struct ctx_acct *a);
void ctx_account_arm(struct ctx_acct *a);
bool ctx_account_exec_start(struct ctx_acct *a);
void ctx_account_halt(struct ctx_acct *a);
void ctx_account_live_get(void);
void ctx_account_live_put(void);

#endif /* _CTXCOUNT_ACCOUNT_CTL_H */
