// SPDX-License-Identifier: GPL-2.0
/*
 * The monitored-task set of a session: task_struct pointers in RCU hash
 * chains keyed by the pointer itself.
 *
 * The fork and exit tracepoints insert and remove tasks with preemption
 * disabled. On PREEMPT_RT a spinlock_t sleeps there and no memory may be
 * allocated, not even GFP_ATOMIC, so the set is guarded by a raw spinlock
 * and inserts take a node from a spare list that process context tops up:
 * a work item after inserts from hooks, ctx_taskset_reserve() before
 * inserts in bulk. Only sets that the fork hook inserts into keep spare
 * nodes between inserts. Removed nodes are freed after a grace period, as
 * readers (sched_switch) walk the chains without a lock.
 */
#include <linux/memcontrol.h>
#include <linux/rcupdate.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "compat.h"
#include "taskset.h"

static struct ctx_task_node *ctx_taskset_take(struct ctx_taskset *ts)
{
	struct ctx_task_node *n;

	lockdep_assert_held(&ts->lock);
	if (hlist_empty(&ts->spare))
		return NULL;
	n = hlist_entry(ts->spare.first, struct ctx_task_node, node);
	hlist_del(&n->node);
	ts->nr_spare--;
	return n;
}

/* Adds up to @nr nodes to @ts's spare list. Process context. */
static int ctx_taskset_fill(struct ctx_taskset *ts, unsigned int nr)
{
	struct ctx_task_node *n;
	unsigned long flags;

	while (nr--) {
		n = kzalloc(sizeof(*n), GFP_KERNEL_ACCOUNT);
		if (!n)
			return -ENOMEM;
		raw_spin_lock_irqsave(&ts->lock, flags);
		hlist_add_head(&n->node, &ts->spare);
		ts->nr_spare++;
		raw_spin_unlock_irqrestore(&ts->lock, flags);
	}
	return 0;
}

static void ctx_taskset_refill(struct work_struct *work)
{
	struct ctx_taskset *ts = container_of(work, struct ctx_taskset, refill);
	unsigned int have = READ_ONCE(ts->nr_spare);
	struct mem_cgroup *old;

	if (have >= ts->nr_spare_kept)
		return;
	old = set_active_memcg(ts->memcg);
	ctx_taskset_fill(ts, ts->nr_spare_kept - have);
	set_active_memcg(old);
}

/**
 * ctx_taskset_init() - an empty set with its spare nodes
 * @ts: the set
 * @nr_spare_kept: spare nodes kept for inserts from hooks (refilled after
 *	each), CTX_TASKSET_SPARE; 0 when every insert follows a
 *	ctx_taskset_reserve()
 *
 * Nodes are charged to the memory cgroup of the calling task.
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM (then call ctx_taskset_destroy()).
 */
int ctx_taskset_init(struct ctx_taskset *ts, unsigned int nr_spare_kept)
{
	unsigned int i;

	raw_spin_lock_init(&ts->lock);
	for (i = 0; i < ARRAY_SIZE(ts->heads); i++)
		INIT_HLIST_HEAD(&ts->heads[i]);
	INIT_HLIST_HEAD(&ts->spare);
	ts->nr = 0;
	ts->nr_spare = 0;
	ts->nr_spare_kept = nr_spare_kept;
	INIT_WORK(&ts->refill, ctx_taskset_refill);
	ts->memcg = get_mem_cgroup_from_mm(current->mm);
	return ctx_taskset_fill(ts, nr_spare_kept);
}

/**
 * ctx_taskset_destroy() - free every node of @ts
 * @ts: the set
 *
 * Context: process context, may sleep; no hook can reach @ts any more
 * (after the grace period that follows unpublishing it).
 */
void ctx_taskset_destroy(struct ctx_taskset *ts)
{
	struct ctx_task_node *n;
	struct hlist_node *tmp;
	unsigned int i;

	cancel_work_sync(&ts->refill);
	for (i = 0; i < ARRAY_SIZE(ts->heads); i++) {
		hlist_for_each_entry_safe(n, tmp, &ts->heads[i], node)
			kfree(n);
	}
	hlist_for_each_entry_safe(n, tmp, &ts->spare, node)
		kfree(n);
	mem_cgroup_put(ts->memcg);
}

/**
 * ctx_taskset_reserve() - make sure @nr inserts will find a spare node
 * @ts: the set
 * @nr: inserts to come
 *
 * Context: process context, may sleep.
 * Return: 0 or -ENOMEM.
 */
int ctx_taskset_reserve(struct ctx_taskset *ts, unsigned int nr)
{
	unsigned int have = READ_ONCE(ts->nr_spare);

	return nr > have ? ctx_taskset_fill(ts, nr - have) : 0;
}

/**
 * ctx_taskset_add() - insert @t into @ts
 * @ts: the set
 * @t: the task; inserting it twice is harmless
 *
 * Never allocates: takes a spare node and asks for a refill.
 *
 * Context: any but NMI.
 * Return: 0, or -ENOMEM when no spare node was left.
 */
int ctx_taskset_add(struct ctx_taskset *ts, const struct task_struct *t)
{
	struct hlist_head *head = ctx_taskset_head(ts, t);
	struct ctx_task_node *n;
	unsigned long flags;
	bool refill;
	int err = 0;

	raw_spin_lock_irqsave(&ts->lock, flags);
	hlist_for_each_entry(n, head, node) {
		if (n->task == t)
			goto out_unlock;
	}
	n = ctx_taskset_take(ts);
	if (n) {
		n->task = t;
		hlist_add_head_rcu(&n->node, head);
		WRITE_ONCE(ts->nr, ts->nr + 1);
	} else {
		err = -ENOMEM;
	}
out_unlock:
	refill = ts->nr_spare < ts->nr_spare_kept;
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	/* The workqueue's locks are raw: fine from a tracepoint, also on RT. */
	if (refill)
		queue_work(ctx_system_dfl_wq, &ts->refill);
	return err;
}

/**
 * ctx_taskset_del() - remove @t from @ts, if it is there
 * @ts: the set
 * @t: the task
 *
 * Context: any but NMI.
 */
void ctx_taskset_del(struct ctx_taskset *ts, const struct task_struct *t)
{
	struct ctx_task_node *n, *found = NULL;
	unsigned long flags;

	raw_spin_lock_irqsave(&ts->lock, flags);
	hlist_for_each_entry(n, ctx_taskset_head(ts, t), node) {
		if (n->task == t) {
			hlist_del_rcu(&n->node);
			WRITE_ONCE(ts->nr, ts->nr - 1);
			found = n;
			break;
		}
	}
	raw_spin_unlock_irqrestore(&ts->lock, flags);
	/* Readers may still be on it; kfree_rcu() is safe here on RT too. */
	if (found)
		kfree_rcu(found, rcu);
}

/**
 * ctx_taskset_cpus() - the CPUs where a task of @ts may be running
 * @ts: the set
 * @mask: gets the CPU of every task of @ts that is on a runqueue or on a
 *	CPU
 *
 * A task that is asleep, or that becomes runnable after its state was
 * read here, is switched in through __schedule(), which reads what the
 * caller published before (the caller orders its stores before this with
 * a full barrier; __schedule() takes the runqueue lock the wakeup or
 * migration took, then smp_mb__after_spinlock()).
 *
 * Context: any but NMI; the tasks are not freed under RCU.
 */
void ctx_taskset_cpus(struct ctx_taskset *ts, struct cpumask *mask)
{
	const struct task_struct *t;
	struct ctx_task_node *n;
	unsigned int i;

	rcu_read_lock();
	for (i = 0; i < ARRAY_SIZE(ts->heads); i++) {
		hlist_for_each_entry_rcu(n, &ts->heads[i], node) {
			t = n->task;
			/* Found under RCU: freed only a grace period after removal. */
			if (READ_ONCE(t->on_rq) || READ_ONCE(t->on_cpu))
				cpumask_set_cpu(task_cpu(t), mask);
		}
	}
	rcu_read_unlock();
}
