/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The estimate (calib_est.c): the figures calibration measured, per CPU
 * type and event type, and what READ makes of them. Apart from the
 * measuring (calib.h): READ and the per-thread rows apply the estimate,
 * and the measuring sits above the accounting it measures with.
 */
#ifndef _CTXCOUNT_CALIB_EST_H
#define _CTXCOUNT_CALIB_EST_H

#include <linux/ctxcount.h>
#include <linux/mutex.h>
#include <linux/types.h>

#include "account.h"
#include "cpustate.h"

/* Event types the estimate is measured for: instructions, branches, cycles. */
#define CTX_CALIB_NR_TYPES	3

void ctx_calib_estimate(int cpu, const struct ctx_event_spec *spec,
			const struct ctx_acct_sums *sum, bool direct,
			bool enabled, u64 *est, u64 *err, u32 *state);
void ctx_calib_estimate_type(int ti, const struct ctx_event_spec *spec,
			     const u64 *exc, const u64 *reads, bool direct,
			     bool enabled, u64 *est, u64 *err, u32 *state);

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

/**
 * struct ctx_calib_fit - the model of one event type on one CPU type
 * @measured: a and c are known (the type's counter is read from its
 *	register there)
 * @stable: the rounds agreed: applied
 * @a: per path and kind (user-mode kinds included), the residual with no
 *	other register read
 * @c: per path and kind, what each other register read adds
 * @spread: per path and kind, the rounds' interquartile range
 * @user: the user-mode kinds were measured (ctx_calib_user_end())
 */
struct ctx_calib_fit {
	bool measured;
	bool stable;
	s64 a[2][CTX_NR_EXC];
	s64 c[2][CTX_NR_EXC];
	u64 spread[2][CTX_NR_EXC];
	bool user;
};

/*
 * Until a user-mode calibration (and after calib_user_reset), hardirqs
 * from user mode take kernel mode's figures of @path.
 */
static inline void ctx_calib_fit_user_as_kernel(struct ctx_calib_fit *f,
						unsigned int path)
{
	unsigned int k;

	for (k = 0; k < CTX_EXC_SOFTIRQ; k++) {
		f->a[path][CTX_EXC_USER + k] = f->a[path][k];
		f->c[path][CTX_EXC_USER + k] = f->c[path][k];
		f->spread[path][CTX_EXC_USER + k] = f->spread[path][k];
	}
}

/**
 * struct ctx_calib_cputype - what was measured on one type of CPU
 * @id: the type (compat.h's ctx_cpu_type_id())
 * @fit: per event type
 */
struct ctx_calib_cputype {
	u32 id;
	struct ctx_calib_fit fit[CTX_CALIB_NR_TYPES];
};

/* The figures, written at load and by a user-mode calibration. */
extern struct mutex ctx_calib_lock;
extern struct ctx_calib_cputype ctx_cputypes[CTX_CALIB_CPU_TYPES];
extern unsigned int ctx_nr_cputypes;
extern const struct ctx_event_spec ctx_calib_types[CTX_CALIB_NR_TYPES];
extern bool ctx_calib_kernel_done;
extern bool ctx_calib_user_done;
bool ctx_calib_measured(int ti);

#endif /* _CTXCOUNT_CALIB_EST_H */
