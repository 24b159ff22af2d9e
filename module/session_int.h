/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the session files share: the registry of sessions (session.c),
 * which SESSION_NEW (session_new.c) publishes into and the task hooks
 * (session_tasks.c) walk.
 */
#ifndef _CTXCOUNT_SESSION_INT_H
#define _CTXCOUNT_SESSION_INT_H

#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/xarray.h>

#include "session.h"

struct sock;
struct task_struct;

/**
 * struct ctx_pending - a session SESSION_NEW is creating (on its stack)
 * @sk: the socket it is for: it counts for that socket's limit
 * @node: in ctx_pending until the session is published or given up
 */
struct ctx_pending {
	const struct sock *sk;
	struct list_head node;
};

/*
 * All sessions are on ctx_sessions (RCU, for the fork, exit and exec
 * hooks) and in ctx_ids (for lookup by id); both change only under
 * ctx_lock, as do ctx_pending and ctx_nr_sessions.
 */
extern struct mutex ctx_lock;
extern struct list_head ctx_sessions;
extern struct list_head ctx_pending;
extern struct xarray ctx_ids;
extern unsigned int ctx_nr_sessions;

/* session.c */
unsigned int ctx_owner_sessions(const struct ctx_owner *owner);
void ctx_session_release(struct ctx_session *s);
void ctx_session_free(struct ctx_session *s);
void ctx_session_report(struct ctx_session *s, struct ctx_session_report *rep);

/* session_tasks.c */
int ctx_session_add_task(struct ctx_session *s, struct task_struct *t);

#endif /* _CTXCOUNT_SESSION_INT_H */
