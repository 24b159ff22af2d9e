/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe calibration measures with (account_probe.c): one interval
 * of a private session opened and closed on this CPU.
 */
#ifndef _CTXCOUNT_ACCOUNT_PROBE_H
#define _CTXCOUNT_ACCOUNT_PROBE_H

#include <linux/types.h>

#include "account.h"

int ctx_account_probe_begin(struct ctx_acct *a);
void ctx_account_probe_open(struct ctx_acct *a);
void ctx_account_probe_sample(struct ctx_acct *a, u64 *task, u64 *exc);
bool ctx_account_probe_close(struct ctx_acct *a);
void ctx_account_probe_end(struct ctx_acct *a);

#endif /* _CTXCOUNT_ACCOUNT_PROBE_H */
