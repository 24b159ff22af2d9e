/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the session files share: the registry of sessions (session.c),
 * which SESSION_NEW (session_new.c) publishes into, START, STOP and READ
 * (session_ops.c) look up and the task hooks (session_tasks.c) walk; and
 * the wait for a session's worker.
 */
#ifndef _CTXCOUNT_SESSION_INT_H
#define _CTXCOUNT_SESSION_INT_H

#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/refcount.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>

#include "session.h"

struct cred;
struct file;
struct mem_cgroup;
struct pid_namespace;
struct sock;
struct task_struct;

/**
 * struct ctx_pending - a session SESSION_NEW is creating
 * @sk: the socket it is for: it counts for that socket's limit
 * @node: in ctx_pending until the session is published or given up
 */
struct ctx_pending {
	const struct sock *sk;
	struct list_head node;
};

/**
 * struct ctx_build - the part of a SESSION_NEW that waits on the target
 * @work: runs ctx_build_work() on ctx_session_wq
 * @done: completed when the worker has finished with @s
 * @ref: the handler's and the worker's
 * @s: the session, allocated and charged by the handler
 * @nreq: a copy of the request (no CPU list: allocation used it)
 * @task: the target (referenced), or with ALL_THREADS the sender; NULL
 *	system-wide
 * @ns: the sender's pid namespace, which ALL_THREADS takes the threads of
 * @cred: the sender's credentials, which the worker creates the counters
 *	with (the PMU drivers' and the LSMs' checks of the caller)
 * @memcg: the sender's memory cgroup, which the worker charges
 * @proof: the proofs' files, taken by the handler (the sender's file table)
 * @pend: the session, counted for its socket until published or given up
 * @extack: the worker's error message, which the handler passes on
 * @err: the worker's result
 * @finished: the worker has its result (under ctx_lock)
 * @abandoned: the handler gave up waiting: the worker frees @s (under
 *	ctx_lock)
 *
 * The target's owner can hold the locks counter creation takes (its
 * exec_update_lock, its perf context's mutex) for as long as it likes,
 * and the handler runs under genetlink's cb_lock, which every generic
 * netlink family's registration takes for writing: so the waiting is done
 * by a worker, and the handler gives up when it makes no progress.
 */
struct ctx_build {
	struct work_struct work;
	struct completion done;
	refcount_t ref;
	struct ctx_session *s;
	struct ctx_new_req nreq;
	struct task_struct *task;
	struct pid_namespace *ns;
	const struct cred *cred;
	struct mem_cgroup *memcg;
	struct file *proof[CTXCOUNT_MAX_EVENTS];
	struct ctx_pending pend;
	struct netlink_ext_ack extack;
	int err;
	bool finished;
	bool abandoned;
};

/*
 * All sessions are on ctx_sessions (RCU, for the fork, exit and exec
 * hooks) and in ctx_ids (for lookup by id); both change only under
 * ctx_lock, as do ctx_pending and ctx_nr_sessions.
 */
extern struct mutex ctx_lock;
extern struct workqueue_struct *ctx_session_wq;
extern struct list_head ctx_sessions;
extern struct list_head ctx_pending;
extern struct xarray ctx_ids;
extern unsigned int ctx_nr_sessions;

/*
 * How long a handler waits for a worker that waits on the target (the
 * target's owner can hold the locks it needs for as long as it likes,
 * while the handler holds genetlink's cb_lock, which every family's
 * registration waits for): CTX_WAIT_SLICES slices of a second in a row in
 * which the worker makes no progress. A thread or CPU's counters, or a
 * root event's read, take well under a millisecond even in an emulated
 * guest. Slices rather than one timeout: a guest whose vCPUs the host
 * stops for seconds wakes with one slice over, not three.
 */
#define CTX_WAIT_SLICE		HZ
#define CTX_WAIT_SLICES		3

/* Bit of struct ctx_session's @busy: a request of the session's is at a worker. */
#define CTX_SESSION_BUSY	0

/* Claim @s's request slot: true if no other request of @s's is at a worker. */
static inline bool ctx_session_claim(struct ctx_session *s)
{
	return !test_and_set_bit_lock(CTX_SESSION_BUSY, &s->busy);
}

/* The request at @s's worker is done: the next may go. */
static inline void ctx_session_unclaim(struct ctx_session *s)
{
	clear_bit_unlock(CTX_SESSION_BUSY, &s->busy);
	wake_up(&s->req_wait);
}

/* session.c */
unsigned int ctx_owner_sessions(const struct ctx_owner *owner);
void ctx_session_release(struct ctx_session *s);
void ctx_session_free(struct ctx_session *s);
void ctx_session_report(struct ctx_session *s, struct ctx_session_report *rep);
struct ctx_session *ctx_session_get(const struct ctx_owner *owner, u32 id,
				    struct netlink_ext_ack *extack);
void ctx_session_put(struct ctx_session *s);
int ctx_session_wait(struct ctx_session *s, struct completion *done);
void ctx_session_destroy_work(struct work_struct *work);

/* session_build.c */
bool ctx_sender_ns_sees(struct task_struct *t, const struct task_struct *self,
			struct pid_namespace *ns);
unsigned int ctx_count_threads(struct pid_namespace *ns);
void ctx_build_work(struct work_struct *work);
void ctx_build_put(struct ctx_build *b);

/* session_tasks.c */
int ctx_session_add_task(struct ctx_session *s, struct task_struct *t);

#endif /* _CTXCOUNT_SESSION_INT_H */
