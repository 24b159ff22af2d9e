/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cst_kern: what the running kernel reports about itself: its log (a
 * report there fails a test), interrupt counts, tracepoint ids, whether
 * it is PREEMPT_RT, its symbols and its interrupt threads.
 */
#ifndef CST_KERN_H
#define CST_KERN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Open /dev/kmsg positioned at its end; -1 if unavailable. */
int cst_kmsg_open(void);
/* Read what was logged since; returns the number of report lines
 * (WARNING, BUG, Oops, ...) and copies the first into first. */
int cst_kmsg_reports(int fd, char *first, size_t len);

/* Interrupt totals from /proc/interrupts (sum over CPUs and lines). */
unsigned long long cst_total_interrupts(void);
unsigned long long cst_softirq_total(const char *name);
/*
 * CPU @cpu's count on the /proc/interrupts lines containing @name (e.g.
 * "LOC:", "arch_timer"), summed; -1 when there is no such line.
 */
long long cst_cpu_interrupts(const char *name, int cpu);
/* The irq number of the first /proc/interrupts line naming @name, or -1. */
int cst_irq_number(const char *name);
/* Column @cpu of irq @irq's line in /proc/interrupts, or -1. */
long long cst_irq_cpu_count(int irq, int cpu);

/* The id of tracepoint @event ("group/name") in tracefs, or -1. */
long cst_tracepoint_id(const char *event);

/*
 * A PREEMPT_RT kernel ("PREEMPT_RT" in uname -v): softirqs run preemptible
 * in task context and every interrupt handler not marked IRQF_NO_THREAD
 * runs in an irq/N-name thread.
 */
bool cst_kernel_is_rt(void);
/* Whether the running kernel has a symbol of this name (/proc/kallsyms). */
bool cst_kernel_has_symbol(const char *name);
/*
 * The handler threads (irq/N-...) of the interrupts whose /proc/interrupts
 * line contains name; up to max pids in pids. Returns how many.
 */
int cst_irq_threads(const char *name, pid_t *pids, int max);
/* The ksoftirqd/N threads' pids, up to @max; how many. */
int cst_ksoftirqd_threads(pid_t *pids, int max);

#endif /* CST_KERN_H */
