/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_HOOKS_H
#define _CTXCOUNT_HOOKS_H

#include <linux/errno.h>
#include <linux/types.h>

struct task_struct;

/**
 * struct ctx_task_hooks - what the hooks tell the keeper of the task sets
 * @fork: @child was forked from @parent (sched_process_fork)
 * @exit: @task is exiting (sched_process_exit)
 * @exec: @task, current, execs (perf_event_exec())
 * @perf_exit: perf detaches @task's per-task events (perf_event_exit_task())
 */
struct ctx_task_hooks {
	void (*fork)(struct task_struct *parent, struct task_struct *child);
	void (*exit)(struct task_struct *task);
	void (*exec)(struct task_struct *task);
	void (*perf_exit)(struct task_struct *task);
};

int ctx_hooks_register(const struct ctx_task_hooks *task_hooks);
void ctx_hooks_unregister(void);
int ctx_hooks_get(void);
void ctx_hooks_put(void);
u32 ctx_hooks_features(void);

void ctx_hook_nmi_enter(void);
void ctx_hook_nmi_exit(void);

#ifdef CONFIG_X86
int ctx_nmi_hooks_register(void);
void ctx_nmi_hooks_unregister(void);
#else
/* No traceable NMI entry/exit: NMI counts fold into the interrupted context. */
static inline int ctx_nmi_hooks_register(void)
{
	return -EOPNOTSUPP;
}

static inline void ctx_nmi_hooks_unregister(void)
{
}
#endif /* CONFIG_X86 */

#endif /* _CTXCOUNT_HOOKS_H */
