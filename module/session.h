/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_SESSION_H
#define _CTXCOUNT_SESSION_H

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/ctxcount.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "account.h"
#include "counters.h"
#include "limits.h"
#include "perfvals.h"
#include "sources.h"
#include "taskset.h"
#include "threads.h"
#include "totals.h"

struct cpumask;
struct file;
struct net;
struct netlink_ext_ack;
struct sock;
struct nlattr;

/**
 * struct ctx_owner - the netlink socket a session belongs to
 * @net: its network namespace (compared, never dereferenced)
 * @portid: its port id
 * @sk: the socket itself; a session holds a reference to it. A closing
 *	socket gives up its port id before its release notifier runs, and
 *	another socket may bind that port id in between: the notifier
 *	destroys only the sessions of dead sockets (SOCK_DEAD), requests
 *	reach only their own socket's sessions.
 */
struct ctx_owner {
	const struct net *net;
	u32 portid;
	struct sock *sk;
};

/**
 * struct ctx_target - what to monitor
 * @pid: a process in the caller's pid namespace (0 with system-wide)
 * @flags: enum ctxcount_target_flag bits
 * @cpus: with system-wide, the CPUs to count on (online when checked);
 *	NULL: every CPU
 */
struct ctx_target {
	pid_t pid;
	u32 flags;
	struct cpumask *cpus;
};

/**
 * struct ctx_event_req - one requested event and where it came from
 * @spec: the event
 * @perf_fd: the sender's proof (perm.c), or -1 when there was none
 * @attr: its CTXCOUNT_EVENTS_A_EVENT attribute, for error reporting
 * @fd_attr: its CTXCOUNT_EVENT_A_PERF_FD attribute, for error reporting
 */
struct ctx_event_req {
	struct ctx_event_spec spec;
	int perf_fd;
	const struct nlattr *attr;
	const struct nlattr *fd_attr;
};

/**
 * struct ctx_new_req - a SESSION_NEW request
 * @owner: the socket that asks
 * @target: what to monitor
 * @req: the events
 * @nr_events: number of events, 1 to CTXCOUNT_MAX_EVENTS
 * @flags: enum ctxcount_session_flag bits
 * @max_sources: with CTXCOUNT_SESSION_F_IRQ_SOURCES, the handler rows
 *	(1 to CTXCOUNT_MAX_SOURCES), else 0
 * @privileged: the sender may exceed per-user limits (perm.c)
 */
struct ctx_new_req {
	struct ctx_owner owner;
	struct ctx_target target;
	struct ctx_event_req req[CTXCOUNT_MAX_EVENTS];
	unsigned int nr_events;
	u32 flags;
	unsigned int max_sources;
	bool privileged;
};

/**
 * struct ctx_session - a monitoring session
 * @id: its id, unique among live sessions
 * @owner: the socket it belongs to
 * @target_flags: enum ctxcount_target_flag bits
 * @nr_events: number of events
 * @spec: the events
 * @error: per event, 0 or the error the perf core gave when creating it
 * @proof: per event, the sender's proof (perm.c), kept: each READ asks
 *	perf's read() hooks of it (ctx_perm_check_read()); NULL before the
 *	build hands it over
 * @charge: what the session counts against its user's limits
 * @acct: the attribution of the counters' deltas, started or armed
 *	(account.h)
 * @pv: the root events and what perf counted (perfvals.h)
 * @tasks: monitored tasks (taskset.h)
 * @tasks_seen: tasks ever added to @tasks
 * @tasks_lost: tasks that could not be added (allocation failure)
 * @cpus_lost: system-wide: CPUs that came online and could not get a
 *	counter for every event: what ran there is missing from the counts
 * @made: threads or CPUs given counters so far: SESSION_NEW's handler
 *	waits for the worker for as long as this grows (session_int.h)
 * @creating: SESSION_NEW is creating the counters: an event that fails on
 *	one CPU is the event's error, not a lost CPU
 * @cpuhp_node: the session's instance of the CPU hotplug state
 * @fill_work: creates counters on the online CPUs that have none
 * @node: in the list of all sessions (RCU, for the fork and exit hooks)
 * @free_node: in the list of sessions being created, then in a list of
 *	sessions waiting for a grace period to be freed
 * @lock: serializes START, STOP, READ and the halt at destruction: held
 *	across perf's reads of the target and the IPIs, so it is the
 *	session's own, never ctx_lock (one user's slow READ holds up no other
 *	session), and only workers take it (session_ops.c)
 * @ref: the registry's reference and one per request using @s outside
 *	ctx_lock; the last put frees it
 * @dead: unlinked and halted (under @lock): a request that found @s
 *	before does nothing with it
 * @busy: CTX_SESSION_BUSY while one of its requests is at a worker: one at
 *	a time, so that a user's retries on a held target queue no more
 * @req_wait: where requests wait for @busy to clear
 * @destroy_work: destroys it once unlinked (session.c)
 * @destroyed: completed when its events are released
 */
struct ctx_session {
	u32 id;
	struct ctx_owner owner;
	u32 target_flags;
	unsigned int nr_events;
	struct ctx_event_spec spec[CTXCOUNT_MAX_EVENTS];
	int error[CTXCOUNT_MAX_EVENTS];
	struct file *proof[CTXCOUNT_MAX_EVENTS];
	struct ctx_charge charge;
	struct ctx_acct acct;
	struct ctx_perfvals pv;
	struct ctx_taskset tasks;
	atomic64_t tasks_seen;
	atomic64_t tasks_lost;
	atomic_t cpus_lost;
	atomic_t made;
	bool creating;
	struct hlist_node cpuhp_node;
	struct work_struct fill_work;
	struct list_head node;
	struct list_head free_node;
	struct mutex lock;	/* see @lock above */
	refcount_t ref;
	bool dead;
	unsigned long busy;
	wait_queue_head_t req_wait;
	struct work_struct destroy_work;
	struct completion destroyed;
};

/**
 * struct ctx_session_report - a session's state, for a netlink reply
 * @id: the session id
 * @nr_events: number of events
 * @error: per event, 0 or the error the perf core gave
 * @tasks_seen: see struct ctx_session
 * @tasks_lost: see struct ctx_session
 * @tasks_now: tasks in the monitored set now (0 for system-wide)
 * @cpus_lost: see struct ctx_session
 * @tot: totals over all CPUs
 * @cpu: NULL, or room for a row per possible CPU, which READ fills with
 *	the per-CPU totals (ctx_account_read())
 * @nr_cpus: the rows READ filled
 * @src: with sources, their rows (free with ctx_session_report_free())
 * @per_thread: READ is to fill @thr (the session must have thread rows)
 * @thr: with @per_thread, a row per thread that got events, in the order
 *	they were made (free with ctx_session_report_free())
 * @nr_threads: the rows in @thr
 */
struct ctx_session_report {
	u32 id;
	unsigned int nr_events;
	int error[CTXCOUNT_MAX_EVENTS];
	u64 tasks_seen;
	u64 tasks_lost;
	u32 tasks_now;
	u32 cpus_lost;
	struct ctx_totals tot;
	struct ctx_cpu_totals *cpu;
	unsigned int nr_cpus;
	struct ctx_src_report src;
	bool per_thread;
	struct ctx_thread_totals *thr;
	unsigned int nr_threads;
};

int ctx_session_new(const struct ctx_new_req *nreq,
		    struct ctx_session_report *rep,
		    struct netlink_ext_ack *extack);
int ctx_session_start(const struct ctx_owner *owner, u32 id,
		      struct netlink_ext_ack *extack);
int ctx_session_stop(const struct ctx_owner *owner, u32 id,
		     struct netlink_ext_ack *extack);
struct ctx_session_report *ctx_session_read(const struct ctx_owner *owner,
					    u32 id, u32 flags,
					    struct netlink_ext_ack *extack);
int ctx_session_del(const struct ctx_owner *owner, u32 id,
		    struct netlink_ext_ack *extack);
void ctx_session_report_free(struct ctx_session_report *rep);
void ctx_session_release_owner(const struct ctx_owner *owner);
void ctx_session_destroy_all(void);
int ctx_session_workers_init(void);
void ctx_session_workers_exit(void);
unsigned int ctx_session_count(bool all);

void ctx_session_fork(struct task_struct *parent, struct task_struct *child);
void ctx_session_exit(struct task_struct *task);
void ctx_session_exec(struct task_struct *task);
void ctx_session_perf_exit(struct task_struct *task);

#endif /* _CTXCOUNT_SESSION_H */
