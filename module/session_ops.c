// SPDX-License-Identifier: GPL-2.0
/*
 * START, STOP and READ: what they do to a session, and the worker that
 * does it.
 *
 * Each reads or enables the session's root events, and perf takes their
 * target's perf context mutex for that: a mutex the target's owner can
 * hold for as long as it likes (a read() of one of its own perf events
 * into a page that faults slowly). The handlers run under genetlink's
 * cb_lock, which every family's registration takes for writing, and every
 * generic netlink request in every namespace waits behind that writer.
 * So a handler never waits on the target itself: a worker does, and the
 * handler waits for the worker for as long as the session's root events
 * make progress, then gives up with -EAGAIN (the worker still finishes,
 * and frees what the request holds). A session has one request at a
 * worker at a time: one that waits on its target holds up only the
 * requests for its own session, and a user's retries do not pile workers
 * up.
 */
#include <linux/atomic.h>
#include <linux/bitops.h>
#include <linux/completion.h>
#include <linux/cred.h>
#include <linux/ctxcount.h>
#include <linux/cpumask.h>
#include <linux/memcontrol.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "account.h"
#include "account_ctl.h"
#include "account_read.h"
#include "perfvals.h"
#include "perm.h"
#include "session_int.h"

/**
 * struct ctx_req - a START, STOP or READ, done by a worker
 * @work: runs ctx_req_work() on ctx_session_wq
 * @done: completed when the worker has done @op
 * @ref: the handler's, and the worker's while it is queued or running;
 *	the last put frees @rep too
 * @s: the session (a reference)
 * @op: what the worker does, with the session locked
 * @rep: READ's report; the handler takes it when @done came in time
 * @memcg: the sender's memory cgroup, which READ's buffers are charged to
 * @cred: the sender's credentials, which the worker acts with (perf's
 *	read() hooks check the reader's)
 * @msg: the worker's error message (a static string)
 * @err: the worker's result
 */
struct ctx_req {
	struct work_struct work;
	struct completion done;
	refcount_t ref;
	struct ctx_session *s;
	int (*op)(struct ctx_session *s, struct ctx_session_report *rep,
		  struct netlink_ext_ack *extack);
	struct ctx_session_report *rep;
	struct mem_cgroup *memcg;
	const struct cred *cred;
	const char *msg;
	int err;
};

static void ctx_req_put(struct ctx_req *r)
{
	if (!refcount_dec_and_test(&r->ref))
		return;
	ctx_session_report_free(r->rep);
	if (r->s)
		ctx_session_put(r->s);
	mem_cgroup_put(r->memcg);
	if (r->cred)
		put_cred(r->cred);
	kfree(r);
}

/*
 * The worker's part: @op on the session, locked, with the sender's
 * credentials and READ's buffers charged to the sender. It holds a module reference, which the
 * workqueue's destruction at exit waits for the last worker to drop.
 */
static void ctx_req_work(struct work_struct *work)
{
	struct ctx_req *r = container_of(work, struct ctx_req, work);
	struct netlink_ext_ack extack = {};
	struct ctx_session *s = r->s;
	struct mem_cgroup *old_memcg;
	const struct cred *old_cred;

	/* The handler claimed the session's slot for this request. */
	old_memcg = set_active_memcg(r->memcg);
	old_cred = override_creds(r->cred);
	mutex_lock(&s->lock);
	if (s->dead) {
		/* Deleted after the handler found it. */
		NL_SET_ERR_MSG_MOD(&extack, "no such session on this socket");
		r->err = -ENOENT;
	} else {
		r->err = r->op(s, r->rep, &extack);
	}
	mutex_unlock(&s->lock);
	revert_creds(old_cred);
	set_active_memcg(old_memcg);
	r->msg = extack._msg;
	ctx_session_unclaim(s);
	complete(&r->done);
	ctx_req_put(r);
	module_put(THIS_MODULE);
}

/*
 * Do @op on @owner's session @id at a worker; @rep is the request's (freed
 * with it) unless the handler takes it (*@out). -EAGAIN when the session's
 * target holds the worker up, or its previous request still waits there.
 */
static int ctx_req_run(const struct ctx_owner *owner, u32 id,
		       int (*op)(struct ctx_session *s,
				 struct ctx_session_report *rep,
				 struct netlink_ext_ack *extack),
		       struct ctx_session_report *rep,
		       struct ctx_session_report **out,
		       struct netlink_ext_ack *extack)
{
	struct ctx_req *r;
	int err;

	r = kzalloc(sizeof(*r), GFP_KERNEL_ACCOUNT);
	if (!r) {
		ctx_session_report_free(rep);
		return -ENOMEM;
	}
	INIT_WORK(&r->work, ctx_req_work);
	init_completion(&r->done);
	refcount_set(&r->ref, 1);
	r->op = op;
	r->rep = rep;
	r->memcg = get_mem_cgroup_from_mm(current->mm);
	r->cred = get_current_cred();
	r->s = ctx_session_get(owner, id, extack);
	if (!r->s) {
		err = -ENOENT;
		goto out_put;
	}
	err = ctx_session_wait(r->s, NULL);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the session's previous request still waits for its target's perf context (held by a perf reader or an exec): try again");
		goto out_put;
	}
	/* The worker's: it may outlive this request, and the socket. */
	refcount_inc(&r->ref);
	__module_get(THIS_MODULE);
	queue_work(ctx_session_wq, &r->work);
	err = ctx_session_wait(r->s, &r->done);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "the target's perf context is held (by a perf reader or an exec): the request goes on, ask again");
		goto out_put;
	}
	err = r->err;
	if (err) {
		extack->_msg = r->msg;
	} else if (out) {
		*out = r->rep;
		r->rep = NULL;
	}
out_put:
	ctx_req_put(r);
	return err;
}

static int ctx_session_do_start(struct ctx_session *s,
				struct ctx_session_report *rep,
				struct netlink_ext_ack *extack)
{
	if (ctx_account_running(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session already started");
		return -EALREADY;
	}
	ctx_pv_start(&s->pv);
	if (s->target_flags & CTXCOUNT_TARGET_F_ENABLE_ON_EXEC)
		ctx_account_arm(&s->acct);
	else
		ctx_account_start(&s->acct);
	return 0;
}

/**
 * ctx_session_start() - begin counting
 * @owner: the socket that asks
 * @id: the session
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session), -EALREADY (already counting),
 * -EAGAIN (the target's perf context is held: the START is still done),
 * -EINTR or -ENOMEM.
 */
int ctx_session_start(const struct ctx_owner *owner, u32 id,
		      struct netlink_ext_ack *extack)
{
	return ctx_req_run(owner, id, ctx_session_do_start, NULL, NULL,
			   extack);
}

static int ctx_session_do_stop(struct ctx_session *s,
			       struct ctx_session_report *rep,
			       struct netlink_ext_ack *extack)
{
	if (!ctx_account_running(&s->acct)) {
		NL_SET_ERR_MSG_MOD(extack, "session not started");
		return -EALREADY;
	}
	ctx_account_halt(&s->acct);
	ctx_pv_stop(&s->pv);
	return 0;
}

/**
 * ctx_session_stop() - end counting; the totals stay readable
 * @owner: the socket that asks
 * @id: the session
 * @extack: for error messages
 *
 * Context: process context, may sleep.
 * Return: 0, -ENOENT (no such session), -EALREADY (not counting),
 * -EAGAIN (the target's perf context is held: the STOP is still done),
 * -EINTR or -ENOMEM.
 */
int ctx_session_stop(const struct ctx_owner *owner, u32 id,
		     struct netlink_ext_ack *extack)
{
	return ctx_req_run(owner, id, ctx_session_do_stop, NULL, NULL,
			   extack);
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
			    GFP_KERNEL_ACCOUNT);
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

static int ctx_session_do_read(struct ctx_session *s,
			       struct ctx_session_report *rep,
			       struct netlink_ext_ack *extack)
{
	int err;

	err = ctx_perm_check_read(s->proof, s->nr_events, extack);
	if (err)
		return err;
	if (rep->cpu && !s->acct.system_wide) {
		NL_SET_ERR_MSG_MOD(extack,
				   "per-CPU totals need a system-wide session (perf has no per-CPU value of a task event)");
		return -EINVAL;
	}
	if (rep->per_thread && !s->acct.thr) {
		NL_SET_ERR_MSG_MOD(extack,
				   "per-thread rows need a session made with the PER_THREAD flag");
		return -EINVAL;
	}
	err = ctx_src_report_init(&rep->src, s->acct.src, rep->cpu,
				  rep->cpu ? num_possible_cpus() : 0);
	if (!err && rep->per_thread)
		err = ctx_session_threads_alloc(s, rep);
	if (!err)
		err = ctx_account_read(&s->acct, &rep->tot, rep->src.tot,
				       rep->cpu, &rep->nr_cpus);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "no memory to read the session");
		return err;
	}
	ctx_pv_read(&s->pv, &rep->tot, rep->cpu, rep->nr_cpus, rep->thr);
	ctx_session_report(s, rep);
	ctx_session_finish(rep);
	if (rep->thr)
		ctx_session_threads_finish(s, rep);
	ctx_src_report_info(&rep->src, s->acct.src);
	return 0;
}

/**
 * ctx_session_read() - current totals of a session
 * @owner: the socket that asks
 * @id: the session
 * @flags: enum ctxcount_read_flag bits, checked by the caller
 * @extack: for error messages
 *
 * The report's buffers are charged to the sender's memory cgroup.
 *
 * Context: process context, may sleep.
 * Return: the session's state and totals (free with
 * ctx_session_report_free()), or ERR_PTR() of -ENOENT (no such session),
 * -EACCES or -EPERM (a security module refuses the sender perf's read() of
 * an event: ctx_perm_check_read()), -EINVAL (a row kind the session has
 * not), -EAGAIN (the target's perf context is held), -EINTR or -ENOMEM.
 */
struct ctx_session_report *ctx_session_read(const struct ctx_owner *owner,
					    u32 id, u32 flags,
					    struct netlink_ext_ack *extack)
{
	struct ctx_session_report *rep, *out = NULL;
	int err;

	rep = kzalloc(sizeof(*rep), GFP_KERNEL_ACCOUNT);
	if (!rep)
		return ERR_PTR(-ENOMEM);
	if (flags & CTXCOUNT_READ_F_PER_CPU) {
		rep->cpu = kvcalloc(num_possible_cpus(), sizeof(*rep->cpu),
				    GFP_KERNEL_ACCOUNT);
		if (!rep->cpu) {
			ctx_session_report_free(rep);
			return ERR_PTR(-ENOMEM);
		}
	}
	rep->per_thread = flags & CTXCOUNT_READ_F_PER_THREAD;
	err = ctx_req_run(owner, id, ctx_session_do_read, rep, &out, extack);
	return err ? ERR_PTR(err) : out;
}

/**
 * ctx_session_report_free() - free a report ctx_session_read() made
 * @rep: the report, or NULL
 */
void ctx_session_report_free(struct ctx_session_report *rep)
{
	if (!rep)
		return;
	ctx_src_report_free(&rep->src);
	kvfree(rep->thr);
	kvfree(rep->cpu);
	kfree(rep);
}
