/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What READ reports: a session's totals, summed and per CPU. Types only,
 * apart from account_read.h: the rows' files below the accounting
 * (sources.c) fill them in too.
 */
#ifndef _CTXCOUNT_TOTALS_H
#define _CTXCOUNT_TOTALS_H

#include <linux/ctxcount.h>
#include <linux/types.h>

#include "cpustate.h"

/**
 * struct ctx_totals - what a session has counted (summed over CPUs)
 * @full: per event, what perf counted for it (its value as perf stat
 *	reads it, children included)
 * @enabled: per event, perf's time enabled
 * @running: per event, perf's time running
 * @buckets: per event, @full split by context (enum ctxcount_bucket); the
 *	task bucket is what the others leave of @full
 * @direct_cpus: per event, CPUs that read its counter from the PMU's
 *	registers (the others go through the driver's read)
 * @est_state: per event, enum ctxcount_est_state
 * @est_error: per event, the estimate's uncertainty (counts)
 * @excursions: interrupts the monitored tasks took, by kind (enum
 *	ctx_excursion)
 */
struct ctx_totals {
	u64 full[CTXCOUNT_MAX_EVENTS];
	u64 enabled[CTXCOUNT_MAX_EVENTS];
	u64 running[CTXCOUNT_MAX_EVENTS];
	u64 buckets[CTXCOUNT_MAX_EVENTS][__CTXCOUNT_BUCKET_LAST];
	u32 direct_cpus[CTXCOUNT_MAX_EVENTS];
	u32 est_state[CTXCOUNT_MAX_EVENTS];
	u64 est_error[CTXCOUNT_MAX_EVENTS];
	u64 excursions[CTX_NR_EXC];
};

/**
 * struct ctx_cpu_totals - what a session counted on one CPU, for READ
 * @cpu: the CPU
 * @tot: its totals (@direct_cpus: 0 or 1)
 * @src: with sources, room for its source rows (sources.h), else NULL
 */
struct ctx_cpu_totals {
	unsigned int cpu;
	struct ctx_totals tot;
	u64 *src;
};

#endif /* _CTXCOUNT_TOTALS_H */
