// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: the registry (ids, the list the hooks walk, what is pending),
 * the wait for a session's worker, and destruction (by request, when the
 * owning socket closes, at module unload). SESSION_NEW is session_new.c;
 * START, STOP and READ are session_ops.c; what fork, exit and exec do to
 * the task sets is session_tasks.c.
 *
 * A session is freed only after an RCU grace period following its
 * removal from the lists the hooks walk, and once no request holds it.
 *
 * Locks: ctx_lock guards the registry only (ids, lists, counts, the
 * limits' charges), never across perf calls, IPIs or anything a user's
 * target can slow down; each session's own mutex serializes what is done
 * to it, by workers only (session_ops.c says why). They are never held
 * together.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ctxcount.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <net/sock.h>

#include "account.h"
#include "account_ctl.h"
#include "account_read.h"
#include "compat.h"
#include "cpuhp.h"
#include "hooks.h"
#include "irqsrc.h"
#include "limits.h"
#include "perfvals.h"
#include "perm.h"
#include "session_int.h"

/* The registry: session_int.h says what each holds. */
DEFINE_MUTEX(ctx_lock);
LIST_HEAD(ctx_sessions);
LIST_HEAD(ctx_pending);
DEFINE_XARRAY_ALLOC1(ctx_ids);
unsigned int ctx_nr_sessions;

/*
 * Where whatever may wait on a target runs (SESSION_NEW's build, START,
 * STOP and READ, a session's destruction), so that no handler does.
 */
struct workqueue_struct *ctx_session_wq;

/* Does @s belong to @owner's socket. */
static bool ctx_session_owned(const struct ctx_session *s,
			      const struct ctx_owner *owner)
{
	return s->owner.sk == owner->sk;
}

unsigned int ctx_owner_sessions(const struct ctx_owner *owner)
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
void ctx_session_release(struct ctx_session *s)
{
	ctx_cpuhp_remove(s);
	ctx_pv_release(&s->pv);
	ctx_perm_put_proofs(s->proof, s->nr_events);
}

void ctx_session_free(struct ctx_session *s)
{
	bool sources = s->acct.src;

	ctx_account_destroy(&s->acct);
	ctx_threads_free(s->acct.thr);
	ctx_pv_destroy(&s->pv);
	/* Its hooks go with the last session that has sources. */
	if (sources)
		ctx_irqsrc_put();
	ctx_taskset_destroy(&s->tasks);
	if (s->charge.counters)
		ctx_limits_uncharge(&s->charge);
	sock_put(s->owner.sk);
	mutex_destroy(&s->lock);
	kfree(s);
	ctx_hooks_put();
}

void ctx_session_report(struct ctx_session *s,
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

void ctx_session_put(struct ctx_session *s)
{
	if (refcount_dec_and_test(&s->ref))
		ctx_session_free(s);
}

/**
 * ctx_session_get() - @owner's session @id, referenced
 * @owner: the socket that asks
 * @id: the session
 * @extack: for the error message when there is none
 *
 * Context: process context; takes ctx_lock.
 * Return: the session (ctx_session_put() it), or NULL.
 */
struct ctx_session *ctx_session_get(const struct ctx_owner *owner, u32 id,
				    struct netlink_ext_ack *extack)
{
	struct ctx_session *s;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (s)
		refcount_inc(&s->ref);
	mutex_unlock(&ctx_lock);
	return s;
}

/*
 * Takes @s off every list: no request finds it any more.
 * ctx_session_destroy_start() does the rest.
 */
static void ctx_session_unlink(struct ctx_session *s)
{
	lockdep_assert_held(&ctx_lock);
	list_del_rcu(&s->node);
	xa_erase(&ctx_ids, s->id);
	WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions - 1);
}

/*
 * What @s's workers have done so far: threads or CPUs given counters (the
 * build), root events read or released (START, STOP, READ, destruction).
 */
static int ctx_session_progress(struct ctx_session *s)
{
	return atomic_read(&s->made) + atomic_read(&s->pv.progress);
}

/**
 * ctx_session_wait() - wait for a session's worker while it makes progress
 * @s: the session, referenced
 * @done: the completion to wait for, or NULL to wait to claim @s's request
 *	slot (ctx_session_claim())
 *
 * Gives up after CTX_WAIT_SLICES slices of CTX_WAIT_SLICE in a row in
 * which @s's workers made no progress (ctx_session_progress()), or when
 * the sender is killed.
 *
 * Context: process context (a handler), may sleep.
 * Return: 0, -EAGAIN (gave up) or -EINTR (killed).
 */
int ctx_session_wait(struct ctx_session *s, struct completion *done)
{
	int seen = ctx_session_progress(s), idle = 0;
	long left;

	for (;;) {
		if (done)
			left = wait_for_completion_killable_timeout(done,
								    CTX_WAIT_SLICE);
		else
			left = wait_event_killable_timeout(s->req_wait,
							   ctx_session_claim(s),
							   CTX_WAIT_SLICE);
		if (left > 0)
			return 0;
		if (left < 0)
			return -EINTR;
		if (ctx_session_progress(s) != seen) {
			seen = ctx_session_progress(s);
			idle = 0;
			continue;
		}
		if (++idle == CTX_WAIT_SLICES)
			return -EAGAIN;
	}
}

/**
 * ctx_session_destroy_work() - destroy an unlinked session
 * @work: the session's @destroy_work
 *
 * Halts it once the request at its worker (if any) is done, releases its
 * events once no hook reads them, and drops the registry's reference.
 *
 * Context: a worker of ctx_session_wq: the release may wait on the target's
 * perf context (as READ's worker may) for as long as its owner likes. It
 * holds a module reference, which the workqueue's destruction at exit
 * waits for the last worker to drop.
 */
void ctx_session_destroy_work(struct work_struct *work)
{
	struct ctx_session *s = container_of(work, struct ctx_session,
					     destroy_work);

	mutex_lock(&s->lock);
	if (ctx_account_running(&s->acct))
		ctx_account_halt(&s->acct);
	s->dead = true;
	mutex_unlock(&s->lock);
	/* No hook may still be reading its events... */
	synchronize_rcu();
	ctx_session_release(s);
	/* ...nor hold a child of one, whose tag points into the session. */
	synchronize_rcu();
	complete_all(&s->destroyed);
	ctx_session_put(s);
	module_put(THIS_MODULE);
}

/* Hand unlinked @s to a worker that destroys it; @s stays referenced. */
static void ctx_session_destroy_start(struct ctx_session *s)
{
	/* The caller's, to wait on: the worker puts the registry's. */
	refcount_inc(&s->ref);
	__module_get(THIS_MODULE);
	queue_work(ctx_session_wq, &s->destroy_work);
}

/*
 * Wait for @s's destruction while it makes progress: as long as the
 * target does not hold it up, the counters are gone when a DEL or a
 * socket's release returns; the session is gone for its socket either way.
 */
static void ctx_session_destroy_wait(struct ctx_session *s)
{
	ctx_session_wait(s, &s->destroyed);
	ctx_session_put(s);
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

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (s)
		ctx_session_unlink(s);
	mutex_unlock(&ctx_lock);
	if (!s)
		return -ENOENT;
	ctx_session_destroy_start(s);
	ctx_session_destroy_wait(s);
	return 0;
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
		if (ctx_session_orphaned(s, owner)) {
			ctx_session_unlink(s);
			list_add(&s->free_node, &dead);
		}
	}
	mutex_unlock(&ctx_lock);
	/* All at once, then the waits: they overlap. */
	list_for_each_entry(s, &dead, free_node)
		ctx_session_destroy_start(s);
	list_for_each_entry_safe(s, tmp, &dead, free_node)
		ctx_session_destroy_wait(s);
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
	list_for_each_entry_safe(s, tmp, &ctx_sessions, node) {
		ctx_session_unlink(s);
		list_add(&s->free_node, &dead);
	}
	mutex_unlock(&ctx_lock);
	list_for_each_entry(s, &dead, free_node)
		ctx_session_destroy_start(s);
	/* No handler waits here: the wait is whole. */
	list_for_each_entry_safe(s, tmp, &dead, free_node) {
		wait_for_completion(&s->destroyed);
		ctx_session_put(s);
	}
}

/**
 * ctx_session_count() - number of live sessions a caller may know of
 * @all: every user's (a privileged caller); else those charged to the
 *	caller's real uid, as perf tells nobody of other users' events
 *
 * A snapshot: it takes no lock another request may hold long.
 *
 * Context: process context of the caller.
 * Return: the number of sessions.
 */
unsigned int ctx_session_count(bool all)
{
	kuid_t uid = current_uid();
	struct ctx_session *s;
	unsigned int n = 0;

	if (all)
		return READ_ONCE(ctx_nr_sessions);
	rcu_read_lock();
	list_for_each_entry_rcu(s, &ctx_sessions, node)
		n += uid_eq(s->charge.sender, uid);
	rcu_read_unlock();
	return n;
}

/**
 * ctx_session_workers_init() - what requests need before the family is there
 *
 * Return: 0 or -ENOMEM.
 */
int ctx_session_workers_init(void)
{
	/*
	 * Per CPU: the handler queues on its own CPU and sleeps until the
	 * worker is done, so waking the worker and being woken back send no
	 * IPI (an unbound worker elsewhere took six a START, READ and STOP:
	 * selftests/resources' ipis_only_where_needed). CPU intensive: each
	 * work runs in a worker of its own, which the scheduler shares the
	 * CPU with as it shares it with the senders, instead of queueing
	 * behind the CPU's running work until that sleeps (a user's long
	 * READ of a big tree held another user's READ on the same CPU up
	 * for as long: selftests/soak's fairness). As many may wait at once
	 * as a workqueue allows: a session has at most two at a time (its
	 * build; or a request and its destruction), and max_sessions (256
	 * unless raised) bounds every unprivileged user's sessions together.
	 */
	ctx_session_wq = alloc_workqueue("ctxcount",
					 CTX_WQ_PERCPU | WQ_CPU_INTENSIVE,
					 WQ_MAX_ACTIVE);
	return ctx_session_wq ? 0 : -ENOMEM;
}

/**
 * ctx_session_workers_exit() - wait for the last worker to return
 *
 * Each worker holds a module reference, so none is left when the module
 * exits but a session's destruction from ctx_session_destroy_all(); this
 * waits for the last worker to leave the module's code.
 */
void ctx_session_workers_exit(void)
{
	destroy_workqueue(ctx_session_wq);
}
