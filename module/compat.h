/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ctxcount supports (6.1 to 6.12).
 *
 * This is the only file that tests LINUX_VERSION_CODE. Each shim says
 * which kernel changed what. Interfaces checked and found identical in 6.1
 * and 6.12, so needing no shim: struct genl_ops (per-op .policy/.maxattr),
 * resv_start_op, GENL_REQ_ATTR_CHECK, NL_REQ_ATTR_CHECK, NLA_POLICY_MIN,
 * struct netlink_notify, ftrace_func_t, the probe prototypes of softirq_entry,
 * softirq_exit, sched_switch, sched_process_fork and sched_process_exit
 * (hooks.c checks them at build time), enum perf_event_state,
 * struct pmu::task_ctx_nr and perf_event_create_kernel_counter().
 *
 * Not a shim but a behaviour difference handled in session.c: in 6.12
 * find_get_context() applies perf_allow_cpu() to the current task even for
 * kernel counters, so they are created from a kernel worker everywhere.
 */
#ifndef _CTXCOUNT_COMPAT_H
#define _CTXCOUNT_COMPAT_H

#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
/*
 * The oldest kernel checked. The family relies on resv_start_op (strict
 * validation of every command), which older kernels may not have.
 */
#error "ctxcount needs Linux 6.1 or later"
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0) */

/*
 * 6.7 made struct nla_policy's range pointers const ("netlink: make range
 * pointers in policies const"); before, NLA_POLICY_FULL_RANGE() needs a
 * writable struct netlink_range_validation. Use as the qualifier of one.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0)
#define ctx_nla_range_const
#else
#define ctx_nla_range_const const
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 7, 0) */

/*
 * Not a version but a configuration: PREEMPT_RT (Debian's -rt flavour)
 * runs softirqs in task context with preemption enabled, so a task can be
 * switched out in the middle of a vector's handler. The kernel tracks BH
 * state per task there (task_struct::softirq_disable_cnt, since 5.11's
 * "softirq: Add RT specific softirq accounting"); SOFTIRQ_OFFSET is set
 * while the task runs softirq handlers. Elsewhere softirqs run with
 * preemption disabled and no task is ever switched out in one.
 */
#ifdef CONFIG_PREEMPT_RT
static inline bool ctx_task_serving_softirq(const struct task_struct *t)
{
	return t->softirq_disable_cnt & SOFTIRQ_OFFSET;
}
#else
static inline bool ctx_task_serving_softirq(const struct task_struct *t)
{
	return false;
}
#endif /* CONFIG_PREEMPT_RT */

#endif /* _CTXCOUNT_COMPAT_H */
