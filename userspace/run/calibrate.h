/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate: the user-mode half of the module's estimate of what an
 * interrupt leaves on the task's side of the counter reads
 * (CTXCOUNT_CMD_SESSION_CALIBRATE): a fixed user-mode loop, run on one CPU
 * once quiet and once while the module fires a timer at that CPU. The
 * module measures kernel mode itself when it is loaded; user mode once,
 * for everyone, when a privileged ctxstat runs this.
 */
#ifndef CTXSTAT_RUN_CALIBRATE_H
#define CTXSTAT_RUN_CALIBRATE_H

#include <stdint.h>
#include <ctxcount/ctxcount.h>

/*
 * Measure user mode if the module has kernel-mode figures and no
 * user-mode ones yet (@features: its STATS features), on the CPU ctxstat
 * is on. Best effort, outside every measured run: returns 0 when the
 * module has its figures or leaves them to a privileged user (-EPERM),
 * else the last error; without them the module estimates hardirqs from
 * user mode with its kernel-mode figures.
 */
int cxs_calibrate(struct ctxc_sock *nl, uint32_t features);

#endif /* CTXSTAT_RUN_CALIBRATE_H */
