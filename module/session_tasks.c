// SPDX-License-Identifier: GPL-2.0
/*
 * What fork, exit and exec do to the sessions' monitored task sets: the
 * hooks walk the registry's list under RCU and never take ctx_lock.
 */
#include <linux/ctxcount.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>

#include "account.h"
#include "account_ctl.h"
#include "session_int.h"
#include "taskset.h"

int ctx_session_add_task(struct ctx_session *s, struct task_struct *t)
{
	int err;

	err = ctx_taskset_add(&s->tasks, t);
	if (err) {
		atomic64_inc(&s->tasks_lost);
		return err;
	}
	atomic64_inc(&s->tasks_seen);
	/*
	 * A task that is already past its exit hook would stay in the set.
	 * Pairs with the full barrier of atomic_dec_and_test(&signal->live)
	 * in do_exit() between setting PF_EXITING and the exit hook: either
	 * we see PF_EXITING or the exit hook sees the entry.
	 */
	smp_mb();
	if (READ_ONCE(t->flags) & PF_EXITING)
		ctx_taskset_del(&s->tasks, t);
	return 0;
}

/**
 * ctx_session_fork() - a task was created
 * @parent: the task that called clone()
 * @child: the new task (process or thread), not yet running
 *
 * With INHERIT, a child of a monitored task is monitored. The insertion
 * takes a spare node and cannot allocate: when none is left (a burst of
 * forks faster than the refill work) it is counted in tasks_lost, never
 * silent.
 *
 * Context: sched_process_fork tracepoint.
 */
void ctx_session_fork(struct task_struct *parent, struct task_struct *child)
{
	struct ctx_session *s;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node) {
		if (s->target_flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) {
			atomic64_inc(&s->tasks_seen);
			continue;
		}
		if (!(s->target_flags & CTXCOUNT_TARGET_F_INHERIT))
			continue;
		if (ctx_taskset_has(&s->tasks, parent))
			ctx_session_add_task(s, child);
	}
	rcu_read_unlock();
}

/* @task leaves every session's set (it cannot be monitored any more). */
static void ctx_sessions_drop_task(struct task_struct *task)
{
	struct ctx_session *s;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node) {
		if (ctx_taskset_has(&s->tasks, task))
			ctx_taskset_del(&s->tasks, task);
	}
	rcu_read_unlock();
}

/**
 * ctx_session_exit() - a task is exiting
 * @task: the task
 *
 * Removes @task from every set so that its pid can be reused. Its counting
 * ends where perf's does, in perf_event_exit_task() (the perf hook closes
 * its intervals there): before 6.16 this tracepoint came after that and
 * finds @task gone; since 6.16 it comes just before (compat.h).
 *
 * Context: sched_process_exit tracepoint.
 */
void ctx_session_exit(struct task_struct *task)
{
	ctx_sessions_drop_task(task);
}

/**
 * ctx_session_exec() - @task execs: perf enables enable_on_exec events here
 * @task: the exec'ing task (current), in perf_event_exec()
 *
 * A session started with CTXCOUNT_TARGET_F_ENABLE_ON_EXEC that monitors
 * @task starts counting, as perf's enable_on_exec events do.
 *
 * Context: begin_new_exec(), exec_update_lock held for writing; the
 * caller holds no lock and runs in an ftrace callback (no sleeping).
 */
void ctx_session_exec(struct task_struct *task)
{
	struct ctx_session *s;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node) {
		if (ctx_account_armed(&s->acct) &&
		    ctx_taskset_has(&s->tasks, task))
			ctx_account_exec_start(&s->acct);
	}
	rcu_read_unlock();
}

/**
 * ctx_session_perf_exit() - perf detaches @task's per-task events
 * @task: the task (current), in perf_event_exit_task()
 *
 * perf stops counting @task there: at its exit (before the exit tears
 * down its memory) and at an exec of an image that is not SUID_DUMP_USER
 * (setuid or setgid, file capabilities, an unreadable binary), whoever
 * opened the events. So @task leaves every per-task session's set and its
 * open interval is closed: nothing of it is counted from here on, nor of
 * its children forked later. System-wide sessions, like perf's CPU
 * events, go on.
 *
 * Context: the task itself; ftrace callback (no sleeping). At exec, its
 * exec_update_lock is held for writing.
 */
void ctx_session_perf_exit(struct task_struct *task)
{
	ctx_sessions_drop_task(task);
}
