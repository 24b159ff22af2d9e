/* SPDX-License-Identifier: GPL-2.0 */
/*
 * noise: spot a machine set up for noisy measurements (what
 * ctxstat quiesce fixes): a cpufreq governor other than performance, turbo
 * on, the NMI watchdog on. Reads sysfs and procfs under $CTX_SYSFS_ROOT
 * and $CTX_PROCFS_ROOT when set (tests point them at a fake tree).
 */
#ifndef CTXSTAT_RUN_NOISE_H
#define CTXSTAT_RUN_NOISE_H

#include <stdio.h>

/*
 * Print one "ctxstat: warning: ..." line per finding to @f; settings
 * that do not exist (a VM without cpufreq) are not findings. Returns the
 * number of findings.
 */
int cxs_noise_check(FILE *f, const char *sysfs, const char *procfs);

/* The same with the roots from the environment ("/sys", "/proc" if unset). */
int cxs_noise_check_env(FILE *f);

#endif
