// SPDX-License-Identifier: GPL-2.0
/*
 * The second half of SESSION_NEW, on a worker (struct ctx_build in
 * session_int.h says why): with the target's exec held off, check where
 * the proofs are attached, create the counters, compare them with the
 * proofs and publish the session in the registry (session.c), unless the
 * handler (session_new.c) gave up waiting.
 *
 * The worker acts for the sender: it runs with the sender's credentials
 * and charges the sender's memory cgroup, and ALL_THREADS takes the
 * threads of the sender's pid namespace.
 */
#include <linux/cred.h>
#include <linux/ctxcount.h>
#include <linux/file.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/pid_namespace.h>
#include <linux/rculist.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "account.h"
#include "cpuhp.h"
#include "perm.h"
#include "perfvals.h"
#include "session_int.h"
#include "threads.h"

static u32 ctx_next_id;

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

/**
 * ctx_sender_ns_sees() - does ALL_THREADS take @t
 * @t: a thread
 * @self: the sender
 * @ns: the sender's pid namespace
 *
 * Context: RCU read side.
 * Return: true for the sender and for every thread @ns sees.
 */
bool ctx_sender_ns_sees(struct task_struct *t, const struct task_struct *self,
			struct pid_namespace *ns)
{
	return t == self || task_pid_nr_ns(t, ns);
}

/**
 * ctx_count_threads() - how many threads ALL_THREADS would take
 * @ns: the sender's pid namespace; NULL: every thread of the system
 *
 * Return: the threads @ns sees now (the sender is one of them).
 */
unsigned int ctx_count_threads(struct pid_namespace *ns)
{
	struct task_struct *p, *t;
	unsigned int n = 0;

	rcu_read_lock();
	for_each_process_thread(p, t)
		n += !ns || task_pid_nr_ns(t, ns);
	rcu_read_unlock();
	return n;
}

/*
 * ALL_THREADS: every thread ctx_session_all_threads() may have given
 * events (@self, the sender, and every thread @ns sees), and those made
 * since.
 */
static int ctx_session_add_all(struct ctx_session *s, struct task_struct *self,
			       struct pid_namespace *ns)
{
	struct task_struct *p, *t;
	int err;

	err = ctx_taskset_reserve(&s->tasks,
				  ctx_count_threads(ns) + CTX_TASKSET_WALK_SLACK);
	if (err)
		return err;
	rcu_read_lock();
	for_each_process_thread(p, t) {
		if (!ctx_sender_ns_sees(t, self, ns))
			continue;
		err = ctx_session_add_task(s, t);
		if (err)
			break;
	}
	rcu_read_unlock();
	return err;
}

/*
 * Publishes @s; from here on the fork, exit and exec hooks maintain its
 * set. @b->task: as struct ctx_build says.
 */
static int ctx_session_link(struct ctx_build *b)
{
	struct ctx_session *s = b->s;
	int err;

	lockdep_assert_held(&ctx_lock);
	err = xa_alloc_cyclic(&ctx_ids, &s->id, s, xa_limit_31b, &ctx_next_id,
			      GFP_KERNEL);
	if (err < 0) {
		NL_SET_ERR_MSG_MOD(&b->extack, "cannot allocate a session id");
		return err;
	}
	list_add_rcu(&s->node, &ctx_sessions);
	WRITE_ONCE(ctx_nr_sessions, ctx_nr_sessions + 1);

	if (!b->task) {
		/* System-wide sessions have no set; tasks_seen counts all. */
		atomic64_add(ctx_count_threads(NULL), &s->tasks_seen);
		return 0;
	}
	if (s->target_flags & CTXCOUNT_TARGET_F_ALL_THREADS)
		err = ctx_session_add_all(s, b->task, b->ns);
	else
		err = ctx_session_add_process(s, b->task);
	if (err) {
		NL_SET_ERR_MSG_MOD(&b->extack, "cannot record the target's threads");
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
 * Every thread in the sender's pid namespace @ns (perf stat -a
 * --per-thread reads them from its /proc), referenced; the sender's own
 * first, so that an event's error is the error of the thread its proof
 * is on.
 */
static unsigned int ctx_session_all_threads(struct task_struct *self,
					    struct pid_namespace *ns,
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
		if (t == self || !ctx_sender_ns_sees(t, self, ns))
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
 * A task event per event on each thread of @b->task's process that its
 * proofs cover (perf stat -p opens one per thread), or with ALL_THREADS
 * on every thread; perf gives threads and children created later their
 * own with INHERIT. The target's exec_update_lock is held: no exec
 * replaces the threads or their credentials meanwhile.
 */
static int ctx_session_task_events(struct ctx_build *b)
{
	struct ctx_session *s = b->s;
	unsigned int n, i, max = s->pv.max_threads;
	struct task_struct **threads;
	int err = 0;

	threads = kvcalloc(max, sizeof(*threads), GFP_KERNEL);
	if (!threads)
		return -ENOMEM;
	if (s->target_flags & CTXCOUNT_TARGET_F_ALL_THREADS)
		n = ctx_session_all_threads(b->task, b->ns, threads, max);
	else
		n = ctx_session_process_threads(b->task, threads, max);
	for (i = 0; i < n; i++) {
		if (!err)
			err = ctx_pv_add_thread(&s->pv, threads[i], s->spec,
						ctx_session_counter_flags(s->target_flags),
						ctx_session_tags(s, threads[i]),
						s->error);
		atomic_inc(&s->made);
		put_task_struct(threads[i]);
	}
	kvfree(threads);
	return err;
}

/*
 * Create the counters, then check that the perf core made of each request
 * what it made of its proof (perm.c).
 */
static int ctx_session_create_counters(struct ctx_build *b)
{
	struct ctx_session *s = b->s;
	unsigned int i;
	int err;

	if (b->task) {
		err = ctx_session_task_events(b);
		if (err) {
			NL_SET_ERR_MSG_MOD(&b->extack,
					   "cannot create the target's events");
			return err;
		}
	} else {
		err = ctx_cpuhp_add(s);
		if (err) {
			NL_SET_ERR_MSG_MOD(&b->extack,
					   "cannot set up the session's CPU hotplug state");
			return err;
		}
	}
	cpus_read_lock();
	for (i = 0; i < s->nr_events && !err; i++)
		err = ctx_perm_check_counter(b->proof[i],
					     ctx_pv_first_event(&s->pv, i),
					     &b->nreq.req[i], &b->extack);
	cpus_read_unlock();
	return err;
}

/*
 * With the target's exec held off: check the proofs, create the counters
 * and publish the session, unless the handler gave up meanwhile. Sets
 * @b->finished under ctx_lock, with the session published or not.
 */
static int ctx_build_locked(struct ctx_build *b)
{
	int err;

	err = ctx_perm_check_proofs(b->task, b->nreq.req, b->proof,
				    b->nreq.nr_events, &b->extack);
	err = err ?: ctx_session_create_counters(b);
	mutex_lock(&ctx_lock);
	if (!err && b->abandoned) {
		err = -EAGAIN;
	} else if (!err) {
		/* Before any READ can find it; released with its events. */
		memcpy(b->s->proof, b->proof, sizeof(b->proof));
		memset(b->proof, 0, sizeof(b->proof));
		err = ctx_session_link(b);
	}
	if (!err)
		list_del_init(&b->pend.node);
	b->finished = true;
	mutex_unlock(&ctx_lock);
	return err;
}

static int ctx_build(struct ctx_build *b)
{
	int err;

	if (b->task) {
		err = ctx_perm_lock_target(b->task);
		if (err) {
			mutex_lock(&ctx_lock);
			b->finished = true;
			mutex_unlock(&ctx_lock);
			return err;
		}
	}
	err = ctx_build_locked(b);
	if (b->task)
		ctx_perm_unlock_target(b->task);
	return err;
}

/**
 * ctx_build_put() - drop a reference to @b
 * @b: a build
 *
 * The last one releases what the handler took for the worker.
 */
void ctx_build_put(struct ctx_build *b)
{
	if (!refcount_dec_and_test(&b->ref))
		return;
	/* None left when the session took them over. */
	ctx_perm_put_proofs(b->proof, b->nreq.nr_events);
	if (b->task)
		put_task_struct(b->task);
	put_pid_ns(b->ns);
	put_cred(b->cred);
	mem_cgroup_put(b->memcg);
	kfree(b);
}

/**
 * ctx_build_work() - the worker's part of SESSION_NEW
 * @work: a struct ctx_build's
 *
 * Context: a worker of ctx_session_wq; may wait on the target's locks for
 * as long as its owner holds them. The build holds a reference to the
 * module, which ctx_session_workers_exit() waits for the last worker to drop.
 */
void ctx_build_work(struct work_struct *work)
{
	struct ctx_build *b = container_of(work, struct ctx_build, work);
	struct ctx_session *s = b->s;
	struct mem_cgroup *old_memcg;
	const struct cred *old_cred;
	bool abandoned;
	int err;

	old_memcg = set_active_memcg(b->memcg);
	old_cred = override_creds(b->cred);
	err = ctx_build(b);
	revert_creds(old_cred);
	set_active_memcg(old_memcg);

	mutex_lock(&ctx_lock);
	b->err = err;
	abandoned = b->abandoned;
	mutex_unlock(&ctx_lock);
	if (abandoned) {
		/* Not published: ctx_build_locked() saw the mark. */
		ctx_session_release(s);
		synchronize_rcu();
		ctx_session_free(s);
	}
	complete(&b->done);
	ctx_build_put(b);
	module_put(THIS_MODULE);
}
