/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_CALIB_H
#define _CTXCOUNT_CALIB_H

#include <linux/percpu.h>
#include <linux/types.h>

#include "account.h"
#include "counters.h"

/* Event types the estimate is measured for: instructions, branches, cycles. */
#define CTX_CALIB_NR_TYPES	3

void ctx_calib_init(void);
/* CPU types the estimate tells apart (big.LITTLE and the like). */
#define CTX_CALIB_CPU_TYPES	4

void ctx_calib_estimate(int cpu, const struct ctx_event_spec *spec,
			const struct ctx_acct_sums *sum, bool direct,
			bool enabled, u64 *est, u64 *err, u32 *state);
void ctx_calib_estimate_type(int ti, const struct ctx_event_spec *spec,
			     const u64 *exc, const u64 *reads, bool direct,
			     bool enabled, u64 *est, u64 *err, u32 *state);

/* Per CPU, its entry in the measured CPU types, or -1 (not seen at load). */
DECLARE_PER_CPU(int, ctx_cpu_calib);

/**
 * ctx_calib_cpu_type() - which measured CPU type @cpu is
 * @cpu: a CPU
 *
 * Inline: the hooks' files are built without ftrace instrumentation.
 *
 * Return: 0 to CTX_CALIB_CPU_TYPES - 1, or -1 when @cpu was not seen at
 * load.
 */
static inline int ctx_calib_cpu_type(int cpu)
{
	return per_cpu(ctx_cpu_calib, cpu);
}

/*
 * An event's estimate state over the CPUs (or CPU types) that took
 * excursions: applied only where each applied it, else the first reason.
 */
static inline u32 ctx_est_state_merge(u32 tot, u32 cpu)
{
	if (!tot || (tot == CTXCOUNT_EST_APPLIED && cpu != CTXCOUNT_EST_APPLIED))
		return cpu;
	return tot;
}

u32 ctx_calib_features(void);
void ctx_calib_exit(void);

void ctx_calib_user_init(void);
int ctx_calib_user_begin(const void *owner, bool storm);
int ctx_calib_user_end(const void *owner);
void ctx_calib_user_exit(void);

#endif /* _CTXCOUNT_CALIB_H */
