/* SPDX-License-Identifier: GPL-2.0 */
/*
 * calibrate: the user-mode half of the module's estimate of what an
 * interrupt leaves on the task's side of the counter reads
 * (CTXCOUNT_CMD_SESSION_CALIBRATE): a fixed user-mode loop, run on one CPU
 * once quiet and once while the module fires a timer at that CPU.
 */
#ifndef CTXSTAT_CALIBRATE_H
#define CTXSTAT_CALIBRATE_H

#include <stdint.h>

#include "nlclient.h"

/*
 * Calibrate session @id (created, not started) on CPU @cpu (-1: the one
 * ctxstat is on; a -C session has counters on its CPUs only). Best
 * effort: returns 0 when the module has its figures (measured now or
 * already known), else the last error; without them the module
 * estimates hardirqs from user mode with its kernel-mode figures.
 */
int ctx_calibrate(struct ctx_nl *nl, uint32_t id, int cpu);

#endif /* CTXSTAT_CALIBRATE_H */
