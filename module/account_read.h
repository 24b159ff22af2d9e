/* SPDX-License-Identifier: GPL-2.0 */
/*
 * READ (account_read.c): a session's sums copied from each CPU, the
 * estimate applied, the totals and per-CPU and per-thread rows.
 */
#ifndef _CTXCOUNT_ACCOUNT_READ_H
#define _CTXCOUNT_ACCOUNT_READ_H

#include <linux/ctxcount.h>
#include <linux/types.h>

#include "account.h"
#include "threads.h"
#include "totals.h"

/**
 * struct ctx_snap - what one CPU counted for a session, copied at READ
 * @sum: its sums
 * @est: per event, the part of the task bucket estimated to be what this
 *	CPU's excursions left there (CTXCOUNT_BUCKET_IRQ_ENTRY_EST)
 * @est_error: per event, its uncertainty
 * @est_state: per event, enum ctxcount_est_state
 * @direct: bit i: event i was read from the registers there
 * @src_rows: with sources, the copy of that CPU's source rows
 */
struct ctx_snap {
	struct ctx_acct_sums sum;
	u64 est[CTXCOUNT_MAX_EVENTS];
	u64 est_error[CTXCOUNT_MAX_EVENTS];
	u32 est_state[CTXCOUNT_MAX_EVENTS];
	u16 direct;
	u64 *src_rows;
};

int ctx_account_read(struct ctx_acct *a, struct ctx_totals *sum,
		     u64 *src_sum, struct ctx_cpu_totals *rows,
		     unsigned int *nr_rows);
void ctx_totals_finish(struct ctx_totals *t, unsigned int nr_events);
void ctx_threads_read(const struct ctx_acct *a, unsigned int row,
		      struct ctx_thread_totals *out);

#endif /* _CTXCOUNT_ACCOUNT_READ_H */
