/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the workloads run. ctx_workload is linked statically from this
 * alone: exec'ing a dynamic program looks up its libraries on the guest's
 * 9p root, and the number of times that sleeps changes from run to run,
 * which tests comparing instruction counts between runs would see.
 */
#ifndef CST_WORK_H
#define CST_WORK_H

#include <stdint.h>

/* Exactly 2 instructions per iteration (see the README). n >= 1. */
void cst_loop(uint64_t n);
/* CLOCK_MONOTONIC in seconds */
double cst_now(void);
/* Loop for about ms milliseconds of wall time. */
void cst_spin_ms(unsigned int ms);
/* Send n 64-byte UDP datagrams to a socket of this process over lo. */
int cst_udp_loopback(unsigned int n);

#endif /* CST_WORK_H */
