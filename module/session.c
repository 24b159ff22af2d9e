// SPDX-License-Identifier: GPL-2.0
/*
 * Sessions: the registry (ids, the list the hooks walk, what is pending),
 * start/stop/read, and destruction (by request, when the owning socket
 * closes, at module unload). SESSION_NEW is session_new.c; what fork,
 * exit and exec do to the task sets is session_tasks.c.
 *
 * A session is freed only after an RCU grace period following its
 * removal from the lists the hooks walk, and once no request holds it.
 *
 * Locks: ctx_lock guards the registry only (ids, lists, counts, the
 * limits' charges), never across perf calls, IPIs or anything a user's
 * target can slow down; each session's own mutex serializes what is done
 * to it. They are never held together.
 */
#include <linux/ctxcount.h>
#include <linux/cpumask.h>
#include <linux/cred.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/rculist.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/sock.h>

#include "account.h"
#include "account_ctl.h"
#include "account_read.h"
#include "cpuhp.h"
#include "hooks.h"
#include "irqsrc.h"
#include "limits.h"
#include "perfvals.h"
#include "session_int.h"

/* The registry: session_int.h says what each holds. */
DEFINE_MUTEX(ctx_lock);
LIST_HEAD(ctx_sessions);
LIST_HEAD(ctx_pending);
DEFINE_XARRAY_ALLOC1(ctx_ids);
unsigned int ctx_nr_sessions;

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

static void ctx_session_put(struct ctx_session *s)
{
	if (refcount_dec_and_test(&s->ref))
		ctx_session_free(s);
}

/*
 * @owner's session @id, referenced and locked, not dead; NULL (extack
 * set) when there is none. ctx_session_unlock() undoes it.
 */
static struct ctx_session *ctx_session_lock(const struct ctx_owner *owner,
					    u32 id,
					    struct netlink_ext_ack *extack)
{
	struct ctx_session *s;

	mutex_lock(&ctx_lock);
	s = ctx_session_find(owner, id, extack);
	if (s)
		refcount_inc(&s->ref);
	mutex_unlock(&ctx_lock);
	if (!s)
		return NULL;
	mutex_lock(&s->lock);
	if (!s->dead)
		return s;
	/* Deleted meanwhile. */
	mutex_unlock(&s->lock);
	ctx_session_put(s);
	NL_SET_ERR_MSG_MOD(extack, "no such session on this socket");
	return NULL;
}

static void ctx_session_unlock(struct ctx_session *s)
{
	mutex_unlock(&s->lock);
	ctx_session_put(s);
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

	s = ctx_session_lock(owner, id, extack);
	if (!s)
		return -ENOENT;
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
	ctx_session_unlock(s);
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

	s = ctx_session_lock(owner, id, extack);
	if (!s)
		return -ENOENT;
	if (!ctx_account_running(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session not started");
		err = -EALREADY;
		goto out_unlock;
	}
	ctx_account_halt(&s->acct);
	ctx_pv_stop(&s->pv);
out_unlock:
	ctx_session_unlock(s);
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

/* Room for a row per root thread, zeroed: ctx_pv_read() adds to it. */
static int ctx_session_threads_alloc(struct ctx_session *s,
				     struct ctx_session_report *rep)
{
	rep->thr = kvcalloc(max(s->pv.nr_threads, 1U), sizeof(*rep->thr),
			    GFP_KERNEL);
	return rep->thr ? 0 : -ENOMEM;
}

/*
 * Each row's hooks' part next to perf's, the rows of threads that got no
 * events left out; then their task buckets.
 */
static void ctx_session_threads_finish(struct ctx_session *s,
				       struct ctx_session_report *rep)
{
	unsigned int n, k = 0;

	for (n = 0; n < s->pv.nr_threads; n++) {
		if (!ctx_pv_thread_counted(&s->pv, n))
			continue;
		if (k != n)
			rep->thr[k] = rep->thr[n];
		ctx_threads_read(&s->acct, n, &rep->thr[k]);
		ctx_totals_finish(&rep->thr[k].tot, rep->nr_events);
		k++;
	}
	rep->nr_threads = k;
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

	s = ctx_session_lock(owner, id, extack);
	if (!s)
		return -ENOENT;
	if (rep->cpu && !s->acct.system_wide) {
		NL_SET_ERR_MSG_MOD(extack,
				   "per-CPU totals need a system-wide session (perf has no per-CPU value of a task event)");
		err = -EINVAL;
		goto out_unlock;
	}
	if (rep->per_thread && !s->acct.thr) {
		NL_SET_ERR_MSG_MOD(extack,
				   "per-thread rows need a session made with the PER_THREAD flag");
		err = -EINVAL;
		goto out_unlock;
	}
	memset(&rep->tot, 0, sizeof(rep->tot));
	err = ctx_src_report_init(&rep->src, s->acct.src, rep->cpu,
				  rep->cpu ? num_possible_cpus() : 0);
	if (!err && rep->per_thread)
		err = ctx_session_threads_alloc(s, rep);
	if (!err)
		err = ctx_account_read(&s->acct, &rep->tot, rep->src.tot,
				       rep->cpu, &rep->nr_cpus);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "no memory to read the session");
		goto out_unlock;
	}
	ctx_pv_read(&s->pv, &rep->tot, rep->cpu, rep->nr_cpus, rep->thr);
	ctx_session_report(s, rep);
	ctx_session_finish(rep);
	if (rep->thr)
		ctx_session_threads_finish(s, rep);
	ctx_src_report_info(&rep->src, s->acct.src);
out_unlock:
	ctx_session_unlock(s);
	return err;
}

/**
 * ctx_session_report_free() - free what ctx_session_read() allocated
 * @rep: the report (not itself)
 */
void ctx_session_report_free(struct ctx_session_report *rep)
{
	ctx_src_report_free(&rep->src);
	kvfree(rep->thr);
	rep->thr = NULL;
}

/* Takes @s off every list; ctx_session_free_list() does the rest. */
static void ctx_session_unlink(struct ctx_session *s, struct list_head *dead)
{
	lockdep_assert_held(&ctx_lock);
	list_del_rcu(&s->node);
	xa_erase(&ctx_ids, s->id);
	WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions - 1);
	list_add(&s->free_node, dead);
}

/*
 * Halt each unlinked session once the request using it (if any) is done,
 * and free it after the grace periods the hooks need and the last
 * request's reference. Without ctx_lock: a READ stuck on its target holds
 * up only its own session's destruction.
 */
static void ctx_session_free_list(struct list_head *dead)
{
	struct ctx_session *s, *tmp;

	if (list_empty(dead))
		return;
	list_for_each_entry(s, dead, free_node) {
		mutex_lock(&s->lock);
		if (ctx_account_running(&s->acct))
			ctx_account_halt(&s->acct);
		s->dead = true;
		mutex_unlock(&s->lock);
	}
	/* No hook may still be reading their events... */
	synchronize_rcu();
	list_for_each_entry(s, dead, free_node)
		ctx_session_release(s);
	/* ...nor hold a child of one, whose tag points into the session. */
	synchronize_rcu();
	list_for_each_entry_safe(s, tmp, dead, free_node)
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
