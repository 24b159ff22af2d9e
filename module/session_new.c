// SPDX-License-Identifier: GPL-2.0
/*
 * SESSION_NEW: limits, proofs, counters and the monitored task set, then
 * the session is published in the registry (session.c). ctx_lock is
 * held only to charge and to publish: the proofs, the counters and the
 * wait for the target's exec_update_lock happen outside it, so one
 * request does not hold up the others.
 */
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/file.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
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
#include "session_int.h"
#include "threads.h"

static u32 ctx_next_id;

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
	mutex_init(&s->lock);
	/* The registry's: the last ctx_session_put() frees the session. */
	refcount_set(&s->ref, 1);
	for (i = 0; i < nreq->nr_events; i++)
		s->spec[i] = nreq->req[i].spec;
	/* The nodes for the target's threads, before ctx_lock is taken. */
	if (ctx_taskset_init(&s->tasks,
			     ctx_session_spare_tasks(nreq->target.flags)) ||
	    (threads && ctx_taskset_reserve(&s->tasks,
					    threads + CTX_TASKSET_WALK_SLACK)))
		goto err_taskset;
	if (ctx_pv_init(&s->pv, nreq->nr_events, system_wide,
			threads + CTX_TASKSET_WALK_SLACK))
		goto err_pv;
	if (ctx_account_init(&s->acct, nreq->nr_events, s->spec, system_wide,
			     nreq->target.cpus,
			     !(nreq->flags & CTXCOUNT_SESSION_F_NO_IRQ_ESTIMATE),
			     nreq->max_sources))
		goto err_pv;
	/* Only the set's tasks open intervals on the session's events. */
	if (!system_wide)
		s->acct.tasks = &s->tasks;
	if (nreq->flags & CTXCOUNT_SESSION_F_PER_THREAD) {
		s->acct.thr = ctx_threads_alloc(&s->acct, s->pv.max_threads);
		if (!s->acct.thr)
			goto err_acct;
	}
	if (nreq->max_sources && ctx_irqsrc_get())
		goto err_thr;
	s->owner = nreq->owner;
	sock_hold(s->owner.sk);
	s->target_flags = nreq->target.flags;
	s->nr_events = nreq->nr_events;
	atomic64_set(&s->tasks_seen, 0);
	atomic64_set(&s->tasks_lost, 0);
	atomic_set(&s->cpus_lost, 0);
	ctx_cpuhp_session_init(s);
	return s;

err_thr:
	ctx_threads_free(s->acct.thr);
err_acct:
	ctx_account_destroy(&s->acct);
err_pv:
	ctx_pv_destroy(&s->pv);
err_taskset:
	ctx_taskset_destroy(&s->tasks);
	kfree(s);
	return NULL;
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

/* ALL_THREADS takes @t: the sender (@self) or a thread its pid namespace sees. */
static bool ctx_sender_ns_sees(struct task_struct *t,
			       const struct task_struct *self)
{
	return t == self || task_pid_vnr(t);
}

/*
 * Every thread of the system now or, with @sender_ns, those the sender's
 * pid namespace sees, the sender's own included: what ALL_THREADS takes
 * (ctx_session_all_threads()).
 */
static unsigned int ctx_count_threads(bool sender_ns)
{
	struct task_struct *p, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(p, t)
		n += !sender_ns || ctx_sender_ns_sees(t, current);
	rcu_read_unlock();
	return n;
}

/*
 * ALL_THREADS: every thread ctx_session_all_threads() may have given
 * events (@self, the sender, and every thread its pid namespace sees),
 * and those made since.
 */
static int ctx_session_add_all(struct ctx_session *s, struct task_struct *self)
{
	struct task_struct *p, *t;
	int err;

	err = ctx_taskset_reserve(&s->tasks,
				  ctx_count_threads(true) + CTX_TASKSET_WALK_SLACK);
	if (err)
		return err;
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (!ctx_sender_ns_sees(t, self))
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
	atomic64_add(ctx_count_threads(false), &s->tasks_seen);
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
	if (s->target_flags & CTXCOUNT_TARGET_F_ALL_THREADS)
		err = ctx_session_add_all(s, task);
	else
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

/* How a task session's events count: as perf stat's would. */
static unsigned int ctx_session_counter_flags(u32 target_flags)
{
	return (target_flags & CTXCOUNT_TARGET_F_INHERIT ?
		CTX_COUNTER_INHERIT : 0) |
	       (target_flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC ?
		CTX_COUNTER_ENABLE_ON_EXEC : 0);
}

/* The threads of @task's process that its proofs cover, referenced. */
static unsigned int ctx_session_process_threads(struct task_struct *task,
						struct task_struct **threads,
						unsigned int max)
{
	struct task_struct *t;
	unsigned int n = 0;

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
	return n;
}

/*
 * Every thread in the sender's pid namespace (perf stat -a --per-thread
 * reads them from its /proc), referenced; the sender's own first, so that
 * an event's error is the error of the thread its proof is on.
 */
static unsigned int ctx_session_all_threads(struct task_struct *self,
					    struct task_struct **threads,
					    unsigned int max)
{
	struct task_struct *p, *t;
	unsigned int n = 0;

	get_task_struct(self);
	threads[n++] = self;
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (n == max)
			goto out;
		if (t == self || !ctx_sender_ns_sees(t, self))
			continue;
		get_task_struct(t);
		threads[n++] = t;
	}
out:
	rcu_read_unlock();
	return n;
}

/*
 * Root thread @t's events carry the session's tags, or with thread rows
 * the tags of @t's row.
 */
static struct ctx_counter_tag *ctx_session_tags(struct ctx_session *s,
						struct task_struct *t)
{
	if (!s->acct.thr)
		return s->acct.tag;
	return ctx_threads_row_tags(s->acct.thr, s->pv.nr_threads, t);
}

/*
 * A task event per event on each thread of @task's process that its
 * proofs cover (perf stat -p opens one per thread), or with ALL_THREADS
 * on every thread (@task is the sender); perf gives threads and children
 * created later their own with INHERIT. @task's exec_update_lock is
 * held: no exec replaces the threads or their credentials meanwhile.
 */
static int ctx_session_task_events(struct ctx_session *s,
				   struct task_struct *task)
{
	unsigned int n, i, max = s->pv.max_threads;
	struct task_struct **threads;
	int err = 0;

	threads = kvcalloc(max, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	if (s->target_flags & CTXCOUNT_TARGET_F_ALL_THREADS)
		n = ctx_session_all_threads(task, threads, max);
	else
		n = ctx_session_process_threads(task, threads, max);
	for (i = 0; i < n; i++) {
		if (!err)
			err = ctx_pv_add_thread(&s->pv, threads[i], s->spec,
						ctx_session_counter_flags(s->target_flags),
						ctx_session_tags(s, threads[i]),
						s->error);
		put_task_struct(threads[i]);
	}
	kvfree(threads);
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

/*
 * ALL_THREADS: a privileged sender's (perf checks ptrace access to each
 * thread, which a module cannot: only those who may trace every task may
 * count every thread), and within the module's max_threads.
 */
static int ctx_session_count_threads(const struct ctx_new_req *nreq,
				     unsigned int *threads,
				     struct netlink_ext_ack *extack)
{
	unsigned int n;

	if (!nreq->privileged) {
		NL_SET_ERR_MSG_MOD(extack,
				   "ALL_THREADS needs CAP_PERFMON or CAP_SYS_ADMIN (sender and socket opener): perf checks ptrace access to each thread, which a module cannot");
		return -EPERM;
	}
	n = ctx_count_threads(true);
	if (n > ctx_threads_max()) {
		NL_SET_ERR_MSG_MOD(extack,
				   "more threads than the module parameter max_threads allows");
		return -ENOSPC;
	}
	*threads = n;
	return 0;
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

	if (nreq->target.flags & CTXCOUNT_TARGET_F_ALL_THREADS) {
		err = ctx_session_count_threads(nreq, &threads, extack);
		if (err)
			return err;
		task = get_task_struct(current);
		counted = threads;
	} else if (!(nreq->target.flags & CTXCOUNT_TARGET_F_SYSTEM_WIDE)) {
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
