/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the calibration's files share: the figures it measured
 * (calib_est.c keeps them and applies them to READs), and the tools of
 * the kernel-mode measurement (calib.c) that the user-mode one
 * (calib_user.c) uses too.
 */
#ifndef _CTXCOUNT_CALIB_INT_H
#define _CTXCOUNT_CALIB_INT_H

#include <linux/hrtimer.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/time64.h>
#include <linux/types.h>

#include "account.h"
#include "calib.h"
#include "cpustate.h"

#define CTX_CALIB_BUDGET_NS	(100 * NSEC_PER_MSEC)	/* a storm, at most */

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

/**
 * struct ctx_calib_storm - a timer firing at one CPU every CTX_CALIB_PERIOD_NS
 * @timer: the pinned hrtimer
 * @stop: local_clock() past which the handler does not re-arm it
 */
struct ctx_calib_storm {
	struct hrtimer timer;
	u64 stop;
};

/* calib_est.c: the figures, written at load and by a user-mode calibration. */
extern struct mutex ctx_calib_lock;
extern struct ctx_calib_cputype ctx_cputypes[CTX_CALIB_CPU_TYPES];
extern unsigned int ctx_nr_cputypes;
extern const struct ctx_event_spec ctx_calib_types[CTX_CALIB_NR_TYPES];
extern bool ctx_calib_kernel_done;
extern bool ctx_calib_user_done;
bool ctx_calib_measured(int ti);

/* calib.c: the kernel-mode measurement's tools. */
void ctx_calib_storm_setup(struct ctx_calib_storm *storm);
void ctx_calib_storm_start(struct ctx_calib_storm *storm, u64 ns);
void ctx_calib_kinds(s64 *dexc, const u64 *e0, const u64 *e1);
struct ctx_acct *ctx_calib_acct_new(const struct ctx_event_spec *spec,
				    unsigned int nr, int cpu);
void ctx_calib_acct_free(struct ctx_acct *a);
long ctx_calib_cputype_fn(void *arg);

#endif /* _CTXCOUNT_CALIB_INT_H */
