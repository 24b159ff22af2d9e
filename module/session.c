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
#include <linux/cpuhotplug.h>
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
#include "calib.h"
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

/* Does @s belong to @owner's socket (the port id alone when @sk is NULL). */
static bool ctx_session_owned(const struct ctx_session *s,
			      const struct ctx_owner *owner)
{
	return s->owner.net == owner->net &&
	       s->owner.portid == owner->portid &&
	       (!owner->sk || s->owner.sk == owner->sk);
}

static unsigned int ctx_owner_sessions(const struct ctx_owner *owner)
{
	struct ctx_session *s;
	unsigned int n = 0;

	lockdep_assert_held(&ctx_lock);
	list_for_each_entry(s, &ctx_sessions, node) {
		if (ctx_session_owned(s, owner))
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
 * Counters and CPU hotplug. Each session is an instance of a multi-instance
 * CPU hotplug state. Counters are created by the session's fill work, for
 * every online CPU that has none for its current online period: at
 * SESSION_NEW (which waits for it), and whenever a CPU comes online (the
 * startup callback queues it). The teardown callback, which runs before the
 * perf core's (that one detaches a CPU's counters for good), attributes
 * what is pending and takes the counters out of use; the next fill or the
 * session's end releases them. So a task that runs on a CPU that went
 * offline and came back is still counted.
 *
 * The callbacks neither create nor release counters: perf may flip a
 * static key there (software events), which takes the CPU hotplug lock
 * that a hotplug operation holds for write. The fill work holds no lock
 * while it calls into perf; a CPU going down meanwhile is caught by its
 * generation count (ctx_account_swap_events()). Works are never reentrant,
 * so one session's fills are serialized.
 *
 * The fill work is a kernel worker: counters are never created from the
 * requesting task, because the perf core checks the current task's
 * credentials even for kernel counters (find_get_context() calls
 * perf_allow_cpu() for CPU events in 6.12), which would apply
 * perf_event_paranoid to the requesting user instead of the module's own
 * policy, already applied.
 */
static enum cpuhp_state ctx_cpuhp_state;

static struct perf_event *ctx_session_create_one(struct ctx_session *s,
						 unsigned int i,
						 unsigned int cpu)
{
	struct perf_event *event;

	if (!s->privileged && !ctx_counter_type_unprivileged(s->spec[i].type))
		return ERR_PTR(-EACCES);
	event = ctx_counter_create(&s->spec[i], cpu);
	if (IS_ERR(event))
		return event;
	if (!s->privileged &&
	    !ctx_counter_unprivileged(event, s->spec[i].type)) {
		ctx_counter_release(event);
		return ERR_PTR(-EACCES);
	}
	return event;
}

static void ctx_session_release_array(struct perf_event **event,
				      unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		ctx_counter_release(event[i]);
}

/* Give @cpu counters for its current online period, if it has none. */
static void ctx_session_fill_cpu(struct ctx_session *s, unsigned int cpu,
				 bool creating)
{
	struct perf_event *old[2 * CTXCOUNT_MAX_EVENTS] = { };
	struct perf_event *event[CTXCOUNT_MAX_EVENTS] = { };
	unsigned int i, gen;
	bool lost = false;
	int err;

	if (ctx_account_cpu_filled(&s->acct, cpu, &gen))
		return;
	for (i = 0; i < s->nr_events; i++) {
		if (s->error[i])
			continue;
		event[i] = ctx_session_create_one(s, i, cpu);
		if (!IS_ERR(event[i]))
			continue;
		err = PTR_ERR(event[i]);
		event[i] = NULL;
		/* The CPU went down meanwhile: its next startup fills it. */
		if (err == -ENODEV)
			goto out_release;
		/*
		 * At SESSION_NEW the event fails as a whole: READ reports the
		 * error, and no CPU after this one tries it. Counters it got
		 * on CPUs before this one stay until the session ends: taking
		 * them out would race with those CPUs going down.
		 */
		if (creating)
			s->error[i] = err;
		else
			lost = true;
	}
	if (ctx_account_swap_events(&s->acct, cpu, event, old, gen))
		goto out_release;
	ctx_session_release_array(old, ARRAY_SIZE(old));
	if (lost) {
		atomic_inc(&s->cpus_lost);
		pr_warn_ratelimited("session %u: no counter on cpu%u, which came online: its counts are missing\n",
				    s->id, cpu);
	}
	return;

out_release:
	ctx_session_release_array(event, s->nr_events);
}

static void ctx_session_fill_work(struct work_struct *work)
{
	struct ctx_session *s = container_of(work, struct ctx_session,
					     fill_work);
	bool creating = READ_ONCE(s->creating);
	int cpu;

	/* Unlocked: a CPU that comes up later queues this again. */
	for_each_online_cpu(cpu)
		ctx_session_fill_cpu(s, cpu, creating);
}

static int ctx_session_cpu_online(unsigned int cpu, struct hlist_node *node)
{
	struct ctx_session *s = hlist_entry(node, struct ctx_session,
					    cpuhp_node);

	queue_work(system_unbound_wq, &s->fill_work);
	/* Never fail: a CPU must not stay offline because of a session. */
	return 0;
}

static int ctx_session_cpu_offline(unsigned int cpu, struct hlist_node *node)
{
	struct ctx_session *s = hlist_entry(node, struct ctx_session,
					    cpuhp_node);

	ctx_account_cpu_down(&s->acct, cpu);
	return 0;
}

/*
 * An event the PMU cannot give is reported in its error slot, it does not
 * fail the session.
 */
static int ctx_session_create_counters(struct ctx_session *s)
{
	int err;

	WRITE_ONCE(s->creating, true);
	err = cpuhp_state_add_instance_nocalls(ctx_cpuhp_state,
					       &s->cpuhp_node);
	if (!err) {
		queue_work(system_unbound_wq, &s->fill_work);
		flush_work(&s->fill_work);
	}
	WRITE_ONCE(s->creating, false);
	return err;
}

/**
 * ctx_session_hotplug_init() - set up the CPU hotplug state of sessions
 *
 * Context: module init, before any session exists.
 * Return: 0 or a negative errno.
 */
int ctx_session_hotplug_init(void)
{
	int ret;

	ret = cpuhp_setup_state_multi(CPUHP_AP_ONLINE_DYN, "ctxcount:online",
				      ctx_session_cpu_online,
				      ctx_session_cpu_offline);
	if (ret < 0)
		return ret;
	ctx_cpuhp_state = ret;
	return 0;
}

/**
 * ctx_session_hotplug_exit() - remove the CPU hotplug state
 *
 * Context: module exit, after every session was destroyed.
 */
void ctx_session_hotplug_exit(void)
{
	cpuhp_remove_multi_state(ctx_cpuhp_state);
}

static void ctx_session_free(struct ctx_session *s)
{
	/* No hotplug callback runs for @s once this returns... */
	if (s->cpuhp_node.pprev)
		cpuhp_state_remove_instance_nocalls(ctx_cpuhp_state,
						    &s->cpuhp_node);
	/* ...so no fill is queued again after this. */
	cancel_work_sync(&s->fill_work);
	ctx_account_destroy(&s->acct);
	ctx_taskset_destroy(&s->tasks);
	kfree(s);
}

/* Only an inheriting task session inserts from a hook: ctx_session_fork(). */
static unsigned int ctx_session_spare_tasks(u32 target_flags)
{
	if ((target_flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) ||
	    !(target_flags & CTXCOUNT_TARGET_F_INHERIT))
		return 0;
	return CTX_TASKSET_SPARE;
}

static struct ctx_session *ctx_session_alloc(const struct ctx_owner *owner,
					     const struct ctx_target *target,
					     const struct ctx_event_req *req,
					     unsigned int nr_events, u32 flags)
{
	struct ctx_session *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return NULL;
	if (ctx_taskset_init(&s->tasks, ctx_session_spare_tasks(target->flags)))
		goto err_taskset;
	if (ctx_account_init(&s->acct, nr_events, &s->tasks,
			     target->flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE,
			     !(flags & CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE)))
		goto err_taskset;
	s->owner = *owner;
	s->target_flags = target->flags;
	s->nr_events = nr_events;
	for (i = 0; i < nr_events; i++)
		s->spec[i] = req[i].spec;
	atomic64_set(&s->tasks_seen, 0);
	atomic64_set(&s->tasks_lost, 0);
	atomic_set(&s->cpus_lost, 0);
	INIT_HLIST_NODE(&s->cpuhp_node);
	INIT_WORK(&s->fill_work, ctx_session_fill_work);
	return s;

err_taskset:
	ctx_taskset_destroy(&s->tasks);
	kfree(s);
	return NULL;
}

static int ctx_session_add_task(struct ctx_session *s, struct task_struct *t)
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

/* All threads of @task's process. */
static int ctx_session_add_process(struct ctx_session *s,
				   struct task_struct *task)
{
	struct task_struct *t;
	int err;

	/*
	 * Threads created meanwhile come through the fork hook, or (not
	 * inheriting) may be met by the walk below.
	 */
	err = ctx_taskset_reserve(&s->tasks,
				  get_nr_threads(task) + CTX_TASKSET_WALK_SLACK);
	if (err)
		return err;
	rcu_read_lock();
	for_each_thread(task, t) {
		err = ctx_session_add_task(s, t);
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
	rep->cpus_lost = atomic_read(&s->cpus_lost);
}

/**
 * ctx_session_new() - create a session (counters allocated, not counting)
 * @owner: the socket that asks
 * @target: what to monitor
 * @req: the events
 * @nr_events: number of events, 1 to CTXCOUNT_MAX_EVENTS
 * @flags: enum ctxcount_session_flag bits
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
		    u32 flags, struct ctx_session_report *rep,
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
	s = ctx_session_alloc(owner, target, req, nr_events, flags);
	if (!s) {
		err = -ENOMEM;
		goto out_unlock;
	}
	s->privileged = privileged;
	err = ctx_session_create_counters(s);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot set up the session's CPU hotplug state");
		goto out_free;
	}
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
	if (!s || !ctx_session_owned(s, owner)) {
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
	if (ctx_account_started(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session already started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_calib_user_abort(&s->acct);
	ctx_calib_session(&s->acct, s->spec);
	ctx_account_start(&s->acct);
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
	if (!ctx_account_started(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session not started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_account_halt(&s->acct);
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
	ctx_account_read(&s->acct, &rep->tot);
	ctx_session_report(s, rep);
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/**
 * ctx_session_calibrate() - one step of a user-mode calibration
 * @owner: the socket that asks
 * @id: the session
 * @step: enum ctxcount_calibrate
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session), -EALREADY (started), or what
 * ctx_calib_user_begin() and ctx_calib_user_end() return.
 */
int ctx_session_calibrate(const struct ctx_owner *owner, u32 id, u32 step,
			  struct netlink_ext_ack *extack)
{
	struct ctx_session *s;
	int err;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (!s) {
		err = -ENOENT;
	} else if (ctx_account_started(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session already started");
		err = -EALREADY;
	} else if (step == CTXCOUNT_CALIBRATE_END) {
		err = ctx_calib_user_end(&s->acct, s->spec);
	} else {
		err = ctx_calib_user_begin(&s->acct, s->spec,
					   step == CTXCOUNT_CALIBRATE_STORM_BEGIN);
	}
	mutex_unlock(&ctx_lock);
	return err;
}

/* Takes @s off every list; the caller frees it after a grace period. */
static void ctx_session_unlink(struct ctx_session *s, struct list_head *dead)
{
	lockdep_assert_held(&ctx_lock);
	ctx_calib_user_abort(&s->acct);
	if (ctx_account_started(&s->acct))
		ctx_account_halt(&s->acct);
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
 * @owner: the socket's net and port id; @owner->sk is NULL (the release
 *	notifier does not name the socket), so every session of the port id
 *	goes
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
		if (ctx_session_owned(s, owner))
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
		if (ctx_taskset_has(&s->tasks, task))
			ctx_taskset_del(&s->tasks, task);
	}
	rcu_read_unlock();
}
