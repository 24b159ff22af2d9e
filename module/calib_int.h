/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the two measuring files share: the tools of the kernel-mode
 * measurement (calib.c) that the user-mode one (calib_user.c) uses too.
 * The figures they measure are calib_est.h's.
 */
#ifndef _CTXCOUNT_CALIB_INT_H
#define _CTXCOUNT_CALIB_INT_H

#include <linux/hrtimer.h>
#include <linux/percpu.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "account.h"
#include "calib.h"
#include "calib_est.h"
#include "cpustate.h"

#define CTX_CALIB_BUDGET_NS	(100 * NSEC_PER_MSEC)	/* a storm, at most */

/**
 * struct ctx_calib_storm - a timer firing at one CPU every CTX_CALIB_PERIOD_NS
 * @timer: the pinned hrtimer
 * @stop: local_clock() past which the handler does not re-arm it
 */
struct ctx_calib_storm {
	struct hrtimer timer;
	u64 stop;
};

/* calib.c: the kernel-mode measurement's tools. */
void ctx_calib_storm_setup(struct ctx_calib_storm *storm);
void ctx_calib_storm_start(struct ctx_calib_storm *storm, u64 ns);
void ctx_calib_kinds(s64 *dexc, const u64 *e0, const u64 *e1);
struct ctx_acct *ctx_calib_acct_new(const struct ctx_event_spec *spec,
				    unsigned int nr, int cpu);
void ctx_calib_acct_free(struct ctx_acct *a);
long ctx_calib_cputype_fn(void *arg);

#endif /* _CTXCOUNT_CALIB_INT_H */
