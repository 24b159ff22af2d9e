// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU state of cpustate.h. Its own unit, below everything that
 * reads it: the hooks keep it, the accounting reads it, and the hooks
 * call the accounting, so defined in either it would make the two call
 * each other (scripts/layers).
 */
#include <linux/percpu.h>

#include "cpustate.h"

DEFINE_PER_CPU(struct ctx_cpu_state, ctx_cpu_state);

/* Written by calib.c at load, read at every settle (threads.c). */
DEFINE_PER_CPU(int, ctx_cpu_calib) = -1;
