// SPDX-License-Identifier: GPL-2.0
/*
 * The estimate: what calibration measured (calib.c at load, calib_user.c
 * at a privileged client's request), per CPU type and event type, and
 * what READ makes of it for a CPU's excursions (ctx_calib_estimate()).
 */
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/mutex.h>
#include <linux/percpu.h>

#include "calib_est.h"

/* The event types measured, each on its own (config A), twice (B). */
const struct ctx_event_spec ctx_calib_types[CTX_CALIB_NR_TYPES] = {
	{ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_INSTRUCTIONS },
	{ .type = PERF_TYPE_HARDWARE,
	  .config = PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
	{ .type = PERF_TYPE_HARDWARE, .config = PERF_COUNT_HW_CPU_CYCLES },
};

/* Written at load (and by a user-mode calibration) under ctx_calib_lock. */
DEFINE_MUTEX(ctx_calib_lock);
struct ctx_calib_cputype ctx_cputypes[CTX_CALIB_CPU_TYPES];
unsigned int ctx_nr_cputypes;
bool ctx_calib_kernel_done;
bool ctx_calib_user_done;

/* Has anything been measured on CPU type @ti. */
bool ctx_calib_measured(int ti)
{
	unsigned int t;

	for (t = 0; t < CTX_CALIB_NR_TYPES; t++)
		if (ctx_cputypes[ti].fit[t].measured)
			return true;
	return false;
}

/* The calibrated type of @spec, or -1. */
static int ctx_calib_type_of(const struct ctx_event_spec *spec)
{
	unsigned int t;

	for (t = 0; t < CTX_CALIB_NR_TYPES; t++)
		if (spec->type == ctx_calib_types[t].type &&
		    (spec->config & 0xffffffffULL) == ctx_calib_types[t].config)
			return t;
	return -1;
}

/**
 * ctx_calib_estimate_type() - what excursions on one CPU type left in an
 * event's task bucket
 * @ti: the CPU type (ctx_calib_cpu_type()), or -1
 * @spec: the event
 * @exc: CTX_NR_EXC_ALL excursion counts (&struct ctx_acct_sums.excursions)
 * @reads: their other register reads (&struct ctx_acct_sums.exc_reads)
 * @direct: the event was read from its register wherever they were taken
 * @enabled: the session asked for the estimate
 * @est: set to the estimate (counts)
 * @err: set to its uncertainty (counts)
 * @state: set to enum ctxcount_est_state
 *
 * Context: any; the figures change only at load and at a user-mode
 * calibration, and a READ that races one takes old or new figures.
 */
void ctx_calib_estimate_type(int ti, const struct ctx_event_spec *spec,
			     const u64 *exc, const u64 *reads, bool direct,
			     bool enabled, u64 *est, u64 *err, u32 *state)
{
	const struct ctx_calib_fit *f;
	int t = ctx_calib_type_of(spec);
	unsigned int p, k, i;
	s64 e = 0;
	u64 u = 0;

	*est = 0;
	*err = 0;
	if (!enabled) {
		*state = CTXCOUNT_EST_DISABLED;
		return;
	}
	if (spec->flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL) {
		*state = CTXCOUNT_EST_NONE_NEEDED;
		return;
	}
	f = t >= 0 && ti >= 0 ? &ctx_cputypes[ti].fit[t] : NULL;
	if (!f || !READ_ONCE(f->measured)) {
		*state = CTXCOUNT_EST_NOT_MEASURED;
		return;
	}
	if (!f->stable) {
		*state = CTXCOUNT_EST_UNSTABLE;
		return;
	}
	if (!direct) {
		*state = CTXCOUNT_EST_DRIVER_READ;
		return;
	}
	for (p = 0; p < 2; p++) {
		for (k = 0; k < CTX_NR_EXC; k++) {
			i = k + p * CTX_EXC_SLOW;
			e += f->a[p][k] * (s64)exc[i] + f->c[p][k] * (s64)reads[i];
			u += f->spread[p][k] * exc[i];
		}
	}
	*est = max_t(s64, e, 0);
	*err = u;
	*state = CTXCOUNT_EST_APPLIED;
}

/**
 * ctx_calib_estimate() - what @cpu's excursions left in an event's task bucket
 * @cpu: the CPU
 * @spec: the event
 * @sum: what the session counted on @cpu
 * @direct: the event was read from its register on @cpu
 * @enabled: the session asked for the estimate
 * @est: set to the estimate (counts)
 * @err: set to its uncertainty (counts)
 * @state: set to enum ctxcount_est_state
 *
 * Context: any, as ctx_calib_estimate_type().
 */
void ctx_calib_estimate(int cpu, const struct ctx_event_spec *spec,
			const struct ctx_acct_sums *sum, bool direct,
			bool enabled, u64 *est, u64 *err, u32 *state)
{
	ctx_calib_estimate_type(ctx_calib_cpu_type(cpu), spec, sum->excursions,
				sum->exc_reads, direct, enabled, est, err,
				state);
}

/**
 * ctx_calib_features() - what the estimate knows here
 *
 * Return: CTXCOUNT_FEATURE_EST_KERNEL, CTXCOUNT_FEATURE_EST_USER bits.
 */
u32 ctx_calib_features(void)
{
	return (READ_ONCE(ctx_calib_kernel_done) ?
		CTXCOUNT_FEATURE_EST_KERNEL : 0) |
	       (READ_ONCE(ctx_calib_user_done) ? CTXCOUNT_FEATURE_EST_USER : 0);
}
