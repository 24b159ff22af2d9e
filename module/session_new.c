// SPDX-License-Identifier: GPL-2.0
/*
 * SESSION_NEW: limits, the session's allocation and the proofs here, in
 * the sender's context; then a worker (session_build.c) creates the
 * counters and publishes the session in the registry (session.c), and the
 * handler waits for it while it makes progress. ctx_lock is held only to
 * charge and to publish, so one request does not hold up the others.
 */
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/cpumask.h>
#include <linux/ctxcount.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/pid.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/sock.h>

#include "account.h"
#include "account_ctl.h"
#include "cpuhp.h"
#include "hooks.h"
#include "irqsrc.h"
#include "limits.h"
#include "perm.h"
#include "perfvals.h"
#include "session_int.h"
#include "threads.h"

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
	init_waitqueue_head(&s->req_wait);
	INIT_WORK(&s->destroy_work, ctx_session_destroy_work);
	init_completion(&s->destroyed);
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

/*
 * What the worker needs of the sender, which it acts for (session_int.h).
 * Takes over the reference to @task; the build is the handler's.
 */
static struct ctx_build *ctx_build_alloc(const struct ctx_new_req *nreq,
					 struct task_struct *task)
{
	struct ctx_build *b;

	b = kzalloc(sizeof(*b), GFP_KERNEL_ACCOUNT);
	if (!b)
		return NULL;
	INIT_WORK(&b->work, ctx_build_work);
	init_completion(&b->done);
	refcount_set(&b->ref, 1);
	b->nreq = *nreq;
	b->nreq.target.cpus = NULL;
	b->task = task;
	b->ns = get_pid_ns(task_active_pid_ns(current));
	b->cred = get_current_cred();
	b->memcg = get_mem_cgroup_from_mm(current->mm);
	b->pend.sk = nreq->owner.sk;
	INIT_LIST_HEAD(&b->pend.node);
	return b;
}

/*
 * Wait for @b's worker while it gives threads or CPUs counters
 * (ctx_session_wait()); when the handler gives up, the worker frees the
 * session instead of publishing it, unless it finished meanwhile.
 * Return: the worker's result (its message in @extack), -EAGAIN or -EINTR.
 */
static int ctx_build_wait(struct ctx_build *b, struct netlink_ext_ack *extack)
{
	bool gave_up;
	int err;

	err = ctx_session_wait(b->s, &b->done);
	if (err) {
		mutex_lock(&ctx_lock);
		gave_up = !b->finished;
		if (gave_up) {
			b->abandoned = true;
			list_del_init(&b->pend.node);
		}
		mutex_unlock(&ctx_lock);
		if (gave_up) {
			NL_SET_ERR_MSG_MOD(extack,
					   "the target's exec or perf context held up its counters (another perf reader, or an exec, held them): try again");
			return err;
		}
		/* Finished meanwhile: only the completion is left to come. */
		wait_for_completion(&b->done);
	}
	if (b->err) {
		extack->_msg = b->extack._msg;
		extack->bad_attr = b->extack.bad_attr;
	}
	return b->err;
}

/*
 * Take the proofs in the sender's file table, then hand @s to a worker
 * that creates its counters and publishes it (session_build.c).
 */
static int ctx_session_build(struct ctx_build *b,
			     struct netlink_ext_ack *extack)
{
	int err;

	err = ctx_perm_get_proofs(&b->nreq.target, b->nreq.req,
				  b->nreq.nr_events, b->proof, extack);
	if (err)
		return err;
	/* The worker's: it may outlive this request, and the socket. */
	refcount_inc(&b->ref);
	__module_get(THIS_MODULE);
	queue_work(ctx_session_wq, &b->work);
	return ctx_build_wait(b, extack);
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
	n = ctx_count_threads(task_active_pid_ns(current));
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
	struct task_struct *task = NULL;
	struct ctx_charge charge = { };
	unsigned int threads = 0, counted;
	struct ctx_session *s;
	struct ctx_build *b;
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
	b = ctx_build_alloc(nreq, task);
	if (!b) {
		if (task)
			put_task_struct(task);
		return -ENOMEM;
	}
	err = ctx_session_charge(nreq, nreq->nr_events * counted, &charge,
				 &b->pend, extack);
	if (err)
		goto out_put_build;
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
	b->s = s;
	err = ctx_session_build(b, extack);
	/* Given up: the worker frees @s when it is done with it. */
	if (b->abandoned)
		goto out_put_build;
	if (err) {
		ctx_session_unpend(&b->pend);
		/* Its events may be in perf contexts the hooks walk. */
		ctx_session_release(s);
		synchronize_rcu();
		ctx_session_free(s);
		goto out_put_build;
	}
	ctx_session_report(s, rep);
	goto out_put_build;

out_uncharge:
	ctx_session_unpend(&b->pend);
	ctx_limits_uncharge(&charge);
out_put_build:
	ctx_build_put(b);
	return err;
}
