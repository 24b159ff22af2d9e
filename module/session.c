// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: creation with permission checks and limits, the monitored task
 * set, start/stop/read, and destruction (by request, when the owning socket
 * closes, at module unload).
 *
 * All sessions are on ctx_sessions (RCU, for the fork and exit hooks) and
 * in ctx_ids (for lookup by id); both change only under ctx_lock, which
 * every operation here holds. A session is freed only after an RCU grace
 * period following its removal from the lists the hooks walk.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/ctxcount.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched/coredump.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "account.h"
#include "counters.h"
#include "session.h"

static unsigned int max_sessions = 64;
module_param(max_sessions, uint, 0644);
MODULE_PARM_DESC(max_sessions, "Live sessions, all sockets together (default 64)");

static unsigned int max_sessions_per_socket = 8;
module_param(max_sessions_per_socket, uint, 0644);
MODULE_PARM_DESC(max_sessions_per_socket, "Live sessions per netlink socket (default 8)");

static int paranoid = 2;
module_param(paranoid, int, 0644);
MODULE_PARM_DESC(paranoid,
		 "Unprivileged use, as kernel.perf_event_paranoid: >= 3 none, 2 user-space-only events, <= 1 all events (default 2)");

static DEFINE_MUTEX(ctx_lock);
static LIST_HEAD(ctx_sessions);
static DEFINE_XARRAY_ALLOC1(ctx_ids);
static u32 ctx_next_id;
static unsigned int ctx_nr_sessions;

/*
 * The core of ptrace's PTRACE_MODE_READ_REALCREDS check: the caller's real
 * ids are all of the target's ids. ptrace_may_access() is not exported.
 */
static bool ctx_same_ids(const struct cred *cred, const struct cred *tcred)
{
	return uid_eq(cred->uid, tcred->euid) &&
	       uid_eq(cred->uid, tcred->suid) &&
	       uid_eq(cred->uid, tcred->uid) &&
	       gid_eq(cred->gid, tcred->egid) &&
	       gid_eq(cred->gid, tcred->sgid) &&
	       gid_eq(cred->gid, tcred->gid);
}

/* A task without an mm (kernel thread) is never a user's own. */
static bool ctx_task_dumpable(struct task_struct *task)
{
	bool dumpable;

	task_lock(task);
	dumpable = task->mm && get_dumpable(task->mm) == SUID_DUMP_USER;
	task_unlock(task);
	return dumpable;
}

static int ctx_check_task_access(struct task_struct *task,
				 struct netlink_ext_ack *extack)
{
	bool same;

	rcu_read_lock();
	same = ctx_same_ids(current_cred(), __task_cred(task));
	rcu_read_unlock();
	if (!same || !ctx_task_dumpable(task)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "target process is not the caller's own (or is not dumpable); needs CAP_PERFMON");
		return -EACCES;
	}
	return 0;
}

static int ctx_check_events_access(const struct ctx_event_req *req,
				   unsigned int nr_events, int level,
				   struct netlink_ext_ack *extack)
{
	unsigned int i;

	if (level < 2)
		return 0;
	for (i = 0; i < nr_events; i++) {
		if (!(req[i].spec.flags & CTXCOUNT_EVENT_F_EXCLUDE_KERNEL)) {
			NL_SET_ERR_MSG_ATTR(extack, req[i].attr,
					    "counting kernel context needs CAP_PERFMON (module parameter paranoid >= 2): exclude kernel");
			return -EACCES;
		}
	}
	return 0;
}

/*
 * The perf core's own checks do not apply to kernel counters: this is the
 * module's policy for callers without CAP_PERFMON, modelled on
 * perf_event_paranoid (see DESIGN.md).
 */
static int ctx_check_access(const struct ctx_target *target,
			    struct task_struct *task,
			    const struct ctx_event_req *req,
			    unsigned int nr_events,
			    struct netlink_ext_ack *extack)
{
	int level = READ_ONCE(paranoid);
	int err;

	if (target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) {
		NL_SET_ERR_MSG_MOD(extack,
				   "system-wide sessions need CAP_PERFMON or CAP_SYS_ADMIN");
		return -EACCES;
	}
	if (level >= 3) {
		NL_SET_ERR_MSG_MOD(extack,
				   "unprivileged use is disabled (module parameter paranoid >= 3)");
		return -EACCES;
	}
	err = ctx_check_events_access(req, nr_events, level, extack);
	if (err)
		return err;
	return ctx_check_task_access(task, extack);
}

static struct task_struct *ctx_find_task(pid_t nr)
{
	struct task_struct *task;
	struct pid *pid;

	pid = find_get_pid(nr);
	if (!pid)
		return NULL;
	task = get_pid_task(pid, PIDTYPE_PID);
	put_pid(pid);
	return task;
}

static unsigned int ctx_owner_sessions(const struct ctx_owner *owner)
{
	struct ctx_session *s;
	unsigned int n = 0;

	lockdep_assert_held(&ctx_lock);
	list_for_each_entry(s, &ctx_sessions, node) {
		if (s->owner.net == owner->net &&
		    s->owner.portid == owner->portid)
			n++;
	}
	return n;
}

static int ctx_check_limits(const struct ctx_owner *owner,
			    struct netlink_ext_ack *extack)
{
	if (ctx_nr_sessions >= READ_ONCE(max_sessions)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many sessions (module parameter max_sessions)");
		return -ENOSPC;
	}
	if (ctx_owner_sessions(owner) >= READ_ONCE(max_sessions_per_socket)) {
		NL_SET_ERR_MSG_MOD(extack,
				   "too many sessions on this socket (module parameter max_sessions_per_socket)");
		return -ENOSPC;
	}
	return 0;
}

/*
 * Creates event @i on every online CPU, or on none. A CPU that goes
 * offline meanwhile (-ENODEV) is left without a counter, like one that
 * comes online later.
 */
static int ctx_session_create_event(struct ctx_session *s, unsigned int i)
{
	struct perf_event *event;
	int cpu, err;

	for_each_online_cpu(cpu) {
		event = ctx_counter_create(&s->spec[i], cpu);
		if (event == ERR_PTR(-ENODEV) && !cpu_online(cpu))
			continue;
		if (IS_ERR(event)) {
			err = PTR_ERR(event);
			goto err_release;
		}
		per_cpu_ptr(s->cpu, cpu)->event[i] = event;
		if (!s->privileged && !ctx_counter_per_task(event)) {
			err = -EACCES;
			goto err_release;
		}
	}
	return 0;

err_release:
	for_each_possible_cpu(cpu) {
		ctx_counter_release(per_cpu_ptr(s->cpu, cpu)->event[i]);
		per_cpu_ptr(s->cpu, cpu)->event[i] = NULL;
	}
	return err;
}

struct ctx_create_work {
	struct work_struct work;
	struct ctx_session *s;
};

/*
 * An event the PMU cannot give is reported in its error slot, it does not
 * fail the session. CPUs that come online later have no counters: time a
 * monitored task runs there shows as enabled but not running.
 *
 * Not under cpus_read_lock(): creating a software event can take it again
 * (perf_swevent_init() -> static_key_slow_inc()), and a second read of
 * the percpu rwsem blocks behind a waiting hotplug writer: a deadlock,
 * which lockdep reports as recursive locking. perf serializes the event
 * against hotplug itself and refuses an offline CPU with -ENODEV.
 */
static void ctx_session_create_counters_work(struct work_struct *work)
{
	struct ctx_create_work *cw = container_of(work, struct ctx_create_work,
						  work);
	struct ctx_session *s = cw->s;
	unsigned int i;

	for (i = 0; i < s->nr_events; i++)
		s->error[i] = ctx_session_create_event(s, i);
}

/*
 * The perf core checks the current task's credentials even for kernel
 * counters (find_get_context() calls perf_allow_cpu() for CPU events in
 * 6.12), which would apply perf_event_paranoid to the requesting user
 * instead of the module's own policy, already applied. Create them from a
 * kernel worker, like any other kernel counter.
 */
static void ctx_session_create_counters(struct ctx_session *s)
{
	struct ctx_create_work cw = { .s = s };

	INIT_WORK_ONSTACK(&cw.work, ctx_session_create_counters_work);
	queue_work(system_unbound_wq, &cw.work);
	flush_work(&cw.work);
	destroy_work_on_stack(&cw.work);
}

static void ctx_session_free(struct ctx_session *s)
{
	unsigned int i;
	int cpu;

	for_each_possible_cpu(cpu) {
		for (i = 0; i < s->nr_events; i++)
			ctx_counter_release(per_cpu_ptr(s->cpu, cpu)->event[i]);
	}
	free_percpu(s->cpu);
	xa_destroy(&s->tasks);
	kfree(s);
}

static struct ctx_session *ctx_session_alloc(const struct ctx_owner *owner,
					     const struct ctx_target *target,
					     const struct ctx_event_req *req,
					     unsigned int nr_events)
{
	struct ctx_session *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	s->cpu = alloc_percpu(struct ctx_session_cpu);
	if (!s->cpu) {
		kfree(s);
		return NULL;
	}
	s->owner = *owner;
	s->target_flags = target->flags;
	s->nr_events = nr_events;
	for (i = 0; i < nr_events; i++)
		s->spec[i] = req[i].spec;
	xa_init(&s->tasks);
	atomic64_set(&s->tasks_seen, 0);
	atomic64_set(&s->tasks_lost, 0);
	return s;
}

static int ctx_session_add_task(struct ctx_session *s, struct task_struct *t,
				gfp_t gfp)
{
	void *old;

	old = xa_store(&s->tasks, t->pid, t, gfp);
	if (xa_is_err(old)) {
		atomic64_inc(&s->tasks_lost);
		return xa_err(old);
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
		xa_cmpxchg(&s->tasks, t->pid, t, NULL, gfp);
	return 0;
}

/* All threads of @task's process. */
static int ctx_session_add_process(struct ctx_session *s,
				   struct task_struct *task)
{
	struct task_struct *t;
	int err = 0;

	rcu_read_lock();
	for_each_thread(task, t) {
		err = ctx_session_add_task(s, t, GFP_ATOMIC);
		if (err)
			break;
	}
	rcu_read_unlock();
	return err;
}

/* System-wide sessions have no set; count the tasks for tasks_seen. */
static void ctx_session_count_all(struct ctx_session *s)
{
	struct task_struct *p, *t;
	u64 n = 0;

	rcu_read_lock();
	for_each_process_thread(p, t)
		n++;
	rcu_read_unlock();
	atomic64_add(n, &s->tasks_seen);
}

/* Publishes @s; from here on the fork and exit hooks maintain its set. */
static int ctx_session_link(struct ctx_session *s, struct task_struct *task,
			    struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&ctx_lock);
	err = xa_alloc_cyclic(&ctx_ids, &s->id, s, xa_limit_31b, &ctx_next_id,
			      GFP_KERNEL);
	if (err < 0) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate a session id");
		return err;
	}
	list_add_rcu(&s->node, &ctx_sessions);
	WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions + 1);

	if (!task) {
		ctx_session_count_all(s);
		return 0;
	}
	err = ctx_session_add_process(s, task);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot record the target's threads");
		list_del_rcu(&s->node);
		xa_erase(&ctx_ids, s->id);
		WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions - 1);
		synchronize_rcu();
	}
	return err;
}

static void ctx_session_report(struct ctx_session *s,
			       struct ctx_session_report *rep)
{
	rep->id = s->id;
	rep->nr_events = s->nr_events;
	memcpy(rep->error, s->error, sizeof(rep->error));
	rep->tasks_seen = atomic64_read(&s->tasks_seen);
	rep->tasks_lost = atomic64_read(&s->tasks_lost);
}

/**
 * ctx_session_new() - create a session (counters allocated, not counting)
 * @owner: the socket that asks
 * @target: what to monitor
 * @req: the events
 * @nr_events: number of events, 1 to CTXCOUNT_MAX_EVENTS
 * @rep: filled with the new session's id and per-event errors
 * @extack: for error messages
 *
 * Context: process context of the requesting task, may sleep.
 * Return: 0, -ESRCH (no such process), -EACCES (permissions), -ENOSPC
 * (limits), -ENOMEM.
 */
int ctx_session_new(const struct ctx_owner *owner,
		    const struct ctx_target *target,
		    const struct ctx_event_req *req, unsigned int nr_events,
		    struct ctx_session_report *rep,
		    struct netlink_ext_ack *extack)
{
	bool privileged = perfmon_capable();
	struct task_struct *task = NULL;
	struct ctx_session *s;
	int err = 0;

	if (!(target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE)) {
		task = ctx_find_task(target->pid);
		if (!task) {
			NL_SET_ERR_MSG_MOD(extack, "no such process");
			return -ESRCH;
		}
	}
	if (!privileged)
		err = ctx_check_access(target, task, req, nr_events, extack);
	if (err)
		goto out_put_task;

	mutex_lock(&ctx_lock);
	err = ctx_check_limits(owner, extack);
	if (err)
		goto out_unlock;
	s = ctx_session_alloc(owner, target, req, nr_events);
	if (!s) {
		err = -ENOMEM;
		goto out_unlock;
	}
	s->privileged = privileged;
	ctx_session_create_counters(s);
	err = ctx_session_link(s, task, extack);
	if (err)
		goto out_free;
	ctx_session_report(s, rep);
	mutex_unlock(&ctx_lock);
	goto out_put_task;

out_free:
	ctx_session_free(s);
out_unlock:
	mutex_unlock(&ctx_lock);
out_put_task:
	if (task)
		put_task_struct(task);
	return err;
}

static struct ctx_session *ctx_session_find(const struct ctx_owner *owner,
					    u32 id,
					    struct netlink_ext_ack *extack)
{
	struct ctx_session *s;

	lockdep_assert_held(&ctx_lock);
	s = xa_load(&ctx_ids, id);
	/* Another socket's session does not exist for this one. */
	if (!s || s->owner.net != owner->net ||
	    s->owner.portid != owner->portid) {
		NL_SET_ERR_MSG_MOD(extack, "no such session on this socket");
		return NULL;
	}
	return s;
}

/**
 * ctx_session_start() - begin counting
 * @owner: the socket that asks
 * @id: the session
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session), -EALREADY (already counting).
 */
int ctx_session_start(const struct ctx_owner *owner, u32 id,
		      struct netlink_ext_ack *extack)
{
	struct ctx_session *s;
	int err = 0;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (!s) {
		err = -ENOENT;
		goto out_unlock;
	}
	if (s->started) {
		NL_SET_ERR_MSG_MOD(extack, "session already started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_account_start(s);
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/**
 * ctx_session_stop() - end counting; the totals stay readable
 * @owner: the socket that asks
 * @id: the session
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session), -EALREADY (not counting).
 */
int ctx_session_stop(const struct ctx_owner *owner, u32 id,
		     struct netlink_ext_ack *extack)
{
	struct ctx_session *s;
	int err = 0;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (!s) {
		err = -ENOENT;
		goto out_unlock;
	}
	if (!s->started) {
		NL_SET_ERR_MSG_MOD(extack, "session not started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_account_halt(s);
	/* A later START puts @s back on the list hooks may still walk. */
	synchronize_rcu();
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/**
 * ctx_session_read() - current totals of a session
 * @owner: the socket that asks
 * @id: the session
 * @rep: filled with the session's state and totals
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOENT (no such session).
 */
int ctx_session_read(const struct ctx_owner *owner, u32 id,
		     struct ctx_session_report *rep,
		     struct netlink_ext_ack *extack)
{
	struct ctx_session *s;
	int err = 0;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (!s) {
		err = -ENOENT;
		goto out_unlock;
	}
	memset(&rep->tot, 0, sizeof(rep->tot));
	ctx_account_read(s, &rep->tot);
	ctx_session_report(s, rep);
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/* Takes @s off every list; the caller frees it after a grace period. */
static void ctx_session_unlink(struct ctx_session *s, struct list_head *dead)
{
	lockdep_assert_held(&ctx_lock);
	if (s->started)
		ctx_account_halt(s);
	list_del_rcu(&s->node);
	xa_erase(&ctx_ids, s->id);
	WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions - 1);
	list_add(&s->free_node, dead);
}

static void ctx_session_free_list(struct list_head *dead)
{
	struct ctx_session *s, *tmp;

	if (list_empty(dead))
		return;
	/* No hook may still be looking at them. */
	synchronize_rcu();
	list_for_each_entry_safe(s, tmp, dead, free_node)
		ctx_session_free(s);
}

/**
 * ctx_session_del() - destroy a session
 * @owner: the socket that asks
 * @id: the session
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOENT (no such session).
 */
int ctx_session_del(const struct ctx_owner *owner, u32 id,
		    struct netlink_ext_ack *extack)
{
	struct ctx_session *s;
	LIST_HEAD(dead);
	int err = 0;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (s)
		ctx_session_unlink(s, &dead);
	else
		err = -ENOENT;
	mutex_unlock(&ctx_lock);
	ctx_session_free_list(&dead);
	return err;
}

/**
 * ctx_session_release_owner() - destroy every session of a closed socket
 * @owner: the socket
 *
 * Context: process context (NETLINK_URELEASE notifier), may sleep.
 */
void ctx_session_release_owner(const struct ctx_owner *owner)
{
	struct ctx_session *s, *tmp;
	LIST_HEAD(dead);

	/*
	 * Every generic netlink socket's release comes here: do not take the
	 * lock when there is nothing to find. The owner's own sessions were
	 * created before its release, so they cannot be missed.
	 */
	if (!READ_ONCE(ctx_nr_sessions))
		return;
	mutex_lock(&ctx_lock);
	list_for_each_entry_safe(s, tmp, &ctx_sessions, node) {
		if (s->owner.net == owner->net &&
		    s->owner.portid == owner->portid)
			ctx_session_unlink(s, &dead);
	}
	mutex_unlock(&ctx_lock);
	ctx_session_free_list(&dead);
}

/**
 * ctx_session_destroy_all() - destroy every session
 *
 * Context: module exit, after the netlink family is gone.
 */
void ctx_session_destroy_all(void)
{
	struct ctx_session *s, *tmp;
	LIST_HEAD(dead);

	mutex_lock(&ctx_lock);
	list_for_each_entry_safe(s, tmp, &ctx_sessions, node)
		ctx_session_unlink(s, &dead);
	mutex_unlock(&ctx_lock);
	ctx_session_free_list(&dead);
}

/**
 * ctx_session_count() - number of live sessions
 *
 * Return: the number of sessions of all sockets.
 */
unsigned int ctx_session_count(void)
{
	unsigned int n;

	mutex_lock(&ctx_lock);
	n = ctx_nr_sessions;
	mutex_unlock(&ctx_lock);
	return n;
}

/**
 * ctx_session_fork() - a task was created
 * @parent: the task that called clone()
 * @child: the new task (process or thread), not yet running
 *
 * With INHERIT, a child of a monitored task is monitored. The insertion
 * may not sleep: a failure is counted in tasks_lost, never silent.
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
		if (xa_load(&s->tasks, parent->pid) == parent)
			ctx_session_add_task(s, child, GFP_ATOMIC);
	}
	rcu_read_unlock();
}

/**
 * ctx_session_exit() - a task is exiting
 * @task: the task
 *
 * Removes @task from every set so that its pid can be reused. The interval
 * it is running in is still closed at its last switch-out.
 *
 * Context: sched_process_exit tracepoint.
 */
void ctx_session_exit(struct task_struct *task)
{
	struct ctx_session *s;

	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node) {
		if (xa_load(&s->tasks, task->pid) == task)
			xa_cmpxchg(&s->tasks, task->pid, task, NULL, GFP_ATOMIC);
	}
	rcu_read_unlock();
}
