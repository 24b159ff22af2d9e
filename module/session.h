/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _CTXCOUNT_SESSION_H
#define _CTXCOUNT_SESSION_H

#include <linux/atomic.h>
#include <linux/ctxcount.h>
#include <linux/list.h>
#include <linux/sched.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "account.h"
#include "counters.h"
#include "taskset.h"

struct net;
struct netlink_ext_ack;
struct sock;
struct nlattr;

/**
 * struct ctx_owner - the netlink socket a session belongs to
 * @net: its network namespace (compared, never dereferenced)
 * @portid: its port id
 * @sk: the socket itself (compared, never dereferenced). A closing socket
 *	gives up its port id before its release notifier destroys its
 *	sessions; another socket bound to that port id in between must not
 *	reach them. The socket outlives the notifier, so its address is not
 *	reused while its sessions exist.
 */
struct ctx_owner {
	const struct net *net;
	u32 portid;
	const struct sock *sk;
};

/**
 * struct ctx_target - what to monitor
 * @pid: a process in the caller's pid namespace (0 with system-wide)
 * @flags: enum ctxcount_target_flag bits
 */
struct ctx_target {
	pid_t pid;
	u32 flags;
};

/**
 * struct ctx_event_req - one requested event and where it came from
 * @spec: the event
 * @attr: its CTXCOUNT_EVENTS_A_EVENT attribute, for error reporting
 */
struct ctx_event_req {
	struct ctx_event_spec spec;
	const struct nlattr *attr;
};

/**
 * struct ctx_session - a monitoring session
 * @id: its id, unique among live sessions
 * @owner: the socket it belongs to
 * @target_flags: enum ctxcount_target_flag bits
 * @nr_events: number of events
 * @spec: the events
 * @error: per event, 0 or the error the perf core gave when creating it
 * @privileged: created by a CAP_PERFMON caller: any PMU may be used
 * @acct: the counters and their attribution (account.h)
 * @tasks: monitored tasks (taskset.h)
 * @tasks_seen: tasks ever added to @tasks
 * @tasks_lost: tasks that could not be added (allocation failure)
 * @cpus_lost: CPUs that came online and could not get a counter for every
 *	event: what monitored tasks ran there is missing from the counts
 * @creating: SESSION_NEW is creating the counters: an event that fails on
 *	one CPU is the event's error, not a lost CPU
 * @cpuhp_node: the session's instance of the CPU hotplug state
 * @fill_work: creates counters on the online CPUs that have none
 * @node: in the list of all sessions (RCU, for the fork and exit hooks)
 * @free_node: in a list of sessions waiting for a grace period to be freed
 */
struct ctx_session {
	u32 id;
	struct ctx_owner owner;
	u32 target_flags;
	unsigned int nr_events;
	struct ctx_event_spec spec[CTXCOUNT_MAX_EVENTS];
	int error[CTXCOUNT_MAX_EVENTS];
	bool privileged;
	struct ctx_acct acct;
	struct ctx_taskset tasks;
	atomic64_t tasks_seen;
	atomic64_t tasks_lost;
	atomic_t cpus_lost;
	bool creating;
	struct hlist_node cpuhp_node;
	struct work_struct fill_work;
	struct list_head node;
	struct list_head free_node;
};

/**
 * struct ctx_session_report - a session's state, for a netlink reply
 * @id: the session id
 * @nr_events: number of events
 * @error: per event, 0 or the error the perf core gave
 * @tasks_seen: see struct ctx_session
 * @tasks_lost: see struct ctx_session
 * @cpus_lost: see struct ctx_session
 * @tot: totals over all CPUs
 */
struct ctx_session_report {
	u32 id;
	unsigned int nr_events;
	int error[CTXCOUNT_MAX_EVENTS];
	u64 tasks_seen;
	u64 tasks_lost;
	u32 cpus_lost;
	struct ctx_totals tot;
};

int ctx_session_new(const struct ctx_owner *owner,
		    const struct ctx_target *target,
		    const struct ctx_event_req *req, unsigned int nr_events,
		    u32 flags, struct ctx_session_report *rep,
		    struct netlink_ext_ack *extack);
int ctx_session_start(const struct ctx_owner *owner, u32 id,
		      struct netlink_ext_ack *extack);
int ctx_session_stop(const struct ctx_owner *owner, u32 id,
		     struct netlink_ext_ack *extack);
int ctx_session_read(const struct ctx_owner *owner, u32 id,
		     struct ctx_session_report *rep,
		     struct netlink_ext_ack *extack);
int ctx_session_calibrate(const struct ctx_owner *owner, u32 id, u32 step,
			  struct netlink_ext_ack *extack);
int ctx_session_del(const struct ctx_owner *owner, u32 id,
		    struct netlink_ext_ack *extack);
void ctx_session_release_owner(const struct ctx_owner *owner);
void ctx_session_destroy_all(void);
int ctx_session_hotplug_init(void);
void ctx_session_hotplug_exit(void);
unsigned int ctx_session_count(void);

void ctx_session_fork(struct task_struct *parent, struct task_struct *child);
void ctx_session_exit(struct task_struct *task);

#endif /* _CTXCOUNT_SESSION_H */
