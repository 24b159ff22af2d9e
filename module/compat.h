/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Differences between the kernels ctxcount supports (6.1 to 7.3; tested:
 * 6.1, 6.12, 7.2 and 7.3-rc).
 *
 * This is the only file that tests LINUX_VERSION_CODE (the test-bed
 * modules include it too). Each shim says which kernel changed what.
 * Interfaces checked and found identical in 6.1, 6.12, 7.2 and 7.3, so
 * needing no shim: struct genl_ops (per-op .policy/.maxattr),
 * resv_start_op, GENL_REQ_ATTR_CHECK, NL_REQ_ATTR_CHECK, NLA_POLICY_MIN,
 * struct netlink_notify, ftrace_func_t, the probe prototypes of softirq_entry,
 * softirq_exit, sched_switch and sched_process_fork (hooks.c checks them,
 * and sched_process_exit's, at build time), enum perf_event_state,
 * struct pmu::task_ctx_nr, perf_event_create_kernel_counter(), the
 * ftrace-ability of irq_enter_rcu(), irq_exit_rcu(), irq_exit(),
 * perf_event_exec() and perf_event_exit_task() (both still called on
 * current), task_struct::softirq_disable_cnt (PREEMPT_RT) and the arm64
 * PMU's counter indexes (below). 7.2 calls tracepoint probes under
 * SRCU-fast where 6.12 disabled preemption around them: the softirq probes
 * disable interrupts themselves and the fork and exit probes take
 * rcu_read_lock(), so none relies on that (sched_switch's and the irq
 * handlers' run with interrupts disabled anyway).
 *
 * Not a shim but a behaviour difference handled in session.c: in 6.12
 * find_get_context() applies perf_allow_cpu() to the current task even for
 * kernel counters, so they are created from a kernel worker everywhere.
 */
#ifndef _CTXCOUNT_COMPAT_H
#define _CTXCOUNT_COMPAT_H

#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/interrupt.h>
#include <linux/perf_event.h>
#include <linux/preempt.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/thread_info.h>
#include <linux/version.h>
#ifdef CONFIG_X86
#include <asm/msr.h>
/*
 * cpuid_eax(): declared in <asm/processor.h> (6.1) or in <asm/cpuid.h>,
 * which it includes (6.12); 6.15 ("x86/cpuid: Rename cpuid.h to
 * cpuid/api.h") moved the CPUID helpers to <asm/cpuid/api.h>, which 7.2's
 * <asm/processor.h> no longer includes.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0)
#include <asm/processor.h>
#else
#include <asm/cpuid/api.h>
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 15, 0) */
#endif /* CONFIG_X86 */

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
 *
 * 6.12's RT kernel serializes BH sections per CPU with a local lock. By
 * 7.2 that lock is optional (CONFIG_PREEMPT_RT_NEEDS_BH_LOCK, off in
 * Debian's 7.2 rt): a BH section only disables migration, so a task still
 * resumes its vector on the same CPU, but another task may run softirq
 * handlers on that CPU meanwhile, and be switched out in one too. hooks.c
 * remembers one such task per CPU (docs/design/preempt-rt.md).
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

/*
 * Softirqs pending when a hardirq returns to task context run on its way
 * out (unless interrupts are threaded, hooks.c finds that out) except,
 * before 6.5, when ksoftirqd is running and none of them is HI or TASKLET:
 * invoke_softirq() then left them to ksoftirqd (ksoftirqd_running(),
 * removed by 6.5's "Revert \"softirq: Let ksoftirqd do its job\""). A
 * module cannot see ksoftirqd's state, so before 6.5 only HI and TASKLET
 * are certain to run there.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0)
static __always_inline bool ctx_softirq_runs_inline(u32 pending)
{
	return pending & (BIT(HI_SOFTIRQ) | BIT(TASKLET_SOFTIRQ));
}
#else
static __always_inline bool ctx_softirq_runs_inline(u32 pending)
{
	return true;
}
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 5, 0) */

/*
 * A task's perf contexts, which hold its per-task events. Before 6.2 a task
 * had one per kind of PMU (perf_event_ctxp[perf_nr_task_contexts]:
 * hardware and software); 6.2's "perf: Rewrite core context handling"
 * made it one context for all. Under RCU; NULL where there is none.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0)
#define CTX_NR_TASK_PERF_CTX	perf_nr_task_contexts
static __always_inline struct perf_event_context *
ctx_task_perf_ctx(struct task_struct *t, unsigned int n)
{
	return rcu_dereference(t->perf_event_ctxp[n]);
}
#else
#define CTX_NR_TASK_PERF_CTX	1
static __always_inline struct perf_event_context *
ctx_task_perf_ctx(struct task_struct *t, unsigned int n)
{
	return rcu_dereference(t->perf_event_ctxp);
}
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 2, 0) */

/*
 * Not a version but an architecture: did the hardirq whose exit hook runs
 * @depth bytes below the top of the current task's stack interrupt user
 * mode? x86 runs irq_enter_rcu()/irq_exit_rcu() on the per-CPU hardirq
 * stack unless the interrupt came from user mode or that stack is in use
 * already (call_on_irqstack_cond(), arch/x86/include/asm/irq_stack.h, 6.1
 * and 6.12): a callback on the task's stack is one from user mode. arm64
 * calls them on the task's stack either way (__el0_irq(), __el1_irq());
 * one from user mode has only the user registers and the interrupt path
 * below it, less than @limit (calib.c measures it; 0: not known, kernel
 * mode).
 */
#ifdef CONFIG_X86_64
static __always_inline bool ctx_irq_from_user(unsigned long depth,
					      unsigned long limit)
{
	return depth < THREAD_SIZE;
}
#else
static __always_inline bool ctx_irq_from_user(unsigned long depth,
					      unsigned long limit)
{
	return depth < limit;
}
#endif /* CONFIG_X86_64 */

/*
 * Not a version but an architecture: which type of CPU the current one is,
 * for figures measured on one CPU of a type and used on all of them
 * (calib.c): arm64's MIDR_EL1 (big.LITTLE cores differ), x86's hybrid
 * core type (CPUID leaf 0x1A), else one type.
 */
#if defined(CONFIG_ARM64)
#include <asm/cputype.h>
static inline u32 ctx_cpu_type_id(void)
{
	return read_cpuid_id();
}
#elif defined(CONFIG_X86)
#include <asm/cpufeature.h>
static inline u32 ctx_cpu_type_id(void)
{
	return boot_cpu_has(X86_FEATURE_HYBRID_CPU) ? cpuid_eax(0x1a) >> 24 : 0;
}
#else
static inline u32 ctx_cpu_type_id(void)
{
	return 0;
}
#endif

/*
 * 6.13 added hrtimer_setup(), which sets the callback with the rest
 * ("hrtimers: Introduce hrtimer_setup() to replace hrtimer_init()");
 * later kernels removed hrtimer_init() (7.2 has none).
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0)
static inline void ctx_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
}
#else
static inline void ctx_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
	hrtimer_setup(timer, fn, clock, mode);
}
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 13, 0) */

/*
 * 6.17 ("workqueue: Add system_percpu_wq and system_dfl_wq") renamed the
 * unbound system workqueue system_dfl_wq; 7.2 warns once ("enqueued on
 * deprecated workqueue") when work is queued on system_unbound_wq.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define ctx_system_dfl_wq	system_unbound_wq
#else
#define ctx_system_dfl_wq	system_dfl_wq
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0) */

/*
 * 6.17 ("workqueue: Add new WQ_PERCPU flag") has a per-CPU workqueue say
 * so, before unbound becomes the default; 7.2 WARNs at alloc_workqueue()
 * when a workqueue has neither WQ_PERCPU nor WQ_UNBOUND. Before 6.17 a
 * workqueue without WQ_UNBOUND is per CPU.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0)
#define CTX_WQ_PERCPU		0
#else
#define CTX_WQ_PERCPU		WQ_PERCPU
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 17, 0) */

/*
 * 6.16 ("sched/tracepoints: Move and extend the sched_process_exit()
 * tracepoint") gave sched_process_exit a bool group_dead argument and
 * moved it from after exit_mm() to before perf_event_exit_task(). The
 * probe's parameters after its data pointer, the task named @task.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
#define CTX_SCHED_PROCESS_EXIT_ARGS(task)	struct task_struct *task
#else
#define CTX_SCHED_PROCESS_EXIT_ARGS(task)	struct task_struct *task, bool group_dead
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0) */

#ifdef CONFIG_X86
/*
 * 6.16 ("x86/msr: Rename 'rdpmcl()' to 'rdpmc()'") made rdpmc() return
 * the 64-bit counter; before, rdpmcl() stored it and rdpmc() took halves.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0)
static __always_inline u64 ctx_rdpmc(int counter)
{
	u64 val;

	rdpmcl(counter, val);
	return val;
}
#else
static __always_inline u64 ctx_rdpmc(int counter)
{
	return rdpmc(counter);
}
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 16, 0) */
#endif /* CONFIG_X86 */

#ifdef CONFIG_ARM64
/*
 * arm64 PMUv3 (pmu_direct.h): the register behind perf's counter index
 * (hw.idx). 6.11 ("perf: arm_pmu: Remove event index to counter
 * remapping", with FEAT_PMUv3_ICNTR support) made the index the counter's
 * own number: PMEVCNTR<n>_EL0 at n < 31, the cycle counter at 31, the
 * instruction counter (PMICNTR_EL0) at 32. Before, the cycle counter was
 * index 0, PMEVCNTR<n>_EL0 index n + 1, and there was no instruction
 * counter. Unchanged in 7.2 and 7.3 (ARMV8_PMU_CYCLE_IDX 31,
 * ARMV8_PMU_INSTR_IDX 32). CTX_ARMV8_NR_IDX: the number of indexes.
 */
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0)
#define CTX_ARMV8_IDX_CYCLE	0
#define CTX_ARMV8_NR_IDX	32
#else
#define CTX_ARMV8_IDX_CYCLE	31
#define CTX_ARMV8_NR_IDX	33
#endif /* LINUX_VERSION_CODE < KERNEL_VERSION(6, 11, 0) */
#endif /* CONFIG_ARM64 */

#endif /* _CTXCOUNT_COMPAT_H */
