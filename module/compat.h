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

#endif /* _CTXCOUNT_COMPAT_H */
