/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_TASKSET_H
#define _CTXCOUNT_TASKSET_H

#include <linux/cpumask.h>
#include <linux/hash.h>
#include <linux/rculist.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

struct mem_cgroup;

#define CTX_TASKSET_BITS	8

/*
 * Spare nodes kept for inserts from the fork hook: a burst of forks faster
 * than the refill work, which is queued as soon as one is used.
 */
#define CTX_TASKSET_SPARE	256

/*
 * Room for threads a process creates while SESSION_NEW walks its threads
 * (other CPUs only: the walk does not sleep).
 */
#define CTX_TASKSET_WALK_SLACK	16

/**
 * struct ctx_taskset - a set of tasks, updated and looked up from hooks
 * @lock: serializes writers; raw because the fork and exit tracepoints run
 *	with preemption disabled, where a spinlock_t may not be taken on
 *	PREEMPT_RT
 * @heads: hash chains by task_struct address; readers walk them under RCU
 * @spare: nodes for inserts, which never allocate (PREEMPT_RT forbids
 *	allocating with preemption disabled, even GFP_ATOMIC)
 * @nr: tasks in the set
 * @nr_spare: nodes on @spare
 * @nr_spare_kept: what @refill tops @spare up to after an insert
 * @refill: tops @spare up from process context
 * @memcg: the memory cgroup of the session's creator, which the nodes are
 *	charged to, also when @refill allocates them
 */
struct ctx_taskset {
	raw_spinlock_t lock;
	struct hlist_head heads[1 << CTX_TASKSET_BITS];
	struct hlist_head spare;
	unsigned int nr;
	unsigned int nr_spare;
	unsigned int nr_spare_kept;
	struct work_struct refill;
	struct mem_cgroup *memcg;
};

/**
 * struct ctx_task_node - a task in a set
 * @node: in a hash chain or on the spare list
 * @task: the task; dereferenced only under RCU (ctx_taskset_cpus()): it
 *	leaves the set before it is freed
 * @rcu: for freeing after readers are done
 */
struct ctx_task_node {
	struct hlist_node node;
	const struct task_struct *task;
	struct rcu_head rcu;
};

/*
 * Keyed by the task_struct's address, never by its pid: de_thread() gives
 * a non-leader thread that execs its leader's pid (exchange_tids()), and a
 * lookup by the new pid would miss the node filed under the old one.
 */
static inline struct hlist_head *ctx_taskset_head(struct ctx_taskset *ts,
						  const struct task_struct *t)
{
	return &ts->heads[hash_ptr(t, CTX_TASKSET_BITS)];
}

/**
 * ctx_taskset_has() - is @t in @ts
 * @ts: the set
 * @t: a task
 *
 * The set holds task_struct pointers: a recycled pid never matches.
 *
 * Context: any, NMI too (the resolution of an NMI boundary): RCU read
 * side (preemption disabled counts), removed nodes are freed after a grace
 * period.
 * Return: true if @t is in @ts.
 */
static inline bool ctx_taskset_has(struct ctx_taskset *ts,
				   const struct task_struct *t)
{
	struct ctx_task_node *n;

	hlist_for_each_entry_rcu(n, ctx_taskset_head(ts, t), node) {
		if (n->task == t)
			return true;
	}
	return false;
}

/**
 * ctx_taskset_size() - how many tasks @ts holds
 * @ts: the set
 *
 * Return: the number of tasks, a snapshot.
 */
static inline unsigned int ctx_taskset_size(const struct ctx_taskset *ts)
{
	return READ_ONCE(ts->nr);
}

int ctx_taskset_init(struct ctx_taskset *ts, unsigned int nr_spare_kept);
void ctx_taskset_cpus(struct ctx_taskset *ts, struct cpumask *mask);
void ctx_taskset_destroy(struct ctx_taskset *ts);
int ctx_taskset_reserve(struct ctx_taskset *ts, unsigned int nr);
int ctx_taskset_add(struct ctx_taskset *ts, const struct task_struct *t);
void ctx_taskset_del(struct ctx_taskset *ts, const struct task_struct *t);

#endif /* _CTXCOUNT_TASKSET_H */
