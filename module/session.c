// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: creation (limits, proofs, counters, the monitored task set),
 * start/stop/read, and destruction (by request, when the owning socket
 * closes, at module unload); and what fork, exit and exec do to the task
 * sets.
 *
 * All sessions are on ctx_sessions (RCU, for the fork, exit and exec
 * hooks) and in ctx_ids (for lookup by id); both change only under
 * ctx_lock. A session is freed only after an RCU grace period following
 * its removal from the lists the hooks walk. SESSION_NEW holds ctx_lock
 * only to charge and to publish: the proofs, the counters and the wait
 * for the target's exec_update_lock happen outside it, so one request
 * does not hold up the others.
 */
#include <linux/cpu.h>
#include <linux/ctxcount.h>
#include <linux/file.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/percpu.h>
#include <linux/pid.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/sock.h>

#include "account.h"
#include "cpuhp.h"
#include "hooks.h"
#include "irqsrc.h"
#include "limits.h"
#include "perm.h"
#include "perfvals.h"
#include "session.h"

static DEFINE_MUTEX(ctx_lock);
static LIST_HEAD(ctx_sessions);
/**
 * struct ctx_pending - a session SESSION_NEW is creating (on its stack)
 * @sk: the socket it is for: it counts for that socket's limit
 * @node: in ctx_pending until the session is published or given up
 */
struct ctx_pending {
	const struct sock *sk;
	struct list_head node;
};

static LIST_HEAD(ctx_pending);
static DEFINE_XARRAY_ALLOC1(ctx_ids);
static u32 ctx_next_id;
static unsigned int ctx_nr_sessions;

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

/* Does @s belong to @owner's socket. */
static bool ctx_session_owned(const struct ctx_session *s,
			      const struct ctx_owner *owner)
{
	return s->owner.sk == owner->sk;
}

static unsigned int ctx_owner_sessions(const struct ctx_owner *owner)
{
	struct ctx_pending *p;
	struct ctx_session *s;
	unsigned int n = 0;

	lockdep_assert_held(&ctx_lock);
	list_for_each_entry(s, &ctx_sessions, node) {
		if (ctx_session_owned(s, owner))
			n++;
	}
	list_for_each_entry(p, &ctx_pending, node) {
		if (p->sk == owner->sk)
			n++;
	}
	return n;
}

/*
 * Release @s's events: the hooks no longer read them (an RCU grace period
 * after its halt). A resolution walk may still hold one of their children
 * until another grace period has passed: ctx_session_free() comes after
 * it, as the children's tags point into @s.
 */
static void ctx_session_release(struct ctx_session *s)
{
	ctx_cpuhp_remove(s);
	ctx_pv_release(&s->pv);
}

static void ctx_session_free(struct ctx_session *s)
{
	bool sources = s->acct.src;

	ctx_account_destroy(&s->acct);
	ctx_pv_destroy(&s->pv);
	/* Its hooks go with the last session that has sources. */
	if (sources)
		ctx_irqsrc_put();
	ctx_taskset_destroy(&s->tasks);
	if (s->charge.counters)
		ctx_limits_uncharge(&s->charge);
	sock_put(s->owner.sk);
	kfree(s);
	ctx_hooks_put();
}

/* Only an inheriting task session inserts from a hook: ctx_session_fork(). */
static unsigned int ctx_session_spare_tasks(u32 target_flags)
{
	if ((target_flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE) ||
	    !(target_flags & CTXCOUNT_TARGET_F_INHERIT))
		return 0;
	return CTX_TASKSET_SPARE;
}

/*
 * Charged to the sender's memory cgroup, as perf's own allocations are not.
 * @threads: a task session's target's threads.
 */
static struct ctx_session *ctx_session_alloc(const struct ctx_new_req *nreq,
					     unsigned int threads)
{
	bool system_wide = nreq->target.flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE;
	struct ctx_session *s;
	unsigned int i;

	s = kzalloc(sizeof(*s), GFP_KERNEL_ACCOUNT);
	if (!s)
		return NULL;
	for (i = 0; i < nreq->nr_events; i++)
		s->spec[i] = nreq->req[i].spec;
	if (ctx_taskset_init(&s->tasks,
			     ctx_session_spare_tasks(nreq->target.flags)))
		goto err_taskset;
	if (ctx_pv_init(&s->pv, nreq->nr_events, system_wide,
			threads + CTX_TASKSET_WALK_SLACK))
		goto err_pv;
	if (ctx_account_init(&s->acct, nreq->nr_events, s->spec, system_wide,
			     nreq->target.cpus,
			     !(nreq->flags & CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE),
			     nreq->max_sources))
		goto err_pv;
	if (nreq->max_sources && ctx_irqsrc_get())
		goto err_acct;
	s->owner = nreq->owner;
	sock_hold(s->owner.sk);
	s->target_flags = nreq->target.flags;
	s->nr_events = nreq->nr_events;
	atomic64_set(&s->tasks_seen, 0);
	atomic64_set(&s->tasks_lost, 0);
	atomic_set(&s->cpus_lost, 0);
	ctx_cpuhp_session_init(s);
	return s;

err_acct:
	ctx_account_destroy(&s->acct);
err_pv:
	ctx_pv_destroy(&s->pv);
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

/*
 * The threads of @task's process that its proofs cover. Its
 * exec_update_lock is held: no exec replaces them or their credentials
 * meanwhile.
 */
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
		if (!ctx_perm_same_access(task, t))
			continue;
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

/* Publishes @s; from here on the fork, exit and exec hooks maintain its set. */
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
	rep->tasks_now = ctx_taskset_size(&s->tasks);
	rep->cpus_lost = atomic_read(&s->cpus_lost);
}

/* How a task session's events count: as perf stat's would. */
static unsigned int ctx_session_counter_flags(u32 target_flags)
{
	return (target_flags & CTXCOUNT_TARGET_F_INHERIT ?
		CTX_COUNTER_INHERIT : 0) |
	       (target_flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC ?
		CTX_COUNTER_ENABLE_ON_EXEC : 0);
}

/*
 * A task event per event on each thread of @task's process that its
 * proofs cover (perf stat -p opens one per thread); perf gives threads
 * and children created later their own with INHERIT. @task's
 * exec_update_lock is held: no exec replaces the threads or their
 * credentials meanwhile.
 */
static int ctx_session_task_events(struct ctx_session *s,
				   struct task_struct *task)
{
	unsigned int n = 0, i, max = s->pv.max_threads;
	struct task_struct **threads, *t;
	int err = 0;

	threads = kcalloc(max, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	rcu_read_lock();
	for_each_thread(task, t) {
		if (n == max)
			break;
		if (!ctx_perm_same_access(task, t))
			continue;
		get_task_struct(t);
		threads[n++] = t;
	}
	rcu_read_unlock();
	for (i = 0; i < n; i++) {
		if (!err)
			err = ctx_pv_add_thread(&s->pv, threads[i], s->spec,
						ctx_session_counter_flags(s->target_flags),
						s->acct.tag, s->error);
		put_task_struct(threads[i]);
	}
	kfree(threads);
	return err;
}

/*
 * Create the counters, then check that the perf core made of each request
 * what it made of its proof (perm.c).
 */
static int ctx_session_create_counters(struct ctx_session *s,
				       const struct ctx_new_req *nreq,
				       struct task_struct *task,
				       struct file **proof,
				       struct netlink_ext_ack *extack)
{
	unsigned int i;
	int err;

	if (task) {
		err = ctx_session_task_events(s, task);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "cannot create the target's events");
			return err;
		}
	} else {
		err = ctx_cpuhp_add(s);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "cannot set up the session's CPU hotplug state");
			return err;
		}
	}
	cpus_read_lock();
	for (i = 0; i < s->nr_events && !err; i++)
		err = ctx_perm_check_counter(proof[i],
					     ctx_pv_first_event(&s->pv, i),
					     &nreq->req[i], extack);
	cpus_read_unlock();
	return err;
}

/*
 * With @task's exec held off (NULL: system-wide): prove, create, publish.
 * @pend leaves ctx_pending when @s is published.
 */
static int ctx_session_prove_and_link(struct ctx_session *s,
				      const struct ctx_new_req *nreq,
				      struct task_struct *task,
				      struct ctx_pending *pend,
				      struct netlink_ext_ack *extack)
{
	struct file *proof[CTXCOUNT_MAX_EVENTS] = { };
	int err;

	err = ctx_perm_get_proofs(&nreq->target, task, nreq->req,
				  nreq->nr_events, proof, extack);
	if (err)
		return err;
	err = ctx_session_create_counters(s, nreq, task, proof, extack);
	ctx_perm_put_proofs(proof, nreq->nr_events);
	if (err)
		return err;
	mutex_lock(&ctx_lock);
	err = ctx_session_link(s, task, extack);
	if (!err)
		list_del_init(&pend->node);
	mutex_unlock(&ctx_lock);
	return err;
}

/*
 * Charge the sender and count the new session for its socket, before
 * anything is allocated: a refused request costs nothing.
 */
static int ctx_session_charge(const struct ctx_new_req *nreq,
			      unsigned int counters,
			      struct ctx_charge *charge,
			      struct ctx_pending *pend,
			      struct netlink_ext_ack *extack)
{
	int err;

	mutex_lock(&ctx_lock);
	err = ctx_limits_charge(charge, counters, nreq->privileged,
				ctx_owner_sessions(&nreq->owner), extack);
	if (!err)
		list_add(&pend->node, &ctx_pending);
	mutex_unlock(&ctx_lock);
	return err;
}

static void ctx_session_unpend(struct ctx_pending *pend)
{
	mutex_lock(&ctx_lock);
	list_del_init(&pend->node);
	mutex_unlock(&ctx_lock);
}

/* With @task's exec held off: the rest of SESSION_NEW. */
static int ctx_session_new_locked(struct ctx_session *s,
				  const struct ctx_new_req *nreq,
				  struct task_struct *task,
				  struct ctx_pending *pend,
				  struct netlink_ext_ack *extack)
{
	int err;

	if (task) {
		err = ctx_perm_lock_target(task);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack, "interrupted while the target was exec'ing");
			return err;
		}
	}
	err = ctx_session_prove_and_link(s, nreq, task, pend, extack);
	if (task)
		ctx_perm_unlock_target(task);
	return err;
}

/**
 * ctx_session_new() - create a session (counters allocated, not counting)
 * @nreq: the request
 * @rep: filled with the new session's id and per-event errors
 * @extack: for error messages
 *
 * Context: process context of the sender (its file table and
 * credentials), may sleep.
 * Return: 0, -ESRCH (no such process), -EACCES / -EBADF (a proof is
 * missing or does not match), -ENOSPC (limits), -EINTR (killed while
 * the target was exec'ing), -ENOMEM, or ftrace's error attaching the
 * hooks.
 */
int ctx_session_new(const struct ctx_new_req *nreq,
		    struct ctx_session_report *rep,
		    struct netlink_ext_ack *extack)
{
	struct ctx_pending pend = { .sk = nreq->owner.sk };
	struct task_struct *task = NULL;
	struct ctx_charge charge = { };
	unsigned int threads = 0, counted;
	struct ctx_session *s;
	int err;

	if (!(nreq->target.flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE)) {
		task = ctx_find_task(nreq->target.pid);
		if (!task) {
			NL_SET_ERR_MSG_MOD(extack, "no such process");
			return -ESRCH;
		}
		threads = get_nr_threads(task);
		counted = threads;
	} else {
		counted = nreq->target.cpus ? cpumask_weight(nreq->target.cpus) :
			  num_possible_cpus();
	}
	err = ctx_session_charge(nreq, nreq->nr_events * counted, &charge,
				 &pend, extack);
	if (err)
		goto out_put_task;
	/* The first session attaches them: ctx_session_free() lets go. */
	err = ctx_hooks_get();
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot attach the hooks (see the kernel log)");
		goto out_uncharge;
	}
	s = ctx_session_alloc(nreq, threads);
	if (!s) {
		ctx_hooks_put();
		err = -ENOMEM;
		goto out_uncharge;
	}
	/* From here on freeing @s uncharges. */
	s->charge = charge;
	err = ctx_session_new_locked(s, nreq, task, &pend, extack);
	if (err) {
		ctx_session_unpend(&pend);
		/* Its events may be in perf contexts the hooks walk. */
		ctx_session_release(s);
		synchronize_rcu();
		ctx_session_free(s);
		goto out_put_task;
	}
	ctx_session_report(s, rep);
	goto out_put_task;

out_uncharge:
	ctx_session_unpend(&pend);
	ctx_limits_uncharge(&charge);
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
	if (ctx_account_running(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session already started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_pv_start(&s->pv);
	if (s->target_flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC)
		ctx_account_arm(&s->acct);
	else
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
	if (!ctx_account_running(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session not started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_account_halt(&s->acct);
	ctx_pv_stop(&s->pv);
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/*
 * The task buckets, from perf's counts: per CPU, and the totals as the
 * CPUs' sum where there are rows, so that they add up exactly.
 */
static void ctx_session_finish(struct ctx_session_report *rep)
{
	struct ctx_totals *t = &rep->tot;
	unsigned int n, i;

	if (!rep->cpu) {
		ctx_totals_finish(t, rep->nr_events);
		return;
	}
	for (i = 0; i < rep->nr_events; i++) {
		t->buckets[i][CTXCOUNT_BUCKET_TASK] = 0;
		t->buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST] = 0;
	}
	for (n = 0; n < rep->nr_cpus; n++) {
		ctx_totals_finish(&rep->cpu[n].tot, rep->nr_events);
		for (i = 0; i < rep->nr_events; i++) {
			t->buckets[i][CTXCOUNT_BUCKET_TASK] +=
				rep->cpu[n].tot.buckets[i][CTXCOUNT_BUCKET_TASK];
			t->buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST] +=
				rep->cpu[n].tot.buckets[i][CTXCOUNT_BUCKET_IRQ_ENTRY_EST];
		}
	}
}

/**
 * ctx_session_read() - current totals of a session
 * @owner: the socket that asks
 * @id: the session
 * @rep: filled with the session's state and totals
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session) or -ENOMEM.
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
	if (rep->cpu && !s->acct.system_wide) {
		NL_SET_ERR_MSG_MOD(extack,
				   "per-CPU totals need a system-wide session (perf has no per-CPU value of a task event)");
		err = -EINVAL;
		goto out_unlock;
	}
	memset(&rep->tot, 0, sizeof(rep->tot));
	err = ctx_src_report_init(&rep->src, s->acct.src, rep->cpu,
				  rep->cpu ? num_possible_cpus() : 0);
	if (!err)
		err = ctx_account_read(&s->acct, &rep->tot, rep->src.tot,
				       rep->cpu, &rep->nr_cpus);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "no memory to read the session");
		goto out_unlock;
	}
	ctx_pv_read(&s->pv, &rep->tot, rep->cpu, rep->nr_cpus);
	ctx_session_report(s, rep);
	ctx_session_finish(rep);
	ctx_src_report_info(&rep->src, s->acct.src);
out_unlock:
	mutex_unlock(&ctx_lock);
	return err;
}

/**
 * ctx_session_report_free() - free what ctx_session_read() allocated
 * @rep: the report (not itself)
 */
void ctx_session_report_free(struct ctx_session_report *rep)
{
	ctx_src_report_free(&rep->src);
}

/* Takes @s off every list; the caller frees it after a grace period. */
static void ctx_session_unlink(struct ctx_session *s, struct list_head *dead)
{
	lockdep_assert_held(&ctx_lock);
	if (ctx_account_running(&s->acct))
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
	/* No hook may still be reading their events... */
	synchronize_rcu();
	list_for_each_entry(s, dead, free_node)
		ctx_session_release(s);
	/* ...nor hold a child of one, whose tag points into the session. */
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

/*
 * Is @s a session of a closed socket that had @owner's port id? Another
 * socket may have bound the port id before the release notifier runs.
 */
static bool ctx_session_orphaned(const struct ctx_session *s,
				 const struct ctx_owner *owner)
{
	return s->owner.net == owner->net &&
	       s->owner.portid == owner->portid &&
	       sock_flag(s->owner.sk, SOCK_DEAD);
}

/* Lockless: does a session of @owner's closed socket exist? */
static bool ctx_session_any_orphaned(const struct ctx_owner *owner)
{
	struct ctx_session *s;
	bool found = false;

	if (!READ_ONCE(ctx_nr_sessions))
		return false;
	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node) {
		if (ctx_session_orphaned(s, owner)) {
			found = true;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}

/**
 * ctx_session_release_owner() - destroy every session of a closed socket
 * @owner: the socket's net and port id; @owner->sk is NULL (the release
 *	notifier does not name the socket)
 *
 * The socket was orphaned (SOCK_DEAD) before its notifier: the sessions
 * of the port id whose socket is dead go, those of a socket that bound
 * the port id since then stay.
 *
 * Context: process context (NETLINK_URELEASE notifier), may sleep.
 */
void ctx_session_release_owner(const struct ctx_owner *owner)
{
	struct ctx_session *s, *tmp;
	LIST_HEAD(dead);

	/*
	 * Every generic netlink socket's release comes here: take the lock
	 * only when a session of that socket exists. Its sessions were
	 * created before its release, so they cannot be missed; a session
	 * being freed stays readable for a grace period.
	 */
	if (!ctx_session_any_orphaned(owner))
		return;
	mutex_lock(&ctx_lock);
	list_for_each_entry_safe(s, tmp, &ctx_sessions, node) {
		if (ctx_session_orphaned(s, owner))
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
