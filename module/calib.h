/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_CALIB_H
#define _CTXCOUNT_CALIB_H

#include <linux/types.h>

#include "account.h"
#include "counters.h"

/* Event types the estimate is measured for: instructions, branches, cycles. */
#define CTX_CALIB_NR_TYPES	3

void ctx_calib_init(void);
void ctx_calib_estimate(int cpu, const struct ctx_event_spec *spec,
			const struct ctx_acct_sums *sum, bool direct,
			bool enabled, u64 *est, u64 *err, u32 *state);
u32 ctx_calib_features(void);
void ctx_calib_exit(void);

void ctx_calib_user_init(void);
int ctx_calib_user_begin(const void *owner, bool storm);
int ctx_calib_user_end(const void *owner);
void ctx_calib_user_exit(void);

#endif /* _CTXCOUNT_CALIB_H */
